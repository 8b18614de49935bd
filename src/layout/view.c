/* Buffer views (view.h): the geometry of each view, computed from its
 * parent's buffer type with the layout algebra. The single views (reshape,
 * dtype, permute, local, select, narrow) follow the reference's
 * _buffer_view.py; sub, tile and rearrange are chains of them, as the
 * reference declares them. Where a view adds an offset, route_offset keeps
 * the physical coordinates (view.h). */
#include <string.h>

#include "internal.h"
#include "view.h"

/* ---------------------------------------------------------------- helpers */
static IrExpr *op(LyViewCtx *v, IrExprKind k, IrExpr *x, IrExpr *y)
{
    if (v->arith) {
        IrExpr *r = v->arith(v->user, k, x, y);
        if (!r && !v->c->err)
            ly_fail(v->c, "cannot build the offset of this view");
        return r;
    }
    switch (k) {
    case IR_E_ADD: return ar_add(v->c->arena, x, y);
    case IR_E_SUB: return ar_sub(v->c->arena, x, y);
    case IR_E_MUL: return ar_mul(v->c->arena, x, y);
    case IR_E_FLOORDIV: return ar_floordiv(v->c->arena, x, y);
    case IR_E_FLOORMOD: return ar_floormod(v->c->arena, x, y);
    default: TX_UNREACHABLE();
    }
}

static IrExpr *int_like(LyViewCtx *v, const IrExpr *like, int64_t k)
{
    return ar_index_int_like(v->c->arena, like, k);
}

static bool is_tmem(const IrType *t)
{
    return !strcmp(t->scope, "tmem") && t->buf->naddr > 0;
}

static int64_t elem_bits(IrDType t)
{
    return (int64_t)t.bits * (t.lanes > 1 ? t.lanes : 1);
}

static bool norm_dim(LyViewCtx *v, int64_t dim, int ndim, int *out)
{
    int64_t d = dim < 0 ? dim + ndim : dim;
    if (d < 0 || d >= ndim)
        return ly_fail(v->c, "dimension %lld is out of range for a buffer of rank %d",
                       (long long)dim, ndim);
    *out = (int)d;
    return true;
}

static bool compact(LyViewCtx *v, const IrType *parent)
{
    if (parent->buf->nstrides)
        return ly_fail(v->c, "views of a buffer with explicit strides are not supported "
                             "(describe its geometry with a layout)");
    return true;
}

/* The product of a shape with the view arithmetic; NULL for rank 0. */
static IrExpr *count_of(LyViewCtx *v, IrExpr *const *shape, int ndim)
{
    IrExpr *n = ndim ? shape[0] : NULL;
    for (int i = 1; i < ndim && n; i++)
        n = op(v, IR_E_MUL, n, shape[i]);
    return n;
}

/* shape[0..ndim) in a new array with room for `extra` more dimensions. */
static IrExpr **copy_shape(LyViewCtx *v, IrExpr *const *shape, int ndim, int extra)
{
    IrExpr **s = TX_NEW_ARRAY(v->c->arena, IrExpr *, ndim + extra + 1);
    for (int i = 0; i < ndim; i++)
        s[i] = shape[i];
    return s;
}

/* The child's type (the reference's _redecl): a TMEM buffer with an address
 * is re-declared at allocated_addr + addr_offset (no strides, elem_offset 0);
 * any other keeps the parent's strides, elem_offset (unless given), scope,
 * alignment and offset factor. */
static IrType *redecl(LyViewCtx *v, const IrType *parent, IrDType dt, IrExpr *const *shape,
                      int ndim, IrLayout *layout, IrExpr *elem_offset, IrExpr *addr_offset)
{
    const IrBufferType *pb = parent->buf;
    TxArena *a = v->c->arena;
    IrBufferType *b = TX_NEW(a, IrBufferType);
    b->ndim = ndim;
    b->shape = copy_shape(v, shape, ndim, 0);
    b->layout = layout;
    b->align = pb->align;
    if (is_tmem(parent)) {
        IrDType index = ndim && ir_dtype_is_int(shape[0]->dtype) ? shape[0]->dtype : IR_INT32;
        b->elem_offset = ir_int(a, index, 0, (TxSpan){0});
        b->offset_factor = 1;
        b->naddr = 1;
        b->allocated_addr = TX_NEW_ARRAY(a, IrExpr *, 1);
        b->allocated_addr[0] = pb->allocated_addr[0];
        if (addr_offset && !(b->allocated_addr[0] = op(v, IR_E_ADD, pb->allocated_addr[0], addr_offset)))
            return NULL;
    } else {
        b->nstrides = pb->nstrides, b->strides = pb->strides;
        b->elem_offset = elem_offset ? elem_offset : pb->elem_offset;
        b->offset_factor = pb->offset_factor;
    }
    return ir_buffer_type(a, dt, parent->scope, b);
}

/* ---------------------------------------------------------------- offsets */
/* Offsets a view adds, one sum per axis. */
typedef struct Offsets {
    IrAxisOffset *v;
    int n, cap;
} Offsets;

