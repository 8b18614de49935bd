/* Layout algebra: common refinement of several shapes (group_many), group
 * permutation, slicing a sub-region, tiling, direct sum, and pack/unpack for
 * element-type views. Every operation works on the tile of a ComposeLayout
 * and re-wraps the swizzle; a bare swizzle stands for the identity over the
 * shape it is used with. */
#include <string.h>

#include "internal.h"

/* The tile to regroup by `shape`: a bare swizzle used over a multiple of its
 * period is the identity over that shape. */
static const IrLayout *tile_for_shape(LyCtx *c, const IrLayout *l, IrExpr *const *shape, int ndim)
{
    IrExpr *count = ly_shape_count(c, shape, ndim);
    if (ly_is_bare_swizzle(l) && !ar_expr_value_equal(count, ly_size(c, l, NULL)))
        return ly_identity(c, count);
    return ly_tile_of(l);
}

/* ---------------------------------------------------------------- group_many */
/* Cumulative boundaries 1, e0, e0*e1, ... of positive extents; NULL when an
 * extent is not positive or the product grows past 2^40. */
static int64_t *boundaries(LyCtx *c, const int64_t *ext, int n)
{
    int64_t *b = TX_NEW_ARRAY(c->arena, int64_t, n + 1);
    b[0] = 1;
    for (int i = 0; i < n; i++) {
        if (ext[i] < 1 || ext[i] > ((int64_t)1 << 40) / b[i])
            return NULL;
        b[i + 1] = b[i] * ext[i];
    }
    return b;
}

typedef struct Refinement {
    int nvals;
    int64_t *vals;  /* distinct boundary values, ascending */
    int *start;     /* first position of each value in the common sequence */
    int *mult;      /* how often it repeats there */
    int64_t *common;
    int ncommon;
} Refinement;

static int value_index(const Refinement *r, int64_t v)
{
    for (int i = 0; i < r->nvals; i++)
        if (r->vals[i] == v)
            return i;
    return -1;
}

/* Positions of a sequence's boundaries in the common sequence: repeated
 * values take successive slots, the first and last pin to the ends. */
static bool positions(LyCtx *c, const Refinement *r, const int64_t *seq, int n, int *pos)
{
    int *seen = TX_NEW_ARRAY(c->arena, int, r->nvals);
    for (int j = 0; j < n; j++) {
        int k = value_index(r, seq[j]);
        pos[j] = j == 0 ? r->start[k] : j == n - 1 ? r->start[k] + r->mult[k] - 1
                                                   : r->start[k] + seen[k];
        seen[k]++;
        if (j > 0 && pos[j] <= pos[j - 1])
            return ly_fail(c, "group_many could not preserve repeated boundary %lld",
                           (long long)seq[j]);
    }
    return true;
}

static void count_values(LyCtx *c, Refinement *r, int64_t *const *seqs, const int *len, int nseq)
{
    int cap = 0;
    for (int s = 0; s < nseq; s++)
        cap += len[s];
    r->vals = TX_NEW_ARRAY(c->arena, int64_t, cap);
    r->mult = TX_NEW_ARRAY(c->arena, int, cap);
    r->start = TX_NEW_ARRAY(c->arena, int, cap);
    int *count = TX_NEW_ARRAY(c->arena, int, cap);
    for (int s = 0; s < nseq; s++) {
        memset(count, 0, sizeof(int) * (size_t)cap);
        for (int j = 0; j < len[s]; j++) {
            int k = value_index(r, seqs[s][j]);
            if (k < 0) { /* insert in ascending order */
                for (k = r->nvals; k > 0 && r->vals[k - 1] > seqs[s][j]; k--)
                    r->vals[k] = r->vals[k - 1], r->mult[k] = r->mult[k - 1], count[k] = count[k - 1];
                r->vals[k] = seqs[s][j], r->mult[k] = 0, count[k] = 0;
                r->nvals++;
            }
            if (++count[k] > r->mult[k])
                r->mult[k] = count[k];
        }
    }
    r->common = TX_NEW_ARRAY(c->arena, int64_t, cap * nseq + 1);
    for (int k = 0; k < r->nvals; k++) {
        r->start[k] = r->ncommon;
        for (int m = 0; m < r->mult[k]; m++)
            r->common[r->ncommon++] = r->vals[k];
    }
}

