/* The cluster launch control (CLC) tile scheduler of tvm.tirx.lang
 * (tile_scheduler.py's ClusterLaunchControlScheduler and _CLCWorker) and the
 * response decode of clc.py, expanded at parse time into what the reference
 * prints for them:
 *
 *     clc = ClusterLaunchControlScheduler(pool, num_m_tiles=M, num_n_tiles=N,
 *                                         l2_group_size=8, cta_group=2, finish_arrivals=5)
 *     clc.run_scheduler(cbx)        # the scheduler warp: try_cancel, decode, repeat
 *     w = clc.worker("w")           # a role's handle: a ClusterPersistentScheduler2D
 *     w.init(bx // 2)               # (or w.reset() for a role without coordinates)
 *     while w.valid():
 *         ... w.m_idx, w.n_idx ...
 *         w.consume()               # one thread; w.consume_wg(wg, warp, lane) a warpgroup
 *         w.advance_coords()
 *         w.mark_done_if_drained()
 *     query_cancel_first_ctaid_x(nxt, T.address_of(handle[0]), use_ld_acquire=True)
 *
 * The scheduler owns the 16-byte response slot (clc_handle), the arrival
 * pipeline sched_arr (its full side completes when the response lands) and
 * sched_fin (its empty side counts the finish_arrivals readers of a response
 * on CTA 0 before the slot is reused). A worker takes each response: wait,
 * decode the first CTA id of the cancelled cluster (0xFFFFFFFF when none was
 * left), release the slot, and map the id divided by cta_group (the CTAs per
 * cluster) to tile coordinates in the scheduler's group-major order. */
#include "elab_lang.h"

typedef struct ScClc {
    ScLang *arr, *fin;       /* sched_arr, sched_fin */
    IrExpr *handle;          /* clc_handle: (4,) uint32, 16-byte aligned */
    IrExpr *s_done, *s_nxt;  /* the scheduler warp's loop state */
    ScVal num_m;
    int64_t num_n, group, cta_group;
} ScClc;

typedef struct ScClcWorker {
    ScClc *clc;
    ScLang *sa;              /* the worker's PipelineState(1, 0) over sched_arr */
    IrExpr *done, *nxt;
} ScClcWorker;

#define NO_CTA 0xFFFFFFFFll

/* ---------------------------------------------------------------- the decode */

static IrExpr *named_scalar(El *E, const char *dtype, const char *name, const ScArgs *at)
{
    IrExpr *v = lg_local_scalar(E, dtype, at);
    if (v)
        v->u.var.name = name;
    return v;
}

/* query_cancel_first_ctaid_x(first_ctaid_x, handle, use_ld_acquire): load the
 * response, test it, extract the first CTA id under the test's predicate
 * (first_ctaid_x keeps 0xFFFFFFFF otherwise), fence the generic-proxy read
 * before the next asynchronous write of the slot. */
static bool query_cancel(El *E, IrExpr *first, ScVal handle, bool acquire, const ScArgs *at)
{
    TxSpan sp = at->span;
    IrExpr *response = named_scalar(E, "uint128", "response", at);
    IrExpr *canceled = named_scalar(E, "uint32", "canceled", at);
    if (!response || !canceled)
        return false;
    LgCall ld = {0}, test = {0}, get = {0}, fence = {0};
    lg_pos(&ld, lg_scalar(response, sp));
    lg_pos(&ld, handle);
    lg_pos(&test, lg_scalar(canceled, sp));
    lg_pos(&test, lg_scalar(response, sp));
    lg_pos(&get, lg_scalar(first, sp));
    lg_pos(&get, lg_scalar(response, sp));
    lg_kw(&get, "pred", lg_scalar(canceled, sp));
    return lg_stmt(E, acquire ? "ptx[ld.acquire.cta.shared.b128" : "ptx[ld.shared.b128", &ld,
                   at) &&
           lg_stmt(E, "ptx.clusterlaunchcontrol.query_cancel.is_canceled.pred.b128", &test, at) &&
           lg_store(E, first, lg_u32(E, sv_int(NO_CTA, sp), sp), sp) &&
           lg_stmt(E, "ptx.clusterlaunchcontrol.query_cancel.get_first_ctaid__x.b32.b128", &get,
                   at) &&
           lg_stmt(E, "ptx.fence.proxy.async_.shared__cta", &fence, at);
}

