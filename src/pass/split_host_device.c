/* SplitHostDevice: each outermost launch region (a thread_extent AttrStmt,
 * T.launch_thread) becomes a device function F_kernel (F_kernel_1, ... when
 * the name is taken), and the host function launches it in its place with
 *     T.call_packed("F_kernel", args..., extents..., dyn_smem_bytes)
 * (docs/pipeline.md, "The IR contract"; reference: layout_passes.md §3.7).
 *
 * The kernel's params are the region's free variables: a buffer B becomes a
 * typed global pointer B_data (the host passes its storage root's data) and
 * is re-declared inside on it (buffers over one storage root, such as a
 * view beside its buffer, share one pointer: two restrict pointers to the
 * same storage would be wrong); tensor maps and scalars pass through;
 * pointers and tensor maps first, then scalars, each group by name. The
 * launch params are the thread tags in order of first appearance, the
 * extents host expressions. The dynamic shared memory size is the kernel's
 * one `tirx.dyn_smem_bytes` declaration, stripped here; a shared.dyn
 * allocation without it is an error, even when sized. TMA tensor-map init
 * statements inside the region move to the host before the launch, their
 * buffer data rewritten onto storage roots. Launch-bound attrs around the
 * region become kernel attributes, and so do the function's launch flags
 * (programmatic dependent launch) for each kernel it launches. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Body attrs that become kernel attributes. */
static const char *const kernel_attr_keys[] = {
    "tirx.launch_bounds_min_blocks_per_sm",
    "tirx.launch_bounds_max_blocks_per_cluster",
    "tirx.max_registers",
};
#define NKERNEL_ATTRS ((int)TX_ARRAY_LEN(kernel_attr_keys))

/* Function attrs (T.func_attr) that every kernel of the function takes,
 * True or False: {the spelling accepted, the kernel's key}. Programmatic
 * dependent launch is spelled as the reference spells it ("programtic");
 * the correct spelling is an alias. */
static const struct {
    const char *func_key, *kernel_key;
    int min_sm;
} launch_flags[] = {
    {"tirx.use_programtic_dependent_launch", "tirx.use_programtic_dependent_launch", 90},
    {"tirx.use_programmatic_dependent_launch", "tirx.use_programtic_dependent_launch", 90},
};

typedef TX_VEC(IrExpr *) ExprVec;
typedef TX_VEC(IrStmt *) StmtVec;
typedef TX_VEC(IrFunc *) FuncVec;

typedef struct Split {
    IrModule *m;
    IrFunc *f;
    IrPtrMap root;                     /* buffer var -> its storage root */
    IrExpr *kattr[NKERNEL_ATTRS];      /* launch bounds in force */
    IrPtrMap host_binds;               /* host Bind var -> value, for launch extents */
    FuncVec kernels;                   /* made from this function */
    const FuncVec *taken;              /* kernels made before (names) */
    const char *arch;                  /* NULL: not known */
    int64_t smem_limit;                /* the target's shared memory per block; 0: unknown */
    bool failed;
} Split;

static TxArena *arena(Split *sp) { return &sp->m->arena; }

static void split_error(Split *sp, TxCode code, TxSpan at, const char *fmt, const char *arg)
{
    tx_error(&sp->m->diags, code, at.src ? at : sp->f->span, fmt, arg);
    sp->failed = true;
}

/* ---------------------------------------------------------------- storage roots */

static IrExpr *root_of(Split *sp, IrExpr *buffer)
{
    uintptr_t v;
    return ir_ptrmap_get(&sp->root, buffer, &v) ? (IrExpr *)v : buffer;
}

static bool record_root(IrVisitor *v, const IrStmt *s)
{
    Split *sp = v->ctx;
    if (s->kind == IR_S_DECL && s->u.decl.data) {
        IrExpr *src = ps_buffer_data_of(s->u.decl.data);
        if (src)
            ir_ptrmap_put(&sp->root, s->u.decl.buffer, (uintptr_t)root_of(sp, src));
    }
    return true;
}

static IrExpr *data_on_root(IrMutator *mu, IrExpr *e)
{
    IrExpr *b = ps_buffer_data_of(e);
    return b ? ps_buffer_data(mu->arena, root_of(mu->ctx, b)) : NULL;
}

/* ---------------------------------------------------------------- TMA init hoisting */

