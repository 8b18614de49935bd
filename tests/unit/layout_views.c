/* Buffer views (src/layout/view.c): the vectors of reference/layout_passes.md
 * §5.7 and the reference corpus's views, TMEM column routing, the errors
 * (out of range, misaligned, ungroupable), the [QUIRK] decisions where tirx
 * differs from the reference, and the property that matters: over random
 * small buffers (layouts with thread axes, replicas, offsets, swizzles, TMEM
 * columns), every index of every view maps to the same physical coordinates
 * as the parent index it stands for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "layout/view.h"
#include "layout_spec.h"

/* ---------------------------------------------------------------- helpers */
static LyViewCtx vctx(LyCtx *c)
{
    LyViewCtx v = {c, NULL, NULL};
    return v;
}

static IrType *buffer(LyCtx *c, IrDType dt, const char *scope, const int64_t *shape, int nd,
                      const char *layout, int64_t elem_offset, int64_t addr)
{
    IrBufferType *b = TX_NEW(c->arena, IrBufferType);
    b->ndim = nd;
    b->shape = ints(c, shape, nd);
    b->elem_offset = ir_i32(c->arena, elem_offset);
    b->align = 64, b->offset_factor = 1;
    b->layout = layout ? spec(c, layout) : NULL;
    if (addr >= 0) {
        b->naddr = 1;
        b->allocated_addr = ints(c, &addr, 1);
    }
    return ir_buffer_type(c->arena, dt, scope, b);
}

static IrType *shared(LyCtx *c, const int64_t *shape, int nd, const char *layout)
{
    return buffer(c, IR_FLOAT16, "shared", shape, nd, layout, 0, -1);
}

/* "(8, 16) T.TileLayout(...) eo=8" and " addr=4" for a TMEM view. */
static const char *geometry(LyCtx *c, const IrType *t)
{
    if (!t)
        return tx_arena_printf(c->arena, "error: %s", c->err ? c->err : "?");
    const IrBufferType *b = t->buf;
    char *s = tx_arena_strdup(c->arena, "(");
    for (int d = 0; d < b->ndim; d++)
        s = tx_arena_printf(c->arena, "%s%s%s", s, d ? ", " : "", ly_expr_str(c, b->shape[d]));
    s = tx_arena_printf(c->arena, "%s%s) %s eo=%s", s, b->ndim == 1 ? "," : "",
                        b->layout ? ly_str(c, b->layout) : "None", ly_expr_str(c, b->elem_offset));
    if (b->naddr)
        s = tx_arena_printf(c->arena, "%s addr=%s", s, ly_expr_str(c, b->allocated_addr[0]));
    return s;
}

#define GEOM_IS(c, t, want) assert_string_equal(geometry(c, t), want)

static const IrType *last(const LyViewChain *ch, bool ok)
{
    return ok && ch->n ? ch->steps[ch->n - 1] : NULL;
}

static LyPick idx(LyCtx *c, int64_t i)
{
    return (LyPick){LY_PICK_INDEX, ir_i32(c->arena, i), NULL, 0};
}
static LyPick range(LyCtx *c, int64_t a, int64_t b)
{
    return (LyPick){LY_PICK_RANGE, ir_i32(c->arena, a), ir_i32(c->arena, b), 0};
}
static LyPick stepped(LyCtx *c, int64_t a, int64_t s)
{
    return (LyPick){LY_PICK_STEP, ir_i32(c->arena, a), NULL, s};
}
static const LyPick ALL = {LY_PICK_ALL, NULL, NULL, 0};

static const IrType *sub(LyCtx *c, const IrType *t, const LyPick *p, int n)
{
    LyViewCtx v = vctx(c);
    LyViewChain ch = {0};
    return last(&ch, ly_view_sub(&v, t, p, n, &ch));
}

/* ---------------------------------------------------------------- §5.7 */
static void test_v1_v3_permute(void **state)
{
    LyCtx *c = CTX;
    LyViewCtx v = vctx(c);
    int64_t s84[] = {8, 4}, p10[] = {1, 0}, s4[] = {4, 4, 4, 64}, p1023[] = {1, 0, 2, 3};
    GEOM_IS(c, ly_view_permute(&v, shared(c, s84, 2, "S[(8,4):(4,1)]"), p10, 2),
            "(4, 8) T.TileLayout(T.S[(4, 8):(1, 4)]) eo=0");
    GEOM_IS(c, ly_view_permute(&v, shared(c, s4, 4, "Cmp(3,3,3;S[(4,4,4,64):(1024,256,64,1)])"),
                               p1023, 4),
            "(4, 4, 4, 64) T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(4, 4, 4, 64):(256, 1024, "
            "64, 1)])) eo=0");
    int64_t neg[] = {-1, 0};
    GEOM_IS(c, ly_view_permute(&v, shared(c, s84, 2, "S[(8,4):(4,1)]"), neg, 2),
            "(4, 8) T.TileLayout(T.S[(4, 8):(1, 4)]) eo=0");
    int64_t dup[] = {0, 0};
    assert_null(ly_view_permute(&v, shared(c, s84, 2, "S[(8,4):(4,1)]"), dup, 2));
    assert_non_null(strstr(c->err, "not a permutation"));
}