/* A uint32 local scalar argument, the decode's destination. */
static IrExpr *u32_scalar(El *E, const ScVal *v, const ScArgs *at)
{
    IrType *t = v->kind == SV_BUFFER ? v->u.e->u.var.type : NULL;
    if (t && t->kind == IR_TY_BUFFER && t->buf->ndim <= 1 && t->dtype.code == IR_DT_UINT &&
        t->dtype.bits == 32 && t->scope && !strcmp(t->scope, "local"))
        return v->u.e;
    if (v->kind != SV_ERROR)
        el_error(E, TX_E_HELPER, v->span,
                 "%s: first_ctaid_x is a uint32 local scalar (`nxt: T.uint32`), not %s",
                 at->fname, sv_kind_name(v));
    return NULL;
}

/* query_cancel_first_ctaid_x(first_ctaid_x, handle, *, use_ld_acquire=True) */
ScVal lg_clc_query_call(El *E, ScArgs *args, ScLangKind k)
{
    ScBound b;
    bool acquire = true;
    (void)k;
    if (!el_bind_args(E, args, "first_ctaid_x, handle, *, use_ld_acquire=", &b))
        return sv_error();
    if (sv_given(&b.v[2]) && !sv_truth(&b.v[2], &acquire)) {
        el_error(E, TX_E_HELPER, b.v[2].span, "%s: use_ld_acquire takes True or False",
                 args->fname);
        return sv_error();
    }
    IrExpr *first = u32_scalar(E, &b.v[0], args);
    return first && query_cancel(E, first, b.v[1], acquire, args) ? sv_none(args->span)
                                                                 : sv_error();
}

/* ---------------------------------------------------------------- shared steps */

/* pipe_side.wait(0, state.phase); state.advance() */
static bool wait_advance(El *E, ScLang *bar, ScLang *state, const ScArgs *at)
{
    LgCall w = {0}, adv = {0};
    lg_pos(&w, sv_int(0, at->span));
    lg_pos(&w, lg_scalar(state->u.state.phase, at->span));
    return lg_method(E, bar, "wait", &w, at).kind != SV_ERROR &&
           lg_method(E, state, "advance", &adv, at).kind != SV_ERROR;
}

/* sched_fin.empty.arrive(0, remote=0, pred=True): one reader is done with the slot. */
static bool release_slot(El *E, ScClc *c, const ScArgs *at)
{
    LgCall k = {0};
    lg_pos(&k, sv_int(0, at->span));
    lg_kw(&k, "remote", sv_int(0, at->span));
    lg_kw(&k, "pred", sv_bool(true, at->span));
    return lg_method(E, c->fin->u.pipe.empty, "arrive", &k, at).kind != SV_ERROR;
}

/* wait for the response, decode it into nxt */
static bool take_response(El *E, ScClc *c, ScLang *state, IrExpr *nxt, const ScArgs *at)
{
    return wait_advance(E, c->arr->u.pipe.full, state, at) &&
           query_cancel(E, nxt, lg_addr0(E, c->handle, at), true, at);
}

static ScVal is_no_cta(El *E, IrExpr *nxt, int op, TxSpan sp)
{
    return el_compare(E, op, lg_scalar(nxt, sp), sv_int(NO_CTA, sp), sp);
}

static bool set_flag(El *E, IrExpr *flag, int64_t v, TxSpan sp)
{
    return lg_store(E, flag, sv_int(v, sp), sp);
}

/* ---------------------------------------------------------------- the scheduler */

static ScLang *new_pipeline(El *E, ScVal pool, const char *full, ScVal init_empty,
                            const ScArgs *at)
{
    LgCall k = {0};
    lg_pos(&k, pool);
    lg_pos(&k, sv_int(1, at->span));
    lg_kw(&k, "full", sv_str(E, full, at->span));
    lg_kw(&k, "empty", sv_str(E, "mbar", at->span));
    lg_kw(&k, "init_empty", init_empty);
    ScArgs a = lg_args(&k, at, "Pipeline");
    ScVal p = lg_new_pipeline(E, &a, LANG_PIPELINE);
    return p.kind == SV_LANG ? p.u.lang : NULL;
}

/* ClusterLaunchControlScheduler(pool, num_m_tiles, num_n_tiles, l2_group_size,
 *                               cta_group, finish_arrivals) */
