/* GPU test of the copy variants (tests/gpu/op_copy.tirx): a 1000 x 1000
 * float16 matrix of random bits through shared memory in 64 x 64 tiles, in
 * with cp.async (copy_async "ldgsts", zero fill past the ragged edge), out
 * with 16-byte vector stores (copy "vec_auto", stores past the edge
 * dropped); and examples/tma_copy.tirx: 64 x 64 tiles in with TMA on an
 * mbarrier, out through the 128-byte swizzle by vector copies and by a TMA
 * store. Every output is poisoned first and must equal the input bit for
 * bit. Simulated (sim.op_copy) at 200 x 136 and 256 x 128. */
#include "op_kernel.h"

static void random_bits(GpuRng *rng, uint16_t *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (uint16_t)(gpu_next(rng) >> 48);
}

static void expect_equal(const void *got, const void *want, size_t bytes, const char *what)
{
    long long at = op_first_difference(got, want, bytes);
    if (at >= 0)
        printf("  %s differs first at byte %lld\n", what, at);
    else
        printf("  %s: bit-exact\n", what);
    GPU_CHECK(at < 0, "the copy is bit-exact");
}

/* -D M=rows N=cols */
static tirx_module *compile_sized(tirx_device *gpu, const char *file, int rows, int cols)
{
    char mv[16], nv[16];
    snprintf(mv, sizeof mv, "%d", rows), snprintf(nv, sizeof nv, "%d", cols);
    tirx_define d[] = {{"M", mv}, {"N", nv}};
    return op_compile(gpu, file, d, 2);
}

static void tile_copy(tirx_device *gpu, GpuRng *rng, int rows, int cols)
{
    printf("tile_copy %d x %d float16 (cp.async in, vector stores out):\n", rows, cols);
    tirx_module *m = compile_sized(gpu, "tests/gpu/op_copy.tirx", rows, cols);
    size_t n = (size_t)rows * cols;
    uint16_t *a = malloc(n * 2), *b = malloc(n * 2);
    GPU_CHECK(a && b, "host memory");
    random_bits(rng, a, n);
    OpTensor A, B;
    op_tensor(gpu, &A, rows, cols, kDLFloat, 16);
    op_tensor(gpu, &B, rows, cols, kDLFloat, 16);
    op_upload(gpu, &A, a), op_poison(gpu, &B);
    OpTensor *args[] = {&A, &B};
    op_launch(m, "tile_copy", args, 2);
    op_download(gpu, &B, b);
    expect_equal(b, a, n * 2, "B");
    op_free(gpu, &A), op_free(gpu, &B);
    tirx_module_free(m);
    free(a), free(b);
}

static void tma_copy(tirx_device *gpu, GpuRng *rng, int rows, int cols)
{
    printf("tma_copy %d x %d float16 (TMA in, swizzled vector copies and TMA store out):\n",
           rows, cols);
    tirx_module *m = compile_sized(gpu, "examples/tma_copy.tirx", rows, cols);
    size_t n = (size_t)rows * cols;
    uint16_t *a = malloc(n * 2), *b = malloc(n * 2), *c = malloc(n * 2);
    GPU_CHECK(a && b && c, "host memory");
    random_bits(rng, a, n);
    OpTensor A, B, C;
    op_tensor(gpu, &A, rows, cols, kDLFloat, 16);
    op_tensor(gpu, &B, rows, cols, kDLFloat, 16);
    op_tensor(gpu, &C, rows, cols, kDLFloat, 16);
    op_upload(gpu, &A, a), op_poison(gpu, &B), op_poison(gpu, &C);
    OpTensor *args[] = {&A, &B, &C};
    op_launch(m, "tma_copy", args, 3);
    op_download(gpu, &B, b);
    op_download(gpu, &C, c);
    expect_equal(b, a, n * 2, "B (vector copies through the swizzle)");
    expect_equal(c, a, n * 2, "C (TMA store)");
    op_free(gpu, &A), op_free(gpu, &B), op_free(gpu, &C);
    tirx_module_free(m);
    free(a), free(b), free(c);
}

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_ANY_GPU, NULL);
    const char *arch = op_arch(gpu);
    GpuRng rng = gpu_rng();
    tile_copy(gpu, &rng, OP_SIZE(1000, 200), OP_SIZE(1000, 136));
    if (strcmp(arch, "sm_90a") < 0 && strncmp(arch, "sm_1", 4) != 0)
        printf("tma_copy: skipped, %s has no TMA\n", arch);
    else
        tma_copy(gpu, &rng, OP_SIZE(1024, 256), OP_SIZE(512, 128));
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}
