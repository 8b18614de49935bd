/* T.ptx calls as inline asm, driven by the PTX instruction table: the mnemonic
 * is the entry's family plus its written modifiers (ir_ptx_mnemonic), the
 * operands come in table order (ir_ptx_operands) with their kinds:
 *   registers   "h"/"r"/"l"/"f"/"d" by the argument's C type and the PTX type's
 *               width; outputs "=", read-written and preserve_dst ("keep") "+";
 *               a C type with no register class of its own (half, vectors,
 *               8-bit) goes through a uintN_t temporary and tx_bitcast;
 *   .pred       a uint32 carrier: inputs `setp.ne.b32 p, %n, 0`, outputs
 *               `selp.u32 %n, 1, 0, p`, in a `{ .reg .pred p; ... }` block;
 *   addresses   `[%n]` in the operand's state space (32-bit shared-window
 *               addresses, 64-bit generic/global ones, `[%n+16]` for
 *               T.ptx.addr), `[tmap, {c0, c1}]` for a tensor map;
 *   immediates  written into the text; fixed text (`_`) as is;
 *   groups      `{a, b, ...}` register vectors, `d|p` pairs, T.ptx.SINK lanes
 *               as `_`, the "pred" guard as `@p`.
 * Every asm is volatile; all but the register-only instructions clobber
 * "memory". An instruction the target lacks is an error naming it, the
 * target and the source line. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define ASM_MAX_OPERANDS 64

typedef struct AsmOperand {
    const char *constraint; /* "=r", "+f", "l", ... */
    const char *expr;
} AsmOperand;

typedef struct Asm {
    Cg *cg;
    const IrExpr *call;
    char mnemonic[256];
    TX_VEC(AsmOperand) outs;
    TX_VEC(AsmOperand) ins;
    TxBuf prolog, epilog;         /* PTX before and after the instruction (in a { } block) */
    TX_VEC(const char *) before;  /* C lines before and after the asm statement */
    TX_VEC(const char *) after;
    int npreds;
    bool keep;
    const char *guard;            /* the @p predicate register, or NULL */
} Asm;

/* ---------------------------------------------------------------- helpers */

/* Bits of a PTX register type token: b32 32, f16x2 32, e4m3x2 16, ... */
static int type_bits(const char *t)
{
    static const struct {
        const char *name;
        int bits;
    } packed[] = {{"e4m3x2", 16}, {"e5m2x2", 16}, {"e2m3x2", 16}, {"e3m2x2", 16}, {"e2m1x2", 8},
                  {"e2m1x4", 16}, {"ue8m0x2", 16}, {"s2f6x2", 16}, {"tf32", 32}, {"bf16", 16},
                  {"bf16x2", 32}, {"pred", 32}};
    for (size_t i = 0; i < TX_ARRAY_LEN(packed); i++)
        if (!strcmp(t, packed[i].name))
            return packed[i].bits;
    const char *digits = t + strcspn(t, "0123456789");
    int bits = atoi(digits);
    const char *x = strchr(digits, 'x');
    return bits * (x ? atoi(x + 1) : 1);
}

static int dtype_bits(IrDType t)
{
    return t.bits * (t.lanes ? t.lanes : 1);
}

/* A marker for operand k of a list, replaced by %N once the outputs are counted. */
static const char *marker(Asm *a, char list, int k)
{
    return cg_printf(a->cg, "\x01%c%d\x02", list, k);
}

static const char *add_in(Asm *a, const char *constraint, const char *expr)
{
    tx_vec_push(&a->ins, ((AsmOperand){constraint, expr}));
    return marker(a, 'i', a->ins.len - 1);
}

static const char *add_out(Asm *a, const char *constraint, const char *expr)
{
    tx_vec_push(&a->outs, ((AsmOperand){constraint, expr}));
    return marker(a, 'o', a->outs.len - 1);
}

static const char *new_pred(Asm *a)
{
    const char *p = cg_printf(a->cg, "tx_p%d", a->npreds++);
    tx_buf_printf(&a->prolog, ".reg .pred %s; ", p);
    return p;
}

