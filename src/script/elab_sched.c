/* The persistent tile scheduler and the shared-memory descriptor of
 * tvm.tirx.lang (tile_scheduler.py, smem_desc.py), expanded at parse time:
 *
 *     ts = ClusterPersistentScheduler2D("ts", num_m_tiles=M_TILES, num_n_tiles=N_TILES,
 *                                       num_clusters=SM_COUNT, l2_group_size=8)
 *     ts.init(bx)
 *     while ts.valid():
 *         ... ts.m_idx, ts.n_idx ...
 *         ts.next_tile()
 *
 * The scheduler keeps int32 locals m_idx, n_idx, linear_idx (unnamed, as the
 * reference prints them) and tile_count (<name>_tile_count). A cluster starts
 * at its id and strides by num_clusters over the tiles in group-major order:
 * groups of l2_group_size tile rows, column-major inside a group, the last
 * (partial) group after the full ones. The mapping is written out the way the
 * reference's inline code writes it, branches decided at parse time where
 * their conditions are Python values (num_m_tiles may be a runtime value).
 *
 *     d = SmemDescriptor(); d.init(ptr, ldo, sdo, swizzle); d.desc; d.add_16B_offset(k)
 *
 * keeps a tcgen05 shared-memory matrix descriptor in a uint64 local. */
#include "elab_lang.h"

/* ---------------------------------------------------------------- group-major mapping */

enum { GM_FULL, GM_TAIL, GM_ZERO };

typedef struct GmChain {
    ScSched *s;
    ScVal tile_linear, cm_off, cn_off;
    ScVal conds[2];
    int bodies[3], n, at;
    TxSpan sp;
} GmChain;

/* m_idx = row * cluster_m + cm_off; n_idx = col * cluster_n + cn_off */
static bool set_coords(El *E, const GmChain *c, ScVal row, ScVal col)
{
    const ScSched *s = c->s;
    return lg_store(E, s->m_idx, lg_op(E, SC_TK_PLUS, lg_opi(E, SC_TK_STAR, row, s->cluster_m, c->sp),
                                    c->cm_off, c->sp), c->sp) &&
           lg_store(E, s->n_idx, lg_op(E, SC_TK_PLUS, lg_opi(E, SC_TK_STAR, col, s->cluster_n, c->sp),
                                    c->cn_off, c->sp), c->sp);
}

static bool gm_body(El *E, const GmChain *c, int which)
{
    const ScSched *s = c->s;
    TxSpan sp = c->sp;
    int64_t g = s->group, span = s->group * s->n_cols;
    if (which == GM_ZERO)
        return set_coords(E, c, sv_int(0, sp), sv_int(0, sp));
    if (which == GM_FULL) {
        ScVal gid = lg_let(E, "group_id", lg_opi(E, SC_TK_DOUBLESLASH, c->tile_linear, span, sp), sp);
        ScVal within = lg_let(E, "within_group", lg_opi(E, SC_TK_PERCENT, c->tile_linear, span, sp), sp);
        ScVal row = lg_let(E, "tile_row", lg_op(E, SC_TK_PLUS, lg_opi(E, SC_TK_STAR, gid, g, sp),
                                          lg_opi(E, SC_TK_PERCENT, within, g, sp), sp), sp);
        ScVal col = lg_let(E, "tile_col", lg_opi(E, SC_TK_DOUBLESLASH, within, g, sp), sp);
        return row.kind != SV_ERROR && col.kind != SV_ERROR && set_coords(E, c, row, col);
    }
    ScVal rem = lg_let(E, "rem", lg_op(E, SC_TK_MINUS, c->tile_linear,
                                 lg_opi(E, SC_TK_STAR, s->full_groups, span, sp), sp), sp);
    ScVal row = lg_let(E, "tile_row", lg_op(E, SC_TK_PLUS, lg_opi(E, SC_TK_STAR, s->full_groups, g, sp),
                                      lg_op(E, SC_TK_PERCENT, rem, s->tail_rows, sp), sp), sp);
    ScVal col = lg_let(E, "tile_col", lg_op(E, SC_TK_DOUBLESLASH, rem, s->tail_rows, sp), sp);
    return row.kind != SV_ERROR && col.kind != SV_ERROR && set_coords(E, c, row, col);
}

