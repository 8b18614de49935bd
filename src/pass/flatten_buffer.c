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
 * the top of the body, in param order. (reference: layout_passes.md §3.5)
 *
 * Index width: f(x) is int32 arithmetic unless the buffer's storage may hold
 * 2^31 elements or more -- its extent plus elem_offset, each symbolic extent
 * at its dtype's maximum, is not provably below 2^31 -- and then int64: the
 * outer indices and their strides are cast to int64 before they are
 * multiplied, the innermost dimensions whose extents' product fits are summed
 * in int32 and widened once (all dimensions with strides or a layout), and
 * the offset and the husk's extent are int64. A view declared on another
 * buffer's data takes its storage root's size, counted in its own elements.
 * A layout that cannot be grouped by a shape reading mutable scalars is
 * grouped by their declared values where they hold everywhere (src/ir/scalars.c). */
#include "internal.h"

#include <string.h>

#include "../arith/arith.h"
#include "../layout/layout.h"

typedef struct BufInfo {
    const IrExpr *orig;
    const IrBufferType *geom; /* the definition's type, leaves remapped */
    const IrBufferType *index_geom; /* geom, or its int64 copy when wide */
    IrExpr *husk;
    int64_t storage_bits;     /* the most bits its storage root can span */
    bool is_param, used, wide;
} BufInfo;

