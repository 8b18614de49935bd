/* Devices, device memory and events. A device is opened by retaining its
 * primary context, the context PyTorch and the CUDA runtime use, so device
 * pointers made by either are valid in tirx's launches; every call that
 * touches the device first makes that context current on the calling thread.
 * Memory and events are thin wrappers, there for tests, benchmarks and the
 * demo driver. With TIRX_KERNEL_TIMEOUT every wait for the GPU polls and
 * gives up after that many seconds (await_event). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

RtStatus rt_device_count(int *n, RtError *err)
{
    const RtCuda *cu;
    RtStatus s = rt_driver(&cu, err);
    if (s != RT_OK)
        return s;
    CUresult r = cu->cuDeviceGetCount(n);
    return r == CUDA_SUCCESS ? RT_OK : rt_cu_fail(err, cu, r, "cuDeviceGetCount");
}

static RtStatus read_attribute(RtDevice *d, CUdevice_attribute a, int *out, RtError *err)
{
    CUresult r = d->cu->cuDeviceGetAttribute(out, a, d->dev);
    return r == CUDA_SUCCESS ? RT_OK : rt_cu_fail(err, d->cu, r, "cuDeviceGetAttribute");
}

static RtStatus read_info(RtDevice *d, RtError *err)
{
    RtDeviceInfo *i = &d->info;
    int cluster = 0;
    RtStatus s = read_attribute(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &i->cc_major, err);
    if (s == RT_OK)
        s = read_attribute(d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &i->cc_minor, err);
    if (s == RT_OK)
        s = read_attribute(d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &i->sm_count, err);
    if (s == RT_OK)
        s = read_attribute(d, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &i->max_threads_per_block, err);
    if (s == RT_OK)
        s = read_attribute(d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                           &i->smem_per_block_optin, err);
    if (s == RT_OK)
        s = read_attribute(d, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &i->l2_bytes, err);
    if (s == RT_OK)
        s = read_attribute(d, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, &cluster, err);
    if (s != RT_OK)
        return s;
    i->cluster_launch = cluster != 0;
    i->driver_version = d->cu->driver_version;
    CUresult r = d->cu->cuDeviceGetName(i->name, (int)sizeof i->name, d->dev);
    if (r != CUDA_SUCCESS)
        return rt_cu_fail(err, d->cu, r, "cuDeviceGetName");
    /* Hopper and later get the arch-specific target (wgmma, setmaxnreg, tcgen05). */
    snprintf(i->arch, sizeof i->arch, "sm_%d%d%s", i->cc_major, i->cc_minor,
             i->cc_major >= 9 ? "a" : "");
    return RT_OK;
}

static RtStatus open_device(RtDevice *d, int ordinal, RtError *err)
{
    int count = 0;
    RtStatus s = rt_device_count(&count, err);
    if (s != RT_OK)
        return s;
    if (count == 0)
        return rt_fail(err, RT_ERR_NO_GPU, "no GPU: the CUDA driver reports no device");
    if (ordinal < 0 || ordinal >= count)
        return rt_fail(err, RT_ERR_USAGE, "no GPU %d: there %s %d (0..%d)", ordinal,
                       count == 1 ? "is" : "are", count, count - 1);
    CUresult r = d->cu->cuDeviceGet(&d->dev, ordinal);
    if (r != CUDA_SUCCESS)
        return rt_cu_fail(err, d->cu, r, "cuDeviceGet");
    r = d->cu->cuDevicePrimaryCtxRetain(&d->ctx, d->dev);
    if (r != CUDA_SUCCESS)
        return rt_cu_fail(err, d->cu, r, "cuDevicePrimaryCtxRetain");
    d->info.ordinal = ordinal;
    s = rt_enter(d, err);
    return s == RT_OK ? read_info(d, err) : s;
}

RtStatus rt_kernel_timeout(double *out, RtError *err)
{
    const char *v = getenv("TIRX_KERNEL_TIMEOUT");
    *out = 0;
    if (!v || !*v)
        return RT_OK;
    char *end;
    double t = strtod(v, &end);
    if (*end || !(t >= 0) || t > 1e6)
        return rt_fail(err, RT_ERR_USAGE, "TIRX_KERNEL_TIMEOUT is a number of seconds from 0 "
                                          "(no limit) to 1e6, not '%.40s'", v);
    *out = t;
    return RT_OK;
}

RtStatus rt_device_open(int ordinal, RtDevice **out, RtError *err)
{
    const RtCuda *cu;
    *out = NULL;
    RtStatus s = rt_driver(&cu, err);
    if (s != RT_OK)
        return s;
    RtDevice *d = calloc(1, sizeof *d);
    if (!d)
        return rt_fail(err, RT_ERR_IO, "out of memory");
    d->cu = cu;
    s = rt_kernel_timeout(&d->kernel_timeout_s, err);
    if (s == RT_OK)
        s = open_device(d, ordinal, err);
    if (s != RT_OK) {
        rt_device_close(d);
        return s;
    }
    *out = d;
    return RT_OK;
}

