/* GPU test of kernels/mla_sparse_fp8_sm100.tirx (sm_100a): DeepSeek V3.2's
 * sparse decode (metadata, split top-k main kernel, combine) over an fp8
 * cache of 656-byte tokens (512 e4m3 latent values, 4 float32 scales, 64
 * bfloat16 rope values), against float64 on fresh random inputs with out,
 * lse and the partials poisoned first: lse within 1e-3 (max absolute error
 * over finite values; a query whose indices are all padding must give lse =
 * +inf and out = 0), out within 2e-3 relative L2 error of a float64 run of
 * the kernel's algorithm (the splits of the metadata, the online softmax
 * over blocks of 64 indices, the latent values dequantized to bfloat16 and
 * P rounded to bfloat16 as the kernel does), and within 3e-3 of the exact
 * attention over the exactly dequantized cache (rounding the output to
 * bfloat16 alone is about 1.7e-3). The indices hold padding (-1 and
 * positions past the cache), repeats, and one query token with nothing
 * but padding; top-k is not always a multiple of 64 (the last block's
 * missing entries are padding); with ATTN_SINK a random sink per head (one
 * head's -inf: no sink) joins the softmax's denominator. Skips (77) without
 * a GPU or on a device other than sm_100. Simulated
 * (sim.kernel_mla_sparse_fp8_sm100) at b 1-2, s_q 1-2, h_q 64 and 128, top-k
 * 100 to 256, on machines of few SMs, so that a request is split over parts
 * and a part holds several requests. */
#include "op_kernel.h"

#include <math.h>

enum { DK = 576, DV = 512, PAGE = 64, ROW = 656, BLK = 64 };
static const double LOG2E = 1.4426950408889634;

/* The value of an e4m3fn byte (no infinities; 0x7f / 0xff are NaN). */
static double e4m3(uint8_t b)
{
    int e = b >> 3 & 15, m = b & 7;
    double v = e ? ldexp(1.0 + m / 8.0, e - 7) : ldexp(m / 8.0, -6);
    return b & 0x80 ? -v : v;
}

/* The e4m3fn byte nearest x (|x| <= 448), ties to the even code. */
static uint8_t to_e4m3(double x)
{
    double a = fabs(x);
    int lo = 0, hi = 126; /* the positive finite codes increase with the value */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (e4m3((uint8_t)mid) <= a)
            lo = mid;
        else
            hi = mid;
    }
    double dl = a - e4m3((uint8_t)lo), dh = e4m3((uint8_t)hi) - a;
    int c = dl < dh || (dl == dh && lo % 2 == 0) ? lo : hi;
    return (uint8_t)(c | (x < 0 ? 0x80 : 0));
}

/* One problem: sizes, host inputs, device tensors. */
typedef struct Problem {
    int b, s_q, h_q, topk, blocks, parts;
    int *idx;      /* [b, s_q, topk] */
    uint16_t *q;   /* [b, s_q, h_q, DK] */
    uint8_t *kv;   /* [blocks * PAGE, ROW] */
    double *exact; /* [tokens, DK]: fp8 * scale exactly, and the rope values */
    double *kern;  /* the same as the kernel dequantizes it (bfloat16) */
    float *sink;   /* [h_q]; NULL without ATTN_SINK */
    float scale;
    OpTensor Q, KV, Idx, Meta, Splits, Out, Lse, OAcc, LseAcc, Sink;
} Problem;

static int tokens(const Problem *p) { return p->blocks * PAGE; }

static bool valid(const Problem *p, int t) { return t >= 0 && t < tokens(p); }

/* Random latent values per 128-column group quantized with the group's
 * scale (its largest magnitude over 448), random rope values. */
