/* The axis registry (from axis.def): lookup with near-match, kinds, display
 * order, the scope pair of a layout, and the thread-axis fusers and splitters,
 * both derived from the decomposition rows (tx = warpid*32 + laneid, ...). */
#include <string.h>

#include "internal.h"

/* Scope columns of axis.def: an IrScope, or NONE for axes without one. */
#define SC_NONE LY_NO_SCOPE
#define SC_KERNEL IR_SCOPE_KERNEL
#define SC_CLUSTER IR_SCOPE_CLUSTER
#define SC_CTA IR_SCOPE_CTA
#define SC_WARPGROUP IR_SCOPE_WARPGROUP
#define SC_WARP IR_SCOPE_WARP
#define SC_THREAD IR_SCOPE_THREAD
const LyAxisInfo ly_axis_info[LY_AXIS_COUNT] = {
#define LY_AXIS(E, name, kind, scope, subscope) {name, LY_##kind, SC_##scope, SC_##subscope},
#include "axis.def"
};

typedef struct SplitRow {
    LyAxisId whole, outer, inner;
    int64_t inner_extent;
} SplitRow;

static const SplitRow split_rows[] = {
#define LY_SPLIT(whole, outer, inner, ext) {LY_AXIS_##whole, LY_AXIS_##outer, LY_AXIS_##inner, ext},
#include "axis.def"
};

int ly_axis_find(const char *name)
{
    for (int i = 0; i < LY_AXIS_COUNT; i++)
        if (strcmp(ly_axis_info[i].name, name) == 0)
            return i;
    return -1;
}

const char *ly_axis_nearest(const char *name)
{
    const char *names[LY_AXIS_COUNT];
    for (int i = 0; i < LY_AXIS_COUNT; i++)
        names[i] = ly_axis_info[i].name;
    return tx_nearest(name, names, LY_AXIS_COUNT);
}

LyAxisKind ly_axis_kind(const char *name)
{
    int id = ly_axis_find(name);
    return id < 0 ? LY_MEMORY : ly_axis_info[id].kind;
}

int ly_axis_order(const char *a, const char *b)
{
    int ka = (int)ly_axis_kind(a), kb = (int)ly_axis_kind(b);
    return ka != kb ? ka - kb : strcmp(a, b);
}

/* ---------------------------------------------------------------- fusers */
/* m such that `whole` = ... + m * part + ...; 0 when part is not a piece of whole. */
static int64_t part_multiplier(LyAxisId part, LyAxisId whole)
{
    if (part == whole)
        return 1;
    for (size_t i = 0; i < TX_ARRAY_LEN(split_rows); i++) {
        const SplitRow *r = &split_rows[i];
        if (r->whole != whole)
            continue;
        int64_t m = part_multiplier(part, r->outer) * r->inner_extent;
        if (!m)
            m = part_multiplier(part, r->inner);
        if (m)
            return m;
    }
    return 0;
}

static int axis_with_scopes(IrScope inner, IrScope outer)
{
    for (int i = 0; i < LY_AXIS_COUNT; i++)
        if (ly_axis_info[i].kind == LY_THREAD && ly_axis_info[i].subscope == (int)inner &&
            ly_axis_info[i].scope == (int)outer)
            return i;
    return -1;
}

bool ly_axis_fuse(LyCtx *c, IrIter it, IrScope inner, IrScope outer, IrIter *out)
{
    int a = ly_axis_find(it.axis), target = axis_with_scopes(inner, outer);
    if (a < 0 || target < 0 || a == target)
        return false;
    int64_t m = part_multiplier((LyAxisId)a, (LyAxisId)target);
    if (!m)
        return false;
    *out = ly_iter(it.extent, ar_mul(c->arena, it.stride, ar_index_int_like(c->arena, it.stride, m)),
                   ly_axis_info[target].name);
    return true;
}

