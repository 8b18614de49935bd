/* Canonical form and structural equality of layouts. Canonicalization, in
 * order: drop unit shard iters and zero offsets; fuse thread axes onto the
 * widest axis of the layout's scope pair (only for an explicit target); fuse
 * adjacent same-axis iters whose outer stride is extent*stride of the inner;
 * sort the replica, which is a multiset. It never reorders shard iters. */
#include <string.h>

#include "internal.h"

/* Unit shard iters (one kept when all are), zero offsets. */
static void drop_units(LyCtx *c, const IrLayout *t, LyBuild *b)
{
    for (int i = 0; i < t->nshard; i++)
        if (!ar_is_const(t->shard[i].extent, 1))
            lyb_shard(c, b, t->shard[i]);
    if (b->nshard == 0 && t->nshard > 0)
        lyb_shard(c, b, ly_iter(ar_index_int(c->arena, 1), ar_index_int(c->arena, 1), t->shard[0].axis));
    lyb_replicas(c, b, t->replica, t->nreplica);
    for (int i = 0; i < t->noffset; i++)
        if (!ar_is_const(t->offset[i].value, 0))
            lyb_offset(c, b, t->offset[i].axis, t->offset[i].value);
}

static IrIter fused(LyCtx *c, IrIter it, IrScope inner, IrScope outer)
{
    IrIter out;
    return ly_axis_fuse(c, it, inner, outer, &out) ? out : it;
}

/* Fusion of thread axes for the target; offsets fuse as iters (1, off) and
 * the ones fused onto one axis add up. */
static void fuse_axes(LyCtx *c, LyBuild *b, IrScope inner, IrScope outer)
{
    for (int i = 0; i < b->nshard; i++)
        b->shard[i] = fused(c, b->shard[i], inner, outer);
    for (int i = 0; i < b->nreplica; i++)
        b->replica[i] = fused(c, b->replica[i], inner, outer);
    int n = b->noffset;
    IrAxisOffset *offs = b->offset;
    b->offset = NULL, b->noffset = b->cap_offset = 0;
    for (int i = 0; i < n; i++) {
        IrIter it = fused(c, ly_iter(ar_index_int(c->arena, 1), offs[i].value, offs[i].axis), inner, outer);
        lyb_offset(c, b, it.axis, it.stride);
    }
}

static void fuse_contiguous(LyCtx *c, LyBuild *b)
{
    int n = 0;
    for (int i = 0; i < b->nshard; i++) {
        IrIter it = b->shard[i];
        IrIter *prev = n ? &b->shard[n - 1] : NULL;
        if (prev && strcmp(prev->axis, it.axis) == 0 &&
            ar_expr_value_equal(ar_mul(c->arena, it.extent, it.stride), prev->stride)) {
            *prev = ly_iter(ar_mul(c->arena, prev->extent, it.extent), it.stride, it.axis);
            continue;
        }
        b->shard[n++] = it;
    }
    b->nshard = n;
}

static int iter_cmp(const IrIter *a, const IrIter *b)
{
    int r = ly_axis_order(a->axis, b->axis);
    if (!r)
        r = ar_expr_compare(a->extent, b->extent);
    return r ? r : ar_expr_compare(a->stride, b->stride);
}

static void sort_replica(LyBuild *b)
{
    for (int i = 1; i < b->nreplica; i++)
        for (int j = i; j > 0 && iter_cmp(&b->replica[j - 1], &b->replica[j]) > 0; j--) {
            IrIter t = b->replica[j];
            b->replica[j] = b->replica[j - 1], b->replica[j - 1] = t;
        }
}

IrLayout *ly_canonicalize(LyCtx *c, const IrLayout *l, LyTarget target)
{
    LyBuild b = {0};
    drop_units(c, ly_tile_of(l), &b);
    IrLayout *reduced = lyb_finish(c, &b); /* the scope is that of the layout without unit iters */
    IrScope inner = IR_SCOPE_THREAD, outer = IR_SCOPE_CTA;
    c->err = NULL;
    bool scoped = ly_scope(c, reduced, &inner, &outer);
    if (!scoped && c->err)
        return NULL;
    if (scoped && target == LY_TARGET_CUDA)
        fuse_axes(c, &b, inner, outer);
    fuse_contiguous(c, &b);
    sort_replica(&b);
    return ly_rewrap(c, l, lyb_finish(c, &b));
}

/* ---------------------------------------------------------------- equality */
static bool iters_equal(const IrIter *a, const IrIter *b, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(a[i].axis, b[i].axis) != 0 || !ar_expr_value_equal(a[i].extent, b[i].extent) ||
            !ar_expr_value_equal(a[i].stride, b[i].stride))
            return false;
    return true;
}

static bool tiles_equal(const IrLayout *a, const IrLayout *b)
{
    if (a->nshard != b->nshard || a->nreplica != b->nreplica || a->noffset != b->noffset)
        return false;
    if (!iters_equal(a->shard, b->shard, a->nshard) ||
        !iters_equal(a->replica, b->replica, a->nreplica))
        return false;
    for (int i = 0; i < a->noffset; i++)
        if (strcmp(a->offset[i].axis, b->offset[i].axis) != 0 ||
            !ar_expr_value_equal(a->offset[i].value, b->offset[i].value))
            return false;
    return true;
}

bool ly_equal(LyCtx *c, const IrLayout *a, const IrLayout *b, LyTarget target)
{
    IrLayout *ca = ly_canonicalize(c, a, target);
    IrLayout *cb = ca ? ly_canonicalize(c, b, target) : NULL;
    if (!cb || ca->kind != cb->kind)
        return false;
    if (ca->kind == IR_LAYOUT_COMPOSE &&
        (ca->per_element != cb->per_element || ca->swizzle_len != cb->swizzle_len ||
         ca->atom_len != cb->atom_len ||
         (ca->swizzle_len > 0 && ca->swizzle_inner != cb->swizzle_inner)))
        return false;
    return tiles_equal(ly_tile_of(ca), ly_tile_of(cb));
}
