/* GPU test of cluster launches (sm_90+): each CTA writes a value into its own
 * shared memory, the cluster synchronises, and each CTA reads its right-hand
 * neighbour's value through distributed shared memory (mapa +
 * ld.shared::cluster). That only works inside a real cluster, so the values
 * prove the launch attribute took effect: the CTA's rank and the cluster's
 * size as the hardware reports them, and the neighbour's value. Cluster
 * shapes 2, 4, 8 (portable), 2x2 and 16 (non-portable: the runtime must allow
 * it first). A grid that is not a multiple of the cluster is a usage error.
 * With OP_SIM=1 (sim.runtime_cluster) the same probe, written in the IR
 * contract's form, runs in the simulator with the same launch configurations
 * and checks: the simulator's cluster ranks, sizes and distributed shared
 * memory, and its refusal of the ragged grid. */
#include "codegen_test.h"

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

/* The same probe in the IR the simulator runs. */
static const char probe_ir[] =
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def cluster_probe(Out_data: T.handle(\"uint32\", \"global\")):\n"
    "        T.func_attr({\"calling_conv\": 2, \"target\": \"cuda\", \"tirx.kernel_launch_params\": [\"blockIdx.x\", \"threadIdx.x\"]})\n"
    "        blockIdx_x = T.launch_thread(\"blockIdx.x\", 64)\n"
    "        threadIdx_x = T.launch_thread(\"threadIdx.x\", 128)\n"
    "        Out = T.decl_buffer((192,), \"uint32\", data=Out_data, layout=None)\n"
    "        mine = T.alloc_buffer((1,), \"uint32\", scope=\"shared\", layout=None)\n"
    "        r = T.alloc_buffer((2,), \"uint32\", scope=\"local\", layout=None)\n"
    "        rank: T.let[T.uint32] = T.Cast(\"uint32\", T.cuda.mov_sreg(32, \"%cluster_ctarank\"))\n"
    "        size: T.let[T.uint32] = T.Cast(\"uint32\", T.cuda.mov_sreg(32, \"%cluster_nctarank\"))\n"
    "        block: T.let[T.uint32] = T.Cast(\"uint32\", T.cuda.mov_sreg(32, \"%ctaid.x\") + T.cuda.mov_sreg(32, \"%nctaid.x\") * T.cuda.mov_sreg(32, \"%ctaid.y\"))\n"
    "        if threadIdx_x == 0:\n"
    "            mine[0] = block * T.uint32(1000) + T.uint32(7)\n"
    "        T.ptx.barrier.cluster.arrive.release.aligned()\n"
    "        T.ptx.barrier.cluster.wait.acquire.aligned()\n"
    "        T.ptx.mapa.shared__cluster.u32(r[0], T.cuda.cvta_generic_to_shared(T.address_of(mine[0])), (rank + T.uint32(1)) % size)\n"
    "        T.ptx.ld.shared__cluster.u32(r[1], r[0])\n"
    "        T.ptx.barrier.cluster.arrive.release.aligned()\n"
    "        T.ptx.barrier.cluster.wait.acquire.aligned()\n"
    "        if threadIdx_x == 0:\n"
    "            Out[block * T.uint32(3)] = rank\n"
    "            Out[block * T.uint32(3) + T.uint32(1)] = size\n"
    "            Out[block * T.uint32(3) + T.uint32(2)] = r[1]\n";

/* The probe built for the GPU, or its IR for the simulator. */
typedef struct Probe {
    CgDevice d;
    RtModule *m;
    RtFunction *f;
    CgKernels ir;
} Probe;

/* Launches the probe and waits for it; the launch's status. */
static RtStatus probe_launch(Probe *p, const RtLaunchConfig *cfg, void **args, RtError *err)
{
    if (OP_SIM)
        return sim_launch(&p->d.sim, p->ir.ir->funcs[0], cfg, args, err);
    RtStatus s = rt_launch(p->f, cfg, args, err);
    return s == RT_OK ? rt_synchronize(p->d.rt, NULL, err) : s;
}

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

static void check_shape(Probe *p, unsigned gx, unsigned gy, unsigned cx, unsigned cy)
{
    RtError err;
    unsigned grid[3] = {gx, gy, 1}, cl[3] = {cx, cy, 1};
    unsigned blocks = gx * gy, size = cx * cy;
    RtDevPtr dout = cg_alloc(&p->d, 3 * blocks * sizeof(unsigned));
    void *args[] = {&dout};
    RtLaunchConfig cfg = {.grid = {gx, gy, 1}, .block = {128, 1, 1}, .cluster = {cx, cy, 1}};
    GPU_OK(probe_launch(p, &cfg, args, &err), err);
    unsigned *out = malloc(3 * blocks * sizeof(unsigned));
    cg_download(&p->d, out, dout, 3 * blocks * sizeof(unsigned));
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
    cg_free(&p->d, dout);
}

int main(void)
{
    Probe p = {0};
    cg_open(&p.d, 9);
    if (OP_SIM) {
        p.ir = cg_test_build(&p.d, probe_ir, "runtime_cluster.tirx", false);
    } else {
        GPU_CHECK(rt_device_info(p.d.rt)->cluster_launch, "the device supports cluster launch");
        p.m = gpu_build(p.d.rt, source, NULL);
        p.f = gpu_function(p.m, "cluster_probe");
    }
    check_shape(&p, 64, 1, 2, 1);
    check_shape(&p, 64, 1, 4, 1);
    check_shape(&p, 64, 1, 8, 1);
    check_shape(&p, 8, 8, 2, 2);
    check_shape(&p, 32, 1, 16, 1);
    RtError err;
    RtDevPtr none = 0;
    void *args[] = {&none};
    RtLaunchConfig ragged = {.grid = {6, 1, 1}, .block = {128, 1, 1}, .cluster = {4, 1, 1}};
    GPU_CHECK(probe_launch(&p, &ragged, args, &err) == RT_ERR_USAGE,
              "grid 6 with cluster 4 is refused");
    printf("ragged grid: %s\n", err.message);
    if (OP_SIM)
        cg_kernels_free(&p.ir);
    else
        rt_module_unload(p.m);
    cg_close(&p.d);
    printf("PASSED\n");
    return 0;
}
