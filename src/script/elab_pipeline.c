/* Barriers and pipelines of tvm.tirx.lang.pipeline, expanded at parse time
 * into what the reference prints for them:
 *
 *     bar = MBarrier(pool, depth, phase_offset=0, leader=None)   # also TMABar, TCGen05Bar
 *     bar.init(count)          # if leader: for i in T.unroll(depth): mbarrier.init
 *     bar.wait(stage, phase)   # T.cuda.mbarrier_wait(&buf[stage], phase ^ phase_offset)
 *     bar.arrive(stage, ...)   # mbarrier.arrive / arrive.expect_tx / tcgen05.commit
 *     bar.ptr_to([stage])      # the barrier's address, e.g. for Tx.copy_async(mbar=)
 *     far = bar.remote_view(rank)   # the barriers of CTA rank of the cluster (mapa)
 *     pipe = Pipeline(pool, stages, full="tma", empty="mbar", init_full=1, init_empty=1)
 *     ps = PipelineState(depth, phase)  # ps.stage, ps.phase, ps.advance()
 *
 * A barrier is `depth` uint64 words of the SMEM pool (align 8). The leader,
 * by default `T.cuda.thread_rank() == 0`, runs mbarrier.init; fencing the
 * init and syncing the CTA stay the kernel's (as in the reference). arrive
 * with remote=rank maps the address into that CTA (mapa.shared::cluster.u32)
 * and arrives there; a remote view maps the whole array once (mapa.u64). */
#include "elab_lang.h"

/* ---------------------------------------------------------------- barriers */

static ScVal buffer_val(IrExpr *buf, TxSpan sp)
{
    ScVal v = {.kind = SV_BUFFER, .span = sp};
    v.u.e = buf;
    return v;
}

/* buf.ptr_to([idx]): T.address_of(buf[idx]). */
static ScVal bar_ptr(El *E, const ScLang *h, ScVal idx, const ScArgs *at)
{
    ScVal list = lg_seq1(E, SV_LIST, idx, at->span);
    ScArgs a = {.call = at->call, .span = at->span, .fname = "ptr_to", .npos = 1, .pos = &list};
    return el_buffer_method(E, buffer_val(h->u.bar.buf, at->span), "ptr_to", &a);
}

static ScLang *new_barrier(El *E, ScLangKind k, const ScVal *pool, int64_t depth,
                           int64_t phase_offset, IrExpr *leader, const ScArgs *at)
{
    if (pool->kind != SV_POOL || !strcmp(el_pool_kind_name(pool->u.pool), "a TMEM pool")) {
        if (pool->kind != SV_ERROR)
            el_error(E, TX_E_HELPER, pool->span,
                     "%s takes the SMEM pool (T.SMEMPool()) that holds it, not %s",
                     at->fname, sv_kind_name(pool));
        return NULL;
    }
    if (depth < 1) {
        el_error(E, TX_E_HELPER, at->span, "%s: depth must be at least 1, not %lld", at->fname,
                 (long long)depth);
        return NULL;
    }
    ScLang *h = lg_new(E, k);
    h->u.bar.depth = depth, h->u.bar.phase_offset = phase_offset;
    if (!leader) {
        LgCall none = {0};
        ScVal rank = lg_call(E, "cuda.thread_rank", &none, at);
        ScVal c = el_compare(E, SC_TK_EQEQUAL, rank, sv_int(0, at->span), at->span);
        if (c.kind == SV_ERROR || !(leader = el_prim(E, &c, "the leader")))
            return NULL;
    }
    h->u.bar.leader = leader;
    LgCall k2 = {0};
    lg_pos(&k2, lg_seq1(E, SV_TUPLE, sv_int(depth, at->span), at->span));
    lg_pos(&k2, sv_str(E, "uint64", at->span));
    lg_kw(&k2, "align", sv_int(8, at->span));
    ScArgs a = {.call = at->call, .span = at->span, .npos = k2.npos, .pos = k2.pos,
                .nkw = k2.nkw, .kw = k2.kw, .kwnames = k2.names, .kwspans = k2.spans};
    ScVal buf = el_pool_method(E, *pool, "alloc", &a);
    if (buf.kind != SV_BUFFER)
        return NULL;
    h->u.bar.buf = buf.u.e;
    return h;
}

