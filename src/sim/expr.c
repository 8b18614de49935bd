/* Expressions in the simulator, one lane at a time: a vector expression
 * (Ramp, Broadcast, a vector load or cast) is evaluated once per lane,
 * scalar parts again for each lane (they have no side effects, apart from
 * atomics). Integer arithmetic wraps to the dtype; float arithmetic is done
 * in double and rounded to the dtype (exact for + - * / and sqrt of float32
 * and narrower; the transcendental functions are the C library's, correctly
 * rounded or nearly, where the GPU's are within a few ulps). Buffer accesses
 * are bounds-checked against the buffer's shape and then against memory.
 * Builtin calls the simulator does not model are errors ("not modelled"). */
#include <math.h>
#include <string.h>

#include "../arith/arith.h"
#include "internal.h"

static SimVal ival(int64_t i) { return (SimVal){.i = i}; }
static SimVal fval(double f) { return (SimVal){.f = f}; }

int sim_slot(SimLaunch *l, const IrExpr *var)
{
    uintptr_t s;
    return ir_ptrmap_get(&l->slot, var, &s) ? (int)s - 1 : -1;
}

static const char *name_of(const IrExpr *var)
{
    return var->kind == IR_E_VAR && var->u.var.name ? var->u.var.name : "?";
}

static SimVal var_value(SimLaunch *l, SimThread *t, const IrExpr *e)
{
    int s = sim_slot(l, e);
    if (s >= 0)
        return t->vals[s];
    sim_fail(l, t, e->span, "'%s' has no value in the kernel", name_of(e));
    return ival(0);
}

static bool is_unsigned(IrDType t) { return t.code == IR_DT_UINT; }

/* ---------------------------------------------------------------- arithmetic */

