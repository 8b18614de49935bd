/* Unit tests of the axis registry, canonical form and equality: the vectors of
 * reference/layout_passes.md §5.2 (C1-C18), thread-axis fusion and splitting,
 * scope errors, well-formedness, equality and the layout text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "layout_spec.h"

static void canon_is(LyCtx *c, const char *in, LyTarget t, const char *want)
{
    IrLayout *l = spec(c, in), *w = spec(c, want);
    assert_non_null(l);
    assert_non_null(w);
    IrLayout *k = ly_canonicalize(c, l, t);
    assert_non_null(k);
    assert_string_equal(ly_str(c, k), ly_str(c, w));
    /* canonicalization is idempotent and preserves apply */
    assert_string_equal(canon_str(c, k, t), ly_str(c, k));
    if (t == LY_TARGET_NONE) {
        int64_t n;
        assert_true(const_of(ly_size(c, l, NULL), &n));
        if (n <= (1 << 20) && !ly_apply_equal(c, l, k, &n, 1))
            fail_msg("%s: %s", in, c->err ? c->err : "apply differs");
    }
}

static void test_c1_c7_memory(void **state)
{
    LyCtx *c = CTX;
    canon_is(c, "S[(8,8,8,4,2):(512,64,8,2,1)]", LY_TARGET_NONE, "S[4096:1]");
    canon_is(c, "S[(8,8,1,8,4,2):(512,64,160,8,2,1)]", LY_TARGET_NONE, "S[4096:1]");
    canon_is(c, "S[(8,8,8,4,1,1):(512,64,8,2,1,1)]", LY_TARGET_NONE, "S[2048:2]");
    canon_is(c, "S[(8,8,1,1,1,4,1,1):(512,64,1,1,1,2,1,1)]", LY_TARGET_NONE, "S[(64,4):(64,2)]");
    canon_is(c, "S[(8,2,3,6):(6,24,6,1)]", LY_TARGET_NONE, "S[(8,2,18):(6,24,1)]");
    canon_is(c, "S[(8,2,4,2,3,6):(2,1,4,24,6,1)]", LY_TARGET_NONE, "S[(16,4,2,18):(1,4,24,1)]");
    canon_is(c, "S[(3,4,5,2,3,4):(20,5,1,60,20,5)]", LY_TARGET_NONE, "S[(60,24):(1,5)]");
}

static void test_c8_c10_units_and_lanes(void **state)
{
    LyCtx *c = CTX;
    canon_is(c, "S[(8,8,8,1,1,2,1):(16,4@laneid,2,1,4@laneid,1,1)] + 0@laneid", LY_TARGET_NONE,
             "S[(8,8,16):(16,4@laneid,1)]");
    canon_is(c, "S[(8,4,4,8,8,4,4,16,8):(4@laneid,1@laneid,16,2,8,2,16,1,4)]", LY_TARGET_NONE,
             "S[(32,32,32,64,8):(1@laneid,2,2,1,4)]");
    canon_is(c, "S[(1,1,1,1,1):(1,1,1,1,1)]", LY_TARGET_NONE, "S[1:1]");
    /* the scope is taken after unit iters are gone: a unit laneid iter does not
     * disconnect wgid */
    canon_is(c, "S[(1,1,3):(3,3@laneid,2@wgid)]", LY_TARGET_CUDA, "S[3:2@wgid]");
    /* a unit iter keeps the axis of the first iter */
    canon_is(c, "S[(1,1):(5@laneid,3)]", LY_TARGET_NONE, "S[1:1@laneid]");
}

