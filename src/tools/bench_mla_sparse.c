/* `tirx bench mla --topk N`: the sparse fp8 MLA decode
 * (kernels/mla_sparse_fp8_sm90.tirx, or --kernel with its interface) as
 * FlashMLA's benchmark runs it. The kernel is compiled with -D S_Q, H_Q,
 * ATTN_SINK and NUM_SMS (the GPU's). The inputs: a paged cache of s_k tokens
 * per request in DeepSeek V3.2's 656-byte format (random e4m3 codes without
 * NaN, per-128 float32 scales around 1/448, bfloat16 rope values in
 * [-1, 1)), each request's pages dealt from a shuffled pool; each query
 * token's top-k list holds distinct random tokens of its request as
 * positions in the flattened cache (-1 past s_k when top-k > s_k, as
 * FlashMLA pads); q uniform bfloat16 in [-1, 1); with --sink, head h's sink
 * around ln(min(top-k, s_k)). The metadata runs once, then the decode call
 * is checked and timed as the dense row's (bench_mla.c), the reference
 * attending to the dequantized cache values bfloat16(e4m3 * bfloat16(scale))
 * the kernel computes. FLOPs: 2 b s_q h_q topk (576 + 512); bytes: q, the
 * indices, each listed token's 656 bytes once per (request, query token),
 * out and lse. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { DK = BENCH_MLA_DK, DV = BENCH_MLA_DV, PAGE = 64, TOKEN = 656, ROPE = 64, META = 8 };

static const char *const sparse_default_kernel = "kernels/mla_sparse_fp8_sm90.tirx";

typedef struct Sparse {
    const BenchMla *p;
    int parts, request_pages; /* pages of one request */
    long long pages, gathered; /* cache pages; listed tokens of all queries (not padding) */
    BenchTensor q, kv, idx, meta, splits, out, lse, oacc, lacc, sink;
    BenchMlaKernel k;
    const BenchDType *bf16;
    float e4m3[256]; /* the codes' values */
} Sparse;

static int sparse_compile(BenchSession *s, Sparse *sp)
{
    tirx_device_info info;
    tirx_device_get_info(s->dev, &info);
    char sq[16], hq[16], sms[16];
    snprintf(sq, sizeof sq, "%d", sp->p->s_q);
    snprintf(hq, sizeof hq, "%d", sp->p->h_q);
    snprintf(sms, sizeof sms, "%d", info.sm_count);
    const tirx_define defs[] = {{"S_Q", sq}, {"H_Q", hq},
                                {"ATTN_SINK", sp->p->sink ? "True" : "False"}, {"NUM_SMS", sms}};
    int ctas = sp->p->s_q * (sp->p->h_q / 64); /* per part */
    sp->parts = info.sm_count / ctas > 0 ? info.sm_count / ctas : 1;
    static const char *const names[3] = {"mla_sparse_metadata", "mla_sparse_decode",
                                         "mla_sparse_combine"};
    return bench_mla_compile(s, sparse_default_kernel, defs, 4, names, &sp->k);
}

/* ---- the inputs ---- */

/* The cache: per token 512 e4m3 codes (eight per random word; the NaN codes
 * 0x7f and 0xff become 0x7e and 0xfe), 4 float32 scales in [1, 1.5) / 448
 * and 64 bfloat16 rope values k / 128 (k uniform in [-128, 128), eight per
 * word: exact in bfloat16). */
