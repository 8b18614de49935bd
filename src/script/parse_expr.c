/* The expression half of the TIRx script parser: Python's expression grammar
 * by precedence climbing over a priority table (Lua's subexpr), building
 * syntax-tree nodes in the arena. Also the small helpers both halves share. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "parse_internal.h"

/* ---------------------------------------------------------------- helpers */

void ps_vec_push(Parser *p, AstVec *v, Ast *x)
{
    if (!v->cap) {
        v->items = &v->one, v->cap = 1;
    } else if (v->n == v->cap) {
        int cap = v->cap == 1 ? 4 : v->cap * 2;
        Ast **items = TX_NEW_ARRAY(p->a, Ast *, cap);
        memcpy(items, v->items, sizeof(Ast *) * (size_t)v->n);
        v->items = items, v->cap = cap;
    }
    v->items[v->n++] = x;
}

AstList ps_vec_list(Parser *p, AstVec *v)
{
    if (v->items == &v->one) {
        v->items = TX_NEW_ARRAY(p->a, Ast *, 1);
        v->items[0] = v->one, v->cap = 1;
    }
    return (AstList){v->items, v->n};
}

const ScToken *ps_tok(Parser *p) { return &p->t[p->i]; }

const ScToken *ps_peek(Parser *p, int ahead)
{
    int j = p->i + ahead;
    return &p->t[j < p->n ? j : p->n - 1];
}

bool ps_at(Parser *p, ScTokKind k) { return !p->failed && p->t[p->i].kind == k; }

bool ps_accept(Parser *p, ScTokKind k)
{
    if (!ps_at(p, k))
        return false;
    if (p->i < p->n - 1)
        p->i++;
    return true;
}

static const char *describe(const ScToken *t, char *buf, size_t n)
{
    switch (t->kind) {
    case SC_TK_NAME: snprintf(buf, n, "name '%s'", t->v.s); break;
    case SC_TK_INT: case SC_TK_FLOAT: snprintf(buf, n, "number"); break;
    case SC_TK_STRING: snprintf(buf, n, "string"); break;
    case SC_TK_NEWLINE: snprintf(buf, n, "end of line"); break;
    case SC_TK_INDENT: snprintf(buf, n, "indent"); break;
    case SC_TK_DEDENT: snprintf(buf, n, "dedent"); break;
    case SC_TK_EOF: snprintf(buf, n, "end of input"); break;
    default: snprintf(buf, n, "'%s'", sc_tok_kind_name(t->kind)); break;
    }
    return buf;
}

Ast *ps_error_at(Parser *p, TxCode code, const ScToken *t, const char *fmt, ...)
{
    if (p->failed)
        return NULL;
    p->failed = true;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    uint32_t end = t->off + (t->len ? t->len : 0);
    tx_error(p->d, code, (TxSpan){p->src, t->off, end}, "%s", msg);
    return NULL;
}

bool ps_expect(Parser *p, ScTokKind k, const char *what)
{
    if (ps_accept(p, k))
        return true;
    if (p->failed)
        return false;
    char buf[64];
    if (what)
        ps_error_at(p, TX_E_SYNTAX, ps_tok(p), "expected '%s' %s, found %s", sc_tok_kind_name(k),
                    what,
                    describe(ps_tok(p), buf, sizeof buf));
    else
        ps_error_at(p, TX_E_SYNTAX, ps_tok(p), "expected '%s', found %s", sc_tok_kind_name(k),
                    describe(ps_tok(p), buf, sizeof buf));
    return false;
}

