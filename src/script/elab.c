/* The elaborator's statement half: name scopes, statement lists and flat
 * frames, every statement kind, functions (signatures, match_buffer), the
 * module (constants with -D overrides, macros, @I.ir_module classes), and the
 * entry point sc_parse. Expressions are evaluated by elab_expr.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elab.h"
#include "../arith/arith.h"
#include "../ir/visit.h"

/* ---------------------------------------------------------------- diagnostics */

static void add_macro_notes(El *E)
{
    for (int i = E->nmacro - 1; i >= 0; i--) {
        int line, col;
        tx_source_linecol(E->macro_stack[i].call_span.src, E->macro_stack[i].call_span.begin,
                          &line, &col);
        tx_note(E->d, E->macro_stack[i].call_span, "in expansion of macro '%s' called at %d:%d",
                E->macro_stack[i].def->name, line, col);
    }
}

TxCode el_arith_error_code(const char *err)
{
    return err && (strstr(err, "overflow") || strstr(err, "division by zero")) ? TX_E_VALUE
                                                                               : TX_E_TYPE;
}

void el_error(El *E, TxCode code, TxSpan sp, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tx_error(E->d, code, sp, "%s", msg);
    add_macro_notes(E);
    el_import_notes(E);
}

void el_note(El *E, TxSpan sp, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tx_note(E->d, sp, "%s", msg);
}

static size_t common_prefix(const char *a, const char *b)
{
    size_t n = 0;
    while (a[n] && a[n] == b[n])
        n++;
    return n;
}

/* The closest candidate (edit distance within tx_nearest's limit; ties go to
 * the longest common prefix, so 'bfloat61' suggests 'bfloat16'). One-letter
 * names get no suggestion: every other one-letter name is as close. */
const char *el_nearest(const char *name, const char *const *cands, int n)
{
    const char *first = tx_nearest(name, cands, n);
    if (!first || strlen(name) < 2)
        return NULL;
    int d = tx_edit_distance(name, first, 64);
    const char *best = first;
    for (int i = 0; i < n; i++)
        if (tx_edit_distance(name, cands[i], d) == d &&
            common_prefix(name, cands[i]) > common_prefix(name, best))
            best = cands[i];
    return best;
}

const char *el_suggest(El *E, const char *name, const char *const *cands, int n)
{
    const char *best = el_nearest(name, cands, n);
    return best ? tx_arena_printf(E->a, "; did you mean '%s'?", best) : "";
}

/* ---------------------------------------------------------------- scopes */

static void push_scope(El *E)
{
    ScScope *s = TX_NEW(E->a, ScScope);
    s->parent = E->scope;
    E->scope = s;
}

static void pop_scope(El *E) { E->scope = E->scope->parent; }

static uint32_t name_hash(const char *name)
{
    return (uint32_t)tx_hash_bytes(name, strlen(name), 0);
}

/* Scopes with at most this many bindings are scanned; larger ones indexed. */
#define SC_SCOPE_INDEX_MIN 16

/* The slot of `name` in s's index, or the empty slot where it would go. */
static ScBinding **index_slot(const ScScope *s, const char *name, uint32_t h)
{
    uint32_t mask = s->index_cap - 1;
    for (uint32_t i = h & mask;; i = (i + 1) & mask)
        if (!s->index[i] || (s->index[i]->hash == h && !strcmp(s->index[i]->name, name)))
            return &s->index[i];
}

/* Rebuilds s's index with room for twice its bindings (the old one stays in
 * the arena: the capacities double, so all of them add up to twice the last). */
static void reindex_scope(El *E, ScScope *s)
{
    s->index_cap = s->index_cap ? s->index_cap * 2 : 4 * SC_SCOPE_INDEX_MIN;
    s->index = TX_NEW_ARRAY(E->a, ScBinding *, s->index_cap);
    for (ScBinding *b = s->head; b; b = b->next)
        *index_slot(s, b->name, b->hash) = b;
}

/* The binding of `name` in scope s itself (one per name), or NULL. */
static ScBinding *scope_find(const ScScope *s, const char *name, uint32_t h)
{
    if (!s->nbindings)
        return NULL;
    if (s->index)
        return *index_slot(s, name, h);
    for (ScBinding *b = s->head; b; b = b->next)
        if (b->hash == h && !strcmp(b->name, name))
            return b;
    return NULL;
}

ScVal *el_lookup(El *E, const char *name, ScBinding **binding)
{
    uint32_t h = name_hash(name);
    for (ScScope *s = E->scope; s; s = s->parent) {
        ScBinding *b = scope_find(s, name, h);
        if (b) {
            if (binding)
                *binding = b;
            return &b->val;
        }
    }
    return NULL;
}

ScBinding *el_scope_find(const ScScope *s, const char *name)
{
    return scope_find(s, name, name_hash(name));
}

ScBinding *el_bind(El *E, const char *name, ScVal v, ScBindKind kind, TxSpan def)
{
    return el_scope_bind(E, E->scope, name, v, kind, def);
}

