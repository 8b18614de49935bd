/* The reductions sum / max / min (dst, src, axes, accum), shared by their
 * variants: which source dimensions are reduced, the output and reduction
 * counts, the identity and the combining operation, and the source and
 * destination indices of an (output, reduction) position. Prefix: op_red_. */
#ifndef TX_OP_REDUCTION_H
#define TX_OP_REDUCTION_H

#include "partition.h"

typedef struct OpReduce {
    OpRegion dst, src;
    bool reduced[OP_MAX_DIMS]; /* per source buffer dimension */
    int64_t outputs, length;   /* elements of dst, elements folded into each */
    bool accum;                /* fold the old dst value in too */
    IrDType acc;               /* the accumulator's dtype: dst's */
    /* dst has the source's extents: each output is written at every position
     * of the reduced dims (an all-reduce, as the reference's in-place
     * thread_reduce) */
    bool broadcast;
} OpReduce;

/* NULL and *r filled, or why the call is malformed; the all-reduce form
 * (dst with the source's extents) only for a variant that allows it. */
const char *op_red_operands(OpCtx *c, OpReduce *r, bool allow_broadcast);
/* The identity of the op in dtype t (0, -inf, +inf, or the integer bounds). */
IrExpr *op_red_identity(OpCtx *c, IrDType t);
/* op(a, b): a + b, max(a, b), min(a, b). */
IrExpr *op_red_combine(OpCtx *c, IrExpr *a, IrExpr *b);
/* Indices of the source element at output o and reduction position j (flat,
 * row-major over the kept and the reduced dimensions). */
IrExpr **op_red_src_index(OpCtx *c, const OpReduce *r, IrExpr *o, IrExpr *j);
/* Indices of the destination element of output o. */
IrExpr **op_red_dst_index(OpCtx *c, const OpReduce *r, IrExpr *o);
/* dst[o] = v, or op(dst[o], v) with accum. */
void op_red_store(OpCtx *c, OpSeq *s, const OpReduce *r, IrExpr *o, IrExpr *v);
/* A one-element local accumulator, initialised to the identity. */
IrExpr *op_red_accumulator(OpCtx *c, OpSeq *s, const OpReduce *r);
/* acc[0] = op(acc[0], v) as a statement. */
IrStmt *op_red_fold(OpCtx *c, const OpReduce *r, IrExpr *acc, IrExpr *v);
/* The butterfly over `width` lanes: acc[0] = op(acc[0], shfl_xor(acc[0], s, width))
 * for s = width/2 .. 1. */
void op_red_shuffle(OpCtx *c, OpSeq *s, const OpReduce *r, IrExpr *acc, int64_t width);

#endif
