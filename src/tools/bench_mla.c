/* `tirx bench mla`: the dense MLA decode (kernels/mla_decode_sm90.tirx, or
 * --kernel with its interface) as FlashMLA's benchmark runs it. The kernel
 * is compiled with -D S_Q, H_Q, CAUSAL and NUM_SMS (the GPU's); its inputs
 * are random: q and the paged cache uniform bfloat16 in [-1, 1), the pages
 * dealt to the requests from a shuffled pool, the lengths fixed or, with
 * --varlen, ~ N(s_k, s_k / 2) clipped to [s_q, 2 s_k]. The metadata kernel
 * runs once; the decode call (main kernel + combine) runs once with out and
 * lse poisoned and is checked against a float64 attention of the same
 * bfloat16 inputs on a sample of rows (a few heads and query tokens of a
 * few requests): out within MLA_OUT_TOL relative L2 error, lse within
 * MLA_LSE_TOL; a wrong kernel gets no number. Then the decode call is timed
 * (L2 flushed, at least 30 runs). Bytes per run: q, the cache pages read,
 * out and lse; FLOPs: 2 s_q h_q (576 + 512) per cached token of each
 * request. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum {
    MLA_DK = 576, MLA_DV = 512, MLA_PAGE = 64, MLA_META = 8,
    MLA_CHECK_REQUESTS = 8, MLA_CHECK_ROWS = 8 /* per request */
};

/* out: rounding the exact output to bfloat16 alone is about 1.7e-3 and the
 * bfloat16 P of P @ V adds about as much again, 2.0e-3 to 2.3e-3 together
 * (tests/gpu/kernel_mla_decode_sm90.c), where a softmax constant 10% off
 * gives 4e-2; lse is computed in float32 (errors below 1e-6). */
#define MLA_OUT_TOL 4e-3
#define MLA_LSE_TOL 1e-3

static const char *const mla_default_kernel = "kernels/mla_decode_sm90.tirx";

typedef struct Mla {
    const BenchMla *p;
    int parts, max_pages;
    long long pages, tokens; /* pages and tokens of all requests */
    BenchTensor q, kv, table, lens, meta, splits, out, lse, oacc, lacc;
    tirx_module *module;
    BenchLaunch metadata, decode, combine;
} Mla;

/* ---- compiling ---- */

