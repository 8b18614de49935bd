/* The printer's driver: modules and functions, the variable table with
 * unique-name generation, printer frames, the pre-pass that finds where each
 * free variable must be defined, and the text helpers shared by the other
 * printer files (indented blocks, string and float literals). The canonical
 * form is the reference TVMScript printer's output (script_surface.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/visit.h"
#include "print_internal.h"
#include "script.h"

/* ================================================================ text helpers */

static void put_indented(TxBuf *out, const char *text, int indent)
{
    for (const char *line = text;;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        tx_buf_putc(out, '\n');
        if (n)
            tx_buf_printf(out, "%*s", indent, "");
        tx_buf_putn(out, line, n);
        if (!nl)
            break;
        line = nl + 1;
    }
}

void pr_block(TxBuf *out, const char *header, char **stmts, int n)
{
    tx_buf_puts(out, header);
    tx_buf_putc(out, ':');
    for (int i = 0; i < n; i++)
        put_indented(out, stmts[i], 4);
    if (n == 0)
        tx_buf_puts(out, "\n    pass");
}

void pr_free_stmts(char **stmts, int n)
{
    for (int i = 0; i < n; i++)
        free(stmts[i]);
    free(stmts);
}

/* Double quotes; `"`, `\` and \t \r \n escaped; other bytes outside printable
 * ASCII as \xNN (the reference's StrEscape). */
void pr_string_literal(TxBuf *out, const char *s)
{
    tx_buf_putc(out, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char c = *p;
        if (c == '"' || c == '\\')
            tx_buf_putc(out, '\\'), tx_buf_putc(out, (char)c);
        else if (c == '\t')
            tx_buf_puts(out, "\\t");
        else if (c == '\r')
            tx_buf_puts(out, "\\r");
        else if (c == '\n')
            tx_buf_puts(out, "\\n");
        else if (c < ' ' || c > '~')
            tx_buf_printf(out, "\\x%02X", c);
        else
            tx_buf_putc(out, (char)c);
    }
    tx_buf_putc(out, '"');
}

/* Integral values as `%.1f` (1.0, 100000.0), others with 17 significant
 * digits (C++ defaultfloat precision 17), inf and nan quoted. */
void pr_float_literal(TxBuf *out, double v)
{
    if (isnan(v))
        tx_buf_puts(out, signbit(v) ? "\"-nan\"" : "\"nan\"");
    else if (isinf(v))
        tx_buf_puts(out, v < 0 ? "\"-inf\"" : "\"inf\"");
    else if (nearbyint(v) == v)
        tx_buf_printf(out, "%.1f", v);
    else
        tx_buf_printf(out, "%.17g", v);
}

const char *pr_dtype(IrDType t, char *buf) { return ir_dtype_str(t, buf); }

/* ================================================================ names */

static uint64_t hash_str(const char *s) { return tx_hash_bytes(s, strlen(s), 0x9e3779b9u); }

static void names_grow(Printer *P);

static PrNameSlot *name_slot(Printer *P, const char *name)
{
    if (2 * (P->name_count + 1) > P->name_cap)
        names_grow(P);
    size_t mask = (size_t)P->name_cap - 1;
    for (size_t i = hash_str(name) & mask;; i = (i + 1) & mask)
        if (!P->names[i].name || !strcmp(P->names[i].name, name))
            return &P->names[i];
}

static void names_grow(Printer *P)
{
    PrNameSlot *old = P->names;
    int old_cap = P->name_cap;
    P->name_cap = old_cap ? old_cap * 2 : 64;
    P->names = calloc((size_t)P->name_cap, sizeof *P->names);
    if (!P->names)
        tx_out_of_memory(sizeof *P->names * (size_t)P->name_cap);
    P->name_count = 0;
    for (int i = 0; i < old_cap; i++)
        if (old[i].name) {
            PrNameSlot *s = name_slot(P, old[i].name);
            *s = old[i];
            P->name_count++;
        }
    free(old);
}

static bool name_taken(Printer *P, const char *name)
{
    PrNameSlot *s = name_slot(P, name);
    return s->name && s->live;
}

static void name_set(Printer *P, const char *name, bool live)
{
    PrNameSlot *s = name_slot(P, name);
    if (!s->name)
        s->name = name, P->name_count++;
    s->live = live;
}

