/* GPU test of the benchmark's reference and timing loop: cuBLASLt's GEMM
 * (tirx_cublas_gemm_*) against a float64 product of the rounded inputs for
 * every dtype and layout, with the output poisoned first (bf16, fp16, fp8
 * with per-tensor scales, tf32; nt and nn, fp8 nn where cuBLASLt has it),
 * then tirx_bench_time on a cuBLAS GEMM: the statistics are ordered, the
 * repetitions within bounds, the L2 flush at least twice the L2 and the
 * chunks held. Skipped without a GPU, or without cuBLASLt. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_test.h"
#include "tirx.h"
#include "tools/bench.h"

static tirx_device *gpu;

static void ok(tirx_status st, const tirx_error *err, const char *what)
{
    if (st != TIRX_OK)
        gpu_fail_at(__FILE__, __LINE__, what, err->message);
}

typedef struct Case {
    const char *dtype;
    bool nn;
    long long m, n, k;
    float scale_a, scale_b;
} Case;

static void *upload(const BenchDType *t, size_t n, uint64_t *seed, void **host)
{
    tirx_error err;
    *host = malloc(n * t->bits / 8);
    GPU_CHECK(*host != NULL, "host memory");
    bench_fill(t, BENCH_RAND, *host, n, seed);
    void *d;
    ok(tirx_device_alloc(gpu, n * t->bits / 8, &d, &err), &err, "alloc");
    ok(tirx_copy_to_device(gpu, d, *host, n * t->bits / 8, &err), &err, "upload");
    return d;
}

static double element(const BenchDType *t, const void *p, size_t i)
{
    uint64_t v = 0;
    memcpy(&v, (const char *)p + i * (t->bits / 8), t->bits / 8);
    return bench_decode(t, v);
}

static void check(const Case *c, uint64_t *seed)
{
    const BenchGemmType *g = bench_gemm_type(c->dtype);
    const BenchDType *in = bench_dtype(g->input), *out = bench_dtype(g->output);
    size_t m = (size_t)c->m, n = (size_t)c->n, k = (size_t)c->k;
    tirx_error err;
    tirx_gemm_problem p = {c->m, c->n, c->k, c->dtype, c->nn, c->scale_a, c->scale_b};
    tirx_cublas_gemm *blas;
    tirx_status st = tirx_cublas_gemm_create(gpu, &p, &blas, &err);
    printf("%s %s %lldx%lldx%lld: %s\n", c->dtype, c->nn ? "nn" : "nt", c->m, c->n, c->k,
           st == TIRX_OK ? tirx_cublas_gemm_describe(blas) : err.message);
    if (st == TIRX_ERR_USAGE && !strcmp(c->dtype, "fp8") && c->nn)
        return; /* cuBLASLt's fp8 GEMMs are nt only on some GPUs */
    ok(st, &err, "tirx_cublas_gemm_create");
    void *ha, *hb;
    void *da = upload(in, m * k, seed, &ha), *db = upload(in, n * k, seed, &hb), *dc;
    size_t cbytes = m * n * out->bits / 8;
    unsigned char *hc = malloc(cbytes);
    GPU_CHECK(hc != NULL, "host memory");
    memset(hc, 0xff, cbytes);
    ok(tirx_device_alloc(gpu, cbytes, &dc, &err), &err, "alloc");
    ok(tirx_copy_to_device(gpu, dc, hc, cbytes, &err), &err, "poison");
    ok(tirx_cublas_gemm_run(blas, da, db, dc, NULL, &err), &err, "tirx_cublas_gemm_run");
    ok(tirx_device_synchronize(gpu, NULL, &err), &err, "synchronize");
    ok(tirx_copy_to_host(gpu, hc, dc, cbytes, &err), &err, "download");
    double scale = (c->scale_a ? c->scale_a : 1) * (c->scale_b ? c->scale_b : 1), num = 0, den = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double ref = 0;
            for (size_t l = 0; l < k; l++)
                ref += element(in, ha, i * k + l) *
                       element(in, hb, c->nn ? l * n + j : j * k + l);
            ref *= scale;
            double got = element(out, hc, i * n + j);
            GPU_CHECK(isfinite(got), "every element of C is written");
            num += (got - ref) * (got - ref), den += ref * ref;
        }
    double rel = sqrt(num / den);
    printf("  relative L2 error %.3g (tolerance %g)\n", rel, g->tolerance);
    GPU_CHECK(rel <= g->tolerance, "cuBLASLt's GEMM matches the float64 reference");
    tirx_device_free(gpu, da), tirx_device_free(gpu, db), tirx_device_free(gpu, dc);
    free(ha), free(hb), free(hc);
    tirx_cublas_gemm_free(blas);
}

