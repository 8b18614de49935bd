/* copy, variant "vec_auto": global/shared <-> global/shared.
 *
 * The widest vector both sides allow (16 bytes at most; contiguous along the
 * innermost dimension, aligned at every start: layout, region start, strides,
 * buffer alignment) is moved by one `ld.<space>.v4.u32`-style load into
 * uint32 registers and one matching store, as the reference does (bits, not
 * values, so any dtype moves bit-exactly). Vectors are dealt round-robin to
 * the scope's threads in a serial loop (ptxas unrolls it); a count the
 * threads do not divide gets a guard. Narrower than 4 bytes, elements are
 * copied one by one. With oob="zero" the region may reach past a global
 * buffer: loads there give zeros, stores there are dropped. */
#include <stdio.h>

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

static const char *space(const OpRegion *r) { return r->mem == OP_MEM_GLOBAL ? "global" : "shared"; }

/* ld/st of n uint32 registers: "v4.u32", "v2.u32" or "u32". */
static const char *width(int n) { return n == 4 ? "v4.u32" : n == 2 ? "v2.u32" : "u32"; }

static IrStmt *guard(OpCtx *c, IrExpr *cond, IrStmt *then_s, IrStmt *else_s)
{
    return cond ? op_if(c, cond, then_s, else_s) : then_s;
}

/* One vector through `n` uint32 registers of tmp. */
static IrStmt *move_bits(OpCtx *c, IrExpr *tmp, int n, const OpRegion *dst, IrExpr **didx,
                         const OpRegion *src, IrExpr **sidx, bool oob)
{
    IrExpr *a[6];
    for (int i = 0; i < n; i++) {
        IrExpr *ri = op_i32(c, i);
        a[i] = op_load(c, tmp, &ri, 1);
    }
    OpSeq ld = {0}, st = {0}, zero = {0}, body = {0};
    a[n] = op_address_of(c, src->buffer, sidx, src->ndim);
    op_eval(c, &ld, op_ptx(c, tx_arena_printf(c->arena, "ld.%s.%s", space(src), width(n)), a, n + 1));
    for (int i = n; i > 0; i--)
        a[i] = a[i - 1];
    a[0] = op_address_of(c, dst->buffer, didx, dst->ndim);
    op_eval(c, &st, op_ptx(c, tx_arena_printf(c->arena, "st.%s.%s", space(dst), width(n)), a, n + 1));
    for (int i = 0; i < n; i++) {
        IrExpr *ri = op_i32(c, i);
        op_store(c, &zero, tmp, &ri, 1, ir_int(c->arena, IR_UINT32, 0, c->call->span));
    }
    IrExpr *in_src = oob ? op_in_bounds(c, src, sidx) : NULL;
    IrExpr *in_dst = oob ? op_in_bounds(c, dst, didx) : NULL;
    IrStmt *zero_s = op_seq_finish(c, &zero);
    op_emit(&body, guard(c, in_src, op_seq_finish(c, &ld), zero_s));
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
        int n = (int)(vec * esize / 4);
        IrExpr *tmp = op_alloc_local(c, &out, "tmp", IR_UINT32, n);
        body = move_bits(c, tmp, n, &dst, didx, &src, sidx, oob);
    } else {
        body = move_element(c, &dst, didx, &src, sidx, oob);
    }
    op_emit(&out, op_space_wrap(c, &sp, body, IR_FOR_SERIAL));
    return op_seq_finish(c, &out);
}
