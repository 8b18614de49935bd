/* GPU test of the copy variants (tests/gpu/op_copy.tirx): a 1000 x 1000
 * float16 matrix of random bits through shared memory in 64 x 64 tiles, in
 * with cp.async (copy_async "ldgsts", zero fill past the ragged edge), out
 * with 16-byte vector stores (copy "vec_auto", stores past the edge
 * dropped); and examples/tma_copy.tirx: 64 x 64 tiles in with TMA on an
 * mbarrier, out through the 128-byte swizzle by vector copies and by a TMA
 * store. Every output is poisoned first and must equal the input bit for
 * bit. */
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

static void tile_copy(tirx_device *gpu, GpuRng *rng)
{
    printf("tile_copy 1000 x 1000 float16 (cp.async in, vector stores out):\n");
    tirx_module *m = op_compile(gpu, "tests/gpu/op_copy.tirx", NULL, 0);
    size_t n = 1000 * 1000;
    uint16_t *a = malloc(n * 2), *b = malloc(n * 2);
    GPU_CHECK(a && b, "host memory");
    random_bits(rng, a, n);
    OpTensor A, B;
    op_tensor(gpu, &A, 1000, 1000, kDLFloat, 16);
    op_tensor(gpu, &B, 1000, 1000, kDLFloat, 16);
    op_upload(gpu, &A, a), op_poison(gpu, &B);
    OpTensor *args[] = {&A, &B};
    op_launch(m, "tile_copy", args, 2);
    op_download(gpu, &B, b);
    expect_equal(b, a, n * 2, "B");
    tirx_device_free(gpu, A.data), tirx_device_free(gpu, B.data);
    tirx_module_free(m);
    free(a), free(b);
}

static void tma_copy(tirx_device *gpu, GpuRng *rng)
{
    printf("tma_copy 1024 x 512 float16 (TMA in, swizzled vector copies and TMA store out):\n");
    tirx_module *m = op_compile(gpu, "examples/tma_copy.tirx", NULL, 0);
    size_t n = 1024 * 512;
    uint16_t *a = malloc(n * 2), *b = malloc(n * 2), *c = malloc(n * 2);
    GPU_CHECK(a && b && c, "host memory");
    random_bits(rng, a, n);
    OpTensor A, B, C;
    op_tensor(gpu, &A, 1024, 512, kDLFloat, 16);
    op_tensor(gpu, &B, 1024, 512, kDLFloat, 16);
    op_tensor(gpu, &C, 1024, 512, kDLFloat, 16);
    op_upload(gpu, &A, a), op_poison(gpu, &B), op_poison(gpu, &C);
    OpTensor *args[] = {&A, &B, &C};
    op_launch(m, "tma_copy", args, 3);
    op_download(gpu, &B, b);
    op_download(gpu, &C, c);
    expect_equal(b, a, n * 2, "B (vector copies through the swizzle)");
    expect_equal(c, a, n * 2, "C (TMA store)");
    tirx_device_free(gpu, A.data), tirx_device_free(gpu, B.data), tirx_device_free(gpu, C.data);
    tirx_module_free(m);
    free(a), free(b), free(c);
}

int main(void)
{
    tirx_device *gpu;
    tirx_error err;
    if (tirx_device_open(0, &gpu, &err) != TIRX_OK)
        gpu_skip(err.message);
    const char *arch = tirx_device_arch(gpu);
    printf("device arch: %s\n", arch);
    GpuRng rng = gpu_rng();
    tile_copy(gpu, &rng);
    if (strcmp(arch, "sm_90a") < 0 && strncmp(arch, "sm_1", 4) != 0)
        printf("tma_copy: skipped, %s has no TMA\n", arch);
    else
        tma_copy(gpu, &rng);
    tirx_device_close(gpu);
    printf("PASSED\n");
    return 0;
}
