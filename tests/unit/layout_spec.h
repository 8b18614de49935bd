/* Test helpers for the layout unit tests: a reader for the compact layout
 * notation of reference/layout_passes.md, and shortcuts around LyCtx.
 *
 *   layout := tile | "Cmp(" int "," int "," int ";" tile ["," "inner=F"] ")"
 *   tile   := term ("+" term)*
 *   term   := "S[" iters "]" | "R[" iters "]" | int ["@" axis]
 *   iters  := list [":" list]          (no strides: row-major on m)
 *   list   := item | "(" [item ("," item)*] ")"
 *   item   := int ["@" axis]
 *
 * Header-only (static functions) so that every test binary can include it. */
#ifndef TX_TEST_LAYOUT_SPEC_H
#define TX_TEST_LAYOUT_SPEC_H

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"
#include "layout/layout.h"

typedef struct SpecReader {
    LyCtx *c;
    const char *p;
    bool bad;
} SpecReader;

static inline void spec_ws(SpecReader *r)
{
    while (isspace((unsigned char)*r->p))
        r->p++;
}

static inline bool spec_eat(SpecReader *r, const char *tok)
{
    spec_ws(r);
    size_t n = strlen(tok);
    if (strncmp(r->p, tok, n) != 0)
        return false;
    r->p += n;
    return true;
}

static inline void spec_expect(SpecReader *r, const char *tok)
{
    if (!spec_eat(r, tok))
        r->bad = true;
}

static inline long long spec_int(SpecReader *r)
{
    spec_ws(r);
    char *end;
    long long v = strtoll(r->p, &end, 10);
    if (end == r->p)
        r->bad = true;
    r->p = end;
    return v;
}

static inline const char *spec_axis(SpecReader *r)
{
    if (!spec_eat(r, "@"))
        return "m";
    spec_ws(r);
    const char *s = r->p;
    while (isalnum((unsigned char)*r->p) || *r->p == '_')
        r->p++;
    if (r->p == s)
        r->bad = true;
    return tx_arena_strndup(r->c->arena, s, (size_t)(r->p - s));
}

/* A list of items; returns the count (at most 32). */
static inline int spec_list(SpecReader *r, long long *v, const char **axis)
{
    bool paren = spec_eat(r, "(");
    int n = 0;
    if (paren && spec_eat(r, ")"))
        return 0;
    do {
        if (paren && n > 0 && (spec_ws(r), *r->p == ')'))
            break;
        v[n] = spec_int(r);
        axis[n] = spec_axis(r);
        n++;
    } while (n < 32 && paren && spec_eat(r, ","));
    if (paren)
        spec_expect(r, ")");
    return n;
}

static inline int spec_iters(SpecReader *r, IrIter *out)
{
    long long e[32], s[32];
    const char *ea[32], *sa[32];
    int n = spec_list(r, e, ea);
    if (spec_eat(r, ":")) {
        if (spec_list(r, s, sa) != n)
            r->bad = true;
    } else {
        long long stride = 1;
        for (int i = n - 1; i >= 0; i--)
            s[i] = stride, sa[i] = "m", stride *= e[i];
    }
    for (int i = 0; i < n; i++)
        out[i] = (IrIter){ir_i32(r->c->arena, e[i]), ir_i32(r->c->arena, s[i]), sa[i]};
    spec_expect(r, "]");
    return n;
}

static inline IrLayout *spec_tile(SpecReader *r)
{
    IrIter shard[32], rep[32];
    IrAxisOffset off[32];
    int ns = 0, nr = 0, no = 0;
    do {
        if (spec_eat(r, "S["))
            ns = spec_iters(r, shard);
        else if (spec_eat(r, "R["))
            nr = spec_iters(r, rep);
        else if (no < 32) {
            long long v = spec_int(r);
            off[no].axis = spec_axis(r);
            off[no++].value = ir_i32(r->c->arena, v);
        }
    } while (!r->bad && spec_eat(r, "+"));
    return ly_tile(r->c, shard, ns, rep, nr, off, no);
}

/* The layout written in the notation, or NULL when it does not read. */
static inline IrLayout *spec(LyCtx *c, const char *text)
{
    SpecReader r = {c, text, false};
    IrLayout *l;
    if (spec_eat(&r, "Cmp(")) {
        int p = (int)spec_int(&r);
        spec_expect(&r, ",");
        int sw = (int)spec_int(&r);
        spec_expect(&r, ",");
        int at = (int)spec_int(&r);
        spec_expect(&r, ";");
        IrLayout *t = spec_tile(&r);
        bool inner = !spec_eat(&r, ",");
        if (!inner)
            spec_expect(&r, "inner=F");
        spec_expect(&r, ")");
        l = r.bad ? NULL : ly_compose(c, p, sw, at, inner, t);
    } else {
        l = spec_tile(&r);
    }
    spec_ws(&r);
    return r.bad || *r.p ? NULL : l;
}

