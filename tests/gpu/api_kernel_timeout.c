/* GPU test of TIRX_KERNEL_TIMEOUT: a kernel whose threads wait for an
 * mbarrier phase that no one completes runs for ever; with the variable at
 * 1 s, tirx_device_synchronize gives up after about that long with
 * TIRX_ERR_CUDA and says why, and every later call (a copy back, a second
 * wait, freeing, closing) returns at once instead of blocking on the kernel.
 * The process's exit ends the kernel. Skipped without a GPU (sm_90+: the
 * mbarrier wait). */
#include <time.h>
#include <unistd.h>

#include "api_test.h"

static const char source[] =
    "from tvm.tirx.lang.pipeline import MBarrier\n"
    "@T.prim_func\n"
    "def hang(A: T.Buffer((32,), \"int32\")):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([32])\n"
    "    pool = T.SMEMPool()\n"
    "    bar = MBarrier(pool, 1)\n"
    "    pool.commit()\n"
    "    bar.init(1)\n"
    "    T.ptx.fence.mbarrier_init.release.cluster()\n"
    "    T.cuda.cta_sync()\n"
    "    bar.wait(0, 0)\n"
    "    A[tx] = 1\n";

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
    setenv("TIRX_KERNEL_TIMEOUT", "1", 1);
    tirx_device *gpu = api_open();
    if (strcmp(tirx_device_arch(gpu), "sm_90") < 0)
        gpu_skip_arch("the mbarrier wait needs sm_90+");
    tirx_module *m = api_compile(gpu, source, "hang.tirx", NULL);
    tirx_error err;
    void *a;
    API_OK(tirx_device_alloc(gpu, 32 * sizeof(int32_t), &a, &err), err);
    int64_t n = 32;
    DLTensor t = {.data = a, .device = {kDLCUDA, 0}, .ndim = 1, .dtype = {kDLInt, 32, 1},
                  .shape = &n};
    tirx_arg args[] = {tirx_arg_tensor(&t)};
    API_OK(api_launch(m, "hang", args, 1, &err), err);
    double t0 = now();
    tirx_status st = tirx_device_synchronize(gpu, NULL, &err);
    double waited = now() - t0;
    printf("synchronize: status %d after %.2f s: %s\n", (int)st, waited, err.message);
    GPU_CHECK(st == TIRX_ERR_CUDA, "the wait for a kernel that never ends is an error");
    GPU_CHECK(strstr(err.message, "did not finish within 1 s (TIRX_KERNEL_TIMEOUT)") != NULL,
              "the error names the timeout");
    GPU_CHECK(waited >= 0.9 && waited < 10, "the wait gave up after about a second");
    int32_t host[32];
    t0 = now();
    st = tirx_copy_to_host(gpu, host, a, sizeof host, &err);
    printf("copy back: status %d: %s\n", (int)st, err.message);
    GPU_CHECK(st == TIRX_ERR_CUDA && strstr(err.message, "still running") != NULL,
              "a later call fails at once");
    GPU_CHECK(tirx_device_synchronize(gpu, NULL, &err) == TIRX_ERR_CUDA, "so does a second wait");
    tirx_device_free(gpu, a);
    tirx_module_free(m);
    api_close(gpu);
    GPU_CHECK(now() - t0 < 5, "the calls after the timeout did not block");
    printf("PASSED\n");
    fflush(stdout);
    _exit(0); /* the driver ends the kernel with the process */
}
