/* The two packed calls of a host function: a kernel launch (the call's
 * arguments stored by the kernel's param types; grid, block, cluster,
 * dynamic shared memory and programmatic dependent launch from the call and
 * the kernel's attributes) and
 * runtime.cuTensorMapEncodeTiled (a TMA descriptor into the host's map
 * slot), through the environment's callbacks. In a dry run (no launch
 * callback) the launch only checks; without an encode callback a tensor
 * map is only checked. */
#include <stdio.h>
#include <string.h>

#include "../ir/float_bits.h"
#include "../ir/verify_launch.h"
#include "host_internal.h"

/* One kernel argument, stored as the kernel's parameter type wants it. */
typedef union ArgSlot {
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
} ArgSlot;

static const IrExpr *func_attr(const IrFunc *f, const char *key)
{
    for (int i = 0; i < f->nattrs; i++)
        if (!strcmp(f->attrs[i].key, key))
            return f->attrs[i].value;
    return NULL;
}

static void store_scalar(IrDType t, Val v, ArgSlot *slot)
{
    if (ir_dtype_is_float(t)) {
        double d = v.kind == V_FLOAT ? v.f : (double)v.i;
        if (t.bits == 64)
            slot->f64 = d;
        else if (t.bits == 32)
            slot->f32 = (float)d;
        else if (t.bits == 16) /* half, bfloat16: the kernel's parameter holds the bits */
            slot->i16 = (int16_t)ir_float_to_bits(t, d);
        else /* fp8 and narrower: one byte */
            slot->i8 = (int8_t)ir_float_to_bits(t, d);
        return;
    }
    int64_t i = v.kind == V_FLOAT ? (int64_t)v.f : v.i;
    switch (t.bits) {
    case 8: slot->i8 = (int8_t)i; break;
    case 16: slot->i16 = (int16_t)i; break;
    case 32: slot->i32 = (int32_t)i; break;
    default: slot->i64 = i; break;
    }
}

/* Evaluates argument i of the call into its slot; false after a failure. */
static bool store_arg(Eval *ev, const IrFunc *k, int i, const IrExpr *arg, ArgSlot *slot,
                      void **ptr)
{
    const IrExpr *p = k->params[i];
    Val v = rt_he_eval(ev, arg);
    if (rt_he_failed(ev))
        return false;
    const IrType *t = p->u.var.type;
    if (t->kind == IR_TY_TENSORMAP) {
        if (v.kind != V_MAP) {
            rt_he_fail(ev, "%s: %s param %s needs a tensor map", ev->f->name, k->name,
                       rt_he_name(p));
            return false;
        }
        *ptr = &ev->maps[v.map];
        return true;
    }
    if (t->kind == IR_TY_PTR)
        slot->i64 = v.i;
    else
        store_scalar(t->dtype, v, slot);
    *ptr = slot;
    return true;
}

static bool set_extent(Eval *ev, const IrFunc *k, const char *tag, int64_t ext,
                       RtLaunchConfig *cfg)
{
    unsigned *dims = !strncmp(tag, "blockIdx.", 9) ? cfg->grid
                     : !strncmp(tag, "threadIdx.", 10) ? cfg->block : NULL;
    int d = dims ? tag[strlen(tag) - 1] - 'x' : -1;
    if (!dims || d < 0 || d > 2) {
        rt_he_fail(ev, "%s: launch param '%s' of %s is not a grid or block dimension",
                   ev->f->name, tag, k->name);
        return false;
    }
    int64_t limit = ir_launch_tag_limit(tag);
    if (ext < 1 || ext > limit) {
        rt_he_fail(ev, "%s: the launch of %s has %s = %lld, outside 1..%lld", ev->f->name,
                   k->name, tag, (long long)ext, (long long)limit);
        return false;
    }
    dims[d] = (unsigned)ext;
    return true;
}

/* The kernel's launch attributes: its cluster shape, and whether it is a
 * programmatic dependent launch. */