/* The inline-asm constraint of an integer register: "q" binds a 128-bit
 * (__int128) value to a .b128 operand. */
static const char *reg_class(int bits)
{
    return bits == 16 ? "h" : bits == 64 ? "l" : bits == 128 ? "q" : "r";
}

static const char *uint_type(int bits)
{
    return bits == 8 ? "uint8_t" : bits == 16 ? "uint16_t" : bits == 64 ? "uint64_t"
           : bits == 128 ? "unsigned __int128" : "uint32_t";
}

/* The register class an argument of dtype t takes as itself, or NULL when it
 * needs a conversion (half, vectors, 8-bit, bool). */
static const char *natural_class(IrDType t)
{
    if (t.lanes > 1)
        return NULL;
    if (t.code == IR_DT_FLOAT && t.bits == 32)
        return "f";
    if (t.code == IR_DT_FLOAT && t.bits == 64)
        return "d";
    if (t.code == IR_DT_HANDLE)
        return "l";
    if (ir_dtype_is_int(t) && t.bits >= 16)
        return reg_class(t.bits);
    return NULL;
}

static void operand_error(Asm *a, const IrPtxOperand *op, const char *what)
{
    cg_error(a->cg, TX_E_PTX_OPERANDS, cg_span(a->cg, a->call),
             "operand '%s' of PTX instruction '%s' %s", op->name,
             a->mnemonic, what);
}

/* Whether an argument of `bits` fits a register of PTX type width `want`: the
 * same width, or a narrow (8-bit) type in a wider register (ld/st/cvt). */
static bool width_fits(int bits, int want)
{
    return bits == want || (want == 8 && bits <= 32) || (want == 16 && bits == 8);
}

/* ---------------------------------------------------------------- registers */

static const char *reg_input(Asm *a, const IrPtxOperand *op, const IrExpr *arg)
{
    Cg *cg = a->cg;
    int want = type_bits(op->type), bits = dtype_bits(arg->dtype);
    const char *cls = natural_class(arg->dtype);
    if (arg->dtype.code == IR_DT_BOOL)
        return add_in(a, "r", cg_printf(cg, "(uint32_t)%s", cg_expr_str(cg, arg, CG_PREC_UNARY)));
    if (!width_fits(bits, want)) {
        char dt[IR_DTYPE_STR_MAX];
        operand_error(a, op, cg_printf(cg, "is a %d-bit .%s register; the argument is a %s", want,
                                       op->type, ir_dtype_str(arg->dtype, dt)));
        return "0";
    }
    char *x = cg_expr_str(cg, arg, CG_PREC_NONE);
    if (cls)
        return add_in(a, cls, x);
    const char *bitcast = cg_printf(cg, "tx_bitcast<%s>(%s)", uint_type(bits), x);
    if (bits == 8)
        return add_in(a, "r", cg_printf(cg, "(uint32_t)%s", bitcast));
    return add_in(a, reg_class(bits), bitcast);
}

/* The lvalue of an output operand, or NULL (reported). */
static char *lvalue(Asm *a, const IrPtxOperand *op, const IrExpr *arg)
{
    if (arg->kind != IR_E_LOAD || arg->u.access.n != 1 || arg->u.access.indices[0]->dtype.lanes != 1) {
        operand_error(a, op, "is written: its argument must be a buffer element");
        return NULL;
    }
    TxBuf b = {0};
    cg_element(a->cg, arg->u.access.buffer, arg->u.access.indices[0], &b);
    char *s = cg_strdup(a->cg, b.data);
    tx_buf_free(&b);
    return s;
}

