/* GPU test of gemm_async's wgmma variant (tests/gpu/op_gemm_wgmma.tirx,
 * sm_90a): one warpgroup computes D = A' @ B'^T from shared tiles in the MMA
 * layout of each swizzle (none, 32, 64, 128 bytes), K-major and MN-major
 * (transA / transB), for bfloat16, float16, tf32 (float32 inputs) and fp8
 * (e4m3, e5m2), several N, M = 64 and 128, and a product
 * split into two calls over halves of K (sub-region descriptors, accum=True),
 * A from the warpgroup's registers (rs), two accumulators in flight at once
 * (wait=None, then T.cuda.wgmma_wait one by one; with rs, A's registers
 * zeroed between the two issues, so the second half is 0), and windows of wider tiles chosen
 * at run time (gemm_window: A's K window ka, B's N window nb, each a whole
 * number of swizzle slabs, the descriptors' bases computed at run time).
 * Fresh random inputs, D poisoned first, against a float64 reference of the
 * rounded inputs (tf32: inputs rounded to 10 mantissa bits by the test, so
 * the hardware's truncation does not matter); relative L2 error at most
 * 1e-5 for the exact-input products (the f32 accumulation order is all that
 * differs), 1e-3 for fp8, whose tensor-core accumulation keeps fewer
 * mantissa bits (measured on the H200: 8.6e-5 at K = 128). Skips (77) without a GPU or on a device other than sm_90. */
#include "op_kernel.h"

typedef enum { BF16, F16, TF32, E4M3, E5M2 } Elem;


typedef struct Case {
    Elem a, b;
    int m, n, k, swizzle;
    bool ta, tb, split, rs;
    int win; /* gemm_window over WIN windows (K-major A, N-major B); 0: gemm */
    bool inflight; /* N's halves in two accumulators, both in flight */
} Case;

static const char *elem_name(Elem e)
{
    static const char *const names[] = {"bfloat16", "float16", "float32", "float8_e4m3fn",
                                        "float8_e5m2"};
    return names[e];
}

static int elem_bits(Elem e) { return e == TF32 ? 32 : e == E4M3 || e == E5M2 ? 8 : 16; }

static uint8_t elem_code(Elem e)
{
    switch (e) {
    case BF16: return kDLBfloat;
    case E4M3: return kDLFloat8_e4m3fn;
    case E5M2: return kDLFloat8_e5m2;
    default: return kDLFloat;
    }
}

/* A random value exactly representable in e (small integers times powers of
 * two, so every product is exact in float64), its bits stored at dst. */
static double random_elem(GpuRng *rng, Elem e, void *dst)
{
    uint64_t r = gpu_next(rng);
    int sign = r & 1 ? -1 : 1, mant = (int)(r >> 1 & 7), exp = (int)((r >> 4) % 4) - 2;
    double v = sign * (1.0 + mant / 8.0) * ldexp(1.0, exp);
    if (e == E5M2)
        v = sign * (1.0 + (mant & 3) / 4.0) * ldexp(1.0, exp);
    float f = (float)v;
    switch (e) {
    case BF16: *(uint16_t *)dst = op_f32_to_bf16(f); break;
    case F16: *(uint16_t *)dst = op_f32_to_f16(f); break;
    case TF32: memcpy(dst, &f, 4); break;
    case E4M3: /* 1 sign, 4 exponent (bias 7), 3 mantissa bits */
        *(uint8_t *)dst = (uint8_t)((sign < 0) << 7 | (exp + 7) << 3 | mant);
        break;
    case E5M2: /* 1 sign, 5 exponent (bias 15), 2 mantissa bits */
        *(uint8_t *)dst = (uint8_t)((sign < 0) << 7 | (exp + 15) << 2 | (mant & 3));
        break;
    }
    return v;
}

static void launch(tirx_module *mod, const Case *c, OpTensor *a, OpTensor *b, OpTensor *d,
                   int ka, int nb)
{
    if (!c->win) {
        OpTensor *args[] = {a, b, d};
        op_launch(mod, "gemm", args, 3);
        return;
    }
    tirx_arg args[] = {tirx_arg_tensor(&a->t), tirx_arg_tensor(&b->t), tirx_arg_tensor(&d->t),
                       tirx_arg_int(ka), tirx_arg_int(nb)};
    op_launch_args(mod, "gemm_window", args, 5);
}

