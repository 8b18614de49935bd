/* sum / max / min, variant "reg": register tiles of one warp (the
 * reference's local variant with thread_reduce). The source's layout spreads
 * it over lanes (laneid) and registers (m); the destination holds the kept
 * dimensions the same way, with the source's lane iters of the reduced
 * dimensions as replicas (every lane that held part of an output ends up
 * with all of it). Each lane folds its registers of each output, then xor
 * shuffles over the lane bits of the reduced dimensions combine the lanes,
 * and every lane writes its copy of the result (folded into the old value
 * with accum=True):
 *
 *   x over (1024,) as T.S[(8, 32, 4):(4, 1 @ laneid, 1)] -> m over (1,) as
 *   T.S[1:1] + T.R[32:1 @ laneid]: 32 register folds, then shuffles 1..16.
 *
 * With the destination laid out as the source (the all-reduce form, the
 * reference's in-place thread_reduce: `Tx.warp.sum(v, v, [-1], False)` on a
 * quad of lanes), the reduced dimensions must be lanes only: each lane's
 * element takes its group's total, written where it was.
 *
 * The layouts are matched iter by iter (the kept iters of the source and the
 * destination's iters in the same order, extents and lane strides), so
 * registers are addressed through the iters' strides, never through logical
 * positions. */
#include <string.h>

#include "../reduction.h"

typedef struct RegIter {
    int64_t extent, stride;
    bool lane; /* laneid, else a register iter */
} RegIter;

typedef struct RegPlan {
    RegIter kept[2 * OP_MAX_DIMS], red[2 * OP_MAX_DIMS], dst[2 * OP_MAX_DIMS];
    int nkept, nred, ndst;
} RegPlan;

/* The non-unit shard iters of a grouped layout, by dimension. */
static const char *collect(OpCtx *c, const OpRegion *r, const bool *reduced, RegPlan *p,
                           bool is_dst)
{
    const IrBufferType *bt = ir_buf(r->buffer);
    LyCtx lc = op_ly_ctx(c);
    int *seps = TX_NEW_ARRAY(c->arena, int, r->ndim + 1);
    IrLayout *g = r->layout->kind == IR_LAYOUT_TILE ? ly_group(&lc, r->layout, bt->shape, r->ndim, seps)
                                                    : NULL;
    if (!g)
        return op_reason(c, "the layout of '%s' cannot be grouped by its shape",
                         r->buffer->u.var.name);
    if (g->noffset || (!is_dst && g->nreplica))
        return op_reason(c, "the layout of '%s' has offsets or replicas", r->buffer->u.var.name);
    for (int d = 0; d < r->ndim; d++)
        for (int i = seps[d]; i < seps[d + 1]; i++) {
            RegIter it;
            if (!op_const(g->shard[i].extent, &it.extent) || !op_const(g->shard[i].stride, &it.stride))
                return op_reason(c, "the layout of '%s' is not constant", r->buffer->u.var.name);
            if (it.extent == 1)
                continue;
            it.lane = !strcmp(g->shard[i].axis, "laneid");
            if (!it.lane && strcmp(g->shard[i].axis, "m"))
                return op_reason(c, "the layout of '%s' is not lanes and registers",
                                 r->buffer->u.var.name);
            RegIter *list = is_dst ? p->dst : reduced[d] ? p->red : p->kept;
            int *n = is_dst ? &p->ndst : reduced[d] ? &p->nred : &p->nkept;
            list[(*n)++] = it;
        }
    return NULL;
}

static bool same_shape(const RegIter *a, const RegIter *b)
{
    return a->extent == b->extent && a->lane == b->lane && (!a->lane || a->stride == b->stride);
}

/* The destination's replicas are exactly the reduced lane iters. */
static const char *check_replicas(OpCtx *c, const OpRegion *dst, const RegPlan *p)
{
    const IrLayout *l = dst->layout;
    int nlane = 0;
    for (int i = 0; i < p->nred; i++)
        nlane += p->red[i].lane;
    int matched = 0;
    for (int i = 0; i < l->nreplica; i++) {
        int64_t e, s;
        if (!op_const(l->replica[i].extent, &e) || !op_const(l->replica[i].stride, &s) ||
            strcmp(l->replica[i].axis, "laneid"))
            return op_reason(c, "the replicas of '%s' are not constant lane iters",
                             dst->buffer->u.var.name);
        bool found = false;
        for (int k = 0; k < p->nred && !found; k++)
            found = p->red[k].lane && p->red[k].extent == e && p->red[k].stride == s;
        if (!found)
            return op_reason(c, "replica %lld:%lld @ laneid of '%s' is not a reduced lane iter of "
                                "the source", (long long)e, (long long)s, dst->buffer->u.var.name);
        matched++;
    }
    if (matched != nlane)
        return op_reason(c, "'%s' must be replicated over the lanes the reduction combines",
                         dst->buffer->u.var.name);
    return NULL;
}

/* The all-reduce form: dst is laid out as the source (the same iters in the
 * same order), and the reduced dims are on lanes only, so that the xor
 * shuffles leave each lane the total of its own elements' group; dst's
 * kept iters address the registers written. */
static const char *plan_broadcast(OpCtx *c, const OpReduce *r, RegPlan *p)
{
    RegPlan d;
    memset(&d, 0, sizeof d);
    const char *why = collect(c, &r->dst, r->reduced, &d, false);
    if (why)
        return why;
    bool same = d.nkept == p->nkept && d.nred == p->nred;
    for (int i = 0; same && i < p->nkept; i++)
        same = same_shape(&d.kept[i], &p->kept[i]);
    for (int i = 0; same && i < p->nred; i++)
        same = same_shape(&d.red[i], &p->red[i]);
    if (!same)
        return op_reason(c, "the all-reduce form needs '%s' laid out as the source",
                         r->dst.buffer->u.var.name);
    for (int i = 0; i < p->nred; i++)
        if (!p->red[i].lane)
            return op_reason(c, "the all-reduce form needs the reduced dimensions on lanes only");
    memcpy(p->dst, d.kept, sizeof d.kept);
    p->ndst = d.nkept;
    return NULL;
}

