/* Printing of statements and buffer declarations: bodies (with the scalar
 * alloc + init fusion and concise scoping of attribute statements), loops
 * (T.grid, range sugar, loop kinds), attribute statements (T.attr dicts,
 * launch_thread, T.hint), scope ids, tile-primitive calls, and the keyword
 * layout shared by every buffer-declaring call (T.Buffer, T.alloc_*,
 * T.decl_buffer) with the view re-sugaring of DeclBuffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../layout/layout.h"
#include "../arith/arith.h"
#include "print_internal.h"
#include "script.h"

static void print_stmt(Printer *P, const IrStmt *s);

static char *take(TxBuf *b) { return tx_buf_take(b); }

static void emit_top(Printer *P, TxBuf *b) { pr_emit(P, pr_top(P), take(b)); }

/* Print `body` into a new frame for `tir` and return its statements. */
static void print_frame_body(Printer *P, const void *tir, const IrStmt *body, char ***stmts,
                             int *n)
{
    pr_frame_open(P, tir);
    pr_body(P, body);
    pr_frame_close(P, stmts, n);
}

/* `header:` + the body of `tir`, as one statement of the current frame. */
static void emit_block(Printer *P, const char *header, char **stmts, int n)
{
    TxBuf b = {0};
    pr_block(&b, header, stmts, n);
    pr_free_stmts(stmts, n);
    emit_top(P, &b);
}

/* ================================================================ buffers */

enum { BK_SHAPE, BK_DTYPE, BK_DATA, BK_STRIDES, BK_ELEM_OFFSET, BK_SCOPE, BK_ALIGN,
       BK_OFFSET_FACTOR, BK_LAYOUT, BK_ADDR, BK_COUNT };
static const char *const bk_names[BK_COUNT] = {
    "shape", "dtype", "data", "strides", "elem_offset", "scope", "align", "offset_factor",
    "layout", "allocated_addr"};

/* Which variables a declaration defines along with the buffer. */
typedef enum { DEF_NONE, DEF_DATA_POINTER, DEF_MATCH_BUFFER } VarDefs;

typedef struct BufAttrs {
    char *v[BK_COUNT];
} BufAttrs;

typedef struct OutOfLine {
    TX_VEC(const char *) lhs;
    TX_VEC(char *) rhs;
} OutOfLine;

typedef struct BufCtx {
    Printer *P;
    const IrExpr *buffer;
    int frame;
    VarDefs defs;
    PrExprVec uses; /* each distinct variable of each field, once per field */
    OutOfLine ool;
} BufCtx;

static void free_attrs(BufAttrs *a)
{
    for (int i = 0; i < BK_COUNT; i++)
        free(a->v[i]);
}

static void set_attr(BufAttrs *a, int k, char *v)
{
    free(a->v[k]);
    a->v[k] = v;
}

static char *str_dup(const char *s)
{
    TxBuf b = {0};
    tx_buf_puts(&b, s);
    return take(&b);
}

static void count_uses(BufCtx *C, const IrExpr *e)
{
    PrExprVec vs = {0};
    pr_collect_vars(e, &vs);
    for (int i = 0; i < vs.len; i++)
        tx_vec_push(&C->uses, vs.items[i]);
    tx_vec_free(&vs);
}

static int use_count(BufCtx *C, const IrExpr *var)
{
    int n = 0;
    for (int i = 0; i < C->uses.len; i++)
        n += C->uses.items[i] == var;
    return n;
}

static bool is_new_var(Printer *P, const IrExpr *e)
{
    return e && e->kind == IR_E_VAR && !pr_is_defined(P, e);
}

/* `n = T.int32()` collected for the end of the declaration. */
static void add_out_of_line(BufCtx *C, const IrExpr *var)
{
    tx_vec_push(&C->ool.lhs, pr_define(C->P, var, C->frame));
    TxBuf b = {0};
    pr_var_creation(C->P, var, &b);
    tx_vec_push(&C->ool.rhs, take(&b));
}

/* A variable used once is defined as `A.<suffix>`; otherwise out of line. */
static bool try_inline(BufCtx *C, const IrExpr *var, const char *suffix)
{
    if (use_count(C, var) == 1) {
        pr_define_inline(C->P, var, C->frame, C->buffer, suffix);
        return true;
    }
    add_out_of_line(C, var);
    return false;
}

static void emit_out_of_line(BufCtx *C)
{
    OutOfLine *o = &C->ool;
    if (o->lhs.len) {
        TxBuf b = {0};
        for (int i = 0; i < o->lhs.len; i++)
            tx_buf_printf(&b, "%s%s", i ? ", " : "", o->lhs.items[i]);
        tx_buf_puts(&b, " = ");
        for (int i = 0; i < o->rhs.len; i++)
            tx_buf_printf(&b, "%s%s", i ? ", " : "", o->rhs.items[i]);
        pr_emit(C->P, C->frame, take(&b));
    }
    for (int i = 0; i < o->rhs.len; i++)
        free(o->rhs.items[i]);
    tx_vec_free(&o->lhs);
    tx_vec_free(&o->rhs);
}

typedef struct Quote {
    const IrExpr **vars; /* first signature occurrence: print the dim quoted */
    int n;
    bool active;         /* stringify dims with undefined variables (signatures) */
} Quote;

static bool quote_has(const Quote *q, const IrExpr *v)
{
    for (int i = 0; i < q->n; i++)
        if (q->vars[i] == v)
            return true;
    return false;
}

static void quote_remove(Quote *q, const IrExpr *v)
{
    for (int i = 0; i < q->n; i++)
        if (q->vars[i] == v)
            q->vars[i] = NULL;
}

static bool is_type_var(Printer *P, const IrExpr *v)
{
    for (int i = 0; i < P->ntype_vars; i++)
        if (P->type_vars[i] == v)
            return true;
    return false;
}

static void attr_shape_dim(BufCtx *C, IrExpr *e, Quote *q, TxBuf *out)
{
    Printer *P = C->P;
    PrExprVec vs = {0};
    pr_collect_vars(e, &vs);
    bool has_new = false, has_tv = false;
    for (int i = 0; i < vs.len; i++) {
        has_new = has_new || !pr_is_defined(P, vs.items[i]) || quote_has(q, vs.items[i]);
        has_tv = has_tv || is_type_var(P, vs.items[i]);
    }
    if (is_new_var(P, e))
        add_out_of_line(C, e);
    TxBuf t = {0};
    pr_expr(P, e, &t);
    char *text = take(&t);
    bool bare_tv = e->kind == IR_E_VAR && is_type_var(P, e);
    if ((q->active && has_new) || (has_tv && !bare_tv))
        pr_string_literal(out, text); /* the expression quoted and escaped */
    else
        tx_buf_puts(out, text);
    free(text);
    for (int i = 0; i < vs.len; i++)
        quote_remove(q, vs.items[i]);
    tx_vec_free(&vs);
}

static char *attr_shape(BufCtx *C, Quote *q)
{
    const IrBufferType *b = ir_buf(C->buffer);
    TxBuf out = {0};
    tx_buf_putc(&out, '(');
    for (int i = 0; i < b->ndim; i++) {
        if (i)
            tx_buf_puts(&out, ", ");
        attr_shape_dim(C, b->shape[i], q, &out);
    }
    tx_buf_puts(&out, b->ndim == 1 ? ",)" : ")");
    return take(&out);
}

