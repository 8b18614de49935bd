/* GPU test of the elementwise primitives' pair forms at thread scope
 * (tests/gpu/op_elem_pairs.tirx): fp8 (every e4m3 and e5m2 code), float32
 * (random bits, with ties, subnormals, infinities and NaNs), bfloat16 and
 * float16 inputs go through Tx.cast / mul / add / sub two values per
 * instruction and through a scalar loop; the two results must be the same
 * bits (any NaN matches any NaN), and a few known values are checked; a
 * padded layout pairs, a scalar reading the destination does not. The same
 * casts and arithmetic on register tiles spread over a warp's lanes
 * (elem_frag_pairs) must give the scalar bits too. The
 * simulator runs it for sm_90a and for sm_100a (float32 pairs through
 * mul.rn.f32x2 and fma.rn.f32x2). */
#include "op_kernel.h"

#define T 128
#define K 20
#define N 16

static const char *const cases[K] = {
    "e4m3 -> bf16", "e4m3 -> f16", "e4m3 -> f32", "e5m2 -> bf16", "e5m2 -> f16", "e5m2 -> f32",
    "f32 -> bf16",  "f32 -> f16",  "bf16 mul",    "bf16 add",     "bf16 sub s",  "bf16 s mul",
    "f16 mul",      "f16 add s",   "f16 sub",     "bf16 s sub",   "f32 mul s",   "f32 fma",
    "bf16 add pad", "bf16 mul dst"};

/* The result's width: 32 bits for the float32 cases, else 16. */
static bool wide(int k) { return k == 2 || k == 5 || k == 16 || k == 17; }

static bool is_nan(uint32_t v, bool w, bool bf)
{
    if (w)
        return (v & 0x7f800000u) == 0x7f800000u && (v & 0x7fffffu);
    return bf ? (v & 0x7f80u) == 0x7f80u && (v & 0x7fu) : (v & 0x7c00u) == 0x7c00u && (v & 0x3ffu);
}

static bool bf16_result(int k)
{
    return k == 0 || k == 3 || k == 6 || (k >= 8 && k <= 11) || k == 15 || k >= 18;
}

static float f32_of(uint32_t v)
{
    float f;
    memcpy(&f, &v, 4);
    return f;
}

/* The cases elem_frag_pairs computes (bits k of the mask). */
#define FRAG_CASES 0xffcfu

/* Pairs (OUT[0]) against scalar steps (OUT[1]) for the cases in `mask`:
 * the number of differing values. */
static int compare(const uint32_t *out, unsigned mask)
{
    int bad = 0;
    for (int k = 0; k < K; k++) {
        if (!(mask >> k & 1))
            continue;
        int diff = 0;
        for (int t = 0; t < T; t++)
            for (int i = 0; i < N; i++) {
                uint32_t p = out[(t * K + k) * N + i], s = out[((T + t) * K + k) * N + i];
                bool w = wide(k), bf = bf16_result(k);
                if (p == s || (is_nan(p, w, bf) && is_nan(s, w, bf)))
                    continue;
                if (diff++ < 3)
                    printf("  %s: thread %d value %d: pairs 0x%x, scalar 0x%x\n", cases[k], t, i,
                           p, s);
            }
        printf("  %-13s %s\n", cases[k], diff ? "DIFFERS" : "same bits");
        bad += diff;
    }
    return bad;
}

