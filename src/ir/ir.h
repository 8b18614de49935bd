/* The TIRx IR: dtypes, types (including buffer types and layouts), expressions,
 * statements, functions and modules. Nodes are immutable once built and live in
 * the arena of their module. A variable's identity is its pointer; a buffer is
 * a variable whose type is a buffer type. Prefix: ir_. */
#ifndef TX_IR_H
#define TX_IR_H

#include "../base/base.h"
#include "../base/diag.h"

/* ---------------------------------------------------------------- dtypes */
typedef enum {
#define X(E, name, bits) IR_DT_##E,
#include "dtype.def"
#undef X
    IR_DT_COUNT
} IrDtypeCode;

typedef struct IrDType {
    uint8_t code;   /* IrDtypeCode */
    uint8_t bits;
    uint16_t lanes; /* 1 for scalars */
} IrDType;

/* The most lanes a vector dtype may have. */
#define IR_MAX_LANES 1024

extern const IrDType IR_BOOL, IR_INT8, IR_INT16, IR_INT32, IR_INT64, IR_UINT8, IR_UINT16,
    IR_UINT32, IR_UINT64, IR_FLOAT16, IR_FLOAT32, IR_FLOAT64, IR_BFLOAT16, IR_HANDLE, IR_VOID;

bool ir_dtype_eq(IrDType a, IrDType b);
/* Parse a dtype string ("float16x2", "int", "bool", "float8_e4m3fn"); false if invalid. */
bool ir_dtype_parse(const char *s, size_t n, IrDType *out);
/* Canonical spelling; buf must hold IR_DTYPE_STR_MAX bytes. Returns buf. */
#define IR_DTYPE_STR_MAX 40
const char *ir_dtype_str(IrDType t, char *buf);
bool ir_dtype_is_int(IrDType t);   /* int or uint */
bool ir_dtype_is_float(IrDType t); /* float, bfloat and the fp8/fp6/fp4 kinds */
IrDType ir_dtype_with_lanes(IrDType t, int lanes);
/* All dtype names without lanes, for near-match suggestions. */
int ir_dtype_names(const char **out, int max);
/* The packed sub-byte dtype whose values an _align16 dtype holds; t itself
 * for any other. */
IrDType ir_dtype_unaligned(IrDType t);
/* The value bits (4 or 6) of a scalar sub-byte float, packed or _align16;
 * 0 for other dtypes. */
int ir_dtype_subbyte(IrDType t);
/* The bit at which element i of a buffer of sub-byte dtype t starts:
 * packed i * bits, _align16 16 elements to each 16 bytes. */
int64_t ir_subbyte_bit(IrDType t, int64_t i);

/* ---------------------------------------------------------------- nodes */
typedef struct IrExpr IrExpr;
typedef struct IrStmt IrStmt;
typedef struct IrType IrType;
typedef struct IrLayout IrLayout;

/* A keyword argument or a string-keyed dictionary entry. */
typedef struct IrKwarg {
    const char *key;
    IrExpr *value;
} IrKwarg;

/* ---------------------------------------------------------------- layouts */
/* One iterator of a TileLayout: `extent:stride @ axis`. */
typedef struct IrIter {
    IrExpr *extent, *stride;
    const char *axis; /* "m", "laneid", "TCol", ... */
} IrIter;

typedef struct IrAxisOffset {
    const char *axis;
    IrExpr *value;
} IrAxisOffset;

typedef enum { IR_LAYOUT_TILE, IR_LAYOUT_COMPOSE } IrLayoutKind;

struct IrLayout {
    IrLayoutKind kind;
    /* TILE */
    int nshard, nreplica, noffset;
    IrIter *shard, *replica;
    IrAxisOffset *offset; /* sorted by axis name */
    /* COMPOSE: a swizzle over a tile layout */
    int per_element, swizzle_len, atom_len;
    bool swizzle_inner;
    IrLayout *tile;
};

/* ---------------------------------------------------------------- types */
typedef enum {
    IR_TY_PRIM,      /* dtype */
    IR_TY_PTR,       /* pointer to dtype (void: opaque) in storage scope */
    IR_TY_TENSORMAP, /* T.TensorMap() */
    IR_TY_TUPLE,     /* the empty tuple type (no value) */
    IR_TY_BUFFER,
} IrTypeKind;

typedef struct IrBufferType {
    int ndim, nstrides, naddr;
    IrExpr **shape;
    IrExpr **strides;        /* nstrides == 0: compact row-major */
    IrExpr *elem_offset;     /* never NULL: IntImm 0 when absent */
    int align;               /* data alignment in bytes, default 64 */
    int offset_factor;       /* default 1 */
    IrLayout *layout;        /* NULL: layout=None */
    IrExpr **allocated_addr; /* TMEM column addresses and the like */
} IrBufferType;