static void test_c11_c15_thread_fusion(void **state)
{
    LyCtx *c = CTX;
    canon_is(c, "S[(2,8,2,4):(2@warpid,4@laneid,1@warpid,1@laneid)]", LY_TARGET_CUDA,
             "S[(2,8,2,4):(64@tx,4@tx,32@tx,1@tx)]");
    canon_is(c, "S[(2,2,8,4):(2@warpid,1@warpid,4@laneid,1@laneid)]", LY_TARGET_CUDA,
             "S[128:1@tx]");
    canon_is(c, "S[(2,2,8,2,2,4):(2@wgid,2@wid_in_wg,4@laneid,1@wgid,1@wid_in_wg,1@laneid)]",
             LY_TARGET_CUDA, "S[(2,2,8,2,2,4):(256@tx,64@tx,4@tx,128@tx,32@tx,1@tx)]");
    canon_is(c, "S[(2,8,2,4):(2@wid_in_wg,4@laneid,1@wid_in_wg,1@laneid)]", LY_TARGET_CUDA,
             "S[(2,8,2,4):(64@tid_in_wg,4@tid_in_wg,32@tid_in_wg,1@tid_in_wg)]");
    canon_is(c, "S[(2,2,4,32):(2@wgid,1@wgid,32@tid_in_wg,1@tid_in_wg)]", LY_TARGET_CUDA,
             "S[512:1@tx]");
    /* without a target nothing fuses across axes */
    canon_is(c, "S[(2,2,8,4):(2@warpid,1@warpid,4@laneid,1@laneid)]", LY_TARGET_NONE,
             "S[(4,32):(1@warpid,1@laneid)]");
    /* [QUIRK] the reference fuses wgid for (warp, cta) onto wgid itself; tirx fuses
     * it onto warpid = wgid*4 + wid_in_wg */
    canon_is(c, "S[(2,4):(1@wgid,1@wid_in_wg)]", LY_TARGET_CUDA, "S[8:1@warpid]");
    /* [QUIRK] offsets fused onto one axis add up (the reference keeps one of them) */
    canon_is(c, "S[(4,32):(1@warpid,1@laneid)] + 1@warpid + 3@laneid", LY_TARGET_CUDA,
             "S[128:1@tx] + 35@tx");
    /* replica iters fuse too */
    canon_is(c, "S[(4,8):(1@warpid,1@laneid)] + R[4:8@laneid]", LY_TARGET_CUDA,
             "S[(4,8):(32@tx,1@tx)] + R[4:8@tx]");
}

static void test_c16_c18_replica_and_trainium(void **state)
{
    LyCtx *c = CTX;
    IrLayout *a = spec(c, "S[1:1] + R[(8,4):(4@laneid,1@laneid)] + 2@warpid");
    IrLayout *b = spec(c, "S[1:1] + R[(4,8):(1@laneid,4@laneid)] + 2@warpid");
    assert_true(ly_equal(c, a, b, LY_TARGET_NONE)); /* the replica is a multiset */
    int64_t one = 1;
    assert_true(ly_apply_equal(c, a, b, &one, 1));
    IrLayout *e = ly_canonicalize(c, spec(c, "R[32:1@laneid]"), LY_TARGET_CUDA);
    assert_non_null(e);
    assert_int_equal(e->nshard, 0);
    assert_int_equal(e->nreplica, 1);
    assert_string_equal(ly_str(c, e), "T.TileLayout.from_iters(replica=T.R[32:1 @ Axis.laneid])");
    canon_is(c, "S[(8,1,8):(8@F,1@P,1@F)]", LY_TARGET_NONE, "S[64:1@F]");
    canon_is(c, "S[(8,8,8):(8@F,1@P,1@F)]", LY_TARGET_NONE, "S[(8,8,8):(8@F,1@P,1@F)]");
}

