/* Elementwise primitives, variant "reg": every region operand in registers.
 * At thread scope the thread runs unrolled loops over its local arrays; at
 * warp, warpgroup or CTA scope the destination is a distributed register
 * tile and every region source places its elements as the destination does,
 * so each thread computes exactly the elements it holds: unrolled loops over
 * its registers, the matching slot in every operand's local view (the
 * reference's reg variant, its partition induced by the anchor layout). An
 * operand may be a sub-region of a tile (`Dreg[:, i * 16:i * 16 + 16]`) that
 * starts on a thread's first element: its registers start at another slot. */
#include <string.h>

#include "../elementwise.h"

static const char *check_local(OpCtx *c, const OpRegion *dst, const OpRegion *src,
                               const bool *is_region, int n)
{
    bool thread = c->call->u.tile.scope == IR_SCOPE_THREAD;
    if (dst->mem != OP_MEM_LOCAL)
        return op_reason(c, "the destination is in %s memory, not registers", op_mem_name(dst->mem));
    if (!thread && !dst->distributed)
        return op_reason(c, "at %s scope the destination must be spread over the threads (a "
                            "layout with thread axes)", ir_scope_names[c->call->u.tile.scope]);
    if (thread && dst->distributed)
        return op_reason(c, "'%s' is spread over threads; a thread-scope call cannot use it",
                         dst->buffer->u.var.name);
    for (int i = 0; i < n; i++) {
        if (!is_region[i])
            continue;
        if (src[i].mem != OP_MEM_LOCAL)
            return op_reason(c, "operand '%s' is in %s memory, not registers",
                             src[i].buffer->u.var.name, op_mem_name(src[i].mem));
        const char *why = thread ? NULL : op_frag_same(c, dst, &src[i]);
        if (why)
            return why;
    }
    return NULL;
}

const char *op_elem_reg_accept(OpCtx *c)
{
    OpRegion dst, src[OP_EW_MAX_SRC];
    bool is_region[OP_EW_MAX_SRC];
    int n;
    const char *why = op_need_scope_per(c, OP_ANY_SCOPE, IR_SCOPE_THREAD);
    if (why || (why = op_ew_operands(c, &dst, src, is_region, &n)))
        return why;
    return check_local(c, &dst, src, is_region, n);
}

/* Thread scope: loops over the region's non-unit dims. */
static IrStmt *lower_private(OpCtx *c, const OpRegion *dst, const OpRegion *src,
                             const bool *is_region, int n)
{
    OpNest nest;
    op_nest_init(c, &nest, dst, IR_FOR_UNROLLED);
    IrExpr **didx = TX_NEW_ARRAY(c->arena, IrExpr *, dst->ndim), *v[OP_EW_MAX_SRC];
    op_region_index(c, dst, nest.var, didx);
    op_ew_load_sources(c, src, is_region, n, nest.var, v);
    OpSeq body = {0};
    op_store(c, &body, dst->buffer, didx, dst->ndim, op_ew_value(c, dst->dtype, v, n));
    return op_nest_wrap(c, &nest, op_seq_finish(c, &body));
}

/* ---- pairs of a thread's registers ----
 * Two consecutive elements with one packed instruction where that gives the
 * bits of the two scalar steps (tirx's scalar 16-bit arithmetic happens in
 * float32 and rounds once, as the packed forms do; float32 has the 2p + 2
 * bits that make the double rounding of +, -, * innocuous):
 *   F32X2    add, sub, mul, fma of float32 (op_ew_f32x2: sm_100a)
 *   HALF2    add, sub, mul of float16 / bfloat16, as fma.rn.{f16x2,bf16x2}
 *            (a * 1 + b, b * -1 + a, a * b + -0: every target)
 *   CVT_F32  cast float32 -> float16 / bfloat16: cvt.rn.{f16x2,bf16x2}.f32
 *   CVT_F8   cast float8_e4m3fn / float8_e5m2 -> float16 with
 *            cvt.rn.f16x2.{e4m3x2,e5m2x2} (sm_90a+), -> float32 its halves,
 *            -> bfloat16 the halves packed (every fp8 value is exactly a
 *            float16 and a bfloat16)
 * Every region's pairs start at even offsets of its storage (proven). */
typedef enum { PAIR_NONE, PAIR_F32X2, PAIR_HALF2, PAIR_CVT_F32, PAIR_CVT_F8 } PairKind;

