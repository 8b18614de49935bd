/* copy, variants "vec_16b" ... "vec_256b": one thread moves 2, 4, 8, 16 or
 * 32 bytes with one ld and/or one st of that width, as the reference's
 * forced vector copies, or a whole number of such vectors (at most
 * MAX_VECTORS, one after another: a thread's run of 64 bfloat16 registers is
 * eight 16-byte stores). Only a call that names the variant (dispatch=)
 * gets it. Between global, shared and registers (global <-> shared, global
 * <-> local, shared <-> local). The width is bits, not values: containers of
 * uint32 (uint16 for 2 bytes), `ld.global.v4.u32` for 16 bytes, `.v8.u32`
 * for 32 (sm_100a, global only), `.v2.u32`, `.u32`, `.u16`. The move is one
 * C assignment of the containers' vector (`*(uint4*)S_vec =
 * *(uint4*)(r_flat + 4)`): a memory side through a view at its first
 * element, a register side in place through a view of its storage; the
 * compiler schedules it like any access. Only a load with qualifiers stays
 * an asm ld (into the registers, or into uint32 temporaries that are then
 * stored). Config, for a global source: cache="nc" (ld.global.nc),
 * l1_evict="L1::...", l2_evict="L2::evict_*" (the 256-bit lines only),
 * prefetch_size="L2::64B" / "128B" / "256B", in the ISA's qualifier order.
 * Every side must be one contiguous run starting aligned to the width:
 * proven, or, where the start depends on integer scalar params, checked on
 * them at launch. */
#include <string.h>

#include "../partition.h"

/* vectors one call may move: the copies are unrolled */
#define MAX_VECTORS 64

/* The widths of the table's rows, by the bytes they move. */
static const char *variant_name(int bytes)
{
    switch (bytes) {
    case 32: return "vec_256b";
    case 16: return "vec_128b";
    case 8: return "vec_64b";
    case 4: return "vec_32b";
    default: return "vec_16b";
    }
}

/* The instruction's operand shape: "v8.u32" and its container count and type. */
static const char *tail(int bytes, int *lanes, IrDType *container)
{
    *container = bytes == 2 ? IR_UINT16 : IR_UINT32;
    *lanes = bytes < 4 ? 1 : bytes / 4;
    switch (bytes) {
    case 32: return "v8.u32";
    case 16: return "v4.u32";
    case 8: return "v2.u32";
    case 4: return "u32";
    default: return "u16";
    }
}

static const char *space(const OpRegion *r) { return r->mem == OP_MEM_GLOBAL ? "global" : "shared"; }

static const char *str_config(OpCtx *c, const char *key)
{
    IrExpr *v = op_config(c, key);
    return v && v->kind == IR_E_STR && *v->u.str ? v->u.str : NULL;
}

static bool one_of(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list))
            return true;
    return false;
}

/* The load's qualifiers from the config, or why they do not apply; *qualified:
 * whether it has any (a plain load is a C access, the others stay asm). */
static const char *load_chain(OpCtx *c, const OpRegion *src, int bytes, const char **out,
                              bool *qualified)
{
    static const char *const l1[] = {"L1::evict_normal", "L1::evict_unchanged", "L1::evict_first",
                                     "L1::evict_last", "L1::no_allocate", NULL};
    static const char *const l2[] = {"L2::evict_first", "L2::evict_last", "L2::evict_normal", NULL};
    static const char *const pf[] = {"L2::64B", "L2::128B", "L2::256B", NULL};
    static const struct {
        const char *key;
        const char *const *values;
    } hints[] = {{"l1_evict", l1}, {"l2_evict", l2}, {"prefetch_size", pf}};
    IrExpr *cache_e = op_config(c, "cache");
    const char *cache = str_config(c, "cache");
    if (cache_e && cache_e->kind != IR_E_NONE && (!cache || strcmp(cache, "nc")))
        return op_reason(c, "cache= takes \"nc\" (ld.global.nc) or None");
    int lanes;
    const char *chain = tx_arena_printf(c->arena, "ld.%s%s", space(src), cache ? ".nc" : "");
    bool hinted = cache != NULL;
    for (size_t i = 0; i < TX_ARRAY_LEN(hints); i++) {
        const char *v = str_config(c, hints[i].key);
        if (!v)
            continue;
        if (!one_of(v, hints[i].values))
            return op_reason(c, "%s=\"%s\" is not one of the PTX qualifiers it takes", hints[i].key,
                             v);
        if (i == 1 && bytes != 32)
            return op_reason(c, "l2_evict= exists only on the 256-bit loads (vec_256b)");
        chain = tx_arena_printf(c->arena, "%s.%s", chain, v);
        hinted = true;
    }
    if (hinted && src->mem != OP_MEM_GLOBAL)
        return op_reason(c, "the cache configuration applies to loads from global memory; the "
                            "source is in %s memory", op_mem_name(src->mem));
    IrDType container;
    *out = tx_arena_printf(c->arena, "%s.%s", chain, tail(bytes, &lanes, &container));
    *qualified = hinted;
    return NULL;
}

