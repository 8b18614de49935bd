/* The command line of `tirx bench`: its options in one table, their
 * values checked as they are read (shapes, dtypes, numbers, the --args SPEC,
 * --shapes files), then what each form (FILE, gemm or mla) requires. Usage errors
 * are printed on stderr as `tirx bench: ...` and give exit status 2. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

const char bench_usage[] =
    "usage: tirx bench FILE --func NAME [--args SPEC] [-D NAME=VALUE]... [options]\n"
    "       tirx bench gemm --shape M,N,K [--shape ...] [--dtype bf16|fp16|fp8|tf32[,...]]\n"
    "                       [--layout nt|nn] [--kernel FILE] [options]\n"
    "       tirx bench mla [--batch B] [--sq S] [--hq H] [--sk N] [--varlen] [--causal]\n"
    "                      [--dtype bf16|fp16] [--kernel FILE] [--flashmla LIB] [options]\n"
    "       tirx bench mla --topk N [--batch B] [--sq S] [--hq H] [--sk N] [--sink]\n"
    "                      [--kernel FILE] [--flashmla LIB] [options]\n"
    "\n"
    "Times a function of FILE on the GPU, a GEMM kernel side by side with cuBLASLt after\n"
    "checking its result against cuBLASLt's, or the MLA decode (main kernel + combine; with\n"
    "--topk the sparse fp8 one) after checking it against float64 on a sample of rows. The\n"
    "median, minimum and 90th percentile of CUDA event times, each run after an L2 flush; a\n"
    "table on stdout, progress on stderr.\n"
    "\n"
    "options:\n"
    "  --func NAME       the function to time (gemm: default 'gemm')\n"
    "  --args SPEC       FILE: its arguments in order, e.g. 'A=rand(4096,4096:bf16)\n"
    "                    C=empty(4096,4096:f32) n=4096' (INIT: rand, zeros, ones, empty)\n"
    "  --flops N         FILE: floating-point operations of one run (for TFLOP/s)\n"
    "  --shape M,N,K     gemm: a problem size (repeat for a sweep)\n"
    "  --shapes FILE     gemm: problem sizes, one M,N,K a line ('#' starts a comment)\n"
    "  --dtype T[,T]     gemm: bf16 (default), fp16, fp8 (e4m3 in, bf16 out), tf32;\n"
    "                    mla (dense): bf16 (default) or fp16\n"
    "  --layout L        gemm: nt (default; B is [N,K]) or nn (B is [K,N])\n"
    "  --kernel FILE     gemm, mla: the kernel (gemm: default kernels/gemm_sm90.tirx, fp8:\n"
    "                    kernels/gemm_fp8_sm90.tirx); it gets -D M= N= K= DTYPE=\n"
    "                    (and LAYOUT=\"nt\" or \"nn\" when it declares LAYOUT) and\n"
    "                    takes (A, B, C[, workspace]): a zeroed int32 workspace of\n"
    "                    32 MiB; fp8 (A, B, C[, workspace], scale_a, scale_b)\n"
    "                    mla: default kernels/mla_decode_sm90.tirx; it gets -D S_Q=\n"
    "                    H_Q= CAUSAL= NUM_SMS= (DTYPE= with --dtype fp16) and\n"
    "                    FlashMLA's interface; with --topk\n"
    "                    kernels/mla_sparse_fp8_sm90.tirx, -D S_Q= H_Q= ATTN_SINK=\n"
    "                    NUM_SMS=\n"
    "  --out-dtype T     gemm: C's dtype in the kernel (default: cuBLAS's: bf16, fp16, f32)\n"
    "  --no-cublas       gemm: time the kernel alone, without the check\n"
    "  --batch B         mla: requests (default 128)\n"
    "  --sq S            mla: query tokens per request, 1 to 4 (default 1; --topk: 2)\n"
    "  --hq H            mla: query heads, 16 to 128 (default 64; --topk: 64 or 128,\n"
    "                    default 128)\n"
    "  --sk N            mla: every request's cache length, or with --varlen their\n"
    "                    mean (default 8192; --topk: 32768)\n"
    "  --varlen          mla: lengths ~ N(sk, sk/2), at least sq\n"
    "  --causal          mla: causal over the query tokens (default: not)\n"
    "  --topk N          mla: the sparse fp8 decode, each query token attending to N of\n"
    "                    its request's tokens\n"
    "  --sink            mla --topk: with the attention sink (-D ATTN_SINK=True)\n"
    "  --flashmla LIB    mla: also check and time FlashMLA's own decode on the same\n"
    "                    inputs, from LIB (libtirx_flashmla.so, bench/flashmla)\n"
    "  --variant V       mla: a variant of the kernel, V = NAME=VALUE[,NAME=VALUE...]\n"
    "                    (-D overrides after the command's; an item fast-math\n"
    "                    compiles it with fast math; '-': none); repeat for\n"
    "                    a row each, compiled, checked and timed in turn on the same\n"
    "                    inputs (repeat one for interleaved runs: A B A B); --trace\n"
    "                    traces the first\n"
    "  -D NAME=VALUE     override a module-level constant of the file\n"
    "  -I DIR            search DIR for imported .tirx files, after the importing\n"
    "                    file's directory (gemm, mla: then kernels/)\n"
    "  --budget-ms MS    GPU time of the timed runs of one measurement (default 1000)\n"
    "  --warmup-ms MS    GPU time of the warm-up runs (default 100; 0: none)\n"
    "  --max-reps N      at most N timed runs (default 10000)\n"
    "  --no-flush        keep L2 warm (no flush before each run)\n"
    "  --json FILE       write the results as JSON\n"
    "  --plot FILE       draw the results (tirx vs cuBLAS per row) as an SVG chart\n"
    "                    (FILE must end in .svg)\n"
    "  --trace FILE      after timing, run once more built with --trace and write\n"
    "                    its T.cuda.iket events as a Chrome/Perfetto trace (gemm: the\n"
    "                    first row; mla: the decode kernel)\n"
    "  --trace-svg FILE  the same traced run's events as an SVG timeline (a row per\n"
    "                    warp, grouped by SM; FILE must end in .svg); with --trace,\n"
    "                    both come from one run\n"
    "  --trace-sms N     SMs the timeline draws, the lowest-numbered (default 4)\n"
    "  --trace-records N records kept per warp (default 4096)\n"
    "  --lineinfo        compile with line information (a profiler such as Nsight\n"
    "                    Compute then attributes each instruction to its .tirx line)\n"
    "  --fast-math       compile with fast math (as tirx build --fast-math; the\n"
    "                    reference's default: T.exp2 as ex2.approx.ftz, ...)\n"
    "  --help            show this help\n";

/* X(option, takes a value) */
#define BENCH_OPTIONS(X)                                                     \
    X(func, 1) X(args, 1) X(flops, 1) X(shape, 1) X(shapes, 1) X(dtype, 1)   \
    X(layout, 1) X(kernel, 1) X(out_dtype, 1) X(no_cublas, 0) X(budget_ms, 1) \
    X(warmup_ms, 1) X(max_reps, 1) X(no_flush, 0) X(json, 1) X(plot, 1)   \
    X(trace, 1) X(trace_svg, 1) X(trace_sms, 1) X(trace_records, 1) X(batch, 1) X(sq, 1) X(hq, 1) X(sk, 1)    \
    X(varlen, 0) X(causal, 0) X(topk, 1) X(sink, 0) X(variant, 1) X(lineinfo, 0) \
    X(fast_math, 0) X(flashmla, 1)

