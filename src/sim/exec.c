/* Statements, threads and the launch. A thread runs its kernel body as an
 * explicit stack of frames (a sequence and its next statement, a loop and
 * its next iteration), one step at a time; a step that reaches a barrier or
 * a warp collective stops without side effects and runs again when the
 * thread resumes. The threads of a cluster's CTAs run in turn, each until it
 * waits, spins on a wait that did not complete, or exits; when a pass
 * changes nothing another thread could see and threads remain, the cluster
 * is deadlocked. The clusters of the grid (single CTAs without one) run one
 * after the other. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

bool sim_failed(const SimLaunch *l) { return l->ss->failed; }

/* The innermost statement of t with a source position. */
static TxSpan where(const SimThread *t, TxSpan at)
{
    for (int i = t ? t->depth - 1 : -1; !at.src && i >= 0; i--)
        at = t->frames[i].s->span;
    return at;
}

void sim_fail(SimLaunch *l, SimThread *t, TxSpan at, const char *fmt, ...)
{
    SimSession *ss = l->ss;
    if (ss->failed)
        return;
    ss->failed = true;
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    at = where(t, at);
    int line = 0, col = 0;
    if (at.src)
        tx_source_linecol(at.src, at.begin, &line, &col);
    const unsigned *c = l->cta ? l->cta->idx : (const unsigned[3]){0, 0, 0};
    char who[96] = "";
    if (t)
        snprintf(who, sizeof who, " (thread (%u,%u,%u) of CTA (%u,%u,%u))", t->idx[0], t->idx[1],
                 t->idx[2], c[0], c[1], c[2]);
    if (at.src)
        snprintf(ss->message, sizeof ss->message, "%s:%d:%d: error: %s%s", at.src->name, line,
                 col, msg, who);
    else
        snprintf(ss->message, sizeof ss->message, "%s: error: %s%s", l->f->name, msg, who);
}

/* ---------------------------------------------------------------- frames */

static void push(SimLaunch *l, SimThread *t, const IrStmt *s)
{
    if (!s)
        return;
    if (t->depth == SIM_MAX_DEPTH) {
        sim_fail(l, t, s->span, "statements nested deeper than %d", SIM_MAX_DEPTH);
        return;
    }
    t->frames[t->depth++] = (SimFrame){.s = s};
}

static void pop(SimThread *t) { t->depth--; }

static bool is_loop(const IrStmt *s) { return s->kind == IR_S_FOR || s->kind == IR_S_WHILE; }

/* break: leave the innermost loop; continue: go to its next iteration. */
static void jump(SimThread *t, bool leave)
{
    while (t->depth > 0 && !is_loop(t->frames[t->depth - 1].s))
        pop(t);
    if (leave && t->depth > 0)
        pop(t);
}

static void set(SimLaunch *l, SimThread *t, const IrExpr *var, SimVal v)
{
    int s = sim_slot(l, var);
    if (s >= 0)
        t->vals[s] = v;
}

static int64_t eval_i(SimLaunch *l, SimThread *t, const IrExpr *e)
{
    return sim_eval(l, t, e, 0).i;
}

/* ---------------------------------------------------------------- statements */

static int64_t buffer_bytes(SimLaunch *l, SimThread *t, const IrExpr *b)
{
    const IrBufferType *bt = ir_buf(b);
    IrDType et = b->u.var.type->dtype;
    int64_t n = 1;
    for (int d = 0; d < bt->ndim; d++)
        n *= eval_i(l, t, bt->shape[d]);
    return n * (et.bits < 8 ? 1 : et.bits / 8) * et.lanes;
}

static void alloc(SimLaunch *l, SimThread *t, const IrStmt *s)
{
    const IrExpr *b = s->u.alloc.buffer;
    const char *scope = b->u.var.type->scope;
    uintptr_t off;
    if (ir_ptrmap_get(&l->smem_off, b, &off)) {
        set(l, t, b, (SimVal){.i = (int64_t)(uintptr_t)(l->cta->smem + off)});
        return;
    }
    if (strcmp(scope, "local")) {
        sim_fail(l, t, s->span, "not modelled: an allocation in %s memory", scope);
        return;
    }
    uintptr_t block;
    if (!ir_ptrmap_get(&t->locals, b, &block)) {
        int64_t n = buffer_bytes(l, t, b);
        uint8_t *p = calloc((size_t)(n > 0 ? n : 1), 1);
        if (!p) {
            sim_fail(l, t, s->span, "out of memory for a local buffer of %lld bytes", (long long)n);
            return;
        }
        tx_vec_push(&t->local_blocks, p);
        ir_ptrmap_put(&t->locals, b, block = (uintptr_t)p);
    }
    set(l, t, b, (SimVal){.i = (int64_t)block});
}

