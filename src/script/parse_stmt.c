/* The statement half of the TIRx script parser: recursive descent over
 * Python's statement grammar (the subset TIRx script uses), one function per
 * production with its grammar line above it, building syntax-tree nodes. */
#include <string.h>

#include "parse_internal.h"

static Ast *parse_stmt(Parser *p, AstVec *out);
static bool parse_suite(Parser *p, const ScToken *head, AstList *out);

static int line_of(Parser *p, const ScToken *t)
{
    int line, col;
    tx_source_linecol(p->src, t->off, &line, &col);
    return line;
}

/* Whether an expression may be assigned to. */
static bool is_target(const Ast *x)
{
    switch (x->kind) {
    case A_NAME: case A_ATTR: case A_SUBSCRIPT: return true;
    case A_STARRED: return is_target(x->a);
    case A_TUPLE: case A_LIST:
        for (int i = 0; i < x->items.n; i++)
            if (!is_target(x->items.items[i]))
                return false;
        return true;
    default: return false;
    }
}

static Ast *check_target(Parser *p, Ast *x)
{
    if (!x || is_target(x))
        return x;
    if (!p->failed) {
        p->failed = true;
        tx_error(p->d, TX_E_ASSIGNMENT, x->span, "cannot assign to this expression");
    }
    return NULL;
}

static bool end_simple(Parser *p)
{
    if (ps_accept(p, SC_TK_SEMI) && !ps_at(p, SC_TK_NEWLINE))
        return true; /* another simple statement follows on this line */
    return ps_expect(p, SC_TK_NEWLINE, "at the end of the statement");
}

static bool is_augassign(ScTokKind k)
{
    return k >= SC_TK_PLUSEQUAL && k != SC_TK_ELLIPSIS;
}

/* The binary operator of an augmented assignment token ('+=' -> '+'). */
static int augassign_op(ScTokKind k)
{
    static const struct { ScTokKind aug, op; } map[] = {
        {SC_TK_PLUSEQUAL, SC_TK_PLUS}, {SC_TK_MINEQUAL, SC_TK_MINUS},
        {SC_TK_STAREQUAL, SC_TK_STAR}, {SC_TK_SLASHEQUAL, SC_TK_SLASH},
        {SC_TK_PERCENTEQUAL, SC_TK_PERCENT}, {SC_TK_AMPEREQUAL, SC_TK_AMPER},
        {SC_TK_VBAREQUAL, SC_TK_VBAR}, {SC_TK_CIRCUMFLEXEQUAL, SC_TK_CIRCUMFLEX},
        {SC_TK_ATEQUAL, SC_TK_AT}, {SC_TK_LEFTSHIFTEQUAL, SC_TK_LEFTSHIFT},
        {SC_TK_RIGHTSHIFTEQUAL, SC_TK_RIGHTSHIFT}, {SC_TK_DOUBLESTAREQUAL, SC_TK_DOUBLESTAR},
        {SC_TK_DOUBLESLASHEQUAL, SC_TK_DOUBLESLASH},
    };
    for (size_t i = 0; i < TX_ARRAY_LEN(map); i++)
        if (map[i].aug == k)
            return map[i].op;
    return 0;
}

/* expr_stmt := star_testlist (':' test ['=' testlist]
 *                            | augassign testlist
 *                            | ('=' star_testlist)*) */
