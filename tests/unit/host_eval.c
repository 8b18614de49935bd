/* Unit tests of the host-function evaluator without a GPU: kernels go
 * through the pass pipeline, and the host function runs as a dry run
 * (argument checks, symbolic shapes, launch configuration; nothing launched)
 * on DLTensors built here. Each wrong argument must give a message naming
 * the function, the argument, what was expected and what was given. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pass/pass.h"
#include "runtime/host_eval.h"
#include "script/script.h"

#define VADD_SIG "@T.prim_func\ndef vector_add(a: T.handle, b: T.handle, c: T.handle, n: T.int32):\n"
#define VADD_BODY                                                                                   \
    "    A = T.match_buffer(a, (n,), \"float32\")\n"                                                \
    "    B = T.match_buffer(b, (n,), \"float32\")\n"                                                \
    "    C = T.match_buffer(c, (n,), \"float32\")\n"                                                \
    "    T.device_entry()\n"                                                                        \
    "    bx = T.cta_id([T.ceildiv(n, 256)])\n"                                                      \
    "    tx = T.thread_id([256])\n"                                                                 \
    "    i: T.let = bx * 256 + tx\n"
#define VADD_STORE "    if i < n:\n        C[i] = A[i] + B[i]\n"

static const char vector_add[] = VADD_SIG VADD_BODY VADD_STORE;

/* vector_add as a programmatic dependent launch (it may start before the
 * previous kernel on the stream ends, and waits for it). */
static const char vector_add_pdl[] =
    VADD_SIG "    T.func_attr({\"tirx.use_programtic_dependent_launch\": True})\n" VADD_BODY
    "    T.ptx.griddepcontrol.wait()\n" VADD_STORE;

/* n is only in the shapes: bound from the first tensor at launch. */
static const char symbolic[] =
    "@T.prim_func\n"
    "def scale(X: T.Buffer((\"m\", 64), \"float16\"), Y: T.Buffer((m, 64), \"float16\"),\n"
    "          alpha: T.float32):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([m])\n"
    "    tx = T.thread_id([64])\n"
    "    Y[bx, tx] = T.Cast(\"float16\", T.Cast(\"float32\", X[bx, tx]) * alpha)\n";

/* Grid sizes computed on the host in float32: a floor modulo (the sign of the
 * divisor, not of the dividend), a sum float32 cannot hold exactly, and a
 * math call on a maximum with a NaN (which loses, as with CUDA's fmaxf). */
static const char float_grid[] =
    "@T.prim_func\n"
    "def fgrid(X: T.Buffer((64,), \"float32\"), alpha: T.float32, beta: T.float32,\n"
    "          gamma: T.float32):\n"
    "    T.device_entry()\n"
    "    bx, by, bz = T.cta_id([T.Cast(\"int32\", T.floormod(alpha, T.float32(4)) * T.float32(100)),\n"
    "                           T.Cast(\"int32\", beta - T.float32(16777200)),\n"
    "                           T.Cast(\"int32\", T.ceil(T.max(gamma, T.float32(1.5))))])\n"
    "    tx = T.thread_id([64])\n"
    "    X[tx] = alpha\n";

/* Grid sizes from shifts and bitwise operations of integers on the host. */
static const char bit_grid[] =
    "@T.prim_func\n"
    "def bgrid(X: T.Buffer((\"n\",), \"float32\"), s: T.int32):\n"
    "    T.device_entry()\n"
    "    bx, by, bz = T.cta_id([(n + 127) >> 7, (n & 7 | 8) ^ 1, (1 << s) + ~n + n])\n"
    "    tx = T.thread_id([32])\n"
    "    X[tx] = T.float32(0)\n";

typedef struct Lowered {
    IrModule *m;
    const IrFunc *host;
} Lowered;

