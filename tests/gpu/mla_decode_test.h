/* The test of FlashMLA's dense decode kernels (kernels/mla_decode_sm90.tirx
 * and kernels/mla_decode_sm100.tirx: the same interface), shared by
 * kernel_mla_decode_sm90.c and kernel_mla_decode_sm100.c, whose main calls
 * mla_decode_test: the metadata, split-KV main kernel and combine against
 * a float64 CPU reference of the bfloat16 (or float16: -D DTYPE=float16)
 * inputs, on fresh random inputs
 * with out and lse poisoned first: lse within 1e-3 (max absolute error over
 * finite values; a query that sees no token must give lse = +inf and out =
 * 0) and out within 2e-3 relative L2 error of a float64 run of the kernel's
 * algorithm (the splits of the GPU's metadata, the online softmax over
 * 64-token blocks, P rounded to bfloat16 for P @ V as in FlashMLA), and
 * within 3e-3 of the exact attention: rounding the exact output to bfloat16
 * alone is 1.7e-3 on these inputs, and the bfloat16 P adds 1.1e-3 to 1.6e-3
 * (2.0e-3 to 2.3e-3 together, for FlashMLA too). Cases: varlen lengths
 * including 0 (a request with nothing to attend to), 1, 63, 64, 65 and
 * non-multiples of 64, NaN in the cache rows past each length, shuffled
 * block tables, s_q 1 and 2 (causal), h_q 16, 64 and 128, bfloat16 and
 * float16, batches small
 * enough that requests are split over several parts and large enough that
 * parts hold several requests, and lengths past the block table (clamped
 * to it).
 *
 * With TIRX_MLA_BENCH=1 it also times the decode call (main kernel +
 * combine, metadata reused) at b = 128, s_k = 8192, page 64: CUDA events,
 * L2 flushed before each run, the median of at least 30 runs, reported as
 * TB/s of KV, Q and output bytes and TFLOP/s = 2 b s_q h_q s_k (576 + 512)
 * / t.
 * Skips (77) without a GPU or on a device of another architecture. In the
 * simulator (OP_SIM) the machine has 8 SMs and the requests are short. */
#ifndef TIRX_TEST_MLA_DECODE_TEST_H
#define TIRX_TEST_MLA_DECODE_TEST_H

#include "op_kernel.h"

#include <math.h>

enum { DK = 576, DV = 512, PAGE = 64 };

/* The kernel under test and the SM count it is compiled for (mla_decode_test). */
static const char *mla_kernel;
static int mla_sms;

static const double LOG2E = 1.4426950408889634;

/* One problem: its sizes, host inputs and device tensors. */
typedef struct Problem {
    int b, s_q, h_q, pages, max_pages, parts;
    bool f16; /* q, the cache and out are float16 (else bfloat16) */
    int *seqlens, *table;
    uint16_t *q, *kv;
    float *qf, *kvf; /* the same values as float, for the references */
    float scale;
    OpTensor Q, KV, Table, Lens, Meta, Splits, Out, Lse, OAcc, LseAcc;
    tirx_module *m;
    tirx_arg decode_args[11], combine_args[5];
} Problem;

static int parts_of(int s_q, int h_q)
{
    int m_blocks = (s_q * h_q + 63) / 64;
    return mla_sms / m_blocks > 0 ? mla_sms / m_blocks : 1;
}

static void shuffle(GpuRng *rng, int *x, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(gpu_next(rng) % (uint64_t)(i + 1)), t = x[i];
        x[i] = x[j], x[j] = t;
    }
}

/* Random q and cache, the requests' pages dealt out of a shuffled pool
 * (unused table entries point at page 0). The rows of a request's last
 * page past its length are NaN (a kernel must not let them reach P @ V,
 * where P is 0). With cap > 0 the block table holds only the first cap
 * pages of each request, and longer lengths are clamped. */
