/* What the benchmarks share: clocks read in milliseconds and the summary
 * (median, minimum, maximum) of a series of timed samples. Prefix: bench_. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <time.h>

typedef struct BenchSummary {
    double median, min, max;
} BenchSummary;

/* `clock` (clock_gettime) in milliseconds. */
double bench_clock_ms(clockid_t clock);
/* CLOCK_MONOTONIC in milliseconds. */
double bench_now_ms(void);
/* The summary of ms[0..n), n >= 1; sorts ms in place. */
BenchSummary bench_summary(double *ms, int n);

#endif
