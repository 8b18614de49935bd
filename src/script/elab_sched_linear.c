/* The tile schedulers of tvm.tirx.lang.tile_scheduler that walk a linear work
 * index with a fixed stride, expanded at parse time as the reference's inline
 * code writes them:
 *
 *     g = GroupMajor3D("g", m_tiles, n_tiles, k_tiles, group_rows, step=1)
 *         -> g.m_idx, g.n_idx, g.k_idx, g.tile_idx
 *     f = FlashAttentionLinearScheduler("f", num_batches, num_heads, num_m_blocks, num_ctas)
 *     f = FlashAttentionLPTScheduler("f", num_batches, num_heads, num_m_blocks, l2_swizzle,
 *                                    num_ctas=None)
 *         -> f.batch_idx, f.head_idx, f.m_block_idx
 *     r = RankAwareGroupMajorTileScheduler("r", m_clusters, n_clusters, group_size, world_size)
 *         -> r.m_idx, r.n_idx (rows of the other ranks first: NVSHMEM's my_pe)
 *     t = IndexedTripleTileScheduler("t", b_indices, h_indices, q_indices, tiles_indptr)
 *         -> t.b_idx, t.h_idx, t.q_idx (work items tiles_indptr[sm] .. tiles_indptr[sm + 1])
 *
 *     x.init(start)
 *     while x.valid():
 *         ...
 *         x.next_tile()      # RankAware: x.next_tile(stride)
 *
 * Every scheduler keeps int32 locals m_idx, n_idx, linear_idx (unnamed, as the
 * reference prints them) and its own ones, named <name>_<field>. */
#include "elab_lang.h"

#define LIN_MAX_OWN 4

/* One scheduler class: its constructor's parameters, its own locals, its methods. */
typedef struct LinClass {
    ScLangKind kind;
    const char *params;
    const char *own[LIN_MAX_OWN];
    const char *const *methods;
    int nmethods;
} LinClass;

static const char *const stride_methods[] = {"init", "next_tile", "next_tile_stride", "valid",
                                             "update_current_m_n_idx"};
static const char *const plain_methods[] = {"init", "next_tile", "valid",
                                            "update_current_m_n_idx"};
static const char *const indexed_methods[] = {"init", "next_tile", "valid"};

static const LinClass classes[] = {
    {LANG_GROUP_MAJOR_3D, "prefix, m_tiles, n_tiles, k_tiles, group_rows, step=",
     {"tile_idx", "k_idx"}, stride_methods, 5},
    {LANG_RANK_AWARE, "prefix, m_clusters, n_clusters, group_size, world_size", {0},
     plain_methods, 4},
    {LANG_INDEXED_TRIPLE, "prefix, b_indices, h_indices, q_indices, tiles_indptr",
     {"q_idx", "h_idx", "b_idx", "linear_lim"}, indexed_methods, 3},
    {LANG_FA_LINEAR, "prefix, num_batches, num_heads, num_m_blocks, num_ctas",
     {"batch_idx", "head_idx", "m_block_idx"}, plain_methods, 4},
    {LANG_FA_LPT, "prefix, num_batches, num_heads, num_m_blocks, l2_swizzle, num_ctas=",
     {"batch_idx", "head_idx", "m_block_idx"}, plain_methods, 4},
};

static const LinClass *class_of(ScLangKind k)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(classes); i++)
        if (classes[i].kind == k)
            return &classes[i];
    TX_UNREACHABLE();
}

static int nown(const LinClass *c)
{
    int n = 0;
    while (n < LIN_MAX_OWN && c->own[n])
        n++;
    return n;
}

/* ---------------------------------------------------------------- arguments */

/* An int, or an int expression evaluated at run time. */
static bool int_or_expr(El *E, const ScVal *v, const char *what)
{
    return v->kind == SV_INT || el_prim(E, v, what) != NULL;
}

static bool index_buffer(El *E, const ScVal *v, const char *what, const ScArgs *args)
{
    if (v->kind == SV_BUFFER && !v->decay && ir_dtype_is_int(v->u.e->u.var.type->dtype))
        return true;
    el_error(E, TX_E_HELPER, v->span, "%s: %s must be a buffer of integers", args->fname, what);
    return false;
}

/* ---------------------------------------------------------------- the mappings */

/* m_idx, n_idx, k_idx (GroupMajor3D) of one phase */
typedef struct Gm3Set {
    ScLinSched *s;
    ScVal m[3], n[3], k[3]; /* full, tail, zero */
    int phase;
} Gm3Set;

