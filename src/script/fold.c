/* Typing and constant folding of expressions as the reference builds them
 * (src/tirx/op/op.cc BinaryOpMatchTypes, cast(); src/arith/const_fold.h
 * TryConstFold), and a linear simplifier for extents. See fold.h. */
#include "fold.h"

#include <math.h>
#include <string.h>

bool sc_is_const_int(const IrExpr *e, int64_t *v)
{
    if (!e || e->kind != IR_E_INT)
        return false;
    *v = e->u.int_val;
    return true;
}

static bool is_floatish(IrDType t) { return ir_dtype_is_float(t); }

bool sc_int_fits(IrDType t, int64_t v, bool big)
{
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

/* The int64 representation of a folded result in dtype t (wrap + sign extend). */
static int64_t wrap_int(int64_t x, IrDType t)
{
    if (t.code == IR_DT_BOOL)
        return x != 0;
    if (t.bits < 64) {
        uint64_t mask = ((uint64_t)1 << t.bits) - 1;
        uint64_t u = (uint64_t)x & mask;
        if (t.code == IR_DT_INT && (u >> (t.bits - 1)) & 1)
            u |= ~mask;
        x = (int64_t)u;
    }
    return x;
}

static IrExpr *broadcast(TxArena *a, IrExpr *x, int lanes, TxSpan sp)
{
    IrExpr *b = ir_node(a, IR_E_BROADCAST, ir_dtype_with_lanes(x->dtype, lanes), sp);
    b->u.op.a = x, b->u.op.lanes = lanes;
    return b;
}

IrExpr *sc_const_int(TxArena *a, IrDType t, int64_t v, TxSpan sp)
{
    IrDType s = ir_dtype_with_lanes(t, 1);
    IrExpr *c = is_floatish(s) ? ir_float(a, s, (double)v, sp)
                               : ir_int(a, s, s.code == IR_DT_BOOL ? v != 0 : v, sp);
    return t.lanes > 1 ? broadcast(a, c, t.lanes, sp) : c;
}

IrExpr *sc_const_float(TxArena *a, IrDType t, double v, TxSpan sp)
{
    IrDType s = ir_dtype_with_lanes(t, 1);
    IrExpr *c = is_floatish(s) ? ir_float(a, s, v, sp) : ir_int(a, s, (int64_t)v, sp);
    return t.lanes > 1 ? broadcast(a, c, t.lanes, sp) : c;
}

static IrExpr *const_like(TxArena *a, IrDType t, const IrExpr *c, TxSpan sp)
{
    return c->kind == IR_E_INT ? sc_const_int(a, t, c->u.int_val, sp)
                               : sc_const_float(a, t, c->u.float_val, sp);
}

static IrExpr *cast_node(TxArena *a, IrDType t, IrExpr *x, TxSpan sp)
{
    IrExpr *c = ir_node(a, IR_E_CAST, t, sp);
    c->u.op.a = x;
    return c;
}

IrExpr *sc_cast(TxArena *a, IrDType t, IrExpr *x, TxSpan sp)
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
        return broadcast(a, sc_cast(a, elem, x->u.op.a, sp), t.lanes, sp);
    if (x->kind == IR_E_RAMP && ir_dtype_is_int(t)) {
        IrExpr *r = ir_node(a, IR_E_RAMP, t, sp);
        r->u.op.a = sc_cast(a, elem, x->u.op.a, sp);
        r->u.op.b = sc_cast(a, elem, x->u.op.b, sp);
        r->u.op.lanes = x->u.op.lanes;
        return r;
    }
    return cast_node(a, t, x, sp);
}