static SimVal int_binary(SimLaunch *l, SimThread *t, const IrExpr *e, IrDType dt, int64_t a,
                         int64_t b)
{
    IrExprKind k = e->kind;
    bool div = k == IR_E_DIV || k == IR_E_MOD || k == IR_E_FLOORDIV || k == IR_E_FLOORMOD;
    if (div && b == 0) {
        sim_fail(l, t, e->span, "integer division by zero");
        return ival(0);
    }
    /* the least int32 or int64 by -1 overflows, undefined in C++ (int8 and int16
     * are promoted to int: theirs wraps) */
    int64_t least = dt.bits >= 64 ? INT64_MIN : -((int64_t)1 << (dt.bits - 1));
    if (div && b == -1 && dt.code == IR_DT_INT && dt.bits >= 32 && a == least) {
        sim_fail(l, t, e->span, "integer division overflow: %lld / -1 in int%d is undefined",
                 (long long)a, dt.bits);
        return ival(0);
    }
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    bool u = is_unsigned(dt);
    switch (k) {
    case IR_E_ADD: return ival((int64_t)(ua + ub));
    case IR_E_SUB: return ival((int64_t)(ua - ub));
    case IR_E_MUL: return ival((int64_t)(ua * ub));
    case IR_E_DIV:
        return ival(u ? (int64_t)(ua / ub) : a / b);
    case IR_E_MOD: return ival(u ? (int64_t)(ua % ub) : a % b);
    case IR_E_FLOORDIV: {
        if (u)
            return ival((int64_t)(ua / ub));
        int64_t q = a / b;
        return ival((a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q);
    }
    case IR_E_FLOORMOD: {
        if (u)
            return ival((int64_t)(ua % ub));
        int64_t r = a % b;
        return ival((r != 0 && ((r < 0) != (b < 0))) ? r + b : r);
    }
    case IR_E_MIN: return ival(u ? (int64_t)(ua < ub ? ua : ub) : a < b ? a : b);
    case IR_E_MAX: return ival(u ? (int64_t)(ua > ub ? ua : ub) : a > b ? a : b);
    case IR_E_EQ: return ival(a == b);
    case IR_E_NE: return ival(a != b);
    case IR_E_LT: return ival(u ? ua < ub : a < b);
    case IR_E_LE: return ival(u ? ua <= ub : a <= b);
    case IR_E_GT: return ival(u ? ua > ub : a > b);
    case IR_E_GE: return ival(u ? ua >= ub : a >= b);
    case IR_E_AND: return ival(a && b);
    case IR_E_OR: return ival(a || b);
    default: return ival(0);
    }
}

/* fmaxf/fminf: a NaN operand gives the other one. */
static double fmax_nan(double a, double b) { return isnan(a) ? b : isnan(b) ? a : a > b ? a : b; }
static double fmin_nan(double a, double b) { return isnan(a) ? b : isnan(b) ? a : a < b ? a : b; }

/* floor(a / b) as the generated CUDA computes it: floorf of the float32
 * quotient (a float16 divides in float32 too), floor of the double one. */
static double floor_quotient(IrDType dt, double a, double b)
{
    return floor(dt.bits == 64 ? a / b : sim_round(IR_FLOAT32, a / b));
}

static SimVal float_binary(IrExprKind k, IrDType dt, double a, double b)
{
    switch (k) {
    case IR_E_ADD: return fval(sim_round(dt, a + b));
    case IR_E_SUB: return fval(sim_round(dt, a - b));
    case IR_E_MUL: return fval(sim_round(dt, a * b));
    case IR_E_DIV: return fval(sim_round(dt, a / b));
    case IR_E_FLOORDIV: return fval(sim_round(dt, floor_quotient(dt, a, b)));
    case IR_E_MOD: return fval(sim_round(dt, fmod(a, b)));
    /* a - q * b in one rounding: NVVM contracts it to an fma (--fmad=true) */
    case IR_E_FLOORMOD: return fval(sim_round(dt, a - floor_quotient(dt, a, b) * b));
    case IR_E_MIN: return fval(fmin_nan(a, b));
    case IR_E_MAX: return fval(fmax_nan(a, b));
    case IR_E_EQ: return ival(a == b);
    case IR_E_NE: return ival(a != b);
    case IR_E_LT: return ival(a < b);
    case IR_E_LE: return ival(a <= b);
    case IR_E_GT: return ival(a > b);
    case IR_E_GE: return ival(a >= b);
    case IR_E_AND: return ival(a != 0 && b != 0);
    case IR_E_OR: return ival(a != 0 || b != 0);
    default: return fval(0);
    }
}

static SimVal binary(SimLaunch *l, SimThread *t, const IrExpr *e, int lane)
{
    IrExprKind k = e->kind;
    IrDType dt = e->u.op.a->dtype;
    SimVal a = sim_eval(l, t, e->u.op.a, lane);
    if (k == IR_E_AND && !a.i && !sim_is_float(dt))
        return ival(0);
    if (k == IR_E_OR && a.i && !sim_is_float(dt))
        return ival(1);
    SimVal b = sim_eval(l, t, e->u.op.b, lane);
    if (sim_is_float(dt))
        return float_binary(k, e->dtype.code == IR_DT_BOOL ? dt : e->dtype, a.f, b.f);
    SimVal r = int_binary(l, t, e, dt, a.i, b.i);
    return ival(sim_wrap(e->dtype, r.i));
}

/* ---------------------------------------------------------------- buffers */

static int64_t eval_int(SimLaunch *l, SimThread *t, const IrExpr *e, int lane)
{
    return sim_eval(l, t, e, lane).i;
}

/* The byte of an access and, for a sub-byte element, its first bit in it. */
static bool bit_addr(SimLaunch *l, SimThread *t, const IrExpr *buffer, IrExpr *const *idx, int n,
                     int lane, bool check, TxSpan at, uint64_t *addr, int *shift)
{
    const IrBufferType *bt = ir_buf(buffer);
    int64_t flat = 0, size = 1;
    for (int d = bt->ndim - 1, k = n - 1; d >= 0; d--, k--) {
        int64_t ext = eval_int(l, t, bt->shape[d], 0);
        int64_t stride = bt->nstrides ? eval_int(l, t, bt->strides[d], 0) : size;
        if (k >= 0)
            flat += eval_int(l, t, idx[k], lane) * stride;
        size = bt->nstrides ? size : size * ext;
    }
    if (sim_failed(l))
        return false;
    if (check && !bt->nstrides && (flat < 0 || flat >= size)) {
        sim_fail(l, t, at, "index %lld is out of bounds of %s, which has %lld elements",
                 (long long)flat, name_of(buffer), (long long)size);
        return false;
    }
    flat += eval_int(l, t, bt->elem_offset, 0);
    IrDType et = buffer->u.var.type->dtype;
    int64_t bytes = et.bits < 8 ? 1 : (int64_t)(et.bits / 8) * et.lanes;
    int64_t bit = sim_packed(et) ? ir_subbyte_bit(et, flat) : flat * bytes * 8;
    *addr = (uint64_t)var_value(l, t, buffer).i + (uint64_t)(bit >> 3);
    *shift = (int)(bit & 7);
    return !sim_failed(l);
}

bool sim_access_addr(SimLaunch *l, SimThread *t, const IrExpr *buffer, IrExpr *const *idx, int n,
                     int lane, bool check, TxSpan at, uint64_t *addr)
{
    int shift;
    return bit_addr(l, t, buffer, idx, n, lane, check, at, addr, &shift);
}

static bool is_local(const IrExpr *buffer)
{
    const char *s = buffer->u.var.type->scope;
    return s && !strcmp(s, "local");
}

/* Whether the buffer's shape bounds its accesses: the views of a dynamic
 * shared-memory pool are declared with a placeholder shape and indexed past
 * it (the memory check still applies). */
static bool shaped(const IrExpr *buffer)
{
    const char *s = buffer->u.var.type->scope;
    return !s || strcmp(s, "shared.dyn");
}

/* The address of lane `lane` of an access whose dtype is dt (a vector
 * element of the buffer's dtype, or a lane of a scalar index's vector). */
static bool lane_addr(SimLaunch *l, SimThread *t, const IrExpr *buffer, IrExpr *const *idx,
                      int n, IrDType dt, int lane, TxSpan at, uint64_t *addr)
{
    bool vec_index = n > 0 && idx[n - 1]->dtype.lanes > 1;
    if (!sim_access_addr(l, t, buffer, idx, n, vec_index ? lane : 0, shaped(buffer), at, addr))
        return false;
    if (!vec_index && dt.lanes > 1)
        *addr += (uint64_t)lane * (dt.bits < 8 ? 1 : dt.bits / 8);
    return true;
}

/* The byte(s) holding a sub-byte element (one, or two when it straddles a
 * byte boundary), read or about to be written, and its first bit in them. */
static uint8_t *subbyte_bytes(SimLaunch *l, SimThread *t, const IrExpr *buffer,
                              IrExpr *const *idx, int n, bool write, TxSpan at, int *shift)
{
    uint64_t addr;
    if (!bit_addr(l, t, buffer, idx, n, 0, shaped(buffer), at, &addr, shift))
        return NULL;
    size_t bytes = *shift + ir_dtype_subbyte(buffer->u.var.type->dtype) > 8 ? 2 : 1;
    if (is_local(buffer))
        return (uint8_t *)(uintptr_t)addr;
    return write ? sim_mem_write(l, t, addr, bytes, at) : sim_mem_read(l, t, addr, bytes, at);
}

static SimVal subbyte_load(SimLaunch *l, SimThread *t, const IrExpr *e)
{
    const IrExpr *b = e->u.access.buffer;
    IrDType dt = b->u.var.type->dtype;
    int shift, bits = ir_dtype_subbyte(dt);
    const uint8_t *p = subbyte_bytes(l, t, b, e->u.access.indices, e->u.access.n, false, e->span,
                                     &shift);
    if (!p)
        return ival(0);
    uint32_t w = p[0] | (shift + bits > 8 ? (uint32_t)p[1] << 8 : 0u);
    return sim_from_bits(dt, w >> shift & ((1u << bits) - 1));
}

bool sim_subbyte_store(SimLaunch *l, SimThread *t, const IrExpr *buffer, IrExpr *const *idx,
                       int n, SimVal v, TxSpan at)
{
    IrDType dt = buffer->u.var.type->dtype;
    int shift, bits = ir_dtype_subbyte(dt);
    uint8_t *p = subbyte_bytes(l, t, buffer, idx, n, true, at, &shift);
    if (!p)
        return false;
    uint32_t mask = ((1u << bits) - 1) << shift, span = shift + bits > 8;
    uint32_t w = p[0] | (span ? (uint32_t)p[1] << 8 : 0u);
    w = (w & ~mask) | ((uint32_t)sim_to_bits(dt, v) << shift & mask);
    p[0] = (uint8_t)w;
    if (span)
        p[1] = (uint8_t)(w >> 8);
    return true;
}

static SimVal load(SimLaunch *l, SimThread *t, const IrExpr *e, int lane)
{
    const IrExpr *b = e->u.access.buffer;
    IrDType dt = ir_dtype_with_lanes(e->dtype, 1);
    if (sim_packed(b->u.var.type->dtype)) {
        if (!e->u.access.predicate)
            return subbyte_load(l, t, e);
        sim_fail(l, t, e->span, "not modelled: a predicated load of a sub-byte element");
        return ival(0);
    }
    if (e->u.access.predicate && !sim_eval(l, t, e->u.access.predicate, lane).i)
        return ival(0);
    uint64_t addr;
    if (!lane_addr(l, t, b, e->u.access.indices, e->u.access.n, e->dtype, lane, e->span, &addr))
        return ival(0);
    SimVal v = ival(0);
    if (is_local(b)) {
        if (t->nacc && sim_acc_pending(l, t, addr, false, e->span))
            return ival(0);
        uint64_t bits = 0; /* values hold 64 bits: the low half of a 128-bit local */
        memcpy(&bits, (void *)(uintptr_t)addr, dt.bits < 8 ? 1 : dt.bits > 64 ? 8 : dt.bits / 8);
        return sim_from_bits(dt, bits);
    }
    sim_load(l, t, addr, dt, &v, e->span);
    return v;
}

bool sim_local_addr(SimLaunch *l, SimThread *t, const IrExpr *e, uint64_t *addr)
{
    return e->kind == IR_E_LOAD && is_local(e->u.access.buffer) &&
           lane_addr(l, t, e->u.access.buffer, e->u.access.indices, e->u.access.n, e->dtype, 0,
                     e->span, addr);
}

bool sim_assign(SimLaunch *l, SimThread *t, const IrExpr *lhs, SimVal v)
{
    if (lhs->kind != IR_E_LOAD) {
        sim_fail(l, t, lhs->span, "not modelled: an output operand that is not a buffer element");
        return false;
    }
    const IrExpr *b = lhs->u.access.buffer;
    uint64_t addr;
    if (sim_packed(b->u.var.type->dtype))
        return sim_subbyte_store(l, t, b, lhs->u.access.indices, lhs->u.access.n, v, lhs->span);
    if (!lane_addr(l, t, b, lhs->u.access.indices, lhs->u.access.n, lhs->dtype, 0, lhs->span,
                   &addr))
        return false;
    if (is_local(b)) {
        if (t->nacc && sim_acc_pending(l, t, addr, true, lhs->span))
            return false;
        uint64_t bits = sim_to_bits(lhs->dtype, v);
        size_t n = lhs->dtype.bits < 8 ? 1 : lhs->dtype.bits / 8;
        memcpy((void *)(uintptr_t)addr, &bits, n > 8 ? 8 : n);
        if (n > 8) /* a 128-bit local: its high half is zero */
            memset((uint8_t *)(uintptr_t)addr + 8, 0, n - 8);
        return true;
    }
    return sim_store(l, t, addr, lhs->dtype, v, lhs->span);
}

/* ---------------------------------------------------------------- calls */

static SimVal reinterpret(SimLaunch *l, SimThread *t, const IrExpr *e, int lane)
{
    const IrExpr *a = e->u.call.args[0];
    IrDType to = ir_dtype_with_lanes(e->dtype, 1), from = ir_dtype_with_lanes(a->dtype, 1);
    int tb = to.bits, fb = from.bits;
    if (tb * e->dtype.lanes != fb * a->dtype.lanes || tb * e->dtype.lanes > 64) {
        if (tb == fb)
            return sim_from_bits(to, sim_to_bits(from, sim_eval(l, t, a, lane)));
        sim_fail(l, t, e->span, "not modelled: T.reinterpret between %d and %d bits",
                 fb * a->dtype.lanes, tb * e->dtype.lanes);
        return ival(0);
    }
    uint64_t bits = 0;
    for (int i = 0; i < a->dtype.lanes; i++)
        bits |= sim_to_bits(from, sim_eval(l, t, a, i)) << (i * fb);
    uint64_t mask = tb >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << tb) - 1;
    return sim_from_bits(to, bits >> (lane * tb) & mask);
}

