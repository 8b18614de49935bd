/* The Blackwell TMEM data-path layouts of tcgen05 MMA accumulators (PTX ISA
 * "Matrix fragments for tcgen05.mma", layouts A-G): how the logical (row,
 * column) of a (rows, cols) accumulator lands on TMEM lanes and columns.
 *   A, D  128 rows: identity rows -> lanes.
 *   B, E   64 rows: the column halves fold onto lanes 0-63 and 64-127.
 *   C, F   64 rows: 16 rows per 32-lane warp slab; sub_slab 1 is the upper
 *          16-lane half (PTX row=16).
 *   G      32 rows: the column quarters fold across the four 32-lane slabs.
 * And the register side of those accumulators: the warpgroup tile with one
 * row per thread (wg_local_layout) and the fragments of the tcgen05.ld/st
 * shapes (tcgen05_atom_layout; PTX "Matrix fragments for tcgen05.ld/st"),
 * as the reference's tvm.tirx.layout builds them. */
#include <string.h>

#include "internal.h"

static int64_t datapath_rows(char kind)
{
    switch (kind) {
    case 'A': case 'D': return 128;
    case 'B': case 'C': case 'E': case 'F': return 64;
    case 'G': return 32;
    default: return 0;
    }
}

static bool datapath_args(LyCtx *c, char kind, int64_t rows, int64_t cols, int sub_slab)
{
    int64_t want = datapath_rows(kind);
    if (!want)
        return ly_fail(c, "tmem_datapath_layout: unknown datapath '%c'; the datapaths are A, B, "
                          "C, D, E, F and G", kind);
    if (rows != want)
        return ly_fail(c, "tmem_datapath_layout: datapath '%c' expects rows=%lld, got %lld", kind,
                       (long long)want, (long long)rows);
    if (cols < 1)
        return ly_fail(c, "tmem_datapath_layout: cols must be positive, got %lld", (long long)cols);
    if (sub_slab != 0 && sub_slab != 1)
        return ly_fail(c, "tmem_datapath_layout: sub_slab must be 0 or 1, got %d", sub_slab);
    if (sub_slab && kind != 'C' && kind != 'F')
        return ly_fail(c, "tmem_datapath_layout: datapath '%c' already spans both 16-lane halves "
                          "of each warp slab; sub_slab must be 0", kind);
    if ((kind == 'B' || kind == 'E') && cols % 2)
        return ly_fail(c, "tmem_datapath_layout: datapath '%c' expects even cols, got %lld", kind,
                       (long long)cols);
    if (kind == 'G' && cols % 4)
        return ly_fail(c, "tmem_datapath_layout: datapath 'G' requires cols %% 4 == 0, got %lld",
                       (long long)cols);
    return true;
}

static IrIter on(LyCtx *c, int64_t e, int64_t s, const char *axis)
{
    return ly_iter(ar_index_int(c->arena, e), ar_index_int(c->arena, s), axis);
}

IrLayout *ly_tmem_datapath_layout(LyCtx *c, char kind, int64_t rows, int64_t cols, int sub_slab)
{
    if (!datapath_args(c, kind, rows, cols, sub_slab))
        return NULL;
    LyBuild b = {0};
    switch (kind) {
    case 'A':
    case 'D':
        lyb_shard(c, &b, on(c, rows, 1, "TLane"));
        lyb_shard(c, &b, on(c, cols, 1, "TCol"));
        break;
    case 'B':
    case 'E':
        lyb_shard(c, &b, on(c, rows, 1, "TLane"));
        lyb_shard(c, &b, on(c, 2, 64, "TLane"));
        lyb_shard(c, &b, on(c, cols / 2, 1, "TCol"));
        break;
    case 'G':
        lyb_shard(c, &b, on(c, rows, 1, "TLane"));
        lyb_shard(c, &b, on(c, 4, 32, "TLane"));
        lyb_shard(c, &b, on(c, cols / 4, 1, "TCol"));
        break;
    default: /* C, F */
        lyb_shard(c, &b, on(c, 4, 32, "TLane"));
        lyb_shard(c, &b, on(c, 16, 1, "TLane"));
        lyb_shard(c, &b, on(c, cols, 1, "TCol"));
        if (sub_slab)
            lyb_offset(c, &b, "TLane", ar_index_int(c->arena, 16));
        break;
    }
    return lyb_finish(c, &b);
}