typedef enum OptionId {
#define X(name, value) OPT_##name,
    BENCH_OPTIONS(X)
#undef X
} OptionId;

typedef struct Option {
    const char *name; /* spelled with '-' for '_' */
    bool takes_value;
} Option;

static const Option options[] = {
#define X(name, value) {#name, value},
    BENCH_OPTIONS(X)
#undef X
};

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tirx bench: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'tirx bench --help'.\n");
    va_end(ap);
    return TIRX_ERR_USAGE;
}

/* The option's index for "--budget-ms" style text of length n; -1 if none. */
static int find_option(const char *text, size_t n)
{
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        const char *o = options[i].name;
        size_t k = 0;
        while (k < n && o[k] && (o[k] == text[k] || (o[k] == '_' && text[k] == '-')))
            k++;
        if (k == n && !o[k])
            return (int)i;
    }
    return -1;
}

/* "M,N,K" or "MxNxK", positive int32 (the kernels' extents; their byte counts cannot wrap). */
static bool parse_shape(const char *s, BenchShape *out)
{
    long long v[3];
    for (int i = 0; i < 3; i++) {
        char *end;
        errno = 0;
        v[i] = strtoll(s, &end, 10);
        if (end == s || errno || v[i] < 1 || v[i] > INT32_MAX || (i < 2 && *end != ',' && *end != 'x') ||
            (i == 2 && *end))
            return false;
        s = end + 1;
    }
    *out = (BenchShape){v[0], v[1], v[2]};
    return true;
}

