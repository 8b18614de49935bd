/* copy_async, variant "tma": global <-> shared with cp.async.bulk.tensor
 * (sm_90a+), issued by one thread (call it at thread scope under an
 * election, `if tx == 0:`), as the reference's tma_auto for the plain cases.
 *
 * The global side is a row-major buffer (rank <= 5, no offset); its shape
 * gives the descriptor's dimensions (innermost first, as CUDA orders them),
 * byte strides from the shape. The shared side must hold the region as one
 * contiguous row-major box, optionally under a 32/64/128-byte swizzle whose
 * atom is exactly one box row (the descriptor then swizzles the same way).
 * The box is the region's extents; an outer extent over 256 is cut into
 * issues (an unrolled loop, each with its shared offset and coordinate).
 *
 * Host side: the descriptor is encoded by statements placed first in the
 * device region, which SplitHostDevice hoists to the host function:
 *   A_tensormap: T.let[T.TensorMap()] = T.tvm_stack_alloca("tensormap", 1)
 *   T.call_packed("runtime.cuTensorMapEncodeTiled", A_tensormap, dtype, rank,
 *                 A.data, dims..., byte strides..., box..., element strides...,
 *                 interleave, swizzle, l2_promotion, oob_fill)
 * one per distinct descriptor of the function. Device side, a load is
 * `cp.async.bulk.tensor.<r>d.shared::cluster.global.mbarrier::complete_tx::bytes
 * [smem], [map, {coords}], [mbar]` completing on config mbar= (the caller
 * arms the barrier with expect_tx and waits), a store is
 * `cp.async.bulk.tensor.<r>d.global.shared::cta.tile.bulk_group` (the caller
 * fences before it and commits/waits the bulk group after), as in the
 * reference: the variant emits only the issue. */
#include <stdio.h>
#include <string.h>

#include "../partition.h"

#define TMA_MAX_RANK 5

typedef struct Tma {
    OpRegion smem, gmem;
    bool load;
    int rank;
    int64_t box[TMA_MAX_RANK], issues[TMA_MAX_RANK]; /* per global dim, outermost first */
    int64_t smem_stride[TMA_MAX_RANK];               /* shared elements per step of a global dim */
    int swizzle;                                      /* 0 none, 1 32B, 2 64B, 3 128B */
    int esize;
} Tma;

/* CUtensorMapDataType of a dtype (the reference's table), -1 if none. */
static int tma_dtype(IrDType t)
{
    if (t.lanes != 1)
        return -1;
    switch (t.code) {
    case IR_DT_UINT: return t.bits == 8 ? 0 : t.bits == 16 ? 1 : t.bits == 32 ? 2 : t.bits == 64 ? 4 : -1;
    case IR_DT_INT: return t.bits == 8 ? 0 : t.bits == 32 ? 3 : t.bits == 64 ? 5 : -1;
    case IR_DT_FLOAT: return t.bits == 16 ? 6 : t.bits == 32 ? 7 : t.bits == 64 ? 8 : -1;
    case IR_DT_BFLOAT: return t.bits == 16 ? 9 : -1;
    default: return t.bits == 8 && ir_dtype_is_float(t) ? 0 : -1; /* fp8 kinds travel as bytes */
    }
}

static bool zero(const IrExpr *e)
{
    int64_t v;
    return op_const(e, &v) && v == 0;
}

