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
    bool exact_lines; /* a #line before every line that would count past its statement's
                       * (lineinfo: a profiler sees each instruction at its script line) */
    bool trace;      /* T.cuda.iket calls record events (otherwise they generate nothing) */
} CgOptions;


/* Whether f is a device kernel: attribute "calling_conv" 2. */
bool cg_is_kernel(const IrFunc *f);

/* Appends the CUDA source of every kernel of m to out. Returns false, with
 * diagnostics on m, when the module cannot be generated for o->sm; out then
 * holds a partial text. */
bool cg_emit_module(IrModule *m, const CgOptions *o, TxBuf *out);

/* The prelude the generated source includes: its file name and text. */
const char *cg_prelude_name(void);
const char *cg_prelude_text(void);

/* Whether the kernels of m use NVSHMEM: a T.nvshmem op, or inline CUDA
 * (T.cuda.func_call) that names it; *where (when given) is the first such
 * call. The generated source then includes the NVSHMEM header below, and the
 * kernels are compiled to LTO IR and linked with the shim and NVSHMEM's device
 * library (nvshmem.c, docs/language.md "NVSHMEM"). */
bool cg_uses_nvshmem(const IrModule *m, TxSpan *where);
/* The header's file name and text: nvshmem.h's signatures of the functions
 * T.nvshmem calls, forwarding to the shim, and its constants. */
const char *cg_nvshmem_header_name(void);
const char *cg_nvshmem_header_text(void);
/* The shim: CUDA that includes nvshmem.h and nvshmemx.h and defines what the
 * header forwards to; the same text for every module. */
const char *cg_nvshmem_shim_text(void);

#endif
