/* `tirx bench`: compiles the kernel for the GPU it finds, makes its
 * arguments, checks a GEMM's result against cuBLASLt's before anything is
 * timed, times it (and cuBLASLt, in the same loop) with tirx_bench_time, and
 * writes the reports. Progress goes to stderr, the table to stdout; a kernel
 * whose result is wrong ends the run with exit status 1 and no number. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../runtime/dlpack.h"
#include "bench.h"

int bench_cuda_error(tirx_status st, const char *what, const tirx_error *err)
{
    fprintf(stderr, "tirx bench: %s%s%s\n", what ? what : "", what ? ": " : "", err->message);
    return st;
}

void bench_tensor_free(BenchSession *s, BenchTensor *t)
{
    tirx_device_free(s->dev, t->dl.data);
    free(t->host);
    memset(t, 0, sizeof *t);
}

int bench_tensor_alloc(BenchSession *s, BenchTensor *t, const BenchDType *dt, int ndim,
                        const int64_t *shape)
{
    tirx_error err;
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    t->elems = 1;
    for (int i = 0; i < ndim; i++)
        t->elems *= (size_t)(t->shape[i] = shape[i]);
    t->bytes = t->elems * dt->bits / 8;
    t->host = malloc(t->bytes ? t->bytes : 1);
    if (!t->host) {
        fprintf(stderr, "tirx bench: out of host memory (%zu bytes)\n", t->bytes);
        return TIRX_ERR_INTERNAL;
    }
    void *p = NULL;
    tirx_status st = tirx_device_alloc(s->dev, t->bytes ? t->bytes : 1, &p, &err);
    if (st != TIRX_OK)
        return bench_cuda_error(st, "device memory", &err);
    t->dl = (DLTensor){.data = p, .device = {kDLCUDA, 0}, .ndim = ndim,
                       .dtype = {dt->dl_code, dt->bits, 1}, .shape = t->shape};
    return 0;
}

int bench_tensor_upload(BenchSession *s, BenchTensor *t)
{
    tirx_error err;
    tirx_status st = tirx_copy_to_device(s->dev, t->dl.data, t->host, t->bytes, &err);
    return st == TIRX_OK ? 0 : bench_cuda_error(st, "upload", &err);
}

int bench_tensor_init(BenchSession *s, BenchTensor *t, BenchInit init)
{
    if (init == BENCH_EMPTY)
        return 0;
    bench_fill(t->dtype, init, t->host, t->elems, &s->seed);
    return bench_tensor_upload(s, t);
}

int bench_tensor_download(BenchSession *s, BenchTensor *t)
{
    tirx_error err;
    tirx_status st = tirx_device_synchronize(s->dev, NULL, &err);
    if (st == TIRX_OK)
        st = tirx_copy_to_host(s->dev, t->host, t->dl.data, t->bytes, &err);
    return st == TIRX_OK ? 0 : bench_cuda_error(st, "download", &err);
}

/* ---- compiling ---- */

int bench_compile(BenchSession *s, const tirx_define *defs, size_t ndefs, tirx_module **m)
{
    tirx_options o = {.arch = tirx_device_arch(s->dev),
                      .trace = s->tracing,
                      .lineinfo = s->c->lineinfo,
                      .fast_math = s->c->fast_math || s->fast_math,
                      .import_dirs = s->c->import_dirs,
                      .n_import_dirs = s->c->n_import_dirs};
    tirx_status st = tirx_compile(s->text, s->len, s->file, defs, ndefs, &o, m);
    char *diags = tirx_diag_render(*m);
    if (diags)
        fputs(diags, stderr);
    tirx_free(diags);
    if (st != TIRX_OK) {
        const char *log = tirx_module_log(*m);
        if (log && *log)
            fprintf(stderr, "%s\n", log);
    } else {
        tool_print_perf_loss(*m); /* a serialized wgmma is a slow kernel, not a slow GPU */
    }
    return st;
}

int bench_function(BenchSession *s, tirx_module *m, const char *name, tirx_function **fn)
{
    tirx_error err;
    tirx_status st = tirx_get_function(m, name, fn, &err);
    return st == TIRX_OK ? 0 : bench_cuda_error(st, s->file, &err);
}

static int compile(BenchSession *s, const tirx_define *defs, size_t ndefs, tirx_module **m,
                   tirx_function **fn)
{
    int rc = bench_compile(s, defs, ndefs, m);
    return rc ? rc : bench_function(s, *m, s->c->func, fn);
}

/* ---- timing ---- */

