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
 * together, see "conditions on one index"; a condition on a register counts
 * the stores the call's own threads may run, see "roles" and "worlds").
 * Scope ids themselves stay: LowerTIRxOpaque binds them to the launch
 * geometry. A compose_op is replaced by its lowered body.
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
    const IrStmt *def[IR_SCOPEID_COUNT]; /* the latest definition of each kind in scope */
    /* threadIdx.{x,y,z} of launch_thread attrs, for kernels already written
     * in the launched form (no scope ids) */
    IrExpr *launch_var[3], *launch_ext[3];
} ScopeIds;

/* A branch of an `if` whose condition is fixed for each thread (see "roles"). */
typedef struct Role {
    int parent, depth;
    const IrStmt *branch_of; /* the `if` (NULL for the root) */
    bool is_else;
    int world;       /* its world in Dispatch.worlds, -1: its parent's (see "worlds") */
    bool wants_world; /* a call in it needs a scope whose threads a condition
                       * on a register may split */
    /* the CTA's threads (a bit per linear index, nthreads of them) that may
     * take this branch; NULL: not known */
    const uint64_t *threads;
    int64_t nthreads;
} Role;

/* The levels of the local buffers' stores as the threads of one role see
 * them (see "worlds"). */
typedef struct World {
    int role;
    TX_VEC(IrPtrMap) stored; /* per role: local buffer -> the finest level its stores there vary at */
} World;

/* An enclosing condition that reads one warp or thread index (see "conditions
 * on one index"); negated: the else branch. */
typedef struct IndexCond {
    const IrExpr *cond, *var;
    bool negated;
} IndexCond;

typedef struct ThreadId {
    const IrExpr *var;
    IrScopeIdKind kind;
} ThreadId;

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
    TX_VEC(World) worlds; /* [0] is every thread's */
    int world;           /* the world the walk reads and records */
    IrPtrMap alias;      /* a view of a local buffer -> that buffer (one contents) */
    /* a let's variable or a local buffer -> the known multiple of its values
     * (OpCtx.multiples; a local's from all its stores, 1 once it escapes) */
    IrPtrMap multiples;
    /* a local buffer -> the value of its one store (a scalar written once),
     * or 1 when it has several; a let's variable -> its value (OpCtx.stores) */
    IrPtrMap stores;
    bool analyzing;      /* a walk that only records levels */
    bool grew;           /* the walk raised a buffer's level */
    int narrow_index;    /* the finest level the enclosing conditions on one index split */
    TX_VEC(IndexCond) conds; /* the enclosing conditions on one index, outermost first */
    /* the other enclosing conditions, outermost first: their levels are taken
     * where they are used, from that statement's role (see "narrowing") */
    TX_VEC(const IrExpr *) other_conds;
    IrPtrMap extent;     /* a warp or thread index scope id -> its constant extent */
    /* every thread-level scope id of one variable defined so far, in any walk
     * (a kernel may define one kind twice), with its kind (see branch_threads) */
    TX_VEC(ThreadId) thread_ids;
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

/* A thread-level scope id's value at linear thread index t; -1 for the others
 * (a CTA's or a cluster's coordinate). */
static int64_t scopeid_at(IrScopeIdKind k, int64_t t)
{
    switch (k) {
    case IR_SCOPEID_WARPGROUP_ID: return t / 128;
    case IR_SCOPEID_WARP_ID: return t / 32;
    case IR_SCOPEID_WARP_ID_IN_WG: return t / 32 % 4;
    case IR_SCOPEID_LANE_ID: return t % 32;
    case IR_SCOPEID_THREAD_ID: return t;
    case IR_SCOPEID_THREAD_ID_IN_WG: return t % 128;
    default: return -1;
    }
}

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

/* What an inline CUDA helper's source may name that makes its results differ
 * between threads given the same arguments: the thread's coordinates and
 * per-thread special registers, warp shuffles, votes and matches, atomics and
 * reductions to memory, elections, clocks, random numbers. A conservative
 * list: a word counts wherever it starts a name or a PTX token (`red.` in
 * `red.global.add` and after an escape such as `\n\t`, not in `ld.shared`;
 * `laneid` in `%laneid`). */
