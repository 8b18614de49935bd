/* Tensor-memory operands of the tcgen05 variants (tmem.c): a TMEM region's
 * layout sliced out of its buffer, its origin (a lane and a column, possibly
 * symbolic: a pipeline stage's columns) split off, the TMEM coordinates of
 * each element of the rest, and the 32-bit TMEM address of a point. TCol
 * counts elements of the buffer's dtype (two 16-bit elements share a 32-bit
 * column), as the reference's TMEM layouts do. Prefix: op_tmem_. */
#ifndef TX_OP_TMEM_H
#define TX_OP_TMEM_H

#include "op.h"

typedef struct OpTmemRegion {
    OpRegion r;
    const char *name;
    int ndim;                    /* non-unit dimensions */
    int64_t ext[OP_MAX_DIMS];    /* their extents, outermost first */
    int dim[OP_MAX_DIMS];        /* and their buffer dimensions */
    IrLayout *tile;              /* the region's layout, origin at 0 */
    IrExpr *lane, *col;          /* the origin: TLane, TCol (elements) */
    int per_col;                 /* elements per 32-bit column */
} OpTmemRegion;

/* Argument arg as a TMEM region with a layout on TLane/TCol, starting on a
 * 32-bit column. */
const char *op_tmem_read(OpCtx *c, int arg, OpTmemRegion *t);
/* The same, starting anywhere in a column (a block-scaled MMA's scale
 * factors: the instruction descriptor names their byte). */
const char *op_tmem_read_bytes(OpCtx *c, int arg, OpTmemRegion *t);
/* The lane and column (elements) from the origin of the element at idx (one
 * index per non-unit dimension); false when the layout does not place it at
 * one TMEM point. */
bool op_tmem_at(OpCtx *c, const OpTmemRegion *t, const int64_t *idx, int64_t *lane, int64_t *col);
/* The same with one index per dimension of the region (unit ones included). */
bool op_tmem_at_full(OpCtx *c, const OpTmemRegion *t, const int64_t *full, int64_t *lane,
                     int64_t *col);
/* The 32-bit TMEM address (lane << 16 | column) of the point `lane` lanes and
 * `col32` 32-bit columns from the region's origin. */
IrExpr *op_tmem_addr(OpCtx *c, const OpTmemRegion *t, IrExpr *lane, int64_t col32);
/* The address of the column holding the element `col` elements from the
 * origin (which may start inside a column). */
IrExpr *op_tmem_addr_of(OpCtx *c, const OpTmemRegion *t, IrExpr *lane, int64_t col);

#endif
