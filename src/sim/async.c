/* Asynchronous copies and what orders them: mbarriers (init, arrivals,
 * expect-tx and complete-tx transaction bytes, phases, test/try_wait by
 * parity and the blocking T.cuda.mbarrier_wait; an arrival releases the
 * thread's clocks into the phase, a wait that sees the phase complete
 * acquires them), cp.async (the data copied at issue, its destination
 * pending until the thread's wait_group for its commit group or a
 * cp.async.mbarrier.arrive), TMA (cp.async.bulk.tensor loads with out-of-bounds fill, 32/64/128B
 * swizzles and multicast within the cluster, .tile::gather4 loads of four
 * rows, stores and reduce stores, decoded from the tensor map the host part
 * encoded) and non-tensor bulk
 * copies (a load's destination pending until a thread polls its mbarrier,
 * which then receives its transaction bytes; a store's source pending until
 * the issuing thread's bulk wait_group), the cluster barrier, and distributed shared memory: mapa encodes
 * a shared::cluster address as bit 31, the target CTA's rank in bits 24-30
 * and the offset in its shared memory below (an address of the CTA's own
 * shared memory is a valid shared::cluster address of itself). Misuse is an
 * error: an mbarrier used before init, more arrivals than its count, more
 * transaction bytes than expected (a wrong expect-tx count); too few leave
 * the phase incomplete, a deadlock that names the mbarrier's state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The tensor map as sim_encode lays it out in the map's 128 bytes. */
typedef struct SimMap {
    uint64_t magic;
    uint64_t addr;
    uint64_t dim[5], stride[4];
    uint16_t box[5];
    uint8_t estride[5], dtype, rank, interleave, swizzle, oob;
} SimMap;
#define SIM_MAP_MAGIC 0x53494d2d544d4150ull /* "SIM-TMAP" */

RtStatus sim_encode(void *user, const RtTensorMapSpec *s, RtTensorMap *out, RtError *err)
{
    (void)user;
    RtStatus st = rt_tensor_map_check(s, err);
    if (st != RT_OK)
        return st;
    _Static_assert(sizeof(SimMap) <= sizeof(RtTensorMap), "a map fits in 128 bytes");
    SimMap m = {.magic = SIM_MAP_MAGIC, .addr = (uint64_t)s->global_address,
                .dtype = (uint8_t)s->dtype, .rank = (uint8_t)s->rank,
                .interleave = (uint8_t)s->interleave, .swizzle = (uint8_t)s->swizzle,
                .oob = (uint8_t)s->oob_fill};
    for (int i = 0; i < s->rank; i++) {
        m.dim[i] = s->global_dim[i];
        m.box[i] = (uint16_t)s->box_dim[i];
        m.estride[i] = (uint8_t)(s->element_strides[i] ? s->element_strides[i] : 1);
        if (i)
            m.stride[i - 1] = s->global_strides[i - 1];
    }
    memset(out, 0, sizeof *out);
    memcpy(out, &m, sizeof m);
    return RT_OK;
}

/* ---------------------------------------------------------------- operands */

uint64_t sim_cluster_generic(SimLaunch *l, uint64_t caddr)
{
    uint32_t a = (uint32_t)caddr;
    if (!(a >> 31))
        return sim_shared_generic(l, a);
    int rank = (int)(a >> 24 & 0x7f);
    if (rank >= l->nctas)
        return 0; /* outside every region: reported as out of bounds */
    return (uint64_t)(uintptr_t)l->ctas[rank].smem + (a & 0xffffff);
}

/* The generic address of operand `name` (0 when the instruction has none). */
static uint64_t address(SimLaunch *l, SimThread *t, const SimPtx *p, const char *name)
{
    const IrPtxOperand *o = sim_ptx_operand(p, name);
    return o ? sim_ptx_address(l, t, p, o) : 0;
}

/* ---------------------------------------------------------------- mbarriers */

static SimMbarrier *find(SimLaunch *l, SimThread *t, uint64_t addr, TxSpan at)
{
    uintptr_t i;
    if (ir_ptrmap_get(&l->mbars, (const void *)(uintptr_t)addr, &i))
        return &l->mbar.items[i - 1];
    sim_fail(l, t, at, "mbarrier used before mbarrier.init");
    return NULL;
}

static void wake_waiters(SimLaunch *l, const SimMbarrier *m)
{
    for (int k = 0; k < l->nctas; k++)
        for (int i = 0; i < l->ctas[k].nthreads; i++) {
            SimThread *o = &l->ctas[k].threads[i];
            if (o->state == SIM_T_WAIT && o->wait_bar == SIM_WAIT_MBARRIER && o->wait_mbar == m->at)
                o->state = SIM_T_RUN;
        }
}

static void check_phase(SimLaunch *l, SimThread *t, SimMbarrier *m, TxSpan at)
{
    l->events++;
    if (m->pending || m->tx > 0)
        return;
    if (m->tx < 0) {
        sim_fail(l, t, at, "mbarrier phase %u received %lld transaction bytes more than expected "
                 "(a wrong expect-tx count)", m->phase, (long long)-m->tx);
        return;
    }
    size_t n = sim_vc_bytes(m->cta);
    memcpy(m->done[m->phase & 1], m->vc, n);
    memset(m->vc, 0, n);
    m->phase++;
    m->pending = m->count;
    wake_waiters(l, m);
}

