/* Private to the front end: the elaborator, which runs over the syntax tree
 * like a tiny Python interpreter whose values are IR pieces, and builds the
 * IR module. Values (ScVal) are Python-level objects (ints, strings, tuples,
 * namespaces such as `T.ptx`, dtypes, layout specs, loop and frame specs) or
 * IR expressions and buffers. Builtins (`T.*`) are looked up by name in
 * builtins.def and emit statements into the current block; flat frame
 * statements (T.attr, T.launch_thread, ...) capture the rest of their block.
 * Compile-time constants and macros are elaborated here too. */
#ifndef TX_SCRIPT_ELAB_H
#define TX_SCRIPT_ELAB_H

#include <string.h>

#include "../ir/ir.h"
#include "parse_internal.h"
#include "script.h"

typedef enum {
    SV_ERROR,   /* an error was already reported */
    SV_NONE,
    SV_BOOL,    /* u.b */
    SV_INT,     /* u.i; 'big' marks a literal above INT64_MAX (bit pattern in u.i) */
    SV_FLOAT,   /* u.f */
    SV_STR,     /* u.str */
    SV_EXPR,    /* u.e: a PrimExpr or pointer expression */
    SV_BUFFER,  /* u.e: a variable of buffer type; 'decay' marks a scalar read by name */
    SV_REGION,  /* u.e: an IR_E_REGION */
    SV_TUPLE,   /* u.seq */
    SV_LIST,    /* u.seq */
    SV_DICT,    /* u.dict */
    SV_DTYPE,   /* u.dt: `T.float16` */
    SV_TYPE,    /* u.ty: a pointer or tensor-map type (`T.handle("f16", "shared").ty`) */
    SV_LET,     /* u.ty: `T.let` (NULL) or `T.let[ty]` */
    SV_LOCALBUF,/* u.localbuf: `T.f32[8]` in an annotation */
    SV_NS,      /* u.path: a namespace or builtin path ("T", "T.ptx.ld.global_", "Axis") */
    SV_METHOD,  /* u.method: a bound method of a buffer, a pool or a layout */
    SV_LAYOUT,  /* u.layout */
    SV_SPEC,    /* u.spec: a layout under construction (T.S[...] + T.R[...] + offset) */
    SV_ONAXIS,  /* u.onaxis: `value @ Axis.name` */
    SV_AXIS,    /* u.path: an axis name */
    SV_FUNC,    /* u.def: a function of the module (callable as Module.f) */
    SV_MACRO,   /* u.macro: a @T.macro */
    SV_LAMBDA,  /* u.lambda: a lambda, elaborated by its use (el_lambda) */
    SV_SLICE,   /* u.slice: only inside a subscript */
    SV_LOOP,    /* u.loop: range(...), T.serial(...), T.grid(...) */
    SV_FRAME,   /* u.frame: T.attr(...), T.launch_thread(...), T.hint(...), ... */
    SV_PTXPRED, /* u.tagged: T.ptx.pred(x), an operand that is a .pred register */
    SV_INDEXER, /* u.method: A.tile(...) / A.chunk(...) awaiting its subscript; recv[0] is
                   the buffer, recv[1] a tuple of the call's arguments */
    SV_POOL,    /* u.pool: a T.SMEMPool() or T.TMEMPool(...) (elab_pool.c) */
    SV_OBJECT,  /* u.e: T.Range, T.index_map or T.comm_reducer (an attribute value) */
    SV_LANG,    /* u.lang: a helper of tvm.tirx.lang (MBarrier, Pipeline, WarpRole, ...) */
    SV_COUNT
} ScValKind;

typedef struct ScVal ScVal;
typedef struct ScLayoutSpec ScLayoutSpec;
typedef struct ScLoop ScLoop;
typedef struct ScFrame ScFrame;
typedef struct ScPool ScPool;
typedef struct ScLang ScLang;

