/* `tirx bench mla`: the dense MLA decode (kernels/mla_decode_sm90.tirx, or
 * --kernel with its interface) as FlashMLA's benchmark runs it, and what
 * the MLA rows share (the sparse one is bench_mla_sparse.c): compiling the
 * three functions, the float64 attention of sampled rows, the check and the
 * timing. The kernel is compiled with -D S_Q, H_Q, CAUSAL and NUM_SMS (the
 * GPU's), and DTYPE="float16" with --dtype fp16; its inputs are random:
 * q and the paged cache uniform in
 * [-1, 1), the pages dealt to the requests from a shuffled pool, the
 * lengths fixed or, with --varlen, ~ N(s_k, s_k / 2) clipped to [s_q,
 * 2 s_k]. The metadata kernel runs once; the decode call (main kernel +
 * combine) runs once with out and lse poisoned and is checked against a
 * float64 attention of the same inputs on a sample of rows (a few heads and
 * query tokens of a few requests): out within MLA_OUT_TOL relative L2
 * error, lse within MLA_LSE_TOL; a wrong kernel gets no number. Then the
 * decode call is timed (L2 flushed, at least 30 runs); with --flashmla,
 * FlashMLA's own decode from libtirx_flashmla (bench/flashmla) is checked
 * and timed the same way on the same inputs. Bytes per run: q,
 * the cache pages read, out and lse; FLOPs: 2 s_q h_q (576 + 512) per
 * cached token of each request. */
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { MLA_DK = BENCH_MLA_DK, MLA_DV = BENCH_MLA_DV, MLA_PAGE = 64, MLA_META = 8 };

/* out: rounding the exact output to bfloat16 alone is about 1.7e-3 and the
 * bfloat16 P of P @ V adds about as much again, 2.0e-3 to 2.3e-3 together
 * (tests/gpu/mla_decode_test.h), where a softmax constant 10% off
 * gives 4e-2; lse is computed in float32 (errors below 1e-6). */
#define MLA_OUT_TOL 4e-3
#define MLA_LSE_TOL 1e-3

static const char *const mla_default_kernel = "kernels/mla_decode_sm90.tirx";

typedef struct Mla {
    const BenchMla *p;
    int parts, max_pages;
    long long pages, tokens; /* pages and tokens of all requests */
    BenchTensor q, kv, table, lens, meta, splits, out, lse, oacc, lacc;
    BenchMlaKernel k;
} Mla;

/* ---- compiling (shared) ---- */

/* Appends the NAME=VALUE items of variant spec to defs (their strings in
 * buf, which the defines point into); the new count. The item fast-math
 * sets *fast_math instead. */
static size_t variant_defines(const char *spec, char *buf, tirx_define *defs, size_t n,
                              bool *fast_math)
{
    *fast_math = false;
    if (!strcmp(spec, "-"))
        return n;
    strcpy(buf, spec);
    for (char *item = strtok(buf, ","); item && n < BENCH_MAX_DEFINES * 2 + 8;
         item = strtok(NULL, ",")) {
        char *eq = strchr(item, '=');
        if (!eq) {
            *fast_math = true; /* bench_variant_ok let only this item through */
            continue;
        }
        *eq = 0;
        defs[n++] = (tirx_define){item, eq + 1};
    }
    return n;
}

int bench_mla_compile(BenchSession *s, const char *fallback, const tirx_define *defs,
                      size_t ndefs, const char *const names[3], BenchMlaKernel *k)
{
    const BenchConfig *c = s->c;
    tirx_define all[BENCH_MAX_DEFINES * 2 + 8];
    memcpy(all, c->defines, c->ndefines * sizeof *all);
    memcpy(all + c->ndefines, defs, ndefs * sizeof *defs);
    size_t n = c->ndefines + ndefs;
    char *buf = c->nvariants ? malloc(strlen(c->variants[s->variant]) + 1) : NULL;
    if (buf)
        n = variant_defines(c->variants[s->variant], buf, all, n, &s->fast_math);
    s->file = c->kernel ? c->kernel : fallback;
    s->text = tool_read_input(s->file, TIRX_MAX_INPUT_SIZE_DEFAULT, &s->len);
    int rc = s->text && (buf || !c->nvariants) ? bench_compile(s, all, n, &k->module)
                                                : TIRX_ERR_INPUT;
    free(buf);
    free(s->text);
    s->text = NULL;
    BenchLaunch *calls[] = {&k->metadata, &k->decode, &k->combine};
    for (int i = 0; !rc && i < 3; i++)
        rc = bench_function(s, k->module, names[i], &calls[i]->fn);
    return rc;
}

