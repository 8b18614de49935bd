/* Simplify: the arith layer's StmtSimplify over every function (loop ranges,
 * scope ids and thread extents as facts, pure Binds substituted, provable
 * ifs folded; buffer definitions left as they are, so buffer identities stay
 * stable, only a DeclBuffer's data address is simplified), and
 * ps_simplify_expr, the passes' one entry to expression simplification
 * (without facts). */
#include "internal.h"

#include "../arith/arith.h"

IrExpr *ps_simplify_expr(TxArena *a, IrExpr *e)
{
    ArCtx c;
    ar_ctx_init(&c, a);
    IrExpr *r = ar_simplify(&c, e);
    ar_ctx_free(&c);
    return r;
}

bool ps_simplify(PsCtx *ctx, IrModule *m)
{
    (void)ctx;
    for (int i = 0; i < m->nfuncs; i++) {
        if (!m->funcs[i]->body)
            continue;
        ArCtx c;
        ar_ctx_init(&c, &m->arena);
        m->funcs[i] = ar_simplify_func(&c, m->funcs[i]);
        ar_ctx_free(&c);
    }
    return true;
}
