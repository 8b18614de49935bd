/* bench_compile: how long each phase of compiling a kernel takes.
 *
 *   bench_compile [--runs N] [--nvrtc-runs N] [--arch ARCH] FILE
 *
 * For FILE (examples/tiled_gemm.tirx) at ARCH (default sm_90a), times with
 * clock_gettime(CLOCK_MONOTONIC), after 2 warm-up rounds:
 *   parse, verify, the pass pipeline, CUDA codegen, and their sum
 *   (parse -> CUDA), --runs rounds (default 51);
 *   tirx_compile with no_binary (the same path through the API), --runs rounds;
 *   NVRTC on the generated CUDA (rt_compile, the runtime's call), --nvrtc-runs
 *   rounds (default 5);
 *   a cubin-cache hit: tirx_compile into a fresh cache directory once, then
 *   --runs more calls in the same (warm) process, each of which must report
 *   tirx_module_cached.
 * Prints the median, minimum and maximum of each in milliseconds. The
 * phases go through tirx.h except codegen and NVRTC, which tirx.h only
 * offers inside tirx_compile: those call the library's own entry points
 * (cg_emit_module, rt_compile) with the options tirx_compile passes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/internal.h"
#include "bench_util.h"
#include "base/base.h"
#include "target/cuda/codegen.h"
#include "tirx.h"

enum { WARMUP = 2, PHASES = 5 };

typedef struct Options {
    int runs, nvrtc_runs;
    const char *arch, *path;
} Options;

typedef struct Source {
    char *text;
    size_t len;
    const char *name;
} Source;

/* Samples of one measured row. */
typedef struct Series {
    const char *name;
    double *ms;
    int n;
} Series;

static void print_series(Series *s)
{
    BenchSummary t = bench_summary(s->ms, s->n);
    printf("%-26s %6d %10.3f %10.3f %10.3f\n", s->name, s->n, t.median, t.min, t.max);
}

static int fail(const char *what, tirx_module *m)
{
    char *d = m ? tirx_diag_render(m) : NULL;
    fprintf(stderr, "bench_compile: %s failed\n%.4000s", what, d ? d : "");
    tirx_free(d);
    tirx_module_free(m);
    return -1;
}

/* One round of the front half, phase by phase; ms[PHASES - 1] is their sum.
 * *cuda receives the generated source (free it). */
static int front_round(const Options *o, const Source *src, double ms[PHASES], char **cuda)
{
    tirx_module *m = NULL;
    tirx_options opts = {.arch = o->arch};
    double t0 = bench_now_ms();
    if (tirx_parse(src->text, src->len, src->name, NULL, 0, &m) != TIRX_OK)
        return fail("parse", m);
    double t1 = bench_now_ms();
    if (tirx_verify(m) != TIRX_OK)
        return fail("verify", m);
    double t2 = bench_now_ms();
    if (tirx_lower(m, NULL, &opts) != TIRX_OK)
        return fail("the pass pipeline", m);
    double t3 = bench_now_ms();
    CgOptions cg = {.sm = ir_target_sm(o->arch)};
    TxBuf out = {0};
    bool ok = cg_emit_module(api_module_ir(m), &cg, &out);
    double t4 = bench_now_ms();
    *cuda = tx_buf_take(&out);
    if (!ok)
        return fail("CUDA codegen", m);
    tirx_module_free(m);
    ms[0] = t1 - t0, ms[1] = t2 - t1, ms[2] = t3 - t2, ms[3] = t4 - t3, ms[4] = t4 - t0;
    return 0;
}

static int time_front(const Options *o, const Source *src, Series s[PHASES], char **cuda)
{
    double ms[PHASES];
    for (int r = 0; r < WARMUP + o->runs; r++) {
        free(*cuda);
        *cuda = NULL;
        if (front_round(o, src, ms, cuda))
            return -1;
        for (int k = 0; k < PHASES && r >= WARMUP; k++)
            s[k].ms[s[k].n++] = ms[k];
    }
    return 0;
}

/* tirx_compile with `opts`, --runs (or `runs`) times after the warm-up;
 * `want_cached`: every timed call must be a cache hit. */
static int time_compile(const Source *src, const tirx_options *opts, int runs, int want_cached,
                        Series *s)
{
    for (int r = 0; r < WARMUP + runs; r++) {
        tirx_module *m = NULL;
        double t0 = bench_now_ms();
        tirx_status st = tirx_compile(src->text, src->len, src->name, NULL, 0, opts, &m);
        double t1 = bench_now_ms();
        if (st != TIRX_OK)
            return fail("tirx_compile", m);
        if (want_cached && r > 0 && !tirx_module_cached(m))
            return fail("a cache hit (the module was compiled again)", m);
        tirx_module_free(m);
        if (r >= WARMUP)
            s->ms[s->n++] = t1 - t0;
    }
    return 0;
}