static void problem_init(tirx_device *gpu, tirx_module *m, GpuRng *rng, Problem *p, int b,
                         int s_q, int h_q, const int *lens, int cap, bool f16)
{
    memset(p, 0, sizeof *p);
    p->b = b, p->s_q = s_q, p->h_q = h_q, p->parts = parts_of(s_q, h_q), p->f16 = f16;
    p->seqlens = malloc(sizeof(int) * b);
    for (int i = 0; i < b; i++) {
        p->seqlens[i] = lens[i];
        int np = (lens[i] + PAGE - 1) / PAGE;
        p->pages += np;
        p->max_pages = np > p->max_pages ? np : p->max_pages;
    }
    p->pages += 1, p->max_pages = cap > 0 ? cap : p->max_pages + 1;
    int *pool = malloc(sizeof(int) * p->pages);
    for (int i = 0; i < p->pages; i++)
        pool[i] = i;
    shuffle(rng, pool, p->pages);
    p->table = calloc((size_t)b * p->max_pages, sizeof(int));
    GPU_CHECK(p->seqlens && pool && p->table, "host memory");
    for (int i = 0, next = 0; i < b; i++)
        for (int k = 0; k < (lens[i] + PAGE - 1) / PAGE; k++, next++)
            if (k < p->max_pages)
                p->table[(size_t)i * p->max_pages + k] = pool[next];
    free(pool);
    size_t nq = (size_t)b * s_q * h_q * DK, nkv = (size_t)p->pages * PAGE * DK;
    p->q = malloc(nq * 2), p->kv = malloc(nkv * 2);
    GPU_CHECK(p->q && p->kv, "host memory");
    p->qf = malloc(nq * 4), p->kvf = malloc(nkv * 4);
    GPU_CHECK(p->qf && p->kvf, "host memory");
    uint16_t (*to16)(float) = f16 ? op_f32_to_f16 : op_f32_to_bf16;
    float (*from16)(uint16_t) = f16 ? op_f16_to_f32 : op_bf16_to_f32;
    for (size_t i = 0; i < nq; i++)
        p->qf[i] = from16(p->q[i] = to16(gpu_uniform(rng)));
    for (size_t i = 0; i < nkv; i++)
        p->kvf[i] = from16(p->kv[i] = to16(gpu_uniform(rng)));
    for (int i = 0; i < b; i++)
        for (int t = lens[i]; t % PAGE != 0 && t / PAGE < p->max_pages; t++) {
            size_t row = ((size_t)p->table[(size_t)i * p->max_pages + t / PAGE] * PAGE + t % PAGE) * DK;
            for (int d = 0; d < DK; d++)
                p->kv[row + d] = f16 ? 0x7E00 : 0x7FC0, p->kvf[row + d] = NAN;
        }
    p->scale = 1.0f / sqrtf((float)DK);
    int64_t sq[4] = {b, s_q, h_q, DK}, skv[4] = {p->pages, PAGE, 1, DK};
    int64_t stab[2] = {b, p->max_pages}, slen[1] = {b}, smeta[2] = {p->parts, 8};
    int64_t ssplit[1] = {b + 1}, sout[4] = {b, s_q, h_q, DV}, slse[3] = {b, h_q, s_q};
    int64_t soacc[3] = {b + p->parts, s_q * h_q, DV}, slacc[2] = {b + p->parts, s_q * h_q};
    uint8_t code = f16 ? kDLFloat : kDLBfloat;
    op_tensor_nd(gpu, &p->Q, 4, sq, code, 16);
    op_tensor_nd(gpu, &p->KV, 4, skv, code, 16);
    op_tensor_nd(gpu, &p->Table, 2, stab, kDLInt, 32);
    op_tensor_nd(gpu, &p->Lens, 1, slen, kDLInt, 32);
    op_tensor_nd(gpu, &p->Meta, 2, smeta, kDLInt, 32);
    op_tensor_nd(gpu, &p->Splits, 1, ssplit, kDLInt, 32);
    op_tensor_nd(gpu, &p->Out, 4, sout, code, 16);
    op_tensor_nd(gpu, &p->Lse, 3, slse, kDLFloat, 32);
    op_tensor_nd(gpu, &p->OAcc, 3, soacc, kDLFloat, 32);
    op_tensor_nd(gpu, &p->LseAcc, 2, slacc, kDLFloat, 32);
    op_upload(gpu, &p->Q, p->q), op_upload(gpu, &p->KV, p->kv);
    op_upload(gpu, &p->Table, p->table), op_upload(gpu, &p->Lens, p->seqlens);
    op_poison(gpu, &p->Out), op_poison(gpu, &p->Lse), op_poison(gpu, &p->OAcc), op_poison(gpu, &p->LseAcc);
    op_poison(gpu, &p->Meta), op_poison(gpu, &p->Splits);
    p->m = m;
    tirx_arg a[] = {tirx_arg_tensor(&p->Q.t),     tirx_arg_tensor(&p->KV.t),
                    tirx_arg_tensor(&p->Table.t), tirx_arg_tensor(&p->Lens.t),
                    tirx_arg_tensor(&p->Meta.t),  tirx_arg_tensor(&p->Splits.t),
                    tirx_arg_tensor(&p->Out.t),   tirx_arg_tensor(&p->Lse.t),
                    tirx_arg_tensor(&p->OAcc.t),  tirx_arg_tensor(&p->LseAcc.t),
                    tirx_arg_float(p->scale)};
    tirx_arg c[] = {tirx_arg_tensor(&p->Out.t), tirx_arg_tensor(&p->Lse.t),
                    tirx_arg_tensor(&p->OAcc.t), tirx_arg_tensor(&p->LseAcc.t),
                    tirx_arg_tensor(&p->Splits.t)};
    memcpy(p->decode_args, a, sizeof a);
    memcpy(p->combine_args, c, sizeof c);
}

