/* copy and copy_async, variant "tmem<->local": a register tile of the
 * warpgroup to or from tensor memory with tcgen05.ld / tcgen05.st (sm_100a).
 *
 * Each warp of the warpgroup reaches its own 32-lane slab of TMEM (warp w:
 * lanes 32w..32w+31; the address names the lane within the slab, as the
 * reference and the hand-written kernels issue it), and the instruction's
 * shape fixes which register of
 * which thread meets which lane and 32-bit column (PTX "Matrix fragments for
 * tcgen05.ld/st"). The variant finds the shape whose rule both layouts obey,
 * element by element:
 *   .32x32b   thread t's register r is lane t, column r: any register tile
 *             whose thread index is the TMEM lane and whose register index
 *             the column (data path D read row by row, data path B's column
 *             halves read as 128 rows of N / 2);
 *   .16x64b, .16x128b, .16x256b: the register tile is the shape's fragment,
 *             T.tcgen05_atom_layout(shape, (rows, cols), dtype), and TMEM row
 *             i is lane i (128 rows: data path D, two issues per warp, at its
 *             slab's lanes 0 and 16) or lane 32 (i / 16) + i % 16 (64 rows:
 *             data path F, one issue; a TMEM origin 16 lanes in takes the
 *             slab's upper half; 64 rows declared on 64 consecutive lanes
 *             are read so too, as the reference does); a tile may be
 *             copied by column slices of whole repetitions of the shape
 *             (128 rows: each issue takes the slice's registers of its
 *             16-row block, whose registers start half the tile's apart).
 * 16-bit elements travel two per 32-bit register (a uint32 view of the
 * registers), as the fragments place them. A .32x32b copy wider than 128
 * registers is cut into power-of-two issues. copy_async leaves completion to
 * the caller (T.ptx.tcgen05.wait__ld / wait__st, as the reference); copy
 * waits (tcgen05.wait::ld or ::st) before it returns. */
#include <string.h>

#include "../partition.h"
#include "../tmem.h"

#define LDST_MAX_REGS 128 /* 32-bit registers per issue */

typedef struct Ldst {
    bool load;           /* TMEM -> registers */
    OpRegion reg;        /* the register tile */
    OpTmemRegion tm;
    const char *shape;
    int64_t rows, cols;  /* the copied region's extents */
    int64_t tile_cols;   /* the register tile's columns (cols unless a slice) */
    IrExpr *col0;        /* the slice's first column (0 for the whole tile) */
    int64_t regs;        /* 32-bit registers per thread */
    int per32;           /* elements per 32-bit register */
    int slabs;           /* 16x*: issues per warp */
    int64_t slab_regs;   /* 16x*: the tile's registers per 16-row block (a 128-row tile's
                            second block starts there) */
    int64_t col_div;     /* a slice's first register: col0 / col_div */
} Ldst;

/* The thread (in the warpgroup) and register of element (i, j) of the tile. */
static bool thread_reg(OpCtx *c, const IrLayout *l, const int64_t *shape, int64_t i, int64_t j,
                       int64_t *thread, int64_t *reg)
{
    LyCtx lc = op_ly_ctx(c);
    int64_t idx[2] = {i, j};
    LyCoords co;
    if (!ly_apply_at(&lc, l, shape, idx, 2, &co) || co.npoints != 1)
        return false;
    return op_wg_thread_reg(&co, thread, reg);
}

/* .32x32b: the thread is the lane and the register the column (element
 * units: 16-bit elements pair up in a 32-bit register). A column slice of
 * the tile (s_chunk[:, 32 c:32 c + 32]) takes the registers from its first
 * column on: the whole tile must keep register = column, and the slice start
 * a whole number of 32-bit registers. */
static bool match_32x32b(OpCtx *c, Ldst *g)
{
    const IrLayout *l = g->reg.layout;
    int64_t shape[2] = {g->rows, g->tile_cols}, top = -1;
    bool sliced = g->tile_cols != g->cols;
    for (int64_t i = 0; i < g->rows; i++)
        for (int64_t j = 0; j < (sliced ? g->tile_cols : g->cols); j++) {
            int64_t t, m, lane, col, idx[2] = {i, j};
            if (!thread_reg(c, l, sliced ? shape : g->reg.extent, i, j, &t, &m) ||
                (sliced && (t != i || m != j)))
                return false;
            if (j >= g->cols)
                continue;
            if (!op_tmem_at(c, &g->tm, idx, &lane, &col) || lane != t || col != (sliced ? j : m))
                return false;
            top = (sliced ? j : m) > top ? (sliced ? j : m) : top;
        }
    if (sliced && op_known_pow2_in(c->multiples, g->col0) % g->per32)
        return false;
    if ((top + 1) % g->per32 || g->rows * g->cols != 128 * (top + 1))
        return false;
    g->shape = "32x32b", g->regs = (top + 1) / g->per32, g->slabs = 1, g->col_div = g->per32;
    return true;
}

