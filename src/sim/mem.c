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
 * memory (distributed shared memory, through mapa addresses); accesses from
 * another CTA are not ordered against. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void region_free(SimRegion *r)
{
    free(r->init);
    free(r->writer);
    free(r->wclock);
    free(r->reader);
    free(r->rclock);
    free(r->async);
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
        r->reader = calloc(n, sizeof *r->reader);
        r->rclock = calloc(n, sizeof *r->rclock);
        r->async = calloc(n, 1);
        if (!r->init || !r->writer || !r->wclock || !r->reader || !r->rclock || !r->async) {
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

void sim_add_global(SimSession *ss, void *base, size_t size)
{
    sim_region_add(ss, base, size, SIM_MEM_GLOBAL);
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

/* An unordered access of byte i: the other thread `o` wrote (or, for a
 * write, read) it. */
static void race(SimLaunch *l, SimThread *t, size_t i, const SimThread *o, bool o_wrote,
                 bool write, TxSpan at)
{
    sim_fail(l, t, at, "shared memory byte %zu was %s by thread (%u,%u,%u) and nothing orders "
             "that %s before this %s (a missing barrier or mbarrier wait)%s", i,
             o_wrote ? "written" : "read", o->idx[0], o->idx[1], o->idx[2],
             o_wrote ? "write" : "read", write ? "write" : "read",
             o_wrote ? "" : " (write-after-read)");
}

/* The shadow check of a shared access by t of bytes [off, off + n). */
static bool shared_shadow(SimLaunch *l, SimThread *t, SimRegion *r, size_t off, size_t n,
                          bool write, TxSpan at)
{
    SimCta *c = r->cta; /* another CTA's, through distributed shared memory */
    bool own = sim_in_cta(c, t);
    const uint32_t *vc = own ? sim_vc(c, t) : NULL;
    uint32_t now = own ? vc[t->tid] : 0;
    uint16_t me = own ? (uint16_t)(t->tid + 1) : 0;
    for (size_t i = off; i < off + n; i++) {
        if (!write && !r->init[i]) {
            sim_fail(l, t, at, "read of uninitialised shared memory (byte %zu)", i);
            return false;
        }
        if (r->async[i] == SIM_PEND_WRITE || (write && r->async[i] == SIM_PEND_READ)) {
            sim_async_conflict(l, t, c, i, write, at);
            return false;
        }
        if (own) {
            int w = r->writer[i] - 1, rd = r->reader[i] - 1;
            if (w >= 0 && w != t->tid && vc[w] < r->wclock[i]) {
                race(l, t, i, &c->threads[w], true, write, at);
                return false;
            }
            if (write && rd >= 0 && rd != t->tid && vc[rd] < r->rclock[i]) {
                race(l, t, i, &c->threads[rd], false, write, at);
                return false;
            }
        }
        if (write) {
            r->init[i] = 1;
            r->writer[i] = me;
            r->wclock[i] = now;
            r->reader[i] = 0;
        } else if (own) {
            r->reader[i] = me;
            r->rclock[i] = now;
        }
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
    return r->base + off;
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
