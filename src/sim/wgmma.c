/* wgmma (PTX ISA 9.7.15): the warpgroup MMA and its shared-memory matrix
 * descriptors. wgmma.mma_async is a rendezvous of the warpgroup's 128
 * threads; when the last one arrives the product is computed at once from
 * the descriptors of A and B (or A from the threads' registers) and every
 * thread's accumulator registers, which are read and written in each
 * thread's own context. Until the warpgroup's wgmma.wait_group for its
 * commit group, its shared operands are pending reads (a write to them is an
 * error) and its accumulators, and A's registers in the rs form, pending in
 * each thread (reading or writing one is an error). A descriptor
 * (9.7.15.5.1) holds the start address,
 * the leading and stride byte offsets and the swizzle mode, and the
 * canonical layouts are read as the hardware does. K-major: 8-row
 * core-matrix groups SBO apart, rows of 16 bytes (no swizzle, core matrices
 * LBO apart along K) or of the swizzle's width (32/64/128 bytes). MN-major
 * (trans_a / trans_b): 8 K-rows of the swizzle's width along M or N, the
 * next atom along MN LBO apart and the next 8 K SBO apart (without swizzle,
 * 16-byte atoms: SBO along MN, LBO along K). The swizzles are the XOR
 * pattern of the shared addresses, as TMA writes it. The accumulator's
 * fragment, and A's from registers (elements of 2, 1 or 4 per 32-bit
 * register for 16-bit, tf32 and fp8 inputs): element i of lane l of warp w
 * is row 16w + l/4 + 8 (r % 2), column (r / 2) K/2 + (l % 4) e + i % e,
 * with e elements per register and r = i / e (for the f32 accumulator,
 * e = 2 and K/2 = 8). tf32 inputs keep their top 10 mantissa bits (the
 * tensor cores ignore the low 13). Products are summed in double and
 * rounded once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---------------------------------------------------------------- descriptors */

/* T.cuda.{wgmma,tcgen05}.encode_matrix_descriptor(desc_ptr, addr, ldo, sdo, swizzle) */
void sim_encode_smem_desc(SimLaunch *l, SimThread *t, const IrExpr *e)
{
    const IrCall *c = &e->u.call;
    if (c->nargs != 5 || c->args[0]->kind != IR_E_CALL ||
        c->args[0]->u.call.op != IR_OP_ADDRESS_OF) {
        sim_fail(l, t, e->span, "not modelled: %s into anything but T.address_of(a buffer "
                 "element)", ir_ops[c->op].name);
        return;
    }
    uint64_t saddr = sim_shared_window(l, (uint64_t)sim_eval(l, t, c->args[1], 0).i);
    uint64_t ldo = (uint64_t)sim_eval(l, t, c->args[2], 0).i & 0x3fff;
    uint64_t sdo = (uint64_t)sim_eval(l, t, c->args[3], 0).i & 0x3fff;
    int64_t swz = sim_eval(l, t, c->args[4], 0).i;
    uint64_t d = (saddr >> 4 & 0x3fff) | ldo << 16 | sdo << 32;
    if (c->op == IR_OP_CUDA_WGMMA_SMEM_DESC)
        d |= (uint64_t)(swz == 1 ? 3 : swz == 2 ? 2 : swz == 3 ? 1 : 0) << 62;
    else
        d |= (uint64_t)1 << 46 |
             (uint64_t)(swz == 1 ? 6 : swz == 2 ? 4 : swz == 3 ? 2 : swz == 4 ? 1 : 0) << 61;
    if (!sim_failed(l))
        sim_assign(l, t, c->args[0]->u.call.args[0], (SimVal){.i = (int64_t)d});
}

typedef SimSmemOperand Operand;

static bool decode(SimLaunch *l, SimThread *t, uint64_t d, Operand *o, TxSpan at)
{
    static const int spans[4] = {0, 128, 64, 32};
    o->start = (uint32_t)(d & 0x3fff) << 4;
    o->lbo = (uint32_t)(d >> 16 & 0x3fff) << 4;
    o->sbo = (uint32_t)(d >> 32 & 0x3fff) << 4;
    o->swizzle = spans[d >> 62];
    if (d >> 49 & 7) {
        sim_fail(l, t, at, "not modelled: a wgmma descriptor with a base offset");
        return false;
    }
    return true;
}

/* The shared-window address of element (row, k) of an operand (row: along
 * M or N). */
