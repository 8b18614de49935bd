/* The reductions sum / max / min: operand decoding and the pieces their
 * variants share (cuda/reduce_thread.c, reduce_warp.c, reduce_cta.c).
 * Arguments as the reference's ReduceOp: (dst, src, axes, accum); `axes`
 * lists source dimensions (negative from the end); dst has the source's
 * kept extents (reduced dimensions dropped or of extent 1), or, the
 * all-reduce form, the source's extents. */
#include <math.h>
#include <string.h>

#include "reduction.h"

/* How each reduction combines two values and what it starts from, indexed by
 * the tile op; an op without a row has no lowering here. */
typedef enum { RED_NONE, RED_ZERO, RED_LOWEST, RED_HIGHEST } RedIdentity;

static const struct {
    RedIdentity identity;
    IrExprKind combine;
} red_ops[IR_TILE_COUNT] = {
    [IR_TILE_SUM] = {RED_ZERO, IR_E_ADD},
    [IR_TILE_MAX] = {RED_LOWEST, IR_E_MAX},
    [IR_TILE_MIN] = {RED_HIGHEST, IR_E_MIN},
};

static bool parse_axes(const OpReduce *r, IrExpr *axes, bool *reduced)
{
    memset(reduced, 0, sizeof(bool) * OP_MAX_DIMS);
    if (!axes || axes->kind == IR_E_NONE) {
        for (int d = 0; d < r->src.ndim; d++)
            reduced[d] = true;
        return true;
    }
    if (axes->kind != IR_E_LIST)
        return false;
    for (int i = 0; i < axes->u.list.n; i++) {
        const IrExpr *item = axes->u.list.items[i];
        int64_t a;
        if (item->kind == IR_E_PYINT)
            a = item->u.int_val;
        else if (!op_const(item, &a))
            return false;
        if (a < 0)
            a += r->src.ndim;
        if (a < 0 || a >= r->src.ndim)
            return false;
        reduced[a] = true;
    }
    return true;
}

const char *op_red_operands(OpCtx *c, OpReduce *r, bool allow_broadcast)
{
    memset(r, 0, sizeof *r);
    IrTileOp op = c->call->u.tile.op;
    if (!red_ops[op].identity)
        return op_reason(c, "'%s' has no reduction lowering", ir_tile_ops[op].name);
    const char *why;
    if ((why = op_region(c, 0, &r->dst)) || (why = op_region(c, 1, &r->src)))
        return why;
    if (!parse_axes(r, op_arg(c, 2), r->reduced))
        return op_reason(c, "the reduction axes are not a list of source dimensions");
    if (!op_flag(op_arg(c, 3), &r->accum))
        return op_reason(c, "accum must be a constant True or False");
    r->outputs = r->length = 1;
    int64_t kept[OP_MAX_DIMS];
    int nk = 0;
    for (int d = 0; d < r->src.ndim; d++) {
        if (r->reduced[d])
            r->length *= r->src.extent[d];
        else if (r->src.extent[d] != 1)
            kept[nk++] = r->src.extent[d];
        if (!r->reduced[d])
            r->outputs *= r->src.extent[d];
    }
    int64_t dext[OP_MAX_DIMS], sext[OP_MAX_DIMS];
    int nd = op_region_dims(&r->dst, dext, NULL), ns = op_region_dims(&r->src, sext, NULL);
    bool same = nd == nk;
    for (int i = 0; same && i < nk; i++)
        same = dext[i] == kept[i];
    bool all = !same && nd == ns && r->length > 1;
    for (int i = 0; all && i < ns; i++)
        all = dext[i] == sext[i];
    if (all && !allow_broadcast)
        return op_reason(c, "the destination has the source's extents (the all-reduce form, "
                            "register tiles of a warp only)");
    if (!same && !all)
        return op_reason(c, "the destination's extents are not the source's kept extents");
    r->broadcast = all;
    r->acc = r->dst.dtype;
    return NULL;
}

IrExpr *op_red_identity(OpCtx *c, IrDType t)
{
    RedIdentity id = red_ops[c->call->u.tile.op].identity;
    TxSpan sp = c->call->span;
    if (id == RED_ZERO)
        return op_cast(c, t, op_i32(c, 0));
    bool lowest = id == RED_LOWEST;
    if (ir_dtype_is_float(t))
        return ir_float(c->arena, t, lowest ? -INFINITY : INFINITY, sp);
    if (t.code == IR_DT_UINT)
        return ir_int(c->arena, t, lowest ? 0 : (int64_t)((t.bits >= 64 ? ~0ull : (1ull << t.bits) - 1)), sp);
    int64_t hi = t.bits >= 64 ? INT64_MAX : ((int64_t)1 << (t.bits - 1)) - 1;
    return ir_int(c->arena, t, lowest ? -hi - 1 : hi, sp);
}