/* The boundary sequences of every shape and, last, of the layout's extents;
 * they must all end at the same element count. */
static bool boundary_sequences(LyCtx *c, const IrLayout *l, const int64_t *const *shapes,
                               const int *nd, int nshapes, int64_t **seqs, int *len)
{
    const IrLayout *t = ly_tile_of(l);
    int64_t *ext = TX_NEW_ARRAY(c->arena, int64_t, t->nshard + 1);
    for (int i = 0; i < t->nshard; i++)
        if (!ar_const_int(t->shard[i].extent, &ext[i]))
            return ly_fail(c, "group_many needs constant extents: %s", ly_str(c, l));
    for (int s = 0; s <= nshapes; s++) {
        const int64_t *e = s < nshapes ? shapes[s] : ext;
        len[s] = (s < nshapes ? nd[s] : t->nshard) + 1;
        if (!(seqs[s] = boundaries(c, e, len[s] - 1)))
            return ly_fail(c, "group_many needs positive extents: %s",
                           s < nshapes ? ly_int_shape_str(c, e, nd[s]) : ly_str(c, l));
    }
    int64_t total = seqs[nshapes][len[nshapes] - 1];
    for (int s = 0; s < nshapes; s++)
        if (seqs[s][len[s] - 1] != total)
            return ly_fail(c, "group_many: shape %s has %lld elements, layout %s has %lld",
                           ly_int_shape_str(c, shapes[s], nd[s]), (long long)seqs[s][len[s] - 1],
                           ly_str(c, l), (long long)total);
    return true;
}

/* Each layout iter split at the common boundaries it spans. */
static IrLayout *refined(LyCtx *c, const IrLayout *l, const Refinement *r, const int *lpos)
{
    const IrLayout *t = ly_tile_of(l);
    LyBuild b = {0};
    for (int i = 0; i < t->nshard; i++)
        for (int p = lpos[i]; p < lpos[i + 1]; p++) {
            int64_t inner = r->common[lpos[i + 1]] / r->common[p + 1];
            lyb_shard(c, &b, ly_iter(ar_index_int(c->arena, r->common[p + 1] / r->common[p]),
                                     ar_mul(c->arena, t->shard[i].stride, ar_index_int(c->arena, inner)),
                                     t->shard[i].axis));
        }
    lyb_replicas(c, &b, t->replica, t->nreplica);
    lyb_offsets(c, &b, t->offset, t->noffset);
    return ly_rewrap(c, l, lyb_finish(c, &b));
}

IrLayout *ly_group_many(LyCtx *c, const IrLayout *l, const int64_t *const *shapes, const int *nd,
                        int nshapes, int **seps)
{
    int64_t **seqs = TX_NEW_ARRAY(c->arena, int64_t *, nshapes + 1);
    int *len = TX_NEW_ARRAY(c->arena, int, nshapes + 1);
    if (!boundary_sequences(c, l, shapes, nd, nshapes, seqs, len))
        return NULL;
    Refinement r = {0};
    count_values(c, &r, seqs, len, nshapes + 1);
    for (int i = 1; i < r.ncommon; i++)
        if (r.common[i] % r.common[i - 1] != 0) {
            ly_fail(c, "group_many has incompatible cumulative boundaries: %lld does not divide "
                       "%lld", (long long)r.common[i - 1], (long long)r.common[i]);
            return NULL;
        }
    int *lpos = TX_NEW_ARRAY(c->arena, int, len[nshapes]);
    if (!positions(c, &r, seqs[nshapes], len[nshapes], lpos))
        return NULL;
    for (int s = 0; s < nshapes; s++)
        if (!positions(c, &r, seqs[s], len[s], seps[s]))
            return NULL;
    return refined(c, l, &r, lpos);
}

