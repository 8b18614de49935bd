/* copy_async, variant "tma_auto": global <-> shared with cp.async.bulk.tensor
 * (sm_90a+), issued by one thread, the box derived from the shared layout as
 * the reference's tma_auto derives it.
 *
 * The shared region's layout (its swizzle stripped) is sliced to the region
 * and canonicalized into memory iterators, refined so none straddles a copy
 * dimension, and ordered by stride: they must chain contiguously from stride
 * 1. The global region's iterators (one or more per dimension of the global
 * buffer or view) are refined by the shared iterators, so each maps into one
 * shared iterator. For each prefix of the stride order, the prefix's global
 * iterators form the box (innermost first) and the rest become issue loops;
 * every descriptor is repaired (unit dimensions dropped, contiguous pairs
 * merged, 8/16/32-bit elements moved as wider ones where that keeps every
 * byte address) and validated, and the longest legal prefix wins: a 128 x 64
 * bfloat16 tile under the 128-byte swizzle is one box, a 128 x 128 tile
 * stored as two 64-column slabs one 3-D box. A shared iterator of more than
 * 256 elements that the search leaves to issue loops is cut into boxes of at
 * most 256 instead, when that needs fewer issues. */
#include <string.h>

#include "../../arith/arith.h"
#include "tma.h"

#define MAX_ITERS (2 * TMA_DIMS)

typedef struct Iter {
    int64_t extent;
    IrExpr *stride; /* elements */
    int group;      /* the copy dimension (global) */
} Iter;

/* One global iterator, in a shared iterator (smem >= 0) or coordinate-only.
 * A folded one (fold >= 0) has no descriptor dimension of its own: its digit
 * times `scale` moves the coordinate of iterator `fold`'s dimension. */
typedef struct Gt {
    int64_t extent;
    IrExpr *stride;
    int smem, copy_dim;
    IrExpr *dim, *coord;
    int fold;
    int64_t scale;
} Gt;

typedef struct Auto {
    TmaCall call;
    TmaSpec base;          /* dtype, swizzle, base address, shared offset */
    IrExpr *device_off;
    int ns, order[MAX_ITERS], nactive;
    Iter smem[MAX_ITERS];  /* logical order, outermost first; constant strides */
    int64_t sstride[MAX_ITERS];
    int ng;
    Gt g[MAX_ITERS];
} Auto;

static IrExpr *c64(OpCtx *c, int64_t v) { return ar_index_int(c->arena, v); }

/* Cut iterators (outermost first) at cumulative element counts `cuts` (from
 * the innermost, ascending): an iterator spanning a cut splits there. */
static const char *refine(OpCtx *c, const Iter *in, int n, const int64_t *cuts, int ncuts,
                          Iter *out, int *nout)
{
    Iter rev[MAX_ITERS];
    int k = 0, ci = 0;
    int64_t cum = 1;
    for (int i = n - 1; i >= 0; i--) {
        Iter it = in[i];
        while (ci < ncuts && cuts[ci] <= cum)
            ci++;
        for (; ci < ncuts && cuts[ci] < cum * it.extent; ci++) {
            int64_t f = cuts[ci] / cum;
            if (cuts[ci] % cum || it.extent % f || k >= MAX_ITERS - 1)
                return op_reason(c, "the shared and global iterators do not refine each other "
                                    "(a boundary at %lld elements)", (long long)cuts[ci]);
            rev[k++] = (Iter){f, it.stride, it.group};
            it.extent /= f, it.stride = ar_mul(c->arena, it.stride, c64(c, f));
            cum = cuts[ci];
        }
        if (k >= MAX_ITERS)
            return op_reason(c, "too many iterators");
        rev[k++] = it;
        cum *= it.extent;
    }
    for (int i = 0; i < k; i++)
        out[i] = rev[k - 1 - i];
    *nout = k;
    return NULL;
}

/* Cumulative element counts from the innermost of a list of extents. */
static int cuts_of(const int64_t *ext, int n, int64_t *cuts)
{
    int64_t cum = 1;
    int k = 0;
    for (int i = n - 1; i >= 0; i--)
        if (ext[i] != 1)
            cuts[k++] = cum *= ext[i];
    return k;
}

static bool memory_only(const IrLayout *l)
{
    if (!l || l->kind != IR_LAYOUT_TILE || l->nreplica)
        return false;
    for (int i = 0; i < l->nshard; i++)
        if (ly_axis_kind(l->shard[i].axis) != LY_MEMORY)
            return false;
    return true;
}

