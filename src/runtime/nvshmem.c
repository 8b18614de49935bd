/* NVSHMEM outside the device code: where its headers and device library are
 * (for compiling a module that uses it; link.c links), and, when such a
 * module is loaded, whether this process has initialised NVSHMEM.
 *
 * NVSHMEM is found at $TIRX_NVSHMEM_HOME, else in the nvidia-nvshmem pip
 * package of a Python nearby, else in common install directories; its
 * headers need the CUDA toolkit's (cuda_runtime.h, cuda_fp16.h, libcu++).
 * A loaded module whose cubin has NVSHMEM's device state
 * (nvshmemi_device_state_d) is only usable after nvshmemx_cumodule_init, and
 * that only after nvshmem_init: the host library is looked up among the
 * libraries already loaded (dlopen RTLD_NOLOAD), never loaded here, since a
 * freshly loaded one is never initialised. */
#define _GNU_SOURCE /* RTLD_NOLOAD */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

#define HOST_LIB "libnvshmem_host.so.3"
#define NVSHMEM_STATUS_IS_INITIALIZED 2 /* nvshmem_constants.h */

/* ---- finding NVSHMEM ---- */

/* dir/rest into out; false when it does not fit. */
static bool join(char *out, size_t size, const char *dir, const char *rest)
{
    int n = snprintf(out, size, "%s/%s", dir, rest);
    return n >= 0 && (size_t)n < size;
}

static bool is_file(const char *dir, const char *name)
{
    char path[2048];
    struct stat st;
    return join(path, sizeof path, dir, name) && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_home(const char *dir)
{
    return is_file(dir, "include/nvshmem.h") && is_file(dir, "lib/libnvshmem_device.a");
}

static bool home_ok(const char *dir, const void *arg)
{
    (void)arg;
    return is_home(dir);
}

/* The pip package (rt_pip_dir), then the usual install directories. */
static bool search_home(char *out, size_t size)
{
    static const char *const fixed[] = {"/usr/local/nvshmem", "/opt/nvidia/nvshmem",
                                        "/usr/local"};
    if (rt_pip_dir("nvidia/nvshmem", home_ok, NULL, out, size))
        return true;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (is_home(fixed[i])) {
            snprintf(out, size, "%s", fixed[i]);
            return true;
        }
    return false;
}

static RtStatus find_home(char *out, size_t size, RtError *err)
{
    const char *home = getenv("TIRX_NVSHMEM_HOME");
    if (home && *home) {
        const char *header = "include/nvshmem.h", *lib = "lib/libnvshmem_device.a";
        const char *missing = !is_file(home, header) ? header : !is_file(home, lib) ? lib : NULL;
        if (missing)
            return rt_fail(err, RT_ERR_NO_NVSHMEM, "no NVSHMEM: TIRX_NVSHMEM_HOME=%s has no %s",
                           home, missing);
        int n = snprintf(out, size, "%s", home);
        if (n >= 0 && (size_t)n < size)
            return RT_OK;
        return rt_fail(err, RT_ERR_NO_NVSHMEM, "no NVSHMEM: TIRX_NVSHMEM_HOME is too long");
    }
    if (search_home(out, size))
        return RT_OK;
    return rt_fail(err, RT_ERR_NO_NVSHMEM,
                   "no NVSHMEM: the module uses it, and no include/nvshmem.h with "
                   "lib/libnvshmem_device.a was found (pip install nvidia-nvshmem-cu13, or set "
                   "TIRX_NVSHMEM_HOME to NVSHMEM's directory)");
}

static bool cuda_headers(const char *dir)
{
    return is_file(dir, "cuda_runtime.h") && is_file(dir, "cuda_fp16.h");
}

/* The toolkit's include directory: $CUDA_HOME, $CUDA_PATH, the toolkit of
 * the NVRTC in use, /usr/local/cuda, the pip headers beside NVSHMEM's. */
static bool find_cuda_include(const char *home, char *out, size_t size)
{
    char dir[1024];
    const char *vars[] = {"CUDA_HOME", "CUDA_PATH"};
    for (size_t i = 0; i < 2; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v && join(out, size, v, "include") && cuda_headers(out))
            return true;
    }
    const RtNvrtc *nv;
    if (rt_nvrtc(&nv, NULL) == RT_OK &&
        rt_library_dir((RtAnyFn)nv->nvrtcVersion, 1, dir, sizeof dir) &&
        join(out, size, dir, "include") && cuda_headers(out))
        return true;
    if (join(out, size, "/usr/local/cuda", "include") && cuda_headers(out))
        return true;
    return join(out, size, home, "../cu13/include") && cuda_headers(out);
}

/* libcu++ (cuda/std/...): in the toolkit's cccl/ (CUDA 13), in the toolkit's
 * include directory itself (CUDA 12), or in the pip package beside NVSHMEM. */
static bool find_cccl(const char *home, const char *cuda, char *out, size_t size)
{
    if (join(out, size, cuda, "cccl") && is_file(out, "cuda/std/cstdint"))
        return true;
    if (is_file(cuda, "cuda/std/cstdint")) {
        out[0] = '\0'; /* already on the path */
        return true;
    }
    return join(out, size, home, "../cu13/include/cccl") && is_file(out, "cuda/std/cstdint");
}

