/* Scalar expressions as C: literals (exact: float constants print the
 * shortest text that reads back to the same float, 16-bit floats their bit
 * pattern), variables, buffer elements, arithmetic with C's precedence and no
 * redundant parentheses, casts through float for the prelude's storage types,
 * floor division (plain / and % where both operands are known non-negative),
 * Select, Let (a const temporary before the statement) and calls (call.c).
 * Vector-valued expressions go to vector.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ir/float_bits.h"
#include "internal.h"

static int emit(Cg *cg, const IrExpr *e, TxBuf *b);

/* Put text s before b[start..] and `)` after it. */
static void enclose(TxBuf *b, size_t start, const char *s)
{
    size_t n = strlen(s), tail = b->len - start;
    for (size_t i = 0; i < n; i++)
        tx_buf_putc(b, ' ');
    memmove(b->data + start + n, b->data + start, tail);
    memcpy(b->data + start, s, n);
    tx_buf_putc(b, ')');
}

/* Put b[start..] in parentheses. */
static void wrap_parens(TxBuf *b, size_t start)
{
    enclose(b, start, "(");
}

bool cg_narrow_int(IrDType t)
{
    return (t.code == IR_DT_INT || t.code == IR_DT_UINT) && t.bits < 32 && t.lanes == 1;
}

int cg_narrow_back(Cg *cg, IrDType t, TxBuf *b, size_t start)
{
    char cast[32];
    snprintf(cast, sizeof cast, "(%s)(", cg_ctype_at(cg, t, cg->span));
    enclose(b, start, cast);
    return CG_PREC_UNARY;
}

int cg_expr(Cg *cg, const IrExpr *e, TxBuf *b, int min_prec)
{
    size_t start = b->len;
    int prec;
    if (e->dtype.lanes > 1) {
        cg_vec_value(cg, e, b);
        prec = CG_PREC_POSTFIX;
    } else {
        prec = emit(cg, e, b);
    }
    if (prec >= min_prec)
        return prec;
    wrap_parens(b, start);
    return CG_PREC_POSTFIX;
}

char *cg_expr_str(Cg *cg, const IrExpr *e, int min_prec)
{
    TxBuf b = {0};
    cg_expr(cg, e, &b, min_prec);
    char *s = cg_strdup(cg, b.data ? b.data : "");
    tx_buf_free(&b);
    return s;
}

const char *cg_temp(Cg *cg, const char *type, const char *value)
{
    const char *name = cg_temp_name(cg);
    cg_flush_line(cg);
    for (int i = 0; i < cg->indent; i++)
        tx_buf_puts(cg->pre, "  ");
    tx_buf_printf(cg->pre, "%s %s = %s;\n", type, name, value);
    return name;
}

/* ---------------------------------------------------------------- facts */

/* Calls whose value is >= 0 when their operands are: shifts right, masks,
 * shuffles of a value (warp_id_in_cta is a shuffle of threadIdx.x // 32),
 * selections; counts of bits and the thread rank always are. */
static bool call_is_nonneg(Cg *cg, const IrCall *c)
{
    switch (c->op) {
    case IR_OP_SHIFT_RIGHT:
    case IR_OP_LIKELY: return c->nargs >= 1 && cg_is_nonneg(cg, c->args[0]);
    case IR_OP_BITWISE_AND:
        return c->nargs == 2 && (cg_is_nonneg(cg, c->args[0]) || cg_is_nonneg(cg, c->args[1]));
    case IR_OP_WARP_SHUFFLE:
    case IR_OP_WARP_SHUFFLE_UP:
    case IR_OP_WARP_SHUFFLE_DOWN:
    case IR_OP_WARP_SHUFFLE_XOR:
    case IR_OP_CUDA_SHFL_SYNC:
    case IR_OP_CUDA_SHFL_XOR_SYNC:
    case IR_OP_CUDA_SHFL_UP_SYNC:
    case IR_OP_CUDA_SHFL_DOWN_SYNC: return c->nargs >= 2 && cg_is_nonneg(cg, c->args[1]);
    case IR_OP_IF_THEN_ELSE:
        return c->nargs == 3 && cg_is_nonneg(cg, c->args[1]) && cg_is_nonneg(cg, c->args[2]);
    case IR_OP_POPCOUNT:
    case IR_OP_CLZ:
    case IR_OP_CUDA_THREAD_RANK:
    case IR_OP_CUDA_FFS_U32: return true;
    default: return false;
    }
}