typedef struct InitCtx {
    ScLang *h;
    ScVal count;
    const ScArgs *at;
} InitCtx;

/* for i in T.unroll(depth): T.ptx.mbarrier.init.shared.b64(buf.ptr_to([i]), T.uint32(count)) */
static bool emit_init_loop(El *E, void *ctx, int which)
{
    InitCtx *c = ctx;
    TxSpan sp = c->at->span;
    (void)which;
    LgCall k = {0};
    lg_pos(&k, sv_int(c->h->u.bar.depth, sp));
    ScVal loop = lg_call(E, "unroll", &k, c->at);
    if (loop.kind != SV_LOOP)
        return false;
    IrExpr *i = ir_var(E->a, "i", el_prim_type(E, loop.u.loop->dims[0].dtype), sp);
    ScStmtList outer = el_block_begin(E);
    LgCall init = {0};
    lg_pos(&init, bar_ptr(E, c->h, sv_expr(i, sp), c->at));
    lg_pos(&init, lg_u32(E, c->count, sp));
    bool ok = init.pos[1].kind != SV_ERROR && lg_stmt(E, "ptx.mbarrier.init.shared.b64", &init, c->at);
    IrStmt *body = el_block_end(E, outer, sp);
    el_emit(E, el_loop_nest(E, loop.u.loop, &i, body, sp));
    return ok;
}

static bool bar_init(El *E, ScLang *h, ScVal count, const ScArgs *at)
{
    if (h->u.bar.remote) {
        el_error(E, TX_E_HELPER, at->span, "%s: a remote view cannot be initialized", at->fname);
        return false;
    }
    if (count.kind == SV_INT && (count.u.i < 1 || count.u.i > (1 << 20) - 1)) {
        el_error(E, TX_E_HELPER, count.span,
                 "%s: the arrival count is from 1 to 2^20 - 1, not %lld",
                 at->fname, (long long)count.u.i);
        return false;
    }
    InitCtx c = {h, count, at};
    return lg_if(E, sv_expr(h->u.bar.leader, at->span), emit_init_loop, &c, false, at->span);
}

static ScVal phase_xor(El *E, ScVal phase, int64_t off, TxSpan sp)
{
    if (phase.kind == SV_INT || phase.kind == SV_BOOL)
        return el_binop(E, SC_TK_CIRCUMFLEX, phase, sv_int(off, sp), sp);
    IrExpr *e = el_prim(E, &phase, "the phase");
    return e ? el_binop(E, SC_TK_CIRCUMFLEX, sv_expr(e, sp), sv_int(off, sp), sp) : sv_error();
}

/* mapped: uint32 = mapa.shared::cluster.u32(cvta(ptr), rank): the barrier's
 * address in the shared window of CTA rank. */
static ScVal map_addr(El *E, ScVal ptr, ScVal rank, const ScArgs *at)
{
    LgCall k = {0};
    lg_pos(&k, lg_seq1(E, SV_LIST, sv_int(1, at->span), at->span));
    lg_pos(&k, sv_str(E, "uint32", at->span));
    ScVal mapped = lg_call(E, "alloc_local", &k, at);
    if (mapped.kind != SV_BUFFER)
        return sv_error();
    LgCall cvta = {0};
    lg_pos(&cvta, ptr);
    LgCall m = {0};
    lg_pos(&m, lg_scalar(mapped.u.e, at->span));
    lg_pos(&m, lg_call(E, "cuda.cvta_generic_to_shared", &cvta, at));
    lg_pos(&m, lg_u32(E, rank, at->span));
    if (m.pos[1].kind == SV_ERROR || m.pos[2].kind == SV_ERROR ||
        !lg_stmt(E, "ptx.mapa.shared__cluster.u32", &m, at))
        return sv_error();
    return lg_scalar(mapped.u.e, at->span);
}

static void add_pred(LgCall *k, const ScVal *pred)
{
    if (sv_given(pred) && pred->kind != SV_NONE)
        lg_kw(k, "pred", *pred);
}

