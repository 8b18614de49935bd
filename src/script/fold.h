/* Expression construction with the reference's typing and folding rules, for
 * the parser: TVM's BinaryOpMatchTypes (lane broadcast, int->float, narrower
 * -> wider, signed/unsigned), cast() with constant folding, TryConstFold for
 * the arithmetic nodes, and a small linear simplifier for slice and loop
 * extents ((a*k + b) - a*k -> b). Prefix: sc_. */
#ifndef TX_SCRIPT_FOLD_H
#define TX_SCRIPT_FOLD_H

#include "../ir/ir.h"

/* Whether v fits the integer dtype t (bool: 0 or 1). 'big' marks a uint64 bit pattern. */
bool sc_int_fits(IrDType t, int64_t v, bool big);
/* make_const: an IntImm/FloatImm of t (a Broadcast for vector t). */
IrExpr *sc_const_int(TxArena *a, IrDType t, int64_t v, TxSpan sp);
IrExpr *sc_const_float(TxArena *a, IrDType t, double v, TxSpan sp);
/* cast(t, x): x itself when t is its dtype, constants folded, else a Cast. */
IrExpr *sc_cast(TxArena *a, IrDType t, IrExpr *x, TxSpan sp);
/* Make the dtypes of *x and *y agree; false (and *err) when they cannot. */
bool sc_match_types(TxArena *a, IrExpr **x, IrExpr **y, const char **err);
/* The folded result of k(x, y) on operands of one dtype, or NULL. */
IrExpr *sc_try_fold(TxArena *a, IrExprKind k, IrExpr *x, IrExpr *y, const char **err);
/* k(x, y) as TVM's add/sub/mul/div/truncmod/floordiv/floormod/min/max and the
 * comparisons build it: match types, fold, else a node. NULL and *err on error. */
IrExpr *sc_arith(TxArena *a, IrExprKind k, IrExpr *x, IrExpr *y, TxSpan sp, const char **err);
/* Structural equality of two expressions (variables by identity). */
bool sc_expr_equal(const IrExpr *x, const IrExpr *y);
/* stop - start simplified by cancelling linear terms. */
IrExpr *sc_sub_simplify(TxArena *a, IrExpr *stop, IrExpr *start, TxSpan sp, const char **err);
/* Whether e is an integer constant (IntImm); *v receives it. */
bool sc_is_const_int(const IrExpr *e, int64_t *v);

#endif
