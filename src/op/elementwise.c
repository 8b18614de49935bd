/* What each elementwise tile primitive computes for one element, shared by
 * its variants (cuda/elem_mem.c, cuda/elem_reg.c): the operand layout of
 * each op (which arguments are sources, which may be scalars) and the value
 * expression, as the reference defines them:
 *   zero -> 0; fill(dst, v) -> v; cast -> the source converted to dst's dtype;
 *   add, sub, mul, fdiv, maximum, minimum (dst, a, b), either source a scalar;
 *   fma(dst, a, b, c) -> a * b + c;
 *   exp, exp2, log2, sqrt (dst, src[, bias[, scale]]) -> f(src * scale + bias), a bias of
 *   None meaning none;
 *   reciprocal -> 1 / src; silu -> src / (1 + exp(-src)).
 * Each op's rule is a row of ew_rules, indexed by the tile op. */
#include <stdio.h>
#include <string.h>

#include "elementwise.h"
#include "../arith/arith.h"
#include "../ir/visit.h"

/* How an element of dst is computed from the sources' values v[], per op of
 * the elementwise family; an op without a rule (memset, select) has no
 * lowering here. The number of sources is the op's arity (tile_ops.def). */
typedef enum {
    EW_NONE,
    EW_ZERO,       /* 0 in dst's dtype */
    EW_CONVERT,    /* v[0] converted to dst's dtype */
    EW_BINARY,     /* v[0] (what) v[1], what an IrExprKind */
    EW_CALL,       /* what(v[0], v[1], ...), what an IrOp */
    EW_MATH,       /* what(v[0] * scale + bias), what an IrOp; bias and scale optional */
    EW_RECIPROCAL, /* 1 / v[0] */
    EW_SILU,       /* v[0] / (1 + exp(-v[0])) */
} EwRule;

static const struct {
    EwRule rule;
    int what;
} ew_rules[IR_TILE_COUNT] = {
    [IR_TILE_ZERO] = {EW_ZERO, 0},
    [IR_TILE_FILL] = {EW_CONVERT, 0},
    [IR_TILE_CAST] = {EW_CONVERT, 0},
    [IR_TILE_ADD] = {EW_BINARY, IR_E_ADD},
    [IR_TILE_SUB] = {EW_BINARY, IR_E_SUB},
    [IR_TILE_MUL] = {EW_BINARY, IR_E_MUL},
    [IR_TILE_FDIV] = {EW_BINARY, IR_E_DIV},
    [IR_TILE_MAXIMUM] = {EW_BINARY, IR_E_MAX},
    [IR_TILE_MINIMUM] = {EW_BINARY, IR_E_MIN},
    [IR_TILE_FMA] = {EW_CALL, IR_OP_FMA},
    [IR_TILE_EXP] = {EW_MATH, IR_OP_EXP},
    [IR_TILE_EXP2] = {EW_MATH, IR_OP_EXP2},
    [IR_TILE_LOG2] = {EW_MATH, IR_OP_LOG2},
    [IR_TILE_SQRT] = {EW_MATH, IR_OP_SQRT},
    [IR_TILE_RECIPROCAL] = {EW_RECIPROCAL, 0},
    [IR_TILE_SILU] = {EW_SILU, 0},
};

static IrExpr *ew_value(OpCtx *c, IrDType dst, IrExpr **v, int n, const char **err);

const char *op_ew_operands(OpCtx *c, OpRegion *dst, OpRegion *src, bool *is_region, int *nsrc)
{
    IrTileOp op = c->call->u.tile.op;
    const IrTileOpInfo *info = &ir_tile_ops[op];
    if (!ew_rules[op].rule)
        return op_reason(c, "'%s' has no elementwise lowering", info->name);
    int n = op_nargs(c), max = ir_tile_op_nparams(op);
    if (n < 1 || n > max)
        return op_reason(c, "'%s' takes at most %d arguments", info->name, max);
    const char *why = op_region(c, 0, dst);
    if (why)
        return why;
    *nsrc = 0;
    for (int i = 1; i < n; i++) {
        IrExpr *a = op_arg(c, i);
        is_region[i - 1] = a->kind == IR_E_REGION;
        if (a->kind == IR_E_NONE && i > info->arity) {
            (*nsrc)++; /* an optional operand left out: the bias of exp(dst, src, None, scale) */
            continue;
        }
        if (is_region[i - 1]) {
            if ((why = op_region(c, i, &src[i - 1])))
                return why;
            if (!op_regions_match(dst, &src[i - 1]))
                return op_reason(c, "the extents of '%s' and '%s' differ", dst->buffer->u.var.name,
                                 src[i - 1].buffer->u.var.name);
        } else if (a->dtype.lanes != 1 ||
                   !(ir_dtype_is_int(a->dtype) || ir_dtype_is_float(a->dtype))) {
            /* a string or handle (Tx.cta.exp(A, B, "x")) is not a number */
            return op_reason(c, "argument %d is neither a region nor a scalar", i + 1);
        }
        (*nsrc)++;
    }
    int need = info->arity;
    if (*nsrc < need)
        return op_reason(c, "'%s' needs %d source operand%s", info->name, need,
                         need == 1 ? "" : "s");
    /* the value of one element, the regions' elements as loads at their
     * starts: the scalars must combine with them as the lowering will */
    IrExpr *v[OP_EW_MAX_SRC];
    for (int i = 0; i < *nsrc; i++)
        v[i] = is_region[i] ? op_load(c, src[i].buffer, src[i].start, src[i].ndim) : op_ew_scalar(c, i);
    const char *err = NULL;
    if (!ew_value(c, dst->dtype, v, *nsrc, &err)) {
        char list[OP_EW_MAX_SRC * (IR_DTYPE_STR_MAX + 10)] = "", t[IR_DTYPE_STR_MAX];
        for (int i = 0; i < *nsrc; i++)
            if (v[i])
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s %s", *list ? ", " : "",
                         ir_dtype_str(v[i]->dtype, t), is_region[i] ? "region" : "scalar");
        return op_reason(c, "its sources (%s) do not combine: %s", list, err ? err : "a source is missing");
    }
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

