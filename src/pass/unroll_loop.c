/* UnrollLoop: a `T.unroll` loop with a constant extent becomes its body
 * repeated with the loop variable replaced by min + k*step (each copy's own
 * definitions get fresh identities); extent 0 leaves nothing. Loops whose
 * unrolled form would exceed MAX_UNROLLED statements, loops with a
 * non-constant extent, and loops with a break or continue of their own
 * stay `unroll` loops for the CUDA compiler
 * (`#pragma unroll`). Nested unroll loops unroll inside out.
 * (reference: layout_passes.md §3.6, explicit_unroll) */
#include "internal.h"

#define MAX_UNROLLED 1024

static bool count_stmt(IrVisitor *v, const IrStmt *s)
{
    (void)s;
    ++*(int *)v->ctx;
    return true;
}

static int stmt_count(const IrStmt *s)
{
    int n = 0;
    IrVisitor v = {.ctx = &n, .stmt = count_stmt};
    ir_visit_stmt(&v, s);
    return n;
}

static IrStmt *unroll(IrMutator *mu, IrStmt *s, IrStmt *body, int64_t extent)
{
    TxArena *a = mu->arena;
    IrExpr *var = s->u.loop.var;
    IrStmt **copies = TX_NEW_ARRAY(a, IrStmt *, extent ? extent : 1);
    for (int64_t k = 0; k < extent; k++) {
        IrExpr *off = ps_int(a, var->dtype, k);
        if (s->u.loop.step)
            off = ps_arith(a, IR_E_MUL, off, s->u.loop.step);
        IrSubst sub = {var, ps_simplify_expr(a, ps_arith(a, IR_E_ADD, s->u.loop.min, off))};
        copies[k] = ir_substitute_stmt(a, body, &sub, 1, true);
    }
    return extent ? ps_seq2(a, ir_seq(a, copies, (int)extent, s->span), NULL) : ps_empty(a);
}

static IrStmt *unroll_hook(IrMutator *mu, IrStmt *s)
{
    if (s->kind != IR_S_FOR || s->u.loop.kind != IR_FOR_UNROLLED)
        return NULL;
    IrStmt *body = ir_mutate_stmt(mu, s->u.loop.body);
    int64_t extent;
    if (ps_const_int(s->u.loop.extent, &extent) && extent >= 0 &&
        extent * stmt_count(body) <= MAX_UNROLLED && !ps_body_jumps(body))
        return unroll(mu, s, body, extent);
    if (body == s->u.loop.body)
        return s;
    IrStmt *n = ir_stmt_copy(mu->arena, s);
    n->u.loop.body = body;
    return n;
}

bool ps_unroll_loop(PsCtx *ctx, IrModule *m)
{
    (void)ctx;
    for (int i = 0; i < m->nfuncs; i++) {
        if (!m->funcs[i]->body)
            continue;
        IrMutator mu = {.arena = &m->arena, .stmt = unroll_hook};
        m->funcs[i] = ps_func_with_body(&m->arena, m->funcs[i], ir_mutate_stmt(&mu, m->funcs[i]->body));
        ir_mutator_free(&mu);
    }
    return true;
}