static bool is_half(IrDType t) { return ir_dtype_eq(t, IR_FLOAT16) || ir_dtype_eq(t, IR_BFLOAT16); }

static bool is_fp8(IrDType t)
{
    return t.lanes == 1 && (t.code == IR_DT_F8E4M3FN || t.code == IR_DT_F8E5M2);
}

static int64_t pair_words(OpCtx *c, const OpRegion *r);

static PairKind pair_kind(OpCtx *c, const OpRegion *dst, const OpRegion *src,
                          const bool *is_region, int n, const char **f32x2)
{
    if (op_region_vector(c, dst, 2, false) < 2 || (dst->dtype.bits < 32 && !pair_words(c, dst)))
        return PAIR_NONE;
    for (int i = 0; i < n; i++) {
        if (is_region[i] && (op_region_vector(c, &src[i], 2, false) < 2 ||
                             (src[i].dtype.bits < 32 && !pair_words(c, &src[i]))))
            return PAIR_NONE;
        if (!is_region[i] && op_ew_scalar_reads(c, i, dst))
            return PAIR_NONE;
    }
    IrTileOp op = c->call->u.tile.op;
    if ((*f32x2 = op_ew_f32x2(c, dst, src, is_region, n)))
        return PAIR_F32X2;
    if (op == IR_TILE_CAST && is_region[0]) {
        IrDType from = src[0].dtype, to = dst->dtype;
        if (ir_dtype_eq(from, IR_FLOAT32) && is_half(to) && op_has_ptx(c, "cvt.rn.bf16x2.f32"))
            return PAIR_CVT_F32;
        if (is_fp8(from) && (is_half(to) || ir_dtype_eq(to, IR_FLOAT32)) &&
            op_has_ptx(c, "cvt.rn.f16x2.e4m3x2"))
            return PAIR_CVT_F8;
        return PAIR_NONE;
    }
    if ((op != IR_TILE_ADD && op != IR_TILE_SUB && op != IR_TILE_MUL) || !is_half(dst->dtype) ||
        !op_has_ptx(c, "fma.rn.bf16x2"))
        return PAIR_NONE;
    for (int i = 0; i < n; i++) {
        IrExpr *x = is_region[i] ? NULL : op_ew_scalar(c, i);
        if (!ir_dtype_eq(is_region[i] ? src[i].dtype : x ? x->dtype : IR_VOID, dst->dtype))
            return PAIR_NONE;
    }
    return PAIR_HALF2;
}

/* How a pair of one operand is read or written: the element loads, and the
 * word holding both (a uint32 for 16-bit elements, a uint16 half of one for
 * 8-bit ones: the registers keep one width, uint32, as the vector copies
 * read and write them) through a view of the storage. */
typedef struct PairSide {
    const OpRegion *r;
    IrExpr *words; /* the view; NULL for 32-bit elements */
} PairSide;

/* Whether a buffer's storage (the array its views come from; a register
 * tile's: the thread's registers) is whole 4-byte words aligned to 4 bytes
 * (the code generator aligns a local array as far as its size allows). */
static bool whole_words(OpCtx *c, IrExpr *buffer)
{
    IrExpr *root = op_storage_root(c, buffer);
    int64_t elems = op_buffer_span(c, root);
    if (!elems) {
        LyCtx lc = op_ly_ctx(c);
        IrLayout *st = ir_buf(root)->layout ? ly_storage(&lc, ir_buf(root)->layout) : NULL;
        IrExpr *span = st ? ly_span(&lc, st, NULL) : NULL;
        if (!span || !op_const(span, &elems))
            return false;
    }
    int64_t bytes = elems * op_dtype_bytes(root->u.var.type->dtype);
    return bytes > 0 && bytes % 4 == 0 && ir_buf(root)->align >= 4;
}

/* The uint32 words of an 8- or 16-bit region's buffer when its pairs can be
 * read as halves of them: plain constant strides (no swizzle) and storage of
 * whole words (whole_words); 0 otherwise. */

static int64_t pair_words(OpCtx *c, const OpRegion *r)
{
    IrExpr *strides[OP_MAX_DIMS];
    int chunk;
    if (!op_region_strides(c, r, strides, &chunk) || chunk >= 0)
        return 0;
    int64_t n = op_buffer_span(c, r->buffer);
    if (!n || !whole_words(c, r->buffer))
        return 0;
    return (n * r->dtype.bits + 31) / 32;
}

