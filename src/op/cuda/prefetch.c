/* prefetch: a region of global memory into L2, a hint with no result (the
 * rows a later load will gather, the next tile of a stream).
 *
 * Variant "bulk" (sm_90a+, any scope): per contiguous run of the region (its
 * innermost dimensions stored contiguously, row-major strides)
 *
 *   cp.async.bulk.prefetch.L2.global [run], bytes
 *
 * a run being a multiple of 16 bytes that starts 16-byte aligned; the runs
 * are dealt round-robin to the scope's threads. The copy engine fetches a
 * run in the background.
 *
 * Variant "lines" (any target, any scope): `prefetch.global.L2` of every
 * 128-byte line the region touches: per contiguous run, its element every
 * 128 bytes from its first and its last one (left out when the run is
 * known to start and end on lines), dealt round-robin to the scope's
 * threads. */
#include "../partition.h"

static const char *global_region(OpCtx *c, OpRegion *r)
{
    const char *why = op_region(c, 0, r);
    if (why)
        return why;
    if (r->mem != OP_MEM_GLOBAL)
        return op_reason(c, "prefetches global memory; '%s' is %s", r->buffer->u.var.name,
                         op_mem_name(r->mem));
    if (!op_dtype_bytes(r->dtype))
        return op_reason(c, "the dtype is narrower than a byte");
    return NULL;
}

/* The bytes of one contiguous run of r (the innermost dimensions it stores
 * contiguously) and how many of its non-unit dimensions the run covers; 0
 * bytes when its strides are not plain. */
static int64_t run_bytes(OpCtx *c, const OpRegion *r, int64_t *ext, int *dim, int *k, int *inner)
{
    *k = op_region_dims(r, ext, dim);
    *inner = op_contiguous_dims(c, r, ext, dim, *k);
    if (*inner < 0)
        return 0;
    int64_t bytes = op_dtype_bytes(r->dtype);
    for (int i = *k - *inner; i < *k; i++)
        bytes *= ext[i];
    return bytes;
}

/* cp.async.bulk.prefetch reads its address from uniform registers: where
 * the lanes of a warp issue different addresses, ptxas runs it in a loop over
 * them, about 8 instructions a distinct address. Lines cost a lane one
 * instruction per 128 bytes, all lanes at once: cheaper for runs up to 8 KiB
 * even with few distinct addresses (the sparse MLA decode's gather, 656-byte
 * rows at 8 lanes a warp: 7% to 13% faster as lines). */
enum { LOOPED_BULK_MAX = 8192 };

/* Whether the lanes of a warp would issue different runs: at thread scope,
 * a start that varies per thread; at a wider one, several runs (dealt to
 * different lanes). */
static bool lanes_differ(const OpCtx *c, const OpRegion *r, const int64_t *ext, int k, int inner)
{
    if (c->call->u.tile.scope != IR_SCOPE_THREAD) {
        int64_t runs = 1;
        for (int i = 0; i < k - inner; i++)
            runs *= ext[i];
        return runs > 1 && op_scope_threads(c) > 1;
    }
    for (int i = 0; i < r->ndim; i++)
        if (op_varies_at(c, r->start[i]) == IR_SCOPE_THREAD)
            return true;
    return false;
}

const char *op_prefetch_bulk_accept(OpCtx *c)
{
    OpRegion r;
    int64_t ext[OP_MAX_DIMS];
    int dim[OP_MAX_DIMS], k, inner;
    const char *why = op_need_scope(c, OP_ANY_SCOPE);
    if (why || (why = global_region(c, &r)))
        return why;
    int64_t bytes = run_bytes(c, &r, ext, dim, &k, &inner);
    if (!bytes)
        return op_reason(c, "the region is not plain strided storage");
    int esize = op_dtype_bytes(r.dtype);
    if (bytes % 16)
        return op_reason(c, "its contiguous runs are %lld bytes; a bulk prefetch takes multiples "
                            "of 16 bytes", (long long)bytes);
    if (bytes > 0xFFFFFFF0LL)
        return op_reason(c, "its contiguous runs are %lld bytes; a bulk prefetch takes less than "
                            "4 GiB: prefetch parts of the region", (long long)bytes);
    if (esize > 16 && esize % 16)
        return op_reason(c, "its %d-byte elements do not keep 16-byte alignment", esize);
    if (op_region_vector(c, &r, 16 / esize > 1 ? 16 / esize : 1, false) * esize < 16)
        return op_reason(c, "its runs are not known to start 16-byte aligned, as a bulk prefetch "
                            "needs");
    if (!c->call->u.tile.dispatch && bytes <= LOOPED_BULK_MAX && lanes_differ(c, &r, ext, k, inner))
        return op_reason(c, "the lanes of a warp prefetch different %lld-byte runs: ptxas issues "
                            "a bulk prefetch in a loop over the warp's distinct addresses, which "
                            "costs more than their lines (dispatch=\"bulk\" forces it)",
                         (long long)bytes);
    return op_need_ptx(c, "bulk", "cp.async.bulk.prefetch.L2.global");
}

