/* The layout algebra over IrLayout: the axis registry, apply (concrete sets of
 * coordinates and symbolic IR expressions), admitted shapes, canonical form and
 * equality, grouping, slicing, tiling, direct sum, pack/unpack, storage, the
 * swizzle of a ComposeLayout, and the TMEM datapath layouts.
 *
 * A TileLayout maps a logical element (its row-major position x in a shape the
 * layout admits) to coordinates on named axes: x is split mixed-radix over the
 * shard extents (outermost first), each digit times its stride lands on its
 * axis, the offset map is added, and every combination of the replica iters
 * adds one more copy:  L(x) = { D(x) + r + O : r in R }.  A ComposeLayout
 * swizzles the memory coordinate m of its tile.  reference/layout_passes.md
 * §1 has the full semantics.
 *
 * Every operation takes an LyCtx: results, expressions and error messages are
 * allocated in its arena; a failing operation returns NULL/false and leaves a
 * message (which names the layout and the shape involved) in ctx->err. Input
 * layouts are never modified. Prefix: ly_. */
#ifndef TX_LAYOUT_H
#define TX_LAYOUT_H

#include "../ir/ir.h"

typedef struct LyCtx {
    TxArena *arena;  /* results, expressions and messages live here */
    const char *err; /* the message of the last failure; NULL when none */
    /* the caller's lets and registers -> their known multiples, for the
     * proofs of ly_slice (ar_known_multiple); NULL: none */
    const struct IrPtrMap *multiples;
} LyCtx;

static inline LyCtx ly_ctx(TxArena *a)
{
    LyCtx c = {a, NULL, NULL};
    return c;
}

/* ---------------------------------------------------------------- axes */
typedef enum { LY_MEMORY, LY_THREAD, LY_DEVICE } LyAxisKind;

typedef enum {
#define LY_AXIS(E, name, kind, scope, subscope) LY_AXIS_##E,
#include "axis.def"
    LY_AXIS_COUNT
} LyAxisId;

#define LY_NO_SCOPE (-1)
typedef struct LyAxisInfo {
    const char *name;
    LyAxisKind kind;
    int scope, subscope; /* IrScope, or LY_NO_SCOPE */
} LyAxisInfo;
extern const LyAxisInfo ly_axis_info[LY_AXIS_COUNT];

/* The registered axis of that name, or -1. */
int ly_axis_find(const char *name);
/* A registered axis name close to an unknown one (for "did you mean"), or NULL. */
const char *ly_axis_nearest(const char *name);
/* Unknown axes count as memory axes (ly_check reports them). */
LyAxisKind ly_axis_kind(const char *name);
/* Display order of axes: memory axes, then thread axes, then device axes,
 * each group in ASCII order (strcmp-like result). */
int ly_axis_order(const char *a, const char *b);

/* The target that canonicalization fuses thread axes for. */
typedef enum { LY_TARGET_NONE, LY_TARGET_CUDA } LyTarget;

/* Rewrite one iter of thread axis `it.axis` onto the axis that enumerates
 * `inner` inside `outer` (warpid 4 -> tx with stride*32 for (thread, cta)).
 * False when the axis has no such fuser (including when it already is that
 * axis). */
bool ly_axis_fuse(LyCtx *c, IrIter it, IrScope inner, IrScope outer, IrIter *out);
/* Split one thread-axis iter into the axis pair whose outer axis has subscope
 * `scope` (tx -> warpid, laneid for "warp"). Writes 1 or 2 iters to out and
 * returns the count; 0 when it cannot be split that way. */
int ly_axis_split(LyCtx *c, IrIter it, IrScope scope, IrIter out[2]);

/* ---------------------------------------------------------------- construction */
/* A TileLayout from iter arrays (copied); offsets on the same axis are summed
 * and the offset map is sorted by axis name. */
IrLayout *ly_tile(LyCtx *c, const IrIter *shard, int nshard, const IrIter *replica, int nreplica,
                  const IrAxisOffset *offset, int noffset);
/* A ComposeLayout; fails unless per_element >= 0, swizzle_len >= 0 and
 * atom_len >= swizzle_len, and the tile is a TileLayout. */
