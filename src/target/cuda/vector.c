/* Vector values (dtype lanes > 1). A contiguous access (a Ramp index of
 * stride 1 into a buffer of scalars) is one load or store of the vector type,
 * `*(float4*)(A + i)`. Everything else is computed lane by lane: the vector
 * expression is scalarized into one scalar IR expression per lane (Ramp ->
 * base + k * stride, Broadcast -> its value, operators and calls per lane),
 * which the scalar printer writes; a vector load that lanes read is first
 * held in a temporary. The alignment of a vector access is the passes'
 * promise (VectorizeLoop vectorizes aligned accesses only). */
#include <string.h>

#include "internal.h"

static IrDType scalar_of(IrDType t)
{
    return ir_dtype_with_lanes(t, 1);
}

/* The base of a Ramp index with stride 1 (a contiguous vector access), or NULL. */
static const IrExpr *contiguous_base(const IrExpr *buffer, const IrExpr *index)
{
    int64_t stride;
    if (index->kind != IR_E_RAMP || !cg_const_int(index->u.op.b, &stride) || stride != 1)
        return NULL;
    return buffer->u.var.type->dtype.lanes == 1 ? index->u.op.a : NULL;
}

/* `(VT*)(A + base)`: the address of a contiguous vector access. */
static void vector_pointer(Cg *cg, const IrExpr *buffer, const IrExpr *base, IrDType vt, TxBuf *b)
{
    int64_t zero;
    tx_buf_printf(b, "(%s*)", cg_ctype_at(cg, vt, cg->span));
    if (cg_const_int(base, &zero) && zero == 0) {
        tx_buf_puts(b, cg_name(cg, buffer));
        return;
    }
    tx_buf_printf(b, "(%s + ", cg_name(cg, buffer));
    cg_expr(cg, base, b, CG_PREC_ADD + 1);
    tx_buf_putc(b, ')');
}

/* A variable node standing for text already in scope (a temporary's lane). */
static IrExpr *text_var(Cg *cg, IrDType t, const char *text)
{
    IrExpr *v = ir_var(&cg->arena, text, ir_prim_type(&cg->arena, t), cg->span);
    cg_alias(cg, v, text);
    return v;
}

/* The temporary holding vector e, made once per statement. */
static const char *held(Cg *cg, const IrExpr *e)
{
    uintptr_t name;
    if (ir_ptrmap_get(&cg->vec_temps, e, &name))
        return (const char *)name;
    char *value = cg_expr_str(cg, e, CG_PREC_NONE);
    const char *t = cg_temp(cg, cg_ctype_at(cg, e->dtype, cg_span(cg, e)), value);
    ir_ptrmap_put(&cg->vec_temps, e, (uintptr_t)t);
    return t;
}

static IrExpr *lane(Cg *cg, const IrExpr *e, int k);

static IrExpr *copy_node(Cg *cg, const IrExpr *e)
{
    IrExpr *c = ir_expr_copy(&cg->arena, e);
    c->dtype = scalar_of(e->dtype);
    return c;
}

/* base + k * stride, with constant parts folded: 5, x + 12, x + s * 3. */
static IrExpr *ramp_lane(Cg *cg, const IrExpr *e, int k)
{
    IrExpr *base = (IrExpr *)e->u.op.a, *stride = (IrExpr *)e->u.op.b;
    int64_t s, b0 = 0, c;
    if (k == 0)
        return base;
    if (!cg_const_int(stride, &s))
        return ir_binary(&cg->arena, IR_E_ADD, base,
                         ir_binary(&cg->arena, IR_E_MUL, stride,
                                   ir_int(&cg->arena, base->dtype, k, cg->span), cg->span),
                         cg->span);
    if (cg_const_int(base, &b0))
        return ir_int(&cg->arena, base->dtype, b0 + s * k, cg->span);
    if (base->kind == IR_E_ADD && cg_const_int(base->u.op.b, &c)) {
        b0 = c;
        base = base->u.op.a;
    }
    return b0 + s * k ? ir_binary(&cg->arena, IR_E_ADD, base,
                                  ir_int(&cg->arena, base->dtype, b0 + s * k, cg->span), cg->span)
                      : base;
}