/* ---------------------------------------------------------------- shared side */

static IrExpr **extents_of(OpCtx *c, const OpRegion *r)
{
    IrExpr **e = TX_NEW_ARRAY(c->arena, IrExpr *, r->ndim ? r->ndim : 1);
    for (int d = 0; d < r->ndim; d++)
        e[d] = op_i32(c, r->extent[d]);
    return e;
}

/* The iterators' stride order, which must chain contiguously from 1. */
static const char *stride_order(OpCtx *c, Auto *a)
{
    a->nactive = 0;
    for (int i = 0; i < a->ns; i++)
        if (a->smem[i].extent != 1)
            a->order[a->nactive++] = i;
    if (!a->nactive)
        return op_reason(c, "the region of '%s' has no non-unit shared iterator",
                         a->call.smem.buffer->u.var.name);
    for (int i = 1; i < a->nactive; i++) /* by stride (insertion sort: a few iterators) */
        for (int j = i; j > 0 && a->sstride[a->order[j]] < a->sstride[a->order[j - 1]]; j--) {
            int t = a->order[j];
            a->order[j] = a->order[j - 1], a->order[j - 1] = t;
        }
    int64_t want = 1;
    for (int k = 0; k < a->nactive; k++) {
        const Iter *it = &a->smem[a->order[k]];
        if (a->sstride[a->order[k]] != want)
            return op_reason(c, "the shared region of '%s' is not one contiguous run: an iterator "
                                "of stride %lld where %lld comes next", a->call.smem.buffer->u.var.name,
                             (long long)a->sstride[a->order[k]], (long long)want);
        want *= it->extent;
    }
    return NULL;
}

/* Cut every shared iterator over 256 elements into boxes of at most 256. */
static void split_long(OpCtx *c, Auto *a)
{
    Iter out[MAX_ITERS];
    int n = 0;
    for (int i = 0; i < a->ns && n < MAX_ITERS - 1; i++) {
        Iter it = a->smem[i];
        int64_t b = it.extent;
        if (b > 256)
            for (b = 256; it.extent % b; b--)
                ;
        if (b != it.extent)
            out[n++] = (Iter){it.extent / b, ar_mul(c->arena, it.stride, c64(c, b)), it.group};
        out[n++] = (Iter){b, it.stride, it.group};
    }
    memcpy(a->smem, out, sizeof out[0] * (size_t)n);
    a->ns = n;
}

static const char *shared_iters(OpCtx *c, Auto *a, bool split)
{
    const OpRegion *r = &a->call.smem;
    IrLayout *tile = tma_tile_layout(c, r->buffer);
    LyCtx lc = op_ly_ctx(c);
    if (!memory_only(tile))
        return op_reason(c, "the layout of '%s' is not plain memory", r->buffer->u.var.name);
    IrLayout *sl = ly_slice(&lc, tile, ir_buf(r->buffer)->shape, r->start, extents_of(c, r),
                            r->ndim, LY_TARGET_NONE);
    if (!sl || !memory_only(sl))
        return op_reason(c, "the layout of '%s' cannot be sliced to the region%s%s",
                         r->buffer->u.var.name, lc.err ? ": " : "", lc.err ? lc.err : "");
    IrExpr *off = ir_buf(r->buffer)->elem_offset;
    for (int i = 0; i < sl->noffset; i++)
        if (!strcmp(sl->offset[i].axis, "m"))
            off = ar_add(c->arena, off, sl->offset[i].value);
    a->base.smem_off = off;
    IrLayout *canon = ly_canonicalize(&lc, ly_tile(&lc, sl->shard, sl->nshard, NULL, 0, NULL, 0),
                                      LY_TARGET_NONE);
    if (!canon || canon->nshard > MAX_ITERS)
        return op_reason(c, "the layout of '%s' has no canonical form", r->buffer->u.var.name);
    Iter raw[MAX_ITERS];
    for (int i = 0; i < canon->nshard; i++) {
        int64_t e;
        if (!op_const(canon->shard[i].extent, &e))
            return op_reason(c, "the shared layout of '%s' has a symbolic extent", r->buffer->u.var.name);
        raw[i] = (Iter){e, canon->shard[i].stride, -1};
    }
    int64_t cuts[MAX_ITERS];
    int ncut = cuts_of(a->call.gmem.extent, a->call.gmem.ndim, cuts);
    const char *why = refine(c, raw, canon->nshard, cuts, ncut, a->smem, &a->ns);
    if (why)
        return why;
    if (split)
        split_long(c, a);
    for (int i = 0; i < a->ns; i++)
        if (!op_const(a->smem[i].stride, &a->sstride[i]) && a->smem[i].extent != 1)
            return op_reason(c, "the shared layout of '%s' has a symbolic stride, so its order is "
                                "not known", r->buffer->u.var.name);
    return stride_order(c, a);
}

