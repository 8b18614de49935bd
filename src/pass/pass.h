/* The lowering passes: each one rewrites every function of a module (the IR is
 * immutable, so a pass builds new nodes in the module's arena and replaces the
 * module's function list) and reports problems as diagnostics on the module.
 * The passes are listed once, in passes.def; pipeline.c holds the default
 * order as a plain list and runs passes with --verify-each / --print-after.
 * docs/pipeline.md says what each pass guarantees and the IR contract the
 * CUDA code generator and the host evaluator rely on. Prefix: ps_. */
#ifndef TX_PASS_H
#define TX_PASS_H

#include "../ir/ir.h"

typedef struct PsCtx PsCtx;

/* A pass: returns false when it reported an error on the module. */
typedef bool (*PsPassFn)(PsCtx *ctx, IrModule *m);

typedef enum {
#define X(E, name, fn, what) PS_PASS_##E,
#include "passes.def"
#undef X
    PS_PASS_COUNT
} PsPassId;

typedef struct PsPassInfo {
    const char *name; /* as written in --passes / --print-after */
    PsPassFn run;
    const char *what; /* one line: what the pass guarantees */
} PsPassInfo;
extern const PsPassInfo ps_passes[PS_PASS_COUNT];

#define X(E, name, fn, what) bool fn(PsCtx *ctx, IrModule *m);
#include "passes.def"
#undef X

/* The pass of that name, or -1. */
int ps_pass_lookup(const char *name);

/* Called with the module printed as TIRx script after a pass (--print-after). */
typedef void (*PsPrintFn)(void *user, const char *pass, const IrModule *m);

struct PsCtx {
    const char *arch;        /* "sm_80", "sm_90a", "sm_100a"; NULL: not known yet */
    bool verify_each;        /* run ir_verify after every pass */
    const char *print_after; /* a pass name; "all" prints after each one */
    PsPrintFn print;         /* where print_after goes */
    void *print_user;
};

/* Runs passes ids[0..n) in order; stops at the first that fails (or whose
 * output the verifier rejects under verify_each). */
bool ps_run(PsCtx *ctx, IrModule *m, const PsPassId *ids, int n);
/* The default pipeline of pipeline.c. */
bool ps_run_pipeline(PsCtx *ctx, IrModule *m);
/* False, with a diagnostic naming the first unknown pass of a comma-separated
 * list of pass names (and the nearest name), when the list has one. */
bool ps_check_names(TxDiags *d, const char *names);
/* A comma-separated list of pass names ("LowerTIRxOpaque,FlattenBuffer"), run
 * in order; with an unknown name, ps_check_names's diagnostic and no pass run. */
bool ps_run_named(PsCtx *ctx, IrModule *m, const char *names);

#endif
