/* Unit tests of layout apply: the vectors of reference/layout_passes.md §5.1
 * (A1-A14), §5.4 size/span (Z1-Z3), §5.6 TMEM datapaths (M1-M4, M6), the
 * documentation case studies, admitted shapes, and symbolic apply agreeing
 * with concrete apply. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "layout_spec.h"

/* A1: the (8,16) tensor-core tile of the documentation, with replica and offset. */
static void test_a1_tensor_core_tile(void **state)
{
    LyCtx *c = CTX;
    IrLayout *l = spec(c, "S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid");
    assert_non_null(l);
    int64_t shape[] = {8, 16};
    int64_t idx[][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {0, 8}, {7, 15}};
    int64_t lane[] = {0, 0, 1, 4, 0, 31}, warp[] = {5, 5, 5, 5, 6, 6}, m[] = {0, 1, 0, 0, 0, 1};
    for (int k = 0; k < 6; k++) {
        LyCoords co;
        assert_true(ly_apply_at(c, l, shape, idx[k], 2, &co));
        assert_int_equal(co.naxes, 3);
        assert_string_equal(co.axes[0], "m"); /* memory axes first, then thread axes */
        assert_string_equal(co.axes[1], "laneid");
        assert_string_equal(co.axes[2], "warpid");
        assert_int_equal(co.npoints, 2);
        for (int p = 0; p < 2; p++) {
            assert_int_equal(coord(&co, p, "laneid"), lane[k]);
            assert_int_equal(coord(&co, p, "m"), m[k]);
            assert_int_equal(coord(&co, p, "warpid"), warp[k] + 4 * p); /* {5, 9}, {6, 10} */
        }
    }
    assert_true(symbolic_matches(c, l, shape, 2, 1));
}

static void test_a2_a3_row_major(void **state)
{
    LyCtx *c = CTX;
    IrLayout *a2 = spec(c, "S[(8,8):(8,1)]"), *a3 = spec(c, "S[(8,8):(10,1)]");
    int64_t shape[] = {8, 8}, flat[] = {64};
    for (int64_t i = 0; i < 8; i++)
        for (int64_t j = 0; j < 8; j++) {
            int64_t idx[] = {i, j}, pos[] = {8 * i + j};
            assert_int_equal(at1(c, a2, shape, idx, 2, "m"), 8 * i + j);
            assert_int_equal(at1(c, a2, flat, pos, 1, "m"), 8 * i + j);
            assert_int_equal(at1(c, a3, shape, idx, 2, "m"), 10 * i + j);
            assert_int_equal(at1(c, a3, flat, pos, 1, "m"), 10 * i + j);
        }
    assert_true(symbolic_matches(c, a2, shape, 2, 1));
    assert_true(symbolic_matches(c, a3, flat, 1, 1));
}

static void test_a4_mixed_strides(void **state)
{
    LyCtx *c = CTX;
    IrLayout *l = spec(c, "S[(2,3,4,2,2):(1,2,12,6,48)]");
    int64_t shape[] = {6, 16};
    for (int64_t i0 = 0; i0 < 6; i0++)
        for (int64_t i1 = 0; i1 < 16; i1++) {
            int64_t idx[] = {i0, i1};
            int64_t want = i0 / 3 + 2 * (i0 % 3) + 12 * (i1 / 4) + 6 * ((i1 % 4) / 2) + 48 * (i1 % 2);
            assert_int_equal(at1(c, l, shape, idx, 2, "m"), want);
        }
    int64_t idx[] = {5, 13};
    assert_int_equal(at1(c, l, shape, idx, 2, "m"), 89);
    assert_true(symbolic_matches(c, l, shape, 2, 1));
}