bool cg_is_nonneg(Cg *cg, const IrExpr *e)
{
    int64_t v;
    if (e->dtype.code == IR_DT_UINT || e->dtype.code == IR_DT_BOOL)
        return true;
    if (cg_const_int(e, &v))
        return v >= 0;
    if (e->kind == IR_E_VAR)
        return ir_ptrmap_get(&cg->nonneg, e, NULL);
    if (e->kind == IR_E_CALL)
        return call_is_nonneg(cg, &e->u.call);
    if (!IR_E_IS_BINARY(e->kind) && e->kind != IR_E_SELECT && e->kind != IR_E_CAST)
        return false; /* and its node has no operands to read */
    const IrExpr *a = e->u.op.a, *b = e->u.op.b;
    switch (e->kind) {
    case IR_E_ADD:
    case IR_E_MUL:
    case IR_E_DIV:
    case IR_E_MOD:
    case IR_E_FLOORDIV:
    case IR_E_MIN:
    case IR_E_SELECT: return cg_is_nonneg(cg, a) && cg_is_nonneg(cg, b);
    case IR_E_SUB: { /* (x + d) - c with d >= c: a rounded-up division's numerator */
        int64_t c, d;
        return a->kind == IR_E_ADD && cg_const_int(b, &c) && cg_const_int(a->u.op.b, &d) &&
               d >= c && cg_is_nonneg(cg, a->u.op.a);
    }
    case IR_E_FLOORMOD: return cg_is_nonneg(cg, b);
    case IR_E_MAX: return cg_is_nonneg(cg, a) || cg_is_nonneg(cg, b);
    case IR_E_CAST:
        return ir_dtype_is_int(a->dtype) && a->dtype.bits <= e->dtype.bits && cg_is_nonneg(cg, a);
    default: return false;
    }
}

/* ---------------------------------------------------------------- literals */

static int emit_int(Cg *cg, IrDType t, int64_t v, TxBuf *b)
{
    if (t.code == IR_DT_BOOL) {
        tx_buf_puts(b, v ? "true" : "false");
        return CG_PREC_POSTFIX;
    }
    if (t.code == IR_DT_INT && t.bits == 32) {
        if (v == INT32_MIN) {
            tx_buf_puts(b, "(-2147483647 - 1)");
            return CG_PREC_POSTFIX;
        }
        tx_buf_printf(b, "%lld", (long long)v);
        return v < 0 ? CG_PREC_UNARY : CG_PREC_POSTFIX;
    }
    if (t.code == IR_DT_UINT && t.bits == 32) {
        tx_buf_printf(b, "%uu", (unsigned)v);
        return CG_PREC_POSTFIX;
    }
    /* the other widths carry their type: (int64_t)5, (uint8_t)3 */
    tx_buf_printf(b, "(%s)", cg_ctype_at(cg, t, cg->span));
    if (t.code == IR_DT_UINT)
        tx_buf_printf(b, "%llu%s", (unsigned long long)v, (uint64_t)v > UINT32_MAX ? "ull" : "u");
    else if (v == INT64_MIN)
        tx_buf_puts(b, "(-9223372036854775807ll - 1)");
    else
        tx_buf_printf(b, "%lld%s", (long long)v, v > INT32_MAX || v < INT32_MIN ? "ll" : "");
    return CG_PREC_UNARY;
}