/* ---------------------------------------------------------------- packed pairs */

/* The prelude's packed pairs (float2 in a uint64, bfloat162 in a uint32, x
 * in the low half), bit for bit as its CUDA computes them. */

/* Argument i as the float32 the prelude's float parameter receives. */
static SimVal f32_arg(SimLaunch *l, SimThread *t, const IrCall *c, int i, int lane)
{
    const IrExpr *a = c->args[i];
    return sim_convert(ir_dtype_with_lanes(a->dtype, 1), IR_FLOAT32, sim_eval(l, t, a, lane));
}

static uint32_t f32_bits(SimVal v) { return (uint32_t)sim_to_bits(IR_FLOAT32, v); }
static SimVal f32_of(uint64_t bits) { return sim_from_bits(IR_FLOAT32, bits & 0xffffffffu); }

/* Each float rounded to bfloat16 (to nearest even, as a cast), x low. */
static uint32_t bf16_pair(SimVal x, SimVal y)
{
    return (uint32_t)sim_to_bits(IR_BFLOAT16, x) | (uint32_t)sim_to_bits(IR_BFLOAT16, y) << 16;
}

/* min.bf16x2 / max.bf16x2 on one half, as the PTX ISA defines them: a NaN
 * gives the other operand (two NaNs the canonical 0x7fff), otherwise
 * a < b ? a : b (max: a > b ? a : b), so of equal values (-0 and +0) b. */