bool sc_match_types(TxArena *a, IrExpr **x, IrExpr **y, const char **err)
{
    IrDType l = (*x)->dtype, r = (*y)->dtype;
    if (ir_dtype_eq(l, r))
        return true;
    if (l.lanes == 1 && r.lanes > 1)
        *x = broadcast(a, *x, r.lanes, (*x)->span), l = (*x)->dtype;
    else if (r.lanes == 1 && l.lanes > 1)
        *y = broadcast(a, *y, l.lanes, (*y)->span), r = (*y)->dtype;
    if (l.lanes != r.lanes) {
        *err = "operands have different numbers of vector lanes";
        return false;
    }
    if (ir_dtype_eq(l, r))
        return true;
    bool lf = is_floatish(l), rf = is_floatish(r);
    bool lint = ir_dtype_is_int(l) || l.code == IR_DT_BOOL;
    bool rint = ir_dtype_is_int(r) || r.code == IR_DT_BOOL;
    if (l.code == IR_DT_HANDLE || r.code == IR_DT_HANDLE || l.code == IR_DT_VOID ||
        r.code == IR_DT_VOID) {
        *err = "operands have incompatible dtypes";
        return false;
    }
    if (lf && rf) {
        if (l.code != r.code || l.code != IR_DT_FLOAT) {
            *err = "operands have incompatible float dtypes";
            return false;
        }
        if (l.bits < r.bits)
            *x = sc_cast(a, r, *x, (*x)->span);
        else
            *y = sc_cast(a, l, *y, (*y)->span);
        return true;
    }
    if (!lf && rf) {
        *x = sc_cast(a, r, *x, (*x)->span);
        return true;
    }
    if (lf && !rf) {
        *y = sc_cast(a, l, *y, (*y)->span);
        return true;
    }
    if (!lint || !rint) {
        *err = "operands have incompatible dtypes";
        return false;
    }
    bool lu = l.code != IR_DT_INT, ru = r.code != IR_DT_INT;
    if (l.bits < r.bits)
        *x = sc_cast(a, r, *x, (*x)->span);
    else if (l.bits > r.bits)
        *y = sc_cast(a, l, *y, (*y)->span);
    else if (lu && !ru)
        *y = sc_cast(a, l, *y, (*y)->span);
    else
        *x = sc_cast(a, r, *x, (*x)->span);
    return true;
}

static bool is_index_type(IrDType t)
{
    return t.code == IR_DT_INT && t.lanes == 1 && (t.bits == 32 || t.bits == 64);
}

static int64_t floordiv64(int64_t x, int64_t y)
{
    int64_t q = x / y, r = x % y;
    return (r != 0 && ((r < 0) != (y < 0))) ? q - 1 : q;
}

static int64_t floormod64(int64_t x, int64_t y)
{
    int64_t r = x % y;
    return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
}

/* Float folding happens for 32- and 64-bit floats only, in that precision. */
static IrExpr *fold_float(TxArena *a, IrDType t, double v, bool *ok)
{
    *ok = t.bits == 32 || t.bits == 64;
    if (!*ok)
        return NULL;
    if (t.bits == 32)
        v = (double)(float)v;
    return ir_float(a, t, v, (TxSpan){0});
}

static IrExpr *fold_int_pair(TxArena *a, IrExprKind k, IrDType t, int64_t x, int64_t y,
                             const char **err)
{
    uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
    int64_t r;
    switch (k) {
    case IR_E_ADD: r = (int64_t)(ux + uy); break;
    case IR_E_SUB: r = (int64_t)(ux - uy); break;
    case IR_E_MUL: r = (int64_t)(ux * uy); break;
    case IR_E_DIV: case IR_E_MOD: case IR_E_FLOORDIV: case IR_E_FLOORMOD:
        if (y == 0) {
            *err = "division by zero";
            return NULL;
        }
        if (x == INT64_MIN && y == -1)
            r = k == IR_E_MOD || k == IR_E_FLOORMOD ? 0 : x;
        else if (k == IR_E_DIV)
            r = x / y;
        else if (k == IR_E_MOD)
            r = x % y;
        else if (k == IR_E_FLOORDIV)
            r = floordiv64(x, y);
        else
            r = floormod64(x, y);
        break;
    case IR_E_MIN: return ir_int(a, t, x < y ? x : y, (TxSpan){0});
    case IR_E_MAX: return ir_int(a, t, x > y ? x : y, (TxSpan){0});
    case IR_E_EQ: return ir_int(a, IR_BOOL, x == y, (TxSpan){0});
    case IR_E_NE: return ir_int(a, IR_BOOL, x != y, (TxSpan){0});
    case IR_E_LT: return ir_int(a, IR_BOOL, x < y, (TxSpan){0});
    case IR_E_LE: return ir_int(a, IR_BOOL, x <= y, (TxSpan){0});
    case IR_E_GT: return ir_int(a, IR_BOOL, x > y, (TxSpan){0});
    case IR_E_GE: return ir_int(a, IR_BOOL, x >= y, (TxSpan){0});
    default: return NULL;
    }
    return ir_int(a, t, wrap_int(r, t), (TxSpan){0});
}

