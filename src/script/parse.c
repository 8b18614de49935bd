/* sc_parse: text -> tokens -> syntax tree -> IR module. This file owns the
 * module level: imports (the layout module's names are bound, .tirx files
 * are imported by import.c, the rest is ignored), compile-time constants and their -D overrides, @T.macro
 * definitions, @T.prim_func functions (top-level or in one @I.ir_module class
 * with I.module_attrs) and function signatures. Statements are elaborated by
 * elab.c, expressions by elab_expr.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elab.h"
#include "../arith/arith.h"

/* ---------------------------------------------------------------- decorators */

/* Whether x is `root.name` (or a call of it). */
static bool is_path(const Ast *x, const char *root, const char *name)
{
    if (x->kind == A_CALL)
        x = x->a;
    return x->kind == A_ATTR && !strcmp(x->name, name) && x->a->kind == A_NAME &&
           (!strcmp(x->a->name, root) || (!strcmp(root, "T") && !strcmp(x->a->name, "Tx")));
}

typedef enum { DECO_NONE, DECO_PRIM_FUNC, DECO_MACRO, DECO_OTHER } DecoKind;

static DecoKind decorator_kind(const Ast *def, const Ast **deco)
{
    if (def->items.n == 0)
        return DECO_NONE;
    *deco = def->items.items[0];
    if (def->items.n == 1 && is_path(*deco, "T", "prim_func"))
        return DECO_PRIM_FUNC;
    if (def->items.n == 1 && is_path(*deco, "T", "macro"))
        return DECO_MACRO;
    return DECO_OTHER;
}

/* @T.prim_func(private=True, s_tir=True, persistent=True) */
static void prim_func_flags(El *E, const Ast *deco, IrFunc *f)
{
    if (deco->kind != A_CALL)
        return;
    if (deco->items.n)
        el_error(E, TX_E_ARGUMENTS, deco->items.items[0]->span,
                 "@T.prim_func takes keyword arguments only");
    static const char *const known[] = {"private", "s_tir", "persistent", "check_well_formed"};
    for (int i = 0; i < deco->nnames; i++) {
        const char *k = deco->names[i];
        ScVal v = el_eval(E, deco->items2.items[i]);
        bool b;
        if (v.kind == SV_ERROR)
            continue;
        if (!sv_truth(&v, &b) || (v.kind != SV_BOOL && v.kind != SV_INT)) {
            el_error(E, TX_E_TYPE, deco->items2.items[i]->span, "'%s=' takes True or False", k);
            continue;
        }
        if (!strcmp(k, "private"))
            f->is_private = b;
        else if (!strcmp(k, "s_tir"))
            f->is_s_tir = b;
        else if (!strcmp(k, "persistent"))
            f->is_persistent = b;
        else if (strcmp(k, "check_well_formed"))
            el_error(E, TX_E_ARGUMENTS, deco->name_spans[i],
                     "unknown keyword argument '%s' to @T.prim_func%s", k,
                     el_suggest(E, k, known, 3));
    }
}

/* ---------------------------------------------------------------- signatures */

static bool scalar_dtype_of(El *E, const Ast *ann, IrDType *out)
{
    if (!ann || ann->kind != A_ATTR)
        return false;
    ScVal v = el_eval(E, ann);
    if (v.kind != SV_DTYPE || v.u.dt.code == IR_DT_HANDLE)
        return false;
    *out = v.u.dt;
    return true;
}

/* The dtype of a name a quoted signature shape defines: that of a scalar
 * parameter of the name, else of its `name = T.<dtype>()` line in the body
 * (how the printer states a non-int32 one). */
bool el_sig_scalar_dtype(El *E, const char *name, IrDType *out)
{
    for (int i = 0; i < E->nsig_params; i++) {
        const AstParam *pm = &E->sig_params[i];
        if (!strcmp(pm->name, name) && scalar_dtype_of(E, pm->ann, out))
            return true;
    }
    for (int i = 0; i < E->sig_body.n; i++) {
        const Ast *s = E->sig_body.items[i];
        if (s->kind != A_S_ASSIGN || s->items.n != 1 || s->items.items[0]->kind != A_NAME ||
            strcmp(s->items.items[0]->name, name) || s->a->kind != A_CALL || s->a->items.n ||
            s->a->nnames)
            continue;
        return scalar_dtype_of(E, s->a->a, out);
    }
    return false;
}

