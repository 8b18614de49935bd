/* A small IR builder for unit tests that construct functions by hand: short
 * constructors over src/ir/ir.h, with variadic lists for shapes, indices and
 * statement sequences. Everything is allocated in the module's arena. A test
 * module carries a source of numbered lines so that nodes can be given the
 * span of a line (irb_line) and diagnostics checked by line and column. */
#ifndef TX_TESTS_IRB_H
#define TX_TESTS_IRB_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ir/ir.h"

/* A module whose source has `nlines` lines "line 1", "line 2", ... */
static inline IrModule *irb_module(int nlines)
{
    IrModule *m = ir_module_new();
    char text[4096];
    size_t n = 0;
    for (int i = 1; i <= nlines && n + 16 < sizeof text; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "line %d\n", i);
    m->source = tx_source_new(&m->arena, "t.tirx", text, n);
    return m;
}

/* The span of line k (1-based), without its newline. */
static inline TxSpan irb_line(const IrModule *m, int k)
{
    const TxSource *s = m->source;
    uint32_t b = s->line_off[k - 1], e = b;
    while (e < s->len && s->text[e] != '\n')
        e++;
    return (TxSpan){s, b, e};
}

/* The line of a span's start. */
static inline int irb_line_of(TxSpan sp)
{
    int line = 0, col = 0;
    if (sp.src)
        tx_source_linecol(sp.src, sp.begin, &line, &col);
    return line;
}

static inline IrExpr *irb_var(IrModule *m, const char *name, IrDType t)
{
    return ir_var(&m->arena, name, ir_prim_type(&m->arena, t), (TxSpan){0});
}

static inline IrExpr *irb_i(IrModule *m, int64_t v) { return ir_i32(&m->arena, v); }

static inline IrExpr *irb_bin(IrModule *m, IrExprKind k, IrExpr *a, IrExpr *b)
{
    return ir_binary(&m->arena, k, a, b, (TxSpan){0});
}

static inline IrExpr **irb_list_v(IrModule *m, int n, va_list ap)
{
    IrExpr **xs = TX_NEW_ARRAY(&m->arena, IrExpr *, n > 0 ? n : 1);
    for (int i = 0; i < n; i++)
        xs[i] = va_arg(ap, IrExpr *);
    return xs;
}

static inline IrExpr **irb_exprs(IrModule *m, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    IrExpr **xs = irb_list_v(m, n, ap);
    va_end(ap);
    return xs;
}

/* A buffer variable with the default layout: irb_buffer(m, "A", IR_FLOAT32, "global", 2, e0, e1).
 */
static inline IrExpr *irb_buffer(IrModule *m, const char *name, IrDType t, const char *scope,
                                 int ndim, ...)
{
    va_list ap;
    va_start(ap, ndim);
    IrBufferType *b = TX_NEW(&m->arena, IrBufferType);
    b->ndim = ndim;
    b->shape = irb_list_v(m, ndim, ap);
    va_end(ap);
    b->elem_offset = irb_i(m, 0);
    b->align = 64, b->offset_factor = 1;
    b->layout = ir_default_layout(&m->arena, b->shape, ndim);
    return ir_var(&m->arena, name, ir_buffer_type(&m->arena, t, scope, b), (TxSpan){0});
}

static inline IrExpr *irb_access(IrModule *m, IrExprKind k, IrExpr *buf, int n, va_list ap)
{
    IrDType t = k == IR_E_LOAD ? buf->u.var.type->dtype : IR_VOID;
    IrExpr *e = ir_node(&m->arena, k, t, (TxSpan){0});
    e->u.access.buffer = buf;
    e->u.access.n = n;
    e->u.access.indices = irb_list_v(m, n, ap);
    return e;
}

static inline IrExpr *irb_load(IrModule *m, IrExpr *buf, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    IrExpr *e = irb_access(m, IR_E_LOAD, buf, n, ap);
    va_end(ap);
    return e;
}

/* A region of every dimension from 0 with extents = the shape. */
static inline IrExpr *irb_full_region(IrModule *m, IrExpr *buf)
{
    const IrBufferType *b = ir_buf(buf);
    IrExpr *e = ir_node(&m->arena, IR_E_REGION, IR_VOID, (TxSpan){0});
    e->u.access.buffer = buf;
    e->u.access.n = b->ndim;
    e->u.access.indices = TX_NEW_ARRAY(&m->arena, IrExpr *, b->ndim);
    e->u.access.extents = TX_NEW_ARRAY(&m->arena, IrExpr *, b->ndim);
    for (int i = 0; i < b->ndim; i++)
        e->u.access.indices[i] = irb_i(m, 0), e->u.access.extents[i] = b->shape[i];
    return e;
}

static inline IrExpr *irb_call(IrModule *m, IrOp op, IrDType t, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    IrExpr *e = ir_node(&m->arena, IR_E_CALL, t, (TxSpan){0});
    e->u.call.op = op;
    e->u.call.nargs = n;
    e->u.call.args = irb_list_v(m, n, ap);
    va_end(ap);
    return e;
}

static inline IrExpr *irb_data(IrModule *m, IrExpr *buf)
{
    return irb_call(m, IR_OP_BUFFER_DATA, IR_HANDLE, 1, buf);
}