static void pair_side(OpCtx *c, OpSeq *s, PairSide *p, const OpRegion *r)
{
    p->r = r;
    p->words =
        r->dtype.bits < 32 ? op_register_view(c, s, r->buffer, IR_UINT32, pair_words(c, r)) : NULL;
}

/* Element e (0, 1) of the pair at full index idx. */
static IrExpr *pair_elem(OpCtx *c, const PairSide *p, IrExpr *const *idx, int e)
{
    const OpRegion *r = p->r;
    IrExpr **at = TX_NEW_ARRAY(c->arena, IrExpr *, r->ndim);
    for (int d = 0; d < r->ndim; d++)
        at[d] = d == r->ndim - 1 && e ? op_bin(c, IR_E_ADD, idx[d], op_i32(c, e)) : idx[d];
    return op_load(c, r->buffer, at, r->ndim);
}

static IrExpr *u32(OpCtx *c, uint32_t v)
{
    return ir_int(c->arena, IR_UINT32, v, op_i32(c, 0)->span);
}

static IrExpr *bits_op(OpCtx *c, IrOp op, IrExpr *x, IrExpr *y)
{
    IrExpr *args[2] = {x, y};
    return op_call(c, op, x->dtype, args, 2);
}

/* The word of the pair at full index idx. */
static IrExpr *pair_word(OpCtx *c, const PairSide *p, IrExpr *const *idx)
{
    const OpRegion *r = p->r;
    IrExpr *flat = op_region_flat(c, r, idx);
    int per = 32 / r->dtype.bits; /* elements a uint32 */
    IrExpr *w = op_bin(c, IR_E_FLOORDIV, flat, op_i32(c, per));
    IrExpr *word = op_load(c, p->words, &w, 1);
    if (per == 2)
        return word;
    IrExpr *pair = op_bin(c, IR_E_FLOORDIV, flat, op_i32(c, 2));
    IrExpr *half = op_bin(c, IR_E_FLOORMOD, pair, op_i32(c, 2));
    IrExpr *shift = op_cast(c, IR_UINT32, op_bin(c, IR_E_MUL, half, op_i32(c, 16)));
    IrExpr *v = bits_op(c, IR_OP_SHIFT_RIGHT, word, shift);
    return op_cast(c, IR_UINT16, bits_op(c, IR_OP_BITWISE_AND, v, u32(c, 0xFFFF)));
}

/* A 16-bit scalar in both halves of a uint32, once before the loop: a
 * float32 value cast to 16 bits by one cvt.rn.{bf16x2,f16x2}.f32 of it twice,
 * any other by its bits. */
static IrExpr *splat16(OpCtx *c, OpSeq *s, IrExpr *x)
{
    IrExpr *from = x->kind == IR_E_CAST ? x->u.op.a : NULL;
    if (from && ir_dtype_eq(from->dtype, IR_FLOAT32)) {
        IrExpr *pair = op_alloc_local(c, s, "pair", IR_UINT32, 1), *zero = op_i32(c, 0);
        IrExpr *args[3] = {op_load(c, pair, &zero, 1), from, from};
        const char *cvt =
            ir_dtype_eq(x->dtype, IR_BFLOAT16) ? "cvt.rn.bf16x2.f32" : "cvt.rn.f16x2.f32";
        op_eval(c, s, op_ptx(c, cvt, args, 3));
        return op_load(c, pair, &zero, 1);
    }
    IrExpr *b = op_cast(c, IR_UINT32, op_call(c, IR_OP_REINTERPRET, IR_UINT16, &x, 1));
    IrExpr *v = op_var(c, "pair", IR_UINT32);
    op_bind(c, s, v, bits_op(c, IR_OP_BITWISE_OR, b, bits_op(c, IR_OP_SHIFT_LEFT, b, u32(c, 16))));
    return v;
}

/* The low (e 0) or high (e 1) float16 of a uint32, as float32. */
static IrExpr *half_of(OpCtx *c, IrExpr *w, int e)
{
    IrExpr *h = e ? bits_op(c, IR_OP_SHIFT_RIGHT, w, u32(c, 16))
                  : bits_op(c, IR_OP_BITWISE_AND, w, u32(c, 0xFFFF));
    h = op_cast(c, IR_UINT16, h);
    return op_cast(c, IR_FLOAT32, op_call(c, IR_OP_REINTERPRET, IR_FLOAT16, &h, 1));
}

