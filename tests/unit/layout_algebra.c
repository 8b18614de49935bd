/* Unit tests of the layout algebra: tile, group, group_many, direct sum and
 * slice (reference/layout_passes.md §5.3, T1-T6 and T11-T21), storage and
 * pack/unpack (§5.4, Z4-Z6), and group permutation (the layouts of §5.7 V1, V3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "layout_spec.h"

static IrLayout *tile_by(LyCtx *c, const char *inner, const char *outer, const int64_t *oshape,
                         const int64_t *ishape, int nd)
{
    return ly_tile_by(c, spec(c, inner), spec(c, outer), ints(c, oshape, nd), ints(c, ishape, nd),
                      nd, LY_TARGET_NONE);
}

static void is(LyCtx *c, const IrLayout *got, const char *want)
{
    assert_non_null(got);
    IrLayout *w = spec(c, want);
    assert_non_null(w);
    assert_string_equal(ly_str(c, got), ly_str(c, w));
}

static void test_t1_t6_tile(void **state)
{
    LyCtx *c = CTX;
    is(c, tile_by(c, "S[8:1]", "S[8:1]", (int64_t[]){8}, (int64_t[]){8}, 1), "S[64:1]");
    is(c, tile_by(c, "S[(8,8):(8,1)]", "S[(8,8):(8,1)]", (int64_t[]){8, 8}, (int64_t[]){8, 8}, 2),
       "S[(8,8,8,8):(512,8,64,1)]");
    is(c, tile_by(c, "S[(2,4):(1,2)]", "S[(8,8):(8,1)]", (int64_t[]){8, 8}, (int64_t[]){2, 4}, 2),
       "S[(8,2,32):(64,1,2)]");
    is(c, tile_by(c, "S[(8,1,4,2):(4@laneid,2,1@laneid,1)]", "S[(8,8):(8,1)]", (int64_t[]){8, 8},
                  (int64_t[]){8, 8}, 2),
       "S[(8,8,8,4,2):(16,4@laneid,2,1@laneid,1)]");
    is(c, tile_by(c, "S[(1,2):(2,1)]", "S[(8,4):(4@laneid,1@laneid)]", (int64_t[]){8, 4},
                  (int64_t[]){1, 2}, 2),
       "S[(32,2):(1@laneid,1)]");
    is(c, tile_by(c, "S[(64,128):(128,1)]", "S[2:2@warpid] + R[2:1@warpid]", (int64_t[]){2, 1},
                  (int64_t[]){64, 128}, 2),
       "S[(2,8192):(2@warpid,1)] + R[2:1@warpid]");
    /* the tiled layout maps (o, i) to outer(o) * inner span + inner(i) */
    IrLayout *t = tile_by(c, "S[(2,4):(1,2)]", "S[(8,8):(8,1)]", (int64_t[]){8, 8},
                          (int64_t[]){2, 4}, 2);
    int64_t shape[] = {16, 32};
    for (int64_t r = 0; r < 16; r++)
        for (int64_t q = 0; q < 32; q++) {
            int64_t idx[] = {r, q};
            int64_t outer = 8 * (r / 2) + q / 4, inner = (r % 2) + 2 * (q % 4);
            assert_int_equal(at1(c, t, shape, idx, 2, "m"), outer * 8 + inner);
        }
    assert_null(ly_tile_by(c, spec(c, "S[8:1]"), spec(c, "Cmp(3,3,3;S[512])"), ints(c, (int64_t[]){8}, 1),
                           ints(c, (int64_t[]){8}, 1), 1, LY_TARGET_NONE));
    assert_non_null(strstr(c->err, "must be a TileLayout"));
    assert_null(tile_by(c, "S[8:1]", "S[8:1]", (int64_t[]){4}, (int64_t[]){8}, 1));
    assert_non_null(strstr(c->err, "cannot be grouped by shape (4,)"));
}

static void test_t11_group(void **state)
{
    LyCtx *c = CTX;
    int seps[3];
    IrLayout *l = spec(c, "S[(8,8,8,8):(512,8,64,1)]");
    IrLayout *g = ly_group(c, l, ints(c, (int64_t[]){64, 64}, 2), 2, seps);
    is(c, g, "S[(8,8,8,8):(512,8,64,1)]");
    assert_int_equal(seps[0], 0);
    assert_int_equal(seps[1], 2);
    assert_int_equal(seps[2], 4);
    /* splitting an iter across dims, and unit dims */
    int seps4[4];
    g = ly_group(c, spec(c, "S[64:1]"), ints(c, (int64_t[]){4, 1, 16}, 3), 3, seps4);
    is(c, g, "S[(4,1,16):(16,16,1)]");
    g = ly_group(c, spec(c, "S[(6,4):(4,1)]"), ints(c, (int64_t[]){2, 3, 4}, 3), 3, seps4);
    is(c, g, "S[(2,3,4):(12,4,1)]");
    assert_null(ly_group(c, spec(c, "S[(6,4):(4,1)]"), ints(c, (int64_t[]){4, 6}, 2), 2, seps));
}