tirx_status bench_launch(void *user, void *stream, tirx_error *err)
{
    BenchLaunch *l = user;
    return tirx_launch(l->fn, l->args, l->nargs, stream, err);
}

int bench_write_trace(const char *tool, const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    bool ok = f && fputs(text, f) >= 0;
    ok = f && !fclose(f) && ok;
    if (!ok) {
        fprintf(stderr, "tirx %s: cannot write '%s'\n", tool, path);
        return TIRX_ERR_USAGE;
    }
    fprintf(stderr, "  trace written to %s\n", path);
    return 0;
}

int bench_trace_launch(BenchSession *s, BenchLaunch *l, const char *what)
{
    const BenchConfig *c = s->c;
    tirx_error err;
    char *json = NULL, *svg = NULL;
    tirx_trace_options o = {.records_per_warp = c->trace_records, .svg_sms = (unsigned)c->trace_sms};
    fprintf(stderr, "  tracing %s ...\n", what);
    tirx_status st = tirx_launch_trace_to(l->fn, l->args, l->nargs, &o, c->trace ? &json : NULL,
                                          c->trace_svg ? &svg : NULL, &err);
    if (st != TIRX_OK)
        return bench_cuda_error(st, c->trace ? "--trace" : "--trace-svg", &err);
    int rc = json ? bench_write_trace("bench", c->trace, json) : 0;
    if (!rc && svg)
        rc = bench_write_trace("bench", c->trace_svg, svg);
    tirx_free(json);
    tirx_free(svg);
    s->traced = !rc;
    return rc;
}

typedef struct CublasRun {
    tirx_cublas_gemm *g;
    const BenchTensor *a, *b, *c;
} CublasRun;

static tirx_status launch_cublas(void *user, void *stream, tirx_error *err)
{
    CublasRun *r = user;
    return tirx_cublas_gemm_run(r->g, r->a->dl.data, r->b->dl.data, r->c->dl.data, stream, err);
}

int bench_time_it(BenchSession *s, const char *who, tirx_bench_fn fn, void *user,
                   tirx_bench_stats *out)
{
    tirx_error err;
    fprintf(stderr, "  timing %s ...", who);
    tirx_status st = tirx_bench_time(s->dev, fn, user, &s->c->timing, out, &err);
    if (st != TIRX_OK) {
        fputc('\n', stderr);
        return bench_cuda_error(st, who, &err);
    }
    fprintf(stderr, " %.4f ms median (%d runs)%s\n", out->median_ms, out->reps,
            out->held ? "" : "; launch overhead may be included (the stream could not be held)");
    return 0;
}

/* ---- tirx bench gemm ---- */

typedef struct Gemm {
    BenchShape shape;
    const BenchGemmType *type;
    BenchTensor a, b, c, ref, ws;
    tirx_module *module;
    BenchLaunch launch;
    tirx_cublas_gemm *cublas;
} Gemm;

static int gemm_compile(BenchSession *s, Gemm *g)
{
    const BenchConfig *c = s->c;
    tirx_define defs[BENCH_MAX_DEFINES + 5];
    char mv[24], nv[24], kv[24];
    snprintf(mv, sizeof mv, "%lld", g->shape.m);
    snprintf(nv, sizeof nv, "%lld", g->shape.n);
    snprintf(kv, sizeof kv, "%lld", g->shape.k);
    memcpy(defs, c->defines, c->ndefines * sizeof *defs);
    size_t n = c->ndefines;
    defs[n++] = (tirx_define){"M", mv};
    defs[n++] = (tirx_define){"N", nv};
    defs[n++] = (tirx_define){"K", kv};
    defs[n++] = (tirx_define){"DTYPE", g->type->input};
    s->file = c->kernel ? c->kernel : g->type->kernel;
    s->text = tool_read_input(s->file, TIRX_MAX_INPUT_SIZE_DEFAULT, &s->len);
    /* a kernel of one layout (no LAYOUT constant) is taken at its word */
    if (s->text && bench_declares(s->text, "LAYOUT"))
        defs[n++] = (tirx_define){"LAYOUT", c->layout_nn ? "\"nn\"" : "\"nt\""};
    int rc = s->text ? compile(s, defs, n, &g->module, &g->launch.fn) : TIRX_ERR_INPUT;
    free(s->text);
    s->text = NULL;
    return rc;
}

