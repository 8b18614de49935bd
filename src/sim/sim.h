/* The CPU simulator of compiled kernels (docs/simulator.md). It interprets
 * the lowered device functions of a module, the IR the CUDA code generator
 * prints, with the GPU's semantics: every CTA of the grid (a cluster's CTAs
 * together), every thread of a CTA, each thread resumable at barriers, warp
 * and warpgroup collectives and mbarrier waits. It is also a checker:
 * out-of-bounds accesses, reads of uninitialised shared memory, shared memory
 * read or written by two threads with no barrier between them, misused
 * mbarriers, deadlocks and operations it does not model are errors naming
 * the .tirx line, the thread and the CTA. The host function runs in the
 * runtime's host evaluator; its launches and tensor-map encodes come here
 * through the evaluator's callbacks (sim_launch, sim_encode). Prefix: sim_. */
#ifndef TX_SIM_H
#define TX_SIM_H

#include "../ir/ir.h"
#include "../runtime/runtime.h"

/* One simulation: the global memory the kernels may touch (the tensors of
 * the call) and the first error. */
typedef struct SimSession {
    TX_VEC(struct SimRegion *) regions;
    struct SimRegion *last;  /* the region of the last access (a cache) */
    bool failed;
    char message[512];
    double timeout_s;     /* a launch running longer fails (TIRX_KERNEL_TIMEOUT); 0: no limit */
    /* A traced simulation (a module compiled with trace): each launch's
     * T.cuda.iket records, in the GPU's buffer layout, are added to trace
     * (NULL: the annotations record nothing). Name ids are given in
     * first-use order, kept across the launches of the call. */
    RtTrace *trace;
    size_t trace_cap;     /* records per warp */
    TxBuf trace_names;    /* each name NUL-terminated, by id */
} SimSession;

void sim_session_init(SimSession *ss);
void sim_session_free(SimSession *ss);
/* Makes [base, base + size) global memory the kernels may access. */
/* A tensor of the call (name: its argument's, or NULL) as global memory. */
void sim_add_global(SimSession *ss, void *base, size_t size, const char *name);
/* Before each launch of the call: no CTA has stored to global memory yet. */
void sim_launch_begin(SimSession *ss);

/* RtHostEnv's callbacks with user = a SimSession. A failure is RT_ERR_USAGE
 * with the message in err (and in the session). */
RtStatus sim_launch(void *user, const IrFunc *kernel, const RtLaunchConfig *cfg, void **args,
                    RtError *err);
RtStatus sim_encode(void *user, const RtTensorMapSpec *s, RtTensorMap *out, RtError *err);

#endif