/* One pair: dst's at didx from the sources' at sidx[i] (splat[i]: a
 * scalar source of HALF2 in both halves; tmp: F32X2's packing registers,
 * CVT_F8's float16 pair). */
static void emit_pair(OpCtx *c, OpSeq *s, PairKind kind, const char *f32x2, IrExpr *tmp,
                      IrExpr *const *splat, const PairSide *dst, const PairSide *src,
                      const bool *is_region, int n, IrExpr *const *didx,
                      IrExpr *const *const *sidx)
{
    const char *ty = ir_dtype_eq(dst->r->dtype, IR_BFLOAT16) ? "bf16x2" : "f16x2";
    if (kind == PAIR_F32X2) {
        IrExpr *d[2], *v[OP_EW_MAX_SRC][2];
        for (int e = 0; e < 2; e++) {
            d[e] = pair_elem(c, dst, didx, e);
            for (int i = 0; i < n; i++)
                v[i][e] = is_region[i] ? pair_elem(c, &src[i], sidx[i], e) : op_ew_scalar(c, i);
        }
        op_ew_f32x2_emit(c, s, f32x2, tmp, d, v, n);
        return;
    }
    if (kind == PAIR_HALF2) {
        bool bf = ty[0] == 'b';
        IrExpr *w[OP_EW_MAX_SRC];
        for (int i = 0; i < n; i++)
            w[i] = is_region[i] ? pair_word(c, &src[i], sidx[i]) : splat[i];
        IrExpr *args[4] = {pair_word(c, dst, didx)};
        IrExpr *one = u32(c, bf ? 0x3f803f80 : 0x3c003c00);
        IrExpr *neg = u32(c, bf ? 0xbf80bf80 : 0xbc00bc00);
        switch (c->call->u.tile.op) {
        case IR_TILE_ADD: args[1] = w[0], args[2] = one, args[3] = w[1]; break;
        case IR_TILE_SUB: args[1] = w[1], args[2] = neg, args[3] = w[0]; break;
        default: args[1] = w[0], args[2] = w[1], args[3] = u32(c, 0x80008000); break;
        }
        op_eval(c, s, op_ptx(c, tx_arena_printf(c->arena, "fma.rn.%s", ty), args, 4));
        return;
    }
    IrExpr *lo, *hi;
    if (kind == PAIR_CVT_F32) {
        lo = pair_elem(c, &src[0], sidx[0], 0), hi = pair_elem(c, &src[0], sidx[0], 1);
    } else {
        IrExpr *zero = op_i32(c, 0), *h = op_load(c, tmp, &zero, 1);
        const char *from = src[0].r->dtype.code == IR_DT_F8E5M2 ? "e5m2x2" : "e4m3x2";
        bool f16 = ir_dtype_eq(dst->r->dtype, IR_FLOAT16);
        IrExpr *args[2] = {f16 ? pair_word(c, dst, didx) : h, pair_word(c, &src[0], sidx[0])};
        op_eval(c, s, op_ptx(c, tx_arena_printf(c->arena, "cvt.rn.f16x2.%s", from), args, 2));
        if (f16)
            return;
        lo = half_of(c, h, 0), hi = half_of(c, h, 1);
        if (ir_dtype_eq(dst->r->dtype, IR_FLOAT32)) {
            IrExpr **at = TX_NEW_ARRAY(c->arena, IrExpr *, dst->r->ndim);
            for (int e = 0; e < 2; e++) {
                IrExpr *d = pair_elem(c, dst, didx, e);
                memcpy(at, d->u.access.indices, sizeof(IrExpr *) * (size_t)dst->r->ndim);
                op_store(c, s, dst->r->buffer, at, dst->r->ndim, e ? hi : lo);
            }
            return;
        }
    }
    IrExpr *args[3] = {pair_word(c, dst, didx), hi, lo};
    op_eval(c, s, op_ptx(c, tx_arena_printf(c->arena, "cvt.rn.%s.f32", ty), args, 3));
}

/* Thread scope, in pairs: loops over the region's non-unit dims, the
 * innermost a pair a step. */
