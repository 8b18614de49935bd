/* Unit tests of tirx_compile without a GPU: generation is deterministic and
 * thread-safe; with NVRTC, a second compile is a cache hit whose host part
 * (parsed back from the cache) and sources equal the first's, also when
 * several threads compile at once; usage and input errors are statuses with
 * diagnostics; extra NVRTC options ($TIRX_NVRTC_EXTRA_OPTS, then
 * options.nvrtc_options) reach NVRTC and the cache key; tirx_check_args checks
 * a launch's arguments on host memory, without a GPU; a text over the input
 * size limit is refused; imports of .tirx files are found in the importing
 * file's directory and the import directories, a text without a path has no
 * directory, and the cache key hashes the imported files' contents;
 * tirx_layout_describe refuses every index of a shape too large to print. */
#include <pthread.h>
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
#include "runtime/runtime.h"
#include "tirx.h"

static const char source[] =
    "@T.prim_func\n"
    "def vadd(A: T.Buffer((\"n\",), \"float32\"), B: T.Buffer((n,), \"float32\"),\n"
    "         C: T.Buffer((n,), \"float32\")):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([T.ceildiv(n, 128)])\n"
    "    tx = T.thread_id([128])\n"
    "    if bx * 128 + tx < n:\n"
    "        C[bx * 128 + tx] = A[bx * 128 + tx] + B[bx * 128 + tx]\n";

typedef struct Job {
    tirx_options o;
    tirx_status status;
    char *cuda, *host;
    int cached;
} Job;

static void *compile_job(void *arg)
{
    Job *j = arg;
    tirx_module *m;
    j->status = tirx_compile(source, sizeof source - 1, "vadd.tirx", NULL, 0, &j->o, &m);
    j->cuda = tirx_module_cuda(m) ? strdup(tirx_module_cuda(m)) : NULL;
    j->host = tirx_module_host(m);
    j->cached = tirx_module_cached(m);
    tirx_module_free(m);
    return NULL;
}

/* Compiles in n threads at once; every result must equal the first. */
static void compile_in_threads(const tirx_options *o, int n, Job *out)
{
    pthread_t t[8];
    for (int i = 0; i < n; i++) {
        out[i] = (Job){.o = *o};
        assert_int_equal(pthread_create(&t[i], NULL, compile_job, &out[i]), 0);
    }
    for (int i = 0; i < n; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(out[i].status, TIRX_OK);
        assert_non_null(out[i].cuda);
        assert_non_null(out[i].host);
        assert_string_equal(out[i].cuda, out[0].cuda);
        assert_string_equal(out[i].host, out[0].host);
    }
}

static void free_jobs(Job *j, int n)
{
    for (int i = 0; i < n; i++) {
        free(j[i].cuda);
        tirx_free(j[i].host);
    }
}

static void test_generate_in_threads(void **state)
{
    (void)state;
    tirx_options o = {.arch = "sm_90a", .no_binary = 1};
    Job jobs[8];
    compile_in_threads(&o, 8, jobs);
    assert_non_null(strstr(jobs[0].cuda, "vadd_kernel"));
    assert_non_null(strstr(jobs[0].host, "T.call_packed(\"vadd_kernel\""));
    free_jobs(jobs, 8);
}

static bool have_nvrtc(void)
{
    int major, minor;
    RtError err;
    return rt_nvrtc_version(&major, &minor, &err) == RT_OK;
}