static void test_scope(void **state)
{
    LyCtx *c = CTX;
    IrScope in, out;
    assert_true(ly_scope(c, spec(c, "S[(4,32):(1@warpid,1@laneid)]"), &in, &out));
    assert_int_equal(in, IR_SCOPE_THREAD);
    assert_int_equal(out, IR_SCOPE_CTA);
    c->err = NULL;
    assert_false(ly_scope(c, spec(c, "S[8:1] + R[2:1@laneid]"), &in, &out));
    assert_null(c->err); /* no thread axis in the shard: no scope, no error */
    IrLayout *broken = spec(c, "S[(4,32):(1@wgid,1@laneid)]");
    assert_false(ly_scope(c, broken, &in, &out));
    assert_non_null(strstr(c->err, "do not form one scope chain"));
    assert_null(ly_canonicalize(c, broken, LY_TARGET_NONE));
    assert_false(ly_check(c, broken));
    assert_false(ly_scope(c, spec(c, "S[(4,32):(1@tx,1@laneid)]"), &in, &out));
    assert_non_null(strstr(c->err, "conflicting scopes for thread"));
    assert_true(ly_scope(c, spec(c, "S[(2,4):(1@bx,1@cbx)]"), &in, &out) == false);
    assert_non_null(strstr(c->err, "conflicting scopes for cta"));
}

static void test_axis_registry(void **state)
{
    LyCtx *c = CTX;
    assert_int_equal(ly_axis_find("laneid"), LY_AXIS_LANEID);
    assert_int_equal(ly_axis_find("lanes"), -1);
    assert_string_equal(ly_axis_nearest("lanid"), "laneid");
    assert_string_equal(ly_axis_nearest("Tlane"), "TLane");
    assert_int_equal(ly_axis_kind("TCol"), LY_MEMORY);
    assert_int_equal(ly_axis_kind("wid_in_wg"), LY_THREAD);
    assert_int_equal(ly_axis_kind("pid"), LY_DEVICE);
    assert_int_equal(ly_axis_info[LY_AXIS_CBX].scope, IR_SCOPE_CLUSTER);
    assert_int_equal(ly_axis_info[LY_AXIS_BY].subscope, IR_SCOPE_CTA);
    assert_int_equal(ly_axis_info[LY_AXIS_TID_IN_WG].scope, IR_SCOPE_WARPGROUP);
    assert_true(ly_axis_order("m", "TLane") > 0);  /* ASCII within memory axes */
    assert_true(ly_axis_order("m", "laneid") < 0); /* memory before thread */
    assert_true(ly_axis_order("wgid", "pid") < 0); /* thread before device */
    IrLayout *typo = spec(c, "S[(4,8):(1@warpid,1@lanid)]");
    assert_false(ly_check(c, typo));
    assert_non_null(strstr(c->err, "unknown layout axis 'lanid'"));
    assert_non_null(strstr(c->err, "did you mean 'laneid'?"));
    assert_true(ly_check(c, spec(c, "S[(4,8):(1@pid,1)]")));
}

static void fuse_is(LyCtx *c, const char *axis, IrScope in, IrScope out, const char *want,
                    int64_t mult)
{
    IrIter it = {ir_i32(c->arena, 4), ir_i32(c->arena, 2), axis}, r;
    if (!want) {
        assert_false(ly_axis_fuse(c, it, in, out, &r));
        return;
    }
    assert_true(ly_axis_fuse(c, it, in, out, &r));
    int64_t s;
    assert_string_equal(r.axis, want);
    assert_true(const_of(r.stride, &s));
    assert_int_equal(s, 2 * mult);
}

static void test_fusers(void **state)
{
    LyCtx *c = CTX;
    fuse_is(c, "warpid", IR_SCOPE_THREAD, IR_SCOPE_CTA, "tx", 32);
    fuse_is(c, "laneid", IR_SCOPE_THREAD, IR_SCOPE_CTA, "tx", 1);
    fuse_is(c, "laneid", IR_SCOPE_THREAD, IR_SCOPE_WARPGROUP, "tid_in_wg", 1);
    fuse_is(c, "wgid", IR_SCOPE_THREAD, IR_SCOPE_CTA, "tx", 128);
    fuse_is(c, "wgid", IR_SCOPE_WARP, IR_SCOPE_CTA, "warpid", 4);
    fuse_is(c, "tid_in_wg", IR_SCOPE_THREAD, IR_SCOPE_CTA, "tx", 1);
    fuse_is(c, "wid_in_wg", IR_SCOPE_THREAD, IR_SCOPE_WARPGROUP, "tid_in_wg", 32);
    fuse_is(c, "wid_in_wg", IR_SCOPE_THREAD, IR_SCOPE_CTA, "tx", 32);
    fuse_is(c, "wid_in_wg", IR_SCOPE_WARP, IR_SCOPE_CTA, "warpid", 1);
    fuse_is(c, "tx", IR_SCOPE_THREAD, IR_SCOPE_CTA, NULL, 0);
    fuse_is(c, "bx", IR_SCOPE_THREAD, IR_SCOPE_CTA, NULL, 0);
    fuse_is(c, "m", IR_SCOPE_THREAD, IR_SCOPE_CTA, NULL, 0);
}

