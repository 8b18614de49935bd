/* The simulator's side of the host evaluator: a session (the call's global
 * memory, the first error), one launch (the kernel's variables numbered,
 * its shared allocations laid out, its arguments read as the driver would
 * pass them); tensor-map encodes are async.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void sim_session_init(SimSession *ss) { memset(ss, 0, sizeof *ss); }

void sim_session_free(SimSession *ss)
{
    while (ss->regions.len)
        sim_region_remove(ss, ss->regions.items[ss->regions.len - 1]);
    tx_vec_free(&ss->regions);
    tx_buf_free(&ss->trace_names);
}

/* ---------------------------------------------------------------- the kernel's plan */

typedef struct Plan {
    SimLaunch *l;
    size_t static_bytes, dyn_bytes;
    TX_VEC(const IrExpr *) dyn;
} Plan;

static void number(SimLaunch *l, const IrExpr *var)
{
    if (!ir_ptrmap_get(&l->slot, var, NULL))
        ir_ptrmap_put(&l->slot, var, (uintptr_t)++l->nslots);
}

static void on_def(IrVisitor *v, const IrExpr *var, const IrStmt *where)
{
    (void)where;
    number(((Plan *)v->ctx)->l, var);
}

static size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

static bool on_stmt(IrVisitor *v, const IrStmt *s)
{
    Plan *p = v->ctx;
    if (s->kind == IR_S_ATTR && s->u.attr.node && s->u.attr.node->kind == IR_E_VAR)
        number(p->l, s->u.attr.node);
    if (s->kind != IR_S_ALLOC)
        return true;
    const IrExpr *b = s->u.alloc.buffer;
    const char *scope = b->u.var.type->scope;
    if (!strcmp(scope, "shared.dyn")) {
        tx_vec_push(&p->dyn, b);
        return true;
    }
    if (strcmp(scope, "shared"))
        return true;
    const IrBufferType *bt = ir_buf(b);
    IrDType et = b->u.var.type->dtype;
    int64_t n = (et.bits < 8 ? 1 : et.bits / 8) * et.lanes;
    for (int d = 0; d < bt->ndim; d++)
        n *= bt->shape[d]->kind == IR_E_INT ? bt->shape[d]->u.int_val : 0;
    p->static_bytes = align_up(p->static_bytes, (size_t)(bt->align > 16 ? bt->align : 16));
    ir_ptrmap_put(&p->l->smem_off, b, p->static_bytes);
    p->static_bytes += (size_t)(n > 0 ? n : 0);
    return true;
}

static void plan(SimLaunch *l)
{
    Plan p = {.l = l};
    IrVisitor v = {.ctx = &p, .def = on_def, .stmt = on_stmt};
    ir_visit_func(&v, l->f);
    size_t dyn_base = align_up(p.static_bytes, 1024);
    for (int i = 0; i < p.dyn.len; i++)
        ir_ptrmap_put(&l->smem_off, p.dyn.items[i], dyn_base);
    l->smem_size = dyn_base + l->cfg.dyn_smem_bytes;
    tx_vec_free(&p.dyn);
}

/* Argument i as the driver passes it: a pointer, a scalar of the param's
 * dtype, or (a tensor map) the address of its 128 bytes. */
static SimVal read_arg(const IrExpr *param, void *arg)
{
    const IrType *t = param->u.var.type;
    SimVal v = {0};
    if (t->kind == IR_TY_TENSORMAP)
        v.i = (int64_t)(uintptr_t)arg;
    else if (t->kind == IR_TY_PTR)
        memcpy(&v.i, arg, 8);
    else {
        uint64_t bits = 0;
        memcpy(&bits, arg, t->dtype.bits < 8 ? 1 : (size_t)t->dtype.bits / 8);
        v = sim_from_bits(t->dtype, bits);
    }
    return v;
}

static RtStatus finish(SimSession *ss, RtError *err)
{
    if (!ss->failed)
        return RT_OK;
    if (err) {
        err->status = RT_ERR_USAGE;
        snprintf(err->message, sizeof err->message, "%s", ss->message);
    }
    return RT_ERR_USAGE;
}

RtStatus sim_launch(void *user, const IrFunc *kernel, const RtLaunchConfig *cfg, void **args,
                    RtError *err)
{
    SimSession *ss = user;
    SimLaunch l = {.ss = ss, .f = kernel, .cfg = *cfg};
    if (ss->timeout_s > 0)
        l.deadline = rt_seconds_now() + ss->timeout_s;
    sim_launch_begin(ss);
    size_t nctas = (size_t)cfg->grid[0] * cfg->grid[1] * cfg->grid[2];
    l.cta_fences = calloc(nctas ? nctas : 1, sizeof *l.cta_fences);
    l.cta_acquired = calloc(nctas ? nctas : 1, 1);
    plan(&l);
    l.params = calloc((size_t)l.nslots + 1, sizeof *l.params);
    if (!l.params || !l.cta_fences || !l.cta_acquired) {
        ss->failed = true;
        snprintf(ss->message, sizeof ss->message, "%s: out of memory", kernel->name);
    }
    for (int i = 0; l.params && i < kernel->nparams; i++)
        l.params[sim_slot(&l, kernel->params[i])] = read_arg(kernel->params[i], args[i]);
    if (l.params && !ss->failed && !sim_trace_begin(&l)) {
        ss->failed = true;
        snprintf(ss->message, sizeof ss->message, "%s: out of memory for the trace", kernel->name);
    }
    if (l.params && !ss->failed && sim_run_launch(&l))
        sim_trace_end(&l);
    free(l.trace);
    free(l.params);
    free(l.cta_fences);
    free(l.cta_acquired);
    ir_ptrmap_free(&l.slot);
    ir_ptrmap_free(&l.smem_off);
    return finish(ss, err);
}
