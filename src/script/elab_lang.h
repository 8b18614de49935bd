/* Private to the language helpers (elab_lang.c, elab_pipeline.c,
 * elab_sched.c): the helper object, and the builders that expand a helper's
 * method into the statements the script would have written, by calling the
 * same builtins (T.ptx..., T.cuda..., T.decl_buffer) the parser calls. */
#ifndef TX_SCRIPT_ELAB_LANG_H
#define TX_SCRIPT_ELAB_LANG_H

#include "elab.h"

typedef enum {
#define X(name, module, kind, ctor) kind,
#include "lang.def"
#undef X
    LANG_COUNT
} ScLangKind;

struct ScLang {
    ScLangKind kind;
    const char *name; /* for messages and state names: the name it is assigned to */
    union {
        struct { /* MBarrier, TMABar, TCGen05Bar */
            IrExpr *buf;    /* (depth,) uint64 in the SMEM pool, or the remote view */
            IrExpr *leader; /* the condition that picks the initializing thread */
            int64_t depth, phase_offset;
            bool remote;
        } bar;
        struct {
            ScLang *full, *empty;
            int64_t stages;
        } pipe;
        struct { /* PipelineState */
            IrExpr *stage, *phase; /* int32 local scalars */
            int64_t depth;
        } state;
        struct { /* WarpRole, WarpgroupRole */
            IrExpr *cond;
            int64_t regs; /* 0: no setmaxnreg */
            bool increase;
        } role;
        struct ScSched *sched;
        struct { /* SmemDescriptor */
            IrExpr *buf; /* a uint64 local scalar */
        } desc;
    } u;
};

/* A call the helpers make: positional and keyword arguments. */
#define LG_MAX_ARGS 6
typedef struct LgCall {
    ScVal pos[LG_MAX_ARGS], kw[LG_MAX_ARGS];
    const char *names[LG_MAX_ARGS];
    TxSpan spans[LG_MAX_ARGS];
    int npos, nkw;
} LgCall;

void lg_pos(LgCall *k, ScVal v);
void lg_kw(LgCall *k, const char *name, ScVal v);
/* T.<path>(args) as the script writes it: a builtin, an op, a PTX instruction. */
ScVal lg_call(El *E, const char *path, LgCall *k, const ScArgs *at);
/* The same, as a statement; false after an error. */
bool lg_stmt(El *E, const char *path, LgCall *k, const ScArgs *at);
/* The index list [0] (IR keeps the array: it lives in the arena). */
IrExpr **lg_index0(El *E, TxSpan sp);
/* Store v into a scalar buffer (`x = v`). */
bool lg_store(El *E, IrExpr *scalar, ScVal v, TxSpan sp);
/* A scalar buffer read by name, as an argument. */
ScVal lg_scalar(IrExpr *scalar, TxSpan sp);
/* T.local_scalar(dtype): a new local scalar named "buffer" (a helper renames it). */
IrExpr *lg_local_scalar(El *E, const char *dtype, const ScArgs *at);
/* T.uint32(v). */
ScVal lg_u32(El *E, ScVal v, TxSpan sp);
/* `if cond: then else: else`, where the blocks are what emit(E, ctx, which) adds for
 * which = 0 (then) and 1 (else); a Python condition keeps only the taken block. */
typedef bool (*LgEmitFn)(El *E, void *ctx, int which);
bool lg_if(El *E, ScVal cond, LgEmitFn emit, void *ctx, bool has_else, TxSpan sp);
/* An int argument: dflt when absent or None. */
bool lg_int(El *E, const ScVal *v, int64_t dflt, int64_t *out, const char *what);
ScLang *lg_new(El *E, ScLangKind kind);
ScVal lg_val(ScLang *h, TxSpan sp);

#define X(name, module, kind, ctor) ScVal ctor(El *E, ScArgs *args, ScLangKind k);
#include "lang.def"
#undef X

/* Attributes and methods of each family; the methods set args->fname. */
ScVal lg_barrier_attr(El *E, ScVal obj, const char *name, TxSpan sp);
ScVal lg_barrier_method(El *E, ScLang *h, const char *name, ScArgs *args);
ScVal lg_pipeline_attr(El *E, ScVal obj, const char *name, TxSpan sp);
ScVal lg_state_attr(El *E, ScVal obj, const char *name, TxSpan sp);
ScVal lg_state_method(El *E, ScLang *h, const char *name, ScArgs *args);
ScVal lg_sched_attr(El *E, ScVal obj, const char *name, TxSpan sp);
ScVal lg_sched_method(El *E, ScLang *h, const char *name, ScArgs *args);
ScVal lg_desc_attr(El *E, ScVal obj, const char *name, TxSpan sp);
ScVal lg_desc_method(El *E, ScLang *h, const char *name, ScArgs *args);
void lg_sched_named(El *E, ScLang *h, const char *name);

#endif