static bool is_call_named(const IrExpr *e, IrOp op, const char *name)
{
    return e && e->kind == IR_E_CALL && e->u.call.op == op && e->u.call.nargs > 0 &&
           e->u.call.args[0]->kind == IR_E_STR && !strcmp(e->u.call.args[0]->u.str, name);
}

static bool is_host_init(const IrStmt *s)
{
    return (s->kind == IR_S_BIND && is_call_named(s->u.bind.value, IR_OP_STACK_ALLOCA, "tensormap")) ||
           (s->kind == IR_S_EVAL &&
            is_call_named(s->u.eval, IR_OP_CALL_PACKED, "runtime.cuTensorMapEncodeTiled"));
}

typedef struct Hoist {
    Split *sp;
    StmtVec out;
} Hoist;

static IrStmt *hoist_hook(IrMutator *mu, IrStmt *s)
{
    Hoist *h = mu->ctx;
    if (!is_host_init(s))
        return NULL;
    IrMutator on_root = {.ctx = h->sp, .arena = mu->arena, .expr = data_on_root};
    tx_vec_push(&h->out, ir_mutate_stmt(&on_root, s));
    ir_mutator_free(&on_root);
    return ps_empty(mu->arena);
}

/* ---------------------------------------------------------------- free variables */

typedef struct Free {
    IrPtrMap defined, seen;
    ExprVec vars; /* in order of first use */
} Free;

static void free_def(IrVisitor *v, const IrExpr *var, const IrStmt *where)
{
    (void)where;
    ir_ptrmap_put(&((Free *)v->ctx)->defined, var, 1);
}

static bool free_stmt(IrVisitor *v, const IrStmt *s)
{
    if (ps_is_launch_attr(s) && s->u.attr.node->kind == IR_E_VAR)
        ir_ptrmap_put(&((Free *)v->ctx)->defined, s->u.attr.node, 1);
    return true;
}

static bool free_expr(IrVisitor *v, const IrExpr *e)
{
    Free *fr = v->ctx;
    if (e->kind != IR_E_VAR || ir_ptrmap_get(&fr->defined, e, NULL) ||
        ir_ptrmap_get(&fr->seen, e, NULL))
        return true;
    ir_ptrmap_put(&fr->seen, e, 1);
    tx_vec_push(&fr->vars, (IrExpr *)e);
    if (ir_is_buffer(e))
        ir_visit_type(v, e->u.var.type);
    return true;
}

static void free_vars(const IrStmt *region, Free *fr)
{
    IrVisitor v = {.ctx = fr, .expr = free_expr, .stmt = free_stmt, .def = free_def};
    ir_visit_stmt(&v, region);
}

static void free_free(Free *fr)
{
    ir_ptrmap_free(&fr->defined);
    ir_ptrmap_free(&fr->seen);
    tx_vec_free(&fr->vars);
}

/* Pointers, buffers and tensor maps first, then scalars; by name within each. */
static int param_rank(const IrExpr *v) { return v->u.var.type->kind == IR_TY_PRIM; }

static void sort_params(IrExpr **vars, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            IrExpr *a = vars[j - 1], *b = vars[j];
            int c = param_rank(a) - param_rank(b);
            if (c < 0 || (c == 0 && strcmp(ps_name(a), ps_name(b)) <= 0))
                break;
            vars[j - 1] = b, vars[j] = a;
        }
}

/* ---------------------------------------------------------------- launch info */

typedef struct Launch {
    Split *sp;
    const char *tags[9];
    IrExpr *extents[9];
    int ntags;
    IrExpr *cluster[3];
    int ncluster;
    const IrStmt *smem_decl;
    IrExpr *smem_bytes;
    const IrStmt *dyn_alloc;
    int64_t static_bytes;      /* the static shared allocations, each aligned */
    const IrStmt *static_over; /* the one that took them past the target's limit */
} Launch;

static void add_tag(Launch *l, const IrStmt *s)
{
    const char *tag = s->u.attr.thread_tag ? s->u.attr.thread_tag : ps_name(s->u.attr.node);
    if (!strncmp(tag, "clusterCtaIdx.", 14)) {
        int d = tag[14] - 'x';
        if (d >= 0 && d < 3 && d >= l->ncluster) {
            for (int i = l->ncluster; i < d; i++)
                l->cluster[i] = NULL;
            l->cluster[d] = s->u.attr.value;
            l->ncluster = d + 1;
        }
        return;
    }
    for (int i = 0; i < l->ntags; i++)
        if (!strcmp(l->tags[i], tag))
            return;
    if (l->ntags < (int)TX_ARRAY_LEN(l->tags)) {
        l->tags[l->ntags] = tag;
        l->extents[l->ntags++] = s->u.attr.value;
    }
}

