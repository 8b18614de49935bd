/* GPU test of kernels/mla_sparse_fp8_sm90.tirx (sm_90a): FlashMLA's sparse
 * fp8 decode in DeepSeek V3.2's cache format (metadata, split main kernel,
 * combine) against a float64 CPU reference on the dequantized cache, on
 * fresh random inputs with out and lse poisoned first. A cached value is
 * dequantized as the kernel (and FlashMLA) does, bfloat16(e4m3 *
 * bfloat16(scale)); the reference takes those values. One token in 16 has
 * scales of 256 or more and subnormal codes. lse within 1e-3 (max
 * absolute error over finite values; a query whose indices are all padding
 * must give lse = +inf and out = 0) and out within 2e-3 relative L2 error of
 * a float64 run of the kernel's algorithm (the splits of the GPU's metadata,
 * the online softmax over blocks of 64 indices, P rounded to bfloat16 for
 * P @ V as in FlashMLA), and within 3e-3 of the exact attention (rounding
 * the output to bfloat16 alone is about 1.7e-3). Cases: h_q 64 and 128, s_q
 * 1 and 2, top-k 64, 128, 100, 200 and 2048 (non-multiples of 64 are padded
 * by the kernel), padding (-1) and repeated indices in every list, a query
 * whose indices are all padding, batches whose requests are split over
 * several parts and parts that hold several requests, the attention sink
 * (-D ATTN_SINK=True; one head's sink -inf). Out-of-range indices
 * (>= num_blocks * 64, or < -1, INT_MAX, INT_MIN) are padding: the reference
 * skips them and a second launch with them replaced by -1 must give the
 * same bits. A launch whose kv is not [num_blocks, 64, 1, 656] uint8 or whose
 * indices are not int32 is refused, naming the argument.
 *
 * With TIRX_MLA_BENCH=1 it also times the decode call (main kernel +
 * combine, metadata reused) at b = 128, s_k = 32768 tokens per request
 * (indices drawn from the request's own tokens), s_q 2, h_q 128 and 64,
 * top-k 2048 and 16384: CUDA events, L2 flushed before each run, the median
 * of at least 30 runs, reported as TFLOP/s = 2 b s_q h_q topk (576 + 512) / t
 * and TB/s of gathered cache bytes.
 * Skips (77) without a GPU or on a device other than sm_90. Simulated
 * (sim.kernel_mla_sparse_fp8_sm90) on a machine of 8 SMs with short lists. */
#include "op_kernel.h"

#include <limits.h>
#include <math.h>

enum { DK = 576, DV = 512, BLK = 64, TOKEN = 656, SMS = OP_SIZE(132, 8) };
static const double LOG2E = 1.4426950408889634;

static float e4m3_to_f32(uint8_t c)
{
    int e = c >> 3 & 15, m = c & 7;
    float v = e ? ldexpf(1.0f + m / 8.0f, e - 7) : ldexpf(m / 8.0f, -6);
    return c & 0x80 ? -v : v;
}

/* One problem: its sizes, host inputs and device tensors. */
typedef struct Problem {
    int b, s_q, h_q, topk, blocks, parts, sink;
    uint8_t *kv;
    int *idx;
    uint16_t *q;
    float *qf, *kvf, *sinkv; /* kvf: the dequantized cache (checks only) */
    float scale;
    OpTensor Q, KV, Idx, Meta, Splits, Out, Lse, OAcc, LseAcc, Sink;
    tirx_module *m;
    tirx_arg decode_args[11], combine_args[6];
} Problem;

static int parts_of(int s_q, int h_q)
{
    int ctas = s_q * (h_q / 64);
    return SMS / ctas > 0 ? SMS / ctas : 1;
}

static float bf16_round(float x)
{
    return op_bf16_to_f32(op_f32_to_bf16(x));
}

/* A random cache: e4m3 codes (no NaN), scales around 1/448, rope values in
 * [-1, 1); one token in 16 has scales in [256, 384) and subnormal codes
 * (values below 2^-6 before scaling). With `dequant`, also the values the
 * kernel computes from it. */
