/* LowerTIRxOpaque: the launch structure becomes explicit.
 *  - T.device_entry() regions: their scope ids become the launch nest of
 *    thread_extent attrs with Binds (scope_ids.c); the marker attr goes. A
 *    function with scope ids but no marker is one device region.
 *  - thread_binding loops become thread_extent attrs on their variable (a
 *    non-zero min is added back where the variable is used).
 *  - A loop of extent 1 without annotations (and without a break or
 *    continue of its own) is removed, its variable replaced by the loop's min.
 * (reference: layout_passes.md §3.2 "Scope-id defs", §3.4) */
#include "internal.h"

#include <string.h>

typedef struct Opaque {
    IrModule *m;
    const IrFunc *f;
    bool failed;
} Opaque;

static IrStmt *lower_device_entry(IrMutator *mu, IrStmt *s)
{
    Opaque *o = mu->ctx;
    IrStmt *body = ir_mutate_stmt(mu, s->u.attr.body);
    IrStmt *r = ps_lower_scope_ids(mu->arena, &o->m->diags, ps_span(s, o->f), body);
    if (!r) {
        o->failed = true;
        return body;
    }
    return r;
}

/* The loop body with var := var + min (or := min for a unit loop). */
static IrStmt *substitute_var(IrMutator *mu, IrStmt *body, IrExpr *var, IrExpr *value)
{
    IrSubst sub = {var, ps_cast(mu->arena, var->dtype, value)};
    return ir_mutate_stmt(mu, ir_substitute_stmt(mu->arena, body, &sub, 1, false));
}

static IrStmt *lower_thread_binding(IrMutator *mu, IrStmt *s)
{
    IrExpr *var = s->u.loop.var;
    int64_t min = 0;
    IrStmt *body = ps_const_int(s->u.loop.min, &min) && min == 0
                       ? ir_mutate_stmt(mu, s->u.loop.body)
                       : substitute_var(mu, s->u.loop.body, var,
                                        ps_arith(mu->arena, IR_E_ADD, var, s->u.loop.min));
    const char *tag = s->u.loop.thread ? s->u.loop.thread : ps_name(var);
    bool vthread = !strncmp(tag, "vthread", 7);
    IrStmt *a = ps_attr(mu->arena, var, vthread ? "virtual_thread" : "thread_extent",
                        ir_mutate_expr(mu, s->u.loop.extent), body, s->span);
    a->u.attr.thread_tag = tag;
    return a;
}

static bool is_unit_loop(const IrStmt *s)
{
    int64_t ext;
    return s->u.loop.nannot == 0 && ps_const_int(s->u.loop.extent, &ext) && ext == 1 &&
           !ps_body_jumps(s->u.loop.body);
}

static IrStmt *opaque_hook(IrMutator *mu, IrStmt *s)
{
    if (s->kind == IR_S_ATTR && !strcmp(s->u.attr.key, "tirx.device_entry"))
        return lower_device_entry(mu, s);
    if (s->kind != IR_S_FOR)
        return NULL;
    if (s->u.loop.kind == IR_FOR_THREAD_BINDING)
        return lower_thread_binding(mu, s);
    if (is_unit_loop(s))
        return substitute_var(mu, s->u.loop.body, s->u.loop.var, s->u.loop.min);
    return NULL;
}

typedef struct Markers {
    bool entry, scopeid;
} Markers;

static bool find_markers(IrVisitor *v, const IrStmt *s)
{
    Markers *k = v->ctx;
    if (s->kind == IR_S_ATTR && !strcmp(s->u.attr.key, "tirx.device_entry"))
        k->entry = true;
    k->scopeid |= s->kind == IR_S_SCOPEID;
    return true;
}

static IrStmt *lower_body(Opaque *o, IrMutator *mu, IrStmt *body)
{
    Markers k = {0};
    IrVisitor v = {.ctx = &k, .stmt = find_markers};
    ir_visit_stmt(&v, body);
    IrStmt *r = ir_mutate_stmt(mu, body);
    if (k.entry || !k.scopeid)
        return r;
    IrStmt *whole = ps_lower_scope_ids(mu->arena, &o->m->diags, o->f->span, r);
    o->failed |= !whole;
    return whole ? whole : r;
}

bool ps_lower_tirx_opaque(PsCtx *ctx, IrModule *m)
{
    (void)ctx;
    Opaque o = {.m = m};
    for (int i = 0; i < m->nfuncs; i++) {
        IrFunc *f = m->funcs[i];
        if (!f->body)
            continue;
        o.f = f;
        IrMutator mu = {.ctx = &o, .arena = &m->arena, .stmt = opaque_hook};
        m->funcs[i] = ps_func_with_body(&m->arena, f, lower_body(&o, &mu, f->body));
        ir_mutator_free(&mu);
    }
    return !o.failed;
}