static IrStmt *lower_private_pairs(OpCtx *c, PairKind kind, const char *f32x2,
                                   const OpRegion *dst, const OpRegion *src,
                                   const bool *is_region, int n)
{
    OpSeq out = {0}, body = {0};
    OpNest nest;
    op_nest_init(c, &nest, dst, IR_FOR_UNROLLED);
    nest.ext[nest.k - 1] /= 2;
    IrExpr *idx[OP_MAX_DIMS], *didx[OP_MAX_DIMS], *sidx_s[OP_EW_MAX_SRC][OP_MAX_DIMS];
    IrExpr *const *sidx[OP_EW_MAX_SRC];
    for (int d = 0; d < nest.k; d++)
        idx[d] = d == nest.k - 1 ? op_bin(c, IR_E_MUL, nest.var[d], op_i32(c, 2)) : nest.var[d];
    PairSide pd, ps[OP_EW_MAX_SRC];
    IrExpr *splat[OP_EW_MAX_SRC] = {0};
    pair_side(c, &out, &pd, dst);
    op_region_index(c, dst, idx, didx);
    for (int i = 0; i < n; i++) {
        sidx[i] = sidx_s[i];
        if (is_region[i]) {
            if (src[i].buffer == dst->buffer)
                ps[i] = pd, ps[i].r = &src[i];
            else
                pair_side(c, &out, &ps[i], &src[i]);
            op_region_index(c, &src[i], idx, sidx_s[i]);
        } else if (kind == PAIR_HALF2) {
            splat[i] = splat16(c, &out, op_ew_scalar(c, i));
        }
    }
    IrExpr *tmp = kind == PAIR_F32X2 ? op_alloc_local(c, &out, "pk", IR_UINT64, n)
                  : kind == PAIR_CVT_F8 ? op_alloc_local(c, &out, "h2", IR_UINT32, 1)
                                        : NULL;
    emit_pair(c, &body, kind, f32x2, tmp, splat, &pd, ps, is_region, n, didx, sidx);
    op_emit(&out, op_nest_wrap(c, &nest, op_seq_finish(c, &body)));
    return op_seq_finish(c, &out);
}

/* A distributed operand's pair as a private region: elements at..at+1 of its
 * thread's registers (the local view), so that the thread-scope pair forms
 * apply to it. */
static OpRegion view_pair(OpCtx *c, IrExpr *view, IrDType dt, IrExpr *at)
{
    OpRegion r = {.buffer = view, .ndim = 1, .dtype = dt, .mem = OP_MEM_LOCAL};
    r.start = TX_NEW_ARRAY(c->arena, IrExpr *, 1);
    r.extent = TX_NEW_ARRAY(c->arena, int64_t, 1);
    r.start[0] = at, r.extent[0] = 2;
    return r;
}

/* Whether the op and dtypes have a 16-bit or fp8 pair form (pair_kind's,
 * before its placement checks). Not float32 -> 16 bits: ptxas packs a
 * register tile's scalar conversions itself (F2FP.PACK_AB), and an asm
 * statement would only pin them in place. */
static bool half_pair_candidate(OpCtx *c, const OpRegion *dst, const OpRegion *src,
                                const bool *is_region, int n)
{
    IrTileOp op = c->call->u.tile.op;
    /* the tiles' own storage (their local views are their own roots) */
    if (!whole_words(c, dst->buffer))
        return false;
    for (int i = 0; i < n; i++)
        if (is_region[i] ? !whole_words(c, src[i].buffer) : op_ew_scalar_reads(c, i, dst))
            return false; /* a scalar: each step must see the values before it */
    if (op == IR_TILE_CAST)
        return is_region[0] && is_fp8(src[0].dtype) &&
               (is_half(dst->dtype) || ir_dtype_eq(dst->dtype, IR_FLOAT32));
    return (op == IR_TILE_ADD || op == IR_TILE_SUB || op == IR_TILE_MUL) && is_half(dst->dtype);
}

/* Collective scope: the thread's registers of each operand's local view, a
 * step at a time; pairs of consecutive registers with one packed instruction
 * where the thread-scope pair forms apply to them (f32x2 on sm_100a; 16-bit
 * arithmetic, casts to 16 bits and from fp8, at even registers). */
