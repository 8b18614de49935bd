/* Splitting a region's elements over the threads of a scope, as the
 * synthesized partitions of the reference do: the non-unit extents of the
 * region, the innermost one cut into vectors, flattened, and dealt to the
 * threads round-robin (`f = it * T + t`, so consecutive threads take
 * consecutive vectors: coalesced in global memory, conflict-free in shared).
 * A count that the threads do not divide gets a guard instead of being
 * refused. Also: the widest vector a memory region allows (contiguity from
 * its layout, alignment of every address it starts from), and the guards of
 * a region that may reach past its buffer (oob="zero"). */
#include <string.h>

#include "../arith/arith.h"
#include "partition.h"

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* ---------------------------------------------------------------- strides */

/* The stride of every buffer dimension when the layout is strided row-major
 * storage on m (the default layout, or a TileLayout whose iters group into
 * one m-iter per dimension), optionally under a swizzle. */
bool op_region_strides(OpCtx *c, const OpRegion *r, IrExpr **strides, int *chunk_log2)
{
    const IrBufferType *bt = ir_buf(r->buffer);
    *chunk_log2 = -1;
    const IrLayout *l = r->layout;
    LyCtx lc = op_ly_ctx(c);
    if (l && l == bt->layout && op_buffer_layout(c, bt) != l)
        l = NULL; /* the buffer's explicit strides= */
    if (!l) {
        IrExpr *s = op_i32(c, 1);
        for (int d = r->ndim - 1; d >= 0; d--) {
            strides[d] = bt->nstrides ? bt->strides[d] : s;
            s = op_bin(c, IR_E_MUL, s, bt->shape[d]);
        }
        return true;
    }
    if (r->distributed)
        return false;
    if (l->kind == IR_LAYOUT_COMPOSE)
        *chunk_log2 = l->per_element;
    int *seps = TX_NEW_ARRAY(c->arena, int, r->ndim + 1);
    IrLayout *g = ly_group(&lc, l, bt->shape, r->ndim, seps);
    if (!g)
        return false;
    const IrLayout *t = g->kind == IR_LAYOUT_COMPOSE ? g->tile : g;
    if (t->nreplica || t->noffset)
        return false;
    for (int d = 0; d < r->ndim; d++) {
        strides[d] = op_i32(c, 0);
        for (int i = seps[d + 1] - 1; i >= seps[d]; i--) {
            const IrIter *it = &t->shard[i];
            int64_t s, inner_e, inner_s;
            if (strcmp(it->axis, "m"))
                return false;
            if (i == seps[d + 1] - 1) {
                strides[d] = it->stride;
                continue;
            }
            /* an outer iter of the same dim must continue the inner one (its
             * own extent, such as a run-time batch, does not matter) */
            const IrIter *in = &t->shard[i + 1];
            if (!op_const(it->stride, &s) ||
                !op_const(in->extent, &inner_e) || !op_const(in->stride, &inner_s) ||
                s != inner_s * inner_e)
                return false;
        }
    }
    return true;
}

/* Elements from a buffer's data pointer to past its last one, by its offset
 * and plain strides (a padded layout included); 0 when they are not
 * constant or not plain strides. */
int64_t op_buffer_span(OpCtx *c, IrExpr *buffer)
{
    const IrBufferType *bt = ir_buf(buffer);
    OpRegion all = {.buffer = buffer, .ndim = bt->ndim, .layout = bt->layout};
    IrExpr *strides[OP_MAX_DIMS];
    int chunk;
    int64_t span, e, st;
    if (bt->ndim > OP_MAX_DIMS || !op_region_strides(c, &all, strides, &chunk) || chunk >= 0 ||
        !op_const(bt->elem_offset, &span))
        return 0;
    for (int d = 0; d < bt->ndim; d++) {
        if (!op_const(bt->shape[d], &e) || !op_const(strides[d], &st) || e < 1)
            return 0;
        span += (e - 1) * st;
    }
    return span + 1;
}

IrExpr *op_region_flat(OpCtx *c, const OpRegion *r, IrExpr *const *idx)
{
    IrExpr *strides[OP_MAX_DIMS];
    int chunk;
    op_region_strides(c, r, strides, &chunk);
    IrExpr *flat = ir_buf(r->buffer)->elem_offset;
    for (int d = 0; d < r->ndim; d++)
        flat = op_bin(c, IR_E_ADD, flat, op_bin(c, IR_E_MUL, idx[d], strides[d]));
    return flat;
}

