/* gemm_async, variant "tcgen05": C (+)= A @ B^T with tcgen05.mma (sm_100a),
 * the accumulator in tensor memory, issued by one thread.
 *
 * Operands as the reference's gemm_async: C is M x N float32 in TMEM, A is
 * [M, K] ([K, M] with transA) in shared memory or, untransposed, in TMEM
 * (the ts form), B is [N / cta_group, K] ([K, N / cta_group] with transB) in
 * shared memory. M is the CTA's rows: 64 or 128; with cta_group=2 the pair
 * of CTAs computes one 2M x N product, each holding half of B's rows. Kinds:
 * f16 (float16, bfloat16), tf32 (float32), f8f6f4 (e4m3, e5m2 and the _align16
 * fp6 / fp4 forms, mixed freely).
 *
 * Block scaled (gemm_async(C, A, B, SFA, SFB, ...)): SFA [M, SF_K] and SFB
 * [>= N, SF_K] are 8-bit scale factors in TMEM (tmem.alloc_sf) and the kind
 * follows from them: mxf8f6f4 (fp8 or _align16 fp6 / fp4 operands, e8m0
 * factors, one per 32 K),
 * mxf4 (e2m1, e8m0, two per MMA), mxf4nvf4 (e2m1, e4m3, four per MMA); M is
 * 128. SF_K is the factors of one MMA (every K step reads them), of each K
 * step, or of four K steps per step. Each MMA reads its factors from the
 * TMEM column its first one is in, and its instruction descriptor carries
 * the byte of the column (sf_id, folded per MMA: consecutive K steps rotate
 * through the four bytes). The factors' layout is checked against the one
 * the instruction reads: row r on lane r % 32 and element 4 * (r / 32) of
 * the column group, one MMA's factors side by side.
 *
 * The data path follows from M, cta_group and weight_stationary (PTX
 * "Matrix fragments for tcgen05.mma"), and C's layout must be it, element by
 * element: D (M 128) and A (cta_group::2, M 128): row i on lane i; F (M
 * 64): 16 rows on the lower 16 lanes of each warp's 32-lane slab; E (.ws,
 * M 64) and B (cta_group::2, M 64): the two column halves of each
 * instruction on lanes 0-63 and 64-127. C's
 * origin (lane and column) may be symbolic. A in TMEM is the identity on
 * lanes 0..M-1 (data paths D, A and F). Data paths B and E compute the
 * column halves of an instruction on lanes 0-63 and 64-127, each from the A
 * on its own lanes: there A in TMEM is [2, M, K] (A[h] on lanes 64 h ..),
 * and C may be given as the same halves, [2, M, N / 2] (C[h] on lanes
 * 64 h .., one instruction's N), so that C[h] = A[h] @ B[h N / 2 ..]^T;
 * either form makes M 64 and, with cta_group=1, the .ws form.
 *
 * Shared-memory descriptors are derived from A's and B's layouts and checked
 * element by element (smem_desc.c); the instruction descriptor is folded at
 * compile time (ir_tcgen05_instr_desc). Per K step and N tile one tcgen05.mma:
 * the first K step accumulates only when `accum` says so. At warp scope the
 * MMAs run under `if T.cuda.elect_sync():`; at thread scope the caller has
 * chosen the thread.
 *
 * Config: cta_group (1 or 2), weight_stationary (the .ws form; inferred
 * when C is in data path E), is_AB_tf32 (float32 operands as tf32, as they
 * are anyway), and smem_desc, where the shared-memory descriptors are
 * encoded: "hoist" (default: once, right after the buffer's definition,
 * made warp-uniform at warp scope; each MMA adds its offset), "local_hoist"
 * (once per call, by the issuing thread), "encode" (per MMA, from the tile's
 * address), "recompute" (per MMA, the bits assembled inline). descI= (a
 * pre-encoded descriptor, which the reference uses in place of its own) is
 * taken when it is a scalar whose only write in the function is one
 * T.cuda.tcgen05.encode_instr_descriptor[_block_scaled] of the folded
 * descriptor (the scale-factor ids aside, which each MMA sets): the folded
 * one is used, as it is that value. */
#include <string.h>

#include "../../ir/ptx.h"
#include "../../ir/visit.h"
#include "../smem_desc.h"
#include "../tmem.h"

typedef enum { DESC_HOIST, DESC_LOCAL_HOIST, DESC_ENCODE, DESC_RECOMPUTE } DescMode;
static const char *const desc_modes[] = {"hoist", "local_hoist", "encode", "recompute"};

typedef struct Tc05 {
    OpTmemRegion c, at;   /* C; A in TMEM (ts) */
    OpTmemRegion sf[2];   /* block scaled: SFA, SFB */
    bool scaled;
    const char *sf_type;  /* the scale factors' dtype name */
    int64_t sf_mma;       /* scale factors per row of one MMA (the scale_vec) */
    int64_t sf_step;      /* scale-factor elements per K step */
    /* the factors' origin may be inside a 32-bit column (a K block chosen at
     * run time): their byte, sf_id, is computed at run time */
    bool sf_inside[2];
    OpSmemOperand a, b;
    bool a_tmem, trans_a, trans_b, ws;
    bool c_halves, a_halves; /* C [2, M, N / 2], A [2, M, K]: the two 64-lane halves */
    IrExpr *accum;        /* NULL: False */
    int cta_group;
    int64_t m, n, k;      /* C is m x n; B has n / cta_group rows */
    int64_t n_mma, k_mma; /* per instruction (n_mma over the CTA pair) */
    char path;            /* the data path: 'A', 'B', 'D', 'E', 'F' */
    const char *ab[2];    /* PTX types of A and B */
    const char *kind;
    uint32_t idesc;
    DescMode mode;
} Tc05;

/* ---------------------------------------------------------------- config */

