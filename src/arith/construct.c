/* Expression construction with the reference's typing and folding rules
 * (src/tirx/op/op.cc BinaryOpMatchTypes and cast(); src/arith/const_fold.h
 * TryConstFold). The parser builds every operator through ar_binary and the
 * printer asks it whether operator sugar reparses to the same node, so this
 * file is TVM's behaviour, quirks included: integer folds wrap to the dtype
 * (except that int64 overflow is an error), float folds happen in 32- or
 * 64-bit precision only, and % folds only on int32/int64 operands. */
#include <math.h>

#include "arith.h"
#include "../ir/float_bits.h"

static IrExpr *broadcast(TxArena *a, IrExpr *x, int lanes, TxSpan sp)
{
    IrExpr *b = ir_node(a, IR_E_BROADCAST, ir_dtype_with_lanes(x->dtype, lanes), sp);
    b->u.op.a = x, b->u.op.lanes = lanes;
    return b;
}

IrExpr *ar_make_int(TxArena *a, IrDType t, int64_t v, TxSpan sp)
{
    IrDType s = ir_dtype_with_lanes(t, 1);
    IrExpr *c = ir_dtype_is_float(s) ? ir_float(a, s, (double)v, sp)
                                     : ir_int(a, s, ar_wrap_int(s, v), sp); /* one value per bit pattern */
    return t.lanes > 1 ? broadcast(a, c, t.lanes, sp) : c;
}

IrExpr *ar_make_float(TxArena *a, IrDType t, double v, TxSpan sp)
{
    IrDType s = ir_dtype_with_lanes(t, 1);
    IrExpr *c = ir_dtype_is_float(s) ? ir_float(a, s, v, sp)
                                     : ir_int(a, s, ir_float_to_int(s, v), sp);
    return t.lanes > 1 ? broadcast(a, c, t.lanes, sp) : c;
}

static IrExpr *const_like(TxArena *a, IrDType t, const IrExpr *c, TxSpan sp)
{
    if (c->kind == IR_E_INT && ir_dtype_is_float(t))
        return ar_make_float(a, t, ar_int_to_double(c), sp);
    if (c->kind == IR_E_INT)
        return ar_make_int(a, t, c->u.int_val, sp);
    /* converted to an integer, the literal is the value of its dtype (the
     * device converts 16777216.0f for T.float32(16777217)) */
    double v = c->u.float_val;
    return ar_make_float(a, t, ir_dtype_is_float(t) ? v : ir_float_round(c->dtype, v), sp);
}

static IrExpr *cast_node(TxArena *a, IrDType t, IrExpr *x, TxSpan sp)
{
    IrExpr *c = ir_node(a, IR_E_CAST, t, sp);
    c->u.op.a = x;
    return c;
}

IrExpr *ar_cast(TxArena *a, IrDType t, IrExpr *x, TxSpan sp)
{
    if (ir_dtype_eq(x->dtype, t))
        return x;
    bool is_const = x->kind == IR_E_INT || x->kind == IR_E_FLOAT;
    if (t.lanes == 1)
        return is_const ? const_like(a, t, x, sp) : cast_node(a, t, x, sp);
    IrDType elem = ir_dtype_with_lanes(t, 1);
    if (x->dtype.lanes == 1) {
        IrExpr *v = x;
        if (!ir_dtype_eq(x->dtype, elem))
            v = is_const ? const_like(a, elem, x, sp) : cast_node(a, elem, x, sp);
        return broadcast(a, v, t.lanes, sp);
    }
    if (x->kind == IR_E_BROADCAST)
        return broadcast(a, ar_cast(a, elem, x->u.op.a, sp), t.lanes, sp);
    if (x->kind == IR_E_RAMP && ir_dtype_is_int(t)) {
        IrExpr *r = ir_node(a, IR_E_RAMP, t, sp);
        r->u.op.a = ar_cast(a, elem, x->u.op.a, sp);
        r->u.op.b = ar_cast(a, elem, x->u.op.b, sp);
        r->u.op.lanes = x->u.op.lanes;
        return r;
    }
    return cast_node(a, t, x, sp);
}

