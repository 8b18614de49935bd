/* The host-function evaluator: runs the host IrFunc that MakePackedAPI made
 * (docs/pipeline.md, "The host function") against the arguments of one
 * launch: binds DLTensors and scalars to the params (count and kind checked
 * here), evaluates the argument asserts (a failure names the argument, what
 * was expected and what it got), binds symbolic shapes, encodes TMA tensor
 * maps and launches each kernel with cuLaunchKernelEx (grid, block, cluster
 * and dynamic shared memory from the call and the kernel's attributes)
 * through the caller's launch and encode callbacks (the driver's, or the
 * simulator's).
 * Nothing here parses; the IR comes from the caller. Prefix: rt_. */
#ifndef TX_RUNTIME_HOST_EVAL_H
#define TX_RUNTIME_HOST_EVAL_H

#include "../ir/ir.h"
#include "dlpack.h"
#include "runtime.h"

typedef enum RtArgKind {
    RT_ARG_TENSOR,    /* a DLTensor (a buffer param) */
    RT_ARG_INT,       /* an integer scalar (also a T.handle, as its address) */
    RT_ARG_FLOAT,     /* a floating-point scalar */
    RT_ARG_TENSORMAP, /* an encoded CUtensorMap (a T.TensorMap() param) */
    RT_ARG_UNKNOWN,   /* a kind the caller's API does not know: refused at binding */
} RtArgKind;

typedef struct RtArg {
    RtArgKind kind;
    union {
        const DLTensor *tensor;
        int64_t i;
        double f;
        const void *map; /* the caller's tensor map: any alignment, so no RtTensorMap * */
    } u;
} RtArg;

/* Where the kernels of a launch go. */
typedef struct RtHostEnv {
    const IrModule *module; /* the device functions: params and launch attributes */
    /* Carries out one launch of `kernel` (args[i] points at argument i, a
     * tensor-map argument at an RtTensorMap): on the GPU (tirx_launch) or in
     * the simulator. NULL: a dry run that checks the arguments and the launch
     * configuration but launches nothing. */
    RtStatus (*launch)(void *user, const IrFunc *kernel, const RtLaunchConfig *cfg, void **args,
                       RtError *err);
    /* Encodes a tensor map (rt_tensor_map_encode, or the simulator's own
     * encoding). NULL: tensor maps are only checked. */
    RtStatus (*encode)(void *user, const RtTensorMapSpec *s, RtTensorMap *out, RtError *err);
    void *user;
    /* Called with each launch's configuration before it is made (also in a
     * dry run); may be NULL. */
    void (*observe)(void *user, const char *kernel, const RtLaunchConfig *cfg);
    void *stream;  /* a CUstream; NULL: the legacy default stream */
    int device_id; /* tensors must live on this CUDA device; -1: not checked */
    /* A check without a GPU: a tensor in any memory (a host array) passes for a
     * CUDA tensor; everything else about it is checked. */
    bool any_device;
} RtHostEnv;

/* Runs `host` with args[0..nargs). RT_ERR_USAGE with a message naming the
 * function and the argument when an argument does not match; the runtime's
 * own statuses for driver failures. Thread-safe (no shared state). */
RtStatus rt_host_eval(const IrFunc *host, const RtArg *args, int nargs, const RtHostEnv *env,
                      RtError *err);

#endif
