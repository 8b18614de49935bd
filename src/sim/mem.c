/* Memory in the simulator and the checker's view of it. Global memory is the
 * host arrays of the call, registered as regions; a CTA's shared memory is
 * one host block (static allocations, then the dynamic ones), whose
 * shared-window addresses (cvta.to.shared) are offsets into it; local
 * buffers are per-thread host blocks. Every access names its region: one
 * that falls outside every region is out of bounds. Shared memory keeps a
 * shadow per byte: whether it was written (a read of a byte never written is
 * an error), and which thread wrote it in which barrier epoch (another
 * thread's write or read of it in the same epoch, while only CTA-wide
 * barriers order the threads, is an unordered access: a missing barrier).
 * The CTAs of a cluster see each other's shared memory (distributed shared
 * memory, through mapa addresses). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

SimRegion *sim_region_add(SimSession *ss, void *base, size_t size, SimMemKind kind)
{
    SimRegion *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    *r = (SimRegion){.base = base, .size = size, .kind = kind};
    if (kind == SIM_MEM_SHARED) {
        r->init = calloc(size ? size : 1, 1);
        r->writer = calloc(size ? size : 1, sizeof *r->writer);
        r->epoch = calloc(size ? size : 1, sizeof *r->epoch);
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
    free(r->init);
    free(r->writer);
    free(r->epoch);
    free(r);
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

/* The shadow check of a shared access by t of bytes [off, off + n). */
static bool shared_shadow(SimLaunch *l, SimThread *t, SimRegion *r, size_t off, size_t n,
                          bool write, TxSpan at)
{
    SimCta *c = r->cta; /* another CTA's, through distributed shared memory */
    for (size_t i = off; i < off + n; i++) {
        if (!write && !r->init[i]) {
            sim_fail(l, t, at, "read of uninitialised shared memory (byte %zu)", i);
            return false;
        }
        int w = r->writer[i] - 1;
        if (c == l->cta && c->race_check && w >= 0 && w != t->tid && r->epoch[i] == c->epoch) {
            SimThread *o = &c->threads[w];
            sim_fail(l, t, at, "shared memory byte %zu was written by thread (%u,%u,%u) with no "
                     "barrier between that write and this %s", i, o->idx[0], o->idx[1],
                     o->idx[2], write ? "write" : "read");
            return false;
        }
        if (write) {
            r->init[i] = 1;
            r->writer[i] = (uint16_t)(t->tid + 1);
            r->epoch[i] = c->epoch;
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
