/* The CUDA code generator's semantics on the GPU, for what the CPU-only tests
 * cannot show: kernels written in the IR contract's form are generated with
 * cg_emit_module for the device's target, compiled with the prelude and run.
 *  - floor division and modulo of negative int32 by positive and negative
 *    divisors (tx_floordiv/tx_floormod) against C's floor semantics;
 *  - half arithmetic: a * b + a rounds to half after each operation;
 *  - fp8: float -> e4m3/e5m2 and all 256 e4m3/e5m2 codes -> float, by the
 *    prelude's software path (sm_80) compared bit for bit with the hardware
 *    cvt it uses on sm_89+, on fresh random values and the edge cases;
 *  - a clustered kernel (__cluster_dims__) launched with the runtime's
 *    cluster attribute reads its cluster CTA id.
 * Exit 0 passed, 1 failed, 77 skipped (no GPU). With OP_SIM=1
 * (sim.codegen_semantics) the same IR runs in the simulator with the same
 * checks: its integer, half and fp8 semantics and its cluster ids (its two
 * fp8 builds are one conversion, so they agree by construction there). */
#include "codegen_test.h"


#define N 4096

static const char kernels[] =
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def semantics(I_data: T.handle(\"int32\", \"global\"), Q_data: T.handle(\"int32\", \"global\"),"
    " H_data: T.handle(\"float16\", \"global\"), G_data: T.handle(\"float16\", \"global\"),"
    " R_data: T.handle(\"float16\", \"global\"), F_data: T.handle(\"float32\", \"global\"),"
    " E_data: T.handle(\"float8_e4m3fn\", \"global\"), M_data: T.handle(\"float8_e5m2\", \"global\"),"
    " C_data: T.handle(\"float8_e4m3fn\", \"global\"), K_data: T.handle(\"float8_e5m2\", \"global\"),"
    " D_data: T.handle(\"float32\", \"global\"), n: T.int32):\n"
    "        T.func_attr({\"calling_conv\": 2, \"target\": \"cuda\", \"tirx.kernel_launch_params\": [\"blockIdx.x\", \"threadIdx.x\"]})\n"
    "        blockIdx_x = T.launch_thread(\"blockIdx.x\", (n + 127) // 128)\n"
    "        threadIdx_x = T.launch_thread(\"threadIdx.x\", 128)\n"
    "        I = T.decl_buffer((n,), \"int32\", data=I_data, layout=None)\n"
    "        Q = T.decl_buffer((n * 4,), \"int32\", data=Q_data, layout=None)\n"
    "        H = T.decl_buffer((n,), \"float16\", data=H_data, layout=None)\n"
    "        G = T.decl_buffer((n,), \"float16\", data=G_data, layout=None)\n"
    "        R = T.decl_buffer((n,), \"float16\", data=R_data, layout=None)\n"
    "        F = T.decl_buffer((n,), \"float32\", data=F_data, layout=None)\n"
    "        E = T.decl_buffer((n,), \"float8_e4m3fn\", data=E_data, layout=None)\n"
    "        M = T.decl_buffer((n,), \"float8_e5m2\", data=M_data, layout=None)\n"
    "        C = T.decl_buffer((256,), \"float8_e4m3fn\", data=C_data, layout=None)\n"
    "        K = T.decl_buffer((256,), \"float8_e5m2\", data=K_data, layout=None)\n"
    "        D = T.decl_buffer((512,), \"float32\", data=D_data, layout=None)\n"
    "        i: T.let[T.int32] = blockIdx_x * 128 + threadIdx_x\n"
    "        if i < n:\n"
    "            Q[i * 4] = I[i] // 7\n"
    "            Q[i * 4 + 1] = I[i] % 7\n"
    "            Q[i * 4 + 2] = I[i] // -5\n"
    "            Q[i * 4 + 3] = I[i] % -5\n"
    "            R[i] = H[i] * G[i] + H[i]\n"
    "            E[i] = T.Cast(\"float8_e4m3fn\", F[i])\n"
    "            M[i] = T.Cast(\"float8_e5m2\", F[i])\n"
    "        if i < 256:\n"
    "            D[i] = T.Cast(\"float32\", C[i])\n"
    "            D[i + 256] = T.Cast(\"float32\", K[i])\n"
    "\n"
    "    @T.prim_func\n"
    "    def clustered(O_data: T.handle(\"int32\", \"global\")):\n"
    "        T.func_attr({\"calling_conv\": 2, \"target\": \"cuda\", \"tirx.kernel_launch_params\": [\"blockIdx.x\", \"threadIdx.x\"], \"tirx.cluster_dims\": [2, 1, 1]})\n"
    "        clusterCtaIdx_x = T.launch_thread(\"clusterCtaIdx.x\", 2)\n"
    "        blockIdx_x = T.launch_thread(\"blockIdx.x\", 4)\n"
    "        threadIdx_x = T.launch_thread(\"threadIdx.x\", 32)\n"
    "        O = T.decl_buffer((128,), \"int32\", data=O_data, layout=None)\n"
    "        O[blockIdx_x * 32 + threadIdx_x] = clusterCtaIdx_x * 1000 + blockIdx_x\n";

/* C's floor division and modulo (the IR's FloorDiv/FloorMod). */
static int floordiv(int a, int b)
{
    int q = a / b;
    return (a % b != 0 && ((a % b < 0) != (b < 0))) ? q - 1 : q;
}

static int floormod(int a, int b)
{
    return a - floordiv(a, b) * b;
}

/* IEEE binary16 <-> float on the host (round to nearest even). */
static uint16_t to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, m = x & 0x7fffff;
    int e = (int)((x >> 23) & 0xff) - 127 + 15;
    if (((x >> 23) & 0xff) == 0xff)
        return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10)
            return (uint16_t)sign;
        uint32_t full = m | 0x800000, shift = (uint32_t)(14 - e);
        uint32_t q = full >> shift, rem = full & ((1u << shift) - 1), half = 1u << (shift - 1);
        return (uint16_t)(sign | (q + (rem > half || (rem == half && (q & 1)))));
    }
    uint32_t r = sign | (uint32_t)e << 10 | m >> 13, rem = m & 0x1fff;
    return (uint16_t)(r + (rem > 0x1000 || (rem == 0x1000 && (r & 1))));
}