static int mla_compile(BenchSession *s, Mla *m)
{
    tirx_device_info info;
    tirx_device_get_info(s->dev, &info);
    char sq[16], hq[16], sms[16];
    snprintf(sq, sizeof sq, "%d", m->p->s_q);
    snprintf(hq, sizeof hq, "%d", m->p->h_q);
    snprintf(sms, sizeof sms, "%d", info.sm_count);
    /* DTYPE only for float16: a --kernel without it stays bfloat16 */
    const tirx_define defs[] = {{"S_Q", sq}, {"H_Q", hq},
                                {"CAUSAL", m->p->causal ? "True" : "False"}, {"NUM_SMS", sms},
                                {"DTYPE", "\"float16\""}};
    int rows = m->p->s_q * m->p->h_q, blocks = (rows + 63) / 64;
    m->parts = info.sm_count / blocks > 0 ? info.sm_count / blocks : 1;
    static const char *const names[3] = {"mla_metadata", "mla_decode", "mla_combine"};
    return bench_mla_compile(s, mla_default_kernel, defs, m->p->f16 ? 5 : 4, names, &m->k);
}

/* ---- the inputs ---- */

/* A length ~ N(s_k, s_k / 2) clipped to [s_q, 2 s_k] (Box-Muller). */
static int varlen_length(BenchSession *s, const BenchMla *p)
{
    double u1 = (bench_uniform(&s->seed) + 1) / 2, u2 = (bench_uniform(&s->seed) + 1) / 2;
    double z = sqrt(-2 * log(1 - u1)) * cos(6.283185307179586 * u2);
    double len = round(p->s_k + z * p->s_k / 2);
    return len < p->s_q ? p->s_q : len > 2.0 * p->s_k ? 2 * p->s_k : (int)len;
}

static int mla_lengths(BenchSession *s, Mla *m)
{
    const BenchMla *p = m->p;
    int64_t b = p->batch;
    int rc = bench_tensor_alloc(s, &m->lens, bench_dtype("int32"), 1, &b);
    int32_t *lens = m->lens.host;
    for (int i = 0; !rc && i < p->batch; i++) {
        lens[i] = p->varlen ? varlen_length(s, p) : p->s_k;
        int np = (lens[i] + MLA_PAGE - 1) / MLA_PAGE;
        m->pages += np, m->tokens += lens[i];
        m->max_pages = np > m->max_pages ? np : m->max_pages;
    }
    return rc ? rc : bench_tensor_upload(s, &m->lens);
}

/* The requests' pages dealt in order from a shuffled pool; entries past a
 * request's pages point at page 0. */
static int mla_block_table(BenchSession *s, Mla *m)
{
    int64_t shape[2] = {m->p->batch, m->max_pages};
    int rc = bench_tensor_alloc(s, &m->table, bench_dtype("int32"), 2, shape);
    int32_t *pool = rc ? NULL : bench_shuffled(s, m->pages);
    if (!pool)
        return rc ? rc : TIRX_ERR_INTERNAL;
    int32_t *table = m->table.host;
    const int32_t *lens = m->lens.host;
    memset(table, 0, m->table.bytes);
    long long next = 0;
    for (int i = 0; i < m->p->batch; i++)
        for (int k = 0; k < (lens[i] + MLA_PAGE - 1) / MLA_PAGE; k++)
            table[(size_t)i * m->max_pages + k] = pool[next++];
    free(pool);
    return bench_tensor_upload(s, &m->table);
}

