/* Applying a layout: admitted shapes, grouping the shard by a shape, the
 * concrete apply (the full set of coordinates of an element, replicas
 * included) and the symbolic apply (IR expressions of the representative
 * coordinates), plus exhaustive apply-equality. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---------------------------------------------------------------- shapes */
IrExpr *ly_shape_count(LyCtx *c, IrExpr *const *shape, int ndim)
{
    IrExpr *n = ar_index_int(c->arena, 1);
    for (int i = 0; i < ndim; i++)
        n = ar_mul(c->arena, n, shape[i]);
    return n;
}

static bool not_admitted(LyCtx *c, const IrLayout *l, const char *shape, const char *why)
{
    return ly_fail(c, "shape %s is not admitted by layout %s: %s", shape, ly_str(c, l), why);
}

bool ly_admits(LyCtx *c, const IrLayout *l, IrExpr *const *shape, int ndim)
{
    if (!ly_valid_swizzle(c, l))
        return false;
    IrExpr *count = ly_shape_count(c, shape, ndim), *size = ly_size(c, l, NULL);
    if (ar_expr_value_equal(count, size))
        return true;
    bool bare = ly_is_bare_swizzle(l);
    IrExpr *period = bare ? ar_index_int(c->arena, ly_swizzle_period(l)) : NULL;
    if (bare && ar_divisible(count, period) && !ar_is_const(count, 0))
        return true;
    const char *sh = ly_shape_str(c, shape, ndim);
    int64_t n, m;
    if (!ar_const_int(count, &n) || !ar_const_int(size, &m))
        return not_admitted(c, l, sh, tx_arena_printf(c->arena, "cannot prove that %s elements "
                            "equal the layout's %s", ly_expr_str(c, count), ly_expr_str(c, size)));
    if (bare)
        return not_admitted(c, l, sh, tx_arena_printf(c->arena, "it has %lld elements; a swizzle "
                            "takes a whole multiple of its period %lld", (long long)n,
                            (long long)ly_swizzle_period(l)));
    return not_admitted(c, l, sh, tx_arena_printf(c->arena, "it has %lld elements, the layout "
                        "has %lld", (long long)n, (long long)m));
}

/* ---------------------------------------------------------------- grouping */
/* Walk the shard outermost first, carrying the product not yet given to a dim;
 * whenever it covers the next dim, split the current iter there. */
IrLayout *ly_try_group(LyCtx *c, const IrLayout *t, IrExpr *const *shape, int ndim, int *seps)
{
    LyBuild b = {0};
    IrExpr *prod = ar_index_int(c->arena, 1);
    int k = 0;
    seps[0] = 0;
    for (int i = 0; i < t->nshard; i++) {
        IrIter it = t->shard[i];
        IrExpr *e = it.extent;
        prod = ar_mul(c->arena, prod, e);
        while (k < ndim && ar_divisible(prod, shape[k])) {
            IrExpr *rest = ar_floordiv(c->arena, prod, shape[k]);
            if (!ar_divisible(e, rest))
                return NULL;
            lyb_shard(c, &b, ly_iter(ar_floordiv(c->arena, e, rest), ar_mul(c->arena, it.stride, rest), it.axis));
            e = prod = rest;
            seps[++k] = b.nshard;
        }
        if (!ar_is_const(e, 1)) {
            if (k >= ndim)
                return NULL;
            lyb_shard(c, &b, ly_iter(e, it.stride, it.axis));
        }
    }
    if (k != ndim)
        return NULL;
    lyb_replicas(c, &b, t->replica, t->nreplica);
    lyb_offsets(c, &b, t->offset, t->noffset);
    return lyb_finish(c, &b);
}

IrLayout *ly_group(LyCtx *c, const IrLayout *l, IrExpr *const *shape, int ndim, int *seps)
{
    IrLayout *g = ly_try_group(c, ly_tile_of(l), shape, ndim, seps);
    if (!g) {
        ly_fail(c, "layout %s cannot be grouped by shape %s", ly_str(c, l),
                ly_shape_str(c, shape, ndim));
        return NULL;
    }
    return ly_rewrap(c, l, g);
}

