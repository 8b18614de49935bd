/* Unit tests of the arith simplifier: the rules of reference/layout_passes.md
 * §4 (canonical sums, floordiv/floormod under bounds and divisibility, fusion
 * of split terms, Bind substitution, proofs, unsigned rules, conditional
 * elimination) and the index expressions of §5.8, as text vectors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "arith_util.h"

typedef struct Vec {
    const char *in, *out;
} Vec;

static void check_vectors(const char *decls, const Vec *v, int n)
{
    AtEnv *E = at_env(decls);
    int failed = 0;
    for (int i = 0; i < n; i++) {
        const char *got = at_simplify_str(E, v[i].in);
        if (strcmp(got, v[i].out) != 0) {
            print_error("simplify(%s)\n  got:      %s\n  expected: %s\n", v[i].in, got, v[i].out);
            failed++;
        }
    }
    at_env_free(E);
    assert_int_equal(failed, 0);
}

#define CHECK(decls, ...)                                                   \
    do {                                                                    \
        static const Vec v_[] = {__VA_ARGS__};                              \
        check_vectors(decls, v_, (int)(sizeof v_ / sizeof v_[0]));          \
    } while (0)

/* §4.1-2: folding, like terms, distribution, canonical order. */
static void test_affine_sums(void **state)
{
    (void)state;
    CHECK("i:int32[0,16) j:int32[0,64) k:int32 n:int32",
          {"1 + 2 * 3", "7"},
          {"i + 0", "i"},
          {"i * 1", "i"},
          {"i * 0", "0"},
          {"j + i * 64", "i * 64 + j"},
          {"(j + i * 64)", "i * 64 + j"},
          {"i + i", "i * 2"},
          {"i - i", "0"},
          {"i * 4 - i * 4 + j", "j"},
          {"(i * 8 + j) * 16", "i * 128 + j * 16"},
          {"(i + 1) * 4", "i * 4 + 4"},
          {"3 + i", "i + 3"},
          {"i - 3", "i - 3"},
          {"j - i", "j - i"},
          {"0 - i", "0 - i"},
          {"i * 2 - j * 3 + 5", "i * 2 + 5 - j * 3"},
          {"k + n - k", "n"},
          {"(k + 1) * n", "(k + 1) * n"},
          {"k * n - n * k", "0"},
          {"k * 4 * n", "k * n * 4"},
          {"i * 64 + j + k * 64", "i * 64 + k * 64 + j"});
}

/* §4.5: floordiv / floormod with bounds and divisibility. */
static void test_div_mod(void **state)
{
    (void)state;
    CHECK("tx:int32[0,32) t:int32[0,128) i:int32[0,16) j:int32[0,4) x:int32 y:int32",
          {"tx % 32", "tx"},
          {"tx // 32", "0"},
          {"(i * 4 + j) // 4", "i"},
          {"(i * 4 + j) % 4", "j"},
          {"(x * 4 + j) // 4", "x"},
          {"(x * 4 + y) // 4", "y // 4 + x"},
          {"(x * 4 + y) % 4", "y % 4"},
          {"(x * 8 + 3) // 4", "x * 2"},
          {"(x * 8 + 5) % 4", "1"},
          {"x % 32 % 4", "x % 4"},
          {"t % 32 % 4", "t % 4"},
          {"x // 4 // 8", "x // 32"},
          {"x % 4 % 32", "x % 4"},
          {"x % 16 // 4", "x % 16 // 4"},
          {"x // 4 % 8", "x % 32 // 4"},
          {"x // 4 * 4 + x % 4", "x"},
          {"x // 4 * 8192 + x % 4 * 2048", "x * 2048"},
          {"x % 16 // 4 * 4 + x % 4", "x % 16"},
          {"(x + 5) % 4", "(x + 1) % 4"},
          {"(x - 5) % 3", "(x + 1) % 3"},
          {"x * 4 % 8", "x % 2 * 4"},
          {"x * 6 // 4", "x * 6 // 4"},
          {"x * 4 // 8", "x // 2"},
          {"(i * 4 + j + 1) // 4", "(j + 1) // 4 + i"},
          {"(j + 4) // 4", "1"},
          {"(j + 4) % 4", "j"},
          {"x // 1", "x"},
          {"x % 1", "0"},
          {"x // -4", "(0 - x) // 4"},
          {"7 // -2", "-4"},
          {"7 % -2", "-1"},
          {"x // 0", "x // 0"});
}

