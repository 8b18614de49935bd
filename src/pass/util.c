/* Helpers shared by the passes (see internal.h): folded expression
 * builders, statement builders, flat buffer types, function attributes. */
#include "internal.h"

#include <string.h>

#include "../arith/arith.h"

IrExpr *ps_arith(TxArena *a, IrExprKind k, IrExpr *x, IrExpr *y)
{
    const char *err = NULL;
    IrExpr *r = ar_binary(a, k, x, y, (TxSpan){0}, &err);
    return r ? r : ir_binary(a, k, x, y, (TxSpan){0});
}

IrExpr *ps_cast(TxArena *a, IrDType t, IrExpr *x) { return ar_cast(a, t, x, (TxSpan){0}); }

IrExpr *ps_int(TxArena *a, IrDType t, int64_t v) { return ir_int(a, t, v, (TxSpan){0}); }

bool ps_const_int(const IrExpr *e, int64_t *v) { return ar_const_int(e, v); }

IrExpr *ps_call(TxArena *a, IrOp op, IrDType t, IrExpr **args, int nargs)
{
    IrExpr *e = ir_node(a, IR_E_CALL, t, (TxSpan){0});
    e->u.call.op = op;
    e->u.call.nargs = nargs;
    e->u.call.args = nargs ? tx_arena_memdup(a, args, sizeof *args * (size_t)nargs) : NULL;
    return e;
}

IrExpr *ps_buffer_data(TxArena *a, IrExpr *buffer)
{
    IrExpr *e = ps_call(a, IR_OP_BUFFER_DATA, IR_HANDLE, &buffer, 1);
    e->u.call.ptr_type = NULL;
    return e;
}

IrExpr *ps_buffer_data_of(const IrExpr *e)
{
    if (e && e->kind == IR_E_CALL && e->u.call.op == IR_OP_BUFFER_DATA && e->u.call.nargs == 1 &&
        ir_is_buffer(e->u.call.args[0]))
        return e->u.call.args[0];
    return NULL;
}

IrStmt *ps_bind(TxArena *a, IrExpr *var, IrExpr *value, TxSpan sp)
{
    IrStmt *s = ir_stmt(a, IR_S_BIND, sp);
    s->u.bind.var = var, s->u.bind.value = value;
    return s;
}

IrStmt *ps_decl(TxArena *a, IrExpr *buffer, IrExpr *data, TxSpan sp)
{
    IrStmt *s = ir_stmt(a, IR_S_DECL, sp);
    s->u.decl.buffer = buffer, s->u.decl.data = data;
    return s;
}

IrStmt *ps_eval(TxArena *a, IrExpr *e, TxSpan sp)
{
    IrStmt *s = ir_stmt(a, IR_S_EVAL, sp);
    s->u.eval = e;
    return s;
}

IrStmt *ps_attr(TxArena *a, IrExpr *node, const char *key, IrExpr *value, IrStmt *body,
                TxSpan sp)
{
    IrStmt *s = ir_stmt(a, IR_S_ATTR, sp);
    s->u.attr.node = node, s->u.attr.key = key, s->u.attr.value = value, s->u.attr.body = body;
    return s;
}

IrStmt *ps_empty(TxArena *a)
{
    IrStmt *s = ir_stmt(a, IR_S_SEQ, (TxSpan){0});
    s->u.seq.n = 0;
    return s;
}

static void push_flat(TxArena *a, IrStmt *s, IrStmt ***items, int *n, int *cap)
{
    if (!s)
        return;
    if (s->kind == IR_S_SEQ) {
        for (int i = 0; i < s->u.seq.n; i++)
            push_flat(a, s->u.seq.stmts[i], items, n, cap);
        return;
    }
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 8;
        IrStmt **bigger = TX_NEW_ARRAY(a, IrStmt *, nc);
        if (*n)
            memcpy(bigger, *items, sizeof **items * (size_t)*n);
        *items = bigger, *cap = nc;
    }
    (*items)[(*n)++] = s;
}

IrStmt *ps_seq2(TxArena *a, IrStmt *first, IrStmt *rest)
{
    IrStmt **items = NULL;
    int n = 0, cap = 0;
    push_flat(a, first, &items, &n, &cap);
    push_flat(a, rest, &items, &n, &cap);
    if (n == 0)
        return ps_empty(a);
    return ir_seq(a, items, n, first ? first->span : rest->span);
}

bool ps_is_launch_attr(const IrStmt *s)
{
    return s && s->kind == IR_S_ATTR &&
           (!strcmp(s->u.attr.key, "thread_extent") || !strcmp(s->u.attr.key, "virtual_thread"));
}