/* ---------------------------------------------------------------- symbolic apply */
void ly_split_coord(LyCtx *c, IrExpr *x, IrExpr *const *extents, int n, IrExpr **digits)
{
    for (int i = n - 1; i > 0; i--) {
        digits[i] = ar_floormod(c->arena, x, extents[i]);
        x = ar_floordiv(c->arena, x, extents[i]);
    }
    if (n > 0)
        digits[0] = x;
}

static int axis_slot(const char **axes, int n, const char *axis)
{
    for (int i = 0; i < n; i++)
        if (strcmp(axes[i], axis) == 0)
            return i;
    return -1;
}

bool ly_tile_apply_digits(LyCtx *c, const IrLayout *t, IrExpr *const *digits, LyAxisValue **out,
                          int *nout)
{
    int naxes = ly_axes(t, NULL, 0);
    const char **axes = TX_NEW_ARRAY(c->arena, const char *, naxes);
    IrExpr **val = TX_NEW_ARRAY(c->arena, IrExpr *, naxes);
    ly_axes(t, axes, naxes);
    for (int i = 0; i < t->nshard; i++) {
        int k = axis_slot(axes, naxes, t->shard[i].axis);
        IrExpr *term = ar_is_const(t->shard[i].extent, 1)
                           ? ar_index_int_like(c->arena, digits[i], 0) /* the digit of a unit iter is 0 */
                           : ar_mul(c->arena, digits[i], t->shard[i].stride);
        val[k] = val[k] ? ar_add(c->arena, val[k], term) : term;
    }
    for (int i = 0; i < t->noffset; i++) {
        int k = axis_slot(axes, naxes, t->offset[i].axis);
        val[k] = val[k] ? ar_add(c->arena, val[k], t->offset[i].value) : t->offset[i].value;
    }
    *out = TX_NEW_ARRAY(c->arena, LyAxisValue, naxes);
    *nout = 0;
    for (int k = 0; k < naxes; k++) /* axes only in the replica have no representative value */
        if (val[k])
            (*out)[(*nout)++] = (LyAxisValue){axes[k], val[k]};
    return true;
}

static IrExpr *flatten(LyCtx *c, IrExpr *const *index, IrExpr *const *shape, int ndim)
{
    IrExpr *f = ndim ? index[0] : ar_index_int(c->arena, 0);
    for (int d = 1; d < ndim; d++)
        f = ar_add(c->arena, ar_mul(c->arena, f, shape[d]), index[d]);
    return f;
}

/* Digits per shard iter of a grouped tile: dim d splits over its own group. */
static IrExpr **group_digits(LyCtx *c, const IrLayout *g, const int *seps, IrExpr *const *index,
                             int ndim)
{
    IrExpr **digits = TX_NEW_ARRAY(c->arena, IrExpr *, g->nshard + 1);
    IrExpr **extents = TX_NEW_ARRAY(c->arena, IrExpr *, g->nshard + 1);
    for (int i = 0; i < g->nshard; i++)
        extents[i] = g->shard[i].extent;
    for (int d = 0; d < ndim; d++)
        ly_split_coord(c, index[d], extents + seps[d], seps[d + 1] - seps[d], digits + seps[d]);
    return digits;
}

static IrExpr **flat_digits(LyCtx *c, const IrLayout *t, IrExpr *const *index,
                            IrExpr *const *shape, int ndim)
{
    IrExpr **digits = TX_NEW_ARRAY(c->arena, IrExpr *, t->nshard + 1);
    IrExpr **extents = TX_NEW_ARRAY(c->arena, IrExpr *, t->nshard + 1);
    for (int i = 0; i < t->nshard; i++)
        extents[i] = t->shard[i].extent;
    ly_split_coord(c, flatten(c, index, shape, ndim), extents, t->nshard, digits);
    return digits;
}

static bool only_m(LyCtx *c, const IrLayout *l, const LyAxisValue *vals, int n)
{
    if (n == 1 && strcmp(vals[0].axis, "m") == 0)
        return true;
    return ly_fail(c, "the tile of swizzle %s must map onto the memory axis m only", ly_str(c, l));
}

static bool single(LyCtx *c, IrExpr *m, LyAxisValue **out, int *nout)
{
    *out = TX_NEW(c->arena, LyAxisValue);
    **out = (LyAxisValue){"m", m};
    *nout = 1;
    return true;
}

