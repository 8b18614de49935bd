/* copy, variant "ldstmatrix": shared memory <-> a register tile of 16-bit
 * elements with ldmatrix (sm_80+) or stmatrix (sm_90a+), m8n8.x1/x2/x4,
 * optionally .trans, as the reference's ldstmatrix.
 *
 * One m8n8 matrix is eight rows of eight elements, each row 16 contiguous,
 * 16-byte aligned bytes of shared memory whose address one lane supplies;
 * lane t's 32-bit register holds row t / 4, columns t % 4 * 2 and + 1 (with
 * .trans: column t / 4 of rows t % 4 * 2 and + 1). The plan is found by
 * evaluating the register tile's layout on every element: each thread's
 * registers, paired into 32-bit words, must each be one matrix fragment (all
 * non-transposed or all transposed) whose rows lie along the shared region's
 * innermost dimension, 8 elements apart from a multiple of 8. Consecutive
 * words of a thread go to one instruction, four at a time where they divide
 * (x4, else x2, x1). The row a lane addresses, per coordinate of the shared
 * region, must be a sum of per-bit terms of the thread's index in the scope
 * and of the instruction's number (what every TileLayout of power-of-two
 * extents gives); those terms become the address expression, applied
 * through the shared buffer's own layout (a swizzle included) by the later
 * passes. Words are read and written through a uint32 view of the
 * registers. A plan that does not exist declines with the reason, and the
 * per-thread "reg" variant copies instead. */
#include <string.h>

#include "../partition.h"

/* The register and shared sides of the call. */
typedef struct Sides {
    OpRegion regs, smem;
    bool load; /* shared -> registers (ldmatrix) */
} Sides;

static const char *sides(OpCtx *c, Sides *s)
{
    OpRegion dst, src;
    const char *why;
    if ((why = op_region(c, 0, &dst)) || (why = op_region(c, 1, &src)))
        return why;
    s->load = dst.mem == OP_MEM_LOCAL;
    s->regs = s->load ? dst : src;
    s->smem = s->load ? src : dst;
    if (s->regs.mem != OP_MEM_LOCAL || s->smem.mem != OP_MEM_SHARED)
        return op_reason(c, "copies registers <-> shared memory; here %s to %s",
                         op_mem_name(src.mem), op_mem_name(dst.mem));
    if (!ir_dtype_eq(dst.dtype, src.dtype))
        return op_reason(c, "the dtypes differ (use cast)");
    char name[32];
    if (dst.dtype.bits != 16 || dst.dtype.lanes != 1)
        return op_reason(c, "moves 16-bit elements; here %s", ir_dtype_str(dst.dtype, name));
    if (!op_regions_match(&dst, &src))
        return op_reason(c, "the regions' non-unit extents differ");
    if (!s->regs.distributed)
        return op_reason(c, "'%s' is not spread over the threads (a layout with thread axes)",
                         s->regs.buffer->u.var.name);
    return NULL;
}

