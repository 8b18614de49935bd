/* tirx_demo: runs each example of examples/ on GPU 0 and checks it (the GPU
 * half of `make demo`; examples/run_demo.sh compiles them first).
 *
 *   tirx_demo            exit 0 all checks passed, 1 one failed,
 *                        77 no driver or GPU (a failure with TIRX_REQUIRE_GPU=1)
 *
 * Each example is compiled through tirx_compile for the device's arch, run
 * on fresh random inputs with its outputs poisoned (all bits set) before the
 * launch, and compared with a float64 CPU reference (relative L2 error) or
 * with its input bit for bit. Then it is launched RUNS more times, each
 * bracketed by tirx_device_synchronize and clock_gettime, and the median
 * time is reported (host launch work included). The table at the end has
 * one row per kernel and size. The calls into tirx are tirx.h only; the
 * harness (random data, poisoning, 2-D tensors, fp16 conversions, the L2
 * check) is the GPU tests' own, tests/gpu/op_kernel.h. */
#include <stdarg.h>

#include "op_kernel.h"

enum { RUNS = 5, MAX_ROWS = 8, MAX_ARGS = 4 };

typedef struct Row {
    char kernel[32], size[48], check[64];
    bool passed;
    double ms;
} Row;

typedef struct Demo {
    tirx_device *gpu;
    GpuRng rng;
    Row rows[MAX_ROWS];
    int nrows;
} Demo;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* A function and its arguments: tensors, then scalars. */
typedef struct Launch {
    tirx_function *f;
    tirx_arg args[MAX_ARGS];
    size_t nargs;
} Launch;

static Launch prepare(tirx_module *m, const char *name, OpTensor *const *t, size_t nt,
                      const tirx_arg *scalars, size_t ns)
{
    Launch l = {.nargs = nt + ns};
    tirx_error err;
    op_ok(tirx_get_function(m, name, &l.f, &err), &err, "tirx_get_function");
    GPU_CHECK(l.nargs <= MAX_ARGS, "at most MAX_ARGS arguments");
    for (size_t i = 0; i < nt; i++)
        l.args[i] = tirx_arg_tensor(&t[i]->t);
    for (size_t i = 0; i < ns; i++)
        l.args[nt + i] = scalars[i];
    return l;
}

static void launch(tirx_device *gpu, const Launch *l)
{
    tirx_error err;
    op_ok(tirx_launch(l->f, l->args, l->nargs, NULL, &err), &err, "tirx_launch");
    op_ok(tirx_device_synchronize(gpu, NULL, &err), &err, "synchronize");
}

/* The median of RUNS launches, each between two device synchronizations.
 * Called after the check, so the timing runs cannot hide a bad first launch. */
static double median_ms(tirx_device *gpu, const Launch *l)
{
    double ms[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_ms();
        launch(gpu, l);
        ms[r] = now_ms() - t0;
    }
    qsort(ms, RUNS, sizeof ms[0], cmp_double);
    return ms[RUNS / 2];
}

/* The table's next row, for kernel `name`. */
static Row *new_row(Demo *d, const char *name, const char *size_fmt, ...)
    __attribute__((format(printf, 3, 4)));
static Row *new_row(Demo *d, const char *name, const char *size_fmt, ...)
{
    GPU_CHECK(d->nrows < MAX_ROWS, "at most MAX_ROWS rows");
    Row *row = &d->rows[d->nrows++];
    *row = (Row){.passed = false};
    snprintf(row->kernel, sizeof row->kernel, "%s", name);
    va_list ap;
    va_start(ap, size_fmt);
    vsnprintf(row->size, sizeof row->size, size_fmt, ap);
    va_end(ap);
    return row;
}

static void check_l2(Row *row, const float *out, const double *ref, size_t n, double tol)
{
    double rel = gpu_rel_l2(out, ref, n);
    row->passed = rel <= tol;
    snprintf(row->check, sizeof row->check, "rel L2 %.2e <= %g: %s", rel, tol,
             row->passed ? "ok" : "FAILED");
}

static void free_tensors(tirx_device *gpu, OpTensor *const *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tirx_device_free(gpu, t[i]->data);
}

/* ---- vector_add: C = A + B, n = 2^24 + 7 bound at launch ---- */

