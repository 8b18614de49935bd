/* tcgen05 (PTX ISA 9.7.16) and clusterlaunchcontrol: Blackwell's tensor
 * memory and the instructions around it. Each CTA has 128 lanes x 512
 * columns of 32 bits (SimTmem, made at its first use), with a state per cell
 * so that an MMA's read of a cell nothing wrote, or any read of one an MMA
 * wrote that no tcgen05.commit has covered yet, is an error naming the line
 * (a tcgen05.ld of a cell nothing wrote reads a NaN).
 *
 *   alloc / dealloc / relinquish_alloc_permit: warp-wide (a rendezvous of
 *     the warp); alloc takes the first free power-of-two range of columns
 *     aligned to its size and writes its address (lane 0, the column) to
 *     shared memory; dealloc frees it; an allocation that does not fit, a
 *     dealloc of columns not allocated, an access to an unallocated column
 *     and columns still allocated when the CTA ends are errors. cta_group::2 allocates the same columns in each CTA.
 *   ld / st: a rendezvous of the warp (.sync.aligned; the .16x* shapes meet
 *     other lanes' rows, which their threads' earlier st must have written),
 *     then each thread moves its own registers. A warp reaches the 32-lane
 *     slab of its warp id mod 4 (the address's lane within the slab); the
 *     shapes place register j of lane l (per = 1, 2, 4 registers per
 *     repetition for 16x64b, 16x128b, 16x256b; rep = j / per, q = j % per):
 *       32x32b    lane l,                       column j
 *       16x64b    lane 8 (l % 2) + l / 4,       column 2 rep + (l / 2) % 2
 *       16x128b   lane l / 4 + 8 q,             column 4 rep + l % 4
 *       16x256b   lane l / 4 + 8 (q / 2),       column 8 rep + 2 (l % 4) + q % 2
 *     (rows of the slab from the address's lane). The wait is a no-op.
 *   mma (ss, ts, .ws): the instruction descriptor decoded (D, A and B
 *     formats, negation, MN-major A and B (an fp6 or fp4 one is an error:
 *     they are read K-major only), N, M) against the .kind (f16:
 *     f16/bf16 inputs; tf32; f8f6f4 and mxf8f6f4: e4m3/e5m2; mxf4 and
 *     mxf4nvf4: e2m1 packed two to a byte), A from a shared-memory
 *     descriptor or tensor memory (there the A row of each element of D is
 *     on that element's lane: the column halves of .ws M = 64 and
 *     cta_group::2 M = 128, and the quarters of .ws M = 32, each read their
 *     own lanes' A), B from a descriptor (the layouts of
 *     wgmma.c; the sm_100 descriptor's swizzle codes), the product summed in
 *     double and rounded once to float32, D in the data path of M and the
 *     CTA group: M = 128 (and 256 over a CTA pair) row i in lane i; M = 64
 *     16 rows per 32-lane slab (.ws: the column halves in lanes 0-63 and
 *     64-127); .ws M = 32 the column quarters across the slabs; cta_group::2
 *     M = 128 the column halves as for .ws M = 64. cta_group::2 is issued by
 *     the even CTA of a pair: each CTA supplies its half of A's rows and of
 *     B's N rows at the same shared offsets and receives its rows of D. The
 *     product is computed at issue; its cells are pending until a commit.
 *     Block scaled (cta_group::1): each element of A's row r (B's row n) is
 *     multiplied by its factor, read from lane r mod 128 and column r / 32
 *     of the SFA (SFB) address, byte sf_id + j for the j-th of the
 *     scale_vec's 1, 2 or 4 blocks of K (sf_id from the instruction
 *     descriptor: bits 29-30 A, 4-5 B); e8m0 factors are 2^(b - 127), e4m3
 *     ones (mxf4nvf4) unsigned; the kind, vector and factor format must be
 *     a form of the instruction.
 *   commit (and .multicast::cluster): the issuing CTA's (and its pair's)
 *     pending cells become ready, then one arrival on the mbarrier (in each
 *     CTA of the mask).
 *   cp: rows of 32 or 16 bytes from a shared descriptor's rows into lanes:
 *     128x256b and 128x128b row r to lane r, 4x256b to lane 32 r,
 *     64x128b.warpx2::02_13 to lanes r and r + 64, .warpx2::01_23 rows 0-31
 *     to lanes r and r + 32, rows 32-63 to lanes r + 32 and r + 64,
 *     32x128b.warpx4 to lane r of each 32-lane slab. With .b8x16.b6x16_p32
 *     (.b4x16_p64) each 16 bytes of a row hold 16 values of 6 (4) bits
 *     packed from bit 0 (value i at bit 6 i, 4 i) and 4 (8) bytes of
 *     padding, which are not read; they become 16 bytes, value i in byte i:
 *     a 6-bit value in bits 0-5, a 4-bit one in bits 2-5, the other bits
 *     zero (PTX "Optional Decompression": the 8-bit container in which
 *     tcgen05.mma kind::f8f6f4 reads fp6 and fp4 from tensor memory).
 *   fence::before/after_thread_sync: no-ops.
 *   clusterlaunchcontrol.try_cancel: the simulator cancels no cluster (every
 *     CTA of the grid runs): the 16-byte response says "not canceled" and
 *     its bytes complete on the mbarrier (of each CTA, multicast);
 *     query_cancel answers from it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { TM_LANES = 128, TM_COLS = 512, TM_EMPTY = 0, TM_READY = 1, TM_PENDING = 2 };

static SimTmem *tmem_of(SimLaunch *l, SimThread *t, SimCta *c, TxSpan at)
{
    if (!c->tmem && !(c->tmem = calloc(1, sizeof *c->tmem)))
        sim_fail(l, t, at, "out of memory for tensor memory");
    return c->tmem;
}

/* The cell at (lane, col), or NULL after an error. */
static SimTmem *cell(SimLaunch *l, SimThread *t, SimCta *c, int lane, int col, TxSpan at)
{
    SimTmem *m = tmem_of(l, t, c, at);
    if (!m)
        return NULL;
    if (lane < 0 || lane >= TM_LANES || col < 0 || col >= TM_COLS) {
        sim_fail(l, t, at, "tensor memory lane %d, column %d is outside the 128 lanes x 512 "
                 "columns", lane, col);
        return NULL;
    }
    if (!m->allocated[col]) {
        sim_fail(l, t, at, "tensor memory column %d is not allocated (tcgen05.alloc)", col);
        return NULL;
    }
    return m;
}

