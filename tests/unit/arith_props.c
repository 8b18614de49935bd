/* Property tests of the arith simplifier: random integer expressions (sums,
 * scaled terms, floordiv/floormod by constants, nested splits, min/max,
 * select, comparisons, symbolic products) over ranged variables, in int32,
 * int64, uint32 and uint64 (values past INT64_MAX included). At random points inside the ranges the simplified form
 * must evaluate to the original's value (with the dtype's wraparound), the
 * bounds of both must contain it, the dtype must be kept, and simplifying
 * again must change nothing. The oracle is an evaluator of its own, not
 * ar_eval. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "arith_util.h"

typedef struct Rng {
    uint64_t s;
} Rng;

static uint64_t next(Rng *r)
{
    r->s ^= r->s << 13, r->s ^= r->s >> 7, r->s ^= r->s << 17;
    return r->s;
}

static int64_t pick(Rng *r, int64_t lo, int64_t hi) /* [lo, hi] */
{
    return lo + (int64_t)(next(r) % (uint64_t)(hi - lo + 1));
}

/* ---------------------------------------------------------------- the oracle */
typedef struct Point {
    const AtEnv *E;
    int64_t vals[AT_MAX_VARS];
} Point;

static bool oracle(const IrExpr *e, const Point *p, int64_t *out);

/* A comparison k from how the operands order; false when k is none. */
static bool compare(IrExprKind k, bool lt, bool eq, int64_t *out)
{
    switch (k) {
    case IR_E_LT: *out = lt; return true;
    case IR_E_LE: *out = lt || eq; return true;
    case IR_E_GT: *out = !lt && !eq; return true;
    case IR_E_GE: *out = !lt; return true;
    case IR_E_EQ: *out = eq; return true;
    case IR_E_NE: *out = !eq; return true;
    default: return false;
    }
}

/* Unsigned arithmetic, wrapping, on the int64 bit patterns of the values
 * (the caller wraps the result to the dtype). */
static bool oracle_unsigned(IrExprKind k, uint64_t a, uint64_t b, int64_t *out)
{
    switch (k) {
    case IR_E_ADD: *out = (int64_t)(a + b); return true;
    case IR_E_SUB: *out = (int64_t)(a - b); return true;
    case IR_E_MUL: *out = (int64_t)(a * b); return true;
    case IR_E_FLOORDIV: case IR_E_DIV: return b != 0 && (*out = (int64_t)(a / b), true);
    case IR_E_FLOORMOD: case IR_E_MOD: return b != 0 && (*out = (int64_t)(a % b), true);
    case IR_E_MIN: *out = (int64_t)(a < b ? a : b); return true;
    case IR_E_MAX: *out = (int64_t)(a > b ? a : b); return true;
    default: return compare(k, a < b, a == b, out);
    }
}

static bool is_u64(IrDType t) { return t.code == IR_DT_UINT && t.bits == 64; }

static bool oracle_binary(const IrExpr *e, int64_t a, int64_t b, int64_t *out)
{
    switch (e->kind) {
    case IR_E_AND: *out = a && b; return true;
    case IR_E_OR: *out = a || b; return true;
    default: break;
    }
    /* unsigned operands are their dtype's wrapped values: exact in uint64 */
    if (e->u.op.a->dtype.code == IR_DT_UINT)
        return oracle_unsigned(e->kind, (uint64_t)a, (uint64_t)b, out);
    switch (e->kind) {
    case IR_E_ADD: return !__builtin_add_overflow(a, b, out);
    case IR_E_SUB: return !__builtin_sub_overflow(a, b, out);
    case IR_E_MUL: return !__builtin_mul_overflow(a, b, out);
    case IR_E_FLOORDIV:
    case IR_E_FLOORMOD: {
        if (b == 0)
            return false;
        int64_t q = a / b, r = a % b;
        if (r != 0 && ((r < 0) != (b < 0)))
            q--, r += b;
        *out = e->kind == IR_E_FLOORDIV ? q : r;
        return true;
    }
    case IR_E_DIV: return b != 0 && (*out = a / b, true);
    case IR_E_MOD: return b != 0 && (*out = a % b, true);
    case IR_E_MIN: *out = a < b ? a : b; return true;
    case IR_E_MAX: *out = a > b ? a : b; return true;
    default: return compare(e->kind, a < b, a == b, out);
    }
}

