/* FlattenBuffer: every n-d buffer B becomes a 1-d storage husk B' (same name,
 * data origin, dtype, scope, alignment, offset factor and allocated
 * addresses; shape [element count], no strides, no layout, elem_offset 0),
 * and every access B[x] becomes B'[f(x)] with
 *     f(x) = layout.apply(x, shape) + elem_offset
 * (row-major or strided ElemOffset when the layout is absent or the default
 * one). The pair {geometry, husk} is derived exactly once, at the buffer's
 * definition: params first, then each AllocBuffer and DeclBuffer on the way
 * down, with loads inside its shape, strides, offset and layout already
 * following rebuilt identities. Use sites only look it up; a use before the
 * definition is an error naming the buffer. A non-param buffer that is
 * already flat keeps its identity. Params stay as they are (MakePackedAPI
 * checks them); each used one gets `B' = T.decl_buffer(..., data=B.data)` at
 * the top of the body, in param order. (reference: layout_passes.md §3.5) */
#include "internal.h"

#include <string.h>

#include "../layout/layout.h"

typedef struct BufInfo {
    const IrExpr *orig;
    const IrBufferType *geom; /* the definition's type, leaves remapped */
    IrExpr *husk;
    bool is_param, used;
} BufInfo;

typedef struct Flatten {
    IrModule *m;
    const IrFunc *f;
    IrPtrMap info;     /* original buffer var -> BufInfo * */
    IrPtrMap reported; /* buffers already reported as used too early */
    TxSpan here;       /* the statement being rewritten */
    bool failed;
} Flatten;

static TxArena *arena(Flatten *fl) { return &fl->m->arena; }

/* ---------------------------------------------------------------- definitions */

static bool is_default_layout(Flatten *fl, const IrBufferType *b)
{
    if (!b->layout)
        return true;
    LyCtx c = ly_ctx(arena(fl));
    IrLayout *dflt = ir_default_layout(arena(fl), b->shape, b->ndim);
    return ly_equal(&c, b->layout, dflt, LY_TARGET_NONE);
}

/* The husk's element count: the layout's memory span, or prod(shape). */
static IrExpr *husk_extent(Flatten *fl, const IrBufferType *b)
{
    if (is_default_layout(fl, b))
        return ps_simplify_expr(arena(fl), ps_buffer_extent(arena(fl), b));
    LyCtx c = ly_ctx(arena(fl));
    IrExpr *span = ly_span(&c, b->layout, "m");
    return ps_simplify_expr(arena(fl), span ? span : ps_buffer_extent(arena(fl), b));
}

static BufInfo *define(Flatten *fl, IrMutator *mu, IrExpr *var, bool is_param, TxSpan sp)
{
    BufInfo *bi = TX_NEW(arena(fl), BufInfo);
    bi->orig = var, bi->is_param = is_param;
    IrType *t = is_param ? var->u.var.type : ir_mutate_type(mu, var->u.var.type);
    bi->geom = t->buf;
    if (!is_param && ps_buffer_is_flat(t->buf)) {
        bi->husk = var;
        if (t != var->u.var.type) {
            bi->husk = tx_arena_memdup(arena(fl), var, sizeof *var);
            bi->husk->u.var.type = t;
        }
    } else {
        bi->husk = ps_flat_buffer(arena(fl), var, husk_extent(fl, t->buf), sp);
    }
    ir_ptrmap_put(&fl->info, var, (uintptr_t)bi);
    return bi;
}

static BufInfo *lookup(Flatten *fl, const IrExpr *buffer)
{
    uintptr_t v;
    if (ir_ptrmap_get(&fl->info, buffer, &v)) {
        BufInfo *bi = (BufInfo *)v;
        bi->used = true;
        return bi;
    }
    if (!ir_ptrmap_get(&fl->reported, buffer, NULL)) {
        ir_ptrmap_put(&fl->reported, buffer, 1);
        tx_error(&fl->m->diags, TX_E_USE_BEFORE_DEF, fl->here,
                 "buffer '%s' is used before its definition (AllocBuffer/DeclBuffer/param)",
                 ps_name(buffer));
    }
    fl->failed = true;
    return NULL;
}

/* ---------------------------------------------------------------- indices */

/* sum(idx_i * stride_i) with strides, else row-major over the shape. */
static IrExpr *elem_offset_of(TxArena *a, const IrBufferType *b, IrExpr **idx, int n)
{
    IrExpr *sum = NULL, *scale = NULL;
    for (int i = n - 1; i >= 0; i--) {
        IrExpr *stride = b->nstrides ? b->strides[i] : scale;
        IrExpr *term = stride ? ps_arith(a, IR_E_MUL, idx[i], stride) : idx[i];
        sum = sum ? ps_arith(a, IR_E_ADD, term, sum) : term;
        if (!b->nstrides)
            scale = scale ? ps_arith(a, IR_E_MUL, scale, b->shape[i]) : b->shape[i];
    }
    return sum ? sum : ps_int(a, IR_INT32, 0);
}