static const char *instruction(bool load, int num, bool trans)
{
    static const char *const ops[2][3][2] = {
        {{"stmatrix.sync.aligned.m8n8.x1.shared.b16", "stmatrix.sync.aligned.m8n8.x1.trans.shared.b16"},
         {"stmatrix.sync.aligned.m8n8.x2.shared.b16", "stmatrix.sync.aligned.m8n8.x2.trans.shared.b16"},
         {"stmatrix.sync.aligned.m8n8.x4.shared.b16", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16"}},
        {{"ldmatrix.sync.aligned.m8n8.x1.shared.b16", "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16"},
         {"ldmatrix.sync.aligned.m8n8.x2.shared.b16", "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16"},
         {"ldmatrix.sync.aligned.m8n8.x4.shared.b16", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"}},
    };
    return ops[load][num == 4 ? 2 : num == 2 ? 1 : 0][trans];
}

const char *op_ldstmatrix_accept(OpCtx *c)
{
    Sides s;
    const char *why = op_need_scope_per(c, OP_ANY_COLLECTIVE, IR_SCOPE_WARP);
    if (why || (why = sides(c, &s)))
        return why;
    return op_need_ptx(c, s.load ? "ldmatrix" : "stmatrix", instruction(s.load, 4, false));
}

/* ---------------------------------------------------------------- the plan */

/* Where each element of the register region lives: elem[t * nregs + j] is
 * the row-major position (over the region's extents) of the j-th register of
 * the region in thread t of the scope; every thread holds the region in the
 * same registers, slots[j] of the tile (slots ascending). A region that starts
 * at a run-time place along one dimension (`R[:, cj * 16:cj * 16 + 16]`) is
 * planned at start 0; it must sit on the same threads wherever it starts (a
 * known multiple of its alignment), in registers `shift` further: a multiple
 * of the start. */
typedef struct Frag {
    int64_t threads, nregs, tile_regs;
    int64_t *elem, *slots;
    IrExpr *shift; /* registers, or NULL for none */
} Frag;

/* Thread t's offset in the scope from one thread-axis value. */
static int64_t axis_unit(int a)
{
    switch (ly_axis_info[a].subscope) {
    case IR_SCOPE_WARP: return 32;
    case IR_SCOPE_WARPGROUP: return 128;
    default: return 1;
    }
}

typedef struct Tile {
    const OpRegion *r;
    int64_t shape[OP_MAX_DIMS];
} Tile;

/* The thread of the scope and the register of the tile's element idx. */
static const char *place_of(OpCtx *c, const Tile *g, const int64_t *idx, int64_t *t,
                            int64_t *slot)
{
    const OpRegion *r = g->r;
    int64_t pos = 0;
    for (int d = 0; d < r->ndim; d++)
        pos = pos * g->shape[d] + idx[d];
    LyCtx lc = op_ly_ctx(c);
    LyCoords co;
    if (!ly_apply_pos(&lc, r->layout, g->shape, r->ndim, pos, &co))
        return op_reason(c, "%s", lc.err);
    if (co.npoints != 1)
        return op_reason(c, "'%s' holds copies of its elements (a replicated layout)",
                         r->buffer->u.var.name);
    IrScope scope = c->call->u.tile.scope;
    *t = *slot = 0;
    for (int k = 0; k < co.naxes; k++) {
        int a = ly_axis_find(co.axes[k]);
        if (a == LY_AXIS_M) {
            *slot += co.vals[k];
            continue;
        }
        if (a < 0 || ly_axis_info[a].kind != LY_THREAD || ly_axis_info[a].scope < (int)scope)
            return op_reason(c, "the layout of '%s' uses axis %s, not registers and threads "
                                "of the %s", r->buffer->u.var.name, co.axes[k],
                             ir_scope_names[scope]);
        *t += co.vals[k] * axis_unit(a);
    }
    return NULL;
}

/* The tile index of region position pos, the region starting at `at`. */
static void tile_index(const OpRegion *r, const int64_t *at, int64_t pos, int64_t *idx)
{
    for (int d = r->ndim - 1; d >= 0; d--) {
        idx[d] = at[d] + pos % r->extent[d];
        pos /= r->extent[d];
    }
}

/* The region's starts: constants, and at most one run-time start (*sym, its
 * known alignment *align), planned at 0. */
static const char *region_starts(OpCtx *c, const OpRegion *r, int64_t *at, int *sym,
                                 int64_t *align)
{
    *sym = -1;
    for (int d = 0; d < r->ndim; d++) {
        if (op_const(r->start[d], &at[d]))
            continue;
        if (*sym >= 0)
            return op_reason(c, "the region of '%s' starts at run-time places along two "
                                "dimensions", r->buffer->u.var.name);
        *sym = d, at[d] = 0;
        *align = op_known_pow2_in(c->multiples, r->start[d]);
    }
    return NULL;
}

/* The registers of the region at start `at`: threads and slots. */
static const char *places(OpCtx *c, const Tile *g, const int64_t *at, int64_t n, int64_t *thr,
                          int64_t *slot)
{
    for (int64_t pos = 0; pos < n; pos++) {
        int64_t idx[OP_MAX_DIMS];
        tile_index(g->r, at, pos, idx);
        const char *why = place_of(c, g, idx, &thr[pos], &slot[pos]);
        if (why)
            return why;
    }
    return NULL;
}

/* Every run-time start (a multiple of align in bounds) puts the region on
 * the same threads, delta per `align` further in the registers. */
static const char *check_shifts(OpCtx *c, const Tile *g, int64_t *at, int sym, int64_t align,
                                int64_t n, const int64_t *thr, const int64_t *slot,
                                int64_t *delta)
{
    const OpRegion *r = g->r;
    int64_t room = g->shape[sym] - r->extent[sym];
    if (room / align > 256)
        return op_reason(c, "the region of '%s' may start at too many places", r->buffer->u.var.name);
    int64_t *t2 = TX_NEW_ARRAY(c->arena, int64_t, n), *s2 = TX_NEW_ARRAY(c->arena, int64_t, n);
    *delta = 0;
    for (int64_t k = 1; k * align <= room; k++) {
        at[sym] = k * align;
        const char *why = places(c, g, at, n, t2, s2);
        if (why)
            return why;
        if (k == 1)
            *delta = s2[0] - slot[0];
        for (int64_t pos = 0; pos < n; pos++)
            if (t2[pos] != thr[pos] || s2[pos] - slot[pos] != k * *delta)
                return op_reason(c, "the region of '%s' starts at a run-time place that moves "
                                    "its elements to other threads or registers unevenly",
                                 r->buffer->u.var.name);
    }
    at[sym] = 0;
    return NULL;
}

static const char *frag_of(OpCtx *c, const OpRegion *r, Frag *f)
{
    const IrBufferType *bt = ir_buf(r->buffer);
    Tile g = {r, {0}};
    int64_t n = op_region_size(r), total = 1, at[OP_MAX_DIMS], align = 1, delta = 0;
    int sym;
    for (int d = 0; d < r->ndim; d++) {
        if (!op_const(bt->shape[d], &g.shape[d]))
            return op_reason(c, "the shape of '%s' is not constant", r->buffer->u.var.name);
        total *= g.shape[d];
    }
    if (r->layout->kind != IR_LAYOUT_TILE)
        return op_reason(c, "the layout of '%s' is swizzled", r->buffer->u.var.name);
    const char *why = region_starts(c, r, at, &sym, &align);
    if (why)
        return why;
    f->threads = op_scope_threads(c);
    if (n % f->threads || total % f->threads)
        return op_reason(c, "the %lld elements of '%s' do not split evenly over %lld threads",
                         (long long)(n % f->threads ? n : total), r->buffer->u.var.name,
                         (long long)f->threads);
    f->nregs = n / f->threads, f->tile_regs = total / f->threads;
    int64_t *thr = TX_NEW_ARRAY(c->arena, int64_t, n), *slot = TX_NEW_ARRAY(c->arena, int64_t, n);
    if ((why = places(c, &g, at, n, thr, slot)) ||
        (sym >= 0 && (why = check_shifts(c, &g, at, sym, align, n, thr, slot, &delta))))
        return why;
    /* thread 0's registers, in order, are every thread's */
    int64_t *index = TX_NEW_ARRAY(c->arena, int64_t, f->tile_regs);
    for (int64_t i = 0; i < f->tile_regs; i++)
        index[i] = -1;
    for (int64_t pos = 0; pos < n; pos++)
        if (thr[pos] == 0 && slot[pos] < f->tile_regs)
            index[slot[pos]] = 0;
    f->slots = TX_NEW_ARRAY(c->arena, int64_t, f->nregs);
    int64_t j = 0;
    for (int64_t i = 0; i < f->tile_regs; i++)
        if (index[i] >= 0 && j < f->nregs)
            f->slots[j] = i, index[i] = j++;
    f->elem = TX_NEW_ARRAY(c->arena, int64_t, n);
    for (int64_t i = 0; i < n; i++)
        f->elem[i] = -1;
    for (int64_t pos = 0; pos < n; pos++) {
        int64_t t = thr[pos], k = slot[pos] < f->tile_regs ? index[slot[pos]] : -1;
        if (j != f->nregs || t >= f->threads || k < 0 || f->elem[t * f->nregs + k] >= 0)
            return op_reason(c, "the layout of '%s' does not give each thread of the %s %lld "
                                "registers of its own, the same in every thread",
                             r->buffer->u.var.name, ir_scope_names[c->call->u.tile.scope],
                             (long long)f->nregs);
        f->elem[t * f->nregs + k] = pos;
    }
    f->shift = sym >= 0 && delta ? op_bin(c, IR_E_MUL, op_bin(c, IR_E_FLOORDIV, r->start[sym],
                                                               op_i32(c, align)),
                                          op_i32(c, delta))
                                 : NULL;
    if (f->shift && delta % 2)
        return op_reason(c, "the region of '%s' moves by an odd number of 16-bit registers",
                         r->buffer->u.var.name);
    return NULL;
}

/* The tile's 32-bit word holding the region's registers 2q and 2q + 1. */
static IrExpr *word_of(OpCtx *c, const Frag *f, int64_t q)
{
    IrExpr *w = op_i32(c, f->slots[2 * q] / 2);
    return f->shift ? op_bin(c, IR_E_ADD, w, op_bin(c, IR_E_FLOORDIV, f->shift, op_i32(c, 2))) : w;
}

/* rows[(t / 32 * words + q) * 8 + r]: the position of the first element of
 * row r of the matrix that word q of the threads of warp t / 32 holds. */
typedef struct Plan {
    bool trans;
    int num;
    int64_t words, warps, *rows;
} Plan;

static bool set_row(int64_t *row, int64_t at)
{
    if (at % 8 || (*row >= 0 && *row != at))
        return false;
    *row = at;
    return true;
}

/* Whether every word is one matrix fragment, transposed or not. */
static bool fit_rows(const Frag *f, Plan *p, bool trans)
{
    p->trans = trans;
    int64_t n = p->warps * p->words * 8;
    for (int64_t i = 0; i < n; i++)
        p->rows[i] = -1;
    for (int64_t t = 0; t < f->threads; t++) {
        int64_t lane = t % 32;
        for (int64_t q = 0; q < p->words; q++) {
            int64_t e0 = f->elem[t * f->nregs + 2 * q], e1 = f->elem[t * f->nregs + 2 * q + 1];
            int64_t *rows = &p->rows[(t / 32 * p->words + q) * 8];
            if (!trans) {
                if (e1 != e0 + 1 || !set_row(&rows[lane / 4], e0 - lane % 4 * 2))
                    return false;
            } else if (!set_row(&rows[lane % 4 * 2], e0 - lane / 4) ||
                       !set_row(&rows[lane % 4 * 2 + 1], e1 - lane / 4)) {
                return false;
            }
        }
    }
    return true;
}

/* ---------------------------------------------------------------- addresses */

/* The deltas of v[x] = v[0] + sum over the set bits b of x of delta[b],
 * read at the powers of two below n (x steps `stride` apart in v). */
static void bit_deltas(const int64_t *v, int64_t stride, int bits, int64_t *delta)
{
    for (int b = 0; b < bits; b++)
        delta[b] = v[((int64_t)1 << b) * stride] - v[0];
}

static int bits_of(int64_t n)
{
    int b = 0;
    while (((int64_t)1 << b) < n)
        b++;
    return b;
}

/* The sum of the per-bit terms of x (< n) as an expression: runs of bits
 * whose deltas double become one `x // 2^lo % 2^len * delta`. */
static IrExpr *bit_terms(OpCtx *c, IrExpr *x, int64_t n, int bits, const int64_t *delta)
{
    IrExpr *sum = op_i32(c, 0);
    for (int lo = 0; lo < bits;) {
        if (!delta[lo]) {
            lo++;
            continue;
        }
        int hi = lo;
        while (hi + 1 < bits && delta[hi + 1] == 2 * delta[hi])
            hi++;
        IrExpr *digit = lo ? op_bin(c, IR_E_FLOORDIV, x, op_i32(c, (int64_t)1 << lo)) : x;
        if (((int64_t)1 << (hi + 1)) < n)
            digit = op_bin(c, IR_E_FLOORMOD, digit, op_i32(c, (int64_t)1 << (hi - lo + 1)));
        sum = op_bin(c, IR_E_ADD, sum, op_bin(c, IR_E_MUL, digit, op_i32(c, delta[lo])));
        lo = hi + 1;
    }
    return sum;
}

/* The shared region's coordinate d (over its non-unit extents) of the row
 * that thread t addresses in instruction i. */
static int64_t lane_coord(const Plan *p, int64_t i, int64_t t, const int64_t *ext, int k, int d)
{
    int64_t lane = t % 32;
    int64_t q = i * p->num + lane / 8 % p->num;
    int64_t pos = p->rows[(t / 32 * p->words + q) * 8 + lane % 8];
    for (int j = k - 1; j > d; j--)
        pos /= ext[j];
    return pos % ext[d];
}

/* The address of the row each thread supplies in instruction `ins` (a loop
 * variable, or NULL for the only one): the shared region's indices. */
static const char *row_index(OpCtx *c, const Plan *p, const Frag *f, const OpRegion *smem,
                             IrExpr *ins, int64_t count, IrExpr **out)
{
    int64_t ext[OP_MAX_DIMS];
    int k = op_region_dims(smem, ext, NULL);
    int tb = bits_of(f->threads), ib = bits_of(count);
    int64_t *v = TX_NEW_ARRAY(c->arena, int64_t, count * f->threads);
    int64_t dt[32], di[32];
    IrExpr *idx[OP_MAX_DIMS];
    for (int d = 0; d < k; d++) {
        for (int64_t i = 0; i < count; i++)
            for (int64_t t = 0; t < f->threads; t++)
                v[i * f->threads + t] = lane_coord(p, i, t, ext, k, d);
        bit_deltas(v, 1, tb, dt);
        bit_deltas(v, f->threads, ib, di);
        bool ok = true;
        for (int64_t i = 0; ok && i < count; i++)
            for (int64_t t = 0; ok && t < f->threads; t++) {
                int64_t want = v[0];
                for (int b = 0; b < tb; b++)
                    want += (t >> b & 1) * dt[b];
                for (int b = 0; b < ib; b++)
                    want += (i >> b & 1) * di[b];
                ok = v[i * f->threads + t] == want;
            }
        if (!ok)
            return op_reason(c, "the rows the threads address are not a sum of per-bit terms of "
                                "the thread index");
        idx[d] = op_bin(c, IR_E_ADD, op_i32(c, v[0]),
                        bit_terms(c, op_scope_index(c), f->threads, tb, dt));
        if (ins)
            idx[d] = op_bin(c, IR_E_ADD, idx[d], bit_terms(c, ins, count, ib, di));
    }
    op_region_index(c, smem, idx, out);
    return NULL;
}

/* ---------------------------------------------------------------- lowering */

static const char *plan(OpCtx *c, const Sides *s, const Frag *f, Plan *p)
{
    int64_t ext[OP_MAX_DIMS];
    int k = op_region_dims(&s->smem, ext, NULL);
    if (k == 0 || ext[k - 1] % 8 || op_region_vector(c, &s->smem, 8, false) < 8)
        return op_reason(c, "the rows of '%s' are not 8 contiguous, 16-byte aligned elements "
                            "along its innermost dimension", s->smem.buffer->u.var.name);
    bool words = f->nregs % 2 == 0;
    for (int64_t q = 0; words && 2 * q < f->nregs; q++)
        words = f->slots[2 * q] % 2 == 0 && f->slots[2 * q + 1] == f->slots[2 * q] + 1;
    if (!words || f->threads % 32)
        return op_reason(c, "each thread must hold whole 32-bit words of '%s'",
                         s->regs.buffer->u.var.name);
    p->words = f->nregs / 2;
    p->warps = f->threads / 32;
    p->num = p->words % 4 == 0 ? 4 : p->words % 2 == 0 ? 2 : 1;
    p->rows = TX_NEW_ARRAY(c->arena, int64_t, p->warps * p->words * 8);
    if (!fit_rows(f, p, false) && !fit_rows(f, p, true))
        return op_reason(c, "the layout of '%s' is not the ldmatrix fragment layout over rows of "
                            "'%s' (each 32-bit register one row's pair, or with .trans one "
                            "column's)", s->regs.buffer->u.var.name, s->smem.buffer->u.var.name);
    return NULL;
}

/* Instruction `ins` of count: a loop variable over them, or NULL for the
 * only one; for a part of the tile, its number (a constant). */
static const char *emit_instruction(OpCtx *c, const Sides *s, const Frag *f, const Plan *p,
                                    IrExpr *words, IrExpr *ins, int64_t count, OpSeq *out)
{
    IrExpr **sidx = TX_NEW_ARRAY(c->arena, IrExpr *, s->smem.ndim);
    const char *why = row_index(c, p, f, &s->smem, count > 1 ? ins : NULL, count, sidx);
    if (why)
        return why;
    IrExpr *args[5];
    int a = s->load ? 0 : 1;
    int64_t i = 0;
    bool part = f->shift || f->nregs != f->tile_regs;
    if (part)
        op_const(ins, &i);
    for (int j = 0; j < p->num; j++) {
        IrExpr *w = op_i32(c, j);
        if (part)
            w = word_of(c, f, i * p->num + j);
        else if (ins && count > 1)
            w = op_bin(c, IR_E_ADD, op_bin(c, IR_E_MUL, ins, op_i32(c, p->num)), w);
        args[a + j] = op_load(c, words, &w, 1);
    }
    args[s->load ? p->num : 0] = op_address_of(c, s->smem.buffer, sidx, s->smem.ndim);
    op_eval(c, out, op_ptx(c, instruction(s->load, p->num, p->trans), args, p->num + 1));
    return NULL;
}

IrStmt *op_ldstmatrix_lower(OpCtx *c)
{
    Sides s;
    Frag f;
    Plan p;
    sides(c, &s);
    const char *why = frag_of(c, &s.regs, &f);
    if (why || (why = plan(c, &s, &f, &p)))
        return op_decline(c, "%s", why);
    int64_t count = p.words / p.num;
    OpSeq out = {0};
    IrExpr *words = op_flat_view(c, &out, s.regs.buffer, IR_UINT32, f.tile_regs / 2);
    if (f.shift || f.nregs != f.tile_regs) { /* a part of the tile: each instruction's words */
        for (int64_t i = 0; i < count; i++)
            if ((why = emit_instruction(c, &s, &f, &p, words, op_i32(c, i), count, &out)))
                return op_decline(c, "%s", why);
        return op_seq_finish(c, &out);
    }
    IrExpr *ins = count > 1 ? op_var(c, "i", IR_INT32) : NULL;
    OpSeq body = {0};
    if ((why = emit_instruction(c, &s, &f, &p, words, ins, count, &body)))
        return op_decline(c, "%s", why);
    IrStmt *st = op_seq_finish(c, &body);
    op_emit(&out, ins ? op_for(c, ins, count, IR_FOR_UNROLLED, st) : st);
    return op_seq_finish(c, &out);
}
