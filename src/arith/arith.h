/* The arithmetic layer: integer constants and dtype ranges, the reference's
 * expression construction (type matching, casts, TryConstFold), folding
 * builders for library code, structural equality and order, an evaluator,
 * constant-interval bounds, and the simplifier of index arithmetic over
 * expressions and statements. Prefix: ar_.
 *
 * Three entry points fold, each for its own job, over one set of integer
 * primitives:
 *   - ar_binary / ar_fold_binary: exactly what the reference's operators do
 *     when an expression is built (the parser, and the printer deciding
 *     operator sugar). Printed text depends on it, so it stays TVM's.
 *   - ar_add, ar_mul, ...: builders for library code (layouts, passes) that
 *     fold constants and keep built index expressions tidy; no facts needed.
 *   - ar_simplify: the canonical simplifier (sums of scaled div/mod splits,
 *     bounds, proofs), under the facts of an ArCtx. */
#ifndef TX_ARITH_H
#define TX_ARITH_H

#include "../ir/ir.h"
#include "../ir/visit.h"

/* ---------------------------------------------------------------- integers */
/* An integer literal: IntImm or a Python int; *v receives its value. */
bool ar_const_int(const IrExpr *e, int64_t *v);
/* e is the integer literal v. */
bool ar_is_const(const IrExpr *e, int64_t v);
/* Whether v fits the integer dtype t (bool: 0 or 1). 'big' marks a uint64 bit pattern. */
bool ar_int_fits(IrDType t, int64_t v, bool big);
/* v wrapped to t's width and sign-extended (the int64 form of a t value). */
int64_t ar_wrap_int(IrDType t, int64_t v);
/* An integer constant's value as a double (a uint64 past INT64_MAX included). */
double ar_int_to_double(const IrExpr *c);
/* The value range of a scalar integer or bool dtype (uint64: [0, INT64_MAX],
 * where the interval analysis reads INT64_MAX as no upper bound). */
void ar_dtype_range(IrDType t, int64_t *lo, int64_t *hi);
/* Floor division and modulo of int64 (b != 0, not INT64_MIN / -1). */
int64_t ar_floordiv64(int64_t a, int64_t b);
int64_t ar_floormod64(int64_t a, int64_t b);
/* The greatest common divisor of |a| and |b| (0 for two zeros; 2^62 for
 * gcd(INT64_MIN, 0), whose 2^63 does not fit). */
int64_t ar_gcd64(int64_t a, int64_t b);
/* Exact int64 result of a binary node kind (+ - * / % // %% min max, the
 * comparisons, && ||) on constants; false on overflow or a zero divisor. */
bool ar_eval_binary(IrExprKind k, int64_t a, int64_t b, int64_t *out);
/* The same for operands of dtype t: uint64 ones (held as int64 bit patterns,
 * negative past INT64_MAX) wrap and divide, order and compare as unsigned;
 * false on a zero divisor, or as ar_eval_binary for any other t. */
bool ar_eval_typed(IrDType t, IrExprKind k, int64_t a, int64_t b, int64_t *out);

/* T.bitwise_and/or/xor/not and T.shift_left/right of integers a, b of dtype
 * t, as the generated C++ computes them (int8 and int16 shift as the int C
 * promotes them to; >> arithmetic for signed, logical for unsigned), wrapped
 * to t; false for a shift count outside [0, 32) ([0, 64) for 64 bits), which
 * C leaves undefined. */
bool ar_int_bitop(IrDType t, IrOp op, int64_t a, int64_t b, int64_t *out);

/* ---------------------------------------------------------------- float math */
/* op is a float math function (T.exp ... T.nearbyint, T.pow ... T.atan2, T.fma). */
bool ar_is_float_math(IrOp op);
/* Its value on args (as many as op.def gives it), rounded to float dtype t. */
double ar_float_math(IrOp op, IrDType t, const double *args);

