/* Evaluation of integer expressions at a point: the reference for tests
 * (property tests of the simplifier, layout address checks) and the CLI.
 * Exact int64 arithmetic; casts wrap to their dtype. */
#include "internal.h"

typedef struct Env {
    const IrExpr *const *vars;
    const int64_t *vals;
    int n;
    const struct Env *outer; /* Let bindings chain onto the caller's */
} Env;

static bool eval(const IrExpr *e, const Env *env, int64_t *out);

static bool eval_var(const IrExpr *e, const Env *env, int64_t *out)
{
    for (; env; env = env->outer)
        for (int i = 0; i < env->n; i++)
            if (env->vars[i] == e)
                return *out = env->vals[i], true;
    return false;
}

static bool eval_call(const IrExpr *e, const Env *env, int64_t *out)
{
    const IrCall *k = &e->u.call;
    int64_t u, v, cond;
    if (ar_is_bitwise(k->op) && k->nargs == 2) {
        if (!eval(k->args[0], env, &u) || !eval(k->args[1], env, &v))
            return false;
        return *out = ar_bit_fold(e->dtype, k->op, u, v), true;
    }
    switch (k->op) {
    case IR_OP_BITWISE_NOT:
        return k->nargs == 1 && eval(k->args[0], env, &u) && (*out = ~u, true);
    case IR_OP_IF_THEN_ELSE:
        return k->nargs == 3 && eval(k->args[0], env, &cond) &&
               eval(k->args[cond ? 1 : 2], env, out);
    default:
        return false;
    }
}

static bool eval_let(const IrExpr *e, const Env *env, int64_t *out)
{
    int64_t v;
    if (!eval(e->u.op.a, env, &v))
        return false;
    const IrExpr *var = e->u.op.var;
    Env inner = {&var, &v, 1, env};
    return eval(e->u.op.b, &inner, out);
}

static bool eval(const IrExpr *e, const Env *env, int64_t *out)
{
    int64_t u = 0, v = 0;
    if (ar_const_int(e, out))
        return true;
    if (IR_E_IS_BINARY(e->kind))
        return eval(e->u.op.a, env, &u) && eval(e->u.op.b, env, &v) &&
               ar_eval_typed(e->u.op.a->dtype, e->kind, u, v, out);
    switch (e->kind) {
    case IR_E_VAR: return eval_var(e, env, out);
    case IR_E_NOT: return eval(e->u.op.a, env, &u) && (*out = !u, true);
    case IR_E_CAST:
        return eval(e->u.op.a, env, &u) && (*out = ar_wrap_int(e->dtype, u), true);
    case IR_E_SELECT:
        return eval(e->u.op.cond, env, &u) && eval(u ? e->u.op.a : e->u.op.b, env, out);
    case IR_E_LET: return eval_let(e, env, out);
    case IR_E_CALL: return eval_call(e, env, out);
    default: return false;
    }
}

bool ar_eval(const IrExpr *e, const IrExpr *const *vars, const int64_t *vals, int nvars,
             int64_t *out)
{
    Env env = {vars, vals, nvars, NULL};
    return e && eval(e, &env, out);
}