/* The shortest %g text that reads back as the same value. */
static void shortest(double v, bool single, char *out, size_t n)
{
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(out, n, "%.*g", digits, v);
        if (single ? (float)strtod(out, NULL) == (float)v : strtod(out, NULL) == v)
            break;
    }
    if (!strpbrk(out, ".eEn"))
        snprintf(out + strlen(out), n - strlen(out), ".0");
}

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static int emit_f32(float f, TxBuf *b)
{
    char text[40];
    if (isnan(f) || isinf(f)) {
        tx_buf_printf(b, "__uint_as_float(0x%08xu)", float_bits(f));
        return CG_PREC_POSTFIX;
    }
    shortest(f, true, text, sizeof text);
    tx_buf_printf(b, "%sf", text);
    return f < 0 || (f == 0 && signbit(f)) ? CG_PREC_UNARY : CG_PREC_POSTFIX;
}

static int emit_f64(double v, TxBuf *b)
{
    char text[40];
    if (isnan(v) || isinf(v)) {
        uint64_t u;
        memcpy(&u, &v, sizeof u);
        tx_buf_printf(b, "__longlong_as_double(0x%016llxll)", (unsigned long long)u);
        return CG_PREC_POSTFIX;
    }
    shortest(v, false, text, sizeof text);
    tx_buf_puts(b, text);
    return v < 0 || (v == 0 && signbit(v)) ? CG_PREC_UNARY : CG_PREC_POSTFIX;
}

int cg_literal_float(Cg *cg, IrDType t, double v, TxBuf *b)
{
    if (t.code == IR_DT_FLOAT && t.bits == 64)
        return emit_f64(v, b);
    /* rounded from the double once: through float first, a value just past
     * a halfway point of t would become the tie and round to even */
    if (t.code == IR_DT_FLOAT && t.bits == 16) {
        tx_buf_printf(b, "half::from_bits(0x%04x)", (unsigned)ir_float_to_bits(t, v));
        return CG_PREC_POSTFIX;
    }
    if (t.code == IR_DT_BFLOAT) {
        tx_buf_printf(b, "bfloat16::from_bits(0x%04x)", (unsigned)ir_float_to_bits(t, v));
        return CG_PREC_POSTFIX;
    }
    if (cg_is_low_float(t)) { /* a float exactly t's value: the conversion is exact */
        tx_buf_printf(b, "%s(", cg_ctype_at(cg, t, cg->span));
        emit_f32((float)ir_float_round(t, v), b);
        tx_buf_putc(b, ')');
        return CG_PREC_POSTFIX;
    }
    return emit_f32((float)v, b);
}

static int emit_string(const char *s, TxBuf *b)
{
    tx_buf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            tx_buf_printf(b, "\\%c", *p);
        else if (*p == '\n')
            tx_buf_puts(b, "\\n");
        else if (*p == '\t')
            tx_buf_puts(b, "\\t");
        else if (*p < 32 || *p >= 127)
            tx_buf_printf(b, "\\%03o", *p);
        else
            tx_buf_putc(b, (char)*p);
    }
    tx_buf_putc(b, '"');
    return CG_PREC_POSTFIX;
}

/* ---------------------------------------------------------------- casts */

static bool is_pointer(IrDType t)
{
    return t.code == IR_DT_HANDLE;
}

/* `(T)x`, with x in parentheses unless it is a primary expression. */
static void c_cast(const char *type, const char *x, int xprec, TxBuf *b)
{
    tx_buf_printf(b, xprec >= CG_PREC_POSTFIX ? "(%s)%s" : "(%s)(%s)", type, x);
}

