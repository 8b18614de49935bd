/* The statistics of a benchmark's samples: minimum, median, 90th percentile
 * (linear interpolation between closest ranks), mean and maximum. */
#include <math.h>
#include <stdlib.h>

#include "bench.h"

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bn_quantile(const double *sorted, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    if (lo + 1 >= n)
        return sorted[n - 1];
    return sorted[lo] + (pos - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

void bn_summarize(double *ms, size_t n, BnStats *out)
{
    qsort(ms, n, sizeof *ms, compare);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += ms[i];
    out->reps = (int)n;
    out->min_ms = ms[0];
    out->max_ms = ms[n - 1];
    out->median_ms = bn_quantile(ms, n, 0.5);
    out->p90_ms = bn_quantile(ms, n, 0.9);
    out->mean_ms = sum / (double)n;
}