static const char *read_config(OpCtx *c, Tc05 *g)
{
    IrExpr *e;
    int64_t v = 1;
    if ((e = op_config(c, "cta_group")) && (!op_const(e, &v) || (v != 1 && v != 2)))
        return op_reason(c, "cta_group= must be 1 or 2");
    g->cta_group = (int)v;
    bool tf32 = false;
    if ((e = op_config(c, "weight_stationary")) && !op_flag(e, &g->ws))
        return op_reason(c, "weight_stationary= must be a constant");
    if ((e = op_config(c, "is_AB_tf32")) && !op_flag(e, &tf32))
        return op_reason(c, "is_AB_tf32= must be a constant");
    if (op_config(c, "mma_m") || op_config(c, "mma_n"))
        return op_reason(c, "mma_m= and mma_n= are not supported; the instruction tile follows "
                            "from C's shape");
    g->mode = DESC_HOIST;
    if ((e = op_config(c, "smem_desc"))) {
        int i = 0;
        while (i < 4 && !(e->kind == IR_E_STR && !strcmp(e->u.str, desc_modes[i])))
            i++;
        if (i == 4)
            return op_reason(c, "smem_desc= is \"hoist\", \"local_hoist\", \"encode\" or "
                                "\"recompute\"");
        g->mode = (DescMode)i;
    }
    return NULL;
}

static const char *read_flags(OpCtx *c, Tc05 *g)
{
    g->scaled = op_nargs(c) > 6;
    int f = g->scaled ? 5 : 3;
    if (!op_flag(op_arg(c, f), &g->trans_a) || !op_flag(op_arg(c, f + 1), &g->trans_b))
        return op_reason(c, "transA and transB must be constants");
    IrExpr *acc = op_arg(c, f + 2);
    bool v;
    g->accum = acc && !(op_flag(acc, &v) && !v) ? acc : NULL;
    if (g->accum && op_flag(acc, &v))
        g->accum = ir_int(c->arena, IR_BOOL, 1, c->call->span);
    return read_config(c, g);
}

/* ---------------------------------------------------------------- operands */

/* A: shared [M, K] / [K, M], or TMEM [M, K]. */
static const char *read_a(OpCtx *c, Tc05 *g, int64_t *m, int64_t *k)
{
    OpRegion r;
    const char *why = op_region(c, 1, &r);
    if (why)
        return why;
    if (r.mem != OP_MEM_TMEM) {
        why = op_smem_read(c, 1, &g->a, g->trans_a);
        *m = g->a.mn, *k = g->a.k;
        return why;
    }
    g->a_tmem = true;
    if ((why = op_tmem_read(c, 1, &g->at)))
        return why;
    g->a_halves = g->at.ndim == 3 && g->at.ext[0] == 2;
    if ((g->at.ndim != 2 && !g->a_halves) || g->trans_a)
        return op_reason(c, "A in tensor memory must be a 2-D [M, K] tile, or [2, M, K] for the "
                            "two 64-lane halves of data paths B and E (transA=False)");
    *m = g->at.ext[g->at.ndim - 2], *k = g->at.ext[g->at.ndim - 1];
    return NULL;
}

static char data_path(const Tc05 *g)
{
    if (g->cta_group == 2)
        return g->m == 128 ? 'A' : 'B';
    return g->m == 128 ? 'D' : g->ws ? 'E' : 'F';
}

/* Where the data path puts C's element (i, j): lane and column. */
static void c_expected(const Tc05 *g, int64_t i, int64_t j, int64_t *lane, int64_t *col)
{
    int64_t half = g->n_mma / 2, tile = j / g->n_mma, jj = j % g->n_mma;
    switch (g->path) {
    case 'F': *lane = i / 16 * 32 + i % 16, *col = j; break;
    case 'B':
    case 'E': *lane = i + jj / half * 64, *col = tile * half + jj % half; break;
    default: *lane = i, *col = j; break;
    }
}

/* "[i, j]" or "[h, i, j]": an element's index, for messages. */
static const char *index_str(OpCtx *c, const int64_t *idx, int n)
{
    if (n == 2)
        return tx_arena_printf(c->arena, "[%lld, %lld]", (long long)idx[0], (long long)idx[1]);
    return tx_arena_printf(c->arena, "[%lld, %lld, %lld]", (long long)idx[0], (long long)idx[1],
                           (long long)idx[2]);
}

/* C's element (i, j) of the M x N product, checked where data path `path`
 * puts it; C [2, M, N / 2] holds it at [j / (N / 2), i, j % (N / 2)]. */
static bool c_placed(OpCtx *c, const Tc05 *g, char path, int64_t bad[3], int64_t *bad_lane,
                     int64_t *bad_col)
{
    Tc05 p = *g;
    p.path = path;
    int64_t half = g->n / 2;
    for (int64_t i = 0; i < g->m; i++)
        for (int64_t j = 0; j < g->n; j++) {
            int64_t idx[3] = {j / half, i, j % half}, *at = idx, lane, col, el, ec;
            if (!g->c_halves)
                at = idx + 1, idx[1] = i, idx[2] = j;
            c_expected(&p, i, j, &el, &ec);
            if (!op_tmem_at(c, &g->c, at, &lane, &col) || lane != el || col != ec) {
                memcpy(bad, idx, sizeof idx);
                *bad_lane = el, *bad_col = ec;
                return false;
            }
        }
    return true;
}

/* C where the data path puts it. A 64-row C on 64 consecutive lanes is taken
 * as data path F's placement too, as the reference reads it (the first 64
 * rows of a data path D tile): an M = 64 MMA writes them to the lanes of
 * path F whatever the declaration says, and the .16x* tcgen05.ld/st of 64
 * rows that read them back place them the same way. */
