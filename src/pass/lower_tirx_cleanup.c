/* LowerTIRxCleanup: every view resolves onto its storage root. A DeclBuffer
 * on `parent.data` is redeclared on `root.data`, where root is the buffer
 * that owns the storage (an AllocBuffer, a param, or a DeclBuffer on a raw
 * pointer), and every `view.data` projection becomes `root.data` (the same
 * address: views only move elem_offset). A view whose source has no visible
 * definition is an error naming both. Layouts are applied, and buffer-type
 * fields rewritten, by FlattenBuffer, at each buffer's definition.
 * (reference: layout_passes.md §3.3 "Buffer aliases") */
#include "internal.h"

typedef struct Cleanup {
    IrModule *m;
    IrPtrMap root; /* buffer -> its storage root */
    bool failed;
} Cleanup;

static IrExpr *root_of(Cleanup *c, IrExpr *buffer)
{
    uintptr_t v;
    return ir_ptrmap_get(&c->root, buffer, &v) ? (IrExpr *)v : NULL;
}

static IrExpr *cleanup_expr(IrMutator *mu, IrExpr *e)
{
    IrExpr *b = ps_buffer_data_of(e);
    IrExpr *r = b ? root_of(mu->ctx, b) : NULL;
    return r && r != b ? ps_buffer_data(mu->arena, r) : NULL;
}

static IrStmt *cleanup_stmt(IrMutator *mu, IrStmt *s)
{
    Cleanup *c = mu->ctx;
    if (s->kind == IR_S_ALLOC) {
        ir_ptrmap_put(&c->root, s->u.alloc.buffer, (uintptr_t)s->u.alloc.buffer);
        return NULL;
    }
    if (s->kind != IR_S_DECL)
        return NULL;
    IrExpr *buffer = s->u.decl.buffer, *src = ps_buffer_data_of(s->u.decl.data);
    IrExpr *root = src ? root_of(c, src) : buffer;
    if (!root) {
        tx_error(&c->m->diags, TX_E_LOWERING, s->span,
                 "view '%s' is declared on '%s', which has no visible definition",
                 ps_name(buffer), ps_name(src));
        c->failed = true;
        root = buffer;
    }
    ir_ptrmap_put(&c->root, buffer, (uintptr_t)root);
    return NULL; /* its data, buffer_data(src), follows cleanup_expr onto the root */
}

bool ps_lower_tirx_cleanup(PsCtx *ctx, IrModule *m)
{
    (void)ctx;
    bool ok = true;
    for (int i = 0; i < m->nfuncs; i++) {
        IrFunc *f = m->funcs[i];
        if (!f->body)
            continue;
        Cleanup c = {.m = m};
        for (int k = 0; k < f->nparams; k++)
            if (ir_is_buffer(f->params[k]))
                ir_ptrmap_put(&c.root, f->params[k], (uintptr_t)f->params[k]);
        IrMutator mu = {.ctx = &c, .arena = &m->arena, .expr = cleanup_expr, .stmt = cleanup_stmt};
        m->funcs[i] = ps_func_with_body(&m->arena, f, ir_mutate_stmt(&mu, f->body));
        ir_mutator_free(&mu);
        ir_ptrmap_free(&c.root);
        ok &= !c.failed;
    }
    return ok;
}