/* The bytes of allocation s (at most INT64_MAX / 2); false when its size is
 * not a constant (codegen's error). */
static bool alloc_bytes(const IrStmt *s, int64_t *bytes)
{
    const IrBufferType *bt = ir_buf(s->u.alloc.buffer);
    IrDType t = s->u.alloc.buffer->u.var.type->dtype;
    int64_t n = 1, d;
    for (int i = 0; i < bt->ndim; i++)
        if (!ps_const_int(bt->shape[i], &d) || d < 0 || __builtin_mul_overflow(n, d, &n))
            return false;
    int64_t bits = (int64_t)t.bits * (t.lanes ? t.lanes : 1);
    if (__builtin_mul_overflow(n, bits, bytes) || *bytes > INT64_MAX / 2)
        *bytes = INT64_MAX / 2;
    *bytes = (*bytes + 7) / 8;
    return true;
}

/* A static shared allocation of constant size, rounded up to its alignment
 * as the CUDA code declares it. */
static void add_static_smem(Launch *l, const IrStmt *s)
{
    const IrBufferType *bt = ir_buf(s->u.alloc.buffer);
    int64_t bytes, align = bt->align > 0 ? bt->align : 16;
    if (!alloc_bytes(s, &bytes))
        return;
    bytes = (l->static_bytes + align - 1) / align * align + bytes;
    l->static_bytes = bytes < INT64_MAX / 2 ? bytes : INT64_MAX / 2;
    if (l->sp->smem_limit && l->static_bytes > l->sp->smem_limit && !l->static_over)
        l->static_over = s;
}

/* A thread may use at most 512 KiB of local memory (every architecture
 * since sm_20); ptxas accepts a larger frame, which no launch can then get. */
enum { LOCAL_BYTES_PER_THREAD = 512 * 1024 };

static void check_local_bytes(Launch *l, const IrStmt *s)
{
    int64_t bytes;
    if (!alloc_bytes(s, &bytes) || bytes <= LOCAL_BYTES_PER_THREAD)
        return;
    tx_error(&l->sp->m->diags, TX_E_LOCAL_MEMORY, ps_span(s, l->sp->f),
             "local buffer '%s' needs %lld bytes a thread, more than the %d (512 KiB) of local "
             "memory a thread may use", ps_name(s->u.alloc.buffer), (long long)bytes,
             LOCAL_BYTES_PER_THREAD);
    l->sp->failed = true;
}

static bool launch_stmt(IrVisitor *v, const IrStmt *s)
{
    Launch *l = v->ctx;
    if (ps_is_launch_attr(s) && !strcmp(s->u.attr.key, "thread_extent"))
        add_tag(l, s);
    if (s->kind == IR_S_ATTR && !strcmp(s->u.attr.key, "tirx.dyn_smem_bytes")) {
        if (l->smem_decl) {
            tx_error(&l->sp->m->diags, TX_E_SHARED_MEMORY, ps_span(s, l->sp->f),
                     "only one tirx.dyn_smem_bytes declaration is allowed per kernel");
            tx_note(&l->sp->m->diags, ps_span(l->smem_decl, l->sp->f), "the first one is here");
            l->sp->failed = true;
        }
        l->smem_decl = s;
        l->smem_bytes = s->u.attr.value;
    }
    if (s->kind == IR_S_ALLOC && !strcmp(s->u.alloc.buffer->u.var.type->scope, "shared.dyn") &&
        !l->dyn_alloc)
        l->dyn_alloc = s;
    if (s->kind == IR_S_ALLOC && !strcmp(s->u.alloc.buffer->u.var.type->scope, "shared"))
        add_static_smem(l, s);
    if (s->kind == IR_S_ALLOC && !strcmp(s->u.alloc.buffer->u.var.type->scope, "local"))
        check_local_bytes(l, s);
    return true;
}

/* Static plus dynamic shared memory within the target's limit per block: an
 * error at the static allocation that goes past it, else at the dynamic
 * size's declaration. */