/* NVRTC on the generated CUDA, with tirx_compile's options (no lineinfo). */
static int time_nvrtc(const Options *o, const Source *src, const char *cuda, Series *s)
{
    RtHeader prelude = {cg_prelude_name(), cg_prelude_text()};
    RtCompileOptions rt = {.arch = o->arch, .compiler = RT_NVRTC, .headers = &prelude,
                           .nheaders = 1, .name = src->name};
    for (int r = 0; r < 1 + o->nvrtc_runs; r++) {
        RtBinary b;
        RtError err;
        double t0 = bench_now_ms();
        RtStatus st = rt_compile(cuda, &rt, &b, &err);
        double t1 = bench_now_ms();
        rt_binary_free(&b);
        if (st != RT_OK) {
            fprintf(stderr, "bench_compile: NVRTC: %s\n", err.message);
            return -1;
        }
        if (r >= 1)
            s->ms[s->n++] = t1 - t0;
    }
    return 0;
}

static int time_cache_hit(const Options *o, const Source *src, Series *s)
{
    char dir[] = "/tmp/tirx-bench-cache-XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "bench_compile: mkdtemp: %s\n", strerror(errno));
        return -1;
    }
    tirx_options opts = {.arch = o->arch, .cache_dir = dir};
    int rc = time_compile(src, &opts, o->runs, 1, s);
    char cmd[sizeof dir + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_compile: could not remove %s\n", dir);
    return rc;
}

static int run(const Options *o, const Source *src, Series *s)
{
    char *cuda = NULL;
    tirx_options no_binary = {.arch = o->arch, .no_binary = 1};
    int rc = time_front(o, src, s, &cuda);
    if (!rc)
        rc = time_compile(src, &no_binary, o->runs, 0, &s[5]);
    if (!rc)
        rc = time_nvrtc(o, src, cuda, &s[6]);
    if (!rc)
        rc = time_cache_hit(o, src, &s[7]);
    if (!rc) {
        printf("tirx %s compile benchmark: %s (%zu bytes) for %s; generated CUDA %zu bytes\n",
               tirx_version(), src->name, src->len, o->arch, strlen(cuda));
        printf("%d warm-up rounds; milliseconds\n\n", WARMUP);
        printf("%-26s %6s %10s %10s %10s\n", "phase", "runs", "median", "min", "max");
        for (int k = 0; k < 8; k++)
            print_series(&s[k]);
    }
    free(cuda);
    return rc;
}

static int parse_args(int argc, char **argv, Options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--runs") && v)
            o->runs = atoi(argv[++i]);
        else if (!strcmp(a, "--nvrtc-runs") && v)
            o->nvrtc_runs = atoi(argv[++i]);
        else if (!strcmp(a, "--arch") && v)
            o->arch = argv[++i];
        else if (a[0] != '-' && !o->path)
            o->path = a;
        else
            o->path = NULL, i = argc;
    }
    if (!o->path || o->runs < 1 || o->nvrtc_runs < 1) {
        fprintf(stderr, "usage: bench_compile [--runs N] [--nvrtc-runs N] [--arch ARCH] FILE\n");
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    Options o = {.runs = 51, .nvrtc_runs = 5, .arch = "sm_90a"};
    if (parse_args(argc, argv, &o))
        return 2;
    Source src = {.name = o.path};
    if (!(src.text = tx_read_file(o.path, &src.len))) {
        fprintf(stderr, "bench_compile: cannot open '%s': %s\n", o.path, strerror(errno));
        return 1;
    }
    static const char *const names[] = {"parse", "verify", "pass pipeline", "CUDA codegen",
                                        "parse -> CUDA (sum)", "tirx_compile, no_binary",
                                        "NVRTC (cubin)", "cache hit (tirx_compile)"};
    Series s[8];
    int rc = 0, cap = o.runs > o.nvrtc_runs ? o.runs : o.nvrtc_runs;
    for (int k = 0; k < 8; k++) {
        s[k] = (Series){.name = names[k], .ms = malloc((size_t)cap * sizeof(double))};
        rc |= s[k].ms == NULL;
    }
    if (!rc)
        rc = run(&o, &src, s);
    for (int k = 0; k < 8; k++)
        free(s[k].ms);
    free(src.text);
    return rc ? 1 : 0;
}
