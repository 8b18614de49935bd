/* The simulator (tirx_simulate) without a GPU or a CUDA toolkit:
 * examples/vector_add.tirx on a ragged last CTA, exactly; planted bugs (a
 * missing barrier, an off-by-one shared index, uninitialised shared memory,
 * a warp collective or barrier some threads never reach, a wrong mbarrier
 * expect-tx count) are errors naming the .tirx line, the thread and the CTA;
 * an operation the simulator does not model is an error saying so; element
 * loads and stores of packed and _align16 sub-byte buffers; a tile::gather4 load, loads
 * through src_selector's runtime-selected tensor map, and the
 * fp8-pair conversion to bfloat16 (sm_100a); the lanes each tcgen05.cp shape
 * and multicast writes, tcgen05.cp from swizzled shared memory and its fp6 / fp4
 * decompression; the dtypes' rounding and
 * NaN bits, and two floats rounded to a bfloat16 pair; the special registers
 * of a launch's shape, the lane masks, smem_addr_from_uint64 and the
 * bfloat16 hmin2 / hmax2 with NaN and signed-zero operands. The kernels of
 * the GPU tests run in the simulator as the sim.* tests (tests/gpu, OP_SIM).
 * The modelled clock (clock64, %globaltimer). Races between the CTAs of a cluster: a DSMEM store read by the other CTA
 * without the cluster barrier, a multicast TMA into a peer's stage its
 * consumers have not released. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
    /* the kernels' imports (gemm_split_k.tirx) */
    static const char *const dirs[] = {TIRX_SOURCE_DIR "/kernels"};
    tirx_options o = {.arch = "sm_90a", .no_binary = 1, .import_dirs = dirs, .n_import_dirs = 1};
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
    /* a GPU tensor is refused, named as every argument error names it */
    B.t.device = (DLDevice){kDLCUDA, 0};
    assert_int_equal(simulate(m, "vector_add", ts, 3, ints, 1, &err), TIRX_ERR_USAGE);
    assert_non_null(strstr(err.message, "vector_add: argument B: the simulator needs a host"));
    free(a), free(b), free(c);
    tirx_module_free(m);
}

/* A strided tensor's memory reaches past the product of its shape: a (4, 4)
 * view with row stride 8 spans 28 elements, and the kernel may write every
 * element of the view. */
static void test_strided_tensor(void **state)
{
    (void)state;
    static const char text[] =
        "@T.prim_func\n"
        "def rows(A: T.Buffer((4, 4), \"float32\", strides=(\"s\", 1))):\n"
        "    T.device_entry()\n"
        "    tx = T.thread_id([16])\n"
        "    A[tx // 4, tx % 4] = T.float32(tx)\n";
    tirx_module *m = compile_text(text, sizeof text - 1, "rows.tirx", NULL, 0);
    static _Alignas(64) float mem[32];
    for (int i = 0; i < 32; i++)
        mem[i] = -1;
    Tensor A = tensor(mem, 2, 4, 4, kDLFloat, 32);
    int64_t strides[2] = {8, 1};
    A.t.strides = strides;
    Tensor *ts[] = {&A};
    tirx_error err;
    if (simulate(m, "rows", ts, 1, NULL, 0, &err) != TIRX_OK)
        fail_msg("%s", err.message);
    for (int i = 0; i < 32; i++)
        assert_true(mem[i] == (i % 8 < 4 && i < 28 ? (float)(i / 8 * 4 + i % 8) : -1));
    tirx_module_free(m);
}

/* A module from the compile cache has its kernels' signatures, not their
 * bodies: simulating it is an error that says so, never a silent no-op. */