/* if conds[at]: bodies[at] else: (the rest of the chain) */
static bool gm_emit(El *E, void *ctx, int which)
{
    GmChain *c = ctx;
    if (which == 0)
        return gm_body(E, c, c->bodies[c->at]);
    GmChain next = *c;
    next.at++;
    if (next.at == next.n)
        return gm_body(E, &next, next.bodies[next.n]);
    return lg_if(E, next.conds[next.at], gm_emit, &next, true, next.sp);
}

static bool is_zero(const ScVal *v) { return v->kind == SV_INT && v->u.i == 0; }

/* ---------------------------------------------------------------- serpentine mapping */

/* CUTLASS's block swizzle (serpentine=True): S x S blocks of tiles (S =
 * l2_group_size), row-major inside a block, the blocks column by column with
 * odd block columns bottom to top; then the tiles right of the last full block
 * column (row-major), then those below the last full block row (column-major).
 * Written as the reference writes it, but for the tiles below the full blocks
 * when tiles also lie right of them: the reference maps those to tile (0, 0)
 * (so they are never computed); here the bottom strip follows the right one. */
enum { SP_FULL, SP_REST, SP_RIGHT, SP_CORNER, SP_BOTTOM, SP_BOTTOM_IN };

typedef struct SpCtx {
    const GmChain *c;
    ScVal rows, m_blocks, full, res_m, rem, strip;
    int64_t s, n_blocks, res_n;
    int node;
} SpCtx;

static bool sp_emit(El *E, void *ctx, int which);

/* if cond: node's then-block else: its else-block */
static bool sp_if(El *E, const SpCtx *x, int node, ScVal cond)
{
    SpCtx next = *x;
    next.node = node;
    return lg_if(E, cond, sp_emit, &next, true, x->c->sp);
}

static bool sp_full_block(El *E, const SpCtx *x)
{
    TxSpan sp = x->c->sp;
    ScVal bl = lg_let(E, "block_linear", lg_opi(E, SC_TK_DOUBLESLASH, x->c->tile_linear, x->s * x->s,
                                          sp), sp);
    ScVal within = lg_let(E, "within_block", lg_opi(E, SC_TK_PERCENT, x->c->tile_linear, x->s * x->s,
                                              sp), sp);
    ScVal bcol = lg_let(E, "block_col", lg_op(E, SC_TK_DOUBLESLASH, bl, x->m_blocks, sp), sp);
    ScVal raw = lg_let(E, "block_row_raw", lg_op(E, SC_TK_PERCENT, bl, x->m_blocks, sp), sp);
    ScVal even = el_compare(E, SC_TK_EQEQUAL, lg_opi(E, SC_TK_PERCENT, bcol, 2, sp),
                            sv_int(0, sp), sp);
    ScVal brow = lg_let(E, "block_row", lg_select(E, even, raw,
                                                  lg_op(E, SC_TK_MINUS,
                                                        lg_opi(E, SC_TK_MINUS, x->m_blocks, 1, sp),
                                                        raw, sp), sp), sp);
    ScVal lrow = lg_let(E, "local_row", lg_opi(E, SC_TK_DOUBLESLASH, within, x->s, sp), sp);
    ScVal lcol = lg_let(E, "local_col", lg_opi(E, SC_TK_PERCENT, within, x->s, sp), sp);
    ScVal row = lg_let(E, "tile_row", lg_op(E, SC_TK_PLUS, lg_opi(E, SC_TK_STAR, brow, x->s, sp), lrow,
                                      sp), sp);
    ScVal col = lg_let(E, "tile_col", lg_op(E, SC_TK_PLUS, lg_opi(E, SC_TK_STAR, bcol, x->s, sp), lcol,
                                      sp), sp);
    return row.kind != SV_ERROR && col.kind != SV_ERROR && set_coords(E, x->c, row, col);
}

