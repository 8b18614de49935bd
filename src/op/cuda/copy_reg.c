/* copy, variant "reg": registers on at least one side. At thread scope the
 * thread copies its local array element by element in unrolled loops; at
 * warp, warpgroup or CTA scope the register side is a distributed tile and
 * the partition is induced by its layout (as the reference's register path):
 * each thread moves exactly the elements it holds, between its registers
 * (the tile's local view) and the memory side at the same logical position.
 * A register operand may be a sub-region of its tile that starts on a
 * thread's first element (`Dreg[:, i * 16:i * 16 + 16]`, i constant or a loop
 * variable): the thread moves the part of the sub-region it holds.
 * Where a thread holds consecutive elements of the last dimension in
 * consecutive registers (the mma accumulator's column pairs) and the memory
 * side allows it, they move as one plain C vector of 32-bit words, up to 16
 * bytes per step (8 and 16-bit elements packed into words).
 * With oob="zero", positions past a global buffer read zero and are not
 * written (the ragged edge of a GEMM's C tile). At warp, warpgroup or CTA
 * scope a destination in registers without thread axes is each thread's own
 * copy (weights every thread reads): every thread copies all of it, as at
 * thread scope; a source in registers must be spread over the threads (a
 * copy out of replicated registers would have every thread write every
 * element). */
#include "../partition.h"

/* At warp, warpgroup or CTA scope, a destination in registers that is not
 * spread over the threads (each thread holds all of it: weights every thread
 * reads) from memory or from such registers: each thread fills its own copy. */
static bool each_thread_copies(const OpCtx *c, const OpRegion *dst, const OpRegion *src)
{
    return c->call->u.tile.scope != IR_SCOPE_THREAD && dst->mem == OP_MEM_LOCAL &&
           !dst->distributed && !(src->mem == OP_MEM_LOCAL && src->distributed);
}

const char *op_copy_reg_accept(OpCtx *c)
{
    const char *why = op_need_scope_per(c, OP_ANY_SCOPE, IR_SCOPE_THREAD);
    OpRegion dst, src;
    if (why || (why = op_region(c, 0, &dst)) || (why = op_region(c, 1, &src)))
        return why;
    if (dst.mem != OP_MEM_LOCAL && src.mem != OP_MEM_LOCAL)
        return op_reason(c, "neither side is in registers");
    if (!ir_dtype_eq(dst.dtype, src.dtype))
        return op_reason(c, "the dtypes differ (use cast)");
    if (!op_regions_match(&dst, &src))
        return op_reason(c, "the regions' non-unit extents differ");
    bool thread = c->call->u.tile.scope == IR_SCOPE_THREAD, each = each_thread_copies(c, &dst, &src);
    const OpRegion *side[2] = {&dst, &src};
    for (int i = 0; i < 2; i++) {
        const OpRegion *r = side[i];
        if (r->mem == OP_MEM_TMEM || r->mem == OP_MEM_OTHER)
            return op_reason(c, "'%s' is in %s memory", r->buffer->u.var.name, op_mem_name(r->mem));
        if (r->mem == OP_MEM_LOCAL && thread == r->distributed && !each)
            return thread ? op_reason(c, "'%s' is spread over threads; a thread-scope call cannot "
                                         "use it", r->buffer->u.var.name)
                          : op_reason(c, "at %s scope a register source must be spread over the "
                                         "threads (a layout with thread axes); only a "
                                         "destination may be each thread's own copy",
                                      ir_scope_names[c->call->u.tile.scope]);
    }
    if (!thread && !each && dst.mem == OP_MEM_LOCAL && src.mem == OP_MEM_LOCAL)
        return op_frag_same(c, &dst, &src);
    return NULL;
}

/* dst[didx] = src[sidx], guarded at the edge of global buffers with oob. */
static IrStmt *move(OpCtx *c, IrExpr *dbuf, IrExpr **didx, int dn, const OpRegion *dreg,
                    IrExpr *sbuf, IrExpr **sidx, int sn, const OpRegion *sreg)
{
    bool oob = op_oob_zero(c);
    IrExpr *v = op_load(c, sbuf, sidx, sn);
    IrExpr *in_src = oob && sreg ? op_in_bounds(c, sreg, sidx) : NULL;
    if (in_src) {
        IrExpr *a[3] = {in_src, v, op_cast(c, v->dtype, op_i32(c, 0))};
        v = op_call(c, IR_OP_IF_THEN_ELSE, v->dtype, a, 3);
    }
    OpSeq s = {0};
    op_store(c, &s, dbuf, didx, dn, v);
    IrStmt *st = op_seq_finish(c, &s);
    IrExpr *in_dst = oob && dreg ? op_in_bounds(c, dreg, didx) : NULL;
    return in_dst ? op_if(c, in_dst, st, NULL) : st;
}