/* mbarrier.arrive[.expect_tx].shared::cluster.b64 _, [bar][, n]: n is the count
 * (arrive) or the byte count (expect_tx); absent, the implicit count of 1. */
static bool arrive_remote(El *E, ScVal bar, const ScVal *n, bool expect_tx, const ScVal *pred,
                          const ScArgs *at)
{
    LgCall k = {0};
    lg_pos(&k, bar);
    if (sv_given(n) && n->kind != SV_NONE)
        lg_pos(&k, lg_u32(E, *n, at->span));
    add_pred(&k, pred);
    return (k.npos < 2 || k.pos[1].kind != SV_ERROR) &&
           lg_stmt(E, expect_tx ? "ptx.mbarrier.arrive.expect_tx.shared__cluster.b64"
                                : "ptx.mbarrier.arrive.shared__cluster.b64", &k, at);
}

/* The barrier to arrive on remotely: the view's own, or this one mapped into CTA remote. */
static bool remote_target(El *E, ScLang *h, ScVal stage, const ScVal *remote, ScVal *bar,
                          const ScArgs *at)
{
    if (h->u.bar.remote && sv_given(remote) && remote->kind != SV_NONE) {
        el_error(E, TX_E_HELPER, remote->span, "%s: a remote view cannot also take remote=",
                 at->fname);
        return false;
    }
    ScVal ptr = bar_ptr(E, h, stage, at);
    *bar = h->u.bar.remote || ptr.kind == SV_ERROR ? ptr : map_addr(E, ptr, *remote, at);
    return bar->kind != SV_ERROR;
}

static bool is_remote(const ScLang *h, const ScVal *remote)
{
    return h->u.bar.remote || (sv_given(remote) && remote->kind != SV_NONE);
}

/* MBarrier.arrive(stage, remote=None, pred=None, count=None) */
static ScVal mbar_arrive(El *E, ScLang *h, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "stage, remote=, pred=, count=", &b))
        return sv_error();
    ScVal bar;
    if (is_remote(h, &b.v[1]))
        return remote_target(E, h, b.v[0], &b.v[1], &bar, args) &&
                       arrive_remote(E, bar, &b.v[3], false, &b.v[2], args)
                   ? sv_none(args->span)
                   : sv_error();
    LgCall k = {0};
    lg_pos(&k, bar_ptr(E, h, b.v[0], args));
    bool counted = sv_given(&b.v[3]) && b.v[3].kind != SV_NONE;
    lg_pos(&k, lg_u32(E, counted ? b.v[3] : sv_int(1, args->span), args->span));
    add_pred(&k, &b.v[2]);
    if (k.pos[0].kind == SV_ERROR || k.pos[1].kind == SV_ERROR ||
        !lg_stmt(E, "ptx.mbarrier.arrive.shared.b64", &k, args))
        return sv_error();
    return sv_none(args->span);
}

/* TMABar.arrive(stage, tx_count=None, remote=None, pred=None): expect_tx of
 * tx_count bytes (a plain arrive without it). pred= applies to a remote arrive. */
static ScVal tma_arrive(El *E, ScLang *h, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "stage, tx_count=, remote=, pred=", &b))
        return sv_error();
    const ScVal *tx = &b.v[1];
    bool has_tx = sv_given(tx) && tx->kind != SV_NONE;
    ScVal bar;
    if (is_remote(h, &b.v[2]))
        return remote_target(E, h, b.v[0], &b.v[2], &bar, args) &&
                       arrive_remote(E, bar, tx, has_tx, &b.v[3], args)
                   ? sv_none(args->span)
                   : sv_error();
    if (sv_given(&b.v[3]) && b.v[3].kind != SV_NONE) {
        el_error(E, TX_E_HELPER, b.v[3].span,
                 "%s: pred= applies to a remote arrive (remote=); guard a "
                 "local one with `if`", args->fname);
        return sv_error();
    }
    if (has_tx && tx->kind == SV_INT && (tx->u.i < 0 || tx->u.i > (1 << 20) - 1)) {
        el_error(E, TX_E_HELPER, tx->span,
                 "%s: the transaction count is from 0 to 2^20 - 1 bytes, not %lld",
                 args->fname, (long long)tx->u.i);
        return sv_error();
    }
    LgCall k = {0};
    lg_pos(&k, bar_ptr(E, h, b.v[0], args));
    lg_pos(&k, lg_u32(E, has_tx ? *tx : sv_int(1, args->span), args->span));
    if (k.pos[0].kind == SV_ERROR || k.pos[1].kind == SV_ERROR ||
        !lg_stmt(E, has_tx ? "ptx.mbarrier.arrive.expect_tx.shared.b64"
                           : "ptx.mbarrier.arrive.shared.b64", &k, args))
        return sv_error();
    return sv_none(args->span);
}

