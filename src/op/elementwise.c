/* What each elementwise tile primitive computes for one element, shared by
 * its variants (cuda/elem_mem.c, cuda/elem_reg.c): the operand layout of
 * each op (which arguments are sources, which may be scalars) and the value
 * expression, as the reference defines them:
 *   zero -> 0; fill(dst, v) -> v; cast -> the source converted to dst's dtype;
 *   add, sub, mul, fdiv, maximum, minimum (dst, a, b), either source a scalar;
 *   fma(dst, a, b, c) -> a * b + c;
 *   exp, exp2, log2, sqrt (dst, src[, bias[, scale]]) -> f(src * scale + bias), a bias of
 *   None meaning none;
 *   reciprocal -> 1 / src; silu -> src / (1 + exp(-src)). */
#include <string.h>

#include "elementwise.h"

typedef enum { EW_NULLARY, EW_UNARY, EW_BINARY, EW_TERNARY } EwArity;

static const struct {
    const char *op;
    EwArity arity;
    int max_args; /* including dst */
} ew_ops[] = {
    {"zero", EW_NULLARY, 2}, {"fill", EW_UNARY, 2},       {"cast", EW_UNARY, 2},
    {"add", EW_BINARY, 3},   {"sub", EW_BINARY, 3},       {"mul", EW_BINARY, 3},
    {"fdiv", EW_BINARY, 3},  {"maximum", EW_BINARY, 3},   {"minimum", EW_BINARY, 3},
    {"fma", EW_TERNARY, 4},  {"exp", EW_UNARY, 4},        {"exp2", EW_UNARY, 4},
    {"log2", EW_UNARY, 4},   {"sqrt", EW_UNARY, 4},       {"reciprocal", EW_UNARY, 2},
    {"silu", EW_UNARY, 2},
};

static int find_op(const char *op)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(ew_ops); i++)
        if (!strcmp(ew_ops[i].op, op))
            return (int)i;
    return -1;
}

const char *op_ew_operands(OpCtx *c, OpRegion *dst, OpRegion *src, bool *is_region, int *nsrc)
{
    int k = find_op(c->call->u.tile.op);
    if (k < 0)
        return op_reason(c, "'%s' is not an elementwise primitive", c->call->u.tile.op);
    int n = op_nargs(c);
    if (n < 1 || n > ew_ops[k].max_args)
        return op_reason(c, "'%s' takes at most %d arguments", ew_ops[k].op, ew_ops[k].max_args);
    const char *why = op_region(c, 0, dst);
    if (why)
        return why;
    *nsrc = 0;
    for (int i = 1; i < n; i++) {
        IrExpr *a = op_arg(c, i);
        is_region[i - 1] = a->kind == IR_E_REGION;
        if (a->kind == IR_E_NONE && ew_ops[k].arity == EW_UNARY && i >= 2) {
            (*nsrc)++; /* the bias of exp(dst, src, None, scale) */
            continue;
        }
        if (is_region[i - 1]) {
            if ((why = op_region(c, i, &src[i - 1])))
                return why;
            if (!op_regions_match(dst, &src[i - 1]))
                return op_reason(c, "the extents of '%s' and '%s' differ", dst->buffer->u.var.name,
                                 src[i - 1].buffer->u.var.name);
        } else if (a->dtype.code == IR_DT_VOID || a->dtype.lanes != 1) {
            return op_reason(c, "argument %d is neither a region nor a scalar", i + 1);
        }
        (*nsrc)++;
    }
    int need = ew_ops[k].arity == EW_NULLARY ? 0 : ew_ops[k].arity == EW_UNARY ? 1
               : ew_ops[k].arity == EW_BINARY ? 2 : 3;
    if (*nsrc < need)
        return op_reason(c, "'%s' needs %d source operand%s", ew_ops[k].op, need, need == 1 ? "" : "s");
    return NULL;
}

IrExpr *op_ew_scalar(const OpCtx *c, int i)
{
    IrExpr *a = op_arg(c, i + 1);
    return a->kind == IR_E_NONE ? NULL : a;
}

void op_ew_load_sources(OpCtx *c, const OpRegion *src, const bool *is_region, int n,
                        IrExpr *const *idx, IrExpr **v)
{
    for (int i = 0; i < n; i++) {
        if (!is_region[i]) {
            v[i] = op_ew_scalar(c, i);
            continue;
        }
        IrExpr **sidx = TX_NEW_ARRAY(c->arena, IrExpr *, src[i].ndim);
        op_region_index(c, &src[i], idx, sidx);
        v[i] = op_load(c, src[i].buffer, sidx, src[i].ndim);
    }
}

static IrExpr *unary_call(OpCtx *c, IrOp op, IrExpr *x) { return op_call(c, op, x->dtype, &x, 1); }

IrExpr *op_ew_value(OpCtx *c, IrDType dst, IrExpr **v, int n)
{
    const char *op = c->call->u.tile.op;
    if (!strcmp(op, "zero"))
        return op_cast(c, dst, op_i32(c, 0));
    if (!strcmp(op, "fill") || !strcmp(op, "cast"))
        return op_cast(c, dst, v[0]);
    static const struct {
        const char *op;
        IrExprKind k;
    } binary[] = {{"add", IR_E_ADD}, {"sub", IR_E_SUB}, {"mul", IR_E_MUL},
                  {"fdiv", IR_E_DIV}, {"maximum", IR_E_MAX}, {"minimum", IR_E_MIN}};
    for (size_t i = 0; i < TX_ARRAY_LEN(binary); i++)
        if (!strcmp(op, binary[i].op))
            return op_bin(c, binary[i].k, v[0], v[1]);
    if (!strcmp(op, "fma")) {
        IrExpr *a[3] = {v[0], v[1], v[2]};
        return op_call(c, IR_OP_FMA, v[0]->dtype, a, 3);
    }
    IrExpr *x = v[0];
    if (!strcmp(op, "reciprocal"))
        return op_bin(c, IR_E_DIV, op_cast(c, x->dtype, op_i32(c, 1)), x);
    if (!strcmp(op, "silu")) {
        IrExpr *one = op_cast(c, x->dtype, op_i32(c, 1));
        IrExpr *e = unary_call(c, IR_OP_EXP, op_bin(c, IR_E_SUB, op_cast(c, x->dtype, op_i32(c, 0)), x));
        return op_bin(c, IR_E_DIV, x, op_bin(c, IR_E_ADD, one, e));
    }
    if (n > 2 && v[2])
        x = op_bin(c, IR_E_MUL, x, v[2]);
    if (n > 1 && v[1])
        x = op_bin(c, IR_E_ADD, x, v[1]);
    IrOp f = !strcmp(op, "exp") ? IR_OP_EXP : !strcmp(op, "exp2") ? IR_OP_EXP2
             : !strcmp(op, "log2") ? IR_OP_LOG2 : IR_OP_SQRT;
    return unary_call(c, f, x);
}