IrExpr *op_register_view(OpCtx *c, OpSeq *s, IrExpr *buffer, IrDType container, int64_t min)
{
    const IrBufferType *bt = ir_buf(buffer);
    int64_t elems = op_buffer_span(c, buffer);
    if (!elems) {
        elems = 1;
        for (int d = 0; d < bt->ndim; d++) {
            int64_t e;
            elems *= op_const(bt->shape[d], &e) ? e : 1;
        }
    }
    IrDType dt = buffer->u.var.type->dtype;
    int64_t bits = (int64_t)dt.bits * dt.lanes;
    int64_t n = (elems * bits + container.bits - 1) / container.bits;
    return op_flat_view(c, s, buffer, container, n > min ? n : min);
}

int op_contiguous_dims(OpCtx *c, const OpRegion *r, const int64_t *ext, const int *dim, int k)
{
    IrExpr *strides[OP_MAX_DIMS];
    int chunk;
    if (!op_region_strides(c, r, strides, &chunk) || chunk >= 0)
        return -1;
    int64_t want = 1, s;
    int n = 0;
    for (int i = k - 1; i >= 0; i--, n++) {
        if (!op_const(strides[dim[i]], &s) || s != want)
            break;
        want *= ext[i];
    }
    return n;
}

/* ---------------------------------------------------------------- vector width */


/* The widest vector of a region whose layout is not strided per dimension
 * (a K-slabbed MMA tile): the region's own layout (sliced out of the buffer's)
 * must have a stride-1 innermost iter on the last dimension, every other iter
 * and the region's origin stepping by whole vectors. */
static int64_t sliced_vector(OpCtx *c, const OpRegion *r, int64_t v)
{
    const IrBufferType *bt = ir_buf(r->buffer);
    if (r->distributed || !r->layout)
        return 1;
    LyCtx lc = op_ly_ctx(c);
    IrExpr **ext = TX_NEW_ARRAY(c->arena, IrExpr *, r->ndim);
    for (int d = 0; d < r->ndim; d++)
        ext[d] = op_i32(c, r->extent[d]);
    IrLayout *sl = ly_slice(&lc, r->layout, bt->shape, r->start, ext, r->ndim, LY_TARGET_NONE);
    int *seps = TX_NEW_ARRAY(c->arena, int, r->ndim + 1);
    IrLayout *g = sl ? ly_group(&lc, sl, ext, r->ndim, seps) : NULL;
    const IrLayout *t = g && g->kind == IR_LAYOUT_COMPOSE ? g->tile : g;
    int64_t e, st;
    if (!t || t->nreplica || seps[r->ndim] == seps[r->ndim - 1] ||
        !op_const(t->shard[seps[r->ndim] - 1].extent, &e) ||
        !op_const(t->shard[seps[r->ndim] - 1].stride, &st) || st != 1)
        return 1;
    v = min64(v, op_known_pow2(op_i32(c, e)));
    for (int i = 0; i < t->nshard; i++) {
        if (strcmp(t->shard[i].axis, "m"))
            return 1;
        if (i != seps[r->ndim] - 1)
            v = min64(v, op_known_pow2_in(c->multiples, t->shard[i].stride));
    }
    for (int i = 0; i < t->noffset; i++)
        v = min64(v, op_known_pow2_in(c->multiples, t->offset[i].value));
    return v;
}

int64_t op_region_vector(OpCtx *c, const OpRegion *r, int64_t max_elems, bool bounded)
{
    int64_t ext[OP_MAX_DIMS];
    int dim[OP_MAX_DIMS];
    int k = op_region_dims(r, ext, dim);
    if (k == 0 || k > OP_MAX_DIMS || dim[k - 1] != r->ndim - 1)
        return 1;
    IrExpr **strides = TX_NEW_ARRAY(c->arena, IrExpr *, r->ndim);
    int chunk;
    int64_t s_last;
    if (!op_region_strides(c, r, strides, &chunk)) {
        const IrBufferType *bt = ir_buf(r->buffer);
        int64_t v = sliced_vector(c, r, max_elems);
        if (r->layout && r->layout->kind == IR_LAYOUT_COMPOSE)
            v = min64(v, (int64_t)1 << r->layout->per_element);
        v = min64(v, op_known_pow2_in(c->multiples, bt->elem_offset));
        int bytes = op_dtype_bytes(r->dtype);
        if (bytes)
            v = min64(v, bt->align / bytes > 0 ? op_known_pow2(op_i32(c, bt->align / bytes)) : 1);
        return v < 1 ? 1 : v;
    }
    if (!op_const(strides[r->ndim - 1], &s_last) || s_last != 1)
        return 1;
    int64_t v = min64(max_elems, op_known_pow2(op_i32(c, ext[k - 1])));
    if (chunk >= 0)
        v = min64(v, (int64_t)1 << chunk);
    /* every vector starts aligned: the region start, the other dims' strides */
    const IrBufferType *bt = ir_buf(r->buffer);
    v = min64(v, op_known_pow2_in(c->multiples, bt->elem_offset));
    int bytes = op_dtype_bytes(r->dtype);
    if (bytes)
        v = min64(v, bt->align / bytes > 0 ? op_known_pow2(op_i32(c, bt->align / bytes)) : 1);
    for (int d = 0; d < r->ndim; d++) {
        v = min64(v, op_known_pow2_in(c->multiples, r->start[d]) *
                         (d == r->ndim - 1 ? 1 : op_known_pow2_in(c->multiples, strides[d])));
        if (d != r->ndim - 1 && r->extent[d] != 1)
            v = min64(v, op_known_pow2_in(c->multiples, strides[d]));
    }
    if (bounded)
        v = min64(v, op_known_pow2(bt->shape[r->ndim - 1]));
    return v < 1 ? 1 : v;
}