static void fill_cache(BenchSession *s, Sparse *sp)
{
    uint16_t rope_of[256];
    for (int c = 0; c < 256; c++)
        rope_of[c] = (uint16_t)bench_encode(sp->bf16, (int8_t)c / 128.0);
    uint8_t *row = sp->kv.host;
    for (long long t = 0; t < sp->pages * PAGE; t++, row += TOKEN) {
        for (int d = 0; d < DV; d += 8) {
            uint64_t r = bench_random(&s->seed);
            for (int i = 0; i < 8; i++) {
                uint8_t c = (uint8_t)(r >> 8 * i);
                row[d + i] = (c & 0x7f) == 0x7f ? c ^ 1 : c;
            }
        }
        float scales[DV / 128];
        for (int i = 0; i < DV / 128; i++)
            scales[i] = (float)((1.25 + bench_uniform(&s->seed) / 4) / 448);
        memcpy(row + DV, scales, sizeof scales);
        uint16_t rope[ROPE];
        for (int d = 0; d < ROPE; d += 8) {
            uint64_t r = bench_random(&s->seed);
            for (int i = 0; i < 8; i++)
                rope[d + i] = rope_of[(uint8_t)(r >> 8 * i)];
        }
        memcpy(row + DV + sizeof scales, rope, sizeof rope);
    }
}

/* Each query's list: min(topk, s_k) distinct tokens of its request (a
 * partial shuffle of the request's positions), then -1; a position t of
 * request bi is page pool[bi * request_pages + t / 64], row t % 64. */
static int fill_indices(BenchSession *s, Sparse *sp)
{
    const BenchMla *p = sp->p;
    int32_t *pool = bench_shuffled(s, sp->pages), *perm = bench_shuffled(s, p->s_k);
    if (!pool || !perm) {
        free(pool), free(perm);
        return TIRX_ERR_INTERNAL;
    }
    int32_t *list = sp->idx.host;
    for (int bi = 0; bi < p->batch; bi++)
        for (int si = 0; si < p->s_q; si++, list += p->topk)
            for (int k = 0; k < p->topk; k++) {
                if (k >= p->s_k) {
                    list[k] = -1;
                    continue;
                }
                long long j = k + bench_below(&s->seed, p->s_k - k);
                int32_t t = perm[j];
                perm[j] = perm[k], perm[k] = t;
                list[k] = pool[(size_t)bi * sp->request_pages + t / PAGE] * PAGE + t % PAGE;
            }
    free(pool), free(perm);
    int listed = p->topk < p->s_k ? p->topk : p->s_k;
    sp->gathered = (long long)p->batch * p->s_q * listed;
    return 0;
}

/* Head h's sink: ln(min(topk, s_k)) + u, u uniform in [-2, 2) (the sum of
 * exp of a list's scores is about min(topk, s_k)), so that it takes a
 * visible share; zeros when not used. */
static void fill_sinks(BenchSession *s, Sparse *sp)
{
    const BenchMla *p = sp->p;
    float *sink = sp->sink.host;
    double lse = log(p->topk < p->s_k ? p->topk : p->s_k);
    for (int h = 0; h < p->h_q; h++)
        sink[h] = p->sink ? (float)(lse + 2 * bench_uniform(&s->seed)) : 0;
}

/* The tensors of the kernel's interface, inputs filled and uploaded. */
static int sparse_tensors(BenchSession *s, Sparse *sp)
{
    const BenchMla *p = sp->p;
    sp->request_pages = (p->s_k + PAGE - 1) / PAGE;
    sp->pages = (long long)p->batch * sp->request_pages;
    const BenchDType *f32 = bench_dtype("float32"), *i32 = bench_dtype("int32"),
                     *u8 = bench_dtype("uint8");
    int64_t b = p->batch, rows = (int64_t)p->s_q * p->h_q, acc = b + sp->parts;
    int64_t sq[4] = {b, p->s_q, p->h_q, DK}, skv[4] = {sp->pages, PAGE, 1, TOKEN};
    int64_t sidx[3] = {b, p->s_q, p->topk}, smeta[2] = {sp->parts, META}, ssplit[1] = {b + 1};
    int64_t sout[4] = {b, p->s_q, p->h_q, DV}, slse[3] = {b, p->h_q, p->s_q};
    int64_t soacc[3] = {acc, rows, DV}, slacc[2] = {acc, rows}, ssink[1] = {p->h_q};
    struct { BenchTensor *t; const BenchDType *dt; int ndim; const int64_t *shape; } all[] = {
        {&sp->q, sp->bf16, 4, sq},     {&sp->kv, u8, 4, skv},       {&sp->idx, i32, 3, sidx},
        {&sp->meta, i32, 2, smeta},    {&sp->splits, i32, 1, ssplit}, {&sp->out, sp->bf16, 4, sout},
        {&sp->lse, f32, 3, slse},      {&sp->oacc, f32, 3, soacc},  {&sp->lacc, f32, 2, slacc},
        {&sp->sink, f32, 1, ssink},
    };
    int rc = 0;
    for (size_t i = 0; !rc && i < sizeof all / sizeof all[0]; i++)
        rc = bench_tensor_alloc(s, all[i].t, all[i].dt, all[i].ndim, all[i].shape);
    if (!rc)
        rc = bench_tensor_init(s, &sp->q, BENCH_RAND);
    if (!rc) {
        fill_cache(s, sp);
        fill_sinks(s, sp);
        rc = fill_indices(s, sp);
    }
    BenchTensor *up[] = {&sp->kv, &sp->idx, &sp->sink};
    for (size_t i = 0; !rc && i < sizeof up / sizeof up[0]; i++)
        rc = bench_tensor_upload(s, up[i]);
    return rc;
}