static uint32_t bf16_minmax(uint32_t a, uint32_t b, bool max)
{
    double fa = sim_from_bits(IR_BFLOAT16, a).f, fb = sim_from_bits(IR_BFLOAT16, b).f;
    if (isnan(fa) || isnan(fb))
        return isnan(fa) && isnan(fb) ? 0x7fffu : isnan(fa) ? b : a;
    return (max ? fa > fb : fa < fb) ? a : b;
}

static SimVal packed(SimLaunch *l, SimThread *t, const IrExpr *e, int lane)
{
    const IrCall *c = &e->u.call;
    uint64_t a = 0, b = 0;
    switch (c->op) {
    case IR_OP_CUDA_MAKE_FLOAT2:
        return ival((int64_t)((uint64_t)f32_bits(f32_arg(l, t, c, 1, lane)) << 32 |
                              f32_bits(f32_arg(l, t, c, 0, lane))));
    case IR_OP_CUDA_FLOAT2_X: return f32_of((uint64_t)eval_int(l, t, c->args[0], lane));
    case IR_OP_CUDA_FLOAT2_Y: return f32_of((uint64_t)eval_int(l, t, c->args[0], lane) >> 32);
    case IR_OP_CUDA_FMUL2_RN: case IR_OP_CUDA_FADD2_RN: { /* __fmul_rn / __fadd_rn per half */
        a = (uint64_t)eval_int(l, t, c->args[0], lane), b = (uint64_t)eval_int(l, t, c->args[1], lane);
        uint64_t r = 0;
        for (int h = 0; h < 64; h += 32) {
            double x = f32_of(a >> h).f, y = f32_of(b >> h).f;
            double v = c->op == IR_OP_CUDA_FMUL2_RN ? x * y : x + y;
            r |= (uint64_t)f32_bits(fval(sim_round(IR_FLOAT32, v))) << h;
        }
        return ival((int64_t)r);
    }
    case IR_OP_CUDA_FLOAT22BFLOAT162_RN:
        return ival(bf16_pair(f32_arg(l, t, c, 0, lane), f32_arg(l, t, c, 1, lane)));
    case IR_OP_CUDA_FLOAT22BFLOAT162_RN_FROM_FLOAT2:
        a = (uint64_t)eval_int(l, t, c->args[0], lane);
        return ival(bf16_pair(f32_of(a), f32_of(a >> 32)));
    case IR_OP_CUDA_BFLOAT1622FLOAT2: /* each half the top of its float */
        a = (uint64_t)eval_int(l, t, c->args[0], lane) & 0xffffffffu;
        return ival((int64_t)((a & 0xffff0000u) << 32 | (a & 0xffffu) << 16));
    case IR_OP_CUDA_HMIN2: case IR_OP_CUDA_HMAX2: {
        a = (uint64_t)eval_int(l, t, c->args[0], lane), b = (uint64_t)eval_int(l, t, c->args[1], lane);
        bool max = c->op == IR_OP_CUDA_HMAX2;
        return ival(bf16_minmax(a & 0xffff, b & 0xffff, max) |
                    bf16_minmax(a >> 16 & 0xffff, b >> 16 & 0xffff, max) << 16);
    }
    default: { /* fp8x4_e4m3_from_float4: cvt.rn.satfinite of each, x in the low byte */
        IrDType e4m3 = {IR_DT_F8E4M3FN, 8, 1};
        for (int i = 0; i < 4; i++)
            a |= sim_to_bits(e4m3, sim_convert(IR_FLOAT32, e4m3, f32_arg(l, t, c, i, lane)))
                 << (8 * i);
        return ival((int64_t)a);
    }
    }
}

