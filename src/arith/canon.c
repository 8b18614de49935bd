/* The canonical form of integer index arithmetic (after TVM's canonical
 * simplifier): a sum of scaled splits ((index % upper) // lower) * scale
 * plus a constant. Like terms merge as they are added; multiplication by a
 * constant distributes; floordiv/floormod by a positive constant separate the
 * divisible terms, fold splits into splits, and drop what the bounds decide;
 * `(x // c) * c + x % c` and its scaled and symbolic forms fuse back into x.
 * Normalization orders terms by descending scale (then lower, then upper
 * factor), positive terms first, so `i * 64 + j` reads as a person writes it.
 *
 * Unsigned sums wrap, so for them only ring-safe rules apply: merging,
 * distribution, bounds-decided division, and modulo by a power of two. */
#include <string.h>

#include "internal.h"

bool ar_is_index_dtype(IrDType t)
{
    return t.lanes == 1 && (t.code == IR_DT_INT || t.code == IR_DT_UINT) &&
           (t.bits == 32 || t.bits == 64);
}

static bool wraps(const ArSum *s) { return s->dtype.code == IR_DT_UINT; }

static bool finite(ArIval v) { return v.lo != AR_NEG_INF && v.hi != AR_POS_INF; }

/* ---------------------------------------------------------------- building sums */
static ArSum *sum_new(ArCtx *c, IrDType t)
{
    ArSum *s = TX_NEW(&c->scratch, ArSum);
    s->dtype = t;
    return s;
}

static ArSum *sum_const(ArCtx *c, IrDType t, int64_t v)
{
    ArSum *s = sum_new(c, t);
    s->base = v;
    return s;
}

/* A form that could not be built: its users fall back to the plain node. */
static ArSum *sum_failed(ArCtx *c, IrDType t)
{
    ArSum *s = sum_new(c, t);
    s->overflow = true;
    return s;
}

static bool is_const_sum(const ArSum *s) { return s->n == 0 && !s->overflow; }

/* A constant sum's value, wrapped to an unsigned dtype (its base is the
 * unwrapped integer: 2147483648 * 5 in uint32 holds 10737418240). */
static bool const_value(const ArSum *s, int64_t *v)
{
    if (!is_const_sum(s))
        return false;
    *v = wraps(s) ? ar_wrap_int(s->dtype, s->base) : s->base;
    return true;
}

static int64_t mul_or_flag(ArSum *s, int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        s->overflow = true, r = 0;
    return r;
}

static void add_or_flag(ArSum *s, int64_t *acc, int64_t v)
{
    if (__builtin_add_overflow(*acc, v, acc))
        s->overflow = true;
}

/* Atoms that differ only in the order of a product's operands are alike. */
static bool same_index(const IrExpr *x, const IrExpr *y)
{
    if (ar_expr_equal(x, y))
        return true;
    return x->kind == IR_E_MUL && y->kind == IR_E_MUL && ar_expr_equal(x->u.op.a, y->u.op.b) &&
           ar_expr_equal(x->u.op.b, y->u.op.a);
}

static bool alike(const ArSplit *a, const ArSplit *b)
{
    return a->lower == b->lower && a->upper == b->upper && same_index(a->index, b->index);
}

static void push_term(ArCtx *c, ArSum *s, ArSplit t)
{
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 4;
        ArSplit *terms = TX_NEW_ARRAY(&c->scratch, ArSplit, cap);
        if (s->n)
            memcpy(terms, s->terms, sizeof *terms * (size_t)s->n);
        s->terms = terms, s->cap = cap;
    }
    s->terms[s->n++] = t;
}

static void remove_term(ArSum *s, int i)
{
    memmove(s->terms + i, s->terms + i + 1, sizeof *s->terms * (size_t)(s->n - i - 1));
    s->n--;
}

/* s += k * t, merged into a like term (which disappears when it cancels). */
static void add_split(ArCtx *c, ArSum *s, ArSplit t, int64_t k)
{
    t.scale = mul_or_flag(s, t.scale, k);
    if (t.scale == 0)
        return;
    for (int i = 0; i < s->n; i++)
        if (alike(&s->terms[i], &t)) {
            add_or_flag(s, &s->terms[i].scale, t.scale);
            if (s->terms[i].scale == 0)
                remove_term(s, i);
            return;
        }
    push_term(c, s, t);
}