static char *print_to_string(Printer *P, const IrExpr *e)
{
    TxBuf b = {0};
    pr_expr(P, e, &b);
    return take(&b);
}

static char *attr_strides(BufCtx *C)
{
    const IrBufferType *b = ir_buf(C->buffer);
    TxBuf out = {0};
    tx_buf_putc(&out, '(');
    for (int i = 0; i < b->nstrides; i++) {
        IrExpr *e = b->strides[i];
        if (i)
            tx_buf_puts(&out, ", ");
        char suffix[32];
        snprintf(suffix, sizeof suffix, ".strides[%d]", i);
        if (is_new_var(C->P, e) && try_inline(C, e, suffix)) {
            pr_string_literal(&out, e->u.var.name);
            continue;
        }
        pr_expr(C->P, e, &out);
    }
    tx_buf_puts(&out, b->nstrides == 1 ? ",)" : ")");
    return take(&out);
}

/* elem_offset: a constant prints unless 0 of the index dtype with offset_factor
 * 1 (with another factor, a missing elem_offset reads as a new variable); a new
 * variable becomes implicit (`A.elem_offset`) and forces offset_factor=. */
static bool attr_elem_offset(BufCtx *C, BufAttrs *a)
{
    const IrBufferType *b = ir_buf(C->buffer);
    IrExpr *e = b->elem_offset;
    if (!e)
        return false;
    if (e->kind == IR_E_INT) {
        IrDType index = b->ndim ? b->shape[0]->dtype : IR_INT32;
        if (e->u.int_val != 0 || !ir_dtype_eq(e->dtype, index) || b->offset_factor != 1)
            set_attr(a, BK_ELEM_OFFSET, print_to_string(C->P, e));
        return false;
    }
    if (is_new_var(C->P, e)) {
        try_inline(C, e, ".elem_offset");
        return true;
    }
    set_attr(a, BK_ELEM_OFFSET, print_to_string(C->P, e));
    return false;
}

static void attr_data(BufCtx *C, BufAttrs *a, const IrExpr *data)
{
    if (!data || !strcmp(C->buffer->u.var.type->scope, "tmem"))
        return;
    bool inlined = false;
    if (is_new_var(C->P, data)) {
        if (C->defs >= DEF_DATA_POINTER)
            inlined = try_inline(C, data, ".data");
        else
            add_out_of_line(C, data);
    }
    if (!inlined)
        set_attr(a, BK_DATA, print_to_string(C->P, data));
}

/* One address prints bare (a scalar buffer's load as its name, as in
 * apache-tvm 0.27), several as a list. */
static char *attr_addr(Printer *P, const IrBufferType *b)
{
    TxBuf out = {0};
    if (b->naddr == 1) {
        pr_expr(P, b->allocated_addr[0], &out);
        return take(&out);
    }
    IrExpr list = {.kind = IR_E_LIST, .dtype = IR_VOID};
    list.u.list.n = b->naddr, list.u.list.items = b->allocated_addr;
    pr_expr(P, &list, &out);
    return take(&out);
}

static char *int_string(int v)
{
    TxBuf b = {0};
    tx_buf_printf(&b, "%d", v);
    return take(&b);
}

/* The reference's BufferAttrs: every field in its printed form, each only
 * when it differs from the default. */
static void buffer_attrs(Printer *P, const IrExpr *buffer, VarDefs defs, const IrExpr *data,
                         Quote *q, int frame, BufAttrs *a)
{
    const IrBufferType *b = ir_buf(buffer);
    const IrType *t = buffer->u.var.type;
    BufCtx C = {.P = P, .buffer = buffer, .frame = frame, .defs = defs};
    memset(a, 0, sizeof *a);
    count_uses(&C, b->elem_offset);
    count_uses(&C, data);
    for (int i = 0; i < b->nstrides; i++)
        count_uses(&C, b->strides[i]);
    for (int i = 0; i < b->ndim; i++)
        count_uses(&C, b->shape[i]);
    set_attr(a, BK_SHAPE, attr_shape(&C, q));
    char dt[IR_DTYPE_STR_MAX];
    if (!ir_dtype_eq(t->dtype, IR_FLOAT32)) {
        TxBuf d = {0};
        tx_buf_printf(&d, "\"%s\"", pr_dtype(t->dtype, dt));
        set_attr(a, BK_DTYPE, take(&d));
    }
    attr_data(&C, a, data);
    if (b->nstrides)
        set_attr(a, BK_STRIDES, attr_strides(&C));
    bool needs_factor = attr_elem_offset(&C, a);
    if (strcmp(t->scope, "global")) {
        TxBuf s = {0};
        pr_string_literal(&s, t->scope);
        set_attr(a, BK_SCOPE, take(&s));
    }
    if (b->align != 64)
        set_attr(a, BK_ALIGN, int_string(b->align));
    if (needs_factor || b->offset_factor != 1)
        set_attr(a, BK_OFFSET_FACTOR, int_string(b->offset_factor));
    if (b->layout) {
        if (!pr_layout_is_default(P, b->layout, b->shape, b->ndim)) {
            TxBuf l = {0};
            pr_layout(P, b->layout, &l);
            set_attr(a, BK_LAYOUT, take(&l));
        }
    } else if (!P->func->is_s_tir) {
        set_attr(a, BK_LAYOUT, str_dup("None"));
    }
    if (b->naddr)
        set_attr(a, BK_ADDR, attr_addr(P, b));
    emit_out_of_line(&C);
    tx_vec_free(&C.uses);
}

/* `T.<method>(extra, shape, dtype, data=..., ...)` in the fixed keyword order. */
static void buffer_call(const char *method, const char *extra, const BufAttrs *a, TxBuf *out)
{
    tx_buf_printf(out, "T.%s(", method);
    const char *sep = "";
    if (extra)
        tx_buf_puts(out, extra), sep = ", ";
    for (int k = BK_SHAPE; k <= BK_DTYPE; k++)
        if (a->v[k])
            tx_buf_printf(out, "%s%s", sep, a->v[k]), sep = ", ";
    for (int k = BK_DATA; k < BK_COUNT; k++)
        if (a->v[k])
            tx_buf_printf(out, "%s%s=%s", sep, bk_names[k], a->v[k]), sep = ", ";
}

static char *dtype_type_doc(IrDType t)
{
    char dt[IR_DTYPE_STR_MAX];
    TxBuf b = {0};
    tx_buf_printf(&b, "T.%s", pr_dtype(t, dt));
    return take(&b);
}

static char *scope_literal(const char *scope)
{
    TxBuf b = {0};
    pr_string_literal(&b, scope);
    return take(&b);
}

/* Keep only dtype (and optionally scope) for the scalar constructors. */
static void scalar_attrs(BufAttrs *a, const IrExpr *buffer, bool with_scope)
{
    const IrType *t = buffer->u.var.type;
    BufAttrs s = {0};
    s.v[BK_DTYPE] = dtype_type_doc(t->dtype);
    if (with_scope)
        s.v[BK_SCOPE] = scope_literal(t->scope);
    free_attrs(a);
    *a = s;
}

/* alloc_buffer's spelling by scope: shared/local drop the scope; scalars use
 * the scalar constructors. */
