/* GPU test of the simulator against the hardware (docs/simulator.md,
 * "Agreement with the GPU"), in two parts.
 *
 * Tensor maps: a varied set of tiled maps (eight dtypes, ranks 1-5, boxes,
 * strides, element strides, no swizzle and 32/64/128B swizzles, zero and
 * NaN out-of-bounds fill, no interleave) is encoded by the driver
 * (rt_tensor_map_encode, cuTensorMapEncodeTiled) and by the simulator
 * (sim_encode). The driver's 128 bytes are opaque (their layout is not
 * documented) and the simulator lays out its own, so the bytes are not
 * compared; instead both must accept every map, the driver's encoding of a
 * map must be deterministic, and changing any one field the simulator
 * decodes (address, a dimension, a stride, a box extent, an element stride,
 * the dtype, the swizzle, the fill) must change both encodings. Maps that
 * rt_tensor_map_check (the simulator's rules) rejects must be rejected by
 * the driver too, called directly. What a map means is checked by part two:
 * the TMA kernels load and store through the driver's maps on the GPU and
 * the simulator's maps in the simulator, with bit-identical results.
 *
 * Kernels: sm_90a test kernels compiled once, run on the GPU and in the
 * simulator on the same random inputs, every argument compared afterwards:
 * copies (cp.async, vector widths, ldmatrix/stmatrix), TMA (swizzled
 * layouts, multicast, reduce-add store, views, ragged edges), conversions
 * (float32 to float16, bfloat16 and fp8), prmt and bfloat16 pair arithmetic bit
 * for bit; the row softmaxes
 * (fixed-order reductions, but exp is the C library's in the simulator and
 * the GPU's expf on the device) and wgmma products (the tensor cores'
 * accumulation order is unspecified) within a relative L2 error of 1e-5. */
#include "op_kernel.h"
#include "runtime/internal.h"
#include "sim/sim.h"

/* ------------------------------------------------------------ tensor maps */

static int map_failures;

#define MAP_CHECK(cond, spec, what)                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            printf("  FAIL: %s (%s)\n", what, describe(spec));                         \
            map_failures++;                                                            \
        }                                                                              \
    } while (0)

static const char *describe(const RtTensorMapSpec *s)
{
    static char buf[256];
    int n = snprintf(buf, sizeof buf, "dtype %d rank %d swizzle %d oob %d dims", (int)s->dtype,
                     s->rank, (int)s->swizzle, (int)s->oob_fill);
    for (int i = 0; i < s->rank && n < (int)sizeof buf; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " %llu/%u/%u",
                      (unsigned long long)s->global_dim[i], s->box_dim[i], s->element_strides[i]);
    return buf;
}

static bool driver_encode(const RtTensorMapSpec *s, RtTensorMap *out)
{
    RtError err;
    return rt_tensor_map_encode(s, out, &err) == RT_OK;
}

static bool sim_encode_ok(const RtTensorMapSpec *s, RtTensorMap *out)
{
    RtError err;
    return sim_encode(NULL, s, out, &err) == RT_OK;
}

/* The driver itself, without rt_tensor_map_check in front. */
static bool raw_driver_accepts(const RtTensorMapSpec *s)
{
    const RtCuda *cu;
    RtError err;
    GPU_CHECK(rt_driver(&cu, &err) == RT_OK, "the driver loads");
    RtTensorMap out;
    cuuint32_t es[5];
    for (int i = 0; i < 5; i++)
        es[i] = s->element_strides[i] ? s->element_strides[i] : 1;
    return cu->cuTensorMapEncodeTiled(
               (CUtensorMap *)&out, (CUtensorMapDataType)s->dtype, (cuuint32_t)s->rank,
               (void *)(uintptr_t)s->global_address, s->global_dim, s->global_strides, s->box_dim,
               es, (CUtensorMapInterleave)s->interleave, (CUtensorMapSwizzle)s->swizzle,
               (CUtensorMapL2promotion)s->l2_promotion,
               (CUtensorMapFloatOOBfill)s->oob_fill) == CUDA_SUCCESS;
}

