/* The launch geometry of one device region (T.device_entry()) from its
 * scope-id definitions, and the value each scope id is bound to
 * (reference: layout_passes.md §3.2, done there by TilePrimitiveDispatch).
 *
 * Extents: blockIdx.{x,y,z} from T.cta_id (else cluster_id x
 * cta_id_in_cluster, else the thread_binding loops over blockIdx),
 * threadIdx.{x,y,z} from T.thread_id (else warps x 32 or warpgroups x 128,
 * else the thread_binding loops over threadIdx; such a loop under scope ids
 * must cover the launch's extent), clusterCtaIdx.{x,y,z} from T.cta_id_in_cluster when the
 * cluster has more than one CTA. Definitions of one kind must agree, and the
 * thread, warp and warpgroup counts must fit each other; a warp_id_in_wg of
 * fewer than 4 warps makes the CTA one warpgroup of that many warps.
 *
 * Values: cta_id -> blockIdx, thread_id -> threadIdx, cta_id_in_cluster ->
 * clusterCtaIdx, cluster_id -> blockIdx // cluster extent, warp_id ->
 * warp_id_in_cta (one warp-uniform shuffle of ltid // 32), warpgroup_id ->
 * warp_id_in_cta // 4, warp_id_in_wg -> warp_id_in_cta % 4, lane_id -> ltid %
 * 32, thread_id_in_wg -> ltid % 128, cta_id_in_pair -> the cluster rank % 2,
 * where ltid = tx + ty*ex + tz*ex*ey. A value of another dtype than the
 * variable's is cast.
 *
 * With the thread count known, two hangs are refused: warp roles whose
 * setmaxnreg counts ask for more registers than the CTA is launched with,
 * and a named barrier counting more threads than the CTA has. */
#include "internal.h"
#include "../ir/ptx.h"

#include <stdio.h>
#include <string.h>

#define K(name) IR_SCOPEID_##name

typedef struct Geometry {
    TxArena *a;
    TxDiags *diags;
    TxSpan span; /* the device region's */
    const IrStmt *def[IR_SCOPEID_COUNT]; /* the first definition with extents of each kind */
    bool used[IR_SCOPEID_COUNT];
    IrExpr *grid[3], *block[3], *cluster[3];
    int ngrid, nblock, ncluster;
    IrExpr *bx[3], *tx[3], *cx[3]; /* launch variables */
    IrExpr *warp;                 /* warp_id_in_cta, when needed */
    const IrStmt *bound[6];       /* thread_binding loops (now thread_extent attrs) over
                                   * threadIdx.x, .y, .z, blockIdx.x, .y, .z */
    bool failed;
} Geometry;

static const char *const bound_tags[6] = {"threadIdx.x", "threadIdx.y", "threadIdx.z",
                                          "blockIdx.x",  "blockIdx.y",  "blockIdx.z"};

static const char *scopeid_name(IrScopeIdKind k) { return ir_scopeids[k].name; }

static int64_t const_or(const IrExpr *e, int64_t fallback)
{
    int64_t v;
    return e && ps_const_int(e, &v) ? v : fallback;
}

/* The product of the extents of a definition; -1 when not constant. */
static int64_t const_product(const IrStmt *def)
{
    int64_t p = 1;
    for (int i = 0; def && i < def->u.scopeid.nvars; i++) {
        int64_t v = const_or(def->u.scopeid.extents[i], -1);
        if (v < 0)
            return -1;
        p *= v;
    }
    return p;
}

/* ---------------------------------------------------------------- collecting */

static void check_same_extents(Geometry *g, const IrStmt *first, const IrStmt *s)
{
    for (int i = 0; i < s->u.scopeid.nvars && i < first->u.scopeid.nvars; i++) {
        int64_t x = const_or(first->u.scopeid.extents[i], -1);
        int64_t y = const_or(s->u.scopeid.extents[i], -1);
        if (x >= 0 && y >= 0 && x != y) {
            tx_error(g->diags, TX_E_LAUNCH, s->span,
                     "inconsistent extents for T.%s: %lld here, %lld before",
                     scopeid_name(s->u.scopeid.kind), (long long)y, (long long)x);
            tx_note(g->diags, first->span, "the first definition is here");
            g->failed = true;
        }
    }
}