ScBinding *el_scope_bind(El *E, ScScope *s, const char *name, ScVal v, ScBindKind kind,
                         TxSpan def)
{
    uint32_t h = name_hash(name);
    ScBinding *b = scope_find(s, name, h);
    if (b) {
        b->val = v, b->kind = kind, b->def_span = def;
        return b;
    }
    b = TX_NEW(E->a, ScBinding);
    b->name = name, b->hash = h, b->val = v, b->kind = kind, b->def_span = def;
    b->next = s->head;
    s->head = b;
    s->nbindings++;
    if (s->index && s->nbindings * 2 <= s->index_cap)
        *index_slot(s, name, h) = b;
    else if (s->nbindings > SC_SCOPE_INDEX_MIN)
        reindex_scope(E, s);
    return b;
}

void el_set_thread_tag(El *E, const IrExpr *var, const char *tag)
{
    if (E->ntags == E->captags) {
        int cap = E->captags ? E->captags * 2 : 8;
        ScThreadTag *t = TX_NEW_ARRAY(E->a, ScThreadTag, cap);
        if (E->ntags)
            memcpy(t, E->tags, sizeof(*t) * (size_t)E->ntags);
        E->tags = t, E->captags = cap;
    }
    E->tags[E->ntags++] = (ScThreadTag){var, tag};
}

const char *el_thread_tag(El *E, const IrExpr *var)
{
    for (int i = E->ntags - 1; i >= 0; i--)
        if (E->tags[i].var == var)
            return E->tags[i].tag;
    return NULL;
}

IrType *el_prim_type(El *E, IrDType t)
{
    for (int i = 0; i < E->nprim_types; i++)
        if (ir_dtype_eq(E->prim_types[i]->dtype, t))
            return E->prim_types[i];
    IrType *ty = ir_prim_type(E->a, t);
    if (E->nprim_types < SC_PRIM_TYPES)
        E->prim_types[E->nprim_types++] = ty;
    return ty;
}

/* ---------------------------------------------------------------- statement lists */

static void list_push(El *E, ScStmtList *l, IrStmt *s)
{
    if (s->kind == IR_S_SEQ) {
        for (int i = 0; i < s->u.seq.n; i++)
            list_push(E, l, s->u.seq.stmts[i]);
        return;
    }
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 8;
        IrStmt **items = TX_NEW_ARRAY(E->a, IrStmt *, cap);
        if (l->n)
            memcpy(items, l->items, sizeof(IrStmt *) * (size_t)l->n);
        l->items = items, l->cap = cap;
    }
    l->items[l->n++] = s;
}

void el_emit(El *E, IrStmt *s) { list_push(E, &E->cur, s); }

void el_open_frame(El *E, IrStmt *stmt, IrStmt **body)
{
    if (E->nframes == E->capframes) {
        int cap = E->capframes ? E->capframes * 2 : 8;
        ScOpenFrame *f = TX_NEW_ARRAY(E->a, ScOpenFrame, cap);
        if (E->nframes)
            memcpy(f, E->frames, sizeof(*f) * (size_t)E->nframes);
        E->frames = f, E->capframes = cap;
    }
    E->frames[E->nframes++] = (ScOpenFrame){stmt, body, E->cur};
    E->cur = (ScStmtList){0};
}

/* The statements of a block. As in the reference, the no-ops of a sequence
 * of several statements are dropped; a block left empty is `T.evaluate(0)`. */
static IrStmt *list_stmt(El *E, ScStmtList *l, TxSpan sp)
{
    if (l->n > 1) {
        int n = 0;
        for (int i = 0; i < l->n; i++)
            if (!ir_stmt_is_no_op(l->items[i]))
                l->items[n++] = l->items[i];
        l->n = n;
    }
    if (l->n == 0) {
        IrStmt *s = ir_stmt(E->a, IR_S_EVAL, sp);
        s->u.eval = ir_int(E->a, IR_INT32, 0, sp);
        return s;
    }
    TxSpan all = l->items[0]->span;
    if (l->items[l->n - 1]->span.end > all.end)
        all.end = l->items[l->n - 1]->span.end;
    return ir_seq(E->a, l->items, l->n, all);
}

static void close_frames(El *E, int base)
{
    while (E->nframes > base) {
        ScOpenFrame f = E->frames[--E->nframes];
        *f.body = list_stmt(E, &E->cur, f.stmt->span);
        E->cur = f.outer;
        list_push(E, &E->cur, f.stmt);
    }
}

static void elab_stmt(El *E, const Ast *s);

void el_block_inline(El *E, AstList body)
{
    if (++E->depth > SC_MAX_DEPTH) {
        if (body.n)
            el_error(E, TX_E_NESTING, body.items[0]->span,
                     "blocks nested too deeply (the limit is %d)",
                     SC_MAX_DEPTH);
        E->depth--;
        return;
    }
    int base = E->nframes;
    push_scope(E);
    for (int i = 0; i < body.n && !E->returned; i++)
        elab_stmt(E, body.items[i]);
    close_frames(E, base);
    pop_scope(E);
    E->depth--;
}

ScStmtList el_block_begin(El *E)
{
    ScStmtList outer = E->cur;
    E->cur = (ScStmtList){0};
    return outer;
}

IrStmt *el_block_end(El *E, ScStmtList outer, TxSpan sp)
{
    IrStmt *r = list_stmt(E, &E->cur, sp);
    E->cur = outer;
    return r;
}