/* Replace characters outside [A-Za-z0-9_] by '_' and add `_1`, `_2`, ...
 * until the name is free. A leading digit gets a `_` in front (the reference
 * prints it verbatim, which does not parse: a deliberate deviation). */
static const char *unique_name(Printer *P, const char *hint)
{
    bool digit = *hint >= '0' && *hint <= '9';
    char *base = tx_arena_printf(&P->arena, "%s%s", digit ? "_" : "", hint);
    for (char *c = base; *c; c++)
        if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
              (*c >= '0' && *c <= '9')))
            *c = '_';
    const char *name = base;
    for (int i = 1; name_taken(P, name); i++)
        name = tx_arena_printf(&P->arena, "%s_%d", base, i);
    name_set(P, name, true);
    return name;
}

/* ================================================================ variables */

PrVar *pr_var(Printer *P, const IrExpr *var)
{
    uintptr_t i;
    if (ir_ptrmap_get(&P->var_index, var, &i))
        return &P->vars.items[i];
    tx_vec_push(&P->vars, ((PrVar){.key = var, .npath = -1}));
    ir_ptrmap_put(&P->var_index, var, (uintptr_t)(P->vars.len - 1));
    return &P->vars.items[P->vars.len - 1];
}

bool pr_is_defined(Printer *P, const IrExpr *var)
{
    PrVar *v = pr_var(P, var);
    return v->text || v->base;
}

static const char *var_hint(const IrExpr *var)
{
    const char *name = var->u.var.name;
    if (name && *name)
        return name;
    return ir_is_buffer(var) ? "buffer" : "v";
}

const char *pr_define(Printer *P, const IrExpr *var, int frame)
{
    PrVar *v = pr_var(P, var);
    if (v->text || v->base)
        return pr_text(P, var);
    v->text = unique_name(P, var_hint(var));
    v->owns_name = true;
    v->frame = frame;
    return v->text;
}

void pr_define_inline(Printer *P, const IrExpr *var, int frame, const IrExpr *buffer,
                      const char *suffix)
{
    PrVar *v = pr_var(P, var);
    v->base = buffer;
    v->suffix = tx_arena_strdup(&P->arena, suffix);
    v->owns_name = false;
    v->frame = frame;
}

const char *pr_text(Printer *P, const IrExpr *var)
{
    PrVar *v = pr_var(P, var);
    if (!v->base)
        return v->text;
    const char *base = pr_text(P, v->base);
    bool scalar = ir_is_buffer(v->base) && pr_is_scalar_buffer(v->base, true);
    return tx_arena_printf(&P->arena, "%s%s%s", base ? base : "buffer", scalar ? ".source" : "",
                           v->suffix);
}

/* ================================================================ frames */

int pr_top(Printer *P) { return P->frames.len - 1; }

void pr_frame_open(Printer *P, const void *tir)
{
    tx_vec_push(&P->frames, ((PrFrame){.tir = tir}));
}

void pr_frame_close(Printer *P, char ***stmts, int *n)
{
    int idx = pr_top(P);
    PrFrame *f = &P->frames.items[idx];
    *stmts = f->stmts.items;
    *n = f->stmts.len;
    for (int i = 0; i < P->vars.len; i++) {
        PrVar *v = &P->vars.items[i];
        if ((v->text || v->base) && v->frame == idx) {
            if (v->owns_name)
                name_set(P, v->text, false);
            v->text = NULL, v->base = NULL;
        }
    }
    P->frames.len--;
}

void pr_emit(Printer *P, int frame, char *stmt) { tx_vec_push(&P->frames.items[frame].stmts, stmt); }

/* The reference maps each IR node to the outermost open frame printing it,
 * then walks the common use path from its deepest node outwards. */
static int deepest_common_frame(Printer *P, const PrVar *v)
{
    if (v->npath < 0)
        return pr_top(P);
    for (int i = v->npath - 1; i >= 0; i--)
        for (int f = 0; f < P->frames.len; f++)
            if (P->frames.items[f].tir == v->path[i])
                return f;
    return 0;
}

int pr_free_def_frame(Printer *P, const IrExpr *var)
{
    int f = deepest_common_frame(P, pr_var(P, var));
    /* a definition inside a loop would come after the header that uses it,
     * one inside a lambda would be dropped */
    while (f > 0 && (P->frames.items[f].in_header || P->frames.items[f].is_lambda))
        f--;
    return f;
}