static bool gm3_set(El *E, void *ctx, int which)
{
    Gm3Set *g = ctx;
    ScLinSched *s = g->s;
    int p = g->phase + which;
    TxSpan sp = s->sp;
    if (which == 1 && g->phase == 0) { /* elif HAS_TAIL: tail else: zeros */
        Gm3Set next = *g;
        next.phase = 1;
        return lg_if(E, s->has_tail, gm3_set, &next, true, sp);
    }
    return lg_store(E, s->m_idx, g->m[p], sp) && lg_store(E, s->n_idx, g->n[p], sp) &&
           lg_store(E, s->own[1], g->k[p], sp);
}

static bool gm3_update(El *E, ScLinSched *s, ScVal at)
{
    TxSpan sp = s->sp;
    int64_t G = s->dims[0], N = s->dims[1];
    ScVal gsize = s->group_size, safe = s->safe_final;
    Gm3Set g = {.s = s};
    g.m[0] = lg_let(E, "full_m", lg_op(E, SC_TK_PLUS,
                                       lg_opi(E, SC_TK_STAR,
                                              lg_op(E, SC_TK_DOUBLESLASH, at, gsize, sp), G, sp),
                                       lg_opi(E, SC_TK_PERCENT, at, G, sp), sp), sp);
    g.n[0] = lg_let(E, "full_n", lg_opi(E, SC_TK_PERCENT,
                                        lg_opi(E, SC_TK_DOUBLESLASH, at, G, sp), N, sp), sp);
    g.k[0] = lg_let(E, "full_k", lg_opi(E, SC_TK_DOUBLESLASH,
                                        lg_op(E, SC_TK_PERCENT, at, gsize, sp), G * N, sp), sp);
    ScVal rem = lg_let(E, "rem", lg_op(E, SC_TK_MINUS, at, s->full_bound, sp), sp);
    g.m[1] = lg_let(E, "tail_m", lg_op(E, SC_TK_PLUS, lg_opi(E, SC_TK_STAR, s->groups, G,
                                                             sp),
                                       lg_op(E, SC_TK_PERCENT, rem, safe, sp), sp), sp);
    g.n[1] = lg_let(E, "tail_n", lg_opi(E, SC_TK_PERCENT,
                                        lg_op(E, SC_TK_DOUBLESLASH, rem, safe, sp), N, sp), sp);
    g.k[1] = lg_let(E, "tail_k", lg_op(E, SC_TK_DOUBLESLASH, rem,
                                       lg_opi(E, SC_TK_STAR, safe, N, sp), sp), sp);
    g.m[2] = g.n[2] = g.k[2] = sv_int(0, sp);
    for (int i = 0; i < 2; i++)
        if (g.m[i].kind == SV_ERROR || g.n[i].kind == SV_ERROR || g.k[i].kind == SV_ERROR)
            return false;
    ScVal full = lg_op(E, SC_TK_AMPER, s->has_full,
                       el_compare(E, SC_TK_LESS, at, s->full_bound, sp), sp);
    return lg_if(E, full, gm3_set, &g, true, sp);
}

/* batch_idx, head_idx, m_block_idx */
static bool fa_set(El *E, ScLinSched *s, ScVal batch, ScVal head, ScVal block)
{
    return lg_store(E, s->own[0], batch, s->sp) && lg_store(E, s->own[1], head, s->sp) &&
           lg_store(E, s->own[2], block, s->sp);
}

static bool fa_linear_update(El *E, ScLinSched *s, ScVal at)
{
    TxSpan sp = s->sp;
    int64_t heads = s->dims[0], blocks = s->dims[1];
    return fa_set(E, s, lg_opi(E, SC_TK_DOUBLESLASH, at, heads * blocks, sp),
                  lg_opi(E, SC_TK_DOUBLESLASH, lg_opi(E, SC_TK_PERCENT, at, heads * blocks, sp),
                         blocks, sp),
                  lg_opi(E, SC_TK_PERCENT, at, blocks, sp));
}

/* Longest-processing-time order: the m blocks reversed (a causal mask gives
 * the first ones the most work), batch x head in groups of l2_swizzle. */