IrStmt *el_block(El *E, AstList body)
{
    ScStmtList outer = el_block_begin(E);
    el_block_inline(E, body);
    return el_block_end(E, outer, body.n ? body.items[0]->span : (TxSpan){0});
}

/* ---------------------------------------------------------------- assignment */

static IrStmt *bind_stmt(El *E, IrExpr *var, IrExpr *value, TxSpan sp)
{
    IrStmt *s = ir_stmt(E->a, IR_S_BIND, sp);
    s->u.bind.var = var, s->u.bind.value = value;
    return s;
}

/* `x = e` for a new name with a PrimExpr value: a one-element local buffer. */
static void new_local_scalar(El *E, const char *name, TxSpan name_sp, IrDType dt,
                             const ScVal *init, TxSpan sp)
{
    IrExpr *one = ir_int(E->a, IR_INT32, 1, sp);
    IrExpr *buf = el_new_buffer(E, dt, &one, 1, "local", sp);
    buf->u.var.name = name;
    IrStmt *alloc = ir_stmt(E->a, IR_S_ALLOC, sp);
    alloc->u.alloc.buffer = buf;
    el_emit(E, alloc);
    ScVal v = {.kind = SV_BUFFER, .decay = true, .span = sp};
    v.u.e = buf;
    el_bind(E, name, v, BIND_PLAIN, name_sp);
    if (init) {
        IrExpr *zero = ir_int(E->a, IR_INT32, 0, sp);
        if (el_store(E, buf, &zero, 1, init, NULL, sp) &&
            ir_scalar_declaration(alloc, E->cur.items[E->cur.n - 1]))
            el_scalar_declared(E, buf, E->cur.items[E->cur.n - 1]);
    }
}

static bool is_fresh_var(const ScVal *v)
{
    return v->kind == SV_EXPR && v->fresh && v->u.e->kind == IR_E_VAR;
}

/* A frame assigned to a name: `tx = T.launch_thread("threadIdx.x", 128)`. */
static void assign_frame(El *E, const char *name, TxSpan nsp, ScVal v)
{
    ScFrame *f = v.u.frame;
    if (f->var) {
        if (f->var_fresh)
            f->var->u.var.name = name;
        el_bind(E, name, sv_expr(f->var, v.span), BIND_PLAIN, nsp);
    }
    el_open_frame(E, f->stmt, f->body);
}

/* Store to an existing scalar, re-bind a let variable, or define a new local. */
static void assign_value(El *E, const char *name, TxSpan nsp, ScVal v, TxSpan sp)
{
    ScVal *old = el_lookup(E, name, NULL);
    if (old && old->kind == SV_BUFFER && old->decay) {
        IrExpr *zero = ir_int(E->a, IR_INT32, 0, sp);
        el_store(E, old->u.e, &zero, 1, &v, NULL, sp);
        return;
    }
    IrExpr *e = el_prim(E, &v, "the assigned value");
    if (!e) {
        el_bind(E, name, sv_error(), BIND_PLAIN, nsp);
        return;
    }
    IrType *pty = el_pointer_type(E, e);
    if (pty) {
        IrExpr *var = ir_var(E->a, name, pty, nsp);
        el_emit(E, bind_stmt(E, var, e, sp));
        el_bind(E, name, sv_expr(var, nsp), BIND_LET, nsp);
        return;
    }
    new_local_scalar(E, name, nsp, e->dtype, &v, sp);
}

/* Parameters, let bindings and (inside functions) module constants cannot be
 * assigned; `n = T.int32()` re-stating a signature variable can. */
static bool check_assignable(El *E, const char *name, TxSpan nsp, const ScVal *v)
{
    ScBinding *b = NULL;
    ScVal *old = el_lookup(E, name, &b);
    if (!old || !E->func || old->kind == SV_ERROR || (old->kind == SV_BUFFER && old->decay))
        return true; /* a scalar buffer (even a parameter) takes a store */
    char dt[IR_DTYPE_STR_MAX];
    switch (b->kind) {
    case BIND_CONST:
        el_error(E, TX_E_ASSIGNMENT, nsp, "cannot assign to compile-time constant '%s'", name);
        el_note(E, b->def_span, "'%s' is defined here", name);
        return false;
    case BIND_PARAM:
        el_error(E, TX_E_ASSIGNMENT, nsp, "cannot assign to parameter '%s'", name);
        return false;
    case BIND_LET:
        el_error(E, TX_E_ASSIGNMENT, nsp, "cannot assign to '%s': it is an immutable let binding",
                 name);
        el_note(E, b->def_span,
                "'%s' was bound here; declare it with '%s: T.%s = ...' to make it mutable", name,
                name, old->kind == SV_EXPR ? ir_dtype_str(old->u.e->dtype, dt) : "int32");
        return false;
    default: return true;
    }
    (void)v;
}

/* Whether a declaration (`x: T.int32`, `x: T.let = ...`) would redefine a
 * name of the function. */