/* rem = tile_linear - FULL_BLOCK_TILES; name = strip; if rem < name: node */
static bool sp_strip(El *E, const SpCtx *x, const char *name, ScVal strip, int node)
{
    TxSpan sp = x->c->sp;
    SpCtx next = *x;
    next.rem = lg_let(E, "rem", lg_op(E, SC_TK_MINUS, x->c->tile_linear, x->full, sp), sp);
    next.strip = lg_let(E, name, strip, sp);
    return next.rem.kind != SV_ERROR && next.strip.kind != SV_ERROR &&
           sp_if(E, &next, node, el_compare(E, SC_TK_LESS, next.rem, next.strip, sp));
}

/* the tiles below the full blocks, column-major, from rem */
static bool sp_bottom(El *E, const SpCtx *x, ScVal rem)
{
    TxSpan sp = x->c->sp;
    ScVal row = lg_let(E, "tile_row", lg_op(E, SC_TK_PLUS, lg_opi(E, SC_TK_STAR, x->m_blocks, x->s, sp),
                                      lg_op(E, SC_TK_PERCENT, rem, x->res_m, sp), sp), sp);
    ScVal col = lg_let(E, "tile_col", lg_op(E, SC_TK_DOUBLESLASH, rem, x->res_m, sp), sp);
    return row.kind != SV_ERROR && col.kind != SV_ERROR && set_coords(E, x->c, row, col);
}

static bool sp_emit(El *E, void *ctx, int which)
{
    const SpCtx *x = ctx;
    TxSpan sp = x->c->sp;
    ScVal zero = sv_int(0, sp), res_m_pos = el_compare(E, SC_TK_GREATER, x->res_m, zero, sp);
    if (which == 1 && x->node != SP_REST) {
        if (x->node == SP_RIGHT)
            return sp_if(E, x, SP_CORNER, res_m_pos);
        if (x->node == SP_FULL)
            return sp_if(E, x, SP_REST, sv_bool(x->res_n > 0, sp));
        return set_coords(E, x->c, zero, zero);
    }
    switch (x->node) {
    case SP_FULL: return sp_full_block(E, x);
    case SP_REST: /* which 0: the right strip; 1: the bottom one, alone */
        if (which == 0)
            return sp_strip(E, x, "right_strip_tiles", lg_opi(E, SC_TK_STAR, x->rows, x->res_n, sp),
                            SP_RIGHT);
        return sp_if(E, x, SP_BOTTOM, res_m_pos);
    case SP_RIGHT: {
        ScVal row = lg_let(E, "tile_row", lg_opi(E, SC_TK_DOUBLESLASH, x->rem, x->res_n, sp), sp);
        ScVal col = lg_let(E, "tile_col", lg_op(E, SC_TK_PLUS, sv_int(x->n_blocks * x->s, sp),
                                          lg_opi(E, SC_TK_PERCENT, x->rem, x->res_n, sp), sp), sp);
        return row.kind != SV_ERROR && col.kind != SV_ERROR && set_coords(E, x->c, row, col);
    }
    case SP_CORNER:
        return sp_bottom(E, x, lg_let(E, "bottom_rem", lg_op(E, SC_TK_MINUS, x->rem, x->strip, sp),
                                   sp));
    case SP_BOTTOM:
        return sp_strip(E, x, "bottom_strip_tiles",
                        lg_op(E, SC_TK_STAR, x->res_m, sv_int(x->n_blocks * x->s, sp), sp),
                        SP_BOTTOM_IN);
    default: return sp_bottom(E, x, x->rem);
    }
}

static bool sp_update(El *E, const GmChain *c)
{
    const ScSched *s = c->s;
    TxSpan sp = c->sp;
    SpCtx x = {.c = c, .rows = s->rows, .s = s->group, .n_blocks = s->n_cols / s->group};
    x.res_n = s->n_cols - x.n_blocks * s->group;
    x.m_blocks = s->full_groups; /* the full groups are the full block rows */
    x.full = lg_opi(E, SC_TK_STAR, lg_opi(E, SC_TK_STAR, x.m_blocks, x.n_blocks, sp),
                 s->group * s->group, sp);
    x.res_m = lg_op(E, SC_TK_MINUS, x.rows, lg_opi(E, SC_TK_STAR, x.m_blocks, s->group, sp), sp);
    ScVal zero = sv_int(0, sp);
    ScVal cond = lg_op(E, SC_TK_AMPER,
                    lg_op(E, SC_TK_AMPER, el_compare(E, SC_TK_GREATER, x.m_blocks, zero, sp),
                       sv_bool(x.n_blocks > 0, sp), sp),
                    el_compare(E, SC_TK_LESS, c->tile_linear, x.full, sp), sp);
    return x.full.kind != SV_ERROR && x.res_m.kind != SV_ERROR && sp_if(E, &x, SP_FULL, cond);
}

