/* copy_async, variant "smem->tmem": shared memory -> tensor memory with
 * tcgen05.cp (sm_100a), issued by one thread, as the reference's smem->tmem
 * dispatch: copy_async(dst_tmem, src_shared, shape=, multicast=,
 * cta_group=).
 *
 * One instruction copies `rows` rows of 128 or 256 bits from shared memory,
 * read through a matrix descriptor (no swizzle: row r of the atom at
 * r % 8 * 16 + r / 8 * SBO bytes, its second 16 bytes LBO further; a 32-,
 * 64- or 128-byte swizzle: row r at r % 8 * W + r / 8 * SBO, its bytes in
 * a run, the XOR of the swizzle over them as the buffer's layout has it), into
 * consecutive 32-bit columns of TMEM lanes given by the shape: 128x256b and
 * 128x128b row r on lane r; 4x256b row r on lane 32 r; 64x128b.warpx2::02_13
 * rows 0-63 on lanes 0-63, copied to lanes 64-127; 64x128b.warpx2::01_23
 * rows 0-31 on lanes 0-31 and rows 32-63 on lanes 64-95, copied 32 lanes up;
 * 32x128b.warpx4 rows 0-31 on lanes 0-31, copied to the other three 32-lane
 * slabs. The regions have the same non-unit extents and element width (a
 * uint8 source may fill float8 factors); TMEM element (lane, column) must
 * come from the shared element at the place the descriptor reads for it,
 * element by element, and a multicast's copies must be the destination
 * layout's replicas. Without shape= the shapes are tried in that order and
 * the first that fits wins. Each column block of the destination is one
 * instruction, whose descriptor is the first's plus its 16-byte offset.
 * Completion is the caller's: tcgen05.commit to an mbarrier.
 *
 * Decompression: a source of an _align16 dtype (16 fp6 or fp4 values packed
 * into the low 12 or 8 bytes of each 16, the PTX's .b6x16_p32 / .b4x16_p64)
 * into tensor memory of the same dtype is the .b8x16 form: each 16 bytes
 * become 16 one-byte values, so the regions are planned as bytes (16
 * elements to each 16 bytes on both sides) and the spelling gains
 * .b8x16.b6x16_p32 or .b8x16.b4x16_p64. An _align16 region on one side only,
 * or two different value types, is refused: the copy does not convert. */
#include <string.h>

#include "../smem_desc.h"
#include "../tmem.h"

typedef struct CpShape {
    const char *shape, *multicast;
    int rows, bits;
    int lane_hi;      /* rows from this one on move up by lane_skip lanes */
    int lane_mul, lane_skip;
    int replicas, replica_step; /* multicast copies of each lane */
} CpShape;

static const CpShape shapes[] = {
    {"128x256b", "", 128, 256, 128, 1, 0, 1, 0},
    {"4x256b", "", 4, 256, 4, 32, 0, 1, 0},
    {"128x128b", "", 128, 128, 128, 1, 0, 1, 0},
    {"64x128b", "warpx2::02_13", 64, 128, 64, 1, 0, 2, 64},
    {"64x128b", "warpx2::01_23", 64, 128, 32, 1, 32, 2, 32},
    {"32x128b", "warpx4", 32, 128, 32, 1, 0, 4, 32},
};

static int64_t lane_of(const CpShape *s, int64_t row)
{
    return row * s->lane_mul + (row >= s->lane_hi ? s->lane_skip : 0);
}

typedef struct Cp {
    OpTmemRegion t;
    OpSmemOperand s;
    const CpShape *shape;
    int cta_group, ebits;
    const char *fmt;      /* the decompression qualifiers, or NULL */
    int64_t n;            /* elements */
    int64_t blocks;       /* instructions */
    int64_t lbo, sbo;     /* bytes */
    int64_t *base;        /* per block: the shared offset (elements) of its (0, 0) */
    int64_t *first;       /* per block: the region position of that element */
    bool tmem_fit;        /* the last shape tried fits the destination */
} Cp;

/* ---------------------------------------------------------------- the regions */

/* The index (one per buffer dimension of t) of region position pos, row-major
 * over the non-unit dimensions. */