static int elem_bytes(RtTmaDtype t)
{
    switch (t) {
    case RT_TMA_UINT8: return 1;
    case RT_TMA_UINT16: case RT_TMA_FLOAT16: case RT_TMA_BFLOAT16: return 2;
    case RT_TMA_UINT64: case RT_TMA_FLOAT64: return 8;
    default: return 4;
    }
}

static bool is_float(RtTmaDtype t)
{
    return t >= RT_TMA_FLOAT16;
}

/* A valid map of `variant` 0-4: rows rounded up to 16 bytes plus 0-32
 * bytes of padding, compact outer strides, boxes of 3-6 with element
 * strides 1-3 outside dimension 0, whose box is the swizzle span (64 bytes
 * without one). */
static RtTensorMapSpec make_spec(RtDevPtr base, RtTmaDtype t, int rank, RtTmaSwizzle sw,
                                 RtTmaOobFill oob, int variant)
{
    static const int spans[] = {64, 32, 64, 128};
    int e = elem_bytes(t);
    RtTensorMapSpec s = {.dtype = t, .rank = rank, .global_address = base + 256u * (unsigned)variant,
                         .swizzle = sw, .oob_fill = oob};
    for (int i = 0; i < rank; i++) {
        s.global_dim[i] = i == 0 ? 300 + 13 * (uint64_t)variant : 5 + 3 * (uint64_t)i + (uint64_t)variant % 4;
        s.box_dim[i] = i == 0 ? (uint32_t)(spans[sw] / e) : (uint32_t)(3 + (i + variant) % 4);
        s.element_strides[i] = i == 0 ? 1 : (uint32_t)(1 + (i + variant) % 3);
    }
    uint64_t row = (s.global_dim[0] * (uint64_t)e + 15) / 16 * 16 + 16 * (uint64_t)(variant % 3);
    for (int i = 0; i + 1 < rank; i++)
        s.global_strides[i] = i == 0 ? row : s.global_strides[i - 1] * s.global_dim[i];
    return s;
}

/* Each one-field change of s that keeps it valid; returns how many. A
 * changed stride moves the outer strides with it (they stay compact). */
static int perturb(const RtTensorMapSpec *s, RtTensorMapSpec *out)
{
    int n = 0, e = elem_bytes(s->dtype);
    out[n] = *s, out[n++].global_address += 256;
    for (int i = 0; i < s->rank; i++) {
        out[n] = *s, out[n++].global_dim[i] -= 1;
        out[n] = *s, out[n++].box_dim[i] = i == 0 ? s->box_dim[0] - (uint32_t)(16 / e) : s->box_dim[i] + 1;
        if (i > 0)
            out[n] = *s, out[n++].element_strides[i] = s->element_strides[i] % 3 + 1;
        if (i + 1 < s->rank) {
            out[n] = *s, out[n].global_strides[i] += 16;
            for (int j = i + 1; j + 1 < s->rank; j++)
                out[n].global_strides[j] = out[n].global_strides[j - 1] * s->global_dim[j];
            n++;
        }
    }
    if (s->dtype == RT_TMA_FLOAT16 || s->dtype == RT_TMA_BFLOAT16)
        out[n] = *s, out[n++].dtype = s->dtype == RT_TMA_FLOAT16 ? RT_TMA_BFLOAT16 : RT_TMA_FLOAT16;
    out[n] = *s, out[n++].swizzle = s->swizzle == RT_TMA_SWIZZLE_NONE ? RT_TMA_SWIZZLE_128B
                                                                       : RT_TMA_SWIZZLE_NONE;
    if (is_float(s->dtype))
        out[n] = *s, out[n++].oob_fill = s->oob_fill == RT_TMA_OOB_ZERO ? RT_TMA_OOB_NAN : RT_TMA_OOB_ZERO;
    return n;
}

static void check_valid(const RtTensorMapSpec *s)
{
    RtTensorMap d1, d2, m1;
    MAP_CHECK(sim_encode_ok(s, &m1), s, "the simulator accepts the map");
    MAP_CHECK(driver_encode(s, &d1), s, "the driver accepts the map");
    MAP_CHECK(driver_encode(s, &d2) && !memcmp(&d1, &d2, sizeof d1), s,
              "the driver's encoding is deterministic");
    RtTensorMapSpec changed[40];
    int n = perturb(s, changed);
    for (int i = 0; i < n; i++) {
        RtTensorMap d, m;
        bool ok = sim_encode_ok(&changed[i], &m) && driver_encode(&changed[i], &d);
        MAP_CHECK(ok, &changed[i], "both accept the changed map");
        MAP_CHECK(!ok || memcmp(&m, &m1, sizeof m), &changed[i], "the simulator's encoding changes");
        MAP_CHECK(!ok || memcmp(&d, &d1, sizeof d), &changed[i], "the driver's encoding changes");
    }
}

