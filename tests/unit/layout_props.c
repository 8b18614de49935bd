/* Property tests of the layout algebra over random small layouts and shapes
 * (a fixed-seed generator, so failures reproduce): a swizzle is a bijection
 * within its period; canonicalization preserves apply (and thread-axis fusion
 * preserves the linear thread index); grouping preserves apply; slicing then
 * applying equals applying then restricting; symbolic apply agrees with
 * concrete apply, swizzles included; tiling is outer * span + inner; unpack
 * then pack is the identity; hostile inputs never crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "layout_spec.h"

typedef struct Rng {
    uint64_t s;
} Rng;

static int rnd(Rng *r, int n) /* uniform in [0, n) */
{
    r->s ^= r->s << 13, r->s ^= r->s >> 7, r->s ^= r->s << 17;
    return (int)(r->s % (uint64_t)n);
}

static IrIter iter(LyCtx *c, int64_t e, int64_t s, const char *axis)
{
    return (IrIter){ir_i32(c->arena, e), ir_i32(c->arena, s), axis};
}

/* A random constant TileLayout: 1-4 shard iters whose strides are often
 * contiguous (so that they fuse), optional replica and offsets. */
static IrLayout *random_tile(LyCtx *c, Rng *r, const char *const *axes, int naxes, bool extras)
{
    IrIter shard[4], rep[2];
    IrAxisOffset off[2];
    int n = 1 + rnd(r, 4), nr = extras ? rnd(r, 2) : 0, no = extras ? rnd(r, 3) : 0;
    int64_t inner = 1;
    for (int i = n - 1; i >= 0; i--) {
        int64_t e = 1 + rnd(r, 4), s = rnd(r, 2) ? inner : rnd(r, 9);
        shard[i] = iter(c, e, s, axes[rnd(r, naxes)]);
        inner *= e;
    }
    for (int i = 0; i < nr; i++)
        rep[i] = iter(c, 1 + rnd(r, 3), rnd(r, 20), axes[rnd(r, naxes)]);
    for (int i = 0; i < no; i++)
        off[i] = (IrAxisOffset){axes[rnd(r, naxes)], ir_i32(c->arena, rnd(r, 40))};
    return ly_tile(c, shard, n, rep, nr, off, no);
}

static int64_t size_of(LyCtx *c, const IrLayout *l)
{
    int64_t n = 0;
    assert_true(const_of(ly_size(c, l, NULL), &n));
    return n;
}

/* A random shape with `total` elements: the shard extents cut into runs. */
static int random_shape(Rng *r, const IrLayout *l, int64_t *shape)
{
    const IrLayout *t = l->kind == IR_LAYOUT_COMPOSE ? l->tile : l;
    int nd = 0;
    int64_t run = 1;
    for (int i = 0; i < t->nshard; i++) {
        run *= t->shard[i].extent->u.int_val;
        if (i == t->nshard - 1 || (nd < 3 && rnd(r, 2))) {
            shape[nd++] = run;
            run = 1;
        }
    }
    if (nd == 0)
        shape[nd++] = 1;
    return nd;
}

static void test_swizzle_bijection(void **state)
{
    LyCtx *c = CTX;
    for (int p = 0; p <= 3; p++)
        for (int at = 0; at <= 4; at++)
            for (int sw = 0; sw <= at; sw++)
                for (int inner = 0; inner < 2; inner++) {
                    IrLayout *l = ly_compose(c, p, sw, at, inner, spec(c, "S[8:1]"));
                    int64_t period = ly_swizzle_period(l);
                    unsigned char seen[1 << 11] = {0};
                    for (int64_t m = 0; m < period; m++) {
                        int64_t v = ly_swizzle(l, m);
                        assert_true(v >= 0 && v < period);
                        assert_false(seen[v]);
                        seen[v] = 1;
                        assert_int_equal(ly_swizzle(l, m + 3 * period), v + 3 * period);
                        assert_int_equal(ly_swizzle(l, ly_swizzle(l, m)), m); /* an involution */
                    }
                }
}

static void test_canonicalize_preserves_apply(void **state)
{
    LyCtx *c = CTX;
    Rng r = {0x9e3779b97f4a7c15u};
    const char *axes[] = {"m", "m", "laneid", "TLane", "P"};
    for (int k = 0; k < 400; k++) {
        IrLayout *l = random_tile(c, &r, axes, 5, true), *k1 = ly_canonicalize(c, l, LY_TARGET_NONE);
        assert_non_null(k1);
        int64_t n = size_of(c, l);
        if (!ly_apply_equal(c, l, k1, &n, 1))
            fail_msg("%s -> %s: %s", ly_str(c, l), ly_str(c, k1), c->err ? c->err : "differs");
        assert_string_equal(canon_str(c, k1, LY_TARGET_NONE), ly_str(c, k1)); /* idempotent */
        assert_true(ly_equal(c, l, k1, LY_TARGET_NONE));
    }
}