static int add_shape(BenchConfig *c, const char *text, const char *where)
{
    if (c->nshapes == BENCH_MAX_SHAPES)
        return usage_error("at most %d shapes", BENCH_MAX_SHAPES);
    if (!parse_shape(text, &c->shapes[c->nshapes]))
        return usage_error("%s: malformed shape '%s' (expected M,N,K of integers from 1 to 2^31 - 1)",
                           where, text);
    c->nshapes++;
    return 0;
}

/* --shapes FILE: one M,N,K a line; blank lines and '#' comments skipped. */
static int read_shapes(BenchConfig *c, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return usage_error("cannot open '%s': %s", path, strerror(errno));
    char line[256], where[300];
    int rc = 0;
    for (int no = 1; !rc && fgets(line, sizeof line, f); no++) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *p = line + strspn(line, " \t\r\n"), *end = p + strcspn(p, " \t\r\n");
        if (p == end)
            continue;
        *end = 0;
        snprintf(where, sizeof where, "%s:%d", path, no);
        rc = add_shape(c, p, where);
    }
    fclose(f);
    return rc;
}

static int add_dtypes(BenchConfig *c, const char *list)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        const BenchGemmType *g = bench_gemm_type(t);
        if (!g)
            return usage_error("unknown --dtype '%s' (bf16, fp16, fp8 or tf32)", t);
        if (c->ndtypes == BENCH_MAX_DTYPES)
            return usage_error("at most %d dtypes", BENCH_MAX_DTYPES);
        c->dtypes[c->ndtypes++] = g;
    }
    return c->ndtypes ? 0 : usage_error("--dtype needs a dtype");
}

static int number(const char *name, const char *v, double lo, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(v, &end);
    if (end == v || *end || errno || !(*out >= lo))
        return usage_error("--%s expects a number of at least %g, not '%s'", name, lo, v);
    return 0;
}

/* An integer option of `mla` from lo to hi. */
static int integer(const char *name, const char *v, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (end == v || *end || errno || x < lo || x > hi)
        return usage_error("--%s expects an integer from %ld to %ld, not '%s'", name, lo, hi, v);
    *out = (int)x;
    return 0;
}

