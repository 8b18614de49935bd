/* The per-thread view of a distributed register tile: a local buffer whose
 * TileLayout spreads elements over thread axes (laneid, warpid, tx, ...) and
 * registers (m). The partition is induced by the layout, as the reference's
 * register paths do: grouped by the buffer's shape, each shard iter is either
 * a thread iter (its digit comes from the running thread's coordinate on that
 * axis) or a register iter (an unrolled loop); the logical index of a
 * dimension is its group's mixed-radix number, the register slot the sum of
 * the register digits times their strides. Replicated thread iters hold copies
 * (each copy computes the same elements). A sub-region is the layout sliced
 * to it: its register offset is the slot of its first element, and it must
 * not shift any thread axis (each thread keeps the elements it holds). */
#include <stdlib.h>
#include <string.h>

#include "../arith/arith.h"
#include "partition.h"

/* Threads a thread axis counts within the call's scope. */
static int64_t axis_extent(const OpCtx *c, int axis)
{
    switch (axis) {
    case LY_AXIS_LANEID: return 32;
    case LY_AXIS_WID_IN_WG: return 4;
    case LY_AXIS_TID_IN_WG: return 128;
    case LY_AXIS_TX: return c->cta_threads;
    case LY_AXIS_WARPID: return c->cta_threads / 32;
    case LY_AXIS_WGID: return c->cta_threads / 128;
    default: return 0;
    }
}

typedef struct AxisIter {
    int64_t extent, stride;
} AxisIter;

static int by_stride(const void *pa, const void *pb)
{
    const AxisIter *a = pa, *b = pb;
    return a->stride < b->stride ? -1 : a->stride > b->stride;
}

/* The iters (shard and replica) on thread axis `axis` tile [0, its extent) exactly. */
static const char *check_cover(OpCtx *c, const IrLayout *t, int axis)
{
    AxisIter its[64];
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        const IrIter *v = pass ? t->replica : t->shard;
        int nv = pass ? t->nreplica : t->nshard;
        for (int i = 0; i < nv && n < 64; i++) {
            int64_t e, s;
            if (ly_axis_find(v[i].axis) != axis || !op_const(v[i].extent, &e) || e == 1)
                continue;
            if (!op_const(v[i].stride, &s))
                return op_reason(c, "the layout's %s strides are not constants", v[i].axis);
            its[n++] = (AxisIter){e, s};
        }
    }
    qsort(its, (size_t)n, sizeof its[0], by_stride);
    int64_t next = 1;
    for (int i = 0; i < n; i++) {
        if (its[i].stride != next)
            break;
        next *= its[i].extent;
    }
    int64_t want = axis_extent(c, axis);
    if (next != want)
        return op_reason(c, "the layout does not give every thread of the %s axis (%lld) its "
                            "elements", ly_axis_info[axis].name, (long long)want);
    return NULL;
}

static const char *check_axes(OpCtx *c, const OpRegion *r, const IrLayout *t)
{
    IrScope call = c->call->u.tile.scope;
    if (call == IR_SCOPE_THREAD)
        return op_reason(c, "'%s' is spread over threads; a thread-scope call cannot use it",
                         r->buffer->u.var.name);
    bool seen[LY_AXIS_COUNT] = {0};
    for (int i = 0; i < t->nshard + t->nreplica; i++) {
        const IrIter *it = i < t->nshard ? &t->shard[i] : &t->replica[i - t->nshard];
        int a = ly_axis_find(it->axis);
        if (a < 0 || ly_axis_info[a].kind == LY_DEVICE)
            return op_reason(c, "the layout of '%s' uses axis %s", r->buffer->u.var.name, it->axis);
        if (ly_axis_info[a].kind == LY_MEMORY) {
            if (strcmp(it->axis, "m") || i >= t->nshard)
                return op_reason(c, "the layout of '%s' is not registers and threads",
                                 r->buffer->u.var.name);
            continue;
        }
        if (ly_axis_info[a].scope < (int)call)
            return op_reason(c, "the layout of '%s' spreads it over %s, wider than the %s scope "
                                "of the call", r->buffer->u.var.name, it->axis, ir_scope_names[call]);
        if (!c->axis[a])
            return op_reason(c, "the kernel's scope ids do not give the thread's %s", it->axis);
        if (!seen[a]) {
            seen[a] = true;
            const char *why = check_cover(c, t, a);
            if (why)
                return why;
        }
    }
    return NULL;
}

