/* gemm, variant "mma_sync": D = A @ B (+ C) for one warp with
 * mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16} (sm_80+).
 *
 * D (and C) is a distributed register tile of the warp whose layout is the
 * m16n8 accumulator tiled over the M x N tile: in each 16 x 8 block lane l
 * holds rows l // 4 and l // 4 + 8, columns l % 4 * 2 and + 1. The check is
 * concrete (every element of D is applied through its layout), and the
 * register of the q-th accumulator value of block (mi, ni) must be
 * base_q + mi * sM + ni * sN, so the emitted loops index registers with
 * constants once unrolled. The reference order [Mo, No, rM, rN] is one such
 * layout: T.S[(MI, 2, 8, NI, 4, 2):(NI * 4, 2, 4 @ laneid, 4, 1 @ laneid, 1)].
 *
 * A (M x K, row-major) and B (K x N, or N x K with transpose_B) are register
 * tiles in the mma.sync fragment layouts (the reference's form: every element
 * in its fragment lane, at a register the same in every lane; the pairs are
 * packed into 32-bit words once, before the K steps), or are read from
 * shared memory with ldmatrix (where tirx goes beyond the reference, which
 * leaves ldmatrix to a copy variant): per 16-deep K step, one ldmatrix.x4 per
 * 16-row block of A (lane l addresses row l % 16, column l // 16 * 8), one ldmatrix.x2 per
 * 8-column block of B (.trans for a K x N B: lane l addresses row l % 16),
 * then MI x NI mma.sync accumulating in place. Addresses go through the
 * buffers' layouts, so swizzled shared tiles work as long as 8-element rows
 * stay contiguous. beta 0 zeroes D first; beta 1 accumulates (from C when
 * it is another buffer); alpha must be 1. */
#include <string.h>

#include "../partition.h"

typedef struct Mma {
    OpRegion d, a, b, c;
    bool trans_b, zero_init, copy_c;
    int64_t m, n, k, mi, ni;
    int64_t base[4], sm, sn; /* register of value q of block (mi, ni): base[q] + mi*sm + ni*sn */
    const char *ab;           /* "f16" or "bf16" */
    /* A or B held in registers: the register of element p of 32-bit word q of
     * block (mi or ni, K step ks), at [((ks * MI + mi) * 4 + q) * 2 + p] for A,
     * [((ks * NI + ni) * 2 + q) * 2 + p] for B; NULL when read with ldmatrix */
    int64_t *areg, *breg;
} Mma;

static bool scalar_value(const IrExpr *e, double dflt, double *out)
{
    if (!e) {
        *out = dflt;
        return true;
    }
    if (e->kind == IR_E_FLOAT || e->kind == IR_E_PYFLOAT) {
        *out = e->u.float_val;
        return true;
    }
    int64_t v;
    if (op_const(e, &v) || e->kind == IR_E_PYINT) {
        *out = e->kind == IR_E_PYINT ? (double)e->u.int_val : (double)v;
        return true;
    }
    return false;
}

/* The (rows, cols) of a region with exactly two non-unit dims. */
static bool matrix_dims(const OpRegion *r, int64_t *rows, int64_t *cols)
{
    int64_t ext[OP_MAX_DIMS];
    int k = op_region_dims(r, ext, NULL);
    if (k != 2)
        return false;
    *rows = ext[0], *cols = ext[1];
    return true;
}

/* The lane and register of element (i, j) of a 2-D register tile. */
static bool frag_at(OpCtx *c, const OpRegion *r, int64_t i, int64_t j, int64_t *lane, int64_t *reg)
{
    LyCtx lc = op_ly_ctx(c);
    int64_t shape[2] = {r->extent[0], r->extent[1]}, idx[2] = {i, j};
    LyCoords co;
    if (!ly_apply_at(&lc, r->layout, shape, idx, 2, &co) || co.npoints != 1)
        return false;
    *lane = *reg = 0;
    for (int a = 0; a < co.naxes; a++) {
        if (!strcmp(co.axes[a], "laneid"))
            *lane = co.vals[a];
        else if (!strcmp(co.axes[a], "m"))
            *reg = co.vals[a];
        else
            return false;
    }
    return true;
}

