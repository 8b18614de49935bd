/* T.ptx instructions in the simulator. The operands come from the PTX table
 * (ir_ptx_operands: which arguments are read, which written, how many
 * registers a group has, the state space of an address), the semantics from
 * the entry: loads and stores (scalar and vector, global, shared and
 * generic), mov, prmt, half-precision add / sub / mul / fma / neg, fp8 pairs
 * to f16x2 / bf16x2 (cvt), bar.sync / barrier.sync
 * and bar.arrive (named barriers, counts), warp
 * shuffles, votes, elect.sync, redux.sync, ldmatrix and mma.sync (coll.c
 * rendezvous; the fragments here), fences, prefetches, setmaxnreg and
 * griddepcontrol as no-ops (the simulator runs a host function's kernels one after another,
 * so a programmatic dependent launch's wait has nothing to wait for). Any
 * other entry is an error "not modelled: ptx.<mnemonic>". */
#include <math.h>
#include <string.h>

#include "internal.h"

void sim_ptx_resolve(const IrCall *c, SimPtx *p)
{
    p->c = c;
    p->r.entry = c->ptx_entry;
    p->r.nslots = c->nptx_slots < IR_PTX_MAX_SLOTS ? c->nptx_slots : IR_PTX_MAX_SLOTS;
    for (int i = 0; i < p->r.nslots; i++)
        p->r.slots[i] = c->ptx_slots[i];
    p->nops = ir_ptx_operands(&p->r, p->ops, IR_PTX_MAX_SLOTS);
}

const char *sim_ptx_slot(const SimPtx *p, const char *name)
{
    for (int i = 0; i < p->r.nslots; i++)
        if (!strcmp(ir_ptx_slot_name(p->r.entry, i), name))
            return p->r.slots[i];
    return "";
}

const IrPtxOperand *sim_ptx_operand(const SimPtx *p, const char *name)
{
    for (int i = 0; i < p->nops; i++) {
        const IrPtxOperand *o = &p->ops[i];
        bool passed = o->first_arg >= 0 && o->lanes > 0 && o->first_arg + o->lanes <= p->c->nargs;
        if (!strcmp(o->name, name))
            return passed || o->kind == IR_PTX_OPND_TEXT ? o : NULL;
    }
    return NULL;
}

int64_t sim_ptx_value(SimLaunch *l, SimThread *t, const SimPtx *p, const char *name, int lane)
{
    const IrPtxOperand *o = sim_ptx_operand(p, name);
    return o ? sim_eval(l, t, p->c->args[o->first_arg + lane], 0).i : 0;
}

uint64_t sim_ptx_address(SimLaunch *l, SimThread *t, const SimPtx *p, const IrPtxOperand *o)
{
    uint64_t a = (uint64_t)sim_eval(l, t, p->c->args[o->first_arg], 0).i;
    const char *sp = o->space && o->space[0] ? o->space : sim_ptx_slot(p, "space");
    if (!strncmp(sp, "shared", 6)) /* a mapa address may stand for a shared::cta one */
        return sim_cluster_generic(l, a);
    return a;
}

/* The dtype of a PTX type token ("u32", "f16", "b64"); bits 0 when none. */
static IrDType type_of(const char *tok)
{
    IrDType t = {IR_DT_UINT, 0, 1};
    if (!tok[0] || !tok[1])
        return t;
    int bits = 0;
    for (const char *s = tok + 1; *s >= '0' && *s <= '9'; s++)
        bits = bits * 10 + (*s - '0');
    if (!strcmp(tok, "bf16"))
        return IR_BFLOAT16;
    if (!strcmp(tok, "pred"))
        return IR_BOOL;
    t.bits = (uint8_t)bits;
    t.code = tok[0] == 's' ? IR_DT_INT : tok[0] == 'f' ? IR_DT_FLOAT : IR_DT_UINT;
    return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? t : (IrDType){IR_DT_UINT, 0, 1};
}

uint64_t sim_arg_bits(SimLaunch *l, SimThread *t, const IrExpr *a)
{
    IrDType dt = ir_dtype_with_lanes(a->dtype, 1);
    return sim_to_bits(dt, sim_eval(l, t, a, 0));
}

/* Writes `bits` (a register of `bits_w` bits) into the output argument a. */
bool sim_set_bits(SimLaunch *l, SimThread *t, const IrExpr *a, uint64_t bits, int bits_w)
{
    IrDType dt = ir_dtype_with_lanes(a->dtype, 1);
    if (dt.bits == bits_w || !bits_w)
        return sim_assign(l, t, a, sim_from_bits(dt, bits));
    IrDType src = {IR_DT_UINT, (uint8_t)bits_w, 1};
    return sim_assign(l, t, a, sim_convert(src, dt, sim_from_bits(src, bits)));
}