/* Every node's value is wrapped to its dtype (uint32 wraps; the signed
 * values the generator makes never overflow). */
static bool oracle(const IrExpr *e, const Point *p, int64_t *out)
{
    int64_t a, b, c;
    bool ok;
    if (e->kind == IR_E_INT) {
        *out = e->u.int_val;
        return true;
    }
    if (IR_E_IS_BINARY(e->kind))
        ok = oracle(e->u.op.a, p, &a) && oracle(e->u.op.b, p, &b) && oracle_binary(e, a, b, out);
    else if (e->kind == IR_E_VAR) {
        ok = false;
        for (int i = 0; i < p->E->nvars; i++)
            if (p->E->vars[i].var == e)
                *out = p->vals[i], ok = true;
    } else if (e->kind == IR_E_SELECT)
        ok = oracle(e->u.op.cond, p, &c) && oracle(c ? e->u.op.a : e->u.op.b, p, out);
    else if (e->kind == IR_E_NOT)
        ok = oracle(e->u.op.a, p, &a) && (*out = !a, true);
    else if (e->kind == IR_E_CAST)
        ok = oracle(e->u.op.a, p, out);
    else
        ok = false;
    if (ok)
        *out = ar_wrap_int(e->dtype, *out);
    return ok;
}

/* ---------------------------------------------------------------- the generator */
typedef struct Gen {
    AtEnv *E;
    Rng *rng;
    IrDType t;
    bool wrapping; /* uint32: no min/max/select over wrapped values */
    IrExpr *divisor; /* a variable >= 1 to divide by symbolically, or NULL */
} Gen;

static IrExpr *lit(Gen *g, int64_t v) { return ir_int(&g->E->m->arena, g->t, v, (TxSpan){0}); }

static IrExpr *node(Gen *g, IrExprKind k, IrExpr *x, IrExpr *y)
{
    return ir_binary(&g->E->m->arena, k, x, y, (TxSpan){0});
}

/* An unsigned value of `bits`: small, about half the range or just under its
 * end (for uint64 a negative bit pattern). */
static int64_t pick_unsigned(Rng *r, int bits)
{
    uint64_t half = (uint64_t)1 << (bits - 1), end = bits == 64 ? 0 : half * 2;
    switch (next(r) % 3) {
    case 0: return pick(r, 0, 1000);
    case 1: return (int64_t)(half + (uint64_t)pick(r, -8, 8));
    default: return (int64_t)(end - (uint64_t)pick(r, 1, 1000));
    }
}

static IrExpr *leaf(Gen *g)
{
    Rng *r = g->rng;
    if (next(r) % 4 == 0 && g->t.code == IR_DT_UINT && next(r) % 2)
        return lit(g, pick_unsigned(r, g->t.bits));
    if (next(r) % 4 == 0)
        return lit(g, g->wrapping ? pick(r, 0, 9) : pick(r, -9, 9));
    for (;;) {
        AtVar *v = &g->E->vars[pick(r, 0, g->E->nvars - 1)];
        if (ir_dtype_eq(v->var->dtype, g->t))
            return v->var;
    }
}

static IrExpr *gen(Gen *g, int depth);

static IrExpr *gen_compare(Gen *g, int depth)
{
    static const IrExprKind cmp[] = {IR_E_LT, IR_E_LE, IR_E_GT, IR_E_GE, IR_E_EQ, IR_E_NE};
    IrExpr *c = node(g, cmp[next(g->rng) % 6], gen(g, depth - 1), gen(g, depth - 1));
    c->dtype = IR_BOOL;
    return c;
}