/* Whether r is an aligned run of n elements under m's facts about params
 * (t->multiples is m), after the lets and the scalars stored once (c->stores) are
 * recomputed from them (a few rounds: one may be computed from another). */
static bool aligned_assuming(OpCtx *t, IrPtrMap *m, const OpCtx *c, const OpRegion *r, int64_t n)
{
    for (int round = 0; c->stores && round < 4; round++)
        for (int i = 0; i < c->stores->cap; i++) {
            const struct IrPtrMapSlot *e = &c->stores->slots[i];
            if (e->key && e->val != 1)
                ir_ptrmap_put(m, e->key, (uintptr_t)ar_known_multiple(m, (const IrExpr *)e->val));
        }
    return op_region_vector(t, r, n, false) >= n;
}

/* Whether r is an aligned run of n elements once some of the function's
 * integer scalar params are taken to be multiples of powers of two: the
 * fewest params, each with the smallest power, found greedily in param order.
 * Each such fact becomes a check of the host (c->launch_checks) that refuses a
 * launch breaking it, naming the argument; a forced vector width on a
 * run-time stride stays sound without the caller proving it. */
bool op_region_vector_at_launch(OpCtx *c, const OpRegion *r, int64_t n)
{
    if (!c->func || !c->launch_checks)
        return false;
    IrPtrMap m = {0};
    if (c->multiples)
        for (int i = 0; i < c->multiples->cap; i++)
            if (c->multiples->slots[i].key)
                ir_ptrmap_put(&m, c->multiples->slots[i].key, c->multiples->slots[i].val);
    int np = c->func->nparams;
    int64_t *need = TX_NEW_ARRAY(c->arena, int64_t, np);
    for (int i = 0; i < np; i++) {
        const IrExpr *p = c->func->params[i];
        if (p->kind == IR_E_VAR && ir_dtype_is_int(p->dtype) && !ir_is_buffer(p))
            ir_ptrmap_put(&m, p, (uintptr_t)(need[i] = n));
    }
    OpCtx t = *c;
    t.multiples = &m;
    bool ok = aligned_assuming(&t, &m, c, r, n);
    for (int i = 0; ok && i < np; i++) {
        const IrExpr *p = c->func->params[i];
        while (need[i] > 1) {
            ir_ptrmap_put(&m, p, (uintptr_t)(need[i] / 2));
            if (!aligned_assuming(&t, &m, c, r, n)) {
                ir_ptrmap_put(&m, p, (uintptr_t)need[i]);
                break;
            }
            need[i] /= 2;
        }
    }
    for (int i = 0; ok && i < np; i++) {
        if (need[i] <= 1)
            continue;
        IrExpr *p = c->func->params[i];
        const char *key = tx_arena_printf(c->arena, "launch check %s %% %lld", p->u.var.name,
                                          (long long)need[i]);
        if (op_memo_get(c, key))
            continue;
        op_memo_put(c, key, p);
        IrStmt *a = ir_stmt(c->arena, IR_S_ASSERT, c->call->span);
        a->u.assert_.cond = op_bin(c, IR_E_EQ, op_bin(c, IR_E_FLOORMOD, p, op_cast(c, p->dtype, op_i32(c, need[i]))),
                                   op_cast(c, p->dtype, op_i32(c, 0)));
        a->u.assert_.kind = "RuntimeError";
        a->u.assert_.nparts = 1;
        a->u.assert_.parts = TX_NEW_ARRAY(c->arena, const char *, 1);
        a->u.assert_.parts[0] = tx_arena_printf(
            c->arena, "%s: argument %s: expected a multiple of %lld (a vector access of %s depends on it)",
            c->func->name, p->u.var.name, (long long)need[i], r->buffer->u.var.name);
        tx_vec_push(c->launch_checks, a);
    }
    ir_ptrmap_free(&m);
    return ok;
}

/* ---------------------------------------------------------------- partition */

