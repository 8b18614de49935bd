/* Tile-primitive calls: `T.cta.copy(dst, src)`, `Tx.wg.sum(...)`, `T.tile.gemm_async(...)`,
 * `with T.tile.compose_op(...):`, and the op values `I.Op("tirx.tile.add")` of the composed
 * operations. Each call's arguments are bound to its op's signature (src/ir/tile_ops.def) the
 * way the reference's Python builders bind them: positionally or by keyword, defaults filled
 * in, buffers made full regions, `axes` made lists, op names made op values; the keywords that
 * are not parameters are the call's configuration. The IR holds the arguments in the order the
 * reference's IR does, which is also the printed order.
 *
 * `T.<op>` without a scope is a thread-scope tile primitive; where the name is also a scalar
 * function (exp, exp2, log2, sqrt, fma, max, min, cast), it is the tile primitive only as a
 * statement whose first argument is a buffer or a region (the reference spells the two apart
 * as `Tx.exp(A)` and `T.exp(x)`; here `Tx` and `T` are one namespace). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "elab.h"

/* ---------------------------------------------------------------- signatures */

typedef enum { TK_VALUE, TK_REGION, TK_OPERAND, TK_AXES, TK_OP, TK_LAMBDA } TileKind;

static const struct {
    const char *word;
    TileKind kind;
} kind_words[] = {{"region", TK_REGION}, {"operand", TK_OPERAND}, {"axes", TK_AXES},
                  {"op", TK_OP},         {"lambda", TK_LAMBDA}};

#define TILE_MAX_PARAMS 8

typedef struct TileParam {
    char name[24];
    char def[8];  /* the default as written ("None", "False", "-1", "1.0", "@dst"); "" required */
    TileKind kind;
    bool paired;  /* '?': left out of the IR when None */
} TileParam;

typedef struct TileSig {
    int n;
    TileParam p[TILE_MAX_PARAMS];
} TileSig;

static void copy_word(char *dst, size_t cap, const char *src, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* A parameter list of tile_ops.def (trusted text). */
static void parse_sig(const char *spec, TileSig *s)
{
    s->n = 0;
    const char *p = spec;
    while (*p && s->n < TILE_MAX_PARAMS) {
        while (*p == ' ' || *p == ',')
            p++;
        if (!*p)
            break;
        TileParam *t = &s->p[s->n++];
        memset(t, 0, sizeof *t);
        size_t n = strcspn(p, "?:=, ");
        copy_word(t->name, sizeof t->name, p, n);
        p += n;
        if (*p == '?')
            t->paired = true, p++;
        if (*p == ':') {
            n = strcspn(++p, "=, ");
            for (size_t k = 0; k < TX_ARRAY_LEN(kind_words); k++)
                if (strlen(kind_words[k].word) == n && !strncmp(kind_words[k].word, p, n))
                    t->kind = kind_words[k].kind;
            p += n;
        }
        if (*p == '=') {
            n = strcspn(++p, ", ");
            copy_word(t->def, sizeof t->def, p, n);
            p += n;
        }
    }
}

static int param_index(const TileSig *s, const char *name)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->p[i].name, name))
            return i;
    return -1;
}

/* The op's parameters, and the indices of its IR arguments in IR order. */
static void op_signature(IrTileOp op, TileSig *sig, int *order)
{
    const IrTileOpInfo *info = &ir_tile_ops[op];
    parse_sig(info->params, sig);
    if (!*info->ir_order) {
        for (int i = 0; i < sig->n; i++)
            order[i] = i;
        return;
    }
    TileSig ir;
    parse_sig(info->ir_order, &ir);
    for (int i = 0; i < ir.n; i++)
        order[i] = param_index(sig, ir.p[i].name);
}

bool sc_tile_reads_in_place(IrTileOp op)
{
    TileSig sig;
    int order[TILE_MAX_PARAMS];
    op_signature(op, &sig, order);
    return sig.n >= 2 && order[1] >= 0 && !strcmp(sig.p[order[1]].def, "@dst");
}