static void test_a5_lane_layout(void **state)
{
    LyCtx *c = CTX;
    IrLayout *l = spec(c, "S[(8,1,4,2):(4@laneid,2,1@laneid,1)]");
    int64_t shape[] = {8, 8};
    for (int64_t i0 = 0; i0 < 8; i0++)
        for (int64_t i1 = 0; i1 < 8; i1++) {
            int64_t idx[] = {i0, i1};
            assert_int_equal(at1(c, l, shape, idx, 2, "m"), i1 % 2);
            assert_int_equal(at1(c, l, shape, idx, 2, "laneid"), 4 * i0 + i1 / 2);
        }
    int64_t idx[] = {3, 5};
    assert_int_equal(at1(c, l, shape, idx, 2, "laneid"), 14);
    assert_true(symbolic_matches(c, l, shape, 2, 1));
}

/* A6: a symbolic position through a contiguous layout is just the position. */
static void test_a6_symbolic_identity(void **state)
{
    LyCtx *c = CTX;
    IrLayout *l = spec(c, "S[(8,8):(8,1)]");
    IrExpr *v = ir_var(c->arena, "v", ir_prim_type(c->arena, IR_INT32), (TxSpan){0});
    IrExpr *shape = ir_i32(c->arena, 64);
    LyAxisValue *out;
    int n;
    assert_true(ly_apply_expr(c, l, &v, &shape, 1, &out, &n));
    assert_int_equal(n, 1);
    assert_string_equal(out[0].axis, "m");
    assert_ptr_equal(out[0].value, v);
}

static void test_a7_a8_trainium(void **state)
{
    LyCtx *c = CTX;
    IrLayout *a7 = spec(c, "S[(8,8):(8@F,1@P)]");
    int64_t s7[] = {8, 8}, i7[] = {3, 5};
    assert_int_equal(at1(c, a7, s7, i7, 2, "P"), 5);
    assert_int_equal(at1(c, a7, s7, i7, 2, "F"), 24);
    IrLayout *a8 = spec(c, "S[(2,6,4,2,2):(1@F,1@P,12@F,6@P,48@F)]");
    int64_t s8[] = {12, 16};
    for (int64_t i0 = 0; i0 < 12; i0++)
        for (int64_t i1 = 0; i1 < 16; i1++) {
            int64_t idx[] = {i0, i1};
            assert_int_equal(at1(c, a8, s8, idx, 2, "P"), i0 % 6 + 6 * ((i1 % 4) / 2));
            assert_int_equal(at1(c, a8, s8, idx, 2, "F"), i0 / 6 + 12 * (i1 / 4) + 48 * (i1 % 2));
        }
    int64_t i8[] = {7, 13};
    assert_int_equal(at1(c, a8, s8, i8, 2, "F"), 85);
    assert_true(symbolic_matches(c, a8, s8, 2, 1));
    IrLayout *a9 = spec(c, "S[(2,512,8):(1@Bank,1@F,1@P)]"); /* to_psum of S[(1024,8):(1@F,1@P)] */
    int64_t s9[] = {1024, 8}, i9[] = {700, 3};
    assert_int_equal(at1(c, a9, s9, i9, 2, "Bank"), 1);
    assert_int_equal(at1(c, a9, s9, i9, 2, "P"), 3);
    assert_int_equal(at1(c, a9, s9, i9, 2, "F"), 188);
}

/* A10: the (2,128,112) TMEM tile of the documentation. */
static void test_a10_tmem_tile(void **state)
{
    LyCtx *c = CTX;
    IrLayout *l = spec(c, "S[(2,128,112):(112@TCol,1@TLane,1@TCol)]");
    int64_t shape[] = {2, 128, 112};
    int64_t idx[][3] = {{0, 5, 3}, {1, 0, 0}, {1, 127, 111}};
    int64_t lane[] = {5, 0, 127}, col[] = {3, 112, 223};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(at1(c, l, shape, idx[k], 3, "TLane"), lane[k]);
        assert_int_equal(at1(c, l, shape, idx[k], 3, "TCol"), col[k]);
    }
    assert_true(symbolic_matches(c, l, shape, 3, 7));
}

