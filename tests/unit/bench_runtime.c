/* Unit tests of the benchmark machinery below the CLI that run without a
 * GPU: blaslt.h's declarations against cuBLAS's own headers (where they are
 * installed), loading libcuBLASLt (skipped where it is absent), the hold
 * kernel of the timing loop compiled by NVRTC for sm_80, sm_90a and sm_100a
 * (skipped without NVRTC), quantiles, the public calls' answers where no
 * GPU is usable, and tirx_device_get_info without a device. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bench/bench.h"
#include "runtime/blaslt.h"
#include "tirx.h"

#if __has_include(<cublasLt.h>)
#include <cublasLt.h>
_Static_assert(sizeof(BlAlgo) == sizeof(cublasLtMatmulAlgo_t), "cublasLtMatmulAlgo_t");
_Static_assert(sizeof(BlHeuristic) == sizeof(cublasLtMatmulHeuristicResult_t),
               "cublasLtMatmulHeuristicResult_t");
_Static_assert(offsetof(BlHeuristic, workspace_size) ==
                   offsetof(cublasLtMatmulHeuristicResult_t, workspaceSize) &&
                   offsetof(BlHeuristic, state) == offsetof(cublasLtMatmulHeuristicResult_t, state),
               "cublasLtMatmulHeuristicResult_t fields");
/* The values, compared as int (they are enums of different types). */
#define SAME(ours, theirs) ((int)(ours) == (int)(theirs))
_Static_assert(SAME(BL_STATUS_SUCCESS, CUBLAS_STATUS_SUCCESS) &&
                   SAME(BL_STATUS_NOT_SUPPORTED, CUBLAS_STATUS_NOT_SUPPORTED),
               "cublasStatus_t");
_Static_assert(SAME(BL_OP_N, CUBLAS_OP_N) && SAME(BL_OP_T, CUBLAS_OP_T), "cublasOperation_t");
_Static_assert(SAME(BL_COMPUTE_32F, CUBLAS_COMPUTE_32F) &&
                   SAME(BL_COMPUTE_32F_FAST_TF32, CUBLAS_COMPUTE_32F_FAST_TF32),
               "cublasComputeType_t");
_Static_assert(SAME(BL_R_32F, CUDA_R_32F) && SAME(BL_R_16F, CUDA_R_16F) && SAME(BL_R_16BF, CUDA_R_16BF) &&
                   SAME(BL_R_8F_E4M3, CUDA_R_8F_E4M3),
               "cudaDataType");
_Static_assert(SAME(BL_DESC_TRANSA, CUBLASLT_MATMUL_DESC_TRANSA) &&
                   SAME(BL_DESC_TRANSB, CUBLASLT_MATMUL_DESC_TRANSB) &&
                   SAME(BL_DESC_A_SCALE_POINTER, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER) &&
                   SAME(BL_DESC_B_SCALE_POINTER, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER),
               "cublasLtMatmulDescAttributes_t");
_Static_assert(SAME(BL_PREF_MAX_WORKSPACE_BYTES, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES),
               "cublasLtMatmulPreferenceAttributes_t");
_Static_assert(SAME(BL_ALGO_CONFIG_ID, CUBLASLT_ALGO_CONFIG_ID) &&
                   SAME(BL_ALGO_CONFIG_TILE_ID, CUBLASLT_ALGO_CONFIG_TILE_ID) &&
                   SAME(BL_ALGO_CONFIG_SPLITK_NUM, CUBLASLT_ALGO_CONFIG_SPLITK_NUM) &&
                   SAME(BL_ALGO_CONFIG_STAGES_ID, CUBLASLT_ALGO_CONFIG_STAGES_ID),
               "cublasLtMatmulAlgoConfigAttributes_t");
#endif

static void test_blas_load(void **state)
{
    (void)state;
    size_t version = 0;
    RtError err;
    RtStatus s = rt_blas_version(&version, &err);
    if (s == RT_ERR_NO_CUBLAS) {
        assert_non_null(strstr(err.message, "no cuBLASLt"));
        skip();
    }
    assert_int_equal(s, RT_OK);
    assert_true(version >= 120000);
    assert_int_equal(rt_blas_version(&version, NULL), RT_OK); /* loaded once */
}

static void test_hold_kernel_compiles(void **state)
{
    (void)state;
    int major, minor;
    if (rt_nvrtc_version(&major, &minor, NULL) != RT_OK)
        skip();
    const char *archs[] = {"sm_80", "sm_90a", "sm_100a"};
    for (size_t i = 0; i < sizeof archs / sizeof *archs; i++) {
        RtCompileOptions o = {.arch = archs[i]};
        RtBinary b;
        RtError err;
        RtStatus s = rt_compile(bn_hold_source, &o, &b, &err);
        if (s != RT_OK)
            fail_msg("%s: %s\n%s", archs[i], err.message, b.log ? b.log : "");
        assert_int_equal(b.nkernels, 1);
        assert_string_equal(b.kernels[0].name, "tirx_bench_hold");
        rt_binary_free(&b);
    }
}

static void test_quantile(void **state)
{
    (void)state;
    const double x[] = {1, 2, 3, 4};
    assert_true(bn_quantile(x, 4, 0) == 1);
    assert_true(bn_quantile(x, 4, 1) == 4);
    assert_true(bn_quantile(x, 4, 0.5) == 2.5);
    assert_true(bn_quantile(x, 4, 0.9) == 3.7);
    assert_true(bn_quantile(x, 1, 0.9) == 1);
}

/* Where this machine has no usable GPU, the calls say so; with one, a
 * device opens (the GPU tests time on it). */
static void test_no_gpu(void **state)
{
    (void)state;
    tirx_device *d = NULL;
    tirx_error err;
    tirx_status st = tirx_device_open(0, &d, &err);
    if (st == TIRX_OK) {
        tirx_device_close(d);
        skip();
    }
    assert_int_equal(st, TIRX_ERR_CUDA);
    assert_null(d);
    tirx_bench_stats s;
    assert_int_equal(tirx_bench_time(NULL, NULL, NULL, NULL, &s, &err), TIRX_ERR_USAGE);
    tirx_cublas_gemm *g = (tirx_cublas_gemm *)&s;
    assert_int_equal(tirx_cublas_gemm_create(NULL, NULL, &g, &err), TIRX_ERR_USAGE);
    assert_null(g);
}

/* A NULL device or output is a caller's slip that the call survives: no
 * device reports zeros and empty strings, as on any machine. */
static void test_null_device_info(void **state)
{
    (void)state;
    tirx_device_info info;
    memset(&info, 0x55, sizeof info);
    tirx_device_get_info(NULL, &info);
    assert_string_equal(info.name, "");
    assert_string_equal(info.arch, "");
    assert_int_equal(info.sm_count, 0);
    assert_int_equal(info.l2_bytes, 0);
    assert_int_equal(info.driver_version, 0);
    tirx_device_get_info(NULL, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blas_load),
        cmocka_unit_test(test_hold_kernel_compiles),
        cmocka_unit_test(test_quantile),
        cmocka_unit_test(test_no_gpu),
        cmocka_unit_test(test_null_device_info),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