/* Points of a concrete apply mapped onto the linear thread index
 * tx = warpid * 32 + laneid (m kept), sorted. */
static void linear_points(const LyCoords *co, int64_t (*out)[2])
{
    for (int p = 0; p < co->npoints; p++) {
        int64_t w = coord(co, p, "warpid"), l = coord(co, p, "laneid"), t = coord(co, p, "tx");
        int64_t tx = t != -999999 ? t : (w != -999999 ? 32 * w : 0) + (l != -999999 ? l : 0);
        int64_t m = coord(co, p, "m");
        out[p][0] = m != -999999 ? m : 0, out[p][1] = tx;
    }
    for (int i = 1; i < co->npoints; i++)
        for (int j = i; j > 0 && (out[j - 1][0] > out[j][0] ||
                                  (out[j - 1][0] == out[j][0] && out[j - 1][1] > out[j][1])); j--) {
            int64_t t0 = out[j][0], t1 = out[j][1];
            out[j][0] = out[j - 1][0], out[j][1] = out[j - 1][1];
            out[j - 1][0] = t0, out[j - 1][1] = t1;
        }
}

static void test_fusion_preserves_thread_index(void **state)
{
    LyCtx *c = CTX;
    Rng r = {12345};
    const char *axes[] = {"m", "laneid", "warpid"};
    int fused = 0;
    for (int k = 0; k < 400; k++) {
        IrLayout *l = random_tile(c, &r, axes, 3, true);
        IrLayout *f = ly_canonicalize(c, l, LY_TARGET_CUDA);
        assert_non_null(f);
        IrScope in, out;
        if (ly_scope(c, l, &in, &out) && in == IR_SCOPE_THREAD && out == IR_SCOPE_CTA)
            fused++;
        int64_t n = size_of(c, l);
        for (int64_t pos = 0; pos < n; pos++) {
            LyCoords a, b;
            assert_true(ly_apply_pos(c, l, &n, 1, pos, &a));
            assert_true(ly_apply_pos(c, f, &n, 1, pos, &b));
            assert_int_equal(a.npoints, b.npoints);
            int64_t pa[8][2], pb[8][2];
            linear_points(&a, pa);
            linear_points(&b, pb);
            assert_memory_equal(pa, pb, sizeof(int64_t) * 2 * (size_t)a.npoints);
        }
    }
    assert_true(fused > 50);
}

static void test_group_preserves_apply(void **state)
{
    LyCtx *c = CTX;
    Rng r = {777};
    const char *axes[] = {"m", "m", "laneid"};
    for (int k = 0; k < 300; k++) {
        IrLayout *l = random_tile(c, &r, axes, 3, true);
        int64_t shape[4];
        int nd = random_shape(&r, l, shape), seps[5];
        IrLayout *g = ly_group(c, l, ints(c, shape, nd), nd, seps);
        assert_non_null(g);
        assert_true(ly_apply_equal(c, l, g, shape, nd));
        for (int d = 0; d < nd; d++) { /* each dim owns iters whose extents multiply to it */
            int64_t prod = 1;
            for (int i = seps[d]; i < seps[d + 1]; i++)
                prod *= g->shard[i].extent->u.int_val;
            assert_int_equal(prod, shape[d]);
        }
    }
}