static void collect_bound(Geometry *g, const IrStmt *s)
{
    if (strcmp(s->u.attr.key, "thread_extent") || !s->u.attr.thread_tag)
        return;
    for (int t = 0; t < 6; t++)
        if (!strcmp(s->u.attr.thread_tag, bound_tags[t]) && !g->bound[t])
            g->bound[t] = s;
}

static bool collect_hook(IrVisitor *v, const IrStmt *s)
{
    Geometry *g = v->ctx;
    if (s->kind == IR_S_ATTR)
        collect_bound(g, s);
    if (s->kind != IR_S_SCOPEID)
        return true;
    IrScopeIdKind k = s->u.scopeid.kind;
    g->used[k] = true;
    if (!s->u.scopeid.extents)
        return true;
    if (g->def[k])
        check_same_extents(g, g->def[k], s);
    else
        g->def[k] = s;
    return true;
}

/* ---------------------------------------------------------------- extents */

static void geometry_error(Geometry *g, const IrStmt *at, const char *msg)
{
    tx_error(g->diags, TX_E_LAUNCH, at ? at->span : g->span, "%s", msg);
    g->failed = true;
}

/* Threads per CTA implied by the warp or warpgroup ids; 0 when none; -1 unknown. */
static int64_t threads_from_warps(Geometry *g)
{
    const IrStmt *lane = g->def[K(LANE_ID)], *wiw = g->def[K(WARP_ID_IN_WG)];
    const IrStmt *tiw = g->def[K(THREAD_ID_IN_WG)];
    if (lane && const_product(lane) != 32)
        geometry_error(g, lane, "T.lane_id has 32 lanes on CUDA");
    int64_t wg_warps = wiw ? const_product(wiw) : 4;
    if (wg_warps < 1 || wg_warps > 4)
        geometry_error(g, wiw, "T.warp_id_in_wg has at most 4 warps on CUDA");
    if (tiw && const_product(tiw) != 128)
        geometry_error(g, tiw, "T.thread_id_in_wg has 128 threads on CUDA");
    int64_t by_warp = g->def[K(WARP_ID)] ? const_product(g->def[K(WARP_ID)]) : 0;
    /* fewer than 4 warps per warpgroup: the CTA is that one partial warpgroup */
    int64_t by_wg = g->def[K(WARPGROUP_ID)] ? const_product(g->def[K(WARPGROUP_ID)])
                    : wg_warps < 4 ? 1 : 0;
    if (by_warp > 0)
        by_warp *= 32;
    if (by_wg > 0)
        by_wg *= 32 * wg_warps;
    if (by_warp > 0 && by_wg > 0 && by_warp != by_wg) {
        char msg[160];
        snprintf(msg, sizeof msg, "inconsistent extents: T.warp_id gives %lld threads per CTA, "
                 "T.warpgroup_id %lld", (long long)by_warp, (long long)by_wg);
        geometry_error(g, g->def[K(WARPGROUP_ID)], msg);
    }
    return by_warp ? by_warp : by_wg;
}

/* The extents of the thread_binding loops over threadIdx (first = 0) or
 * blockIdx (first = 3), which launch the kernel when no scope id gives them:
 * x, then y, then z; their count. */
static int from_bound_loops(Geometry *g, int first, IrExpr **ext)
{
    int n = 0;
    while (n < 3 && g->bound[first + n]) {
        ext[n] = g->bound[first + n]->u.attr.value;
        n++;
    }
    for (int t = n; t < 3; t++)
        if (g->bound[first + t]) {
            char msg[160];
            snprintf(msg, sizeof msg, "a loop is bound to %s but none to %s", bound_tags[first + t],
                     bound_tags[first + n]);
            geometry_error(g, g->bound[first + t], msg);
        }
    return n;
}