static void mbar_init(SimLaunch *l, SimThread *t, uint64_t addr, uint32_t count, TxSpan at)
{
    if (!sim_mem_write(l, t, addr, 8, at))
        return;
    if (count == 0) {
        sim_fail(l, t, at, "mbarrier.init with a count of 0");
        return;
    }
    uintptr_t i;
    if (!ir_ptrmap_get(&l->mbars, (const void *)(uintptr_t)addr, &i)) {
        tx_vec_push(&l->mbar, (SimMbarrier){0});
        ir_ptrmap_put(&l->mbars, (const void *)(uintptr_t)addr, i = (uintptr_t)l->mbar.len);
    }
    SimMbarrier *m = &l->mbar.items[i - 1];
    if (!m->vc) {
        int rank;
        sim_cluster_offset(l, addr, &rank);
        m->cta = &l->ctas[rank];
        m->vc = sim_vc_new(m->cta), m->done[0] = sim_vc_new(m->cta), m->done[1] = sim_vc_new(m->cta);
        if (!m->vc || !m->done[0] || !m->done[1]) {
            sim_fail(l, t, at, "out of memory");
            return;
        }
    }
    SimMbarrier keep = *m; /* a fresh mbarrier: nothing released into it yet */
    for (int k = 0; k < 3; k++)
        memset(k ? keep.done[k - 1] : keep.vc, 0, sim_vc_bytes(keep.cta));
    *m = (SimMbarrier){.at = (uint8_t *)(uintptr_t)addr, .count = count, .pending = count,
                       .init_at = at, .cta = keep.cta, .vc = keep.vc,
                       .done = {keep.done[0], keep.done[1]}};
    l->events++;
}

/* t's clocks into the phase (t of any CTA of the cluster). */
static void release(SimThread *t, SimMbarrier *m) { sim_hb_release(m->cta, t, m->vc); }

void sim_mbarrier_arrive(SimLaunch *l, SimThread *t, uint64_t addr, uint32_t count, int64_t tx,
                         TxSpan at)
{
    SimMbarrier *m = find(l, t, addr, at);
    if (!m)
        return;
    release(t, m);
    if (count > m->pending) {
        sim_fail(l, t, at, "%u arrivals on an mbarrier with %u pending in phase %u (count %u)",
                 count, m->pending, m->phase, m->count);
        return;
    }
    m->tx += tx;
    m->pending -= count;
    check_phase(l, t, m, at);
}

void sim_mbarrier_complete_tx(SimLaunch *l, SimThread *t, uint64_t addr, int64_t bytes, TxSpan at)
{
    SimMbarrier *m = find(l, t, addr, at);
    if (!m)
        return;
    m->tx -= bytes;
    check_phase(l, t, m, at);
}

static bool lands_on(const SimAsync *op, const void *mbar)
{
    return op->kind == SIM_ASYNC_LOAD && op->mbar == mbar;
}

/* Whether the phase of `parity` has completed; t then spins (yields) if not.
 * The loads in flight on the mbarrier land first. */
static bool phase_done(SimLaunch *l, SimThread *t, uint64_t addr, int parity, TxSpan at)
{
    SimMbarrier *m = find(l, t, addr, at);
    if (!m)
        return false;
    uint8_t *mbar = m->at;
    sim_async_complete(l, t, lands_on, mbar);
    m = find(l, t, addr, at);
    if (!m || sim_failed(l))
        return false;
    bool done = (int)(m->phase & 1) != (parity & 1);
    if (done)
        sim_hb_acquire(m->cta, t, m->done[parity & 1]);
    if (!done) {
        t->wait_mbar = m->at, t->wait_parity = parity, t->wait_at = at;
        t->yield = true;
    }
    return done;
}

void sim_mbarrier_wait(SimLaunch *l, SimThread *t, uint64_t addr, int parity, TxSpan at)
{
    if (!phase_done(l, t, addr, parity, at))
        sim_wait(l, t, SIM_WAIT_MBARRIER, at);
    t->yield = false;
}

void sim_mbarrier_describe(SimLaunch *l, const SimThread *t, char *buf, size_t n)
{
    uintptr_t i;
    if (!t->wait_mbar || !ir_ptrmap_get(&l->mbars, t->wait_mbar, &i)) {
        snprintf(buf, n, "a wait");
        return;
    }
    const SimMbarrier *m = &l->mbar.items[i - 1];
    snprintf(buf, n, "phase %u of an mbarrier (parity %d) that still expects %u of %u arrivals "
             "and %lld transaction bytes", m->phase, t->wait_parity, m->pending, m->count,
             (long long)m->tx);
}

/* ---------------------------------------------------------------- the cluster barrier */

static int cluster_live(const SimLaunch *l)
{
    int n = 0;
    for (int k = 0; k < l->nctas; k++)
        n += l->ctas[k].nlive;
    return n;
}

static void cluster_release(SimLaunch *l)
{
    if (!l->cluster_arrived || l->cluster_arrived < cluster_live(l))
        return;
    l->cluster_phase++;
    l->cluster_arrived = 0;
    uint32_t *last = l->cluster_vc[1]; /* this phase's arrivals become the last phase's */
    l->cluster_vc[1] = l->cluster_vc[0], l->cluster_vc[0] = last;
    memset(last, 0, sim_vc_bytes(&l->ctas[0]));
    for (int k = 0; k < l->nctas; k++)
        for (int i = 0; i < l->ctas[k].nthreads; i++) {
            SimThread *o = &l->ctas[k].threads[i];
            if (o->state == SIM_T_WAIT && o->wait_bar == SIM_WAIT_CLUSTER)
                o->state = SIM_T_RUN;
        }
}