static Ast *parse_expr_stmt(Parser *p)
{
    const ScToken *first = ps_tok(p);
    Ast *lhs = ps_star_testlist(p);
    if (!lhs)
        return NULL;
    if (ps_at(p, SC_TK_COLON)) {
        Ast *x = ps_node(p, A_S_ANNASSIGN, first);
        ps_accept(p, SC_TK_COLON);
        if (lhs->kind != A_NAME && lhs->kind != A_ATTR && lhs->kind != A_SUBSCRIPT) {
            p->failed = true;
            tx_error(p->d, TX_E_SYNTAX, lhs->span, "only a single name can be annotated");
            return NULL;
        }
        x->a = lhs;
        if (!(x->b = ps_test(p)))
            return NULL;
        if (ps_accept(p, SC_TK_EQUAL) && !(x->c = ps_star_testlist(p)))
            return NULL;
        return ps_finish(p, x);
    }
    ScTokKind k = ps_tok(p)->kind;
    if (is_augassign(k)) {
        Ast *x = ps_node(p, A_S_AUGASSIGN, first);
        ps_accept(p, k);
        if (lhs->kind != A_NAME && lhs->kind != A_ATTR && lhs->kind != A_SUBSCRIPT) {
            p->failed = true;
            tx_error(p->d, TX_E_SYNTAX, lhs->span, "illegal target for augmented assignment");
            return NULL;
        }
        x->a = lhs, x->op = augassign_op(k);
        if (!(x->b = ps_testlist(p)))
            return NULL;
        return ps_finish(p, x);
    }
    if (!ps_at(p, SC_TK_EQUAL)) {
        Ast *x = ps_node(p, A_S_EXPR, first);
        x->a = lhs;
        return ps_finish(p, x);
    }
    Ast *x = ps_node(p, A_S_ASSIGN, first);
    AstVec targets = {0};
    Ast *value = lhs;
    while (ps_accept(p, SC_TK_EQUAL)) {
        if (!check_target(p, value))
            return NULL;
        ps_vec_push(p, &targets, value);
        if (!(value = ps_star_testlist(p)))
            return NULL;
    }
    x->items = ps_vec_list(p, &targets);
    x->a = value;
    return ps_finish(p, x);
}

/* dotted_name := NAME ('.' NAME)*   (the name as written, "tvm.tirx.layout") */
static const char *dotted_name(Parser *p)
{
    const ScToken *first = ps_tok(p);
    do {
        if (!ps_expect(p, SC_TK_NAME, "in the import"))
            return NULL;
    } while (ps_accept(p, SC_TK_DOT));
    const ScToken *last = &p->t[p->i - 1];
    return tx_arena_strndup(p->keep, p->src->text + first->off, last->off + last->len - first->off);
}

/* import_name := NAME ['as' NAME]: an A_NAME whose 'a' is the alias (or NULL) */
static Ast *import_name(Parser *p)
{
    const ScToken *t = ps_tok(p);
    if (!ps_expect(p, SC_TK_NAME, "in the import"))
        return NULL;
    Ast *x = ps_node_upto(p, A_NAME, t, AST_UPTO(a)); /* a: the alias */
    x->name = t->v.s;
    if (ps_accept(p, SC_TK_AS)) {
        const ScToken *alias = ps_tok(p);
        if (!ps_expect(p, SC_TK_NAME, "after 'as'"))
            return NULL;
        x->a = ps_node(p, A_NAME, alias);
        x->a->name = alias->v.s;
    }
    return ps_finish(p, x);
}

/* import_stmt := 'import' dotted_name ['as' NAME] (',' ...)*
 *              | 'from' '.'* dotted_name 'import' ('*' | '(' names ')' | names)
 * A 'from' import keeps the module (name, without the leading dots of a
 * relative import, which nnames counts; name_span covers the dots and the
 * name) and the imported names (items; none for '*', op = SC_TK_STAR): the
 * elaborator binds names of tvm.tirx.layout, of tvm.tirx.lang and of other
 * .tirx files (import.c). The prefixes T, Tx, I and Axis are built in. */
static Ast *parse_import(Parser *p)
{
    Ast *x = ps_node(p, A_S_IMPORT, ps_tok(p));
    if (ps_accept(p, SC_TK_FROM)) {
        const ScToken *start = ps_tok(p);
        while (ps_accept(p, SC_TK_DOT))
            x->nnames++;
        const char *module = dotted_name(p);
        if (!module)
            return NULL;
        const ScToken *last = &p->t[p->i - 1];
        x->name_span = (TxSpan){p->src, start->off, last->off + last->len};
        if (!ps_expect(p, SC_TK_IMPORT, "after 'from ...'"))
            return NULL;
        x->name = module;
        if (ps_accept(p, SC_TK_STAR)) {
            x->op = SC_TK_STAR;
            return ps_finish(p, x);
        }
        bool paren = ps_accept(p, SC_TK_LPAR);
        AstVec names = {0};
        do {
            if (paren && ps_at(p, SC_TK_RPAR))
                break;
            Ast *n = import_name(p);
            if (!n)
                return NULL;
            ps_vec_push(p, &names, n);
        } while (ps_accept(p, SC_TK_COMMA));
        if (paren && !ps_expect(p, SC_TK_RPAR, NULL))
            return NULL;
        x->items = ps_vec_list(p, &names);
        return ps_finish(p, x);
    }
    ps_accept(p, SC_TK_IMPORT);
    do {
        if (!dotted_name(p) ||
            (ps_accept(p, SC_TK_AS) && !ps_expect(p, SC_TK_NAME, "after 'as'")))
            return NULL;
    } while (ps_accept(p, SC_TK_COMMA));
    return ps_finish(p, x);
}