static void fill_cache(GpuRng *rng, Problem *p)
{
    for (int t = 0; t < tokens(p); t++) {
        uint8_t *row = p->kv + (size_t)t * ROW;
        double *ex = p->exact + (size_t)t * DK, *kn = p->kern + (size_t)t * DK;
        for (int g = 0; g < 4; g++) {
            double x[128], amax = 0;
            for (int i = 0; i < 128; i++)
                x[i] = gpu_uniform(rng), amax = fmax(amax, fabs(x[i]));
            float sc = (float)(amax / 448.0);
            memcpy(row + DV + 4 * g, &sc, 4);
            for (int i = 0; i < 128; i++) {
                uint8_t c = to_e4m3(x[i] / sc);
                row[g * 128 + i] = c;
                ex[g * 128 + i] = e4m3(c) * sc;
                kn[g * 128 + i] = op_bf16_to_f32(op_f32_to_bf16((float)e4m3(c) * sc));
            }
        }
        for (int d = 0; d < DK - DV; d++) {
            uint16_t h = op_f32_to_bf16(gpu_uniform(rng));
            memcpy(row + DV + 16 + 2 * d, &h, 2);
            ex[DV + d] = kn[DV + d] = op_bf16_to_f32(h);
        }
    }
}

/* Indices: random positions, about one in eight padding (-1 or past the
 * cache), one in eight a repeat of an earlier one; query token (b - 1,
 * s_q - 1) sees nothing but padding when `empty`. */
static void fill_indices(GpuRng *rng, Problem *p, bool empty)
{
    for (int r = 0; r < p->b * p->s_q; r++)
        for (int k = 0; k < p->topk; k++) {
            int *x = p->idx + (size_t)r * p->topk, u = (int)(gpu_next(rng) % 16);
            x[k] = u == 0 ? -1 : u == 1 ? tokens(p) + (int)(gpu_next(rng) % 100)
                 : u < 4 && k > 0 ? x[gpu_next(rng) % (uint64_t)k]
                                  : (int)(gpu_next(rng) % (uint64_t)tokens(p));
            if (empty && r == p->b * p->s_q - 1)
                x[k] = k % 2 ? -1 : tokens(p) + k;
        }
}

static void problem_init(tirx_device *gpu, GpuRng *rng, Problem *p, int b, int s_q, int h_q,
                         int topk, int blocks, int sms, bool empty, bool sink)
{
    memset(p, 0, sizeof *p);
    p->b = b, p->s_q = s_q, p->h_q = h_q, p->topk = topk, p->blocks = blocks;
    int m_blocks = s_q * h_q / 64;
    p->parts = sms / m_blocks > 0 ? sms / m_blocks : 1;
    size_t nq = (size_t)b * s_q * h_q * DK, nt = (size_t)tokens(p);
    p->q = malloc(nq * 2), p->kv = malloc(nt * ROW), p->idx = malloc(sizeof(int) * b * s_q * topk);
    p->exact = malloc(nt * DK * 8), p->kern = malloc(nt * DK * 8);
    GPU_CHECK(p->q && p->kv && p->idx && p->exact && p->kern, "host memory");
    for (size_t i = 0; i < nq; i++)
        p->q[i] = op_f32_to_bf16(gpu_uniform(rng));
    fill_cache(rng, p);
    fill_indices(rng, p, empty);
    p->scale = 1.0f / sqrtf((float)DK);
    float *sk = malloc(sizeof(float) * h_q);
    GPU_CHECK(sk != NULL, "host memory");
    for (int h = 0; h < h_q; h++)
        sk[h] = h == 1 ? -INFINITY : 2 * gpu_uniform(rng) + 1;
    p->sink = sink ? sk : NULL;
    int64_t sq[4] = {b, s_q, h_q, DK}, skv[4] = {blocks, PAGE, 1, ROW}, sidx[3] = {b, s_q, topk};
    int64_t smeta[2] = {p->parts, 8}, ssplit[1] = {b + 1}, sout[4] = {b, s_q, h_q, DV};
    int64_t slse[3] = {b, h_q, s_q}, soacc[3] = {b + p->parts, s_q * h_q, DV};
    int64_t slacc[2] = {b + p->parts, s_q * h_q}, ssink[1] = {h_q};
    op_tensor_nd(gpu, &p->Q, 4, sq, kDLBfloat, 16);
    op_tensor_nd(gpu, &p->KV, 4, skv, kDLUInt, 8);
    op_tensor_nd(gpu, &p->Idx, 3, sidx, kDLInt, 32);
    op_tensor_nd(gpu, &p->Meta, 2, smeta, kDLInt, 32);
    op_tensor_nd(gpu, &p->Splits, 1, ssplit, kDLInt, 32);
    op_tensor_nd(gpu, &p->Out, 4, sout, kDLBfloat, 16);
    op_tensor_nd(gpu, &p->Lse, 3, slse, kDLFloat, 32);
    op_tensor_nd(gpu, &p->OAcc, 3, soacc, kDLFloat, 32);
    op_tensor_nd(gpu, &p->LseAcc, 2, slacc, kDLFloat, 32);
    op_tensor_nd(gpu, &p->Sink, 1, ssink, kDLFloat, 32);
    op_copy_in(gpu, p->Q.data, p->q, p->Q.bytes);
    op_copy_in(gpu, p->KV.data, p->kv, p->KV.bytes);
    op_copy_in(gpu, p->Idx.data, p->idx, p->Idx.bytes);
    op_copy_in(gpu, p->Sink.data, sk, p->Sink.bytes);
    if (!sink)
        free(sk);
    OpTensor *poisoned[] = {&p->Meta, &p->Splits, &p->Out, &p->Lse, &p->OAcc, &p->LseAcc};
    for (size_t i = 0; i < sizeof poisoned / sizeof poisoned[0]; i++)
        op_poison(gpu, poisoned[i]);
}

