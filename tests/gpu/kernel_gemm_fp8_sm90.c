/* GPU test of kernels/gemm_fp8_sm90.tirx (sm_90a): the persistent,
 * warp-specialized fp8 GEMM C = scale_a * scale_b * (A @ B^T) (A [M, K],
 * B [N, K] in float8_e4m3fn, C bfloat16) against a float64 product of the
 * dequantized inputs, on fresh random e4m3 bytes (every finite value,
 * subnormals included) with C poisoned first; relative L2 error at most
 * 5e-3 (C is rounded to bfloat16: 2^-9 per element; the two-level
 * accumulation keeps the wgmma accumulator's fewer mantissa bits from
 * adding up over K). Several shapes (the 192-, 128- and 64-column tiles, fewer CTAs than tiles
 * so that each CTA walks several, ragged M, N and K), promotion every stage
 * and every second stage, and scales other than 1; split-K (the heuristic's
 * at small M and long K, and one forced on ragged shapes), every launch
 * sharing one workspace, zeroed once, whose counters must be zero again
 * after each launch. Skips (77) without a GPU or on a device other than
 * sm_90. Simulated (sim.kernel_gemm_fp8_sm90) at small shapes of the same
 * kinds on a machine of 8 SMs. */
#include <math.h>

#include "op_kernel.h"

typedef struct Shape {
    int m, n, k, ctas, promote;
    float scale_a, scale_b;
    const char *split_k; /* -D SPLIT_K, or NULL for the kernel's own */
} Shape;


/* float8_e4m3fn: 1 sign, 4 exponent (bias 7), 3 mantissa bits, no
 * infinities, NaN at S.1111.111. */
static double e4m3(uint8_t b)
{
    int e = b >> 3 & 15, m = b & 7;
    double v = e ? (1.0 + m / 8.0) * ldexp(1.0, e - 7) : m / 8.0 * ldexp(1.0, -6);
    return b & 0x80 ? -v : v;
}

static uint8_t random_e4m3(GpuRng *rng)
{
    uint8_t b;
    do
        b = (uint8_t)gpu_next(rng);
    while ((b & 0x7f) == 0x7f);
    return b;
}

