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

/* ---------------------------------------------------------------- pointer maps */
/* A hash map from node pointers to integers (or pointers cast to uintptr_t).
 * Heap-allocated; zero-initialise, free with ir_ptrmap_free. */
typedef struct IrPtrMap {
    struct IrPtrMapSlot { const void *key; uintptr_t val; } *slots;
    int len, cap;
} IrPtrMap;
/* True and *val (if val) when key is present. */
bool ir_ptrmap_get(const IrPtrMap *m, const void *key, uintptr_t *val);
void ir_ptrmap_put(IrPtrMap *m, const void *key, uintptr_t val);
void ir_ptrmap_free(IrPtrMap *m);

/* ---------------------------------------------------------------- visitor */
/* Order: a node's expressions in field order; at a definition site the value
 * (Bind value, DeclBuffer data, loop bounds, scope-id extents) comes before the
 * definition, the body after it. Function params are all defined first, then
 * their types are traversed (a shape may name a later scalar param). A VAR
 * reached through `expr` is a use; definitions arrive only through `def`. */
typedef struct IrVisitor IrVisitor;
struct IrVisitor {
    void *ctx;
    /* Called before the children; return false to skip them. NULL: visit all. */
    bool (*expr)(IrVisitor *v, const IrExpr *e);
    bool (*stmt)(IrVisitor *v, const IrStmt *s);
    /* Called at each definition of a variable (before its type is traversed).
     * where: the defining statement; NULL for params, Let and lambda params. */
    void (*def)(IrVisitor *v, const IrExpr *var, const IrStmt *where);
    /* Called after the children (not when `expr`/`stmt` returned false). */
    void (*expr_post)(IrVisitor *v, const IrExpr *e);
    void (*stmt_post)(IrVisitor *v, const IrStmt *s);
    /* A scope opens and closes around: a function, a SeqStmt, each body of
     * For/While/If/Attr/compose-op, a Let (its var and body) and a lambda.
     * Flat definitions (Bind, AllocBuffer, DeclBuffer, ScopeIdDef) belong to
     * the innermost open scope. */
    void (*scope_enter)(IrVisitor *v);
    void (*scope_exit)(IrVisitor *v);
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
    /* Give every defined variable a new identity (hygienic inlining). */
    bool fresh_defs;
    /* Internal: variables replaced so far (old -> new IrExpr *). */
    IrPtrMap var_map;
};

IrExpr *ir_mutate_expr(IrMutator *m, IrExpr *e);
IrStmt *ir_mutate_stmt(IrMutator *m, IrStmt *s);
IrType *ir_mutate_type(IrMutator *m, IrType *t);
IrLayout *ir_mutate_layout(IrMutator *m, IrLayout *l);
/* Rebuilding: a node is copied only when one of its fields changed, so an
 * unchanged tree comes back as the same pointer. A statement replacement that
 * is a SeqStmt is spliced into the enclosing sequence (an empty one removes
 * the statement). At a definition the variable is looked up in the var map
 * first (a pass may pre-map a buffer to its replacement); otherwise its type
 * is mutated and, when it changed (or fresh_defs), a new variable takes its
 * place at every later use, buffer fields of loads/stores/regions included.
 * Returns a new IrFunc when anything changed. */
IrFunc *ir_mutate_func(IrMutator *m, IrFunc *f);
/* Record that `from` is replaced by `to` at every later use. */
void ir_mutator_map_var(IrMutator *m, const IrExpr *from, IrExpr *to);
/* The replacement recorded for var, or NULL. */
IrExpr *ir_mutator_lookup(const IrMutator *m, const IrExpr *var);
void ir_mutator_free(IrMutator *m);

/* Substitution of variables by expressions (a buffer by a buffer). With
 * fresh_defs every variable defined inside gets a new identity, so the result
 * can be inlined next to another copy (macro expansion). */
typedef struct IrSubst {
    const IrExpr *from;
    IrExpr *to;
} IrSubst;
IrExpr *ir_substitute(TxArena *a, IrExpr *e, const IrSubst *map, int n);
IrStmt *ir_substitute_stmt(TxArena *a, IrStmt *s, const IrSubst *map, int n, bool fresh_defs);

/* Mutable scalars holding their declared value (scalars.c). A value that
 * reads no memory and calls nothing. */
bool ir_is_pure_value(const IrExpr *value);
/* The store that declares a one-element local buffer with a pure value: alloc
 * is its AllocBuffer and next, the statement after it, that store; else NULL. */
const IrStmt *ir_scalar_declaration(const IrStmt *alloc, const IrStmt *next);
/* Into out (buffer var -> its declaring store): the scalars of body declared
 * with a pure value that is their only store, with no region of them, no use
 * of their data and no address of their element: every load of one is the
 * stored value. */
void ir_declared_scalars(const IrStmt *body, IrPtrMap *out);
/* e with each load of a buffer that decl maps to a store replaced by the
 * store's value (e itself when there is none). */
IrExpr *ir_substitute_scalars(TxArena *a, IrExpr *e,
                              const IrStmt *(*decl)(void *ctx, const IrExpr *buf), void *ctx);

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