static void test_v2_rearrange(void **state)
{
    LyCtx *c = CTX;
    LyViewCtx v = vctx(c);
    int64_t s84[] = {8, 4};
    const char *names[] = {"outer"};
    int64_t sizes[] = {2};
    LyViewChain ch = {0};
    const IrType *a = shared(c, s84, 2, "S[(8,4):(4,1)]");
    bool ok = ly_view_rearrange(&v, a, "(outer inner) tail -> outer tail inner", names, sizes, 1,
                                &ch);
    assert_int_equal(ch.n, 3); /* view, permute, view: three declarations, as the reference */
    GEOM_IS(c, ch.steps[0], "(2, 4, 4) T.TileLayout(T.S[(8, 4):(4, 1)]) eo=0");
    GEOM_IS(c, last(&ch, ok), "(2, 4, 4) T.TileLayout(T.S[(2, 4, 4):(16, 1, 4)]) eo=0");
    /* arbitrary axis names, even those of the reference's own parameters */
    const char *self[] = {"self"};
    ch.n = 0;
    ok = ly_view_rearrange(&v, a, "(self buf) pattern -> self pattern buf", self, sizes, 1, &ch);
    GEOM_IS(c, last(&ch, ok), "(2, 4, 4) T.TileLayout(T.S[(2, 4, 4):(16, 1, 4)]) eo=0");
    ch.n = 0;
    assert_false(ly_view_rearrange(&v, a, "(a b) c -> a c", NULL, NULL, 0, &ch));
    assert_false(ly_view_rearrange(&v, a, "(a b) c -> a b c", NULL, NULL, 0, &ch));
    assert_non_null(strstr(c->err, "more than one axis of unknown size"));
    const char *three[] = {"a"};
    int64_t bad[] = {3};
    assert_false(ly_view_rearrange(&v, a, "(a b) c -> a b c", three, bad, 1, &ch));
    assert_non_null(strstr(c->err, "not divisible by 3"));
    assert_false(ly_view_rearrange(&v, a, "(a b) c", three, sizes, 1, &ch));
    const char *stray[] = {"z"};
    assert_false(ly_view_rearrange(&v, a, "a c -> c a", stray, sizes, 1, &ch));
    assert_non_null(strstr(c->err, "'z'"));
}

static void test_v4_local(void **state)
{
    LyCtx *c = CTX;
    LyViewCtx v = vctx(c);
    int64_t s[] = {32, 2};
    const IrType *b = buffer(c, IR_FLOAT32, "local", s, 2, "S[(32,2):(1@laneid,2)] + 3", 0, -1);
    GEOM_IS(c, ly_view_local(&v, b, NULL, 0, NULL), "(6,) T.TileLayout(T.S[6:1]) eo=0");
    int64_t s23[] = {2, 3}, s2[] = {2};
    GEOM_IS(c, ly_view_local(&v, b, ints(c, s23, 2), 2, NULL),
            "(2, 3) T.TileLayout(T.S[(2, 3):(3, 1)]) eo=0");
    GEOM_IS(c, ly_view_local(&v, b, ints(c, s2, 1), 1, spec(c, "S[2:2] + 3")),
            "(2,) T.TileLayout(T.S[2:2] + 3) eo=0");
    GEOM_IS(c, ly_view_local(&v, b, NULL, 0, spec(c, "S[2:2] + 3")),
            "(2,) T.TileLayout(T.S[2:2] + 3) eo=0");
    assert_null(ly_view_local(&v, b, ints(c, s2, 1), 1, NULL));
    assert_non_null(strstr(c->err, "span of 6"));
    const IrType *none = buffer(c, IR_FLOAT32, "local", s, 2, NULL, 0, -1);
    assert_null(ly_view_local(&v, none, NULL, 0, NULL));
    assert_non_null(strstr(c->err, "layout=None"));
}

static void test_v5_v7_sub(void **state)
{
    LyCtx *c = CTX;
    int64_t s[] = {8, 64};
    const IrType *a = shared(c, s, 2, "S[(8,64):(64,1)]");
    LyPick p1[] = {idx(c, 2)};
    GEOM_IS(c, sub(c, a, p1, 1), "(64,) T.TileLayout(T.S[64:1]) eo=128");
    LyPick p2[] = {ALL, range(c, 8, 24)};
    GEOM_IS(c, sub(c, a, p2, 2), "(8, 16) T.TileLayout(T.S[(8, 16):(64, 1)]) eo=8");
    LyPick p3[] = {range(c, 1, 3)};
    GEOM_IS(c, sub(c, a, p3, 1), "(2, 64) T.TileLayout(T.S[(2, 64):(64, 1)]) eo=64");
    LyPick p4[] = {idx(c, 3), range(c, 16, 48)};
    GEOM_IS(c, sub(c, a, p4, 2), "(32,) T.TileLayout(T.S[32:1]) eo=208");
    LyPick p5[] = {ALL, stepped(c, 1, 4)};
    GEOM_IS(c, sub(c, a, p5, 2), "(8, 16) T.TileLayout(T.S[(8, 16):(64, 4)]) eo=1");
    /* the chain: a stepped slice is a reshape then a select */
    LyViewCtx v = vctx(c);
    LyViewChain ch = {0};
    assert_true(ly_view_sub(&v, a, p5, 2, &ch));
    assert_int_equal(ch.n, 2);
    GEOM_IS(c, ch.steps[0], "(8, 16, 4) T.TileLayout(T.S[(8, 64):(64, 1)]) eo=0");
}