static void check_smem_limit(Launch *l)
{
    int64_t dyn = 0, limit = l->sp->smem_limit;
    if (l->smem_decl && (!ps_const_int(l->smem_bytes, &dyn) || dyn < 0))
        dyn = 0;
    if (!limit || (dyn <= limit - l->static_bytes && l->static_bytes <= limit))
        return;
    const IrStmt *at = l->static_over ? l->static_over : l->smem_decl;
    tx_error(&l->sp->m->diags, TX_E_SHARED_MEMORY, ps_span(at, l->sp->f),
             "the kernel needs %lld bytes of shared memory (%lld static, %lld dynamic), more "
             "than the %lld (%lld KiB) one block may use on %s",
             (long long)(l->static_bytes + dyn), (long long)l->static_bytes, (long long)dyn,
             (long long)limit, (long long)(limit / 1024), l->sp->arch);
    l->sp->failed = true;
}

static void check_smem(Launch *l)
{
    int64_t bytes;
    if (l->smem_decl && !ps_const_int(l->smem_bytes, &bytes))
        split_error(l->sp, TX_E_SHARED_MEMORY, ps_span(l->smem_decl, l->sp->f),
                    "tirx.dyn_smem_bytes must be an integer constant%s", "");
    if (l->dyn_alloc && !l->smem_decl)
        split_error(l->sp, TX_E_SHARED_MEMORY, ps_span(l->dyn_alloc, l->sp->f),
                    "shared.dyn allocation '%s' has no tirx.dyn_smem_bytes declaration; declare "
                    "the size with T.attr({\"tirx.dyn_smem_bytes\": N}) (SMEMPool.commit() "
                    "emits it)",
                    ps_name(l->dyn_alloc->u.alloc.buffer));
    check_smem_limit(l);
}

static IrStmt *strip_smem_decl(IrMutator *mu, IrStmt *s)
{
    if (s->kind != IR_S_ATTR || strcmp(s->u.attr.key, "tirx.dyn_smem_bytes"))
        return NULL;
    IrStmt *body = s->u.attr.body;
    if (!body || (body->kind == IR_S_EVAL && body->u.eval->kind == IR_E_INT))
        return ps_empty(mu->arena);
    return ir_mutate_stmt(mu, body);
}

/* Launch extents see through host Binds (`v = n + 1` then extent v gives n + 1),
 * so the kernel takes what the values need, not the bound names. */
static IrExpr *host_value_hook(IrMutator *mu, IrExpr *e)
{
    uintptr_t v;
    if (e->kind != IR_E_VAR || !ir_ptrmap_get(mu->ctx, e, &v))
        return NULL;
    return ir_mutate_expr(mu, (IrExpr *)v);
}

static IrStmt *extent_hook(IrMutator *mu, IrStmt *s)
{
    if (!ps_is_launch_attr(s))
        return NULL;
    IrMutator values = {.ctx = mu->ctx, .arena = mu->arena, .expr = host_value_hook};
    IrExpr *ext = ir_mutate_expr(&values, s->u.attr.value);
    ir_mutator_free(&values);
    IrStmt *body = ir_mutate_stmt(mu, s->u.attr.body);
    if (ext == s->u.attr.value && body == s->u.attr.body)
        return s;
    IrStmt *n = ir_stmt_copy(mu->arena, s);
    n->u.attr.value = ext, n->u.attr.body = body;
    return n;
}

static IrStmt *extents_on_host_values(Split *sp, IrStmt *region)
{
    if (!sp->host_binds.len)
        return region;
    IrMutator mu = {.ctx = &sp->host_binds, .arena = arena(sp), .stmt = extent_hook};
    IrStmt *r = ir_mutate_stmt(&mu, region);
    ir_mutator_free(&mu);
    return r;
}

/* ---------------------------------------------------------------- the kernel */

static IrExpr *list_of(TxArena *a, IrExpr **items, int n)
{
    IrExpr *l = ir_node(a, IR_E_LIST, IR_VOID, (TxSpan){0});
    l->u.list.n = n;
    l->u.list.items = n ? tx_arena_memdup(a, items, sizeof *items * (size_t)n) : NULL;
    return l;
}

static IrExpr *pyint(TxArena *a, int64_t v)
{
    IrExpr *e = ir_node(a, IR_E_PYINT, IR_VOID, (TxSpan){0});
    e->u.int_val = v;
    return e;
}

static IrExpr *pybool(TxArena *a, bool v)
{
    IrExpr *e = ir_node(a, IR_E_PYBOOL, IR_VOID, (TxSpan){0});
    e->u.int_val = v;
    return e;
}