/* The bytes of a node of kind k: up to the end of the last field it uses. */
static size_t node_size(AstKind k)
{
    switch (k) {
    case A_NAME: case A_NONE: case A_ELLIPSIS:
        return AST_UPTO(name);
    case A_UNARY: case A_NOT: case A_STARRED: case A_BINOP: case A_BOOLOP: case A_SUBSCRIPT:
    case A_S_EXPR: case A_S_AUGASSIGN:
        return AST_UPTO(b);
    case A_INT: case A_FLOAT: case A_STR: case A_BOOL:
        return AST_UPTO(lit);
    case A_ATTR:
        return AST_UPTO(name_span);
    case A_SLICE: case A_IFEXP: case A_S_ANNASSIGN:
        return AST_UPTO(c);
    case A_TUPLE: case A_LIST: case A_S_ASSIGN:
        return AST_UPTO(items);
    case A_DICT:
        return AST_UPTO(items2);
    case A_CALL: case A_LAMBDA:
        return AST_UPTO(nnames);
    case A_COMPARE:
        return AST_UPTO(ops);
    default:
        return sizeof(Ast);
    }
}

Ast *ps_node(Parser *p, AstKind k, const ScToken *first)
{
    return ps_node_upto(p, k, first, node_size(k));
}

Ast *ps_node_upto(Parser *p, AstKind k, const ScToken *first, size_t bytes)
{
    Ast *x = tx_arena_alloc(p->a, bytes);
    x->kind = k;
    x->span = (TxSpan){p->src, first->off, first->off + first->len};
    return x;
}

Ast *ps_finish(Parser *p, Ast *x)
{
    if (x && p->i > 0) {
        const ScToken *prev = &p->t[p->i - 1];
        if (prev->off + prev->len > x->span.end)
            x->span.end = prev->off + prev->len;
    }
    return x;
}

bool ps_enter(Parser *p)
{
    if (++p->depth > SC_MAX_DEPTH) {
        ps_error_at(p, TX_E_NESTING, ps_tok(p),
                    "expression or block nested too deeply (the limit is %d)",
                    SC_MAX_DEPTH);
        return false;
    }
    return true;
}

void ps_leave(Parser *p) { p->depth--; }

static Ast *expected_expr(Parser *p)
{
    char buf[64];
    return ps_error_at(p, TX_E_SYNTAX, ps_tok(p), "expected an expression, found %s",
                       describe(ps_tok(p), buf, sizeof buf));
}

/* ---------------------------------------------------------------- atoms */

static Ast *parse_strings(Parser *p)
{
    const ScToken *t = ps_tok(p);
    Ast *x = ps_node(p, A_STR, t);
    x->lit.str.s = t->v.s, x->lit.str.n = t->n, x->lit.str.verbatim = t->verbatim;
    ps_accept(p, SC_TK_STRING);
    /* Adjacent literals concatenate. */
    while (ps_at(p, SC_TK_STRING)) {
        const ScToken *u = ps_tok(p);
        char *s = tx_arena_alloc(p->keep, x->lit.str.n + u->n + 1);
        memcpy(s, x->lit.str.s, x->lit.str.n);
        memcpy(s + x->lit.str.n, u->v.s, u->n);
        x->lit.str.s = s, x->lit.str.n += u->n, x->lit.str.verbatim = false;
        ps_accept(p, SC_TK_STRING);
    }
    return ps_finish(p, x);
}

/* The items of a bracketed display up to 'close'; sets *trailing_comma. */
static bool parse_items(Parser *p, ScTokKind close, AstVec *v, bool *comma)
{
    *comma = false;
    while (!ps_at(p, close) && !p->failed) {
        Ast *x;
        if (ps_at(p, SC_TK_STAR)) {
            const ScToken *st = ps_tok(p);
            ps_accept(p, SC_TK_STAR);
            x = ps_node(p, A_STARRED, st);
            x->a = ps_bitor(p);
            ps_finish(p, x);
        } else {
            x = ps_test(p);
        }
        if (!x)
            return false;
        ps_vec_push(p, v, x);
        *comma = false;
        if (!ps_accept(p, SC_TK_COMMA))
            break;
        *comma = true;
    }
    return !p->failed;
}