/* The side is a whole number of `n`-element vectors along its innermost
 * dimension, each one contiguous run starting aligned to the width. */
static const char *check_side(OpCtx *c, const OpRegion *r, int64_t n)
{
    int64_t size = op_region_size(r);
    if (size % n || size / n > MAX_VECTORS)
        return op_reason(c, "the region of '%s' has %lld elements, not 1 to %d vectors of %lld %s",
                         r->buffer->u.var.name, (long long)size, MAX_VECTORS, (long long)n,
                         n == 1 ? "element" : "elements");
    if (r->distributed)
        return op_reason(c, "'%s' is spread over threads; a thread-scope copy cannot use it",
                         r->buffer->u.var.name);
    if (op_region_vector(c, r, n, false) < n && !op_region_vector_at_launch(c, r, n))
        return op_reason(c, "the region of '%s' is not %s", r->buffer->u.var.name,
                         size == n ? "one contiguous run aligned to the width"
                                   : "vectors of the width, each contiguous and aligned");
    return NULL;
}

static const char *regions(OpCtx *c, int bytes, OpRegion *dst, OpRegion *src, const char **ld,
                           bool *qualified)
{
    const char *why;
    if ((why = op_region(c, 0, dst)) || (why = op_region(c, 1, src)))
        return why;
    bool ok = dst->mem != src->mem && dst->mem <= OP_MEM_LOCAL && src->mem <= OP_MEM_LOCAL;
    if (!ok)
        return op_reason(c, "copies between two of global, shared and local memory; here %s to %s",
                         op_mem_name(src->mem), op_mem_name(dst->mem));
    if (!ir_dtype_eq(dst->dtype, src->dtype))
        return op_reason(c, "the dtypes differ (use cast)");
    int esize = op_dtype_bytes(dst->dtype);
    if (!esize || bytes % esize)
        return op_reason(c, "%d bytes are not a whole number of %d-bit elements", bytes,
                         dst->dtype.bits * dst->dtype.lanes);
    if ((why = check_side(c, dst, bytes / esize)) || (why = check_side(c, src, bytes / esize)))
        return why;
    if (op_region_size(dst) != op_region_size(src))
        return op_reason(c, "'%s' has %lld elements, '%s' %lld", dst->buffer->u.var.name,
                         (long long)op_region_size(dst), src->buffer->u.var.name,
                         (long long)op_region_size(src));
    return load_chain(c, src, bytes, ld, qualified);
}

static const char *accept(OpCtx *c, int bytes)
{
    const char *name = variant_name(bytes), *ld;
    const char *forced = c->call->u.tile.dispatch;
    if (!forced || strcmp(forced, name))
        return op_reason(c, "only when asked for with dispatch=\"%s\"", name);
    const char *why = op_need_scope(c, OP_SCOPE_BIT(IR_SCOPE_THREAD));
    OpRegion dst, src;
    bool qualified;
    if (why || (why = regions(c, bytes, &dst, &src, &ld, &qualified)))
        return why;
    int lanes;
    IrDType container;
    const char *t = tail(bytes, &lanes, &container);
    if (src.mem != OP_MEM_LOCAL && (why = op_need_ptx(c, name, ld)))
        return why;
    if (dst.mem == OP_MEM_LOCAL)
        return NULL;
    return op_need_ptx(c, name, tx_arena_printf(c->arena, "st.%s.%s", space(&dst), t));
}

const char *op_copy_vec256_accept(OpCtx *c) { return accept(c, 32); }
const char *op_copy_vec128_accept(OpCtx *c) { return accept(c, 16); }
const char *op_copy_vec64_accept(OpCtx *c) { return accept(c, 8); }
const char *op_copy_vec32_accept(OpCtx *c) { return accept(c, 4); }
const char *op_copy_vec16_accept(OpCtx *c) { return accept(c, 2); }

/* A local side's registers as containers: the view of its storage (made
 * once into *view) and the index of the region's first container in it. */
static IrExpr *register_view(OpCtx *c, OpSeq *s, const OpRegion *r, IrDType container, int lanes,
                             IrExpr **first, IrExpr **view)
{
    IrExpr *at = op_region_flat(c, r, r->start);
    int esize = op_dtype_bytes(r->dtype), csize = container.bits / 8;
    *first = esize >= csize ? op_bin(c, IR_E_MUL, at, op_i32(c, esize / csize))
                            : op_bin(c, IR_E_FLOORDIV, at, op_i32(c, csize / esize));
    if (!*view)
        *view = op_register_view(c, s, r->buffer, container, lanes);
    return *view;
}

/* A side as `lanes` containers from *first of *view: the registers in place,
 * or a view at a memory region's first element. */
