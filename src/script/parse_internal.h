/* Private to the front end: the syntax tree of TIRx script (a small Python
 * subset) and the recursive-descent parser that builds it from the token
 * array. The elaborator (elab*.c) turns the tree into IR; keeping the tree
 * lets constant `if` branches be parsed but not elaborated and lets a
 * `@T.macro` body be elaborated afresh at each call site. */
#ifndef TX_SCRIPT_PARSE_INTERNAL_H
#define TX_SCRIPT_PARSE_INTERNAL_H

#include <stddef.h>

#include "lex.h"

typedef enum {
    /* expressions */
    A_NAME,     /* name */
    A_INT,      /* lit.i */
    A_FLOAT,    /* lit.f */
    A_STR,      /* lit.str */
    A_BOOL,     /* lit.b */
    A_NONE,
    A_ELLIPSIS,
    A_ATTR,     /* a . name */
    A_CALL,     /* a ( items..., names[i]=items2[i]... ) */
    A_SUBSCRIPT,/* a [ b ] */
    A_SLICE,    /* a : b : c (each may be NULL) */
    A_TUPLE,    /* items */
    A_LIST,     /* items */
    A_DICT,     /* items = keys, items2 = values */
    A_BINOP,    /* a op b (op: a token kind) */
    A_UNARY,    /* op a (MINUS, PLUS, TILDE) */
    A_NOT,      /* not a */
    A_BOOLOP,   /* a op b (AND, OR) */
    A_COMPARE,  /* items[0] ops[0] items[1] ops[1] ... (ops: token kinds; NOT = 'not in', IS+1 = 'is not') */
    A_IFEXP,    /* a if c else b */
    A_LAMBDA,   /* lambda names...: a */
    A_STARRED,  /* *a */
    /* statements */
    A_S_EXPR,   /* a */
    A_S_ASSIGN, /* items (targets, left to right) = a */
    A_S_AUGASSIGN, /* a op= b (op: the binary operator's token kind) */
    A_S_ANNASSIGN, /* a : b [= c] */
    A_S_FOR,    /* for a in b: body */
    A_S_WHILE,  /* while a: body */
    A_S_IF,     /* if a: body else: orelse (elif: one nested A_S_IF in orelse) */
    A_S_WITH,   /* with items[i] [as items2[i]], ...: body */
    A_S_ASSERT, /* assert a [, b] */
    A_S_RETURN, /* return [a] */
    A_S_BREAK,
    A_S_CONTINUE,
    A_S_PASS,
    A_S_DEF,    /* items = decorators; def name[items2](params) [-> a]: body;
                   items2: PEP 695 type parameters, NAMEs with the bound in a */
    A_S_CLASS,  /* items = decorators; class name: body */
    A_S_IMPORT, /* from name import items (A_NAMEs, the alias in a) | * (op STAR);
                   nnames: the leading dots of `from .name`; name_span: the module;
                   'import ...' keeps nothing (name NULL) */
} AstKind;

typedef struct Ast Ast;
typedef struct AstList {
    Ast **items;
    int n;
} AstList;

typedef struct AstParam {
    const char *name;
    TxSpan span;
    Ast *ann, *def; /* may be NULL */
} AstParam;

/* The fields are ordered so that each kind uses a prefix: a node is allocated
 * only up to the last field its kind uses (ps_node, node_size), which keeps the
 * tree of a large input small. Fields past a kind's prefix must not be touched. */
struct Ast {
    AstKind kind;
    int op;
    TxSpan span;
    const char *name;
    Ast *a, *b;
    union {
        uint64_t i;
        double f;
        bool b;
        struct {
            const char *s;
            uint32_t n;
            bool verbatim; /* content equals the source between the quotes */
        } str;
    } lit;
    TxSpan name_span; /* ATTR, DEF, CLASS: where the name is */
    Ast *c;
    AstList items, items2;
    const char **names; /* CALL: keyword names (parallel to items2); LAMBDA: params */
    TxSpan *name_spans; /* CALL: spans of the keyword names; LAMBDA: of the params */
    int nnames;
    int *ops;           /* COMPARE */
    AstList body, orelse;
    AstParam *params;
    int nparams;
    /* DEF of a @T.prim_func at module level, when the parser was given a tree
     * arena: its decorators, parameters and body are there, allocated from
     * tree_mark's chunk on (sc_parse_tokens) */
    bool in_tree;
    TxArenaChunk *tree_mark;
};

