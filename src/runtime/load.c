/* Loading libcuda, libnvrtc and libnvJitLink at run time. The driver is
 * dlopen'd as libcuda.so.1 (never libcuda.so, which is the toolkit's stub or
 * a dev link), initialised with cuInit, and every cuda.def entry is fetched
 * with cuGetProcAddress at the ABI version its PFN type names. NVRTC is
 * dlopen'd as libnvrtc.so.13, then .12, then libnvrtc.so, and its nvrtc.def
 * entries are looked up with dlsym; nvJitLink (only NVSHMEM modules link) is
 * the one of NVRTC's major version, from NVRTC's directory first, its
 * nvjitlink.def entries looked up the same way. Each library is loaded once
 * per process behind a pthread_once; a failure is classified (no driver, the
 * stub, no GPU, a driver older than 12.0, no NVRTC, no nvJitLink) into a
 * status and a message saying what to do. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MIN_DRIVER_VERSION 12000

bool rt_lookup(void *lib, const char *name, void *fn_out)
{
    void *p = dlsym(lib, name);
    if (p)
        memcpy(fn_out, &p, sizeof p);
    return p != NULL;
}

const char *rt_env_or(const char *var, const char *fallback)
{
    const char *v = getenv(var);
    return v && *v ? v : fallback;
}

void *rt_dlopen_first(const char *override, const char *const *names, size_t n, const char **path,
                      const char **why)
{
    const char *const *tries = override ? &override : names;
    size_t ntries = override ? 1 : n;
    *why = NULL;
    for (size_t i = 0; i < ntries; i++) {
        void *lib = dlopen(tries[i], RTLD_LAZY | RTLD_LOCAL);
        if (lib) {
            *path = tries[i];
            return lib;
        }
        *why = dlerror();
    }
    return NULL;
}

/* ---- the driver ---- */

static RtStatus init_failure(void *lib, const char *path, CUresult r, RtError *err)
{
    const char *name = NULL;
    PFN_cuGetErrorName_v6000 error_name;
    if (!rt_lookup(lib, "cuGetErrorName", &error_name) || error_name(r, &name) != CUDA_SUCCESS)
        name = NULL;
    switch (r) {
    case CUDA_ERROR_STUB_LIBRARY:
        return rt_fail(err, RT_ERR_NO_DRIVER,
                       "no CUDA driver: %s is the CUDA toolkit's stub library, not a driver", path);
    case CUDA_ERROR_NO_DEVICE:
        return rt_fail(err, RT_ERR_NO_GPU,
                       "no GPU: the CUDA driver found no device (is CUDA_VISIBLE_DEVICES set?)");
    default:
        return rt_fail(err, RT_ERR_NO_DRIVER, "no usable CUDA driver: cuInit failed with %s (%d)",
                       name ? name : "an unknown error", (int)r);
    }
}

static RtStatus fetch_entry(RtCuda *cu, PFN_cuGetProcAddress_v12000 get_proc, const char *name,
                            int version, void *fn_out, RtError *err)
{
    void *p = NULL;
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SUCCESS;
    CUresult r = get_proc(name, &p, version, CU_GET_PROC_ADDRESS_DEFAULT, &found);
    if (r != CUDA_SUCCESS || !p || found != CU_GET_PROC_ADDRESS_SUCCESS)
        return rt_fail(err, RT_ERR_DRIVER_TOO_OLD,
                       "CUDA driver too old: it has no %s with the ABI of CUDA %d.%d "
                       "(driver version %d)",
                       name, version / 1000, version % 1000 / 10, cu->driver_version);
    memcpy(fn_out, &p, sizeof p);
    return RT_OK;
}