/* The three calls' arguments, in the kernel's parameter order. */
static void sparse_arguments(Sparse *sp)
{
    BenchTensor *meta[] = {&sp->idx, &sp->meta, &sp->splits};
    BenchTensor *decode[] = {&sp->q,   &sp->kv,  &sp->idx,  &sp->meta, &sp->splits,
                             &sp->out, &sp->lse, &sp->oacc, &sp->lacc, &sp->sink};
    BenchTensor *combine[] = {&sp->out, &sp->lse, &sp->oacc, &sp->lacc, &sp->splits, &sp->sink};
    BenchMlaKernel *k = &sp->k;
    for (size_t i = 0; i < 3; i++)
        k->metadata.args[i] = tirx_arg_tensor(&meta[i]->dl);
    for (size_t i = 0; i < 10; i++)
        k->decode.args[i] = tirx_arg_tensor(&decode[i]->dl);
    k->decode.args[10] = tirx_arg_float(1.0 / sqrt(DK));
    for (size_t i = 0; i < 6; i++)
        k->combine.args[i] = tirx_arg_tensor(&combine[i]->dl);
    k->metadata.nargs = 3, k->decode.nargs = 11, k->combine.nargs = 6;
}

/* ---- the reference ---- */

/* Token v's K row as the kernel (and FlashMLA) dequantizes it:
 * bfloat16(e4m3 * bfloat16(scale)), then the rope values. */
static void token_row(const Sparse *sp, int32_t v, double *kv)
{
    const uint8_t *row = (const uint8_t *)sp->kv.host + (size_t)v * TOKEN;
    float scales[DV / 128];
    uint16_t rope[ROPE];
    memcpy(scales, row + DV, sizeof scales);
    memcpy(rope, row + DV + sizeof scales, sizeof rope);
    for (int d = 0; d < DV; d++) {
        float x = sp->e4m3[row[d]] * (float)bench_decode(sp->bf16, bench_encode(sp->bf16, scales[d / 128]));
        kv[d] = bench_decode(sp->bf16, bench_encode(sp->bf16, x));
    }
    for (int d = 0; d < ROPE; d++)
        kv[DV + d] = bench_decode(sp->bf16, rope[d]);
}