/* ---------------------------------------------------------------- register fragments */
IrLayout *ly_wg_local_layout(LyCtx *c, IrExpr *cols, IrExpr *rows)
{
    LyBuild b = {0};
    lyb_shard(c, &b, ly_iter(rows, ar_index_int(c->arena, 1), "tid_in_wg"));
    lyb_shard(c, &b, ly_iter(cols, ar_index_int(c->arena, 1), "m"));
    return lyb_finish(c, &b);
}

IrLayout *ly_wgmma_acc_layout(LyCtx *c, int64_t rows, int64_t cols)
{
    if (rows < 64 || rows % 64 || cols < 8 || cols % 8) {
        ly_fail(c, "a wgmma accumulator has rows a multiple of 64 and columns a multiple of 8, "
                   "not %lld x %lld", (long long)rows, (long long)cols);
        return NULL;
    }
    /* (row block, warp, half, row) x (8-column block, lane pair, column) */
    static const struct { int64_t extent, stride; const char *axis; } it[] = {
        {0, 0, "m"}, {4, 1, "wid_in_wg"}, {2, 2, "m"}, {8, 4, "laneid"},
        {0, 4, "m"}, {4, 1, "laneid"}, {2, 1, "m"},
    };
    LyBuild b = {0};
    for (size_t i = 0; i < TX_ARRAY_LEN(it); i++) {
        int64_t extent = i == 0 ? rows / 64 : i == 4 ? cols / 8 : it[i].extent;
        int64_t stride = i == 0 ? cols / 2 : it[i].stride;
        lyb_shard(c, &b, ly_iter(ar_index_int(c->arena, extent), ar_index_int(c->arena, stride),
                                 it[i].axis));
    }
    return ly_canonicalize(c, lyb_finish(c, &b), LY_TARGET_NONE);
}

/* The .num repetitions PTX allows for each tcgen05.ld/st shape (Table 49):
 * powers of two up to max_rep; col_factor is the fp32 columns one repetition
 * covers per warp. */
typedef struct AtomShape {
    const char *name;
    int64_t max_rep, col_factor;
} AtomShape;
static const AtomShape atom_shapes[] = {
    {"32x32b", 128, 1}, {"16x64b", 128, 2}, {"16x128b", 64, 4}, {"16x256b", 32, 8},
};

static bool power_of_two_upto(int64_t n, int64_t max)
{
    return n >= 1 && n <= max && (n & (n - 1)) == 0;
}

typedef struct FragIter {
    int64_t e, s;
    const char *axis;
} FragIter;

static void frag_iters(LyCtx *c, LyBuild *b, const FragIter *its, int n, int64_t elem_per_32b)
{
    for (int i = 0; i < n; i++)
        lyb_shard(c, b, on(c, its[i].e, !strcmp(its[i].axis, "m") ? its[i].s * elem_per_32b
                                                                      : its[i].s, its[i].axis));
}

/* The .16x64b/.16x128b/.16x256b fragment: row iters (high to low), then
 * column iters, in fp32-register units; `rows` 128 inserts the second 16-row
 * slab as the next row bit after the warp. */
static IrLayout *atom_16x(LyCtx *c, const AtomShape *sh, int64_t rows, int64_t rep,
                          int64_t elem_per_32b)
{
    FragIter row[4], col[3];
    int nrow = 0, ncol = 0;
    int64_t m_used;
    row[nrow++] = (FragIter){4, 1, "wid_in_wg"};
    if (rows == 128)
        row[nrow++] = (FragIter){2, 0, "m"}; /* stride set below */
    if (sh->col_factor == 2) { /* 16x64b */
        row[nrow++] = (FragIter){2, 1, "laneid"};
        row[nrow++] = (FragIter){8, 4, "laneid"};
        col[ncol++] = (FragIter){rep, 1, "m"};
        col[ncol++] = (FragIter){2, 2, "laneid"};
        m_used = rep;
    } else if (sh->col_factor == 4) { /* 16x128b */
        row[nrow++] = (FragIter){2, 1, "m"};
        row[nrow++] = (FragIter){8, 4, "laneid"};
        col[ncol++] = (FragIter){rep, 2, "m"};
        col[ncol++] = (FragIter){4, 1, "laneid"};
        m_used = 2 * rep;
    } else { /* 16x256b */
        row[nrow++] = (FragIter){2, 2, "m"};
        row[nrow++] = (FragIter){8, 4, "laneid"};
        col[ncol++] = (FragIter){rep, 4, "m"};
        col[ncol++] = (FragIter){4, 1, "laneid"};
        col[ncol++] = (FragIter){2, 1, "m"};
        m_used = 4 * rep;
    }
    if (rows == 128)
        row[1].s = m_used;
    LyBuild b = {0};
    frag_iters(c, &b, row, nrow, elem_per_32b);
    frag_iters(c, &b, col, ncol, elem_per_32b);
    if (elem_per_32b > 1) /* two 16-bit elements per 32-bit register */
        lyb_shard(c, &b, on(c, elem_per_32b, 1, "m"));
    return lyb_finish(c, &b);
}