static const char *check_global(OpCtx *c, Tma *t)
{
    const OpRegion *g = &t->gmem;
    const IrBufferType *bt = ir_buf(g->buffer);
    IrExpr **st = TX_NEW_ARRAY(c->arena, IrExpr *, g->ndim);
    int chunk;
    if (g->ndim > TMA_MAX_RANK || bt->nstrides || !zero(bt->elem_offset) ||
        !op_region_strides(c, g, st, &chunk) || chunk >= 0)
        return op_reason(c, "the global buffer '%s' must be row-major, of rank 5 at most, at "
                            "offset 0", g->buffer->u.var.name);
    t->rank = g->ndim;
    /* every byte stride (of dims 1.. innermost first) a multiple of 16 */
    IrExpr *inner = op_i32(c, t->esize);
    for (int d = g->ndim - 1; d > 0; d--) {
        inner = op_bin(c, IR_E_MUL, inner, bt->shape[d]);
        if (op_known_pow2(inner) < 16)
            return op_reason(c, "the byte stride of dimension %d of '%s' is not a known multiple of "
                                "16", d - 1, g->buffer->u.var.name);
    }
    if (bt->align < 16)
        return op_reason(c, "'%s' is not 16-byte aligned", g->buffer->u.var.name);
    return NULL;
}

/* The shared region is one contiguous row-major box; records the shared
 * stride of each global dimension and the swizzle. */
static const char *check_shared(OpCtx *c, Tma *t)
{
    const OpRegion *s = &t->smem;
    IrExpr **st = TX_NEW_ARRAY(c->arena, IrExpr *, s->ndim);
    int chunk;
    if (!op_region_strides(c, s, st, &chunk))
        return op_reason(c, "the layout of '%s' is not row-major storage (or a swizzle over it)",
                         s->buffer->u.var.name);
    int64_t want = 1, strides[OP_MAX_DIMS];
    int dim[OP_MAX_DIMS], k = op_region_dims(s, NULL, dim);
    for (int i = k - 1; i >= 0; i--) {
        if (!op_const(st[dim[i]], &strides[i]) || strides[i] != want)
            return op_reason(c, "the region of '%s' is not one contiguous row-major box",
                             s->buffer->u.var.name);
        want *= s->extent[dim[i]];
    }
    for (int d = 0, i = 0; d < t->gmem.ndim; d++)
        t->smem_stride[d] = t->gmem.extent[d] == 1 ? 0 : strides[i++];
    t->swizzle = 0;
    int64_t align_bytes = 16;
    if (s->layout && s->layout->kind == IR_LAYOUT_COMPOSE) {
        int bytes = ly_swizzle_bytes(s->layout, s->dtype);
        int64_t row = t->gmem.extent[t->gmem.ndim - 1] * t->esize;
        if (bytes <= 0 || row != bytes)
            return op_reason(c, "the swizzle of '%s' is not a TMA mode whose atom is one %lld-byte "
                                "box row", s->buffer->u.var.name, (long long)row);
        t->swizzle = bytes == 32 ? 1 : bytes == 64 ? 2 : 3;
        align_bytes = bytes * 8;
    }
    const IrBufferType *bt = ir_buf(s->buffer);
    int64_t off = op_known_pow2(bt->elem_offset);
    for (int d = 0; d < s->ndim; d++) {
        int64_t p = op_known_pow2(s->start[d]) * op_known_pow2(st[d]);
        off = p < off ? p : off;
    }
    if (bt->align < align_bytes || off * t->esize < align_bytes)
        return op_reason(c, "the box in '%s' is not %lld-byte aligned", s->buffer->u.var.name,
                         (long long)align_bytes);
    return NULL;
}

/* Box and issues per global dimension. */
static const char *plan_boxes(OpCtx *c, Tma *t)
{
    for (int d = 0; d < t->rank; d++) {
        int64_t e = t->gmem.extent[d], b = e;
        if (b > 256) /* the largest divisor of e that fits a box */
            for (b = 256; e % b; b--)
                ;
        if (b != e && d == t->rank - 1)
            return op_reason(c, "the innermost box extent %lld is over 256", (long long)e);
        t->box[d] = b, t->issues[d] = e / b;
    }
    int64_t inner = t->box[t->rank - 1] * t->esize;
    if (inner % 16)
        return op_reason(c, "the innermost box is %lld bytes, not a multiple of 16", (long long)inner);
    return NULL;
}

