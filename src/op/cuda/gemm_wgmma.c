/* gemm_async, variant "wgmma": C (+)= A @ B^T for one warpgroup with
 * wgmma.mma_async (sm_90a), A and B in shared memory (ss), or A in the
 * warpgroup's registers (rs, 16-bit types).
 *
 * Operands as the reference's gemm_async: A is [M, K] ([K, M] with
 * transA), B is [N, K] ([K, N] with transB), C an M x N register tile of the
 * warpgroup, M a multiple of 64. Which dimension of a shared operand is
 * contiguous is read from its layout, not from the flags: K contiguous is
 * K-major, MN contiguous is MN-major (the instruction's transpose bit, 16-bit
 * types only).
 *
 * The descriptors come from the layouts, checked element by element: the
 * region's layout (sliced out of its buffer; a symbolic origin such as a
 * pipeline stage, or a run-time column start written as a whole number of
 * swizzle slabs, stays symbolic) must place every element of every
 * instruction's tile where the hardware's canonical layout for some swizzle
 * mode (none, 32, 64, 128 bytes), leading and stride byte offsets puts it,
 * before the swizzle; the swizzle itself must be the hardware's mode on an
 * aligned base. One descriptor per operand is encoded at run time; each
 * instruction adds its tile's constant 16-byte offset.
 *
 * C's layout must give every instruction's m64nN accumulator fragment
 * (thread t, register i: row t / 32 * 16 + t % 32 / 4 + 8 * (i / 2 % 2),
 * column i / 4 * 8 + t % 4 * 2 + i % 2) constant registers, the same for
 * every thread, so the emitted code names registers by constants. A in
 * registers is a 16-bit register tile in the same fragment layout (a 64 x 16
 * block per instruction is the accumulator's m64n16 fragment), so an
 * accumulator cast to bfloat16 feeds the next product (attention's P @ V);
 * its pairs are packed into 32-bit registers kept alive until the wait.
 *
 * Emitted: the accumulator's registers pinned (an empty asm per register,
 * so the compiler keeps its reads and writes on the right side of the
 * asynchronous MMAs), wgmma.fence, per K step and tile one wgmma (the first
 * K step scales D by `accum`, a constant or a run-time condition), then
 * commit_group and wait_group(wait) and the registers pinned again.
 * Config: fence=False leaves out wgmma.fence, commit=False the commit and
 * the wait, wait=N keeps N groups in flight (a pipeline that overlaps MMAs
 * with the next stage's loads), wait=None commits without waiting or
 * pinning (T.cuda.wgmma_wait waits later and pins the accumulators it
 * names). With A in registers the MMAs read the packed copies, which the
 * program never touches again: ptxas keeps an in-flight wgmma's input
 * registers until its wait_group, so A's tile may be rewritten at once. */
#include <string.h>

#include "../partition.h"
#include "../smem_desc.h"

#define WG_M 64           /* rows per instruction */
#define WG_K_BYTES 32     /* K bytes per instruction */
#define WG_MAX_N 256
#define WG_MAX_TILES 4096 /* instructions per call */

typedef struct Wgmma {
    OpRegion c;
    OpSmemOperand a, b;
    bool trans_a, trans_b;
    IrExpr *accum;        /* NULL: False */
    int64_t m, n, k, n_inst, k_inst;
    int esize;
    const char *ab[2];    /* PTX types of A and B: "f16", "bf16", "tf32", "e4m3", "e5m2" */
    int64_t *reg;         /* [mi][nj][i]: the accumulator register */
    bool a_in_regs;       /* rs: A is a register tile */
    OpRegion a_frag;      /* its region */
    int64_t *a_reg;       /* [mi][ki][i]: the register of A's fragment element i */
    bool fence, commit;
    int64_t wait;         /* -1: commit without waiting */
} Wgmma;

/* ---------------------------------------------------------------- the accumulator */

/* The thread (in the warpgroup) and register of element (i, j) of C. */
static bool acc_at(OpCtx *c, const OpRegion *r, int64_t i, int64_t j, int64_t *thread,
                   int64_t *reg)
{
    LyCtx lc = op_ly_ctx(c);
    int64_t idx[OP_MAX_DIMS];
    int dim[OP_MAX_DIMS];
    op_region_dims(r, NULL, dim);
    for (int d = 0; d < r->ndim; d++) {
        int64_t s;
        if (!op_const(r->start[d], &s))
            return false;
        idx[d] = s;
    }
    idx[dim[0]] += i, idx[dim[1]] += j;
    const IrBufferType *bt = ir_buf(r->buffer);
    int64_t shape[OP_MAX_DIMS];
    for (int d = 0; d < r->ndim; d++)
        if (!op_const(bt->shape[d], &shape[d]))
            return false;
    LyCoords co;
    if (!ly_apply_at(&lc, r->layout, shape, idx, r->ndim, &co) || co.npoints != 1)
        return false;
    return op_wg_thread_reg(&co, thread, reg);
}

