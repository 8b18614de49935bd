/* TMEM regions of the tcgen05 variants: the contract is in tmem.h. A TMEM
 * buffer's address is its allocated_addr (the column its pool gave it, lane
 * 0); the region's layout, sliced from the buffer's, adds its origin's lane
 * and column. */
#include <string.h>

#include "tmem.h"

static const char *read_region(OpCtx *c, int arg, OpTmemRegion *t, bool whole_column)
{
    const char *why = op_region(c, arg, &t->r);
    if (why)
        return why;
    t->name = t->r.buffer->u.var.name;
    const IrBufferType *bt = ir_buf(t->r.buffer);
    if (t->r.mem != OP_MEM_TMEM)
        return op_reason(c, "'%s' is in %s memory, not in tensor memory", t->name,
                         op_mem_name(t->r.mem));
    if (!bt->layout || !bt->naddr)
        return op_reason(c, "'%s' needs a TMEM layout and an allocated address (allocate it "
                            "from a T.TMEMPool)", t->name);
    int bits = t->r.dtype.bits * t->r.dtype.lanes;
    if (bits != 8 && bits != 16 && bits != 32)
        return op_reason(c, "'%s' has %d-bit elements; TMEM holds 8-, 16- or 32-bit ones",
                         t->name, bits);
    t->per_col = 32 / bits;
    t->ndim = op_region_dims(&t->r, t->ext, t->dim);
    LyCtx lc = op_ly_ctx(c);
    IrExpr **ext = TX_NEW_ARRAY(c->arena, IrExpr *, t->r.ndim);
    for (int d = 0; d < t->r.ndim; d++)
        ext[d] = op_i32(c, t->r.extent[d]);
    IrLayout *sl = ly_slice(&lc, bt->layout, bt->shape, t->r.start, ext, t->r.ndim,
                            LY_TARGET_NONE);
    if (!sl || sl->kind != IR_LAYOUT_TILE)
        return op_reason(c, "the region of '%s' is not a TMEM layout of its own (%s)", t->name,
                         lc.err ? lc.err : "a swizzle");
    t->lane = t->col = op_i32(c, 0);
    for (int i = 0; i < sl->noffset; i++) {
        if (!strcmp(sl->offset[i].axis, "TLane"))
            t->lane = sl->offset[i].value;
        else if (!strcmp(sl->offset[i].axis, "TCol"))
            t->col = sl->offset[i].value;
        else
            return op_reason(c, "the layout of '%s' is not on TLane and TCol", t->name);
    }
    t->tile = TX_NEW(c->arena, IrLayout);
    *t->tile = *sl;
    t->tile->noffset = 0;
    if (whole_column && op_known_pow2_in(c->multiples, t->col) % t->per_col)
        return op_reason(c, "'%s' does not start on a 32-bit TMEM column", t->name);
    return NULL;
}

const char *op_tmem_read(OpCtx *c, int arg, OpTmemRegion *t)
{
    return read_region(c, arg, t, true);
}

const char *op_tmem_read_bytes(OpCtx *c, int arg, OpTmemRegion *t)
{
    return read_region(c, arg, t, false);
}

bool op_tmem_at(OpCtx *c, const OpTmemRegion *t, const int64_t *idx, int64_t *lane, int64_t *col)
{
    int64_t full[OP_MAX_DIMS] = {0};
    for (int d = 0; d < t->ndim; d++)
        full[t->dim[d]] = idx[d];
    return op_tmem_at_full(c, t, full, lane, col);
}

bool op_tmem_at_full(OpCtx *c, const OpTmemRegion *t, const int64_t *full, int64_t *lane,
                     int64_t *col)
{
    LyCtx lc = op_ly_ctx(c);
    LyCoords co;
    if (!ly_apply_at(&lc, t->tile, t->r.extent, full, t->r.ndim, &co) || co.npoints < 1)
        return false;
    *lane = *col = 0;
    for (int a = 0; a < co.naxes; a++) {
        if (!strcmp(co.axes[a], "TLane"))
            *lane = co.vals[a];
        else if (!strcmp(co.axes[a], "TCol"))
            *col = co.vals[a];
        else
            return false;
    }
    return true;
}

IrExpr *op_tmem_addr(OpCtx *c, const OpTmemRegion *t, IrExpr *lane, int64_t col32)
{
    IrExpr *col = op_bin(c, IR_E_ADD, op_bin(c, IR_E_FLOORDIV, t->col, op_i32(c, t->per_col)),
                         op_i32(c, col32));
    IrExpr *rows = op_bin(c, IR_E_MUL, op_bin(c, IR_E_ADD, t->lane, lane), op_i32(c, 65536));
    IrExpr *addr = op_bin(c, IR_E_ADD, ir_buf(t->r.buffer)->allocated_addr[0],
                          op_bin(c, IR_E_ADD, rows, col));
    return op_cast(c, IR_UINT32, addr);
}

IrExpr *op_tmem_addr_of(OpCtx *c, const OpTmemRegion *t, IrExpr *lane, int64_t col)
{
    IrExpr *at = op_bin(c, IR_E_FLOORDIV, op_bin(c, IR_E_ADD, t->col, op_i32(c, col)),
                        op_i32(c, t->per_col));
    IrExpr *rows = op_bin(c, IR_E_MUL, op_bin(c, IR_E_ADD, t->lane, lane), op_i32(c, 65536));
    IrExpr *addr = op_bin(c, IR_E_ADD, ir_buf(t->r.buffer)->allocated_addr[0],
                          op_bin(c, IR_E_ADD, rows, at));
    return op_cast(c, IR_UINT32, addr);
}