static const char *check_c(OpCtx *c, Tc05 *g)
{
    static const char *const how[] = {
        ['A'] = "row i on lane i (tmem.alloc_tcgen05_mma_D with M=256, cta_group=2)",
        ['B'] = "the column halves on lanes 0-63 and 64-127 (tmem.alloc_tcgen05_mma_D with "
                "M=128, cta_group=2)",
        ['D'] = "row i on lane i (tmem.alloc_tcgen05_mma_D with M=128)",
        ['E'] = "the column halves on lanes 0-63 and 64-127 (tmem.alloc_tcgen05_mma_D with "
                "M=64, ws=True)",
        ['F'] = "16 rows per warp slab (T.tmem_datapath_layout(\"F\", 64, N)) or row i on "
                "lane i",
    };
    int64_t idx[3], lane, col, ig[3], il, ic;
    if (c_placed(c, g, g->path, idx, &lane, &col) ||
        (g->path == 'F' && c_placed(c, g, 'D', ig, &il, &ic)))
        return NULL;
    int64_t *at = g->c_halves ? idx : idx + 1;
    return op_reason(c, "C '%s' is not in data path %c, %s: its element %s must be at lane %lld, "
                        "column %lld", g->c.name, g->path, how[(int)g->path],
                     index_str(c, at, g->c.ndim), (long long)lane, (long long)col);
}

/* A in TMEM: [M, K] with row i on lane i (data paths A, D and F), or [2, M,
 * K] for data paths B and E, whose MMAs compute the columns on lanes
 * 64 h .. 64 h + 63 from A[h] on the same lanes (an A [2, M, K] always
 * makes the path B or E: read_halves). */
static const char *check_a_tmem(OpCtx *c, Tc05 *g)
{
    bool halves = g->path == 'B' || g->path == 'E';
    if (halves && !g->a_halves)
        return op_reason(c, "data path %c computes the columns on lanes 64-127 from the A on "
                            "those lanes: A in tensor memory must be [2, %lld, K], A[h] on "
                            "lanes 64 h .. 64 h + %lld (tmem.alloc_tcgen05_mma_A with shape "
                            "(2, %lld, K))", g->path, (long long)g->m, (long long)g->m - 1,
                         (long long)g->m);
    for (int64_t h = 0; h < (halves ? 2 : 1); h++)
        for (int64_t i = 0; i < g->m; i++)
            for (int64_t j = 0; j < g->k; j++) {
                int64_t idx[3] = {h, i, j}, *at = halves ? idx : idx + 1, lane, col;
                if (!op_tmem_at(c, &g->at, at, &lane, &col) || lane != h * 64 + i || col != j)
                    return op_reason(c, "A '%s' in tensor memory must put %s on lane %s and "
                                        "column j on column j (tmem.alloc_tcgen05_mma_A): its "
                                        "element %s is not there", g->at.name,
                                     halves ? "A[h, i, j]" : "row i", halves ? "64 h + i" : "i",
                                     index_str(c, at, g->at.ndim));
            }
    return NULL;
}

/* The scale factors' dtype (the same for SFA and SFB) and how many one MMA
 * reads per row: its K over the block size (32 for e8m0, 16 for e4m3). */
static const char *read_sf_type(OpCtx *c, Tc05 *g)
{
    char buf[2][IR_DTYPE_STR_MAX];
    const char *sa = ir_dtype_str(g->sf[0].r.dtype, buf[0]);
    const char *sb = ir_dtype_str(g->sf[1].r.dtype, buf[1]);
    if (strcmp(sa, sb) || (strcmp(sa, "float8_e8m0fnu") && strcmp(sa, "float8_e4m3fn")))
        return op_reason(c, "SFA (%s) and SFB (%s) must both be float8_e8m0fnu or both "
                            "float8_e4m3fn", sa, sb);
    g->sf_type = tx_arena_printf(c->arena, "%s", sa);
    return NULL;
}

/* The MMA's types and kind; tf32 and fp8 rules. */
static const char *read_types(OpCtx *c, Tc05 *g)
{
    IrDType at = g->a_tmem ? g->at.r.dtype : g->a.r.dtype;
    g->ab[0] = op_smem_mma_type(at), g->ab[1] = op_smem_mma_type(g->b.r.dtype);
    if (!g->ab[0] || !g->ab[1])
        return op_reason(c, "A and B must be float16, bfloat16, float32 (as tf32), fp8 "
                            "(e4m3, e5m2), float4_e2m1fn or an _align16 fp4 / fp6 dtype");
    if (g->a_tmem && ir_dtype_subbyte(at))
        return op_reason(c, "A from tensor memory takes no sub-byte dtype here");
    const char *why = g->scaled ? read_sf_type(c, g) : NULL;
    if (why)
        return why;
    g->kind = ir_tcgen05_kind("f32", g->ab[0], g->ab[1], g->sf_type);
    if (!g->kind && g->scaled)
        return op_reason(c, "A (%s) and B (%s) with %s scale factors make no block-scaled "
                            "tcgen05.mma kind (mxf8f6f4: fp8 or _align16 fp6 / fp4 operands, "
                            "float8_e8m0fnu factors)",
                         g->ab[0], g->ab[1], g->sf_type);
    if (!g->kind)
        return op_reason(c, "A (%s) and B (%s) make no tcgen05.mma kind", g->ab[0], g->ab[1]);
    bool fp4 = !strcmp(g->ab[0], "e2m1") || !strcmp(g->ab[1], "e2m1");
    if (fp4 && strncmp(g->kind, "mxf4", 4))
        return op_reason(c, "float4_e2m1fn operands, packed two to a byte in shared memory, are "
                            "read by the block-scaled kinds mxf4 and mxf4nvf4 only (A and B both "
                            "e2m1, with scale factors); kind::%s reads them as "
                            "float4_e2m1fn_align16", g->kind);
    if (!ir_dtype_eq(g->c.r.dtype, IR_FLOAT32))
        return op_reason(c, "C must be float32");
    g->k_mma = ir_tcgen05_mma_k(g->kind);
    if (g->scaled)
        g->sf_mma = g->k_mma / (strcmp(g->sf_type, "float8_e8m0fnu") ? 16 : 32);
    return NULL;
}

/* C [2, M, N / 2] or A [2, M, K] is a pair of 64-lane halves: the M = 64
 * data paths B (cta_group=2) and E (the .ws form, inferred). */
