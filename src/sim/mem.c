/* Memory in the simulator and the checker's view of it. Global memory is the
 * host arrays of the call, registered as regions; a CTA's shared memory is
 * one host block (static allocations, then the dynamic ones), whose
 * shared-window addresses (cvta.to.shared) are offsets into it; local
 * buffers are per-thread host blocks. Every access names its region: one
 * that falls outside every region is out of bounds. Shared memory keeps a
 * shadow per byte: whether it was written (a read of a byte never written is
 * an error), which thread last wrote it and which last read it, with their
 * clocks (order.c): a read or write by another thread not ordered after
 * that write, and a write not ordered after that read (write-after-read),
 * is a race: a missing barrier or mbarrier wait. Only the last reader is
 * kept, so of several concurrent readers the others go unchecked. A byte an
 * asynchronous operation in flight writes cannot be read or written, one it
 * reads cannot be written. The CTAs of a cluster see each other's shared
 * memory (distributed shared memory, through mapa addresses, and the copies
 * and MMAs that reach a peer's): threads are numbered across the cluster, so
 * a remote access is checked and recorded as a local one. Each access also
 * records its source position, so a race names both lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void region_free(SimRegion *r)
{
    free(r->init);
    free(r->writer);
    free(r->wclock);
    free(r->wat);
    free(r->reader);
    free(r->rclock);
    free(r->rat);
    free(r->async);
    free(r->gwriter);
    free(r->gfence);
    free(r);
}

SimRegion *sim_region_add(SimSession *ss, void *base, size_t size, SimMemKind kind)
{
    SimRegion *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    *r = (SimRegion){.base = base, .size = size, .kind = kind};
    if (kind == SIM_MEM_SHARED) {
        size_t n = size ? size : 1;
        r->init = calloc(n, 1);
        r->writer = calloc(n, sizeof *r->writer);
        r->wclock = calloc(n, sizeof *r->wclock);
        r->wat = calloc(n, sizeof *r->wat);
        r->reader = calloc(n, sizeof *r->reader);
        r->rclock = calloc(n, sizeof *r->rclock);
        r->rat = calloc(n, sizeof *r->rat);
        r->async = calloc(n, 1);
        if (!r->init || !r->writer || !r->wclock || !r->wat || !r->reader || !r->rclock ||
            !r->rat || !r->async) {
            region_free(r);
            return NULL;
        }
    }
    tx_vec_push(&ss->regions, r);
    return r;
}

void sim_region_remove(SimSession *ss, SimRegion *r)
{
    for (int i = 0; i < ss->regions.len; i++)
        if (ss->regions.items[i] == r) {
            ss->regions.items[i] = ss->regions.items[--ss->regions.len];
            break;
        }
    if (ss->last == r)
        ss->last = NULL;
    region_free(r);
}

void sim_add_global(SimSession *ss, void *base, size_t size, const char *name)
{
    SimRegion *r = sim_region_add(ss, base, size, SIM_MEM_GLOBAL);
    if (r)
        r->name = name;
}

void sim_launch_begin(SimSession *ss)
{
    for (int i = 0; i < ss->regions.len; i++) {
        SimRegion *r = ss->regions.items[i];
        if (r->gwriter)
            memset(r->gwriter, 0, (r->size ? r->size : 1) * sizeof *r->gwriter);
    }
}

static bool inside(const SimRegion *r, uint64_t addr, size_t n)
{
    uint64_t b = (uint64_t)(uintptr_t)r->base;
    return addr >= b && addr - b <= r->size && n <= r->size - (addr - b);
}

static SimRegion *region_of(SimSession *ss, uint64_t addr, size_t n)
{
    if (ss->last && inside(ss->last, addr, n))
        return ss->last;
    for (int i = 0; i < ss->regions.len; i++)
        if (inside(ss->regions.items[i], addr, n))
            return ss->last = ss->regions.items[i];
    return NULL;
}

uint64_t sim_shared_generic(SimLaunch *l, uint64_t saddr)
{
    return (uint64_t)(uintptr_t)l->cta->smem + (uint32_t)saddr;
}

uint64_t sim_shared_window(SimLaunch *l, uint64_t addr)
{
    return (uint32_t)(addr - (uint64_t)(uintptr_t)l->cta->smem);
}

bool sim_in_shared(const SimLaunch *l, uint64_t addr)
{
    uint64_t base = (uint64_t)(uintptr_t)l->cta->smem;
    return addr >= base && addr - base < l->smem_size;
}

uint32_t sim_cluster_offset(const SimLaunch *l, uint64_t addr, int *rank)
{
    for (int r = 0; r < l->nctas; r++) {
        uint64_t base = (uint64_t)(uintptr_t)l->ctas[r].smem;
        if (addr >= base && addr < base + (l->smem_size ? l->smem_size : 1)) {
            *rank = r;
            return (uint32_t)(addr - base);
        }
    }
    *rank = l->cta->rank;
    return (uint32_t)(addr - (uint64_t)(uintptr_t)l->cta->smem);
}

static void out_of_bounds(SimLaunch *l, SimThread *t, uint64_t addr, size_t n, bool write,
                          TxSpan at)
{
    SimRegion *sh = l->cta->smem_region;
    uint64_t sb = (uint64_t)(uintptr_t)sh->base;
    if (addr >= sb - 4096 && addr < sb + sh->size + 4096)
        sim_fail(l, t, at, "out-of-bounds %s of %zu bytes at shared memory offset %lld (the CTA "
                 "has %zu bytes)", write ? "write" : "read", n, (long long)(addr - sb), sh->size);
    else
        sim_fail(l, t, at, "out-of-bounds %s of %zu bytes at address 0x%llx: not in any tensor "
                 "of the call or the CTA's shared memory", write ? "write" : "read", n,
                 (unsigned long long)addr);
}

/* An unordered access of byte i of c's shared memory: thread g of the
 * cluster wrote (or, for a write, read) it at source offset `pos` (1 + the
 * offset, 0: unknown). */