static RtStatus driver_fetch_table(RtCuda *cu, PFN_cuGetProcAddress_v12000 get_proc, RtError *err)
{
    RtStatus s = RT_OK;
#define X(name, version, params)                                                      \
    if (s == RT_OK)                                                                   \
        s = fetch_entry(cu, get_proc, #name, version, &cu->name, err);
#include "cuda.def"
#undef X
    return s;
}

static RtStatus driver_init(RtCuda *cu, const char *path, RtError *err)
{
    PFN_cuInit_v2000 init;
    PFN_cuGetProcAddress_v12000 get_proc;
    PFN_cuDriverGetVersion_v2020 get_version;
    if (!rt_lookup(cu->lib, "cuInit", &init) ||
        !rt_lookup(cu->lib, "cuDriverGetVersion", &get_version))
        return rt_fail(err, RT_ERR_NO_DRIVER, "no CUDA driver: %s has no cuInit", path);
    CUresult r = init(0);
    if (r != CUDA_SUCCESS)
        return init_failure(cu->lib, path, r, err);
    if (get_version(&cu->driver_version) != CUDA_SUCCESS || cu->driver_version < MIN_DRIVER_VERSION ||
        !rt_lookup(cu->lib, "cuGetProcAddress_v2", &get_proc))
        return rt_fail(err, RT_ERR_DRIVER_TOO_OLD,
                       "CUDA driver too old: version %d.%d, tirx needs %d.%d or newer",
                       cu->driver_version / 1000, cu->driver_version % 1000 / 10,
                       MIN_DRIVER_VERSION / 1000, MIN_DRIVER_VERSION % 1000 / 10);
    return driver_fetch_table(cu, get_proc, err);
}

/* Loads and initialises the driver at `path` into *cu. On failure the
 * library is closed again; on success it stays loaded for the process. */
static RtStatus driver_load(RtCuda *cu, const char *path, RtError *err)
{
    memset(cu, 0, sizeof *cu);
    cu->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!cu->lib) {
        const char *why = dlerror();
        return rt_fail(err, RT_ERR_NO_DRIVER, "no CUDA driver: cannot load %s (%s)", path,
                       why ? why : "not found");
    }
    RtStatus s = driver_init(cu, path, err);
    if (s != RT_OK) {
        dlclose(cu->lib);
        cu->lib = NULL;
    }
    return s;
}

RtStatus rt_once(RtOnce *o, void (*init)(void), RtError *err)
{
    pthread_once(&o->once, init);
    if (o->err.status != RT_OK && err)
        *err = o->err;
    return o->err.status;
}

static struct {
    RtOnce once;
    RtCuda cu;
} driver_slot = {{PTHREAD_ONCE_INIT}};

static void driver_load_once(void)
{
    const char *path = rt_env_or("TIRX_LIBCUDA", "libcuda.so.1");
    driver_slot.once.err.status = driver_load(&driver_slot.cu, path, &driver_slot.once.err);
}

RtStatus rt_driver(const RtCuda **out, RtError *err)
{
    RtStatus s = rt_once(&driver_slot.once, driver_load_once, err);
    if (s == RT_OK)
        *out = &driver_slot.cu;
    return s;
}

RtStatus rt_driver_check(RtError *err)
{
    const RtCuda *cu;
    return rt_driver(&cu, err);
}

RtStatus rt_driver_probe(const char *path, RtError *err)
{
    RtCuda cu;
    return driver_load(&cu, path, err);
}

/* ---- NVRTC ---- */