static const char *const per_thread_words[] = {
    "threadIdx", "%tid", "laneid", "warpid", "smid", "lanemask", "clock", "globaltimer",
    "__shfl", "shfl.", "__ballot", "__activemask", "activemask", "__match", "match.",
    "__any_sync", "__all_sync", "__uni_sync", "vote.", "__reduce", "redux.",
    "atom", "__atomic", "__nv_atomic", "red.", "elect", "rand", "curand",
    "thread_rank", "this_thread", "cooperative_groups", "coalesced", "tiled_partition",
};

static bool name_char(char c) { return c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z'); }

static bool names_word(const char *text, const char *word)
{
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
        if (p == text || !name_char(p[-1]) || (p - text >= 2 && p[-2] == '\\'))
            return true;
    return false;
}

/* T.cuda.func_call with its source: an inline CUDA helper. An empty source
 * (a function defined elsewhere) is not one. */
static const char *helper_source(const IrExpr *e)
{
    if (e->kind != IR_E_CALL || e->u.call.op != IR_OP_CUDA_FUNC_CALL || e->u.call.nargs < 2)
        return NULL;
    const IrExpr *src = e->u.call.args[e->u.call.nargs - 1];
    return src->kind == IR_E_STR && src->u.str[0] ? src->u.str : NULL;
}

/* A helper whose source names no per-thread state: its results are a function
 * of its arguments and of the memory it reads, trusted as a load at a uniform
 * address is (see helper_level). */
static bool uniform_helper(const IrExpr *e)
{
    const char *src = helper_source(e);
    for (size_t i = 0; src && i < sizeof per_thread_words / sizeof *per_thread_words; i++)
        if (names_word(src, per_thread_words[i]))
            return false;
    return src != NULL;
}

/* A call whose result may differ between threads that pass it the same
 * arguments: an election, a PTX instruction, an atomic's old value, a clock,
 * a per-thread special register, a function whose body is not seen or that
 * reads per-thread state. */
static bool per_thread_call(const IrExpr *e)
{
    if (e->kind != IR_E_CALL)
        return false;
    switch (e->u.call.op) {
    case IR_OP_CUDA_ELECT_SYNC: case IR_OP_PTX: case IR_OP_CUDA_ACTIVEMASK:
    case IR_OP_CUDA_ATOMIC_ADD: case IR_OP_CUDA_ATOMIC_CAS: case IR_OP_CUDA_CLOCK64:
    case IR_OP_CUDA_THREAD_RANK: case IR_OP_CALL_FUNC:
    case IR_OP_CALL_LLVM_INTRIN: case IR_OP_CUDA_IKET_RANGE_START:
        return true;
    case IR_OP_CUDA_FUNC_CALL:
        return !uniform_helper(e);
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
    if (uniform_helper(e)) { /* its addresses count by where they point */
        l = level_of(w->d, e).level;
        w->level = l > w->level ? l : w->level;
        return false;
    }
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

static void branch_threads(Dispatch *d, Role *r);

/* The role of a branch of `ifs` taken from the current role. */
static int branch_role(Dispatch *d, const IrStmt *ifs, bool is_else)
{
    for (int i = 1; i < d->roles.len; i++) {
        const Role *r = &d->roles.items[i];
        if (r->parent == d->role && r->branch_of == ifs && r->is_else == is_else)
            return i;
    }
    Role r = {d->role, d->roles.items[d->role].depth + 1, ifs, is_else, -1, false, NULL, 0};
    branch_threads(d, &r);
    tx_vec_push(&d->roles, r);
    return d->roles.len - 1;
}

/* Two known sets of the CTA's threads with none in common. */
static bool disjoint_threads(const Role *a, const Role *b)
{
    if (!a->threads || !b->threads || a->nthreads != b->nthreads)
        return false;
    for (int64_t w = 0; w < (a->nthreads + 63) / 64; w++)
        if (a->threads[w] & b->threads[w])
            return false;
    return true;
}

/* No thread is in both roles: they take different branches of one `if`, or
 * the conditions of their branches hold at no thread index together
 * (`if warp == 11 and lane == 0:` and `if wg < 2:`, see branch_threads). */
static bool exclusive(const Dispatch *d, int a, int b)
{
    const Role *r = d->roles.items;
    if (disjoint_threads(&r[a], &r[b]))
        return true;
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

/* ---------------------------------------------------------------- worlds */
/* The levels of registers as the threads of one role see them. A thread runs
 * only the stores of the roles not exclusive with its own, so the analysis
 * of the local registers repeated without the stores of the roles exclusive
 * with role R gives levels that hold among R's threads: over a unit of
 * threads that R's conditions keep whole (the others are refused by those
 * conditions), they hold over the unit. World 0 is every thread's; a role
 * that holds a call of a warp, warpgroup or CTA under a condition on a
 * register gets its own world, and a call reads the world of its role or of
 * the nearest role above it that has one. So a warpgroup's TMEM load under
 * `if wg < 2:`, in a loop on a task a scheduler thread (`if warp == 11 and
 * lane == 0:`) fetches and every thread then reads from shared memory, sees
 * the task as uniform: the scheduler thread's own stores are in a role no
 * thread of warpgroups 0 and 1 takes. */

/* The world of a role: its own, or its nearest ancestor's. */
static int world_of(const Dispatch *d, int role)
{
    while (d->roles.items[role].world < 0)
        role = d->roles.items[role].parent;
    return d->roles.items[role].world;
}

/* The walk enters a role; outside the analysis it reads that role's world. */
static void enter_role(Dispatch *d, int role)
{
    d->role = role;
    if (!d->analyzing)
        d->world = world_of(d, role);
}

/* The finest level of the stores to `buf` that the current role's threads
 * may have run. */
static int stored_level(const Dispatch *d, const IrExpr *buf)
{
    const World *w = &d->worlds.items[d->world];
    int l = IR_SCOPE_WORLD;
    for (int i = 0; i < w->stored.len; i++) {
        uintptr_t v;
        if (ir_ptrmap_get(&w->stored.items[i], buf, &v) && (int)v > l && !exclusive(d, i, d->role))
            l = (int)v;
    }
    return l;
}

/* A store of level `level` to `buf` in the current role (none when no thread
 * of the world runs it). */
static void raise_stored(Dispatch *d, const IrExpr *buf, int level)
{
    World *w = &d->worlds.items[d->world];
    if (exclusive(d, d->role, w->role))
        return;
    while (w->stored.len <= d->role)
        tx_vec_push(&w->stored, (IrPtrMap){0});
    IrPtrMap *m = &w->stored.items[d->role];
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

/* Where `T.address_of(x)` points, as a value: an element of a local buffer is
 * each thread's own register, at the same place in every thread, so only its
 * indices count; an element of another buffer also depends on where the
 * buffer is (a view's data, recorded at its T.decl_buffer). */
static Level address_level(Dispatch *d, const IrExpr *x)
{
    if (x->kind != IR_E_LOAD)
        return level_of(d, x);
    const IrExpr *buf = x->u.access.buffer;
    Level l = strcmp(buf->u.var.type->scope, "local") ? level_of(d, buf) : varies(IR_SCOPE_WORLD);
    for (int i = 0; i < x->u.access.n; i++)
        l = max_level(l, level_of(d, x->u.access.indices[i]));
    return max_level(l, level_of(d, x->u.access.predicate));
}

static const IrExpr *address_of_arg(const IrExpr *e)
{
    return e->kind == IR_E_CALL && e->u.call.op == IR_OP_ADDRESS_OF && e->u.call.nargs == 1
               ? e->u.call.args[0]
               : NULL;
}

/* A uniform helper's results vary where its arguments do, an address
 * argument by where it points: a register passed by its address is taken as
 * the helper's output (see "local registers"), and what the helper reads at
 * an address is trusted as a load is. It is never taken as uniform over more
 * than a CTA. */
static Level helper_level(Dispatch *d, const IrExpr *e)
{
    const IrCall *c = &e->u.call;
    Level l = varies(IR_SCOPE_CTA);
    for (int i = 1; i < c->nargs - 1; i++) {
        const IrExpr *x = address_of_arg(c->args[i]);
        l = max_level(l, x ? address_level(d, x) : level_of(d, c->args[i]));
    }
    return l;
}

static Level call_level(Dispatch *d, const IrExpr *e)
{
    const IrCall *c = &e->u.call;
    if (per_thread_call(e))
        return varies(IR_SCOPE_THREAD);
    if (uniform_helper(e))
        return helper_level(d, e);
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
    bool seen = false;
    for (int i = 0; i < d->thread_ids.len; i++)
        seen |= d->thread_ids.items[i].var == s->u.scopeid.vars[0];
    if (s->u.scopeid.nvars == 1 && scopeid_at(s->u.scopeid.kind, 0) >= 0 && !seen)
        tx_vec_push(&d->thread_ids, ((ThreadId){s->u.scopeid.vars[0], s->u.scopeid.kind}));
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

/* The CTA's thread count, when its scope ids or launch attrs make it a
 * constant (*n untouched otherwise). */
static bool cta_threads(const Dispatch *d, int64_t *n)
{
    int64_t k;
    if (thread_count(d, &k))
        *n = k;
    else if (id_extent(d, IR_SCOPEID_WARP_ID, &k))
        *n = k * 32;
    else if (id_extent(d, IR_SCOPEID_WARPGROUP_ID, &k))
        *n = k * 32 * warps_per_warpgroup(d);
    else if (warps_per_warpgroup(d) < 4)
        *n = 32 * warps_per_warpgroup(d);
    else
        return false;
    return true;
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
    cta_threads(d, &c->cta_threads);
}

/* ---------------------------------------------------------------- the threads of a role */
/* The threads that may take a branch: those of the role it is taken from at
 * which the branch's condition holds, when the condition reads nothing but
 * the thread-level scope ids (each a function of the CTA's linear thread
 * index t: a warp t / 32, a lane t % 32, a warpgroup t / 128, ...) and the
 * CTA's thread count is a known constant of at most MAX_INDEX_EXTENT; else
 * the threads of the role it is taken from. */

static void branch_threads(Dispatch *d, Role *r)
{
    const Role *from = &d->roles.items[r->parent];
    const IrExpr *cond = r->branch_of->u.ifs.cond;
    int64_t n, holds;
    r->threads = from->threads, r->nthreads = from->nthreads;
    if (!cta_threads(d, &n) || n > MAX_INDEX_EXTENT || (from->threads && from->nthreads != n))
        return;
    /* the scope ids, and threadIdx.x of a one-dimensional launch */
    int nvar = d->thread_ids.len + 1;
    const IrExpr **var = TX_NEW_ARRAY(&d->module->arena, const IrExpr *, nvar);
    int64_t *val = TX_NEW_ARRAY(&d->module->arena, int64_t, nvar);
    for (int i = 0; i < d->thread_ids.len; i++)
        var[i] = d->thread_ids.items[i].var;
    bool one_dim = d->ids.launch_var[0] && !d->ids.launch_var[1];
    var[nvar - 1] = one_dim ? d->ids.launch_var[0] : NULL;
    uint64_t *bits = TX_NEW_ARRAY(&d->module->arena, uint64_t, (n + 63) / 64);
    for (int64_t t = 0; t < n; t++) {
        if (from->threads && !(from->threads[t / 64] >> (t % 64) & 1))
            continue;
        for (int i = 0; i < d->thread_ids.len; i++)
            val[i] = scopeid_at(d->thread_ids.items[i].kind, t);
        val[nvar - 1] = t;
        if (!ar_eval(cond, var, val, nvar, &holds))
            return; /* it reads something else */
        if ((holds != 0) != r->is_else)
            bits[t / 64] |= (uint64_t)1 << (t % 64);
    }
    r->threads = bits, r->nthreads = n;
}

/* ---------------------------------------------------------------- narrowing */
/* The finest level the enclosing conditions vary at: those on one index
 * together (see "conditions on one index"), the others each by its level.
 * The level of a condition on a register is taken where it is used, in the
 * role (and world) of the statement it encloses, not where the condition
 * is: only the threads of that role run the statement, and their registers
 * never see the stores of roles exclusive with it. So a warpgroup's call
 * under `while task >= 0:` and then `if wg < 2:` counts only the stores to
 * `task` that warpgroups 0 and 1 may run. */
static int narrowing(Dispatch *d)
{
    int l = d->narrow_index;
    for (int i = 0; i < d->other_conds.len; i++) {
        int k = level_of(d, d->other_conds.items[i]).level;
        l = k > l ? k : l;
    }
    return l;
}

/* An enclosing condition is not fixed for each thread: its level depends on
 * the stores a world counts. */
static bool under_register_cond(const Dispatch *d)
{
    for (int i = 0; i < d->other_conds.len; i++)
        if (!fixed_expr(d, d->other_conds.items[i]))
            return true;
    return false;
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
 * address after a barrier carries over to the registers it lands in. So is
 * an inline CUDA helper (T.cuda.func_call with its source), of its results
 * into every register it is given, by its address or by value (a C++
 * reference parameter may write it): a uniform helper's level (helper_level),
 * a per-thread one's otherwise. */

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
        ir_ptrmap_put(&d->multiples, local_root(d, buf), 1);
    }
}

/* A register written where its level is known, not its value. */
static void forget_value(Dispatch *d, const IrExpr *buf)
{
    ir_ptrmap_put(&d->multiples, local_root(d, buf), 1);
    ir_ptrmap_put(&d->stores, local_root(d, buf), 1);
}

/* A register an inline helper is given, by value or by its address
 * (`T.address_of(r[i])`): the helper may write it. */
static const IrExpr *helper_register(const IrExpr *arg)
{
    const IrExpr *x = address_of_arg(arg), *reg = x ? x : arg;
    return reg->kind == IR_E_LOAD && !strcmp(reg->u.access.buffer->u.var.type->scope, "local")
               ? reg
               : NULL;
}

/* The direct arguments of a call that may write them: escaped, except the
 * outputs of a uniform PTX instruction and the registers of an inline helper,
 * whose writes are tracked (record_uniform_ptx, record_helper_writes). */
static bool find_escapes(IrVisitor *v, const IrExpr *e)
{
    Dispatch *d = v->ctx;
    bool uniform = uniform_ptx(e);
    if (helper_source(e)) {
        for (int i = 1; i < e->u.call.nargs - 1; i++) {
            const IrExpr *a = e->u.call.args[i], *reg = helper_register(a);
            if (reg)
                forget_value(d, reg->u.access.buffer);
            ir_visit_expr(v, reg ? reg : a);
        }
        return false;
    }
    if (e->kind == IR_E_CALL && (e->u.call.op == IR_OP_PTX || e->u.call.op == IR_OP_ADDRESS_OF ||
                                 e->u.call.op == IR_OP_BUFFER_DATA || e->dtype.code == IR_DT_VOID))
        for (int i = 0; i < e->u.call.nargs; i++) {
            const IrExpr *a = e->u.call.args[i];
            if (!uniform || a->kind != IR_E_LOAD)
                escape(d, a);
            else
                forget_value(d, a->u.access.buffer);
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
/* A store lowers its local buffer's known multiple to the gcd with the
 * value's (to 1 through a view: another dtype's bits). */
static void record_store_pow2(Dispatch *d, const IrStmt *s, const IrExpr *buf)
{
    uintptr_t old;
    const IrExpr *v = s->u.store.value;
    int64_t m = buf == s->u.store.buffer && ir_dtype_is_int(v->dtype)
                    ? ar_known_multiple(&d->multiples, v)
                    : 1;
    bool seen = ir_ptrmap_get(&d->multiples, buf, &old);
    uintptr_t one;
    if (!ir_ptrmap_get(&d->stores, buf, &one))
        ir_ptrmap_put(&d->stores, buf, buf == s->u.store.buffer ? (uintptr_t)v : 1);
    else if (one != (uintptr_t)v)
        ir_ptrmap_put(&d->stores, buf, 1);
    if (seen)
        m = ar_gcd64((int64_t)old, m);
    if (!seen || (int64_t)old != m) {
        ir_ptrmap_put(&d->multiples, buf, (uintptr_t)m);
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
    Level l = max_level(level_of(d, s->u.store.value), varies(narrowing(d)));
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
    Level l = varies(narrowing(d));
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

/* An inline helper's writes: each register it is given rises to the level of
 * the helper's results and of the enclosing conditions. */
static void record_helper_writes(Dispatch *d, const IrExpr *e)
{
    int l = max_level(call_level(d, e), varies(narrowing(d))).level;
    for (int i = 1; i < e->u.call.nargs - 1; i++) {
        const IrExpr *reg = helper_register(e->u.call.args[i]);
        uintptr_t known;
        if (reg && ir_ptrmap_get(&d->contents, local_root(d, reg->u.access.buffer), &known) &&
            known != IR_SCOPE_THREAD)
            raise_stored(d, local_root(d, reg->u.access.buffer), l);
    }
}

typedef struct HelperWalk {
    IrVisitor v;
    Dispatch *d;
    const IrStmt *stmt;
} HelperWalk;

static bool helper_walk_stmt(IrVisitor *v, const IrStmt *s)
{
    return s == ((HelperWalk *)v->ctx)->stmt;
}

static bool helper_walk_expr(IrVisitor *v, const IrExpr *e)
{
    if (helper_source(e))
        record_helper_writes(((HelperWalk *)v->ctx)->d, e);
    return true;
}

/* The helpers among a statement's own expressions (not its body's). */
static void record_helpers(Dispatch *d, const IrStmt *s)
{
    HelperWalk w = {{0}, d, s};
    w.v.ctx = &w, w.v.stmt = helper_walk_stmt, w.v.expr = helper_walk_expr;
    ir_visit_stmt(&w.v, s);
}

/* ---------------------------------------------------------------- the walk */

static IrScope call_varies_at(const OpCtx *c, const IrExpr *e)
{
    return (IrScope)level_of(c->pass, e).level;
}

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
    c.multiples = &d->multiples;
    c.stores = &d->stores;
    c.narrow = narrowing(d);
    c.varies_at = call_varies_at;
    c.pass = d;
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

/* The narrowing of the enclosing conditions on one index, together. */
static int index_narrowing(Dispatch *d)
{
    int l = IR_SCOPE_WORLD;
    for (int i = 0; i < d->conds.len; i++) {
        int k = index_level(d, d->conds.items[i].var);
        l = k > l ? k : l;
    }
    return l;
}

/* A branch's scope ids end with it: a call after the `if` (or in its other
 * branch) takes its thread indices from the ids defined where it is. */
static IrStmt *mutate_narrowed(Dispatch *d, IrStmt *s, const IrExpr *cond, bool negated)
{
    int saved = d->narrow_index, nconds = d->conds.len, nother = d->other_conds.len;
    ScopeIds ids = d->ids;
    const IrExpr *var = index_var(d, cond);
    if (var)
        tx_vec_push(&d->conds, ((IndexCond){cond, var, negated}));
    else
        tx_vec_push(&d->other_conds, cond);
    d->narrow_index = index_narrowing(d);
    IrStmt *r = ir_mutate_stmt(&d->mut, s);
    d->narrow_index = saved, d->conds.len = nconds, d->other_conds.len = nother;
    d->ids = ids;
    return r;
}

/* A branch of an `if`: narrowed by its condition, in its own role when the
 * condition is fixed for each thread. */
static IrStmt *mutate_branch(Dispatch *d, const IrStmt *s, bool is_else)
{
    int saved = d->role;
    if (fixed_expr(d, s->u.ifs.cond))
        enter_role(d, branch_role(d, s, is_else));
    IrStmt *r = mutate_narrowed(d, is_else ? s->u.ifs.else_s : s->u.ifs.then_s, s->u.ifs.cond,
                                is_else);
    enter_role(d, saved);
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
    if (d->analyzing)
        record_helpers(d, s);
    switch (s->kind) {
    case IR_S_SCOPEID: record_scopeid(d, s); return NULL;
    case IR_S_DECL: /* a view is where its data points (address_level) */
        if (s->u.decl.data)
            record_level(d, s->u.decl.buffer, varies(level_of(d, s->u.decl.data).level));
        return NULL;
    case IR_S_ATTR: record_launch_attr(d, s); return NULL;
    case IR_S_BIND:
        record_level(d, s->u.bind.var, level_of(d, s->u.bind.value));
        record_fixed(d, s->u.bind.var, fixed_expr(d, s->u.bind.value));
        if (ir_dtype_is_int(s->u.bind.value->dtype)) {
            ir_ptrmap_put(&d->multiples, s->u.bind.var,
                          (uintptr_t)ar_known_multiple(&d->multiples, s->u.bind.value));
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
        if (d->analyzing) {
            if (s->u.tile.scope != IR_SCOPE_THREAD && under_register_cond(d))
                d->roles.items[d->role].wants_world = true;
            return s;
        }
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

/* The levels of the registers in the world of `role`: walks that only record
 * levels until no buffer's level grows (levels only rise, so this ends after
 * a few walks). */
static void analyze_world(Dispatch *d, IrFunc *f, int role)
{
    tx_vec_push(&d->worlds, ((World){role, {0}}));
    d->world = d->roles.items[role].world = d->worlds.len - 1;
    do {
        d->grew = false;
        d->mut = (IrMutator){.ctx = d, .arena = &d->module->arena, .stmt = dispatch_stmt};
        memset(&d->ids, 0, sizeof d->ids);
        d->narrow_index = IR_SCOPE_WORLD;
        d->role = 0;
        ir_mutate_func(&d->mut, f);
        ir_mutator_free(&d->mut);
    } while (d->grew);
}

/* The levels of the local buffers' contents: escapes first, then every
 * thread's world, which finds the roles that want their own, then theirs. */
static void analyze_locals(Dispatch *d, IrFunc *f)
{
    IrVisitor v = {.ctx = d, .def = track_locals};
    ir_visit_func(&v, f);
    v = (IrVisitor){.ctx = d, .expr = find_escapes, .stmt = find_tile_escapes};
    ir_visit_func(&v, f);
    d->analyzing = true;
    analyze_world(d, f, 0);
    for (int i = 1; i < d->roles.len; i++)
        if (d->roles.items[i].wants_world)
            analyze_world(d, f, i);
    d->analyzing = false;
}

static IrFunc *dispatch_func(Dispatch *d, IrFunc *f)
{
    d->func = f;
    tx_vec_push(&d->roles, (Role){0});
    analyze_locals(d, f);
    d->mut = (IrMutator){.ctx = d, .arena = &d->module->arena, .stmt = dispatch_stmt};
    memset(&d->ids, 0, sizeof d->ids);
    d->narrow_index = IR_SCOPE_WORLD;
    enter_role(d, 0);
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
    for (int i = 0; i < d->worlds.len; i++) {
        for (int k = 0; k < d->worlds.items[i].stored.len; k++)
            ir_ptrmap_free(&d->worlds.items[i].stored.items[k]);
        tx_vec_free(&d->worlds.items[i].stored);
    }
    tx_vec_free(&d->worlds);
    tx_vec_free(&d->roles);
    tx_vec_free(&d->conds);
    tx_vec_free(&d->other_conds);
    tx_vec_free(&d->thread_ids);
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
    ir_ptrmap_free(&d.multiples);
    ir_ptrmap_free(&d.stores);
    return !d.failed;
}