static bool check_new_name(El *E, const char *name, TxSpan nsp)
{
    uint32_t h = name_hash(name);
    for (ScScope *s = E->scope; s && !s->module; s = s->parent) {
        ScBinding *b = scope_find(s, name, h);
        if (b && b->val.kind != SV_ERROR) {
            el_error(E, TX_E_REDEFINITION, nsp, "redefinition of '%s'", name);
            el_note(E, b->def_span, "'%s' was first defined here", name);
            return false;
        }
    }
    return true;
}

static void assign_name(El *E, const char *name, TxSpan nsp, ScVal v, TxSpan sp)
{
    ScBinding *b = NULL;
    ScVal *old;
    if (v.kind != SV_ERROR && !check_assignable(E, name, nsp, &v))
        return;
    switch (v.kind) {
    case SV_ERROR: el_bind(E, name, v, BIND_PLAIN, nsp); return;
    case SV_FRAME: assign_frame(E, name, nsp, v); return;
    case SV_EXPR:
        if (is_fresh_var(&v)) {
            old = el_lookup(E, name, &b);
            if (old && b->kind == BIND_SIGVAR && old->kind == SV_EXPR &&
                ir_dtype_eq(old->u.e->dtype, v.u.e->dtype))
                return; /* `n = T.int32()` re-states a var of the signature */
            v.u.e->u.var.name = name;
            v.fresh = false;
            el_bind(E, name, v, BIND_PLAIN, nsp);
            return;
        }
        assign_value(E, name, nsp, v, sp);
        return;
    case SV_BUFFER:
        if (v.fresh) {
            v.u.e->u.var.name = name;
            v.fresh = false;
            v.decay = el_buffer_is_scalar(v.u.e, false);
            el_bind(E, name, v, BIND_PLAIN, nsp);
            return;
        }
        if (v.decay) {
            assign_value(E, name, nsp, v, sp);
            return;
        }
        el_bind(E, name, v, BIND_PLAIN, nsp);
        return;
    case SV_INT: case SV_FLOAT: case SV_BOOL:
        if (!E->func) {
            el_bind(E, name, v, BIND_PLAIN, nsp);
            return;
        }
        assign_value(E, name, nsp, v, sp);
        return;
    case SV_TUPLE: case SV_LIST:
        if (v.fresh) {
            if (v.u.seq.n == 1 && v.u.seq.items[0].kind == SV_EXPR) {
                v.u.seq.items[0].u.e->u.var.name = name;
                v.u.seq.items[0].fresh = false;
                el_bind(E, name, v.u.seq.items[0], BIND_PLAIN, nsp);
                return;
            }
            for (int i = 0; i < v.u.seq.n; i++)
                if (v.u.seq.items[i].kind == SV_EXPR && v.u.seq.items[i].fresh)
                    v.u.seq.items[i].u.e->u.var.name = tx_arena_printf(E->a, "%s_%d", name, i);
        }
        el_bind(E, name, v, BIND_PLAIN, nsp);
        return;
    case SV_LANG:
        if (v.fresh)
            el_lang_named(E, v.u.lang, name);
        v.fresh = false;
        el_bind(E, name, v, BIND_PLAIN, nsp);
        return;
    case SV_POOL:
        if (v.fresh)
            el_pool_named(E, v.u.pool, name);
        v.fresh = false;
        el_bind(E, name, v, BIND_PLAIN, nsp);
        return;
    case SV_LOOP:
        el_error(E, TX_E_UNSUPPORTED, sp, "a loop range can only be used in a 'for' statement");
        return;
    default: el_bind(E, name, v, BIND_PLAIN, nsp); return;
    }
}

static void assign_target(El *E, const Ast *t, ScVal v, TxSpan sp);

static void assign_unpack(El *E, const Ast *t, ScVal v, TxSpan sp)
{
    if (v.kind == SV_ERROR) {
        for (int i = 0; i < t->items.n; i++)
            assign_target(E, t->items.items[i], v, sp);
        return;
    }
    if (v.kind != SV_TUPLE && v.kind != SV_LIST) {
        el_error(E, TX_E_VALUE, t->span, "cannot unpack %s into %d names", sv_kind_name(&v),
                 t->items.n);
        return;
    }
    if (v.u.seq.n != t->items.n) {
        el_error(E, TX_E_VALUE, t->span, "cannot unpack %d values into %d names", v.u.seq.n,
                 t->items.n);
        return;
    }
    for (int i = 0; i < t->items.n; i++)
        assign_target(E, t->items.items[i], v.u.seq.items[i], sp);
}

static void assign_target(El *E, const Ast *t, ScVal v, TxSpan sp)
{
    switch (t->kind) {
    case A_NAME: assign_name(E, t->name, t->span, v, sp); return;
    case A_TUPLE: case A_LIST: assign_unpack(E, t, v, sp); return;
    case A_SUBSCRIPT: {
        if (v.kind == SV_ERROR)
            return;
        ScVal obj = el_eval(E, t->a);
        if (obj.kind == SV_ERROR)
            return;
        if (obj.kind != SV_BUFFER) {
            el_error(E, TX_E_ASSIGNMENT, t->a->span,
                     "cannot store into %s: only buffer elements can be assigned",
                     sv_kind_name(&obj));
            return;
        }
        IrExpr **idx;
        int n;
        if (el_store_indices(E, obj.u.e, t->b, &idx, &n))
            el_store(E, obj.u.e, idx, n, &v, NULL, sp);
        return;
    }
    default: el_error(E, TX_E_ASSIGNMENT, t->span, "cannot assign to this expression"); return;
    }
}

