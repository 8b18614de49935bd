/* Unit tests of the verifier on parsed scripts: kernels written in TIRx script
 * verify cleanly, and the errors only the verifier can see (launch
 * configuration, TMA descriptor limits) are reported at the right line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ir/visit.h"
#include "script/script.h"

static IrModule *parse(const char *text)
{
    IrModule *m = sc_parse(text, strlen(text), "t.tirx", NULL, 0);
    for (int i = 0; i < m->diags.list.len; i++)
        print_message("parse: %s\n", m->diags.list.items[i].msg);
    assert_int_equal(m->diags.nerrors, 0);
    return m;
}

static void expect_clean(const char *text)
{
    IrModule *m = parse(text);
    bool ok = ir_verify(m);
    for (int i = 0; i < m->diags.list.len; i++)
        print_message("verify: %s\n", m->diags.list.items[i].msg);
    assert_true(ok);
    ir_module_free(m);
}

/* One error containing msg, at line `line`. */
static void expect_error(const char *text, const char *msg, int line)
{
    IrModule *m = parse(text);
    assert_false(ir_verify(m));
    const TxDiag *d = &m->diags.list.items[0];
    for (int i = 0; i < m->diags.list.len; i++)
        print_message("verify: %s\n", m->diags.list.items[i].msg);
    assert_int_equal(m->diags.nerrors, 1);
    assert_non_null(strstr(d->msg, msg));
    int l = 0, c = 0;
    assert_non_null(d->span.src);
    tx_source_linecol(d->span.src, d->span.begin, &l, &c);
    assert_int_equal(l, line);
    ir_module_free(m);
}

static void test_clean_kernels(void **state)
{
    (void)state;
    expect_clean(
        "@T.prim_func\n"
        "def main(A: T.Buffer((128, 128), \"float16\"), B: T.Buffer((128, 64), \"float16\"),"
        " C: T.Buffer((128, 64), \"float32\")):\n"
        "    T.device_entry()\n"
        "    bx, by, bz = T.cta_id([1, 1, 1])\n"
        "    warp_id = T.warp_id([4])\n"
        "    lane_id = T.lane_id([32])\n"
        "    A_smem = T.alloc_shared((128, 32), \"float16\")\n"
        "    B_smem = T.alloc_shared((32, 64), \"float16\")\n"
        "    C_local = T.alloc_local((128, 64))\n"
        "    for k in range(4):\n"
        "        T.cta.copy(A_smem[0:128, 0:32], A[0:128, k * 32:k * 32 + 32])\n"
        "        T.cta.copy(B_smem[0:32, 0:64], B[k * 32:k * 32 + 32, 0:64])\n"
        "        T.cta.gemm(C_local[0:128, 0:64], A_smem[0:128, 0:32], B_smem[0:32, 0:64],"
        " C_local[0:128, 0:64], False, False, T.float32(1.0), T.float32(0.0))\n");
    expect_clean(
        "@T.prim_func\n"
        "def scale(A: T.Buffer((\"n\",), \"float32\"), n: T.int32):\n"
        "    for i in range(n):\n"
        "        t: T.let = A[i] * T.float32(2.0)\n"
        "        if t > T.float32(0.0):\n"
        "            A[i] = t\n"
        "        else:\n"
        "            A[i] = T.float32(0.0)\n");
    expect_clean(
        "@T.prim_func\n"
        "def sym(A: T.Buffer((\"m\", 4), \"int32\")):\n"
        "    m = T.int32()\n"
        "    acc: T.int32 = 0\n"
        "    for i in range(m):\n"
        "        acc = acc + A[i, 0]\n"
        "    A[0, 0] = acc\n");
}

static void test_launch_errors(void **state)
{
    (void)state;
    expect_error("@T.prim_func\n"
                 "def f(A: T.Buffer((64,), \"int32\")):\n"
                 "    T.device_entry()\n"
                 "    warp = T.warp_id([4])\n"
                 "    lane = T.lane_id([16])\n"
                 "    A[warp * 16 + lane] = lane\n",
                 "the extent of T.lane_id must be 32, not 16", 5);
    expect_error("@T.prim_func\n"
                 "def f(A: T.Buffer((256,), \"int32\")):\n"
                 "    T.device_entry()\n"
                 "    warp = T.warp_id([4])\n"
                 "    lane = T.lane_id([32])\n"
                 "    tx = T.thread_id([256])\n"
                 "    A[tx] = warp * 32 + lane\n",
                 "inconsistent thread extents: T.thread_id says 256 threads per CTA, but "
                 "T.warp_id and T.lane_id give 4 x 32 = 128", 6);
    expect_error("@T.prim_func\n"
                 "def f(A: T.Buffer((2048,), \"int32\")):\n"
                 "    T.device_entry()\n"
                 "    bx = T.cta_id([1])\n"
                 "    tx = T.thread_id([2048])\n"
                 "    A[tx] = tx\n",
                 "too many threads per CTA: 2048 (the limit is 1024)", 5);
    expect_error("@T.prim_func\n"
                 "def f(A: T.Buffer((64,), \"int32\")):\n"
                 "    T.device_entry()\n"
                 "    cx, cy, cz = T.cta_id_in_cluster([4, 4, 2])\n"
                 "    tx = T.thread_id([64])\n"
                 "    A[tx] = cx\n",
                 "T.cta_id_in_cluster gives 4 x 4 x 2 = 32 CTAs per cluster, the limit is 16", 4);
    /* extents past 2^31 (whose product would overflow) are reported, not skipped */
    expect_error("@T.prim_func\n"
                 "def f(A: T.Buffer((128,), \"float32\")):\n"
                 "    T.device_entry()\n"
                 "    bx = T.cta_id([1])\n"
                 "    wg = T.warpgroup_id([42949672952])\n"
                 "    tid = T.thread_id_in_wg([128])\n"
                 "    A[tid] = 1.0\n",
                 "too many threads per CTA: 42949672952 x 128 (the limit is 1024)", 5);
    expect_error("@T.prim_func\n"
                 "def f(A: T.Buffer((64,), \"int32\")):\n"
                 "    T.device_entry()\n"
                 "    cx, cy = T.cta_id_in_cluster([4294967296, 4294967296])\n"
                 "    tx = T.thread_id([64])\n"
                 "    A[tx] = cx\n",
                 "T.cta_id_in_cluster gives 4294967296 x 4294967296 CTAs per cluster, the limit is 16", 4);
}

static void test_tma_encode_limits(void **state)
{
    (void)state;
    const char *fmt = "@T.prim_func\n"
                      "def f(A: T.Buffer((64, 64), \"float16\"), A_map: T.handle):\n"
                      "    T.call_packed(\"runtime.cuTensorMapEncodeTiled\", A_map, \"float16\", 2,"
                      " A.data, 64, 64, 128, %d, 64, 1, 1, 0, %d, 0, 0)\n";
    char text[1024];
    snprintf(text, sizeof text, fmt, 64, 3);
    expect_clean(text);
    snprintf(text, sizeof text, fmt, 512, 0);
    expect_error(text, "box dimension 0 is 512, must be in 1..256", 3);
    snprintf(text, sizeof text, fmt, 64, 2);
    expect_error(text, "the inner box is 128 bytes, wider than the 64-byte swizzle", 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_kernels),
        cmocka_unit_test(test_launch_errors),
        cmocka_unit_test(test_tma_encode_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