static void demo_vector_add(Demo *d)
{
    const int64_t n = (1 << 24) + 7;
    tirx_module *m = op_compile(d->gpu, "examples/vector_add.tirx", NULL, 0);
    float *a = malloc(n * 4), *b = malloc(n * 4), *c = malloc(n * 4);
    double *ref = malloc(n * 8);
    GPU_CHECK(a && b && c && ref, "host memory");
    gpu_fill_random(&d->rng, a, n), gpu_fill_random(&d->rng, b, n);
    for (int64_t i = 0; i < n; i++)
        ref[i] = (double)a[i] + (double)b[i];
    OpTensor A, B, C;
    op_tensor(d->gpu, &A, n, 1, kDLFloat, 32), op_tensor(d->gpu, &B, n, 1, kDLFloat, 32);
    op_tensor(d->gpu, &C, n, 1, kDLFloat, 32);
    A.t.ndim = B.t.ndim = C.t.ndim = 1;
    op_upload(d->gpu, &A, a), op_upload(d->gpu, &B, b), op_poison(d->gpu, &C);
    OpTensor *t[] = {&A, &B, &C};
    tirx_arg len = tirx_arg_int(n);
    Launch l = prepare(m, "vector_add", t, 3, &len, 1);
    launch(d->gpu, &l);
    op_download(d->gpu, &C, c);
    Row *row = new_row(d, "vector_add", "n = %lld", (long long)n);
    check_l2(row, c, ref, (size_t)n, 1e-6);
    row->ms = median_ms(d->gpu, &l);
    free_tensors(d->gpu, t, 3);
    tirx_module_free(m);
    free(a), free(b), free(c), free(ref);
}

/* ---- row_softmax: 4096 rows of n, in float64 on the CPU ---- */

static void softmax_reference(const float *x, double *y, int rows, int n)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * n;
        double *yr = y + (size_t)r * n, mx = -INFINITY, sum = 0;
        for (int i = 0; i < n; i++)
            mx = xr[i] > mx ? xr[i] : mx;
        for (int i = 0; i < n; i++)
            sum += (yr[i] = exp((double)xr[i] - mx));
        for (int i = 0; i < n; i++)
            yr[i] /= sum;
    }
}

static void demo_row_softmax(Demo *d, int n)
{
    const int rows = 4096;
    char nval[16];
    snprintf(nval, sizeof nval, "%d", n);
    tirx_define def = {"N", nval};
    tirx_module *m = op_compile(d->gpu, "examples/row_softmax.tirx", &def, 1);
    size_t count = (size_t)rows * n;
    float *x = malloc(count * 4), *y = malloc(count * 4);
    double *ref = malloc(count * 8);
    GPU_CHECK(x && y && ref, "host memory");
    for (size_t i = 0; i < count; i++)
        x[i] = 4.0f * gpu_uniform(&d->rng);
    softmax_reference(x, ref, rows, n);
    OpTensor X, Y;
    op_tensor(d->gpu, &X, rows, n, kDLFloat, 32), op_tensor(d->gpu, &Y, rows, n, kDLFloat, 32);
    op_upload(d->gpu, &X, x), op_poison(d->gpu, &Y);
    OpTensor *t[] = {&X, &Y};
    Launch l = prepare(m, "row_softmax", t, 2, NULL, 0);
    launch(d->gpu, &l);
    op_download(d->gpu, &Y, y);
    Row *row = new_row(d, "row_softmax", "%d x %d", rows, n);
    check_l2(row, y, ref, count, 1e-6);
    row->ms = median_ms(d->gpu, &l);
    free_tensors(d->gpu, t, 2);
    tirx_module_free(m);
    free(x), free(y), free(ref);
}

/* ---- tiled_gemm: float16 1024^3 into float32 ---- */

/* C = A @ B in float64 over the float16 inputs (B transposed first for locality). */
static void gemm_reference(const uint16_t *a, const uint16_t *b, double *c, int mm, int nn, int kk)
{
    double *bt = malloc((size_t)nn * kk * 8), *ar = malloc((size_t)kk * 8);
    GPU_CHECK(bt && ar, "host memory");
    for (int k = 0; k < kk; k++)
        for (int j = 0; j < nn; j++)
            bt[(size_t)j * kk + k] = op_f16_to_f32(b[(size_t)k * nn + j]);
    for (int i = 0; i < mm; i++) {
        for (int k = 0; k < kk; k++)
            ar[k] = op_f16_to_f32(a[(size_t)i * kk + k]);
        for (int j = 0; j < nn; j++) {
            double s = 0;
            for (int k = 0; k < kk; k++)
                s += ar[k] * bt[(size_t)j * kk + k];
            c[(size_t)i * nn + j] = s;
        }
    }
    free(bt), free(ar);
}

