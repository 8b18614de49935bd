/* The values the CUDA lowering of the newer script builtins computes on the
 * GPU, checked on the CPU. Kernels written in the IR contract's form are
 * generated with cg_emit_module for the device's target, compiled with the
 * prelude and run on fresh random inputs plus edge cases:
 *  - T.asinh / T.acosh / T.atanh / T.atan2 on float32, within CUDA's
 *    documented ulp bounds (+1) of a float64 host reference (special values:
 *    NaN, infinities and signed zeros exactly);
 *  - the packed-pair helpers, bit for bit: make_float2 / float2_x / float2_y
 *    (x in the low word), fmul2_rn / fadd2_rn (IEEE float32 * and +),
 *    float22bfloat162_rn[_from_float2] (round to nearest even),
 *    bfloat1622float2 and the float -> bfloat16 -> float round trip,
 *    hmin2 / hmax2 on bfloat16 pairs, smem_addr_from_uint64;
 *  - fp8x4_e4m3_from_float4 against a host e4m3 encoder (nearest even,
 *    saturating to 448, NaN -> 0x7f) and against the scalar
 *    T.Cast("float8_e4m3fn") bytes, then decoded back on the GPU
 *    (T.Cast("float32") of the packed bytes) against the host decoder; both
 *    with the prelude's hardware fp8 path and with TX_FP8_SOFTWARE;
 *  - T.isnullptr of a null and of non-null pointer arguments;
 *  - T.cuda.mov_sreg: %laneid, %tid.x, %ctaid.x, %ntid.x, %lanemask_lt
 *    exactly, %warpid < %nwarpid, %smid < %nsmid, %globaltimer (64-bit)
 *    plausible, %clock64 non-decreasing within a thread;
 *  - T.filter (its predicate) and T.ignore_loop_partition (its condition:
 *    threads past n write nothing; the outputs' tails stay poisoned);
 *  - sm_90+: T.cuda.mbarrier_wait_acquire_cluster in a cluster of 2 CTAs,
 *    each arriving (release.cluster) on its own and its peer's mbarrier
 *    after writing global memory, then reading the peer's values.
 * (T.cuda.float22half2, half8tofloat8 and float8tohalf8, prelude functions
 * over the prelude's __float22half2_rn / __half22float2, are not run here;
 * build.fp16_pair_helpers checks their calls.)
 * Every mismatch is printed with the check, the index, the inputs, the value
 * got and the value expected (the first few of each check). Exit 0 passed,
 * 1 failed, 77 skipped (no GPU).
 * With OP_SIM=1 (sim.codegen_builtins) the same IR runs in the simulator with
 * the same checks, at the same size (4096 threads are cheap there). The
 * special registers follow the simulator's model (docs/simulator.md): every
 * CTA on its own SM (%smid < %nsmid, the grid's CTAs), %nwarpid 64, and the
 * modelled clock, whose %globaltimer counts statements from 0 in each CTA
 * (positive and within a minute of the first thread's, as on the GPU). */
#include "codegen_test.h"

#include <stdarg.h>


#define N 4000   /* elements: the last CTA is ragged */
#define NT 4096  /* threads launched: 32 CTAs of 128 */
#define SREGS 12 /* int32 results per thread of the sregs kernel */

#define KERNEL_ATTRS \
    "        T.func_attr({\"calling_conv\": 2, \"target\": \"cuda\", \"tirx.kernel_launch_params\": [\"blockIdx.x\", \"threadIdx.x\"]})\n"
#define KERNEL_THREADS                                                                  \
    "        blockIdx_x = T.launch_thread(\"blockIdx.x\", (n + 127) // 128)\n"          \
    "        threadIdx_x = T.launch_thread(\"threadIdx.x\", 128)\n"