/* simple := 'pass' | 'break' | 'continue' | 'return' [testlist]
 *         | 'assert' test [',' test] | import_stmt | expr_stmt */
static Ast *parse_simple(Parser *p)
{
    const ScToken *t = ps_tok(p);
    Ast *x;
    switch (t->kind) {
    case SC_TK_PASS: x = ps_node(p, A_S_PASS, t); ps_accept(p, t->kind); return x;
    case SC_TK_BREAK: x = ps_node(p, A_S_BREAK, t); ps_accept(p, t->kind); return x;
    case SC_TK_CONTINUE: x = ps_node(p, A_S_CONTINUE, t); ps_accept(p, t->kind); return x;
    case SC_TK_RETURN:
        x = ps_node(p, A_S_RETURN, t);
        ps_accept(p, t->kind);
        if (!ps_at(p, SC_TK_NEWLINE) && !ps_at(p, SC_TK_SEMI) && !(x->a = ps_testlist(p)))
            return NULL;
        return ps_finish(p, x);
    case SC_TK_ASSERT:
        x = ps_node(p, A_S_ASSERT, t);
        ps_accept(p, t->kind);
        if (!(x->a = ps_test(p)))
            return NULL;
        if (ps_accept(p, SC_TK_COMMA) && !(x->b = ps_test(p)))
            return NULL;
        return ps_finish(p, x);
    case SC_TK_IMPORT: case SC_TK_FROM: return parse_import(p);
    case SC_TK_DEL: case SC_TK_GLOBAL: case SC_TK_NONLOCAL: case SC_TK_RAISE: case SC_TK_TRY:
    case SC_TK_EXCEPT: case SC_TK_FINALLY: case SC_TK_YIELD: case SC_TK_ASYNC: case SC_TK_AWAIT:
        return ps_error_at(p, TX_E_UNSUPPORTED_SYNTAX, t,
                           "'%s' statements are not supported in TIRx script",
                           sc_tok_kind_name(t->kind));
    case SC_TK_INDENT: return ps_error_at(p, TX_E_INDENTATION, t, "unexpected indent");
    case SC_TK_ELSE: case SC_TK_ELIF:
        return ps_error_at(p, TX_E_SYNTAX, t, "'%s' without a matching 'if'",
                           sc_tok_kind_name(t->kind));
    default: return parse_expr_stmt(p);
    }
}

/* simple_stmts := simple (';' simple)* [';'] NEWLINE */
static bool parse_simple_stmts(Parser *p, AstVec *out)
{
    do {
        Ast *x = parse_simple(p);
        if (!x)
            return false;
        ps_vec_push(p, out, x);
    } while (end_simple(p) && !ps_at(p, SC_TK_NEWLINE) && p->t[p->i - 1].kind == SC_TK_SEMI);
    return !p->failed;
}

/* suite := simple_stmts | NEWLINE INDENT stmt+ DEDENT */
static bool parse_suite(Parser *p, const ScToken *head, AstList *out)
{
    if (!ps_expect(p, SC_TK_COLON, NULL))
        return false;
    AstVec v = {0};
    if (!ps_at(p, SC_TK_NEWLINE)) {
        if (!parse_simple_stmts(p, &v))
            return false;
        *out = ps_vec_list(p, &v);
        return true;
    }
    ps_accept(p, SC_TK_NEWLINE);
    if (!ps_accept(p, SC_TK_INDENT)) {
        ps_error_at(p, TX_E_INDENTATION, ps_tok(p),
                    "expected an indented block after '%s' statement on line %d",
                    head->kind == SC_TK_NAME ? head->v.s : sc_tok_kind_name(head->kind),
                    line_of(p, head));
        return false;
    }
    if (!ps_enter(p))
        return false;
    while (!ps_at(p, SC_TK_DEDENT) && !ps_at(p, SC_TK_EOF) && !p->failed)
        parse_stmt(p, &v);
    ps_leave(p);
    if (p->failed || !ps_expect(p, SC_TK_DEDENT, NULL))
        return false;
    *out = ps_vec_list(p, &v);
    return true;
}