static const char *read_call(OpCtx *c, Tma *t)
{
    memset(t, 0, sizeof *t);
    OpRegion dst, src;
    const char *why;
    if ((why = op_region(c, 0, &dst)) || (why = op_region(c, 1, &src)))
        return why;
    t->load = dst.mem == OP_MEM_SHARED && src.mem == OP_MEM_GLOBAL;
    if (!t->load && !(dst.mem == OP_MEM_GLOBAL && src.mem == OP_MEM_SHARED))
        return op_reason(c, "copies between global and shared; here %s to %s",
                         op_mem_name(src.mem), op_mem_name(dst.mem));
    t->smem = t->load ? dst : src, t->gmem = t->load ? src : dst;
    if (!ir_dtype_eq(dst.dtype, src.dtype) || tma_dtype(dst.dtype) < 0)
        return op_reason(c, "the dtypes differ or have no tensor-map type");
    if (!op_regions_match(&dst, &src))
        return op_reason(c, "the regions' non-unit extents differ");
    t->esize = op_dtype_bytes(dst.dtype);
    if ((why = check_global(c, t)) || (why = check_shared(c, t)) || (why = plan_boxes(c, t)))
        return why;
    if (t->load && !op_config(c, "mbar"))
        return op_reason(c, "a TMA load completes on an mbarrier: give mbar=");
    return NULL;
}

/* The instruction of one issue; a load takes the .cta_group::1 form where the
 * target has it. */
static const char *instruction(OpCtx *c, const Tma *t)
{
    if (!t->load)
        return tx_arena_printf(c->arena, "cp.async.bulk.tensor.%dd.global.shared::cta.tile."
                                         "bulk_group", t->rank);
    const char *load = tx_arena_printf(c->arena, "cp.async.bulk.tensor.%dd.shared::cluster.global."
                                                 "mbarrier::complete_tx::bytes", t->rank);
    const char *grouped = tx_arena_printf(c->arena, "%s.cta_group::1", load);
    return op_has_ptx(c, grouped) ? grouped : load;
}

const char *op_tma_accept(OpCtx *c)
{
    Tma t;
    const char *why = read_call(c, &t);
    if (why || (why = op_need_ptx(c, "TMA", instruction(c, &t))))
        return why;
    why = op_need_scope(c, OP_SCOPE_BIT(IR_SCOPE_THREAD));
    return why ? op_reason(c, "%s (one elected thread issues TMA)", why) : NULL;
}

/* ---------------------------------------------------------------- host descriptor */

