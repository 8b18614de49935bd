/* The simulator (tirx_simulate) without a GPU or a CUDA toolkit: the
 * examples run at small sizes on fresh random inputs and agree with a
 * float64 reference (vector_add exactly, row_softmax to float32 rounding,
 * tiled_gemm's mma.sync / ldmatrix fragments to float32 accumulation);
 * planted bugs (a missing barrier, an off-by-one shared index, a warp
 * collective or barrier some threads never reach, a wrong mbarrier expect-tx
 * count) are errors naming the .tirx line, the thread and the CTA; an
 * operation the simulator does not model is an error saying so. The TMA
 * examples and the kernels of the GPU tests tests/gpu/op_tma.tirx,
 * op_dsmem.tirx and op_ldstmatrix.tirx (mbarriers, swizzled and ragged TMA
 * loads and stores, reduce stores, multicast and distributed shared memory
 * in 2-CTA clusters, ldmatrix/stmatrix) give what the GPU tests check: the
 * input bits, bit for bit. kernels/gemm_sm90.tirx (wgmma) agrees with float64. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "runtime/dlpack.h"
#include "sim/internal.h"
#include "tirx.h"

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return s;
}

static tirx_module *compile_text(const char *text, size_t len, const char *name,
                                 const tirx_define *defs, size_t ndefs)
{
    tirx_options o = {.arch = "sm_90a", .no_binary = 1};
    tirx_module *m = NULL;
    tirx_status st = tirx_compile(text, len, name, defs, ndefs, &o, &m);
    if (st != TIRX_OK) {
        char *d = tirx_diag_render(m);
        fprintf(stderr, "%s\n", d ? d : "");
        tirx_free(d);
    }
    assert_int_equal(st, TIRX_OK);
    return m;
}

static tirx_module *compile_example(const char *file, const tirx_define *defs, size_t ndefs)
{
    char path[512];
    snprintf(path, sizeof path, TIRX_SOURCE_DIR "/%s%s", strchr(file, '/') ? "" : "examples/",
             file);
    size_t len;
    char *text = read_file(path, &len);
    tirx_module *m = compile_text(text, len, file, defs, ndefs);
    free(text);
    return m;
}

typedef struct Tensor {
    DLTensor t;
    int64_t shape[3];
} Tensor;

static Tensor tensor(void *data, int ndim, int64_t d0, int64_t d1, uint8_t code, uint8_t bits)
{
    Tensor t = {.shape = {d0, d1, 0}};
    t.t.data = data;
    t.t.device = (DLDevice){kDLCPU, 0};
    t.t.ndim = ndim;
    t.t.dtype = (DLDataType){code, bits, 1};
    return t;
}

/* Aligned host memory of n floats, filled with uniform values in [-1, 1). */
static float *random_floats(size_t n, unsigned *seed)
{
    float *p = aligned_alloc(64, (n * sizeof *p + 63) / 64 * 64);
    for (size_t i = 0; i < n; i++)
        p[i] = (float)rand_r(seed) / (float)RAND_MAX * 2 - 1;
    return p;
}

static double rel_err(const float *out, const double *ref, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        num += (out[i] - ref[i]) * (out[i] - ref[i]);
        den += ref[i] * ref[i];
    }
    return sqrt(num / (den ? den : 1));
}

static tirx_status simulate(tirx_module *m, const char *fn, Tensor **ts, int n, const long long *ints,
                            int nints, tirx_error *err)
{
    tirx_arg args[8];
    for (int i = 0; i < n; i++) {
        ts[i]->t.shape = ts[i]->shape;
        args[i] = tirx_arg_tensor((const struct DLTensor *)&ts[i]->t);
    }
    for (int i = 0; i < nints; i++)
        args[n + i] = tirx_arg_int(ints[i]);
    memset(err, 0, sizeof *err);
    return tirx_simulate(m, fn, args, (size_t)(n + nints), err);
}

/* ---------------------------------------------------------------- examples */

