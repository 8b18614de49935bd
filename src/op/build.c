/* Building the TIRx a variant returns: typed, folded expressions (the
 * parser's own rules, so a lowered call is structurally equal to the same
 * code written by hand), loads, stores, plain vector accesses through views,
 * loops, T.ptx calls through the instruction table (and whether the target
 * has an instruction, from that table's architecture columns), register
 * allocations and local views of distributed register tiles; and the small
 * index facts the variants' predicates need (constants, provable powers of
 * two). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/ptx.h"
#include "../arith/arith.h"
#include "op.h"

static TxSpan span(const OpCtx *c) { return c->call->span; }

IrExpr *op_i32(OpCtx *c, int64_t v) { return ir_int(c->arena, IR_INT32, v, span(c)); }

IrExpr *op_bin(OpCtx *c, IrExprKind k, IrExpr *x, IrExpr *y)
{
    const char *err = NULL;
    IrExpr *e = ar_binary(c->arena, k, x, y, span(c), &err);
    if (!e)
        TX_UNREACHABLE(); /* variants only combine index integers and values of one dtype */
    return e;
}

IrExpr *op_cast(OpCtx *c, IrDType t, IrExpr *x) { return ar_cast(c->arena, t, x, span(c)); }

IrExpr *op_call(OpCtx *c, IrOp op, IrDType t, IrExpr **args, int n)
{
    IrExpr *e = ir_node(c->arena, IR_E_CALL, t, span(c));
    e->u.call.op = op, e->u.call.nargs = n;
    e->u.call.args = TX_NEW_ARRAY(c->arena, IrExpr *, n ? n : 1);
    for (int i = 0; i < n; i++)
        e->u.call.args[i] = args[i];
    return e;
}

IrExpr *op_load(OpCtx *c, IrExpr *buffer, IrExpr **idx, int n)
{
    IrExpr *e = ir_node(c->arena, IR_E_LOAD, buffer->u.var.type->dtype, span(c));
    e->u.access.buffer = buffer, e->u.access.n = n;
    e->u.access.indices = tx_arena_memdup(c->arena, idx, sizeof(IrExpr *) * (size_t)(n ? n : 1));
    return e;
}

IrExpr *op_address_of(OpCtx *c, IrExpr *buffer, IrExpr **idx, int n)
{
    IrExpr *load = op_load(c, buffer, idx, n);
    return op_call(c, IR_OP_ADDRESS_OF, IR_HANDLE, &load, 1);
}

IrExpr *op_var(OpCtx *c, const char *base, IrDType dt)
{
    return ir_var(c->arena, base, ir_prim_type(c->arena, dt), span(c));
}

/* ---------------------------------------------------------------- T.ptx */

/* An operand as the parser coerces it: a generic pointer into a shared-space
 * address operand goes through T.cuda.cvta_generic_to_shared, a uint64 into
 * any other but tensor memory is reinterpreted as a pointer. */
static IrExpr *ptx_operand(OpCtx *c, const IrPtxOperand *op, IrExpr *e)
{
    if (op->kind != IR_PTX_OPND_ADDR)
        return e;
    bool handle = e->dtype.code == IR_DT_HANDLE;
    if (op->space && !strncmp(op->space, "shared", 6))
        return handle ? op_call(c, IR_OP_CUDA_CVTA_TO_SHARED, IR_UINT32, &e, 1) : e;
    if ((!op->space || strcmp(op->space, "tmem")) && ir_dtype_eq(e->dtype, IR_UINT64))
        return op_call(c, IR_OP_REINTERPRET, IR_HANDLE, &e, 1);
    return e;
}

/* The table entry of a dotted spelling; info NULL: the operands are not known
 * (n is then their count, -1 unknown). */
static IrPtxResolved ptx_resolve(TxArena *arena, const char *spelling, const IrPtxArg *info, int n)
{
    const char *tok[IR_PTX_MAX_SLOTS + 4];
    int ntok = 0;
    for (const char *s = spelling; *s && ntok < (int)TX_ARRAY_LEN(tok);) {
        const char *dot = strchr(s, '.');
        size_t len = dot ? (size_t)(dot - s) : strlen(s);
        tok[ntok++] = tx_arena_strndup(arena, s, len);
        s += len + (dot ? 1 : 0);
    }
    IrPtxResolved res;
    char err[256];
    if (!ir_ptx_resolve_args(tok, ntok, info, n, &res, NULL, err, sizeof err))
        TX_UNREACHABLE(); /* variants spell only forms of the table */
    return res;
}