static bool add_offset(LyViewCtx *v, Offsets *o, const char *axis, IrExpr *value)
{
    for (int i = 0; i < o->n; i++)
        if (!strcmp(o->v[i].axis, axis))
            return (o->v[i].value = op(v, IR_E_ADD, o->v[i].value, value)) != NULL;
    if (o->n == o->cap) {
        int cap = o->cap ? 2 * o->cap : 4;
        IrAxisOffset *bigger = TX_NEW_ARRAY(v->c->arena, IrAxisOffset, cap);
        if (o->n)
            memcpy(bigger, o->v, sizeof(IrAxisOffset) * (size_t)o->n);
        o->v = bigger, o->cap = cap;
    }
    o->v[o->n++] = (IrAxisOffset){axis, value};
    return true;
}

/* The offset of `index` along a dimension made of the iters group[0..n):
 * its mixed-radix digits times the strides, on each iter's axis. */
static bool group_offsets(LyViewCtx *v, const IrIter *group, int n, IrExpr *index, Offsets *o)
{
    if (n == 1) {
        IrExpr *term = op(v, IR_E_MUL, index, group[0].stride);
        return term && add_offset(v, o, group[0].axis, term);
    }
    int64_t *inner = TX_NEW_ARRAY(v->c->arena, int64_t, n + 1);
    inner[n - 1] = 1;
    for (int k = n - 1; k > 0; k--) {
        int64_t e;
        if (!ar_const_int(group[k].extent, &e) || __builtin_mul_overflow(inner[k], e, &inner[k - 1]))
            return ly_fail(v->c, "a dimension made of several layout iters needs constant "
                                 "iter extents");
    }
    IrExpr *rest = index;
    for (int k = 0; k < n; k++) {
        IrExpr *coord = rest;
        if (inner[k] != 1) {
            IrExpr *d = int_like(v, rest, inner[k]);
            coord = op(v, IR_E_FLOORDIV, rest, d);
            rest = coord ? op(v, IR_E_FLOORMOD, rest, d) : NULL;
            if (!rest)
                return false;
        }
        IrExpr *term = op(v, IR_E_MUL, coord, group[k].stride);
        if (!term || !add_offset(v, o, group[k].axis, term))
            return false;
    }
    return true;
}

/* An offset may stay outside a swizzle only when it is a whole number of
 * swizzle periods (the swizzle acts on absolute address bits). */
static bool commutes(LyViewCtx *v, const IrLayout *layout, IrExpr *offset)
{
    if (!layout || layout->kind != IR_LAYOUT_COMPOSE || layout->swizzle_len == 0)
        return true;
    return ar_divisible(offset, ar_index_int(v->c->arena, ly_swizzle_period(layout)));
}

/* A TCol element offset of a TMEM buffer as 32-bit columns. */
static IrExpr *tmem_columns(LyViewCtx *v, const IrType *parent, IrExpr *offset)
{
    char b[IR_DTYPE_STR_MAX];
    IrExpr *bits = ar_mul(v->c->arena, offset, int_like(v, offset, elem_bits(parent->dtype)));
    IrExpr *col = int_like(v, offset, 32);
    if (!ar_divisible(bits, col)) {
        ly_fail(v->c, "a TMEM view must start on a 32-bit column: an offset of %s elements of %s "
                      "is not a whole number of columns", ly_expr_str(v->c, offset),
                ir_dtype_str(parent->dtype, b));
        return NULL;
    }
    return ar_floordiv(v->c->arena, bits, col);
}

/* The grouped tile of a parent (the reference's _surgery_parts + group):
 * dimension d owns iters [seps[d], seps[d+1]). A bare swizzle is grouped as
 * the identity over the whole buffer (its tile extends linearly). */
typedef struct Grouped {
    const IrLayout *layout; /* the parent's layout (its swizzle, if any) */
    IrLayout *tile;
    int *seps;
} Grouped;

static bool group_parent(LyViewCtx *v, const IrType *parent, Grouped *g)
{
    const IrBufferType *pb = parent->buf;
    if (!pb->layout)
        return ly_fail(v->c, "this view needs a buffer with a layout (it has layout=None)");
    if (!ly_valid_swizzle(v->c, pb->layout))
        return false;
    const IrLayout *tile = ly_tile_of(pb->layout);
    if (ly_is_bare_swizzle(pb->layout))
        tile = ly_identity(v->c, ly_shape_count(v->c, pb->shape, pb->ndim));
    g->layout = pb->layout;
    g->seps = TX_NEW_ARRAY(v->c->arena, int, pb->ndim + 1);
    g->tile = ly_try_group(v->c, tile, pb->shape, pb->ndim, g->seps);
    if (!g->tile)
        return ly_fail(v->c, "layout %s cannot be grouped by the buffer's shape %s",
                       ly_str(v->c, pb->layout), ly_shape_str(v->c, pb->shape, pb->ndim));
    return true;
}

/* The child of a select/narrow: new shard iters over the grouped tile, its
 * replica and offsets kept, the extra offsets routed (view.h). */