/* The tensor-map variable of the descriptor, encoded once per function. */
static IrExpr *tensor_map(OpCtx *c, const Tma *t)
{
    const IrExpr *g = t->gmem.buffer;
    char key[256];
    int len = snprintf(key, sizeof key, "tma:%p:%d", (const void *)g, t->swizzle);
    for (int d = 0; d < t->rank && len < (int)sizeof key - 24; d++)
        len += snprintf(key + len, sizeof key - (size_t)len, ":%lld", (long long)t->box[d]);
    IrExpr *map = op_memo_get(c, key);
    if (map)
        return map;
    IrType *ty = TX_NEW(c->arena, IrType);
    ty->kind = IR_TY_TENSORMAP, ty->dtype = IR_HANDLE, ty->scope = "global";
    map = ir_var(c->arena, tx_arena_printf(c->arena, "%s_tensormap", g->u.var.name), ty,
                 c->call->span);
    op_memo_put(c, key, map);
    IrExpr *alloca_args[2] = {ir_str(c->arena, "tensormap", c->call->span), op_i32(c, 1)};
    OpSeq s = {0};
    op_bind(c, &s, map, op_call(c, IR_OP_STACK_ALLOCA, IR_HANDLE, alloca_args, 2));
    const IrBufferType *bt = ir_buf(g);
    IrExpr *a[4 + 4 * TMA_MAX_RANK + 4];
    int n = 0;
    a[n++] = ir_str(c->arena, "runtime.cuTensorMapEncodeTiled", c->call->span);
    a[n++] = map;
    a[n++] = op_i32(c, tma_dtype(t->gmem.dtype));
    a[n++] = op_i32(c, t->rank);
    IrExpr *gb = (IrExpr *)g;
    a[n++] = op_call(c, IR_OP_BUFFER_DATA, IR_HANDLE, &gb, 1);
    for (int d = t->rank - 1; d >= 0; d--)
        a[n++] = bt->shape[d];
    IrExpr *stride = op_i32(c, t->esize);
    for (int d = t->rank - 1; d > 0; d--)
        a[n++] = stride = op_bin(c, IR_E_MUL, op_cast(c, IR_INT64, bt->shape[d]), stride);
    for (int d = t->rank - 1; d >= 0; d--)
        a[n++] = op_i32(c, t->box[d]);
    for (int d = 0; d < t->rank; d++)
        a[n++] = op_i32(c, 1);
    a[n++] = op_i32(c, 0);          /* interleave none */
    a[n++] = op_i32(c, t->swizzle);
    a[n++] = op_i32(c, 2);          /* L2 promotion 128B */
    a[n++] = op_i32(c, 0);          /* out-of-bounds elements read as zero */
    op_eval(c, &s, op_call(c, IR_OP_CALL_PACKED, IR_INT32, a, n));
    for (int i = 0; i < s.v.len; i++)
        tx_vec_push(c->host_init, s.v.items[i]);
    tx_vec_free(&s.v);
    return map;
}

/* ---------------------------------------------------------------- device issue */

static IrExpr *mbar_address(OpCtx *c)
{
    IrExpr *m = op_config(c, "mbar");
    if (m->kind == IR_E_LOAD)
        return op_call(c, IR_OP_ADDRESS_OF, IR_HANDLE, &m, 1);
    return m;
}

IrStmt *op_tma_lower(OpCtx *c)
{
    Tma t;
    read_call(c, &t);
    IrExpr *map = tensor_map(c, &t);
    IrExpr *loop[TMA_MAX_RANK] = {0};
    for (int d = 0; d < t.rank; d++)
        if (t.issues[d] > 1)
            loop[d] = op_var(c, "i", IR_INT32);
    /* the box's first element: shared offsets and global coordinates per issue */
    IrExpr *soff[OP_MAX_DIMS], *coord[TMA_MAX_RANK];
    int k = 0;
    for (int d = 0; d < t.rank; d++) {
        IrExpr *step = loop[d] ? op_bin(c, IR_E_MUL, loop[d], op_i32(c, t.box[d])) : op_i32(c, 0);
        coord[d] = op_cast(c, IR_INT32, op_bin(c, IR_E_ADD, t.gmem.start[d], step)); /* .s32 */
        if (t.gmem.extent[d] != 1)
            soff[k++] = step;
    }
    IrExpr **sidx = TX_NEW_ARRAY(c->arena, IrExpr *, t.smem.ndim);
    op_region_index(c, &t.smem, soff, sidx);
    IrExpr *smem = op_address_of(c, t.smem.buffer, sidx, t.smem.ndim);
    IrExpr *args[2 + TMA_MAX_RANK + 1];
    int n = 0;
    if (t.load)
        args[n++] = smem;
    args[n++] = op_call(c, IR_OP_ADDRESS_OF, IR_HANDLE, &map, 1);
    for (int d = t.rank - 1; d >= 0; d--)
        args[n++] = coord[d];
    args[n++] = t.load ? mbar_address(c) : smem;
    OpSeq s = {0};
    op_eval(c, &s, op_ptx(c, instruction(c, &t), args, n));
    IrStmt *body = op_seq_finish(c, &s);
    for (int d = t.rank - 1; d >= 0; d--)
        if (loop[d])
            body = op_for(c, loop[d], t.issues[d], IR_FOR_UNROLLED, body);
    return body;
}