/* A cell's value. An MMA or a scale-factor read of a cell no one wrote is an
 * error; a tcgen05.ld of one (`garbage`: a warp's 32x32b read of a 64-row
 * accumulator reads the 16 lanes per slab it leaves out, and ignores them)
 * gets a NaN, as a value the hardware leaves unspecified. */
static bool tm_read(SimLaunch *l, SimThread *t, SimCta *c, int lane, int col, uint32_t *v,
                    bool garbage, TxSpan at)
{
    SimTmem *m = cell(l, t, c, lane, col, at);
    if (!m)
        return false;
    int i = lane * TM_COLS + col;
    if (m->st[i] == TM_EMPTY && garbage) {
        *v = 0x7fffffffu;
        return true;
    }
    if (m->st[i] == TM_EMPTY) {
        sim_fail(l, t, at, "read of tensor memory no one wrote (lane %d, column %d)", lane, col);
        return false;
    }
    if (m->st[i] == TM_PENDING) {
        sim_fail(l, t, at, "tensor memory (lane %d, column %d) read before the MMA that writes "
                 "it was committed (tcgen05.commit) and waited for", lane, col);
        return false;
    }
    *v = m->v[i];
    return true;
}

static bool tm_write(SimLaunch *l, SimThread *t, SimCta *c, int lane, int col, uint32_t v,
                     int state, TxSpan at)
{
    SimTmem *m = cell(l, t, c, lane, col, at);
    if (!m)
        return false;
    m->v[lane * TM_COLS + col] = v;
    m->st[lane * TM_COLS + col] = (uint8_t)state;
    m->pending |= state == TM_PENDING;
    return true;
}

static int warp_lane(const SimThread *t) { return t->tid % 32; }

/* The peer of a CTA in its pair (cta_group::2). */
static SimCta *peer_of(SimLaunch *l, SimCta *c)
{
    int r = c->rank ^ 1;
    return r < l->nctas ? &l->ctas[r] : NULL;
}

/* ---------------------------------------------------------------- allocation */

static void tm_alloc(SimLaunch *l, SimThread *t, SimCta *c, uint64_t dst, uint32_t ncols,
                     TxSpan at)
{
    if (ncols < 32 || ncols > TM_COLS || (ncols & (ncols - 1))) {
        sim_fail(l, t, at, "tcgen05.alloc of %u columns: a power of two from 32 to 512", ncols);
        return;
    }
    SimTmem *m = tmem_of(l, t, c, at);
    if (!m)
        return;
    for (uint32_t col = 0; col < TM_COLS; col += ncols) {
        bool free_ = true;
        for (uint32_t k = 0; k < ncols && free_; k++)
            free_ = !m->allocated[col + k];
        if (free_) {
            memset(m->allocated + col, 1, ncols);
            m->alloc_at[col] = at;
            sim_store(l, t, dst, IR_UINT32, (SimVal){.i = col}, at);
            return;
        }
    }
    sim_fail(l, t, at, "tcgen05.alloc of %u columns: no free range (the CTA waits forever)",
             ncols);
}

static void tm_dealloc(SimLaunch *l, SimThread *t, SimCta *c, uint32_t taddr, uint32_t ncols,
                       TxSpan at)
{
    SimTmem *m = tmem_of(l, t, c, at);
    uint32_t col = taddr & 0xffff;
    if (!m)
        return;
    for (uint32_t k = 0; k < ncols; k++)
        if (col + k >= TM_COLS || !m->allocated[col + k]) {
            sim_fail(l, t, at, "tcgen05.dealloc of columns %u-%u, which are not all allocated",
                     col, col + ncols - 1);
            return;
        }
    memset(m->allocated + col, 0, ncols);
    for (int lane = 0; lane < TM_LANES; lane++)
        memset(m->st + lane * TM_COLS + col, TM_EMPTY, ncols);
}