static IrStmt *lower_distributed(OpCtx *c, const OpRegion *dst, const OpRegion *src,
                                 const bool *is_region, int n)
{
    OpSeq out = {0};
    OpFrag f;
    const char *packed = op_ew_f32x2(c, dst, src, is_region, n);
    bool half = !packed && half_pair_candidate(c, dst, src, is_region, n);
    const char *why = op_frag(c, &out, dst, packed || half ? 2 : 1, &f);
    if (why) {
        op_seq_finish(c, &out);
        return op_decline(c, "%s", why);
    }
    int w = (int)f.vec;
    IrExpr *v[OP_EW_MAX_SRC][2], *d[2], *view[OP_EW_MAX_SRC] = {0}, *slot[OP_EW_MAX_SRC] = {0};
    for (int i = 0; i < n; i++) {
        view[i] = !is_region[i] ? NULL
                  : src[i].buffer == dst->buffer ? f.view : op_local_view(c, &out, src[i].buffer);
        slot[i] = is_region[i] ? op_frag_slot(c, &f, &src[i]) : NULL;
        for (int e = 0; e < w; e++) {
            IrExpr *at = is_region[i] ? op_bin(c, IR_E_ADD, slot[i], op_i32(c, e)) : NULL;
            v[i][e] = is_region[i] ? op_load(c, view[i], &at, 1) : op_ew_scalar(c, i);
        }
    }
    for (int e = 0; e < w; e++) {
        IrExpr *at = op_bin(c, IR_E_ADD, f.reg, op_i32(c, e));
        d[e] = op_load(c, f.view, &at, 1);
    }
    OpSeq body = {0};
    PairKind kind = PAIR_NONE;
    OpRegion pdst, psrc[OP_EW_MAX_SRC];
    if (half && w == 2) {
        const char *unused;
        pdst = view_pair(c, f.view, dst->dtype, f.reg);
        for (int i = 0; i < n; i++)
            if (is_region[i])
                psrc[i] = view_pair(c, view[i], src[i].dtype, slot[i]);
        kind = pair_kind(c, &pdst, psrc, is_region, n, &unused);
    }
    if (packed && w == 2) {
        IrExpr *pk = op_alloc_local(c, &out, "pk", IR_UINT64, n);
        op_ew_f32x2_emit(c, &body, packed, pk, d, v, n);
    } else if (kind) {
        PairSide pd, ps[OP_EW_MAX_SRC];
        IrExpr *splat[OP_EW_MAX_SRC] = {0}, *didx[1] = {f.reg}, *sidx_s[OP_EW_MAX_SRC][1];
        IrExpr *const *sidx[OP_EW_MAX_SRC];
        pair_side(c, &out, &pd, &pdst);
        for (int i = 0; i < n; i++) {
            sidx[i] = sidx_s[i];
            sidx_s[i][0] = slot[i];
            if (is_region[i] && view[i] == f.view)
                ps[i] = pd, ps[i].r = &psrc[i];
            else if (is_region[i])
                pair_side(c, &out, &ps[i], &psrc[i]);
            else if (kind == PAIR_HALF2)
                splat[i] = splat16(c, &out, op_ew_scalar(c, i));
        }
        IrExpr *tmp = kind == PAIR_CVT_F8 ? op_alloc_local(c, &out, "h2", IR_UINT32, 1) : NULL;
        emit_pair(c, &body, kind, NULL, tmp, splat, &pd, ps, is_region, n, didx, sidx);
    } else {
        for (int e = 0; e < w; e++) {
            IrExpr *v1[OP_EW_MAX_SRC], *at = op_bin(c, IR_E_ADD, f.reg, op_i32(c, e));
            for (int i = 0; i < n; i++)
                v1[i] = v[i][e];
            op_store(c, &body, f.view, &at, 1, op_ew_value(c, dst->dtype, v1, n));
        }
    }
    op_emit(&out, op_frag_wrap(c, &f, op_seq_finish(c, &body)));
    return op_seq_finish(c, &out);
}

IrStmt *op_elem_reg_lower(OpCtx *c)
{
    OpRegion dst, src[OP_EW_MAX_SRC];
    bool is_region[OP_EW_MAX_SRC];
    int n;
    op_ew_operands(c, &dst, src, is_region, &n);
    if (c->call->u.tile.scope == IR_SCOPE_THREAD) {
        const char *f32x2 = NULL;
        PairKind kind = pair_kind(c, &dst, src, is_region, n, &f32x2);
        return kind ? lower_private_pairs(c, kind, f32x2, &dst, src, is_region, n)
                    : lower_private(c, &dst, src, is_region, n);
    }
    return lower_distributed(c, &dst, src, is_region, n);
}
