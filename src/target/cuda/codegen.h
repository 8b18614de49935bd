/* CUDA C++ code generation from the device functions of a lowered module (the
 * IR contract of docs/pipeline.md: flat buffers, thread_extent launches, T.ptx
 * calls from the instruction table). The output includes the tirx prelude
 * (prelude.h) by name; pass cg_prelude_name()/cg_prelude_text() to the
 * compiler as an in-memory header. Identical input gives byte-identical
 * output. Errors (an instruction the target lacks, IR outside the contract)
 * are diagnostics on the module. Prefix: cg_. */
#ifndef TX_TARGET_CUDA_CODEGEN_H
#define TX_TARGET_CUDA_CODEGEN_H

#include "../../ir/ir.h"

typedef struct CgOptions {
    int sm;          /* 80 (sm_80), 90 (sm_90a) or 100 (sm_100a) */
    bool fast_math;  /* fast intrinsics (__expf, ...); compile with --use_fast_math too */
    bool no_lines;   /* leave out the #line directives */
} CgOptions;

/* The target of an architecture name ("sm_80", "sm_90a", "sm_100a"): 80, 90
 * or 100; 0 when codegen does not target it. */
int cg_arch_sm(const char *arch);
/* The most shared memory, in bytes, that one block may use on the target
 * named arch ("sm_90a": 227 KiB); 0 when codegen does not target it. */
int64_t cg_smem_limit(const char *arch);
/* The architecture name of a target: "sm_80", "sm_90a", "sm_100a". */
const char *cg_arch_name(int sm);

/* Whether f is a device kernel: attribute "calling_conv" 2. */
bool cg_is_kernel(const IrFunc *f);

/* Appends the CUDA source of every kernel of m to out. Returns false, with
 * diagnostics on m, when the module cannot be generated for o->sm; out then
 * holds a partial text. */
bool cg_emit_module(IrModule *m, const CgOptions *o, TxBuf *out);

/* The prelude the generated source includes: its file name and text. */
const char *cg_prelude_name(void);
const char *cg_prelude_text(void);

#endif