/* D's layout is the m16n8 accumulator tiling with affine registers. */
static const char *check_accumulator(OpCtx *c, Mma *g, const OpRegion *r)
{
    if (r->ndim != 2 || !r->distributed || r->layout->kind != IR_LAYOUT_TILE)
        return op_reason(c, "'%s' is not a 2-D register tile spread over the warp's lanes",
                         r->buffer->u.var.name);
    int64_t reg0[4] = {0}, lane, reg;
    for (int64_t mi = 0; mi < g->mi; mi++)
        for (int64_t ni = 0; ni < g->ni; ni++)
            for (int q = 0; q < 4; q++)
                for (int64_t l = 0; l < 32; l++) {
                    int64_t i = mi * 16 + l / 4 + q / 2 * 8, j = ni * 8 + l % 4 * 2 + q % 2;
                    if (!frag_at(c, r, i, j, &lane, &reg) || lane != l)
                        return op_reason(c, "the layout of '%s' is not the mma.sync m16n8 "
                                            "accumulator (element [%lld, %lld] is not in lane %lld)",
                                         r->buffer->u.var.name, (long long)i, (long long)j,
                                         (long long)l);
                    if (mi == 0 && ni == 0 && l == 0)
                        reg0[q] = reg;
                    if (l == 0 && q == 0 && mi == 1 && ni == 0)
                        g->sm = reg - reg0[0];
                    if (l == 0 && q == 0 && mi == 0 && ni == 1)
                        g->sn = reg - reg0[0];
                    if (reg != reg0[q] + mi * g->sm + ni * g->sn)
                        return op_reason(c, "the registers of '%s' are not base + mi * sM + ni * sN "
                                            "over its 16 x 8 blocks", r->buffer->u.var.name);
                }
    memcpy(g->base, reg0, sizeof reg0);
    return NULL;
}

/* The element (row, col) of the multiplicand fragment word q, half p, lane l
 * of the block at (row0, col0), in the operand's own orientation: A's words
 * are (rows g, g + 8) x (K 2t..2t+1, +8), q = rM + 2 kHi; B's (K x N) are K
 * 2t..2t+1 (+8 for q = 1) of column g; g = l / 4, t = l % 4. */
static void frag_element(bool is_a, bool trans, int64_t row0, int64_t col0, int q, int p, int64_t l,
                         int64_t *row, int64_t *col)
{
    int64_t g = l / 4, t = l % 4;
    int64_t mn = is_a ? row0 + g + q % 2 * 8 : col0 + g;
    int64_t k = (is_a ? col0 : row0) + t * 2 + p + (is_a ? q / 2 : q) * 8;
    bool mn_first = is_a || trans;
    *row = mn_first ? mn : k, *col = mn_first ? k : mn;
}

/* A (is_a) or B in registers: every element of the mma.sync multiplicand
 * fragments in its lane, at a register the same in every lane. */
static const char *check_fragments(OpCtx *c, const Mma *g, const OpRegion *r, bool is_a,
                                   int64_t *regs)
{
    if (r->ndim != 2 || !r->distributed || r->layout->kind != IR_LAYOUT_TILE)
        return op_reason(c, "'%s' is in registers but not a 2-D register tile spread over the "
                            "warp's lanes", r->buffer->u.var.name);
    int64_t blocks = is_a ? g->mi : g->ni, words = is_a ? 4 : 2, steps = g->k / 16;
    for (int64_t ks = 0; ks < steps; ks++)
        for (int64_t b = 0; b < blocks; b++)
            for (int q = 0; q < words; q++)
                for (int p = 0; p < 2; p++)
                    for (int64_t l = 0; l < 32; l++) {
                        int64_t i, j, lane, reg;
                        frag_element(is_a, g->trans_b, is_a ? b * 16 : ks * 16,
                                     is_a ? ks * 16 : b * 8, q, p, l, &i, &j);
                        int64_t *slot = &regs[((ks * blocks + b) * words + q) * 2 + p];
                        if (!frag_at(c, r, i, j, &lane, &reg) || lane != l || (l && reg != *slot))
                            return op_reason(c, "the layout of '%s' is not the mma.sync m16n8k16 "
                                                "%s fragment (element [%lld, %lld])",
                                             r->buffer->u.var.name, is_a ? "A" : "B",
                                             (long long)i, (long long)j);
                        *slot = reg;
                    }
    return NULL;
}

