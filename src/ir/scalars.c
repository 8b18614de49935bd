/* Mutable scalars that hold their declared value everywhere. A mutable
 * scalar is a one-element local buffer; it is declared with a value when its
 * AllocBuffer is followed at once by a store into it. When that value reads
 * no memory and calls nothing (variables and constants only) and the
 * declaration is the buffer's only store in the whole body -- no other
 * store, no region of it (a tile primitive may write it), no use of its data
 * and no address of its element -- then every load of it is that value:
 * nothing can run between the allocation and the store, and the value's
 * variables are bound around both. Shape proofs use this to see through
 * `n: T.int32 = e` (a view's size, a layout's grouping). */
#include "visit.h"

#include <string.h>

/* ---------------------------------------------------------------- pure values */
static bool pure_expr(IrVisitor *v, const IrExpr *e)
{
    bool *pure = v->ctx;
    if (e->kind == IR_E_LOAD || e->kind == IR_E_REGION || e->kind == IR_E_CALL ||
        (e->kind == IR_E_VAR && ir_is_buffer(e)))
        *pure = false;
    return *pure;
}

bool ir_is_pure_value(const IrExpr *value)
{
    bool pure = true;
    IrVisitor v = {.ctx = &pure, .expr = pure_expr};
    ir_visit_expr(&v, value);
    return pure;
}

/* ---------------------------------------------------------------- declarations */
static bool is_scalar_alloc(const IrStmt *s)
{
    if (s->kind != IR_S_ALLOC)
        return false;
    const IrExpr *buf = s->u.alloc.buffer;
    const IrBufferType *bt = ir_buf(buf);
    return !strcmp(buf->u.var.type->scope, "local") && bt->ndim == 1 &&
           bt->shape[0]->kind == IR_E_INT && bt->shape[0]->u.int_val == 1;
}

const IrStmt *ir_scalar_declaration(const IrStmt *alloc, const IrStmt *next)
{
    if (!is_scalar_alloc(alloc) || !next || next->kind != IR_S_STORE ||
        next->u.store.buffer != alloc->u.alloc.buffer || next->u.store.predicate ||
        !ir_is_pure_value(next->u.store.value))
        return NULL;
    return next;
}

/* ---------------------------------------------------------------- the body's uses */
typedef struct Uses {
    IrPtrMap decl;  /* buffer -> its declaring store */
    IrPtrMap count; /* buffer -> names - loads - stores, +1 000 000 on another store or an escape */
} Uses;

static void count(Uses *u, const IrExpr *buf, int64_t d)
{
    uintptr_t n = 0;
    if (!ir_ptrmap_get(&u->decl, buf, NULL))
        return;
    ir_ptrmap_get(&u->count, buf, &n);
    ir_ptrmap_put(&u->count, buf, (uintptr_t)((int64_t)n + d));
}

static bool find_decls(IrVisitor *v, const IrStmt *s)
{
    Uses *u = v->ctx;
    for (int i = 0; s->kind == IR_S_SEQ && i + 1 < s->u.seq.n; i++) {
        const IrStmt *d = ir_scalar_declaration(s->u.seq.stmts[i], s->u.seq.stmts[i + 1]);
        if (d)
            ir_ptrmap_put(&u->decl, d->u.store.buffer, (uintptr_t)d);
    }
    return true;
}

enum { ESCAPED = 1000000 };

static bool use_expr(IrVisitor *v, const IrExpr *e)
{
    Uses *u = v->ctx;
    if (e->kind == IR_E_VAR)
        count(u, e, 1);
    else if (e->kind == IR_E_LOAD)
        count(u, e->u.access.buffer, -1);
    else if (e->kind == IR_E_REGION)
        count(u, e->u.access.buffer, ESCAPED);
    else if (e->kind == IR_E_CALL && e->u.call.op == IR_OP_ADDRESS_OF && e->u.call.nargs == 1 &&
             e->u.call.args[0]->kind == IR_E_LOAD)
        count(u, e->u.call.args[0]->u.access.buffer, ESCAPED);
    return true;
}

static bool use_stmt(IrVisitor *v, const IrStmt *s)
{
    Uses *u = v->ctx;
    uintptr_t d;
    if (s->kind == IR_S_STORE && ir_ptrmap_get(&u->decl, s->u.store.buffer, &d))
        count(u, s->u.store.buffer, (const IrStmt *)d == s ? -1 : ESCAPED);
    return true;
}

void ir_declared_scalars(const IrStmt *body, IrPtrMap *out)
{
    Uses u = {0};
    IrVisitor find = {.ctx = &u, .stmt = find_decls};
    ir_visit_stmt(&find, body);
    IrVisitor use = {.ctx = &u, .expr = use_expr, .stmt = use_stmt};
    if (u.decl.len)
        ir_visit_stmt(&use, body);
    for (int i = 0; i < u.decl.cap; i++) {
        const struct IrPtrMapSlot *s = &u.decl.slots[i];
        uintptr_t n = 0;
        if (s->key && (!ir_ptrmap_get(&u.count, s->key, &n) || n == 0))
            ir_ptrmap_put(out, s->key, s->val);
    }
    ir_ptrmap_free(&u.decl);
    ir_ptrmap_free(&u.count);
}

/* ---------------------------------------------------------------- substitution */
typedef struct Subst {
    const IrStmt *(*decl)(void *ctx, const IrExpr *buf);
    void *ctx;
} Subst;

static IrExpr *subst_load(IrMutator *m, IrExpr *e)
{
    Subst *s = m->ctx;
    if (e->kind != IR_E_LOAD)
        return NULL;
    const IrStmt *d = s->decl(s->ctx, e->u.access.buffer);
    return d ? d->u.store.value : NULL;
}

IrExpr *ir_substitute_scalars(TxArena *a, IrExpr *e,
                              const IrStmt *(*decl)(void *ctx, const IrExpr *buf), void *ctx)
{
    Subst s = {decl, ctx};
    IrMutator m = {.ctx = &s, .arena = a, .expr = subst_load};
    IrExpr *r = ir_mutate_expr(&m, e);
    ir_mutator_free(&m);
    return r;
}