ScVal lg_new_clc(El *E, ScArgs *args, ScLangKind k)
{
    ScBound b;
    ScClc *c = TX_NEW(E->a, ScClc);
    if (!el_bind_args(E, args, "pool, num_m_tiles, num_n_tiles, l2_group_size, cta_group, "
                               "finish_arrivals", &b) ||
        !lg_count(E, &b.v[2], 1, &c->num_n, "num_n_tiles", args) ||
        !lg_count(E, &b.v[3], 1, &c->group, "l2_group_size", args) ||
        !lg_count(E, &b.v[4], 1, &c->cta_group, "cta_group", args))
        return sv_error();
    c->num_m = b.v[1];
    if (c->num_m.kind != SV_INT && !el_prim(E, &c->num_m, "num_m_tiles"))
        return sv_error();
    LgCall al = {0};
    lg_pos(&al, lg_seq1(E, SV_TUPLE, sv_int(4, args->span), args->span));
    lg_pos(&al, sv_str(E, "uint32", args->span));
    lg_kw(&al, "align", sv_int(16, args->span));
    ScArgs a = lg_args(&al, args, "alloc");
    ScVal handle;
    if (!(c->arr = new_pipeline(E, b.v[0], "tma", sv_int(1, args->span), args)) ||
        !(c->fin = new_pipeline(E, b.v[0], "mbar", b.v[5], args)) ||
        (handle = el_pool_method(E, b.v[0], "alloc", &a)).kind != SV_BUFFER ||
        !(c->s_done = lg_local_scalar(E, "int32", args)) ||
        !(c->s_nxt = lg_local_scalar(E, "uint32", args)))
        return sv_error();
    c->handle = handle.u.e;
    ScLang *h = lg_new(E, k);
    h->u.clc = c;
    return lg_val(h, args->span);
}

ScVal lg_clc_attr(El *E, ScVal obj, const char *name, TxSpan sp)
{
    static const char *const methods[] = {"worker", "run_scheduler"};
    ScClc *c = obj.u.lang->u.clc;
    if (!strcmp(name, "sched_arr") || !strcmp(name, "sched_fin")) {
        ScVal v = lg_val(name[6] == 'a' ? c->arr : c->fin, sp);
        v.fresh = false;
        return v;
    }
    if (!strcmp(name, "clc_handle")) {
        ScVal v = {.kind = SV_BUFFER, .span = sp};
        v.u.e = c->handle;
        return v;
    }
    return el_method_attr(E, obj, methods, (int)TX_ARRAY_LEN(methods), name, sp,
                          "ClusterLaunchControlScheduler");
}

typedef struct RunCtx {
    ScClc *c;
    ScVal cbx;
    ScLang *sa, *sf;
    const ScArgs *at;
} RunCtx;

/* CTA 0 waits until every reader released the slot, then cancels a cluster. */
static bool emit_try_cancel(El *E, void *ctx, int which)
{
    RunCtx *r = ctx;
    (void)which;
    LgCall k = {0};
    lg_pos(&k, lg_addr0(E, r->c->handle, r->at));
    lg_pos(&k, lg_addr0(E, r->c->arr->u.pipe.full->u.bar.buf, r->at));
    return wait_advance(E, r->c->fin->u.pipe.empty, r->sf, r->at) &&
           lg_stmt(E, "ptx[clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::"
                      "complete_tx::bytes.multicast::cluster::all.b128", &k, r->at);
}

static bool emit_set_done(El *E, void *ctx, int which)
{
    RunCtx *r = ctx;
    (void)which;
    return set_flag(E, r->c->s_done, 1, r->at->span);
}

/* Each CTA expects the 16 response bytes, takes the response and releases it. */
static bool emit_round(El *E, void *ctx, int which)
{
    RunCtx *r = ctx;
    TxSpan sp = r->at->span;
    (void)which;
    LgCall tx = {0};
    lg_pos(&tx, sv_int(0, sp));
    lg_pos(&tx, sv_int(16, sp));
    return lg_if(E, el_compare(E, SC_TK_EQEQUAL, r->cbx, sv_int(0, sp), sp), emit_try_cancel,
                 r, false, sp) &&
           lg_method(E, r->c->arr->u.pipe.full, "arrive", &tx, r->at).kind != SV_ERROR &&
           take_response(E, r->c, r->sa, r->c->s_nxt, r->at) && release_slot(E, r->c, r->at) &&
           lg_if(E, is_no_cta(E, r->c->s_nxt, SC_TK_EQEQUAL, sp), emit_set_done, r, false, sp);
}

static ScLang *new_state(El *E, int64_t phase, const char *name, const ScArgs *at)
{
    LgCall k = {0};
    lg_pos(&k, sv_int(1, at->span));
    lg_pos(&k, sv_int(phase, at->span));
    ScArgs a = lg_args(&k, at, "PipelineState");
    ScVal v = lg_new_pipe_state(E, &a, LANG_PIPE_STATE);
    if (v.kind != SV_LANG)
        return NULL;
    if (name)
        el_lang_named(E, v.u.lang, name);
    return v.u.lang;
}

