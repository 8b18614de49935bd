/* Private to the language helpers (elab_lang.c, elab_pipeline.c,
 * elab_sched.c, elab_clc.c): the helper object, and the builders that expand a helper's
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

/* A ClusterPersistentScheduler2D (elab_sched.c); a ClusterLaunchControlScheduler's
 * worker is one too, with its handshake state (elab_clc.c). */
typedef struct ScSched {
    IrExpr *m_idx, *n_idx, *linear, *tile_count;
    ScVal clusters, total, rows, full_groups, tail_rows; /* rows: of clusters' tiles */
    int64_t group, cluster_m, cluster_n, n_cols;
    bool serpentine; /* the block swizzle, not the group-major order */
    struct ScClcWorker *worker; /* NULL but for a worker */
} ScSched;

/* A scheduler that walks a linear work index (elab_sched_linear.c): GroupMajor3D,
 * RankAwareGroupMajorTileScheduler, IndexedTripleTileScheduler and the
 * flash-attention ones. */
typedef struct ScLinSched {
    ScLangKind kind;
    TxSpan sp; /* of the method being expanded */
    IrExpr *m_idx, *n_idx, *linear, *own[4]; /* own: the class's locals (elab_sched_linear.c) */
    ScVal total, step; /* valid(): linear_idx < total; next_tile()'s stride, None: one tile */
    int64_t dims[4];   /* the class's int parameters */
    IrExpr *bufs[4];   /* IndexedTripleTileScheduler: b, h, q indices, tiles_indptr */
    ScVal groups, final_rows, safe_final, group_size, full_bound, has_full, has_tail; /* 3D */
} ScLinSched;

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
        ScSched *sched; /* ClusterPersistentScheduler2D, _CLCWorker */
        ScLinSched *lin;
        struct ScClc *clc;
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
/* T.Select(cond, a, b) */
ScVal lg_select(El *E, ScVal cond, ScVal a, ScVal b, TxSpan sp);
/* The value of a scalar buffer, as an expression. */
ScVal lg_load(El *E, IrExpr *scalar, TxSpan sp);
/* `name: T.let = v`; the variable. */
ScVal lg_let(El *E, const char *name, ScVal v, TxSpan sp);
/* a OP b, a OP int, as the script's operators compute them. */
static inline ScVal lg_op(El *E, int tok, ScVal a, ScVal b, TxSpan sp)
{
    return el_binop(E, tok, a, b, sp);
}
static inline ScVal lg_opi(El *E, int tok, ScVal a, int64_t b, TxSpan sp)
{
    return el_binop(E, tok, a, sv_int(b, sp), sp);
}
/* a // b as the reference's schedulers compute it: Python // on ints, T.truncdiv otherwise. */
ScVal lg_trunc_div(El *E, ScVal a, int64_t b, const ScArgs *at);
/* T.local_scalar(dtype): a new local scalar named "buffer" (a helper renames it). */
IrExpr *lg_local_scalar(El *E, const char *dtype, const ScArgs *at);
/* T.uint32(v). */
ScVal lg_u32(El *E, ScVal v, TxSpan sp);
/* `if cond: then else: else`, where the blocks are what emit(E, ctx, which) adds for
 * which = 0 (then) and 1 (else); a Python condition keeps only the taken block. */
typedef bool (*LgEmitFn)(El *E, void *ctx, int which);
bool lg_if(El *E, ScVal cond, LgEmitFn emit, void *ctx, bool has_else, TxSpan sp);
/* while cond: (what emit(E, ctx, 0) adds) */
bool lg_while(El *E, ScVal cond, LgEmitFn emit, void *ctx, TxSpan sp);
/* The arguments of k as a call's, for a helper's own constructor or method. */
ScArgs lg_args(LgCall *k, const ScArgs *at, const char *fname);
/* h.name(args) of another helper, as the script would call it. */
ScVal lg_method(El *E, ScLang *h, const char *name, LgCall *k, const ScArgs *at);
/* A one-item list or tuple (kind SV_LIST or SV_TUPLE): [item], (item,). */
ScVal lg_seq1(El *E, ScValKind kind, ScVal item, TxSpan sp);
/* T.address_of(buf[0]) */
ScVal lg_addr0(El *E, IrExpr *buf, const ScArgs *at);
/* An int argument: dflt when absent or None. */
bool lg_int(El *E, const ScVal *v, int64_t dflt, int64_t *out, const char *what);
/* A scheduler's tile count, when known, fits its int32 tile index (else an error at args). */
bool lg_work_fits(El *E, ScVal total, const ScArgs *args);
/* A count or divisor of a helper: an int from 1 to INT32_MAX (dflt when absent). */
bool lg_count(El *E, const ScVal *v, int64_t dflt, int64_t *out, const char *what,
              const ScArgs *args);
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
ScVal lg_clc_attr(El *E, ScVal obj, const char *name, TxSpan sp);
ScVal lg_clc_method(El *E, ScLang *h, const char *name, ScArgs *args);
ScVal lg_worker_method(El *E, ScLang *h, const char *name, ScArgs *args);
/* ClusterPersistentScheduler2D(...) from checked arguments: its locals and totals. */
ScSched *lg_sched_make(El *E, ScVal num_m, int64_t num_n, ScVal clusters, int64_t group,
                       int64_t cluster_m, int64_t cluster_n, const ScArgs *at);
/* init(cluster_id) and update_current_m_n_idx(work_idx) of a scheduler. */
bool lg_sched_init(El *E, ScSched *s, ScVal cluster_id, TxSpan sp);
bool lg_sched_update(El *E, ScSched *s, ScVal work, TxSpan sp);
ScVal lg_desc_attr(El *E, ScVal obj, const char *name, TxSpan sp);
ScVal lg_desc_method(El *E, ScLang *h, const char *name, ScArgs *args);
void lg_sched_named(El *E, ScLang *h, const char *name);
ScVal lg_linear_sched_attr(El *E, ScVal obj, const char *name, TxSpan sp);
ScVal lg_linear_sched_method(El *E, ScLang *h, const char *name, ScArgs *args);
void lg_linear_sched_named(El *E, ScLang *h, const char *name);
void lg_clc_named(El *E, ScLang *h, const char *name);

#endif
