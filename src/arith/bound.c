/* The facts of an analyzer context (variable ranges, pure values and
 * assumptions, in nested scopes) and the constant-interval analysis over
 * them (TVM's const_int_bound): saturating interval arithmetic through
 * + - * // % min max, casts, select, bitwise calls and Let. Signed integer
 * arithmetic is assumed not to overflow, as in the reference; an unsigned
 * result that may wrap is unbounded. */
#include "internal.h"

static int64_t sat_add(int64_t a, int64_t b);

/* ---------------------------------------------------------------- facts */
void ar_ctx_init(ArCtx *c, TxArena *arena)
{
    *c = (ArCtx){0};
    c->arena = arena;
    tx_arena_init(&c->scratch);
}

void ar_ctx_free(ArCtx *c)
{
    tx_arena_free(&c->scratch);
    ir_ptrmap_free(&c->latest);
    tx_vec_free(&c->facts);
    tx_vec_free(&c->scopes);
    tx_vec_free(&c->assumed);
}

void ar_scope_push(ArCtx *c)
{
    tx_vec_push(&c->scopes, c->facts.len);
    tx_vec_push(&c->scopes, c->assumed.len);
}

void ar_scope_pop(ArCtx *c)
{
    if (c->scopes.len < 2)
        return;
    c->assumed.len = c->scopes.items[--c->scopes.len];
    int keep = c->scopes.items[--c->scopes.len];
    while (c->facts.len > keep) {
        ArFact *f = &c->facts.items[--c->facts.len];
        ir_ptrmap_put(&c->latest, f->var, (uintptr_t)f->prev);
    }
}

static int newest(const ArCtx *c, const IrExpr *var)
{
    uintptr_t v = 0;
    return c && ir_ptrmap_get(&c->latest, var, &v) ? (int)v : 0;
}

static ArFact *add_fact(ArCtx *c, const IrExpr *var)
{
    ArFact f = {.var = var, .prev = newest(c, var)};
    tx_vec_push(&c->facts, f);
    ir_ptrmap_put(&c->latest, var, (uintptr_t)c->facts.len);
    return &c->facts.items[c->facts.len - 1];
}

void ar_bind_bounds(ArCtx *c, const IrExpr *var, int64_t lo, int64_t hi)
{
    ArFact *f = add_fact(c, var);
    f->has_range = true, f->lo = lo, f->hi = hi;
}

void ar_bind_range(ArCtx *c, const IrExpr *var, IrExpr *min, IrExpr *extent)
{
    ArIval m = ar_ival(c, min), e = ar_ival(c, extent);
    ArFact *f = add_fact(c, var);
    f->has_range = true, f->lo = m.lo, f->hi = sat_add(m.hi, sat_add(e.hi, -1));
    f->min = min, f->extent = extent;
}

void ar_bind_value(ArCtx *c, const IrExpr *var, IrExpr *value)
{
    add_fact(c, var)->value = value;
}

IrExpr *ar_fact_value(const ArCtx *c, const IrExpr *var)
{
    for (int i = newest(c, var); i; i = c->facts.items[i - 1].prev)
        if (c->facts.items[i - 1].value)
            return c->facts.items[i - 1].value;
    return NULL;
}

bool ar_fact_range(const ArCtx *c, const IrExpr *var, IrExpr **min, IrExpr **extent)
{
    for (int i = newest(c, var); i; i = c->facts.items[i - 1].prev)
        if (c->facts.items[i - 1].extent) {
            *min = c->facts.items[i - 1].min, *extent = c->facts.items[i - 1].extent;
            return true;
        }
    return false;
}

/* ---------------------------------------------------------------- saturating arithmetic */
static ArIval ival(int64_t lo, int64_t hi) { return (ArIval){lo, hi}; }
static ArIval everything(void) { return ival(AR_NEG_INF, AR_POS_INF); }
static bool is_inf(int64_t v) { return v == AR_NEG_INF || v == AR_POS_INF; }

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (a == AR_NEG_INF || b == AR_NEG_INF)
        return (a == AR_POS_INF || b == AR_POS_INF) ? 0 : AR_NEG_INF;
    if (a == AR_POS_INF || b == AR_POS_INF)
        return AR_POS_INF;
    if (__builtin_add_overflow(a, b, &r))
        return a > 0 ? AR_POS_INF : AR_NEG_INF;
    return r;
}

