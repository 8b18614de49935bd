/* The Blackwell TMEM data-path layouts of tcgen05 MMA accumulators (PTX ISA
 * "Matrix fragments for tcgen05.mma", layouts A-G): how the logical (row,
 * column) of a (rows, cols) accumulator lands on TMEM lanes and columns.
 *   A, D  128 rows: identity rows -> lanes.
 *   B, E   64 rows: the column halves fold onto lanes 0-63 and 64-127.
 *   C, F   64 rows: 16 rows per 32-lane warp slab; sub_slab 1 is the upper
 *          16-lane half (PTX row=16).
 *   G      32 rows: the column quarters fold across the four 32-lane slabs. */
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
