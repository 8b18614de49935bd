/* Shape proofs through mutable scalars stored once. A mutable scalar
 * (`n: T.int32 = e`, a one-element local buffer) read in a view's shape is a
 * load the layout checks cannot see through. When the scalar's only store in
 * the whole function is its declaration with a pure value (src/ir/scalars.c),
 * every load of it is that value, so a check may read the value instead of
 * the load. Later statements are not elaborated yet when a view is checked:
 * the proof is taken at once and its condition is checked when the function
 * ends; a second store, a region of the scalar, its data or its address
 * taken reports the check's original diagnostic there. */
#include "../ir/visit.h"
#include "../layout/layout.h"
#include "elab.h"

/* ---------------------------------------------------------------- declarations */
void el_scalar_declared(El *E, IrExpr *buf, IrStmt *store)
{
    if (E->nscalar_inits == E->capscalar_inits) {
        int cap = E->capscalar_inits ? E->capscalar_inits * 2 : 16;
        ScScalarInit *a = TX_NEW_ARRAY(E->a, ScScalarInit, cap);
        if (E->nscalar_inits)
            memcpy(a, E->scalar_inits, sizeof(*a) * (size_t)E->nscalar_inits);
        E->scalar_inits = a, E->capscalar_inits = cap;
    }
    E->scalar_inits[E->nscalar_inits++] = (ScScalarInit){buf, store};
}

static const IrStmt *declaring_store(const El *E, const IrExpr *buf)
{
    for (int i = 0; i < E->nscalar_inits; i++)
        if (E->scalar_inits[i].buf == buf)
            return E->scalar_inits[i].store;
    return NULL;
}

/* ---------------------------------------------------------------- substitution */
typedef struct Subst {
    El *E;
    const IrExpr *bufs[8]; /* the scalars whose value was read */
    int nbufs;
} Subst;

static const IrStmt *declared_value(void *ctx, const IrExpr *buf)
{
    Subst *s = ctx;
    const IrStmt *st = declaring_store(s->E, buf);
    int i = 0;
    while (st && i < s->nbufs && s->bufs[i] != buf)
        i++;
    if (!st || (i == s->nbufs && s->nbufs == (int)TX_ARRAY_LEN(s->bufs)))
        return NULL;
    if (i == s->nbufs)
        s->bufs[s->nbufs++] = buf;
    return st;
}

static void add_proof(El *E, const IrExpr *buf, const char *err, TxSpan sp)
{
    if (E->nscalar_proofs == E->capscalar_proofs) {
        int cap = E->capscalar_proofs ? E->capscalar_proofs * 2 : 8;
        ScScalarProof *a = TX_NEW_ARRAY(E->a, ScScalarProof, cap);
        if (E->nscalar_proofs)
            memcpy(a, E->scalar_proofs, sizeof(*a) * (size_t)E->nscalar_proofs);
        E->scalar_proofs = a, E->capscalar_proofs = cap;
    }
    E->scalar_proofs[E->nscalar_proofs++] = (ScScalarProof){buf, err, sp};
}

bool el_admits_by_scalars(El *E, const IrLayout *l, IrExpr *const *shape, int ndim,
                          const char *err, TxSpan sp)
{
    Subst s = {.E = E};
    IrExpr **sh = TX_NEW_ARRAY(E->a, IrExpr *, ndim ? ndim : 1);
    for (int i = 0; i < ndim; i++)
        sh[i] = ir_substitute_scalars(E->a, shape[i], declared_value, &s);
    LyCtx c = ly_ctx(E->a);
    if (!s.nbufs || !ly_admits(&c, l, sh, ndim))
        return false;
    for (int i = 0; i < s.nbufs; i++)
        add_proof(E, s.bufs[i], err, sp);
    return true;
}

/* ---------------------------------------------------------------- the function's stores */
void el_scalar_proofs_check(El *E, const IrFunc *f)
{
    IrPtrMap held = {0};
    if (E->nscalar_proofs)
        ir_declared_scalars(f->body, &held);
    for (int i = 0; i < E->nscalar_proofs; i++) {
        const ScScalarProof *p = &E->scalar_proofs[i];
        if (ir_ptrmap_get(&held, p->buf, NULL))
            continue;
        el_error(E, TX_E_LAYOUT, p->span, "%s", p->err);
        el_note(E, declaring_store(E, p->buf)->span, "'%s' is declared with a value here, but it "
                "is stored again, or its data, a region of it or its address is taken: that "
                "value does not hold everywhere", p->buf->u.var.name);
    }
    ir_ptrmap_free(&held);
    E->nscalar_inits = E->nscalar_proofs = 0;
}
