/* Text of layouts, shapes and index expressions for messages, in the TIRx
 * script spelling (reference/script_surface.md §6.2): T.TileLayout(T.S[...] +
 * T.R[...] + offsets), T.ComposeLayout(p, sw, at, tile). The script printer
 * owns the canonical printed form of modules; this is the layout library's own
 * view, used where a diagnostic names a layout or a shape. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Python operator precedence, loosest first. */
enum { P_OR = 1, P_AND, P_NOT, P_CMP, P_BOR, P_XOR, P_BAND, P_SHIFT, P_ADD, P_MUL, P_UNARY, P_ATOM };

static void expr(TxBuf *b, const IrExpr *e, int ctx);

static const char *binary_token(IrExprKind k, int *prec)
{
    switch (k) {
    case IR_E_ADD: *prec = P_ADD; return "+";
    case IR_E_SUB: *prec = P_ADD; return "-";
    case IR_E_MUL: *prec = P_MUL; return "*";
    case IR_E_FLOORDIV: *prec = P_MUL; return "//";
    case IR_E_FLOORMOD: *prec = P_MUL; return "%";
    case IR_E_EQ: *prec = P_CMP; return "==";
    case IR_E_NE: *prec = P_CMP; return "!=";
    case IR_E_LT: *prec = P_CMP; return "<";
    case IR_E_LE: *prec = P_CMP; return "<=";
    case IR_E_GT: *prec = P_CMP; return ">";
    case IR_E_GE: *prec = P_CMP; return ">=";
    case IR_E_AND: *prec = P_AND; return "and";
    case IR_E_OR: *prec = P_OR; return "or";
    default: return NULL;
    }
}

static const char *call_token(IrOp op, int *prec)
{
    switch (op) {
    case IR_OP_BITWISE_AND: *prec = P_BAND; return "&";
    case IR_OP_BITWISE_OR: *prec = P_BOR; return "|";
    case IR_OP_BITWISE_XOR: *prec = P_XOR; return "^";
    case IR_OP_SHIFT_LEFT: *prec = P_SHIFT; return "<<";
    case IR_OP_SHIFT_RIGHT: *prec = P_SHIFT; return ">>";
    default: return NULL;
    }
}

/* Left-associative infix: the right operand needs parentheses at equal precedence. */
static void infix(TxBuf *b, const IrExpr *x, const char *tok, const IrExpr *y, int prec, int ctx)
{
    if (prec < ctx)
        tx_buf_putc(b, '(');
    expr(b, x, prec);
    tx_buf_printf(b, " %s ", tok);
    expr(b, y, prec + 1);
    if (prec < ctx)
        tx_buf_putc(b, ')');
}

static void call_args(TxBuf *b, const char *name, IrExpr *const *args, int n)
{
    tx_buf_printf(b, "T.%s(", name);
    for (int i = 0; i < n; i++) {
        if (i)
            tx_buf_puts(b, ", ");
        expr(b, args[i], 0);
    }
    tx_buf_putc(b, ')');
}

static void expr(TxBuf *b, const IrExpr *e, int ctx)
{
    int prec;
    const char *tok;
    if (e->kind == IR_E_INT || e->kind == IR_E_PYINT) {
        bool neg = e->u.int_val < 0 && ctx > P_ADD;
        tx_buf_printf(b, neg ? "(%lld)" : "%lld", (long long)e->u.int_val);
    } else if (e->kind == IR_E_VAR) {
        tx_buf_puts(b, e->u.var.name);
    } else if ((tok = binary_token(e->kind, &prec))) {
        infix(b, e->u.op.a, tok, e->u.op.b, prec, ctx);
    } else if (e->kind == IR_E_CALL && e->u.call.nargs == 2 && (tok = call_token(e->u.call.op, &prec))) {
        infix(b, e->u.call.args[0], tok, e->u.call.args[1], prec, ctx);
    } else if (e->kind == IR_E_CALL && e->u.call.op < IR_OP_COUNT) {
        call_args(b, ir_ops[e->u.call.op].name, e->u.call.args, e->u.call.nargs);
    } else if (IR_E_IS_BINARY(e->kind)) {
        IrExpr *args[2] = {e->u.op.a, e->u.op.b};
        call_args(b, e->kind == IR_E_MIN ? "min" : e->kind == IR_E_MAX ? "max"
                     : e->kind == IR_E_DIV ? "Div" : "truncmod", args, 2);
    } else if (e->kind == IR_E_LET) {
        tx_buf_puts(b, "T.Let(");
        expr(b, e->u.op.b, 0);
        tx_buf_printf(b, ", where={%s: ", e->u.op.var->u.var.name);
        expr(b, e->u.op.a, 0);
        tx_buf_puts(b, "})");
    } else if (e->kind == IR_E_CAST) {
        char dt[IR_DTYPE_STR_MAX];
        tx_buf_printf(b, "T.Cast(\"%s\", ", ir_dtype_str(e->dtype, dt));
        expr(b, e->u.op.a, 0);
        tx_buf_putc(b, ')');
    } else if (e->kind == IR_E_LOAD) {
        tx_buf_printf(b, "%s[", e->u.access.buffer->u.var.name);
        for (int i = 0; i < e->u.access.n; i++) {
            if (i)
                tx_buf_puts(b, ", ");
            expr(b, e->u.access.indices[i], 0);
        }
        tx_buf_putc(b, ']');
    } else {
        tx_buf_printf(b, "<%s>", e->kind == IR_E_CALL ? "call" : "expr");
    }
}