/* ---------------------------------------------------------------- construction (TVM) */
/* make_const: an IntImm/FloatImm of t (a Broadcast for vector t). */
IrExpr *ar_make_int(TxArena *a, IrDType t, int64_t v, TxSpan sp);
IrExpr *ar_make_float(TxArena *a, IrDType t, double v, TxSpan sp);
/* cast(t, x): x itself when t is its dtype, constants folded, else a Cast. */
IrExpr *ar_cast(TxArena *a, IrDType t, IrExpr *x, TxSpan sp);
/* BinaryOpMatchTypes: make the dtypes of *x and *y agree (lane broadcast,
 * int -> float, narrower -> wider, signed -> unsigned); false and *err when
 * they cannot. */
bool ar_match_types(TxArena *a, IrExpr **x, IrExpr **y, const char **err);
/* TryConstFold of k(x, y) on operands of one dtype: const op const, x+0, x*1,
 * x*0, x//1, 0//x, x%1, min(x,x), && / || with a literal. NULL when nothing
 * folds; NULL and *err on division by a zero literal (*err is not cleared). */
IrExpr *ar_fold_binary(TxArena *a, IrExprKind k, IrExpr *x, IrExpr *y, const char **err);
/* k(x, y) as TVM's add/sub/mul/div/truncmod/floordiv/floormod/min/max and the
 * comparisons build it: match types, fold, else a node. NULL and *err on error. */
IrExpr *ar_binary(TxArena *a, IrExprKind k, IrExpr *x, IrExpr *y, TxSpan sp, const char **err);

/* x - y built as ar_binary builds it, then simplified without facts: the
 * reference's Analyzer().Simplify(stop - start) for range and slice extents. */
IrExpr *ar_simplify_sub(TxArena *a, IrExpr *x, IrExpr *y, TxSpan sp, const char **err);

/* ---------------------------------------------------------------- builders (library code) */
/* Folding builders of index expressions: constants folded with checked int64
 * arithmetic (an int32 result that does not fit becomes int64), no `*1`, `+0`,
 * `//1`, `%1`, constants kept rightmost, `(x + a) + b` and `(x * a) * b`
 * merged, exact divisions of scaled terms done, `x % c` dropped when
 * 0 <= x < c. A constant operand takes the other operand's dtype and a
 * narrower integer operand is cast to the node's dtype. */
IrExpr *ar_index_int(TxArena *a, int64_t v); /* int32 when it fits, else int64 */
IrExpr *ar_index_int_like(TxArena *a, const IrExpr *like, int64_t v); /* like's width if wider */
IrExpr *ar_add(TxArena *a, IrExpr *x, IrExpr *y);
IrExpr *ar_sub(TxArena *a, IrExpr *x, IrExpr *y);
IrExpr *ar_mul(TxArena *a, IrExpr *x, IrExpr *y);
IrExpr *ar_floordiv(TxArena *a, IrExpr *x, IrExpr *y);
IrExpr *ar_floormod(TxArena *a, IrExpr *x, IrExpr *y);
/* bitwise_and/or/xor, shift_left/right as calls. */
IrExpr *ar_bitwise(TxArena *a, IrOp op, IrExpr *x, IrExpr *y);

/* ---------------------------------------------------------------- equality and order */
/* Structural equality (variables by identity), dtypes included; TVM's ExprDeepEqual. */
bool ar_expr_equal(const IrExpr *x, const IrExpr *y);
/* The same, but integer literals compare by value whatever their dtype and
 * only casts compare dtypes (for layout parameters written as Python ints). */
bool ar_expr_value_equal(const IrExpr *x, const IrExpr *y);
/* A deterministic order for sorting (constants first, by value; then by kind,
 * variable name and operands); 0 does not imply equality. */
int ar_expr_compare(const IrExpr *x, const IrExpr *y);
/* The largest integer known to divide integer e, 0 when e is known to be 0:
 * a literal's value; gcd over the terms of + - (constant offsets included)
 * and the choices of min, max, select, if_then_else; the product over *; an
 * exact division by a literal; gcd(a, b) for a mod b (0 when a literal b
 * divides a). `known` maps a variable (a let's) or a local buffer (its loads)
 * to the known multiple of its value; others, and NULL, give 1. */
int64_t ar_known_multiple(const IrPtrMap *known, const IrExpr *e);
/* Proof that x is a multiple of d (false: not proven): by ar_known_multiple
 * without variables' facts for a literal d, structurally (x = d * q) else. */
bool ar_divisible(const IrExpr *x, const IrExpr *d);