/* TCGen05Bar.arrive(stage, cta_group=1, cta_mask=None, pred=None): tcgen05.commit,
 * multicast to cta_mask unless it is a constant naming at most one CTA. */
static ScVal tcgen05_arrive(El *E, ScLang *h, ScArgs *args)
{
    ScBound b;
    int64_t group, mask = 0;
    if (!el_bind_args(E, args, "stage, cta_group=, cta_mask=, pred=", &b) ||
        !lg_int(E, &b.v[1], 1, &group, "cta_group"))
        return sv_error();
    if (group != 1 && group != 2) {
        el_error(E, TX_E_HELPER, b.v[1].span, "%s: cta_group is 1 or 2, not %lld", args->fname,
                 (long long)group);
        return sv_error();
    }
    const ScVal *m = &b.v[2];
    bool has_mask = sv_given(m) && m->kind != SV_NONE;
    bool const_mask = has_mask && (m->kind == SV_INT || m->kind == SV_BOOL);
    if (const_mask)
        mask = m->kind == SV_INT ? m->u.i : m->u.b;
    bool unicast = !has_mask || (const_mask && __builtin_popcountll((uint64_t)mask) <= 1);
    if (const_mask && (mask < 0 || mask > 0xFFFF)) {
        el_error(E, TX_E_HELPER, m->span, "%s: cta_mask is a 16-bit CTA mask, not %lld",
                 args->fname,
                 (long long)mask);
        return sv_error();
    }
    LgCall k = {0};
    lg_pos(&k, bar_ptr(E, h, b.v[0], args));
    if (!unicast) {
        LgCall c = {0};
        lg_pos(&c, sv_str(E, "uint16", args->span));
        lg_pos(&c, *m);
        lg_pos(&k, lg_call(E, "Cast", &c, args));
    }
    add_pred(&k, &b.v[3]);
    const char *path = tx_arena_printf(
        E->a, "ptx[tcgen05.commit.cta_group::%lld.mbarrier::arrive::one.shared::cluster%s.b64",
        (long long)group, unicast ? "" : ".multicast::cluster");
    if (k.pos[0].kind == SV_ERROR || (!unicast && k.pos[1].kind == SV_ERROR) ||
        !lg_stmt(E, path, &k, args))
        return sv_error();
    return sv_none(args->span);
}

/* bar.remote_view(rank): the barriers of CTA rank, mapped once (mapa.u64) and
 * declared over the mapped pointer. */