static void store(SimLaunch *l, SimThread *t, const IrStmt *s)
{
    enum { MAX_LANES = 64 };
    const IrExpr *v = s->u.store.value;
    int lanes = v->dtype.lanes;
    if (lanes > MAX_LANES) {
        sim_fail(l, t, s->span, "not modelled: a store of %d lanes", lanes);
        return;
    }
    SimVal vals[MAX_LANES];
    bool on[MAX_LANES];
    for (int i = 0; i < lanes; i++) {
        vals[i] = sim_eval(l, t, v, i);
        on[i] = !s->u.store.predicate || sim_eval(l, t, s->u.store.predicate, i).i;
    }
    if (t->blocked || sim_failed(l))
        return;
    if (sim_packed(s->u.store.buffer->u.var.type->dtype)) {
        if (lanes > 1)
            sim_fail(l, t, s->span, "not modelled: a vector store into a sub-byte buffer");
        else if (on[0])
            sim_subbyte_store(l, t, s->u.store.buffer, s->u.store.indices, s->u.store.n, vals[0],
                              s->span);
        return;
    }
    IrExpr lhs = {.kind = IR_E_LOAD, .dtype = v->dtype, .span = s->span};
    lhs.u.access.buffer = s->u.store.buffer;
    lhs.u.access.n = s->u.store.n;
    lhs.u.access.indices = s->u.store.indices;
    for (int i = 0; i < lanes && !sim_failed(l); i++) {
        if (!on[i])
            continue;
        uint64_t addr;
        IrDType et = ir_dtype_with_lanes(v->dtype, 1);
        bool vec_index = s->u.store.n && s->u.store.indices[s->u.store.n - 1]->dtype.lanes > 1;
        const char *scope = s->u.store.buffer->u.var.type->scope;
        if (!sim_access_addr(l, t, lhs.u.access.buffer, lhs.u.access.indices, lhs.u.access.n,
                             vec_index ? i : 0, strcmp(scope, "shared.dyn"), s->span, &addr))
            return;
        if (!vec_index)
            addr += (uint64_t)i * (et.bits < 8 ? 1 : et.bits / 8);
        if (!strcmp(scope, "local")) {
            if (t->nacc && sim_acc_pending(l, t, addr, true, s->span))
                return;
            uint64_t bits = sim_to_bits(et, vals[i]);
            memcpy((void *)(uintptr_t)addr, &bits, et.bits < 8 ? 1 : et.bits / 8);
        } else {
            sim_store(l, t, addr, et, vals[i], s->span);
        }
    }
}

static void run_assert(SimLaunch *l, SimThread *t, const IrStmt *s)
{
    if (eval_i(l, t, s->u.assert_.cond) || t->blocked)
        return;
    sim_fail(l, t, s->span, "assertion failed: %s",
             s->u.assert_.nparts ? s->u.assert_.parts[0] : "");
}

static void thread_extent(SimLaunch *l, SimThread *t, const IrStmt *s)
{
    const char *tag = s->u.attr.thread_tag ? s->u.attr.thread_tag
                      : s->u.attr.node->kind == IR_E_VAR ? s->u.attr.node->u.var.name : "";
    size_t n = strlen(tag);
    int d = n ? tag[n - 1] - 'x' : -1;
    if (d < 0 || d > 2) {
        sim_fail(l, t, s->span, "not modelled: the thread binding %s", tag);
        return;
    }
    unsigned v = !strncmp(tag, "blockIdx.", 9)        ? l->cta->idx[d]
                 : !strncmp(tag, "clusterCtaIdx.", 14) ? l->cta->idx[d] % l->cfg.cluster[d]
                 : !strncmp(tag, "clusterIdx.", 11)    ? l->cta->idx[d] / l->cfg.cluster[d]
                                                       : t->idx[d];
    set(l, t, s->u.attr.node, (SimVal){.i = v});
}