/* ---------------------------------------------------------------- type matching */
static bool match_lanes(TxArena *a, IrExpr **x, IrExpr **y, const char **err)
{
    IrDType l = (*x)->dtype, r = (*y)->dtype;
    if (l.lanes == 1 && r.lanes > 1)
        *x = broadcast(a, *x, r.lanes, (*x)->span);
    else if (r.lanes == 1 && l.lanes > 1)
        *y = broadcast(a, *y, l.lanes, (*y)->span);
    if ((*x)->dtype.lanes != (*y)->dtype.lanes) {
        *err = "operands have different numbers of vector lanes";
        return false;
    }
    return true;
}

static bool is_opaque(IrDType t) { return t.code == IR_DT_HANDLE || t.code == IR_DT_VOID; }

/* Both floating: widen the narrower float32/float64 operand. */
static bool match_floats(TxArena *a, IrExpr **x, IrExpr **y, const char **err)
{
    IrDType l = (*x)->dtype, r = (*y)->dtype;
    if (l.code != r.code || l.code != IR_DT_FLOAT) {
        *err = "operands have incompatible float dtypes";
        return false;
    }
    if (l.bits < r.bits)
        *x = ar_cast(a, r, *x, (*x)->span);
    else
        *y = ar_cast(a, l, *y, (*y)->span);
    return true;
}

/* Both integer or bool: the wider wins; at equal width unsigned wins. */
static void match_ints(TxArena *a, IrExpr **x, IrExpr **y)
{
    IrDType l = (*x)->dtype, r = (*y)->dtype;
    bool lu = l.code != IR_DT_INT, ru = r.code != IR_DT_INT;
    if (l.bits < r.bits)
        *x = ar_cast(a, r, *x, (*x)->span);
    else if (l.bits > r.bits)
        *y = ar_cast(a, l, *y, (*y)->span);
    else if (lu && !ru)
        *y = ar_cast(a, l, *y, (*y)->span);
    else
        *x = ar_cast(a, r, *x, (*x)->span);
}

bool ar_match_types(TxArena *a, IrExpr **x, IrExpr **y, const char **err)
{
    if (ir_dtype_eq((*x)->dtype, (*y)->dtype))
        return true;
    if (!match_lanes(a, x, y, err))
        return false;
    IrDType l = (*x)->dtype, r = (*y)->dtype;
    if (ir_dtype_eq(l, r))
        return true;
    if (is_opaque(l) || is_opaque(r)) {
        *err = "operands have incompatible dtypes";
        return false;
    }
    bool lf = ir_dtype_is_float(l), rf = ir_dtype_is_float(r);
    if (lf && rf)
        return match_floats(a, x, y, err);
    if (rf) {
        *x = ar_cast(a, r, *x, (*x)->span);
        return true;
    }
    if (lf) {
        *y = ar_cast(a, l, *y, (*y)->span);
        return true;
    }
    bool lint = ir_dtype_is_int(l) || l.code == IR_DT_BOOL;
    bool rint = ir_dtype_is_int(r) || r.code == IR_DT_BOOL;
    if (!lint || !rint) {
        *err = "operands have incompatible dtypes";
        return false;
    }
    match_ints(a, x, y);
    return true;
}

/* ---------------------------------------------------------------- TryConstFold */
static bool is_index_type(IrDType t)
{
    return t.code == IR_DT_INT && t.lanes == 1 && (t.bits == 32 || t.bits == 64);
}

static IrExpr *bool_const(TxArena *a, bool v) { return ir_int(a, IR_BOOL, v, (TxSpan){0}); }

/* Whether the reference folds remainder k of x and y: for index types
 * (int32, int64), and for two unsigned literals, floormod at any width and
 * truncmod at 64 bits (what apache-tvm 0.27 does; int8 and int16 remainders
 * stay nodes). */
static bool folds_remainder(IrExprKind k, const IrExpr *x, const IrExpr *y)
{
    if (is_index_type(x->dtype) && is_index_type(y->dtype))
        return true;
    bool uint_pair = x->kind == IR_E_INT && y->kind == IR_E_INT && x->dtype.code == IR_DT_UINT &&
                     y->dtype.code == IR_DT_UINT;
    return uint_pair && (k == IR_E_FLOORMOD || x->dtype.bits == 64);
}

/* A comparison k of two constants from how they order (none of lt, eq, gt
 * for an unordered pair: a NaN); NULL when k is no comparison. */
