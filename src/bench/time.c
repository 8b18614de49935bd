/* The timing loop (bench.h): the L2 flush buffer, the hold kernel, the
 * chunks of event-bracketed runs, the estimate that turns the time budget into
 * a number of repetitions, and the fallback to unheld chunks when holding is
 * impossible (no NVRTC, or work that synchronizes while it is enqueued). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "bench.h"

#define CHUNK 32                       /* runs enqueued behind one hold */
#define ESTIMATE_REPS 5
#define HOLD_TIMEOUT_NS 1000000000ull  /* a held chunk is released after 1 s regardless */
#define DEFAULT_FLUSH_BYTES ((size_t)256 << 20) /* when the device reports no L2 size */

const char bn_hold_source[] =
    "extern \"C\" __global__ void tirx_bench_hold(volatile int *flag, unsigned long long timeout)\n"
    "{\n"
    "    unsigned long long t0, t;\n"
    "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t0));\n"
    "    while (flag[0] == 0) {\n"
    "        __nanosleep(1000);\n"
    "        asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));\n"
    "        if (t - t0 > timeout) {\n"
    "            flag[1] = 1;\n"
    "            return;\n"
    "        }\n"
    "    }\n"
    "}\n";

typedef struct Timer {
    RtDevice *dev;
    BnFn fn;
    void *user;
    void *stream;
    bool own_stream;
    RtDevPtr flush;
    size_t flush_bytes;
    RtModule *hold_module;
    RtFunction *hold;
    volatile int *flag; /* mapped host memory: [0] release, [1] timed out */
    RtDevPtr flag_dev;
    RtEvent *start[CHUNK], *end[CHUNK];
    unsigned runs; /* flush fill values differ from run to run */
} Timer;

/* Compiles and loads the hold kernel; false (and no hold) when that fails. */
static bool hold_open(Timer *t)
{
    RtCompileOptions o = {.arch = rt_device_info(t->dev)->arch, .name = "tirx_bench_hold.cu"};
    RtBinary b;
    void *host = NULL;
    bool ok = rt_compile(bn_hold_source, &o, &b, NULL) == RT_OK;
    if (ok) {
        ok = rt_module_load(t->dev, b.cubin, &t->hold_module, NULL) == RT_OK &&
             rt_module_function(t->hold_module, "tirx_bench_hold", &t->hold, NULL) == RT_OK &&
             rt_host_alloc_mapped(t->dev, 2 * sizeof(int), &host, &t->flag_dev, NULL) == RT_OK;
        rt_binary_free(&b);
    }
    t->flag = host;
    if (!ok)
        t->hold = NULL;
    return ok;
}

static RtStatus timer_open(Timer *t, RtDevice *d, const BnOptions *o, RtError *err)
{
    t->dev = d;
    t->stream = o->stream;
    RtStatus s = RT_OK;
    if (!t->stream) {
        s = rt_stream_create(d, &t->stream, err);
        t->own_stream = s == RT_OK;
    }
    if (s == RT_OK && !o->no_flush) {
        int l2 = rt_device_info(d)->l2_bytes;
        t->flush_bytes = l2 > 0 ? ((size_t)2 * (size_t)l2 + 3) / 4 * 4 : DEFAULT_FLUSH_BYTES;
        s = rt_mem_alloc(d, t->flush_bytes, &t->flush, err);
    }
    for (int i = 0; s == RT_OK && i < CHUNK; i++) {
        s = rt_event_create(d, &t->start[i], err);
        if (s == RT_OK)
            s = rt_event_create(d, &t->end[i], err);
    }
    if (s == RT_OK && !o->no_hold)
        hold_open(t);
    return s;
}

static void timer_close(Timer *t)
{
    for (int i = 0; i < CHUNK; i++) {
        rt_event_destroy(t->start[i]);
        rt_event_destroy(t->end[i]);
    }
    rt_host_free(t->dev, (void *)t->flag);
    rt_module_unload(t->hold_module);
    rt_mem_free(t->dev, t->flush);
    if (t->own_stream)
        rt_stream_destroy(t->dev, t->stream);
}

static RtStatus hold_stream(Timer *t, RtError *err)
{
    t->flag[0] = t->flag[1] = 0;
    unsigned long long timeout = HOLD_TIMEOUT_NS;
    void *args[] = {&t->flag_dev, &timeout};
    RtLaunchConfig cfg = {.grid = {1, 1, 1}, .block = {1, 1, 1}, .stream = t->stream};
    return rt_launch(t->hold, &cfg, args, err);
}

