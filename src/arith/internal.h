/* Internals shared by the files of the arith layer: bitwise folding, the
 * interval type of the bound analysis, and the canonical sum form the
 * simplifier works in. */
#ifndef TX_ARITH_INTERNAL_H
#define TX_ARITH_INTERNAL_H

#include "arith.h"

/* u op v for the five binary bitwise ops (shift counts taken mod 64). */
int64_t ar_bit_fold(IrDType t, IrOp op, int64_t u, int64_t v);
bool ar_is_bitwise(IrOp op);


/* ---- facts and intervals (bound.c) ---- */
/* One fact about a variable; a variable's facts chain from its newest. */
struct ArFact {
    const IrExpr *var;
    int prev;            /* 1 + index of the variable's previous fact; 0: none */
    bool has_range;
    int64_t lo, hi;      /* inclusive, when has_range */
    IrExpr *min, *extent; /* the symbolic range, when given as one */
    IrExpr *value;       /* a pure value to substitute, or NULL */
};

/* The pure value bound to var, or NULL. */
IrExpr *ar_fact_value(const ArCtx *c, const IrExpr *var);
/* The symbolic range [min, min + extent) bound to var (NULL when none). */
bool ar_fact_range(const ArCtx *c, const IrExpr *var, IrExpr **min, IrExpr **extent);

/* Intervals with INT64_MIN / INT64_MAX standing for -inf / +inf. */
#define AR_NEG_INF INT64_MIN
#define AR_POS_INF INT64_MAX
typedef struct ArIval {
    int64_t lo, hi;
} ArIval;
/* The interval of e under the facts (c may be NULL), not clamped to its dtype. */
ArIval ar_ival(const ArCtx *c, const IrExpr *e);
ArIval ar_ival_add(ArIval x, ArIval y);
ArIval ar_ival_neg(ArIval x);
ArIval ar_ival_mul(ArIval x, ArIval y);
ArIval ar_ival_div(ArIval x, ArIval y, bool floor);
ArIval ar_ival_floormod(ArIval x, ArIval y);
ArIval ar_ival_union(ArIval x, ArIval y);

/* ---- the canonical form (canon.c) ---- */
#define AR_MAX_DEPTH 200 /* deeper expressions are left as they are */
/* ((index % upper) // lower) * scale; upper 0: no modulo. */
typedef struct ArSplit {
    IrExpr *index;
    int64_t lower, upper, scale;
} ArSplit;

/* base + the sum of the terms; like terms are merged as they are added. */
typedef struct ArSum {
    IrDType dtype;
    int n, cap;
    ArSplit *terms;
    int64_t base;
    bool overflow; /* a coefficient left int64: the form is unusable */
} ArSum;

/* Whether the canonical form applies to dtype t (scalar int32/int64, and
 * uint32/uint64 with the wrap-safe rules only). */
bool ar_is_index_dtype(IrDType t);
/* The canonical form of e (of an index dtype); never NULL. */
ArSum *ar_sum_of(ArCtx *c, IrExpr *e);
/* The canonical form of a - b. */
ArSum *ar_sum_diff(ArCtx *c, IrExpr *a, IrExpr *b);
/* The expression of a canonical form, or NULL when a coefficient does not
 * fit the dtype. */
IrExpr *ar_sum_expr(ArCtx *c, ArSum *s);
/* The interval of a canonical form. */
ArIval ar_sum_ival(ArCtx *c, const ArSum *s);
/* The same, tightened by the symbolic ranges of its variables (j < n for j
 * in range(n)); signed sums only. */
ArIval ar_sum_ival_deep(ArCtx *c, const ArSum *s);

/* ---- the rewriter (simplify.c) ---- */
/* The simplified form of a node that the canonical form does not own. */
IrExpr *ar_rewrite(ArCtx *c, IrExpr *e);
/* The simplified form of any expression. */
IrExpr *ar_simp(ArCtx *c, IrExpr *e);

#endif