static bool fa_lpt_update(El *E, ScLinSched *s, ScVal at)
{
    TxSpan sp = s->sp;
    int64_t heads = s->dims[0], blocks = s->dims[1], swz = s->dims[2], hb = s->dims[3];
    ScVal bidhb = lg_let(E, "bidhb", lg_opi(E, SC_TK_DOUBLESLASH, at, swz * blocks, sp), sp);
    ScVal l2_mod = lg_let(E, "l2_mod", lg_opi(E, SC_TK_PERCENT, at, swz * blocks, sp), sp);
    int64_t rest = hb % swz > 1 ? hb % swz : 1;
    ScVal rem = lg_let(E, "num_hb_remainder", sv_int(rest, sp), sp);
    ScVal in_full = el_compare(E, SC_TK_LESS, bidhb, sv_int(hb / swz, sp), sp);
    ScVal raw = lg_let(E, "m_block_raw",
                       lg_select(E, in_full, lg_opi(E, SC_TK_DOUBLESLASH, l2_mod, swz, sp),
                              lg_op(E, SC_TK_DOUBLESLASH, l2_mod, rem, sp), sp), sp);
    ScVal resid = lg_let(E, "bidhb_residual",
                         lg_select(E, in_full, lg_opi(E, SC_TK_PERCENT, l2_mod, swz, sp),
                                lg_op(E, SC_TK_PERCENT, l2_mod, rem, sp), sp), sp);
    ScVal actual = lg_let(E, "bidhb_actual", lg_op(E, SC_TK_PLUS,
                                                   lg_opi(E, SC_TK_STAR, bidhb, swz, sp), resid,
                                                   sp), sp);
    if (raw.kind == SV_ERROR || actual.kind == SV_ERROR)
        return false;
    return fa_set(E, s, lg_opi(E, SC_TK_DOUBLESLASH, actual, heads, sp),
                  lg_opi(E, SC_TK_PERCENT, actual, heads, sp),
                  lg_op(E, SC_TK_MINUS, sv_int(blocks - 1, sp), raw, sp));
}

/* The ranks' rows: those of the other ranks first, from the next rank on. */
typedef struct RankCtx {
    ScLinSched *s;
    ScVal at, rank_off, remote, group_rows, final_rows, repeat;
    int branch;
} RankCtx;

static bool rank_set(El *E, void *ctx, int which)
{
    RankCtx *r = ctx;
    ScLinSched *s = r->s;
    TxSpan sp = s->sp;
    int64_t M = s->dims[0], N = s->dims[1], G = s->dims[2], local = s->dims[0] / s->dims[3];
    if (r->branch == 0 && which == 1) { /* elif at < remote * N */
        RankCtx next = *r;
        next.branch = 1;
        return lg_if(E, el_compare(E, SC_TK_LESS, r->at, lg_opi(E, SC_TK_STAR, r->remote, N, sp),
                                   sp), rank_set, &next, true, sp);
    }
    ScVal m, n;
    if (r->branch == 0) {
        m = lg_op(E, SC_TK_PLUS,
                  lg_opi(E, SC_TK_STAR, lg_op(E, SC_TK_DOUBLESLASH, r->at, r->repeat, sp), G, sp),
                  lg_opi(E, SC_TK_PERCENT, r->at, G, sp), sp);
        n = lg_opi(E, SC_TK_DOUBLESLASH, lg_op(E, SC_TK_PERCENT, r->at, r->repeat, sp), G, sp);
    } else {
        bool remote = which == 0;
        ScVal base = remote ? r->group_rows : r->remote;
        ScVal rows = remote ? r->final_rows : sv_int(local, sp);
        ScVal rem = lg_let(E, "remainder_idx",
                           lg_op(E, SC_TK_MINUS, r->at, lg_opi(E, SC_TK_STAR, base, N, sp), sp),
                           sp);
        m = lg_op(E, SC_TK_PLUS, base, lg_op(E, SC_TK_PERCENT, rem, rows, sp), sp);
        n = lg_op(E, SC_TK_DOUBLESLASH, rem, rows, sp);
    }
    m = lg_opi(E, SC_TK_PERCENT, lg_op(E, SC_TK_PLUS, m, r->rank_off, sp), M, sp);
    return lg_store(E, s->m_idx, m, sp) && lg_store(E, s->n_idx, n, sp);
}