static const char *read_halves(OpCtx *c, Tc05 *g)
{
    const char *what = g->c_halves ? "C [2, M, N / 2]" : "A [2, M, K]";
    if (g->m != 64)
        return op_reason(c, "%s holds the two 64-lane halves of data paths B and E, where M is "
                            "64, not %lld", what, (long long)g->m);
    IrExpr *e = op_config(c, "weight_stationary");
    if (g->cta_group == 1 && e && !g->ws)
        return op_reason(c, "%s with cta_group=1 is data path E, the .ws form; drop "
                            "weight_stationary=False", what);
    if (g->cta_group == 1)
        g->ws = true;
    return NULL;
}

static const char *read_shapes(OpCtx *c, Tc05 *g, int64_t am, int64_t ak)
{
    g->c_halves = g->c.ndim == 3 && g->c.ext[0] == 2;
    if (g->c.ndim != 2 && !g->c_halves)
        return op_reason(c, "C must be a 2-D region of tensor memory, or [2, M, N / 2] for the "
                            "two 64-lane halves of data paths B and E");
    g->m = g->c.ext[g->c.ndim - 2], g->n = g->c.ext[g->c.ndim - 1] * (g->c_halves ? 2 : 1);
    g->k = ak;
    if (am != g->m || g->b.mn * g->cta_group != g->n || g->b.k != ak)
        return op_reason(c, "the shapes do not multiply: C %lldx%lld, A %lldx%lld, B %lldx%lld "
                            "with cta_group=%d (A is [M, K], B is [N / cta_group, K]; "
                            "transA/transB swap them)", (long long)g->m, (long long)g->n,
                         (long long)am, (long long)ak, (long long)g->b.mn, (long long)g->b.k,
                         g->cta_group);
    if (g->m != 64 && g->m != 128)
        return op_reason(c, "C has %lld rows; a CTA's share of a tcgen05.mma is 64 or 128",
                         (long long)g->m);
    const char *why = g->c_halves || g->a_halves ? read_halves(c, g) : NULL;
    if (why)
        return why;
    if (g->k % g->k_mma)
        return op_reason(c, "K (%lld) must be a multiple of %lld", (long long)g->k,
                         (long long)g->k_mma);
    int64_t step = g->cta_group == 2 ? 16 : 8;
    for (g->n_mma = g->n < 256 ? g->n : 256; g->n_mma >= step && g->n % g->n_mma; g->n_mma -= step)
        ;
    if (g->n_mma < step || g->n_mma % step)
        return op_reason(c, "N (%lld) has no instruction tile: a multiple of %lld up to 256 that "
                            "divides it", (long long)g->n, (long long)step);
    if (g->c_halves && g->n_mma != g->n)
        return op_reason(c, "C [2, M, N / 2] holds the column halves of one instruction: N is "
                            "at most 256, not %lld", (long long)g->n);
    if (g->ws && (g->cta_group != 1 || (g->n_mma != 64 && g->n_mma != 128 && g->n_mma != 256)))
        return op_reason(c, "weight_stationary (.ws) needs cta_group=1 and N tiles of 64, 128 "
                            "or 256, not %lld", (long long)g->n_mma);
    return NULL;
}

/* C's data path: E is only .ws, so a C laid out in it asks for .ws. */
static const char *choose_path(OpCtx *c, Tc05 *g)
{
    g->path = data_path(g);
    const char *why = check_c(c, g);
    if (why && g->path == 'F' && !op_config(c, "weight_stationary")) {
        Tc05 e = *g;
        e.ws = true, e.path = 'E';
        if (!check_c(c, &e)) {
            *g = e;
            return NULL;
        }
    }
    return why;
}

/* ---------------------------------------------------------------- scale factors */

/* Where the scale factor (row, k) of sf[w] is: lane and column (elements)
 * from the region's origin. */
static bool sf_at(OpCtx *c, const Tc05 *g, int w, int64_t row, int64_t k, int64_t *lane,
                  int64_t *col)
{
    const OpTmemRegion *t = &g->sf[w];
    int64_t full[OP_MAX_DIMS] = {0};
    full[t->r.ndim - 2] = row, full[t->r.ndim - 1] = k;
    return op_tmem_at_full(c, t, full, lane, col);
}

/* The factors of one MMA from row `row0`, step ki, laid out as the
 * instruction reads them (relative to the first). */
static const char *check_sf_mma(OpCtx *c, const Tc05 *g, int w, int64_t row0, int64_t rows,
                                int64_t ki)
{
    int64_t k0 = ki * g->sf_step, l0, c0;
    if (!sf_at(c, g, w, row0, k0, &l0, &c0))
        return "its layout places no factor";
    for (int64_t r = 0; r < rows; r++)
        for (int64_t s = 0; s < g->sf_mma; s++) {
            int64_t lane, col;
            if (!sf_at(c, g, w, row0 + r, k0 + s, &lane, &col) || lane != l0 + r % 32 ||
                col != c0 + r / 32 * 4 + s)
                return tx_arena_printf(c->arena, "its factor [%lld, %lld] must be at lane "
                                       "%lld, column element %lld (tmem.alloc_sf with "
                                       "sf_per_mma=%lld)", (long long)(row0 + r),
                                       (long long)(k0 + s), (long long)(l0 + r % 32),
                                       (long long)(c0 + r / 32 * 4 + s), (long long)g->sf_mma);
        }
    return NULL;
}

/* A region of factors that may start inside a column (its origin is not a
 * known multiple of 4 bytes: `SFA[0:128, kb * 4:kb * 4 + 4]` with kb known
 * at run time) is read with sf_id = the origin's byte in its column, when
 * every MMA's factors stay in one column: the origin a known multiple of
 * the factors per MMA (scale_vec), and each MMA's first factor too. */