static void test_vector_add(void **state)
{
    (void)state;
    tirx_module *m = compile_example("vector_add.tirx", NULL, 0);
    unsigned seed = 1;
    int n = 1000; /* a ragged last CTA */
    float *a = random_floats((size_t)n, &seed), *b = random_floats((size_t)n, &seed);
    float *c = random_floats((size_t)n, &seed);
    Tensor A = tensor(a, 1, n, 0, kDLFloat, 32), B = tensor(b, 1, n, 0, kDLFloat, 32);
    Tensor C = tensor(c, 1, n, 0, kDLFloat, 32);
    Tensor *ts[] = {&A, &B, &C};
    long long ints[] = {n};
    tirx_error err;
    assert_int_equal(simulate(m, "vector_add", ts, 3, ints, 1, &err), TIRX_OK);
    for (int i = 0; i < n; i++)
        assert_true(c[i] == a[i] + b[i]);
    free(a), free(b), free(c);
    tirx_module_free(m);
}

static void test_row_softmax(void **state)
{
    (void)state;
    tirx_define defs[] = {{"ROWS", "3"}, {"N", "200"}, {"THREADS", "64"}};
    tirx_module *m = compile_example("row_softmax.tirx", defs, 3);
    unsigned seed = 2;
    int rows = 3, n = 200;
    float *x = random_floats((size_t)(rows * n), &seed), *y = random_floats((size_t)(rows * n), &seed);
    Tensor X = tensor(x, 2, rows, n, kDLFloat, 32), Y = tensor(y, 2, rows, n, kDLFloat, 32);
    Tensor *ts[] = {&X, &Y};
    tirx_error err;
    tirx_status st = simulate(m, "row_softmax", ts, 2, NULL, 0, &err);
    if (st != TIRX_OK)
        fprintf(stderr, "%s\n", err.message);
    assert_int_equal(st, TIRX_OK);
    double *ref = malloc(sizeof *ref * (size_t)(rows * n));
    for (int r = 0; r < rows; r++) {
        double mx = -INFINITY, sum = 0;
        for (int j = 0; j < n; j++)
            mx = fmax(mx, x[r * n + j]);
        for (int j = 0; j < n; j++)
            sum += exp(x[r * n + j] - mx);
        for (int j = 0; j < n; j++)
            ref[r * n + j] = exp(x[r * n + j] - mx) / sum;
    }
    assert_true(rel_err(y, ref, (size_t)(rows * n)) < 1e-6);
    free(x), free(y), free(ref);
    tirx_module_free(m);
}

static uint16_t to_half(float f)
{
    SimVal v = {.f = f};
    return (uint16_t)sim_to_bits(IR_FLOAT16, v);
}

static void test_tiled_gemm(void **state)
{
    (void)state;
    tirx_define defs[] = {{"M", "136"}, {"N", "72"}, {"K", "64"}};
    tirx_module *m = compile_example("tiled_gemm.tirx", defs, 3);
    enum { M = 136, N = 72, K = 64 };
    unsigned seed = 3;
    float *af = random_floats(M * K, &seed), *bf = random_floats(K * N, &seed);
    float *c = random_floats(M * N, &seed);
    uint16_t *a = aligned_alloc(64, M * K * 2), *b = aligned_alloc(64, K * N * 2);
    for (int i = 0; i < M * K; i++)
        a[i] = to_half(af[i]), af[i] = (float)sim_from_bits(IR_FLOAT16, a[i]).f;
    for (int i = 0; i < K * N; i++)
        b[i] = to_half(bf[i]), bf[i] = (float)sim_from_bits(IR_FLOAT16, b[i]).f;
    Tensor A = tensor(a, 2, M, K, kDLFloat, 16), B = tensor(b, 2, K, N, kDLFloat, 16);
    Tensor C = tensor(c, 2, M, N, kDLFloat, 32);
    Tensor *ts[] = {&A, &B, &C};
    tirx_error err;
    tirx_status st = simulate(m, "tiled_gemm", ts, 3, NULL, 0, &err);
    if (st != TIRX_OK)
        fprintf(stderr, "%s\n", err.message);
    assert_int_equal(st, TIRX_OK);
    double *ref = calloc(M * N, sizeof *ref);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < K; k++)
                ref[i * N + j] += (double)af[i * K + k] * bf[k * N + j];
    assert_true(rel_err(c, ref, M * N) < 1e-6);
    free(a), free(b), free(af), free(bf), free(c), free(ref);
    tirx_module_free(m);
}