static void fill_cache(GpuRng *rng, Problem *p, bool dequant)
{
    size_t tokens = (size_t)p->blocks * BLK;
    for (size_t t = 0; t < tokens; t++) {
        uint8_t *row = p->kv + t * TOKEN;
        bool large = t % 16 == 5;
        float scales[4];
        uint16_t rope[64];
        for (int d = 0; d < DV; d += 8) {
            uint64_t r = gpu_next(rng);
            for (int i = 0; i < 8; i++) {
                uint8_t c = (uint8_t)(r >> (8 * i));
                row[d + i] = large ? c & 0x87 : (c & 0x7f) == 0x7f ? c ^ 1 : c;
            }
        }
        for (int i = 0; i < 4; i++)
            scales[i] = large ? 256.0f + 128.0f * (gpu_uniform(rng) + 1) / 2
                              : (1.0f + gpu_uniform(rng) * 0.5f) / 448.0f;
        for (int i = 0; i < 64; i++)
            rope[i] = op_f32_to_bf16(gpu_uniform(rng));
        memcpy(row + DV, scales, sizeof scales);
        memcpy(row + DV + sizeof scales, rope, sizeof rope);
        if (!dequant)
            continue;
        float *out = p->kvf + t * DK;
        for (int d = 0; d < DV; d++)
            out[d] = bf16_round(e4m3_to_f32(row[d]) * bf16_round(scales[d / 128]));
        for (int i = 0; i < 64; i++)
            out[DV + i] = op_bf16_to_f32(rope[i]);
    }
}

/* Index lists: random tokens of the cache, about 1 in 8 padding (-1), 1 in
 * 16 a repeat of an earlier entry and, with `oor`, 1 in 16 out of range;
 * with `empty`, the first query's list is all padding. */
static void fill_indices(GpuRng *rng, Problem *p, bool oor, bool empty)
{
    int tokens = p->blocks * BLK;
    const int far[] = {INT_MAX, INT_MIN, -2, 0};
    for (int r = 0; r < p->b * p->s_q; r++) {
        int *list = p->idx + (size_t)r * p->topk;
        for (int k = 0; k < p->topk; k++) {
            int kind = (int)(gpu_next(rng) % 16);
            int v = (int)(gpu_next(rng) % (uint64_t)tokens);
            if (kind < 2 || (empty && r == 0))
                v = -1;
            else if (kind == 2 && k > 0)
                v = list[gpu_next(rng) % (uint64_t)k];
            else if (kind == 3 && oor)
                v = far[k % 4] ? far[k % 4] : tokens + v;
            list[k] = v;
        }
    }
}

