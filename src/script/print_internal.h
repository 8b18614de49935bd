/* Private interface between the parts of the printer: print.c (modules,
 * functions, frames, names, free-variable placement), print_expr.c
 * (expressions, types, layouts, Python values) and print_stmt.c (statements
 * and buffer declarations). Not used outside src/script/print*.c.
 *
 * The printer follows the reference TVMScript printer: every statement is
 * rendered to a text chunk at indentation 0 and appended to the innermost
 * open frame; a frame is opened for each printed body (function, loop,
 * branch, with-block, lambda). A variable used before any definition gets a
 * definition line (`n = T.int32()`) in the deepest open frame that encloses
 * all of its uses, just before the statement that first needs it. Names are
 * made unique among the names currently defined and released when the frame
 * that defined them closes. Prefix: pr_. */
#ifndef TX_SCRIPT_PRINT_INTERNAL_H
#define TX_SCRIPT_PRINT_INTERNAL_H

#include "../ir/ir.h"
#include "../ir/visit.h"

/* Python operator precedence, as the reference printer uses it to
 * parenthesize: a left operand is wrapped iff its precedence is lower than
 * the parent's, a right operand iff lower or equal. */
enum {
    PR_PREC_LAMBDA = 1,
    PR_PREC_OR = 3,
    PR_PREC_AND = 4,
    PR_PREC_NOT = 5,
    PR_PREC_CMP = 6,
    PR_PREC_BITOR = 7,
    PR_PREC_BITXOR = 8,
    PR_PREC_BITAND = 9,
    PR_PREC_SHIFT = 10,
    PR_PREC_ADD = 11,
    PR_PREC_MUL = 12,
    PR_PREC_UNARY = 13,
    PR_PREC_ATOM = 15,
};

typedef TX_VEC(const IrExpr *) PrExprVec;

/* What the printer knows about one variable (or buffer). */
typedef struct PrVar {
    const IrExpr *key;
    const char *text;   /* the name; NULL: undefined or inline */
    const IrExpr *base; /* inline definitions print as <base><suffix>: `A.elem_offset` */
    const char *suffix;
    bool owns_name;     /* text is a name reserved in the name set */
    int frame;          /* the frame that defined it */
    int npath;          /* common prefix of the paths to all uses; -1: never used */
    const void **path;
} PrVar;

/* One printed body. */
typedef struct PrFrame {
    const void *tir;    /* the IR node whose body this is */
    bool concise;       /* a sole AttrStmt may print flat (concise scoping) */
    bool in_header;     /* its loop header is being printed */
    bool is_lambda;     /* a lambda's: printed inline, its definitions dropped */
    TX_VEC(char *) stmts;
} PrFrame;

typedef struct PrNameSlot {
    const char *name;
    bool live;
} PrNameSlot;

typedef struct Printer {
    const IrModule *m;
    const IrFunc *func;
    TxArena arena;       /* names, path copies and expressions built while printing */
    TX_VEC(PrVar) vars;
    IrPtrMap var_index;  /* variable -> index into vars */
    PrNameSlot *names;   /* open addressing set of names */
    int name_cap, name_count;
    TX_VEC(PrFrame) frames;
    const IrExpr **type_vars; /* of the function being printed */
    int ntype_vars;
    /* The module's TypeVar names, which other variables must not take (a
     * TypeVar line binds its name in every function), and those held now. */
    const char *const *module_type_vars;
    int nmodule_type_vars;
    TX_VEC(const char *) held_names;
    bool uses_ir_prefix; /* an `I.Op(...)` was printed: the header imports `I` */
} Printer;

/* ---- print.c: variables, names and frames ---- */
PrVar *pr_var(Printer *P, const IrExpr *var);
bool pr_is_defined(Printer *P, const IrExpr *var);
/* Define a variable with a fresh unique name in the given frame; returns the name. */
const char *pr_define(Printer *P, const IrExpr *var, int frame);
/* Define a variable that prints as `<buffer><suffix>` (`A.elem_offset`),
 * taking no name; the buffer's name is looked up at each use. */