/* ---------------------------------------------------------------- planted bugs */

/* Simulates `src` (one float32 vector X of 64 and Y of 64) and expects an
 * error containing each of the fragments. */
static void expect_error(const char *src, const char *const *frags, int nfrags)
{
    tirx_module *m = compile_text(src, strlen(src), "bug.tirx", NULL, 0);
    unsigned seed = 4;
    float *x = random_floats(64, &seed), *y = random_floats(64, &seed);
    Tensor X = tensor(x, 1, 64, 0, kDLFloat, 32), Y = tensor(y, 1, 64, 0, kDLFloat, 32);
    Tensor *ts[] = {&X, &Y};
    tirx_error err;
    assert_int_equal(simulate(m, "f", ts, 2, NULL, 0, &err), TIRX_ERR_USAGE);
    for (int i = 0; i < nfrags; i++) {
        if (!strstr(err.message, frags[i]))
            fail_msg("'%s' is not in: %s", frags[i], err.message);
    }
    free(x), free(y);
    tirx_module_free(m);
}

#define KERNEL_HEAD                                                         \
    "@T.prim_func\n"                                                        \
    "def f(X: T.Buffer((64,), \"float32\"), Y: T.Buffer((64,), \"float32\")):\n" \
    "    T.device_entry()\n"                                                \
    "    bx = T.cta_id([1])\n"                                              \
    "    tx = T.thread_id([64])\n"                                          \
    "    S = T.alloc_shared((64,), \"float32\")\n"

static void test_missing_sync(void **state)
{
    (void)state;
    const char *src = KERNEL_HEAD
        "    S[tx] = X[tx]\n"
        "    Y[tx] = S[63 - tx]\n";
    const char *frags[] = {"bug.tirx:8:13: error:", "thread (", "of CTA (0,0,0)"};
    expect_error(src, frags, 3);
}

static void test_off_by_one(void **state)
{
    (void)state;
    const char *src = KERNEL_HEAD
        "    S[tx] = X[tx]\n"
        "    T.cuda.cta_sync()\n"
        "    Y[tx] = S[tx + 1]\n";
    const char *frags[] = {"bug.tirx:9:", "out of bounds of S", "thread (63,0,0) of CTA (0,0,0)"};
    expect_error(src, frags, 3);
}

static void test_uninitialised_shared(void **state)
{
    (void)state;
    const char *src = KERNEL_HEAD
        "    if tx < 32:\n"
        "        S[tx] = X[tx]\n"
        "    T.cuda.cta_sync()\n"
        "    Y[tx] = S[tx]\n";
    const char *frags[] = {"bug.tirx:10:", "uninitialised shared memory", "thread (32,0,0)"};
    expect_error(src, frags, 3);
}

static void test_deadlock(void **state)
{
    (void)state;
    const char *src = KERNEL_HEAD
        "    S[tx] = X[tx]\n"
        "    if tx < 32:\n"
        "        T.ptx.bar.sync(1, 64)\n"
        "    Y[tx] = S[tx]\n";
    const char *frags[] = {"bug.tirx:9:", "deadlock: barrier 1 waits for 64 threads, 32 arrived"};
    expect_error(src, frags, 2);
}

static void test_warp_collective_deadlock(void **state)
{
    (void)state;
    const char *src = KERNEL_HEAD
        "    S[tx] = X[tx]\n"
        "    if tx % 32 != 5:\n"
        "        Y[tx] = T.cuda.__shfl_xor_sync(T.uint32(0xffffffff), S[tx], 1, 32)\n";
    const char *frags[] = {"bug.tirx:9:", "deadlock: a warp collective waits for lanes 0xffffffff"};
    expect_error(src, frags, 2);
}

static void test_not_modelled(void **state)
{
    (void)state;
    const char *src = KERNEL_HEAD
        "    S[tx] = X[tx]\n"
        "    T.ptx.griddepcontrol.wait()\n"
        "    Y[tx] = S[tx]\n";
    const char *frags[] = {"bug.tirx:8:", "not modelled: ptx.griddepcontrol"};
    expect_error(src, frags, 2);
}