/* The tensors of FlashMLA's interface, inputs filled and uploaded. */
static int mla_tensors(BenchSession *s, Mla *m)
{
    const BenchMla *p = m->p;
    int rc = mla_lengths(s, m); /* m->pages from here on */
    if (!rc)
        rc = mla_block_table(s, m);
    const BenchDType *dt = bench_dtype(p->f16 ? "float16" : "bfloat16"),
                     *f32 = bench_dtype("float32"), *i32 = bench_dtype("int32");
    int64_t b = p->batch, rows = (int64_t)p->s_q * p->h_q, acc = b + m->parts;
    int64_t sq[4] = {b, p->s_q, p->h_q, MLA_DK}, skv[4] = {m->pages, MLA_PAGE, 1, MLA_DK};
    int64_t smeta[2] = {m->parts, MLA_META}, ssplit[1] = {b + 1};
    int64_t sout[4] = {b, p->s_q, p->h_q, MLA_DV}, slse[3] = {b, p->h_q, p->s_q};
    int64_t soacc[3] = {acc, rows, MLA_DV}, slacc[2] = {acc, rows};
    struct { BenchTensor *t; const BenchDType *dt; int ndim; const int64_t *shape; } all[] = {
        {&m->q, dt, 4, sq},          {&m->kv, dt, 4, skv},       {&m->meta, i32, 2, smeta},
        {&m->splits, i32, 1, ssplit}, {&m->out, dt, 4, sout},     {&m->lse, f32, 3, slse},
        {&m->oacc, f32, 3, soacc},   {&m->lacc, f32, 2, slacc},
    };
    for (size_t i = 0; !rc && i < sizeof all / sizeof all[0]; i++)
        rc = bench_tensor_alloc(s, all[i].t, all[i].dt, all[i].ndim, all[i].shape);
    if (!rc)
        rc = bench_tensor_init(s, &m->q, BENCH_RAND);
    if (!rc)
        rc = bench_tensor_init(s, &m->kv, BENCH_RAND);
    return rc;
}

/* The three calls' arguments, in the kernel's parameter order. */
static void mla_arguments(Mla *m)
{
    BenchTensor *meta[] = {&m->lens, &m->meta, &m->splits};
    BenchTensor *decode[] = {&m->q,   &m->kv,  &m->table, &m->lens, &m->meta,
                             &m->splits, &m->out, &m->lse, &m->oacc, &m->lacc};
    BenchTensor *combine[] = {&m->out, &m->lse, &m->oacc, &m->lacc, &m->splits};
    BenchMlaKernel *k = &m->k;
    for (size_t i = 0; i < 3; i++)
        k->metadata.args[i] = tirx_arg_tensor(&meta[i]->dl);
    for (size_t i = 0; i < 10; i++)
        k->decode.args[i] = tirx_arg_tensor(&decode[i]->dl);
    k->decode.args[10] = tirx_arg_float(1.0 / sqrt(MLA_DK));
    for (size_t i = 0; i < 5; i++)
        k->combine.args[i] = tirx_arg_tensor(&combine[i]->dl);
    k->metadata.nargs = 3, k->decode.nargs = 11, k->combine.nargs = 5;
}

/* ---- the float64 reference (shared) ---- */

int32_t *bench_shuffled(BenchSession *s, long long n)
{
    int32_t *v = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    if (!v) {
        fprintf(stderr, "tirx bench: out of host memory\n");
        return NULL;
    }
    for (long long i = 0; i < n; i++)
        v[i] = (int32_t)i;
    for (long long i = n - 1; i > 0; i--) {
        long long j = bench_below(&s->seed, i + 1);
        int32_t t = v[i];
        v[i] = v[j], v[j] = t;
    }
    return v;
}

int bench_mla_request(BenchSession *s, int k, int b)
{
    return k == 0 ? 0 : k == 1 ? b - 1 : (int)bench_below(&s->seed, b);
}

void bench_mla_row_start(BenchMlaRow *r, const BenchTensor *q, int bi, int si, int hi,
                         double sink)
{
    size_t at = (((size_t)bi * q->shape[1] + si) * q->shape[2] + hi) * MLA_DK;
    *r = (BenchMlaRow){.bi = bi, .si = si, .hi = hi, .sink = sink, .max = -INFINITY};
    for (int d = 0; d < MLA_DK; d++)
        r->q[d] = bench_decode(q->dtype, ((const uint16_t *)q->host)[at + d]);
}

