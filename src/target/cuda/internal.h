/* The CUDA code generator's internal state and the functions its files share:
 * codegen.c (module, kernels, output lines, #line, errors), names.c (C
 * identifiers), types.c (C types), expr.c (scalar expressions), vector.c
 * (vector values and accesses), call.c (builtin and T.cuda calls), trace.c
 * (T.cuda.iket event records), asm.c
 * (T.ptx as inline asm), stmt.c (statements), descriptors.c (descriptor
 * encoders). Everything a run allocates lives in its arena. */
#ifndef TX_TARGET_CUDA_INTERNAL_H
#define TX_TARGET_CUDA_INTERNAL_H

#include "../../ir/ptx.h"
#include "../../ir/visit.h"
#include "codegen.h"

/* A set of strings (open addressing; the strings are not owned). */
typedef struct CgNameSet {
    const char **slots;
    int len, cap;
} CgNameSet;

typedef struct Cg {
    IrModule *m;
    const CgOptions *opt;
    TxArena arena;      /* strings and temporaries of this run */
    bool failed;
    TxSpan span;        /* the statement being generated, for errors on synthesized nodes */

    /* output */
    TxBuf *out;         /* the kernel text */
    TxBuf *pre;         /* where temporaries go before the statement that needs them */
    int indent;
    TxBuf helpers;      /* T.cuda.func_call sources, in first-use order */
    CgNameSet helper_names;
    TxBuf trace_names;  /* T.cuda.iket names, NUL-terminated, in first-use order */
    bool trace_used;    /* a kernel records trace events */

    /* #line bookkeeping: the source line the compiler gives the next line of
     * out, valid up to out->len == line_pos */
    const TxSource *line_src;
    int line;
    size_t line_pos;
    TxSpan pending;     /* a statement's line, emitted with its first output */

    /* identifiers and facts about variables (pointer maps: lookups only) */
    IrPtrMap names;     /* var -> const char * */
    CgNameSet used;
    int ntemps;
    IrPtrMap nonneg;    /* vars known to be >= 0 */
    IrPtrMap scalars;   /* 1-element local buffers written as a plain variable */
    IrPtrMap tiles;     /* local arrays accessed only at constant indices -> their
                         * elements' names (const char **), or 0 before the allocation */
    IrPtrMap empty;     /* local buffers of no elements: never declared */
    IrPtrMap vec_temps; /* vector expressions of the current statement -> temporary */
} Cg;

/* Operator precedence of C, highest binds tightest. */
enum {
    CG_PREC_NONE = 0,
    CG_PREC_COND = 3,
    CG_PREC_OR = 4,
    CG_PREC_AND = 5,
    CG_PREC_BITOR = 6,
    CG_PREC_BITXOR = 7,
    CG_PREC_BITAND = 8,
    CG_PREC_EQ = 9,
    CG_PREC_REL = 10,
    CG_PREC_SHIFT = 11,
    CG_PREC_ADD = 12,
    CG_PREC_MUL = 13,
    CG_PREC_UNARY = 15,
    CG_PREC_POSTFIX = 16,
};