static Lowered lower(const char *text, const char *name)
{
    IrModule *m = sc_parse(text, strlen(text), "t.tirx", NULL, 0);
    PsCtx ctx = {.verify_each = true};
    bool ok = m->diags.nerrors == 0 && ps_run_pipeline(&ctx, m);
    for (int i = 0; i < m->diags.list.len; i++)
        print_message("%s\n", m->diags.list.items[i].msg);
    assert_true(ok);
    Lowered l = {m, NULL};
    for (int i = 0; i < m->nfuncs; i++)
        if (!strcmp(m->funcs[i]->name, name))
            l.host = m->funcs[i];
    assert_non_null(l.host);
    return l;
}

typedef struct Seen {
    int launches;
    RtLaunchConfig cfg;
    char kernel[64];
} Seen;

static void observe(void *user, const char *kernel, const RtLaunchConfig *cfg)
{
    Seen *s = user;
    s->launches++;
    s->cfg = *cfg;
    snprintf(s->kernel, sizeof s->kernel, "%s", kernel);
}

static RtStatus dry_run(const Lowered *l, const RtArg *args, int n, Seen *seen, RtError *err)
{
    RtHostEnv env = {.module = l->m, .observe = observe, .user = seen, .device_id = 0};
    memset(seen, 0, sizeof *seen);
    memset(err, 0, sizeof *err);
    return rt_host_eval(l->host, args, n, &env, err);
}

/* A CUDA float32 vector of n elements at a 256-byte aligned fake address. */
typedef struct Vec {
    DLTensor t;
    int64_t shape[2], strides[2];
} Vec;

static void vec_init(Vec *v, uintptr_t addr, int64_t n)
{
    memset(v, 0, sizeof *v);
    v->shape[0] = n;
    v->t = (DLTensor){.data = (void *)addr, .device = {kDLCUDA, 0}, .ndim = 1,
                      .dtype = {kDLFloat, 32, 1}, .shape = v->shape};
}

typedef struct VaddArgs {
    Vec a, b, c;
    RtArg args[4];
} VaddArgs;

static void vadd_args(VaddArgs *v, int64_t n)
{
    vec_init(&v->a, 0x100000, n);
    vec_init(&v->b, 0x200000, n);
    vec_init(&v->c, 0x300000, n);
    v->args[0] = (RtArg){RT_ARG_TENSOR, {.tensor = &v->a.t}};
    v->args[1] = (RtArg){RT_ARG_TENSOR, {.tensor = &v->b.t}};
    v->args[2] = (RtArg){RT_ARG_TENSOR, {.tensor = &v->c.t}};
    v->args[3] = (RtArg){RT_ARG_INT, {.i = n}};
}

static void expect_message(const Lowered *l, const RtArg *args, int n, const char *msg)
{
    Seen seen;
    RtError err;
    assert_int_equal(dry_run(l, args, n, &seen, &err), RT_ERR_USAGE);
    print_message("message: %s\n", err.message);
    assert_string_equal(err.message, msg);
    assert_int_equal(seen.launches, 0);
}

static void test_vector_add_launch(void **state)
{
    (void)state;
    Lowered l = lower(vector_add, "vector_add");
    VaddArgs v;
    int64_t n = (1 << 24) + 7;
    vadd_args(&v, n);
    Seen seen;
    RtError err;
    assert_int_equal(dry_run(&l, v.args, 4, &seen, &err), RT_OK);
    assert_int_equal(seen.launches, 1);
    assert_string_equal(seen.kernel, "vector_add_kernel");
    assert_int_equal(seen.cfg.grid[0], (n + 255) / 256);
    assert_int_equal(seen.cfg.grid[1], 1);
    assert_int_equal(seen.cfg.block[0], 256);
    assert_int_equal(seen.cfg.dyn_smem_bytes, 0);
    assert_false(seen.cfg.pdl);
    ir_module_free(l.m);
    /* the kernel's programmatic dependent launch attribute reaches the launch */
    l = lower(vector_add_pdl, "vector_add");
    vadd_args(&v, 1000);
    assert_int_equal(dry_run(&l, v.args, 4, &seen, &err), RT_OK);
    assert_int_equal(seen.launches, 1);
    assert_true(seen.cfg.pdl);
    assert_int_equal(seen.cfg.grid[0], 4);
    ir_module_free(l.m);
}

