/* The benchmarking calls of tirx.h: the timing loop and statistics of the
 * bench layer, the device's description, and cuBLASLt's GEMM as the
 * reference that benchmarks compare against, with the runtime's errors
 * turned into tirx_status and tirx_error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/bench.h"
#include "internal.h"

void tirx_device_get_info(const tirx_device *d, tirx_device_info *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!d)
        return; /* as tirx_device_arch answers NULL: nothing to report */
    const RtDeviceInfo *i = rt_device_info(api_device_rt(d));
    snprintf(out->name, sizeof out->name, "%s", i->name);
    snprintf(out->arch, sizeof out->arch, "%s", i->arch);
    out->sm_count = i->sm_count;
    out->l2_bytes = i->l2_bytes;
    out->driver_version = i->driver_version;
}

/* ---- timing ---- */

/* The caller's function behind the bench layer's callback: its status is
 * kept, so that tirx_bench_time returns it rather than a runtime status. */
typedef struct Trampoline {
    tirx_bench_fn fn;
    void *user;
    tirx_status status;
} Trampoline;

static RtStatus call_user(void *user, void *stream, RtError *err)
{
    Trampoline *t = user;
    tirx_error e = {{0}};
    t->status = t->fn(t->user, stream, &e);
    if (t->status == TIRX_OK)
        return RT_OK;
    err->status = RT_ERR_CUDA;
    snprintf(err->message, sizeof err->message, "%s", e.message);
    return RT_ERR_CUDA;
}

static void copy_stats(const BnStats *s, tirx_bench_stats *out)
{
    *out = (tirx_bench_stats){.reps = s->reps, .min_ms = s->min_ms, .median_ms = s->median_ms,
                              .p90_ms = s->p90_ms, .mean_ms = s->mean_ms, .max_ms = s->max_ms,
                              .flush_bytes = s->flush_bytes, .held = s->held};
}

tirx_status tirx_bench_time(tirx_device *d, tirx_bench_fn fn, void *user,
                            const tirx_bench_options *o, tirx_bench_stats *out, tirx_error *err)
{
    if (!d || !fn || !out)
        return TIRX_ERR_USAGE;
    tirx_bench_options none = {0};
    if (!o)
        o = &none;
    BnOptions bo = {.budget_ms = o->budget_ms, .warmup_ms = o->warmup_ms, .min_reps = o->min_reps,
                    .max_reps = o->max_reps, .no_flush = o->no_flush, .no_hold = o->no_hold,
                    .stream = o->stream};
    Trampoline t = {fn, user, TIRX_OK};
    BnStats s = {0};
    RtError rerr = {0};
    RtStatus st = bn_time(api_device_rt(d), call_user, &t, &bo, &s, &rerr);
    if (st == RT_OK)
        copy_stats(&s, out);
    if (t.status != TIRX_OK) {
        api_rt_done(st, &rerr, err);
        return t.status;
    }
    return api_rt_done(st, &rerr, err);
}

tirx_status tirx_bench_summarize(double *ms, size_t n, tirx_bench_stats *out)
{
    if (!ms || !n || !out)
        return TIRX_ERR_USAGE;
    BnStats s = {0};
    bn_summarize(ms, n, &s);
    copy_stats(&s, out);
    return TIRX_OK;
}

/* ---- cuBLAS ---- */

struct tirx_cublas_gemm {
    RtBlasGemm *rt;
};

tirx_status tirx_cublas_gemm_create(tirx_device *d, const tirx_gemm_problem *p,
                                    tirx_cublas_gemm **out, tirx_error *err)
{
    if (!out)
        return TIRX_ERR_USAGE;
    *out = NULL;
    if (!d || !p)
        return TIRX_ERR_USAGE;
    tirx_cublas_gemm *g = calloc(1, sizeof *g);
    if (!g)
        return TIRX_ERR_INTERNAL;
    RtGemmSpec spec = {.m = p->m, .n = p->n, .k = p->k, .dtype = p->dtype, .b_kn = p->b_kn != 0,
                       .scale_a = p->scale_a, .scale_b = p->scale_b};
    RtError rerr = {0};
    RtStatus s = rt_blas_gemm_create(api_device_rt(d), &spec, &g->rt, &rerr);
    if (s != RT_OK)
        free(g);
    else
        *out = g;
    return api_rt_done(s, &rerr, err);
}

tirx_status tirx_cublas_gemm_run(tirx_cublas_gemm *g, const void *a, const void *b, void *c,
                                 void *stream, tirx_error *err)
{
    if (!g)
        return TIRX_ERR_USAGE;
    RtError rerr = {0};
    RtStatus s = rt_blas_gemm_run(g->rt, (RtDevPtr)(uintptr_t)a, (RtDevPtr)(uintptr_t)b,
                                  (RtDevPtr)(uintptr_t)c, stream, &rerr);
    return api_rt_done(s, &rerr, err);
}

const char *tirx_cublas_gemm_describe(const tirx_cublas_gemm *g)
{
    return g ? rt_blas_gemm_algo(g->rt) : NULL;
}

void tirx_cublas_gemm_free(tirx_cublas_gemm *g)
{
    if (!g)
        return;
    rt_blas_gemm_destroy(g->rt);
    free(g);
}
