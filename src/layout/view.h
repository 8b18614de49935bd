/* Buffer views: the geometry of a buffer derived from another over the same
 * storage (reference/layout_passes.md §2.2-§2.3). A view is a new buffer type
 * (shape, strides, elem_offset, layout, allocated_addr, dtype) computed from
 * its parent's; the front end declares the variable (a DeclBuffer over
 * parent.data, or for TMEM a declaration at allocated_addr). Every index of a
 * view maps to the same physical coordinates as the parent index it stands
 * for: axis names, replicas and offsets of the layout are kept, and an offset
 * a view adds lands where it keeps the address:
 *   - on the memory axis m: in elem_offset, or in the layout's m offset when
 *     the layout is a swizzle the offset does not commute with (not a whole
 *     number of swizzle periods);
 *   - on TCol of a TMEM buffer with an address: in allocated_addr, in 32-bit
 *     columns (a misaligned column is an error);
 *   - on any other axis (threads, TLane, ...): in the layout's offset on that
 *     axis (the reference adds it to elem_offset, or rejects it for TMEM).
 * Single views (reshape, dtype, permute, local, select, narrow) give one
 * type; compound ones (sub, tile, rearrange) give the chain of single views
 * the reference declares, each a view of the one before. Failures return
 * NULL/false with the message in c->err. Prefix: ly_view_. */
#ifndef TX_LAYOUT_VIEW_H
#define TX_LAYOUT_VIEW_H

#include "layout.h"

/* Builds `x k y` for the offsets and sizes of views (IR_E_ADD, SUB, MUL,
 * FLOORDIV, FLOORMOD); NULL on error. The front end passes TVM's operators so
 * that printed views match the reference; without one, the layout library's
 * folding constructors are used. */
typedef IrExpr *(*LyArithFn)(void *user, IrExprKind k, IrExpr *x, IrExpr *y);

typedef struct LyViewCtx {
    LyCtx *c;
    LyArithFn arith; /* NULL: folding constructors */
    void *user;
} LyViewCtx;

/* ---------------------------------------------------------------- single views */
/* A.view(*shape) / A.view(*shape, layout=L): a reshape. One dimension may be
 * the constant -1 (inferred). Without a layout the parent's layout object is
 * kept and the sizes must match. A given layout is not checked against the
 * shape here (the reference prints views whose layout does not admit it;
 * ly_admits tells). */
IrType *ly_view_reshape(LyViewCtx *v, const IrType *parent, IrExpr *const *shape, int ndim,
                        IrLayout *layout);
/* A.view("dtype"): the same bytes as elements of another width; the last
 * dimension and elem_offset scale by the ratio, the layout packs/unpacks
 * along its innermost memory axis. */
IrType *ly_view_dtype(LyViewCtx *v, const IrType *parent, IrDType dtype);
/* A.permute(*dims): dims may be negative (counted from the end). */
IrType *ly_view_permute(LyViewCtx *v, const IrType *parent, const int64_t *dims, int n);
/* A.local(*shape, layout=L): the calling thread's storage (shape may be
 * empty, layout NULL). */
IrType *ly_view_local(LyViewCtx *v, const IrType *parent, IrExpr *const *shape, int ndim,
                      IrLayout *layout);
/* Drop dimension `dim` at `index` (A.sub[..., i], torch's select). */
IrType *ly_view_select(LyViewCtx *v, const IrType *parent, int64_t dim, IrExpr *index);
/* Narrow dimension `dim` to [start, start + length) (torch's narrow). */
IrType *ly_view_narrow(LyViewCtx *v, const IrType *parent, int64_t dim, IrExpr *start,
                       IrExpr *length);
/* torch's unflatten(dim, sizes): dimension `dim` split into `sizes` (one -1
 * allowed); and flatten(start_dim, end_dim): dimensions start..end merged. */
IrType *ly_view_unflatten(LyViewCtx *v, const IrType *parent, int64_t dim, IrExpr *const *sizes,
                          int n);
IrType *ly_view_flatten(LyViewCtx *v, const IrType *parent, int64_t start_dim, int64_t end_dim);

/* ---------------------------------------------------------------- chains */
typedef struct LyViewChain {
    IrType **steps; /* steps[0] views the parent, steps[k] views steps[k-1] */
    int n, cap;
    int at; /* on failure: the pick (of sub and tile) that failed, or -1 */
} LyViewChain;

/* One item of A.sub[...] / A.tile(...)[...]. */
typedef enum {
    LY_PICK_ALL,   /* `:` keeps the dimension */
    LY_PICK_INDEX, /* `i` selects (drops the dimension) */
    LY_PICK_RANGE, /* `a:b` narrows; start/stop NULL: 0 / the extent */
    LY_PICK_STEP,  /* `a::s` keeps every s-th element from a (start NULL: 0) */
} LyPickKind;

typedef struct LyPick {
    LyPickKind kind;
    IrExpr *start, *stop; /* INDEX: start is the index */
    int64_t step;
} LyPick;

/* A.sub[picks]: numpy basic indexing, left to right; trailing dims kept. */
bool ly_view_sub(LyViewCtx *v, const IrType *parent, const LyPick *picks, int n,
                 LyViewChain *out);

/* A.tile(dim, factors)[picks] / A.tile((dim, factors), ...)[picks]: each
 * dimension split into its factors (one -1 allowed), one pick per factor
 * (INDEX selects, ALL keeps; at least one selects); kept factors are merged
 * back, so the rank is preserved. */
typedef struct LyTileSpec {
    int64_t dim;
    IrExpr **factors;
    int nfactors;
} LyTileSpec;
bool ly_view_tile(LyViewCtx *v, const IrType *parent, const LyTileSpec *specs, int nspecs,
                  const LyPick *picks, int npicks, LyViewChain *out);

/* A.rearrange("(a b) c -> a c b", a=2): einops over constant dims, as
 * view(lhs atoms) -> permute -> view(rhs groups). */
bool ly_view_rearrange(LyViewCtx *v, const IrType *parent, const char *pattern,
                       const char *const *names, const int64_t *sizes, int nsizes,
                       LyViewChain *out);

/* ---------------------------------------------------------------- regions */
/* A.chunk(spec)[picks] is a region, not a view: dimension `dim` cut into
 * `count` equal chunks, chunk `pick` is [begin, begin + extent). */
bool ly_view_chunk(LyViewCtx *v, const IrType *parent, int64_t dim, int64_t count, IrExpr *pick,
                   IrExpr **begin, IrExpr **extent);

#endif