static const IrExpr *arg(const SimPtx *p, const IrPtxOperand *o, int lane)
{
    return p->c->args[o->first_arg + lane];
}

/* ---------------------------------------------------------------- memory */

/* ld.b128 into one 128-bit value: the simulator's values hold 64 bits, so
 * it is modelled while the high half is zero (a clusterlaunchcontrol
 * response, which the simulator leaves "not canceled") and refused after. */
static void ld_b128(SimLaunch *l, SimThread *t, const SimPtx *p, const IrExpr *e)
{
    const IrPtxOperand *d = sim_ptx_operand(p, "d");
    uint64_t addr = sim_ptx_address(l, t, p, sim_ptx_operand(p, "addr"));
    SimVal lo, hi;
    if (!sim_load(l, t, addr, IR_UINT64, &lo, e->span) ||
        !sim_load(l, t, addr + 8, IR_UINT64, &hi, e->span))
        return;
    if (hi.i)
        sim_fail(l, t, e->span, "not modelled: ld.b128 of a value with its high 64 bits set");
    else
        sim_assign(l, t, arg(p, d, 0), lo);
}

static void ld(SimLaunch *l, SimThread *t, const SimPtx *p, const IrExpr *e)
{
    IrDType dt = type_of(sim_ptx_slot(p, "type"));
    const IrPtxOperand *d = sim_ptx_operand(p, "d"), *a = sim_ptx_operand(p, "addr");
    if (!strcmp(sim_ptx_slot(p, "type"), "b128") && d && a && d->lanes == 1) {
        ld_b128(l, t, p, e);
        return;
    }
    if (!dt.bits || !d || !a) {
        sim_fail(l, t, e->span, "not modelled: ld.%s", sim_ptx_slot(p, "type"));
        return;
    }
    uint64_t addr = sim_ptx_address(l, t, p, a);
    if (!strcmp(sim_ptx_slot(p, "sem"), "acquire")) /* a flag another CTA released */
        l->cta_acquired[sim_cta_linear(l)] = 1;
    for (int i = 0; i < d->lanes && !sim_failed(l); i++) {
        SimVal v;
        if (sim_load(l, t, addr + (uint64_t)i * dt.bits / 8, dt, &v, e->span))
            sim_set_bits(l, t, arg(p, d, i), sim_to_bits(dt, v), dt.bits);
    }
}

static void st(SimLaunch *l, SimThread *t, const SimPtx *p, const IrExpr *e)
{
    IrDType dt = type_of(sim_ptx_slot(p, "type"));
    const IrPtxOperand *v = sim_ptx_operand(p, "value"), *a = sim_ptx_operand(p, "addr");
    if (!dt.bits || !v || !a) {
        sim_fail(l, t, e->span, "not modelled: st.%s", sim_ptx_slot(p, "type"));
        return;
    }
    uint64_t addr = sim_ptx_address(l, t, p, a);
    for (int i = 0; i < v->lanes && !sim_failed(l); i++) {
        uint64_t bits = sim_arg_bits(l, t, arg(p, v, i));
        sim_store(l, t, addr + (uint64_t)i * dt.bits / 8, dt, sim_from_bits(dt, bits), e->span);
    }
}

/* ---------------------------------------------------------------- warp and CTA sync */

static void bar(SimLaunch *l, SimThread *t, const SimPtx *p, const IrExpr *e)
{
    const IrPtxOperand *a = sim_ptx_operand(p, "a"), *b = sim_ptx_operand(p, "b");
    int id = (int)sim_eval(l, t, arg(p, a, 0), 0).i;
    int count = b ? (int)sim_eval(l, t, arg(p, b, 0), 0).i : 0;
    bool arrive = !strcmp(sim_ptx_slot(p, "action"), "arrive");
    if (!sim_failed(l))
        sim_barrier(l, t, id, count, arrive, e->span);
}