/* An output through a temporary: `uintN_t t;` before, `lv = convert(t);` after. */
static const char *output_via_temp(Asm *a, const char *lv, IrDType t, int want, bool readwrite)
{
    Cg *cg = a->cg;
    int bits = want <= 8 ? 32 : want;
    const char *tmp = cg_temp_name(cg), *tt = uint_type(bits);
    bool plain = ir_dtype_is_int(t) || t.code == IR_DT_BOOL;
    const char *init = !readwrite ? ""
                       : plain ? cg_printf(cg, " = (%s)%s", tt, lv)
                               : cg_printf(cg, " = tx_bitcast<%s>(%s)", uint_type(dtype_bits(t)), lv);
    tx_vec_push(&a->before, cg_printf(cg, "%s %s%s;", tt, tmp, init));
    const char *ct = cg_ctype_at(cg, t, cg_span(cg, a->call));
    tx_vec_push(&a->after, plain ? cg_printf(cg, "%s = (%s)%s;", lv, ct, tmp)
                                 : cg_printf(cg, "%s = tx_bitcast<%s>((%s)%s);", lv, ct,
                                             uint_type(dtype_bits(t)), tmp));
    return add_out(a, cg_printf(cg, "%s%s", readwrite ? "+" : "=", reg_class(bits)), tmp);
}

static const char *reg_output(Asm *a, const IrPtxOperand *op, const IrExpr *arg)
{
    Cg *cg = a->cg;
    int want = type_bits(op->type), bits = dtype_bits(arg->dtype);
    bool readwrite = op->rw == '+' || a->keep;
    char *lv = lvalue(a, op, arg);
    if (!lv)
        return "0";
    if (!width_fits(bits, want)) {
        char dt[IR_DTYPE_STR_MAX];
        operand_error(a, op, cg_printf(cg, "is a %d-bit .%s register; the destination is a %s", want,
                                       op->type, ir_dtype_str(arg->dtype, dt)));
        return "0";
    }
    const char *cls = natural_class(arg->dtype);
    if (cls && bits == want)
        return add_out(a, cg_printf(cg, "%s%s", readwrite ? "+" : "=", cls), lv);
    return output_via_temp(a, lv, arg->dtype, want, readwrite);
}

/* A .pred operand: a uint32 0/1 on the C side. */
static const char *pred_operand(Asm *a, const IrPtxOperand *op, const IrExpr *arg)
{
    Cg *cg = a->cg;
    const char *p = new_pred(a);
    if (op->rw == 'r') {
        const char *v = arg->dtype.code == IR_DT_BOOL
                            ? cg_printf(cg, "(uint32_t)%s", cg_expr_str(cg, arg, CG_PREC_UNARY))
                            : cg_expr_str(cg, arg, CG_PREC_NONE);
        tx_buf_printf(&a->prolog, "setp.ne.b32 %s, %s, 0; ", p, add_in(a, "r", v));
        return p;
    }
    char *lv = lvalue(a, op, arg);
    if (!lv)
        return p;
    const char *m = ir_dtype_is_int(arg->dtype) && dtype_bits(arg->dtype) == 32
                        ? add_out(a, a->keep ? "+r" : "=r", lv)
                        : output_via_temp(a, lv, arg->dtype, 32, a->keep);
    tx_buf_printf(&a->epilog, "%sselp.u32 %s, 1, 0, %s; ", a->guard ? cg_printf(cg, "@%s ", a->guard) : "",
                  m, p);
    return p;
}

/* An 8-bit register (e2m1x2, u8, s8, ...): outside ld/st, which take a wider
 * register, ptxas wants a .b8 register, which inline asm cannot bind, so a
 * scoped one is converted from or to a 32-bit operand. */
static const char *byte_operand(Asm *a, const IrPtxOperand *op, const IrExpr *arg)
{
    Cg *cg = a->cg;
    const char *b = cg_printf(cg, "tx_b%d", a->npreds++);
    const char *ext = op->type[0] == 's' ? "s" : "u";
    IrPtxOperand wide = *op;
    wide.type = "b32";
    tx_buf_printf(&a->prolog, ".reg .b8 %s; ", b);
    if (op->rw == 'r') {
        const char *m = reg_input(a, &wide, arg);
        tx_buf_printf(&a->prolog, "cvt.%s8.%s32 %s, %s; ", ext, ext, b, m);
        return b;
    }
    const char *m = reg_output(a, &wide, arg);
    tx_buf_printf(&a->epilog, "%scvt.%s32.%s8 %s, %s; ", a->guard ? cg_printf(cg, "@%s ", a->guard) : "",
                  ext, ext, m, b);
    return b;
}

