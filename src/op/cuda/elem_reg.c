/* Elementwise primitives, variant "reg": every region operand in registers.
 * At thread scope the thread runs unrolled loops over its local arrays; at
 * warp, warpgroup or CTA scope the destination is a distributed register
 * tile and every region source places its elements as the destination does,
 * so each thread computes exactly the elements it holds: unrolled loops over
 * its registers, the matching slot in every operand's local view (the
 * reference's reg variant, its partition induced by the anchor layout). An
 * operand may be a sub-region of a tile (`Dreg[:, i * 16:i * 16 + 16]`) that
 * starts on a thread's first element: its registers start at another slot. */
#include "../elementwise.h"

static const char *check_local(OpCtx *c, const OpRegion *dst, const OpRegion *src,
                               const bool *is_region, int n)
{
    bool thread = c->call->u.tile.scope == IR_SCOPE_THREAD;
    if (dst->mem != OP_MEM_LOCAL)
        return op_reason(c, "the destination is in %s memory, not registers", op_mem_name(dst->mem));
    if (!thread && !dst->distributed)
        return op_reason(c, "at %s scope the destination must be spread over the threads (a "
                            "layout with thread axes)", ir_scope_names[c->call->u.tile.scope]);
    if (thread && dst->distributed)
        return op_reason(c, "'%s' is spread over threads; a thread-scope call cannot use it",
                         dst->buffer->u.var.name);
    for (int i = 0; i < n; i++) {
        if (!is_region[i])
            continue;
        if (src[i].mem != OP_MEM_LOCAL)
            return op_reason(c, "operand '%s' is in %s memory, not registers",
                             src[i].buffer->u.var.name, op_mem_name(src[i].mem));
        const char *why = thread ? NULL : op_frag_same(c, dst, &src[i]);
        if (why)
            return why;
    }
    return NULL;
}

const char *op_elem_reg_accept(OpCtx *c)
{
    OpRegion dst, src[OP_EW_MAX_SRC];
    bool is_region[OP_EW_MAX_SRC];
    int n;
    const char *why = op_need_scope_per(c, OP_ANY_SCOPE, IR_SCOPE_THREAD);
    if (why || (why = op_ew_operands(c, &dst, src, is_region, &n)))
        return why;
    return check_local(c, &dst, src, is_region, n);
}

/* Thread scope: loops over the region's non-unit dims. */
static IrStmt *lower_private(OpCtx *c, const OpRegion *dst, const OpRegion *src,
                             const bool *is_region, int n)
{
    OpNest nest;
    op_nest_init(c, &nest, dst, IR_FOR_UNROLLED);
    IrExpr **didx = TX_NEW_ARRAY(c->arena, IrExpr *, dst->ndim), *v[OP_EW_MAX_SRC];
    op_region_index(c, dst, nest.var, didx);
    op_ew_load_sources(c, src, is_region, n, nest.var, v);
    OpSeq body = {0};
    op_store(c, &body, dst->buffer, didx, dst->ndim, op_ew_value(c, dst->dtype, v, n));
    return op_nest_wrap(c, &nest, op_seq_finish(c, &body));
}

/* Collective scope: the thread's registers of each operand's local view; on
 * a target with the op's f32x2 form, pairs of consecutive registers with one
 * packed instruction. */
static IrStmt *lower_distributed(OpCtx *c, const OpRegion *dst, const OpRegion *src,
                                 const bool *is_region, int n)
{
    OpSeq out = {0};
    OpFrag f;
    const char *packed = op_ew_f32x2(c, dst, src, is_region, n);
    const char *why = op_frag(c, &out, dst, packed ? 2 : 1, &f);
    if (why) {
        op_seq_finish(c, &out);
        return op_decline(c, "%s", why);
    }
    int w = (int)f.vec;
    IrExpr *v[OP_EW_MAX_SRC][2], *d[2];
    for (int i = 0; i < n; i++) {
        IrExpr *view = !is_region[i] ? NULL
                       : src[i].buffer == dst->buffer ? f.view : op_local_view(c, &out, src[i].buffer);
        IrExpr *slot = is_region[i] ? op_frag_slot(c, &f, &src[i]) : NULL;
        for (int e = 0; e < w; e++) {
            IrExpr *at = is_region[i] ? op_bin(c, IR_E_ADD, slot, op_i32(c, e)) : NULL;
            v[i][e] = is_region[i] ? op_load(c, view, &at, 1) : op_ew_scalar(c, i);
        }
    }
    OpSeq body = {0};
    if (w == 2) {
        IrExpr *pk = op_alloc_local(c, &out, "pk", IR_UINT64, n);
        for (int e = 0; e < 2; e++) {
            IrExpr *at = op_bin(c, IR_E_ADD, f.reg, op_i32(c, e));
            d[e] = op_load(c, f.view, &at, 1);
        }
        op_ew_f32x2_emit(c, &body, packed, pk, d, v, n);
    } else {
        IrExpr *v1[OP_EW_MAX_SRC];
        for (int i = 0; i < n; i++)
            v1[i] = v[i][0];
        op_store(c, &body, f.view, &f.reg, 1, op_ew_value(c, dst->dtype, v1, n));
    }
    op_emit(&out, op_frag_wrap(c, &f, op_seq_finish(c, &body)));
    return op_seq_finish(c, &out);
}

IrStmt *op_elem_reg_lower(OpCtx *c)
{
    OpRegion dst, src[OP_EW_MAX_SRC];
    bool is_region[OP_EW_MAX_SRC];
    int n;
    op_ew_operands(c, &dst, src, is_region, &n);
    if (c->call->u.tile.scope == IR_SCOPE_THREAD)
        return lower_private(c, &dst, src, is_region, n);
    return lower_distributed(c, &dst, src, is_region, n);
}
