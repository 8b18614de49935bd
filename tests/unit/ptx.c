/* Unit tests of the PTX instruction table (src/ir/ptx.*): authoring spellings
 * (escaped, raw, order-free, the T.ptx["..."] string form), printed forms,
 * dispatch by operand count and operand types, error wording with the nearest
 * spellings, architecture gating, and a self-check of the whole table.
 *
 * Run with an argument, the binary is also the probe tests/reference/ptx_check.py
 * uses to compare the table with the reference's (no Python is needed here):
 *   unit_ptx --dump      every entry, its slots and operand counts, one per line
 *   unit_ptx --resolve   reads "tok tok ... ; arg arg ..." lines (arg: a dtype,
 *                        "pred", or "?" for unknown), or printed forms
 *                        "= family slot|slot|... ; arg arg ...", and answers each
 *                        with "ok KEY slot|slot|..." or "err MESSAGE" */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ir/ptx.h"

#define ERRLEN 512

/* Split a dotted spelling ("ld.global.b32") into tokens, as the parser does for
 * T.ptx["..."]; the pieces live in buf. */
static int split_dots(const char *text, char *buf, size_t bufsize, const char **tokens, int max)
{
    int n = 0;
    snprintf(buf, bufsize, "%s", text);
    for (char *p = buf; p && n < max;) {
        tokens[n++] = p;
        p = strchr(p, '.');
        if (p)
            *p++ = 0;
    }
    return n;
}

/* Resolve a dotted spelling; returns the entry or -1 with err filled. */
static int resolve_text(const char *text, int noperands, IrPtxResolved *r, char *err)
{
    char buf[256];
    const char *tokens[32];
    int n = split_dots(text, buf, sizeof buf, tokens, 32);
    return ir_ptx_resolve(tokens, n, noperands, r, err, ERRLEN) ? r->entry : -1;
}

static IrPtxArg arg_of(const char *dtype)
{
    IrPtxArg a = {IR_VOID, false};
    if (strcmp(dtype, "pred") == 0)
        a.pred = true;
    else if (strcmp(dtype, "?") != 0)
        assert_true(ir_dtype_parse(dtype, strlen(dtype), &a.dtype));
    return a;
}

/* Resolve with operand types given as a space-separated list of dtypes. */
static int resolve_typed(const char *text, const char *args, IrPtxResolved *r, char *err)
{
    char buf[256], abuf[256];
    const char *tokens[32];
    IrPtxArg list[64];
    int n = split_dots(text, buf, sizeof buf, tokens, 32), nargs = 0;
    snprintf(abuf, sizeof abuf, "%s", args);
    for (char *a = strtok(abuf, " "); a; a = strtok(NULL, " "))
        list[nargs++] = arg_of(a);
    return ir_ptx_resolve_args(tokens, n, list, nargs, r, NULL, err, ERRLEN) ? r->entry : -1;
}

static void assert_slots(const IrPtxResolved *r, const char *const *want, int n)
{
    assert_int_equal(r->nslots, n);
    for (int i = 0; i < n; i++)
        assert_string_equal(r->slots[i], want[i]);
}

static void assert_mnemonic(const IrPtxResolved *r, const char *want)
{
    char buf[256];
    ir_ptx_mnemonic(r, buf, sizeof buf);
    assert_string_equal(buf, want);
}

/* ---------------------------------------------------------------- spellings */

static void test_ld_spellings(void **state)
{
    (void)state;
    static const char *const want[] = {"", "acquire", "gpu", "global", "", "", "", "", "", "b32"};
    const char *escaped[] = {"ld", "global_", "acquire", "gpu", "b32"};
    const char *reordered[] = {"ld", "acquire", "gpu", "global_", "b32"};
    char err[ERRLEN];
    IrPtxResolved r;
    assert_true(ir_ptx_resolve(escaped, 5, 2, &r, err, sizeof err));
    assert_int_equal(r.entry, IR_PTX_ld);
    assert_slots(&r, want, 10);
    assert_true(ir_ptx_resolve(reordered, 5, 2, &r, err, sizeof err));
    assert_slots(&r, want, 10);
    assert_int_equal(resolve_text("ld.acquire.gpu.global.b32", 2, &r, err), IR_PTX_ld);
    assert_slots(&r, want, 10);
    assert_mnemonic(&r, "ld.acquire.gpu.global.b32");
    assert_string_equal(ir_ptx_family_printed(r.entry), "ld");
    assert_string_equal(ir_ptx_slot_name(r.entry, 0), "mmio");
    assert_string_equal(ir_ptx_slot_name(r.entry, 9), "type");
    assert_int_equal(ir_ptx_min_operands(IR_PTX_ld), 2);
    assert_int_equal(ir_ptx_max_operands(IR_PTX_ld), 3);
}

static void test_st_and_cache_hint(void **state)
{
    (void)state;
    char err[ERRLEN];
    IrPtxResolved r;
    const char *raw[] = {"st", "weak", "shared::cta", "b32"};
    const char *esc[] = {"st", "weak", "shared__cta", "b32"};
    assert_true(ir_ptx_resolve(raw, 4, 2, &r, err, sizeof err));
    assert_int_equal(r.entry, IR_PTX_st);
    assert_mnemonic(&r, "st.weak.shared::cta.b32");
    IrPtxResolved r2;
    assert_true(ir_ptx_resolve(esc, 4, 2, &r2, err, sizeof err));
    assert_mnemonic(&r2, "st.weak.shared::cta.b32");
    /* .L2::cache_hint adds the cache-policy operand */
    assert_int_equal(resolve_text("ld.global.L2::cache_hint.v4.u32", 6, &r, err), IR_PTX_ld_vec);
    const char *hint[] = {"ld", "global_", "L2__cache_hint", "v4", "u32"};
    assert_true(ir_ptx_resolve(hint, 5, 6, &r, err, sizeof err));
    assert_int_equal(r.entry, IR_PTX_ld_vec);
    assert_int_equal(ir_ptx_noperands(&r), 6);
    assert_int_equal(resolve_text("ld.global.v4.u32", 6, &r, err), -1);
    assert_non_null(strstr(err, "expects 5 operands (d[4], addr) but 6 were given"));
}