/* Tensor memory must be deallocated before the kernel exits (PTX ISA,
 * tcgen05.alloc): columns left allocated may keep a later CTA on the SM
 * waiting in its own alloc for ever. */
void sim_tcgen05_check_freed(SimLaunch *l, SimCta *c)
{
    const SimTmem *m = c->tmem;
    for (int col = 0; m && col < TM_COLS; col++) {
        if (!m->allocated[col])
            continue;
        int end = col;
        while (end + 1 < TM_COLS && m->allocated[end + 1])
            end++;
        SimCta *was = l->cta;
        l->cta = c;
        sim_fail(l, NULL, m->alloc_at[col], "CTA (%u,%u,%u) ended with tensor memory columns "
                 "%d-%d still allocated by this tcgen05.alloc: deallocate them before the "
                 "kernel exits, or a later CTA on the SM may wait for them in its alloc for "
                 "ever", c->idx[0], c->idx[1], c->idx[2], col, end);
        l->cta = was;
        return;
    }
}

/* alloc, dealloc, relinquish: a rendezvous of the warp, then lane 0 acts. */
static void warp_op(SimLaunch *l, SimThread *t, const SimPtx *p, const char *action, TxSpan at)
{
    uint64_t in[1] = {0}, res[SIM_COLL_MAX];
    if (!sim_coll(l, t, SIM_COLL_SYNC, 0xffffffffu, p->c, in, 1, res, at) ||
        warp_lane(t) != 0)
        return;
    SimCta *c = l->cta;
    if (!strcmp(action, "alloc")) {
        const IrPtxOperand *d = sim_ptx_operand(p, "dst");
        uint32_t n = (uint32_t)sim_ptx_value(l, t, p, "ncols", 0);
        tm_alloc(l, t, c, sim_ptx_address(l, t, p, d), n, at);
    } else if (!strcmp(action, "dealloc")) {
        uint32_t a = (uint32_t)sim_ptx_value(l, t, p, "taddr", 0);
        uint32_t n = (uint32_t)sim_ptx_value(l, t, p, "ncols", 0);
        tm_dealloc(l, t, c, a, n, at);
    }
}

/* ---------------------------------------------------------------- ld / st */

/* Lane (within the warp's 16 or 32 rows) and column of register j of lane
 * l for `shape`. */
static void ldst_pos(const char *shape, int l, int j, int *row, int *col)
{
    if (!strcmp(shape, "32x32b")) {
        *row = l, *col = j;
    } else if (!strcmp(shape, "16x64b")) {
        *row = 8 * (l % 2) + l / 4, *col = 2 * j + l / 2 % 2;
    } else if (!strcmp(shape, "16x128b")) {
        *row = l / 4 + 8 * (j % 2), *col = 4 * (j / 2) + l % 4;
    } else { /* 16x256b */
        int q = j % 4;
        *row = l / 4 + 8 * (q / 2), *col = 8 * (j / 4) + 2 * (l % 4) + q % 2;
    }
}

static void ldst(SimLaunch *l, SimThread *t, const SimPtx *p, bool load, TxSpan at)
{
    if (*sim_ptx_slot(p, load ? "pack" : "unpack")) {
        sim_fail(l, t, at, "not modelled: tcgen05.%s with .%s", load ? "ld" : "st",
                 load ? "pack::16b" : "unpack::16b");
        return;
    }
    uint64_t in[1] = {0}, res[SIM_COLL_MAX];
    if (!sim_coll(l, t, SIM_COLL_SYNC, 0xffffffffu, p->c, in, 1, res, at))
        return;
    const char *shape = sim_ptx_slot(p, "shape");
    const IrPtxOperand *r = sim_ptx_operand(p, "r");
    uint32_t taddr = (uint32_t)sim_ptx_value(l, t, p, "taddr", 0);
    int slab = 32 * (t->tid / 32 % 4), base = (int)(taddr >> 16 & 31), col0 = (int)(taddr & 0xffff);
    for (int j = 0; j < r->lanes && !sim_failed(l); j++) {
        int row, col;
        ldst_pos(shape, warp_lane(t), j, &row, &col);
        const IrExpr *reg = p->c->args[r->first_arg + j];
        uint32_t v;
        if (!load)
            tm_write(l, t, l->cta, slab + base + row, col0 + col,
                     (uint32_t)sim_arg_bits(l, t, reg), TM_READY, at);
        else if (tm_read(l, t, l->cta, slab + base + row, col0 + col, &v, true, at))
            sim_set_bits(l, t, reg, v, 32);
    }
}

/* ---------------------------------------------------------------- mma */

/* The instruction descriptor's fields (PTX ISA 9.7.16.4.2). */
typedef struct Idesc {
    int m, n, k, dfmt, afmt, bfmt;
    bool neg_a, neg_b, mn_a, mn_b;
    IrDType a, b;
    int sf_a, sf_b;  /* block scaled: the byte of the factors' columns */
    bool sf_e8m0;    /* the factors' format: e8m0, else (unsigned) e4m3 */
} Idesc;

