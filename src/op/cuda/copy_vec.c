/* copy, variant "vec_auto": global/shared <-> global/shared.
 *
 * The widest vector both sides allow (16 bytes at most; contiguous along the
 * innermost dimension, aligned at every start: layout, region start, strides,
 * buffer alignment) is moved as bits, not values, by one C assignment of
 * uint32 vectors through views of both sides at the vector's first element
 * (`*(uint4*)S_vec = *(uint4*)A_vec`: one `ld.<space>.v4.u32` and one
 * matching store, as the reference's copy, but free for the compiler to
 * schedule), so any dtype moves bit-exactly. Vectors are dealt round-robin
 * to the scope's threads in a serial loop (ptxas unrolls it); a count the
 * threads do not divide gets a guard. Narrower than 4 bytes, elements are
 * copied one by one. With oob="zero" the region may reach past a global
 * buffer: loads there give zeros, stores there are dropped. */
#include "../partition.h"

static bool is_memory(const OpRegion *r) { return r->mem == OP_MEM_GLOBAL || r->mem == OP_MEM_SHARED; }

const char *op_copy_vec_accept(OpCtx *c)
{
    const char *why = op_need_scope(c, OP_ANY_SCOPE);
    OpRegion dst, src;
    if (why || (why = op_region(c, 0, &dst)) || (why = op_region(c, 1, &src)))
        return why;
    if (!is_memory(&dst) || !is_memory(&src))
        return op_reason(c, "copies global/shared to global/shared; here %s to %s",
                         op_mem_name(src.mem), op_mem_name(dst.mem));
    if (!ir_dtype_eq(dst.dtype, src.dtype))
        return op_reason(c, "the dtypes differ (use cast)");
    if (!op_regions_match(&dst, &src))
        return op_reason(c, "the regions' non-unit extents differ");
    return NULL;
}

static IrStmt *guard(OpCtx *c, IrExpr *cond, IrStmt *then_s, IrStmt *else_s)
{
    return cond ? op_if(c, cond, then_s, else_s) : then_s;
}

/* One vector of `n` uint32 as a C assignment of their vector
 * (`*(uint4*)dst = *(uint4*)src`); with bounds, through the registers of tmp,
 * zeros where the source is out of bounds. */
static IrStmt *move_bits(OpCtx *c, OpSeq *outer, int n, const OpRegion *dst, IrExpr **didx,
                         const OpRegion *src, IrExpr **sidx, bool oob)
{
    OpSeq body = {0}, st = {0};
    IrExpr *zero = op_i32(c, 0);
    IrExpr *from = op_view_at(c, &body, src->buffer, sidx, src->ndim, IR_UINT32, n);
    IrExpr *to = op_view_at(c, &body, dst->buffer, didx, dst->ndim, IR_UINT32, n);
    IrExpr *value = op_vector_load(c, from, zero, n);
    IrExpr *in_src = oob ? op_in_bounds(c, src, sidx) : NULL;
    IrExpr *in_dst = oob ? op_in_bounds(c, dst, didx) : NULL;
    if (in_src) {
        OpSeq ld = {0}, zeros = {0};
        IrExpr *tmp = op_alloc_local(c, outer, "tmp", IR_UINT32, n);
        op_vector_store(c, &ld, tmp, zero, n, value);
        for (int i = 0; i < n; i++) {
            IrExpr *ri = op_i32(c, i);
            op_store(c, &zeros, tmp, &ri, 1, ir_int(c->arena, IR_UINT32, 0, c->call->span));
        }
        op_emit(&body, guard(c, in_src, op_seq_finish(c, &ld), op_seq_finish(c, &zeros)));
        value = op_vector_load(c, tmp, zero, n);
    }
    op_vector_store(c, &st, to, zero, n, value);
    op_emit(&body, guard(c, in_dst, op_seq_finish(c, &st), NULL));
    return op_seq_finish(c, &body);
}

static IrStmt *move_element(OpCtx *c, const OpRegion *dst, IrExpr **didx, const OpRegion *src,
                            IrExpr **sidx, bool oob)
{
    IrExpr *v = op_load(c, src->buffer, sidx, src->ndim);
    IrExpr *in_src = oob ? op_in_bounds(c, src, sidx) : NULL;
    if (in_src) {
        IrExpr *a[3] = {in_src, v, op_cast(c, src->dtype, op_i32(c, 0))};
        v = op_call(c, IR_OP_IF_THEN_ELSE, src->dtype, a, 3);
    }
    OpSeq s = {0};
    op_store(c, &s, dst->buffer, didx, dst->ndim, v);
    IrExpr *in_dst = oob ? op_in_bounds(c, dst, didx) : NULL;
    return guard(c, in_dst, op_seq_finish(c, &s), NULL);
}

IrStmt *op_copy_vec_lower(OpCtx *c)
{
    OpRegion dst, src;
    op_region(c, 0, &dst), op_region(c, 1, &src);
    bool oob = op_oob_zero(c);
    int esize = op_dtype_bytes(dst.dtype);
    int64_t vec = 1;
    if (esize) {
        int64_t vd = op_region_vector(c, &dst, 16 / esize, oob && dst.mem == OP_MEM_GLOBAL);
        int64_t vs = op_region_vector(c, &src, 16 / esize, oob && src.mem == OP_MEM_GLOBAL);
        vec = vd < vs ? vd : vs;
        if (vec * esize < 4)
            vec = 1;
    }
    OpSpace sp;
    IrExpr **didx, **sidx;
    const char *why = op_space_copy(c, &sp, &dst, &src, vec, &didx, &sidx);
    if (why)
        return op_decline(c, "%s", why);
    OpSeq out = {0};
    IrStmt *body;
    if (vec * esize >= 4) {
        body = move_bits(c, &out, (int)(vec * esize / 4), &dst, didx, &src, sidx, oob);
    } else {
        body = move_element(c, &dst, didx, &src, sidx, oob);
    }
    op_emit(&out, op_space_wrap(c, &sp, body, IR_FOR_SERIAL));
    return op_seq_finish(c, &out);
}