void rt_device_close(RtDevice *d)
{
    if (!d)
        return;
    if (d->ctx && !rt_device_hung(d))
        d->cu->cuDevicePrimaryCtxRelease(d->dev);
    free(d);
}

const RtDeviceInfo *rt_device_info(const RtDevice *d)
{
    return &d->info;
}

/* Per device ordinal: the primary context is shared by every RtDevice of it. */
#define HUNG_ORDINALS 64
static atomic_bool hung[HUNG_ORDINALS];

bool rt_device_hung(const RtDevice *d)
{
    int i = d->info.ordinal;
    return i >= 0 && i < HUNG_ORDINALS && atomic_load(&hung[i]);
}

static void set_hung(const RtDevice *d)
{
    if (d->info.ordinal >= 0 && d->info.ordinal < HUNG_ORDINALS)
        atomic_store(&hung[d->info.ordinal], true);
}

double rt_seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* With a kernel timeout, polls `ev` until the work before it is done, so
 * that a kernel that never finishes (a barrier that never completes) is an
 * error after that long instead of a hang. The kernel keeps running: the
 * context is of no more use, and the process should end. */
static RtStatus await_event(RtDevice *d, CUevent ev, RtError *err)
{
    if (d->kernel_timeout_s <= 0)
        return RT_OK;
    double deadline = rt_seconds_now() + d->kernel_timeout_s;
    for (;;) {
        CUresult r = d->cu->cuEventQuery(ev);
        if (r != CUDA_ERROR_NOT_READY)
            return RT_OK; /* done, or a fault that the blocking call reports */
        if (rt_seconds_now() > deadline) {
            set_hung(d);
            return rt_fail(err, RT_ERR_CUDA, "the GPU did not finish within %g s "
                           "(TIRX_KERNEL_TIMEOUT): a kernel that never ends, such as a barrier "
                           "or wait that never completes; its context is unusable now",
                           d->kernel_timeout_s);
        }
        nanosleep(&(struct timespec){0, 50000}, NULL);
    }
}

/* await_event on an event recorded now on `stream` (NULL: the legacy default
 * stream, which is behind all work of the blocking streams). */
static RtStatus await_stream(RtDevice *d, void *stream, RtError *err)
{
    if (d->kernel_timeout_s <= 0)
        return RT_OK;
    CUevent ev;
    CUresult r = d->cu->cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING);
    if (r != CUDA_SUCCESS)
        return rt_cu_fail(err, d->cu, r, "cuEventCreate");
    r = d->cu->cuEventRecord(ev, (CUstream)stream);
    RtStatus s = r == CUDA_SUCCESS ? await_event(d, ev, err) : rt_cu_fail(err, d->cu, r,
                                                                          "cuEventRecord");
    if (!rt_device_hung(d))
        d->cu->cuEventDestroy(ev);
    return s;
}

RtStatus rt_synchronize(RtDevice *d, void *stream, RtError *err)
{
    RtStatus s = rt_enter(d, err);
    if (s == RT_OK)
        s = await_stream(d, stream, err);
    if (s != RT_OK)
        return s;
    CUresult r = stream ? d->cu->cuStreamSynchronize((CUstream)stream) : d->cu->cuCtxSynchronize();
    return r == CUDA_SUCCESS ? RT_OK
                             : rt_cu_fail(err, d->cu, r, stream ? "cuStreamSynchronize" : "cuCtxSynchronize");
}

RtStatus rt_stream_create(RtDevice *d, void **out, RtError *err)
{
    *out = NULL;
    RtStatus s = rt_enter(d, err);
    if (s != RT_OK)
        return s;
    CUstream stream;
    CUresult r = d->cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
    if (r != CUDA_SUCCESS)
        return rt_cu_fail(err, d->cu, r, "cuStreamCreate");
    *out = stream;
    return RT_OK;
}

void rt_stream_destroy(RtDevice *d, void *stream)
{
    if (stream && rt_enter(d, NULL) == RT_OK)
        d->cu->cuStreamDestroy((CUstream)stream);
}

/* ---- memory ---- */

RtStatus rt_mem_alloc(RtDevice *d, size_t bytes, RtDevPtr *out, RtError *err)
{
    RtStatus s = rt_enter(d, err);
    if (s != RT_OK)
        return s;
    CUdeviceptr p = 0;
    CUresult r = d->cu->cuMemAlloc(&p, bytes);
    if (r != CUDA_SUCCESS)
        return rt_cu_fail(err, d->cu, r, "cuMemAlloc");
    *out = (RtDevPtr)p;
    return RT_OK;
}

void rt_mem_free(RtDevice *d, RtDevPtr p)
{
    if (p && rt_enter(d, NULL) == RT_OK)
        d->cu->cuMemFree((CUdeviceptr)p);
}

RtStatus rt_memcpy_htod(RtDevice *d, RtDevPtr dst, const void *src, size_t bytes, RtError *err)
{
    RtStatus s = rt_enter(d, err);
    CUresult r = s == RT_OK ? d->cu->cuMemcpyHtoD((CUdeviceptr)dst, src, bytes) : CUDA_SUCCESS;
    return s != RT_OK || r == CUDA_SUCCESS ? s : rt_cu_fail(err, d->cu, r, "cuMemcpyHtoD");
}

