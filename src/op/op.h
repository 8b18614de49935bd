/* The tile-primitive registry and what a dispatch variant works with.
 *
 * A tile primitive call (IR_S_TILE: `T.cta.copy(dst, src)`) names an op and
 * an execution scope; the registry (variants.def) lists, per op or per family
 * of ops (src/ir/tile_ops.def), the variants that can lower it, each with a
 * priority, a predicate and a lowering. The
 * dispatcher tries the variants of the call's op by descending priority (ties
 * by name); the first whose predicate accepts the call and whose lowering does
 * not decline replaces the call. `dispatch="name"` narrows the search to that
 * variant. When nothing accepts, the error lists every variant's reason.
 *
 * A variant sees an OpCtx: the call, the target, the executing threads (the
 * value of every thread axis for the running thread, derived from the
 * kernel's scope ids by TilePrimitiveDispatch), and whether an enclosing `if`
 * narrows the threads of the call's scope. It returns ordinary TIRx: loops,
 * loads and stores on the SAME n-d buffers (layouts are applied later, by
 * LowerTIRxCleanup), T.ptx and T.cuda calls, Binds; and, for TMA, host-side
 * tensor-map statements the pass places at the start of the device region
 * for SplitHostDevice to hoist. Prefix: op_. */
#ifndef TX_OP_H
#define TX_OP_H

#include "../ir/ir.h"
#include "../ir/ptx.h"
#include "../ir/visit.h"
#include "../layout/layout.h"

/* ---------------------------------------------------------------- context */
typedef TX_VEC(IrStmt *) OpStmts;
/* A value a function's lowerings share (one tensor map per descriptor). */
typedef struct OpMemo {
    const char *key;
    IrExpr *value;
} OpMemo;
typedef TX_VEC(OpMemo) OpMemos;
/* A statement placed right after the definition of a buffer. */
typedef struct OpPostDef {
    const IrExpr *buffer;
    IrStmt *stmt;
} OpPostDef;
typedef TX_VEC(OpPostDef) OpPostDefs;

typedef struct OpCtx {
    TxArena *arena;
    const IrStmt *call;   /* the IR_S_TILE being lowered */
    const IrFunc *func;   /* the function it is in (its params) */
    int sm;               /* 80, 90 (sm_90a), 100 (sm_100a); 0 when the target is not known */
    /* The running thread's coordinate on each thread axis (tx = its linear
     * index in the CTA, laneid, warpid, wgid, tid_in_wg, wid_in_wg), or NULL
     * when the kernel's scope ids do not determine it. */
    IrExpr *axis[LY_AXIS_COUNT];
    int64_t cta_threads;  /* threads per CTA; 0 when not a known constant */
    /* The finest IrScope an enclosing `if` varies at: above the call's scope,
     * it leaves some of the scope's threads out. */
    int narrow;
    /* Statements for the host (TMA tensor-map encodes), shared by the calls of
     * one function: the pass puts them first in the device region. */
    OpStmts *host_init;
    /* Asserts on the function's params that a variant's lowering relies on
     * (op_region_vector_at_launch): the pass puts them first in the
     * function, so the host checks them before it launches anything. */
    OpStmts *launch_checks;
    OpMemos *memo;        /* per function */
    /* Statements to place right after a buffer's definition (a descriptor
     * encoded once where its shared-memory buffer is declared), per
     * function: the pass inserts them. */
    OpPostDefs *post_def;
    /* What the function body defined before the call: buffer -> the data
     * expression of its T.decl_buffer (views), and the variables defined
     * inside the device region (they have no value on the host). */
    IrPtrMap *decl_data;
    IrPtrMap *device_vars;
    /* A let's variable, or a local buffer (as itself, not through a view),
     * -> the largest integer known to divide its value (every value stored;
     * 0: only 0 is); NULL or absent: nothing known (ar_known_multiple). */
    const IrPtrMap *multiples;
    /* A local buffer -> the value of its only store (1: several stores); a
     * let's variable -> its value. */
    const IrPtrMap *stores;
    /* The finest IrScope at which an expression's value may differ between
     * the threads that run the call (the pass's variation analysis; NULL:
     * not known). Read through op_varies_at. */
    IrScope (*varies_at)(const struct OpCtx *c, const IrExpr *e);
    void *pass;           /* the dispatch pass's state, for varies_at */
    const char *reason;   /* set when a lowering declines (op_decline) */
    bool wrong_scope;     /* op_need_scope refused the call's scope */
} OpCtx;