static int take_value(BenchConfig *c, OptionId id, const char *v)
{
    BenchMla *p = &c->mla_problem;
    char msg[512];
    double x = 0;
    int rc = 0;
    switch (id) {
    case OPT_func: c->func = v; break;
    case OPT_args:
        if (!bench_parse_spec(v, c->args, &c->nargs, msg, sizeof msg))
            return usage_error("%s", msg);
        break;
    case OPT_flops: rc = number("flops", v, 0, &c->flops); break;
    case OPT_shape: rc = add_shape(c, v, "--shape"); break;
    case OPT_shapes: rc = read_shapes(c, v); break;
    case OPT_dtype: rc = add_dtypes(c, v); break;
    case OPT_layout:
        if (strcmp(v, "nt") && strcmp(v, "nn"))
            return usage_error("--layout takes nt or nn, not '%s'", v);
        c->layout_nn = !strcmp(v, "nn");
        break;
    case OPT_kernel: c->kernel = v; break;
    case OPT_out_dtype:
        if (!(c->out_dtype = bench_dtype(v)))
            return usage_error("unknown --out-dtype '%s'", v);
        break;
    case OPT_budget_ms: rc = number("budget-ms", v, 1e-3, &c->timing.budget_ms); break;
    case OPT_warmup_ms:
        rc = number("warmup-ms", v, 0, &x);
        c->timing.warmup_ms = x > 0 ? x : -1;
        break;
    case OPT_max_reps:
        rc = number("max-reps", v, 1, &x);
        c->timing.max_reps = x < 1e9 ? (int)x : 1000000000;
        break;
    case OPT_json: c->json = v; break;
    case OPT_plot: c->plot = v; break;
    case OPT_trace: c->trace = v; break;
    case OPT_trace_svg: c->trace_svg = v; break;
    case OPT_trace_sms: rc = integer("trace-sms", v, 1, 1 << 16, &c->trace_sms); break;
    case OPT_batch: rc = integer("batch", v, 1, 65536, &p->batch); break;
    case OPT_sq: rc = integer("sq", v, 1, 4, &p->s_q); break;
    case OPT_hq: rc = integer("hq", v, 16, 128, &p->h_q); break;
    case OPT_sk: rc = integer("sk", v, 1, 1 << 20, &p->s_k); break;
    case OPT_topk: rc = integer("topk", v, 1, 1 << 20, &p->topk); break;
    case OPT_variant: {
        size_t items = 1;
        for (const char *q = v; *q; q++)
            items += *q == ',';
        if (!bench_variant_ok(v) || items > BENCH_MAX_DEFINES)
            return usage_error("--variant takes NAME=VALUE[,NAME=VALUE...] (at most %d; an item "
                               "may be fast-math) or '-', not '%s'", BENCH_MAX_DEFINES, v);
        if (c->nvariants == BENCH_MAX_VARIANTS)
            return usage_error("too many --variant options (at most %d)", BENCH_MAX_VARIANTS);
        c->variants[c->nvariants++] = v;
        break;
    }
    case OPT_flashmla: c->flashmla = v; break;
    case OPT_trace_records:
        rc = number("trace-records", v, 1, &x);
        c->trace_records = x < 16777216 ? (size_t)x : 16777216;
        break;
    default: break;
    }
    return rc;
}

static int long_option(BenchConfig *c, int argc, char **argv, int *i)
{
    const char *text = argv[*i] + 2, *eq = strchr(text, '=');
    int k = find_option(text, eq ? (size_t)(eq - text) : strlen(text));
    if (k < 0)
        return usage_error("unknown option '%s'", argv[*i]);
    if (!options[k].takes_value) {
        if (eq)
            return usage_error("option '%s' takes no value", argv[*i]);
        switch (k) {
        case OPT_no_cublas: c->no_cublas = true; break;
        case OPT_varlen: c->mla_problem.varlen = true; break;
        case OPT_causal: c->mla_problem.causal = true; break;
        case OPT_sink: c->mla_problem.sink = true; break;
        case OPT_lineinfo: c->lineinfo = true; break;
        case OPT_fast_math: c->fast_math = true; break;
        default: c->timing.no_flush = 1; break;
        }
        return 0;
    }
    const char *v = eq ? eq + 1 : *i + 1 < argc ? argv[++*i] : NULL;
    if (!v)
        return usage_error("option '%s' needs a value", argv[*i]);
    return take_value(c, (OptionId)k, v);
}