static IrStmt *lower_private(OpCtx *c, const OpRegion *dst, const OpRegion *src)
{
    OpNest nest;
    op_nest_init(c, &nest, dst, IR_FOR_UNROLLED);
    IrExpr **didx = TX_NEW_ARRAY(c->arena, IrExpr *, dst->ndim),
           **sidx = TX_NEW_ARRAY(c->arena, IrExpr *, src->ndim);
    op_region_index(c, dst, nest.var, didx);
    op_region_index(c, src, nest.var, sidx);
    return op_nest_wrap(c, &nest, move(c, dst->buffer, didx, dst->ndim, dst, src->buffer, sidx,
                                       src->ndim, src));
}

/* The memory side's indices at the fragment's logical position. */
static IrExpr **memory_index(OpCtx *c, const OpRegion *frag_r, const OpFrag *f, const OpRegion *mem)
{
    IrExpr *idx[OP_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < frag_r->ndim && k < OP_MAX_DIMS; d++)
        if (frag_r->extent[d] != 1)
            idx[k++] = f->index[d];
    IrExpr **out = TX_NEW_ARRAY(c->arena, IrExpr *, mem->ndim);
    op_region_index(c, mem, idx, out);
    return out;
}

/* Elements of 8, 16 or 32 bits (scalars) move in vectors of 32-bit words. */
static bool packable(IrDType t)
{
    return t.lanes == 1 && (t.bits == 8 || t.bits == 16 || t.bits == 32) &&
           t.code != IR_DT_HANDLE && t.code != IR_DT_BOOL;
}

static IrExpr *u32_const(OpCtx *c, int64_t v) { return ir_int(c->arena, IR_UINT32, v, c->call->span); }

/* Register i of the step (an element of the fragment's view). */
static IrExpr *step_reg(OpCtx *c, const OpFrag *f, int i)
{
    IrExpr *slot = op_bin(c, IR_E_ADD, f->reg, op_i32(c, i));
    return op_load(c, f->view, &slot, 1);
}

/* Word w of the step: its elements' bits, the first in the low bits. */
static IrExpr *pack_word(OpCtx *c, const OpFrag *f, IrDType t, int w)
{
    int per = 32 / t.bits;
    IrDType bits_t = {IR_DT_UINT, (uint8_t)t.bits, 1};
    IrExpr *word = NULL;
    for (int i = 0; i < per; i++) {
        IrExpr *v = step_reg(c, f, w * per + i);
        IrExpr *b = op_cast(c, IR_UINT32, op_call(c, IR_OP_REINTERPRET, bits_t, &v, 1));
        if (i) {
            IrExpr *sh[2] = {b, u32_const(c, i * t.bits)};
            b = op_call(c, IR_OP_SHIFT_LEFT, IR_UINT32, sh, 2);
            IrExpr *or[2] = {word, b};
            b = op_call(c, IR_OP_BITWISE_OR, IR_UINT32, or, 2);
        }
        word = b;
    }
    return word;
}

/* Element i of a loaded word into its register. */
static void unpack_word(OpCtx *c, OpSeq *s, const OpFrag *f, IrDType t, IrExpr *word, int w)
{
    int per = 32 / t.bits;
    IrDType bits_t = {IR_DT_UINT, (uint8_t)t.bits, 1};
    for (int i = 0; i < per; i++) {
        IrExpr *sh[2] = {word, u32_const(c, i * t.bits)};
        IrExpr *part = op_cast(c, bits_t, i ? op_call(c, IR_OP_SHIFT_RIGHT, IR_UINT32, sh, 2) : word);
        IrExpr *slot = op_bin(c, IR_E_ADD, f->reg, op_i32(c, w * per + i));
        IrStmt *st = ir_stmt(c->arena, IR_S_STORE, c->call->span);
        st->u.store.buffer = f->view, st->u.store.n = 1;
        st->u.store.indices = TX_NEW_ARRAY(c->arena, IrExpr *, 1);
        st->u.store.indices[0] = slot;
        st->u.store.value = op_call(c, IR_OP_REINTERPRET, t, &part, 1);
        op_emit(s, st);
    }
}