static void problem_init(tirx_device *gpu, tirx_module *m, GpuRng *rng, Problem *p, int b,
                         int s_q, int h_q, int topk, int blocks, int sink, bool checks)
{
    memset(p, 0, sizeof *p);
    p->b = b, p->s_q = s_q, p->h_q = h_q, p->topk = topk, p->blocks = blocks;
    p->parts = parts_of(s_q, h_q), p->sink = sink;
    size_t nq = (size_t)b * s_q * h_q * DK, tokens = (size_t)blocks * BLK;
    p->q = malloc(nq * 2), p->qf = malloc(nq * 4), p->kv = malloc(tokens * TOKEN);
    p->idx = malloc(sizeof(int) * (size_t)b * s_q * topk), p->sinkv = malloc(sizeof(float) * h_q);
    p->kvf = checks ? malloc(tokens * DK * sizeof(float)) : NULL;
    GPU_CHECK(p->q && p->qf && p->kv && p->idx && p->sinkv && (p->kvf || !checks), "host memory");
    for (size_t i = 0; i < nq; i++)
        p->qf[i] = op_bf16_to_f32(p->q[i] = op_f32_to_bf16(gpu_uniform(rng)));
    fill_cache(rng, p, checks);
    for (int h = 0; h < h_q; h++)
        p->sinkv[h] = h == 0 ? -INFINITY : 4.0f + 4.0f * gpu_uniform(rng);
    p->scale = 1.0f / sqrtf((float)DK);
    int64_t sq[4] = {b, s_q, h_q, DK}, skv[4] = {blocks, BLK, 1, TOKEN};
    int64_t sidx[3] = {b, s_q, topk}, smeta[2] = {p->parts, 8}, ssplit[1] = {b + 1};
    int64_t sout[4] = {b, s_q, h_q, DV}, slse[3] = {b, h_q, s_q}, ssink[1] = {h_q};
    int64_t soacc[3] = {b + p->parts, s_q * h_q, DV}, slacc[2] = {b + p->parts, s_q * h_q};
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
    op_upload(gpu, &p->Q, p->q), op_upload(gpu, &p->KV, p->kv), op_upload(gpu, &p->Sink, p->sinkv);
    op_poison(gpu, &p->Meta), op_poison(gpu, &p->Splits);
    p->m = m;
    tirx_arg a[] = {tirx_arg_tensor(&p->Q.t),      tirx_arg_tensor(&p->KV.t),
                    tirx_arg_tensor(&p->Idx.t),    tirx_arg_tensor(&p->Meta.t),
                    tirx_arg_tensor(&p->Splits.t), tirx_arg_tensor(&p->Out.t),
                    tirx_arg_tensor(&p->Lse.t),    tirx_arg_tensor(&p->OAcc.t),
                    tirx_arg_tensor(&p->LseAcc.t), tirx_arg_tensor(&p->Sink.t),
                    tirx_arg_float(p->scale)};
    tirx_arg c[] = {tirx_arg_tensor(&p->Out.t),    tirx_arg_tensor(&p->Lse.t),
                    tirx_arg_tensor(&p->OAcc.t),   tirx_arg_tensor(&p->LseAcc.t),
                    tirx_arg_tensor(&p->Splits.t), tirx_arg_tensor(&p->Sink.t)};
    memcpy(p->decode_args, a, sizeof a);
    memcpy(p->combine_args, c, sizeof c);
}

static void problem_free(tirx_device *gpu, Problem *p)
{
    OpTensor *all[] = {&p->Q, &p->KV, &p->Idx, &p->Meta, &p->Splits,
                     &p->Out, &p->Lse, &p->OAcc, &p->LseAcc, &p->Sink};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        op_free_ptr(gpu, all[i]->data);
    free(p->q), free(p->qf), free(p->kv), free(p->kvf), free(p->idx), free(p->sinkv);
}

static void run_metadata(Problem *p)
{
    tirx_arg a[] = {tirx_arg_tensor(&p->Idx.t), tirx_arg_tensor(&p->Meta.t),
                    tirx_arg_tensor(&p->Splits.t)};
    op_launch_args(p->m, "mla_sparse_metadata", a, 3);
}

/* The decode call on the current indices: the main kernel, then the
 * combine, out and lse poisoned first. */
static void run_decode(tirx_device *gpu, Problem *p)
{
    op_upload(gpu, &p->Idx, p->idx);
    op_poison(gpu, &p->Out), op_poison(gpu, &p->Lse), op_poison(gpu, &p->OAcc), op_poison(gpu, &p->LseAcc);
    op_launch_args(p->m, "mla_sparse_decode", p->decode_args, 11);
    op_launch_args(p->m, "mla_sparse_combine", p->combine_args, 6);
}

static bool is_token(const Problem *p, int v)
{
    return v >= 0 && v < p->blocks * BLK;
}

