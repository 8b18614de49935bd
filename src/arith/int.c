/* Integer primitives shared by every folding entry point of the arith layer:
 * literal detection, dtype ranges, wrapping to a width, floor division and
 * exact (overflow-checked) int64 evaluation of binary node kinds. */
#include "internal.h"

bool ar_const_int(const IrExpr *e, int64_t *v)
{
    if (!e || (e->kind != IR_E_INT && e->kind != IR_E_PYINT))
        return false;
    *v = e->u.int_val;
    return true;
}

bool ar_is_const(const IrExpr *e, int64_t v)
{
    int64_t k;
    return ar_const_int(e, &k) && k == v;
}

bool ar_int_fits(IrDType t, int64_t v, bool big)
{
    if (t.bits == 0)
        return false; /* void holds no value */
    if (t.code == IR_DT_BOOL)
        return !big && (v == 0 || v == 1);
    if (t.code == IR_DT_UINT) {
        if (big)
            return t.bits == 64;
        if (v < 0)
            return false;
        return t.bits >= 64 || v < ((int64_t)1 << t.bits);
    }
    if (big)
        return false;
    if (t.bits >= 64)
        return true;
    int64_t lim = (int64_t)1 << (t.bits - 1);
    return v >= -lim && v < lim;
}

int64_t ar_wrap_int(IrDType t, int64_t v)
{
    if (t.code == IR_DT_BOOL)
        return v != 0;
    if (!ir_dtype_is_int(t) || t.bits >= 64)
        return v;
    uint64_t mask = ((uint64_t)1 << t.bits) - 1, u = (uint64_t)v & mask;
    if (t.code == IR_DT_INT && (u >> (t.bits - 1)) & 1)
        u |= ~mask;
    return (int64_t)u;
}

void ar_dtype_range(IrDType t, int64_t *lo, int64_t *hi)
{
    if (t.code == IR_DT_BOOL) {
        *lo = 0, *hi = 1;
    } else if (t.code == IR_DT_UINT) {
        *lo = 0;
        *hi = t.bits >= 63 ? INT64_MAX : ((int64_t)1 << t.bits) - 1;
    } else if (t.code == IR_DT_INT && t.bits < 64) {
        *lo = -((int64_t)1 << (t.bits - 1));
        *hi = ((int64_t)1 << (t.bits - 1)) - 1;
    } else {
        *lo = INT64_MIN, *hi = INT64_MAX;
    }
}

double ar_int_to_double(const IrExpr *c)
{
    return c->dtype.code == IR_DT_UINT ? (double)(uint64_t)c->u.int_val : (double)c->u.int_val;
}

int64_t ar_floordiv64(int64_t a, int64_t b)
{
    int64_t q = a / b, r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}

int64_t ar_floormod64(int64_t a, int64_t b)
{
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

int64_t ar_gcd64(int64_t a, int64_t b)
{
    uint64_t x = a < 0 ? -(uint64_t)a : (uint64_t)a, y = b < 0 ? -(uint64_t)b : (uint64_t)b;
    while (y) {
        uint64_t t = x % y;
        x = y, y = t;
    }
    return x > INT64_MAX ? (int64_t)1 << 62 : (int64_t)x;
}

static bool is_division(IrExprKind k)
{
    return k == IR_E_DIV || k == IR_E_MOD || k == IR_E_FLOORDIV || k == IR_E_FLOORMOD;
}

bool ar_eval_binary(IrExprKind k, int64_t a, int64_t b, int64_t *out)
{
    if (is_division(k) && (b == 0 || (b == -1 && a == INT64_MIN)))
        return false;
    switch (k) {
    case IR_E_ADD: return !__builtin_add_overflow(a, b, out);
    case IR_E_SUB: return !__builtin_sub_overflow(a, b, out);
    case IR_E_MUL: return !__builtin_mul_overflow(a, b, out);
    case IR_E_DIV: *out = a / b; break;
    case IR_E_MOD: *out = a % b; break;
    case IR_E_FLOORDIV: *out = ar_floordiv64(a, b); break;
    case IR_E_FLOORMOD: *out = ar_floormod64(a, b); break;
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

bool ar_eval_typed(IrDType t, IrExprKind k, int64_t a, int64_t b, int64_t *out)
{
    if (t.code != IR_DT_UINT || t.bits != 64)
        return ar_eval_binary(k, a, b, out);
    /* values past INT64_MAX are held as negative bit patterns */
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    if (is_division(k) && ub == 0)
        return false;
    switch (k) {
    case IR_E_ADD: *out = (int64_t)(ua + ub); break;
    case IR_E_SUB: *out = (int64_t)(ua - ub); break;
    case IR_E_MUL: *out = (int64_t)(ua * ub); break;
    case IR_E_DIV: case IR_E_FLOORDIV: *out = (int64_t)(ua / ub); break;
    case IR_E_MOD: case IR_E_FLOORMOD: *out = (int64_t)(ua % ub); break;
    case IR_E_MIN: *out = (int64_t)(ua < ub ? ua : ub); break;
    case IR_E_MAX: *out = (int64_t)(ua > ub ? ua : ub); break;
    case IR_E_LT: *out = ua < ub; break;
    case IR_E_LE: *out = ua <= ub; break;
    case IR_E_GT: *out = ua > ub; break;
    case IR_E_GE: *out = ua >= ub; break;
    default: return ar_eval_binary(k, a, b, out); /* == != && || */
    }
    return true;
}

int64_t ar_bit_fold(IrDType t, IrOp op, int64_t u, int64_t v)
{
    if (op == IR_OP_SHIFT_RIGHT && t.code == IR_DT_UINT) /* logical: a uint64 may be negative here */
        return (int64_t)((uint64_t)u >> (v & 63));
    switch (op) {
    case IR_OP_BITWISE_AND: return u & v;
    case IR_OP_BITWISE_OR: return u | v;
    case IR_OP_BITWISE_XOR: return u ^ v;
    case IR_OP_SHIFT_LEFT: return (int64_t)((uint64_t)u << (v & 63));
    case IR_OP_SHIFT_RIGHT: return u >> (v & 63);
    default: TX_UNREACHABLE();
    }
}

bool ar_int_bitop(IrDType t, IrOp op, int64_t a, int64_t b, int64_t *out)
{
    int bits = t.bits ? t.bits : 32, width = bits < 32 ? 32 : bits;
    if ((op == IR_OP_SHIFT_LEFT || op == IR_OP_SHIFT_RIGHT) && (b < 0 || b >= width))
        return false;
    uint64_t ua = (uint64_t)a, mask = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
    int64_t r;
    switch (op) {
    case IR_OP_BITWISE_AND: r = a & b; break;
    case IR_OP_BITWISE_OR: r = a | b; break;
    case IR_OP_BITWISE_XOR: r = a ^ b; break;
    case IR_OP_BITWISE_NOT: r = ~a; break;
    case IR_OP_SHIFT_LEFT: r = (int64_t)(ua << b); break;
    case IR_OP_SHIFT_RIGHT: /* arithmetic for signed, logical for unsigned */
        r = t.code == IR_DT_UINT ? (int64_t)((ua & mask) >> b) : a >> b;
        break;
    default: return false;
    }
    *out = ar_wrap_int(t, r);
    return true;
}

bool ar_is_bitwise(IrOp op)
{
    return op == IR_OP_BITWISE_AND || op == IR_OP_BITWISE_OR || op == IR_OP_BITWISE_XOR ||
           op == IR_OP_SHIFT_LEFT || op == IR_OP_SHIFT_RIGHT;
}