typedef struct Run {
    tirx_cublas_gemm *blas;
    void *a, *b, *c;
    int calls;
} Run;

static tirx_status run(void *user, void *stream, tirx_error *err)
{
    Run *r = user;
    r->calls++;
    return tirx_cublas_gemm_run(r->blas, r->a, r->b, r->c, stream, err);
}

static void timing(void)
{
    tirx_error err;
    tirx_gemm_problem p = {1024, 1024, 1024, "bf16", 0, 0, 0};
    Run r = {0};
    ok(tirx_cublas_gemm_create(gpu, &p, &r.blas, &err), &err, "create");
    ok(tirx_device_alloc(gpu, 2 << 20, &r.a, &err), &err, "alloc");
    ok(tirx_device_alloc(gpu, 2 << 20, &r.b, &err), &err, "alloc");
    ok(tirx_device_alloc(gpu, 2 << 20, &r.c, &err), &err, "alloc");
    tirx_bench_options o = {.budget_ms = 50, .min_reps = 20, .max_reps = 400};
    tirx_bench_stats s;
    ok(tirx_bench_time(gpu, run, &r, &o, &s, &err), &err, "tirx_bench_time");
    tirx_device_info info;
    tirx_device_get_info(gpu, &info);
    printf("timing: %d runs (%d calls), median %.4f ms, min %.4f, p90 %.4f, max %.4f, flush %zu "
           "B (L2 %lld B), held %d\n", s.reps, r.calls, s.median_ms, s.min_ms, s.p90_ms, s.max_ms,
           s.flush_bytes, info.l2_bytes, s.held);
    GPU_CHECK(s.reps >= 20 && s.reps <= 400, "the repetitions stay within the bounds");
    GPU_CHECK(r.calls > s.reps, "a first run and a warm-up precede the timed runs");
    GPU_CHECK(s.min_ms > 0 && s.min_ms <= s.median_ms && s.median_ms <= s.p90_ms &&
                  s.p90_ms <= s.max_ms, "the statistics are ordered");
    GPU_CHECK(s.flush_bytes >= 2 * (size_t)info.l2_bytes, "the flush writes twice the L2");
    GPU_CHECK(s.held, "the stream was held while each chunk was enqueued");
    tirx_device_free(gpu, r.a), tirx_device_free(gpu, r.b), tirx_device_free(gpu, r.c);
    tirx_cublas_gemm_free(r.blas);
}

int main(void)
{
    tirx_error err;
    if (tirx_device_open(0, &gpu, &err) != TIRX_OK)
        gpu_skip(err.message);
    tirx_gemm_problem probe = {64, 64, 64, "bf16", 0, 0, 0};
    tirx_cublas_gemm *g;
    tirx_status st = tirx_cublas_gemm_create(gpu, &probe, &g, &err);
    if (st != TIRX_OK && strstr(err.message, "no cuBLASLt"))
        gpu_skip(err.message);
    ok(st, &err, "tirx_cublas_gemm_create");
    tirx_cublas_gemm_free(g);
    uint64_t seed = (uint64_t)time(NULL) | 1;
    printf("seed: %llu\n", (unsigned long long)seed);
    const Case cases[] = {
        {"bf16", false, 192, 160, 128, 0, 0}, {"bf16", true, 100, 72, 40, 0, 0},
        {"fp16", false, 128, 96, 64, 0, 0},   {"fp16", true, 128, 96, 64, 0, 0},
        {"fp8", false, 128, 96, 64, 2.0f, 0.5f}, {"fp8", false, 64, 32, 128, 1.5f, 0},
        {"fp8", true, 128, 96, 64, 0, 0},     {"tf32", false, 96, 64, 48, 0, 0},
        {"tf32", true, 96, 64, 48, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        check(&cases[i], &seed);
    timing();
    tirx_device_close(gpu);
    printf("PASSED\n");
    return 0;
}