/* A thread_binding loop inside a region the scope ids launch covers the
 * launch's extent along its dimension. */
static void check_bound_loops(Geometry *g, int first, IrExpr *const *ext, int n)
{
    for (int t = 0; t < 3; t++) {
        const IrStmt *b = g->bound[first + t];
        int64_t have = b ? const_or(b->u.attr.value, -1) : -1;
        int64_t want = t < n ? const_or(ext[t], -1) : 1;
        if (have >= 0 && want >= 0 && have != want) {
            char msg[200];
            snprintf(msg, sizeof msg, "a loop bound to %s has extent %lld, but the kernel's scope "
                     "ids launch %lld along it", bound_tags[first + t], (long long)have,
                     (long long)want);
            geometry_error(g, b, msg);
        }
    }
}

static void set_block(Geometry *g)
{
    const IrStmt *tid = g->def[K(THREAD_ID)];
    int64_t warps = threads_from_warps(g);
    if (tid) {
        g->nblock = tid->u.scopeid.nvars;
        for (int i = 0; i < g->nblock; i++)
            g->block[i] = tid->u.scopeid.extents[i];
        int64_t threads = const_product(tid);
        if (warps > 0 && threads > 0 && warps != threads) {
            char msg[200];
            snprintf(msg, sizeof msg, "inconsistent extents: T.thread_id gives %lld threads per "
                     "CTA, but the warp ids need %lld", (long long)threads, (long long)warps);
            geometry_error(g, tid, msg);
        }
    } else if (warps > 0) {
        g->nblock = 1;
        g->block[0] = ps_int(g->a, IR_INT32, warps);
    } else {
        g->nblock = from_bound_loops(g, 0, g->block);
    }
    if (!g->nblock)
        geometry_error(g, NULL, "kernel has no thread launch parameters (define T.thread_id, "
                                "T.warp_id or T.warpgroup_id with extents, or bind a loop to "
                                "threadIdx.x)");
}

static void set_grid_and_cluster(Geometry *g)
{
    const IrStmt *cta = g->def[K(CTA_ID)], *cl = g->def[K(CLUSTER_ID)];
    const IrStmt *in = g->def[K(CTA_ID_IN_CLUSTER)];
    if (in && const_product(in) != 1) {
        g->ncluster = in->u.scopeid.nvars;
        for (int i = 0; i < g->ncluster; i++)
            g->cluster[i] = in->u.scopeid.extents[i];
    }
    if (cta) {
        g->ngrid = cta->u.scopeid.nvars;
        for (int i = 0; i < g->ngrid; i++)
            g->grid[i] = cta->u.scopeid.extents[i];
    } else if (cl) {
        g->ngrid = cl->u.scopeid.nvars;
        for (int i = 0; i < g->ngrid; i++)
            g->grid[i] = i < g->ncluster ? ps_arith(g->a, IR_E_MUL, cl->u.scopeid.extents[i],
                                                    g->cluster[i])
                                         : cl->u.scopeid.extents[i];
    } else {
        g->ngrid = from_bound_loops(g, 3, g->grid);
    }
    for (int i = 0; i < g->ncluster; i++) {
        int64_t grid = i < g->ngrid ? const_or(g->grid[i], -1) : 1;
        int64_t c = const_or(g->cluster[i], -1);
        if (grid > 0 && c > 0 && grid % c) {
            char msg[160];
            snprintf(msg, sizeof msg, "the grid has %lld CTAs along %c, not a multiple of the "
                     "cluster's %lld", (long long)grid, "xyz"[i], (long long)c);
            geometry_error(g, in, msg);
        }
    }
}

static void check_deferred(Geometry *g)
{
    for (int k = 0; k < IR_SCOPEID_COUNT; k++) {
        bool needed = k == K(CTA_ID) || k == K(THREAD_ID) || k == K(CTA_ID_IN_CLUSTER);
        if (needed && g->used[k] && !g->def[k] &&
            !(k == K(THREAD_ID) && g->nblock) && !(k == K(CTA_ID) && g->ngrid)) {
            char msg[160];
            snprintf(msg, sizeof msg, "cannot infer the extents of T.%s(): give them, e.g. "
                     "T.%s([128])", scopeid_name(k), scopeid_name(k));
            geometry_error(g, NULL, msg);
        }
    }
}