void cg_cast_text(Cg *cg, IrDType from, IrDType to, const char *x, int xprec, TxBuf *b)
{
    const char *to_c = cg_ctype_at(cg, to, cg->span);
    bool to_low = cg_is_low_float(to), from_low = cg_is_low_float(from);
    bool from_f32 = from.code == IR_DT_FLOAT && from.bits == 32;
    if (to_low && from_f32) {
        tx_buf_printf(b, "%s(%s)", to_c, x);
    } else if (to_low) {
        tx_buf_printf(b, "%s(", to_c);
        c_cast("float", x, xprec, b);
        tx_buf_putc(b, ')');
    } else if (from_low && !(to.code == IR_DT_FLOAT && to.bits == 32)) {
        tx_buf_printf(b, "(%s)(float)", to_c);
        tx_buf_printf(b, xprec >= CG_PREC_POSTFIX ? "%s" : "(%s)", x);
    } else if (is_pointer(to) && !is_pointer(from)) {
        c_cast("void*", x, xprec, b);
    } else {
        c_cast(to_c, x, xprec, b);
    }
}

static int emit_cast(Cg *cg, const IrExpr *e, TxBuf *b)
{
    const IrExpr *a = e->u.op.a;
    if (ir_dtype_eq(a->dtype, e->dtype))
        return emit(cg, a, b);
    TxBuf x = {0};
    int xprec = a->dtype.lanes > 1 ? (cg_vec_value(cg, a, &x), CG_PREC_POSTFIX) : emit(cg, a, &x);
    cg_cast_text(cg, a->dtype, e->dtype, x.data ? x.data : "", xprec, b);
    tx_buf_free(&x);
    bool ctor = cg_is_low_float(e->dtype);
    return ctor ? CG_PREC_POSTFIX : CG_PREC_UNARY;
}

/* ---------------------------------------------------------------- operators */

typedef struct BinOp {
    const char *text;
    int prec;
} BinOp;

static BinOp binop(IrExprKind k)
{
    switch (k) {
    case IR_E_ADD: return (BinOp){"+", CG_PREC_ADD};
    case IR_E_SUB: return (BinOp){"-", CG_PREC_ADD};
    case IR_E_MUL: return (BinOp){"*", CG_PREC_MUL};
    case IR_E_DIV: return (BinOp){"/", CG_PREC_MUL};
    case IR_E_MOD:
    case IR_E_FLOORMOD: return (BinOp){"%", CG_PREC_MUL};
    case IR_E_FLOORDIV: return (BinOp){"/", CG_PREC_MUL};
    case IR_E_EQ: return (BinOp){"==", CG_PREC_EQ};
    case IR_E_NE: return (BinOp){"!=", CG_PREC_EQ};
    case IR_E_LT: return (BinOp){"<", CG_PREC_REL};
    case IR_E_LE: return (BinOp){"<=", CG_PREC_REL};
    case IR_E_GT: return (BinOp){">", CG_PREC_REL};
    case IR_E_GE: return (BinOp){">=", CG_PREC_REL};
    case IR_E_AND: return (BinOp){"&&", CG_PREC_AND};
    case IR_E_OR: return (BinOp){"||", CG_PREC_OR};
    default: return (BinOp){NULL, 0};
    }
}

/* `a op b`, left-associative. */
static int emit_infix(Cg *cg, const IrExpr *a, const char *op, int prec, const IrExpr *b, TxBuf *out)
{
    cg_expr(cg, a, out, prec);
    tx_buf_printf(out, " %s ", op);
    cg_expr(cg, b, out, prec + 1);
    return prec;
}

/* `f(a, b)` */
static int emit_call2(Cg *cg, const char *f, const IrExpr *a, const IrExpr *b, TxBuf *out)
{
    tx_buf_printf(out, "%s(", f);
    cg_expr(cg, a, out, CG_PREC_NONE);
    tx_buf_puts(out, ", ");
    cg_expr(cg, b, out, CG_PREC_NONE);
    tx_buf_putc(out, ')');
    return CG_PREC_POSTFIX;
}