static void split_is(LyCtx *c, const char *axis, int64_t e, int64_t s, IrScope scope, int n,
                     const char *a0, int64_t e0, int64_t s0, const char *a1, int64_t e1, int64_t s1)
{
    IrIter it = {ir_i32(c->arena, e), ir_i32(c->arena, s), axis}, out[2];
    assert_int_equal(ly_axis_split(c, it, scope, out), n);
    int64_t v;
    if (n >= 1) {
        assert_string_equal(out[0].axis, a0);
        assert_true(const_of(out[0].extent, &v) && v == e0);
        assert_true(const_of(out[0].stride, &v) && v == s0);
    }
    if (n == 2) {
        assert_string_equal(out[1].axis, a1);
        assert_true(const_of(out[1].extent, &v) && v == e1);
        assert_true(const_of(out[1].stride, &v) && v == s1);
    }
}

static void test_splitters(void **state)
{
    LyCtx *c = CTX;
    split_is(c, "tx", 128, 1, IR_SCOPE_WARP, 2, "warpid", 4, 1, "laneid", 32, 1);
    split_is(c, "tx", 8, 2, IR_SCOPE_WARP, 1, "laneid", 8, 2, NULL, 0, 0);
    split_is(c, "tx", 4, 32, IR_SCOPE_WARP, 2, "warpid", 4, 1, "laneid", 1, 32);
    split_is(c, "tx", 4, 64, IR_SCOPE_WARP, 1, "warpid", 4, 2, NULL, 0, 0);
    split_is(c, "tx", 256, 1, IR_SCOPE_WARPGROUP, 2, "wgid", 2, 1, "tid_in_wg", 128, 1);
    split_is(c, "tid_in_wg", 128, 1, IR_SCOPE_WARP, 2, "wid_in_wg", 4, 1, "laneid", 32, 1);
    /* [QUIRK] the reference splits warpid for scope "warp"; the outer axis of the
     * split (wgid) has subscope warpgroup, which is the scope asked for here */
    split_is(c, "warpid", 8, 1, IR_SCOPE_WARPGROUP, 2, "wgid", 2, 1, "wid_in_wg", 4, 1);
    split_is(c, "tx", 3, 24, IR_SCOPE_WARP, 0, NULL, 0, 0, NULL, 0, 0);
    split_is(c, "laneid", 32, 1, IR_SCOPE_WARP, 0, NULL, 0, 0, NULL, 0, 0);
}