/* layout.apply(idx, shape) on axis m; NULL after an error. */
static IrExpr *apply_layout(Flatten *fl, const BufInfo *bi, IrExpr **idx, int n)
{
    LyCtx c = ly_ctx(arena(fl));
    LyAxisValue *vals;
    int nvals;
    if (!ly_apply_expr(&c, bi->geom->layout, idx, bi->geom->shape, n, &vals, &nvals)) {
        tx_error(&fl->m->diags, TX_E_LAYOUT, fl->here, "cannot apply the layout of buffer '%s': %s",
                 ps_name(bi->orig), c.err ? c.err : "unsupported layout");
        return NULL;
    }
    IrExpr *m = NULL;
    for (int i = 0; i < nvals; i++) {
        if (ly_axis_kind(vals[i].axis) == LY_THREAD) {
            tx_error(&fl->m->diags, TX_E_LAYOUT, fl->here,
                     "cannot access buffer '%s' directly: its layout maps onto thread axis '%s'; "
                     "take a per-thread view with .view() and .local()",
                     ps_name(bi->orig), vals[i].axis);
            return NULL;
        }
        if (!strcmp(vals[i].axis, "m"))
            m = vals[i].value;
    }
    return m ? m : ps_int(arena(fl), IR_INT32, 0);
}

/* The flat index of idx; with_offset adds the buffer's elem_offset. */
static IrExpr *fold_indices(Flatten *fl, const BufInfo *bi, IrExpr **idx, int n, bool with_offset)
{
    TxArena *a = arena(fl);
    if (n != bi->geom->ndim) {
        tx_error(&fl->m->diags, TX_E_BUFFER, fl->here,
                 "buffer '%s' has %d dimensions but %d indices are given",
                 ps_name(bi->orig), bi->geom->ndim, n);
        return NULL;
    }
    IrExpr *flat = is_default_layout(fl, bi->geom) ? elem_offset_of(a, bi->geom, idx, n)
                                                   : apply_layout(fl, bi, idx, n);
    if (!flat)
        return NULL;
    int64_t off;
    if (with_offset && !(ps_const_int(bi->geom->elem_offset, &off) && off == 0))
        flat = ps_arith(a, IR_E_ADD, flat, bi->geom->elem_offset);
    return ps_simplify_expr(a, flat);
}

/* The indices mutated, then folded into one; NULL after an error. */
static IrExpr **flat_index(Flatten *fl, IrMutator *mu, const BufInfo *bi, IrExpr **idx, int n,
                           bool with_offset)
{
    IrExpr **mutated = TX_NEW_ARRAY(mu->arena, IrExpr *, n ? n : 1);
    for (int i = 0; i < n; i++)
        mutated[i] = ir_mutate_expr(mu, idx[i]);
    IrExpr **out = TX_NEW_ARRAY(mu->arena, IrExpr *, 1);
    out[0] = fold_indices(fl, bi, mutated, n, with_offset);
    if (!out[0]) {
        fl->failed = true;
        return NULL;
    }
    return out;
}

/* ---------------------------------------------------------------- use sites */

static IrExpr *flatten_load(Flatten *fl, IrMutator *mu, IrExpr *e)
{
    BufInfo *bi = lookup(fl, e->u.access.buffer);
    IrExpr **idx = bi ? flat_index(fl, mu, bi, e->u.access.indices, e->u.access.n, true) : NULL;
    if (!idx)
        return e;
    IrExpr *n = tx_arena_memdup(mu->arena, e, sizeof *e);
    n->u.access.buffer = bi->husk;
    n->u.access.n = 1;
    n->u.access.indices = idx;
    n->u.access.predicate = ir_mutate_expr(mu, e->u.access.predicate);
    return n;
}

/* T.buffer_offset(B[x]): the element's offset through B's layout, without
 * B's elem_offset (the reference's BufferOffsetRemover), as int32. */
static IrExpr *flatten_buffer_offset(Flatten *fl, IrMutator *mu, IrExpr *e)
{
    const IrExpr *load = e->u.call.args[0];
    BufInfo *bi = lookup(fl, load->u.access.buffer);
    IrExpr **idx = bi ? flat_index(fl, mu, bi, load->u.access.indices, load->u.access.n, false)
                      : NULL;
    return idx ? ps_simplify_expr(mu->arena, ps_cast(mu->arena, IR_INT32, idx[0])) : e;
}