static bool emit_scheduler(El *E, void *ctx, int which)
{
    RunCtx *r = ctx;
    TxSpan sp = r->at->span;
    (void)which;
    if (!(r->sa = new_state(E, 0, "sa", r->at)) || !(r->sf = new_state(E, 1, "sf", r->at)) ||
        !set_flag(E, r->c->s_done, 0, sp))
        return false;
    ScVal running = el_compare(E, SC_TK_EQEQUAL, lg_scalar(r->c->s_done, sp), sv_int(0, sp), sp);
    return lg_while(E, running, emit_round, r, sp);
}

/* run_scheduler(cbx): the elected thread of the scheduler warp of every CTA. */
static bool run_scheduler(El *E, ScClc *c, ScVal cbx, const ScArgs *at)
{
    RunCtx r = {.c = c, .cbx = cbx, .at = at};
    LgCall none = {0};
    return lg_if(E, lg_call(E, "cuda.elect_sync", &none, at), emit_scheduler, &r, false,
                 at->span);
}

ScVal lg_clc_method(El *E, ScLang *h, const char *name, ScArgs *args)
{
    ScBound b;
    if (!strcmp(name, "run_scheduler"))
        return el_bind_args(E, args, "cbx", &b) && run_scheduler(E, h->u.clc, b.v[0], args)
                   ? sv_none(args->span)
                   : sv_error();
    /* worker(prefix) */
    ScVal clc = lg_val(h, args->span);
    clc.fresh = false;
    if (!el_bind_args(E, args, "prefix", &b))
        return sv_error();
    LgCall k = {0};
    lg_pos(&k, clc);
    lg_pos(&k, b.v[0]);
    ScArgs a = lg_args(&k, args, "_CLCWorker");
    return lg_new_clc_worker(E, &a, LANG_CLC_WORKER);
}

/* ---------------------------------------------------------------- the worker */

/* _CLCWorker(clc, prefix): a ClusterPersistentScheduler2D over every tile
 * (num_clusters = num_m_tiles * num_n_tiles), a PipelineState(1, 0) over
 * sched_arr, done and nxt. */
ScVal lg_new_clc_worker(El *E, ScArgs *args, ScLangKind k)
{
    ScBound b;
    if (!el_bind_args(E, args, "clc, prefix", &b))
        return sv_error();
    if (b.v[0].kind != SV_LANG || b.v[0].u.lang->kind != LANG_CLC) {
        if (b.v[0].kind != SV_ERROR)
            el_error(E, TX_E_HELPER, b.v[0].span,
                     "%s takes the ClusterLaunchControlScheduler it works for, not %s",
                     args->fname, sv_kind_name(&b.v[0]));
        return sv_error();
    }
    ScClc *c = b.v[0].u.lang->u.clc;
    ScClcWorker *w = TX_NEW(E->a, ScClcWorker);
    w->clc = c;
    ScVal tiles = el_binop(E, SC_TK_STAR, c->num_m, sv_int(c->num_n, args->span), args->span);
    ScSched *s = tiles.kind == SV_ERROR
                     ? NULL
                     : lg_sched_make(E, c->num_m, c->num_n, tiles, c->group, 1, 1, args);
    if (!s || !lg_work_fits(E, s->total, args) || !(w->sa = new_state(E, 0, NULL, args)) ||
        !(w->done = lg_local_scalar(E, "int32", args)) ||
        !(w->nxt = lg_local_scalar(E, "uint32", args)))
        return sv_error();
    s->worker = w;
    ScLang *h = lg_new(E, k);
    h->u.sched = s;
    return lg_val(h, args->span);
}

typedef struct WorkerCtx {
    ScClcWorker *w;
    ScSched *s;
    const ScArgs *at;
} WorkerCtx;

static bool emit_release(El *E, void *ctx, int which)
{
    WorkerCtx *x = ctx;
    (void)which;
    return release_slot(E, x->w->clc, x->at);
}

/* consume_wg: every thread decodes, the warpgroup syncs (named barrier wg_id + 1),
 * lane 0 of warp 0 releases the slot for all of them. */
static bool consume_wg(El *E, WorkerCtx *x, const ScBound *b)
{
    TxSpan sp = x->at->span;
    LgCall sync = {0};
    lg_pos(&sync, el_binop(E, SC_TK_PLUS, b->v[0], sv_int(1, sp), sp));
    ScVal first = el_compare(E, SC_TK_EQEQUAL, b->v[1], sv_int(0, sp), sp);
    ScVal lane0 = el_compare(E, SC_TK_EQEQUAL, b->v[2], sv_int(0, sp), sp);
    return take_response(E, x->w->clc, x->w->sa, x->w->nxt, x->at) &&
           lg_stmt(E, "cuda.warpgroup_sync", &sync, x->at) &&
           lg_if(E, el_binop(E, SC_TK_AMPER, first, lane0, sp), emit_release, x, false, sp);
}

