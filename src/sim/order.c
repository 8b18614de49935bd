/* The order of a cluster's threads and the asynchronous operations in
 * flight. Happens-before is tracked with vector clocks: each thread keeps
 * one clock per thread of its cluster (of every CTA, so an access to another
 * CTA's shared memory is ordered as a local one: by the cluster barrier, or
 * by an mbarrier a remote arrival, a multicast copy or a tcgen05.commit
 * releases into); a release (an arrival at a barrier or an mbarrier, a
 * complete-tx) joins the thread's clocks into the synchronisation object's
 * and advances its own, an acquire (passing a barrier, a wait that observes
 * an mbarrier's phase) joins the object's into the thread's. A shared byte
 * remembers its last writer and last reader with their clocks (mem.c): an
 * access is ordered after them when the accessing thread's clock of that
 * thread has reached the one recorded. Asynchronous operations (cp.async,
 * TMA and bulk copies, wgmma) mark the shared bytes they write or read until
 * they complete; what completes them: a cp.async's, a bulk store's and a
 * wgmma's wait_group for its commit group, a load's mbarrier when a thread
 * polls it (deliberately late: at the consumer's wait, never at issue). A
 * wgmma's accumulators are pending in each thread until its wait_group. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---------------------------------------------------------------- vector clocks */

SimThread *sim_thread_of(const SimLaunch *l, int g)
{
    const SimCta *c = &l->ctas[g / l->ctas[0].nthreads];
    return &c->threads[g % c->nthreads];
}

size_t sim_vc_bytes(const SimCta *c) { return ((size_t)c->vcw + 2) * sizeof(uint32_t); }

uint32_t *sim_vc_new(const SimCta *c) { return calloc(1, sim_vc_bytes(c)); }

/* The latest release's modelled time (trace.c) kept after an object's clocks. */
static uint64_t stamp(const SimCta *c, const uint32_t *acc)
{
    uint64_t v;
    memcpy(&v, acc + c->vcw, sizeof v);
    return v;
}

static void join(uint32_t *dst, const uint32_t *src, int n)
{
    for (int i = 0; i < n; i++)
        dst[i] = src[i] > dst[i] ? src[i] : dst[i];
}

void sim_hb_release(const SimCta *c, SimThread *t, uint32_t *acc)
{
    if (acc) {
        join(acc, t->vc, c->vcw);
        uint64_t now = stamp(c, acc) > t->clock ? stamp(c, acc) : t->clock;
        memcpy(acc + c->vcw, &now, sizeof now);
    }
    t->vc[t->gid]++;
}

void sim_hb_acquire(const SimCta *c, SimThread *t, const uint32_t *acc)
{
    if (!acc)
        return;
    join(t->vc, acc, c->vcw);
    t->clock = stamp(c, acc) > t->clock ? stamp(c, acc) : t->clock;
}

void sim_hb_join(SimCta *c, int first, int n)
{
    size_t w = (size_t)c->vcw;
    uint32_t *all = c->vc + (size_t)first * w;
    for (int i = 1; i < n; i++)
        join(all, all + (size_t)i * w, c->vcw);
    for (int i = 1; i < n; i++)
        memcpy(all + (size_t)i * w, all, w * sizeof *all);
    uint64_t last = 0;
    for (int i = 0; i < n; i++)
        last = c->threads[first + i].clock > last ? c->threads[first + i].clock : last;
    for (int i = 0; i < n; i++)
        c->threads[first + i].clock = last;
}

/* ---------------------------------------------------------------- operations in flight */

static const char *kind_name(SimAsyncKind k)
{
    static const char *const names[] = {"cp.async", "asynchronous load (TMA or bulk copy)",
                                        "asynchronous store (TMA or bulk copy)", "wgmma"};
    return names[k];
}

static const char *kind_hint(SimAsyncKind k)
{
    static const char *const hints[] = {
        "a cp.async.wait_group before the access, and a barrier after it, are missing",
        "a wait on its mbarrier is missing", "a cp.async.bulk.wait_group.read is missing",
        "a wgmma.wait_group is missing"};
    return hints[k];
}

void sim_mark(SimLaunch *l, uint64_t addr, size_t n, int state)
{
    int rank;
    uint32_t off = sim_cluster_offset(l, addr, &rank);
    SimRegion *r = l->ctas[rank].smem_region;
    if (off < r->size)
        memset(r->async + off, state, n <= r->size - off ? n : r->size - off);
}

void sim_async_add(SimLaunch *l, SimAsync op)
{
    if (op.lo < op.hi)
        tx_vec_push(&l->inflight, op);
}