static void problem_free(tirx_device *gpu, Problem *p)
{
    OpTensor *all[] = {&p->Q,   &p->KV,  &p->Idx,  &p->Meta,   &p->Splits,
                     &p->Out, &p->Lse, &p->OAcc, &p->LseAcc, &p->Sink};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        op_free_ptr(gpu, all[i]->data);
    free(p->q), free(p->kv), free(p->idx), free(p->exact), free(p->kern), free(p->sink);
}

/* metadata, decode, combine */
static void run(tirx_module *m, Problem *p)
{
    tirx_arg meta[] = {tirx_arg_tensor(&p->Idx.t), tirx_arg_tensor(&p->Meta.t),
                       tirx_arg_tensor(&p->Splits.t)};
    tirx_arg dec[] = {tirx_arg_tensor(&p->Q.t),    tirx_arg_tensor(&p->KV.t),
                      tirx_arg_tensor(&p->Idx.t),  tirx_arg_tensor(&p->Meta.t),
                      tirx_arg_tensor(&p->Splits.t), tirx_arg_tensor(&p->Out.t),
                      tirx_arg_tensor(&p->Lse.t),  tirx_arg_tensor(&p->OAcc.t),
                      tirx_arg_tensor(&p->LseAcc.t), tirx_arg_tensor(&p->Sink.t),
                      tirx_arg_float(p->scale)};
    tirx_arg comb[] = {tirx_arg_tensor(&p->Out.t),    tirx_arg_tensor(&p->Lse.t),
                       tirx_arg_tensor(&p->OAcc.t),   tirx_arg_tensor(&p->LseAcc.t),
                       tirx_arg_tensor(&p->Splits.t), tirx_arg_tensor(&p->Sink.t)};
    op_launch_args(m, "mla_sparse_metadata", meta, 3);
    op_launch_args(m, "mla_sparse_decode", dec, 11);
    op_launch_args(m, "mla_sparse_combine", comb, 6);
}

/* The scaled scores of one query row over its top-k indices against a
 * dequantized cache (-inf for padding). */
static void scores(const Problem *p, const double *cache, int bi, int si, int hi, double *s)
{
    const uint16_t *qr = p->q + (((size_t)bi * p->s_q + si) * p->h_q + hi) * DK;
    const int *x = p->idx + ((size_t)bi * p->s_q + si) * p->topk;
    for (int k = 0; k < p->topk; k++) {
        s[k] = -INFINITY;
        if (!valid(p, x[k]))
            continue;
        const double *kr = cache + (size_t)x[k] * DK;
        double acc = 0;
        for (int d = 0; d < DK; d++)
            acc += op_bf16_to_f32(qr[d]) * kr[d];
        s[k] = acc * p->scale;
    }
}

