/* TilePrimitiveDispatch: replace every tile-primitive call by the lowering
 * of the first registered variant that accepts it (src/op, variants.def).
 *
 * The pass walks each function in order and gives every call what its
 * variants need to know about the executing threads: from the scope-id
 * definitions seen so far (T.thread_id, T.warp_id, T.lane_id, ...), the
 * running thread's coordinate on every thread axis, derived when the kernel
 * names it another way (a lane from a thread id, a thread id from a warp and
 * a lane), and the CTA's thread count; and from the enclosing `if`s, whether
 * some threads of the call's scope are left out (a condition on a value that
 * varies inside the scope: `if lane == 0` narrows a warp, `if warp == 0` a
 * CTA but not a warp, `if tx < 64` a warpgroup but not a warp; see
 * "variation levels"; the conditions on one warp or thread index count
 * together, see "conditions on one index"). Scope ids themselves stay: LowerTIRxOpaque binds them
 * to the launch geometry. A compose_op is replaced by its lowered body.
 * Host statements a variant asks for (TMA tensor-map encodes) go first in the
 * device region, where SplitHostDevice finds and hoists them; for those, the
 * walk also records the views declared so far (their data expression, to
 * find a view's storage root) and the variables the device region defines
 * (which have no value on the host). Statements a variant asks to place
 * after a buffer's definition (a shared-memory descriptor encoded once)
 * follow that definition, in its sequence. */
#include <string.h>

#include "../op/op.h"
#include "../arith/arith.h"
#include "pass.h"
#include "internal.h"
#include "../ir/visit.h"

typedef struct ScopeIds {
    const IrStmt *def[IR_SCOPEID_COUNT]; /* the latest definition of each kind */
    /* threadIdx.{x,y,z} of launch_thread attrs, for kernels already written
     * in the launched form (no scope ids) */
    IrExpr *launch_var[3], *launch_ext[3];
} ScopeIds;

/* A branch of an `if` whose condition is fixed for each thread (see "roles"). */
typedef struct Role {
    int parent, depth;
    const IrStmt *branch_of; /* the `if` (NULL for the root) */
    bool is_else;
    IrPtrMap stored; /* local buffer -> the finest level its stores here vary at */
} Role;

/* An enclosing condition that reads one warp or thread index (see "conditions
 * on one index"); negated: the else branch. */
typedef struct IndexCond {
    const IrExpr *cond, *var;
    bool negated;
} IndexCond;

typedef struct Dispatch {
    IrMutator mut;
    IrModule *module;
    const IrFunc *func;  /* the function being dispatched */
    int sm;
    ScopeIds ids;
    IrPtrMap level;      /* var -> the finest IrScope at which its value varies */
    IrPtrMap fixed;      /* var -> 1 when each thread sees one value of it (see "roles") */
    /* local buffer -> IR_SCOPE_WORLD while its stores are tracked (see "local
     * registers"; their levels are kept per role), IR_SCOPE_THREAD once it
     * escapes; a buffer not in the map may hold anything per thread */
    IrPtrMap contents;
    TX_VEC(Role) roles;  /* [0] is every thread */
    int role;            /* the role of the statements being walked */
    IrPtrMap alias;      /* a view of a local buffer -> that buffer (one contents) */
    /* a let's variable or a local buffer -> the power of two its values are
     * multiples of (OpCtx.pow2; a local's from all its stores, 1 once it escapes) */
    IrPtrMap pow2;
    /* a local buffer -> the value of its one store (a scalar written once),
     * or 1 when it has several; a let's variable -> its value (OpCtx.stores) */
    IrPtrMap stores;
    bool analyzing;      /* a walk that only records levels */
    bool grew;           /* the walk raised a buffer's level */
    int narrow;          /* the finest level an enclosing condition varies at */
    int narrow_other;    /* the same, of the conditions not on one index (IndexCond) */
    TX_VEC(IndexCond) conds; /* the enclosing conditions on one index, outermost first */
    IrPtrMap extent;     /* a warp or thread index scope id -> its constant extent */
    OpStmts host_init;
    OpStmts launch_checks; /* asserts on the params, first in the function */
    OpMemos memo;
    OpPostDefs post_def;
    IrPtrMap decl_data;   /* view buffer -> the data expression of its T.decl_buffer */
    IrPtrMap device_vars; /* variables defined inside the device region */
    bool in_device;       /* the walk has entered the device region */
    bool failed;
} Dispatch;

/* ---------------------------------------------------------------- variation levels */

/* Where a value varies: the finest IrScope at which it may differ between
 * threads, and whether it is an *index* at that level, a coordinate that
 * counts the level's units in order (a thread index, a warp index, ...), so
 * that dividing it by a multiple of the next coarser unit's size gives an
 * index at that coarser level: tx // 32 is warp-uniform, warp // 4 and
 * tx < 256 are warpgroup-uniform. A condition that varies only at or above a
 * primitive's scope is uniform over it. */
typedef struct Level {
    int level; /* IrScope */
    bool index;
} Level;

#define LEVEL_INDEX 0x100 /* packed into the level map beside the scope */
/* The largest index whose conditions are evaluated value by value (see
 * "conditions on one index"). */
enum { MAX_INDEX_EXTENT = 1024 };

static Level varies(int level) { return (Level){level, false}; }

static IrScope scopeid_level(IrScopeIdKind k) { return ir_scopeids[k].cur; }

static void record_level(Dispatch *d, const IrExpr *var, Level l)
{
    ir_ptrmap_put(&d->level, var, (uintptr_t)l.level | (l.index ? LEVEL_INDEX : 0));
}

/* An index at `x.level` divided by c > 0 (or compared with c): an index at a
 * coarser level when c is a multiple of that level's size in x's units. */
static Level divided(Level x, int64_t c)
{
    if (!x.index || c <= 0)
        return varies(x.level);
    if (x.level == IR_SCOPE_THREAD && c % 128 == 0)
        return (Level){IR_SCOPE_WARPGROUP, true};
    if (x.level == IR_SCOPE_THREAD && c % 32 == 0)
        return (Level){IR_SCOPE_WARP, true};
    if (x.level == IR_SCOPE_WARP && c % 4 == 0)
        return (Level){IR_SCOPE_WARPGROUP, true};
    return x.level <= IR_SCOPE_CTA ? x : varies(x.level);
}

static Level level_of(Dispatch *d, const IrExpr *e);

/* The special registers that hold one value per CTA (T.cuda.mov_sreg); a
 * name ending in '.' stands for its .x/.y/.z. The others (%laneid, %tid.x,
 * %warpid, %clock, %lanemask_lt, ...) vary per thread. */