static void test_keyword_and_dotted_families(void **state)
{
    (void)state;
    char err[ERRLEN];
    IrPtxResolved r;
    const char *and_[] = {"and_", "b32"};
    assert_true(ir_ptx_resolve(and_, 2, 3, &r, err, sizeof err));
    assert_int_equal(r.entry, IR_PTX_and);
    assert_string_equal(ir_ptx_family_printed(r.entry), "and_");
    assert_string_equal(ir_ptx_family(r.entry), "and");
    assert_int_equal(resolve_text("or.pred", 3, &r, err), IR_PTX_or);
    assert_int_equal(resolve_text("not.b32", 2, &r, err), IR_PTX_not);
    /* elect.sync: printed T.ptx.elect_sync, no slots; the dotted mnemonic works too */
    assert_int_equal(resolve_text("elect_sync", 3, &r, err), IR_PTX_elect_sync);
    assert_int_equal(r.nslots, 0);
    assert_int_equal(resolve_text("elect.sync", 3, &r, err), IR_PTX_elect_sync);
    assert_mnemonic(&r, "elect.sync");
    assert_string_equal(ir_ptx_family_printed(r.entry), "elect_sync");
    assert_int_equal(resolve_text("st.bulk.weak.shared::cta", 2, &r, err), IR_PTX_st_bulk);
    assert_int_equal(resolve_text("st_bulk.weak", 2, &r, err), IR_PTX_st_bulk);
    assert_int_equal(resolve_text("multimem.st.async.release.gpu.b32", 2, &r, err),
                     IR_PTX_multimem_st_async);
    assert_int_equal(resolve_text("multimem.st.relaxed.gpu.b32", 2, &r, err), IR_PTX_multimem_st);
}