/* s += k * o */
static void add_sum(ArCtx *c, ArSum *s, const ArSum *o, int64_t k)
{
    s->overflow |= o->overflow;
    for (int i = 0; i < o->n; i++)
        add_split(c, s, o->terms[i], k);
    add_or_flag(s, &s->base, mul_or_flag(s, o->base, k));
}

static ArSum *scaled_copy(ArCtx *c, const ArSum *o, int64_t k)
{
    ArSum *s = sum_new(c, o->dtype);
    add_sum(c, s, o, k);
    return s;
}

static ArSplit plain(IrExpr *index) { return (ArSplit){index, 1, 0, 1}; }

static ArSum *sum_split(ArCtx *c, IrDType t, ArSplit sp)
{
    ArSum *s = sum_new(c, t);
    add_split(c, s, sp, 1);
    return s;
}

static ArSum *sum_atom(ArCtx *c, IrExpr *e) { return sum_split(c, e->dtype, plain(e)); }

/* ---------------------------------------------------------------- intervals */
static ArIval point(int64_t v) { return (ArIval){v, v}; }

static ArIval split_ival(ArCtx *c, const ArSplit *t) /* unscaled */
{
    ArIval v = ar_ival(c, t->index);
    if (t->upper)
        v = ar_ival_floormod(v, point(t->upper));
    if (t->lower != 1)
        v = ar_ival_div(v, point(t->lower), true);
    return v;
}

ArIval ar_sum_ival(ArCtx *c, const ArSum *s)
{
    ArIval r = point(s->base);
    if (s->overflow)
        return (ArIval){AR_NEG_INF, AR_POS_INF};
    for (int i = 0; i < s->n; i++)
        r = ar_ival_add(r, ar_ival_mul(split_ival(c, &s->terms[i]), point(s->terms[i].scale)));
    int64_t lo, hi;
    ar_dtype_range(s->dtype, &lo, &hi);
    if (wraps(s) && (r.lo < lo || r.hi > hi))
        return (ArIval){0, AR_POS_INF};
    return r;
}

/* The bound of s toward `upper` with every variable that has a symbolic
 * range [min, min + extent) replaced by the end that pushes s that way (one
 * level): what proves j < n for j in range(n). Infinite when no variable has
 * such a range. */
static int64_t symbolic_end(ArCtx *c, const ArSum *s, bool upper)
{
    ArSum *r = sum_new(c, s->dtype);
    bool any = false;
    r->base = s->base, r->overflow = s->overflow;
    for (int i = 0; i < s->n; i++) {
        const ArSplit *t = &s->terms[i];
        IrExpr *min, *ext;
        if (t->lower != 1 || t->upper || t->index->kind != IR_E_VAR ||
            !ar_fact_range(c, t->index, &min, &ext) || ar_const_int(ext, &(int64_t){0}) ||
            !ir_dtype_eq(min->dtype, s->dtype) || !ir_dtype_eq(ext->dtype, s->dtype)) {
            add_split(c, r, *t, 1);
            continue;
        }
        ArSum *end = scaled_copy(c, ar_sum_of(c, min), 1);
        if ((t->scale > 0) == upper) { /* min + extent - 1 */
            add_sum(c, end, ar_sum_of(c, ext), 1);
            add_or_flag(end, &end->base, -1);
        }
        add_sum(c, r, end, t->scale);
        any = true;
    }
    if (!any)
        return upper ? AR_POS_INF : AR_NEG_INF;
    ArIval v = ar_sum_ival(c, r);
    return upper ? v.hi : v.lo;
}

ArIval ar_sum_ival_deep(ArCtx *c, const ArSum *s)
{
    ArIval v = ar_sum_ival(c, s);
    if (wraps(s))
        return v;
    int64_t hi = symbolic_end(c, s, true), lo = symbolic_end(c, s, false);
    if (hi < v.hi)
        v.hi = hi;
    if (lo > v.lo)
        v.lo = lo;
    return v;
}

/* ---------------------------------------------------------------- expressions */
static IrExpr *int_of(ArCtx *c, IrDType t, int64_t v) { return ir_int(c->arena, t, v, (TxSpan){0}); }

static IrExpr *bin(ArCtx *c, IrExprKind k, IrExpr *x, IrExpr *y)
{
    return ir_binary(c->arena, k, x, y, (TxSpan){0});
}