static void test_equality(void **state)
{
    LyCtx *c = CTX;
    assert_true(ly_equal(c, spec(c, "S[(8,8):(8,1)]"), spec(c, "S[64:1]"), LY_TARGET_NONE));
    assert_false(ly_equal(c, spec(c, "S[(8,8):(8,1)]"), spec(c, "S[(8,8):(1,8)]"), LY_TARGET_NONE));
    assert_false(ly_equal(c, spec(c, "S[8:1] + 1"), spec(c, "S[8:1] + 2"), LY_TARGET_NONE));
    assert_true(ly_equal(c, spec(c, "S[8:1] + 0@laneid"), spec(c, "S[8:1]"), LY_TARGET_NONE));
    assert_true(ly_equal(c, spec(c, "Cmp(3,3,3;S[(8,64):(64,1)])"), spec(c, "Cmp(3,3,3;S[512])"),
                         LY_TARGET_NONE));
    assert_false(ly_equal(c, spec(c, "Cmp(3,2,3;S[512])"), spec(c, "Cmp(3,3,3;S[512])"),
                          LY_TARGET_NONE));
    assert_false(ly_equal(c, spec(c, "Cmp(3,3,3;S[512],inner=F)"), spec(c, "Cmp(3,3,3;S[512])"),
                          LY_TARGET_NONE));
    assert_true(ly_equal(c, spec(c, "Cmp(3,0,3;S[512],inner=F)"), spec(c, "Cmp(3,0,3;S[512])"),
                         LY_TARGET_NONE)); /* with no swizzle bits the direction is moot */
    assert_true(ly_equal(c, spec(c, "S[(4,32):(1@warpid,1@laneid)]"), spec(c, "S[128:1@tx]"),
                         LY_TARGET_CUDA));
    assert_false(ly_equal(c, spec(c, "S[(4,32):(1@warpid,1@laneid)]"), spec(c, "S[128:1@tx]"),
                          LY_TARGET_NONE));
    int64_t sh[] = {8, 8};
    assert_true(ly_apply_equal(c, spec(c, "S[(8,8):(8,1)] + 0@laneid"), spec(c, "S[64]"), sh, 2));
    assert_false(ly_apply_equal(c, spec(c, "S[(2,2):(1,2)]"), spec(c, "S[(2,2):(2,1)]"),
                                (int64_t[]){2, 2}, 2));
    assert_false(ly_apply_equal(c, spec(c, "S[8:1] + R[2:8]"), spec(c, "S[8:1]"), (int64_t[]){8}, 1));
}

static void test_layout_text(void **state)
{
    LyCtx *c = CTX;
    assert_string_equal(ly_str(c, spec(c, "S[(8,4,2):(4@laneid,1@laneid,1)]")),
                        "T.TileLayout(T.S[(8, 4, 2):(4 @ Axis.laneid, 1 @ Axis.laneid, 1)])");
    assert_string_equal(ly_str(c, spec(c, "S[32:1@laneid]")),
                        "T.TileLayout(T.S[32:1 @ Axis.laneid])");
    assert_string_equal(ly_str(c, spec(c, "S[8:4@laneid] + 2@warpid + 64 + 1@laneid")),
                        "T.TileLayout(T.S[8:4 @ Axis.laneid] + (1 @ Axis.laneid + 64 + "
                        "2 @ Axis.warpid))");
    assert_string_equal(ly_str(c, spec(c, "S[8:1] + R[2:4@warpid] + 5@warpid")),
                        "T.TileLayout(T.S[8:1] + T.R[2:4 @ Axis.warpid] + 5 @ Axis.warpid)");
    assert_string_equal(ly_str(c, spec(c, "Cmp(3,3,3;S[512])")),
                        "T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[512:1]))");
    assert_string_equal(ly_str(c, spec(c, "Cmp(0,3,3;S[64],inner=F)")),
                        "T.ComposeLayout(0, 3, 3, T.TileLayout(T.S[64:1]), swizzle_inner=False)");
    assert_string_equal(ly_str(c, spec(c, "5")), "T.TileLayout.from_iters(offset={\"m\": 5})");
    assert_null(ly_compose(c, 3, 4, 3, true, spec(c, "S[512]")));
    assert_non_null(strstr(c->err, "atom_len >= swizzle_len"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        TEST(test_c1_c7_memory),        TEST(test_c8_c10_units_and_lanes),
        TEST(test_c11_c15_thread_fusion), TEST(test_c16_c18_replica_and_trainium),
        TEST(test_scope),               TEST(test_axis_registry),
        TEST(test_fusers),              TEST(test_splitters),
        TEST(test_equality),            TEST(test_layout_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
