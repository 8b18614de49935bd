/* Time and trace events in the simulator. Time is modelled, deterministic:
 * each thread counts the statements it executes (exec.c), which is its
 * %clock64 (and clock64()), and %globaltimer is that count in nanoseconds
 * (one statement per nanosecond); both are monotonic per thread. A thread
 * passing a barrier or a wait continues at the latest time released into it
 * (order.c), and spinning on a try_wait costs its statements. Under a
 * traced simulation (SimSession.trace) the T.cuda.iket annotations record
 * what the generated CUDA records (target/cuda/trace.c): per warp slot,
 * CTA-major, {count | smid << 32, records {globaltimer, payload << 32 |
 * name id << 3 | kind}}, decoded by the runtime's trace decoder. The
 * threads of a warp do not run in lockstep here, so the warp records its
 * k-th event when the first of its lanes reaches its k-th event (exact for
 * annotations every lane of the warp reaches, as the GPU's lowest active
 * lane records). A CTA's SM (%smid) is its linear index in the grid. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { TRACE_MARK, TRACE_START, TRACE_END, TRACE_PUSH, TRACE_POP };

uint64_t sim_globaltimer(const SimThread *t) { return t->clock; }

uint32_t sim_smid(const SimLaunch *l, const SimCta *c)
{
    const unsigned *g = l->cfg.grid;
    return (uint32_t)(c->idx[0] + g[0] * (c->idx[1] + g[1] * c->idx[2]));
}

/* The id of name (the string argument of e), added on first use. */
static uint32_t name_id(SimLaunch *l, SimThread *t, const IrExpr *e)
{
    const IrExpr *n = e->u.call.nargs ? e->u.call.args[0] : NULL;
    if (!n || n->kind != IR_E_STR) {
        sim_fail(l, t, e->span, "T.%s needs a string literal name", ir_ops[e->u.call.op].name);
        return 0;
    }
    TxBuf *b = &l->ss->trace_names;
    uint32_t id = 0;
    for (size_t at = 0; at < b->len; at += strlen(b->data + at) + 1, id++)
        if (!strcmp(b->data + at, n->u.str))
            return id;
    tx_buf_puts(b, n->u.str);
    tx_buf_putc(b, '\0');
    return id;
}

static void record(SimLaunch *l, SimThread *t, uint32_t code, uint32_t payload)
{
    uint64_t cap = l->trace[0];
    uint64_t slot = sim_smid(l, l->cta) * l->trace_warps + (uint64_t)t->tid / 32;
    uint64_t *s = l->trace + 2 + slot * (1 + 2 * cap);
    uint32_t n = (uint32_t)s[0];
    if (t->trace_n++ < n)
        return; /* another lane of the warp recorded it */
    s[0] = (uint64_t)sim_smid(l, l->cta) << 32 | (n + 1);
    if (n < cap) {
        s[1 + 2 * n] = sim_globaltimer(t);
        s[2 + 2 * n] = (uint64_t)payload << 32 | code;
    }
}

static uint32_t payload(SimLaunch *l, SimThread *t, const IrExpr *e, int i)
{
    return e->u.call.nargs > i ? (uint32_t)sim_eval(l, t, e->u.call.args[i], 0).i : 0;
}

SimVal sim_iket(SimLaunch *l, SimThread *t, const IrExpr *e)
{
    if (!l->trace)
        return (SimVal){.i = 0}; /* as in a build without trace: a token is 0 */
    IrOp op = e->u.call.op;
    uint32_t id = op == IR_OP_CUDA_IKET_RANGE_POP || op == IR_OP_CUDA_IKET_RANGE_END
                  ? 0 : name_id(l, t, e);
    uint32_t pay = op == IR_OP_CUDA_IKET_SENTINEL_TOKEN ? 0 : payload(l, t, e, 1);
    if (sim_failed(l) || t->blocked)
        return (SimVal){.i = 0};
    switch (op) {
    case IR_OP_CUDA_IKET_MARK: record(l, t, id << 3 | TRACE_MARK, pay); break;
    case IR_OP_CUDA_IKET_RANGE_START: record(l, t, id << 3 | TRACE_START, pay); break;
    case IR_OP_CUDA_IKET_RANGE_PUSH: record(l, t, id << 3 | TRACE_PUSH, pay); break;
    case IR_OP_CUDA_IKET_RANGE_POP: record(l, t, TRACE_POP, 0); break;
    case IR_OP_CUDA_IKET_RANGE_END: {
        uint32_t token = (uint32_t)sim_eval(l, t, e->u.call.args[0], 0).i;
        if (!t->blocked)
            record(l, t, token << 3 | TRACE_END, pay);
        break;
    }
    default: break; /* a sentinel token: the name's id */
    }
    return (SimVal){.i = id};
}

bool sim_trace_begin(SimLaunch *l)
{
    if (!l->ss->trace)
        return true;
    const unsigned *g = l->cfg.grid, *b = l->cfg.block;
    l->trace_warps = ((uint64_t)b[0] * b[1] * b[2] + 31) / 32;
    uint64_t slots = (uint64_t)g[0] * g[1] * g[2] * l->trace_warps;
    l->trace = calloc(2 + slots * (1 + 2 * l->ss->trace_cap), sizeof *l->trace);
    if (!l->trace)
        return false;
    l->trace[0] = l->ss->trace_cap;
    l->trace[1] = slots;
    return true;
}

void sim_trace_end(SimLaunch *l)
{
    if (!l->trace)
        return;
    uint64_t nwords = 2 + l->trace[1] * (1 + 2 * l->trace[0]);
    const TxBuf *names = &l->ss->trace_names;
    rt_trace_add(l->ss->trace, l->f->name, l->trace, (size_t)nwords, names->data, names->len,
                 l->trace_warps);
    free(l->trace);
    l->trace = NULL;
}