static const char *plan(OpCtx *c, const OpReduce *r, RegPlan *p)
{
    memset(p, 0, sizeof *p);
    if (!r->src.distributed || !r->dst.distributed || r->src.mem != OP_MEM_LOCAL ||
        r->dst.mem != OP_MEM_LOCAL)
        return op_reason(c, "needs register tiles spread over the warp's lanes");
    bool none[OP_MAX_DIMS] = {0};
    const char *why;
    if ((why = collect(c, &r->src, r->reduced, p, false)))
        return why;
    if (r->broadcast) {
        if ((why = plan_broadcast(c, r, p)))
            return why;
    } else {
        if ((why = collect(c, &r->dst, none, p, true)))
            return why;
        if (p->ndst != p->nkept)
            return op_reason(c, "the iters of '%s' do not follow the source's kept iters",
                             r->dst.buffer->u.var.name);
        for (int i = 0; i < p->nkept; i++)
            if (!same_shape(&p->kept[i], &p->dst[i]))
                return op_reason(c, "the iters of '%s' do not follow the source's kept iters",
                                 r->dst.buffer->u.var.name);
    }
    for (int i = 0; i < p->nred; i++)
        if (p->red[i].lane && ((p->red[i].extent & (p->red[i].extent - 1)) ||
                               (p->red[i].stride & (p->red[i].stride - 1))))
            return op_reason(c, "a reduced lane iter is not a power of two");
    return r->broadcast ? NULL : check_replicas(c, &r->dst, p);
}

const char *op_reduce_reg_accept(OpCtx *c)
{
    OpReduce r;
    RegPlan p;
    const char *why = op_need_scope(c, OP_SCOPE_BIT(IR_SCOPE_WARP));
    if (why || (why = op_red_operands(c, &r, true)))
        return why;
    if (!c->axis[LY_AXIS_LANEID])
        return op_reason(c, "the kernel's scope ids do not give the lane");
    return plan(c, &r, &p);
}

/* A loop variable per register iter (NULL for lane iters). */
static void loop_vars(OpCtx *c, const RegIter *its, int n, IrExpr **vars)
{
    for (int i = 0; i < n; i++)
        vars[i] = its[i].lane ? NULL : op_var(c, "r", IR_INT32);
}

/* base + the sum of each register iter's variable times its stride. */
static IrExpr *slot(OpCtx *c, const RegIter *its, int n, IrExpr *const *vars, IrExpr *base)
{
    for (int i = 0; i < n; i++)
        if (vars[i])
            base = op_bin(c, IR_E_ADD, base, op_bin(c, IR_E_MUL, vars[i], op_i32(c, its[i].stride)));
    return base;
}

static IrStmt *wrap(OpCtx *c, const RegIter *its, int n, IrExpr *const *vars, IrStmt *body)
{
    for (int i = n - 1; i >= 0; i--)
        if (vars[i])
            body = op_for(c, vars[i], its[i].extent, IR_FOR_UNROLLED, body);
    return body;
}

IrStmt *op_reduce_reg_lower(OpCtx *c)
{
    OpReduce r;
    RegPlan p;
    op_red_operands(c, &r, true);
    plan(c, &r, &p);
    OpSeq out = {0}, per = {0};
    IrExpr *sv = op_local_view(c, &out, r.src.buffer), *dv = op_local_view(c, &out, r.dst.buffer);
    IrExpr *acc = op_alloc_local(c, &out, "red", r.acc, 1), *zero = op_i32(c, 0);
    IrExpr *kv[2 * OP_MAX_DIMS] = {0}, *rv[2 * OP_MAX_DIMS] = {0};
    loop_vars(c, p.kept, p.nkept, kv);
    loop_vars(c, p.red, p.nred, rv);
    IrExpr *dreg = slot(c, p.dst, p.ndst, kv, zero);
    IrExpr *sreg = slot(c, p.red, p.nred, rv, slot(c, p.kept, p.nkept, kv, zero));
    op_store(c, &per, acc, &zero, 1, op_red_identity(c, r.acc));
    op_emit(&per, wrap(c, p.red, p.nred, rv,
                       op_red_fold(c, &r, acc, op_load(c, sv, &sreg, 1))));
    for (int i = 0; i < p.nred; i++)
        if (p.red[i].lane)
            for (int64_t off = p.red[i].stride; off < p.red[i].stride * p.red[i].extent; off *= 2) {
                IrExpr *a[4] = {ir_int(c->arena, IR_UINT32, 0xFFFFFFFFll, c->call->span),
                                op_load(c, acc, &zero, 1), op_i32(c, off), op_i32(c, 32)};
                op_emit(&per, op_red_fold(c, &r, acc,
                                          op_call(c, IR_OP_CUDA_SHFL_XOR_SYNC, r.acc, a, 4)));
            }
    IrExpr *v = op_load(c, acc, &zero, 1);
    op_store(c, &per, dv, &dreg, 1, r.accum ? op_red_combine(c, op_load(c, dv, &dreg, 1), v) : v);
    op_emit(&out, wrap(c, p.kept, p.nkept, kv, op_seq_finish(c, &per)));
    return op_seq_finish(c, &out);
}