static void test_slice_then_apply(void **state)
{
    LyCtx *c = CTX;
    Rng r = {4242};
    const char *axes[] = {"m", "m", "laneid"};
    int sliced = 0;
    for (int k = 0; k < 600; k++) {
        IrLayout *l = random_tile(c, &r, axes, 3, true);
        if (rnd(&r, 4) == 0)
            l = ly_compose(c, rnd(&r, 2), 1, 2, true, l);
        int64_t shape[4], begin[4], ext[4];
        int nd = random_shape(&r, l, shape);
        for (int d = 0; d < nd; d++) {
            begin[d] = rnd(&r, (int)shape[d]);
            ext[d] = 1 + rnd(&r, (int)(shape[d] - begin[d]));
        }
        IrLayout *s = ly_slice(c, l, ints(c, shape, nd), ints(c, begin, nd), ints(c, ext, nd), nd,
                               LY_TARGET_NONE);
        LyCoords probe;
        if (!s || (l->kind == IR_LAYOUT_COMPOSE &&
                   !ly_apply_at(c, l, shape, (int64_t[]){0, 0, 0, 0}, nd, &probe)))
            continue;
        sliced++;
        int64_t count = 1, idx[4], full[4];
        for (int d = 0; d < nd; d++)
            count *= ext[d];
        for (int64_t pos = 0; pos < count; pos++) {
            for (int64_t d = nd - 1, rest = pos; d >= 0; d--)
                idx[d] = rest % ext[d], full[d] = begin[d] + idx[d], rest /= ext[d];
            LyCoords a, b;
            assert_true(ly_apply_at(c, s, ext, idx, nd, &a));
            assert_true(ly_apply_at(c, l, shape, full, nd, &b));
            assert_int_equal(a.npoints, b.npoints);
            for (int p = 0; p < a.npoints; p++)
                for (int i = 0; i < b.naxes; i++)
                    assert_int_equal(coord(&a, p, b.axes[i]) == -999999 ? 0 : coord(&a, p, b.axes[i]),
                                     b.vals[p * b.naxes + i]);
        }
    }
    assert_true(sliced > 200);
}

static void test_symbolic_matches_concrete(void **state)
{
    LyCtx *c = CTX;
    Rng r = {99};
    const char *axes[] = {"m", "m", "m", "laneid", "TCol"};
    const char *maxes[] = {"m"};
    for (int k = 0; k < 300; k++) {
        IrLayout *l = random_tile(c, &r, axes, 5, true);
        int64_t shape[4];
        int nd = random_shape(&r, l, shape);
        if (!symbolic_matches(c, l, shape, nd, 1))
            fail_msg("%s over %s: %s", ly_str(c, l), shape_text(c, shape, nd),
                     c->err ? c->err : "differs");
    }
    for (int k = 0; k < 300; k++) { /* swizzles over memory tiles, with constant offsets */
        int at = 1 + rnd(&r, 3);
        IrLayout *t = random_tile(c, &r, maxes, 1, rnd(&r, 2));
        IrLayout *l = ly_compose(c, rnd(&r, 3), 1 + rnd(&r, at), at, rnd(&r, 4) != 0, t);
        int64_t shape[4];
        int nd = random_shape(&r, l, shape);
        if (!symbolic_matches(c, l, shape, nd, 1))
            fail_msg("%s over %s: %s", ly_str(c, l), shape_text(c, shape, nd),
                     c->err ? c->err : "differs");
    }
}

static void test_tile_is_outer_times_span_plus_inner(void **state)
{
    LyCtx *c = CTX;
    Rng r = {31337};
    const char *axes[] = {"m"};
    for (int k = 0; k < 200; k++) {
        IrLayout *in = random_tile(c, &r, axes, 1, false), *out = random_tile(c, &r, axes, 1, false);
        int64_t ni = size_of(c, in), no = size_of(c, out), span = 0;
        assert_true(const_of(ly_span(c, in, "m"), &span));
        IrLayout *t = ly_tile_by(c, in, out, ints(c, &no, 1), ints(c, &ni, 1), 1, LY_TARGET_NONE);
        assert_non_null(t);
        int64_t shape[] = {no, ni}, total = no * ni;
        for (int64_t o = 0; o < no; o++)
            for (int64_t i = 0; i < ni; i++) {
                int64_t got = at1(c, t, &total, (int64_t[]){o * ni + i}, 1, "m");
                int64_t want = at1(c, out, &no, &o, 1, "m") * span + at1(c, in, &ni, &i, 1, "m");
                assert_int_equal(got, want);
            }
        (void)shape;
    }
}

static void test_unpack_then_pack(void **state)
{
    LyCtx *c = CTX;
    Rng r = {2718};
    const char *axes[] = {"m", "m", "laneid"};
    for (int k = 0; k < 200; k++) {
        IrLayout *l = random_tile(c, &r, axes, 3, true);
        int64_t n = 1 + rnd(&r, 4);
        IrLayout *u = ly_unpack(c, l, n, NULL), *p = u ? ly_pack(c, u, n, NULL) : NULL;
        assert_non_null(p);
        int64_t size = size_of(c, l);
        assert_true(ly_apply_equal(c, l, p, &size, 1));
        /* element e of the wide view covers elements n*m(e) .. n*m(e)+n-1 of the narrow one */
        int64_t usize = size * n;
        for (int64_t pos = 0; pos < size; pos++)
            for (int64_t j = 0; j < n; j++) {
                LyCoords a, b;
                assert_true(ly_apply_pos(c, l, &size, 1, pos, &a));
                assert_true(ly_apply_pos(c, u, &usize, 1, pos * n + j, &b));
                assert_int_equal(coord(&b, 0, "m"), (coord(&a, 0, "m") == -999999 ? 0 : coord(&a, 0, "m")) * n + j);
            }
    }
}

