/* Helpers shared by the passes: building folded expressions, statements and
 * buffer types in a module's arena, function attributes, replacing a
 * module's functions, and the one entry to expression simplification. */
#ifndef TX_PASS_INTERNAL_H
#define TX_PASS_INTERNAL_H

#include "../ir/visit.h"
#include "pass.h"

/* k(x, y) with the reference's typing and constant folding (x*1 -> x, ...). */
IrExpr *ps_arith(TxArena *a, IrExprKind k, IrExpr *x, IrExpr *y);
/* cast(t, x): x itself when it has dtype t, a folded constant, else a Cast. */
IrExpr *ps_cast(TxArena *a, IrDType t, IrExpr *x);
IrExpr *ps_int(TxArena *a, IrDType t, int64_t v);
bool ps_const_int(const IrExpr *e, int64_t *v);
/* A call of a builtin op with dtype t. */
IrExpr *ps_call(TxArena *a, IrOp op, IrDType t, IrExpr **args, int nargs);
/* buffer_data(B), the pointer projection printed B.data. */
IrExpr *ps_buffer_data(TxArena *a, IrExpr *buffer);
/* The buffer B when e is buffer_data(B), else NULL. */
IrExpr *ps_buffer_data_of(const IrExpr *e);

/* Simplification of one expression. Every pass simplifies through here, so
 * the arith layer replaces the folding below in one place. */
IrExpr *ps_simplify_expr(TxArena *a, IrExpr *e);

IrStmt *ps_bind(TxArena *a, IrExpr *var, IrExpr *value, TxSpan sp);
IrStmt *ps_decl(TxArena *a, IrExpr *buffer, IrExpr *data, TxSpan sp);
IrStmt *ps_eval(TxArena *a, IrExpr *e, TxSpan sp);
IrStmt *ps_attr(TxArena *a, IrExpr *node, const char *key, IrExpr *value, IrStmt *body,
                TxSpan sp);
/* An empty sequence: spliced away where a statement is replaced by it. */
IrStmt *ps_empty(TxArena *a);
/* A statement followed by more: ir_seq of {first..., rest...} flattened. */
IrStmt *ps_seq2(TxArena *a, IrStmt *first, IrStmt *rest);

/* `thread_extent` / `virtual_thread` AttrStmt. */
bool ps_is_launch_attr(const IrStmt *s);

/* A buffer variable named `name` of a 1-D flat type: shape [extent], no
 * strides, elem_offset 0, no layout; dtype, scope, alignment, offset factor
 * and allocated addresses of `like`. */
IrExpr *ps_flat_buffer(TxArena *a, const IrExpr *like, IrExpr *extent, TxSpan sp);
/* The element count: strides[0]*shape[0] with strides, else prod(shape) (1 for rank 0). */
IrExpr *ps_buffer_extent(TxArena *a, const IrBufferType *b);
/* 1-D, no strides, no layout (or the default 1-D one), elem_offset 0. */
bool ps_buffer_is_flat(const IrBufferType *b);
/* FlattenBuffer's index width. The most bits a buffer's storage can span:
 * (its element count `extent` + elem_offset) times dt's bits, each symbolic
 * extent at its dtype's maximum (INT64_MAX when unbounded). Offsets into it
 * in elements of dt are int64 when it may hold 2^31 of them or more. */
int64_t ps_storage_bits(const IrBufferType *b, IrDType dt, IrExpr *extent);
bool ps_offsets_are_wide(IrDType dt, int64_t storage_bits);

/* Function attributes (sorted by key). */
IrExpr *ps_func_attr(const IrFunc *f, const char *key);
IrFunc *ps_func_set_attr(TxArena *a, IrFunc *f, const char *key, IrExpr *value);
IrFunc *ps_func_with_body(TxArena *a, IrFunc *f, IrStmt *body);
/* A device function made by SplitHostDevice (calling_conv 2). */
bool ps_is_device_func(const IrFunc *f);
/* Replace the module's function list. */
void ps_set_funcs(IrModule *m, IrFunc **funcs, int n);

/* Scope ids of one device region (scope_ids.c): the region's body wrapped in
 * the launch nest (clusterCtaIdx, blockIdx, threadIdx thread_extent attrs,
 * outermost first) with every ScopeIdDef replaced by Binds; NULL after
 * reporting an error. */
IrStmt *ps_lower_scope_ids(TxArena *a, TxDiags *diags, TxSpan span, IrStmt *body);

/* A break or continue of the loop whose body this is (not of a loop nested
 * in it): such a loop cannot be unrolled or removed. */
bool ps_body_jumps(const IrStmt *body);

/* The statement's span, else the function's (for diagnostics). */
TxSpan ps_span(const IrStmt *s, const IrFunc *f);
/* A variable's printed name. */
const char *ps_name(const IrExpr *var);

#endif
