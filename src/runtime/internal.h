/* Runtime internals shared by the files of src/runtime: the loaded entry
 * point tables (from cuda.def and nvrtc.def), the device and module structs,
 * and the error helpers. The driver's and NVRTC's types come from
 * cuda_api.h (no toolkit header is needed): no libcuda or libnvrtc symbol is
 * referenced. */
#ifndef TX_RUNTIME_INTERNAL_H
#define TX_RUNTIME_INTERNAL_H

#include <pthread.h>

#include "cuda_api.h"
#include "runtime.h"

/* The driver's entry points, one member per cuda.def entry. */
typedef struct RtCuda {
    void *lib;
    int driver_version;
#define X(name, version, params) PFN_##name##_v##version name;
#include "cuda.def"
#undef X
} RtCuda;

typedef struct RtNvrtc {
    void *lib;
    int major, minor;
#define X(ret, name, params) ret(*name) params;
#include "nvrtc.def"
#undef X
} RtNvrtc;

/* The process-wide tables, loaded once (pthread_once); the error of the
 * first attempt is returned to every caller. */
RtStatus rt_driver(const RtCuda **out, RtError *err);
RtStatus rt_nvrtc(const RtNvrtc **out, RtError *err);

struct RtDevice {
    const RtCuda *cu;
    CUdevice dev;
    CUcontext ctx; /* the primary context, retained */
    RtDeviceInfo info;
};

struct RtFunction {
    RtModule *module;
    CUfunction fn;
    char *name;
    RtResources res;
    int dyn_smem_limit; /* the MAX_DYNAMIC_SHARED_SIZE_BYTES last set; under the module's lock */
    RtFunction *next;
};

struct RtModule {
    RtDevice *dev;
    CUmodule mod;
    pthread_mutex_t lock; /* guards functions and each dyn_smem_limit */
    RtFunction *functions;
};

/* dlsym into a function pointer without an object-to-function pointer cast. */
bool rt_lookup(void *lib, const char *name, void *fn_out);
/* $var when set and not empty, else fallback. */
const char *rt_env_or(const char *var, const char *fallback);
/* dlopen's `override` when it is not NULL, else the first of `names` that
 * loads, setting *path to the name loaded; NULL when none does, with *why
 * the loader's last message (NULL if it gave none). */
void *rt_dlopen_first(const char *override, const char *const *names, size_t n, const char **path,
                      const char **why);

/* Sets err (when given) and returns s. */
RtStatus rt_fail(RtError *err, RtStatus s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* RT_ERR_CUDA naming the call and the driver's name and text for r. */
RtStatus rt_cu_fail(RtError *err, const RtCuda *cu, CUresult r, const char *call);
/* Makes d's primary context current on the calling thread. */
RtStatus rt_enter(const RtDevice *d, RtError *err);

/* The identity of the NVRTC or nvcc a compile would use, for cache keys. */
RtStatus rt_toolkit_id(const RtCompileOptions *o, char *buf, size_t size, RtError *err);

/* nvcc (nvcc.c): compiles `argv`-style options plus the source to a binary. */
RtStatus rt_nvcc_compile(const char *source, const RtCompileOptions *o,
                         const char *const *opts, size_t nopts, RtBinary *out, RtError *err);
/* The nvcc executable a compile would run (resolved against PATH). */
RtStatus rt_nvcc_path(const RtCompileOptions *o, char *buf, size_t size, RtError *err);

#endif