/* The digit of thread iter `it` for the running thread. */
static IrExpr *thread_digit(OpCtx *c, const IrIter *it)
{
    int a = ly_axis_find(it->axis);
    int64_t e, s;
    op_const(it->extent, &e), op_const(it->stride, &s);
    IrExpr *v = c->axis[a];
    if (s != 1)
        v = op_bin(c, IR_E_FLOORDIV, v, op_i32(c, s));
    if (e * s != axis_extent(c, a))
        v = op_bin(c, IR_E_FLOORMOD, v, op_i32(c, e));
    return v;
}

static bool whole_buffer(const OpRegion *r)
{
    const IrBufferType *bt = ir_buf(r->buffer);
    for (int d = 0; d < r->ndim; d++) {
        int64_t s, n;
        if (!op_const(r->start[d], &s) || s != 0 || !op_const(bt->shape[d], &n) ||
            n != r->extent[d])
            return false;
    }
    return true;
}

static IrExpr **extents_of(OpCtx *c, const OpRegion *r)
{
    IrExpr **ext = TX_NEW_ARRAY(c->arena, IrExpr *, r->ndim);
    for (int d = 0; d < r->ndim; d++)
        ext[d] = op_i32(c, r->extent[d]);
    return ext;
}

/* The region's own layout over its extents: the buffer's layout, sliced to a
 * sub-region, with the register offsets taken out into *base (the slot of
 * the region's first element; symbolic when the start is). A thread-axis
 * offset would give the region's elements to other threads than the
 * buffer's: refused. NULL with the reason in *why. */
static IrLayout *region_layout(OpCtx *c, const OpRegion *r, IrExpr **base, const char **why)
{
    LyCtx lc = op_ly_ctx(c);
    bool whole = whole_buffer(r);
    *why = NULL;
    if (r->layout->kind != IR_LAYOUT_TILE) {
        *why = op_reason(c, "the layout of '%s' is swizzled", r->buffer->u.var.name);
        return NULL;
    }
    IrLayout *l = whole ? (IrLayout *)r->layout
                        : ly_slice(&lc, r->layout, ir_buf(r->buffer)->shape, r->start,
                                   extents_of(c, r), r->ndim, LY_TARGET_NONE);
    if (!l) {
        *why = op_reason(c, "the sub-region of '%s' is not a register layout: %s",
                         r->buffer->u.var.name, lc.err);
        return NULL;
    }
    IrLayout *out = ly_tile(&lc, l->shard, l->nshard, l->replica, l->nreplica, NULL, 0);
    *base = op_i32(c, 0);
    for (int i = 0; out && i < l->noffset; i++) {
        const IrAxisOffset *o = &l->offset[i];
        if (!strcmp(o->axis, "m")) {
            *base = op_bin(c, IR_E_ADD, *base, o->value);
        } else if (ly_axis_kind(o->axis) == LY_THREAD && !ar_is_const(o->value, 0)) {
            *why = whole ? op_reason(c, "the layout of '%s' has a thread-axis offset",
                                     r->buffer->u.var.name)
                         : op_reason(c, "the sub-region of '%s' does not start on a thread's "
                                        "first element: other threads would hold it",
                                     r->buffer->u.var.name);
            return NULL;
        }
    }
    if (!out)
        *why = op_reason(c, "%s", lc.err);
    return out;
}

/* The shard iter that is innermost in the last dimension's group (unit
 * iters skipped), or -1. */
static int innermost_iter(const IrLayout *g, const int *seps, int ndim)
{
    for (int i = seps[ndim] - 1; ndim > 0 && i >= seps[ndim - 1]; i--) {
        int64_t e;
        if (!op_const(g->shard[i].extent, &e) || e != 1)
            return i;
    }
    return -1;
}

/* The vector width of a step: the largest power of two <= max_vec dividing
 * the innermost iter's extent, when that iter is a register iter of stride 1. */
static int64_t step_width(const IrLayout *g, int inner, int64_t max_vec)
{
    int64_t e, st, v = 1;
    if (inner < 0 || strcmp(g->shard[inner].axis, "m") || !op_const(g->shard[inner].extent, &e) ||
        !op_const(g->shard[inner].stride, &st) || st != 1)
        return 1;
    while (v * 2 <= max_vec && e % (v * 2) == 0)
        v *= 2;
    return v;
}