/* ---------------------------------------------------------------- permute */
IrLayout *ly_permute_by_groups(LyCtx *c, const IrLayout *l, const int *seps, int ngroups,
                               const int *perm)
{
    const IrLayout *t = ly_tile_of(l);
    unsigned char *used = TX_NEW_ARRAY(c->arena, unsigned char, ngroups + 1);
    for (int k = 0; k < ngroups; k++) {
        if (perm[k] < 0 || perm[k] >= ngroups || used[perm[k]]) {
            ly_fail(c, "permute: the order is not a permutation of %d groups", ngroups);
            return NULL;
        }
        used[perm[k]] = 1;
    }
    if (seps[0] != 0 || seps[ngroups] != t->nshard) {
        ly_fail(c, "permute: the groups do not cover the %d iters of %s", t->nshard, ly_str(c, l));
        return NULL;
    }
    LyBuild b = {0};
    for (int k = 0; k < ngroups; k++)
        lyb_shards(c, &b, t->shard + seps[perm[k]], seps[perm[k] + 1] - seps[perm[k]]);
    lyb_replicas(c, &b, t->replica, t->nreplica);
    lyb_offsets(c, &b, t->offset, t->noffset);
    return ly_rewrap(c, l, lyb_finish(c, &b));
}

/* ---------------------------------------------------------------- slice */
static bool provably_le(LyCtx *c, IrExpr *a, IrExpr *b) /* a <= b */
{
    return ar_expr_value_equal(a, b) || ar_less(NULL, a, ar_add(c->arena, b, ar_index_int_like(c->arena, b, 1)));
}

/* x is known to be a multiple of n, also through the caller's lets. */
static bool known_multiple_of(LyCtx *c, IrExpr *x, IrExpr *n)
{
    int64_t k;
    if (!ar_const_int(n, &k))
        return ar_divisible(x, n);
    return k && ar_known_multiple(c->multiples, x) % k == 0;
}

/* Whether n elements from digit d (0 <= d < extent) of an iter stay inside
 * it: provably, or because d and the extent are both multiples of n (an
 * aligned chunk, such as 16 bytes at a run-time multiple of 16 bytes inside
 * a 128-byte swizzle row, never straddles the iter's end). */
static bool fits_in_iter(LyCtx *c, IrExpr *d, IrExpr *n, IrExpr *extent)
{
    return provably_le(c, ar_add(c->arena, d, n), extent) ||
           (ar_divisible(extent, n) && known_multiple_of(c, d, n));
}

/* The region of n elements from start digit d of iter p when it wraps once
 * into the next digit of iter p-1: two runs of n/2, the second starting
 * stride(p-1) - (E_p - n/2)*stride(p) after the first. */
static bool wrap_once(LyCtx *c, const IrIter *g, int p, IrExpr **digit, IrExpr *n, LyBuild *out)
{
    IrExpr *half = ar_floordiv(c->arena, n, ar_index_int_like(c->arena, n, 2));
    bool wraps = ar_divisible(n, ar_index_int_like(c->arena, n, 2)) &&
                 ar_expr_value_equal(ar_add(c->arena, digit[p], half), g[p].extent) &&
                 (p == 0 || (provably_le(c, ar_add(c->arena, digit[p - 1], ar_index_int(c->arena, 1)), g[p - 1].extent) &&
                             strcmp(g[p - 1].axis, g[p].axis) == 0));
    if (!wraps)
        return false;
    IrExpr *outer_stride = p > 0 ? g[p - 1].stride : ar_index_int(c->arena, 0);
    IrExpr *delta = ar_sub(c->arena, outer_stride, ar_mul(c->arena, ar_sub(c->arena, g[p].extent, half), g[p].stride));
    lyb_shard(c, out, ly_iter(ar_index_int_like(c->arena, n, 2), delta, g[p].axis));
    lyb_shard(c, out, ly_iter(half, g[p].stride, g[p].axis));
    return true;
}