static void cluster_arrive(SimLaunch *l, SimThread *t)
{
    t->cluster_phase = l->cluster_phase;
    t->cluster_waiting = true;
    sim_hb_release(l->cta, t, l->cluster_vc[0]);
    l->cluster_arrived++;
    l->events++;
    cluster_release(l);
}

static void cluster_wait(SimLaunch *l, SimThread *t, TxSpan at)
{
    if (!t->cluster_waiting || l->cluster_phase != t->cluster_phase) {
        if (t->cluster_waiting)
            sim_hb_acquire(l->cta, t, l->cluster_vc[1]);
        t->cluster_waiting = false;
        return;
    }
    sim_wait(l, t, SIM_WAIT_CLUSTER, at);
}

void sim_cluster_sync(SimLaunch *l, SimThread *t, TxSpan at)
{
    if (!t->cluster_waiting)
        cluster_arrive(l, t);
    cluster_wait(l, t, at);
}

void sim_cluster_exited(SimLaunch *l) { cluster_release(l); }

/* ---------------------------------------------------------------- copies */

static bool copy_bytes(SimLaunch *l, SimThread *t, uint64_t dst, uint64_t src, size_t n,
                       size_t zero_from, TxSpan at)
{
    uint8_t *d = sim_mem_write(l, t, dst, n, at);
    const uint8_t *s = zero_from ? sim_mem_read(l, t, src, zero_from < n ? zero_from : n, at)
                                 : d;
    if (!d || !s)
        return false;
    if (zero_from)
        memmove(d, s, zero_from < n ? zero_from : n);
    if (zero_from < n)
        memset(d + zero_from, 0, n - zero_from);
    return true;
}

static int pend_state(SimAsyncKind k)
{
    return k == SIM_ASYNC_CP || k == SIM_ASYNC_LOAD ? SIM_PEND_WRITE : SIM_PEND_READ;
}

/* Records an operation in flight on bytes [lo, hi) of c's shared memory,
 * already marked (none when the range is empty). */
static SimAsync *record(SimLaunch *l, SimThread *t, SimAsyncKind k, SimCta *c, uint32_t lo,
                        uint32_t hi, int64_t group, TxSpan at)
{
    if (lo >= hi)
        return NULL;
    sim_async_add(l, (SimAsync){.kind = k, .cta = c, .lo = lo, .hi = hi, .icta = l->cta,
                                .issuer = t->tid, .group = group, .at = at});
    return &l->inflight.items[l->inflight.len - 1];
}

/* Marks and records an operation in flight on the n bytes at generic address
 * addr (none when they are not shared memory). */
static SimAsync *pending(SimLaunch *l, SimThread *t, SimAsyncKind k, uint64_t addr, size_t n,
                         int64_t group, TxSpan at)
{
    int rank;
    uint32_t off = sim_cluster_offset(l, addr, &rank);
    SimCta *c = &l->ctas[rank];
    if (off >= c->smem_region->size || n > c->smem_region->size - off)
        return NULL;
    sim_mark(l, addr, n, pend_state(k));
    return record(l, t, k, c, off, off + (uint32_t)n, group, at);
}

/* A load of `bytes` completing on the mbarrier at mbar: its transaction
 * bytes arrive when a thread polls the mbarrier; the issuing thread's clocks
 * are released into the phase now. */
static void load_on(SimLaunch *l, SimThread *t, SimAsync *op, uint64_t mbar, int64_t bytes,
                    TxSpan at)
{
    SimMbarrier *m = find(l, t, mbar, at);
    if (!m)
        return;
    release(t, m);
    if (!op) {
        m->tx -= bytes;
        check_phase(l, t, m, at);
        return;
    }
    op->mbar = m->at;
    op->bytes = bytes;
    l->events++;
    wake_waiters(l, m); /* to poll it */
}

/* cp.async.ca/cg [dst], [src], cp_size{, src_size | , ignore_src} */
static void cp_async(SimLaunch *l, SimThread *t, const SimPtx *p, TxSpan at)
{
    uint64_t dst = address(l, t, p, "dst_mem"), src = address(l, t, p, "src_mem");
    size_t n = (size_t)sim_ptx_value(l, t, p, "cp_size", 0), keep = n;
    if (sim_ptx_operand(p, "src_size"))
        keep = (size_t)sim_ptx_value(l, t, p, "src_size", 0);
    if (sim_ptx_operand(p, "ignore_src") && sim_ptx_value(l, t, p, "ignore_src", 0))
        keep = 0;
    if (!sim_failed(l) && copy_bytes(l, t, dst, src, n, keep < n ? keep : n, at))
        pending(l, t, SIM_ASYNC_CP, dst, n, t->cp_groups, at);
}

/* ---------------------------------------------------------------- TMA */

static int tma_bits(int dtype)
{
    switch (dtype) {
#define X(name, val, bits, kind) case val: return bits;
        RT_TMA_DTYPES(X)
#undef X
    }
    return 0;
}

static int swizzle_span(int swizzle)
{
    switch (swizzle) {
#define X(name, val, span) case val: return span;
        RT_TMA_SWIZZLES(X)
#undef X
    }
    return -1;
}