static const char *read_sf_origin(OpCtx *c, Tc05 *g, int w, int64_t rows, int64_t per,
                                  int64_t steps)
{
    const OpTmemRegion *t = &g->sf[w];
    int64_t align = op_known_pow2_in(c->multiples, t->col);
    if (align % 4 == 0)
        return NULL;
    if (align % g->sf_mma)
        return tx_arena_printf(c->arena, "starts inside a 32-bit TMEM column at an element "
                               "not known to be a multiple of %lld (the factors of one MMA "
                               "must share a column)", (long long)g->sf_mma);
    for (int64_t row0 = 0; row0 < (w ? g->n / g->cta_group : rows); row0 += per)
        for (int64_t ki = 0; ki < steps; ki++) {
            int64_t lane, col;
            if (sf_at(c, g, w, row0, ki * g->sf_step, &lane, &col) && col % g->sf_mma)
                return tx_arena_printf(c->arena, "starts inside a 32-bit TMEM column, and the "
                                       "factors of K step %lld are %lld elements on, not a "
                                       "multiple of %lld", (long long)ki, (long long)col,
                                       (long long)g->sf_mma);
        }
    g->sf_inside[w] = true;
    return NULL;
}

/* SFA [M, SF_K], SFB [>= N, SF_K]: SF_K is sf_mma, sf_mma per K step or
 * 4 * sf_mma per K step; every MMA's factors where the instruction reads them. */
static const char *read_sf(OpCtx *c, Tc05 *g)
{
    static const char *const names[] = {"SFA", "SFB"};
    int64_t steps = g->k / g->k_mma;
    if (g->ws)
        return op_reason(c, "block-scaled MMAs have no weight-stationary (.ws) form");
    for (int w = 0; w < 2; w++) {
        const OpTmemRegion *t = &g->sf[w];
        int nd = t->r.ndim;
        int64_t rows = w ? g->n : g->m, sf_k = nd >= 2 ? t->r.extent[nd - 1] : 0;
        bool flat = nd >= 2 && t->ndim <= 2 && (t->ndim < 1 || t->dim[0] >= nd - 2);
        if (!flat || (w ? t->r.extent[nd - 2] < rows : t->r.extent[nd - 2] != rows))
            return op_reason(c, "%s '%s' must be a [%s%lld, SF_K] region of tensor memory (its last two dimensions)",
                             names[w], t->name, w ? ">= " : "", (long long)rows);
        if (sf_k != g->sf_mma && sf_k != g->sf_mma * steps && sf_k != 4 * g->sf_mma * steps)
            return op_reason(c, "%s '%s' has %lld factors along K; %lld K steps of kind::%s "
                                "take %lld, %lld or %lld", names[w], t->name, (long long)sf_k,
                             (long long)steps, g->kind, (long long)g->sf_mma,
                             (long long)(g->sf_mma * steps), (long long)(4 * g->sf_mma * steps));
        int64_t step = sf_k / steps, per = w ? g->n_mma / g->cta_group : g->m;
        if (w == 0)
            g->sf_step = step;
        else if (step != g->sf_step)
            return op_reason(c, "SFA and SFB must have as many factors along K");
        for (int64_t row0 = 0; row0 < (w ? g->n / g->cta_group : rows); row0 += per)
            for (int64_t ki = 0; ki < steps; ki++) {
                const char *why = check_sf_mma(c, g, w, row0, per, ki);
                if (why)
                    return op_reason(c, "%s '%s' is not laid out as tcgen05.mma reads scale "
                                        "factors: %s", names[w], t->name, why);
            }
        const char *why = read_sf_origin(c, g, w, rows, per, steps);
        if (why)
            return op_reason(c, "%s '%s' %s", names[w], t->name, why);
    }
    return NULL;
}

/* The instruction descriptor of the MMA at N tile ni, K step ki (block
 * scaled: the bytes its factors are in). */
static uint32_t mma_idesc(OpCtx *c, const Tc05 *g, int64_t ni, int64_t ki, char *err,
                          size_t errlen, bool *ok)
{
    IrInstrDesc d = {.d_dtype = "f32", .a_dtype = g->ab[0], .b_dtype = g->ab[1],
                     .sf_dtype = g->sf_type, .m = (int)(g->m * g->cta_group),
                     .n = (int)g->n_mma, .k = (int)g->k_mma, .cta_group = g->cta_group,
                     .trans_a = !g->a_tmem && g->a.mn_major, .trans_b = g->b.mn_major};
    int64_t lane, col;
    if (g->scaled && !g->sf_inside[0] && sf_at(c, g, 0, 0, ki * g->sf_step, &lane, &col))
        d.sf_id_a = (int)(col % 4);
    if (g->scaled && !g->sf_inside[1] &&
        sf_at(c, g, 1, ni * g->n_mma / g->cta_group, ki * g->sf_step, &lane, &col))
        d.sf_id_b = (int)(col % 4);
    uint32_t v = 0;
    *ok = ir_tcgen05_instr_desc(&d, &v, err, errlen);
    return v;
}

static const char *fold_idesc(OpCtx *c, Tc05 *g)
{
    char err[256];
    bool ok;
    g->idesc = mma_idesc(c, g, 0, 0, err, sizeof err, &ok);
    return ok ? NULL : op_reason(c, "%s", err);
}

/* ---------------------------------------------------------------- descI */
/* The writes of a scalar in a function: encoder calls through its address,
 * and anything else that may change it. */
typedef struct DescWrites {
    const IrExpr *buf;
    const IrExpr *encoder; /* the one encoder call, NULL when none */
    int encoders, names, loads;
    bool other; /* a store, a region, another address */
} DescWrites;

static bool is_encoder(const IrExpr *e)
{
    return e->kind == IR_E_CALL && (e->u.call.op == IR_OP_CUDA_TCGEN05_INSTR_DESC ||
                                    e->u.call.op == IR_OP_CUDA_TCGEN05_INSTR_DESC_BLOCK_SCALED);
}

static bool is_address_of(const IrExpr *e, const IrExpr *buf)
{
    return e && e->kind == IR_E_CALL && e->u.call.op == IR_OP_ADDRESS_OF && e->u.call.nargs == 1 &&
           e->u.call.args[0]->kind == IR_E_LOAD && e->u.call.args[0]->u.access.buffer == buf;
}

