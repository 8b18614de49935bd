/* Modules and launches. A module is a cubin (or PTX the driver JIT-compiles)
 * loaded into the device's primary context (one that uses NVSHMEM also
 * initialised for it, nvshmem.c); its kernels are looked up by name
 * once and keep their resource usage (cuFuncGetAttribute). A launch checks
 * its configuration against the kernel's and the device's limits first, so a
 * bad launch is a message naming the limit rather than a bare
 * CUDA_ERROR_INVALID_VALUE; it raises the kernel's dynamic shared memory
 * limit when asked for more than the current one (48 KiB by default), sets up
 * the launch attributes (a cluster dimension when cluster dims are given,
 * programmatic stream serialization for a programmatic dependent launch),
 * and calls cuLaunchKernelEx on the caller's stream. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define JIT_LOG_BYTES 4096
#define PORTABLE_CLUSTER_SIZE 8
#define MAX_LAUNCH_ATTRS 2

RtStatus rt_module_load(RtDevice *d, const void *image, RtModule **out, RtError *err)
{
    *out = NULL;
    RtStatus s = rt_enter(d, err);
    if (s != RT_OK)
        return s;
    RtModule *m = calloc(1, sizeof *m);
    if (!m)
        return rt_fail(err, RT_ERR_IO, "out of memory");
    char log[JIT_LOG_BYTES] = "";
    CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)sizeof log};
    CUresult r = d->cu->cuModuleLoadDataEx(&m->mod, image, 2, keys, values);
    if (r != CUDA_SUCCESS) {
        free(m);
        s = rt_cu_fail(err, d->cu, r, "cuModuleLoadData");
        if (err && log[0]) {
            size_t n = strlen(err->message);
            snprintf(err->message + n, sizeof err->message - n, "; JIT log: %s", log);
        }
        return s;
    }
    m->dev = d;
    s = rt_nvshmem_module_init(m, err);
    if (s != RT_OK) {
        d->cu->cuModuleUnload(m->mod);
        free(m);
        return s;
    }
    pthread_mutex_init(&m->lock, NULL);
    *out = m;
    return RT_OK;
}

void rt_module_unload(RtModule *m)
{
    if (!m)
        return;
    for (RtFunction *f = m->functions, *next; f; f = next) {
        next = f->next;
        free(f->name);
        free(f);
    }
    if (rt_enter(m->dev, NULL) == RT_OK) {
        rt_nvshmem_module_finalize(m);
        m->dev->cu->cuModuleUnload(m->mod);
    }
    pthread_mutex_destroy(&m->lock);
    free(m);
}

static RtStatus read_resources(const RtCuda *cu, RtFunction *f, RtError *err)
{
    static const struct {
        CUfunction_attribute attr;
        size_t offset;
    } fields[] = {
        {CU_FUNC_ATTRIBUTE_NUM_REGS, offsetof(RtResources, registers)},
        {CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, offsetof(RtResources, local_bytes)},
        {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, offsetof(RtResources, static_smem_bytes)},
        {CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, offsetof(RtResources, const_bytes)},
        {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, offsetof(RtResources, max_threads_per_block)},
        {CU_FUNC_ATTRIBUTE_PTX_VERSION, offsetof(RtResources, ptx_version)},
        {CU_FUNC_ATTRIBUTE_BINARY_VERSION, offsetof(RtResources, binary_version)},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        int v = 0;
        CUresult r = cu->cuFuncGetAttribute(&v, fields[i].attr, f->fn);
        if (r != CUDA_SUCCESS)
            return rt_cu_fail(err, cu, r, "cuFuncGetAttribute");
        memcpy((char *)&f->res + fields[i].offset, &v, sizeof v);
    }
    CUresult r = cu->cuFuncGetAttribute(&f->dyn_smem_limit,
                                        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f->fn);
    return r == CUDA_SUCCESS ? RT_OK : rt_cu_fail(err, cu, r, "cuFuncGetAttribute");
}

static RtStatus find_function(RtModule *m, const char *name, RtFunction **out, RtError *err)
{
    for (RtFunction *f = m->functions; f; f = f->next)
        if (strcmp(f->name, name) == 0) {
            *out = f;
            return RT_OK;
        }
    const RtCuda *cu = m->dev->cu;
    RtFunction *f = calloc(1, sizeof *f);
    if (!f)
        return rt_fail(err, RT_ERR_IO, "out of memory");
    CUresult r = cu->cuModuleGetFunction(&f->fn, m->mod, name);
    RtStatus s = r == CUDA_SUCCESS ? read_resources(cu, f, err)
                                   : rt_fail(err, r == CUDA_ERROR_NOT_FOUND ? RT_ERR_USAGE : RT_ERR_CUDA,
                                             "no kernel '%s' in the module", name);
    if (s != RT_OK) {
        free(f);
        return s;
    }
    f->module = m;
    f->name = strdup(name);
    f->next = m->functions;
    m->functions = f;
    *out = f;
    return RT_OK;
}

RtStatus rt_module_function(RtModule *m, const char *name, RtFunction **out, RtError *err)
{
    *out = NULL;
    RtStatus s = rt_enter(m->dev, err);
    if (s != RT_OK)
        return s;
    pthread_mutex_lock(&m->lock);
    s = find_function(m, name, out, err);
    pthread_mutex_unlock(&m->lock);
    return s;
}

RtStatus rt_module_global(RtModule *m, const char *name, RtDevPtr *addr, size_t *bytes,
                          RtError *err)
{
    *addr = 0;
    *bytes = 0;
    RtStatus s = rt_enter(m->dev, err);
    if (s != RT_OK)
        return s;
    CUdeviceptr p = 0;
    CUresult r = m->dev->cu->cuModuleGetGlobal(&p, bytes, m->mod, name);
    if (r == CUDA_ERROR_NOT_FOUND)
        return rt_fail(err, RT_ERR_USAGE, "the module has no global %s", name);
    if (r != CUDA_SUCCESS)
        return rt_cu_fail(err, m->dev->cu, r, "cuModuleGetGlobal");
    *addr = (RtDevPtr)p;
    return RT_OK;
}

const RtResources *rt_function_resources(const RtFunction *f)
{
    return &f->res;
}

/* ---- launch ---- */