static IrExpr *param_var(El *E, const AstParam *pm, ScVal ann)
{
    switch (ann.kind) {
    case SV_DTYPE: {
        ScBinding *b = NULL;
        ScVal *old = el_lookup(E, pm->name, &b);
        if (old && b->kind == BIND_SIGVAR && old->kind == SV_EXPR &&
            ir_dtype_eq(old->u.e->dtype, ann.u.dt)) {
            b->kind = BIND_PLAIN;
            return old->u.e;
        }
        IrType *ty = ann.u.dt.code == IR_DT_HANDLE ? ir_ptr_type(E->a, IR_VOID, "global")
                                                   : el_prim_type(E, ann.u.dt);
        return ir_var(E->a, pm->name, ty, pm->span);
    }
    case SV_TYPE: return ir_var(E->a, pm->name, ann.u.ty, pm->span);
    case SV_EXPR: case SV_BUFFER:
        if (ann.fresh && ann.u.e->kind == IR_E_VAR) {
            ann.u.e->u.var.name = pm->name;
            ann.u.e->span = pm->span;
            return ann.u.e;
        }
        break;
    case SV_ERROR: return NULL;
    default: break;
    }
    el_error(E, TX_E_TYPE, pm->ann->span,
             "a parameter is annotated with T.Buffer(...), T.<dtype>, T.handle or T.TensorMap(), "
             "not %s",
             sv_kind_name(&ann));
    return NULL;
}

static void elab_params(El *E, const Ast *def)
{
    E->params = TX_NEW_ARRAY(E->a, IrExpr *, def->nparams ? def->nparams : 1);
    E->nparams = 0;
    E->sig_params = def->params, E->nsig_params = def->nparams;
    E->sig_body = def->body;
    E->in_signature = true;
    for (int i = 0; i < def->nparams; i++) {
        const AstParam *pm = &def->params[i];
        if (!pm->ann) {
            el_error(E, TX_E_ARGUMENTS, pm->span, "parameter '%s' needs a type annotation",
                     pm->name);
            el_bind(E, pm->name, sv_error(), BIND_PARAM, pm->span);
            continue;
        }
        if (pm->def)
            el_error(E, TX_E_UNSUPPORTED_SYNTAX, pm->def->span,
                     "function parameters take no default values");
        IrExpr *var = param_var(E, pm, el_eval(E, pm->ann));
        if (!var) {
            el_bind(E, pm->name, sv_error(), BIND_PARAM, pm->span);
            continue;
        }
        E->params[E->nparams++] = var;
        ScVal v = {.kind = ir_is_buffer(var) ? SV_BUFFER : SV_EXPR, .span = pm->span};
        v.u.e = var;
        v.decay = ir_is_buffer(var) && el_buffer_is_scalar(var, false);
        el_bind(E, pm->name, v, BIND_PARAM, pm->span);
    }
    E->in_signature = false;
    E->sig_params = NULL, E->nsig_params = 0;
    E->sig_body = (AstList){0};
}

static IrType *return_type(El *E, const Ast *ann)
{
    if (!ann || ann->kind == A_NONE)
        return NULL;
    ScVal v = el_eval(E, ann);
    if (v.kind == SV_DTYPE)
        return v.u.dt.code == IR_DT_HANDLE ? ir_ptr_type(E->a, IR_VOID, "global")
                                           : el_prim_type(E, v.u.dt);
    if (v.kind == SV_TYPE)
        return v.u.ty;
    if (v.kind != SV_ERROR)
        el_error(E, TX_E_TYPE, ann->span, "a return type is T.<dtype> or None, not %s",
                 sv_kind_name(&v));
    return NULL;
}

/* A type variable is an int64 shape variable of the function. */
static void bind_type_var(El *E, const char *name, TxSpan span)
{
    IrExpr *v = ir_var(E->a, name, el_prim_type(E, IR_INT64), span);
    el_bind(E, name, sv_expr(v, span), BIND_PLAIN, span);
}

static bool is_module_type_var(const El *E, const char *name)
{
    for (int i = 0; i < E->ntypevars; i++)
        if (!strcmp(E->typevars[i], name))
            return true;
    return false;
}