/* ---- fixture: an arena and a context per test ---- */
typedef struct Fixture {
    TxArena arena;
    LyCtx c;
} Fixture;

static inline int setup(void **state)
{
    Fixture *f = calloc(1, sizeof *f);
    tx_arena_init(&f->arena);
    f->c = ly_ctx(&f->arena);
    *state = f;
    return 0;
}

static inline int teardown(void **state)
{
    Fixture *f = *state;
    tx_arena_free(&f->arena);
    free(f);
    return 0;
}

#define CTX (&((Fixture *)*state)->c)
#define TEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

/* ---- shortcuts ---- */
static inline bool const_of(const IrExpr *e, int64_t *v)
{
    if (!e || e->kind != IR_E_INT)
        return false;
    *v = e->u.int_val;
    return true;
}

static inline IrExpr **ints(LyCtx *c, const int64_t *v, int n)
{
    IrExpr **e = TX_NEW_ARRAY(c->arena, IrExpr *, n + 1);
    for (int i = 0; i < n; i++)
        e[i] = ir_i32(c->arena, v[i]);
    return e;
}

/* "(8, 16)" for messages. */
static inline const char *shape_text(LyCtx *c, const int64_t *shape, int nd)
{
    char *s = tx_arena_strdup(c->arena, "(");
    for (int d = 0; d < nd; d++)
        s = tx_arena_printf(c->arena, "%s%s%lld", s, d ? ", " : "", (long long)shape[d]);
    return tx_arena_printf(c->arena, "%s)", s);
}

/* The value of `axis` in point k of a concrete apply; -999999 when absent. */
static inline int64_t coord(const LyCoords *co, int k, const char *axis)
{
    for (int i = 0; i < co->naxes; i++)
        if (strcmp(co->axes[i], axis) == 0)
            return co->vals[k * co->naxes + i];
    return -999999;
}

/* The representative value on `axis` of a concrete apply (a single point). */
static inline int64_t at1(LyCtx *c, const IrLayout *l, const int64_t *shape, const int64_t *idx, int nd,
                   const char *axis)
{
    LyCoords co;
    if (!ly_apply_at(c, l, shape, idx, nd, &co))
        return -888888;
    return coord(&co, 0, axis);
}

/* Structural equality (canonical forms, no target) with a layout in notation. */
static inline bool same(LyCtx *c, const IrLayout *l, const char *text)
{
    IrLayout *want = spec(c, text);
    return l && want && ly_equal(c, l, want, LY_TARGET_NONE);
}

/* The text of a canonical layout. */
static inline const char *canon_str(LyCtx *c, const IrLayout *l, LyTarget t)
{
    IrLayout *k = ly_canonicalize(c, l, t);
    return k ? ly_str(c, k) : "<error>";
}

/* Symbolic apply agrees with concrete apply at every index of `shape` (or
 * every `step`-th position): the expressions, evaluated, give a point of the
 * concrete set on every axis they name. */
static inline bool symbolic_matches(LyCtx *c, const IrLayout *l, const int64_t *shape, int nd, int step)
{
    IrExpr *vars[8];
    for (int d = 0; d < nd; d++)
        vars[d] = ir_var(c->arena, tx_arena_printf(c->arena, "i%d", d),
                         ir_prim_type(c->arena, IR_INT32), (TxSpan){0});
    LyAxisValue *vals;
    int nvals;
    if (!ly_apply_expr(c, l, vars, ints(c, shape, nd), nd, &vals, &nvals))
        return false;
    int64_t count = 1, idx[8];
    for (int d = 0; d < nd; d++)
        count *= shape[d];
    for (int64_t pos = 0; pos < count; pos += step) {
        for (int64_t d = nd - 1, rest = pos; d >= 0; d--)
            idx[d] = rest % shape[d], rest /= shape[d];
        LyCoords co;
        if (!ly_apply_at(c, l, shape, idx, nd, &co))
            return false;
        bool found = false;
        for (int k = 0; k < co.npoints && !found; k++) {
            found = true;
            for (int a = 0; a < nvals && found; a++) {
                int64_t v;
                found = ar_eval(vals[a].value, (const IrExpr *const *)vars, idx, nd, &v) &&
                        v == coord(&co, k, vals[a].axis);
            }
        }
        if (!found)
            return false;
    }
    return true;
}

#endif