/* §4.5 / §5.8: the index forms of the pass vectors. */
static void test_pass_vectors(void **state)
{
    (void)state;
    /* P3 */
    CHECK("i0:int32[0,4) i1:int32[0,2) i2:int32[0,2) j:int32[0,16)",
          {"(i0 * 4 + i1 * 2 + i2) * 16 + j", "i0 * 64 + i1 * 32 + i2 * 16 + j"});
    /* P19: lane l = threadIdx.x with extent 32 */
    CHECK("l:int32[0,32) i:int32[0,4) j:int32[0,2)",
          {"(l // 4 * 8 + i // 2 * 8 + l % 4) * 16 + l % 4 * 2 + i % 2",
           "l // 4 * 128 + i // 2 * 128 + l % 4 * 18 + i % 2"});
    /* P20: the wgmma local view */
    CHECK("i:int32[0,16) j:int32[0,2) v:int32[0,2)",
          {"i % 8 * 8 + j * 4 + i // 8 * 2 + v", "i % 8 * 8 + j * 4 + i // 8 * 2 + v"});
    /* P15 / P20: the thread index of a warpgroup local layout */
    CHECK("w:int32 tx:int32[0,128) i:int32[0,4)",
          {"w % 4 * 128 + tx % 32 * 4 + i", "w % 4 * 128 + tx % 32 * 4 + i"},
          {"tx % 32 // 4 * 128 + i * 8 + tx % 4 * 2", "tx % 32 // 4 * 128 + i * 8 + tx % 4 * 2"});
}

/* §4.6: fused index chains with symbolic extents collapse (P5). */
static void test_symbolic(void **state)
{
    (void)state;
    CHECK("i:int32 n:int32 m:int32 k:int32",
          {"i // (n * n) * (n * n) + i % (n * n) // n * n + i % n", "i"},
          {"i // n * n + i % n", "i"},
          {"(i // n * n + i % n) * 4", "i * 4"},
          {"i * m // m", "i"},
          {"n // n", "1"},
          {"n % n", "0"},
          {"i * n % n", "0"},
          {"(n % 16 + 2) * 2 % (n % 16 + 2)", "0"},
          {"(n % 16 + 2) * 2 // (n % 16 + 2)", "2"},
          {"i % (n * k) % n", "i % n"});
    CHECK("i:int32[0,8) j:int32[0,8)",
          {"(i * 8 + j) // 8 * 8 + (i * 8 + j) % 8", "i * 8 + j"});
}

/* min, max, comparisons, logic and select decided by bounds. */
static void test_bounds_decide(void **state)
{
    (void)state;
    CHECK("i:int32[0,16) j:int32[0,64) x:int32",
          {"min(i, 16)", "i"},
          {"max(i, 16)", "16"},
          {"min(i, j + 16)", "i"},
          {"min(x, x + 1)", "x"},
          {"max(x - 1, x)", "x"},
          {"min(x, j)", "min(x, j)"},
          {"min(x, x)", "x"},
          {"i < 16", "True"},
          {"i < 15", "i < 15"},
          {"i >= 0", "True"},
          {"i * 4 + 3 < 64", "True"},
          {"x + 1 > x", "True"},
          {"x == x", "True"},
          {"x != x + 1", "True"},
          {"i < 16 and x < 3", "x < 3"},
          {"i > 16 or x < 3", "x < 3"},
          {"not (x < 3)", "x >= 3"},
          {"not not (x < 3)", "x < 3"},
          {"select(i < 16, x, j)", "x"},
          {"select(x < 3, j, j)", "j"},
          {"ite(i >= 16, x, j + 1)", "j + 1"});
}

/* Casts, bitwise calls, dtypes. */
static void test_casts_bits_dtypes(void **state)
{
    (void)state;
    CHECK("i:int32[0,16) x:int32 l:int64 b:int64[0,8)",
          {"i64(5)", "5"},
          {"i32(3000000000)", "-1294967296"},
          {"i32(i64(x))", "x"},
          {"i64(i32(b))", "b"},
          {"i64(i32(l))", "int64(int32(l))"},
          {"6 & 3", "2"},
          {"x | 0", "x"},
          {"x ^ 0", "x"},
          {"x & 0", "0"},
          {"1 << 4", "16"},
          {"x >> 0", "x"},
          {"(x ^ 5) + (x ^ 5)", "(x ^ 5) * 2"},
          {"l * 64 + l", "l * 65"},
          {"b * 64 + b % 8", "b * 65"},
          /* a widened index's constant leaves the cast when the sum fits */
          {"i64(i * 4 + 3)", "int64(i * 4) + 3"},
          {"l + i64(i + 3)", "l + int64(i) + 3"},
          {"i64(x + 3)", "int64(x + 3)"});
    /* dtypes are kept: an int64 sum stays int64, constants included */
    AtEnv *E = at_env("l:int64[0,16)");
    IrExpr *r = ar_simplify(&E->ctx, at_parse(E, "l * 4 + 4 - l * 4"));
    assert_int_equal(r->kind, IR_E_INT);
    assert_true(ir_dtype_eq(r->dtype, IR_INT64));
    r = ar_simplify(&E->ctx, at_parse(E, "(l + 1) * 3"));
    assert_true(ir_dtype_eq(r->dtype, IR_INT64));
    assert_true(ir_dtype_eq(r->u.op.b->dtype, IR_INT64));
    at_env_free(E);
}