static void collective(SimLaunch *l, SimThread *t, const SimPtx *p, const IrExpr *e, SimCollOp op,
                       const char *in_name, const char *out_name)
{
    const IrPtxOperand *mo = sim_ptx_operand(p, "membermask"), *in = sim_ptx_operand(p, in_name);
    const IrPtxOperand *out = sim_ptx_operand(p, out_name);
    uint32_t mask = mo ? (uint32_t)sim_eval(l, t, arg(p, mo, 0), 0).i : 0xffffffffu;
    uint64_t vin[3] = {in ? sim_arg_bits(l, t, arg(p, in, 0)) : 0, 0, 32};
    if (op <= SIM_COLL_SHFL_XOR) {
        uint64_t c = (uint64_t)sim_eval(l, t, arg(p, sim_ptx_operand(p, "c"), 0), 0).i;
        vin[1] = (uint64_t)sim_eval(l, t, arg(p, sim_ptx_operand(p, "b"), 0), 0).i;
        /* c packs the clamp (bits 0-4) and the segment mask (bits 8-12) */
        vin[2] = 32 - ((c >> 8) & 31);
    }
    uint64_t res[SIM_COLL_MAX];
    if (sim_failed(l) || !sim_coll(l, t, op, mask, p->c, vin, 3, res, e->span))
        return;
    if (out && op != SIM_COLL_ELECT)
        sim_set_bits(l, t, arg(p, out, 0), res[0], 32);
    const IrPtxOperand *pr = sim_ptx_operand(p, "p");
    if (pr && op == SIM_COLL_ELECT)
        sim_set_bits(l, t, arg(p, pr, 0), res[0], 0);
}

static SimCollOp shfl_mode(const char *m)
{
    return !strcmp(m, "up") ? SIM_COLL_SHFL_UP : !strcmp(m, "down") ? SIM_COLL_SHFL_DOWN
           : !strcmp(m, "bfly") ? SIM_COLL_SHFL_XOR : SIM_COLL_SHFL_IDX;
}

static SimCollOp vote_mode(const char *m)
{
    return !strcmp(m, "all") ? SIM_COLL_ALL : !strcmp(m, "any") ? SIM_COLL_ANY : SIM_COLL_BALLOT;
}

static SimCollOp redux_mode(const char *m)
{
    return !strcmp(m, "min") ? SIM_COLL_REDUX_MIN : !strcmp(m, "max") ? SIM_COLL_REDUX_MAX
                                                                     : SIM_COLL_REDUX_ADD;
}

/* ---------------------------------------------------------------- ldmatrix and mma */

static void fragment_op(SimLaunch *l, SimThread *t, const SimPtx *p, const IrExpr *e, SimCollOp op)
{
    uint64_t in[SIM_COLL_MAX] = {0};
    int nin = 0;
    for (int k = 0; k < p->nops; k++) {
        const IrPtxOperand *o = &p->ops[k];
        if (o->rw == 'w' || o->kind == IR_PTX_OPND_TEXT)
            continue;
        for (int i = 0; i < o->lanes && nin < SIM_COLL_MAX; i++)
            in[nin++] = o->kind == IR_PTX_OPND_ADDR ? sim_ptx_address(l, t, p, o)
                                                    : sim_arg_bits(l, t, arg(p, o, i));
    }
    uint64_t res[SIM_COLL_MAX];
    if (sim_failed(l) || !sim_coll(l, t, op, 0xffffffffu, p->c, in, nin, res, e->span))
        return;
    const IrPtxOperand *d = &p->ops[0];
    for (int i = 0; d->rw == 'w' && i < d->lanes && i < SIM_COLL_MAX; i++)
        sim_set_bits(l, t, arg(p, d, i), res[i], 32);
}

static int count_of(const char *num) { return num[0] == 'x' ? num[1] - '0' : 1; }

void sim_ldmatrix(SimLaunch *l, SimCta *c, SimWarpColl *w, int warp, uint64_t res[32][SIM_COLL_MAX])
{
    SimPtx p;
    sim_ptx_resolve(w->call, &p);
    int n = count_of(sim_ptx_slot(&p, "num"));
    bool trans = sim_ptx_slot(&p, "trans")[0] != 0;
    uint16_t m[4][8][8];
    for (int k = 0; k < n; k++)
        for (int r = 0; r < 8; r++) {
            SimThread *src = &c->threads[warp * 32 + k * 8 + r];
            uint8_t *row = sim_mem_read(l, src, w->in[k * 8 + r][0], 16, w->at);
            if (!row)
                return;
            memcpy(m[k][r], row, 16);
        }
    for (int i = 0; i < 32; i++)
        for (int k = 0; k < n; k++) {
            int g = i / 4, q = i % 4 * 2;
            uint16_t lo = trans ? m[k][q][g] : m[k][g][q], hi = trans ? m[k][q + 1][g] : m[k][g][q + 1];
            res[i][k] = (uint64_t)lo | (uint64_t)hi << 16;
        }
}