static IrDType kind_type(const char *kind, int fmt)
{
    IrDType e4m3 = {IR_DT_F8E4M3FN, 8, 1}, e5m2 = {IR_DT_F8E5M2, 8, 1};
    if (!strcmp(kind, "kind::f16"))
        return fmt == 0 ? IR_FLOAT16 : fmt == 1 ? IR_BFLOAT16 : IR_VOID;
    if (!strcmp(kind, "kind::tf32"))
        return fmt == 2 ? IR_FLOAT32 : IR_VOID;
    if (!strcmp(kind, "kind::f8f6f4") || !strcmp(kind, "kind::mxf8f6f4")) /* fp6 / fp4 in
                                                    * their _align16 form */
        return fmt == 0 ? e4m3 : fmt == 1 ? e5m2 : fmt == 3 ? (IrDType){IR_DT_F6E2M3FN_A16, 8, 1}
               : fmt == 4 ? (IrDType){IR_DT_F6E3M2FN_A16, 8, 1}
               : fmt == 5 ? (IrDType){IR_DT_F4E2M1FN_A16, 8, 1} : IR_VOID;
    if (!strcmp(kind, "kind::mxf4") || !strcmp(kind, "kind::mxf4nvf4"))
        return fmt == 1 ? (IrDType){IR_DT_F4E2M1FN, 4, 1} : IR_VOID;
    return IR_VOID;
}

static bool decode_idesc(SimLaunch *l, SimThread *t, const SimPtx *p, uint32_t d, bool ws,
                         int group, Idesc *o, TxSpan at)
{
    const char *kind = sim_ptx_slot(p, "kind");
    bool scaled = *sim_ptx_slot(p, "block_scale") != 0;
    *o = (Idesc){.m = (int)(d >> 24 & 31) << 4, .n = (int)(d >> 17 & 63) << 3,
                 .dfmt = scaled ? 1 : (int)(d >> 4 & 3), .afmt = (int)(d >> 7 & 7),
                 .bfmt = (int)(d >> 10 & 7), .neg_a = d >> 13 & 1, .neg_b = d >> 14 & 1,
                 .mn_a = d >> 15 & 1, .mn_b = d >> 16 & 1};
    if (scaled)
        o->sf_b = (int)(d >> 4 & 3), o->sf_a = (int)(d >> 29 & 3), o->sf_e8m0 = d >> 23 & 1;
    o->k = !strcmp(kind, "kind::tf32") ? 8 : !strcmp(kind, "kind::f16") ? 16
           : !strncmp(kind, "kind::mxf4", 10) ? 64 : 32;
    o->a = kind_type(kind, o->afmt);
    o->b = kind_type(kind, o->bfmt);
    if (d & 0xc || o->a.code == IR_DT_VOID || o->b.code == IR_DT_VOID || o->dfmt != 1) {
        sim_fail(l, t, at, "not modelled: tcgen05.mma .%s with instruction descriptor 0x%08x "
                 "(D format %d, A format %d, B format %d; sparse or saturating bits %u)", kind,
                 d, o->dfmt, o->afmt, o->bfmt, d >> 2 & 3);
        return false;
    }
    if ((o->mn_a && ir_dtype_subbyte(o->a)) || (o->mn_b && ir_dtype_subbyte(o->b))) {
        sim_fail(l, t, at, "tcgen05.mma .%s: the instruction descriptor 0x%08x makes an fp6 or "
                 "fp4 operand MN-major (A format %d, B format %d), which the instruction reads "
                 "K-major only", kind, d, o->afmt, o->bfmt);
        return false;
    }
    bool m_ok = group == 2 ? o->m == 128 || o->m == 256
                : ws ? o->m == 32 || o->m == 64 || o->m == 128 : o->m == 64 || o->m == 128;
    int step = group == 2 ? 32 : ws ? 64 : o->m == 64 ? 8 : 16;
    if (!m_ok || o->n < step || o->n > 256 || o->n % step) {
        sim_fail(l, t, at, "tcgen05.mma%s.cta_group::%d: the instruction descriptor 0x%08x asks "
                 "for M = %d, N = %d, which the instruction does not have", ws ? ".ws" : "",
                 group, d, o->m, o->n);
        return false;
    }
    return true;
}

/* The sm_100 shared-memory descriptor: start, LBO, SBO, swizzle codes 0
 * none, 1 128B with 32B atoms (not modelled), 2 128B, 4 64B, 6 32B. */