static const SimMap *tensor_map(SimLaunch *l, SimThread *t, const SimPtx *p, TxSpan at)
{
    uint64_t a = (uint64_t)sim_ptx_value(l, t, p, "tmap", 0);
    const SimMap *m = (const SimMap *)(uintptr_t)a;
    if (sim_failed(l))
        return NULL;
    if (!a || a % 64 || m->magic != SIM_MAP_MAGIC) {
        sim_fail(l, t, at, "the TMA operand is not a tensor map the host part encoded");
        return NULL;
    }
    int bits = tma_bits(m->dtype), span = swizzle_span(m->swizzle);
    if ((bits < 8 && m->dtype != RT_TMA_16U4_ALIGN8B) || m->interleave || span < 0 ||
        m->swizzle > 3) {
        sim_fail(l, t, at, "not modelled: a tensor map with dtype %d, interleave %d or swizzle %d",
                 m->dtype, m->interleave, m->swizzle);
        return NULL;
    }
    for (int i = 0; i < m->rank; i++)
        if (m->estride[i] != 1) {
            sim_fail(l, t, at, "not modelled: a tensor map with element strides");
            return NULL;
        }
    return m;
}

/* The shared-window address of byte `off` of a box written at `base`, swizzled. */
static uint32_t swizzled(const SimMap *m, uint32_t base, uint32_t off)
{
    uint32_t a = base + off;
    int span = swizzle_span(m->swizzle);
    if (span <= 0)
        return a;
    uint32_t mask = (uint32_t)span / 16 - 1;
    return a ^ ((a >> 7 & mask) << 4);
}

typedef enum { TMA_LOAD, TMA_STORE, TMA_REDUCE } TmaDir;

/* One element of the box: its global address, or 0 out of bounds. */
static uint64_t global_elem(const SimMap *m, const int64_t *coord, const uint32_t *i, int esize)
{
    uint64_t addr = m->addr;
    for (int d = 0; d < m->rank; d++) {
        int64_t g = coord[d] + i[d];
        if (g < 0 || (uint64_t)g >= m->dim[d])
            return 0;
        addr += (uint64_t)g * (d ? m->stride[d - 1] : (uint64_t)esize);
    }
    return addr;
}

static IrDType elem_dtype(int tma_dtype)
{
    switch (tma_dtype) {
    case RT_TMA_FLOAT16: return IR_FLOAT16;
    case RT_TMA_BFLOAT16: return IR_BFLOAT16;
    case RT_TMA_FLOAT32: return IR_FLOAT32;
    case RT_TMA_FLOAT64: return IR_FLOAT64;
    case RT_TMA_INT32: return IR_INT32;
    case RT_TMA_INT64: return IR_INT64;
    default: return (IrDType){IR_DT_UINT, (uint8_t)tma_bits(tma_dtype), 1};
    }
}

static void reduce_elem(SimLaunch *l, SimThread *t, const char *op, IrDType dt, uint64_t g,
                        uint64_t s, TxSpan at)
{
    SimVal a, b;
    if (!sim_load(l, t, g, dt, &a, at) || !sim_load(l, t, s, dt, &b, at))
        return;
    bool f = sim_is_float(dt);
    SimVal r = a;
    if (!strcmp(op, "add"))
        r = f ? (SimVal){.f = sim_round(dt, a.f + b.f)} : (SimVal){.i = sim_wrap(dt, a.i + b.i)};
    else if (!strcmp(op, "min"))
        r = f ? (b.f < a.f ? b : a) : (b.i < a.i ? b : a);
    else if (!strcmp(op, "max"))
        r = f ? (b.f > a.f ? b : a) : (b.i > a.i ? b : a);
    else {
        sim_fail(l, t, at, "not modelled: cp.reduce.async.bulk.tensor .%s", op);
        return;
    }
    sim_store(l, t, g, dt, r, at);
}

/* Moves the box at coord between global memory and the shared memory at
 * `saddr` (a shared-window address) of CTA `cta`. Returns the box's bytes. */
/* A packed 4-bit map (16U4_ALIGN8B) as the byte map that moves the same
 * bytes: dimension 0, its box and coordinate halved (each even). */
static bool as_bytes(SimLaunch *l, SimThread *t, SimMap *m, int64_t *coord, TxSpan at)
{
    if (m->dim[0] % 2 || m->box[0] % 2 || coord[0] % 2) {
        sim_fail(l, t, at, "a packed 4-bit tensor map needs an even dimension 0, box and "
                 "coordinate (%llu, %u, %lld)", (unsigned long long)m->dim[0], (unsigned)m->box[0],
                 (long long)coord[0]);
        return false;
    }
    m->dim[0] /= 2, m->box[0] /= 2, coord[0] /= 2, m->dtype = RT_TMA_UINT8;
    return true;
}

/* Code `i` of row `row_addr` of a packed map of n-bit elements (0 out of
 * bounds). */
static bool packed_code(SimLaunch *l, SimThread *t, const SimMap *m, uint64_t row_addr,
                        int64_t i, int n, uint32_t *code, TxSpan at)
{
    *code = 0;
    if (i < 0 || (uint64_t)i >= m->dim[0] || !row_addr)
        return true;
    int64_t bit = i * n;
    size_t bytes = bit % 8 + n > 8 ? 2 : 1;
    const uint8_t *src = sim_mem_read(l, t, row_addr + (uint64_t)(bit / 8), bytes, at);
    if (!src)
        return false;
    uint32_t w = src[0] | (bytes == 2 ? (uint32_t)src[1] << 8 : 0u);
    *code = w >> (bit % 8) & ((1u << n) - 1);
    return true;
}