/* if_stmt := 'if' test suite ('elif' test suite)* ['else' suite] */
static Ast *parse_if(Parser *p)
{
    const ScToken *head = ps_tok(p);
    Ast *x = ps_node(p, A_S_IF, head);
    ps_accept(p, head->kind);
    if (!(x->a = ps_test(p)) || !parse_suite(p, head, &x->body))
        return NULL;
    ps_finish(p, x);
    if (ps_at(p, SC_TK_ELIF)) {
        Ast *elif = parse_if(p);
        if (!elif)
            return NULL;
        x->orelse.items = TX_NEW_ARRAY(p->a, Ast *, 1);
        x->orelse.items[0] = elif, x->orelse.n = 1;
    } else if (ps_at(p, SC_TK_ELSE)) {
        const ScToken *e = ps_tok(p);
        ps_accept(p, SC_TK_ELSE);
        if (!parse_suite(p, e, &x->orelse))
            return NULL;
    }
    return x;
}

/* while_stmt := 'while' test suite */
static Ast *parse_while(Parser *p)
{
    const ScToken *head = ps_tok(p);
    Ast *x = ps_node(p, A_S_WHILE, head);
    ps_accept(p, head->kind);
    if (!(x->a = ps_test(p)) || !parse_suite(p, head, &x->body))
        return NULL;
    if (ps_at(p, SC_TK_ELSE))
        return ps_error_at(p, TX_E_UNSUPPORTED_SYNTAX, ps_tok(p),
                           "'while ... else' is not supported in TIRx script");
    return x;
}

/* exprlist := (bitor | '*' bitor) (',' ...)* [','] : a loop target */
static Ast *parse_exprlist(Parser *p)
{
    const ScToken *first = ps_tok(p);
    AstVec v = {0};
    bool comma = false;
    do {
        if (ps_at(p, SC_TK_IN))
            break;
        Ast *x = ps_bitor(p);
        if (!x)
            return NULL;
        ps_vec_push(p, &v, x);
        comma = false;
        if (!ps_accept(p, SC_TK_COMMA))
            break;
        comma = true;
    } while (true);
    if (v.n == 0)
        return ps_error_at(p, TX_E_SYNTAX, ps_tok(p), "expected a loop variable");
    if (v.n == 1 && !comma)
        return v.items[0];
    Ast *t = ps_node(p, A_TUPLE, first);
    t->items = ps_vec_list(p, &v);
    return ps_finish(p, t);
}

/* for_stmt := 'for' exprlist 'in' testlist suite */
static Ast *parse_for(Parser *p)
{
    const ScToken *head = ps_tok(p);
    Ast *x = ps_node(p, A_S_FOR, head);
    ps_accept(p, head->kind);
    if (!check_target(p, x->a = parse_exprlist(p)) ||
        !ps_expect(p, SC_TK_IN, "after the loop variables") || !(x->b = ps_testlist(p)) ||
        !parse_suite(p, head, &x->body))
        return NULL;
    if (ps_at(p, SC_TK_ELSE))
        return ps_error_at(p, TX_E_UNSUPPORTED_SYNTAX, ps_tok(p),
                           "'for ... else' is not supported in TIRx script");
    return x;
}

/* with_stmt := 'with' test ['as' bitor] (',' test ['as' bitor])* suite */
static Ast *parse_with(Parser *p)
{
    const ScToken *head = ps_tok(p);
    Ast *x = ps_node(p, A_S_WITH, head);
    ps_accept(p, head->kind);
    AstVec items = {0}, targets = {0};
    do {
        Ast *it = ps_test(p), *tg = NULL;
        if (!it)
            return NULL;
        if (ps_accept(p, SC_TK_AS) && !check_target(p, tg = ps_bitor(p)))
            return NULL;
        ps_vec_push(p, &items, it);
        ps_vec_push(p, &targets, tg);
    } while (ps_accept(p, SC_TK_COMMA));
    x->items = ps_vec_list(p, &items), x->items2 = ps_vec_list(p, &targets);
    if (!parse_suite(p, head, &x->body))
        return NULL;
    return x;
}