static IrExpr *fold_float_pair(TxArena *a, IrExprKind k, IrDType t, double x, double y,
                               const char **err)
{
    bool ok;
    switch (k) {
    case IR_E_ADD: return fold_float(a, t, t.bits == 32 ? (double)((float)x + (float)y) : x + y, &ok);
    case IR_E_SUB: return fold_float(a, t, t.bits == 32 ? (double)((float)x - (float)y) : x - y, &ok);
    case IR_E_MUL: return fold_float(a, t, t.bits == 32 ? (double)((float)x * (float)y) : x * y, &ok);
    case IR_E_DIV:
        if (y == 0) {
            *err = "division by zero";
            return NULL;
        }
        return fold_float(a, t, t.bits == 32 ? (double)((float)x / (float)y) : x / y, &ok);
    case IR_E_FLOORDIV:
        if (y == 0)
            return NULL;
        return fold_float(a, t, t.bits == 32 ? floor((double)((float)x / (float)y)) : floor(x / y),
                          &ok);
    case IR_E_MIN: return ir_float(a, t, x < y ? x : y, (TxSpan){0});
    case IR_E_MAX: return ir_float(a, t, x > y ? x : y, (TxSpan){0});
    case IR_E_EQ: return ir_int(a, IR_BOOL, x == y, (TxSpan){0});
    case IR_E_NE: return ir_int(a, IR_BOOL, x != y, (TxSpan){0});
    case IR_E_LT: return ir_int(a, IR_BOOL, x < y, (TxSpan){0});
    case IR_E_LE: return ir_int(a, IR_BOOL, x <= y, (TxSpan){0});
    case IR_E_GT: return ir_int(a, IR_BOOL, x > y, (TxSpan){0});
    case IR_E_GE: return ir_int(a, IR_BOOL, x >= y, (TxSpan){0});
    default: return NULL;
    }
}

/* The identities of TryConstFold when one side is a constant. */
static IrExpr *fold_identity(TxArena *a, IrExprKind k, IrExpr *x, IrExpr *y, const char **err)
{
    bool xi = x->kind == IR_E_INT, yi = y->kind == IR_E_INT;
    bool xf = x->kind == IR_E_FLOAT, yf = y->kind == IR_E_FLOAT;
    double xv = xi ? (double)x->u.int_val : xf ? x->u.float_val : NAN;
    double yv = yi ? (double)y->u.int_val : yf ? y->u.float_val : NAN;
    bool index_only = k == IR_E_MOD || k == IR_E_FLOORMOD;
    if (index_only && !(is_index_type(x->dtype) && is_index_type(y->dtype)))
        return NULL;
    switch (k) {
    case IR_E_ADD:
        if (xv == 0) return y;
        if (yv == 0) return x;
        return NULL;
    case IR_E_SUB: return yv == 0 ? x : NULL;
    case IR_E_MUL:
        if (xv == 1) return y;
        if (xv == 0) return x;
        if (yv == 1) return x;
        if (yv == 0) return y;
        return NULL;
    case IR_E_DIV: case IR_E_FLOORDIV:
        if (xv == 0) return x;
        if (yv == 1) return x;
        if (yv == 0) {
            *err = "division by zero";
            return NULL;
        }
        return NULL;
    case IR_E_MOD: case IR_E_FLOORMOD:
        if (xi && xv == 0) return x;
        if (yi && yv == 1) return ir_int(a, x->dtype, 0, (TxSpan){0});
        if (yi && yv == 0) *err = "division by zero";
        return NULL;
    default: return NULL;
    }
}