static int gemm_tensors(BenchSession *s, Gemm *g)
{
    const BenchDType *in = bench_dtype(g->type->input), *out = bench_dtype(g->type->output);
    const BenchShape *p = &g->shape;
    int64_t sa[2] = {p->m, p->k}, sb[2] = {p->n, p->k}, sc[2] = {p->m, p->n};
    if (s->c->layout_nn)
        sb[0] = p->k, sb[1] = p->n;
    int rc = bench_tensor_alloc(s, &g->a, in, 2, sa);
    if (!rc)
        rc = bench_tensor_alloc(s, &g->b, in, 2, sb);
    if (!rc)
        rc = bench_tensor_alloc(s, &g->c, s->c->out_dtype ? s->c->out_dtype : out, 2, sc);
    if (!rc && !s->c->no_cublas)
        rc = bench_tensor_alloc(s, &g->ref, out, 2, sc);
    if (!rc)
        rc = bench_tensor_init(s, &g->a, BENCH_RAND);
    if (!rc)
        rc = bench_tensor_init(s, &g->b, BENCH_RAND);
    const BenchTensor *args[] = {&g->a, &g->b, &g->c};
    for (int i = 0; i < 3; i++)
        g->launch.args[i] = tirx_arg_tensor(&args[i]->dl);
    g->launch.nargs = 3;
    /* the workspace goes to a kernel that takes one (gemm_sm90 does; an
     * A, B, C kernel does not) */
    size_t scales = g->type->scale_a ? 2 : 0;
    if (!rc && g->type->workspace && tirx_function_num_args(g->launch.fn) > 3 + scales) {
        int64_t words = g->type->workspace / 4;
        rc = bench_tensor_alloc(s, &g->ws, bench_dtype("int32"), 1, &words);
        if (!rc)
            rc = bench_tensor_init(s, &g->ws, BENCH_ZEROS);
        g->launch.args[g->launch.nargs++] = tirx_arg_tensor(&g->ws.dl);
    }
    if (g->type->scale_a) {
        g->launch.args[g->launch.nargs++] = tirx_arg_float(g->type->scale_a);
        g->launch.args[g->launch.nargs++] = tirx_arg_float(g->type->scale_b);
    }
    return rc;
}

static int gemm_plan_cublas(BenchSession *s, Gemm *g)
{
    tirx_error err;
    tirx_gemm_problem p = {.m = g->shape.m, .n = g->shape.n, .k = g->shape.k,
                           .dtype = g->type->name, .b_kn = s->c->layout_nn,
                           .scale_a = g->type->scale_a, .scale_b = g->type->scale_b};
    tirx_status st = tirx_cublas_gemm_create(s->dev, &p, &g->cublas, &err);
    return st == TIRX_OK ? 0 : bench_cuda_error(st, "cuBLAS", &err);
}

/* The kernel's C (poisoned first: all bits set) against cuBLAS's. */
static int gemm_check(BenchSession *s, Gemm *g, BenchRow *row)
{
    tirx_error err;
    memset(g->c.host, 0xff, g->c.bytes);
    tirx_status st = tirx_copy_to_device(s->dev, g->c.dl.data, g->c.host, g->c.bytes, &err);
    if (st == TIRX_OK)
        st = bench_launch(&g->launch, NULL, &err);
    if (st != TIRX_OK)
        return bench_cuda_error(st, s->c->func, &err);
    CublasRun r = {g->cublas, &g->a, &g->b, &g->ref};
    if ((st = launch_cublas(&r, NULL, &err)) != TIRX_OK)
        return bench_cuda_error(st, "cuBLAS", &err);
    int rc = bench_tensor_download(s, &g->c);
    if (!rc)
        rc = bench_tensor_download(s, &g->ref);
    if (rc)
        return rc;
    row->checked = true;
    row->against = "cuBLASLt";
    row->tolerance = g->type->tolerance;
    row->rel_error = bench_rel_l2(g->c.dtype, g->c.host, g->ref.dtype, g->ref.host, g->c.elems);
    fprintf(stderr, "  check against cuBLAS: relative L2 error %.3g (tolerance %g)\n",
            row->rel_error, row->tolerance);
    if (row->rel_error <= row->tolerance)
        return 0;
    fprintf(stderr, "tirx bench: %s %s %s: the kernel's result differs from cuBLAS's (relative L2 "
                    "error %.3g > %g); no timing is reported for a wrong kernel\n",
            row->label, row->dtype, row->layout, row->rel_error, row->tolerance);
    return TIRX_ERR_INPUT;
}

static int gemm_time(BenchSession *s, Gemm *g, BenchRow *row)
{
    int rc = bench_time_it(s, "tirx", bench_launch, &g->launch, &row->tirx);
    if (rc || !g->cublas)
        return rc;
    CublasRun r = {g->cublas, &g->a, &g->b, &g->ref};
    row->has_baseline = true;
    snprintf(row->baseline_detail, sizeof row->baseline_detail, "%s",
             tirx_cublas_gemm_describe(g->cublas));
    return bench_time_it(s, "cuBLAS", launch_cublas, &r, &row->baseline);
}