static void demo_tiled_gemm(Demo *d)
{
    const int size = 1024;
    tirx_define defs[] = {{"M", "1024"}, {"N", "1024"}, {"K", "1024"}, {"DTYPE", "float16"}};
    tirx_module *m = op_compile(d->gpu, "examples/tiled_gemm.tirx", defs, 4);
    size_t n = (size_t)size * size;
    uint16_t *a = malloc(n * 2), *b = malloc(n * 2);
    float *c = malloc(n * 4);
    double *ref = malloc(n * 8);
    GPU_CHECK(a && b && c && ref, "host memory");
    for (size_t i = 0; i < n; i++)
        a[i] = op_f32_to_f16(gpu_uniform(&d->rng)), b[i] = op_f32_to_f16(gpu_uniform(&d->rng));
    gemm_reference(a, b, ref, size, size, size);
    OpTensor A, B, C;
    op_tensor(d->gpu, &A, size, size, kDLFloat, 16), op_tensor(d->gpu, &B, size, size, kDLFloat, 16);
    op_tensor(d->gpu, &C, size, size, kDLFloat, 32);
    op_upload(d->gpu, &A, a), op_upload(d->gpu, &B, b), op_poison(d->gpu, &C);
    OpTensor *t[] = {&A, &B, &C};
    Launch l = prepare(m, "tiled_gemm", t, 3, NULL, 0);
    launch(d->gpu, &l);
    op_download(d->gpu, &C, c);
    Row *row = new_row(d, "tiled_gemm", "%d^3 fp16 -> fp32", size);
    check_l2(row, c, ref, n, 2e-3);
    row->ms = median_ms(d->gpu, &l);
    free_tensors(d->gpu, t, 3);
    tirx_module_free(m);
    free(a), free(b), free(c), free(ref);
}

/* ---- tma_copy: float16 1024 x 512 out through the swizzle (B) and a TMA store (C) ---- */

static void demo_tma_copy(Demo *d)
{
    const int rows = 1024, cols = 512;
    tirx_module *m = op_compile(d->gpu, "examples/tma_copy.tirx", NULL, 0);
    size_t n = (size_t)rows * cols;
    uint16_t *a = malloc(n * 2), *b = malloc(n * 2), *c = malloc(n * 2);
    GPU_CHECK(a && b && c, "host memory");
    for (size_t i = 0; i < n; i++)
        a[i] = (uint16_t)(gpu_next(&d->rng) >> 48);
    OpTensor A, B, C;
    op_tensor(d->gpu, &A, rows, cols, kDLFloat, 16), op_tensor(d->gpu, &B, rows, cols, kDLFloat, 16);
    op_tensor(d->gpu, &C, rows, cols, kDLFloat, 16);
    op_upload(d->gpu, &A, a), op_poison(d->gpu, &B), op_poison(d->gpu, &C);
    OpTensor *t[] = {&A, &B, &C};
    Launch l = prepare(m, "tma_copy", t, 3, NULL, 0);
    launch(d->gpu, &l);
    op_download(d->gpu, &B, b), op_download(d->gpu, &C, c);
    long long bad_b = op_first_difference(b, a, n * 2), bad_c = op_first_difference(c, a, n * 2);
    Row *row = new_row(d, "tma_copy", "%d x %d fp16", rows, cols);
    row->passed = bad_b < 0 && bad_c < 0;
    if (row->passed)
        snprintf(row->check, sizeof row->check, "B, C bit-exact: ok");
    else
        snprintf(row->check, sizeof row->check, "differs at byte %lld (%s): FAILED",
                 bad_b >= 0 ? bad_b : bad_c, bad_b >= 0 ? "B" : "C");
    row->ms = median_ms(d->gpu, &l);
    free_tensors(d->gpu, t, 3);
    tirx_module_free(m);
    free(a), free(b), free(c);
}

/* TMA (cp.async.bulk.tensor) needs sm_90 or newer. */
static bool has_tma(const char *arch)
{
    int major = atoi(arch + 3);
    return major >= 90;
}

static int print_table(const Demo *d)
{
    int failed = 0;
    printf("\n%-12s %-20s %-34s %10s\n", "kernel", "size", "check", "time (ms)");
    for (int i = 0; i < d->nrows; i++) {
        const Row *r = &d->rows[i];
        printf("%-12s %-20s %-34s %10.3f\n", r->kernel, r->size, r->check, r->ms);
        failed += !r->passed;
    }
    printf("\n%d of %d checks passed; time: median of %d launches, each between two device "
           "synchronizations\n", d->nrows - failed, d->nrows, RUNS);
    return failed ? 1 : 0;
}

int main(void)
{
    Demo d = {.nrows = 0};
    tirx_error err;
    if (tirx_device_open(0, &d.gpu, &err) != TIRX_OK)
        gpu_skip(err.message);
    const char *arch = tirx_device_arch(d.gpu);
    printf("device arch: %s\n", arch);
    d.rng = gpu_rng();
    demo_vector_add(&d);
    demo_row_softmax(&d, 1000);
    demo_row_softmax(&d, 8192);
    demo_tiled_gemm(&d);
    if (has_tma(arch))
        demo_tma_copy(&d);
    else
        printf("tma_copy: not run, %s has no TMA\n", arch);
    int rc = print_table(&d);
    tirx_device_close(d.gpu);
    return rc;
}