/* A float literal cast to another float type folds when its value is exact
 * in both (no rounding either side), and stays a cast otherwise. */
static void test_float_literal_casts(void **state)
{
    (void)state;
    AtEnv *E = at_env("x:int32");
    TxArena *a = &E->m->arena;
    struct { IrDType from, to; double v; bool folds; } cases[] = {
        {IR_FLOAT32, IR_BFLOAT16, 0.0, true},   {IR_FLOAT32, IR_FLOAT16, 0.0, true},
        {IR_FLOAT32, IR_BFLOAT16, 1.5, true},   {IR_FLOAT32, IR_FLOAT16, -65504, true},
        {IR_FLOAT32, IR_FLOAT16, 65536, false}, /* past float16's largest */
        {IR_FLOAT32, IR_FLOAT16, 0x1p-24, true}, /* its smallest subnormal */
        {IR_FLOAT32, IR_FLOAT16, 0x1p-25, false},
        {IR_FLOAT32, IR_FLOAT16, 1 + 0x1p-10, true}, {IR_FLOAT32, IR_FLOAT16, 1 + 0x1p-11, false},
        {IR_FLOAT32, IR_BFLOAT16, 1 + 0x1p-7, true}, {IR_FLOAT32, IR_BFLOAT16, 1 + 0x1p-8, false},
        {IR_FLOAT32, IR_BFLOAT16, INFINITY, true}, {IR_FLOAT32, IR_BFLOAT16, NAN, false},
        {IR_FLOAT64, IR_FLOAT32, 0.1, false},   /* rounds to float */
        {IR_FLOAT32, IR_FLOAT64, 0.1, false},   /* 0.1 is not a float32 value */
        {IR_BFLOAT16, IR_FLOAT32, 0.375, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        IrExpr *c = ir_node(a, IR_E_CAST, cases[i].to, (TxSpan){0});
        c->u.op.a = ir_float(a, cases[i].from, cases[i].v, (TxSpan){0});
        IrExpr *r = ar_simplify(&E->ctx, c);
        if (r->kind != (cases[i].folds ? IR_E_FLOAT : IR_E_CAST))
            fail_msg("case %zu (%g): %s", i, cases[i].v, cases[i].folds ? "not folded" : "folded");
        assert_true(ir_dtype_eq(r->dtype, cases[i].to));
        if (cases[i].folds && !isinf(cases[i].v))
            assert_true(r->u.float_val == cases[i].v);
    }
    at_env_free(E);
}

/* A float literal cast to an integer dtype folds to what the device's
 * conversion gives: the literal's value in its own dtype, truncated and
 * saturated to the target (NaN -> 0); to bool, x != 0 (NaN is true). */
static void test_float_literal_to_int(void **state)
{
    (void)state;
    AtEnv *E = at_env("x:int32");
    TxArena *a = &E->m->arena;
    int failed = 0;
    struct { IrDType from, to; double v; int64_t want; } cases[] = {
        {IR_FLOAT32, IR_BOOL, 0.5, 1},          {IR_FLOAT32, IR_BOOL, NAN, 1},
        {IR_FLOAT32, IR_BOOL, -0.0, 0},         {IR_FLOAT32, IR_BOOL, 1e-50, 0},
        {IR_FLOAT32, IR_INT32, 16777217, 16777216},
        {IR_FLOAT64, IR_INT32, 16777217, 16777217},
        {IR_FLOAT32, IR_INT32, -2.5, -2},       {IR_FLOAT32, IR_INT32, NAN, 0},
        {IR_FLOAT32, IR_INT32, 3e9, INT32_MAX}, {IR_FLOAT32, IR_INT32, -3e9, INT32_MIN},
        {IR_FLOAT32, IR_UINT8, -1.5, 0},        {IR_FLOAT32, IR_UINT8, 300, 255},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        IrExpr *r = ar_cast(a, cases[i].to, ir_float(a, cases[i].from, cases[i].v, (TxSpan){0}),
                            (TxSpan){0});
        if (r->kind != IR_E_INT || r->u.int_val != cases[i].want)
            print_error("case %zu (%g): got %lld, expected %lld\n", i, cases[i].v,
                        r->kind == IR_E_INT ? (long long)r->u.int_val : -12345LL,
                        (long long)cases[i].want), failed++;
    }
    assert_int_equal(failed, 0);
    at_env_free(E);
}

/* Two float literals fold to what the device computes: each is a value of its
 * dtype (a float32 literal may hold digits float32 does not keep), a NaN
 * loses a min or max (fminf, fmaxf), and 0 * inf is NaN, not the 0 of the
 * x * 0 identity. */
static void test_float_literal_folds(void **state)
{
    (void)state;
    AtEnv *E = at_env("x:int32");
    TxArena *a = &E->m->arena;
    int failed = 0;
    struct { IrExprKind k; IrDType t; double x, y, want; } cases[] = {
        {IR_E_EQ, IR_FLOAT32, 16777217, 16777216, 1},
        {IR_E_EQ, IR_FLOAT32, 0.1, 0x1.99999ap-4, 1},
        {IR_E_LT, IR_FLOAT32, 0.1, 0x1.99999ap-4, 0},
        {IR_E_EQ, IR_FLOAT16, 1.0001, 1.0, 1},
        {IR_E_EQ, IR_BFLOAT16, 1.001, 1.0, 1},
        {IR_E_EQ, IR_FLOAT64, 0.1, 0x1.99999ap-4, 0},
        {IR_E_NE, IR_FLOAT32, NAN, NAN, 1},
        {IR_E_MIN, IR_FLOAT32, 1.0, NAN, 1.0},
        {IR_E_MAX, IR_FLOAT32, 1.0, NAN, 1.0},
        {IR_E_MIN, IR_FLOAT32, NAN, 1.0, 1.0},
        {IR_E_MAX, IR_FLOAT64, NAN, -2.0, -2.0},
        {IR_E_MIN, IR_FLOAT32, 2.0, 3.0, 2.0},
        {IR_E_MUL, IR_FLOAT32, 0.0, INFINITY, NAN},
        {IR_E_MUL, IR_FLOAT64, INFINITY, 0.0, NAN},
        {IR_E_MUL, IR_FLOAT32, NAN, 0.0, NAN},
        {IR_E_ADD, IR_FLOAT32, 16777216, 1.0, 16777216},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        IrExpr *x = ir_float(a, cases[i].t, cases[i].x, (TxSpan){0});
        IrExpr *y = ir_float(a, cases[i].t, cases[i].y, (TxSpan){0});
        IrExpr *e = ir_binary(a, cases[i].k, x, y, (TxSpan){0});
        bool cmp = cases[i].k >= IR_E_EQ && cases[i].k <= IR_E_GE;
        if (cmp)
            e->dtype = IR_BOOL;
        IrExpr *r = ar_simplify(&E->ctx, e);
        double got = r->kind == IR_E_INT ? (double)r->u.int_val
                     : r->kind == IR_E_FLOAT ? r->u.float_val : -12345;
        if (r->kind != (cmp ? IR_E_INT : IR_E_FLOAT) ||
            !(got == cases[i].want || (isnan(got) && isnan(cases[i].want))))
            print_error("case %zu: got %g, expected %g\n", i, got, cases[i].want), failed++;
    }
    assert_int_equal(failed, 0);
    /* 0.0 / 0.0 is the reference's division by zero, not 0.0 */
    const char *err = NULL;
    IrExpr *z = ir_float(a, IR_FLOAT32, 0.0, (TxSpan){0});
    assert_null(ar_binary(a, IR_E_DIV, z, z, (TxSpan){0}, &err));
    assert_non_null(err);
    at_env_free(E);
}

/* Overflow-aware folding: a result that does not fit the dtype is not folded. */
static void test_overflow(void **state)
{
    (void)state;
    CHECK("x:int32 l:int64",
          {"x * 65536 * 65536", "x * 65536 * 65536"},
          {"2147483647 + x - x + 1", "2147483647 + 1"},
          {"l * 65536 * 65536", "l * 4294967296"},
          {"l * 4294967296 * 4294967296", "l * 4294967296 * 4294967296"});
}

/* §4.8: unsigned rules: wrap-safe only. */
static void test_unsigned(void **state)
{
    (void)state;
    CHECK("u:uint32 v:uint32[0,100) w:uint32[0,4)",
          {"u // 1", "u"},
          {"u % 1", "0"},
          {"u // u", "1"},
          {"u % u", "0"},
          {"v // 128", "0"},
          {"v % 128", "v"},
          {"u * 8 % 4", "0"},
          {"u * 12 % 4", "0"},
          {"u * 12 % 6", "u * 12 % 6"},
          {"u * 4 // 2", "u * 4 // 2"},
          {"(u * 8 + w) % 8", "w"},
          {"(u * 8 + w) // 8", "(u * 8 + w) // 8"},
          {"u + 1 - 1", "u"},
          {"u // 4 // 8", "u // 32"},
          {"u % 32 % 4", "u % 4"});
}

/* §4.4: pure Bind values are substituted; impure ones stay variables. */
static void test_bind_substitution(void **state)
{
    (void)state;
    AtEnv *E = at_env("tx:int32[0,128) lane:int32 warp:int32 i:int32[0,4)");
    ar_bind_value(&E->ctx, at_var(E, "lane"), at_parse(E, "tx % 32"));
    assert_string_equal(at_simplify_str(E, "lane * 4 + i"), "tx % 32 * 4 + i");
    assert_string_equal(at_simplify_str(E, "lane % 32"), "tx % 32");
    assert_string_equal(at_simplify_str(E, "tx // 32 * 32 + lane"), "tx");
    assert_string_equal(at_simplify_str(E, "warp % 4"), "warp % 4");
    ar_scope_push(&E->ctx);
    ar_bind_value(&E->ctx, at_var(E, "warp"), at_parse(E, "tx // 32"));
    assert_string_equal(at_simplify_str(E, "warp % 4"), "tx // 32");
    ar_scope_pop(&E->ctx);
    assert_string_equal(at_simplify_str(E, "warp % 4"), "warp % 4");
    at_env_free(E);
}

/* Bounds: loop extents, assumptions, scopes. */
static void test_bounds(void **state)
{
    (void)state;
    AtEnv *E = at_env("i:int32[0,16) j:int32[2,10) x:int32 u:uint32 n:int32");
    int64_t lo, hi;
    assert_true(ar_bound(&E->ctx, at_parse(E, "i * 4 + j"), &lo, &hi));
    assert_int_equal(lo, 2);
    assert_int_equal(hi, 69);
    assert_true(ar_bound(&E->ctx, at_parse(E, "x % 8"), &lo, &hi));
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 7);
    assert_true(ar_bound(&E->ctx, at_parse(E, "(i * 4 + j) // 4"), &lo, &hi));
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 17);
    assert_true(ar_bound(&E->ctx, at_parse(E, "min(i, j) - max(x % 4, 1)"), &lo, &hi));
    assert_int_equal(lo, -3);
    assert_int_equal(hi, 8);
    assert_true(ar_bound(&E->ctx, at_parse(E, "x & 255"), &lo, &hi));
    assert_int_equal(hi, 255);
    assert_true(ar_bound(&E->ctx, at_parse(E, "(i ^ 7) >> 1"), &lo, &hi));
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 7);
    assert_false(ar_bound(&E->ctx, at_parse(E, "x + 1"), &lo, &hi));
    assert_int_equal(lo, INT32_MIN);
    assert_int_equal(hi, INT32_MAX);
    assert_false(ar_bound(&E->ctx, at_parse(E, "u"), &lo, &hi));
    assert_int_equal(lo, 0);
    assert_int_equal(hi, UINT32_MAX);
    assert_true(ar_bound(NULL, at_parse(E, "x % 8 * 2"), &lo, &hi));
    assert_int_equal(hi, 14);
    /* assumptions tighten ranges inside a scope */
    ar_scope_push(&E->ctx);
    ar_assume(&E->ctx, at_parse(E, "x < 10 and x >= 2"));
    assert_true(ar_bound(&E->ctx, at_parse(E, "x"), &lo, &hi));
    assert_int_equal(lo, 2);
    assert_int_equal(hi, 9);
    assert_string_equal(at_simplify_str(E, "x % 16"), "x");
    ar_assume(&E->ctx, at_parse(E, "n * 2 < x"));
    assert_int_equal(ar_prove(&E->ctx, at_parse(E, "n * 2 < x")), AR_TRUE);
    assert_int_equal(ar_prove(&E->ctx, at_parse(E, "n * 2 >= x")), AR_FALSE);
    ar_scope_pop(&E->ctx);
    assert_false(ar_bound(&E->ctx, at_parse(E, "x"), &lo, &hi));
    assert_int_equal(ar_prove(&E->ctx, at_parse(E, "n * 2 < x")), AR_UNKNOWN);
    /* ar_less is the cheap structural proof */
    assert_true(ar_less(&E->ctx, at_parse(E, "i"), at_parse(E, "16")));
    assert_false(ar_less(&E->ctx, at_parse(E, "i"), at_parse(E, "15")));
    at_env_free(E);
}