struct IrType {
    IrTypeKind kind;
    IrDType dtype;     /* PRIM: the type; PTR/BUFFER: the element */
    const char *scope; /* PTR/BUFFER: "global", "shared", "shared.dyn", "local", "tmem", ... */
    IrBufferType *buf; /* BUFFER */
};

/* ---------------------------------------------------------------- expressions */
typedef enum {
#define X(E, name, member) IR_E_##E,
#include "expr.def"
#undef X
    IR_E_COUNT
} IrExprKind;
#define IR_E_IS_BINARY(k) ((k) <= IR_E_OR)

typedef enum {
#define X(E, name, ret, lo, hi) IR_OP_##E,
#include "op.def"
#undef X
    IR_OP_COUNT
} IrOp;

typedef struct IrOpInfo {
    const char *name;
    enum { IR_RET_ARG0, IR_RET_ARG1, IR_RET_VOID, IR_RET_BOOL, IR_RET_INT32, IR_RET_UINT32,
           IR_RET_UINT64, IR_RET_HANDLE, IR_RET_EXPLICIT, IR_RET_EXPLICIT_LAST, IR_RET_PTR,
           IR_RET_KWARG, IR_RET_FLOAT32, IR_RET_INT64, IR_RET_INT_BITS } ret;
    int min_args, max_args;
} IrOpInfo;
extern const IrOpInfo ir_ops[IR_OP_COUNT];
/* Look up an op by printed name ("exp", "cuda.cta_sync"); -1 if none. */
int ir_op_lookup(const char *name);
/* The name the reference registers the op under ("tirx.exp", "prim.if_then_else",
 * "tirx.mma_store" for cuda.mma_store), written to buf; returns buf. */
#define IR_OP_NAME_MAX 96
const char *ir_op_registered_name(IrOp op, char *buf);
/* Look up an op by registered name ("tirx.exp"; "tir.exp" also); -1 if none. */
int ir_op_lookup_registered(const char *name);

/* The NVSHMEM ops (nvshmem.def): what each script argument is and the
 * nvshmem.h function the op calls. */
typedef struct IrNvshmemOp {
    IrOp op;
    const char *args;  /* one letter per script argument: a u n s c m t (nvshmem.def) */
    const char *cfunc; /* "nvshmem_putmem_nbi", "nvshmemx_putmem_nbi_warp", ... */
} IrNvshmemOp;
/* op's row; NULL when op is not an NVSHMEM op. */
const IrNvshmemOp *ir_nvshmem_op(IrOp op);
/* The nvshmem.h constant that the string `name` of a signal-op ('s'),
 * comparison ('c') or team ('m') argument stands for ("add" ->
 * "NVSHMEM_SIGNAL_ADD"); NULL when it names none. */
const char *ir_nvshmem_const(char kind, const char *name);
/* What an argument of that kind is, for messages: "signal operation", ... */
const char *ir_nvshmem_kind_name(char kind);
/* The strings an argument of that kind takes, quoted and comma-separated
 * ("\"set\", \"add\""), for messages. */
const char *ir_nvshmem_const_choices(char kind);

/* A call: builtin op, a PTX instruction, or a call of another function of the module. */
typedef struct IrCall {
    IrOp op;
    int nargs, nkwargs;
    IrExpr **args;
    IrKwarg *kwargs;        /* cuda.func_call's source_code= / return_type= */
    /* IR_OP_PTX: the instruction-table entry, one token per modifier slot
     * ("" when an optional slot is omitted) and the marker flags string. */
    int ptx_entry;
    int nptx_slots;
    const char **ptx_slots;
    const char *ptx_marker;
    const char *callee;     /* IR_OP_CALL_FUNC: the function's name */
    IrType *ptr_type;       /* a pointer-typed result (reinterpret to a typed pointer):
                               its PointerType, printed `T.handle("f16", "shared").ty`; NULL: dtype */
} IrCall;

/* A variable. Its identity is the pointer to its IrExpr (kind IR_E_VAR). */
typedef struct IrVar {
    const char *name;
    IrType *type;
} IrVar;

struct IrExpr {
    IrExprKind kind;
    IrDType dtype; /* of the value; IR_VOID for non-values (regions, lists, layouts) */
    TxSpan span;   /* where it was written; src NULL for synthesized nodes */
    union {
        int64_t int_val;     /* INT, PYBOOL, PYINT */
        double float_val;    /* FLOAT, PYFLOAT */
        const char *str;     /* STR, OP */
        IrVar var;           /* VAR */
        struct {             /* binary ops, NOT (a), SELECT (cond, a, b), CAST (a),
                                RAMP (a base, b stride), BROADCAST (a), LET (var, a, b) */
            IrExpr *a, *b, *cond, *var;
            int lanes;
        } op;
        IrCall call;         /* CALL */
        struct {             /* LOAD (indices), REGION (indices = mins, extents) */
            IrExpr *buffer;
            int n;
            IrExpr **indices, **extents;
            IrExpr *predicate;
        } access;
        struct {             /* LIST (n items), DICT (n kwargs) */
            int n;
            IrExpr **items;
            IrKwarg *kwargs;
        } list;
        struct {             /* LAMBDA: n parameter Vars and the body */
            int n;
            IrExpr **params;
            IrExpr *body;
        } lambda;
        IrLayout *layout;    /* LAYOUT */
        struct {             /* SHUFFLE: T.Shuffle([vectors], [indices]) */
            int nvectors, nindices;
            IrExpr **vectors, **indices;
        } shuffle;
    } u;
};