static const char *reg_operand(Asm *a, const IrPtxOperand *op, const IrExpr *arg)
{
    if (!strcmp(op->type, "pred"))
        return pred_operand(a, op, arg);
    const char *family = ir_ptx_family(a->call->u.call.ptx_entry);
    if (type_bits(op->type) == 8 && strcmp(family, "ld") && strcmp(family, "ldu") && strcmp(family, "st"))
        return byte_operand(a, op, arg);
    return op->rw == 'r' ? reg_input(a, op, arg) : reg_output(a, op, arg);
}

/* ---------------------------------------------------------------- addresses */

static bool is_call(const IrExpr *e, IrOp op)
{
    return e->kind == IR_E_CALL && e->u.call.op == op;
}

static bool is_shared_space(const char *space)
{
    return !strncmp(space, "shared", 6);
}

/* The register of an address (no brackets) plus a constant byte offset text. */
static const char *address(Asm *a, const IrPtxOperand *op, const IrExpr *arg, const char **offset)
{
    Cg *cg = a->cg;
    *offset = "";
    int64_t off;
    const IrExpr *inner = is_call(arg, IR_OP_CUDA_CVTA_TO_SHARED) ? arg->u.call.args[0] : arg;
    if (is_call(inner, IR_OP_PTX_ADDR) && op->offset_ok && cg_const_int(inner->u.call.args[1], &off)) {
        /* [base+16]; a shared-space T.ptx.addr arrives wrapped in cvta */
        *offset = off ? cg_printf(cg, "%+lld", (long long)off) : "";
        arg = inner->u.call.args[0];
    }
    IrDType t = arg->dtype;
    bool shared = is_shared_space(op->space), tmem = !strcmp(op->space, "tmem");
    if (shared || tmem) {
        if (t.code == IR_DT_HANDLE && shared)
            return add_in(a, "r", cg_printf(cg, "tx_cvta_to_shared(%s)", cg_expr_str(cg, arg, CG_PREC_NONE)));
        if (ir_dtype_is_int(t) && t.bits == 32 && t.lanes == 1)
            return add_in(a, "r", cg_expr_str(cg, arg, CG_PREC_NONE));
        operand_error(a, op, cg_printf(cg, "is a %s address: a 32-bit integer%s", tmem ? "tensor-memory" : op->space,
                                       shared ? " or a pointer" : ""));
        return "0";
    }
    if (t.code == IR_DT_HANDLE || (ir_dtype_is_int(t) && t.bits == 64 && t.lanes == 1))
        return add_in(a, "l", cg_expr_str(cg, arg, CG_PREC_NONE));
    operand_error(a, op, "is a 64-bit address: a pointer or a 64-bit integer");
    return "0";
}

/* ---------------------------------------------------------------- one instruction */

typedef struct Lanes {
    const IrExpr *const *args; /* the call's expression operands */
    int nargs, next;           /* next unused argument */
    const bool *sunk;          /* by lane position */
    int nsunk;
} Lanes;

/* The text of one lane of op: a register, `_`, an address or an immediate. */
static const char *lane_text(Asm *a, const IrPtxOperand *op, Lanes *l, int pos, bool in_group)
{
    if (pos < l->nsunk && l->sunk[pos])
        return "_";
    if (l->next >= l->nargs) {
        operand_error(a, op, "is missing");
        return "0";
    }
    const IrExpr *arg = l->args[l->next++];
    const char *off;
    int64_t v;
    switch (op->kind) {
    case IR_PTX_OPND_REG: return reg_operand(a, op, arg);
    case IR_PTX_OPND_PTR: return add_in(a, "l", cg_expr_str(a->cg, arg, CG_PREC_NONE));
    case IR_PTX_OPND_IMM:
        if (!cg_const_int(arg, &v)) {
            operand_error(a, op, "is an immediate: its argument must be a constant");
            return "0";
        }
        return cg_printf(a->cg, "%lld", (long long)v);
    case IR_PTX_OPND_ADDR: {
        const char *reg = address(a, op, arg, &off);
        return in_group ? reg : cg_printf(a->cg, "[%s%s]", reg, off);
    }
    default: return op->type;
    }
}

