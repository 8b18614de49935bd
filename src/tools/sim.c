/* `tirx sim FILE --func NAME --args SPEC [-D NAME=VALUE]... [--seed N]
 * [--trace FILE] [--trace-svg FILE]`: compiles FILE without a binary (with
 * the trace option under --trace / --trace-svg), makes the arguments of
 * --args in host memory (the SPEC of `tirx bench`: random, zeros, ones or
 * empty tensors and scalars), runs function NAME in the simulator and
 * prints, for each tensor argument after the run, its shape, dtype and a
 * checksum (the sum and the L2 norm of its values); the traced run's
 * T.cuda.iket events, in the simulator's modelled time, go to the trace
 * files as `tirx bench` writes them. A kernel error (out of bounds, uninitialised
 * shared memory, a missing barrier, a deadlock, something not modelled)
 * ends with exit status 1 and its message, naming the line, on stderr. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../runtime/dlpack.h"
#include "bench.h"

typedef struct SimCli {
    const char *file, *func, *arch;
    const char *trace, *trace_svg; /* --trace FILE (JSON), --trace-svg FILE */
    tirx_define defines[BENCH_MAX_DEFINES];
    size_t ndefines;
    BenchArg args[BENCH_MAX_ARGS];
    int nargs;
    uint64_t seed;
} SimCli;

const char tool_sim_usage[] =
    "usage: tirx sim FILE --func NAME [--args SPEC]... [-D NAME=VALUE]... [--seed N]\n"
    "                [--target ARCH] [--trace FILE] [--trace-svg FILE]\n"
    "Runs function NAME of FILE in the CPU simulator on the arguments of SPEC (as\n"
    "for 'tirx bench') and prints each tensor's shape, dtype, sum and L2 norm after\n"
    "the run. A kernel error is reported at its line with exit status 1.\n"
    "  --trace FILE      compile with trace and write the run's T.cuda.iket events\n"
    "                    as a Chrome/Perfetto trace (JSON); time is the simulator's\n"
    "                    model: each statement a thread executes is 1 ns\n"
    "  --trace-svg FILE  the same events as an SVG timeline (FILE ends in .svg)\n";

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "tirx sim: %s%s\n%s", msg, arg ? arg : "", tool_sim_usage);
    return 2;
}

static int parse(int argc, char **argv, SimCli *c)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help")) {
            fputs(tool_sim_usage, stdout);
            return 0;
        }
        bool takes = !strcmp(a, "--func") || !strcmp(a, "--args") || !strcmp(a, "-D") ||
                     !strcmp(a, "--seed") || !strcmp(a, "--target") || !strcmp(a, "--trace") ||
                     !strcmp(a, "--trace-svg");
        if (takes && !v)
            return usage_error("missing value after ", a);
        if (!strcmp(a, "--func")) {
            c->func = v;
        } else if (!strcmp(a, "--target")) {
            c->arch = v;
        } else if (!strcmp(a, "--trace")) {
            if (bench_is_svg_name(v))
                return usage_error("--trace writes JSON; for an SVG timeline use --trace-svg: ", v);
            c->trace = v;
        } else if (!strcmp(a, "--trace-svg")) {
            if (!bench_is_svg_name(v))
                return usage_error("--trace-svg writes SVG: its file name must end in .svg: ", v);
            c->trace_svg = v;
        } else if (!strcmp(a, "--seed")) {
            c->seed = strtoull(v, NULL, 0) | 1;
        } else if (!strcmp(a, "--args")) {
            char msg[256];
            if (!bench_parse_spec(v, c->args, &c->nargs, msg, sizeof msg))
                return usage_error(msg, NULL);
        } else if (!strcmp(a, "-D")) {
            const char *eq = strchr(v, '=');
            if (!eq || c->ndefines == BENCH_MAX_DEFINES)
                return usage_error("-D needs NAME=VALUE: ", v);
            c->defines[c->ndefines].name = strndup(v, (size_t)(eq - v));
            c->defines[c->ndefines++].value = eq + 1;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option ", a);
        } else {
            c->file = a;
        }
        i += takes;
    }
    if (!c->file || !c->func)
        return usage_error(c->file ? "--func is required" : "FILE is required", NULL);
    return -1;
}

typedef struct HostTensor {
    DLTensor dl;
    int64_t shape[BENCH_MAX_DIMS];
} HostTensor;