/* A load through a 16U4 / 16U6_ALIGN16B map: each 16 elements of a row,
 * packed in global memory, become 16 bytes of shared memory, the codes
 * packed into the low 8 or 12 bytes and the rest zero. */
static int64_t padded_box(SimLaunch *l, SimThread *t, const SimMap *m, const int64_t *coord,
                          SimCta *cta, uint32_t saddr, TxSpan at)
{
    int n = m->dtype == RT_TMA_16U4_ALIGN16B ? 4 : 6;
    uint64_t rows = 1, base = (uint64_t)(uintptr_t)cta->smem;
    for (int d = 1; d < m->rank; d++)
        rows *= m->box[d];
    for (uint64_t r = 0; r < rows && !sim_failed(l); r++) {
        uint64_t rem = r, row_addr = m->addr;
        for (int d = 1; d < m->rank; d++) {
            int64_t g = coord[d] + (int64_t)(rem % m->box[d]);
            rem /= m->box[d];
            row_addr = g < 0 || (uint64_t)g >= m->dim[d] || !row_addr
                       ? 0 : row_addr + (uint64_t)g * m->stride[d - 1];
        }
        for (int grp = 0; grp < m->box[0] / 16; grp++) {
            uint8_t chunk[16] = {0};
            for (int j = 0; j < 16; j++) {
                uint32_t code;
                if (!packed_code(l, t, m, row_addr, coord[0] + grp * 16 + j, n, &code, at))
                    return 0;
                int bit = j * n;
                chunk[bit / 8] |= (uint8_t)(code << bit % 8);
                if (bit % 8 + n > 8)
                    chunk[bit / 8 + 1] |= (uint8_t)(code >> (8 - bit % 8));
            }
            uint32_t off = (uint32_t)(r * m->box[0] + (uint64_t)grp * 16);
            for (int b = 0; b < 16; b++) {
                uint8_t *d = sim_mem_write(l, t, base + swizzled(m, saddr, off + (uint32_t)b), 1,
                                           at);
                if (!d)
                    return 0;
                *d = chunk[b];
            }
        }
    }
    return (int64_t)(rows * m->box[0]);
}

static int64_t tma_box(SimLaunch *l, SimThread *t, const SimPtx *p, const SimMap *packed,
                       TmaDir dir, const int64_t *at_coord, SimCta *cta, uint32_t saddr,
                       uint32_t range[2], TxSpan at)
{
    if (packed->dtype == RT_TMA_16U4_ALIGN16B || packed->dtype == RT_TMA_16U6_ALIGN16B) {
        if (dir == TMA_LOAD && packed->box[0] % 16 == 0)
            return padded_box(l, t, packed, at_coord, cta, saddr, at);
        sim_fail(l, t, at, "not modelled: a %s through a 16-byte-aligned sub-byte tensor map "
                 "with a box of %u elements a row", dir == TMA_LOAD ? "load" : "store",
                 (unsigned)packed->box[0]);
        return 0;
    }
    SimMap bytes_map = *packed;
    const SimMap *m = &bytes_map;
    int64_t coord[5];
    memcpy(coord, at_coord, sizeof coord);
    if (packed->dtype == RT_TMA_16U4_ALIGN8B && !as_bytes(l, t, &bytes_map, coord, at))
        return 0;
    int esize = tma_bits(m->dtype) / 8;
    int span = swizzle_span(m->swizzle);
    if (span > 0 && m->box[0] * esize > span) {
        sim_fail(l, t, at, "the box's inner dimension (%d bytes) is wider than the %d-byte "
                 "swizzle", m->box[0] * esize, span);
        return 0;
    }
    uint64_t total = 1;
    for (int d = 0; d < m->rank; d++)
        total *= m->box[d];
    uint32_t i[5] = {0};
    uint64_t base = (uint64_t)(uintptr_t)cta->smem;
    IrDType dt = elem_dtype(m->dtype);
    for (uint64_t n = 0; n < total && !sim_failed(l); n++) {
        uint64_t rem = n;
        for (int d = 0; d < m->rank; d++)
            i[d] = (uint32_t)(rem % m->box[d]), rem /= m->box[d];
        uint64_t g = global_elem(m, coord, i, esize);
        uint32_t off = swizzled(m, saddr, (uint32_t)(n * (uint64_t)esize));
        uint64_t s = base + off;
        if (dir == TMA_LOAD) {
            uint8_t *d = sim_mem_write(l, t, s, (size_t)esize, at);
            const uint8_t *src = g ? sim_mem_read(l, t, g, (size_t)esize, at) : NULL;
            if (!d || (g && !src))
                return 0;
            if (src)
                memcpy(d, src, (size_t)esize);
            else if (m->oob && sim_is_float(dt))
                memset(d, 0xff, (size_t)esize); /* NaN */
            else
                memset(d, 0, (size_t)esize);
        } else if (g && dir == TMA_STORE) {
            l->proxy_read = "TMA store";
            const uint8_t *src = sim_mem_read(l, t, s, (size_t)esize, at);
            l->proxy_read = NULL;
            uint8_t *d = src ? sim_mem_write(l, t, g, (size_t)esize, at) : NULL;
            if (!d)
                return 0;
            memcpy(d, src, (size_t)esize);
        } else if (g) {
            l->proxy_read = "TMA reduce";
            l->atomic = true;
            reduce_elem(l, t, sim_ptx_slot(p, "redop"), dt, g, s, at);
            l->atomic = false;
            l->proxy_read = NULL;
        } else {
            continue; /* a store's element out of bounds: not read */
        }
        sim_mark(l, s, (size_t)esize, dir == TMA_LOAD ? SIM_PEND_WRITE : SIM_PEND_READ);
        range[0] = off < range[0] ? off : range[0];
        range[1] = off + (uint32_t)esize > range[1] ? off + (uint32_t)esize : range[1];
    }
    return (int64_t)(total * (uint64_t)esize);
}