static uint32_t element_addr(const Operand *o, int row, int k, int esize)
{
    uint32_t kb = (uint32_t)(k * esize), rb = (uint32_t)(row * esize);
    uint32_t w = o->swizzle ? (uint32_t)o->swizzle : 16, a;
    if (o->mn_major)
        a = o->start + rb % w + (uint32_t)(k % 8) * w + rb / w * (o->swizzle ? o->lbo : o->sbo) +
            (uint32_t)(k / 8) * (o->swizzle ? o->sbo : o->lbo);
    else if (!o->swizzle)
        return o->start + (uint32_t)(row / 8) * o->sbo + kb / 16 * o->lbo +
               (uint32_t)(row % 8) * 16 + kb % 16;
    else
        a = o->start + (uint32_t)(row / 8) * o->sbo + (uint32_t)(row % 8) * w + kb % w +
            kb / w * o->lbo;
    if (!o->swizzle)
        return a;
    uint32_t mask = (uint32_t)o->swizzle / 16 - 1;
    return a ^ ((a >> 7 & mask) << 4);
}

/* Element (r, kk) of an operand of an _align16 dtype: the 16 elements of
 * its 16-byte chunk along K packed from the chunk's low bits up. */
static bool read_grouped(SimLaunch *l, SimThread *t, const SimSmemOperand *o, IrDType dt, int r,
                         int kk, double *out, TxSpan at)
{
    int n = ir_dtype_subbyte(dt), bit = kk % 16 * n;
    uint64_t a = sim_shared_generic(l, element_addr(o, r, kk - kk % 16, 1)) + (uint64_t)(bit / 8);
    size_t bytes = bit % 8 + n > 8 ? 2 : 1;
    const uint8_t *p = sim_mem_read(l, t, a, bytes, at);
    if (!p)
        return false;
    uint32_t w = p[0] | (bytes == 2 ? (uint32_t)p[1] << 8 : 0u);
    *out = sim_from_bits(dt, w >> (bit % 8) & ((1u << n) - 1)).f;
    return true;
}

bool sim_read_smem_operand(SimLaunch *l, SimThread *t, const SimSmemOperand *o, IrDType dt,
                           int rows, int k, double *out, uint32_t *range, TxSpan at)
{
    if (ir_dtype_subbyte(dt) && dt.bits == 8) {
        if (o->mn_major) {
            sim_fail(l, t, at, "not modelled: an MN-major fp6 / fp4 operand");
            return false;
        }
        for (int r = 0; r < rows; r++)
            for (int kk = 0; kk < k; kk++)
                if (!read_grouped(l, t, o, dt, r, kk, &out[r * k + kk], at))
                    return false;
        return true;
    }
    bool packed = dt.bits == 4; /* two to a byte along K, the lower nibble first */
    int esize = packed ? 1 : dt.bits / 8;
    IrDType unit = packed ? IR_UINT8 : dt;
    for (int r = 0; r < rows; r++)
        for (int kk = 0; kk < k; kk++) {
            SimVal v;
            uint64_t a = sim_shared_generic(l, element_addr(o, r, packed ? kk / 2 : kk, esize));
            if (!sim_load(l, t, a, unit, &v, at))
                return false;
            if (range) {
                uint32_t off = (uint32_t)sim_shared_window(l, a);
                sim_mark(l, a, (size_t)esize, SIM_PEND_READ);
                range[0] = off < range[0] ? off : range[0];
                range[1] = off + (uint32_t)esize > range[1] ? off + (uint32_t)esize : range[1];
            }
            if (packed)
                v = sim_from_bits(dt, (uint64_t)v.i >> (4 * (kk % 2)) & 15);
            out[r * k + kk] = sim_is_float(dt) ? v.f : (double)v.i;
        }
    return true;
}

double sim_tf32_value(double f)
{
    SimVal v = {.f = f};
    return sim_from_bits(IR_FLOAT32, sim_to_bits(IR_FLOAT32, v) & ~(uint64_t)0x1fff).f;
}

/* ---------------------------------------------------------------- the MMA */

static IrDType wgmma_type(const char *tok)
{
    return !strcmp(tok, "bf16") ? IR_BFLOAT16 : !strcmp(tok, "f16") ? IR_FLOAT16
           : !strcmp(tok, "tf32") ? IR_FLOAT32
           : !strcmp(tok, "e4m3") ? (IrDType){IR_DT_F8E4M3FN, 8, 1}
           : !strcmp(tok, "e5m2") ? (IrDType){IR_DT_F8E5M2, 8, 1} : IR_VOID;
}

