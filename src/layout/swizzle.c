/* ComposeLayout: the XOR swizzle of an element address (CUTLASS
 * Swizzle<B, M, S> with B = swizzle_len, M = per_element, S = atom_len), the
 * hardware 32B/64B/128B modes per dtype, the MMA shared-memory layouts built
 * from them, the alignment a swizzled buffer's base needs, and the symbolic
 * swizzle: a structured XOR form m = B + (D ^ phase) ^ K when the address
 * splits into atom-aligned, in-atom and constant parts without carries, and
 * the literal Let form otherwise (reference/layout_passes.md §1.9). */
#include <string.h>

#include "internal.h"

static int64_t inner_mask(const IrLayout *l) { return ((int64_t)1 << l->swizzle_len) - 1; }

static int64_t floor_shift(int64_t m, int p) /* floor(m / 2^p) */
{
    int64_t d = (int64_t)1 << p, q = m / d;
    return (m % d != 0 && m < 0) ? q - 1 : q;
}

int64_t ly_swizzle(const IrLayout *l, int64_t m)
{
    int p = l->per_element, at = l->atom_len;
    int64_t q = floor_shift(m, p), mask = inner_mask(l);
    int64_t f = l->swizzle_inner ? q ^ ((q & (mask << at)) >> at) : q ^ ((q & mask) << at);
    return (int64_t)((uint64_t)f << p) + (m - (int64_t)((uint64_t)q << p));
}

int64_t ly_swizzle_period(const IrLayout *l)
{
    return (int64_t)1 << (l->per_element + l->swizzle_len + l->atom_len);
}

/* ---------------------------------------------------------------- modes */
/* The bits of an element; a dtype without bits (void) counts as a byte. */
static int elem_bits(IrDType dtype) { return dtype.bits ? dtype.bits : 8; }

static int per_element_for(IrDType dtype) /* bitlen(128 / bits) - 1 */
{
    int ratio = 128 / elem_bits(dtype), len = 0;
    for (; ratio; ratio >>= 1)
        len++;
    return len - 1;
}

static int mode_len(int bytes)
{
    switch (bytes) {
    case 0: return 0;
    case 32: return 1;
    case 64: return 2;
    case 128: return 3;
    default: return -1;
    }
}

IrLayout *ly_swizzle_mode(LyCtx *c, int bytes, IrDType dtype)
{
    int sw = mode_len(bytes), p = per_element_for(dtype);
    if (sw < 0 || p < 0) {
        char dt[IR_DTYPE_STR_MAX];
        ly_fail(c, "there is no %d-byte swizzle mode for %s; the modes are 0, 32, 64 and 128",
                bytes, ir_dtype_str(dtype, dt));
        return NULL;
    }
    return ly_compose(c, p, sw, 3, true, ly_identity(c, ar_index_int(c->arena, (int64_t)1 << (p + sw + 3))));
}

int ly_swizzle_bytes(const IrLayout *l, IrDType dtype)
{
    if (l->kind != IR_LAYOUT_COMPOSE)
        return 0;
    if (l->per_element != per_element_for(dtype) || l->atom_len != 3 || l->swizzle_len > 3 ||
        (l->swizzle_len > 0 && !l->swizzle_inner))
        return -1;
    return l->swizzle_len ? 16 << l->swizzle_len : 0;
}

/* The packed 16-byte core-matrix layout of SWIZZLE_NONE: (lead.., m, k/e, e) with
 * strides (.., e, m*e, 1), e elements per 16 bytes; row-major when k % e != 0. */
static IrLayout *core_matrix_layout(LyCtx *c, IrDType dtype, const int64_t *shape, int ndim)
{
    int64_t e = 128 / elem_bits(dtype), m = shape[ndim - 2], k = shape[ndim - 1];
    IrExpr **sh = TX_NEW_ARRAY(c->arena, IrExpr *, ndim);
    for (int d = 0; d < ndim; d++)
        sh[d] = ar_index_int(c->arena, shape[d]);
    if (k % e != 0)
        return ly_canonicalize(c, ly_row_major(c, sh, ndim), LY_TARGET_NONE);
    LyBuild b = {0};
    int64_t stride = m * k;
    for (int d = ndim - 3; d >= 0; d--)
        stride *= shape[d];
    for (int d = 0; d < ndim - 2; d++) {
        stride /= shape[d];
        lyb_shard(c, &b, ly_iter(sh[d], ar_index_int(c->arena, stride), "m"));
    }
    lyb_shard(c, &b, ly_iter(ar_index_int(c->arena, m), ar_index_int(c->arena, e), "m"));
    lyb_shard(c, &b, ly_iter(ar_index_int(c->arena, k / e), ar_index_int(c->arena, m * e), "m"));
    lyb_shard(c, &b, ly_iter(ar_index_int(c->arena, e), ar_index_int(c->arena, 1), "m"));
    return ly_canonicalize(c, lyb_finish(c, &b), LY_TARGET_NONE);
}

