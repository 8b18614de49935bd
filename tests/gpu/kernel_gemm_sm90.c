/* GPU test of kernels/gemm_sm90.tirx (sm_90a): the persistent,
 * warp-specialized bfloat16 GEMM C = A @ B^T (A [M, K], B [N, K]) against a
 * float64 product of the rounded inputs, on fresh random inputs with C
 * poisoned first; relative L2 error at most 5e-3 (C is rounded to bfloat16:
 * 2^-9 per element). Several shapes: fewer CTAs than tiles so that each
 * CTA walks several tiles, ragged M, N and K (TMA fills zeros past the edges
 * and clips the stores), small M (narrow tiles), the widest tile, and split-K
 * (the heuristic's, one forced on a ragged K, one with the register
 * epilogue): a split-K result must be the same bits on a second launch (the
 * parts are summed in a fixed order), and every launch shares one workspace,
 * zeroed once, whose counters must be zero again after each launch. Skips
 * (77) without a GPU or on a device other than sm_90. Simulated
 * (sim.kernel_gemm_sm90) at small shapes of the same kinds. */
#include "op_kernel.h"

/* The kernel's default WORKSPACE_BYTES, as int32 elements. */
#define WORKSPACE_WORDS OP_SIZE(32 * 1024 * 1024 / 4, 1024 * 1024 / 4)

typedef struct Shape {
    int m, n, k, ctas;
    const char *split_k, *tma_store; /* -D values, or NULL for the kernel's own */
} Shape;

/* The workspace's header of COUNTERS = 1024 counters is all zero. */
static void check_counters(tirx_device *gpu, const OpTensor *ws)
{
    int32_t head[1024];
    op_copy_out(gpu, head, ws->data, sizeof head);
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
        GPU_CHECK(head[i] == 0, "the split-K counters are back at zero");
}

static void check(tirx_device *gpu, GpuRng *rng, const Shape *s, OpTensor *ws)
{
    char v[4][16];
    snprintf(v[0], 16, "%d", s->m), snprintf(v[1], 16, "%d", s->n);
    snprintf(v[2], 16, "%d", s->k), snprintf(v[3], 16, "%d", s->ctas);
    tirx_define d[8] = {{"M", v[0]}, {"N", v[1]}, {"K", v[2]}, {"NUM_CTAS", v[3]}};
    size_t nd = 4;
    if (OP_SIM) { /* a machine of 8 SMs (the tile and split heuristics), a smaller workspace */
        d[nd++] = (tirx_define){"NUM_SMS", "8"};
        d[nd++] = (tirx_define){"WORKSPACE_BYTES", "1048576"};
    }
    if (s->split_k)
        d[nd++] = (tirx_define){"SPLIT_K", s->split_k};
    if (s->tma_store)
        d[nd++] = (tirx_define){"TMA_STORE", s->tma_store};
    printf("gemm_sm90 %d x %d x %d on %d CTAs (SPLIT_K %s, TMA_STORE %s):\n", s->m, s->n, s->k,
           s->ctas, s->split_k ? s->split_k : "default", s->tma_store ? s->tma_store : "default");
    tirx_module *mod = op_compile(gpu, "kernels/gemm_sm90.tirx", d, nd);
    size_t na = (size_t)s->m * s->k, nb = (size_t)s->n * s->k, nc = (size_t)s->m * s->n;
    uint16_t *a = malloc(na * 2), *b = malloc(nb * 2), *c = malloc(nc * 2);
    double *av = malloc(na * 8), *bv = malloc(nb * 8), *ref = malloc(nc * 8);
    float *out = malloc(nc * 4);
    GPU_CHECK(a && b && c && av && bv && ref && out, "host memory");
    for (size_t i = 0; i < na; i++)
        av[i] = op_bf16_to_f32(a[i] = op_f32_to_bf16(gpu_uniform(rng)));
    for (size_t i = 0; i < nb; i++)
        bv[i] = op_bf16_to_f32(b[i] = op_f32_to_bf16(gpu_uniform(rng)));
    for (int i = 0; i < s->m; i++)
        for (int j = 0; j < s->n; j++) {
            const double *ar = av + (size_t)i * s->k, *br = bv + (size_t)j * s->k;
            double acc = 0;
            for (int k = 0; k < s->k; k++)
                acc += ar[k] * br[k];
            ref[(size_t)i * s->n + j] = acc;
        }
    OpTensor A, B, C;
    op_tensor(gpu, &A, s->m, s->k, kDLBfloat, 16);
    op_tensor(gpu, &B, s->n, s->k, kDLBfloat, 16);
    op_tensor(gpu, &C, s->m, s->n, kDLBfloat, 16);
    op_upload(gpu, &A, a), op_upload(gpu, &B, b), op_poison(gpu, &C);
    OpTensor *args[] = {&A, &B, &C, ws};
    op_launch(mod, "gemm", args, 4);
    op_download(gpu, &C, c);
    check_counters(gpu, ws);
    uint16_t *again = malloc(nc * 2);
    GPU_CHECK(again != NULL, "host memory");
    op_poison(gpu, &C);
    op_launch(mod, "gemm", args, 4);
    op_download(gpu, &C, again);
    check_counters(gpu, ws);
    GPU_CHECK(op_first_difference(c, again, nc * 2) < 0, "a second launch gives the same bits");
    free(again);
    for (size_t i = 0; i < nc; i++)
        out[i] = op_bf16_to_f32(c[i]);
    double rel = gpu_rel_l2(out, ref, nc);
    printf("  rel L2 error %.3g\n", rel);
    GPU_CHECK(rel <= 5e-3, "the GEMM matches the float64 reference");
    op_free(gpu, &A), op_free(gpu, &B), op_free(gpu, &C);
    tirx_module_free(mod);
    free(a), free(b), free(c), free(av), free(bv), free(ref), free(out);
}

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_SM90_ONLY, "the kernel needs sm_90a");
    GpuRng rng = gpu_rng();
    const Shape gpu_shapes[] = {
        {1024, 1024, 1024, 132}, {512, 1024, 2048, 3}, {2048, 512, 256, 132},
        {1000, 1000, 1000, 132}, {4097, 136, 72, 132}, {128, 7168, 512, 132},
        {4096, 4096, 512, 132}, {128, 2048, 7168, 132}, {200, 520, 3000, 132},
        {256, 264, 1000, 7, "3"}, {128, 1024, 4096, 132, "6", "False"}, {64, 512, 128, 132, "2"}};
    /* several tiles per CTA, ragged edges, narrow M, split-K (the heuristic's:
     * 1 tile on 8 CTAs; forced on a ragged K; with the register epilogue) */
    const Shape sim_shapes[] = {{256, 128, 128, 2}, {200, 136, 192, 8}, {64, 128, 128, 8},
                                {128, 128, 1024, 8}, {128, 136, 328, 4, "3"},
                                {128, 128, 512, 8, "2", "False"}};
    const Shape *shapes = OP_SIZE(gpu_shapes, sim_shapes);
    size_t nshapes = OP_SIZE(sizeof gpu_shapes, sizeof sim_shapes) / sizeof(Shape);
    OpTensor ws;
    op_tensor(gpu, &ws, WORKSPACE_WORDS, 1, kDLInt, 32);
    ws.t.ndim = 1;
    int32_t *zeros = calloc(WORKSPACE_WORDS, 4);
    GPU_CHECK(zeros != NULL, "host memory");
    op_upload(gpu, &ws, zeros);
    free(zeros);
    for (size_t i = 0; i < nshapes; i++)
        check(gpu, &rng, &shapes[i], &ws);
    op_free(gpu, &ws);
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}