/* §4.7: proof queries; unprovable means "unknown", never an error. */
static void test_prove(void **state)
{
    (void)state;
    AtEnv *E = at_env("i:int32[0,16) n:int32 x:int32");
    assert_int_equal(ar_prove(&E->ctx, at_parse(E, "(n % 16 + 2) * 2 % (n % 16 + 2) == 0")), AR_TRUE);
    assert_int_equal(ar_prove(&E->ctx, at_parse(E, "i < 16")), AR_TRUE);
    assert_int_equal(ar_prove(&E->ctx, at_parse(E, "i * 2 <= 30")), AR_TRUE);
    assert_int_equal(ar_prove(&E->ctx, at_parse(E, "i > 14")), AR_UNKNOWN);
    assert_int_equal(ar_prove(&E->ctx, at_parse(E, "i > 16")), AR_FALSE);
    assert_int_equal(ar_prove(&E->ctx, at_parse(E, "x < n")), AR_UNKNOWN);
    assert_int_equal(ar_prove(&E->ctx, at_parse(E, "x // 0 == 1")), AR_UNKNOWN);
    at_env_free(E);
}

/* A swizzled address in a Let is never divided as a whole (§4.10). */
static void test_let(void **state)
{
    (void)state;
    AtEnv *E = at_env("tx:int32[0,128) v:int32[0,8) m:int32 q:int32");
    TxArena *a = &E->m->arena;
    IrExpr *mv = at_var(E, "m"), *qv = at_var(E, "q");
    IrExpr *inner = ir_node(a, IR_E_LET, IR_INT32, (TxSpan){0});
    inner->u.op.var = qv;
    inner->u.op.a = at_parse(E, "m // 8");
    inner->u.op.b = at_parse(E, "((q ^ ((q & 56) >> 3)) << 3) + m % 8");
    IrExpr *outer = ir_node(a, IR_E_LET, IR_INT32, (TxSpan){0});
    outer->u.op.var = mv;
    outer->u.op.a = at_parse(E, "tx * 8 + v");
    outer->u.op.b = inner;
    const char *s = at_str(E, ar_simplify(&E->ctx, outer));
    assert_string_equal(s, "let m = tx * 8 + v in let q = m // 8 in "
                           "((q ^ (q & 56) >> 3) << 3) + m % 8");
    /* a Let of a variable is inlined */
    IrExpr *let = ir_node(a, IR_E_LET, IR_INT32, (TxSpan){0});
    let->u.op.var = mv, let->u.op.a = at_var(E, "tx"), let->u.op.b = at_parse(E, "m % 128 + 1");
    assert_string_equal(at_str(E, ar_simplify(&E->ctx, let)), "tx + 1");
    at_env_free(E);
}