/* paren := '(' [items] ')' : a tuple unless one item without a trailing comma */
static Ast *parse_paren(Parser *p)
{
    const ScToken *open = ps_tok(p);
    ps_accept(p, SC_TK_LPAR);
    AstVec v = {0};
    bool comma;
    if (!parse_items(p, SC_TK_RPAR, &v, &comma) || !ps_expect(p, SC_TK_RPAR, NULL))
        return NULL;
    if (v.n == 1 && !comma && v.items[0]->kind != A_STARRED) {
        Ast *inner = v.items[0];
        inner->span.begin = open->off;
        return ps_finish(p, inner);
    }
    Ast *x = ps_node(p, A_TUPLE, open);
    x->items = ps_vec_list(p, &v);
    return ps_finish(p, x);
}

/* list := '[' [items] ']' */
static Ast *parse_list(Parser *p)
{
    const ScToken *open = ps_tok(p);
    ps_accept(p, SC_TK_LSQB);
    AstVec v = {0};
    bool comma;
    if (!parse_items(p, SC_TK_RSQB, &v, &comma))
        return NULL;
    if (ps_at(p, SC_TK_FOR))
        return ps_error_at(p, TX_E_UNSUPPORTED_SYNTAX, ps_tok(p),
                           "list comprehensions are not supported in TIRx script");
    if (!ps_expect(p, SC_TK_RSQB, NULL))
        return NULL;
    Ast *x = ps_node(p, A_LIST, open);
    x->items = ps_vec_list(p, &v);
    return ps_finish(p, x);
}

/* dict := '{' [test ':' test (',' test ':' test)* [',']] '}' */
static Ast *parse_dict(Parser *p)
{
    const ScToken *open = ps_tok(p);
    ps_accept(p, SC_TK_LBRACE);
    AstVec keys = {0}, vals = {0};
    while (!ps_at(p, SC_TK_RBRACE) && !p->failed) {
        Ast *k = ps_test(p);
        if (!k || !ps_expect(p, SC_TK_COLON, "after a dictionary key"))
            return NULL;
        Ast *v = ps_test(p);
        if (!v)
            return NULL;
        ps_vec_push(p, &keys, k);
        ps_vec_push(p, &vals, v);
        if (!ps_accept(p, SC_TK_COMMA))
            break;
    }
    if (!ps_expect(p, SC_TK_RBRACE, NULL))
        return NULL;
    Ast *x = ps_node(p, A_DICT, open);
    x->items = ps_vec_list(p, &keys), x->items2 = ps_vec_list(p, &vals);
    return ps_finish(p, x);
}

/* atom := NAME | INT | FLOAT | STRING+ | None | True | False | '...' | paren | list | dict */
static Ast *parse_atom(Parser *p)
{
    const ScToken *t = ps_tok(p);
    Ast *x;
    switch (t->kind) {
    case SC_TK_NAME:
        x = ps_node(p, A_NAME, t);
        x->name = t->v.s;
        break;
    case SC_TK_INT:
        x = ps_node(p, A_INT, t);
        x->lit.i = t->v.i;
        break;
    case SC_TK_FLOAT:
        x = ps_node(p, A_FLOAT, t);
        x->lit.f = t->v.f;
        break;
    case SC_TK_STRING: return parse_strings(p);
    case SC_TK_TRUE: case SC_TK_FALSE:
        x = ps_node(p, A_BOOL, t);
        x->lit.b = t->kind == SC_TK_TRUE;
        break;
    case SC_TK_NONE: x = ps_node(p, A_NONE, t); break;
    case SC_TK_ELLIPSIS: x = ps_node(p, A_ELLIPSIS, t); break;
    case SC_TK_LPAR: return parse_paren(p);
    case SC_TK_LSQB: return parse_list(p);
    case SC_TK_LBRACE: return parse_dict(p);
    default: return expected_expr(p);
    }
    ps_accept(p, t->kind);
    return x;
}

/* ---------------------------------------------------------------- trailers */

/* arglist := argument (',' argument)* [','];
 * argument := test | NAME '=' test | '*' test | '**' test
 * A '**' argument is a keyword entry named "**" (the elaborator expands the dict). */