static IrExpr *side_view(OpCtx *c, OpSeq *s, const OpRegion *r, IrDType container, int lanes,
                         IrExpr **first, IrExpr **regs)
{
    if (r->mem == OP_MEM_LOCAL)
        return register_view(c, s, r, container, lanes, first, regs);
    *first = op_i32(c, 0);
    return op_view_at(c, s, r->buffer, r->start, r->ndim, container, lanes);
}

void op_register_words(OpCtx *c, OpSeq *s, const OpRegion *r, IrDType container, int lanes,
                       IrExpr **out)
{
    IrExpr *first, *regs = NULL, *view = register_view(c, s, r, container, lanes, &first, &regs);
    for (int i = 0; i < lanes; i++) {
        IrExpr *w = op_bin(c, IR_E_ADD, first, op_i32(c, i));
        out[i] = op_load(c, view, &w, 1);
    }
}

/* The qualified load: one asm ld into the destination's registers, or into
 * uint32 temporaries when the destination is memory (then their vector). */
static IrExpr *asm_load(OpCtx *c, OpSeq *s, const char *ld, const OpRegion *dst,
                        const OpRegion *src, IrDType container, int lanes, IrExpr **regs)
{
    IrExpr *first, *into, *args[9];
    if (dst->mem == OP_MEM_LOCAL) {
        into = register_view(c, s, dst, container, lanes, &first, regs);
    } else {
        into = op_alloc_local(c, s, "tmp", container, lanes);
        first = op_i32(c, 0);
    }
    for (int i = 0; i < lanes; i++) {
        IrExpr *w = op_bin(c, IR_E_ADD, first, op_i32(c, i));
        args[i] = op_load(c, into, &w, 1);
    }
    args[lanes] = op_address_of(c, src->buffer, src->start, src->ndim);
    op_eval(c, s, op_ptx(c, ld, args, lanes + 1));
    return dst->mem == OP_MEM_LOCAL ? NULL : op_vector_load(c, into, first, lanes);
}

/* Vector i (n elements) of a region: its start at flat element i * n, in
 * row-major order over its non-unit dimensions, n along the innermost. */
static OpRegion vector_of(OpCtx *c, const OpRegion *r, int64_t n, int64_t i)
{
    if (op_region_size(r) == n)
        return *r;
    int64_t ext[OP_MAX_DIMS];
    int dim[OP_MAX_DIMS];
    int k = op_region_dims(r, ext, dim);
    IrExpr *idx[OP_MAX_DIMS];
    int64_t flat = i * n;
    for (int j = k - 1; j >= 0; j--) {
        idx[j] = op_i32(c, flat % ext[j]);
        flat /= ext[j];
    }
    OpRegion v = *r;
    v.start = TX_NEW_ARRAY(c->arena, IrExpr *, r->ndim);
    v.extent = TX_NEW_ARRAY(c->arena, int64_t, r->ndim);
    op_region_index(c, r, idx, v.start);
    for (int d = 0; d < r->ndim; d++)
        v.extent[d] = k && d == dim[k - 1] ? n : 1;
    return v;
}

/* One vector from src to dst: a C assignment of the containers' vector
 * (`*(uint4*)dst = *(uint4*)src`), the load as asm when it has qualifiers.
 * regs: the register views of dst and src, made by the first vector. */
static void copy_vector(OpCtx *c, OpSeq *out, const char *ld, bool qualified, const OpRegion *dst,
                        const OpRegion *src, IrDType container, int lanes, IrExpr **regs)
{
    IrExpr *value, *first;
    if (qualified) {
        value = asm_load(c, out, ld, dst, src, container, lanes, &regs[0]);
        if (!value)
            return;
    } else {
        IrExpr *view = side_view(c, out, src, container, lanes, &first, &regs[1]);
        value = op_vector_load(c, view, first, lanes);
    }
    IrExpr *view = side_view(c, out, dst, container, lanes, &first, &regs[0]);
    op_vector_store(c, out, view, first, lanes, value);
}

IrStmt *op_copy_vec_width_lower(OpCtx *c)
{
    const char *name = c->call->u.tile.dispatch, *ld;
    int bytes = 2;
    while (bytes < 32 && strcmp(variant_name(bytes), name))
        bytes *= 2;
    OpRegion dst, src;
    bool qualified;
    regions(c, bytes, &dst, &src, &ld, &qualified);
    int lanes;
    IrDType container;
    tail(bytes, &lanes, &container);
    int64_t n = bytes / op_dtype_bytes(dst.dtype), count = op_region_size(&dst) / n;
    OpSeq out = {0};
    IrExpr *regs[2] = {NULL, NULL};
    for (int64_t i = 0; i < count; i++) {
        OpRegion d = vector_of(c, &dst, n, i), s = vector_of(c, &src, n, i);
        copy_vector(c, &out, ld, qualified, &d, &s, container, lanes, regs);
    }
    return op_seq_finish(c, &out);
}
