/* Shared-memory matrix descriptors of the tensor-core MMAs (wgmma on sm_90a,
 * tcgen05.mma on sm_100a), derived from an operand's layout and checked
 * element by element (smem_desc.c). Both instructions read A and B through
 * the same canonical layouts (PTX ISA "Shared memory matrix layout"): 8-row
 * core matrices of 16 bytes, or rows of a 32/64/128-byte swizzle atom,
 * K-major or MN-major, strided by a leading and a stride byte offset. The
 * descriptor bits differ (tcgen05 adds a version bit and other swizzle
 * codes); those are the encoding op's business (T.cuda.wgmma / tcgen05
 * .encode_matrix_descriptor), not this file's. Prefix: op_smem_. */
#ifndef TX_OP_SMEM_DESC_H
#define TX_OP_SMEM_DESC_H

#include "op.h"

/* A shared-memory operand as its descriptor sees it. */
typedef struct OpSmemOperand {
    OpRegion r;
    const char *name;
    int mn_dim, k_dim;   /* region dims of MN and K */
    int64_t mn, k;       /* extents */
    int ebits;           /* bits per element (4: packed two to a byte) */
    bool mn_major;       /* MN contiguous: the transpose bit */
    int swizzle;         /* 0, 32, 64 or 128 bytes */
    int64_t lbo, sbo;    /* bytes */
    IrLayout *tile;      /* the region's layout before the swizzle, origin at 0 */
    IrExpr *origin;      /* the region origin's element offset before the swizzle */
} OpSmemOperand;

/* The PTX name of an MMA operand type: f16, bf16, tf32 (float32), e4m3, e5m2,
 * e2m1 (float4_e2m1fn, packed); the _align16 dtypes by their own names (the
 * instruction descriptor's table knows them); NULL for others. */
const char *op_smem_mma_type(IrDType t);

/* Argument `arg` as a shared operand [mn, k] or, transposed, [k, mn]: a 2-D
 * region (after dropping unit dimensions) in shared memory. */
const char *op_smem_read(OpCtx *c, int arg, OpSmemOperand *o, bool trans);

/* The region's own layout (o->tile) with its origin (o->origin) split off and
 * the swizzle (o->swizzle) checked on an aligned base; o->r, o->name and
 * o->ebits must be set. */
const char *op_smem_slice(OpCtx *c, OpSmemOperand *o, const char *inst);

/* The descriptor of an operand whose instructions each read an inst_mn x
 * inst_k tile: the swizzle, the majorness and the byte offsets read off the
 * region's layout, then every element of every tile checked against the
 * canonical layout they describe. `inst` names the instruction in messages
 * ("wgmma", "tcgen05.mma"). */
const char *op_smem_describe(OpCtx *c, OpSmemOperand *o, int64_t inst_mn, int64_t inst_k,
                             const char *inst);

/* The constant offset, in 16-byte units, of the tile at (mn, k) from the
 * region's origin. */
int64_t op_smem_tile_units(OpCtx *c, const OpSmemOperand *o, int64_t mn, int64_t k);

/* The region origin's offset from the storage's data pointer, in 16-byte
 * units (an expression: a pipeline stage may choose it at run time). */
IrExpr *op_smem_origin_units(OpCtx *c, const OpSmemOperand *o);

/* The swizzle argument of the encoding ops: 0 none, 1 32B, 2 64B, 3 128B. */
int op_smem_swizzle_code(const OpSmemOperand *o);

/* `name: T.uint64` and the call `encode(T.address_of(name), data, LBO, SBO,
 * swizzle)` over the operand's storage (LBO and SBO in 16-byte units);
 * returns the slot, whose element 0 is the descriptor. */
IrExpr *op_smem_encode(OpCtx *c, OpSeq *s, const OpSmemOperand *o, IrOp encode,
                       const char *name);

/* desc + units as a uint64 (desc when units is the constant 0). */
IrExpr *op_smem_desc_add(OpCtx *c, IrExpr *desc, IrExpr *units);

#endif