static bool rank_update(El *E, ScLinSched *s, ScVal at)
{
    TxSpan sp = s->sp;
    int64_t M = s->dims[0], N = s->dims[1], G = s->dims[2], W = s->dims[3];
    ScArgs call = {.span = sp};
    LgCall none = {0};
    RankCtx r = {.s = s, .at = at};
    ScVal rank = lg_let(E, "my_rank", lg_call(E, "nvshmem.my_pe", &none, &call), sp);
    r.remote = lg_let(E, "remote_m_clusters", sv_int(M - M / W, sp), sp);
    r.group_rows = lg_let(E, "group_rows", lg_opi(E, SC_TK_STAR,
                                                  lg_opi(E, SC_TK_DOUBLESLASH, r.remote, G, sp),
                                                  G, sp), sp);
    r.final_rows = lg_let(E, "final_rows", lg_op(E, SC_TK_MINUS, r.remote, r.group_rows, sp), sp);
    r.repeat = lg_let(E, "group_repeat", sv_int(G * N, sp), sp);
    /* (my_rank + 1) * M // W: this rank's rows start after the next rank's */
    r.rank_off = lg_opi(E, SC_TK_DOUBLESLASH,
                        lg_opi(E, SC_TK_STAR, lg_opi(E, SC_TK_PLUS, rank, 1, sp), M, sp), W, sp);
    if (r.final_rows.kind == SV_ERROR || r.repeat.kind == SV_ERROR || r.rank_off.kind == SV_ERROR)
        return false;
    ScVal c1 = el_compare(E, SC_TK_LESS, at, lg_opi(E, SC_TK_STAR, r.group_rows, N, sp), sp);
    ScVal c2 = el_compare(E, SC_TK_GREATER, r.group_rows, sv_int(0, sp), sp);
    return lg_if(E, el_logical(E, SC_TK_AND, c1, c2, sp), rank_set, &r, true, sp);
}

/* The work item's (b, h, q) from the index lists. */
static bool indexed_load_items(El *E, void *ctx, int which)
{
    ScLinSched *s = ctx;
    TxSpan sp = s->sp;
    (void)which;
    for (int i = 0; i < 3; i++) { /* q, h, b */
        ScVal at = lg_load(E, s->linear, sp);
        IrExpr *ix = at.kind == SV_ERROR ? NULL : el_prim(E, &at, "an index");
        if (!ix)
            return false;
        IrExpr **idx = TX_NEW(E->a, IrExpr *);
        idx[0] = ix;
        IrExpr *v = el_load(E, s->bufs[2 - i], idx, 1, sp);
        if (!v || !lg_store(E, s->own[i], sv_expr(v, sp), sp))
            return false;
    }
    return true;
}

/* Only while linear_idx < linear_lim: the reference loads past the last work
 * item, one element beyond the lists, when a CTA's items run out. */
static bool indexed_load(El *E, ScLinSched *s)
{
    ScVal in = el_compare(E, SC_TK_LESS, lg_load(E, s->linear, s->sp),
                          lg_load(E, s->own[3], s->sp), s->sp);
    return lg_if(E, in, indexed_load_items, s, false, s->sp);
}

static bool update(El *E, ScLinSched *s, ScVal at)
{
    switch (s->kind) {
    case LANG_GROUP_MAJOR_3D: return gm3_update(E, s, at);
    case LANG_RANK_AWARE: return rank_update(E, s, at);
    case LANG_FA_LINEAR: return fa_linear_update(E, s, at);
    case LANG_FA_LPT: return fa_lpt_update(E, s, at);
    default: return indexed_load(E, s);
    }
}

/* ---------------------------------------------------------------- the scheduler */