static IrExpr *flatten_expr(IrMutator *mu, IrExpr *e)
{
    Flatten *fl = mu->ctx;
    if (e->kind == IR_E_LOAD)
        return flatten_load(fl, mu, e);
    if (e->kind == IR_E_CALL && e->u.call.op == IR_OP_BUFFER_OFFSET && e->u.call.nargs == 1 &&
        e->u.call.args[0]->kind == IR_E_LOAD)
        return flatten_buffer_offset(fl, mu, e);
    if (ps_buffer_data_of(e)) {
        BufInfo *bi = lookup(fl, ps_buffer_data_of(e));
        return bi ? ps_buffer_data(mu->arena, bi->husk) : e;
    }
    if (ir_is_buffer(e)) {
        BufInfo *bi = lookup(fl, e);
        return bi ? bi->husk : e;
    }
    return e->kind == IR_E_REGION ? e : NULL;
}

static IrStmt *flatten_store(Flatten *fl, IrMutator *mu, IrStmt *s)
{
    BufInfo *bi = lookup(fl, s->u.store.buffer);
    IrExpr **idx = bi ? flat_index(fl, mu, bi, s->u.store.indices, s->u.store.n, true) : NULL;
    if (!idx)
        return s;
    IrStmt *n = tx_arena_memdup(mu->arena, s, sizeof *s);
    n->u.store.buffer = bi->husk;
    n->u.store.n = 1;
    n->u.store.indices = idx;
    n->u.store.value = ir_mutate_expr(mu, s->u.store.value);
    n->u.store.predicate = ir_mutate_expr(mu, s->u.store.predicate);
    return n;
}

/* DeclBuffer data: buffer_data(param) stays on the param (and does not make
 * the param "used"); anything else follows the rebuilt identities. */
static IrExpr *decl_data(Flatten *fl, IrMutator *mu, IrExpr *data)
{
    const IrExpr *src = ps_buffer_data_of(data);
    uintptr_t v;
    if (src && ir_ptrmap_get(&fl->info, src, &v) && ((BufInfo *)v)->is_param)
        return data;
    return ir_mutate_expr(mu, data);
}

static IrStmt *flatten_stmt(IrMutator *mu, IrStmt *s)
{
    Flatten *fl = mu->ctx;
    if (s->span.src)
        fl->here = s->span;
    IrStmt *n;
    switch (s->kind) {
    case IR_S_STORE:
        return flatten_store(fl, mu, s);
    case IR_S_ALLOC:
        n = tx_arena_memdup(mu->arena, s, sizeof *s);
        n->u.alloc.buffer = define(fl, mu, s->u.alloc.buffer, false, s->span)->husk;
        return n;
    case IR_S_DECL:
        n = tx_arena_memdup(mu->arena, s, sizeof *s);
        n->u.decl.data = s->u.decl.data ? decl_data(fl, mu, s->u.decl.data) : NULL;
        n->u.decl.buffer = define(fl, mu, s->u.decl.buffer, false, s->span)->husk;
        return n;
    default:
        return NULL;
    }
}

/* ---------------------------------------------------------------- functions */

static IrStmt *param_prologue(Flatten *fl, IrFunc *f)
{
    TxArena *a = arena(fl);
    IrStmt **decls = TX_NEW_ARRAY(a, IrStmt *, f->nparams ? f->nparams : 1);
    int n = 0;
    for (int i = 0; i < f->nparams; i++) {
        uintptr_t v;
        if (!ir_ptrmap_get(&fl->info, f->params[i], &v))
            continue;
        BufInfo *bi = (BufInfo *)v;
        if (bi->used)
            decls[n++] = ps_decl(a, bi->husk, ps_buffer_data(a, f->params[i]), f->span);
    }
    return n ? ir_seq(a, decls, n, f->span) : NULL;
}

static IrFunc *flatten_func(Flatten *fl, IrFunc *f)
{
    IrMutator mu = {.ctx = fl, .arena = arena(fl), .expr = flatten_expr, .stmt = flatten_stmt};
    fl->f = f;
    fl->here = f->span;
    for (int i = 0; i < f->nparams; i++)
        if (ir_is_buffer(f->params[i]))
            define(fl, &mu, f->params[i], true, f->span);
    IrStmt *body = ir_mutate_stmt(&mu, f->body);
    ir_mutator_free(&mu);
    return ps_func_with_body(arena(fl), f, ps_seq2(arena(fl), param_prologue(fl, f), body));
}

bool ps_flatten_buffer(PsCtx *ctx, IrModule *m)
{
    (void)ctx;
    bool ok = true;
    for (int i = 0; i < m->nfuncs; i++) {
        if (!m->funcs[i]->body)
            continue;
        Flatten fl = {.m = m};
        m->funcs[i] = flatten_func(&fl, m->funcs[i]);
        ok &= !fl.failed;
        ir_ptrmap_free(&fl.info);
        ir_ptrmap_free(&fl.reported);
    }
    return ok;
}
