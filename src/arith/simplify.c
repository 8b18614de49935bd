/* The expression simplifier: index arithmetic goes through the canonical form
 * (canon.c); every other node is rewritten here with its children simplified
 * first: constants folded (TryConstFold, plus casts and bitwise calls),
 * min/max, comparisons, select and if_then_else decided by bounds and
 * assumptions, logical identities, Let bodies simplified under the bound of
 * their value, pure Bind values substituted. Also the prover and the
 * assumptions of the analyzer. */
#include <math.h>
#include <string.h>

#include "internal.h"

static IrExpr *copy_node(ArCtx *c, const IrExpr *e)
{
    return ir_expr_copy(c->arena, e);
}

static IrExpr *bool_of(ArCtx *c, bool v) { return ir_int(c->arena, IR_BOOL, v, (TxSpan){0}); }

static bool is_literal(const IrExpr *e) { return e->kind == IR_E_INT || e->kind == IR_E_FLOAT; }

static bool is_compare(IrExprKind k) { return k >= IR_E_EQ && k <= IR_E_GE; }

/* A binary node over new operands (the original when they did not change). */
static IrExpr *with_operands(ArCtx *c, IrExpr *e, IrExpr *a, IrExpr *b)
{
    if (a == e->u.op.a && b == e->u.op.b)
        return e;
    IrExpr *n = copy_node(c, e);
    n->u.op.a = a, n->u.op.b = b;
    return n;
}

/* TryConstFold of a node whose operands are simplified; NULL when nothing folds. */
static IrExpr *try_fold(ArCtx *c, IrExprKind k, IrExpr *a, IrExpr *b)
{
    const char *err = NULL;
    if (!ir_dtype_eq(a->dtype, b->dtype))
        return NULL;
    IrExpr *r = ar_fold_binary(c->arena, k, a, b, &err);
    return err ? NULL : r;
}

/* ---------------------------------------------------------------- index arithmetic */
/* An index expression through the canonical form; its children merely
 * simplified when a coefficient does not fit the dtype, and an unsigned node
 * tried once more on them (their constants folded and wrapped may now fit:
 * 2147483650 * 4294966384 * 3 in uint32). */
static IrExpr *simplify_index(ArCtx *c, IrExpr *e)
{
    IrExpr *r = ar_sum_expr(c, ar_sum_of(c, e));
    if (r)
        return r;
    if (!IR_E_IS_BINARY(e->kind))
        return e;
    IrExpr *n = with_operands(c, e, ar_simp(c, e->u.op.a), ar_simp(c, e->u.op.b));
    if (n == e || e->dtype.code != IR_DT_UINT) /* a signed overflow stays as written */
        return n;
    r = try_fold(c, n->kind, n->u.op.a, n->u.op.b);
    if (!r)
        r = ar_sum_expr(c, ar_sum_of(c, n));
    return r ? r : n;
}

/* The interval of a - b for index expressions: after cancellation for signed
 * ones; from the operands' own bounds for unsigned ones, whose ring
 * difference is not the integer difference. A uint64 bound of AR_POS_INF is
 * no bound (the value may pass INT64_MAX), not the value INT64_MAX it is for
 * int64. */
static ArIval difference(ArCtx *c, IrExpr *a, IrExpr *b)
{
    if (a->dtype.code != IR_DT_UINT)
        return ar_sum_ival_deep(c, ar_sum_diff(c, a, b));
    ArIval x = ar_ival(c, a), y = ar_ival(c, b);
    ArIval d = ar_ival_add(x, ar_ival_neg(y));
    if (a->dtype.bits == 64 && x.hi == AR_POS_INF)
        d.hi = AR_POS_INF;
    if (a->dtype.bits == 64 && y.hi == AR_POS_INF)
        d.lo = AR_NEG_INF;
    return d;
}

/* ---------------------------------------------------------------- assumptions */
static bool assumed(const ArCtx *c, const IrExpr *cond)
{
    for (int i = 0; i < c->assumed.len; i++)
        if (ar_expr_equal(c->assumed.items[i], cond))
            return true;
    return false;
}