/* ---- statements ---- */
static inline IrStmt *irb_bind(IrModule *m, IrExpr *var, IrExpr *value)
{
    IrStmt *s = ir_stmt(&m->arena, IR_S_BIND, (TxSpan){0});
    s->u.bind.var = var, s->u.bind.value = value;
    return s;
}

static inline IrStmt *irb_alloc(IrModule *m, IrExpr *buf)
{
    IrStmt *s = ir_stmt(&m->arena, IR_S_ALLOC, (TxSpan){0});
    s->u.alloc.buffer = buf;
    return s;
}

static inline IrStmt *irb_decl(IrModule *m, IrExpr *buf, IrExpr *data)
{
    IrStmt *s = ir_stmt(&m->arena, IR_S_DECL, (TxSpan){0});
    s->u.decl.buffer = buf, s->u.decl.data = data;
    return s;
}

static inline IrStmt *irb_store(IrModule *m, IrExpr *buf, IrExpr *value, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    IrStmt *s = ir_stmt(&m->arena, IR_S_STORE, (TxSpan){0});
    s->u.store.buffer = buf, s->u.store.value = value, s->u.store.n = n;
    s->u.store.indices = irb_list_v(m, n, ap);
    va_end(ap);
    return s;
}

static inline IrStmt *irb_eval(IrModule *m, IrExpr *e)
{
    IrStmt *s = ir_stmt(&m->arena, IR_S_EVAL, (TxSpan){0});
    s->u.eval = e;
    return s;
}

static inline IrStmt *irb_for(IrModule *m, IrExpr *var, IrExpr *extent, IrStmt *body)
{
    IrStmt *s = ir_stmt(&m->arena, IR_S_FOR, (TxSpan){0});
    s->u.loop.var = var;
    s->u.loop.min = ir_int(&m->arena, var->dtype, 0, (TxSpan){0});
    s->u.loop.extent = extent;
    s->u.loop.kind = IR_FOR_SERIAL;
    s->u.loop.body = body;
    return s;
}

static inline IrStmt *irb_if(IrModule *m, IrExpr *cond, IrStmt *then_s, IrStmt *else_s)
{
    IrStmt *s = ir_stmt(&m->arena, IR_S_IF, (TxSpan){0});
    s->u.ifs.cond = cond, s->u.ifs.then_s = then_s, s->u.ifs.else_s = else_s;
    return s;
}

/* A sequence, kept as a SeqStmt even with one element. */
static inline IrStmt *irb_seq(IrModule *m, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    IrStmt *s = ir_stmt(&m->arena, IR_S_SEQ, (TxSpan){0});
    s->u.seq.n = n;
    s->u.seq.stmts = TX_NEW_ARRAY(&m->arena, IrStmt *, n > 0 ? n : 1);
    for (int i = 0; i < n; i++)
        s->u.seq.stmts[i] = va_arg(ap, IrStmt *);
    va_end(ap);
    return s;
}

/* `v0, v1 = T.<kind>([e0, e1])` with int32 ids named after the kind. */
static inline IrStmt *irb_scopeid(IrModule *m, IrScopeIdKind kind, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    IrStmt *s = ir_stmt(&m->arena, IR_S_SCOPEID, (TxSpan){0});
    s->u.scopeid.kind = kind;
    s->u.scopeid.nvars = n;
    s->u.scopeid.vars = TX_NEW_ARRAY(&m->arena, IrExpr *, n);
    s->u.scopeid.extents = TX_NEW_ARRAY(&m->arena, IrExpr *, n);
    for (int i = 0; i < n; i++) {
        s->u.scopeid.extents[i] = irb_i(m, va_arg(ap, int));
        s->u.scopeid.vars[i] = irb_var(m, ir_scopeids[kind].name, IR_INT32);
    }
    va_end(ap);
    return s;
}

static inline IrStmt *irb_attr(IrModule *m, IrExpr *node, const char *key, IrExpr *value,
                               IrStmt *body)
{
    IrStmt *s = ir_stmt(&m->arena, IR_S_ATTR, (TxSpan){0});
    s->u.attr.node = node, s->u.attr.key = key, s->u.attr.value = value, s->u.attr.body = body;
    return s;
}

/* Adds `def name(params...): body` to the module. */
static inline IrFunc *irb_func(IrModule *m, const char *name, IrStmt *body, int nparams, ...)
{
    va_list ap;
    va_start(ap, nparams);
    IrFunc *f = TX_NEW(&m->arena, IrFunc);
    f->name = name;
    f->nparams = nparams;
    f->params = irb_list_v(m, nparams, ap);
    va_end(ap);
    f->body = body;
    IrFunc **funcs = TX_NEW_ARRAY(&m->arena, IrFunc *, m->nfuncs + 1);
    if (m->nfuncs)
        memcpy(funcs, m->funcs, sizeof *funcs * (size_t)m->nfuncs);
    funcs[m->nfuncs++] = f;
    m->funcs = funcs;
    return f;
}

/* The index of the first diagnostic whose message contains `needle`, or -1. */
static inline int irb_find_diag(const IrModule *m, const char *needle)
{
    for (int i = 0; i < m->diags.list.len; i++)
        if (strstr(m->diags.list.items[i].msg, needle))
            return i;
    return -1;
}

#endif