/* update_current_m_n_idx(work_idx) */
bool lg_sched_update(El *E, ScSched *s, ScVal work, TxSpan sp)
{
    GmChain c = {.s = s, .sp = sp};
    c.cm_off = lg_opi(E, SC_TK_PERCENT, work, s->cluster_m, sp);
    ScVal t = lg_opi(E, SC_TK_DOUBLESLASH, work, s->cluster_m, sp);
    c.cn_off = lg_opi(E, SC_TK_PERCENT, t, s->cluster_n, sp);
    c.tile_linear = lg_opi(E, SC_TK_DOUBLESLASH, t, s->cluster_n, sp);
    if (c.tile_linear.kind == SV_ERROR)
        return false;
    if (s->serpentine)
        return sp_update(E, &c);
    ScVal full_cond = lg_op(E, SC_TK_AMPER, el_compare(E, SC_TK_GREATER, s->full_groups,
                                                    sv_int(0, sp), sp),
                         el_compare(E, SC_TK_LESS, c.tile_linear,
                                    lg_opi(E, SC_TK_STAR, s->full_groups, s->group * s->n_cols, sp),
                                    sp), sp);
    ScVal tail_cond = el_compare(E, SC_TK_GREATER, s->tail_rows, sv_int(0, sp), sp);
    if (!is_zero(&s->full_groups)) {
        c.conds[c.n] = full_cond;
        c.bodies[c.n++] = GM_FULL;
    }
    if (!is_zero(&s->tail_rows)) {
        c.conds[c.n] = tail_cond;
        c.bodies[c.n++] = GM_TAIL;
    }
    c.bodies[c.n] = GM_ZERO;
    if (!c.n)
        return gm_body(E, &c, GM_ZERO);
    return lg_if(E, c.conds[0], gm_emit, &c, true, sp);
}

/* ---------------------------------------------------------------- the scheduler */

/* ceil(a / b) as the reference computes it: Python // on ints, T.truncdiv otherwise. */
static ScVal ceil_div(El *E, ScVal a, int64_t b, const ScArgs *at)
{
    ScVal n = lg_opi(E, SC_TK_MINUS, lg_opi(E, SC_TK_PLUS, a, b, at->span), 1, at->span);
    if (n.kind == SV_INT)
        return lg_opi(E, SC_TK_DOUBLESLASH, n, b, at->span);
    LgCall k = {0};
    lg_pos(&k, n);
    lg_pos(&k, sv_int(b, at->span));
    return lg_call(E, "truncdiv", &k, at);
}

ScVal lg_trunc_div(El *E, ScVal a, int64_t b, const ScArgs *at)
{
    if (a.kind == SV_INT)
        return lg_opi(E, SC_TK_DOUBLESLASH, a, b, at->span);
    LgCall k = {0};
    lg_pos(&k, a);
    lg_pos(&k, sv_int(b, at->span));
    return lg_call(E, "truncdiv", &k, at);
}

ScSched *lg_sched_make(El *E, ScVal num_m, int64_t num_n, ScVal clusters, int64_t group,
                       int64_t cluster_m, int64_t cluster_n, const ScArgs *at)
{
    ScSched *s = TX_NEW(E->a, ScSched);
    s->group = group, s->cluster_m = cluster_m, s->cluster_n = cluster_n;
    s->clusters = clusters;
    s->n_cols = (num_n + cluster_n - 1) / cluster_n;
    ScVal rows = s->rows = ceil_div(E, num_m, cluster_m, at);
    s->full_groups = lg_trunc_div(E, rows, group, at);
    s->tail_rows = lg_op(E, SC_TK_MINUS, rows, lg_opi(E, SC_TK_STAR, s->full_groups, group, at->span),
                      at->span);
    s->total = lg_opi(E, SC_TK_STAR, lg_opi(E, SC_TK_STAR, lg_opi(E, SC_TK_STAR, rows, s->n_cols,
                                                         at->span),
                                      cluster_m, at->span), cluster_n, at->span);
    if (s->total.kind == SV_ERROR || s->tail_rows.kind == SV_ERROR ||
        !(s->m_idx = lg_local_scalar(E, "int32", at)) ||
        !(s->n_idx = lg_local_scalar(E, "int32", at)) ||
        !(s->linear = lg_local_scalar(E, "int32", at)) ||
        !(s->tile_count = lg_local_scalar(E, "int32", at)))
        return NULL;
    return s;
}