/* ---------------------------------------------------------------- argument values */

static bool is_point_load(const ScVal *v)
{
    if (v->kind != SV_EXPR || v->u.e->kind != IR_E_LOAD || v->u.e->u.access.predicate)
        return false;
    for (int i = 0; i < v->u.e->u.access.n; i++)
        if (v->u.e->u.access.indices[i]->dtype.lanes != 1)
            return false;
    return true;
}

static bool is_op_value(const ScVal *v) { return v->kind == SV_EXPR && v->u.e->kind == IR_E_OP; }

/* Whether a positional value can be the parameter's: a value that cannot selects the printed
 * (IR) order. */
static bool fits(const TileParam *p, const ScVal *v)
{
    switch (p->kind) {
    case TK_REGION:
        return v->kind == SV_BUFFER || v->kind == SV_REGION || is_point_load(v) ||
               (v->kind == SV_NONE && !strcmp(p->def, "None"));
    case TK_OP: return v->kind == SV_STR || is_op_value(v);
    default: return true;
    }
}

static IrExpr *op_node(El *E, const char *name, TxSpan sp)
{
    IrExpr *e = ir_node(E->a, IR_E_OP, IR_VOID, sp);
    e->u.str = tx_arena_printf(E->a, "tirx.tile.%s", name);
    return e;
}

/* "; did you mean 'copy'?" for a misspelt tile primitive, or "". */
static const char *suggest_op(El *E, const char *name)
{
    const char *names[IR_TILE_COUNT];
    for (int i = 0; i < IR_TILE_COUNT; i++)
        names[i] = ir_tile_ops[i].name;
    return el_suggest(E, name, names, IR_TILE_COUNT);
}

/* A tile primitive named by a string ("add"): its op value. */
static IrExpr *named_op(El *E, const char *name, TxSpan sp)
{
    if (ir_tile_op_lookup(name) >= 0)
        return op_node(E, name, sp);
    el_error(E, TX_E_UNKNOWN_TILE_OP, sp, "'%s' is not a tile primitive%s", name,
             suggest_op(E, name));
    return NULL;
}

static IrExpr *point_region(El *E, IrExpr *load, TxSpan sp)
{
    int n = load->u.access.n;
    IrExpr **ext = TX_NEW_ARRAY(E->a, IrExpr *, n ? n : 1);
    for (int i = 0; i < n; i++)
        ext[i] = ir_int(E->a, load->u.access.indices[i]->dtype, 1, sp);
    return el_region(E, load->u.access.buffer, load->u.access.indices, ext, n, sp);
}

/* Reduction axes as a list: a sequence as it is, anything else as its one item (the
 * reference's _wrap_elem_in_tuple). */
static IrExpr *axes_list(El *E, const ScVal *v)
{
    if (v->kind == SV_LIST || v->kind == SV_TUPLE)
        return el_pod(E, v, "the axes");
    IrExpr *item = el_pod(E, v, "an axis");
    if (!item)
        return NULL;
    IrExpr *list = ir_node(E->a, IR_E_LIST, IR_VOID, v->span);
    list->u.list.n = 1;
    list->u.list.items = TX_NEW_ARRAY(E->a, IrExpr *, 1);
    list->u.list.items[0] = item;
    return list;
}

