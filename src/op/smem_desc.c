/* Shared-memory matrix descriptors derived from an operand's layout (the
 * contract is in smem_desc.h). The region's layout (sliced out of its buffer;
 * a symbolic origin such as a pipeline stage stays symbolic) must place every
 * element of every instruction's tile where the hardware's canonical layout
 * for some swizzle mode (none, 32, 64, 128 bytes), leading and stride byte
 * offsets puts it, before the swizzle; the swizzle itself must be the
 * hardware's mode on an aligned base. The offsets are read off the first
 * tile, then every element of every tile is checked against them. */
#include <string.h>

#include "smem_desc.h"

/* The element offset of (mn, k) in the operand's unswizzled tile, or -1. */
static int64_t offset_at(OpCtx *c, const OpSmemOperand *o, int64_t mn, int64_t k)
{
    int64_t idx[OP_MAX_DIMS] = {0};
    idx[o->mn_dim] = mn, idx[o->k_dim] = k;
    LyCtx lc = op_ly_ctx(c);
    LyCoords co;
    if (!ly_apply_at(&lc, o->tile, o->r.extent, idx, o->r.ndim, &co) || co.npoints != 1)
        return -1;
    int64_t m = 0;
    for (int a = 0; a < co.naxes; a++) {
        if (strcmp(co.axes[a], "m"))
            return -1;
        m = co.vals[a];
    }
    return m;
}

/* Where the hardware puts (mn, k) of an instruction's tile, in bits from the
 * tile's origin, before the swizzle (the canonical layouts of PTX 9.7.15.5.1
 * and 9.7.16.4; 4-bit elements packed two to a byte, the lower first). */
static int64_t canonical(const OpSmemOperand *o, int64_t mn, int64_t k)
{
    int64_t w = o->swizzle * 8, lbo = o->lbo * 8, sbo = o->sbo * 8;
    if (!o->mn_major) {
        int64_t kb = k * o->ebits;
        if (!w)
            return mn % 8 * 128 + mn / 8 * sbo + kb % 128 + kb / 128 * lbo;
        return mn % 8 * w + mn / 8 * sbo + kb;
    }
    int64_t mb = mn * o->ebits;
    if (!w)
        return mb % 128 + mb / 128 * sbo + k % 8 * 128 + k / 8 * lbo;
    return mb % w + mb / w * lbo + k % 8 * w + k / 8 * sbo;
}

/* Bytes of n elements (n * bits a whole number of bytes where it is used). */
static int64_t bytes_of(const OpSmemOperand *o, int64_t n) { return n * o->ebits / 8; }

/* A byte offset between two points of the tile, or `dflt` when the tile does
 * not reach the second point. */
static int64_t step_bytes(OpCtx *c, const OpSmemOperand *o, int64_t mn, int64_t k,
                          int64_t inst_mn, int64_t inst_k, int64_t dflt)
{
    if (mn >= inst_mn || k >= inst_k)
        return dflt;
    return bytes_of(o, offset_at(c, o, mn, k) - offset_at(c, o, 0, 0));
}

/* The majorness and the byte offsets, read off the first instruction's tile. */
static const char *derive(OpCtx *c, OpSmemOperand *o, int64_t inst_mn, int64_t inst_k)
{
    int64_t o00 = offset_at(c, o, 0, 0), ok = offset_at(c, o, 0, 1), om = offset_at(c, o, 1, 0);
    if (o00 < 0 || ok < 0 || om < 0)
        return op_reason(c, "the layout of '%s' does not map its elements to shared memory",
                         o->name);
    if (ok - o00 == 1)
        o->mn_major = false;
    else if (om - o00 == 1)
        o->mn_major = true;
    else
        return op_reason(c, "neither K nor M/N is contiguous in '%s'", o->name);
    if (o->mn_major && o->ebits < 8)
        return op_reason(c, "'%s' has %d-bit elements, which are read K-major only", o->name,
                         o->ebits);
    int64_t per16 = 128 / o->ebits, w = o->swizzle;
    if (!o->mn_major) {
        o->sbo = step_bytes(c, o, 8, 0, inst_mn, inst_k, 16);
        o->lbo = w ? 16 : step_bytes(c, o, 0, per16, inst_mn, inst_k, 16);
    } else if (!w) {
        o->sbo = step_bytes(c, o, per16, 0, inst_mn, inst_k, 16);
        o->lbo = step_bytes(c, o, 0, 8, inst_mn, inst_k, 16);
    } else {
        o->lbo = step_bytes(c, o, w * 8 / o->ebits, 0, inst_mn, inst_k, 16);
        o->sbo = step_bytes(c, o, 0, 8, inst_mn, inst_k, 16);
    }
    if (o->lbo <= 0 || o->sbo <= 0 || o->lbo % 16 || o->sbo % 16 || o->lbo >= (1 << 18) ||
        o->sbo >= (1 << 18))
        return op_reason(c, "the core matrices of '%s' are not 16-byte aligned and ascending "
                            "(leading byte offset %lld, stride byte offset %lld)", o->name,
                         (long long)o->lbo, (long long)o->sbo);
    return NULL;
}