static void check(tirx_device *gpu, GpuRng *rng, const Shape *s, const OpTensor *ws)
{
    char v[5][16];
    snprintf(v[0], 16, "%d", s->m), snprintf(v[1], 16, "%d", s->n);
    snprintf(v[2], 16, "%d", s->k), snprintf(v[3], 16, "%d", s->ctas);
    snprintf(v[4], 16, "%d", s->promote);
    tirx_define d[8] = {{"M", v[0]}, {"N", v[1]}, {"K", v[2]}, {"NUM_CTAS", v[3]},
                        {"PROMOTE", v[4]}};
    size_t nd = 5;
    if (OP_SIM) { /* a machine of 8 SMs (the tile and split heuristics), a smaller workspace */
        d[nd++] = (tirx_define){"NUM_SMS", "8"};
        d[nd++] = (tirx_define){"WORKSPACE_BYTES", "1048576"};
    }
    if (s->split_k)
        d[nd++] = (tirx_define){"SPLIT_K", s->split_k};
    printf("gemm_fp8_sm90 %d x %d x %d on %d CTAs, promoted every %d stage(s), scales %g, %g, "
           "SPLIT_K %s:\n", s->m, s->n, s->k, s->ctas, s->promote, s->scale_a, s->scale_b,
           s->split_k ? s->split_k : "default");
    tirx_module *mod = op_compile_variant(gpu, "kernels/gemm_fp8_sm90.tirx", d, nd);
    size_t na = (size_t)s->m * s->k, nb = (size_t)s->n * s->k, nc = (size_t)s->m * s->n;
    uint8_t *a = malloc(na), *b = malloc(nb);
    uint16_t *c = malloc(nc * 2);
    double *av = malloc(na * 8), *bv = malloc(nb * 8), *ref = malloc(nc * 8);
    float *out = malloc(nc * 4);
    GPU_CHECK(a && b && c && av && bv && ref && out, "host memory");
    for (size_t i = 0; i < na; i++)
        av[i] = e4m3(a[i] = random_e4m3(rng));
    for (size_t i = 0; i < nb; i++)
        bv[i] = e4m3(b[i] = random_e4m3(rng));
    double scale = (double)s->scale_a * s->scale_b;
    for (int i = 0; i < s->m; i++)
        for (int j = 0; j < s->n; j++) {
            const double *ar = av + (size_t)i * s->k, *br = bv + (size_t)j * s->k;
            double acc = 0;
            for (int k = 0; k < s->k; k++)
                acc += ar[k] * br[k];
            ref[(size_t)i * s->n + j] = acc * scale;
        }
    OpTensor A, B, C;
    op_tensor(gpu, &A, s->m, s->k, kDLFloat8_e4m3fn, 8);
    op_tensor(gpu, &B, s->n, s->k, kDLFloat8_e4m3fn, 8);
    op_tensor(gpu, &C, s->m, s->n, kDLBfloat, 16);
    op_upload(gpu, &A, a), op_upload(gpu, &B, b), op_poison(gpu, &C);
    tirx_arg args[] = {tirx_arg_tensor(&A.t), tirx_arg_tensor(&B.t), tirx_arg_tensor(&C.t),
                       tirx_arg_tensor(&ws->t), tirx_arg_float(s->scale_a),
                       tirx_arg_float(s->scale_b)};
    op_launch_args(mod, "gemm", args, 6);
    op_download(gpu, &C, c);
    op_check_split_k_counters(gpu, ws);
    for (size_t i = 0; i < nc; i++)
        out[i] = op_bf16_to_f32(c[i]);
    double rel = gpu_rel_l2(out, ref, nc);
    printf("  rel L2 error %.3g\n", rel);
    GPU_CHECK(rel <= 5e-3, "the fp8 GEMM matches the float64 reference");
    op_free(gpu, &A), op_free(gpu, &B), op_free(gpu, &C);
    tirx_module_free(mod);
    free(a), free(b), free(c), free(av), free(bv), free(ref), free(out);
}

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_SM90_ONLY, "the kernel needs sm_90a");
    GpuRng rng = gpu_rng();
    const Shape gpu_shapes[] = {
        {2048, 2048, 512, 132, 1, 1.0f, 1.0f},  {2048, 1536, 640, 132, 2, 0.5f, 3.0f},
        {512, 1024, 1024, 3, 1, 2.0f, 0.375f}, {256, 512, 384, 132, 1, 1.5f, 1.0f},
        {200, 328, 272, 132, 2, 1.0f, 0.75f},   {128, 2048, 7168, 132, 1, 0.5f, 2.5f},
        {200, 136, 1008, 5, 1, 1.0f, 1.5f, "3"}, {64, 512, 4096, 132, 2, 2.0f, 0.5f},
        {1408, 1024, 512, 132, 1, 1.0f, 0.5f},  {1664, 2040, 640, 132, 2, 0.5f, 2.0f},
    };
    /* the three tile widths, several tiles per CTA, ragged, split-K (the
     * heuristic's: 1 tile on 8 SMs; forced on a ragged shape), clusters of
     * two along M (an odd number of tile rows: the last cluster's second
     * tile is past M) */
    const Shape sim_shapes[] = {{256, 512, 256, 3, 1, 2.0f, 0.375f},
                                {200, 136, 272, 8, 2, 1.0f, 0.75f},
                                {128, 128, 2048, 8, 1, 0.5f, 2.5f},
                                {200, 136, 528, 5, 1, 1.0f, 1.5f, "3"},
                                {328, 136, 272, 4, 1, 1.0f, 0.5f},
                                {384, 392, 128, 8, 1, 1.0f, 0.5f}};
    const Shape *shapes = OP_SIZE(gpu_shapes, sim_shapes);
    size_t nshapes = OP_SIZE(sizeof gpu_shapes, sizeof sim_shapes) / sizeof(Shape);
    OpTensor ws;
    op_split_k_workspace(gpu, &ws);
    for (size_t i = 0; i < nshapes; i++)
        check(gpu, &rng, &shapes[i], &ws);
    op_free(gpu, &ws);
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}