static IrType *rebuild(LyViewCtx *v, const IrType *parent, IrExpr *const *shape, int ndim,
                       const Grouped *g, const IrIter *shard, int nshard, const Offsets *extra)
{
    Offsets lay = {0};
    for (int i = 0; i < g->tile->noffset; i++)
        add_offset(v, &lay, g->tile->offset[i].axis, g->tile->offset[i].value);
    IrExpr *elem_offset = parent->buf->elem_offset, *cols = NULL;
    bool tmem = is_tmem(parent);
    for (int i = 0; i < extra->n; i++) {
        const char *axis = extra->v[i].axis;
        IrExpr *off = extra->v[i].value;
        if (ar_is_const(off, 0))
            continue;
        if (!tmem && !strcmp(axis, "m") && commutes(v, g->layout, off)) {
            elem_offset = op(v, IR_E_ADD, elem_offset, off);
        } else if (tmem && !strcmp(axis, "TCol")) {
            IrExpr *c = tmem_columns(v, parent, off);
            cols = c && cols ? op(v, IR_E_ADD, cols, c) : c;
            if (!cols)
                return NULL;
        } else if (!add_offset(v, &lay, axis, off)) {
            return NULL;
        }
        if (!elem_offset)
            return NULL;
    }
    IrLayout *tile = ly_tile(v->c, shard, nshard, g->tile->replica, g->tile->nreplica, lay.v, lay.n);
    return redecl(v, parent, parent->dtype, shape, ndim, ly_rewrap(v->c, g->layout, tile),
                  elem_offset, cols);
}

/* ---------------------------------------------------------------- reshape */
/* Whether a shape has a constant element count too large for int64. */
static bool overflows(IrExpr *const *shape, int ndim)
{
    int64_t n = 1, k;
    for (int i = 0; i < ndim; i++)
        if (ar_const_int(shape[i], &k) && k > 0 && __builtin_mul_overflow(n, k, &n))
            return true;
    return false;
}

static bool view_dims(LyViewCtx *v, const IrType *parent, IrExpr **s, int ndim, bool has_layout)
{
    int infer = -1;
    int64_t k;
    if (overflows(s, ndim) || overflows(parent->buf->shape, parent->buf->ndim))
        return ly_fail(v->c, "the view has more elements than a 64-bit count holds");
    for (int i = 0; i < ndim; i++) {
        if (ar_is_const(s[i], -1)) {
            if (infer >= 0)
                return ly_fail(v->c, "only one dimension of a view can be -1");
            infer = i;
        } else if (ar_const_int(s[i], &k) && k < 0) {
            return ly_fail(v->c, "a view dimension must not be negative (%lld)", (long long)k);
        }
    }
    const IrBufferType *pb = parent->buf;
    IrExpr *total = pb->ndim ? count_of(v, pb->shape, pb->ndim) : int_like(v, NULL, 1);
    IrExpr *known = NULL;
    for (int i = 0; i < ndim && total; i++)
        if (i != infer && !(known = known ? op(v, IR_E_MUL, known, s[i]) : s[i]))
            return false;
    if (!total)
        return false;
    if (!known)
        known = int_like(v, total, 1);
    int64_t t, n;
    bool consts = ar_const_int(total, &t) && ar_const_int(known, &n);
    if (infer >= 0) {
        if (consts && (n == 0 || t % n))
            return ly_fail(v->c, "cannot infer the -1 dimension: %lld elements are not a multiple "
                                 "of %lld", (long long)t, (long long)n);
        return (s[infer] = op(v, IR_E_FLOORDIV, total, known)) != NULL;
    }
    if (!has_layout && consts && t != n)
        return ly_fail(v->c, "a view of %lld elements over a buffer of %lld elements",
                       (long long)n, (long long)t);
    return true;
}

IrType *ly_view_reshape(LyViewCtx *v, const IrType *parent, IrExpr *const *shape, int ndim,
                        IrLayout *layout)
{
    if (!compact(v, parent))
        return NULL;
    IrExpr **s = copy_shape(v, shape, ndim, 0);
    if (!view_dims(v, parent, s, ndim, layout != NULL))
        return NULL;
    return redecl(v, parent, parent->dtype, s, ndim, layout ? layout : parent->buf->layout, NULL,
                  NULL);
}

IrType *ly_view_unflatten(LyViewCtx *v, const IrType *parent, int64_t dim, IrExpr *const *sizes,
                          int n)
{
    const IrBufferType *pb = parent->buf;
    int d = 0;
    if (!norm_dim(v, dim, pb->ndim, &d))
        return NULL;
    if (n < 1)
        return ly_fail(v->c, "the sizes to unflatten into are empty"), NULL;
    IrExpr **s = TX_NEW_ARRAY(v->c->arena, IrExpr *, pb->ndim + n);
    int k = 0;
    for (int i = 0; i < pb->ndim; i++)
        if (i == d)
            for (int j = 0; j < n; j++)
                s[k++] = sizes[j];
        else
            s[k++] = pb->shape[i];
    return ly_view_reshape(v, parent, s, k, NULL);
}