/* The registers of one m64nN fragment at (row0, col0) of a register tile
 * (element i of thread t: row row0 + t / 32 * 16 + t % 32 / 4 + 8 * (i / 2 %
 * 2), column col0 + i / 4 * 8 + t % 4 * 2 + i % 2): out[i], the same in every
 * thread; NULL, or why not. */
static const char *fragment_registers(OpCtx *c, const OpRegion *r, int64_t row0, int64_t col0,
                                      int64_t per, int64_t *out, const char *what)
{
    for (int64_t i = 0; i < per; i++)
        for (int64_t t = 0; t < 128; t++) {
            int64_t row = row0 + t / 32 * 16 + t % 32 / 4 + 8 * (i / 2 % 2);
            int64_t col = col0 + i / 4 * 8 + t % 4 * 2 + i % 2;
            int64_t thread, reg;
            if (!acc_at(c, r, row, col, &thread, &reg) || thread != t || (t > 0 && reg != out[i]))
                return op_reason(c, "the layout of '%s' is not the wgmma %s: element [%lld, "
                                    "%lld] must be thread %lld's fragment register %lld, the "
                                    "same register in every thread (use T.wgmma_acc_layout)",
                                 r->buffer->u.var.name, what, (long long)row, (long long)col,
                                 (long long)t, (long long)i);
            out[i] = reg;
        }
    return NULL;
}

static const char *check_register_tile(OpCtx *c, const OpRegion *r)
{
    if (!r->distributed || r->layout->kind != IR_LAYOUT_TILE)
        return op_reason(c, "'%s' is not a register tile spread over the warpgroup's threads",
                         r->buffer->u.var.name);
    return NULL;
}

/* Every register of every instruction's fragment is a constant register of C
 * (and of A when it is in registers). */
static const char *check_fragments(OpCtx *c, Wgmma *g)
{
    const char *why = check_register_tile(c, &g->c);
    int64_t per = g->n_inst / 2, tiles_m = g->m / WG_M, tiles_n = g->n / g->n_inst;
    g->reg = TX_NEW_ARRAY(c->arena, int64_t, (size_t)(tiles_m * tiles_n * per));
    for (int64_t mi = 0; !why && mi < tiles_m; mi++)
        for (int64_t nj = 0; !why && nj < tiles_n; nj++)
            why = fragment_registers(c, &g->c, mi * WG_M, nj * g->n_inst, per,
                                     &g->reg[(mi * tiles_n + nj) * per], "accumulator");
    if (why || !g->a_in_regs)
        return why;
    if ((why = check_register_tile(c, &g->a_frag)))
        return why;
    int64_t tiles_k = g->k / g->k_inst;
    g->a_reg = TX_NEW_ARRAY(c->arena, int64_t, (size_t)(tiles_m * tiles_k * 8));
    for (int64_t mi = 0; !why && mi < tiles_m; mi++)
        for (int64_t ki = 0; !why && ki < tiles_k; ki++)
            why = fragment_registers(c, &g->a_frag, mi * WG_M, ki * g->k_inst, 8,
                                     &g->a_reg[(mi * tiles_k + ki) * 8], "A fragment");
    return why;
}

/* ---------------------------------------------------------------- the call */

/* A shared operand's descriptor, derived and checked over every tile. */
static const char *shared_operand(OpCtx *c, OpSmemOperand *o, int64_t inst_mn, int64_t inst_k)
{
    const char *why = op_smem_describe(c, o, inst_mn, inst_k, "wgmma");
    if (why)
        return why;
    if (o->mn_major && o->ebits != 16)
        return op_reason(c, "an MN-major operand (M or N contiguous) needs a 16-bit dtype; lay "
                            "%s out with K contiguous", o->name);
    return NULL;
}