static double half_of(IrDType t, uint64_t reg, int hi)
{
    return sim_from_bits(t, reg >> (hi * 16) & 0xffff).f;
}

void sim_mma(SimLaunch *l, SimCta *c, SimWarpColl *w, int warp, uint64_t res[32][SIM_COLL_MAX])
{
    SimPtx p;
    sim_ptx_resolve(w->call, &p);
    const char *shape = sim_ptx_slot(&p, "shape");
    IrDType at = type_of(sim_ptx_slot(&p, "atype")), bt = type_of(sim_ptx_slot(&p, "btype"));
    IrDType ct = type_of(sim_ptx_slot(&p, "ctype")), dt = type_of(sim_ptx_slot(&p, "dtype"));
    int k = !strcmp(shape, "m16n8k16") ? 16 : !strcmp(shape, "m16n8k8") ? 8 : 0;
    if (!k || at.bits != 16 || bt.bits != 16 || strcmp(sim_ptx_slot(&p, "alayout"), "row") ||
        strcmp(sim_ptx_slot(&p, "blayout"), "col")) {
        sim_fail(l, &c->threads[warp * 32], w->at, "not modelled: mma.%s.%s.%s.%s.%s", shape,
                 sim_ptx_slot(&p, "alayout"), sim_ptx_slot(&p, "blayout"), sim_ptx_slot(&p, "atype"), sim_ptx_slot(&p, "btype"));
        return;
    }
    int na = k / 4, nb = k / 8, nc = ct.bits == 32 ? 4 : 2;
    double A[16][16], B[16][8], C[16][8];
    for (int i = 0; i < 32; i++) {
        int g = i / 4, q = i % 4 * 2;
        const uint64_t *in = w->in[i];
        for (int j = 0; j < na; j++)
            for (int h = 0; h < 2; h++)
                A[g + 8 * (j & 1)][q + 8 * (j >> 1) + h] = half_of(at, in[j], h);
        for (int j = 0; j < nb; j++)
            for (int h = 0; h < 2; h++)
                B[q + 8 * j + h][g] = half_of(bt, in[na + j], h);
        for (int j = 0; j < nc; j++) {
            if (nc == 4)
                C[g + 8 * (j >> 1)][q + (j & 1)] = sim_from_bits(ct, in[na + nb + j]).f;
            else
                for (int h = 0; h < 2; h++)
                    C[g + 8 * j][q + h] = half_of(ct, in[na + nb + j], h);
        }
    }
    for (int i = 0; i < 32; i++) {
        int g = i / 4, q = i % 4 * 2;
        for (int j = 0; j < 4; j++) {
            int row = g + 8 * (j >> 1), col = q + (j & 1);
            double s = C[row][col];
            for (int kk = 0; kk < k; kk++)
                s += A[row][kk] * B[kk][col];
            SimVal v = {.f = sim_round(dt, s)};
            uint64_t bits = sim_to_bits(dt, v);
            if (dt.bits == 32)
                res[i][j] = bits;
            else
                res[i][j >> 1] |= bits << (16 * (j & 1));
        }
    }
}

void sim_stmatrix(SimLaunch *l, SimCta *c, SimWarpColl *w, int warp)
{
    SimPtx p;
    sim_ptx_resolve(w->call, &p);
    int n = count_of(sim_ptx_slot(&p, "num"));
    bool trans = sim_ptx_slot(&p, "trans")[0] != 0;
    uint16_t m[4][8][8];
    for (int i = 0; i < 32; i++)
        for (int k = 0; k < n; k++)
            for (int h = 0; h < 2; h++) {
                int g = i / 4, q = i % 4 * 2 + h;
                uint16_t v = (uint16_t)(w->in[i][1 + k] >> (16 * h));
                if (trans)
                    m[k][q][g] = v;
                else
                    m[k][g][q] = v;
            }
    for (int k = 0; k < n; k++)
        for (int r = 0; r < 8; r++) {
            SimThread *dst = &c->threads[warp * 32 + k * 8 + r];
            uint8_t *row = sim_mem_write(l, dst, w->in[k * 8 + r][0], 16, w->at);
            if (!row)
                return;
            memcpy(row, m[k][r], 16);
        }
}

/* ---------------------------------------------------------------- dispatch */

