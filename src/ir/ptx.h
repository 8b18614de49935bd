/* The PTX instruction table behind `T.ptx`: one entry per PTX syntax shape (a
 * family such as "ld" or "cp", its modifier slots in PTX order, its operand
 * list, the architectures that have it). The data is the x-macro table ptx.def;
 * this header is the lookup API the parser, the printer and the CUDA codegen
 * share. Every call resolves an authoring spelling (`T.ptx.ld.global_.b32`,
 * `T.ptx["ld.global.b32"]`) or a printed one (`T.ptx.ld(..., "global", ...,
 * "b32", "")`) to an entry plus one raw token per slot. Prefix: ir_ptx_. */
#ifndef TX_IR_PTX_H
#define TX_IR_PTX_H

#include "ir.h"

#define IR_PTX_MAX_SLOTS 16

/* The entries by key, in table order (IR_PTX_ld, IR_PTX_mbarrier_init, ...). */
typedef enum {
#define PTX(key, ...) IR_PTX_##key,
#define PTX_CHECKED(key, ...) IR_PTX_##key,
#define PTX_TOKEN_SM(token, sm)
#define PTX_SPELLING(mnemonic, printed)
#define PTX_UNIFORM(key, conditions)
#include "ptx.def"
#undef PTX
#undef PTX_CHECKED
#undef PTX_TOKEN_SM
#undef PTX_SPELLING
#undef PTX_UNIFORM
    IR_PTX_COUNT
} IrPtxEntryId;

typedef struct IrPtxResolved {
    int entry;                               /* index into the table */
    int nslots;
    const char *slots[IR_PTX_MAX_SLOTS];     /* raw token per slot, "" when omitted; static strings */
} IrPtxResolved;

/* What a caller knows about one operand, to choose between entries that share
 * a spelling and an operand count (`mov.b64 d, {lo, hi}` vs `mov.b64 {lo, hi},
 * a`; the `cp.async` src-size vs ignore-src forms). dtype IR_VOID means unknown
 * (a bare literal): it fits any operand. pred: the operand is a `.pred` value
 * (tagged `T.ptx.pred(x)`, or the printed marker's `p<i>`); a bool dtype counts
 * as pred too. A `T.ptx.SINK` lane is passed as unknown. */
typedef struct IrPtxArg {
    IrDType dtype;
    bool pred;
} IrPtxArg;

/* Resolve an authoring spelling. tokens are the dotted pieces after `T.ptx.`, escaped
 * (global_, shared__cta) or raw (shared::cta) — for T.ptx["a.b.c"] the caller splits the string on '.'
 * (careful: raw tokens like "shared::cta" contain no dots, fine). noperands = number of expression
 * operands given, or -1 if unknown. Returns true and fills *out, or false and writes a human message
 * into err (e.g. "unknown PTX instruction 'lds'; did you mean 'ld'?", "'globl' is not a
 * modifier of PTX instruction 'ld'; did you mean 'global'?", "PTX instruction
 * 'mbarrier.init.shared::cta.b64' expects 2 operands (addr, count) but 1 was given")
 * naming the nearest table entries.
 * When several entries accept the spelling and they print the same (they differ
 * only in operand types), the first in table order is returned; use
 * ir_ptx_resolve_args to choose by operand types. */
bool ir_ptx_resolve(const char *const *tokens, int ntokens, int noperands, IrPtxResolved *out,
                    char *err, size_t errlen);
/* The full form of ir_ptx_resolve: args (nargs of them) also choose by the operands'
 * types; args NULL: the types are unknown and nargs is the operand count (-1 unknown).
 * On failure *bad_token (when not NULL) is the index in tokens of the piece the error is
 * about (the family, an unknown modifier), or -1 when it is about the whole spelling
 * (a missing modifier, the operand count). */
bool ir_ptx_resolve_args(const char *const *tokens, int ntokens, const IrPtxArg *args, int nargs,
                         IrPtxResolved *out, int *bad_token, char *err, size_t errlen);
/* Resolve the printed form: escaped family name as printed after `T.ptx.`, slot strings in slot order,
 * number of expression operands. Returns the entry index or -1 (err filled). */
int ir_ptx_resolve_printed(const char *family, const char *const *slots, int nslots, int noperands,
                           char *err, size_t errlen);
/* As ir_ptx_resolve_printed, choosing by the operands' types as well. */
int ir_ptx_resolve_printed_args(const char *family, const char *const *slots, int nslots,
                                const IrPtxArg *args, int nargs, char *err, size_t errlen);

const char *ir_ptx_family_printed(int entry); /* escaped family for printing: "ld", "cp", "and_", "elect_sync" */
const char *ir_ptx_family(int entry);         /* raw dotted family (the PTX mnemonic): "ld", "cp", "elect.sync" */
const char *ir_ptx_key(int entry);            /* the entry's own name: "ld_vec", "cp_async_bulk_tensor_g2s_cta" */
int ir_ptx_nslots(int entry);
const char *ir_ptx_slot_name(int entry, int slot);
bool ir_ptx_slot_optional(int entry, int slot);
/* The allowed raw tokens of one slot, NULL-terminated. */
const char *const *ir_ptx_slot_choices(int entry, int slot);
/* Operand counts over every modifier combination (register groups counted per register). */
int ir_ptx_min_operands(int entry), ir_ptx_max_operands(int entry);
IrDType ir_ptx_result_dtype(int entry);           /* IR_VOID for statements (every entry, as in the reference) */
int ir_ptx_min_sm(int entry);                     /* 80, 90 (sm_90a), 100 (sm_100a) */
/* Whether the instruction exists on sm (80, 90 = sm_90a, 100 = sm_100a): the entry's range
 * (wgmma is sm_90a only) and the minimum of each token used (".shared::cluster" needs sm_90). */
