/* copy_async, variant "tma_explicit": the call is the descriptor, as the
 * reference's tma_explicit maps it. The global buffer (or view) gives one
 * tensor-map dimension per buffer dimension (its shape, its layout's strides,
 * innermost first), the global region's extents are the box and its starts the
 * coordinates; the shared region must be one contiguous run (after its
 * swizzle), and exactly one instruction is issued. Rules that cannot be
 * proven at compile time are left to the driver; only disproven ones refuse
 * the call. Extra keys: oob="zero"/"nan" (the out-of-bounds fill the tensor
 * map requests), on sm_100a loads gather4=[r0, r1, r2, r3] (four rows of
 * a rank-2 tensor, one box row each: .tile::gather4), and on loads
 * src_selector=[[cond, buffer], ...] (the instruction reads the first
 * candidate whose condition holds, else the main source: one more descriptor
 * per candidate, the same region over its buffer, of the main one's
 * element type, rank and coordinates). */
#include <string.h>

#include "../../arith/arith.h"
#include "tma.h"

static IrExpr *c64(OpCtx *c, int64_t v) { return ar_index_int(c->arena, v); }

/* The shared box: one run of stride 1 after the region's offset. */
static const char *shared_run(OpCtx *c, const TmaCall *t, TmaSpec *s)
{
    const OpRegion *r = &t->smem;
    LyCtx lc = op_ly_ctx(c);
    IrExpr **ext = TX_NEW_ARRAY(c->arena, IrExpr *, r->ndim ? r->ndim : 1);
    for (int d = 0; d < r->ndim; d++)
        ext[d] = op_i32(c, r->extent[d]);
    IrLayout *sl = ly_slice(&lc, tma_tile_layout(c, r->buffer), ir_buf(r->buffer)->shape, r->start,
                            ext, r->ndim, LY_TARGET_NONE);
    if (!sl || sl->kind != IR_LAYOUT_TILE)
        return op_reason(c, "the layout of '%s' cannot be sliced to the region",
                         r->buffer->u.var.name);
    s->smem_off = ir_buf(r->buffer)->elem_offset;
    for (int i = 0; i < sl->noffset; i++)
        if (!strcmp(sl->offset[i].axis, "m"))
            s->smem_off = ar_add(c->arena, s->smem_off, sl->offset[i].value);
    IrLayout *canon = ly_canonicalize(&lc, ly_tile(&lc, sl->shard, sl->nshard, NULL, 0, NULL, 0),
                                      LY_TARGET_NONE);
    if (!canon || sl->nreplica || canon->nshard > 1 ||
        (canon->nshard == 1 && (!ar_is_const(canon->shard[0].stride, 1) ||
                                strcmp(canon->shard[0].axis, "m"))))
        return op_reason(c, "the region of '%s' is not one contiguous run of shared memory",
                         r->buffer->u.var.name);
    return NULL;
}

/* The layout's iterator of each buffer dimension: its own shard when there is
 * one per dimension, else the shard grouped by the buffer's shape where each
 * group merges into one iterator (a view of a contiguous tensor, as
 * kv.view(rows, cols) of a flat kv: S[rows * cols:1] is S[(rows, cols):(cols, 1)]). */
static const IrIter *dim_iters(OpCtx *c, const OpRegion *g)
{
    const IrBufferType *bt = ir_buf(g->buffer);
    IrLayout *l = tma_tile_layout(c, g->buffer);
    if (l->kind != IR_LAYOUT_TILE || l->nreplica)
        return NULL;
    if (l->nshard == g->ndim)
        return l->shard;
    LyCtx lc = op_ly_ctx(c);
    int *seps = TX_NEW_ARRAY(c->arena, int, g->ndim + 1);
    IrLayout *gl = ly_group(&lc, l, bt->shape, g->ndim, seps);
    if (!gl)
        return NULL;
    IrIter *it = TX_NEW_ARRAY(c->arena, IrIter, g->ndim ? g->ndim : 1);
    for (int d = 0; d < g->ndim; d++) {
        if (seps[d + 1] - seps[d] == 1) {
            it[d] = gl->shard[seps[d]];
            continue;
        }
        IrLayout *one = ly_canonicalize(
            &lc, ly_tile(&lc, gl->shard + seps[d], seps[d + 1] - seps[d], NULL, 0, NULL, 0),
            LY_TARGET_NONE);
        if (!one || one->nshard != 1)
            return NULL;
        it[d] = one->shard[0];
    }
    return it;
}