static IrExprKind negated_compare(IrExprKind k)
{
    switch (k) {
    case IR_E_EQ: return IR_E_NE;
    case IR_E_NE: return IR_E_EQ;
    case IR_E_LT: return IR_E_GE;
    case IR_E_LE: return IR_E_GT;
    case IR_E_GT: return IR_E_LE;
    default: return IR_E_LT; /* GE */
    }
}

/* cond, or its negation, is an assumption. */
static IrExpr *decided_by_assumption(ArCtx *c, IrExpr *cond)
{
    if (assumed(c, cond))
        return bool_of(c, true);
    if (cond->kind == IR_E_NOT && assumed(c, cond->u.op.a))
        return bool_of(c, false);
    if (is_compare(cond->kind)) {
        IrExpr n = {.kind = negated_compare(cond->kind), .dtype = cond->dtype};
        n.u.op = cond->u.op;
        if (assumed(c, &n))
            return bool_of(c, false);
    }
    return NULL;
}

/* ---------------------------------------------------------------- rewriting */
/* a op b decided from the interval of a - b. */
static int decide_compare(IrExprKind k, ArIval d)
{
    bool lt = d.hi < 0, le = d.hi <= 0, gt = d.lo > 0, ge = d.lo >= 0;
    switch (k) {
    case IR_E_EQ: return d.lo == 0 && d.hi == 0 ? 1 : (gt || lt) ? 0 : -1;
    case IR_E_NE: return d.lo == 0 && d.hi == 0 ? 0 : (gt || lt) ? 1 : -1;
    case IR_E_LT: return lt ? 1 : ge ? 0 : -1;
    case IR_E_LE: return le ? 1 : gt ? 0 : -1;
    case IR_E_GT: return gt ? 1 : le ? 0 : -1;
    default: return ge ? 1 : lt ? 0 : -1; /* GE */
    }
}

static IrExpr *rewrite_compare(ArCtx *c, IrExpr *e, IrExpr *a, IrExpr *b)
{
    IrExpr *r = try_fold(c, e->kind, a, b);
    if (r)
        return r;
    if (ar_is_index_dtype(a->dtype) && ir_dtype_eq(a->dtype, b->dtype)) {
        int v = decide_compare(e->kind, difference(c, a, b));
        if (v >= 0)
            return bool_of(c, v);
    }
    r = with_operands(c, e, a, b);
    IrExpr *d = decided_by_assumption(c, r);
    return d ? d : r;
}

static IrExpr *rewrite_minmax(ArCtx *c, IrExpr *e, IrExpr *a, IrExpr *b)
{
    IrExpr *r = try_fold(c, e->kind, a, b);
    if (r)
        return r;
    if (ar_expr_equal(a, b))
        return a;
    if (ar_is_index_dtype(a->dtype) && ir_dtype_eq(a->dtype, b->dtype)) {
        ArIval d = difference(c, a, b);
        bool is_min = e->kind == IR_E_MIN;
        if (d.hi <= 0)
            return is_min ? a : b;
        if (d.lo >= 0)
            return is_min ? b : a;
    }
    return with_operands(c, e, a, b);
}

static IrExpr *rewrite_logical(ArCtx *c, IrExpr *e, IrExpr *a, IrExpr *b)
{
    IrExpr *r = try_fold(c, e->kind, a, b);
    if (r)
        return r;
    if (ar_expr_equal(a, b))
        return a;
    r = with_operands(c, e, a, b);
    IrExpr *d = decided_by_assumption(c, r);
    return d ? d : r;
}

/* ---------------------------------------------------------------- vectors */
static IrExpr *broadcast(ArCtx *c, IrExpr *x, int lanes)
{
    IrExpr *b = ir_node(c->arena, IR_E_BROADCAST, ir_dtype_with_lanes(x->dtype, lanes), (TxSpan){0});
    b->u.op.a = x, b->u.op.lanes = lanes;
    return b;
}

static IrExpr *ramp(ArCtx *c, IrExpr *base, IrExpr *stride, int lanes)
{
    IrExpr *r = ir_node(c->arena, IR_E_RAMP, ir_dtype_with_lanes(base->dtype, lanes), (TxSpan){0});
    r->u.op.a = base, r->u.op.b = stride, r->u.op.lanes = lanes;
    return r;
}