static IrExpr *gen(Gen *g, int depth)
{
    Rng *r = g->rng;
    if (depth <= 0)
        return leaf(g);
    int64_t d = pick(r, 1, 9) * (next(r) % 3 == 0 ? 4 : 1);
    switch (next(r) % (g->wrapping ? 8 : 11)) {
    case 0: return node(g, IR_E_ADD, gen(g, depth - 1), gen(g, depth - 1));
    case 1: return node(g, IR_E_SUB, gen(g, depth - 1), gen(g, depth - 1));
    case 2: return node(g, IR_E_MUL, gen(g, depth - 1), lit(g, pick(r, g->wrapping ? 0 : -4, 16)));
    case 3: return node(g, IR_E_FLOORDIV, gen(g, depth - 1), lit(g, d));
    case 4: return node(g, IR_E_FLOORMOD, gen(g, depth - 1), lit(g, d));
    case 5: /* a nested split: (e // c1) % c2 or (e % c1) // c2 */
        return node(g, next(r) % 2 ? IR_E_FLOORMOD : IR_E_FLOORDIV,
                     node(g, next(r) % 2 ? IR_E_FLOORDIV : IR_E_FLOORMOD, gen(g, depth - 1),
                          lit(g, d)),
                     lit(g, pick(r, 1, 8)));
    case 6: /* a fused pair (e // c) * c * k + e % c * k */
    {
        IrExpr *e = gen(g, depth - 1), *c = lit(g, d), *k = lit(g, pick(r, 1, 5));
        return node(g, IR_E_ADD, node(g, IR_E_MUL, node(g, IR_E_MUL, node(g, IR_E_FLOORDIV, e, c), c), k),
                    node(g, IR_E_MUL, node(g, IR_E_FLOORMOD, e, c), k));
    }
    case 7: return node(g, IR_E_MUL, leaf(g), leaf(g));
    case 8: return node(g, next(r) % 2 ? IR_E_MIN : IR_E_MAX, gen(g, depth - 1), gen(g, depth - 1));
    case 9: {
        IrExpr *s = ir_node(&g->E->m->arena, IR_E_SELECT, g->t, (TxSpan){0});
        s->u.op.cond = gen_compare(g, depth);
        s->u.op.a = gen(g, depth - 1), s->u.op.b = gen(g, depth - 1);
        return s;
    }
    default:
        if (g->divisor && next(r) % 2) { /* (e * n + e') // n, % n */
            IrExpr *x = node(g, IR_E_ADD, node(g, IR_E_MUL, gen(g, depth - 1), g->divisor),
                             gen(g, depth - 1));
            return node(g, next(r) % 2 ? IR_E_FLOORDIV : IR_E_FLOORMOD, x, g->divisor);
        }
        return node(g, IR_E_FLOORDIV, gen(g, depth - 1), lit(g, -d));
    }
}

/* ---------------------------------------------------------------- the checks */
static void random_point(Rng *r, const AtEnv *E, Point *p)
{
    p->E = E;
    for (int i = 0; i < E->nvars; i++) {
        const AtVar *v = &E->vars[i];
        bool is_uint = v->var->dtype.code == IR_DT_UINT;
        if (v->bound_by >= 0)
            p->vals[i] = pick(r, v->lo, p->vals[v->bound_by] - 1);
        else
            p->vals[i] = v->ranged ? pick(r, v->lo, v->hi)
                         : is_uint ? pick_unsigned(r, v->var->dtype.bits)
                                   : pick(r, -50, 50);
    }
}

/* For uint64 the values compare unsigned, and an upper bound of INT64_MAX
 * is none. */
static bool within(const ArCtx *c, const IrExpr *e, int64_t v)
{
    int64_t lo, hi;
    ar_bound(c, e, &lo, &hi);
    if (is_u64(e->dtype))
        return (uint64_t)lo <= (uint64_t)v && (hi == INT64_MAX || (uint64_t)v <= (uint64_t)hi);
    return lo <= v && v <= hi;
}

static int check_one(Gen *g, IrExpr *e, Rng *r)
{
    AtEnv *E = g->E;
    IrExpr *s = ar_simplify(&E->ctx, e);
    const char *once = at_str(E, s), *twice = at_str(E, ar_simplify(&E->ctx, s));
    int failures = 0;
    if (!ir_dtype_eq(s->dtype, e->dtype) || strcmp(once, twice) != 0) {
        print_error("not idempotent or dtype changed:\n  %s\n  -> %s\n  -> %s\n", at_str(E, e), once,
                    twice);
        failures++;
    }
    for (int k = 0; k < 40; k++) {
        Point p;
        int64_t want, got;
        random_point(r, E, &p);
        if (!oracle(e, &p, &want))
            continue;
        bool ok = oracle(s, &p, &got) && got == want && within(&E->ctx, e, want) &&
                  within(&E->ctx, s, want);
        if (!ok) {
            print_error("mismatch at point %d:\n  %s = %lld\n  %s = %lld\n", k, at_str(E, e),
                        (long long)want, once, (long long)got);
            for (int i = 0; i < E->nvars; i++)
                print_error("  %s = %lld\n", E->vars[i].name, (long long)p.vals[i]);
            return failures + 1;
        }
    }
    return failures;
}