/* The scaled scores of one query row over its list (-inf for padding). */
static void scores(const Problem *p, int bi, int si, int hi, double *s)
{
    const float *qr = p->qf + (((size_t)bi * p->s_q + si) * p->h_q + hi) * DK;
    const int *list = p->idx + ((size_t)bi * p->s_q + si) * p->topk;
    for (int k = 0; k < p->topk; k++) {
        if (!is_token(p, list[k])) {
            s[k] = -INFINITY;
            continue;
        }
        const float *kr = p->kvf + (size_t)list[k] * DK;
        double acc = 0;
        for (int d = 0; d < DK; d++)
            acc += (double)qr[d] * kr[d];
        s[k] = acc * p->scale;
    }
}

static const float *value_row(const Problem *p, const int *list, int k)
{
    return p->kvf + (size_t)list[k] * DK;
}

/* The sink's share: out is scaled by 1 / (1 + exp(sink - lse)). */
static double sink_factor(const Problem *p, int hi, double lse)
{
    return p->sink ? 1.0 / (1.0 + exp((double)p->sinkv[hi] - lse)) : 1.0;
}

/* Exact float64 attention of one row: out[DV] and the natural-log lse
 * (+inf when the list is all padding, out 0). */
static double exact_row(const Problem *p, const int *list, int hi, const double *s, double *out)
{
    double mx = -INFINITY, sum = 0;
    for (int d = 0; d < DV; d++)
        out[d] = 0;
    for (int k = 0; k < p->topk; k++)
        mx = s[k] > mx ? s[k] : mx;
    if (isinf(mx))
        return INFINITY;
    for (int k = 0; k < p->topk; k++) {
        if (isinf(s[k]))
            continue;
        double e = exp(s[k] - mx);
        const float *v = value_row(p, list, k);
        sum += e;
        for (int d = 0; d < DV; d++)
            out[d] += e * v[d];
    }
    double lse = mx + log(sum), f = sink_factor(p, hi, lse);
    for (int d = 0; d < DV; d++)
        out[d] = out[d] / sum * f;
    return lse;
}

/* The value row of top-k entry k, for op_mla_emulate_part. */
typedef struct RowOf {
    const Problem *p;
    const int *list;
} RowOf;

static const double *row_value(const void *ctx, int k, double *buf)
{
    const RowOf *r = ctx;
    const float *v = value_row(r->p, r->list, k);
    for (int d = 0; d < DV; d++)
        buf[d] = v[d];
    return buf;
}


/* The row through the kernel's splits (the parts of `meta` that hold
 * request bi) and the combine's weights (with the sink), in float64. */
static void emulate_row(const Problem *p, const int *meta, int bi, const int *list, int hi,
                        const double *s, double *out)
{
    enum { MAX_SPLITS = 160 };
    double part[DV], lse2[MAX_SPLITS], hi2 = -INFINITY;
    double *outs = malloc(sizeof(double) * DV * MAX_SPLITS);
    int n = 0, nb = (p->topk + BLK - 1) / BLK;
    GPU_CHECK(outs != NULL, "host memory");
    for (int pp = 0; pp < p->parts; pp++) {
        const int *mp = meta + pp * 8;
        if (bi < mp[0] || bi > mp[3])
            continue;
        int b0 = bi == mp[0] ? mp[1] : 0, b1 = bi == mp[3] ? mp[4] : nb;
        GPU_CHECK(n < MAX_SPLITS, "at most 160 splits of a request");
        RowOf r = {p, list};
        lse2[n] = op_mla_emulate_part(s, p->topk, BLK, b0, b1, DV, row_value, &r, false, part);
        memcpy(outs + (size_t)n * DV, part, sizeof part);
        hi2 = fmax(hi2, lse2[n++]);
    }
    GPU_CHECK(n >= 1, "every request is held by a part");
    double total = 0;
    hi2 = isinf(hi2) ? 0 : hi2;
    for (int i = 0; i < n; i++)
        total += exp2(lse2[i] - hi2);
    double glse = total > 0 ? log2(total) + hi2 : INFINITY;
    if (p->sink && !isinf(glse))
        glse += log2(1 + exp2(p->sinkv[hi] * LOG2E - glse));
    for (int d = 0; d < DV; d++) {
        out[d] = 0;
        for (int i = 0; i < n; i++)
            out[d] += exp2(lse2[i] - glse) * outs[(size_t)i * DV + d];
    }
    free(outs);
}

