/* Helpers of the GPU tests that go through the public API (tirx.h): status
 * checks with the error's message, compiling a source with its diagnostics
 * shown, and float32 vectors as DLTensors. Built on gpu_test.h (skips,
 * random data, the relative L2 check). */
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

/* GPU 0 through the API, or a skip. */
static inline tirx_device *api_open(void)
{
    tirx_device *d;
    tirx_error err;
    if (tirx_device_open(0, &d, &err) != TIRX_OK)
        gpu_skip(err.message);
    printf("device arch: %s\n", tirx_device_arch(d));
    return d;
}

/* Compiles for the device; fails the test with the diagnostics. */
static inline tirx_module *api_compile(tirx_device *d, const char *text, const char *name,
                                       const char *cache_dir)
{
    tirx_options o = {.arch = tirx_device_arch(d), .lineinfo = 1, .cache_dir = cache_dir,
                      .no_cache = cache_dir == NULL};
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
    DLTensor t = {.data = data, .device = {kDLCUDA, 0}, .ndim = 1,
                  .dtype = {kDLFloat, bits, 1}, .shape = n};
    return t;
}

/* n float32 values on the device, copied from host. */
static inline void *api_upload(tirx_device *d, const float *host, size_t n)
{
    tirx_error err;
    void *p;
    API_OK(tirx_device_alloc(d, n * sizeof(float), &p, &err), err);
    if (host)
        API_OK(tirx_copy_to_device(d, p, host, n * sizeof(float), &err), err);
    return p;
}

/* All bits set (NaN), so an element the kernel did not write fails the check. */
static inline void api_poison(tirx_device *d, void *p, float *scratch, size_t n)
{
    tirx_error err;
    memset(scratch, 0xff, n * sizeof(float));
    API_OK(tirx_copy_to_device(d, p, scratch, n * sizeof(float), &err), err);
}

#endif