void bench_mla_attend(BenchMlaRow *r, const double *kv)
{
    double acc = 0;
    for (int d = 0; d < MLA_DK; d++)
        acc += r->q[d] * kv[d];
    double score = acc / sqrt(MLA_DK);
    if (score > r->max) {
        double f = exp(r->max - score);
        r->sum *= f;
        for (int d = 0; d < MLA_DV; d++)
            r->out[d] *= f;
        r->max = score;
    }
    double e = exp(score - r->max);
    r->sum += e;
    for (int d = 0; d < MLA_DV; d++)
        r->out[d] += e * kv[d];
}

/* ---- the dense reference ---- */

/* The cache row of token t of request bi, decoded. */
static void cache_row(const Mla *m, int bi, int t, double *row)
{
    const int32_t *table = m->table.host;
    size_t page = (size_t)table[(size_t)bi * m->max_pages + t / MLA_PAGE];
    size_t at = (page * MLA_PAGE + (size_t)(t % MLA_PAGE)) * MLA_DK;
    for (int d = 0; d < MLA_DK; d++)
        row[d] = bench_decode(m->kv.dtype, ((const uint16_t *)m->kv.host)[at + d]);
}

/* Group g: rows of a request at random query tokens and heads, each over
 * the tokens it sees (causal: all but the last s_q - 1 - si). */
static int mla_reference(BenchSession *s, void *problem, int g, BenchMlaRow *rows)
{
    const Mla *m = problem;
    const BenchMla *p = m->p;
    int bi = bench_mla_request(s, g, p->batch), len = ((const int32_t *)m->lens.host)[bi];
    int visible[BENCH_MLA_CHECK_ROWS];
    for (int r = 0; r < BENCH_MLA_CHECK_ROWS; r++) {
        int si = (int)bench_below(&s->seed, p->s_q), hi = (int)bench_below(&s->seed, p->h_q);
        bench_mla_row_start(&rows[r], &m->q, bi, si, hi, -INFINITY);
        visible[r] = p->causal ? len - (p->s_q - 1 - si) : len;
    }
    double kv[MLA_DK];
    for (int t = 0; t < len; t++) {
        cache_row(m, bi, t, kv);
        for (int r = 0; r < BENCH_MLA_CHECK_ROWS; r++)
            if (t < visible[r])
                bench_mla_attend(&rows[r], kv);
    }
    return 0;
}

/* ---- the check and the timing (shared) ---- */

typedef struct MlaError {
    double num, den, lse;
    bool empty_wrong; /* a row that sees no token without lse = +inf and out = 0 */
} MlaError;

/* The kernel's out and lse of a row against its reference: the attention
 * divided by the sum and, with a sink, scaled by 1 / (1 + exp(sink - lse)).
 * lse is [b, h_q, s_q] (tirx's), or [b, s_q, h_q] (FlashMLA's) when
 * lse_by_query. */
static void compare(const BenchMlaRow *w, const BenchTensor *out, const BenchTensor *lse,
                    bool lse_by_query, MlaError *e)
{
    int64_t s_q = out->shape[1], h_q = out->shape[2];
    size_t at = (((size_t)w->bi * s_q + w->si) * h_q + w->hi) * MLA_DV;
    size_t at_lse = lse_by_query ? ((size_t)w->bi * s_q + w->si) * h_q + w->hi
                                 : ((size_t)w->bi * h_q + w->hi) * s_q + w->si;
    float got = ((const float *)lse->host)[at_lse];
    double ref_lse = w->max + log(w->sum), f = 1 / (1 + exp(w->sink - ref_lse));
    for (int d = 0; d < MLA_DV; d++) {
        double ref = w->sum > 0 ? w->out[d] / w->sum * f : 0;
        double x = bench_decode(out->dtype, ((const uint16_t *)out->host)[at + d]);
        e->num += isfinite(x) ? (x - ref) * (x - ref) : INFINITY;
        e->den += ref * ref;
    }
    if (w->sum == 0)
        e->empty_wrong |= !(isinf(got) && got > 0);
    else
        e->lse = fmax(e->lse, isfinite(got) ? fabs(got - ref_lse) : INFINITY);
}

/* The decode call: the main kernel, then the combine (a tirx_bench_fn). */
static tirx_status mla_call(void *user, void *stream, tirx_error *err)
{
    BenchMlaKernel *k = user;
    tirx_status st = bench_launch(&k->decode, stream, err);
    return st == TIRX_OK ? bench_launch(&k->combine, stream, err) : st;
}

