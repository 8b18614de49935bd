/* The tirx_device helpers of tirx.h: thin wrappers over the runtime's
 * device, memory and copy calls, with their messages in a tirx_error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

tirx_status api_rt_done(RtStatus s, const RtError *rerr, tirx_error *err)
{
    if (s == RT_OK)
        return TIRX_OK;
    if (err)
        snprintf(err->message, sizeof err->message, "%s", rerr->message);
    return s == RT_ERR_USAGE ? TIRX_ERR_USAGE : s == RT_ERR_IO ? TIRX_ERR_INTERNAL : TIRX_ERR_CUDA;
}

tirx_status tirx_device_open(int ordinal, tirx_device **out, tirx_error *err)
{
    if (!out)
        return TIRX_ERR_USAGE;
    *out = calloc(1, sizeof **out);
    if (!*out)
        return TIRX_ERR_INTERNAL;
    RtError rerr = {0};
    RtStatus s = rt_device_open(ordinal, &(*out)->rt, &rerr);
    if (s != RT_OK) {
        free(*out);
        *out = NULL;
    }
    return api_rt_done(s, &rerr, err);
}

void tirx_device_close(tirx_device *d)
{
    if (!d)
        return;
    rt_device_close(d->rt);
    free(d);
}

const char *tirx_device_arch(const tirx_device *d) { return d ? rt_device_info(d->rt)->arch : NULL; }

tirx_status tirx_device_alloc(tirx_device *d, size_t bytes, void **out, tirx_error *err)
{
    if (!d || !out)
        return TIRX_ERR_USAGE;
    RtError rerr = {0};
    RtDevPtr p = 0;
    RtStatus s = rt_mem_alloc(d->rt, bytes, &p, &rerr);
    *out = (void *)(uintptr_t)p;
    return api_rt_done(s, &rerr, err);
}

void tirx_device_free(tirx_device *d, void *p)
{
    if (d && p)
        rt_mem_free(d->rt, (RtDevPtr)(uintptr_t)p);
}

tirx_status tirx_copy_to_device(tirx_device *d, void *dst, const void *src, size_t bytes,
                                tirx_error *err)
{
    if (!d)
        return TIRX_ERR_USAGE;
    RtError rerr = {0};
    RtStatus s = rt_memcpy_htod(d->rt, (RtDevPtr)(uintptr_t)dst, src, bytes, &rerr);
    return api_rt_done(s, &rerr, err);
}

tirx_status tirx_copy_to_host(tirx_device *d, void *dst, const void *src, size_t bytes,
                              tirx_error *err)
{
    if (!d)
        return TIRX_ERR_USAGE;
    RtError rerr = {0};
    RtStatus s = rt_memcpy_dtoh(d->rt, dst, (RtDevPtr)(uintptr_t)src, bytes, &rerr);
    return api_rt_done(s, &rerr, err);
}

tirx_status tirx_device_synchronize(tirx_device *d, void *stream, tirx_error *err)
{
    if (!d)
        return TIRX_ERR_USAGE;
    RtError rerr = {0};
    return api_rt_done(rt_synchronize(d->rt, stream, &rerr), &rerr, err);
}