static int count_targets(const Ast *t)
{
    return (t->kind == A_TUPLE || t->kind == A_LIST) ? t->items.n : 1;
}

/* assign := targets '=' value */
static void elab_assign(El *E, const Ast *s)
{
    E->ntargets = count_targets(s->items.items[0]);
    ScVal v = el_eval(E, s->a);
    E->ntargets = 0;
    if (s->items.n > 1 && v.kind != SV_ERROR && !sv_is_python(&v)) {
        /* `a = b = T.launch_thread(...)` would open one frame twice. */
        el_error(E, TX_E_ARGUMENTS, s->items.items[1]->span,
                 "a chained assignment takes only a compile-time value (a number, string, "
                 "bool or tuple of those)");
        return;
    }
    for (int i = 0; i < s->items.n; i++)
        assign_target(E, s->items.items[i], v, s->span);
}

/* augassign := target op= value: load, operate, store */
static void elab_augassign(El *E, const Ast *s)
{
    ScVal cur = el_eval_value(E, s->a);
    ScVal rhs = el_eval_value(E, s->b);
    if (cur.kind == SV_ERROR || rhs.kind == SV_ERROR)
        return;
    ScVal r = el_binop(E, s->op, cur, rhs, s->span);
    if (r.kind == SV_ERROR)
        return;
    if (s->a->kind == A_NAME) {
        ScBinding *b = NULL;
        ScVal *old = el_lookup(E, s->a->name, &b);
        if (!check_assignable(E, s->a->name, s->a->span, &r))
            return;
        if (old && old->kind == SV_BUFFER && old->decay) {
            assign_value(E, s->a->name, s->a->span, r, s->span);
            return;
        }
        if (old && sv_is_python(old)) {
            b->val = r;
            return;
        }
        el_error(E, TX_E_ASSIGNMENT, s->a->span,
                 "'%s' cannot be updated in place: only scalars (x: T.int32) and buffer "
                 "elements can",
                 s->a->name);
        return;
    }
    assign_target(E, s->a, r, s->span);
}

/* annassign := NAME ':' (T.let[ty] | T.let | dtype | dtype[dims]) ['=' value] */
static void elab_annassign(El *E, const Ast *s)
{
    if (s->a->kind != A_NAME) {
        el_error(E, TX_E_UNSUPPORTED, s->a->span,
                 "only a plain name can be declared with an annotation");
        return;
    }
    const char *name = s->a->name;
    if (!check_new_name(E, name, s->a->span))
        return;
    /* Until the declaration succeeds, the name is an error (no cascades). */
    el_bind(E, name, sv_error(), BIND_PLAIN, s->a->span);
    ScVal ann = el_eval(E, s->b);
    if (ann.kind == SV_ERROR)
        return;
    ScVal val = sv_none(s->span);
    if (s->c && (val = el_eval_value(E, s->c)).kind == SV_ERROR)
        return;
    if (ann.kind == SV_LET) {
        if (!s->c) {
            el_error(E, TX_E_ARGUMENTS, s->span, "'%s: T.let' needs a value", name);
            return;
        }
        if (val.kind == SV_STR) { /* a string is no scalar: it would not print back alike */
            el_error(E, TX_E_TYPE, s->c->span, "'%s: T.let' binds a number or a pointer, not a string",
                     name);
            return;
        }
        IrExpr *e = el_prim(E, &val, "the bound value");
        if (!e)
            return;
        IrType *ty = ann.u.ty;
        if (!ty)
            ty = el_pointer_type(E, e);
        if (!ty)
            ty = el_prim_type(E, e->dtype);
        if (ty->kind == IR_TY_PRIM && !ir_dtype_eq(ty->dtype, e->dtype)) {
            if (val.kind == SV_INT || val.kind == SV_FLOAT || val.kind == SV_BOOL) {
                e = el_prim_as(E, &val, ty->dtype, "the bound value");
                if (!e)
                    return;
            } else {
                char x[IR_DTYPE_STR_MAX], y[IR_DTYPE_STR_MAX];
                el_error(E, TX_E_TYPE, s->c->span,
                         "'%s' is declared %s but the value has dtype %s", name,
                         ir_dtype_str(ty->dtype, x), ir_dtype_str(e->dtype, y));
                return;
            }
        }
        IrExpr *var = ir_var(E->a, name, ty, s->a->span);
        el_emit(E, bind_stmt(E, var, e, s->span));
        el_bind(E, name, sv_expr(var, s->a->span), BIND_LET, s->a->span);
        return;
    }
    if (ann.kind == SV_DTYPE) {
        if (ann.u.dt.code == IR_DT_HANDLE) {
            el_error(E, TX_E_ASSIGNMENT, s->b->span,
                     "a pointer cannot be a mutable scalar; bind it with '%s: T.let = ...'", name);
            return;
        }
        new_local_scalar(E, name, s->a->span, ann.u.dt, s->c ? &val : NULL, s->span);
        return;
    }
    if (ann.kind == SV_LOCALBUF) {
        if (s->c) {
            el_error(E, TX_E_ARGUMENTS, s->c->span,
                     "a local buffer declaration '%s: T.<dtype>[...]' takes no value",
                     name);
            return;
        }
        IrExpr **shape = TX_NEW_ARRAY(E->a, IrExpr *, ann.u.localbuf.n);
        for (int i = 0; i < ann.u.localbuf.n; i++)
            if (!(shape[i] = el_prim(E, &ann.u.localbuf.dims[i], "a buffer dimension")))
                return;
        IrExpr *buf = el_new_buffer(E, ann.u.localbuf.dt, shape, ann.u.localbuf.n, "local",
                                    s->span);
        buf->u.var.name = name;
        IrStmt *alloc = ir_stmt(E->a, IR_S_ALLOC, s->span);
        alloc->u.alloc.buffer = buf;
        el_emit(E, alloc);
        ScVal bv = {.kind = SV_BUFFER, .span = s->a->span};
        bv.u.e = buf;
        bv.decay = el_buffer_is_scalar(buf, true);
        el_bind(E, name, bv, BIND_PLAIN, s->a->span);
        return;
    }
    el_error(E, TX_E_TYPE, s->b->span,
             "unsupported annotation (%s): use T.<dtype>, T.<dtype>[dims], T.let or T.let[type]",
             sv_kind_name(&ann));
}