static int emit_float_binary(Cg *cg, const IrExpr *e, TxBuf *out)
{
    const IrExpr *a = e->u.op.a, *b = e->u.op.b;
    IrDType t = e->dtype;
    switch (e->kind) {
    case IR_E_MOD: return emit_call2(cg, cg_math_name(cg, IR_OP_FMOD, t), a, b, out);
    case IR_E_MIN:
    case IR_E_MAX:
        if (!cg_is_low_float(a->dtype))
            return emit_call2(cg, e->kind == IR_E_MIN ? "min" : "max", a, b, out);
        /* min(float, float) explicitly: no overload resolution through half's conversion */
        tx_buf_printf(out, "%s((float)", e->kind == IR_E_MIN ? "min" : "max");
        cg_expr(cg, a, out, CG_PREC_UNARY);
        tx_buf_puts(out, ", (float)");
        cg_expr(cg, b, out, CG_PREC_UNARY);
        tx_buf_putc(out, ')');
        return CG_PREC_POSTFIX;
    case IR_E_FLOORDIV:
        tx_buf_printf(out, "%s(", cg_math_name(cg, IR_OP_FLOOR, t));
        emit_infix(cg, a, "/", CG_PREC_MUL, b, out);
        tx_buf_putc(out, ')');
        return CG_PREC_POSTFIX;
    case IR_E_FLOORMOD:
        cg_expr(cg, a, out, CG_PREC_ADD);
        tx_buf_printf(out, " - %s(", cg_math_name(cg, IR_OP_FLOOR, t));
        emit_infix(cg, a, "/", CG_PREC_MUL, b, out);
        tx_buf_puts(out, ") * ");
        cg_expr(cg, b, out, CG_PREC_MUL + 1);
        return CG_PREC_ADD;
    default: {
        BinOp op = binop(e->kind);
        return emit_infix(cg, a, op.text, op.prec, b, out);
    }
    }
}

/* An int64 operand of an infix operator whose other operand is int64 in C
 * needs no cast of its own: the usual arithmetic conversions widen it. The
 * cast of a narrower integer is printed as its operand, a literal that fits
 * int32 as an int literal (in *lit); anything else is o itself. */
static const IrExpr *widened_by_c(const IrExpr *o, IrExpr *lit)
{
    int64_t v;
    if (cg_const_int(o, &v) && v >= INT32_MIN && v <= INT32_MAX) {
        memcpy(lit, o, ir_expr_size(o->kind));
        lit->dtype = IR_INT32;
        return lit;
    }
    const IrExpr *x = o->u.op.a;
    bool narrower = o->kind == IR_E_CAST && x->dtype.lanes == 1 &&
                    ((x->dtype.code == IR_DT_INT && x->dtype.bits < 64) ||
                     (x->dtype.code == IR_DT_UINT && x->dtype.bits < 64));
    return narrower ? x : o;
}

/* `a op b` over int64 operands prints at most one of them without its
 * cast: `(int64_t)row * 656`, not `(int64_t)row * (int64_t)656`. */
static int emit_int_infix(Cg *cg, const IrExpr *a, BinOp op, const IrExpr *b, TxBuf *out)
{
    IrExpr lit;
    IrDType t = a->dtype;
    if (t.code == IR_DT_INT && t.bits == 64 && t.lanes == 1) {
        const IrExpr *nb = widened_by_c(b, &lit);
        if (nb != b)
            b = nb;
        else
            a = widened_by_c(a, &lit);
    }
    return emit_infix(cg, a, op.text, op.prec, b, out);
}

static int emit_int_binary(Cg *cg, const IrExpr *e, TxBuf *out)
{
    const IrExpr *a = e->u.op.a, *b = e->u.op.b;
    bool plain = cg_is_nonneg(cg, a) && cg_is_nonneg(cg, b);
    switch (e->kind) {
    case IR_E_MIN: return emit_call2(cg, "min", a, b, out);
    case IR_E_MAX: return emit_call2(cg, "max", a, b, out);
    case IR_E_FLOORDIV:
        return plain ? emit_int_infix(cg, a, binop(IR_E_DIV), b, out)
                     : emit_call2(cg, "tx_floordiv", a, b, out);
    case IR_E_FLOORMOD:
        return plain ? emit_int_infix(cg, a, binop(IR_E_MOD), b, out)
                     : emit_call2(cg, "tx_floormod", a, b, out);
    default: return emit_int_infix(cg, a, binop(e->kind), b, out);
    }
}