static bool desc_write_expr(IrVisitor *v, const IrExpr *e)
{
    DescWrites *w = v->ctx;
    if (is_encoder(e) && e->u.call.nargs && is_address_of(e->u.call.args[0], w->buf)) {
        w->encoder = e, w->encoders++;
        return false; /* its other arguments are constants (checked when folded) */
    }
    if (e == w->buf)
        w->names++;
    else if (e->kind == IR_E_LOAD && e->u.access.buffer == w->buf)
        w->loads++;
    else if (is_address_of(e, w->buf) ||
             (e->kind == IR_E_REGION && e->u.access.buffer == w->buf))
        w->other = true;
    return true;
}

static bool desc_write_stmt(IrVisitor *v, const IrStmt *s)
{
    DescWrites *w = v->ctx;
    if (s->kind == IR_S_STORE && s->u.store.buffer == w->buf)
        w->other = true;
    return true;
}

#define SF_ID_BITS ((3u << 29) | (3u << 4))

/* descI= names the folded descriptor: a one-element local written only by
 * one encoder call, whose descriptor is the folded one but for the
 * scale-factor ids. */
static const char *check_desc_i(OpCtx *c, const Tc05 *g, const IrExpr *e)
{
    const IrExpr *buf = e->kind == IR_E_LOAD ? e->u.access.buffer : NULL;
    if (!buf || strcmp(buf->u.var.type->scope, "local") || !c->func || !c->func->body)
        return op_reason(c, "descI= must be a local scalar that T.cuda.tcgen05."
                            "encode_instr_descriptor[_block_scaled] writes");
    DescWrites w = {.buf = buf};
    IrVisitor v = {.ctx = &w, .expr = desc_write_expr, .stmt = desc_write_stmt};
    ir_visit_stmt(&v, c->func->body);
    if (w.encoders != 1 || w.other || w.names != w.loads)
        return op_reason(c, "descI= '%s' is not known: it must be written by exactly one "
                            "T.cuda.tcgen05.encode_instr_descriptor[_block_scaled] and nothing "
                            "else", buf->u.var.name);
    IrInstrDesc d;
    const char *sfb;
    uint32_t given = 0;
    char err[256];
    if (!ir_tcgen05_instr_desc_call(w.encoder, &d, &sfb) ||
        (d.sf_dtype && strcmp(d.sf_dtype, sfb)) || !ir_tcgen05_instr_desc(&d, &given, err, sizeof err))
        return op_reason(c, "descI= '%s' is encoded from arguments that do not fold to a "
                            "descriptor", buf->u.var.name);
    if ((given & ~SF_ID_BITS) != (g->idesc & ~SF_ID_BITS))
        return op_reason(c, "descI= '%s' encodes 0x%08x, but the operands give the instruction "
                            "descriptor 0x%08x (scale-factor ids aside)",
                         buf->u.var.name, given & ~SF_ID_BITS, g->idesc & ~SF_ID_BITS);
    return NULL;
}

static const char *shared_operand(OpCtx *c, OpSmemOperand *o, int64_t inst_mn, int64_t k_mma)
{
    const char *why = op_smem_describe(c, o, inst_mn, k_mma, "tcgen05.mma");
    if (!why && o->mn_major && o->ebits == 32)
        return op_reason(c, "a tf32 operand cannot be MN-major; lay %s out with K contiguous",
                         o->name);
    char buf[IR_DTYPE_STR_MAX];
    if (!why && o->mn_major && ir_dtype_subbyte(o->r.dtype))
        return op_reason(c, "'%s' (%s) is MN-major, and tcgen05.mma reads fp6 and fp4 operands "
                            "K-major only: the transpose bits of the instruction descriptor "
                            "(15 A, 16 B) are valid for e4m3, e5m2, f16, bf16, tf32 and 8-bit "
                            "integer operands only, and the 16 fp6 / fp4 values of each 16 "
                            "bytes of shared memory run along K; lay '%s' out with K "
                            "contiguous",
                         o->name, ir_dtype_str(o->r.dtype, buf), o->name);
    return why;
}

static const char *read_call(OpCtx *c, Tc05 *g)
{
    memset(g, 0, sizeof *g);
    int64_t am = 0, ak = 0;
    const char *why;
    if ((why = read_flags(c, g)) || (why = op_tmem_read(c, 0, &g->c)) ||
        (why = read_a(c, g, &am, &ak)) || (why = op_smem_read(c, 2, &g->b, g->trans_b)) ||
        (g->scaled && ((why = op_tmem_read_bytes(c, 3, &g->sf[0])) ||
                       (why = op_tmem_read_bytes(c, 4, &g->sf[1])))) ||
        (why = read_types(c, g)) || (why = read_shapes(c, g, am, ak)) ||
        (why = choose_path(c, g)) || (g->scaled && (why = read_sf(c, g))))
        return why;
    if (g->a_tmem)
        why = check_a_tmem(c, g);
    else
        why = shared_operand(c, &g->a, g->m, g->k_mma);
    if (why || (why = shared_operand(c, &g->b, g->n_mma / g->cta_group, g->k_mma)) ||
        (why = fold_idesc(c, g)))
        return why;
    IrExpr *desc_i = op_config(c, "descI");
    return desc_i ? check_desc_i(c, g, desc_i) : NULL;
}

/* The spelling of the instruction for this call. */
static const char *spelling(OpCtx *c, const Tc05 *g)
{
    if (g->scaled)
        return tx_arena_printf(c->arena, "tcgen05.mma.cta_group::%d.kind::%s.block_scale"
                               ".scale_vec::%lldX", g->cta_group, g->kind, (long long)g->sf_mma);
    return tx_arena_printf(c->arena, "tcgen05.mma%s.cta_group::%d.kind::%s", g->ws ? ".ws" : "",
                           g->cta_group, g->kind);
}