/* ClusterPersistentScheduler2D(prefix, num_m_tiles, num_n_tiles, num_clusters,
 *     l2_group_size=8, cluster_m=1, cluster_n=1, serpentine=False) */
ScVal lg_new_sched_2d(El *E, ScArgs *args, ScLangKind k)
{
    ScBound b;
    int64_t num_n, group, cluster_m, cluster_n;
    bool serpentine = false;
    if (!el_bind_args(E, args, "prefix, num_m_tiles, num_n_tiles, num_clusters, "
                               "l2_group_size=, cluster_m=, cluster_n=, serpentine=", &b) ||
        !lg_count(E, &b.v[2], 1, &num_n, "num_n_tiles", args) ||
        !lg_count(E, &b.v[4], 8, &group, "l2_group_size", args) ||
        !lg_count(E, &b.v[5], 1, &cluster_m, "cluster_m", args) ||
        !lg_count(E, &b.v[6], 1, &cluster_n, "cluster_n", args))
        return sv_error();
    if (sv_given(&b.v[7]) && b.v[7].kind != SV_NONE && !sv_truth(&b.v[7], &serpentine)) {
        el_error(E, TX_E_HELPER, b.v[7].span, "%s: serpentine must be True or False",
                 args->fname);
        return sv_error();
    }
    ScVal num_m = b.v[1];
    if (num_m.kind != SV_INT && !el_prim(E, &num_m, "num_m_tiles"))
        return sv_error();
    if (!el_prim(E, &b.v[3], "num_clusters"))
        return sv_error();
    ScSched *s = lg_sched_make(E, num_m, num_n, b.v[3], group, cluster_m, cluster_n, args);
    if (!s || !lg_work_fits(E, s->total, args))
        return sv_error();
    s->serpentine = serpentine;
    ScLang *h = lg_new(E, k);
    h->u.sched = s;
    return lg_val(h, args->span);
}

void lg_sched_named(El *E, ScLang *h, const char *name)
{
    h->u.sched->tile_count->u.var.name = tx_arena_printf(E->a, "%s_tile_count", name);
}

ScVal lg_sched_attr(El *E, ScVal obj, const char *name, TxSpan sp)
{
    static const char *const methods[] = {"init", "next_tile", "next_tile_stride", "valid",
                                          "update_current_m_n_idx", "reset", "consume",
                                          "consume_wg", "advance_coords",
                                          "mark_done_if_drained"};
    static const struct {
        const char *name;
        size_t field;
    } scalars[] = {{"m_idx", offsetof(ScSched, m_idx)},       {"n_idx", offsetof(ScSched, n_idx)},
                   {"linear_idx", offsetof(ScSched, linear)}, {"work_idx", offsetof(ScSched, linear)},
                   {"tile_count", offsetof(ScSched, tile_count)},
                   {"tile_idx", offsetof(ScSched, tile_count)}};
    ScSched *s = obj.u.lang->u.sched;
    for (size_t i = 0; i < TX_ARRAY_LEN(scalars); i++)
        if (!strcmp(name, scalars[i].name))
            return lg_scalar(*(IrExpr **)((char *)s + scalars[i].field), sp);
    /* a worker has the scheduler's methods and its handshake's (the last five) */
    bool worker = s->worker != NULL;
    return el_method_attr(E, obj, methods, (int)TX_ARRAY_LEN(methods) - (worker ? 0 : 5), name,
                          sp, worker ? "_CLCWorker" : "ClusterPersistentScheduler2D");
}