/* A11-A13: grouping by the shape gives each dim its own iters. */
static void test_a11_a13_grouped_digits(void **state)
{
    LyCtx *c = CTX;
    int64_t shape[] = {16, 16};
    int seps[3];
    IrLayout *g = ly_group(c, spec(c, "S[(16,4,4):(16,4,1)]"), ints(c, shape, 2), 2, seps);
    assert_non_null(g);
    assert_int_equal(seps[1], 1);
    assert_int_equal(seps[2], 3);
    int64_t i12[] = {5, 7}, i13[] = {13, 9};
    assert_int_equal(at1(c, g, shape, i12, 2, "m"), 5 * 16 + 1 * 4 + 3);
    IrLayout *l13 = spec(c, "S[(4,4,4,4):(64,16,4,1)]");
    g = ly_group(c, l13, ints(c, shape, 2), 2, seps);
    assert_int_equal(seps[1], 2); /* digits [3,1] and [2,1] */
    assert_int_equal(at1(c, l13, shape, i13, 2, "m"), 3 * 64 + 1 * 16 + 2 * 4 + 1);
    assert_int_equal(at1(c, spec(c, "S[(16,16)]"), shape, i12, 2, "m"), 5 * 16 + 7);
}

/* A14: a layout that cannot be grouped by the shape falls back to flatten-and-split. */
static void test_a14_ungroupable(void **state)
{
    LyCtx *c = CTX;
    IrLayout *l = spec(c, "S[(6,5):(1,6)]");
    int64_t shape[] = {5, 6}, idx[] = {3, 4};
    int seps[3];
    assert_null(ly_group(c, l, ints(c, shape, 2), 2, seps));
    assert_non_null(strstr(c->err, "cannot be grouped by shape (5, 6)"));
    assert_int_equal(at1(c, l, shape, idx, 2, "m"), 16);
    assert_true(symbolic_matches(c, l, shape, 2, 1));
}

static void test_z_size_span(void **state)
{
    LyCtx *c = CTX;
    int64_t v;
    assert_true(const_of(ly_span(c, spec(c, "S[(8,6):(8,1)]"), NULL), &v) && v == 62);
    IrLayout *l = spec(c, "S[(8,8):(8,1)]");
    assert_true(const_of(ly_span(c, l, NULL), &v) && v == 64);
    assert_true(const_of(ly_size(c, l, NULL), &v) && v == 64);
    IrLayout *z2 = spec(c, "S[(8,8,8):(64@F,1@P,1@F)]");
    assert_true(const_of(ly_size(c, z2, "P"), &v) && v == 8);
    assert_true(const_of(ly_size(c, z2, "F"), &v) && v == 64);
    assert_true(const_of(ly_span(c, z2, "F"), &v) && v == 456);
    IrLayout *z3 = spec(c, "S[(32,4,128,512):(512@F,16384@F,1@P,1@F)]"); /* trainium("FPF",...) */
    assert_true(const_of(ly_size(c, z3, "P"), &v) && v == 128);
    assert_true(const_of(ly_span(c, z3, "F"), &v) && v == 65536);
    /* the span counts replica and offsets: local() of V4 has 6 registers */
    IrLayout *v4 = spec(c, "S[(32,2):(1@laneid,2)] + 3");
    assert_true(const_of(ly_span(c, v4, NULL), &v) && v == 6);
    assert_true(const_of(ly_span(c, spec(c, "S[(8,1,4,2):(4@laneid,2,1@laneid,1)]"),
                                           NULL), &v) && v == 2);
}

static void tmem_expect(LyCtx *c, const IrLayout *l, int64_t rows, int64_t cols,
                        const int64_t (*rc)[2], const int64_t (*lc)[2], int n)
{
    int64_t shape[] = {rows, cols};
    for (int k = 0; k < n; k++) {
        assert_int_equal(at1(c, l, shape, rc[k], 2, "TLane"), lc[k][0]);
        assert_int_equal(at1(c, l, shape, rc[k], 2, "TCol"), lc[k][1]);
    }
}