static int add_define(BenchConfig *c, char *arg)
{
    char *eq = arg ? strchr(arg, '=') : NULL;
    if (!eq || eq == arg)
        return usage_error("-D expects NAME=VALUE, got '%s'", arg ? arg : "");
    if (c->ndefines == BENCH_MAX_DEFINES)
        return usage_error("too many -D options (at most %d)", BENCH_MAX_DEFINES);
    *eq = 0;
    c->defines[c->ndefines++] = (tirx_define){arg, eq + 1};
    return 0;
}

static int add_import_dir(BenchConfig *c, const char *dir)
{
    if (!dir)
        return usage_error("%s needs a directory", "-I");
    if (c->n_import_dirs == BENCH_MAX_IMPORT_DIRS)
        return usage_error("too many -I directories (at most %d)", BENCH_MAX_IMPORT_DIRS);
    c->import_dirs[c->n_import_dirs++] = dir;
    return 0;
}

bool bench_variant_ok(const char *spec)
{
    if (!strcmp(spec, "-"))
        return true;
    for (const char *item = spec;; item++) {
        size_t n = strcspn(item, ","), name = strcspn(item, "=");
        bool option = n == strlen(BENCH_VARIANT_FAST_MATH) && !strncmp(item, BENCH_VARIANT_FAST_MATH, n);
        if (!option && (name == 0 || name >= n || isdigit((unsigned char)item[0])))
            return false;
        for (size_t i = 0; !option && i < name; i++)
            if (!isalnum((unsigned char)item[i]) && item[i] != '_')
                return false;
        if (!item[n])
            return true;
        item += n;
    }
}

/* Whether text declares the module-level constant name: a line "name = ..."
 * (constants are assignments at column 0). */
bool bench_declares(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *l = text; l; l = strchr(l, '\n')) {
        l += *l == '\n';
        if (strncmp(l, name, n))
            continue;
        const char *p = l + n + strspn(l + n, " ");
        if (p[0] == '=' && p[1] != '=')
            return true;
    }
    return false;
}

/* The options of `mla` given to another form. */
static int mla_options(const BenchConfig *c, const char *form)
{
    const BenchMla *p = &c->mla_problem;
    if (p->batch || p->s_q || p->h_q || p->s_k || p->varlen || p->causal || p->topk || p->sink ||
        c->nvariants || c->flashmla)
        return usage_error("--batch, --sq, --hq, --sk, --varlen, --causal, --topk, --sink, "
                           "--variant and --flashmla are for 'tirx bench mla', not %s", form);
    return 0;
}

/* What `gemm` needs and refuses. */
static int check_gemm(BenchConfig *c)
{
    int rc = mla_options(c, "gemm");
    if (rc)
        return rc;
    if (!c->nshapes)
        return usage_error("gemm: --shape M,N,K (or --shapes FILE) is required");
    if (c->nargs || c->flops)
        return usage_error("gemm: --args and --flops are for FILE (gemm makes A, B and C)");
    for (size_t i = 0; i < c->ndefines; i++) {
        const char *n = c->defines[i].name;
        if (!strcmp(n, "M") || !strcmp(n, "N") || !strcmp(n, "K") || !strcmp(n, "DTYPE") ||
            !strcmp(n, "LAYOUT"))
            return usage_error("gemm: -D %s is set from --shape, --dtype and --layout", n);
    }
    if (!c->ndtypes)
        c->dtypes[c->ndtypes++] = bench_gemm_type("bf16");
    c->file = c->kernel;
    if (!c->func)
        c->func = "gemm";
    return 0;
}

/* -D or --variant of a constant the MLA row sets: the dense decode's (S_Q,
 * H_Q, CAUSAL, NUM_SMS) or with --topk the sparse one's (ATTN_SINK for
 * CAUSAL); name is n bytes long. */