static void checksum(const BenchArg *a, const HostTensor *t)
{
    size_t n = bench_arg_elems(a);
    double sum = 0, sq = 0;
    const uint8_t *p = t->dl.data;
    size_t bytes = a->dtype->bits / 8;
    for (size_t i = 0; i < n; i++) {
        uint64_t bits = 0;
        memcpy(&bits, p + i * bytes, bytes);
        double v = bench_decode(a->dtype, bits);
        sum += v, sq += v * v;
    }
    printf("%s:", a->name);
    for (int d = 0; d < a->ndim; d++)
        printf("%s%lld", d ? "x" : " ", (long long)a->shape[d]);
    printf(" %s sum=%.9g l2=%.9g\n", a->dtype->name, sum, sqrt(sq));
}

static int simulate(SimCli *c, tirx_module *m)
{
    HostTensor *ts = calloc((size_t)c->nargs + 1, sizeof *ts);
    tirx_arg args[BENCH_MAX_ARGS];
    if (!ts) {
        fprintf(stderr, "tirx sim: out of memory\n");
        return 1;
    }
    for (int i = 0; i < c->nargs; i++) {
        BenchArg *a = &c->args[i];
        if (!a->is_tensor) {
            args[i] = a->is_float ? tirx_arg_float(a->f) : tirx_arg_int(a->i);
            continue;
        }
        size_t bytes = bench_arg_elems(a) * a->dtype->bits / 8;
        void *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
        if (!p) {
            fprintf(stderr, "tirx sim: argument %s: cannot allocate %zu bytes\n", a->name, bytes);
            for (int k = 0; k < i; k++)
                free(ts[k].dl.data);
            free(ts);
            return 1;
        }
        bench_fill(a->dtype, a->init, p, bench_arg_elems(a), &c->seed);
        memcpy(ts[i].shape, a->shape, sizeof ts[i].shape);
        ts[i].dl = (DLTensor){.data = p, .device = {kDLCPU, 0}, .ndim = a->ndim,
                              .dtype = {a->dtype->dl_code, a->dtype->bits, 1},
                              .shape = ts[i].shape};
        args[i] = tirx_arg_tensor((const struct DLTensor *)&ts[i].dl);
    }
    tirx_error err = {{0}};
    clock_t t0 = clock();
    char *json = NULL, *svg = NULL;
    tirx_status st = c->trace || c->trace_svg
                     ? tirx_simulate_trace_to(m, c->func, args, (size_t)c->nargs, NULL,
                                              c->trace ? &json : NULL,
                                              c->trace_svg ? &svg : NULL, &err)
                     : tirx_simulate(m, c->func, args, (size_t)c->nargs, &err);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    if (st != TIRX_OK)
        fprintf(stderr, "%s\n", err.message);
    if (st == TIRX_OK && json)
        st = bench_write_trace("sim", c->trace, json);
    if (st == TIRX_OK && svg)
        st = bench_write_trace("sim", c->trace_svg, svg);
    tirx_free(json);
    tirx_free(svg);
    for (int i = 0; st == TIRX_OK && i < c->nargs; i++)
        if (c->args[i].is_tensor)
            checksum(&c->args[i], &ts[i]);
    if (st == TIRX_OK)
        fprintf(stderr, "tirx sim: %s ran in %.2f s\n", c->func, secs);
    for (int i = 0; i < c->nargs; i++)
        free(ts[i].dl.data);
    free(ts);
    return st == TIRX_OK ? 0 : 1;
}

int tool_sim_main(int argc, char **argv)
{
    SimCli c = {.arch = "sm_90a", .seed = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull | 1};
    int rc = parse(argc, argv, &c);
    if (rc < 0) {
        size_t len;
        char *text = tool_read_input(c.file, TIRX_MAX_INPUT_SIZE_DEFAULT, &len);
        tirx_options o = {.arch = c.arch, .no_binary = 1, .trace = c.trace || c.trace_svg};
        tirx_module *m = NULL;
        rc = 1;
        if (text && tirx_compile(text, len, c.file, c.defines, c.ndefines, &o, &m) == TIRX_OK) {
            rc = simulate(&c, m);
        } else if (m) {
            char *d = tirx_diag_render(m);
            fputs(d ? d : "", stderr);
            tirx_free(d);
        }
        tirx_module_free(m);
        free(text);
    }
    for (size_t i = 0; i < c.ndefines; i++)
        free((char *)c.defines[i].name);
    return rc;
}