static void test_m_tmem_datapaths(void **state)
{
    LyCtx *c = CTX;
    IrLayout *f0 = ly_tmem_datapath_layout(c, 'F', 64, 64, 0);
    const int64_t m1[][2] = {{0, 0}, {15, 3}, {16, 0}, {37, 5}, {63, 63}};
    const int64_t m1w[][2] = {{0, 0}, {15, 3}, {32, 0}, {69, 5}, {111, 63}};
    tmem_expect(c, f0, 64, 64, m1, m1w, 5);
    IrLayout *f1 = ly_tmem_datapath_layout(c, 'F', 64, 64, 1);
    const int64_t m2[][2] = {{0, 0}, {37, 5}, {63, 63}}, m2w[][2] = {{16, 0}, {85, 5}, {127, 63}};
    tmem_expect(c, f1, 64, 64, m2, m2w, 3);
    /* F is canonical-stable and keeps its +16 lane offset (the PTX row=16 half) */
    assert_string_equal(canon_str(c, f1, LY_TARGET_CUDA),
                        "T.TileLayout(T.S[(4, 16, 64):(32 @ Axis.TLane, 1 @ Axis.TLane, "
                        "1 @ Axis.TCol)] + 16 @ Axis.TLane)");
    IrLayout *b = ly_tmem_datapath_layout(c, 'B', 64, 256, 0);
    const int64_t m3[][2] = {{10, 127}, {10, 128}, {10, 200}, {63, 255}};
    const int64_t m3w[][2] = {{10, 127}, {74, 0}, {74, 72}, {127, 127}};
    tmem_expect(c, b, 64, 256, m3, m3w, 4);
    int64_t v;
    assert_true(const_of(ly_span(c, b, "TLane"), &v) && v == 128);
    assert_true(const_of(ly_span(c, b, "TCol"), &v) && v == 128);
    IrLayout *g = ly_tmem_datapath_layout(c, 'G', 32, 64, 0);
    const int64_t m4[][2] = {{5, 17}, {31, 63}}, m4w[][2] = {{37, 1}, {127, 15}};
    tmem_expect(c, g, 32, 64, m4, m4w, 2);
    IrLayout *d = ly_tmem_datapath_layout(c, 'D', 128, 512, 0);
    const int64_t md[][2] = {{100, 300}}, mdw[][2] = {{100, 300}};
    tmem_expect(c, d, 128, 512, md, mdw, 1);
    assert_true(same(c, ly_tmem_datapath_layout(c, 'E', 64, 8, 0), "S[(64,2,4):(1@TLane,64@TLane,1@TCol)]"));
    /* M5: the grouped D accumulator (m, s, 2, n) is canonical as written */
    IrLayout *m5 = spec(c, "S[(64,2,2,128):(1@TLane,128@TCol,64@TLane,1@TCol)]");
    assert_string_equal(canon_str(c, m5, LY_TARGET_CUDA), ly_str(c, m5));
    assert_true(same(c, ly_tmem_datapath_layout(c, 'C', 64, 8, 0), "S[(4,16,8):(32@TLane,1@TLane,1@TCol)]"));
    assert_true(same(c, ly_tmem_datapath_layout(c, 'A', 128, 8, 0), "S[(128,8):(1@TLane,1@TCol)]"));
}

static void test_m6_tmem_errors(void **state)
{
    LyCtx *c = CTX;
    assert_null(ly_tmem_datapath_layout(c, 'D', 128, 256, 1));
    assert_non_null(strstr(c->err, "sub_slab must be 0"));
    assert_null(ly_tmem_datapath_layout(c, 'F', 64, 64, 2));
    assert_non_null(strstr(c->err, "sub_slab must be 0 or 1"));
    assert_null(ly_tmem_datapath_layout(c, 'F', 128, 64, 0));
    assert_non_null(strstr(c->err, "expects rows=64, got 128"));
    assert_null(ly_tmem_datapath_layout(c, 'B', 64, 63, 0));
    assert_non_null(strstr(c->err, "even cols"));
    assert_null(ly_tmem_datapath_layout(c, 'G', 32, 66, 0));
    assert_non_null(strstr(c->err, "cols % 4 == 0"));
    assert_null(ly_tmem_datapath_layout(c, 'Q', 64, 64, 0));
    assert_non_null(strstr(c->err, "unknown datapath 'Q'"));
}