static void test_cache_hit(void **state)
{
    (void)state;
    if (!have_nvrtc())
        skip();
    char dir[] = "/tmp/tirx-unit-cache-XXXXXX";
    assert_non_null(mkdtemp(dir));
    tirx_options o = {.arch = "sm_90a", .cache_dir = dir};
    Job first, jobs[4];
    first = (Job){.o = o};
    compile_job(&first);
    assert_int_equal(first.status, TIRX_OK);
    assert_false(first.cached);
    compile_in_threads(&o, 4, jobs);
    for (int i = 0; i < 4; i++) {
        assert_true(jobs[i].cached);
        assert_string_equal(jobs[i].host, first.host);
        assert_string_equal(jobs[i].cuda, first.cuda);
    }
    free_jobs(&first, 1);
    free_jobs(jobs, 4);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_errors(void **state)
{
    (void)state;
    tirx_module *m;
    tirx_options none = {.no_binary = 1};
    assert_int_equal(tirx_compile(source, sizeof source - 1, "vadd.tirx", NULL, 0, &none, &m),
                     TIRX_ERR_USAGE);
    char *d = tirx_diag_render(m);
    assert_non_null(strstr(d, "no target architecture"));
    tirx_free(d);
    tirx_module_free(m);
    tirx_options sm75 = {.arch = "sm_75", .no_binary = 1};
    assert_int_equal(tirx_compile(source, sizeof source - 1, "vadd.tirx", NULL, 0, &sm75, &m),
                     TIRX_ERR_USAGE);
    tirx_module_free(m);
    static const char bad[] = "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    A[0] = B\n";
    tirx_options o = {.arch = "sm_90a", .no_binary = 1};
    assert_int_equal(tirx_compile(bad, sizeof bad - 1, "bad.tirx", NULL, 0, &o, &m),
                     TIRX_ERR_INPUT);
    assert_true(tirx_diag_count(m) >= 1);
    tirx_diag diag;
    assert_int_equal(tirx_diag_get(m, 0, &diag), 0);
    assert_int_equal(diag.line, 3);
    tirx_module_free(m);
}

/* T.func_attr({"tirx.fast_math": True}) compiles the module with fast math
 * (here: __expf for T.exp, the fast intrinsic); False or no attribute leaves
 * expf; another value is an error at it. */
static void test_fast_math_attr(void **state)
{
    (void)state;
    static const char fmt[] = "@T.prim_func\n"
                              "def f(A: T.Buffer((32,), \"float32\")):\n"
                              "    T.func_attr({\"tirx.fast_math\": %s})\n"
                              "    T.device_entry()\n"
                              "    bx = T.cta_id([1])\n"
                              "    tx = T.thread_id([32])\n"
                              "    A[tx] = T.exp(A[tx])\n";
    const char *values[] = {"True", "False", "1"};
    const char *expect[] = {"__expf(", "expf(", NULL};
    for (int i = 0; i < 3; i++) {
        char text[512];
        snprintf(text, sizeof text, fmt, values[i]);
        tirx_options o = {.arch = "sm_90a", .no_binary = 1};
        tirx_module *m;
        tirx_status st = tirx_compile(text, strlen(text), "fm.tirx", NULL, 0, &o, &m);
        if (expect[i]) {
            assert_int_equal(st, TIRX_OK);
            assert_non_null(strstr(tirx_module_cuda(m), expect[i]));
            assert_true(i == 0 || !strstr(tirx_module_cuda(m), "__expf("));
        } else {
            assert_int_equal(st, TIRX_ERR_INPUT);
            tirx_diag d;
            assert_int_equal(tirx_diag_get(m, 0, &d), 0);
            assert_int_equal(d.line, 3);
            assert_string_equal(d.message, "\"tirx.fast_math\" must be True or False");
        }
        tirx_module_free(m);
    }
}

/* Compiles vadd to PTX; returns the status, *loc whether the PTX has line info,
 * and the first diagnostic's code and message in diag (when there is one). */
static tirx_status compile_ptx(const tirx_options *base, bool *loc, char *diag, size_t n)
{
    tirx_options o = *base;
    o.arch = "sm_90a", o.want_ptx = 1;
    tirx_module *m;
    tirx_status st = tirx_compile(source, sizeof source - 1, "vadd.tirx", NULL, 0, &o, &m);
    const char *ptx = tirx_module_ptx(m);
    *loc = ptx && strstr(ptx, ".loc");
    tirx_diag d;
    snprintf(diag, n, "%s", "");
    if (tirx_diag_get(m, 0, &d) == 0)
        snprintf(diag, n, "%s %s", d.code, d.message);
    tirx_module_free(m);
    return st;
}

static void test_nvrtc_options(void **state)
{
    (void)state;
    if (!have_nvrtc())
        skip();
    char diag[1024];
    bool loc;
    unsetenv("TIRX_NVRTC_EXTRA_OPTS");
    tirx_options o = {.no_cache = 1};
    assert_int_equal(compile_ptx(&o, &loc, diag, sizeof diag), TIRX_OK);
    assert_false(loc);
    const char *lineinfo[] = {"-lineinfo"};
    o.nvrtc_options = lineinfo, o.n_nvrtc_options = 1;
    assert_int_equal(compile_ptx(&o, &loc, diag, sizeof diag), TIRX_OK);
    assert_true(loc);
    /* The variable is split as shell words: quotes join pieces. */
    tirx_options plain = {.no_cache = 1};
    setenv("TIRX_NVRTC_EXTRA_OPTS", "  '-line'\"info\"  ", 1);
    assert_int_equal(compile_ptx(&plain, &loc, diag, sizeof diag), TIRX_OK);
    assert_true(loc);
    setenv("TIRX_NVRTC_EXTRA_OPTS", "-lineinfo --no-such-option", 1);
    assert_int_equal(compile_ptx(&plain, &loc, diag, sizeof diag), TIRX_ERR_USAGE);
    assert_non_null(strstr(diag, "E0805 "));
    assert_non_null(strstr(diag, "--no-such-option"));
    setenv("TIRX_NVRTC_EXTRA_OPTS", "'-lineinfo", 1);
    assert_int_equal(compile_ptx(&plain, &loc, diag, sizeof diag), TIRX_ERR_USAGE);
    assert_string_equal(diag, "E0805 TIRX_NVRTC_EXTRA_OPTS has an unterminated quote");
    unsetenv("TIRX_NVRTC_EXTRA_OPTS");
}

/* The options are part of the cache key: the same text with -lineinfo is not a hit. */
static void test_nvrtc_options_key(void **state)
{
    (void)state;
    if (!have_nvrtc())
        skip();
    char dir[] = "/tmp/tirx-unit-cache-XXXXXX";
    assert_non_null(mkdtemp(dir));
    tirx_options o = {.arch = "sm_90a", .cache_dir = dir};
    Job first = {.o = o}, again = {.o = o}, lineinfo = {.o = o};
    compile_job(&first);
    compile_job(&again);
    const char *opt[] = {"-lineinfo"};
    lineinfo.o.nvrtc_options = opt, lineinfo.o.n_nvrtc_options = 1;
    compile_job(&lineinfo);
    assert_int_equal(lineinfo.status, TIRX_OK);
    assert_false(first.cached);
    assert_true(again.cached);
    assert_false(lineinfo.cached);
    free_jobs(&first, 1);
    free_jobs(&again, 1);
    free_jobs(&lineinfo, 1);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* A 1-d float32 (or float64) tensor of n elements in host memory. */
static DLTensor host_tensor(void *data, int64_t *shape, int bits)
{
    DLTensor t = {.data = data, .device = {kDLCPU, 0}, .ndim = 1,
                  .dtype = {kDLFloat, (uint8_t)bits, 1}, .shape = shape};
    return t;
}

static void check_launch_args(tirx_module *m, const char *name, const tirx_arg *args, size_t n,
                         const char *error)
{
    tirx_error err = {{0}};
    tirx_status st = tirx_check_args(m, name, args, n, &err);
    if (!error) {
        if (st != TIRX_OK)
            fail_msg("unexpected: %s", err.message);
        return;
    }
    assert_int_equal(st, TIRX_ERR_USAGE);
    if (!strstr(err.message, error))
        fail_msg("'%s' does not say '%s'", err.message, error);
}

static void test_check_args(void **state)
{
    (void)state;
    tirx_options o = {.arch = "sm_90a", .no_binary = 1};
    tirx_module *m;
    assert_int_equal(tirx_compile(source, sizeof source - 1, "vadd.tirx", NULL, 0, &o, &m),
                     TIRX_OK);
    void *data = aligned_alloc(256, 1024 * sizeof(double));
    int64_t n = 1000, shorter = 999;
    DLTensor a = host_tensor(data, &n, 32), b = a, c = a;
    DLTensor wide = host_tensor(data, &n, 64), short_c = host_tensor(data, &shorter, 32);
    tirx_arg good[] = {tirx_arg_tensor(&a), tirx_arg_tensor(&b), tirx_arg_tensor(&c)};
    check_launch_args(m, "vadd", good, 3, NULL);
    check_launch_args(m, "vadd", good, 2, "expected 3 arguments, got 2");
    tirx_arg dtype[] = {tirx_arg_tensor(&a), tirx_arg_tensor(&wide), tirx_arg_tensor(&c)};
    check_launch_args(m, "vadd", dtype, 3, "argument B: expected dtype float32, got float64");
    tirx_arg shape[] = {tirx_arg_tensor(&a), tirx_arg_tensor(&b), tirx_arg_tensor(&short_c)};
    check_launch_args(m, "vadd", shape, 3, "argument C: expected shape[0]");
    tirx_arg scalar[] = {tirx_arg_tensor(&a), tirx_arg_int(3), tirx_arg_tensor(&c)};
    check_launch_args(m, "vadd", scalar, 3, "argument B: expected a tensor");
    /* a kind this API does not know is refused, never read as integer 0 */
    tirx_arg unknown[] = {tirx_arg_tensor(&a), tirx_arg_tensor(&b), tirx_arg_tensor(&c)};
    unknown[2].kind = (tirx_arg_kind)7;
    check_launch_args(m, "vadd", unknown, 3, "argument C: expected a tensor (DLTensor *), got an "
                                             "argument of unknown kind");
    check_launch_args(m, "nope", good, 3, "the module has no function 'nope' (it has vadd)");
    free(data);
    tirx_module_free(m);
}

/* A tensor-map argument is 128 bytes the caller encoded; the API asks no
 * particular alignment of them. */
static const char map_source[] =
    "@T.prim_func\n"
    "def usemap(A_map: T.TensorMap(), Y: T.Buffer((1,), \"int32\")):\n"
    "    T.device_entry()\n"
    "    tx = T.thread_id([1])\n"
    "    Y[0] = 1\n";

static void test_check_args_tensormap(void **state)
{
    (void)state;
    tirx_options o = {.arch = "sm_90a", .no_binary = 1};
    tirx_module *m;
    assert_int_equal(tirx_compile(map_source, sizeof map_source - 1, "map.tirx", NULL, 0, &o, &m),
                     TIRX_OK);
    _Alignas(128) unsigned char maps[128 + 8 + 128] = {0};
    _Alignas(64) int32_t y[16] = {0};
    int64_t one = 1;
    DLTensor Y = {.data = y, .device = {kDLCPU, 0}, .ndim = 1, .dtype = {kDLInt, 32, 1},
                  .shape = &one};
    for (int off = 0; off <= 8; off += 8) {
        tirx_arg args[] = {{.kind = TIRX_ARG_TENSORMAP, .v.tensormap = maps + off},
                           tirx_arg_tensor(&Y)};
        check_launch_args(m, "usemap", args, 2, NULL);
    }
    tirx_arg none[] = {{.kind = TIRX_ARG_TENSORMAP, .v.tensormap = NULL}, tirx_arg_tensor(&Y)};
    check_launch_args(m, "usemap", none, 2, "argument A_map: expected a tensor map, got NULL");
    tirx_module_free(m);
}

/* A symbolic extent is an int32 in the kernel: one that does not fit is
 * refused naming the argument, never cut to its low 32 bits. */
static const char sym_source[] =
    "@T.prim_func\n"
    "def sym(X: T.Buffer((\"n\",), \"int8\")):\n"
    "    T.device_entry()\n"
    "    tx = T.thread_id([32])\n"
    "    if tx < n:\n"
    "        X[tx] = T.int8(0)\n";

static void test_check_args_extent_fits(void **state)
{
    (void)state;
    tirx_options o = {.arch = "sm_90a", .no_binary = 1};
    tirx_module *m;
    assert_int_equal(tirx_compile(sym_source, sizeof sym_source - 1, "sym.tirx", NULL, 0, &o, &m),
                     TIRX_OK);
    void *data = aligned_alloc(64, 64);
    int64_t n = 20;
    DLTensor x = {.data = data, .device = {kDLCPU, 0}, .ndim = 1, .dtype = {kDLInt, 8, 1},
                  .shape = &n};
    tirx_arg args[] = {tirx_arg_tensor(&x)};
    check_launch_args(m, "sym", args, 1, NULL);
    n = ((int64_t)1 << 32) + 5; /* only the tensor's description is read */
    check_launch_args(m, "sym", args, 1, "argument X: expected shape[0] (n) to fit int32");
    free(data);
    tirx_module_free(m);
}

/* A grid extent beyond what its axis can launch (y and z: 65535) is refused
 * naming it, before the driver's bare "invalid value". */
static const char grid_source[] =
    "@T.prim_func\n"
    "def grid2(A: T.Buffer((64,), \"float32\"), n: T.int32):\n"
    "    T.device_entry()\n"
    "    bx, by = T.cta_id([4, n])\n"
    "    tx = T.thread_id([32])\n"
    "    if bx + by == 0:\n"
    "        A[tx] = T.float32(1)\n";

static void test_check_args_grid_limits(void **state)
{
    (void)state;
    tirx_options o = {.arch = "sm_90a", .no_binary = 1};
    tirx_module *m;
    assert_int_equal(tirx_compile(grid_source, sizeof grid_source - 1, "grid2.tirx", NULL, 0, &o,
                                  &m),
                     TIRX_OK);
    void *data = aligned_alloc(256, 64 * sizeof(float));
    int64_t n = 64;
    DLTensor a = host_tensor(data, &n, 32);
    tirx_arg args[] = {tirx_arg_tensor(&a), tirx_arg_int(65535)};
    check_launch_args(m, "grid2", args, 2, NULL);
    args[1] = tirx_arg_int(70000);
    check_launch_args(m, "grid2", args, 2, "blockIdx.y = 70000, outside 1..65535");
    free(data);
    tirx_module_free(m);
}

/* A tensor map the host cannot encode from the arguments (a row stride
 * that is no multiple of 16 bytes) is refused naming the function and the
 * tensor. */
static const char tma_source[] =
    "@T.prim_func\n"
    "def tcopy(A: T.Buffer((128, 64), \"bfloat16\", strides=(\"s\", 1)), B: T.Buffer((128, 64), "
    "\"bfloat16\")):\n"
    "    T.device_entry()\n"
    "    tx = T.thread_id([128])\n"
    "    pool = T.SMEMPool()\n"
    "    S = pool.alloc((128, 64), \"bfloat16\", align=1024)\n"
    "    bar = pool.alloc((1,), \"uint64\", align=8)\n"
    "    pool.commit()\n"
    "    if tx == 0:\n"
    "        T.ptx.mbarrier.init.shared__cta.b64(bar.ptr_to([0]), T.uint32(1))\n"
    "        T.ptx.fence.proxy.async_.shared__cta()\n"
    "    T.cuda.cta_sync()\n"
    "    if tx == 0:\n"
    "        T.ptx.mbarrier.arrive.expect_tx.shared__cta.b64(bar.ptr_to([0]), T.uint32(16384))\n"
    "        Tx.copy_async(S, A[0:128, 0:64], mbar=bar[0])\n"
    "    T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)\n"
    "    for k in range(64):\n"
    "        B[tx, k] = S[tx, k]\n";

static void test_check_args_tensor_map_names(void **state)
{
    (void)state;
    tirx_options o = {.arch = "sm_90a", .no_binary = 1};
    tirx_module *m;
    assert_int_equal(tirx_compile(tma_source, sizeof tma_source - 1, "tcopy.tirx", NULL, 0, &o,
                                  &m),
                     TIRX_OK);
    void *data = aligned_alloc(256, 128 * 1024 * 2);
    int64_t shape[2] = {128, 64}, strides[2] = {1024, 1};
    DLTensor a = {.data = data, .device = {kDLCPU, 0}, .ndim = 2, .dtype = {kDLBfloat, 16, 1},
                  .shape = shape, .strides = strides};
    DLTensor b = {.data = data, .device = {kDLCPU, 0}, .ndim = 2, .dtype = {kDLBfloat, 16, 1},
                  .shape = shape};
    tirx_arg args[] = {tirx_arg_tensor(&a), tirx_arg_tensor(&b)};
    check_launch_args(m, "tcopy", args, 2, NULL);
    strides[0] = 1001;
    check_launch_args(m, "tcopy", args, 2, "tcopy: argument A: tensor map: global_strides[0] = "
                                           "2002 bytes");
    free(data);
    tirx_module_free(m);
}

/* A forced 16-byte copy whose start depends on run-time strides: the
 * dispatch asks the host to check them (tests/op/copy_vec_width_launch_check),
 * so a launch with a stride that would misalign it is refused naming it. */
static const char strided[] =
    "@T.prim_func\n"
    "def part(o: T.Buffer((4096,), \"float32\"), out: T.Buffer((32, 4), \"float32\"), "
    "split: T.int32, stride: T.int32):\n"
    "    T.device_entry()\n"
    "    tx = T.thread_id([32])\n"
    "    off: T.int32 = split * 0 + stride\n"
    "    p = T.decl_buffer((2048,), data=o.data, elem_offset=off)\n"
    "    d = T.alloc_local((4,))\n"
    "    Tx.copy(d[0:4], p[tx * 4:tx * 4 + 4], dispatch=\"vec_128b\")\n"
    "    Tx.copy(out[tx, 0:4], d[0:4], dispatch=\"vec_128b\")\n";

static void test_check_args_launch_checks(void **state)
{
    (void)state;
    tirx_options o = {.arch = "sm_90a", .no_binary = 1};
    tirx_module *m;
    assert_int_equal(tirx_compile(strided, sizeof strided - 1, "part.tirx", NULL, 0, &o, &m),
                     TIRX_OK);
    void *data = aligned_alloc(256, 4096 * sizeof(float));
    int64_t n = 4096, shape_out[2] = {32, 4};
    DLTensor a = host_tensor(data, &n, 32), b = host_tensor(data, shape_out, 32);
    b.ndim = 2;
    tirx_arg args[] = {tirx_arg_tensor(&a), tirx_arg_tensor(&b), tirx_arg_int(3), tirx_arg_int(8)};
    check_launch_args(m, "part", args, 4, NULL);
    args[3] = tirx_arg_int(6);
    check_launch_args(m, "part", args, 4,
                      "argument stride: expected a multiple of 4 (a vector access of p depends on "
                      "it)");
    free(data);
    tirx_module_free(m);
}

/* tirx_parse with defines NULL and a count is a usage error, as
 * tirx_compile's is; an unknown pass name is a usage error that runs no pass
 * and leaves the module usable (lowered and printed afterwards). */
static void test_parse_and_lower_usage(void **state)
{
    (void)state;
    tirx_module *m = NULL;
    assert_int_equal(tirx_parse(source, sizeof source - 1, "vadd.tirx", NULL, 2, &m),
                     TIRX_ERR_USAGE);
    assert_null(m);
    assert_int_equal(tirx_parse(source, sizeof source - 1, "vadd.tirx", NULL, 0, &m), TIRX_OK);
    assert_int_equal(tirx_verify(m), TIRX_OK);
    char *before = tirx_print(m);
    assert_int_equal(tirx_lower(m, "TilePrimitiveDispatch,NoSuchPass", NULL), TIRX_ERR_USAGE);
    char *after = tirx_print(m);
    assert_non_null(after);
    assert_string_equal(before, after);
    assert_int_equal(tirx_verify(m), TIRX_OK);
    assert_int_equal(tirx_lower(m, NULL, NULL), TIRX_OK);
    tirx_free(before);
    tirx_free(after);
    tirx_module_free(m);
    /* a compiled module is lowered already: a second lowering is refused */
    tirx_options o = {.arch = "sm_90a", .no_binary = 1};
    assert_int_equal(tirx_compile(source, sizeof source - 1, "vadd.tirx", NULL, 0, &o, &m),
                     TIRX_OK);
    assert_int_equal(tirx_lower(m, NULL, NULL), TIRX_ERR_USAGE);
    tirx_module_free(m);
}

/* tirx_layout_describe of every index of a shape over 2^20 elements is a usage
 * error at once (each index is a line: a huge shape ran for ever and filled
 * memory); one index of the same shape is described, and 2^20 elements are. */
static void test_layout_describe_bounded(void **state)
{
    (void)state;
    const char *layout = "T.TileLayout(T.S[(2048, 2048):(2048, 1)])";
    long long big[2] = {2048, 2048}, at[2] = {5, 6}, fits[2] = {1024, 1024};
    char *out;
    tirx_module *diags;
    assert_int_equal(tirx_layout_describe(layout, big, 2, NULL, NULL, &out, &diags),
                     TIRX_ERR_USAGE);
    assert_null(out);
    tirx_diag d;
    assert_int_equal(tirx_diag_get(diags, 0, &d), 0);
    assert_non_null(strstr(d.message, "4194304 elements"));
    tirx_module_free(diags);
    assert_int_equal(tirx_layout_describe(layout, big, 2, at, NULL, &out, &diags), TIRX_OK);
    assert_string_equal(out, "(5, 6) -> {m=10246}\n");
    tirx_free(out);
    tirx_module_free(diags);
    assert_int_equal(tirx_layout_describe("T.TileLayout(T.S[(1024, 1024):(1024, 1)])", fits, 2,
                                          NULL, NULL, &out, &diags),
                     TIRX_OK);
    assert_non_null(strstr(out, "(1023, 1023) -> {m=1048575}\n"));
    tirx_free(out);
    tirx_module_free(diags);
}

/* The code of the first diagnostic of m, and whether its message has `part`. */
static void assert_first_diag(const tirx_module *m, const char *code, const char *part)
{
    tirx_diag d;
    assert_int_equal(tirx_diag_get(m, 0, &d), 0);
    assert_string_equal(d.code, code);
    assert_non_null(strstr(d.message, part));
}

/* A text over options.max_input_size (64 MiB when 0) is refused with E0007
 * before anything is parsed; a raised limit takes it. */
static void test_max_input_size(void **state)
{
    (void)state;
    tirx_module *m;
    tirx_options o = {.arch = "sm_90a", .no_binary = 1, .max_input_size = 100};
    assert_int_equal(tirx_compile(source, sizeof source - 1, "vadd.tirx", NULL, 0, &o, &m),
                     TIRX_ERR_INPUT);
    assert_first_diag(m, "E0007", "vadd.tirx: the input (");
    tirx_module_free(m);
    size_t big = TIRX_MAX_INPUT_SIZE_DEFAULT + 1;
    char *text = malloc(big);
    assert_non_null(text);
    memcpy(text, source, sizeof source - 1);
    memset(text + sizeof source - 1, '\n', big - (sizeof source - 1));
    o.max_input_size = 0;
    assert_int_equal(tirx_compile(text, big, "big.tirx", NULL, 0, &o, &m), TIRX_ERR_INPUT);
    assert_first_diag(m, "E0007", "limit of 64 MiB");
    tirx_module_free(m);
    o.max_input_size = big;
    assert_int_equal(tirx_compile(text, big, "big.tirx", NULL, 0, &o, &m), TIRX_OK);
    tirx_module_free(m);
    free(text);
}

/* dir/name with the given text */
static void write_file(const char *dir, const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static const char importer[] =
    "from lib import N, store\n"
    "\n"
    "@T.prim_func\n"
    "def fill(A: T.Buffer((N,), \"float32\")):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([N])\n"
    "    store(A, tx)\n";

static void write_lib(const char *dir, int n, const char *value)
{
    char text[256];
    snprintf(text, sizeof text,
             "N = %d\n\n@T.macro\ndef store(A, i):\n    A[i] = T.float32(%s)\n", n, value);
    write_file(dir, "lib.tirx", text);
}

/* The directory of the file name, then options.import_dirs; "<string>" has no
 * directory: its relative import is refused, an absolute one searches only
 * the import directories. */
static void test_import_search(void **state)
{
    (void)state;
    char dir[] = "/tmp/tirx-unit-import-XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_lib(dir, 64, "1.0");
    char path[256];
    snprintf(path, sizeof path, "%s/main.tirx", dir);
    tirx_module *m;
    assert_int_equal(tirx_parse(importer, sizeof importer - 1, path, NULL, 0, &m), TIRX_OK);
    tirx_module_free(m);
    assert_int_equal(tirx_parse(importer, sizeof importer - 1, "<string>", NULL, 0, &m),
                     TIRX_ERR_INPUT);
    assert_first_diag(m, "E0305", "'<string>' is not a file, so only the import directories");
    tirx_module_free(m);
    const char *dirs[] = {"/nonexistent", dir};
    tirx_options o = {.import_dirs = dirs, .n_import_dirs = 2};
    assert_int_equal(
        tirx_parse_with(importer, sizeof importer - 1, "<string>", NULL, 0, &o, &m), TIRX_OK);
    tirx_module_free(m);
    const char relative[] = "from .lib import N\n";
    assert_int_equal(
        tirx_parse_with(relative, sizeof relative - 1, "<string>", NULL, 0, &o, &m),
        TIRX_ERR_INPUT);
    assert_first_diag(m, "E0305", "'<string>' is not a file, so it has no directory");
    tirx_module_free(m);
    o.n_import_dirs = 1;
    assert_int_equal(
        tirx_parse_with(importer, sizeof importer - 1, "<string>", NULL, 0, &o, &m),
        TIRX_ERR_INPUT);
    assert_first_diag(m, "E0305", "no module named 'lib' (searched /nonexistent/lib.tirx)");
    tirx_module_free(m);
    const char *holes[] = {dir, NULL};
    o.import_dirs = holes, o.n_import_dirs = 2;
    assert_int_equal(tirx_parse_with(importer, 1, "<string>", NULL, 0, &o, &m), TIRX_ERR_USAGE);
    o.arch = "sm_90a";
    assert_int_equal(tirx_compile(importer, 1, "<string>", NULL, 0, &o, &m), TIRX_ERR_USAGE);
    o.import_dirs = NULL;
    assert_int_equal(tirx_parse_with(importer, 1, "<string>", NULL, 0, &o, &m), TIRX_ERR_USAGE);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* An imported file that changes is a cache miss, compiled with its new
 * contents; back to the old contents, a hit again. */
static void test_import_cache_key(void **state)
{
    (void)state;
    if (!have_nvrtc())
        skip();
    char dir[] = "/tmp/tirx-unit-cache-XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *dirs[] = {dir};
    tirx_options o = {.arch = "sm_90a", .cache_dir = dir, .import_dirs = dirs,
                      .n_import_dirs = 1};
    const char *values[] = {"1.0", "1.0", "2.0", "1.0"};
    const int hits[] = {0, 1, 0, 1};
    for (int i = 0; i < 4; i++) {
        write_lib(dir, 64, values[i]);
        tirx_module *m;
        assert_int_equal(tirx_compile(importer, sizeof importer - 1, "<string>", NULL, 0, &o, &m),
                         TIRX_OK);
        assert_int_equal(tirx_module_cached(m), hits[i]);
        assert_non_null(strstr(tirx_module_cuda(m), i == 2 ? "= 2.0f;" : "= 1.0f;"));
        tirx_module_free(m);
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generate_in_threads),
        cmocka_unit_test(test_cache_hit),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_fast_math_attr),
        cmocka_unit_test(test_nvrtc_options),
        cmocka_unit_test(test_nvrtc_options_key),
        cmocka_unit_test(test_check_args),
        cmocka_unit_test(test_check_args_tensormap),
        cmocka_unit_test(test_check_args_extent_fits),
        cmocka_unit_test(test_check_args_grid_limits),
        cmocka_unit_test(test_check_args_tensor_map_names),
        cmocka_unit_test(test_check_args_launch_checks),
        cmocka_unit_test(test_parse_and_lower_usage),
        cmocka_unit_test(test_layout_describe_bounded),
        cmocka_unit_test(test_max_input_size),
        cmocka_unit_test(test_import_search),
        cmocka_unit_test(test_import_cache_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