IrLayout *ly_tcgen05_atom_layout(LyCtx *c, const char *shape, int64_t rows, int64_t cols,
                                 int bits)
{
    const AtomShape *sh = NULL;
    for (size_t i = 0; i < TX_ARRAY_LEN(atom_shapes); i++)
        if (!strcmp(shape, atom_shapes[i].name))
            sh = &atom_shapes[i];
    if (!sh)
        return ly_fail(c, "tcgen05_atom_layout: unknown shape '%s'; the shapes are 32x32b, "
                          "16x64b, 16x128b and 16x256b", shape), NULL;
    if (bits != 16 && bits != 32)
        return ly_fail(c, "tcgen05_atom_layout: the dtype must have 16 or 32 bits, not %d", bits),
               NULL;
    if (rows != 64 && rows != 128)
        return ly_fail(c, "tcgen05_atom_layout: shape '%s' expects 64 or 128 rows, got %lld",
                       shape, (long long)rows), NULL;
    LyBuild b = {0};
    if (sh->col_factor == 1 && rows == 64) {
        /* datapath B's (64, N) accumulator read back as the (128, N/2) .32x32b file */
        if (bits != 32)
            return ly_fail(c, "tcgen05_atom_layout: 32x32b with 64 rows reads datapath B and "
                              "is 32-bit only, got %d bits", bits), NULL;
        if (cols % 2 || !power_of_two_upto(cols / 2, sh->max_rep))
            return ly_fail(c, "tcgen05_atom_layout: 32x32b with 64 rows needs cols/2 a power "
                              "of two up to %lld, got cols=%lld", (long long)sh->max_rep,
                           (long long)cols), NULL;
        lyb_shard(c, &b, on(c, 64, 1, "tid_in_wg"));
        lyb_shard(c, &b, on(c, 2, 64, "tid_in_wg"));
        lyb_shard(c, &b, on(c, cols / 2, 1, "m"));
        return lyb_finish(c, &b);
    }
    int64_t elem_per_32b = 32 / bits, factor = sh->col_factor * elem_per_32b;
    if (cols < 1 || cols % factor || !power_of_two_upto(cols / factor, sh->max_rep))
        return ly_fail(c, "tcgen05_atom_layout: shape '%s' with %d-bit elements needs cols = k * "
                          "%lld with k a power of two up to %lld, got cols=%lld", shape, bits,
                       (long long)factor, (long long)sh->max_rep, (long long)cols), NULL;
    if (sh->col_factor == 1) { /* 32x32b: one row per thread */
        lyb_shard(c, &b, on(c, rows, 1, "tid_in_wg"));
        lyb_shard(c, &b, on(c, cols, 1, "m"));
        return lyb_finish(c, &b);
    }
    return atom_16x(c, sh, rows, cols / factor, elem_per_32b);
}

/* ---------------------------------------------------------------- MMA operands */
/* The data path of a tcgen05.mma: (M, cta_group, ws, sparse) -> 'A'..'F', or 0. */
static char mma_datapath(LyCtx *c, int64_t M, int64_t cta_group, bool ws, bool sparse)
{
    if (sparse)
        return ly_fail(c, "tmem_mma_operand_layout: sparse A (data path C) is not supported"), 0;
    if (ws && !(cta_group == 1 && M == 64))
        return ly_fail(c, "tmem_mma_operand_layout: ws=True is only for cta_group=1, M=64 (data "
                          "path E), not M=%lld, cta_group=%lld", (long long)M,
                       (long long)cta_group), 0;
    if (cta_group == 1 && M == 128)
        return 'D';
    if (cta_group == 1 && M == 64)
        return ws ? 'E' : 'F';
    if (cta_group == 2 && M == 256)
        return 'A';
    if (cta_group == 2 && M == 128)
        return 'B';
    return ly_fail(c, "tmem_mma_operand_layout: no data path for M=%lld, cta_group=%lld (cta_group "
                      "1 takes M 64 or 128, cta_group 2 M 128 or 256)", (long long)M,
                   (long long)cta_group), 0;
}