/* One descriptor dimension per global buffer dimension, from its layout. */
static const char *global_dims(OpCtx *c, const TmaCall *t, TmaSpec *s)
{
    const OpRegion *g = &t->gmem;
    const IrBufferType *bt = ir_buf(g->buffer);
    const IrIter *shard = dim_iters(c, g);
    if (!shard)
        return op_reason(c, "the layout of '%s' must have one memory iterator per dimension",
                         g->buffer->u.var.name);
    if (g->ndim > TMA_DIMS - 1)
        return op_reason(c, "'%s' has too many dimensions", g->buffer->u.var.name);
    s->rank = g->ndim;
    for (int d = 0; d < g->ndim; d++) {
        const IrIter *it = &shard[g->ndim - 1 - d];
        if (tma_equal(c, it->extent, bt->shape[g->ndim - 1 - d]) != TMA_PROVEN)
            return op_reason(c, "dimension %d of '%s' does not match its layout", g->ndim - 1 - d,
                             g->buffer->u.var.name);
        IrExpr *bits = ar_mul(c->arena, it->stride, c64(c, s->bits));
        int64_t unit;
        bool element = d == 0 && op_const(it->stride, &unit) && unit == 1;
        if (!element && tma_multiple(c, bits, 8) == TMA_DISPROVEN)
            return op_reason(c, "a stride of '%s' is not a whole number of bytes",
                             g->buffer->u.var.name);
        s->dim[d] = bt->shape[g->ndim - 1 - d];
        s->stride[d] = ar_floordiv(c->arena, bits, c64(c, 8));
        s->box[d] = g->extent[g->ndim - 1 - d];
        s->coord[d] = g->start[g->ndim - 1 - d];
    }
    if (!op_const(shard[g->ndim - 1].stride, &s->inner_stride))
        s->inner_stride = 0;
    return NULL;
}

static const char *gather4_shape(OpCtx *c, const TmaCall *t)
{
    if (t->gmem.ndim != 2 || t->gmem.extent[0] != 1)
        return op_reason(c, "gather4 reads one row of a rank-2 global tensor per coordinate");
    int n = t->smem.ndim;
    bool fits = n >= 2 && t->smem.extent[n - 2] == 4 && t->smem.extent[n - 1] == t->gmem.extent[1];
    for (int d = 0; fits && d < n - 2; d++) /* a stage of a pipelined buffer: [s, r:r + 4, :] */
        fits = t->smem.extent[d] == 1;
    return fits ? NULL
                : op_reason(c, "gather4 writes four rows of the box's width into shared memory");
}

/* The descriptor of t's global region into its shared one. */
static const char *describe(OpCtx *c, const TmaCall *t, TmaSpec *s)
{
    IrExpr *device_off;
    const char *why;
    if ((why = tma_descriptor_type(c, t, s)) || (why = tma_shared_swizzle(c, t, &s->swizzle)) ||
        (why = shared_run(c, t, s)) || (why = tma_global_base(c, t, s, &device_off)) ||
        (why = global_dims(c, t, s)))
        return why;
    if (device_off && (why = tma_fold_device_offset(c, t, s, device_off)))
        return why;
    s->payload_bits = op_region_size(&t->smem) * t->smem.dtype.bits;
    return NULL;
}

static const char *coords_text(OpCtx *c, const TmaSpec *s)
{
    LyCtx lc = ly_ctx(c->arena);
    const char *text = "(";
    for (int d = 0; d < s->rank; d++)
        text = tx_arena_printf(c->arena, "%s%s%s", text, d ? ", " : "",
                               ly_expr_str(&lc, s->coord[d]));
    return tx_arena_printf(c->arena, "%s)", text);
}

