/* T.nvshmem calls in CUDA, all from the table src/ir/nvshmem.def: the calls
 * themselves (nvshmem.h's functions by name, the string arguments as its
 * constants), the header a kernel that uses NVSHMEM includes, and the shim.
 *
 * NVSHMEM's device API is inline functions in nvshmem.h, and those headers
 * pull in cuda_fp16.h and cuda_bf16.h, whose half and bfloat16 types clash
 * with the prelude's. So the kernels never include them: the header
 * (tirx_nvshmem.h) declares each function of the table with nvshmem.h's
 * signature, forwarding to a tx_ function that the shim defines, and the shim
 * is a second translation unit that includes the real headers. Both are
 * compiled to LTO IR and linked with NVSHMEM's device library, so the
 * forwarding disappears (docs/language.md, "NVSHMEM"). */
#include <string.h>

#include "internal.h"

static const char nvshmem_header[] =
    "// tirx NVSHMEM declarations: the NVSHMEM device API calls T.nvshmem ops make,\n"
    "// with nvshmem.h's signatures, each forwarding to the tx_ function that the\n"
    "// NVSHMEM shim defines against the real headers (linked in with LTO).\n"
    "#pragma once\n"
    "\n"
    "enum {\n"
#define NVSHMEM_OP(...)
#define NVSHMEM_CONST(kind, name, cname, value) "  " #cname " = " #value ",\n"
#include "../../ir/nvshmem.def"
#undef NVSHMEM_OP
#undef NVSHMEM_CONST
    "};\n"
    "\n"
#define NVSHMEM_OP(id, name, ret, lo, hi, args, cfunc, cret, params, pass)                   \
    "extern \"C\" __device__ " cret " tx_" cfunc "(" params ");\n"                             \
    "TX_DEVICE " cret " " cfunc "(" params ") { return tx_" cfunc "(" pass "); }\n"
#define NVSHMEM_CONST(...)
#include "../../ir/nvshmem.def"
#undef NVSHMEM_OP
#undef NVSHMEM_CONST
    ;

static const char nvshmem_shim[] =
    "// The tirx NVSHMEM shim: the functions tirx_nvshmem.h forwards to, each\n"
    "// calling the NVSHMEM device API of the real headers.\n"
    "#include <nvshmem.h>\n"
    "#include <nvshmemx.h>\n"
    "\n"
#define NVSHMEM_OP(...)
#define NVSHMEM_CONST(kind, name, cname, value)                                                \
    "static_assert(" #cname " == " #value ", \"tirx's " #cname " differs from NVSHMEM's\");\n"
#include "../../ir/nvshmem.def"
#undef NVSHMEM_OP
#undef NVSHMEM_CONST
    "\n"
#define NVSHMEM_OP(id, name, ret, lo, hi, args, cfunc, cret, params, pass)                   \
    "extern \"C\" __device__ " cret " tx_" cfunc "(" params ") { return " cfunc "(" pass "); }\n"
#define NVSHMEM_CONST(...)
#include "../../ir/nvshmem.def"
#undef NVSHMEM_OP
#undef NVSHMEM_CONST
    ;

const char *cg_nvshmem_header_name(void)
{
    return "tirx_nvshmem.h";
}

const char *cg_nvshmem_header_text(void)
{
    return nvshmem_header;
}

const char *cg_nvshmem_shim_text(void)
{
    return nvshmem_shim;
}

/* ---------------------------------------------------------------- use */

typedef struct UseScan {
    TxSpan where;
    bool found;
} UseScan;

/* An NVSHMEM op, or inline CUDA (T.cuda.func_call) that names NVSHMEM. */
static bool find_use(IrVisitor *v, const IrExpr *e)
{
    UseScan *u = v->ctx;
    if (u->found || e->kind != IR_E_CALL)
        return !u->found;
    const IrCall *c = &e->u.call;
    const IrExpr *source = c->op == IR_OP_CUDA_FUNC_CALL && c->nargs ? c->args[c->nargs - 1] : NULL;
    bool names_it = source && source->kind == IR_E_STR && strstr(source->u.str, "nvshmem");
    if (ir_nvshmem_op(c->op) || names_it) {
        u->found = true;
        u->where = e->span;
    }
    return !u->found;
}

bool cg_uses_nvshmem(const IrModule *m, TxSpan *where)
{
    UseScan u = {0};
    IrVisitor v = {.ctx = &u, .expr = find_use};
    for (int i = 0; i < m->nfuncs && !u.found; i++)
        if (cg_is_kernel(m->funcs[i]))
            ir_visit_func(&v, m->funcs[i]);
    if (u.found && where)
        *where = u.where;
    return u.found;
}

/* ---------------------------------------------------------------- calls */

/* The string of a signal-op, comparison or value-type argument, checked (a
 * call built with T.call_intrin has not been). */
static const char *string_arg(Cg *cg, const IrExpr *e, const IrExpr *arg, char kind)
{
    const char *s = arg->kind == IR_E_STR ? arg->u.str : "";
    const char *c = kind == 't' ? (!strcmp(s, "uint64_t") || !strcmp(s, "uint64") ? s : NULL)
                                : ir_nvshmem_const(kind, s);
    if (!c)
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e), "T.%s: \"%s\" is not a %s",
                 ir_ops[e->u.call.op].name, s, ir_nvshmem_kind_name(kind));
    return c;
}

int cg_nvshmem_call(Cg *cg, const IrExpr *e, TxBuf *b)
{
    const IrCall *c = &e->u.call;
    const IrNvshmemOp *nv = ir_nvshmem_op(c->op);
    const IrOpInfo *info = &ir_ops[c->op];
    if (c->nargs < info->min_args || c->nargs > info->max_args) {
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e), "T.%s takes %d to %d arguments, not %d",
                 info->name, info->min_args, info->max_args, c->nargs);
        tx_buf_putc(b, '0');
        return CG_PREC_POSTFIX;
    }
    tx_buf_printf(b, "%s(", nv->cfunc);
    const char *sep = "";
    for (int i = 0; i < c->nargs; i++) {
        char kind = nv->args[i];
        if (kind == 't') { /* the type is in the function's name */
            string_arg(cg, e, c->args[i], kind);
            continue;
        }
        tx_buf_puts(b, sep);
        sep = ", ";
        if (kind == 's' || kind == 'c' || kind == 'm') {
            const char *name = string_arg(cg, e, c->args[i], kind);
            tx_buf_puts(b, name ? name : "0");
            continue;
        }
        if (kind == 'u')
            tx_buf_puts(b, "(uint64_t*)");
        cg_expr(cg, c->args[i], b, kind == 'u' ? CG_PREC_UNARY : CG_PREC_NONE);
    }
    tx_buf_putc(b, ')');
    return CG_PREC_POSTFIX;
}