/* Known multiples: gcd over a sum's terms and offsets, products, exact
 * divisions, a let's value through the map; ar_divisible and the builders'
 * folds by a literal follow them. */
static void test_known_multiple(void **state)
{
    (void)state;
    AtEnv *E = at_env("x:int32 y:int32 d:int32 r:int32");
    static const struct {
        const char *e;
        int64_t m;
    } cases[] = {
        {"x * 256 // 128 * 128 + y * 128", 128}, {"(x * 2 + y) * 128", 128},
        {"x * 128 + 128", 128}, {"x * 2 * 128 + y * 128", 128}, {"x * 128 + 64", 64},
        {"x * 128 - y * 96", 32}, {"x * 6 // 3", 2}, {"x * 6 // 4", 1}, {"x * 128 % 64", 0},
        {"(x * 128 + 64) % 128", 64}, {"x % 12", 1}, {"0", 0}, {"-96", 96},
        {"min(x * 8, y * 12)", 4}, {"select(x < y, x * 16, 32)", 16}, {"i64(x * 64)", 64},
        {"d + 64", 1}, {"x", 1},
    };
    for (size_t i = 0; i < TX_ARRAY_LEN(cases); i++)
        if (ar_known_multiple(NULL, at_parse(E, cases[i].e)) != cases[i].m)
            fail_msg("%s: %lld, expected %lld", cases[i].e,
                     (long long)ar_known_multiple(NULL, at_parse(E, cases[i].e)),
                     (long long)cases[i].m);
    /* a let's value: d = x * 128, r = d + y * 256 */
    IrPtrMap lets = {0};
    ir_ptrmap_put(&lets, at_var(E, "d"), 128);
    int64_t r = ar_known_multiple(&lets, at_parse(E, "d + y * 256"));
    ir_ptrmap_put(&lets, at_var(E, "r"), (uintptr_t)r);
    assert_int_equal(ar_known_multiple(&lets, at_parse(E, "r")), 128);
    assert_int_equal(ar_known_multiple(&lets, at_parse(E, "d + 64")), 64);
    assert_int_equal(ar_known_multiple(&lets, at_parse(E, "(d * 2 + x * 128) // 32 % 4")), 0);
    ir_ptrmap_free(&lets);

    TxArena *a = &E->m->arena;
    IrExpr *k128 = ar_index_int(a, 128);
    assert_true(ar_divisible(at_parse(E, "x * 256 // 128 * 128 + y * 128"), k128));
    assert_true(ar_divisible(at_parse(E, "x * 128 + 128"), k128));
    assert_true(ar_divisible(at_parse(E, "(x * 4) * (y * 32)"), k128));
    assert_false(ar_divisible(at_parse(E, "x * 128 + 64"), k128));
    assert_false(ar_divisible(at_parse(E, "x * 64"), k128));
    /* the digit a layout slice checks: (x * 128 + y * 128) // 32 % 4 is 0 */
    IrExpr *q = ar_floordiv(a, at_parse(E, "x * 128 + y * 128"), ar_index_int(a, 32));
    assert_true(ar_is_const(ar_floormod(a, q, ar_index_int(a, 4)), 0));
    q = ar_floordiv(a, at_parse(E, "x * 128 + 64"), ar_index_int(a, 32));
    assert_false(ar_is_const(ar_floormod(a, q, ar_index_int(a, 4)), 0));
    at_env_free(E);
}