IrType *ly_view_flatten(LyViewCtx *v, const IrType *parent, int64_t start_dim, int64_t end_dim)
{
    const IrBufferType *pb = parent->buf;
    int lo = 0, hi = 0;
    if (pb->ndim == 0)
        return ly_fail(v->c, "flatten needs a buffer of rank 1 or more"), NULL;
    if (!norm_dim(v, start_dim, pb->ndim, &lo) || !norm_dim(v, end_dim, pb->ndim, &hi))
        return NULL;
    if (lo > hi)
        return ly_fail(v->c, "start_dim %lld comes after end_dim %lld",
                       (long long)start_dim, (long long)end_dim), NULL;
    IrExpr **s = TX_NEW_ARRAY(v->c->arena, IrExpr *, pb->ndim);
    int k = 0;
    for (int i = 0; i < lo; i++)
        s[k++] = pb->shape[i];
    if (!(s[k++] = count_of(v, pb->shape + lo, hi - lo + 1)))
        return NULL;
    for (int i = hi + 1; i < pb->ndim; i++)
        s[k++] = pb->shape[i];
    return ly_view_reshape(v, parent, s, k, NULL);
}

/* ---------------------------------------------------------------- dtype */
IrType *ly_view_dtype(LyViewCtx *v, const IrType *parent, IrDType dt)
{
    const IrBufferType *pb = parent->buf;
    int64_t pbits = elem_bits(parent->dtype), cbits = elem_bits(dt), k;
    if (!compact(v, parent))
        return NULL;
    if (pb->ndim == 0 || pbits == 0 || cbits == 0 ||
        (cbits > pbits ? cbits % pbits : pbits % cbits) != 0)
        return ly_fail(v->c, "cannot view %lld-bit elements as %lld-bit ones", (long long)pbits,
                       (long long)cbits), NULL;
    bool wider = cbits > pbits;
    int64_t ratio = wider ? cbits / pbits : pbits / cbits;
    IrExpr *last = pb->shape[pb->ndim - 1], *eo = pb->elem_offset;
    if (wider && ar_const_int(last, &k) && k % ratio)
        return ly_fail(v->c, "the last dimension (%lld) is not a multiple of %lld", (long long)k,
                       (long long)ratio), NULL;
    if (wider && !is_tmem(parent) && ar_const_int(eo, &k) && k % ratio)
        return ly_fail(v->c, "the element offset %lld is not a multiple of %lld: the view would "
                             "start inside an element", (long long)k, (long long)ratio), NULL;
    IrExprKind scale = wider ? IR_E_FLOORDIV : IR_E_MUL;
    IrExpr **s = copy_shape(v, pb->shape, pb->ndim, 0);
    s[pb->ndim - 1] = op(v, scale, last, int_like(v, last, ratio));
    IrExpr *neo = op(v, scale, eo, int_like(v, eo, ratio));
    if (!s[pb->ndim - 1] || !neo)
        return NULL;
    IrLayout *lay = NULL;
    if (pb->layout && !(lay = ly_retype(v->c, pb->layout, pbits, cbits)))
        return NULL;
    return redecl(v, parent, dt, s, pb->ndim, lay, neo, NULL);
}

/* ---------------------------------------------------------------- permute */
IrType *ly_view_permute(LyViewCtx *v, const IrType *parent, const int64_t *dims, int n)
{
    const IrBufferType *pb = parent->buf;
    if (!compact(v, parent))
        return NULL;
    if (n != pb->ndim)
        return ly_fail(v->c, "permute takes one dimension per dimension of the buffer (%d), "
                             "not %d", pb->ndim, n), NULL;
    int *perm = TX_NEW_ARRAY(v->c->arena, int, n + 1);
    bool *seen = TX_NEW_ARRAY(v->c->arena, bool, n + 1);
    for (int i = 0; i < n; i++) {
        if (!norm_dim(v, dims[i], n, &perm[i]))
            return NULL;
        if (seen[perm[i]])
            return ly_fail(v->c, "dimension %d appears twice: not a permutation", perm[i]), NULL;
        seen[perm[i]] = true;
    }
    IrExpr **s = TX_NEW_ARRAY(v->c->arena, IrExpr *, n + 1);
    for (int i = 0; i < n; i++)
        s[i] = pb->shape[perm[i]];
    Grouped g;
    if (!group_parent(v, parent, &g))
        return NULL;
    IrLayout *t = ly_permute_by_groups(v->c, g.tile, g.seps, n, perm);
    return t ? redecl(v, parent, parent->dtype, s, n, ly_rewrap(v->c, g.layout, t), NULL, NULL)
             : NULL;
}

/* ---------------------------------------------------------------- local */
IrType *ly_view_local(LyViewCtx *v, const IrType *parent, IrExpr *const *shape, int ndim,
                      IrLayout *layout)
{
    const IrLayout *pl = parent->buf->layout;
    if (!compact(v, parent))
        return NULL;
    IrExpr **s = copy_shape(v, shape, ndim, 1);
    if (!pl && (!ndim || !layout))
        return ly_fail(v->c, "local() of a buffer with layout=None needs both a shape and a "
                             "layout"), NULL;
    if (!ndim || !layout) {
        IrLayout *st = ly_storage(v->c, pl);
        IrExpr *span = st ? ly_span(v->c, st, NULL) : NULL;
        if (!span)
            return NULL;
        if (!ndim) {
            s[0] = layout ? ly_size(v->c, st, NULL) : span;
            ndim = 1;
        } else {
            IrExpr *total = count_of(v, s, ndim);
            if (!total)
                return NULL;
            if (!ar_expr_value_equal(total, span))
                return ly_fail(v->c, "a local view of shape %s has %s elements, but each thread "
                                     "stores a span of %s", ly_shape_str(v->c, s, ndim),
                               ly_expr_str(v->c, total), ly_expr_str(v->c, span)), NULL;
        }
    }
    IrLayout *lay = layout ? layout : ir_default_layout(v->c->arena, s, ndim);
    return redecl(v, parent, parent->dtype, s, ndim, lay, NULL, NULL);
}