/* ---------------------------------------------------------------- splitters */
/* One iter of `whole` as iters of (outer, inner) with whole = outer*E + inner. */
static int split_iter(LyCtx *c, IrIter it, const SplitRow *r, IrIter out[2])
{
    const char *outer = ly_axis_info[r->outer].name, *inner = ly_axis_info[r->inner].name;
    IrExpr *E = ar_index_int_like(c->arena, it.extent, r->inner_extent);
    IrExpr *span = ar_mul(c->arena, it.extent, it.stride);
    if (ar_less(NULL, span, E)) {
        out[0] = ly_iter(it.extent, it.stride, inner);
        return 1;
    }
    if (ar_divisible(E, it.stride) && ar_divisible(span, E)) {
        IrExpr *d = ar_floordiv(c->arena, E, it.stride);
        out[0] = ly_iter(ar_floordiv(c->arena, it.extent, d), ar_index_int_like(c->arena, E, 1), outer);
        out[1] = ly_iter(d, it.stride, inner);
        return 2;
    }
    if (ar_divisible(it.stride, E)) {
        out[0] = ly_iter(it.extent, ar_floordiv(c->arena, it.stride, E), outer);
        return 1;
    }
    return 0;
}

int ly_axis_split(LyCtx *c, IrIter it, IrScope scope, IrIter out[2])
{
    int a = ly_axis_find(it.axis);
    for (size_t i = 0; a >= 0 && i < TX_ARRAY_LEN(split_rows); i++) {
        const SplitRow *r = &split_rows[i];
        if ((int)r->whole == a && ly_axis_info[r->outer].subscope == (int)scope)
            return split_iter(c, it, r, out);
    }
    return 0;
}

/* ---------------------------------------------------------------- scope of a layout */
typedef struct ScopeMap {
    int parent[IR_SCOPE_COUNT]; /* subscope -> scope, LY_NO_SCOPE when unset */
    int inner;
} ScopeMap;

static bool note_axis(LyCtx *c, ScopeMap *sm, const char *axis)
{
    int id = ly_axis_find(axis);
    if (id < 0 || ly_axis_info[id].kind != LY_THREAD)
        return true;
    int sub = ly_axis_info[id].subscope, sc = ly_axis_info[id].scope;
    if (sm->parent[sub] != LY_NO_SCOPE && sm->parent[sub] != sc)
        return ly_fail(c, "conflicting scopes for %s: %s and %s", ir_scope_names[sub],
                       ir_scope_names[sm->parent[sub]], ir_scope_names[sc]);
    sm->parent[sub] = sc;
    if (sub > sm->inner)
        sm->inner = sub;
    return true;
}

static bool has_thread_shard(const IrLayout *t)
{
    for (int i = 0; i < t->nshard; i++)
        if (ly_axis_kind(t->shard[i].axis) == LY_THREAD)
            return true;
    return false;
}

bool ly_scope(LyCtx *c, const IrLayout *l, IrScope *inner, IrScope *outer)
{
    const IrLayout *t = ly_tile_of(l);
    if (!has_thread_shard(t))
        return false;
    ScopeMap sm;
    for (int i = 0; i < IR_SCOPE_COUNT; i++)
        sm.parent[i] = LY_NO_SCOPE;
    sm.inner = -1;
    bool ok = true;
    for (int i = 0; ok && i < t->nshard; i++)
        ok = note_axis(c, &sm, t->shard[i].axis);
    for (int i = 0; ok && i < t->nreplica; i++)
        ok = note_axis(c, &sm, t->replica[i].axis);
    for (int i = 0; ok && i < t->noffset; i++)
        ok = note_axis(c, &sm, t->offset[i].axis);
    if (!ok)
        return false;
    int count = 0, total = 0, s = sm.inner;
    for (int i = 0; i < IR_SCOPE_COUNT; i++)
        total += sm.parent[i] != LY_NO_SCOPE;
    for (; sm.parent[s] != LY_NO_SCOPE && count <= total; count++)
        s = sm.parent[s];
    if (count != total)
        return ly_fail(c, "the thread axes of %s do not form one scope chain", ly_str(c, l));
    *inner = (IrScope)sm.inner, *outer = (IrScope)s;
    return true;
}
