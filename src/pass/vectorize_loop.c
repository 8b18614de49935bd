/* VectorizeLoop: a `T.vectorized` loop of constant extent L and min 0 whose
 * body is stores becomes one vector statement per store: the loop variable
 * is the Ramp(0, 1, L), scalars broadcast, and every access it touches must
 * be contiguous (a Ramp of stride 1 over a flat buffer) with a base that is
 * provably a multiple of L, so that the access is one aligned vector load or
 * store (the codegen contract: vector accesses are aligned; L elements make
 * 2, 4, 8 or 16 bytes). Anything else -- control flow, a non-contiguous or
 * unaligned access, a store every lane would write -- leaves a serial loop.
 * (reference: layout_passes.md §3.6) */
#include "internal.h"

#include "../arith/arith.h"

typedef struct Vec {
    TxArena *a;
    const IrExpr *var;
    int lanes;
    bool failed;
} Vec;

static IrExpr *vec(Vec *v, IrExpr *e);

static IrExpr *broadcast(Vec *v, IrExpr *e)
{
    if (e->dtype.lanes == v->lanes)
        return e;
    IrExpr *b = ir_node(v->a, IR_E_BROADCAST, ir_dtype_with_lanes(e->dtype, v->lanes), e->span);
    b->u.op.a = e, b->u.op.lanes = v->lanes;
    return b;
}

static IrExpr *ramp(Vec *v, IrExpr *base, IrExpr *stride)
{
    IrExpr *r = ir_node(v->a, IR_E_RAMP, ir_dtype_with_lanes(base->dtype, v->lanes), base->span);
    r->u.op.a = base, r->u.op.b = stride, r->u.op.lanes = v->lanes;
    return r;
}

static bool is_vector(const IrExpr *e) { return e->dtype.lanes > 1; }

/* A cast from integer type `from` to `to` that keeps every value. */
static bool widens_int(IrDType from, IrDType to)
{
    return from.code == IR_DT_INT && to.code == IR_DT_INT && to.bits >= from.bits;
}

/* Ramp arithmetic of index expressions: ramp +- scalar, ramp * scalar, ramp +- ramp. */
static IrExpr *index_binary(Vec *v, const IrExpr *e, IrExpr *x, IrExpr *y)
{
    IrExprKind k = e->kind;
    bool xr = x->kind == IR_E_RAMP, yr = y->kind == IR_E_RAMP;
    if (k == IR_E_MUL && xr != yr) {
        IrExpr *r = xr ? x : y, *c = xr ? y : x;
        return ramp(v, ps_arith(v->a, k, r->u.op.a, c), ps_arith(v->a, k, r->u.op.b, c));
    }
    if (k == IR_E_ADD || (k == IR_E_SUB && xr)) {
        IrExpr *xb = xr ? x->u.op.a : x, *yb = yr ? y->u.op.a : y;
        IrExpr *xs = xr ? x->u.op.b : ps_int(v->a, x->dtype, 0);
        IrExpr *ys = yr ? y->u.op.b : ps_int(v->a, y->dtype, 0);
        return ramp(v, ps_arith(v->a, k, xb, yb), ps_arith(v->a, k, xs, ys));
    }
    v->failed = true;
    return x;
}

static IrExpr *binary(Vec *v, IrExpr *e)
{
    IrExpr *x = vec(v, e->u.op.a), *y = vec(v, e->u.op.b);
    if (!is_vector(x) && !is_vector(y))
        return x == e->u.op.a && y == e->u.op.b ? e : ir_binary(v->a, e->kind, x, y, e->span);
    if (ir_dtype_is_int(e->dtype) && (x->kind == IR_E_RAMP || y->kind == IR_E_RAMP))
        return index_binary(v, e, x, y);
    return ir_binary(v->a, e->kind, broadcast(v, x), broadcast(v, y), e->span);
}

/* A contiguous, aligned vector index: Ramp(base, 1) with base % lanes == 0. */
static bool aligned_contiguous(Vec *v, const IrExpr *buffer, IrExpr *index)
{
    int64_t stride;
    const IrBufferType *b = ir_buf(buffer);
    int bytes = buffer->u.var.type->dtype.bits / 8 * v->lanes;
    return index->kind == IR_E_RAMP && ps_const_int(index->u.op.b, &stride) && stride == 1 &&
           b->ndim == 1 && (bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16) &&
           b->align >= bytes && ar_divisible(index->u.op.a, ps_int(v->a, index->u.op.a->dtype,
                                                                   v->lanes));
}

static IrExpr *load(Vec *v, IrExpr *e)
{
    if (e->u.access.n != 1) {
        v->failed = true;
        return e;
    }
    IrExpr *index = vec(v, e->u.access.indices[0]);
    if (index == e->u.access.indices[0])
        return e;
    if (is_vector(index) && !aligned_contiguous(v, e->u.access.buffer, index)) {
        v->failed = true;
        return e;
    }
    IrExpr *n = ir_expr_copy(v->a, e);
    if (is_vector(index))
        n->dtype = ir_dtype_with_lanes(e->dtype, v->lanes);
    n->u.access.indices = TX_NEW_ARRAY(v->a, IrExpr *, 1);
    n->u.access.indices[0] = index;
    return n;
}