/* Whether the function sets launch_flags[i]: True, 1, or an error (a value
 * that is not a constant, or a target without the feature). */
static bool launch_flag(Split *sp, size_t i)
{
    const IrExpr *v = ps_func_attr(sp->f, launch_flags[i].func_key);
    if (!v)
        return false;
    if (v->kind != IR_E_PYBOOL && v->kind != IR_E_PYINT && v->kind != IR_E_INT) {
        split_error(sp, TX_E_VALUE, v->span, "\"%s\" must be True or False",
                    launch_flags[i].func_key);
        return false;
    }
    int sm = ir_target_sm(sp->arch);
    if (v->u.int_val && sm && sm < launch_flags[i].min_sm) {
        const char *msg = tx_arena_printf(arena(sp), "\"%s\" needs %s or newer (the target "
                                          "is %s)", launch_flags[i].func_key,
                                          ir_target_name(launch_flags[i].min_sm), sp->arch);
        split_error(sp, TX_E_TARGET_FEATURE, v->span, "%s", msg);
        return false;
    }
    return v->u.int_val != 0;
}

static bool name_taken(Split *sp, const char *name)
{
    for (int i = 0; i < sp->m->nfuncs; i++)
        if (!strcmp(sp->m->funcs[i]->name, name))
            return true;
    for (int i = 0; i < sp->kernels.len; i++)
        if (!strcmp(sp->kernels.items[i]->name, name))
            return true;
    for (int i = 0; i < sp->taken->len; i++)
        if (!strcmp(sp->taken->items[i]->name, name))
            return true;
    return false;
}

static const char *kernel_name(Split *sp)
{
    const char *base = tx_arena_printf(arena(sp), "%s_kernel", sp->f->name);
    const char *name = base;
    for (int k = 1; name_taken(sp, name); k++)
        name = tx_arena_printf(arena(sp), "%s_%d", base, k);
    return name;
}

static IrFunc *kernel_attrs(Split *sp, IrFunc *k, const Launch *l)
{
    TxArena *a = arena(sp);
    IrExpr **tags = TX_NEW_ARRAY(a, IrExpr *, l->ntags ? l->ntags : 1);
    for (int i = 0; i < l->ntags; i++)
        tags[i] = ir_str(a, l->tags[i], (TxSpan){0});
    k = ps_func_set_attr(a, k, "calling_conv", pyint(a, 2));
    k = ps_func_set_attr(a, k, "target", ir_str(a, "cuda", (TxSpan){0}));
    k = ps_func_set_attr(a, k, "tirx.kernel_launch_params", list_of(a, tags, l->ntags));
    if (l->ncluster) {
        IrExpr *dims[3];
        for (int i = 0; i < 3; i++) {
            int64_t v = 1;
            if (i < l->ncluster && l->cluster[i] && !ps_const_int(l->cluster[i], &v))
                split_error(sp, TX_E_LAUNCH, sp->f->span,
                            "the cluster shape of %s must be constant", k->name);
            dims[i] = pyint(a, v);
        }
        k = ps_func_set_attr(a, k, "tirx.cluster_dims", list_of(a, dims, 3));
    }
    for (int i = 0; i < NKERNEL_ATTRS; i++)
        if (sp->kattr[i])
            k = ps_func_set_attr(a, k, kernel_attr_keys[i], sp->kattr[i]);
    for (size_t i = 0; i < TX_ARRAY_LEN(launch_flags); i++)
        if (launch_flag(sp, i))
            k = ps_func_set_attr(a, k, launch_flags[i].kernel_key, pybool(a, true));
    return k;
}

typedef struct Params {
    IrExpr **kernel; /* the kernel's params */
    IrExpr **host;   /* what the host passes for each */
    StmtVec decls;   /* buffer re-declarations at the kernel's top */
} Params;

static IrExpr *subst_hook(IrMutator *mu, IrExpr *e)
{
    if (e->kind != IR_E_VAR)
        return NULL;
    uintptr_t v;
    return ir_ptrmap_get(mu->ctx, e, &v) ? (IrExpr *)v : NULL;
}

/* The kernel param of free var i: a new one, or for a buffer whose storage
 * root already has one (a view beside its buffer), that one. */
