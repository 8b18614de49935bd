/* GPU test of gemm_async's tcgen05 variant (tests/gpu/op_gemm_tcgen05.tirx,
 * sm_100a): one CTA computes D = A' @ B'^T into tensor memory and reads it
 * back with tcgen05.ld, for bfloat16, float16, tf32 (float32 inputs) and
 * fp8 (e4m3), M = 128 (data path D) and 64 (F), several N, and an MN-major
 * B; M = 64 with A and D the first 64 rows of tiles declared row i on lane
 * i (the reference's form: A staged by .16x256b column slices, the ts MMA,
 * D read back by slices); kind::f8f6f4 with e2m3 A and e2m1 B
 * (tests/build/gemm_tcgen05_f8f6f4.tirx). Fresh random inputs exactly
 * representable in the input type (products
 * exact in float64), D poisoned first, against a float64 reference;
 * relative L2 error at most 1e-5 (the float32 accumulation order is all
 * that differs). Block scaled (tests/gpu/op_gemm_tcgen05_bs.tirx): e4m3
 * with e8m0 factors (kind::mxf8f6f4), fp4 with e8m0 factors (mxf4) and fp4
 * with e4m3 factors (mxf4nvf4), and under mxf8f6f4 fp6 (e2m3, e3m2) and fp4
 * packed in global memory, unpacked by the TMA into the _align16 form the
 * MMA reads (16U6 / 16U4_ALIGN16B), and mxf8f6f4 with cta_group=2 (a
 * cluster of two CTAs, tests/gpu/op_gemm_tcgen05_bs2.tirx, the factors
 * staged by tcgen05.cp.cta_group::2), the factors small powers of two (e8m0) or
 * small e4m3 values, so that every partial sum is exact in float32 and the
 * result must equal the float64 reference bit for bit, on the GPU and in
 * the simulator. Skips (77) without a GPU or on a device
 * other than sm_100; runs in the simulator as sim.op_gemm_tcgen05. */
#include "op_kernel.h"

typedef enum { BF16, F16, TF32, E4M3 } Elem;

typedef struct Case {
    Elem e;
    int m, n, k;
    bool tb;
    bool plain; /* A and D as the first 64 rows of row-i-on-lane-i tiles */
} Case;

static const char *elem_name(Elem e)
{
    static const char *const names[] = {"bfloat16", "float16", "float32", "float8_e4m3fn"};
    return names[e];
}

static int elem_bits(Elem e) { return e == TF32 ? 32 : e == E4M3 ? 8 : 16; }

static uint8_t elem_code(Elem e)
{
    return e == BF16 ? kDLBfloat : e == E4M3 ? kDLFloat8_e4m3fn : kDLFloat;
}

/* A small value exactly representable in e, its bits stored at dst. */
static double random_elem(GpuRng *rng, Elem e, void *dst)
{
    uint64_t r = gpu_next(rng);
    int sign = r & 1 ? -1 : 1, mant = (int)(r >> 1 & 7), exp = (int)((r >> 4) % 4) - 2;
    double v = sign * (1.0 + mant / 8.0) * ldexp(1.0, exp);
    float f = (float)v;
    switch (e) {
    case BF16: *(uint16_t *)dst = op_f32_to_bf16(f); break;
    case F16: *(uint16_t *)dst = op_f32_to_f16(f); break;
    case TF32: memcpy(dst, &f, 4); break;
    case E4M3: *(uint8_t *)dst = (uint8_t)((sign < 0) << 7 | (exp + 7) << 3 | mant); break;
    }
    return v;
}