/* An unsigned constant past the dtype's range is the same value taken
 * modulo 2**bits, whose bounds may decide a division (v + 2147483656 * 3 is
 * v + 2147483672 in uint32); a sum whose values cross 2**32 stays a modulo. */
static void test_unsigned_wrapped_constant(void **state)
{
    (void)state;
    CHECK("u:uint32[0,64) v:uint32[0,5)",
          {"(v + 2147483656u * 3u) % 20u", "v + 12"},
          {"(v + 2147483656u * 3u) // 20u", "107374183"},
          {"(v + 2147483656u * 3u) // 20u * 20u * 4u + (v + 2147483656u * 3u) % 20u * 4u",
           "v * 4 + 96"},
          {"(v - 9u) % 20u", "v + 7"},
          {"(u - 9u) % 20u", "(u - 9) % 20"},
          {"(u + 4294967290u) % 100u", "(u + 4294967290) % 100"});
}

/* A rule that applies only once an operand is simplified takes another
 * round: one call reaches the fixed point. */
static void test_fixed_point(void **state)
{
    (void)state;
    CHECK("m:int32[2,9) i:int32[0,m) b:int64",
          {"(i * 8 - max(m, 1)) % 8", "8 - m"},
          {"(min(-6, b) - (b // 16 * 16 * 4 + b % 16 * 4)) // 4 * 4 * 3 + "
           "(min(-6, b) - (b // 16 * 16 * 4 + b % 16 * 4)) % 4 * 3",
           "min(-6, b) * 3 - b * 12"});
}