static void test_v8_v9_sub_swizzle(void **state)
{
    LyCtx *c = CTX;
    int64_t s[] = {8, 64}, s3[] = {3, 64, 64};
    const IrType *a = shared(c, s, 2, "Cmp(3,3,3;S[(8,64):(64,1)])");
    LyPick p1[] = {idx(c, 2)};
    /* 128 is not a multiple of the 512-element period: the offset stays inside */
    GEOM_IS(c, sub(c, a, p1, 1),
            "(64,) T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[64:1] + 128)) eo=0");
    LyPick p2[] = {ALL, range(c, 8, 16)};
    GEOM_IS(c, sub(c, a, p2, 2),
            "(8, 8) T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(8, 8):(64, 1)] + 8)) eo=0");
    const IrType *b = shared(c, s3, 3, "Cmp(3,3,3;S[(3,64,64):(4096,64,1)])");
    GEOM_IS(c, sub(c, b, p1, 1),
            "(64, 64) T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64):(64, 1)])) eo=8192");
    /* a symbolic stage: stage * 4096 is a whole number of periods */
    IrExpr *stage = ir_var(c->arena, "stage", ir_prim_type(c->arena, IR_INT32), (TxSpan){0});
    LyPick p3[] = {{LY_PICK_INDEX, stage, NULL, 0}};
    GEOM_IS(c, sub(c, b, p3, 1),
            "(64, 64) T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64):(64, 1)])) "
            "eo=stage * 4096");
}

static void test_v10_tile(void **state)
{
    LyCtx *c = CTX;
    LyViewCtx v = vctx(c);
    int64_t s[] = {64, 32};
    const IrType *t = shared(c, s, 2, "S[(64,32):(32,1)]");
    int64_t f1[] = {4, -1}, f2[] = {-1, 4};
    LyTileSpec sp1 = {0, ints(c, f1, 2), 2}, sp2 = {0, ints(c, f2, 2), 2};
    LyPick p1[] = {idx(c, 3), ALL}, p2[] = {ALL, idx(c, 3)};
    LyViewChain ch = {0};
    GEOM_IS(c, last(&ch, ly_view_tile(&v, t, &sp1, 1, p1, 2, &ch)),
            "(16, 32) T.TileLayout(T.S[(16, 32):(32, 1)]) eo=1536");
    ch.n = 0;
    GEOM_IS(c, last(&ch, ly_view_tile(&v, t, &sp2, 1, p2, 2, &ch)),
            "(16, 32) T.TileLayout(T.S[(16, 32):(128, 1)]) eo=96");
    /* two kept factors merge back (rank preserved) */
    int64_t f3[] = {2, 4, -1};
    LyTileSpec sp3 = {0, ints(c, f3, 3), 3};
    LyPick p3[] = {ALL, idx(c, 1), ALL};
    ch.n = 0;
    GEOM_IS(c, last(&ch, ly_view_tile(&v, t, &sp3, 1, p3, 3, &ch)),
            "(16, 32) T.TileLayout(T.S[(2, 8, 32):(1024, 32, 1)]) eo=256");
    ch.n = 0;
    LyPick keep[] = {ALL, ALL};
    assert_false(ly_view_tile(&v, t, &sp1, 1, keep, 2, &ch));
    assert_non_null(strstr(c->err, "picks no factor"));
    assert_false(ly_view_tile(&v, t, &sp1, 1, keep, 1, &ch));
    assert_non_null(strstr(c->err, "2 factors but 1 picks"));
    /* the reference corpus: S.tile((0, (2, 4, -1)))[a, b, :] on (128, 16) */
    int64_t s2[] = {128, 16}, f4[] = {2, 4, -1};
    const IrType *big = shared(c, s2, 2, "S[(128,16):(16,1)]");
    LyTileSpec sp4 = {0, ints(c, f4, 3), 3};
    LyPick p4[] = {idx(c, 1), idx(c, 2), ALL};
    ch.n = 0;
    assert_true(ly_view_tile(&v, big, &sp4, 1, p4, 3, &ch));
    assert_int_equal(ch.n, 3);
    GEOM_IS(c, ch.steps[1], "(2, 16, 16) T.TileLayout(T.S[(2, 16, 16):(1024, 16, 1)]) eo=512");
    GEOM_IS(c, ch.steps[2], "(16, 16) T.TileLayout(T.S[(16, 16):(16, 1)]) eo=1536");
}

static void test_v11_narrow_multi_iter(void **state)
{
    LyCtx *c = CTX;
    LyViewCtx v = vctx(c);
    int64_t s[] = {16, 16};
    const IrType *m = shared(c, s, 2, "S[(4,4,4,4):(64,4,16,1)]");
    GEOM_IS(c, ly_view_narrow(&v, m, 1, ir_i32(c->arena, 4), ir_i32(c->arena, 8)),
            "(16, 8) T.TileLayout(T.S[(4, 4, 2, 4):(64, 4, 16, 1)]) eo=16");
    LyPick p[] = {idx(c, 6)};
    GEOM_IS(c, sub(c, m, p, 1), "(16,) T.TileLayout(T.S[(4, 4):(16, 1)]) eo=72");
    assert_null(ly_view_narrow(&v, m, 1, ir_i32(c->arena, 2), ir_i32(c->arena, 8)));
    assert_non_null(strstr(c->err, "multiples of 4"));
}

static void test_v12_dtype(void **state)
{
    LyCtx *c = CTX;
    LyViewCtx v = vctx(c);
    int64_t s[] = {8, 8};
    const IrType *a = buffer(c, IR_FLOAT32, "local", s, 2, "S[(8,8):(8,1)]", 8, -1);
    const IrType *h = ly_view_dtype(&v, a, IR_FLOAT16);
    GEOM_IS(c, h, "(8, 16) T.TileLayout(T.S[(8, 8, 2):(16, 2, 1)]) eo=16");
    assert_true(same(c, h->buf->layout, "S[128:1]"));
    GEOM_IS(c, ly_view_dtype(&v, a, IR_FLOAT64), "(8, 4) T.TileLayout(T.S[(8, 4):(4, 1)]) eo=4");
    int64_t s3[] = {8, 3};
    assert_null(ly_view_dtype(&v, buffer(c, IR_FLOAT32, "local", s3, 2, "S[(8,3):(3,1)]", 0, -1),
                              IR_FLOAT64));
    assert_non_null(strstr(c->err, "not a multiple of 2"));
}