static float from_half(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 31, m = h & 0x3ff;
    float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 0x400), (int)e - 25);
    uint32_t u;
    memcpy(&u, &v, 4);
    u |= sign;
    memcpy(&v, &u, 4);
    return v;
}

typedef struct Buffers {
    RtDevPtr i, q, h, g, r, f, e, m, c, k, d;
} Buffers;

/* Inputs: ints across the sign, halves, floats at fp8's edges and random. */
static void make_inputs(GpuRng *rng, int *ints, uint16_t *h, uint16_t *g, float *f, uint8_t *codes)
{
    static const float edges[] = {0.0f, -0.0f, 448.0f, 464.0f, 465.0f, 480.0f, 1e9f, -1e9f,
                                  57344.0f, 61440.0f, 0.001953125f, 0.0009765625f, 0.00146484375f,
                                  1.52587890625e-05f, 2.288818359375e-05f, 1.0625f, 1.1875f,
                                  INFINITY, -INFINITY, NAN};
    for (int i = 0; i < N; i++) {
        ints[i] = (int)(gpu_next(rng) % 2001) - 1000;
        h[i] = to_half(gpu_uniform(rng) * 8);
        g[i] = to_half(gpu_uniform(rng) * 8);
        float mag = ldexpf(gpu_uniform(rng), (int)(gpu_next(rng) % 40) - 20);
        f[i] = i < (int)TX_ARRAY_LEN(edges) ? edges[i] : mag;
    }
    for (int c = 0; c < 256; c++)
        codes[c] = (uint8_t)c;
}

static void run_semantics(CgDevice *d, const CgKernels *k, const Buffers *b, int n)
{
    void *args[] = {(void *)&b->i, (void *)&b->q, (void *)&b->h, (void *)&b->g, (void *)&b->r,
                    (void *)&b->f, (void *)&b->e, (void *)&b->m, (void *)&b->c, (void *)&b->k,
                    (void *)&b->d, &n};
    RtLaunchConfig cfg = {{(unsigned)(n + 127) / 128, 1, 1}, {128, 1, 1}, {0, 0, 0}, 0, NULL};
    cg_launch(d, k, "semantics", &cfg, args);
}

typedef struct Results {
    int q[4 * N];
    uint16_t r[N];
    uint8_t e[N], m[N];
    float dec[512];
} Results;

static void download(CgDevice *d, const Buffers *b, Results *out)
{
    cg_download(d, out->q, b->q, sizeof out->q);
    cg_download(d, out->r, b->r, sizeof out->r);
    cg_download(d, out->e, b->e, sizeof out->e);
    cg_download(d, out->m, b->m, sizeof out->m);
    cg_download(d, out->dec, b->d, sizeof out->dec);
}

static void poison(CgDevice *d, const Buffers *b)
{
    cg_poison(d, b->q, 4 * N * 4);
    cg_poison(d, b->r, N * 2);
    cg_poison(d, b->e, N);
    cg_poison(d, b->m, N);
    cg_poison(d, b->d, 512 * 4);
}

