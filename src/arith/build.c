/* Folding builders of index expressions for library code (the layout algebra,
 * passes): constants folded with checked int64 arithmetic, no `*1`, `+0`,
 * `//1`, `%1`, constants kept rightmost, chains of constant offsets and
 * factors merged, exact divisions of scaled terms done. They need no facts;
 * ar_simplify is the full simplifier. */
#include "internal.h"

static IrDType int_type_for(int64_t v)
{
    return (v >= INT32_MIN && v <= INT32_MAX) ? IR_INT32 : IR_INT64;
}

IrExpr *ar_index_int(TxArena *a, int64_t v) { return ir_int(a, int_type_for(v), v, (TxSpan){0}); }

IrExpr *ar_index_int_like(TxArena *a, const IrExpr *like, int64_t v)
{
    IrDType t = like && ir_dtype_is_int(like->dtype) && like->dtype.bits > 32 ? like->dtype
                                                                               : int_type_for(v);
    return ir_int(a, t, v, (TxSpan){0});
}

/* The dtype of a result: the non-literal operand's, else the wider one's. */
static IrDType result_type(const IrExpr *x, const IrExpr *y)
{
    int64_t k;
    bool cx = ar_const_int(x, &k), cy = ar_const_int(y, &k);
    if (cx && !cy)
        return y->dtype;
    if (cy && !cx)
        return x->dtype;
    return x->dtype.bits >= y->dtype.bits ? x->dtype : y->dtype;
}

/* A literal of t; an int32 value that does not fit becomes int64. */
static IrExpr *typed_int(TxArena *a, IrDType t, int64_t v)
{
    if (!ir_dtype_is_int(t) || t.bits < 32)
        t = int_type_for(v);
    if (t.bits == 32 && (v < INT32_MIN || v > INT32_MAX))
        t = IR_INT64;
    return ir_int(a, t, v, (TxSpan){0});
}

/* An operand in the dtype of the node it joins: literals are retyped, a
 * narrower integer expression is cast (int32 strides with int64 indices). */
static IrExpr *as_type(TxArena *a, IrExpr *e, IrDType t)
{
    int64_t k;
    if (ir_dtype_eq(e->dtype, t))
        return e;
    if (ar_const_int(e, &k))
        return typed_int(a, t, k);
    if (!ir_dtype_is_int(e->dtype) || !ir_dtype_is_int(t))
        return e;
    IrExpr *cast = ir_node(a, IR_E_CAST, t, (TxSpan){0});
    cast->u.op.a = e;
    return cast;
}

static IrExpr *node(TxArena *a, IrExprKind k, IrExpr *x, IrExpr *y)
{
    IrDType t = result_type(x, y);
    return ir_binary(a, k, as_type(a, x, t), as_type(a, y, t), (TxSpan){0});
}

/* e is `p k literal`; *v receives the literal. */
static bool const_rhs(const IrExpr *e, IrExprKind k, int64_t *v)
{
    return e->kind == k && ar_const_int(e->u.op.b, v);
}

/* Both literals: the folded value (unsigned for uint64), or the plain node
 * when int64 overflows or the divisor is zero. */
static IrExpr *fold_pair(TxArena *a, IrExprKind k, IrExpr *x, IrExpr *y, int64_t u, int64_t v)
{
    int64_t r;
    IrDType t = result_type(x, y);
    return ar_eval_typed(t, k, u, v, &r) ? typed_int(a, t, r) : node(a, k, x, y);
}

IrExpr *ar_add(TxArena *a, IrExpr *x, IrExpr *y)
{
    int64_t u = 0, v = 0, r;
    bool cx = ar_const_int(x, &u), cy = ar_const_int(y, &v);
    if (cx && cy)
        return fold_pair(a, IR_E_ADD, x, y, u, v);
    if (cx && u == 0)
        return y;
    if (cy && v == 0)
        return x;
    if (cx)
        return ar_add(a, y, x);
    if (cy && const_rhs(x, IR_E_ADD, &u) && ar_eval_binary(IR_E_ADD, u, v, &r))
        return ar_add(a, x->u.op.a, typed_int(a, x->dtype, r));
    if (cy && const_rhs(x, IR_E_SUB, &u) && ar_eval_binary(IR_E_SUB, v, u, &r))
        return ar_add(a, x->u.op.a, typed_int(a, x->dtype, r));
    if (const_rhs(y, IR_E_ADD, &v)) /* x + (p + k) -> (x + p) + k */
        return ar_add(a, ar_add(a, x, y->u.op.a), y->u.op.b);
    if (cy && v < 0 && v != INT64_MIN)
        return node(a, IR_E_SUB, x, typed_int(a, x->dtype, -v));
    return node(a, IR_E_ADD, x, y);
}