/* `def f[M, N: int](...)`: the PEP 695 spelling of `M = TypeVar("M")`. */
static void elab_type_params(El *E, const Ast *def)
{
    for (int i = 0; i < def->items2.n; i++) {
        const Ast *tp = def->items2.items[i];
        if (tp->a && !(tp->a->kind == A_NAME && !strcmp(tp->a->name, "int")))
            el_error(E, TX_E_ARGUMENTS, tp->a->span,
                     "a type parameter is an int64 shape variable: write '%s' or "
                     "'%s: int'", tp->name, tp->name);
        bool dup = false;
        for (int j = 0; j < i && !dup; j++)
            dup = !strcmp(def->items2.items[j]->name, tp->name);
        if (dup)
            el_error(E, TX_E_REDEFINITION, tp->span, "duplicate type parameter '%s'", tp->name);
        else if (!is_module_type_var(E, tp->name))
            bind_type_var(E, tp->name, tp->span);
    }
}

static void elab_func(El *E, ScFuncDecl *decl)
{
    const Ast *def = decl->def, *deco = NULL;
    decorator_kind(def, &deco);
    IrFunc *f = TX_NEW(E->a, IrFunc);
    f->name = def->name, f->span = def->name_span;
    decl->func = f;
    prim_func_flags(E, deco, f);
    E->func = f, E->s_tir = f->is_s_tir;
    ScScope *fs = TX_NEW(E->a, ScScope);
    fs->parent = E->global;
    E->scope = fs;
    E->cur = (ScStmtList){0};
    E->nframes = 0;
    E->nscalar_inits = E->nscalar_proofs = 0;
    for (int i = 0; i < E->ntypevars; i++)
        bind_type_var(E, E->typevars[i], def->name_span);
    elab_type_params(E, def);
    elab_params(E, def);
    f->ret_type = return_type(E, def->a);
    E->ret_none = def->a && def->a->kind == A_NONE ? def->a : NULL;
    f->body = el_block(E, def->body);
    f->params = E->params, f->nparams = E->nparams;
    el_scalar_proofs_check(E, f);
    E->func = NULL;
    E->scope = E->global;
}

/* ---------------------------------------------------------------- constants */

/* The -D override of name: the last one given wins; every one of that name is
 * marked used. */
static const ScDefine *find_define(El *E, const char *name)
{
    const ScDefine *d = NULL;
    for (size_t i = 0; i < E->ndefines; i++)
        if (E->defines[i].name && !strcmp(E->defines[i].name, name)) {
            E->define_used[i] = true;
            d = &E->defines[i];
        }
    return d;
}

static bool is_constant(const ScVal *v)
{
    if (v->kind == SV_DTYPE || v->kind == SV_NONE || v->kind == SV_BOOL || v->kind == SV_INT ||
        v->kind == SV_FLOAT || v->kind == SV_STR)
        return true;
    if (v->kind == SV_TUPLE || v->kind == SV_LIST) {
        for (int i = 0; i < v->u.seq.n; i++)
            if (!is_constant(&v->u.seq.items[i]))
                return false;
        return true;
    }
    return false;
}

/* The value of `-D NAME=VALUE`: a Python literal, a constant expression or a
 * dtype name (`float16` or `T.float16`). */
static ScVal define_value(El *E, const ScDefine *d, const ScVal *declared)
{
    const char *text = d->value ? d->value : "";
    TxSource *src = tx_source_new(E->a, tx_arena_printf(E->a, "-D %s", d->name), text,
                                  strlen(text));
    ScTokens toks;
    AstList ast;
    bool ok = sc_lex(src, 0, src->len, true, E->a, E->d, &toks) &&
              sc_parse_tokens(src, &toks, true, E->a, NULL, E->d, &ast) && ast.n == 1;
    sc_tokens_free(&toks);
    if (!ok)
        return sv_error();
    const Ast *x = ast.items[0];
    IrDType dt;
    if (x->kind == A_NAME && !ir_dtype_parse(x->name, strlen(x->name), &dt)) {
        tx_error(E->d, TX_E_DEFINE, (TxSpan){0},
                 "-D %s=%s: the value must be a Python literal or a dtype name",
                 d->name, text);
        return *declared;
    }
    if (x->kind == A_NAME) {
        if (declared->kind == SV_STR)
            return sv_str(E, x->name, x->span);
        ScVal v = {.kind = SV_DTYPE, .span = x->span};
        v.u.dt = dt;
        return v;
    }
    const TxSource *saved = E->src;
    E->src = src;
    ScVal v = el_eval(E, x);
    E->src = saved;
    if (v.kind == SV_DTYPE && declared->kind == SV_STR) {
        char buf[IR_DTYPE_STR_MAX];
        return sv_str(E, tx_arena_strdup(E->a, ir_dtype_str(v.u.dt, buf)), v.span);
    }
    if (v.kind != SV_ERROR && !is_constant(&v)) {
        tx_error(E->d, TX_E_DEFINE, (TxSpan){0},
                 "-D %s=%s: the value must be a Python literal or a dtype name",
                 d->name, text);
        return *declared;
    }
    return v.kind == SV_ERROR ? *declared : v;
}