static void mov(SimLaunch *l, SimThread *t, const SimPtx *p)
{
    const IrPtxOperand *d = sim_ptx_operand(p, "d"), *a = sim_ptx_operand(p, "a");
    IrDType dt = type_of(sim_ptx_slot(p, "type"));
    int w = dt.bits ? dt.bits : 32;
    uint64_t bits = 0;
    for (int i = 0; i < a->lanes; i++)
        bits |= sim_arg_bits(l, t, arg(p, a, i)) << (i * (w / a->lanes));
    int per = w / d->lanes;
    for (int i = 0; i < d->lanes; i++)
        sim_set_bits(l, t, arg(p, d, i), per >= 64 ? bits : bits >> (i * per) & ((1ull << per) - 1),
                 per);
}

/* cvt.rn[.relu][.satfinite].{f16x2,bf16x2}.{e4m3x2,e5m2x2}: the two fp8
 * values of a's 16 bits (the high byte to the high half), each exact in the
 * destination; .relu takes negatives to 0. .satfinite changes nothing from
 * e4m3 (finite); from e5m2, and the scaled form, it is not modelled. */
static void cvt_f8x2(SimLaunch *l, SimThread *t, const SimPtx *p, const IrExpr *e)
{
    bool e4m3 = !strcmp(sim_ptx_slot(p, "atype"), "e4m3x2");
    if (sim_ptx_slot(p, "scaled")[0] || (!e4m3 && sim_ptx_slot(p, "satfinite")[0])) {
        sim_fail(l, t, e->span, "not modelled: a scaled or satfinite cvt from e5m2x2");
        return;
    }
    IrDType from = {e4m3 ? IR_DT_F8E4M3FN : IR_DT_F8E5M2, 8, 1};
    IrDType to = !strcmp(sim_ptx_slot(p, "dtype"), "f16x2") ? IR_FLOAT16 : IR_BFLOAT16;
    bool relu = sim_ptx_slot(p, "relu")[0] != 0;
    uint64_t a = sim_arg_bits(l, t, arg(p, sim_ptx_operand(p, "a"), 0)), d = 0;
    for (int i = 0; i < 2; i++) {
        SimVal v = sim_from_bits(from, a >> (8 * i) & 0xff);
        if (relu && v.f < 0)
            v.f = 0;
        d |= sim_to_bits(to, v) << (16 * i);
    }
    sim_set_bits(l, t, arg(p, sim_ptx_operand(p, "d"), 0), d, 32);
}

/* cvt.rn[.relu][.satfinite].{f16x2,bf16x2}.f32 d, a, b: a to d's upper half,
 * b to its lower, each rounded to nearest even; a NaN is the canonical
 * 0x7fff, .relu takes negatives to +0, .satfinite takes infinities and
 * values past the largest finite to it. .rz is not modelled. */
static void cvt_x2_f32(SimLaunch *l, SimThread *t, const SimPtx *p, const IrExpr *e)
{
    if (strcmp(sim_ptx_slot(p, "rnd"), "rn")) {
        sim_fail(l, t, e->span, "not modelled: a cvt to a 16-bit pair rounding other than .rn");
        return;
    }
    IrDType to = !strcmp(sim_ptx_slot(p, "dtype"), "f16x2") ? IR_FLOAT16 : IR_BFLOAT16;
    bool relu = sim_ptx_slot(p, "relu")[0], sat = sim_ptx_slot(p, "satfinite")[0];
    double max = to.code == IR_DT_BFLOAT ? 0x1.fep127 : 65504.0;
    uint64_t d = 0;
    const char *names[2] = {"b", "a"};
    for (int k = 0; k < 2; k++) {
        uint32_t bits = (uint32_t)sim_arg_bits(l, t, arg(p, sim_ptx_operand(p, names[k]), 0));
        float f;
        memcpy(&f, &bits, sizeof f);
        SimVal v = {.f = relu && !isnan(f) && f < 0 ? 0.0 : f};
        uint64_t h = isnan(v.f) ? 0x7fff : sim_to_bits(to, v);
        if (sat && !isnan(v.f) && fabs(sim_from_bits(to, h).f) > max)
            h = sim_to_bits(to, (SimVal){.f = copysign(max, v.f)});
        d |= h << (16 * k);
    }
    sim_set_bits(l, t, arg(p, sim_ptx_operand(p, "d"), 0), d, 32);
}

/* prmt.b32[.mode] d, a, b, c: four bytes of the eight of {b, a} (a's low
 * byte is byte 0). Without a mode each nibble of c picks a byte for the
 * corresponding byte of d, its high bit replicating the byte's sign bit
 * instead; a mode reads only c's low two bits (PTX ISA, prmt). */