static bool fits(IrDType t, int64_t v) { return ar_int_fits(t, v, false); }

/* (index % upper) // lower * k; NULL when a constant does not fit. */
static IrExpr *split_expr(ArCtx *c, const ArSplit *t, int64_t k)
{
    IrDType d = t->index->dtype;
    IrExpr *r = t->index;
    if (!fits(d, t->upper) || !fits(d, t->lower) || !fits(d, k))
        return NULL;
    if (t->upper)
        r = bin(c, IR_E_FLOORMOD, r, int_of(c, d, t->upper));
    if (t->lower != 1)
        r = bin(c, IR_E_FLOORDIV, r, int_of(c, d, t->lower));
    return k == 1 ? r : bin(c, IR_E_MUL, r, int_of(c, d, k));
}

/* Fold a split whose value the bounds fix; drop a modulo the index never reaches. */
static void tighten(ArCtx *c, ArSum *s, ArSplit *t)
{
    ArIval x = ar_ival(c, t->index);
    if (t->upper && x.lo >= 0 && x.hi < t->upper)
        t->upper = 0;
    ArIval v = split_ival(c, t);
    if (finite(v) && v.lo == v.hi) {
        add_or_flag(s, &s->base, mul_or_flag(s, v.lo, t->scale));
        t->scale = 0;
    }
}

/* (x % (c*s)) // c * k + (x // (c*s)) * (s*k) ... in TVM's form: a = (x, l1,
 * u1, s1) and b = (x, l2, l1, s2) with s1 = s2 * (l1 / l2) fuse into
 * (x, l2, u1, s2): (y // c // s) * s + (y // c) % s = y // c. */
static bool fuse_splits(ArSplit *a, ArSplit *b)
{
    int64_t l;
    if (!a->scale || !b->scale || b->upper != a->lower || a->scale % b->scale != 0 ||
        (a->upper && a->upper % a->lower != 0) || !same_index(a->index, b->index))
        return false;
    if (__builtin_mul_overflow(a->scale / b->scale, b->lower, &l) || l != a->lower)
        return false;
    b->upper = a->upper;
    a->scale = 0;
    return true;
}

/* Like terms (made alike by fusion or expansion) merge; splits fuse. */
static bool fuse_any_splits(ArSum *s)
{
    bool any = false;
    for (int i = 0; i < s->n; i++)
        for (int j = 0; j < s->n; j++) {
            ArSplit *a = &s->terms[i], *b = &s->terms[j];
            if (i == j || !a->scale || !b->scale)
                continue;
            if (alike(a, b)) {
                add_or_flag(s, &b->scale, a->scale);
                a->scale = 0;
                any = true;
            } else {
                any |= fuse_splits(a, b);
            }
        }
    return any;
}

/* atom = (x // e) * e for a non-constant e (either operand order): returns e. */
static IrExpr *symbolic_multiple(IrExpr *atom, IrExpr **x)
{
    if (atom->kind != IR_E_MUL)
        return NULL;
    for (int side = 0; side < 2; side++) {
        IrExpr *q = side ? atom->u.op.b : atom->u.op.a, *e = side ? atom->u.op.a : atom->u.op.b;
        if (q->kind == IR_E_FLOORDIV && !ar_const_int(e, &(int64_t){0}) &&
            ar_expr_equal(q->u.op.b, e)) {
            *x = q->u.op.a;
            return e;
        }
    }
    return NULL;
}

/* (x // e) * e * k + (x % e) * k -> x * k for a non-constant e. */
static bool fuse_symbolic(ArCtx *c, ArSum *s)
{
    for (int i = 0; i < s->n; i++) {
        ArSplit *a = &s->terms[i];
        IrExpr *x, *e;
        if (!a->scale || a->lower != 1 || a->upper || !(e = symbolic_multiple(a->index, &x)))
            continue;
        IrExpr *rest = ar_simp(c, bin(c, IR_E_FLOORMOD, x, e));
        for (int j = 0; j < s->n; j++) {
            ArSplit *b = &s->terms[j];
            if (j == i || b->scale != a->scale || b->lower != 1 || b->upper ||
                !same_index(b->index, rest))
                continue;
            int64_t k = a->scale;
            a->scale = b->scale = 0;
            add_sum(c, s, ar_sum_of(c, x), k);
            return true;
        }
    }
    return false;
}

