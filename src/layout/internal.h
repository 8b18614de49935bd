/* Private helpers of the layout library: failure messages, a layout builder
 * and the internals the layout files share. Index expressions are built and
 * folded by the arith layer's builders (ar_add, ar_mul, ...) and proofs are
 * its structural ones (ar_divisible, ar_less, ar_bound without facts).
 * Prefix: lyb_ (builder), ly_ (internals). */
#ifndef TX_LAYOUT_INTERNAL_H
#define TX_LAYOUT_INTERNAL_H

#include "../arith/arith.h"
#include "layout.h"

/* ---- failure ---- */
bool ly_fail(LyCtx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- layout builder (grows in the arena) ---- */
typedef struct LyBuild {
    IrIter *shard, *replica;
    IrAxisOffset *offset;
    int nshard, nreplica, noffset, cap_shard, cap_replica, cap_offset;
} LyBuild;
void lyb_shard(LyCtx *c, LyBuild *b, IrIter it);
void lyb_replica(LyCtx *c, LyBuild *b, IrIter it);
void lyb_offset(LyCtx *c, LyBuild *b, const char *axis, IrExpr *v); /* summed per axis */
void lyb_shards(LyCtx *c, LyBuild *b, const IrIter *its, int n);
void lyb_replicas(LyCtx *c, LyBuild *b, const IrIter *its, int n);
void lyb_offsets(LyCtx *c, LyBuild *b, const IrAxisOffset *offs, int n);
IrLayout *lyb_finish(LyCtx *c, LyBuild *b);

/* ---- shared layout internals ---- */
static inline IrIter ly_iter(IrExpr *e, IrExpr *s, const char *axis)
{
    IrIter it = {e, s, axis};
    return it;
}
/* The tile of a layout: itself, or the tile of a ComposeLayout. */
static inline const IrLayout *ly_tile_of(const IrLayout *l)
{
    return l->kind == IR_LAYOUT_COMPOSE ? l->tile : l;
}
/* The parameters of a ComposeLayout are a swizzle (true for a TileLayout). */
bool ly_valid_swizzle(LyCtx *c, const IrLayout *l);
/* Re-wrap a tile with the swizzle of `like` when `like` is a ComposeLayout. */
IrLayout *ly_rewrap(LyCtx *c, const IrLayout *like, IrLayout *tile);
/* Group without reporting: NULL when the shard cannot be grouped by shape. */
IrLayout *ly_try_group(LyCtx *c, const IrLayout *tile, IrExpr *const *shape, int ndim, int *seps);
/* The product of a shape (folded). */
IrExpr *ly_shape_count(LyCtx *c, IrExpr *const *shape, int ndim);
/* "(8, 16)" */
const char *ly_shape_str(LyCtx *c, IrExpr *const *shape, int ndim);
const char *ly_int_shape_str(LyCtx *c, const int64_t *shape, int ndim);
/* Mixed-radix digits of x over extents (outermost unreduced). */
void ly_split_coord(LyCtx *c, IrExpr *x, IrExpr *const *extents, int n, IrExpr **digits);
/* Per-axis sum of digit*stride over the shard plus the offsets (tile only). */
bool ly_tile_apply_digits(LyCtx *c, const IrLayout *tile, IrExpr *const *digits,
                          LyAxisValue **out, int *nout);
/* The swizzled m of a ComposeLayout's grouped tile at per-shard digits. */
IrExpr *ly_swizzle_apply_digits(LyCtx *c, const IrLayout *compose, const IrLayout *tile,
                                IrExpr **digits);
/* The full swizzle of an address expression: Let(m, Let(q, ...)). */
IrExpr *ly_swizzle_full(LyCtx *c, const IrLayout *compose, IrExpr *m);
/* Identity tile S[n:1] on m. */
IrLayout *ly_identity(LyCtx *c, IrExpr *n);

#endif
