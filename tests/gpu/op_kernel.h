/* What the kernel GPU tests share (op_*.c, wgmma_tile.c, kernel_*.c):
 * compiling a kernel file of examples/, kernels/ or tests/gpu/ through the
 * public API with -D overrides (a test's configurations all at once, a
 * thread each: op_compile_all), device buffers as DLTensors, launching,
 * float16/bfloat16 conversions on the host, bit-exact comparison, the
 * split-K workspace of the GEMMs and the verdict of the MLA decodes. Each
 * test checks against a float64 CPU reference (or the input bits) on fresh
 * random inputs, with the output poisoned before the launch (gpu_test.h).
 *
 * Built with OP_SIM=1 (the sim.* tests of the CPU suite), the same test runs
 * its kernels in the simulator instead (tirx_simulate: sm_90a, no GPU or
 * CUDA toolkit): "device" buffers are host memory (kDLCPU), a launch is a
 * simulation, and OP_SIZE(gpu, sim) picks the smaller problem sizes. The
 * checks are the GPU test's own. */
#ifndef TIRX_OP_KERNEL_H
#define TIRX_OP_KERNEL_H

#include <pthread.h>

#include "gpu_test.h"
#include "runtime/dlpack.h"
#include "tirx.h"

/* The architecture the simulator's kernels are compiled for: sm_90a, or
 * sm_100a for a test that needs it (op_open_gpu). */
static const char *op_sim_arch = "sm_90a";

static inline void op_ok(tirx_status st, const tirx_error *err, const char *what)
{
    if (st != TIRX_OK)
        gpu_fail_at(__FILE__, __LINE__, what, err->message);
}