/* x k y on scalars, simplified. */
static IrExpr *scalar(ArCtx *c, IrExprKind k, IrExpr *x, IrExpr *y)
{
    IrExpr *n = ir_binary(c->arena, k, x, y, (TxSpan){0});
    if (is_compare(k))
        n->dtype = IR_BOOL;
    return ar_simp(c, n);
}

/* ramp(b, s, n) // c or % c when no lane crosses a multiple of c. */
static IrExpr *ramp_division(ArCtx *c, IrExprKind k, IrExpr *r, int64_t d)
{
    int64_t s, lo, hi;
    IrExpr *base = r->u.op.a;
    int n = r->u.op.lanes;
    if (d <= 0 || !ar_const_int(r->u.op.b, &s) || s < 0 || !ar_is_index_dtype(base->dtype))
        return NULL;
    IrExpr *m = scalar(c, IR_E_FLOORMOD, base, ir_int(c->arena, base->dtype, d, (TxSpan){0}));
    ar_bound(c, m, &lo, &hi);
    if (hi > d || s > (d - 1 - hi) / (n > 1 ? n - 1 : 1))
        return NULL;
    if (k == IR_E_FLOORMOD)
        return ramp(c, m, r->u.op.b, n);
    return broadcast(c, scalar(c, IR_E_FLOORDIV, base, ir_int(c->arena, base->dtype, d, (TxSpan){0})), n);
}

/* The vectorizer's forms: broadcasts combine lane-wise, ramps absorb
 * broadcast offsets and factors, and divide when the lanes stay in one block. */
static IrExpr *rewrite_vector_binary(ArCtx *c, IrExprKind k, IrExpr *a, IrExpr *b)
{
    bool ra = a->kind == IR_E_RAMP, rb = b->kind == IR_E_RAMP;
    bool ba = a->kind == IR_E_BROADCAST, bb = b->kind == IR_E_BROADCAST;
    int n = a->dtype.lanes;
    int64_t d;
    if (ba && bb)
        return broadcast(c, scalar(c, k, a->u.op.a, b->u.op.a), n);
    switch (k) {
    case IR_E_ADD: case IR_E_SUB:
        if (ra && bb)
            return ramp(c, scalar(c, k, a->u.op.a, b->u.op.a), a->u.op.b, n);
        if (ba && rb)
            return ramp(c, scalar(c, k, a->u.op.a, b->u.op.a),
                        k == IR_E_ADD ? b->u.op.b
                                      : scalar(c, IR_E_SUB, ir_int(c->arena, b->u.op.b->dtype, 0, (TxSpan){0}),
                                               b->u.op.b), n);
        if (ra && rb)
            return ramp(c, scalar(c, k, a->u.op.a, b->u.op.a), scalar(c, k, a->u.op.b, b->u.op.b), n);
        return NULL;
    case IR_E_MUL:
        if (ra && bb)
            return ramp(c, scalar(c, k, a->u.op.a, b->u.op.a), scalar(c, k, a->u.op.b, b->u.op.a), n);
        if (ba && rb)
            return ramp(c, scalar(c, k, a->u.op.a, b->u.op.a), scalar(c, k, a->u.op.a, b->u.op.b), n);
        return NULL;
    case IR_E_FLOORDIV: case IR_E_FLOORMOD:
        return ra && bb && ar_const_int(b->u.op.a, &d) ? ramp_division(c, k, a, d) : NULL;
    default:
        return NULL;
    }
}

static IrExpr *rewrite_binary(ArCtx *c, IrExpr *e)
{
    IrExpr *a = ar_simp(c, e->u.op.a), *b = ar_simp(c, e->u.op.b), *r;
    if (e->dtype.lanes > 1 && a->dtype.lanes == b->dtype.lanes &&
        (r = rewrite_vector_binary(c, e->kind, a, b)))
        return r;
    if (is_compare(e->kind))
        return rewrite_compare(c, e, a, b);
    if (e->kind == IR_E_MIN || e->kind == IR_E_MAX)
        return rewrite_minmax(c, e, a, b);
    if (e->kind == IR_E_AND || e->kind == IR_E_OR)
        return rewrite_logical(c, e, a, b);
    r = try_fold(c, e->kind, a, b);
    return r ? r : with_operands(c, e, a, b);
}