const char *op_space_init(OpCtx *c, OpSpace *sp, const OpRegion *r, int64_t vec)
{
    memset(sp, 0, sizeof *sp);
    sp->k = op_region_dims(r, sp->ext, NULL);
    sp->vec = vec;
    if (sp->k)
        sp->ext[sp->k - 1] /= vec;
    sp->total = 1;
    for (int i = 0; i < sp->k; i++)
        sp->total *= sp->ext[i];
    sp->threads = op_scope_threads(c);
    if (sp->threads <= 0)
        return op_reason(c, "the number of threads in the scope is not known");
    sp->iters = (sp->total + sp->threads - 1) / sp->threads;
    return NULL;
}

void op_space_begin(OpCtx *c, OpSpace *sp, IrExpr **idx)
{
    IrExpr *t = op_scope_index(c);
    sp->it = sp->iters > 1 ? op_var(c, "it", IR_INT32) : NULL;
    IrExpr *f = t;
    if (sp->it)
        f = op_bin(c, IR_E_ADD, op_bin(c, IR_E_MUL, sp->it, op_i32(c, sp->threads)), t);
    sp->flat = f;
    int64_t inner = 1;
    for (int i = sp->k - 1; i >= 0; i--) {
        IrExpr *q = inner == 1 ? f : op_bin(c, IR_E_FLOORDIV, f, op_i32(c, inner));
        /* the outermost digit needs no modulo: f < total */
        idx[i] = i == 0 ? q : op_bin(c, IR_E_FLOORMOD, q, op_i32(c, sp->ext[i]));
        inner *= sp->ext[i];
    }
    if (sp->k && sp->vec > 1)
        idx[sp->k - 1] = op_bin(c, IR_E_MUL, idx[sp->k - 1], op_i32(c, sp->vec));
}

IrStmt *op_space_wrap(OpCtx *c, const OpSpace *sp, IrStmt *body, IrForKind kind)
{
    if (sp->iters * sp->threads != sp->total)
        body = op_if(c, op_bin(c, IR_E_LT, sp->flat, op_i32(c, sp->total)), body, NULL);
    if (sp->it)
        body = op_for(c, sp->it, sp->iters, kind, body);
    return body;
}

void op_region_index(OpCtx *c, const OpRegion *r, IrExpr *const *idx, IrExpr **out)
{
    for (int d = 0, j = 0; d < r->ndim; d++)
        out[d] = r->extent[d] == 1 ? r->start[d] : op_bin(c, IR_E_ADD, r->start[d], idx[j++]);
}

const char *op_space_copy(OpCtx *c, OpSpace *sp, const OpRegion *dst, const OpRegion *src,
                          int64_t vec, IrExpr ***didx, IrExpr ***sidx)
{
    const char *why = op_space_init(c, sp, dst, vec);
    if (why)
        return why;
    IrExpr *idx[OP_MAX_DIMS];
    *didx = TX_NEW_ARRAY(c->arena, IrExpr *, dst->ndim);
    *sidx = TX_NEW_ARRAY(c->arena, IrExpr *, src->ndim);
    op_space_begin(c, sp, idx);
    op_region_index(c, dst, idx, *didx);
    op_region_index(c, src, idx, *sidx);
    return NULL;
}

void op_nest_init(OpCtx *c, OpNest *n, const OpRegion *r, IrForKind kind)
{
    n->k = op_region_dims(r, n->ext, NULL);
    n->kind = kind;
    static const char *const names[] = {"i", "j", "k", "l", "i4", "i5", "i6", "i7"};
    for (int i = 0; i < n->k; i++)
        n->var[i] = op_var(c, names[i], IR_INT32);
}

IrStmt *op_nest_wrap(OpCtx *c, const OpNest *n, IrStmt *body)
{
    for (int i = n->k - 1; i >= 0; i--)
        body = op_for(c, n->var[i], n->ext[i], n->kind, body);
    return body;
}

/* ---------------------------------------------------------------- bounds */

bool op_oob_zero(OpCtx *c)
{
    IrExpr *v = op_config(c, "oob");
    return v && v->kind == IR_E_STR && !strcmp(v->u.str, "zero");
}

IrExpr *op_in_bounds(OpCtx *c, const OpRegion *r, IrExpr *const *full_idx)
{
    const IrBufferType *bt = ir_buf(r->buffer);
    IrExpr *cond = NULL;
    for (int d = 0; d < r->ndim; d++) {
        int64_t s, n;
        if (op_const(r->start[d], &s) && op_const(bt->shape[d], &n) && s + r->extent[d] <= n)
            continue;
        IrExpr *lt = op_bin(c, IR_E_LT, full_idx[d], bt->shape[d]);
        cond = cond ? op_bin(c, IR_E_AND, cond, lt) : lt;
    }
    return cond;
}
