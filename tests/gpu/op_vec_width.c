/* GPU test of the copy variants vec_16b ... vec_128b
 * (tests/gpu/op_vec_width.tirx): a 64 x 512 float16 matrix of random bits
 * through registers (ld.global.nc with cache hints) and shared memory in
 * pieces of 16, 8, 4 and 2 bytes (vec_widths), and in calls of eight vectors
 * each (vec_runs); the output is poisoned first and must equal the input bit
 * for bit. (vec_256b needs sm_100a: its CUDA is checked
 * by tests/build/copy_vec_width.tirx.) */
#include "op_kernel.h"

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_ANY_GPU, NULL);
    GpuRng rng = gpu_rng();
    tirx_module *m = op_compile(gpu, "tests/gpu/op_vec_width.tirx", NULL, 0);
    size_t n = 64 * 512;
    uint16_t *a = malloc(n * 2), *b = malloc(n * 2);
    GPU_CHECK(a && b, "host memory");
    for (size_t i = 0; i < n; i++)
        a[i] = (uint16_t)(gpu_next(&rng) >> 48);
    OpTensor A, B;
    op_tensor(gpu, &A, 64, 512, kDLFloat, 16);
    op_tensor(gpu, &B, 64, 512, kDLFloat, 16);
    op_upload(gpu, &A, a), op_poison(gpu, &B);
    OpTensor *args[] = {&A, &B};
    static const char *const funcs[] = {"vec_widths", "vec_runs"};
    for (int f = 0; f < 2; f++) {
        op_poison(gpu, &B);
        op_launch(m, funcs[f], args, 2);
        op_download(gpu, &B, b);
        long long at = op_first_difference(b, a, n * 2);
        if (at >= 0)
            printf("  %s: B differs first at byte %lld\n", funcs[f], at);
        GPU_CHECK(at < 0, "the copies are bit-exact");
        printf("  %s: bit-exact\n", funcs[f]);
    }
    op_free(gpu, &A), op_free(gpu, &B);
    free(a), free(b);
    tirx_module_free(m);
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}