typedef struct Shape {
    int m, n, k;
    IrDType a, b, d;
} Shape;

static bool shape_of(SimLaunch *l, SimThread *t, const SimPtx *p, Shape *s, TxSpan at)
{
    s->a = wgmma_type(sim_ptx_slot(p, "atype"));
    s->b = wgmma_type(sim_ptx_slot(p, "btype"));
    s->d = !strcmp(sim_ptx_slot(p, "dtype"), "f32") ? IR_FLOAT32 : IR_FLOAT16;
    bool ok = sscanf(sim_ptx_slot(p, "shape"), "m%dn%dk%d", &s->m, &s->n, &s->k) == 3 &&
              s->a.code != IR_DT_VOID && s->b.code != IR_DT_VOID;
    if (!ok)
        sim_fail(l, t, at, "not modelled: wgmma.%s.%s.%s.%s", sim_ptx_slot(p, "shape"),
                 sim_ptx_slot(p, "dtype"), sim_ptx_slot(p, "atype"), sim_ptx_slot(p, "btype"));
    return ok;
}

/* Row and column of element i of thread tid (0..127) in a fragment of
 * `per` elements per register and k columns (the accumulator: per 2, k 16). */
static void frag_pos(int tid, int i, int per, int k, int *row, int *col)
{
    int w = tid / 32, lane = tid % 32, r = i / per;
    *row = 16 * w + lane / 4 + 8 * (r % 2);
    *col = r / 2 * (k / 2) + lane % 4 * per + i % per;
}

static void acc_pos(int tid, int i, int *row, int *col) { frag_pos(tid, i, 2, 16, row, col); }

/* A (64 x K) from the four registers `a` of the warpgroup's threads. */
static void read_register_a(SimLaunch *l, SimCta *c, int first, const SimPtx *p, const Shape *s,
                            double *A)
{
    int per = 32 / s->a.bits;
    for (int tid = 0; tid < 128; tid++) {
        SimThread *t = &c->threads[first + tid];
        for (int i = 0; i < 4 * per; i++) {
            int row, col;
            frag_pos(tid, i, per, s->k, &row, &col);
            uint64_t reg = (uint64_t)sim_ptx_value(l, t, p, "a", i / per);
            uint64_t bits = reg >> (s->a.bits * (i % per)) & (((uint64_t)1 << s->a.bits) - 1);
            A[row * s->k + col] = sim_from_bits(s->a, bits).f;
        }
    }
}

/* t's registers of an operand (the accumulator d, or A read from registers:
 * `input`; the elements of one local buffer) pending until its
 * wgmma.wait_group; the oldest is forgotten when too many are. */
static void pending_regs(SimLaunch *l, SimThread *t, const SimPtx *p, const IrPtxOperand *d,
                         bool input, TxSpan at)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    const IrExpr *buf = NULL;
    for (int r = 0; r < d->lanes; r++) {
        const IrExpr *a = p->c->args[d->first_arg + r];
        uint64_t addr;
        if (!sim_local_addr(l, t, a, &addr) || (buf && a->u.access.buffer != buf))
            return;
        buf = a->u.access.buffer;
        size_t n = a->dtype.bits / 8;
        lo = addr < lo ? addr : lo;
        hi = addr + n > hi ? addr + n : hi;
    }
    if (t->nacc == SIM_MAX_ACC)
        memmove(t->acc, t->acc + 1, sizeof t->acc[0] * (SIM_MAX_ACC - 1)), t->nacc--;
    t->acc[t->nacc].lo = lo, t->acc[t->nacc].hi = hi;
    t->acc[t->nacc].group = t->wg_groups, t->acc[t->nacc].at = at;
    t->acc[t->nacc].input = input;
    t->nacc++;
}