/* The oldest and the newest target. An unknown target is taken as the oldest:
 * what it has, every target has. */
enum { OLDEST_SM = 80, NEWEST_SM = 100 };

bool op_has_ptx(const OpCtx *c, const char *spelling)
{
    IrPtxResolved res = ptx_resolve(c->arena, spelling, NULL, -1);
    return c->sm && ir_ptx_available(&res, c->sm);
}

const char *op_need_ptx(OpCtx *c, const char *what, const char *spelling)
{
    return op_need_ptx_ops(c, what, spelling, NULL, -1);
}

const char *op_need_ptx_ops(OpCtx *c, const char *what, const char *spelling,
                            const IrPtxArg *ops, int n)
{
    IrPtxResolved res = ptx_resolve(c->arena, spelling, ops, n);
    if (ir_ptx_available(&res, c->sm ? c->sm : OLDEST_SM))
        return NULL;
    int first = ir_ptx_first_sm(&res);
    const char *target = c->sm ? op_target_name(c->sm) : "not known";
    if (!first)
        return op_reason(c, "%s (%s) is not available on any target", what, spelling);
    if (first < c->sm || !ir_ptx_available(&res, NEWEST_SM))
        return op_reason(c, "%s (%s) exists only on %s; the target is %s", what, spelling,
                         op_target_name(first), target);
    return op_reason(c, "%s (%s) needs %s or newer; the target is %s", what, spelling,
                     op_target_name(first), target);
}

IrExpr *op_ptx(OpCtx *c, const char *spelling, IrExpr **args, int n)
{
    IrPtxArg *info = TX_NEW_ARRAY(c->arena, IrPtxArg, n ? n : 1);
    for (int i = 0; i < n; i++)
        info[i] = (IrPtxArg){args[i]->dtype, args[i]->dtype.code == IR_DT_BOOL};
    IrPtxResolved res = ptx_resolve(c->arena, spelling, info, n);
    IrPtxOperand ops[64];
    int nops = ir_ptx_operands(&res, ops, (int)TX_ARRAY_LEN(ops));
    IrExpr **a = TX_NEW_ARRAY(c->arena, IrExpr *, n ? n : 1);
    for (int k = 0; k < nops; k++)
        for (int l = 0; l < ops[k].lanes; l++) {
            int i = ops[k].first_arg + l;
            if (i >= 0 && i < n)
                a[i] = ptx_operand(c, &ops[k], args[i]);
        }
    IrExpr *call = op_call(c, IR_OP_PTX, IR_VOID, a, n);
    call->u.call.ptx_entry = res.entry;
    call->u.call.nptx_slots = res.nslots;
    call->u.call.ptx_slots = TX_NEW_ARRAY(c->arena, const char *, res.nslots ? res.nslots : 1);
    for (int i = 0; i < res.nslots; i++)
        call->u.call.ptx_slots[i] = res.slots[i] ? res.slots[i] : "";
    char marker[128] = "";
    ir_ptx_pred_marker(&res, marker, sizeof marker);
    call->u.call.ptx_marker = tx_arena_strdup(c->arena, marker);
    return call;
}

/* ---------------------------------------------------------------- statements */

void op_emit(OpSeq *s, IrStmt *st)
{
    if (st && st->kind == IR_S_SEQ) /* flat, as the parser builds sequences */
        for (int i = 0; i < st->u.seq.n; i++)
            tx_vec_push(&s->v, st->u.seq.stmts[i]);
    else if (st)
        tx_vec_push(&s->v, st);
}

void op_eval(OpCtx *c, OpSeq *s, IrExpr *call)
{
    IrStmt *st = ir_stmt(c->arena, IR_S_EVAL, span(c));
    st->u.eval = call;
    op_emit(s, st);
}

void op_store(OpCtx *c, OpSeq *s, IrExpr *buffer, IrExpr **idx, int n, IrExpr *value)
{
    IrStmt *st = ir_stmt(c->arena, IR_S_STORE, span(c));
    st->u.store.buffer = buffer;
    st->u.store.value = op_cast(c, buffer->u.var.type->dtype, value);
    st->u.store.n = n;
    st->u.store.indices = tx_arena_memdup(c->arena, idx, sizeof(IrExpr *) * (size_t)(n ? n : 1));
    op_emit(s, st);
}