/* Maps the simulator's rules reject, one rule each. */
static void check_invalid(RtDevPtr base)
{
    RtTensorMapSpec ok = make_spec(base, RT_TMA_FLOAT16, 3, RT_TMA_SWIZZLE_NONE, RT_TMA_OOB_ZERO, 0);
    RtTensorMapSpec bad[9];
    for (int i = 0; i < 9; i++)
        bad[i] = ok;
    bad[0].global_address += 8;                       /* not 16-byte aligned */
    bad[1].global_strides[0] += 8;                    /* stride not a multiple of 16 */
    bad[2].box_dim[1] = 257;                          /* box extent above 256 */
    bad[3].box_dim[0] = 12;                           /* 24-byte inner extent */
    bad[4].swizzle = RT_TMA_SWIZZLE_32B;              /* 64-byte inner extent, 32B span */
    bad[5].dtype = RT_TMA_UINT16, bad[5].oob_fill = RT_TMA_OOB_NAN; /* NaN fill of integers */
    bad[6].element_strides[1] = 9;                    /* element stride above 8 */
    bad[7].global_dim[2] = 0;                         /* empty dimension */
    bad[8].global_strides[1] = (uint64_t)1 << 40;     /* stride of 2^40 bytes */
    for (int i = 0; i < 9; i++) {
        RtError err;
        RtTensorMap m;
        MAP_CHECK(rt_tensor_map_check(&bad[i], &err) != RT_OK, &bad[i], "the checks reject the map");
        MAP_CHECK(sim_encode(NULL, &bad[i], &m, &err) != RT_OK, &bad[i], "the simulator rejects it");
        MAP_CHECK(!raw_driver_accepts(&bad[i]), &bad[i], "the driver rejects it");
    }
}

static void tensor_maps(tirx_device *gpu)
{
    static const RtTmaDtype dtypes[] = {RT_TMA_UINT8,   RT_TMA_UINT16, RT_TMA_FLOAT16,
                                        RT_TMA_BFLOAT16, RT_TMA_FLOAT32, RT_TMA_INT32,
                                        RT_TMA_FLOAT64, RT_TMA_TFLOAT32};
    void *buf = op_alloc(gpu, 1 << 20);
    RtDevPtr base = (RtDevPtr)(uintptr_t)buf;
    int count = 0;
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
        for (int rank = 1; rank <= 5; rank++)
            for (int sw = RT_TMA_SWIZZLE_NONE; sw <= RT_TMA_SWIZZLE_128B; sw++) {
                int v = (int)d + rank + sw;
                RtTmaOobFill oob = is_float(dtypes[d]) && v % 2 ? RT_TMA_OOB_NAN : RT_TMA_OOB_ZERO;
                RtTensorMapSpec s = make_spec(base, dtypes[d], rank, (RtTmaSwizzle)sw, oob, v % 5);
                check_valid(&s);
                count++;
            }
    check_invalid(base);
    op_free_ptr(gpu, buf);
    printf("tensor maps: %d valid maps and their one-field changes, 9 invalid maps: %d failures\n",
           count, map_failures);
    GPU_CHECK(map_failures == 0, "the driver and the simulator agree on the tensor maps");
}

/* ---------------------------------------------------------------- kernels */

/* How an argument starts: random bits (copies), uniform in [-4, 4) float32,
 * uniform 16-bit floats, float32 over a wide exponent range (conversions:
 * subnormals, overflow and fp8 saturation; no NaN, whose payload the GPU's
 * cvt does not keep), or poisoned (all bits set; an output). */
typedef enum { IN_BITS, IN_F32, IN_F16, IN_BF16, IN_WIDE, OUT } Fill;

typedef struct Arg {
    int64_t shape[3];
    int ndim;
    uint8_t code, bits;
    Fill fill;
} Arg;

