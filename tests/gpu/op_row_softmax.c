/* GPU test of examples/row_softmax.tirx (tile primitives: vectorized copies,
 * CTA-wide max and sum with warp shuffles and a shared scratch, elementwise
 * sub, exp and fdiv over shared memory): 4096 rows of N = 1000 (ragged: 250
 * vectors for 256 threads, 1000 = 3 * 256 + 232 elements) and N = 8192; and
 * of tests/gpu/op_softmax_reg.tirx (a warp per row in registers: register
 * tile copies, warp reductions over register tiles, elementwise on
 * registers), N = 1024. Against softmax in float64 on random inputs, output
 * poisoned first; relative L2 error at most 1e-6. Simulated (sim.op_row_softmax)
 * with 8 rows. */
#include "op_kernel.h"

#define ROWS OP_SIZE(4096, 8)

static void softmax_ref(const float *x, double *y, int n)
{
    for (int r = 0; r < ROWS; r++) {
        const float *xr = x + (size_t)r * n;
        double m = -INFINITY, s = 0;
        for (int i = 0; i < n; i++)
            m = xr[i] > m ? xr[i] : m;
        for (int i = 0; i < n; i++)
            s += exp((double)xr[i] - m);
        for (int i = 0; i < n; i++)
            y[(size_t)r * n + i] = exp((double)xr[i] - m) / s;
    }
}

static void check(tirx_device *gpu, GpuRng *rng, const char *file, const char *func, int n)
{
    char nval[16], rows[16];
    snprintf(nval, sizeof nval, "%d", n), snprintf(rows, sizeof rows, "%d", ROWS);
    tirx_define d[] = {{"N", nval}, {"ROWS", rows}};
    printf("%s %d x %d:\n", func, ROWS, n);
    tirx_module *m = op_compile(gpu, file, d, 2);
    size_t count = (size_t)ROWS * n;
    float *x = malloc(count * 4), *y = malloc(count * 4);
    double *ref = malloc(count * 8);
    GPU_CHECK(x && y && ref, "host memory");
    for (size_t i = 0; i < count; i++)
        x[i] = 4.0f * gpu_uniform(rng);
    softmax_ref(x, ref, n);
    OpTensor X, Y;
    op_tensor(gpu, &X, ROWS, n, kDLFloat, 32);
    op_tensor(gpu, &Y, ROWS, n, kDLFloat, 32);
    op_upload(gpu, &X, x);
    op_poison(gpu, &Y);
    OpTensor *args[] = {&X, &Y};
    op_launch(m, func, args, 2);
    op_download(gpu, &Y, y);
    double rel = gpu_rel_l2(y, ref, count);
    printf("  rel L2 error %.3g\n", rel);
    GPU_CHECK(rel <= 1e-6, "row softmax matches the float64 reference");
    op_free(gpu, &X);
    op_free(gpu, &Y);
    tirx_module_free(m);
    free(x), free(y), free(ref);
}

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_ANY_GPU, NULL);
    GpuRng rng = gpu_rng();
    check(gpu, &rng, "examples/row_softmax.tirx", "row_softmax", 1000);
    check(gpu, &rng, "examples/row_softmax.tirx", "row_softmax", 8192);
    check(gpu, &rng, "tests/gpu/op_softmax_reg.tirx", "softmax_reg", 1024);
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}