/* One decode call (call(user, ...)) with out and lse poisoned (all bits
 * set), downloaded. */
static int poisoned_call(BenchSession *s, tirx_bench_fn call, void *user, BenchTensor *out,
                         BenchTensor *lse)
{
    tirx_error err;
    memset(out->host, 0xff, out->bytes);
    memset(lse->host, 0xff, lse->bytes);
    int rc = bench_tensor_upload(s, out);
    if (!rc)
        rc = bench_tensor_upload(s, lse);
    tirx_status st = rc ? TIRX_OK : call(user, NULL, &err);
    if (st != TIRX_OK)
        return bench_cuda_error(st, "the decode call", &err);
    if (!rc)
        rc = bench_tensor_download(s, out);
    return rc ? rc : bench_tensor_download(s, lse);
}

/* The sampled rows' errors. */
static int check_rows(BenchSession *s, BenchTensor *out, BenchTensor *lse, bool lse_by_query,
                      BenchMlaReference reference, void *problem, int groups, MlaError *e)
{
    BenchMlaRow *rows = calloc(BENCH_MLA_CHECK_ROWS, sizeof *rows);
    if (!rows) {
        fprintf(stderr, "tirx bench: out of host memory\n");
        return TIRX_ERR_INTERNAL;
    }
    int rc = 0;
    for (int g = 0; !rc && g < groups; g++) {
        rc = reference(s, problem, g, rows);
        for (int r = 0; !rc && r < BENCH_MLA_CHECK_ROWS; r++)
            compare(&rows[r], out, lse, lse_by_query, e);
    }
    free(rows);
    return rc;
}

/* The check's verdict on `who`'s call; the errors in *rel and *lse. */
static int verdict(const char *who, const char *label, const MlaError *e, int nrows, double *rel,
                   double *lse)
{
    *rel = e->den > 0 ? sqrt(e->num / e->den) : sqrt(e->num);
    *lse = e->empty_wrong ? INFINITY : e->lse;
    fprintf(stderr, "  check of %s against float64 (%d rows): out relative L2 error %.3g "
                    "(tolerance %g), lse max abs error %.3g (tolerance %g)\n",
            who, nrows, *rel, MLA_OUT_TOL, *lse, MLA_LSE_TOL);
    if (*rel <= MLA_OUT_TOL && *lse <= MLA_LSE_TOL)
        return 0;
    fprintf(stderr, "tirx bench: %s: %s's out or lse differs from the float64 reference; "
                    "no timing is reported for a wrong kernel\n", label, who);
    return TIRX_ERR_INPUT;
}

/* Checks one call of `call` against groups of reference rows, then times it
 * into *stats (bench_mla_measure, and FlashMLA's beside it). */
static int check_and_time(BenchSession *s, const char *who, tirx_bench_fn call, void *user,
                          BenchTensor *out, BenchTensor *lse, bool lse_by_query,
                          BenchMlaReference reference, void *problem, int groups, BenchRow *row,
                          double *rel, double *lse_error, tirx_bench_stats *stats)
{
    int rc = poisoned_call(s, call, user, out, lse);
    MlaError e = {0};
    if (!rc)
        rc = check_rows(s, out, lse, lse_by_query, reference, problem, groups, &e);
    if (!rc)
        rc = verdict(who, row->label, &e, groups * BENCH_MLA_CHECK_ROWS, rel, lse_error);
    return rc ? rc : bench_time_it(s, who, call, user, stats);
}

int bench_mla_measure(BenchSession *s, BenchMlaKernel *k, BenchTensor *out, BenchTensor *lse,
                      BenchMlaReference reference, void *problem, int groups, BenchRow *row)
{
    tirx_error err;
    tirx_status st = bench_launch(&k->metadata, NULL, &err);
    if (st != TIRX_OK)
        return bench_cuda_error(st, "the metadata", &err);
    row->checked = true;
    row->against = "float64 attention of sampled rows";
    row->tolerance = MLA_OUT_TOL;
    row->lse_tolerance = MLA_LSE_TOL;
    return check_and_time(s, "tirx", mla_call, k, out, lse, false, reference, problem, groups, row,
                          &row->rel_error, &row->lse_error, &row->tirx);
}

/* ---- FlashMLA beside tirx (shared) ---- */

