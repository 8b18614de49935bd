/* GPU test of cluster launches (sm_90+): each CTA writes a value into its own
 * shared memory, the cluster synchronises, and each CTA reads its right-hand
 * neighbour's value through distributed shared memory (mapa +
 * ld.shared::cluster). That only works inside a real cluster, so the values
 * prove the launch attribute took effect: the CTA's rank and the cluster's
 * size as the hardware reports them, and the neighbour's value. Cluster
 * shapes 2, 4, 8 (portable), 2x2 and 16 (non-portable: the runtime must allow
 * it first). A grid that is not a multiple of the cluster is a usage error. */
#include "gpu_test.h"

static const char source[] =
    "typedef unsigned int u32;\n"
    "static __device__ __forceinline__ u32 sreg(u32 which) {\n"
    "  u32 v;\n"
    "  if (which == 0) asm volatile(\"mov.u32 %0, %%cluster_ctarank;\" : \"=r\"(v));\n"
    "  else asm volatile(\"mov.u32 %0, %%cluster_nctarank;\" : \"=r\"(v));\n"
    "  return v;\n"
    "}\n"
    "static __device__ __forceinline__ void cluster_sync() {\n"
    "  asm volatile(\"barrier.cluster.arrive.release.aligned;\\n\"\n"
    "               \"barrier.cluster.wait.acquire.aligned;\" ::: \"memory\");\n"
    "}\n"
    "extern \"C\" __global__ void cluster_probe(u32 *out) {\n"
    "  __shared__ u32 mine;\n"
    "  u32 rank = sreg(0), size = sreg(1);\n"
    "  u32 block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);\n"
    "  if (threadIdx.x == 0) mine = 1000u * block + 7u;\n"
    "  cluster_sync();\n"
    "  u32 local = (u32)__cvta_generic_to_shared(&mine), remote, theirs;\n"
    "  asm volatile(\"mapa.shared::cluster.u32 %0, %1, %2;\" : \"=r\"(remote) : \"r\"(local), \"r\"((rank + 1) % size));\n"
    "  asm volatile(\"ld.shared::cluster.u32 %0, [%1];\" : \"=r\"(theirs) : \"r\"(remote) : \"memory\");\n"
    "  cluster_sync();\n"
    "  if (threadIdx.x == 0) { out[3*block] = rank; out[3*block+1] = size; out[3*block+2] = theirs; }\n"
    "}\n";

/* The block index of the CTA with cluster rank r in the cluster of block b
 * (ranks are x-fastest within the cluster). */
static unsigned block_of_rank(const unsigned grid[3], const unsigned cl[3], unsigned b, unsigned r)
{
    unsigned bx = b % grid[0], by = b / grid[0] % grid[1], bz = b / (grid[0] * grid[1]);
    unsigned x = bx - bx % cl[0] + r % cl[0];
    unsigned y = by - by % cl[1] + r / cl[0] % cl[1];
    unsigned z = bz - bz % cl[2] + r / (cl[0] * cl[1]);
    return x + grid[0] * (y + grid[1] * z);
}

static void check_shape(RtDevice *d, RtFunction *f, unsigned gx, unsigned gy, unsigned cx,
                        unsigned cy)
{
    RtError err;
    unsigned grid[3] = {gx, gy, 1}, cl[3] = {cx, cy, 1};
    unsigned blocks = gx * gy, size = cx * cy;
    RtDevPtr dout = gpu_alloc_poisoned(d, 3 * blocks * sizeof(unsigned));
    void *args[] = {&dout};
    RtLaunchConfig cfg = {.grid = {gx, gy, 1}, .block = {128, 1, 1}, .cluster = {cx, cy, 1}};
    GPU_OK(rt_launch(f, &cfg, args, &err), err);
    GPU_OK(rt_synchronize(d, NULL, &err), err);
    unsigned *out = malloc(3 * blocks * sizeof(unsigned));
    GPU_OK(rt_memcpy_dtoh(d, out, dout, 3 * blocks * sizeof(unsigned), &err), err);
    unsigned wrong = 0;
    for (unsigned b = 0; b < blocks; b++) {
        unsigned rank = out[3 * b];
        unsigned expect_rank = b % gx % cx + cx * (b / gx % cy);
        unsigned neighbour = block_of_rank(grid, cl, b, (rank + 1) % size);
        wrong += rank != expect_rank || out[3 * b + 1] != size ||
                 out[3 * b + 2] != 1000u * neighbour + 7u;
    }
    printf("grid %2ux%u, cluster %2ux%u: %u of %u CTAs wrong\n", gx, gy, cx, cy, wrong, blocks);
    GPU_CHECK(wrong == 0, "ranks, cluster size and the neighbour's shared memory");
    free(out);
    rt_mem_free(d, dout);
}

int main(void)
{
    RtDevice *d = gpu_open(9);
    GPU_CHECK(rt_device_info(d)->cluster_launch, "the device supports cluster launch");
    RtModule *m = gpu_build(d, source, NULL);
    RtFunction *f = gpu_function(m, "cluster_probe");
    check_shape(d, f, 64, 1, 2, 1);
    check_shape(d, f, 64, 1, 4, 1);
    check_shape(d, f, 64, 1, 8, 1);
    check_shape(d, f, 8, 8, 2, 2);
    check_shape(d, f, 32, 1, 16, 1);
    RtError err;
    RtDevPtr none = 0;
    void *args[] = {&none};
    RtLaunchConfig ragged = {.grid = {6, 1, 1}, .block = {128, 1, 1}, .cluster = {4, 1, 1}};
    GPU_CHECK(rt_launch(f, &ragged, args, &err) == RT_ERR_USAGE, "grid 6 with cluster 4 is refused");
    printf("ragged grid: %s\n", err.message);
    rt_module_unload(m);
    rt_device_close(d);
    printf("PASSED\n");
    return 0;
}