/* ---------------------------------------------------------------- reshapes */
static void test_reshape(void **state)
{
    LyCtx *c = CTX;
    LyViewCtx v = vctx(c);
    int64_t s[] = {64}, s88[] = {8, 8}, sm[] = {-1, 16}, bad[] = {4, 4}, two[] = {-1, -1};
    const IrType *a = buffer(c, IR_FLOAT32, "shared", s, 1, "S[64:1]", 0, -1);
    GEOM_IS(c, ly_view_reshape(&v, a, ints(c, s88, 2), 2, NULL),
            "(8, 8) T.TileLayout(T.S[64:1]) eo=0"); /* the layout object is kept */
    GEOM_IS(c, ly_view_reshape(&v, a, ints(c, sm, 2), 2, NULL),
            "(4, 16) T.TileLayout(T.S[64:1]) eo=0");
    assert_null(ly_view_reshape(&v, a, ints(c, bad, 2), 2, NULL));
    assert_non_null(strstr(c->err, "16 elements over a buffer of 64"));
    assert_null(ly_view_reshape(&v, a, ints(c, two, 2), 2, NULL));
    /* with a layout the sizes are not compared (the front end warns when the
     * layout does not admit the shape, as the reference prints such views) */
    assert_non_null(ly_view_reshape(&v, a, ints(c, bad, 2), 2, spec(c, "S[(8,4):(4,1)]")));
    /* torch's unflatten / flatten */
    int64_t s3[] = {4, 6, 8}, u[] = {2, -1};
    const IrType *b = shared(c, s3, 3, "S[(4,6,8):(48,8,1)]");
    GEOM_IS(c, ly_view_unflatten(&v, b, 1, ints(c, u, 2), 2),
            "(4, 2, 3, 8) T.TileLayout(T.S[(4, 6, 8):(48, 8, 1)]) eo=0");
    GEOM_IS(c, ly_view_flatten(&v, b, 1, -1), "(4, 48) T.TileLayout(T.S[(4, 6, 8):(48, 8, 1)]) eo=0");
    GEOM_IS(c, ly_view_flatten(&v, b, 0, -1), "(192,) T.TileLayout(T.S[(4, 6, 8):(48, 8, 1)]) eo=0");
    assert_null(ly_view_flatten(&v, b, 2, 1));
    assert_null(ly_view_unflatten(&v, b, 3, ints(c, u, 2), 2));
    assert_non_null(strstr(c->err, "out of range"));
}

/* A symbolic size: views sized and offset by runtime scalars. */
static void test_runtime_scalars(void **state)
{
    LyCtx *c = CTX;
    LyViewCtx v = vctx(c);
    IrExpr *n = ir_var(c->arena, "n", ir_prim_type(c->arena, IR_INT32), (TxSpan){0});
    IrExpr *i = ir_var(c->arena, "i", ir_prim_type(c->arena, IR_INT32), (TxSpan){0});
    IrBufferType *b = TX_NEW(c->arena, IrBufferType);
    b->ndim = 2;
    b->shape = TX_NEW_ARRAY(c->arena, IrExpr *, 2);
    b->shape[0] = n, b->shape[1] = ir_i32(c->arena, 64);
    b->elem_offset = ir_i32(c->arena, 0);
    b->align = 64, b->offset_factor = 1;
    b->layout = ir_default_layout(c->arena, b->shape, 2);
    const IrType *a = ir_buffer_type(c->arena, IR_FLOAT16, "global", b);
    GEOM_IS(c, ly_view_select(&v, a, 0, i), "(64,) T.TileLayout(T.S[64:1]) eo=i * 64");
    GEOM_IS(c, ly_view_narrow(&v, a, 0, i, ir_i32(c->arena, 2)),
            "(2, 64) T.TileLayout(T.S[(2, 64):(64, 1)]) eo=i * 64");
    int64_t flat[] = {-1};
    GEOM_IS(c, ly_view_reshape(&v, a, ints(c, flat, 1), 1, NULL),
            "(n * 64,) T.TileLayout(T.S[(n, 64):(64, 1)]) eo=0");
    /* a select past a static extent is an error, a runtime one is not checked */
    assert_null(ly_view_select(&v, a, 1, ir_i32(c->arena, 64)));
    assert_non_null(strstr(c->err, "index 64 is out of range for dimension 1 of extent 64"));
}