/* Unsigned comparisons use the operands' own bounds (the ring difference is
 * not the integer difference). */
static void test_unsigned_compare(void **state)
{
    (void)state;
    CHECK("u:uint32[0,5) v:uint32[10,20) s:uint32",
          {"u < v", "True"},
          {"v < u", "False"},
          {"min(u, v)", "u"},
          {"max(u, v)", "v"},
          {"u - v < 4", "u - v < 4"},
          {"s >= 0", "True"});
}

/* uint64 constants past INT64_MAX (held as negative int64 bit patterns) fold
 * as unsigned in the index builders of the passes and in ar_eval. */
static void test_uint64_past_int64(void **state)
{
    (void)state;
    AtEnv *E = at_env("");
    TxArena *a = &E->m->arena;
    const uint64_t big = 11704183484514305827u;
    IrExpr *x = ir_int(a, IR_UINT64, (int64_t)big, (TxSpan){0});
    IrExpr *two = ir_int(a, IR_UINT64, 2, (TxSpan){0});
    int64_t v;
    assert_true(ar_const_int(ar_floordiv(a, x, two), &v));
    assert_true((uint64_t)v == big / 2);
    assert_true(ar_const_int(ar_floormod(a, x, two), &v));
    assert_int_equal(v, 1);
    assert_true(ar_const_int(ar_floordiv(a, two, x), &v));
    assert_int_equal(v, 0);
    assert_true(ar_const_int(ar_floormod(a, two, x), &v));
    assert_int_equal(v, 2);
    assert_true(ar_const_int(ar_add(a, x, x), &v)); /* wraps */
    assert_true((uint64_t)v == big * 2);
    IrExpr *q = ir_binary(a, IR_E_FLOORDIV, x, ir_int(a, IR_UINT64, 3, (TxSpan){0}), (TxSpan){0});
    assert_true(ar_eval(q, NULL, NULL, 0, &v));
    assert_true((uint64_t)v == big / 3);
    IrExpr *lt = ir_binary(a, IR_E_LT, two, x, (TxSpan){0});
    assert_true(ar_eval(lt, NULL, NULL, 0, &v));
    assert_int_equal(v, 1);
    at_env_free(E);
}