static const char *const cta_sregs[] = {
    "%ctaid.", "%nctaid.", "%ntid.", "%clusterid.", "%nclusterid.", "%cluster_ctaid.",
    "%cluster_nctaid.", "%cluster_ctarank", "%cluster_nctarank", "%is_explicit_cluster",
    "%smid", "%nsmid", "%nwarpid", "%gridid", "%total_smem_size", "%dynamic_smem_size",
    "%aggr_smem_size",
};

static bool cta_sreg(const IrExpr *name)
{
    if (name->kind != IR_E_STR)
        return false;
    for (size_t i = 0; i < sizeof cta_sregs / sizeof *cta_sregs; i++) {
        size_t n = strlen(cta_sregs[i]);
        if (cta_sregs[i][n - 1] == '.' ? !strncmp(name->u.str, cta_sregs[i], n) &&
                                             name->u.str[n] && !name->u.str[n + 1]
                                       : !strcmp(name->u.str, cta_sregs[i]))
            return true;
    }
    return false;
}

/* A call whose result may differ between threads that pass it the same
 * arguments: an election, a PTX instruction, an atomic's old value, a clock,
 * a per-thread special register, a function whose body is not seen. */
static bool per_thread_call(const IrExpr *e)
{
    if (e->kind != IR_E_CALL)
        return false;
    switch (e->u.call.op) {
    case IR_OP_CUDA_ELECT_SYNC: case IR_OP_PTX: case IR_OP_CUDA_ACTIVEMASK:
    case IR_OP_CUDA_ATOMIC_ADD: case IR_OP_CUDA_ATOMIC_CAS: case IR_OP_CUDA_CLOCK64:
    case IR_OP_CUDA_THREAD_RANK: case IR_OP_CUDA_FUNC_CALL: case IR_OP_CALL_FUNC:
    case IR_OP_CALL_LLVM_INTRIN: case IR_OP_CUDA_IKET_RANGE_START:
        return true;
    case IR_OP_CUDA_MOV_SREG:
        return e->u.call.nargs < 2 || !cta_sreg(e->u.call.args[1]);
    default:
        return false;
    }
}

/* Any other expression: the finest level of the variables, thread-private
 * loads and per-thread calls inside it. */
typedef struct LevelWalk {
    IrVisitor v;
    Dispatch *d;
    int level;
} LevelWalk;

static bool level_expr(IrVisitor *v, const IrExpr *e)
{
    LevelWalk *w = v->ctx;
    int l = IR_SCOPE_WORLD;
    if (e->kind == IR_E_VAR || e->kind == IR_E_LOAD || per_thread_call(e))
        l = e->kind == IR_E_LOAD && strcmp(e->u.access.buffer->u.var.type->scope, "local")
                ? IR_SCOPE_WORLD
                : level_of(w->d, e).level;
    if (l > w->level)
        w->level = l;
    return true;
}

static int finest_inside(Dispatch *d, const IrExpr *e)
{
    LevelWalk w = {{0}, d, IR_SCOPE_WORLD};
    w.v.ctx = &w, w.v.expr = level_expr;
    ir_visit_expr(&w.v, e);
    return w.level;
}

static Level max_level(Level a, Level b) { return varies(a.level > b.level ? a.level : b.level); }

/* x < c, x <= c, x > c, x >= c with x an index: the same as comparing x // u
 * with a constant when the boundary (c, or c + 1) is a multiple of u. */
static Level compare_level(Dispatch *d, const IrExpr *e)
{
    int64_t c;
    const IrExpr *x = e->u.op.a, *k = e->u.op.b;
    bool flipped = false;
    if (ar_const_int(x, &c) && !ar_const_int(k, &c))
        x = e->u.op.b, k = e->u.op.a, flipped = true;
    Level lx = level_of(d, x);
    if (!ar_const_int(k, &c) || e->kind == IR_E_EQ || e->kind == IR_E_NE)
        return max_level(lx, level_of(d, k));
    bool upper = (e->kind == IR_E_LE || e->kind == IR_E_GT) != flipped; /* boundary c + 1 */
    return varies(divided(lx, upper ? c + 1 : c).level);
}

/* The local buffer whose registers `buf` names: itself, or the one a view
 * (`w.view("int32")`) is declared over. */
static const IrExpr *local_root(const Dispatch *d, const IrExpr *buf)
{
    uintptr_t root;
    return ir_ptrmap_get(&d->alias, buf, &root) ? (const IrExpr *)root : buf;
}

/* ---------------------------------------------------------------- roles */
/* A thread's role: the branches it takes of the `if`s whose condition is
 * fixed for each thread, an expression of scope ids, launch indices,
 * parameters, constants and lets of them (`if warp_id == 2:`, `if wg_id ==
 * 0: ... else: ...`): every evaluation by one thread gives the same value, so
 * a thread that takes one branch never runs the other. Registers are per
 * thread: the stores in the other branch never touch the registers of the
 * threads in this one. So a register that the elected thread of a producer
 * warp updates (`if warp == 0: if elect_sync(): tile = tile + 148`) is still
 * uniform over a consumer warp in another branch whose lanes all update
 * their own copy alike. Roles form a tree whose root is every thread; the
 * level of a local buffer's stores is kept per role, and a load sees the
 * stores of every role not exclusive with its own (its ancestors, its
 * descendants, and the branches of other `if`s). A condition that is not
 * fixed (a register, a loop variable, `elect_sync()`) makes no role. */

static bool fixed_expr(const Dispatch *d, const IrExpr *e)
{
    uintptr_t v;
    if (!e)
        return true;
    switch (e->kind) {
    case IR_E_INT: case IR_E_PYINT: case IR_E_FLOAT: case IR_E_PYFLOAT: case IR_E_STR:
        return true;
    case IR_E_VAR: /* a variable the walk has not defined is a parameter */
        return !ir_ptrmap_get(&d->level, e, NULL) || (ir_ptrmap_get(&d->fixed, e, &v) && v);
    case IR_E_ADD: case IR_E_SUB: case IR_E_MUL: case IR_E_DIV: case IR_E_MOD:
    case IR_E_FLOORDIV: case IR_E_FLOORMOD: case IR_E_MIN: case IR_E_MAX:
    case IR_E_AND: case IR_E_OR: case IR_E_LT: case IR_E_LE: case IR_E_GT:
    case IR_E_GE: case IR_E_EQ: case IR_E_NE:
        return fixed_expr(d, e->u.op.a) && fixed_expr(d, e->u.op.b);
    case IR_E_NOT: case IR_E_CAST:
        return fixed_expr(d, e->u.op.a);
    case IR_E_SELECT:
        return fixed_expr(d, e->u.op.cond) && fixed_expr(d, e->u.op.a) &&
               fixed_expr(d, e->u.op.b);
    case IR_E_CALL:
        switch (e->u.call.op) {
        case IR_OP_BITWISE_AND: case IR_OP_BITWISE_OR: case IR_OP_BITWISE_XOR:
        case IR_OP_BITWISE_NOT: case IR_OP_SHIFT_LEFT: case IR_OP_SHIFT_RIGHT:
            for (int i = 0; i < e->u.call.nargs; i++)
                if (!fixed_expr(d, e->u.call.args[i]))
                    return false;
            return true;
        default: return false;
        }
    default: return false;
    }
}