static ScVal remote_view(El *E, ScLang *h, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "rank", &b))
        return sv_error();
    if (h->u.bar.remote) {
        el_error(E, TX_E_HELPER, args->span, "%s: this is already a remote view", args->fname);
        return sv_error();
    }
    TxSpan sp = args->span;
    LgCall k = {0};
    lg_pos(&k, lg_seq1(E, SV_LIST, sv_int(1, sp), sp));
    lg_pos(&k, sv_str(E, "uint64", sp));
    ScVal mapped = lg_call(E, "alloc_local", &k, args);
    if (mapped.kind != SV_BUFFER)
        return sv_error();
    LgCall m = {0};
    lg_pos(&m, lg_scalar(mapped.u.e, sp));
    lg_pos(&m, bar_ptr(E, h, sv_int(0, sp), args));
    lg_pos(&m, lg_u32(E, b.v[0], sp));
    if (m.pos[2].kind == SV_ERROR || !lg_stmt(E, "ptx.mapa.u64", &m, args))
        return sv_error();
    IrType *pty = ir_ptr_type(E->a, IR_UINT64, "shared");
    ScVal ty = {.kind = SV_TYPE, .span = sp};
    ty.u.ty = pty;
    LgCall r = {0};
    lg_pos(&r, ty);
    lg_pos(&r, lg_scalar(mapped.u.e, sp));
    ScVal ptr = lg_call(E, "reinterpret", &r, args);
    IrExpr *pe = ptr.kind == SV_ERROR ? NULL : el_prim(E, &ptr, "the mapped address");
    if (!pe)
        return sv_error();
    IrExpr *var = ir_var(E->a, "remote_mbar_ptr", pty, sp);
    IrStmt *bind = ir_stmt(E->a, IR_S_BIND, sp);
    bind->u.bind.var = var, bind->u.bind.value = pe;
    el_emit(E, bind);
    LgCall d = {0};
    lg_pos(&d, lg_seq1(E, SV_TUPLE, sv_int(h->u.bar.depth, sp), sp));
    lg_pos(&d, sv_str(E, "uint64", sp));
    lg_kw(&d, "data", sv_expr(var, sp));
    lg_kw(&d, "scope", sv_str(E, "shared", sp));
    ScVal buf = lg_call(E, "decl_buffer", &d, args);
    if (buf.kind != SV_BUFFER)
        return sv_error();
    ScLang *v = lg_new(E, h->kind);
    v->u.bar = h->u.bar;
    v->u.bar.buf = buf.u.e, v->u.bar.remote = true;
    return lg_val(v, sp); /* an assignment names it for messages only (see name_lang) */
}

/* MBarrier(pool, depth, phase_offset=0, leader=None), TMABar(...), TCGen05Bar(...) */
ScVal lg_new_barrier(El *E, ScArgs *args, ScLangKind k)
{
    ScBound b;
    int64_t depth, off;
    if (!el_bind_args(E, args, "pool, depth, phase_offset=, leader=", &b) ||
        !el_int_const(E, &b.v[1], &depth, "the depth") ||
        !lg_int(E, &b.v[2], 0, &off, "phase_offset"))
        return sv_error();
    IrExpr *leader = NULL;
    if (sv_given(&b.v[3]) && b.v[3].kind != SV_NONE &&
        !(leader = el_prim(E, &b.v[3], "the leader")))
        return sv_error();
    ScLang *h = new_barrier(E, k, &b.v[0], depth, off, leader, args);
    return h ? lg_val(h, args->span) : sv_error();
}

ScVal lg_barrier_attr(El *E, ScVal obj, const char *name, TxSpan sp)
{
    static const char *const methods[] = {"init", "wait", "arrive", "ptr_to", "remote_view"};
    ScLang *h = obj.u.lang;
    if (!strcmp(name, "buf"))
        return buffer_val(h->u.bar.buf, sp);
    if (!strcmp(name, "depth"))
        return sv_int(h->u.bar.depth, sp);
    if (!strcmp(name, "phase_offset"))
        return sv_int(h->u.bar.phase_offset, sp);
    return el_method_attr(E, obj, methods, (int)TX_ARRAY_LEN(methods), name, sp,
                          el_lang_kind_name(h));
}

ScVal lg_barrier_method(El *E, ScLang *h, const char *name, ScArgs *args)
{
    ScBound b;
    if (!strcmp(name, "arrive"))
        return h->kind == LANG_TMABAR      ? tma_arrive(E, h, args)
               : h->kind == LANG_TCGEN05BAR ? tcgen05_arrive(E, h, args)
                                            : mbar_arrive(E, h, args);
    if (!strcmp(name, "remote_view"))
        return remote_view(E, h, args);
    if (!strcmp(name, "ptr_to")) {
        if (!el_bind_args(E, args, "idx", &b))
            return sv_error();
        ScArgs a = *args;
        a.fname = "ptr_to";
        return el_buffer_method(E, buffer_val(h->u.bar.buf, args->span), "ptr_to", &a);
    }
    if (!strcmp(name, "init"))
        return el_bind_args(E, args, "count", &b) && bar_init(E, h, b.v[0], args)
                   ? sv_none(args->span)
                   : sv_error();
    /* wait(stage, phase) */
    if (!el_bind_args(E, args, "stage, phase", &b))
        return sv_error();
    if (h->u.bar.remote) {
        el_error(E, TX_E_HELPER, args->span, "%s: a remote view cannot be waited on", args->fname);
        return sv_error();
    }
    LgCall k = {0};
    lg_pos(&k, bar_ptr(E, h, b.v[0], args));
    lg_pos(&k, phase_xor(E, b.v[1], h->u.bar.phase_offset, args->span));
    if (k.pos[0].kind == SV_ERROR || k.pos[1].kind == SV_ERROR ||
        !lg_stmt(E, "cuda.mbarrier_wait", &k, args))
        return sv_error();
    return sv_none(args->span);
}