static uint32_t prmt_bits(uint32_t a, uint32_t b, uint32_t c, const char *mode)
{
    uint64_t x = (uint64_t)b << 32 | a;
    unsigned n = c & 3, pick[4];
    for (unsigned i = 0; i < 4; i++) {
        unsigned s = c >> (4 * i) & 0xf;
        pick[i] = !strcmp(mode, "f4e")    ? (n + i) & 7
                  : !strcmp(mode, "b4e")  ? (n - i) & 7
                  : !strcmp(mode, "rc8")  ? n
                  : !strcmp(mode, "ecl")  ? (i > n ? i : n)
                  : !strcmp(mode, "ecr")  ? (i < n ? i : n)
                  : !strcmp(mode, "rc16") ? (n & 1) * 2 + (i & 1)
                                          : s;
    }
    uint32_t d = 0;
    for (unsigned i = 0; i < 4; i++) {
        uint32_t v = (uint32_t)(x >> (8 * (pick[i] & 7)) & 0xff);
        if (!mode[0] && pick[i] & 8)
            v = v & 0x80 ? 0xff : 0;
        d |= v << (8 * i);
    }
    return d;
}

static void prmt(SimLaunch *l, SimThread *t, const SimPtx *p)
{
    uint32_t a = (uint32_t)sim_arg_bits(l, t, arg(p, sim_ptx_operand(p, "a"), 0));
    uint32_t b = (uint32_t)sim_arg_bits(l, t, arg(p, sim_ptx_operand(p, "b"), 0));
    uint32_t c = (uint32_t)sim_arg_bits(l, t, arg(p, sim_ptx_operand(p, "c"), 0));
    sim_set_bits(l, t, arg(p, sim_ptx_operand(p, "d"), 0),
                 prmt_bits(a, b, c, sim_ptx_slot(p, "mode")), 32);
}

/* A 16-bit float of a half-precision instruction, .ftz flushing subnormals
 * to a zero of their sign. */
static double half_in(IrDType dt, uint64_t bits, bool ftz)
{
    double v = sim_from_bits(dt, bits & 0xffff).f;
    return ftz && v != 0 && fabs(v) < ldexp(1.0, dt.code == IR_DT_BFLOAT ? -126 : -14)
               ? copysign(0.0, v)
               : v;
}

/* p + c rounded to odd: the double sum, its lowest bit set when bits of the
 * exact sum were lost (a two-sum gives them). Rounding that to a 16-bit
 * float gives the exactly rounded sum, where rounding a plain double sum
 * again could break a tie the wrong way (an fma whose product lies halfway
 * between two bfloat16 values and whose addend is below double's last
 * place). */
static double sum_to_odd(double p, double c)
{
    double s = p + c;
    if (!isfinite(s))
        return s;
    double bb = s - p, e = (p - (s - bb)) + (c - bb);
    uint64_t u;
    memcpy(&u, &s, sizeof u);
    return e == 0 || u & 1 ? s : nextafter(s, e > 0 ? INFINITY : -INFINITY);
}

/* add / sub / mul / fma / neg of f16, f16x2, bf16, bf16x2 (rn; .ftz, .sat,
 * .relu): each lane computed in double (a product of two 16-bit floats is
 * exact there, a sum rounded to odd), then rounded once to the type. A NaN
 * result is the canonical 0x7fff; .sat clamps to [+0, 1] (NaN to +0), .relu
 * takes negatives and -0 to +0. .oob is not modelled. */
