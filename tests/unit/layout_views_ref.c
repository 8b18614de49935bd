/* Differential test of buffer views: replays tests/layout_ref/views.h, the
 * views that tests/layout_ref/gen.py --views built with the reference
 * (apache-tvm 0.27's own Buffer methods) over random buffers, through tirx's
 * front end: each view is parsed as TIRx script (`V = P.sub[...]` on a
 * parameter P of that type) and the declared child's shape, layout (exactly,
 * iter by iter), elem_offset and allocated_addr must equal the reference's.
 * A reference error must be a tirx error. Where tirx deliberately differs
 * (the [QUIRK] decisions of tests/unit/layout_views.c) the generator does not
 * draw the case. Every mismatch is printed; the test fails if there is one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "layout_spec.h"
#include "script/script.h"
#include "../layout_ref/views.h"

enum { NFIELDS = 12 };

/* The compact notation of tests/unit/layout_spec.h, as gen.py writes it. */
static const char *iters_text(LyCtx *c, const char *tag, const IrIter *its, int n)
{
    char *e = "", *s = "";
    for (int i = 0; i < n; i++) {
        int64_t ext = -1, st = -1;
        const_of(its[i].extent, &ext), const_of(its[i].stride, &st);
        e = tx_arena_printf(c->arena, "%s%s%lld", e, i ? "," : "", (long long)ext);
        s = tx_arena_printf(c->arena, "%s%s%lld%s%s", s, i ? "," : "", (long long)st,
                            strcmp(its[i].axis, "m") ? "@" : "", strcmp(its[i].axis, "m") ? its[i].axis : "");
    }
    return tx_arena_printf(c->arena, "%s[(%s):(%s)]", tag, e, s);
}

static const char *notation(LyCtx *c, const IrLayout *l)
{
    if (!l)
        return "None";
    if (l->kind == IR_LAYOUT_COMPOSE)
        return tx_arena_printf(c->arena, "Cmp(%d,%d,%d;%s%s)", l->per_element, l->swizzle_len,
                               l->atom_len, notation(c, l->tile), l->swizzle_inner ? "" : ",inner=F");
    char *s = "";
    if (l->nshard)
        s = tx_arena_printf(c->arena, "%s", iters_text(c, "S", l->shard, l->nshard));
    if (l->nreplica)
        s = tx_arena_printf(c->arena, "%s%s%s", s, *s ? " + " : "", iters_text(c, "R", l->replica, l->nreplica));
    for (int i = 0; i < l->noffset; i++) {
        int64_t v = -1;
        const_of(l->offset[i].value, &v);
        bool m = !strcmp(l->offset[i].axis, "m");
        s = tx_arena_printf(c->arena, "%s%s%lld%s%s", s, *s ? " + " : "", (long long)v, m ? "" : "@",
                            m ? "" : l->offset[i].axis);
    }
    return *s ? s : "S[()]";
}

static const char *ints_text(LyCtx *c, IrExpr *const *e, int n)
{
    char *s = "";
    for (int i = 0; i < n; i++) {
        int64_t v = -1;
        const_of(e[i], &v);
        s = tx_arena_printf(c->arena, "%s%s%lld", s, i ? "," : "", (long long)v);
    }
    return s;
}

/* "(8, 64)" from "8,64" */
static const char *shape_tuple(LyCtx *c, const char *csv)
{
    char *s = tx_arena_strdup(c->arena, "(");
    for (const char *p = csv; *p; p++)
        s = tx_arena_printf(c->arena, "%s%s", s, *p == ',' ? ", " : tx_arena_strndup(c->arena, p, 1));
    return tx_arena_printf(c->arena, "%s%s)", s, strchr(csv, ',') ? "" : ",");
}

/* The last buffer a function body declares. */
static const IrExpr *last_decl(const IrStmt *s)
{
    if (!s)
        return NULL;
    if (s->kind == IR_S_DECL)
        return s->u.decl.buffer;
    if (s->kind != IR_S_SEQ)
        return NULL;
    const IrExpr *found = NULL;
    for (int i = 0; i < s->u.seq.n; i++) {
        const IrExpr *b = last_decl(s->u.seq.stmts[i]);
        found = b ? b : found;
    }
    return found;
}

/* What tirx makes of one record: the child's fields, or "ERROR". */
static const char *tirx_view(LyCtx *c, const char *const *f)
{
    const char *dtype = f[1], *scope = f[2], *shape = f[3], *eo = f[5], *addr = f[6], *op = f[7];
    IrLayout *l = spec(c, f[4]);
    if (!l)
        return tx_arena_printf(c->arena, "<cannot read %s>", f[4]);
    const char *extra = strcmp(addr, "-") ? tx_arena_printf(c->arena, ", allocated_addr=%s", addr)
                                          : tx_arena_printf(c->arena, ", elem_offset=%s", eo);
    const char *text = tx_arena_printf(
        c->arena,
        "@T.prim_func\ndef f(P: T.Buffer(%s, \"%s\", scope=\"%s\", layout=%s%s)):\n    V = P.%s\n",
        shape_tuple(c, shape), dtype, scope, ly_str(c, l), extra, op);
    IrModule *m = sc_parse(text, strlen(text), "view.tirx", NULL, 0);
    /* A view that changes nothing (P.sub[:]) is P itself. */
    const IrExpr *v = m->diags.nerrors || m->nfuncs != 1 ? NULL : last_decl(m->funcs[0]->body);
    if (!m->diags.nerrors && m->nfuncs == 1 && !v)
        v = m->funcs[0]->params[0];
    const char *r = "ERROR";
    if (v) {
        const IrBufferType *b = ir_buf(v);
        int64_t e = -1;
        const_of(b->elem_offset, &e);
        r = tx_arena_printf(c->arena, "%s | %s | %lld | %s", ints_text(c, b->shape, b->ndim),
                            notation(c, b->layout), (long long)e,
                            b->naddr ? ints_text(c, b->allocated_addr, 1) : "-");
    }
    ir_module_free(m);
    return r;
}

static void test_views_match_the_reference(void **state)
{
    LyCtx *c = CTX;
    int n = (int)(sizeof layout_view_vectors / sizeof *layout_view_vectors), bad = 0;
    for (int i = 0; i < n; i++) {
        const char *f[NFIELDS] = {0};
        int k = 0;
        for (const char *p = layout_view_vectors[i]; k < NFIELDS;) {
            const char *bar = strstr(p, " | ");
            f[k++] = tx_arena_strndup(c->arena, p, bar ? (size_t)(bar - p) : strlen(p));
            if (!bar)
                break;
            p = bar + 3;
        }
        const char *want = k == 12 ? tx_arena_printf(c->arena, "%s | %s | %s | %s", f[8], f[9], f[10], f[11])
                                   : f[8];
        const char *got = tirx_view(c, f);
        if (strcmp(want, got)) {
            fprintf(stderr, "%s\n  reference: %s\n  tirx:      %s\n", layout_view_vectors[i], want, got);
            bad++;
        }
    }
    fprintf(stderr, "%d view records, %d mismatches\n", n, bad);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {TEST(test_views_match_the_reference)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
