/* Runtime errors: status names and the helpers that fill an RtError, one of
 * them naming a failed driver call with the driver's own name and text for
 * the error code. */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

const char *rt_status_name(RtStatus s)
{
    static const char *const names[] = {
#define X(name, text) text,
        RT_STATUSES(X)
#undef X
    };
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "unknown status";
}

RtStatus rt_fail(RtError *err, RtStatus s, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->status = s;
    }
    return s;
}

RtStatus rt_cu_fail(RtError *err, const RtCuda *cu, CUresult r, const char *call)
{
    const char *name = NULL, *text = NULL;
    if (cu->cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
        name = "unknown CUDA error";
    if (cu->cuGetErrorString(r, &text) != CUDA_SUCCESS || !text)
        text = "";
    return rt_fail(err, RT_ERR_CUDA, "%s failed: %s (%d)%s%s", call, name, (int)r,
                   *text ? ": " : "", text);
}

RtStatus rt_enter(const RtDevice *d, RtError *err)
{
    /* a kernel still running would block the call (or a free, or the
     * context's release) forever */
    if (rt_device_hung(d))
        return rt_fail(err, RT_ERR_CUDA, "the GPU is still running a kernel that did not "
                       "finish within %g s (TIRX_KERNEL_TIMEOUT)", d->kernel_timeout_s);
    CUresult r = d->cu->cuCtxSetCurrent(d->ctx);
    return r == CUDA_SUCCESS ? RT_OK : rt_cu_fail(err, d->cu, r, "cuCtxSetCurrent");
}