/* A predicate: NULL accepts, otherwise the reason (arena string) it does not. */
typedef const char *(*OpAcceptFn)(OpCtx *c);
/* A lowering: the replacement, or NULL after op_decline(c, reason). */
typedef IrStmt *(*OpLowerFn)(OpCtx *c);

typedef struct OpVariant {
    IrTileOp op;         /* the op it lowers; IR_TILE_COUNT: every op of `family` */
    IrTileFamily family; /* when op is IR_TILE_COUNT */
    const char *name;    /* the variant, as written in dispatch="name" */
    int priority;
    OpAcceptFn accept;
    OpLowerFn lower;
    const char *what;    /* one line for docs and messages */
} OpVariant;

/* Every registered variant, in table order (variants.def). */
const OpVariant *op_variants(int *n);
/* Whether variant v is one of op's. */
bool op_variant_lowers(const OpVariant *v, IrTileOp op);

/* Lower one call: *out receives the replacement (no statement when every
 * region operand is empty). False when no variant accepts it (or a dispatch=
 * name is unknown); then an error at the call's span, with one note per
 * variant tried (its priority and reason), is reported into diags. False too,
 * with an error, when some region operands are empty and others are not. */
bool op_dispatch(OpCtx *c, TxDiags *diags, IrStmt **out);

/* The name of a target (80, 90, 100) in messages: "sm_80", "sm_90a", "sm_100a". */
const char *op_target_name(int sm);