/* One step of f->vec consecutive elements between registers and memory as
 * one vector of 32-bit words through a word array (elements of 8 and 16 bits
 * packed, the first in the low bits; 32-bit ones reinterpreted): a plain C
 * access, `*(uint2*)C_vec = *(uint2*)words`, that the compiler schedules and
 * allocates around (an asm statement would pin it). With oob="zero", a load
 * past the edge gives zeros and a store past it is dropped. */
static IrStmt *move_vector(OpCtx *c, const OpFrag *f, const OpRegion *mem, IrExpr **midx,
                           bool to_regs)
{
    IrDType t = mem->dtype;
    bool packed = t.bits < 32;
    int words = (int)f->vec * t.bits / 32;
    OpSeq out = {0}, access = {0}, zero = {0};
    IrExpr *tmp = op_alloc_local(c, &out, "words", IR_UINT32, words), *at = op_i32(c, 0);
    for (int w = 0; !to_regs && w < words; w++) {
        IrExpr *v = step_reg(c, f, w);
        op_store(c, &out, tmp, &(IrExpr *){op_i32(c, w)}, 1,
                 packed ? pack_word(c, f, t, w) : op_call(c, IR_OP_REINTERPRET, IR_UINT32, &v, 1));
    }
    IrExpr *view = op_view_at(c, &access, mem->buffer, midx, mem->ndim, IR_UINT32, words);
    if (to_regs)
        op_vector_store(c, &access, tmp, at, words, op_vector_load(c, view, at, words));
    else
        op_vector_store(c, &access, view, at, words, op_vector_load(c, tmp, at, words));
    for (int w = 0; to_regs && w < words; w++)
        op_store(c, &zero, tmp, &(IrExpr *){op_i32(c, w)}, 1, u32_const(c, 0));
    IrExpr *in = op_oob_zero(c) ? op_in_bounds(c, mem, midx) : NULL;
    IrStmt *body = op_seq_finish(c, &access);
    op_emit(&out, in ? op_if(c, in, body, to_regs ? op_seq_finish(c, &zero) : NULL) : body);
    tx_vec_free(&zero.v);
    for (int w = 0; to_regs && w < words; w++) {
        IrExpr *word = op_load(c, tmp, &(IrExpr *){op_i32(c, w)}, 1);
        if (packed) {
            unpack_word(c, &out, f, t, word, w);
        } else {
            IrExpr *slot = op_bin(c, IR_E_ADD, f->reg, op_i32(c, w));
            op_store(c, &out, f->view, &slot, 1, op_call(c, IR_OP_REINTERPRET, t, &word, 1));
        }
    }
    return op_seq_finish(c, &out);
}

static IrStmt *lower_distributed(OpCtx *c, const OpRegion *dst, const OpRegion *src)
{
    bool to_regs = dst->mem == OP_MEM_LOCAL;
    const OpRegion *regs = to_regs ? dst : src, *other = to_regs ? src : dst;
    int64_t max_vec = 1;
    if (other->mem != OP_MEM_LOCAL && packable(other->dtype))
        max_vec = op_region_vector(c, other, 128 / other->dtype.bits,
                                   op_oob_zero(c) && other->mem == OP_MEM_GLOBAL);
    OpSeq out = {0};
    OpFrag f;
    const char *why = op_frag(c, &out, regs, max_vec, &f);
    if (why) {
        op_seq_finish(c, &out);
        return op_decline(c, "%s", why);
    }
    IrStmt *body;
    if (other->mem == OP_MEM_LOCAL) {
        IrExpr *oview = op_local_view(c, &out, other->buffer), *oslot = op_frag_slot(c, &f, other);
        body = to_regs ? move(c, f.view, &f.reg, 1, NULL, oview, &oslot, 1, NULL)
                       : move(c, oview, &oslot, 1, NULL, f.view, &f.reg, 1, NULL);
    } else {
        IrExpr **midx = memory_index(c, regs, &f, other);
        if (f.vec * other->dtype.bits >= 32)
            body = move_vector(c, &f, other, midx, to_regs);
        else
            body = to_regs ? move(c, f.view, &f.reg, 1, NULL, other->buffer, midx, other->ndim, other)
                           : move(c, other->buffer, midx, other->ndim, other, f.view, &f.reg, 1, NULL);
    }
    op_emit(&out, op_frag_wrap(c, &f, body));
    return op_seq_finish(c, &out);
}

IrStmt *op_copy_reg_lower(OpCtx *c)
{
    OpRegion dst, src;
    op_region(c, 0, &dst), op_region(c, 1, &src);
    if (c->call->u.tile.scope == IR_SCOPE_THREAD || each_thread_copies(c, &dst, &src))
        return lower_private(c, &dst, &src);
    return lower_distributed(c, &dst, &src);
}