static void problem_free(tirx_device *gpu, Problem *p)
{
    OpTensor *all[] = {&p->Q, &p->KV, &p->Table, &p->Lens, &p->Meta,
                     &p->Splits, &p->Out, &p->Lse, &p->OAcc, &p->LseAcc};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        op_free(gpu, all[i]);
    free(p->seqlens), free(p->table), free(p->q), free(p->kv), free(p->qf), free(p->kvf);
}

static void run_metadata(Problem *p)
{
    tirx_arg a[] = {tirx_arg_tensor(&p->Lens.t), tirx_arg_tensor(&p->Meta.t),
                    tirx_arg_tensor(&p->Splits.t)};
    op_launch_args(p->m, "mla_metadata", a, 3);
}

/* The decode call: the main kernel, then the combine. */
static void run_decode(Problem *p)
{
    op_launch_args(p->m, "mla_decode", p->decode_args, 11);
    op_launch_args(p->m, "mla_combine", p->combine_args, 5);
}

/* A request's length as the kernel takes it: clamped to the block table. */
static int length(const Problem *p, int bi)
{
    int len = p->seqlens[bi];
    return len < p->max_pages * PAGE ? len : p->max_pages * PAGE;
}

static const float *cache_row(const Problem *p, int bi, int t)
{
    int page = p->table[(size_t)bi * p->max_pages + t / PAGE];
    return p->kvf + ((size_t)page * PAGE + t % PAGE) * DK;
}

/* The scaled scores q . k * scale of one query row over its visible tokens
 * (their count returned; at most the request's length). */
static int scores(const Problem *p, int bi, int si, int hi, double *s)
{
    int visible = length(p, bi) - (p->s_q - 1 - si);
    const float *qr = p->qf + (((size_t)bi * p->s_q + si) * p->h_q + hi) * DK;
    for (int t = 0; t < visible; t++) {
        const float *kr = cache_row(p, bi, t);
        double acc = 0;
        for (int d = 0; d < DK; d++)
            acc += (double)qr[d] * kr[d];
        s[t] = acc * p->scale;
    }
    return visible > 0 ? visible : 0;
}

/* Exact float64 attention of one row: out[DV] and the natural-log lse
 * (+inf when no token is visible, out 0). */
