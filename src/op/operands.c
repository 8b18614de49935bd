/* What a variant reads from a tile-primitive call: its positional arguments
 * as buffer regions (memory kind, constant extents, layout), its config and
 * workspace keywords, and who executes it (the threads of its scope and the
 * running thread's index among them). */
#include <stdio.h>
#include <string.h>

#include "op.h"

IrScope op_varies_at(const OpCtx *c, const IrExpr *e)
{
    return c->varies_at ? c->varies_at(c, e) : IR_SCOPE_THREAD;
}

int op_nargs(const OpCtx *c) { return c->call->u.tile.nargs; }

IrExpr *op_arg(const OpCtx *c, int i)
{
    return i < c->call->u.tile.nargs ? c->call->u.tile.args[i] : NULL;
}

static OpMem mem_of(const char *scope)
{
    if (!strcmp(scope, "global"))
        return OP_MEM_GLOBAL;
    if (!strncmp(scope, "shared", 6))
        return OP_MEM_SHARED;
    if (!strcmp(scope, "local"))
        return OP_MEM_LOCAL;
    if (!strcmp(scope, "tmem"))
        return OP_MEM_TMEM;
    return OP_MEM_OTHER;
}

const char *op_mem_name(OpMem m)
{
    static const char *const names[] = {"global", "shared", "local", "tmem", "other"};
    return names[m];
}

static bool has_thread_axis(const IrLayout *l)
{
    if (!l)
        return false;
    if (l->kind == IR_LAYOUT_COMPOSE)
        return has_thread_axis(l->tile);
    for (int i = 0; i < l->nshard; i++)
        if (ly_axis_kind(l->shard[i].axis) == LY_THREAD)
            return true;
    for (int i = 0; i < l->nreplica; i++)
        if (ly_axis_kind(l->replica[i].axis) == LY_THREAD)
            return true;
    for (int i = 0; i < l->noffset; i++)
        if (ly_axis_kind(l->offset[i].axis) == LY_THREAD)
            return true;
    return false;
}

/* The fields of a region that its buffer decides. */
static void over(IrExpr *buf, OpRegion *out)
{
    out->buffer = buf;
    out->dtype = buf->u.var.type->dtype;
    out->mem = mem_of(buf->u.var.type->scope);
    out->layout = ir_buf(buf)->layout;
    out->distributed = has_thread_axis(out->layout);
}

const char *op_region(OpCtx *c, int i, OpRegion *out)
{
    IrExpr *a = op_arg(c, i);
    if (!a || a->kind != IR_E_REGION)
        return op_reason(c, "argument %d is not a buffer region", i + 1);
    IrExpr *buf = a->u.access.buffer;
    over(buf, out);
    out->ndim = a->u.access.n;
    if (out->ndim > OP_MAX_DIMS)
        return op_reason(c, "regions of more than %d dimensions are not supported", OP_MAX_DIMS);
    out->start = a->u.access.indices;
    out->extent = TX_NEW_ARRAY(c->arena, int64_t, out->ndim ? out->ndim : 1);
    for (int d = 0; d < out->ndim; d++)
        if (!op_const(a->u.access.extents[d], &out->extent[d]))
            return op_reason(c, "the extents of the region of '%s' are not constants",
                             buf->u.var.name);
    return NULL;
}

const char *op_region_over(OpCtx *c, IrExpr *buffer, const OpRegion *like, OpRegion *out)
{
    *out = *like;
    over(buffer, out);
    int ndim = ir_buf(buffer)->ndim;
    return ndim == like->ndim ? NULL
                              : op_reason(c, "'%s' has %d dimensions, the region %d",
                                          buffer->u.var.name, ndim, like->ndim);
}

static IrExpr *kwarg(const IrKwarg *kw, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(kw[i].key, key))
            return kw[i].value;
    return NULL;
}

IrExpr *op_config(const OpCtx *c, const char *key)
{
    return kwarg(c->call->u.tile.config, c->call->u.tile.nconfig, key);
}

IrExpr *op_workspace(const OpCtx *c, const char *key)
{
    return kwarg(c->call->u.tile.workspace, c->call->u.tile.nworkspace, key);
}

int64_t op_region_size(const OpRegion *r)
{
    int64_t n = 1;
    for (int d = 0; d < r->ndim; d++)
        n *= r->extent[d];
    return n;
}

int op_region_dims(const OpRegion *r, int64_t *ext, int *dim)
{
    int k = 0;
    for (int d = 0; d < r->ndim; d++)
        if (r->extent[d] != 1) {
            if (ext)
                ext[k] = r->extent[d];
            if (dim)
                dim[k] = d;
            k++;
        }
    return k;
}

bool op_regions_match(const OpRegion *a, const OpRegion *b)
{
    int na = op_region_dims(a, NULL, NULL), nb = op_region_dims(b, NULL, NULL);
    if (na != nb)
        return false;
    for (int i = 0, j = 0; i < a->ndim && j < b->ndim;) {
        if (a->extent[i] == 1) {
            i++;
            continue;
        }
        if (b->extent[j] == 1) {
            j++;
            continue;
        }
        if (a->extent[i++] != b->extent[j++])
            return false;
    }
    return true;
}

/* ---------------------------------------------------------------- storage */

const IrLayout *op_strided_layout(OpCtx *c, const IrBufferType *bt)
{
    LyCtx lc = op_ly_ctx(c);
    if (!bt->nstrides)
        return ly_row_major(&lc, bt->shape, bt->ndim);
    IrIter *it = TX_NEW_ARRAY(c->arena, IrIter, bt->ndim ? bt->ndim : 1);
    for (int d = 0; d < bt->ndim; d++)
        it[d] = (IrIter){bt->shape[d], bt->strides[d], "m"};
    return ly_tile(&lc, it, bt->ndim, NULL, 0, NULL, 0);
}