static const char *take(LyCtx *c, TxBuf *b)
{
    char *s = tx_buf_take(b);
    const char *r = tx_arena_strdup(c->arena, s ? s : "");
    free(s);
    return r;
}

const char *ly_expr_str(LyCtx *c, const IrExpr *e)
{
    TxBuf b = {0};
    expr(&b, e, 0);
    return take(c, &b);
}

/* `value` on m, `value @ Axis.name` elsewhere (@ binds like *). */
static void on_axis(TxBuf *b, const IrExpr *v, const char *axis)
{
    if (strcmp(axis, "m") == 0) {
        expr(b, v, P_ADD + 1);
        return;
    }
    expr(b, v, P_MUL);
    tx_buf_printf(b, " @ Axis.%s", axis);
}

static void iter_list(TxBuf *b, const char *tag, const IrIter *its, int n)
{
    tx_buf_printf(b, "T.%s[", tag);
    for (int part = 0; part < 2; part++) {
        if (part)
            tx_buf_putc(b, ':');
        if (n != 1)
            tx_buf_putc(b, '(');
        for (int i = 0; i < n; i++) {
            if (i)
                tx_buf_puts(b, ", ");
            if (part == 0)
                expr(b, its[i].extent, 0);
            else
                on_axis(b, its[i].stride, its[i].axis);
        }
        if (n != 1)
            tx_buf_putc(b, ')');
    }
    tx_buf_putc(b, ']');
}

static void offsets(TxBuf *b, const IrLayout *l)
{
    if (l->noffset > 1)
        tx_buf_putc(b, '(');
    for (int i = 0; i < l->noffset; i++) {
        if (i)
            tx_buf_puts(b, " + ");
        on_axis(b, l->offset[i].value, l->offset[i].axis);
    }
    if (l->noffset > 1)
        tx_buf_putc(b, ')');
}

static void tile(TxBuf *b, const IrLayout *l)
{
    if (l->nshard == 0) {
        tx_buf_puts(b, "T.TileLayout.from_iters(");
        if (l->nreplica) {
            tx_buf_puts(b, "replica=");
            iter_list(b, "R", l->replica, l->nreplica);
        }
        for (int i = 0; i < l->noffset; i++) {
            tx_buf_puts(b, i ? ", " : l->nreplica ? ", offset={" : "offset={");
            tx_buf_printf(b, "\"%s\": ", l->offset[i].axis);
            expr(b, l->offset[i].value, 0);
        }
        tx_buf_puts(b, l->noffset ? "})" : ")");
        return;
    }
    tx_buf_puts(b, "T.TileLayout(");
    iter_list(b, "S", l->shard, l->nshard);
    if (l->nreplica) {
        tx_buf_puts(b, " + ");
        iter_list(b, "R", l->replica, l->nreplica);
    }
    if (l->noffset) {
        tx_buf_puts(b, " + ");
        offsets(b, l);
    }
    tx_buf_putc(b, ')');
}

const char *ly_str(LyCtx *c, const IrLayout *l)
{
    TxBuf b = {0};
    if (l->kind == IR_LAYOUT_COMPOSE) {
        tx_buf_printf(&b, "T.ComposeLayout(%d, %d, %d, ", l->per_element, l->swizzle_len,
                      l->atom_len);
        tile(&b, l->tile);
        tx_buf_puts(&b, l->swizzle_inner ? ")" : ", swizzle_inner=False)");
    } else {
        tile(&b, l);
    }
    return take(c, &b);
}

const char *ly_shape_str(LyCtx *c, IrExpr *const *shape, int ndim)
{
    TxBuf b = {0};
    tx_buf_putc(&b, '(');
    for (int i = 0; i < ndim; i++) {
        if (i)
            tx_buf_puts(&b, ", ");
        expr(&b, shape[i], 0);
    }
    tx_buf_puts(&b, ndim == 1 ? ",)" : ")");
    return take(c, &b);
}

const char *ly_int_shape_str(LyCtx *c, const int64_t *shape, int ndim)
{
    TxBuf b = {0};
    tx_buf_putc(&b, '(');
    for (int i = 0; i < ndim; i++)
        tx_buf_printf(&b, i ? ", %lld" : "%lld", (long long)shape[i]);
    tx_buf_puts(&b, ndim == 1 ? ",)" : ")");
    return take(c, &b);
}