/* .tile::gather4: the column, then four rows of a rank-2 map, each a box of
 * one row written after the previous one. */
static int64_t gather4(SimLaunch *l, SimThread *t, const SimPtx *p, const SimMap *m,
                       SimCta *cta, uint32_t saddr, uint32_t range[2], TxSpan at)
{
    int64_t bytes = 0;
    uint32_t row_bytes = (uint32_t)m->box[0] * (uint32_t)(tma_bits(m->dtype) / 8);
    for (int i = 0; i < 4 && !sim_failed(l); i++) {
        int64_t coord[5] = {(int32_t)sim_ptx_value(l, t, p, "coords", 0),
                            (int32_t)sim_ptx_value(l, t, p, "coords", i + 1)};
        bytes += tma_box(l, t, p, m, TMA_LOAD, coord, cta, saddr + (uint32_t)i * row_bytes, range,
                         at);
    }
    return bytes;
}

static void tma(SimLaunch *l, SimThread *t, const SimPtx *p, TmaDir dir, TxSpan at)
{
    const SimMap *m = tensor_map(l, t, p, at);
    if (!m)
        return;
    int64_t coord[5] = {0};
    const IrPtxOperand *co = sim_ptx_operand(p, "coords");
    bool g4 = !strcmp(sim_ptx_slot(p, "load_mode"), "tile::gather4");
    if (g4 && (m->rank != 2 || m->box[1] != 1)) {
        sim_fail(l, t, at, "tile::gather4 with a tensor map of rank %d and a box of %d rows",
                 m->rank, m->rank > 1 ? m->box[1] : 1);
        return;
    }
    if (!co || co->lanes != (g4 ? 5 : m->rank)) {
        sim_fail(l, t, at, "%d TMA coordinates for a tensor map of rank %d%s", co ? co->lanes : 0,
                 m->rank, g4 ? " (tile::gather4: five)" : "");
        return;
    }
    for (int d = 0; d < m->rank && !g4; d++)
        coord[d] = (int32_t)sim_ptx_value(l, t, p, "coords", d);
    uint32_t range[2] = {UINT32_MAX, 0};
    if (dir != TMA_LOAD) {
        uint64_t src = address(l, t, p, "src_mem");
        tma_box(l, t, p, m, dir, coord, l->cta, (uint32_t)sim_shared_window(l, src), range, at);
        if (!sim_failed(l))
            record(l, t, SIM_ASYNC_STORE, l->cta, range[0], range[1], t->bulk_groups, at);
        return;
    }
    uint64_t dst = address(l, t, p, "dst_mem"), mbar = address(l, t, p, "mbar");
    int mrank;
    uint32_t off = (uint32_t)sim_shared_window(l, dst), moff = sim_cluster_offset(l, mbar, &mrank);
    int mask = sim_ptx_operand(p, "cta_mask") ? (int)sim_ptx_value(l, t, p, "cta_mask", 0) : 1 << l->cta->rank;
    /* .cta_group::2: each destination's bytes complete on the mbarrier of the
     * CTA of its pair that the mbarrier operand names (the pair's leader) */
    bool pair = !strcmp(sim_ptx_slot(p, "cta_group"), "cta_group::2");
    for (int k = 0; k < l->nctas && !sim_failed(l); k++) {
        if (!(mask >> k & 1))
            continue;
        SimCta *c = &l->ctas[k], *bc = &l->ctas[pair ? (k & ~1) | (mrank & 1) : k];
        range[0] = UINT32_MAX, range[1] = 0;
        l->proxy_write = true;
        int64_t bytes = g4 ? gather4(l, t, p, m, c, off, range, at)
                           : tma_box(l, t, p, m, dir, coord, c, off, range, at);
        l->proxy_write = false;
        if (sim_failed(l))
            return;
        SimAsync *op = record(l, t, SIM_ASYNC_LOAD, c, range[0], range[1], 0, at);
        load_on(l, t, op, (uint64_t)(uintptr_t)bc->smem + moff, bytes, at);
    }
}

/* cp.async.bulk (non-tensor): size bytes, completing on an mbarrier when it has one. */
static void bulk(SimLaunch *l, SimThread *t, const SimPtx *p, TxSpan at)
{
    uint64_t dst = address(l, t, p, "dst_mem"), src = address(l, t, p, "src_mem");
    int64_t n = sim_ptx_value(l, t, p, "size", 0);
    l->proxy_read = "bulk copy";
    l->proxy_write = true;
    bool copied = !sim_failed(l) && copy_bytes(l, t, dst, src, (size_t)n, (size_t)n, at);
    l->proxy_read = NULL;
    l->proxy_write = false;
    if (!copied)
        return;
    if (sim_ptx_operand(p, "mbar"))
        load_on(l, t, pending(l, t, SIM_ASYNC_LOAD, dst, (size_t)n, 0, at),
                address(l, t, p, "mbar"), n, at);
    else
        pending(l, t, SIM_ASYNC_STORE, src, (size_t)n, t->bulk_groups, at);
}