/* The canonical form of a split's index when that is more than the index
 * itself (a sum, a scaled or split term: what a division's slow path leaves
 * and fusion joins back); NULL otherwise. */
static ArSum *unfolded(ArCtx *c, IrExpr *index)
{
    IrExprKind k = index->kind;
    if (k != IR_E_ADD && k != IR_E_SUB && k != IR_E_MUL && k != IR_E_FLOORDIV &&
        k != IR_E_FLOORMOD)
        return NULL;
    ArSum *e = ar_sum_of(c, index);
    if (e->n == 1 && e->base == 0 && e->terms[0].scale == 1 && e->terms[0].lower == 1 &&
        !e->terms[0].upper && same_index(e->terms[0].index, index))
        return NULL;
    return e;
}

/* Plain terms over such indices are expanded into the sum. */
static bool expand_terms(ArCtx *c, ArSum *s)
{
    bool any = false;
    for (int i = 0; i < s->n; i++) {
        ArSplit t = s->terms[i];
        ArSum *e;
        if (!t.scale || t.lower != 1 || t.upper || !(e = unfolded(c, t.index)))
            continue;
        s->terms[i].scale = 0;
        add_sum(c, s, e, t.scale);
        any = true;
    }
    return any;
}

static void drop_zero_terms(ArSum *s)
{
    for (int i = s->n - 1; i >= 0; i--)
        if (s->terms[i].scale == 0)
            remove_term(s, i);
}

/* Descending scale, then lower factor, then upper factor (none is largest). */
static bool goes_before(const ArSplit *a, const ArSplit *b)
{
    if (a->scale != b->scale)
        return a->scale > b->scale;
    if (a->lower != b->lower)
        return a->lower > b->lower;
    uint64_t ua = a->upper ? (uint64_t)a->upper : UINT64_MAX;
    uint64_t ub = b->upper ? (uint64_t)b->upper : UINT64_MAX;
    return ua > ub;
}

static void sort_terms(ArSum *s) /* stable insertion sort; sums are short */
{
    for (int i = 1; i < s->n; i++) {
        ArSplit t = s->terms[i];
        int j = i;
        for (; j > 0 && goes_before(&t, &s->terms[j - 1]); j--)
            s->terms[j] = s->terms[j - 1];
        s->terms[j] = t;
    }
}

/* Bounds applied, splits fused, nested sums expanded: the terms a division
 * and the normal form work on. */
static void settle(ArCtx *c, ArSum *s)
{
    bool again = true;
    for (int rounds = 0; again && rounds < 64 && !s->overflow; rounds++) {
        for (int i = 0; i < s->n; i++)
            tighten(c, s, &s->terms[i]);
        drop_zero_terms(s);
        again = fuse_any_splits(s) || fuse_symbolic(c, s) || expand_terms(c, s);
        drop_zero_terms(s);
    }
}

static void normalize_terms(ArCtx *c, ArSum *s)
{
    settle(c, s);
    sort_terms(s);
}

/* acc + term, or acc - term; acc NULL stands for the constant 0, which
 * folds away in an addition (TVM builds the sum from make_const(0)). */
static IrExpr *join(ArCtx *c, IrDType t, IrExpr *acc, IrExprKind k, IrExpr *term)
{
    if (!acc)
        return k == IR_E_ADD ? term : bin(c, IR_E_SUB, int_of(c, t, 0), term);
    return bin(c, k, acc, term);
}

IrExpr *ar_sum_expr(ArCtx *c, ArSum *s)
{
    IrDType t = s->dtype;
    normalize_terms(c, s);
    if (s->overflow || s->base == INT64_MIN)
        return NULL;
    /* an unsigned sum's constant is emitted wrapped to the dtype where
     * neither it nor its negation fits (v - 9 stays v - 9) */
    int64_t base = s->base;
    if (wraps(s) && !fits(t, base) && (s->n == 0 || base == INT64_MIN || !fits(t, -base)))
        base = ar_wrap_int(t, base);
    if (s->n == 0)
        return fits(t, base) ? int_of(c, t, base) : NULL;
    IrExpr *r = NULL, *term;
    for (int i = 0; i < s->n; i++)
        if (s->terms[i].scale > 0) {
            if (!(term = split_expr(c, &s->terms[i], s->terms[i].scale)))
                return NULL;
            r = join(c, t, r, IR_E_ADD, term);
        }
    if (base > 0) {
        if (!fits(t, base))
            return NULL;
        r = join(c, t, r, IR_E_ADD, int_of(c, t, base));
    }
    for (int i = 0; i < s->n; i++)
        if (s->terms[i].scale < 0) {
            if (s->terms[i].scale == INT64_MIN ||
                !(term = split_expr(c, &s->terms[i], -s->terms[i].scale)))
                return NULL;
            r = join(c, t, r, IR_E_SUB, term);
        }
    if (base < 0) {
        if (base == INT64_MIN || !fits(t, -base))
            return NULL;
        r = join(c, t, r, IR_E_SUB, int_of(c, t, -base));
    }
    return r;
}

