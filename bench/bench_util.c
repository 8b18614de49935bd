/* Clocks and sample summaries for the benchmarks (bench_util.h). */
#include "bench_util.h"

#include <stdlib.h>

double bench_clock_ms(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

double bench_now_ms(void) { return bench_clock_ms(CLOCK_MONOTONIC); }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

BenchSummary bench_summary(double *ms, int n)
{
    qsort(ms, (size_t)n, sizeof(double), cmp_double);
    return (BenchSummary){.median = ms[n / 2], .min = ms[0], .max = ms[n - 1]};
}
