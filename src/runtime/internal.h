/* Runtime internals shared by the files of src/runtime: the loaded entry
 * point tables (from cuda.def, nvrtc.def and nvjitlink.def), the device and
 * module structs, and the error helpers. The driver's, NVRTC's and
 * nvJitLink's types come from cuda_api.h (no toolkit header is needed): no
 * libcuda, libnvrtc or libnvJitLink symbol is referenced. */
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

typedef struct RtNvJitLink {
    void *lib;
    unsigned major, minor;
#define X(ret, name, params) ret(*name) params;
#include "nvjitlink.def"
#undef X
} RtNvJitLink;

/* A compiler's or linker's options, each a heap string (compile.c). */
typedef TX_VEC(char *) RtOptList;
void rt_opt_push(RtOptList *l, const char *fmt, const char *arg);
void rt_opt_list_free(RtOptList *l);

/* A library's table loaded once per process: `init` (run by the first
 * caller only) sets err; every caller gets its result (load.c). */
typedef struct RtOnce {
    pthread_once_t once;
    RtError err;
} RtOnce;
RtStatus rt_once(RtOnce *o, void (*init)(void), RtError *err);

/* The process-wide tables, loaded once (pthread_once); the error of the
 * first attempt is returned to every caller. */
RtStatus rt_driver(const RtCuda **out, RtError *err);
RtStatus rt_nvrtc(const RtNvrtc **out, RtError *err);
/* nvJitLink of NVRTC's major version: $TIRX_LIBNVJITLINK, else beside the
 * NVRTC in use, else libnvJitLink.so.<major> on the loader's path. */
RtStatus rt_nvjitlink(const RtNvJitLink **out, RtError *err);

struct RtDevice {
    const RtCuda *cu;
    CUdevice dev;
    CUcontext ctx; /* the primary context, retained */
    RtDeviceInfo info;
    double kernel_timeout_s; /* TIRX_KERNEL_TIMEOUT; 0: wait as long as it takes */
};

/* Whether a wait for this device's context timed out (TIRX_KERNEL_TIMEOUT):
 * its kernel still runs, so every later call on the context, through any
 * RtDevice of it, fails without the driver (a free or a release would block). */
bool rt_device_hung(const RtDevice *d);

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
    bool nvshmem; /* nvshmemx_cumodule_init ran on it: finalize before unloading */
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

/* NVRTC (compile.c): compiles source with opts into *prog (the caller
 * destroys it) and its log into *log (the caller frees it); a failure to
 * compile is RT_ERR_COMPILE with the log's first error in the message. */
RtStatus rt_nvrtc_program(const RtNvrtc *nv, const char *source, const RtCompileOptions *o,
                          const char *const *opts, int nopts, nvrtcProgram *prog, char **log,
                          RtError *err);
/* NVSHMEM modules (link.c): source and the shim to LTO IR, linked with the
 * device library into out->cubin (and out->ptx when asked). rt_nvshmem_key
 * adds to a compile's cache key what else decides the result: the shim, the
 * NVSHMEM files and the nvJitLink in use. */
RtStatus rt_nvshmem_key(const RtCompileOptions *o, RtKey *k, RtError *err);

RtStatus rt_nvshmem_compile(const char *source, const RtCompileOptions *o,
                            const char *const *opts, int nopts, RtBinary *out, RtError *err);
/* NVSHMEM in a loaded module (nvshmem.c): when the module has NVSHMEM's
 * device state, checks that NVSHMEM is initialised and runs
 * nvshmemx_cumodule_init on it (m->nvshmem); nvshmemx_cumodule_finalize
 * before unloading. */
RtStatus rt_nvshmem_module_init(RtModule *m, RtError *err);
void rt_nvshmem_module_finalize(RtModule *m);

/* The toolkit's programs (tool.c). */
typedef void (*RtAnyFn)(void);
/* The directory of the library (or program) that holds fn, `up` levels up. */
bool rt_library_dir(RtAnyFn fn, int up, char *out, size_t size);
bool rt_executable(const char *path);
/* `file` in $CUDA_HOME/bin, $CUDA_PATH/bin, on PATH, then in the directory
 * `pip_bin` (e.g. "nvidia/cu13/bin"; NULL: none) of a pip package
 * (rt_pip_dir); its path into buf. */
bool rt_find_program(const char *file, const char *pip_bin, char *buf, size_t size);
/* path, if it is an executable file, into buf. */
bool rt_given_program(const char *path, char *buf, size_t size);
/* The first directory `rel` (a glob, e.g. "nvidia/nvshmem") of the Python
 * packages beside libtirx (site-packages/tirx/libtirx.so), of $VIRTUAL_ENV,
 * $CONDA_PREFIX and ~/.local, then of the system's Pythons, that ok(dir, arg)
 * accepts; into out. */
bool rt_pip_dir(const char *rel, bool (*ok)(const char *dir, const void *arg), const void *arg,
                char *out, size_t size);
/* A fresh temporary directory ($TMPDIR or /tmp, "tirx-WHAT-XXXXXX"); every
 * file made in it through rt_workdir_file is removed with it. */
typedef struct RtWorkdir {
    char dir[4096];
    TX_VEC(char *) files;
} RtWorkdir;
RtStatus rt_workdir_open(RtWorkdir *w, const char *what, RtError *err);
const char *rt_workdir_file(RtWorkdir *w, const char *name);
RtStatus rt_workdir_write(RtWorkdir *w, const char *name, const void *data, size_t n,
                          RtError *err);
void rt_workdir_close(RtWorkdir *w);
/* Runs argv (argv[0] a path) with stdout and stderr into the file `log`: the
 * exit status, or -1 with errno set when it could not start. */
int rt_run(char *const *argv, const char *log);

/* nvcc (nvcc.c): compiles `argv`-style options plus the source to a binary. */
RtStatus rt_nvcc_compile(const char *source, const RtCompileOptions *o,
                         const char *const *opts, size_t nopts, RtBinary *out, RtError *err);
/* The nvcc executable a compile would run (resolved against PATH). */
RtStatus rt_nvcc_path(const RtCompileOptions *o, char *buf, size_t size, RtError *err);

#endif