/* Out and lse of the last run against both references. */
static void check_outputs(tirx_device *gpu, Problem *p)
{
    size_t nout = (size_t)p->b * p->s_q * p->h_q * DV, nlse = (size_t)p->b * p->h_q * p->s_q;
    uint16_t *out = malloc(nout * 2);
    float *lse = malloc(nlse * 4);
    double *ref = malloc(nout * 8), *emu = malloc(nout * 8), *s = malloc(sizeof(double) * p->topk);
    int *meta = malloc(sizeof(int) * 8 * p->parts);
    GPU_CHECK(out && lse && ref && emu && s && meta, "host memory");
    op_download(gpu, &p->Out, out);
    op_download(gpu, &p->Lse, lse);
    op_download(gpu, &p->Meta, meta);
    OpMlaCheck verdict = {.algorithm = "the bfloat16-P algorithm",
                          .empty_row = "a query whose list is padding has lse +inf",
                          .expect_empty = -1};
    for (int bi = 0; bi < p->b; bi++)
        for (int si = 0; si < p->s_q; si++)
            for (int hi = 0; hi < p->h_q; hi++) {
                size_t row = ((size_t)bi * p->s_q + si) * p->h_q + hi;
                const int *list = p->idx + ((size_t)bi * p->s_q + si) * p->topk;
                scores(p, bi, si, hi, s);
                double l = exact_row(p, list, hi, s, ref + row * DV);
                emulate_row(p, meta, bi, list, hi, s, emu + row * DV);
                op_mla_check_lse(&verdict, lse[((size_t)bi * p->h_q + hi) * p->s_q + si], l);
            }
    op_mla_check_out(&verdict, out, ref, emu, nout);
    free(out), free(lse), free(ref), free(emu), free(s), free(meta);
}

/* The kernel's switchable variants (module constants), a bit each. */
enum {
    VAR_CVT_PAIRS = 1,
    VAR_GATHER_AHEAD = 2,
    VAR_CLUSTER_SPLIT = 4
};

/* The kernel's configuration; full_machine: for every SM of the device. */
static void sparse_build(OpBuild *b, int s_q, int h_q, int sink, int variant, bool full_machine)
{
    char v[16];
    *b = (OpBuild){.rel = "kernels/mla_sparse_fp8_sm90.tirx"};
    snprintf(v, sizeof v, "%d", s_q), op_build_define(b, "S_Q", v);
    snprintf(v, sizeof v, "%d", h_q), op_build_define(b, "H_Q", v);
    op_build_define(b, "ATTN_SINK", sink ? "True" : "False");
    op_build_define(b, "CVT_PAIRS", variant & VAR_CVT_PAIRS ? "True" : "False");
    op_build_define(b, "GATHER_AHEAD", variant & VAR_GATHER_AHEAD ? "True" : "False");
    op_build_define(b, "CLUSTER_SPLIT", variant & VAR_CLUSTER_SPLIT ? "True" : "False");
    if (!full_machine)
        snprintf(v, sizeof v, "%d", SMS), op_build_define(b, "NUM_SMS", v);
}

static tirx_module *compile(tirx_device *gpu, int s_q, int h_q, int sink, int variant,
                            bool full_machine)
{
    OpBuild b;
    sparse_build(&b, s_q, h_q, sink, variant, full_machine);
    return op_compile_variant(gpu, b.rel, b.d, b.n);
}

/* Replaces the out-of-range indices by -1; returns how many there were. */
static int pad_out_of_range(Problem *p)
{
    int n = 0;
    for (size_t i = 0; i < (size_t)p->b * p->s_q * p->topk; i++)
        if (p->idx[i] != -1 && !is_token(p, p->idx[i]))
            p->idx[i] = -1, n++;
    return n;
}

