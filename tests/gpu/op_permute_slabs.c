/* GPU test of permute_layout (variant warp_xor_swizzle) and of sub-regions
 * of register tiles (tests/gpu/op_permute_slabs.tirx): a (4, 32) uint32
 * tile re-laid out in place into its column-major view must hold A[i, j] at
 * flat element i + 4 * j, bit for bit; a warpgroup's float32 tile moved by
 * column slabs must give Y[:, 0:16] = X[:, 48:64] + 1 and
 * Y[:, 16:64] = X[:, 0:48] exactly. */
#include "op_kernel.h"

static void check_permute(tirx_device *gpu, tirx_module *m, GpuRng *rng)
{
    uint32_t a[128], b[128], want[128];
    for (int k = 0; k < 128; k++)
        a[k] = (uint32_t)(gpu_next(rng) >> 32);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 32; j++)
            want[i + 4 * j] = a[i * 32 + j];
    OpTensor A, B;
    op_tensor(gpu, &A, 4, 32, kDLUInt, 32);
    op_tensor(gpu, &B, 4, 32, kDLUInt, 32);
    op_upload(gpu, &A, a), op_poison(gpu, &B);
    OpTensor *args[] = {&A, &B};
    op_launch(m, "permute", args, 2);
    op_download(gpu, &B, b);
    long long at = op_first_difference(b, want, sizeof b);
    if (at >= 0)
        printf("  permute: B differs first at byte %lld\n", at);
    GPU_CHECK(at < 0, "permute_layout re-lays the tile out exactly");
    printf("  permute: exact\n");
    op_free(gpu, &A), op_free(gpu, &B);
}

static void check_slabs(tirx_device *gpu, tirx_module *m, GpuRng *rng)
{
    size_t n = 128 * 64;
    float *x = malloc(n * 4), *y = malloc(n * 4), *want = malloc(n * 4);
    GPU_CHECK(x && y && want, "host memory");
    for (size_t k = 0; k < n; k++)
        x[k] = (float)(int)(gpu_next(rng) % 2001) - 1000.0f;
    for (int r = 0; r < 128; r++)
        for (int c = 0; c < 64; c++)
            want[r * 64 + c] = c < 16 ? x[r * 64 + 48 + c] + 1.0f : x[r * 64 + c - 16];
    OpTensor X, Y;
    op_tensor(gpu, &X, 128, 64, kDLFloat, 32);
    op_tensor(gpu, &Y, 128, 64, kDLFloat, 32);
    op_upload(gpu, &X, x), op_poison(gpu, &Y);
    OpTensor *args[] = {&X, &Y};
    op_launch(m, "slabs", args, 2);
    op_download(gpu, &Y, y);
    long long at = op_first_difference(y, want, n * 4);
    if (at >= 0)
        printf("  slabs: Y differs first at byte %lld\n", at);
    GPU_CHECK(at < 0, "the register slabs move exactly");
    printf("  slabs: exact\n");
    op_free(gpu, &X), op_free(gpu, &Y);
    free(x), free(y), free(want);
}

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_ANY_GPU, NULL);
    GpuRng rng = gpu_rng();
    tirx_module *m = op_compile(gpu, "tests/gpu/op_permute_slabs.tirx", NULL, 0);
    check_permute(gpu, m, &rng);
    check_slabs(gpu, m, &rng);
    tirx_module_free(m);
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}