const char *op_frag(OpCtx *c, OpSeq *s, const OpRegion *r, int64_t max_vec, OpFrag *f)
{
    memset(f, 0, sizeof *f);
    const char *why;
    IrLayout *l = region_layout(c, r, &f->base, &why);
    if (!l)
        return why;
    LyCtx lc = op_ly_ctx(c);
    int *seps = TX_NEW_ARRAY(c->arena, int, r->ndim + 1);
    IrLayout *g = ly_group(&lc, l, extents_of(c, r), r->ndim, seps);
    if (!g)
        return op_reason(c, "%s", lc.err);
    for (int i = 0; i < g->nshard; i++) {
        int64_t v;
        if (!op_const(g->shard[i].extent, &v) || !op_const(g->shard[i].stride, &v))
            return op_reason(c, "the layout of '%s' is not constant", r->buffer->u.var.name);
    }
    if ((why = check_axes(c, r, g)))
        return why;
    int inner = innermost_iter(g, seps, r->ndim);
    f->vec = step_width(g, inner, max_vec);
    f->index = TX_NEW_ARRAY(c->arena, IrExpr *, r->ndim);
    f->reg = op_i32(c, 0);
    for (int d = 0; d < r->ndim; d++) {
        IrExpr *idx = op_i32(c, 0);
        for (int i = seps[d]; i < seps[d + 1]; i++) {
            const IrIter *it = &g->shard[i];
            int64_t e, st;
            op_const(it->extent, &e), op_const(it->stride, &st);
            if (e == 1)
                continue;
            IrExpr *digit;
            if (!strcmp(it->axis, "m")) {
                int64_t step = i == inner ? f->vec : 1;
                IrExpr *var = e == step ? op_i32(c, 0) : op_var(c, "r", IR_INT32);
                if (e != step)
                    f->loop_var[f->nloops] = var, f->loop_ext[f->nloops++] = e / step;
                digit = step == 1 ? var : op_bin(c, IR_E_MUL, var, op_i32(c, step));
                f->reg = op_bin(c, IR_E_ADD, f->reg, op_bin(c, IR_E_MUL, digit, op_i32(c, st)));
            } else {
                digit = thread_digit(c, it);
            }
            idx = op_bin(c, IR_E_ADD, op_bin(c, IR_E_MUL, idx, op_i32(c, e)), digit);
        }
        f->index[d] = idx;
    }
    f->rel = f->reg;
    f->reg = op_bin(c, IR_E_ADD, f->base, f->rel);
    IrLayout *st = ly_storage(&lc, r->layout);
    IrExpr *span_e = st ? ly_span(&lc, st, NULL) : NULL;
    if (!span_e || !op_const(span_e, &f->nregs))
        return op_reason(c, "the register count of '%s' is not constant", r->buffer->u.var.name);
    f->view = op_local_view(c, s, r->buffer);
    return NULL;
}

IrStmt *op_frag_wrap(OpCtx *c, const OpFrag *f, IrStmt *body)
{
    for (int i = f->nloops - 1; i >= 0; i--)
        body = op_for(c, f->loop_var[i], f->loop_ext[i], IR_FOR_UNROLLED, body);
    return body;
}

IrExpr *op_frag_slot(OpCtx *c, const OpFrag *f, const OpRegion *r)
{
    IrExpr *base;
    const char *why;
    region_layout(c, r, &base, &why);
    return op_bin(c, IR_E_ADD, base, f->rel);
}

const char *op_frag_same(OpCtx *c, const OpRegion *a, const OpRegion *b)
{
    int64_t shape[OP_MAX_DIMS];
    bool same = a->ndim == b->ndim;
    for (int d = 0; same && d < a->ndim; d++)
        same = a->extent[d] == b->extent[d], shape[d] = a->extent[d];
    IrExpr *base;
    const char *why;
    IrLayout *la = same ? region_layout(c, a, &base, &why) : NULL;
    IrLayout *lb = la ? region_layout(c, b, &base, &why) : NULL;
    if (same && !lb)
        return why;
    LyCtx lc = op_ly_ctx(c);
    if (!same || !ly_apply_equal(&lc, la, lb, shape, a->ndim))
        return op_reason(c, "'%s' and '%s' place their elements differently",
                         a->buffer->u.var.name, b->buffer->u.var.name);
    return NULL;
}

bool op_wg_thread_reg(const LyCoords *co, int64_t *thread, int64_t *reg)
{
    *thread = *reg = 0;
    for (int a = 0; a < co->naxes; a++) {
        const char *ax = co->axes[a];
        if (!strcmp(ax, "m"))
            *reg = co->vals[a];
        else if (!strcmp(ax, "laneid") || !strcmp(ax, "tid_in_wg"))
            *thread += co->vals[a];
        else if (!strcmp(ax, "wid_in_wg"))
            *thread += 32 * co->vals[a];
        else
            return false;
    }
    return true;
}