static SimVal int_math(SimLaunch *l, SimThread *t, const IrExpr *e, int lane)
{
    const IrCall *c = &e->u.call;
    IrDType dt = e->dtype;
    int64_t a = eval_int(l, t, c->args[0], lane);
    int64_t b = c->nargs > 1 ? eval_int(l, t, c->args[1], lane) : 0;
    uint64_t ua = (uint64_t)a & (dt.bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << dt.bits) - 1);
    if (c->op == IR_OP_POPCOUNT)
        return ival(__builtin_popcountll(ua));
    if (c->op == IR_OP_CLZ)
        return ival(ua ? __builtin_clzll(ua) - (64 - dt.bits) : dt.bits);
    int64_t r = 0;
    if (!ar_int_bitop(dt, c->op, a, b, &r)) /* C++ leaves the shift count undefined */
        sim_fail(l, t, e->span, "shift count %lld is out of range for a %d-bit value (undefined)",
                 (long long)b, dt.bits < 32 ? 32 : dt.bits);
    return ival(r);
}

/* A warp shuffle: T.cuda.__shfl*_sync(mask, value, lane, width) or
 * T.tvm_warp_shuffle*(mask, value, lane, width, warp_size). */
static SimVal shuffle(SimLaunch *l, SimThread *t, const IrExpr *e, SimCollOp op, int lane)
{
    const IrCall *c = &e->u.call;
    IrDType vt = c->args[1]->dtype;
    uint64_t in[3] = {sim_to_bits(vt, sim_eval(l, t, c->args[1], lane)),
                      (uint64_t)eval_int(l, t, c->args[2], lane),
                      c->nargs > 3 ? (uint64_t)eval_int(l, t, c->args[3], lane) : 32};
    uint32_t mask = (uint32_t)eval_int(l, t, c->args[0], lane);
    uint64_t res[SIM_COLL_MAX];
    if (sim_failed(l) || !sim_coll(l, t, op, mask, c, in, 3, res, e->span))
        return ival(0);
    return sim_from_bits(vt, res[0]);
}

static SimVal vote(SimLaunch *l, SimThread *t, const IrExpr *e, SimCollOp op, int lane)
{
    const IrCall *c = &e->u.call;
    uint64_t in[1] = {c->nargs > 1 ? (uint64_t)(eval_int(l, t, c->args[1], lane) != 0) : 0};
    uint32_t mask = c->nargs ? (uint32_t)eval_int(l, t, c->args[0], lane) : 0xffffffffu;
    uint64_t res[SIM_COLL_MAX];
    if (sim_failed(l) || !sim_coll(l, t, op, mask, c, in, 1, res, e->span))
        return ival(0);
    return ival(sim_wrap(e->dtype, (int64_t)res[0]));
}

static SimVal atomic(SimLaunch *l, SimThread *t, const IrExpr *e, int lane)
{
    const IrCall *c = &e->u.call;
    uint64_t addr = (uint64_t)eval_int(l, t, c->args[0], lane);
    IrDType dt = e->dtype;
    SimVal old, v = sim_eval(l, t, c->args[1], lane);
    l->cta_acquired[sim_cta_linear(l)] = 1;
    l->atomic = true;
    bool loaded = !sim_failed(l) && sim_load(l, t, addr, dt, &old, e->span);
    l->atomic = false;
    if (!loaded)
        return ival(0);
    SimVal nv;
    if (c->op == IR_OP_CUDA_ATOMIC_CAS) {
        SimVal val = sim_eval(l, t, c->args[2], lane);
        nv = sim_to_bits(dt, old) == sim_to_bits(dt, v) ? val : old;
    } else if (sim_is_float(dt)) {
        nv = fval(sim_round(dt, old.f + v.f));
    } else {
        nv = ival(sim_wrap(dt, old.i + v.i));
    }
    l->atomic = true;
    sim_store(l, t, addr, dt, nv, e->span);
    l->atomic = false;
    return old;
}

/* %lanemask_eq / le / lt / ge / gt: the lanes of the warp before, at or
 * after this thread's. */