/* Register i of an f16 accumulator packs two halves; f32 is one value. */
static void product(SimLaunch *l, SimCta *c, int first, const SimPtx *p, const Shape *s,
                    const double *A, const double *B, TxSpan at)
{
    const IrPtxOperand *d = sim_ptx_operand(p, "d");
    int per = s->d.bits == 32 ? 1 : 2;
    double *D = calloc((size_t)(s->m * s->n), sizeof *D);
    if (!D) {
        sim_fail(l, &c->threads[first], at, "out of memory");
        return;
    }
    for (int tid = 0; tid < 128; tid++) {
        SimThread *t = &c->threads[first + tid];
        bool acc = sim_ptx_value(l, t, p, "scale_d", 0) != 0;
        for (int i = 0; acc && i < d->lanes * per; i++) {
            int row, col;
            acc_pos(tid, i, &row, &col);
            SimVal v = sim_eval(l, t, p->c->args[d->first_arg + i / per], 0);
            if (per == 2)
                v = sim_from_bits(IR_FLOAT16, (uint64_t)v.i >> (16 * (i % 2)) & 0xffff);
            D[row * s->n + col] = v.f;
        }
    }
    int sa = (int)sim_ptx_value(l, &c->threads[first], p, "scale_a", 0);
    int sb = (int)sim_ptx_value(l, &c->threads[first], p, "scale_b", 0);
    for (int m = 0; m < s->m; m++)
        for (int n = 0; n < s->n; n++) {
            double sum = D[m * s->n + n];
            for (int k = 0; k < s->k; k++)
                sum += (sa < 0 ? -1 : 1) * A[m * s->k + k] * (sb < 0 ? -1 : 1) * B[n * s->k + k];
            D[m * s->n + n] = sim_round(s->d, sum);
        }
    for (int tid = 0; tid < 128 && !sim_failed(l); tid++) {
        SimThread *t = &c->threads[first + tid];
        for (int r = 0; r < d->lanes; r++) {
            int row, col;
            SimVal v = {0};
            for (int h = 0; h < per; h++) {
                acc_pos(tid, r * per + h, &row, &col);
                if (per == 1)
                    v.f = D[row * s->n + col];
                else
                    v.i |= (int64_t)(sim_to_bits(IR_FLOAT16, (SimVal){.f = D[row * s->n + col]})
                                     << (16 * h));
            }
            sim_assign(l, t, p->c->args[d->first_arg + r], v);
        }
        pending_regs(l, t, p, d, false, at);
        if (sim_ptx_operand(p, "a") && !sim_ptx_operand(p, "a_desc"))
            pending_regs(l, t, p, sim_ptx_operand(p, "a"), true, at);
    }
    free(D);
}

void sim_wgmma(SimLaunch *l, SimCta *c, int group, const IrCall *call, TxSpan at)
{
    SimPtx p;
    sim_ptx_resolve(call, &p);
    int first = group * 128;
    SimThread *t0 = &c->threads[first];
    Shape s;
    Operand oa = {0}, ob = {0};
    bool rs = !sim_ptx_operand(&p, "a_desc");
    if (!shape_of(l, t0, &p, &s, at) ||
        (!rs && !decode(l, t0, (uint64_t)sim_ptx_value(l, t0, &p, "a_desc", 0), &oa, at)) ||
        !decode(l, t0, (uint64_t)sim_ptx_value(l, t0, &p, "b_desc", 0), &ob, at))
        return;
    oa.mn_major = sim_ptx_value(l, t0, &p, "trans_a", 0) != 0;
    ob.mn_major = sim_ptx_value(l, t0, &p, "trans_b", 0) != 0;
    double *A = malloc(sizeof *A * (size_t)(s.m * s.k)), *B = malloc(sizeof *B * (size_t)(s.n * s.k));
    uint32_t range[2] = {UINT32_MAX, 0};
    if (!A || !B) {
        sim_fail(l, t0, at, "out of memory");
    } else if (rs) {
        read_register_a(l, c, first, &p, &s, A);
    } else {
        l->proxy_read = "wgmma";
        sim_read_smem_operand(l, t0, &oa, s.a, s.m, s.k, A, range, at);
    }
    l->proxy_read = "wgmma";
    if (!sim_failed(l))
        sim_read_smem_operand(l, t0, &ob, s.b, s.n, s.k, B, range, at);
    l->proxy_read = NULL;
    if (!sim_failed(l) && !strcmp(sim_ptx_slot(&p, "atype"), "tf32")) {
        for (int i = 0; i < s.m * s.k; i++)
            A[i] = sim_tf32_value(A[i]);
        for (int i = 0; i < s.n * s.k; i++)
            B[i] = sim_tf32_value(B[i]);
    }
    if (!sim_failed(l) && range[0] < range[1])
        sim_async_add(l, (SimAsync){.kind = SIM_ASYNC_WGMMA, .cta = c, .lo = range[0],
                                    .hi = range[1], .icta = c, .issuer = first,
                                    .group = t0->wg_groups, .at = at});
    l->agent = true; /* the accumulators are read by the MMA, not the thread */
    if (!sim_failed(l))
        product(l, c, first, &p, &s, A, B, at);
    l->agent = false;
    free(A);
    free(B);
}
