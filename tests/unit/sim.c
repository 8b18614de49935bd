/* The simulator (tirx_simulate) without a GPU or a CUDA toolkit:
 * examples/vector_add.tirx on a ragged last CTA, exactly; planted bugs (a
 * missing barrier, an off-by-one shared index, uninitialised shared memory,
 * a warp collective or barrier some threads never reach, a wrong mbarrier
 * expect-tx count) are errors naming the .tirx line, the thread and the CTA;
 * an operation the simulator does not model is an error saying so; the
 * dtypes' rounding and NaN bits. The kernels of the GPU tests run in the
 * simulator as the sim.* tests (tests/gpu, OP_SIM). */
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
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector_add),
        cmocka_unit_test(test_missing_sync),
        cmocka_unit_test(test_off_by_one),
        cmocka_unit_test(test_uninitialised_shared),
        cmocka_unit_test(test_deadlock),
        cmocka_unit_test(test_warp_collective_deadlock),
        cmocka_unit_test(test_not_modelled),
        cmocka_unit_test(test_rounding),
        cmocka_unit_test(test_wrong_expect_tx),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