static void set_kernel_attrs(const IrFunc *k, RtLaunchConfig *cfg)
{
    const IrExpr *c = func_attr(k, "tirx.cluster_dims");
    for (int i = 0; c && c->kind == IR_E_LIST && i < c->u.list.n && i < 3; i++)
        cfg->cluster[i] = (unsigned)c->u.list.items[i]->u.int_val;
    const IrExpr *pdl = func_attr(k, "tirx.use_programtic_dependent_launch");
    cfg->pdl = pdl && (pdl->kind == IR_E_PYBOOL || pdl->kind == IR_E_PYINT) && pdl->u.int_val;
}

/* Grid, block and shared memory from the call's trailing arguments. */
static bool launch_config(Eval *ev, const IrFunc *k, const IrCall *c, RtLaunchConfig *cfg)
{
    const IrExpr *tags = func_attr(k, "tirx.kernel_launch_params");
    int ntags = tags && tags->kind == IR_E_LIST ? tags->u.list.n : 0;
    if (c->nargs != 1 + k->nparams + ntags + 1) {
        rt_he_fail(ev, "%s: the launch of %s passes %d values, the kernel takes %d arguments, "
                   "%d launch extents and the shared memory size",
                   ev->f->name, k->name, c->nargs - 1, k->nparams, ntags);
        return false;
    }
    for (int i = 0; i < 3; i++)
        cfg->grid[i] = cfg->block[i] = 1;
    for (int i = 0; i < ntags; i++) {
        Val v = rt_he_eval(ev, c->args[1 + k->nparams + i]);
        if (rt_he_failed(ev) || !set_extent(ev, k, tags->u.list.items[i]->u.str, v.i, cfg))
            return false;
    }
    Val smem = rt_he_eval(ev, c->args[c->nargs - 1]);
    cfg->dyn_smem_bytes = smem.i > 0 ? (size_t)smem.i : 0;
    cfg->stream = ev->env->stream;
    set_kernel_attrs(k, cfg);
    return !rt_he_failed(ev);
}

void rt_he_launch(Eval *ev, const IrFunc *k, const IrCall *c)
{
    if (k->nparams > MAX_KERNEL_ARGS) {
        rt_he_fail(ev, "%s: %s has more than %d params", ev->f->name, k->name, MAX_KERNEL_ARGS);
        return;
    }
    RtLaunchConfig cfg = {0};
    if (!launch_config(ev, k, c, &cfg))
        return;
    ArgSlot slots[MAX_KERNEL_ARGS];
    void *ptrs[MAX_KERNEL_ARGS];
    for (int i = 0; i < k->nparams; i++)
        if (!store_arg(ev, k, i, c->args[1 + i], &slots[i], &ptrs[i]))
            return;
    if (ev->env->observe)
        ev->env->observe(ev->env->user, k->name, &cfg);
    if (ev->env->launch)
        ev->status = ev->env->launch(ev->env->user, k, &cfg, ptrs, ev->err);
}

/* ---------------------------------------------------------------- TMA */

/* The CUtensorMapDataType of a tirx dtype name (cuda_backend.md §3.1). */
static bool tma_dtype(const char *name, RtTmaDtype *out)
{
    static const struct {
        const char *name;
        RtTmaDtype t;
    } table[] = {
        {"int8", RT_TMA_UINT8}, {"uint8", RT_TMA_UINT8}, {"int16", RT_TMA_UINT16},
        {"uint16", RT_TMA_UINT16}, {"int32", RT_TMA_INT32}, {"uint32", RT_TMA_UINT32},
        {"int64", RT_TMA_INT64}, {"uint64", RT_TMA_UINT64}, {"float16", RT_TMA_FLOAT16},
        {"float32", RT_TMA_FLOAT32}, {"tf32", RT_TMA_TFLOAT32}, {"float64", RT_TMA_FLOAT64},
        {"bfloat16", RT_TMA_BFLOAT16}, {"float8_e4m3fn", RT_TMA_UINT8},
        {"float8_e5m2", RT_TMA_UINT8}, {"float4_e2m1fn", RT_TMA_16U4_ALIGN8B},
        {"float4_e2m1fn_align16", RT_TMA_16U4_ALIGN16B},
        {"float6_e2m3fn_align16", RT_TMA_16U6_ALIGN16B},
        {"float6_e3m2fn_align16", RT_TMA_16U6_ALIGN16B},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(table[i].name, name)) {
            *out = table[i].t;
            return true;
        }
    return false;
}

