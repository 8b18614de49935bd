/* Unit tests of ComposeLayout: the swizzle function and its symbolic forms
 * (reference/layout_passes.md §5.5, W1-W12), the 128B/float16 case study and
 * its banks, the hardware modes per dtype, the MMA shared-memory layouts
 * (T7-T10) and the base-alignment check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "layout_spec.h"

static IrExpr *var(LyCtx *c, const char *name)
{
    return ir_var(c->arena, name, ir_prim_type(c->arena, IR_INT32), (TxSpan){0});
}

static int64_t flat(LyCtx *c, const IrLayout *l, int64_t n, int64_t pos)
{
    return at1(c, l, &n, &pos, 1, "m");
}

static void test_w1_w4_bare_swizzles(void **state)
{
    LyCtx *c = CTX;
    IrLayout *w1 = spec(c, "Cmp(0,3,3;S[64])"), *w3 = spec(c, "Cmp(0,3,3;S[64],inner=F)");
    IrLayout *w4 = spec(c, "Cmp(0,2,3;S[32])");
    for (int64_t i = 0; i < 8; i++)
        for (int64_t j = 0; j < 8; j++) {
            assert_int_equal(flat(c, w1, 64, 8 * i + j), 8 * i + (i ^ j));
            assert_int_equal(flat(c, w3, 64, 8 * i + j), 8 * (i ^ j) + j);
            assert_int_equal(flat(c, w4, 64, 8 * i + j), 8 * i + 4 * (j / 4) + ((i % 4) ^ (j % 4)));
        }
    assert_int_equal(flat(c, w3, 64, 2 * 8 + 3), 11);
    assert_int_equal(flat(c, w4, 64, 5 * 8 + 6), 47);
    IrLayout *w2 = spec(c, "Cmp(3,3,3;S[512])");
    for (int64_t i = 0; i < 8; i++)
        for (int64_t j = 0; j < 8; j++)
            for (int64_t k = 0; k < 8; k++)
                assert_int_equal(flat(c, w2, 512, (8 * i + j) * 8 + k), (8 * i + (i ^ j)) * 8 + k);
    for (int64_t p = 0; p < 4096; p++) /* beyond one period it extends linearly */
        assert_int_equal(flat(c, w2, 4096, p), 512 * (p / 512) + flat(c, w2, 512, p % 512));
    assert_int_equal(flat(c, w2, 4096, 72), 64);
    assert_int_equal(flat(c, w2, 4096, 4095), 4039);
    assert_int_equal(ly_swizzle(w2, 4095), 4039);
}

/* W5 and the documentation's 128B/float16 case study, with its banks. */
static void test_w5_case_study_and_banks(void **state)
{
    LyCtx *c = CTX;
    IrLayout *l = spec(c, "Cmp(3,3,3;S[(8,64):(64,1)])");
    int64_t shape[] = {8, 64};
    for (int64_t i = 0; i < 8; i++)
        for (int64_t j = 0; j < 64; j++) {
            int64_t idx[] = {i, j};
            assert_int_equal(at1(c, l, shape, idx, 2, "m"), 64 * i + 8 * ((j / 8) ^ i) + j % 8);
        }
    int64_t idx[][2] = {{1, 0}, {3, 17}, {7, 63}}, want[] = {72, 201, 455};
    for (int k = 0; k < 3; k++)
        assert_int_equal(at1(c, l, shape, idx[k], 2, "m"), want[k]);
    for (int64_t i = 0; i < 8; i++) { /* column 0 spreads over banks 0, 4, ..., 28 */
        int64_t addr = at1(c, l, shape, (int64_t[]){i, 0}, 2, "m");
        assert_int_equal((addr * 2 / 4) % 32, 4 * i);
    }
    assert_true(symbolic_matches(c, l, shape, 2, 1));
}

/* Evaluate a symbolic apply at (x, y) with extra variables bound. */
static int64_t eval2(LyCtx *c, IrExpr *e, IrExpr **vars, const int64_t *vals, int n)
{
    int64_t v = -1;
    assert_true(ar_eval(e, (const IrExpr *const *)vars, vals, n, &v));
    (void)c;
    return v;
}