IrExpr *sc_try_fold(TxArena *a, IrExprKind k, IrExpr *x, IrExpr *y, const char **err)
{
    IrDType t = x->dtype;
    bool pair_int = x->kind == IR_E_INT && y->kind == IR_E_INT;
    bool pair_float = x->kind == IR_E_FLOAT && y->kind == IR_E_FLOAT;
    if (k == IR_E_AND || k == IR_E_OR) {
        bool xi = x->kind == IR_E_INT, yi = y->kind == IR_E_INT;
        if (xi)
            return (x->u.int_val != 0) == (k == IR_E_AND) ? y : x;
        if (yi)
            return (y->u.int_val != 0) == (k == IR_E_AND) ? x : y;
        return NULL;
    }
    if ((k == IR_E_MOD || k == IR_E_FLOORMOD) && !(is_index_type(x->dtype) && is_index_type(y->dtype)))
        return NULL;
    if (k == IR_E_SUB && pair_int && t.code == IR_DT_UINT && x->u.int_val == 0 && y->u.int_val > 0) {
        *err = "subtracting from unsigned zero gives a negative unsigned value";
        return NULL;
    }
    if (pair_int)
        return fold_int_pair(a, k, t, x->u.int_val, y->u.int_val, err);
    IrExpr *r = fold_identity(a, k, x, y, err);
    if (r || *err)
        return r;
    if (pair_float)
        return fold_float_pair(a, k, t, x->u.float_val, y->u.float_val, err);
    if ((k == IR_E_MIN || k == IR_E_MAX) && x == y)
        return x;
    return NULL;
}

IrExpr *sc_arith(TxArena *a, IrExprKind k, IrExpr *x, IrExpr *y, TxSpan sp, const char **err)
{
    *err = NULL;
    if (!sc_match_types(a, &x, &y, err))
        return NULL;
    IrExpr *r = sc_try_fold(a, k, x, y, err);
    if (*err)
        return NULL;
    if (r) {
        if (r->span.src == NULL && (r->kind == IR_E_INT || r->kind == IR_E_FLOAT))
            r->span = sp;
        return r;
    }
    return ir_binary(a, k, x, y, sp);
}

/* ---------------------------------------------------------------- equality */

bool sc_expr_equal(const IrExpr *x, const IrExpr *y)
{
    if (x == y)
        return true;
    if (!x || !y || x->kind != y->kind || !ir_dtype_eq(x->dtype, y->dtype))
        return false;
    if (IR_E_IS_BINARY(x->kind))
        return sc_expr_equal(x->u.op.a, y->u.op.a) && sc_expr_equal(x->u.op.b, y->u.op.b);
    switch (x->kind) {
    case IR_E_INT: case IR_E_PYINT: case IR_E_PYBOOL: return x->u.int_val == y->u.int_val;
    case IR_E_FLOAT: case IR_E_PYFLOAT: return x->u.float_val == y->u.float_val;
    case IR_E_STR: return !strcmp(x->u.str, y->u.str);
    case IR_E_NOT: case IR_E_CAST:
        return sc_expr_equal(x->u.op.a, y->u.op.a);
    case IR_E_CALL:
        if (x->u.call.op != y->u.call.op || x->u.call.nargs != y->u.call.nargs ||
            x->u.call.nkwargs || y->u.call.nkwargs || x->u.call.op == IR_OP_PTX ||
            x->u.call.op == IR_OP_CALL_FUNC)
            return false;
        for (int i = 0; i < x->u.call.nargs; i++)
            if (!sc_expr_equal(x->u.call.args[i], y->u.call.args[i]))
                return false;
        return true;
    case IR_E_LOAD:
        if (x->u.access.buffer != y->u.access.buffer || x->u.access.n != y->u.access.n ||
            x->u.access.predicate || y->u.access.predicate)
            return false;
        for (int i = 0; i < x->u.access.n; i++)
            if (!sc_expr_equal(x->u.access.indices[i], y->u.access.indices[i]))
                return false;
        return true;
    default: return false;
    }
}

/* ---------------------------------------------------------------- linear forms */

