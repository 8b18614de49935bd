/* Internal to the verifier: the launch-configuration checks of one function
 * (scope-id extents, thread-binding loops, CUDA limits) and of TMA descriptor
 * encodes. verify.c feeds statements and calls in; this part reports. */
#ifndef TX_IR_VERIFY_LAUNCH_H
#define TX_IR_VERIFY_LAUNCH_H

#include "ir.h"

/* The thread-binding tags the launch checks know, in this order. */
#define IR_LAUNCH_NTAGS 6

typedef struct IrLaunchCheck {
    TxDiags *diags;
    /* The first scope-id definition of each kind, and the first that gives extents. */
    const IrStmt *first[IR_SCOPEID_COUNT];
    const IrStmt *scopeid[IR_SCOPEID_COUNT];
    int order[IR_SCOPEID_COUNT]; /* 1, 2, ...: when each entry of scopeid was set */
    int nset;
    /* The first binding of each tag with a constant extent (a thread-binding
     * loop or a launch_thread attr), and that extent. */
    const IrStmt *tag_stmt[IR_LAUNCH_NTAGS];
    int64_t tag_extent[IR_LAUNCH_NTAGS];
} IrLaunchCheck;

void ir_launch_begin(IrLaunchCheck *l, TxDiags *diags);
/* A ScopeIdDef statement: its own limits and consistency with earlier ones. */
void ir_launch_scopeid(IrLaunchCheck *l, const IrStmt *s);
/* A binding of a launch tag ("threadIdx.x") to an extent: a For of kind
 * THREAD_BINDING or a thread_extent AttrStmt. */
void ir_launch_thread_tag(IrLaunchCheck *l, const IrStmt *s, const char *tag, const IrExpr *extent);
/* The hardware's largest extent of a launch tag ("blockIdx.y": 65535), or -1
 * for a tag that is none. */
int64_t ir_launch_tag_limit(const char *tag);
/* The whole-function limits (threads per CTA, cluster size, grid). */
void ir_launch_end(IrLaunchCheck *l);
/* A call: checks T.call_packed("runtime.cuTensorMapEncodeTiled", ...) against
 * the driver's limits where the arguments are constants. */
void ir_launch_tma_call(TxDiags *diags, const IrExpr *call, TxSpan span);

/* The value of an integer constant (IntImm or Python int). */
bool ir_const_int(const IrExpr *e, int64_t *v);

#endif