/* Compiles the kernel for c, with extra defines (NULL: none). */
static tirx_module *compile_case(tirx_device *gpu, const Case *c, const tirx_define *extra,
                                 size_t nextra)
{
    char v[3][16];
    snprintf(v[0], 16, "%d", c->m), snprintf(v[1], 16, "%d", c->n), snprintf(v[2], 16, "%d", c->k);
    tirx_define d[8] = {{"M", v[0]}, {"N", v[1]}, {"K", v[2]}, {"DTYPE", elem_name(c->e)},
                        {"TB", c->tb ? "True" : "False"}, {"PLAIN", c->plain ? "True" : "False"}};
    for (size_t i = 0; i < nextra && i < 2; i++)
        d[6 + i] = extra[i];
    return op_compile(gpu, "tests/gpu/op_gemm_tcgen05.tirx", d, 6 + nextra);
}

/* Runs c on fresh inputs; the relative L2 error against float64. */
static double run(tirx_device *gpu, tirx_module *mod, GpuRng *rng, const Case *c)
{
    int br = c->tb ? c->k : c->n, bc = c->tb ? c->n : c->k, bits = elem_bits(c->e);
    size_t na = (size_t)c->m * c->k, nb = (size_t)c->n * c->k, nd = (size_t)c->m * c->n;
    uint8_t *a = malloc(na * 4), *b = malloc(nb * 4);
    double *av = malloc(na * 8), *bv = malloc(nb * 8), *ref = malloc(nd * 8);
    float *out = malloc(nd * 4);
    GPU_CHECK(a && b && av && bv && ref && out, "host memory");
    for (size_t i = 0; i < na; i++)
        av[i] = random_elem(rng, c->e, a + i * bits / 8);
    for (int j = 0; j < c->n; j++) /* bv[j * K + k] = B'[j, k], stored at B[j, k] or B[k, j] */
        for (int k = 0; k < c->k; k++) {
            size_t at = c->tb ? (size_t)k * c->n + j : (size_t)j * c->k + k;
            bv[(size_t)j * c->k + k] = random_elem(rng, c->e, b + at * bits / 8);
        }
    for (int i = 0; i < c->m; i++)
        for (int j = 0; j < c->n; j++) {
            double s = 0;
            for (int k = 0; k < c->k; k++)
                s += av[(size_t)i * c->k + k] * bv[(size_t)j * c->k + k];
            ref[(size_t)i * c->n + j] = s;
        }
    OpTensor A, B, D;
    op_tensor(gpu, &A, c->m, c->k, elem_code(c->e), (uint8_t)bits);
    op_tensor(gpu, &B, br, bc, elem_code(c->e), (uint8_t)bits);
    op_tensor(gpu, &D, c->m, c->n, kDLFloat, 32);
    op_upload(gpu, &A, a), op_upload(gpu, &B, b), op_poison(gpu, &D);
    OpTensor *args[] = {&A, &B, &D};
    op_launch(mod, "gemm", args, 3);
    op_download(gpu, &D, out);
    double rel = gpu_rel_l2(out, ref, nd);
    op_free(gpu, &A), op_free(gpu, &B), op_free(gpu, &D);
    free(a), free(b), free(av), free(bv), free(ref), free(out);
    return rel;
}

/* ---------------------------------------------------------------- block scaled */

/* The block-scaled cases: the kind and, for mxf8f6f4, the operand type. */
typedef enum { MXF8F6F4, MXF4, MXF4NVF4, MX_E2M3, MX_E3M2, MX_E2M1 } Kind;

static int kind_bits(Kind k) { return k == MXF8F6F4 ? 8 : k == MX_E2M3 || k == MX_E3M2 ? 6 : 4; }

/* The value of an n-bit OCP float code with e exponent bits (no inf / NaN). */
static double fpn_value(uint32_t code, int e, int n)
{
    int m = n - 1 - e, bias = (1 << (e - 1)) - 1;
    uint32_t ex = code >> m & ((1u << e) - 1), man = code & ((1u << m) - 1);
    double v = ex ? ldexp(1.0 + man / (double)(1 << m), (int)ex - bias)
                  : ldexp(man / (double)(1 << m), 1 - bias);
    return code >> (n - 1) & 1 ? -v : v;
}