static void record_fixed(Dispatch *d, const IrExpr *var, bool fixed)
{
    ir_ptrmap_put(&d->fixed, var, fixed);
}

/* The role of a branch of `ifs` taken from the current role. */
static int branch_role(Dispatch *d, const IrStmt *ifs, bool is_else)
{
    for (int i = 1; i < d->roles.len; i++) {
        const Role *r = &d->roles.items[i];
        if (r->parent == d->role && r->branch_of == ifs && r->is_else == is_else)
            return i;
    }
    Role r = {d->role, d->roles.items[d->role].depth + 1, ifs, is_else, {0}};
    tx_vec_push(&d->roles, r);
    return d->roles.len - 1;
}

/* No thread is in both roles: they take different branches of one `if`. */
static bool exclusive(const Dispatch *d, int a, int b)
{
    const Role *r = d->roles.items;
    while (r[a].depth > r[b].depth)
        a = r[a].parent;
    while (r[b].depth > r[a].depth)
        b = r[b].parent;
    if (a == b)
        return false; /* one role is within the other */
    while (r[a].parent != r[b].parent)
        a = r[a].parent, b = r[b].parent;
    return r[a].branch_of == r[b].branch_of;
}

/* The finest level of the stores to `buf` that the current role's threads
 * may have run. */
static int stored_level(const Dispatch *d, const IrExpr *buf)
{
    int l = IR_SCOPE_WORLD;
    for (int i = 0; i < d->roles.len; i++) {
        uintptr_t v;
        if (ir_ptrmap_get(&d->roles.items[i].stored, buf, &v) && (int)v > l &&
            !exclusive(d, i, d->role))
            l = (int)v;
    }
    return l;
}

/* A store of level `level` to `buf` in the current role. */
static void raise_stored(Dispatch *d, const IrExpr *buf, int level)
{
    IrPtrMap *m = &d->roles.items[d->role].stored;
    uintptr_t old = IR_SCOPE_WORLD;
    ir_ptrmap_get(m, buf, &old);
    if ((uintptr_t)level > old) {
        ir_ptrmap_put(m, buf, (uintptr_t)level);
        d->grew = true;
    }
}

/* A load of a local buffer: the level its contents vary at, and its indices'. */
static Level local_level(Dispatch *d, const IrExpr *e)
{
    uintptr_t known;
    const IrExpr *buf = local_root(d, e->u.access.buffer);
    if (!ir_ptrmap_get(&d->contents, buf, &known) || known == IR_SCOPE_THREAD)
        return varies(IR_SCOPE_THREAD);
    Level l = varies(stored_level(d, buf));
    for (int i = 0; i < e->u.access.n; i++)
        l = max_level(l, level_of(d, e->u.access.indices[i]));
    return l;
}

/* The scope over which a collective's result is one value (a warp vote, a
 * CTA-wide AND): IR_SCOPE_THREAD for other calls. */
static int collective_level(IrOp op)
{
    switch (op) {
    case IR_OP_CUDA_BALLOT_SYNC: case IR_OP_CUDA_ANY_SYNC:
    case IR_OP_CUDA_REDUCE_ADD_SYNC_U32: case IR_OP_CUDA_REDUCE_MIN_SYNC_U32:
        return IR_SCOPE_WARP;
    case IR_OP_CUDA_SYNCTHREADS_AND: return IR_SCOPE_CTA;
    default: return IR_SCOPE_THREAD;
    }
}

static Level call_level(Dispatch *d, const IrExpr *e)
{
    const IrCall *c = &e->u.call;
    if (per_thread_call(e))
        return varies(IR_SCOPE_THREAD);
    Level l = varies(IR_SCOPE_WORLD);
    for (int i = 0; i < c->nargs; i++)
        l = max_level(l, level_of(d, c->args[i]));
    int coarsest = collective_level(c->op);
    return l.level > coarsest ? varies(coarsest) : l;
}

static Level level_of(Dispatch *d, const IrExpr *e)
{
    uintptr_t known;
    int64_t c;
    if (!e)
        return varies(IR_SCOPE_WORLD);
    switch (e->kind) {
    case IR_E_VAR:
        if (!ir_ptrmap_get(&d->level, e, &known))
            return (Level){IR_SCOPE_WORLD, true};
        return (Level){(int)(known & ~(uintptr_t)LEVEL_INDEX), (known & LEVEL_INDEX) != 0};
    case IR_E_INT: case IR_E_PYINT: case IR_E_FLOAT: case IR_E_PYFLOAT: case IR_E_STR:
        return (Level){IR_SCOPE_WORLD, true};
    case IR_E_FLOORDIV: case IR_E_DIV:
        if (ar_const_int(e->u.op.b, &c))
            return divided(level_of(d, e->u.op.a), c);
        break;
    case IR_E_CAST:
        return level_of(d, e->u.op.a);
    case IR_E_LT: case IR_E_LE: case IR_E_GT: case IR_E_GE: case IR_E_EQ: case IR_E_NE:
        return compare_level(d, e);
    case IR_E_CALL:
        if (e->u.call.op == IR_OP_SHIFT_RIGHT && e->u.call.nargs == 2 &&
            ar_const_int(e->u.call.args[1], &c) && c >= 0 && c < 62)
            return divided(level_of(d, e->u.call.args[0]), (int64_t)1 << c);
        return call_level(d, e);
    case IR_E_LOAD:
        if (!strcmp(e->u.access.buffer->u.var.type->scope, "local"))
            return local_level(d, e);
        break;
    default:
        break;
    }
    switch (e->kind) {
    case IR_E_ADD: case IR_E_SUB: case IR_E_MUL: case IR_E_DIV: case IR_E_MOD:
    case IR_E_FLOORDIV: case IR_E_FLOORMOD: case IR_E_MIN: case IR_E_MAX:
    case IR_E_AND: case IR_E_OR:
        return max_level(level_of(d, e->u.op.a), level_of(d, e->u.op.b));
    case IR_E_NOT:
        return varies(level_of(d, e->u.op.a).level);
    case IR_E_SELECT:
        return max_level(level_of(d, e->u.op.cond),
                         max_level(level_of(d, e->u.op.a), level_of(d, e->u.op.b)));
    default:
        return varies(finest_inside(d, e));
    }
}