static void race(SimLaunch *l, SimThread *t, const SimCta *c, size_t i, int g, uint32_t pos,
                 bool o_wrote, bool write, TxSpan at)
{
    const SimThread *o = sim_thread_of(l, g);
    const unsigned *oc = l->ctas[g / c->nthreads].idx;
    char where[48] = "";
    int line = 0, col = 0;
    if (pos && l->f->span.src) {
        tx_source_linecol(l->f->span.src, pos - 1, &line, &col);
        snprintf(where, sizeof where, " at line %d", line);
    }
    char whose[48] = "";
    if (c != l->cta)
        snprintf(whose, sizeof whose, " of CTA (%u,%u,%u)", c->idx[0], c->idx[1], c->idx[2]);
    sim_fail(l, t, at, "shared memory byte %zu%s was %s by thread (%u,%u,%u) of CTA (%u,%u,%u)%s "
             "and nothing orders that %s before this %s (a missing %s)%s", i, whose,
             o_wrote ? "written" : "read", o->idx[0], o->idx[1], o->idx[2], oc[0], oc[1], oc[2],
             where, o_wrote ? "write" : "read", write ? "write" : "read",
             &l->ctas[g / c->nthreads] == l->cta ? "barrier or mbarrier wait"
                                                  : "cluster barrier or mbarrier wait",
             o_wrote ? "" : " (write-after-read)");
}

/* 1 + the source offset of `at` (0 when it is not in the kernel's source). */
static uint32_t position(const SimLaunch *l, TxSpan at)
{
    return at.src && at.src == l->f->span.src ? at.begin + 1 : 0;
}

/* Whether an async-proxy read (l->proxy_read: a wgmma's or tcgen05.mma's
 * operand, a TMA or bulk copy's source) may see byte i: a generic-proxy
 * write of it is seen only once its writer has run fence.proxy.async after
 * it (and then released it to the reader, which the race check sees to). */
static bool proxy_visible(SimLaunch *l, SimThread *t, SimRegion *r, size_t i, TxSpan at)
{
    if (!(r->init[i] & SIM_GENERIC))
        return true;
    int w = r->writer[i] - 1;
    const SimThread *o = sim_thread_of(l, w);
    if (o->proxy_fenced > r->wclock[i])
        return true;
    int line = 0, col = 0;
    if (r->wat[i] && l->f->span.src)
        tx_source_linecol(l->f->span.src, r->wat[i] - 1, &line, &col);
    SimCta *oc = &l->ctas[w / l->ctas[0].nthreads];
    sim_fail(l, t, at, "the %s reads shared memory byte %zu, which thread (%u,%u,%u) of CTA "
             "(%u,%u,%u) wrote at line %d through the generic proxy with no fence.proxy.async "
             "after the write (T.cuda.fence_proxy_async(), before the barrier or arrive that "
             "hands the data over)", l->proxy_read, i, o->idx[0], o->idx[1], o->idx[2],
             oc->idx[0], oc->idx[1], oc->idx[2], line);
    return false;
}