typedef struct Flatten {
    IrModule *m;
    const IrFunc *f;
    IrPtrMap info;     /* original buffer var -> BufInfo * */
    IrPtrMap reported; /* buffers already reported as used too early */
    IrPtrMap scalars;  /* the function's scalars holding their declared value */
    bool scalars_known; /* scalars was computed for f */
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

/* e as int64, a constant term kept outside the cast (x + c becomes
 * int64(x) + c: the constant then folds into the address's immediate). */
static IrExpr *widen(TxArena *a, IrExpr *e)
{
    int64_t c;
    if (e->kind == IR_E_ADD && ir_dtype_is_int(e->dtype) && e->dtype.bits < 64 &&
        ps_const_int(e->u.op.b, &c))
        return ps_arith(a, IR_E_ADD, widen(a, e->u.op.a), ps_int(a, IR_INT64, c));
    return ps_cast(a, IR_INT64, e);
}

/* b with its shape, strides and elem_offset as int64. */
static const IrBufferType *wide_geometry(TxArena *a, const IrBufferType *b)
{
    IrBufferType *w = tx_arena_memdup(a, b, sizeof *b);
    w->shape = TX_NEW_ARRAY(a, IrExpr *, b->ndim ? b->ndim : 1);
    for (int i = 0; i < b->ndim; i++)
        w->shape[i] = widen(a, b->shape[i]);
    w->strides = TX_NEW_ARRAY(a, IrExpr *, b->nstrides ? b->nstrides : 1);
    for (int i = 0; i < b->nstrides; i++)
        w->strides[i] = widen(a, b->strides[i]);
    w->elem_offset = widen(a, b->elem_offset);
    return w;
}

/* The husk's element count: the layout's memory span, or prod(shape); in
 * int64 when wide (b's int64 copy, then). */
static IrExpr *husk_extent(Flatten *fl, const IrBufferType *b, const IrBufferType *wide)
{
    TxArena *a = arena(fl);
    if (is_default_layout(fl, b))
        return ps_simplify_expr(a, ps_buffer_extent(a, wide ? wide : b));
    LyCtx c = ly_ctx(a);
    IrExpr *span = ly_span(&c, b->layout, "m");
    span = span ? span : ps_buffer_extent(a, wide ? wide : b);
    return ps_simplify_expr(a, wide ? ps_cast(a, IR_INT64, span) : span);
}

/* ---------------------------------------------------------------- index width */

static int64_t elem_bits(IrDType dt) { return dt.bits * dt.lanes > 0 ? dt.bits * dt.lanes : 1; }

int64_t ps_storage_bits(const IrBufferType *b, IrDType dt, IrExpr *extent)
{
    int64_t n = ar_max_any(extent), off = ar_max_any(b->elem_offset);
    n = off > 0 ? (n > INT64_MAX - off ? INT64_MAX : n + off) : n;
    n = n < 0 ? 0 : n;
    return n > INT64_MAX / elem_bits(dt) ? INT64_MAX : n * elem_bits(dt);
}

bool ps_offsets_are_wide(IrDType dt, int64_t storage_bits)
{
    return storage_bits / elem_bits(dt) > ((int64_t)1 << 31);
}

/* The storage bits of a DeclBuffer's data root, when its data is another
 * buffer's (already defined); -1 otherwise. */
static int64_t root_bits(Flatten *fl, const IrStmt *def)
{
    const IrExpr *src = def && def->kind == IR_S_DECL && def->u.decl.data
                            ? ps_buffer_data_of(def->u.decl.data)
                            : NULL;
    uintptr_t v;
    return src && ir_ptrmap_get(&fl->info, src, &v) ? ((BufInfo *)v)->storage_bits : -1;
}

/* def: the defining AllocBuffer/DeclBuffer, NULL for a param. */
static BufInfo *define(Flatten *fl, IrMutator *mu, IrExpr *var, const IrStmt *def, TxSpan sp)
{
    BufInfo *bi = TX_NEW(arena(fl), BufInfo);
    bi->orig = var, bi->is_param = !def;
    IrType *t = bi->is_param ? var->u.var.type : ir_mutate_type(mu, var->u.var.type);
    bi->geom = t->buf;
    const IrBufferType *wide = wide_geometry(arena(fl), t->buf);
    bi->storage_bits = root_bits(fl, def);
    if (bi->storage_bits < 0)
        bi->storage_bits = ps_storage_bits(t->buf, t->dtype, husk_extent(fl, t->buf, wide));
    bi->wide = ps_offsets_are_wide(t->dtype, bi->storage_bits);
    bi->index_geom = bi->wide ? wide : t->buf;
    if (!bi->is_param && ps_buffer_is_flat(t->buf) && !bi->wide) {
        bi->husk = var;
        if (t != var->u.var.type) {
            bi->husk = ir_expr_copy(arena(fl), var);
            bi->husk->u.var.type = t;
        }
    } else {
        IrExpr *extent = husk_extent(fl, t->buf, bi->wide ? wide : NULL);
        bi->husk = ps_flat_buffer(arena(fl), var, extent, sp);
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

/* sum(idx_i * stride_i) with strides, else row-major over the shape; the
 * dimensions before `wide_below` in int64, the inner ones summed in int32
 * and then widened. */
static IrExpr *elem_offset_of(TxArena *a, const IrBufferType *b, IrExpr **idx, int n,
                              int wide_below)
{
    IrExpr *sum = NULL, *scale = NULL;
    for (int i = n - 1; i >= 0; i--) {
        bool wide = i < wide_below;
        if (wide && i == wide_below - 1) {
            sum = sum ? widen(a, sum) : NULL;
            scale = scale ? widen(a, scale) : NULL;
        }
        IrExpr *x = wide ? widen(a, idx[i]) : idx[i];
        IrExpr *stride = b->nstrides ? b->strides[i] : scale;
        stride = stride && wide ? widen(a, stride) : stride;
        IrExpr *term = stride ? ps_arith(a, IR_E_MUL, x, stride) : x;
        sum = sum ? ps_arith(a, IR_E_ADD, term, sum) : term;
        IrExpr *extent = wide ? widen(a, b->shape[i]) : b->shape[i];
        if (!b->nstrides)
            scale = scale ? ps_arith(a, IR_E_MUL, scale, extent) : extent;
    }
    return sum ? sum : ps_int(a, IR_INT32, 0);
}

/* The dimensions of a wide buffer that need int64: those before the
 * innermost ones whose row-major offsets stay below 2^31 (their extents'
 * product, at the dtypes' maximum, fits); all of them with strides. */
static int wide_dims(TxArena *a, const IrBufferType *b)
{
    if (b->nstrides)
        return b->ndim;
    IrExpr *span = NULL;
    int d = b->ndim;
    for (int i = b->ndim - 1; i >= 0; i--) {
        IrExpr *extent = widen(a, b->shape[i]);
        span = span ? ps_arith(a, IR_E_MUL, span, extent) : extent;
        if (ar_max_any(span) > ((int64_t)1 << 31))
            break;
        d = i;
    }
    return d;
}

/* The declaring store of the scalar whose husk is buf, when it holds its
 * declared value everywhere (a shape's loads already name husks). */
static const IrStmt *declared_value(void *ctx, const IrExpr *buf)
{
    Flatten *fl = ctx;
    uintptr_t d;
    for (int i = 0; i < fl->info.cap; i++) {
        const BufInfo *bi = (const BufInfo *)fl->info.slots[i].val;
        if (fl->info.slots[i].key && bi->husk == buf)
            return ir_ptrmap_get(&fl->scalars, bi->orig, &d) ? (const IrStmt *)d : NULL;
    }
    return NULL;
}

/* layout.apply(idx, shape) with the shape's loads of scalars holding their
 * declared value read as that value (a view sized by `n: T.int32 = e`). */
static bool apply_by_scalars(Flatten *fl, const BufInfo *bi, IrExpr **idx, int n,
                             LyAxisValue **vals, int *nvals)
{
    if (!fl->scalars_known)
        ir_declared_scalars(fl->f->body, &fl->scalars);
    fl->scalars_known = true;
    IrExpr **shape = TX_NEW_ARRAY(arena(fl), IrExpr *, n ? n : 1);
    bool changed = false;
    for (int i = 0; i < n; i++) {
        shape[i] = ir_substitute_scalars(arena(fl), bi->geom->shape[i], declared_value, fl);
        changed |= shape[i] != bi->geom->shape[i];
    }
    LyCtx c = ly_ctx(arena(fl));
    return changed && ly_apply_expr(&c, bi->geom->layout, idx, shape, n, vals, nvals);
}

/* layout.apply(idx, shape) on axis m; NULL after an error. */
static IrExpr *apply_layout(Flatten *fl, const BufInfo *bi, IrExpr **idx, int n)
{
    LyCtx c = ly_ctx(arena(fl));
    LyAxisValue *vals;
    int nvals;
    if (!ly_apply_expr(&c, bi->geom->layout, idx, bi->index_geom->shape, n, &vals, &nvals) &&
        !apply_by_scalars(fl, bi, idx, n, &vals, &nvals)) {
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
    IrExpr *flat;
    if (is_default_layout(fl, bi->geom)) {
        flat = elem_offset_of(a, bi->geom, idx, n, bi->wide ? wide_dims(a, bi->geom) : 0);
    } else {
        for (int i = 0; bi->wide && i < n; i++)
            idx[i] = widen(a, idx[i]);
        flat = apply_layout(fl, bi, idx, n);
    }
    if (flat && bi->wide)
        flat = widen(a, flat); /* a view wide by its root, whose own offsets fit */
    if (!flat)
        return NULL;
    int64_t off;
    if (with_offset && !(ps_const_int(bi->geom->elem_offset, &off) && off == 0))
        flat = ps_arith(a, IR_E_ADD, flat, bi->index_geom->elem_offset);
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
    IrExpr *n = ir_expr_copy(mu->arena, e);
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
    IrStmt *n = ir_stmt_copy(mu->arena, s);
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
        n = ir_stmt_copy(mu->arena, s);
        n->u.alloc.buffer = define(fl, mu, s->u.alloc.buffer, s, s->span)->husk;
        return n;
    case IR_S_DECL:
        n = ir_stmt_copy(mu->arena, s);
        n->u.decl.data = s->u.decl.data ? decl_data(fl, mu, s->u.decl.data) : NULL;
        n->u.decl.buffer = define(fl, mu, s->u.decl.buffer, s, s->span)->husk;
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
            define(fl, &mu, f->params[i], NULL, f->span);
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
        ir_ptrmap_free(&fl.scalars);
    }
    return ok;
}