static inline char *op_read_source(const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", TIRX_SOURCE_DIR, rel);
    FILE *f = fopen(path, "rb");
    GPU_CHECK(f != NULL, "the kernel file is readable");
    size_t cap = 1 << 16, n = 0;
    char *text = malloc(cap);
    size_t k;
    while (text && (k = fread(text + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (n + 1 == cap)
            text = realloc(text, cap *= 2);
    }
    fclose(f);
    GPU_CHECK(text && n > 0, "the kernel file is not empty");
    text[n] = 0;
    return text;
}

/* Compiles `rel` (relative to the source tree) for the device with the
 * given NAME=VALUE defines; prints each kernel's resource usage. */
static inline tirx_module *op_compile(tirx_device *gpu, const char *rel, const tirx_define *defs,
                                      size_t ndefs)
{
    char *text = op_read_source(rel);
    /* its imports: the file's directory in the source tree (`rel` names it
     * relative to the tree, not to the working directory) */
    char dir[4096];
    const char *slash = strrchr(rel, '/');
    snprintf(dir, sizeof dir, "%s/%.*s", TIRX_SOURCE_DIR, slash ? (int)(slash - rel) : 0, rel);
    const char *dirs[] = {dir};
    /* no_cache: a test compiles for real (and a cached module cannot be simulated) */
    tirx_options o = {.arch = OP_SIM ? op_sim_arch : tirx_device_arch(gpu), .lineinfo = 1,
                      .no_binary = OP_SIM, .no_cache = 1, .import_dirs = dirs,
                      .n_import_dirs = 1};
    tirx_module *m;
    tirx_status st = tirx_compile(text, strlen(text), rel, defs, ndefs, &o, &m);
    free(text);
    if (st != TIRX_OK) {
        char *d = tirx_diag_render(m);
        fprintf(stderr, "%s%s\n", d ? d : "", tirx_module_log(m) ? tirx_module_log(m) : "");
        tirx_free(d);
        gpu_fail_at(__FILE__, __LINE__, "tirx_compile", rel);
    }
    for (size_t i = 0; i < tirx_kernel_count(m); i++) {
        tirx_kernel_stats k;
        if (tirx_kernel_stats_get(m, i, &k) == 0)
            printf("  %s: %d registers, %d B spilled, %d B static smem, %lld B dynamic smem\n",
                   k.name, k.registers, k.spill_store_bytes, k.smem_bytes, k.dyn_smem_bytes);
    }
    return m;
}

/* op_compile with the defines of $TIRX_KERNEL_DEFINES after the n of d
 * (NAME=VALUE words separated by spaces): the kernel tests (MLA decodes,
 * sm_90a GEMMs) run their checks on a variant of the kernel this way. */
static inline tirx_module *op_compile_variant(tirx_device *gpu, const char *rel,
                                              const tirx_define *d, size_t n)
{
    enum { MAX = 24 };
    tirx_define all[MAX];
    char words[256]; /* not static: builds run on threads of their own (op_compile_all) */
    const char *extra = getenv("TIRX_KERNEL_DEFINES");
    snprintf(words, sizeof words, "%s", extra ? extra : "");
    GPU_CHECK(n <= MAX, "at most 24 defines");
    memcpy(all, d, n * sizeof *d);
    for (char *save, *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(w, '=');
        GPU_CHECK(eq && n < MAX, "TIRX_KERNEL_DEFINES takes NAME=VALUE words");
        *eq = '\0';
        all[n++] = (tirx_define){w, eq + 1};
    }
    return op_compile(gpu, rel, all, n);
}

/* One configuration of a kernel for op_compile_all: the file, its defines
 * (op_build_define) and, once built, the module (op_compile_variant's). */
typedef struct OpBuild {
    const char *rel;
    tirx_define d[8];
    char values[8][32];
    size_t n;
    tirx_device *gpu;
    tirx_module *m;
} OpBuild;

static inline void op_build_define(OpBuild *b, const char *name, const char *value)
{
    GPU_CHECK(b->n < 8 && strlen(value) < sizeof b->values[0], "at most 8 short defines");
    snprintf(b->values[b->n], sizeof b->values[0], "%s", value);
    b->d[b->n] = (tirx_define){name, b->values[b->n]};
    b->n++;
}

static inline void *op_build_run(void *arg)
{
    OpBuild *b = arg;
    b->m = op_compile_variant(b->gpu, b->rel, b->d, b->n);
    return NULL;
}

/* Builds the n configurations on threads of their own: NVRTC spends seconds
 * of one core on a large kernel, and a test's configurations then take the
 * time of one (tirx_compile is thread-safe). In the simulator, whose compiles
 * skip NVRTC, one after another. */
static inline void op_compile_all(tirx_device *gpu, OpBuild *b, size_t n)
{
    pthread_t *t = calloc(n ? n : 1, sizeof *t);
    GPU_CHECK(t != NULL, "host memory");
    for (size_t i = 0; i < n; i++) {
        b[i].gpu = gpu;
        if (OP_SIM)
            op_build_run(&b[i]);
        else
            GPU_CHECK(pthread_create(&t[i], NULL, op_build_run, &b[i]) == 0, "a compile thread");
    }
    for (size_t i = 0; !OP_SIM && i < n; i++)
        GPU_CHECK(pthread_join(t[i], NULL) == 0, "the compile thread ends");
    free(t);
}

/* What a test needs of the GPU's architecture. */
typedef enum { OP_ANY_GPU, OP_SM90_OR_NEWER, OP_SM90_ONLY, OP_SM100_ONLY } OpGpuNeed;

/* Device 0, its architecture printed; skips (77) without a usable GPU, or
 * saying `why` when the architecture does not meet `need`. */
static inline tirx_device *op_open_gpu(OpGpuNeed need, const char *why)
{
    if (OP_SIM) {
        op_sim_arch = need == OP_SM100_ONLY ? "sm_100a" : "sm_90a";
        printf("simulator: %s\n", op_sim_arch);
        return NULL;
    }
    tirx_device *gpu;
    tirx_error err;
    if (tirx_device_open(0, &gpu, &err) != TIRX_OK)
        gpu_skip(err.message);
    const char *arch = tirx_device_arch(gpu);
    printf("device arch: %s\n", arch);
    bool hopper = !strncmp(arch, "sm_9", 4), newer = !strncmp(arch, "sm_1", 4);
    if ((need == OP_SM90_ONLY && !hopper) || (need == OP_SM90_OR_NEWER && !hopper && !newer) ||
        (need == OP_SM100_ONLY && strncmp(arch, "sm_100", 6) != 0)) {
        tirx_device_close(gpu);
        gpu_skip_arch(why);
    }
    return gpu;
}

/* A device tensor of up to four dimensions. */
typedef struct OpTensor {
    DLTensor t;
    int64_t shape[4];
    void *data;
    size_t bytes;
} OpTensor;

/* The device's architecture (the simulator's under OP_SIM). */
static inline const char *op_arch(tirx_device *gpu)
{
    return OP_SIM ? op_sim_arch : tirx_device_arch(gpu);
}

static inline void op_close(tirx_device *gpu)
{
    if (!OP_SIM)
        tirx_device_close(gpu);
}

/* n bytes of device memory (host memory under OP_SIM, 256-byte aligned as
 * TMA wants). */
static inline void *op_alloc(tirx_device *gpu, size_t n)
{
    void *p = NULL;
    if (OP_SIM) {
        p = aligned_alloc(256, (n + 255) / 256 * 256);
        GPU_CHECK(p != NULL, "host memory");
    } else {
        tirx_error err;
        op_ok(tirx_device_alloc(gpu, n ? n : 1, &p, &err), &err, "tirx_device_alloc");
    }
    return p;
}

static inline void op_free_ptr(tirx_device *gpu, void *p)
{
    if (OP_SIM)
        free(p);
    else
        tirx_device_free(gpu, p);
}

static inline void op_copy_in(tirx_device *gpu, void *dev, const void *host, size_t n)
{
    tirx_error err;
    if (OP_SIM)
        memcpy(dev, host, n);
    else
        op_ok(tirx_copy_to_device(gpu, dev, host, n, &err), &err, "copy to device");
}

/* Waits for the device, then copies n bytes back. */
static inline void op_copy_out(tirx_device *gpu, void *host, const void *dev, size_t n)
{
    tirx_error err;
    if (OP_SIM) {
        memcpy(host, dev, n);
        return;
    }
    op_ok(tirx_device_synchronize(gpu, NULL, &err), &err, "synchronize");
    op_ok(tirx_copy_to_host(gpu, host, dev, n, &err), &err, "copy to host");
}

/* The DLDevice of the buffers op_alloc returns. */
static inline DLDevice op_dl_device(void)
{
    return (DLDevice){OP_SIM ? kDLCPU : kDLCUDA, 0};
}

static inline void op_tensor_nd(tirx_device *gpu, OpTensor *x, int ndim, const int64_t *shape,
                                uint8_t code, uint8_t bits)
{
    GPU_CHECK(ndim >= 1 && ndim <= 4, "a tensor of 1 to 4 dimensions");
    size_t n = 1;
    for (int i = 0; i < ndim; i++)
        x->shape[i] = shape[i], n *= (size_t)shape[i];
    x->bytes = n * bits / 8;
    x->data = op_alloc(gpu, x->bytes);
    DLTensor t = {.data = x->data, .device = op_dl_device(), .ndim = ndim,
                  .dtype = {code, bits, 1}, .shape = x->shape};
    x->t = t;
}

static inline void op_tensor(tirx_device *gpu, OpTensor *x, int64_t rows, int64_t cols,
                             uint8_t code, uint8_t bits)
{
    int64_t shape[2] = {rows, cols};
    op_tensor_nd(gpu, x, 2, shape, code, bits);
}

static inline void op_free(tirx_device *gpu, OpTensor *x)
{
    op_free_ptr(gpu, x->data);
}

static inline void op_upload(tirx_device *gpu, OpTensor *x, const void *host)
{
    op_copy_in(gpu, x->data, host, x->bytes);
}

/* Poison the device buffer (all bits set: NaN for floats). */
static inline void op_poison(tirx_device *gpu, OpTensor *x)
{
    void *p = malloc(x->bytes);
    GPU_CHECK(p != NULL, "host memory");
    memset(p, 0xff, x->bytes);
    op_upload(gpu, x, p);
    free(p);
}

static inline void op_download(tirx_device *gpu, OpTensor *x, void *host)
{
    op_copy_out(gpu, host, x->data, x->bytes);
}

static inline tirx_function *op_function(tirx_module *m, const char *name)
{
    tirx_error err;
    tirx_function *f;
    op_ok(tirx_get_function(m, name, &f, &err), &err, "tirx_get_function");
    return f;
}

/* Launches function `name` of m on the default stream (simulates it under
 * OP_SIM; a kernel error fails the test with the simulator's message). */
static inline void op_launch_args(tirx_module *m, const char *name, const tirx_arg *args,
                                  size_t n)
{
    tirx_error err;
    if (OP_SIM) {
        op_ok(tirx_simulate(m, name, args, n, &err), &err, name);
        return;
    }
    tirx_function *f;
    op_ok(tirx_get_function(m, name, &f, &err), &err, "tirx_get_function");
    op_ok(tirx_launch(f, args, n, NULL, &err), &err, "tirx_launch");
}

static inline void op_launch(tirx_module *m, const char *name, OpTensor *const *t, size_t n)
{
    tirx_arg args[8];
    GPU_CHECK(n <= 8, "at most 8 tensors");
    for (size_t i = 0; i < n; i++)
        args[i] = tirx_arg_tensor(&t[i]->t);
    op_launch_args(m, name, args, n);
}

/* ---- 16-bit floats on the host ---- */

static inline uint16_t op_f32_to_f16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, mag = x & 0x7fffffffu;
    if (mag >= 0x47800000u) /* overflow, inf, NaN */
        return (uint16_t)(sign | (mag > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (mag < 0x38800000u) { /* subnormal: round to nearest even on the shifted mantissa */
        uint32_t shift = 126 - (mag >> 23), m = (mag & 0x7fffffu) | 0x800000u;
        if (shift > 24)
            return (uint16_t)sign;
        uint32_t half = m >> shift, rest = m & ((1u << shift) - 1), mid = 1u << (shift - 1);
        half += rest > mid || (rest == mid && (half & 1));
        return (uint16_t)(sign | half);
    }
    uint32_t h = ((mag - 0x38000000u) >> 13), rest = mag & 0x1fffu;
    h += rest > 0x1000u || (rest == 0x1000u && (h & 1));
    return (uint16_t)(sign | h);
}

static inline float op_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    if (e == 0 && m == 0) {
        x = sign;
    } else if (e == 0) { /* subnormal */
        e = 113;
        while (!(m & 0x400u))
            m <<= 1, e--;
        x = sign | (e << 23) | ((m & 0x3ffu) << 13);
    } else if (e == 31) {
        x = sign | 0x7f800000u | (m << 13);
    } else {
        x = sign | ((e + 112) << 23) | (m << 13);
    }
    float f;
    memcpy(&f, &x, 4);
    return f;
}

static inline uint16_t op_f32_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

static inline float op_bf16_to_f32(uint16_t h)
{
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* The first index where two byte arrays differ, or -1. */
static inline long long op_first_difference(const void *a, const void *b, size_t bytes)
{
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < bytes; i++)
        if (x[i] != y[i])
            return (long long)i;
    return -1;
}

/* ---------------------------------------------------------------- split-K */

/* The split-K workspace of kernels/gemm_sm90.tirx and gemm_fp8_sm90.tirx:
 * WORKSPACE_BYTES of int32 (32 MiB; 1 MiB under OP_SIM, where the tests pass
 * -D WORKSPACE_BYTES=1048576), zeroed once; its header of COUNTERS = 1024
 * counters must be zero again after every launch. */
#define OP_SPLIT_K_WORDS OP_SIZE(32 * 1024 * 1024 / 4, 1024 * 1024 / 4)

static inline void op_split_k_workspace(tirx_device *gpu, OpTensor *ws)
{
    op_tensor(gpu, ws, OP_SPLIT_K_WORDS, 1, kDLInt, 32);
    ws->t.ndim = 1;
    int32_t *zeros = calloc(OP_SPLIT_K_WORDS, 4);
    GPU_CHECK(zeros != NULL, "host memory");
    op_upload(gpu, ws, zeros);
    free(zeros);
}

static inline void op_check_split_k_counters(tirx_device *gpu, const OpTensor *ws)
{
    int32_t head[1024];
    op_copy_out(gpu, head, ws->data, sizeof head);
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
        GPU_CHECK(head[i] == 0, "the split-K counters are back at zero");
}

/* ---------------------------------------------------------------- MLA decode */

/* The verdict of the MLA decode tests (mla_decode_test.h for the dense ones,
 * kernel_mla_sparse_fp8_*.c) on one run: lse, row by row, within 1e-3 (max
 * absolute error over the rows that see a token; a row that sees none must
 * give lse = +inf), and out within 2e-3 relative L2 error of a float64 run
 * of the kernel's algorithm and within 3e-3 of the exact float64 attention.
 * The test fills in the messages and, when it knows it, how many rows see no
 * token. */
typedef struct OpMlaCheck {
    const char *algorithm; /* what the emulated run is, for the report ("the bfloat16-P algorithm") */
    const char *empty_row; /* the check's message for a row without a token */
    int expect_empty;      /* the rows without a token there must be, or -1: any number */
    bool f16;              /* out is float16 (else bfloat16) */
    double lse_err;
    int empty_rows;
} OpMlaCheck;

/* The value row (dv doubles) of score t of an emulated MLA row: a pointer
 * into the caller's data, or into buf after converting it. */
typedef const double *(*OpMlaValue)(const void *ctx, int t, double *buf);

/* FlashMLA's decode algorithm in float64 over blocks [b0, b1) of `block`
 * scores of one row (s: the n scaled scores, natural-log units, -inf where
 * masked): the online softmax in log2 units with the running maximum of
 * whole blocks, P rounded to bfloat16 (float16 with f16) for P @ V (the
 * row sums from the unrounded P), as the kernels compute it. Returns the
 * part's log2-sum-exp (-inf when it sees no token) and its normalized output
 * (dv values; dv at most 512). */
static inline double op_mla_emulate_part(const double *s, int n, int block, int b0, int b1,
                                         int dv, OpMlaValue value, const void *ctx, bool f16,
                                         double *out)
{
    const double log2e = 1.4426950408889634;
    double m = -1e30, l = 0, buf[512];
    GPU_CHECK(dv <= 512, "at most 512 values per row");
    for (int d = 0; d < dv; d++)
        out[d] = 0;
    for (int blk = b0; blk < b1; blk++) {
        int end = (blk + 1) * block < n ? (blk + 1) * block : n;
        double bm = -INFINITY;
        for (int t = blk * block; t < end; t++)
            bm = fmax(bm, s[t] * log2e);
        double m_new = fmax(m, bm), alpha = exp2(m - m_new);
        m = m_new, l *= alpha;
        for (int d = 0; d < dv; d++)
            out[d] *= alpha;
        for (int t = blk * block; t < end; t++) {
            if (isinf(s[t]))
                continue;
            float e = (float)exp2(s[t] * log2e - m);
            double pb = f16 ? op_f16_to_f32(op_f32_to_f16(e)) : op_bf16_to_f32(op_f32_to_bf16(e));
            const double *v = value(ctx, t, buf);
            l += e;
            for (int d = 0; d < dv; d++)
                out[d] += pb * v[d];
        }
    }
    for (int d = 0; d < dv; d++)
        out[d] /= l > 0 ? l : 1;
    return l > 0 ? log2(l) + m : -INFINITY;
}

/* One row's lse: the kernel's, and the exact one (+inf: the row sees no token). */
static inline void op_mla_check_lse(OpMlaCheck *c, float got, double exact)
{
    if (isinf(exact)) {
        c->empty_rows++;
        GPU_CHECK(isinf(got) && got > 0, c->empty_row);
    } else {
        GPU_CHECK(isfinite(got), "lse is finite");
        c->lse_err = fmax(c->lse_err, fabs(got - exact));
    }
}

/* After every row's lse: the n bfloat16 (c->f16: float16) values of out
 * against the exact reference and the emulated run; prints the errors and
 * decides. */
static inline void op_mla_check_out(const OpMlaCheck *c, const uint16_t *out, const double *ref,
                                    const double *emu, size_t n)
{
    float *outf = malloc(n * 4);
    GPU_CHECK(outf != NULL, "host memory");
    for (size_t i = 0; i < n; i++)
        outf[i] = c->f16 ? op_f16_to_f32(out[i]) : op_bf16_to_f32(out[i]);
    double rel = gpu_rel_l2(outf, ref, n), rel_emu = gpu_rel_l2(outf, emu, n);
    free(outf);
    printf("  out rel L2 error %.3g (%.3g against %s), lse max abs error "
           "%.3g, %d rows see no token\n",
           rel, rel_emu, c->algorithm, c->lse_err, c->empty_rows);
    if (c->expect_empty >= 0)
        GPU_CHECK(c->empty_rows == c->expect_empty,
                  "the rows without a token are the padded ones");
    GPU_CHECK(rel_emu <= 2e-3, "out matches the float64 run of the kernel's algorithm");
    GPU_CHECK(rel <= 3e-3, "out matches the exact float64 reference");
    GPU_CHECK(c->lse_err <= 1e-3, "lse matches the float64 reference");
}

#endif