static IrExpr *rewrite_not(ArCtx *c, IrExpr *e)
{
    IrExpr *a = ar_simp(c, e->u.op.a);
    if (a->kind == IR_E_INT)
        return bool_of(c, a->u.int_val == 0);
    if (a->kind == IR_E_NOT)
        return a->u.op.a;
    if (is_compare(a->kind) && !ir_dtype_is_float(a->u.op.a->dtype)) {
        IrExpr *n = copy_node(c, a);
        n->kind = negated_compare(a->kind);
        return n;
    }
    if (a == e->u.op.a)
        return e;
    IrExpr *n = copy_node(c, e);
    n->u.op.a = a;
    return n;
}

/* Whether v is exactly a value of t: float16, 32 or 64, or bfloat16 (false
 * for NaN and other types). */
static bool float_exact(IrDType t, double v)
{
    bool bf16 = t.code == IR_DT_BFLOAT, f16 = t.code == IR_DT_FLOAT && t.bits == 16;
    bool f32 = t.code == IR_DT_FLOAT && t.bits == 32, f64 = t.code == IR_DT_FLOAT && t.bits == 64;
    if (isnan(v) || !(bf16 || f16 || f32 || f64))
        return false;
    if (f64)
        return true;
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((double)f != v || (bf16 && (u & 0xffff)))
        return false;
    if (!f16 || v == 0 || isinf(v))
        return true;
    double a = fabs(v);
    int e;
    frexp(a, &e); /* a = m 2^e, m in [1/2, 1): 11 significant bits end at 2^(e - 11) */
    double scaled = ldexp(a, -(e - 11 < -24 ? -24 : e - 11));
    return a <= 65504 && scaled == floor(scaled);
}

/* A literal cast to t: integers wrap, floats convert; a float literal becomes
 * one of t when its value is exact in both types (no rounding on either
 * side); NULL when it does not fold. */
static IrExpr *fold_cast(ArCtx *c, IrDType t, const IrExpr *x)
{
    if (t.lanes != 1)
        return NULL;
    bool to_int = ir_dtype_is_int(t) || t.code == IR_DT_BOOL;
    if (x->kind == IR_E_INT && to_int)
        return ir_int(c->arena, t, ar_wrap_int(t, x->u.int_val), (TxSpan){0});
    if (x->kind == IR_E_INT && (t.code == IR_DT_FLOAT && (t.bits == 32 || t.bits == 64)))
        return ir_float(c->arena, t, ar_int_to_double(x), (TxSpan){0});
    if (x->kind == IR_E_FLOAT && float_exact(x->dtype, x->u.float_val) &&
        float_exact(t, x->u.float_val))
        return ir_float(c->arena, t, x->u.float_val, (TxSpan){0});
    return NULL;
}

/* int64(y + k) -> int64(y) + k for a narrower signed y + k proven not to
 * overflow: a widened index's constant then joins the outer sum (and the
 * address's immediate). NULL when it does not apply. */
static IrExpr *widen_sum(ArCtx *c, IrDType t, IrExpr *x)
{
    int64_t k, lo, hi;
    if (x->kind != IR_E_ADD || t.code != IR_DT_INT || x->dtype.code != IR_DT_INT ||
        t.bits <= x->dtype.bits || t.lanes != 1 || !ar_const_int(x->u.op.b, &k))
        return NULL;
    ar_dtype_range(x->dtype, &lo, &hi);
    ArIval sum = ar_ival(c, x), part = ar_ival(c, x->u.op.a);
    if (sum.lo < lo || sum.hi > hi || part.lo < lo || part.hi > hi)
        return NULL;
    IrExpr *y = ar_cast(c->arena, t, x->u.op.a, x->span);
    return ar_simp(c, ar_add(c->arena, y, ar_make_int(c->arena, t, k, x->span)));
}