static void region_index(const OpTmemRegion *t, int64_t pos, int64_t *full)
{
    memset(full, 0, sizeof(int64_t) * OP_MAX_DIMS);
    for (int d = t->ndim - 1; d >= 0; d--) {
        full[t->dim[d]] = pos % t->ext[d];
        pos /= t->ext[d];
    }
}

/* The TMEM points of the element at region position pos: lane and column
 * (elements) of each replica, up to 4. */
static int tmem_points(OpCtx *c, const Cp *p, int64_t pos, int64_t lane[4], int64_t *col)
{
    int64_t full[OP_MAX_DIMS];
    region_index(&p->t, pos, full);
    LyCtx lc = op_ly_ctx(c);
    LyCoords co;
    if (!ly_apply_at(&lc, p->t.tile, p->t.r.extent, full, p->t.r.ndim, &co) || co.npoints < 1 ||
        co.npoints > 4)
        return 0;
    for (int k = 0; k < co.npoints; k++) {
        lane[k] = 0, *col = 0;
        for (int a = 0; a < co.naxes; a++)
            if (!strcmp(co.axes[a], "TLane"))
                lane[k] = co.vals[k * co.naxes + a];
            else if (!strcmp(co.axes[a], "TCol"))
                *col = co.vals[k * co.naxes + a];
    }
    return co.npoints;
}

/* The shared offset (elements, before the origin) of the source element at
 * region position pos, or -1. */
static int64_t smem_offset(OpCtx *c, const Cp *p, int64_t pos)
{
    int64_t full[OP_MAX_DIMS] = {0}, idx[OP_MAX_DIMS];
    region_index(&p->t, pos, idx);
    int64_t ext[OP_MAX_DIMS];
    int dim[OP_MAX_DIMS];
    int k = op_region_dims(&p->s.r, ext, dim);
    for (int d = 0; d < k; d++)
        full[dim[d]] = idx[p->t.dim[d]];
    LyCtx lc = op_ly_ctx(c);
    LyCoords co;
    if (!ly_apply_at(&lc, p->s.tile, p->s.r.extent, full, p->s.r.ndim, &co) || co.npoints != 1 ||
        co.naxes != 1 || strcmp(co.axes[0], "m"))
        return -1;
    return co.vals[0];
}

/* The .dst_fmt.src_fmt pair that decompresses an _align16 dtype, or NULL. */
static const char *decompress_fmt(IrDType t)
{
    if (t.lanes != 1 || ir_dtype_unaligned(t).code == t.code)
        return NULL;
    return ir_dtype_subbyte(t) == 6 ? "b8x16.b6x16_p32" : "b8x16.b4x16_p64";
}

/* The decompressing form when either region is of an _align16 dtype: both
 * of the same one. */
static const char *read_format(OpCtx *c, Cp *p)
{
    IrDType s = p->s.r.dtype, t = p->t.r.dtype;
    const char *sf = decompress_fmt(s), *tf = decompress_fmt(t);
    char sb[IR_DTYPE_STR_MAX], tb[IR_DTYPE_STR_MAX];
    if (!sf && !tf)
        return NULL;
    if (!sf)
        return op_reason(c, "'%s' is %s, whose values tcgen05.cp writes a byte each only by "
                            "decompressing the same dtype in shared memory (16 values packed "
                            "in each 16 bytes); '%s' is %s", p->t.name, ir_dtype_str(t, tb),
                         p->s.name, ir_dtype_str(s, sb));
    if (s.code != t.code)
        return op_reason(c, "'%s' is %s (16 packed %d-bit values in each 16 bytes): "
                            "tcgen05.cp.%s decompresses it into tensor memory of the same "
                            "dtype, a byte per value, and '%s' is %s; the copy does not "
                            "convert", p->s.name, ir_dtype_str(s, sb), ir_dtype_subbyte(s), sf,
                         p->t.name, ir_dtype_str(t, tb));
    p->fmt = sf;
    return NULL;
}