/* Group g: random heads of one query token of a request, over its list. */
static int sparse_reference(BenchSession *s, void *problem, int g, BenchMlaRow *rows)
{
    const Sparse *sp = problem;
    const BenchMla *p = sp->p;
    int bi = bench_mla_request(s, g, p->batch), si = (int)bench_below(&s->seed, p->s_q);
    for (int r = 0; r < BENCH_MLA_CHECK_ROWS; r++) {
        int hi = (int)bench_below(&s->seed, p->h_q);
        double sink = p->sink ? ((const float *)sp->sink.host)[hi] : -INFINITY;
        bench_mla_row_start(&rows[r], &sp->q, bi, si, hi, sink);
    }
    const int32_t *list = (const int32_t *)sp->idx.host + ((size_t)bi * p->s_q + si) * p->topk;
    double kv[DK];
    for (int k = 0; k < p->topk; k++) {
        if (list[k] < 0)
            continue;
        token_row(sp, list[k], kv);
        for (int r = 0; r < BENCH_MLA_CHECK_ROWS; r++)
            bench_mla_attend(&rows[r], kv);
    }
    return 0;
}

/* ---- the row ---- */

static void sparse_free(BenchSession *s, Sparse *sp)
{
    BenchTensor *all[] = {&sp->q,   &sp->kv,  &sp->idx,  &sp->meta, &sp->splits,
                          &sp->out, &sp->lse, &sp->oacc, &sp->lacc, &sp->sink};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        bench_tensor_free(s, all[i]);
    tirx_module_free(sp->k.module);
}

static void sparse_label(const BenchMla *p, BenchRow *row)
{
    snprintf(row->label, sizeof row->label, "mla sparse b=%d s_q=%d h_q=%d topk=%d s_k=%d%s",
             p->batch, p->s_q, p->h_q, p->topk, p->s_k, p->sink ? " sink" : "");
}

/* FLOPs and bytes of one decode call. */
static void sparse_work(const Sparse *sp, BenchRow *row)
{
    const BenchMla *p = sp->p;
    double queries = (double)p->batch * p->s_q, rows = queries * p->h_q;
    row->flops = 2.0 * rows * p->topk * (DK + DV);
    row->bytes = (double)sp->gathered * TOKEN + queries * p->topk * 4 + rows * (DK + DV) * 2 +
                 rows * 4;
}

static int sparse_compile_problem(BenchSession *s, void *sp) { return sparse_compile(s, sp); }

int bench_mla_sparse_row(BenchSession *s, BenchRow *rows, int nrows)
{
    BenchRow *row = &rows[0];
    Sparse sp = {.p = &s->c->mla_problem, .bf16 = bench_dtype("bfloat16")};
    const BenchDType *e4m3 = bench_dtype("float8_e4m3fn");
    for (int c = 0; c < 256; c++)
        sp.e4m3[c] = (float)bench_decode(e4m3, (uint64_t)c);
    sparse_label(sp.p, row);
    fprintf(stderr, "[1/%d] %s%s%s%s\n", nrows, row->label, s->c->nvariants ? " [" : "",
            s->c->nvariants ? s->c->variants[0] : "", s->c->nvariants ? "]" : "");
    int rc = sparse_compile(s, &sp);
    if (!rc)
        rc = sparse_tensors(s, &sp);
    if (!rc) {
        sparse_arguments(&sp);
        sparse_work(&sp, row);
        fprintf(stderr, "  %lld cached tokens in %lld pages (%.2f GB), %lld listed\n",
                sp.pages * PAGE, sp.pages, (double)sp.kv.bytes * 1e-9, sp.gathered);
        int groups = sp.p->batch < BENCH_MLA_CHECK_GROUPS ? sp.p->batch : BENCH_MLA_CHECK_GROUPS;
        TirxFlashmlaProblem fm = {
            .batch = sp.p->batch, .s_q = sp.p->s_q, .h_q = sp.p->h_q, .topk = sp.p->topk,
            .pages = (int)sp.pages, .scale = (float)(1.0 / sqrt(DK)), .q = sp.q.dl.data,
            .kv = sp.kv.dl.data, .indices = sp.idx.dl.data,
            .sink = sp.p->sink ? sp.sink.dl.data : NULL,
        };
        rc = bench_mla_variants(s, &sp.k, sparse_compile_problem, &sp, &sp.out, &sp.lse,
                                sparse_reference, groups, rows, nrows, &fm);
    }
    sparse_free(s, &sp);
    return rc;
}