static IrExpr *apply2(LyCtx *c, const IrLayout *l, IrExpr *x, IrExpr *y, int64_t r, int64_t s)
{
    IrExpr *idx[] = {x, y};
    LyAxisValue *out;
    int n;
    assert_true(ly_apply_expr(c, l, idx, ints(c, (int64_t[]){r, s}, 2), 2, &out, &n));
    assert_int_equal(n, 1);
    assert_string_equal(out[0].axis, "m");
    return out[0].value;
}

/* The tile address of (x, y) plus `extra`, swizzled: what every form must equal. */
static void check_swizzled(LyCtx *c, const IrLayout *l, IrExpr *e, IrExpr **vars, int nvars,
                           int64_t rows, int64_t cols, int64_t row_stride, int64_t extra_of_vars)
{
    int64_t vals[4] = {0, 0, 3, 5};
    for (int64_t x = 0; x < rows; x++)
        for (int64_t y = 0; y < cols; y++) {
            vals[0] = x, vals[1] = y;
            int64_t m = x * row_stride + y + extra_of_vars;
            assert_int_equal(eval2(c, e, vars, vals, nvars), ly_swizzle(l, m));
        }
}

static void test_w6_w8_structured(void **state)
{
    LyCtx *c = CTX;
    IrExpr *x = var(c, "x"), *y = var(c, "y"), *vars[] = {x, y};
    IrExpr *e = apply2(c, spec(c, "Cmp(3,0,3;S[(8,8):(64,1)] + 72)"), x, y, 8, 8);
    assert_string_equal(ly_expr_str(c, e), "x * 64 + y + 72");
    for (int sw = 1; sw <= 3; sw++) {
        char text[64];
        snprintf(text, sizeof text, "Cmp(3,%d,3;S[(8,8):(64,1)] + 72)", sw);
        IrLayout *l = spec(c, text);
        e = apply2(c, l, x, y, 8, 8);
        assert_int_not_equal(e->kind, IR_E_LET);
        check_swizzled(c, l, e, vars, 2, 8, 8, 64, 72);
    }
    IrLayout *w7 = spec(c, "Cmp(3,3,3;S[(128,8):(8,1)])");
    e = apply2(c, w7, x, y, 128, 8);
    assert_string_equal(ly_expr_str(c, e), "x // 8 * 64 + (x % 8 * 8 + y ^ (x // 8 & 7) << 3)");
    check_swizzled(c, w7, e, vars, 2, 128, 8, 8, 0);
    IrLayout *w8 = spec(c, "Cmp(3,3,3;S[(2,4,8,8):(256,64,8,1)])");
    e = apply2(c, w8, x, y, 8, 64);
    assert_string_equal(ly_expr_str(c, e), "x * 64 + (y ^ (x & 7) << 3)");
    check_swizzled(c, w8, e, vars, 2, 8, 64, 64, 0);
}

static void test_w9_dynamic_offsets(void **state)
{
    LyCtx *c = CTX;
    IrExpr *x = var(c, "x"), *y = var(c, "y"), *h = var(c, "h"), *l = var(c, "l");
    IrIter shard[] = {{ir_i32(c->arena, 8), ir_i32(c->arena, 64), "m"},
                      {ir_i32(c->arena, 8), ir_i32(c->arena, 1), "m"}};
    IrExpr *off = ir_binary(c->arena, IR_E_ADD,
                            ir_binary(c->arena, IR_E_ADD,
                                      ir_binary(c->arena, IR_E_MUL, h, ir_i32(c->arena, 64), (TxSpan){0}),
                                      ir_binary(c->arena, IR_E_FLOORMOD, l, ir_i32(c->arena, 8), (TxSpan){0}),
                                      (TxSpan){0}),
                            ir_i32(c->arena, 16), (TxSpan){0});
    IrAxisOffset o = {"m", off};
    IrLayout *cmp = ly_compose(c, 3, 3, 3, true, ly_tile(c, shard, 2, NULL, 0, &o, 1));
    IrExpr *e = apply2(c, cmp, x, y, 8, 8), *vars[] = {x, y, h, l};
    assert_int_not_equal(e->kind, IR_E_LET);
    int64_t vals[4];
    for (int64_t hv = 0; hv < 3; hv++)
        for (int64_t lv = 0; lv < 20; lv += 3)
            for (int64_t xv = 0; xv < 8; xv++)
                for (int64_t yv = 0; yv < 8; yv++) {
                    vals[0] = xv, vals[1] = yv, vals[2] = hv, vals[3] = lv;
                    int64_t m = 64 * xv + yv + 64 * hv + lv % 8 + 16;
                    assert_int_equal(eval2(c, e, vars, vals, 4), ly_swizzle(cmp, m));
                }
}