static IrExpr *rewrite_cast(ArCtx *c, IrExpr *e)
{
    IrExpr *x = ar_simp(c, e->u.op.a), *r;
    if (ir_dtype_eq(x->dtype, e->dtype))
        return x;
    if ((r = fold_cast(c, e->dtype, x)))
        return r;
    /* int64(int32(y)) with y an int64 that fits int32 */
    if (x->kind == IR_E_CAST && ir_dtype_eq(x->u.op.a->dtype, e->dtype) &&
        ir_dtype_is_int(x->dtype) && ir_dtype_is_int(e->dtype)) {
        int64_t lo, hi, tlo, thi;
        ar_bound(c, x->u.op.a, &lo, &hi);
        ar_dtype_range(x->dtype, &tlo, &thi);
        if (lo >= tlo && hi <= thi)
            return x->u.op.a;
    }
    if ((r = widen_sum(c, e->dtype, x)))
        return r;
    if (x == e->u.op.a)
        return e;
    IrExpr *n = copy_node(c, e);
    n->u.op.a = x;
    return n;
}

static IrExpr *rewrite_select(ArCtx *c, IrExpr *e)
{
    IrExpr *cond = ar_simp(c, e->u.op.cond);
    if (cond->kind == IR_E_INT)
        return ar_simp(c, cond->u.int_val ? e->u.op.a : e->u.op.b);
    IrExpr *a = ar_simp(c, e->u.op.a), *b = ar_simp(c, e->u.op.b);
    if (ar_expr_equal(a, b))
        return a;
    if (cond == e->u.op.cond && a == e->u.op.a && b == e->u.op.b)
        return e;
    IrExpr *n = copy_node(c, e);
    n->u.op.cond = cond, n->u.op.a = a, n->u.op.b = b;
    return n;
}

/* A Let whose value is a literal or a variable is inlined; otherwise its
 * body is simplified knowing the value's bounds (the Let stays: a swizzle's
 * address is never divided speculatively). */
static IrExpr *rewrite_let(ArCtx *c, IrExpr *e)
{
    IrExpr *value = ar_simp(c, e->u.op.a), *body;
    ar_scope_push(c);
    if (is_literal(value) || value->kind == IR_E_VAR) {
        ar_bind_value(c, e->u.op.var, value);
        body = ar_simp(c, e->u.op.b);
        ar_scope_pop(c);
        return body;
    }
    int64_t lo, hi;
    if (ar_bound(c, value, &lo, &hi))
        ar_bind_bounds(c, e->u.op.var, lo, hi);
    body = ar_simp(c, e->u.op.b);
    ar_scope_pop(c);
    if (value == e->u.op.a && body == e->u.op.b)
        return e;
    IrExpr *n = copy_node(c, e);
    n->u.op.a = value, n->u.op.b = body;
    return n;
}

static IrExpr **simplify_list(ArCtx *c, IrExpr **xs, int n)
{
    IrExpr **out = xs;
    for (int i = 0; i < n; i++) {
        IrExpr *r = xs[i] ? ar_simp(c, xs[i]) : NULL;
        if (r == xs[i])
            continue;
        if (out == xs)
            out = tx_arena_memdup(c->arena, xs, sizeof *xs * (size_t)n);
        out[i] = r;
    }
    return out;
}

/* bitwise_and/or/xor and shifts of literals; identities with 0. */
static IrExpr *fold_bitwise(ArCtx *c, IrExpr *e, IrExpr *x, IrExpr *y)
{
    int64_t u, v;
    bool cx = ar_const_int(x, &u), cy = ar_const_int(y, &v);
    IrOp op = e->u.call.op;
    bool shift = op == IR_OP_SHIFT_LEFT || op == IR_OP_SHIFT_RIGHT;
    if (!ir_dtype_is_int(e->dtype) || e->dtype.lanes != 1)
        return NULL;
    if (cx && cy && (!shift || (v >= 0 && v < e->dtype.bits)))
        return ir_int(c->arena, e->dtype, ar_wrap_int(e->dtype, ar_bit_fold(e->dtype, op, u, v)), (TxSpan){0});
    if (cy && v == 0 && op != IR_OP_BITWISE_AND && ir_dtype_eq(x->dtype, e->dtype))
        return x;
    if ((cy && v == 0 && op == IR_OP_BITWISE_AND) || (cx && u == 0 && (shift || op == IR_OP_BITWISE_AND)))
        return ir_int(c->arena, e->dtype, 0, (TxSpan){0});
    return NULL;
}