#define MAX_TERMS 16

typedef struct Linear {
    int n;
    IrExpr *term[MAX_TERMS];
    int64_t coef[MAX_TERMS];
    int64_t konst;
    bool overflow;
} Linear;

static void add_term(Linear *L, IrExpr *t, int64_t c)
{
    for (int i = 0; i < L->n; i++)
        if (sc_expr_equal(L->term[i], t)) {
            L->coef[i] += c;
            return;
        }
    if (L->n == MAX_TERMS) {
        L->overflow = true;
        return;
    }
    L->term[L->n] = t, L->coef[L->n++] = c;
}

static void decompose(Linear *L, IrExpr *e, int64_t c, int depth)
{
    int64_t v;
    if (depth > 32) {
        L->overflow = true;
        return;
    }
    if (sc_is_const_int(e, &v)) {
        L->konst += c * v;
        return;
    }
    switch (e->kind) {
    case IR_E_ADD:
        decompose(L, e->u.op.a, c, depth + 1);
        decompose(L, e->u.op.b, c, depth + 1);
        return;
    case IR_E_SUB:
        decompose(L, e->u.op.a, c, depth + 1);
        decompose(L, e->u.op.b, -c, depth + 1);
        return;
    case IR_E_MUL:
        if (sc_is_const_int(e->u.op.b, &v) && v > -65536 && v < 65536) {
            decompose(L, e->u.op.a, c * v, depth + 1);
            return;
        }
        if (sc_is_const_int(e->u.op.a, &v) && v > -65536 && v < 65536) {
            decompose(L, e->u.op.b, c * v, depth + 1);
            return;
        }
        break;
    default: break;
    }
    add_term(L, e, c);
}

static IrExpr *rebuild(TxArena *a, const Linear *L, IrDType t, TxSpan sp)
{
    IrExpr *r = NULL;
    for (int i = 0; i < L->n; i++) {
        int64_t c = L->coef[i];
        if (c == 0)
            continue;
        IrExpr *term = L->term[i];
        if (!r) {
            r = c == 1 ? term : ir_binary(a, IR_E_MUL, term, ir_int(a, t, c, sp), sp);
        } else if (c > 0) {
            IrExpr *m = c == 1 ? term : ir_binary(a, IR_E_MUL, term, ir_int(a, t, c, sp), sp);
            r = ir_binary(a, IR_E_ADD, r, m, sp);
        } else {
            IrExpr *m = c == -1 ? term : ir_binary(a, IR_E_MUL, term, ir_int(a, t, -c, sp), sp);
            r = ir_binary(a, IR_E_SUB, r, m, sp);
        }
    }
    if (!r)
        return ir_int(a, t, L->konst, sp);
    if (L->konst > 0)
        r = ir_binary(a, IR_E_ADD, r, ir_int(a, t, L->konst, sp), sp);
    else if (L->konst < 0)
        r = ir_binary(a, IR_E_SUB, r, ir_int(a, t, -L->konst, sp), sp);
    return r;
}

IrExpr *sc_sub_simplify(TxArena *a, IrExpr *stop, IrExpr *start, TxSpan sp, const char **err)
{
    IrExpr *plain = sc_arith(a, IR_E_SUB, stop, start, sp, err);
    if (!plain || plain->kind != IR_E_SUB || !is_index_type(plain->dtype))
        return plain;
    Linear L = {0};
    decompose(&L, plain->u.op.a, 1, 0);
    decompose(&L, plain->u.op.b, -1, 0);
    if (L.overflow)
        return plain;
    /* Only rewrite when something cancelled. */
    int nterms = 0;
    for (int i = 0; i < L.n; i++)
        nterms += L.coef[i] != 0;
    Linear A = {0}, B = {0};
    decompose(&A, plain->u.op.a, 1, 0);
    decompose(&B, plain->u.op.b, 1, 0);
    bool merged = nterms < A.n + B.n || (A.konst != 0 && B.konst != 0);
    if (A.overflow || B.overflow || !merged)
        return plain;
    return rebuild(a, &L, plain->dtype, sp);
}
