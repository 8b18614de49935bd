/* Barriers and warp collectives: rendezvous of threads. A thread that
 * reaches one records what it brings and waits; the last participant to
 * arrive completes it, computing every participant's result, and the
 * waiting threads resume. A thread resumes by running its statement again:
 * the collectives it already passed in that statement answer from its replay
 * list instead of waiting again. A warp collective's participants are the
 * lanes of its mask (those of the warp that exist); `.aligned` instructions
 * (ldmatrix, stmatrix, mma) take the whole warp. Barriers count threads: bar.sync 0
 * without a count waits for every thread of the CTA that has not exited;
 * bar.arrive counts toward a barrier without waiting for it. Each arrival
 * releases the thread's clocks into the barrier's, each waiter acquires them
 * when the barrier completes (order.c); __syncwarp and a wgmma join the
 * clocks of their threads.
 * Fragment semantics (PTX ISA 9.7.14, in ptx.c): ldmatrix and stmatrix m8n8
 * .b16 (x1/x2/x4, .trans),
 * mma.sync m16n8k8 / m16n8k16 with f16 or bf16 inputs and f16 or f32
 * accumulators. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static bool take_replay(SimThread *t, uint64_t *out)
{
    if (t->ncoll >= t->nreplay)
        return false;
    if (out)
        memcpy(out, t->replay[t->ncoll], sizeof t->replay[0]);
    t->ncoll++;
    return true;
}

static void wake(SimThread *t, const uint64_t *res)
{
    t->state = SIM_T_RUN;
    if (t->nreplay < SIM_MAX_REPLAY) {
        if (res)
            memcpy(t->replay[t->nreplay], res, sizeof t->replay[0]);
        t->nreplay++;
    }
}

void sim_wait(SimLaunch *l, SimThread *t, int bar, TxSpan at)
{
    l->events++;
    t->state = SIM_T_WAIT;
    t->blocked = true;
    t->wait_bar = bar;
    t->wait_at = at;
}

/* ---------------------------------------------------------------- barriers */

static void release(SimLaunch *l, SimCta *c, int id)
{
    SimBarrier *b = &c->bars[id];
    int need = b->expected ? b->expected : c->nlive;
    if (b->arrived == 0 || b->arrived < need)
        return;
    for (int i = 0; i < c->nthreads; i++) {
        SimThread *t = &c->threads[i];
        if (t->state == SIM_T_WAIT && t->wait_bar == id) {
            sim_hb_acquire(c, t, b->vc);
            wake(t, NULL);
        }
    }
    memset(b->vc, 0, sim_vc_bytes(c));
    b->arrived = 0;
    b->expected = 0;
    (void)l;
}

bool sim_barrier(SimLaunch *l, SimThread *t, int id, int count, bool arrive, TxSpan at)
{
    if (take_replay(t, NULL))
        return true;
    SimCta *c = l->cta;
    if (id < 0 || id >= SIM_NBARRIERS || count < 0 || count > c->nthreads) {
        sim_fail(l, t, at, "barrier %d for %d threads: the CTA has barriers 0..15 and %d threads",
                 id, count, c->nthreads);
        return false;
    }
    SimBarrier *b = &c->bars[id];
    if (b->arrived && b->expected != count) {
        sim_fail(l, t, at, "barrier %d is awaited for %d threads here and for %d elsewhere", id,
                 count, b->expected);
        return false;
    }
    b->expected = count;
    b->arrived++;
    sim_hb_release(c, t, b->vc);
    if (arrive) {
        /* counted, not awaited: a re-run of the statement passes it */
        wake(t, NULL);
        t->ncoll++;
        release(l, c, id);
        return true;
    }
    sim_wait(l, t, id, at);
    release(l, c, id);
    return false;
}

void sim_thread_exited(SimLaunch *l, SimThread *t)
{
    SimCta *c = l->cta;
    c->nlive--;
    (void)t;
    for (int id = 0; id < SIM_NBARRIERS; id++)
        if (!c->bars[id].expected)
            release(l, c, id);
    sim_cluster_exited(l);
}

/* ---------------------------------------------------------------- warp collectives */

static uint32_t lanes_of_warp(const SimCta *c, int warp)
{
    int n = c->nthreads - warp * 32;
    return n >= 32 ? 0xffffffffu : (1u << n) - 1;
}

static bool aligned(SimCollOp op)
{
    return op == SIM_COLL_LDMATRIX || op == SIM_COLL_STMATRIX || op == SIM_COLL_MMA;
}

bool sim_coll(SimLaunch *l, SimThread *t, SimCollOp op, uint32_t mask, const IrCall *call,
              const uint64_t *in, int nin, uint64_t *out, TxSpan at)
{
    if (take_replay(t, out))
        return true;
    SimCta *c = l->cta;
    int warp = t->tid / 32, lane = t->tid % 32;
    SimWarpColl *w = &c->warps[warp];
    mask = (aligned(op) ? 0xffffffffu : mask) & lanes_of_warp(c, warp);
    if (!(mask >> lane & 1)) {
        sim_fail(l, t, at, "lane %d takes part in a warp collective whose mask 0x%08x leaves it "
                 "out", lane, mask);
        return false;
    }
    if (w->open && (w->op != op || w->mask != mask)) {
        sim_fail(l, t, at, "the lanes of warp %d are at different warp collectives (mask 0x%08x "
                 "and 0x%08x)", warp, w->mask, mask);
        return false;
    }
    if (!w->open)
        *w = (SimWarpColl){.open = true, .op = op, .mask = mask, .call = call, .at = at};
    memcpy(w->in[lane], in, sizeof in[0] * (size_t)(nin < SIM_COLL_MAX ? nin : SIM_COLL_MAX));
    w->arrived |= 1u << lane;
    sim_wait(l, t, SIM_WAIT_WARP, at);
    if (w->arrived == mask)
        sim_coll_complete(l, c, w, warp);
    return false;
}