static void release_stream(Timer *t)
{
    if (t->hold)
        __atomic_store_n(&t->flag[0], 1, __ATOMIC_SEQ_CST);
}

/* Enqueues `count` <= CHUNK runs, each flushed and bracketed by events. */
static RtStatus enqueue_runs(Timer *t, int count, RtError *err)
{
    RtStatus s = RT_OK;
    for (int i = 0; s == RT_OK && i < count; i++) {
        if (t->flush)
            s = rt_memset32_async(t->dev, t->flush, ++t->runs, t->flush_bytes / 4, t->stream, err);
        if (s == RT_OK)
            s = rt_event_record(t->start[i], t->stream, err);
        if (s == RT_OK)
            s = t->fn(t->user, t->stream, err);
        if (s == RT_OK)
            s = rt_event_record(t->end[i], t->stream, err);
    }
    return s;
}

/* One chunk; the samples in milliseconds when `ms` is not NULL. A chunk
 * whose hold timed out is run again unheld, and holding stops. */
static RtStatus run_chunk(Timer *t, int count, double *ms, RtError *err)
{
    RtStatus s = t->hold ? hold_stream(t, err) : RT_OK;
    if (s == RT_OK)
        s = enqueue_runs(t, count, err);
    release_stream(t);
    if (s == RT_OK)
        s = rt_synchronize(t->dev, t->stream, err);
    if (s == RT_OK && t->hold && __atomic_load_n(&t->flag[1], __ATOMIC_SEQ_CST)) {
        t->hold = NULL;
        return run_chunk(t, count, ms, err);
    }
    for (int i = 0; s == RT_OK && ms && i < count; i++) {
        float e;
        s = rt_event_elapsed_ms(t->start[i], t->end[i], &e, err);
        ms[i] = e;
    }
    return s;
}

static RtStatus run(Timer *t, int count, double *ms, RtError *err)
{
    RtStatus s = RT_OK;
    for (int done = 0; s == RT_OK && done < count; done += CHUNK) {
        int n = count - done < CHUNK ? count - done : CHUNK;
        s = run_chunk(t, n, ms ? ms + done : NULL, err);
    }
    return s;
}

static int clamp_reps(double want, int lo, int hi)
{
    if (!(want < (double)hi))
        return hi;
    int n = (int)ceil(want);
    return n < lo ? lo : n;
}

/* The first run (it loads and checks), the estimate of one run, the warm-up. */
static RtStatus prepare(Timer *t, const BnOptions *o, int max_reps, double *estimate_ms,
                        RtError *err)
{
    RtStatus s = t->fn(t->user, t->stream, err);
    if (s == RT_OK)
        s = rt_synchronize(t->dev, t->stream, err);
    double ms[ESTIMATE_REPS] = {0}, sum = 0;
    if (s == RT_OK)
        s = run(t, ESTIMATE_REPS, ms, err);
    for (int i = 0; i < ESTIMATE_REPS; i++)
        sum += ms[i];
    *estimate_ms = fmax(sum / ESTIMATE_REPS, 1e-3);
    double warmup = o->warmup_ms == 0 ? 100 : o->warmup_ms;
    if (s == RT_OK && warmup > 0)
        s = run(t, clamp_reps(warmup / *estimate_ms, 1, max_reps), NULL, err);
    return s;
}

static RtStatus out_of_memory(RtError *err)
{
    if (err)
        *err = (RtError){RT_ERR_IO, "out of memory"};
    return RT_ERR_IO;
}

RtStatus bn_time(RtDevice *d, BnFn fn, void *user, const BnOptions *o, BnStats *out, RtError *err)
{
    Timer t = {.fn = fn, .user = user};
    int min_reps = o->min_reps > 0 ? o->min_reps : 10;
    int max_reps = o->max_reps > 0 ? o->max_reps : 10000;
    double budget = o->budget_ms > 0 ? o->budget_ms : 1000, estimate = 0;
    if (min_reps > max_reps)
        min_reps = max_reps;
    double *ms = NULL;
    RtStatus s = timer_open(&t, d, o, err);
    if (s == RT_OK)
        s = prepare(&t, o, max_reps, &estimate, err);
    int reps = clamp_reps(budget / estimate, min_reps, max_reps);
    if (s == RT_OK && !(ms = malloc(sizeof *ms * (size_t)reps)))
        s = out_of_memory(err);
    if (s == RT_OK)
        s = run(&t, reps, ms, err);
    if (s == RT_OK) {
        bn_summarize(ms, (size_t)reps, out);
        out->flush_bytes = t.flush_bytes;
        out->held = t.hold != NULL;
    }
    free(ms);
    timer_close(&t);
    return s;
}