/* An argument as the IR holds it, by the parameter's kind. */
static IrExpr *convert(El *E, const char *fname, const TileParam *p, const ScVal *v)
{
    switch (p->kind) {
    case TK_REGION:
        if (v->kind == SV_BUFFER)
            return el_full_region(E, v->u.e, v->span);
        if (v->kind == SV_REGION)
            return v->u.e;
        if (is_point_load(v))
            return point_region(E, v->u.e, v->span);
        el_error(E, TX_E_TILE_OPERANDS, v->span,
                 "%s: the argument '%s' must be a buffer or a buffer region, not %s",
                 fname, p->name, sv_kind_name(v));
        return NULL;
    case TK_OPERAND:
        if (v->kind == SV_BUFFER && !v->decay)
            return el_full_region(E, v->u.e, v->span);
        return el_pod(E, v, "a tile-primitive argument");
    case TK_AXES: return axes_list(E, v);
    case TK_OP:
        if (v->kind == SV_STR)
            return named_op(E, v->u.str.s, v->span);
        if (is_op_value(v))
            return v->u.e;
        el_error(E, TX_E_TILE_OPERANDS, v->span,
                 "%s: the argument '%s' must name a tile primitive (\"add\" or "
                 "I.Op(\"tirx.tile.add\")), not %s",
                 fname, p->name, sv_kind_name(v));
        return NULL;
    case TK_LAMBDA:
        if (v->kind == SV_LAMBDA)
            return el_lambda(E, v, IR_INT32, NULL, 0, false, "a tile predicate");
        el_error(E, TX_E_TILE_OPERANDS, v->span, "%s: the argument '%s' must be a lambda, not %s",
                 fname, p->name,
                 sv_kind_name(v));
        return NULL;
    case TK_VALUE: break;
    }
    return el_pod(E, v, "a tile-primitive argument");
}

/* The default of a parameter as a value ("@name" is handled by the caller). */
static ScVal default_value(const TileParam *p, TxSpan sp)
{
    if (!strcmp(p->def, "None"))
        return sv_none(sp);
    if (!strcmp(p->def, "False") || !strcmp(p->def, "True"))
        return sv_bool(p->def[0] == 'T', sp);
    if (strchr(p->def, '.')) {
        ScVal v = {.kind = SV_FLOAT, .span = sp};
        v.u.f = strtod(p->def, NULL);
        return v;
    }
    return sv_int(strtoll(p->def, NULL, 10), sp);
}

/* ---------------------------------------------------------------- binding */

/* The el_bind_args list for the parameters in `order` (paired ones left out when `printed`),
 * then the keywords of a configurable op. */
static const char *bind_list(El *E, const TileSig *sig, const int *order, int n, bool printed,
                             unsigned flags, int *names)
{
    char buf[512];
    size_t len = 0;
    int k = 0;
    for (int i = 0; i < n; i++) {
        const TileParam *p = &sig->p[order[i]];
        if (printed && p->paired)
            continue;
        names[k++] = order[i];
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s%s", len ? ", " : "", p->name,
                                p->def[0] || p->paired ? "=" : "");
    }
    if (flags & IR_TILE_CONFIG)
        snprintf(buf + len, sizeof buf - len, "%sworkspace=, dispatch=, **config", len ? ", " : "");
    names[k] = -1;
    return tx_arena_strdup(E->a, buf);
}

/* Whether the call is written in the printed (IR) order: the first position where that order
 * leaves the parameter order holds a value that does not fit the parameter there. */
static bool printed_order(const TileSig *sig, const int *order, const ScArgs *args)
{
    int k = 0;
    for (int i = 0; i < sig->n; i++) {
        if (sig->p[order[i]].paired)
            continue;
        if (order[i] != k)
            return args->npos > k && !fits(&sig->p[k], &args->pos[k]);
        k++;
    }
    return false;
}

static int kwarg_cmp(const void *a, const void *b)
{
    return strcmp(((const IrKwarg *)a)->key, ((const IrKwarg *)b)->key);
}