static unsigned cluster_dim(const RtLaunchConfig *c, int i)
{
    return c->cluster[i] ? c->cluster[i] : 1;
}

static RtStatus check_shape(const RtFunction *f, const RtLaunchConfig *c, RtError *err)
{
    static const char axis[3] = {'x', 'y', 'z'};
    uint64_t threads = 1;
    for (int i = 0; i < 3; i++) {
        if (c->grid[i] == 0 || c->block[i] == 0)
            return rt_fail(err, RT_ERR_USAGE, "launch of %s: %s.%c is 0", f->name,
                           c->grid[i] == 0 ? "grid" : "block", axis[i]);
        if (c->grid[i] % cluster_dim(c, i) != 0)
            return rt_fail(err, RT_ERR_USAGE,
                           "launch of %s: grid.%c = %u is not a multiple of cluster.%c = %u",
                           f->name, axis[i], c->grid[i], axis[i], cluster_dim(c, i));
        threads *= c->block[i];
    }
    if (threads > (uint64_t)f->res.max_threads_per_block)
        return rt_fail(err, RT_ERR_USAGE,
                       "launch of %s: %llu threads per block, the kernel allows at most %d",
                       f->name, (unsigned long long)threads, f->res.max_threads_per_block);
    return RT_OK;
}

static RtStatus check_resources(const RtFunction *f, const RtLaunchConfig *c, RtError *err)
{
    const RtDeviceInfo *d = &f->module->dev->info;
    uint64_t smem = (uint64_t)c->dyn_smem_bytes + (uint64_t)f->res.static_smem_bytes;
    if (smem > (uint64_t)d->smem_per_block_optin)
        return rt_fail(err, RT_ERR_USAGE,
                       "launch of %s: %llu bytes of shared memory per block (%zu dynamic + %d "
                       "static), %s allows at most %d",
                       f->name, (unsigned long long)smem, c->dyn_smem_bytes,
                       f->res.static_smem_bytes, d->name, d->smem_per_block_optin);
    unsigned cluster = cluster_dim(c, 0) * cluster_dim(c, 1) * cluster_dim(c, 2);
    if (cluster > 1 && !d->cluster_launch)
        return rt_fail(err, RT_ERR_USAGE, "launch of %s: %s cannot launch clusters (needs sm_90+)",
                       f->name, d->name);
    if (c->pdl && d->cc_major < 9)
        return rt_fail(err, RT_ERR_USAGE,
                       "launch of %s: %s has no programmatic dependent launch (needs sm_90+)",
                       f->name, d->name);
    return RT_OK;
}