static const char *alloc_method(const IrExpr *buffer, BufAttrs *a)
{
    const char *scope = buffer->u.var.type->scope;
    bool shared = !strcmp(scope, "shared"), local = !strcmp(scope, "local");
    if (pr_is_scalar_buffer(buffer, true)) {
        scalar_attrs(a, buffer, !shared && !local);
        return shared ? "shared_scalar" : local ? "local_scalar" : "alloc_scalar";
    }
    if (shared || local) {
        free(a->v[BK_SCOPE]);
        a->v[BK_SCOPE] = NULL;
        return shared ? "alloc_shared" : "alloc_local";
    }
    return "alloc_buffer";
}

/* decl_buffer of a scalar-shaped buffer prints as T.decl_scalar, unless its
 * elem_offset is a bare variable, which may be the buffer's own (made by an
 * offset_factor) that only decl_buffer declares (found by fuzzing). */
static const char *decl_method(Printer *P, const IrExpr *buffer, const IrExpr *data, BufAttrs *a)
{
    if (!pr_is_scalar_buffer(buffer, false) || ir_buf(buffer)->elem_offset->kind == IR_E_VAR)
        return "decl_buffer";
    const IrBufferType *b = ir_buf(buffer);
    scalar_attrs(a, buffer, true);
    a->v[BK_ELEM_OFFSET] = print_to_string(P, b->elem_offset);
    if (data)
        a->v[BK_DATA] = print_to_string(P, data);
    return "decl_scalar";
}

void pr_buffer_param(Printer *P, const IrExpr *buffer, TxBuf *out, const IrExpr **quote, int nquote,
                     int frame)
{
    Quote q = {.vars = quote, .n = nquote, .active = true};
    BufAttrs a;
    buffer_attrs(P, buffer, DEF_MATCH_BUFFER, NULL, &q, frame, &a);
    if (!a.v[BK_DTYPE]) {
        char dt[IR_DTYPE_STR_MAX];
        TxBuf d = {0};
        tx_buf_printf(&d, "\"%s\"", pr_dtype(buffer->u.var.type->dtype, dt));
        a.v[BK_DTYPE] = take(&d);
    }
    buffer_call("Buffer", NULL, &a, out);
    tx_buf_putc(out, ')');
    free_attrs(&a);
}

/* A buffer used without any declaration: `X = T.Buffer(...)` in the frame. */
void pr_free_buffer_def(Printer *P, const IrExpr *buffer, int frame)
{
    TxBuf b = {0};
    tx_buf_puts(&b, pr_define(P, buffer, frame));
    tx_buf_puts(&b, " = ");
    Quote q = {0};
    BufAttrs a;
    buffer_attrs(P, buffer, DEF_DATA_POINTER, NULL, &q, frame, &a);
    buffer_call("Buffer", NULL, &a, &b);
    tx_buf_putc(&b, ')');
    free_attrs(&a);
    pr_emit(P, frame, take(&b));
}

/* ================================================================ allocation */

static bool alloc_prints_annotation(const IrExpr *buffer)
{
    /* `x: T.int32` only for local scalars: the reference prints it for any
     * scope, which reparses as a local scalar (a deliberate deviation). */
    return pr_is_scalar_buffer(buffer, true) && !strcmp(buffer->u.var.type->scope, "local");
}

static void print_alloc(Printer *P, const IrStmt *s)
{
    const IrExpr *buf = s->u.alloc.buffer;
    TxBuf b = {0};
    if (alloc_prints_annotation(buf)) {
        char dt[IR_DTYPE_STR_MAX];
        tx_buf_printf(&b, "%s: T.%s", pr_define(P, buf, pr_top(P)),
                      pr_dtype(buf->u.var.type->dtype, dt));
        emit_top(P, &b);
        return;
    }
    Quote q = {0};
    BufAttrs a;
    buffer_attrs(P, buf, DEF_DATA_POINTER, NULL, &q, pr_top(P), &a);
    const char *method = alloc_method(buf, &a);
    TxBuf rhs = {0};
    buffer_call(method, NULL, &a, &rhs);
    free_attrs(&a);
    if (s->u.alloc.nannot) {
        IrExpr dict = {.kind = IR_E_DICT, .dtype = IR_VOID};
        dict.u.list.n = s->u.alloc.nannot, dict.u.list.kwargs = s->u.alloc.annot;
        tx_buf_puts(&rhs, ", annotations=");
        pr_expr(P, &dict, &rhs);
    }
    tx_buf_putc(&rhs, ')');
    char *r = take(&rhs);
    tx_buf_printf(&b, "%s = %s", pr_define(P, buf, pr_top(P)), r);
    free(r);
    emit_top(P, &b);
}

static bool expr_loads(const IrExpr *e, const IrExpr *buffer);

static bool exprs_load(IrExpr *const *es, int n, const IrExpr *buffer)
{
    for (int i = 0; i < n; i++)
        if (expr_loads(es[i], buffer))
            return true;
    return false;
}

/* Whether e reads `buffer` (the scalar init fusion must not hide that). */
static bool expr_loads(const IrExpr *e, const IrExpr *buffer)
{
    if (!e)
        return false;
    if (IR_E_IS_BINARY(e->kind))
        return expr_loads(e->u.op.a, buffer) || expr_loads(e->u.op.b, buffer);
    switch (e->kind) {
    case IR_E_LOAD:
        return e->u.access.buffer == buffer ||
               exprs_load(e->u.access.indices, e->u.access.n, buffer) ||
               expr_loads(e->u.access.predicate, buffer);
    case IR_E_CALL:
        return exprs_load(e->u.call.args, e->u.call.nargs, buffer);
    case IR_E_SHUFFLE:
        return exprs_load(e->u.shuffle.vectors, e->u.shuffle.nvectors, buffer);
    case IR_E_NOT: case IR_E_CAST: case IR_E_SELECT: case IR_E_RAMP: case IR_E_BROADCAST:
    case IR_E_LET:
        return expr_loads(e->u.op.cond, buffer) || expr_loads(e->u.op.a, buffer) ||
               expr_loads(e->u.op.b, buffer);
    default:
        return false;
    }
}

/* `x: T.int32` followed by `x = v` (v not reading x) prints `x: T.int32 = v`. */
static bool print_fused_scalar_init(Printer *P, const IrStmt *alloc, const IrStmt *next)
{
    if (alloc->kind != IR_S_ALLOC || !next || next->kind != IR_S_STORE)
        return false;
    const IrExpr *buf = alloc->u.alloc.buffer;
    if (!alloc_prints_annotation(buf) || next->u.store.buffer != buf || next->u.store.predicate ||
        next->u.store.n != 1 || !pr_is_int(next->u.store.indices[0], 0) ||
        expr_loads(next->u.store.value, buf))
        return false;
    char dt[IR_DTYPE_STR_MAX];
    TxBuf b = {0};
    tx_buf_printf(&b, "%s: T.%s = ", pr_define(P, buf, pr_top(P)),
                  pr_dtype(buf->u.var.type->dtype, dt));
    pr_expr(P, next->u.store.value, &b);
    emit_top(P, &b);
    return true;
}

/* ================================================================ views */