const IrLayout *op_buffer_layout(OpCtx *c, const IrBufferType *bt)
{
    LyCtx lc = op_ly_ctx(c);
    if (bt->layout && (!bt->nstrides ||
                       !ly_equal(&lc, bt->layout, ir_default_layout(c->arena, bt->shape, bt->ndim),
                                 LY_TARGET_NONE)))
        return bt->layout;
    return op_strided_layout(c, bt);
}

IrExpr *op_storage_root(const OpCtx *c, IrExpr *buffer)
{
    uintptr_t data;
    for (int guard = 0; c->decl_data && guard < 64; guard++) {
        if (!ir_ptrmap_get(c->decl_data, buffer, &data))
            break;
        const IrExpr *d = (const IrExpr *)data;
        if (d->kind != IR_E_CALL || d->u.call.op != IR_OP_BUFFER_DATA || d->u.call.nargs != 1)
            break;
        buffer = d->u.call.args[0];
    }
    return buffer;
}

/* The CUDA code generator places every shared.dyn allocation at the start of
 * the dynamic shared memory, which it declares 1024-byte aligned. */
#define DYN_SMEM_ALIGN 1024

int64_t op_shared_alignment(const OpCtx *c, IrExpr *buffer)
{
    const IrBufferType *bt = ir_buf(buffer);
    int64_t declared = bt->align, offset = 0;
    uintptr_t data;
    IrExpr *root = op_storage_root(c, buffer);
    bool root_allocated = !(c->decl_data && ir_ptrmap_get(c->decl_data, root, &data));
    const char *scope = root->u.var.type->scope;
    if (root == buffer || !root_allocated || !scope || strcmp(scope, "shared.dyn") ||
        bt->elem_offset->kind != IR_E_INT)
        return declared;
    offset = bt->elem_offset->u.int_val * buffer->u.var.type->dtype.bits;
    int64_t proven = DYN_SMEM_ALIGN;
    while (proven > 1 && offset % (proven * 8))
        proven /= 2;
    return proven > declared ? proven : declared;
}

typedef struct HostWalk {
    IrVisitor v;
    const IrPtrMap *device;
    bool device_var;
} HostWalk;

static bool host_expr(IrVisitor *v, const IrExpr *e)
{
    HostWalk *w = v->ctx;
    uintptr_t x;
    if (e->kind == IR_E_VAR && ir_ptrmap_get(w->device, e, &x))
        w->device_var = true;
    return !w->device_var;
}

bool op_host_known(const OpCtx *c, const IrExpr *e)
{
    if (!e || !c->device_vars)
        return true;
    HostWalk w = {{0}, c->device_vars, false};
    w.v.ctx = &w, w.v.expr = host_expr;
    ir_visit_expr(&w.v, e);
    return !w.device_var;
}

/* ---------------------------------------------------------------- threads */

int64_t op_scope_threads(const OpCtx *c)
{
    switch (c->call->u.tile.scope) {
    case IR_SCOPE_THREAD: return 1;
    case IR_SCOPE_WARP: return 32;
    case IR_SCOPE_WARPGROUP: return 128;
    case IR_SCOPE_CTA: return c->cta_threads;
    default: return 0;
    }
}

IrExpr *op_scope_index(OpCtx *c)
{
    switch (c->call->u.tile.scope) {
    case IR_SCOPE_THREAD: return op_i32(c, 0);
    case IR_SCOPE_WARP: return c->axis[LY_AXIS_LANEID];
    case IR_SCOPE_WARPGROUP: return c->axis[LY_AXIS_TID_IN_WG];
    case IR_SCOPE_CTA: return c->axis[LY_AXIS_TX];
    default: return NULL;
    }
}

static const char *scope_word(IrScope s)
{
    switch (s) {
    case IR_SCOPE_THREAD: return "thread";
    case IR_SCOPE_WARP: return "warp";
    case IR_SCOPE_WARPGROUP: return "warpgroup";
    case IR_SCOPE_CTA: return "CTA";
    default: return ir_scope_names[s];
    }
}

static const char *need_scope(OpCtx *c, unsigned allowed, IrScope unit)
{
    IrScope s = c->call->u.tile.scope;
    if (!(allowed & OP_SCOPE_BIT(s))) {
        char list[128] = "";
        size_t len = 0;
        for (int k = IR_SCOPE_THREAD; k >= 0; k--)
            if (allowed & OP_SCOPE_BIT(k))
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
                                        scope_word((IrScope)k));
        c->wrong_scope = true;
        return op_reason(c, "runs at %s scope, not at %s scope", list, scope_word(s));
    }
    if (s == IR_SCOPE_THREAD)
        return NULL;
    if (c->narrow > (int)unit)
        return op_reason(c, "an enclosing 'if' leaves some threads of the %s out", scope_word(unit));
    if (!op_scope_index(c))
        return op_reason(c, "the kernel's scope ids do not give each thread's index in the %s "
                            "(declare T.thread_id, or T.warp_id and T.lane_id)", scope_word(s));
    if (op_scope_threads(c) <= 0)
        return op_reason(c, "the number of threads in the CTA is not a known constant");
    return NULL;
}

const char *op_need_scope(OpCtx *c, unsigned allowed)
{
    return need_scope(c, allowed, c->call->u.tile.scope);
}

const char *op_need_scope_per(OpCtx *c, unsigned allowed, IrScope unit)
{
    IrScope s = c->call->u.tile.scope;
    return need_scope(c, allowed, (int)unit > (int)s ? unit : s);
}
