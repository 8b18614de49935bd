/* A fake CUDA driver for unit tests of the runtime's launch path (loaded
 * through TIRX_LIBCUDA): four devices whose compute capability the test sets
 * (fake_cuda_set_cc), modules and kernels that are only handles, and a
 * cuLaunchKernelEx that records the configuration and launch attributes it
 * is given (fake_cuda_last_launch) instead of running anything, and events
 * that never complete. Every other cuda.def entry exists and fails. */
#include <string.h>

#include "runtime/cuda_api.h"

#define FAKE_API __attribute__((visibility("default")))
#define MAX_ATTRS 8

static int cc_major = 9;
static int launches;
static CUlaunchConfig last_config;
static CUlaunchAttribute last_attrs[MAX_ATTRS];

FAKE_API void fake_cuda_set_cc(int major) { cc_major = major; }

/* The number of launches so far; the last one's configuration and
 * attributes (cfg->attrs points at a copy of them). */
FAKE_API int fake_cuda_last_launch(CUlaunchConfig *cfg)
{
    *cfg = last_config;
    cfg->attrs = last_attrs;
    return launches;
}

static CUresult not_faked(void) { return CUDA_ERROR_NOT_FOUND; }

static CUresult error_text(CUresult error, const char **s)
{
    (void)error;
    *s = "CUDA_ERROR_FAKE";
    return CUDA_SUCCESS;
}

static CUresult device_count(int *n) { return *n = 4, CUDA_SUCCESS; }
static CUresult device_get(CUdevice *d, int ordinal) { return *d = ordinal, CUDA_SUCCESS; }
static CUresult ctx_retain(CUcontext *c, CUdevice d) { (void)d; *c = (CUcontext)&cc_major; return CUDA_SUCCESS; }
static CUresult ctx_release(CUdevice d) { (void)d; return CUDA_SUCCESS; }
static CUresult ctx_set(CUcontext c) { (void)c; return CUDA_SUCCESS; }

static CUresult device_name(char *name, int len, CUdevice d)
{
    (void)d;
    strncpy(name, "Fake GPU", (size_t)len);
    return CUDA_SUCCESS;
}

static CUresult device_attribute(int *v, CUdevice_attribute a, CUdevice d)
{
    (void)d;
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = cc_major; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = 50 << 20; break;
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: *v = cc_major >= 9; break;
    default: *v = 0; break;
    }
    return CUDA_SUCCESS;
}

static CUresult module_load(CUmodule *m, const void *image, unsigned n, CUjit_option *o, void **v)
{
    (void)image, (void)n, (void)o, (void)v;
    *m = (CUmodule)&launches;
    return CUDA_SUCCESS;
}

static CUresult module_unload(CUmodule m) { (void)m; return CUDA_SUCCESS; }

static CUresult module_function(CUfunction *f, CUmodule m, const char *name)
{
    (void)m, (void)name;
    *f = (CUfunction)&last_config;
    return CUDA_SUCCESS;
}

static CUresult func_attribute(int *v, CUfunction_attribute a, CUfunction f)
{
    (void)f;
    *v = a == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? 1024
         : a == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ? 48 << 10 : 0;
    return CUDA_SUCCESS;
}

static CUresult func_set_attribute(CUfunction f, CUfunction_attribute a, int v)
{
    (void)f, (void)a, (void)v;
    return CUDA_SUCCESS;
}

static CUresult launch(const CUlaunchConfig *cfg, CUfunction f, void **params, void **extra)
{
    (void)f, (void)params, (void)extra;
    if (cfg->numAttrs > MAX_ATTRS)
        return CUDA_ERROR_INVALID_VALUE;
    last_config = *cfg;
    memset(last_attrs, 0, sizeof last_attrs);
    if (cfg->numAttrs)
        memcpy(last_attrs, cfg->attrs, sizeof *last_attrs * cfg->numAttrs);
    launches++;
    return CUDA_SUCCESS;
}

/* Events: a kernel that never finishes. Every event's work stays pending
 * (cuEventQuery: not ready), so a wait with TIRX_KERNEL_TIMEOUT times out. */
static CUresult event_create(CUevent *e, unsigned flags)
{
    (void)flags;
    *e = (CUevent)&launches;
    return CUDA_SUCCESS;
}

static CUresult event_record(CUevent e, CUstream s) { (void)e, (void)s; return CUDA_SUCCESS; }
static CUresult event_destroy(CUevent e) { (void)e; return CUDA_SUCCESS; }
static CUresult event_query(CUevent e) { (void)e; return CUDA_ERROR_NOT_READY; }

/* any function pointer (void (*)(void) converts to and from every one) */
typedef void (*AnyFn)(void);

static const struct {
    const char *name;
    AnyFn fn;
} faked[] = {
    {"cuGetErrorName", (AnyFn)error_text},
    {"cuGetErrorString", (AnyFn)error_text},
    {"cuDeviceGetCount", (AnyFn)device_count},
    {"cuDeviceGet", (AnyFn)device_get},
    {"cuDeviceGetName", (AnyFn)device_name},
    {"cuDeviceGetAttribute", (AnyFn)device_attribute},
    {"cuDevicePrimaryCtxRetain", (AnyFn)ctx_retain},
    {"cuDevicePrimaryCtxRelease", (AnyFn)ctx_release},
    {"cuCtxSetCurrent", (AnyFn)ctx_set},
    {"cuModuleLoadDataEx", (AnyFn)module_load},
    {"cuModuleUnload", (AnyFn)module_unload},
    {"cuModuleGetFunction", (AnyFn)module_function},
    {"cuFuncGetAttribute", (AnyFn)func_attribute},
    {"cuFuncSetAttribute", (AnyFn)func_set_attribute},
    {"cuLaunchKernelEx", (AnyFn)launch},
    {"cuEventCreate", (AnyFn)event_create},
    {"cuEventRecord", (AnyFn)event_record},
    {"cuEventDestroy", (AnyFn)event_destroy},
    {"cuEventQuery", (AnyFn)event_query},
};

FAKE_API CUresult cuInit(unsigned flags)
{
    (void)flags;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuDriverGetVersion(int *v)
{
    *v = 12080;
    return CUDA_SUCCESS;
}

FAKE_API CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
                                      cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
    (void)version, (void)flags;
    AnyFn fn = (AnyFn)not_faked;
    for (size_t i = 0; i < sizeof faked / sizeof faked[0]; i++)
        if (!strcmp(faked[i].name, symbol))
            fn = faked[i].fn;
    memcpy(pfn, &fn, sizeof fn);
    *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
}