/* ---------------------------------------------------------------- values */

static IrExpr *launch_var(TxArena *a, const char *tag)
{
    return ir_var(a, tag, ir_prim_type(a, IR_INT32), (TxSpan){0});
}

static void make_launch_vars(Geometry *g)
{
    static const char *const bx[3] = {"blockIdx.x", "blockIdx.y", "blockIdx.z"};
    static const char *const tx[3] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};
    static const char *const cx[3] = {"clusterCtaIdx.x", "clusterCtaIdx.y", "clusterCtaIdx.z"};
    for (int i = 0; i < g->ngrid; i++)
        g->bx[i] = launch_var(g->a, bx[i]);
    for (int i = 0; i < g->nblock; i++)
        g->tx[i] = launch_var(g->a, tx[i]);
    for (int i = 0; i < g->ncluster; i++)
        g->cx[i] = launch_var(g->a, cx[i]);
}

/* x0 + x1*e0 + x2*e0*e1: the linear index of a multi-dim launch. */
static IrExpr *linear(TxArena *a, IrExpr *const *x, IrExpr *const *ext, int n)
{
    if (!n)
        return ps_int(a, IR_INT32, 0);
    IrExpr *sum = x[0], *scale = ps_int(a, IR_INT32, 1);
    for (int i = 1; i < n; i++) {
        scale = ps_arith(a, IR_E_MUL, scale, ps_cast(a, IR_INT32, ext[i - 1]));
        sum = ps_arith(a, IR_E_ADD, sum, ps_arith(a, IR_E_MUL, x[i], scale));
    }
    return sum;
}

static IrExpr *ltid(Geometry *g) { return linear(g->a, g->tx, g->block, g->nblock); }

static IrExpr *floordiv(Geometry *g, IrExpr *x, int64_t c)
{
    return ps_arith(g->a, IR_E_FLOORDIV, x, ps_int(g->a, x->dtype, c));
}

static IrExpr *floormod(Geometry *g, IrExpr *x, int64_t c)
{
    return ps_arith(g->a, IR_E_FLOORMOD, x, ps_int(g->a, x->dtype, c));
}

/* warp_id_in_cta = T.tvm_warp_shuffle(0xffffffff, ltid // 32, 0, 32, 32) */
static IrStmt *warp_bind(Geometry *g)
{
    g->warp = ir_var(g->a, "warp_id_in_cta", ir_prim_type(g->a, IR_INT32), (TxSpan){0});
    IrExpr *args[5] = {ps_int(g->a, IR_UINT32, 0xffffffffLL), floordiv(g, ltid(g), 32),
                       ps_int(g->a, IR_INT32, 0), ps_int(g->a, IR_INT32, 32),
                       ps_int(g->a, IR_INT32, 32)};
    IrExpr *shfl = ps_call(g->a, IR_OP_WARP_SHUFFLE, IR_INT32, args, 5);
    return ps_bind(g->a, g->warp, shfl, (TxSpan){0});
}

static IrExpr *dim_or_zero(Geometry *g, IrExpr *const *vars, int n, int i)
{
    return i < n ? vars[i] : ps_int(g->a, IR_INT32, 0);
}