static void gemm_free(BenchSession *s, Gemm *g)
{
    bench_tensor_free(s, &g->a), bench_tensor_free(s, &g->b), bench_tensor_free(s, &g->c), bench_tensor_free(s, &g->ref);
    bench_tensor_free(s, &g->ws);
    tirx_cublas_gemm_free(g->cublas);
    tirx_module_free(g->module);
}

static int gemm_row(BenchSession *s, const BenchShape *shape, const BenchGemmType *type, BenchRow *row)
{
    Gemm g = {.shape = *shape, .type = type};
    snprintf(row->label, sizeof row->label, "%lldx%lldx%lld", shape->m, shape->n, shape->k);
    snprintf(row->dtype, sizeof row->dtype, "%s", type->name);
    snprintf(row->layout, sizeof row->layout, "%s", s->c->layout_nn ? "nn" : "nt");
    row->m = shape->m, row->n = shape->n, row->k = shape->k;
    row->flops = 2.0 * (double)shape->m * (double)shape->n * (double)shape->k;
    int rc = gemm_compile(s, &g);
    if (!rc)
        rc = gemm_tensors(s, &g);
    if (!rc && !s->c->no_cublas)
        rc = gemm_plan_cublas(s, &g);
    if (!rc && g.cublas)
        fprintf(stderr, "  cuBLAS: %s\n", tirx_cublas_gemm_describe(g.cublas));
    if (!rc && !s->c->no_cublas)
        rc = gemm_check(s, &g, row);
    if (!rc)
        rc = gemm_time(s, &g, row);
    if (!rc && (s->c->trace || s->c->trace_svg) && !s->traced) {
        tirx_module_free(g.module);
        g.module = NULL;
        s->tracing = true;
        rc = gemm_compile(s, &g);
        s->tracing = false;
        if (!rc)
            rc = bench_trace_launch(s, &g.launch, s->c->func ? s->c->func : "gemm");
    }
    gemm_free(s, &g);
    return rc;
}

/* ---- tirx bench FILE ---- */

static int function_row(BenchSession *s, BenchRow *row)
{
    const BenchConfig *c = s->c;
    BenchTensor *t = calloc(BENCH_MAX_ARGS, sizeof *t);
    BenchLaunch l = {.nargs = (size_t)c->nargs};
    tirx_module *m = NULL;
    snprintf(row->label, sizeof row->label, "%s", c->func);
    row->flops = c->flops;
    int rc = t ? compile(s, c->defines, c->ndefines, &m, &l.fn) : TIRX_ERR_INTERNAL;
    for (int i = 0; !rc && i < c->nargs; i++) {
        const BenchArg *a = &c->args[i];
        if (!a->is_tensor) {
            l.args[i] = a->is_float ? tirx_arg_float(a->f) : tirx_arg_int(a->i);
            continue;
        }
        rc = bench_tensor_alloc(s, &t[i], a->dtype, a->ndim, a->shape);
        if (!rc)
            rc = bench_tensor_init(s, &t[i], a->init);
        l.args[i] = tirx_arg_tensor(&t[i].dl);
    }
    if (!rc)
        rc = bench_time_it(s, c->func, bench_launch, &l, &row->tirx);
    if (!rc && (c->trace || c->trace_svg)) {
        tirx_module_free(m);
        m = NULL;
        s->tracing = true;
        rc = compile(s, c->defines, c->ndefines, &m, &l.fn);
        if (!rc)
            rc = bench_trace_launch(s, &l, c->func);
    }
    for (int i = 0; t && i < c->nargs; i++)
        bench_tensor_free(s, &t[i]);
    free(t);
    tirx_module_free(m);
    return rc;
}

/* ---- the session ---- */

static int write_report(const char *path, void (*write)(FILE *, const BenchReport *),
                        const BenchReport *r)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "tirx bench: cannot write '%s'\n", path);
        return TIRX_ERR_USAGE;
    }
    write(f, r);
    if (fclose(f)) {
        fprintf(stderr, "tirx bench: cannot write '%s'\n", path);
        return TIRX_ERR_USAGE;
    }
    return 0;
}