/* ---------------------------------------------------------------- Pipeline */

static bool bar_kind(El *E, const ScVal *tag, ScLangKind *out, const char *what)
{
    static const struct {
        const char *tag;
        ScLangKind kind;
    } kinds[] = {{"tma", LANG_TMABAR}, {"tcgen05", LANG_TCGEN05BAR}, {"mbar", LANG_MBARRIER}};
    const char *s = el_str_const(E, tag, what);
    if (!s)
        return false;
    for (size_t i = 0; i < TX_ARRAY_LEN(kinds); i++)
        if (!strcmp(s, kinds[i].tag)) {
            *out = kinds[i].kind;
            return true;
        }
    el_error(E, TX_E_HELPER, tag->span, "%s is \"tma\", \"tcgen05\" or \"mbar\", not \"%s\"", what,
             s);
    return false;
}

/* Pipeline(pool, stages, *, full, empty, init_full=1, init_empty=1,
 *          empty_phase_offset=0, leader=None) */
ScVal lg_new_pipeline(El *E, ScArgs *args, ScLangKind k)
{
    ScBound b;
    int64_t stages, off;
    ScLangKind fk, ek;
    if (!el_bind_args(E, args, "pool, stages, *, full, empty, init_full=, init_empty=, "
                               "empty_phase_offset=, leader=", &b) ||
        !el_int_const(E, &b.v[1], &stages, "the stage count") ||
        !bar_kind(E, &b.v[2], &fk, "full") || !bar_kind(E, &b.v[3], &ek, "empty") ||
        !lg_int(E, &b.v[6], 0, &off, "empty_phase_offset"))
        return sv_error();
    IrExpr *leader = NULL;
    if (sv_given(&b.v[7]) && b.v[7].kind != SV_NONE &&
        !(leader = el_prim(E, &b.v[7], "the leader")))
        return sv_error();
    ScVal one = sv_int(1, args->span);
    ScLang *h = lg_new(E, k);
    h->u.pipe.stages = stages;
    if (!(h->u.pipe.full = new_barrier(E, fk, &b.v[0], stages, 0, leader, args)) ||
        !bar_init(E, h->u.pipe.full, sv_given(&b.v[4]) ? b.v[4] : one, args) ||
        !(h->u.pipe.empty = new_barrier(E, ek, &b.v[0], stages, off, leader, args)) ||
        !bar_init(E, h->u.pipe.empty, sv_given(&b.v[5]) ? b.v[5] : one, args))
        return sv_error();
    return lg_val(h, args->span);
}

ScVal lg_pipeline_attr(El *E, ScVal obj, const char *name, TxSpan sp)
{
    static const char *const attrs[] = {"full", "empty", "stages"};
    ScLang *h = obj.u.lang;
    if (!strcmp(name, "stages"))
        return sv_int(h->u.pipe.stages, sp);
    if (!strcmp(name, "full") || !strcmp(name, "empty")) {
        ScVal v = lg_val(name[0] == 'f' ? h->u.pipe.full : h->u.pipe.empty, sp);
        v.fresh = false;
        return v;
    }
    el_error(E, TX_E_UNKNOWN_ATTRIBUTE, sp, "Pipeline has no attribute '%s'%s", name,
             el_suggest(E, name, attrs, (int)TX_ARRAY_LEN(attrs)));
    return sv_error();
}

/* ---------------------------------------------------------------- PipelineState */