typedef struct ScaledCase {
    Kind kind;
    int n, k;
    bool pair; /* cta_group=2: a cluster of two CTAs, 256 rows (op_gemm_tcgen05_bs2.tirx) */
} ScaledCase;

/* A random e2m1 value (its nibble at *bits), or e4m3 through random_elem. */
static double random_op(GpuRng *rng, Kind kind, uint8_t *bits)
{
    if (kind == MXF8F6F4)
        return random_elem(rng, E4M3, bits);
    uint64_t r = gpu_next(rng);
    if (kind == MX_E2M3 || kind == MX_E3M2) { /* e3m2 below 2: the sums stay exact */
        *bits = (uint8_t)(r & (kind == MX_E3M2 ? 0x2f : 0x3f));
        return fpn_value(*bits, kind == MX_E2M3 ? 2 : 3, 6);
    }
    *bits = (uint8_t)(r & 15);
    return fpn_value(*bits, 2, 4);
}

/* A random scale factor: e8m0 2^0 .. 2^1 (e4m3 operands) or 2^-1 .. 2^1
 * (fp4), or e4m3 1 or 1.5 times 2^-1 .. 2^1: narrow enough that every
 * partial sum of the products is exact in float32, whatever the order. */
static double random_sf(GpuRng *rng, Kind kind, uint8_t *bits)
{
    uint64_t r = gpu_next(rng);
    if (kind != MXF4NVF4) {
        int e = kind == MXF8F6F4 || kind == MX_E3M2 ? (int)(r % 2) : (int)(r % 3) - 1;
        *bits = (uint8_t)(127 + e);
        return ldexp(1.0, e);
    }
    int mant = (int)(r >> 3 & 1) * 4, e = (int)(r % 3) - 1;
    *bits = (uint8_t)((e + 7) << 3 | mant);
    return (1.0 + mant / 8.0) * ldexp(1.0, e);
}

/* Random rows x k operand values (fp4 and fp6 packed from the low bits of
 * the bytes up) and their rows x k / vec factors, each value multiplied by
 * its factor in val. */
static void scaled_operand(GpuRng *rng, Kind kind, int rows, int k, int vec, uint8_t *data,
                           uint8_t *sf, double *val)
{
    int bits = kind_bits(kind);
    memset(data, 0, (size_t)rows * k * bits / 8);
    for (int r = 0; r < rows; r++) {
        double f = 1;
        for (int i = 0; i < k; i++) {
            if (i % vec == 0)
                f = random_sf(rng, kind, &sf[(size_t)r * (k / vec) + i / vec]);
            uint8_t b;
            size_t at = (size_t)r * k + i;
            val[at] = random_op(rng, kind, &b) * f;
            size_t bit = at * (size_t)bits;
            data[bit / 8] |= (uint8_t)(b << bit % 8);
            if (bit % 8 + (size_t)bits > 8)
                data[bit / 8 + 1] |= (uint8_t)(b >> (8 - bit % 8));
        }
    }
}

static tirx_module *compile_scaled(tirx_device *gpu, const ScaledCase *c)
{
    static const char *const dtype[] = {"float8_e4m3fn", "float4_e2m1fn", "float4_e2m1fn",
                                        "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"};
    static const char *const sdtype[] = {"float8_e4m3fn", "float4_e2m1fn", "float4_e2m1fn",
                                         "float6_e2m3fn_align16", "float6_e3m2fn_align16",
                                         "float4_e2m1fn_align16"};
    static const char *const per[] = {"1", "2", "4", "1", "1", "1"};
    char v[2][16];
    snprintf(v[0], 16, "%d", c->n), snprintf(v[1], 16, "%d", c->k);
    tirx_define d[] = {{"N", v[0]}, {"K", v[1]}, {"DTYPE", dtype[c->kind]},
                       {"SDTYPE", sdtype[c->kind]},
                       {"SBITS", c->kind == MXF4 || c->kind == MXF4NVF4 ? "4" : "8"},
                       /* op_gemm_tcgen05_bs.tirx: the factors' form */
                       {"SF_DTYPE", c->kind == MXF4NVF4 ? "float8_e4m3fn" : "float8_e8m0fnu"},
                       {"SF_VEC", c->kind == MXF4NVF4 ? "16" : "32"}, {"SF_PER_MMA", per[c->kind]}};
    if (c->pair)
        return op_compile(gpu, "tests/gpu/op_gemm_tcgen05_bs2.tirx", d, 5);
    return op_compile(gpu, "tests/gpu/op_gemm_tcgen05_bs.tirx", d, sizeof d / sizeof d[0]);
}