/* ---------------------------------------------------------------- loops */

IrStmt *el_loop_nest(El *E, const ScLoop *L, IrExpr **vars, IrStmt *body, TxSpan sp)
{
    for (int i = L->ndims - 1; i >= 0; i--) {
        IrStmt *f = ir_stmt(E->a, IR_S_FOR, sp);
        f->u.loop.var = vars[i];
        f->u.loop.min = L->dims[i].min, f->u.loop.extent = L->dims[i].extent;
        f->u.loop.step = L->dims[i].step;
        f->u.loop.kind = L->kind, f->u.loop.thread = L->thread;
        f->u.loop.nannot = L->nannot, f->u.loop.annot = L->annot;
        f->u.loop.body = body;
        body = f;
    }
    return body;
}

/* for := 'for' targets 'in' loop_range ':' body */
static void elab_for(El *E, const Ast *s)
{
    ScVal it = el_eval(E, s->b);
    if (it.kind == SV_ERROR)
        return;
    if (it.kind != SV_LOOP) {
        el_error(E, TX_E_ARGUMENTS, s->b->span,
                 "a 'for' loop needs range(...), T.serial/parallel/vectorized/unroll(...), "
                 "T.thread_binding(...) or T.grid(...), not %s",
                 sv_kind_name(&it));
        return;
    }
    const ScLoop *L = it.u.loop;
    const Ast *t = s->a;
    int ntarget = count_targets(t);
    if (ntarget != L->ndims) {
        el_error(E, TX_E_VALUE, t->span, "%d loop variable%s for %d loop%s", ntarget,
                 ntarget == 1 ? "" : "s",
                 L->ndims, L->ndims == 1 ? "" : "s");
        return;
    }
    IrExpr **vars = TX_NEW_ARRAY(E->a, IrExpr *, L->ndims);
    push_scope(E);
    for (int i = 0; i < L->ndims; i++) {
        const Ast *ti = ntarget == 1 && t->kind != A_TUPLE && t->kind != A_LIST ? t : t->items.items[i];
        if (ti->kind != A_NAME) {
            el_error(E, TX_E_TYPE, ti->span, "a loop variable must be a plain name");
            pop_scope(E);
            return;
        }
        vars[i] = ir_var(E->a, ti->name, el_prim_type(E, L->dims[i].dtype), ti->span);
        el_bind(E, ti->name, sv_expr(vars[i], ti->span), BIND_PLAIN, ti->span);
    }
    IrStmt *body = el_block(E, s->body);
    pop_scope(E);
    el_emit(E, el_loop_nest(E, L, vars, body, s->span));
}

/* The condition of an if/while: a boolean or integer PrimExpr. */
static IrExpr *condition(El *E, const ScVal *c, const char *what, TxSpan sp)
{
    IrExpr *e = el_prim(E, c, "a condition");
    if (e && !ir_dtype_is_int(e->dtype) && e->dtype.code != IR_DT_BOOL) {
        char buf[IR_DTYPE_STR_MAX];
        el_error(E, TX_E_TYPE, sp, "the condition of '%s' must be a boolean or an integer, not %s",
                 what,
                 ir_dtype_str(e->dtype, buf));
        return NULL;
    }
    return e;
}

/* while := 'while' cond ':' body */
static void elab_while(El *E, const Ast *s)
{
    ScVal c = el_eval_value(E, s->a);
    IrExpr *cond = c.kind == SV_ERROR ? NULL : condition(E, &c, "while", s->a->span);
    IrStmt *body = el_block(E, s->body);
    if (!cond)
        return;
    IrStmt *w = ir_stmt(E->a, IR_S_WHILE, s->span);
    w->u.whl.cond = cond, w->u.whl.body = body;
    el_emit(E, w);
}

