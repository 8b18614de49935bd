/* Helpers of the GPU tests that go through the public API (tirx.h): status
 * checks with the error's message, compiling a source with its diagnostics
 * shown, float32 vectors as DLTensors, launching and copying back. Built on
 * gpu_test.h (skips, random data, the relative L2 check).
 *
 * Built with OP_SIM=1 (the sim.* tests of the CPU suite), the same test runs
 * its kernels in the simulator (tirx_simulate, sm_90a): the module is
 * compiled with no_binary (nothing is cached: the compile cache holds
 * binaries), "device" memory is host memory (kDLCPU) and a launch is a
 * simulation, with the launch's own argument checks. */
#ifndef TIRX_API_TEST_H
#define TIRX_API_TEST_H

#include "gpu_test.h"
#include "runtime/dlpack.h"
#include "tirx.h"

#define API_OK(call, err)                                        \
    do {                                                         \
        if ((call) != TIRX_OK)                                   \
            gpu_fail_at(__FILE__, __LINE__, #call, (err).message); \
    } while (0)

/* The architecture the simulator compiles for. */
#define API_SIM_ARCH "sm_90a"

/* GPU 0 through the API, or a skip (NULL: the simulator). */
static inline tirx_device *api_open(void)
{
    if (OP_SIM) {
        printf("simulator: %s\n", API_SIM_ARCH);
        return NULL;
    }
    tirx_device *d;
    tirx_error err;
    if (tirx_device_open(0, &d, &err) != TIRX_OK)
        gpu_skip(err.message);
    printf("device arch: %s\n", tirx_device_arch(d));
    return d;
}

static inline void api_close(tirx_device *d)
{
    if (!OP_SIM)
        tirx_device_close(d);
}

/* Compiles for the device; fails the test with the diagnostics. */
static inline tirx_module *api_compile(tirx_device *d, const char *text, const char *name,
                                       const char *cache_dir)
{
    tirx_options o = {.arch = OP_SIM ? API_SIM_ARCH : tirx_device_arch(d), .lineinfo = 1,
                      .cache_dir = cache_dir, .no_cache = cache_dir == NULL,
                      .no_binary = OP_SIM};
    tirx_module *m;
    if (tirx_compile(text, strlen(text), name, NULL, 0, &o, &m) != TIRX_OK) {
        char *diags = tirx_diag_render(m);
        fprintf(stderr, "%s", diags);
        tirx_free(diags);
        gpu_fail_at(__FILE__, __LINE__, "tirx_compile", name);
    }
    for (size_t i = 0; i < tirx_kernel_count(m); i++) {
        tirx_kernel_stats k;
        tirx_kernel_stats_get(m, i, &k);
        printf("%s: %d registers, %d B spilled, %d B static smem, cached: %d\n", k.name,
               k.registers, k.spill_store_bytes, k.smem_bytes, tirx_module_cached(m));
    }
    return m;
}

static inline DLTensor api_vector(void *data, int64_t *n, uint8_t bits)
{
    DLTensor t = {.data = data, .device = {OP_SIM ? kDLCPU : kDLCUDA, 0}, .ndim = 1,
                  .dtype = {kDLFloat, bits, 1}, .shape = n};
    return t;
}

/* n float32 values on the device (256-byte aligned host memory under
 * OP_SIM, as the driver's allocations), copied from host. */
static inline void *api_upload(tirx_device *d, const float *host, size_t n)
{
    tirx_error err;
    void *p;
    if (OP_SIM) {
        p = aligned_alloc(256, (n * sizeof(float) + 255) / 256 * 256);
        GPU_CHECK(p != NULL, "host memory");
        if (host)
            memcpy(p, host, n * sizeof(float));
        return p;
    }
    API_OK(tirx_device_alloc(d, n * sizeof(float), &p, &err), err);
    if (host)
        API_OK(tirx_copy_to_device(d, p, host, n * sizeof(float), &err), err);
    return p;
}

static inline void api_free(tirx_device *d, void *p)
{
    if (OP_SIM)
        free(p);
    else
        tirx_device_free(d, p);
}

/* All bits set (NaN), so an element the kernel did not write fails the check. */
static inline void api_poison(tirx_device *d, void *p, float *scratch, size_t n)
{
    tirx_error err;
    memset(scratch, 0xff, n * sizeof(float));
    if (OP_SIM)
        memcpy(p, scratch, n * sizeof(float));
    else
        API_OK(tirx_copy_to_device(d, p, scratch, n * sizeof(float), &err), err);
}

/* Launches function `name` of m (simulates it under OP_SIM). */
static inline tirx_status api_launch(tirx_module *m, const char *name, const tirx_arg *args,
                                     size_t n, tirx_error *err)
{
    if (OP_SIM)
        return tirx_simulate(m, name, args, n, err);
    tirx_function *f;
    tirx_status st = tirx_get_function(m, name, &f, err);
    return st == TIRX_OK ? tirx_launch(f, args, n, NULL, err) : st;
}

/* Waits for the device, then copies n float32 values back. */
static inline void api_download(tirx_device *d, float *host, const void *dev, size_t n)
{
    tirx_error err;
    if (OP_SIM) {
        memcpy(host, dev, n * sizeof(float));
        return;
    }
    API_OK(tirx_device_synchronize(d, NULL, &err), err);
    API_OK(tirx_copy_to_host(d, host, dev, n * sizeof(float), &err), err);
}

#endif