/* ---------------------------------------------------------------- select, narrow */
static bool in_range(LyViewCtx *v, IrExpr *index, IrExpr *extent, int dim)
{
    int64_t i, e = -1;
    bool known = ar_const_int(extent, &e);
    if (ar_const_int(index, &i) && (i < 0 || (known && i >= e)))
        return ly_fail(v->c, "index %lld is out of range for dimension %d of extent %s",
                       (long long)i, dim, ly_expr_str(v->c, extent));
    return true;
}

IrType *ly_view_select(LyViewCtx *v, const IrType *parent, int64_t dim, IrExpr *index)
{
    const IrBufferType *pb = parent->buf;
    int d = 0;
    Grouped g;
    if (!compact(v, parent) || !norm_dim(v, dim, pb->ndim, &d) ||
        !in_range(v, index, pb->shape[d], d) || !group_parent(v, parent, &g))
        return NULL;
    int lo = g.seps[d], hi = g.seps[d + 1];
    Offsets extra = {0};
    if (hi > lo && !group_offsets(v, g.tile->shard + lo, hi - lo, index, &extra))
        return NULL;
    IrExpr **s = TX_NEW_ARRAY(v->c->arena, IrExpr *, pb->ndim);
    int n = 0;
    for (int i = 0; i < pb->ndim; i++)
        if (i != d)
            s[n++] = pb->shape[i];
    IrIter *shard = TX_NEW_ARRAY(v->c->arena, IrIter, g.tile->nshard + 1);
    int nshard = 0;
    for (int i = 0; i < g.tile->nshard; i++)
        if (i < lo || i >= hi)
            shard[nshard++] = g.tile->shard[i];
    return rebuild(v, parent, s, n, &g, shard, nshard, &extra);
}

static bool narrow_bounds(LyViewCtx *v, IrExpr *start, IrExpr *length, IrExpr *extent, int dim)
{
    int64_t a, n, e;
    if (ar_const_int(start, &a) && a < 0)
        return ly_fail(v->c, "a narrowed range cannot start at %lld", (long long)a);
    if (ar_const_int(length, &n) && n < 1)
        return ly_fail(v->c, "a narrowed range needs a positive length, not %lld", (long long)n);
    int64_t end;
    if (ar_const_int(start, &a) && ar_const_int(length, &n) && ar_const_int(extent, &e)) {
        if (__builtin_add_overflow(a, n, &end))
            return ly_fail(v->c, "the range of length %lld from %lld is out of range for dimension "
                                 "%d of extent %lld", (long long)n, (long long)a, dim, (long long)e);
        if (end > e)
            return ly_fail(v->c, "the range [%lld, %lld) is out of range for dimension %d of "
                                 "extent %lld", (long long)a, (long long)end, dim, (long long)e);
    }
    return true;
}

IrType *ly_view_narrow(LyViewCtx *v, const IrType *parent, int64_t dim, IrExpr *start,
                       IrExpr *length)
{
    const IrBufferType *pb = parent->buf;
    int d = 0;
    Grouped g;
    if (!compact(v, parent) || !norm_dim(v, dim, pb->ndim, &d) ||
        !narrow_bounds(v, start, length, pb->shape[d], d) || !group_parent(v, parent, &g))
        return NULL;
    int lo = g.seps[d], hi = g.seps[d + 1];
    IrIter *shard = TX_NEW_ARRAY(v->c->arena, IrIter, g.tile->nshard + 1);
    memcpy(shard, g.tile->shard, sizeof(IrIter) * (size_t)g.tile->nshard);
    Offsets extra = {0};
    if (hi - lo == 1) {
        shard[lo].extent = length;
        IrExpr *off = op(v, IR_E_MUL, start, shard[lo].stride);
        if (!off || !add_offset(v, &extra, shard[lo].axis, off))
            return NULL;
    } else if (hi - lo > 1) {
        int64_t inner = 1, e, a, n;
        for (int k = lo + 1; k < hi; k++) {
            if (!ar_const_int(shard[k].extent, &e) || __builtin_mul_overflow(inner, e, &inner))
                return ly_fail(v->c, "a dimension made of several layout iters needs constant "
                                     "iter extents"), NULL;
        }
        if (!ar_const_int(start, &a) || !ar_const_int(length, &n) || a % inner || n % inner)
            return ly_fail(v->c, "dimension %d is made of %d layout iters: its start and length "
                                 "must be constant multiples of %lld", d, hi - lo,
                           (long long)inner), NULL;
        shard[lo].extent = int_like(v, length, n / inner);
        IrExpr *off = op(v, IR_E_MUL, int_like(v, start, a / inner), shard[lo].stride);
        if (!off || !add_offset(v, &extra, shard[lo].axis, off))
            return NULL;
    }
    IrExpr **s = copy_shape(v, pb->shape, pb->ndim, 0);
    s[d] = length;
    return rebuild(v, parent, s, pb->ndim, &g, shard, g.tile->nshard, &extra);
}