/* linear_idx = start; tile_count = 0 (init) or linear_idx += stride; tile_count += 1 */
static bool sched_step(El *E, ScSched *s, ScVal start, ScVal stride, TxSpan sp)
{
    bool init = stride.kind == SV_COUNT;
    ScVal next = init ? start : lg_op(E, SC_TK_PLUS, lg_load(E, s->linear, sp), stride, sp);
    ScVal count = init ? sv_int(0, sp) : lg_opi(E, SC_TK_PLUS, lg_load(E, s->tile_count, sp), 1, sp);
    return lg_store(E, s->linear, next, sp) && lg_store(E, s->tile_count, count, sp) &&
           lg_sched_update(E, s, init ? start : lg_load(E, s->linear, sp), sp);
}

bool lg_sched_init(El *E, ScSched *s, ScVal cluster_id, TxSpan sp)
{
    return sched_step(E, s, cluster_id, (ScVal){.kind = SV_COUNT}, sp);
}

ScVal lg_sched_method(El *E, ScLang *h, const char *name, ScArgs *args)
{
    ScSched *s = h->u.sched;
    ScBound b;
    TxSpan sp = args->span;
    bool ok;
    ScVal none = {.kind = SV_COUNT};
    if (!strcmp(name, "valid"))
        return el_bind_args(E, args, "", &b)
                   ? el_compare(E, SC_TK_LESS, lg_load(E, s->linear, sp), s->total, sp)
                   : sv_error();
    if (!strcmp(name, "init"))
        ok = el_bind_args(E, args, "cluster_id", &b) && lg_sched_init(E, s, b.v[0], sp);
    else if (!strcmp(name, "next_tile"))
        ok = el_bind_args(E, args, "", &b) && sched_step(E, s, none, s->clusters, sp);
    else if (!strcmp(name, "next_tile_stride"))
        ok = el_bind_args(E, args, "stride", &b) && sched_step(E, s, none, b.v[0], sp);
    else
        ok = el_bind_args(E, args, "work_idx", &b) && lg_sched_update(E, s, b.v[0], sp);
    return ok ? sv_none(sp) : sv_error();
}

/* ---------------------------------------------------------------- SmemDescriptor */

ScVal lg_new_smem_desc(El *E, ScArgs *args, ScLangKind k)
{
    ScBound b;
    if (!el_bind_args(E, args, "", &b))
        return sv_error();
    LgCall a = {0};
    ScVal one = {.kind = SV_LIST, .span = args->span};
    one.u.seq.items = TX_NEW(E->a, ScVal);
    one.u.seq.items[0] = sv_int(1, args->span), one.u.seq.n = 1;
    lg_pos(&a, one);
    lg_pos(&a, sv_str(E, "uint64", args->span));
    ScVal buf = lg_call(E, "alloc_local", &a, args);
    if (buf.kind != SV_BUFFER)
        return sv_error();
    ScLang *h = lg_new(E, k);
    h->u.desc.buf = buf.u.e;
    return lg_val(h, args->span);
}

ScVal lg_desc_attr(El *E, ScVal obj, const char *name, TxSpan sp)
{
    static const char *const methods[] = {"init", "add_16B_offset", "make_lo_uniform"};
    if (!strcmp(name, "desc"))
        return lg_load(E, obj.u.lang->u.desc.buf, sp);
    return el_method_attr(E, obj, methods, (int)TX_ARRAY_LEN(methods), name, sp,
                          "SmemDescriptor");
}

/* T.Shuffle([v], [lane]) */
static ScVal lane(El *E, ScVal v, int64_t i, const ScArgs *at)
{
    LgCall k = {0};
    ScVal vs = {.kind = SV_LIST, .span = at->span}, is = vs;
    vs.u.seq.items = TX_NEW(E->a, ScVal), vs.u.seq.items[0] = v, vs.u.seq.n = 1;
    is.u.seq.items = TX_NEW(E->a, ScVal), is.u.seq.items[0] = sv_int(i, at->span), is.u.seq.n = 1;
    lg_pos(&k, vs);
    lg_pos(&k, is);
    return lg_call(E, "Shuffle", &k, at);
}

