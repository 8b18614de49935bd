/* Simplify: every expression of every statement goes through
 * ps_simplify_expr; an `if` with a constant condition keeps its live branch.
 * Buffer definitions (shape, strides, elem_offset, layout) are left as they
 * are, so buffer identities stay stable (the reference's StmtSimplify).
 *
 * ps_simplify_expr is the passes' one entry to simplification: constant
 * folding and the algebraic identities of the reference's TryConstFold,
 * bottom-up, until src/arith takes its place. */
#include "internal.h"

#include "../arith/arith.h"

static bool is_foldable(IrExprKind k)
{
    return IR_E_IS_BINARY(k) || k == IR_E_NOT || k == IR_E_CAST || k == IR_E_SELECT;
}

/* One node whose children are already simplified. */
static IrExpr *fold_node(TxArena *a, IrExpr *e)
{
    if (IR_E_IS_BINARY(e->kind)) {
        const char *err = NULL;
        IrExpr *r = ar_fold_binary(a, e->kind, e->u.op.a, e->u.op.b, &err);
        return r ? r : e;
    }
    int64_t v;
    switch (e->kind) {
    case IR_E_CAST:
        if (e->u.op.a->kind == IR_E_INT || e->u.op.a->kind == IR_E_FLOAT ||
            ir_dtype_eq(e->u.op.a->dtype, e->dtype))
            return ar_cast(a, e->dtype, e->u.op.a, e->span);
        return e;
    case IR_E_NOT:
        return ar_const_int(e->u.op.a, &v) ? ir_int(a, IR_BOOL, !v, e->span) : e;
    case IR_E_SELECT:
        if (ar_const_int(e->u.op.cond, &v))
            return v ? e->u.op.a : e->u.op.b;
        return e;
    default:
        return e;
    }
}

static IrExpr *simplify_hook(IrMutator *m, IrExpr *e)
{
    if (!is_foldable(e->kind))
        return NULL;
    IrExpr *n = e;
    IrExpr *a = ir_mutate_expr(m, e->u.op.a), *b = ir_mutate_expr(m, e->u.op.b),
           *c = ir_mutate_expr(m, e->u.op.cond);
    if (a != e->u.op.a || b != e->u.op.b || c != e->u.op.cond) {
        n = tx_arena_memdup(m->arena, e, sizeof *e);
        n->u.op.a = a, n->u.op.b = b, n->u.op.cond = c;
    }
    return fold_node(m->arena, n);
}

IrExpr *ps_simplify_expr(TxArena *a, IrExpr *e)
{
    IrMutator m = {.arena = a, .expr = simplify_hook};
    IrExpr *r = ir_mutate_expr(&m, e);
    ir_mutator_free(&m);
    return r;
}

/* ---------------------------------------------------------------- the pass */

static IrStmt *simplify_if(IrMutator *m, IrStmt *s)
{
    IrExpr *cond = ir_mutate_expr(m, s->u.ifs.cond);
    int64_t v;
    if (ar_const_int(cond, &v)) {
        IrStmt *live = v ? s->u.ifs.then_s : s->u.ifs.else_s;
        return live ? ir_mutate_stmt(m, live) : ps_empty(m->arena);
    }
    IrStmt *n = tx_arena_memdup(m->arena, s, sizeof *s);
    n->u.ifs.cond = cond;
    n->u.ifs.then_s = ir_mutate_stmt(m, s->u.ifs.then_s);
    n->u.ifs.else_s = s->u.ifs.else_s ? ir_mutate_stmt(m, s->u.ifs.else_s) : NULL;
    return n;
}

static IrStmt *simplify_stmt_hook(IrMutator *m, IrStmt *s)
{
    switch (s->kind) {
    case IR_S_IF:
        return simplify_if(m, s);
    case IR_S_ALLOC:
        return s;
    case IR_S_DECL: {
        IrExpr *data = ir_mutate_expr(m, s->u.decl.data);
        if (data == s->u.decl.data)
            return s;
        return ps_decl(m->arena, s->u.decl.buffer, data, s->span);
    }
    default:
        return NULL;
    }
}

bool ps_simplify(PsCtx *ctx, IrModule *m)
{
    (void)ctx;
    for (int i = 0; i < m->nfuncs; i++) {
        IrMutator mu = {.arena = &m->arena, .expr = simplify_hook, .stmt = simplify_stmt_hook};
        IrFunc *f = m->funcs[i];
        IrStmt *body = f->body ? ir_mutate_stmt(&mu, f->body) : NULL;
        m->funcs[i] = ps_func_with_body(&m->arena, f, body);
        ir_mutator_free(&mu);
    }
    return true;
}