/* x (k) y by the parser's rules (ar_binary); NULL with *err when they refuse
 * it (dtypes they do not mix, a constant zero divisor) or an operand is NULL. */
static IrExpr *bin(OpCtx *c, IrExprKind k, IrExpr *x, IrExpr *y, const char **err)
{
    return x && y ? ar_binary(c->arena, k, x, y, c->call->span, err) : NULL;
}

/* op_ew_value, or NULL with *err saying why the operands do not combine. */
static IrExpr *ew_value(OpCtx *c, IrDType dst, IrExpr **v, int n, const char **err)
{
    IrTileOp op = c->call->u.tile.op;
    int what = ew_rules[op].what;
    IrExpr *x = n > 0 ? v[0] : NULL;
    switch (ew_rules[op].rule) {
    case EW_ZERO: return op_cast(c, dst, op_i32(c, 0));
    case EW_CONVERT: return op_cast(c, dst, x);
    case EW_BINARY: return bin(c, (IrExprKind)what, x, v[1], err);
    case EW_CALL: return op_call(c, (IrOp)what, x->dtype, v, ir_tile_ops[op].arity);
    case EW_MATH:
        if (n > 2 && v[2])
            x = bin(c, IR_E_MUL, x, v[2], err);
        if (n > 1 && v[1])
            x = bin(c, IR_E_ADD, x, v[1], err);
        return x ? op_call(c, (IrOp)what, x->dtype, &x, 1) : NULL;
    case EW_RECIPROCAL: return bin(c, IR_E_DIV, op_cast(c, x->dtype, op_i32(c, 1)), x, err);
    case EW_SILU: {
        IrExpr *one = op_cast(c, x->dtype, op_i32(c, 1));
        IrExpr *neg = bin(c, IR_E_SUB, op_cast(c, x->dtype, op_i32(c, 0)), x, err);
        IrExpr *e = neg ? op_call(c, IR_OP_EXP, x->dtype, &neg, 1) : NULL;
        return bin(c, IR_E_DIV, x, bin(c, IR_E_ADD, one, e, err), err);
    }
    case EW_NONE: break;
    }
    TX_UNREACHABLE(); /* op_ew_operands refused the op */
}

IrExpr *op_ew_value(OpCtx *c, IrDType dst, IrExpr **v, int n)
{
    const char *err = NULL;
    IrExpr *e = ew_value(c, dst, v, n, &err);
    if (!e)
        TX_UNREACHABLE(); /* op_ew_operands built the same value from the same operands */
    return e;
}

typedef struct ReadsCtx {
    const OpCtx *c;
    const IrExpr *root;
    bool hit;
} ReadsCtx;

static bool reads_visit(IrVisitor *v, const IrExpr *e)
{
    ReadsCtx *r = v->ctx;
    if (e->kind == IR_E_LOAD && op_storage_root(r->c, e->u.access.buffer) == r->root)
        r->hit = true;
    return !r->hit;
}

bool op_ew_scalar_reads(OpCtx *c, int i, const OpRegion *dst)
{
    IrExpr *x = op_ew_scalar(c, i);
    if (!x)
        return false;
    ReadsCtx r = {c, op_storage_root(c, dst->buffer), false};
    IrVisitor v = {.ctx = &r, .expr = reads_visit};
    ir_visit_expr(&v, x);
    return r.hit;
}

const char *op_ew_f32x2(OpCtx *c, const OpRegion *dst, const OpRegion *src, const bool *is_region,
                        int n)
{
    static const char *const spelling[IR_TILE_COUNT] = {
        [IR_TILE_ADD] = "add.rn.f32x2", [IR_TILE_SUB] = "sub.rn.f32x2",
        [IR_TILE_MUL] = "mul.rn.f32x2", [IR_TILE_FMA] = "fma.rn.f32x2"};
    const char *sp = spelling[c->call->u.tile.op];
    if (!sp || !ir_dtype_eq(dst->dtype, IR_FLOAT32) || !op_has_ptx(c, sp))
        return NULL;
    for (int i = 0; i < n; i++) {
        IrExpr *x = is_region[i] ? NULL : op_ew_scalar(c, i);
        if (is_region[i] ? !ir_dtype_eq(src[i].dtype, IR_FLOAT32)
                         : !x || !ir_dtype_eq(x->dtype, IR_FLOAT32) ||
                               op_ew_scalar_reads(c, i, dst))
            return NULL;
    }
    return sp;
}

void op_ew_f32x2_emit(OpCtx *c, OpSeq *s, const char *spelling, IrExpr *pk, IrExpr *const *d,
                      IrExpr *(*v)[2], int n)
{
    IrExpr *slot[OP_EW_MAX_SRC + 1] = {0}, *args[OP_EW_MAX_SRC + 1];
    for (int i = 0; i < n; i++) {
        IrExpr *k = op_i32(c, i);
        slot[i] = op_load(c, pk, &k, 1);
        IrExpr *mv[3] = {slot[i], v[i][0], v[i][1]};
        op_eval(c, s, op_ptx(c, "mov.b64", mv, 3));
    }
    args[0] = slot[0];
    for (int i = 0; i < n; i++)
        args[i + 1] = slot[i];
    op_eval(c, s, op_ptx(c, spelling, args, n + 1));
    IrExpr *out[3] = {d[0], d[1], slot[0]};
    op_eval(c, s, op_ptx(c, "mov.b64", out, 3));
}