/* ---------------------------------------------------------------- chains */
static const IrType *push(LyViewCtx *v, LyViewChain *out, IrType *t)
{
    if (!t)
        return NULL;
    if (out->n == out->cap) {
        int cap = out->cap ? 2 * out->cap : 4;
        IrType **bigger = TX_NEW_ARRAY(v->c->arena, IrType *, cap);
        if (out->n)
            memcpy(bigger, out->steps, sizeof(IrType *) * (size_t)out->n);
        out->steps = bigger, out->cap = cap;
    }
    out->steps[out->n++] = t;
    return t;
}

/* Dimension `dim` replaced by `parts` (n of them). */
static IrExpr **split_shape(LyViewCtx *v, const IrBufferType *b, int dim, IrExpr *const *parts,
                            int n, int *ndim)
{
    IrExpr **s = TX_NEW_ARRAY(v->c->arena, IrExpr *, b->ndim + n);
    int k = 0;
    for (int i = 0; i < b->ndim; i++)
        if (i == dim)
            for (int j = 0; j < n; j++)
                s[k++] = parts[j];
        else
            s[k++] = b->shape[i];
    *ndim = k;
    return s;
}

/* a::s: dimension `dim` split into (E/s, s), then index `start` of the inner part. */
static const IrType *step_view(LyViewCtx *v, const IrType *cur, int dim, const LyPick *p,
                               LyViewChain *out)
{
    int64_t e, a;
    IrExpr *extent = cur->buf->shape[dim];
    if (p->step <= 0)
        return ly_fail(v->c, "a slice step must be a positive int, not %lld", (long long)p->step),
               NULL;
    if (p->stop)
        return ly_fail(v->c, "a stop bound with a step is not supported in a view"), NULL;
    if (!ar_const_int(extent, &e) || e % p->step)
        return ly_fail(v->c, "a stepped view needs a constant extent divisible by the step: "
                             "%s is not a multiple of %lld", ly_expr_str(v->c, extent),
                       (long long)p->step), NULL;
    IrExpr *start = p->start ? p->start : int_like(v, extent, 0);
    if (ar_const_int(start, &a) && (a < 0 || a >= p->step))
        return ly_fail(v->c, "a stepped view starts in [0, %lld), not at %lld", (long long)p->step,
                       (long long)a), NULL;
    IrExpr *parts[2] = {int_like(v, NULL, e / p->step), int_like(v, NULL, p->step)};
    int n;
    IrExpr **s = split_shape(v, cur->buf, dim, parts, 2, &n);
    const IrType *split = push(v, out, ly_view_reshape(v, cur, s, n, NULL));
    return split ? push(v, out, ly_view_select(v, split, dim + 1, start)) : NULL;
}

bool ly_view_sub(LyViewCtx *v, const IrType *parent, const LyPick *picks, int n, LyViewChain *out)
{
    out->at = -1;
    if (n > parent->buf->ndim)
        return ly_fail(v->c, "%d indices for a buffer of rank %d", n, parent->buf->ndim);
    const IrType *cur = parent;
    int dim = 0;
    for (int i = 0; i < n && cur; i++) {
        const LyPick *p = &picks[i];
        out->at = i;
        if (p->kind == LY_PICK_INDEX) {
            cur = push(v, out, ly_view_select(v, cur, dim, p->start));
            continue;
        }
        if (p->kind == LY_PICK_RANGE) {
            IrExpr *extent = cur->buf->shape[dim];
            IrExpr *start = p->start ? p->start : int_like(v, extent, 0);
            IrExpr *len = op(v, IR_E_SUB, p->stop ? p->stop : extent, start);
            cur = len ? push(v, out, ly_view_narrow(v, cur, dim, start, len)) : NULL;
        } else if (p->kind == LY_PICK_STEP) {
            cur = step_view(v, cur, dim, p, out);
        }
        dim++;
    }
    if (cur)
        out->at = -1;
    return cur != NULL;
}

/* One dimension of A.tile(...)[...]: split, select the picked factors from
 * the innermost, merge the kept ones. `first` numbers the picks. */
static const IrType *tile_dim(LyViewCtx *v, const IrType *cur, int dim, const LyTileSpec *sp,
                              const LyPick *picks, int first, LyViewChain *out)
{
    int keep = 0;
    for (int j = 0; j < sp->nfactors; j++) {
        out->at = first + j;
        if (picks[j].kind != LY_PICK_INDEX && picks[j].kind != LY_PICK_ALL)
            return ly_fail(v->c, "a tile pick is an index or ':' (keep the factor whole)"), NULL;
        keep += picks[j].kind == LY_PICK_ALL;
    }
    out->at = -1;
    if (keep == sp->nfactors)
        return ly_fail(v->c, "dimension %d picks no factor: a tile selects at least one (use view "
                             "or chunk to reshape)", dim), NULL;
    int n;
    IrExpr **s = split_shape(v, cur->buf, dim, sp->factors, sp->nfactors, &n);
    cur = push(v, out, ly_view_reshape(v, cur, s, n, NULL));
    for (int j = sp->nfactors - 1; j >= 0 && cur; j--) {
        if (picks[j].kind != LY_PICK_INDEX)
            continue;
        out->at = first + j;
        cur = push(v, out, ly_view_select(v, cur, dim + j, picks[j].start));
    }
    if (!cur || keep < 2)
        return cur;
    out->at = -1;
    IrExpr *minus1 = int_like(v, NULL, -1);
    IrExpr **m = TX_NEW_ARRAY(v->c->arena, IrExpr *, cur->buf->ndim);
    int k = 0;
    for (int i = 0; i < cur->buf->ndim; i++)
        if (i < dim || i >= dim + keep)
            m[k++] = cur->buf->shape[i];
        else if (i == dim)
            m[k++] = minus1;
    return push(v, out, ly_view_reshape(v, cur, m, k, NULL));
}