static bool set_workspace(El *E, const ScVal *v, IrStmt *s)
{
    if (v->kind == SV_NONE)
        return true;
    if (v->kind != SV_DICT) {
        el_error(E, TX_E_TILE_OPERANDS, v->span, "workspace= takes a dictionary of buffers");
        return false;
    }
    for (int i = 0; i < v->u.dict.n; i++) {
        const ScVal *w = &v->u.dict.vals[i];
        if (w->kind != SV_BUFFER && w->kind != SV_ERROR) {
            el_error(E, TX_E_TILE_OPERANDS, w->span,
                     "workspace= takes a dictionary of buffers, not %s", sv_kind_name(w));
            return false;
        }
    }
    IrExpr *d = el_pod(E, v, "workspace");
    if (!d)
        return false;
    s->u.tile.nworkspace = d->u.list.n, s->u.tile.workspace = d->u.list.kwargs;
    if (d->u.list.n > 1)
        qsort(s->u.tile.workspace, (size_t)d->u.list.n, sizeof(IrKwarg), kwarg_cmp);
    return true;
}

/* The parameter a keyword that is not one surely means, or NULL: one that differs only in
 * case, or, for a keyword of four letters or more, by one edit (configuration keys are free
 * names, so shorter ones, `dt=` beside `dst`, stay configuration). */
static const char *misspelt_param(const char *key, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcasecmp(key, names[i]))
            return names[i];
    if (strlen(key) < 4)
        return NULL;
    for (int i = 0; i < n; i++)
        if (tx_edit_distance(key, names[i], 1) <= 1)
            return names[i];
    return NULL;
}

/* The configuration: the keywords that are not parameters. One that looks like a misspelt
 * parameter is an error rather than a silent configuration entry. */
static bool set_config(El *E, const ScArgs *args, const ScBound *b, const TileSig *sig,
                       IrStmt *s)
{
    const char *cands[TILE_MAX_PARAMS + 2];
    int nc = 0;
    for (int i = 0; i < sig->n; i++)
        cands[nc++] = sig->p[i].name;
    cands[nc++] = "workspace", cands[nc++] = "dispatch";
    IrKwarg *cfg = TX_NEW_ARRAY(E->a, IrKwarg, b->nrest_kw ? b->nrest_kw : 1);
    for (int i = 0; i < b->nrest_kw; i++) {
        int k = b->rest_kw[i];
        const char *key = args->kwnames[k];
        const char *near = misspelt_param(key, cands, nc);
        if (near) {
            el_error(E, TX_E_ARGUMENTS, args->kwspans[k],
                     "%s got an unexpected keyword argument '%s'; did you mean '%s'?", args->fname,
                     key, near);
            return false;
        }
        if (!strcmp(key, "scope")) {
            el_error(E, TX_E_TILE_OPERANDS, args->kwspans[k],
                     "%s: the scope of a tile primitive is its namespace (T.warp.%s, T.cta.%s, "
                     "...), not a scope= keyword", args->fname, ir_tile_ops[s->u.tile.op].name,
                     ir_tile_ops[s->u.tile.op].name);
            return false;
        }
        cfg[i].key = key;
        if (!(cfg[i].value = el_pod(E, &args->kw[k], "a tile-primitive option")))
            return false;
    }
    if (b->nrest_kw > 1)
        qsort(cfg, (size_t)b->nrest_kw, sizeof(IrKwarg), kwarg_cmp);
    s->u.tile.nconfig = b->nrest_kw, s->u.tile.config = cfg;
    return true;
}

/* The IR arguments from the bound values (val[i] of parameter i; kind SV_COUNT when not
 * given), in IR order. */