/* Out and lse of a run with out-of-range indices, then of the same lists
 * with them replaced by -1: the same bits. */
static void check_out_of_range(tirx_device *gpu, Problem *p)
{
    size_t nout = (size_t)p->b * p->s_q * p->h_q * DV * 2, nlse = (size_t)p->b * p->h_q * p->s_q * 4;
    char *o1 = malloc(nout), *o2 = malloc(nout), *l1 = malloc(nlse), *l2 = malloc(nlse);
    GPU_CHECK(o1 && o2 && l1 && l2, "host memory");
    op_download(gpu, &p->Out, o1), op_download(gpu, &p->Lse, l1);
    int n = pad_out_of_range(p);
    GPU_CHECK(n > 0, "the lists hold out-of-range indices");
    run_decode(gpu, p);
    op_download(gpu, &p->Out, o2), op_download(gpu, &p->Lse, l2);
    printf("  %d out-of-range indices act as -1\n", n);
    GPU_CHECK(memcmp(o1, o2, nout) == 0 && memcmp(l1, l2, nlse) == 0,
              "out-of-range indices give the bits of padding");
    free(o1), free(o2), free(l1), free(l2);
}

typedef struct Case {
    int b, s_q, h_q, topk, blocks, sink, oor, empty, variant;
} Case;

/* Runs module m (c's configuration) on c's problem and checks it. */
static void check(tirx_device *gpu, tirx_module *m, GpuRng *rng, const Case *c)
{
    printf("mla_sparse_decode b=%d s_q=%d h_q=%d topk=%d blocks=%d%s%s%s%s%s%s:\n", c->b, c->s_q,
           c->h_q, c->topk, c->blocks, c->sink ? " sink" : "", c->oor ? " out-of-range" : "",
           c->empty ? " empty list" : "", c->variant & VAR_CVT_PAIRS ? " CVT_PAIRS" : "",
           c->variant & VAR_GATHER_AHEAD ? " GATHER_AHEAD" : "",
           c->variant & VAR_CLUSTER_SPLIT ? " CLUSTER_SPLIT" : "");
    Problem p;
    problem_init(gpu, m, rng, &p, c->b, c->s_q, c->h_q, c->topk, c->blocks, c->sink, true);
    fill_indices(rng, &p, c->oor, c->empty);
    op_upload(gpu, &p.Idx, p.idx);
    run_metadata(&p);
    run_decode(gpu, &p);
    check_outputs(gpu, &p);
    if (c->oor)
        check_out_of_range(gpu, &p);
    problem_free(gpu, &p);
}

static tirx_status launch(tirx_module *m, const char *name, const tirx_arg *a, size_t n,
                          tirx_error *err)
{
    if (OP_SIM)
        return tirx_simulate(m, name, a, n, err);
    tirx_function *f = op_function(m, name);
    return tirx_launch(f, a, n, NULL, err);
}

static void expect_refused(tirx_module *m, const tirx_arg *a, const char *arg)
{
    tirx_error err;
    GPU_CHECK(launch(m, "mla_sparse_decode", a, 11, &err) != TIRX_OK, "the launch is refused");
    printf("  refused: %s\n", err.message);
    GPU_CHECK(strstr(err.message, arg) != NULL, "the refusal names the argument");
}

/* A cache of 576-byte rows, a float32 cache and int64 indices are refused. */
static void check_refusals(tirx_device *gpu, GpuRng *rng)
{
    printf("mla_sparse_decode refusals:\n");
    tirx_module *m = compile(gpu, 1, 64, 0, 0, false);
    Problem p;
    problem_init(gpu, m, rng, &p, 1, 1, 64, 64, 2, 0, false);
    tirx_arg a[11];
    memcpy(a, p.decode_args, sizeof a);
    DLTensor kv = p.KV.t, idx = p.Idx.t;
    int64_t narrow[4] = {2, BLK, 1, DK}, wide[4] = {2, BLK, 1, TOKEN / 4};
    kv.shape = narrow;
    a[1] = tirx_arg_tensor(&kv);
    expect_refused(m, a, "kv");
    kv.shape = wide, kv.dtype.code = kDLFloat, kv.dtype.bits = 32;
    expect_refused(m, a, "kv");
    a[1] = p.decode_args[1];
    idx.dtype.bits = 64;
    a[2] = tirx_arg_tensor(&idx);
    expect_refused(m, a, "indices");
    problem_free(gpu, &p);
    tirx_module_free(m);
}