static const char *read_regions(OpCtx *c, Cp *p)
{
    const char *why = op_tmem_read(c, 0, &p->t);
    if (why || (why = op_region(c, 1, &p->s.r)))
        return why;
    p->s.name = p->s.r.buffer->u.var.name;
    if (p->s.r.mem != OP_MEM_SHARED)
        return op_reason(c, "copies shared memory to tensor memory; the source '%s' is in %s "
                            "memory", p->s.name, op_mem_name(p->s.r.mem));
    if ((why = read_format(c, p)))
        return why;
    p->ebits = p->t.r.dtype.bits * p->t.r.dtype.lanes;
    p->s.ebits = p->s.r.dtype.bits * p->s.r.dtype.lanes;
    if (p->s.ebits != p->ebits)
        return op_reason(c, "'%s' has %d-bit elements and '%s' %d-bit ones; tcgen05.cp moves "
                            "bits as they are", p->s.name, p->s.ebits, p->t.name, p->ebits);
    int64_t ext[OP_MAX_DIMS];
    int k = op_region_dims(&p->s.r, ext, (int[OP_MAX_DIMS]){0});
    p->n = 1;
    for (int d = 0; d < p->t.ndim; d++)
        p->n *= p->t.ext[d];
    bool same = k == p->t.ndim;
    for (int d = 0; same && d < k; d++)
        same = ext[d] == p->t.ext[d];
    if (!same)
        return op_reason(c, "the regions' non-unit extents differ");
    return op_smem_slice(c, &p->s, "tcgen05.cp");
}

/* ---------------------------------------------------------------- one shape */

/* Where the descriptor reads byte b of atom row r, from the block's origin,
 * before the swizzle. */
static int64_t canonical(const Cp *p, int64_t r, int64_t b)
{
    if (p->s.swizzle)
        return r % 8 * p->s.swizzle + r / 8 * p->sbo + b;
    return r % 8 * 16 + r / 8 * p->sbo + b % 16 + b / 16 * p->lbo;
}

/* Block, row and byte of the element at TMEM point (lane, col), or false. */
static bool atom_place(const Cp *p, const CpShape *s, int64_t lane, int64_t col, int64_t *blk,
                       int64_t *row, int64_t *byte)
{
    int64_t per_row = s->bits / p->ebits;
    *blk = col / per_row, *byte = col % per_row * p->ebits / 8;
    for (*row = 0; *row < s->rows; (*row)++)
        if (lane_of(s, *row) == lane)
            return true;
    return false;
}

/* The replicas of lane: the multicast's copies, as the layout must hold them. */
static bool replicas_ok(const CpShape *s, const int64_t *lane, int npoints)
{
    if (npoints != s->replicas)
        return false;
    for (int k = 1; k < npoints; k++)
        if (lane[k] != lane[0] + k * s->replica_step)
            return false;
    return true;
}

static const char *swizzle_name(const Cp *p)
{
    switch (p->s.swizzle) {
    case 32: return "32-byte swizzled";
    case 64: return "64-byte swizzled";
    case 128: return "128-byte swizzled";
    default: return "no-swizzle";
    }
}

/* LBO and SBO read off the elements of block 0 (16 bytes when unused). */
static void derive_offsets(Cp *p, const CpShape *s, const int64_t *at, int64_t origin)
{
    p->lbo = p->sbo = 16;
    if (s->rows > 8 && at[8 * (s->bits / p->ebits)] >= 0)
        p->sbo = (at[8 * (s->bits / p->ebits)] - origin) * p->ebits / 8;
    if (s->bits == 256 && at[128 / p->ebits] >= 0 && !p->s.swizzle)
        p->lbo = (at[128 / p->ebits] - origin) * p->ebits / 8;
}

