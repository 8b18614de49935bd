/* sum / max / min, variant "cta_scratch": the whole CTA on each output, for
 * calls with fewer outputs than warps (a row softmax's max and sum). Every
 * thread folds a strided slice, each warp combines its lanes with xor
 * shuffles and its lane 0 writes the warp's partial to the shared scratch
 * buffer of workspace={"scratch": buf} (one element per warp), a barrier,
 * warp 0 combines the partials the same way and writes the output, and a
 * barrier ends each output (the scratch is free again, the result visible). */
#include <string.h>

#include "../reduction.h"

static IrExpr *scratch_buffer(const OpCtx *c)
{
    IrExpr *w = op_workspace(c, "scratch");
    if (w && w->kind == IR_E_REGION)
        return w->u.access.buffer;
    return ir_is_buffer(w) ? w : NULL;
}

const char *op_reduce_cta_accept(OpCtx *c)
{
    OpReduce r;
    const char *why = op_need_scope(c, OP_SCOPE_BIT(IR_SCOPE_CTA));
    if (why || (why = op_red_operands(c, &r, false)))
        return why;
    if (r.src.mem != OP_MEM_SHARED && r.src.mem != OP_MEM_GLOBAL)
        return op_reason(c, "the source is in %s memory, not shared or global", op_mem_name(r.src.mem));
    if (r.dst.mem != OP_MEM_SHARED && r.dst.mem != OP_MEM_GLOBAL)
        return op_reason(c, "the destination is in %s memory, not shared or global",
                         op_mem_name(r.dst.mem));
    int64_t warps = c->cta_threads / 32;
    if (c->cta_threads % 32 || !c->axis[LY_AXIS_LANEID] || !c->axis[LY_AXIS_WARPID])
        return op_reason(c, "the CTA is not whole warps with known lane and warp ids");
    IrExpr *s = scratch_buffer(c);
    if (!s)
        return op_reason(c, "needs workspace={\"scratch\": buf}, a shared buffer of one element "
                            "per warp");
    int64_t n = 1, e;
    const IrBufferType *bt = ir_buf(s);
    for (int d = 0; d < bt->ndim; d++)
        n *= op_const(bt->shape[d], &e) ? e : 0;
    if (strncmp(s->u.var.type->scope, "shared", 6) || !ir_dtype_eq(s->u.var.type->dtype, r.acc) ||
        bt->ndim != 1 || n < warps)
        return op_reason(c, "the scratch buffer must be 1-D shared memory of at least %lld "
                            "elements of the destination's dtype", (long long)warps);
    if (r.outputs * 32 >= c->cta_threads)
        return op_reason(c, "%lld outputs keep every warp busy (warp_shuffle does better)",
                         (long long)r.outputs);
    return NULL;
}

/* Warp 0 folds the warps' partials and writes the output. */
static IrStmt *second_level(OpCtx *c, const OpReduce *r, IrExpr *acc, IrExpr *scratch,
                            IrExpr *lane, IrExpr *o)
{
    int64_t warps = c->cta_threads / 32;
    IrExpr *zero = op_i32(c, 0);
    OpSeq s = {0}, st = {0};
    IrExpr *v = op_load(c, scratch, &lane, 1);
    if (warps < 32) {
        IrExpr *a[3] = {op_bin(c, IR_E_LT, lane, op_i32(c, warps)), v, op_red_identity(c, r->acc)};
        v = op_call(c, IR_OP_IF_THEN_ELSE, r->acc, a, 3);
    }
    op_store(c, &s, acc, &zero, 1, v);
    op_red_shuffle(c, &s, r, acc, op_pow2_ceil(warps));
    op_red_store(c, &st, r, o, op_load(c, acc, &zero, 1));
    op_emit(&s, op_if(c, op_bin(c, IR_E_EQ, lane, zero), op_seq_finish(c, &st), NULL));
    return op_if(c, op_bin(c, IR_E_EQ, c->axis[LY_AXIS_WARPID], zero), op_seq_finish(c, &s), NULL);
}

IrStmt *op_reduce_cta_lower(OpCtx *c)
{
    OpReduce r;
    op_red_operands(c, &r, false);
    int64_t threads = c->cta_threads, slices = (r.length + threads - 1) / threads;
    IrExpr *t = op_scope_index(c), *zero = op_i32(c, 0);
    IrExpr *lane = c->axis[LY_AXIS_LANEID], *warp = c->axis[LY_AXIS_WARPID];
    IrExpr *scratch = scratch_buffer(c);
    IrExpr *o = r.outputs > 1 ? op_var(c, "o", IR_INT32) : zero;
    IrExpr *j = slices > 1 ? op_var(c, "j", IR_INT32) : zero;
    IrExpr *pos = op_bin(c, IR_E_ADD, op_bin(c, IR_E_MUL, j, op_i32(c, threads)), t);

    OpSeq out = {0}, per = {0}, w = {0};
    IrExpr *acc = op_alloc_local(c, &out, "red", r.acc, 1);
    op_store(c, &per, acc, &zero, 1, op_red_identity(c, r.acc));
    IrExpr **sidx = op_red_src_index(c, &r, o, pos);
    IrStmt *fold = op_red_fold(c, &r, acc, op_load(c, r.src.buffer, sidx, r.src.ndim));
    if (slices * threads != r.length)
        fold = op_if(c, op_bin(c, IR_E_LT, pos, op_i32(c, r.length)), fold, NULL);
    op_emit(&per, slices > 1 ? op_for(c, j, slices, IR_FOR_SERIAL, fold) : fold);
    op_red_shuffle(c, &per, &r, acc, 32);
    op_store(c, &w, scratch, &warp, 1, op_load(c, acc, &zero, 1));
    op_emit(&per, op_if(c, op_bin(c, IR_E_EQ, lane, zero), op_seq_finish(c, &w), NULL));
    op_eval(c, &per, op_call(c, IR_OP_CUDA_CTA_SYNC, IR_VOID, NULL, 0));
    op_emit(&per, second_level(c, &r, acc, scratch, lane, o));
    op_eval(c, &per, op_call(c, IR_OP_CUDA_CTA_SYNC, IR_VOID, NULL, 0));
    IrStmt *body = op_seq_finish(c, &per);
    op_emit(&out, r.outputs > 1 ? op_for(c, o, r.outputs, IR_FOR_SERIAL, body) : body);
    return op_seq_finish(c, &out);
}