static bool set_args(El *E, const char *fname, const TileSig *sig, const int *order,
                     const ScVal *val, IrStmt *s, TxSpan sp)
{
    IrExpr *by_param[TILE_MAX_PARAMS] = {0};
    IrExpr **args = TX_NEW_ARRAY(E->a, IrExpr *, sig->n ? sig->n : 1);
    int n = 0, npaired = 0, nnone = 0;
    const char *paired[TILE_MAX_PARAMS];
    for (int i = 0; i < sig->n; i++) {
        int j = order[i];
        const TileParam *p = &sig->p[j];
        const ScVal *v = &val[j];
        bool none_ok = !strcmp(p->def, "None") || p->def[0] == '@';
        if (v->kind == SV_NONE && !none_ok) {
            el_error(E, TX_E_TILE_OPERANDS, v->span, "%s: the argument '%s' cannot be None", fname,
                     p->name);
            return false;
        }
        IrExpr *e;
        if ((!sv_given(v) || v->kind == SV_NONE) && p->def[0] == '@') {
            e = by_param[param_index(sig, p->def + 1)];
        } else {
            ScVal d = sv_given(v) ? *v : default_value(p, sp);
            e = d.kind == SV_NONE ? ir_node(E->a, IR_E_NONE, IR_VOID, d.span) : convert(E, fname, p, &d);
            if (!e)
                return false;
        }
        by_param[j] = e;
        if (p->paired) {
            paired[npaired++] = p->name;
            nnone += e->kind == IR_E_NONE;
            if (e->kind == IR_E_NONE)
                continue;
        }
        args[n++] = e;
    }
    if (nnone && nnone < npaired) {
        el_error(E, TX_E_TILE_OPERANDS, sp, "%s takes %s and %s together, or neither", fname,
                 paired[0], paired[1]);
        return false;
    }
    while (n > 0 && args[n - 1]->kind == IR_E_NONE)
        n--;
    s->u.tile.nargs = n, s->u.tile.args = args;
    return true;
}

static ScVal tile_call(El *E, IrScope scope, IrTileOp op, ScArgs *args)
{
    IrStmt *s = ir_stmt(E->a, IR_S_TILE, args->span);
    s->u.tile.scope = scope, s->u.tile.op = op;
    unsigned flags = ir_tile_ops[op].flags;
    TileSig sig;
    int order[TILE_MAX_PARAMS], given[TILE_MAX_PARAMS], names[TILE_MAX_PARAMS + 1];
    op_signature(op, &sig, order);
    bool printed = printed_order(&sig, order, args);
    for (int i = 0; i < sig.n; i++)
        given[i] = i;
    const char *list = bind_list(E, &sig, printed ? order : given, sig.n, printed, flags, names);
    ScBound b;
    if (!el_bind_args(E, args, list, &b))
        return sv_error();
    ScVal val[TILE_MAX_PARAMS];
    for (int i = 0; i < sig.n; i++)
        val[i].kind = SV_COUNT;
    int k = 0;
    for (; names[k] >= 0; k++)
        val[names[k]] = b.v[k];
    if (!set_args(E, args->fname, &sig, order, val, s, args->span))
        return sv_error();
    if (flags & IR_TILE_CONFIG) {
        if (sv_given(&b.v[k]) && !set_workspace(E, &b.v[k], s))
            return sv_error();
        const ScVal *d = &b.v[k + 1];
        if (sv_given(d) && d->kind != SV_NONE && !(s->u.tile.dispatch = el_str_const(E, d, "dispatch")))
            return sv_error();
        if (!set_config(E, args, &b, &sig, s))
            return sv_error();
    }
    if (flags & IR_TILE_FRAME) {
        if (scope != IR_SCOPE_THREAD) {
            el_error(E, TX_E_TILE_OPERANDS, args->span,
                     "compose_op is written T.tile.compose_op(...)");
            return sv_error();
        }
        ScFrame *f = TX_NEW(E->a, ScFrame);
        f->stmt = s, f->body = &s->u.tile.body;
        ScVal v = {.kind = SV_FRAME, .span = args->span};
        v.u.frame = f;
        return v;
    }
    el_emit(E, s);
    return sv_none(args->span);
}

/* ---------------------------------------------------------------- names */

static const struct {
    const char *name;
    IrScope scope;
} tile_scopes[] = {
    {"warp", IR_SCOPE_WARP}, {"wg", IR_SCOPE_WARPGROUP}, {"warpgroup", IR_SCOPE_WARPGROUP},
    {"cta", IR_SCOPE_CTA},   {"cluster", IR_SCOPE_CLUSTER}, {"tile", IR_SCOPE_THREAD},
    {"thread", IR_SCOPE_THREAD},
};