static void record_scopeid(Dispatch *d, const IrStmt *s)
{
    int64_t ext;
    int level = scopeid_level(s->u.scopeid.kind);
    d->ids.def[s->u.scopeid.kind] = s;
    if (s->u.scopeid.nvars == 1 && s->u.scopeid.extents &&
        ar_const_int(s->u.scopeid.extents[0], &ext) && ext > 0 && ext <= MAX_INDEX_EXTENT &&
        (level == IR_SCOPE_WARP || level == IR_SCOPE_THREAD))
        ir_ptrmap_put(&d->extent, s->u.scopeid.vars[0], (uintptr_t)ext);
    for (int i = 0; i < s->u.scopeid.nvars; i++)
        record_level(d, s->u.scopeid.vars[i],
                     (Level){scopeid_level(s->u.scopeid.kind), s->u.scopeid.nvars == 1});
    for (int i = 0; i < s->u.scopeid.nvars; i++)
        record_fixed(d, s->u.scopeid.vars[i], true);
}

/* A `threadIdx.*` / `blockIdx.*` launch attr or thread_binding loop defines a
 * thread-varying / CTA-varying variable (a vthread one varies nowhere). */
static void record_launch(Dispatch *d, IrExpr *var, const char *tag, IrExpr *extent)
{
    bool thread = !strncmp(tag, "threadIdx.", 10);
    if (thread && tag[10] >= 'x' && tag[10] <= 'z') {
        d->ids.launch_var[tag[10] - 'x'] = var;
        d->ids.launch_ext[tag[10] - 'x'] = extent;
    }
    if (thread || !strncmp(tag, "blockIdx.", 9))
        record_level(d, var, (Level){thread ? IR_SCOPE_THREAD : IR_SCOPE_CTA, !strcmp(tag, "threadIdx.x")});
    record_fixed(d, var, true);
}

static void record_launch_attr(Dispatch *d, const IrStmt *s)
{
    if (strcmp(s->u.attr.key, "thread_extent") || s->u.attr.node->kind != IR_E_VAR)
        return;
    const char *tag = s->u.attr.thread_tag ? s->u.attr.thread_tag : s->u.attr.node->u.var.name;
    record_launch(d, s->u.attr.node, tag, s->u.attr.value);
}

/* ---------------------------------------------------------------- thread axes */

static IrExpr *id_var(const Dispatch *d, IrScopeIdKind k)
{
    const IrStmt *s = d->ids.def[k];
    return s && s->u.scopeid.nvars == 1 ? s->u.scopeid.vars[0] : NULL;
}

static bool id_extent(const Dispatch *d, IrScopeIdKind k, int64_t *n)
{
    const IrStmt *s = d->ids.def[k];
    *n = 1;
    if (!s || !s->u.scopeid.extents)
        return false;
    for (int i = 0; i < s->u.scopeid.nvars; i++) {
        int64_t e;
        if (!ar_const_int(s->u.scopeid.extents[i], &e))
            return false;
        *n *= e;
    }
    return true;
}

/* The CTA's thread dimensions: T.thread_id's, else the threadIdx launch attrs. */
static int thread_dims(const Dispatch *d, IrExpr **var, IrExpr **ext)
{
    const IrStmt *s = d->ids.def[IR_SCOPEID_THREAD_ID];
    int n = 0;
    if (s) {
        for (; n < s->u.scopeid.nvars && n < 3; n++) {
            var[n] = s->u.scopeid.vars[n];
            ext[n] = s->u.scopeid.extents ? s->u.scopeid.extents[n] : NULL;
        }
        return n;
    }
    while (n < 3 && d->ids.launch_var[n]) {
        var[n] = d->ids.launch_var[n], ext[n] = d->ids.launch_ext[n];
        n++;
    }
    return n;
}

/* The linear thread index in the CTA: tx + ty*ex + tz*ex*ey. */
static IrExpr *linear_tid(OpCtx *c, const Dispatch *d)
{
    IrExpr *var[3], *ext[3], *stride = NULL;
    int n = thread_dims(d, var, ext);
    if (!n)
        return NULL;
    IrExpr *t = var[0];
    for (int i = 1; i < n; i++) {
        if (!ext[i - 1])
            return NULL;
        stride = stride ? op_bin(c, IR_E_MUL, stride, ext[i - 1]) : ext[i - 1];
        t = op_bin(c, IR_E_ADD, t, op_bin(c, IR_E_MUL, var[i], stride));
    }
    return t;
}

/* The threads of the CTA when its dimensions are constants. */
static bool thread_count(const Dispatch *d, int64_t *n)
{
    IrExpr *var[3], *ext[3];
    int k = thread_dims(d, var, ext);
    *n = 1;
    for (int i = 0; i < k; i++) {
        int64_t e;
        if (!ext[i] || !ar_const_int(ext[i], &e))
            return false;
        *n *= e;
    }
    return k > 0;
}

static IrExpr *combine(OpCtx *c, IrExpr *outer, int64_t inner_extent, IrExpr *inner)
{
    if (!outer || !inner)
        return NULL;
    return op_bin(c, IR_E_ADD, op_bin(c, IR_E_MUL, outer, op_i32(c, inner_extent)), inner);
}

static IrExpr *part(OpCtx *c, IrExprKind k, IrExpr *x, int64_t v)
{
    return x ? op_bin(c, k, x, op_i32(c, v)) : NULL;
}

/* 4, or T.warp_id_in_wg's extent when it is less (one partial warpgroup). */
static int64_t warps_per_warpgroup(const Dispatch *d)
{
    int64_t n;
    return id_extent(d, IR_SCOPEID_WARP_ID_IN_WG, &n) && n > 0 && n < 4 ? n : 4;
}

/* Fill c->axis and c->cta_threads from the scope ids, deriving what the
 * kernel names another way. */