/* A split holding a whole sum as its index (the slow path of div and mod). */
static ArSum *sum_as_index(ArCtx *c, ArSum *s, int64_t lower, int64_t upper)
{
    IrExpr *e = ar_sum_expr(c, s);
    return e ? sum_split(c, s->dtype, (ArSplit){e, lower, upper, 1}) : sum_failed(c, s->dtype);
}

/* ---------------------------------------------------------------- division by constants */
static ArSum *div_sum(ArCtx *c, ArSum *s, int64_t d);
static ArSum *mod_sum(ArCtx *c, ArSum *s, int64_t d);

/* s with an unsigned constant outside [0, 2**bits) taken modulo 2**bits: the
 * same value in the ring, whose bounds may now decide a division (v + 2**31 *
 * 3 in uint32 is v + 2**31, below 2**32 for a small v). s itself otherwise. */
static ArSum *wrapped_base(ArCtx *c, ArSum *s)
{
    if (!wraps(s) || s->dtype.bits >= 64)
        return s;
    int64_t m = (int64_t)1 << s->dtype.bits, b = ar_floormod64(s->base, m);
    if (b == s->base)
        return s;
    ArSum *w = scaled_copy(c, s, 1);
    w->base = b;
    return w;
}

/* Both ends of a finite interval have the same quotient by d: that quotient. */
static bool same_quotient(ArIval v, int64_t d, int64_t *q)
{
    if (!finite(v) || ar_floordiv64(v.lo, d) != ar_floordiv64(v.hi, d))
        return false;
    *q = ar_floordiv64(v.lo, d);
    return true;
}

/* A single split of positive scale divided by d > 0. */
static ArSum *split_div(ArCtx *c, IrDType dt, ArSplit t, int64_t d)
{
    int64_t nl;
    if (t.scale % d == 0)
        return t.scale /= d, sum_split(c, dt, t);
    if (d % t.scale == 0 && !__builtin_mul_overflow(t.lower, d / t.scale, &nl)) {
        ArSum *e = t.upper ? NULL : unfolded(c, t.index);
        if (e) /* (x // l) // k == x // (l*k): divide x's own form */
            return div_sum(c, e, nl);
        if (t.upper == 0 || t.upper % nl == 0)
            return sum_split(c, dt, (ArSplit){t.index, nl, t.upper, 1});
        if (t.upper <= nl) /* (x % u) // l with l >= u */
            return sum_const(c, dt, 0);
        IrExpr *m = bin(c, IR_E_FLOORMOD, t.index, int_of(c, dt, t.upper));
        return sum_split(c, dt, (ArSplit){m, nl, 0, 1});
    }
    return sum_as_index(c, sum_split(c, dt, t), d, 0);
}

/* A single split of positive scale modulo d > 0. */
static ArSum *split_mod(ArCtx *c, IrDType dt, ArSplit t, int64_t d)
{
    int64_t nu;
    if (t.scale % d == 0)
        return sum_const(c, dt, 0);
    if (d % t.scale == 0 && !__builtin_mul_overflow(t.lower, d / t.scale, &nu)) {
        bool reduces = t.upper == 0 || t.upper % nu == 0;
        ArSum *e = reduces ? unfolded(c, t.index) : NULL;
        if (e || (reduces && t.upper && nu < t.upper)) {
            /* (x % u) // l % k == (x % (l*k)) // l: simplify x % (l*k) again */
            ArSum *m = mod_sum(c, e ? e : ar_sum_of(c, t.index), nu);
            return scaled_copy(c, t.lower == 1 ? m : div_sum(c, m, t.lower), t.scale);
        }
        if (reduces)
            return sum_split(c, dt, (ArSplit){t.index, t.lower, nu, t.scale});
        if (nu % t.upper == 0) /* (x % 2) % 4 */
            return sum_split(c, dt, t);
    }
    return sum_as_index(c, sum_split(c, dt, t), 1, d);
}