/* An operand ldmatrix can read: shared, 16-bit, rows of 8 elements contiguous
 * and 16-byte aligned. */
static const char *check_ldmatrix(OpCtx *c, const OpRegion *r)
{
    if (r->mem != OP_MEM_SHARED)
        return op_reason(c, "'%s' is in %s memory; this variant reads A and B from shared memory "
                            "with ldmatrix", r->buffer->u.var.name, op_mem_name(r->mem));
    if (op_region_vector(c, r, 8, false) < 8)
        return op_reason(c, "the rows of '%s' are not 16-byte aligned runs of 8 contiguous "
                            "elements", r->buffer->u.var.name);
    return NULL;
}

static const char *read_call(OpCtx *c, Mma *g)
{
    memset(g, 0, sizeof *g);
    const char *why;
    if ((why = op_region(c, 0, &g->d)) || (why = op_region(c, 1, &g->a)) ||
        (why = op_region(c, 2, &g->b)))
        return why;
    bool has_c = op_nargs(c) > 3 && op_arg(c, 3)->kind == IR_E_REGION;
    if (has_c && (why = op_region(c, 3, &g->c)))
        return why;
    bool trans_a;
    double alpha, beta;
    if (!op_flag(op_arg(c, 4), &trans_a) || !op_flag(op_arg(c, 5), &g->trans_b) ||
        !scalar_value(op_arg(c, 6), 1.0, &alpha) || !scalar_value(op_arg(c, 7), 0.0, &beta))
        return op_reason(c, "transpose_A, transpose_B, alpha and beta must be constants");
    if (trans_a)
        return op_reason(c, "A must be row-major (transpose_A=False)");
    if (alpha != 1.0 || (beta != 0.0 && beta != 1.0))
        return op_reason(c, "needs alpha == 1 and beta 0 or 1");
    g->zero_init = beta == 0.0;
    g->copy_c = has_c && beta == 1.0 && g->c.buffer != g->d.buffer;
    int64_t ak = 0, bk = 0, bn = 0;
    if (!matrix_dims(&g->d, &g->m, &g->n) || !matrix_dims(&g->a, &g->m, &ak) ||
        !matrix_dims(&g->b, g->trans_b ? &bn : &bk, g->trans_b ? &bk : &bn))
        return op_reason(c, "D, A and B must be 2-D");
    int64_t dm = 0, dn = 0;
    matrix_dims(&g->d, &dm, &dn);
    if (dm != g->m || bn != g->n || ak != bk)
        return op_reason(c, "the shapes do not multiply: D %lldx%lld, A %lldx%lld, B %lldx%lld%s",
                         (long long)dm, (long long)dn, (long long)g->m, (long long)ak,
                         (long long)(g->trans_b ? bn : bk), (long long)(g->trans_b ? bk : bn),
                         g->trans_b ? " (transposed)" : "");
    g->k = ak;
    if (g->m % 16 || g->n % 8 || g->k % 16)
        return op_reason(c, "M, N and K must be multiples of 16, 8 and 16 (here %lld, %lld, %lld)",
                         (long long)g->m, (long long)g->n, (long long)g->k);
    g->mi = g->m / 16, g->ni = g->n / 8;
    if (!ir_dtype_eq(g->d.dtype, IR_FLOAT32) || (has_c && !ir_dtype_eq(g->c.dtype, IR_FLOAT32)))
        return op_reason(c, "D and C must be float32");
    if (!ir_dtype_eq(g->a.dtype, g->b.dtype) ||
        (!ir_dtype_eq(g->a.dtype, IR_FLOAT16) && !ir_dtype_eq(g->a.dtype, IR_BFLOAT16)))
        return op_reason(c, "A and B must both be float16 or both bfloat16");
    g->ab = ir_dtype_eq(g->a.dtype, IR_FLOAT16) ? "f16" : "bf16";
    return NULL;
}