void pr_define_inline(Printer *P, const IrExpr *var, int frame, const IrExpr *buffer,
                      const char *suffix);
/* How a defined variable prints. */
const char *pr_text(Printer *P, const IrExpr *var);
int pr_top(Printer *P);
/* Open a frame for the body of `tir`; pr_frame_close returns its statements
 * (the caller owns the array and the strings) and releases its names. */
void pr_frame_open(Printer *P, const void *tir);
void pr_frame_close(Printer *P, char ***stmts, int *n);
void pr_emit(Printer *P, int frame, char *stmt);
/* The frame where a variable without definition gets one: the deepest
 * enclosing all of its uses. */
int pr_free_def_frame(Printer *P, const IrExpr *var);
/* True when every use of var lies inside node (launch_thread may define it). */
bool pr_dominates_uses(Printer *P, const void *node, const IrExpr *var);

/* ---- text helpers (print.c) ---- */
/* `header:` followed by the statements indented one level (`pass` if none). */
void pr_block(TxBuf *out, const char *header, char **stmts, int n);
void pr_free_stmts(char **stmts, int n);
void pr_string_literal(TxBuf *out, const char *s);
void pr_float_literal(TxBuf *out, double v);
const char *pr_dtype(IrDType t, char *buf);

/* ---- print_expr.c ---- */
void pr_expr(Printer *P, const IrExpr *e, TxBuf *out);
/* Print e as an operand of an operator of precedence `parent`. */
void pr_operand(Printer *P, const IrExpr *e, int parent, bool paren_same, TxBuf *out);
int pr_prec(Printer *P, const IrExpr *e);
void pr_type(Printer *P, const IrType *t, TxBuf *out);
/* The right-hand side of a free variable's definition: `T.int32()`. */
void pr_var_creation(Printer *P, const IrExpr *var, TxBuf *out);
void pr_layout(Printer *P, const IrLayout *l, TxBuf *out);
/* A variable use; defines it on the spot when it has no definition yet. */
void pr_var_use(Printer *P, const IrExpr *var, TxBuf *out);
/* `[i, j]` subscripts; with slices, a Ramp of constant stride prints `b:e[:s]`. */
void pr_indices(Printer *P, IrExpr *const *idx, int n, bool slices, TxBuf *out);
/* `A[i, j]` region syntax for a region (extent-1 dims as the index). */
void pr_region(Printer *P, const IrExpr *region, TxBuf *out);
bool pr_is_scalar_buffer(const IrExpr *buffer, bool alloc_or_decl);
/* An access that prints as the scalar buffer's bare name: its one element, [0]. */
bool pr_is_scalar_access(const IrExpr *buffer, IrExpr *const *indices, int n,
                         const IrExpr *predicate);
bool pr_layout_is_default(Printer *P, const IrLayout *l, IrExpr **shape, int ndim);
bool pr_layout_equal(const IrLayout *a, const IrLayout *b);
/* a + b as the reference's operator would build it (dtype match, folding). */
IrExpr *pr_fold_add(Printer *P, IrExpr *a, IrExpr *b);
IrExpr *pr_fold_mul(Printer *P, IrExpr *a, IrExpr *b);
bool pr_is_int(const IrExpr *e, int64_t v);
/* Append the distinct variables of an expression, in order of appearance. */
void pr_collect_vars(const IrExpr *e, PrExprVec *out);

/* ---- print_stmt.c ---- */
/* Print the statements of a body into the innermost frame. */
void pr_body(Printer *P, const IrStmt *body);
/* `T.Buffer(...)`-style argument list of a buffer-declaring call. */
void pr_buffer_param(Printer *P, const IrExpr *buffer, TxBuf *out, const IrExpr **quote, int nquote,
                     int frame);
void pr_free_buffer_def(Printer *P, const IrExpr *buffer, int frame);

#endif