/* Raises the kernel's limits that this launch needs: dynamic shared memory
 * above the current limit, and a cluster larger than the portable 8. */
static RtStatus raise_limits(RtFunction *f, const RtLaunchConfig *c, RtError *err)
{
    const RtCuda *cu = f->module->dev->cu;
    unsigned cluster = cluster_dim(c, 0) * cluster_dim(c, 1) * cluster_dim(c, 2);
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&f->module->lock);
    if (c->dyn_smem_bytes > (size_t)f->dyn_smem_limit) {
        r = cu->cuFuncSetAttribute(f->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                   (int)c->dyn_smem_bytes);
        if (r == CUDA_SUCCESS)
            f->dyn_smem_limit = (int)c->dyn_smem_bytes;
    }
    if (r == CUDA_SUCCESS && cluster > PORTABLE_CLUSTER_SIZE)
        r = cu->cuFuncSetAttribute(f->fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
    pthread_mutex_unlock(&f->module->lock);
    return r == CUDA_SUCCESS ? RT_OK : rt_cu_fail(err, cu, r, "cuFuncSetAttribute");
}

/* The launch attributes of c (cluster dimension, programmatic stream
 * serialization) into attrs; returns how many. */
static int launch_attrs(const RtLaunchConfig *c, CUlaunchAttribute attrs[MAX_LAUNCH_ATTRS])
{
    int n = 0;
    memset(attrs, 0, sizeof *attrs * MAX_LAUNCH_ATTRS);
    if (cluster_dim(c, 0) * cluster_dim(c, 1) * cluster_dim(c, 2) > 1) {
        attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attrs[n].value.clusterDim.x = cluster_dim(c, 0);
        attrs[n].value.clusterDim.y = cluster_dim(c, 1);
        attrs[n].value.clusterDim.z = cluster_dim(c, 2);
        n++;
    }
    if (c->pdl) {
        attrs[n].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attrs[n].value.programmaticStreamSerializationAllowed = 1;
        n++;
    }
    return n;
}

RtStatus rt_launch(RtFunction *f, const RtLaunchConfig *c, void **args, RtError *err)
{
    RtDevice *d = f->module->dev;
    RtStatus s = check_shape(f, c, err);
    if (s == RT_OK)
        s = check_resources(f, c, err);
    if (s == RT_OK)
        s = rt_enter(d, err);
    if (s == RT_OK)
        s = raise_limits(f, c, err);
    if (s != RT_OK)
        return s;
    CUlaunchAttribute attrs[MAX_LAUNCH_ATTRS];
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = c->grid[0], cfg.gridDimY = c->grid[1], cfg.gridDimZ = c->grid[2];
    cfg.blockDimX = c->block[0], cfg.blockDimY = c->block[1], cfg.blockDimZ = c->block[2];
    cfg.sharedMemBytes = (unsigned)c->dyn_smem_bytes;
    cfg.hStream = (CUstream)c->stream;
    cfg.numAttrs = (unsigned)launch_attrs(c, attrs);
    cfg.attrs = cfg.numAttrs ? attrs : NULL;
    CUresult r = d->cu->cuLaunchKernelEx(&cfg, f->fn, args, NULL);
    return r == CUDA_SUCCESS ? RT_OK : rt_cu_fail(err, d->cu, r, "cuLaunchKernelEx");
}