/* One PTX operand: its lanes, `{...}` when braced. */
static void operand_text(Asm *a, const IrPtxOperand *op, Lanes *l, bool in_group, TxBuf *t)
{
    if (op->kind == IR_PTX_OPND_TEXT) {
        tx_buf_puts(t, op->type);
        return;
    }
    if (op->braced)
        tx_buf_putc(t, '{');
    for (int k = 0; k < op->lanes; k++)
        tx_buf_printf(t, "%s%s", k ? ", " : "", lane_text(a, op, l, op->first_arg + k, in_group));
    if (op->braced)
        tx_buf_putc(t, '}');
}

/* All operands, `[a, b]` and `a|b` groups joined. */
static void operands_text(Asm *a, const IrPtxOperand *ops, int nops, Lanes *l, TxBuf *t)
{
    bool first = true;
    for (int i = 0; i < nops; i++) {
        if (!ops[i].lanes && ops[i].kind != IR_PTX_OPND_TEXT)
            continue; /* an optional operand that is absent */
        tx_buf_puts(t, first ? " " : ", ");
        first = false;
        char g = ops[i].group;
        bool pair = g && i + 1 < nops && ops[i + 1].group == g;
        if (g == '[' && pair)
            tx_buf_putc(t, '[');
        operand_text(a, &ops[i], l, g == '[' && pair, t);
        if (pair) {
            tx_buf_puts(t, g == '[' ? ", " : "|");
            operand_text(a, &ops[++i], l, g == '[', t);
            if (g == '[')
                tx_buf_putc(t, ']');
        }
    }
}

/* ---------------------------------------------------------------- the marker */

/* The marker's flags: "pred", "keep", "p<i>" (.pred inputs: the table knows
 * them), "s<i>" (lane i was T.ptx.SINK). */
static void read_marker(Asm *a, const char *marker, bool *pred, bool *sunk, int nsunk)
{
    *pred = false;
    for (const char *p = marker ? marker : ""; *p;) {
        size_t n = strcspn(p, ",");
        if (n == 4 && !strncmp(p, "pred", 4))
            *pred = true;
        else if (n == 4 && !strncmp(p, "keep", 4))
            a->keep = true;
        else if (p[0] == 's' && atoi(p + 1) >= 0 && atoi(p + 1) < nsunk)
            sunk[atoi(p + 1)] = true;
        p += n + (p[n] == ',');
    }
}

/* ---------------------------------------------------------------- output */

/* The instruction text with operand markers replaced by %N. */
static char *render_markers(Asm *a, const char *text)
{
    TxBuf b = {0};
    for (const char *p = text; *p; p++) {
        if (*p != '\x01') {
            tx_buf_putc(&b, *p);
            continue;
        }
        int k = atoi(p + 2);
        tx_buf_printf(&b, "%%%d", p[1] == 'o' ? k : a->outs.len + k);
        p = strchr(p, '\x02');
    }
    char *s = cg_strdup(a->cg, b.data ? b.data : "");
    tx_buf_free(&b);
    return s;
}

/* A constraint list, eight operands to a line when the statement is long. */
static void constraint_list(const AsmOperand *ops, int n, bool wrap, int indent, TxBuf *b)
{
    for (int i = 0; i < n; i++) {
        if (i && wrap && i % 8 == 0) {
            tx_buf_puts(b, ",\n");
            for (int k = 0; k < indent; k++)
                tx_buf_puts(b, "  ");
            tx_buf_puts(b, "      ");
        } else if (i) {
            tx_buf_puts(b, ", ");
        }
        tx_buf_printf(b, "\"%s\"(%s)", ops[i].constraint, ops[i].expr);
    }
}