ScVal lg_new_linear_sched(El *E, ScArgs *args, ScLangKind k)
{
    const LinClass *c = class_of(k);
    ScBound b;
    if (!el_bind_args(E, args, c->params, &b))
        return sv_error();
    ScLinSched *s = TX_NEW(E->a, ScLinSched);
    s->kind = k, s->sp = args->span;
    TxSpan sp = args->span;
    switch (k) {
    case LANG_GROUP_MAJOR_3D: {
        int64_t N, K, G;
        ScVal m = b.v[1];
        if (!int_or_expr(E, &m, "m_tiles") || !lg_count(E, &b.v[2], 1, &N, "n_tiles", args) ||
            !lg_count(E, &b.v[3], 1, &K, "k_tiles", args) ||
            !lg_count(E, &b.v[4], 1, &G, "group_rows", args))
            return sv_error();
        s->step = sv_given(&b.v[5]) ? b.v[5] : sv_int(1, sp);
        if (!int_or_expr(E, &s->step, "step"))
            return sv_error();
        s->dims[0] = G, s->dims[1] = N;
        ScVal groups = s->groups = lg_trunc_div(E, m, G, args);
        ScVal final = lg_op(E, SC_TK_MINUS, m, lg_opi(E, SC_TK_STAR, groups, G, sp), sp);
        if (final.kind == SV_INT) {
            s->safe_final = sv_int(final.u.i > 1 ? final.u.i : 1, sp);
        } else {
            LgCall mx = {0};
            lg_pos(&mx, final);
            lg_pos(&mx, sv_int(1, sp));
            s->safe_final = lg_call(E, "max", &mx, args);
        }
        if (G * N > INT32_MAX / K) {
            el_error(E, TX_E_HELPER, args->span,
                     "%s: a group of %lld x %lld x %lld tiles does not fit the int32 tile index",
                     args->fname, (long long)G, (long long)N, (long long)K);
            return sv_error();
        }
        s->group_size = sv_int(G * N * K, sp);
        s->total = lg_opi(E, SC_TK_STAR, lg_opi(E, SC_TK_STAR, m, N, sp), K, sp);
        s->full_bound = lg_opi(E, SC_TK_STAR, groups, G * N * K, sp);
        s->has_full = el_compare(E, SC_TK_GREATER, groups, sv_int(0, sp), sp);
        s->has_tail = el_compare(E, SC_TK_GREATER, final, sv_int(0, sp), sp);
        break;
    }
    case LANG_RANK_AWARE:
        for (int i = 0; i < 4; i++) {
            static const char *const what[] = {"m_clusters", "n_clusters", "group_size",
                                               "world_size"};
            if (!lg_count(E, &b.v[1 + i], 1, &s->dims[i], what[i], args))
                return sv_error();
        }
        if (s->dims[0] < s->dims[3]) { /* each rank owns m_clusters // world_size rows */
            el_error(E, TX_E_HELPER, b.v[1].span,
                     "%s: m_clusters (%lld) must be at least world_size (%lld)", args->fname,
                     (long long)s->dims[0], (long long)s->dims[3]);
            return sv_error();
        }
        s->total = sv_int(s->dims[0] * s->dims[1], sp);
        break;
    case LANG_INDEXED_TRIPLE: {
        static const char *const what[] = {"b_indices", "h_indices", "q_indices",
                                           "tiles_indptr"};
        for (int i = 0; i < 4; i++) {
            if (!index_buffer(E, &b.v[1 + i], what[i], args))
                return sv_error();
            s->bufs[i] = b.v[1 + i].u.e;
        }
        break;
    }
    default: { /* the flash-attention schedulers */
        int64_t heads, blocks;
        bool lpt = k == LANG_FA_LPT;
        if (!int_or_expr(E, &b.v[1], "num_batches") ||
            !lg_count(E, &b.v[2], 1, &heads, "num_heads", args) ||
            !lg_count(E, &b.v[3], 1, &blocks, "num_m_blocks", args))
            return sv_error();
        s->dims[0] = heads, s->dims[1] = blocks;
        s->total = lg_opi(E, SC_TK_STAR, lg_opi(E, SC_TK_STAR, b.v[1], heads, sp), blocks, sp);
        ScVal ctas = b.v[lpt ? 5 : 4];
        s->step = sv_given(&ctas) && ctas.kind != SV_NONE ? ctas : (ScVal){.kind = SV_NONE};
        if (s->step.kind != SV_NONE && !int_or_expr(E, &s->step, "num_ctas"))
            return sv_error();
        if (lpt) {
            int64_t batches;
            if (!lg_count(E, &b.v[4], 1, &s->dims[2], "l2_swizzle", args) ||
                !lg_count(E, &b.v[1], 1, &batches, "num_batches", args))
                return sv_error();
            s->dims[3] = batches * heads;
        }
        break;
    }
    }
    if (k != LANG_INDEXED_TRIPLE && !lg_work_fits(E, s->total, args))
        return sv_error();
    if (!(s->m_idx = lg_local_scalar(E, "int32", args)) ||
        !(s->n_idx = lg_local_scalar(E, "int32", args)) ||
        !(s->linear = lg_local_scalar(E, "int32", args)))
        return sv_error();
    for (int i = 0; i < nown(c); i++)
        if (!(s->own[i] = lg_local_scalar(E, "int32", args)))
            return sv_error();
    ScLang *h = lg_new(E, k);
    h->u.lin = s;
    return lg_val(h, sp);
}