static void test_admitted_shapes(void **state)
{
    LyCtx *c = CTX;
    IrLayout *l = spec(c, "S[(8,16):(16,1)]");
    int64_t ok[] = {4, 32}, bad[] = {8, 15}, idx[] = {0, 0};
    assert_true(ly_admits(c, l, ints(c, ok, 2), 2)); /* any shape with 128 elements */
    LyCoords co;
    assert_false(ly_apply_at(c, l, bad, idx, 2, &co));
    assert_string_equal(c->err, "shape (8, 15) is not admitted by layout "
                                "T.TileLayout(T.S[(8, 16):(16, 1)]): it has 120 elements, the "
                                "layout has 128");
    IrLayout *swz = spec(c, "Cmp(3,3,3;S[512])");
    int64_t twice[] = {16, 64}, half[] = {8, 32}, rank1[] = {4096};
    assert_true(ly_admits(c, swz, ints(c, twice, 2), 2)); /* a whole multiple of the period */
    assert_true(ly_admits(c, swz, ints(c, rank1, 1), 1));
    assert_false(ly_admits(c, swz, ints(c, half, 2), 2));
    assert_non_null(strstr(c->err, "whole multiple of its period 512"));
    /* a swizzle over a non-trivial tile is not bare: it admits its own size only */
    assert_false(ly_admits(c, spec(c, "Cmp(3,3,3;S[(8,64):(64,1)])"), ints(c, twice, 2), 2));
    int64_t out[] = {8, 16};
    assert_false(ly_apply_at(c, l, out, (int64_t[]){8, 0}, 2, &co));
    assert_non_null(strstr(c->err, "index (8, 0) is outside shape (8, 16)"));
    /* symbolic shapes are admitted when the element counts are provably equal */
    IrExpr *n = ir_var(c->arena, "n", ir_prim_type(c->arena, IR_INT32), (TxSpan){0});
    IrExpr *sym[] = {n, ir_i32(c->arena, 64)};
    assert_true(ly_admits(c, ly_row_major(c, sym, 2), sym, 2));
    IrExpr *other[] = {ir_i32(c->arena, 64), n};
    assert_true(ly_admits(c, ly_row_major(c, sym, 2), other, 2));
    IrExpr *wrong[] = {n, ir_i32(c->arena, 32)};
    assert_false(ly_admits(c, ly_row_major(c, sym, 2), wrong, 2));
    assert_non_null(strstr(c->err, "cannot prove"));
}

static void test_symbolic_offsets_and_axes(void **state)
{
    LyCtx *c = CTX;
    /* symbolic offsets survive apply; replica-only axes have no representative value */
    IrExpr *w = ir_var(c->arena, "w", ir_prim_type(c->arena, IR_INT32), (TxSpan){0});
    IrIter shard[] = {{ir_i32(c->arena, 4), ir_i32(c->arena, 64), "m"},
                      {ir_i32(c->arena, 64), ir_i32(c->arena, 1), "m"}};
    IrIter rep[] = {{ir_i32(c->arena, 2), ir_i32(c->arena, 1), "warpid"}};
    IrAxisOffset off[] = {{"m", ir_binary(c->arena, IR_E_MUL, w, ir_i32(c->arena, 64), (TxSpan){0})}};
    IrLayout *l = ly_tile(c, shard, 2, rep, 1, off, 1);
    IrExpr *i = ir_var(c->arena, "i", ir_prim_type(c->arena, IR_INT32), (TxSpan){0});
    IrExpr *j = ir_var(c->arena, "j", ir_prim_type(c->arena, IR_INT32), (TxSpan){0});
    IrExpr *idx[] = {i, j}, *shape[] = {ir_i32(c->arena, 4), ir_i32(c->arena, 64)};
    LyAxisValue *out;
    int n;
    assert_true(ly_apply_expr(c, l, idx, shape, 2, &out, &n));
    assert_int_equal(n, 1);
    assert_string_equal(ly_expr_str(c, out[0].value), "i * 64 + j + w * 64");
}