/* Compound statements: open the body (or the next iteration) or leave. */
static void step_compound(SimLaunch *l, SimThread *t, SimFrame *f)
{
    const IrStmt *s = f->s;
    switch (s->kind) {
    case IR_S_SEQ:
        if (f->i < s->u.seq.n)
            push(l, t, s->u.seq.stmts[f->i++]);
        else
            pop(t);
        return;
    case IR_S_FOR:
        if (!f->entered) {
            int64_t lo = eval_i(l, t, s->u.loop.min), n = eval_i(l, t, s->u.loop.extent);
            int64_t st = s->u.loop.step ? eval_i(l, t, s->u.loop.step) : 1;
            if (t->blocked)
                return;
            if (st != 1) {
                sim_fail(l, t, s->span, "not modelled: a loop with step %lld", (long long)st);
                return;
            }
            f->i = lo, f->end = lo + n, f->entered = true;
        }
        if (f->i < f->end) {
            set(l, t, s->u.loop.var, (SimVal){.i = f->i++});
            push(l, t, s->u.loop.body);
        } else {
            pop(t);
        }
        return;
    case IR_S_WHILE: {
        int64_t c = eval_i(l, t, s->u.whl.cond);
        if (t->blocked)
            return;
        if (c)
            push(l, t, s->u.whl.body);
        else
            pop(t);
        return;
    }
    case IR_S_IF: {
        int64_t c = eval_i(l, t, s->u.ifs.cond);
        if (t->blocked)
            return;
        pop(t);
        push(l, t, c ? s->u.ifs.then_s : s->u.ifs.else_s);
        return;
    }
    default: /* IR_S_ATTR */
        if (!strcmp(s->u.attr.key, "thread_extent"))
            thread_extent(l, t, s);
        pop(t);
        push(l, t, s->u.attr.body);
        return;
    }
}

static void step(SimLaunch *l, SimThread *t)
{
    SimFrame *f = &t->frames[t->depth - 1];
    const IrStmt *s = f->s;
    t->ncoll = 0;
    t->clock++;
    switch (s->kind) {
    case IR_S_SEQ: case IR_S_FOR: case IR_S_WHILE: case IR_S_IF: case IR_S_ATTR:
        step_compound(l, t, f);
        break;
    case IR_S_BIND: {
        SimVal v = sim_eval(l, t, s->u.bind.value, 0);
        if (!t->blocked)
            set(l, t, s->u.bind.var, v), pop(t);
        break;
    }
    case IR_S_ALLOC: alloc(l, t, s); pop(t); break;
    case IR_S_DECL:
        if (s->u.decl.data)
            set(l, t, s->u.decl.buffer, sim_eval(l, t, s->u.decl.data, 0));
        if (!t->blocked)
            pop(t);
        break;
    case IR_S_STORE: store(l, t, s); if (!t->blocked) pop(t); break;
    case IR_S_EVAL: sim_eval(l, t, s->u.eval, 0); if (!t->blocked) pop(t); break;
    case IR_S_ASSERT: run_assert(l, t, s); if (!t->blocked) pop(t); break;
    case IR_S_RETURN: t->depth = 0; break;
    case IR_S_BREAK: jump(t, true); break;
    case IR_S_CONTINUE: jump(t, false); break;
    default:
        sim_fail(l, t, s->span, "not modelled: a %s statement in device code",
                 s->kind == IR_S_TILE ? "tile-primitive" : "scope-id");
        break;
    }
    if (!t->blocked)
        t->nreplay = 0;
}

/* Whether the launch ran past its deadline (failed then, at t's statement):
 * a kernel that never ends, such as a spin on memory no thread changes,
 * which the deadlock check cannot see. */
static bool past_deadline(SimLaunch *l, SimThread *t)
{
    if (l->deadline <= 0 || ++l->steps % 65536 || rt_seconds_now() <= l->deadline)
        return false;
    sim_fail(l, t, (TxSpan){0}, "%s did not finish within %g s (TIRX_KERNEL_TIMEOUT): a kernel "
             "that never ends, such as a loop whose condition no thread changes", l->f->name,
             l->ss->timeout_s);
    return true;
}

/* Runs t until it waits, exits, yields or the simulation fails. */
static void run_thread(SimLaunch *l, SimThread *t)
{
    while (t->state == SIM_T_RUN && t->depth > 0 && !sim_failed(l)) {
        if (past_deadline(l, t))
            return;
        step(l, t);
        if (t->blocked || t->yield) {
            /* the others released with it go first, in thread order */
            t->blocked = t->yield = false;
            return;
        }
    }
    if (t->depth == 0 && t->state == SIM_T_RUN) {
        t->state = SIM_T_DONE;
        l->events++;
        sim_thread_exited(l, t);
    }
}

/* ---------------------------------------------------------------- clusters of CTAs */