static void thread_axes(OpCtx *c, const Dispatch *d)
{
    IrExpr *warp = id_var(d, IR_SCOPEID_WARP_ID), *lane = id_var(d, IR_SCOPEID_LANE_ID);
    IrExpr *wg = id_var(d, IR_SCOPEID_WARPGROUP_ID);
    IrExpr *wiw = id_var(d, IR_SCOPEID_WARP_ID_IN_WG), *tiw = id_var(d, IR_SCOPEID_THREAD_ID_IN_WG);
    IrExpr *tx = linear_tid(c, d);
    if (!tx)
        tx = combine(c, warp, 32, lane);
    if (!tx)
        tx = combine(c, wg, 128, tiw ? tiw : combine(c, wiw, 32, lane));
    c->axis[LY_AXIS_TX] = tx;
    c->axis[LY_AXIS_LANEID] = lane ? lane : tx ? part(c, IR_E_FLOORMOD, tx, 32)
                                                : part(c, IR_E_FLOORMOD, tiw, 32);
    c->axis[LY_AXIS_WARPID] = warp ? warp : tx ? part(c, IR_E_FLOORDIV, tx, 32)
                                                : combine(c, wg, 4, wiw);
    c->axis[LY_AXIS_WGID] = wg ? wg : part(c, IR_E_FLOORDIV, tx, 128);
    c->axis[LY_AXIS_TID_IN_WG] = tiw ? tiw : tx ? part(c, IR_E_FLOORMOD, tx, 128)
                                                 : combine(c, wiw, 32, lane);
    c->axis[LY_AXIS_WID_IN_WG] = wiw ? wiw : part(c, IR_E_FLOORMOD, c->axis[LY_AXIS_WARPID], 4);
    int64_t n;
    if (thread_count(d, &n))
        c->cta_threads = n;
    else if (id_extent(d, IR_SCOPEID_WARP_ID, &n))
        c->cta_threads = n * 32;
    else if (id_extent(d, IR_SCOPEID_WARPGROUP_ID, &n))
        c->cta_threads = n * 32 * warps_per_warpgroup(d);
    else if (warps_per_warpgroup(d) < 4)
        c->cta_threads = 32 * warps_per_warpgroup(d);
}

/* ---------------------------------------------------------------- local registers */
/* A local buffer only ever written by stores (not through its address, a PTX
 * output, a register pin or a tile primitive) holds values that vary no finer
 * than what is stored into it and the conditions guarding the stores: a tile
 * scheduler's tile index in registers is uniform over the CTA. A PTX
 * instruction whose results are uniform where its operands are (the table's
 * PTX_UNIFORM rows: a weak load from shared memory, decoding a cluster launch
 * control response) is such a store too, of every operand into every local
 * buffer it names: the level of what the threads read from one shared
 * address after a barrier carries over to the registers it lands in. */

static bool uniform_ptx(const IrExpr *e)
{
    if (e->kind != IR_E_CALL || e->u.call.op != IR_OP_PTX)
        return false;
    IrPtxResolved r = {e->u.call.ptx_entry, e->u.call.nptx_slots, {0}};
    for (int i = 0; i < r.nslots && i < IR_PTX_MAX_SLOTS; i++)
        r.slots[i] = e->u.call.ptx_slots[i];
    return ir_ptx_uniform_result(&r);
}

static void escape(Dispatch *d, const IrExpr *e)
{
    const IrExpr *buf = e->kind == IR_E_LOAD || e->kind == IR_E_REGION ? e->u.access.buffer
                        : e->kind == IR_E_VAR ? e : NULL;
    if (buf && buf->u.var.type && buf->u.var.type->kind == IR_TY_BUFFER) {
        ir_ptrmap_put(&d->contents, local_root(d, buf), (uintptr_t)IR_SCOPE_THREAD);
        ir_ptrmap_put(&d->pow2, local_root(d, buf), 1);
    }
}

/* The direct arguments of a call that may write them: escaped. */
static bool find_escapes(IrVisitor *v, const IrExpr *e)
{
    Dispatch *d = v->ctx;
    bool uniform = uniform_ptx(e);
    if (e->kind == IR_E_CALL && (e->u.call.op == IR_OP_PTX || e->u.call.op == IR_OP_ADDRESS_OF ||
                                 e->u.call.op == IR_OP_BUFFER_DATA || e->dtype.code == IR_DT_VOID))
        for (int i = 0; i < e->u.call.nargs; i++) {
            const IrExpr *a = e->u.call.args[i];
            if (!uniform || a->kind != IR_E_LOAD)
                escape(d, a);
            else /* a uniform result: its level is known, not its value */
                ir_ptrmap_put(&d->pow2, local_root(d, a->u.access.buffer), 1);
        }
    return true;
}

static bool find_tile_escapes(IrVisitor *v, const IrStmt *s)
{
    uintptr_t root;
    Dispatch *d = v->ctx;
    if (s->kind == IR_S_DECL && ir_ptrmap_get(&d->alias, s->u.decl.buffer, &root))
        return false; /* a view of a local buffer: its data is no escape */
    if (s->kind == IR_S_TILE)
        for (int i = 0; i < s->u.tile.nargs; i++)
            escape(v->ctx, s->u.tile.args[i]);
    return true;
}

static void track_locals(IrVisitor *v, const IrExpr *var, const IrStmt *where)
{
    Dispatch *d = v->ctx;
    uintptr_t known;
    const IrExpr *base = where && where->kind == IR_S_DECL && where->u.decl.buffer == var &&
                                 where->u.decl.data
                             ? ps_buffer_data_of(where->u.decl.data)
                             : NULL;
    if (base && ir_ptrmap_get(&d->contents, local_root(d, base), &known)) {
        ir_ptrmap_put(&d->alias, var, (uintptr_t)local_root(d, base));
        return;
    }
    if (where && where->kind == IR_S_ALLOC && var->u.var.type->kind == IR_TY_BUFFER &&
        !strcmp(var->u.var.type->scope, "local") && !ir_ptrmap_get(&d->contents, var, &known))
        ir_ptrmap_put(&d->contents, var, (uintptr_t)IR_SCOPE_WORLD);
}

/* A store raises its buffer's level to the value's, the indices' and the
 * enclosing conditions'. */
/* A store lowers its local buffer's power of two to the value's (to 1 through
 * a view: another dtype's bits). */
static void record_store_pow2(Dispatch *d, const IrStmt *s, const IrExpr *buf)
{
    uintptr_t old;
    const IrExpr *v = s->u.store.value;
    int64_t p = buf == s->u.store.buffer && ir_dtype_is_int(v->dtype)
                    ? op_known_pow2_in(&d->pow2, v)
                    : 1;
    bool seen = ir_ptrmap_get(&d->pow2, buf, &old);
    uintptr_t one;
    if (!ir_ptrmap_get(&d->stores, buf, &one))
        ir_ptrmap_put(&d->stores, buf, buf == s->u.store.buffer ? (uintptr_t)v : 1);
    else if (one != (uintptr_t)v)
        ir_ptrmap_put(&d->stores, buf, 1);
    if (!seen || (int64_t)old > p) {
        ir_ptrmap_put(&d->pow2, buf, (uintptr_t)p);
        d->grew = true;
    }
}