static bool state_init(El *E, ScLang *h, ScVal phase, TxSpan sp)
{
    return lg_store(E, h->u.state.stage, sv_int(0, sp), sp) &&
           lg_store(E, h->u.state.phase, phase, sp);
}

/* PipelineState(depth, phase=None): int32 stage and phase; with phase, stage = 0. */
ScVal lg_new_pipe_state(El *E, ScArgs *args, ScLangKind k)
{
    ScBound b;
    int64_t depth;
    if (!el_bind_args(E, args, "depth, phase=", &b) ||
        !el_int_const(E, &b.v[0], &depth, "the depth"))
        return sv_error();
    if (depth < 1) {
        el_error(E, TX_E_HELPER, b.v[0].span, "PipelineState: depth must be at least 1, not %lld",
                 (long long)depth);
        return sv_error();
    }
    ScLang *h = lg_new(E, k);
    h->u.state.depth = depth;
    if (!(h->u.state.stage = lg_local_scalar(E, "int32", args)) ||
        !(h->u.state.phase = lg_local_scalar(E, "int32", args)))
        return sv_error();
    if (sv_given(&b.v[1]) && b.v[1].kind != SV_NONE && !state_init(E, h, b.v[1], args->span))
        return sv_error();
    return lg_val(h, args->span);
}

ScVal lg_state_attr(El *E, ScVal obj, const char *name, TxSpan sp)
{
    static const char *const methods[] = {"init", "advance"};
    ScLang *h = obj.u.lang;
    if (!strcmp(name, "stage") || !strcmp(name, "phase"))
        return lg_scalar(name[0] == 's' ? h->u.state.stage : h->u.state.phase, sp);
    if (!strcmp(name, "depth"))
        return sv_int(h->u.state.depth, sp);
    return el_method_attr(E, obj, methods, (int)TX_ARRAY_LEN(methods), name, sp,
                          "PipelineState");
}

/* phase = phase ^ 1 */
static bool flip_phase(El *E, ScLang *h, TxSpan sp)
{
    IrExpr *p = el_prim(E, &(ScVal){.kind = SV_BUFFER, .decay = true, .u.e = h->u.state.phase},
                        "the phase");
    return p && lg_store(E, h->u.state.phase,
                         el_binop(E, SC_TK_CIRCUMFLEX, sv_expr(p, sp), sv_int(1, sp), sp), sp);
}

static bool emit_wrap(El *E, void *ctx, int which)
{
    ScLang *h = ctx;
    (void)which;
    TxSpan sp = h->u.state.stage->span;
    return lg_store(E, h->u.state.stage, sv_int(0, sp), sp) && flip_phase(E, h, sp);
}

/* advance(): stage = stage + 1; if stage == depth: stage = 0; phase ^= 1 (depth 1: phase ^= 1) */
static bool state_advance(El *E, ScLang *h, TxSpan sp)
{
    if (h->u.state.depth == 1)
        return flip_phase(E, h, sp);
    IrExpr *s = el_prim(E, &(ScVal){.kind = SV_BUFFER, .decay = true, .u.e = h->u.state.stage},
                        "the stage");
    if (!s || !lg_store(E, h->u.state.stage,
                        el_binop(E, SC_TK_PLUS, sv_expr(s, sp), sv_int(1, sp), sp), sp))
        return false;
    s = el_prim(E, &(ScVal){.kind = SV_BUFFER, .decay = true, .u.e = h->u.state.stage},
                "the stage");
    ScVal c = el_compare(E, SC_TK_EQEQUAL, sv_expr(s, sp), sv_int(h->u.state.depth, sp), sp);
    return lg_if(E, c, emit_wrap, h, false, sp);
}

ScVal lg_state_method(El *E, ScLang *h, const char *name, ScArgs *args)
{
    ScBound b;
    if (!strcmp(name, "init"))
        return el_bind_args(E, args, "phase", &b) && state_init(E, h, b.v[0], args->span)
                   ? sv_none(args->span)
                   : sv_error();
    return el_bind_args(E, args, "", &b) && state_advance(E, h, args->span) ? sv_none(args->span)
                                                                            : sv_error();
}