IrExpr *ar_sub(TxArena *a, IrExpr *x, IrExpr *y)
{
    int64_t v = 0;
    if (ar_const_int(y, &v) && v != INT64_MIN)
        return ar_add(a, x, typed_int(a, y->dtype, -v));
    if (ar_expr_value_equal(x, y))
        return ar_index_int_like(a, x, 0);
    if (ar_is_const(x, 0))
        return ar_mul(a, y, ar_index_int_like(a, y, -1));
    return node(a, IR_E_SUB, x, y);
}

IrExpr *ar_mul(TxArena *a, IrExpr *x, IrExpr *y)
{
    int64_t u = 0, v = 0, r;
    bool cx = ar_const_int(x, &u), cy = ar_const_int(y, &v);
    if (cx && cy)
        return fold_pair(a, IR_E_MUL, x, y, u, v);
    if ((cx && u == 0) || (cy && v == 0))
        return typed_int(a, result_type(x, y), 0);
    if (cx && u == 1)
        return y;
    if (cy && v == 1)
        return x;
    if (cx)
        return ar_mul(a, y, x);
    if (cy && const_rhs(x, IR_E_MUL, &u) && ar_eval_binary(IR_E_MUL, u, v, &r))
        return ar_mul(a, x->u.op.a, typed_int(a, x->dtype, r));
    return node(a, IR_E_MUL, x, y);
}

/* x is k * something with k a multiple of d (so x // d and x % d are exact). */
static bool scaled_by(const IrExpr *x, int64_t d, int64_t *k)
{
    return d > 0 && const_rhs(x, IR_E_MUL, k) && *k % d == 0;
}

IrExpr *ar_floordiv(TxArena *a, IrExpr *x, IrExpr *y)
{
    int64_t u = 0, v = 0, r;
    bool cx = ar_const_int(x, &u), cy = ar_const_int(y, &v);
    if (cx && cy)
        return fold_pair(a, IR_E_FLOORDIV, x, y, u, v);
    if ((cy && v == 1) || (cx && u == 0))
        return x;
    if (!cy && ar_expr_value_equal(x, y))
        return ar_index_int_like(a, x, 1);
    if (cy && scaled_by(x, v, &u))
        return ar_mul(a, x->u.op.a, typed_int(a, x->dtype, u / v));
    if (cy && v > 0 && const_rhs(x, IR_E_FLOORDIV, &u) && u > 0 &&
        ar_eval_binary(IR_E_MUL, u, v, &r))
        return ar_floordiv(a, x->u.op.a, typed_int(a, x->dtype, r));
    if (x->kind == IR_E_MUL && ar_expr_value_equal(x->u.op.b, y))
        return x->u.op.a;
    if (x->kind == IR_E_MUL && ar_expr_value_equal(x->u.op.a, y))
        return x->u.op.b;
    return node(a, IR_E_FLOORDIV, x, y);
}

IrExpr *ar_floormod(TxArena *a, IrExpr *x, IrExpr *y)
{
    int64_t u = 0, v = 0, lo, hi;
    bool cx = ar_const_int(x, &u), cy = ar_const_int(y, &v);
    if (cx && cy)
        return fold_pair(a, IR_E_FLOORMOD, x, y, u, v);
    if ((cy && v == 1) || ar_divisible(x, y))
        return typed_int(a, result_type(x, y), 0);
    if (cy && v > 0 && const_rhs(x, IR_E_FLOORMOD, &u) && u > 0 && u % v == 0)
        return ar_floormod(a, x->u.op.a, y);
    if (cy && v > 0 && ar_bound(NULL, x, &lo, &hi) && lo >= 0 && hi < v)
        return x;
    return node(a, IR_E_FLOORMOD, x, y);
}

/* ---------------------------------------------------------------- bitwise calls */
static IrExpr *call2(TxArena *a, IrOp op, IrExpr *x, IrExpr *y)
{
    IrDType t = result_type(x, y);
    IrExpr *e = ir_node(a, IR_E_CALL, t, (TxSpan){0});
    e->u.call.op = op;
    e->u.call.nargs = 2;
    e->u.call.args = TX_NEW_ARRAY(a, IrExpr *, 2);
    e->u.call.args[0] = as_type(a, x, t);
    e->u.call.args[1] = as_type(a, y, t);
    return e;
}

IrExpr *ar_bitwise(TxArena *a, IrOp op, IrExpr *x, IrExpr *y)
{
    int64_t u = 0, v = 0;
    bool cx = ar_const_int(x, &u), cy = ar_const_int(y, &v);
    if (cx && cy)
        return typed_int(a, result_type(x, y), ar_bit_fold(result_type(x, y), op, u, v));
    bool shift = op == IR_OP_SHIFT_LEFT || op == IR_OP_SHIFT_RIGHT;
    bool and_ = op == IR_OP_BITWISE_AND;
    if (cy && v == 0 && !and_)
        return x;
    if ((cy && v == 0 && and_) || (cx && u == 0 && (shift || and_)))
        return typed_int(a, result_type(x, y), 0);
    if (cx && u == 0)
        return y;
    return call2(a, op, x, y);
}