static void test_cached_module_refused(void **state)
{
    (void)state;
    char dir[] = "/tmp/tirx-sim-cache-XXXXXX";
    assert_non_null(mkdtemp(dir));
    size_t len;
    char *text = read_file(TIRX_SOURCE_DIR "/examples/vector_add.tirx", &len);
    tirx_options o = {.arch = "sm_90a", .cache_dir = dir};
    tirx_module *first = NULL, *second = NULL;
    if (tirx_compile(text, len, "vector_add.tirx", NULL, 0, &o, &first) != TIRX_OK) {
        tirx_module_free(first);
        free(text);
        rmdir(dir);
        skip(); /* no NVRTC here: nothing is cached */
    }
    assert_int_equal(tirx_compile(text, len, "vector_add.tirx", NULL, 0, &o, &second), TIRX_OK);
    assert_true(tirx_module_cached(second));
    unsigned seed = 7;
    float *c = random_floats(16, &seed);
    Tensor A = tensor(c, 1, 16, 0, kDLFloat, 32);
    Tensor *ts[] = {&A, &A, &A};
    long long ints[] = {16};
    tirx_error err;
    assert_int_equal(simulate(first, "vector_add", ts, 3, ints, 1, &err), TIRX_OK);
    assert_int_equal(simulate(second, "vector_add", ts, 3, ints, 1, &err), TIRX_ERR_USAGE);
    assert_non_null(strstr(err.message, "compile cache"));
    tirx_module_free(first);
    tirx_module_free(second);
    free(text), free(c);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
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

/* Simulates f(X, Y) of src (X and Y 64 floats: X random, Y zeros), which
 * must run; *x and *y are the tensors after it (free both). */
static void expect_run(const char *src, float **x, float **y)
{
    tirx_module *m = compile_text(src, strlen(src), "ok.tirx", NULL, 0);
    unsigned seed = 4;
    *x = random_floats(64, &seed), *y = random_floats(64, &seed);
    memset(*y, 0, 64 * sizeof **y);
    Tensor X = tensor(*x, 1, 64, 0, kDLFloat, 32), Y = tensor(*y, 1, 64, 0, kDLFloat, 32);
    Tensor *ts[] = {&X, &Y};
    tirx_error err;
    if (simulate(m, "f", ts, 2, NULL, 0, &err) != TIRX_OK)
        fail_msg("%s", err.message);
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

/* Two CTAs storing to the same global bytes (their tiles overlap): an error
 * at the second store naming the first CTA; the same sums by atomics run. */
static void test_global_overlap(void **state)
{
    (void)state;
    const char *src = "@T.prim_func\n"
                      "def f(X: T.Buffer((64,), \"float32\"), Y: T.Buffer((64,), \"float32\")):\n"
                      "    T.device_entry()\n"
                      "    bx = T.cta_id([2])\n"
                      "    tx = T.thread_id([32])\n"
                      "    Y[bx * 16 + tx] = X[tx]\n";
    const char *frags[] = {"bug.tirx:6:5: error: byte 64 of 'Y' was stored to by CTA (0,0,0) too",
                           "two CTAs of a launch write the same global memory",
                           "(thread (0,0,0) of CTA (1,0,0))"};
    expect_error(src, frags, 3);
    const char *ok = "@T.prim_func\n"
                     "def f(X: T.Buffer((64,), \"float32\"), Y: T.Buffer((64,), \"float32\")):\n"
                     "    T.device_entry()\n"
                     "    bx = T.cta_id([2])\n"
                     "    tx = T.thread_id([32])\n"
                     "    old: T.float32 = T.cuda.atomic_add(T.address_of(Y[bx * 16 + tx]), X[tx])\n";
    float *x, *y;
    expect_run(ok, &x, &y);
    assert_true(y[16] == x[16] + x[0] && y[0] == x[0] && y[47] == x[31]);
    free(x), free(y);
}

/* CTA 1 reads what CTA 0 stored in the same launch: an error unless CTA 0
 * fenced (gpu scope) after its stores and CTA 1 did an atomic before its
 * reads (split-K's counter); with both, it runs. */
static void test_global_cross_cta_read(void **state)
{
    (void)state;
#define CROSS_HEAD                                                                  \
    "@T.prim_func\n"                                                                \
    "def f(X: T.Buffer((64,), \"float32\"), Y: T.Buffer((64,), \"float32\")):\n"      \
    "    T.device_entry()\n"                                                        \
    "    bx = T.cta_id([2])\n"                                                      \
    "    tx = T.thread_id([32])\n"                                                  \
    "    if bx == 0:\n"                                                             \
    "        Y[tx] = X[tx]\n"
#define CROSS_COUNT(name)                                                           \
    "        if tx == 0:\n"                                                         \
    "            " name ": T.float32 = T.cuda.atomic_add(T.address_of(X[63]), T.float32(1))\n"
    const char *frags[] = {":22: error: byte 0 of 'Y', which CTA (0,0,0) stored to in this launch, "
                           "is read by another CTA with nothing ordering the store",
                           "(thread (0,0,0) of CTA (1,0,0))"};
    /* at the read of Y[tx]: the reader's atomic without the writer's fence, the
     * writer's fence without the reader's atomic */
    const char *no_fence = CROSS_HEAD CROSS_COUNT("a") "    else:\n" CROSS_COUNT("b")
                           "        T.cuda.cta_sync()\n        Y[32 + tx] = Y[tx]\n";
    const char *no_atomic = CROSS_HEAD "        T.cuda.thread_fence()\n" CROSS_COUNT("a")
                            "    else:\n        T.cuda.cta_sync()\n        T.cuda.cta_sync()\n"
                            "        Y[32 + tx] = Y[tx]\n";
    expect_error(no_fence, frags, 2);
    expect_error(no_atomic, frags, 2);
    const char *ordered = CROSS_HEAD "        T.cuda.thread_fence()\n" CROSS_COUNT("a")
                          "    else:\n" CROSS_COUNT("b") "        T.cuda.cta_sync()\n"
                          "        Y[32 + tx] = Y[tx]\n";
    float *x, *y;
    expect_run(ordered, &x, &y);
    assert_true(y[33] == x[1] && y[32] == y[0]);
    free(x), free(y);
#undef CROSS_HEAD
#undef CROSS_COUNT
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

/* A loop no thread ends (the deadlock check cannot see it: the threads run)
 * stops at TIRX_KERNEL_TIMEOUT, at the loop's statement; a timeout that is
 * not a number of seconds is refused. */
static void test_kernel_timeout(void **state)
{
    (void)state;
    const char *src = KERNEL_HEAD
        "    while X[tx] < T.float32(2):\n"
        "        Y[tx] = Y[tx] + T.float32(1)\n";
    setenv("TIRX_KERNEL_TIMEOUT", "0.2", 1);
    const char *frags[] = {"bug.tirx:8:", "f_kernel did not finish within 0.2 s (TIRX_KERNEL_TIMEOUT)"};
    expect_error(src, frags, 2);
    setenv("TIRX_KERNEL_TIMEOUT", "soon", 1);
    const char *refused[] = {"TIRX_KERNEL_TIMEOUT is a number of seconds", "not 'soon'"};
    expect_error(src, refused, 2);
    unsetenv("TIRX_KERNEL_TIMEOUT");
}

/* bar.arrive counts toward a named barrier without waiting: warp 0 produces
 * into shared memory and arrives on barrier 1, warp 1 waits there and
 * consumes, then frees the buffer through barrier 2, twice (two generations
 * of each barrier); without the arrive, the consumer deadlocks. */
/* A producer warp arrives, a consumer warp waits, twice on two barriers: as
 * raw PTX and through the T.cuda.named_barrier_* helpers. */
static void test_named_barrier_arrive(void **state)
{
    (void)state;
    const char *srcs[] = {
        KERNEL_HEAD
        "    for k in range(2):\n"
        "        if tx < 32:\n"
        "            S[tx] = X[k * 32 + tx]\n"
        "            T.ptx.bar.arrive(1, 64)\n"
        "            T.ptx.bar.sync(2, 64)\n"
        "        else:\n"
        "            T.ptx.bar.sync(1, 64)\n"
        "            Y[k * 32 + tx - 32] = S[63 - tx]\n"
        "            T.ptx.bar.arrive(2, 64)\n",
        KERNEL_HEAD
        "    for k in range(2):\n"
        "        if tx < 32:\n"
        "            S[tx] = X[k * 32 + tx]\n"
        "            T.cuda.named_barrier_arrive(1, 64)\n"
        "            T.cuda.named_barrier_sync(2, num_threads=64)\n"
        "        else:\n"
        "            T.cuda.named_barrier_sync(bar_no=1, num_threads=64)\n"
        "            Y[k * 32 + tx - 32] = S[63 - tx]\n"
        "            T.cuda.named_barrier_arrive(tx // 32 + 1, 64)\n",
    };
    for (int s = 0; s < 2; s++) {
        tirx_module *m = compile_text(srcs[s], strlen(srcs[s]), "arrive.tirx", NULL, 0);
        unsigned seed = 5;
        float *x = random_floats(64, &seed), *y = random_floats(64, &seed);
        Tensor X = tensor(x, 1, 64, 0, kDLFloat, 32), Y = tensor(y, 1, 64, 0, kDLFloat, 32);
        Tensor *ts[] = {&X, &Y};
        tirx_error err;
        assert_int_equal(simulate(m, "f", ts, 2, NULL, 0, &err), TIRX_OK);
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < 32; i++)
                assert_true(y[k * 32 + i] == x[k * 32 + 31 - i]);
        free(x), free(y);
        tirx_module_free(m);
    }
    const char *bug = KERNEL_HEAD
        "    if tx < 32:\n"
        "        S[tx] = X[tx]\n"
        "    else:\n"
        "        T.ptx.bar.sync(1, 64)\n"
        "        Y[tx] = S[tx - 32]\n";
    const char *frags[] = {"bug.tirx:10:", "deadlock: barrier 1 waits for 64 threads, 32 arrived"};
    expect_error(bug, frags, 2);
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
        "    T.ptx.fence.proxy.tensormap__generic.release.gpu()\n"
        "    Y[tx] = S[tx]\n";
    const char *frags[] = {"bug.tirx:8:", "not modelled: ptx.fence.proxy.tensormap::generic"};
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

/* ---------------------------------------------------------------- asynchrony and ordering */

/* The 1-based line of the first line of `text` that contains `needle`. */
static int line_of(const char *text, const char *needle)
{
    const char *at = strstr(text, needle);
    assert_non_null(at);
    int line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

/* The file (under the source tree) with the first `old` replaced by `new_`. */
/* text with its first `old` replaced by new_ (text is freed). */
static char *replaced(char *text, const char *old, const char *new_)
{
    char *at = strstr(text, old);
    assert_non_null(at);
    size_t n = strlen(text) - strlen(old) + strlen(new_) + 1;
    char *mod = malloc(n);
    snprintf(mod, n, "%.*s%s%s", (int)(at - text), text, new_, at + strlen(old));
    free(text);
    return mod;
}

static char *substituted(const char *file, const char *old, const char *new_)
{
    char path[512];
    snprintf(path, sizeof path, TIRX_SOURCE_DIR "/%s", file);
    size_t len;
    return replaced(read_file(path, &len), old, new_);
}

/* Simulates `fn` of `text` (named `name`) on ts and expects an error at the
 * line holding `line_text` naming the operation issued at the line holding
 * `issue_text`, whose message contains each fragment. */
static void expect_planted(const char *text, const char *name, const char *fn, Tensor **ts, int n,
                           const char *line_text, const char *issue_text,
                           const char *const *frags, int nfrags)
{
    tirx_module *m = compile_text(text, strlen(text), name, NULL, 0);
    tirx_error err;
    assert_int_equal(simulate(m, fn, ts, n, NULL, 0, &err), TIRX_ERR_USAGE);
    char where[128], issued[64];
    snprintf(where, sizeof where, "%s:%d:", name, line_of(text, line_text));
    snprintf(issued, sizeof issued, " issued at line %d ", line_of(text, issue_text));
    if (!strstr(err.message, where) || !strstr(err.message, issued))
        fail_msg("'%s' or '%s' is not in: %s", where, issued, err.message);
    for (int i = 0; i < nfrags; i++)
        if (!strstr(err.message, frags[i]))
            fail_msg("'%s' is not in: %s", frags[i], err.message);
    tirx_module_free(m);
}

/* examples/tma_copy.tirx with one substitution: expects an error at the line
 * holding line_text. */
static void tma_copy_planted(const char *old, const char *new_, const char *line_text,
                             const char *issue_text, const char *const *frags, int nfrags)
{
    char *text = substituted("examples/tma_copy.tirx", old, new_);
    unsigned seed = 9;
    size_t n = 1024 * 512;
    uint16_t *a = random_halves(n, &seed), *b = poisoned(n), *c = poisoned(n);
    Tensor A = tensor(a, 2, 1024, 512, kDLFloat, 16), B = tensor(b, 2, 1024, 512, kDLFloat, 16);
    Tensor C = tensor(c, 2, 1024, 512, kDLFloat, 16);
    Tensor *ts[] = {&A, &B, &C};
    expect_planted(text, "tma_copy.tirx", "tma_copy", ts, 3, line_text, issue_text, frags, nfrags);
    free(a), free(b), free(c), free(text);
}

/* A consumer reading a TMA stage without waiting on its mbarrier: the bytes
 * have not arrived (they land when a thread polls the mbarrier). */
static void test_tma_read_before_wait(void **state)
{
    (void)state;
    const char *frags[] = {"data not yet arrived", "the asynchronous load (TMA or bulk copy) "
                           "issued at line", "by thread (0,0,0)", "a wait on its mbarrier is "
                           "missing", "(thread (0,0,0) of CTA (0,0,0))"};
    tma_copy_planted("    T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)\n", "",
                     "    Tx.cta.copy(B[", "Tx.copy_async(A_s", frags, 5);
}

/* The source tile of a TMA store rewritten before tma_store_wait. */
static void test_tma_store_source_rewritten(void **state)
{
    (void)state;
    const char *frags[] = {"write of shared memory byte 0 that the asynchronous store",
                           "(TMA or bulk copy) issued at line", "still reads",
                           "a cp.async.bulk.wait_group.read is missing", "thread (0,0,0)"};
    tma_copy_planted("        T.cuda.tma_store_wait(0)\n",
                     "        A_s[0, 0] = T.float16(0)\n        T.cuda.tma_store_wait(0)\n",
                     "        A_s[0, 0] = T.float16(0)", "Tx.copy_async(C[", frags, 5);
}

/* cp.async committed but never waited for: the barrier does not make its
 * data arrive. */
static void test_cp_async_without_wait(void **state)
{
    (void)state;
    char *text = substituted("tests/gpu/op_copy.tirx", "    T.ptx.cp.async_.wait_group(0)\n", "");
    unsigned seed = 3;
    uint16_t *a = random_halves(1000 * 1000, &seed), *b = poisoned(1000 * 1000);
    Tensor A = tensor(a, 2, 1000, 1000, kDLFloat, 16), B = tensor(b, 2, 1000, 1000, kDLFloat, 16);
    Tensor *ts[] = {&A, &B};
    const char *frags[] = {"data not yet arrived", "the cp.async issued at line",
                           "a cp.async.wait_group before the access", "of CTA (0,0,0)"};
    expect_planted(text, "op_copy.tirx", "tile_copy", ts, 2, "    Tx.cta.copy(B[",
                   "Tx.cta.copy_async(S", frags, 4);
    free(a), free(b), free(text);
}

/* The arguments of tests/gpu/wgmma_tile.tirx's wgmma_n8: A 64 x 16 and B
 * 16 x 8 (fp16, random), D 64 x 8 (float32). */
typedef struct WgmmaArgs {
    uint16_t *a, *b;
    float *d;
    Tensor A, B, D;
    Tensor *ts[3];
} WgmmaArgs;

static void wgmma_args(WgmmaArgs *w)
{
    unsigned seed = 6;
    w->a = random_halves(64 * 16, &seed), w->b = random_halves(16 * 8, &seed);
    w->d = random_floats(64 * 8, &seed);
    w->A = tensor(w->a, 2, 64, 16, kDLFloat, 16), w->B = tensor(w->b, 2, 16, 8, kDLFloat, 16);
    w->D = tensor(w->d, 2, 64, 8, kDLFloat, 32);
    w->ts[0] = &w->A, w->ts[1] = &w->B, w->ts[2] = &w->D;
}

static void wgmma_args_free(WgmmaArgs *w) { free(w->a), free(w->b), free(w->d); }

/* tests/gpu/wgmma_tile.tirx's wgmma_n8 with its wait_group replaced by `by`. */
static void wgmma_planted(const char *by, const char *line_text, const char *const *frags,
                          int nfrags)
{
    char *text = substituted("tests/gpu/wgmma_tile.tirx",
                             "    T.ptx.wgmma.wait_group.sync.aligned(0)\n", by);
    WgmmaArgs w;
    wgmma_args(&w);
    expect_planted(text, "wgmma_tile.tirx", "wgmma_n8", w.ts, 3, line_text,
                   "T.ptx[\"wgmma.mma_async", frags, nfrags);
    wgmma_args_free(&w);
    free(text);
}

/* A stage released (here: rewritten after a barrier) before the
 * wgmma.wait_group of the MMA reading it, and the accumulators read or
 * written before it. */
static void test_wgmma_before_wait_group(void **state)
{
    (void)state;
    const char *stage[] = {"by thread (0,0,0) still reads",
                           "a wgmma.wait_group is missing", "(thread (0,0,0) of CTA (0,0,0))"};
    wgmma_planted("    T.cuda.cta_sync()\n    A_s[tx] = T.float16(0)\n"
                  "    T.ptx.wgmma.wait_group.sync.aligned(0)\n",
                  "    A_s[tx] = T.float16(0)", stage, 3);
    const char *acc[] = {"read of an accumulator register of the wgmma",
                         "before the wgmma.wait_group that completes it", "(thread (0,0,0) of CTA"};
    wgmma_planted("", "        D[tx // 32 * 16", acc, 2);
    const char *wacc[] = {"write of an accumulator register of the wgmma",
                          "before the wgmma.wait_group that completes it", "(thread (0,0,0) of CTA"};
    wgmma_planted("    acc[0] = T.float32(0)\n    T.ptx.wgmma.wait_group.sync.aligned(0)\n",
                  "    acc[0] = T.float32(0)", wacc, 3);
}

/* Simulates fn of text and expects it to stop at the line holding at_text,
 * where `reader` reads shared memory that a thread wrote at the line holding
 * write_text with no fence.proxy.async after it. */
static void expect_unfenced(const char *text, const char *name, const char *fn, Tensor **ts, int n,
                            const char *reader, const char *at_text, const char *write_text)
{
    tirx_module *m = compile_text(text, strlen(text), name, NULL, 0);
    tirx_error err;
    assert_int_equal(simulate(m, fn, ts, n, NULL, 0, &err), TIRX_ERR_USAGE);
    char where[128], what[64], wrote[128];
    snprintf(where, sizeof where, "%s:%d:", name, line_of(text, at_text));
    snprintf(what, sizeof what, "the %s reads shared memory byte ", reader);
    snprintf(wrote, sizeof wrote, " wrote at line %d through the generic proxy with no "
             "fence.proxy.async", line_of(text, write_text));
    if (!strstr(err.message, where) || !strstr(err.message, what) || !strstr(err.message, wrote))
        fail_msg("'%s', '%s' or '%s' is not in: %s", where, what, wrote, err.message);
    tirx_module_free(m);
}

/* Shared memory written by the threads (generic proxy) and then read by the
 * async proxy without a fence.proxy.async between: a wgmma's operands
 * (tests/gpu/wgmma_tile.tirx without its fence) and a TMA store's source
 * (examples/tma_copy.tirx with a tile written by the threads before it is
 * stored); with the fence, the same TMA store runs. */
static void test_missing_proxy_fence(void **state)
{
    (void)state;
    char *text = substituted("tests/gpu/wgmma_tile.tirx",
                             "    T.ptx.fence.proxy.async_.shared__cta()\n", "");
    WgmmaArgs w;
    wgmma_args(&w);
    expect_unfenced(text, "wgmma_tile.tirx", "wgmma_n8", w.ts, 3, "wgmma",
                    "T.ptx[\"wgmma.mma_async", "        A_s[(e % 16)");
    wgmma_args_free(&w);
    free(text);
    unsigned seed = 6;

    const char *store = "    if tx == 0:\n        Tx.copy_async(C[";
    const char *planted = "    T.cuda.cta_sync()\n    A_s[tx // 64, tx % 64] = T.float16(1)\n"
                          "    T.cuda.cta_sync()\n";
    char with[256], fenced[256];
    snprintf(with, sizeof with, "%s%s", planted, store);
    snprintf(fenced, sizeof fenced, "%s%s",
             "    T.cuda.cta_sync()\n    A_s[tx // 64, tx % 64] = T.float16(1)\n"
             "    T.cuda.fence_proxy_async()\n    T.cuda.cta_sync()\n", store);
    size_t n = 1024 * 512;
    uint16_t *x = random_halves(n, &seed), *y = poisoned(n), *z = poisoned(n);
    Tensor X = tensor(x, 2, 1024, 512, kDLFloat, 16), Y = tensor(y, 2, 1024, 512, kDLFloat, 16);
    Tensor Z = tensor(z, 2, 1024, 512, kDLFloat, 16);
    Tensor *ts[] = {&X, &Y, &Z};
    text = substituted("examples/tma_copy.tirx", store, with);
    expect_unfenced(text, "tma_copy.tirx", "tma_copy", ts, 3, "TMA store", "Tx.copy_async(C[",
                    "    A_s[tx // 64, tx % 64]");
    free(text);
    text = substituted("examples/tma_copy.tirx", store, fenced);
    tirx_module *m = compile_text(text, strlen(text), "tma_copy.tirx", NULL, 0);
    tirx_error err;
    assert_int_equal(simulate(m, "tma_copy", ts, 3, NULL, 0, &err), TIRX_OK);
    assert_int_equal(z[0], 0x3c00); /* C's tile (0, 0) is A_s, whose [0, 0] the threads set to 1 */
    tirx_module_free(m);
    free(x), free(y), free(z), free(text);
}

/* tests/gpu/op_gemm_wgmma.tirx with INFLIGHT (and RS), N = n and one
 * substitution, on random inputs: expects `what` of a register of the wgmma
 * issued at the line holding issue_text, at the line holding line_text. */
static void gemm_inflight_planted(bool rs, int n, const char *old, const char *new_,
                                  const char *line_text, const char *issue_text, const char *what)
{
    char *text = substituted("tests/gpu/op_gemm_wgmma.tirx", "INFLIGHT = False\n",
                             "INFLIGHT = True\n");
    char nline[32], brline[32];
    snprintf(nline, sizeof nline, "N = %d\n", n), snprintf(brline, sizeof brline, "BR = %d\n", n);
    text = replaced(text, "N = 128\n", nline);
    text = replaced(text, "BR = 128\n", brline);
    if (rs)
        text = replaced(text, "RS = False\n", "RS = True\n");
    text = replaced(text, old, new_);
    unsigned seed = 8;
    uint16_t *a = random_halves(64 * 64, &seed), *b = random_halves((size_t)n * 64, &seed);
    float *d = random_floats((size_t)64 * n, &seed);
    Tensor A = tensor(a, 2, 64, 64, kDLBfloat, 16), B = tensor(b, 2, n, 64, kDLBfloat, 16);
    Tensor D = tensor(d, 2, 64, n, kDLFloat, 32);
    Tensor *ts[] = {&A, &B, &D};
    const char *frags[] = {what, "before the wgmma.wait_group that completes it"};
    expect_planted(text, "op_gemm_wgmma.tirx", "gemm", ts, 3, line_text, issue_text, frags, 2);
    free(a), free(b), free(d), free(text);
}

/* Two accumulators in flight: T.cuda.wgmma_wait(1, hi) leaves the newest
 * group, hi's, in flight, so reading hi after it is reading registers the
 * MMA still writes. */
static void test_wgmma_wait_wrong_group(void **state)
{
    (void)state;
    gemm_inflight_planted(false, 256,
                          "        T.cuda.wgmma_wait(1, lo)\n        Tx.wg.copy(D[:, 0:N // 2], lo)\n",
                          "        T.cuda.wgmma_wait(1, hi)\n        Tx.wg.copy(D[:, N // 2:N], hi)\n",
                          "        Tx.wg.copy(D[:, N // 2:N], hi)", "Tx.wg.gemm_async(hi, A_s",
                          "read of an accumulator register of the wgmma");
}

/* A from registers in flight (RS): issuing the same call again before the
 * wait rewrites the packed A registers the first MMAs still read. */
static void test_wgmma_rs_reissue(void **state)
{
    (void)state;
    gemm_inflight_planted(true, 128,
                          "            Tx.wg.gemm_async(lo, A_r, B_s[0:N // 2, :], accum=False, wait=None)\n",
                          "            for r in range(2):\n"
                          "                Tx.wg.gemm_async(lo, A_r, B_s[0:N // 2, :], accum=r > 0, wait=None)\n",
                          "Tx.wg.gemm_async(lo, A_r", "Tx.wg.gemm_async(lo, A_r",
                          "write of an A register of the wgmma");
}

/* A write to shared memory another thread read with nothing ordering the
 * read before it (write-after-read), and races ordered by mbarriers and
 * named barriers: checked as the CTA-wide barriers are. */
static void test_ordering_races(void **state)
{
    (void)state;
    const char *war = KERNEL_HEAD
        "    S[tx] = X[tx]\n"
        "    T.cuda.cta_sync()\n"
        "    Y[tx] = S[(tx + 1) % 64]\n"
        "    S[tx] = X[63 - tx]\n";
    const char *war_frags[] = {"bug.tirx:10:", "was read by thread (0,0,0) of CTA (0,0,0) at line 9 and nothing orders",
                               "that read before this write", "(write-after-read)",
                               "(thread (1,0,0) of CTA (0,0,0))"};
    expect_error(war, war_frags, 5);
    /* a producer warp hands S to a consumer warp through an mbarrier */
#define MBAR_HANDOFF(wait)                                                                         \
    KERNEL_HEAD                                                                                    \
    "    bar = T.alloc_shared((1,), \"uint64\")\n"                                                 \
    "    if tx == 0:\n"                                                                            \
    "        T.ptx.mbarrier.init.shared__cta.b64(T.address_of(bar[0]), T.uint32(32))\n"            \
    "    T.cuda.cta_sync()\n"                                                                      \
    "    if tx < 32:\n"                                                                            \
    "        S[tx] = X[tx]\n"                                                                      \
    "        T.ptx.mbarrier.arrive.release.cluster.shared__cta.b64(T.address_of(bar[0]), T.uint32(1))\n" \
    "    else:\n"                                                                                  \
    wait                                                                                           \
    "        Y[tx] = S[tx - 32]\n"
    const char *good = MBAR_HANDOFF("        T.cuda.mbarrier_wait(T.address_of(bar[0]), 0)\n");
    tirx_module *m = compile_text(good, strlen(good), "handoff.tirx", NULL, 0);
    unsigned seed = 4;
    float *x = random_floats(64, &seed), *y = random_floats(64, &seed);
    Tensor X = tensor(x, 1, 64, 0, kDLFloat, 32), Y = tensor(y, 1, 64, 0, kDLFloat, 32);
    Tensor *ts[] = {&X, &Y};
    tirx_error err;
    assert_int_equal(simulate(m, "f", ts, 2, NULL, 0, &err), TIRX_OK);
    for (int i = 32; i < 64; i++)
        assert_true(y[i] == x[i - 32]);
    free(x), free(y);
    tirx_module_free(m);
    const char *no_wait = MBAR_HANDOFF("");
    const char *nw_frags[] = {"bug.tirx:15:", "was written by thread (0,0,0) of CTA (0,0,0) at line 12 and nothing orders",
                              "that write before this read", "(thread (32,0,0) of CTA (0,0,0))"};
    expect_error(no_wait, nw_frags, 4);
#undef MBAR_HANDOFF
    /* the consumer warp skips its named barrier */
    const char *named = KERNEL_HEAD
        "    if tx < 32:\n"
        "        S[tx] = X[tx]\n"
        "        T.ptx.bar.arrive(1, 64)\n"
        "    else:\n"
        "        Y[tx] = S[tx - 32]\n"
        "        T.ptx.bar.sync(1, 64)\n";
    const char *named_frags[] = {"bug.tirx:11:", "was written by thread (0,0,0) of CTA (0,0,0) at line 8",
                                 "(thread (32,0,0) of CTA (0,0,0))"};
    expect_error(named, named_frags, 3);
}

/* ---------------------------------------------------------------- time */

/* The modelled clock: clock64() and %globaltimer count a thread's
 * statements, and passing a barrier brings a thread to the time of the last
 * arrival: thread 0 works 100 iterations longer before the barrier, so every
 * thread reads the same, long, time after it, in every run. */
static void test_modelled_clock(void **state)
{
    (void)state;
    const char *src = KERNEL_HEAD
        "    t0: T.uint64 = T.cuda.clock64()\n"
        "    if tx == 0:\n"
        "        for i in range(100):\n"
        "            S[0] = X[i % 64]\n"
        "    T.cuda.cta_sync()\n"
        "    t1: T.uint64 = T.cuda.mov_sreg(64, \"%globaltimer\")\n"
        "    Y[tx] = T.Cast(\"float32\", t1 - t0) + T.Cast(\"float32\", T.cuda.mov_sreg(32, \"%smid\"))\n";
    tirx_module *m = compile_text(src, strlen(src), "clock.tirx", NULL, 0);
    unsigned seed = 6;
    float *x = random_floats(64, &seed), *y = random_floats(64, &seed), first = 0;
    Tensor X = tensor(x, 1, 64, 0, kDLFloat, 32), Y = tensor(y, 1, 64, 0, kDLFloat, 32);
    Tensor *ts[] = {&X, &Y};
    tirx_error err;
    for (int run = 0; run < 2; run++) {
        assert_int_equal(simulate(m, "f", ts, 2, NULL, 0, &err), TIRX_OK);
        first = run ? first : y[0];
        assert_true(y[0] > 100 && y[0] == first);
        for (int i = 1; i < 64; i++)
            assert_true(y[i] == y[0]);
    }
    free(x), free(y);
    tirx_module_free(m);
}

/* ---------------------------------------------------------------- clusters */

/* CTA 0 of a cluster of two stores X into CTA 1's shared memory
 * (mapa + st.shared::cluster) and CTA 1 copies it to Y, after SYNC. */
#define DSMEM_KERNEL(sync)                                                                       \
    "@T.prim_func\n"                                                                             \
    "def f(X: T.Buffer((64,), \"float32\"), Y: T.Buffer((64,), \"float32\")):\n"                  \
    "    T.device_entry()\n"                                                                     \
    "    bx = T.cta_id([2])\n"                                                                   \
    "    cl = T.cluster_id([1])\n"                                                               \
    "    cb = T.cta_id_in_cluster([2])\n"                                                        \
    "    tx = T.thread_id([32])\n"                                                               \
    "    S = T.alloc_shared((32,), \"float32\")\n"                                               \
    "    rem = T.alloc_local((1,), \"uint32\")\n"                                                \
    "    T.cuda.cluster_sync()\n"                                                                \
    "    if cb == 0:\n"                                                                          \
    "        T.ptx.mapa.shared__cluster.u32(rem[0], T.cuda.cvta_generic_to_shared(T.address_of(S[tx])), T.uint32(1))\n" \
    "        T.ptx.st.shared__cluster.f32(rem[0], X[tx])\n"                                      \
    sync                                                                                         \
    "    if cb == 1:\n"                                                                          \
    "        Y[tx] = S[tx]\n"                                                                    \
    "    T.cuda.cluster_sync()\n"

/* A DSMEM store read by the other CTA: ordered by the cluster barrier, a
 * race without it (a CTA barrier orders only its own CTA), reported with
 * both lines, threads and CTAs. */
static void test_dsmem_race(void **state)
{
    (void)state;
    const char *good = DSMEM_KERNEL("    T.cuda.cluster_sync()\n");
    tirx_module *m = compile_text(good, strlen(good), "dsmem.tirx", NULL, 0);
    unsigned seed = 5;
    float *x = random_floats(64, &seed), *y = random_floats(64, &seed);
    Tensor X = tensor(x, 1, 64, 0, kDLFloat, 32), Y = tensor(y, 1, 64, 0, kDLFloat, 32);
    Tensor *ts[] = {&X, &Y};
    tirx_error err;
    assert_int_equal(simulate(m, "f", ts, 2, NULL, 0, &err), TIRX_OK);
    for (int i = 0; i < 32; i++)
        assert_true(y[i] == x[i]);
    free(x), free(y);
    tirx_module_free(m);
    const char *frags[] = {"bug.tirx:16:", "was written by thread (",
                           ("of CTA (0,0,0) at line 13 "
                            "and nothing orders that write before this read"),
                           "(a missing cluster barrier or mbarrier wait)", "of CTA (1,0,0))"};
    expect_error(DSMEM_KERNEL("    T.cuda.cta_sync()\n"), frags, 5);
}
#undef DSMEM_KERNEL

/* kernels/gemm_fp8_sm90.tirx (clusters of two CTAs, each loading half of B
 * into both) with its consumers releasing a stage on their own CTA's empty
 * barrier only: a producer's multicast then writes into its peer's stage
 * while the peer's consumers may still read it (write-after-read across
 * CTAs), reported at the multicast with the peer's read. */
static void test_multicast_race(void **state)
{
    (void)state;
    char *once = substituted("kernels/gemm_fp8_sm90.tirx", "init_empty=2 * CLUSTER",
                             "init_empty=2");
    const char *remote = "                    if CLUSTER == 2:\n"
                         "                        pipe.empty.arrive(cs.stage, remote=rank ^ 1)\n";
    char *at = strstr(once, remote);
    assert_non_null(at);
    memmove(at, at + strlen(remote), strlen(at + strlen(remote)) + 1);
    tirx_define d[] = {{"M", "256"}, {"N", "128"}, {"K", "1024"}, {"NUM_CTAS", "2"},
                       {"PROMOTE", "1"}, {"SPLIT_K", "1"}, {"NUM_SMS", "8"},
                       {"WORKSPACE_BYTES", "4096"}};
    tirx_module *m = compile_text(once, strlen(once), "gemm_fp8_sm90.tirx", d, 8);
    uint8_t *a = aligned_alloc(256, 256 * 1024), *b = aligned_alloc(256, 128 * 1024);
    uint16_t *c = aligned_alloc(256, 256 * 128 * 2);
    int32_t *w = aligned_alloc(256, 4096);
    memset(a, 0x38, 256 * 1024), memset(b, 0x38, 128 * 1024), memset(w, 0, 4096);
    Tensor A = tensor(a, 2, 256, 1024, kDLFloat8_e4m3fn, 8);
    Tensor B = tensor(b, 2, 128, 1024, kDLFloat8_e4m3fn, 8);
    Tensor C = tensor(c, 2, 256, 128, kDLBfloat, 16), W = tensor(w, 1, 1024, 0, kDLInt, 32);
    Tensor *ts[] = {&A, &B, &C, &W};
    tirx_arg args[6];
    for (int i = 0; i < 4; i++) {
        ts[i]->t.shape = ts[i]->shape;
        args[i] = tirx_arg_tensor((const struct DLTensor *)&ts[i]->t);
    }
    args[4] = tirx_arg_float(1.0), args[5] = tirx_arg_float(1.0);
    tirx_error err;
    assert_int_equal(tirx_simulate(m, "gemm", args, 6, &err), TIRX_ERR_USAGE);
    char where[64], read_at[96];
    snprintf(where, sizeof where, "gemm_fp8_sm90.tirx:%d:",
             line_of(once, "Tx.copy_async(B_s[ps.stage, rank"));
    snprintf(read_at, sizeof read_at, "at line %d and nothing orders that read before this write",
             line_of(once, "Tx.wg.gemm_async(part"));
    const char *frags[] = {where, "was read by thread (", read_at, "(write-after-read)",
                           "a missing cluster barrier or mbarrier wait"};
    for (int i = 0; i < 5; i++)
        if (!strstr(err.message, frags[i]))
            fail_msg("'%s' is not in: %s", frags[i], err.message);
    /* the reader and the writer in different CTAs */
    const char *rd = strstr(err.message, "of CTA (");
    const char *wr = strstr(err.message, "(thread (");
    assert_non_null(rd), assert_non_null(wr);
    assert_non_null(wr = strstr(wr, "of CTA ("));
    assert_true(strncmp(rd, wr, 14) != 0);
    free(a), free(b), free(c), free(w), free(once);
    tirx_module_free(m);
}

/* ---------------------------------------------------------------- tcgen05 */

/* A hand-written tcgen05 GEMM tile (sm_100a): D (128 x 64, float32) = A
 * (128 x 16) @ B (64 x 16)^T in bfloat16, the operands in unswizzled K-major
 * core matrices, one MMA from T.ptx with the instruction descriptor IDESC
 * and the descriptors' swizzle SWZ, committed to an mbarrier and waited for
 * (COMMIT; else only a CTA barrier follows the MMA), read back with
 * tcgen05.ld SHAPE (16 registers per issue); the .kind is KIND. Line 39 is
 * the ld. */
static const char TC_KERNEL[] =
    "IDESC = 1 << 4 | 1 << 7 | 1 << 10 | (64 >> 3) << 17 | (128 >> 4) << 24\n"
    "SWZ = 0\n"
    "COMMIT = True\n"
    "SHAPE = \"32x32b.x16\"\n"
    "KIND = \"f16\"\n"
    "@T.prim_func\n"
    "def f(A: T.Buffer((128, 16), \"bfloat16\"), B: T.Buffer((64, 16), \"bfloat16\"), D: T.Buffer((128, 64), \"float32\")):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([128])\n"
    "    As = T.alloc_shared((2048,), \"bfloat16\", align=1024)\n"
    "    Bs = T.alloc_shared((1024,), \"bfloat16\", align=1024)\n"
    "    taddr = T.alloc_shared((1,), \"uint32\")\n"
    "    bar = T.alloc_shared((1,), \"uint64\")\n"
    "    da = T.alloc_local((1,), \"uint64\")\n"
    "    db = T.alloc_local((1,), \"uint64\")\n"
    "    regs = T.alloc_local((16,), \"uint32\")\n"
    "    for k in range(16):\n"
    "        As[tx // 8 * 128 + k // 8 * 64 + tx % 8 * 8 + k % 8] = A[tx, k]\n"
    "        if tx < 64:\n"
    "            Bs[tx // 8 * 128 + k // 8 * 64 + tx % 8 * 8 + k % 8] = B[tx, k]\n"
    "    if tx < 32:\n"
    "        T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(T.address_of(taddr[0]), T.uint32(64))\n"
    "    if tx == 0:\n"
    "        T.ptx.mbarrier.init.shared__cta.b64(T.address_of(bar[0]), T.uint32(1))\n"
    "    T.cuda.fence_proxy_async()\n"
    "    T.cuda.cta_sync()\n"
    "    if tx == 0:\n"
    "        T.cuda.tcgen05.encode_matrix_descriptor(T.address_of(da[0]), T.address_of(As[0]), 8, 16, SWZ)\n"
    "        T.cuda.tcgen05.encode_matrix_descriptor(T.address_of(db[0]), T.address_of(Bs[0]), 8, 16, SWZ)\n"
    "        T.ptx[\"tcgen05.mma.cta_group::1.kind::\" + KIND](taddr[0], da[0], db[0], T.uint32(IDESC), T.uint32(0), T.uint32(0), T.uint32(0), T.uint32(0), False)\n"
    "        if COMMIT:\n"
    "            T.ptx.tcgen05.commit.cta_group__1.mbarrier__arrive__one.shared__cluster.b64(T.address_of(bar[0]))\n"
    "    if COMMIT:\n"
    "        T.cuda.mbarrier_wait(T.address_of(bar[0]), 0)\n"
    "    else:\n"
    "        T.cuda.cta_sync()\n"
    "    for c in range(4):\n"
    "        T.ptx[\"tcgen05.ld.sync.aligned.\" + SHAPE + \".b32\"](regs[0], regs[1], regs[2], regs[3], regs[4], regs[5], regs[6], regs[7], regs[8], regs[9], regs[10], regs[11], regs[12], regs[13], regs[14], regs[15], T.cuda.get_tmem_addr(taddr[0], tx // 32 * 32, c * 16))\n"
    "        for j in range(16):\n"
    "            D[tx, c * 16 + j] = T.reinterpret(\"float32\", regs[j])\n"
    "    T.cuda.cta_sync()\n"
    "    if tx < 32:\n"
    "        T.ptx.tcgen05.dealloc.cta_group__1.sync.aligned.b32(taddr[0], T.uint32(64))\n";

/* Runs TC_KERNEL with `defs`: NULL when it fails (*err set), else the
 * relative error of D against float64. */
static double tc_run(const tirx_define *defs, size_t ndefs, tirx_error *err, bool *ok)
{
    tirx_options o = {.arch = "sm_100a", .no_binary = 1};
    tirx_module *m = NULL;
    tirx_status st = tirx_compile(TC_KERNEL, strlen(TC_KERNEL), "tc.tirx", defs, ndefs, &o, &m);
    if (st != TIRX_OK) {
        char *d = tirx_diag_render(m);
        fail_msg("%s", d ? d : "compile failed");
    }
    unsigned seed = 11;
    _Alignas(64) uint16_t a[128 * 16];
    _Alignas(64) uint16_t b[64 * 16];
    double av[128 * 16], bv[64 * 16];
    float *d = random_floats(128 * 64, &seed);
    for (int i = 0; i < 128 * 16; i++) {
        a[i] = (uint16_t)sim_to_bits(IR_BFLOAT16, (SimVal){.f = (rand_r(&seed) % 17 - 8) / 4.0});
        av[i] = sim_from_bits(IR_BFLOAT16, a[i]).f;
    }
    for (int i = 0; i < 64 * 16; i++) {
        b[i] = (uint16_t)sim_to_bits(IR_BFLOAT16, (SimVal){.f = (rand_r(&seed) % 17 - 8) / 4.0});
        bv[i] = sim_from_bits(IR_BFLOAT16, b[i]).f;
    }
    Tensor A = tensor(a, 2, 128, 16, kDLBfloat, 16), B = tensor(b, 2, 64, 16, kDLBfloat, 16);
    Tensor D = tensor(d, 2, 128, 64, kDLFloat, 32);
    Tensor *ts[] = {&A, &B, &D};
    *ok = simulate(m, "f", ts, 3, NULL, 0, err) == TIRX_OK;
    double num = 0, den = 0;
    for (int i = 0; *ok && i < 128; i++)
        for (int j = 0; j < 64; j++) {
            double ref = 0;
            for (int k = 0; k < 16; k++)
                ref += av[i * 16 + k] * bv[j * 16 + k];
            num += (d[i * 64 + j] - ref) * (d[i * 64 + j] - ref), den += ref * ref;
        }
    free(d);
    tirx_module_free(m);
    return *ok ? sqrt(num / den) : INFINITY;
}

static void tc_expect_error_with(const tirx_define *defs, size_t n, const char *frag)
{
    tirx_error err;
    bool ok;
    tc_run(defs, n, &err, &ok);
    if (ok || !strstr(err.message, frag))
        fail_msg("%s=%s: '%s' is not in: %s", defs[n - 1].name, defs[n - 1].value, frag,
                 ok ? "(no error)" : err.message);
}

/* The run succeeds and D holds NaNs (loads of tensor memory no one wrote). */
static void tc_expect_nan(const char *name, const char *value)
{
    tirx_define def = {name, value};
    tirx_error err;
    bool ok;
    double e = tc_run(&def, 1, &err, &ok);
    if (!ok || !isnan(e))
        fail_msg("%s=%s: expected a run with NaNs in D, got %s (error %g)", name, value,
                 ok ? "a run" : err.message, e);
}

static void tc_expect_error(const char *name, const char *value, const char *frag)
{
    tirx_define def = {name, value};
    tc_expect_error_with(&def, 1, frag);
}

static void test_tcgen05_planted(void **state)
{
    (void)state;
    tirx_error err;
    bool ok;
    double e = tc_run(NULL, 0, &err, &ok);
    if (!ok)
        fail_msg("%s", err.message);
    assert_true(e == 0); /* small integers / 4: every sum is exact */
    /* the MMA's result read before its commit (no commit, no wait) */
    tc_expect_error("COMMIT", "False", "tc.tirx:39:9: error: tensor memory (lane 32, column 0) "
                    "read before the MMA that writes it was committed");
    /* a wrong instruction descriptor: N = 32 leaves columns 32-63 unwritten;
     * M = 64 puts D in 16 lanes per slab (data path F), leaving lanes 16-31
     * of each unwritten: their loads read NaN; a bad M is refused */
    tc_expect_nan("IDESC", "1 << 4 | 1 << 7 | 1 << 10 | (32 >> 3) << 17 | (128 >> 4) << 24");
    tc_expect_nan("IDESC", "1 << 4 | 1 << 7 | 1 << 10 | (64 >> 3) << 17 | (64 >> 4) << 24");
    tc_expect_error("IDESC", "1 << 4 | 1 << 7 | 1 << 10 | (64 >> 3) << 17 | (96 >> 4) << 24",
                    "tc.tirx:31:9: error: tcgen05.mma.cta_group::1: the instruction descriptor "
                    "0x06100490 asks for M = 96, N = 64");
    /* kind::f8f6f4 with an MN-major fp6 A (e2m3, the transpose bit 15) or
     * fp4 B (e2m1, bit 16): read K-major only */
    tirx_define mn_a[] = {{"KIND", "\"f8f6f4\""},
                          {"IDESC", "1 << 4 | 3 << 7 | 0 << 10 | 1 << 15 | (64 >> 3) << 17 | "
                                    "(128 >> 4) << 24"}};
    tc_expect_error_with(mn_a, 2, "tc.tirx:31:9: error: tcgen05.mma .kind::f8f6f4: the "
                         "instruction descriptor 0x08108190 makes an fp6 or fp4 operand MN-major "
                         "(A format 3, B format 0)");
    tirx_define mn_b[] = {{"KIND", "\"f8f6f4\""},
                          {"IDESC", "1 << 4 | 0 << 7 | 5 << 10 | 1 << 16 | (64 >> 3) << 17 | "
                                    "(128 >> 4) << 24"}};
    tc_expect_error_with(mn_b, 2, "(A format 0, B format 5), which the instruction reads K-major");
    /* float16 instead of bfloat16 inputs: wrong values */
    tirx_define f16 = {"IDESC", "1 << 4 | 0 << 7 | 0 << 10 | (64 >> 3) << 17 | (128 >> 4) << 24"};
    e = tc_run(&f16, 1, &err, &ok);
    assert_true(!ok || e > 0.1);
    /* a wrong swizzle in the descriptors (64-byte instead of none): the
     * operands are read from the wrong addresses */
    tirx_define swz = {"SWZ", "2"};
    e = tc_run(&swz, 1, &err, &ok);
    assert_true(!ok || e > 0.1);
    /* a wrong TMEM layout: the accumulator read as 16x256b fragments */
    tirx_define shape = {"SHAPE", "\"16x256b.x4\""};
    e = tc_run(&shape, 1, &err, &ok);
    assert_true(!ok || e > 0.1);
}

/* ---------------------------------------------------------------- sm_100a loads and conversions */

/* A tma_explicit gather4 of rows r, -1 (out of bounds: zeros), 1023 and r + 1
 * of G into stage 1 of a two-stage buffer, copied out to Y; and every pair of
 * e4m3 codes H[i] = (2i + 1) << 8 | 2i converted to bfloat16 pairs in U. */
static const char G4_KERNEL[] =
    "@T.prim_func\n"
    "def g4(G: T.Buffer((1024, 64), \"float16\"), Y: T.Buffer((4, 64), \"float16\"), H: T.Buffer((128,), \"uint16\"), U: T.Buffer((128,), \"uint32\"), r: T.int32):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([128])\n"
    "    S = T.alloc_shared((2, 4, 64), \"float16\", align=1024)\n"
    "    bar = T.alloc_shared((1,), \"uint64\")\n"
    "    c = T.alloc_local((1,), \"uint32\")\n"
    "    if tx == 0:\n"
    "        T.ptx.mbarrier.init.shared__cta.b64(bar.ptr_to([0]), T.uint32(1))\n"
    "        T.ptx.fence.proxy.async_.shared__cta()\n"
    "    T.cuda.cta_sync()\n"
    "    if tx == 0:\n"
    "        T.ptx.mbarrier.arrive.expect_tx.shared__cta.b64(bar.ptr_to([0]), T.uint32(512))\n"
    "        Tx.copy_async(S[1, :, :], G[0:1, 0:64], dispatch=\"tma_explicit\", mbar=bar[0], gather4=[r, -1, 1023, r + 1])\n"
    "    T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)\n"
    "    for i in range(2):\n"
    "        Y[tx // 64 + 2 * i, tx % 64] = S[1, tx // 64 + 2 * i, tx % 64]\n"
    "    T.ptx[\"cvt.rn.bf16x2.e4m3x2\"](c[0], H[tx])\n"
    "    U[tx] = c[0]\n";

static void test_gather4_fp8(void **state)
{
    (void)state;
    tirx_options o = {.arch = "sm_100a", .no_binary = 1};
    tirx_module *m = NULL;
    if (tirx_compile(G4_KERNEL, strlen(G4_KERNEL), "g4.tirx", NULL, 0, &o, &m) != TIRX_OK) {
        char *d = tirx_diag_render(m);
        fail_msg("%s", d ? d : "compile failed");
    }
    unsigned seed = 5;
    uint16_t *g = random_halves(1024 * 64, &seed), *y = poisoned(4 * 64), *h = poisoned(128);
    _Alignas(64) uint32_t u[128];
    IrDType e4m3 = {IR_DT_F8E4M3FN, 8, 1};
    for (int i = 0; i < 128; i++)
        h[i] = (uint16_t)((2 * i + 1) << 8 | 2 * i);
    Tensor G = tensor(g, 2, 1024, 64, kDLFloat, 16), Y = tensor(y, 2, 4, 64, kDLFloat, 16);
    Tensor H = tensor(h, 1, 128, 0, kDLUInt, 16), U = tensor(u, 1, 128, 0, kDLUInt, 32);
    Tensor *ts[] = {&G, &Y, &H, &U};
    long long r = 17;
    tirx_error err;
    if (simulate(m, "g4", ts, 4, &r, 1, &err) != TIRX_OK)
        fail_msg("%s", err.message);
    const int rows[4] = {17, -1, 1023, 18};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 64; j++)
            assert_int_equal(y[i * 64 + j], rows[i] < 0 ? 0 : g[rows[i] * 64 + j]);
    for (int code = 0; code < 256; code++) {
        uint32_t got = u[code / 2] >> (code % 2 * 16) & 0xffff;
        double v = sim_from_bits(e4m3, (uint64_t)code).f;
        if (isnan(v))
            assert_true((got & 0x7f80) == 0x7f80 && (got & 0x7f) != 0);
        else
            assert_int_equal(got, sim_to_bits(IR_BFLOAT16, (SimVal){.f = v}));
    }
    free(g), free(y), free(h);
    tirx_module_free(m);
}

/* src_selector: a tile load of rows 8..15 and a gather4 of rows r, r + 1,
 * r + 2 and 255 read E instead of G when n >= 1, each through the map its
 * selected_tensormap holds; Y is what landed in shared memory. */
static const char SELECTOR_KERNEL[] =
    "@T.prim_func\n"
    "def sel(G: T.Buffer((1024, 64), \"float16\"), E: T.Buffer((256, 64), \"float16\"), Y: T.Buffer((12, 64), \"float16\"), n: T.int32, r: T.int32):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([128])\n"
    "    S = T.alloc_shared((12, 64), \"float16\", align=1024)\n"
    "    bar = T.alloc_shared((1,), \"uint64\")\n"
    "    if tx == 0:\n"
    "        T.ptx.mbarrier.init.shared__cta.b64(bar.ptr_to([0]), T.uint32(1))\n"
    "        T.ptx.fence.proxy.async_.shared__cta()\n"
    "    T.cuda.cta_sync()\n"
    "    if tx == 0:\n"
    "        T.ptx.mbarrier.arrive.expect_tx.shared__cta.b64(bar.ptr_to([0]), T.uint32(1536))\n"
    "        Tx.copy_async(S[0:8, :], G[8:16, 0:64], dispatch=\"tma_explicit\", mbar=bar[0], src_selector=[[n >= 1, E]])\n"
    "        Tx.copy_async(S[8:12, :], G[0:1, 0:64], dispatch=\"tma_explicit\", mbar=bar[0], gather4=[r, r + 1, r + 2, 255], src_selector=[[n >= 1, E]])\n"
    "    T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)\n"
    "    for i in range(6):\n"
    "        Y[tx // 64 + 2 * i, tx % 64] = S[tx // 64 + 2 * i, tx % 64]\n";

static void test_src_selector(void **state)
{
    (void)state;
    tirx_options o = {.arch = "sm_100a", .no_binary = 1};
    tirx_module *m = NULL;
    if (tirx_compile(SELECTOR_KERNEL, strlen(SELECTOR_KERNEL), "sel.tirx", NULL, 0, &o, &m) !=
        TIRX_OK) {
        char *d = tirx_diag_render(m);
        fail_msg("%s", d ? d : "compile failed");
    }
    unsigned seed = 9;
    uint16_t *g = random_halves(1024 * 64, &seed), *e = random_halves(256 * 64, &seed);
    const int rows[12] = {8, 9, 10, 11, 12, 13, 14, 15, 17, 18, 19, 255};
    for (long long n = 0; n < 2; n++) {
        uint16_t *y = poisoned(12 * 64), *src = n ? e : g;
        Tensor G = tensor(g, 2, 1024, 64, kDLFloat, 16), E = tensor(e, 2, 256, 64, kDLFloat, 16);
        Tensor Y = tensor(y, 2, 12, 64, kDLFloat, 16);
        Tensor *ts[] = {&G, &E, &Y};
        long long ints[2] = {n, 17};
        tirx_error err;
        if (simulate(m, "sel", ts, 3, ints, 2, &err) != TIRX_OK)
            fail_msg("%s", err.message);
        for (int i = 0; i < 12; i++)
            for (int j = 0; j < 64; j++)
                assert_int_equal(y[i * 64 + j], src[rows[i] * 64 + j]);
        free(y);
    }
    free(g), free(e);
    tirx_module_free(m);
}

/* prmt (each mode) and bf16x2 mul / fma on 256 inputs: P[m, i] is prmt of
 * (A[i], B[i]) by C[i] in mode m (0: none, then f4e b4e rc8 ecl ecr rc16),
 * M = A * B and F = A * B + C as bfloat16 pairs; and D[i] the bfloat16 pair
 * of e4m3 codes 2i, 2i + 1 scaled by s, computed with integer operations and
 * one bf16x2 multiply (the codes' bits put into a bfloat16's exponent and
 * mantissa: the value times 2^-120, exact, subnormal below 2^-126). */
/* Narrow float scalar parameters reach the kernel as their own bits (a
 * half, a bfloat16, an e4m3 byte), rounded to nearest even from the
 * caller's double, not as the low bytes of a float32. */
static const char NARROW_SCALAR_KERNEL[] =
    "@T.prim_func\n"
    "def f(Y: T.Buffer((3,), \"float32\"), h: T.float16, b: T.bfloat16, e: T.float8_e4m3fn):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([1])\n"
    "    Y[0] = T.Cast(\"float32\", h)\n"
    "    Y[1] = T.Cast(\"float32\", b)\n"
    "    Y[2] = T.Cast(\"float32\", e)\n";

static void test_narrow_float_scalars(void **state)
{
    (void)state;
    tirx_module *m = NULL;
    tirx_options o = {.arch = "sm_90a", .no_binary = 1};
    if (tirx_compile(NARROW_SCALAR_KERNEL, strlen(NARROW_SCALAR_KERNEL), "narrow.tirx", NULL, 0,
                     &o, &m) != TIRX_OK) {
        char *d = tirx_diag_render(m);
        fail_msg("%s", d ? d : "compile failed");
    }
    /* 1 + 2^-11 ties to 1 in half; 1 + 3 * 2^-9 rounds up to 1 + 2^-7 in
     * bfloat16; 0.3 is 0.3125 in e4m3 */
    const double in[][3] = {{0.5, -2.0, 448.0}, {1 + 0x1p-11, 1 + 3 * 0x1p-9, 0.3}};
    const float want[][3] = {{0.5f, -2.0f, 448.0f}, {1.0f, 1 + 0x1p-7f, 0.3125f}};
    for (int k = 0; k < 2; k++) {
        _Alignas(64) float y[3] = {-1, -1, -1};
        Tensor Y = tensor(y, 1, 3, 0, kDLFloat, 32);
        Y.t.shape = Y.shape;
        tirx_arg args[4] = {tirx_arg_tensor((const struct DLTensor *)&Y.t), tirx_arg_float(in[k][0]),
                            tirx_arg_float(in[k][1]), tirx_arg_float(in[k][2])};
        tirx_error err = {0};
        if (tirx_simulate(m, "f", args, 4, &err) != TIRX_OK)
            fail_msg("%s", err.message);
        for (int i = 0; i < 3; i++)
            if (y[i] != want[k][i])
                fail_msg("case %d, scalar %d: got %.9g, want %.9g", k, i, y[i], want[k][i]);
    }
    tirx_module_free(m);
}

/* Math calls whose arguments are not all floats: ldexp's exponent is an
 * int32 (read as its value, not as a double's bits), fma of float32 rounds
 * once. */
static const char MATH_ARGS_KERNEL[] =
    "@T.prim_func\n"
    "def f(Y: T.Buffer((3,), \"float32\"), x: T.float32, e: T.int32):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([1])\n"
    "    Y[0] = T.ldexp(x, e)\n"
    "    Y[1] = T.fma(x, x, T.float32(-2.25))\n"
    "    Y[2] = T.ceil(x * T.float32(3))\n";

static void test_math_args(void **state)
{
    (void)state;
    tirx_module *m = NULL;
    tirx_options o = {.arch = "sm_90a", .no_binary = 1};
    if (tirx_compile(MATH_ARGS_KERNEL, strlen(MATH_ARGS_KERNEL), "math.tirx", NULL, 0, &o, &m) !=
        TIRX_OK) {
        char *d = tirx_diag_render(m);
        fail_msg("%s", d ? d : "compile failed");
    }
    _Alignas(64) float y[3] = {-1, -1, -1};
    Tensor Y = tensor(y, 1, 3, 0, kDLFloat, 32);
    Y.t.shape = Y.shape;
    /* x = 1.5 + 2^-20: x * x - 2.25 is 3 * 2^-20 + 2^-40 exactly, which fma keeps */
    float x = 1.5f + 0x1p-20f;
    tirx_arg args[3] = {tirx_arg_tensor((const struct DLTensor *)&Y.t), tirx_arg_float(x),
                        tirx_arg_int(3)};
    tirx_error err = {0};
    if (tirx_simulate(m, "f", args, 3, &err) != TIRX_OK)
        fail_msg("%s", err.message);
    assert_true(y[0] == 8 * x);
    assert_true(y[1] == fmaf(x, x, -2.25f));
    assert_true(y[2] == 5.0f);
    tirx_module_free(m);
}

static const char PRMT_KERNEL[] =
    "@T.prim_func\n"
    "def f(A: T.Buffer((256,), \"uint32\"), B: T.Buffer((256,), \"uint32\"), C: T.Buffer((256,), \"uint32\"), P: T.Buffer((7, 256), \"uint32\"), M: T.Buffer((256,), \"uint32\"), F: T.Buffer((256,), \"uint32\"), D: T.Buffer((128,), \"uint32\"), s: T.float32):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([256])\n"
    "    r = T.alloc_local((9,), \"uint32\")\n"
    "    T.ptx[\"prmt.b32\"](r[0], A[tx], B[tx], C[tx])\n"
    "    T.ptx[\"prmt.b32.f4e\"](r[1], A[tx], B[tx], C[tx])\n"
    "    T.ptx[\"prmt.b32.b4e\"](r[2], A[tx], B[tx], C[tx])\n"
    "    T.ptx[\"prmt.b32.rc8\"](r[3], A[tx], B[tx], C[tx])\n"
    "    T.ptx[\"prmt.b32.ecl\"](r[4], A[tx], B[tx], C[tx])\n"
    "    T.ptx[\"prmt.b32.ecr\"](r[5], A[tx], B[tx], C[tx])\n"
    "    T.ptx[\"prmt.b32.rc16\"](r[6], A[tx], B[tx], C[tx])\n"
    "    for m in range(7):\n"
    "        P[m, tx] = r[m]\n"
    "    T.ptx[\"mul.rn.bf16x2\"](r[7], A[tx], B[tx])\n"
    "    T.ptx[\"fma.rn.bf16x2\"](r[8], A[tx], B[tx], C[tx])\n"
    "    M[tx] = r[7]\n"
    "    F[tx] = r[8]\n"
    "    if tx < 128:\n"
    "        s2: T.let = T.cuda.float22bfloat162_rn(s * T.float32(1.329227995784916e36), s * T.float32(1.329227995784916e36))\n"
    "        T.ptx[\"prmt.b32\"](r[0], T.uint32(tx * 2 + (tx * 2 + 1) * 256), T.uint32(0), T.uint32(0x9180))\n"
    "        T.ptx[\"mul.rn.bf16x2\"](r[1], (r[0] << T.uint32(4)) & T.uint32(0x87F087F0), s2)\n"
    "        D[tx] = r[1]\n";

/* prmt's byte choice (PTX ISA): mode m's selector string for c & 3, d's bytes 3..0 */
static uint32_t prmt_ref(uint32_t a, uint32_t b, uint32_t c, int mode)
{
    static const char *const sel[6][4] = {
        {"3210", "4321", "5432", "6543"}, {"5670", "6701", "7012", "0123"},
        {"0000", "1111", "2222", "3333"}, {"3210", "3211", "3222", "3333"},
        {"0000", "1110", "2210", "3210"}, {"1010", "3232", "1010", "3232"}};
    uint8_t x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (uint8_t)((i < 4 ? a >> (8 * i) : b >> (8 * (i - 4))) & 0xff);
    uint32_t d = 0;
    for (int i = 0; i < 4; i++) {
        uint8_t v;
        if (mode == 0) {
            unsigned n = c >> (4 * i) & 0xf;
            v = n & 8 ? (x[n & 7] & 0x80 ? 0xff : 0) : x[n & 7];
        } else {
            v = x[sel[mode - 1][c & 3][3 - i] - '0'];
        }
        d |= (uint32_t)v << (8 * i);
    }
    return d;
}

static uint32_t rand32(unsigned *seed)
{
    return (uint32_t)rand_r(seed) << 16 ^ (uint32_t)rand_r(seed);
}

/* two bfloat16 of random sign and mantissa, magnitudes 2^-7 .. 2^7 */
static uint32_t in_range_pair(unsigned *seed)
{
    uint32_t r = rand32(seed), p = 0;
    for (int h = 0; h < 2; h++) {
        uint32_t e = 120 + (r >> (8 * h) & 0xff) % 14;
        p |= (r >> (16 + h) & 1) << 15 << (16 * h) | e << 7 << (16 * h) |
             ((uint32_t)rand_r(seed) & 0x7f) << (16 * h);
    }
    return p;
}

static uint16_t bf16_round(double v)
{
    return (uint16_t)sim_to_bits(IR_BFLOAT16, (SimVal){.f = v});
}

static double bf16_val(uint32_t bits)
{
    return sim_from_bits(IR_BFLOAT16, bits & 0xffff).f;
}

static void test_prmt_bf16x2(void **state)
{
    (void)state;
    tirx_module *m = NULL;
    tirx_options o = {.arch = "sm_90a", .no_binary = 1};
    if (tirx_compile(PRMT_KERNEL, strlen(PRMT_KERNEL), "prmt.tirx", NULL, 0, &o, &m) != TIRX_OK) {
        char *d = tirx_diag_render(m);
        fail_msg("%s", d ? d : "compile failed");
    }
    IrDType e4m3 = {IR_DT_F8E4M3FN, 8, 1};
    const float scales[] = {0.0123f, 3.0f, 1e-30f};
    for (int k = 0; k < 3; k++) {
        _Alignas(64) uint32_t a[256], b[256], c[256], pm[7 * 256], mu[256], fm[256], dq[128];
        unsigned seed = 11 + (unsigned)k;
        for (int i = 0; i < 256; i++) {
            /* even lanes: all 32 bits random (prmt; mul, b subnormal in half
             * of them); odd lanes: bfloat16 pairs within 2^-7 .. 2^7, where
             * a * b + c is exact in double, so the reference rounds once */
            if (i % 2 == 0) {
                a[i] = rand32(&seed), b[i] = rand32(&seed), c[i] = rand32(&seed);
                if (i % 4 == 0)
                    b[i] &= 0x807f807f;
            } else {
                a[i] = in_range_pair(&seed), b[i] = in_range_pair(&seed), c[i] = in_range_pair(&seed);
            }
        }
        /* fma ties: 3 * 1.0078125 lies halfway between two bfloat16 values;
         * -2^-100 (below double's last place) takes it down, +2^-100 up,
         * 0 to the even one */
        const uint32_t tie[3][4] = {{0x4040, 0x3f81, 0x8d80, 0x4041},
                                    {0x4040, 0x3f81, 0x0d80, 0x4042},
                                    {0x4040, 0x3f81, 0x0000, 0x4042}};
        for (int i = 0; i < 3; i++)
            a[1 + 4 * i] = tie[i][0] | tie[i][0] << 16, b[1 + 4 * i] = tie[i][1] | tie[i][1] << 16,
                      c[1 + 4 * i] = tie[i][2] | tie[i][2] << 16;
        Tensor A = tensor(a, 1, 256, 0, kDLUInt, 32), B = tensor(b, 1, 256, 0, kDLUInt, 32);
        Tensor C = tensor(c, 1, 256, 0, kDLUInt, 32), P = tensor(pm, 2, 7, 256, kDLUInt, 32);
        Tensor M = tensor(mu, 1, 256, 0, kDLUInt, 32), F = tensor(fm, 1, 256, 0, kDLUInt, 32);
        Tensor D = tensor(dq, 1, 128, 0, kDLUInt, 32);
        Tensor *ts[] = {&A, &B, &C, &P, &M, &F, &D};
        tirx_arg args[8];
        for (int i = 0; i < 7; i++) {
            ts[i]->t.shape = ts[i]->shape;
            args[i] = tirx_arg_tensor((const struct DLTensor *)&ts[i]->t);
        }
        args[7] = tirx_arg_float(scales[k]);
        tirx_error err = {0};
        if (tirx_simulate(m, "f", args, 8, &err) != TIRX_OK)
            fail_msg("%s", err.message);
        for (int i = 0; i < 256; i++) {
            for (int mode = 0; mode < 7; mode++)
                assert_int_equal(pm[mode * 256 + i], prmt_ref(a[i], b[i], c[i], mode));
            for (int h = 0; h < 2; h++) {
                double x = bf16_val(a[i] >> (16 * h)), y = bf16_val(b[i] >> (16 * h));
                double z = bf16_val(c[i] >> (16 * h));
                if (!isnan(x * y))
                    assert_int_equal(mu[i] >> (16 * h) & 0xffff, bf16_round(x * y));
                if (i % 4 == 1 && i < 12)
                    assert_int_equal(fm[i] >> (16 * h) & 0xffff, tie[i / 4][3]);
                else if (i % 2)
                    assert_int_equal(fm[i] >> (16 * h) & 0xffff, bf16_round(x * y + z));
            }
        }
        /* the e4m3 codes (NaN codes excepted) times bfloat16(s), rounded once */
        double sb = bf16_val(bf16_round(scales[k]));
        for (int code = 0; code < 256; code++) {
            double v = sim_from_bits(e4m3, (uint64_t)code).f;
            if (!isnan(v))
                assert_int_equal(dq[code / 2] >> (code % 2 * 16) & 0xffff, bf16_round(v * sb));
        }
    }
    tirx_module_free(m);
}

/* tcgen05.cp SHAPE (with its multicast) of 128 rows of 32 bytes in shared
 * memory, word w of row r being r * 8 + w + 1 (unswizzled core matrices:
 * row r at r % 8 * 16 + r / 8 * 256 bytes, its second 16 bytes 128 on), read
 * back from every lane's first 8 columns with tcgen05.ld 32x32b (unwritten
 * cells read as 0 after a first st of zeros). */
static const char CP_KERNEL[] =
    "SHAPE = \"128x256b\"\n"
    "@T.prim_func\n"
    "def f(D: T.Buffer((128, 8), \"uint32\")):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([128])\n"
    "    Ss = T.alloc_shared((1024,), \"uint32\", align=1024)\n"
    "    taddr = T.alloc_shared((1,), \"uint32\")\n"
    "    bar = T.alloc_shared((1,), \"uint64\")\n"
    "    desc = T.alloc_local((1,), \"uint64\")\n"
    "    regs = T.alloc_local((8,), \"uint32\")\n"
    "    for w in range(8):\n"
    "        Ss[tx // 8 * 64 + w // 4 * 32 + tx % 8 * 4 + w % 4] = T.uint32(tx * 8 + w + 1)\n"
    "        regs[w] = T.uint32(0)\n"
    "    if tx < 32:\n"
    "        T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(T.address_of(taddr[0]), T.uint32(32))\n"
    "    if tx == 0:\n"
    "        T.ptx.mbarrier.init.shared__cta.b64(T.address_of(bar[0]), T.uint32(1))\n"
    "    T.cuda.fence_proxy_async()\n"
    "    T.cuda.cta_sync()\n"
    "    T.ptx[\"tcgen05.st.sync.aligned.32x32b.x8.b32\"](T.cuda.get_tmem_addr(taddr[0], tx // 32 * 32, 0), regs[0], regs[1], regs[2], regs[3], regs[4], regs[5], regs[6], regs[7])\n"
    "    T.ptx.tcgen05.wait__st.sync.aligned()\n"
    "    T.cuda.cta_sync()\n"
    "    if tx == 0:\n"
    "        T.cuda.tcgen05.encode_matrix_descriptor(T.address_of(desc[0]), T.address_of(Ss[0]), 8, 16, 0)\n"
    "        T.ptx[\"tcgen05.cp.cta_group::1.\" + SHAPE](taddr[0], desc[0])\n"
    "        T.ptx.tcgen05.commit.cta_group__1.mbarrier__arrive__one.shared__cluster.b64(T.address_of(bar[0]))\n"
    "    T.cuda.mbarrier_wait(T.address_of(bar[0]), 0)\n"
    "    T.ptx[\"tcgen05.ld.sync.aligned.32x32b.x8.b32\"](regs[0], regs[1], regs[2], regs[3], regs[4], regs[5], regs[6], regs[7], T.cuda.get_tmem_addr(taddr[0], tx // 32 * 32, 0))\n"
    "    T.ptx.tcgen05.wait__ld.sync.aligned()\n"
    "    for w in range(8):\n"
    "        D[tx, w] = regs[w]\n"
    "    T.cuda.cta_sync()\n"
    "    if tx < 32:\n"
    "        T.ptx.tcgen05.dealloc.cta_group__1.sync.aligned.b32(taddr[0], T.uint32(32))\n";

/* Tensor memory left allocated when a CTA ends is an error at its alloc:
 * CTA 1 of two skips its dealloc. */
static void test_tcgen05_alloc_not_freed(void **state)
{
    (void)state;
    static const char src[] =
        "@T.prim_func\n"
        "def f(D: T.Buffer((2,), \"uint32\")):\n"
        "    T.device_entry()\n"
        "    bx = T.cta_id([2])\n"
        "    tx = T.thread_id([32])\n"
        "    taddr = T.alloc_shared((1,), \"uint32\")\n"
        "    T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(T.address_of(taddr[0]), T.uint32(64))\n"
        "    T.cuda.cta_sync()\n"
        "    D[bx] = taddr[0]\n"
        "    if bx == 0:\n"
        "        T.ptx.tcgen05.dealloc.cta_group__1.sync.aligned.b32(taddr[0], T.uint32(64))\n";
    tirx_options o = {.arch = "sm_100a", .no_binary = 1};
    tirx_module *m = NULL;
    assert_int_equal(tirx_compile(src, strlen(src), "leak.tirx", NULL, 0, &o, &m), TIRX_OK);
    _Alignas(64) uint32_t d[16] = {7, 7};
    Tensor D = tensor(d, 1, 2, 0, kDLUInt, 32);
    Tensor *ts[] = {&D};
    tirx_error err;
    assert_int_equal(simulate(m, "f", ts, 1, NULL, 0, &err), TIRX_ERR_USAGE);
    assert_string_equal(err.message, "leak.tirx:7:5: error: CTA (1,0,0) ended with tensor memory "
                                     "columns 0-63 still allocated by this tcgen05.alloc: "
                                     "deallocate them before the kernel exits, or a later CTA on "
                                     "the SM may wait for them in its alloc for ever");
    tirx_module_free(m);
}

/* The source row that lands in `lane` (-1: none) for a shape and multicast. */
static int cp_row(const char *shape, int lane)
{
    if (!strcmp(shape, "4x256b"))
        return lane % 32 ? -1 : lane / 32;
    if (!strcmp(shape, "64x128b.warpx2::02_13"))
        return lane % 64;
    if (!strcmp(shape, "64x128b.warpx2::01_23"))
        return lane % 32 + (lane >= 64 ? 32 : 0);
    if (!strcmp(shape, "32x128b.warpx4"))
        return lane % 32;
    return lane;
}

static void test_tcgen05_cp_shapes(void **state)
{
    (void)state;
    static const char *const shapes[] = {"128x256b", "128x128b", "4x256b",
                                         "64x128b.warpx2::02_13", "64x128b.warpx2::01_23",
                                         "32x128b.warpx4"};
    tirx_options o = {.arch = "sm_100a", .no_binary = 1};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        char value[64];
        snprintf(value, sizeof value, "\"%s\"", shapes[i]);
        tirx_define def = {"SHAPE", value};
        tirx_module *m = NULL;
        if (tirx_compile(CP_KERNEL, strlen(CP_KERNEL), "cp.tirx", &def, 1, &o, &m) != TIRX_OK) {
            char *d = tirx_diag_render(m);
            fail_msg("%s", d ? d : "compile failed");
        }
        _Alignas(64) uint32_t d[128 * 8];
        memset(d, 0xee, sizeof d);
        Tensor D = tensor(d, 2, 128, 8, kDLUInt, 32);
        Tensor *ts[] = {&D};
        tirx_error err;
        if (simulate(m, "f", ts, 1, NULL, 0, &err) != TIRX_OK)
            fail_msg("%s: %s", shapes[i], err.message);
        int words = strstr(shapes[i], "256b") ? 8 : 4;
        for (int lane = 0; lane < 128; lane++)
            for (int w = 0; w < 8; w++) {
                int row = cp_row(shapes[i], lane);
                uint32_t want = row < 0 || w >= words ? 0 : (uint32_t)(row * 8 + w + 1);
                if (d[lane * 8 + w] != want)
                    fail_msg("%s: lane %d word %d is %u, not %u", shapes[i], lane, w,
                             d[lane * 8 + w], want);
            }
        tirx_module_free(m);
    }
}

/* tcgen05.cp from a swizzled shared buffer: 128 rows of COLS float32, the
 * 32-, 64- or 128-byte swizzle of their layout (LOG 1, 2, 3), written by the
 * threads through the layout and copied by copy_async (128x256b, the
 * descriptor in the swizzle's mode, one copy per 32 bytes of a row): every
 * element lands on its row's lane and column. */
static const char SWIZZLED_CP_KERNEL[] =
    "COLS = 32\n"
    "LOG = 3\n"
    "\n"
    "\n"
    "@T.prim_func\n"
    "def f(D: T.Buffer((128, COLS), \"float32\")):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    warp = T.warp_id([4])\n"
    "    tid = T.thread_id([128])\n"
    "    pool = T.SMEMPool()\n"
    "    S = pool.alloc((128, COLS), \"float32\", align=1024, layout=T.ComposeLayout(2, LOG, 3, T.TileLayout(T.S[(128, COLS):(COLS, 1)])))\n"
    "    bar = pool.alloc((1,), \"uint64\", align=8)\n"
    "    tmem = T.TMEMPool(pool, 32)\n"
    "    t = tmem.alloc((128, COLS), \"float32\")\n"
    "    pool.commit()\n"
    "    tmem.commit()\n"
    "    for w in range(COLS):\n"
    "        S[tid, w] = T.Cast(\"float32\", tid * COLS + w + 1)\n"
    "    if tid == 0:\n"
    "        T.ptx.mbarrier.init.shared__cta.b64(bar.ptr_to([0]), T.uint32(1))\n"
    "        T.cuda.fence_barrier_init()\n"
    "    T.cuda.fence_proxy_async()\n"
    "    T.ptx.tcgen05.fence__before_thread_sync()\n"
    "    T.cuda.cta_sync()\n"
    "    T.ptx.tcgen05.fence__after_thread_sync()\n"
    "    if tid == 0:\n"
    "        Tx.copy_async(t, S)\n"
    "        T.ptx.tcgen05.commit.cta_group__1.mbarrier__arrive__one.shared__cluster.b64(bar.ptr_to([0]))\n"
    "    T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)\n"
    "    T.ptx.tcgen05.fence__after_thread_sync()\n"
    "    r = T.alloc_local((128, COLS), \"float32\", layout=T.wg_local_layout(COLS, 128))\n"
    "    Tx.wg.copy(r, t)\n"
    "    Tx.wg.copy(D, r)\n"
    "    T.ptx.tcgen05.fence__before_thread_sync()\n"
    "    T.cuda.cta_sync()\n"
    "    tmem.dealloc()\n"
    "\n";

static void test_tcgen05_cp_swizzled(void **state)
{
    (void)state;
    static const char *const cols[] = {"8", "16", "32"}, *const logs[] = {"1", "2", "3"};
    tirx_options o = {.arch = "sm_100a", .no_binary = 1};
    for (int i = 0; i < 3; i++) {
        tirx_define defs[] = {{"COLS", cols[i]}, {"LOG", logs[i]}};
        tirx_module *m = NULL;
        if (tirx_compile(SWIZZLED_CP_KERNEL, strlen(SWIZZLED_CP_KERNEL), "swcp.tirx", defs, 2, &o,
                         &m) != TIRX_OK) {
            char *d = tirx_diag_render(m);
            fail_msg("%s", d ? d : "compile failed");
        }
        int n = atoi(cols[i]);
        _Alignas(64) float d[128 * 32];
        memset(d, 0xee, sizeof d);
        Tensor D = tensor(d, 2, 128, n, kDLFloat, 32);
        Tensor *ts[] = {&D};
        tirx_error err;
        if (simulate(m, "f", ts, 1, NULL, 0, &err) != TIRX_OK)
            fail_msg("%d-byte swizzle: %s", 4 * n, err.message);
        for (int r = 0; r < 128; r++)
            for (int w = 0; w < n; w++)
                if (d[r * n + w] != (float)(r * n + w + 1))
                    fail_msg("%d-byte swizzle: D[%d, %d] is %g", 4 * n, r, w, d[r * n + w]);
        tirx_module_free(m);
    }
}

/* Column slices of a 128-row .16x* fragment through copy_async (the nvfp4
 * GEMM's epilogue reads its accumulator so): tensor memory written row by
 * row (.32x32b, lane l column c holding 512 l + c) is read by slices of W
 * columns into the fragment, each thread's registers dumped raw into L; the
 * threads' registers (512 t + r) are stored by the same slices into a second
 * tile, read back row by row into S. */
static const char SLICED_FRAG_KERNEL[] =
    "SHAPE = \"16x256b\"\n"
    "COLS = 64\n"
    "W = 32\n"
    "\n"
    "\n"
    "@T.prim_func\n"
    "def f(L: T.Buffer((128, COLS), \"float32\"), S: T.Buffer((128, COLS), \"float32\")):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    wg = T.warpgroup_id([1])\n"
    "    tid = T.thread_id_in_wg([128])\n"
    "    pool = T.SMEMPool()\n"
    "    tmem = T.TMEMPool(pool, 128)\n"
    "    t = tmem.alloc((128, COLS), \"float32\")\n"
    "    u = tmem.alloc((128, COLS), \"float32\")\n"
    "    pool.commit()\n"
    "    tmem.commit()\n"
    "    row_regs = T.alloc_local((COLS,))\n"
    "    rows = row_regs.view(128, COLS, layout=T.wg_local_layout(COLS))\n"
    "    frag_regs = T.alloc_local((COLS,))\n"
    "    frag = frag_regs.view(128, COLS, layout=T.tcgen05_atom_layout(SHAPE, (128, COLS), \"float32\"))\n"
    "    for j in range(COLS):\n"
    "        row_regs[j] = T.Cast(\"float32\", tid * 512 + j)\n"
    "    T.cuda.cta_sync()\n"
    "    T.ptx.tcgen05.fence__after_thread_sync()\n"
    "    Tx.wg.copy(t, rows)\n"
    "    for c in T.unroll(COLS // W):\n"
    "        Tx.wg.copy_async(frag[:, c * W:c * W + W], t[:, c * W:c * W + W])\n"
    "    T.ptx.tcgen05.wait__ld.sync.aligned()\n"
    "    for j in range(COLS):\n"
    "        L[tid, j] = frag_regs[j]\n"
    "        frag_regs[j] = T.Cast(\"float32\", tid * 512 + j)\n"
    "    for c in T.unroll(COLS // W):\n"
    "        Tx.wg.copy_async(u[:, c * W:c * W + W], frag[:, c * W:c * W + W])\n"
    "    T.ptx.tcgen05.wait__st.sync.aligned()\n"
    "    Tx.wg.copy(rows, u)\n"
    "    for j in range(COLS):\n"
    "        S[tid, j] = row_regs[j]\n"
    "    T.ptx.tcgen05.fence__before_thread_sync()\n"
    "    T.cuda.cta_sync()\n"
    "    tmem.dealloc()\n"
    "\n";

/* The TMEM lane and column of register r of warpgroup thread t in a 128-row
 * fragment of `shape` with `cols` float32 columns (PTX "Matrix fragments for
 * tcgen05.ld/st"): warp w's lanes 32 w on, the first 16-row block in its
 * first cols / 2 registers, the second (16 lanes on) in the rest; within a
 * block, repetition k of the shape is registers per k .. per k + per - 1. */
static void frag_cell(const char *shape, int cols, int t, int r, int *lane, int *col)
{
    int l = t % 32, block = r / (cols / 2), j = r % (cols / 2), row;
    if (!strcmp(shape, "16x64b")) { /* 1 register: rows l / 4 and 8 + l / 4, 2 columns */
        row = l / 4 + 8 * (l % 2), *col = 2 * j + l / 2 % 2;
    } else if (!strcmp(shape, "16x128b")) { /* 2 registers: row + 8, 4 columns */
        row = l / 4 + 8 * (j % 2), *col = 4 * (j / 2) + l % 4;
    } else { /* 16x256b, 4 registers: a column pair, then row + 8; 8 columns */
        row = l / 4 + 8 * (j % 4 / 2), *col = 8 * (j / 4) + 2 * (l % 4) + j % 2;
    }
    *lane = 32 * (t / 32) + 16 * block + row;
}

static void test_tcgen05_sliced_fragment(void **state)
{
    (void)state;
    static const char *const shapes[] = {"\"16x64b\"", "\"16x128b\"", "\"16x256b\""};
    static const char *const cols[] = {"8", "16", "64"}, *const widths[] = {"4", "8", "32"};
    tirx_options o = {.arch = "sm_100a", .no_binary = 1};
    for (int i = 0; i < 3; i++) {
        tirx_define defs[] = {{"SHAPE", shapes[i]}, {"COLS", cols[i]}, {"W", widths[i]}};
        tirx_module *m = NULL;
        if (tirx_compile(SLICED_FRAG_KERNEL, strlen(SLICED_FRAG_KERNEL), "frag.tirx", defs, 3, &o,
                         &m) != TIRX_OK) {
            char *d = tirx_diag_render(m);
            fail_msg("%s", d ? d : "compile failed");
        }
        int n = atoi(cols[i]);
        char shape[16];
        snprintf(shape, sizeof shape, "%.*s", (int)strlen(shapes[i]) - 2, shapes[i] + 1);
        static _Alignas(64) float l[128 * 64], s[128 * 64];
        memset(l, 0xee, sizeof l);
        memset(s, 0xee, sizeof s);
        Tensor L = tensor(l, 2, 128, n, kDLFloat, 32), S = tensor(s, 2, 128, n, kDLFloat, 32);
        Tensor *ts[] = {&L, &S};
        tirx_error err;
        if (simulate(m, "f", ts, 2, NULL, 0, &err) != TIRX_OK)
            fail_msg("%s: %s", shape, err.message);
        for (int t = 0; t < 128; t++)
            for (int r = 0; r < n; r++) {
                int lane, col;
                frag_cell(shape, n, t, r, &lane, &col);
                if (l[t * n + r] != (float)(lane * 512 + col))
                    fail_msg("%s: thread %d's register %d read %g, not lane %d column %d", shape,
                             t, r, l[t * n + r], lane, col);
                if (s[lane * n + col] != (float)(t * 512 + r))
                    fail_msg("%s: lane %d column %d holds %g, not thread %d's register %d", shape,
                             lane, col, s[lane * n + col], t, r);
            }
        tirx_module_free(m);
    }
}

/* The .b8x16 expansion of 16 shared bytes, on the host: the first 12 (8)
 * bytes as a little-endian number whose 6-bit (4-bit) digits are the 16
 * values, value i in byte i of the result, a 4-bit one two bits up. */
static void expand16(const uint8_t *in, int bits, uint8_t *out)
{
    uint64_t lo = 0, hi = 0;
    for (int b = 0; b < 8; b++)
        lo |= (uint64_t)in[b] << (8 * b);
    for (int b = 8; b < 2 * bits; b++)
        hi |= (uint64_t)in[b] << (8 * (b - 8));
    for (int i = 0; i < 16; i++) {
        int at = i * bits;
        uint64_t v = at >= 64 ? hi >> (at - 64) : lo >> at | (at > 64 - bits ? hi << (64 - at) : 0);
        out[i] = (uint8_t)((v & ((1u << bits) - 1)) << (6 - bits));
    }
}

/* tcgen05.cp decompression (tests/build/tcgen05_cp_decompress.tirx): random
 * bytes, padding included, in a float6_e2m3fn_align16 and a
 * float4_e2m1fn_align16 shared tile, copied by copy_async into tensor memory
 * and read back with tcgen05.ld: every word is the host expansion of its 16
 * bytes, the padding unread. */
static void test_tcgen05_cp_decompress(void **state)
{
    (void)state;
    size_t len;
    char *text = read_file(TIRX_SOURCE_DIR "/tests/build/tcgen05_cp_decompress.tirx", &len);
    tirx_options o = {.arch = "sm_100a", .no_binary = 1};
    tirx_module *m = NULL;
    if (tirx_compile(text, len, "tcgen05_cp_decompress.tirx", NULL, 0, &o, &m) != TIRX_OK) {
        char *d = tirx_diag_render(m);
        fail_msg("%s", d ? d : "compile failed");
    }
    free(text);
    unsigned seed = 7;
    _Alignas(64) uint8_t in6[128 * 16], in4[128 * 32];
    for (size_t i = 0; i < sizeof in6; i++)
        in6[i] = (uint8_t)rand_r(&seed);
    for (size_t i = 0; i < sizeof in4; i++)
        in4[i] = (uint8_t)rand_r(&seed);
    _Alignas(64) uint32_t d6[128 * 4], d4[128 * 8];
    memset(d6, 0xee, sizeof d6);
    memset(d4, 0xee, sizeof d4);
    Tensor I6 = tensor(in6, 2, 128, 16, kDLUInt, 8), I4 = tensor(in4, 2, 128, 32, kDLUInt, 8);
    Tensor D6 = tensor(d6, 2, 128, 4, kDLUInt, 32), D4 = tensor(d4, 2, 128, 8, kDLUInt, 32);
    Tensor *ts[] = {&I6, &I4, &D6, &D4};
    tirx_error err;
    if (simulate(m, "cp_decompress", ts, 4, NULL, 0, &err) != TIRX_OK)
        fail_msg("%s", err.message);
    for (int r = 0; r < 128; r++) {
        uint8_t w6[16], w4[32];
        expand16(in6 + 16 * r, 6, w6);
        expand16(in4 + 32 * r, 4, w4);
        expand16(in4 + 32 * r + 16, 4, w4 + 16);
        for (int w = 0; w < 4; w++)
            if (d6[r * 4 + w] != ((uint32_t)w6[4 * w] | (uint32_t)w6[4 * w + 1] << 8 |
                                  (uint32_t)w6[4 * w + 2] << 16 | (uint32_t)w6[4 * w + 3] << 24))
                fail_msg("fp6: lane %d word %d is 0x%08x", r, w, d6[r * 4 + w]);
        for (int w = 0; w < 8; w++)
            if (d4[r * 8 + w] != ((uint32_t)w4[4 * w] | (uint32_t)w4[4 * w + 1] << 8 |
                                  (uint32_t)w4[4 * w + 2] << 16 | (uint32_t)w4[4 * w + 3] << 24))
                fail_msg("fp4: lane %d word %d is 0x%08x", r, w, d4[r * 8 + w]);
    }
    tirx_module_free(m);
}

/* Element loads and stores of the sub-byte floats: packed fp4 / fp6 in
 * global memory (element i at bit 4i / 6i), the _align16 forms in shared
 * memory (16 elements to each 16 bytes), one thread writing where threads
 * would share a byte. */
static const char SUBBYTE_KERNEL[] =
    "@T.prim_func\n"
    "def f(Q: T.Buffer((64,), \"float4_e2m1fn\"), S: T.Buffer((64,), \"float6_e2m3fn\"), "
    "R: T.Buffer((64,), \"float6_e3m2fn\"), X: T.Buffer((64,), \"float32\"), "
    "P: T.Buffer((64,), \"float6_e2m3fn\"), Y: T.Buffer((4, 64), \"float32\")):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([64])\n"
    "    G = T.alloc_buffer((64,), \"float6_e3m2fn_align16\", scope=\"shared\")\n"
    "    H = T.alloc_buffer((64,), \"float4_e2m1fn_align16\", scope=\"shared\")\n"
    "    if tx == 0:\n"
    "        for i in range(64):\n"
    "            G[i] = T.Cast(\"float6_e3m2fn_align16\", R[i])\n"
    "            H[i] = T.Cast(\"float4_e2m1fn_align16\", Q[i])\n"
    "            P[i] = T.Cast(\"float6_e2m3fn\", X[i])\n"
    "    T.cuda.cta_sync()\n"
    "    Y[0, tx] = T.Cast(\"float32\", Q[tx])\n"
    "    Y[1, tx] = T.Cast(\"float32\", S[tx])\n"
    "    Y[2, tx] = T.Cast(\"float32\", G[tx])\n"
    "    Y[3, tx] = T.Cast(\"float32\", H[63 - tx])\n";

/* Code i of n-bit codes packed from the low bits of p up. */
static uint32_t packed_code(const uint8_t *p, int n, int i)
{
    int bit = n * i;
    uint32_t w = p[bit / 8] | (bit % 8 + n > 8 ? (uint32_t)p[bit / 8 + 1] << 8 : 0u);
    return w >> (bit % 8) & ((1u << n) - 1);
}

static void test_subbyte_access(void **state)
{
    (void)state;
    tirx_module *m = compile_text(SUBBYTE_KERNEL, strlen(SUBBYTE_KERNEL), "q.tirx", NULL, 0);
    _Alignas(64) uint8_t q[32], sv[48], r[48], pv[48];
    _Alignas(64) float x[64], y[4 * 64];
    srand(7);
    for (int i = 0; i < 48; i++)
        sv[i] = (uint8_t)rand(), r[i] = (uint8_t)rand(), q[i % 32] = (uint8_t)rand();
    for (int i = 0; i < 64; i++)
        x[i] = (float)(rand() % 2001 - 1000) / 128.0f;
    memset(pv, 0, sizeof pv);
    memset(y, 0xee, sizeof y);
    Tensor Q = tensor(q, 1, 64, 0, kDLFloat4_e2m1fn, 4);
    Tensor S = tensor(sv, 1, 64, 0, kDLFloat6_e2m3fn, 6), R = tensor(r, 1, 64, 0, kDLFloat6_e3m2fn, 6);
    Tensor X = tensor(x, 1, 64, 0, kDLFloat, 32), P = tensor(pv, 1, 64, 0, kDLFloat6_e2m3fn, 6);
    Tensor Y = tensor(y, 2, 4, 64, kDLFloat, 32);
    Tensor *ts[] = {&Q, &S, &R, &X, &P, &Y};
    tirx_error err;
    if (simulate(m, "f", ts, 6, NULL, 0, &err) != TIRX_OK)
        fail_msg("%s", err.message);
    IrDType e2m1 = {IR_DT_F4E2M1FN, 4, 1}, e2m3 = {IR_DT_F6E2M3FN, 6, 1};
    IrDType e3m2 = {IR_DT_F6E3M2FN, 6, 1};
    for (int i = 0; i < 64; i++) {
        double want[4] = {sim_from_bits(e2m1, packed_code(q, 4, i)).f,
                          sim_from_bits(e2m3, packed_code(sv, 6, i)).f,
                          sim_from_bits(e3m2, packed_code(r, 6, i)).f,
                          sim_from_bits(e2m1, packed_code(q, 4, 63 - i)).f};
        for (int k = 0; k < 4; k++)
            if (y[k * 64 + i] != (float)want[k])
                fail_msg("Y[%d, %d] is %g, not %g", k, i, y[k * 64 + i], want[k]);
        uint32_t code = packed_code(pv, 6, i);
        if (code != (uint32_t)sim_to_bits(e2m3, (SimVal){.f = sim_round(e2m3, x[i])}))
            fail_msg("P[%d] holds code %u for %g", i, code, x[i]);
    }
    tirx_module_free(m);
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
    /* a NaN's sign and payload survive a decode and an encode (a copy is bit-exact) */
    const uint64_t nans16[] = {0x7c01, 0xfe3f, 0x7fff, 0x7d00};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(sim_to_bits(IR_FLOAT16, sim_from_bits(IR_FLOAT16, nans16[i])), nans16[i]);
        assert_int_equal(sim_to_bits(IR_BFLOAT16, sim_from_bits(IR_BFLOAT16, nans16[i] | 0x80)),
                         nans16[i] | 0x80);
    }
    assert_int_equal(sim_to_bits(IR_FLOAT32, sim_from_bits(IR_FLOAT32, 0xff800001)), 0xff800001);
    assert_int_equal(sim_to_bits(e5m2, sim_from_bits(e5m2, 0xfd)), 0xfd);
    assert_int_equal(sim_convert(IR_FLOAT32, IR_INT32, (SimVal){.f = 3e10}).i, INT32_MAX);
    assert_int_equal(sim_convert(IR_FLOAT32, IR_UINT8, (SimVal){.f = -3}).i, 0);
    /* int64 and uint64 at and past their ends: saturated, never C's undefined cast */
    assert_int_equal(sim_convert(IR_FLOAT64, IR_INT64, (SimVal){.f = 0x1p63}).i, INT64_MAX);
    assert_int_equal(sim_convert(IR_FLOAT64, IR_INT64, (SimVal){.f = -0x1p63}).i, INT64_MIN);
    assert_int_equal(sim_convert(IR_FLOAT64, IR_INT64, (SimVal){.f = -1e300}).i, INT64_MIN);
    assert_int_equal((uint64_t)sim_convert(IR_FLOAT64, IR_UINT64, (SimVal){.f = 0x1.8p63}).i,
                     0xc000000000000000u);
    assert_int_equal((uint64_t)sim_convert(IR_FLOAT64, IR_UINT64, (SimVal){.f = 0x1p64}).i,
                     UINT64_MAX);
    assert_int_equal(sim_convert(IR_FLOAT32, IR_INT32, (SimVal){.f = NAN}).i, 0);
    assert_int_equal(sim_convert(IR_FLOAT32, IR_INT16, (SimVal){.f = -40000.7}).i, INT16_MIN);
}

static bool is_nan32(uint32_t u) { return (u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffff); }

/* The bfloat16 bits of float bits u (not a NaN), rounded to nearest even,
 * independent of the simulator's encoder. */
static uint16_t bf16_rne(uint32_t u) { return (uint16_t)((u + 0x7fffu + (u >> 16 & 1)) >> 16); }

/* Whether half h of a pair is the conversion of u: bit for bit, or a NaN of
 * u's sign for a NaN. */
static bool bf16_half_ok(uint16_t h, uint32_t u)
{
    if (is_nan32(u))
        return (h & 0x7f80) == 0x7f80 && (h & 0x7f) && (h >> 15) == (u >> 31);
    return h == bf16_rne(u);
}

/* T.cuda.float22bfloat162_rn(x, y): x to the low half, y to the high one,
 * each rounded to nearest even, bit for bit: ties both ways, signed zeros,
 * float32 subnormals, the largest float32 (to infinity), infinities and
 * random floats of every exponent; a NaN gives a NaN of its sign. */
static void test_bfloat16_pair(void **state)
{
    (void)state;
    const char *src = "@T.prim_func\n"
                      "def f(X: T.Buffer((256,), \"float32\"), U: T.Buffer((128,), \"uint32\")):\n"
                      "    T.device_entry()\n"
                      "    bx = T.cta_id([1])\n"
                      "    tx = T.thread_id([128])\n"
                      "    U[tx] = T.cuda.float22bfloat162_rn(X[tx * 2], X[tx * 2 + 1])\n";
    tirx_module *m = compile_text(src, strlen(src), "pair.tirx", NULL, 0);
    static const uint32_t special[] = {
        0x3f808000, 0x3f818000, 0x3f808001, 0xbf818000, 0x00000000, 0x80000000,
        0x00008000, 0x00018000, 0x007fffff, 0x80000001, 0x7f7fffff, 0xff7f8000,
        0x7f7f7fff, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001,
        0x40490fdb, 0xc02df854};
    const size_t nspecial = sizeof special / sizeof special[0];
    _Alignas(64) uint32_t x[256];
    _Alignas(64) uint32_t u[128];
    unsigned seed = 11;
    for (size_t i = 0; i < 256; i++)
        x[i] = i < nspecial ? special[i] : (uint32_t)rand_r(&seed) << 16 ^ (uint32_t)rand_r(&seed);
    memset(u, 0xee, sizeof u);
    Tensor X = tensor(x, 1, 256, 0, kDLFloat, 32), U = tensor(u, 1, 128, 0, kDLUInt, 32);
    Tensor *ts[] = {&X, &U};
    tirx_error err;
    if (simulate(m, "f", ts, 2, NULL, 0, &err) != TIRX_OK)
        fail_msg("%s", err.message);
    for (int i = 0; i < 128; i++)
        if (!bf16_half_ok((uint16_t)u[i], x[2 * i]) || !bf16_half_ok((uint16_t)(u[i] >> 16), x[2 * i + 1]))
            fail_msg("pair %d (0x%08x, 0x%08x) converts to 0x%08x", i, x[2 * i], x[2 * i + 1], u[i]);
    tirx_module_free(m);
}

/* The special registers of a launch's shape (%ntid, %nctaid, %nsmid: a CTA
 * per SM, %nwarpid 64), the lane masks, and T.cuda.smem_addr_from_uint64:
 * the low 32 bits of its operand (the GPU's shared window is 2^32 aligned),
 * so of a generic shared address its shared-window address, the same as
 * cvta_generic_to_shared gives; bfloat16 hmin2 / hmax2 with a NaN operand
 * (the other one) and signed zeros (the second operand, as the PTX ISA's
 * a < b ? a : b). */
static void test_special_registers(void **state)
{
    (void)state;
    const char *src =
        "@T.prim_func\n"
        "def f(R: T.Buffer((288, 12), \"uint32\"), P: T.Buffer((4,), \"uint32\")):\n"
        "    T.device_entry()\n"
        "    bx = T.cta_id([3])\n"
        "    tx = T.thread_id([96])\n"
        "    S = T.alloc_shared((96,), \"uint32\")\n"
        "    r: T.let = bx * 96 + tx\n"
        "    R[r, 0] = T.cuda.mov_sreg(32, \"%ntid.x\")\n"
        "    R[r, 1] = T.cuda.mov_sreg(32, \"%nctaid.x\")\n"
        "    R[r, 2] = T.cuda.mov_sreg(32, \"%nsmid\")\n"
        "    R[r, 3] = T.cuda.mov_sreg(32, \"%nwarpid\")\n"
        "    R[r, 4] = T.cuda.mov_sreg(32, \"%lanemask_eq\")\n"
        "    R[r, 5] = T.cuda.mov_sreg(32, \"%lanemask_le\")\n"
        "    R[r, 6] = T.cuda.mov_sreg(32, \"%lanemask_lt\")\n"
        "    R[r, 7] = T.cuda.mov_sreg(32, \"%lanemask_ge\")\n"
        "    R[r, 8] = T.cuda.mov_sreg(32, \"%lanemask_gt\")\n"
        "    R[r, 9] = T.cuda.smem_addr_from_uint64(T.reinterpret(\"uint64\", T.address_of(S[tx])))\n"
        "    R[r, 10] = T.cuda.cvta_generic_to_shared(T.address_of(S[tx]))\n"
        "    R[r, 11] = T.cuda.smem_addr_from_uint64(T.uint64(0x123456789abcdef0))\n"
        "    if r == 0:\n"
        "        P[0] = T.cuda.hmin2(T.uint32(0x7fc03f80), T.uint32(0x80004000))\n"
        "        P[1] = T.cuda.hmax2(T.uint32(0x7fc03f80), T.uint32(0x80004000))\n"
        "        P[2] = T.cuda.hmin2(T.uint32(0x00008000), T.uint32(0x80000000))\n"
        "        P[3] = T.cuda.hmax2(T.uint32(0x7fc18000), T.uint32(0xffc07fc0))\n";
    tirx_module *m = compile_text(src, strlen(src), "sregs.tirx", NULL, 0);
    static _Alignas(64) uint32_t out[288 * 12];
    _Alignas(64) uint32_t pairs[4];
    Tensor R = tensor(out, 2, 288, 12, kDLUInt, 32), P = tensor(pairs, 1, 4, 0, kDLUInt, 32);
    Tensor *ts[] = {&R, &P};
    tirx_error err;
    if (simulate(m, "f", ts, 2, NULL, 0, &err) != TIRX_OK)
        fail_msg("%s", err.message);
    for (int r = 0; r < 288; r++) {
        const uint32_t *o = &out[r * 12];
        uint32_t at = 1u << (r % 96 % 32);
        uint32_t want[12] = {96, 3, 3, 64, at, at | (at - 1), at - 1, ~(at - 1), ~(at | (at - 1)),
                             o[10], o[10], 0x9abcdef0u};
        for (int k = 0; k < 12; k++)
            if (o[k] != want[k])
                fail_msg("thread %d, value %d: 0x%08x, expected 0x%08x", r, k, o[k], want[k]);
    }
    /* a NaN half gives the other; of equal values (-0, +0) the second; two
     * NaNs the canonical NaN */
    assert_int_equal(pairs[0], 0x80003f80u);
    assert_int_equal(pairs[1], 0x80004000u);
    assert_int_equal(pairs[2], 0x80000000u);
    assert_int_equal(pairs[3], 0x7fff8000u);
    tirx_module_free(m);
}

/* ---------------------------------------------------------------- scalar semantics */

/* Runs f(Y, params...) of one thread whose body (statements indented by four
 * spaces) stores int64 results in Y[0..8); Y starts as -777 each. */
static tirx_status run_scalars(const char *params, const char *body, const tirx_arg *scalars,
                               int n, int64_t y[8], tirx_error *err)
{
    char src[2048];
    snprintf(src, sizeof src,
             "@T.prim_func\n"
             "def f(Y: T.Buffer((8,), \"int64\"), %s):\n"
             "    T.device_entry()\n"
             "    bx = T.cta_id([1])\n"
             "    tx = T.thread_id([1])\n%s",
             params, body);
    tirx_module *m = compile_text(src, strlen(src), "scalar.tirx", NULL, 0);
    static _Alignas(64) int64_t out[8];
    for (int i = 0; i < 8; i++)
        out[i] = -777;
    Tensor Y = tensor(out, 1, 8, 0, kDLInt, 64);
    Y.t.shape = Y.shape;
    tirx_arg args[8] = {tirx_arg_tensor((const struct DLTensor *)&Y.t)};
    for (int i = 0; i < n; i++)
        args[1 + i] = scalars[i];
    memset(err, 0, sizeof *err);
    tirx_status st = tirx_simulate(m, "f", args, (size_t)(1 + n), err);
    memcpy(y, out, sizeof out);
    tirx_module_free(m);
    return st;
}

static void expect_scalars(const char *params, const char *body, const tirx_arg *scalars, int n,
                           const int64_t *want, int nwant)
{
    int64_t y[8];
    tirx_error err;
    if (run_scalars(params, body, scalars, n, y, &err) != TIRX_OK)
        fail_msg("%s", err.message);
    for (int i = 0; i < nwant; i++)
        if (y[i] != want[i])
            fail_msg("Y[%d] = %lld (0x%llx), expected %lld (0x%llx)", i, (long long)y[i],
                     (unsigned long long)y[i], (long long)want[i], (unsigned long long)want[i]);
}

/* T.ldexp's exponent is an integer: it scales by 2^n (it was read as the
 * bits of a double, so the value came back unscaled). */
static void test_ldexp(void **state)
{
    (void)state;
    const tirx_arg a[] = {tirx_arg_float(1.5), tirx_arg_int(3)};
    const int64_t want[] = {12, 6};
    expect_scalars("x: T.float32, n: T.int32",
                   "    Y[0] = T.int64(T.ldexp(x, n))\n"
                   "    Y[1] = T.int64(T.ldexp(T.float16(x) * T.float16(2), n - 2))\n",
                   a, 2, want, 2);
}

/* A float cast to bool is x != 0, as C++'s (bool)x on the device: 0.5 and NaN
 * are true (they were truncated to 0 first). */
static void test_float_to_bool(void **state)
{
    (void)state;
    const char *body = "    Y[0] = T.int64(T.bool(x))\n"
                       "    Y[1] = T.int64(T.bool(T.float16(x)))\n"
                       "    Y[2] = T.int64(T.bool(T.float64(x)))\n";
    const double xs[] = {0.5, -0.25, NAN, 0.0, -0.0, 3.0};
    for (int i = 0; i < 6; i++) {
        const tirx_arg a[] = {tirx_arg_float(xs[i])};
        int64_t b = xs[i] != 0;
        const int64_t want[] = {b, b, b};
        expect_scalars("x: T.float32", body, a, 1, want, 3);
    }
}

/* Integer and float64 casts to floats as the device rounds them: an int64 or
 * uint64 to float32 once (cvt.rn.f32.s64; through double it rounded twice and
 * lost the bits past 53), and to a float narrower than float32 through float32,
 * as the generated half((float)x) does. */
static void test_cast_rounding(void **state)
{
    (void)state;
    const char *body =
        "    Y[0] = T.int64(T.reinterpret(\"int32\", T.float32(i)))\n"
        "    Y[1] = T.int64(T.reinterpret(\"int32\", T.float32(u)))\n"
        "    Y[2] = T.int64(T.reinterpret(\"int16\", T.bfloat16(n)))\n"
        "    Y[3] = T.int64(T.reinterpret(\"int16\", T.float16(d)))\n"
        "    Y[4] = T.int64(T.reinterpret(\"int64\", T.float64(i)))\n";
    /* 2^62 + 2^38 + 1 is past float32's tie at 2^62 + 2^38; 2^24 + 2^16 + 1 is a
     * tie in float32 (to 2^24 + 2^16), then one in bfloat16 (to 2^24); 1 +
     * 2^-11 + 2^-40 is 1 + 2^-11 in float32, a tie in float16 (to 1) */
    const tirx_arg a[] = {tirx_arg_int((1ll << 62) + (1ll << 38) + 1),
                          tirx_arg_int((long long)((1ull << 63) + (1ull << 39) + 1)),
                          tirx_arg_int((1 << 24) + (1 << 16) + 1),
                          tirx_arg_float(1 + 0x1p-11 + 0x1p-40)};
    double i64 = (double)((1ll << 62) + (1ll << 38) + 1);
    int64_t bits64;
    memcpy(&bits64, &i64, 8);
    const int64_t want[] = {0x5e800001, 0x5f000001, 0x4b80, 0x3c00, bits64};
    expect_scalars("i: T.int64, u: T.uint64, n: T.int32, d: T.float64", body, a, 4, want, 5);
}

/* Float floor division and floor modulo as the generated CUDA computes them:
 * floorf(a / b) of the float32 quotient (the simulator floored the exact one),
 * the modulo a - q * b contracted to one fma (NVRTC's default --fmad=true). */
static void test_float_floordiv(void **state)
{
    (void)state;
    /* 55307 / 1.00065136 is just below 55271 and rounds to it in float32 */
    float x = 55307, z = 1.00065136f, q = floorf(x / z);
    const tirx_arg a[] = {tirx_arg_float(x), tirx_arg_float(z)};
    float r = fmaf(-q, z, x);
    int32_t rbits;
    memcpy(&rbits, &r, 4);
    const int64_t want[] = {55271, rbits, 55269};
    expect_scalars("x: T.float32, z: T.float32",
                   "    Y[0] = T.int64(x // z)\n"
                   "    Y[1] = T.int64(T.reinterpret(\"int32\", x % z))\n"
                   "    Y[2] = T.int64(T.float64(x) // T.float64(z) - T.float64(1))\n",
                   a, 2, want, 3);
}

/* The least int32 or int64 divided by -1 overflows, undefined in the
 * generated C++ (and in PTX's div.s32): an error, not an invented value; an
 * int16 is promoted to int on the device and wraps. */
static void test_division_overflow(void **state)
{
    (void)state;
    const char *ops[] = {"//", "%", "T.truncdiv", "T.truncmod"};
    for (int i = 0; i < 4; i++) {
        for (int w = 32; w <= 64; w += 32) {
            char body[160];
            snprintf(body, sizeof body,
                     i < 2 ? "    Y[0] = T.int64(T.int%d(x) %s T.int%d(y))\n"
                           : "    Y[0] = T.int64(%2$s(T.int%1$d(x), T.int%3$d(y)))\n",
                     w, ops[i], w);
            const tirx_arg a[] = {tirx_arg_int(w == 32 ? INT32_MIN : INT64_MIN), tirx_arg_int(-1)};
            int64_t y[8];
            tirx_error err;
            assert_int_equal(run_scalars("x: T.int64, y: T.int64", body, a, 2, y, &err),
                             TIRX_ERR_USAGE);
            if (!strstr(err.message, "integer division overflow"))
                fail_msg("%s: %s", body, err.message);
        }
    }
    const tirx_arg a[] = {tirx_arg_int(INT16_MIN), tirx_arg_int(-1)};
    const int64_t want[] = {INT16_MIN, 0};
    expect_scalars("x: T.int16, y: T.int16",
                   "    Y[0] = T.int64(x // y)\n    Y[1] = T.int64(x % y)\n", a, 2, want, 2);
}

/* A shift count that is negative or not below the promoted width is
 * undefined in the generated C++ (and was a negative shift in the simulator's
 * own C): an error; int8 shifted by 8 to 31 is defined (promoted to int). */
static void test_shift_count(void **state)
{
    (void)state;
    const char *ops[] = {"T.shift_left", "T.shift_right"};
    const long long counts[] = {-1, 32, 64};
    for (int i = 0; i < 2; i++) {
        for (int k = 0; k < 3; k++) {
            char body[160];
            snprintf(body, sizeof body, "    Y[0] = T.int64(%s(T.int%d(x), T.int32(n)))\n", ops[i],
                     k == 2 ? 64 : 32);
            const tirx_arg a[] = {tirx_arg_int(-5), tirx_arg_int(counts[k])};
            int64_t y[8];
            tirx_error err;
            assert_int_equal(run_scalars("x: T.int64, n: T.int32", body, a, 2, y, &err),
                             TIRX_ERR_USAGE);
            if (!strstr(err.message, "shift count"))
                fail_msg("%s: %s", body, err.message);
        }
    }
    const tirx_arg a[] = {tirx_arg_int(-5), tirx_arg_int(9)};
    const int64_t want[] = {0, -1, -5 * 512};
    expect_scalars("x: T.int8, n: T.int8",
                   "    Y[0] = T.int64(T.shift_left(x, n))\n"
                   "    Y[1] = T.int64(T.shift_right(x, n))\n"
                   "    Y[2] = T.int64(T.shift_left(T.int32(x), T.int32(n)))\n",
                   a, 2, want, 3);
}

/* ---------------------------------------------------------------- tile schedulers */

/* The tile (row, column) of work index w in each scheduler's order, as its
 * documentation (docs/language.md) states it; false past the end. */
typedef bool (*TileOrder)(int64_t w, const int64_t *p, int *row, int *col);

/* p: tile rows, tile columns, S, cluster_m; the blocks, the strip right of
 * them, the strip below them */
static bool serpentine_order(int64_t w, const int64_t *p, int *row, int *col)
{
    int64_t cm = p[3], rows = (p[0] + cm - 1) / cm, cols = p[1], S = p[2];
    int64_t mb = rows / S, nb = cols / S, rn = cols - nb * S, rm = rows - mb * S;
    int64_t t = w / cm, r, c;
    if (w >= rows * cols * cm)
        return false;
    if (t < mb * nb * S * S) {
        int64_t block = t / (S * S), in = t % (S * S), bc = block / mb, br = block % mb;
        r = (bc % 2 ? mb - 1 - br : br) * S + in / S, c = bc * S + in % S;
    } else if ((t -= mb * nb * S * S) < rows * rn) {
        r = t / rn, c = nb * S + t % rn;
    } else {
        t -= rows * rn;
        r = mb * S + t % rm, c = t / rm;
    }
    *row = (int)(r * cm + w % cm), *col = (int)c;
    return true;
}

/* p: m, n, k, group rows; V's column is n * k + k_idx */
static bool group_major_3d_order(int64_t w, const int64_t *p, int *row, int *col)
{
    int64_t m = p[0], N = p[1], K = p[2], G = p[3], groups = m / G, size = G * N * K;
    int64_t final = m - groups * G, r, n, k;
    if (w >= m * N * K)
        return false;
    if (w < groups * size) {
        r = w / size * G + w % G, n = w / G % N, k = w % size / (G * N);
    } else {
        int64_t rem = w - groups * size;
        r = groups * G + rem % final, n = rem / final % N, k = rem / (final * N);
    }
    *row = (int)r, *col = (int)(n * K + k);
    return true;
}

/* p: batches, heads, m blocks; V's row is batch * heads + head */
static bool flash_linear_order(int64_t w, const int64_t *p, int *row, int *col)
{
    int64_t H = p[1], MB = p[2];
    if (w >= p[0] * H * MB)
        return false;
    *row = (int)(w / (H * MB) * H + w % (H * MB) / MB), *col = (int)(w % MB);
    return true;
}

/* p: batches, heads, m blocks, l2 swizzle: batch x head in groups of the
 * swizzle (the last one smaller), m blocks last to first */
static bool flash_lpt_order(int64_t w, const int64_t *p, int *row, int *col)
{
    int64_t H = p[1], MB = p[2], swz = p[3], hb = p[0] * H;
    if (w >= hb * MB)
        return false;
    int64_t group = w / (swz * MB), in = w % (swz * MB);
    int64_t width = group < hb / swz ? swz : hb % swz;
    *row = (int)(group * swz + in % width), *col = (int)(MB - 1 - in / width);
    return true;
}

/* Simulate fn with V, W (16 x 8 int32) and the ints; every tile of the order
 * is visited once, by the work index the order gives it, and no other. */
static void expect_order(tirx_module *m, const char *fn, const long long *ints, int nints,
                         TileOrder order, const int64_t *p)
{
    int32_t *v = aligned_alloc(64, 16 * 8 * 4), *w = aligned_alloc(64, 16 * 8 * 4);
    int32_t want_v[16][8] = {{0}}, want_w[16][8] = {{0}};
    memset(v, 0, 16 * 8 * 4), memset(w, 0, 16 * 8 * 4);
    Tensor V = tensor(v, 2, 16, 8, kDLInt, 32), W = tensor(w, 2, 16, 8, kDLInt, 32);
    Tensor *ts[] = {&V, &W};
    int row, col;
    for (int64_t i = 0; order(i, p, &row, &col); i++) {
        assert_true(row < 16 && col < 8);
        want_v[row][col]++, want_w[row][col] = (int32_t)i;
    }
    tirx_error err;
    if (simulate(m, fn, ts, 2, ints, nints, &err) != TIRX_OK)
        fail_msg("%s: %s", fn, err.message);
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 8; c++)
            if (v[r * 8 + c] != want_v[r][c] || (want_v[r][c] && w[r * 8 + c] != want_w[r][c]))
                fail_msg("%s: tile (%d, %d) visited %d times, last by work %d; want %d, %d", fn,
                         r, c, v[r * 8 + c], w[r * 8 + c], want_v[r][c], want_w[r][c]);
    free(v), free(w);
}