/* What a candidate's descriptor must share with the main one, whose single
 * instruction reads either: its element type, and the rank and coordinates
 * that a view offset only the kernel knows changes (a dimension more). The
 * box, swizzle, load mode and transaction bytes come from the shared side and
 * the region, which the candidates share. */
static const char *incompatible(OpCtx *c, const TmaCall *t, const TmaSpec *m, const TmaSpec *s,
                                int i)
{
    char a[IR_DTYPE_STR_MAX], b[IR_DTYPE_STR_MAX];
    bool same_coords = m->rank == s->rank;
    for (int d = 0; same_coords && d < m->rank; d++)
        same_coords = tma_equal(c, m->coord[d], s->coord[d]) == TMA_PROVEN;
    const struct {
        const char *field;
        bool same;
        const char *main, *candidate;
    } fields[] = {
        {"descriptor dtype", m->cu_dtype == s->cu_dtype, ir_dtype_str(t->gmem.dtype, a),
         ir_dtype_str(t->select[i].gmem.dtype, b)},
        {"rank", m->rank == s->rank, tx_arena_printf(c->arena, "%d", m->rank),
         tx_arena_printf(c->arena, "%d", s->rank)},
        {"coordinates", same_coords, coords_text(c, m), coords_text(c, s)},
    };
    for (size_t f = 0; f < TX_ARRAY_LEN(fields); f++)
        if (!fields[f].same)
            return op_reason(c, "tma_explicit src_selector[%d] has incompatible %s: main=%s, "
                                "candidate=%s", i, fields[f].field, fields[f].main,
                             fields[f].candidate);
    return NULL;
}

/* Each src_selector candidate's descriptor: the main one's over its buffer. */
static const char *plan_selectors(OpCtx *c, TmaCall *t, const TmaSpec *main_spec)
{
    for (int i = 0; i < t->nselect; i++) {
        TmaCall alt = *t;
        alt.gmem = t->select[i].gmem;
        TmaPlan *q = TX_NEW(c->arena, TmaPlan);
        bool repairable;
        const char *why = describe(c, &alt, &q->s);
        if (!why && (why = incompatible(c, t, main_spec, &q->s, i)))
            return why;
        if (why || (why = tma_validate(c, q, &alt, false, &repairable)))
            return op_reason(c, "tma_explicit src_selector[%d] ('%s'): %s", i,
                             alt.gmem.buffer->u.var.name, why);
        t->select[i].spec = q->s;
    }
    return NULL;
}

static const char *plan_call(OpCtx *c, TmaCall *t, TmaPlan *p)
{
    memset(p, 0, sizeof *p);
    const char *why = tma_read_call(c, "tma_explicit", true, t);
    if (why)
        return why;
    if (t->gather4[0] ? (why = gather4_shape(c, t)) != NULL
                      : !op_regions_match(&t->smem, &t->gmem))
        return why ? why : op_reason(c, "the regions' non-unit extents differ");
    if ((why = describe(c, t, &p->s)))
        return why;
    bool repairable;
    if ((why = tma_validate(c, p, t, false, &repairable)))
        return op_reason(c, "tma_explicit: %s", why);
    return plan_selectors(c, t, &p->s);
}

const char *op_tma_explicit_accept(OpCtx *c)
{
    const char *why = tma_accept_scope(c);
    if (why)
        return why;
    TmaCall t;
    TmaPlan *p = TX_NEW(c->arena, TmaPlan);
    return plan_call(c, &t, p);
}

IrStmt *op_tma_explicit_lower(OpCtx *c)
{
    TmaCall t;
    TmaPlan *p = TX_NEW(c->arena, TmaPlan);
    const char *why = plan_call(c, &t, p);
    return why ? op_decline(c, "%s", why) : tma_emit(c, p, &t);
}