static double exact_row(const Problem *p, int bi, const double *s, int visible, double *out)
{
    double mx = -INFINITY, sum = 0;
    for (int d = 0; d < DV; d++)
        out[d] = 0;
    for (int t = 0; t < visible; t++)
        mx = s[t] > mx ? s[t] : mx;
    for (int t = 0; t < visible; t++) {
        const float *kr = cache_row(p, bi, t);
        double e = exp(s[t] - mx);
        sum += e;
        for (int d = 0; d < DV; d++)
            out[d] += e * kr[d];
    }
    if (visible == 0)
        return INFINITY;
    for (int d = 0; d < DV; d++)
        out[d] /= sum;
    return mx + log(sum);
}

/* The cache row of token t of request bi, for op_mla_emulate_part. */
typedef struct RowOf {
    const Problem *p;
    int bi;
} RowOf;

static const double *row_value(const void *ctx, int t, double *buf)
{
    const RowOf *r = ctx;
    const float *v = cache_row(r->p, r->bi, t);
    for (int d = 0; d < DV; d++)
        buf[d] = v[d];
    return buf;
}


/* The row through the kernel's splits (the parts of `meta` that hold
 * request bi) and the combine's weights, in float64. */
static void emulate_row(const Problem *p, const int *meta, int bi, const double *s, int visible,
                        double *out)
{
    double part[DV], lse2[160], hi = -INFINITY;
    double *outs = malloc(sizeof(double) * DV * 160);
    int n = 0;
    GPU_CHECK(outs != NULL, "host memory");
    for (int pp = 0; pp < p->parts; pp++) {
        const int *mp = meta + pp * 8;
        if (bi < mp[0] || bi > mp[3])
            continue;
        int b0 = bi == mp[0] ? mp[1] : 0, b1 = (length(p, bi) + PAGE - 1) / PAGE;
        b1 = bi == mp[3] && mp[4] < b1 ? mp[4] : b1;
        GPU_CHECK(n < 160, "at most 160 splits of a request");
        RowOf r = {p, bi};
        lse2[n] = op_mla_emulate_part(s, visible, PAGE, b0, b1, DV, row_value, &r, p->f16, part);
        memcpy(outs + (size_t)n * DV, part, sizeof part);
        hi = fmax(hi, lse2[n++]);
    }
    GPU_CHECK(n >= 1, "every request is held by a part");
    double total = 0;
    hi = isinf(hi) ? 0 : hi;
    for (int i = 0; i < n; i++)
        total += exp2(lse2[i] - hi);
    double glse = total > 0 ? log2(total) + hi : INFINITY;
    for (int d = 0; d < DV; d++) {
        out[d] = 0;
        for (int i = 0; i < n; i++)
            out[d] += exp2(lse2[i] - glse) * outs[(size_t)i * DV + d];
    }
    free(outs);
}

/* The kernel built for s_q, h_q and the element type (f16). */
static void mla_build(OpBuild *b, int s_q, int h_q, bool f16)
{
    char v[16];
    *b = (OpBuild){.rel = mla_kernel};
    snprintf(v, sizeof v, "%d", s_q), op_build_define(b, "S_Q", v);
    snprintf(v, sizeof v, "%d", h_q), op_build_define(b, "H_Q", v);
    snprintf(v, sizeof v, "%d", mla_sms), op_build_define(b, "NUM_SMS", v);
    op_build_define(b, "DTYPE", f16 ? "\"float16\"" : "\"bfloat16\"");
}

/* Runs module m (the kernel built for s_q, h_q, f16) on b requests of the
 * given lengths and checks it against float64. */