/* ---------------------------------------------------------------- global side */

/* The global layout's iterators of each dimension, sliced to the region. */
static const char *global_dim_iters(OpCtx *c, Auto *a, Iter *out, int *n)
{
    const OpRegion *r = &a->call.gmem;
    const IrBufferType *bt = ir_buf(r->buffer);
    IrLayout *tile = tma_tile_layout(c, r->buffer);
    LyCtx lc = op_ly_ctx(c);
    if (!memory_only(tile))
        return op_reason(c, "the layout of '%s' is not plain memory", r->buffer->u.var.name);
    int *seps = TX_NEW_ARRAY(c->arena, int, r->ndim + 1);
    bool direct = tile->nshard == r->ndim;
    for (int d = 0; direct && d < r->ndim; d++)
        direct = ar_expr_value_equal(tile->shard[d].extent, bt->shape[d]);
    for (int d = 0; direct && d <= r->ndim; d++)
        seps[d] = d;
    if (!direct && !(tile = ly_group(&lc, tile, bt->shape, r->ndim, seps)))
        return op_reason(c, "the layout of '%s' cannot be grouped by its shape", r->buffer->u.var.name);
    *n = 0;
    for (int d = 0; d < r->ndim; d++) {
        int k = seps[d + 1] - seps[d];
        const IrIter *g = tile->shard + seps[d];
        if (k == 1) {
            out[(*n)++] = (Iter){r->extent[d], g[0].stride, d};
            continue;
        }
        IrExpr *ext = op_i32(c, r->extent[d]);
        IrLayout *sl = ly_slice(&lc, ly_tile(&lc, g, k, NULL, 0, NULL, 0), &bt->shape[d],
                                &r->start[d], &ext, 1, LY_TARGET_NONE);
        if (!sl)
            return op_reason(c, "dimension %d of '%s' cannot be sliced to the region", d,
                             r->buffer->u.var.name);
        for (int i = 0; i < sl->nshard && *n < MAX_ITERS; i++) {
            int64_t e;
            if (!op_const(sl->shard[i].extent, &e))
                return op_reason(c, "dimension %d of '%s' slices to a symbolic extent", d,
                                 r->buffer->u.var.name);
            out[(*n)++] = (Iter){e, sl->shard[i].stride, d};
        }
        if (!sl->nshard)
            out[(*n)++] = (Iter){1, c64(c, 1), d};
    }
    return NULL;
}

/* The shared iterator holding the element at cumulative position pos. */
static int smem_at(const Auto *a, int64_t pos)
{
    int64_t cum = 1;
    for (int i = a->ns - 1; i >= 0; i--) {
        if (pos < cum * a->smem[i].extent)
            return i;
        cum *= a->smem[i].extent;
    }
    return -1;
}

/* A copy dimension cut into several iterators whose buffer extent is not a
 * multiple of the inner ones' (192 columns as three 64-column slabs of a
 * 2040-column matrix): one descriptor dimension over the whole extent, at
 * the region's start, holds the innermost iterator; the outer ones fold into
 * its coordinate (each issue moves it by their digit times the elements
 * inside them), so they must be issue loops, and boxes past the edge are
 * clipped or zero-filled by TMA as at any ragged edge. */
static void fold_dim(Auto *a, int d)
{
    int last = -1;
    for (int i = 0; i < a->ng; i++)
        if (a->g[i].copy_dim == d)
            last = i;
    int64_t scale = a->g[last].extent;
    for (int i = last - 1; i >= 0; i--)
        if (a->g[i].copy_dim == d) {
            a->g[i].fold = last, a->g[i].scale = scale;
            scale *= a->g[i].extent;
        }
    a->g[last].dim = ir_buf(a->call.gmem.buffer)->shape[d];
    a->g[last].coord = a->call.gmem.start[d];
}