static void check_integers_and_halves(const Results *r, const int *ints, const uint16_t *h,
                                      const uint16_t *g)
{
    for (int i = 0; i < N; i++) {
        int want[4] = {floordiv(ints[i], 7), floormod(ints[i], 7), floordiv(ints[i], -5),
                       floormod(ints[i], -5)};
        for (int k = 0; k < 4; k++)
            GPU_CHECK(r->q[4 * i + k] == want[k], "floor division and modulo of negative ints");
        float a = from_half(h[i]), b = from_half(g[i]);
        uint16_t expect = to_half(from_half(to_half(a * b)) + a);
        GPU_CHECK(r->r[i] == expect, "half a * b + a rounded after each operation");
    }
    printf("floordiv/floormod: %d values x 4 exact; half fma-free: %d exact\n", N, N);
}

/* The software fp8 path must agree bit for bit with the hardware one. */
static void check_fp8(const Results *hw, const Results *sw)
{
    int nan_codes = 0;
    for (int i = 0; i < N; i++) {
        GPU_CHECK(hw->e[i] == sw->e[i], "float -> e4m3: software == hardware");
        GPU_CHECK(hw->m[i] == sw->m[i], "float -> e5m2: software == hardware");
    }
    for (int c = 0; c < 512; c++) {
        if (isnan(hw->dec[c]) && isnan(sw->dec[c])) {
            nan_codes++;
            continue;
        }
        GPU_CHECK(memcmp(&hw->dec[c], &sw->dec[c], 4) == 0, "fp8 code -> float: software == hardware");
    }
    GPU_CHECK(hw->e[2] == 0x7e && hw->e[6] == 0x7e && hw->e[7] == 0xfe, "e4m3 saturates to 448");
    printf("fp8: %d floats -> e4m3/e5m2 and 512 codes -> float agree (%d NaN codes)\n", N, nan_codes);
}

static void check_cluster(CgDevice *d, const CgKernels *k)
{
    RtDevPtr o = cg_alloc(d, 128 * 4);
    void *args[] = {(void *)&o};
    RtLaunchConfig cfg = {{4, 1, 1}, {32, 1, 1}, {2, 1, 1}, 0, NULL};
    int out[128];
    cg_launch(d, k, "clustered", &cfg, args);
    cg_download(d, out, o, sizeof out);
    for (int i = 0; i < 128; i++)
        GPU_CHECK(out[i] == (i / 32) % 2 * 1000 + i / 32, "cluster CTA id of a __cluster_dims__ kernel");
    cg_free(d, o);
    printf("clustered kernel: cluster CTA ids correct\n");
}

int main(void)
{
    CgDevice dev, *d = &dev;
    cg_open(d, 9);
    CgKernels hw = cg_test_build(d, kernels, "codegen_semantics.tirx", false);
    CgKernels sw = cg_test_build(d, kernels, "codegen_semantics.tirx", true);
    GpuRng rng = gpu_rng();
    static int ints[N];
    static uint16_t h[N], g[N];
    static float f[N];
    static uint8_t codes[256];
    make_inputs(&rng, ints, h, g, f, codes);
    Buffers b;
    RtDevPtr *all[] = {&b.i, &b.q, &b.h, &b.g, &b.r, &b.f, &b.e, &b.m, &b.c, &b.k, &b.d};
    size_t sizes[] = {N * 4, 4 * N * 4, N * 2, N * 2, N * 2, N * 4, N, N, 256, 256, 512 * 4};
    for (size_t i = 0; i < TX_ARRAY_LEN(all); i++)
        *all[i] = cg_alloc(d, sizes[i]);
    cg_upload(d, b.i, ints, sizeof ints);
    cg_upload(d, b.h, h, sizeof h);
    cg_upload(d, b.g, g, sizeof g);
    cg_upload(d, b.f, f, sizeof f);
    cg_upload(d, b.c, codes, sizeof codes);
    cg_upload(d, b.k, codes, sizeof codes);
    static Results rh, rs;
    run_semantics(d, &hw, &b, N);
    download(d, &b, &rh);
    poison(d, &b);
    run_semantics(d, &sw, &b, N);
    download(d, &b, &rs);
    check_integers_and_halves(&rh, ints, h, g);
    check_integers_and_halves(&rs, ints, h, g);
    check_fp8(&rh, &rs);
    check_cluster(d, &hw);
    for (size_t i = 0; i < TX_ARRAY_LEN(all); i++)
        cg_free(d, *all[i]);
    cg_kernels_free(&hw);
    cg_kernels_free(&sw);
    cg_close(d);
    printf("PASSED\n");
    return 0;
}