static IrExpr *call(Vec *v, IrExpr *e)
{
    const IrCall *c = &e->u.call;
    IrExpr **args = TX_NEW_ARRAY(v->a, IrExpr *, c->nargs ? c->nargs : 1);
    bool any = false;
    for (int i = 0; i < c->nargs; i++)
        any |= is_vector(args[i] = vec(v, c->args[i]));
    if (!any)
        return e;
    if (c->op > IR_OP_FMA || ir_ops[c->op].ret != IR_RET_ARG0) {
        v->failed = true; /* only elementwise math takes vectors */
        return e;
    }
    for (int i = 0; i < c->nargs; i++)
        args[i] = broadcast(v, args[i]);
    return ps_call(v->a, c->op, ir_dtype_with_lanes(e->dtype, v->lanes), args, c->nargs);
}

static IrExpr *vec(Vec *v, IrExpr *e)
{
    if (v->failed)
        return e;
    if (e == v->var)
        return ramp(v, ps_int(v->a, e->dtype, 0), ps_int(v->a, e->dtype, 1));
    if (IR_E_IS_BINARY(e->kind))
        return binary(v, e);
    switch (e->kind) {
    case IR_E_INT: case IR_E_FLOAT: case IR_E_VAR: case IR_E_STR:
        return e;
    case IR_E_CAST: {
        IrExpr *x = vec(v, e->u.op.a);
        if (!is_vector(x))
            return x == e->u.op.a ? e : ps_cast(v->a, e->dtype, x);
        if (x->kind == IR_E_RAMP && widens_int(x->dtype, e->dtype)) /* an index made int64 */
            return ramp(v, ps_cast(v->a, e->dtype, x->u.op.a), ps_cast(v->a, e->dtype, x->u.op.b));
        IrExpr *n = ir_node(v->a, IR_E_CAST, ir_dtype_with_lanes(e->dtype, v->lanes), e->span);
        n->u.op.a = x;
        return n;
    }
    case IR_E_LOAD: return load(v, e);
    case IR_E_CALL: return call(v, e);
    default:
        v->failed = true;
        return e;
    }
}

static IrStmt *vec_store(Vec *v, IrStmt *s)
{
    if (s->kind != IR_S_STORE || s->u.store.n != 1 || s->u.store.predicate) {
        v->failed = true;
        return s;
    }
    IrExpr *index = vec(v, s->u.store.indices[0]);
    IrExpr *value = vec(v, s->u.store.value);
    if (v->failed || !is_vector(index) || !aligned_contiguous(v, s->u.store.buffer, index)) {
        v->failed = true;
        return s;
    }
    IrStmt *n = ir_stmt_copy(v->a, s);
    n->u.store.indices = TX_NEW_ARRAY(v->a, IrExpr *, 1);
    n->u.store.indices[0] = index;
    n->u.store.value = broadcast(v, value);
    return n;
}

static IrStmt *vec_body(Vec *v, IrStmt *body)
{
    if (body->kind != IR_S_SEQ)
        return vec_store(v, body);
    IrStmt **out = TX_NEW_ARRAY(v->a, IrStmt *, body->u.seq.n ? body->u.seq.n : 1);
    for (int i = 0; i < body->u.seq.n && !v->failed; i++)
        out[i] = vec_store(v, body->u.seq.stmts[i]);
    return ir_seq(v->a, out, body->u.seq.n, body->span);
}

static IrStmt *serial(TxArena *a, IrStmt *s, IrStmt *body)
{
    IrStmt *n = ir_stmt_copy(a, s);
    n->u.loop.kind = IR_FOR_SERIAL;
    n->u.loop.body = body;
    return n;
}

static IrStmt *vectorize_hook(IrMutator *mu, IrStmt *s)
{
    if (s->kind != IR_S_FOR || s->u.loop.kind != IR_FOR_VECTORIZED)
        return NULL;
    IrStmt *body = ir_mutate_stmt(mu, s->u.loop.body);
    int64_t min, extent;
    bool plain = ps_const_int(s->u.loop.min, &min) && min == 0 && !s->u.loop.step &&
                 ps_const_int(s->u.loop.extent, &extent) && extent >= 2 && extent <= 16;
    if (!plain)
        return serial(mu->arena, s, body);
    Vec v = {.a = mu->arena, .var = s->u.loop.var, .lanes = (int)extent};
    IrStmt *vector = vec_body(&v, body);
    return v.failed ? serial(mu->arena, s, body) : vector;
}

bool ps_vectorize_loop(PsCtx *ctx, IrModule *m)
{
    (void)ctx;
    for (int i = 0; i < m->nfuncs; i++) {
        if (!m->funcs[i]->body)
            continue;
        IrMutator mu = {.arena = &m->arena, .stmt = vectorize_hook};
        m->funcs[i] = ps_func_with_body(&m->arena, m->funcs[i],
                                        ir_mutate_stmt(&mu, m->funcs[i]->body));
        ir_mutator_free(&mu);
    }
    return true;
}