/* typevar := NAME '=' 'TypeVar' '(' "NAME" ')' : an int64 shape variable */
static bool elab_typevar(El *E, const Ast *t, const Ast *value)
{
    if (value->kind != A_CALL || value->a->kind != A_NAME || strcmp(value->a->name, "TypeVar"))
        return false;
    if (value->items.n != 1 || value->nnames || value->items.items[0]->kind != A_STR ||
        strcmp(value->items.items[0]->lit.str.s, t->name)) {
        el_error(E, TX_E_ARGUMENTS, value->span, "write a type variable as %s = TypeVar(\"%s\")",
                 t->name, t->name);
        return true;
    }
    const char **tv = TX_NEW_ARRAY(E->a, const char *, E->ntypevars + 1);
    if (E->ntypevars)
        memcpy(tv, E->typevars, sizeof(*tv) * (size_t)E->ntypevars);
    tv[E->ntypevars++] = t->name;
    E->typevars = tv;
    return true;
}

/* constant := NAME '=' constant_expression (before the first function) */
static void elab_constant(El *E, const Ast *s)
{
    const Ast *t = s->items.items[0];
    if (s->items.n != 1 || t->kind != A_NAME) {
        el_error(E, TX_E_MODULE, s->span, "a module-level constant is 'NAME = value'");
        return;
    }
    if (elab_typevar(E, t, s->a))
        return;
    if (E->module_started) {
        el_error(E, TX_E_MODULE, s->span,
                 "module-level constants must come before the first function ('%s' comes after)",
                 t->name);
        return;
    }
    ScVal v = el_eval(E, s->a);
    if (v.kind == SV_ERROR) {
        el_bind(E, t->name, v, BIND_CONST, t->span);
        return;
    }
    if (!is_constant(&v)) {
        el_error(E, TX_E_MODULE, s->a->span,
                 "'%s' is not a compile-time constant (an int, float, bool, string, dtype or a "
                 "tuple of those)",
                 t->name);
        v = sv_error();
    }
    const ScDefine *d = find_define(E, t->name);
    if (d)
        v = define_value(E, d, &v);
    el_bind(E, t->name, v, BIND_CONST, t->span);
}

/* assert := 'assert' cond [',' message] at module level: a check of the
 * constants as -D left them, made when the file is elaborated. False when
 * it fails: a condition that is false is an error carrying the message, and
 * the rest of the file, written for constants that hold, is not elaborated. */
static bool elab_constant_assert(El *E, const Ast *s)
{
    ScVal c = el_eval(E, s->a);
    bool holds;
    if (c.kind == SV_ERROR)
        return true;
    if (!sv_truth(&c, &holds)) {
        el_error(E, TX_E_MODULE, s->a->span,
                 "a module-level assert checks compile-time constants; this condition is not one");
        return true;
    }
    if (holds)
        return true;
    ScVal m = s->b ? el_eval(E, s->b) : sv_error();
    if (s->b && m.kind != SV_STR) {
        if (m.kind != SV_ERROR)
            el_error(E, TX_E_TYPE, s->b->span, "a module-level assert's message is a string");
        return true;
    }
    el_error(E, TX_E_CONSTANT_ASSERT, s->span, "%s", s->b ? m.u.str.s : "assertion failed");
    return false;
}