bool ly_apply_expr(LyCtx *c, const IrLayout *l, IrExpr *const *index, IrExpr *const *shape,
                   int ndim, LyAxisValue **out, int *nout)
{
    if (!ly_admits(c, l, shape, ndim))
        return false;
    IrLayout *canon = ly_canonicalize(c, l, LY_TARGET_NONE);
    if (!canon)
        return false;
    const IrLayout *t = ly_tile_of(canon);
    int *seps = TX_NEW_ARRAY(c->arena, int, ndim + 1);
    IrLayout *g = ly_try_group(c, t, shape, ndim, seps);
    if (g && canon->kind == IR_LAYOUT_COMPOSE) {
        IrExpr *m = ly_swizzle_apply_digits(c, canon, g, group_digits(c, g, seps, index, ndim));
        return m && single(c, m, out, nout);
    }
    if (g)
        return ly_tile_apply_digits(c, g, group_digits(c, g, seps, index, ndim), out, nout);
    IrExpr **digits = flat_digits(c, t, index, shape, ndim);
    if (canon->kind == IR_LAYOUT_TILE)
        return ly_tile_apply_digits(c, t, digits, out, nout);
    LyAxisValue *vals;
    int n;
    ly_tile_apply_digits(c, t, digits, &vals, &n);
    if (n == 0)
        return single(c, ly_swizzle_full(c, canon, ar_index_int(c->arena, 0)), out, nout);
    return only_m(c, canon, vals, n) && single(c, ly_swizzle_full(c, canon, vals[0].value), out, nout);
}

/* ---------------------------------------------------------------- concrete apply */
typedef struct IntIter {
    int64_t e, s;
    int col;
} IntIter;

/* A constant layout over a fixed list of axis columns. */
typedef struct IntLayout {
    int naxes, nshard, nrep;
    IntIter *shard, *rep;
    int64_t *offset; /* per column */
    int64_t size, points;
    const IrLayout *swizzle; /* the ComposeLayout, or NULL */
    int m_col;               /* the column a swizzle acts on */
} IntLayout;

enum { MAX_POINTS = 1 << 16 };

/* a * b for non-negative a and b, when it is at most cap. */
static bool mul_capped(int64_t a, int64_t b, int64_t cap, int64_t *r)
{
    if (a != 0 && b > cap / a)
        return false;
    *r = a * b;
    return true;
}

static bool int_iter(LyCtx *c, const IrLayout *l, IrIter it, const char **axes, int naxes,
                     IntIter *out)
{
    if (!ar_const_int(it.extent, &out->e) || !ar_const_int(it.stride, &out->s))
        return ly_fail(c, "layout %s is not constant", ly_str(c, l));
    if (out->e < 1 || out->e > ((int64_t)1 << 40))
        return ly_fail(c, "layout %s has extent %lld; extents must be positive", ly_str(c, l),
                       (long long)out->e);
    int64_t reach;
    if (out->s < -((int64_t)1 << 40) || out->s > ((int64_t)1 << 40) ||
        !mul_capped(out->e, out->s < 0 ? -out->s : out->s, (int64_t)1 << 50, &reach))
        return ly_fail(c, "layout %s has stride %lld; it is too large to apply", ly_str(c, l),
                       (long long)out->s);
    out->col = axis_slot(axes, naxes, it.axis);
    return true;
}