struct ScVal {
    ScValKind kind;
    bool fresh; /* EXPR var / BUFFER / TUPLE of vars just created: an assignment names it */
    bool decay; /* BUFFER: a scalar buffer read by its bare name */
    bool big;   /* INT */
    TxSpan span;
    union {
        bool b;
        int64_t i;
        double f;
        struct {
            const char *s;
            uint32_t n;
        } str;
        IrExpr *e;
        struct {
            ScVal *items;
            int n;
        } seq;
        struct {
            ScVal *keys, *vals;
            int n;
        } dict;
        IrDType dt;
        IrType *ty;
        struct {
            IrDType dt;
            ScVal *dims;
            int n;
        } localbuf;
        const char *path;
        struct {
            ScVal *recv;
            const char *name;
        } method;
        IrLayout *layout;
        ScLayoutSpec *spec;
        struct {
            ScVal *value;
            const char *axis;
        } onaxis;
        Ast *def;
        struct {
            Ast *def;
            struct ScScope *home; /* the module scope of its file: its free names */
        } macro;
        struct {
            ScVal *lo, *hi, *step; /* NULL when omitted */
        } slice;
        ScLoop *loop;
        ScFrame *frame;
        ScVal *tagged;
        ScPool *pool;
        ScLang *lang;
        struct {
            const Ast *ast;
            struct ScScope *scope; /* where it was written: its free names */
        } lambda;
    } u;
};

/* A layout being built by `T.S[...] + T.R[...] + offsets`. */
struct ScLayoutSpec {
    bool has_shard, has_replica;
    int nshard, nreplica, noffset;
    IrIter *shard, *replica;
    IrAxisOffset *offset;
    TxSpan shard_span, replica_span; /* of the T.S[...] / T.R[...] */
};

/* One loop of a `for` header; T.grid gives several. */
typedef struct ScLoopDim {
    IrExpr *min, *extent, *step; /* step NULL: 1 */
    IrDType dtype;
} ScLoopDim;
struct ScLoop {
    IrForKind kind;
    const char *thread;
    int ndims;
    ScLoopDim *dims;
    int nannot;
    IrKwarg *annot;
};

/* A statement with a body, opened by a frame call: the body goes to *body. */
struct ScFrame {
    IrStmt *stmt;
    IrStmt **body;
    IrExpr *var; /* T.launch_thread: the thread variable (for `as` / assignment) */
    bool var_fresh;
    IrStmt *prologue; /* a statement the body starts with (a warp role's setmaxnreg), or NULL */
};

/* ---- names ---- */
typedef enum {
    BIND_PLAIN,
    BIND_LET,      /* a variable bound by Bind (`x: T.let = e`, pointers): immutable */
    BIND_SIGVAR,   /* created by a quoted name in a signature shape */
    BIND_PARAM,    /* a function parameter: immutable */
    BIND_CONST,    /* a module-level compile-time constant: immutable in functions */
} ScBindKind;

typedef struct ScBinding ScBinding;
struct ScBinding {
    ScBinding *next;
    const char *name;
    uint32_t hash; /* of name: lookups compare it before the string */
    ScVal val;
    ScBindKind kind;
    TxSpan def_span; /* where the name was defined */
};

typedef struct ScScope ScScope;
struct ScScope {
    ScScope *parent;
    bool module; /* the module-level names of a file (no parent) */
    ScBinding *head;
    /* Past SC_SCOPE_INDEX_MIN bindings, an open-addressing index of them by
     * hash (capacity a power of two, at most half full), so a function or a
     * module with many names is not scanned linearly. */
    ScBinding **index;
    uint32_t nbindings, index_cap;
};

/* ---- statements ---- */
typedef struct ScStmtList {
    IrStmt **items;
    int n, cap;
} ScStmtList;

typedef struct ScOpenFrame {
    IrStmt *stmt;
    IrStmt **body;
    ScStmtList outer;
} ScOpenFrame;

/* A function of the module, known before the bodies are elaborated. */
typedef struct ScFuncDecl {
    const char *name;
    Ast *def;
    IrFunc *func;
} ScFuncDecl;

typedef struct ScMacroCall {
    const Ast *def;
    TxSpan call_span;
} ScMacroCall;

/* A .tirx file loaded by an import (import.c), once per module compiled. */
typedef struct ScImportFile {
    const char *id;        /* its real path: the same file under two names is one */
    const TxSource *src;
    ScScope *global;       /* its module-level names */
    bool loading;          /* being elaborated: importing it again closes a cycle */
    bool failed;           /* it had errors (reported): what it exports is not bound */
} ScImportFile;

/* The import statements that are loading the file being elaborated, innermost first. */
typedef struct ScImportSite {
    const struct ScImportSite *parent;
    TxSpan span;           /* the module name in the import statement */
    const char *module;    /* as written, without leading dots */
    const char *file_id;   /* the file it loads */
} ScImportSite;