/* ---------------------------------------------------------------- statements */
typedef enum {
#define X(E, name, member) IR_S_##E,
#include "stmt.def"
#undef X
    IR_S_COUNT
} IrStmtKind;

typedef enum {
#define X(E, name) IR_SCOPE_##E,
#include "scope.def"
#undef X
    IR_SCOPE_COUNT
} IrScope;
extern const char *const ir_scope_names[IR_SCOPE_COUNT];

typedef enum {
#define X(E, name, parent, cur, maxdims) IR_SCOPEID_##E,
#include "scopeid.def"
#undef X
    IR_SCOPEID_COUNT
} IrScopeIdKind;
typedef struct IrScopeIdInfo {
    const char *name;
    IrScope parent, cur;
    int max_dims;
} IrScopeIdInfo;
extern const IrScopeIdInfo ir_scopeids[IR_SCOPEID_COUNT];

typedef enum {
#define X(E, name) IR_FOR_##E,
#include "forkind.def"
#undef X
    IR_FOR_COUNT
} IrForKind;
extern const char *const ir_for_names[IR_FOR_COUNT];

/* Tile primitives (tile_ops.def): what an IR_S_TILE statement calls. */
typedef enum {
#define X(E, name, family, arity, flags, params, ir) IR_TILE_##E,
#include "tile_ops.def"
#undef X
    IR_TILE_COUNT
} IrTileOp;

typedef enum {
    IR_TILE_FAMILY_ELEMENTWISE,
    IR_TILE_FAMILY_MOVE,
    IR_TILE_FAMILY_GEMM,
    IR_TILE_FAMILY_REDUCTION,
    IR_TILE_FAMILY_COMPOSED,
} IrTileFamily;

enum { IR_TILE_CONFIG = 1, IR_TILE_FRAME = 2 }; /* IrTileOpInfo.flags */

typedef struct IrTileOpInfo {
    const char *name;       /* "copy", "gemm_async", ... */
    IrTileFamily family;
    int arity;              /* the source operands one result is computed from */
    unsigned flags;
    const char *params;     /* the signature, as tile_ops.def describes it */
    const char *ir_order;   /* "": the parameter order */
} IrTileOpInfo;
extern const IrTileOpInfo ir_tile_ops[IR_TILE_COUNT];
/* Look up a tile primitive by name ("copy"); -1 if none. */
int ir_tile_op_lookup(const char *name);
/* The number of parameters of its signature. */
int ir_tile_op_nparams(IrTileOp op);

struct IrStmt {
    IrStmtKind kind;
    TxSpan span;
    union {
        struct { IrExpr *var, *value; } bind;               /* BIND */
        struct { IrExpr *buffer; int nannot; IrKwarg *annot; } alloc; /* ALLOC */
        struct { IrExpr *buffer, *data; } decl;             /* DECL: data NULL for tmem */
        struct {                                            /* SCOPEID */
            IrScopeIdKind kind;
            int nvars;
            IrExpr **vars;
            IrExpr **extents;   /* NULL: deferred (`T.cta_id()`) */
            int npreferred;
            IrExpr **preferred; /* preferred=[...] */
        } scopeid;
        struct {                                            /* FOR */
            IrExpr *var, *min, *extent, *step; /* step NULL: 1 */
            IrForKind kind;
            const char *thread;  /* THREAD_BINDING: "threadIdx.x" */
            int nannot;
            IrKwarg *annot;
            IrStmt *body;
        } loop;
        struct { IrExpr *cond; IrStmt *body; } whl;         /* WHILE */
        struct { IrExpr *cond; IrStmt *then_s, *else_s; } ifs; /* IF: else_s may be NULL */
        struct {                                            /* ATTR */
            IrExpr *node;
            const char *key;
            IrExpr *value;
            IrStmt *body;
            const char *thread_tag; /* thread_extent / virtual_thread: the IterVar's tag
                                       ("threadIdx.x"); NULL: the node variable's name */
        } attr;
        struct { int n; IrStmt **stmts; } seq;              /* SEQ */
        IrExpr *eval;                                       /* EVAL */
        struct {                                            /* STORE */
            IrExpr *buffer, *value, *predicate;
            int n;
            IrExpr **indices;
        } store;
        struct {                                            /* ASSERT */
            IrExpr *cond;
            const char *kind; /* "RuntimeError" */
            int nparts;
            const char **parts;
        } assert_;
        IrExpr *ret;                                        /* RETURN (may be NULL) */
        struct {                                            /* TILE */
            IrScope scope;     /* THREAD prints T.tile.<op> */
            IrTileOp op;
            int nargs, nworkspace, nconfig;
            IrExpr **args;
            IrKwarg *workspace; /* sorted by key */
            const char *dispatch; /* NULL when absent */
            IrKwarg *config;      /* sorted by key */
            IrStmt *body;         /* compose_op only */
        } tile;
    } u;
};