RtStatus rt_memcpy_dtoh(RtDevice *d, void *dst, RtDevPtr src, size_t bytes, RtError *err)
{
    RtStatus s = rt_enter(d, err);
    if (s == RT_OK)
        s = await_stream(d, NULL, err);
    CUresult r = s == RT_OK ? d->cu->cuMemcpyDtoH(dst, (CUdeviceptr)src, bytes) : CUDA_SUCCESS;
    return s != RT_OK || r == CUDA_SUCCESS ? s : rt_cu_fail(err, d->cu, r, "cuMemcpyDtoH");
}

RtStatus rt_memset8(RtDevice *d, RtDevPtr dst, uint8_t value, size_t bytes, RtError *err)
{
    RtStatus s = rt_enter(d, err);
    CUresult r = s == RT_OK ? d->cu->cuMemsetD8((CUdeviceptr)dst, value, bytes) : CUDA_SUCCESS;
    return s != RT_OK || r == CUDA_SUCCESS ? s : rt_cu_fail(err, d->cu, r, "cuMemsetD8");
}

RtStatus rt_memset32_async(RtDevice *d, RtDevPtr dst, uint32_t value, size_t count, void *stream,
                           RtError *err)
{
    RtStatus s = rt_enter(d, err);
    CUresult r = s == RT_OK ? d->cu->cuMemsetD32Async((CUdeviceptr)dst, value, count, (CUstream)stream)
                            : CUDA_SUCCESS;
    return s != RT_OK || r == CUDA_SUCCESS ? s : rt_cu_fail(err, d->cu, r, "cuMemsetD32Async");
}

RtStatus rt_host_alloc_mapped(RtDevice *d, size_t bytes, void **host, RtDevPtr *dev, RtError *err)
{
    *host = NULL;
    RtStatus s = rt_enter(d, err);
    if (s != RT_OK)
        return s;
    CUresult r = d->cu->cuMemHostAlloc(host, bytes, CU_MEMHOSTALLOC_DEVICEMAP);
    if (r != CUDA_SUCCESS)
        return rt_cu_fail(err, d->cu, r, "cuMemHostAlloc");
    CUdeviceptr p = 0;
    r = d->cu->cuMemHostGetDevicePointer(&p, *host, 0);
    if (r != CUDA_SUCCESS) {
        d->cu->cuMemFreeHost(*host);
        *host = NULL;
        return rt_cu_fail(err, d->cu, r, "cuMemHostGetDevicePointer");
    }
    *dev = (RtDevPtr)p;
    return RT_OK;
}

void rt_host_free(RtDevice *d, void *host)
{
    if (host && rt_enter(d, NULL) == RT_OK)
        d->cu->cuMemFreeHost(host);
}

/* ---- events ---- */

struct RtEvent {
    RtDevice *dev;
    CUevent ev;
};

RtStatus rt_event_create(RtDevice *d, RtEvent **out, RtError *err)
{
    *out = NULL;
    RtStatus s = rt_enter(d, err);
    if (s != RT_OK)
        return s;
    RtEvent *e = calloc(1, sizeof *e);
    if (!e)
        return rt_fail(err, RT_ERR_IO, "out of memory");
    e->dev = d;
    CUresult r = d->cu->cuEventCreate(&e->ev, CU_EVENT_DEFAULT);
    if (r != CUDA_SUCCESS) {
        free(e);
        return rt_cu_fail(err, d->cu, r, "cuEventCreate");
    }
    *out = e;
    return RT_OK;
}

RtStatus rt_event_record(RtEvent *e, void *stream, RtError *err)
{
    RtStatus s = rt_enter(e->dev, err);
    CUresult r = s == RT_OK ? e->dev->cu->cuEventRecord(e->ev, (CUstream)stream) : CUDA_SUCCESS;
    return s != RT_OK || r == CUDA_SUCCESS ? s : rt_cu_fail(err, e->dev->cu, r, "cuEventRecord");
}

RtStatus rt_event_elapsed_ms(RtEvent *start, RtEvent *end, float *ms, RtError *err)
{
    const RtCuda *cu = end->dev->cu;
    RtStatus s = rt_enter(end->dev, err);
    if (s == RT_OK)
        s = await_event(end->dev, end->ev, err);
    if (s != RT_OK)
        return s;
    CUresult r = cu->cuEventSynchronize(end->ev);
    if (r != CUDA_SUCCESS)
        return rt_cu_fail(err, cu, r, "cuEventSynchronize");
    r = cu->cuEventElapsedTime(ms, start->ev, end->ev);
    return r == CUDA_SUCCESS ? RT_OK : rt_cu_fail(err, cu, r, "cuEventElapsedTime");
}

void rt_event_destroy(RtEvent *e)
{
    if (!e)
        return;
    if (rt_enter(e->dev, NULL) == RT_OK)
        e->dev->cu->cuEventDestroy(e->ev);
    free(e);
}