/* param := NAME [':' test] ['=' test] */
static bool parse_params(Parser *p, Ast *def)
{
    int cap = 0;
    while (!ps_at(p, SC_TK_RPAR) && !p->failed) {
        const ScToken *t = ps_tok(p);
        if (t->kind == SC_TK_STAR || t->kind == SC_TK_DOUBLESTAR || t->kind == SC_TK_SLASH) {
            ps_error_at(p, TX_E_UNSUPPORTED_SYNTAX, t,
                        "'%s' parameters are not supported in TIRx script",
                        sc_tok_kind_name(t->kind));
            return false;
        }
        if (!ps_expect(p, SC_TK_NAME, "as a parameter name"))
            return false;
        if (def->nparams == cap) {
            cap = cap ? cap * 2 : 4;
            AstParam *np = TX_NEW_ARRAY(p->a, AstParam, cap);
            if (def->nparams)
                memcpy(np, def->params, sizeof(AstParam) * (size_t)def->nparams);
            def->params = np;
        }
        AstParam *pm = &def->params[def->nparams++];
        pm->name = t->v.s;
        pm->span = (TxSpan){p->src, t->off, t->off + t->len};
        for (int i = 0; i < def->nparams - 1; i++)
            if (!strcmp(def->params[i].name, pm->name)) {
                ps_error_at(p, TX_E_REDEFINITION, t, "duplicate parameter '%s'", pm->name);
                return false;
            }
        if (ps_accept(p, SC_TK_COLON) && !(pm->ann = ps_test(p)))
            return false;
        if (ps_accept(p, SC_TK_EQUAL) && !(pm->def = ps_test(p)))
            return false;
        if (!ps_accept(p, SC_TK_COMMA))
            break;
    }
    return ps_expect(p, SC_TK_RPAR, NULL);
}

/* type_params := '[' NAME [':' test] (',' NAME [':' test])* [','] ']'  (PEP 695) */
static bool parse_type_params(Parser *p, Ast *def)
{
    const ScToken *open = ps_tok(p);
    ps_accept(p, SC_TK_LSQB);
    AstVec names = {0};
    while (!ps_at(p, SC_TK_RSQB) && !p->failed) {
        const ScToken *t = ps_tok(p);
        if (!ps_expect(p, SC_TK_NAME, "as a type parameter"))
            return false;
        Ast *x = ps_node_upto(p, A_NAME, t, AST_UPTO(a)); /* a: the bound */
        x->name = t->v.s;
        if (ps_accept(p, SC_TK_COLON) && !(x->a = ps_test(p)))
            return false;
        ps_vec_push(p, &names, x);
        if (!ps_accept(p, SC_TK_COMMA))
            break;
    }
    if (!names.n && !p->failed) {
        ps_error_at(p, TX_E_SYNTAX, open, "empty type parameter list");
        return false;
    }
    def->items2 = ps_vec_list(p, &names);
    return ps_expect(p, SC_TK_RSQB, "to close the type parameters");
}

/* funcdef := 'def' NAME [type_params] '(' params ')' ['->' test] suite
 * (in_tree: the decorators are in the tree arena from mark on, and so go the
 * rest but the def node and its return annotation) */
static Ast *parse_def(Parser *p, AstList decorators, bool in_tree, TxArenaChunk *mark)
{
    const ScToken *head = ps_tok(p);
    TxArena *outer = p->a;
    p->a = p->keep;
    Ast *x = ps_node(p, A_S_DEF, head);
    x->in_tree = in_tree, x->tree_mark = mark;
    p->a = outer;
    ps_accept(p, head->kind);
    const ScToken *name = ps_tok(p);
    if (!ps_expect(p, SC_TK_NAME, "after 'def'"))
        return NULL;
    x->name = name->v.s;
    x->name_span = (TxSpan){p->src, name->off, name->off + name->len};
    x->items = decorators;
    if (ps_at(p, SC_TK_LSQB) && !parse_type_params(p, x))
        return NULL;
    if (!ps_expect(p, SC_TK_LPAR, "after the function name") || !parse_params(p, x))
        return NULL;
    if (ps_accept(p, SC_TK_RARROW)) {
        p->a = p->keep;
        x->a = ps_test(p);
        p->a = outer;
        if (!x->a)
            return NULL;
    }
    ps_finish(p, x);
    if (!parse_suite(p, head, &x->body))
        return NULL;
    return x;
}

