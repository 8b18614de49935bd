/* sum / max / min, variant "sm100_packed": one thread folds float32 register
 * arrays of at least 8 elements per output with the packed instructions of
 * the target, where its PTX table has them (sm_100a), as the reference's
 * variant of that name. sum keeps eight partial sums as four pairs, adding
 * each further 8 elements with four add.rn.f32x2 (mov.b64 packs and unpacks
 * around each), then halves the pairs to one and adds its two halves; max
 * and min keep four partials, folding two elements into each with one
 * three-input max.f32 / min.f32, then merge them. Elements past the last
 * whole 8 are folded one by one. The order of the additions is not the
 * serial one (sums may differ in the last bits). */
#include "../elementwise.h"
#include "../reduction.h"

#define CHUNK 8

static bool is_sum(const OpCtx *c) { return c->call->u.tile.op == IR_TILE_SUM; }

/* The three-input max.f32 / min.f32 of the table for float32 operands. */
static const char *need_three_input(OpCtx *c)
{
    IrPtxArg f[4];
    for (int i = 0; i < 4; i++)
        f[i] = (IrPtxArg){IR_FLOAT32, false};
    const char *name = c->call->u.tile.op == IR_TILE_MAX ? "max.f32" : "min.f32";
    return op_need_ptx_ops(c, "the three-input form", name, f, 4);
}

const char *op_reduce_packed_accept(OpCtx *c)
{
    OpReduce r;
    const char *why = op_need_scope(c, OP_SCOPE_BIT(IR_SCOPE_THREAD));
    if (why || (why = op_red_operands(c, &r, false)))
        return why;
    if (r.src.mem != OP_MEM_LOCAL || r.dst.mem != OP_MEM_LOCAL || r.src.distributed ||
        r.dst.distributed)
        return op_reason(c, "folds a thread's own register arrays only");
    if (!ir_dtype_eq(r.src.dtype, IR_FLOAT32) || !ir_dtype_eq(r.acc, IR_FLOAT32))
        return op_reason(c, "folds float32 only");
    if (r.length < CHUNK)
        return op_reason(c, "folds at least %d elements per output, not %lld", CHUNK,
                         (long long)r.length);
    return is_sum(c) ? op_need_ptx(c, "the packed add", "add.rn.f32x2") : need_three_input(c);
}

static IrExpr *at(OpCtx *c, IrExpr *buf, int64_t i)
{
    IrExpr *k = op_i32(c, i);
    return op_load(c, buf, &k, 1);
}

/* Source element j (j an expression) of output o. */
static IrExpr *src_at(OpCtx *c, const OpReduce *r, IrExpr *o, IrExpr *j)
{
    return op_load(c, r->src.buffer, op_red_src_index(c, r, o, j), r->src.ndim);
}

/* part[2i], part[2i + 1] += (x, y) with one add.rn.f32x2. */
static void add_pair(OpCtx *c, OpSeq *s, IrExpr *pk, IrExpr *part, int64_t i, IrExpr *x, IrExpr *y)
{
    IrExpr *d[2] = {at(c, part, 2 * i), at(c, part, 2 * i + 1)};
    IrExpr *v[2][2] = {{d[0], d[1]}, {x, y}};
    op_ew_f32x2_emit(c, s, "add.rn.f32x2", pk, d, v, 2);
}

/* part[i] = op(part[i], x, y) with one three-input instruction. */
static void fold3(OpCtx *c, OpSeq *s, IrExpr *part, int64_t i, IrExpr *x, IrExpr *y)
{
    IrExpr *args[4] = {at(c, part, i), at(c, part, i), x, y};
    op_eval(c, s, op_ptx(c, c->call->u.tile.op == IR_TILE_MAX ? "max.f32" : "min.f32", args, 4));
}