/* ---- the parser's state, shared by parse_expr.c and parse_stmt.c ---- */
typedef struct Parser {
    const TxSource *src;
    const ScToken *t;
    int n, i;
    TxArena *a;    /* nodes: the module's arena, or the body arena of a function */
    TxArena *keep; /* the module's arena: strings, which the IR may keep */
    TxArena *tree; /* NULL, or where module-level @T.prim_func functions go */
    TxDiags *d;
    bool failed;
    int depth;
} Parser;

/* A growable list of nodes in the arena. Its first item is kept in `one`, so
 * the many lists that end up with one item (or are dropped) allocate little:
 * ps_vec_list copies the items out, and the vector must not be copied. */
typedef struct AstVec {
    Ast **items;
    int n, cap;
    Ast *one;
} AstVec;
void ps_vec_push(Parser *p, AstVec *v, Ast *x);
AstList ps_vec_list(Parser *p, AstVec *v);

const ScToken *ps_tok(Parser *p);             /* the current token */
const ScToken *ps_peek(Parser *p, int ahead);
bool ps_at(Parser *p, ScTokKind k);
bool ps_accept(Parser *p, ScTokKind k);
/* Consume k or report "expected 'k'" (what names the construct when given). */
bool ps_expect(Parser *p, ScTokKind k, const char *what);
/* Report an error (usually TX_E_SYNTAX) at token t (once) and return NULL. */
Ast *ps_error_at(Parser *p, TxCode code, const ScToken *t, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A new node of kind k, its span the token first's, allocated as its kind needs. */
Ast *ps_node(Parser *p, AstKind k, const ScToken *first);
/* The same, allocated up to `bytes` (AST_UPTO): for a node that uses a field its
 * kind usually does not (a NAME with `a`). */
Ast *ps_node_upto(Parser *p, AstKind k, const ScToken *first, size_t bytes);
#define AST_UPTO(field) (offsetof(Ast, field) + sizeof(((Ast *)0)->field))
/* Extend a node's span to the end of the previous token. */
Ast *ps_finish(Parser *p, Ast *x);
bool ps_enter(Parser *p);
void ps_leave(Parser *p);

Ast *ps_test(Parser *p);            /* test := or_test ['if' or_test 'else' test] | lambda */
Ast *ps_testlist(Parser *p);        /* testlist := test (',' test)* [','] (a tuple when >1) */
Ast *ps_star_testlist(Parser *p);   /* as testlist, allowing '*' items */
Ast *ps_bitor(Parser *p);           /* an expression without comparisons (for targets) */

/* Parse a token array into a list of top-level statements. With 'expr_only',
 * parse one expression (the tokens of a quoted shape string) into out->items[0].
 * The tree is allocated in a; with a tree arena, the decorators, parameters and
 * body of each module-level @T.prim_func are allocated there instead, one
 * function after the other, so that a function's part is released (with
 * tx_arena_free_before the next one's mark) once it is elaborated: the
 * tree of a large module is then never whole beside its IR. The def node and
 * its return annotation, which a call of the function reads, and the strings
 * the parser makes (the IR keeps them) are in a.
 * Stops at the first syntax error (reported into d) and returns false. */
bool sc_parse_tokens(const TxSource *src, const ScTokens *toks, bool expr_only, TxArena *a,
                     TxArena *tree, TxDiags *d, AstList *out);

/* Maximum nesting of expressions and blocks before "nested too deeply". */
#define SC_MAX_DEPTH 200
/* The most statements the macro expansions of one module may elaborate: an
 * expansion that doubles at each level would otherwise take exponential time
 * and memory. */
#define SC_MAX_MACRO_STMTS 100000
/* Errors after which elaboration stops (as a C compiler's error limit): a
 * mistake inside a macro expanded a hundred thousand times reports once per
 * expansion otherwise, in unbounded time. */
#define SC_MAX_ERRORS 100

#endif