/* A formatted reason (arena string); for predicates. */
const char *op_reason(OpCtx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Decline from inside a lowering: records the reason and returns NULL. */
IrStmt *op_decline(OpCtx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---------------------------------------------------------------- operands */
typedef enum { OP_MEM_GLOBAL, OP_MEM_SHARED, OP_MEM_LOCAL, OP_MEM_TMEM, OP_MEM_OTHER } OpMem;

/* The most dimensions a region operand may have. */
#define OP_MAX_DIMS 8

/* A buffer-region operand: `A[s0:s0+e0, ...]`. */
typedef struct OpRegion {
    IrExpr *buffer;
    int ndim;
    IrExpr **start;   /* per buffer dimension */
    int64_t *extent;  /* per buffer dimension; constant */
    IrDType dtype;
    OpMem mem;
    const IrLayout *layout; /* NULL: row-major (or the buffer's strides) */
    bool distributed;       /* the layout has thread axes: a register tile spread over threads */
} OpRegion;

/* The finest IrScope at which e may differ between the threads running the
 * call: IR_SCOPE_THREAD when not known (a different value per thread). */
IrScope op_varies_at(const OpCtx *c, const IrExpr *e);
/* The number of positional arguments of the call and argument i. */
int op_nargs(const OpCtx *c);
IrExpr *op_arg(const OpCtx *c, int i);
/* Argument i as a region with constant extents and at most OP_MAX_DIMS
 * dimensions: NULL on success, else why not. */
const char *op_region(OpCtx *c, int i, OpRegion *out);
/* The region of `like`'s starts and extents over another buffer of as many
 * dimensions: NULL on success, else why not. */
const char *op_region_over(OpCtx *c, IrExpr *buffer, const OpRegion *like, OpRegion *out);
/* A config value (`mbar=...`, `oob="zero"`), or NULL when absent. */
IrExpr *op_config(const OpCtx *c, const char *key);
/* A workspace buffer (`workspace={"scratch": S}`), or NULL when absent. */
IrExpr *op_workspace(const OpCtx *c, const char *key);
const char *op_mem_name(OpMem m);
int64_t op_region_size(const OpRegion *r); /* elements */
/* The non-unit extents of a region, outermost first; returns their count. */
int op_region_dims(const OpRegion *r, int64_t *ext, int *dim);
/* Same element count and the same list of non-unit extents. */
bool op_regions_match(const OpRegion *a, const OpRegion *b);

/* Where a buffer's elements are in memory: its layout, or, when it has none
 * or the default one, its explicit strides= (op_strided_layout: those
 * strides, or row-major over its shape without them). */
const IrLayout *op_buffer_layout(OpCtx *c, const IrBufferType *bt);
const IrLayout *op_strided_layout(OpCtx *c, const IrBufferType *bt);
/* The storage root of a buffer: the buffer whose data a chain of views
 * (`T.decl_buffer(..., data=P.data)`) declared inside the function comes
 * from, or the buffer itself. A view whose data is any other pointer is its
 * own root. */
IrExpr *op_storage_root(const OpCtx *c, IrExpr *buffer);
/* The alignment in bytes of a shared buffer's start: the declared one, or
 * more for a view of a shared.dyn allocation (the start of the dynamic shared
 * memory, 1024-byte aligned) at a constant offset, as far as that offset
 * keeps it. */
int64_t op_shared_alignment(const OpCtx *c, IrExpr *buffer);
/* Whether e can be evaluated on the host: it uses no variable defined inside
 * the device region (NULL counts as host-known). */
bool op_host_known(const OpCtx *c, const IrExpr *e);

/* ---------------------------------------------------------------- threads */
/* How many threads run a call of this scope (1 thread, 32 warp, 128
 * warpgroup, the CTA's threads); 0 when not known. */
int64_t op_scope_threads(const OpCtx *c);
/* The running thread's index among them: NULL when not derivable (for thread
 * scope: the constant 0). */
IrExpr *op_scope_index(OpCtx *c);
/* The common predicate: the call's scope is one of `allowed` (a bitmask of
 * 1 << IrScope), all its threads are active, and the thread index is known. */
const char *op_need_scope(OpCtx *c, unsigned allowed);
/* The same for a variant whose threads each move only what they hold, issued
 * per `unit` (a thread; a warp for .sync.aligned instructions): threads left
 * out by whole units leave only their own elements untouched. */
const char *op_need_scope_per(OpCtx *c, unsigned allowed, IrScope unit);
#define OP_SCOPE_BIT(s) (1u << (s))
#define OP_ANY_COLLECTIVE (OP_SCOPE_BIT(IR_SCOPE_WARP) | OP_SCOPE_BIT(IR_SCOPE_WARPGROUP) | \
                           OP_SCOPE_BIT(IR_SCOPE_CTA))
#define OP_ANY_SCOPE (OP_ANY_COLLECTIVE | OP_SCOPE_BIT(IR_SCOPE_THREAD))

/* ---------------------------------------------------------------- building IR */
/* Every node gets the call's span, so diagnostics and #line point at it. */
IrExpr *op_i32(OpCtx *c, int64_t v);
IrExpr *op_bin(OpCtx *c, IrExprKind k, IrExpr *x, IrExpr *y); /* typed and folded as the parser does */
IrExpr *op_cast(OpCtx *c, IrDType t, IrExpr *x);
IrExpr *op_call(OpCtx *c, IrOp op, IrDType t, IrExpr **args, int n);
IrExpr *op_load(OpCtx *c, IrExpr *buffer, IrExpr **idx, int n);
IrExpr *op_address_of(OpCtx *c, IrExpr *buffer, IrExpr **idx, int n);
/* A fresh scalar variable named `<base>` (int32 unless dt says otherwise). */
IrExpr *op_var(OpCtx *c, const char *base, IrDType dt);
/* `T.ptx.<spelling>(args...)`, the spelling's dots separating its tokens
 * ("ld.global.v4.u32"); shared-space addresses are converted with
 * T.cuda.cvta_generic_to_shared as the parser does. The spelling must be a
 * form of the table (a variant that builds another is a compiler bug). */
IrExpr *op_ptx(OpCtx *c, const char *spelling, IrExpr **args, int n);
/* Whether the target has the PTX instruction `spelling` (a form of the table,
 * spelt as for op_ptx), by the table's architecture columns: NULL, or why not,
 * naming `what` ("TMA"), the instruction and the target(s) that have it ("needs
 * sm_90a or newer", "exists only on sm_90a"). An unknown target has only what
 * the oldest target (sm_80) has. */
const char *op_need_ptx(OpCtx *c, const char *what, const char *spelling);
/* The same for a spelling whose operand types choose among forms that share
 * it (tcgen05.mma from shared memory or from TMEM): ops[i] is operand i. */
const char *op_need_ptx_ops(OpCtx *c, const char *what, const char *spelling,
                            const IrPtxArg *ops, int n);
/* Whether the target is known and has the PTX instruction `spelling`. */
bool op_has_ptx(const OpCtx *c, const char *spelling);

/* Statement lists. */
typedef struct OpSeq {
    OpStmts v;
} OpSeq;
void op_emit(OpSeq *s, IrStmt *st);
void op_eval(OpCtx *c, OpSeq *s, IrExpr *call);
void op_store(OpCtx *c, OpSeq *s, IrExpr *buffer, IrExpr **idx, int n, IrExpr *value);
void op_bind(OpCtx *c, OpSeq *s, IrExpr *var, IrExpr *value);
/* Takes the list (freeing it): the one statement, or a SeqStmt. */
IrStmt *op_seq_finish(OpCtx *c, OpSeq *s);
IrStmt *op_for(OpCtx *c, IrExpr *var, int64_t extent, IrForKind kind, IrStmt *body);
IrStmt *op_if(OpCtx *c, IrExpr *cond, IrStmt *then_s, IrStmt *else_s);
/* `name = T.alloc_local((n,), dtype)`: emits the AllocBuffer, returns the buffer. */
IrExpr *op_alloc_local(OpCtx *c, OpSeq *s, const char *name, IrDType dt, int64_t n);
/* A 1-D view over the calling thread's registers of a distributed buffer
 * (`A.local()`): emits the DeclBuffer, returns the view. */
IrExpr *op_local_view(OpCtx *c, OpSeq *s, IrExpr *buffer);

/* A 1-D view of n elements of dtype dt, without layout or offset, over the
 * storage of buffer (its data pointer): emits the DeclBuffer, returns the
 * view. Indices into it are raw element offsets from the data pointer (a
 * uint32 view of 16-bit registers indexes their pairs). */
IrExpr *op_flat_view(OpCtx *c, OpSeq *s, IrExpr *buffer, IrDType dt, int64_t n);

/* Plain vector accesses: `*(uint4*)p = *(uint4*)q` in the CUDA, ordinary
 * memory operations the compiler schedules and allocates around (an asm
 * statement would pin them). op_view_at declares a 1-D view of n elements of
 * dtype dt whose first element is buffer[idx]
 * (`T.decl_buffer((n,), dt, data=T.address_of(buffer[idx]), align=...)`),
 * aligned to n elements of dt: the caller has proven that alignment. */
IrExpr *op_view_at(OpCtx *c, OpSeq *s, IrExpr *buffer, IrExpr **idx, int nidx, IrDType dt,
                   int64_t n);
/* view[first:first + lanes] of a 1-D view as one vector (a Ramp index of
 * stride 1), the element itself for one lane; it must be aligned to the
 * vector's size. */
IrExpr *op_vector_load(OpCtx *c, IrExpr *view, IrExpr *first, int lanes);
void op_vector_store(OpCtx *c, OpSeq *s, IrExpr *view, IrExpr *first, int lanes, IrExpr *value);

/* The memo entry of key, or NULL; op_memo_put records one. */
IrExpr *op_memo_get(const OpCtx *c, const char *key);
void op_memo_put(OpCtx *c, const char *key, IrExpr *value);

/* Places s right after the statement that defines buffer (its AllocBuffer or
 * DeclBuffer in the device region); false when the device region does not
 * define it (a parameter), and then nothing is placed. */
bool op_after_def(OpCtx *c, const IrExpr *buffer, IrStmt *s);

/* ---------------------------------------------------------------- index facts */
/* A layout context in c's arena whose proofs see c's lets and registers. */
static inline LyCtx op_ly_ctx(const OpCtx *c)
{
    LyCtx lc = ly_ctx(c->arena);
    lc.multiples = c->multiples;
    return lc;
}

/* The largest power of two (capped at 1 << 30) that provably divides e. */
int64_t op_known_pow2(const IrExpr *e);
/* The same, seeing through lets and local registers by `multiples` (OpCtx). */
int64_t op_known_pow2_in(const IrPtrMap *multiples, const IrExpr *e);
/* Whether e is a constant; *v receives it. */
bool op_const(const IrExpr *e, int64_t *v);
/* A constant truth value (True/False, 0/1, an IntImm); absent (NULL) is false.
 * False when e is not a constant. */
bool op_flag(const IrExpr *e, bool *out);
/* The smallest power of two >= v. */
int64_t op_pow2_ceil(int64_t v);
int op_dtype_bytes(IrDType t); /* 0 for sub-byte types */

#endif