static bool is_arith(IrExprKind k)
{
    return k <= IR_E_MAX;
}

static int emit_binary(Cg *cg, const IrExpr *e, TxBuf *out)
{
    IrDType operand = e->u.op.a->dtype;
    bool is_float = ir_dtype_is_float(operand);
    if (is_float && cg_is_low_float(operand) && is_arith(e->kind)) {
        /* computed in float, stored back into the storage type */
        tx_buf_printf(out, "%s(", cg_ctype_at(cg, e->dtype, cg_span(cg, e)));
        emit_float_binary(cg, e, out);
        tx_buf_putc(out, ')');
        return CG_PREC_POSTFIX;
    }
    if (is_float)
        return emit_float_binary(cg, e, out);
    size_t start = out->len;
    int prec = emit_int_binary(cg, e, out);
    IrExprKind k = e->kind;
    bool leaves = k == IR_E_ADD || k == IR_E_SUB || k == IR_E_MUL || k == IR_E_DIV;
    return leaves && cg_narrow_int(e->dtype) ? cg_narrow_back(cg, e->dtype, out, start) : prec;
}

/* ---------------------------------------------------------------- other nodes */

void cg_element(Cg *cg, const IrExpr *buffer, const IrExpr *index, TxBuf *b)
{
    int64_t i;
    uintptr_t tile;
    if (ir_ptrmap_get(&cg->tiles, buffer, &tile) && tile) {
        /* the scan let only constant indices in the array's bounds through */
        if (!cg_const_int(index, &i))
            TX_UNREACHABLE();
        tx_buf_puts(b, ((const char **)tile)[i]);
        return;
    }
    const char *name = cg_name(cg, buffer);
    if (ir_ptrmap_get(&cg->scalars, buffer, NULL)) {
        if (cg_const_int(index, &i) && i == 0) {
            tx_buf_puts(b, name);
            return;
        }
        tx_buf_printf(b, "(&%s)", name);
    } else {
        tx_buf_puts(b, name);
    }
    tx_buf_putc(b, '[');
    cg_expr(cg, index, b, CG_PREC_NONE);
    tx_buf_putc(b, ']');
}

static int emit_load(Cg *cg, const IrExpr *e, TxBuf *b)
{
    if (e->u.access.n != 1 || !ir_is_buffer(e->u.access.buffer)) {
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e),
                 "a buffer access in device code must have one index "
                                                   "(FlattenBuffer has not run)");
        return CG_PREC_POSTFIX;
    }
    if (e->u.access.predicate)
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e),
                 "predicated loads are not supported by the CUDA code generator");
    const IrExpr *buf = e->u.access.buffer;
    int sub = cg_subbyte(buf->u.var.type->dtype);
    if (sub) {
        tx_buf_printf(b, "%s::from_bits(tx_ld_bits<%s>(%s, ", cg_ctype_at(cg, e->dtype, cg_span(cg, e)),
                      cg_bits_args(buf->u.var.type->dtype), cg_name(cg, buf));
        cg_expr(cg, e->u.access.indices[0], b, CG_PREC_NONE);
        tx_buf_puts(b, "))");
        return CG_PREC_POSTFIX;
    }
    cg_element(cg, buf, e->u.access.indices[0], b);
    return CG_PREC_POSTFIX;
}