IrLayout *ly_compose(LyCtx *c, int per_element, int swizzle_len, int atom_len, bool swizzle_inner,
                     IrLayout *tile);
/* Row-major S[shape] on m (the default layout of a buffer). */
IrLayout *ly_row_major(LyCtx *c, IrExpr *const *shape, int ndim);
/* The layout as TIRx script: T.TileLayout(T.S[(8, 16):(16, 1)] + 5 @ Axis.warpid). */
const char *ly_str(LyCtx *c, const IrLayout *l);
/* Well-formedness: known axis names (with a near-match suggestion), swizzle
 * parameters, a connected thread-scope chain. */
bool ly_check(LyCtx *c, const IrLayout *l);
/* True for a ComposeLayout over a one-iter stride-1 m tile with no replica
 * and no offset. */
bool ly_is_bare_swizzle(const IrLayout *l);

/* ---------------------------------------------------------------- queries */
/* The product of the shard extents (on `axis` only when not NULL). */
IrExpr *ly_size(LyCtx *c, const IrLayout *l, const char *axis);
/* 1 + sum (e-1)*s over shard and replica iters + offsets, on `axis`, or on
 * the memory axes when axis is NULL. */
IrExpr *ly_span(LyCtx *c, const IrLayout *l, const char *axis);
/* The axes the layout maps onto, in display order; returns the count. `out`
 * may be NULL to count. */
int ly_axes(const IrLayout *l, const char **out, int max);
/* The (innermost subscope, outermost scope) of its thread axes. False with no
 * error when no shard iter is on a thread axis; false with an error for
 * conflicting or disconnected scopes. */
bool ly_scope(LyCtx *c, const IrLayout *l, IrScope *inner, IrScope *outer);

/* ---------------------------------------------------------------- shapes and apply */
/* A shape is admitted when its element count equals the layout's size; a bare
 * swizzle also admits any whole multiple of its period. */
bool ly_admits(LyCtx *c, const IrLayout *l, IrExpr *const *shape, int ndim);

/* The coordinates of one logical element: `npoints` points (one per replica
 * combination, sorted, duplicates kept), each with a value on every axis of
 * the layout (axes[], display order). */
typedef struct LyCoords {
    int naxes, npoints;
    const char **axes;
    int64_t *vals; /* npoints x naxes, row-major */
} LyCoords;
/* Concrete apply at `index` (one entry per dim of `shape`). Needs constant
 * extents, strides and offsets; fails for shapes it does not admit and
 * indices out of range. */
bool ly_apply_at(LyCtx *c, const IrLayout *l, const int64_t *shape, const int64_t *index, int ndim,
                 LyCoords *out);
/* Concrete apply at a row-major position of an admitted shape. */
bool ly_apply_pos(LyCtx *c, const IrLayout *l, const int64_t *shape, int ndim, int64_t pos,
                  LyCoords *out);

typedef IrAxisOffset LyAxisValue; /* {axis, value} */
/* Symbolic apply: the representative (replica 0) coordinates of `index` as IR
 * expressions, one per axis, in display order. The layout is canonicalized
 * (no target) and grouped by the shape; a ComposeLayout gives XOR
 * expressions. Expressions are folded (no `*1`, `+0`, constant subterms). */
bool ly_apply_expr(LyCtx *c, const IrLayout *l, IrExpr *const *index, IrExpr *const *shape,
                   int ndim, LyAxisValue **out, int *nout);

/* ---------------------------------------------------------------- canonical form, equality */
/* Drop unit iters and zero offsets, fuse thread axes for `target`, fuse
 * adjacent same-axis iters whose outer stride is extent*stride of the inner,
 * sort the replica (a multiset). A ComposeLayout canonicalizes its tile. */
IrLayout *ly_canonicalize(LyCtx *c, const IrLayout *l, LyTarget target);
/* Structural equality of the canonical forms (expressions compared by value). */
bool ly_equal(LyCtx *c, const IrLayout *a, const IrLayout *b, LyTarget target);
/* Both layouts give the same coordinate set at every index of `shape`
 * (exhaustive; at most 2^20 elements). False with an error when a layout does
 * not admit the shape or is not constant. */
bool ly_apply_equal(LyCtx *c, const IrLayout *a, const IrLayout *b, const int64_t *shape, int ndim);

