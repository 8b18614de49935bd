/* sum / max / min, variant "thread": one thread folds each output's
 * elements in a loop (unrolled over registers, serial over memory), as the
 * reference's local variant at thread scope. */
#include "../reduction.h"

const char *op_reduce_thread_accept(OpCtx *c)
{
    OpReduce r;
    const char *why = op_need_scope(c, OP_SCOPE_BIT(IR_SCOPE_THREAD));
    if (why || (why = op_red_operands(c, &r, false)))
        return why;
    if (r.src.distributed || r.dst.distributed)
        return op_reason(c, "an operand is spread over threads");
    if (r.src.mem == OP_MEM_TMEM || r.dst.mem == OP_MEM_TMEM)
        return op_reason(c, "tensor memory is reached through copies only");
    return NULL;
}

IrStmt *op_reduce_thread_lower(OpCtx *c)
{
    OpReduce r;
    op_red_operands(c, &r, false);
    IrForKind kind = r.src.mem == OP_MEM_LOCAL || r.dst.mem == OP_MEM_LOCAL ? IR_FOR_UNROLLED
                                                                            : IR_FOR_SERIAL;
    OpSeq out = {0}, per = {0};
    IrExpr *acc = op_alloc_local(c, &out, "red", r.acc, 1), *zero = op_i32(c, 0);
    IrExpr *o = r.outputs > 1 ? op_var(c, "o", IR_INT32) : zero;
    IrExpr *j = r.length > 1 ? op_var(c, "j", IR_INT32) : zero;
    op_store(c, &per, acc, &zero, 1, op_red_identity(c, r.acc));
    IrExpr **sidx = op_red_src_index(c, &r, o, j);
    IrStmt *fold = op_red_fold(c, &r, acc, op_load(c, r.src.buffer, sidx, r.src.ndim));
    op_emit(&per, r.length > 1 ? op_for(c, j, r.length, kind, fold) : fold);
    op_red_store(c, &per, &r, o, op_load(c, acc, &zero, 1));
    IrStmt *body = op_seq_finish(c, &per);
    op_emit(&out, r.outputs > 1 ? op_for(c, o, r.outputs, kind, body) : body);
    return op_seq_finish(c, &out);
}