static IrExpr *scope_value(Geometry *g, IrScopeIdKind k, int i)
{
    switch (k) {
    case K(CTA_ID): return dim_or_zero(g, g->bx, g->ngrid, i);
    case K(THREAD_ID): return dim_or_zero(g, g->tx, g->nblock, i);
    case K(CTA_ID_IN_CLUSTER): return dim_or_zero(g, g->cx, g->ncluster, i);
    case K(CLUSTER_ID): {
        IrExpr *b = dim_or_zero(g, g->bx, g->ngrid, i);
        return i < g->ncluster ? ps_arith(g->a, IR_E_FLOORDIV, b, ps_cast(g->a, IR_INT32,
                                                                            g->cluster[i]))
                               : b;
    }
    case K(WARP_ID): return g->warp;
    case K(WARPGROUP_ID): return floordiv(g, g->warp, 4);
    case K(WARP_ID_IN_WG): return floormod(g, g->warp, 4);
    case K(LANE_ID): return floormod(g, ltid(g), 32);
    case K(THREAD_ID_IN_WG): return floormod(g, ltid(g), 128);
    case K(CTA_ID_IN_PAIR):
        return floormod(g, linear(g->a, g->cx, g->cluster, g->ncluster), 2);
    case IR_SCOPEID_COUNT: break;
    }
    TX_UNREACHABLE();
}

static IrStmt *bind_scope_ids(IrMutator *m, IrStmt *s)
{
    if (s->kind != IR_S_SCOPEID)
        return NULL;
    Geometry *g = m->ctx;
    IrStmt **binds = TX_NEW_ARRAY(g->a, IrStmt *, s->u.scopeid.nvars);
    for (int i = 0; i < s->u.scopeid.nvars; i++) {
        IrExpr *var = s->u.scopeid.vars[i];
        IrExpr *value = ps_cast(g->a, var->dtype, scope_value(g, s->u.scopeid.kind, i));
        binds[i] = ps_bind(g->a, var, value, s->span);
    }
    return ps_seq2(g->a, ir_seq(g->a, binds, s->u.scopeid.nvars, s->span), NULL);
}

/* Threads per CTA; -1 when a dimension is not constant. */
static int64_t block_threads(const Geometry *g)
{
    int64_t threads = 1;
    for (int i = 0; i < g->nblock; i++) {
        int64_t e = const_or(g->block[i], -1);
        if (e < 0)
            return -1;
        threads *= e;
    }
    return threads;
}

/* ---------------------------------------------------------------- warp roles' registers */

/* setmaxnreg.inc takes its registers from the CTA's pool, what the CTA was
 * launched with plus what setmaxnreg.dec released, and waits until the pool
 * holds them: warp roles asking for more than the launch gave wait forever.
 * The roles are the ifs a setmaxnreg starts (WarpRole / WarpgroupRole); a
 * condition that does not fold for every warp once the thread, lane, warp
 * and warpgroup ids are constants, or differs between a warp's lanes, or a
 * warp that sets two different counts, or a setmaxnreg elsewhere than at
 * the start of a role, leaves the split unknown, and nothing is checked. */

typedef struct RegRole {
    const IrStmt *at; /* the role's if */
    IrExpr *cond;     /* its condition, with the earlier branches' negated for an elif */
    bool inc;
    int64_t nreg;
} RegRole;

typedef struct RegScan {
    TxArena *a;
    TX_VEC(RegRole) roles;
    TX_VEC(const IrStmt *) ids; /* 1-D scope-id definitions of thread, lane, warp and
                                 * warpgroup ids */
    bool per_lane;              /* some are thread or lane ids */
    IrPtrMap elif_guard; /* an elif's if -> the negation of the branches before it */
    int64_t min_blocks, max_registers; /* the launch-bound attrs; 0: not given */
    int setmaxnregs;     /* setmaxnreg calls anywhere: more than roles leaves it unknown */
} RegScan;

static bool count_setmaxnreg(IrVisitor *v, const IrExpr *e)
{
    ((RegScan *)v->ctx)->setmaxnregs += ir_is_ptx_call(e, IR_PTX_setmaxnreg);
    return true;
}

static const IrExpr *first_eval(const IrStmt *s)
{
    while (s && s->kind == IR_S_SEQ && s->u.seq.n)
        s = s->u.seq.stmts[0];
    return s && s->kind == IR_S_EVAL ? s->u.eval : NULL;
}