static bool is_simple(const IrExpr *e)
{
    return e->kind == IR_E_VAR || e->kind == IR_E_INT || e->kind == IR_E_FLOAT;
}

static IrExpr *broadcast_lane(Cg *cg, const IrExpr *e)
{
    const IrExpr *v = e->u.op.a;
    if (is_simple(v))
        return (IrExpr *)v;
    uintptr_t name;
    if (!ir_ptrmap_get(&cg->vec_temps, e, &name)) {
        char *value = cg_expr_str(cg, v, CG_PREC_NONE);
        name = (uintptr_t)cg_temp(cg, cg_ctype_at(cg, v->dtype, cg_span(cg, v)), value);
        ir_ptrmap_put(&cg->vec_temps, e, name);
    }
    return text_var(cg, v->dtype, (const char *)name);
}

static IrExpr *load_lane(Cg *cg, const IrExpr *e, int k)
{
    const IrExpr *buffer = e->u.access.buffer, *index = e->u.access.indices[0];
    if (index->dtype.lanes == 1 || contiguous_base(buffer, index)) {
        const char *t = held(cg, e);
        return text_var(cg, scalar_of(e->dtype), cg_lane_of(cg, t, e->dtype, k));
    }
    IrExpr *c = copy_node(cg, e);
    c->u.access.indices = TX_NEW_ARRAY(&cg->arena, IrExpr *, 1);
    c->u.access.indices[0] = lane(cg, index, k);
    return c;
}

/* A vector that is one C value (a variable, a reinterpret): its member. */
static IrExpr *whole_lane(Cg *cg, const IrExpr *e, int k)
{
    const char *t = e->kind == IR_E_VAR ? cg_name(cg, e) : held(cg, e);
    return text_var(cg, scalar_of(e->dtype), cg_lane_of(cg, t, e->dtype, k));
}

/* Lane k of T.Shuffle(vectors, indices): the indices-th lane of the
 * vectors' concatenation. */
static IrExpr *shuffle_lane(Cg *cg, const IrExpr *e, int k)
{
    int64_t at = e->u.shuffle.indices[k]->u.int_val;
    for (int i = 0; i < e->u.shuffle.nvectors; i++) {
        const IrExpr *v = e->u.shuffle.vectors[i];
        if (at < v->dtype.lanes)
            return lane(cg, v, (int)at);
        at -= v->dtype.lanes;
    }
    cg_error(cg, TX_E_CODEGEN, cg_span(cg, e), "T.Shuffle picks a lane past its vectors");
    return ir_int(&cg->arena, IR_INT32, 0, cg->span);
}

static bool is_reinterpret(const IrExpr *e)
{
    return e->kind == IR_E_CALL && e->u.call.op == IR_OP_REINTERPRET && !e->u.call.ptr_type;
}

static IrExpr *call_lane(Cg *cg, const IrExpr *e, int k)
{
    if (is_reinterpret(e))
        return whole_lane(cg, e, k);
    IrExpr *c = copy_node(cg, e);
    c->u.call.args = TX_NEW_ARRAY(&cg->arena, IrExpr *, e->u.call.nargs ? e->u.call.nargs : 1);
    for (int i = 0; i < e->u.call.nargs; i++)
        c->u.call.args[i] = lane(cg, e->u.call.args[i], k);
    return c;
}