/* S[(e..):(s..)] over TLane/TCol strides ("L" lane, "C" column), canonicalized. */
static IrLayout *tmem_iters(LyCtx *c, int n, const int64_t *e, const int64_t *s, const char *axes)
{
    LyBuild b = {0};
    for (int i = 0; i < n; i++)
        lyb_shard(c, &b, on(c, e[i], s[i], axes[i] == 'L' ? "TLane" : "TCol"));
    return ly_canonicalize(c, lyb_finish(c, &b), LY_TARGET_NONE);
}

/* The operand's rows must be the CTA's share of M. */
typedef struct MmaShape {
    int64_t M, cta_group;
    char dp;
} MmaShape;

static bool rows_ok(LyCtx *c, const MmaShape *m, int64_t rows)
{
    return rows == m->M / m->cta_group ||
           ly_fail(c, "tmem_mma_operand_layout: M=%lld, cta_group=%lld has %lld rows per CTA, "
                      "not %lld", (long long)m->M, (long long)m->cta_group,
                   (long long)(m->M / m->cta_group), (long long)rows);
}

static IrLayout *mma_d_layout(LyCtx *c, const MmaShape *m, const int64_t *x, int n,
                              const int64_t *group)
{
    bool half = m->dp == 'B' || m->dp == 'E';
    if (group) {
        if (n != 2 || group[1] != 2 || group[0] < 1 || group[2] < 1 ||
            group[0] * 2 * group[2] != x[1] || !half)
            return ly_fail(c, "tmem_mma_operand_layout: group=(s, 2, n) needs a (m, s * 2 * n) "
                              "accumulator of data path B or E"), NULL;
        int64_t e[4] = {x[0], group[0], 2, group[2]}, s[4] = {1, group[2], 64, 1};
        return rows_ok(c, m, x[0]) ? tmem_iters(c, 4, e, s, "LCLC") : NULL;
    }
    if (n == 2) {
        IrLayout *dp = rows_ok(c, m, x[0]) ? ly_tmem_datapath_layout(c, m->dp, x[0], x[1], 0)
                                           : NULL;
        return dp ? ly_canonicalize(c, dp, LY_TARGET_NONE) : NULL;
    }
    if (n == 3 && x[0] == 2 && half) { /* batched (2, m, N/2) */
        int64_t e[3] = {2, x[1], x[2]}, s[3] = {64, 1, 1};
        return rows_ok(c, m, x[1]) ? tmem_iters(c, 3, e, s, "LLC") : NULL;
    }
    if (n == 3 && x[1] == 2 && half) { /* (m, 2, N/2) */
        int64_t e[3] = {x[0], 2, x[2]}, s[3] = {1, 64, 1};
        return rows_ok(c, m, x[0]) ? tmem_iters(c, 3, e, s, "LLC") : NULL;
    }
    if (n == 4 && x[2] == 2 && half) { /* column-segmented (m, s, 2, n) */
        int64_t e[4] = {x[0], x[1], 2, x[3]}, s[4] = {1, x[3], 64, 1};
        return rows_ok(c, m, x[0]) ? tmem_iters(c, 4, e, s, "LCLC") : NULL;
    }
    return ly_fail(c, "tmem_mma_operand_layout: an accumulator of data path %c is (m, N)%s",
                   m->dp, half ? ", (2, m, N/2), (m, 2, N/2) or (m, s, 2, n)" : ""), NULL;
}

static IrLayout *mma_a_layout(LyCtx *c, const MmaShape *m, const int64_t *x, int n)
{
    char dp = m->dp;
    if (dp == 'B' && n == 2) { /* replicated over both 64-lane halves */
        if (!rows_ok(c, m, x[0]))
            return NULL;
        LyBuild b = {0};
        lyb_shard(c, &b, on(c, x[0], 1, "TLane"));
        lyb_shard(c, &b, on(c, x[1], 1, "TCol"));
        lyb_replica(c, &b, on(c, 2, 64, "TLane"));
        return ly_canonicalize(c, lyb_finish(c, &b), LY_TARGET_NONE);
    }
    if ((dp == 'B' || dp == 'E') && n == 3 && x[0] == 2) { /* bank-batched (2, m, K) */
        int64_t e[3] = {2, x[1], x[2]}, s[3] = {64, 1, 1};
        return rows_ok(c, m, x[1]) ? tmem_iters(c, 3, e, s, "LLC") : NULL;
    }
    if (dp != 'B' && dp != 'E' && n == 2) { /* A, D: identity; F: lanes 0..63 */
        int64_t e[2] = {x[0], x[1]}, s[2] = {1, 1};
        return rows_ok(c, m, x[0]) ? tmem_iters(c, 2, e, s, "LC") : NULL;
    }
    return ly_fail(c, "tmem_mma_operand_layout: an A operand of data path %c is %s", dp,
                   dp == 'B'   ? "(64, K) or (2, 64, K)"
                   : dp == 'E' ? "(2, 64, K)"
                               : "(m, K)"), NULL;
}

