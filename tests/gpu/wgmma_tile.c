/* GPU test of tests/gpu/wgmma_tile.tirx (sm_90a): one warpgroup computes
 * D (64 x N, fp32) = A (64 x 16, fp16) x B (16 x N, fp16) with a single
 * wgmma.mma_async m64nNk16 from shared-memory descriptors (no-swizzle K-major
 * core-matrix layout), N = 8 and 16. Fresh random fp16 inputs, D poisoned
 * first, against a float64 reference: relative L2 error at most 2e-3.
 * Skips (77) without a GPU or on a device older than sm_90. */
#include "op_kernel.h"

#define M 64
#define K 16

static void random_f16(GpuRng *rng, uint16_t *bits, double *values, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        bits[i] = op_f32_to_f16(gpu_uniform(rng));
        values[i] = op_f16_to_f32(bits[i]);
    }
}

static void gemm_ref(const double *a, const double *b, double *d, int n)
{
    for (int r = 0; r < M; r++)
        for (int c = 0; c < n; c++) {
            double s = 0;
            for (int k = 0; k < K; k++)
                s += a[r * K + k] * b[k * n + c];
            d[r * n + c] = s;
        }
}

static void check(tirx_device *gpu, tirx_module *m, GpuRng *rng, const char *func, int n)
{
    printf("%s: 64 x %d x 16\n", func, n);
    uint16_t a[M * K], b[K * 16];
    double av[M * K], bv[K * 16], ref[M * 16];
    float d[M * 16];
    random_f16(rng, a, av, M * K);
    random_f16(rng, b, bv, (size_t)K * n);
    gemm_ref(av, bv, ref, n);
    OpTensor A, B, D;
    op_tensor(gpu, &A, M, K, kDLFloat, 16);
    op_tensor(gpu, &B, K, n, kDLFloat, 16);
    op_tensor(gpu, &D, M, n, kDLFloat, 32);
    op_upload(gpu, &A, a);
    op_upload(gpu, &B, b);
    op_poison(gpu, &D);
    OpTensor *args[] = {&A, &B, &D};
    op_launch(m, func, args, 3);
    op_download(gpu, &D, d);
    double rel = gpu_rel_l2(d, ref, (size_t)M * n);
    printf("  rel L2 error %.3g\n", rel);
    GPU_CHECK(rel <= 2e-3, "wgmma tile matches the float64 reference");
    op_free(gpu, &A);
    op_free(gpu, &B);
    op_free(gpu, &D);
}

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_SM90_ONLY, "wgmma needs sm_90a");
    tirx_module *m = op_compile(gpu, "tests/gpu/wgmma_tile.tirx", NULL, 0);
    GpuRng rng = gpu_rng();
    check(gpu, m, &rng, "wgmma_n8", 8);
    check(gpu, m, &rng, "wgmma_n16", 16);
    tirx_module_free(m);
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}