static void test_tile_schedulers(void **state)
{
    (void)state;
    tirx_module *m = compile_example("tests/build/tile_schedulers.tirx", NULL, 0);
    /* 10 rows: 2 full block rows and 2 below them; 6 columns: 1 full block
     * column and 2 right of it (the reference never visits the tiles below
     * the blocks then) */
    for (long long rows = 8; rows <= 11; rows++) {
        const int64_t p[] = {rows, 6, 4, 1};
        expect_order(m, "serpentine", &rows, 1, serpentine_order, p);
    }
    expect_order(m, "serpentine_static", NULL, 0, serpentine_order, (int64_t[]){10, 7, 2, 2});
    const long long m_rows[] = {3, 6, 8}; /* no full group; a tail group; none */
    for (int i = 0; i < 3; i++) {
        const int64_t p[] = {m_rows[i], 3, 2, 4};
        expect_order(m, "group_major_3d", &m_rows[i], 1, group_major_3d_order, p);
    }
    expect_order(m, "flash_linear", NULL, 0, flash_linear_order, (int64_t[]){3, 4, 5});
    expect_order(m, "flash_lpt", NULL, 0, flash_lpt_order, (int64_t[]){2, 7, 3, 4});
    expect_order(m, "flash_lpt_persistent", NULL, 0, flash_lpt_order, (int64_t[]){2, 7, 3, 4});

    /* the indexed scheduler: CTA c takes items P[c] .. P[c + 1]; no list is
     * read past its end (the simulator checks every load) */
    int32_t *v = aligned_alloc(64, 16 * 8 * 4), *w = aligned_alloc(64, 16 * 8 * 4);
    int32_t *b = aligned_alloc(64, 64), *h = aligned_alloc(64, 64), *q = aligned_alloc(64, 64);
    int32_t *ptr = aligned_alloc(64, 64);
    memset(v, 0, 16 * 8 * 4), memset(w, 0, 16 * 8 * 4);
    for (int i = 0; i < 8; i++)
        b[i] = i / 4, h[i] = i % 4, q[i] = 7 - i;
    ptr[0] = 0, ptr[1] = 3, ptr[2] = 5, ptr[3] = 8;
    Tensor V = tensor(v, 2, 16, 8, kDLInt, 32), W = tensor(w, 2, 16, 8, kDLInt, 32);
    Tensor B = tensor(b, 1, 8, 0, kDLInt, 32), H = tensor(h, 1, 8, 0, kDLInt, 32);
    Tensor Q = tensor(q, 1, 8, 0, kDLInt, 32), P = tensor(ptr, 1, 4, 0, kDLInt, 32);
    Tensor *ts[] = {&V, &W, &B, &H, &Q, &P};
    tirx_error err;
    if (simulate(m, "indexed", ts, 6, NULL, 0, &err) != TIRX_OK)
        fail_msg("indexed: %s", err.message);
    int visited = 0;
    for (int i = 0; i < 8; i++) {
        int r = b[i] * 4 + h[i], cta = i < 3 ? 0 : i < 5 ? 1 : 2;
        assert_int_equal(v[r * 8 + q[i]], 1);
        assert_int_equal(w[r * 8 + q[i]], i * 10 + cta);
    }
    for (int i = 0; i < 16 * 8; i++)
        visited += v[i];
    assert_int_equal(visited, 8);
    free(v), free(w), free(b), free(h), free(q), free(ptr);
    tirx_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector_add),
        cmocka_unit_test(test_strided_tensor),
        cmocka_unit_test(test_cached_module_refused),
        cmocka_unit_test(test_missing_sync),
        cmocka_unit_test(test_off_by_one),
        cmocka_unit_test(test_uninitialised_shared),
        cmocka_unit_test(test_deadlock),
        cmocka_unit_test(test_kernel_timeout),
        cmocka_unit_test(test_named_barrier_arrive),
        cmocka_unit_test(test_warp_collective_deadlock),
        cmocka_unit_test(test_not_modelled),
        cmocka_unit_test(test_rounding),
        cmocka_unit_test(test_bfloat16_pair),
        cmocka_unit_test(test_special_registers),
        cmocka_unit_test(test_ldexp),
        cmocka_unit_test(test_float_to_bool),
        cmocka_unit_test(test_cast_rounding),
        cmocka_unit_test(test_float_floordiv),
        cmocka_unit_test(test_division_overflow),
        cmocka_unit_test(test_shift_count),
        cmocka_unit_test(test_tile_schedulers),
        cmocka_unit_test(test_tcgen05_planted),
        cmocka_unit_test(test_tcgen05_cp_shapes),
        cmocka_unit_test(test_tcgen05_alloc_not_freed),
        cmocka_unit_test(test_subbyte_access),
        cmocka_unit_test(test_tcgen05_cp_swizzled),
        cmocka_unit_test(test_tcgen05_sliced_fragment),
        cmocka_unit_test(test_tcgen05_cp_decompress),
        cmocka_unit_test(test_wrong_expect_tx),
        cmocka_unit_test(test_tma_read_before_wait),
        cmocka_unit_test(test_tma_store_source_rewritten),
        cmocka_unit_test(test_cp_async_without_wait),
        cmocka_unit_test(test_wgmma_before_wait_group),
        cmocka_unit_test(test_missing_proxy_fence),
        cmocka_unit_test(test_global_overlap),
        cmocka_unit_test(test_global_cross_cta_read),
        cmocka_unit_test(test_wgmma_wait_wrong_group),
        cmocka_unit_test(test_wgmma_rs_reissue),
        cmocka_unit_test(test_ordering_races),
        cmocka_unit_test(test_modelled_clock),
        cmocka_unit_test(test_dsmem_race),
        cmocka_unit_test(test_multicast_race),
        cmocka_unit_test(test_gather4_fp8),
        cmocka_unit_test(test_src_selector),
        cmocka_unit_test(test_prmt_bf16x2),
        cmocka_unit_test(test_narrow_float_scalars),
        cmocka_unit_test(test_math_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
