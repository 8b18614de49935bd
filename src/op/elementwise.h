/* The per-element semantics of the elementwise tile primitives, shared by
 * their variants. Prefix: op_ew_. */
#ifndef TX_OP_ELEMENTWISE_H
#define TX_OP_ELEMENTWISE_H

#include "partition.h"

#define OP_EW_MAX_SRC 3

/* Reads the call: dst (argument 1) and up to OP_EW_MAX_SRC sources, each a
 * region (is_region[i]) matching dst's extents, or a scalar expression.
 * NULL, or why the call is malformed for its op. */
const char *op_ew_operands(OpCtx *c, OpRegion *dst, OpRegion *src, bool *is_region, int *nsrc);
/* Source i when it is not a region: the scalar, or NULL for an absent (None) one. */
IrExpr *op_ew_scalar(const OpCtx *c, int i);
/* The sources' values at one element (idx: its multi-index over the non-unit
 * dims the regions share): a region source's element loaded, a scalar as it
 * is; v[i] for each of the n sources. */
void op_ew_load_sources(OpCtx *c, const OpRegion *src, const bool *is_region, int n,
                        IrExpr *const *idx, IrExpr **v);
/* The value stored into one element of dst from the sources' values there
 * (v[i]: the loaded element or the scalar; n of them). */
IrExpr *op_ew_value(OpCtx *c, IrDType dst, IrExpr **v, int n);

/* Whether scalar source i reads dst's storage: then the scalar steps see
 * each element's new value, and a pair would read it once for two. */
bool op_ew_scalar_reads(OpCtx *c, int i, const OpRegion *dst);
/* The packed instruction of the call's op on pairs of float32 ("add.rn.f32x2":
 * add, sub, mul, fma, rounding to nearest as the scalar ops), when every
 * operand (regions and scalars) is float32, no scalar reads dst and the
 * target has it; NULL otherwise. */
const char *op_ew_f32x2(OpCtx *c, const OpRegion *dst, const OpRegion *src, const bool *is_region,
                        int n);
/* Two elements with one packed instruction: each source's pair (v[i][0],
 * v[i][1]: loads or the scalar twice) into a 64-bit register of pk (n of
 * them, uint64), the instruction, and the result's halves into d[0], d[1]
 * (loads of dst's two elements, written through). */
void op_ew_f32x2_emit(OpCtx *c, OpSeq *s, const char *spelling, IrExpr *pk, IrExpr *const *d,
                      IrExpr *(*v)[2], int n);

#endif
