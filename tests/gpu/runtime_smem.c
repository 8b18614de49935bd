/* GPU test of dynamic shared memory: each block stages its slice of the input
 * in `extern __shared__` memory and writes it back reversed, so every byte of
 * the allocation is written and read. Sizes below 48 KiB, at the device's
 * opt-in maximum (the runtime must raise the kernel's limit) and in between
 * (no lowering) all give the exact result; one byte over the maximum is a
 * usage error naming the limit. */
#include "gpu_test.h"

static const char source[] =
    "extern \"C\" __global__ void reverse_tiles(float *out, const float *in, int per_block) {\n"
    "  extern __shared__ float tile[];\n"
    "  const float *src = in + (long long)blockIdx.x * per_block;\n"
    "  for (int j = threadIdx.x; j < per_block; j += blockDim.x) tile[j] = src[j];\n"
    "  __syncthreads();\n"
    "  float *dst = out + (long long)blockIdx.x * per_block;\n"
    "  for (int j = threadIdx.x; j < per_block; j += blockDim.x) dst[j] = tile[per_block - 1 - j];\n"
    "}\n";

static void run_size(RtDevice *d, RtFunction *f, size_t smem_bytes, GpuRng *rng)
{
    RtError err;
    int per_block = (int)(smem_bytes / sizeof(float));
    unsigned blocks = 2u * (unsigned)rt_device_info(d)->sm_count;
    size_t n = (size_t)per_block * blocks;
    float *in = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float));
    gpu_fill_random(rng, in, n);
    RtDevPtr din, dout = gpu_alloc_poisoned(d, n * sizeof(float));
    GPU_OK(rt_mem_alloc(d, n * sizeof(float), &din, &err), err);
    GPU_OK(rt_memcpy_htod(d, din, in, n * sizeof(float), &err), err);
    void *args[] = {&dout, &din, &per_block};
    RtLaunchConfig cfg = {.grid = {blocks, 1, 1}, .block = {256, 1, 1}, .dyn_smem_bytes = smem_bytes};
    GPU_OK(rt_launch(f, &cfg, args, &err), err);
    GPU_OK(rt_synchronize(d, NULL, &err), err);
    GPU_OK(rt_memcpy_dtoh(d, out, dout, n * sizeof(float), &err), err);
    size_t wrong = 0;
    for (size_t b = 0; b < blocks; b++)
        for (int j = 0; j < per_block; j++)
            wrong += memcmp(&out[b * per_block + j], &in[b * per_block + per_block - 1 - j],
                            sizeof(float)) != 0;
    printf("dynamic shared memory %7zu B, %u blocks: %zu of %zu elements wrong\n", smem_bytes,
           blocks, wrong, n);
    GPU_CHECK(wrong == 0, "every block reverses its tile exactly");
    rt_mem_free(d, din);
    rt_mem_free(d, dout);
    free(in);
    free(out);
}

int main(void)
{
    RtDevice *d = gpu_open(7);
    RtModule *m = gpu_build(d, source, NULL);
    RtFunction *f = gpu_function(m, "reverse_tiles");
    GpuRng rng = gpu_rng();
    size_t max = (size_t)rt_device_info(d)->smem_per_block_optin -
                 (size_t)rt_function_resources(f)->static_smem_bytes;
    max &= ~(size_t)15;
    GPU_CHECK(max > 48 * 1024, "the device allows more than 48 KiB per block");
    run_size(d, f, 40 * 1024, &rng);
    run_size(d, f, max, &rng);
    run_size(d, f, 100 * 1024, &rng);
    RtError err;
    int per_block = 1;
    RtDevPtr none = 0;
    void *args[] = {&none, &none, &per_block};
    RtLaunchConfig over = {.grid = {1, 1, 1}, .block = {32, 1, 1},
                           .dyn_smem_bytes = (size_t)rt_device_info(d)->smem_per_block_optin + 1};
    GPU_CHECK(rt_launch(f, &over, args, &err) == RT_ERR_USAGE, "too much shared memory is refused");
    printf("over the limit: %s\n", err.message);
    GPU_CHECK(strstr(err.message, "bytes of shared memory per block") != NULL, "the message says why");
    rt_module_unload(m);
    rt_device_close(d);
    printf("PASSED\n");
    return 0;
}