static bool decode_desc(SimLaunch *l, SimThread *t, uint64_t d, bool mn, SimSmemOperand *o,
                        TxSpan at)
{
    int code = (int)(d >> 61 & 7);
    static const int bytes[8] = {0, -1, 128, -1, 64, -1, 32, -1};
    *o = (SimSmemOperand){.start = (uint32_t)(d & 0x3fff) << 4,
                          .lbo = (uint32_t)(d >> 16 & 0x3fff) << 4,
                          .sbo = (uint32_t)(d >> 32 & 0x3fff) << 4, .swizzle = bytes[code],
                          .mn_major = mn};
    if (o->swizzle < 0 || (d >> 49 & 7) || (d >> 52 & 1)) {
        sim_fail(l, t, at, "not modelled: a tcgen05 matrix descriptor 0x%016llx (swizzle mode "
                 "%d, base offset %u, absolute LBO mode %u)", (unsigned long long)d, code,
                 (unsigned)(d >> 49 & 7), (unsigned)(d >> 52 & 1));
        return false;
    }
    return true;
}

/* Lane and column of D's (row, col) in the CTA that holds the row (rows:
 * that CTA's), for the data path of M, N, the CTA group and .ws. */
static void d_pos(const Idesc *id, int group, bool ws, int row, int col, int *lane, int *tcol)
{
    int rows = id->m / group;
    if (rows == 128) {
        *lane = row, *tcol = col;
    } else if (rows == 64 && !ws && group == 1) { /* F: 16 rows per slab */
        *lane = 32 * (row / 16) + row % 16, *tcol = col;
    } else if (rows == 64) { /* B, E: the column halves */
        *lane = row + 64 * (col / (id->n / 2)), *tcol = col % (id->n / 2);
    } else { /* G: the column quarters */
        *lane = row + 32 * (col / (id->n / 4)), *tcol = col % (id->n / 4);
    }
}

/* A from tensor memory, by lane (TM_LANES x K, from the address's lane): the
 * row of A that an element of D is computed from is on that element's lane,
 * so the data paths that fold D's columns onto several lane groups (B, E,
 * G) read a separate A from each group; K packed 32 / bits elements per
 * column. Only the lanes the data path uses are read. */
static bool read_tmem_a(SimLaunch *l, SimThread *t, SimCta *c, const Idesc *id, int group,
                        bool ws, uint32_t taddr, double *A, TxSpan at)
{
    int rows = id->m / group, per = 32 / id->a.bits, tcol0 = (int)(taddr & 0xffff);
    bool seen[TM_LANES] = {false};
    for (int r = 0; r < rows; r++)
        for (int n = 0; n < id->n; n++) {
            int lane, tcol;
            d_pos(id, group, ws, r, n, &lane, &tcol);
            if (seen[lane])
                continue;
            seen[lane] = true;
            for (int k = 0; k < id->k; k++) {
                uint32_t v;
                if (!tm_read(l, t, c, lane + (int)(taddr >> 16), tcol0 + k / per, &v, false, at))
                    return false;
                uint64_t bits = v >> (id->a.bits * (k % per)) & ((1ull << id->a.bits) - 1);
                A[lane * id->k + k] = sim_from_bits(id->a, bits).f;
            }
        }
    return true;
}

/* One CTA's part of the product: its rows of A (A: rows x K, or from
 * tensor memory TM_LANES x K by lane) times all of B (N x K) into its D. */
static void mma_cta(SimLaunch *l, SimThread *t, SimCta *c, const Idesc *id, int group, bool ws,
                    bool ts, uint32_t dtaddr, bool acc, const double *A, const double *B,
                    TxSpan at)
{
    int rows = id->m / group;
    for (int r = 0; r < rows && !sim_failed(l); r++)
        for (int n = 0; n < id->n && !sim_failed(l); n++) {
            int lane, tcol;
            d_pos(id, group, ws, r, n, &lane, &tcol);
            const double *a = A + (ts ? lane : r) * id->k;
            lane += (int)(dtaddr >> 16), tcol += (int)(dtaddr & 0xffff);
            double sum = 0;
            if (acc) {
                SimTmem *m = cell(l, t, c, lane, tcol, at);
                if (!m)
                    return;
                if (m->st[lane * TM_COLS + tcol] == TM_EMPTY) {
                    sim_fail(l, t, at, "tcgen05.mma accumulates onto tensor memory no one wrote "
                             "(lane %d, column %d)", lane, tcol);
                    return;
                }
                sum = sim_from_bits(IR_FLOAT32, m->v[lane * TM_COLS + tcol]).f;
            }
            for (int k = 0; k < id->k; k++)
                sum += a[k] * B[n * id->k + k];
            uint32_t bits = (uint32_t)sim_to_bits(IR_FLOAT32, (SimVal){.f = sum});
            tm_write(l, t, c, lane, tcol, bits, TM_PENDING, at);
        }
}

/* The value of a scale-factor byte: e8m0 2^(b - 127) (0xff NaN), or ue4m3. */
static double sf_value(const Idesc *id, uint32_t b)
{
    if (id->sf_e8m0)
        return b == 0xff ? NAN : ldexp(1.0, (int)b - 127);
    return sim_from_bits((IrDType){IR_DT_F8E4M3FN, 8, 1}, b & 0x7f).f;
}

/* The factors per row of one MMA (the scale_vec), checked against the kind,
 * the factor format and the sf_ids; 0 after a failure. */