IrLayout *ly_mma_shared_layout(LyCtx *c, IrDType dtype, int bytes, const int64_t *shape, int ndim)
{
    if (ndim < 2) {
        ly_fail(c, "an MMA shared-memory layout needs a shape of rank 2 or more");
        return NULL;
    }
    for (int d = 0; d < ndim; d++)
        if (shape[d] < 1)
            return ly_fail(c, "an MMA shared-memory layout needs positive dimensions, not %lld",
                           (long long)shape[d]), NULL;
    if (elem_bits(dtype) > 128)
        return ly_fail(c, "an MMA shared-memory layout needs elements of at most 16 bytes"), NULL;
    if (bytes == 0)
        return core_matrix_layout(c, dtype, shape, ndim);
    IrLayout *atom = ly_swizzle_mode(c, bytes, dtype);
    if (!atom)
        return NULL;
    IrExpr **atom_shape = TX_NEW_ARRAY(c->arena, IrExpr *, ndim);
    IrExpr **rows_shape = TX_NEW_ARRAY(c->arena, IrExpr *, ndim);
    IrExpr **full = TX_NEW_ARRAY(c->arena, IrExpr *, ndim);
    for (int d = 0; d < ndim; d++) {
        atom_shape[d] = ar_index_int(c->arena, d < ndim - 2 ? 1 : d == ndim - 2 ? 8 : bytes * 8 / elem_bits(dtype));
        rows_shape[d] = d == ndim - 2 ? ar_index_int(c->arena, shape[d]) : atom_shape[d];
        full[d] = ar_index_int(c->arena, shape[d]);
    }
    IrLayout *rows = ly_tile_to(c, atom, rows_shape, atom_shape, ndim, LY_TARGET_NONE);
    IrLayout *all = rows ? ly_tile_to(c, rows, full, rows_shape, ndim, LY_TARGET_NONE) : NULL;
    return all ? ly_canonicalize(c, all, LY_TARGET_NONE) : NULL;
}

const char *ly_check_swizzle_base(LyCtx *c, const IrLayout *l, IrDType dtype, IrExpr *elem_offset,
                                  int64_t base_align)
{
    if (!ly_valid_swizzle(c, l))
        return c->err;
    if (l->kind != IR_LAYOUT_COMPOSE || l->swizzle_len == 0)
        return NULL;
    int64_t period = ly_swizzle_period(l), bits = dtype.bits ? dtype.bits : 8;
    int64_t bytes = period * bits / 8;
    if (base_align <= 0 || base_align % bytes != 0) {
        ly_fail(c, "a buffer with swizzle %s needs a base aligned to %lld bytes (the swizzle "
                   "period); its base is only known to be %lld-byte aligned",
                ly_str(c, l), (long long)bytes, (long long)base_align);
        return c->err;
    }
    if (elem_offset && !ar_divisible(elem_offset, ar_index_int(c->arena, period))) {
        ly_fail(c, "a buffer with swizzle %s needs a base aligned to %lld bytes (the swizzle "
                   "period); its element offset %s is not a multiple of %lld elements",
                ly_str(c, l), (long long)bytes, ly_expr_str(c, elem_offset), (long long)period);
        return c->err;
    }
    return NULL;
}