/* Lane k of e as a scalar IR expression. */
static IrExpr *lane(Cg *cg, const IrExpr *e, int k)
{
    if (e->dtype.lanes <= 1)
        return (IrExpr *)e;
    IrExpr *c;
    switch (e->kind) {
    case IR_E_RAMP: return ramp_lane(cg, e, k);
    case IR_E_BROADCAST: return broadcast_lane(cg, e);
    case IR_E_LOAD: return load_lane(cg, e, k);
    case IR_E_CALL: return call_lane(cg, e, k);
    case IR_E_VAR: return whole_lane(cg, e, k);
    case IR_E_SHUFFLE: return shuffle_lane(cg, e, k);
    case IR_E_NOT:
    case IR_E_CAST:
    case IR_E_SELECT:
        c = copy_node(cg, e);
        c->u.op.a = lane(cg, e->u.op.a, k);
        if (e->kind == IR_E_SELECT) {
            c->u.op.b = lane(cg, e->u.op.b, k);
            c->u.op.cond = lane(cg, e->u.op.cond, k);
        }
        return c;
    default:
        if (IR_E_IS_BINARY(e->kind)) {
            c = copy_node(cg, e);
            c->u.op.a = lane(cg, e->u.op.a, k);
            c->u.op.b = lane(cg, e->u.op.b, k);
            return c;
        }
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e),
                 "this vector expression is not supported by the CUDA code generator");
        return ir_int(&cg->arena, IR_INT32, 0, cg->span);
    }
}

char *cg_vec_lane(Cg *cg, const IrExpr *e, int k)
{
    return cg_expr_str(cg, lane(cg, e, k), CG_PREC_NONE);
}

/* `{lane0, lane1, ...}` into a temporary of the vector type. */
static const char *gather(Cg *cg, const IrExpr *e)
{
    TxBuf init = {0};
    tx_buf_putc(&init, '{');
    for (int k = 0; k < e->dtype.lanes; k++)
        tx_buf_printf(&init, "%s%s", k ? ", " : "", cg_vec_lane(cg, e, k));
    tx_buf_putc(&init, '}');
    const char *t = cg_temp(cg, cg_ctype_at(cg, e->dtype, cg_span(cg, e)), init.data);
    tx_buf_free(&init);
    return t;
}

void cg_vec_value(Cg *cg, const IrExpr *e, TxBuf *b)
{
    uintptr_t name;
    if (ir_ptrmap_get(&cg->vec_temps, e, &name)) {
        tx_buf_puts(b, (const char *)name);
        return;
    }
    if (e->kind == IR_E_VAR) {
        tx_buf_puts(b, cg_name(cg, e));
        return;
    }
    if (is_reinterpret(e)) { /* the bits of a value of the same size */
        cg_call(cg, e, b);
        return;
    }
    if (e->kind == IR_E_LOAD && e->u.access.n == 1) {
        const IrExpr *buffer = e->u.access.buffer, *index = e->u.access.indices[0];
        const IrExpr *base = contiguous_base(buffer, index);
        if (index->dtype.lanes == 1) {
            cg_element(cg, buffer, index, b);
            return;
        }
        if (base) {
            tx_buf_putc(b, '*');
            vector_pointer(cg, buffer, base, e->dtype, b);
            return;
        }
    }
    tx_buf_puts(b, gather(cg, e));
}

void cg_vec_store(Cg *cg, const IrStmt *s)
{
    const IrExpr *buffer = s->u.store.buffer, *index = s->u.store.indices[0];
    const IrExpr *value = s->u.store.value, *base = contiguous_base(buffer, index);
    TxBuf line = {0};
    if (base && value->dtype.lanes == index->dtype.lanes) {
        char *v = cg_expr_str(cg, value, CG_PREC_NONE);
        tx_buf_putc(&line, '*');
        vector_pointer(cg, buffer, base, value->dtype, &line);
        cg_stmt_line(cg, "%s = %s;", line.data, v);
        tx_buf_free(&line);
        return;
    }
    for (int k = 0; k < index->dtype.lanes; k++) {
        line.len = 0;
        char *v = cg_vec_lane(cg, value, k);
        cg_element(cg, buffer, lane(cg, index, k), &line);
        if (k == 0)
            cg_stmt_line(cg, "%s = %s;", line.data, v);
        else
            cg_line(cg, "%s = %s;", line.data, v);
    }
    tx_buf_free(&line);
}