static void record_store(Dispatch *d, const IrStmt *s)
{
    uintptr_t known;
    const IrExpr *buf = local_root(d, s->u.store.buffer);
    if (ir_ptrmap_get(&d->contents, buf, &known))
        record_store_pow2(d, s, buf);
    if (!ir_ptrmap_get(&d->contents, buf, &known) || known == IR_SCOPE_THREAD)
        return;
    Level l = max_level(level_of(d, s->u.store.value), varies(d->narrow));
    for (int i = 0; i < s->u.store.n; i++)
        l = max_level(l, level_of(d, s->u.store.indices[i]));
    if (s->u.store.predicate)
        l = max_level(l, level_of(d, s->u.store.predicate));
    raise_stored(d, buf, l.level);
}

/* A uniform PTX instruction (a statement): every local buffer among its
 * operands rises to the level of all its operands and the enclosing
 * conditions (an output's old contents count: a predicated result keeps it). */
static void record_uniform_ptx(Dispatch *d, const IrExpr *e)
{
    const IrCall *c = &e->u.call;
    Level l = varies(d->narrow);
    for (int i = 0; i < c->nargs; i++)
        l = max_level(l, level_of(d, c->args[i]));
    for (int i = 0; i < c->nargs; i++) {
        const IrExpr *a = c->args[i];
        uintptr_t known;
        if (a->kind == IR_E_LOAD &&
            ir_ptrmap_get(&d->contents, local_root(d, a->u.access.buffer), &known) &&
            known != IR_SCOPE_THREAD)
            raise_stored(d, local_root(d, a->u.access.buffer), l.level);
    }
}

/* ---------------------------------------------------------------- the walk */

static IrStmt *lower_call(Dispatch *d, IrStmt *s)
{
    OpCtx c = {0};
    c.arena = &d->module->arena;
    c.call = s;
    c.func = d->func;
    c.sm = d->sm;
    c.host_init = &d->host_init;
    c.launch_checks = &d->launch_checks;
    c.memo = &d->memo;
    c.post_def = &d->post_def;
    c.decl_data = &d->decl_data;
    c.device_vars = &d->device_vars;
    c.pow2 = &d->pow2;
    c.stores = &d->stores;
    c.narrow = d->narrow;
    thread_axes(&c, d);
    IrStmt *out;
    if (!op_dispatch(&c, &d->module->diags, &out)) {
        d->failed = true;
        return NULL;
    }
    return out;
}

/* ---------------------------------------------------------------- conditions on one index */
/* Enclosing conditions that read nothing but one warp or thread index of a
 * constant extent (`if warp == 8: ... else: if warp == 9: ... else: if warp
 * < 8:`) are evaluated together at every value of the index: the threads
 * they leave in are exactly those, so the narrowing is the finest unit
 * (warp: 32 threads, warpgroup: 128 threads or 4 warps) that they split,
 * not the finest level of any one of them. */
typedef struct OneVar {
    const IrExpr *var;
    bool other; /* another variable, a load or a call */
} OneVar;

static bool one_var_expr(IrVisitor *v, const IrExpr *e)
{
    OneVar *o = v->ctx;
    if (e->kind == IR_E_VAR && (!o->var || o->var == e))
        o->var = e;
    else if (e->kind == IR_E_VAR || e->kind == IR_E_LOAD || e->kind == IR_E_CALL)
        o->other = true;
    return !o->other;
}

/* The index the condition reads, alone; NULL when it reads anything else. */
static const IrExpr *index_var(Dispatch *d, const IrExpr *cond)
{
    OneVar o = {0};
    IrVisitor v = {.ctx = &o, .expr = one_var_expr};
    ir_visit_expr(&v, cond);
    return o.var && !o.other && ir_ptrmap_get(&d->extent, o.var, NULL) ? o.var : NULL;
}

/* Whether the enclosing conditions on var hold at var = x: 1, 0, or -1 when
 * one does not fold to a constant. */
static int conds_hold(Dispatch *d, const IrExpr *var, int64_t x)
{
    TxArena *a = &d->module->arena;
    IrSubst sub = {var, ir_int(a, var->dtype, x, var->span)};
    for (int i = 0; i < d->conds.len; i++) {
        const IndexCond *c = &d->conds.items[i];
        int64_t v;
        if (c->var != var)
            continue;
        IrExpr *e = ps_simplify_expr(a, ir_substitute(a, (IrExpr *)c->cond, &sub, 1));
        if (!ar_const_int(e, &v))
            return -1;
        if ((v != 0) == c->negated)
            return 0;
    }
    return 1;
}

/* The finest unit of var's threads the conditions on it split. */
static int index_level(Dispatch *d, const IrExpr *var)
{
    uintptr_t ext = 0, lv = 0;
    ir_ptrmap_get(&d->extent, var, &ext);
    ir_ptrmap_get(&d->level, var, &lv);
    bool warps = (int)(lv & ~(uintptr_t)LEVEL_INDEX) == IR_SCOPE_WARP;
    int hold[MAX_INDEX_EXTENT];
    for (int64_t x = 0; x < (int64_t)ext; x++)
        if ((hold[x] = conds_hold(d, var, x)) < 0)
            return warps ? IR_SCOPE_WARP : IR_SCOPE_THREAD;
    /* units in var's counting: thread indices 1, 32, 128; warp indices 1, 4 */
    static const int64_t thread_units[] = {128, 32}, warp_units[] = {4};
    static const int thread_levels[] = {IR_SCOPE_WARPGROUP, IR_SCOPE_WARP},
                     warp_levels[] = {IR_SCOPE_WARPGROUP};
    const int64_t *units = warps ? warp_units : thread_units;
    const int *levels = warps ? warp_levels : thread_levels;
    int n = warps ? 1 : 2, level = IR_SCOPE_WORLD;
    bool all_same = true;
    for (int64_t x = 1; x < (int64_t)ext; x++)
        all_same &= hold[x] == hold[0];
    if (all_same)
        return IR_SCOPE_WORLD;
    for (int k = 0; k < n && level == IR_SCOPE_WORLD; k++) {
        bool whole = true;
        for (int64_t x = 1; x < (int64_t)ext && whole; x++)
            whole = x % units[k] == 0 || hold[x] == hold[x - 1];
        if (whole)
            level = levels[k];
    }
    return level != IR_SCOPE_WORLD ? level : warps ? IR_SCOPE_WARP : IR_SCOPE_THREAD;
}