/* Exact float64 attention of one row (head hi); returns the natural-log
 * lse (+inf when every index is padding, out 0; without the sink). */
static double exact_row(const Problem *p, int hi, const int *x, const double *s, double *out)
{
    double mx = -INFINITY, sum = 0;
    for (int d = 0; d < DV; d++)
        out[d] = 0;
    for (int k = 0; k < p->topk; k++)
        mx = fmax(mx, s[k]);
    if (isinf(mx))
        return INFINITY;
    for (int k = 0; k < p->topk; k++) {
        if (isinf(s[k]))
            continue;
        double e = exp(s[k] - mx);
        sum += e;
        for (int d = 0; d < DV; d++)
            out[d] += e * p->exact[(size_t)x[k] * DK + d];
    }
    double denom = sum + (p->sink ? exp(p->sink[hi] - mx) : 0);
    for (int d = 0; d < DV; d++)
        out[d] /= denom;
    return mx + log(sum);
}

/* The value row of top-k entry k (the kernel's dequantized values), for
 * op_mla_emulate_part. */
typedef struct RowOf {
    const Problem *p;
    const int *x;
} RowOf;

static const double *row_value(const void *ctx, int k, double *buf)
{
    (void)buf;
    const RowOf *r = ctx;
    return r->p->kern + (size_t)r->x[k] * DK;
}


/* The row (head hi) through the metadata's splits and the combine's
 * weights, the sink in their denominator. */
static void emulate_row(const Problem *p, const int *meta, int bi, int hi_, const int *x,
                        const double *s, double *out)
{
    enum { MAX_SPLITS = 160 };
    double lse2[MAX_SPLITS], hi = -INFINITY, *outs = malloc(sizeof(double) * DV * MAX_SPLITS);
    int n = 0, nb = (p->topk + BLK - 1) / BLK;
    GPU_CHECK(outs != NULL, "host memory");
    for (int pp = 0; pp < p->parts; pp++) {
        const int *mp = meta + pp * 8;
        if (bi < mp[0] || bi > mp[3])
            continue;
        int b0 = bi == mp[0] ? mp[1] : 0, b1 = bi == mp[3] ? mp[4] : nb;
        GPU_CHECK(n < MAX_SPLITS, "at most 160 splits of a request");
        RowOf r = {p, x};
        lse2[n] = op_mla_emulate_part(s, p->topk, BLK, b0, b1, DV, row_value, &r, false,
                                      outs + (size_t)n * DV);
        hi = fmax(hi, lse2[n++]);
    }
    GPU_CHECK(n >= 1, "every request is held by a part");
    double total = 0;
    hi = isinf(hi) ? 0 : hi;
    for (int i = 0; i < n; i++)
        total += exp2(lse2[i] - hi);
    double glse = total > 0 ? log2(total) + hi : INFINITY;
    if (p->sink && p->sink[hi_] > -INFINITY) {
        double s2 = p->sink[hi_] * LOG2E;
        glse = isinf(glse) ? s2 : fmax(glse, s2) + log2(1 + exp2(-fabs(glse - s2)));
    }
    for (int d = 0; d < DV; d++) {
        out[d] = 0;
        for (int i = 0; i < n; i++)
            out[d] += exp2(lse2[i] - glse) * outs[(size_t)i * DV + d];
    }
    free(outs);
}

typedef struct Case {
    int b, s_q, h_q, topk, blocks, sms;
    bool empty, sink;
} Case;

