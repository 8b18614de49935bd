/* GPU test of the copy variant "ldstmatrix" (tests/gpu/op_ldstmatrix.tirx):
 * epilogue (sm_90a+) casts a float32 wgmma-accumulator tile to bfloat16 in
 * registers, stores it with stmatrix into a row-major and a 128-byte
 * swizzled shared tile and TMA-stores both; load_trans reads the mma B
 * operand with ldmatrix.trans and a swizzled 64 x 64 tile with ldmatrix.
 * Every output is poisoned first and must equal, bit for bit, what the CPU
 * computes from random inputs (the bfloat16 rounding of A; the input bits). */
#include "op_kernel.h"

static void expect_equal(const void *got, const void *want, size_t bytes, const char *what)
{
    long long at = op_first_difference(got, want, bytes);
    if (at >= 0)
        printf("  %s differs first at byte %lld\n", what, at);
    else
        printf("  %s: bit-exact\n", what);
    GPU_CHECK(at < 0, "the copy is bit-exact");
}

static void epilogue(tirx_device *gpu, tirx_module *m, GpuRng *rng)
{
    printf("epilogue 128 x 128: float32 accumulator -> bfloat16 -> stmatrix -> TMA store:\n");
    size_t n = 128 * 128;
    float *a = malloc(n * 4);
    uint16_t *want = malloc(n * 2), *c = malloc(n * 2), *d = malloc(n * 2);
    GPU_CHECK(a && want && c && d, "host memory");
    gpu_fill_random(rng, a, n);
    for (size_t i = 0; i < n; i++)
        want[i] = op_f32_to_bf16(a[i]);
    OpTensor A, C, D;
    op_tensor(gpu, &A, 128, 128, kDLFloat, 32);
    op_tensor(gpu, &C, 128, 128, kDLBfloat, 16);
    op_tensor(gpu, &D, 128, 128, kDLBfloat, 16);
    op_upload(gpu, &A, a), op_poison(gpu, &C), op_poison(gpu, &D);
    OpTensor *args[] = {&A, &C, &D};
    op_launch(m, "epilogue", args, 3);
    op_download(gpu, &C, c);
    op_download(gpu, &D, d);
    expect_equal(c, want, n * 2, "C (stmatrix into the 128-byte swizzle)");
    expect_equal(d, want, n * 2, "D (stmatrix into a row-major tile)");
    op_free(gpu, &A), op_free(gpu, &C), op_free(gpu, &D);
    free(a), free(want), free(c), free(d);
}

static void random_bits(GpuRng *rng, uint16_t *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (uint16_t)(gpu_next(rng) >> 48);
}

static void load_trans(tirx_device *gpu, tirx_module *m, GpuRng *rng)
{
    printf("load_trans: ldmatrix.x2.trans of a 16 x 8 B operand, ldmatrix.x4 of a swizzled tile:\n");
    uint16_t b[16 * 8], b_out[16 * 8], *t = malloc(64 * 64 * 2), *t_out = malloc(64 * 64 * 2);
    GPU_CHECK(t && t_out, "host memory");
    random_bits(rng, b, 16 * 8);
    random_bits(rng, t, 64 * 64);
    OpTensor B, Bo, T, To;
    op_tensor(gpu, &B, 16, 8, kDLFloat, 16);
    op_tensor(gpu, &Bo, 16, 8, kDLFloat, 16);
    op_tensor(gpu, &T, 64, 64, kDLFloat, 16);
    op_tensor(gpu, &To, 64, 64, kDLFloat, 16);
    op_upload(gpu, &B, b), op_upload(gpu, &T, t), op_poison(gpu, &Bo), op_poison(gpu, &To);
    OpTensor *args[] = {&B, &Bo, &T, &To};
    op_launch(m, "load_trans", args, 4);
    op_download(gpu, &Bo, b_out);
    op_download(gpu, &To, t_out);
    expect_equal(b_out, b, sizeof b, "B through ldmatrix.trans");
    expect_equal(t_out, t, 64 * 64 * 2, "the swizzled tile through ldmatrix");
    op_free(gpu, &B), op_free(gpu, &Bo);
    op_free(gpu, &T), op_free(gpu, &To);
    free(t), free(t_out);
}

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_SM90_OR_NEWER, "stmatrix and TMA need sm_90a or newer");
    GpuRng rng = gpu_rng();
    tirx_module *m = op_compile(gpu, "tests/gpu/op_ldstmatrix.tirx", NULL, 0);
    epilogue(gpu, m, &rng);
    load_trans(gpu, m, &rng);
    tirx_module_free(m);
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}