static int mla_compile(BenchSession *s, Mla *m)
{
    const BenchConfig *c = s->c;
    tirx_device_info info;
    tirx_device_get_info(s->dev, &info);
    char sq[16], hq[16], sms[16];
    snprintf(sq, sizeof sq, "%d", m->p->s_q);
    snprintf(hq, sizeof hq, "%d", m->p->h_q);
    snprintf(sms, sizeof sms, "%d", info.sm_count);
    tirx_define defs[BENCH_MAX_DEFINES + 4];
    memcpy(defs, c->defines, c->ndefines * sizeof *defs);
    size_t n = c->ndefines;
    defs[n++] = (tirx_define){"S_Q", sq};
    defs[n++] = (tirx_define){"H_Q", hq};
    defs[n++] = (tirx_define){"CAUSAL", m->p->causal ? "True" : "False"};
    defs[n++] = (tirx_define){"NUM_SMS", sms};
    int rows = m->p->s_q * m->p->h_q, blocks = (rows + 63) / 64;
    m->parts = info.sm_count / blocks > 0 ? info.sm_count / blocks : 1;
    s->file = c->kernel ? c->kernel : mla_default_kernel;
    s->text = tool_read_input(s->file, TIRX_MAX_INPUT_SIZE_DEFAULT, &s->len);
    int rc = s->text ? bench_compile(s, defs, n, &m->module) : TIRX_ERR_INPUT;
    free(s->text);
    s->text = NULL;
    if (!rc)
        rc = bench_function(s, m->module, "mla_metadata", &m->metadata.fn);
    if (!rc)
        rc = bench_function(s, m->module, "mla_decode", &m->decode.fn);
    if (!rc)
        rc = bench_function(s, m->module, "mla_combine", &m->combine.fn);
    return rc;
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
    int32_t *pool = malloc(sizeof(int32_t) * (size_t)m->pages);
    if (!rc && !pool) {
        fprintf(stderr, "tirx bench: out of host memory\n");
        rc = TIRX_ERR_INTERNAL;
    }
    if (rc) {
        free(pool);
        return rc;
    }
    for (long long i = 0; i < m->pages; i++)
        pool[i] = (int32_t)i;
    for (long long i = m->pages - 1; i > 0; i--) {
        long long j = (long long)((bench_uniform(&s->seed) + 1) / 2 * (double)(i + 1));
        int32_t t = pool[i];
        pool[i] = pool[j], pool[j] = t;
    }
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
    const BenchDType *bf16 = bench_dtype("bfloat16"), *f32 = bench_dtype("float32"),
                     *i32 = bench_dtype("int32");
    int64_t b = p->batch, rows = (int64_t)p->s_q * p->h_q, acc = b + m->parts;
    int64_t sq[4] = {b, p->s_q, p->h_q, MLA_DK}, skv[4] = {m->pages, MLA_PAGE, 1, MLA_DK};
    int64_t smeta[2] = {m->parts, MLA_META}, ssplit[1] = {b + 1};
    int64_t sout[4] = {b, p->s_q, p->h_q, MLA_DV}, slse[3] = {b, p->h_q, p->s_q};
    int64_t soacc[3] = {acc, rows, MLA_DV}, slacc[2] = {acc, rows};
    struct { BenchTensor *t; const BenchDType *dt; int ndim; const int64_t *shape; } all[] = {
        {&m->q, bf16, 4, sq},        {&m->kv, bf16, 4, skv},     {&m->meta, i32, 2, smeta},
        {&m->splits, i32, 1, ssplit}, {&m->out, bf16, 4, sout},   {&m->lse, f32, 3, slse},
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
    for (size_t i = 0; i < 3; i++)
        m->metadata.args[i] = tirx_arg_tensor(&meta[i]->dl);
    for (size_t i = 0; i < 10; i++)
        m->decode.args[i] = tirx_arg_tensor(&decode[i]->dl);
    m->decode.args[10] = tirx_arg_float(1.0 / sqrt(MLA_DK));
    for (size_t i = 0; i < 5; i++)
        m->combine.args[i] = tirx_arg_tensor(&combine[i]->dl);
    m->metadata.nargs = 3, m->decode.nargs = 11, m->combine.nargs = 5;
}

/* ---- the check ---- */

/* The decode call: the main kernel, then the combine (a tirx_bench_fn). */
static tirx_status mla_call(void *user, void *stream, tirx_error *err)
{
    Mla *m = user;
    tirx_status st = bench_launch(&m->decode, stream, err);
    return st == TIRX_OK ? bench_launch(&m->combine, stream, err) : st;
}

static double bf16_at(const BenchTensor *t, size_t i)
{
    return bench_decode(t->dtype, ((const uint16_t *)t->host)[i]);
}

/* One sampled row of a request: its query token, head and reference. */
typedef struct MlaRow {
    int si, hi, visible;
    double q[MLA_DK], out[MLA_DV], max, sum;
    double *score; /* per visible token */
} MlaRow;

/* The cache row of token t of request bi, decoded. */
static void cache_row(const Mla *m, int bi, int t, double *row)
{
    const int32_t *table = m->table.host;
    size_t page = (size_t)table[(size_t)bi * m->max_pages + t / MLA_PAGE];
    size_t at = (page * MLA_PAGE + (size_t)(t % MLA_PAGE)) * MLA_DK;
    for (int d = 0; d < MLA_DK; d++)
        row[d] = bf16_at(&m->kv, at + (size_t)d);
}

/* Exact float64 attention of the rows of request bi: the scores in a first
 * pass over its tokens, P @ V in a second. */
static void reference(const Mla *m, int bi, MlaRow *rows, int n)
{
    const BenchMla *p = m->p;
    int len = ((const int32_t *)m->lens.host)[bi];
    double kv[MLA_DK];
    for (int r = 0; r < n; r++) {
        size_t at = (((size_t)bi * p->s_q + rows[r].si) * p->h_q + rows[r].hi) * MLA_DK;
        for (int d = 0; d < MLA_DK; d++)
            rows[r].q[d] = bf16_at(&m->q, at + (size_t)d);
        rows[r].visible = p->causal ? len - (p->s_q - 1 - rows[r].si) : len;
        rows[r].max = -INFINITY, rows[r].sum = 0;
        memset(rows[r].out, 0, sizeof rows[r].out);
    }
    for (int t = 0; t < len; t++) {
        cache_row(m, bi, t, kv);
        for (int r = 0; r < n; r++) {
            if (t >= rows[r].visible)
                continue;
            double acc = 0;
            for (int d = 0; d < MLA_DK; d++)
                acc += rows[r].q[d] * kv[d];
            rows[r].score[t] = acc / sqrt(MLA_DK);
            rows[r].max = fmax(rows[r].max, rows[r].score[t]);
        }
    }
    for (int t = 0; t < len; t++) {
        cache_row(m, bi, t, kv);
        for (int r = 0; r < n; r++) {
            if (t >= rows[r].visible)
                continue;
            double e = exp(rows[r].score[t] - rows[r].max);
            rows[r].sum += e;
            for (int d = 0; d < MLA_DV; d++)
                rows[r].out[d] += e * kv[d];
        }
    }
}

typedef struct MlaError {
    double num, den, lse;
    bool empty_wrong; /* a row that sees no token without lse = +inf and out = 0 */
} MlaError;

/* The kernel's out and lse of the rows of request bi against theirs. */
static void compare(const Mla *m, int bi, const MlaRow *rows, int n, MlaError *e)
{
    const BenchMla *p = m->p;
    const float *lse = m->lse.host;
    for (int r = 0; r < n; r++) {
        const MlaRow *w = &rows[r];
        size_t at = (((size_t)bi * p->s_q + w->si) * p->h_q + w->hi) * MLA_DV;
        float got = lse[((size_t)bi * p->h_q + w->hi) * p->s_q + w->si];
        for (int d = 0; d < MLA_DV; d++) {
            double ref = w->visible > 0 ? w->out[d] / w->sum : 0, x = bf16_at(&m->out, at + d);
            e->num += isfinite(x) ? (x - ref) * (x - ref) : INFINITY;
            e->den += ref * ref;
        }
        if (w->visible <= 0)
            e->empty_wrong |= !(isinf(got) && got > 0);
        else
            e->lse = fmax(e->lse, isfinite(got) ? fabs(got - (w->max + log(w->sum))) : INFINITY);
    }
}

/* Rows of MLA_CHECK_REQUESTS requests (the first, the last, others at
 * random), MLA_CHECK_ROWS random query tokens and heads of each. */
static int check_rows(BenchSession *s, Mla *m, MlaError *e)
{
    const BenchMla *p = m->p;
    const int32_t *lens = m->lens.host;
    int longest = 0;
    for (int i = 0; i < p->batch; i++)
        longest = lens[i] > longest ? lens[i] : longest;
    MlaRow *rows = calloc(MLA_CHECK_ROWS, sizeof *rows);
    double *scores = malloc(sizeof(double) * MLA_CHECK_ROWS * (size_t)longest);
    if (!rows || !scores) {
        free(rows), free(scores);
        fprintf(stderr, "tirx bench: out of host memory\n");
        return TIRX_ERR_INTERNAL;
    }
    for (int k = 0; k < MLA_CHECK_REQUESTS && k < p->batch; k++) {
        int bi = k == 0 ? 0 : k == 1 ? p->batch - 1
                                     : (int)((bench_uniform(&s->seed) + 1) / 2 * p->batch);
        for (int r = 0; r < MLA_CHECK_ROWS; r++) {
            rows[r].si = (int)((bench_uniform(&s->seed) + 1) / 2 * p->s_q);
            rows[r].hi = (int)((bench_uniform(&s->seed) + 1) / 2 * p->h_q);
            rows[r].score = scores + (size_t)r * longest;
        }
        reference(m, bi, rows, MLA_CHECK_ROWS);
        compare(m, bi, rows, MLA_CHECK_ROWS, e);
    }
    free(rows), free(scores);
    return 0;
}

/* One decode call with out and lse poisoned (all bits set), checked. */
static int mla_check(BenchSession *s, Mla *m, BenchRow *row)
{
    tirx_error err;
    memset(m->out.host, 0xff, m->out.bytes);
    memset(m->lse.host, 0xff, m->lse.bytes);
    int rc = bench_tensor_upload(s, &m->out);
    if (!rc)
        rc = bench_tensor_upload(s, &m->lse);
    tirx_status st = rc ? TIRX_OK : mla_call(m, NULL, &err);
    if (st != TIRX_OK)
        return bench_cuda_error(st, "mla_decode", &err);
    if (!rc)
        rc = bench_tensor_download(s, &m->out);
    if (!rc)
        rc = bench_tensor_download(s, &m->lse);
    MlaError e = {0};
    if (!rc)
        rc = check_rows(s, m, &e);
    if (rc)
        return rc;
    row->checked = true;
    row->against = "float64 attention of sampled rows";
    row->rel_error = e.den > 0 ? sqrt(e.num / e.den) : sqrt(e.num);
    row->tolerance = MLA_OUT_TOL;
    row->lse_error = e.empty_wrong ? INFINITY : e.lse;
    row->lse_tolerance = MLA_LSE_TOL;
    fprintf(stderr, "  check against float64 (%d rows): out relative L2 error %.3g (tolerance %g), "
                    "lse max abs error %.3g (tolerance %g)\n",
            MLA_CHECK_REQUESTS * MLA_CHECK_ROWS, row->rel_error, row->tolerance, row->lse_error,
            row->lse_tolerance);
    if (row->rel_error <= row->tolerance && row->lse_error <= row->lse_tolerance)
        return 0;
    fprintf(stderr, "tirx bench: %s: the kernel's out or lse differs from the float64 reference; "
                    "no timing is reported for a wrong kernel\n", row->label);
    return TIRX_ERR_INPUT;
}

/* ---- the row ---- */

static void mla_free(BenchSession *s, Mla *m)
{
    BenchTensor *all[] = {&m->q,   &m->kv,  &m->table, &m->lens, &m->meta,
                          &m->splits, &m->out, &m->lse, &m->oacc, &m->lacc};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        bench_tensor_free(s, all[i]);
    tirx_module_free(m->module);
}

static void mla_label(const BenchMla *p, BenchRow *row)
{
    snprintf(row->label, sizeof row->label, "mla b=%d s_q=%d h_q=%d s_k=%d%s%s", p->batch, p->s_q,
             p->h_q, p->s_k, p->varlen ? " varlen" : "", p->causal ? " causal" : "");
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

int bench_mla_row(BenchSession *s, BenchRow *row)
{
    Mla m = {.p = &s->c->mla_problem};
    mla_label(m.p, row);
    fprintf(stderr, "[1/1] %s\n", row->label);
    int rc = mla_compile(s, &m);
    if (!rc)
        rc = mla_tensors(s, &m);
    if (!rc) {
        mla_arguments(&m);
        mla_work(&m, row);
        fprintf(stderr, "  %lld cached tokens in %lld pages\n", m.tokens, m.pages);
        tirx_error err;
        tirx_status st = bench_launch(&m.metadata, NULL, &err);
        rc = st == TIRX_OK ? 0 : bench_cuda_error(st, "mla_metadata", &err);
    }
    if (!rc)
        rc = mla_check(s, &m, row);
    if (!rc)
        rc = bench_time_it(s, "tirx", mla_call, &m, &row->tirx);
    mla_free(s, &m);
    return rc;
}