/* ---------------------------------------------------------------- symbolic swizzle */
/* f(q): the XOR of the selected bit group of q into the other one. */
static IrExpr *swizzle_bits(LyCtx *c, const IrLayout *l, IrExpr *q)
{
    IrExpr *at = ar_index_int(c->arena, l->atom_len);
    if (l->swizzle_inner) {
        IrExpr *hi = ar_bitwise(c->arena, IR_OP_BITWISE_AND, q, ar_index_int(c->arena, inner_mask(l) << l->atom_len));
        return ar_bitwise(c->arena, IR_OP_BITWISE_XOR, q, ar_bitwise(c->arena, IR_OP_SHIFT_RIGHT, hi, at));
    }
    IrExpr *lo = ar_bitwise(c->arena, IR_OP_BITWISE_AND, q, ar_index_int(c->arena, inner_mask(l)));
    return ar_bitwise(c->arena, IR_OP_BITWISE_XOR, q, ar_bitwise(c->arena, IR_OP_SHIFT_LEFT, lo, at));
}

static IrExpr *let(LyCtx *c, IrExpr *var, IrExpr *value, IrExpr *body)
{
    IrExpr *e = ir_node(c->arena, IR_E_LET, body->dtype, (TxSpan){0});
    e->u.op.var = var, e->u.op.a = value, e->u.op.b = body;
    return e;
}

static IrExpr *fresh(LyCtx *c, const char *name, IrDType t)
{
    return ir_var(c->arena, name, ir_prim_type(c->arena, t), (TxSpan){0});
}

IrExpr *ly_swizzle_full(LyCtx *c, const IrLayout *l, IrExpr *m)
{
    if (l->swizzle_len == 0)
        return m;
    if (l->per_element == 0) {
        IrExpr *mv = fresh(c, "compose_m", m->dtype);
        return let(c, mv, m, swizzle_bits(c, l, mv));
    }
    IrExpr *base = ar_index_int_like(c->arena, m, (int64_t)1 << l->per_element);
    IrExpr *mv = fresh(c, "compose_m", m->dtype), *qv = fresh(c, "compose_q", m->dtype);
    IrExpr *body = ar_add(c->arena, ar_bitwise(c->arena, IR_OP_SHIFT_LEFT, swizzle_bits(c, l, qv),
                                      ar_index_int(c->arena, l->per_element)),
                           ar_floormod(c->arena, mv, base));
    return let(c, mv, m, let(c, qv, ar_floordiv(c->arena, mv, base), body));
}

/* m = B + D + K: B atom-aligned (its quotient by the atom accumulates the phase
 * Q), D dynamic and bounded inside one atom, K a non-negative constant. */
typedef struct Parts {
    IrExpr *high, *phase, *low;
    int64_t low_max, constant, atom;
} Parts;

static IrExpr *sum(LyCtx *c, IrExpr *acc, IrExpr *term) { return acc ? ar_add(c->arena, acc, term) : term; }

static void add_high(LyCtx *c, Parts *p, IrExpr *term, IrExpr *quotient)
{
    p->high = sum(c, p->high, term);
    p->phase = sum(c, p->phase, quotient);
}

static bool add_low(LyCtx *c, Parts *p, IrExpr *term, int64_t max)
{
    if (max < 0 || max >= p->atom || p->low_max + max >= p->atom)
        return false;
    p->low_max += max;
    p->low = sum(c, p->low, term);
    return true;
}

static IrExpr *divide_exact(LyCtx *c, IrExpr *term, int64_t atom)
{
    IrExpr *a = ar_index_int_like(c->arena, term, atom);
    return ar_divisible(term, a) ? ar_floordiv(c->arena, term, a) : NULL;
}

/* K += v, refusing what does not fit. */
static bool add_constant(Parts *p, int64_t v, int sign)
{
    return v != INT64_MIN && !__builtin_add_overflow(p->constant, sign * v, &p->constant);
}

static bool classify_iter(LyCtx *c, Parts *p, IrIter it, IrExpr *digit)
{
    int64_t s, e, v;
    if (ar_is_const(it.extent, 1))
        return true;
    if (!ar_const_int(it.stride, &s) || s < 0)
        return false;
    IrExpr *term = ar_mul(c->arena, digit, it.stride), *q;
    if (ar_const_int(term, &v))
        return v >= 0 && add_constant(p, v, 1);
    if ((q = divide_exact(c, term, p->atom)))
        return add_high(c, p, term, q), true;
    if (!ar_const_int(it.extent, &e) || e <= 0 || e > ((int64_t)1 << 40) || s > ((int64_t)1 << 20))
        return false;
    int64_t tmax = (e - 1) * s;
    if (tmax >= p->atom && s > 0 && s < p->atom && p->atom % s == 0) {
        /* digit*s = (digit / n)*atom + (digit % n)*s with n = atom/s */
        int64_t n = p->atom / s;
        IrExpr *hi = ar_floordiv(c->arena, digit, ar_index_int_like(c->arena, digit, n));
        IrExpr *lo = ar_floormod(c->arena, digit, ar_index_int_like(c->arena, digit, n));
        add_high(c, p, ar_mul(c->arena, hi, ar_index_int_like(c->arena, hi, p->atom)), hi);
        return add_low(c, p, ar_mul(c->arena, lo, it.stride), ((e < n ? e : n) - 1) * s);
    }
    return add_low(c, p, term, tmax);
}