static void test_cp_family(void **state)
{
    (void)state;
    char err[ERRLEN];
    IrPtxResolved r;
    /* TMA load: [dst], [tmap, {c0, c1}], [mbar] */
    const char *tma[] = {"cp", "async_", "bulk", "tensor", "2d", "shared__cluster", "global_",
                         "tile", "mbarrier__complete_tx__bytes"};
    assert_true(ir_ptx_resolve(tma, 9, 5, &r, err, sizeof err));
    assert_int_equal(r.entry, IR_PTX_cp_async_bulk_tensor_g2s_cluster);
    assert_mnemonic(&r, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes");
    assert_string_equal(ir_ptx_family_printed(r.entry), "cp");
    /* multicast and cache hint add the cta mask and the policy */
    assert_int_equal(resolve_text("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::"
                                  "complete_tx::bytes.multicast::cluster.cta_group::2.L2::cache_hint",
                                  8, &r, err),
                     IR_PTX_cp_async_bulk_tensor_g2s_cluster);
    assert_int_equal(resolve_text("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group", 3, &r, err),
                     IR_PTX_cp_async_bulk_tensor_s2g);
    assert_int_equal(resolve_text("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile."
                                  "bulk_group",
                                  4, &r, err),
                     IR_PTX_cp_reduce_async_bulk_tensor);
    assert_mnemonic(&r, "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group");
    assert_int_equal(resolve_text("cp.async.bulk.prefetch.tensor.2d.L2.global", 3, &r, err),
                     IR_PTX_cp_async_bulk_tensor_prefetch);
    assert_int_equal(resolve_text("cp.async.bulk.commit_group", 0, &r, err),
                     IR_PTX_cp_async_bulk_commit_group);
    assert_int_equal(resolve_text("cp.async.bulk.wait_group.read", 1, &r, err),
                     IR_PTX_cp_async_bulk_wait_group);
    assert_mnemonic(&r, "cp.async.bulk.wait_group.read");
    assert_int_equal(resolve_text("cp.async.commit_group", 0, &r, err), IR_PTX_cp_async_commit_group);
    assert_int_equal(resolve_text("cp.async.wait_all", 0, &r, err), IR_PTX_cp_async_wait_all);
    assert_int_equal(resolve_text("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
                                  4, &r, err),
                     IR_PTX_cp_async_bulk_g2s_cluster);
}

/* Same spelling, several shapes: the operand count, then the operand types decide. */
static void test_dispatch_by_operands(void **state)
{
    (void)state;
    char err[ERRLEN];
    IrPtxResolved r;
    /* mbarrier.arrive: `_, [addr]` or `_, [addr], count` */
    assert_int_equal(resolve_text("mbarrier.arrive.shared.b64", 1, &r, err),
                     IR_PTX_mbarrier_arrive_nocount);
    assert_int_equal(resolve_text("mbarrier.arrive.shared.b64", 2, &r, err), IR_PTX_mbarrier_arrive);
    /* ... or the state-returning `state, [addr]`, told apart by the types */
    assert_int_equal(resolve_typed("mbarrier.arrive.shared.b64", "handle uint32", &r, err),
                     IR_PTX_mbarrier_arrive);
    assert_int_equal(resolve_typed("mbarrier.arrive.shared.b64", "uint64 handle", &r, err),
                     IR_PTX_mbarrier_arrive_state);
    assert_int_equal(resolve_text("mbarrier.arrive.expect_tx.shared::cluster.b64", 2, &r, err),
                     IR_PTX_mbarrier_arrive_expect_tx);
    assert_int_equal(resolve_text("mbarrier.try_wait.parity.shared::cta.b64", 4, &r, err),
                     IR_PTX_mbarrier_try_wait_parity);
    assert_int_equal(resolve_text("mbarrier.try_wait.parity.shared::cta.b64", 3, &r, err),
                     IR_PTX_mbarrier_try_wait_parity_no_hint);
    /* cp.async: a byte count or a .pred ignore-src */
    assert_int_equal(resolve_text("cp.async.ca.shared.global", 3, &r, err), IR_PTX_cp_async_ca);
    assert_int_equal(resolve_typed("cp.async.cg.shared.global", "handle handle int32 uint32", &r, err),
                     IR_PTX_cp_async_cg_src_size);
    assert_int_equal(resolve_typed("cp.async.cg.shared.global", "handle handle int32 pred", &r, err),
                     IR_PTX_cp_async_cg_ignore_src);
    /* mov.b64 d, {a, b} vs mov.b64 {d0, d1}, a */
    assert_int_equal(resolve_text("mov.b64", 2, &r, err), IR_PTX_mov);
    assert_int_equal(resolve_typed("mov.b64", "uint64 uint32 uint32", &r, err), IR_PTX_mov_pack_b32x2);
    assert_int_equal(resolve_typed("mov.b64", "uint32 uint32 uint64", &r, err),
                     IR_PTX_mov_unpack_b32x2);
    assert_int_equal(resolve_typed("mov.b64", "float16 float16 float16 float16 uint64", &r, err),
                     IR_PTX_mov_unpack_b16x4);
    /* atom with a destination, or with the bit bucket `_` */
    assert_int_equal(resolve_text("atom.global.add.u32", 3, &r, err), IR_PTX_atom);
    assert_int_equal(resolve_text("atom.global.add.u32", 2, &r, err), IR_PTX_atom_bitbucket);
}

static void test_ambiguous_without_types(void **state)
{
    (void)state;
    char err[ERRLEN];
    IrPtxResolved r;
    /* tcgen05.mma ss and ts both take 9 operands and print differently */
    assert_int_equal(resolve_text("tcgen05.mma.cta_group::1.kind::f16", 9, &r, err), -1);
    assert_non_null(strstr(err, "ambiguous between tcgen05_mma_ss and tcgen05_mma_ts"));
    const char *ss = "uint32 uint64 uint64 uint32 uint32 uint32 uint32 uint32 pred";
    const char *ts = "uint32 uint32 uint64 uint32 uint32 uint32 uint32 uint32 pred";
    assert_int_equal(resolve_typed("tcgen05.mma.cta_group::1.kind::f16", ss, &r, err),
                     IR_PTX_tcgen05_mma_ss);
    assert_int_equal(r.nslots, 4);
    assert_int_equal(resolve_typed("tcgen05.mma.cta_group::1.kind::f16", ts, &r, err),
                     IR_PTX_tcgen05_mma_ts);
    assert_int_equal(r.nslots, 3);
    /* cta_group::2 doubles the disable-output-lane mask */
    assert_int_equal(resolve_text("tcgen05.mma.cta_group::2.kind::tf32.collector::a::fill", 13, &r, err),
                     IR_PTX_tcgen05_mma_ss);
}

static void test_mma_and_friends(void **state)
{
    (void)state;
    char err[ERRLEN];
    IrPtxResolved r;
    /* m16n8k16 f16 -> f32: d[4], a[4], b[2], c[4] */
    assert_int_equal(resolve_text("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 14, &r, err),
                     IR_PTX_mma);
    /* m16n8k32 fp8: d[4], a[4], b[2], c[4] */
    assert_int_equal(resolve_text("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32", 14, &r, err),
                     IR_PTX_mma);
    /* m16n8k8 with f16 accumulate: d[2], a[2], b[1], c[2] */
    assert_int_equal(resolve_text("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16", 7, &r, err),
                     IR_PTX_mma_f16acc);
    assert_int_equal(resolve_text("mma.sync.aligned.m16n8k4.row.col.f32.f16.f16.f32", 10, &r, err), -1);
    assert_non_null(strstr(err, "does not go with"));
    /* wgmma m64n128k16 f16 -> f32 ss: 64 accumulators + a, b, scale_d + 4 immediates */
    assert_int_equal(resolve_text("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16", 71, &r, err),
                     IR_PTX_wgmma_f16_ss);
    assert_int_equal(resolve_text("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16", 73, &r, err),
                     IR_PTX_wgmma_bf16_rs);
    assert_int_equal(resolve_text("wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2", 37, &r, err),
                     IR_PTX_wgmma_fp8_ss);
    assert_int_equal(resolve_text("wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32", 37, &r, err),
                     IR_PTX_wgmma_tf32_ss);
    assert_int_equal(resolve_text("wgmma.fence.sync.aligned", 0, &r, err), IR_PTX_wgmma_fence);
    assert_int_equal(resolve_text("wgmma.commit_group.sync.aligned", 0, &r, err),
                     IR_PTX_wgmma_commit_group);
    assert_int_equal(resolve_text("wgmma.wait_group.sync.aligned", 1, &r, err), IR_PTX_wgmma_wait_group);
    assert_int_equal(resolve_text("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", 5, &r, err),
                     IR_PTX_ldmatrix);
    assert_int_equal(resolve_text("stmatrix.sync.aligned.m8n8.x2.shared.b16", 3, &r, err), IR_PTX_stmatrix);
    assert_int_equal(resolve_text("setmaxnreg.inc.sync.aligned.u32", 1, &r, err), IR_PTX_setmaxnreg);
    assert_int_equal(resolve_text("setmaxnreg.dec.sync.aligned.u32", 1, &r, err), IR_PTX_setmaxnreg);
}

static void test_tcgen05(void **state)
{
    (void)state;
    char err[ERRLEN];
    IrPtxResolved r;
    assert_int_equal(resolve_text("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32", 2, &r, err),
                     IR_PTX_tcgen05_alloc);
    assert_int_equal(resolve_text("tcgen05.dealloc.cta_group::2.sync.aligned.b32", 2, &r, err),
                     IR_PTX_tcgen05_dealloc);
    assert_int_equal(resolve_text("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned", 0, &r, err),
                     IR_PTX_tcgen05_relinquish_alloc_permit);
    /* 16x64b.x4: 4 registers; 16x256b.x2: 8; 32x32b.x128: 128 */
    assert_int_equal(resolve_text("tcgen05.ld.sync.aligned.16x64b.x4.b32", 5, &r, err), IR_PTX_tcgen05_ld);
    assert_int_equal(resolve_text("tcgen05.ld.sync.aligned.16x256b.x2.b32", 9, &r, err), IR_PTX_tcgen05_ld);
    assert_int_equal(resolve_text("tcgen05.st.sync.aligned.32x32b.x128.b32", 129, &r, err),
                     IR_PTX_tcgen05_st);
    assert_int_equal(resolve_text("tcgen05.ld.sync.aligned.16x256b.x64.b32", 257, &r, err), -1);
    assert_int_equal(ir_ptx_max_operands(IR_PTX_tcgen05_ld), 129);
    assert_int_equal(resolve_text("tcgen05.wait::ld.sync.aligned", 0, &r, err), IR_PTX_tcgen05_wait);
    const char *wait[] = {"tcgen05", "wait__st", "sync", "aligned"};
    assert_true(ir_ptx_resolve(wait, 4, 0, &r, err, sizeof err));
    assert_mnemonic(&r, "tcgen05.wait::st.sync.aligned");
    assert_int_equal(resolve_text("tcgen05.fence::before_thread_sync", 0, &r, err), IR_PTX_tcgen05_fence);
    assert_int_equal(resolve_text("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64",
                                  1, &r, err),
                     IR_PTX_tcgen05_commit);
    assert_int_equal(resolve_text("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster."
                                  "multicast::cluster.b64",
                                  2, &r, err),
                     IR_PTX_tcgen05_commit_multicast);
    assert_int_equal(resolve_text("tcgen05.cp.cta_group::1.128x256b", 2, &r, err), IR_PTX_tcgen05_cp);
    /* the decompression qualifiers as a pair; each shape with its multicast */
    assert_int_equal(resolve_text("tcgen05.cp.cta_group::2.128x128b.b8x16.b6x16_p32", 2, &r, err),
                     IR_PTX_tcgen05_cp);
    assert_int_equal(resolve_text("tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b4x16_p64", 2, &r,
                                  err),
                     IR_PTX_tcgen05_cp);
    assert_int_equal(resolve_text("tcgen05.cp.cta_group::1.128x256b.b8x16", 2, &r, err), -1);
    assert_non_null(strstr(err, ".dst_fmt b8x16 does not go with no .src_fmt"));
    assert_int_equal(resolve_text("tcgen05.cp.cta_group::1.32x128b", 2, &r, err), -1);
    assert_non_null(strstr(err, ".shape 32x128b does not go with no .multicast"));
    assert_int_equal(resolve_text("tcgen05.cp.cta_group::1.128x128b.warpx4", 2, &r, err), -1);
}

static void test_misc_families(void **state)
{
    (void)state;
    char err[ERRLEN];
    IrPtxResolved r;
    assert_int_equal(resolve_text("fence.proxy.async.shared::cta", 0, &r, err), IR_PTX_fence_proxy);
    const char *fence[] = {"fence", "proxy", "async_", "shared__cta"};
    assert_true(ir_ptx_resolve(fence, 4, 0, &r, err, sizeof err));
    assert_mnemonic(&r, "fence.proxy.async.shared::cta");
    assert_int_equal(resolve_text("fence.mbarrier_init.release.cluster", 0, &r, err),
                     IR_PTX_fence_mbarrier_init);
    assert_int_equal(resolve_text("fence.acq_rel.gpu", 0, &r, err), IR_PTX_fence);
    assert_int_equal(resolve_text("fence.proxy.tensormap::generic.release.gpu", 0, &r, err),
                     IR_PTX_fence_proxy_tensormap_release);
    assert_int_equal(resolve_text("prefetch.tensormap", 1, &r, err), IR_PTX_prefetch);
    assert_int_equal(resolve_text("cvt.rn.satfinite.e4m3x2.f32", 3, &r, err), IR_PTX_cvt_f8x2_f32);
    assert_int_equal(resolve_text("cvt.rn.f16x2.e4m3x2", 2, &r, err), IR_PTX_cvt_f16x2_f8x2);
    assert_int_equal(resolve_text("cvt.rn.bf16x2.f32", 3, &r, err), IR_PTX_cvt_bf16x2_f32);
    /* both directions take these tokens; PTX order (destination first) decides */
    assert_int_equal(resolve_text("cvt.rn.satfinite.e4m3x2.bf16x2", 2, &r, err),
                     IR_PTX_cvt_f8x2_fp16x2);
    assert_int_equal(resolve_text("cvt.rn.satfinite.bf16x2.e4m3x2", 2, &r, err),
                     IR_PTX_cvt_bf16x2_f8x2);
    /* the first open slot listing a token takes it: dtype before atype */
    assert_int_equal(resolve_text("cvt.rn.f16.f32", 2, &r, err), IR_PTX_cvt);
    assert_string_equal(r.slots[5], "f16");
    assert_string_equal(r.slots[6], "f32");
    assert_int_equal(resolve_text("lop3.b32", 5, &r, err), IR_PTX_lop3);
    assert_int_equal(resolve_text("shf.l.wrap.b32", 4, &r, err), IR_PTX_shf);
    assert_int_equal(resolve_text("bar.sync", 1, &r, err), IR_PTX_bar_sync);
    assert_int_equal(resolve_text("bar.sync", 2, &r, err), IR_PTX_bar_sync_count);
    assert_int_equal(resolve_text("barrier.cluster.arrive.release.aligned", 0, &r, err),
                     IR_PTX_barrier_cluster_arrive);
    assert_int_equal(resolve_text("red.global.add.f32", 2, &r, err), IR_PTX_red);
    assert_int_equal(resolve_text("griddepcontrol.wait", 0, &r, err), IR_PTX_griddepcontrol);
    assert_int_equal(resolve_text("mapa.shared::cluster.u32", 3, &r, err), IR_PTX_mapa_u32);
    assert_int_equal(resolve_text("getctarank.shared::cluster.u32", 2, &r, err), IR_PTX_getctarank);
    assert_int_equal(resolve_text("clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128",
                                  2, &r, err),
                     IR_PTX_clusterlaunchcontrol_query_cancel_get_first_ctaid);
}

/* ---------------------------------------------------------------- printed form */

static void test_printed_form(void **state)
{
    (void)state;
    char err[ERRLEN];
    const char *ld[] = {"", "acquire", "gpu", "global", "", "", "", "", "", "b32"};
    assert_int_equal(ir_ptx_resolve_printed("ld", ld, 10, 2, err, sizeof err), IR_PTX_ld);
    assert_int_equal(ir_ptx_resolve_printed("ld", ld, 10, 3, err, sizeof err), -1);
    assert_non_null(strstr(err, "takes 3 operands"));
    assert_int_equal(ir_ptx_resolve_printed("ld", ld, 9, 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "no T.ptx.ld form takes the modifiers"));
    const char *mov[] = {"b32"};
    assert_int_equal(ir_ptx_resolve_printed("mov", mov, 1, 2, err, sizeof err), IR_PTX_mov);
    assert_int_equal(ir_ptx_resolve_printed("and_", mov, 1, 3, err, sizeof err), IR_PTX_and);
    assert_int_equal(ir_ptx_resolve_printed("elect_sync", NULL, 0, 3, err, sizeof err),
                     IR_PTX_elect_sync);
    assert_int_equal(ir_ptx_resolve_printed("nope", mov, 1, 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown PTX instruction family T.ptx.nope"));
    /* mbarrier.arrive vs the state-returning form: same print, types decide */
    const char *arrive[] = {"arrive", "", "", "shared", "b64"};
    IrPtxArg state_first[] = {{IR_UINT64, false}, {IR_HANDLE, false}};
    assert_int_equal(ir_ptx_resolve_printed("mbarrier", arrive, 5, 2, err, sizeof err),
                     IR_PTX_mbarrier_arrive);
    assert_int_equal(ir_ptx_resolve_printed_args("mbarrier", arrive, 5, state_first, 2, err, sizeof err),
                     IR_PTX_mbarrier_arrive_state);
    /* a required slot printed empty does not fit */
    const char *bad[] = {"", "", "", "shared", "b64"};
    assert_int_equal(ir_ptx_resolve_printed("mbarrier", bad, 5, 2, err, sizeof err), -1);
}

/* ---------------------------------------------------------------- errors */

static void test_errors(void **state)
{
    (void)state;
    char err[ERRLEN];
    IrPtxResolved r;
    int bad;
    /* an unknown family names the nearest one */
    const char *mbarier[] = {"mbarier", "init", "shared__cta", "b64"};
    assert_false(ir_ptx_resolve_args(mbarier, 4, NULL, 2, &r, &bad, err, sizeof err));
    assert_string_equal(err, "unknown PTX instruction 'mbarier'; did you mean 'mbarrier'?");
    assert_int_equal(bad, 0);
    assert_int_equal(resolve_text("fense.proxy.async.shared::cta", 0, &r, err), -1);
    assert_string_equal(err, "unknown PTX instruction 'fense'; did you mean 'fence'?");
    assert_int_equal(resolve_text("lds.global.b32", 2, &r, err), -1);
    assert_string_equal(err, "unknown PTX instruction 'lds'; did you mean 'ld'?");
    assert_int_equal(resolve_text("zzzzzzzz", 2, &r, err), -1);
    assert_string_equal(err, "unknown PTX instruction 'zzzzzzzz'");
    /* an unknown modifier names the nearest choice of an open slot */
    const char *acquier[] = {"ld", "global_", "acquier", "gpu", "b32"};
    assert_false(ir_ptx_resolve_args(acquier, 5, NULL, 2, &r, &bad, err, sizeof err));
    assert_string_equal(err, "'acquier' is not a modifier of PTX instruction 'ld'; did you mean 'acquire'?");
    assert_int_equal(bad, 2);
    assert_int_equal(resolve_text("ld.globl.b32", 2, &r, err), -1);
    assert_string_equal(err, "'globl' is not a modifier of PTX instruction 'ld'; did you mean 'global'?");
    assert_int_equal(resolve_text("mbarrier.arive.shared.b64", 2, &r, err), -1);
    assert_non_null(strstr(err, "did you mean 'arrive'?"));
    assert_int_equal(resolve_text("ld.global.zzzzzz.b32", 2, &r, err), -1);
    assert_non_null(strstr(err, "'zzzzzz' is not a modifier of PTX instruction 'ld'; open modifier "
                            "slots: .mmio, .sem, .scope"));
    /* a token both slots list goes to the first; a second one has no slot left */
    assert_int_equal(resolve_text("ld.global.global.b32", 2, &r, err), -1);
    assert_non_null(strstr(err, "'global' is not a modifier of PTX instruction 'ld'"));
    /* a required modifier left out */
    assert_int_equal(resolve_text("ld.global", 2, &r, err), -1);
    assert_non_null(strstr(err, "incomplete PTX instruction 'ld.global': missing the .type modifier"));
    /* the operand count */
    const char *init[] = {"mbarrier", "init", "shared__cta", "b64"};
    assert_false(ir_ptx_resolve_args(init, 4, NULL, 1, &r, &bad, err, sizeof err));
    assert_string_equal(err, "PTX instruction 'mbarrier.init.shared::cta.b64' expects 2 operands "
                             "(addr, count) but 1 was given");
    assert_int_equal(bad, -1);
    assert_int_equal(resolve_text("mbarrier.arrive.shared.b64", 5, &r, err), -1);
    assert_non_null(strstr(err, "expects 2 operands (addr, count) or 1 operand (addr) or 3 operands "
                                "(state, addr, count) but 5 were given"));
    /* malformed spellings */
    const char *empty[] = {"ld", ""};
    assert_false(ir_ptx_resolve_args(empty, 2, NULL, 2, &r, &bad, err, sizeof err));
    assert_int_equal(bad, 1);
    assert_false(ir_ptx_resolve(empty, 0, 2, &r, err, sizeof err));
    /* a tiny buffer is truncated, never overrun */
    char tiny[8];
    const char *globl[] = {"ld", "globl", "b32"};
    assert_false(ir_ptx_resolve(globl, 3, 2, &r, tiny, sizeof tiny));
    assert_true(strlen(tiny) < sizeof tiny);
}

/* ---------------------------------------------------------------- arch */

static void test_available(void **state)
{
    (void)state;
    char err[ERRLEN];
    IrPtxResolved r;
    assert_int_equal(resolve_text("ld.shared::cluster.b32", 2, &r, err), IR_PTX_ld);
    assert_false(ir_ptx_available(&r, 80));
    assert_true(ir_ptx_available(&r, 90));
    assert_int_equal(resolve_text("ld.global.b32", 2, &r, err), IR_PTX_ld);
    assert_true(ir_ptx_available(&r, 80));
    assert_int_equal(resolve_text("wgmma.fence.sync.aligned", 0, &r, err), IR_PTX_wgmma_fence);
    assert_false(ir_ptx_available(&r, 80));
    assert_true(ir_ptx_available(&r, 90));
    assert_false(ir_ptx_available(&r, 100));
    assert_int_equal(resolve_text("tcgen05.fence::after_thread_sync", 0, &r, err), IR_PTX_tcgen05_fence);
    assert_false(ir_ptx_available(&r, 90));
    assert_true(ir_ptx_available(&r, 100));
    assert_int_equal(ir_ptx_min_sm(IR_PTX_cp_async_ca), 80);
    assert_int_equal(ir_ptx_min_sm(IR_PTX_setmaxnreg), 90);
    assert_int_equal(ir_ptx_min_sm(IR_PTX_tcgen05_mma_ss), 100);
    assert_int_equal(resolve_text("cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::"
                                  "bytes.cta_group::1",
                                  5, &r, err),
                     IR_PTX_cp_async_bulk_tensor_g2s_cta);
    assert_false(ir_ptx_available(&r, 90));
    assert_true(ir_ptx_available(&r, 100));
}

static void test_operands(void **state)
{
    (void)state;
    char err[ERRLEN];
    IrPtxResolved r;
    IrPtxOperand ops[8];
    assert_int_equal(resolve_text("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
                                  "complete_tx::bytes.L2::cache_hint",
                                  6, &r, err),
                     IR_PTX_cp_async_bulk_tensor_g2s_cluster);
    assert_int_equal(ir_ptx_operands(&r, ops, 8), 6);
    assert_string_equal(ops[1].name, "tmap");
    assert_int_equal(ops[1].group, '[');
    assert_int_equal(ops[2].lanes, 2);
    assert_int_equal(ops[2].first_arg, 2);
    assert_string_equal(ops[2].type, "s32");
    assert_int_equal(ops[4].lanes, 0); /* no multicast: no cta mask */
    assert_int_equal(ops[5].lanes, 1);
    assert_string_equal(ops[5].type, "u64");
    assert_true(ops[0].offset_ok);
    assert_false(ops[1].offset_ok);
    assert_int_equal(resolve_text("mbarrier.arrive.shared.b64", 2, &r, err), IR_PTX_mbarrier_arrive);
    assert_int_equal(ir_ptx_operands(&r, ops, 8), 3);
    assert_int_equal(ops[0].kind, IR_PTX_OPND_TEXT);
    assert_string_equal(ops[0].type, "_");
    assert_int_equal(ops[1].first_arg, 0);
    assert_string_equal(ops[1].space, "shared");
    assert_true(ir_ptx_has_dst(IR_PTX_ld));
    assert_false(ir_ptx_has_dst(IR_PTX_st));
    assert_true(ir_dtype_eq(ir_ptx_result_dtype(IR_PTX_elect_sync), IR_VOID));
    assert_int_equal(resolve_text("mul.wide.s32", 3, &r, err), IR_PTX_mul_wide);
    assert_int_equal(ir_ptx_operands(&r, ops, 8), 3);
    assert_string_equal(ops[0].type, "s64");
}

/* ---------------------------------------------------------------- table self-check */

/* The width of a register of PTX type t. */
static int type_bits(const char *t)
{
    static const struct {
        const char *type;
        int bits;
    } widths[] = {{"b8", 8},       {"u8", 8},      {"s8", 8},      {"e2m1x2", 8},  {"b16", 16},
                  {"u16", 16},     {"s16", 16},    {"f16", 16},    {"bf16", 16},   {"e4m3x2", 16},
                  {"e5m2x2", 16},  {"e2m3x2", 16}, {"e3m2x2", 16}, {"ue8m0x2", 16}, {"s2f6x2", 16},
                  {"e2m1x4", 16},  {"b64", 64},    {"u64", 64},    {"s64", 64},    {"f64", 64},
                  {"f32x2", 64},   {"b128", 128}};
    for (size_t i = 0; i < TX_ARRAY_LEN(widths); i++)
        if (strcmp(t, widths[i].type) == 0)
            return widths[i].bits;
    return 32;
}

/* The canonical operand types of r, what a well-typed caller passes: an
 * unsigned integer of each register's width (two u64 lanes for 128 bits), a
 * tagged .pred input, a handle for an address (a uint32 in tensor memory). */
static int canonical_args(const IrPtxResolved *r, IrPtxArg *args, int max)
{
    IrPtxOperand ops[32];
    int nops = ir_ptx_operands(r, ops, 32), n = 0;
    assert_true(nops <= 32);
    for (int i = 0; i < nops; i++) {
        IrPtxArg a = {IR_INT32, false};
        if (ops[i].kind == IR_PTX_OPND_REG && strcmp(ops[i].type, "pred") == 0) {
            a = ops[i].rw == 'r' ? (IrPtxArg){IR_VOID, true} : (IrPtxArg){IR_UINT32, false};
        } else if (ops[i].kind == IR_PTX_OPND_REG) {
            int bits = type_bits(ops[i].type);
            a.dtype = IR_UINT32;
            a.dtype.bits = (uint8_t)(bits == 128 ? 64 : bits);
            a.dtype.lanes = bits == 128 ? 2 : 1;
        } else if (ops[i].kind == IR_PTX_OPND_ADDR || ops[i].kind == IR_PTX_OPND_PTR) {
            a.dtype = strcmp(ops[i].space, "tmem") == 0 ? IR_UINT32 : IR_HANDLE;
        }
        for (int lane = 0; lane < ops[i].lanes && n < max; lane++)
            args[n++] = a;
    }
    return n;
}

/* The spelling of own (family, then every written slot), as tokens. */
static int spell(const IrPtxResolved *own, const char **tokens)
{
    int n = 0;
    tokens[n++] = ir_ptx_family_printed(own->entry);
    for (int i = 0; i < own->nslots; i++)
        if (own->slots[i][0])
            tokens[n++] = own->slots[i];
    return n;
}

/* The first valid instance of e with its optional slots omitted, counting the
 * required slots' choices like an odometer. */
static bool canonical_instance(int e, IrPtxResolved *own)
{
    int pick[IR_PTX_MAX_SLOTS] = {0};
    own->entry = e;
    own->nslots = ir_ptx_nslots(e);
    for (;;) {
        for (int i = 0; i < own->nslots; i++)
            own->slots[i] = ir_ptx_slot_optional(e, i) ? "" : ir_ptx_slot_choices(e, i)[pick[i]];
        if (ir_ptx_valid(own, NULL, 0))
            return true;
        int i = 0;
        for (; i < own->nslots; i++) {
            if (ir_ptx_slot_optional(e, i))
                continue;
            if (ir_ptx_slot_choices(e, i)[++pick[i]])
                break;
            pick[i] = 0;
        }
        if (i == own->nslots)
            return false;
    }
}

/* Resolves the spelling of own with own's operand types and checks that it
 * comes back as own's entry with own's slots. */
static void check_spelling(const IrPtxResolved *own)
{
    char err[ERRLEN];
    const char *tokens[32];
    IrPtxResolved r;
    IrPtxArg args[600];
    int ntok = spell(own, tokens), nargs = canonical_args(own, args, 600);
    if (!ir_ptx_resolve_args(tokens, ntok, args, nargs, &r, NULL, err, sizeof err))
        fail_msg("%s: its own spelling fails: %s", ir_ptx_key(own->entry), err);
    if (r.entry != own->entry)
        fail_msg("%s: its own spelling with its own operand types resolves to %s",
                 ir_ptx_key(own->entry), ir_ptx_key(r.entry));
    for (int i = 0; i < own->nslots; i++)
        if (strcmp(r.slots[i], own->slots[i]) != 0)
            fail_msg("%s: slot %s comes back as '%s', not '%s'", ir_ptx_key(own->entry),
                     ir_ptx_slot_name(own->entry, i), r.slots[i], own->slots[i]);
}

/* Every entry comes back from its own spelling with its own operand types, and
 * so does every written form of each optional slot: no entry is shadowed by
 * another one. */
/* PTX_UNIFORM: weak loads from shared and global memory and the
 * clusterlaunchcontrol decode have results uniform where their operands are;
 * acquire, volatile, mmio, .local and generic loads and the rest do not. */
static void test_uniform_results(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int noperands;
        bool uniform;
    } cases[] = {
        {"ld.shared.b128", 2, true},          {"ld.weak.shared::cta.u32", 2, true},
        {"ld.global.nc.v4.u32", 5, true},    
        {"ldu.global.u32", 2, true},          {"ld.acquire.cta.shared.b128", 2, true},
        {"ld.acquire.cta.shared::cta.b128", 2, true}, {"ld.acquire.cta.shared.u32", 2, false},
        {"ld.acquire.gpu.shared.b128", 2, false}, {"ld.acquire.cta.global.b128", 2, false},
        {"ld.relaxed.cta.shared.b128", 2, false},
        {"ld.relaxed.gpu.global.u32", 2, false}, {"ld.volatile.shared.u32", 2, false},
        {"ld.mmio.relaxed.sys.global.u32", 2, false}, {"ld.local.u32", 2, false},
        {"ld.u32", 2, false},                 {"mov.u32", 2, false},
        {"clusterlaunchcontrol.query_cancel.is_canceled.pred.b128", 2, true},
        {"clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128", 2, true},
        {"clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128", 5, true},
        {"clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128",
         2, false},
    };
    char err[ERRLEN];
    IrPtxResolved r;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (resolve_text(cases[i].text, cases[i].noperands, &r, err) < 0)
            fail_msg("%s: %s", cases[i].text, err);
        if (ir_ptx_uniform_result(&r) != cases[i].uniform)
            fail_msg("%s: uniform result %d, expected %d", cases[i].text, !cases[i].uniform,
                     cases[i].uniform);
    }
}

static void test_table_self_check(void **state)
{
    (void)state;
    assert_true(ir_ptx_count() >= 300);
    for (int e = 0; e < ir_ptx_count(); e++) {
        IrPtxResolved own;
        if (!canonical_instance(e, &own))
            fail_msg("%s: no valid instance", ir_ptx_key(e));
        check_spelling(&own);
        for (int s = 0; s < own.nslots; s++) {
            if (!ir_ptx_slot_optional(e, s))
                continue;
            for (int k = 0; ir_ptx_slot_choices(e, s)[k]; k++) {
                own.slots[s] = ir_ptx_slot_choices(e, s)[k];
                if (ir_ptx_valid(&own, NULL, 0))
                    check_spelling(&own);
            }
            own.slots[s] = "";
        }
        assert_true(ir_ptx_min_operands(e) <= ir_ptx_max_operands(e));
    }
}

/* Table invariants the engine relies on. */
static void test_table_invariants(void **state)
{
    (void)state;
    static const char *const keywords[] = {"and", "or", "not", "in", "is", "if", "for", "def",
                                           "global", "async", "await", "with", "as", "del",
                                           "pass", "try", "from", "import", "class", "return"};
    for (int e = 0; e < ir_ptx_count(); e++) {
        int family = 0;
        for (int f = 0; f < ir_ptx_count(); f++)
            family += strcmp(ir_ptx_family_printed(f), ir_ptx_family_printed(e)) == 0;
        assert_true(family <= 64);
        assert_true(ir_ptx_nslots(e) <= IR_PTX_MAX_SLOTS);
        /* the printed family is the mnemonic with '.' -> '_' and a keyword escaped */
        char want[64];
        snprintf(want, sizeof want, "%s", ir_ptx_family(e));
        for (char *p = want; *p; p++)
            *p = *p == '.' ? '_' : *p;
        for (size_t k = 0; k < TX_ARRAY_LEN(keywords); k++)
            if (strcmp(want, keywords[k]) == 0)
                strcat(want, "_");
        assert_string_equal(ir_ptx_family_printed(e), want);
        /* slot names are distinct */
        for (int i = 0; i < ir_ptx_nslots(e); i++)
            for (int j = 0; j < i; j++)
                assert_string_not_equal(ir_ptx_slot_name(e, i), ir_ptx_slot_name(e, j));
    }
}

/* ---------------------------------------------------------------- probe mode */

static void dump_table(void)
{
    for (int e = 0; e < ir_ptx_count(); e++) {
        printf("entry %s %s %s %d %d %d\n", ir_ptx_key(e), ir_ptx_family(e), ir_ptx_family_printed(e),
               ir_ptx_min_sm(e), ir_ptx_min_operands(e), ir_ptx_max_operands(e));
        for (int s = 0; s < ir_ptx_nslots(e); s++) {
            printf("slot %s %s", ir_ptx_slot_name(e, s), ir_ptx_slot_optional(e, s) ? "opt" : "req");
            for (const char *const *c = ir_ptx_slot_choices(e, s); *c; c++)
                printf(" %s", *c);
            printf("\n");
        }
    }
}

/* Parse the arguments after ';' of a probe line. */
static int probe_args(char *text, IrPtxArg *args, int max)
{
    int n = 0;
    for (char *a = text ? strtok(text, " \n") : NULL; a && n < max; a = strtok(NULL, " \n")) {
        args[n] = (IrPtxArg){IR_VOID, strcmp(a, "pred") == 0};
        if (strcmp(a, "pred") != 0 && strcmp(a, "?") != 0 &&
            !ir_dtype_parse(a, strlen(a), &args[n].dtype))
            args[n].dtype = IR_VOID;
        n++;
    }
    return n;
}

static void probe_answer(bool ok, const IrPtxResolved *r, const char *err)
{
    if (!ok) {
        printf("err %s\n", err);
        return;
    }
    printf("ok %s ", ir_ptx_key(r->entry));
    for (int i = 0; i < r->nslots; i++)
        printf("%s%s", i ? "|" : "", r->slots[i]);
    printf("\n");
}

/* "= family slot|slot|... ; args": the printed form. */
static void probe_printed(char *line)
{
    static IrPtxArg args[1024];
    const char *slots[IR_PTX_MAX_SLOTS + 1];
    char *semi = strchr(line, ';');
    if (semi)
        *semi++ = 0;
    char *family = strtok(line + 1, " \n"), *list = strtok(NULL, " \n");
    int nslots = 0, nargs = 0;
    for (char *p = list; p && nslots <= IR_PTX_MAX_SLOTS;) {
        slots[nslots++] = p;
        p = strchr(p, '|');
        if (p)
            *p++ = 0;
    }
    nargs = probe_args(semi, args, 1024);
    char err[ERRLEN];
    IrPtxResolved r = {0};
    int e = family ? ir_ptx_resolve_printed_args(family, slots, nslots, args, nargs, err, sizeof err) : -1;
    r.entry = e;
    r.nslots = nslots;
    for (int i = 0; i < nslots && i < IR_PTX_MAX_SLOTS; i++)
        r.slots[i] = slots[i];
    probe_answer(e >= 0, &r, err);
}

/* One probe line: "tok tok ... ; arg arg ..." (no ';': the operand count is unknown). */
static void probe_line(char *line)
{
    static IrPtxArg args[1024];
    const char *tokens[64];
    int ntok = 0;
    if (line[0] == '=') {
        probe_printed(line);
        return;
    }
    char *semi = strchr(line, ';');
    if (semi)
        *semi++ = 0;
    for (char *t = strtok(line, " \n"); t && ntok < 64; t = strtok(NULL, " \n"))
        tokens[ntok++] = t;
    int nargs = probe_args(semi, args, 1024);
    char err[ERRLEN];
    IrPtxResolved r;
    bool ok = semi ? ir_ptx_resolve_args(tokens, ntok, args, nargs, &r, NULL, err, sizeof err)
                   : ir_ptx_resolve(tokens, ntok, -1, &r, err, sizeof err);
    probe_answer(ok, &r, err);
}

static int probe(const char *mode)
{
    if (strcmp(mode, "--dump") == 0) {
        dump_table();
        return 0;
    }
    if (strcmp(mode, "--resolve") != 0) {
        fprintf(stderr, "usage: unit_ptx [--dump | --resolve]\n");
        return 2;
    }
    char line[8192];
    while (fgets(line, sizeof line, stdin)) {
        probe_line(line);
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return probe(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ld_spellings),
        cmocka_unit_test(test_st_and_cache_hint),
        cmocka_unit_test(test_keyword_and_dotted_families),
        cmocka_unit_test(test_cp_family),
        cmocka_unit_test(test_dispatch_by_operands),
        cmocka_unit_test(test_ambiguous_without_types),
        cmocka_unit_test(test_mma_and_friends),
        cmocka_unit_test(test_tcgen05),
        cmocka_unit_test(test_misc_families),
        cmocka_unit_test(test_printed_form),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_available),
        cmocka_unit_test(test_operands),
        cmocka_unit_test(test_uniform_results),
        cmocka_unit_test(test_table_self_check),
        cmocka_unit_test(test_table_invariants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