static Ast *parse_call(Parser *p, Ast *fn)
{
    Ast *x = ps_node(p, A_CALL, ps_tok(p));
    x->span.begin = fn->span.begin;
    x->a = fn;
    ps_accept(p, SC_TK_LPAR);
    AstVec pos = {0}, kwv = {0};
    int nkw = 0, capkw = 0;
    while (!ps_at(p, SC_TK_RPAR) && !p->failed) {
        const ScToken *t = ps_tok(p);
        bool starstar = t->kind == SC_TK_DOUBLESTAR;
        if (starstar || (t->kind == SC_TK_NAME && ps_peek(p, 1)->kind == SC_TK_EQUAL)) {
            if (nkw == capkw) {
                capkw = capkw ? capkw * 2 : 4;
                const char **names = TX_NEW_ARRAY(p->a, const char *, capkw);
                TxSpan *spans = TX_NEW_ARRAY(p->a, TxSpan, capkw);
                if (nkw) {
                    memcpy(names, x->names, sizeof(*names) * (size_t)nkw);
                    memcpy(spans, x->name_spans, sizeof(*spans) * (size_t)nkw);
                }
                x->names = names, x->name_spans = spans;
            }
            const char *name = starstar ? "**" : t->v.s;
            for (int k = 0; k < nkw && !starstar; k++)
                if (!strcmp(x->names[k], name))
                    return ps_error_at(p, TX_E_ARGUMENTS, t, "keyword argument repeated: %s", name);
            x->names[nkw] = name;
            x->name_spans[nkw++] = (TxSpan){p->src, t->off, t->off + t->len};
            p->i += starstar ? 1 : 2;
            Ast *v = ps_test(p);
            if (!v)
                return NULL;
            ps_vec_push(p, &kwv, v);
        } else {
            Ast *v;
            if (t->kind == SC_TK_STAR) {
                ps_accept(p, SC_TK_STAR);
                v = ps_node(p, A_STARRED, t);
                v->a = ps_test(p);
                ps_finish(p, v);
                if (!v->a)
                    return NULL;
            } else {
                v = ps_test(p);
            }
            if (!v)
                return NULL;
            if (nkw)
                return ps_error_at(p, TX_E_ARGUMENTS, t,
                                   "positional argument follows keyword argument");
            ps_vec_push(p, &pos, v);
        }
        if (!ps_accept(p, SC_TK_COMMA))
            break;
    }
    if (!ps_expect(p, SC_TK_RPAR, NULL))
        return NULL;
    x->items = ps_vec_list(p, &pos), x->items2 = ps_vec_list(p, &kwv), x->nnames = nkw;
    return ps_finish(p, x);
}

/* subscript := test | [test] ':' [test] [':' [test]] */
static Ast *parse_subscript_item(Parser *p)
{
    const ScToken *t = ps_tok(p);
    Ast *lo = NULL;
    if (!ps_at(p, SC_TK_COLON)) {
        if (ps_at(p, SC_TK_STAR)) {
            ps_accept(p, SC_TK_STAR);
            Ast *s = ps_node(p, A_STARRED, t);
            s->a = ps_bitor(p);
            return s->a ? ps_finish(p, s) : NULL;
        }
        lo = ps_test(p);
        if (!lo || !ps_at(p, SC_TK_COLON))
            return lo;
    }
    Ast *x = ps_node(p, A_SLICE, t);
    x->a = lo;
    ps_accept(p, SC_TK_COLON);
    if (!ps_at(p, SC_TK_COLON) && !ps_at(p, SC_TK_COMMA) && !ps_at(p, SC_TK_RSQB))
        if (!(x->b = ps_test(p)))
            return NULL;
    if (ps_accept(p, SC_TK_COLON) && !ps_at(p, SC_TK_COMMA) && !ps_at(p, SC_TK_RSQB))
        if (!(x->c = ps_test(p)))
            return NULL;
    return ps_finish(p, x);
}