/* The first chunk into the partials: sum copies, max/min fold pairs. */
static void first_chunk(OpCtx *c, OpSeq *s, const OpReduce *r, IrExpr *o, IrExpr *part)
{
    for (int64_t i = 0; i < (is_sum(c) ? CHUNK : CHUNK / 2); i++) {
        IrExpr *k = op_i32(c, i);
        IrExpr *v = is_sum(c) ? src_at(c, r, o, op_i32(c, i))
                              : op_red_combine(c, src_at(c, r, o, op_i32(c, 2 * i)),
                                               src_at(c, r, o, op_i32(c, 2 * i + 1)));
        op_store(c, s, part, &k, 1, v);
    }
}

/* Chunk k + 1 (k a loop variable) folded into the partials. */
static IrStmt *next_chunk(OpCtx *c, const OpReduce *r, IrExpr *o, IrExpr *k, IrExpr *part,
                          IrExpr *pk)
{
    OpSeq s = {0};
    IrExpr *base = op_bin(c, IR_E_MUL, op_bin(c, IR_E_ADD, k, op_i32(c, 1)), op_i32(c, CHUNK));
    for (int64_t i = 0; i < CHUNK / 2; i++) {
        IrExpr *x = src_at(c, r, o, op_bin(c, IR_E_ADD, base, op_i32(c, 2 * i)));
        IrExpr *y = src_at(c, r, o, op_bin(c, IR_E_ADD, base, op_i32(c, 2 * i + 1)));
        if (is_sum(c))
            add_pair(c, &s, pk, part, i, x, y);
        else
            fold3(c, &s, part, i, x, y);
    }
    return op_seq_finish(c, &s);
}

/* The partials merged into part[0]. */
static void merge(OpCtx *c, OpSeq *s, IrExpr *part, IrExpr *pk)
{
    IrExpr *zero = op_i32(c, 0);
    if (is_sum(c)) {
        add_pair(c, s, pk, part, 0, at(c, part, 2), at(c, part, 3));
        add_pair(c, s, pk, part, 2, at(c, part, 6), at(c, part, 7));
        add_pair(c, s, pk, part, 0, at(c, part, 4), at(c, part, 5));
        op_store(c, s, part, &zero, 1, op_bin(c, IR_E_ADD, at(c, part, 0), at(c, part, 1)));
        return;
    }
    op_store(c, s, part, &zero, 1, op_red_combine(c, at(c, part, 0), at(c, part, 1)));
    fold3(c, s, part, 0, at(c, part, 2), at(c, part, 3));
}

IrStmt *op_reduce_packed_lower(OpCtx *c)
{
    OpReduce r;
    op_red_operands(c, &r, false);
    OpSeq out = {0}, per = {0}, rest = {0};
    IrExpr *part = op_alloc_local(c, &out, "part", IR_FLOAT32, is_sum(c) ? CHUNK : CHUNK / 2);
    IrExpr *pk = is_sum(c) ? op_alloc_local(c, &out, "pk", IR_UINT64, 2) : NULL;
    IrExpr *o = r.outputs > 1 ? op_var(c, "o", IR_INT32) : op_i32(c, 0), *zero = op_i32(c, 0);
    int64_t chunks = r.length / CHUNK, tail = r.length % CHUNK;
    first_chunk(c, &per, &r, o, part);
    if (chunks > 1) {
        IrExpr *k = op_var(c, "k", IR_INT32);
        op_emit(&per, op_for(c, k, chunks - 1, IR_FOR_UNROLLED, next_chunk(c, &r, o, k, part, pk)));
    }
    if (tail) {
        IrExpr *t = op_var(c, "t", IR_INT32);
        IrExpr *v = src_at(c, &r, o, op_bin(c, IR_E_ADD, t, op_i32(c, chunks * CHUNK)));
        op_store(c, &rest, part, &zero, 1, op_red_combine(c, at(c, part, 0), v));
        op_emit(&per, op_for(c, t, tail, IR_FOR_UNROLLED, op_seq_finish(c, &rest)));
    }
    merge(c, &per, part, pk);
    op_red_store(c, &per, &r, o, at(c, part, 0));
    IrStmt *body = op_seq_finish(c, &per);
    op_emit(&out, r.outputs > 1 ? op_for(c, o, r.outputs, IR_FOR_UNROLLED, body) : body);
    return op_seq_finish(c, &out);
}
