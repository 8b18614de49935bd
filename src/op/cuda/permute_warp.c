/* permute_layout, variant "warp_xor_swizzle": one warp moves a shared or
 * global region from src's layout into dst's (in place when src is dst or
 * left out: the same logical elements, another arrangement in memory), staged
 * through registers. The V = 32 * P elements of the region are numbered in
 * logical row-major order; at step r lane l takes element l + 32 * j with
 * j = r ^ ((l >> (5 - k)) & (2^k - 1)): it reads its P elements from src into
 * registers, the warp synchronizes (every read before any write, so in place
 * is safe), writes the same elements to dst, and synchronizes again. k is
 * chosen by simulating the 32 banks of both phases over the regions' layouts
 * (fewest conflicts, then the smallest k); the lowering checks exhaustively
 * that the steps give every element to exactly one lane and step, and that
 * dst's layout puts no two elements at one address. */
#include <stdlib.h>
#include <string.h>

#include "../../arith/arith.h"
#include "../partition.h"

#define PERM_MAX_PER_LANE 32

typedef struct Perm {
    OpRegion dst, src;
    int nd;
    int64_t ext[OP_MAX_DIMS]; /* the non-unit extents, outermost first */
    int64_t p;                /* elements per lane */
} Perm;

static const char *read_call(OpCtx *c, Perm *m)
{
    const char *why;
    if ((why = op_region(c, 0, &m->dst)))
        return why;
    if (op_nargs(c) < 2)
        m->src = m->dst;
    else if ((why = op_region(c, 1, &m->src)))
        return why;
    const OpRegion *side[2] = {&m->dst, &m->src};
    for (int i = 0; i < 2; i++)
        if (side[i]->mem != OP_MEM_SHARED && side[i]->mem != OP_MEM_GLOBAL)
            return op_reason(c, "'%s' is in %s memory, not shared or global (a register tile "
                                "changes layout with copy)", side[i]->buffer->u.var.name,
                             op_mem_name(side[i]->mem));
    if (!ir_dtype_eq(m->dst.dtype, m->src.dtype))
        return op_reason(c, "the dtypes differ");
    if (!op_regions_match(&m->dst, &m->src))
        return op_reason(c, "the regions' non-unit extents differ");
    int dims[OP_MAX_DIMS];
    m->nd = op_region_dims(&m->dst, m->ext, dims);
    int64_t v = op_region_size(&m->dst);
    m->p = v / 32;
    if (v % 32 || m->p > PERM_MAX_PER_LANE || (m->p & (m->p - 1)))
        return op_reason(c, "the region has %lld elements; the warp needs 32 * P with P a power "
                            "of two up to %d", (long long)v, PERM_MAX_PER_LANE);
    return NULL;
}

/* The layout without its symbolic offsets (a start at a loop variable): the
 * addresses it gives are the region's up to a shift, which moves no two
 * elements onto one address (a swizzle is a bijection of the addresses);
 * the banks are simulated as if the shift were 0. */
static IrLayout *constant_part(LyCtx *lc, const IrLayout *l)
{
    if (l->kind == IR_LAYOUT_COMPOSE) {
        IrLayout *t = constant_part(lc, l->tile);
        return t ? ly_compose(lc, l->per_element, l->swizzle_len, l->atom_len, l->swizzle_inner, t)
                 : NULL;
    }
    IrAxisOffset *off = TX_NEW_ARRAY(lc->arena, IrAxisOffset, l->noffset + 1);
    int n = 0;
    for (int i = 0; i < l->noffset; i++)
        if (ar_const_int(l->offset[i].value, &(int64_t){0}))
            off[n++] = l->offset[i];
    return ly_tile(lc, l->shard, l->nshard, l->replica, l->nreplica, off, n);
}

/* The element offset of every element of r (logical row-major order) under
 * its buffer's layout; NULL, or why not. */