static bool single_split(const ArSum *s) { return s->n == 1 && s->base == 0 && !s->overflow; }

static bool is_pow2(int64_t d) { return d > 0 && (d & (d - 1)) == 0; }

/* Unsigned: only decided quotients, and single unscaled splits. */
static ArSum *div_wrapping(ArCtx *c, ArSum *s, int64_t d)
{
    if (single_split(s) && s->terms[0].scale == 1)
        return split_div(c, s->dtype, s->terms[0], d);
    return sum_as_index(c, s, d, 0);
}

static ArSum *div_sum(ArCtx *c, ArSum *s, int64_t d)
{
    int64_t q, v;
    settle(c, s);
    if (const_value(s, &v) && ar_eval_typed(s->dtype, IR_E_FLOORDIV, v, d, &q))
        return sum_const(c, s->dtype, q);
    if (same_quotient(ar_sum_ival(c, wrapped_base(c, s)), d, &q))
        return sum_const(c, s->dtype, q);
    if (wraps(s))
        return div_wrapping(c, s, d);
    ArSum *quot = sum_new(c, s->dtype), *rest = sum_new(c, s->dtype);
    quot->overflow = rest->overflow = s->overflow;
    for (int i = 0; i < s->n; i++) {
        ArSplit t = s->terms[i];
        if (t.scale % d == 0)
            t.scale /= d, add_split(c, quot, t, 1);
        else
            add_split(c, rest, t, 1);
    }
    if (s->base % d == 0)
        quot->base = s->base / d;
    else
        rest->base = s->base;
    if (same_quotient(ar_sum_ival(c, rest), d, &q))
        add_or_flag(quot, &quot->base, q);
    else if (single_split(rest) && rest->terms[0].scale > 0)
        add_sum(c, quot, split_div(c, s->dtype, rest->terms[0], d), 1);
    else
        add_sum(c, quot, sum_as_index(c, rest, d, 0), 1);
    return quot;
}

/* The terms of s that d does not divide, with the base reduced modulo d. */
static ArSum *indivisible_part(ArCtx *c, const ArSum *s, int64_t d)
{
    ArSum *rest = sum_new(c, s->dtype);
    rest->overflow = s->overflow;
    for (int i = 0; i < s->n; i++)
        if (s->terms[i].scale % d != 0)
            add_split(c, rest, s->terms[i], 1);
    rest->base = ar_floormod64(s->base, d);
    return rest;
}

static ArSum *mod_sum(ArCtx *c, ArSum *s, int64_t d)
{
    int64_t q, v;
    settle(c, s);
    if (const_value(s, &v) && ar_eval_typed(s->dtype, IR_E_FLOORMOD, v, d, &q))
        return sum_const(c, s->dtype, q);
    ArSum *w = wrapped_base(c, s);
    if (same_quotient(ar_sum_ival(c, w), d, &q)) {
        ArSum *r = scaled_copy(c, w, 1);
        add_or_flag(r, &r->base, mul_or_flag(r, -q, d));
        return r;
    }
    if (wraps(s) && !is_pow2(d))
        return single_split(s) && s->terms[0].scale == 1 ? split_mod(c, s->dtype, s->terms[0], d)
                                                        : sum_as_index(c, s, 1, d);
    ArSum *rest = indivisible_part(c, s, d);
    if (is_const_sum(rest) || (same_quotient(ar_sum_ival(c, rest), d, &q) && q == 0))
        return rest;
    if (single_split(rest) && rest->terms[0].scale > 0 && (!wraps(s) || rest->terms[0].scale == 1))
        return split_mod(c, s->dtype, rest->terms[0], d);
    return sum_as_index(c, rest, 1, d);
}