void op_bind(OpCtx *c, OpSeq *s, IrExpr *var, IrExpr *value)
{
    IrStmt *st = ir_stmt(c->arena, IR_S_BIND, span(c));
    st->u.bind.var = var, st->u.bind.value = value;
    op_emit(s, st);
}

IrStmt *op_seq_finish(OpCtx *c, OpSeq *s)
{
    IrStmt *r = s->v.len ? ir_seq(c->arena, s->v.items, s->v.len, span(c))
                         : ir_seq(c->arena, NULL, 0, span(c));
    tx_vec_free(&s->v);
    return r;
}

IrStmt *op_for(OpCtx *c, IrExpr *var, int64_t extent, IrForKind kind, IrStmt *body)
{
    IrStmt *st = ir_stmt(c->arena, IR_S_FOR, span(c));
    st->u.loop.var = var;
    st->u.loop.min = op_i32(c, 0);
    st->u.loop.extent = op_i32(c, extent);
    st->u.loop.kind = kind;
    st->u.loop.body = body;
    return st;
}

IrStmt *op_if(OpCtx *c, IrExpr *cond, IrStmt *then_s, IrStmt *else_s)
{
    IrStmt *st = ir_stmt(c->arena, IR_S_IF, span(c));
    st->u.ifs.cond = cond, st->u.ifs.then_s = then_s, st->u.ifs.else_s = else_s;
    return st;
}

/* A buffer type as the parser makes one: int32 zero elem_offset, 64-byte
 * alignment, the row-major default layout. */
static IrExpr *new_buffer(OpCtx *c, const char *name, IrDType dt, const char *scope, int64_t n)
{
    IrBufferType *bt = TX_NEW(c->arena, IrBufferType);
    bt->ndim = 1;
    bt->shape = TX_NEW_ARRAY(c->arena, IrExpr *, 1);
    bt->shape[0] = op_i32(c, n);
    bt->elem_offset = op_i32(c, 0);
    bt->align = 64, bt->offset_factor = 1;
    bt->layout = ir_default_layout(c->arena, bt->shape, 1);
    return ir_var(c->arena, name, ir_buffer_type(c->arena, dt, scope, bt), span(c));
}

IrExpr *op_alloc_local(OpCtx *c, OpSeq *s, const char *name, IrDType dt, int64_t n)
{
    IrExpr *buf = new_buffer(c, name, dt, "local", n);
    IrStmt *st = ir_stmt(c->arena, IR_S_ALLOC, span(c));
    st->u.alloc.buffer = buf;
    op_emit(s, st);
    return buf;
}

IrExpr *op_flat_view(OpCtx *c, OpSeq *s, IrExpr *buffer, IrDType dt, int64_t n)
{
    IrExpr *view = new_buffer(c, tx_arena_printf(c->arena, "%s_flat", buffer->u.var.name), dt,
                              buffer->u.var.type->scope, n);
    view->u.var.type->buf->align = ir_buf(buffer)->align;
    IrStmt *d = ir_stmt(c->arena, IR_S_DECL, span(c));
    d->u.decl.buffer = view;
    d->u.decl.data = op_call(c, IR_OP_BUFFER_DATA, IR_HANDLE, &buffer, 1);
    op_emit(s, d);
    return view;
}

IrExpr *op_view_at(OpCtx *c, OpSeq *s, IrExpr *buffer, IrExpr **idx, int nidx, IrDType dt,
                   int64_t n)
{
    IrExpr *view = new_buffer(c, tx_arena_printf(c->arena, "%s_vec", buffer->u.var.name), dt,
                              buffer->u.var.type->scope, n);
    view->u.var.type->buf->align = (int)(n * op_dtype_bytes(dt));
    IrStmt *d = ir_stmt(c->arena, IR_S_DECL, span(c));
    d->u.decl.buffer = view;
    d->u.decl.data = op_address_of(c, buffer, idx, nidx);
    op_emit(s, d);
    return view;
}

/* Ramp(first, 1, lanes), or first for one lane. */
static IrExpr *run_index(OpCtx *c, IrExpr *first, int lanes)
{
    if (lanes == 1)
        return first;
    IrExpr *r = ir_node(c->arena, IR_E_RAMP, ir_dtype_with_lanes(first->dtype, lanes), span(c));
    r->u.op.a = first, r->u.op.b = ir_int(c->arena, first->dtype, 1, span(c));
    r->u.op.lanes = lanes;
    return r;
}