static bool reg_scan_hook(IrVisitor *v, const IrStmt *s)
{
    RegScan *r = v->ctx;
    int64_t n;
    if (s->kind == IR_S_SCOPEID && s->u.scopeid.nvars == 1) {
        IrScopeIdKind k = s->u.scopeid.kind;
        bool lane = k == K(THREAD_ID) || k == K(THREAD_ID_IN_WG) || k == K(LANE_ID);
        if (lane || k == K(WARP_ID) || k == K(WARPGROUP_ID) || k == K(WARP_ID_IN_WG))
            tx_vec_push(&r->ids, s);
        r->per_lane |= lane;
    }
    if (s->kind == IR_S_ATTR && s->u.attr.value && ps_const_int(s->u.attr.value, &n)) {
        if (!strcmp(s->u.attr.key, "tirx.launch_bounds_min_blocks_per_sm"))
            r->min_blocks = n;
        if (!strcmp(s->u.attr.key, "tirx.max_registers"))
            r->max_registers = n;
    }
    if (s->kind != IR_S_IF)
        return true;
    /* the condition under which this branch runs, and the else branch's guard */
    uintptr_t g = 0;
    IrExpr *cond = s->u.ifs.cond;
    if (ir_ptrmap_get(&r->elif_guard, s, &g))
        cond = ir_binary(r->a, IR_E_AND, (IrExpr *)g, cond, s->span);
    const IrStmt *el = s->u.ifs.else_s;
    while (el && el->kind == IR_S_SEQ && el->u.seq.n == 1)
        el = el->u.seq.stmts[0];
    if (el && el->kind == IR_S_IF) {
        IrExpr *not = ir_node(r->a, IR_E_NOT, IR_BOOL, s->span);
        not->u.op.a = s->u.ifs.cond;
        ir_ptrmap_put(&r->elif_guard, el,
                      (uintptr_t)(g ? ir_binary(r->a, IR_E_AND, (IrExpr *)g, not, s->span) : not));
    }
    const IrExpr *e = first_eval(s->u.ifs.then_s);
    if (ir_is_ptx_call(e, IR_PTX_setmaxnreg) && e->u.call.nargs == 1 &&
        ps_const_int(e->u.call.args[0], &n))
        tx_vec_push(&r->roles, ((RegRole){s, cond, !strcmp(e->u.call.ptx_slots[0], "inc"), n}));
    return true;
}

/* The value of a warp, warpgroup, thread or lane id for thread `tid`. */
static int64_t id_of(IrScopeIdKind k, int64_t tid)
{
    switch (k) {
    case K(WARP_ID): return tid / 32;
    case K(WARPGROUP_ID): return tid / 128;
    case K(WARP_ID_IN_WG): return tid / 32 % 4;
    case K(THREAD_ID_IN_WG): return tid % 128;
    case K(LANE_ID): return tid % 32;
    default: return tid;
    }
}

/* Bounds that keep the check cheap on any input: more roles or id
 * definitions, or a larger condition, leave the split unchecked. */
#define MAX_ROLES 64
#define MAX_IDS 16
#define MAX_COND_NODES 256

static bool count_node(IrVisitor *v, const IrExpr *e)
{
    (void)e;
    return ++*(int *)v->ctx <= MAX_COND_NODES;
}

/* Whether warp w runs a role of condition `cond`: 1, 0, or -1 when it does
 * not fold or differs between the warp's first and last lanes. */
static int role_runs(TxArena *a, const RegScan *r, IrExpr *cond, int64_t w)
{
    int nodes = 0;
    IrVisitor v = {.ctx = &nodes, .expr = count_node};
    ir_visit_expr(&v, cond);
    if (nodes > MAX_COND_NODES)
        return -1;
    IrSubst *map = TX_NEW_ARRAY(a, IrSubst, r->ids.len + 1);
    int runs = -1;
    for (int lane = 0; lane < 32; lane += r->per_lane ? 31 : 32) {
        for (int i = 0; i < r->ids.len; i++) {
            const IrStmt *d = r->ids.items[i];
            IrExpr *var = d->u.scopeid.vars[0];
            map[i] = (IrSubst){var, ps_int(a, var->dtype, id_of(d->u.scopeid.kind,
                                                                 w * 32 + lane))};
        }
        int64_t val;
        IrExpr *c = ps_simplify_expr(a, ir_substitute(a, cond, map, r->ids.len));
        if (!ps_const_int(c, &val) || (lane && runs != (val != 0)))
            return -1;
        runs = val != 0;
    }
    return runs;
}

