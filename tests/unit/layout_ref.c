/* Differential test: replays the vectors that tests/layout_ref/gen.py computed
 * with the reference (apache-tvm 0.27, tvm.tirx.layout) against src/layout:
 * concrete apply (replicas included), canonical forms with and without the
 * CUDA target, grouping, slicing, tiling, direct sums, sizes and spans,
 * storage, pack/unpack and the TMEM datapath layouts. A reference error must
 * be a tirx error. Every mismatch is printed; the test fails if there is one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "layout_spec.h"
#include "../layout_ref/vectors.h"

enum { MAX_FIELDS = 8 };

typedef struct Record {
    int n;
    const char *f[MAX_FIELDS];
} Record;

static Record split(LyCtx *c, const char *line)
{
    Record r = {0};
    const char *p = line;
    while (r.n < MAX_FIELDS) {
        const char *bar = strstr(p, " | ");
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        r.f[r.n++] = tx_arena_strndup(c->arena, p, len);
        if (!bar)
            break;
        p = bar + 3;
    }
    return r;
}

static int int_list(const char *s, int64_t *out, int max)
{
    int n = 0;
    while (*s && n < max) {
        char *end;
        out[n++] = strtoll(s, &end, 10);
        s = *end == ',' ? end + 1 : end;
        if (end == s && *s)
            break;
    }
    return n;
}

/* ---- apply: the sets of points, each as "axis=v,..." in ASCII axis order ---- */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *points_text(LyCtx *c, const LyCoords *co)
{
    const char **pts = TX_NEW_ARRAY(c->arena, const char *, co->npoints + 1);
    int order[64];
    for (int i = 0; i < co->naxes && i < 64; i++) {
        int j = i;
        for (; j > 0 && strcmp(co->axes[order[j - 1]], co->axes[i]) > 0; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    for (int p = 0; p < co->npoints; p++) {
        char *s = "";
        for (int k = 0; k < co->naxes; k++)
            s = tx_arena_printf(c->arena, "%s%s%s=%lld", s, k ? "," : "", co->axes[order[k]],
                                (long long)co->vals[p * co->naxes + order[k]]);
        pts[p] = s;
    }
    qsort(pts, (size_t)co->npoints, sizeof *pts, cmp_str);
    char *all = "";
    for (int p = 0; p < co->npoints; p++)
        all = tx_arena_printf(c->arena, "%s%s%s", all, p ? ";" : "", pts[p]);
    return all;
}

static const char *sorted_points(LyCtx *c, const char *text)
{
    const char *pts[256];
    int n = 0;
    for (const char *p = text; *p && n < 256;) {
        const char *semi = strchr(p, ';');
        size_t len = semi ? (size_t)(semi - p) : strlen(p);
        pts[n++] = tx_arena_strndup(c->arena, p, len);
        p = semi ? semi + 1 : p + len;
    }
    qsort(pts, (size_t)n, sizeof *pts, cmp_str);
    char *all = "";
    for (int i = 0; i < n; i++)
        all = tx_arena_printf(c->arena, "%s%s%s", all, i ? ";" : "", pts[i]);
    return all;
}

static const char *check_apply(LyCtx *c, const Record *r)
{
    int64_t shape[8], idx[8];
    int nd = int_list(r->f[2], shape, 8);
    int_list(r->f[3], idx, 8);
    LyCoords co;
    if (!ly_apply_at(c, spec(c, r->f[1]), shape, idx, nd, &co))
        return c->err;
    const char *got = points_text(c, &co), *want = sorted_points(c, r->f[4]);
    return strcmp(got, want) ? tx_arena_printf(c->arena, "got %s", got) : NULL;
}

/* ---- layouts: a reference ERROR must be NULL; otherwise compare ---- */
static const char *verdict(LyCtx *c, const IrLayout *got, const char *want, bool structural)
{
    if (strcmp(want, "ERROR") == 0)
        return got ? tx_arena_printf(c->arena, "tirx accepts: %s", ly_str(c, got)) : NULL;
    if (!got)
        return tx_arena_printf(c->arena, "tirx rejects: %s", c->err ? c->err : "?");
    IrLayout *w = spec(c, want);
    if (!w)
        return "unreadable expected layout";
    bool same = structural ? strcmp(ly_str(c, got), ly_str(c, w)) == 0
                           : ly_equal(c, got, w, LY_TARGET_NONE);
    return same ? NULL : tx_arena_printf(c->arena, "got %s", ly_str(c, got));
}

static const char *check_canon(LyCtx *c, const Record *r)
{
    LyTarget t = strcmp(r->f[1], "CUDA") == 0 ? LY_TARGET_CUDA : LY_TARGET_NONE;
    return verdict(c, ly_canonicalize(c, spec(c, r->f[2]), t), r->f[3], false);
}

static const char *check_group(LyCtx *c, const Record *r)
{
    int64_t shape[8], want_seps[9];
    int nd = int_list(r->f[2], shape, 8), seps[9];
    IrLayout *g = ly_group(c, spec(c, r->f[1]), ints(c, shape, nd), nd, seps);
    const char *v = verdict(c, g, r->f[3], true);
    if (v || !g)
        return v;
    int ns = int_list(r->f[4], want_seps, 9);
    for (int i = 0; i < ns; i++)
        if (seps[i] != want_seps[i])
            return tx_arena_printf(c->arena, "separator %d is %d", i, seps[i]);
    return NULL;
}

static const char *check_slice(LyCtx *c, const Record *r)
{
    int64_t shape[8], begin[8], ext[8];
    int nd = int_list(r->f[2], shape, 8);
    int_list(r->f[3], begin, 8);
    int_list(r->f[4], ext, 8);
    IrLayout *s = ly_slice(c, spec(c, r->f[1]), ints(c, shape, nd), ints(c, begin, nd),
                           ints(c, ext, nd), nd, LY_TARGET_NONE);
    return verdict(c, s, r->f[5], false);
}

static const char *check_tile(LyCtx *c, const Record *r, bool dsum)
{
    int64_t oshape[8], ishape[8];
    int nd = int_list(r->f[3], oshape, 8);
    int_list(r->f[4], ishape, 8);
    IrLayout *a = spec(c, r->f[1]), *b = spec(c, r->f[2]);
    IrLayout *t = dsum ? ly_direct_sum(c, a, b, ints(c, oshape, nd), ints(c, ishape, nd), nd,
                                       LY_TARGET_NONE)
                       : ly_tile_by(c, a, b, ints(c, oshape, nd), ints(c, ishape, nd), nd,
                                    LY_TARGET_NONE);
    return verdict(c, t, r->f[5], false);
}

static const char *check_span(LyCtx *c, const Record *r)
{
    IrLayout *l = spec(c, r->f[1]);
    const char *axis = strcmp(r->f[2], "*") == 0 ? NULL : r->f[2];
    int64_t size, span;
    if (!const_of(ly_size(c, l, axis), &size) || !const_of(ly_span(c, l, axis), &span))
        return "not constant";
    if (size != strtoll(r->f[3], NULL, 10) || span != strtoll(r->f[4], NULL, 10))
        return tx_arena_printf(c->arena, "size %lld span %lld", (long long)size, (long long)span);
    return NULL;
}

static const char *check_pack(LyCtx *c, const Record *r, bool pack)
{
    IrLayout *l = spec(c, r->f[1]);
    int64_t n = strtoll(r->f[2], NULL, 10);
    return verdict(c, pack ? ly_pack(c, l, n, NULL) : ly_unpack(c, l, n, NULL), r->f[3], true);
}

static const char *check_tmem(LyCtx *c, const Record *r)
{
    IrLayout *l = ly_tmem_datapath_layout(c, r->f[1][0], strtoll(r->f[2], NULL, 10),
                                          strtoll(r->f[3], NULL, 10), (int)strtol(r->f[4], NULL, 10));
    return verdict(c, l, r->f[5], true);
}

static const char *check(LyCtx *c, const Record *r)
{
    const char *kind = r->f[0];
    if (!strcmp(kind, "apply"))
        return check_apply(c, r);
    if (!strcmp(kind, "canon"))
        return check_canon(c, r);
    if (!strcmp(kind, "group"))
        return check_group(c, r);
    if (!strcmp(kind, "slice"))
        return check_slice(c, r);
    if (!strcmp(kind, "tile") || !strcmp(kind, "dsum"))
        return check_tile(c, r, kind[0] == 'd');
    if (!strcmp(kind, "span"))
        return check_span(c, r);
    if (!strcmp(kind, "storage"))
        return verdict(c, ly_storage(c, spec(c, r->f[1])), r->f[2], true);
    if (!strcmp(kind, "pack") || !strcmp(kind, "unpack"))
        return check_pack(c, r, kind[0] == 'p');
    if (!strcmp(kind, "tmem"))
        return check_tmem(c, r);
    return "unknown record kind";
}

static void test_reference_vectors(void **state)
{
    LyCtx *c = CTX;
    int failures = 0, n = (int)TX_ARRAY_LEN(layout_ref_vectors);
    for (int i = 0; i < n; i++) {
        Record r = split(c, layout_ref_vectors[i]);
        const char *why = check(c, &r);
        if (why && failures++ < 25)
            printf("layout_ref mismatch: %s\n    %s\n", layout_ref_vectors[i], why);
    }
    if (failures)
        fail_msg("%d of %d reference vectors differ", failures, n);
    assert_true(n > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {TEST(test_reference_vectors)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
