/* Partitions of a region over the threads of a scope, vector widths and
 * bounds guards; shared by the copy, cp.async, elementwise and reduction
 * variants (partition.c), and the per-thread view of a distributed register
 * tile (fragment.c). Prefix: op_. */
#ifndef TX_OP_PARTITION_H
#define TX_OP_PARTITION_H

#include "op.h"

/* The strides (elements) of every buffer dimension when r's layout is strided
 * storage on m, and the log2 of the elements one swizzle chunk keeps together
 * (-1 without a swizzle); false for any other layout. */
bool op_region_strides(OpCtx *c, const OpRegion *r, IrExpr **strides, int *chunk_log2);
/* How many of r's k innermost non-unit dimensions (extents ext, buffer
 * dimensions dim: op_region_dims) it stores as one contiguous run (plain
 * strides, no swizzle); -1 when its strides are not plain. */
int op_contiguous_dims(OpCtx *c, const OpRegion *r, const int64_t *ext, const int *dim, int k);
/* Elements from a buffer's data pointer to past its last one by its offset
 * and plain constant strides (padding included); 0 for any other layout. */
int64_t op_buffer_span(OpCtx *c, IrExpr *buffer);
/* The element at full index idx of a region whose layout has plain strides
 * (op_region_strides), counted from its buffer's data pointer. */
IrExpr *op_region_flat(OpCtx *c, const OpRegion *r, IrExpr *const *idx);
/* A flat view of a thread-local buffer's registers as `container`s, covering
 * its span (its shape's elements when the span is not known), at least min. */
IrExpr *op_register_view(OpCtx *c, OpSeq *s, IrExpr *buffer, IrDType container, int64_t min);
/* The widest vector (elements, a power of two <= max_elems) along r's
 * innermost dimension that is contiguous and aligned at every vector start.
 * bounded: vectors must also not straddle the buffer's last extent. */
int64_t op_region_vector(OpCtx *c, const OpRegion *r, int64_t max_elems, bool bounded);
/* Whether r is one aligned run of n elements given launch-time checks that
 * some integer scalar params of the function are multiples of powers of two;
 * the checks go to the host (c->launch_checks). */
bool op_region_vector_at_launch(OpCtx *c, const OpRegion *r, int64_t n);
/* The registers of a thread-local region as `lanes` containers (uint32 or
 * uint16) of a view of its storage, read or written in place. */
void op_register_words(OpCtx *c, OpSeq *s, const OpRegion *r, IrDType container, int lanes,
                       IrExpr **out);

/* The non-unit extents of a region, the innermost cut into `vec`-element
 * vectors, dealt round-robin to the threads of the call's scope. */
typedef struct OpSpace {
    int k;
    int64_t ext[OP_MAX_DIMS];
    int64_t vec, total, threads, iters;
    IrExpr *it, *flat; /* the loop variable (NULL: one iteration) and the flat index */
} OpSpace;
const char *op_space_init(OpCtx *c, OpSpace *sp, const OpRegion *r, int64_t vec);
/* The running thread's multi-index (k entries; the innermost in elements) at
 * loop step sp->it. */
void op_space_begin(OpCtx *c, OpSpace *sp, IrExpr **idx);
/* The loop over the steps, with a guard when the threads do not divide the work. */
IrStmt *op_space_wrap(OpCtx *c, const OpSpace *sp, IrStmt *body, IrForKind kind);
/* Full buffer indices of a region from a multi-index over its non-unit dims. */
void op_region_index(OpCtx *c, const OpRegion *r, IrExpr *const *idx, IrExpr **out);
/* A copy's space: op_space_init over dst at `vec` elements a step, then
 * op_space_begin, and the full indices of dst and src at the running
 * thread's step (*didx, *sidx: arena arrays). NULL, or why the space cannot
 * be laid out (op_space_init's reason). */
const char *op_space_copy(OpCtx *c, OpSpace *sp, const OpRegion *dst, const OpRegion *src,
                          int64_t vec, IrExpr ***didx, IrExpr ***sidx);

/* Nested loops over a region's non-unit extents, one per dimension (for a
 * single thread's elements: registers want unrolled loops and constant
 * indices). */
typedef struct OpNest {
    int k;
    int64_t ext[OP_MAX_DIMS];
    IrExpr *var[OP_MAX_DIMS];
    IrForKind kind;
} OpNest;
void op_nest_init(OpCtx *c, OpNest *n, const OpRegion *r, IrForKind kind);
IrStmt *op_nest_wrap(OpCtx *c, const OpNest *n, IrStmt *body);

/* config oob="zero": the region may reach past its buffer; reads there give
 * zero, writes there are dropped. */
bool op_oob_zero(OpCtx *c);
/* The condition that full_idx lies inside r's buffer (NULL when provably so). */
IrExpr *op_in_bounds(OpCtx *c, const OpRegion *r, IrExpr *const *full_idx);

/* ---------------------------------------------------------------- fragments */
/* The calling thread's part of a distributed register tile (a local buffer
 * whose layout has thread axes): loops over the layout's memory iters, the
 * logical index of the current element in every dimension, and its slot in
 * the thread's registers (the local view). */
typedef struct OpFrag {
    int nloops;
    IrExpr *loop_var[OP_MAX_DIMS * 2];
    int64_t loop_ext[OP_MAX_DIMS * 2];
    IrExpr **index; /* per buffer dimension */
    IrExpr *reg;    /* the register slot */
    IrExpr *base;   /* the slot of the region's first element */
    IrExpr *rel;    /* reg - base */
    IrExpr *view;   /* the local view, declared by op_frag */
    int64_t nregs;  /* registers per thread */
    int64_t vec;    /* elements per step: consecutive in the last dimension and in registers */
} OpFrag;
/* NULL and *f filled (the view's DeclBuffer emitted into s), or why the
 * layout cannot be split this way at the call's scope. Each step covers
 * f->vec elements, at most max_vec (a power of two): when the innermost
 * iter of the last dimension is a register iter of stride 1, its loop steps
 * by the largest power of two <= max_vec dividing its extent; index and reg
 * are those of the first element of the step. */
const char *op_frag(OpCtx *c, OpSeq *s, const OpRegion *r, int64_t max_vec, OpFrag *f);
/* The body inside the unrolled loops over the memory iters. */
IrStmt *op_frag_wrap(OpCtx *c, const OpFrag *f, IrStmt *body);
/* The thread within its warpgroup (laneid, wid_in_wg and tid_in_wg
 * coordinates) and the register (m) of one point of a register tile's
 * layout; false when it has another axis. */
bool op_wg_thread_reg(const LyCoords *co, int64_t *thread, int64_t *reg);
/* NULL when two distributed operands put every element of their regions in
 * the same thread and in the same register order (a sub-region's registers
 * may start at another slot: op_frag_slot), else why not. */
const char *op_frag_same(OpCtx *c, const OpRegion *a, const OpRegion *b);
/* The slot in r's local view of f's current element, for an operand r that
 * op_frag_same found placed as f's region. */
IrExpr *op_frag_slot(OpCtx *c, const OpFrag *f, const OpRegion *r);

#endif
