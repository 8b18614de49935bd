/* sum / max / min, variant "warp_shuffle": operands in shared or global
 * memory, at warp or CTA scope. Groups of G lanes (G = the reduction length
 * rounded up to a power of two, at most 32) each take one output at a time:
 * every lane folds a strided slice of it, the group combines its lanes with
 * log2(G) xor shuffles, and the group's first lane writes the result. All
 * lanes run the shuffles (a lane with no output folds nothing), so the full
 * mask is exact. A barrier of the scope follows (__syncwarp or
 * __syncthreads), as in the reference's shared variant. */
#include "../reduction.h"

const char *op_reduce_warp_accept(OpCtx *c)
{
    OpReduce r;
    const char *why = op_need_scope(c, OP_SCOPE_BIT(IR_SCOPE_WARP) | OP_SCOPE_BIT(IR_SCOPE_CTA));
    if (why || (why = op_red_operands(c, &r, false)))
        return why;
    const OpRegion *side[2] = {&r.dst, &r.src};
    for (int i = 0; i < 2; i++)
        if (side[i]->mem != OP_MEM_SHARED && side[i]->mem != OP_MEM_GLOBAL)
            return op_reason(c, "'%s' is in %s memory, not shared or global",
                             side[i]->buffer->u.var.name, op_mem_name(side[i]->mem));
    if (op_scope_threads(c) % 32)
        return op_reason(c, "the CTA's %lld threads are not whole warps",
                         (long long)op_scope_threads(c));
    return NULL;
}

/* Guards joined with `and`; NULL when there is none. */
static IrExpr *both(OpCtx *c, IrExpr *a, IrExpr *b)
{
    return !a ? b : !b ? a : op_bin(c, IR_E_AND, a, b);
}

IrStmt *op_reduce_warp_lower(OpCtx *c)
{
    OpReduce r;
    op_red_operands(c, &r, false);
    int64_t threads = op_scope_threads(c);
    int64_t g = op_pow2_ceil(r.length);
    g = g > 32 ? 32 : g;
    int64_t groups = threads / g, steps = (r.outputs + groups - 1) / groups;
    int64_t slices = (r.length + g - 1) / g;
    IrExpr *t = op_scope_index(c), *zero = op_i32(c, 0);
    IrExpr *lane = g == 1 ? zero : op_bin(c, IR_E_FLOORMOD, t, op_i32(c, g));
    IrExpr *group = groups == 1 ? zero : op_bin(c, IR_E_FLOORDIV, t, op_i32(c, g));
    IrExpr *k = steps > 1 ? op_var(c, "k", IR_INT32) : zero;
    IrExpr *o = op_bin(c, IR_E_ADD, op_bin(c, IR_E_MUL, k, op_i32(c, groups)), group);
    IrExpr *j = slices > 1 ? op_var(c, "j", IR_INT32) : zero;
    IrExpr *pos = op_bin(c, IR_E_ADD, op_bin(c, IR_E_MUL, j, op_i32(c, g)), lane);
    IrExpr *o_ok = steps * groups != r.outputs ? op_bin(c, IR_E_LT, o, op_i32(c, r.outputs)) : NULL;
    IrExpr *pos_ok = slices * g != r.length ? op_bin(c, IR_E_LT, pos, op_i32(c, r.length)) : NULL;

    OpSeq out = {0}, per = {0}, st = {0};
    IrExpr *acc = op_alloc_local(c, &out, "red", r.acc, 1);
    op_store(c, &per, acc, &zero, 1, op_red_identity(c, r.acc));
    IrExpr **sidx = op_red_src_index(c, &r, o, pos);
    IrStmt *fold = op_red_fold(c, &r, acc, op_load(c, r.src.buffer, sidx, r.src.ndim));
    IrExpr *guard = both(c, o_ok, pos_ok);
    if (guard)
        fold = op_if(c, guard, fold, NULL);
    op_emit(&per, slices > 1 ? op_for(c, j, slices, IR_FOR_SERIAL, fold) : fold);
    op_red_shuffle(c, &per, &r, acc, g);
    op_red_store(c, &st, &r, o, op_load(c, acc, &zero, 1));
    op_emit(&per, op_if(c, both(c, op_bin(c, IR_E_EQ, lane, zero), o_ok), op_seq_finish(c, &st), NULL));
    IrStmt *body = op_seq_finish(c, &per);
    op_emit(&out, steps > 1 ? op_for(c, k, steps, IR_FOR_SERIAL, body) : body);
    IrOp sync = c->call->u.tile.scope == IR_SCOPE_WARP ? IR_OP_CUDA_WARP_SYNC : IR_OP_CUDA_CTA_SYNC;
    op_eval(c, &out, op_call(c, sync, IR_VOID, NULL, 0));
    return op_seq_finish(c, &out);
}