/* Slice [begin, begin+n) of one group (canonical, outermost first): the start
 * digits go to the offsets; the region is the innermost iters it covers whole,
 * under one partial iter, or two runs when it wraps once into the next outer
 * digit. False when the region is not such a layout. The outermost digit has
 * nothing to wrap into: a region inside the shape (the caller's contract, as
 * for a one-iter group) fits in it, so a run-time start whose inner digits
 * are known 0 (a start such as 64 * k or 64 * k + 128 * j over 64-element
 * slabs, also held in a let: ar_known_multiple) slices. */
static bool slice_group(LyCtx *c, const IrIter *g, int m, IrExpr *begin, IrExpr *n, LyBuild *out)
{
    IrExpr **digit = TX_NEW_ARRAY(c->arena, IrExpr *, m);
    IrExpr *inner = ar_index_int(c->arena, 1);
    for (int k = m - 1; k >= 0; k--) {
        IrExpr *q = ar_floordiv(c->arena, begin, inner);
        digit[k] = k == 0 ? q : ar_floormod(c->arena, q, g[k].extent); /* in the shape: q < E_0 */
        /* known 0: `row // 32 % 4` with row = x * 128, a let's value */
        if (!ar_known_multiple(c->multiples, digit[k]))
            digit[k] = ar_index_int_like(c->arena, digit[k], 0);
        lyb_offset(c, out, g[k].axis, ar_mul(c->arena, digit[k], g[k].stride));
        inner = ar_mul(c->arena, inner, g[k].extent);
    }
    if (m == 1) {
        lyb_shard(c, out, ly_iter(n, g[0].stride, g[0].axis));
        return true;
    }
    int p = m - 1;
    for (; p >= 0 && ar_is_const(digit[p], 0) && ar_divisible(n, g[p].extent); p--)
        n = ar_floordiv(c->arena, n, g[p].extent);
    if (p < 0 && !ar_is_const(n, 1))
        return false;
    if (p == 0 || (p > 0 && fits_in_iter(c, digit[p], n, g[p].extent)))
        lyb_shard(c, out, ly_iter(n, g[p].stride, g[p].axis));
    else if (p >= 0 && !wrap_once(c, g, p, digit, n, out))
        return false;
    lyb_shards(c, out, g + p + 1, m - p - 1);
    return true;
}

static bool region_in_bounds(LyCtx *c, IrExpr *const *shape, IrExpr *const *begin,
                             IrExpr *const *extent, int ndim)
{
    for (int d = 0; d < ndim; d++) {
        int64_t s, b, e;
        if (ar_const_int(extent[d], &e) && e < 1)
            return ly_fail(c, "slice: dim %d has extent %lld; a region needs at least one element",
                           d, (long long)e);
        if (ar_const_int(shape[d], &s) && ar_const_int(begin[d], &b) && ar_const_int(extent[d], &e) &&
            (b < 0 || b > s || e > s - b))
            return ly_fail(c, "slice: the region at %lld of extent %lld is outside dim %d of "
                              "shape %s", (long long)b, (long long)e, d,
                           ly_shape_str(c, shape, ndim));
    }
    return true;
}

/* One group of the grouped layout, canonicalized on its own. */
static IrLayout *canonical_group(LyCtx *c, const IrLayout *g, int from, int to, LyTarget target)
{
    IrLayout *one = ly_tile(c, g->shard + from, to - from, NULL, 0, NULL, 0);
    return ly_canonicalize(c, one, target);
}