static bool to_ints(LyCtx *c, const IrLayout *l, const char **axes, int naxes, IntLayout *il)
{
    if (!ly_valid_swizzle(c, l))
        return false;
    const IrLayout *t = ly_tile_of(l);
    il->naxes = naxes, il->nshard = t->nshard, il->nrep = t->nreplica;
    il->shard = TX_NEW_ARRAY(c->arena, IntIter, t->nshard + 1);
    il->rep = TX_NEW_ARRAY(c->arena, IntIter, t->nreplica + 1);
    il->offset = TX_NEW_ARRAY(c->arena, int64_t, naxes + 1);
    il->swizzle = l->kind == IR_LAYOUT_COMPOSE ? l : NULL;
    il->size = il->points = 1;
    for (int i = 0; i < t->nshard; i++) {
        if (!int_iter(c, l, t->shard[i], axes, naxes, &il->shard[i]))
            return false;
        if (!mul_capped(il->size, il->shard[i].e, (int64_t)1 << 62, &il->size))
            return ly_fail(c, "layout %s is too large", ly_str(c, l));
    }
    for (int i = 0; i < t->nreplica; i++) {
        if (!int_iter(c, l, t->replica[i], axes, naxes, &il->rep[i]))
            return false;
        if (!mul_capped(il->points, il->rep[i].e, MAX_POINTS, &il->points))
            return ly_fail(c, "layout %s has more than %d replicas", ly_str(c, l), MAX_POINTS);
    }
    for (int i = 0; i < t->noffset; i++) {
        int64_t v;
        if (!ar_const_int(t->offset[i].value, &v))
            return ly_fail(c, "layout %s is not constant", ly_str(c, l));
        if (v < -((int64_t)1 << 50) || v > ((int64_t)1 << 50))
            return ly_fail(c, "layout %s has offset %lld; it is too large to apply", ly_str(c, l),
                           (long long)v);
        il->offset[axis_slot(axes, naxes, t->offset[i].axis)] += v;
    }
    il->m_col = axis_slot(axes, naxes, "m");
    const char *own[2];
    int nown = ly_axes(l, own, 2);
    if (il->swizzle && (nown > 1 || (nown == 1 && strcmp(own[0], "m") != 0)))
        return ly_fail(c, "the tile of swizzle %s must map onto the memory axis m only",
                       ly_str(c, l));
    return true;
}

static bool int_admits(LyCtx *c, const IrLayout *l, const IntLayout *il, const int64_t *shape,
                       int ndim, int64_t *count)
{
    *count = 1;
    for (int d = 0; d < ndim; d++)
        if (shape[d] < 0 || !mul_capped(*count, shape[d], (int64_t)1 << 62, count))
            return not_admitted(c, l, ly_int_shape_str(c, shape, ndim), "bad extent");
    if (*count == il->size)
        return true;
    if (ly_is_bare_swizzle(l) && *count > 0 && *count % ly_swizzle_period(l) == 0)
        return true;
    IrExpr **sh = TX_NEW_ARRAY(c->arena, IrExpr *, ndim + 1);
    for (int d = 0; d < ndim; d++)
        sh[d] = ar_index_int(c->arena, shape[d]);
    return ly_admits(c, l, sh, ndim); /* reports */
}

/* Lexicographic order of rows of width w. */
static int row_cmp(const int64_t *a, const int64_t *b, int w)
{
    for (int i = 0; i < w; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* Bottom-up merge sort of n rows of width w; tmp holds n*w values. */
static void sort_rows(int64_t *v, int64_t *tmp, int64_t n, int w)
{
    for (int64_t run = 1; run < n; run *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * run) {
            int64_t mid = lo + run < n ? lo + run : n, hi = lo + 2 * run < n ? lo + 2 * run : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid || j < hi) {
                bool left = j >= hi || (i < mid && row_cmp(v + i * w, v + j * w, w) <= 0);
                memcpy(tmp + k++ * w, v + (left ? i++ : j++) * w, sizeof(int64_t) * (size_t)w);
            }
        }
        memcpy(v, tmp, sizeof(int64_t) * (size_t)(n * w));
    }
}

/* The points of position pos into vals (points x naxes), sorted; tmp is scratch
 * of the same size. */
static void int_apply(const IntLayout *il, int64_t pos, int64_t *vals, int64_t *tmp)
{
    int w = il->naxes;
    int64_t *base = tmp; /* the representative point */
    memcpy(base, il->offset, sizeof(int64_t) * (size_t)w);
    for (int i = il->nshard - 1; i >= 0; i--) {
        int64_t digit = i > 0 ? pos % il->shard[i].e : pos; /* the outermost is not reduced */
        pos = i > 0 ? pos / il->shard[i].e : 0;
        base[il->shard[i].col] += digit * il->shard[i].s;
    }
    for (int64_t r = 0; r < il->points; r++) {
        int64_t *row = vals + r * w, rest = r;
        memcpy(row, base, sizeof(int64_t) * (size_t)w);
        for (int t = il->nrep - 1; t >= 0; t--) {
            row[il->rep[t].col] += (rest % il->rep[t].e) * il->rep[t].s;
            rest /= il->rep[t].e;
        }
        if (il->swizzle && il->m_col >= 0)
            row[il->m_col] = ly_swizzle(il->swizzle, row[il->m_col]);
    }
    sort_rows(vals, tmp, il->points, w);
}