/* The shadow check of a shared access by t of bytes [off, off + n). */
static bool shared_shadow(SimLaunch *l, SimThread *t, SimRegion *r, size_t off, size_t n,
                          bool write, TxSpan at)
{
    SimCta *c = r->cta; /* another CTA's, through distributed shared memory */
    const uint32_t *vc = t->vc;
    uint32_t now = vc[t->gid], pos = position(l, at);
    uint16_t me = (uint16_t)(t->gid + 1);
    for (size_t i = off; i < off + n; i++) {
        if (!write && !r->init[i]) {
            sim_fail(l, t, at, "read of uninitialised shared memory (byte %zu)", i);
            return false;
        }
        if (!write && l->proxy_read && !proxy_visible(l, t, r, i, at))
            return false;
        if (r->async[i] == SIM_PEND_WRITE || (write && r->async[i] == SIM_PEND_READ)) {
            sim_async_conflict(l, t, c, i, write, at);
            return false;
        }
        int w = r->writer[i] - 1, rd = r->reader[i] - 1;
        if (w >= 0 && w != t->gid && vc[w] < r->wclock[i]) {
            race(l, t, c, i, w, r->wat[i], true, write, at);
            return false;
        }
        if (write && rd >= 0 && rd != t->gid && vc[rd] < r->rclock[i]) {
            race(l, t, c, i, rd, r->rat[i], false, write, at);
            return false;
        }
        if (write) {
            r->init[i] = l->proxy_write ? SIM_WRITTEN : SIM_WRITTEN | SIM_GENERIC;
            r->writer[i] = me;
            r->wclock[i] = now;
            r->wat[i] = pos;
            r->reader[i] = 0;
        } else {
            r->reader[i] = me;
            r->rclock[i] = now;
            r->rat[i] = pos;
        }
    }
    return true;
}

/* The CTA at grid-linear index i (x fastest). */
static void cta_of(const SimLaunch *l, uint32_t i, unsigned idx[3])
{
    idx[0] = i % l->cfg.grid[0];
    idx[1] = i / l->cfg.grid[0] % l->cfg.grid[1];
    idx[2] = i / l->cfg.grid[0] / l->cfg.grid[1];
}

uint32_t sim_cta_linear(const SimLaunch *l)
{
    const unsigned *me = l->cta->idx;
    return me[0] + l->cfg.grid[0] * (me[1] + l->cfg.grid[1] * me[2]);
}

/* Whether the CTAs at grid-linear indices a and b are of one cluster. */
static bool same_cluster(const SimLaunch *l, uint32_t a, uint32_t b)
{
    unsigned x[3], y[3];
    cta_of(l, a, x);
    cta_of(l, b, y);
    for (int d = 0; d < 3; d++)
        if (x[d] / l->cfg.cluster[d] != y[d] / l->cfg.cluster[d])
            return false;
    return true;
}

/* A plain load of bytes [off, off + n) of global region r: what another CTA
 * (of another cluster) stored to them in this launch is ordered before it
 * only if that CTA fenced (gpu scope) after the store and this one has done
 * an atomic or an acquire load since its start (a counter or a flag). */
static bool global_read(SimLaunch *l, SimThread *t, SimRegion *r, size_t off, size_t n, TxSpan at)
{
    uint32_t me = sim_cta_linear(l);
    for (size_t i = off; i < off + n; i++) {
        uint32_t w = r->gwriter[i];
        if (!w-- || w == me || same_cluster(l, w, me) ||
            (r->gfence[i] < l->cta_fences[w] && l->cta_acquired[me]))
            continue;
        unsigned o[3];
        cta_of(l, w, o);
        sim_fail(l, t, at, "byte %zu of %s%s%s, which CTA (%u,%u,%u) stored to in this launch, is "
                 "read by another CTA with nothing ordering the store before the read (a CTA's "
                 "stores reach another of the same launch through its gpu-scope fence after them "
                 "and the reader's atomic or acquire load on a counter or flag; else read them "
                 "in a later launch)", i, r->name ? "'" : "a tensor", r->name ? r->name : " argument",
                 r->name ? "'" : "", o[0], o[1], o[2]);
        return false;
    }
    return true;
}