static const char *plan_shape(OpCtx *c, Cp *p, const CpShape *s)
{
    int64_t per_row = s->bits / p->ebits, per_blk = per_row * s->rows, blocks = 0, filled = 0;
    int64_t *at = TX_NEW_ARRAY(c->arena, int64_t, p->n);   /* by block-row-byte slot */
    int64_t *pos_of = TX_NEW_ARRAY(c->arena, int64_t, p->n);
    for (int64_t i = 0; i < p->n; i++)
        at[i] = -1;
    for (int64_t pos = 0; pos < p->n; pos++) {
        int64_t lane[4], col, blk, row, byte;
        int np = tmem_points(c, p, pos, lane, &col);
        if (!np || !replicas_ok(s, lane, np) || !atom_place(p, s, lane[0], col, &blk, &row, &byte) ||
            (blk + 1) * per_blk > p->n)
            return op_reason(c, "'%s' is not laid out as %s%s%s writes: its element %lld lands "
                                "elsewhere in tensor memory", p->t.name, s->shape,
                             *s->multicast ? "." : "", s->multicast, (long long)pos);
        int64_t slot = blk * per_blk + row * per_row + byte * 8 / p->ebits;
        int64_t off = smem_offset(c, p, pos);
        if (off < 0 || (at[slot] >= 0 && at[slot] != off)) {
            p->tmem_fit = true;
            return op_reason(c, "'%s' does not map each element to one shared-memory place",
                             p->s.name);
        }
        if (at[slot] < 0) /* else an alias of an element seen: the same place both sides */
            at[slot] = off, pos_of[slot] = pos, filled++;
        if (blk >= blocks)
            blocks = blk + 1;
    }
    if (filled != blocks * per_blk)
        return op_reason(c, "%lld elements are no whole number of %s copies of %lld",
                         (long long)filled, s->shape, (long long)per_blk);
    p->blocks = blocks;
    p->tmem_fit = true;
    derive_offsets(p, s, at, at[0]);
    p->base = TX_NEW_ARRAY(c->arena, int64_t, p->blocks);
    p->first = TX_NEW_ARRAY(c->arena, int64_t, p->blocks);
    for (int64_t b = 0; b < p->blocks; b++) {
        p->base[b] = at[b * per_blk], p->first[b] = pos_of[b * per_blk];
        if (p->base[b] * p->ebits % 128 || (p->base[b] - p->base[0]) * p->ebits % 128)
            return op_reason(c, "copy %lld of '%s' does not start on 16 bytes", (long long)b,
                             p->s.name);
        for (int64_t r = 0; r < s->rows; r++)
            for (int64_t e = 0; e < per_row; e++) {
                int64_t got = at[b * per_blk + r * per_row + e];
                if ((got - p->base[b]) * p->ebits / 8 != canonical(p, r, e * p->ebits / 8))
                    return op_reason(c, "'%s' is not in the shared layout %s reads: its row "
                                        "%lld, byte %lld of copy %lld is not where a %s "
                                        "descriptor (leading offset %lld, stride offset %lld "
                                        "bytes) puts it", p->s.name, s->shape, (long long)r,
                                     (long long)(e * p->ebits / 8), (long long)b,
                                     swizzle_name(p), (long long)p->lbo, (long long)p->sbo);
            }
    }
    if (p->lbo % 16 || p->sbo % 16 || p->lbo <= 0 || p->sbo <= 0 || p->lbo >= (1 << 18) ||
        p->sbo >= (1 << 18))
        return op_reason(c, "the rows of '%s' are not 16-byte aligned and ascending", p->s.name);
    p->shape = s;
    return NULL;
}

static const char *read_config(OpCtx *c, Cp *p, const char **want_shape, const char **want_mc)
{
    IrExpr *e;
    int64_t v;
    p->cta_group = 1;
    *want_shape = *want_mc = NULL;
    if ((e = op_config(c, "cta_group")) && (!op_const(e, &v) || (v != 1 && v != 2)))
        return op_reason(c, "cta_group must be 1 or 2");
    if (e)
        p->cta_group = (int)v;
    if ((e = op_config(c, "shape")) && e->kind != IR_E_STR)
        return op_reason(c, "shape= is a string: \"128x256b\", \"4x256b\", \"128x128b\", "
                            "\"64x128b\" or \"32x128b\"");
    *want_shape = e ? e->u.str : NULL;
    if ((e = op_config(c, "multicast")) && e->kind != IR_E_STR)
        return op_reason(c, "multicast= is a string: \"warpx2::02_13\", \"warpx2::01_23\" or "
                            "\"warpx4\"");
    *want_mc = e ? e->u.str : NULL;
    return NULL;
}

