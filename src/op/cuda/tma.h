/* The model the two TMA variants of copy_async share (tma_auto.c plans it from
 * the shared layout, tma_explicit.c maps the call onto it directly; tma.c
 * reads the call, validates, repairs, encodes and emits it), as the
 * reference's TensorMapSpec / TMAPlan.
 *
 * A TmaSpec is one tensor map plus the instruction contract, its dimensions
 * in CUDA's order (dimension 0 innermost). The global side is addressed from
 * its storage root (a function parameter): a view's host-known offset moves
 * the base address, an offset that depends on values of the kernel becomes
 * one more dimension whose coordinate carries it. A TmaPlan adds the issue
 * loops: shared iterators the box does not cover, each advancing the shared
 * offset and some coordinates. Prefix: tma_. */
#ifndef TX_OP_CUDA_TMA_H
#define TX_OP_CUDA_TMA_H

#include "../partition.h"

#define TMA_DIMS 12 /* descriptor dimensions while planning (5 at most once legal) */

typedef enum { TMA_PROVEN, TMA_DISPROVEN, TMA_UNKNOWN } TmaProof;

/* The call: its operands and config keys, read and checked once. */
typedef struct TmaCall {
    OpRegion smem, gmem;
    bool load;                /* global -> shared */
    IrExpr *mbar;             /* loads: the mbarrier (address or element) */
    int cta_group;            /* 1, or 2 (sm_100a) */
    IrExpr *cta_mask;         /* loads: the multicast mask; NULL when unicast */
    IrExpr *cache_policy;     /* NULL: no .L2::cache_hint */
    const char *reduce;       /* stores: "add", "min", ...; NULL: a plain store */
    int l2_promotion, oob;    /* tensor-map enums */
    bool prefetch, tf32;
    IrExpr *gather4[4];       /* tma_explicit loads: four row coordinates, or NULLs */
    int nselect;              /* tma_explicit loads: src_selector's candidates */
    struct TmaSelector *select;
} TmaCall;

typedef struct TmaSpec {
    IrExpr *root;              /* the global storage root */
    IrExpr *base;              /* host expression of the global address */
    IrExpr *base_bytes;        /* its byte offset from the root's data */
    int cu_dtype, bits;        /* CUtensorMapDataType and its element bits */
    bool packed;               /* 16U4_ALIGN8B (float4_e2m1fn, two to a byte) or padded */
    bool padded;               /* 16U4 / 16U6_ALIGN16B: into an _align16 shared buffer */
    int rank;
    IrExpr *dim[TMA_DIMS];     /* globalDim */
    IrExpr *stride[TMA_DIMS];  /* byte stride per dimension; [0] is the element's */
    int64_t inner_stride;      /* elements between neighbours of dimension 0 (must be 1) */
    int64_t box[TMA_DIMS];
    IrExpr *coord[TMA_DIMS];   /* the first box's coordinates (device expressions) */
    int swizzle;               /* CUtensorMapSwizzle: 0, 1 (32B), 2 (64B), 3 (128B) */
    IrExpr *smem_off;          /* shared elements from the shared buffer's data to the box */
    int64_t payload_bits;      /* what all issues move together */
} TmaSpec;

/* A src_selector candidate: the load reads it instead of the main source when
 * `when` holds (the first that holds wins), through its own tensor map of the
 * main region's starts and extents over `gmem`'s buffer. */
typedef struct TmaSelector {
    IrExpr *when;
    OpRegion gmem;
    TmaSpec spec; /* tma_explicit plans it as the main descriptor */
} TmaSelector;

/* A shared iterator the box leaves out: `extent` issues, `smem_stride`
 * elements apart, each adding (digit // divisor % modulus) * scale to
 * coordinate dim. */
typedef struct TmaIssueAxis {
    int64_t extent, smem_stride;
    int ncoord;
    struct {
        int dim;
        int64_t divisor, modulus, scale;
    } coord[TMA_DIMS];
} TmaIssueAxis;

typedef struct TmaPlan {
    TmaSpec s;
    int naxes;
    TmaIssueAxis axis[TMA_DIMS];
} TmaPlan;

/* ---------------------------------------------------------------- tma.c */
/* The common predicate: sm_90a+, thread scope. */
const char *tma_accept_scope(OpCtx *c);
/* Operands (one global, one shared, same dtype and extents) and config keys;
 * `variant` names the caller in messages ("tma_auto"). */
const char *tma_read_call(OpCtx *c, const char *variant, bool explicit_keys, TmaCall *call);
/* The descriptor element type of the global dtype (tma_dtype="tf32" forces
 * TFLOAT32). */
const char *tma_descriptor_type(OpCtx *c, const TmaCall *call, TmaSpec *s);
/* The storage root, base address and byte offset of the global buffer, and
 * the part of its offset (elements) that only the device knows (NULL: none). */
const char *tma_global_base(OpCtx *c, const TmaCall *call, TmaSpec *s, IrExpr **device_off);
/* Folds a device-known element offset into one more dimension (last, box 1). */
const char *tma_fold_device_offset(OpCtx *c, const TmaCall *call, TmaSpec *s, IrExpr *off);
/* The tile layout of a buffer without its swizzle (row-major or by strides
 * when it has none). */
IrLayout *tma_tile_layout(OpCtx *c, IrExpr *buffer);
/* The swizzle mode of the shared operand's layout, or a reason. */
const char *tma_shared_swizzle(OpCtx *c, const TmaCall *call, int *swizzle);

/* The rules a tensor map and its instruction must satisfy (the driver's and
 * PTX's). NULL when none fails: a disproven rule fails; for tma_auto
 * (`strict`) an unproven one too, except the global dimensions (checked by
 * the runtime). *repairable: every failing rule is one a canonicalization or
 * a wider element could fix. */
const char *tma_validate(OpCtx *c, const TmaPlan *p, const TmaCall *call, bool strict,
                         bool *repairable);
/* tma_auto's repair: merge and drop dimensions, widen the element type while
 * that keeps every byte address, until the plan validates; NULL on success. */
const char *tma_repair(OpCtx *c, TmaPlan *p, const TmaCall *call);

/* The host encode (once per descriptor of the function), the issue loops and
 * instructions, and the tensormap prefetch. */
IrStmt *tma_emit(OpCtx *c, const TmaPlan *p, const TmaCall *call);

/* Proofs about index expressions (tma_multiple also through lets and registers:
 * OpCtx.multiples). */
TmaProof tma_multiple(OpCtx *c, IrExpr *e, int64_t m);
TmaProof tma_equal(OpCtx *c, IrExpr *a, IrExpr *b);
TmaProof tma_in_range(IrExpr *e, int64_t lo, int64_t hi);

#endif