static void run(tirx_device *gpu)
{
    GpuRng rng = gpu_rng();
    tirx_module *m = op_compile(gpu, "tests/gpu/op_elem_pairs.tirx", NULL, 0);
    uint8_t x8[T * N];
    uint32_t xf[T * N];
    uint16_t xb[T * 2 * N], xh[T * 2 * N];
    static uint32_t out[2 * T * K * N];
    for (int i = 0; i < T * N; i++) {
        x8[i] = (uint8_t)i; /* every code, 8 times over */
        uint32_t r = (uint32_t)gpu_next(&rng);
        switch (i % 8) {
        case 0: xf[i] = r & 0xffff8000u; break;            /* bfloat16 ties and near */
        case 1: xf[i] = (r & 0x807fffffu) | 0x00000000u; break; /* subnormals */
        case 2: xf[i] = (r & 0x80001fffu) | 0x38000000u | 0x1000u; break; /* float16 ties */
        case 3: xf[i] = (r & 0x807fffffu) | 0x7f800000u; break; /* inf, NaN */
        default: xf[i] = r;
        }
    }
    for (int i = 0; i < T * 2 * N; i++) {
        uint16_t r = (uint16_t)gpu_next(&rng);
        /* mostly finite, similar magnitudes, some subnormals and specials */
        xb[i] = i % 16 == 15 ? r : (uint16_t)((r & 0x807f) | (0x3c00 + (r >> 8 & 0x7) * 0x80));
        xh[i] = i % 16 == 15 ? r : (uint16_t)((r & 0x83ff) | (0x3400 + (r >> 11 & 0x3) * 0x400));
    }
    OpTensor X8, XF, XB, XH, OUT;
    op_tensor(gpu, &X8, T, N, kDLUInt, 8);
    op_tensor(gpu, &XF, T, N, kDLFloat, 32);
    int64_t s3[3] = {T, 2, N}, s4[4] = {2, T, K, N};
    op_tensor_nd(gpu, &XB, 3, s3, kDLUInt, 16);
    op_tensor_nd(gpu, &XH, 3, s3, kDLUInt, 16);
    op_tensor_nd(gpu, &OUT, 4, s4, kDLUInt, 32);
    op_upload(gpu, &X8, x8), op_upload(gpu, &XF, xf), op_upload(gpu, &XB, xb);
    op_upload(gpu, &XH, xh), op_poison(gpu, &OUT);
    tirx_arg args[6] = {tirx_arg_tensor(&X8.t), tirx_arg_tensor(&XF.t), tirx_arg_tensor(&XB.t),
                        tirx_arg_tensor(&XH.t), tirx_arg_tensor(&OUT.t), tirx_arg_float(0.7734375)};
    op_launch_args(m, "elem_pairs", args, 6);
    op_download(gpu, &OUT, out);
    GPU_CHECK(compare(out, ~0u) == 0, "the pair forms give the scalar steps' bits");
    /* known values: e4m3 0x38 is 1.0, 0x01 the smallest subnormal 2^-9, 0xfe -448 */
    GPU_CHECK(f32_of(out[(0 * K + 2) * N + 0x08]) == 0x1p-6f, "e4m3 0x08 is 2^-6");
    GPU_CHECK(f32_of(out[(3 * K + 2) * N + 0x08]) == 1.0f, "e4m3 0x38 is 1");
    GPU_CHECK(f32_of(out[(0 * K + 2) * N + 0x01]) == 0x1p-9f, "e4m3 0x01 is 2^-9");
    GPU_CHECK(f32_of(out[(15 * K + 2) * N + 0x0e]) == -448.0f, "e4m3 0xfe is -448");
    GPU_CHECK(out[(3 * K + 0) * N + 0x08] == 0x3f80u, "e4m3 0x38 is bfloat16 1");
    GPU_CHECK(f32_of(out[(3 * K + 5) * N + 0x0c]) == 1.0f, "e5m2 0x3c is 1");
    printf("  known values: ok\n");
    printf("  register tiles over a warp (elem_frag_pairs):\n");
    op_poison(gpu, &OUT);
    op_launch_args(m, "elem_frag_pairs", args, 6);
    op_download(gpu, &OUT, out);
    GPU_CHECK(compare(out, FRAG_CASES) == 0, "the pair forms on register tiles give the scalar bits");
    op_free(gpu, &X8), op_free(gpu, &XF), op_free(gpu, &XB), op_free(gpu, &XH);
    op_free(gpu, &OUT);
    tirx_module_free(m);
}

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_SM90_OR_NEWER, "cvt.rn.f16x2.e4m3x2 needs sm_90a");
    run(gpu);
    if (OP_SIM) {
        op_sim_arch = "sm_100a";
        printf("simulator: sm_100a\n");
        run(gpu);
    }
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}