bool pr_dominates_uses(Printer *P, const void *node, const IrExpr *var)
{
    PrVar *v = pr_var(P, var);
    for (int i = 0; i < v->npath; i++)
        if (v->path[i] == node)
            return true;
    return false;
}

/* ================================================================ use paths */

/* The pre-pass: for every variable, the common prefix of the paths (chains of
 * enclosing function, statements and lambdas) to all of its occurrences,
 * definitions included. */
typedef struct Scan {
    Printer *P;
    TX_VEC(const void *) stack;
} Scan;

static void scan_occurrence(Scan *S, const IrExpr *var)
{
    PrVar *v = pr_var(S->P, var);
    if (v->npath < 0) {
        v->npath = S->stack.len;
        v->path = tx_arena_memdup(&S->P->arena, S->stack.items,
                                  sizeof(void *) * (size_t)S->stack.len);
        return;
    }
    int n = v->npath < S->stack.len ? v->npath : S->stack.len;
    int i = 0;
    while (i < n && v->path[i] == S->stack.items[i])
        i++;
    v->npath = i;
}

static bool scan_expr(IrVisitor *iv, const IrExpr *e)
{
    Scan *S = iv->ctx;
    if (e->kind == IR_E_VAR)
        scan_occurrence(S, e);
    else if (e->kind == IR_E_LAMBDA)
        tx_vec_push(&S->stack, (const void *)e);
    return true;
}

static void scan_expr_post(IrVisitor *iv, const IrExpr *e)
{
    if (e->kind == IR_E_LAMBDA)
        ((Scan *)iv->ctx)->stack.len--;
}

static bool scan_stmt(IrVisitor *iv, const IrStmt *s)
{
    tx_vec_push(&((Scan *)iv->ctx)->stack, (const void *)s);
    return true;
}

static void scan_stmt_post(IrVisitor *iv, const IrStmt *s)
{
    (void)s;
    ((Scan *)iv->ctx)->stack.len--;
}

static void scan_def(IrVisitor *iv, const IrExpr *var, const IrStmt *where)
{
    (void)where;
    scan_occurrence(iv->ctx, var);
}

static void scan_func(Printer *P, const IrFunc *f)
{
    Scan S = {.P = P};
    tx_vec_push(&S.stack, (const void *)f);
    IrVisitor v = {.ctx = &S, .expr = scan_expr, .expr_post = scan_expr_post, .stmt = scan_stmt,
                   .stmt_post = scan_stmt_post, .def = scan_def};
    ir_visit_func(&v, f);
    tx_vec_free(&S.stack);
}

/* ================================================================ functions */

static bool is_param(const IrFunc *f, const IrExpr *v)
{
    for (int i = 0; i < f->nparams; i++)
        if (f->params[i] == v)
            return true;
    return false;
}

typedef PrExprVec ExprList;

static bool list_has(const ExprList *l, const IrExpr *e)
{
    for (int i = 0; i < l->len; i++)
        if (l->items[i] == e)
            return true;
    return false;
}

static void collect_var_list(IrExpr *const *es, int n, ExprList *out)
{
    for (int i = 0; i < n; i++)
        pr_collect_vars(es[i], out);
}

/* Type variables: int64 scalars in the shapes, strides, offsets or addresses
 * of buffer parameters that are not parameters themselves. */
