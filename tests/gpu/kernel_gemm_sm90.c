/* GPU test of kernels/gemm_sm90.tirx (sm_90a): the persistent,
 * warp-specialized GEMM C = A @ B^T (A [M, K], B [N, K], "nt") or C = A @ B
 * (B [K, N], "nn") against a float64 product of the rounded inputs, on fresh
 * random inputs with C poisoned first. Several shapes: fewer CTAs than tiles
 * so that each CTA walks several tiles, ragged M, N and K (TMA fills zeros
 * past the edges and clips the stores), small M (narrow tiles), the widest
 * tile, and split-K (the heuristic's, one forced on a ragged K, one with the
 * register epilogue): a split-K result must be the same bits on a second
 * launch (the parts are summed in a fixed order), and every launch shares one
 * workspace, zeroed once, whose counters must be zero again after each
 * launch. bfloat16 and float16 in both layouts, and float32 as tf32 ("nt").
 * Tolerances (relative L2): 5e-3 for 16-bit C (rounding C to bfloat16 is
 * 2^-9 per element); tf32 keeps 10 of float32's 23 mantissa bits, the tensor
 * cores reading only the top 19 bits of each input (each off by less than
 * 2^-10, relative), so the float32 C of a sum of random-sign products is
 * about 2^-10 ~ 1e-3 off the float64 product of the float32 inputs: 3e-3
 * (a wrong kernel is off by O(1)). Skips (77) without a GPU or on a device
 * other than sm_90. Simulated (sim.kernel_gemm_sm90) at small shapes of the
 * same kinds. */
#include "op_kernel.h"


typedef struct Shape {
    int m, n, k, ctas;
    const char *split_k, *tma_store; /* -D values, or NULL for the kernel's own */
    const char *dtype, *layout;      /* DTYPE and LAYOUT, or NULL: bfloat16, "nt" */
} Shape;

/* A, B and C's element type (C is float32 for float32 inputs). */
typedef struct Type {
    const char *name;
    uint8_t code;
    int bytes;
    double tolerance;
} Type;

static const Type types[] = {{"bfloat16", kDLBfloat, 2, 5e-3}, {"float16", kDLFloat, 2, 5e-3},
                             {"float32", kDLFloat, 4, 3e-3}};

static const Type *type_of(const char *name)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(types[i].name, name))
            return &types[i];
    GPU_CHECK(0, "a known dtype");
    return NULL;
}

/* Store v as element i of x; the value stored. */
static double put(const Type *t, void *x, size_t i, float v)
{
    if (t->bytes == 4)
        return ((float *)x)[i] = v;
    uint16_t *h = x;
    h[i] = t->code == kDLBfloat ? op_f32_to_bf16(v) : op_f32_to_f16(v);
    return t->code == kDLBfloat ? op_bf16_to_f32(h[i]) : op_f16_to_f32(h[i]);
}

static float get(const Type *t, const void *x, size_t i)
{
    if (t->bytes == 4)
        return ((const float *)x)[i];
    const uint16_t *h = x;
    return t->code == kDLBfloat ? op_bf16_to_f32(h[i]) : op_f16_to_f32(h[i]);
}