static void unmark(SimThread *t, const SimAsync *op)
{
    SimRegion *r = op->cta->smem_region;
    int state = op->kind == SIM_ASYNC_CP || op->kind == SIM_ASYNC_LOAD ? SIM_PEND_WRITE
                                                                        : SIM_PEND_READ;
    bool own = op->kind == SIM_ASYNC_CP; /* t, its issuer, waited for it */
    uint32_t clock = own ? t->vc[t->gid] : 0;
    for (uint32_t i = op->lo; i < op->hi && i < r->size; i++) {
        if (r->async[i] != state)
            continue;
        r->async[i] = SIM_PEND_NONE;
        if (own) { /* the data lands now: written by the thread that waited */
            r->writer[i] = (uint16_t)(t->gid + 1);
            r->wclock[i] = clock;
            r->wat[i] = 0;
            r->reader[i] = 0;
        }
    }
}

void sim_async_complete(SimLaunch *l, SimThread *t, bool (*match)(const SimAsync *, const void *),
                        const void *arg)
{
    for (int i = 0; i < l->inflight.len && !sim_failed(l);) {
        SimAsync op = l->inflight.items[i];
        if (!match(&op, arg)) {
            i++;
            continue;
        }
        l->inflight.items[i] = l->inflight.items[--l->inflight.len];
        unmark(t, &op);
        if (op.kind == SIM_ASYNC_LOAD)
            sim_mbarrier_complete_tx(l, t, (uint64_t)(uintptr_t)op.mbar, op.bytes, op.at);
    }
}

void sim_async_conflict(SimLaunch *l, SimThread *t, SimCta *c, size_t off, bool write, TxSpan at)
{
    int state = c->smem_region->async[off];
    const SimAsync *op = NULL;
    for (int i = 0; i < l->inflight.len && !op; i++) {
        const SimAsync *o = &l->inflight.items[i];
        bool writes = o->kind == SIM_ASYNC_CP || o->kind == SIM_ASYNC_LOAD;
        if (o->cta == c && off >= o->lo && off < o->hi && writes == (state == SIM_PEND_WRITE))
            op = o;
    }
    int line = 0, col = 0;
    if (op && op->at.src)
        tx_source_linecol(op->at.src, op->at.begin, &line, &col);
    const char *what = state == SIM_PEND_READ ? "still reads"
                       : write                 ? "is still writing"
                                               : "has not yet written (data not yet arrived)";
    if (!op) {
        sim_fail(l, t, at, "%s of shared memory byte %zu that an asynchronous operation %s",
                 write ? "write" : "read", off, what);
        return;
    }
    const SimThread *o = &op->icta->threads[op->issuer];
    sim_fail(l, t, at, "%s of shared memory byte %zu that the %s issued at line %d by thread "
             "(%u,%u,%u) %s (%s)", write ? "write" : "read", off, kind_name(op->kind), line,
             o->idx[0], o->idx[1], o->idx[2], what, kind_hint(op->kind));
}

/* ---------------------------------------------------------------- commit groups */

static int64_t *groups(SimThread *t, SimAsyncKind k)
{
    return k == SIM_ASYNC_CP ? &t->cp_groups : k == SIM_ASYNC_STORE ? &t->bulk_groups
                                                                     : &t->wg_groups;
}

void sim_commit_group(SimThread *t, SimAsyncKind k) { (*groups(t, k))++; }

typedef struct GroupMatch {
    SimAsyncKind kind;
    SimCta *cta;
    int issuer;   /* the thread, or for wgmma the first thread of its warpgroup */
    int64_t below; /* groups before this one */
} GroupMatch;

static bool group_done(const SimAsync *op, const void *arg)
{
    const GroupMatch *g = arg;
    return op->kind == g->kind && op->icta == g->cta && op->issuer == g->issuer &&
           op->group < g->below;
}

void sim_wait_group(SimLaunch *l, SimThread *t, SimAsyncKind k, int64_t n)
{
    GroupMatch g = {k, l->cta, k == SIM_ASYNC_WGMMA ? t->tid / 128 * 128 : t->tid,
                    *groups(t, k) - n};
    sim_async_complete(l, t, group_done, &g);
    if (k != SIM_ASYNC_WGMMA)
        return;
    int keep = 0;
    for (int i = 0; i < t->nacc; i++)
        if (t->acc[i].group >= g.below)
            t->acc[keep++] = t->acc[i];
    t->nacc = keep;
}

bool sim_acc_pending(SimLaunch *l, SimThread *t, uint64_t addr, bool write, TxSpan at)
{
    if (l->agent)
        return false;
    for (int i = 0; i < t->nacc; i++)
        if (addr >= t->acc[i].lo && addr < t->acc[i].hi) {
            int line = 0, col = 0;
            if (t->acc[i].at.src)
                tx_source_linecol(t->acc[i].at.src, t->acc[i].at.begin, &line, &col);
            sim_fail(l, t, at, "%s of %s register of the wgmma issued at line %d before the "
                     "wgmma.wait_group that completes it", write ? "write" : "read",
                     t->acc[i].input ? "an A" : "an accumulator", line);
            return true;
        }
    return false;
}