static bool same_exprs(IrExpr *const *a, int na, IrExpr *const *b, int nb)
{
    if (na != nb)
        return false;
    for (int i = 0; i < na; i++)
        if (!ar_expr_equal(a[i], b[i]))
            return false;
    return true;
}

/* The parent of a view: `data` is literally `P.data` of a printed buffer. */
static const IrExpr *view_parent(Printer *P, const IrExpr *child, const IrExpr *data)
{
    if (!data || data->kind != IR_E_CALL || data->u.call.op != IR_OP_BUFFER_DATA ||
        data->u.call.nargs != 1)
        return NULL;
    const IrExpr *parent = data->u.call.args[0];
    if (!ir_is_buffer(parent) || parent == child || !pr_is_defined(P, parent))
        return NULL;
    return parent;
}

typedef struct ViewCheck {
    const IrBufferType *c, *p;
    bool same_offset, same_dtype, same_shape, same_strides;
    IrDType cdt, pdt;
} ViewCheck;

static int64_t elem_bits(IrDType t) { return (int64_t)t.bits * (t.lanes > 1 ? t.lanes : 1); }

static char *view_dtype_sugar(Printer *P, const ViewCheck *v, const char *pname)
{
    const IrBufferType *c = v->c, *p = v->p;
    if (!v->same_offset || v->same_dtype || c->ndim != p->ndim || c->ndim == 0)
        return NULL;
    if (!c->layout != !p->layout)
        return NULL; /* the view derives its layout from the parent's (none from none) */
    LyCtx lc = ly_ctx(&P->arena);
    if (c->layout && !pr_layout_equal(c->layout, ly_retype(&lc, p->layout, elem_bits(v->pdt),
                                                             elem_bits(v->cdt))))
        return NULL; /* not the layout view(dtype) derives (a same-width one adds an iter) */
    if (!same_exprs(c->shape, c->ndim - 1, p->shape, p->ndim - 1))
        return NULL;
    const IrExpr *cl = c->shape[c->ndim - 1], *pl = p->shape[p->ndim - 1];
    if (cl->kind != IR_E_INT || pl->kind != IR_E_INT)
        return NULL;
    int cb = v->cdt.bits, pb = v->pdt.bits;
    bool up = cb > pb;
    int ratio = up ? cb / pb : pb / cb;
    if (up ? pl->u.int_val != cl->u.int_val * ratio : cl->u.int_val != pl->u.int_val * ratio)
        return NULL;
    const IrLayout *pl_ = p->layout;
    if (up && pl_ && pl_->kind == IR_LAYOUT_TILE && pl_->nshard) {
        const IrIter *last = &pl_->shard[pl_->nshard - 1];
        if (!pr_is_int(last->stride, 1) || last->extent->kind != IR_E_INT ||
            last->extent->u.int_val % ratio)
            return NULL;
    }
    char dt[IR_DTYPE_STR_MAX];
    TxBuf b = {0};
    tx_buf_printf(&b, "%s.view(\"%s\")", pname, pr_dtype(v->cdt, dt));
    return take(&b);
}

static bool find_permutation(const IrBufferType *c, const IrBufferType *p, int *perm)
{
    bool used[64] = {0};
    if (c->ndim > 64)
        return false;
    for (int i = 0; i < c->ndim; i++) {
        perm[i] = -1;
        for (int j = 0; j < p->ndim && perm[i] < 0; j++)
            if (!used[j] && ar_expr_equal(c->shape[i], p->shape[j]))
                perm[i] = j, used[j] = true;
        if (perm[i] < 0)
            return false;
    }
    for (int i = 0; i < c->ndim; i++)
        if (perm[i] != i)
            return true;
    return false; /* the identity is not a permute */
}

static bool permuted_layout(const IrLayout *cl, const IrLayout *pl, const int *perm)
{
    if (!cl || !pl || cl->kind != IR_LAYOUT_TILE || pl->kind != IR_LAYOUT_TILE ||
        cl->nshard != pl->nshard || cl->nreplica != pl->nreplica || cl->noffset != pl->noffset)
        return false;
    for (int i = 0; i < cl->nshard; i++) {
        const IrIter *a = &cl->shard[i], *b = &pl->shard[perm[i]];
        if (strcmp(a->axis, b->axis) || !ar_expr_equal(a->extent, b->extent) ||
            !ar_expr_equal(a->stride, b->stride))
            return false;
    }
    IrLayout cr = *cl, pr = *pl;
    cr.nshard = pr.nshard = 0;
    return pr_layout_equal(&cr, &pr);
}

static char *view_permute_sugar(const ViewCheck *v, const char *pname)
{
    const IrBufferType *c = v->c, *p = v->p;
    int perm[64];
    if (!v->same_offset || !v->same_dtype || v->same_shape || c->ndim != p->ndim ||
        !find_permutation(c, p, perm) || !permuted_layout(c->layout, p->layout, perm))
        return NULL;
    TxBuf b = {0};
    tx_buf_printf(&b, "%s.permute(", pname);
    for (int i = 0; i < c->ndim; i++)
        tx_buf_printf(&b, "%s%d", i ? ", " : "", perm[i]);
    tx_buf_putc(&b, ')');
    return take(&b);
}

/* The element count of a constant shape, or -1. */
static int64_t const_count(const IrBufferType *b)
{
    int64_t n = 1, v;
    for (int i = 0; i < b->ndim; i++) {
        if (!ar_const_int(b->shape[i], &v))
            return -1;
        n *= v;
    }
    return n;
}

static char *view_reshape_sugar(Printer *P, const ViewCheck *v, const char *pname)
{
    const IrBufferType *c = v->c, *p = v->p;
    if (!v->same_offset || !v->same_dtype || v->same_shape || !v->same_strides)
        return NULL;
    /* A view of fewer elements (a select at offset 0) names its layout:
     * without one, view() would require the parent's size (deviation: the
     * reference prints `P.view(64, 32)`, which it cannot parse back). */
    bool resized = const_count(c) >= 0 && const_count(p) >= 0 && const_count(c) != const_count(p);
    /* Without layout= a view keeps its parent's layout object, so any other
     * layout is printed, even one equal to it in value (deviation: the
     * reference omits a default layout, which then reads back as the
     * parent's). */
    bool same_layout = !resized && pr_layout_equal(c->layout, p->layout);
    if (!same_layout && !c->layout)
        return NULL; /* view(layout=None) inherits the parent's layout */
    TxBuf b = {0};
    tx_buf_printf(&b, "%s.view(", pname);
    for (int i = 0; i < c->ndim; i++) {
        if (i)
            tx_buf_puts(&b, ", ");
        pr_expr(P, c->shape[i], &b);
    }
    if (!same_layout) {
        tx_buf_puts(&b, c->ndim ? ", layout=" : "layout=");
        pr_layout(P, c->layout, &b);
    }
    tx_buf_putc(&b, ')');
    return take(&b);
}

static bool has_thread_iter(const IrLayout *l)
{
    if (!l || l->kind != IR_LAYOUT_TILE)
        return false;
    for (int i = 0; i < l->nshard; i++)
        if (ly_axis_kind(l->shard[i].axis) == LY_THREAD)
            return true;
    return false;
}

/* Equal as the reference's analyzer would prove it: equal constants, or the
 * same expression. */