/* Every operator node has operands of its own dtype. */
static bool dtypes_agree(const IrExpr *e)
{
    if (IR_E_IS_BINARY(e->kind))
        return ir_dtype_eq(e->u.op.a->dtype, e->u.op.b->dtype) &&
               (e->kind >= IR_E_EQ || ir_dtype_eq(e->dtype, e->u.op.a->dtype)) &&
               dtypes_agree(e->u.op.a) && dtypes_agree(e->u.op.b);
    if (e->kind == IR_E_CALL) {
        for (int i = 0; i < e->u.call.nargs; i++)
            if (!ir_dtype_eq(e->u.call.args[i]->dtype, e->dtype) || !dtypes_agree(e->u.call.args[i]))
                return false;
        return true;
    }
    if (e->kind == IR_E_LET)
        return dtypes_agree(e->u.op.a) && dtypes_agree(e->u.op.b);
    if (e->kind == IR_E_CAST)
        return dtypes_agree(e->u.op.a);
    return true;
}

/* int64 indices give int64 expressions; int32 strides, symbolic or not, are widened. */
static void test_index_dtypes(void **state)
{
    LyCtx *c = CTX;
    IrType *i64 = ir_prim_type(c->arena, IR_INT64);
    IrExpr *x = ir_var(c->arena, "x", i64, (TxSpan){0}), *y = ir_var(c->arena, "y", i64, (TxSpan){0});
    IrExpr *n = ir_var(c->arena, "n", ir_prim_type(c->arena, IR_INT32), (TxSpan){0});
    IrExpr *idx[] = {x, y}, *shape[] = {ir_int(c->arena, IR_INT64, 8, (TxSpan){0}),
                                        ir_int(c->arena, IR_INT64, 64, (TxSpan){0})};
    IrIter sym[] = {{ir_i32(c->arena, 8), n, "m"}, {ir_i32(c->arena, 64), ir_i32(c->arena, 1), "m"}};
    IrAxisOffset off = {"m", n};
    const IrLayout *layouts[] = {spec(c, "S[(8,64):(64,1)] + 5"), spec(c, "Cmp(3,3,3;S[(8,64):(64,1)])"),
                                 spec(c, "Cmp(3,3,3;S[(8,64):(64,1)] + 9)"),
                                 ly_tile(c, sym, 2, NULL, 0, &off, 1),
                                 ly_compose(c, 3, 3, 3, true, ly_tile(c, sym, 2, NULL, 0, NULL, 0))};
    for (size_t k = 0; k < TX_ARRAY_LEN(layouts); k++) {
        LyAxisValue *out;
        int nout;
        assert_true(ly_apply_expr(c, layouts[k], idx, shape, 2, &out, &nout));
        assert_true(ir_dtype_eq(out[0].value->dtype, IR_INT64));
        assert_true(dtypes_agree(out[0].value));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TEST(test_a1_tensor_core_tile),
        TEST(test_a2_a3_row_major),
        TEST(test_a4_mixed_strides),
        TEST(test_a5_lane_layout),
        TEST(test_a6_symbolic_identity),
        TEST(test_a7_a8_trainium),
        TEST(test_a10_tmem_tile),
        TEST(test_a11_a13_grouped_digits),
        TEST(test_a14_ungroupable),
        TEST(test_z_size_span),
        TEST(test_m_tmem_datapaths),
        TEST(test_m6_tmem_errors),
        TEST(test_admitted_shapes),
        TEST(test_symbolic_offsets_and_axes),
        TEST(test_index_dtypes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