/* add_16B_offset(offset): the descriptor with offset added to its low 32 bits
 * (the address field wraps without carrying into the control bits). */
static ScVal desc_add(El *E, ScLang *h, ScVal offset, const ScArgs *at)
{
    TxSpan sp = at->span;
    LgCall r = {0}, c = {0}, s = {0}, out = {0};
    lg_pos(&r, sv_str(E, "uint32x2", sp));
    lg_pos(&r, lg_load(E, h->u.desc.buf, sp));
    ScVal halves = lg_call(E, "reinterpret", &r, at);
    lg_pos(&c, offset);
    lg_pos(&c, sv_str(E, "uint32", sp));
    ScVal lo = lg_op(E, SC_TK_PLUS, lane(E, halves, 0, at), lg_call(E, "cast", &c, at), sp);
    ScVal vs = {.kind = SV_LIST, .span = sp}, is = vs;
    vs.u.seq.items = TX_NEW_ARRAY(E->a, ScVal, 2), vs.u.seq.n = 2;
    vs.u.seq.items[0] = lo, vs.u.seq.items[1] = lane(E, halves, 1, at);
    is.u.seq.items = TX_NEW_ARRAY(E->a, ScVal, 2), is.u.seq.n = 2;
    is.u.seq.items[0] = sv_int(0, sp), is.u.seq.items[1] = sv_int(1, sp);
    lg_pos(&s, vs);
    lg_pos(&s, is);
    lg_pos(&out, sv_str(E, "uint64", sp));
    lg_pos(&out, lg_call(E, "Shuffle", &s, at));
    return lg_call(E, "reinterpret", &out, at);
}

/* make_lo_uniform(): lane 0's low 32 bits to every lane (mov, shfl.sync.idx, mov). */
static bool desc_uniform(El *E, ScLang *h, const ScArgs *at)
{
    TxSpan sp = at->span;
    IrExpr *lo = lg_local_scalar(E, "uint32", at), *hi = lg_local_scalar(E, "uint32", at);
    if (!lo || !hi)
        return false;
    LgCall un = {0}, sh = {0}, pk = {0};
    lg_pos(&un, lg_scalar(lo, sp));
    lg_pos(&un, lg_scalar(hi, sp));
    lg_pos(&un, lg_scalar(h->u.desc.buf, sp));
    lg_pos(&sh, lg_scalar(lo, sp));
    lg_pos(&sh, lg_scalar(lo, sp));
    lg_pos(&sh, lg_u32(E, sv_int(0, sp), sp));
    lg_pos(&sh, lg_u32(E, sv_int(0x1F, sp), sp));
    lg_pos(&sh, lg_u32(E, sv_int(0xFFFFFFFF, sp), sp));
    lg_pos(&pk, lg_scalar(h->u.desc.buf, sp));
    lg_pos(&pk, lg_scalar(lo, sp));
    lg_pos(&pk, lg_scalar(hi, sp));
    return lg_stmt(E, "ptx.mov.b64", &un, at) && lg_stmt(E, "ptx.shfl_sync.idx.b32", &sh, at) &&
           lg_stmt(E, "ptx.mov.b64", &pk, at);
}

ScVal lg_desc_method(El *E, ScLang *h, const char *name, ScArgs *args)
{
    ScBound b;
    TxSpan sp = args->span;
    if (!strcmp(name, "add_16B_offset"))
        return el_bind_args(E, args, "offset", &b) ? desc_add(E, h, b.v[0], args) : sv_error();
    if (!strcmp(name, "make_lo_uniform"))
        return el_bind_args(E, args, "", &b) && desc_uniform(E, h, args) ? sv_none(sp)
                                                                         : sv_error();
    /* init(smem_ptr, ldo, sdo, swizzle) */
    if (!el_bind_args(E, args, "smem_ptr, ldo, sdo, swizzle", &b))
        return sv_error();
    LgCall k = {0};
    lg_pos(&k, lg_addr0(E, h->u.desc.buf, args));
    for (int i = 0; i < 4; i++)
        lg_pos(&k, b.v[i]);
    return lg_stmt(E, "cuda.tcgen05.encode_matrix_descriptor", &k, args) ? sv_none(sp)
                                                                        : sv_error();
}