/* ---------------------------------------------------------------- TMEM */
static void test_tmem_columns(void **state)
{
    LyCtx *c = CTX;
    LyViewCtx v = vctx(c);
    int64_t s[] = {128, 64}, f[] = {2, -1};
    const IrType *acc = buffer(c, IR_FLOAT32, "tmem", s, 2, "S[(128,64):(1@TLane,1@TCol)]", 0, 32);
    LyPick p[] = {ALL, range(c, 16, 48)};
    GEOM_IS(c, sub(c, acc, p, 2),
            "(128, 32) T.TileLayout(T.S[(128, 32):(1 @ Axis.TLane, 1 @ Axis.TCol)]) eo=0 addr=48");
    LyTileSpec sp = {1, ints(c, f, 2), 2};
    LyPick t[] = {idx(c, 1), ALL};
    LyViewChain ch = {0};
    GEOM_IS(c, last(&ch, ly_view_tile(&v, acc, &sp, 1, t, 2, &ch)),
            "(128, 32) T.TileLayout(T.S[(128, 32):(1 @ Axis.TLane, 1 @ Axis.TCol)]) eo=0 addr=64");
    /* 16-bit elements: two per 32-bit column; an odd element offset is misaligned */
    const IrType *h = buffer(c, IR_FLOAT16, "tmem", s, 2, "S[(128,64):(1@TLane,1@TCol)]", 0, 0);
    LyPick even[] = {ALL, range(c, 8, 16)}, odd[] = {ALL, range(c, 3, 16)};
    GEOM_IS(c, sub(c, h, even, 2),
            "(128, 8) T.TileLayout(T.S[(128, 8):(1 @ Axis.TLane, 1 @ Axis.TCol)]) eo=0 addr=4");
    assert_null(sub(c, h, odd, 2));
    assert_non_null(strstr(c->err, "32-bit column"));
    /* a view of a TMEM buffer keeps its address and drops elem_offset */
    int64_t flat[] = {128, 2, 32};
    GEOM_IS(c, ly_view_reshape(&v, acc, ints(c, flat, 3), 3, NULL),
            "(128, 2, 32) T.TileLayout(T.S[(128, 64):(1 @ Axis.TLane, 1 @ Axis.TCol)]) eo=0 "
            "addr=32");
    /* the (2, 128, 112) documentation tile: select the second half */
    int64_t s3[] = {2, 128, 112};
    const IrType *d = buffer(c, IR_FLOAT32, "tmem", s3, 3,
                             "S[(2,128,112):(112@TCol,1@TLane,1@TCol)]", 0, 0);
    LyPick one[] = {idx(c, 1)};
    GEOM_IS(c, sub(c, d, one, 1),
            "(128, 112) T.TileLayout(T.S[(128, 112):(1 @ Axis.TLane, 1 @ Axis.TCol)]) eo=0 "
            "addr=112");
}

/* [QUIRK] the reference rejects a lane offset of a TMEM view ("a lane-axis
 * offset cannot fold into the column allocated_addr"); tirx keeps it on TLane
 * in the layout (as datapath F with sub_slab=1 does). */
static void test_quirk_tmem_lane_offset(void **state)
{
    LyCtx *c = CTX;
    int64_t s[] = {128, 64};
    const IrType *acc = buffer(c, IR_FLOAT32, "tmem", s, 2, "S[(128,64):(1@TLane,1@TCol)]", 0, 0);
    LyPick p[] = {range(c, 16, 32)};
    GEOM_IS(c, sub(c, acc, p, 1),
            "(16, 64) T.TileLayout(T.S[(16, 64):(1 @ Axis.TLane, 1 @ Axis.TCol)] + 16 @ "
            "Axis.TLane) eo=0 addr=0");
}

/* [QUIRK] the reference adds the offset of a select on a thread-axis
 * dimension to elem_offset (a wrong address); tirx keeps it on its axis. */
static void test_quirk_thread_axis_select(void **state)
{
    LyCtx *c = CTX;
    int64_t s[] = {4, 32, 2};
    const IrType *r = buffer(c, IR_FLOAT32, "local", s, 3, "S[(4,32,2):(1@warpid,1@laneid,1)]", 0,
                             -1);
    LyPick p[] = {idx(c, 2)};
    GEOM_IS(c, sub(c, r, p, 1),
            "(32, 2) T.TileLayout(T.S[(32, 2):(1 @ Axis.laneid, 1)] + 2 @ Axis.warpid) eo=0");
}

/* [QUIRK] the reference cannot group a bare swizzle by a shape larger than
 * its period (its tile is one period long); tirx views the tile as the
 * identity over the whole buffer, which is the same layout. */
static void test_quirk_bare_swizzle_views(void **state)
{
    LyCtx *c = CTX;
    int64_t s[] = {128, 32};
    const IrType *a = shared(c, s, 2, "Cmp(3,3,3;S[512])");
    LyPick p[] = {idx(c, 16)};
    GEOM_IS(c, sub(c, a, p, 1), "(32,) T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[32:1])) eo=512");
    LyPick q[] = {idx(c, 1)};
    GEOM_IS(c, sub(c, a, q, 1),
            "(32,) T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[32:1] + 32)) eo=0");
}

/* [QUIRK] the reference floors a misaligned element offset of a wider dtype
 * view; tirx rejects it. */
static void test_quirk_dtype_misaligned(void **state)
{
    LyCtx *c = CTX;
    LyViewCtx v = vctx(c);
    int64_t s[] = {8, 8};
    const IrType *a = buffer(c, IR_FLOAT16, "shared", s, 2, "S[(8,8):(8,1)]", 3, -1);
    assert_null(ly_view_dtype(&v, a, IR_FLOAT32));
    assert_non_null(strstr(c->err, "element offset 3 is not a multiple of 2"));
}

/* [QUIRK] the reference copies explicit strides into views of another rank;
 * tirx rejects views of strided buffers. */
static void test_quirk_strided(void **state)
{
    LyCtx *c = CTX;
    LyViewCtx v = vctx(c);
    int64_t s[] = {8, 8}, st[] = {16, 1};
    IrType *a = shared(c, s, 2, "S[(8,8):(8,1)]");
    a->buf->nstrides = 2, a->buf->strides = ints(c, st, 2);
    assert_null(ly_view_select(&v, a, 0, ir_i32(c->arena, 1)));
    assert_non_null(strstr(c->err, "explicit strides"));
}

