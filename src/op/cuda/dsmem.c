/* copy_async into the shared memory of another CTA of the cluster (sm_90a+).
 *
 * Variant "dsmem": shared memory of this CTA -> shared memory of
 * another CTA of the cluster, as the reference's dsmem. One thread
 * issues, per contiguous chunk of the copy,
 *
 *   mapa.shared::cluster.u32 remote, local_dst, remote_cta_id
 *   cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes
 *       [remote], [src], bytes, [remote_mbar]
 *
 * completing on the mbarrier at mbar='s offset in the destination CTA (also
 * mapped with mapa), which the destination arms with expect_tx for the
 * bytes and waits on. A chunk is the innermost dimensions both regions
 * store contiguously (row-major strides, no swizzle); it must be a multiple
 * of 16 bytes and start 16-byte aligned. The outer dimensions become
 * loops, one instruction per chunk. The source CTA must stay alive
 * until the copy has been received (a cluster barrier before it exits).
 *
 * Variant "st_async": a thread's registers -> shared memory of another CTA,
 * 4, 8 or 16 bytes (one contiguous, aligned run; inside one unit of a
 * swizzle) with
 *
 *   mapa.shared::cluster.u32 remote, local_dst, remote_cta_id
 *   st.async.shared::cluster.mbarrier::complete_tx::bytes{.v2,.v4}.b32
 *       [remote], {words}, [remote_mbar]
 *
 * so that data a thread has just produced goes to its peer without a round
 * trip through its own shared memory (FlashMLA's split of the sparse gather
 * between two CTAs). The same mbarrier contract as "dsmem". */
#include "../partition.h"

/* What both variants ask of a call: one thread, dst in shared memory and src
 * in `src_mem`, one dtype of whole bytes, the destination CTA's rank and its
 * mbarrier. */
static const char *into_another_cta(OpCtx *c, OpMem src_mem, const char *what, OpRegion *dst,
                                    OpRegion *src)
{
    const char *why = op_need_scope(c, OP_SCOPE_BIT(IR_SCOPE_THREAD));
    if (why || (why = op_region(c, 0, dst)) || (why = op_region(c, 1, src)))
        return why;
    if (dst->mem != OP_MEM_SHARED || src->mem != src_mem)
        return op_reason(c, "%s shared memory of another CTA; here %s to %s", what,
                         op_mem_name(src->mem), op_mem_name(dst->mem));
    if (!ir_dtype_eq(dst->dtype, src->dtype) || !op_dtype_bytes(dst->dtype))
        return op_reason(c, "the dtypes differ or are narrower than a byte");
    IrExpr *rank = op_config(c, "remote_cta_id"), *mbar = op_config(c, "mbar");
    if (!rank || rank->kind == IR_E_NONE)
        return op_reason(c, "give the destination CTA's rank in the cluster: remote_cta_id=");
    if (!mbar || mbar->kind == IR_E_NONE)
        return op_reason(c, "the copy completes on the destination's mbarrier: give mbar=");
    return NULL;
}

const char *op_dsmem_accept(OpCtx *c)
{
    OpRegion dst, src;
    const char *why = into_another_cta(c, OP_MEM_SHARED, "copies shared to", &dst, &src);
    if (why)
        return why;
    if (!op_regions_match(&dst, &src))
        return op_reason(c, "the regions' non-unit extents differ");
    return op_need_ptx(c, "dsmem",
                       "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes");
}

const char *op_st_async_accept(OpCtx *c)
{
    OpRegion dst, src;
    const char *why = into_another_cta(c, OP_MEM_LOCAL, "stores registers into", &dst, &src);
    if (why)
        return why;
    int64_t n = op_region_size(&dst), bytes = n * op_dtype_bytes(dst.dtype);
    if (op_region_size(&src) != n)
        return op_reason(c, "the regions' sizes differ (%lld and %lld elements)", (long long)n,
                         (long long)op_region_size(&src));
    if (bytes != 4 && bytes != 8 && bytes != 16)
        return op_reason(c, "moves 4, 8 or 16 bytes a thread; here %lld", (long long)bytes);
    if (src.distributed)
        return op_reason(c, "'%s' is spread over threads; give the thread's own registers",
                         src.buffer->u.var.name);
    if (op_region_vector(c, &dst, n, false) < n || op_region_vector(c, &src, n, false) < n)
        return op_reason(c, "a side is not one contiguous run aligned to its %lld bytes",
                         (long long)bytes);
    return op_need_ptx(c, "st_async", "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32");
}

/* A 32-bit shared::cta address of an mbarrier given as an element, a
 * pointer or an address. */
static IrExpr *shared_address(OpCtx *c, IrExpr *m)
{
    if (m->kind == IR_E_LOAD)
        m = op_call(c, IR_OP_ADDRESS_OF, IR_HANDLE, &m, 1);
    if (m->dtype.code == IR_DT_HANDLE)
        return op_call(c, IR_OP_CUDA_CVTA_TO_SHARED, IR_UINT32, &m, 1);
    return op_cast(c, IR_UINT32, m);
}