/* The length of the operand lists on one line. */
static size_t operands_width(const Asm *a)
{
    size_t n = 0;
    for (int i = 0; i < a->outs.len; i++)
        n += strlen(a->outs.items[i].constraint) + strlen(a->outs.items[i].expr) + 6;
    for (int i = 0; i < a->ins.len; i++)
        n += strlen(a->ins.items[i].constraint) + strlen(a->ins.items[i].expr) + 6;
    return n;
}

/* Instructions that only read and write registers need no "memory" clobber. */
static bool touches_memory(const char *family)
{
    static const char *const pure[] = {
        "mov", "prmt", "cvt", "cvt.pack", "and", "or", "xor", "not", "cnot", "lop3", "shf", "shl",
        "shr", "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg",
        "popc", "clz", "bfind", "brev", "bfe", "bfi", "szext", "bmsk", "fns", "dp4a", "dp2a", "fma",
        "min", "max", "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "testp",
        "copysign", "set", "setp", "selp", "slct", "shfl.sync", "vote.sync", "match",
        "activemask", "elect.sync", "redux.sync", "mma", "movmatrix", "cvta", "isspacep",
        "getctarank", "mapa", "createpolicy",
    };
    for (size_t i = 0; i < TX_ARRAY_LEN(pure); i++)
        if (!strcmp(family, pure[i]))
            return false;
    return true;
}

/* `asm volatile("..." : outputs : inputs : "memory");`, the lists on lines
 * of their own when the statement is long. */
static void asm_statement(Asm *a, const char *text, bool memory, int indent, TxBuf *stmt)
{
    bool wrap = strlen(text) + operands_width(a) > 100;
    const char *sep = wrap ? "\n" : " ";
    tx_buf_printf(stmt, "asm volatile(\"%s\"", text);
    bool outs = a->outs.len || a->ins.len || memory, ins = a->ins.len || memory;
    for (int list = 0; list < 3; list++) {
        if (!(list == 0 ? outs : list == 1 ? ins : memory))
            continue;
        tx_buf_puts(stmt, sep);
        for (int k = 0; wrap && k < indent; k++)
            tx_buf_puts(stmt, "  ");
        tx_buf_puts(stmt, wrap ? "    :" : ":");
        const AsmOperand *ops = list == 0 ? a->outs.items : a->ins.items;
        int n = list == 0 ? a->outs.len : a->ins.len;
        if (list == 2) {
            tx_buf_puts(stmt, " \"memory\"");
        } else if (n) {
            tx_buf_putc(stmt, ' ');
            constraint_list(ops, n, wrap, indent, stmt);
        }
    }
    tx_buf_puts(stmt, ");");
}

/* The instruction text (operands included, no ';'), or its expansion. */
static void write_asm(Asm *a, const char *instr)
{
    Cg *cg = a->cg;
    bool block = a->prolog.len || a->epilog.len || a->guard;
    bool braces = a->before.len || a->after.len;
    TxBuf text = {0}, stmt = {0};
    if (block)
        tx_buf_printf(&text, "{ %s%s", a->prolog.data ? a->prolog.data : "",
                      a->guard ? cg_printf(cg, "@%s ", a->guard) : "");
    tx_buf_printf(&text, "%s;", instr);
    if (block)
        tx_buf_printf(&text, " %s}", a->epilog.data ? a->epilog.data : "");
    bool memory = touches_memory(ir_ptx_family(a->call->u.call.ptx_entry));
    asm_statement(a, render_markers(a, text.data), memory, cg->indent + braces, &stmt);
    cg_stmt_line(cg, "%s", braces ? "{" : stmt.data);
    if (braces) {
        cg->indent++;
        for (int i = 0; i < a->before.len; i++)
            cg_line(cg, "%s", a->before.items[i]);
        cg_line(cg, "%s", stmt.data);
        for (int i = 0; i < a->after.len; i++)
            cg_line(cg, "%s", a->after.items[i]);
        cg->indent--;
        cg_line(cg, "}");
    }
    tx_buf_free(&text);
    tx_buf_free(&stmt);
}