static SimVal lanemask(SimLaunch *l, SimThread *t, const IrExpr *e, const char *which)
{
    uint32_t at = 1u << (t->tid % 32), below = at - 1;
    if (!strcmp(which, "eq"))
        return ival(at);
    if (!strcmp(which, "lt"))
        return ival(below);
    if (!strcmp(which, "le"))
        return ival(below | at);
    if (!strcmp(which, "gt"))
        return ival(~(below | at) & 0xffffffffu);
    if (!strcmp(which, "ge"))
        return ival(~below & 0xffffffffu);
    sim_fail(l, t, e->span, "not modelled: special register %%lanemask_%s", which);
    return ival(0);
}

static SimVal special_reg(SimLaunch *l, SimThread *t, const IrExpr *e)
{
    const IrExpr *r = e->u.call.args[1];
    const char *n = r->kind == IR_E_STR ? r->u.str : "";
    if (!strcmp(n, "%laneid"))
        return ival(t->tid % 32);
    if (!strcmp(n, "%warpid"))
        return ival(t->tid / 32);
    if (!strncmp(n, "%tid.", 5))
        return ival(t->idx[n[5] - 'x' < 3 ? n[5] - 'x' : 0]);
    if (!strncmp(n, "%ctaid.", 7))
        return ival(l->cta->idx[n[7] - 'x' < 3 ? n[7] - 'x' : 0]);
    if (!strcmp(n, "%globaltimer") || !strcmp(n, "%clock64"))
        return ival((int64_t)sim_globaltimer(t));
    if (!strcmp(n, "%clock"))
        return ival((uint32_t)sim_globaltimer(t));
    if (!strncmp(n, "%ntid.", 6))
        return ival(l->cfg.block[n[6] - 'x' < 3 ? n[6] - 'x' : 0]);
    if (!strncmp(n, "%nctaid.", 8))
        return ival(l->cfg.grid[n[8] - 'x' < 3 ? n[8] - 'x' : 0]);
    if (!strncmp(n, "%lanemask_", 10))
        return lanemask(l, t, e, n + 10);
    if (!strcmp(n, "%nwarpid")) /* an SM's warp slots on sm_90 and sm_100 */
        return ival(64);
    if (!strcmp(n, "%smid"))
        return ival(sim_smid(l, l->cta));
    if (!strcmp(n, "%nsmid")) /* every CTA of the grid on its own SM */
        return ival((int64_t)l->cfg.grid[0] * l->cfg.grid[1] * l->cfg.grid[2]);
    if (!strcmp(n, "%cluster_ctarank"))
        return ival(l->cta->rank);
    if (!strcmp(n, "%cluster_nctarank"))
        return ival(l->nctas);
    if (!strncmp(n, "%cluster_ctaid.", 15)) {
        int d = n[15] - 'x' < 3 ? n[15] - 'x' : 0;
        return ival(l->cta->idx[d] % l->cfg.cluster[d]);
    }
    if (!strncmp(n, "%clusterid.", 11)) {
        int d = n[11] - 'x' < 3 ? n[11] - 'x' : 0;
        return ival(l->cta->idx[d] / l->cfg.cluster[d]);
    }
    sim_fail(l, t, e->span, "not modelled: special register %s", n);
    return ival(0);
}

static SimVal not_modelled(SimLaunch *l, SimThread *t, const IrExpr *e)
{
    sim_fail(l, t, e->span, "not modelled: T.%s", ir_ops[e->u.call.op].name);
    return ival(0);
}