typedef struct ScImports {
    const char *const *dirs; /* searched after the importing file's directory */
    size_t ndirs;
    ScImportFile **files; /* each allocated once: loading one may add others */
    int nfiles, capfiles;
} ScImports;

typedef struct ScThreadTag {
    const IrExpr *var;
    const char *tag;
} ScThreadTag;

/* A mutable scalar declared with a value: its declaring store (elab_scalar.c). */
typedef struct ScScalarInit {
    const IrExpr *buf;
    const IrStmt *store;
} ScScalarInit;

/* A check that read a scalar's declared value: its diagnostic had it failed. */
typedef struct ScScalarProof {
    const IrExpr *buf;
    const char *err;
    TxSpan span;
} ScScalarProof;

/* The most distinct scalar types el_prim_type shares; more are made afresh. */
#define SC_PRIM_TYPES 16

typedef struct El {
    IrModule *m;
    TxArena *a;
    TxArena *tree; /* the module-level functions' part of the syntax tree (sc_parse_tokens) */
    TxDiags *d;
    const TxSource *src;
    ScScope *global; /* constants, macros, functions, the module class name */
    ScScope *scope;  /* innermost */
    /* statements */
    ScStmtList cur;
    ScOpenFrame *frames;
    int nframes, capframes;
    /* module */
    ScFuncDecl *funcs;
    int nfuncs, capfuncs;
    ScScope func_names; /* each function's name bound to its SV_FUNC value */
    const char *class_name;
    bool module_started; /* a function was seen: later `NAME = ...` lines are errors */
    const char **typevars; /* `M = TypeVar("M")`: an int64 shape variable of each function */
    int ntypevars;
    /* function */
    IrFunc *func;
    const Ast *ret_none; /* the `None` of a function declared `-> None`, else NULL */
    bool s_tir;
    bool in_signature; /* quoted names in T.Buffer shapes define new vars */
    bool quoted;       /* evaluating a quoted shape expression: unbound names define vars */
    const AstParam *sig_params;
    int nsig_params;
    AstList sig_body; /* the body whose `n = T.<dtype>()` lines type quoted shape names */
    IrExpr **params;
    int nparams;
    /* macros */
    ScMacroCall *macro_stack;
    int nmacro, capmacro;
    int64_t macro_stmts; /* statements elaborated inside macro expansions */
    bool macro_over;     /* macro_stmts passed SC_MAX_MACRO_STMTS (reported once) */
    bool errors_over;    /* SC_MAX_ERRORS reached: no statement is elaborated after it */
    uint64_t built_bytes; /* built by '+' on constant strings, tuples and lists (bounded) */
    ScVal macro_ret;
    bool returned;
    /* the number of assignment targets of the statement being elaborated (for
     * deferred scope ids `bx, by = T.cta_id()`), 0 when not an assignment */
    int ntargets;
    /* the call written as an expression statement being elaborated (a tile primitive whose
     * name is also a scalar function is the primitive only there), NULL otherwise */
    const Ast *stmt_call;
    ScThreadTag *tags;
    int ntags, captags;
    /* the function's mutable scalars declared with a value, the checks that read them */
    ScScalarInit *scalar_inits;
    int nscalar_inits, capscalar_inits;
    ScScalarProof *scalar_proofs;
    int nscalar_proofs, capscalar_proofs;
    /* the scalar types made so far, shared by the variables of each dtype */
    IrType *prim_types[SC_PRIM_TYPES];
    int nprim_types;
    int depth;
    const ScDefine *defines;
    size_t ndefines;
    bool *define_used;
    /* imports of .tirx files (import.c) */
    ScImports *imports;
    const ScImportSite *site; /* NULL in the file being compiled */
} El;

/* ---- elab.c: scopes, statements, module ---- */
ScVal *el_lookup(El *E, const char *name, ScBinding **binding);
ScBinding *el_bind(El *E, const char *name, ScVal v, ScBindKind kind, TxSpan def);
/* el_bind into scope s; the binding of `name` in s itself (not its parents), or NULL. */
ScBinding *el_scope_bind(El *E, ScScope *s, const char *name, ScVal v, ScBindKind kind,
                         TxSpan def);