static void test_argument_count_and_kind(void **state)
{
    (void)state;
    Lowered l = lower(vector_add, "vector_add");
    VaddArgs v;
    vadd_args(&v, 1000);
    expect_message(&l, v.args, 3, "vector_add: expected 4 arguments, got 3");
    v.args[1] = (RtArg){RT_ARG_INT, {.i = 5}};
    expect_message(&l, v.args, 4,
                   "vector_add: argument B: expected a tensor (DLTensor *), got an integer");
    v.args[1] = (RtArg){RT_ARG_TENSOR, {.tensor = NULL}};
    expect_message(&l, v.args, 4, "vector_add: argument B: expected a tensor (DLTensor *), "
                                  "got NULL");
    vadd_args(&v, 1000);
    v.args[3] = (RtArg){RT_ARG_FLOAT, {.f = 1000.0}};
    expect_message(&l, v.args, 4, "vector_add: argument n: expected an integer, got a float");
    /* a launch extent computed from the arguments that CUDA cannot launch */
    vadd_args(&v, 0);
    expect_message(&l, v.args, 4, "vector_add: the launch of vector_add_kernel has "
                                  "blockIdx.x = 0, outside 1..2147483647");
    /* an integer that its parameter's dtype cannot hold is refused, not wrapped */
    vadd_args(&v, 1LL << 40);
    expect_message(&l, v.args, 4, "vector_add: argument n: 1099511627776 does not fit int32");
    ir_module_free(l.m);
}

static void test_tensor_checks(void **state)
{
    (void)state;
    Lowered l = lower(vector_add, "vector_add");
    VaddArgs v;
    vadd_args(&v, 1000);
    v.b.t.dtype = (DLDataType){kDLFloat, 16, 1};
    expect_message(&l, v.args, 4, "vector_add: argument B: expected dtype float32, got float16");
    vadd_args(&v, 1000);
    v.c.t.ndim = 2, v.c.shape[1] = 1;
    expect_message(&l, v.args, 4, "vector_add: argument C: expected ndim 1, got 2");
    vadd_args(&v, 1000);
    v.a.shape[0] = 999;
    expect_message(&l, v.args, 4, "vector_add: argument A: expected shape[0] == n, got 999 instead of 1000");
    vadd_args(&v, 1000);
    v.a.strides[0] = 2, v.a.t.strides = v.a.strides;
    expect_message(&l, v.args, 4,
                   "vector_add: argument A: expected strides[0] == 1 (compact), got 2");
    vadd_args(&v, 1000);
    v.c.t.device = (DLDevice){kDLCPU, 0};
    expect_message(&l, v.args, 4,
                   "vector_add: argument C: expected a CUDA device tensor, got device type 1 "
                   "(CPU)");
    vadd_args(&v, 1000);
    v.b.t.byte_offset = 4;
    expect_message(&l, v.args, 4,
                   "vector_add: argument B: expected data aligned to 64 bytes, got address "
                   "0x200004");
    vadd_args(&v, 1000);
    v.b.t.device.device_id = 1;
    expect_message(&l, v.args, 4,
                   "vector_add: argument B: expected a tensor on cuda:0, got cuda:1");
    ir_module_free(l.m);
}