static IrExpr *fold_order(TxArena *a, IrExprKind k, bool lt, bool eq, bool gt)
{
    switch (k) {
    case IR_E_EQ: return bool_const(a, eq);
    case IR_E_NE: return bool_const(a, !eq);
    case IR_E_LT: return bool_const(a, lt);
    case IR_E_LE: return bool_const(a, lt || eq);
    case IR_E_GT: return bool_const(a, gt);
    case IR_E_GE: return bool_const(a, gt || eq);
    default: return NULL;
    }
}

/* Integer folds wrap to the dtype, except that an int64 result that does not
 * fit is an error (as a literal that does not fit its dtype is); so is a zero
 * divisor. */
static IrExpr *fold_int_pair(TxArena *a, IrExprKind k, IrDType t, int64_t x, int64_t y,
                             const char **err)
{
    uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
    int64_t r;
    if (t.code == IR_DT_UINT && t.bits == 64) { /* unsigned throughout */
        IrExpr *order = fold_order(a, k, ux < uy, ux == uy, ux > uy);
        if (order)
            return order;
        if (!ar_eval_typed(t, k, x, y, &r)) {
            *err = "division by zero";
            return NULL;
        }
        return ir_int(a, t, r, (TxSpan){0});
    }
    switch (k) {
    case IR_E_ADD: case IR_E_SUB: case IR_E_MUL:
        if (t.code == IR_DT_INT && t.bits == 64 && !ar_eval_binary(k, x, y, &r)) {
            *err = "integer overflow: the result does not fit in int64";
            return NULL;
        }
        r = (int64_t)(k == IR_E_ADD ? ux + uy : k == IR_E_SUB ? ux - uy : ux * uy);
        break;
    case IR_E_DIV: case IR_E_MOD: case IR_E_FLOORDIV: case IR_E_FLOORMOD:
        if (y == 0) {
            *err = "division by zero";
            return NULL;
        }
        if (x == INT64_MIN && y == -1)
            r = k == IR_E_MOD || k == IR_E_FLOORMOD ? 0 : x;
        else
            ar_eval_binary(k, x, y, &r);
        break;
    case IR_E_MIN: case IR_E_MAX:
        ar_eval_binary(k, x, y, &r);
        return ir_int(a, t, r, (TxSpan){0});
    case IR_E_EQ: case IR_E_NE: case IR_E_LT: case IR_E_LE: case IR_E_GT: case IR_E_GE:
        ar_eval_binary(k, x, y, &r);
        return bool_const(a, r);
    default: return NULL;
    }
    return ir_int(a, t, ar_wrap_int(t, r), (TxSpan){0});
}

/* Float folds happen for 32- and 64-bit floats only, in that precision. */
static IrExpr *float_result(TxArena *a, IrDType t, double v)
{
    if (t.bits != 32 && t.bits != 64)
        return NULL;
    return ir_float(a, t, t.bits == 32 ? (double)(float)v : v, (TxSpan){0});
}

static double float_op(IrExprKind k, IrDType t, double x, double y)
{
    bool f32 = t.bits == 32;
    switch (k) {
    case IR_E_ADD: return f32 ? (double)((float)x + (float)y) : x + y;
    case IR_E_SUB: return f32 ? (double)((float)x - (float)y) : x - y;
    case IR_E_MUL: return f32 ? (double)((float)x * (float)y) : x * y;
    case IR_E_DIV: return f32 ? (double)((float)x / (float)y) : x / y;
    default: return f32 ? floor((double)((float)x / (float)y)) : floor(x / y); /* FLOORDIV */
    }
}

/* Two float literals of dtype t, each taken as the value of t it stands for
 * (a float32 literal may carry more digits than float32 keeps, as the
 * reference's does; the device sees it rounded). */
static IrExpr *fold_float_pair(TxArena *a, IrExprKind k, IrExpr *ex, IrExpr *ey, const char **err)
{
    IrDType t = ex->dtype;
    double x = ir_float_round(t, ex->u.float_val), y = ir_float_round(t, ey->u.float_val);
    switch (k) {
    case IR_E_DIV:
        if (ey->u.float_val == 0) {
            *err = "division by zero";
            return NULL;
        }
        return float_result(a, t, float_op(k, t, x, y));
    case IR_E_FLOORDIV:
        return ey->u.float_val == 0 ? NULL : float_result(a, t, float_op(k, t, x, y));
    case IR_E_ADD: case IR_E_SUB: case IR_E_MUL:
        return float_result(a, t, float_op(k, t, x, y));
    /* the operand itself; a NaN loses, as with CUDA's fminf and fmaxf */
    case IR_E_MIN: return fmin(x, y) == x ? ex : ey;
    case IR_E_MAX: return fmax(x, y) == x ? ex : ey;
    default: return fold_order(a, k, x < y, x == y, x > y);
    }
}

