/* copy_async, variant "ldgsts": global -> shared with cp.async (sm_80+), as
 * the reference's ldgsts. The partition is copy vec_auto's: the widest
 * vector both sides allow, here 4, 8 or 16 bytes (cp.async.cg for 16, .ca
 * for 4 and 8), dealt round-robin to the scope's threads in an unrolled
 * loop. Only the issue is emitted: the caller commits and waits
 * (T.ptx.cp.async_.commit_group() / wait_group(n)) and synchronizes. With
 * oob="zero" a vector past the global buffer copies 0 source bytes (the
 * src-size operand), which fills the destination with zeros. */
#include "../partition.h"

static const char *regions(OpCtx *c, OpRegion *dst, OpRegion *src)
{
    const char *why;
    if ((why = op_region(c, 0, dst)) || (why = op_region(c, 1, src)))
        return why;
    if (dst->mem != OP_MEM_SHARED || src->mem != OP_MEM_GLOBAL)
        return op_reason(c, "copies global to shared; here %s to %s", op_mem_name(src->mem),
                         op_mem_name(dst->mem));
    if (!ir_dtype_eq(dst->dtype, src->dtype) || !op_dtype_bytes(dst->dtype))
        return op_reason(c, "the dtypes differ or are narrower than a byte");
    if (!op_regions_match(dst, src))
        return op_reason(c, "the regions' non-unit extents differ");
    return NULL;
}

static int64_t vector_elems(OpCtx *c, const OpRegion *dst, const OpRegion *src)
{
    int esize = op_dtype_bytes(dst->dtype);
    int64_t vd = op_region_vector(c, dst, 16 / esize, false);
    int64_t vs = op_region_vector(c, src, 16 / esize, op_oob_zero(c));
    return vd < vs ? vd : vs;
}

/* The instruction that moves one vector of `bytes`. */
static const char *instruction(int64_t bytes)
{
    return bytes == 16 ? "cp.async.cg.shared.global" : "cp.async.ca.shared.global";
}

const char *op_cp_async_accept(OpCtx *c)
{
    OpRegion dst, src;
    const char *why = op_need_scope(c, OP_ANY_SCOPE);
    if (why || (why = regions(c, &dst, &src)))
        return why;
    if (op_config(c, "mbar"))
        return op_reason(c, "mbar= asks for completion on an mbarrier (TMA); cp.async completes "
                            "through commit and wait groups");
    int64_t bytes = vector_elems(c, &dst, &src) * op_dtype_bytes(dst.dtype);
    if (bytes < 4)
        return op_reason(c, "the widest aligned contiguous vector is %lld bytes; cp.async moves "
                            "4, 8 or 16", (long long)bytes);
    return op_need_ptx(c, "cp.async", instruction(bytes));
}

IrStmt *op_cp_async_lower(OpCtx *c)
{
    OpRegion dst, src;
    regions(c, &dst, &src);
    int64_t vec = vector_elems(c, &dst, &src), bytes = vec * op_dtype_bytes(dst.dtype);
    OpSpace sp;
    IrExpr **didx, **sidx;
    const char *why = op_space_copy(c, &sp, &dst, &src, vec, &didx, &sidx);
    if (why)
        return op_decline(c, "%s", why);
    IrExpr *args[4] = {op_address_of(c, dst.buffer, didx, dst.ndim),
                       op_address_of(c, src.buffer, sidx, src.ndim), op_i32(c, bytes), NULL};
    int n = 3;
    IrExpr *in = op_oob_zero(c) ? op_in_bounds(c, &src, sidx) : NULL;
    if (in) {
        IrExpr *sel = ir_node(c->arena, IR_E_SELECT, IR_UINT32, c->call->span);
        sel->u.op.cond = in;
        sel->u.op.a = ir_int(c->arena, IR_UINT32, bytes, c->call->span);
        sel->u.op.b = ir_int(c->arena, IR_UINT32, 0, c->call->span);
        args[n++] = sel;
    }
    OpSeq s = {0};
    op_eval(c, &s, op_ptx(c, instruction(bytes), args, n));
    return op_space_wrap(c, &sp, op_seq_finish(c, &s), IR_FOR_UNROLLED);
}