/* st.async [addr], b, [mbar]: a thread's registers into another CTA's shared
 * memory, the bytes completing on its mbarrier as a bulk copy's do. */
static void st_async(SimLaunch *l, SimThread *t, const SimPtx *p, TxSpan at)
{
    const char *type = sim_ptx_slot(p, "type");
    const IrPtxOperand *b = sim_ptx_operand(p, "b");
    int bits = atoi(type + 1);
    if (type[0] == 'f' || !b || (bits != 32 && bits != 64)) {
        sim_fail(l, t, at, "not modelled: st.async of %s", type);
        return;
    }
    uint64_t dst = address(l, t, p, "addr");
    size_t n = (size_t)b->lanes * (size_t)bits / 8;
    l->proxy_write = true;
    uint8_t *d = sim_mem_write(l, t, dst, n, at);
    l->proxy_write = false;
    if (!d)
        return;
    for (int i = 0; i < b->lanes; i++) {
        uint64_t v = (uint64_t)sim_ptx_value(l, t, p, "b", i);
        memcpy(d + (size_t)i * (size_t)bits / 8, &v, (size_t)bits / 8); /* little-endian */
    }
    load_on(l, t, pending(l, t, SIM_ASYNC_LOAD, dst, n, 0, at), address(l, t, p, "mbar"),
            (int64_t)n, at);
}

/* ---------------------------------------------------------------- dispatch */

static uint32_t mapa(SimLaunch *l, SimThread *t, const SimPtx *p, uint64_t *generic)
{
    uint64_t a = (uint64_t)sim_ptx_value(l, t, p, "a", 0);
    uint32_t rank = (uint32_t)sim_ptx_value(l, t, p, "b", 0);
    if ((int)rank >= l->nctas) {
        sim_fail(l, t, p->c->args[0]->span, "mapa to CTA rank %u of a cluster of %d", rank,
                 l->nctas);
        return 0;
    }
    const IrPtxOperand *ao = sim_ptx_operand(p, "a");
    if (ao && ao->kind == IR_PTX_OPND_PTR) {
        *generic = (uint64_t)(uintptr_t)l->ctas[rank].smem + sim_shared_window(l, a);
        return 0;
    }
    return 0x80000000u | rank << 24 | ((uint32_t)a & 0xffffff);
}

static void set_out(SimLaunch *l, SimThread *t, const SimPtx *p, const char *name, int64_t v)
{
    const IrPtxOperand *o = sim_ptx_operand(p, name);
    if (o && o->kind != IR_PTX_OPND_TEXT)
        sim_assign(l, t, p->c->args[o->first_arg], (SimVal){.i = v});
}

static void mbarrier_op(SimLaunch *l, SimThread *t, const SimPtx *p, int entry, TxSpan at)
{
    uint64_t a = address(l, t, p, "addr");
    switch (entry) {
    case IR_PTX_mbarrier_init: mbar_init(l, t, a, (uint32_t)sim_ptx_value(l, t, p, "count", 0), at); break;
    case IR_PTX_mbarrier_arrive: sim_mbarrier_arrive(l, t, a, (uint32_t)sim_ptx_value(l, t, p, "count", 0), 0, at); break;
    case IR_PTX_mbarrier_arrive_nocount: case IR_PTX_mbarrier_arrive_state:
        sim_mbarrier_arrive(l, t, a, 1, 0, at);
        break;
    case IR_PTX_mbarrier_arrive_count_state:
        sim_mbarrier_arrive(l, t, a, (uint32_t)sim_ptx_value(l, t, p, "count", 0), 0, at);
        break;
    case IR_PTX_mbarrier_arrive_expect_tx:
        sim_mbarrier_arrive(l, t, a, 1, sim_ptx_value(l, t, p, "tx_count", 0), at);
        break;
    case IR_PTX_mbarrier_arrive_expect_tx_state:
        sim_mbarrier_arrive(l, t, a, 1, sim_ptx_value(l, t, p, "count", 0), at);
        break;
    case IR_PTX_mbarrier_expect_tx: {
        SimMbarrier *m = find(l, t, a, at);
        if (m)
            m->tx += sim_ptx_value(l, t, p, "tx_count", 0), l->events++;
        break;
    }
    case IR_PTX_mbarrier_complete_tx: {
        SimMbarrier *m = find(l, t, a, at);
        if (m)
            release(t, m);
        sim_mbarrier_complete_tx(l, t, a, sim_ptx_value(l, t, p, "tx_count", 0), at);
        break;
    }
    default: { /* test_wait / try_wait .parity */
        bool done = phase_done(l, t, a, (int)sim_ptx_value(l, t, p, "phase", 0), at);
        set_out(l, t, p, "wait_complete", done);
    }
    }
}

static bool own_copy(const SimAsync *op, const void *t)
{
    const SimThread *th = t;
    return op->kind == SIM_ASYNC_CP && &op->icta->threads[op->issuer] == th;
}

/* cp.async.mbarrier.arrive: the thread's copies land, then it arrives (.noinc:
 * counted among the expected arrivals; otherwise only ordering the copies
 * before the phase). */