static void collect_type_vars(const IrFunc *f, ExprList *out)
{
    ExprList all = {0};
    for (int i = 0; i < f->nparams; i++) {
        if (!ir_is_buffer(f->params[i]))
            continue;
        const IrBufferType *b = ir_buf(f->params[i]);
        collect_var_list(b->shape, b->ndim, &all);
        collect_var_list(b->strides, b->nstrides, &all);
        pr_collect_vars(b->elem_offset, &all);
        collect_var_list(b->allocated_addr, b->naddr, &all);
    }
    for (int i = 0; i < all.len; i++) {
        const IrType *t = all.items[i]->u.var.type;
        if (!is_param(f, all.items[i]) && t->kind == IR_TY_PRIM && t->dtype.lanes == 1 &&
            t->dtype.code == IR_DT_INT && t->dtype.bits == 64)
            tx_vec_push(out, all.items[i]);
    }
    tx_vec_free(&all);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

typedef struct Signature {
    ExprList bound;       /* variables bound by the parameters printed so far */
    ExprList type_vars;
} Signature;

static void print_param(Printer *P, Signature *sig, const IrExpr *param, TxBuf *out)
{
    if (!ir_is_buffer(param)) {
        tx_buf_puts(out, pr_text(P, param));
        tx_buf_puts(out, ": ");
        pr_type(P, param->u.var.type, out);
        tx_vec_push(&sig->bound, param);
        return;
    }
    const IrBufferType *b = ir_buf(param);
    ExprList shape_vars = {0};
    collect_var_list(b->shape, b->ndim, &shape_vars);
    ExprList quote = {0};
    for (int i = 0; i < shape_vars.len; i++)
        if (!list_has(&sig->bound, shape_vars.items[i]))
            tx_vec_push(&quote, shape_vars.items[i]);
    tx_buf_puts(out, pr_define(P, param, pr_top(P)));
    tx_buf_puts(out, ": ");
    pr_buffer_param(P, param, out, quote.items, quote.len, pr_top(P));
    for (int i = 0; i < shape_vars.len; i++)
        tx_vec_push(&sig->bound, shape_vars.items[i]);
    tx_vec_free(&shape_vars);
    tx_vec_free(&quote);
}

static bool attr_shown(const IrFunc *f, const IrKwarg *kw)
{
    if (!strcmp(kw->key, "global_symbol"))
        return !(kw->value->kind == IR_E_STR && !strcmp(kw->value->u.str, f->name));
    return strcmp(kw->key, "s_tir") != 0 && strcmp(kw->key, "tirx.persistent_kernel") != 0;
}

static int cmp_kwarg(const void *a, const void *b)
{
    return strcmp(((const IrKwarg *)a)->key, ((const IrKwarg *)b)->key);
}

static void print_func_attrs(Printer *P, const IrFunc *f)
{
    IrKwarg *shown = malloc(sizeof(IrKwarg) * (size_t)(f->nattrs + 1));
    if (!shown)
        tx_out_of_memory(sizeof(IrKwarg) * (size_t)(f->nattrs + 1));
    int n = 0;
    for (int i = 0; i < f->nattrs; i++)
        if (attr_shown(f, &f->attrs[i]))
            shown[n++] = f->attrs[i];
    if (n) {
        qsort(shown, (size_t)n, sizeof *shown, cmp_kwarg);
        IrExpr dict = {.kind = IR_E_DICT, .dtype = IR_VOID};
        dict.u.list.n = n, dict.u.list.kwargs = shown;
        TxBuf b = {0};
        tx_buf_puts(&b, "T.func_attr(");
        pr_expr(P, &dict, &b);
        tx_buf_putc(&b, ')');
        pr_emit(P, pr_top(P), tx_buf_take(&b));
    }
    free(shown);
}

static void print_decorator(const IrFunc *f, TxBuf *out)
{
    tx_buf_puts(out, "@T.prim_func");
    if (!f->is_private && !f->is_s_tir && !f->is_persistent)
        return;
    const char *sep = "(";
    if (f->is_private)
        tx_buf_printf(out, "%sprivate=True", sep), sep = ", ";
    if (f->is_s_tir)
        tx_buf_printf(out, "%ss_tir=True", sep), sep = ", ";
    if (f->is_persistent)
        tx_buf_printf(out, "%spersistent=True", sep);
    tx_buf_putc(out, ')');
}

/* The module's TypeVar names not taken by this function's own type variables
 * are kept from its other variables, until release_module_type_vars. */
static void hold_module_type_vars(Printer *P)
{
    for (int i = 0; i < P->nmodule_type_vars; i++) {
        const char *name = P->module_type_vars[i];
        if (!name_taken(P, name)) {
            name_set(P, name, true);
            tx_vec_push(&P->held_names, name);
        }
    }
}

static void release_module_type_vars(Printer *P)
{
    for (int i = 0; i < P->held_names.len; i++)
        name_set(P, P->held_names.items[i], false);
    P->held_names.len = 0;
}

/* Sorted names of the type variables, for the `M = TypeVar("M")` lines. */
static void type_var_names(Printer *P, const ExprList *tvars, const char ***names, int *n)
{
    *n = tvars->len;
    *names = tx_arena_alloc(&P->arena, sizeof(char *) * (size_t)(tvars->len + 1));
    for (int i = 0; i < tvars->len; i++)
        (*names)[i] = pr_text(P, tvars->items[i]);
    qsort((void *)*names, (size_t)*n, sizeof(char *), cmp_str);
}

/* One function: decorator, signature and body, at indentation 0. Its type
 * variables' names are returned for the TypeVar lines. */
/* Decorator and `def name(params) -> ret`, defining the type variables and
 * parameters (scalars first, so a buffer shape may name a later scalar). */
static char *print_signature(Printer *P, const IrFunc *f, Signature *sig)
{
    for (int i = 0; i < sig->type_vars.len; i++)
        pr_define(P, sig->type_vars.items[i], pr_top(P));
    hold_module_type_vars(P);
    for (int i = 0; i < f->nparams; i++)
        if (!ir_is_buffer(f->params[i]))
            pr_define(P, f->params[i], pr_top(P));
    for (int i = 0; i < sig->type_vars.len; i++)
        tx_vec_push(&sig->bound, sig->type_vars.items[i]);
    TxBuf head = {0};
    print_decorator(f, &head);
    tx_buf_printf(&head, "\ndef %s(", f->name);
    for (int i = 0; i < f->nparams; i++) {
        if (i)
            tx_buf_puts(&head, ", ");
        print_param(P, sig, f->params[i], &head);
    }
    tx_buf_putc(&head, ')');
    if (f->ret_type && f->ret_type->kind != IR_TY_TUPLE) {
        tx_buf_puts(&head, " -> ");
        pr_type(P, f->ret_type, &head);
    }
    return tx_buf_take(&head);
}

/* One function at indentation 0. Its type variables' names are returned for
 * the `M = TypeVar("M")` lines. */
static char *print_func(Printer *P, const IrFunc *f, const char ***tv_names, int *ntv)
{
    P->func = f;
    P->vars.len = 0;
    ir_ptrmap_free(&P->var_index);
    scan_func(P, f);
    pr_frame_open(P, f);
    Signature sig = {0};
    collect_type_vars(f, &sig.type_vars);
    P->type_vars = sig.type_vars.items, P->ntype_vars = sig.type_vars.len;
    char *header = print_signature(P, f, &sig);
    type_var_names(P, &sig.type_vars, tv_names, ntv);
    print_func_attrs(P, f);
    if (f->body)
        pr_body(P, f->body);
    char **stmts;
    int n;
    pr_frame_close(P, &stmts, &n);
    TxBuf out = {0};
    pr_block(&out, header, stmts, n);
    free(header);
    pr_free_stmts(stmts, n);
    release_module_type_vars(P);
    tx_vec_free(&sig.bound);
    tx_vec_free(&sig.type_vars);
    return tx_buf_take(&out);
}

/* ================================================================ modules */

static int func_priority(const IrFunc *f) { return !strcmp(f->name, "main") ? 1000 : 1; }

static int cmp_func(const void *a, const void *b)
{
    const IrFunc *x = *(IrFunc *const *)a, *y = *(IrFunc *const *)b;
    int px = func_priority(x), py = func_priority(y);
    if (px != py)
        return px < py ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Type-variable declarations of all functions, each name once. */
typedef TX_VEC(const char *) NameList;

static void add_type_var_names(NameList *all, const char **names, int n)
{
    for (int i = 0; i < n; i++) {
        bool seen = false;
        for (int j = 0; j < all->len; j++)
            seen = seen || !strcmp(all->items[j], names[i]);
        if (!seen)
            tx_vec_push(all, names[i]);
    }
}

/* The functions' text, and the union of their type variables' names. */
static char *print_funcs(Printer *P, IrFunc *const *funcs, int n, NameList *type_vars)
{
    TxBuf body = {0};
    for (int i = 0; i < n; i++) {
        const char **names;
        int nnames;
        char *text = print_func(P, funcs[i], &names, &nnames);
        add_type_var_names(type_vars, names, nnames);
        if (P->m->is_ir_module) {
            if (i)
                tx_buf_putc(&body, '\n');
            put_indented(&body, text, 4);
        } else {
            tx_buf_puts(&body, i ? "\n\n" : "");
            tx_buf_puts(&body, text);
        }
        free(text);
    }
    return tx_buf_take(&body);
}

static void print_header(TxBuf *out, bool ir_module, const NameList *type_vars)
{
    if (type_vars->len)
        tx_buf_puts(out, "# from typing import TypeVar\n");
    if (ir_module)
        tx_buf_puts(out, "# from tvm.script import ir as I\n");
    tx_buf_puts(out, "# from tvm.script import tirx as T\n# from tvm.tirx.layout import Axis\n\n");
    for (int i = 0; i < type_vars->len; i++)
        tx_buf_printf(out, "%s = TypeVar(\"%s\")\n", type_vars->items[i], type_vars->items[i]);
}

/* `I.module_attrs({...})` / `I.module_global_infos({...})`, keys sorted, unless empty. */
static void print_module_dict(Printer *P, const char *call, IrKwarg *kw, int n, TxBuf *out)
{
    if (!n)
        return;
    IrKwarg *sorted = tx_arena_memdup(&P->arena, kw, sizeof(IrKwarg) * (size_t)n);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_kwarg);
    IrExpr dict = {.kind = IR_E_DICT, .dtype = IR_VOID};
    dict.u.list.n = n, dict.u.list.kwargs = sorted;
    tx_buf_printf(out, "\n    %s(", call);
    pr_expr(P, &dict, out);
    tx_buf_putc(out, ')');
}

static char *print_module(Printer *P)
{
    const IrModule *m = P->m;
    IrFunc **funcs = tx_arena_memdup(&P->arena, m->funcs, sizeof(IrFunc *) * (size_t)m->nfuncs);
    if (m->is_ir_module && m->nfuncs > 1)
        qsort(funcs, (size_t)m->nfuncs, sizeof *funcs, cmp_func);
    /* The class is always printed `Module` (the reference's binding name;
     * the name written in the source is not kept). */
    if (m->is_ir_module)
        name_set(P, "Module", true);
    NameList type_vars = {0};
    TxBuf body = {0};
    char *text = print_funcs(P, funcs, m->nfuncs, &type_vars);
    /* Every function sees every TypeVar line: with several functions, print
     * them again keeping the TypeVar names from their other variables
     * (deviation: the reference reuses such a name, which then reads back as
     * the TypeVar). A function's own type variables keep their names. */
    if (type_vars.len && m->nfuncs > 1) {
        free(text);
        P->module_type_vars = type_vars.items, P->nmodule_type_vars = type_vars.len;
        NameList again = {0};
        text = print_funcs(P, funcs, m->nfuncs, &again);
        tx_vec_free(&again);
    }
    tx_buf_puts(&body, text);
    free(text);
    TxBuf out = {0};
    print_header(&out, m->is_ir_module || P->uses_ir_prefix, &type_vars);
    if (m->is_ir_module) {
        tx_buf_puts(&out, "@I.ir_module\nclass Module:");
        print_module_dict(P, "I.module_attrs", m->attrs, m->nattrs, &out);
        print_module_dict(P, "I.module_global_infos", m->global_infos, m->nglobal_infos, &out);
        if (!m->nfuncs && !m->nattrs && !m->nglobal_infos)
            tx_buf_puts(&out, "\n    pass");
    }
    char *b = tx_buf_take(&body);
    tx_buf_puts(&out, b);
    free(b);
    tx_vec_free(&type_vars);
    return tx_buf_take(&out);
}

char *sc_print(const IrModule *m)
{
    Printer P = {.m = m};
    tx_arena_init(&P.arena);
    /* The script prefixes, and Python keywords, which would not parse as
     * names (the reference prints keywords verbatim: a deliberate deviation). */
    static const char *const reserved[] = {
        "I", "T", "R", "cls", "False", "None", "True", "and", "as", "assert", "async", "await",
        "break", "class", "continue", "def", "del", "elif", "else", "except", "finally", "for",
        "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass",
        "raise", "return", "try", "while", "with", "yield"};
    for (size_t i = 0; i < TX_ARRAY_LEN(reserved); i++)
        name_set(&P, reserved[i], true);
    char *text = print_module(&P);
    for (int i = 0; i < P.frames.len; i++)
        pr_free_stmts(P.frames.items[i].stmts.items, P.frames.items[i].stmts.len);
    tx_vec_free(&P.frames);
    tx_vec_free(&P.vars);
    tx_vec_free(&P.held_names);
    ir_ptrmap_free(&P.var_index);
    free(P.names);
    tx_arena_free(&P.arena);
    return text;
}