/* ---------------------------------------------------------------- algebra */
/* Regroup the shard so that dim d of `shape` owns iters [seps[d], seps[d+1])
 * (seps has ndim+1 entries). A ComposeLayout groups its tile. */
IrLayout *ly_group(LyCtx *c, const IrLayout *l, IrExpr *const *shape, int ndim, int *seps);
/* The minimal common refinement of the layout and of every shape (constant
 * extents only); seps[k] receives nd[k]+1 separators for shape k. */
IrLayout *ly_group_many(LyCtx *c, const IrLayout *l, const int64_t *const *shapes, const int *nd,
                        int nshapes, int **seps);
/* Reorder whole groups: group perm[k] of `seps` becomes group k. */
IrLayout *ly_permute_by_groups(LyCtx *c, const IrLayout *l, const int *seps, int ngroups,
                               const int *perm);
/* The sub-region begin[d] .. begin[d]+extent[d] of `shape`, as a layout over
 * shape `extent`; offsets of the region are added to the layout's offsets.
 * A run-time begin whose digits are known multiples (also through
 * c->multiples) slices as its literal counterpart does. */
IrLayout *ly_slice(LyCtx *c, const IrLayout *l, IrExpr *const *shape, IrExpr *const *begin,
                   IrExpr *const *extent, int ndim, LyTarget target);
/* `inner` (this) tiled by `outer`: the result over shape outer_shape*inner_shape
 * maps (o, i) to outer(o) scaled by the inner span, plus inner(i). */
IrLayout *ly_tile_by(LyCtx *c, const IrLayout *inner, const IrLayout *outer,
                     IrExpr *const *outer_shape, IrExpr *const *inner_shape, int ndim,
                     LyTarget target);
/* tile by the row-major S[to/cur] */
IrLayout *ly_tile_to(LyCtx *c, const IrLayout *l, IrExpr *const *to_shape, IrExpr *const *cur_shape,
                     int ndim, LyTarget target);
/* The unscaled sum: over the interleaved shape (A0, B0, A1, B1, ...),
 * sum(a, b) = left(a) + right(b). */
IrLayout *ly_direct_sum(LyCtx *c, const IrLayout *right, const IrLayout *left,
                        IrExpr *const *left_shape, IrExpr *const *right_shape, int ndim,
                        LyTarget target);
/* Per-thread physical storage: thread- and device-axis iters and offsets removed. */
IrLayout *ly_storage(LyCtx *c, const IrLayout *l);
/* A stride-0 iter of extent n on `axis` (m when NULL) inserted into the shard
 * at `position`, as Python's list.insert counts it after a negative position
 * p becomes nshard + 1 + p (-1 appends): each element is seen n times.
 * Positions outside -(nshard + 1) .. nshard fail. A ComposeLayout
 * broadcasts its tile. */
IrLayout *ly_broadcast(LyCtx *c, const IrLayout *l, IrExpr *n, int position, const char *axis);
/* Element width changes by n for view(dtype): unpack splits each element into
 * n (strides and offsets on `axis` times n, a new inner iter n:1); pack is its
 * inverse. axis NULL means m. A ComposeLayout moves per_element by log2(n). */
IrLayout *ly_unpack(LyCtx *c, const IrLayout *l, int64_t n, const char *axis);
IrLayout *ly_pack(LyCtx *c, const IrLayout *l, int64_t n, const char *axis);
/* The layout of view(dtype) from from_bits-bit to to_bits-bit elements (one
 * width a multiple of the other): packed or unpacked by the ratio along the
 * innermost memory axis (unpacked by 1 for the same width, as the reference). */
IrLayout *ly_retype(LyCtx *c, const IrLayout *l, int64_t from_bits, int64_t to_bits);

/* ---------------------------------------------------------------- swizzle */
/* The swizzle of a ComposeLayout on an element address m (§1.9, CUTLASS
 * Swizzle<B=swizzle_len, M=per_element, S=atom_len> for swizzle_inner). */