/* classdef := 'class' NAME ['(' ')'] suite */
static Ast *parse_class(Parser *p, AstList decorators)
{
    const ScToken *head = ps_tok(p);
    Ast *x = ps_node(p, A_S_CLASS, head);
    ps_accept(p, head->kind);
    const ScToken *name = ps_tok(p);
    if (!ps_expect(p, SC_TK_NAME, "after 'class'"))
        return NULL;
    x->name = name->v.s;
    x->name_span = (TxSpan){p->src, name->off, name->off + name->len};
    x->items = decorators;
    if (ps_accept(p, SC_TK_LPAR) && !ps_expect(p, SC_TK_RPAR, "(base classes are not supported)"))
        return NULL;
    ps_finish(p, x);
    if (!parse_suite(p, head, &x->body))
        return NULL;
    return x;
}

/* Whether the tokens at the parser are `@T.prim_func` (or Tx.), at module level. */
static bool at_module_prim_func(Parser *p)
{
    const ScToken *t = ps_tok(p);
    return p->tree && p->a == p->keep && t[1].kind == SC_TK_NAME &&
           (!strcmp(t[1].v.s, "T") || !strcmp(t[1].v.s, "Tx")) &&
           t[2].kind == SC_TK_DOT && t[3].kind == SC_TK_NAME &&
           !strcmp(t[3].v.s, "prim_func");
}

static Ast *parse_decorated_in(Parser *p, bool in_tree, TxArenaChunk *mark)
{
    AstVec decos = {0};
    while (ps_accept(p, SC_TK_AT)) {
        Ast *d = ps_test(p);
        if (!d || !ps_expect(p, SC_TK_NEWLINE, "after the decorator"))
            return NULL;
        ps_vec_push(p, &decos, d);
    }
    if (ps_at(p, SC_TK_DEF))
        return parse_def(p, ps_vec_list(p, &decos), in_tree, mark);
    if (ps_at(p, SC_TK_CLASS)) {
        AstList list = ps_vec_list(p, &decos);
        p->a = p->keep; /* the class body is read at the end; its methods are sorted apart */
        return parse_class(p, list);
    }
    return ps_error_at(p, TX_E_SYNTAX, ps_tok(p), "expected 'def' or 'class' after a decorator");
}

/* decorated := ('@' test NEWLINE)+ (funcdef | classdef)
 * A module-level function decorated @T.prim_func is parsed into the tree arena. */
static Ast *parse_decorated(Parser *p)
{
    bool in_tree = at_module_prim_func(p);
    TxArena *outer = p->a;
    TxArenaChunk *mark = in_tree ? tx_arena_mark(p->tree) : NULL;
    if (in_tree)
        p->a = p->tree;
    Ast *x = parse_decorated_in(p, in_tree, mark);
    p->a = outer;
    return x;
}

/* stmt := if_stmt | while_stmt | for_stmt | with_stmt | funcdef | classdef
 *       | decorated | simple_stmts */
static Ast *parse_stmt(Parser *p, AstVec *out)
{
    Ast *x;
    switch (ps_tok(p)->kind) {
    case SC_TK_IF: x = parse_if(p); break;
    case SC_TK_WHILE: x = parse_while(p); break;
    case SC_TK_FOR: x = parse_for(p); break;
    case SC_TK_WITH: x = parse_with(p); break;
    case SC_TK_DEF: x = parse_def(p, (AstList){0}, false, NULL); break;
    case SC_TK_CLASS: x = parse_class(p, (AstList){0}); break;
    case SC_TK_AT: x = parse_decorated(p); break;
    default:
        parse_simple_stmts(p, out);
        return NULL;
    }
    if (x)
        ps_vec_push(p, out, x);
    return x;
}

bool sc_parse_tokens(const TxSource *src, const ScTokens *toks, bool expr_only, TxArena *a,
                     TxArena *tree, TxDiags *d, AstList *out)
{
    Parser p = {src, toks->t, toks->n, 0, a, a, tree, d, false, 0};
    AstVec v = {0};
    if (expr_only) {
        Ast *x = ps_test(&p);
        if (x && !ps_at(&p, SC_TK_EOF))
            ps_error_at(&p, TX_E_SYNTAX, ps_tok(&p), "unexpected tokens after the expression");
        if (x)
            ps_vec_push(&p, &v, x);
    } else {
        while (!p.failed && !ps_at(&p, SC_TK_EOF)) {
            if (ps_accept(&p, SC_TK_NEWLINE))
                continue;
            parse_stmt(&p, &v);
        }
    }
    *out = ps_vec_list(&p, &v);
    return !p.failed;
}