/* ---------------------------------------------------------------- forms ptxas lacks */

/* Entries whose every form the CUDA 13.0 ptxas refuses on the targets tirx
 * has (PTX's sm_100f-family conversions), apart from what expand_form
 * rewrites. */
static const char *const ptxas_lacks[] = {"cvt_bf16x2_f8x2", "cvt_bf16x2_f4x2", "cvt_bf16x2_f6x2",
                                          "cvt_f6x2_fp16x2", "cvt_rs_f8x4_f32", "cvt_rs_f6x4_f32"};

static const char *slot(const IrPtxResolved *r, const char *name)
{
    for (int i = 0; i < r->nslots; i++)
        if (!strcmp(ir_ptx_slot_name(r->entry, i), name))
            return r->slots[i] ? r->slots[i] : "";
    return "";
}

/* cvt.rn[.relu][.satfinite].bf16x2.{e4m3x2,e5m2x2} d, a as the same
 * conversion through f16x2 (sm_90a+): every fp8 value is exactly an f16 and
 * exactly a bf16, so fp8 -> f16x2 (with .relu), each half -> f32, the pair ->
 * bf16x2 gives the same bits. .satfinite changes nothing for e4m3, which has
 * no infinities; NULL (refused) for e5m2 with .satfinite and for .scaled. */
static const char *expand_cvt_bf16x2_f8x2(Asm *a, const IrPtxResolved *r, const char *ops)
{
    const char *atype = slot(r, "atype"), *relu = *slot(r, "relu") ? ".relu" : "";
    if (*slot(r, "scaled") || (*slot(r, "satfinite") && strcmp(atype, "e4m3x2")))
        return NULL;
    const char *comma = strstr(ops, ", ");
    if (!comma)
        return NULL;
    const char *d = cg_printf(a->cg, "%.*s", (int)(comma - ops), ops), *src = comma + 2;
    const char *g = a->guard ? cg_printf(a->cg, "@%s ", a->guard) : "";
    tx_buf_puts(&a->prolog, ".reg .b32 tx_h; .reg .b16 tx_lo, tx_hi; .reg .f32 tx_flo, tx_fhi; ");
    return cg_printf(a->cg,
                     "cvt.rn%s.f16x2.%s tx_h, %s; %smov.b32 {tx_lo, tx_hi}, tx_h; "
                     "%scvt.f32.f16 tx_flo, tx_lo; %scvt.f32.f16 tx_fhi, tx_hi; "
                     "%scvt.rn.bf16x2.f32 %s, tx_fhi, tx_flo",
                     relu, atype, src, g, g, g, g, d);
}

/* The text of an instruction the target's ptxas cannot assemble, rewritten
 * (the operands without their leading space); NULL with an error when it
 * cannot be. Other instructions: mnemonic + operands. */
static const char *instruction_text(Asm *a, const IrPtxResolved *r, const char *ops)
{
    const char *key = ir_ptx_key(r->entry);
    bool lacking = false;
    for (size_t i = 0; i < TX_ARRAY_LEN(ptxas_lacks); i++)
        lacking |= !strcmp(key, ptxas_lacks[i]);
    if (!lacking)
        return cg_printf(a->cg, "%s%s", a->mnemonic, ops);
    const char *x = r->entry == IR_PTX_cvt_bf16x2_f8x2 ? expand_cvt_bf16x2_f8x2(a, r, ops + 1) : NULL;
    if (!x)
        cg_error(a->cg, TX_E_TARGET_FEATURE, cg_span(a->cg, a->call),
                 "PTX instruction '%s' (%s) is an sm_100f-family form that the CUDA 13.0 ptxas "
                 "cannot assemble for %s%s", a->mnemonic, key, cg_target(a->cg),
                 r->entry == IR_PTX_cvt_bf16x2_f8x2
                     ? "; tirx rewrites it through f16x2 only without .scaled, and .satfinite "
                       "only from e4m3x2"
                     : "");
    return x;
}

