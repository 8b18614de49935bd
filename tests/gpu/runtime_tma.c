/* GPU test of TMA through the runtime (sm_90+): a tensor map encoded by
 * rt_tensor_map_encode for a 300 x 1000 fp32 matrix (rows of 4000 bytes) with
 * 32 x 64 boxes, passed by value as a __grid_constant__ kernel parameter.
 * Each CTA loads one box with cp.async.bulk.tensor completing on an mbarrier
 * and copies it to a padded output, so the copy must be bit-exact inside the
 * matrix and zero where the box hangs over its ragged right and bottom edges
 * (the map's out-of-bounds fill). */
#include "gpu_test.h"

#define ROWS 300
#define COLS 1000
#define BOX_ROWS 32
#define BOX_COLS 64
#define TILES_X ((COLS + BOX_COLS - 1) / BOX_COLS)
#define TILES_Y ((ROWS + BOX_ROWS - 1) / BOX_ROWS)
#define PADDED_COLS (TILES_X * BOX_COLS)
#define PADDED_ROWS (TILES_Y * BOX_ROWS)

static const char source[] =
    "typedef unsigned int u32;\n"
    "struct __align__(64) CUtensorMap { unsigned long long opaque[16]; };\n"
    "#define BOX_ROWS 32\n"
    "#define BOX_COLS 64\n"
    "extern \"C\" __global__ void tma_tile_copy(const __grid_constant__ CUtensorMap map,\n"
    "                                           float *out, int padded_cols) {\n"
    "  __shared__ __align__(128) float tile[BOX_ROWS * BOX_COLS];\n"
    "  __shared__ __align__(8) unsigned long long bar;\n"
    "  u32 bar_addr = (u32)__cvta_generic_to_shared(&bar);\n"
    "  u32 tile_addr = (u32)__cvta_generic_to_shared(tile);\n"
    "  int x = blockIdx.x * BOX_COLS, y = blockIdx.y * BOX_ROWS;\n"
    "  if (threadIdx.x == 0) {\n"
    "    asm volatile(\"mbarrier.init.shared::cta.b64 [%0], 1;\" :: \"r\"(bar_addr));\n"
    "    asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\");\n"
    "  }\n"
    "  __syncthreads();\n"
    "  if (threadIdx.x == 0) {\n"
    "    asm volatile(\"mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\"\n"
    "                 :: \"r\"(bar_addr), \"r\"((u32)sizeof(tile)) : \"memory\");\n"
    "    asm volatile(\"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes\"\n"
    "                 \" [%0], [%1, {%2, %3}], [%4];\"\n"
    "                 :: \"r\"(tile_addr), \"l\"(&map), \"r\"(x), \"r\"(y), \"r\"(bar_addr) : \"memory\");\n"
    "  }\n"
    "  u32 done = 0;\n"
    "  while (!done)\n"
    "    asm volatile(\"{\\n.reg .pred p;\\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\\n\"\n"
    "                 \"selp.u32 %0, 1, 0, p;\\n}\" : \"=r\"(done) : \"r\"(bar_addr) : \"memory\");\n"
    "  for (int i = threadIdx.x; i < BOX_ROWS * BOX_COLS; i += blockDim.x)\n"
    "    out[(long long)(y + i / BOX_COLS) * padded_cols + x + i % BOX_COLS] = tile[i];\n"
    "}\n";

int main(void)
{
    RtDevice *d = gpu_open(9);
    RtModule *m = gpu_build(d, source, NULL);
    RtFunction *f = gpu_function(m, "tma_tile_copy");
    RtError err;
    GpuRng rng = gpu_rng();
    float *in = malloc(ROWS * COLS * sizeof(float));
    float *out = malloc(PADDED_ROWS * PADDED_COLS * sizeof(float));
    gpu_fill_random(&rng, in, ROWS * COLS);
    RtDevPtr din, dout = gpu_alloc_poisoned(d, PADDED_ROWS * PADDED_COLS * sizeof(float));
    GPU_OK(rt_mem_alloc(d, ROWS * COLS * sizeof(float), &din, &err), err);
    GPU_OK(rt_memcpy_htod(d, din, in, ROWS * COLS * sizeof(float), &err), err);

    RtTensorMapSpec spec = {
        .dtype = RT_TMA_FLOAT32, .rank = 2, .global_address = din,
        .global_dim = {COLS, ROWS}, .global_strides = {COLS * sizeof(float)},
        .box_dim = {BOX_COLS, BOX_ROWS}, .swizzle = RT_TMA_SWIZZLE_NONE,
        .l2_promotion = RT_TMA_L2_128B, .oob_fill = RT_TMA_OOB_ZERO,
    };
    RtTensorMap map;
    GPU_OK(rt_tensor_map_encode(&spec, &map, &err), err);
    int padded_cols = PADDED_COLS;
    void *args[] = {&map, &dout, &padded_cols};
    RtLaunchConfig cfg = {.grid = {TILES_X, TILES_Y, 1}, .block = {128, 1, 1}};
    GPU_OK(rt_launch(f, &cfg, args, &err), err);
    GPU_OK(rt_synchronize(d, NULL, &err), err);
    GPU_OK(rt_memcpy_dtoh(d, out, dout, PADDED_ROWS * PADDED_COLS * sizeof(float), &err), err);

    size_t wrong = 0, zero = 0;
    for (int r = 0; r < PADDED_ROWS; r++)
        for (int c = 0; c < PADDED_COLS; c++) {
            const float *got = &out[r * PADDED_COLS + c];
            float expect = r < ROWS && c < COLS ? in[r * COLS + c] : 0.0f;
            wrong += memcmp(got, &expect, sizeof expect) != 0;
            zero += r >= ROWS || c >= COLS;
        }
    printf("TMA copy of %dx%d in %dx%d boxes: %zu of %d elements wrong (%zu out-of-bounds zeros)\n",
           ROWS, COLS, BOX_ROWS, BOX_COLS, wrong, PADDED_ROWS * PADDED_COLS, zero);
    GPU_CHECK(wrong == 0, "bit-exact inside, zero-filled outside");

    spec.global_address += 4; /* misaligned: refused before the driver sees it */
    GPU_CHECK(rt_tensor_map_encode(&spec, &map, &err) == RT_ERR_USAGE, "a misaligned base is refused");
    printf("misaligned base: %s\n", err.message);
    rt_mem_free(d, din);
    rt_mem_free(d, dout);
    free(in);
    free(out);
    rt_module_unload(m);
    rt_device_close(d);
    printf("PASSED\n");
    return 0;
}