static void half_arith(SimLaunch *l, SimThread *t, const SimPtx *p, const IrExpr *e, int entry)
{
    if (sim_ptx_slot(p, "oob")[0]) {
        sim_fail(l, t, e->span, "not modelled: ptx.fma.oob");
        return;
    }
    const char *ty = sim_ptx_slot(p, "type");
    IrDType dt = !strncmp(ty, "bf16", 4) ? IR_BFLOAT16 : IR_FLOAT16;
    int lanes = strstr(ty, "x2") ? 2 : 1;
    bool ftz = sim_ptx_slot(p, "ftz")[0], sat = sim_ptx_slot(p, "sat")[0];
    bool relu = sim_ptx_slot(p, "relu")[0];
    uint64_t x[3] = {0};
    const char *names[3] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
        const IrPtxOperand *o = sim_ptx_operand(p, names[i]);
        if (o)
            x[i] = sim_arg_bits(l, t, arg(p, o, 0));
    }
    uint64_t d = 0;
    for (int k = 0; k < lanes; k++) {
        double a = half_in(dt, x[0] >> (16 * k), ftz), b = half_in(dt, x[1] >> (16 * k), ftz);
        double c = half_in(dt, x[2] >> (16 * k), ftz), r;
        switch (entry) {
        case IR_PTX_add_half: r = sum_to_odd(a, b); break;
        case IR_PTX_sub_half: r = sum_to_odd(a, -b); break;
        case IR_PTX_mul_half: r = a * b; break;
        case IR_PTX_fma_half: r = sum_to_odd(a * b, c); break;
        default: r = -a; break;
        }
        if (sat)
            r = isnan(r) || !(r > 0) ? 0 : r > 1 ? 1 : r;
        if (relu && !isnan(r) && signbit(r))
            r = 0;
        uint64_t bits = isnan(r) ? 0x7fff : sim_to_bits(dt, (SimVal){.f = r});
        if (ftz && fabs(sim_from_bits(dt, bits).f) < ldexp(1.0, dt.code == IR_DT_BFLOAT ? -126 : -14))
            bits &= 0x8000;
        d |= bits << (16 * k);
    }
    sim_set_bits(l, t, arg(p, sim_ptx_operand(p, "d"), 0), d, 16 * lanes);
}

/* add / sub / mul / fma .rn of f32 and f32x2 (two floats in 64 bits, the
 * first in the low half): each lane in float, rounded once (fmaf for fma).
 * Other roundings, .ftz, .sat and the mixed-precision sources are not
 * modelled. */
static void f32_arith(SimLaunch *l, SimThread *t, const SimPtx *p, const IrExpr *e, int entry)
{
    if (strcmp(sim_ptx_slot(p, "rnd"), "rn") || sim_ptx_slot(p, "ftz")[0] ||
        sim_ptx_slot(p, "sat")[0] || sim_ptx_slot(p, "srctype")[0] ||
        strncmp(sim_ptx_slot(p, "type"), "f32", 3)) {
        sim_fail(l, t, e->span, "not modelled: float32 arithmetic other than .rn f32 / f32x2");
        return;
    }
    int lanes = strcmp(sim_ptx_slot(p, "type"), "f32x2") ? 1 : 2;
    uint64_t x[3] = {0}, d = 0;
    const char *names[3] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
        const IrPtxOperand *o = sim_ptx_operand(p, names[i]);
        if (o)
            x[i] = sim_arg_bits(l, t, arg(p, o, 0));
    }
    for (int k = 0; k < lanes; k++) {
        float v[3], r;
        for (int i = 0; i < 3; i++) {
            uint32_t b = (uint32_t)(x[i] >> (32 * k));
            memcpy(&v[i], &b, sizeof b);
        }
        switch (entry) {
        case IR_PTX_add: r = v[0] + v[1]; break;
        case IR_PTX_sub: r = v[0] - v[1]; break;
        case IR_PTX_mul: r = v[0] * v[1]; break;
        default: r = fmaf(v[0], v[1], v[2]); break;
        }
        uint32_t b;
        memcpy(&b, &r, sizeof b);
        d |= (uint64_t)b << (32 * k);
    }
    sim_set_bits(l, t, arg(p, sim_ptx_operand(p, "d"), 0), d, 32 * lanes);
}