static void check_defines(El *E)
{
    const char **names = TX_NEW_ARRAY(E->a, const char *, 256);
    int n = 0;
    for (ScBinding *b = E->global->head; b && n < 256; b = b->next)
        if (sv_is_python(&b->val) || b->val.kind == SV_DTYPE)
            names[n++] = b->name;
    for (size_t i = 0; i < E->ndefines; i++) {
        if (E->define_used[i] || !E->defines[i].name)
            continue;
        const char *nm = E->defines[i].name;
        const ScBinding *b = el_scope_find(E->global, nm);
        if (b && b->kind == BIND_CONST) { /* bound, but not by elab_constant: imported */
            tx_error(E->d, TX_E_DEFINE, (TxSpan){0},
                     "-D %s: '%s' is imported; -D overrides only the constants the compiled "
                     "file declares", nm, nm);
            continue;
        }
        tx_error(E->d, TX_E_DEFINE, (TxSpan){0},
                 "-D %s: the source declares no module-level constant '%s'%s",
                 nm, nm, el_suggest(E, nm, names, n));
    }
}

/* ---------------------------------------------------------------- the module */

static void add_func_decl(El *E, const Ast *def)
{
    if (el_scope_find(&E->func_names, def->name)) {
        el_error(E, TX_E_REDEFINITION, def->name_span, "function '%s' is defined twice",
                 def->name);
        return;
    }
    if (E->nfuncs == E->capfuncs) { /* doubling: the copies add up to the final size */
        E->capfuncs = E->capfuncs ? E->capfuncs * 2 : 8;
        ScFuncDecl *fs = TX_NEW_ARRAY(E->a, ScFuncDecl, E->capfuncs);
        if (E->nfuncs)
            memcpy(fs, E->funcs, sizeof(*fs) * (size_t)E->nfuncs);
        E->funcs = fs;
    }
    E->funcs[E->nfuncs++] = (ScFuncDecl){def->name, (Ast *)def, NULL};
    ScVal v = {.kind = SV_FUNC, .span = def->name_span};
    v.u.def = (Ast *)def;
    el_scope_bind(E, &E->func_names, def->name, v, BIND_PLAIN, def->name_span);
    E->module_started = true;
}

static void elab_def(El *E, const Ast *def)
{
    const Ast *deco = NULL;
    switch (decorator_kind(def, &deco)) {
    case DECO_PRIM_FUNC:
        if (E->site) /* an imported file's functions are not the module's */
            E->module_started = true;
        else
            add_func_decl(E, def);
        return;
    case DECO_MACRO: {
        ScVal v = {.kind = SV_MACRO, .span = def->name_span};
        v.u.macro.def = (Ast *)def, v.u.macro.home = E->global;
        el_bind(E, def->name, v, BIND_PLAIN, def->name_span);
        return;
    }
    case DECO_NONE:
        el_error(E, TX_E_MODULE, def->name_span, "function '%s' needs @T.prim_func or @T.macro",
                 def->name);
        return;
    default: {
        const Ast *path = deco->kind == A_CALL ? deco->a : deco;
        if (path->kind == A_ATTR && path->a->kind == A_NAME &&
            (!strcmp(path->a->name, "T") || !strcmp(path->a->name, "Tx"))) {
            static const char *const decos[] = {"prim_func", "macro"};
            const char *best = tx_nearest(path->name, decos, 2);
            el_error(E, TX_E_UNKNOWN_BUILTIN, path->span, "'T.%s' is not a TIRx builtin%s%s%s",
                     path->name,
                     best ? "; did you mean 'T." : "", best ? best : "", best ? "'?" : "");
            return;
        }
        el_error(E, TX_E_UNKNOWN_BUILTIN, deco->span,
                 "unknown decorator: use @T.prim_func or @T.macro");
        return;
    }
    }
}

/* I.module_attrs({"key": value, ...}) */
static void module_attrs(El *E, const Ast *call)
{
    if (call->items.n != 1 || call->nnames) {
        el_error(E, TX_E_ARGUMENTS, call->span, "I.module_attrs takes one dictionary");
        return;
    }
    ScVal d = el_eval(E, call->items.items[0]);
    if (d.kind != SV_DICT) {
        if (d.kind != SV_ERROR)
            el_error(E, TX_E_TYPE, call->items.items[0]->span, "I.module_attrs takes a dictionary");
        return;
    }
    IrExpr *dict = el_pod(E, &d, "module attributes");
    if (!dict)
        return;
    E->m->nattrs = dict->u.list.n;
    E->m->attrs = dict->u.list.kwargs;
}