static IrExpr *rewrite_call(ArCtx *c, IrExpr *e)
{
    IrCall *k = &e->u.call;
    if (k->op == IR_OP_IF_THEN_ELSE && k->nargs == 3) {
        IrExpr *cond = ar_simp(c, k->args[0]);
        if (cond->kind == IR_E_INT)
            return ar_simp(c, k->args[cond->u.int_val ? 1 : 2]);
    }
    IrExpr **args = simplify_list(c, k->args, k->nargs), *r;
    if (ar_is_bitwise(k->op) && k->nargs == 2 && (r = fold_bitwise(c, e, args[0], args[1])))
        return r;
    if (args == k->args)
        return e;
    IrExpr *n = copy_node(c, e);
    n->u.call.args = args;
    return n;
}

static IrExpr *rewrite_load(ArCtx *c, IrExpr *e)
{
    IrExpr **idx = simplify_list(c, e->u.access.indices, e->u.access.n);
    IrExpr *pred = e->u.access.predicate ? ar_simp(c, e->u.access.predicate) : NULL;
    if (idx == e->u.access.indices && pred == e->u.access.predicate)
        return e;
    IrExpr *n = copy_node(c, e);
    n->u.access.indices = idx, n->u.access.predicate = pred;
    return n;
}

static IrExpr *rewrite_vector(ArCtx *c, IrExpr *e)
{
    IrExpr *a = ar_simp(c, e->u.op.a), *b = e->u.op.b ? ar_simp(c, e->u.op.b) : NULL;
    return with_operands(c, e, a, b);
}

IrExpr *ar_rewrite(ArCtx *c, IrExpr *e)
{
    if (IR_E_IS_BINARY(e->kind))
        return rewrite_binary(c, e);
    switch (e->kind) {
    case IR_E_VAR: {
        IrExpr *v = ar_fact_value(c, e);
        return v && ir_dtype_eq(v->dtype, e->dtype) ? ar_simp(c, v) : e;
    }
    case IR_E_NOT: return rewrite_not(c, e);
    case IR_E_CAST: return rewrite_cast(c, e);
    case IR_E_SELECT: return rewrite_select(c, e);
    case IR_E_LET: return rewrite_let(c, e);
    case IR_E_CALL: return rewrite_call(c, e);
    case IR_E_LOAD: return rewrite_load(c, e);
    case IR_E_RAMP: case IR_E_BROADCAST: return rewrite_vector(c, e);
    default: return e;
    }
}

static bool index_arith(const IrExpr *e)
{
    switch (e->kind) {
    case IR_E_ADD: case IR_E_SUB: case IR_E_MUL: case IR_E_FLOORDIV: case IR_E_FLOORMOD:
    case IR_E_DIV: case IR_E_MOD:
        return ar_is_index_dtype(e->dtype);
    default:
        return false;
    }
}

IrExpr *ar_simp(ArCtx *c, IrExpr *e)
{
    if (!e || c->depth > AR_MAX_DEPTH)
        return e;
    c->depth++;
    IrExpr *r = index_arith(e) ? simplify_index(c, e) : ar_rewrite(c, e);
    c->depth--;
    return r != e && ar_expr_equal(r, e) ? e : r; /* unchanged trees keep their identity */
}

/* Scratch memory lives for one top-level call. */
static void end_call(ArCtx *c)
{
    if (c->depth == 0) {
        tx_arena_free(&c->scratch);
        tx_arena_init(&c->scratch);
    }
}

/* A rule that fires on an operand only once it is simplified (max(m, 1) is m,
 * and then (i * 8 - m) % 8 is 8 - m) needs another round: up to three, to a
 * fixed point. */