/* index := '[' subscript (',' subscript)* [','] ']' ; a tuple when several */
static Ast *parse_index(Parser *p, Ast *obj)
{
    Ast *x = ps_node(p, A_SUBSCRIPT, ps_tok(p));
    x->span.begin = obj->span.begin;
    x->a = obj;
    const ScToken *open = ps_tok(p);
    ps_accept(p, SC_TK_LSQB);
    AstVec v = {0};
    bool comma = false;
    while (!ps_at(p, SC_TK_RSQB) && !p->failed) {
        Ast *it = parse_subscript_item(p);
        if (!it)
            return NULL;
        ps_vec_push(p, &v, it);
        comma = false;
        if (!ps_accept(p, SC_TK_COMMA))
            break;
        comma = true;
    }
    if (!ps_expect(p, SC_TK_RSQB, NULL))
        return NULL;
    if (v.n == 0)
        return ps_error_at(p, TX_E_SYNTAX, open, "expected an index between '[' and ']'");
    if (v.n == 1 && !comma) {
        x->b = v.items[0];
    } else {
        Ast *tup = ps_node(p, A_TUPLE, open);
        tup->items = ps_vec_list(p, &v);
        x->b = ps_finish(p, tup);
    }
    return ps_finish(p, x);
}

/* primary := atom (call | index | '.' NAME)* */
static Ast *parse_primary(Parser *p)
{
    Ast *x = parse_atom(p);
    while (x && !p->failed) {
        if (ps_at(p, SC_TK_LPAR)) {
            x = parse_call(p, x);
        } else if (ps_at(p, SC_TK_LSQB)) {
            x = parse_index(p, x);
        } else if (ps_at(p, SC_TK_DOT)) {
            ps_accept(p, SC_TK_DOT);
            const ScToken *t = ps_tok(p);
            if (t->kind != SC_TK_NAME && !(t->kind >= SC_TK_AND && t->kind <= SC_TK_YIELD))
                return ps_error_at(p, TX_E_SYNTAX, t, "expected an attribute name after '.'");
            Ast *at = ps_node(p, A_ATTR, t);
            at->span.begin = x->span.begin;
            at->a = x;
            at->name = t->kind == SC_TK_NAME ? t->v.s : sc_tok_kind_name(t->kind);
            at->name_span = (TxSpan){p->src, t->off, t->off + t->len};
            if (t->kind != SC_TK_NAME)
                return ps_error_at(p, TX_E_SYNTAX, t, "'%s' is a Python keyword; write '%s_'",
                                   at->name,
                                   at->name);
            ps_accept(p, t->kind);
            x = ps_finish(p, at);
        } else {
            break;
        }
    }
    return x;
}

/* ---------------------------------------------------------------- operators */

static Ast *parse_factor(Parser *p);

/* power := primary ['**' factor] */
static Ast *parse_power(Parser *p)
{
    Ast *x = parse_primary(p);
    if (x && ps_at(p, SC_TK_DOUBLESTAR)) {
        Ast *b = ps_node(p, A_BINOP, ps_tok(p));
        b->op = SC_TK_DOUBLESTAR;
        ps_accept(p, SC_TK_DOUBLESTAR);
        b->span.begin = x->span.begin;
        b->a = x;
        if (!(b->b = parse_factor(p)))
            return NULL;
        x = ps_finish(p, b);
    }
    return x;
}

/* factor := ('+' | '-' | '~') factor | power */
static Ast *parse_factor(Parser *p)
{
    const ScToken *t = ps_tok(p);
    if (t->kind != SC_TK_PLUS && t->kind != SC_TK_MINUS && t->kind != SC_TK_TILDE)
        return parse_power(p);
    if (!ps_enter(p))
        return NULL;
    ps_accept(p, t->kind);
    Ast *x = ps_node(p, A_UNARY, t);
    x->op = t->kind;
    x->a = parse_factor(p);
    ps_leave(p);
    return x->a ? ps_finish(p, x) : NULL;
}

/* Binary operator priorities (Python): | 1, ^ 2, & 3, << >> 4, + - 5, * / // % @ 6. */
static int binop_priority(ScTokKind k)
{
    switch (k) {
    case SC_TK_VBAR: return 1;
    case SC_TK_CIRCUMFLEX: return 2;
    case SC_TK_AMPER: return 3;
    case SC_TK_LEFTSHIFT: case SC_TK_RIGHTSHIFT: return 4;
    case SC_TK_PLUS: case SC_TK_MINUS: return 5;
    case SC_TK_STAR: case SC_TK_SLASH: case SC_TK_DOUBLESLASH: case SC_TK_PERCENT: case SC_TK_AT:
        return 6;
    default: return 0;
    }
}