static SimVal call(SimLaunch *l, SimThread *t, const IrExpr *e, int lane)
{
    const IrCall *c = &e->u.call;
    IrOp op = c->op;
    if (ar_is_float_math(op)) {
        /* each argument as a double: ldexp's exponent is an integer */
        double args[3] = {0};
        for (int i = 0; i < c->nargs && i < 3; i++)
            args[i] = sim_convert(ir_dtype_with_lanes(c->args[i]->dtype, 1), IR_FLOAT64,
                                  sim_eval(l, t, c->args[i], lane)).f;
        return fval(ar_float_math(op, e->dtype, args));
    }
    switch (op) {
    case IR_OP_POPCOUNT: case IR_OP_CLZ: case IR_OP_BITWISE_AND: case IR_OP_BITWISE_OR:
    case IR_OP_BITWISE_XOR: case IR_OP_BITWISE_NOT: case IR_OP_SHIFT_LEFT:
    case IR_OP_SHIFT_RIGHT:
        return int_math(l, t, e, lane);
    case IR_OP_ISNAN: return ival(isnan(sim_eval(l, t, c->args[0], lane).f));
    case IR_OP_ISINF: return ival(isinf(sim_eval(l, t, c->args[0], lane).f));
    case IR_OP_ISFINITE: return ival(isfinite(sim_eval(l, t, c->args[0], lane).f));
    case IR_OP_IF_THEN_ELSE:
        return sim_eval(l, t, c->args[0], lane).i ? sim_eval(l, t, c->args[1], lane)
                                                   : sim_eval(l, t, c->args[2], lane);
    case IR_OP_LIKELY: case IR_OP_IGNORE_LOOP_PARTITION: return sim_eval(l, t, c->args[0], lane);
    case IR_OP_FILTER: return sim_eval(l, t, c->args[1], lane); /* its predicate */
    case IR_OP_ISNULLPTR: return ival(eval_int(l, t, c->args[0], lane) == 0);
    case IR_OP_CUDA_THREAD_FENCE: /* __threadfence: gpu scope */
        l->cta_fences[sim_cta_linear(l)]++;
        return ival(0);
    case IR_OP_ASSUME: case IR_OP_CUDA_NANO_SLEEP:
        return ival(0);
    case IR_OP_REINTERPRET: return reinterpret(l, t, e, lane);
    case IR_OP_ADDRESS_OF: {
        const IrExpr *a = c->args[0];
        uint64_t addr = 0;
        if (a->kind == IR_E_LOAD)
            sim_access_addr(l, t, a->u.access.buffer, a->u.access.indices, a->u.access.n, lane,
                            false, a->span, &addr);
        else
            addr = (uint64_t)sim_eval(l, t, a, lane).i;
        return ival((int64_t)addr);
    }
    case IR_OP_BUFFER_DATA: return var_value(l, t, c->args[0]);
    case IR_OP_PTX_ADDR:
        return ival(eval_int(l, t, c->args[0], lane) + eval_int(l, t, c->args[1], lane));
    case IR_OP_CUDA_CVTA_TO_SHARED: { /* another CTA's (after mapa): its shared::cluster address */
        int rank;
        uint32_t off = sim_cluster_offset(l, (uint64_t)eval_int(l, t, c->args[0], lane), &rank);
        return ival(rank == l->cta->rank ? off : 0x80000000u | (uint32_t)rank << 24 | off);
    }
    case IR_OP_CUDA_SMEM_ADDR_FROM_UINT64: { /* (uint32_t)a: the GPU's shared window is 2^32 aligned */
        uint64_t a = (uint64_t)eval_int(l, t, c->args[0], lane);
        return ival(sim_in_shared(l, a) ? (int64_t)sim_shared_window(l, a) : (int64_t)(uint32_t)a);
    }
    case IR_OP_CUDA_CTA_SYNC: sim_barrier(l, t, 0, 0, false, e->span); return ival(0);
    case IR_OP_CUDA_CLUSTER_SYNC: sim_cluster_sync(l, t, e->span); return ival(0);
    case IR_OP_CUDA_WARPGROUP_SYNC: /* bar.sync id, 128 */
        sim_barrier(l, t, (int)eval_int(l, t, c->args[0], lane), 128, false, e->span);
        return ival(0);
    case IR_OP_CUDA_MBARRIER_WAIT: case IR_OP_CUDA_MBARRIER_WAIT_ACQUIRE_CLUSTER: {
        uint64_t a = (uint64_t)eval_int(l, t, c->args[0], lane);
        if (c->args[0]->dtype.code != IR_DT_HANDLE)
            a = sim_shared_generic(l, a);
        int parity = (int)eval_int(l, t, c->args[1], lane);
        if (!sim_failed(l))
            sim_mbarrier_wait(l, t, a, parity, e->span);
        return ival(0);
    }
    case IR_OP_CUDA_WARP_SYNC: return vote(l, t, e, SIM_COLL_SYNC, lane);
    case IR_OP_CUDA_SHFL_SYNC: case IR_OP_WARP_SHUFFLE: return shuffle(l, t, e, SIM_COLL_SHFL_IDX, lane);
    case IR_OP_CUDA_SHFL_XOR_SYNC: case IR_OP_WARP_SHUFFLE_XOR:
        return shuffle(l, t, e, SIM_COLL_SHFL_XOR, lane);
    case IR_OP_CUDA_SHFL_UP_SYNC: case IR_OP_WARP_SHUFFLE_UP:
        return shuffle(l, t, e, SIM_COLL_SHFL_UP, lane);
    case IR_OP_CUDA_SHFL_DOWN_SYNC: case IR_OP_WARP_SHUFFLE_DOWN:
        return shuffle(l, t, e, SIM_COLL_SHFL_DOWN, lane);
    case IR_OP_CUDA_BALLOT_SYNC: return vote(l, t, e, SIM_COLL_BALLOT, lane);
    case IR_OP_CUDA_ANY_SYNC: return vote(l, t, e, SIM_COLL_ANY, lane);
    case IR_OP_CUDA_ELECT_SYNC: return vote(l, t, e, SIM_COLL_ELECT, lane);
    case IR_OP_CUDA_ACTIVEMASK: {
        int base = t->tid / 32 * 32, n = l->cta->nthreads - base;
        uint32_t m = 0;
        for (int i = 0; i < 32 && i < n; i++)
            m |= l->cta->threads[base + i].state != SIM_T_DONE ? 1u << i : 0;
        return ival(m);
    }
    case IR_OP_CUDA_ATOMIC_ADD: case IR_OP_CUDA_ATOMIC_CAS: return atomic(l, t, e, lane);
    case IR_OP_CUDA_HALF2FLOAT: case IR_OP_CUDA_BFLOAT162FLOAT:
        return sim_eval(l, t, c->args[0], lane);
    case IR_OP_CUDA_MAKE_FLOAT2: case IR_OP_CUDA_FLOAT2_X: case IR_OP_CUDA_FLOAT2_Y:
    case IR_OP_CUDA_FMUL2_RN: case IR_OP_CUDA_FADD2_RN: case IR_OP_CUDA_FLOAT22BFLOAT162_RN:
    case IR_OP_CUDA_FLOAT22BFLOAT162_RN_FROM_FLOAT2: case IR_OP_CUDA_BFLOAT1622FLOAT2:
    case IR_OP_CUDA_HMIN2: case IR_OP_CUDA_HMAX2: case IR_OP_CUDA_FP8X4_E4M3_FROM_FLOAT4:
        return packed(l, t, e, lane);
    case IR_OP_CUDA_FLOAT_AS_UINT:
        return ival((int64_t)sim_to_bits(IR_FLOAT32, sim_eval(l, t, c->args[0], lane)));
    case IR_OP_CUDA_UINT_AS_FLOAT:
        return sim_from_bits(IR_FLOAT32, (uint64_t)eval_int(l, t, c->args[0], lane));
    case IR_OP_CUDA_FDIVIDEF:
        return fval(sim_round(IR_FLOAT32, sim_eval(l, t, c->args[0], lane).f /
                                              sim_eval(l, t, c->args[1], lane).f));
    case IR_OP_CUDA_CLOCK64: return ival((int64_t)t->clock);
    case IR_OP_CUDA_WGMMA_SMEM_DESC: case IR_OP_CUDA_TCGEN05_SMEM_DESC:
        sim_encode_smem_desc(l, t, e);
        return ival(0);
    case IR_OP_CUDA_WGMMA_NOOP_BARRIER: return ival(0);
    case IR_OP_CUDA_IKET_MARK: case IR_OP_CUDA_IKET_RANGE_START: case IR_OP_CUDA_IKET_RANGE_END:
    case IR_OP_CUDA_IKET_RANGE_PUSH: case IR_OP_CUDA_IKET_RANGE_POP:
    case IR_OP_CUDA_IKET_SENTINEL_TOKEN: return sim_iket(l, t, e);
    case IR_OP_CUDA_GET_TMEM_ADDR: { /* (base, lane, col): each field wraps at 16 bits */
        uint64_t base = (uint64_t)eval_int(l, t, c->args[0], lane);
        uint64_t ln = ((base >> 16) + (uint64_t)eval_int(l, t, c->args[1], lane)) & 0xffff;
        return ival((int64_t)(ln << 16 | (((base & 0xffff) + (uint64_t)eval_int(l, t, c->args[2], lane)) & 0xffff)));
    }
    case IR_OP_CUDA_THREAD_RANK: return ival(t->tid);
    case IR_OP_CUDA_MOV_SREG: return special_reg(l, t, e);
    case IR_OP_PTX: return sim_ptx(l, t, e);
    default: return not_modelled(l, t, e);
    }
}