static const char *offsets(OpCtx *c, const OpRegion *r, int64_t *off)
{
    const IrBufferType *bt = ir_buf(r->buffer);
    LyCtx lc = op_ly_ctx(c);
    IrExpr **ext = TX_NEW_ARRAY(c->arena, IrExpr *, r->ndim);
    for (int d = 0; d < r->ndim; d++)
        ext[d] = op_i32(c, r->extent[d]);
    /* the buffer's own layout carries its explicit strides= */
    const IrLayout *l = r->layout && r->layout != bt->layout ? r->layout : op_buffer_layout(c, bt);
    IrLayout *sl = l ? ly_slice(&lc, l, bt->shape, r->start, ext, r->ndim, LY_TARGET_NONE) : NULL;
    sl = sl ? constant_part(&lc, sl) : NULL;
    if (!sl)
        return op_reason(c, "the layout of '%s' does not slice to the region: %s",
                         r->buffer->u.var.name, lc.err);
    int64_t shape[OP_MAX_DIMS];
    for (int d = 0; d < r->ndim; d++)
        shape[d] = r->extent[d];
    int64_t n = op_region_size(r);
    for (int64_t i = 0; i < n; i++) {
        LyCoords co;
        if (!ly_apply_pos(&lc, sl, shape, r->ndim, i, &co) || co.npoints < 1)
            return op_reason(c, "the layout of '%s' is not constant on the region: %s",
                             r->buffer->u.var.name, lc.err ? lc.err : "no coordinates");
        off[i] = 0;
        for (int a = 0; a < co.naxes; a++)
            if (!strcmp(co.axes[a], "m"))
                off[i] = co.vals[a];
    }
    return NULL;
}

/* Lane l's element at step r for XOR bits k. */
static int64_t element(int64_t lane, int64_t r, int k)
{
    int64_t j = r ^ ((lane >> (5 - k)) & ((1 << k) - 1));
    return lane + 32 * j;
}

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The worst bank conflict (distinct 4-byte words on one bank) of any step. */
static int64_t conflicts(const int64_t *off, int64_t p, int bytes, int k)
{
    int64_t worst = 1;
    for (int64_t r = 0; r < p; r++) {
        int64_t words[32 * 4], per_bank[32] = {0};
        int nw = 0;
        for (int64_t lane = 0; lane < 32; lane++) {
            int64_t b0 = off[element(lane, r, k)] * bytes;
            for (int64_t w = b0 / 4; w <= (b0 + bytes - 1) / 4 && nw < 32 * 4; w++)
                words[nw++] = w;
        }
        qsort(words, (size_t)nw, sizeof words[0], by_value);
        for (int i = 0; i < nw; i++) {
            int64_t *n = &per_bank[(words[i] % 32 + 32) % 32];
            if (i == 0 || words[i] != words[i - 1])
                worst = ++*n > worst ? *n : worst;
        }
    }
    return worst;
}

/* Every element to exactly one (lane, step), and dst's addresses distinct. */
static const char *check_exact(OpCtx *c, const Perm *m, const int64_t *doff, int k)
{
    int64_t v = 32 * m->p;
    int *seen = TX_NEW_ARRAY(c->arena, int, v);
    for (int64_t lane = 0; lane < 32; lane++)
        for (int64_t r = 0; r < m->p; r++)
            seen[element(lane, r, k)]++;
    for (int64_t i = 0; i < v; i++) {
        if (seen[i] != 1)
            return op_reason(c, "XOR bits %d do not give every element to one lane", k);
        for (int64_t j = 0; j < i; j++)
            if (doff[j] == doff[i])
                return op_reason(c, "the layout of '%s' puts two elements of the region at one "
                                    "address", m->dst.buffer->u.var.name);
    }
    return NULL;
}

/* The XOR bits: the fewest conflicts over both phases, then the smallest. */
static int choose_k(const Perm *m, const int64_t *soff, const int64_t *doff, int bytes)
{
    int best = 0;
    int64_t best_cost = -1;
    for (int k = 0; (1 << k) <= m->p && k <= 5; k++) {
        int64_t cs = conflicts(soff, m->p, bytes, k), cd = conflicts(doff, m->p, bytes, k);
        int64_t cost = cs > cd ? cs : cd;
        if (best_cost < 0 || cost < best_cost)
            best = k, best_cost = cost;
    }
    return best;
}