IrLayout *ly_tmem_mma_operand_layout(LyCtx *c, char operand, const int64_t *shape, int ndim,
                                     int64_t M, int64_t cta_group, bool ws, bool sparse,
                                     const int64_t *group)
{
    MmaShape m = {M, cta_group, mma_datapath(c, M, cta_group, ws, sparse)};
    if (!m.dp)
        return NULL;
    if (operand != 'A' && operand != 'D')
        return ly_fail(c, "tmem_mma_operand_layout: the operand is 'A' or 'D', not '%c'", operand),
               NULL;
    for (int i = 0; i < ndim; i++)
        if (shape[i] < 1 || shape[i] > 4096)
            return ly_fail(c, "tmem_mma_operand_layout: dimension %lld is out of range",
                           (long long)shape[i]), NULL;
    return operand == 'D' ? mma_d_layout(c, &m, shape, ndim, group)
                          : mma_a_layout(c, &m, shape, ndim);
}

/* The scale factors of a block-scaled tcgen05.mma (8-bit elements, four to a
 * 32-bit column), as the reference's sf_tmem_layout: rows in 32-row chunks,
 * chunk m in column m (element 4m) of lanes 0-31, replicated on the other
 * three 32-lane slabs (what tcgen05.cp .32x128b.warpx4 writes); along K the
 * sf_per_mma factors of one MMA side by side, then consecutive MMAs packed
 * into the free bytes of the column (the instruction descriptor's sf_id
 * picks the byte), then further groups of 4 * chunks elements. A reuse
 * factor is an innermost stride-0 iter; a pipeline depth an outer one. */
IrLayout *ly_tmem_sf_layout(LyCtx *c, int64_t rows, int64_t sf_k, int64_t sf_per_mma,
                            int64_t sf_reuse, int64_t pipe_depth)
{
    enum { EPC = 4 };
    if (rows < 32 || rows % 32 || rows > 512)
        return ly_fail(c, "sf_tmem_layout: rows=%lld must be a multiple of 32 up to 512",
                       (long long)rows), NULL;
    if (sf_per_mma != 1 && sf_per_mma != 2 && sf_per_mma != 4)
        return ly_fail(c, "sf_tmem_layout: sf_per_mma=%lld must be 1, 2 or 4", (long long)sf_per_mma),
               NULL;
    if (sf_k < 1 || sf_k % sf_per_mma || sf_reuse < 1 || pipe_depth < 0)
        return ly_fail(c, "sf_tmem_layout: the scale factors along K (%lld) must be a positive "
                          "multiple of sf_per_mma=%lld, and sf_reuse positive",
                       (long long)sf_k, (long long)sf_per_mma), NULL;
    int64_t chunks = rows / 32, k = sf_k / sf_per_mma, pack = EPC / sf_per_mma;
    while (pack > 1 && k % pack)
        pack /= 2;
    int64_t stage = chunks * EPC * (k / pack);
    LyBuild b = {0};
    if (pipe_depth)
        lyb_shard(c, &b, on(c, pipe_depth, stage, "TCol"));
    lyb_shard(c, &b, on(c, chunks, EPC, "TCol"));
    lyb_shard(c, &b, on(c, 32, 1, "TLane"));
    if (k / pack > 1)
        lyb_shard(c, &b, on(c, k / pack, chunks * EPC, "TCol"));
    if (pack > 1)
        lyb_shard(c, &b, on(c, pack, sf_per_mma, "TCol"));
    lyb_shard(c, &b, on(c, sf_per_mma, 1, "TCol"));
    if (sf_reuse > 1)
        lyb_shard(c, &b, on(c, sf_reuse, 0, "TCol"));
    lyb_replica(c, &b, on(c, 4, 32, "TLane"));
    return ly_canonicalize(c, lyb_finish(c, &b), LY_TARGET_NONE);
}