/* ---------------------------------------------------------------- dispatch */

/* A cast as the generated CUDA computes it: to a float narrower than float32
 * through float32 (half((float)x)), so from float64 or an integer it rounds
 * twice. */
static SimVal cast(SimLaunch *l, SimThread *t, const IrExpr *e, int lane)
{
    IrDType from = ir_dtype_with_lanes(e->u.op.a->dtype, 1), to = ir_dtype_with_lanes(e->dtype, 1);
    SimVal v = sim_eval(l, t, e->u.op.a, lane);
    if (sim_is_float(to) && to.bits < 32 && !ir_dtype_eq(from, IR_FLOAT32)) {
        v = sim_convert(from, IR_FLOAT32, v);
        from = IR_FLOAT32;
    }
    return sim_convert(from, to, v);
}

SimVal sim_eval(SimLaunch *l, SimThread *t, const IrExpr *e, int lane)
{
    if (sim_failed(l) || t->blocked)
        return ival(0);
    if (IR_E_IS_BINARY(e->kind))
        return binary(l, t, e, lane);
    switch (e->kind) {
    case IR_E_INT: case IR_E_PYINT: case IR_E_PYBOOL: return ival(e->u.int_val);
    case IR_E_FLOAT: case IR_E_PYFLOAT: return fval(sim_round(e->dtype, e->u.float_val));
    case IR_E_VAR: return var_value(l, t, e);
    case IR_E_NOT: return ival(!sim_eval(l, t, e->u.op.a, lane).i);
    case IR_E_CAST: return cast(l, t, e, lane);
    case IR_E_SELECT:
        return sim_eval(l, t, e->u.op.cond, lane).i ? sim_eval(l, t, e->u.op.a, lane)
                                                     : sim_eval(l, t, e->u.op.b, lane);
    case IR_E_RAMP:
        return ival(eval_int(l, t, e->u.op.a, 0) + lane * eval_int(l, t, e->u.op.b, 0));
    case IR_E_BROADCAST: return sim_eval(l, t, e->u.op.a, 0);
    case IR_E_LET: {
        int s = sim_slot(l, e->u.op.var);
        SimVal v = sim_eval(l, t, e->u.op.a, lane);
        if (s >= 0)
            t->vals[s] = v;
        return sim_eval(l, t, e->u.op.b, lane);
    }
    case IR_E_LOAD: return load(l, t, e, lane);
    case IR_E_CALL: return call(l, t, e, lane);
    default:
        sim_fail(l, t, e->span, "not modelled: a %s expression in device code",
                 e->kind == IR_E_SHUFFLE ? "T.Shuffle" : "non-scalar");
        return ival(0);
    }
}