bool ly_view_tile(LyViewCtx *v, const IrType *parent, const LyTileSpec *specs, int nspecs,
                  const LyPick *picks, int npicks, LyViewChain *out)
{
    int ndim = parent->buf->ndim, total = 0;
    out->at = -1;
    int *dims = TX_NEW_ARRAY(v->c->arena, int, nspecs + 1);
    int *first = TX_NEW_ARRAY(v->c->arena, int, nspecs + 1);
    for (int i = 0; i < nspecs; i++) {
        if (!norm_dim(v, specs[i].dim, ndim, &dims[i]))
            return false;
        for (int j = 0; j < i; j++)
            if (dims[j] == dims[i])
                return ly_fail(v->c, "dimension %d is tiled twice", dims[i]);
        if (specs[i].nfactors < 1)
            return ly_fail(v->c, "the factors of dimension %d are empty", dims[i]);
        first[i] = total;
        total += specs[i].nfactors;
    }
    if (npicks != total)
        return ly_fail(v->c, "the tile splits into %d factors but %d picks were given (an index "
                             "selects a factor, ':' keeps it)", total, npicks);
    const IrType *cur = parent;
    for (int done = 0; done < nspecs && cur; done++) {
        int best = -1; /* the highest dimension not yet tiled */
        for (int i = 0; i < nspecs; i++)
            if (dims[i] >= 0 && (best < 0 || dims[i] > dims[best]))
                best = i;
        cur = tile_dim(v, cur, dims[best], &specs[best], picks + first[best], first[best], out);
        dims[best] = -1;
    }
    if (cur)
        out->at = -1;
    return cur != NULL;
}

/* ---------------------------------------------------------------- rearrange */
typedef struct Pattern {
    int ngroups, natoms;
    int *group_of; /* atom -> its group */
    const char **atoms;
} Pattern;

/* One side of an einops pattern: atoms, and groups in parentheses. */
static bool parse_side(LyViewCtx *v, const char *s, size_t len, Pattern *p)
{
    size_t cap = len + 1;
    p->atoms = TX_NEW_ARRAY(v->c->arena, const char *, cap);
    p->group_of = TX_NEW_ARRAY(v->c->arena, int, cap);
    size_t i = 0;
    while (i < len) {
        if (s[i] == ' ' || s[i] == '\t') {
            i++;
            continue;
        }
        bool grouped = s[i] == '(';
        size_t end = i + 1;
        if (grouped) {
            while (end < len && s[end] != ')')
                end++;
            if (end == len)
                return ly_fail(v->c, "an unclosed '(' in the rearrange pattern");
        } else {
            while (end < len && s[end] != ' ' && s[end] != '\t' && s[end] != '(' && s[end] != ')')
                end++;
        }
        size_t a = grouped ? i + 1 : i, stop = end;
        while (a < stop) {
            while (a < stop && (s[a] == ' ' || s[a] == '\t'))
                a++;
            size_t b = a;
            while (b < stop && s[b] != ' ' && s[b] != '\t')
                b++;
            if (b > a) {
                p->atoms[p->natoms] = tx_arena_strndup(v->c->arena, s + a, b - a);
                p->group_of[p->natoms++] = p->ngroups;
            }
            a = b;
        }
        p->ngroups++;
        i = grouped ? end + 1 : end;
    }
    return true;
}

static int atom_index(const Pattern *p, const char *name)
{
    for (int i = 0; i < p->natoms; i++)
        if (!strcmp(p->atoms[i], name))
            return i;
    return -1;
}

/* The size of every lhs atom: given, or inferred (one per group). */
static bool atom_sizes(LyViewCtx *v, const IrType *parent, const Pattern *lhs,
                       const char *const *names, const int64_t *sizes, int nsizes, int64_t *out)
{
    for (int g = 0; g < lhs->ngroups; g++) {
        int64_t dim, known = 1;
        int unknown = -1;
        if (!ar_const_int(parent->buf->shape[g], &dim))
            return ly_fail(v->c, "rearrange needs constant dimensions; dimension %d is %s", g,
                           ly_expr_str(v->c, parent->buf->shape[g]));
        for (int a = 0; a < lhs->natoms; a++) {
            if (lhs->group_of[a] != g)
                continue;
            int k = 0;
            while (k < nsizes && strcmp(names[k], lhs->atoms[a]))
                k++;
            if (k < nsizes) {
                out[a] = sizes[k];
                if (sizes[k] <= 0 || __builtin_mul_overflow(known, sizes[k], &known))
                    return ly_fail(v->c, "the size of '%s' must be positive, and the sizes of "
                                         "group %d must fit 64 bits", lhs->atoms[a], g);
            } else if (unknown >= 0) {
                return ly_fail(v->c, "group %d has more than one axis of unknown size "
                                     "('%s' and '%s'); give all but one", g, lhs->atoms[unknown],
                               lhs->atoms[a]);
            } else {
                unknown = a;
            }
        }
        if (unknown >= 0 && (known <= 0 || dim % known))
            return ly_fail(v->c, "dimension %d (%lld) is not divisible by %lld", g,
                           (long long)dim, (long long)known);
        if (unknown >= 0)
            out[unknown] = dim / known;
        else if (known != dim)
            return ly_fail(v->c, "the sizes of group %d multiply to %lld, not to its "
                                 "dimension %lld", g, (long long)known, (long long)dim);
    }
    return true;
}