/* A shared operand: [mn, k] or, transposed, [k, mn]. */
static const char *read_shared(OpCtx *c, int arg, OpSmemOperand *o, bool trans, int64_t *mn,
                               int64_t *k)
{
    const char *why = op_smem_read(c, arg, o, trans);
    *mn = o->mn, *k = o->k;
    return why;
}

/* A: a shared operand, or a register tile [M, K]. */
static const char *read_a(OpCtx *c, Wgmma *g, int64_t *m, int64_t *k)
{
    OpRegion r;
    const char *why = op_region(c, 1, &r);
    if (why)
        return why;
    if (r.mem != OP_MEM_LOCAL)
        return read_shared(c, 1, &g->a, g->trans_a, m, k);
    g->a_in_regs = true, g->a_frag = r;
    int64_t ext[OP_MAX_DIMS];
    if (op_region_dims(&r, ext, NULL) != 2 || g->trans_a)
        return op_reason(c, "A in registers must be a 2-D [M, K] tile (transA=False)");
    *m = ext[0], *k = ext[1];
    return NULL;
}

static const char *read_flags(OpCtx *c, Wgmma *g)
{
    if (!op_flag(op_arg(c, 3), &g->trans_a) || !op_flag(op_arg(c, 4), &g->trans_b))
        return op_reason(c, "transA and transB must be constants");
    IrExpr *acc = op_arg(c, 5);
    bool v;
    g->accum = acc && !(op_flag(acc, &v) && !v) ? acc : NULL;
    g->fence = g->commit = true;
    g->wait = 0;
    IrExpr *e;
    if ((e = op_config(c, "fence")) && !op_flag(e, &g->fence))
        return op_reason(c, "fence= must be a constant");
    if ((e = op_config(c, "commit")) && !op_flag(e, &g->commit))
        return op_reason(c, "commit= must be a constant");
    if ((e = op_config(c, "wait")) && e->kind == IR_E_NONE)
        g->wait = -1;
    else if (e && (!op_const(e, &g->wait) || g->wait < 0 || g->wait > 7))
        return op_reason(c, "wait= must be a constant from 0 to 7, or None");
    return NULL;
}

static const char *read_call(OpCtx *c, Wgmma *g)
{
    memset(g, 0, sizeof *g);
    if (op_nargs(c) > 6)
        return op_reason(c, "block scaling (SFA, SFB) is a tcgen05 feature");
    const char *why = read_flags(c, g);
    int64_t am = 0, ak = 0, bn = 0, bk = 0, cm, cn;
    if (why || (why = op_region(c, 0, &g->c)) || (why = read_a(c, g, &am, &ak)) ||
        (why = read_shared(c, 2, &g->b, g->trans_b, &bn, &bk)))
        return why;
    int64_t ext[OP_MAX_DIMS];
    if (op_region_dims(&g->c, ext, NULL) != 2)
        return op_reason(c, "C must be a 2-D register tile");
    cm = ext[0], cn = ext[1];
    if (am != cm || bn != cn || ak != bk)
        return op_reason(c, "the shapes do not multiply: C %lldx%lld, A %lldx%lld, B %lldx%lld "
                            "(A is [M, K], B is [N, K]; transA/transB swap them)", (long long)cm,
                         (long long)cn, (long long)am, (long long)ak, (long long)bn, (long long)bk);
    g->m = cm, g->n = cn, g->k = ak;
    if (g->c.mem != OP_MEM_LOCAL || !ir_dtype_eq(g->c.dtype, IR_FLOAT32))
        return op_reason(c, "C must be a float32 register tile");
    IrDType at = g->a_in_regs ? g->a_frag.dtype : g->a.r.dtype;
    g->ab[0] = op_smem_mma_type(at), g->ab[1] = op_smem_mma_type(g->b.r.dtype);
    if (!g->ab[0] || !g->ab[1] || ir_dtype_subbyte(at) || ir_dtype_subbyte(g->b.r.dtype) ||
        !strcmp(g->ab[0], "e2m1") || !strcmp(g->ab[1], "e2m1"))
        return op_reason(c, "A and B must be float16, bfloat16, float32 (as tf32) or fp8 "
                            "(e4m3, e5m2)");
    bool fp8 = g->ab[0][0] == 'e';
    if (strcmp(g->ab[0], g->ab[1]) && !(fp8 && g->ab[1][0] == 'e'))
        return op_reason(c, "A and B must have the same dtype (fp8 may mix e4m3 and e5m2)");
    g->esize = op_dtype_bytes(g->b.r.dtype);
    if (g->a_in_regs && (g->esize != 2 || !ir_dtype_eq(at, g->b.r.dtype)))
        return op_reason(c, "A in registers must be float16 or bfloat16, as B");
    g->k_inst = WG_K_BYTES / g->esize;
    if (g->m % WG_M || g->k % g->k_inst || g->n % 8)
        return op_reason(c, "M, N and K must be multiples of 64, 8 and %lld (here %lld, %lld, "
                            "%lld)", (long long)g->k_inst, (long long)g->m, (long long)g->n,
                         (long long)g->k);
    for (g->n_inst = g->n < WG_MAX_N ? g->n : WG_MAX_N; g->n % g->n_inst; g->n_inst -= 8)
        ;
    if (g->m / WG_M * (g->n / g->n_inst) * (g->k / g->k_inst) > WG_MAX_TILES)
        return op_reason(c, "the tile needs more than %d wgmma instructions", WG_MAX_TILES);
    if ((why = shared_operand(c, &g->b, g->n_inst, g->k_inst)) ||
        (!g->a_in_regs && (why = shared_operand(c, &g->a, WG_M, g->k_inst))))
        return why;
    return check_fragments(c, g);
}