static RtStatus nvrtc_fetch_table(RtNvrtc *nv, const char *path, RtError *err)
{
#define X(ret, name, params)                                                            \
    if (!rt_lookup(nv->lib, #name, &nv->name))                                             \
        return rt_fail(err, RT_ERR_NO_NVRTC, "no usable NVRTC: %s has no %s", path, #name);
#include "nvrtc.def"
#undef X
    if (nv->nvrtcVersion(&nv->major, &nv->minor) != NVRTC_SUCCESS)
        return rt_fail(err, RT_ERR_NO_NVRTC, "no usable NVRTC: nvrtcVersion failed in %s", path);
    return RT_OK;
}

static RtStatus nvrtc_load(RtNvrtc *nv, const char *override, RtError *err)
{
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
    const char *why, *path;
    memset(nv, 0, sizeof *nv);
    nv->lib = rt_dlopen_first(override, names, sizeof names / sizeof names[0], &path, &why);
    if (nv->lib) {
        RtStatus s = nvrtc_fetch_table(nv, path, err);
        if (s != RT_OK) {
            dlclose(nv->lib);
            nv->lib = NULL;
        }
        return s;
    }
    if (override)
        return rt_fail(err, RT_ERR_NO_NVRTC, "no NVRTC: cannot load %s (%s)", override,
                       why ? why : "not found");
    return rt_fail(err, RT_ERR_NO_NVRTC,
                   "no NVRTC: cannot load libnvrtc.so.13, libnvrtc.so.12 or libnvrtc.so "
                   "(install the CUDA toolkit or set TIRX_LIBNVRTC to the library)");
}

static struct {
    RtOnce once;
    RtNvrtc nv;
} nvrtc_slot = {{PTHREAD_ONCE_INIT}};

static void nvrtc_load_once(void)
{
    nvrtc_slot.once.err.status =
        nvrtc_load(&nvrtc_slot.nv, rt_env_or("TIRX_LIBNVRTC", NULL), &nvrtc_slot.once.err);
}

RtStatus rt_nvrtc(const RtNvrtc **out, RtError *err)
{
    RtStatus s = rt_once(&nvrtc_slot.once, nvrtc_load_once, err);
    if (s == RT_OK)
        *out = &nvrtc_slot.nv;
    return s;
}

RtStatus rt_nvrtc_version(int *major, int *minor, RtError *err)
{
    const RtNvrtc *nv;
    RtStatus s = rt_nvrtc(&nv, err);
    if (s == RT_OK) {
        *major = nv->major;
        *minor = nv->minor;
    }
    return s;
}

/* ---- nvJitLink ---- */

static RtStatus nvjitlink_fetch_table(RtNvJitLink *jl, const char *path, RtError *err)
{
#define X(ret, name, params)                                                              \
    if (!rt_lookup(jl->lib, #name, &jl->name))                                             \
        return rt_fail(err, RT_ERR_NO_NVJITLINK, "no usable nvJitLink: %s has no %s", path, #name);
#include "nvjitlink.def"
#undef X
    if (jl->nvJitLinkVersion(&jl->major, &jl->minor) != NVJITLINK_SUCCESS)
        return rt_fail(err, RT_ERR_NO_NVJITLINK,
                       "no usable nvJitLink: nvJitLinkVersion failed in %s", path);
    return RT_OK;
}

/* libnvJitLink.so.<major> in the directory of the NVRTC library in use, then
 * on the loader's path (LTO IR links only with a nvJitLink at least as new as
 * the NVRTC that wrote it). */
static RtStatus nvjitlink_load(RtNvJitLink *jl, const char *override, RtError *err)
{
    const RtNvrtc *nv;
    RtStatus s = rt_nvrtc(&nv, err);
    if (s != RT_OK)
        return s;
    char beside[1200] = "", plain[64];
    Dl_info info;
    void *fn;
    memcpy(&fn, &nv->nvrtcVersion, sizeof fn);
    const char *slash = dladdr(fn, &info) && info.dli_fname ? strrchr(info.dli_fname, '/') : NULL;
    if (slash)
        snprintf(beside, sizeof beside, "%.*s/libnvJitLink.so.%d", (int)(slash - info.dli_fname),
                 info.dli_fname, nv->major);
    snprintf(plain, sizeof plain, "libnvJitLink.so.%d", nv->major);
    const char *names[] = {beside, plain};
    const char *why, *path;
    memset(jl, 0, sizeof *jl);
    jl->lib = rt_dlopen_first(override, names + !slash, slash ? 2 : 1, &path, &why);
    if (!jl->lib)
        return rt_fail(err, RT_ERR_NO_NVJITLINK,
                       "no nvJitLink: cannot load %s (%s; NVSHMEM modules link with the nvJitLink "
                       "of NVRTC %d.%d: install it or set TIRX_LIBNVJITLINK to the library)",
                       override ? override : plain, why ? why : "not found", nv->major, nv->minor);
    s = nvjitlink_fetch_table(jl, path, err);
    if (s == RT_OK && (int)jl->major < nv->major)
        s = rt_fail(err, RT_ERR_NO_NVJITLINK,
                    "no usable nvJitLink: %s is version %u.%u, older than NVRTC %d.%d", path,
                    jl->major, jl->minor, nv->major, nv->minor);
    if (s != RT_OK) {
        dlclose(jl->lib);
        jl->lib = NULL;
    }
    return s;
}

static struct {
    RtOnce once;
    RtNvJitLink jl;
} nvjitlink_slot = {{PTHREAD_ONCE_INIT}};

static void nvjitlink_load_once(void)
{
    nvjitlink_slot.once.err.status = nvjitlink_load(
        &nvjitlink_slot.jl, rt_env_or("TIRX_LIBNVJITLINK", NULL), &nvjitlink_slot.once.err);
}

RtStatus rt_nvjitlink(const RtNvJitLink **out, RtError *err)
{
    RtStatus s = rt_once(&nvjitlink_slot.once, nvjitlink_load_once, err);
    if (s == RT_OK)
        *out = &nvjitlink_slot.jl;
    return s;
}