static bool lookup(void *lib, const char *name, void *fn)
{
    void *p = dlsym(lib, name);
    memcpy(fn, &p, sizeof p); /* POSIX: a data pointer converts to a function pointer */
    return p != NULL;
}

int bench_flashmla_open(const char *path, BenchFlashmla *f)
{
    f->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!f->lib) {
        fprintf(stderr, "tirx bench: --flashmla %s: %s\n", path, dlerror());
        return TIRX_ERR_USAGE;
    }
    if (lookup(f->lib, TIRX_FLASHMLA_PREPARE, &f->prepare) &&
        lookup(f->lib, TIRX_FLASHMLA_RUN, &f->run) &&
        lookup(f->lib, TIRX_FLASHMLA_FREE, &f->release))
        return 0;
    fprintf(stderr, "tirx bench: --flashmla %s: not a libtirx_flashmla (it lacks %s, %s or %s)\n",
            path, TIRX_FLASHMLA_PREPARE, TIRX_FLASHMLA_RUN, TIRX_FLASHMLA_FREE);
    dlclose(f->lib);
    f->lib = NULL;
    return TIRX_ERR_USAGE;
}

/* FlashMLA's decode call (a tirx_bench_fn). */
static tirx_status flashmla_call(void *user, void *stream, tirx_error *err)
{
    BenchFlashmla *f = user;
    return f->run(f->plan, stream, err->message, sizeof err->message) ? TIRX_ERR_CUDA : TIRX_OK;
}

int bench_mla_flashmla(BenchSession *s, TirxFlashmlaProblem *p, BenchMlaReference reference,
                       void *problem, int groups, BenchRow *rows, int nrows)
{
    const BenchMla *m = &s->c->mla_problem;
    fprintf(stderr, "[FlashMLA] %s\n", rows[0].label);
    BenchFlashmla *f = &s->flashmla;
    BenchTensor out = {0}, lse = {0};
    int64_t sout[4] = {m->batch, m->s_q, m->h_q, MLA_DV}, slse[3] = {m->batch, m->s_q, m->h_q};
    int rc = bench_tensor_alloc(s, &out, bench_dtype(m->f16 ? "float16" : "bfloat16"), 4, sout);
    if (!rc)
        rc = bench_tensor_alloc(s, &lse, bench_dtype("float32"), 3, slse);
    if (!rc) {
        char why[512];
        p->abi = TIRX_FLASHMLA_ABI;
        p->out = out.dl.data, p->lse = lse.dl.data;
        f->plan = f->prepare(p, NULL, why, sizeof why);
        if (!f->plan) { /* what FlashMLA cannot take was refused with the options */
            fprintf(stderr, "tirx bench: --flashmla %s: %s\n", s->c->flashmla, why);
            rc = TIRX_ERR_CUDA;
        }
    }
    double rel, lse_error;
    if (!rc)
        rc = check_and_time(s, "FlashMLA", flashmla_call, f, &out, &lse, true, reference,
                            problem, groups, &rows[0], &rel, &lse_error, &rows[0].baseline);
    for (int v = 1; !rc && v < nrows; v++)
        rows[v].baseline = rows[0].baseline;
    for (int v = 0; !rc && v < nrows; v++)
        rows[v].has_baseline = true;
    if (f->plan)
        f->release(f->plan);
    f->plan = NULL;
    bench_tensor_free(s, &out);
    bench_tensor_free(s, &lse);
    return rc;
}

int bench_mla_trace(BenchSession *s, BenchMlaKernel *k, BenchMlaCompile compile, void *problem)
{
    if (!s->c->trace && !s->c->trace_svg)
        return 0;
    tirx_module_free(k->module);
    k->module = NULL;
    s->variant = 0;
    s->tracing = true;
    int rc = compile(s, problem);
    s->tracing = false;
    tirx_error err;
    tirx_status st = rc ? TIRX_OK : bench_launch(&k->metadata, NULL, &err);
    if (st != TIRX_OK)
        rc = bench_cuda_error(st, "the metadata", &err);
    return rc ? rc : bench_trace_launch(s, &k->decode, "the decode kernel");
}