/* Hostile inputs (zero, negative and huge extents, strides and offsets,
 * unchecked swizzle parameters) go through every operation: errors are fine,
 * crashes and undefined behaviour (under the sanitizer build) are not. */
static int64_t hostile(Rng *r)
{
    static const int64_t v[] = {0, 1, 2, 3, 4, -1, -7, (int64_t)1 << 40, INT64_MAX, INT64_MIN,
                                (int64_t)1 << 62, 1000003};
    return v[rnd(r, (int)TX_ARRAY_LEN(v))];
}

static IrLayout *hostile_layout(LyCtx *c, Rng *r)
{
    const char *axes[] = {"m", "laneid", "warpid", "TLane", "nope", "pid"};
    IrIter shard[3], rep[1];
    IrAxisOffset off[1] = {{axes[rnd(r, 6)], ir_int(c->arena, IR_INT64, hostile(r), (TxSpan){0})}};
    int n = rnd(r, 4);
    for (int i = 0; i < n; i++)
        shard[i] = (IrIter){ir_int(c->arena, IR_INT64, hostile(r), (TxSpan){0}),
                            ir_int(c->arena, IR_INT64, hostile(r), (TxSpan){0}), axes[rnd(r, 6)]};
    rep[0] = (IrIter){ir_i32(c->arena, 1 + rnd(r, 3)), ir_int(c->arena, IR_INT64, hostile(r), (TxSpan){0}),
                      axes[rnd(r, 6)]};
    IrLayout *t = ly_tile(c, shard, n, rep, rnd(r, 2), off, rnd(r, 2));
    if (rnd(r, 3))
        return t;
    IrLayout *cmp = TX_NEW(c->arena, IrLayout); /* unchecked parameters, as a careless producer might */
    cmp->kind = IR_LAYOUT_COMPOSE;
    cmp->per_element = rnd(r, 70) - 5, cmp->swizzle_len = rnd(r, 5), cmp->atom_len = rnd(r, 5);
    cmp->swizzle_inner = rnd(r, 2);
    cmp->tile = t;
    return cmp;
}

static void test_hostile_inputs(void **state)
{
    LyCtx *c = CTX;
    Rng r = {0xdeadbeef};
    for (int k = 0; k < 3000; k++) {
        IrLayout *l = hostile_layout(c, &r), *o = hostile_layout(c, &r);
        int64_t shape[2] = {hostile(&r), hostile(&r)}, idx[2] = {hostile(&r), hostile(&r)};
        int nd = 1 + rnd(&r, 2), seps[3];
        IrExpr **sh = ints(c, shape, nd), **ix = ints(c, idx, nd);
        LyCoords co;
        LyAxisValue *vals;
        int nv;
        ly_check(c, l);
        ly_str(c, l);
        ly_canonicalize(c, l, LY_TARGET_CUDA);
        ly_size(c, l, NULL);
        ly_span(c, l, NULL);
        ly_storage(c, l);
        ly_group(c, l, sh, nd, seps);
        ly_apply_at(c, l, shape, idx, nd, &co);
        ly_apply_pos(c, l, shape, 1, idx[0], &co);
        ly_apply_expr(c, l, ix, sh, nd, &vals, &nv);
        ly_slice(c, l, sh, ix, sh, nd, LY_TARGET_NONE);
        ly_tile_by(c, l, o, sh, ix, nd, LY_TARGET_NONE);
        ly_direct_sum(c, l, o, sh, ix, nd, LY_TARGET_NONE);
        ly_pack(c, l, hostile(&r), NULL);
        ly_unpack(c, l, 1 + rnd(&r, 4), NULL);
        ly_check_swizzle_base(c, l, IR_FLOAT16, ix[0], hostile(&r));
        ly_apply_equal(c, l, o, shape, 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TEST(test_swizzle_bijection),
        TEST(test_canonicalize_preserves_apply),
        TEST(test_fusion_preserves_thread_index),
        TEST(test_group_preserves_apply),
        TEST(test_slice_then_apply),
        TEST(test_symbolic_matches_concrete),
        TEST(test_tile_is_outer_times_span_plus_inner),
        TEST(test_unpack_then_pack),
        TEST(test_hostile_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