static int mla_define(const BenchConfig *c, const char *how, const char *name, size_t n)
{
    bool sparse = c->mla_problem.topk > 0;
    const char *own = sparse ? "ATTN_SINK" : "CAUSAL";
    const char *set[] = {"S_Q", "H_Q", own, "NUM_SMS", "DTYPE"}; /* DTYPE: dense only */
    for (int k = 0; k < (sparse ? 4 : 5); k++)
        if (strlen(set[k]) == n && !strncmp(name, set[k], n))
            return usage_error("mla: %s %s is set from --sq, --hq, %s and the GPU", how, set[k],
                               sparse ? "--sink" : "--causal, --dtype");
    return 0;
}

static int mla_defines(const BenchConfig *c)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < c->ndefines; i++)
        rc = mla_define(c, "-D", c->defines[i].name, strlen(c->defines[i].name));
    for (int v = 0; !rc && v < c->nvariants; v++)
        for (const char *item = c->variants[v]; !rc && strcmp(item, "-"); item++) {
            if (strcspn(item, "=") < strcspn(item, ",")) /* not the item fast-math */
                rc = mla_define(c, "--variant", item, strcspn(item, "="));
            item += strcspn(item, ",");
            if (!*item)
                break;
        }
    return rc;
}

/* What the sparse decode (--topk) refuses; its defaults (the issue's
 * problem: b 128, s_q 2, h_q 128, s_k 32768). */
static int check_sparse(BenchMla *p)
{
    if (p->varlen || p->causal)
        return usage_error("mla: --varlen and --causal are for the dense decode, not with --topk "
                           "(a query attends to the tokens of its list)");
    if (p->h_q && p->h_q % 64)
        return usage_error("mla: --hq must be 64 or 128 with --topk (the sparse kernel takes "
                           "heads in blocks of 64), not %d", p->h_q);
    p->batch = p->batch ? p->batch : 128;
    p->s_q = p->s_q ? p->s_q : 2;
    p->h_q = p->h_q ? p->h_q : 128;
    p->s_k = p->s_k ? p->s_k : 32768;
    long long tokens = (long long)p->batch * ((p->s_k + 63) / 64 * 64);
    if (tokens > 2147483647)
        return usage_error("mla: --batch %d times --sk %d is %lld cached tokens; the sparse "
                           "kernel's int32 indices address at most 2147483647", p->batch,
                           p->s_k, tokens);
    return 0;
}

/* What `mla` needs and refuses; the problem's defaults. */
static int check_mla(BenchConfig *c)
{
    if (c->nshapes || c->layout_nn || c->out_dtype || c->no_cublas || c->nargs || c->flops ||
        c->func || c->plot)
        return usage_error("mla: --shape, --shapes, --layout, --out-dtype, --no-cublas, --args, "
                           "--flops, --func and --plot are not for the MLA decode");
    BenchMla *p = &c->mla_problem;
    const char *dt = c->ndtypes ? c->dtypes[0]->name : "bf16";
    if (c->ndtypes > 1 || (strcmp(dt, "bf16") && strcmp(dt, "fp16")))
        return usage_error("mla: --dtype takes one of bf16 and fp16 (q, the cache and out)");
    p->f16 = !strcmp(dt, "fp16");
    if (p->f16 && p->topk)
        return usage_error("mla: --dtype fp16 is for the dense decode (the sparse one reads an "
                           "fp8 cache and bfloat16 q)");
    if (c->flashmla && p->topk % 64)
        return usage_error("mla: --flashmla with --topk %d: FlashMLA's sparse decode takes top-k "
                           "in multiples of 64", p->topk);
    int rc = mla_defines(c);
    if (rc)
        return rc;
    if (p->sink && !p->topk)
        return usage_error("mla: --sink is for the sparse decode (--topk N)");
    if (p->topk && (rc = check_sparse(p)))
        return rc;
    p->batch = p->batch ? p->batch : 128;
    p->s_q = p->s_q ? p->s_q : 1;
    p->h_q = p->h_q ? p->h_q : 64;
    p->s_k = p->s_k ? p->s_k : 8192;
    c->timing.min_reps = c->timing.min_reps > 30 ? c->timing.min_reps : 30;
    c->file = c->kernel;
    return 0;
}