static bool provably_equal(const IrExpr *a, const IrExpr *b)
{
    if (a->kind == IR_E_INT && b->kind == IR_E_INT)
        return a->u.int_val == b->u.int_val;
    return ar_expr_equal(a, b);
}

/* `P.local()` / `P.local(d0, ...)` / `P.local(..., layout=L)`: the calling
 * thread's slice of a thread-distributed parent: the child spans the parent's
 * per-thread storage (default layout), or restates its own layout. */
static char *view_local_sugar(Printer *P, const ViewCheck *v, const char *pname)
{
    const IrBufferType *c = v->c, *p = v->p;
    if (!v->same_offset || !v->same_dtype || !v->same_strides || !c->layout ||
        !has_thread_iter(p->layout) || pr_layout_is_default(P, p->layout, p->shape, p->ndim))
        return NULL;
    LyCtx lc = ly_ctx(&P->arena);
    const IrLayout *storage = ly_storage(&lc, p->layout);
    if (!storage)
        return NULL;
    IrExpr *span = ly_span(&lc, storage, NULL), *size = ly_size(&lc, storage, NULL);
    IrExpr *total = ir_i32(&P->arena, 1);
    for (int i = 0; i < c->ndim; i++)
        total = pr_fold_mul(P, total, c->shape[i]);
    bool default_physical =
        pr_layout_is_default(P, c->layout, c->shape, c->ndim) && provably_equal(total, span);
    bool explicit_layout = !default_physical && !has_thread_iter(c->layout);
    if (!default_physical && !explicit_layout)
        return NULL;
    bool auto_shape = c->ndim == 1 && provably_equal(c->shape[0], default_physical ? span : size);
    TxBuf b = {0};
    tx_buf_printf(&b, "%s.local(", pname);
    const char *sep = "";
    for (int i = 0; i < c->ndim && !auto_shape; i++, sep = ", ")
        tx_buf_puts(&b, sep), pr_expr(P, c->shape[i], &b);
    if (explicit_layout)
        tx_buf_printf(&b, "%slayout=", sep), pr_layout(P, c->layout, &b);
    tx_buf_putc(&b, ')');
    return take(&b);
}

/* The reference's DeclBuffer re-sugaring (local, view(dtype), permute,
 * view(shape)). `P.partition(...)` does not reparse (no such method): it
 * prints as explicit T.decl_buffer (a deliberate deviation). */
static char *view_sugar(Printer *P, const IrExpr *child, const IrExpr *data)
{
    const IrExpr *parent = view_parent(P, child, data);
    if (!parent)
        return NULL;
    const IrType *ct = child->u.var.type, *pt = parent->u.var.type;
    ViewCheck v = {.c = ct->buf, .p = pt->buf, .cdt = ct->dtype, .pdt = pt->dtype};
    if (strcmp(ct->scope, pt->scope) || v.c->align != v.p->align ||
        v.c->offset_factor != v.p->offset_factor ||
        !same_exprs(v.c->allocated_addr, v.c->naddr, v.p->allocated_addr, v.p->naddr))
        return NULL;
    v.same_offset = ar_expr_equal(v.c->elem_offset, v.p->elem_offset);
    v.same_dtype = ir_dtype_eq(v.cdt, v.pdt);
    v.same_shape = same_exprs(v.c->shape, v.c->ndim, v.p->shape, v.p->ndim);
    v.same_strides = same_exprs(v.c->strides, v.c->nstrides, v.p->strides, v.p->nstrides);
    const char *pname = pr_text(P, parent);
    char *s = view_local_sugar(P, &v, pname);
    if (!s)
        s = view_dtype_sugar(P, &v, pname);
    if (!s)
        s = view_permute_sugar(&v, pname);
    if (!s)
        s = view_reshape_sugar(P, &v, pname);
    return s;
}

static void print_decl(Printer *P, const IrStmt *s)
{
    const IrExpr *buf = s->u.decl.buffer, *data = s->u.decl.data;
    char *rhs = view_sugar(P, buf, data);
    if (!rhs) {
        Quote q = {0};
        BufAttrs a;
        buffer_attrs(P, buf, DEF_NONE, data, &q, pr_top(P), &a);
        const char *method = decl_method(P, buf, data, &a);
        TxBuf r = {0};
        buffer_call(method, NULL, &a, &r);
        tx_buf_putc(&r, ')');
        free_attrs(&a);
        rhs = take(&r);
    }
    TxBuf b = {0};
    tx_buf_printf(&b, "%s = %s", pr_define(P, buf, pr_top(P)), rhs);
    free(rhs);
    emit_top(P, &b);
}

/* ================================================================ simple statements */

static void print_bind(Printer *P, const IrStmt *s)
{
    const IrExpr *var = s->u.bind.var;
    TxBuf type = {0};
    bool has_type = var->u.var.type->kind != IR_TY_TUPLE;
    if (has_type)
        pr_type(P, var->u.var.type, &type);
    TxBuf rhs = {0};
    pr_expr(P, s->u.bind.value, &rhs);
    char *t = take(&type), *r = take(&rhs);
    TxBuf b = {0};
    if (!pr_is_defined(P, var)) {
        const char *name = pr_define(P, var, pr_top(P));
        if (has_type)
            tx_buf_printf(&b, "%s: T.let[%s] = %s", name, t, r);
        else
            tx_buf_printf(&b, "%s: T.let = %s", name, r);
    } else {
        tx_buf_printf(&b, "%s = %s", pr_text(P, var), r);
    }
    free(t);
    free(r);
    emit_top(P, &b);
}

static void print_store(Printer *P, const IrStmt *s)
{
    const IrExpr *buf = s->u.store.buffer;
    TxBuf name = {0};
    pr_var_use(P, buf, &name); /* defines a free buffer before the value */
    tx_buf_free(&name);
    TxBuf value = {0};
    pr_expr(P, s->u.store.value, &value);
    char *v = take(&value);
    TxBuf b = {0};
    tx_buf_puts(&b, pr_text(P, buf));
    if (pr_is_scalar_access(buf, s->u.store.indices, s->u.store.n, s->u.store.predicate)) {
        tx_buf_printf(&b, " = %s", v);
    } else if (s->u.store.predicate) {
        IrExpr list = {.kind = IR_E_LIST, .dtype = IR_VOID};
        list.u.list.n = s->u.store.n, list.u.list.items = s->u.store.indices;
        tx_buf_puts(&b, ".vstore(");
        pr_expr(P, &list, &b);
        tx_buf_printf(&b, ", %s, predicate=", v);
        pr_expr(P, s->u.store.predicate, &b);
        tx_buf_putc(&b, ')');
    } else {
        pr_indices(P, s->u.store.indices, s->u.store.n, true, &b);
        tx_buf_printf(&b, " = %s", v);
    }
    free(v);
    emit_top(P, &b);
}

static void print_eval(Printer *P, const IrStmt *s)
{
    const IrExpr *e = s->u.eval;
    TxBuf b = {0};
    bool bare = e->kind == IR_E_CALL && e->u.call.op != IR_OP_BUFFER_DATA;
    if (!bare)
        tx_buf_puts(&b, "T.evaluate(");
    pr_expr(P, e, &b);
    if (!bare)
        tx_buf_putc(&b, ')');
    emit_top(P, &b);
}