const char *op_tcgen05_mma_accept(OpCtx *c)
{
    const char *why = op_need_scope(c, OP_SCOPE_BIT(IR_SCOPE_THREAD) | OP_SCOPE_BIT(IR_SCOPE_WARP));
    if (why)
        return why;
    Tc05 g;
    if ((why = read_call(c, &g)))
        return why;
    /* d, a, b, idesc; the disable-output-lane mask (4 words a CTA) or .ws; enable-input-d */
    IrPtxArg ops[4 + 8 + 1] = {{IR_UINT32, false}, {g.a_tmem ? IR_UINT32 : IR_UINT64, false},
                        {IR_UINT64, false}, {IR_UINT32, false}};
    int n = 4;
    if (g.scaled) {
        ops[n++] = (IrPtxArg){IR_UINT32, false};
        ops[n++] = (IrPtxArg){IR_UINT32, false};
        ops[n++] = (IrPtxArg){IR_BOOL, true};
    } else if (g.ws) {
        ops[n++] = (IrPtxArg){IR_BOOL, true};
        ops[n++] = (IrPtxArg){IR_UINT64, false};
    } else {
        for (int i = 0; i < 4 * g.cta_group; i++)
            ops[n++] = (IrPtxArg){IR_UINT32, false};
        ops[n++] = (IrPtxArg){IR_BOOL, true};
    }
    return op_need_ptx_ops(c, "tcgen05", spelling(c, &g), ops, n);
}

/* ---------------------------------------------------------------- descriptors */

/* The encoded descriptor of o's storage, once per function, right after
 * the buffer's definition (at warp scope broadcast from lane 0, so that the
 * warp holds one value); NULL when the function does not define the buffer. */
static IrExpr *hoisted(OpCtx *c, const OpSmemOperand *o, const char *name)
{
    bool warp = c->call->u.tile.scope == IR_SCOPE_WARP;
    const char *key = tx_arena_printf(c->arena, "tcgen05.desc %p %lld %lld %d %d",
                                      (void *)o->r.buffer, (long long)o->lbo, (long long)o->sbo,
                                      o->swizzle, warp);
    IrExpr *slot = op_memo_get(c, key);
    if (slot)
        return slot;
    OpSeq s = {0};
    slot = op_smem_encode(c, &s, o, IR_OP_CUDA_TCGEN05_SMEM_DESC, name);
    if (warp) {
        IrExpr *zero = op_i32(c, 0);
        IrExpr *args[3] = {ir_int(c->arena, IR_UINT32, 0xffffffffu, c->call->span),
                           op_load(c, slot, &zero, 1), zero};
        op_store(c, &s, slot, &zero, 1, op_call(c, IR_OP_CUDA_SHFL_SYNC, IR_UINT64, args, 3));
    }
    if (!op_after_def(c, o->r.buffer, op_seq_finish(c, &s)))
        return NULL;
    op_memo_put(c, key, slot);
    return slot;
}

/* The byte address of the tile at 16-byte offset `units` from o's storage. */
static IrExpr *tile_address(OpCtx *c, OpSeq *s, const OpSmemOperand *o, IrExpr *units)
{
    IrExpr *bytes = op_flat_view(c, s, o->r.buffer, IR_UINT8, 1);
    IrExpr *idx = op_bin(c, IR_E_MUL, units, op_i32(c, 16));
    return op_address_of(c, bytes, &idx, 1);
}

/* The descriptor's fields as constants (tx_tcgen05_smem_desc's layout). */
static uint64_t desc_fields(const OpSmemOperand *o)
{
    static const uint64_t layout[] = {0, 6, 4, 2};
    return (uint64_t)(o->lbo / 16 & 0x3fff) << 16 | (uint64_t)(o->sbo / 16 & 0x3fff) << 32 |
           (uint64_t)1 << 46 | layout[op_smem_swizzle_code(o)] << 61;
}

/* How one operand's per-MMA descriptor is formed. */
typedef struct Desc {
    const OpSmemOperand *o;
    IrExpr *base;   /* hoist, local_hoist: a descriptor, `origin` units before the region's */
    int64_t origin;
    IrExpr *units;  /* encode, recompute: the origin's offset in 16-byte units */
} Desc;

static Desc prepare(OpCtx *c, OpSeq *s, const Tc05 *g, const OpSmemOperand *o, const char *name)
{
    Desc d = {o, NULL, 0, op_smem_origin_units(c, o)};
    if (g->mode == DESC_ENCODE || g->mode == DESC_RECOMPUTE)
        return d;
    IrExpr *slot = g->mode == DESC_HOIST ? hoisted(c, o, name) : NULL;
    if (!slot)
        slot = op_smem_encode(c, s, o, IR_OP_CUDA_TCGEN05_SMEM_DESC, name);
    IrExpr *zero = op_i32(c, 0), *desc = op_load(c, slot, &zero, 1);
    if (op_const(d.units, &d.origin)) {
        d.base = desc;
        return d;
    }
    d.base = op_var(c, name, IR_UINT64);
    op_bind(c, s, d.base, op_smem_desc_add(c, desc, d.units));
    return d;
}