/* The MMA instruction for the operands' dtype. */
static const char *instruction(OpCtx *c, const Mma *g)
{
    return tx_arena_printf(c->arena, "mma.sync.aligned.m16n8k16.row.col.f32.%s.%s.f32", g->ab,
                           g->ab);
}

/* A and B: register fragments (their registers recorded), or shared memory
 * that ldmatrix reads. */
static const char *check_operands(OpCtx *c, Mma *g)
{
    const char *why;
    int64_t steps = g->k / 16;
    if (g->a.mem == OP_MEM_LOCAL) {
        g->areg = TX_NEW_ARRAY(c->arena, int64_t, steps * g->mi * 8);
        if ((why = check_fragments(c, g, &g->a, true, g->areg)))
            return why;
    } else if ((why = check_ldmatrix(c, &g->a))) {
        return why;
    }
    if (g->b.mem == OP_MEM_LOCAL) {
        g->breg = TX_NEW_ARRAY(c->arena, int64_t, steps * g->ni * 4);
        return check_fragments(c, g, &g->b, false, g->breg);
    }
    return check_ldmatrix(c, &g->b);
}

const char *op_mma_accept(OpCtx *c)
{
    Mma g;
    const char *why = op_need_scope(c, OP_SCOPE_BIT(IR_SCOPE_WARP));
    if (why || (why = read_call(c, &g)))
        return why;
    if ((why = op_need_ptx(c, "mma.sync", instruction(c, &g))) ||
        (why = check_accumulator(c, &g, &g.d)) || (why = check_operands(c, &g)))
        return why;
    if (g.copy_c && op_frag_same(c, &g.c, &g.d))
        return op_reason(c, "C and D place their elements differently");
    return NULL;
}

/* ---------------------------------------------------------------- emission */

static IrExpr *reg_at(OpCtx *c, IrExpr *buf, IrExpr *index)
{
    return op_load(c, buf, &index, 1);
}

/* base + i * stride + j, folded. */
static IrExpr *affine(OpCtx *c, int64_t base, IrExpr *i, int64_t si, IrExpr *j, int64_t sj)
{
    IrExpr *e = op_i32(c, base);
    if (i && si)
        e = op_bin(c, IR_E_ADD, op_bin(c, IR_E_MUL, i, op_i32(c, si)), e);
    if (j && sj)
        e = op_bin(c, IR_E_ADD, e, op_bin(c, IR_E_MUL, j, op_i32(c, sj)));
    return e;
}

/* The full index of (row, col) of a 2-D region. */
static IrExpr **at(OpCtx *c, const OpRegion *r, IrExpr *row, IrExpr *col)
{
    IrExpr *idx[2] = {row, col}, **out = TX_NEW_ARRAY(c->arena, IrExpr *, r->ndim);
    op_region_index(c, r, idx, out);
    return out;
}

static IrExpr *lane_expr(OpCtx *c, IrExprKind k, int64_t v)
{
    return op_bin(c, k, c->axis[LY_AXIS_LANEID], op_i32(c, v));
}

/* for mi: ldmatrix.x4 of A rows mi*16 + lane % 16, columns kk*16 + lane // 16 * 8. */
static IrStmt *load_a(OpCtx *c, const Mma *g, IrExpr *afrag, IrExpr *kk)
{
    IrExpr *mi = g->mi > 1 ? op_var(c, "mi", IR_INT32) : NULL;
    IrExpr *row = op_bin(c, IR_E_ADD, affine(c, 0, mi, 16, NULL, 0), lane_expr(c, IR_E_FLOORMOD, 16));
    IrExpr *col = op_bin(c, IR_E_ADD, affine(c, 0, kk, 16, NULL, 0),
                         op_bin(c, IR_E_MUL, lane_expr(c, IR_E_FLOORDIV, 16), op_i32(c, 8)));
    IrExpr *args[5];
    for (int q = 0; q < 4; q++)
        args[q] = reg_at(c, afrag, affine(c, q, mi, 4, NULL, 0));
    IrExpr **idx = at(c, &g->a, row, col);
    args[4] = op_address_of(c, g->a.buffer, idx, g->a.ndim);
    OpSeq s = {0};
    op_eval(c, &s, op_ptx(c, "ldmatrix.sync.aligned.m8n8.x4.shared.b16", args, 5));
    IrStmt *body = op_seq_finish(c, &s);
    return mi ? op_for(c, mi, g->mi, IR_FOR_UNROLLED, body) : body;
}