static void check(tirx_device *gpu, GpuRng *rng, const Case *c)
{
    /* the windows: the last of A's, the middle of B's */
    int w = c->win ? c->win : 1, ka = w - 1, nb = (w - 1) / 2;
    int ar = c->ta ? c->k : c->m, acol = c->ta ? c->m : c->k;
    int br = c->tb ? c->k : c->n, bcol = c->tb ? c->n : c->k;
    char v[9][16];
    snprintf(v[0], 16, "%d", c->m), snprintf(v[1], 16, "%d", c->n), snprintf(v[2], 16, "%d", c->k);
    snprintf(v[3], 16, "%d", c->swizzle), snprintf(v[4], 16, "%d", ar);
    snprintf(v[5], 16, "%d", acol), snprintf(v[6], 16, "%d", br), snprintf(v[7], 16, "%d", bcol);
    snprintf(v[8], 16, "%d", w);
    acol = c->ta ? acol : acol * w, bcol = c->tb ? bcol * w : bcol;
    tirx_define d[] = {{"M", v[0]}, {"N", v[1]}, {"K", v[2]}, {"SW", v[3]},
                       {"DTYPE", elem_name(c->a)}, {"AR", v[4]}, {"AC", v[5]}, {"BR", v[6]},
                       {"BC", v[7]}, {"TA", c->ta ? "True" : "False"},
                       {"TB", c->tb ? "True" : "False"}, {"SPLIT", c->split ? "True" : "False"},
                       {"RS", c->rs ? "True" : "False"},
                       {"INFLIGHT", c->inflight ? "True" : "False"}};
    printf("%s x %s, %d x %d x %d, swizzle %d, %s A, %s-major B%s", elem_name(c->a),
           elem_name(c->b), c->m, c->n, c->k, c->swizzle,
           c->rs ? "registers" : c->ta ? "M-major" : "K-major", c->tb ? "N" : "K",
           c->split ? ", split K" : c->inflight ? ", two accumulators in flight" : "");
    if (c->win) {
        printf(", K window %d and N window %d of %d", ka, nb, c->win);
        d[5] = (tirx_define){"WIN", v[8]};
    }
    printf(":\n");
    tirx_module *mod = c->win ? op_compile(gpu, "tests/gpu/op_gemm_wgmma_window.tirx", d, 6)
                              : op_compile(gpu, "tests/gpu/op_gemm_wgmma.tirx", d, 14);
    size_t na = (size_t)ar * acol, nbe = (size_t)br * bcol, nd = (size_t)c->m * c->n;
    uint8_t *a = malloc(na * 4), *b = malloc(nbe * 4);
    double *av = malloc(na * sizeof(double)), *bv = malloc(nbe * sizeof(double));
    double *ref = malloc(nd * sizeof(double));
    float *out = malloc(nd * sizeof(float));
    GPU_CHECK(a && b && av && bv && ref && out, "host memory");
    /* av, bv: every stored element; A'[i, k] is stored at A[i, ka * K + k] or
     * A[k, i], B'[j, k] at B[j, k] or B[k, nb * N + j] */
    for (size_t i = 0; i < na; i++)
        av[i] = random_elem(rng, c->a, a + i * elem_bits(c->a) / 8);
    for (size_t i = 0; i < nbe; i++)
        bv[i] = random_elem(rng, c->b, b + i * elem_bits(c->b) / 8);
    for (int i = 0; i < c->m; i++)
        for (int j = 0; j < c->n; j++) {
            double s = 0;
            for (int k = 0; k < c->k; k++) {
                size_t pa = c->ta ? (size_t)k * c->m + i : (size_t)i * acol + ka * c->k + k;
                size_t pb = c->tb ? (size_t)k * bcol + nb * c->n + j : (size_t)j * c->k + k;
                s += av[pa] * bv[pb];
            }
            ref[(size_t)i * c->n + j] = c->rs && c->inflight && j >= c->n / 2 ? 0 : s;
        }
    OpTensor A, B, D;
    op_tensor(gpu, &A, ar, acol, elem_code(c->a), (uint8_t)elem_bits(c->a));
    op_tensor(gpu, &B, br, bcol, elem_code(c->b), (uint8_t)elem_bits(c->b));
    op_tensor(gpu, &D, c->m, c->n, kDLFloat, 32);
    op_upload(gpu, &A, a);
    op_upload(gpu, &B, b);
    op_poison(gpu, &D);
    launch(mod, c, &A, &B, &D, ka, nb);
    op_download(gpu, &D, out);
    double rel = gpu_rel_l2(out, ref, nd);
    printf("  rel L2 error %.3g\n", rel);
    bool fp8 = c->a == E4M3 || c->a == E5M2;
    GPU_CHECK(rel <= (fp8 ? 1e-3 : 1e-5), "the wgmma product matches the float64 reference");
    op_free(gpu, &A);
    op_free(gpu, &B);
    op_free(gpu, &D);
    tirx_module_free(mod);
    free(a), free(b), free(av), free(bv), free(ref), free(out);
}

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_SM90_ONLY, "wgmma needs sm_90a");
    static const Case cases[] = {
        {BF16, BF16, 64, 128, 64, 128, false, false, false},
        {BF16, BF16, 64, 256, 64, 128, false, false, false},
        {F16, F16, 128, 64, 128, 128, false, false, false},
        {BF16, BF16, 64, 64, 64, 64, false, false, false},
        {F16, F16, 64, 40, 32, 32, false, false, false},
        {BF16, BF16, 64, 64, 32, 0, false, false, false},
        {BF16, BF16, 64, 128, 64, 128, true, true, false},
        {F16, F16, 64, 128, 64, 64, true, false, false},
        {BF16, BF16, 64, 64, 64, 32, false, true, false},
        {F16, F16, 64, 64, 32, 0, true, true, false},
        {BF16, BF16, 64, 128, 64, 128, false, false, true},
        {BF16, BF16, 64, 256, 64, 128, .inflight = true},
        {BF16, BF16, 64, 256, 64, 128, .rs = true, .inflight = true},
        {BF16, BF16, 128, 64, 128, 128, true, true, true},
        {TF32, TF32, 64, 64, 32, 128, false, false, false},
        {TF32, TF32, 64, 24, 16, 64, false, false, false},
        {E4M3, E4M3, 64, 128, 128, 128, false, false, false},
        {E5M2, E5M2, 64, 64, 64, 64, false, false, false},
        {BF16, BF16, 64, 128, 64, 128, false, false, false, true},
        {F16, F16, 128, 64, 64, 128, false, true, false, true},
        {BF16, BF16, 64, 128, 64, 128, false, true, false, false, 2},
        {BF16, BF16, 64, 256, 64, 128, false, true, false, false, 3},
        {F16, F16, 64, 64, 32, 64, false, true, false, false, 4},
        {BF16, BF16, 64, 32, 16, 32, false, true, false, false, 2},
        {F16, F16, 64, 64, 32, 0, false, true, false, false, 3},
    };
    GpuRng rng = gpu_rng();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check(gpu, &rng, &cases[i]);
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}