static int param_slot(Split *sp, IrExpr **vars, int i, IrPtrMap *by_root, Params *p, int *np)
{
    TxArena *a = arena(sp);
    IrExpr *v = vars[i];
    uintptr_t slot;
    if (ir_is_buffer(v) && ir_ptrmap_get(by_root, root_of(sp, v), &slot))
        return (int)slot;
    if (ir_is_buffer(v)) {
        const char *name = tx_arena_printf(a, "%s_data", ps_name(v));
        p->kernel[*np] = ir_var(a, name, ir_ptr_type(a, v->u.var.type->dtype, "global"), v->span);
        p->host[*np] = ps_buffer_data(a, root_of(sp, v));
        ir_ptrmap_put(by_root, root_of(sp, v), (uintptr_t)*np);
    } else {
        p->kernel[*np] = ir_var(a, v->u.var.name, v->u.var.type, v->span);
        p->host[*np] = v;
    }
    return (*np)++;
}

/* Kernel params for the free vars (sorted in place), one pointer per storage
 * root; `map` gets old -> new. Returns the number of params. */
static int make_params(Split *sp, IrExpr **vars, int n, IrPtrMap *map, Params *p)
{
    TxArena *a = arena(sp);
    sort_params(vars, n);
    p->kernel = TX_NEW_ARRAY(a, IrExpr *, n ? n : 1);
    p->host = TX_NEW_ARRAY(a, IrExpr *, n ? n : 1);
    int *slot = TX_NEW_ARRAY(a, int, n ? n : 1), np = 0;
    IrPtrMap by_root = {0};
    for (int i = 0; i < n; i++) {
        slot[i] = param_slot(sp, vars, i, &by_root, p, &np);
        if (!ir_is_buffer(vars[i]))
            ir_ptrmap_put(map, vars[i], (uintptr_t)p->kernel[slot[i]]);
    }
    ir_ptrmap_free(&by_root);
    IrMutator sub = {.ctx = map, .arena = a, .expr = subst_hook};
    for (int i = 0; i < n; i++) {
        IrExpr *v = vars[i];
        if (!ir_is_buffer(v))
            continue;
        IrExpr *inner = ir_var(a, v->u.var.name, ir_mutate_type(&sub, v->u.var.type), v->span);
        tx_vec_push(&p->decls, ps_decl(a, inner, p->kernel[slot[i]], v->span));
        ir_ptrmap_put(map, v, (uintptr_t)inner);
    }
    ir_mutator_free(&sub);
    return np;
}

/* The host's launch: call_packed(name, args..., extents..., smem). */
static IrStmt *launch_call(Split *sp, const char *name, const Params *p, int nparams,
                           const Launch *l, TxSpan at)
{
    TxArena *a = arena(sp);
    int n = 1 + nparams + l->ntags + 1;
    IrExpr **args = TX_NEW_ARRAY(a, IrExpr *, n);
    int j = 0;
    args[j++] = ir_str(a, name, (TxSpan){0});
    for (int i = 0; i < nparams; i++)
        args[j++] = p->host[i];
    for (int i = 0; i < l->ntags; i++)
        args[j++] = ps_simplify_expr(a, l->extents[i]);
    int64_t bytes = 0;
    if (l->smem_bytes)
        ps_const_int(l->smem_bytes, &bytes);
    args[j++] = ps_int(a, IR_INT32, bytes);
    return ps_eval(a, ps_call(a, IR_OP_CALL_PACKED, IR_INT32, args, n), at);
}

/* Every variable in the launch extents must be known to the host. */
static void check_extents(Split *sp, const Launch *l, const Free *fr)
{
    for (int i = 0; i < l->ntags; i++) {
        Free ext = {0};
        IrStmt probe = {.kind = IR_S_EVAL};
        probe.u.eval = l->extents[i];
        free_vars(&probe, &ext);
        for (int k = 0; k < ext.vars.len; k++)
            if (!ir_ptrmap_get(&fr->seen, ext.vars.items[k], NULL)) {
                char msg[200];
                snprintf(msg, sizeof msg, "the launch extent of %s depends on '%s', which is "
                         "only known inside the kernel", l->tags[i], ps_name(ext.vars.items[k]));
                split_error(sp, TX_E_HOST_DEVICE, sp->f->span, "%s", msg);
            }
        free_free(&ext);
    }
}