/* for ni: ldmatrix.x2 of B's 16 x 8 block (K x N: .trans, lane rows l % 16;
 * N x K: rows ni*8 + l % 8, columns kk*16 + l // 8 % 2 * 8). */
static IrStmt *load_b(OpCtx *c, const Mma *g, IrExpr *bfrag, IrExpr *kk)
{
    IrExpr *ni = g->ni > 1 ? op_var(c, "ni", IR_INT32) : NULL;
    IrExpr *row, *col;
    if (g->trans_b) {
        row = op_bin(c, IR_E_ADD, affine(c, 0, ni, 8, NULL, 0), lane_expr(c, IR_E_FLOORMOD, 8));
        col = op_bin(c, IR_E_ADD, affine(c, 0, kk, 16, NULL, 0),
                     op_bin(c, IR_E_MUL, op_bin(c, IR_E_FLOORMOD, lane_expr(c, IR_E_FLOORDIV, 8),
                                                op_i32(c, 2)), op_i32(c, 8)));
    } else {
        row = op_bin(c, IR_E_ADD, affine(c, 0, kk, 16, NULL, 0), lane_expr(c, IR_E_FLOORMOD, 16));
        col = affine(c, 0, ni, 8, NULL, 0);
    }
    IrExpr *args[3] = {reg_at(c, bfrag, affine(c, 0, ni, 2, NULL, 0)),
                       reg_at(c, bfrag, affine(c, 1, ni, 2, NULL, 0)), NULL};
    IrExpr **idx = at(c, &g->b, row, col);
    args[2] = op_address_of(c, g->b.buffer, idx, g->b.ndim);
    OpSeq s = {0};
    op_eval(c, &s, op_ptx(c, g->trans_b ? "ldmatrix.sync.aligned.m8n8.x2.shared.b16"
                                        : "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16",
                          args, 3));
    IrStmt *body = op_seq_finish(c, &s);
    return ni ? op_for(c, ni, g->ni, IR_FOR_UNROLLED, body) : body;
}

/* Word w of a fragment array, plus the K step's offset (kk * per_step when the
 * array holds every step's words). */
static IrExpr *word_at(OpCtx *c, IrExpr *frag, IrExpr *w, IrExpr *kk, int64_t per_step)
{
    return reg_at(c, frag, kk && per_step ? op_bin(c, IR_E_ADD, op_bin(c, IR_E_MUL, kk,
                                                                       op_i32(c, per_step)), w)
                                          : w);
}

/* for mi, ni: mma.sync into D's registers of block (mi, ni); A's and B's words
 * of every K step are in afrag / bfrag when they came from registers. */
static IrStmt *multiply(OpCtx *c, const Mma *g, IrExpr *dview, IrExpr *afrag, IrExpr *bfrag,
                        IrExpr *kk)
{
    IrExpr *mi = g->mi > 1 ? op_var(c, "mi", IR_INT32) : NULL;
    IrExpr *ni = g->ni > 1 ? op_var(c, "ni", IR_INT32) : NULL;
    IrExpr *args[14];
    for (int q = 0; q < 4; q++) {
        args[q] = reg_at(c, dview, affine(c, g->base[q], mi, g->sm, ni, g->sn));
        args[10 + q] = args[q];
        args[4 + q] = word_at(c, afrag, affine(c, q, mi, 4, NULL, 0), kk, g->areg ? g->mi * 4 : 0);
    }
    for (int q = 0; q < 2; q++)
        args[8 + q] = word_at(c, bfrag, affine(c, q, ni, 2, NULL, 0), kk, g->breg ? g->ni * 2 : 0);
    OpSeq s = {0};
    op_eval(c, &s, op_ptx(c, instruction(c, g), args, 14));
    IrStmt *body = op_seq_finish(c, &s);
    if (ni)
        body = op_for(c, ni, g->ni, IR_FOR_UNROLLED, body);
    return mi ? op_for(c, mi, g->mi, IR_FOR_UNROLLED, body) : body;
}