/* The narrowing of the enclosing conditions: those on one index together,
 * the others each by its level. */
static int narrow_level(Dispatch *d)
{
    int l = d->narrow_other;
    for (int i = 0; i < d->conds.len; i++) {
        int k = index_level(d, d->conds.items[i].var);
        l = k > l ? k : l;
    }
    return l;
}

static IrStmt *mutate_narrowed(Dispatch *d, IrStmt *s, const IrExpr *cond, bool negated)
{
    int saved = d->narrow, saved_other = d->narrow_other, nconds = d->conds.len;
    const IrExpr *var = index_var(d, cond);
    if (var) {
        tx_vec_push(&d->conds, ((IndexCond){cond, var, negated}));
    } else {
        int l = level_of(d, cond).level;
        d->narrow_other = l > d->narrow_other ? l : d->narrow_other;
    }
    d->narrow = narrow_level(d);
    IrStmt *r = ir_mutate_stmt(&d->mut, s);
    d->narrow = saved, d->narrow_other = saved_other, d->conds.len = nconds;
    return r;
}

/* A branch of an `if`: narrowed by its condition, in its own role when the
 * condition is fixed for each thread. */
static IrStmt *mutate_branch(Dispatch *d, const IrStmt *s, bool is_else)
{
    int saved = d->role;
    if (fixed_expr(d, s->u.ifs.cond))
        d->role = branch_role(d, s, is_else);
    IrStmt *r = mutate_narrowed(d, is_else ? s->u.ifs.else_s : s->u.ifs.then_s, s->u.ifs.cond,
                                is_else);
    d->role = saved;
    return r;
}

static IrStmt *lower_if(Dispatch *d, IrStmt *s)
{
    IrStmt *t = mutate_branch(d, s, false);
    IrStmt *e = s->u.ifs.else_s ? mutate_branch(d, s, true) : NULL;
    if (t == s->u.ifs.then_s && e == s->u.ifs.else_s)
        return s;
    IrStmt *n = ir_stmt_copy(&d->module->arena, s);
    n->u.ifs.then_s = t, n->u.ifs.else_s = e;
    return n;
}

static IrStmt *lower_while(Dispatch *d, IrStmt *s)
{
    IrStmt *b = mutate_narrowed(d, s->u.whl.body, s->u.whl.cond, false);
    if (b == s->u.whl.body)
        return s;
    IrStmt *n = ir_stmt_copy(&d->module->arena, s);
    n->u.whl.body = b;
    return n;
}

/* Views and the variables the device region defines, for the host side of
 * TMA descriptors (op_storage_root, op_host_known). */
static void record_definition(Dispatch *d, const IrStmt *s)
{
    if (s->kind == IR_S_ATTR && (!strcmp(s->u.attr.key, "tirx.device_entry") ||
                                 !strcmp(s->u.attr.key, "thread_extent")))
        d->in_device = true;
    if (s->kind == IR_S_DECL && s->u.decl.data)
        ir_ptrmap_put(&d->decl_data, s->u.decl.buffer, (uintptr_t)s->u.decl.data);
    if (!d->in_device)
        return;
    switch (s->kind) {
    case IR_S_BIND: ir_ptrmap_put(&d->device_vars, s->u.bind.var, 1); break;
    case IR_S_FOR: ir_ptrmap_put(&d->device_vars, s->u.loop.var, 1); break;
    case IR_S_DECL: ir_ptrmap_put(&d->device_vars, s->u.decl.buffer, 1); break;
    case IR_S_ALLOC: ir_ptrmap_put(&d->device_vars, s->u.alloc.buffer, 1); break;
    case IR_S_SCOPEID:
        for (int i = 0; i < s->u.scopeid.nvars; i++)
            ir_ptrmap_put(&d->device_vars, s->u.scopeid.vars[i], 1);
        break;
    case IR_S_ATTR:
        if (s->u.attr.node && s->u.attr.node->kind == IR_E_VAR)
            ir_ptrmap_put(&d->device_vars, s->u.attr.node, 1);
        break;
    default: break;
    }
}

static IrStmt *dispatch_stmt(IrMutator *m, IrStmt *s)
{
    Dispatch *d = m->ctx;
    record_definition(d, s);
    switch (s->kind) {
    case IR_S_SCOPEID: record_scopeid(d, s); return NULL;
    case IR_S_ATTR: record_launch_attr(d, s); return NULL;
    case IR_S_BIND:
        record_level(d, s->u.bind.var, level_of(d, s->u.bind.value));
        record_fixed(d, s->u.bind.var, fixed_expr(d, s->u.bind.value));
        if (ir_dtype_is_int(s->u.bind.value->dtype)) {
            ir_ptrmap_put(&d->pow2, s->u.bind.var,
                          (uintptr_t)op_known_pow2_in(&d->pow2, s->u.bind.value));
            ir_ptrmap_put(&d->stores, s->u.bind.var, (uintptr_t)s->u.bind.value);
        }
        return NULL;
    case IR_S_FOR: {
        if (s->u.loop.kind == IR_FOR_THREAD_BINDING && s->u.loop.thread) {
            record_launch(d, s->u.loop.var, s->u.loop.thread, s->u.loop.extent);
            return NULL;
        }
        record_level(d, s->u.loop.var,
                     max_level(level_of(d, s->u.loop.min), level_of(d, s->u.loop.extent)));
        record_fixed(d, s->u.loop.var, false);
        return NULL;
    }
    case IR_S_STORE:
        if (d->analyzing)
            record_store(d, s);
        return NULL;
    case IR_S_EVAL:
        if (d->analyzing && uniform_ptx(s->u.eval))
            record_uniform_ptx(d, s->u.eval);
        return NULL;
    case IR_S_IF: return lower_if(d, s);
    case IR_S_WHILE: return lower_while(d, s);
    case IR_S_TILE:
        if (s->u.tile.op == IR_TILE_COMPOSE_OP)
            return s->u.tile.body ? ir_mutate_stmt(m, s->u.tile.body)
                                  : ir_seq(&d->module->arena, NULL, 0, s->span);
        if (d->analyzing)
            return s;
        return lower_call(d, s);
    default: return NULL;
    }
}

/* The host statements go first in the device region (the body of the
 * tirx.device_entry attr), or first in the function without one. */