static bool eval_ints(Eval *ev, IrExpr *const *xs, int n, uint64_t *out)
{
    for (int i = 0; i < n; i++)
        out[i] = (uint64_t)rt_he_eval(ev, xs[i]).i;
    return !rt_he_failed(ev);
}

static bool tma_spec(Eval *ev, const IrCall *c, RtTensorMapSpec *s)
{
    const IrExpr *dt = c->args[2];
    if (!(dt->kind == IR_E_STR ? tma_dtype(dt->u.str, &s->dtype)
                               : (s->dtype = (RtTmaDtype)rt_he_eval(ev, dt).i, true))) {
        rt_he_fail(ev, "%s: TMA descriptor: no tensor-map type for dtype %s", ev->f->name,
                   dt->u.str);
        return false;
    }
    s->rank = (int)rt_he_eval(ev, c->args[3]).i;
    if (s->rank < 1 || s->rank > 5 || c->nargs < 4 * s->rank + 8) {
        rt_he_fail(ev, "%s: TMA descriptor: rank %d with %d arguments", ev->f->name, s->rank,
                   c->nargs);
        return false;
    }
    int r = s->rank;
    IrExpr *const *a = c->args + 5;
    uint64_t tmp[5], enums[4];
    s->global_address = (RtDevPtr)rt_he_eval(ev, c->args[4]).i;
    bool ok = eval_ints(ev, a, r, s->global_dim) && eval_ints(ev, a + r, r - 1, s->global_strides);
    ok = ok && eval_ints(ev, a + 2 * r - 1, r, tmp);
    for (int i = 0; ok && i < r; i++)
        s->box_dim[i] = (uint32_t)tmp[i];
    ok = ok && eval_ints(ev, a + 3 * r - 1, r, tmp);
    for (int i = 0; ok && i < r; i++)
        s->element_strides[i] = (uint32_t)tmp[i];
    ok = ok && eval_ints(ev, a + 4 * r - 1, 4, enums);
    s->interleave = (RtTmaInterleave)enums[0], s->swizzle = (RtTmaSwizzle)enums[1];
    s->l2_promotion = (RtTmaL2Promotion)enums[2], s->oob_fill = (RtTmaOobFill)enums[3];
    return ok;
}

void rt_he_encode_tma(Eval *ev, const IrCall *c)
{
    if (c->nargs < 12) {
        rt_he_fail(ev, "%s: TMA descriptor: %d arguments", ev->f->name, c->nargs);
        return;
    }
    Val map = rt_he_eval(ev, c->args[1]);
    if (!rt_he_failed(ev) && map.kind != V_MAP)
        rt_he_fail(ev, "%s: TMA descriptor: the first argument is not a tensor map", ev->f->name);
    RtTensorMapSpec spec = {0};
    if (rt_he_failed(ev) || !tma_spec(ev, c, &spec))
        return;
    RtStatus s = ev->env->encode
                     ? ev->env->encode(ev->env->user, &spec, &ev->maps[map.map], ev->err)
                     : rt_tensor_map_check(&spec, ev->err);
    if (s != RT_OK) {
        /* name the function and the tensor the map describes, before the reason */
        char prefix[160];
        const IrExpr *g = c->args[4]; /* the global address: a buffer's data, or a handle */
        if (g->kind == IR_E_CALL && g->u.call.op == IR_OP_BUFFER_DATA && g->u.call.nargs == 1)
            g = g->u.call.args[0];
        if (g->kind == IR_E_VAR)
            snprintf(prefix, sizeof prefix, "%s: argument %s: ", ev->f->name, rt_he_name(g));
        else
            snprintf(prefix, sizeof prefix, "%s: ", ev->f->name);
        char *m = ev->err->message;
        size_t plen = strlen(prefix), mlen = strlen(m), cap = sizeof ev->err->message - 1;
        if (plen + mlen > cap)
            mlen = plen < cap ? cap - plen : 0;
        memmove(m + plen, m, mlen);
        memcpy(m, prefix, plen);
        m[plen + mlen] = '\0';
        ev->status = s;
    }
}
