/* GPU test of examples/tiled_gemm.tirx (tile primitives: vectorized copies
 * into shared memory with oob="zero", warp gemm with ldmatrix + mma.sync
 * m16n8k16 into a register accumulator, the accumulator stored from
 * registers): C = A @ B for 1024^3 and 1000 x 1000 x 1024 (ragged CTAs) in
 * float16, and 1000 x 1000 x 1024 in bfloat16, against float64 products of
 * the rounded inputs; relative L2 error at most 2e-3 (float16) and 1e-2
 * (bfloat16), output poisoned first. Simulated (sim.op_tiled_gemm) at
 * 136 x 200 x 64 float16 and bfloat16. */
#include "op_kernel.h"

typedef struct Gemm {
    int m, n, k;
    bool bf16;
} Gemm;

static uint16_t to_half(float f, bool bf16) { return bf16 ? op_f32_to_bf16(f) : op_f32_to_f16(f); }
static float from_half(uint16_t h, bool bf16) { return bf16 ? op_bf16_to_f32(h) : op_f16_to_f32(h); }

static void reference(const Gemm *g, const uint16_t *a, const uint16_t *b, double *c)
{
    double *bt = malloc((size_t)g->n * g->k * sizeof(double));
    GPU_CHECK(bt != NULL, "host memory");
    for (int k = 0; k < g->k; k++)
        for (int j = 0; j < g->n; j++)
            bt[(size_t)j * g->k + k] = from_half(b[(size_t)k * g->n + j], g->bf16);
    double *ar = malloc((size_t)g->k * sizeof(double));
    GPU_CHECK(ar != NULL, "host memory");
    for (int i = 0; i < g->m; i++) {
        for (int k = 0; k < g->k; k++)
            ar[k] = from_half(a[(size_t)i * g->k + k], g->bf16);
        for (int j = 0; j < g->n; j++) {
            const double *bj = bt + (size_t)j * g->k;
            double s = 0;
            for (int k = 0; k < g->k; k++)
                s += ar[k] * bj[k];
            c[(size_t)i * g->n + j] = s;
        }
    }
    free(bt), free(ar);
}

static void check(tirx_device *gpu, GpuRng *rng, const Gemm *g)
{
    char mv[16], nv[16], kv[16];
    snprintf(mv, sizeof mv, "%d", g->m), snprintf(nv, sizeof nv, "%d", g->n);
    snprintf(kv, sizeof kv, "%d", g->k);
    tirx_define d[] = {{"M", mv}, {"N", nv}, {"K", kv}, {"DTYPE", g->bf16 ? "bfloat16" : "float16"}};
    const char *dt = g->bf16 ? "bfloat16" : "float16";
    printf("tiled_gemm %d x %d x %d, %s:\n", g->m, g->n, g->k, dt);
    tirx_module *mod = op_compile(gpu, "examples/tiled_gemm.tirx", d, 4);
    size_t na = (size_t)g->m * g->k, nb = (size_t)g->k * g->n, nc = (size_t)g->m * g->n;
    uint16_t *a = malloc(na * 2), *b = malloc(nb * 2);
    float *c = malloc(nc * 4);
    double *ref = malloc(nc * 8);
    GPU_CHECK(a && b && c && ref, "host memory");
    for (size_t i = 0; i < na; i++)
        a[i] = to_half(gpu_uniform(rng), g->bf16);
    for (size_t i = 0; i < nb; i++)
        b[i] = to_half(gpu_uniform(rng), g->bf16);
    reference(g, a, b, ref);
    uint8_t code = g->bf16 ? kDLBfloat : kDLFloat;
    OpTensor A, B, C;
    op_tensor(gpu, &A, g->m, g->k, code, 16);
    op_tensor(gpu, &B, g->k, g->n, code, 16);
    op_tensor(gpu, &C, g->m, g->n, kDLFloat, 32);
    op_upload(gpu, &A, a), op_upload(gpu, &B, b), op_poison(gpu, &C);
    OpTensor *args[] = {&A, &B, &C};
    op_launch(mod, "tiled_gemm", args, 3);
    op_download(gpu, &C, c);
    double rel = gpu_rel_l2(c, ref, nc), tol = g->bf16 ? 1e-2 : 2e-3;
    printf("  rel L2 error %.3g (tolerance %g)\n", rel, tol);
    GPU_CHECK(rel <= tol, "the GEMM matches the float64 reference");
    op_free(gpu, &A), op_free(gpu, &B), op_free(gpu, &C);
    tirx_module_free(mod);
    free(a), free(b), free(c), free(ref);
}

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_ANY_GPU, NULL);
    GpuRng rng = gpu_rng();
    const Gemm gpu_cases[] = {{1024, 1024, 1024, false}, {1000, 1000, 1024, false},
                              {1000, 1000, 1024, true}};
    const Gemm sim_cases[] = {{136, 200, 64, false}, {136, 200, 64, true}};
    size_t n = OP_SIZE(sizeof gpu_cases, sizeof sim_cases) / sizeof(Gemm);
    for (size_t i = 0; i < n; i++)
        check(gpu, &rng, OP_SIZE(gpu_cases, sim_cases) + i);
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}