/* Descriptor dimension and coordinate of each global iterator: the outermost
 * of a copy dimension spans the buffer's extent over the inner ones. */
static const char *global_records(OpCtx *c, Auto *a)
{
    const OpRegion *r = &a->call.gmem;
    const IrBufferType *bt = ir_buf(r->buffer);
    for (int d = 0; d < r->ndim; d++) {
        int first = -1;
        int64_t inner = 1;
        for (int i = 0; i < a->ng; i++)
            if (a->g[i].copy_dim == d) {
                if (first < 0)
                    first = i;
                else
                    inner *= a->g[i].extent;
                a->g[i].dim = c64(c, a->g[i].extent);
                a->g[i].coord = c64(c, 0);
            }
        if (first < 0)
            continue;
        if (inner > 1 && tma_multiple(c, bt->shape[d], inner) != TMA_PROVEN) {
            fold_dim(a, d);
            continue;
        }
        if (tma_multiple(c, r->start[d], inner) != TMA_PROVEN)
            return op_reason(c, "the region start of dimension %d of '%s' is not a known multiple "
                                "of %lld", d, r->buffer->u.var.name, (long long)inner);
        a->g[first].dim = ar_floordiv(c->arena, bt->shape[d], c64(c, inner));
        a->g[first].coord = ar_floordiv(c->arena, r->start[d], c64(c, inner));
    }
    return NULL;
}

static const char *global_iters(OpCtx *c, Auto *a)
{
    Iter raw[MAX_ITERS], ref[MAX_ITERS];
    int n = 0, nref = 0;
    const char *why = global_dim_iters(c, a, raw, &n);
    if (why)
        return why;
    int64_t ext[MAX_ITERS], cuts[MAX_ITERS];
    for (int i = 0; i < a->ns; i++)
        ext[i] = a->smem[i].extent;
    int ncut = cuts_of(ext, a->ns, cuts);
    if ((why = refine(c, raw, n, cuts, ncut, ref, &nref)))
        return why;
    int64_t cum = 1;
    a->ng = nref;
    for (int i = nref - 1; i >= 0; i--) {
        a->g[i] = (Gt){ref[i].extent, ref[i].stride, ref[i].extent == 1 ? -1 : smem_at(a, cum),
                       ref[i].group, NULL, NULL, -1, 1};
        cum *= ref[i].extent;
    }
    return global_records(c, a);
}

/* ---------------------------------------------------------------- the prefix search */

/* The descriptor when the first `prefix` shared iterators of the stride
 * order form the box. */
static const char *prefix_plan(OpCtx *c, const Auto *a, int prefix, TmaPlan *p)
{
    memset(p, 0, sizeof *p);
    p->s = a->base;
    TmaSpec *s = &p->s;
    int dim_of[MAX_ITERS], ordered[MAX_ITERS], n = 0;
    for (int k = 0; k < a->nactive; k++)
        for (int i = a->ng - 1; i >= 0; i--)
            if (a->g[i].smem == a->order[k] && a->g[i].fold < 0)
                ordered[n++] = i;
            else if (a->g[i].smem == a->order[k] && k < prefix)
                return op_reason(c, "dimension %d of '%s' is not a known multiple of the box's "
                                    "%lld elements", a->g[i].copy_dim,
                                 a->call.gmem.buffer->u.var.name, (long long)a->g[i].scale);
    for (int i = 0; i < a->ng; i++)
        if (a->g[i].smem < 0 && a->g[i].fold < 0)
            ordered[n++] = i;
    if (n > TMA_DIMS - 1)
        return op_reason(c, "the copy needs %d descriptor dimensions", n);
    for (int k = 0; k < n; k++) {
        const Gt *g = &a->g[ordered[k]];
        dim_of[ordered[k]] = k;
        bool boxed = false;
        for (int j = 0; j < prefix; j++)
            boxed |= g->smem == a->order[j];
        IrExpr *bits = ar_mul(c->arena, g->stride, c64(c, s->bits));
        int64_t unit;
        bool element = k == 0 && op_const(g->stride, &unit) && unit == 1;
        if (!element && tma_multiple(c, bits, 8) != TMA_PROVEN)
            return op_reason(c, "a global stride of '%s' is not a whole number of bytes",
                             a->call.gmem.buffer->u.var.name);
        s->dim[k] = g->dim, s->coord[k] = g->coord, s->box[k] = boxed ? g->extent : 1;
        s->stride[k] = ar_floordiv(c->arena, bits, c64(c, 8));
    }
    s->rank = n;
    for (int i = 0; i < a->ng; i++)
        if (a->g[i].fold >= 0)
            dim_of[i] = dim_of[a->g[i].fold];
    if (!op_const(a->g[ordered[0]].stride, &s->inner_stride))
        s->inner_stride = 0;
    for (int j = prefix; j < a->nactive; j++) {
        TmaIssueAxis *x = &p->axis[p->naxes++];
        x->extent = a->smem[a->order[j]].extent, x->smem_stride = a->sstride[a->order[j]];
        int64_t div = 1;
        for (int i = a->ng - 1; i >= 0; i--)
            if (a->g[i].smem == a->order[j]) {
                x->coord[x->ncoord].dim = dim_of[i], x->coord[x->ncoord].divisor = div;
                x->coord[x->ncoord].scale = a->g[i].scale;
                x->coord[x->ncoord++].modulus = a->g[i].extent;
                div *= a->g[i].extent;
            }
    }
    s->payload_bits = op_region_size(&a->call.smem) * a->call.smem.dtype.bits;
    return a->device_off ? tma_fold_device_offset(c, &a->call, s, a->device_off) : NULL;
}