/* I.module_global_infos({"key": [I.dummy_global_info(), I.vdevice(...)], ...}) */
static void module_global_infos(El *E, const Ast *call)
{
    if (call->items.n != 1 || call->nnames) {
        el_error(E, TX_E_ARGUMENTS, call->span, "I.module_global_infos takes one dictionary");
        return;
    }
    ScVal d = el_eval(E, call->items.items[0]);
    if (d.kind != SV_DICT) {
        if (d.kind != SV_ERROR)
            el_error(E, TX_E_TYPE, call->items.items[0]->span,
                     "I.module_global_infos takes a dictionary");
        return;
    }
    IrExpr *dict = el_pod(E, &d, "module global infos");
    if (!dict)
        return;
    for (int i = 0; i < dict->u.list.n; i++) {
        const IrExpr *items = dict->u.list.kwargs[i].value;
        bool ok = items->kind == IR_E_LIST;
        for (int k = 0; ok && k < items->u.list.n; k++)
            ok = items->u.list.items[k]->kind == IR_E_GLOBAL_INFO;
        if (!ok) {
            el_error(E, TX_E_MODULE, d.u.dict.vals[i].span,
                     "a global info is a list of I.dummy_global_info() "
                                                            "and I.vdevice(...)");
            return;
        }
    }
    E->m->nglobal_infos = dict->u.list.n;
    E->m->global_infos = dict->u.list.kwargs;
}

static bool is_docstring(const Ast *s)
{
    return s->kind == A_S_EXPR && s->a->kind == A_STR;
}

static void elab_class(El *E, const Ast *c)
{
    if (E->site) /* an imported file's functions are not the module's */
        return;
    const Ast *deco = c->items.n == 1 ? c->items.items[0] : NULL;
    if (!deco || !is_path(deco, "I", "ir_module") || deco->kind == A_CALL) {
        el_error(E, TX_E_MODULE, c->name_span, "a class must be decorated with @I.ir_module");
        return;
    }
    if (E->m->is_ir_module || E->nfuncs) {
        el_error(E, TX_E_MODULE, c->span,
                 "a file holds one @I.ir_module class or top-level functions, not both");
        return;
    }
    E->m->is_ir_module = true;
    E->m->class_name = c->name;
    E->class_name = c->name;
    el_bind(E, c->name, sv_ns("<module>", c->name_span), BIND_PLAIN, c->name_span);
    for (int i = 0; i < c->body.n; i++) {
        const Ast *s = c->body.items[i];
        if (s->kind == A_S_DEF)
            elab_def(E, s);
        else if (s->kind == A_S_EXPR && s->a->kind == A_CALL && is_path(s->a, "I", "module_attrs"))
            module_attrs(E, s->a);
        else if (s->kind == A_S_EXPR && s->a->kind == A_CALL &&
                 is_path(s->a, "I", "module_global_infos"))
            module_global_infos(E, s->a);
        else if (s->kind == A_S_PASS || is_docstring(s))
            continue;
        else
            el_error(E, TX_E_MODULE, s->span,
                     "an @I.ir_module class holds I.module_attrs({...}), "
                     "I.module_global_infos({...}) and @T.prim_func functions");
    }
}

/* Once function i is elaborated, nothing points into its part of the tree any
 * more (a call of it reads only its name and return annotation): the tree
 * arena's chunks before the next function's are freed. */
static void release_tree(El *E, int i)
{
    Ast *def = E->funcs[i].def;
    if (!def->in_tree)
        return;
    def->items = def->items2 = def->body = (AstList){0};
    def->params = NULL, def->nparams = 0;
    if (i + 1 < E->nfuncs && E->funcs[i + 1].def->in_tree)
        tx_arena_free_before(E->funcs[i + 1].def->tree_mark);
}