static int scale_vec(SimLaunch *l, SimThread *t, const SimPtx *p, const Idesc *id, TxSpan at)
{
    const char *kind = sim_ptx_slot(p, "kind"), *vec = sim_ptx_slot(p, "scale_vec");
    int n = !strcmp(vec, "scale_vec::4X") ? 4 : !strcmp(vec, "scale_vec::2X") ? 2 : 1;
    bool ok = !strcmp(kind, "kind::mxf8f6f4") ? n == 1 && id->sf_e8m0
              : !strcmp(kind, "kind::mxf4") ? n == 2 && id->sf_e8m0
              : (n == 2 && id->sf_e8m0) || (n == 4 && !id->sf_e8m0);
    if (!ok || id->sf_a + n > 4 || id->sf_b + n > 4) {
        sim_fail(l, t, at, "tcgen05.mma.%s.block_scale.%s: %s scale factors with sf_id A %d, "
                 "B %d are not a form of the instruction", kind + 6, vec,
                 id->sf_e8m0 ? "e8m0" : "e4m3", id->sf_a, id->sf_b);
        return 0;
    }
    return n;
}

/* Rows x K values times their scale factors: row r's at lane r (mod 128) and
 * column r / 32 from taddr, in bytes sf_id .. sf_id + nsf - 1, each factor
 * covering K / nsf consecutive elements. */
static bool apply_scale(SimLaunch *l, SimThread *t, SimCta *c, const Idesc *id, int nsf,
                        int sf_id, uint32_t taddr, int rows, double *x, TxSpan at)
{
    int per = id->k / nsf;
    for (int r = 0; r < rows; r++) {
        uint32_t v;
        if (!tm_read(l, t, c, (int)(taddr >> 16) + r % 128, (int)(taddr & 0xffff) + r / 32, &v,
                     false, at))
            return false;
        for (int k = 0; k < id->k; k++)
            x[r * id->k + k] *= sf_value(id, v >> (8 * (sf_id + k / per)) & 0xff);
    }
    return true;
}

static void mma(SimLaunch *l, SimThread *t, const SimPtx *p, TxSpan at)
{
    bool scaled = *sim_ptx_slot(p, "block_scale") != 0;
    bool ws = *sim_ptx_slot(p, "ws") != 0, ts = sim_ptx_operand(p, "a_tmem") != NULL;
    int group = !strcmp(sim_ptx_slot(p, "cta_group"), "cta_group::2") ? 2 : 1;
    Idesc id;
    if (!decode_idesc(l, t, p, (uint32_t)sim_ptx_value(l, t, p, "idesc", 0), ws, group, &id, at))
        return;
    if (group == 2 && (l->cta->rank % 2 || !peer_of(l, l->cta))) {
        sim_fail(l, t, at, "tcgen05.mma.cta_group::2 issued by CTA rank %d, which does not lead "
                 "a pair of its cluster", l->cta->rank);
        return;
    }
    int nsf = scaled ? scale_vec(l, t, p, &id, at) : 0;
    if (scaled && !nsf)
        return;
    SimSmemOperand oa, ob;
    if ((!ts && !decode_desc(l, t, (uint64_t)sim_ptx_value(l, t, p, "a_desc", 0), id.mn_a, &oa,
                             at)) ||
        !decode_desc(l, t, (uint64_t)sim_ptx_value(l, t, p, "b_desc", 0), id.mn_b, &ob, at))
        return;
    int rows = id.m / group, nb = id.n / group, na = (ts ? TM_LANES : rows) * id.k;
    double *A = calloc((size_t)na, sizeof *A), *B = malloc(sizeof *B * (size_t)(id.n * id.k));
    if (!A || !B)
        sim_fail(l, t, at, "out of memory");
    /* B: each CTA of the group holds nb of its N rows at the same offset, and
     * (block scaled) their factors at the same tensor-memory address */
    for (int g = 0; g < group && !sim_failed(l); g++) {
        SimCta *saved = l->cta, *c = g ? peer_of(l, saved) : saved;
        l->cta = c;
        l->proxy_read = "tcgen05.mma";
        bool read = sim_read_smem_operand(l, t, &ob, id.b, nb, id.k, B + g * nb * id.k, NULL, at);
        l->proxy_read = NULL;
        if (read && scaled)
            apply_scale(l, t, c, &id, nsf, id.sf_b, (uint32_t)sim_ptx_value(l, t, p, "sfb_tmem", 0),
                        nb, B + g * nb * id.k, at);
        l->cta = saved;
    }
    bool acc = sim_ptx_value(l, t, p, "enable_input_d", 0) != 0;
    uint32_t dt = (uint32_t)sim_ptx_value(l, t, p, "d_tmem", 0);
    for (int g = 0; g < group && !sim_failed(l); g++) {
        SimCta *saved = l->cta, *c = g ? peer_of(l, saved) : saved;
        l->cta = c;
        if (ts)
            read_tmem_a(l, t, c, &id, group, ws, (uint32_t)sim_ptx_value(l, t, p, "a_tmem", 0),
                        A, at);
        else {
            l->proxy_read = "tcgen05.mma";
            sim_read_smem_operand(l, t, &oa, id.a, rows, id.k, A, NULL, at);
            l->proxy_read = NULL;
        }
        for (int i = 0; i < na && !sim_failed(l); i++)
            A[i] = (id.neg_a ? -1 : 1) * (id.a.bits == 32 ? sim_tf32_value(A[i]) : A[i]);
        if (g == 0)
            for (int i = 0; i < id.n * id.k && !sim_failed(l); i++)
                B[i] = (id.neg_b ? -1 : 1) * (id.b.bits == 32 ? sim_tf32_value(B[i]) : B[i]);
        if (scaled && !sim_failed(l)) /* each CTA's rows of A by its own factors */
            apply_scale(l, t, c, &id, nsf, id.sf_a,
                        (uint32_t)sim_ptx_value(l, t, p, "sfa_tmem", 0), rows, A, at);
        if (!sim_failed(l))
            mma_cta(l, t, c, &id, group, ws, ts, dt, acc, A, B, at);
        l->cta = saved;
    }
    free(A);
    free(B);
}