static bool check_atoms(LyViewCtx *v, const Pattern *lhs, const Pattern *rhs,
                        const char *const *names, int nsizes)
{
    for (int a = 0; a < lhs->natoms; a++)
        if (atom_index(lhs, lhs->atoms[a]) != a)
            return ly_fail(v->c, "axis '%s' appears twice", lhs->atoms[a]);
    if (lhs->natoms != rhs->natoms)
        return ly_fail(v->c, "the two sides name different axes");
    for (int a = 0; a < rhs->natoms; a++)
        if (atom_index(lhs, rhs->atoms[a]) < 0 || atom_index(rhs, rhs->atoms[a]) != a)
            return ly_fail(v->c, "axis '%s' of the right side is not an axis of the "
                                 "left side once", rhs->atoms[a]);
    for (int k = 0; k < nsizes; k++)
        if (atom_index(lhs, names[k]) < 0)
            return ly_fail(v->c, "a size is given for '%s', which is not an axis of "
                                 "the pattern", names[k]);
    return true;
}

bool ly_view_rearrange(LyViewCtx *v, const IrType *parent, const char *pattern,
                       const char *const *names, const int64_t *sizes, int nsizes,
                       LyViewChain *out)
{
    const char *arrow = strstr(pattern, "->");
    if (!arrow)
        return ly_fail(v->c, "a rearrange pattern needs '->'");
    Pattern lhs = {0}, rhs = {0};
    if (!parse_side(v, pattern, (size_t)(arrow - pattern), &lhs) ||
        !parse_side(v, arrow + 2, strlen(arrow + 2), &rhs) ||
        !check_atoms(v, &lhs, &rhs, names, nsizes))
        return false;
    if (lhs.ngroups != parent->buf->ndim)
        return ly_fail(v->c, "the left side has %d groups for a buffer of rank %d",
                       lhs.ngroups, parent->buf->ndim);
    int64_t *size = TX_NEW_ARRAY(v->c->arena, int64_t, lhs.natoms + 1);
    if (!atom_sizes(v, parent, &lhs, names, sizes, nsizes, size))
        return false;
    int n = lhs.natoms;
    IrExpr **atoms = TX_NEW_ARRAY(v->c->arena, IrExpr *, n + 1);
    int64_t *perm = TX_NEW_ARRAY(v->c->arena, int64_t, n + 1);
    for (int a = 0; a < n; a++) {
        atoms[a] = int_like(v, NULL, size[a]);
        perm[a] = atom_index(&lhs, rhs.atoms[a]);
    }
    IrExpr **merged = TX_NEW_ARRAY(v->c->arena, IrExpr *, rhs.ngroups + 1);
    for (int g = 0; g < rhs.ngroups; g++) {
        int64_t m = 1;
        for (int a = 0; a < n; a++)
            if (rhs.group_of[a] == g)
                m *= size[perm[a]];
        merged[g] = int_like(v, NULL, m);
    }
    const IrType *cur = push(v, out, ly_view_reshape(v, parent, atoms, n, NULL));
    cur = cur ? push(v, out, ly_view_permute(v, cur, perm, n)) : NULL;
    return cur && push(v, out, ly_view_reshape(v, cur, merged, rhs.ngroups, NULL));
}

/* ---------------------------------------------------------------- chunk */
bool ly_view_chunk(LyViewCtx *v, const IrType *parent, int64_t dim, int64_t count, IrExpr *pick,
                   IrExpr **begin, IrExpr **extent)
{
    int d = 0;
    int64_t e, p;
    if (!norm_dim(v, dim, parent->buf->ndim, &d))
        return false;
    IrExpr *ext = parent->buf->shape[d];
    if (count < 1)
        return ly_fail(v->c, "a chunk count must be positive, not %lld", (long long)count);
    if (ar_const_int(ext, &e) && e % count)
        return ly_fail(v->c, "dimension %d of extent %lld does not split into %lld equal chunks", d,
                       (long long)e, (long long)count);
    if (ar_const_int(pick, &p) && (p < 0 || p >= count))
        return ly_fail(v->c, "chunk %lld is out of range for %lld chunks", (long long)p,
                       (long long)count);
    *extent = op(v, IR_E_FLOORDIV, ext, int_like(v, ext, count));
    *begin = *extent ? op(v, IR_E_MUL, pick, *extent) : NULL;
    return *begin != NULL;
}
