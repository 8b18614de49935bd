/* The GPU tests' harness (no cmocka: these are built on GPU machines that
 * lack test dependencies). A test exits 0 when it passed, 1 when it failed
 * and 77 when it was skipped: no driver, no GPU, or a GPU too old for it.
 * With TIRX_REQUIRE_GPU=1 in the environment a skip is a failure. Numerical
 * checks compare with a float64 CPU reference by ||out - ref|| / ||ref|| on
 * fresh random inputs, with the output poisoned (all bits set: NaN) before
 * each launch, so an element the kernel did not write fails the check. */
#ifndef TIRX_GPU_TEST_H
#define TIRX_GPU_TEST_H

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/runtime.h"

#define GPU_SKIP 77

/* Built with OP_SIM=1 (the sim.* tests of the CPU suite), a test runs its
 * kernels in the simulator instead of on the GPU (op_kernel.h, api_test.h,
 * codegen_test.h). OP_SIZE(gpu, sim): a problem size (or list) on the GPU,
 * and the smaller one simulated. */
#ifndef OP_SIM
#define OP_SIM 0
#endif
#define OP_SIZE(gpu, sim) (OP_SIM ? (sim) : (gpu))

static inline _Noreturn void gpu_skip(const char *why)
{
    const char *require = getenv("TIRX_REQUIRE_GPU");
    if (require && strcmp(require, "1") == 0) {
        fprintf(stderr, "FAILED: TIRX_REQUIRE_GPU=1 but the test would skip: %s\n", why);
        exit(1);
    }
    printf("SKIPPED: %s\n", why);
    exit(GPU_SKIP);
}

/* A GPU is there but of another architecture than the test needs: a skip
 * even under TIRX_REQUIRE_GPU=1 (an H200 cannot run an sm_100a test). */
static inline _Noreturn void gpu_skip_arch(const char *why)
{
    printf("SKIPPED: %s\n", why);
    exit(GPU_SKIP);
}

static inline _Noreturn void gpu_fail_at(const char *file, int line, const char *what,
                                        const char *detail)
{
    fprintf(stderr, "%s:%d: FAILED: %s%s%s\n", file, line, what, detail ? ": " : "",
            detail ? detail : "");
    exit(1);
}

/* GPU_CHECK(condition, "what it means"); GPU_OK(rt_call(..., &err), err). */
#define GPU_CHECK(cond, what)                                  \
    do {                                                       \
        if (!(cond))                                           \
            gpu_fail_at(__FILE__, __LINE__, what, #cond);      \
    } while (0)
#define GPU_OK(call, err)                                      \
    do {                                                       \
        if ((call) != RT_OK)                                   \
            gpu_fail_at(__FILE__, __LINE__, #call, (err).message); \
    } while (0)

/* Device 0, or a skip when the machine has no usable driver or GPU. */
static inline RtDevice *gpu_open(int min_cc_major)
{
    RtDevice *d;
    RtError err;
    RtStatus s = rt_device_open(0, &d, &err);
    if (s == RT_ERR_NO_DRIVER || s == RT_ERR_NO_GPU || s == RT_ERR_DRIVER_TOO_OLD)
        gpu_skip(err.message);
    if (s != RT_OK)
        gpu_fail_at(__FILE__, __LINE__, "rt_device_open", err.message);
    const RtDeviceInfo *i = rt_device_info(d);
    printf("device: %s, sm_%d%d (%s), %d SMs, %d B shared memory per block, driver %d\n", i->name,
           i->cc_major, i->cc_minor, i->arch, i->sm_count, i->smem_per_block_optin,
           i->driver_version);
    if (i->cc_major < min_cc_major) {
        char why[256];
        snprintf(why, sizeof why, "needs compute capability %d.0 or newer, %s is %d.%d",
                 min_cc_major, i->name, i->cc_major, i->cc_minor);
        rt_device_close(d);
        gpu_skip_arch(why);
    }
    return d;
}

/* Compiles `source` with NVRTC for the device's own target and loads it. */
static inline RtModule *gpu_build(RtDevice *d, const char *source, const RtCompileOptions *base)
{
    RtCompileOptions o = base ? *base : (RtCompileOptions){.lineinfo = true};
    o.arch = rt_device_info(d)->arch;
    RtBinary b;
    RtError err;
    RtStatus s = rt_compile(source, &o, &b, &err);
    if (s != RT_OK) {
        fprintf(stderr, "%s\n", b.log ? b.log : "");
        gpu_fail_at(__FILE__, __LINE__, "rt_compile", err.message);
    }
    for (size_t i = 0; i < b.nkernels; i++)
        printf("  %s: %d registers, %d B smem, %d B stack, %d B spilled\n", b.kernels[i].name,
               b.kernels[i].registers, b.kernels[i].smem_bytes, b.kernels[i].stack_bytes,
               b.kernels[i].spill_store_bytes);
    RtModule *m;
    GPU_OK(rt_module_load(d, b.cubin, &m, &err), err);
    rt_binary_free(&b);
    return m;
}

static inline RtFunction *gpu_function(RtModule *m, const char *name)
{
    RtFunction *f;
    RtError err;
    GPU_OK(rt_module_function(m, name, &f, &err), err);
    return f;
}

/* ---- data ---- */

/* xorshift64*, seeded from the clock: fresh inputs every run. */
typedef struct GpuRng {
    uint64_t s;
} GpuRng;

static inline GpuRng gpu_rng(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    GpuRng r = {((uint64_t)t.tv_sec * 1000000007u) ^ (uint64_t)t.tv_nsec ^ 0x9e3779b97f4a7c15u};
    printf("seed: %llu\n", (unsigned long long)r.s);
    return r;
}

static inline uint64_t gpu_next(GpuRng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 2685821657736338717ull;
}

/* Uniform in [-1, 1). */
static inline float gpu_uniform(GpuRng *r)
{
    return (float)((double)(gpu_next(r) >> 11) / 4503599627370496.0 - 1.0);
}

static inline void gpu_fill_random(GpuRng *r, float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = gpu_uniform(r);
}

/* ||out - ref|| / ||ref||; infinity when an element is not finite. */
static inline double gpu_rel_l2(const float *out, const double *ref, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(out[i]))
            return INFINITY;
        num += (out[i] - ref[i]) * (out[i] - ref[i]);
        den += ref[i] * ref[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* Device buffer of n bytes, poisoned (all bits set). */
static inline RtDevPtr gpu_alloc_poisoned(RtDevice *d, size_t n)
{
    RtDevPtr p;
    RtError err;
    GPU_OK(rt_mem_alloc(d, n, &p, &err), err);
    GPU_OK(rt_memset8(d, p, 0xff, n, &err), err);
    return p;
}

/* rm -r of a scratch directory. */
static inline void gpu_remove_tree(const char *path)
{
    DIR *dir = opendir(path);
    if (!dir) {
        unlink(path);
        return;
    }
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            char child[4096];
            if (snprintf(child, sizeof child, "%s/%s", path, e->d_name) < (int)sizeof child)
                gpu_remove_tree(child);
        }
    }
    closedir(dir);
    rmdir(path);
}

#endif