/* ---------------------------------------------------------------- commit, cp */

static void settle(SimCta *c)
{
    if (!c || !c->tmem || !c->tmem->pending)
        return;
    for (int i = 0; i < TM_LANES * TM_COLS; i++)
        if (c->tmem->st[i] == TM_PENDING)
            c->tmem->st[i] = TM_READY;
    c->tmem->pending = false;
}

static void commit(SimLaunch *l, SimThread *t, const SimPtx *p, TxSpan at)
{
    settle(l->cta);
    if (!strcmp(sim_ptx_slot(p, "cta_group"), "cta_group::2"))
        settle(peer_of(l, l->cta));
    uint64_t bar = sim_ptx_address(l, t, p, sim_ptx_operand(p, "mbar"));
    if (!sim_ptx_operand(p, "mask")) {
        sim_mbarrier_arrive(l, t, bar, 1, 0, at);
        return;
    }
    uint32_t mask = (uint32_t)sim_ptx_value(l, t, p, "mask", 0);
    int rank;
    uint64_t off = sim_cluster_offset(l, bar, &rank);
    for (int r = 0; r < l->nctas && !sim_failed(l); r++)
        if (mask >> r & 1)
            sim_mbarrier_arrive(l, t, (uint64_t)(uintptr_t)l->ctas[r].smem + off, 1, 0, at);
}

/* The lanes (up to 4) that row r of a tcgen05.cp shape goes to. */
static int cp_lanes(const char *shape, const char *mc, int r, int lane[4])
{
    if (!strcmp(shape, "4x256b"))
        return lane[0] = 32 * r, 1;
    if (!strcmp(mc, "warpx4")) {
        for (int k = 0; k < 4; k++)
            lane[k] = r + 32 * k;
        return 4;
    }
    if (!strcmp(mc, "warpx2::02_13"))
        return lane[0] = r, lane[1] = r + 64, 2;
    if (!strcmp(mc, "warpx2::01_23")) {
        int base = r < 32 ? r : r + 32;
        return lane[0] = base, lane[1] = base + 32, 2;
    }
    return lane[0] = r, 1;
}

/* .b8x16 decompression of 16 bytes in place: 16 values of `bits` bits
 * packed from bit 0 (the rest padding) to a byte each, the value's top bit
 * at bit 5 (fp4 two bits up). */
static void decompress(double *unit, int bits)
{
    uint8_t in[16];
    for (int b = 0; b < 16; b++)
        in[b] = (uint8_t)unit[b];
    for (int i = 0; i < 16; i++) {
        int bit = i * bits;
        unsigned v = (unsigned)(in[bit / 8] | (bit / 8 + 1 < 16 ? in[bit / 8 + 1] << 8 : 0));
        unit[i] = (double)((v >> bit % 8 & ((1u << bits) - 1)) << (6 - bits));
    }
}

/* The copy of one CTA: the rows the descriptor names in its shared memory
 * into the lanes of its tensor memory. */
static void cp_cta(SimLaunch *l, SimThread *t, const SimPtx *p, const SimSmemOperand *o,
                   SimCta *c, TxSpan at)
{
    const char *shape = sim_ptx_slot(p, "shape"), *mc = sim_ptx_slot(p, "multicast");
    int rows = atoi(shape), bytes = strstr(shape, "256b") ? 32 : 16;
    double *src = malloc(sizeof *src * (size_t)(rows * bytes));
    SimCta *saved = l->cta;
    l->cta = c;
    l->proxy_read = "tcgen05.cp";
    bool ok = src && sim_read_smem_operand(l, t, o, IR_UINT8, rows, bytes, src, NULL, at);
    l->proxy_read = NULL;
    l->cta = saved;
    uint32_t taddr = (uint32_t)sim_ptx_value(l, t, p, "taddr", 0);
    const char *fmt = sim_ptx_slot(p, "src_fmt");
    if (ok && *fmt)
        for (int u = 0; u < rows * bytes / 16; u++)
            decompress(src + 16 * u, !strcmp(fmt, "b6x16_p32") ? 6 : 4);
    for (int r = 0; ok && r < rows && !sim_failed(l); r++) {
        int lane[4], n = cp_lanes(shape, mc, r, lane);
        for (int w = 0; w < bytes / 4; w++) {
            uint32_t v = 0;
            for (int b = 0; b < 4; b++)
                v |= (uint32_t)src[r * bytes + 4 * w + b] << (8 * b);
            for (int k = 0; k < n; k++)
                tm_write(l, t, c, (int)(taddr >> 16) + lane[k], (int)(taddr & 0xffff) + w, v,
                         TM_READY, at);
        }
    }
    free(src);
}