/* ---------------------------------------------------------------- evaluation */
/* The integer value of e with vars[i] = vals[i] (Let bindings, Select,
 * if_then_else, casts and bitwise calls included). False when e has a free
 * variable, a non-integer node, a zero divisor, or overflows int64. */
bool ar_eval(const IrExpr *e, const IrExpr *const *vars, const int64_t *vals, int nvars,
             int64_t *out);

/* ---------------------------------------------------------------- the analyzer */
/* Facts about variables (ranges, pure values, assumptions), scoped: facts
 * added after ar_scope_push are dropped by the matching ar_scope_pop. */
typedef struct ArFact ArFact;
typedef struct ArCtx {
    TxArena *arena;   /* where simplified expressions are built */
    TxArena scratch;  /* temporaries of one top-level call */
    IrPtrMap latest;  /* var -> 1 + index of its newest fact */
    TX_VEC(ArFact) facts;
    TX_VEC(int) scopes;        /* facts.len at each open scope */
    TX_VEC(IrExpr *) assumed;  /* assumed conditions (in facts' scopes) */
    int depth;                 /* recursion depth of the simplifier */
} ArCtx;

void ar_ctx_init(ArCtx *c, TxArena *arena);
void ar_ctx_free(ArCtx *c);
void ar_scope_push(ArCtx *c);
void ar_scope_pop(ArCtx *c);
/* var in [min, min + extent): a loop variable or a scope id. */
void ar_bind_range(ArCtx *c, const IrExpr *var, IrExpr *min, IrExpr *extent);
/* var in [lo, hi] (inclusive constants). */
void ar_bind_bounds(ArCtx *c, const IrExpr *var, int64_t lo, int64_t hi);
/* var == value, value pure: later simplifications substitute it. */
void ar_bind_value(ArCtx *c, const IrExpr *var, IrExpr *value);
/* cond holds (if/assert/T.assume): bounds of a variable compared with a
 * constant tighten its range; the condition itself is remembered. */
void ar_assume(ArCtx *c, IrExpr *cond);

/* The constant interval [lo, hi] of an integer expression. Always fills lo/hi
 * (the dtype's range at worst); returns true when both ends come from the
 * expression and the facts, false when an end is only the dtype's limit.
 * c may be NULL (no facts). */
bool ar_bound(const ArCtx *c, const IrExpr *e, int64_t *lo, int64_t *hi);
/* The largest value of an integer expression when each free variable may
 * take any value of its dtype (a symbolic extent at its dtype's maximum),
 * without wrapping: INT64_MAX when that is unbounded. */
int64_t ar_max_any(const IrExpr *e);
/* Cheap structural proof that x < y from the bounds of both (c may be NULL). */
bool ar_less(const ArCtx *c, const IrExpr *x, const IrExpr *y);

typedef enum { AR_UNKNOWN = -1, AR_FALSE = 0, AR_TRUE = 1 } ArProof;
/* Decide a boolean condition under the facts; AR_UNKNOWN when it cannot. */
ArProof ar_prove(ArCtx *c, IrExpr *cond);

/* The simplified form of e: constants folded; integer index arithmetic in
 * canonical form (like terms merged, scaled terms in descending scale order,
 * `i * 64 + j`); floordiv/floormod by constants resolved under bounds and
 * divisibility; `(x//c)*c + x%c -> x`; min/max, comparisons, select and
 * if_then_else decided by bounds; pure Bind values substituted. Never fails;
 * keeps e's dtype. */
IrExpr *ar_simplify(ArCtx *c, IrExpr *e);
/* Simplify every expression of a statement tree (StmtSimplify): loops bind
 * their ranges, scope ids [0, extent), thread_extent attrs, if/assert
 * conditions are assumed in their branches; provable ifs keep the live branch;
 * pure Binds are substituted later (and kept); buffer definitions are left
 * as they are; a store of the same location's load becomes Evaluate(0). */
IrStmt *ar_simplify_stmt(ArCtx *c, IrStmt *s);
/* The same over a function body; function params with buffer shapes are
 * known non-negative. Returns f itself when nothing changed. */
IrFunc *ar_simplify_func(ArCtx *c, IrFunc *f);

#endif
