/* Elementwise primitives, variant "mem": operands in shared or global
 * memory (and scalars). The scope's threads take the destination's elements
 * round-robin (consecutive threads, consecutive elements: coalesced and free
 * of bank conflicts), load each source's element at the same position,
 * compute (elementwise.c) and store. As the reference's smem variant, but
 * one element per step and any element count (a guard covers the rest). */
#include "../elementwise.h"

static bool in_memory(const OpRegion *r) { return r->mem == OP_MEM_GLOBAL || r->mem == OP_MEM_SHARED; }

const char *op_elem_mem_accept(OpCtx *c)
{
    OpRegion dst, src[OP_EW_MAX_SRC];
    bool is_region[OP_EW_MAX_SRC];
    int n;
    const char *why = op_need_scope(c, OP_ANY_SCOPE);
    if (why || (why = op_ew_operands(c, &dst, src, is_region, &n)))
        return why;
    if (!in_memory(&dst))
        return op_reason(c, "the destination is in %s memory, not shared or global",
                         op_mem_name(dst.mem));
    for (int i = 0; i < n; i++)
        if (is_region[i] && !in_memory(&src[i]))
            return op_reason(c, "operand '%s' is in %s memory, not shared or global",
                             src[i].buffer->u.var.name, op_mem_name(src[i].mem));
    return NULL;
}

IrStmt *op_elem_mem_lower(OpCtx *c)
{
    OpRegion dst, src[OP_EW_MAX_SRC];
    bool is_region[OP_EW_MAX_SRC];
    int n;
    op_ew_operands(c, &dst, src, is_region, &n);
    OpSpace sp;
    const char *why = op_space_init(c, &sp, &dst, 1);
    if (why)
        return op_decline(c, "%s", why);
    IrExpr *idx[OP_MAX_DIMS], **didx = TX_NEW_ARRAY(c->arena, IrExpr *, dst.ndim);
    op_space_begin(c, &sp, idx);
    op_region_index(c, &dst, idx, didx);
    IrExpr *v[OP_EW_MAX_SRC];
    op_ew_load_sources(c, src, is_region, n, idx, v);
    OpSeq body = {0};
    op_store(c, &body, dst.buffer, didx, dst.ndim, op_ew_value(c, dst.dtype, v, n));
    return op_space_wrap(c, &sp, op_seq_finish(c, &body), IR_FOR_SERIAL);
}