/* Every element of every instruction tile sits where the descriptor says. */
static const char *check_tiles(OpCtx *c, const OpSmemOperand *o, int64_t inst_mn, int64_t inst_k,
                               const char *inst)
{
    for (int64_t t0 = 0; t0 < o->mn; t0 += inst_mn)
        for (int64_t k0 = 0; k0 < o->k; k0 += inst_k) {
            int64_t base = offset_at(c, o, t0, k0);
            if (base < 0 || base * o->ebits % 128)
                return op_reason(c, "the tile of '%s' at [%lld, %lld] does not start on 16 "
                                    "bytes", o->name, (long long)t0, (long long)k0);
            for (int64_t i = 0; i < inst_mn; i++)
                for (int64_t j = 0; j < inst_k; j++) {
                    int64_t got = offset_at(c, o, t0 + i, k0 + j);
                    if (got < 0 || (got - base) * o->ebits != canonical(o, i, j))
                        return op_reason(
                            c, "'%s' is not in a %s shared-memory layout: its element "
                               "(MN %lld, K %lld) is not where a %s %s descriptor puts it "
                               "(use an MMA layout: pool.alloc_tcgen05_mma_AB or "
                               "T.ComposeLayout over 8-row atoms)", o->name, inst,
                            (long long)(t0 + i), (long long)(k0 + j), o->swizzle ?
                            tx_arena_printf(c->arena, "%d-byte swizzled", o->swizzle) :
                            "no-swizzle", o->mn_major ? "MN-major" : "K-major");
                }
        }
    return NULL;
}

/* Why a run-time start may not slice: it must be provably a multiple of the
 * layout's inner extent on its dimension (e.g. 64 * k over the 64-element
 * slabs of a 128-byte swizzle of 16-bit values), as written. */
static const char *runtime_start_hint(const OpSmemOperand *o)
{
    for (int d = 0; d < o->r.ndim; d++)
        if (!op_const(o->r.start[d], &(int64_t){0}))
            return "; a run-time start must be written as a multiple of the swizzle slab or "
                   "core-matrix width, such as 64 * k for the 128-byte slabs of 16-bit values";
    return "";
}

const char *op_smem_slice(OpCtx *c, OpSmemOperand *o, const char *inst)
{
    const IrBufferType *bt = ir_buf(o->r.buffer);
    LyCtx lc = op_ly_ctx(c);
    IrExpr **ext = TX_NEW_ARRAY(c->arena, IrExpr *, o->r.ndim);
    for (int d = 0; d < o->r.ndim; d++)
        ext[d] = op_i32(c, o->r.extent[d]);
    const IrLayout *full = op_buffer_layout(c, bt);
    IrLayout *sl = ly_slice(&lc, full, bt->shape, o->r.start, ext, o->r.ndim, LY_TARGET_NONE);
    if (!sl)
        return op_reason(c, "the region of '%s' is not a layout of its own (%s)%s", o->name,
                         lc.err ? lc.err : "slice failed", runtime_start_hint(o));
    o->swizzle = 0;
    if (sl->kind == IR_LAYOUT_COMPOSE) {
        o->swizzle = ly_swizzle_bytes(sl, o->r.dtype);
        if (o->swizzle <= 0)
            return op_reason(c, "the swizzle of '%s' is not a %s swizzle mode", o->name, inst);
        const char *why = ly_check_swizzle_base(&lc, full, o->r.dtype, bt->elem_offset, bt->align);
        if (why)
            return op_reason(c, "%s", why);
        sl = sl->tile;
    }
    IrLayout *t = TX_NEW(c->arena, IrLayout);
    *t = *sl;
    o->origin = op_i32(c, 0);
    for (int i = 0; i < sl->noffset; i++) {
        if (strcmp(sl->offset[i].axis, "m"))
            return op_reason(c, "the layout of '%s' is not a shared-memory layout", o->name);
        o->origin = sl->offset[i].value;
    }
    t->noffset = 0;
    o->tile = t;
    int64_t align = op_known_pow2(bt->elem_offset) < op_known_pow2(o->origin)
                        ? op_known_pow2(bt->elem_offset) : op_known_pow2(o->origin);
    if (bt->align < 16 || align * o->ebits < 128)
        return op_reason(c, "'%s' does not start on 16 bytes", o->name);
    return NULL;
}