/* The identities of TryConstFold when one side is a literal. */
static IrExpr *fold_identity(TxArena *a, IrExprKind k, IrExpr *x, IrExpr *y, const char **err)
{
    bool xi = x->kind == IR_E_INT, yi = y->kind == IR_E_INT;
    bool xf = x->kind == IR_E_FLOAT, yf = y->kind == IR_E_FLOAT;
    double xv = xi ? (double)x->u.int_val : xf ? x->u.float_val : NAN;
    double yv = yi ? (double)y->u.int_val : yf ? y->u.float_val : NAN;
    switch (k) {
    case IR_E_ADD:
        return xv == 0 ? y : yv == 0 ? x : NULL;
    case IR_E_SUB:
        return yv == 0 ? x : NULL;
    case IR_E_MUL:
        if (xv == 1) return y;
        if (xv == 0) return x;
        if (yv == 1) return x;
        if (yv == 0) return y;
        return NULL;
    case IR_E_DIV: case IR_E_FLOORDIV:
        if (xv == 0 || yv == 1)
            return x;
        if (yv == 0)
            *err = "division by zero";
        return NULL;
    case IR_E_MOD: case IR_E_FLOORMOD:
        if (xi && xv == 0) return x;
        if (yi && yv == 1) return ir_int(a, x->dtype, 0, (TxSpan){0});
        if (yi && yv == 0) *err = "division by zero";
        return NULL;
    default: return NULL;
    }
}

/* && and || with a literal side. */
static IrExpr *fold_logical(IrExprKind k, IrExpr *x, IrExpr *y)
{
    if (x->kind == IR_E_INT)
        return (x->u.int_val != 0) == (k == IR_E_AND) ? y : x;
    if (y->kind == IR_E_INT)
        return (y->u.int_val != 0) == (k == IR_E_AND) ? x : y;
    return NULL;
}

IrExpr *ar_fold_binary(TxArena *a, IrExprKind k, IrExpr *x, IrExpr *y, const char **err)
{
    IrDType t = x->dtype;
    if (k == IR_E_AND || k == IR_E_OR)
        return fold_logical(k, x, y);
    if ((k == IR_E_MOD || k == IR_E_FLOORMOD) && !folds_remainder(k, x, y)) {
        /* not folded, but a zero divisor is an error here too (the node's
         * printed form would not read back) */
        if ((y->kind == IR_E_INT && y->u.int_val == 0) || (y->kind == IR_E_FLOAT && y->u.float_val == 0))
            *err = "division by zero";
        return NULL;
    }
    bool pair_int = x->kind == IR_E_INT && y->kind == IR_E_INT;
    if (k == IR_E_SUB && pair_int && t.code == IR_DT_UINT && x->u.int_val == 0 && y->u.int_val > 0) {
        *err = "subtracting from unsigned zero gives a negative unsigned value";
        return NULL;
    }
    if (pair_int)
        return fold_int_pair(a, k, t, x->u.int_val, y->u.int_val, err);
    IrExpr *r = NULL;
    /* two values before the identities, as the reference: 0.0 * inf is NaN */
    if (x->kind == IR_E_FLOAT && y->kind == IR_E_FLOAT)
        r = fold_float_pair(a, k, x, y, err);
    if (!r && !*err)
        r = fold_identity(a, k, x, y, err);
    if (r || *err)
        return r;
    if ((k == IR_E_MIN || k == IR_E_MAX) && x == y)
        return x;
    return NULL;
}

IrExpr *ar_binary(TxArena *a, IrExprKind k, IrExpr *x, IrExpr *y, TxSpan sp, const char **err)
{
    *err = NULL;
    if (!ar_match_types(a, &x, &y, err))
        return NULL;
    IrExpr *r = ar_fold_binary(a, k, x, y, err);
    if (*err)
        return NULL;
    if (r) {
        if (r->span.src == NULL && (r->kind == IR_E_INT || r->kind == IR_E_FLOAT))
            r->span = sp;
        return r;
    }
    return ir_binary(a, k, x, y, sp);
}