int bench_mla_variants(BenchSession *s, BenchMlaKernel *k, BenchMlaCompile compile, void *problem,
                       BenchTensor *out, BenchTensor *lse, BenchMlaReference reference,
                       int groups, BenchRow *rows, int nrows, TirxFlashmlaProblem *baseline)
{
    const BenchConfig *c = s->c;
    char label[sizeof rows->label];
    snprintf(label, sizeof label, "%s", rows[0].label);
    int rc = 0;
    for (int v = 0; !rc && v < nrows; v++) {
        if (v > 0)
            rows[v] = rows[0];
        if (c->nvariants &&
            snprintf(rows[v].label, sizeof rows[v].label, "%s [%s]", label, c->variants[v]) >=
                (int)sizeof rows[v].label)
            strcpy(rows[v].label + sizeof rows[v].label - 5, "...]");
        if (v > 0) {
            fprintf(stderr, "[%d/%d] %s\n", v + 1, nrows, rows[v].label);
            tirx_module_free(k->module);
            k->module = NULL;
            s->variant = v;
            rc = compile(s, problem);
        }
        if (!rc)
            rc = bench_mla_measure(s, k, out, lse, reference, problem, groups, &rows[v]);
    }
    if (!rc && s->flashmla.lib)
        rc = bench_mla_flashmla(s, baseline, reference, problem, groups, rows, nrows);
    return rc ? rc : bench_mla_trace(s, k, compile, problem);
}

/* ---- the row ---- */

static int mla_compile_problem(BenchSession *s, void *m) { return mla_compile(s, m); }

static void mla_free(BenchSession *s, Mla *m)
{
    BenchTensor *all[] = {&m->q,   &m->kv,  &m->table, &m->lens, &m->meta,
                          &m->splits, &m->out, &m->lse, &m->oacc, &m->lacc};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        bench_tensor_free(s, all[i]);
    tirx_module_free(m->k.module);
}

static void mla_label(const BenchMla *p, BenchRow *row)
{
    snprintf(row->label, sizeof row->label, "mla b=%d s_q=%d h_q=%d s_k=%d%s%s%s", p->batch,
             p->s_q, p->h_q, p->s_k, p->varlen ? " varlen" : "", p->causal ? " causal" : "",
             p->f16 ? " fp16" : "");
}

/* FLOPs and bytes of one decode call. */
static void mla_work(const Mla *m, BenchRow *row)
{
    const BenchMla *p = m->p;
    double rows = (double)p->batch * p->s_q * p->h_q;
    row->flops = 2.0 * p->s_q * p->h_q * (double)m->tokens * (MLA_DK + MLA_DV);
    row->bytes = (double)m->pages * MLA_PAGE * MLA_DK * 2 + rows * (MLA_DK + MLA_DV) * 2 +
                 rows * 4;
}

int bench_mla_row(BenchSession *s, BenchRow *rows, int nrows)
{
    Mla m = {.p = &s->c->mla_problem};
    BenchRow *row = &rows[0];
    mla_label(m.p, row);
    fprintf(stderr, "[1/%d] %s%s%s%s\n", nrows, row->label, s->c->nvariants ? " [" : "",
            s->c->nvariants ? s->c->variants[0] : "", s->c->nvariants ? "]" : "");
    int rc = mla_compile(s, &m);
    if (!rc)
        rc = mla_tensors(s, &m);
    if (!rc) {
        mla_arguments(&m);
        mla_work(&m, row);
        fprintf(stderr, "  %lld cached tokens in %lld pages\n", m.tokens, m.pages);
        int groups = m.p->batch < BENCH_MLA_CHECK_GROUPS ? m.p->batch : BENCH_MLA_CHECK_GROUPS;
        TirxFlashmlaProblem fm = {
            .batch = m.p->batch, .s_q = m.p->s_q, .h_q = m.p->h_q, .pages = (int)m.pages,
            .max_pages = m.max_pages, .causal = m.p->causal, .f16 = m.p->f16,
            .scale = (float)(1.0 / sqrt(MLA_DK)),
            .q = m.q.dl.data, .kv = m.kv.dl.data, .block_table = m.table.dl.data,
            .seqlens = m.lens.dl.data,
        };
        rc = bench_mla_variants(s, &m.k, mla_compile_problem, &m, &m.out, &m.lse, mla_reference,
                                groups, rows, nrows, &fm);
    }
    mla_free(s, &m);
    return rc;
}