static int emit_select(Cg *cg, const IrExpr *e, TxBuf *b)
{
    cg_expr(cg, e->u.op.cond, b, CG_PREC_COND + 1);
    tx_buf_puts(b, " ? ");
    cg_expr(cg, e->u.op.a, b, CG_PREC_COND + 1);
    tx_buf_puts(b, " : ");
    cg_expr(cg, e->u.op.b, b, CG_PREC_COND);
    return CG_PREC_COND;
}

/* `let v = value in body`: v becomes a const temporary before the statement. */
static int emit_let(Cg *cg, const IrExpr *e, TxBuf *b)
{
    const IrExpr *var = e->u.op.var, *value = e->u.op.a;
    const char *type = cg_var_ctype(cg, var->u.var.type, cg_span(cg, e));
    char *text = cg_expr_str(cg, value, CG_PREC_NONE);
    const char *name = cg_define(cg, var);
    cg_flush_line(cg);
    for (int i = 0; i < cg->indent; i++)
        tx_buf_puts(cg->pre, "  ");
    tx_buf_printf(cg->pre, "const %s %s = %s;\n", type, name, text);
    if (cg_is_nonneg(cg, value))
        ir_ptrmap_put(&cg->nonneg, var, 1);
    return emit(cg, e->u.op.b, b);
}

/* T.Shuffle of one lane: lane k of the vectors' concatenation, the vector
 * itself when it has one lane, else its member (`.x`, `.v[k]`). */
static int emit_shuffle(Cg *cg, const IrExpr *e, TxBuf *b)
{
    if (e->u.shuffle.nindices != 1) {
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e),
                 "a T.Shuffle of %d lanes cannot appear in device code (one lane can)",
                 e->u.shuffle.nindices);
        tx_buf_putc(b, '0');
        return CG_PREC_POSTFIX;
    }
    int64_t k = e->u.shuffle.indices[0]->u.int_val;
    const IrExpr *v = e->u.shuffle.vectors[0];
    for (int i = 0; k >= v->dtype.lanes && i + 1 < e->u.shuffle.nvectors; i++) {
        k -= v->dtype.lanes;
        v = e->u.shuffle.vectors[i + 1];
    }
    if (v->dtype.lanes == 1)
        return cg_expr(cg, v, b, CG_PREC_NONE);
    tx_buf_puts(b, cg_lane_of(cg, cg_expr_str(cg, v, CG_PREC_POSTFIX), v->dtype, (int)k));
    return CG_PREC_POSTFIX;
}

static int emit(Cg *cg, const IrExpr *e, TxBuf *b)
{
    switch (e->kind) {
    case IR_E_INT:
    case IR_E_PYINT:
    case IR_E_PYBOOL: return emit_int(cg, e->kind == IR_E_INT ? e->dtype : IR_INT32, e->u.int_val, b);
    case IR_E_FLOAT: return cg_literal_float(cg, e->dtype, e->u.float_val, b);
    case IR_E_PYFLOAT: return emit_f64(e->u.float_val, b);
    case IR_E_STR: return emit_string(e->u.str, b);
    case IR_E_VAR: tx_buf_puts(b, cg_name(cg, e)); return CG_PREC_POSTFIX;
    case IR_E_NOT:
        tx_buf_putc(b, '!');
        cg_expr(cg, e->u.op.a, b, CG_PREC_UNARY);
        return CG_PREC_UNARY;
    case IR_E_SELECT: return emit_select(cg, e, b);
    case IR_E_CAST: return emit_cast(cg, e, b);
    case IR_E_LET: return emit_let(cg, e, b);
    case IR_E_CALL: return cg_call(cg, e, b);
    case IR_E_LOAD: return emit_load(cg, e, b);
    case IR_E_SHUFFLE: return emit_shuffle(cg, e, b);
    default:
        if (IR_E_IS_BINARY(e->kind))
            return emit_binary(cg, e, b);
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e), "this expression cannot appear in device code");
        tx_buf_putc(b, '0');
        return CG_PREC_POSTFIX;
    }
}