static void mapa(OpCtx *c, OpSeq *s, IrExpr *slot, IrExpr *addr, IrExpr *rank)
{
    IrExpr *a[3] = {slot, addr, op_cast(c, IR_UINT32, rank)};
    op_eval(c, s, op_ptx(c, "mapa.shared::cluster.u32", a, 3));
}

IrStmt *op_dsmem_lower(OpCtx *c)
{
    OpRegion dst, src;
    op_region(c, 0, &dst), op_region(c, 1, &src);
    int64_t ext[OP_MAX_DIMS];
    int dd[OP_MAX_DIMS], sd[OP_MAX_DIMS];
    int k = op_region_dims(&dst, ext, dd);
    op_region_dims(&src, NULL, sd);
    int nd = op_contiguous_dims(c, &dst, ext, dd, k), ns = op_contiguous_dims(c, &src, ext, sd, k);
    if (nd < 0 || ns < 0)
        return op_decline(c, "the regions are not plain strided storage (a swizzle or another "
                             "layout)");
    int inner = nd < ns ? nd : ns, esize = op_dtype_bytes(dst.dtype);
    int64_t bytes = esize;
    for (int i = k - inner; i < k; i++)
        bytes *= ext[i];
    if (bytes % 16 || op_region_vector(c, &dst, 16 / esize, false) * esize < 16 ||
        op_region_vector(c, &src, 16 / esize, false) * esize < 16)
        return op_decline(c, "the contiguous chunks are %lld bytes; a bulk copy moves multiples "
                             "of 16 bytes from 16-byte aligned addresses", (long long)bytes);
    OpSeq out = {0}, body = {0};
    IrExpr *mapped = op_alloc_local(c, &out, "mapped", IR_UINT32, 2);
    IrExpr *zero = op_i32(c, 0), *one = op_i32(c, 1);
    IrExpr *rank = op_config(c, "remote_cta_id");
    mapa(c, &out, op_load(c, mapped, &zero, 1), shared_address(c, op_config(c, "mbar")), rank);
    IrExpr *idx[OP_MAX_DIMS], *var[OP_MAX_DIMS];
    for (int i = 0; i < k; i++)
        idx[i] = var[i] = i < k - inner ? op_var(c, "i", IR_INT32) : op_i32(c, 0);
    IrExpr **didx = TX_NEW_ARRAY(c->arena, IrExpr *, dst.ndim),
           **sidx = TX_NEW_ARRAY(c->arena, IrExpr *, src.ndim);
    op_region_index(c, &dst, idx, didx);
    op_region_index(c, &src, idx, sidx);
    IrExpr *local_dst = op_address_of(c, dst.buffer, didx, dst.ndim);
    mapa(c, &body, op_load(c, mapped, &one, 1), shared_address(c, local_dst), rank);
    IrExpr *a[4] = {op_load(c, mapped, &one, 1), op_address_of(c, src.buffer, sidx, src.ndim),
                    ir_int(c->arena, IR_UINT32, bytes, c->call->span), op_load(c, mapped, &zero, 1)};
    op_eval(c, &body,
            op_ptx(c, "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes", a, 4));
    IrStmt *st = op_seq_finish(c, &body);
    for (int i = k - inner - 1; i >= 0; i--)
        st = op_for(c, var[i], ext[i], IR_FOR_SERIAL, st);
    op_emit(&out, st);
    return op_seq_finish(c, &out);
}

IrStmt *op_st_async_lower(OpCtx *c)
{
    OpRegion dst, src;
    op_region(c, 0, &dst), op_region(c, 1, &src);
    int lanes = (int)(op_region_size(&dst) * op_dtype_bytes(dst.dtype) / 4);
    OpSeq out = {0};
    IrExpr *words[4], *a[6];
    op_register_words(c, &out, &src, IR_UINT32, lanes, words);
    IrExpr *mapped = op_alloc_local(c, &out, "mapped", IR_UINT32, 2);
    IrExpr *zero = op_i32(c, 0), *one = op_i32(c, 1);
    IrExpr *rank = op_config(c, "remote_cta_id");
    mapa(c, &out, op_load(c, mapped, &zero, 1), shared_address(c, op_config(c, "mbar")), rank);
    mapa(c, &out, op_load(c, mapped, &one, 1),
         shared_address(c, op_address_of(c, dst.buffer, dst.start, dst.ndim)), rank);
    a[0] = op_load(c, mapped, &one, 1);
    for (int i = 0; i < lanes; i++)
        a[1 + i] = words[i];
    a[1 + lanes] = op_load(c, mapped, &zero, 1);
    const char *vec = lanes == 4 ? ".v4" : lanes == 2 ? ".v2" : "";
    op_eval(c, &out,
            op_ptx(c,
                   tx_arena_printf(c->arena,
                                   "st.async.shared::cluster.mbarrier::complete_tx::bytes%s.b32",
                                   vec),
                   a, lanes + 2));
    return op_seq_finish(c, &out);
}