/* ---------------------------------------------------------------- functions */
typedef struct IrFunc {
    const char *name;
    TxSpan span;
    int nparams, nattrs;
    IrExpr **params;  /* Vars: scalars, pointers, buffers */
    IrType *ret_type; /* NULL: none */
    IrKwarg *attrs;   /* T.func_attr, sorted by key */
    bool is_private, is_persistent, is_s_tir;
    IrStmt *body;
} IrFunc;

typedef struct IrModule {
    TxArena arena;    /* owns every node, string and the source */
    TxDiags diags;
    const TxSource *source;
    const TxSource **imports; /* the .tirx files the source imported, as loaded */
    int nimports;
    bool is_ir_module; /* written as `@I.ir_module class Name:` */
    const char *class_name;
    int nfuncs, nattrs, nglobal_infos;
    IrFunc **funcs;
    IrKwarg *attrs;    /* I.module_attrs */
    IrKwarg *global_infos; /* I.module_global_infos: each a LIST of GLOBAL_INFO, sorted by key */
} IrModule;

IrModule *ir_module_new(void);
void ir_module_free(IrModule *m);

/* ---------------------------------------------------------------- constructors */
/* Every constructor allocates in the arena and never fails. */
IrType *ir_prim_type(TxArena *a, IrDType t);
IrType *ir_ptr_type(TxArena *a, IrDType elem, const char *scope);
IrType *ir_buffer_type(TxArena *a, IrDType elem, const char *scope, IrBufferType *buf);

IrExpr *ir_int(TxArena *a, IrDType t, int64_t v, TxSpan sp);
IrExpr *ir_i32(TxArena *a, int64_t v);
IrExpr *ir_float(TxArena *a, IrDType t, double v, TxSpan sp);
IrExpr *ir_str(TxArena *a, const char *s, TxSpan sp);
IrExpr *ir_var(TxArena *a, const char *name, IrType *type, TxSpan sp);
IrExpr *ir_binary(TxArena *a, IrExprKind k, IrExpr *x, IrExpr *y, TxSpan sp);
/* A node of kind k, allocated up to the end of the member of u its kind uses
 * (expr.def, stmt.def): a node's other members must not be touched, and a node
 * is copied with ir_expr_copy / ir_stmt_copy, never by assigning the struct. */
IrExpr *ir_node(TxArena *a, IrExprKind k, IrDType t, TxSpan sp); /* zeroed payload */
IrExpr *ir_expr_copy(TxArena *a, const IrExpr *e);
size_t ir_expr_size(IrExprKind k);
IrStmt *ir_stmt(TxArena *a, IrStmtKind k, TxSpan sp);              /* zeroed payload */
IrStmt *ir_stmt_copy(TxArena *a, const IrStmt *s);
/* A sequence of n statements; a single statement is returned as is. */
IrStmt *ir_seq(TxArena *a, IrStmt **stmts, int n, TxSpan sp);
/* Whether s is `T.evaluate(0)` (an integer zero of any dtype): a statement
 * that does nothing, dropped from a sequence of several statements. */
bool ir_stmt_is_no_op(const IrStmt *s);

/* The default layout of a shape: S[shape] row-major on axis m. */
IrLayout *ir_default_layout(TxArena *a, IrExpr **shape, int ndim);

static inline bool ir_is_buffer(const IrExpr *e)
{
    return e && e->kind == IR_E_VAR && e->u.var.type->kind == IR_TY_BUFFER;
}
static inline const IrBufferType *ir_buf(const IrExpr *buffer)
{
    return buffer->u.var.type->buf;
}

/* ---------------------------------------------------------------- targets */
/* The targets tirx generates code for, one table (target.c): the number of
 * an architecture name ("sm_80", "sm_90a", "sm_100a": 80, 90, 100; 0 for any
 * other), the most shared memory one block may use there (static and dynamic
 * together, with the opt-in; 0 for another name), and the name of a number. */
int ir_target_sm(const char *arch);
int64_t ir_target_smem_limit(const char *arch);
const char *ir_target_name(int sm);

#endif