static void test_errors(void **state)
{
    LyCtx *c = CTX;
    LyViewCtx v = vctx(c);
    int64_t s[] = {8, 64};
    const IrType *a = shared(c, s, 2, "S[(8,64):(64,1)]");
    LyPick oob[] = {idx(c, 8)}, far[] = {ALL, range(c, 60, 70)}, neg[] = {range(c, -1, 2)};
    assert_null(sub(c, a, oob, 1));
    assert_string_equal(c->err, "index 8 is out of range for dimension 0 of extent 8");
    assert_null(sub(c, a, far, 2));
    assert_string_equal(c->err, "the range [60, 70) is out of range for dimension 1 of extent 64");
    assert_null(sub(c, a, neg, 1));
    LyPick st[] = {ALL, stepped(c, 5, 4)}, bad[] = {ALL, stepped(c, 0, 5)};
    assert_null(sub(c, a, st, 2));
    assert_non_null(strstr(c->err, "[0, 4)"));
    assert_null(sub(c, a, bad, 2));
    LyPick many[] = {ALL, ALL, ALL};
    assert_null(sub(c, a, many, 3));
    /* a layout that the shape cannot group */
    int64_t s56[] = {5, 6};
    assert_null(ly_view_select(&v, shared(c, s56, 2, "S[(6,5):(1,6)]"), 0, ir_i32(c->arena, 1)));
    assert_non_null(strstr(c->err, "cannot be grouped"));
    IrExpr *b, *e;
    assert_true(ly_view_chunk(&v, a, 1, 4, ir_i32(c->arena, 2), &b, &e));
    assert_string_equal(ly_expr_str(c, b), "32");
    assert_string_equal(ly_expr_str(c, e), "16");
    assert_false(ly_view_chunk(&v, a, 1, 3, ir_i32(c->arena, 0), &b, &e));
    assert_false(ly_view_chunk(&v, a, 1, 4, ir_i32(c->arena, 4), &b, &e));
}

/* ---------------------------------------------------------------- properties */
typedef struct Rng {
    uint64_t s;
} Rng;

static int rnd(Rng *r, int n)
{
    r->s ^= r->s << 13, r->s ^= r->s >> 7, r->s ^= r->s << 17;
    return (int)(r->s % (uint64_t)n);
}

enum { MAXD = 6 };

/* A random buffer: rank 1-3, each dim made of 1-2 iters on random axes with
 * random strides; sometimes a replica, offsets, a swizzle; TMEM columns. */
typedef struct Case {
    IrType *t;
    int64_t shape[MAXD];
    int nd;
} Case;

static const int64_t EXTENTS[] = {1, 2, 3, 4, 6, 8};

static Case random_case(LyCtx *c, Rng *r)
{
    Case k = {0};
    int kind = rnd(r, 4); /* 0 memory, 1 threads, 2 swizzle, 3 tmem */
    const char *mem[] = {"m"}, *thr[] = {"m", "m", "laneid", "warpid"}, *tm[] = {"TLane", "TCol"};
    const char *const *axes = kind == 1 ? thr : kind == 3 ? tm : mem;
    int naxes = kind == 1 ? 4 : kind == 3 ? 2 : 1;
    k.nd = 1 + rnd(r, 3);
    IrIter shard[2 * MAXD];
    int ns = 0;
    for (int d = 0; d < k.nd; d++) {
        k.shape[d] = EXTENTS[rnd(r, 6)];
        int64_t e = k.shape[d];
        int64_t a = (e % 2 == 0 && rnd(r, 2)) ? 2 : 1; /* split into (e/a, a) */
        for (int j = 0; j < (a > 1 ? 2 : 1); j++) {
            int64_t ext = a > 1 ? (j ? a : e / a) : e;
            int64_t stride = rnd(r, 3) ? 1 + rnd(r, 16) : (int64_t)rnd(r, 3);
            shard[ns++] = (IrIter){ir_i32(c->arena, ext), ir_i32(c->arena, stride),
                                   axes[rnd(r, naxes)]};
        }
    }
    IrIter rep = {ir_i32(c->arena, 2), ir_i32(c->arena, 1 + rnd(r, 5)), axes[rnd(r, naxes)]};
    IrAxisOffset off = {axes[rnd(r, naxes)], ir_i32(c->arena, rnd(r, 7))};
    bool extras = kind != 2 && rnd(r, 2);
    IrLayout *l = ly_tile(c, shard, ns, &rep, extras && rnd(r, 2), &off, extras);
    if (kind == 2)
        l = ly_compose(c, rnd(r, 2), 1 + rnd(r, 2), 2, true, l);
    bool tmem = kind == 3;
    IrDType dt = rnd(r, 2) ? IR_FLOAT32 : IR_FLOAT16;
    int64_t eo = tmem ? 0 : rnd(r, 3) * 8;
    IrBufferType *b = TX_NEW(c->arena, IrBufferType);
    b->ndim = k.nd;
    b->shape = ints(c, k.shape, k.nd);
    b->elem_offset = ir_i32(c->arena, eo);
    b->align = 64, b->offset_factor = 1;
    b->layout = l;
    if (tmem) {
        int64_t addr = 32 * rnd(r, 4);
        b->naddr = 1, b->allocated_addr = ints(c, &addr, 1);
    }
    k.t = ir_buffer_type(c->arena, dt, tmem ? "tmem" : "local", b);
    return k;
}

/* The physical coordinates of an element, as text: the set of points, each
 * "axis=v" for its non-zero coordinates; m in bits (elem_offset included,
 * plus `extra_bits`), TCol of a TMEM buffer in bits (allocated_addr
 * included). */