static void print_assert(Printer *P, const IrStmt *s)
{
    TxBuf b = {0};
    tx_buf_puts(&b, "assert ");
    pr_expr(P, s->u.assert_.cond, &b);
    tx_buf_puts(&b, ", (");
    pr_string_literal(&b, s->u.assert_.kind ? s->u.assert_.kind : "RuntimeError");
    tx_buf_puts(&b, ", [");
    for (int i = 0; i < s->u.assert_.nparts; i++) {
        if (i)
            tx_buf_puts(&b, ", ");
        pr_string_literal(&b, s->u.assert_.parts[i]);
    }
    tx_buf_puts(&b, "])");
    emit_top(P, &b);
}

static void print_return(Printer *P, const IrStmt *s)
{
    TxBuf b = {0};
    tx_buf_puts(&b, "return");
    if (s->u.ret) {
        tx_buf_putc(&b, ' ');
        pr_expr(P, s->u.ret, &b);
    }
    emit_top(P, &b);
}

static void print_scope_id(Printer *P, const IrStmt *s)
{
    const IrStmt *d = s;
    TxBuf b = {0};
    for (int i = 0; i < d->u.scopeid.nvars; i++)
        tx_buf_printf(&b, "%s%s", i ? ", " : "", pr_define(P, d->u.scopeid.vars[i], pr_top(P)));
    tx_buf_printf(&b, " = T.%s(", ir_scopeids[d->u.scopeid.kind].name);
    const char *sep = "";
    if (d->u.scopeid.kind != IR_SCOPEID_CTA_ID_IN_PAIR && d->u.scopeid.extents) {
        IrExpr list = {.kind = IR_E_LIST, .dtype = IR_VOID};
        list.u.list.n = d->u.scopeid.nvars, list.u.list.items = d->u.scopeid.extents;
        pr_expr(P, &list, &b);
        sep = ", ";
    }
    if (d->u.scopeid.preferred) {
        IrExpr list = {.kind = IR_E_LIST, .dtype = IR_VOID};
        list.u.list.n = d->u.scopeid.npreferred, list.u.list.items = d->u.scopeid.preferred;
        tx_buf_printf(&b, "%spreferred=", sep);
        pr_expr(P, &list, &b);
        sep = ", ";
    }
    if (d->u.scopeid.nvars) {
        IrDType t = d->u.scopeid.vars[0]->dtype;
        char dt[IR_DTYPE_STR_MAX];
        if (!ir_dtype_eq(t, IR_INT32))
            tx_buf_printf(&b, "%sdtype=\"%s\"", sep, pr_dtype(t, dt));
    }
    tx_buf_putc(&b, ')');
    emit_top(P, &b);
}

/* ================================================================ control flow */

static void print_if(Printer *P, const IrStmt *s)
{
    TxBuf head = {0};
    tx_buf_puts(&head, "if ");
    pr_expr(P, s->u.ifs.cond, &head);
    char **then_s, **else_s = NULL;
    int nthen, nelse = 0;
    print_frame_body(P, s->u.ifs.then_s, s->u.ifs.then_s, &then_s, &nthen);
    if (s->u.ifs.else_s)
        print_frame_body(P, s->u.ifs.else_s, s->u.ifs.else_s, &else_s, &nelse);
    char *h = take(&head);
    TxBuf b = {0};
    pr_block(&b, h, then_s, nthen);
    if (nelse)
        tx_buf_putc(&b, '\n'), pr_block(&b, "else", else_s, nelse);
    free(h);
    pr_free_stmts(then_s, nthen);
    pr_free_stmts(else_s, nelse);
    emit_top(P, &b);
}

static void print_while(Printer *P, const IrStmt *s)
{
    TxBuf head = {0};
    tx_buf_puts(&head, "while ");
    pr_expr(P, s->u.whl.cond, &head);
    char **body;
    int n;
    print_frame_body(P, s, s->u.whl.body, &body, &n);
    char *h = take(&head);
    emit_block(P, h, body, n);
    free(h);
}

/* ================================================================ loops */

static bool trivial_step(const IrStmt *l) { return !l->u.loop.step || pr_is_int(l->u.loop.step, 1); }

static bool uses_any(const IrExpr *e, const IrExpr *const *vars, int n)
{
    PrExprVec vs = {0};
    pr_collect_vars(e, &vs);
    bool found = false;
    for (int i = 0; i < vs.len && !found; i++)
        for (int j = 0; j < n && !found; j++)
            found = vs.items[i] == vars[j];
    tx_vec_free(&vs);
    return found;
}

/* Perfectly nested plain serial loops from 0 with independent extents. */
static int grid_depth(const IrStmt *loop, const IrExpr **vars, int max)
{
    int n = 0;
    for (const IrStmt *l = loop; l && l->kind == IR_S_FOR && n < max; l = l->u.loop.body) {
        if (l->u.loop.kind != IR_FOR_SERIAL || !pr_is_int(l->u.loop.min, 0) || l->u.loop.nannot ||
            !trivial_step(l) || uses_any(l->u.loop.extent, vars, n))
            break;
        vars[n++] = l->u.loop.var;
    }
    return n;
}

static void print_grid(Printer *P, const IrStmt *loop, int n)
{
    TxBuf head = {0}, ext = {0};
    const IrStmt *l = loop;
    P->frames.items[pr_top(P)].in_header = true;
    for (int i = 0; i < n; i++, l = l->u.loop.body) {
        tx_buf_printf(&head, "%s%s", i ? ", " : "for ", pr_define(P, l->u.loop.var, pr_top(P)));
        tx_buf_puts(&ext, i ? ", " : "");
        pr_expr(P, l->u.loop.extent, &ext);
    }
    P->frames.items[pr_top(P)].in_header = false;
    char *e = take(&ext);
    tx_buf_printf(&head, " in T.grid(%s)", e);
    free(e);
    pr_body(P, l);
    char **body;
    int nb;
    pr_frame_close(P, &body, &nb);
    char *h = take(&head);
    emit_block(P, h, body, nb);
    free(h);
}

static const IrKwarg *single_annot(const IrStmt *l, const char *key)
{
    return l->u.loop.nannot == 1 && !strcmp(l->u.loop.annot[0].key, key) ? &l->u.loop.annot[0]
                                                                          : NULL;
}

/* `annotations={...}`, or `unroll=` for a lone disable_unroll / pragma_unroll
 * of a serial loop (deviation: the reference prints it on any loop kind, but
 * only T.serial takes unroll=). */
static void print_loop_annotations(Printer *P, const IrStmt *l, const char **sep, TxBuf *args)
{
    if (!l->u.loop.nannot)
        return;
    const IrKwarg *kw;
    bool serial = l->u.loop.kind == IR_FOR_SERIAL;
    if (serial && single_annot(l, "disable_unroll")) {
        tx_buf_printf(args, "%sunroll=False", *sep);
    } else if (serial && (kw = single_annot(l, "pragma_unroll"))) {
        tx_buf_printf(args, "%sunroll=", *sep);
        pr_expr(P, kw->value, args);
    } else {
        IrExpr dict = {.kind = IR_E_DICT, .dtype = IR_VOID};
        dict.u.list.n = l->u.loop.nannot, dict.u.list.kwargs = l->u.loop.annot;
        tx_buf_printf(args, "%sannotations=", *sep);
        pr_expr(P, &dict, args);
    }
    *sep = ", ";
}