/* if := 'if' cond ':' body ['else' ':' body]; a compile-time condition keeps
 * only the taken branch (the other is parsed, not elaborated). */
static void elab_if(El *E, const Ast *s)
{
    ScVal c = el_eval_value(E, s->a);
    if (c.kind == SV_ERROR)
        return;
    bool truth;
    if (sv_truth(&c, &truth)) {
        el_block_inline(E, truth ? s->body : s->orelse);
        return;
    }
    IrExpr *cond = condition(E, &c, "if", s->a->span);
    if (!cond)
        return;
    IrStmt *then_s = el_block(E, s->body);
    IrStmt *else_s = s->orelse.n ? el_block(E, s->orelse) : NULL;
    IrStmt *st = ir_stmt(E->a, IR_S_IF, s->span);
    st->u.ifs.cond = cond, st->u.ifs.then_s = then_s, st->u.ifs.else_s = else_s;
    el_emit(E, st);
}

/* with := 'with' frame ['as' NAME] (',' frame ['as' NAME])* ':' body
 * A frame's prologue (a warp role's setmaxnreg) starts its body. */
static void elab_with(El *E, const Ast *s)
{
    int n = s->items.n;
    ScFrame **frames = TX_NEW_ARRAY(E->a, ScFrame *, n);
    push_scope(E);
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
        ScVal v = el_eval(E, s->items.items[i]);
        if (v.kind == SV_LANG) {
            if (!(frames[i] = el_lang_frame(E, &v))) {
                ok = false;
                break;
            }
        } else if (v.kind != SV_FRAME) {
            if (v.kind != SV_ERROR)
                el_error(E, TX_E_ARGUMENTS, s->items.items[i]->span,
                         "'with' needs T.attr(...), T.launch_thread(...), T.hint(...), "
                         "T.tile.compose_op(...) or a warp role, not %s",
                         sv_kind_name(&v));
            ok = false;
            break;
        } else {
            frames[i] = v.u.frame;
        }
        const Ast *tg = s->items2.items[i];
        if (tg) {
            if (tg->kind != A_NAME || !frames[i]->var) {
                el_error(E, TX_E_UNSUPPORTED, tg->span,
                         "this 'with' item defines no variable to name");
                ok = false;
                break;
            }
            if (frames[i]->var_fresh)
                frames[i]->var->u.var.name = tg->name;
            el_bind(E, tg->name, sv_expr(frames[i]->var, tg->span), BIND_PLAIN, tg->span);
        }
    }
    if (!ok) {
        pop_scope(E);
        return;
    }
    IrStmt *body = NULL;
    for (int i = n - 1; i >= 0; i--) {
        ScStmtList outer = el_block_begin(E);
        if (frames[i]->prologue)
            el_emit(E, frames[i]->prologue);
        if (body)
            el_emit(E, body);
        else
            el_block_inline(E, s->body);
        *frames[i]->body = el_block_end(E, outer, s->span);
        body = frames[i]->stmt;
    }
    pop_scope(E);
    el_emit(E, body);
}

/* assert := 'assert' cond [',' (message | '(' kind ',' '[' parts ']' ')')] */
static void elab_assert(El *E, const Ast *s)
{
    ScVal c = el_eval_value(E, s->a);
    IrExpr *cond = c.kind == SV_ERROR ? NULL : el_prim(E, &c, "an assert condition");
    if (!cond)
        return;
    IrStmt *st = ir_stmt(E->a, IR_S_ASSERT, s->span);
    st->u.assert_.cond = cond;
    st->u.assert_.kind = "RuntimeError";
    if (s->b) {
        ScVal m = el_eval(E, s->b);
        if (m.kind == SV_STR) {
            st->u.assert_.nparts = 1;
            st->u.assert_.parts = TX_NEW_ARRAY(E->a, const char *, 1);
            st->u.assert_.parts[0] = m.u.str.s;
        } else if (m.kind == SV_TUPLE && m.u.seq.n == 2 && m.u.seq.items[0].kind == SV_STR &&
                   (m.u.seq.items[1].kind == SV_LIST || m.u.seq.items[1].kind == SV_TUPLE)) {
            ScVal *parts = m.u.seq.items[1].u.seq.items;
            int np = m.u.seq.items[1].u.seq.n;
            st->u.assert_.kind = m.u.seq.items[0].u.str.s;
            st->u.assert_.nparts = np;
            st->u.assert_.parts = TX_NEW_ARRAY(E->a, const char *, np ? np : 1);
            for (int i = 0; i < np; i++) {
                if (parts[i].kind != SV_STR) {
                    el_error(E, TX_E_TYPE, s->b->span, "assert message parts must be strings");
                    return;
                }
                st->u.assert_.parts[i] = parts[i].u.str.s;
            }
        } else if (m.kind != SV_ERROR) {
            el_error(E, TX_E_TYPE, s->b->span,
                     "an assert message is a string or (\"Kind\", [\"part\", ...]), not %s",
                     sv_kind_name(&m));
            return;
        } else {
            return;
        }
    }
    el_emit(E, st);
}