static const char *physical(LyCtx *c, const IrType *t, const int64_t *index, int64_t extra_bits)
{
    const IrBufferType *b = t->buf;
    int64_t shape[MAXD + 2], eo = 0, addr = 0;
    for (int d = 0; d < b->ndim; d++)
        if (!const_of(b->shape[d], &shape[d]))
            return "<symbolic shape>";
    const_of(b->elem_offset, &eo);
    if (b->naddr)
        const_of(b->allocated_addr[0], &addr);
    LyCoords co;
    if (!ly_apply_at(c, b->layout, shape, index, b->ndim, &co))
        return tx_arena_printf(c->arena, "<%s>", c->err);
    int64_t bits = t->dtype.bits;
    const char **pts = TX_NEW_ARRAY(c->arena, const char *, co.npoints + 1);
    for (int p = 0; p < co.npoints; p++) {
        /* the storage coordinate (m, or TCol of TMEM) counts even when the
         * layout does not name it: elem_offset / allocated_addr place it */
        const char *storage = b->naddr ? "TCol" : "m";
        int64_t base = b->naddr ? addr * 32 : eo * bits, at = 0;
        char *s = "";
        for (int k = 0; k < co.naxes; k++) {
            int64_t x = co.vals[p * co.naxes + k];
            if (!strcmp(co.axes[k], storage))
                at = x;
            else if (x)
                s = tx_arena_printf(c->arena, "%s%s=%lld,", s, co.axes[k], (long long)x);
        }
        pts[p] = tx_arena_printf(c->arena, "%s%s=%lld", s, storage,
                                 (long long)(at * bits + base + extra_bits));
    }
    for (int i = 1; i < co.npoints; i++) /* insertion sort: a set */
        for (int j = i; j > 0 && strcmp(pts[j - 1], pts[j]) > 0; j--) {
            const char *x = pts[j];
            pts[j] = pts[j - 1], pts[j - 1] = x;
        }
    char *all = "";
    for (int p = 0; p < co.npoints; p++)
        all = tx_arena_printf(c->arena, "%s%s;", all, pts[p]);
    return all;
}

/* How a view index maps to its parent index (the numpy/torch semantics,
 * written independently of view.c). */
typedef enum { MAP_RESHAPE, MAP_PERMUTE, MAP_SUB, MAP_TILE, MAP_DTYPE } MapKind;

typedef struct ViewMap {
    MapKind kind;
    int64_t perm[MAXD];
    LyPick picks[MAXD];
    int npicks;
    int tdim, nfactors;
    int64_t factors[MAXD];
    int64_t ratio_num, ratio_den; /* child bits / parent bits */
} ViewMap;

static void unravel(int64_t pos, const int64_t *shape, int nd, int64_t *out)
{
    for (int d = nd - 1; d >= 0; d--)
        out[d] = pos % shape[d], pos /= shape[d];
}

static int64_t ravel(const int64_t *idx, const int64_t *shape, int nd)
{
    int64_t pos = 0;
    for (int d = 0; d < nd; d++)
        pos = pos * shape[d] + idx[d];
    return pos;
}

static int64_t val(const IrExpr *e)
{
    int64_t v = 0;
    const_of(e, &v);
    return v;
}

static void parent_index(const ViewMap *m, const Case *pc, const int64_t *child, int cnd,
                         const int64_t *cshape, int64_t *out, int64_t *extra_bits, int64_t pbits)
{
    *extra_bits = 0;
    switch (m->kind) {
    case MAP_RESHAPE: unravel(ravel(child, cshape, cnd), pc->shape, pc->nd, out); break;
    case MAP_PERMUTE:
        for (int i = 0; i < pc->nd; i++)
            out[m->perm[i]] = child[i];
        break;
    case MAP_SUB: {
        int c = 0, d = 0;
        for (int i = 0; i < m->npicks; i++, d++) {
            const LyPick *p = &m->picks[i];
            out[d] = p->kind == LY_PICK_INDEX ? val(p->start)
                     : p->kind == LY_PICK_RANGE ? val(p->start) + child[c++]
                     : p->kind == LY_PICK_STEP  ? val(p->start) + p->step * child[c++]
                                                : child[c++];
        }
        for (; d < pc->nd; d++)
            out[d] = child[c++];
        break;
    }
    case MAP_TILE: {
        int64_t kept[MAXD], digits[MAXD];
        int nk = 0;
        for (int j = 0; j < m->nfactors; j++)
            if (m->picks[j].kind == LY_PICK_ALL)
                kept[nk++] = m->factors[j];
        unravel(child[m->tdim], kept, nk, digits);
        int64_t full[MAXD];
        for (int j = 0, k = 0; j < m->nfactors; j++)
            full[j] = m->picks[j].kind == LY_PICK_ALL ? digits[k++] : val(m->picks[j].start);
        for (int d = 0; d < pc->nd; d++)
            out[d] = child[d];
        out[m->tdim] = ravel(full, m->factors, m->nfactors);
        break;
    }
    case MAP_DTYPE: {
        for (int d = 0; d < pc->nd; d++)
            out[d] = child[d];
        int64_t bit = child[cnd - 1] * pbits * m->ratio_num / m->ratio_den;
        out[cnd - 1] = bit / pbits;
        *extra_bits = bit % pbits;
        break;
    }
    }
}

/* Every index of the view has the physical coordinates of its parent index. */
static bool same_places(LyCtx *c, const Case *pc, const IrType *child, const ViewMap *m,
                        const char **why)
{
    const IrBufferType *b = child->buf;
    int64_t cshape[MAXD + 2], count = 1, ci[MAXD + 2], pi[MAXD + 2], extra;
    for (int d = 0; d < b->ndim; d++) {
        if (!const_of(b->shape[d], &cshape[d]))
            return false;
        count *= cshape[d];
    }
    for (int64_t pos = 0; pos < count; pos++) {
        unravel(pos, cshape, b->ndim, ci);
        parent_index(m, pc, ci, b->ndim, cshape, pi, &extra, pc->t->dtype.bits);
        const char *want = physical(c, pc->t, pi, extra), *got = physical(c, child, ci, 0);
        if (strcmp(want, got)) {
            *why = tx_arena_printf(c->arena, "at %s: parent %s gives %s, the view %s",
                                   shape_text(c, ci, b->ndim), shape_text(c, pi, pc->nd), want,
                                   got);
            return false;
        }
    }
    return true;
}