/* The arguments of `range(...)` / `T.<kind>(...)`: bounds (the start only
 * when not 0 or with a step), thread=, annotations or unroll=, step. */
static char *loop_args(Printer *P, const IrStmt *loop, bool range)
{
    TxBuf args = {0};
    if (!pr_is_int(loop->u.loop.min, 0) || !trivial_step(loop)) {
        pr_expr(P, loop->u.loop.min, &args);
        tx_buf_puts(&args, ", ");
        pr_expr(P, pr_fold_add(P, loop->u.loop.min, loop->u.loop.extent), &args);
    } else {
        pr_expr(P, loop->u.loop.extent, &args);
    }
    const char *sep = ", ";
    if (loop->u.loop.kind == IR_FOR_THREAD_BINDING) {
        tx_buf_puts(&args, ", thread=");
        pr_string_literal(&args, loop->u.loop.thread ? loop->u.loop.thread : "");
    }
    print_loop_annotations(P, loop, &sep, &args);
    if (!trivial_step(loop)) {
        tx_buf_puts(&args, range ? ", " : ", step=");
        pr_expr(P, loop->u.loop.step, &args);
    }
    return take(&args);
}

static void print_for(Printer *P, const IrStmt *loop)
{
    const IrExpr *gvars[16];
    pr_frame_open(P, loop);
    int depth = grid_depth(loop, gvars, 16);
    if (depth > 1) {
        print_grid(P, loop, depth);
        return;
    }
    const char *var = pr_define(P, loop->u.loop.var, pr_top(P));
    IrForKind kind = loop->u.loop.kind;
    /* range(n) of an int8 ... uint16 n would start at a Python 0 and promote
     * n (deviation: the reference prints range(n), which reads back so) */
    IrDType vt = loop->u.loop.var->dtype;
    bool narrow = (vt.code == IR_DT_INT || vt.code == IR_DT_UINT) && vt.bits < 32;
    bool range = kind == IR_FOR_SERIAL && !loop->u.loop.nannot &&
                 !(narrow && pr_is_int(loop->u.loop.min, 0) && trivial_step(loop));
    P->frames.items[pr_top(P)].in_header = true;
    char *a = loop_args(P, loop, range);
    P->frames.items[pr_top(P)].in_header = false;
    TxBuf head = {0};
    tx_buf_printf(&head, "for %s in %s%s(%s)", var, range ? "" : "T.",
                  range ? "range" : ir_for_names[kind], a);
    free(a);
    pr_body(P, loop->u.loop.body);
    char **body;
    int nb;
    pr_frame_close(P, &body, &nb);
    char *h = take(&head);
    emit_block(P, h, body, nb);
    free(h);
}

/* ================================================================ attributes */

static bool is_dict_attr(const IrStmt *s)
{
    const IrExpr *n = s->u.attr.node;
    return s->kind == IR_S_ATTR && n && (n->kind == IR_E_INT || n->kind == IR_E_PYINT) &&
           n->u.int_val == 0;
}

static bool is_thread_attr(const IrStmt *s)
{
    return (!strcmp(s->u.attr.key, "thread_extent") || !strcmp(s->u.attr.key, "virtual_thread")) &&
           s->u.attr.node && s->u.attr.node->kind == IR_E_VAR;
}

static const char *thread_tag(const IrStmt *s)
{
    return s->u.attr.thread_tag ? s->u.attr.thread_tag : s->u.attr.node->u.var.name;
}

/* `T.launch_thread(var-or-tag, extent)`; *defines is set when the statement
 * defines the variable (all uses inside it). */
static void launch_thread_header(Printer *P, const IrStmt *s, const IrExpr **defines, TxBuf *out)
{
    const IrExpr *var = s->u.attr.node;
    tx_buf_puts(out, "T.launch_thread(");
    if (pr_is_defined(P, var)) {
        tx_buf_puts(out, pr_text(P, var));
    } else if (pr_dominates_uses(P, s, var)) {
        pr_string_literal(out, thread_tag(s));
        *defines = var;
    } else {
        int f = pr_free_def_frame(P, var);
        TxBuf env = {0};
        tx_buf_printf(&env, "%s = T.env_thread(", pr_define(P, var, f));
        pr_string_literal(&env, thread_tag(s));
        tx_buf_putc(&env, ')');
        pr_emit(P, f, take(&env));
        tx_buf_puts(out, pr_text(P, var));
    }
    tx_buf_puts(out, ", ");
    pr_expr(P, s->u.attr.value, out);
    tx_buf_putc(out, ')');
}

/* `T.hint("message", k=v, ...)` from a tirx_hint map (in stored order). */
static bool hint_header(Printer *P, const IrStmt *s, TxBuf *out)
{
    const IrExpr *node = s->u.attr.node;
    if (strcmp(s->u.attr.key, "tirx_hint") || !node || node->kind != IR_E_DICT)
        return false;
    tx_buf_puts(out, "T.hint(");
    const char *sep = "";
    for (int i = 0; i < node->u.list.n; i++) {
        const IrKwarg *kw = &node->u.list.kwargs[i];
        if (!strcmp(kw->key, "message") && kw->value->kind == IR_E_STR) {
            tx_buf_puts(out, sep), pr_string_literal(out, kw->value->u.str), sep = ", ";
        } else {
            tx_buf_printf(out, "%s%s=", sep, kw->key), sep = ", ";
            pr_expr(P, kw->value, out);
        }
    }
    tx_buf_putc(out, ')');
    return true;
}

/* Whether `key` is the key of an attribute of the chain from `first` up to `end`: a
 * repeated key starts a new dict (a dict holds each key once). */
static bool key_in_chain(const IrStmt *first, const IrStmt *end, const char *key)
{
    for (const IrStmt *c = first; c != end; c = c->u.attr.body)
        if (!strcmp(c->u.attr.key, key))
            return true;
    return false;
}

/* Directly nested dict-pattern attributes merge into one `T.attr({...})`;
 * returns the body after the chain. */
static const IrStmt *dict_attr_header(Printer *P, const IrStmt *s, TxBuf *out)
{
    tx_buf_puts(out, "T.attr({");
    const IrStmt *cur = s;
    for (int i = 0;; i++) {
        if (i)
            tx_buf_puts(out, ", ");
        pr_string_literal(out, cur->u.attr.key);
        tx_buf_puts(out, ": ");
        pr_expr(P, cur->u.attr.value, out);
        if (!cur->u.attr.body || !is_dict_attr(cur->u.attr.body) ||
            key_in_chain(s, cur->u.attr.body, cur->u.attr.body->u.attr.key))
            break;
        cur = cur->u.attr.body;
    }
    tx_buf_puts(out, "})");
    return cur->u.attr.body;
}

/* The header of an attribute statement; returns the body it wraps (after a
 * merged dict chain). *defines: the variable a launch_thread defines. */