/* A plain store of bytes [off, off + n) of global region r: no other CTA of
 * the launch may have stored to them (the CTAs of a grid are not ordered:
 * overlapping tiles or splits, or an atomic written as a store). */
static bool global_owner(SimLaunch *l, SimThread *t, SimRegion *r, size_t off, size_t n,
                         TxSpan at)
{
    size_t size = r->size ? r->size : 1;
    if ((!r->gwriter && !(r->gwriter = calloc(size, sizeof *r->gwriter))) ||
        (!r->gfence && !(r->gfence = calloc(size, sizeof *r->gfence)))) {
        sim_fail(l, t, at, "out of memory");
        return false;
    }
    uint32_t mine = 1 + sim_cta_linear(l);
    for (size_t i = off; i < off + n; i++) {
        if (r->gwriter[i] && r->gwriter[i] != mine) {
            unsigned o[3];
            cta_of(l, r->gwriter[i] - 1, o);
            sim_fail(l, t, at, "byte %zu of %s%s%s was stored to by CTA (%u,%u,%u) too: two CTAs "
                     "of a launch write the same global memory, in no order (overlapping "
                     "tiles or splits, or an atomic written as a plain store)", i,
                     r->name ? "'" : "a tensor", r->name ? r->name : " argument",
                     r->name ? "'" : "", o[0], o[1], o[2]);
            return false;
        }
        r->gwriter[i] = mine;
        r->gfence[i] = l->cta_fences[mine - 1];
    }
    return true;
}

static uint8_t *access(SimLaunch *l, SimThread *t, uint64_t addr, size_t n, bool write,
                       TxSpan at)
{
    if (sim_failed(l))
        return NULL;
    SimRegion *r = region_of(l->ss, addr, n);
    if (!r) {
        out_of_bounds(l, t, addr, n, write, at);
        return NULL;
    }
    size_t off = (size_t)(addr - (uint64_t)(uintptr_t)r->base);
    if (write)
        l->events++;
    if (r->kind == SIM_MEM_SHARED && !shared_shadow(l, t, r, off, n, write, at))
        return NULL;
    if (r->kind == SIM_MEM_GLOBAL && !l->atomic &&
        !(write ? global_owner(l, t, r, off, n, at) : !r->gwriter || global_read(l, t, r, off, n, at)))
        return NULL;
    return r->base + off;
}

bool sim_mem_prefetch(SimLaunch *l, SimThread *t, uint64_t addr, size_t n, TxSpan at)
{
    if (sim_failed(l))
        return false;
    SimRegion *r = region_of(l->ss, addr, n);
    if (!r || r->kind != SIM_MEM_GLOBAL) {
        sim_fail(l, t, at, "a prefetch of %zu bytes at address 0x%llx: not inside one tensor of "
                 "the call", n, (unsigned long long)addr);
        return false;
    }
    return true;
}

uint8_t *sim_mem_read(SimLaunch *l, SimThread *t, uint64_t addr, size_t n, TxSpan at)
{
    return access(l, t, addr, n, false, at);
}

uint8_t *sim_mem_write(SimLaunch *l, SimThread *t, uint64_t addr, size_t n, TxSpan at)
{
    return access(l, t, addr, n, true, at);
}

static size_t bytes_of(IrDType t) { return t.bits < 8 ? 1 : (size_t)t.bits / 8; }

bool sim_load(SimLaunch *l, SimThread *t, uint64_t addr, IrDType dt, SimVal *out, TxSpan at)
{
    size_t n = bytes_of(dt);
    uint8_t *p = sim_mem_read(l, t, addr, n, at);
    if (!p)
        return false;
    uint64_t bits = 0;
    memcpy(&bits, p, n); /* little-endian, as the GPU */
    *out = sim_from_bits(dt, bits);
    return true;
}

bool sim_store(SimLaunch *l, SimThread *t, uint64_t addr, IrDType dt, SimVal v, TxSpan at)
{
    size_t n = bytes_of(dt);
    uint8_t *p = sim_mem_write(l, t, addr, n, at);
    if (!p)
        return false;
    uint64_t bits = sim_to_bits(dt, v);
    memcpy(p, &bits, n);
    return true;
}