static void check_scaled(tirx_device *gpu, GpuRng *rng, const ScaledCase *c)
{
    static const char *const names[] = {"mxf8f6f4 (e4m3, e8m0)", "mxf4 (e2m1, e8m0)",
                                        "mxf4nvf4 (e2m1, e4m3)", "mxf8f6f4 (e2m3, e8m0)",
                                        "mxf8f6f4 (e3m2, e8m0)", "mxf8f6f4 (e2m1, e8m0)"};
    int m = c->pair ? 256 : 128;
    printf("block scaled %s, %d x %d x %d%s:\n", names[c->kind], m, c->n, c->k,
           c->pair ? ", cta_group=2" : "");
    tirx_module *mod = compile_scaled(gpu, c);
    int vec = c->kind == MXF4NVF4 ? 16 : 32, bits = kind_bits(c->kind);
    size_t na = (size_t)m * c->k, nb = (size_t)c->n * c->k, nd = (size_t)m * c->n;
    uint8_t *a = malloc(na), *b = malloc(nb), *sfa = malloc(na / vec), *sfb = malloc(nb / vec);
    double *av = malloc(na * 8), *bv = malloc(nb * 8), *ref = malloc(nd * 8);
    float *out = malloc(nd * 4);
    GPU_CHECK(a && b && sfa && sfb && av && bv && ref && out, "host memory");
    scaled_operand(rng, c->kind, m, c->k, vec, a, sfa, av);
    scaled_operand(rng, c->kind, c->n, c->k, vec, b, sfb, bv);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < c->n; j++) {
            double s = 0;
            for (int k = 0; k < c->k; k++)
                s += av[(size_t)i * c->k + k] * bv[(size_t)j * c->k + k];
            ref[(size_t)i * c->n + j] = s;
        }
    uint8_t code = c->kind == MXF8F6F4 ? kDLFloat8_e4m3fn
                   : c->kind == MX_E2M3 ? kDLFloat6_e2m3fn
                   : c->kind == MX_E3M2 ? kDLFloat6_e3m2fn : kDLFloat4_e2m1fn;
    OpTensor A, B, SA, SB, D;
    op_tensor(gpu, &A, m, c->k, code, (uint8_t)bits);
    op_tensor(gpu, &B, c->n, c->k, code, (uint8_t)bits);
    op_tensor(gpu, &SA, m, c->k / vec, kDLUInt, 8);
    op_tensor(gpu, &SB, c->n, c->k / vec, kDLUInt, 8);
    op_tensor(gpu, &D, m, c->n, kDLFloat, 32);
    op_upload(gpu, &A, a), op_upload(gpu, &B, b), op_upload(gpu, &SA, sfa);
    op_upload(gpu, &SB, sfb), op_poison(gpu, &D);
    OpTensor *args[] = {&A, &B, &SA, &SB, &D};
    op_launch(mod, c->pair ? "gemm_bs2" : "gemm_bs", args, 5);
    op_download(gpu, &D, out);
    double rel = gpu_rel_l2(out, ref, nd);
    size_t inexact = 0;
    for (size_t i = 0; i < nd; i++)
        inexact += out[i] != (float)ref[i];
    printf("  rel L2 error %.3g, %zu of %zu not the rounded reference\n", rel, inexact, nd);
    GPU_CHECK(rel <= 1e-5, "the block-scaled product matches the float64 reference");
    GPU_CHECK(inexact == 0, "the block-scaled product is exact");
    op_free(gpu, &A), op_free(gpu, &B), op_free(gpu, &SA), op_free(gpu, &SB), op_free(gpu, &D);
    free(a), free(b), free(sfa), free(sfb), free(av), free(bv), free(ref), free(out);
    tirx_module_free(mod);
}

