/* GPU test of kernels/gemm_sm100.tirx (sm_100a): the persistent,
 * warp-specialized GEMM C = A @ B^T (A [M, K], B [N, K]) with tcgen05.mma
 * cta_group::2 over CTA pairs, TMA multicast of A within clusters of four,
 * cluster launch control and a TMEM double-buffered epilogue, against a
 * float64 product of the rounded inputs, on fresh random inputs with C
 * poisoned first; relative L2 error at most 5e-3 (C is rounded to the input
 * type: 2^-9 per element for bfloat16). Shapes: one and several tiles per
 * cluster (clusters of two and of four), ragged M, N and K, float16.
 * Skips (77) without a GPU or on a device other than sm_100; simulated
 * (sim.kernel_gemm_sm100) at small shapes, where no cluster is cancelled
 * (each runs its own tiles). */
#include "op_kernel.h"

typedef struct Shape {
    int m, n, k;
    bool f16;
} Shape;

static void check(tirx_device *gpu, GpuRng *rng, const Shape *s)
{
    char v[3][16];
    snprintf(v[0], 16, "%d", s->m), snprintf(v[1], 16, "%d", s->n), snprintf(v[2], 16, "%d", s->k);
    tirx_define d[] = {{"M", v[0]}, {"N", v[1]}, {"K", v[2]},
                       {"DTYPE", s->f16 ? "float16" : "bfloat16"}};
    printf("gemm_sm100 %d x %d x %d %s:\n", s->m, s->n, s->k, s->f16 ? "float16" : "bfloat16");
    tirx_module *mod = op_compile(gpu, "kernels/gemm_sm100.tirx", d, 4);
    size_t na = (size_t)s->m * s->k, nb = (size_t)s->n * s->k, nc = (size_t)s->m * s->n;
    uint16_t *a = malloc(na * 2), *b = malloc(nb * 2), *c = malloc(nc * 2);
    double *av = malloc(na * 8), *bv = malloc(nb * 8), *ref = malloc(nc * 8);
    float *out = malloc(nc * 4);
    GPU_CHECK(a && b && c && av && bv && ref && out, "host memory");
    for (size_t i = 0; i < na; i++) {
        float f = gpu_uniform(rng);
        a[i] = s->f16 ? op_f32_to_f16(f) : op_f32_to_bf16(f);
        av[i] = s->f16 ? op_f16_to_f32(a[i]) : op_bf16_to_f32(a[i]);
    }
    for (size_t i = 0; i < nb; i++) {
        float f = gpu_uniform(rng);
        b[i] = s->f16 ? op_f32_to_f16(f) : op_f32_to_bf16(f);
        bv[i] = s->f16 ? op_f16_to_f32(b[i]) : op_bf16_to_f32(b[i]);
    }
    for (int i = 0; i < s->m; i++)
        for (int j = 0; j < s->n; j++) {
            double acc = 0;
            for (int k = 0; k < s->k; k++)
                acc += av[(size_t)i * s->k + k] * bv[(size_t)j * s->k + k];
            ref[(size_t)i * s->n + j] = acc;
        }
    uint8_t code = s->f16 ? kDLFloat : kDLBfloat;
    OpTensor A, B, C;
    op_tensor(gpu, &A, s->m, s->k, code, 16);
    op_tensor(gpu, &B, s->n, s->k, code, 16);
    op_tensor(gpu, &C, s->m, s->n, code, 16);
    op_upload(gpu, &A, a), op_upload(gpu, &B, b), op_poison(gpu, &C);
    OpTensor *args[] = {&A, &B, &C};
    op_launch(mod, "gemm", args, 3);
    op_download(gpu, &C, c);
    for (size_t i = 0; i < nc; i++)
        out[i] = s->f16 ? op_f16_to_f32(c[i]) : op_bf16_to_f32(c[i]);
    double rel = gpu_rel_l2(out, ref, nc);
    printf("  rel L2 error %.3g\n", rel);
    GPU_CHECK(rel <= 5e-3, "the GEMM matches the float64 reference");
    op_free(gpu, &A), op_free(gpu, &B), op_free(gpu, &C);
    tirx_module_free(mod);
    free(a), free(b), free(c), free(av), free(bv), free(ref), free(out);
}

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_SM100_ONLY, "the kernel needs sm_100a");
    GpuRng rng = gpu_rng();
    const Shape gpu_shapes[] = {{4096, 4096, 4096, false}, {1000, 1000, 1000, false},
                                {4097, 128, 72, false},    {256, 8192, 512, true},
                                {2048, 2048, 2048, true}};
    /* a cluster of four (two pairs in N), of two (one tile column), several
     * tiles per CTA, ragged edges, float16 */
    const Shape sim_shapes[] = {{256, 256, 128, false}, {512, 128, 192, false},
                                {300, 264, 136, false}, {256, 512, 64, true}};
    const Shape *shapes = OP_SIZE(gpu_shapes, sim_shapes);
    size_t n = OP_SIZE(sizeof gpu_shapes, sizeof sim_shapes) / sizeof(Shape);
    for (size_t i = 0; i < n; i++)
        check(gpu, &rng, &shapes[i]);
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}
