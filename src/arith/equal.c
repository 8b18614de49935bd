/* Structural equality of expressions (variables by identity; TVM's
 * ExprDeepEqual), a value-level variant for layout parameters, a
 * deterministic order for sorting, and structural divisibility proofs. */
#include <string.h>

#include "arith.h"

static bool equal(const IrExpr *x, const IrExpr *y, bool by_value);

static bool equal_list(IrExpr *const *xs, IrExpr *const *ys, int n, bool by_value)
{
    for (int i = 0; i < n; i++)
        if (!equal(xs[i], ys[i], by_value))
            return false;
    return true;
}

static bool equal_call(const IrCall *x, const IrCall *y, bool by_value)
{
    if (x->op != y->op || x->nargs != y->nargs || x->nkwargs || y->nkwargs ||
        x->op == IR_OP_PTX || x->op == IR_OP_CALL_FUNC)
        return false;
    return equal_list(x->args, y->args, x->nargs, by_value);
}

static bool equal_load(const IrExpr *x, const IrExpr *y, bool by_value)
{
    return x->u.access.buffer == y->u.access.buffer && x->u.access.n == y->u.access.n &&
           equal(x->u.access.predicate, y->u.access.predicate, by_value) &&
           equal_list(x->u.access.indices, y->u.access.indices, x->u.access.n, by_value);
}

static bool equal(const IrExpr *x, const IrExpr *y, bool by_value)
{
    if (x == y)
        return true;
    if (!x || !y)
        return false;
    int64_t a, b;
    if (by_value && (ar_const_int(x, &a) || ar_const_int(y, &b)))
        return ar_const_int(x, &a) && ar_const_int(y, &b) && a == b;
    if (x->kind != y->kind || (!by_value && !ir_dtype_eq(x->dtype, y->dtype)))
        return false;
    if (IR_E_IS_BINARY(x->kind))
        return equal(x->u.op.a, y->u.op.a, by_value) && equal(x->u.op.b, y->u.op.b, by_value);
    switch (x->kind) {
    case IR_E_INT: case IR_E_PYINT: case IR_E_PYBOOL: return x->u.int_val == y->u.int_val;
    case IR_E_FLOAT: case IR_E_PYFLOAT: return x->u.float_val == y->u.float_val;
    case IR_E_STR: case IR_E_OP: return !strcmp(x->u.str, y->u.str);
    case IR_E_CAST:
        return ir_dtype_eq(x->dtype, y->dtype) && equal(x->u.op.a, y->u.op.a, by_value);
    case IR_E_NOT: return equal(x->u.op.a, y->u.op.a, by_value);
    case IR_E_SELECT:
        return equal(x->u.op.cond, y->u.op.cond, by_value) &&
               equal(x->u.op.a, y->u.op.a, by_value) && equal(x->u.op.b, y->u.op.b, by_value);
    case IR_E_RAMP: case IR_E_BROADCAST:
        return x->u.op.lanes == y->u.op.lanes && equal(x->u.op.a, y->u.op.a, by_value) &&
               equal(x->u.op.b, y->u.op.b, by_value);
    case IR_E_CALL: return equal_call(&x->u.call, &y->u.call, by_value);
    case IR_E_LOAD: return equal_load(x, y, by_value);
    default: return false; /* variables are equal only by identity */
    }
}

bool ar_expr_equal(const IrExpr *x, const IrExpr *y) { return equal(x, y, false); }
bool ar_expr_value_equal(const IrExpr *x, const IrExpr *y) { return equal(x, y, true); }

int ar_expr_compare(const IrExpr *x, const IrExpr *y)
{
    int64_t a, b;
    bool ca = ar_const_int(x, &a), cb = ar_const_int(y, &b);
    if (ca && cb)
        return (a > b) - (a < b);
    if (ca != cb)
        return ca ? -1 : 1;
    if (x->kind != y->kind)
        return (int)x->kind - (int)y->kind;
    if (x->kind == IR_E_VAR)
        return strcmp(x->u.var.name, y->u.var.name);
    if (IR_E_IS_BINARY(x->kind)) {
        int r = ar_expr_compare(x->u.op.a, y->u.op.a);
        return r ? r : ar_expr_compare(x->u.op.b, y->u.op.b);
    }
    return 0;
}