IrLayout *ly_slice(LyCtx *c, const IrLayout *l, IrExpr *const *shape, IrExpr *const *begin,
                   IrExpr *const *extent, int ndim, LyTarget target)
{
    if (!ly_admits(c, l, shape, ndim) || !region_in_bounds(c, shape, begin, extent, ndim))
        return NULL;
    IrLayout *canon = ly_canonicalize(c, tile_for_shape(c, l, shape, ndim), target);
    int *seps = TX_NEW_ARRAY(c->arena, int, ndim + 1);
    IrLayout *g = canon ? ly_group(c, canon, shape, ndim, seps) : NULL;
    if (!g)
        return NULL;
    LyBuild b = {0};
    lyb_offsets(c, &b, g->offset, g->noffset); /* the base offset is kept */
    for (int d = 0; d < ndim; d++) {
        IrLayout *grp = canonical_group(c, g, seps[d], seps[d + 1], target);
        /* a dim of extent 1 is in bounds only at 0: an index there (`A[s, c]`
         * with `c` in range(1)) moves nothing */
        IrExpr *at = ar_is_const(shape[d], 1) ? ar_index_int(c->arena, 0) : begin[d];
        if (!grp || !slice_group(c, grp->shard, grp->nshard, at, extent[d], &b)) {
            ly_fail(c, "the region starting at %s with extents %s of shape %s is not a layout "
                       "of %s", ly_shape_str(c, begin, ndim), ly_shape_str(c, extent, ndim),
                    ly_shape_str(c, shape, ndim), ly_str(c, l));
            return NULL;
        }
    }
    lyb_replicas(c, &b, g->replica, g->nreplica);
    return ly_rewrap(c, l, lyb_finish(c, &b));
}

/* ---------------------------------------------------------------- tile, direct sum */
/* Both operands grouped by their shapes, then interleaved per dim:
 * [first group d] ++ [second group d]. Replicas concatenate, offsets add. */
typedef struct Pair {
    IrLayout *first, *second;
    int *sep1, *sep2;
} Pair;

static bool group_pair(LyCtx *c, Pair *p, const IrLayout *first, IrExpr *const *shape1,
                       const IrLayout *second, IrExpr *const *shape2, int ndim, LyTarget target)
{
    p->sep1 = TX_NEW_ARRAY(c->arena, int, ndim + 1);
    p->sep2 = TX_NEW_ARRAY(c->arena, int, ndim + 1);
    IrLayout *c1 = ly_canonicalize(c, first, target);
    p->first = c1 ? ly_group(c, c1, shape1, ndim, p->sep1) : NULL;
    IrLayout *c2 = p->first ? ly_canonicalize(c, second, target) : NULL;
    p->second = c2 ? ly_group(c, c2, shape2, ndim, p->sep2) : NULL;
    return p->second != NULL;
}

static IrLayout *interleave(LyCtx *c, const Pair *p, int ndim, LyTarget target)
{
    LyBuild b = {0};
    for (int d = 0; d < ndim; d++) {
        lyb_shards(c, &b, p->first->shard + p->sep1[d], p->sep1[d + 1] - p->sep1[d]);
        lyb_shards(c, &b, p->second->shard + p->sep2[d], p->sep2[d + 1] - p->sep2[d]);
    }
    lyb_replicas(c, &b, p->second->replica, p->second->nreplica);
    lyb_replicas(c, &b, p->first->replica, p->first->nreplica);
    lyb_offsets(c, &b, p->second->offset, p->second->noffset);
    lyb_offsets(c, &b, p->first->offset, p->first->noffset);
    return ly_canonicalize(c, lyb_finish(c, &b), target);
}

static bool tile_operand(LyCtx *c, const IrLayout *outer)
{
    return outer->kind == IR_LAYOUT_TILE || ly_fail(c, "the outer layout of a tiling must be a "
                                                       "TileLayout, not %s", ly_str(c, outer));
}

IrLayout *ly_tile_by(LyCtx *c, const IrLayout *inner, const IrLayout *outer,
                     IrExpr *const *outer_shape, IrExpr *const *inner_shape, int ndim,
                     LyTarget target)
{
    Pair p;
    if (!tile_operand(c, outer) ||
        !group_pair(c, &p, outer, outer_shape, tile_for_shape(c, inner, inner_shape, ndim),
                    inner_shape, ndim, target))
        return NULL;
    /* the outer strides step over whole inner tiles on the axes the inner shard uses */
    for (int i = 0; i < p.first->nshard; i++) {
        IrIter *it = &p.first->shard[i];
        for (int j = 0; j < p.second->nshard; j++)
            if (strcmp(p.second->shard[j].axis, it->axis) == 0) {
                it->stride = ar_mul(c->arena, it->stride, ly_span(c, p.second, it->axis));
                break;
            }
    }
    return ly_rewrap(c, inner, interleave(c, &p, ndim, target));
}