/* Dense kind::f8f6f4 with mixed sub-byte operands (tests/build/gemm_tcgen05_f8f6f4.tirx's
 * gemm_f8f6f4): A 128 x 128 e2m3, B 64 x 128 e2m1, packed in global memory and
 * unpacked by the TMA; every partial sum is exact in float32. */
static void check_f8f6f4(tirx_device *gpu, GpuRng *rng)
{
    enum { M = 128, N = 64, K = 128 };
    printf("f8f6f4 (e2m3 x e2m1), %d x %d x %d:\n", M, N, K);
    tirx_module *mod = op_compile(gpu, "tests/build/gemm_tcgen05_f8f6f4.tirx", NULL, 0);
    static uint8_t a[M * K * 6 / 8], b[N * K / 2];
    static double av[M * K], bv[N * K], ref[M * N];
    static float out[M * N];
    memset(a, 0, sizeof a), memset(b, 0, sizeof b);
    for (int i = 0; i < M * K; i++) {
        uint32_t code = (uint32_t)(gpu_next(rng) & 63), bit = (uint32_t)i * 6;
        av[i] = fpn_value(code, 2, 6);
        a[bit / 8] |= (uint8_t)(code << bit % 8);
        if (bit % 8 > 2)
            a[bit / 8 + 1] |= (uint8_t)(code >> (8 - bit % 8));
    }
    for (int i = 0; i < N * K; i++) {
        uint32_t code = (uint32_t)(gpu_next(rng) & 15);
        bv[i] = fpn_value(code, 2, 4);
        b[i / 2] |= (uint8_t)(code << 4 * (i % 2));
    }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double sum = 0;
            for (int k = 0; k < K; k++)
                sum += av[i * K + k] * bv[j * K + k];
            ref[i * N + j] = sum;
        }
    OpTensor A, B, D;
    op_tensor(gpu, &A, M, K, kDLFloat6_e2m3fn, 6);
    op_tensor(gpu, &B, N, K, kDLFloat4_e2m1fn, 4);
    op_tensor(gpu, &D, M, N, kDLFloat, 32);
    op_upload(gpu, &A, a), op_upload(gpu, &B, b), op_poison(gpu, &D);
    OpTensor *args[] = {&A, &B, &D};
    op_launch(mod, "gemm_f8f6f4", args, 3);
    op_download(gpu, &D, out);
    size_t inexact = 0;
    for (size_t i = 0; i < (size_t)M * N; i++)
        inexact += out[i] != (float)ref[i];
    printf("  rel L2 error %.3g, %zu of %d not the rounded reference\n",
           gpu_rel_l2(out, ref, (size_t)M * N), inexact, M * N);
    GPU_CHECK(inexact == 0, "the f8f6f4 product of fp6 and fp4 operands is exact");
    op_free(gpu, &A), op_free(gpu, &B), op_free(gpu, &D);
    tirx_module_free(mod);
}

/* C and A in tensor memory as two 64-lane halves (tests/gpu/op_gemm_tcgen05_bmm.tirx,
 * data path E): D[64 h + i, j] = sum_k A[64 h + i, k] B[n / 2 h + j, k], A's
 * lanes 64-127 feeding the columns on those lanes only. */