/* ---------------------------------------------------------------- divisibility */
/* A cast from integer type `from` to `to` that keeps every value. */
static bool keeps_value(IrDType from, IrDType to)
{
    if (to.code != IR_DT_INT || from.lanes != to.lanes)
        return false;
    return (from.code == IR_DT_INT && to.bits >= from.bits) ||
           (from.code == IR_DT_UINT && to.bits > from.bits);
}

/* The known multiple of the other operand of a mod or floormod by d. */
static int64_t mod_multiple(int64_t x, int64_t d, bool const_d)
{
    return const_d && d && x % d == 0 ? 0 : ar_gcd64(x, d);
}

int64_t ar_known_multiple(const IrPtrMap *known, const IrExpr *e)
{
    int64_t v, a, b, r;
    uintptr_t k;
    if (ar_const_int(e, &v))
        return ar_gcd64(v, 0);
    switch (e->kind) {
    case IR_E_ADD: case IR_E_SUB: case IR_E_MIN: case IR_E_MAX: case IR_E_SELECT:
        return ar_gcd64(ar_known_multiple(known, e->u.op.a), ar_known_multiple(known, e->u.op.b));
    case IR_E_MUL:
        a = ar_known_multiple(known, e->u.op.a), b = ar_known_multiple(known, e->u.op.b);
        /* past int64 either factor alone still divides it */
        return __builtin_mul_overflow(a, b, &r) ? (a > b ? a : b) : r;
    case IR_E_FLOORDIV: case IR_E_DIV: /* exact: a multiple of d * m over d */
        a = ar_known_multiple(known, e->u.op.a);
        return ar_const_int(e->u.op.b, &v) && v && v != INT64_MIN && a % v == 0
                   ? a / (v < 0 ? -v : v)
                   : 1;
    case IR_E_FLOORMOD: case IR_E_MOD: /* a - b * (a div b) */
        return mod_multiple(ar_known_multiple(known, e->u.op.a),
                            ar_known_multiple(known, e->u.op.b), ar_const_int(e->u.op.b, &v));
    case IR_E_CAST:
        if (keeps_value(e->u.op.a->dtype, e->dtype))
            return ar_known_multiple(known, e->u.op.a);
        /* wrapping to fewer bits keeps a power of two */
        if (!ir_dtype_is_int(e->dtype) || !ir_dtype_is_int(e->u.op.a->dtype))
            return 1;
        a = ar_known_multiple(known, e->u.op.a);
        return a ? a & -a : 0;
    case IR_E_CALL:
        if (e->u.call.op == IR_OP_IF_THEN_ELSE && e->u.call.nargs == 3)
            return ar_gcd64(ar_known_multiple(known, e->u.call.args[1]),
                            ar_known_multiple(known, e->u.call.args[2]));
        return 1;
    case IR_E_VAR: return known && ir_ptrmap_get(known, e, &k) ? (int64_t)k : 1;
    case IR_E_LOAD:
        return known && ir_dtype_is_int(e->dtype) && ir_ptrmap_get(known, e->u.access.buffer, &k)
                   ? (int64_t)k
                   : 1;
    default: return 1;
    }
}

static bool divisible_by_const(const IrExpr *x, int64_t k)
{
    return k && ar_known_multiple(NULL, x) % k == 0;
}

/* x = p*q and d = p*r (either operand order): divisible when r divides q. */
static bool shares_factor(const IrExpr *x, const IrExpr *d)
{
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            const IrExpr *xp = i ? x->u.op.b : x->u.op.a, *xq = i ? x->u.op.a : x->u.op.b;
            const IrExpr *dp = j ? d->u.op.b : d->u.op.a, *dr = j ? d->u.op.a : d->u.op.b;
            if (ar_expr_value_equal(xp, dp) && ar_divisible(xq, dr))
                return true;
        }
    return false;
}

bool ar_divisible(const IrExpr *x, const IrExpr *d)
{
    int64_t k;
    if (ar_const_int(d, &k))
        return divisible_by_const(x, k);
    if (ar_expr_value_equal(x, d) || ar_is_const(x, 0))
        return true;
    if (x->kind != IR_E_MUL)
        return false;
    return ar_divisible(x->u.op.a, d) || ar_divisible(x->u.op.b, d) ||
           (d->kind == IR_E_MUL && shares_factor(x, d));
}