/* tcgen05.cp; with cta_group::2, issued by the even CTA of a pair, each CTA
 * copies from its own shared memory (the same descriptor) into its own
 * tensor memory. */
static void cp(SimLaunch *l, SimThread *t, const SimPtx *p, TxSpan at)
{
    bool pair = !strcmp(sim_ptx_slot(p, "cta_group"), "cta_group::2");
    if (!*sim_ptx_slot(p, "dst_fmt") != !*sim_ptx_slot(p, "src_fmt")) {
        sim_fail(l, t, at, "tcgen05.cp names .dst_fmt and .src_fmt together");
        return;
    }
    if (pair && (l->cta->rank % 2 || !peer_of(l, l->cta))) {
        sim_fail(l, t, at, "tcgen05.cp.cta_group::2 issued by CTA rank %d, which does not lead "
                 "a pair of its cluster", l->cta->rank);
        return;
    }
    SimSmemOperand o;
    if (!decode_desc(l, t, (uint64_t)sim_ptx_value(l, t, p, "s_desc", 0), false, &o, at))
        return;
    cp_cta(l, t, p, &o, l->cta, at);
    if (pair && !sim_failed(l))
        cp_cta(l, t, p, &o, peer_of(l, l->cta), at);
}

/* ---------------------------------------------------------------- clusterlaunchcontrol */

static void try_cancel(SimLaunch *l, SimThread *t, const SimPtx *p, TxSpan at)
{
    uint64_t dst = sim_ptx_address(l, t, p, sim_ptx_operand(p, "addr"));
    uint64_t bar = sim_ptx_address(l, t, p, sim_ptx_operand(p, "mbar"));
    bool all = *sim_ptx_slot(p, "multicast") != 0;
    int rank;
    uint64_t doff = sim_cluster_offset(l, dst, &rank), boff = sim_cluster_offset(l, bar, &rank);
    for (int r = 0; r < l->nctas && !sim_failed(l); r++) {
        if (!all && &l->ctas[r] != l->cta)
            continue;
        uint64_t base = (uint64_t)(uintptr_t)l->ctas[r].smem;
        for (int w = 0; w < 4 && !sim_failed(l); w++)
            sim_store(l, t, base + doff + 4 * (uint64_t)w, IR_UINT32, (SimVal){.i = 0}, at);
        sim_mbarrier_arrive(l, t, base + boff, 0, -16, at); /* t's clocks, 16 bytes complete */
    }
}

static void query_cancel(SimLaunch *l, SimThread *t, const SimPtx *p)
{
    const IrPtxOperand *o = sim_ptx_operand(p, sim_ptx_operand(p, "p") ? "p" : "d");
    if (o->rw == 'w')
        sim_assign(l, t, p->c->args[o->first_arg], (SimVal){.i = 0});
}

bool sim_tcgen05(SimLaunch *l, SimThread *t, const IrExpr *e, const SimPtx *p)
{
    TxSpan at = e->span;
    switch (p->r.entry) {
    case IR_PTX_tcgen05_alloc: warp_op(l, t, p, "alloc", at); break;
    case IR_PTX_tcgen05_dealloc: warp_op(l, t, p, "dealloc", at); break;
    case IR_PTX_tcgen05_relinquish_alloc_permit: warp_op(l, t, p, "relinquish", at); break;
    case IR_PTX_tcgen05_ld: ldst(l, t, p, true, at); break;
    case IR_PTX_tcgen05_st: ldst(l, t, p, false, at); break;
    case IR_PTX_tcgen05_mma_ss: case IR_PTX_tcgen05_mma_ts: case IR_PTX_tcgen05_mma_ws_ss:
    case IR_PTX_tcgen05_mma_ws_ts: case IR_PTX_tcgen05_mma_block_scale_ss:
    case IR_PTX_tcgen05_mma_block_scale_ts:
        mma(l, t, p, at);
        break;
    case IR_PTX_tcgen05_commit: case IR_PTX_tcgen05_commit_multicast: commit(l, t, p, at); break;
    case IR_PTX_tcgen05_cp: cp(l, t, p, at); break;
    case IR_PTX_tcgen05_wait: case IR_PTX_tcgen05_fence: break;
    case IR_PTX_clusterlaunchcontrol_try_cancel: try_cancel(l, t, p, at); break;
    case IR_PTX_clusterlaunchcontrol_query_cancel_is_canceled:
    case IR_PTX_clusterlaunchcontrol_query_cancel_get_first_ctaid:
        query_cancel(l, t, p);
        break;
    default: return false;
    }
    return true;
}