/* ---------------------------------------------------------------- symbolic divisors */
/* s == q * e for an integer q (e has terms). */
static bool proportional(const ArSum *s, const ArSum *e, int64_t *q)
{
    if (s->n != e->n || e->n == 0 || s->overflow || e->overflow)
        return false;
    const ArSplit *first = &e->terms[0];
    *q = 0;
    for (int i = 0; i < s->n; i++)
        if (alike(&s->terms[i], first) && s->terms[i].scale % first->scale == 0)
            *q = s->terms[i].scale / first->scale;
    if (*q == 0)
        return false;
    for (int j = 0; j < e->n; j++) {
        bool found = false;
        for (int i = 0; i < s->n && !found; i++)
            found = alike(&s->terms[i], &e->terms[j]) &&
                    s->terms[i].scale == *q * e->terms[j].scale;
        if (!found)
            return false;
    }
    int64_t b;
    return !__builtin_mul_overflow(*q, e->base, &b) && b == s->base;
}

/* index = f * d (a product with d as a factor, at any depth of the left-leaning
 * product chain): f; NULL when d is not a factor. */
static IrExpr *factor_out(ArCtx *c, IrExpr *index, const IrExpr *d)
{
    if (same_index(index, d))
        return int_of(c, index->dtype, 1);
    if (index->kind != IR_E_MUL)
        return NULL;
    IrExpr *x = index->u.op.a, *y = index->u.op.b, *f;
    if (ar_expr_equal(y, d))
        return x;
    if (ar_expr_equal(x, d))
        return y;
    if ((f = factor_out(c, x, d)))
        return bin(c, IR_E_MUL, f, y);
    if ((f = factor_out(c, y, d)))
        return bin(c, IR_E_MUL, x, f);
    return NULL;
}

/* 0 <= s < d, d symbolic. */
static bool below_divisor(ArCtx *c, const ArSum *s, const ArSum *d)
{
    ArSum *gap = scaled_copy(c, d, 1);
    add_sum(c, gap, s, -1);
    return ar_sum_ival_deep(c, s).lo >= 0 && ar_sum_ival_deep(c, gap).lo > 0;
}

static ArSum *opaque_division(ArCtx *c, IrExprKind k, ArSum *s, IrExpr *d)
{
    IrExpr *x = ar_sum_expr(c, s);
    return x ? sum_atom(c, bin(c, k, x, d)) : sum_failed(c, s->dtype);
}

/* floordiv/floormod by a non-constant d: s = q*d + r with 0 <= r < d. */
static ArSum *symbolic_division(ArCtx *c, IrExprKind k, ArSum *s, IrExpr *d)
{
    bool is_div = k == IR_E_FLOORDIV;
    ArSum *ds = ar_sum_of(c, d), *quot = sum_new(c, s->dtype), *rest = sum_new(c, s->dtype);
    settle(c, s);
    settle(c, ds);
    int64_t q;
    if (proportional(s, ds, &q))
        return sum_const(c, s->dtype, is_div ? q : 0);
    IrExpr *f;
    for (int i = 0; i < s->n; i++) {
        ArSplit t = s->terms[i];
        if (t.lower == 1 && !t.upper && (f = factor_out(c, t.index, d)))
            add_sum(c, quot, ar_sum_of(c, f), t.scale);
        else
            add_split(c, rest, t, 1);
    }
    rest->base = s->base;
    if (quot->n && rest->n == 0 && rest->base == 0) /* an exact multiple of d */
        return is_div ? quot : rest;
    if (!wraps(s) && below_divisor(c, rest, ds))
        return is_div ? quot : rest;
    if (single_split(s) && s->terms[0].index->kind == IR_E_FLOORMOD && !is_div &&
        s->terms[0].scale == 1 && s->terms[0].lower == 1 && !s->terms[0].upper &&
        ar_divisible(s->terms[0].index->u.op.b, d)) /* (x % (d*k)) % d */
        return symbolic_division(c, k, ar_sum_of(c, s->terms[0].index->u.op.a), d);
    return opaque_division(c, k, s, d);
}

/* ---------------------------------------------------------------- expressions to sums */
static ArSum *sum_of_mul(ArCtx *c, IrExpr *e)
{
    ArSum *a = ar_sum_of(c, e->u.op.a), *b = ar_sum_of(c, e->u.op.b);
    if (is_const_sum(a))
        return scaled_copy(c, b, a->base);
    if (is_const_sum(b))
        return scaled_copy(c, a, b->base);
    /* a product of non-constants is an atom; single terms give up their scales */
    int64_t ka = single_split(a) ? a->terms[0].scale : 1, kb = single_split(b) ? b->terms[0].scale : 1;
    if (ka != 1)
        a->terms[0].scale = 1;
    if (kb != 1)
        b->terms[0].scale = 1;
    IrExpr *x = ar_sum_expr(c, a), *y = ar_sum_expr(c, b);
    if (!x || !y)
        return sum_failed(c, e->dtype);
    ArSum *r = sum_new(c, e->dtype);
    add_split(c, r, plain(bin(c, IR_E_MUL, x, y)), mul_or_flag(r, ka, kb));
    return r;
}