static void check(tirx_device *gpu, GpuRng *rng, const Shape *s, OpTensor *ws)
{
    const Type *t = type_of(s->dtype ? s->dtype : "bfloat16");
    bool nn = s->layout && !strcmp(s->layout, "\"nn\"");
    char v[4][16];
    snprintf(v[0], 16, "%d", s->m), snprintf(v[1], 16, "%d", s->n);
    snprintf(v[2], 16, "%d", s->k), snprintf(v[3], 16, "%d", s->ctas);
    tirx_define d[10] = {{"M", v[0]}, {"N", v[1]}, {"K", v[2]}, {"NUM_CTAS", v[3]},
                         {"DTYPE", t->name}};
    size_t nd = 5;
    if (OP_SIM) { /* a machine of 8 SMs (the tile and split heuristics), a smaller workspace */
        d[nd++] = (tirx_define){"NUM_SMS", "8"};
        d[nd++] = (tirx_define){"WORKSPACE_BYTES", "1048576"};
    }
    if (s->split_k)
        d[nd++] = (tirx_define){"SPLIT_K", s->split_k};
    if (s->tma_store)
        d[nd++] = (tirx_define){"TMA_STORE", s->tma_store};
    if (s->layout)
        d[nd++] = (tirx_define){"LAYOUT", s->layout};
    printf("gemm_sm90 %s %s %d x %d x %d on %d CTAs (SPLIT_K %s, TMA_STORE %s):\n", t->name,
           nn ? "nn" : "nt", s->m, s->n, s->k, s->ctas, s->split_k ? s->split_k : "default",
           s->tma_store ? s->tma_store : "default");
    tirx_module *mod = op_compile_variant(gpu, "kernels/gemm_sm90.tirx", d, nd);
    size_t na = (size_t)s->m * s->k, nb = (size_t)s->n * s->k, nc = (size_t)s->m * s->n;
    void *a = malloc(na * t->bytes), *b = malloc(nb * t->bytes), *c = malloc(nc * t->bytes);
    double *av = malloc(na * 8), *bv = malloc(nb * 8), *ref = malloc(nc * 8);
    float *out = malloc(nc * 4);
    GPU_CHECK(a && b && c && av && bv && ref && out, "host memory");
    for (size_t i = 0; i < na; i++)
        av[i] = put(t, a, i, gpu_uniform(rng));
    for (size_t i = 0; i < nb; i++)
        bv[i] = put(t, b, i, gpu_uniform(rng));
    /* B[n, k] is element n * K + k ("nt") or k * N + n ("nn") */
    size_t bs_n = nn ? 1 : (size_t)s->k, bs_k = nn ? (size_t)s->n : 1;
    for (int i = 0; i < s->m; i++)
        for (int j = 0; j < s->n; j++) {
            const double *ar = av + (size_t)i * s->k, *br = bv + (size_t)j * bs_n;
            double acc = 0;
            for (int k = 0; k < s->k; k++)
                acc += ar[k] * br[(size_t)k * bs_k];
            ref[(size_t)i * s->n + j] = acc;
        }
    OpTensor A, B, C;
    uint8_t bits = (uint8_t)(t->bytes * 8);
    op_tensor(gpu, &A, s->m, s->k, t->code, bits);
    op_tensor(gpu, &B, nn ? s->k : s->n, nn ? s->n : s->k, t->code, bits);
    op_tensor(gpu, &C, s->m, s->n, t->code, bits);
    op_upload(gpu, &A, a), op_upload(gpu, &B, b), op_poison(gpu, &C);
    OpTensor *args[] = {&A, &B, &C, ws};
    op_launch(mod, "gemm", args, 4);
    op_download(gpu, &C, c);
    op_check_split_k_counters(gpu, ws);
    void *again = malloc(nc * t->bytes);
    GPU_CHECK(again != NULL, "host memory");
    op_poison(gpu, &C);
    op_launch(mod, "gemm", args, 4);
    op_download(gpu, &C, again);
    op_check_split_k_counters(gpu, ws);
    GPU_CHECK(op_first_difference(c, again, nc * t->bytes) < 0,
              "a second launch gives the same bits");
    free(again);
    for (size_t i = 0; i < nc; i++)
        out[i] = get(t, c, i);
    double rel = gpu_rel_l2(out, ref, nc);
    printf("  rel L2 error %.3g (tolerance %g)\n", rel, t->tolerance);
    GPU_CHECK(rel <= t->tolerance, "the GEMM matches the float64 reference");
    op_free(gpu, &A), op_free(gpu, &B), op_free(gpu, &C);
    tirx_module_free(mod);
    free(a), free(b), free(c), free(av), free(bv), free(ref), free(out);
}

#define NN "\"nn\""

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_SM90_ONLY, "the kernel needs sm_90a");
    GpuRng rng = gpu_rng();
    const Shape gpu_shapes[] = {{1024, 1024, 1024, 132}, {512, 1024, 2048, 3}, {2048, 512, 256, 132},
                            {1000, 1000, 1000, 132}, {4097, 136, 72, 132}, {128, 7168, 512, 132},
                            {4096, 4096, 512, 132}, {128, 2048, 7168, 132},
                            {200, 520, 3000, 132}, {256, 264, 1000, 7, "3"},
                            {2048, 2040, 520, 132}, /* N not a multiple of a 64-column slab */
                            {128, 1024, 4096, 132, "6", "False"}, {64, 512, 128, 132, "2"},
                            /* B N-major: 2 x 2 x 4 tiles per CTA, ragged, a narrow ragged
                             * N, split-K (heuristic; forced, ragged, register epilogue) */
                            {512, 1024, 2048, 3, .layout = NN},
                            {1000, 1000, 1000, 132, .layout = NN},
                            {4097, 136, 72, 132, .dtype = "float16", .layout = NN},
                            {128, 2048, 7168, 132, .layout = NN},
                            {200, 520, 3000, 132, "3", "False", "float16", NN},
                            /* tf32: square, ragged, narrow, split-K, forced ragged split */
                            {1024, 1024, 1024, 132, .dtype = "float32"},
                            {1000, 1000, 1000, 132, .dtype = "float32"},
                            {4097, 136, 72, 132, .dtype = "float32"},
                            {128, 2048, 7168, 132, .dtype = "float32"},
                            {256, 264, 1000, 7, "3", .dtype = "float32"}};
    /* several tiles per CTA, ragged edges, narrow M, split-K (the heuristic's:
     * 1 tile on 8 CTAs; forced on a ragged K; with the register epilogue) */
    const Shape sim_shapes[] = {{256, 128, 128, 2}, {200, 136, 192, 8}, {64, 128, 128, 8},
                                {264, 520, 192, 8}, /* 128-column tiles, N not a multiple of 64 */
                                {128, 128, 1024, 8}, {128, 136, 328, 4, "3"},
                                {128, 128, 512, 8, "2", "False"}, {200, 136, 192, 8, NULL, "False"},
                                /* B N-major (ragged, split) and tf32 (ragged, split) */
                                {200, 136, 192, 8, .layout = NN},
                                {128, 128, 1024, 8, .dtype = "float16", .layout = NN},
                                {200, 136, 192, 8, .dtype = "float32"},
                                {128, 128, 1024, 8, .dtype = "float32"}};
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