static int check_file(BenchConfig *c)
{
    int rc = mla_options(c, c->file);
    if (rc)
        return rc;
    if (c->nshapes || c->ndtypes || c->layout_nn || c->kernel || c->out_dtype || c->no_cublas)
        return usage_error("--shape, --shapes, --dtype, --layout, --kernel, --out-dtype and "
                           "--no-cublas are for 'tirx bench gemm'");
    if (!c->func)
        return usage_error("%s: --func NAME is required", c->file);
    return 0;
}

bool bench_is_svg_name(const char *name)
{
    size_t n = strlen(name);
    const char *ext = name + (n > 4 ? n - 4 : 0);
    return n > 4 && ext[0] == '.' && tolower((unsigned char)ext[1]) == 's' &&
           tolower((unsigned char)ext[2]) == 'v' && tolower((unsigned char)ext[3]) == 'g';
}

/* The output files' names against their formats: --plot and --trace-svg
 * write SVG, --trace JSON. */
static int check_outputs(const BenchConfig *c)
{
    if (c->plot && !bench_is_svg_name(c->plot))
        return usage_error("--plot draws an SVG chart (tirx writes no PNG): its file name must "
                           "end in .svg, not '%s'", c->plot);
    if (c->trace_svg && !bench_is_svg_name(c->trace_svg))
        return usage_error("--trace-svg draws an SVG timeline: its file name must end in .svg, "
                           "not '%s'", c->trace_svg);
    if (c->trace && bench_is_svg_name(c->trace))
        return usage_error("--trace writes a Chrome/Perfetto trace (JSON), not '%s': for an SVG "
                           "timeline use --trace-svg", c->trace);
    if (c->trace_sms && !c->trace_svg)
        return usage_error("--trace-sms is for --trace-svg (the SMs the timeline draws)");
    return 0;
}

static int positional(BenchConfig *c, const char *a)
{
    if (c->gemm || c->mla || c->file)
        return usage_error("unexpected argument '%s'", a);
    if (!strcmp(a, "gemm"))
        c->gemm = true;
    else if (!strcmp(a, "mla"))
        c->mla = true;
    else
        c->file = a;
    return 0;
}

int bench_parse_args(int argc, char **argv, BenchConfig *c)
{
    int rc = 0;
    for (int i = 1; !rc && i < argc; i++) {
        char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(bench_usage, stdout);
            return 0;
        }
        if (!strncmp(a, "-D", 2))
            rc = add_define(c, a[2] ? a + 2 : i + 1 < argc ? argv[++i] : NULL);
        else if (!strncmp(a, "-I", 2))
            rc = add_import_dir(c, a[2] ? a + 2 : i + 1 < argc ? argv[++i] : NULL);
        else if (a[0] == '-' && a[1] == '-')
            rc = long_option(c, argc, argv, &i);
        else if (a[0] == '-' && a[1])
            rc = usage_error("unknown option '%s'", a);
        else
            rc = positional(c, a);
    }
    if (rc)
        return rc;
    if (!c->gemm && !c->mla && !c->file)
        return usage_error("missing FILE (or 'gemm' or 'mla')");
    if ((rc = check_outputs(c)))
        return rc;
    /* A copy of a library kernel, edited elsewhere, still finds the modules it imports. */
    if (c->gemm || c->mla)
        c->import_dirs[c->n_import_dirs++] = "kernels";
    rc = c->gemm ? check_gemm(c) : c->mla ? check_mla(c) : check_file(c);
    return rc ? rc : -1;
}