ScBinding *el_scope_find(const ScScope *s, const char *name);
void el_emit(El *E, IrStmt *s);
/* Open a flat frame: the rest of the current block becomes its body. */
void el_open_frame(El *E, IrStmt *stmt, IrStmt **body);
void el_set_thread_tag(El *E, const IrExpr *var, const char *tag);
const char *el_thread_tag(El *E, const IrExpr *var);
/* The type of a scalar of dtype t, one shared node per dtype (types are
 * immutable; a function of 40,000 `T.let` names needs one). */
IrType *el_prim_type(El *E, IrDType t);
/* Elaborate a block's statements into the current list, in a new name scope;
 * flat frames opened inside close at its end. */
void el_block_inline(El *E, AstList body);
/* Elaborate a block into one statement (Evaluate(0) when empty). */
IrStmt *el_block(El *E, AstList body);
/* Statements emitted between el_block_begin and el_block_end (which restores
 * the enclosing list) as one statement: blocks that sugar builds itself. */
ScStmtList el_block_begin(El *E);
IrStmt *el_block_end(El *E, ScStmtList outer, TxSpan sp);

/* A loop nest of L over vars around body (one For per dimension). */
IrStmt *el_loop_nest(El *E, const ScLoop *L, IrExpr **vars, IrStmt *body, TxSpan sp);

/* ---- parse.c: functions and the module ---- */
/* The module-level statements of a file: imports, constants, asserts, macros
 * and (in the file being compiled, E->site NULL) functions. False when a
 * module-level assert fails: the rest of the file is not elaborated. */
bool el_module_level(El *E, AstList top);
/* The dtype of a scalar parameter named 'name' of the current signature. */
bool el_sig_scalar_dtype(El *E, const char *name, IrDType *out);

/* ---- elab_expr.c: evaluation ---- */
ScVal el_eval(El *E, const Ast *x);
/* Evaluate for use as a value: scalar buffers read by name become loads. */
ScVal el_eval_value(El *E, const Ast *x);
ScVal sv_error(void);
ScVal sv_none(TxSpan sp);
ScVal sv_int(int64_t v, TxSpan sp);
ScVal sv_bool(bool b, TxSpan sp);
ScVal sv_str(El *E, const char *s, TxSpan sp);
ScVal sv_expr(IrExpr *e, TxSpan sp);
ScVal sv_ns(const char *path, TxSpan sp);
bool sv_is_python(const ScVal *v); /* None, bool, int, float, str, tuple/list of those */
const char *sv_kind_name(const ScVal *v);
/* Python truthiness of a compile-time value; false when not a Python value. */
bool sv_truth(const ScVal *v, bool *out);
/* Convert a value to a PrimExpr (ints -> int32/int64, floats -> float32, bools ->
 * bool, scalar buffers -> loads). Reports an error naming 'what' and returns NULL. */
IrExpr *el_prim(El *E, const ScVal *v, const char *what);
/* A PrimExpr of a given dtype: Python literals become constants of that dtype. */
IrExpr *el_prim_as(El *E, const ScVal *v, IrDType t, const char *what);
/* A value as it is stored in attributes and tile-primitive arguments: Python
 * scalars stay Python (PYINT/PYBOOL/NONE/STR), floats become float32, lists
 * become LIST, dicts DICT, whole buffers full regions. */
IrExpr *el_pod(El *E, const ScVal *v, const char *what);
bool el_int_const(El *E, const ScVal *v, int64_t *out, const char *what);
const char *el_str_const(El *E, const ScVal *v, const char *what);
bool el_dtype_of(El *E, const ScVal *v, IrDType *out, const char *what);
IrExpr *el_load(El *E, IrExpr *buffer, IrExpr **indices, int n, TxSpan sp);
IrExpr *el_region(El *E, IrExpr *buffer, IrExpr **mins, IrExpr **extents, int n, TxSpan sp);
IrExpr *el_full_region(El *E, IrExpr *buffer, TxSpan sp);
/* The IrType of a pointer-valued expression, or NULL. */
IrType *el_pointer_type(El *E, const IrExpr *e);
/* A call node of a builtin op with the given result dtype. */
IrExpr *el_call_node(El *E, IrOp op, IrDType t, IrExpr **args, int n, TxSpan sp);
ScVal el_binop(El *E, int op, ScVal a, ScVal b, TxSpan sp);
/* a <op> b for a comparison token (SC_TK_LESS, SC_TK_EQEQUAL, ...): Python values compare in
 * Python, anything else builds the PrimExpr comparison. */