static void test_w10_w11_units_and_base_chain(void **state)
{
    LyCtx *c = CTX;
    IrExpr *u = var(c, "u"), *x = var(c, "x"), *y = var(c, "y");
    IrLayout *w10 = spec(c, "Cmp(3,3,3;S[(1,8,8):(-1,64,1)] + 8)");
    IrExpr *idx[] = {u, x, y};
    LyAxisValue *out;
    int n;
    assert_true(ly_apply_expr(c, w10, idx, ints(c, (int64_t[]){1, 8, 8}, 3), 3, &out, &n));
    assert_string_equal(ly_expr_str(c, out[0].value), "x * 64 + (y ^ (x & 7) << 3) ^ 8");
    IrExpr *vars[] = {x, y};
    int64_t offsets[] = {0, 8, 16, 24, 512, 520, 528, 536};
    for (int k = 0; k < 8; k++) {
        char text[64];
        snprintf(text, sizeof text, "Cmp(3,3,3;S[(8,8):(64,1)] + %lld)", (long long)offsets[k]);
        IrLayout *l = spec(c, text);
        IrExpr *e = apply2(c, l, x, y, 8, 8);
        bool xor_low = offsets[k] % 64 != 0; /* base ^ 8 ... : the low part XORs in */
        assert_int_equal(e->kind == IR_E_CALL && e->u.call.op == IR_OP_BITWISE_XOR, xor_low);
        check_swizzled(c, l, e, vars, 2, 8, 8, 64, offsets[k]);
    }
}

static void test_w12_fallbacks(void **state)
{
    LyCtx *c = CTX;
    IrExpr *x = var(c, "x"), *y = var(c, "y"), *v = var(c, "value"), *vars[] = {x, y, v};
    const char *texts[] = {"Cmp(3,3,3;S[(8,8):(64,1)],inner=F)", "Cmp(3,3,3;S[(8,8):(-64,1)] + 448)",
                           "Cmp(3,3,3;S[(8,8):(64,1)] + 4)"};
    int64_t strides[] = {64, -64, 64}, extra[] = {0, 448, 4};
    for (int k = 0; k < 3; k++) {
        IrLayout *l = spec(c, texts[k]);
        IrExpr *e = apply2(c, l, x, y, 8, 8);
        assert_int_equal(e->kind, IR_E_LET);
        check_swizzled(c, l, e, vars, 2, 8, 8, strides[k], extra[k]);
    }
    /* an unbounded dynamic offset */
    IrIter shard[] = {{ir_i32(c->arena, 8), ir_i32(c->arena, 64), "m"},
                      {ir_i32(c->arena, 8), ir_i32(c->arena, 1), "m"}};
    IrAxisOffset o = {"m", v};
    IrLayout *l = ly_compose(c, 3, 3, 3, true, ly_tile(c, shard, 2, NULL, 0, &o, 1));
    IrExpr *e = apply2(c, l, x, y, 8, 8);
    assert_int_equal(e->kind, IR_E_LET);
    int64_t vals[3] = {0, 0, 0};
    for (int64_t val = 0; val < 100; val += 7)
        for (int64_t xv = 0; xv < 8; xv++)
            for (int64_t yv = 0; yv < 8; yv++) {
                vals[0] = xv, vals[1] = yv, vals[2] = val;
                assert_int_equal(eval2(c, e, vars, vals, 3), ly_swizzle(l, 64 * xv + yv + val));
            }
    /* a symbolic stride */
    IrIter sym[] = {{ir_i32(c->arena, 8), v, "m"}, {ir_i32(c->arena, 8), ir_i32(c->arena, 1), "m"}};
    l = ly_compose(c, 3, 3, 3, true, ly_tile(c, sym, 2, NULL, 0, NULL, 0));
    e = apply2(c, l, x, y, 8, 8);
    assert_int_equal(e->kind, IR_E_LET);
    vals[2] = 64;
    for (int64_t xv = 0; xv < 8; xv++) {
        vals[0] = xv, vals[1] = 5;
        assert_int_equal(eval2(c, e, vars, vals, 3), ly_swizzle(l, 64 * xv + 5));
    }
}