static int run_rows(BenchSession *s, BenchRow *rows, int nrows)
{
    const BenchConfig *c = s->c;
    for (int i = 0; i < nrows; i++) {
        if (c->mla)
            return (c->mla_problem.topk ? bench_mla_sparse_row : bench_mla_row)(s, rows, nrows);
        if (!c->gemm)
            return function_row(s, &rows[i]);
        const BenchShape *p = &c->shapes[i / c->ndtypes];
        const BenchGemmType *t = c->dtypes[i % c->ndtypes];
        fprintf(stderr, "[%d/%d] %lldx%lldx%lld %s %s\n", i + 1, nrows, p->m, p->n, p->k,
                t->name, c->layout_nn ? "nn" : "nt");
        int rc = gemm_row(s, p, t, &rows[i]);
        if (rc)
            return rc;
    }
    return 0;
}

static void command_line(int argc, char **argv, char *buf, size_t size)
{
    size_t n = snprintf(buf, size, "tirx");
    for (int i = 0; i < argc && n < size; i++)
        n += snprintf(buf + n, size - n, " %s", argv[i]);
}

static int report(BenchSession *s, const BenchRow *rows, int nrows, const char *command)
{
    BenchReport r = {.timing = &s->c->timing, .command = command, .rows = rows, .nrows = nrows};
    tirx_device_get_info(s->dev, &r.device);
    bench_print_table(stdout, &r);
    int rc = s->c->json ? write_report(s->c->json, bench_write_json, &r) : 0;
    if (!rc && s->c->plot)
        rc = write_report(s->c->plot, bench_write_svg, &r);
    return rc;
}

/* Seconds a wait for the GPU may take (TIRX_KERNEL_TIMEOUT) unless the
 * environment says otherwise: a kernel that never ends is then an error, not
 * a benchmark that hangs. A chunk of 32 runs behind one wait leaves a run
 * about 3 s. */
#define BENCH_KERNEL_TIMEOUT "120"

static int run(BenchSession *s, int argc, char **argv)
{
    tirx_error err;
    setenv("TIRX_KERNEL_TIMEOUT", BENCH_KERNEL_TIMEOUT, 0);
    tirx_status st = tirx_device_open(0, &s->dev, &err);
    if (st != TIRX_OK)
        return bench_cuda_error(st, NULL, &err);
    tirx_device_info info;
    tirx_device_get_info(s->dev, &info);
    fprintf(stderr, "tirx bench: %s (%s, %d SMs)\n", info.name, info.arch, info.sm_count);
    int nrows = s->c->gemm ? s->c->nshapes * s->c->ndtypes
                : s->c->nvariants ? s->c->nvariants : 1;
    BenchRow *rows = calloc((size_t)nrows, sizeof *rows);
    char command[2048];
    command_line(argc, argv, command, sizeof command);
    int rc = rows ? run_rows(s, rows, nrows) : TIRX_ERR_INTERNAL;
    if (!rc)
        rc = report(s, rows, nrows, command);
    free(rows);
    tirx_device_close(s->dev);
    return rc;
}

/* A FILE parsed and verified before the GPU is sought: its errors are
 * reported at their lines on a machine without one too. */
static int check_source(const BenchSession *s)
{
    const BenchConfig *c = s->c;
    tirx_options o = {.import_dirs = c->import_dirs, .n_import_dirs = c->n_import_dirs};
    tirx_module *m = NULL;
    tirx_status st = tirx_parse_with(s->text, s->len, s->file, c->defines, c->ndefines, &o, &m);
    if (st == TIRX_OK)
        st = tirx_verify(m);
    char *diags = st != TIRX_OK ? tirx_diag_render(m) : NULL;
    if (diags)
        fputs(diags, stderr);
    tirx_free(diags);
    tirx_module_free(m);
    return st;
}

int bench_main(int argc, char **argv)
{
    BenchConfig *c = calloc(1, sizeof *c);
    if (!c)
        return TIRX_ERR_INTERNAL;
    int rc = bench_parse_args(argc, argv, c);
    if (rc < 0) {
        BenchSession s = {.c = c, .seed = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull | 1,
                     .file = c->file};
        bool builtin = c->gemm || c->mla; /* they read their kernels themselves */
        if (!builtin)
            s.text = tool_read_input(c->file, TIRX_MAX_INPUT_SIZE_DEFAULT, &s.len);
        rc = builtin ? 0 : s.text ? check_source(&s) : TIRX_ERR_INPUT;
        if (!rc && c->flashmla) /* a wrong library fails before any GPU work */
            rc = bench_flashmla_open(c->flashmla, &s.flashmla);
        if (!rc)
            rc = run(&s, argc, argv);
        free(s.text);
    }
    free(c);
    return rc;
}