/* ---------------------------------------------------------------- asynchronous copies */

/* n random 16-bit values (finite float16 / bfloat16 patterns: top exponent bits clear) */
static uint16_t *random_halves(size_t n, unsigned *seed)
{
    uint16_t *p = aligned_alloc(256, (n * 2 + 255) / 256 * 256);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint16_t)(rand_r(seed) & 0xbfff);
    return p;
}

static uint16_t *poisoned(size_t n)
{
    uint16_t *p = aligned_alloc(256, (n * 2 + 255) / 256 * 256);
    memset(p, 0xee, n * 2);
    return p;
}

static void run_ok(tirx_module *m, const char *fn, Tensor **ts, int n, double scale)
{
    tirx_arg args[8];
    for (int i = 0; i < n; i++) {
        ts[i]->t.shape = ts[i]->shape;
        args[i] = tirx_arg_tensor((const struct DLTensor *)&ts[i]->t);
    }
    if (scale)
        args[n++] = tirx_arg_float(scale);
    tirx_error err = {{0}};
    tirx_status st = tirx_simulate(m, fn, args, (size_t)n, &err);
    if (st != TIRX_OK)
        fail_msg("%s: %s", fn, err.message);
}

static void test_tma_copy(void **state)
{
    (void)state;
    tirx_module *m = compile_example("tma_copy.tirx", NULL, 0);
    unsigned seed = 5;
    size_t n = 1024 * 512;
    uint16_t *a = random_halves(n, &seed), *b = poisoned(n), *c = poisoned(n);
    Tensor A = tensor(a, 2, 1024, 512, kDLFloat, 16), B = tensor(b, 2, 1024, 512, kDLFloat, 16);
    Tensor C = tensor(c, 2, 1024, 512, kDLFloat, 16);
    Tensor *ts[] = {&A, &B, &C};
    run_ok(m, "tma_copy", ts, 3, 0);
    assert_memory_equal(b, a, n * 2);
    assert_memory_equal(c, a, n * 2);
    free(a), free(b), free(c);
    tirx_module_free(m);
}

static void test_tma_pipeline_copy(void **state)
{
    (void)state;
    tirx_define defs[] = {{"M", "512"}, {"NUM_CTAS", "4"}};
    tirx_module *m = compile_example("tma_pipeline_copy.tirx", defs, 2);
    unsigned seed = 6;
    size_t n = 512 * 256;
    uint16_t *a = random_halves(n, &seed), *b = poisoned(n);
    Tensor A = tensor(a, 2, 512, 256, kDLFloat, 16), B = tensor(b, 2, 512, 256, kDLFloat, 16);
    Tensor *ts[] = {&A, &B};
    run_ok(m, "tma_pipeline_copy", ts, 2, 1.5);
    for (size_t i = 0; i < n; i++) {
        double want = sim_round(IR_FLOAT16, (float)sim_from_bits(IR_FLOAT16, a[i]).f * 1.5f);
        assert_int_equal(b[i], sim_to_bits(IR_FLOAT16, (SimVal){.f = want}));
    }
    free(a), free(b);
    tirx_module_free(m);
}