static bool emit_advance(El *E, void *ctx, int which)
{
    WorkerCtx *x = ctx;
    TxSpan sp = x->at->span;
    (void)which;
    ScVal work = el_binop(E, SC_TK_DOUBLESLASH, lg_scalar(x->w->nxt, sp),
                          sv_int(x->w->clc->cta_group, sp), sp);
    return work.kind != SV_ERROR && lg_sched_update(E, x->s, work, sp);
}

static bool emit_done(El *E, void *ctx, int which)
{
    WorkerCtx *x = ctx;
    (void)which;
    return set_flag(E, x->w->done, 1, x->at->span);
}

ScVal lg_worker_method(El *E, ScLang *h, const char *name, ScArgs *args)
{
    ScSched *s = h->u.sched;
    WorkerCtx x = {s->worker, s, args};
    TxSpan sp = args->span;
    ScBound b;
    bool ok;
    if (!strcmp(name, "valid"))
        return el_bind_args(E, args, "", &b)
                   ? el_compare(E, SC_TK_EQEQUAL, lg_scalar(x.w->done, sp), sv_int(0, sp), sp)
                   : sv_error();
    if (!strcmp(name, "reset"))
        ok = el_bind_args(E, args, "", &b) && set_flag(E, x.w->done, 0, sp);
    else if (!strcmp(name, "init"))
        ok = el_bind_args(E, args, "cluster_id", &b) && lg_sched_init(E, s, b.v[0], sp) &&
             set_flag(E, x.w->done, 0, sp);
    else if (!strcmp(name, "consume"))
        ok = el_bind_args(E, args, "", &b) &&
             take_response(E, x.w->clc, x.w->sa, x.w->nxt, args) &&
             release_slot(E, x.w->clc, args);
    else if (!strcmp(name, "consume_wg"))
        ok = el_bind_args(E, args, "wg_id, warp_id, lane_id", &b) && consume_wg(E, &x, &b);
    else if (!strcmp(name, "advance_coords") && x.w->clc->num_m.kind != SV_INT) {
        /* the decoded id is uint32, the tile counts int32: the reference fails too */
        el_error(E, TX_E_HELPER, sp, "%s: the CTA id of a response is a uint32 and this "
                 "scheduler's num_m_tiles a runtime int32; mapping one onto the other needs "
                 "num_m_tiles as a constant", args->fname);
        return sv_error();
    } else if (!strcmp(name, "advance_coords"))
        ok = el_bind_args(E, args, "", &b) &&
             lg_if(E, is_no_cta(E, x.w->nxt, SC_TK_NOTEQUAL, sp), emit_advance, &x, false, sp);
    else if (!strcmp(name, "mark_done_if_drained"))
        ok = el_bind_args(E, args, "", &b) &&
             lg_if(E, is_no_cta(E, x.w->nxt, SC_TK_EQEQUAL, sp), emit_done, &x, false, sp);
    else
        return lg_sched_method(E, h, name, args);
    return ok ? sv_none(sp) : sv_error();
}

/* ---------------------------------------------------------------- names */

/* As the reference names a meta-class object's own fields on assignment:
 * clc_sched_arr_empty_buf, clc_clc_handle, clc__s_done; a worker's w__sa_stage,
 * w__done, w__nxt (its scheduler locals, made by the base class, stay unnamed). */
void lg_clc_named(El *E, ScLang *h, const char *name)
{
    if (h->kind == LANG_CLC) {
        ScClc *c = h->u.clc;
        el_lang_named(E, c->arr, tx_arena_printf(E->a, "%s_sched_arr", name));
        el_lang_named(E, c->fin, tx_arena_printf(E->a, "%s_sched_fin", name));
        c->handle->u.var.name = tx_arena_printf(E->a, "%s_clc_handle", name);
        c->s_done->u.var.name = tx_arena_printf(E->a, "%s__s_done", name);
        c->s_nxt->u.var.name = tx_arena_printf(E->a, "%s__s_nxt", name);
        return;
    }
    ScClcWorker *w = h->u.sched->worker;
    el_lang_named(E, w->sa, tx_arena_printf(E->a, "%s__sa", name));
    w->done->u.var.name = tx_arena_printf(E->a, "%s__done", name);
    w->nxt->u.var.name = tx_arena_printf(E->a, "%s__nxt", name);
}