const char *op_smem_mma_type(IrDType t)
{
    if (t.lanes != 1)
        return NULL;
    if (ir_dtype_eq(t, IR_FLOAT16))
        return "f16";
    if (ir_dtype_eq(t, IR_BFLOAT16))
        return "bf16";
    if (ir_dtype_eq(t, IR_FLOAT32))
        return "tf32";
    char buf[IR_DTYPE_STR_MAX];
    const char *name = ir_dtype_str(t, buf);
    if (!strcmp(name, "float8_e4m3fn"))
        return "e4m3";
    if (!strcmp(name, "float8_e5m2"))
        return "e5m2";
    if (!strcmp(name, "float4_e2m1fn"))
        return "e2m1";
    switch (t.code) { /* kind::f8f6f4's shared-memory form, named as the instruction
                       * descriptor's table names it */
    case IR_DT_F4E2M1FN_A16: return "float4_e2m1fn_align16";
    case IR_DT_F6E2M3FN_A16: return "float6_e2m3fn_align16";
    case IR_DT_F6E3M2FN_A16: return "float6_e3m2fn_align16";
    default: return NULL;
    }
}

const char *op_smem_read(OpCtx *c, int arg, OpSmemOperand *o, bool trans)
{
    const char *why = op_region(c, arg, &o->r);
    if (why)
        return why;
    o->name = o->r.buffer->u.var.name;
    if (o->r.mem != OP_MEM_SHARED)
        return op_reason(c, "'%s' is in %s memory; this variant reads it from shared memory",
                         o->name, op_mem_name(o->r.mem));
    int64_t ext[OP_MAX_DIMS];
    int dim[OP_MAX_DIMS];
    if (op_region_dims(&o->r, ext, dim) != 2)
        return op_reason(c, "'%s' must be a 2-D region (after dropping unit dimensions)", o->name);
    o->mn_dim = dim[trans ? 1 : 0], o->k_dim = dim[trans ? 0 : 1];
    o->mn = ext[trans ? 1 : 0];
    o->k = ext[trans ? 0 : 1];
    o->ebits = o->r.dtype.bits * o->r.dtype.lanes;
    if (o->ebits != 4 && o->ebits % 8)
        return op_reason(c, "'%s' has %d-bit elements, which a shared-memory descriptor does "
                            "not describe (4-bit elements packed two to a byte do; kind::f8f6f4 "
                            "reads fp6 in the _align16 form)", o->name, o->ebits);
    return NULL;
}

const char *op_smem_describe(OpCtx *c, OpSmemOperand *o, int64_t inst_mn, int64_t inst_k,
                             const char *inst)
{
    const char *why;
    if ((why = op_smem_slice(c, o, inst)) || (why = derive(c, o, inst_mn, inst_k)))
        return why;
    return check_tiles(c, o, inst_mn, inst_k, inst);
}

int64_t op_smem_tile_units(OpCtx *c, const OpSmemOperand *o, int64_t mn, int64_t k)
{
    return bytes_of(o, offset_at(c, o, mn, k)) / 16;
}

IrExpr *op_smem_origin_units(OpCtx *c, const OpSmemOperand *o)
{
    IrExpr *origin = op_bin(c, IR_E_ADD, ir_buf(o->r.buffer)->elem_offset, o->origin);
    return op_bin(c, IR_E_FLOORDIV, op_bin(c, IR_E_MUL, origin, op_i32(c, o->ebits)),
                  op_i32(c, 128));
}

int op_smem_swizzle_code(const OpSmemOperand *o)
{
    return o->swizzle == 32 ? 1 : o->swizzle == 64 ? 2 : o->swizzle == 128 ? 3 : 0;
}

IrExpr *op_smem_encode(OpCtx *c, OpSeq *s, const OpSmemOperand *o, IrOp encode,
                       const char *name)
{
    IrExpr *slot = op_alloc_local(c, s, name, IR_UINT64, 1);
    IrExpr *zero = op_i32(c, 0), *buf = o->r.buffer;
    IrExpr *args[5] = {op_address_of(c, slot, &zero, 1),
                       op_call(c, IR_OP_BUFFER_DATA, IR_HANDLE, &buf, 1),
                       op_i32(c, o->lbo / 16), op_i32(c, o->sbo / 16),
                       op_i32(c, op_smem_swizzle_code(o))};
    op_eval(c, s, op_call(c, encode, IR_UINT64, args, 5));
    return slot;
}

IrExpr *op_smem_desc_add(OpCtx *c, IrExpr *desc, IrExpr *units)
{
    int64_t v;
    if (op_const(units, &v))
        return v ? op_bin(c, IR_E_ADD, desc, ir_int(c->arena, IR_UINT64, v, c->call->span)) : desc;
    return op_bin(c, IR_E_ADD, desc, op_cast(c, IR_UINT64, units));
}