static IrStmt *place_host_init(Dispatch *d, IrStmt *body)
{
    if (!d->host_init.len)
        return body;
    TxArena *a = &d->module->arena;
    if (body->kind == IR_S_ATTR && !strcmp(body->u.attr.key, "tirx.device_entry")) {
        IrStmt *n = ir_stmt_copy(a, body);
        n->u.attr.body = place_host_init(d, body->u.attr.body);
        return n;
    }
    if (body->kind == IR_S_SEQ)
        for (int i = 0; i < body->u.seq.n; i++) {
            IrStmt *st = body->u.seq.stmts[i];
            if (st->kind == IR_S_ATTR && !strcmp(st->u.attr.key, "tirx.device_entry")) {
                IrStmt *n = ir_stmt_copy(a, body);
                n->u.seq.stmts = tx_arena_memdup(a, body->u.seq.stmts,
                                                 sizeof(IrStmt *) * (size_t)body->u.seq.n);
                n->u.seq.stmts[i] = place_host_init(d, st);
                return n;
            }
        }
    TX_VEC(IrStmt *) all = {0};
    for (int i = 0; i < d->host_init.len; i++)
        tx_vec_push(&all, d->host_init.items[i]);
    if (body->kind == IR_S_SEQ)
        for (int i = 0; i < body->u.seq.n; i++)
            tx_vec_push(&all, body->u.seq.stmts[i]);
    else
        tx_vec_push(&all, body);
    IrStmt *r = ir_seq(a, all.items, all.len, body->span);
    tx_vec_free(&all);
    return r;
}

/* The statements variants asked for after a buffer's definition follow it,
 * in the same sequence (the printer's scopes are the sequences). */
static const IrExpr *defined_buffer(const IrStmt *s)
{
    return s->kind == IR_S_DECL ? s->u.decl.buffer : s->kind == IR_S_ALLOC ? s->u.alloc.buffer : NULL;
}

static void push_flat(OpStmts *all, IrStmt *s)
{
    if (s->kind != IR_S_SEQ) {
        tx_vec_push(all, s);
        return;
    }
    for (int i = 0; i < s->u.seq.n; i++)
        tx_vec_push(all, s->u.seq.stmts[i]);
}

static void push_with_post_defs(Dispatch *d, OpStmts *all, IrStmt *s)
{
    push_flat(all, s);
    const IrExpr *buf = defined_buffer(s);
    for (int i = 0; buf && i < d->post_def.len; i++)
        if (d->post_def.items[i].buffer == buf)
            push_flat(all, d->post_def.items[i].stmt);
}

static IrStmt *place_post_def(IrMutator *m, IrStmt *s)
{
    Dispatch *d = m->ctx;
    if (s->kind != IR_S_SEQ && !defined_buffer(s))
        return NULL;
    OpStmts all = {0};
    if (s->kind == IR_S_SEQ)
        for (int i = 0; i < s->u.seq.n; i++) {
            push_with_post_defs(d, &all, ir_mutate_stmt(m, s->u.seq.stmts[i]));
        }
    else
        push_with_post_defs(d, &all, s);
    IrStmt *r = ir_seq(&d->module->arena, all.items, all.len, s->span);
    tx_vec_free(&all);
    return r;
}

static IrFunc *place_post_defs(Dispatch *d, IrFunc *f)
{
    if (!d->post_def.len)
        return f;
    IrMutator m = {.ctx = d, .arena = &d->module->arena, .stmt = place_post_def};
    IrFunc *r = ir_mutate_func(&m, f);
    ir_mutator_free(&m);
    return r ? r : f;
}

/* The levels of the local buffers' contents: escapes first, then walks that
 * only record levels until no buffer's level grows (levels only rise, so
 * this ends after a few walks). */
static void analyze_locals(Dispatch *d, IrFunc *f)
{
    IrVisitor v = {.ctx = d, .def = track_locals};
    ir_visit_func(&v, f);
    v = (IrVisitor){.ctx = d, .expr = find_escapes, .stmt = find_tile_escapes};
    ir_visit_func(&v, f);
    d->analyzing = true;
    do {
        d->grew = false;
        d->mut = (IrMutator){.ctx = d, .arena = &d->module->arena, .stmt = dispatch_stmt};
        memset(&d->ids, 0, sizeof d->ids);
        d->narrow = d->narrow_other = IR_SCOPE_WORLD;
        d->role = 0;
        ir_mutate_func(&d->mut, f);
        ir_mutator_free(&d->mut);
    } while (d->grew);
    d->analyzing = false;
}

static IrFunc *dispatch_func(Dispatch *d, IrFunc *f)
{
    d->func = f;
    tx_vec_push(&d->roles, (Role){0});
    analyze_locals(d, f);
    d->mut = (IrMutator){.ctx = d, .arena = &d->module->arena, .stmt = dispatch_stmt};
    memset(&d->ids, 0, sizeof d->ids);
    d->narrow = d->narrow_other = IR_SCOPE_WORLD;
    d->role = 0;
    d->in_device = false;
    IrFunc *r = ir_mutate_func(&d->mut, f);
    IrFunc *out = r ? r : f;
    if (d->host_init.len) {
        IrFunc *n = TX_NEW(&d->module->arena, IrFunc);
        *n = *out;
        n->body = place_host_init(d, out->body);
        out = n;
    }
    if (d->launch_checks.len) {
        IrFunc *n = TX_NEW(&d->module->arena, IrFunc);
        *n = *out;
        tx_vec_push(&d->launch_checks, out->body);
        n->body = ir_seq(&d->module->arena, d->launch_checks.items, d->launch_checks.len,
                         out->body->span);
        out = n;
    }
    ir_mutator_free(&d->mut);
    out = place_post_defs(d, out);
    ir_ptrmap_free(&d->decl_data);
    ir_ptrmap_free(&d->device_vars);
    tx_vec_free(&d->host_init);
    tx_vec_free(&d->launch_checks);
    tx_vec_free(&d->memo);
    tx_vec_free(&d->post_def);
    for (int i = 0; i < d->roles.len; i++)
        ir_ptrmap_free(&d->roles.items[i].stored);
    tx_vec_free(&d->roles);
    tx_vec_free(&d->conds);
    ir_ptrmap_free(&d->extent);
    return out;
}

bool ps_tile_dispatch(PsCtx *ctx, IrModule *m)
{
    Dispatch d = {.module = m, .sm = ir_target_sm(ctx->arch)};
    for (int i = 0; i < m->nfuncs; i++)
        m->funcs[i] = dispatch_func(&d, m->funcs[i]);
    ir_ptrmap_free(&d.level);
    ir_ptrmap_free(&d.fixed);
    ir_ptrmap_free(&d.contents);
    ir_ptrmap_free(&d.alias);
    ir_ptrmap_free(&d.pow2);
    ir_ptrmap_free(&d.stores);
    return !d.failed;
}