bool ly_apply_pos(LyCtx *c, const IrLayout *l, const int64_t *shape, int ndim, int64_t pos,
                  LyCoords *out)
{
    int naxes = ly_axes(l, NULL, 0);
    const char **axes = TX_NEW_ARRAY(c->arena, const char *, naxes + 1);
    ly_axes(l, axes, naxes);
    IntLayout il = {0};
    int64_t count;
    if (!to_ints(c, l, axes, naxes, &il) || !int_admits(c, l, &il, shape, ndim, &count))
        return false;
    if (pos < 0 || pos >= count)
        return ly_fail(c, "position %lld is outside shape %s", (long long)pos,
                       ly_int_shape_str(c, shape, ndim));
    size_t cells = (size_t)(il.points * naxes) + 1;
    out->naxes = naxes, out->axes = axes, out->npoints = (int)il.points;
    out->vals = TX_NEW_ARRAY(c->arena, int64_t, cells);
    int_apply(&il, pos, out->vals, TX_NEW_ARRAY(c->arena, int64_t, cells));
    return true;
}

bool ly_apply_at(LyCtx *c, const IrLayout *l, const int64_t *shape, const int64_t *index, int ndim,
                 LyCoords *out)
{
    int64_t pos = 0;
    for (int d = 0; d < ndim; d++) {
        if (index[d] < 0 || index[d] >= shape[d])
            return ly_fail(c, "index %s is outside shape %s", ly_int_shape_str(c, index, ndim),
                           ly_int_shape_str(c, shape, ndim));
        if (!mul_capped(pos, shape[d], (int64_t)1 << 62, &pos))
            return not_admitted(c, l, ly_int_shape_str(c, shape, ndim), "it is too large");
        pos += index[d];
    }
    return ly_apply_pos(c, l, shape, ndim, pos, out);
}

/* ---------------------------------------------------------------- apply-equality */
static int union_axes(const IrLayout *a, const IrLayout *b, const char **out, int max)
{
    const char *la[64], *lb[64];
    int na = ly_axes(a, la, 64), nb = ly_axes(b, lb, 64), n = 0;
    na = na < 64 ? na : 64, nb = nb < 64 ? nb : 64;
    for (int i = 0; i < na && n < max; i++)
        out[n++] = la[i];
    for (int i = 0; i < nb && n < max; i++)
        if (axis_slot(out, n, lb[i]) < 0) {
            int j = n++;
            for (; j > 0 && ly_axis_order(out[j - 1], lb[i]) > 0; j--)
                out[j] = out[j - 1];
            out[j] = lb[i];
        }
    return n;
}

/* Compare every position; buffers are heap scratch sized for both layouts. */
static bool same_points(const IntLayout *ia, const IntLayout *ib, int64_t count, int w)
{
    if (ia->points != ib->points)
        return false;
    size_t cells = (size_t)(ia->points * w) + 1;
    int64_t *va = malloc(sizeof(int64_t) * cells * 3), *vb = va + cells, *tmp = vb + cells;
    bool same = va != NULL;
    for (int64_t p = 0; same && p < count; p++) {
        int_apply(ia, p, va, tmp);
        int_apply(ib, p, vb, tmp);
        same = memcmp(va, vb, sizeof(int64_t) * (size_t)(ia->points * w)) == 0;
    }
    free(va);
    return same;
}

bool ly_apply_equal(LyCtx *c, const IrLayout *a, const IrLayout *b, const int64_t *shape, int ndim)
{
    const char *axes[128];
    int w = union_axes(a, b, axes, 128);
    IntLayout ia = {0}, ib = {0};
    int64_t ca, cb;
    if (!to_ints(c, a, axes, w, &ia) || !to_ints(c, b, axes, w, &ib) ||
        !int_admits(c, a, &ia, shape, ndim, &ca) || !int_admits(c, b, &ib, shape, ndim, &cb))
        return false;
    if (ca > ((int64_t)1 << 20))
        return ly_fail(c, "shape %s is too large to compare exhaustively",
                       ly_int_shape_str(c, shape, ndim));
    return same_points(&ia, &ib, ca, w);
}