static int64_t issues(const TmaPlan *p)
{
    int64_t n = 1;
    for (int i = 0; i < p->naxes; i++)
        n *= p->axis[i].extent;
    return n;
}

/* The longest prefix whose repaired descriptor is legal. */
static const char *search(OpCtx *c, const Auto *a, TmaPlan *best)
{
    const char *last = NULL;
    bool found = false;
    TmaPlan p;
    for (int prefix = 1; prefix <= a->nactive; prefix++) {
        const char *why = prefix_plan(c, a, prefix, &p);
        if (!why)
            why = tma_repair(c, &p, &a->call);
        if (why) {
            last = why;
            if (found)
                break;
            continue;
        }
        *best = p;
        found = true;
    }
    return found ? NULL : op_reason(c, "tma_auto found no legal box: %s; use "
                                       "dispatch=\"tma_explicit\" when the mapping is only known "
                                       "at runtime", last ? last : "no shared iterator");
}

static const char *plan_with(OpCtx *c, Auto *a, bool split, TmaPlan *out)
{
    const char *why;
    if ((why = shared_iters(c, a, split)) || (why = global_iters(c, a)))
        return why;
    return search(c, a, out);
}

static bool has_long_iter(const Auto *a)
{
    for (int i = 0; i < a->ns; i++)
        if (a->smem[i].extent > 256)
            return true;
    return false;
}

static const char *plan_call(OpCtx *c, TmaCall *call, TmaPlan *out)
{
    Auto *a = TX_NEW(c->arena, Auto);
    const char *why = tma_read_call(c, "tma_auto", false, &a->call);
    if (why)
        return why;
    if (!op_regions_match(&a->call.smem, &a->call.gmem))
        return op_reason(c, "the regions' non-unit extents differ");
    if ((why = tma_descriptor_type(c, &a->call, &a->base)) ||
        (why = tma_shared_swizzle(c, &a->call, &a->base.swizzle)) ||
        (why = tma_global_base(c, &a->call, &a->base, &a->device_off)))
        return why;
    *call = a->call;
    why = plan_with(c, a, false, out);
    if (!has_long_iter(a) || (!why && issues(out) == 1))
        return why;
    TmaPlan cut;
    Auto *b = TX_NEW(c->arena, Auto);
    *b = *a;
    if (plan_with(c, b, true, &cut) || (!why && issues(&cut) >= issues(out)))
        return why;
    *out = cut;
    return NULL;
}

const char *op_tma_auto_accept(OpCtx *c)
{
    const char *why = tma_accept_scope(c);
    if (why)
        return why;
    TmaCall call;
    TmaPlan *p = TX_NEW(c->arena, TmaPlan);
    return plan_call(c, &call, p);
}

IrStmt *op_tma_auto_lower(OpCtx *c)
{
    TmaCall call;
    TmaPlan *p = TX_NEW(c->arena, TmaPlan);
    const char *why = plan_call(c, &call, p);
    return why ? op_decline(c, "%s", why) : tma_emit(c, p, &call);
}