static void check_register_split(Geometry *g, IrStmt *body)
{
    int64_t threads = block_threads(g);
    TxArena tmp; /* the conditions built and folded here */
    tx_arena_init(&tmp);
    RegScan r = {.a = &tmp};
    IrVisitor v = {.ctx = &r, .stmt = reg_scan_hook, .expr = count_setmaxnreg};
    ir_visit_stmt(&v, body);
    int64_t warps = threads / 32;
    if (!r.roles.len || r.roles.len != r.setmaxnregs || r.roles.len > MAX_ROLES ||
        r.ids.len > MAX_IDS || threads <= 0 || threads % 128 || warps > 32)
        goto done;
    int8_t runs[MAX_ROLES][32];
    for (int i = 0; i < r.roles.len; i++)
        for (int64_t w = 0; w < warps; w++)
            if ((runs[i][w] = (int8_t)role_runs(&tmp, &r, r.roles.items[i].cond, w)) < 0)
                goto done;
    /* what ptxas gives each thread at launch: __maxnreg__, else the most that
     * min_blocks CTAs of this size leave, in whole 8-register steps */
    int64_t min_blocks = r.min_blocks > 0 ? r.min_blocks : 1;
    int64_t launch = r.max_registers > 0 ? (r.max_registers + 7) / 8 * 8
                                         : 65536 / (min_blocks * threads) / 8 * 8;
    launch = launch > 256 ? 256 : launch;
    int64_t asked = 0;
    const RegRole *asker = NULL;
    for (int64_t w = 0; w < warps; w++) {
        int64_t regs = 0;
        for (int i = 0; i < r.roles.len; i++) {
            const RegRole *role = &r.roles.items[i];
            if (!runs[i][w])
                continue;
            /* a warp that changes its count over time (a producer that
             * becomes an epilogue) needs an order this check does not know */
            if (regs && regs != role->nreg)
                goto done;
            regs = role->nreg;
            if (role->inc && !asker)
                asker = role;
        }
        asked += (regs ? regs : launch) * 32;
    }
    if (!asker || asked <= launch * threads)
        goto done;
    char bound[64];
    if (r.max_registers > 0)
        snprintf(bound, sizeof bound, "__maxnreg__(%lld)", (long long)r.max_registers);
    else
        snprintf(bound, sizeof bound, "__launch_bounds__(%lld, %lld)", (long long)threads,
                 (long long)min_blocks);
    tx_error(g->diags, TX_E_LAUNCH, asker->at->span,
             "the warp roles ask for %lld registers, more than the %lld the CTA is launched "
             "with (%lld threads x %lld, the most %s leaves): setmaxnreg.inc %lld here would "
             "wait forever", (long long)asked, (long long)(launch * threads), (long long)threads,
             (long long)launch, bound, (long long)asker->nreg);
    for (int i = 0; i < r.roles.len; i++) {
        int64_t n = 0;
        for (int64_t w = 0; w < warps; w++)
            n += runs[i][w];
        if (&r.roles.items[i] != asker)
            tx_note(g->diags, r.roles.items[i].at->span, "this role's %lld threads take %lld "
                    "registers", (long long)(n * 32), (long long)r.roles.items[i].nreg);
    }
    g->failed = true;
done:
    tx_vec_free(&r.roles);
    tx_vec_free(&r.ids);
    ir_ptrmap_free(&r.elif_guard);
    tx_arena_free(&tmp);
}

/* ---------------------------------------------------------------- barrier counts */

/* A named barrier (bar / barrier sync, arrive, red) that counts more threads
 * than the CTA has never completes. */