static void deadlock(SimLaunch *l)
{
    for (int k = 0; k < l->nctas; k++) {
        SimCta *c = l->cta = &l->ctas[k];
        for (int i = 0; i < c->nthreads; i++) {
            SimThread *t = &c->threads[i];
            char what[200];
            if (t->state == SIM_T_DONE)
                continue;
            if (t->state == SIM_T_RUN) {
                sim_mbarrier_describe(l, t, what, sizeof what);
                sim_fail(l, t, t->wait_at, "deadlock: the thread spins on %s and no other thread "
                         "can make progress", what);
            } else if (t->wait_bar >= 0) {
                SimBarrier *b = &c->bars[t->wait_bar];
                sim_fail(l, t, t->wait_at, "deadlock: barrier %d waits for %d threads, %d arrived "
                         "and no other thread can run", t->wait_bar,
                         b->expected ? b->expected : c->nlive, b->arrived);
            } else if (t->wait_bar == SIM_WAIT_WARP) {
                SimWarpColl *w = &c->warps[t->tid / 32];
                sim_fail(l, t, t->wait_at, "deadlock: a warp collective waits for lanes 0x%08x, "
                         "only 0x%08x arrived and no other thread can run", w->mask, w->arrived);
            } else if (t->wait_bar == SIM_WAIT_MBARRIER) {
                sim_mbarrier_describe(l, t, what, sizeof what);
                sim_fail(l, t, t->wait_at, "deadlock: the thread waits on %s and no other thread "
                         "can run", what);
            } else {
                sim_fail(l, t, t->wait_at, "deadlock: the cluster barrier waits for %d more "
                         "threads and no other thread can run", l->cluster_arrived);
            }
            return;
        }
    }
}

static int live_threads(const SimLaunch *l)
{
    int n = 0;
    for (int k = 0; k < l->nctas; k++)
        n += l->ctas[k].nlive;
    return n;
}

/* Runs the threads of the cluster in turn until all have exited. A pass in
 * which nothing another thread could see changed (every thread that ran
 * only spun on a wait) while threads remain is a deadlock. */
static void schedule(SimLaunch *l)
{
    for (;;) {
        uint64_t before = l->events;
        for (int k = 0; k < l->nctas && !sim_failed(l); k++) {
            SimCta *c = &l->ctas[k];
            for (int i = 0; i < c->nthreads && !sim_failed(l); i++)
                if (c->threads[i].state == SIM_T_RUN) {
                    l->cta = c;
                    run_thread(l, &c->threads[i]);
                }
        }
        if (sim_failed(l) || live_threads(l) == 0)
            return;
        if (l->events == before) {
            deadlock(l);
            return;
        }
    }
}

static void free_threads(SimCta *c)
{
    for (int i = 0; i < c->nthreads; i++) {
        SimThread *t = &c->threads[i];
        for (int k = 0; k < t->local_blocks.len; k++)
            free(t->local_blocks.items[k]);
        tx_vec_free(&t->local_blocks);
        ir_ptrmap_free(&t->locals);
        free(t->vals);
    }
    free(c->threads);
}

static bool init_threads(SimLaunch *l, SimCta *c)
{
    const unsigned *b = l->cfg.block;
    c->nthreads = c->nlive = (int)(b[0] * b[1] * b[2]);
    c->threads = calloc((size_t)c->nthreads, sizeof *c->threads);
    if (!c->threads)
        return false;
    for (int i = 0; i < c->nthreads; i++) {
        SimThread *t = &c->threads[i];
        t->tid = i;
        t->idx[0] = (unsigned)i % b[0], t->idx[1] = (unsigned)i / b[0] % b[1];
        t->idx[2] = (unsigned)i / (b[0] * b[1]);
        t->vals = calloc((size_t)l->nslots + 1, sizeof *t->vals);
        if (!t->vals)
            return false;
        memcpy(t->vals, l->params, sizeof *t->vals * (size_t)l->nslots);
        t->frames[0] = (SimFrame){.s = l->f->body};
        t->depth = 1;
    }
    return true;
}

/* The vector clocks, as wide as the cluster: each thread at 1 of its own,
 * the barriers' joins at 0. */
static bool init_clocks(SimLaunch *l, SimCta *c)
{
    size_t n = (size_t)c->nthreads;
    c->vcw = l->nctas * c->nthreads;
    c->vc = calloc(n * (size_t)c->vcw, sizeof *c->vc);
    if (!c->vc)
        return false;
    for (size_t i = 0; i < n; i++) {
        SimThread *t = &c->threads[i];
        t->gid = c->rank * c->nthreads + (int)i;
        t->vc = c->vc + i * (size_t)c->vcw;
        t->vc[t->gid] = 1;
    }
    for (int i = 0; i < SIM_NBARRIERS; i++)
        if (!(c->bars[i].vc = sim_vc_new(c)))
            return false;
    return true;
}