/* .16x64b / .16x128b / .16x256b: the tile is the shape's fragment. A column
 * slice of it starts at a whole repetition of the shape (the fragment's
 * registers run repetition by repetition: half a 32-bit register per 32-bit
 * column, as 64 rows spread over 128 threads), so its registers are the
 * slice's fragment from register col0 / (2 per32) on; a 128-row tile holds
 * its second 16-row block of each warp's slab in the upper half of its
 * registers, where the slice's second issue starts. TMEM row i is lane i
 * (128 rows: data path D) or, for 64 rows, data path F's lane
 * 32 (i / 16) + i % 16: declared so, or as 64 consecutive lanes, which the
 * instruction places the same way (the reference's reading of a data path
 * D tile's first 64 rows, which M = 64 MMAs share). */
static bool match_16x(OpCtx *c, Ldst *g, const char *shape)
{
    bool sliced = g->tile_cols != g->cols;
    if (g->rows != 64 && g->rows != 128)
        return false;
    LyCtx lc = op_ly_ctx(c);
    int bits = g->reg.dtype.bits * g->reg.dtype.lanes;
    IrLayout *tile_atom = ly_tcgen05_atom_layout(&lc, shape, g->rows, g->tile_cols, bits);
    if (!tile_atom || (sliced && !ly_tcgen05_atom_layout(&lc, shape, g->rows, g->cols, bits)))
        return false;
    int64_t tshape[2] = {g->rows, g->tile_cols};
    for (int64_t i = 0; i < g->rows; i++)
        for (int64_t j = 0; j < g->tile_cols; j++) {
            int64_t t, m, at, am;
            if (!thread_reg(c, g->reg.layout, tshape, i, j, &t, &m) ||
                !thread_reg(c, tile_atom, tshape, i, j, &at, &am) || t != at || m != am)
                return false;
        }
    /* a repetition is 2, 4 or 8 32-bit columns */
    int64_t rep = (shape[3] == '6' ? 2 : shape[3] == '1' ? 4 : 8) * g->per32;
    if (sliced && op_known_pow2_in(c->multiples, g->col0) % rep)
        return false;
    bool path_f = g->rows == 64, rows_on_lanes = true;
    for (int64_t i = 0; i < g->rows; i++)
        for (int64_t j = 0; j < g->cols; j++) {
            int64_t lane, col, idx[2] = {i, j};
            if (!op_tmem_at(c, &g->tm, idx, &lane, &col) || col != j)
                return false;
            path_f = path_f && lane == i / 16 * 32 + i % 16;
            rows_on_lanes = rows_on_lanes && lane == i;
        }
    if (!path_f && !rows_on_lanes)
        return false;
    g->shape = shape, g->regs = g->rows * g->cols / 128 / g->per32, g->slabs = (int)(g->rows / 64);
    g->col_div = 2 * g->per32, g->slab_regs = g->tile_cols / g->col_div;
    return true;
}

static const char *read_call(OpCtx *c, Ldst *g)
{
    memset(g, 0, sizeof *g);
    OpRegion dst, src;
    const char *why = op_region(c, 0, &dst);
    if (why || (why = op_region(c, 1, &src)))
        return why;
    if ((dst.mem == OP_MEM_TMEM) == (src.mem == OP_MEM_TMEM) ||
        (dst.mem != OP_MEM_LOCAL && src.mem != OP_MEM_LOCAL))
        return op_reason(c, "copies registers to or from tensor memory; here %s to %s",
                         op_mem_name(src.mem), op_mem_name(dst.mem));
    g->load = dst.mem != OP_MEM_TMEM;
    if ((why = op_tmem_read(c, g->load ? 1 : 0, &g->tm)) ||
        (why = op_region(c, g->load ? 0 : 1, &g->reg)))
        return why;
    const char *rn = g->reg.buffer->u.var.name;
    if (g->reg.mem != OP_MEM_LOCAL || !g->reg.distributed || g->reg.layout->kind != IR_LAYOUT_TILE)
        return op_reason(c, "'%s' is not a register tile spread over the warpgroup's threads", rn);
    if (!ir_dtype_eq(g->reg.dtype, g->tm.r.dtype))
        return op_reason(c, "'%s' and '%s' have different dtypes", rn, g->tm.name);
    int64_t ext[OP_MAX_DIMS];
    if (g->reg.ndim != 2 || op_region_dims(&g->reg, ext, NULL) != 2 || g->tm.ndim != 2)
        return op_reason(c, "the register tile and the TMEM region must be 2-D");
    int64_t st, rows;
    if (!op_const(g->reg.start[0], &st) || st ||
        !op_const(ir_buf(g->reg.buffer)->shape[0], &rows) || rows != g->reg.extent[0] ||
        !op_const(ir_buf(g->reg.buffer)->shape[1], &g->tile_cols))
        return op_reason(c, "'%s' must be copied whole, or as a slice of its columns", rn);
    g->rows = ext[0], g->cols = ext[1];
    g->col0 = g->reg.start[1];
    if (g->tm.ext[0] != g->rows || g->tm.ext[1] != g->cols)
        return op_reason(c, "the shapes differ: '%s' is %lldx%lld, '%s' %lldx%lld", rn,
                         (long long)g->rows, (long long)g->cols, g->tm.name,
                         (long long)g->tm.ext[0], (long long)g->tm.ext[1]);
    g->per32 = g->tm.per_col;
    if (g->per32 > 2)
        return op_reason(c, "tcgen05.ld/st moves 16- or 32-bit elements");
    static const char *const shapes[] = {"16x256b", "16x128b", "16x64b"};
    if (match_32x32b(c, g))
        return NULL;
    for (int i = 0; i < 3; i++)
        if (match_16x(c, g, shapes[i]))
            return NULL;
    if (g->cols != g->tile_cols)
        return op_reason(c, "a column slice of '%s' needs the .32x32b shape (thread t's register "
                            "r at lane t, column r, over the whole tile) and a start that is a "
                            "whole number of 32-bit registers, or a 64- or 128-row tile that is a "
                            ".16x* shape's fragment (T.tcgen05_atom_layout) sliced at whole "
                            "repetitions of the shape", rn);
    return op_reason(c, "'%s' and '%s' fit no tcgen05.ld/st shape: .32x32b needs thread t's "
                        "register r at lane t, column r; .16x64b/.16x128b/.16x256b need "
                        "T.tcgen05_atom_layout's fragment over TMEM data path D (128 rows) or "
                        "F (64 rows; or 64 consecutive lanes, which they place so)", rn, g->tm.name);
}