typedef struct KernelCase {
    const char *file, *func;
    const char *defines[12]; /* NAME=VALUE */
    double tol;             /* 0: bit for bit; else the relative L2 error of float32 outputs */
    Arg args[6];
} KernelCase;

#define F16(r, c, f) {{r, c}, 2, kDLFloat, 16, f}
#define BF16(r, c, f) {{r, c}, 2, kDLBfloat, 16, f}
#define F32(r, c, f) {{r, c}, 2, kDLFloat, 32, f}

static const KernelCase kernel_cases[] = {
    {"tests/gpu/op_copy.tirx", "tile_copy", {"M=200", "N=136"}, 0,
     {F16(200, 136, IN_BITS), F16(200, 136, OUT)}},
    {"examples/tma_copy.tirx", "tma_copy", {"M=256", "N=128"}, 0,
     {F16(256, 128, IN_BITS), F16(256, 128, OUT), F16(256, 128, OUT)}},
    {"tests/gpu/op_tma.tirx", "tma_layouts", {0}, 0,
     {BF16(256, 128, IN_BITS), BF16(256, 128, OUT), BF16(256, 64, OUT), BF16(256, 64, OUT),
      BF16(256, 64, OUT), BF16(256, 64, OUT)}},
    {"tests/gpu/op_tma.tirx", "tma_multicast", {0}, 0,
     {F16(256, 64, IN_BITS), F16(512, 64, OUT)}},
    {"tests/gpu/op_tma.tirx", "tma_reduce", {0}, 0, {F32(256, 64, IN_F32), F32(256, 64, IN_F32)}},
    {"tests/gpu/op_tma.tirx", "tma_views", {0}, 0,
     {{{4, 256, 64}, 3, kDLFloat, 16, IN_BITS}, {{4, 256, 64}, 3, kDLFloat, 16, OUT}}},
    {"tests/gpu/op_tma.tirx", "tma_ragged", {0}, 0,
     {F16(1000, 1000, IN_BITS), F16(1000, 1000, OUT), F16(1024, 1024, OUT)}},
    {"tests/gpu/op_vec_width.tirx", "vec_widths", {0}, 0, {F16(64, 512, IN_BITS), F16(64, 512, OUT)}},
    {"tests/gpu/op_ldstmatrix.tirx", "epilogue", {0}, 0,
     {F32(128, 128, IN_WIDE), BF16(128, 128, OUT), BF16(128, 128, OUT)}},
    {"tests/gpu/op_ldstmatrix.tirx", "load_trans", {0}, 0,
     {F16(16, 8, IN_BITS), F16(16, 8, OUT), F16(64, 64, IN_BITS), F16(64, 64, OUT)}},
    {"tests/gpu/sim_agreement.tirx", "convert", {0}, 0,
     {{{4096}, 1, kDLFloat, 32, IN_WIDE}, {{4096}, 1, kDLFloat, 16, OUT},
      {{4096}, 1, kDLBfloat, 16, OUT}, {{4096}, 1, kDLFloat8_e4m3fn, 8, OUT},
      {{4096}, 1, kDLFloat8_e5m2, 8, OUT}, {{4096}, 1, kDLFloat, 32, OUT}}},
    {"tests/gpu/sim_agreement.tirx", "bit_ops", {0}, 0,
     {{{4096}, 1, kDLUInt, 32, IN_BITS}, {{4096}, 1, kDLUInt, 32, IN_BITS},
      {{4096}, 1, kDLUInt, 32, IN_BITS}, {{4096}, 1, kDLFloat, 32, IN_F32},
      {{3, 4096}, 2, kDLUInt, 32, OUT}, {{3, 4096}, 2, kDLUInt, 32, OUT}}},
    {"examples/row_softmax.tirx", "row_softmax", {"ROWS=8", "N=1000"}, 1e-5,
     {F32(8, 1000, IN_F32), F32(8, 1000, OUT)}},
    {"tests/gpu/op_softmax_reg.tirx", "softmax_reg", {"ROWS=8", "N=1024"}, 1e-5,
     {F32(8, 1024, IN_F32), F32(8, 1024, OUT)}},
    {"tests/gpu/wgmma_tile.tirx", "wgmma_n16", {0}, 1e-5,
     {F16(64, 16, IN_F16), F16(16, 16, IN_F16), F32(64, 16, OUT)}},
    {"tests/gpu/op_gemm_wgmma.tirx", "gemm", {"M=64", "N=128", "K=64", "SW=128", "AR=64", "AC=64",
                                              "BR=128", "BC=64"}, 1e-5,
     {BF16(64, 64, IN_BF16), BF16(128, 64, IN_BF16), F32(64, 128, OUT)}},
    {"tests/gpu/op_gemm_wgmma.tirx", "gemm", {"M=64", "N=64", "K=32", "SW=0", "AR=32", "AC=64",
                                              "BR=32", "BC=64", "DTYPE=float16", "TA=True",
                                              "TB=True"}, 1e-5,
     {F16(32, 64, IN_F16), F16(32, 64, IN_F16), F32(64, 64, OUT)}},
};