int64_t ly_swizzle(const IrLayout *compose, int64_t m);
/* 2^(per_element + swizzle_len + atom_len): the elements one swizzle pattern covers. */
int64_t ly_swizzle_period(const IrLayout *compose);
/* The bare MMA swizzle atom for a mode of 0 (none), 32, 64 or 128 bytes. */
IrLayout *ly_swizzle_mode(LyCtx *c, int bytes, IrDType dtype);
/* The hardware swizzle mode (0, 32, 64, 128 bytes) a layout implements for
 * dtype, or -1 when it is not one (an inner=False swizzle, other params). */
int ly_swizzle_bytes(const IrLayout *l, IrDType dtype);
/* mma_shared_layout: the swizzle atom tiled over `shape` (rank >= 2; bytes 0
 * gives the packed 16-byte core-matrix layout). */
IrLayout *ly_mma_shared_layout(LyCtx *c, IrDType dtype, int bytes, const int64_t *shape, int ndim);
/* A swizzled buffer's base must be aligned to the swizzle period: NULL when
 * `base_align` bytes of data alignment and the element offset satisfy it, else
 * the message. A layout without swizzle always passes. */
const char *ly_check_swizzle_base(LyCtx *c, const IrLayout *l, IrDType dtype, IrExpr *elem_offset,
                                  int64_t base_align);

/* ---------------------------------------------------------------- TMEM */
/* tcgen05 data-path layouts 'A'..'G' of a (rows, cols) accumulator
 * (§1.10); sub_slab 1 selects the upper 16-lane half for C/F. */
IrLayout *ly_tmem_datapath_layout(LyCtx *c, char kind, int64_t rows, int64_t cols, int sub_slab);
/* wg_local_layout: a (rows, cols) warpgroup register tile, one row per
 * thread, S[(rows, cols):(1@tid_in_wg, 1)]. */
IrLayout *ly_wg_local_layout(LyCtx *c, IrExpr *cols, IrExpr *rows);
/* wgmma_acc_layout: the (rows, cols) float32 accumulator of a warpgroup's
 * wgmma.mma_async m64nN instructions, one per 64-row block: thread t holds
 * rows t / 32 * 16 + t % 32 / 4 (+ 8) and columns t % 4 * 2 (+ 1) of each
 * 8-column block, register (block * cols / 2) + column block * 4 + half * 2
 * + column parity. rows a multiple of 64, cols of 8. */
IrLayout *ly_wgmma_acc_layout(LyCtx *c, int64_t rows, int64_t cols);
/* tcgen05_atom_layout: the register layout of a (rows, cols) warpgroup
 * fragment read or written by tcgen05.ld/st with `shape` ("32x32b",
 * "16x64b", "16x128b", "16x256b") for elements of `bits` (16 or 32) bits;
 * the repetition count .num follows from cols. */
IrLayout *ly_tcgen05_atom_layout(LyCtx *c, const char *shape, int64_t rows, int64_t cols,
                                 int bits);
/* tmem_mma_operand_layout: the TMEM layout of a tcgen05.mma operand, 'A' (A in
 * TMEM) or 'D' (the accumulator), from the instruction's M, cta_group, ws and
 * sparse (which pick the data path) and the buffer's shape: (m, N); for data
 * paths B/E also (2, m, N/2), (m, 2, N/2), (m, s, 2, n), and `group` (s, 2, n)
 * for a flat (m, N) accumulator (NULL: none). Canonicalized, no target. */
IrLayout *ly_tmem_mma_operand_layout(LyCtx *c, char operand, const int64_t *shape, int ndim,
                                     int64_t M, int64_t cta_group, bool ws, bool sparse,
                                     const int64_t *group);

/* The TMEM layout of a block-scaled tcgen05.mma's scale factors (8-bit): a
 * (rows, sf_k * sf_reuse) buffer, or (pipe_depth, rows, ...) with pipe_depth
 * > 0; sf_per_mma factors per MMA (1 for mxf8f6f4, 2 for mxf4, 4 for
 * mxf4nvf4 with e4m3 factors). Canonicalized, no target. */
IrLayout *ly_tmem_sf_layout(LyCtx *c, int64_t rows, int64_t sf_k, int64_t sf_per_mma,
                            int64_t sf_reuse, int64_t pipe_depth);

/* ---------------------------------------------------------------- expressions */
/* An expression as TIRx script text (for messages). */
const char *ly_expr_str(LyCtx *c, const IrExpr *e);

#endif