static bool init_cta(SimLaunch *l, SimCta *c)
{
    c->smem = calloc(l->smem_size ? l->smem_size : 1, 1);
    size_t n = (size_t)l->cfg.block[0] * l->cfg.block[1] * l->cfg.block[2];
    c->warps = calloc((n + 31) / 32, sizeof *c->warps);
    c->groups = calloc((n + 127) / 128, sizeof *c->groups);
    if (!c->smem || !c->warps || !c->groups || !init_threads(l, c) || !init_clocks(l, c))
        return false;
    c->smem_region = sim_region_add(l->ss, c->smem, l->smem_size, SIM_MEM_SHARED);
    if (c->smem_region)
        c->smem_region->cta = c;
    return c->smem_region != NULL;
}

static void free_cta(SimLaunch *l, SimCta *c)
{
    if (c->smem_region)
        sim_region_remove(l->ss, c->smem_region);
    if (c->threads)
        free_threads(c);
    free(c->warps);
    free(c->groups);
    free(c->smem);
    free(c->tmem);
    free(c->vc);
    for (int i = 0; i < SIM_NBARRIERS; i++)
        free(c->bars[i].vc);
}

/* The CTAs of the cluster whose first CTA is `base`, run together. */
static void run_cluster(SimLaunch *l, const unsigned base[3])
{
    const unsigned *cd = l->cfg.cluster;
    SimCta ctas[16] = {0};
    l->ctas = ctas;
    l->nctas = (int)(cd[0] * cd[1] * cd[2]);
    l->cluster_arrived = 0, l->cluster_phase = 0;
    bool ok = true;
    for (int k = 0; k < l->nctas; k++) {
        SimCta *c = &ctas[k];
        c->rank = k;
        c->idx[0] = base[0] + (unsigned)k % cd[0];
        c->idx[1] = base[1] + (unsigned)k / cd[0] % cd[1];
        c->idx[2] = base[2] + (unsigned)k / (cd[0] * cd[1]);
        ok = ok && init_cta(l, c);
    }
    l->cta = &ctas[0];
    for (int k = 0; k < 2 && ok; k++)
        ok = (l->cluster_vc[k] = sim_vc_new(&ctas[0])) != NULL;
    if (!ok)
        sim_fail(l, NULL, l->f->span, "out of memory for a CTA");
    else
        schedule(l);
    for (int k = 0; k < l->nctas && !sim_failed(l); k++)
        sim_tcgen05_check_freed(l, &ctas[k]);
    for (int k = 0; k < l->nctas; k++)
        free_cta(l, &ctas[k]);
    for (int k = 0; k < 2; k++)
        free(l->cluster_vc[k]), l->cluster_vc[k] = NULL;
    for (int i = 0; i < l->mbar.len; i++) {
        free(l->mbar.items[i].vc);
        free(l->mbar.items[i].done[0]);
        free(l->mbar.items[i].done[1]);
    }
    ir_ptrmap_free(&l->mbars);
    tx_vec_free(&l->mbar);
    tx_vec_free(&l->inflight);
    l->cta = NULL;
    l->ctas = NULL;
}

bool sim_run_launch(SimLaunch *l)
{
    const unsigned *g = l->cfg.grid;
    unsigned *cd = l->cfg.cluster;
    for (int d = 0; d < 3; d++)
        cd[d] = cd[d] ? cd[d] : 1;
    if (cd[0] * cd[1] * cd[2] > 16 || g[0] % cd[0] || g[1] % cd[1] || g[2] % cd[2]) {
        sim_fail(l, NULL, l->f->span, "a cluster of %ux%ux%u CTAs does not tile the grid of "
                 "%ux%ux%u (or has more than 16 CTAs)", cd[0], cd[1], cd[2], g[0], g[1], g[2]);
        return false;
    }
    for (unsigned z = 0; z < g[2] && !sim_failed(l); z += cd[2])
        for (unsigned y = 0; y < g[1] && !sim_failed(l); y += cd[1])
            for (unsigned x = 0; x < g[0] && !sim_failed(l); x += cd[0])
                run_cluster(l, (const unsigned[3]){x, y, z});
    return !sim_failed(l);
}