static bool scope_of(const char *name, IrScope *out)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(tile_scopes); i++)
        if (!strcmp(tile_scopes[i].name, name)) {
            *out = tile_scopes[i].scope;
            return true;
        }
    return false;
}

static TxSpan callee_span(const ScArgs *args)
{
    return args->call && args->call->a ? args->call->a->span : args->span;
}

static const ScVal *arg_at(const ScArgs *args, int i, const char *name)
{
    if (i < args->npos)
        return &args->pos[i];
    for (int k = 0; k < args->nkw; k++)
        if (!strcmp(args->kwnames[k], name))
            return &args->kw[k];
    return NULL;
}

bool el_tile_overload(El *E, const char *name, const ScArgs *args)
{
    int op = ir_tile_op_lookup(name);
    if (op < 0 || !args->call || args->call != E->stmt_call)
        return false;
    const ScVal *dst = arg_at(args, 0, "dst");
    if (!dst || !((dst->kind == SV_BUFFER && !dst->decay) || dst->kind == SV_REGION))
        return false;
    const ScVal *src = arg_at(args, 1, "src");
    return op != IR_TILE_CAST || !src || (src->kind != SV_STR && src->kind != SV_DTYPE);
}

bool el_tile_call(El *E, const char *path, ScArgs *args, ScVal *out)
{
    const char *dot = strchr(path, '.');
    if (!dot) {
        int op = ir_tile_op_lookup(path);
        if (op < 0)
            return false;
        *out = tile_call(E, IR_SCOPE_THREAD, (IrTileOp)op, args);
        return true;
    }
    if (strchr(dot + 1, '.'))
        return false;
    char scope_name[32];
    size_t sl = (size_t)(dot - path);
    if (sl >= sizeof scope_name)
        return false;
    memcpy(scope_name, path, sl);
    scope_name[sl] = 0;
    const char *opname = dot + 1;
    IrScope scope;
    bool known_scope = scope_of(scope_name, &scope);
    int op = ir_tile_op_lookup(opname);
    if (known_scope && op >= 0) {
        *out = tile_call(E, scope, (IrTileOp)op, args);
        return true;
    }
    if (known_scope) {
        el_error(E, TX_E_UNKNOWN_TILE_OP, callee_span(args), "unknown tile primitive '%s'%s",
                 opname,
                 suggest_op(E, opname));
        *out = sv_error();
        return true;
    }
    if (op >= 0 && strcmp(scope_name, "cuda") && strcmp(scope_name, "ptx")) {
        const char *names[TX_ARRAY_LEN(tile_scopes)];
        for (size_t i = 0; i < TX_ARRAY_LEN(tile_scopes); i++)
            names[i] = tile_scopes[i].name;
        TxSpan sp = callee_span(args);
        if (args->call && args->call->a && args->call->a->kind == A_ATTR)
            sp = args->call->a->a->span;
        el_error(E, TX_E_UNKNOWN_TILE_OP, sp, "unknown tile scope '%s'%s", scope_name,
                 el_suggest(E, scope_name, names, (int)TX_ARRAY_LEN(tile_scopes)));
        *out = sv_error();
        return true;
    }
    return false;
}

/* I.Op("tirx.tile.add") */
ScVal el_op_value(El *E, ScArgs *args)
{
    ScBound b;
    args->fname = "I.Op";
    if (!el_bind_args(E, args, "name", &b))
        return sv_error();
    const char *name = el_str_const(E, &b.v[0], "the op name");
    if (!name)
        return sv_error();
    if (strncmp(name, "tirx.tile.", 10)) {
        el_error(E, TX_E_TILE_OPERANDS, b.v[0].span,
                 "I.Op names a tile primitive: \"tirx.tile.<name>\"");
        return sv_error();
    }
    IrExpr *e = named_op(E, name + 10, b.v[0].span);
    return e ? sv_expr(e, args->span) : sv_error();
}
