/* T.cuda.iket annotations. Without CgOptions.trace they generate nothing (a
 * token is 0), so an annotated kernel compiles to the text it would have
 * without its annotations. With it, each becomes one tx_trace_event call (the
 * prelude) that the lowest active lane of the warp records into the buffer
 * tx_trace_buf points at; the runtime sets that global at launch. A traced
 * kernel opens its warp's slot of the buffer at entry (tx_trace, a TxTrace
 * in registers: the slot, the capacity, the SM, the count of its records), so
 * recording an event costs a timer read and stores, not a round trip. An event's
 * code is its name's index in tx_trace_names (emitted after the kernels, in
 * first-use order) shifted left by three, or'ed with its kind (CgTraceKind);
 * a range token is the index itself. */
#include <string.h>

#include "internal.h"

typedef enum { TRACE_MARK, TRACE_START, TRACE_END, TRACE_PUSH, TRACE_POP } CgTraceKind;

bool cg_is_iket_event(IrOp op)
{
    return op == IR_OP_CUDA_IKET_MARK || op == IR_OP_CUDA_IKET_RANGE_START ||
           op == IR_OP_CUDA_IKET_RANGE_END || op == IR_OP_CUDA_IKET_RANGE_PUSH ||
           op == IR_OP_CUDA_IKET_RANGE_POP;
}

static bool is_iket(IrOp op)
{
    return cg_is_iket_event(op) || op == IR_OP_CUDA_IKET_SENTINEL_TOKEN;
}

/* The index of the string literal e in the name table (added on first use),
 * or -1 with an error. */
static int name_id(Cg *cg, const IrExpr *call, const IrExpr *e)
{
    if (!e || e->kind != IR_E_STR) {
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, call), "T.%s needs a string literal name",
                 ir_ops[call->u.call.op].name);
        return -1;
    }
    int id = 0;
    for (size_t at = 0; at < cg->trace_names.len; at += strlen(cg->trace_names.data + at) + 1, id++)
        if (!strcmp(cg->trace_names.data + at, e->u.str))
            return id;
    tx_buf_puts(&cg->trace_names, e->u.str);
    tx_buf_putc(&cg->trace_names, '\0');
    return id;
}

/* The payload argument i of call as a uint32_t expression ("0u" when absent). */
static const char *payload(Cg *cg, const IrExpr *call, int i)
{
    if (call->u.call.nargs <= i)
        return "0u";
    return cg_printf(cg, "(uint32_t)%s", cg_expr_str(cg, call->u.call.args[i], CG_PREC_UNARY));
}

static void event(Cg *cg, const char *code, const char *pay)
{
    cg->trace_used = true;
    cg_line(cg, "tx_trace_event(&tx_trace, %s, %s);", code, pay);
}

int cg_iket_expr(Cg *cg, const IrExpr *e, TxBuf *b)
{
    const IrCall *c = &e->u.call;
    if (!cg->opt->trace) {
        tx_buf_puts(b, "0u");
        return CG_PREC_POSTFIX;
    }
    int id = name_id(cg, e, c->args[0]);
    if (id < 0) /* the error is reported */
        id = 0;
    if (c->op == IR_OP_CUDA_IKET_SENTINEL_TOKEN)
        tx_buf_printf(b, "%du", id);
    else {
        cg->trace_used = true;
        tx_buf_printf(b, "tx_trace_start(&tx_trace, %du, %s)", id << 3 | TRACE_START,
                      payload(cg, e, 1));
    }
    return CG_PREC_POSTFIX;
}

bool cg_iket_stmt(Cg *cg, const IrExpr *e)
{
    const IrCall *c = &e->u.call;
    if (!is_iket(c->op))
        return false;
    if (!cg->opt->trace || c->op == IR_OP_CUDA_IKET_SENTINEL_TOKEN)
        return true;
    switch (c->op) {
    case IR_OP_CUDA_IKET_RANGE_START: cg_line(cg, "%s;", cg_expr_str(cg, e, CG_PREC_NONE)); break;
    case IR_OP_CUDA_IKET_MARK:
    case IR_OP_CUDA_IKET_RANGE_PUSH: {
        int kind = c->op == IR_OP_CUDA_IKET_MARK ? TRACE_MARK : TRACE_PUSH;
        int id = name_id(cg, e, c->args[0]);
        if (id >= 0) /* else the error is reported */
            event(cg, cg_printf(cg, "%du", id << 3 | kind), payload(cg, e, 1));
        break;
    }
    case IR_OP_CUDA_IKET_RANGE_POP: event(cg, cg_printf(cg, "%du", TRACE_POP), "0u"); break;
    default: /* range_end(token[, payload]) */
        event(cg, cg_printf(cg, "(uint32_t)%s << 3 | %du", cg_expr_str(cg, c->args[0], CG_PREC_UNARY),
                            TRACE_END),
              payload(cg, e, 1));
        break;
    }
    return true;
}

/* `abc` as a C string literal with its terminating NUL spelled out. */
static void c_literal(TxBuf *out, const char *s)
{
    tx_buf_putc(out, '"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch < 32 || ch >= 127 || ch == '"' || ch == '\\' || ch == '?')
            tx_buf_printf(out, "\\%03o", ch);
        else
            tx_buf_putc(out, (char)ch);
    }
    tx_buf_puts(out, "\\0\"");
}

void cg_trace_globals(Cg *cg, TxBuf *out)
{
    if (!cg->trace_used && !cg->trace_names.len)
        return;
    tx_buf_puts(out, "__device__ uint64_t *tx_trace_buf;\n__device__ const char tx_trace_names[] =");
    for (size_t at = 0; at < cg->trace_names.len; at += strlen(cg->trace_names.data + at) + 1) {
        tx_buf_puts(out, "\n    ");
        c_literal(out, cg->trace_names.data + at);
    }
    if (!cg->trace_names.len)
        tx_buf_puts(out, " \"\"");
    tx_buf_puts(out, ";\n\n");
}