/* The spelling of the instruction for this call. */
static const char *spelling(OpCtx *c, const Wgmma *g)
{
    return tx_arena_printf(c->arena, "wgmma.mma_async.sync.aligned.m64n%lldk%lld.f32.%s.%s",
                           (long long)g->n_inst, (long long)g->k_inst, g->ab[0], g->ab[1]);
}

const char *op_wgmma_accept(OpCtx *c)
{
    const char *why = op_need_scope(c, OP_SCOPE_BIT(IR_SCOPE_WARPGROUP));
    if (why)
        return why;
    Wgmma g;
    if ((why = read_call(c, &g)))
        return why;
    return op_need_ptx(c, "wgmma", spelling(c, &g));
}

/* ---------------------------------------------------------------- emission */

/* The registers the MMAs read and write asynchronously. */
typedef struct Live {
    IrExpr *c_view, *a_pack; /* C's registers; A's packed pairs (rs), or NULL */
    int64_t a_words;
} Live;

static void pin(OpCtx *c, OpSeq *s, IrExpr *buf, int64_t index)
{
    IrExpr *idx = op_i32(c, index);
    IrExpr *reg = op_load(c, buf, &idx, 1);
    op_eval(c, s, op_call(c, IR_OP_CUDA_WGMMA_NOOP_BARRIER, IR_VOID, &reg, 1));
}

/* An empty asm per register of the call, which the compiler cannot move the
 * registers' other uses across. */
static void pin_registers(OpCtx *c, OpSeq *s, const Wgmma *g, const Live *l)
{
    int64_t n = g->m / WG_M * (g->n / g->n_inst) * (g->n_inst / 2);
    for (int64_t i = 0; i < n; i++)
        pin(c, s, l->c_view, g->reg[i]);
    for (int64_t i = 0; i < l->a_words; i++)
        pin(c, s, l->a_pack, i);
}

/* rs: A's fragment elements, pairs packed into 32-bit words (low half first). */
static IrExpr *pack_a(OpCtx *c, OpSeq *s, const Wgmma *g, int64_t *words)
{
    *words = g->m / WG_M * (g->k / g->k_inst) * 4;
    IrExpr *pack = op_alloc_local(c, s, "a_pack", IR_UINT32, *words);
    IrExpr *view = op_local_view(c, s, g->a_frag.buffer);
    for (int64_t w = 0; w < *words; w++) {
        IrExpr *half[2];
        for (int h = 0; h < 2; h++) {
            IrExpr *idx = op_i32(c, g->a_reg[w * 2 + h]);
            IrExpr *v = op_load(c, view, &idx, 1);
            IrExpr *bits = op_call(c, IR_OP_REINTERPRET, IR_UINT16, &v, 1);
            half[h] = op_cast(c, IR_UINT32, bits);
        }
        IrExpr *shift[2] = {half[1], ir_int(c->arena, IR_UINT32, 16, c->call->span)};
        IrExpr *word[2] = {half[0], op_call(c, IR_OP_SHIFT_LEFT, IR_UINT32, shift, 2)};
        IrExpr *idx = op_i32(c, w);
        op_store(c, s, pack, &idx, 1, op_call(c, IR_OP_BITWISE_OR, IR_UINT32, word, 2));
    }
    return pack;
}