static void test_symbolic_shape(void **state)
{
    (void)state;
    Lowered l = lower(symbolic, "scale");
    int64_t xs[2] = {300, 64}, ys[2] = {300, 64};
    DLTensor x = {.data = (void *)0x1000, .device = {kDLCUDA, 0}, .ndim = 2,
                  .dtype = {kDLFloat, 16, 1}, .shape = xs};
    DLTensor y = x;
    y.shape = ys;
    RtArg args[3] = {{RT_ARG_TENSOR, {.tensor = &x}}, {RT_ARG_TENSOR, {.tensor = &y}},
                     {RT_ARG_FLOAT, {.f = 0.5}}};
    Seen seen;
    RtError err;
    assert_int_equal(dry_run(&l, args, 3, &seen, &err), RT_OK);
    assert_int_equal(seen.cfg.grid[0], 300);
    assert_int_equal(seen.cfg.block[0], 64);
    ys[0] = 301;
    expect_message(&l, args, 3, "scale: argument Y: expected shape[0] == m, got 301 instead of 300");
    ys[0] = 300, ys[1] = 32;
    expect_message(&l, args, 3, "scale: argument Y: expected shape[1] == 64, got 32");
    /* a negative extent describes no memory, whatever the kernel makes of it */
    xs[0] = ys[0] = -300, ys[1] = 64;
    expect_message(&l, args, 3, "scale: argument X: expected shape[0] (m) >= 0, got -300");
    ir_module_free(l.m);
    /* n * m = 64 elements written into a (-8, -8) tensor, without the check */
    l = lower("@T.prim_func\n"
              "def flat(A: T.Buffer((\"n\", \"m\"), \"float32\")):\n"
              "    T.device_entry()\n"
              "    tx = T.thread_id([128])\n"
              "    if tx < n * m:\n"
              "        A[tx // m, tx % m] = T.float32(1)\n",
              "flat");
    int64_t as[2] = {-8, -8};
    DLTensor a = {.data = (void *)0x1000, .device = {kDLCUDA, 0}, .ndim = 2,
                  .dtype = {kDLFloat, 32, 1}, .shape = as};
    RtArg flat_args[1] = {{RT_ARG_TENSOR, {.tensor = &a}}};
    expect_message(&l, flat_args, 1, "flat: argument A: expected shape[0] (n) >= 0, got -8");
    ir_module_free(l.m);
    Lowered v = lower(vector_add, "vector_add");
    VaddArgs va;
    vadd_args(&va, -1000);
    expect_message(&v, va.args, 4, "vector_add: argument A: expected shape[0] (n) >= 0, got -1000");
    ir_module_free(v.m);
}

/* A tensor argument starts at data + byte_offset: a parameter's elem_offset,
 * which the kernel adds to every index, would read past its end. A constant
 * one is refused; offset_factor's free one is 0, the offset of every tensor. */
#define OFFS_BODY "    T.device_entry()\n    tx = T.thread_id([16])\n    B[tx] = A[tx]\n"
static const char param_offsets[] =
    "@T.prim_func\n"
    "def offs(A: T.Buffer((16,), \"float32\", elem_offset=8), B: T.Buffer((16,), \"float32\")):\n"
    OFFS_BODY
    "@T.prim_func\n"
    "def factor(A: T.Buffer((16,), \"float32\", offset_factor=4),\n"
    "           B: T.Buffer((16,), \"float32\")):\n" OFFS_BODY;

static void test_param_elem_offset(void **state)
{
    (void)state;
    Lowered l = lower(param_offsets, "offs");
    Vec a, b;
    vec_init(&a, 0x100000, 16);
    vec_init(&b, 0x200000, 16);
    RtArg args[2] = {{RT_ARG_TENSOR, {.tensor = &a.t}}, {RT_ARG_TENSOR, {.tensor = &b.t}}};
    expect_message(&l, args, 2, "offs: argument A: expected elem_offset (8) to be 0: the tensor "
                                "begins at data + byte_offset");
    l.host = NULL;
    for (int i = 0; i < l.m->nfuncs; i++)
        if (!strcmp(l.m->funcs[i]->name, "factor"))
            l.host = l.m->funcs[i];
    Seen seen;
    RtError err;
    assert_int_equal(dry_run(&l, args, 2, &seen, &err), RT_OK);
    assert_int_equal(seen.launches, 1);
    ir_module_free(l.m);
}