static int64_t sat_neg(int64_t a)
{
    return a == AR_NEG_INF ? AR_POS_INF : a == AR_POS_INF ? AR_NEG_INF : -a;
}

static int64_t sat_mul(int64_t a, int64_t b)
{
    int64_t r;
    if (a == 0 || b == 0)
        return 0;
    bool neg = (a < 0) != (b < 0);
    if (is_inf(a) || is_inf(b) || __builtin_mul_overflow(a, b, &r))
        return neg ? AR_NEG_INF : AR_POS_INF;
    return r;
}

static int64_t min2(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max2(int64_t a, int64_t b) { return a > b ? a : b; }

static ArIval from_corners(const int64_t v[4])
{
    ArIval r = ival(v[0], v[0]);
    for (int i = 1; i < 4; i++)
        r.lo = min2(r.lo, v[i]), r.hi = max2(r.hi, v[i]);
    return r;
}

ArIval ar_ival_add(ArIval x, ArIval y) { return ival(sat_add(x.lo, y.lo), sat_add(x.hi, y.hi)); }
ArIval ar_ival_neg(ArIval x) { return ival(sat_neg(x.hi), sat_neg(x.lo)); }

ArIval ar_ival_mul(ArIval x, ArIval y)
{
    int64_t v[4] = {sat_mul(x.lo, y.lo), sat_mul(x.lo, y.hi), sat_mul(x.hi, y.lo),
                    sat_mul(x.hi, y.hi)};
    return from_corners(v);
}

/* floor(a / d) for d > 0 (d may be +inf). */
static int64_t sat_floordiv(int64_t a, int64_t d)
{
    if (is_inf(a))
        return a;
    if (d == AR_POS_INF)
        return a >= 0 ? 0 : -1;
    return ar_floordiv64(a, d);
}

/* trunc(a / d) for d > 0 (d may be +inf). */
static int64_t sat_truncdiv(int64_t a, int64_t d)
{
    if (is_inf(a))
        return a;
    return d == AR_POS_INF ? 0 : a / d;
}

/* x // y or x / y (trunc) with y's interval: by a positive divisor, or a
 * negative one through floor(x/y) = floor(-x/-y). */
ArIval ar_ival_div(ArIval x, ArIval y, bool floor)
{
    if (y.lo <= 0 && y.hi >= 0)
        return everything();
    if (y.hi < 0)
        x = ar_ival_neg(x), y = ar_ival_neg(y);
    int64_t (*div)(int64_t, int64_t) = floor ? sat_floordiv : sat_truncdiv;
    int64_t v[4] = {div(x.lo, y.lo), div(x.lo, y.hi), div(x.hi, y.lo), div(x.hi, y.hi)};
    return from_corners(v);
}

ArIval ar_ival_floormod(ArIval x, ArIval y)
{
    if (y.lo <= 0 && y.hi >= 0)
        return everything();
    if (y.hi < 0) /* result in (y, 0] */
        return ival(sat_add(y.lo, 1), 0);
    if (x.lo >= 0 && x.hi < y.lo)
        return x;
    int64_t top = sat_add(y.hi, -1);
    return ival(0, x.lo >= 0 ? min2(x.hi, top) : top);
}

/* x % y truncating: |result| < |y|, with the sign of x. */
static ArIval ival_truncmod(ArIval x, ArIval y)
{
    if (y.lo <= 0 && y.hi >= 0)
        return everything();
    if (y.hi < 0)
        y = ar_ival_neg(y);
    int64_t m = sat_add(y.hi, -1);
    if (x.lo >= 0)
        return x.hi < y.lo ? x : ival(0, min2(x.hi, m));
    if (x.hi <= 0)
        return ival(max2(x.lo, sat_neg(m)), 0);
    return ival(sat_neg(m), m);
}

ArIval ar_ival_union(ArIval x, ArIval y) { return ival(min2(x.lo, y.lo), max2(x.hi, y.hi)); }

/* ---------------------------------------------------------------- analysis */
typedef struct Env {
    const IrExpr *var;
    ArIval val;
    const struct Env *outer;
} Env;

static ArIval bound(const ArCtx *c, const Env *env, const IrExpr *e, int depth);

static ArIval dtype_ival(IrDType t)
{
    if (t.code == IR_DT_BOOL)
        return ival(0, 1);
    if (t.code == IR_DT_UINT)
        return ival(0, AR_POS_INF);
    return everything();
}

/* A signed result is assumed not to overflow (ar_bound clamps it to the
 * dtype's range at the end); an unsigned one that leaves [0, max] may have
 * wrapped, so it is unbounded. For uint64, whose max is past the intervals'
 * reach, an open upper end is such a result (x + 5 may wrap to 0). */
static ArIval fit_dtype(IrDType t, ArIval r)
{
    int64_t lo, hi;
    if (t.code != IR_DT_UINT)
        return r;
    ar_dtype_range(t, &lo, &hi);
    return r.lo < lo || r.hi > hi || (t.bits == 64 && r.hi == AR_POS_INF) ? dtype_ival(t) : r;
}

static ArIval bound_var(const ArCtx *c, const Env *env, const IrExpr *e, int depth)
{
    for (; env; env = env->outer)
        if (env->var == e)
            return env->val;
    ArIval r = dtype_ival(e->dtype);
    for (int i = newest(c, e); i; i = c->facts.items[i - 1].prev) {
        const ArFact *f = &c->facts.items[i - 1];
        if (f->has_range)
            r.lo = max2(r.lo, f->lo), r.hi = min2(r.hi, f->hi);
        else if (f->value) {
            ArIval v = bound(c, NULL, f->value, depth + 1);
            r.lo = max2(r.lo, v.lo), r.hi = min2(r.hi, v.hi);
        }
    }
    return r;
}

static int64_t all_ones_cover(int64_t v) /* the smallest 2^k - 1 >= v, for v >= 0 */
{
    int64_t m = 0;
    while (m < v && m < (AR_POS_INF >> 1))
        m = m * 2 + 1;
    return m < v ? AR_POS_INF : m;
}

static ArIval bound_bitwise(IrOp op, ArIval x, ArIval y)
{
    switch (op) {
    case IR_OP_BITWISE_AND:
        if (y.lo >= 0 && x.lo >= 0)
            return ival(0, min2(x.hi, y.hi));
        if (y.lo >= 0 || x.lo >= 0)
            return ival(0, y.lo >= 0 ? y.hi : x.hi);
        return everything();
    case IR_OP_BITWISE_OR:
    case IR_OP_BITWISE_XOR:
        if (x.lo < 0 || y.lo < 0)
            return everything();
        return ival(0, all_ones_cover(max2(x.hi, y.hi)));
    case IR_OP_SHIFT_RIGHT:
        if (x.lo < 0 || y.lo < 0 || y.hi > 62)
            return x.lo >= 0 ? ival(0, x.hi) : everything();
        return ival(x.lo >> y.hi, x.hi == AR_POS_INF ? x.hi : x.hi >> y.lo);
    case IR_OP_SHIFT_LEFT:
        if (x.lo < 0 || y.lo < 0 || y.hi > 62)
            return everything();
        return ival(sat_mul(x.lo, (int64_t)1 << y.lo), sat_mul(x.hi, (int64_t)1 << y.hi));
    default:
        return everything();
    }
}

static ArIval bound_call(const ArCtx *c, const Env *env, const IrExpr *e, int depth)
{
    const IrCall *k = &e->u.call;
    if (ar_is_bitwise(k->op) && k->nargs == 2)
        return bound_bitwise(k->op, bound(c, env, k->args[0], depth + 1),
                             bound(c, env, k->args[1], depth + 1));
    if (k->op == IR_OP_IF_THEN_ELSE && k->nargs == 3)
        return ar_ival_union(bound(c, env, k->args[1], depth + 1),
                          bound(c, env, k->args[2], depth + 1));
    return dtype_ival(e->dtype);
}

static ArIval bound_cast(const ArCtx *c, const Env *env, const IrExpr *e, int depth)
{
    const IrExpr *x = e->u.op.a;
    if (!ir_dtype_is_int(x->dtype) && x->dtype.code != IR_DT_BOOL)
        return dtype_ival(e->dtype);
    ArIval r = bound(c, env, x, depth + 1);
    /* a uint64 without an upper bound may pass INT64_MAX: a signed view of
     * it may be negative */
    if (x->dtype.code == IR_DT_UINT && x->dtype.bits == 64 && r.hi == AR_POS_INF)
        return dtype_ival(e->dtype);
    int64_t lo, hi;
    ar_dtype_range(e->dtype, &lo, &hi);
    return r.lo >= lo && r.hi <= hi ? r : dtype_ival(e->dtype);
}

static ArIval bound_let(const ArCtx *c, const Env *env, const IrExpr *e, int depth)
{
    Env inner = {e->u.op.var, bound(c, env, e->u.op.a, depth + 1), env};
    return bound(c, &inner, e->u.op.b, depth + 1);
}

static ArIval bound_binary(const ArCtx *c, const Env *env, const IrExpr *e, int depth)
{
    ArIval x = bound(c, env, e->u.op.a, depth + 1), y = bound(c, env, e->u.op.b, depth + 1);
    switch (e->kind) {
    case IR_E_ADD: return ar_ival_add(x, y);
    case IR_E_SUB: return ar_ival_add(x, ar_ival_neg(y));
    case IR_E_MUL: return ar_ival_mul(x, y);
    case IR_E_FLOORDIV: return ar_ival_div(x, y, true);
    case IR_E_DIV: return ar_ival_div(x, y, false);
    case IR_E_FLOORMOD: return ar_ival_floormod(x, y);
    case IR_E_MOD: return ival_truncmod(x, y);
    case IR_E_MIN: return ival(min2(x.lo, y.lo), min2(x.hi, y.hi));
    case IR_E_MAX: return ival(max2(x.lo, y.lo), max2(x.hi, y.hi));
    default: return ival(0, 1); /* comparisons and logic */
    }
}

static ArIval bound(const ArCtx *c, const Env *env, const IrExpr *e, int depth)
{
    int64_t v;
    /* a uint64 constant past INT64_MAX has no interval in int64 */
    if (ar_const_int(e, &v))
        return e->dtype.code == IR_DT_UINT && v < 0 ? everything() : ival(v, v);
    if (depth > 64 || !(ir_dtype_is_int(e->dtype) || e->dtype.code == IR_DT_BOOL) ||
        e->dtype.lanes != 1)
        return everything();
    ArIval r;
    if (IR_E_IS_BINARY(e->kind))
        r = bound_binary(c, env, e, depth);
    else
        switch (e->kind) {
        case IR_E_VAR: r = bound_var(c, env, e, depth); break;
        case IR_E_NOT: r = ival(0, 1); break;
        case IR_E_CAST: r = bound_cast(c, env, e, depth); break;
        case IR_E_SELECT:
            r = ar_ival_union(bound(c, env, e->u.op.a, depth + 1), bound(c, env, e->u.op.b, depth + 1));
            break;
        case IR_E_LET: r = bound_let(c, env, e, depth); break;
        case IR_E_CALL: r = bound_call(c, env, e, depth); break;
        default: r = dtype_ival(e->dtype); break;
        }
    return fit_dtype(e->dtype, r);
}

ArIval ar_ival(const ArCtx *c, const IrExpr *e) { return bound(c, NULL, e, 0); }

bool ar_bound(const ArCtx *c, const IrExpr *e, int64_t *lo, int64_t *hi)
{
    ArIval r = ar_ival(c, e);
    int64_t dlo = INT64_MIN, dhi = INT64_MAX;
    if (ir_dtype_is_int(e->dtype) || e->dtype.code == IR_DT_BOOL)
        ar_dtype_range(e->dtype, &dlo, &dhi);
    *lo = max2(r.lo, dlo), *hi = min2(r.hi, dhi);
    return !is_inf(r.lo) && !is_inf(r.hi);
}

bool ar_less(const ArCtx *c, const IrExpr *x, const IrExpr *y)
{
    ArIval a = ar_ival(c, x), b = ar_ival(c, y);
    return a.hi != AR_POS_INF && b.lo != AR_NEG_INF && a.hi < b.lo;
}

/* ---------------------------------------------------------------- worst case */
static bool bind_free_var(IrVisitor *v, const IrExpr *e)
{
    ArCtx *c = v->ctx;
    if (e->kind == IR_E_VAR && e->dtype.lanes == 1 && ir_dtype_is_int(e->dtype) &&
        !newest(c, e)) {
        int64_t lo, hi;
        ar_dtype_range(e->dtype, &lo, &hi);
        ar_bind_bounds(c, e, lo, hi);
    }
    return true;
}

int64_t ar_max_any(const IrExpr *e)
{
    ArCtx c;
    ar_ctx_init(&c, NULL);
    IrVisitor v = {.ctx = &c, .expr = bind_free_var};
    ir_visit_expr(&v, e);
    int64_t hi = ar_ival(&c, e).hi;
    ar_ctx_free(&c);
    return hi;
}