static void test_op_tma(void **state)
{
    (void)state;
    tirx_module *m = compile_example("tests/gpu/op_tma.tirx", NULL, 0);
    unsigned seed = 7;
    /* loads into the MMA layouts, read back through them */
    uint16_t *a = random_halves(256 * 128, &seed), *b = poisoned(256 * 128), *nar[4];
    Tensor A = tensor(a, 2, 256, 128, kDLBfloat, 16), B = tensor(b, 2, 256, 128, kDLBfloat, 16);
    Tensor N[4];
    Tensor *ts[6] = {&A, &B};
    for (int i = 0; i < 4; i++) {
        nar[i] = poisoned(256 * 64);
        N[i] = tensor(nar[i], 2, 256, 64, kDLBfloat, 16);
        ts[2 + i] = &N[i];
    }
    run_ok(m, "tma_layouts", ts, 6, 0);
    assert_memory_equal(b, a, 256 * 128 * 2);
    for (int i = 0; i < 4; i++) {
        for (int r = 0; r < 256; r++)
            assert_memory_equal(nar[i] + r * 64, a + r * 128, 128);
        free(nar[i]);
    }
    free(a), free(b);
    /* a multicast load in clusters of two: each CTA holds the cluster's tile */
    a = random_halves(256 * 64, &seed), b = poisoned(512 * 64);
    A = tensor(a, 2, 256, 64, kDLFloat, 16), B = tensor(b, 2, 512, 64, kDLFloat, 16);
    run_ok(m, "tma_multicast", ts, 2, 0);
    for (int cta = 0; cta < 8; cta++)
        assert_memory_equal(b + cta * 64 * 64, a + cta / 2 * 64 * 64, 64 * 64 * 2);
    free(a), free(b);
    /* a reduce-add store */
    float *x = random_floats(256 * 64, &seed), *c = random_floats(256 * 64, &seed);
    float *want = malloc(256 * 64 * sizeof *want);
    for (int i = 0; i < 256 * 64; i++)
        want[i] = c[i] + x[i];
    A = tensor(x, 2, 256, 64, kDLFloat, 32), B = tensor(c, 2, 256, 64, kDLFloat, 32);
    run_ok(m, "tma_reduce", ts, 2, 0);
    assert_memory_equal(c, want, 256 * 64 * 4);
    free(x), free(c), free(want);
    /* ragged edges: zeros loaded past them, nothing stored there */
    a = random_halves(1000 * 1000, &seed), b = poisoned(1000 * 1000);
    uint16_t *pad = poisoned(1024 * 1024);
    Tensor P = tensor(pad, 2, 1024, 1024, kDLFloat, 16);
    A = tensor(a, 2, 1000, 1000, kDLFloat, 16), B = tensor(b, 2, 1000, 1000, kDLFloat, 16);
    ts[2] = &P;
    run_ok(m, "tma_ragged", ts, 3, 0);
    assert_memory_equal(b, a, 1000 * 1000 * 2);
    for (int r = 0; r < 1024; r++)
        for (int col = 0; col < 1024; col++)
            assert_int_equal(pad[r * 1024 + col], r < 1000 && col < 1000 ? a[r * 1000 + col] : 0);
    free(a), free(b), free(pad);
    tirx_module_free(m);
}

static void test_dsmem_and_ldstmatrix(void **state)
{
    (void)state;
    tirx_module *m = compile_example("tests/gpu/op_dsmem.tirx", NULL, 0);
    unsigned seed = 8;
    uint16_t *a = random_halves(256 * 64, &seed), *b = poisoned(256 * 64), *c = poisoned(256 * 64);
    Tensor A = tensor(a, 2, 256, 64, kDLFloat, 16), B = tensor(b, 2, 256, 64, kDLFloat, 16);
    Tensor C = tensor(c, 2, 256, 64, kDLFloat, 16);
    Tensor *ts[] = {&A, &B, &C, NULL};
    run_ok(m, "swap", ts, 3, 0);
    for (int cta = 0; cta < 4; cta++) {
        assert_memory_equal(b + cta * 4096, a + (cta ^ 1) * 4096, 8192);
        assert_memory_equal(c + cta * 4096, a + (cta ^ 1) * 4096, 8192);
    }
    free(a), free(b), free(c);
    tirx_module_free(m);

    m = compile_example("tests/gpu/op_ldstmatrix.tirx", NULL, 0);
    float *x = random_floats(128 * 128, &seed);
    b = poisoned(128 * 128), c = poisoned(128 * 128);
    A = tensor(x, 2, 128, 128, kDLFloat, 32), B = tensor(b, 2, 128, 128, kDLBfloat, 16);
    C = tensor(c, 2, 128, 128, kDLBfloat, 16);
    run_ok(m, "epilogue", ts, 3, 0);
    for (int i = 0; i < 128 * 128; i++) {
        assert_int_equal(b[i], sim_to_bits(IR_BFLOAT16, (SimVal){.f = x[i]}));
        assert_int_equal(c[i], b[i]);
    }
    free(x), free(b), free(c);
    uint16_t *bi = random_halves(128, &seed), *bo = poisoned(128);
    uint16_t *ti = random_halves(64 * 64, &seed), *to = poisoned(64 * 64);
    Tensor BI = tensor(bi, 2, 16, 8, kDLFloat, 16), BO = tensor(bo, 2, 16, 8, kDLFloat, 16);
    Tensor TI = tensor(ti, 2, 64, 64, kDLFloat, 16), TO = tensor(to, 2, 64, 64, kDLFloat, 16);
    Tensor *ts2[] = {&BI, &BO, &TI, &TO};
    run_ok(m, "load_trans", ts2, 4, 0);
    assert_memory_equal(bo, bi, 256);
    assert_memory_equal(to, ti, 64 * 64 * 2);
    free(bi), free(bo), free(ti), free(to);
    tirx_module_free(m);
}