/* The space of a region's runs (each cut into `pieces`: its lines) dealt
 * round-robin to the scope's threads: digit[i] is the running thread's index
 * along outer dimension i, digit[k - inner] its piece (when inner > 0). */
static OpSpace run_space(OpCtx *c, const int64_t *ext, int k, int inner, int64_t pieces,
                         IrExpr **digit)
{
    /* without a run (inner 0) a piece is one element: no piece digit */
    OpSpace sp = {.k = k - inner + (inner > 0), .vec = 1, .threads = op_scope_threads(c),
                  .total = 1};
    for (int i = 0; i < k - inner; i++)
        sp.ext[i] = ext[i];
    if (inner > 0)
        sp.ext[k - inner] = pieces;
    for (int i = 0; i < sp.k; i++)
        sp.total *= sp.ext[i];
    sp.iters = (sp.total + sp.threads - 1) / sp.threads;
    op_space_begin(c, &sp, digit);
    return sp;
}

static IrStmt *wrap(OpCtx *c, const OpSpace *sp, IrStmt *body)
{
    return op_space_wrap(c, sp, body, sp->iters <= 16 ? IR_FOR_UNROLLED : IR_FOR_SERIAL);
}

IrStmt *op_prefetch_bulk_lower(OpCtx *c)
{
    OpRegion r;
    int64_t ext[OP_MAX_DIMS];
    int dim[OP_MAX_DIMS], k, inner;
    global_region(c, &r);
    int64_t bytes = run_bytes(c, &r, ext, dim, &k, &inner);
    IrExpr *idx[OP_MAX_DIMS + 1];
    OpSpace sp = run_space(c, ext, k, inner, 1, idx);
    for (int i = k - inner; i < k; i++)
        idx[i] = op_i32(c, 0);
    IrExpr **at = TX_NEW_ARRAY(c->arena, IrExpr *, r.ndim);
    op_region_index(c, &r, idx, at);
    IrExpr *a[2] = {op_address_of(c, r.buffer, at, r.ndim),
                    ir_int(c->arena, IR_UINT32, bytes, c->call->span)};
    OpSeq s = {0};
    op_eval(c, &s, op_ptx(c, "cp.async.bulk.prefetch.L2.global", a, 2));
    return wrap(c, &sp, op_seq_finish(c, &s));
}

const char *op_prefetch_lines_accept(OpCtx *c)
{
    OpRegion r;
    const char *why = op_need_scope(c, OP_ANY_SCOPE);
    if (why || (why = global_region(c, &r)))
        return why;
    int64_t ext[OP_MAX_DIMS];
    int dim[OP_MAX_DIMS], k, inner;
    int64_t run = run_bytes(c, &r, ext, dim, &k, &inner) / op_dtype_bytes(r.dtype);
    if (op_dtype_bytes(r.dtype) > 128)
        return op_reason(c, "its %d-byte elements span several lines", op_dtype_bytes(r.dtype));
    if (run >= (1LL << 31))
        return op_reason(c, "its contiguous runs are 2^31 elements or more: prefetch parts of the "
                            "region");
    return op_need_ptx(c, "lines", "prefetch.global.L2");
}

IrStmt *op_prefetch_lines_lower(OpCtx *c)
{
    OpRegion r;
    int64_t ext[OP_MAX_DIMS];
    int dim[OP_MAX_DIMS], k, inner;
    global_region(c, &r);
    int esize = op_dtype_bytes(r.dtype);
    int64_t run = run_bytes(c, &r, ext, dim, &k, &inner) / esize;
    if (run <= 0)
        inner = 0, run = 1; /* not plain strides: element by element */
    /* A run's lines: its element every 128 bytes from its first, then its
     * last unless the run is one element or starts and ends on lines. */
    int64_t line = 128 / esize > 1 ? 128 / esize : 1, lines = (run - 1) / line + 1;
    bool whole = run == 1 || (run % line == 0 && op_region_vector(c, &r, line, false) >= line);
    IrExpr *digit[OP_MAX_DIMS + 1], *idx[OP_MAX_DIMS];
    OpSpace sp = run_space(c, ext, k, inner, lines + !whole, digit);
    for (int i = 0; i < k - inner; i++)
        idx[i] = digit[i];
    IrExpr *e = inner ? op_bin(c, IR_E_MIN, op_bin(c, IR_E_MUL, digit[k - inner], op_i32(c, line)),
                               op_i32(c, run - 1))
                      : NULL;
    for (int i = k - 1; i >= k - inner; i--) {
        idx[i] = i == k - inner ? e : op_bin(c, IR_E_FLOORMOD, e, op_i32(c, ext[i]));
        e = op_bin(c, IR_E_FLOORDIV, e, op_i32(c, ext[i]));
    }
    IrExpr **at = TX_NEW_ARRAY(c->arena, IrExpr *, r.ndim);
    op_region_index(c, &r, idx, at);
    IrExpr *addr = op_address_of(c, r.buffer, at, r.ndim);
    OpSeq s = {0};
    op_eval(c, &s, op_ptx(c, "prefetch.global.L2", &addr, 1));
    return wrap(c, &sp, op_seq_finish(c, &s));
}