/* Symbolic loop ranges prove j < n for j in range(n) (one level). */
static void test_symbolic_ranges(void **state)
{
    (void)state;
    AtEnv *E = at_env("n:int32 m:int32 i:int32 j:int32");
    TxArena *a = &E->m->arena;
    ar_bind_bounds(&E->ctx, at_var(E, "n"), 1, INT64_MAX);
    ar_bind_range(&E->ctx, at_var(E, "j"), ir_i32(a, 0), at_var(E, "n"));
    ar_bind_range(&E->ctx, at_var(E, "i"), ir_i32(a, 0), at_var(E, "m"));
    assert_string_equal(at_simplify_str(E, "j < n"), "True");
    assert_string_equal(at_simplify_str(E, "j + 1 <= n"), "True");
    assert_string_equal(at_simplify_str(E, "j % n"), "j");
    assert_string_equal(at_simplify_str(E, "j // n"), "0");
    assert_string_equal(at_simplify_str(E, "(i * n + j) // n"), "i");
    assert_string_equal(at_simplify_str(E, "(i * n + j) % n"), "j");
    assert_string_equal(at_simplify_str(E, "min(j, n)"), "j");
    assert_string_equal(at_simplify_str(E, "j < n - 1"), "j < n - 1");
    at_env_free(E);
}

/* The vectorizer's ramp and broadcast forms. */
static void test_vectors(void **state)
{
    (void)state;
    AtEnv *E = at_env("i:int32[0,16) x:int32");
    TxArena *a = &E->m->arena;
    IrDType v4 = ir_dtype_with_lanes(IR_INT32, 4);
    IrExpr *r = ir_node(a, IR_E_RAMP, v4, (TxSpan){0});
    r->u.op.a = at_parse(E, "i * 4"), r->u.op.b = ir_i32(a, 1), r->u.op.lanes = 4;
    IrExpr *b8 = ir_node(a, IR_E_BROADCAST, v4, (TxSpan){0});
    b8->u.op.a = ir_i32(a, 8), b8->u.op.lanes = 4;
    IrExpr *bx = ir_node(a, IR_E_BROADCAST, v4, (TxSpan){0});
    bx->u.op.a = at_var(E, "x"), bx->u.op.lanes = 4;
    IrExpr *e = ar_simplify(&E->ctx, ir_binary(a, IR_E_ADD, r, bx, (TxSpan){0}));
    assert_int_equal(e->kind, IR_E_RAMP);
    assert_string_equal(at_str(E, e->u.op.a), "i * 4 + x");
    e = ar_simplify(&E->ctx, ir_binary(a, IR_E_MUL, r, b8, (TxSpan){0}));
    assert_int_equal(e->kind, IR_E_RAMP);
    assert_string_equal(at_str(E, e->u.op.a), "i * 32");
    assert_string_equal(at_str(E, e->u.op.b), "8");
    e = ar_simplify(&E->ctx, ir_binary(a, IR_E_FLOORDIV, r, b8, (TxSpan){0}));
    assert_int_equal(e->kind, IR_E_BROADCAST);
    assert_string_equal(at_str(E, e->u.op.a), "i // 2");
    e = ar_simplify(&E->ctx, ir_binary(a, IR_E_FLOORMOD, r, b8, (TxSpan){0}));
    assert_int_equal(e->kind, IR_E_RAMP);
    assert_string_equal(at_str(E, e->u.op.a), "i % 2 * 4");
    e = ar_simplify(&E->ctx, ir_binary(a, IR_E_ADD, bx, bx, (TxSpan){0}));
    assert_int_equal(e->kind, IR_E_BROADCAST);
    assert_string_equal(at_str(E, e->u.op.a), "x * 2");
    /* lanes that cross a block stay divided */
    IrExpr *r3 = ir_node(a, IR_E_RAMP, v4, (TxSpan){0});
    r3->u.op.a = at_parse(E, "i * 3"), r3->u.op.b = ir_i32(a, 1), r3->u.op.lanes = 4;
    e = ar_simplify(&E->ctx, ir_binary(a, IR_E_FLOORDIV, r3, b8, (TxSpan){0}));
    assert_int_equal(e->kind, IR_E_FLOORDIV);
    at_env_free(E);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_affine_sums),
        cmocka_unit_test(test_uint64_past_int64),
        cmocka_unit_test(test_div_mod),
        cmocka_unit_test(test_pass_vectors),
        cmocka_unit_test(test_symbolic),
        cmocka_unit_test(test_bounds_decide),
        cmocka_unit_test(test_casts_bits_dtypes),
        cmocka_unit_test(test_float_literal_casts),
        cmocka_unit_test(test_float_literal_folds),
        cmocka_unit_test(test_float_literal_to_int),
        cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_unsigned),
        cmocka_unit_test(test_bind_substitution),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_prove),
        cmocka_unit_test(test_let),
        cmocka_unit_test(test_known_multiple),
        cmocka_unit_test(test_unsigned_compare),
        cmocka_unit_test(test_unsigned_wrapped_constant),
        cmocka_unit_test(test_fixed_point),
        cmocka_unit_test(test_symbolic_ranges),
        cmocka_unit_test(test_vectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