static IrExpr *tile_desc(OpCtx *c, OpSeq *s, const Tc05 *g, const Desc *d, int64_t mn, int64_t k)
{
    int64_t units = op_smem_tile_units(c, d->o, mn, k);
    if (d->base)
        return op_smem_desc_add(c, d->base, op_i32(c, d->origin + units));
    IrExpr *at = op_bin(c, IR_E_ADD, d->units, op_i32(c, units));
    IrExpr *addr = tile_address(c, s, d->o, at);
    if (g->mode == DESC_ENCODE) {
        IrExpr *slot = op_alloc_local(c, s, "desc", IR_UINT64, 1), *zero = op_i32(c, 0);
        IrExpr *args[5] = {op_address_of(c, slot, &zero, 1), addr, op_i32(c, d->o->lbo / 16),
                           op_i32(c, d->o->sbo / 16), op_i32(c, op_smem_swizzle_code(d->o))};
        op_eval(c, s, op_call(c, IR_OP_CUDA_TCGEN05_SMEM_DESC, IR_UINT64, args, 5));
        return op_load(c, slot, &zero, 1);
    }
    IrExpr *sa = op_call(c, IR_OP_CUDA_CVTA_TO_SHARED, IR_UINT32, &addr, 1);
    IrExpr *field = op_bin(c, IR_E_FLOORDIV, sa, ir_int(c->arena, IR_UINT32, 16, c->call->span));
    IrExpr *and_args[2] = {field, ir_int(c->arena, IR_UINT32, 0x3fff, c->call->span)};
    IrExpr *lo = op_call(c, IR_OP_BITWISE_AND, IR_UINT32, and_args, 2);
    IrExpr *or_args[2] = {ir_int(c->arena, IR_UINT64, (int64_t)desc_fields(d->o), c->call->span),
                          op_cast(c, IR_UINT64, lo)};
    return op_call(c, IR_OP_BITWISE_OR, IR_UINT64, or_args, 2);
}

/* ---------------------------------------------------------------- emission */

/* The TMEM address of the column holding sf[w]'s factor (row0, first of step ki). */
static IrExpr *sf_addr(OpCtx *c, const Tc05 *g, int w, int64_t row0, int64_t ki)
{
    int64_t lane = 0, col = 0;
    sf_at(c, g, w, row0, ki * g->sf_step, &lane, &col);
    if (g->sf_inside[w])
        return op_tmem_addr_of(c, &g->sf[w], op_i32(c, lane), col);
    return op_tmem_addr(c, &g->sf[w], op_i32(c, lane), col / 4);
}

/* The instruction descriptor of an MMA: the folded constant, with the
 * scale-factor ids of factors inside a column computed at run time (bits
 * 29-30 for A, 4-5 for B). */
static IrExpr *idesc_expr(OpCtx *c, const Tc05 *g, uint32_t idesc, int64_t ni, int64_t ki)
{
    IrExpr *e = ir_int(c->arena, IR_UINT32, idesc, c->call->span);
    for (int w = 0; w < 2; w++) {
        int64_t lane = 0, col = 0;
        if (!g->sf_inside[w])
            continue;
        sf_at(c, g, w, w ? ni * g->n_mma / g->cta_group : 0, ki * g->sf_step, &lane, &col);
        IrExpr *byte = op_bin(c, IR_E_FLOORMOD, op_bin(c, IR_E_ADD, g->sf[w].col, op_i32(c, col)),
                              op_i32(c, 4));
        IrExpr *shift[2] = {op_cast(c, IR_UINT32, byte),
                            ir_int(c->arena, IR_UINT32, w ? 4 : 29, c->call->span)};
        IrExpr *or_args[2] = {e, op_call(c, IR_OP_SHIFT_LEFT, IR_UINT32, shift, 2)};
        e = op_call(c, IR_OP_BITWISE_OR, IR_UINT32, or_args, 2);
    }
    return e;
}

static void emit_mma(OpCtx *c, OpSeq *s, const Tc05 *g, const Desc *da, const Desc *db,
                     int64_t ni, int64_t k0, const char *form)
{
    IrExpr *args[14];
    int n = 0;
    int64_t phys = g->path == 'B' || g->path == 'E' ? g->n_mma / 2 : g->n_mma;
    args[n++] = op_tmem_addr(c, &g->c, op_i32(c, 0), ni * phys);
    if (g->a_tmem)
        args[n++] = op_tmem_addr(c, &g->at, op_i32(c, 0), k0 / g->at.per_col);
    else
        args[n++] = tile_desc(c, s, g, da, 0, k0);
    args[n++] = tile_desc(c, s, g, db, ni * g->n_mma / g->cta_group, k0);
    char err[256];
    bool ok;
    uint32_t idesc = mma_idesc(c, g, ni, k0 / g->k_mma, err, sizeof err, &ok);
    args[n++] = idesc_expr(c, g, idesc, ni, k0 / g->k_mma);
    IrExpr *enable = k0 == 0 ? (g->accum ? g->accum : ir_int(c->arena, IR_BOOL, 0, c->call->span))
                             : ir_int(c->arena, IR_BOOL, 1, c->call->span);
    if (g->scaled) {
        args[n++] = sf_addr(c, g, 0, 0, k0 / g->k_mma);
        args[n++] = sf_addr(c, g, 1, ni * g->n_mma / g->cta_group, k0 / g->k_mma);
        args[n++] = op_cast(c, IR_BOOL, enable);
    } else if (g->ws) {
        args[n++] = op_cast(c, IR_BOOL, enable);
        args[n++] = ir_int(c->arena, IR_UINT64, 0, c->call->span);
    } else {
        for (int i = 0; i < 4 * g->cta_group; i++)
            args[n++] = ir_int(c->arena, IR_UINT32, 0, c->call->span);
        args[n++] = op_cast(c, IR_BOOL, enable);
    }
    op_eval(c, s, op_ptx(c, form, args, n));
}

IrStmt *op_tcgen05_mma_lower(OpCtx *c)
{
    Tc05 g;
    read_call(c, &g);
    OpSeq s = {0};
    Desc da = {0}, db;
    if (!g.a_tmem)
        da = prepare(c, &s, &g, &g.a, "descA");
    db = prepare(c, &s, &g, &g.b, "descB");
    const char *form = spelling(c, &g);
    for (int64_t ni = 0; ni < g.n / g.n_mma; ni++)
        for (int64_t k0 = 0; k0 < g.k; k0 += g.k_mma)
            emit_mma(c, &s, &g, &da, &db, ni, k0, form);
    IrStmt *body = op_seq_finish(c, &s);
    if (c->call->u.tile.scope == IR_SCOPE_WARP)
        body = op_if(c, op_call(c, IR_OP_CUDA_ELECT_SYNC, IR_UINT32, NULL, 0), body, NULL);
    return body;
}