IrExpr *op_red_combine(OpCtx *c, IrExpr *a, IrExpr *b)
{
    return op_bin(c, red_ops[c->call->u.tile.op].combine, a, b);
}

/* Digits of a flat index over the extents of the selected dims (NULL for
 * the others); the outermost digit needs no modulo. */
static void unravel(OpCtx *c, const OpRegion *r, const bool *select, IrExpr *flat, IrExpr **out)
{
    int first = -1;
    for (int d = 0; d < r->ndim && first < 0; d++)
        if (select[d] && r->extent[d] != 1)
            first = d;
    int64_t inner = 1;
    for (int d = r->ndim - 1; d >= 0; d--) {
        out[d] = NULL;
        if (!select[d] || r->extent[d] == 1)
            continue;
        IrExpr *q = inner == 1 ? flat : op_bin(c, IR_E_FLOORDIV, flat, op_i32(c, inner));
        out[d] = d == first ? q : op_bin(c, IR_E_FLOORMOD, q, op_i32(c, r->extent[d]));
        inner *= r->extent[d];
    }
}

IrExpr **op_red_src_index(OpCtx *c, const OpReduce *r, IrExpr *o, IrExpr *j)
{
    bool kept[OP_MAX_DIMS];
    IrExpr *ko[OP_MAX_DIMS], *rj[OP_MAX_DIMS];
    for (int d = 0; d < r->src.ndim; d++)
        kept[d] = !r->reduced[d];
    unravel(c, &r->src, kept, o, ko);
    unravel(c, &r->src, r->reduced, j, rj);
    IrExpr **idx = TX_NEW_ARRAY(c->arena, IrExpr *, r->src.ndim);
    for (int d = 0; d < r->src.ndim; d++) {
        IrExpr *digit = kept[d] ? ko[d] : rj[d];
        idx[d] = digit ? op_bin(c, IR_E_ADD, r->src.start[d], digit) : r->src.start[d];
    }
    return idx;
}

IrExpr **op_red_dst_index(OpCtx *c, const OpReduce *r, IrExpr *o)
{
    bool all[OP_MAX_DIMS];
    IrExpr *digit[OP_MAX_DIMS];
    for (int d = 0; d < r->dst.ndim; d++)
        all[d] = true;
    unravel(c, &r->dst, all, o, digit);
    IrExpr **idx = TX_NEW_ARRAY(c->arena, IrExpr *, r->dst.ndim);
    for (int d = 0; d < r->dst.ndim; d++)
        idx[d] = digit[d] ? op_bin(c, IR_E_ADD, r->dst.start[d], digit[d]) : r->dst.start[d];
    return idx;
}

void op_red_store(OpCtx *c, OpSeq *s, const OpReduce *r, IrExpr *o, IrExpr *v)
{
    IrExpr **idx = op_red_dst_index(c, r, o);
    if (r->accum)
        v = op_red_combine(c, op_load(c, r->dst.buffer, idx, r->dst.ndim), v);
    op_store(c, s, r->dst.buffer, idx, r->dst.ndim, v);
}

IrExpr *op_red_accumulator(OpCtx *c, OpSeq *s, const OpReduce *r)
{
    IrExpr *acc = op_alloc_local(c, s, "red", r->acc, 1);
    IrExpr *zero = op_i32(c, 0);
    op_store(c, s, acc, &zero, 1, op_red_identity(c, r->acc));
    return acc;
}

IrStmt *op_red_fold(OpCtx *c, const OpReduce *r, IrExpr *acc, IrExpr *v)
{
    IrExpr *zero = op_i32(c, 0);
    OpSeq s = {0};
    op_store(c, &s, acc, &zero, 1,
             op_red_combine(c, op_load(c, acc, &zero, 1), op_cast(c, r->acc, v)));
    return op_seq_finish(c, &s);
}

void op_red_shuffle(OpCtx *c, OpSeq *s, const OpReduce *r, IrExpr *acc, int64_t width)
{
    IrExpr *zero = op_i32(c, 0);
    for (int64_t k = width / 2; k >= 1; k /= 2) {
        IrExpr *a[4] = {ir_int(c->arena, IR_UINT32, 0xFFFFFFFFll, c->call->span),
                        op_load(c, acc, &zero, 1), op_i32(c, k), op_i32(c, width)};
        IrExpr *sh = op_call(c, IR_OP_CUDA_SHFL_XOR_SYNC, r->acc, a, 4);
        op_emit(s, op_red_fold(c, r, acc, sh));
    }
}
