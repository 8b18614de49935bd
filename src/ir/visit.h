/* The one traversal of the IR. A visitor and a mutator that reach every
 * expression position: operands, statement fields, call arguments and
 * keyword values, and the expressions inside types (buffer shape, strides,
 * elem_offset, allocated_addr, layout extents/strides/offsets).
 *
 * Types are traversed where a variable is DEFINED (function params, Bind,
 * AllocBuffer, DeclBuffer, For, ScopeIdDef, Let, lambda params), not at every
 * use. The mutator rebuilds a node only when a child changed; when a defined
 * variable's type changes it creates a new variable and substitutes it at
 * every later use, so a pass written as hooks cannot forget a position. */
#ifndef TX_IR_VISIT_H
#define TX_IR_VISIT_H

#include "ir.h"

typedef struct IrVisitor IrVisitor;
struct IrVisitor {
    void *ctx;
    /* Called before the children; return false to skip them. NULL: visit all. */
    bool (*expr)(IrVisitor *v, const IrExpr *e);
    bool (*stmt)(IrVisitor *v, const IrStmt *s);
    /* Called at each definition of a variable (before its type is traversed). */
    void (*def)(IrVisitor *v, const IrExpr *var, const IrStmt *where);
};

void ir_visit_expr(IrVisitor *v, const IrExpr *e);
void ir_visit_stmt(IrVisitor *v, const IrStmt *s);
void ir_visit_type(IrVisitor *v, const IrType *t);
void ir_visit_layout(IrVisitor *v, const IrLayout *l);
void ir_visit_func(IrVisitor *v, const IrFunc *f);

typedef struct IrMutator IrMutator;
struct IrMutator {
    void *ctx;
    TxArena *arena; /* where rebuilt nodes go */
    /* Return a replacement, or NULL to keep the node and mutate its children.
     * A replacement is not traversed further. */
    IrExpr *(*expr)(IrMutator *m, IrExpr *e);
    IrStmt *(*stmt)(IrMutator *m, IrStmt *s);
    /* Internal: variables replaced so far (old -> new). */
    TX_VEC(struct { const IrExpr *from; IrExpr *to; }) var_map;
};

IrExpr *ir_mutate_expr(IrMutator *m, IrExpr *e);
IrStmt *ir_mutate_stmt(IrMutator *m, IrStmt *s);
IrType *ir_mutate_type(IrMutator *m, IrType *t);
IrLayout *ir_mutate_layout(IrMutator *m, IrLayout *l);
/* Mutates the function in place of its parts and returns a new IrFunc when
 * anything changed. */
IrFunc *ir_mutate_func(IrMutator *m, IrFunc *f);
/* Record that `from` is replaced by `to` at every later use. */
void ir_mutator_map_var(IrMutator *m, const IrExpr *from, IrExpr *to);
void ir_mutator_free(IrMutator *m);

/* Structural equality with alpha-renaming of bound (defined) variables; free
 * variables match by order of first occurrence. Spans are ignored. */
bool ir_func_equal(const IrFunc *a, const IrFunc *b);
bool ir_module_equal(const IrModule *a, const IrModule *b);
/* A hash consistent with ir_func_equal. */
uint64_t ir_func_hash(const IrFunc *f);

/* Well-formedness: use before definition, redefinition, dtype mismatches,
 * index dtypes, thread-extent consistency and limits. Reports into m->diags;
 * returns true when no error was found. */
bool ir_verify(IrModule *m);

#endif
