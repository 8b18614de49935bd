/* The expression side of the layout library: folding constructors that keep
 * index expressions clean (constants folded, no `*1`, `+0`, `//1`, `%1`,
 * constants kept rightmost), small proofs over constants and structure, a
 * structural bound analysis, and an evaluator used by tests and the CLI.
 * A real simplifier comes with the arith layer; this is deliberately small. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

bool ly_fail(LyCtx *c, const char *fmt, ...)
{
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *msg = tx_arena_alloc(c->arena, (size_t)(n > 0 ? n : 0) + 1);
    vsnprintf(msg, (size_t)(n > 0 ? n : 0) + 1, fmt, again);
    va_end(again);
    c->err = msg;
    return false;
}

/* ---------------------------------------------------------------- constants */
/* Checked int64 arithmetic: false when the result does not fit (then nothing
 * is folded). Floor division needs b != 0 and not INT64_MIN / -1. */
static bool add64(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }
static bool sub64(int64_t a, int64_t b, int64_t *r) { return !__builtin_sub_overflow(a, b, r); }
static bool mul64(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }

static bool divisor_ok(int64_t a, int64_t b) { return b != 0 && !(b == -1 && a == INT64_MIN); }

static int64_t floordiv64(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t floormod64(int64_t a, int64_t b)
{
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

bool lyx_const(const IrExpr *e, int64_t *v)
{
    if (e && (e->kind == IR_E_INT || e->kind == IR_E_PYINT)) {
        *v = e->u.int_val;
        return true;
    }
    return false;
}

bool lyx_is(const IrExpr *e, int64_t v)
{
    int64_t k;
    return lyx_const(e, &k) && k == v;
}

static IrDType int_type_for(int64_t v)
{
    return (v >= INT32_MIN && v <= INT32_MAX) ? IR_INT32 : IR_INT64;
}

IrExpr *lyx_int(LyCtx *c, int64_t v) { return ir_int(c->arena, int_type_for(v), v, (TxSpan){0}); }

IrExpr *lyx_int_like(LyCtx *c, const IrExpr *like, int64_t v)
{
    IrDType t = like && ir_dtype_is_int(like->dtype) && like->dtype.bits > 32 ? like->dtype
                                                                               : int_type_for(v);
    return ir_int(c->arena, t, v, (TxSpan){0});
}

/* The dtype of a result: the non-constant operand's, else the wider one's. */
static IrDType result_type(const IrExpr *x, const IrExpr *y)
{
    int64_t k;
    if (lyx_const(x, &k) && !lyx_const(y, &k))
        return y->dtype;
    if (lyx_const(y, &k) && !lyx_const(x, &k))
        return x->dtype;
    return x->dtype.bits >= y->dtype.bits ? x->dtype : y->dtype;
}

static IrExpr *typed_int(LyCtx *c, IrDType t, int64_t v)
{
    if (!ir_dtype_is_int(t) || t.bits < 32)
        t = int_type_for(v);
    if (t.bits == 32 && (v < INT32_MIN || v > INT32_MAX))
        t = IR_INT64;
    return ir_int(c->arena, t, v, (TxSpan){0});
}

/* A constant operand takes the dtype of the expression it combines with. */
/* An operand in the dtype of the node it joins: constants are retyped, a
 * narrower integer expression is cast (int32 strides with int64 indices). */
static IrExpr *as_type(LyCtx *c, IrExpr *e, IrDType t)
{
    int64_t k;
    if (ir_dtype_eq(e->dtype, t))
        return e;
    if (lyx_const(e, &k))
        return typed_int(c, t, k);
    if (!ir_dtype_is_int(e->dtype) || !ir_dtype_is_int(t))
        return e;
    IrExpr *cast = ir_node(c->arena, IR_E_CAST, t, (TxSpan){0});
    cast->u.op.a = e;
    return cast;
}

static IrExpr *binary(LyCtx *c, IrExprKind k, IrExpr *x, IrExpr *y)
{
    IrDType t = result_type(x, y);
    return ir_binary(c->arena, k, as_type(c, x, t), as_type(c, y, t), (TxSpan){0});
}

static bool is_op(const IrExpr *e, IrExprKind k) { return e->kind == k; }

static bool const_rhs(const IrExpr *e, IrExprKind k, int64_t *v)
{
    return is_op(e, k) && lyx_const(e->u.op.b, v);
}

/* ---------------------------------------------------------------- arithmetic */
IrExpr *lyx_add(LyCtx *c, IrExpr *x, IrExpr *y)
{
    int64_t a = 0, b = 0, r;
    bool cx = lyx_const(x, &a), cy = lyx_const(y, &b);
    if (cx && cy)
        return add64(a, b, &r) ? typed_int(c, result_type(x, y), r) : binary(c, IR_E_ADD, x, y);
    if (cx && a == 0)
        return y;
    if (cy && b == 0)
        return x;
    if (cx)
        return lyx_add(c, y, x);
    if (cy && const_rhs(x, IR_E_ADD, &a) && add64(a, b, &r))
        return lyx_add(c, x->u.op.a, typed_int(c, x->dtype, r));
    if (cy && const_rhs(x, IR_E_SUB, &a) && sub64(b, a, &r))
        return lyx_add(c, x->u.op.a, typed_int(c, x->dtype, r));
    if (const_rhs(y, IR_E_ADD, &b)) /* x + (p + k) -> (x + p) + k */
        return lyx_add(c, lyx_add(c, x, y->u.op.a), y->u.op.b);
    if (cy && b < 0 && b != INT64_MIN)
        return binary(c, IR_E_SUB, x, typed_int(c, x->dtype, -b));
    return binary(c, IR_E_ADD, x, y);
}

IrExpr *lyx_sub(LyCtx *c, IrExpr *x, IrExpr *y)
{
    int64_t a = 0, b = 0;
    if (lyx_const(y, &b) && b != INT64_MIN)
        return lyx_add(c, x, typed_int(c, y->dtype, -b));
    if (lyx_equal(x, y))
        return lyx_int_like(c, x, 0);
    if (lyx_const(x, &a) && a == 0)
        return lyx_mul(c, y, lyx_int_like(c, y, -1));
    return binary(c, IR_E_SUB, x, y);
}

IrExpr *lyx_mul(LyCtx *c, IrExpr *x, IrExpr *y)
{
    int64_t a = 0, b = 0, r;
    bool cx = lyx_const(x, &a), cy = lyx_const(y, &b);
    if (cx && cy)
        return mul64(a, b, &r) ? typed_int(c, result_type(x, y), r) : binary(c, IR_E_MUL, x, y);
    if ((cx && a == 0) || (cy && b == 0))
        return typed_int(c, result_type(x, y), 0);
    if (cx && a == 1)
        return y;
    if (cy && b == 1)
        return x;
    if (cx)
        return lyx_mul(c, y, x);
    if (cy && const_rhs(x, IR_E_MUL, &a) && mul64(a, b, &r))
        return lyx_mul(c, x->u.op.a, typed_int(c, x->dtype, r));
    return binary(c, IR_E_MUL, x, y);
}

/* x is k * something with k a multiple of d (so x // d and x % d are exact). */
static bool scaled_by(const IrExpr *x, int64_t d, int64_t *k)
{
    return d > 0 && const_rhs(x, IR_E_MUL, k) && *k % d == 0;
}

IrExpr *lyx_fdiv(LyCtx *c, IrExpr *x, IrExpr *y)
{
    int64_t a = 0, b = 0, r;
    bool cx = lyx_const(x, &a), cy = lyx_const(y, &b);
    if (cx && cy && divisor_ok(a, b))
        return typed_int(c, result_type(x, y), floordiv64(a, b));
    if (cy && b == 1)
        return x;
    if (cx && a == 0)
        return x;
    if (lyx_equal(x, y) && !cy)
        return lyx_int_like(c, x, 1);
    if (cy && scaled_by(x, b, &a))
        return lyx_mul(c, x->u.op.a, typed_int(c, x->dtype, a / b));
    if (cy && b > 0 && const_rhs(x, IR_E_FLOORDIV, &a) && a > 0 && mul64(a, b, &r))
        return lyx_fdiv(c, x->u.op.a, typed_int(c, x->dtype, r));
    if (is_op(x, IR_E_MUL) && lyx_equal(x->u.op.b, y))
        return x->u.op.a;
    if (is_op(x, IR_E_MUL) && lyx_equal(x->u.op.a, y))
        return x->u.op.b;
    return binary(c, IR_E_FLOORDIV, x, y);
}

IrExpr *lyx_fmod(LyCtx *c, IrExpr *x, IrExpr *y)
{
    int64_t a = 0, b = 0;
    bool cx = lyx_const(x, &a), cy = lyx_const(y, &b);
    if (cx && cy && divisor_ok(a, b))
        return typed_int(c, result_type(x, y), floormod64(a, b));
    if ((cy && b == 1) || lyx_divisible(x, y))
        return typed_int(c, result_type(x, y), 0);
    if (cy && b > 0 && const_rhs(x, IR_E_FLOORMOD, &a) && a > 0 && a % b == 0)
        return lyx_fmod(c, x->u.op.a, y);
    int64_t lo, hi;
    if (cy && b > 0 && lyx_bound(x, &lo, &hi) && lo >= 0 && hi < b)
        return x;
    return binary(c, IR_E_FLOORMOD, x, y);
}

/* ---------------------------------------------------------------- bitwise calls */
static int64_t bit_fold(IrOp op, int64_t a, int64_t b)
{
    switch (op) {
    case IR_OP_BITWISE_AND: return a & b;
    case IR_OP_BITWISE_OR: return a | b;
    case IR_OP_BITWISE_XOR: return a ^ b;
    case IR_OP_SHIFT_LEFT: return (int64_t)((uint64_t)a << (b & 63));
    case IR_OP_SHIFT_RIGHT: return a >> (b & 63);
    default: TX_UNREACHABLE();
    }
}

static IrExpr *call2(LyCtx *c, IrOp op, IrExpr *x, IrExpr *y)
{
    IrDType t = result_type(x, y);
    IrExpr *e = ir_node(c->arena, IR_E_CALL, t, (TxSpan){0});
    e->u.call.op = op;
    e->u.call.nargs = 2;
    e->u.call.args = TX_NEW_ARRAY(c->arena, IrExpr *, 2);
    e->u.call.args[0] = as_type(c, x, t);
    e->u.call.args[1] = as_type(c, y, t);
    return e;
}

IrExpr *lyx_bit(LyCtx *c, IrOp op, IrExpr *x, IrExpr *y)
{
    int64_t a = 0, b = 0;
    bool cx = lyx_const(x, &a), cy = lyx_const(y, &b);
    if (cx && cy)
        return typed_int(c, result_type(x, y), bit_fold(op, a, b));
    bool shift = op == IR_OP_SHIFT_LEFT || op == IR_OP_SHIFT_RIGHT;
    if (cy && b == 0 && op != IR_OP_BITWISE_AND)
        return x;
    if ((cy && b == 0 && op == IR_OP_BITWISE_AND) || (cx && a == 0 && (shift || op == IR_OP_BITWISE_AND)))
        return typed_int(c, result_type(x, y), 0);
    if (cx && a == 0)
        return y;
    return call2(c, op, x, y);
}

/* ---------------------------------------------------------------- proofs */
bool lyx_equal(const IrExpr *a, const IrExpr *b)
{
    if (a == b)
        return true;
    if (!a || !b)
        return false;
    int64_t x, y;
    if (lyx_const(a, &x) || lyx_const(b, &y))
        return lyx_const(a, &x) && lyx_const(b, &y) && x == y;
    if (a->kind != b->kind)
        return false;
    if (IR_E_IS_BINARY(a->kind))
        return lyx_equal(a->u.op.a, b->u.op.a) && lyx_equal(a->u.op.b, b->u.op.b);
    switch (a->kind) {
    case IR_E_CAST:
        return ir_dtype_eq(a->dtype, b->dtype) && lyx_equal(a->u.op.a, b->u.op.a);
    case IR_E_CALL:
        if (a->u.call.op != b->u.call.op || a->u.call.nargs != b->u.call.nargs ||
            a->u.call.op == IR_OP_PTX || a->u.call.op == IR_OP_CALL_FUNC)
            return false;
        for (int i = 0; i < a->u.call.nargs; i++)
            if (!lyx_equal(a->u.call.args[i], b->u.call.args[i]))
                return false;
        return true;
    case IR_E_LOAD:
        if (a->u.access.buffer != b->u.access.buffer || a->u.access.n != b->u.access.n)
            return false;
        for (int i = 0; i < a->u.access.n; i++)
            if (!lyx_equal(a->u.access.indices[i], b->u.access.indices[i]))
                return false;
        return true;
    default:
        return false; /* variables are equal only by identity */
    }
}

bool lyx_divisible(const IrExpr *x, const IrExpr *d)
{
    int64_t a = 0, b = 0;
    if (lyx_const(d, &b)) {
        if (b == 1 || b == -1)
            return true;
        if (b == 0)
            return false;
        if (lyx_const(x, &a))
            return a % b == 0;
        if (is_op(x, IR_E_MUL))
            return lyx_divisible(x->u.op.a, d) || lyx_divisible(x->u.op.b, d);
        if (is_op(x, IR_E_ADD) || is_op(x, IR_E_SUB))
            return lyx_divisible(x->u.op.a, d) && lyx_divisible(x->u.op.b, d);
        return false;
    }
    if (lyx_equal(x, d) || lyx_is(x, 0))
        return true;
    if (is_op(x, IR_E_MUL))
        return lyx_divisible(x->u.op.a, d) || lyx_divisible(x->u.op.b, d);
    if (is_op(d, IR_E_MUL) && lyx_divisible(x, d->u.op.a)) {
        /* x = k*p and d = q*r: divisible when, after cancelling q, r divides the rest */
        return is_op(x, IR_E_MUL) && lyx_equal(x->u.op.a, d->u.op.a) &&
               lyx_divisible(x->u.op.b, d->u.op.b);
    }
    return false;
}

bool lyx_less(const IrExpr *a, const IrExpr *b)
{
    int64_t x, y, lo, hi;
    if (lyx_const(a, &x) && lyx_const(b, &y))
        return x < y;
    if (lyx_const(b, &y) && lyx_bound(a, &lo, &hi))
        return hi < y;
    return false;
}

/* ---------------------------------------------------------------- bounds */
/* Bounds stay within +-2^40 so that the arithmetic below cannot overflow. */
static bool small(int64_t lo, int64_t hi)
{
    const int64_t lim = (int64_t)1 << 40;
    return lo >= -lim && hi <= lim;
}

static bool bound2(const IrExpr *e, int64_t *l1, int64_t *h1, int64_t *l2, int64_t *h2)
{
    const IrExpr *x = e->kind == IR_E_CALL ? e->u.call.args[0] : e->u.op.a;
    const IrExpr *y = e->kind == IR_E_CALL ? e->u.call.args[1] : e->u.op.b;
    return lyx_bound(x, l1, h1) && lyx_bound(y, l2, h2);
}

static int64_t pow2_cover(int64_t v) /* the smallest 2^k - 1 >= v, for v >= 0 */
{
    int64_t m = 0;
    while (m < v)
        m = m * 2 + 1;
    return m;
}

static bool bound_call(const IrExpr *e, int64_t *lo, int64_t *hi)
{
    if (e->u.call.nargs != 2)
        return false;
    int64_t l1, h1, l2, h2, k;
    const IrExpr *y = e->u.call.args[1];
    switch (e->u.call.op) {
    case IR_OP_BITWISE_AND:
        if (lyx_const(y, &k) && k >= 0)
            return *lo = 0, *hi = k, small(0, k);
        return false;
    case IR_OP_BITWISE_XOR:
    case IR_OP_BITWISE_OR:
        if (!bound2(e, &l1, &h1, &l2, &h2) || l1 < 0 || l2 < 0)
            return false;
        return *lo = 0, *hi = pow2_cover(h1 > h2 ? h1 : h2), true;
    case IR_OP_SHIFT_LEFT:
    case IR_OP_SHIFT_RIGHT:
        if (!bound2(e, &l1, &h1, &l2, &h2) || l1 < 0 || l2 != h2 || l2 < 0 || l2 > 30)
            return false;
        if (e->u.call.op == IR_OP_SHIFT_RIGHT)
            return *lo = l1 >> l2, *hi = h1 >> l2, true;
        return *lo = l1 << l2, *hi = h1 << l2, small(*lo, *hi);
    default:
        return false;
    }
}

bool lyx_bound(const IrExpr *e, int64_t *lo, int64_t *hi)
{
    int64_t l1, h1, l2, h2, k;
    if (lyx_const(e, &k))
        return *lo = *hi = k, small(k, k);
    switch (e->kind) {
    case IR_E_ADD:
        if (!bound2(e, &l1, &h1, &l2, &h2))
            return false;
        return *lo = l1 + l2, *hi = h1 + h2, small(*lo, *hi);
    case IR_E_SUB:
        if (!bound2(e, &l1, &h1, &l2, &h2))
            return false;
        return *lo = l1 - h2, *hi = h1 - l2, small(*lo, *hi);
    case IR_E_MUL:
        if (!lyx_const(e->u.op.b, &k) || !small(k, k) || !lyx_bound(e->u.op.a, &l1, &h1))
            return false;
        if (!mul64(k >= 0 ? l1 : h1, k, lo) || !mul64(k >= 0 ? h1 : l1, k, hi))
            return false;
        return small(*lo, *hi);
    case IR_E_FLOORMOD:
        if (!lyx_const(e->u.op.b, &k) || k <= 0)
            return false;
        if (lyx_bound(e->u.op.a, &l1, &h1) && l1 >= 0 && h1 < k)
            return *lo = l1, *hi = h1, true;
        return *lo = 0, *hi = k - 1, small(0, k);
    case IR_E_FLOORDIV:
        if (!lyx_const(e->u.op.b, &k) || k <= 0 || !lyx_bound(e->u.op.a, &l1, &h1))
            return false;
        return *lo = floordiv64(l1, k), *hi = floordiv64(h1, k), true;
    case IR_E_CALL:
        return bound_call(e, lo, hi);
    default:
        return false;
    }
}

/* ---------------------------------------------------------------- order */
int lyx_compare(const IrExpr *a, const IrExpr *b)
{
    int64_t x, y;
    bool ca = lyx_const(a, &x), cb = lyx_const(b, &y);
    if (ca && cb)
        return (x > y) - (x < y);
    if (ca != cb)
        return ca ? -1 : 1;
    if (a->kind != b->kind)
        return (int)a->kind - (int)b->kind;
    if (a->kind == IR_E_VAR)
        return strcmp(a->u.var.name, b->u.var.name);
    if (IR_E_IS_BINARY(a->kind)) {
        int r = lyx_compare(a->u.op.a, b->u.op.a);
        return r ? r : lyx_compare(a->u.op.b, b->u.op.b);
    }
    return 0;
}

/* ---------------------------------------------------------------- evaluation */
typedef struct Env {
    const IrExpr *const *vars;
    const int64_t *vals;
    int n;
    const struct Env *outer; /* Let bindings chain onto the caller's */
} Env;

static bool eval(const IrExpr *e, const Env *env, int64_t *out);

static bool eval_binary(IrExprKind k, int64_t a, int64_t b, int64_t *out)
{
    if ((k == IR_E_FLOORDIV || k == IR_E_FLOORMOD || k == IR_E_DIV || k == IR_E_MOD) &&
        !divisor_ok(a, b))
        return false;
    switch (k) {
    case IR_E_ADD: return add64(a, b, out);
    case IR_E_SUB: return sub64(a, b, out);
    case IR_E_MUL: return mul64(a, b, out);
    case IR_E_DIV: *out = a / b; break;
    case IR_E_MOD: *out = a % b; break;
    case IR_E_FLOORDIV: *out = floordiv64(a, b); break;
    case IR_E_FLOORMOD: *out = floormod64(a, b); break;
    case IR_E_MIN: *out = a < b ? a : b; break;
    case IR_E_MAX: *out = a > b ? a : b; break;
    case IR_E_EQ: *out = a == b; break;
    case IR_E_NE: *out = a != b; break;
    case IR_E_LT: *out = a < b; break;
    case IR_E_LE: *out = a <= b; break;
    case IR_E_GT: *out = a > b; break;
    case IR_E_GE: *out = a >= b; break;
    case IR_E_AND: *out = a && b; break;
    case IR_E_OR: *out = a || b; break;
    default: return false;
    }
    return true;
}

static bool eval_var(const IrExpr *e, const Env *env, int64_t *out)
{
    for (; env; env = env->outer)
        for (int i = 0; i < env->n; i++)
            if (env->vars[i] == e)
                return *out = env->vals[i], true;
    return false;
}

static bool eval_call(const IrExpr *e, const Env *env, int64_t *out)
{
    const IrCall *k = &e->u.call;
    int64_t a, b, cnd;
    switch (k->op) {
    case IR_OP_BITWISE_AND:
    case IR_OP_BITWISE_OR:
    case IR_OP_BITWISE_XOR:
    case IR_OP_SHIFT_LEFT:
    case IR_OP_SHIFT_RIGHT:
        if (!eval(k->args[0], env, &a) || !eval(k->args[1], env, &b))
            return false;
        return *out = bit_fold(k->op, a, b), true;
    case IR_OP_BITWISE_NOT:
        return eval(k->args[0], env, &a) && (*out = ~a, true);
    case IR_OP_IF_THEN_ELSE:
        return eval(k->args[0], env, &cnd) && eval(k->args[cnd ? 1 : 2], env, out);
    default:
        return false;
    }
}

static int64_t cast_to(IrDType t, int64_t v)
{
    if (t.code == IR_DT_BOOL)
        return v != 0;
    if (!ir_dtype_is_int(t) || t.bits >= 64)
        return v;
    uint64_t mask = ((uint64_t)1 << t.bits) - 1, u = (uint64_t)v & mask;
    bool is_signed = t.code == IR_DT_INT;
    if (is_signed && (u >> (t.bits - 1)))
        return (int64_t)(u | ~mask);
    return (int64_t)u;
}

static bool eval(const IrExpr *e, const Env *env, int64_t *out)
{
    int64_t a = 0, b = 0;
    if (lyx_const(e, out))
        return true;
    if (IR_E_IS_BINARY(e->kind))
        return eval(e->u.op.a, env, &a) && eval(e->u.op.b, env, &b) &&
               eval_binary(e->kind, a, b, out);
    switch (e->kind) {
    case IR_E_VAR: return eval_var(e, env, out);
    case IR_E_NOT: return eval(e->u.op.a, env, &a) && (*out = !a, true);
    case IR_E_CAST: return eval(e->u.op.a, env, &a) && (*out = cast_to(e->dtype, a), true);
    case IR_E_SELECT:
        return eval(e->u.op.cond, env, &a) && eval(a ? e->u.op.a : e->u.op.b, env, out);
    case IR_E_LET: {
        if (!eval(e->u.op.a, env, &a))
            return false;
        const IrExpr *var = e->u.op.var;
        Env inner = {&var, &a, 1, env};
        return eval(e->u.op.b, &inner, out);
    }
    case IR_E_CALL: return eval_call(e, env, out);
    default: return false;
    }
}

bool ly_eval(const IrExpr *e, const IrExpr *const *vars, const int64_t *vals, int nvars,
             int64_t *out)
{
    Env env = {vars, vals, nvars, NULL};
    return e && eval(e, &env, out);
}