static void check(tirx_device *gpu, GpuRng *rng, const Case *c)
{
    char v[3][16];
    snprintf(v[0], 16, "%d", c->s_q), snprintf(v[1], 16, "%d", c->h_q);
    snprintf(v[2], 16, "%d", c->sms);
    tirx_define d[] = {{"S_Q", v[0]},
                       {"H_Q", v[1]},
                       {"NUM_SMS", v[2]},
                       {"ATTN_SINK", c->sink ? "True" : "False"}};
    printf("mla_sparse_decode b=%d s_q=%d h_q=%d topk=%d, %d cache blocks, %d SMs%s:\n", c->b,
           c->s_q, c->h_q, c->topk, c->blocks, c->sms, c->sink ? ", a sink" : "");
    tirx_module *m = op_compile_variant(gpu, "kernels/mla_sparse_fp8_sm100.tirx", d, 4);
    Problem p;
    problem_init(gpu, rng, &p, c->b, c->s_q, c->h_q, c->topk, c->blocks, c->sms, c->empty,
                 c->sink);
    run(m, &p);
    size_t nout = (size_t)c->b * c->s_q * c->h_q * DV, nlse = (size_t)c->b * c->h_q * c->s_q;
    uint16_t *out = malloc(nout * 2);
    float *lse = malloc(nlse * 4);
    double *ref = malloc(nout * 8), *emu = malloc(nout * 8), *s = malloc(sizeof(double) * c->topk);
    double *sk = malloc(sizeof(double) * c->topk);
    int *meta = malloc(sizeof(int) * 8 * p.parts);
    GPU_CHECK(out && lse && ref && emu && s && sk && meta, "host memory");
    op_copy_out(gpu, out, p.Out.data, p.Out.bytes);
    op_copy_out(gpu, lse, p.Lse.data, p.Lse.bytes);
    op_copy_out(gpu, meta, p.Meta.data, p.Meta.bytes);
    OpMlaCheck verdict = {.algorithm = "the kernel's algorithm",
                          .empty_row = "a query that sees no token has lse +inf",
                          .expect_empty = c->empty ? c->h_q : 0};
    for (int bi = 0; bi < c->b; bi++)
        for (int si = 0; si < c->s_q; si++)
            for (int hi = 0; hi < c->h_q; hi++) {
                size_t row = ((size_t)bi * c->s_q + si) * c->h_q + hi;
                const int *x = p.idx + ((size_t)bi * c->s_q + si) * c->topk;
                scores(&p, p.exact, bi, si, hi, s);
                scores(&p, p.kern, bi, si, hi, sk);
                double l = exact_row(&p, hi, x, s, ref + row * DV);
                emulate_row(&p, meta, bi, hi, x, sk, emu + row * DV);
                op_mla_check_lse(&verdict, lse[((size_t)bi * c->h_q + hi) * c->s_q + si], l);
            }
    op_mla_check_out(&verdict, out, ref, emu, nout);
    free(out), free(lse), free(ref), free(emu), free(s), free(sk), free(meta);
    problem_free(gpu, &p);
    tirx_module_free(m);
}

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_SM100_ONLY, "the kernel needs sm_100a");
    GpuRng rng = gpu_rng();
    const Case gpu_cases[] = {
        {8, 1, 64, 2048, 1024, 148, true, false},   {64, 2, 64, 2048, 4096, 148, false, true},
        {3, 2, 128, 500, 64, 148, true, true},      {128, 1, 128, 2048, 8192, 148, false, false},
        {16, 2, 128, 4000, 2048, 148, false, false},
    };
    /* a request split over two parts (the sink added by the combine); two
     * query tokens, a part holding both requests and a partial last block;
     * two CTAs of 64 heads per token (the sink added by the main kernel) */
    const Case sim_cases[] = {{1, 1, 64, 256, 6, 8, false, true},
                              {2, 2, 64, 100, 4, 2, true, false},
                              {1, 1, 128, 200, 3, 4, false, true}};
    const Case *cases = OP_SIZE(gpu_cases, sim_cases);
    size_t n = OP_SIZE(sizeof gpu_cases, sizeof sim_cases) / sizeof(Case);
    for (size_t i = 0; i < n; i++)
        check(gpu, &rng, &cases[i]);
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}