typedef struct BarScan {
    TxDiags *diags;
    int64_t threads;
    bool failed;
} BarScan;

static bool bar_count_hook(IrVisitor *v, const IrExpr *e)
{
    BarScan *b = v->ctx;
    if (e->kind != IR_E_CALL || e->u.call.op != IR_OP_PTX)
        return true;
    const IrCall *c = &e->u.call;
    const char *family = ir_ptx_family(c->ptx_entry);
    if (strcmp(family, "bar") && strcmp(family, "barrier"))
        return true;
    IrPtxResolved r = {c->ptx_entry, c->nptx_slots, {0}};
    for (int i = 0; i < c->nptx_slots && i < IR_PTX_MAX_SLOTS; i++)
        r.slots[i] = c->ptx_slots[i];
    IrPtxOperand ops[IR_PTX_MAX_SLOTS];
    int n = ir_ptx_operands(&r, ops, IR_PTX_MAX_SLOTS);
    int64_t count;
    for (int i = 0; i < n; i++)
        if (!strcmp(ops[i].name, "b") && ops[i].first_arg >= 0 && ops[i].first_arg < c->nargs &&
            ps_const_int(c->args[ops[i].first_arg], &count) && count > b->threads) {
            char mnemonic[128];
            ir_ptx_mnemonic(&r, mnemonic, sizeof mnemonic);
            tx_error(b->diags, TX_E_LAUNCH, e->span,
                     "%s counts %lld threads, more than the %lld of the CTA: the barrier "
                     "would never complete", mnemonic, (long long)count, (long long)b->threads);
            b->failed = true;
        }
    return true;
}

static void check_barrier_counts(Geometry *g, IrStmt *body)
{
    int64_t threads = block_threads(g);
    if (threads <= 0)
        return;
    BarScan b = {.diags = g->diags, .threads = threads};
    IrVisitor v = {.ctx = &b, .expr = bar_count_hook};
    ir_visit_stmt(&v, body);
    g->failed |= b.failed;
}

/* ---------------------------------------------------------------- the nest */

static IrStmt *wrap(Geometry *g, IrExpr *const *vars, IrExpr *const *ext, int n, IrStmt *body)
{
    for (int i = n - 1; i >= 0; i--) {
        IrExpr *e = ps_simplify_expr(g->a, ps_cast(g->a, IR_INT32, ext[i]));
        body = ps_attr(g->a, vars[i], "thread_extent", e, body, g->span);
        body->u.attr.thread_tag = vars[i]->u.var.name;
    }
    return body;
}

IrStmt *ps_lower_scope_ids(TxArena *a, TxDiags *diags, TxSpan span, IrStmt *body)
{
    Geometry g = {.a = a, .diags = diags, .span = span};
    IrVisitor v = {.ctx = &g, .stmt = collect_hook};
    ir_visit_stmt(&v, body);
    set_grid_and_cluster(&g);
    set_block(&g);
    if (!g.failed) {
        check_bound_loops(&g, 0, g.block, g.nblock);
        check_bound_loops(&g, 3, g.grid, g.ngrid);
    }
    check_deferred(&g);
    if (!g.failed) {
        check_register_split(&g, body);
        check_barrier_counts(&g, body);
    }
    if (g.failed)
        return NULL;
    make_launch_vars(&g);
    bool warps = g.used[K(WARP_ID)] || g.used[K(WARPGROUP_ID)] || g.used[K(WARP_ID_IN_WG)];
    IrStmt *prologue = warps ? warp_bind(&g) : NULL;
    IrMutator m = {.ctx = &g, .arena = a, .stmt = bind_scope_ids};
    IrStmt *inner = ps_seq2(a, prologue, ir_mutate_stmt(&m, body));
    ir_mutator_free(&m);
    inner = wrap(&g, g.tx, g.block, g.nblock, inner);
    inner = wrap(&g, g.bx, g.grid, g.ngrid, inner);
    return wrap(&g, g.cx, g.cluster, g.ncluster, inner);
}
