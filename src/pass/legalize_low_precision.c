/* LegalizeLowPrecision: arithmetic on 16- and 8-bit floats (float16,
 * bfloat16, the float8 kinds) is computed in float32, as the prelude's
 * storage types expect: `a + b` of bfloat16 becomes
 * `bfloat16(float32(a) + float32(b))`, a comparison compares the float32
 * values, a math call runs on float32 (vector lanes kept). Loads, stores,
 * casts and calls that move bits (PTX, T.cuda helpers) are left as they
 * are. (reference: layout_passes.md §3.1 BF16ComputeLegalize and
 * FP8ComputeLegalize; tirx also widens float16 because its half type has no
 * arithmetic) */
#include "internal.h"

static bool is_narrow_float(IrDType t)
{
    return ir_dtype_is_float(t) && t.bits < 32;
}

static IrExpr *widen(TxArena *a, IrExpr *x)
{
    IrExpr *c = ir_node(a, IR_E_CAST, ir_dtype_with_lanes(IR_FLOAT32, x->dtype.lanes), x->span);
    c->u.op.a = x;
    return c;
}

static IrExpr *narrow(TxArena *a, IrDType t, IrExpr *x)
{
    IrExpr *c = ir_node(a, IR_E_CAST, t, x->span);
    c->u.op.a = x;
    return c;
}

static bool is_math_call(const IrExpr *e)
{
    return e->kind == IR_E_CALL && e->u.call.op <= IR_OP_FMA &&
           ir_ops[e->u.call.op].ret == IR_RET_ARG0;
}

static IrExpr *legalize_hook(IrMutator *mu, IrExpr *e)
{
    bool arith = IR_E_IS_BINARY(e->kind) && e->kind != IR_E_AND && e->kind != IR_E_OR;
    if (!(arith || is_math_call(e)))
        return NULL;
    IrExpr *operand = arith ? e->u.op.a : (e->u.call.nargs ? e->u.call.args[0] : NULL);
    if (!operand || !is_narrow_float(operand->dtype))
        return NULL;
    TxArena *a = mu->arena;
    IrExpr *n = ir_expr_copy(a, e);
    if (arith) {
        n->u.op.a = widen(a, ir_mutate_expr(mu, e->u.op.a));
        n->u.op.b = widen(a, ir_mutate_expr(mu, e->u.op.b));
    } else {
        n->u.call.args = TX_NEW_ARRAY(a, IrExpr *, e->u.call.nargs);
        for (int i = 0; i < e->u.call.nargs; i++)
            n->u.call.args[i] = widen(a, ir_mutate_expr(mu, e->u.call.args[i]));
    }
    if (e->kind >= IR_E_EQ && e->kind <= IR_E_GE)
        return n; /* bool result */
    n->dtype = ir_dtype_with_lanes(IR_FLOAT32, e->dtype.lanes);
    return narrow(a, e->dtype, n);
}

bool ps_legalize_low_precision(PsCtx *ctx, IrModule *m)
{
    (void)ctx;
    for (int i = 0; i < m->nfuncs; i++) {
        if (!m->funcs[i]->body)
            continue;
        IrMutator mu = {.arena = &m->arena, .expr = legalize_hook};
        m->funcs[i] = ps_func_with_body(&m->arena, m->funcs[i],
                                        ir_mutate_stmt(&mu, m->funcs[i]->body));
        ir_mutator_free(&mu);
    }
    return true;
}