static void test_t12_t14_group_many(void **state)
{
    LyCtx *c = CTX;
    int s0[3], s1[3];
    int *seps[] = {s0, s1};
    const int64_t a[] = {6, 5}, b[] = {2, 15};
    const int64_t *shapes[] = {a, b};
    IrLayout *g = ly_group_many(c, spec(c, "S[30:1]"), shapes, (int[]){2, 2}, 2, seps);
    is(c, g, "S[(2,3,5):(15,5,1)]");
    assert_memory_equal(s0, ((int[]){0, 2, 3}), sizeof s0);
    assert_memory_equal(s1, ((int[]){0, 1, 3}), sizeof s1);
    int r0[6], r1[5];
    int *rseps[] = {r0, r1};
    const int64_t c0[] = {1, 6, 1, 5, 1}, c1[] = {2, 1, 3, 5};
    const int64_t *rshapes[] = {c0, c1};
    g = ly_group_many(c, spec(c, "S[30:1]"), rshapes, (int[]){5, 4}, 2, rseps);
    is(c, g, "S[(1,2,1,3,1,5,1):(30,15,15,5,5,1,1)]");
    assert_memory_equal(r0, ((int[]){0, 1, 4, 5, 6, 7}), sizeof r0);
    assert_memory_equal(r1, ((int[]){0, 2, 3, 4, 7}), sizeof r1);
    const int64_t d0[] = {3, 4}, d1[] = {2, 6};
    const int64_t *bad[] = {d0, d1};
    assert_null(ly_group_many(c, spec(c, "S[12:1]"), bad, (int[]){2, 2}, 2, seps));
    assert_non_null(strstr(c->err, "incompatible cumulative boundaries"));
    const int64_t e0[] = {3, 5};
    const int64_t *mismatch[] = {e0};
    assert_null(ly_group_many(c, spec(c, "S[12:1]"), mismatch, (int[]){2}, 1, seps));
    assert_non_null(strstr(c->err, "has 15 elements"));
}

static void test_t15_direct_sum(void **state)
{
    LyCtx *c = CTX;
    IrLayout *b = spec(c, "S[(2,2):(4,1)]"), *a = spec(c, "S[(2,2):(8,2)]");
    IrExpr **two = ints(c, (int64_t[]){2, 2}, 2);
    IrLayout *sum = ly_direct_sum(c, b, a, two, two, 2, LY_TARGET_NONE);
    is(c, sum, "S[16:1]");
    int64_t shape[] = {2, 2, 2, 2};
    for (int64_t p = 0; p < 16; p++) { /* over (A0, B0, A1, B1): A(a0, a1) + B(b0, b1) */
        int64_t idx[] = {p >> 3 & 1, p >> 2 & 1, p >> 1 & 1, p & 1};
        int64_t want = (8 * idx[0] + 2 * idx[2]) + (4 * idx[1] + idx[3]);
        assert_int_equal(at1(c, sum, shape, idx, 4, "m"), want);
    }
}

static IrLayout *slice(LyCtx *c, const char *l, const int64_t *shape, const int64_t *begin,
                       const int64_t *extent, int nd)
{
    return ly_slice(c, spec(c, l), ints(c, shape, nd), ints(c, begin, nd), ints(c, extent, nd), nd,
                    LY_TARGET_NONE);
}

static void test_t16_t19_slice(void **state)
{
    LyCtx *c = CTX;
    is(c, slice(c, "S[(8,8):(8,1)]", (int64_t[]){64}, (int64_t[]){5}, (int64_t[]){3}, 1),
       "S[3:1] + 5");
    is(c, slice(c, "S[(4,4,4,4):(64,4,16,1)]", (int64_t[]){16, 16}, (int64_t[]){2, 6},
                (int64_t[]){1, 4}, 2),
       "S[(1,2,2):(4,14,1)] + 26");
    is(c, slice(c, "S[(2,8,3,8):(192,8,64,1)]", (int64_t[]){16, 24}, (int64_t[]){2, 4},
                (int64_t[]){4, 8}, 2),
       "S[(4,2,4):(8,60,1)] + 20");
    is(c, slice(c, "S[(128,2,64):(64,8192,1)]", (int64_t[]){128, 128}, (int64_t[]){0, 32},
                (int64_t[]){128, 64}, 2),
       "S[(128,2,32):(64,8160,1)] + 32");
    /* a region that is not one layout, and one outside the shape */
    assert_null(slice(c, "S[(4,4):(1,4)]", (int64_t[]){16}, (int64_t[]){3}, (int64_t[]){6}, 1));
    assert_non_null(strstr(c->err, "is not a layout of"));
    assert_null(slice(c, "S[(8,8):(8,1)]", (int64_t[]){8, 8}, (int64_t[]){6, 0},
                      (int64_t[]){4, 8}, 2));
    assert_non_null(strstr(c->err, "region at 6 of extent 4 is outside dim 0 of shape (8, 8)"));
    /* a swizzle slices its tile and keeps the swizzle */
    IrLayout *s = slice(c, "Cmp(3,3,3;S[(8,64):(64,1)])", (int64_t[]){8, 64}, (int64_t[]){0, 8},
                        (int64_t[]){8, 8}, 2);
    is(c, s, "Cmp(3,3,3;S[(8,8):(64,1)] + 8)");
}