/* tma_copy.tirx with its expect-tx count changed to `count`. */
static void expect_tx_error(const char *count, const char *frag)
{
    char path[512];
    snprintf(path, sizeof path, TIRX_SOURCE_DIR "/examples/tma_copy.tirx");
    size_t len;
    char *text = read_file(path, &len);
    const char *key = "T.uint32(TILE_BYTES)";
    char *at = strstr(text, key);
    assert_non_null(at);
    size_t nlen = len - strlen(key) + strlen(count) + 1;
    char *mod = malloc(nlen);
    snprintf(mod, nlen, "%.*s%s%s", (int)(at - text), text, count, at + strlen(key));
    tirx_module *m = compile_text(mod, strlen(mod), "tma_copy.tirx", NULL, 0);
    unsigned seed = 9;
    size_t n = 1024 * 512;
    uint16_t *a = random_halves(n, &seed), *b = poisoned(n), *c = poisoned(n);
    Tensor A = tensor(a, 2, 1024, 512, kDLFloat, 16), B = tensor(b, 2, 1024, 512, kDLFloat, 16);
    Tensor C = tensor(c, 2, 1024, 512, kDLFloat, 16);
    Tensor *ts[] = {&A, &B, &C};
    tirx_error err;
    assert_int_equal(simulate(m, "tma_copy", ts, 3, NULL, 0, &err), TIRX_ERR_USAGE);
    if (!strstr(err.message, frag) || !strstr(err.message, "tma_copy.tirx:"))
        fail_msg("'%s' is not in: %s", frag, err.message);
    free(a), free(b), free(c), free(mod), free(text);
    tirx_module_free(m);
}

static void test_wrong_expect_tx(void **state)
{
    (void)state;
    /* too few bytes expected: the TMA's bytes overshoot the phase */
    expect_tx_error("T.uint32(TILE_BYTES // 2)", "received 4096 transaction bytes more than "
                    "expected (a wrong expect-tx count)");
    /* too many: the phase never completes */
    expect_tx_error("T.uint32(TILE_BYTES + 64)", "deadlock: the thread waits on phase 0 of an "
                    "mbarrier (parity 0) that still expects 0 of 1 arrivals and 64 transaction "
                    "bytes");
}

/* ---------------------------------------------------------------- wgmma */

/* kernels/gemm_sm90.tirx (TMA pipeline, warp specialization, wgmma from
 * 128B-swizzled shared memory, stmatrix and TMA epilogue, split-K through
 * its workspace) and gemm_fp8_sm90.tirx (e4m3 inputs, per-tensor scales,
 * promotion) against float64 of the rounded inputs, square, ragged and split;
 * the register epilogue (clipped at C's edges) with a bfloat16 C, and with
 * the float32 C that tf32 uses (OUT_DTYPE). dims: M, N, K, NUM_SMS and
 * TMA_STORE (NULL: the kernel's own). */