IrExpr *ar_simplify(ArCtx *c, IrExpr *e)
{
    IrExpr *r = ar_simp(c, e);
    for (int round = 0; round < 3 && r != e; round++) {
        e = r;
        r = ar_simp(c, e);
    }
    end_call(c);
    return r;
}

IrExpr *ar_simplify_sub(TxArena *a, IrExpr *x, IrExpr *y, TxSpan sp, const char **err)
{
    IrExpr *d = ar_binary(a, IR_E_SUB, x, y, sp, err);
    if (d && d->kind == IR_E_SUB && !ar_is_index_dtype(d->dtype) && ir_dtype_is_int(d->dtype) &&
        x->kind == IR_E_ADD && ir_dtype_eq(x->dtype, d->dtype)) {
        /* (y + e) - y is e in any integer dtype: what reads back a range
         * printed as range(lo, lo + extent) on a dtype the canonical form
         * does not take (uint16) */
        if (ar_expr_equal(x->u.op.a, y))
            return x->u.op.b;
        if (ar_expr_equal(x->u.op.b, y))
            return x->u.op.a;
    }
    if (!d || !ar_is_index_dtype(d->dtype))
        return d;
    ArCtx c;
    ar_ctx_init(&c, a);
    /* the reference simplifies both sides before it subtracts: an unsigned
     * x that folds to 0 less a y that folds positive is its error too */
    if (d->dtype.code == IR_DT_UINT &&
        !ar_binary(a, IR_E_SUB, ar_simplify(&c, x), ar_simplify(&c, y), sp, err)) {
        ar_ctx_free(&c);
        return NULL;
    }
    IrExpr *r = ar_simplify(&c, d);
    ar_ctx_free(&c);
    if (r != d && r->kind == IR_E_INT && !r->span.src) {
        r = ir_expr_copy(a, r);
        r->span = sp;
    }
    return r;
}

/* ---------------------------------------------------------------- proofs */
ArProof ar_prove(ArCtx *c, IrExpr *cond)
{
    IrExpr *r = ar_simp(c, cond);
    end_call(c);
    if (r->kind == IR_E_INT)
        return r->u.int_val ? AR_TRUE : AR_FALSE;
    return AR_UNKNOWN;
}

/* s*x + b op 0 with s = +-1 and x a variable: x's bounds. */
static void assume_linear(ArCtx *c, IrExprKind k, ArSum *s)
{
    if (s->n != 1 || s->overflow || s->terms[0].lower != 1 || s->terms[0].upper ||
        s->terms[0].index->kind != IR_E_VAR || (s->terms[0].scale != 1 && s->terms[0].scale != -1) ||
        s->base == INT64_MIN || s->base == INT64_MAX)
        return;
    int64_t b = s->base, lo = AR_NEG_INF, hi = AR_POS_INF; /* bounds of s*x */
    switch (k) {
    case IR_E_LT: hi = -b - 1; break;
    case IR_E_LE: hi = -b; break;
    case IR_E_GT: lo = -b + 1; break;
    case IR_E_GE: lo = -b; break;
    case IR_E_EQ: lo = hi = -b; break;
    default: return;
    }
    if (s->terms[0].scale < 0) {
        int64_t t = lo;
        lo = hi == AR_POS_INF ? AR_NEG_INF : -hi;
        hi = t == AR_NEG_INF ? AR_POS_INF : -t;
    }
    ar_bind_bounds(c, s->terms[0].index, lo, hi);
}

void ar_assume(ArCtx *c, IrExpr *cond)
{
    if (!cond)
        return;
    if (cond->kind == IR_E_AND) {
        ar_assume(c, cond->u.op.a);
        ar_assume(c, cond->u.op.b);
        return;
    }
    tx_vec_push(&c->assumed, cond);
    if (is_compare(cond->kind)) {
        IrExpr *a = cond->u.op.a, *b = cond->u.op.b;
        if (ar_is_index_dtype(a->dtype) && ir_dtype_eq(a->dtype, b->dtype) &&
            a->dtype.code == IR_DT_INT)
            assume_linear(c, cond->kind, ar_sum_diff(c, a, b));
    }
    end_call(c);
}