/* The spelling of one issue of `n` 32-bit registers (.num counts repetitions
 * of 1, 1, 2 or 4 registers per thread). */
static const char *spelling(OpCtx *c, const Ldst *g, int64_t n)
{
    int64_t num = n / (!strcmp(g->shape, "16x256b") ? 4 : !strcmp(g->shape, "16x128b") ? 2 : 1);
    return tx_arena_printf(c->arena, "tcgen05.%s.sync.aligned.%s.x%lld.b32", g->load ? "ld" : "st",
                           g->shape, (long long)num);
}

static const char *accept(OpCtx *c, const char *what)
{
    const char *why = op_need_scope_per(c, OP_SCOPE_BIT(IR_SCOPE_WARPGROUP), IR_SCOPE_WARP);
    if (why)
        return why;
    Ldst g;
    if ((why = read_call(c, &g)))
        return why;
    return op_need_ptx(c, what, spelling(c, &g, 4));
}

const char *op_tcgen05_ldst_accept(OpCtx *c) { return accept(c, "tcgen05.ld/st"); }

/* One issue: `n` registers from register r0 past the slice's first, at `lane`
 * of the warp's slab and column `col` of the copied region. */
static void issue(OpCtx *c, OpSeq *s, const Ldst *g, IrExpr *regs, int64_t lane, int64_t col,
                  int64_t r0, int64_t n)
{
    IrExpr **args = TX_NEW_ARRAY(c->arena, IrExpr *, n + 1);
    IrExpr *addr = op_tmem_addr(c, &g->tm, op_i32(c, lane), col);
    IrExpr *first = op_bin(c, IR_E_FLOORDIV, g->col0, op_i32(c, g->col_div));
    int k = 0;
    if (!g->load)
        args[k++] = addr;
    for (int64_t i = 0; i < n; i++) {
        IrExpr *idx = op_bin(c, IR_E_ADD, first, op_i32(c, r0 + i));
        args[k++] = op_load(c, regs, &idx, 1);
    }
    if (g->load)
        args[k++] = addr;
    op_eval(c, s, op_ptx(c, spelling(c, g, n), args, k));
}

static IrStmt *lower(OpCtx *c, bool wait)
{
    Ldst g;
    read_call(c, &g);
    OpSeq s = {0};
    int64_t all = g.rows * g.tile_cols / 128 / g.per32; /* the tile's registers */
    IrExpr *regs = g.per32 == 1 ? op_local_view(c, &s, g.reg.buffer)
                                : op_flat_view(c, &s, g.reg.buffer, IR_UINT32, all);
    if (g.shape[0] == '3') {
        for (int64_t r0 = 0, n; r0 < g.regs; r0 += n) {
            for (n = LDST_MAX_REGS; n > g.regs - r0; n /= 2)
                ;
            issue(c, &s, &g, regs, 0, r0, r0, n);
        }
    } else {
        int64_t per_slab = g.regs / g.slabs;
        for (int slab = 0; slab < g.slabs; slab++)
            issue(c, &s, &g, regs, 16 * slab, 0, slab * g.slab_regs, per_slab);
    }
    if (wait)
        op_eval(c, &s, op_ptx(c, g.load ? "tcgen05.wait::ld.sync.aligned"
                                        : "tcgen05.wait::st.sync.aligned", NULL, 0));
    return op_seq_finish(c, &s);
}

IrStmt *op_tcgen05_ldst_async_lower(OpCtx *c) { return lower(c, false); }
IrStmt *op_tcgen05_ldst_lower(OpCtx *c) { return lower(c, true); }