static size_t arg_elems(const Arg *a)
{
    size_t n = 1;
    for (int i = 0; i < a->ndim; i++)
        n *= (size_t)a->shape[i];
    return n;
}

static void fill(GpuRng *rng, const Arg *a, void *dst)
{
    size_t n = arg_elems(a), bytes = n * a->bits / 8;
    unsigned char *p = dst;
    for (size_t i = 0; i < n; i++) {
        float f = 4.0f * gpu_uniform(rng);
        uint16_t h;
        switch (a->fill) {
        case IN_F32: memcpy(p + 4 * i, &f, 4); break;
        case IN_F16: h = op_f32_to_f16(f / 4), memcpy(p + 2 * i, &h, 2); break;
        case IN_BF16: h = op_f32_to_bf16(f / 4), memcpy(p + 2 * i, &h, 2); break;
        case IN_WIDE: f = ldexpf(f, (int)(gpu_next(rng) % 60) - 36), memcpy(p + 4 * i, &f, 4); break;
        default: break;
        }
    }
    if (a->fill == IN_BITS)
        for (size_t i = 0; i < bytes; i++)
            p[i] = (unsigned char)(gpu_next(rng) >> 56);
    if (a->fill == OUT)
        memset(p, 0xff, bytes);
}

static double rel_l2(const float *got, const float *want, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(got[i]) || !isfinite(want[i]))
            return INFINITY;
        num += ((double)got[i] - want[i]) * ((double)got[i] - want[i]);
        den += (double)want[i] * want[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* One run of c: on the GPU when gpu is set, else in the simulator; the
 * arguments start as init[i] and end in out[i]. */
static void run_case(tirx_device *gpu, tirx_module *m, const KernelCase *c, int nargs,
                     void *const *init, void **out)
{
    DLTensor t[6];
    tirx_arg args[6];
    void *mem[6];
    tirx_error err;
    for (int i = 0; i < nargs; i++) {
        const Arg *a = &c->args[i];
        size_t bytes = arg_elems(a) * a->bits / 8;
        if (gpu) {
            op_ok(tirx_device_alloc(gpu, bytes, &mem[i], &err), &err, "tirx_device_alloc");
            op_ok(tirx_copy_to_device(gpu, mem[i], init[i], bytes, &err), &err, "copy in");
        } else {
            mem[i] = aligned_alloc(256, (bytes + 255) / 256 * 256);
            GPU_CHECK(mem[i] != NULL, "host memory");
            memcpy(mem[i], init[i], bytes);
        }
        t[i] = (DLTensor){.data = mem[i], .device = {gpu ? kDLCUDA : kDLCPU, 0}, .ndim = a->ndim,
                          .dtype = {a->code, a->bits, 1}, .shape = (int64_t *)a->shape};
        args[i] = tirx_arg_tensor(&t[i]);
    }
    if (gpu) {
        tirx_function *f;
        op_ok(tirx_get_function(m, c->func, &f, &err), &err, "tirx_get_function");
        op_ok(tirx_launch(f, args, (size_t)nargs, NULL, &err), &err, c->func);
        op_ok(tirx_device_synchronize(gpu, NULL, &err), &err, "synchronize");
    } else {
        op_ok(tirx_simulate(m, c->func, args, (size_t)nargs, &err), &err, c->func);
    }
    for (int i = 0; i < nargs; i++) {
        size_t bytes = arg_elems(&c->args[i]) * c->args[i].bits / 8;
        if (gpu) {
            op_ok(tirx_copy_to_host(gpu, out[i], mem[i], bytes, &err), &err, "copy out");
            tirx_device_free(gpu, mem[i]);
        } else {
            memcpy(out[i], mem[i], bytes);
            free(mem[i]);
        }
    }
}

static tirx_module *compile_case(tirx_device *gpu, const KernelCase *c)
{
    tirx_define d[12];
    char text[12][64];
    size_t n = 0;
    for (; n < 12 && c->defines[n]; n++) {
        snprintf(text[n], sizeof text[n], "%s", c->defines[n]);
        char *eq = strchr(text[n], '=');
        GPU_CHECK(eq != NULL, "a define is NAME=VALUE");
        *eq = 0;
        d[n] = (tirx_define){text[n], eq + 1};
    }
    return op_compile(gpu, c->file, d, n);
}

/* Compares one argument of the GPU's run (hw) with the simulator's (sim);
 * returns whether they agree. */
static bool agree(const KernelCase *c, int i, const void *init, const void *hw, const void *sim)
{
    const Arg *a = &c->args[i];
    size_t n = arg_elems(a);
    if (c->tol > 0 && a->fill == OUT) {
        double rel = rel_l2(hw, sim, n);
        printf("  argument %d: relative L2 difference %.3g\n", i, rel);
        return rel <= c->tol;
    }
    long long at = op_first_difference(hw, sim, n * a->bits / 8);
    if (at < 0) {
        printf("  argument %d: bit-identical\n", i);
        return true;
    }
    const unsigned char *in = init, *g = hw, *s = sim;
    printf("  argument %d differs first at byte %lld: initial %02x, GPU %02x, simulator %02x\n", i,
           at, in[at], g[at], s[at]);
    return false;
}

/* Runs c in the simulator, then on the GPU, then in the simulator again
 * (the GPU's launch must not change what the module simulates); counts the
 * arguments that disagree. */
static int check_case(tirx_device *gpu, GpuRng *rng, const KernelCase *c)
{
    int nargs = 0, failures = 0;
    while (nargs < 6 && c->args[nargs].ndim)
        nargs++;
    printf("%s (%s)%s:\n", c->func, c->file, c->tol ? ", within a tolerance" : ", bit for bit");
    tirx_module *m = compile_case(gpu, c);
    void *init[6], *hw[6], *sim[6], *after[6];
    for (int i = 0; i < nargs; i++) {
        size_t bytes = arg_elems(&c->args[i]) * c->args[i].bits / 8;
        init[i] = malloc(bytes), hw[i] = malloc(bytes), sim[i] = malloc(bytes);
        after[i] = malloc(bytes);
        GPU_CHECK(init[i] && hw[i] && sim[i] && after[i], "host memory");
        fill(rng, &c->args[i], init[i]);
    }
    run_case(NULL, m, c, nargs, init, sim);
    run_case(gpu, m, c, nargs, init, hw);
    run_case(NULL, m, c, nargs, init, after);
    for (int i = 0; i < nargs; i++) {
        size_t bytes = arg_elems(&c->args[i]) * c->args[i].bits / 8;
        if (!agree(c, i, init[i], hw[i], sim[i]))
            failures++;
        if (memcmp(sim[i], after[i], bytes)) {
            printf("  argument %d: the simulator's result changed after the GPU's launch\n", i);
            failures++;
        }
        free(init[i]), free(hw[i]), free(sim[i]), free(after[i]);
    }
    tirx_module_free(m);
    return failures;
}

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_SM90_ONLY, "the agreement test runs the sm_90a kernels");
    GpuRng rng = gpu_rng();
    tensor_maps(gpu);
    int failures = 0;
    for (size_t i = 0; i < sizeof kernel_cases / sizeof kernel_cases[0]; i++)
        failures += check_case(gpu, &rng, &kernel_cases[i]);
    op_close(gpu);
    printf("kernels: %d disagreements\n", failures);
    GPU_CHECK(failures == 0, "the GPU and the simulator agree on every kernel");
    printf("PASSED\n");
    return 0;
}