static void gemm_sm90(const char *file, IrDType in, IrDType out, const char *const *dims, int M,
                      int N, int K)
{
    enum { WORKSPACE = 1 << 18 }; /* int32 elements */
    bool f32 = out.code == IR_DT_FLOAT;
    tirx_define defs[7] = {{"M", dims[0]}, {"N", dims[1]}, {"K", dims[2]}, {"NUM_SMS", dims[3]},
                           {"WORKSPACE_BYTES", "1048576"}};
    size_t nd = 5;
    if (f32)
        defs[nd++] = (tirx_define){"OUT_DTYPE", "float32"};
    if (dims[4])
        defs[nd++] = (tirx_define){"TMA_STORE", dims[4]};
    tirx_module *m = compile_example(file, defs, nd);
    unsigned seed = 10;
    int bytes = in.bits / 8;
    float *af = random_floats((size_t)(M * K), &seed), *bf = random_floats((size_t)(N * K), &seed);
    uint8_t *a = (uint8_t *)poisoned((size_t)(M * K)), *b = (uint8_t *)poisoned((size_t)(N * K));
    uint16_t *c = poisoned((size_t)(M * N) * (f32 ? 2 : 1));
    for (int i = 0; i < M * K; i++) {
        uint64_t bits = sim_to_bits(in, (SimVal){.f = af[i]});
        memcpy(a + i * bytes, &bits, (size_t)bytes);
        af[i] = (float)sim_from_bits(in, bits).f;
    }
    for (int i = 0; i < N * K; i++) {
        uint64_t bits = sim_to_bits(in, (SimVal){.f = bf[i]});
        memcpy(b + i * bytes, &bits, (size_t)bytes);
        bf[i] = (float)sim_from_bits(in, bits).f;
    }
    uint8_t code = in.bits == 8 ? kDLFloat8_e4m3fn : kDLBfloat;
    Tensor A = tensor(a, 2, M, K, code, in.bits), B = tensor(b, 2, N, K, code, in.bits);
    Tensor C = tensor(c, 2, M, N, f32 ? kDLFloat : kDLBfloat, f32 ? 32 : 16);
    int32_t *ws = calloc(WORKSPACE, sizeof *ws);
    Tensor W = tensor(ws, 1, WORKSPACE, 0, kDLInt, 32);
    Tensor *ts[] = {&A, &B, &C, &W};
    double scale = in.bits == 8 ? 0.5 * 2.5 : 1;
    tirx_arg args[6];
    for (int i = 0; i < 4; i++) {
        ts[i]->t.shape = ts[i]->shape;
        args[i] = tirx_arg_tensor((const struct DLTensor *)&ts[i]->t);
    }
    if (in.bits == 8) /* fp8: the scales after the workspace */
        args[4] = tirx_arg_float(0.5), args[5] = tirx_arg_float(2.5);
    tirx_error err = {{0}};
    if (tirx_simulate(m, "gemm", args, in.bits == 8 ? 6 : 4, &err) != TIRX_OK)
        fail_msg("%s: %s", file, err.message);
    for (int i = 0; i < 1024; i++) /* the split-K counters are back at zero */
        assert_int_equal(ws[i], 0);
    double *ref = calloc((size_t)(M * N), sizeof *ref);
    float *got = malloc(sizeof *got * (size_t)(M * N));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            for (int k = 0; k < K; k++)
                ref[i * N + j] += (double)af[i * K + k] * bf[j * K + k] * scale;
            got[i * N + j] = f32 ? ((float *)c)[i * N + j]
                                 : (float)sim_from_bits(IR_BFLOAT16, c[i * N + j]).f;
        }
    double e = rel_err(got, ref, (size_t)(M * N));
    if (!(e < 4e-3))
        fail_msg("%s %dx%dx%d: relative error %g", file, M, N, K, e);
    free(af), free(bf), free(a), free(b), free(c), free(ws), free(ref), free(got);
    tirx_module_free(m);
}