RtStatus rt_nvshmem_find(RtNvshmem *out, RtError *err)
{
    memset(out, 0, sizeof *out);
    char home[1024];
    RtStatus s = find_home(home, sizeof home, err);
    if (s != RT_OK)
        return s;
    if (!join(out->include[0], sizeof out->include[0], home, "include") ||
        !join(out->device_lib, sizeof out->device_lib, home, "lib/libnvshmem_device.a"))
        return rt_fail(err, RT_ERR_NO_NVSHMEM, "no NVSHMEM: its directory's name is too long");
    if (!find_cuda_include(home, out->include[1], sizeof out->include[1]))
        return rt_fail(err, RT_ERR_NO_NVSHMEM,
                       "no CUDA headers for NVSHMEM: nvshmem.h includes cuda_runtime.h and "
                       "cuda_fp16.h, found in none of $CUDA_HOME/include, $CUDA_PATH/include, "
                       "the NVRTC toolkit's include, /usr/local/cuda/include (set CUDA_HOME)");
    if (!find_cccl(home, out->include[1], out->include[2], sizeof out->include[2]))
        return rt_fail(err, RT_ERR_NO_NVSHMEM,
                       "no libcu++ for NVSHMEM: cuda/std/cstdint is in neither %s, %s/cccl nor "
                       "the nvidia-cuda-cccl pip package beside NVSHMEM", out->include[1],
                       out->include[1]);
    out->ninclude = out->include[2][0] ? 3 : 2;
    return RT_OK;
}

void rt_nvshmem_key_files(const RtNvshmem *n, RtKey *k)
{
    for (int i = 0; i < n->ninclude; i++)
        rt_key_add_str(k, "nvshmem.include", n->include[i]);
    char header[1200];
    if (!join(header, sizeof header, n->include[0], "nvshmem.h"))
        header[0] = '\0';
    const char *files[] = {header, n->device_lib};
    for (size_t i = 0; i < 2; i++) {
        struct stat st;
        if (stat(files[i], &st) != 0)
            memset(&st, 0, sizeof st);
        rt_key_add_str(k, "nvshmem.file", files[i]);
        rt_key_add_int(k, "nvshmem.file.size", (int64_t)st.st_size);
        rt_key_add_int(k, "nvshmem.file.mtime", (int64_t)st.st_mtim.tv_sec * 1000000000 +
                                                    st.st_mtim.tv_nsec);
        rt_key_add_int(k, "nvshmem.file.inode", (int64_t)st.st_ino);
    }
}

/* ---- NVSHMEM in a loaded module ---- */

/* The host library when this process has loaded it (the caller dlcloses). */
static void *host_library(void)
{
    return dlopen(HOST_LIB, RTLD_NOW | RTLD_NOLOAD);
}

RtStatus rt_nvshmem_check_initialised(RtError *err)
{
    void *lib = host_library();
    if (!lib)
        return rt_fail(err, RT_ERR_NO_NVSHMEM,
                       "the module uses NVSHMEM, which this process has not initialised: "
                       "%s is not loaded (initialise NVSHMEM, with nvshmem_init or "
                       "nvshmemx_init_attr, before loading the module)", HOST_LIB);
    int (*init_status)(void);
    RtStatus s = RT_OK;
    if (!rt_lookup(lib, "nvshmemx_init_status", &init_status))
        s = rt_fail(err, RT_ERR_NO_NVSHMEM, "the module uses NVSHMEM, and the loaded %s has no "
                    "nvshmemx_init_status", HOST_LIB);
    int status = s == RT_OK ? init_status() : 0;
    if (s == RT_OK && status < NVSHMEM_STATUS_IS_INITIALIZED)
        s = rt_fail(err, RT_ERR_NO_NVSHMEM,
                    "the module uses NVSHMEM, which this process has not initialised "
                    "(nvshmemx_init_status() is %d; call nvshmem_init or nvshmemx_init_attr "
                    "before loading the module)", status);
    dlclose(lib);
    return s;
}

RtStatus rt_nvshmem_module_init(RtModule *m, RtError *err)
{
    CUdeviceptr state;
    size_t bytes;
    if (m->dev->cu->cuModuleGetGlobal(&state, &bytes, m->mod, "nvshmemi_device_state_d") !=
        CUDA_SUCCESS)
        return RT_OK; /* no NVSHMEM in it */
    RtStatus s = rt_nvshmem_check_initialised(err);
    if (s != RT_OK)
        return s;
    void *lib = host_library();
    int (*cumodule_init)(CUmodule);
    if (!lib || !rt_lookup(lib, "nvshmemx_cumodule_init", &cumodule_init))
        s = rt_fail(err, RT_ERR_NO_NVSHMEM, "the loaded %s has no nvshmemx_cumodule_init",
                    HOST_LIB);
    int r = s == RT_OK ? cumodule_init(m->mod) : 0;
    if (r != 0)
        s = rt_fail(err, RT_ERR_NO_NVSHMEM, "nvshmemx_cumodule_init failed on the module (%d)", r);
    m->nvshmem = s == RT_OK;
    if (lib)
        dlclose(lib);
    return s;
}

void rt_nvshmem_module_finalize(RtModule *m)
{
    void *lib = m->nvshmem ? host_library() : NULL;
    int (*cumodule_finalize)(CUmodule);
    if (lib && rt_lookup(lib, "nvshmemx_cumodule_finalize", &cumodule_finalize))
        cumodule_finalize(m->mod);
    if (lib)
        dlclose(lib);
    m->nvshmem = false;
}