static IrExpr *var(LyCtx *c, const char *name)
{
    return ir_var(c->arena, name, ir_prim_type(c->arena, IR_INT32), (TxSpan){0});
}

static void test_t20_t21_symbolic_slice(void **state)
{
    LyCtx *c = CTX;
    IrExpr *w = var(c, "w"), *stage = var(c, "stage");
    IrIter shard[] = {{ir_i32(c->arena, 4), ir_i32(c->arena, 64), "m"},
                      {ir_i32(c->arena, 64), ir_i32(c->arena, 1), "m"}};
    IrAxisOffset off = {"m", ir_binary(c->arena, IR_E_MUL, ir_i32(c->arena, 64), w, (TxSpan){0})};
    IrLayout *l = ly_tile(c, shard, 2, NULL, 0, &off, 1);
    IrLayout *s = ly_slice(c, l, ints(c, (int64_t[]){4, 64}, 2), ints(c, (int64_t[]){2, 0}, 2),
                           ints(c, (int64_t[]){2, 64}, 2), 2, LY_TARGET_NONE);
    assert_non_null(s);
    assert_int_equal(s->noffset, 1);
    assert_string_equal(ly_expr_str(c, s->offset[0].value), "64 * w + 128"); /* base kept */
    IrLayout *big = spec(c, "S[(3,128,128):(16384,128,1)]");
    IrExpr *begin[] = {stage, ir_i32(c->arena, 0), ir_i32(c->arena, 0)};
    s = ly_slice(c, big, ints(c, (int64_t[]){3, 128, 128}, 3), begin,
                 ints(c, (int64_t[]){1, 128, 128}, 3), 3, LY_TARGET_NONE);
    assert_non_null(s);
    assert_string_equal(ly_expr_str(c, s->offset[0].value), "stage * 16384"); /* no % 3 */
    /* a run-time start over whole 64-element slabs: the slab digit is the
     * offset, the region two slabs (one past the last would leave the shape,
     * the caller's contract); a start that may fall inside a slab is refused */
    IrLayout *slabs = spec(c, "Cmp(3,3,3;S[(64,4,64):(64,4096,1)])");
    IrExpr *k = var(c, "k");
    IrExpr *cols[] = {ir_i32(c->arena, 0), ir_binary(c->arena, IR_E_MUL, k, ir_i32(c->arena, 128),
                                                     (TxSpan){0})};
    s = ly_slice(c, slabs, ints(c, (int64_t[]){64, 256}, 2), cols,
                 ints(c, (int64_t[]){64, 128}, 2), 2, LY_TARGET_NONE);
    assert_non_null(s);
    assert_string_equal(ly_str(c, s), "T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 2, 64):(64, 4096, 1)] + k * 8192))");
    cols[1] = ir_binary(c->arena, IR_E_MUL, k, ir_i32(c->arena, 32), (TxSpan){0});
    assert_null(ly_slice(c, slabs, ints(c, (int64_t[]){64, 256}, 2), cols,
                         ints(c, (int64_t[]){64, 128}, 2), 2, LY_TARGET_NONE));
    /* 8 elements (a 16-byte unit) at a run-time multiple of 16 in a row:
     * the start and the slab's 64 are multiples of 8, so the chunk never
     * straddles a slab; 8 at k * 16 + 4 may */
    IrExpr *row[] = {ir_i32(c->arena, 3), ir_binary(c->arena, IR_E_MUL, k, ir_i32(c->arena, 16),
                                                    (TxSpan){0})};
    s = ly_slice(c, slabs, ints(c, (int64_t[]){64, 256}, 2), row, ints(c, (int64_t[]){1, 8}, 2), 2,
                 LY_TARGET_NONE);
    assert_non_null(s);
    assert_string_equal(ly_str(c, s), "T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(1, 8):(64, 1)] + "
                                      "(k * 16 % 64 + 192 + k * 16 // 64 * 4096)))");
    row[1] = ir_binary(c->arena, IR_E_ADD, row[1], ir_i32(c->arena, 4), (TxSpan){0});
    assert_null(ly_slice(c, slabs, ints(c, (int64_t[]){64, 256}, 2), row,
                         ints(c, (int64_t[]){1, 8}, 2), 2, LY_TARGET_NONE));
}