ScVal el_compare(El *E, int op, ScVal a, ScVal b, TxSpan sp);
/* a and b, a or b (op SC_TK_AND, SC_TK_OR) of two expressions: an And/Or node. */
ScVal el_logical(El *E, int op, ScVal a, ScVal b, TxSpan sp);
/* recv.name as a bound method (SV_METHOD) when name is one of methods[];
 * otherwise an error "<what> has no attribute 'name'" with a suggestion. */
ScVal el_method_attr(El *E, ScVal recv, const char *const *methods, int n, const char *name,
                     TxSpan sp, const char *what);
/* Evaluate a quoted shape expression ("n * 2") of a signature, defining its unbound names. */
ScVal el_eval_quoted(El *E, const ScVal *str);
/* Call a callable value (builtin path, dtype, method, macro, function). */
ScVal el_call(El *E, ScVal fn, const Ast *call);

/* ---- builtin calls ---- */
typedef struct ScArgs {
    const Ast *call;
    TxSpan span;
    const char *fname; /* "T.alloc_buffer" for messages */
    int npos, nkw;
    ScVal *pos;
    ScVal *kw;
    const char **kwnames;
    TxSpan *kwspans;
} ScArgs;

/* Bind arguments to a Python-style parameter list such as
 * "shape, dtype=, *, scope=, align=" ('=' optional, '*' keyword-only after it,
 * "*args" collects the rest of the positionals, "**kw" the other keywords).
 * out[i] is SV_ERROR-free: a missing optional is kind SV_COUNT. Extra
 * positionals/keywords go to *rest / *rest_kw when the list allows them. */
#define SC_MAX_PARAMS 20 /* parameters of one builtin's list */
typedef struct ScBound {
    ScVal v[SC_MAX_PARAMS];
    int nrest;
    ScVal *rest;
    int nrest_kw;
    int *rest_kw; /* indices into args->kw */
} ScBound;
bool el_bind_args(El *E, const ScArgs *args, const char *params, ScBound *out);
static inline bool sv_given(const ScVal *v) { return v->kind != SV_COUNT; }
/* memcpy that allows an empty (possibly NULL) source. */
static inline void el_copy(void *dst, const void *src, size_t n)
{
    if (n)
        memcpy(dst, src, n);
}

typedef ScVal (*ScBuiltinFn)(El *E, ScArgs *args);
#define X(name, fn) ScVal fn(El *E, ScArgs *args);
#include "builtins.def"
#undef X
/* The builtin named by a path after `T.` ("alloc_shared", "cuda.cta_sync"), or NULL. */
ScBuiltinFn el_builtin(const char *name);
/* Builtin names, for near-match suggestions. */
int el_builtin_names(const char **out, int max);

/* ---- elab_buffer.c ---- */
/* A new buffer variable named "buffer" (the assignment renames it). */
IrExpr *el_new_buffer(El *E, IrDType dt, IrExpr **shape, int ndim, const char *scope,
                      TxSpan sp);
bool el_buffer_is_scalar(const IrExpr *buffer, bool for_alloc);
ScVal el_buffer_attr(El *E, ScVal obj, const char *name, TxSpan sp);
ScVal el_buffer_method(El *E, ScVal recv, const char *name, ScArgs *args);
ScVal el_subscript_buffer(El *E, ScVal buf, const Ast *index, TxSpan sp);
/* The items of a subscript: indices and slices (starred tuples expanded). */
typedef struct ScSliceParts {
    ScVal lo, hi, step; /* kind SV_COUNT when omitted */
} ScSliceParts;
typedef struct ScIndexItem {
    ScVal v;
    ScSliceParts *slice; /* NULL for an index: slices are rare, so out of line */
    TxSpan span;
} ScIndexItem;
/* The items go to `local` when its nlocal hold them (a caller's array on the
 * stack: the items are dead once the subscript's expression is built, and a
 * large function has one subscript a line), else to the arena. */
bool el_index_items(El *E, const Ast *index, ScIndexItem *local, int nlocal, ScIndexItem **out,
                    int *n);