IrLayout *ly_tile_to(LyCtx *c, const IrLayout *l, IrExpr *const *to_shape, IrExpr *const *cur_shape,
                     int ndim, LyTarget target)
{
    IrExpr **factor = TX_NEW_ARRAY(c->arena, IrExpr *, ndim + 1);
    for (int d = 0; d < ndim; d++) {
        if (!ar_divisible(to_shape[d], cur_shape[d])) {
            ly_fail(c, "tile_to: shape %s is not a whole multiple of %s",
                    ly_shape_str(c, to_shape, ndim), ly_shape_str(c, cur_shape, ndim));
            return NULL;
        }
        factor[d] = ar_floordiv(c->arena, to_shape[d], cur_shape[d]);
    }
    return ly_tile_by(c, l, ly_row_major(c, factor, ndim), factor, cur_shape, ndim, target);
}

IrLayout *ly_direct_sum(LyCtx *c, const IrLayout *right, const IrLayout *left,
                        IrExpr *const *left_shape, IrExpr *const *right_shape, int ndim,
                        LyTarget target)
{
    Pair p;
    if (!tile_operand(c, left) ||
        !group_pair(c, &p, left, left_shape, tile_for_shape(c, right, right_shape, ndim),
                    right_shape, ndim, target))
        return NULL;
    return ly_rewrap(c, right, interleave(c, &p, ndim, target));
}

/* ---------------------------------------------------------------- pack / unpack */
static int log2_exact(int64_t n) /* k with 2^k == n, or -1 */
{
    for (int k = 0; k < 62; k++)
        if (((int64_t)1 << k) == n)
            return k;
    return -1;
}

static IrIter scaled(LyCtx *c, IrIter it, const char *axis, IrExpr *n)
{
    return strcmp(it.axis, axis) == 0 ? ly_iter(it.extent, ar_mul(c->arena, it.stride, n), it.axis) : it;
}

static IrLayout *rewrap_per_element(LyCtx *c, const IrLayout *l, IrLayout *tile, int delta)
{
    if (!tile || l->kind != IR_LAYOUT_COMPOSE)
        return tile;
    return ly_compose(c, l->per_element + delta, l->swizzle_len, l->atom_len, l->swizzle_inner,
                      tile);
}

static bool swizzle_scalable(LyCtx *c, const IrLayout *l, int64_t n, bool pack)
{
    if (n < 1)
        return ly_fail(c, "%s needs a positive factor, got %lld", pack ? "pack" : "unpack",
                       (long long)n);
    if (!ly_valid_swizzle(c, l))
        return false;
    if (l->kind != IR_LAYOUT_COMPOSE)
        return true;
    int k = log2_exact(n);
    if (k < 0)
        return ly_fail(c, "a swizzled layout can only change element width by a power of two, "
                          "not %lld", (long long)n);
    if (pack && l->per_element < k)
        return ly_fail(c, "%s cannot be packed by %lld: its swizzle acts on %lld-element units",
                       ly_str(c, l), (long long)n, (long long)1 << l->per_element);
    return true;
}

IrLayout *ly_unpack(LyCtx *c, const IrLayout *l, int64_t n, const char *axis)
{
    axis = axis ? axis : "m";
    if (!swizzle_scalable(c, l, n, false))
        return NULL;
    const IrLayout *t = ly_tile_of(l);
    IrExpr *f = ar_index_int(c->arena, n);
    LyBuild b = {0};
    for (int i = 0; i < t->nshard; i++)
        lyb_shard(c, &b, scaled(c, t->shard[i], axis, f));
    lyb_shard(c, &b, ly_iter(f, ar_index_int(c->arena, 1), axis));
    for (int i = 0; i < t->nreplica; i++)
        lyb_replica(c, &b, scaled(c, t->replica[i], axis, f));
    for (int i = 0; i < t->noffset; i++)
        lyb_offset(c, &b, t->offset[i].axis, strcmp(t->offset[i].axis, axis) == 0
                                                 ? ar_mul(c->arena, t->offset[i].value, f)
                                                 : t->offset[i].value);
    return rewrap_per_element(c, l, lyb_finish(c, &b), log2_exact(n) > 0 ? log2_exact(n) : 0);
}