static IrStmt *outline(Split *sp, IrStmt *region)
{
    TxArena *a = arena(sp);
    Hoist h = {.sp = sp};
    IrMutator hm = {.ctx = &h, .arena = a, .stmt = hoist_hook};
    region = ir_mutate_stmt(&hm, extents_on_host_values(sp, region));
    ir_mutator_free(&hm);

    Launch l = {.sp = sp};
    IrVisitor lv = {.ctx = &l, .stmt = launch_stmt};
    ir_visit_stmt(&lv, region);
    check_smem(&l);
    IrMutator strip = {.arena = a, .stmt = strip_smem_decl};
    region = ir_mutate_stmt(&strip, region);
    ir_mutator_free(&strip);

    Free fr = {0};
    free_vars(region, &fr);
    check_extents(sp, &l, &fr);
    IrPtrMap map = {0};
    Params p = {0};
    int n = make_params(sp, fr.vars.items, fr.vars.len, &map, &p);
    IrMutator sub = {.ctx = &map, .arena = a, .expr = subst_hook};
    IrStmt *inner = ir_mutate_stmt(&sub, region);
    ir_mutator_free(&sub);
    ir_ptrmap_free(&map);

    IrFunc *k = TX_NEW(a, IrFunc);
    k->name = kernel_name(sp);
    k->span = sp->f->span;
    k->nparams = n;
    k->params = p.kernel;
    IrStmt *decls = p.decls.len ? ir_seq(a, p.decls.items, p.decls.len, sp->f->span) : NULL;
    k->body = ps_seq2(a, decls, inner);
    k = kernel_attrs(sp, k, &l);
    tx_vec_push(&sp->kernels, k);
    IrStmt *call = launch_call(sp, k->name, &p, n, &l, region->span);
    IrStmt *inits = h.out.len ? ir_seq(a, h.out.items, h.out.len, region->span) : NULL;
    tx_vec_free(&h.out);
    tx_vec_free(&p.decls);
    free_free(&fr);
    return ps_seq2(a, inits, call);
}

/* ---------------------------------------------------------------- the host walk */

static int kernel_attr_index(const IrStmt *s)
{
    if (s->kind != IR_S_ATTR)
        return -1;
    for (int i = 0; i < NKERNEL_ATTRS; i++)
        if (!strcmp(s->u.attr.key, kernel_attr_keys[i]))
            return i;
    return -1;
}

static IrStmt *host_hook(IrMutator *mu, IrStmt *s)
{
    Split *sp = mu->ctx;
    if (ps_is_launch_attr(s))
        return outline(sp, s);
    if (s->kind == IR_S_BIND)
        ir_ptrmap_put(&sp->host_binds, s->u.bind.var, (uintptr_t)s->u.bind.value);
    int k = kernel_attr_index(s);
    if (k < 0)
        return NULL;
    IrExpr *saved = sp->kattr[k];
    sp->kattr[k] = s->u.attr.value;
    IrStmt *body = s->u.attr.body ? ir_mutate_stmt(mu, s->u.attr.body) : ps_empty(mu->arena);
    sp->kattr[k] = saved;
    return body;
}

bool ps_split_host_device(PsCtx *ctx, IrModule *m)
{
    FuncVec out = {0}, made = {0};
    bool ok = true;
    for (int i = 0; i < m->nfuncs; i++) {
        IrFunc *f = m->funcs[i];
        if (!f->body || ps_is_device_func(f)) {
            tx_vec_push(&out, f);
            continue;
        }
        Split sp = {.m = m, .f = f, .taken = &made, .arch = ctx->arch,
                    .smem_limit = ir_target_smem_limit(ctx->arch)};
        IrVisitor rv = {.ctx = &sp, .stmt = record_root};
        ir_visit_func(&rv, f);
        IrMutator mu = {.ctx = &sp, .arena = &m->arena, .stmt = host_hook};
        tx_vec_push(&out, ps_func_with_body(&m->arena, f, ir_mutate_stmt(&mu, f->body)));
        for (int k = 0; k < sp.kernels.len; k++) {
            tx_vec_push(&out, sp.kernels.items[k]);
            tx_vec_push(&made, sp.kernels.items[k]);
        }
        ok &= !sp.failed;
        ir_mutator_free(&mu);
        ir_ptrmap_free(&sp.root);
        ir_ptrmap_free(&sp.host_binds);
        tx_vec_free(&sp.kernels);
    }
    ps_set_funcs(m, out.items, out.len);
    m->is_ir_module |= m->nfuncs > 1;
    tx_vec_free(&out);
    tx_vec_free(&made);
    return ok;
}