static void elab_return(El *E, const Ast *s)
{
    if (E->nmacro > 0) {
        E->macro_ret = s->a ? el_eval(E, s->a) : sv_none(s->span);
        E->returned = true;
        return;
    }
    IrStmt *st = ir_stmt(E->a, IR_S_RETURN, s->span);
    if (s->a) {
        ScVal v = el_eval_value(E, s->a);
        if (v.kind == SV_ERROR)
            return;
        /* `return None` is a bare `return` */
        if (v.kind != SV_NONE && E->ret_none) {
            el_error(E, TX_E_TYPE, s->a->span,
                     "'%s' is declared to return None but returns a value", E->func->name);
            el_note(E, E->ret_none->span, "declared here");
            return;
        }
        if (v.kind != SV_NONE && !(st->u.ret = el_prim(E, &v, "the returned value")))
            return;
    }
    el_emit(E, st);
}

/* An expression used as a statement. */
static void elab_expr_stmt(El *E, const Ast *s)
{
    const Ast *outer = E->stmt_call;
    E->stmt_call = s->a;
    ScVal v = el_eval(E, s->a);
    E->stmt_call = outer;
    switch (v.kind) {
    case SV_FRAME:
        if (v.u.frame->var && v.u.frame->var_fresh) {
            const char *tag = el_thread_tag(E, v.u.frame->var);
            if (tag)
                v.u.frame->var->u.var.name = tag;
        }
        el_open_frame(E, v.u.frame->stmt, v.u.frame->body);
        return;
    case SV_EXPR:
        if (v.fresh)
            return; /* an unassigned scope id or T.int32(): already defined */
        break;
    case SV_BUFFER:
        if (!v.decay)
            return;
        break;
    case SV_INT: case SV_BOOL: case SV_FLOAT: break;
    case SV_NONE: case SV_STR: case SV_ERROR: case SV_TUPLE: case SV_LIST: return;
    default:
        el_error(E, TX_E_UNSUPPORTED, s->span, "%s used as a statement does nothing",
                 sv_kind_name(&v));
        return;
    }
    IrExpr *e = el_prim(E, &v, "an expression statement");
    if (!e)
        return;
    IrStmt *st = ir_stmt(E->a, IR_S_EVAL, s->span);
    st->u.eval = e;
    el_emit(E, st);
}

/* Counts a statement of a macro expansion; false (reported once, at the
 * outermost macro call) when the module's expansions pass the limit. */
static bool macro_budget(El *E)
{
    if (E->macro_over)
        return false;
    if (++E->macro_stmts <= SC_MAX_MACRO_STMTS)
        return true;
    E->macro_over = true;
    const ScMacroCall *outer = &E->macro_stack[0], *inner = &E->macro_stack[E->nmacro - 1];
    tx_error(E->d, TX_E_MACRO, outer->call_span,
             "the expansion of macro '%s' passes %d statements (the limit on macro expansion)",
             outer->def->name, SC_MAX_MACRO_STMTS);
    if (inner != outer) {
        int line, col;
        tx_source_linecol(inner->call_span.src, inner->call_span.begin, &line, &col);
        tx_note(E->d, inner->call_span, "the limit was reached in macro '%s' called at %d:%d",
                inner->def->name, line, col);
    }
    return false;
}

/* False once the module has SC_MAX_ERRORS errors (said once, at statement s). */
static bool errors_budget(El *E, const Ast *s)
{
    if (E->errors_over)
        return false;
    if (E->d->nerrors < SC_MAX_ERRORS)
        return true;
    E->errors_over = true;
    tx_note(E->d, s->span, "%d errors: elaboration stops here", E->d->nerrors);
    return false;
}

static void elab_stmt(El *E, const Ast *s)
{
    if ((E->nmacro && !macro_budget(E)) || !errors_budget(E, s))
        return;
    switch (s->kind) {
    case A_S_EXPR: elab_expr_stmt(E, s); break;
    case A_S_ASSIGN: elab_assign(E, s); break;
    case A_S_AUGASSIGN: elab_augassign(E, s); break;
    case A_S_ANNASSIGN: elab_annassign(E, s); break;
    case A_S_FOR: elab_for(E, s); break;
    case A_S_WHILE: elab_while(E, s); break;
    case A_S_IF: elab_if(E, s); break;
    case A_S_WITH: elab_with(E, s); break;
    case A_S_ASSERT: elab_assert(E, s); break;
    case A_S_RETURN: elab_return(E, s); break;
    case A_S_BREAK: case A_S_CONTINUE:
        el_emit(E, ir_stmt(E->a, s->kind == A_S_BREAK ? IR_S_BREAK : IR_S_CONTINUE, s->span));
        break;
    case A_S_IMPORT:
        if (el_is_file_import(s))
            el_error(E, TX_E_IMPORT, s->name_span,
                     "a .tirx file is imported at module level, not inside a function");
        else
            el_import(E, s);
        break;
    case A_S_PASS: break;
    case A_S_DEF: case A_S_CLASS:
        el_error(E, TX_E_UNSUPPORTED_SYNTAX, s->span,
                 "nested %s definitions are not supported; define them at module level",
                 s->kind == A_S_DEF ? "function" : "class");
        break;
    default: el_error(E, TX_E_UNSUPPORTED, s->span, "not a statement"); break;
    }
}