static void expect_same(LyCtx *c, const Case *pc, const IrType *child, const ViewMap *m,
                        const char *what, int *checked)
{
    if (!child)
        return; /* a view the parent does not allow (an error, checked elsewhere) */
    const char *why = NULL;
    if (!same_places(c, pc, child, m, &why)) {
        fprintf(stderr, "%s of %s %s %s -> %s: %s\n", what, shape_text(c, pc->shape, pc->nd),
                ly_str(c, pc->t->buf->layout), pc->t->scope, geometry(c, child), why);
        fail();
    }
    (*checked)++;
}

static LyPick random_pick(LyCtx *c, Rng *r, int64_t e)
{
    int k = rnd(r, 4);
    if (k == 0)
        return ALL;
    if (k == 1)
        return idx(c, rnd(r, (int)e));
    int64_t a = rnd(r, (int)e), b = a + 1 + rnd(r, (int)(e - a));
    if (k == 2)
        return range(c, a, b);
    int64_t s = e % 2 == 0 ? 2 : e; /* a divisor of e */
    return stepped(c, rnd(r, (int)s), s);
}

static void check_case(LyCtx *c, Rng *r, const Case *pc, int *checked)
{
    LyViewCtx v = vctx(c);
    ViewMap m = {0};
    const IrBufferType *b = pc->t->buf;
    int64_t total = 1;
    for (int d = 0; d < pc->nd; d++)
        total *= pc->shape[d];
    /* reshape: flatten, or split the last dimension */
    int64_t flat = total, split[MAXD + 1];
    m.kind = MAP_RESHAPE;
    expect_same(c, pc, ly_view_reshape(&v, pc->t, ints(c, &flat, 1), 1, NULL), &m, "flat", checked);
    memcpy(split, pc->shape, sizeof(int64_t) * (size_t)pc->nd);
    if (pc->shape[pc->nd - 1] % 2 == 0) {
        split[pc->nd - 1] /= 2, split[pc->nd] = 2;
        expect_same(c, pc, ly_view_reshape(&v, pc->t, ints(c, split, pc->nd + 1), pc->nd + 1, NULL),
                    &m, "split", checked);
    }
    /* permute: reverse */
    m.kind = MAP_PERMUTE;
    for (int d = 0; d < pc->nd; d++)
        m.perm[d] = pc->nd - 1 - d;
    expect_same(c, pc, ly_view_permute(&v, pc->t, m.perm, pc->nd), &m, "permute", checked);
    /* sub: random picks (a chain) */
    m.kind = MAP_SUB;
    m.npicks = 1 + rnd(r, pc->nd);
    for (int i = 0; i < m.npicks; i++)
        m.picks[i] = random_pick(c, r, pc->shape[i]);
    expect_same(c, pc, sub(c, pc->t, m.picks, m.npicks), &m, "sub", checked);
    /* tile: one dimension into (E/2, 2) or (2, E/2), one factor picked */
    int td = rnd(r, pc->nd);
    if (pc->shape[td] % 2 == 0 && pc->shape[td] > 2) {
        m.kind = MAP_TILE, m.tdim = td, m.nfactors = 2;
        m.factors[0] = rnd(r, 2) ? 2 : pc->shape[td] / 2;
        m.factors[1] = pc->shape[td] / m.factors[0];
        int pick = rnd(r, 2);
        for (int j = 0; j < 2; j++)
            m.picks[j] = j == pick ? idx(c, rnd(r, (int)m.factors[j])) : ALL;
        LyTileSpec sp = {td, ints(c, m.factors, 2), 2};
        LyViewChain ch = {0};
        expect_same(c, pc, last(&ch, ly_view_tile(&v, pc->t, &sp, 1, m.picks, 2, &ch)), &m, "tile",
                    checked);
    }
    /* dtype: half and double width */
    if (!b->naddr) {
        m.kind = MAP_DTYPE;
        IrDType half = pc->t->dtype.bits == 32 ? IR_FLOAT16 : IR_INT8;
        IrDType dbl = pc->t->dtype.bits == 32 ? IR_FLOAT64 : IR_FLOAT32;
        m.ratio_num = 1, m.ratio_den = 2;
        expect_same(c, pc, ly_view_dtype(&v, pc->t, half), &m, "view(half)", checked);
        m.ratio_num = 2, m.ratio_den = 1;
        expect_same(c, pc, ly_view_dtype(&v, pc->t, dbl), &m, "view(double)", checked);
    }
}

static void test_views_keep_physical_places(void **state)
{
    LyCtx *c = CTX;
    Rng r = {0x9e3779b97f4a7c15ull};
    int checked = 0;
    for (int i = 0; i < 1500; i++) {
        Case pc = random_case(c, &r);
        if (ly_admits(c, pc.t->buf->layout, pc.t->buf->shape, pc.nd))
            check_case(c, &r, &pc, &checked);
    }
    fprintf(stderr, "views checked: %d\n", checked);
    assert_true(checked > 3000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TEST(test_v1_v3_permute),
        TEST(test_v2_rearrange),
        TEST(test_v4_local),
        TEST(test_v5_v7_sub),
        TEST(test_v8_v9_sub_swizzle),
        TEST(test_v10_tile),
        TEST(test_v11_narrow_multi_iter),
        TEST(test_v12_dtype),
        TEST(test_reshape),
        TEST(test_runtime_scalars),
        TEST(test_tmem_columns),
        TEST(test_quirk_tmem_lane_offset),
        TEST(test_quirk_thread_axis_select),
        TEST(test_quirk_bare_swizzle_views),
        TEST(test_quirk_dtype_misaligned),
        TEST(test_quirk_strided),
        TEST(test_errors),
        TEST(test_views_keep_physical_places),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