/* Truncating / and % stay as written unless the bounds decide them. */
static ArSum *sum_of_trunc(ArCtx *c, IrExprKind k, ArSum *a, IrExpr *d)
{
    int64_t v;
    ArIval x = ar_sum_ival(c, a);
    if (ar_const_int(d, &v) && v > 0 && x.lo >= 0 && x.hi < v)
        return k == IR_E_DIV ? sum_const(c, a->dtype, 0) : a;
    return opaque_division(c, k, a, d);
}

static ArSum *sum_of_division(ArCtx *c, IrExpr *e)
{
    IrExprKind k = e->kind;
    IrExpr *d = ar_simp(c, e->u.op.b);
    ArSum *a = ar_sum_of(c, e->u.op.a);
    int64_t v, r, b;
    if (ar_const_int(d, &v) && const_value(a, &b) && ar_eval_typed(a->dtype, k, b, v, &r))
        return sum_const(c, e->dtype, r);
    if (k == IR_E_DIV || k == IR_E_MOD)
        return sum_of_trunc(c, k, a, d);
    if (!ar_const_int(d, &v))
        return symbolic_division(c, k, a, d);
    if (v > 0)
        return k == IR_E_FLOORDIV ? div_sum(c, a, v) : mod_sum(c, a, v);
    if (v == 0 || v == INT64_MIN || wraps(a))
        return opaque_division(c, k, a, d);
    /* floor(x / -v) == floor(-x / v); x mod -v == -((-x) mod v) */
    ArSum *neg = scaled_copy(c, a, -1);
    return k == IR_E_FLOORDIV ? div_sum(c, neg, -v) : scaled_copy(c, mod_sum(c, neg, -v), -1);
}

static bool canonical_kind(IrExprKind k)
{
    return k == IR_E_ADD || k == IR_E_SUB || k == IR_E_MUL || k == IR_E_FLOORDIV ||
           k == IR_E_FLOORMOD || k == IR_E_DIV || k == IR_E_MOD;
}

static ArSum *sum_of_other(ArCtx *c, IrExpr *e)
{
    int64_t v;
    if (e->kind == IR_E_VAR) {
        IrExpr *value = ar_fact_value(c, e);
        if (value && ir_dtype_eq(value->dtype, e->dtype))
            return ar_sum_of(c, value);
        return sum_atom(c, e);
    }
    IrExpr *r = ar_rewrite(c, e);
    if (ar_const_int(r, &v))
        return sum_const(c, e->dtype, v);
    if (r != e && canonical_kind(r->kind) && ir_dtype_eq(r->dtype, e->dtype))
        return ar_sum_of(c, r);
    return sum_atom(c, r);
}

ArSum *ar_sum_of(ArCtx *c, IrExpr *e)
{
    int64_t v;
    if (ar_const_int(e, &v))
        return sum_const(c, e->dtype, v);
    if (c->depth > AR_MAX_DEPTH)
        return sum_atom(c, e);
    c->depth++;
    ArSum *s;
    switch (e->kind) {
    case IR_E_ADD:
    case IR_E_SUB:
        s = scaled_copy(c, ar_sum_of(c, e->u.op.a), 1);
        add_sum(c, s, ar_sum_of(c, e->u.op.b), e->kind == IR_E_SUB ? -1 : 1);
        break;
    case IR_E_MUL: s = sum_of_mul(c, e); break;
    case IR_E_FLOORDIV: case IR_E_FLOORMOD: case IR_E_DIV: case IR_E_MOD:
        s = sum_of_division(c, e);
        break;
    default: s = sum_of_other(c, e); break;
    }
    c->depth--;
    return s;
}

ArSum *ar_sum_diff(ArCtx *c, IrExpr *a, IrExpr *b)
{
    ArSum *s = scaled_copy(c, ar_sum_of(c, a), 1);
    add_sum(c, s, ar_sum_of(c, b), -1);
    return s;
}