static void test_gemm_sm90(void **state)
{
    (void)state;
    IrDType e4m3 = {IR_DT_F8E4M3FN, 8, 1};
    const char *square[] = {"256", "256", "256", "4", NULL};
    const char *ragged[] = {"200", "136", "192", "4", NULL};
    const char *split[] = {"128", "128", "1024", "8", NULL}; /* SPLIT_K 2 */
    const char *ragged_regs[] = {"200", "136", "192", "4", "False"};
    const char *sm90 = "kernels/gemm_sm90.tirx";
    gemm_sm90(sm90, IR_BFLOAT16, IR_BFLOAT16, square, 256, 256, 256);
    gemm_sm90(sm90, IR_BFLOAT16, IR_BFLOAT16, ragged, 200, 136, 192);
    gemm_sm90(sm90, IR_BFLOAT16, IR_BFLOAT16, split, 128, 128, 1024);
    gemm_sm90(sm90, IR_BFLOAT16, IR_BFLOAT16, ragged_regs, 200, 136, 192);
    gemm_sm90(sm90, IR_BFLOAT16, IR_FLOAT32, ragged, 200, 136, 192);
    gemm_sm90(sm90, IR_BFLOAT16, IR_FLOAT32, split, 128, 128, 1024);
    gemm_sm90("kernels/gemm_fp8_sm90.tirx", e4m3, IR_BFLOAT16, square, 256, 256, 256);
    const char *split8[] = {"128", "128", "2048", "8", NULL}; /* SPLIT_K 2 */
    gemm_sm90("kernels/gemm_fp8_sm90.tirx", e4m3, IR_BFLOAT16, split8, 128, 128, 2048);
}

/* ---------------------------------------------------------------- values */

static void test_rounding(void **state)
{
    (void)state;
    IrDType e4m3 = {IR_DT_F8E4M3FN, 8, 1}, e5m2 = {IR_DT_F8E5M2, 8, 1};
    /* float16: 1 + 2^-11 is a tie between 1 and 1 + 2^-10: even is 1 */
    assert_true(sim_round(IR_FLOAT16, 1 + ldexp(1, -11)) == 1);
    assert_true(sim_round(IR_FLOAT16, 1 + 3 * ldexp(1, -11)) == 1 + ldexp(1, -9));
    assert_true(isinf(sim_round(IR_FLOAT16, 65520)));
    assert_true(sim_round(IR_FLOAT16, 65519) == 65504);
    assert_int_equal(sim_to_bits(IR_FLOAT16, (SimVal){.f = 1}), 0x3c00);
    assert_int_equal(sim_to_bits(IR_FLOAT16, (SimVal){.f = ldexp(1, -24)}), 0x0001);
    assert_int_equal(sim_to_bits(IR_BFLOAT16, (SimVal){.f = 1.00390625}), 0x3f80); /* tie to even */
    assert_int_equal(sim_to_bits(IR_BFLOAT16, (SimVal){.f = -2}), 0xc000);
    /* e4m3fn saturates at 448, NaN is 0x7f; e5m2 saturates at 57344 */
    assert_int_equal(sim_to_bits(e4m3, (SimVal){.f = 1000}), 0x7e);
    assert_int_equal(sim_to_bits(e4m3, (SimVal){.f = NAN}), 0x7f);
    assert_true(sim_from_bits(e4m3, 0x01).f == ldexp(1, -9));
    assert_int_equal(sim_to_bits(e5m2, (SimVal){.f = 1e6}), 0x7b);
    assert_true(sim_from_bits(e5m2, 0x7c).f == INFINITY);
    assert_int_equal(sim_convert(IR_FLOAT32, IR_INT32, (SimVal){.f = 3e10}).i, INT32_MAX);
    assert_int_equal(sim_convert(IR_FLOAT32, IR_UINT8, (SimVal){.f = -3}).i, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector_add),
        cmocka_unit_test(test_row_softmax),
        cmocka_unit_test(test_tiled_gemm),
        cmocka_unit_test(test_missing_sync),
        cmocka_unit_test(test_off_by_one),
        cmocka_unit_test(test_uninitialised_shared),
        cmocka_unit_test(test_deadlock),
        cmocka_unit_test(test_warp_collective_deadlock),
        cmocka_unit_test(test_not_modelled),
        cmocka_unit_test(test_rounding),
        cmocka_unit_test(test_tma_copy),
        cmocka_unit_test(test_tma_pipeline_copy),
        cmocka_unit_test(test_op_tma),
        cmocka_unit_test(test_dsmem_and_ldstmatrix),
        cmocka_unit_test(test_wrong_expect_tx),
        cmocka_unit_test(test_gemm_sm90),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
