/* GPU test of the copy_async variants "dsmem" and "st_async"
 * (tests/gpu/op_dsmem.tirx): clusters of two CTAs swap 64 x 64 float16 tiles
 * of random bits through distributed shared memory (per-row chunks into a
 * padded tile, one whole-tile chunk, and 16-byte st.async stores from
 * registers into a swizzled tile), completing on the receiver's mbarrier.
 * B, C and D are poisoned first; CTA r's tiles must equal CTA r ^ 1's tile
 * of A bit for bit. */
#include "op_kernel.h"

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_SM90_OR_NEWER, "clusters need sm_90a or newer");
    GpuRng rng = gpu_rng();
    tirx_module *m = op_compile(gpu, "tests/gpu/op_dsmem.tirx", NULL, 0);
    size_t n = 256 * 64, tile = 64 * 64;
    uint16_t *a = malloc(n * 2), *want = malloc(n * 2), *b = malloc(n * 2), *c = malloc(n * 2),
             *d = malloc(n * 2);
    GPU_CHECK(a && want && b && c && d, "host memory");
    for (size_t i = 0; i < n; i++)
        a[i] = (uint16_t)(gpu_next(&rng) >> 48);
    for (size_t cta = 0; cta < 4; cta++)
        memcpy(want + cta * tile, a + (cta ^ 1) * tile, tile * 2);
    OpTensor A, B, C, D;
    op_tensor(gpu, &A, 256, 64, kDLFloat, 16);
    op_tensor(gpu, &B, 256, 64, kDLFloat, 16);
    op_tensor(gpu, &C, 256, 64, kDLFloat, 16);
    op_tensor(gpu, &D, 256, 64, kDLFloat, 16);
    op_upload(gpu, &A, a), op_poison(gpu, &B), op_poison(gpu, &C), op_poison(gpu, &D);
    OpTensor *args[] = {&A, &B, &C, &D};
    op_launch(m, "swap", args, 4);
    op_download(gpu, &B, b);
    op_download(gpu, &C, c);
    op_download(gpu, &D, d);
    long long at_b = op_first_difference(b, want, n * 2), at_c = op_first_difference(c, want, n * 2),
              at_d = op_first_difference(d, want, n * 2);
    printf("  B (row chunks): %s, C (one chunk): %s, D (st.async): %s\n",
           at_b < 0 ? "bit-exact" : "differs", at_c < 0 ? "bit-exact" : "differs",
           at_d < 0 ? "bit-exact" : "differs");
    GPU_CHECK(at_b < 0 && at_c < 0 && at_d < 0, "the swapped tiles are bit-exact");
    op_free(gpu, &A), op_free(gpu, &B), op_free(gpu, &C), op_free(gpu, &D);
    free(a), free(want), free(b), free(c), free(d);
    tirx_module_free(m);
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}