/* Enough items on the stack for most subscripts. */
#define SC_LOCAL_INDEX_ITEMS 4
/* An integer index expression. */
IrExpr *el_index_expr(El *E, const ScVal *v);
bool el_store(El *E, IrExpr *buffer, IrExpr **indices, int n, const ScVal *value,
              IrExpr *predicate, TxSpan sp);
/* The indices of a subscript (slices become Ramps). */
bool el_store_indices(El *E, IrExpr *buffer, const Ast *index, IrExpr ***out, int *n);

/* ---- elab_view.c: buffer views ---- */
bool el_is_view_method(const char *name);
/* A.view / permute / local / rearrange / unflatten / flatten / select /
 * narrow, and A.tile(...) / A.chunk(...) (which return an SV_INDEXER). */
ScVal el_view_method(El *E, IrExpr *buf, const char *name, ScArgs *args);
/* The subscript of A.sub (an SV_METHOD) or of an SV_INDEXER. */
ScVal el_view_subscript(El *E, ScVal obj, const Ast *index, TxSpan sp);
/* A layout is well formed (known axes, swizzle parameters, thread scopes). */
bool el_check_layout(El *E, const IrLayout *l, TxSpan sp);
/* A declared buffer's layout admits its shape; a swizzled buffer over given
 * data starts at a whole swizzle period. */
bool el_check_buffer_layout(El *E, const IrExpr *buf, bool has_data, TxSpan sp);

/* ---- elab_scalar.c: shape proofs through mutable scalars stored once ---- */
/* `n: T.int32 = e` declared scalar buf with this store. */
void el_scalar_declared(El *E, IrExpr *buf, IrStmt *store);
/* Whether l admits the shape when the loads of scalars declared with a pure
 * value read that value; if so the proof is kept (err, at sp, is its
 * diagnostic) until el_scalar_proofs_check. */
bool el_admits_by_scalars(El *E, const IrLayout *l, IrExpr *const *shape, int ndim,
                          const char *err, TxSpan sp);
/* At the end of function f: each kept proof whose scalar is stored again,
 * or whose data, region or address is taken, reports its diagnostic. */
void el_scalar_proofs_check(El *E, const IrFunc *f);

/* ---- elab_pool.c: T.SMEMPool(), T.TMEMPool(...) ---- */
ScVal el_pool_attr(El *E, ScVal pool, const char *name, TxSpan sp);
ScVal el_pool_method(El *E, ScVal pool, const char *name, ScArgs *args);
/* An assignment `name = <pool>` names the pool's buffers (name_buf, name__addr_buf). */
void el_pool_named(El *E, ScPool *p, const char *name);
const char *el_pool_kind_name(const ScPool *p);

/* ---- elab_lang.c, elab_pipeline.c, elab_sched.c: the helpers of tvm.tirx.lang ---- */
/* `from tvm.tirx.lang.<module> import ...` (or tvm.backend.cuda.lang[.<module>]): binds the
 * helper names; false when the module is not one of them. */
bool el_lang_import(El *E, const Ast *s);
/* The hint for an unbound name that is a helper ("; import it: from ..."), or "". */
const char *el_lang_hint(El *E, const char *name);
/* A call of a helper class or function bound by el_lang_import (path "lang.<Name>"). */
ScVal el_lang_call(El *E, const char *path, ScArgs *args);
ScVal el_lang_attr(El *E, ScVal obj, const char *name, TxSpan sp);
ScVal el_lang_method(El *E, ScVal obj, const char *name, ScArgs *args);
/* `x = <helper>` names the helper's state after x, as the reference does. */
void el_lang_named(El *E, ScLang *h, const char *name);
const char *el_lang_kind_name(const ScLang *h);
/* `with <warp role>:` — the If frame of the role; NULL (after an error) for other helpers. */
ScFrame *el_lang_frame(El *E, const ScVal *v);

/* ---- elab_layout.c ---- */
ScVal el_layout_subscript(El *E, const char *which, const Ast *index, TxSpan sp);
ScVal el_layout_binop(El *E, int op, ScVal a, ScVal b, TxSpan sp);
bool el_is_layout_piece(const ScVal *v);
ScVal el_axis(El *E, const char *name, TxSpan sp);
IrLayout *el_layout_of(El *E, const ScVal *v, const char *what);
/* layout.pack(n), .unpack(n), .storage(), .canonicalize(), .slice(shape, region),
 * .tile(outer, outer_shape, inner_shape), .tile_to(to, cur),
 * .direct_sum(left, left_shape, right_shape), .broadcast(n, position, axis). */