static const char kernels[] =
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def math_packed(In_data: T.handle(\"float32\", \"global\"), Mo_data: T.handle(\"float32\", \"global\"),"
    " P_data: T.handle(\"float32\", \"global\"), G_data: T.handle(\"uint64\", \"global\"),"
    " B_data: T.handle(\"uint32\", \"global\"), W_data: T.handle(\"uint64\", \"global\"),"
    " F_data: T.handle(\"float32\", \"global\"), U_data: T.handle(\"uint32\", \"global\"),"
    " V_data: T.handle(\"uint32\", \"global\"), E_data: T.handle(\"float8_e4m3fn\", \"global\"), n: T.int32):\n"
    KERNEL_ATTRS KERNEL_THREADS
    "        In = T.decl_buffer((n * 5,), \"float32\", data=In_data, layout=None)\n"
    "        Mo = T.decl_buffer((n * 4,), \"float32\", data=Mo_data, layout=None)\n"
    "        P = T.decl_buffer((n * 4,), \"float32\", data=P_data, layout=None)\n"
    "        G = T.decl_buffer((n,), \"uint64\", data=G_data, layout=None)\n"
    "        B = T.decl_buffer((n * 2,), \"uint32\", data=B_data, layout=None)\n"
    "        W = T.decl_buffer((n * 4,), \"uint64\", data=W_data, layout=None)\n"
    "        F = T.decl_buffer((n * 4,), \"float32\", data=F_data, layout=None)\n"
    "        U = T.decl_buffer((n * 6,), \"uint32\", data=U_data, layout=None)\n"
    "        V = T.decl_buffer((n,), \"uint32\", data=V_data, layout=None)\n"
    "        E = T.decl_buffer((n * 4,), \"float8_e4m3fn\", data=E_data, layout=None)\n"
    "        i: T.let[T.int32] = blockIdx_x * 128 + threadIdx_x\n"
    "        if T.ignore_loop_partition(i < n):\n"
    "            Mo[i * 4] = T.asinh(In[i * 5])\n"
    "            Mo[i * 4 + 1] = T.acosh(In[i * 5 + 1])\n"
    "            Mo[i * 4 + 2] = T.atanh(In[i * 5 + 2])\n"
    "            Mo[i * 4 + 3] = T.atan2(In[i * 5 + 3], In[i * 5 + 4])\n"
    "            W[i * 4] = T.cuda.make_float2(P[i * 4], P[i * 4 + 1])\n"
    "            W[i * 4 + 1] = T.cuda.fmul2_rn(T.cuda.make_float2(P[i * 4], P[i * 4 + 1]), T.cuda.make_float2(P[i * 4 + 2], P[i * 4 + 3]))\n"
    "            W[i * 4 + 2] = T.cuda.fadd2_rn(T.cuda.make_float2(P[i * 4], P[i * 4 + 1]), T.cuda.make_float2(P[i * 4 + 2], P[i * 4 + 3]))\n"
    "            W[i * 4 + 3] = T.cuda.bfloat1622float2(B[i * 2])\n"
    "            F[i * 4] = T.cuda.float2_x(G[i])\n"
    "            F[i * 4 + 1] = T.cuda.float2_y(G[i])\n"
    "            F[i * 4 + 2] = T.cuda.float2_x(T.cuda.bfloat1622float2(T.cuda.float22bfloat162_rn(P[i * 4], P[i * 4 + 1])))\n"
    "            F[i * 4 + 3] = T.cuda.float2_y(T.cuda.bfloat1622float2(T.cuda.float22bfloat162_rn(P[i * 4], P[i * 4 + 1])))\n"
    "            U[i * 6] = T.cuda.float22bfloat162_rn(P[i * 4], P[i * 4 + 1])\n"
    "            U[i * 6 + 1] = T.cuda.float22bfloat162_rn_from_float2(T.cuda.make_float2(P[i * 4 + 2], P[i * 4 + 3]))\n"
    "            U[i * 6 + 2] = T.cuda.hmin2(B[i * 2], B[i * 2 + 1])\n"
    "            U[i * 6 + 3] = T.cuda.hmax2(B[i * 2], B[i * 2 + 1])\n"
    "            U[i * 6 + 4] = T.cuda.float22bfloat162_rn_from_float2(G[i])\n"
    "            U[i * 6 + 5] = T.cuda.smem_addr_from_uint64(G[i])\n"
    "            V[i] = T.cuda.fp8x4_e4m3_from_float4(P[i * 4], P[i * 4 + 1], P[i * 4 + 2], P[i * 4 + 3])\n"
    "            E[i * 4] = T.Cast(\"float8_e4m3fn\", P[i * 4])\n"
    "            E[i * 4 + 1] = T.Cast(\"float8_e4m3fn\", P[i * 4 + 1])\n"
    "            E[i * 4 + 2] = T.Cast(\"float8_e4m3fn\", P[i * 4 + 2])\n"
    "            E[i * 4 + 3] = T.Cast(\"float8_e4m3fn\", P[i * 4 + 3])\n"
    "\n"
    "    @T.prim_func\n"
    "    def fp8_decode(Q_data: T.handle(\"float8_e4m3fn\", \"global\"), D_data: T.handle(\"float32\", \"global\"), n: T.int32):\n"
    KERNEL_ATTRS KERNEL_THREADS
    "        Q = T.decl_buffer((n,), \"float8_e4m3fn\", data=Q_data, layout=None)\n"
    "        D = T.decl_buffer((n,), \"float32\", data=D_data, layout=None)\n"
    "        i: T.let[T.int32] = blockIdx_x * 128 + threadIdx_x\n"
    "        if i < n:\n"
    "            D[i] = T.Cast(\"float32\", Q[i])\n"
    "\n"
    "    @T.prim_func\n"
    "    def sregs(S_data: T.handle(\"int32\", \"global\"), C_data: T.handle(\"int64\", \"global\"),"
    " Z_data: T.handle(\"float32\", \"global\"), NZ_data: T.handle(\"float32\", \"global\"), n: T.int32):\n"
    KERNEL_ATTRS KERNEL_THREADS
    "        S = T.decl_buffer((n * 12,), \"int32\", data=S_data, layout=None)\n"
    "        C = T.decl_buffer((n * 3,), \"int64\", data=C_data, layout=None)\n"
    "        i: T.let[T.int32] = blockIdx_x * 128 + threadIdx_x\n"
    "        if T.ignore_loop_partition(i < n):\n"
    "            S[i * 12] = T.cuda.mov_sreg(32, \"%laneid\")\n"
    "            S[i * 12 + 1] = T.cuda.mov_sreg(32, \"%warpid\")\n"
    "            S[i * 12 + 2] = T.cuda.mov_sreg(32, \"%nwarpid\")\n"
    "            S[i * 12 + 3] = T.cuda.mov_sreg(32, \"%smid\")\n"
    "            S[i * 12 + 4] = T.cuda.mov_sreg(32, \"%nsmid\")\n"
    "            S[i * 12 + 5] = T.cuda.mov_sreg(32, \"%tid.x\")\n"
    "            S[i * 12 + 6] = T.cuda.mov_sreg(32, \"%ctaid.x\")\n"
    "            S[i * 12 + 7] = T.cuda.mov_sreg(32, \"%ntid.x\")\n"
    "            S[i * 12 + 8] = T.cuda.mov_sreg(32, \"%lanemask_lt\")\n"
    "            S[i * 12 + 9] = T.Cast(\"int32\", T.isnullptr(Z_data))\n"
    "            S[i * 12 + 10] = T.Cast(\"int32\", T.isnullptr(NZ_data))\n"
    "            if T.filter(threadIdx_x, threadIdx_x % 3 == 0):\n"
    "                S[i * 12 + 11] = 1\n"
    "            else:\n"
    "                S[i * 12 + 11] = 2\n"
    "            C[i * 3] = T.cuda.mov_sreg(64, \"%globaltimer\")\n"
    "            C[i * 3 + 1] = T.cuda.mov_sreg(64, \"%clock64\")\n"
    "            C[i * 3 + 2] = T.cuda.mov_sreg(64, \"%clock64\")\n";

/* sm_90+: each thread writes G, arrives on its CTA's mbarrier and on the peer
 * CTA's (mapa), waits with acquire at cluster scope, then reads the peer's G. */
static const char cluster_kernel[] =
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def cluster_wait(G_data: T.handle(\"int32\", \"global\"), O_data: T.handle(\"int32\", \"global\")):\n"
    "        T.func_attr({\"calling_conv\": 2, \"target\": \"cuda\", \"tirx.kernel_launch_params\": [\"blockIdx.x\", \"threadIdx.x\"], \"tirx.cluster_dims\": [2, 1, 1]})\n"
    "        clusterCtaIdx_x = T.launch_thread(\"clusterCtaIdx.x\", 2)\n"
    "        blockIdx_x = T.launch_thread(\"blockIdx.x\", 4)\n"
    "        threadIdx_x = T.launch_thread(\"threadIdx.x\", 32)\n"
    "        G = T.decl_buffer((128,), \"int32\", data=G_data, layout=None)\n"
    "        O = T.decl_buffer((128,), \"int32\", data=O_data, layout=None)\n"
    "        bar = T.alloc_buffer((1,), \"uint64\", scope=\"shared\", layout=None)\n"
    "        r = T.alloc_buffer((1,), \"uint32\", scope=\"local\", layout=None)\n"
    "        if threadIdx_x == 0:\n"
    "            T.ptx.mbarrier.init.shared__cta.b64(T.address_of(bar[0]), T.uint32(64))\n"
    "            T.ptx.fence.mbarrier_init.release.cluster()\n"
    "        T.ptx.barrier.cluster.arrive.release.aligned()\n"
    "        T.ptx.barrier.cluster.wait.acquire.aligned()\n"
    "        G[blockIdx_x * 32 + threadIdx_x] = blockIdx_x * 1000 + threadIdx_x + 7\n"
    "        T.ptx.mbarrier.arrive.release.cluster.shared__cta.b64(T.address_of(bar[0]), T.uint32(1))\n"
    "        T.ptx.mapa.shared__cluster.u32(r[0], T.cuda.cvta_generic_to_shared(T.address_of(bar[0])), T.Cast(\"uint32\", 1 - clusterCtaIdx_x))\n"
    "        T.ptx.mbarrier.arrive.release.cluster.shared__cluster.b64(r[0], T.uint32(1))\n"
    "        T.cuda.mbarrier_wait_acquire_cluster(T.address_of(bar[0]), 0)\n"
    "        O[blockIdx_x * 32 + threadIdx_x] = G[(blockIdx_x + 1 - clusterCtaIdx_x * 2) * 32 + threadIdx_x]\n"
    "        T.ptx.barrier.cluster.arrive.release.aligned()\n"
    "        T.ptx.barrier.cluster.wait.acquire.aligned()\n";

/* ---- reporting: every check counted, the first mismatches of each printed ---- */

#define REPORTS 8

typedef struct Tally {
    const char *what;
    long checked, failed;
    double worst; /* the largest error seen (ulps), for the summary line */
} Tally;

static const char *g_build = ""; /* which build of the kernels is being checked */
static long g_failed;

static void tally_check(Tally *t, bool ok, long index, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void tally_check(Tally *t, bool ok, long index, const char *fmt, ...)
{
    t->checked++;
    if (ok)
        return;
    t->failed++;
    g_failed++;
    if (t->failed > REPORTS)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAILED: %s%s at index %ld: ", g_build, t->what, index);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void tally_end(const Tally *t)
{
    printf("%s%s: %ld checked, %ld failed", g_build, t->what, t->checked, t->failed);
    if (t->worst > 0)
        printf(" (largest error %.2f ulp)", t->worst);
    if (t->failed > REPORTS)
        printf(" (first %d shown)", REPORTS);
    putchar('\n');
}

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bitsf(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* "1.00000012 (0x3f800001)" in one of a few rotating buffers. */
static const char *show(float f)
{
    static char ring[16][48];
    static int next;
    char *b = ring[next++ % 16];
    snprintf(b, sizeof ring[0], "%.9g (0x%08x)", (double)f, fbits(f));
    return b;
}

/* Distance in representable floats; +0 and -0 are one point. */
static int64_t ulp_distance(float a, float b)
{
    int64_t oa = fbits(a) & 0x7fffffff, ob = fbits(b) & 0x7fffffff;
    if (fbits(a) >> 31)
        oa = -oa;
    if (fbits(b) >> 31)
        ob = -ob;
    return oa > ob ? oa - ob : ob - oa;
}

/* ---- host references ---- */

/* float -> bfloat16, round to nearest even (a NaN stays a NaN). */
static uint16_t bf16_rne(float f)
{
    uint32_t u = fbits(f);
    if ((u & 0x7fffffff) > 0x7f800000)
        return (uint16_t)((u >> 16) | 0x40);
    return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

static bool bf16_is_nan(uint16_t h)
{
    return (h & 0x7f80) == 0x7f80 && (h & 0x7f);
}

static bool bf16_same(uint16_t got, uint16_t want)
{
    return got == want || (bf16_is_nan(got) && bf16_is_nan(want));
}

static float bf16_value(uint16_t h)
{
    return bitsf((uint32_t)h << 16);
}

/* The value of a finite e4m3 code (not 0x7f / 0xff, the NaNs). */
static double e4m3_value(unsigned c)
{
    int e = (int)(c >> 3) & 15, m = (int)c & 7;
    double v = e ? ldexp(8 + m, e - 10) : ldexp(m, -9);
    return (c & 0x80) ? -v : v;
}

/* float -> e4m3 as PTX cvt.rn.satfinite: the nearest finite code (ties to
 * the even code), beyond 448 (and infinity) 448, NaN 0x7f. An exhaustive
 * search, independent of the prelude's bit manipulation. */
static uint8_t e4m3_rne(float f)
{
    if (isnan(f))
        return 0x7f;
    unsigned sign = signbit(f) ? 0x80 : 0;
    double a = fabs((double)f);
    if (a >= 448.0)
        return (uint8_t)(sign | 0x7e);
    unsigned best = 0;
    double best_d = INFINITY;
    for (unsigned c = 0; c <= 0x7e; c++) {
        double d = fabs(a - e4m3_value(c));
        if (d < best_d || (d == best_d && !(c & 1))) {
            best_d = d;
            best = c;
        }
    }
    return (uint8_t)(sign | best);
}

/* The code got for input f: the reference's code, or for a NaN input a NaN
 * code of either sign (the sign of a NaN is not checked). */
static bool e4m3_same(uint8_t got, float f)
{
    return isnan(f) ? (got & 0x7f) == 0x7f : got == e4m3_rne(f);
}

/* ---- inputs ---- */

/* A float of either sign with a random exponent in [lo, hi]. */
static float wide(GpuRng *r, int lo, int hi)
{
    return ldexpf(gpu_uniform(r), lo + (int)(gpu_next(r) % (uint64_t)(hi - lo + 1)));
}

typedef struct Inputs {
    float in[N * 5];        /* asinh, acosh, atanh arguments; atan2 y, x */
    float p[N * 4];         /* quadruples: float2 pairs, bf16 and fp8 sources */
    uint64_t g[N];          /* float2 pairs built on the host: any bits */
    uint32_t b[N * 2];      /* bfloat16 pairs */
} Inputs;

static void make_inputs(GpuRng *r, Inputs *x)
{
    static const float asinh_edges[] = {0.0f, -0.0f, 1e-40f, -1e-30f, 1.0f, -1.0f, 0.5f, 1e30f,
                                        -1e30f, 3.4e38f, INFINITY, -INFINITY, NAN};
    static const float acosh_edges[] = {1.0f, 1.00000012f, 0.999f, 0.0f, -2.0f, 2.0f, 1e30f,
                                        3.4e38f, INFINITY, -INFINITY, NAN};
    static const float atanh_edges[] = {0.0f, -0.0f, 1.0f, -1.0f, 1.5f, 0.99999994f, -0.99999994f,
                                        1e-30f, 1e-40f, 0.5f, INFINITY, NAN};
    static const float atan2_edges[][2] = {
        {0.0f, 0.0f}, {0.0f, -0.0f}, {-0.0f, -0.0f}, {-0.0f, 0.0f}, {1.0f, 0.0f}, {-1.0f, -0.0f},
        {0.0f, -1.0f}, {-0.0f, -1.0f}, {INFINITY, INFINITY}, {INFINITY, -INFINITY},
        {-INFINITY, INFINITY}, {-INFINITY, -INFINITY}, {1.0f, INFINITY}, {1.0f, -INFINITY},
        {-1.0f, -INFINITY}, {INFINITY, 1.0f}, {1e-40f, 1e30f}, {1e30f, 1e-40f}, {NAN, 1.0f},
        {1.0f, NAN}, {3.0f, -3.0f}, {-1e-20f, -1e20f}};
    /* rows of four (x, y, z, w): fp8 (e4m3) rounding and saturation,
     * bfloat16 ties, products that overflow, underflow or are NaN, specials */
    static const uint32_t p_edges[][4] = {
        {0x00000000, 0x80000000, 0x43e00000 /* 448 */, 0x43e80000 /* 464: saturates */},
        {0x43e88000 /* 465 */, 0x43f00000 /* 480 */, 0x4e6e6b28 /* 1e9 */, 0xce6e6b28 /* -1e9 */},
        {0x3b000000 /* 2^-9 */, 0x3a800000 /* 2^-10: tie to 0 */,
         0x3b400000 /* 1.5 * 2^-9: tie to 2^-8 */, 0x3f880000 /* 1.0625: tie to 1 */},
        {0x3f980000 /* 1.1875: tie to 1.25 */, 0x43680000 /* 232: tie to 224 */,
         0x43700000 /* 240 */, 0xc3e00000 /* -448 */},
        {0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000},
        {0x3f808000 /* bf16: tie to 1 */, 0x3f818000 /* bf16: tie up */,
         0x00008000 /* bf16: tie to 0 */, 0x00018000 /* bf16: tie up */},
        {0x7f7fffff /* bf16: rounds to inf */, 0x00000001, 0x807fffff, 0x7f000000},
        {0x7f000000 /* 2^127 * 2^127 */, 0x1f800000 /* 2^-64 * 2^-64 */, 0x7f000000, 0x1f800000},
        {0x7f800000 /* inf * 0 */, 0x00800000 /* FLT_MIN * 0.5 */, 0x00000000, 0x3f000000},
        {0x40400000 /* 3 * 1/3 */, 0xbf7fffff, 0x3eaaaaab, 0x3f800001},
    };
    for (int i = 0; i < N; i++) {
        float *in = &x->in[i * 5];
        in[0] = i < (int)TX_ARRAY_LEN(asinh_edges) ? asinh_edges[i] : wide(r, -30, 30);
        in[1] = i < (int)TX_ARRAY_LEN(acosh_edges) ? acosh_edges[i]
                                                   : 1.0f + fabsf(wide(r, -24, 40));
        in[2] = i < (int)TX_ARRAY_LEN(atanh_edges) ? atanh_edges[i] : wide(r, -24, 0);
        if (i < (int)TX_ARRAY_LEN(atan2_edges)) {
            in[3] = atan2_edges[i][0];
            in[4] = atan2_edges[i][1];
        } else {
            in[3] = wide(r, -20, 20);
            in[4] = wide(r, -20, 20);
        }
        for (int k = 0; k < 4; k++)
            x->p[i * 4 + k] =
                i < (int)TX_ARRAY_LEN(p_edges) ? bitsf(p_edges[i][k]) : wide(r, -12, 10);
        x->g[i] = gpu_next(r); /* any bits: NaNs, subnormals, infinities included */
        uint32_t b0 = (uint32_t)gpu_next(r), b1 = (uint32_t)gpu_next(r);
        if (i % 2) /* near pairs: the same sign and exponent, a different mantissa */
            b1 = (b0 & 0xff80ff80u) | (b1 & 0x007f007fu);
        for (int h = 0; h < 32; h += 16) { /* no NaN operands: min/max of NaN is not checked */
            if (bf16_is_nan((uint16_t)(b0 >> h)))
                b0 ^= 0x4000u << h;
            if (bf16_is_nan((uint16_t)(b1 >> h)))
                b1 ^= 0x4000u << h;
        }
        x->b[i * 2] = b0;
        x->b[i * 2 + 1] = b1;
    }
}

/* ---- device buffers ---- */

typedef struct Dev {
    RtDevPtr in, mo, p, g, b, w, f, u, v, e, d; /* math_packed, fp8_decode */
    RtDevPtr s, c, nz;                          /* sregs */
} Dev;

/* Output sizes in bytes: NT threads' worth, so the tail past N shows writes. */
#define MO_BYTES (NT * 4 * 4)
#define W_BYTES (NT * 4 * 8)
#define F_BYTES (NT * 4 * 4)
#define U_BYTES (NT * 6 * 4)
#define V_BYTES (NT * 4)
#define E_BYTES (NT * 4)
#define D_BYTES (NT * 4 * 4)
#define S_BYTES (NT * SREGS * 4)
#define C_BYTES (NT * 3 * 8)

typedef struct Outputs {
    float mo[NT * 4];
    uint64_t w[NT * 4];
    float f[NT * 4];
    uint32_t u[NT * 6];
    uint32_t v[NT];
    uint8_t e[NT * 4];
    float d[NT * 4];
    int32_t s[NT * SREGS];
    int64_t c[NT * 3];
} Outputs;

static void launch(CgDevice *d, const CgKernels *k, const char *name, void **args,
                   unsigned threads)
{
    RtLaunchConfig cfg = {{(threads + 127) / 128, 1, 1}, {128, 1, 1}, {0, 0, 0}, 0, NULL};
    cg_launch(d, k, name, &cfg, args);
}

/* Bytes [from, to) of an output must still be the poison (all bits set). */
static void check_tail(const char *what, const void *data, size_t from, size_t to)
{
    char name[128];
    snprintf(name, sizeof name, "%s (index: byte offset)", what);
    Tally t = {name, 0, 0, 0};
    const uint8_t *b = data;
    for (size_t i = from; i < to; i++)
        tally_check(&t, b[i] == 0xff, (long)i,
                    "byte written past n (ignore_loop_partition guard): got 0x%02x, expected 0xff",
                    b[i]);
    tally_end(&t);
}

/* ---- math ---- */

static bool same_float(float got, float want)
{
    return fbits(got) == fbits(want) || (isnan(got) && isnan(want));
}

/* got against the float64 reference: NaN, infinities and exact zeros (with
 * their sign) exactly, otherwise within max_ulp of the correctly rounded float. */
static void check_math(Tally *t, long i, const char *args, float got, double ref, int max_ulp)
{
    float want = (float)ref;
    if (isnan(ref) || isinf(want) || ref == 0.0) {
        tally_check(t, same_float(got, want), i,
                    "%s: got %s, expected %s (a special value: exactly)", args, show(got), show(want));
        return;
    }
    double err = isfinite(got) ? (double)ulp_distance(got, want) : INFINITY;
    if (err > t->worst && isfinite(err))
        t->worst = err;
    tally_check(t, err <= max_ulp, i,
                "%s: got %s, expected %s (float64 %.17g), %.0f ulp apart (max %d)", args, show(got),
                show(want), ref, err, max_ulp);
}

static void check_math_all(const Inputs *x, const Outputs *o)
{
    /* CUDA's documented maximum errors (CUDA C++ Programming Guide, the
     * single-precision functions: asinhf 3, acoshf 4, atanhf 3, atan2f 3 ulp)
     * plus one: the guide calls them tested, not guaranteed, and atanhf was
     * seen at 3 on an H200 */
    Tally ta = {"T.asinh", 0, 0, 0}, tc = {"T.acosh", 0, 0, 0}, th = {"T.atanh", 0, 0, 0},
          t2 = {"T.atan2", 0, 0, 0};
    char args[128];
    for (int i = 0; i < N; i++) {
        const float *in = &x->in[i * 5];
        const float *mo = &o->mo[i * 4];
        snprintf(args, sizeof args, "x = %s", show(in[0]));
        check_math(&ta, i, args, mo[0], asinh((double)in[0]), 4);
        snprintf(args, sizeof args, "x = %s", show(in[1]));
        check_math(&tc, i, args, mo[1], acosh((double)in[1]), 5);
        snprintf(args, sizeof args, "x = %s", show(in[2]));
        check_math(&th, i, args, mo[2], atanh((double)in[2]), 4);
        snprintf(args, sizeof args, "y = %s, x = %s", show(in[3]), show(in[4]));
        check_math(&t2, i, args, mo[3], atan2((double)in[3], (double)in[4]), 4);
    }
    tally_end(&ta);
    tally_end(&tc);
    tally_end(&th);
    tally_end(&t2);
}

/* ---- packed pairs ---- */

static void check_float2(const Inputs *x, const Outputs *o)
{
    Tally tm = {"T.cuda.make_float2 (x low, y high)", 0, 0, 0},
          tmul = {"T.cuda.fmul2_rn", 0, 0, 0}, tadd = {"T.cuda.fadd2_rn", 0, 0, 0},
          txy = {"T.cuda.float2_x / float2_y of a uint64 from memory", 0, 0, 0};
    for (int i = 0; i < N; i++) {
        const float *p = &x->p[i * 4];
        uint64_t want = (uint64_t)fbits(p[1]) << 32 | fbits(p[0]);
        tally_check(&tm, o->w[i * 4] == want, i,
                    "make_float2(%s, %s): got 0x%016llx, expected 0x%016llx", show(p[0]), show(p[1]),
                    (unsigned long long)o->w[i * 4], (unsigned long long)want);
        for (int h = 0; h < 2; h++) {
            const char *half = h ? "y (high word)" : "x (low word)";
            float a = p[h], b = p[2 + h];
            volatile float prod = a * b, sum = a + b; /* IEEE binary32, nearest even */
            float got_mul = bitsf((uint32_t)(o->w[i * 4 + 1] >> (32 * h)));
            float got_add = bitsf((uint32_t)(o->w[i * 4 + 2] >> (32 * h)));
            tally_check(&tmul, same_float(got_mul, prod), i, "%s: %s * %s: got %s, expected %s",
                        half, show(a), show(b), show(got_mul), show(prod));
            tally_check(&tadd, same_float(got_add, sum), i, "%s: %s + %s: got %s, expected %s",
                        half, show(a), show(b), show(got_add), show(sum));
        }
        float gx = bitsf((uint32_t)x->g[i]), gy = bitsf((uint32_t)(x->g[i] >> 32));
        tally_check(&txy, fbits(o->f[i * 4]) == fbits(gx) && fbits(o->f[i * 4 + 1]) == fbits(gy),
                    i, "of 0x%016llx: got x = %s, y = %s, expected x = %s, y = %s",
                    (unsigned long long)x->g[i], show(o->f[i * 4]), show(o->f[i * 4 + 1]), show(gx),
                    show(gy));
    }
    tally_end(&tm);
    tally_end(&tmul);
    tally_end(&tadd);
    tally_end(&txy);
}

/* A bfloat16 pair (x low) against the host's rounding of two floats. */
static void check_bf16_pair(Tally *t, long i, const char *call, uint32_t got, float fx, float fy)
{
    uint16_t wx = bf16_rne(fx), wy = bf16_rne(fy);
    tally_check(t, bf16_same((uint16_t)got, wx) && bf16_same((uint16_t)(got >> 16), wy), i,
                "%s(x = %s, y = %s): got 0x%08x, expected 0x%04x%04x", call, show(fx), show(fy), got,
                wy, wx);
}

static void check_bf16(const Inputs *x, const Outputs *o)
{
    Tally tr = {"T.cuda.float22bfloat162_rn", 0, 0, 0},
          tf = {"T.cuda.float22bfloat162_rn_from_float2 (of make_float2)", 0, 0, 0},
          tg = {"T.cuda.float22bfloat162_rn_from_float2 (of a uint64 from memory)", 0, 0, 0},
          tb = {"T.cuda.bfloat1622float2", 0, 0, 0},
          trt = {"float -> bfloat162 -> float2 round trip", 0, 0, 0},
          tmin = {"T.cuda.hmin2", 0, 0, 0}, tmax = {"T.cuda.hmax2", 0, 0, 0},
          ts = {"T.cuda.smem_addr_from_uint64", 0, 0, 0};
    for (int i = 0; i < N; i++) {
        const float *p = &x->p[i * 4];
        const uint32_t *u = &o->u[i * 6];
        check_bf16_pair(&tr, i, "float22bfloat162_rn", u[0], p[0], p[1]);
        check_bf16_pair(&tf, i, "float22bfloat162_rn_from_float2(make_float2", u[1], p[2], p[3]);
        check_bf16_pair(&tg, i, "float22bfloat162_rn_from_float2", u[4], bitsf((uint32_t)x->g[i]),
                        bitsf((uint32_t)(x->g[i] >> 32)));
        uint32_t b0 = x->b[i * 2], b1 = x->b[i * 2 + 1];
        uint64_t want = (uint64_t)(b0 & 0xffff0000u) << 32 | (uint64_t)(b0 << 16);
        tally_check(&tb, o->w[i * 4 + 3] == want, i,
                    "bfloat1622float2(0x%08x): got 0x%016llx, expected 0x%016llx", b0,
                    (unsigned long long)o->w[i * 4 + 3], (unsigned long long)want);
        for (int h = 0; h < 2; h++) {
            float src = p[h], got = o->f[i * 4 + 2 + h], back = bf16_value(bf16_rne(src));
            tally_check(&trt, same_float(got, back), i, "%s: %s: got %s, expected %s",
                        h ? "y" : "x", show(src), show(got), show(back));
        }
        /* per half: the smaller / larger value; of +0 and -0 either one */
        bool min_ok = true, max_ok = true;
        uint32_t want_min = 0, want_max = 0;
        for (int h = 0; h < 32; h += 16) {
            uint16_t a = (uint16_t)(b0 >> h), c = (uint16_t)(b1 >> h);
            uint16_t gmin = (uint16_t)(u[2] >> h), gmax = (uint16_t)(u[3] >> h);
            float fa = bf16_value(a), fc = bf16_value(c);
            uint16_t lo = fa <= fc ? a : c, hi = fa <= fc ? c : a;
            want_min |= (uint32_t)lo << h;
            want_max |= (uint32_t)hi << h;
            min_ok = min_ok && (gmin == lo || (fa == fc && gmin == hi));
            max_ok = max_ok && (gmax == hi || (fa == fc && gmax == lo));
        }
        tally_check(&tmin, min_ok, i, "hmin2(0x%08x, 0x%08x): got 0x%08x, expected 0x%08x", b0, b1,
                    u[2], want_min);
        tally_check(&tmax, max_ok, i, "hmax2(0x%08x, 0x%08x): got 0x%08x, expected 0x%08x", b0, b1,
                    u[3], want_max);
        tally_check(&ts, u[5] == (uint32_t)x->g[i], i,
                    "smem_addr_from_uint64(0x%016llx): got 0x%08x, expected 0x%08x",
                    (unsigned long long)x->g[i], u[5], (uint32_t)x->g[i]);
    }
    tally_end(&tr);
    tally_end(&tf);
    tally_end(&tg);
    tally_end(&tb);
    tally_end(&trt);
    tally_end(&tmin);
    tally_end(&tmax);
    tally_end(&ts);
}

static void check_fp8x4(const Inputs *x, const Outputs *o)
{
    Tally tp = {"T.cuda.fp8x4_e4m3_from_float4 vs the host e4m3 encoder", 0, 0, 0},
          tc = {"T.cuda.fp8x4_e4m3_from_float4 vs T.Cast(\"float8_e4m3fn\")", 0, 0, 0},
          td = {"fp8x4 bytes decoded on the GPU (T.Cast(\"float32\")) vs the host decoder", 0, 0,
                0},
          trt = {"float -> fp8x4 -> float round trip within half an e4m3 step", 0, 0, 0};
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 4; k++) {
            float f = x->p[i * 4 + k];
            uint8_t got = (uint8_t)(o->v[i] >> (8 * k)), want = e4m3_rne(f);
            tally_check(&tp, e4m3_same(got, f), i, "byte %d (%c): %s: got 0x%02x, expected 0x%02x",
                        k, "xyzw"[k], show(f), got, want);
            tally_check(&tc, got == o->e[i * 4 + k], i,
                        "byte %d (%c): %s: packed 0x%02x, scalar cast 0x%02x", k, "xyzw"[k], show(f),
                        got, o->e[i * 4 + k]);
            float dec = o->d[i * 4 + k];
            bool nan_code = (got & 0x7f) == 0x7f;
            float want_dec = nan_code ? NAN : (float)e4m3_value(got);
            tally_check(&td, same_float(dec, want_dec), i,
                        "byte %d: code 0x%02x: got %s, expected %s", k, got, show(dec),
                        show(want_dec));
            /* the round trip: NaN stays NaN, beyond 448 saturates, otherwise the
             * error is at most half the spacing of e4m3 at f */
            double a = fabs((double)f), bound;
            bool ok;
            if (isnan(f))
                ok = isnan(dec);
            else if (a >= 448.0)
                ok = dec == copysignf(448.0f, f);
            else {
                bound = a < 0.015625 ? ldexp(1, -10) : ldexp(1, ilogb(a) - 4);
                ok = fabs((double)dec - (double)f) <= bound &&
                     (dec == 0.0f || signbit(dec) == signbit(f));
            }
            tally_check(&trt, ok, i, "byte %d: %s: came back as %s", k, show(f), show(dec));
        }
    }
    tally_end(&tp);
    tally_end(&tc);
    tally_end(&td);
    tally_end(&trt);
}

/* math_packed then fp8_decode of its fp8x4 words, outputs poisoned first. */
static void run_math_packed(CgDevice *d, const CgKernels *mod, const Dev *b, Outputs *o)
{
    RtDevPtr outs[] = {b->mo, b->w, b->f, b->u, b->v, b->e, b->d};
    size_t sizes[] = {MO_BYTES, W_BYTES, F_BYTES, U_BYTES, V_BYTES, E_BYTES, D_BYTES};
    for (size_t i = 0; i < TX_ARRAY_LEN(outs); i++)
        cg_poison(d, outs[i], sizes[i]);
    int n = N;
    void *args[] = {(void *)&b->in, (void *)&b->mo, (void *)&b->p, (void *)&b->g, (void *)&b->b,
                    (void *)&b->w,  (void *)&b->f,  (void *)&b->u, (void *)&b->v, (void *)&b->e,
                    &n};
    launch(d, mod, "math_packed", args, NT);
    int n4 = N * 4;
    void *dargs[] = {(void *)&b->v, (void *)&b->d, &n4};
    launch(d, mod, "fp8_decode", dargs, N * 4);
    cg_download(d, o->mo, b->mo, MO_BYTES);
    cg_download(d, o->w, b->w, W_BYTES);
    cg_download(d, o->f, b->f, F_BYTES);
    cg_download(d, o->u, b->u, U_BYTES);
    cg_download(d, o->v, b->v, V_BYTES);
    cg_download(d, o->e, b->e, E_BYTES);
    cg_download(d, o->d, b->d, D_BYTES);
}

static void check_math_packed(const Inputs *x, const Outputs *o)
{
    check_math_all(x, o);
    check_float2(x, o);
    check_bf16(x, o);
    check_fp8x4(x, o);
    check_tail("math_packed: Mo past n", o->mo, N * 4 * 4, MO_BYTES);
    check_tail("math_packed: W past n", o->w, N * 4 * 8, W_BYTES);
    check_tail("math_packed: F past n", o->f, N * 4 * 4, F_BYTES);
    check_tail("math_packed: U past n", o->u, N * 6 * 4, U_BYTES);
    check_tail("math_packed: V past n", o->v, N * 4, V_BYTES);
    check_tail("math_packed: E past n", o->e, N * 4, E_BYTES);
}

/* ---- special registers, isnullptr, filter ---- */

static void check_sregs(CgDevice *d, const CgKernels *mod, const Dev *b, Outputs *o)
{
    cg_poison(d, b->s, S_BYTES);
    cg_poison(d, b->c, C_BYTES);
    RtDevPtr null = 0;
    int n = N;
    void *args[] = {(void *)&b->s, (void *)&b->c, (void *)&null, (void *)&b->nz, &n};
    launch(d, mod, "sregs", args, NT);
    cg_download(d, o->s, b->s, S_BYTES);
    cg_download(d, o->c, b->c, C_BYTES);
    Tally tl = {"mov_sreg %laneid == threadIdx.x % 32", 0, 0, 0},
          tw = {"mov_sreg %warpid < %nwarpid (the same %nwarpid everywhere)", 0, 0, 0},
          tsm = {"mov_sreg %smid < %nsmid (the same %nsmid everywhere)", 0, 0, 0},
          tt = {"mov_sreg %tid.x == threadIdx.x", 0, 0, 0},
          tb = {"mov_sreg %ctaid.x == blockIdx.x", 0, 0, 0},
          tn = {"mov_sreg %ntid.x == blockDim.x (128)", 0, 0, 0},
          tm = {"mov_sreg %lanemask_lt == (1 << lane) - 1", 0, 0, 0},
          tz = {"T.isnullptr(null) == 1", 0, 0, 0}, tnz = {"T.isnullptr(non-null) == 0", 0, 0, 0},
          tf = {"T.filter(tx, tx % 3 == 0) is its predicate", 0, 0, 0},
          tg = {"mov_sreg(64) %globaltimer within a minute of the first thread's", 0, 0, 0},
          tc = {"mov_sreg(64) %clock64 non-decreasing within a thread", 0, 0, 0};
    const int32_t *s0 = &o->s[0];
    int32_t nwarpid = s0[2], nsmid = s0[4];
    int64_t t0 = o->c[0];
    static bool seen[65536];
    int distinct = 0;
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < N; i++) {
        const int32_t *s = &o->s[i * SREGS];
        const int64_t *c = &o->c[i * 3];
        int lane = i % 32, tx = i % 128, bx = i / 128;
        tally_check(&tl, s[0] == lane, i, "got %d, expected %d", s[0], lane);
        tally_check(&tw, s[1] >= 0 && s[1] < s[2] && s[2] == nwarpid, i,
                    "%%warpid %d, %%nwarpid %d (first thread's %%nwarpid %d)", s[1], s[2], nwarpid);
        tally_check(&tsm, s[3] >= 0 && s[3] < s[4] && s[4] == nsmid, i,
                    "%%smid %d, %%nsmid %d (first thread's %%nsmid %d)", s[3], s[4], nsmid);
        if (s[3] >= 0 && s[3] < 65536 && !seen[s[3]]) {
            seen[s[3]] = true;
            distinct++;
        }
        tally_check(&tt, s[5] == tx, i, "got %d, expected %d", s[5], tx);
        tally_check(&tb, s[6] == bx, i, "got %d, expected %d", s[6], bx);
        tally_check(&tn, s[7] == 128, i, "got %d, expected 128", s[7]);
        uint32_t mask = (1u << lane) - 1;
        tally_check(&tm, (uint32_t)s[8] == mask, i, "lane %d: got 0x%08x, expected 0x%08x", lane,
                    (uint32_t)s[8], mask);
        tally_check(&tz, s[9] == 1, i, "got %d, expected 1", s[9]);
        tally_check(&tnz, s[10] == 0, i, "got %d, expected 0", s[10]);
        tally_check(&tf, s[11] == (tx % 3 == 0 ? 1 : 2), i, "tx %d: got %d, expected %d", tx, s[11],
                    tx % 3 == 0 ? 1 : 2);
        int64_t dt = c[0] - t0;
        tally_check(&tg, c[0] > 0 && dt > -60000000000ll && dt < 60000000000ll, i,
                    "got %lld, first thread's %lld", (long long)c[0], (long long)t0);
        tally_check(&tc, c[2] >= c[1], i, "first read %lld, second read %lld", (long long)c[1],
                    (long long)c[2]);
    }
    Tally *all[] = {&tl, &tw, &tsm, &tt, &tb, &tn, &tm, &tz, &tnz, &tf, &tg, &tc};
    for (size_t k = 0; k < TX_ARRAY_LEN(all); k++)
        tally_end(all[k]);
    printf("sregs: %%nwarpid %d, %%nsmid %d, %d distinct %%smid over %d CTAs (%s: %d SMs)\n",
           nwarpid, nsmid, distinct, NT / 128, OP_SIM ? "simulator, one per CTA" : "device",
           OP_SIM ? NT / 128 : d->sm_count);
    check_tail("sregs: S past n", o->s, N * SREGS * 4, S_BYTES);
    check_tail("sregs: C past n", o->c, N * 3 * 8, C_BYTES);
}

/* ---- the cluster-scope mbarrier wait (sm_90+) ---- */

static void check_cluster_wait(CgDevice *d)
{
    CgKernels mod = cg_test_build(d, cluster_kernel, "codegen_builtins_cluster.tirx", false);
    RtDevPtr g = cg_alloc(d, 128 * 4), out = cg_alloc(d, 128 * 4);
    void *args[] = {(void *)&g, (void *)&out};
    RtLaunchConfig cfg = {{4, 1, 1}, {32, 1, 1}, {2, 1, 1}, 0, NULL};
    cg_launch(d, &mod, "cluster_wait", &cfg, args);
    int32_t got_g[128], got_o[128];
    cg_download(d, got_g, g, sizeof got_g);
    cg_download(d, got_o, out, sizeof got_o);
    Tally tw = {"cluster_wait: own writes", 0, 0, 0},
          tr = {"cluster_wait: peer writes seen after mbarrier_wait_acquire_cluster", 0, 0, 0};
    for (int i = 0; i < 128; i++) {
        int bx = i / 32, tx = i % 32, peer = bx ^ 1;
        tally_check(&tw, got_g[i] == bx * 1000 + tx + 7, i, "G: got %d, expected %d", got_g[i],
                    bx * 1000 + tx + 7);
        tally_check(&tr, got_o[i] == peer * 1000 + tx + 7, i,
                    "CTA %d thread %d: got %d (0x%08x), expected %d (CTA %d's value)", bx, tx,
                    got_o[i], (uint32_t)got_o[i], peer * 1000 + tx + 7, peer);
    }
    tally_end(&tw);
    tally_end(&tr);
    cg_free(d, g);
    cg_free(d, out);
    cg_kernels_free(&mod);
}

int main(void)
{
    CgDevice dev, *d = &dev;
    cg_open(d, 8);
    if (!d->sm) {
        char why[128];
        snprintf(why, sizeof why, "codegen does not target %s", d->arch);
        cg_close(d);
        gpu_skip_arch(why);
    }
    CgKernels hw = cg_test_build(d, kernels, "codegen_builtins.tirx", false);
    CgKernels sw = cg_test_build(d, kernels, "codegen_builtins.tirx", true);
    GpuRng rng = gpu_rng();
    static Inputs x;
    static Outputs o;
    make_inputs(&rng, &x);

    Dev b;
    memset(&b, 0, sizeof b);
    RtDevPtr *all[] = {&b.in, &b.mo, &b.p, &b.g, &b.b, &b.w, &b.f, &b.u,
                       &b.v,  &b.e,  &b.d, &b.s, &b.c, &b.nz};
    size_t sizes[] = {sizeof x.in, MO_BYTES, sizeof x.p, sizeof x.g, sizeof x.b, W_BYTES, F_BYTES,
                      U_BYTES,     V_BYTES,  E_BYTES,   D_BYTES,    S_BYTES,    C_BYTES, 4};
    for (size_t i = 0; i < TX_ARRAY_LEN(all); i++)
        *all[i] = cg_alloc(d, sizes[i]);
    cg_upload(d, b.in, x.in, sizeof x.in);
    cg_upload(d, b.p, x.p, sizeof x.p);
    cg_upload(d, b.g, x.g, sizeof x.g);
    cg_upload(d, b.b, x.b, sizeof x.b);

    g_build = "[default build] ";
    run_math_packed(d, &hw, &b, &o);
    check_math_packed(&x, &o);
    check_sregs(d, &hw, &b, &o);
    g_build = "[TX_FP8_SOFTWARE build] ";
    run_math_packed(d, &sw, &b, &o);
    check_math_packed(&x, &o);
    g_build = "";
    if (d->sm >= 90)
        check_cluster_wait(d);
    else
        printf("cluster_wait: not run (needs sm_90, the device is %s)\n", d->arch);

    for (size_t i = 0; i < TX_ARRAY_LEN(all); i++)
        cg_free(d, *all[i]);
    cg_kernels_free(&hw);
    cg_kernels_free(&sw);
    cg_close(d);
    if (g_failed) {
        fprintf(stderr, "FAILED: %ld mismatches (listed above)\n", g_failed);
        return 1;
    }
    printf("PASSED\n");
    return 0;
}