static const char *plan(OpCtx *c, Cp *p)
{
    const char *why, *want_shape = NULL, *want_mc = NULL;
    if ((why = read_config(c, p, &want_shape, &want_mc)) || (why = read_regions(c, p)))
        return why;
    const char *last = NULL, *fit = NULL;
    for (size_t i = 0; i < TX_ARRAY_LEN(shapes); i++) {
        const CpShape *s = &shapes[i];
        if ((want_shape && strcmp(want_shape, s->shape)) || (want_mc && strcmp(want_mc, s->multicast)))
            continue;
        p->tmem_fit = false;
        if (!(last = plan_shape(c, p, s)))
            return NULL;
        if (p->tmem_fit && !fit)
            fit = last;
    }
    if (fit)
        return fit;
    if (last && !want_shape)
        return op_reason(c, "'%s' is laid out as no tcgen05.cp shape writes (128x256b, 4x256b, "
                            "128x128b, 64x128b.warpx2::02_13 / 01_23, 32x128b.warpx4)", p->t.name);
    if (!last)
        return op_reason(c, "no tcgen05.cp shape is %s%s%s", want_shape ? want_shape : "",
                         want_mc ? " with multicast " : "", want_mc ? want_mc : "");
    return last;
}

static const char *spelling(OpCtx *c, const Cp *p)
{
    const CpShape *s = p->shape;
    return tx_arena_printf(c->arena, "tcgen05.cp.cta_group::%d.%s%s%s%s%s", p->cta_group,
                           s->shape, *s->multicast ? "." : "", s->multicast, p->fmt ? "." : "",
                           p->fmt ? p->fmt : "");
}

/* ---------------------------------------------------------------- the variant */

const char *op_tcgen05_cp_accept(OpCtx *c)
{
    OpRegion dst;
    const char *why = op_need_scope(c, OP_SCOPE_BIT(IR_SCOPE_THREAD));
    if (why || (why = op_region(c, 0, &dst)))
        return why;
    if (dst.mem != OP_MEM_TMEM)
        return op_reason(c, "copies shared memory to tensor memory; the destination is in %s "
                            "memory", op_mem_name(dst.mem));
    Cp p = {0};
    if ((why = plan(c, &p)))
        return why;
    return op_need_ptx(c, "tcgen05.cp", spelling(c, &p));
}

IrStmt *op_tcgen05_cp_lower(OpCtx *c)
{
    Cp p = {0};
    plan(c, &p);
    OpSeq out = {0};
    IrExpr *zero = op_i32(c, 0);
    int64_t full[OP_MAX_DIMS];
    IrExpr *idx[OP_MAX_DIMS];
    region_index(&p.t, p.first[0], full);
    for (int d = 0; d < p.s.r.ndim; d++)
        idx[d] = p.s.r.start[d];
    int64_t ext[OP_MAX_DIMS];
    int dim[OP_MAX_DIMS];
    int k = op_region_dims(&p.s.r, ext, dim);
    for (int d = 0; d < k; d++)
        idx[dim[d]] = op_bin(c, IR_E_ADD, p.s.r.start[dim[d]], op_i32(c, full[p.t.dim[d]]));
    IrExpr *slot = op_alloc_local(c, &out, "cp_desc", IR_UINT64, 1);
    IrExpr *args[5] = {op_address_of(c, slot, &zero, 1),
                       op_address_of(c, p.s.r.buffer, idx, p.s.r.ndim),
                       op_i32(c, p.lbo / 16), op_i32(c, p.sbo / 16),
                       op_i32(c, op_smem_swizzle_code(&p.s))};
    op_eval(c, &out, op_call(c, IR_OP_CUDA_TCGEN05_SMEM_DESC, IR_UINT64, args, 5));
    IrExpr *desc = op_load(c, slot, &zero, 1);
    int64_t cols = p.shape->bits / 32;
    for (int64_t b = 0; b < p.blocks; b++) {
        int64_t units = (p.base[b] - p.base[0]) * p.ebits / 128;
        IrExpr *a[2] = {op_tmem_addr(c, &p.t, zero, b * cols), op_smem_desc_add(c, desc, op_i32(c, units))};
        op_eval(c, &out, op_ptx(c, spelling(c, &p), a, 2));
    }
    return op_seq_finish(c, &out);
}