static void test_z4_z6_storage_pack(void **state)
{
    LyCtx *c = CTX;
    is(c, ly_storage(c, spec(c, "S[(8,4,2):(4@laneid,1@laneid,1)]")), "S[2:1]");
    is(c, ly_storage(c, spec(c, "S[(32,2):(1@laneid,2)] + R[2:1@warpid] + R[2:8] + 3 + 1@warpid")),
       "S[2:2] + R[2:8] + 3");
    assert_true(same(c, ly_unpack(c, spec(c, "S[(8,8):(8,1)]"), 2, NULL), "S[(8,16):(16,1)]"));
    assert_true(same(c, ly_unpack(c, spec(c, "S[(8,8):(8,1)]"), 2, NULL), "S[128:1]"));
    assert_true(same(c, ly_unpack(c, spec(c, "Cmp(3,3,3;S[512])"), 2, NULL), "Cmp(4,3,3;S[1024])"));
    assert_true(same(c, ly_pack(c, spec(c, "Cmp(4,3,3;S[(8,128):(128,1)])"), 2, NULL),
                     "Cmp(3,3,3;S[(8,64):(64,1)])"));
    is(c, ly_pack(c, spec(c, "S[(8,8):(8,1)]"), 2, NULL), "S[(8,4):(4,1)]");
    /* [QUIRK] the reference scales thread strides too and leaves offsets; tirx scales only
     * the storage axis, offsets included, so every element keeps its owner */
    is(c, ly_unpack(c, spec(c, "S[(32,2):(1@laneid,1)] + 3"), 2, NULL),
       "S[(32,2,2):(1@laneid,2,1)] + 6");
    is(c, ly_pack(c, spec(c, "S[(128,64):(1@TLane,1@TCol)]"), 2, "TCol"),
       "S[(128,32):(1@TLane,1@TCol)]");
    /* [QUIRK] the reference floors strides that the factor does not divide (its
     * S[(2,4):(3,1)].pack(2) is S[(2,2):(1,1)], which aliases elements); tirx rejects */
    assert_null(ly_pack(c, spec(c, "S[(2,4):(3,1)]"), 2, NULL));
    assert_non_null(strstr(c->err, "stride 3 is not divisible"));
    is(c, ly_pack(c, spec(c, "S[(1,2):(7,1)]"), 2, NULL), "S[(1,1):(3,1)]"); /* unit: any stride */
    assert_null(ly_pack(c, spec(c, "S[(8,3):(3,1)]"), 2, NULL));
    assert_non_null(strstr(c->err, "cannot be packed by 2"));
    assert_null(ly_pack(c, spec(c, "S[(8,4):(6,1)] + 1"), 2, NULL));
    assert_non_null(strstr(c->err, "offset 1 is not divisible"));
    assert_null(ly_pack(c, spec(c, "Cmp(0,3,3;S[64])"), 2, NULL));
    assert_null(ly_unpack(c, spec(c, "Cmp(3,3,3;S[512])"), 3, NULL));
    assert_non_null(strstr(c->err, "power of two"));
}

static void test_permute_by_groups(void **state)
{
    LyCtx *c = CTX;
    int seps[5];
    IrLayout *g = ly_group(c, spec(c, "S[(8,4):(4,1)]"), ints(c, (int64_t[]){8, 4}, 2), 2, seps);
    is(c, ly_permute_by_groups(c, g, seps, 2, (int[]){1, 0}), "S[(4,8):(1,4)]");
    IrLayout *cmp = spec(c, "Cmp(3,3,3;S[(4,4,4,64):(1024,256,64,1)])");
    g = ly_group(c, cmp, ints(c, (int64_t[]){4, 4, 4, 64}, 4), 4, seps);
    is(c, ly_permute_by_groups(c, g, seps, 4, (int[]){1, 0, 2, 3}),
       "Cmp(3,3,3;S[(4,4,4,64):(256,1024,64,1)])");
    assert_null(ly_permute_by_groups(c, g, seps, 4, (int[]){1, 1, 2, 3}));
    assert_non_null(strstr(c->err, "not a permutation"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TEST(test_t1_t6_tile),         TEST(test_t11_group),
        TEST(test_t12_t14_group_many), TEST(test_t15_direct_sum),
        TEST(test_t16_t19_slice),      TEST(test_t20_t21_symbolic_slice),
        TEST(test_z4_z6_storage_pack), TEST(test_permute_by_groups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