/* TIRX_PROPS_RUNS=N draws N times the cases (the random streams go on past
 * the suite's): a deeper search than the default run. */
static int props_runs(void)
{
    const char *s = getenv("TIRX_PROPS_RUNS");
    int n = s ? atoi(s) : 1;
    return n < 1 ? 1 : n;
}

static void run(const char *decls, IrDType t, bool wrapping, uint64_t seed, int count, int depth)
{
    Rng rng = {seed};
    count *= props_runs();
    AtEnv *E = at_env(decls);
    Gen g = {E, &rng, t, wrapping, at_var(E, "n")};
    int failures = 0;
    for (int i = 0; i < count && failures < 5; i++)
        failures += check_one(&g, gen(&g, (int)pick(&rng, 1, depth)), &rng);
    at_env_free(E);
    assert_int_equal(failures, 0);
}

static void test_int32(void **state)
{
    (void)state;
    run("x:int32[0,40) y:int32[-20,20) z:int32[0,7) w:int32 t:int32[0,128)", IR_INT32, false,
        0x9E3779B97F4A7C15ull, 3000, 4);
}

static void test_int64(void **state)
{
    (void)state;
    run("a:int64[0,1000) b:int64[-8,8) c:int64", IR_INT64, false, 0xD1B54A32D192ED03ull, 2000, 4);
}

/* Variables whose extents are other variables (j in range(n)). */
static void test_symbolic_extents(void **state)
{
    (void)state;
    run("n:int32[1,30) m:int32[2,9) j:int32[0,n) i:int32[0,m) w:int32", IR_INT32, false,
        0xBF58476D1CE4E5B9ull, 3000, 4);
}

static void test_uint32(void **state)
{
    (void)state;
    run("u:uint32[0,64) v:uint32[0,5) s:uint32", IR_UINT32, true, 0x94D049BB133111EBull, 2000, 3);
}

static void test_uint64(void **state)
{
    (void)state;
    run("u:uint64[0,64) v:uint64[0,5) s:uint64 b:uint64", IR_UINT64, true, 0xA0761D6478BD642Full,
        2000, 3);
}

/* Bounds are sound for the conditions too: a decided comparison is true or
 * false at every point. */
static void decided_conditions(const char *decls, IrDType t, bool wrapping, uint64_t seed)
{
    Rng rng = {seed};
    AtEnv *E = at_env(decls);
    Gen g = {E, &rng, t, wrapping, NULL};
    int failures = 0;
    for (int i = 0; i < 2000 * props_runs() && failures < 5; i++) {
        IrExpr *c = gen_compare(&g, (int)pick(&rng, 1, 3));
        ArProof pr = ar_prove(&E->ctx, c);
        for (int k = 0; pr != AR_UNKNOWN && k < 40; k++) {
            Point p;
            int64_t v;
            random_point(&rng, E, &p);
            if (oracle(c, &p, &v) && v != (pr == AR_TRUE)) {
                print_error("%s decided %d but is %lld\n", at_str(E, c), pr, (long long)v);
                failures++;
                break;
            }
        }
    }
    at_env_free(E);
    assert_int_equal(failures, 0);
}

static void test_decided_conditions(void **state)
{
    (void)state;
    decided_conditions("x:int32[0,40) y:int32[-20,20) z:int32[0,7)", IR_INT32, false,
                       0x2545F4914F6CDD1Dull);
    decided_conditions("u:uint32[0,64) v:uint32[0,5) s:uint32", IR_UINT32, true,
                       0x5851F42D4C957F2Dull);
    decided_conditions("u:uint64[0,64) v:uint64[0,5) s:uint64 b:uint64", IR_UINT64, true,
                       0xE7037ED1A0B428DBull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int32),
        cmocka_unit_test(test_int64),
        cmocka_unit_test(test_uint32),
        cmocka_unit_test(test_uint64),
        cmocka_unit_test(test_symbolic_extents),
        cmocka_unit_test(test_decided_conditions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