/* P16: a bare swizzle over a shape it cannot group by uses the full Let form. */
static void test_full_swizzle_let_form(void **state)
{
    LyCtx *c = CTX;
    IrLayout *l = spec(c, "Cmp(3,3,3;S[512])");
    IrExpr *x = var(c, "x"), *y = var(c, "y"), *vars[] = {x, y};
    IrExpr *e = apply2(c, l, x, y, 128, 32);
    assert_string_equal(ly_expr_str(c, e),
                        "T.Let(T.Let(((compose_q ^ (compose_q & 56) >> 3) << 3) + compose_m % 8, "
                        "where={compose_q: compose_m // 8}), where={compose_m: x * 32 + y})");
    check_swizzled(c, l, e, vars, 2, 128, 32, 32, 0);
    assert_true(symbolic_matches(c, l, (int64_t[]){128, 32}, 2, 5));
}

static void test_modes(void **state)
{
    LyCtx *c = CTX;
    assert_true(same(c, ly_swizzle_mode(c, 128, IR_FLOAT16), "Cmp(3,3,3;S[512])"));
    assert_true(same(c, ly_swizzle_mode(c, 64, IR_FLOAT16), "Cmp(3,2,3;S[256])"));
    assert_true(same(c, ly_swizzle_mode(c, 32, IR_FLOAT32), "Cmp(2,1,3;S[64])"));
    assert_true(same(c, ly_swizzle_mode(c, 0, IR_FLOAT16), "Cmp(3,0,3;S[64])"));
    IrDType fp8;
    assert_true(ir_dtype_parse("float8_e4m3fn", 13, &fp8));
    assert_true(same(c, ly_swizzle_mode(c, 128, fp8), "Cmp(4,3,3;S[1024])"));
    assert_null(ly_swizzle_mode(c, 48, IR_FLOAT16));
    assert_non_null(strstr(c->err, "no 48-byte swizzle mode for float16"));
    int bytes[] = {0, 32, 64, 128};
    for (int k = 0; k < 4; k++)
        assert_int_equal(ly_swizzle_bytes(ly_swizzle_mode(c, bytes[k], IR_BFLOAT16), IR_BFLOAT16),
                         bytes[k]);
    assert_int_equal(ly_swizzle_bytes(spec(c, "Cmp(3,3,3;S[512])"), IR_FLOAT32), -1);
    assert_int_equal(ly_swizzle_bytes(spec(c, "Cmp(3,3,3;S[512],inner=F)"), IR_FLOAT16), -1);
    assert_int_equal(ly_swizzle_bytes(spec(c, "S[512]"), IR_FLOAT16), 0);
    assert_int_equal(ly_swizzle_period(spec(c, "Cmp(3,3,3;S[512])")), 512);
}

static void test_t7_t10_mma_shared(void **state)
{
    LyCtx *c = CTX;
    IrLayout *t7 = ly_tile_by(c, spec(c, "Cmp(3,3,3;S[512])"), spec(c, "S[(8,4):(1,8)]"),
                              ints(c, (int64_t[]){8, 4}, 2), ints(c, (int64_t[]){8, 64}, 2), 2,
                              LY_TARGET_NONE);
    assert_true(same(c, t7, "Cmp(3,3,3;S[(64,4,64):(64,4096,1)])"));
    IrLayout *t8 = ly_tile_by(c, spec(c, "Cmp(3,2,3;S[256])"), spec(c, "S[(8,8):(1,8)]"),
                              ints(c, (int64_t[]){8, 8}, 2), ints(c, (int64_t[]){8, 32}, 2), 2,
                              LY_TARGET_NONE);
    assert_true(same(c, t8, "Cmp(3,2,3;S[(64,8,32):(32,2048,1)])"));
    int64_t s3[] = {3, 64, 256}, s2[] = {64, 256};
    assert_true(same(c, ly_mma_shared_layout(c, IR_FLOAT16, 128, s3, 3),
                     "Cmp(3,3,3;S[(3,64,4,64):(16384,64,4096,1)])"));
    assert_true(same(c, ly_mma_shared_layout(c, IR_FLOAT16, 64, s3, 3),
                     "Cmp(3,2,3;S[(3,64,8,32):(16384,32,2048,1)])"));
    assert_true(same(c, ly_mma_shared_layout(c, IR_FLOAT16, 128, s2, 2),
                     "Cmp(3,3,3;S[(64,4,64):(64,4096,1)])"));
    /* no swizzle: the packed 16-byte core matrices */
    IrLayout *none = ly_mma_shared_layout(c, IR_FLOAT16, 0, (int64_t[]){64, 32}, 2);
    assert_true(same(c, none, "S[(64,4,8):(8,512,1)]"));
    assert_true(same(c, ly_mma_shared_layout(c, IR_FLOAT16, 0, (int64_t[]){8, 12}, 2), "S[96:1]"));
    assert_null(ly_mma_shared_layout(c, IR_FLOAT16, 128, (int64_t[]){64, 100}, 2));
    assert_non_null(strstr(c->err, "tile_to"));
}

