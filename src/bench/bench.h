/* Bench layer: timing GPU work the way a kernel author trusts, in the
 * tradition of Triton's do_bench and nvbench. Each repetition is bracketed
 * by its own pair of CUDA events on one stream and preceded by an L2 flush (a
 * write of twice the device's L2); repetitions are enqueued in chunks behind
 * a small kernel that holds the stream until the whole chunk is enqueued, so
 * that no event pair measures the host's launch overhead. A first run and a
 * warm-up precede the timed repetitions, whose count follows from a time
 * budget and an estimate of one run. Clocks are left alone. The samples are
 * summarised by their minimum, median, 90th percentile (linear interpolation
 * between closest ranks, as numpy's default), mean and maximum.
 *
 * Uses the runtime only; nothing here prints. Prefix: bn_. */
#ifndef TX_BENCH_H
#define TX_BENCH_H

#include <stdbool.h>
#include <stddef.h>

#include "../runtime/runtime.h"

typedef struct BnOptions {
    double budget_ms;  /* GPU time of the timed runs (estimated); <= 0: 1000 */
    double warmup_ms;  /* GPU time of the untimed warm-up runs; < 0: none, 0: 100 */
    int min_reps;      /* <= 0: 10 */
    int max_reps;      /* <= 0: 10000 */
    bool no_flush;     /* leave L2 warm between runs */
    bool no_hold;      /* no hold kernel: each event pair may include launch overhead */
    void *stream;      /* NULL: a stream of its own */
} BnOptions;

typedef struct BnStats {
    int reps;
    double min_ms, median_ms, p90_ms, mean_ms, max_ms;
    size_t flush_bytes; /* the L2 flush before each run; 0 without */
    bool held;          /* the chunks were held (false after a fallback or with no_hold) */
} BnStats;

/* One run: enqueue the work to time on `stream`. */
typedef RtStatus (*BnFn)(void *user, void *stream, RtError *err);

/* Times fn on device d. */
RtStatus bn_time(RtDevice *d, BnFn fn, void *user, const BnOptions *o, BnStats *out, RtError *err);

/* The CUDA source of the hold kernel, tirx_bench_hold(flag, timeout_ns): it
 * spins until the host sets flag[0], or sets flag[1] and returns once
 * timeout_ns have passed on the GPU's global timer. */
extern const char bn_hold_source[];

/* The q-quantile (0 <= q <= 1) of n >= 1 sorted samples, interpolated
 * linearly between the closest ranks. */
double bn_quantile(const double *sorted, size_t n, double q);
/* Sorts the n >= 1 samples in place and fills the statistics of *out (reps
 * and the figures in milliseconds; the other fields are left alone). */
void bn_summarize(double *ms, size_t n, BnStats *out);

#endif