static void cp_async_arrive(SimLaunch *l, SimThread *t, const SimPtx *p, TxSpan at)
{
    sim_async_complete(l, t, own_copy, t);
    uint64_t a = address(l, t, p, "addr");
    if (sim_ptx_slot(p, "noinc")[0]) {
        sim_mbarrier_arrive(l, t, a, 1, 0, at);
        return;
    }
    SimMbarrier *m = find(l, t, a, at);
    if (m)
        release(t, m);
}

bool sim_ptx_async(SimLaunch *l, SimThread *t, const IrExpr *e, int entry)
{
    SimPtx p;
    sim_ptx_resolve(&e->u.call, &p);
    TxSpan at = e->span;
    switch (entry) {
    case IR_PTX_mbarrier_init: case IR_PTX_mbarrier_arrive: case IR_PTX_mbarrier_arrive_nocount:
    case IR_PTX_mbarrier_arrive_state: case IR_PTX_mbarrier_arrive_count_state:
    case IR_PTX_mbarrier_arrive_expect_tx: case IR_PTX_mbarrier_arrive_expect_tx_state:
    case IR_PTX_mbarrier_expect_tx: case IR_PTX_mbarrier_complete_tx:
    case IR_PTX_mbarrier_test_wait_parity: case IR_PTX_mbarrier_try_wait_parity:
    case IR_PTX_mbarrier_try_wait_parity_no_hint:
        mbarrier_op(l, t, &p, entry, at);
        return true;
    case IR_PTX_cp_async_ca: case IR_PTX_cp_async_ca_src_size: case IR_PTX_cp_async_ca_ignore_src:
    case IR_PTX_cp_async_cg: case IR_PTX_cp_async_cg_src_size: case IR_PTX_cp_async_cg_ignore_src:
        cp_async(l, t, &p, at);
        return true;
    case IR_PTX_cp_async_mbarrier_arrive:
        cp_async_arrive(l, t, &p, at);
        return true;
    case IR_PTX_cp_async_commit_group: sim_commit_group(t, SIM_ASYNC_CP); return true;
    case IR_PTX_cp_async_wait_group:
        sim_wait_group(l, t, SIM_ASYNC_CP, sim_ptx_value(l, t, &p, "group", 0));
        return true;
    case IR_PTX_cp_async_wait_all:
        sim_commit_group(t, SIM_ASYNC_CP);
        sim_wait_group(l, t, SIM_ASYNC_CP, 0);
        return true;
    case IR_PTX_cp_async_bulk_commit_group: sim_commit_group(t, SIM_ASYNC_STORE); return true;
    case IR_PTX_cp_async_bulk_wait_group:
        sim_wait_group(l, t, SIM_ASYNC_STORE, sim_ptx_value(l, t, &p, "group", 0));
        return true;
    case IR_PTX_cp_async_bulk_tensor_prefetch: return true;
    case IR_PTX_cp_async_bulk_prefetch: {
        uint64_t src = address(l, t, &p, "src_mem");
        int64_t n = sim_ptx_value(l, t, &p, "size", 0);
        if (src % 16 || n % 16 || n <= 0)
            sim_fail(l, t, at, "a bulk prefetch of %lld bytes at address 0x%llx: it takes a "
                     "positive multiple of 16 bytes at a 16-byte aligned address", (long long)n,
                     (unsigned long long)src);
        else
            sim_mem_prefetch(l, t, src, (size_t)n, at);
        return true;
    }
    case IR_PTX_cp_async_bulk_tensor_g2s_cta: case IR_PTX_cp_async_bulk_tensor_g2s_cluster:
        tma(l, t, &p, TMA_LOAD, at);
        return true;
    case IR_PTX_cp_async_bulk_tensor_s2g: tma(l, t, &p, TMA_STORE, at); return true;
    case IR_PTX_cp_reduce_async_bulk_tensor: tma(l, t, &p, TMA_REDUCE, at); return true;
    case IR_PTX_cp_async_bulk_g2s_cta: case IR_PTX_cp_async_bulk_g2s_cluster:
    case IR_PTX_cp_async_bulk_s2c: case IR_PTX_cp_async_bulk_s2g:
        bulk(l, t, &p, at);
        return true;
    case IR_PTX_st_async: case IR_PTX_st_async_vec: st_async(l, t, &p, at); return true;
    case IR_PTX_barrier_cluster_arrive: cluster_arrive(l, t); return true;
    case IR_PTX_barrier_cluster_wait: cluster_wait(l, t, at); return true;
    case IR_PTX_mapa: case IR_PTX_mapa_u64_raw: case IR_PTX_mapa_u64_shared: case IR_PTX_mapa_u32: {
        uint64_t generic = 0;
        uint32_t c = mapa(l, t, &p, &generic);
        set_out(l, t, &p, "d", generic ? (int64_t)generic : c);
        return true;
    }
    case IR_PTX_getctarank: case IR_PTX_getctarank_generic: {
        uint64_t a = (uint64_t)sim_ptx_value(l, t, &p, "a", 0);
        int rank = entry == IR_PTX_getctarank && a >> 31 ? (int)(a >> 24 & 0x7f) : l->cta->rank;
        for (int k = 0; entry == IR_PTX_getctarank_generic && k < l->nctas; k++)
            if (a - (uint64_t)(uintptr_t)l->ctas[k].smem < l->ctas[k].smem_region->size)
                rank = k;
        set_out(l, t, &p, "d", rank);
        return true;
    }
    default: return false;
    }
}