static tirx_status decode_on(void *user, void *stream, tirx_error *err)
{
    Problem *p = user;
    tirx_status st =
        tirx_launch(op_function(p->m, "mla_sparse_decode"), p->decode_args, 11, stream, err);
    return st != TIRX_OK ? st
                         : tirx_launch(op_function(p->m, "mla_sparse_combine"), p->combine_args, 6,
                                       stream, err);
}

/* Times the decode call (main kernel + combine, metadata reused) at b = 128
 * with 32768 cached tokens per request, each query's top-k drawn from its
 * request's tokens, with tirx_bench_time: L2 flushed before each run, CUDA
 * events, at least 30 runs, the median. */
static void bench(tirx_device *gpu, GpuRng *rng, int s_q, int h_q, int topk)
{
    enum { B = 128, SK = 32768 };
    tirx_module *m = compile(gpu, s_q, h_q, 0, 0, true);
    Problem p;
    problem_init(gpu, m, rng, &p, B, s_q, h_q, topk, B * SK / BLK, 0, false);
    for (int r = 0; r < B * s_q; r++)
        for (int k = 0; k < topk; k++)
            p.idx[(size_t)r * topk + k] = r / s_q * SK + (int)(gpu_next(rng) % SK);
    op_upload(gpu, &p.Idx, p.idx);
    run_metadata(&p);
    tirx_error err;
    tirx_bench_options o = {.min_reps = 30};
    tirx_bench_stats st;
    op_ok(tirx_bench_time(gpu, decode_on, &p, &o, &st, &err), &err, "tirx_bench_time");
    double t = st.median_ms * 1e-3;
    double bytes = (double)B * s_q * topk * TOKEN + (double)B * s_q * h_q * (DK + DV) * 2;
    double flops = 2.0 * B * s_q * h_q * topk * (DK + DV);
    printf("bench mla_sparse_decode b=%d s_q=%d h_q=%d topk=%d s_k=%d: %.1f us (median of %d), "
           "%.2f TB/s, %.0f TFLOP/s\n",
           B, s_q, h_q, topk, SK, t * 1e6, st.reps, bytes / t * 1e-12, flops / t * 1e-12);
    problem_free(gpu, &p);
    tirx_module_free(m);
}

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_SM90_ONLY, "the kernel needs sm_90a");
    GpuRng rng = gpu_rng();
    /* b, s_q, h_q, topk, cache blocks, sink, out-of-range indices, an all-padding list */
    const Case gpu_cases[] = {
        {8, 1, 64, 2048, 300, 0, 0, 1}, {8, 2, 128, 2048, 300, 0, 1, 0},
        {8, 1, 128, 100, 40, 1, 1, 1},  {37, 2, 64, 576, 200, 1, 0, 0},
        {2, 1, 128, 4000, 200, 0, 0, 0}, {64, 2, 128, 64, 100, 1, 1, 0},
        {3, 2, 64, 200, 10, 0, 1, 1},
        /* the variants */
        {8, 2, 128, 2048, 300, 1, 1, 1, VAR_CVT_PAIRS},
        {37, 2, 64, 576, 200, 0, 1, 0, VAR_GATHER_AHEAD},
        {3, 1, 128, 200, 10, 1, 1, 1, VAR_CVT_PAIRS | VAR_GATHER_AHEAD},
        {8, 2, 128, 2048, 300, 0, 1, 1, VAR_CLUSTER_SPLIT},
        {64, 2, 128, 64, 100, 1, 1, 0, VAR_CLUSTER_SPLIT | VAR_CVT_PAIRS | VAR_GATHER_AHEAD},
        {2, 1, 128, 4000, 200, 0, 0, 0, VAR_CLUSTER_SPLIT | VAR_CVT_PAIRS},
        {37, 2, 64, 576, 200, 1, 1, 0, VAR_CVT_PAIRS | VAR_GATHER_AHEAD},
        {8, 2, 128, 2048, 300, 0, 1, 1,
         VAR_CLUSTER_SPLIT | VAR_CVT_PAIRS | VAR_GATHER_AHEAD},
        {3, 2, 128, 4000, 200, 0, 0, 1, VAR_CLUSTER_SPLIT | VAR_CVT_PAIRS | VAR_GATHER_AHEAD},
        {64, 1, 128, 64, 100, 0, 1, 0, VAR_CLUSTER_SPLIT},
    };
    /* split requests, parts holding several requests, s_q 2, two head blocks;
     * the fifth is the default build's variants */
    const Case sim_cases[] = {{3, 1, 64, 200, 6, 0, 1, 1}, {4, 2, 64, 64, 4, 1, 0, 0},
                              {2, 2, 128, 100, 4, 1, 1, 0}, {1, 1, 128, 128, 3, 0, 0, 1},
                              {2, 1, 128, 200, 6, 0, 1, 1,
                               VAR_CLUSTER_SPLIT | VAR_CVT_PAIRS | VAR_GATHER_AHEAD},
                              /* the variants */
                              {2, 1, 64, 200, 6, 0, 1, 1, VAR_CVT_PAIRS | VAR_GATHER_AHEAD},
                              {2, 2, 128, 100, 4, 1, 1, 0, VAR_CLUSTER_SPLIT},
                              {2, 2, 64, 100, 6, 1, 1, 0, VAR_CVT_PAIRS},
                              {2, 2, 128, 100, 4, 1, 1, 1,
                               VAR_CLUSTER_SPLIT | VAR_CVT_PAIRS | VAR_GATHER_AHEAD}};
    const Case *cases = OP_SIZE(gpu_cases, sim_cases);
    size_t ncases = OP_SIZE(sizeof gpu_cases, sizeof sim_cases) / sizeof(Case);
    /* a run on a softmax variant (TIRX_KERNEL_DEFINES) in the simulator: the
     * plain gather and the default build's, not every gather variant again */
    if (OP_SIM && getenv("TIRX_KERNEL_DEFINES"))
        ncases = 5;
    /* each configuration built once, all at once; built[of[i]] is case i's */
    OpBuild built[24];
    size_t of[24], nbuilt = 0;
    GPU_CHECK(ncases <= 24, "at most 24 cases");
    for (size_t i = 0; i < ncases; i++) {
        const Case *c = &cases[i];
        size_t k = 0;
        while (k < i && (cases[k].s_q != c->s_q || cases[k].h_q != c->h_q ||
                         cases[k].sink != c->sink || cases[k].variant != c->variant))
            k++;
        if (k == i)
            sparse_build(&built[of[i] = nbuilt++], c->s_q, c->h_q, c->sink, c->variant, false);
        else
            of[i] = of[k];
    }
    op_compile_all(gpu, built, nbuilt);
    for (size_t i = 0; i < ncases; i++)
        check(gpu, built[of[i]].m, &rng, &cases[i]);
    for (size_t i = 0; i < nbuilt; i++)
        tirx_module_free(built[i].m);
    check_refusals(gpu, &rng);
    const char *b = getenv("TIRX_MLA_BENCH");
    if (!OP_SIM && b && strcmp(b, "0")) {
        bench(gpu, &rng, 2, 128, 2048);
        bench(gpu, &rng, 2, 128, 16384);
        bench(gpu, &rng, 2, 64, 2048);
        bench(gpu, &rng, 2, 64, 16384);
    }
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}
