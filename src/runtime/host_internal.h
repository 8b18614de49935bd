/* Internal to the host evaluator (host_eval.c: values, expressions,
 * statements, arguments; host_launch.c: kernel launches and tensor-map
 * encodes). */
#ifndef TX_RUNTIME_HOST_INTERNAL_H
#define TX_RUNTIME_HOST_INTERNAL_H

#include "../ir/visit.h"
#include "host_eval.h"

#define MAX_MAPS 32
#define MAX_KERNEL_ARGS 256

typedef enum { V_INT, V_FLOAT, V_MAP } ValKind;

typedef struct Val {
    ValKind kind;
    int64_t i; /* V_INT: integers, bools and pointers */
    double f;
    int map;   /* V_MAP: index into Eval.maps */
} Val;

typedef struct Eval {
    const IrFunc *f;
    const RtHostEnv *env;
    RtError *err;
    RtStatus status;
    IrPtrMap slot; /* variable (or buffer) -> 1 + index into vals */
    TX_VEC(Val) vals;
    IrPtrMap tensor; /* buffer param -> its DLTensor */
    RtTensorMap maps[MAX_MAPS]; /* the host's tensor maps (alive until the launch is queued) */
    int nmaps;
} Eval;

bool rt_he_failed(const Eval *ev);
/* The first failure wins: RT_ERR_USAGE with the message. */
void rt_he_fail(Eval *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
Val rt_he_eval(Eval *ev, const IrExpr *e);
const char *rt_he_name(const IrExpr *var);
/* T.call_packed("<kernel>", args..., extents..., dyn_smem_bytes) */
void rt_he_launch(Eval *ev, const IrFunc *kernel, const IrCall *c);
/* T.call_packed("runtime.cuTensorMapEncodeTiled", map, dtype, rank, ...) */
void rt_he_encode_tma(Eval *ev, const IrCall *c);

#endif
