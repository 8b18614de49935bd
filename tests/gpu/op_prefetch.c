/* GPU test of tile primitive prefetch (tests/gpu/op_prefetch.tirx): every
 * variant prefetches the rows a CTA then copies; the copy must be bit-exact.
 * In the simulator, a prefetch past the end of A is an error naming it. */
#include "op_kernel.h"

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_ANY_GPU, NULL);
    GpuRng rng = gpu_rng();
    tirx_module *m = op_compile(gpu, "tests/gpu/op_prefetch.tirx", NULL, 0);
    size_t n = 64 * 656;
    uint8_t *a = malloc(n), *b = malloc(n);
    GPU_CHECK(a && b, "host memory");
    for (size_t i = 0; i < n; i++)
        a[i] = (uint8_t)(gpu_next(&rng) >> 56);
    OpTensor A, B;
    op_tensor(gpu, &A, 64, 656, kDLUInt, 8);
    op_tensor(gpu, &B, 64, 656, kDLUInt, 8);
    op_upload(gpu, &A, a), op_poison(gpu, &B);
    OpTensor *args[] = {&A, &B};
    op_launch(m, "prefetch_copy", args, 2);
    op_download(gpu, &B, b);
    long long at = op_first_difference(b, a, n);
    if (at >= 0)
        printf("  B differs first at byte %lld\n", at);
    GPU_CHECK(at < 0, "the copy after the prefetches is bit-exact");
    printf("  B: bit-exact\n");
    tirx_arg row[2] = {tirx_arg_tensor(&A.t), tirx_arg_int(63)};
    op_launch_args(m, "prefetch_row", row, 2);
    if (OP_SIM) {
        tirx_error err;
        row[1] = tirx_arg_int(64);
        GPU_CHECK(tirx_simulate(m, "prefetch_row", row, 2, &err) != TIRX_OK &&
                      strstr(err.message, "op_prefetch.tirx:28:9") &&
                      strstr(err.message, "a prefetch of 656 bytes"),
                  "a prefetch past the end of A is reported at its line");
        printf("  past the end: %s\n", err.message);
    }
    op_free(gpu, &A), op_free(gpu, &B);
    free(a), free(b);
    tirx_module_free(m);
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}