/* binary := factor (binop factor)*, left-associative by priority */
static Ast *parse_binary(Parser *p, int min_prio)
{
    if (!ps_enter(p))
        return NULL;
    Ast *x = parse_factor(p);
    while (x && !p->failed) {
        ScTokKind k = ps_tok(p)->kind;
        int prio = binop_priority(k);
        if (prio == 0 || prio < min_prio)
            break;
        Ast *b = ps_node(p, A_BINOP, ps_tok(p));
        ps_accept(p, k);
        b->op = k;
        b->span.begin = x->span.begin;
        b->a = x;
        b->b = parse_binary(p, prio + 1);
        x = b->b ? ps_finish(p, b) : NULL;
    }
    ps_leave(p);
    return x;
}

Ast *ps_bitor(Parser *p) { return parse_binary(p, 1); }

/* The comparison operator at the current token (consuming it), or 0. */
static int accept_compare_op(Parser *p)
{
    ScTokKind k = ps_tok(p)->kind;
    switch (k) {
    case SC_TK_LESS: case SC_TK_GREATER: case SC_TK_EQEQUAL: case SC_TK_NOTEQUAL:
    case SC_TK_LESSEQUAL: case SC_TK_GREATEREQUAL: case SC_TK_IN:
        ps_accept(p, k);
        return (int)k;
    case SC_TK_NOT:
        if (ps_peek(p, 1)->kind != SC_TK_IN)
            return 0;
        p->i += 2;
        return SC_TK_NOT; /* 'not in' */
    case SC_TK_IS:
        ps_accept(p, k);
        return ps_accept(p, SC_TK_NOT) ? SC_TK_IS + 1 : SC_TK_IS; /* IS+1 = 'is not' */
    default: return 0;
    }
}

/* comparison := bitor (compop bitor)* */
static Ast *parse_comparison(Parser *p)
{
    Ast *first = ps_bitor(p);
    if (!first || p->failed)
        return NULL;
    int op = accept_compare_op(p);
    if (!op)
        return first;
    Ast *x = ps_node(p, A_COMPARE, ps_tok(p));
    x->span = first->span;
    AstVec operands = {0};
    ps_vec_push(p, &operands, first);
    int cap = 4, n = 0;
    x->ops = TX_NEW_ARRAY(p->a, int, cap);
    while (op) {
        if (n == cap) {
            int *ops = TX_NEW_ARRAY(p->a, int, cap * 2);
            memcpy(ops, x->ops, sizeof(int) * (size_t)n);
            x->ops = ops, cap *= 2;
        }
        x->ops[n++] = op;
        Ast *rhs = ps_bitor(p);
        if (!rhs)
            return NULL;
        ps_vec_push(p, &operands, rhs);
        op = accept_compare_op(p);
    }
    x->items = ps_vec_list(p, &operands);
    return ps_finish(p, x);
}

/* not_test := 'not' not_test | comparison */
static Ast *parse_not(Parser *p)
{
    if (!ps_at(p, SC_TK_NOT))
        return parse_comparison(p);
    if (!ps_enter(p))
        return NULL;
    Ast *x = ps_node(p, A_NOT, ps_tok(p));
    ps_accept(p, SC_TK_NOT);
    x->a = parse_not(p);
    ps_leave(p);
    return x->a ? ps_finish(p, x) : NULL;
}

/* and_test := not_test ('and' not_test)* ; or_test := and_test ('or' and_test)* */
static Ast *parse_boolop(Parser *p, ScTokKind op)
{
    Ast *x = op == SC_TK_OR ? parse_boolop(p, SC_TK_AND) : parse_not(p);
    while (x && ps_at(p, op)) {
        Ast *b = ps_node(p, A_BOOLOP, ps_tok(p));
        ps_accept(p, op);
        b->op = op;
        b->span.begin = x->span.begin;
        b->a = x;
        b->b = op == SC_TK_OR ? parse_boolop(p, SC_TK_AND) : parse_not(p);
        x = b->b ? ps_finish(p, b) : NULL;
    }
    return x;
}