/* ---------------------------------------------------------------- entry */

/* Report the instruction when the target lacks it. */
static bool check_target(Asm *a, const IrPtxResolved *r)
{
    Cg *cg = a->cg;
    if (ir_ptx_available(r, cg->opt->sm))
        return true;
    int first = ir_ptx_first_sm(r);
    TxSpan sp = cg_span(cg, a->call);
    const char *key = ir_ptx_key(r->entry);
    if (!first)
        cg_error(cg, TX_E_TARGET_FEATURE, sp,
                 "PTX instruction '%s' (%s) is not available on any target", a->mnemonic, key);
    else if (first < cg->opt->sm || !ir_ptx_available(r, 100))
        cg_error(cg, TX_E_TARGET_FEATURE, sp,
                 "PTX instruction '%s' (%s) is not available on %s: it exists only on %s",
                 a->mnemonic, key, cg_target(cg), ir_target_name(first));
    else
        cg_error(cg, TX_E_TARGET_FEATURE, sp,
                 "PTX instruction '%s' (%s) is not available on %s: it needs %s or newer",
                 a->mnemonic, key, cg_target(cg), ir_target_name(first));
    return false;
}

static void asm_free(Asm *a)
{
    tx_vec_free(&a->outs);
    tx_vec_free(&a->ins);
    tx_vec_free(&a->before);
    tx_vec_free(&a->after);
    tx_buf_free(&a->prolog);
    tx_buf_free(&a->epilog);
}

void cg_ptx(Cg *cg, const IrExpr *call)
{
    const IrCall *c = &call->u.call;
    IrPtxResolved r = {c->ptx_entry, c->nptx_slots, {0}};
    Asm a = {.cg = cg, .call = call};
    char err[256];
    for (int i = 0; i < c->nptx_slots && i < IR_PTX_MAX_SLOTS; i++)
        r.slots[i] = c->ptx_slots[i];
    ir_ptx_mnemonic(&r, a.mnemonic, sizeof a.mnemonic);
    if (!ir_ptx_valid(&r, err, sizeof err)) {
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, call), "invalid PTX call: %s", err);
        return;
    }
    if (!check_target(&a, &r))
        return;
    IrPtxOperand ops[ASM_MAX_OPERANDS];
    int nops = ir_ptx_operands(&r, ops, ASM_MAX_OPERANDS);
    int nlanes = ir_ptx_noperands(&r);
    bool *sunk = TX_NEW_ARRAY(&cg->arena, bool, nlanes + 1), pred;
    read_marker(&a, c->ptx_marker, &pred, sunk, nlanes);
    int nsunk = 0;
    for (int i = 0; i < nlanes; i++)
        nsunk += sunk[i];
    if (c->nargs != nlanes - nsunk + pred) {
        cg_error(cg, TX_E_PTX_OPERANDS, cg_span(cg, call),
                 "PTX instruction '%s' takes %d operands; the call has %d",
                 a.mnemonic, nlanes - nsunk + pred, c->nargs);
        return;
    }
    if (pred) {
        const IrExpr *g = c->args[c->nargs - 1];
        const char *v = g->dtype.code == IR_DT_BOOL
                            ? cg_printf(cg, "(uint32_t)%s", cg_expr_str(cg, g, CG_PREC_UNARY))
                            : cg_expr_str(cg, g, CG_PREC_NONE);
        a.guard = "tx_guard";
        tx_buf_printf(&a.prolog, ".reg .pred tx_guard; setp.ne.b32 tx_guard, %s, 0; ", add_in(&a, "r", v));
    }
    Lanes l = {(const IrExpr *const *)c->args, c->nargs - pred, 0, sunk, nlanes};
    TxBuf operands = {0};
    operands_text(&a, ops, nops, &l, &operands);
    const char *instr = instruction_text(&a, &r, operands.data ? operands.data : "");
    if (instr && !cg->failed)
        write_asm(&a, instr);
    tx_buf_free(&operands);
    asm_free(&a);
}