static const char *plan(OpCtx *c, Perm *m, int *k)
{
    const char *why = read_call(c, m);
    int bytes = op_dtype_bytes(m->dst.dtype);
    if (why)
        return why;
    if (bytes < 1)
        return op_reason(c, "sub-byte elements are not moved one by one");
    int64_t v = 32 * m->p;
    int64_t *soff = TX_NEW_ARRAY(c->arena, int64_t, v), *doff = TX_NEW_ARRAY(c->arena, int64_t, v);
    if ((why = offsets(c, &m->src, soff)) || (why = offsets(c, &m->dst, doff)))
        return why;
    *k = choose_k(m, soff, doff, bytes);
    return check_exact(c, m, doff, *k);
}

const char *op_permute_warp_accept(OpCtx *c)
{
    Perm m;
    int k;
    const char *why = op_need_scope(c, OP_SCOPE_BIT(IR_SCOPE_WARP));
    return why ? why : plan(c, &m, &k);
}

/* r's full indices at the flat logical index `flat` of the region. */
static IrExpr **index_at(OpCtx *c, const Perm *m, const OpRegion *r, IrExpr *flat)
{
    IrExpr *idx[OP_MAX_DIMS];
    for (int d = m->nd - 1; d >= 0; d--) {
        idx[d] = d ? op_bin(c, IR_E_FLOORMOD, flat, op_i32(c, m->ext[d])) : flat;
        if (d)
            flat = op_bin(c, IR_E_FLOORDIV, flat, op_i32(c, m->ext[d]));
    }
    IrExpr **out = TX_NEW_ARRAY(c->arena, IrExpr *, r->ndim);
    op_region_index(c, r, idx, out);
    return out;
}

/* One phase: for r in unroll(P): regs[r] = src[...] or dst[...] = regs[r]. */
static IrStmt *phase(OpCtx *c, const Perm *m, IrExpr *regs, int k, bool write)
{
    IrExpr *lane = c->axis[LY_AXIS_LANEID], *r = op_var(c, "r", IR_INT32), *j = r;
    if (k) {
        IrExpr *sh[2] = {lane, op_i32(c, 5 - k)};
        IrExpr *hi = k < 5 ? op_call(c, IR_OP_SHIFT_RIGHT, IR_INT32, sh, 2) : lane;
        IrExpr *an[2] = {hi, op_i32(c, (1 << k) - 1)};
        IrExpr *x[2] = {r, op_call(c, IR_OP_BITWISE_AND, IR_INT32, an, 2)};
        j = op_call(c, IR_OP_BITWISE_XOR, IR_INT32, x, 2);
    }
    IrExpr *flat = op_bin(c, IR_E_ADD, lane, op_bin(c, IR_E_MUL, j, op_i32(c, 32)));
    const OpRegion *mem = write ? &m->dst : &m->src;
    IrExpr **idx = index_at(c, m, mem, flat);
    OpSeq s = {0};
    if (write)
        op_store(c, &s, mem->buffer, idx, mem->ndim, op_load(c, regs, &r, 1));
    else
        op_store(c, &s, regs, &r, 1, op_load(c, mem->buffer, idx, mem->ndim));
    return op_for(c, r, m->p, IR_FOR_UNROLLED, op_seq_finish(c, &s));
}

IrStmt *op_permute_warp_lower(OpCtx *c)
{
    Perm m;
    int k = 0;
    plan(c, &m, &k);
    OpSeq out = {0};
    IrExpr *regs = op_alloc_local(c, &out, "regs", m.dst.dtype, m.p);
    op_emit(&out, phase(c, &m, regs, k, false));
    op_eval(c, &out, op_call(c, IR_OP_CUDA_WARP_SYNC, IR_VOID, NULL, 0));
    op_emit(&out, phase(c, &m, regs, k, true));
    op_eval(c, &out, op_call(c, IR_OP_CUDA_WARP_SYNC, IR_VOID, NULL, 0));
    return op_seq_finish(c, &out);
}