static bool classify_offset(LyCtx *c, Parts *p, IrExpr *off, int sign)
{
    int64_t v, lo, hi;
    IrExpr *q;
    if (ar_const_int(off, &v))
        return add_constant(p, v, sign);
    if (off->kind == IR_E_ADD || off->kind == IR_E_SUB)
        return classify_offset(c, p, off->u.op.a, sign) &&
               classify_offset(c, p, off->u.op.b, off->kind == IR_E_SUB ? -sign : sign);
    if (sign < 0)
        return false;
    if ((q = divide_exact(c, off, p->atom)))
        return add_high(c, p, off, q), true;
    return ar_bound(NULL, off, &lo, &hi) && lo >= 0 && add_low(c, p, off, hi);
}

static bool classify(LyCtx *c, const IrLayout *l, const IrLayout *t, IrExpr **digits, Parts *p)
{
    if (!l->swizzle_inner || l->per_element + l->atom_len >= 62)
        return false;
    p->atom = (int64_t)1 << (l->per_element + l->atom_len);
    for (int i = 0; i < t->nshard; i++)
        if (!classify_iter(c, p, t->shard[i], digits[i]))
            return false;
    for (int i = 0; i < t->noffset; i++)
        if (strcmp(t->offset[i].axis, "m") != 0 || !classify_offset(c, p, t->offset[i].value, 1))
            return false;
    if (p->constant < 0)
        return false;
    int64_t k_low = p->constant % p->atom, k_high = p->constant - k_low;
    if (k_high) {
        p->high = sum(c, p->high, ar_index_int(c->arena, k_high));
        if ((k_high / p->atom) & inner_mask(l))
            p->phase = sum(c, p->phase, ar_index_int(c->arena, (k_high / p->atom) & inner_mask(l)));
    }
    p->constant = k_low;
    /* D + K must stay in one atom and, to be an XOR, must not carry */
    return p->low_max + k_low < p->atom && !(k_low && p->low_max >= (k_low & -k_low));
}

IrExpr *ly_swizzle_apply_digits(LyCtx *c, const IrLayout *l, const IrLayout *t, IrExpr **digits)
{
    for (int i = 0; i < t->nshard; i++)
        if (ar_is_const(t->shard[i].extent, 1))
            digits[i] = ar_index_int_like(c->arena, digits[i], 0);
    LyAxisValue *vals;
    int n;
    ly_tile_apply_digits(c, t, digits, &vals, &n);
    if (n > 1 || (n == 1 && strcmp(vals[0].axis, "m") != 0)) {
        ly_fail(c, "the tile of swizzle %s must map onto the memory axis m only", ly_str(c, l));
        return NULL;
    }
    IrExpr *m = n ? vals[0].value : ar_index_int(c->arena, 0);
    if (l->swizzle_len == 0)
        return m;
    Parts p = {0};
    if (!classify(c, l, t, digits, &p))
        return ly_swizzle_full(c, l, m);
    IrExpr *zero = ar_index_int_like(c->arena, m, 0);
    IrExpr *phase = ar_bitwise(c->arena, IR_OP_BITWISE_AND, p.phase ? p.phase : zero,
                            ar_index_int(c->arena, inner_mask(l)));
    IrExpr *xor_in = ar_bitwise(c->arena, IR_OP_SHIFT_LEFT, phase, ar_index_int(c->arena, l->per_element));
    IrExpr *base = ar_add(c->arena, p.high ? p.high : zero,
                           ar_bitwise(c->arena, IR_OP_BITWISE_XOR, p.low ? p.low : zero, xor_in));
    return ar_bitwise(c->arena, IR_OP_BITWISE_XOR, base, ar_index_int_like(c->arena, base, p.constant));
}