static void check_bmm(tirx_device *gpu, GpuRng *rng, int n, int k)
{
    enum { M = 128 };
    printf("bfloat16, two 64-row halves of A in tensor memory, %d x %d x %d:\n", M, n, k);
    char v[2][16];
    snprintf(v[0], 16, "%d", n), snprintf(v[1], 16, "%d", k);
    tirx_define d[] = {{"N", v[0]}, {"K", v[1]}};
    tirx_module *mod = op_compile(gpu, "tests/gpu/op_gemm_tcgen05_bmm.tirx", d, 2);
    int nh = n / 2;
    size_t na = (size_t)M * k, nb = (size_t)n * k, nd = (size_t)M * nh;
    uint16_t *a = malloc(na * 2), *b = malloc(nb * 2);
    double *av = malloc(na * 8), *bv = malloc(nb * 8), *ref = malloc(nd * 8);
    float *out = malloc(nd * 4);
    GPU_CHECK(a && b && av && bv && ref && out, "host memory");
    for (size_t i = 0; i < na; i++)
        av[i] = random_elem(rng, BF16, &a[i]);
    for (size_t i = 0; i < nb; i++)
        bv[i] = random_elem(rng, BF16, &b[i]);
    for (int r = 0; r < M; r++)
        for (int j = 0; j < nh; j++) {
            double sum = 0;
            for (int x = 0; x < k; x++)
                sum += av[(size_t)r * k + x] * bv[(size_t)(r / 64 * nh + j) * k + x];
            ref[(size_t)r * nh + j] = sum;
        }
    OpTensor A, B, D;
    op_tensor(gpu, &A, M, k, kDLBfloat, 16);
    op_tensor(gpu, &B, n, k, kDLBfloat, 16);
    op_tensor(gpu, &D, M, nh, kDLFloat, 32);
    op_upload(gpu, &A, a), op_upload(gpu, &B, b), op_poison(gpu, &D);
    OpTensor *args[] = {&A, &B, &D};
    op_launch(mod, "bmm", args, 3);
    op_download(gpu, &D, out);
    double rel = gpu_rel_l2(out, ref, nd);
    printf("  rel L2 error %.3g\n", rel);
    GPU_CHECK(rel <= 1e-5, "each half of the product matches its float64 reference");
    op_free(gpu, &A), op_free(gpu, &B), op_free(gpu, &D);
    free(a), free(b), free(av), free(bv), free(ref), free(out);
    tirx_module_free(mod);
}

static void check(tirx_device *gpu, GpuRng *rng, const Case *c)
{
    printf("%s, %d x %d x %d, %s-major B%s:\n", elem_name(c->e), c->m, c->n, c->k,
           c->tb ? "N" : "K", c->plain ? ", A and D on rows 0-63 of row-on-lane tiles" : "");
    tirx_module *mod = compile_case(gpu, c, NULL, 0);
    double rel = run(gpu, mod, rng, c);
    printf("  rel L2 error %.3g\n", rel);
    GPU_CHECK(rel <= 1e-5, "the tcgen05 product matches the float64 reference");
    tirx_module_free(mod);
}

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_SM100_ONLY, "tcgen05 needs sm_100a");
    static const Case cases[] = {
        {BF16, 128, 128, 64, false}, {F16, 128, 256, 128, false}, {BF16, 64, 64, 64, false},
        {TF32, 128, 64, 32, false},  {E4M3, 128, 128, 128, false}, {BF16, 128, 128, 64, true},
        {BF16, 64, 64, 64, false, true}, {TF32, 64, 32, 32, false, true},
    };
    static const ScaledCase scaled[] = {{MXF8F6F4, 64, 128}, {MXF4, 64, 256},
                                        {MXF4NVF4, 128, 256}, {MX_E2M3, 64, 128},
                                        {MX_E3M2, 64, 256}, {MX_E2M1, 128, 128},
                                        {MXF8F6F4, 128, 128, true}, {MX_E2M3, 128, 128, true}};
    GpuRng rng = gpu_rng();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check(gpu, &rng, &cases[i]);
    for (size_t i = 0; i < sizeof scaled / sizeof scaled[0]; i++)
        check_scaled(gpu, &rng, &scaled[i]);
    check_f8f6f4(gpu, &rng);
    check_bmm(gpu, &rng, 128, 64);
    check_bmm(gpu, &rng, 256, 128);
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}