static void test_float_host_arithmetic(void **state)
{
    (void)state;
    Lowered l = lower(float_grid, "fgrid");
    int64_t xs[1] = {64};
    DLTensor x = {.data = (void *)0x1000, .device = {kDLCUDA, 0}, .ndim = 1,
                  .dtype = {kDLFloat, 32, 1}, .shape = xs};
    /* floormod(-1, 4) = 3 (fmod would give -1); 16777217 is 16777216 in float32 */
    RtArg args[4] = {{RT_ARG_TENSOR, {.tensor = &x}}, {RT_ARG_FLOAT, {.f = -1.0}},
                     {RT_ARG_FLOAT, {.f = 16777217.0}}, {RT_ARG_FLOAT, {.f = NAN}}};
    Seen seen;
    RtError err;
    assert_int_equal(dry_run(&l, args, 4, &seen, &err), RT_OK);
    assert_int_equal(seen.cfg.grid[0], 300);
    assert_int_equal(seen.cfg.grid[1], 16);
    assert_int_equal(seen.cfg.grid[2], 2);
    ir_module_free(l.m);
}

/* A bool parameter takes 0 or 1: 2 is refused as an int8 parameter's 300 is. */
static void test_bool_argument(void **state)
{
    (void)state;
    static const char text[] =
        "@T.prim_func\n"
        "def flag(X: T.Buffer((32,), \"float32\"), on: T.bool):\n"
        "    T.device_entry()\n"
        "    bx = T.cta_id([1])\n"
        "    tx = T.thread_id([32])\n"
        "    if on:\n"
        "        X[tx] = T.float32(1)\n";
    Lowered l = lower(text, "flag");
    int64_t xs[1] = {32};
    DLTensor x = {.data = (void *)0x1000, .device = {kDLCUDA, 0}, .ndim = 1,
                  .dtype = {kDLFloat, 32, 1}, .shape = xs};
    RtArg args[2] = {{RT_ARG_TENSOR, {.tensor = &x}}, {RT_ARG_INT, {.i = 1}}};
    Seen seen;
    RtError err;
    assert_int_equal(dry_run(&l, args, 2, &seen, &err), RT_OK);
    args[1].u.i = 2;
    expect_message(&l, args, 2, "flag: argument on: 2 does not fit bool");
    ir_module_free(l.m);
}

static void test_bitwise_host_arithmetic(void **state)
{
    (void)state;
    Lowered l = lower(bit_grid, "bgrid");
    int64_t xs[1] = {1000};
    DLTensor x = {.data = (void *)0x1000, .device = {kDLCUDA, 0}, .ndim = 1,
                  .dtype = {kDLFloat, 32, 1}, .shape = xs};
    RtArg args[2] = {{RT_ARG_TENSOR, {.tensor = &x}}, {RT_ARG_INT, {.i = 4}}};
    Seen seen;
    RtError err;
    assert_int_equal(dry_run(&l, args, 2, &seen, &err), RT_OK);
    assert_int_equal(seen.cfg.grid[0], 8);  /* 1127 >> 7 */
    assert_int_equal(seen.cfg.grid[1], 9);  /* (1000 & 7 | 8) ^ 1 */
    assert_int_equal(seen.cfg.grid[2], 15); /* 16 + ~1000 + 1000 */
    args[1].u.i = 32;
    expect_message(&l, args, 2, "bgrid: T.shift_left by 32 of a 32-bit value in the host function");
    ir_module_free(l.m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector_add_launch),
        cmocka_unit_test(test_argument_count_and_kind),
        cmocka_unit_test(test_tensor_checks),
        cmocka_unit_test(test_symbolic_shape),
        cmocka_unit_test(test_param_elem_offset),
        cmocka_unit_test(test_float_host_arithmetic),
        cmocka_unit_test(test_bitwise_host_arithmetic),
        cmocka_unit_test(test_bool_argument),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