ScVal el_layout_attr(El *E, ScVal layout, const char *name, TxSpan sp);
ScVal el_layout_method(El *E, ScVal layout, const char *name, ScArgs *args);
/* `from tvm.tirx.layout import ...`: binds the layout module's names (axes,
 * S, R, TileLayout, ..., the factories); other modules and names are ignored. */
void el_import(El *E, const Ast *s);

/* ---- import.c: imports of .tirx files ---- */
/* Whether `from NAME import ...` names a .tirx file: any module but tvm's,
 * typing and __future__ (whose imports el_import reads or ignores). */
bool el_is_file_import(const Ast *s);
/* `from NAME import a, b as c` at module level: loads and elaborates the
 * file NAME names (once per module) and binds the macros and constants named. */
void el_import_file(El *E, const Ast *s);
/* Notes "in module 'x' imported here" for the imports loading E's file. */
void el_import_notes(El *E);

/* ---- elab_call.c: ops ---- */
/* T.<path>(...) where path is not a builtin: an op of op.def, a tile primitive
 * (`cta.copy`) or a PTX instruction. */
ScVal el_call_path(El *E, const char *path, ScArgs *args);
/* The pointer type a written result dtype names (`T.handle("float16", "shared").ty`),
 * NULL for a dtype or the plain handle (`T.handle().ty`). */
IrType *el_result_ptr_type(const ScVal *v);
/* I.dummy_global_info() / I.vdevice(target, vdevice_id=0, memory_scope="global"):
 * an item of I.module_global_infos. */
ScVal el_global_info(El *E, ScArgs *args);
/* The IR_E_LAMBDA of an SV_LAMBDA: its parameters of dtype `all`, or
 * each[i] when `each` is given (then it must take neach parameters); a tuple
 * or list body becomes an IR_E_LIST when `tuple`, else the body is a
 * PrimExpr. NULL after an error. */
IrExpr *el_lambda(El *E, const ScVal *v, IrDType all, const IrDType *each, int neach,
                  bool tuple, const char *what);

/* ---- elab_tile.c: tile primitives ---- */
/* Whether `T.<name>(...)`, a name that is both a scalar function and a tile primitive (exp,
 * max, cast, ...), is the tile primitive: written as a statement whose first argument is a
 * buffer or a region (and, for cast, whose second is not a dtype). */
/* The arguments (instr_shape, (rows, cols), dtype) of T.tcgen05_atom_layout and
 * T.alloc_tcgen05_ldst_frag, and the fragment's layout; NULL after an error.
 * Messages name tcgen05_atom_layout, and the call when name_call is set. */
IrLayout *el_tcgen05_atom(El *E, ScArgs *args, bool name_call, int64_t *rows, int64_t *cols,
                          IrDType *dt);
bool el_tile_overload(El *E, const char *name, const ScArgs *args);
/* A tile-primitive call `T.<op>(...)` / `T.<scope>.<op>(...)` (path follows "T."); false
 * when path names no tile primitive. Misspelt ops and scopes are reported here. */
bool el_tile_call(El *E, const char *path, ScArgs *args, ScVal *out);
/* I.Op("tirx.tile.<name>"): an op value, an argument of the composed tile primitives. */
ScVal el_op_value(El *E, ScArgs *args);

/* ---- elab_ptx.c ---- */
/* T.ptx.<family>.<modifiers>(...), T.ptx["a.b.c"](...) and the printed
 * T.ptx.<family>(operands..., "slot", ..., "marker"); path follows "T.". */
ScVal el_call_ptx(El *E, const char *path, ScArgs *args);

/* ---- diagnostics ---- */
void el_error(El *E, TxCode code, TxSpan sp, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void el_note(El *E, TxSpan sp, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The code of an arithmetic construction's error: a value error (an
 * overflow, a zero divisor) or a type error. */
TxCode el_arith_error_code(const char *err);
/* The candidate to suggest for a misspelt name, or NULL. */
const char *el_nearest(const char *name, const char *const *cands, int n);
/* "... ; did you mean 'x'?" suffix, or "" */
const char *el_suggest(El *E, const char *name, const char *const *cands, int n);

#endif