/* desc = encode(operand's storage, LBO, SBO, swizzle) + its origin in 16-byte units. */
static IrExpr *descriptor(OpCtx *c, OpSeq *s, const OpSmemOperand *o, const char *name)
{
    IrExpr *zero = op_i32(c, 0);
    IrExpr *desc = op_load(c, op_smem_encode(c, s, o, IR_OP_CUDA_WGMMA_SMEM_DESC, name), &zero, 1);
    IrExpr *units = op_smem_origin_units(c, o);
    int64_t v;
    if (op_const(units, &v) && v == 0)
        return desc;
    IrExpr *var = op_var(c, name, IR_UINT64);
    op_bind(c, s, var, op_smem_desc_add(c, desc, units));
    return var;
}

/* base + the constant 16-byte offset of the tile at (t0, k0). */
static IrExpr *tile_descriptor(OpCtx *c, IrExpr *base, const OpSmemOperand *o, int64_t t0,
                               int64_t k0)
{
    return op_smem_desc_add(c, base, op_i32(c, op_smem_tile_units(c, o, t0, k0)));
}

static void emit_mma(OpCtx *c, OpSeq *s, const Wgmma *g, const Live *l, IrExpr *da, IrExpr *db,
                     int64_t mi, int64_t nj, int64_t k0, const char *form)
{
    int64_t per = g->n_inst / 2, tiles_n = g->n / g->n_inst;
    int n = 0;
    IrExpr **args = TX_NEW_ARRAY(c->arena, IrExpr *, per + 10);
    for (int64_t i = 0; i < per; i++) {
        IrExpr *idx = op_i32(c, g->reg[(mi * tiles_n + nj) * per + i]);
        args[n++] = op_load(c, l->c_view, &idx, 1);
    }
    if (l->a_pack) {
        int64_t first = (mi * (g->k / g->k_inst) + k0 / g->k_inst) * 4;
        for (int64_t w = 0; w < 4; w++) {
            IrExpr *idx = op_i32(c, first + w);
            args[n++] = op_load(c, l->a_pack, &idx, 1);
        }
    } else {
        args[n++] = tile_descriptor(c, da, &g->a, mi * WG_M, k0);
    }
    args[n++] = tile_descriptor(c, db, &g->b, nj * g->n_inst, k0);
    IrExpr *scale_d = k0 == 0 ? (g->accum ? g->accum : ir_int(c->arena, IR_BOOL, 0, c->call->span))
                              : ir_int(c->arena, IR_BOOL, 1, c->call->span);
    args[n++] = op_cast(c, IR_BOOL, scale_d);
    args[n++] = op_i32(c, 1);
    args[n++] = op_i32(c, 1);
    if (g->esize == 2 && !l->a_pack)
        args[n++] = op_i32(c, g->a.mn_major);
    if (g->esize == 2)
        args[n++] = op_i32(c, g->b.mn_major);
    op_eval(c, s, op_ptx(c, form, args, n));
}

IrStmt *op_wgmma_lower(OpCtx *c)
{
    Wgmma g;
    read_call(c, &g);
    OpSeq s = {0};
    Live l = {op_local_view(c, &s, g.c.buffer), NULL, 0};
    IrExpr *da = NULL;
    if (g.a_in_regs)
        l.a_pack = pack_a(c, &s, &g, &l.a_words);
    else
        da = descriptor(c, &s, &g.a, "desc_a");
    IrExpr *db = descriptor(c, &s, &g.b, "desc_b");
    pin_registers(c, &s, &g, &l);
    if (g.fence)
        op_eval(c, &s, op_ptx(c, "wgmma.fence.sync.aligned", NULL, 0));
    const char *form = spelling(c, &g);
    for (int64_t k0 = 0; k0 < g.k; k0 += g.k_inst)
        for (int64_t mi = 0; mi < g.m / WG_M; mi++)
            for (int64_t nj = 0; nj < g.n / g.n_inst; nj++)
                emit_mma(c, &s, &g, &l, da, db, mi, nj, k0, form);
    if (g.commit)
        op_eval(c, &s, op_ptx(c, "wgmma.commit_group.sync.aligned", NULL, 0));
    if (g.commit && g.wait >= 0) {
        IrExpr *w = op_i32(c, g.wait);
        op_eval(c, &s, op_ptx(c, "wgmma.wait_group.sync.aligned", &w, 1));
        pin_registers(c, &s, &g, &l);
    }
    return op_seq_finish(c, &s);
}