/* lambda := 'lambda' [NAME (',' NAME)*] ':' test */
static Ast *parse_lambda(Parser *p)
{
    Ast *x = ps_node(p, A_LAMBDA, ps_tok(p));
    ps_accept(p, SC_TK_LAMBDA);
    int cap = 0;
    while (ps_at(p, SC_TK_NAME)) {
        const ScToken *t = ps_tok(p);
        if (x->nnames == cap) {
            cap = cap ? cap * 2 : 4;
            const char **names = TX_NEW_ARRAY(p->a, const char *, cap);
            TxSpan *spans = TX_NEW_ARRAY(p->a, TxSpan, cap);
            if (x->nnames) {
                memcpy(names, x->names, sizeof(*names) * (size_t)x->nnames);
                memcpy(spans, x->name_spans, sizeof(*spans) * (size_t)x->nnames);
            }
            x->names = names, x->name_spans = spans;
        }
        x->names[x->nnames] = t->v.s;
        x->name_spans[x->nnames++] = (TxSpan){p->src, t->off, t->off + t->len};
        ps_accept(p, SC_TK_NAME);
        if (!ps_accept(p, SC_TK_COMMA))
            break;
    }
    if (!ps_expect(p, SC_TK_COLON, "after the lambda parameters"))
        return NULL;
    x->a = ps_test(p);
    return x->a ? ps_finish(p, x) : NULL;
}

Ast *ps_test(Parser *p)
{
    if (p->failed)
        return NULL;
    if (ps_at(p, SC_TK_LAMBDA))
        return parse_lambda(p);
    if (!ps_enter(p))
        return NULL;
    Ast *x = parse_boolop(p, SC_TK_OR);
    if (x && ps_at(p, SC_TK_IF)) {
        Ast *c = ps_node(p, A_IFEXP, ps_tok(p));
        ps_accept(p, SC_TK_IF);
        c->span.begin = x->span.begin;
        c->a = x;
        c->c = parse_boolop(p, SC_TK_OR);
        if (c->c && ps_expect(p, SC_TK_ELSE, "in a conditional expression"))
            c->b = ps_test(p);
        x = c->b ? ps_finish(p, c) : NULL;
    }
    ps_leave(p);
    return x;
}

static Ast *testlist(Parser *p, bool allow_star)
{
    const ScToken *first = ps_tok(p);
    AstVec v = {0};
    bool comma = false;
    for (;;) {
        Ast *x;
        if (allow_star && ps_at(p, SC_TK_STAR)) {
            const ScToken *st = ps_tok(p);
            ps_accept(p, SC_TK_STAR);
            x = ps_node(p, A_STARRED, st);
            x->a = ps_bitor(p);
            x = x->a ? ps_finish(p, x) : NULL;
        } else {
            x = ps_test(p);
        }
        if (!x)
            return NULL;
        ps_vec_push(p, &v, x);
        comma = ps_accept(p, SC_TK_COMMA);
        if (!comma)
            break;
        ScTokKind k = ps_tok(p)->kind;
        if (k == SC_TK_NEWLINE || k == SC_TK_EQUAL || k == SC_TK_RPAR || k == SC_TK_COLON ||
            k == SC_TK_SEMI || k == SC_TK_EOF || (k >= SC_TK_PLUSEQUAL && k != SC_TK_ELLIPSIS))
            break;
    }
    if (v.n == 1 && !comma)
        return v.items[0];
    Ast *t = ps_node(p, A_TUPLE, first);
    t->items = ps_vec_list(p, &v);
    return ps_finish(p, t);
}

Ast *ps_testlist(Parser *p) { return testlist(p, false); }
Ast *ps_star_testlist(Parser *p) { return testlist(p, true); }