void lg_linear_sched_named(El *E, ScLang *h, const char *name)
{
    const LinClass *c = class_of(h->kind);
    for (int i = 0; i < nown(c); i++)
        h->u.lin->own[i]->u.var.name = tx_arena_printf(E->a, "%s_%s", name, c->own[i]);
}

ScVal lg_linear_sched_attr(El *E, ScVal obj, const char *name, TxSpan sp)
{
    ScLinSched *s = obj.u.lang->u.lin;
    const LinClass *c = class_of(obj.u.lang->kind);
    static const char *const base[] = {"m_idx", "n_idx", "linear_idx"};
    IrExpr *const base_vars[] = {s->m_idx, s->n_idx, s->linear};
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, base[i]))
            return lg_scalar(base_vars[i], sp);
    for (int i = 0; i < nown(c); i++)
        if (!strcmp(name, c->own[i]))
            return lg_scalar(s->own[i], sp);
    return el_method_attr(E, obj, c->methods, c->nmethods, name, sp, el_lang_kind_name(obj.u.lang));
}

ScVal lg_linear_sched_method(El *E, ScLang *h, const char *name, ScArgs *args)
{
    ScLinSched *s = h->u.lin;
    ScBound b;
    TxSpan sp = args->span;
    s->sp = sp;
    bool indexed = s->kind == LANG_INDEXED_TRIPLE, ok;
    if (!strcmp(name, "valid")) {
        if (!el_bind_args(E, args, "", &b))
            return sv_error();
        return el_compare(E, SC_TK_LESS, lg_load(E, s->linear, sp),
                          indexed ? lg_load(E, s->own[3], sp) : s->total, sp);
    }
    if (!strcmp(name, "update_current_m_n_idx"))
        return el_bind_args(E, args, "linear_idx", &b) && update(E, s, b.v[0]) ? sv_none(sp)
                                                                               : sv_error();
    if (!strcmp(name, "init")) {
        if (!el_bind_args(E, args, "start", &b))
            return sv_error();
        ScVal start = b.v[0];
        if (indexed) { /* work items tiles_indptr[sm] .. tiles_indptr[sm + 1] */
            IrExpr *sm = el_prim(E, &start, "init's argument");
            IrExpr **i0 = TX_NEW(E->a, IrExpr *), **i1 = TX_NEW(E->a, IrExpr *);
            ScVal next = lg_opi(E, SC_TK_PLUS, start, 1, sp);
            if (!sm || next.kind == SV_ERROR)
                return sv_error();
            i0[0] = sm, i1[0] = el_prim(E, &next, "init's argument");
            ok = lg_store(E, s->linear, sv_expr(el_load(E, s->bufs[3], i0, 1, sp), sp), sp) &&
                 lg_store(E, s->own[3], sv_expr(el_load(E, s->bufs[3], i1, 1, sp), sp), sp) &&
                 indexed_load(E, s);
            return ok ? sv_none(sp) : sv_error();
        }
        ok = lg_store(E, s->linear, start, sp) &&
             (s->kind != LANG_GROUP_MAJOR_3D || lg_store(E, s->own[0], sv_int(0, sp), sp)) &&
             update(E, s, start);
        return ok ? sv_none(sp) : sv_error();
    }
    /* next_tile(), next_tile_stride(stride); RankAware: next_tile(stride) */
    ScVal stride = s->step;
    if (!strcmp(name, "next_tile_stride") || s->kind == LANG_RANK_AWARE) {
        if (!el_bind_args(E, args, "stride", &b))
            return sv_error();
        stride = b.v[0];
    } else if (!el_bind_args(E, args, "", &b)) {
        return sv_error();
    }
    if (indexed)
        stride = sv_int(1, sp);
    if (stride.kind == SV_NONE) /* FlashAttentionLPTScheduler without num_ctas: one tile */
        return lg_store(E, s->linear, s->total, sp) ? sv_none(sp) : sv_error();
    ok = lg_store(E, s->linear, lg_op(E, SC_TK_PLUS, lg_load(E, s->linear, sp), stride, sp), sp) &&
         (s->kind != LANG_GROUP_MAJOR_3D ||
          lg_store(E, s->own[0], lg_opi(E, SC_TK_PLUS, lg_load(E, s->own[0], sp), 1, sp), sp)) &&
         update(E, s, lg_load(E, s->linear, sp));
    return ok ? sv_none(sp) : sv_error();
}