IrExpr *op_vector_load(OpCtx *c, IrExpr *view, IrExpr *first, int lanes)
{
    IrExpr *index = run_index(c, first, lanes);
    IrExpr *e = op_load(c, view, &index, 1);
    e->dtype = ir_dtype_with_lanes(e->dtype, lanes);
    return e;
}

void op_vector_store(OpCtx *c, OpSeq *s, IrExpr *view, IrExpr *first, int lanes, IrExpr *value)
{
    IrStmt *st = ir_stmt(c->arena, IR_S_STORE, span(c));
    st->u.store.buffer = view, st->u.store.value = value, st->u.store.n = 1;
    st->u.store.indices = TX_NEW_ARRAY(c->arena, IrExpr *, 1);
    st->u.store.indices[0] = run_index(c, first, lanes);
    op_emit(s, st);
}

IrExpr *op_local_view(OpCtx *c, OpSeq *s, IrExpr *buffer)
{
    const IrBufferType *pb = ir_buf(buffer);
    LyCtx lc = op_ly_ctx(c);
    IrLayout *st = ly_storage(&lc, pb->layout);
    IrExpr *span_e = st ? ly_span(&lc, st, NULL) : NULL;
    int64_t n;
    if (!span_e || !op_const(span_e, &n))
        TX_UNREACHABLE(); /* the predicates admit constant register layouts only */
    IrExpr *view = new_buffer(c, tx_arena_printf(c->arena, "%s_local", buffer->u.var.name),
                              buffer->u.var.type->dtype, buffer->u.var.type->scope, n);
    IrBufferType *vb = view->u.var.type->buf;
    vb->shape[0] = span_e;
    vb->layout = ir_default_layout(c->arena, vb->shape, 1);
    vb->elem_offset = pb->elem_offset; /* a flat run of registers: no strides of the parent's */
    vb->align = pb->align, vb->offset_factor = pb->offset_factor;
    IrStmt *d = ir_stmt(c->arena, IR_S_DECL, span(c));
    d->u.decl.buffer = view;
    d->u.decl.data = op_call(c, IR_OP_BUFFER_DATA, IR_HANDLE, &buffer, 1);
    op_emit(s, d);
    return view;
}

IrExpr *op_memo_get(const OpCtx *c, const char *key)
{
    for (int i = 0; i < c->memo->len; i++)
        if (!strcmp(c->memo->items[i].key, key))
            return c->memo->items[i].value;
    return NULL;
}

void op_memo_put(OpCtx *c, const char *key, IrExpr *value)
{
    OpMemo e = {tx_arena_strdup(c->arena, key), value};
    tx_vec_push(c->memo, e);
}

bool op_after_def(OpCtx *c, const IrExpr *buffer, IrStmt *s)
{
    uintptr_t v;
    if (!ir_ptrmap_get(c->device_vars, buffer, &v))
        return false;
    OpPostDef e = {buffer, s};
    tx_vec_push(c->post_def, e);
    return true;
}

/* ---------------------------------------------------------------- index facts */

bool op_const(const IrExpr *e, int64_t *v) { return ar_const_int(e, v); }

bool op_flag(const IrExpr *e, bool *out)
{
    int64_t v;
    if (!e)
        v = 0;
    else if (e->kind == IR_E_PYBOOL || e->kind == IR_E_PYINT)
        v = e->u.int_val;
    else if (!op_const(e, &v))
        return false;
    *out = v != 0;
    return true;
}

int64_t op_pow2_ceil(int64_t v)
{
    int64_t p = 1;
    while (p < v)
        p *= 2;
    return p;
}

int op_dtype_bytes(IrDType t) { return t.bits % 8 ? 0 : t.bits / 8 * t.lanes; }

static int64_t low_pow2(int64_t v)
{
    if (v == 0)
        return (int64_t)1 << 30;
    int64_t p = 1;
    while (p < ((int64_t)1 << 30) && v % (p * 2) == 0)
        p *= 2;
    return p;
}

int64_t op_known_pow2_in(const IrPtrMap *multiples, const IrExpr *e)
{
    return low_pow2(ar_known_multiple(multiples, e));
}

int64_t op_known_pow2(const IrExpr *e) { return op_known_pow2_in(NULL, e); }