/* One iter of a packed layout: a stride on `axis` divided by f (exactly,
 * unless the iter is a unit one, whose stride never matters). */
static bool packed(LyCtx *c, const IrLayout *l, IrIter *it, const char *axis, IrExpr *f)
{
    if (strcmp(it->axis, axis) != 0)
        return true;
    if (!ar_is_const(it->extent, 1) && !ar_divisible(it->stride, f))
        return ly_fail(c, "%s cannot be packed by %s: stride %s is not divisible", ly_str(c, l),
                       ly_expr_str(c, f), ly_expr_str(c, it->stride));
    it->stride = ar_floordiv(c->arena, it->stride, f);
    return true;
}

static bool packable(LyCtx *c, const IrLayout *t, const IrLayout *l, int64_t n, const char *axis)
{
    const IrIter *last = t->nshard ? &t->shard[t->nshard - 1] : NULL;
    if (last && strcmp(last->axis, axis) == 0 && ar_is_const(last->stride, 1) &&
        ar_divisible(last->extent, ar_index_int(c->arena, n)))
        return true;
    return ly_fail(c, "%s cannot be packed by %lld: its innermost iter must be a stride-1 run "
                      "on %s whose extent is a multiple of %lld", ly_str(c, l), (long long)n, axis,
                   (long long)n);
}

IrLayout *ly_pack(LyCtx *c, const IrLayout *l, int64_t n, const char *axis)
{
    axis = axis ? axis : "m";
    const IrLayout *t = ly_tile_of(l);
    if (!swizzle_scalable(c, l, n, true) || !packable(c, t, l, n, axis))
        return NULL;
    IrExpr *f = ar_index_int(c->arena, n);
    LyBuild b = {0};
    lyb_shards(c, &b, t->shard, t->nshard);
    lyb_replicas(c, &b, t->replica, t->nreplica);
    IrIter *last = &b.shard[b.nshard - 1];
    *last = ly_iter(ar_floordiv(c->arena, last->extent, f), last->stride, axis);
    for (int i = 0; i + 1 < b.nshard; i++)
        if (!packed(c, l, &b.shard[i], axis, f))
            return NULL;
    for (int i = 0; i < b.nreplica; i++)
        if (!packed(c, l, &b.replica[i], axis, f))
            return NULL;
    for (int i = 0; i < t->noffset; i++) {
        IrAxisOffset o = t->offset[i];
        if (strcmp(o.axis, axis) == 0 && !ar_divisible(o.value, f)) {
            ly_fail(c, "%s cannot be packed by %lld: offset %s is not divisible", ly_str(c, l),
                    (long long)n, ly_expr_str(c, o.value));
            return NULL;
        }
        lyb_offset(c, &b, o.axis, strcmp(o.axis, axis) == 0 ? ar_floordiv(c->arena, o.value, f) : o.value);
    }
    return rewrap_per_element(c, l, lyb_finish(c, &b), -log2_exact(n));
}

/* The axis element widths change along: the innermost memory axis. */
static const char *storage_axis(const IrLayout *l)
{
    const IrLayout *t = ly_tile_of(l);
    if (t->nshard && ly_axis_kind(t->shard[t->nshard - 1].axis) == LY_MEMORY)
        return t->shard[t->nshard - 1].axis;
    return "m";
}

IrLayout *ly_retype(LyCtx *c, const IrLayout *l, int64_t from_bits, int64_t to_bits)
{
    const char *axis = storage_axis(l);
    return to_bits > from_bits ? ly_pack(c, l, to_bits / from_bits, axis)
                               : ly_unpack(c, l, from_bits / to_bits, axis);
}