static void check(tirx_device *gpu, tirx_module *m, GpuRng *rng, int b, int s_q, int h_q,
                  const int *lens, int cap, bool f16)
{
    printf("%s: mla_decode b=%d s_q=%d h_q=%d%s%s:\n", mla_kernel, b, s_q, h_q,
           f16 ? " float16" : "", cap ? " (lengths past the table)" : "");
    Problem p;
    problem_init(gpu, m, rng, &p, b, s_q, h_q, lens, cap, f16);
    run_metadata(&p);
    run_decode(&p);
    size_t nout = (size_t)b * s_q * h_q * DV, nlse = (size_t)b * h_q * s_q;
    int longest = 0;
    for (int i = 0; i < b; i++)
        longest = lens[i] > longest ? lens[i] : longest;
    uint16_t *out = malloc(nout * 2);
    float *lse = malloc(nlse * 4);
    double *ref = malloc(nout * 8), *emu = malloc(nout * 8), *s = malloc(sizeof(double) * longest);
    int *meta = malloc(sizeof(int) * 8 * p.parts);
    GPU_CHECK(out && lse && ref && emu && s && meta, "host memory");
    op_download(gpu, &p.Out, out);
    op_download(gpu, &p.Lse, lse);
    op_download(gpu, &p.Meta, meta);
    OpMlaCheck verdict = {.algorithm = f16 ? "the float16-P algorithm" : "the bfloat16-P algorithm",
                          .empty_row = "a query that sees no token has lse +inf",
                          .expect_empty = -1, .f16 = f16};
    for (int bi = 0; bi < b; bi++)
        for (int si = 0; si < s_q; si++)
            for (int hi = 0; hi < h_q; hi++) {
                size_t row = ((size_t)bi * s_q + si) * h_q + hi;
                int visible = scores(&p, bi, si, hi, s);
                double l = exact_row(&p, bi, s, visible, ref + row * DV);
                emulate_row(&p, meta, bi, s, visible, emu + row * DV);
                op_mla_check_lse(&verdict, lse[((size_t)bi * h_q + hi) * s_q + si], l);
            }
    op_mla_check_out(&verdict, out, ref, emu, nout);
    free(out), free(lse), free(ref), free(emu), free(s), free(meta);
    problem_free(gpu, &p);
}

/* Lengths: the given ones first, then random ones in [1, max]. */
static int *lengths(GpuRng *rng, int b, const int *first, int nfirst, int max)
{
    int *l = malloc(sizeof(int) * b);
    GPU_CHECK(l != NULL, "host memory");
    for (int i = 0; i < b; i++)
        l[i] = i < nfirst ? first[i] : 1 + (int)(gpu_next(rng) % (uint64_t)max);
    return l;
}

static tirx_status decode_on(void *user, void *stream, tirx_error *err)
{
    Problem *p = user;
    tirx_status st = tirx_launch(op_function(p->m, "mla_decode"), p->decode_args, 11, stream, err);
    return st != TIRX_OK ? st
                         : tirx_launch(op_function(p->m, "mla_combine"), p->combine_args, 5, stream,
                                       err);
}

/* Times the decode call (main kernel + combine, metadata reused) at
 * b = 128, s_k = 8192 with tirx_bench_time: L2 flushed before each run,
 * CUDA events, at least 30 runs, the median. */
static void bench(tirx_device *gpu, GpuRng *rng, int s_q, int h_q)
{
    enum { B = 128, SK = 8192 };
    char vs[16], vh[16];
    snprintf(vs, 16, "%d", s_q), snprintf(vh, 16, "%d", h_q);
    tirx_define d[] = {{"S_Q", vs}, {"H_Q", vh}};
    tirx_module *m = op_compile_variant(gpu, mla_kernel, d, 2);
    int lens[B];
    for (int i = 0; i < B; i++)
        lens[i] = SK;
    Problem p;
    problem_init(gpu, m, rng, &p, B, s_q, h_q, lens, 0, false);
    run_metadata(&p);
    tirx_error err;
    tirx_bench_options o = {.min_reps = 30};
    tirx_bench_stats st;
    op_ok(tirx_bench_time(gpu, decode_on, &p, &o, &st, &err), &err, "tirx_bench_time");
    double t = st.median_ms * 1e-3;
    double bytes = (double)B * SK * DK * 2 + (double)B * s_q * h_q * (DK + DV) * 2;
    double flops = 2.0 * B * s_q * h_q * SK * (DK + DV);
    printf("bench mla_decode b=%d s_q=%d h_q=%d s_k=%d: %.1f us (median of %d), %.2f TB/s, "
           "%.0f TFLOP/s\n",
           B, s_q, h_q, SK, t * 1e6, st.reps, bytes / t * 1e-12, flops / t * 1e-12);
    problem_free(gpu, &p);
    tirx_module_free(m);
}