bool ir_ptx_available(const IrPtxResolved *r, int sm);
/* The oldest target on which r is available (80, 90, 100), or 0 when none has it. */
int ir_ptx_first_sm(const IrPtxResolved *r);
/* Whether r is a well-formed instance of its entry: every slot holds one of its
 * choices ("" only where optional) and the cross-slot rules hold. For IR that
 * passes build directly; err says what is wrong. */
bool ir_ptx_valid(const IrPtxResolved *r, char *err, size_t errlen);
/* Whether r's register results are the same in every thread that passes the same
 * operands (its PTX_UNIFORM row and that row's slot conditions). */
bool ir_ptx_uniform_result(const IrPtxResolved *r);
/* Whether the entry writes a register destination (preserve_dst=True needs one). */
bool ir_ptx_has_dst(int entry);

/* Render the full dotted PTX mnemonic for codegen: family + non-empty slots in PTX order. */
void ir_ptx_mnemonic(const IrPtxResolved *r, char *buf, size_t n);
int ir_ptx_count(void);

/* ---- operands of a resolved instruction, for codegen ---- */
typedef enum {
    IR_PTX_OPND_REG,  /* a register (or register group) typed by .type */
    IR_PTX_OPND_ADDR, /* a memory operand [a] in state space .space ("tmem": a TMEM address) */
    IR_PTX_OPND_PTR,  /* a raw pointer value */
    IR_PTX_OPND_IMM,  /* a caller immediate baked into the instruction text */
    IR_PTX_OPND_TEXT, /* a fixed operand the caller does not pass (mbarrier.arrive's `_`) */
} IrPtxOperandKind;

typedef struct IrPtxOperand {
    const char *name;      /* "d", "addr", "cache_policy", ... */
    IrPtxOperandKind kind;
    char rw;               /* 'r' read, 'w' written, '+' read and written */
    const char *type;      /* REG: the PTX type token ("b32", "pred", "u64"); IMM: the allowed
                            * values, space-separated, or "" when any constant goes; TEXT: the text */
    const char *space;     /* ADDR: "global", "shared::cta", "tmem", "" for generic */
    int lanes;             /* registers in the group (1 for a scalar, 0 for TEXT) */
    int first_arg;         /* index of its first expression operand (-1 for TEXT) */
    char group;            /* 0, or '[' / '|': adjacent operands with the same mark render as one
                            * PTX operand, `[tmap, {c0, c1}]` or `d|p` */
    bool sinkable;         /* a lane may be T.ptx.SINK (the ISA's `_`) */
    bool offset_ok;        /* ADDR: accepts T.ptx.addr(base, byte_offset) */
    bool braced;           /* REG: a register vector written `{a, b, ...}`, even with one lane */
} IrPtxOperand;

/* The operands of r in PTX order, fixed text ones included. Returns their number
 * (at most max are written). */
int ir_ptx_operands(const IrPtxResolved *r, IrPtxOperand *out, int max);
/* The number of expression operands r takes (the sum of the lanes). */
int ir_ptx_noperands(const IrPtxResolved *r);
/* Appends to the call marker in buf (comma-separated flags) "p<i>" for each
 * predicate register read at argument i: the printed form records them. */
void ir_ptx_pred_marker(const IrPtxResolved *r, char *buf, size_t n);

/* ---- the tcgen05 instruction descriptor, folded at compile time (tcgen05_desc.c) ---- */

/* The dense tcgen05 instruction descriptor: d/a/b dtypes as PTX names ("f32",
 * "f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "s32", ...) or tirx
 * dtypes ("float16"); false with a message in err when the combination or the
 * shape is not a tcgen05.mma. */
typedef struct IrInstrDesc {
    const char *d_dtype, *a_dtype, *b_dtype;
    int m, n, k, cta_group;
    bool trans_a, trans_b, neg_a, neg_b, sat_d, sparse;
    const char *sf_dtype; /* block scaled: the scale factors' dtype; NULL: dense */
    int sf_id_a, sf_id_b; /* block scaled: the byte of the scale factors' columns */
} IrInstrDesc;
bool ir_tcgen05_instr_desc(const IrInstrDesc *d, uint32_t *out, char *err, size_t errlen);
/* The descriptor a T.cuda.tcgen05.encode_instr_descriptor[_block_scaled]
 * call encodes (its arguments after the pointer); *sfb: the block-scaled
 * call's sfb_dtype. False unless the dtypes are strings and M, N, K and the
 * flags constants. */
bool ir_tcgen05_instr_desc_call(const IrExpr *call, IrInstrDesc *d, const char **sfb);
/* The .kind of a tcgen05.mma for d/a/b ("f16", "tf32", "f8f6f4", "i8"), with
 * scale factors sf (non-NULL) a block-scaled kind ("mxf8f6f4", "mxf4",
 * "mxf4nvf4"); NULL when there is none. */
const char *ir_tcgen05_kind(const char *d, const char *a, const char *b, const char *sf);
/* A dense instruction's K for a kind name; 0 for an unknown kind. */
int ir_tcgen05_mma_k(const char *kind);

/* Whether e is a `T.ptx` call of table entry `entry` (IR_PTX_setmaxnreg, ...). */
static inline bool ir_is_ptx_call(const IrExpr *e, IrPtxEntryId entry)
{
    return e && e->kind == IR_E_CALL && e->u.call.op == IR_OP_PTX &&
           e->u.call.ptx_entry == (int)entry;
}

#endif