static void test_base_alignment(void **state)
{
    LyCtx *c = CTX;
    IrLayout *l = spec(c, "Cmp(3,3,3;S[(64,4,64):(64,4096,1)])");
    assert_null(ly_check_swizzle_base(c, l, IR_FLOAT16, ir_i32(c->arena, 512), 1024));
    assert_null(ly_check_swizzle_base(c, l, IR_FLOAT16, NULL, 1024));
    const char *m = ly_check_swizzle_base(c, l, IR_FLOAT16, ir_i32(c->arena, 256), 1024);
    assert_non_null(m);
    assert_non_null(strstr(m, "needs a base aligned to 1024 bytes"));
    assert_non_null(strstr(m, "element offset 256 is not a multiple of 512 elements"));
    m = ly_check_swizzle_base(c, l, IR_FLOAT16, ir_i32(c->arena, 0), 128);
    assert_non_null(m);
    assert_non_null(strstr(m, "only known to be 128-byte aligned"));
    IrExpr *stage = var(c, "stage");
    IrExpr *ok = ir_binary(c->arena, IR_E_MUL, stage, ir_i32(c->arena, 8192), (TxSpan){0});
    IrExpr *bad = ir_binary(c->arena, IR_E_MUL, stage, ir_i32(c->arena, 100), (TxSpan){0});
    assert_null(ly_check_swizzle_base(c, l, IR_FLOAT16, ok, 1024));
    assert_non_null(ly_check_swizzle_base(c, l, IR_FLOAT16, bad, 1024));
    /* 64B and 32B modes: 512 and 256 bytes; no swizzle: anything goes */
    assert_null(ly_check_swizzle_base(c, spec(c, "Cmp(3,2,3;S[256])"), IR_FLOAT16,
                                      ir_i32(c->arena, 256), 512));
    assert_non_null(ly_check_swizzle_base(c, spec(c, "Cmp(3,1,3;S[128])"), IR_FLOAT16,
                                          ir_i32(c->arena, 64), 1024));
    assert_null(ly_check_swizzle_base(c, spec(c, "S[512]"), IR_FLOAT16, ir_i32(c->arena, 3), 1));
    assert_null(ly_check_swizzle_base(c, spec(c, "Cmp(3,0,3;S[64])"), IR_FLOAT16,
                                      ir_i32(c->arena, 3), 2));
}

static void test_tile_must_be_memory(void **state)
{
    LyCtx *c = CTX;
    IrLayout *l = spec(c, "Cmp(3,3,3;S[(8,64):(1@laneid,1)])");
    LyCoords co;
    assert_false(ly_apply_at(c, l, (int64_t[]){8, 64}, (int64_t[]){0, 0}, 2, &co));
    assert_non_null(strstr(c->err, "must map onto the memory axis m only"));
    IrExpr *x = var(c, "x"), *y = var(c, "y"), *idx[] = {x, y};
    LyAxisValue *out;
    int n;
    assert_false(ly_apply_expr(c, l, idx, ints(c, (int64_t[]){8, 64}, 2), 2, &out, &n));
    assert_non_null(strstr(c->err, "must map onto the memory axis m only"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TEST(test_w1_w4_bare_swizzles), TEST(test_w5_case_study_and_banks),
        TEST(test_w6_w8_structured),    TEST(test_w9_dynamic_offsets),
        TEST(test_w10_w11_units_and_base_chain), TEST(test_w12_fallbacks),
        TEST(test_full_swizzle_let_form), TEST(test_modes),
        TEST(test_t7_t10_mma_shared),   TEST(test_base_alignment),
        TEST(test_tile_must_be_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