IrExpr *ps_buffer_extent(TxArena *a, const IrBufferType *b)
{
    if (b->nstrides && b->ndim)
        return ps_arith(a, IR_E_MUL, b->strides[0], b->shape[0]);
    if (!b->ndim)
        return ps_int(a, IR_INT32, 1);
    IrExpr *n = b->shape[0];
    for (int i = 1; i < b->ndim; i++)
        n = ps_arith(a, IR_E_MUL, n, b->shape[i]);
    return n;
}

IrExpr *ps_flat_buffer(TxArena *a, const IrExpr *like, IrExpr *extent, TxSpan sp)
{
    const IrBufferType *old = ir_buf(like);
    IrBufferType *b = TX_NEW(a, IrBufferType);
    b->ndim = 1;
    b->shape = TX_NEW_ARRAY(a, IrExpr *, 1);
    b->shape[0] = extent;
    b->elem_offset = ps_int(a, extent->dtype, 0);
    b->align = old->align, b->offset_factor = old->offset_factor;
    b->naddr = old->naddr, b->allocated_addr = old->allocated_addr;
    const IrType *t = like->u.var.type;
    return ir_var(a, like->u.var.name, ir_buffer_type(a, t->dtype, t->scope, b), sp);
}

bool ps_buffer_is_flat(const IrBufferType *b)
{
    int64_t off;
    return b->ndim == 1 && b->nstrides == 0 && !b->layout && ps_const_int(b->elem_offset, &off) &&
           off == 0;
}

IrExpr *ps_func_attr(const IrFunc *f, const char *key)
{
    for (int i = 0; i < f->nattrs; i++)
        if (!strcmp(f->attrs[i].key, key))
            return f->attrs[i].value;
    return NULL;
}

IrFunc *ps_func_set_attr(TxArena *a, IrFunc *f, const char *key, IrExpr *value)
{
    IrFunc *n = tx_arena_memdup(a, f, sizeof *f);
    n->attrs = TX_NEW_ARRAY(a, IrKwarg, f->nattrs + 1);
    int j = 0;
    bool placed = false;
    for (int i = 0; i < f->nattrs; i++) {
        int c = strcmp(f->attrs[i].key, key);
        if (c == 0)
            continue;
        if (c > 0 && !placed)
            n->attrs[j++] = (IrKwarg){key, value}, placed = true;
        n->attrs[j++] = f->attrs[i];
    }
    if (!placed)
        n->attrs[j++] = (IrKwarg){key, value};
    n->nattrs = j;
    return n;
}

IrFunc *ps_func_with_body(TxArena *a, IrFunc *f, IrStmt *body)
{
    if (f->body == body)
        return f;
    IrFunc *n = tx_arena_memdup(a, f, sizeof *f);
    n->body = body;
    return n;
}

bool ps_is_device_func(const IrFunc *f)
{
    int64_t cc;
    const IrExpr *v = ps_func_attr(f, "calling_conv");
    return v && (v->kind == IR_E_PYINT || v->kind == IR_E_INT) && (cc = v->u.int_val) == 2;
}

void ps_set_funcs(IrModule *m, IrFunc **funcs, int n)
{
    m->funcs = tx_arena_memdup(&m->arena, funcs, sizeof *funcs * (size_t)n);
    m->nfuncs = n;
}

static bool jump_stmt(IrVisitor *v, const IrStmt *s)
{
    bool *found = v->ctx;
    *found |= s->kind == IR_S_BREAK || s->kind == IR_S_CONTINUE;
    return !*found && s->kind != IR_S_FOR && s->kind != IR_S_WHILE;
}

static bool jump_expr(IrVisitor *v, const IrExpr *e)
{
    bool *found = v->ctx;
    *found |= e->kind == IR_E_CALL &&
              (e->u.call.op == IR_OP_BREAK_LOOP || e->u.call.op == IR_OP_CONTINUE_LOOP);
    return !*found;
}

bool ps_body_jumps(const IrStmt *body)
{
    bool found = false;
    IrVisitor v = {.ctx = &found, .stmt = jump_stmt, .expr = jump_expr};
    ir_visit_stmt(&v, body);
    return found;
}

TxSpan ps_span(const IrStmt *s, const IrFunc *f)
{
    return s && s->span.src ? s->span : f->span;
}

const char *ps_name(const IrExpr *var)
{
    return var->u.var.name && var->u.var.name[0] ? var->u.var.name : "v";
}
