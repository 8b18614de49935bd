/* GPU test of examples/tma_pipeline_copy.tirx (sm_90a and newer): the
 * warp-specialized persistent TMA pipeline built from the language helpers
 * (Pipeline with TMA full / mbarrier empty barriers, PipelineState,
 * WarpgroupRole with setmaxnreg, ClusterPersistentScheduler2D). B = A * scale
 * for a 4096 x 256 float16 matrix of random values, against a float64 CPU
 * reference, with B poisoned first; a stage overwritten before its consumers
 * were done, a wrong phase or a tile the scheduler skipped shows up as a large
 * error (or a hang, which the test's timeout catches). Also checked with
 * fewer stages than CTAs have tiles, through -D STAGES=2. Simulated
 * (sim.op_tma_pipeline) at 512 x 256 on 4 CTAs. */
#include <math.h>

#include "op_kernel.h"

#define ROWS OP_SIZE(4096, 512)
#define COLS 256

static void run(tirx_device *gpu, GpuRng *rng, const char *stages)
{
    char rows[16];
    snprintf(rows, sizeof rows, "%d", ROWS);
    tirx_define d[] = {{"STAGES", stages}, {"M", rows}, {"NUM_CTAS", OP_SIZE("32", "4")}};
    printf("tma_pipeline_copy %d x %d float16, STAGES=%s:\n", ROWS, COLS, stages);
    tirx_module *m = op_compile(gpu, "examples/tma_pipeline_copy.tirx", d, 3);
    size_t n = (size_t)ROWS * COLS;
    uint16_t *a = malloc(n * 2), *b = malloc(n * 2);
    GPU_CHECK(a && b, "host memory");
    for (size_t i = 0; i < n; i++)
        a[i] = op_f32_to_f16(gpu_uniform(rng) * 4.0f);
    double scale = 0.5 + (double)gpu_uniform(rng) * 0.25;
    OpTensor A, B;
    op_tensor(gpu, &A, ROWS, COLS, kDLFloat, 16);
    op_tensor(gpu, &B, ROWS, COLS, kDLFloat, 16);
    op_upload(gpu, &A, a), op_poison(gpu, &B);
    tirx_arg args[] = {tirx_arg_tensor(&A.t), tirx_arg_tensor(&B.t), tirx_arg_float(scale)};
    op_launch_args(m, "tma_pipeline_copy", args, 3);
    op_download(gpu, &B, b);
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double want = (double)op_f16_to_f32(a[i]) * (double)(float)scale;
        double d = (double)op_f16_to_f32(b[i]) - want;
        num += d * d, den += want * want;
    }
    double rel = sqrt(num / den);
    printf("  relative error %.3g (float16 output)\n", rel);
    GPU_CHECK(rel <= 1e-3, "B = A * scale matches the float64 reference");
    op_free(gpu, &A), op_free(gpu, &B);
    tirx_module_free(m);
    free(a), free(b);
}

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_SM90_OR_NEWER, "the TMA pipeline needs sm_90a or newer");
    GpuRng rng = gpu_rng();
    run(gpu, &rng, "4");
    run(gpu, &rng, "2");
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}