bool sim_group_coll(SimLaunch *l, SimThread *t, const IrCall *call, TxSpan at)
{
    if (take_replay(t, NULL))
        return true;
    SimCta *c = l->cta;
    int g = t->tid / 128;
    if ((g + 1) * 128 > c->nthreads) {
        sim_fail(l, t, at, "a warpgroup instruction in a CTA of %d threads, which has no whole "
                 "warpgroup here", c->nthreads);
        return false;
    }
    SimGroupColl *w = &c->groups[g];
    if (w->open && w->call != call) {
        sim_fail(l, t, at, "the threads of warpgroup %d are at different wgmma instructions", g);
        return false;
    }
    if (!w->open)
        *w = (SimGroupColl){.open = true, .call = call, .at = at};
    w->arrived++;
    sim_wait(l, t, SIM_WAIT_WARP, at);
    if (w->arrived < 128)
        return false;
    t->blocked = false; /* its operands are read in its own context, as the others' */
    sim_hb_join(c, g * 128, 128); /* the warpgroup reads them: ordered as its threads are */
    sim_wgmma(l, c, g, call, w->at);
    t->blocked = true;
    w->open = false;
    for (int i = 0; i < 128; i++)
        wake(&c->threads[g * 128 + i], NULL);
    return false;
}

/* The source lane of a shuffle, or -1 to keep the lane's own value. */
static int shfl_source(SimCollOp op, int lane, int64_t b, int64_t width)
{
    if (width < 1 || width > 32)
        width = 32;
    int seg = lane / (int)width * (int)width, src;
    switch (op) {
    case SIM_COLL_SHFL_IDX: return seg + (int)(((b % width) + width) % width);
    case SIM_COLL_SHFL_UP: src = lane - (int)b; return src < seg ? -1 : src;
    case SIM_COLL_SHFL_DOWN: src = lane + (int)b; return src >= seg + width ? -1 : src;
    default: src = lane ^ (int)(b & 31); return src >= seg + width || src < seg ? -1 : src;
    }
}

static uint64_t fold(const SimWarpColl *w, SimCollOp op)
{
    uint64_t r = op == SIM_COLL_ALL || op == SIM_COLL_REDUX_MIN ? ~(uint64_t)0 : 0;
    for (int i = 0; i < 32; i++) {
        if (!(w->mask >> i & 1))
            continue;
        uint64_t v = w->in[i][0];
        switch (op) {
        case SIM_COLL_BALLOT: r |= (uint64_t)(v != 0) << i; break;
        case SIM_COLL_ANY: r |= v != 0; break;
        case SIM_COLL_ALL: r &= v != 0; break;
        case SIM_COLL_REDUX_ADD: r = (uint32_t)(r + v); break;
        case SIM_COLL_REDUX_MIN: r = v < r ? v : r; break;
        case SIM_COLL_REDUX_MAX: r = v > r ? v : r; break;
        default: break;
        }
    }
    return r;
}

void sim_ldmatrix(SimLaunch *l, SimCta *c, SimWarpColl *w, int warp, uint64_t res[32][SIM_COLL_MAX]);
void sim_mma(SimLaunch *l, SimCta *c, SimWarpColl *w, int warp, uint64_t res[32][SIM_COLL_MAX]);
void sim_stmatrix(SimLaunch *l, SimCta *c, SimWarpColl *w, int warp);

/* __syncwarp: the clocks of the lanes of its mask joined. */
static void sync_lanes(SimCta *c, const SimWarpColl *w, int warp)
{
    uint32_t *acc = sim_vc_new(c);
    if (!acc)
        return;
    for (int i = 0; i < 32; i++)
        if (w->mask >> i & 1)
            sim_hb_release(c, &c->threads[warp * 32 + i], acc);
    for (int i = 0; i < 32; i++)
        if (w->mask >> i & 1)
            sim_hb_acquire(c, &c->threads[warp * 32 + i], acc);
    free(acc);
}

void sim_coll_complete(SimLaunch *l, SimCta *c, SimWarpColl *w, int warp)
{
    uint64_t res[32][SIM_COLL_MAX];
    memset(res, 0, sizeof res);
    if (w->op == SIM_COLL_LDMATRIX)
        sim_ldmatrix(l, c, w, warp, res);
    else if (w->op == SIM_COLL_STMATRIX)
        sim_stmatrix(l, c, w, warp);
    else if (w->op == SIM_COLL_SYNC)
        sync_lanes(c, w, warp);
    else if (w->op == SIM_COLL_MMA)
        sim_mma(l, c, w, warp, res);
    for (int i = 0; i < 32; i++) {
        if (!(w->mask >> i & 1))
            continue;
        if (w->op <= SIM_COLL_SHFL_XOR) {
            int src = shfl_source(w->op, i, (int64_t)w->in[i][1], (int64_t)w->in[i][2]);
            res[i][0] = w->in[src >= 0 && (w->mask >> src & 1) ? src : i][0];
        } else if (w->op == SIM_COLL_ELECT) {
            res[i][0] = i == __builtin_ctz(w->mask);
        } else if (!aligned(w->op) && w->op != SIM_COLL_SYNC) {
            res[i][0] = fold(w, w->op);
        }
    }
    w->open = false;
    for (int i = 0; i < 32; i++)
        if (w->mask >> i & 1)
            wake(&c->threads[warp * 32 + i], res[i]);
}