/* ---- codegen.c ---- */
void cg_error(Cg *cg, TxCode code, TxSpan span, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The span to report e at: its own, else the statement's. */
TxSpan cg_span(const Cg *cg, const IrExpr *e);
/* One output line at the current indentation. */
void cg_line(Cg *cg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A line without indentation (#pragma, #line). */
void cg_raw_line(Cg *cg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Make the next output line map to the source line of span (#line). */
void cg_sync_line(Cg *cg, TxSpan span);
/* Sync to span's line when the next statement line or temporary is written
 * (a statement that writes nothing leaves no #line behind). */
void cg_mark_line(Cg *cg, TxSpan span);
/* Write a pending cg_mark_line directive before a temporary. */
void cg_flush_line(Cg *cg);
/* The same for the line `ahead` lines further (after a #pragma line). */
void cg_sync_line_ahead(Cg *cg, TxSpan span, int ahead);
/* cg_line for a statement: synced to the current statement's source line. */
void cg_stmt_line(Cg *cg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *cg_strdup(Cg *cg, const char *s);
char *cg_printf(Cg *cg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An integer constant (IntImm, Python int or bool), false when e is not one. */
bool cg_const_int(const IrExpr *e, int64_t *v);
/* The target's name for messages: "sm_90a". */
const char *cg_target(const Cg *cg);
/* Report an error unless the target is at least sm (what names the feature). */
bool cg_require_sm(Cg *cg, TxSpan span, int sm, const char *what);

/* ---- nvshmem.c ---- */
/* A T.nvshmem op: the nvshmem.h function it calls. */
int cg_nvshmem_call(Cg *cg, const IrExpr *e, TxBuf *b);

/* ---- names.c ---- */
/* The C name of a variable defined earlier. */
const char *cg_name(Cg *cg, const IrExpr *var);
/* Give a newly defined variable a unique C name. */
const char *cg_define(Cg *cg, const IrExpr *var);
/* Give var the C name of another (a buffer declared over a pointer). */
void cg_alias(Cg *cg, const IrExpr *var, const char *name);
/* A fresh temporary name tx_<n>. */
const char *cg_temp_name(Cg *cg);
bool cg_nameset_add(Cg *cg, CgNameSet *s, const char *name); /* false if present */
/* Forget every name (a new kernel); the reserved words stay taken. */
void cg_names_reset(Cg *cg);

/* ---- types.c ---- */
/* The C type of a dtype (vectors included); NULL when codegen has none. */
const char *cg_ctype(Cg *cg, IrDType t);
/* As cg_ctype, reporting an error at span when there is none. */
const char *cg_ctype_at(Cg *cg, IrDType t, TxSpan span);
/* The bits of a sub-byte scalar float (4: fp4, 6: fp6), stored packed or in
 * the _align16 groups; else 0. */
int cg_subbyte(IrDType t);
/* The prelude's tx_ld_bits / tx_st_bits / tx_bit template arguments for a
 * sub-byte dtype ("6, 1": six bits, grouped); NULL for others. */
const char *cg_bits_args(IrDType t);
/* The C type of a buffer's memory: uint8_t for the sub-byte types. */
const char *cg_storage_ctype(Cg *cg, IrDType t, TxSpan span);
/* The C type of a variable's type: scalars, pointers (T*), tensor maps. */
const char *cg_var_ctype(Cg *cg, const IrType *t, TxSpan span);
/* Lane k of a vector held in the variable named v of dtype t. */
char *cg_lane_of(Cg *cg, const char *v, IrDType t, int k);
bool cg_is_low_float(IrDType t);    /* half, bfloat16, fp8/6/4: storage types converted via float */

/* ---- expr.c ---- */
/* Write scalar e to b, parenthesized when it binds less tightly than min_prec. */
int cg_expr(Cg *cg, const IrExpr *e, TxBuf *b, int min_prec); /* the precedence written */
/* e as a string of the run's arena. */
char *cg_expr_str(Cg *cg, const IrExpr *e, int min_prec);
/* Whether t is an integer narrower than int: C++ computes its operators in int. */
bool cg_narrow_int(IrDType t);
/* (t)(b[start..]): an operator's int result wrapped back to narrow integer t,
 * as the IR's arithmetic wraps; the precedence written. */
int cg_narrow_back(Cg *cg, IrDType t, TxBuf *b, size_t start);
/* Whether e is known to be >= 0. */
bool cg_is_nonneg(Cg *cg, const IrExpr *e);
/* A new temporary `type tx_n = value;` before the current statement; its name. */
const char *cg_temp(Cg *cg, const char *type, const char *value);
/* The lvalue of one buffer element (a scalar access). */
void cg_element(Cg *cg, const IrExpr *buffer, const IrExpr *index, TxBuf *b);
/* Casts: write `(to)(x)` with x already printed (prec of x given). */
void cg_cast_text(Cg *cg, IrDType from, IrDType to, const char *x, int xprec, TxBuf *b);
/* A float constant of dtype t; returns its precedence. */
int cg_literal_float(Cg *cg, IrDType t, double v, TxBuf *b);

/* ---- vector.c ---- */
/* Write vector e (lanes > 1) as a value of its vector C type. */
void cg_vec_value(Cg *cg, const IrExpr *e, TxBuf *b);
/* Lane k of vector e as a scalar expression. */
char *cg_vec_lane(Cg *cg, const IrExpr *e, int k);
/* A store whose index is a vector (Ramp): one vector store or one per lane. */
void cg_vec_store(Cg *cg, const IrStmt *s);

/* ---- call.c ---- */
/* A builtin call as a value; returns its precedence. */
int cg_call(Cg *cg, const IrExpr *e, TxBuf *b);
/* A call as a statement (T.ptx, descriptor encoders, syncs); false when it is
 * an ordinary value call the caller should print as an expression statement. */
bool cg_call_stmt(Cg *cg, const IrExpr *e);

/* trace.c: T.cuda.iket calls as a statement (true when e is one, also when
 * it generates nothing) and as a token expression; the tracing globals. */
bool cg_iket_stmt(Cg *cg, const IrExpr *e);
/* Whether op records a trace event (the iket calls but sentinel_token). */
bool cg_is_iket_event(IrOp op);
int cg_iket_expr(Cg *cg, const IrExpr *e, TxBuf *b);
void cg_trace_globals(Cg *cg, TxBuf *out);
/* The C function a math op calls on float/double (fast-math aware); NULL if
 * the op is not a math function. */
const char *cg_math_name(Cg *cg, IrOp op, IrDType t);
/* Every C function name the math table emits (for the reserved names). */
int cg_math_names(const char **out, int max);

/* ---- asm.c ---- */
/* A T.ptx call as an asm statement. */
void cg_ptx(Cg *cg, const IrExpr *call);

/* ---- stmt.c ---- */
void cg_stmt(Cg *cg, const IrStmt *s);
/* Finds the kernel's local arrays written as one variable per element (tiles). */
void cg_scan_register_tiles(Cg *cg, const IrFunc *f);

#endif