/* Runs the cases on `kernel` (a path under the source tree), compiled for
 * `sms` SMs, on a device that `need` admits (else exits 77 saying `why`). */
static int mla_decode_test(OpGpuNeed need, const char *why, const char *kernel, int sms)
{
    mla_kernel = kernel, mla_sms = sms;
    tirx_device *gpu = op_open_gpu(need, why);
    GpuRng rng = gpu_rng();
    const int edge[] = {1, 63, 64, 65, 0, 1000, 200, 129};
    /* b, s_q, h_q, how many of the edge lengths come first, the longest
     * random length, the block table's width (0: wide enough), float16 */
    typedef struct { int b, s_q, h_q, nedge, max, cap; bool f16; } Case;
    const Case gpu_cases[] = {
        {8, 1, 16, 8, 4096, 0, false},  {8, 1, 64, 4, 2000, 0, false},
        {8, 1, 128, 8, 1500, 0, false}, {8, 2, 16, 4, 3000, 0, false},
        {8, 2, 64, 8, 1000, 0, false},  {8, 2, 128, 4, 700, 0, false},
        {37, 1, 128, 8, 300, 0, false}, {2, 1, 64, 0, 20000, 0, false},
        {3, 2, 128, 1, 9000, 0, false}, {6, 2, 64, 4, 3000, 20, false},
        {8, 2, 64, 8, 1000, 0, true},   {8, 1, 128, 4, 1500, 0, true},
    };
    /* split requests, parts holding several requests, causal s_q 2, a clamped table,
     * two and four CTAs of 64 query rows per part, an empty request, parts with
     * several pairs of blocks of one request, float16 */
    const Case sim_cases[] = {{4, 1, 16, 4, 300, 0, false}, {4, 2, 64, 4, 130, 0, false},
                              {3, 2, 16, 2, 400, 2, false}, {3, 1, 128, 3, 300, 0, false},
                              {2, 2, 128, 2, 150, 0, false}, {5, 2, 64, 5, 100, 0, false},
                              {2, 1, 16, 0, 3000, 0, false}, {4, 2, 64, 4, 200, 0, true}};
    const Case *cases = OP_SIZE(gpu_cases, sim_cases);
    size_t ncases = OP_SIZE(sizeof gpu_cases, sizeof sim_cases) / sizeof(Case);
    /* each configuration built once, all at once; built[of[i]] is case i's */
    OpBuild built[16];
    size_t of[16], nbuilt = 0;
    GPU_CHECK(ncases <= 16, "at most 16 cases");
    for (size_t i = 0; i < ncases; i++) {
        size_t k = 0;
        while (k < i && (cases[k].s_q != cases[i].s_q || cases[k].h_q != cases[i].h_q ||
                         cases[k].f16 != cases[i].f16))
            k++;
        if (k == i)
            mla_build(&built[of[i] = nbuilt++], cases[i].s_q, cases[i].h_q, cases[i].f16);
        else
            of[i] = of[k];
    }
    op_compile_all(gpu, built, nbuilt);
    for (size_t i = 0; i < ncases; i++) {
        int *l = lengths(&rng, cases[i].b, edge, cases[i].nedge, cases[i].max);
        check(gpu, built[of[i]].m, &rng, cases[i].b, cases[i].s_q, cases[i].h_q, l,
              cases[i].cap, cases[i].f16);
        free(l);
    }
    for (size_t i = 0; i < nbuilt; i++)
        tirx_module_free(built[i].m);
    const char *b = getenv("TIRX_MLA_BENCH");
    if (!OP_SIM && b && strcmp(b, "0")) {
        bench(gpu, &rng, 1, 64);
        bench(gpu, &rng, 1, 128);
        bench(gpu, &rng, 2, 128);
    }
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}

#endif