bool el_module_level(El *E, AstList top)
{
    bool holds = true;
    for (int i = 0; holds && i < top.n; i++) {
        const Ast *s = top.items[i];
        switch (s->kind) {
        case A_S_IMPORT:
            if (el_is_file_import(s))
                el_import_file(E, s);
            else
                el_import(E, s);
            break;
        case A_S_PASS: break;
        case A_S_EXPR:
            if (!is_docstring(s))
                el_error(E, TX_E_MODULE, s->span,
                         "expected a function, a macro, a constant or an import at "
                                                  "module level");
            break;
        case A_S_ASSIGN: elab_constant(E, s); break;
        case A_S_ASSERT: holds = elab_constant_assert(E, s); break;
        case A_S_DEF: elab_def(E, s); break;
        case A_S_CLASS: elab_class(E, s); break;
        default:
            el_error(E, TX_E_MODULE, s->span,
                     "expected a function, a macro, a constant or an import at module level");
            break;
        }
    }
    return holds;
}

static void elab_module(El *E, AstList top)
{
    bool holds = el_module_level(E, top);
    if (holds)
        check_defines(E);
    else
        E->nfuncs = 0;
    for (int i = 0; i < E->nfuncs; i++) {
        elab_func(E, &E->funcs[i]);
        release_tree(E, i);
    }
    E->m->nfuncs = E->nfuncs;
    E->m->funcs = TX_NEW_ARRAY(E->a, IrFunc *, E->nfuncs ? E->nfuncs : 1);
    for (int i = 0; i < E->nfuncs; i++)
        E->m->funcs[i] = E->funcs[i].func;
}

/* "64 MiB" when n is a whole number of MiB, else "N bytes". */
static void format_size(char *out, size_t cap, size_t n)
{
    if (n && n % ((size_t)1 << 20) == 0)
        snprintf(out, cap, "%zu MiB", n >> 20);
    else
        snprintf(out, cap, "%zu bytes", n);
}

IrModule *sc_refuse_large_input(const char *filename, size_t len, size_t limit)
{
    if (limit > SC_MAX_SOURCE_BYTES)
        limit = SC_MAX_SOURCE_BYTES;
    if (len <= limit)
        return NULL;
    char lim[64];
    format_size(lim, sizeof lim, limit);
    IrModule *m = ir_module_new();
    tx_error(&m->diags, TX_E_INPUT_SIZE, (TxSpan){0},
             "%s: the input (%zu bytes) is larger than the input size limit of %s%s",
             filename ? filename : "<input>", len, lim,
             limit < SC_MAX_SOURCE_BYTES ? " (--max-input-size or tirx_options.max_input_size "
                                           "raises it)" : "");
    return m;
}

IrModule *sc_parse(const char *text, size_t len, const char *filename, const ScDefine *defines,
                   size_t ndefines)
{
    return sc_parse_imports(text, len, filename, defines, ndefines, NULL, 0);
}

IrModule *sc_parse_imports(const char *text, size_t len, const char *filename,
                           const ScDefine *defines, size_t ndefines, const char *const *dirs,
                           size_t ndirs)
{
    IrModule *m = sc_refuse_large_input(filename, text ? len : 0, SC_MAX_SOURCE_BYTES);
    if (m)
        return m;
    m = ir_module_new();
    m->source = tx_source_new(&m->arena, filename ? filename : "<input>", text ? text : "",
                              text ? len : 0);
    ScTokens toks;
    AstList top;
    TxArena tree;
    tx_arena_init(&tree);
    bool ok = sc_lex(m->source, 0, m->source->len, false, &m->arena, &m->diags, &toks) &&
              sc_parse_tokens(m->source, &toks, false, &m->arena, &tree, &m->diags, &top);
    sc_tokens_free(&toks); /* the tree does not point into the tokens */
    if (!ok) {
        tx_arena_free(&tree);
        return m;
    }
    El E = {0};
    E.m = m, E.a = &m->arena, E.d = &m->diags, E.src = m->source;
    E.global = TX_NEW(E.a, ScScope);
    E.global->module = true;
    E.scope = E.global;
    E.defines = defines, E.ndefines = ndefines;
    ScImports imports = {.dirs = dirs, .ndirs = ndirs};
    E.imports = &imports;
    E.define_used = TX_NEW_ARRAY(E.a, bool, ndefines ? ndefines : 1);
    E.tree = &tree;
    elab_module(&E, top);
    tx_arena_free(&tree);
    return m;
}