/* D's registers zeroed, or copied from C. */
static void init_d(OpCtx *c, OpSeq *out, const Mma *g, IrExpr *dview)
{
    int64_t n;
    IrExpr *span = ir_buf(dview)->shape[0];
    op_const(span, &n);
    IrExpr *r = op_var(c, "r", IR_INT32);
    OpSeq s = {0};
    IrExpr *v = g->zero_init ? op_cast(c, IR_FLOAT32, op_i32(c, 0))
                             : reg_at(c, op_local_view(c, out, g->c.buffer), r);
    op_store(c, &s, dview, &r, 1, v);
    op_emit(out, op_for(c, r, n, IR_FOR_UNROLLED, op_seq_finish(c, &s)));
}

/* A register operand's fragment words of every K step, each two 16-bit
 * elements packed low half first (as ldmatrix leaves them). */
static IrExpr *pack_words(OpCtx *c, OpSeq *s, const OpRegion *r, const int64_t *regs,
                          int64_t words, const char *name)
{
    IrExpr *pack = op_alloc_local(c, s, name, IR_UINT32, words);
    IrExpr *view = op_local_view(c, s, r->buffer);
    for (int64_t w = 0; w < words; w++) {
        IrExpr *half[2];
        for (int h = 0; h < 2; h++) {
            IrExpr *idx = op_i32(c, regs[w * 2 + h]);
            IrExpr *v = op_load(c, view, &idx, 1);
            half[h] = op_cast(c, IR_UINT32, op_call(c, IR_OP_REINTERPRET, IR_UINT16, &v, 1));
        }
        IrExpr *shift[2] = {half[1], ir_int(c->arena, IR_UINT32, 16, c->call->span)};
        IrExpr *word[2] = {half[0], op_call(c, IR_OP_SHIFT_LEFT, IR_UINT32, shift, 2)};
        IrExpr *idx = op_i32(c, w);
        op_store(c, s, pack, &idx, 1, op_call(c, IR_OP_BITWISE_OR, IR_UINT32, word, 2));
    }
    return pack;
}

IrStmt *op_mma_lower(OpCtx *c)
{
    Mma g;
    read_call(c, &g);
    check_accumulator(c, &g, &g.d);
    check_operands(c, &g);
    OpSeq out = {0}, step = {0};
    IrExpr *dview = op_local_view(c, &out, g.d.buffer);
    if (g.zero_init || g.copy_c)
        init_d(c, &out, &g, dview);
    int64_t steps = g.k / 16;
    IrExpr *afrag = g.areg ? pack_words(c, &out, &g.a, g.areg, steps * g.mi * 4, "a_frag")
                           : op_alloc_local(c, &out, "a_frag", IR_UINT32, g.mi * 4);
    IrExpr *bfrag = g.breg ? pack_words(c, &out, &g.b, g.breg, steps * g.ni * 2, "b_frag")
                           : op_alloc_local(c, &out, "b_frag", IR_UINT32, g.ni * 2);
    IrExpr *kk = steps > 1 ? op_var(c, "kk", IR_INT32) : NULL;
    if (!g.areg)
        op_emit(&step, load_a(c, &g, afrag, kk));
    if (!g.breg)
        op_emit(&step, load_b(c, &g, bfrag, kk));
    op_emit(&step, multiply(c, &g, dview, afrag, bfrag, kk));
    IrStmt *body = op_seq_finish(c, &step);
    op_emit(&out, kk ? op_for(c, kk, steps, IR_FOR_UNROLLED, body) : body);
    return op_seq_finish(c, &out);
}