static const IrStmt *attr_header(Printer *P, const IrStmt *s, const IrExpr **defines, TxBuf *head)
{
    if (is_thread_attr(s)) {
        launch_thread_header(P, s, defines, head);
    } else if (is_dict_attr(s)) {
        return dict_attr_header(P, s, head);
    } else if (!hint_header(P, s, head)) {
        tx_buf_puts(head, "T.attr(");
        pr_expr(P, s->u.attr.node, head);
        tx_buf_puts(head, ", ");
        pr_string_literal(head, s->u.attr.key);
        tx_buf_puts(head, ", ");
        pr_expr(P, s->u.attr.value, head);
        tx_buf_putc(head, ')');
    }
    return s->u.attr.body;
}

/* Concise scoping: `[lhs = ]header` and the body at the same level when the
 * statement is alone in its body, else `with header[ as lhs]:` + block. */
static void print_attr(Printer *P, const IrStmt *s)
{
    bool concise = P->frames.items[pr_top(P)].concise;
    const IrExpr *defines = NULL;
    TxBuf head = {0};
    const IrStmt *body = attr_header(P, s, &defines, &head);
    pr_frame_open(P, s);
    const char *lhs = defines ? pr_define(P, defines, pr_top(P)) : NULL;
    if (body)
        pr_body(P, body);
    char **stmts;
    int n;
    pr_frame_close(P, &stmts, &n);
    char *h = take(&head);
    TxBuf b = {0};
    if (concise) {
        tx_buf_printf(&b, "%s%s%s", lhs ? lhs : "", lhs ? " = " : "", h);
        emit_top(P, &b);
        for (int i = 0; i < n; i++)
            pr_emit(P, pr_top(P), stmts[i]);
        free(stmts);
    } else {
        tx_buf_printf(&b, "with %s%s%s", h, lhs ? " as " : "", lhs ? lhs : "");
        char *hdr = take(&b);
        emit_block(P, hdr, stmts, n);
        free(hdr);
    }
    free(h);
}

/* ================================================================ tile primitives */

static const char *tile_namespace(IrScope scope)
{
    switch (scope) {
    case IR_SCOPE_WARP: return "warp";
    case IR_SCOPE_WARPGROUP: return "wg";
    case IR_SCOPE_CTA: return "cta";
    case IR_SCOPE_CLUSTER: return "cluster";
    default: return "tile";
    }
}

static bool same_region(const IrExpr *a, const IrExpr *b)
{
    return a->kind == IR_E_REGION && b->kind == IR_E_REGION && a->u.access.buffer == b->u.access.buffer &&
           same_exprs(a->u.access.indices, a->u.access.n, b->u.access.indices, b->u.access.n) &&
           same_exprs(a->u.access.extents, a->u.access.n, b->u.access.extents, b->u.access.n);
}

/* `workspace={...}` (sorted), `dispatch="..."`, then config as sorted k=v. */
static void print_tile_kwargs(Printer *P, const IrStmt *s, const char *sep, TxBuf *out)
{
    if (s->u.tile.nworkspace) {
        IrExpr dict = {.kind = IR_E_DICT, .dtype = IR_VOID};
        dict.u.list.n = s->u.tile.nworkspace, dict.u.list.kwargs = s->u.tile.workspace;
        tx_buf_printf(out, "%sworkspace=", sep), sep = ", ";
        pr_expr(P, &dict, out);
    }
    if (s->u.tile.dispatch) {
        tx_buf_printf(out, "%sdispatch=", sep), sep = ", ";
        pr_string_literal(out, s->u.tile.dispatch);
    }
    for (int i = 0; i < s->u.tile.nconfig; i++) {
        tx_buf_printf(out, "%s%s=", sep, s->u.tile.config[i].key), sep = ", ";
        pr_expr(P, s->u.tile.config[i].value, out);
    }
}

static void print_tile(Printer *P, const IrStmt *s)
{
    const char *ns = tile_namespace(s->u.tile.scope);
    TxBuf b = {0};
    if (s->u.tile.body) {
        char **body;
        int n;
        print_frame_body(P, s, s->u.tile.body, &body, &n);
        tx_buf_printf(&b, "with T.%s.compose_op(", ns);
        print_tile_kwargs(P, s, "", &b);
        tx_buf_putc(&b, ')');
        char *h = take(&b);
        emit_block(P, h, body, n);
        free(h);
        return;
    }
    int n = s->u.tile.nargs;
    while (n > 0 && s->u.tile.args[n - 1]->kind == IR_E_NONE)
        n--;
    /* The one-operand form of a call of two identical regions (deviation: the reference
     * uses it for every op, also those that do not read it back, like memset). */
    bool inplace = n == 2 && same_region(s->u.tile.args[0], s->u.tile.args[1]) &&
                   sc_tile_reads_in_place(s->u.tile.op);
    tx_buf_printf(&b, "T.%s.%s(", ns, ir_tile_ops[s->u.tile.op].name);
    for (int i = 0; i < n; i++) {
        if (inplace && i == 1)
            continue;
        if (i)
            tx_buf_puts(&b, ", ");
        pr_expr(P, s->u.tile.args[i], &b);
    }
    print_tile_kwargs(P, s, n ? ", " : "", &b);
    tx_buf_putc(&b, ')');
    emit_top(P, &b);
}

/* ================================================================ dispatch */

static void print_stmt(Printer *P, const IrStmt *s)
{
    TxBuf b = {0};
    switch (s->kind) {
    case IR_S_BIND: print_bind(P, s); break;
    case IR_S_ALLOC: print_alloc(P, s); break;
    case IR_S_DECL: print_decl(P, s); break;
    case IR_S_SCOPEID: print_scope_id(P, s); break;
    case IR_S_FOR: print_for(P, s); break;
    case IR_S_WHILE: print_while(P, s); break;
    case IR_S_IF: print_if(P, s); break;
    case IR_S_ATTR: print_attr(P, s); break;
    case IR_S_EVAL: print_eval(P, s); break;
    case IR_S_STORE: print_store(P, s); break;
    case IR_S_ASSERT: print_assert(P, s); break;
    case IR_S_RETURN: print_return(P, s); break;
    case IR_S_TILE: print_tile(P, s); break;
    case IR_S_BREAK: tx_buf_puts(&b, "break"), emit_top(P, &b); break;
    case IR_S_CONTINUE: tx_buf_puts(&b, "continue"), emit_top(P, &b); break;
    case IR_S_SEQ: {
        pr_frame_open(P, s);
        pr_body(P, s);
        char **stmts;
        int n;
        pr_frame_close(P, &stmts, &n);
        for (int i = 0; i < n; i++)
            pr_emit(P, pr_top(P), stmts[i]);
        free(stmts);
        break;
    }
    default: break;
    }
}

/* The reference's AsDocBody: a sole statement may use concise scoping; in a
 * sequence the flag is updated only after each element is printed, so an
 * attribute statement inside a sequence always prints as a `with` block. */
void pr_body(Printer *P, const IrStmt *body)
{
    int top = pr_top(P);
    if (body->kind != IR_S_SEQ) {
        P->frames.items[top].concise = true;
        print_stmt(P, body);
        return;
    }
    int n = body->u.seq.n;
    for (int i = 0; i < n;) {
        const IrStmt *s = body->u.seq.stmts[i];
        int consumed = 1;
        if (i + 1 < n && print_fused_scalar_init(P, s, body->u.seq.stmts[i + 1]))
            consumed = 2;
        else
            print_stmt(P, s);
        P->frames.items[top].concise = i + consumed >= n;
        i += consumed;
    }
}