SimVal sim_ptx(SimLaunch *l, SimThread *t, const IrExpr *e)
{
    SimPtx p;
    sim_ptx_resolve(&e->u.call, &p);
    switch (p.r.entry) {
    case IR_PTX_ld: case IR_PTX_ld_vec: ld(l, t, &p, e); break;
    case IR_PTX_st: case IR_PTX_st_vec: st(l, t, &p, e); break;
    case IR_PTX_mov: case IR_PTX_mov_pack_b16x2: case IR_PTX_mov_unpack_b16x2:
    case IR_PTX_mov_pack_b32x2: case IR_PTX_mov_unpack_b32x2:
        mov(l, t, &p);
        break;
    case IR_PTX_bar_sync: case IR_PTX_bar_sync_count: case IR_PTX_barrier_sync:
    case IR_PTX_barrier_sync_count: case IR_PTX_bar_arrive: case IR_PTX_barrier_arrive:
        bar(l, t, &p, e);
        break;
    case IR_PTX_cvt_f16x2_f8x2: case IR_PTX_cvt_bf16x2_f8x2: cvt_f8x2(l, t, &p, e); break;
    case IR_PTX_cvt_f16x2_f32: case IR_PTX_cvt_bf16x2_f32: cvt_x2_f32(l, t, &p, e); break;
    case IR_PTX_add: case IR_PTX_sub: case IR_PTX_mul: case IR_PTX_fma:
        f32_arith(l, t, &p, e, p.r.entry);
        break;
    case IR_PTX_prmt: prmt(l, t, &p); break;
    case IR_PTX_add_half: case IR_PTX_sub_half: case IR_PTX_mul_half: case IR_PTX_fma_half:
    case IR_PTX_neg_half:
        half_arith(l, t, &p, e, p.r.entry);
        break;
    case IR_PTX_bar_warp_sync: collective(l, t, &p, e, SIM_COLL_SYNC, "", ""); break;
    case IR_PTX_shfl_sync: collective(l, t, &p, e, shfl_mode(sim_ptx_slot(&p, "mode")), "a", "d"); break;
    case IR_PTX_vote_sync: case IR_PTX_vote_sync_ballot:
        collective(l, t, &p, e, vote_mode(sim_ptx_slot(&p, "mode")), "a", "d");
        break;
    case IR_PTX_redux_sync: collective(l, t, &p, e, redux_mode(sim_ptx_slot(&p, "op")), "a", "d"); break;
    case IR_PTX_elect_sync: collective(l, t, &p, e, SIM_COLL_ELECT, "", ""); break;
    case IR_PTX_ldmatrix: fragment_op(l, t, &p, e, SIM_COLL_LDMATRIX); break;
    case IR_PTX_stmatrix: fragment_op(l, t, &p, e, SIM_COLL_STMATRIX); break;
    case IR_PTX_mma: case IR_PTX_mma_f16acc: fragment_op(l, t, &p, e, SIM_COLL_MMA); break;
    case IR_PTX_wgmma_f16_ss: case IR_PTX_wgmma_bf16_ss: case IR_PTX_wgmma_f16_f16acc_ss:
    case IR_PTX_wgmma_fp8_ss: case IR_PTX_wgmma_fp8_f16acc_ss: case IR_PTX_wgmma_tf32_ss:
    case IR_PTX_wgmma_f16_rs: case IR_PTX_wgmma_bf16_rs: case IR_PTX_wgmma_f16_f16acc_rs:
    case IR_PTX_wgmma_fp8_rs: case IR_PTX_wgmma_fp8_f16acc_rs: case IR_PTX_wgmma_tf32_rs:
        sim_group_coll(l, t, &e->u.call, e->span);
        break;
    case IR_PTX_fence_proxy:
        /* fence.proxy.async (of all spaces or shared memory): the thread's
         * generic writes so far are visible to the async proxy */
        if (!strcmp(sim_ptx_slot(&p, "proxykind"), "async") &&
            strcmp(sim_ptx_slot(&p, "space"), "global"))
            t->proxy_fenced = ++t->vc[t->gid];
        break;
    case IR_PTX_fence: /* of gpu or system scope: orders the CTA's stores for other CTAs */
        if (!strcmp(sim_ptx_slot(&p, "scope"), "gpu") || !strcmp(sim_ptx_slot(&p, "scope"), "sys"))
            l->cta_fences[sim_cta_linear(l)]++;
        break;
    case IR_PTX_fence_mbarrier_init:
    case IR_PTX_setmaxnreg: case IR_PTX_wgmma_fence: case IR_PTX_griddepcontrol:
    case IR_PTX_prefetch_valid_addr: case IR_PTX_prefetchu:
        break;
    case IR_PTX_prefetch:
        if (!strcmp(sim_ptx_slot(&p, "space"), "global"))
            sim_mem_prefetch(l, t, sim_ptx_address(l, t, &p, sim_ptx_operand(&p, "addr")), 1,
                             e->span);
        break;
    case IR_PTX_wgmma_commit_group: sim_commit_group(t, SIM_ASYNC_WGMMA); break;
    case IR_PTX_wgmma_wait_group:
        sim_wait_group(l, t, SIM_ASYNC_WGMMA, sim_ptx_value(l, t, &p, "group", 0));
        break;
    default: {
        if (sim_ptx_async(l, t, e, p.r.entry) || sim_tcgen05(l, t, e, &p))
            break;
        char mn[128];
        ir_ptx_mnemonic(&p.r, mn, sizeof mn);
        sim_fail(l, t, e->span, "not modelled: ptx.%s", mn);
    }
    }
    return (SimVal){.i = 0};
}
