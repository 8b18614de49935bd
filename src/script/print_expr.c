/* Printing of expressions, types, layouts and Python values. Operators print
 * as Python operators only where the reference's operator would rebuild the
 * identical node (both operands of one dtype, no constant folding); otherwise
 * as `T.Add(a, b)`-style calls; the fold check mirrors the reference's
 * TryConstFold exactly (stricter than the parser's folder in a few corners, so
 * it stays a predicate here). Also layout equality and the default layout. */
#include <stdlib.h>
#include <string.h>

#include "../ir/ptx.h"
#include "../arith/arith.h"
#include "print_internal.h"

/* ================================================================ arithmetic */

bool pr_is_int(const IrExpr *e, int64_t v) { return e && e->kind == IR_E_INT && e->u.int_val == v; }

static bool is_int_const(const IrExpr *e) { return e->kind == IR_E_INT; }
static bool is_float_const(const IrExpr *e) { return e->kind == IR_E_FLOAT; }
static bool is_float_val(const IrExpr *e, double v)
{
    return e->kind == IR_E_FLOAT && e->u.float_val == v;
}

static bool is_index_dtype(IrDType t)
{
    return t.code == IR_DT_INT && (t.bits == 32 || t.bits == 64) && t.lanes == 1;
}

/* a + b and a * b as the reference's operators build them (dtype match,
 * constant folding): ar_binary, as the parser builds them. */
static IrExpr *arith(Printer *P, IrExprKind k, IrExpr *a, IrExpr *b)
{
    const char *err;
    IrExpr *r = ar_binary(&P->arena, k, a, b, a->span, &err);
    return r ? r : ir_binary(&P->arena, k, a, b, a->span);
}

IrExpr *pr_fold_add(Printer *P, IrExpr *a, IrExpr *b) { return arith(P, IR_E_ADD, a, b); }
IrExpr *pr_fold_mul(Printer *P, IrExpr *a, IrExpr *b) { return arith(P, IR_E_MUL, a, b); }

/* Whether the reference's constant folder rewrites `a op b` (same dtypes). */
static bool folds_add_sub(IrExprKind k, const IrExpr *a, const IrExpr *b)
{
    bool ints = is_int_const(a) && is_int_const(b);
    bool floats = is_float_const(a) && is_float_const(b) &&
                  (a->dtype.bits == 32 || a->dtype.bits == 64);
    bool zero_a = k == IR_E_ADD && (pr_is_int(a, 0) || is_float_val(a, 0));
    return ints || floats || zero_a || pr_is_int(b, 0) || is_float_val(b, 0);
}

static bool folds_mul(const IrExpr *a, const IrExpr *b)
{
    if (is_int_const(a) && is_int_const(b))
        return true;
    if (is_float_const(a) && is_float_const(b) && (a->dtype.bits == 32 || a->dtype.bits == 64))
        return true;
    return pr_is_int(a, 0) || pr_is_int(a, 1) || pr_is_int(b, 0) || pr_is_int(b, 1) ||
           is_float_val(a, 0) || is_float_val(a, 1) || is_float_val(b, 0) || is_float_val(b, 1);
}

static bool folds_div(IrExprKind k, const IrExpr *a, const IrExpr *b)
{
    if ((is_int_const(a) && is_int_const(b)) || pr_is_int(a, 0) || pr_is_int(b, 1))
        return true;
    if (is_float_const(a) && is_float_const(b)) {
        bool wide = a->dtype.bits == 32 || a->dtype.bits == 64;
        if (k == IR_E_DIV && wide)
            return true;
        if (k == IR_E_FLOORDIV && b->u.float_val != 0)
            return wide;
    }
    return is_float_val(a, 0) || is_float_val(b, 1);
}

static bool folds_floormod(const IrExpr *a, const IrExpr *b)
{
    if (a->dtype.code == IR_DT_UINT && is_int_const(a) && is_int_const(b))
        return true;
    if (!is_index_dtype(a->dtype) || !is_index_dtype(b->dtype))
        return false;
    return (is_int_const(a) && is_int_const(b)) || pr_is_int(a, 0) || pr_is_int(b, 1);
}

static bool folds(IrExprKind k, const IrExpr *a, const IrExpr *b)
{
    switch (k) {
    case IR_E_ADD: case IR_E_SUB:
        return folds_add_sub(k, a, b);
    case IR_E_MUL:
        return folds_mul(a, b);
    case IR_E_DIV: case IR_E_FLOORDIV:
        return folds_div(k, a, b);
    case IR_E_FLOORMOD:
        return folds_floormod(a, b);
    case IR_E_AND: case IR_E_OR:
        return is_int_const(a) || is_int_const(b);
    default: /* comparisons */
        return (is_int_const(a) && is_int_const(b)) || (is_float_const(a) && is_float_const(b));
    }
}

static void collect_list(IrExpr *const *es, int n, PrExprVec *out)
{
    for (int i = 0; i < n; i++)
        pr_collect_vars(es[i], out);
}

void pr_collect_vars(const IrExpr *e, PrExprVec *out)
{
    if (!e)
        return;
    if (e->kind == IR_E_VAR) {
        for (int i = 0; i < out->len; i++)
            if (out->items[i] == e)
                return;
        tx_vec_push(out, e);
    } else if (e->kind == IR_E_CALL) {
        collect_list(e->u.call.args, e->u.call.nargs, out);
    } else if (e->kind == IR_E_SHUFFLE) {
        collect_list(e->u.shuffle.vectors, e->u.shuffle.nvectors, out);
    } else if (e->kind == IR_E_LOAD || e->kind == IR_E_REGION) {
        pr_collect_vars(e->u.access.buffer, out);
        collect_list(e->u.access.indices, e->u.access.n, out);
    } else if (IR_E_IS_BINARY(e->kind) || e->kind == IR_E_NOT || e->kind == IR_E_CAST ||
               e->kind == IR_E_SELECT || e->kind == IR_E_RAMP || e->kind == IR_E_BROADCAST ||
               e->kind == IR_E_LET) {
        pr_collect_vars(e->u.op.var, out);
        pr_collect_vars(e->u.op.cond, out);
        pr_collect_vars(e->u.op.a, out);
        pr_collect_vars(e->u.op.b, out);
    }
}

/* ================================================================ operators */

typedef struct BinInfo {
    const char *sugar; /* NULL: always a call */
    const char *call;
    int prec;
    const char *node;  /* a call's node constructor, where the call would fold */
} BinInfo;

static const BinInfo bin_info[] = {
    [IR_E_ADD] = {"+", "Add", PR_PREC_ADD},
    [IR_E_SUB] = {"-", "Sub", PR_PREC_ADD},
    [IR_E_MUL] = {"*", "Mul", PR_PREC_MUL},
    [IR_E_DIV] = {"/", "Div", PR_PREC_MUL},
    [IR_E_MOD] = {NULL, "truncmod", 0, "Mod"},
    [IR_E_FLOORDIV] = {"//", "FloorDiv", PR_PREC_MUL},
    [IR_E_FLOORMOD] = {"%", "FloorMod", PR_PREC_MUL},
    [IR_E_MIN] = {NULL, "min", 0, "Min"},
    [IR_E_MAX] = {NULL, "max", 0, "Max"},
    [IR_E_EQ] = {"==", "EQ", PR_PREC_CMP},
    [IR_E_NE] = {"!=", "NE", PR_PREC_CMP},
    [IR_E_LT] = {"<", "LT", PR_PREC_CMP},
    [IR_E_LE] = {"<=", "LE", PR_PREC_CMP},
    [IR_E_GT] = {">", "GT", PR_PREC_CMP},
    [IR_E_GE] = {">=", "GE", PR_PREC_CMP},
    [IR_E_AND] = {"and", "And", PR_PREC_AND},
    [IR_E_OR] = {"or", "Or", PR_PREC_OR},
};

/* Division prints `/` only for non-integer operands that do not fold; the
 * others print as the operator when rebuilding it gives the same node. */
static bool binary_sugar(const IrExpr *e)
{
    const IrExpr *a = e->u.op.a, *b = e->u.op.b;
    IrExprKind k = e->kind;
    if (!bin_info[k].sugar)
        return false;
    bool same = ir_dtype_eq(a->dtype, b->dtype);
    if (k == IR_E_DIV) {
        if (same && folds(k, a, b))
            return false;
        return !(ir_dtype_is_int(a->dtype) && ir_dtype_is_int(b->dtype));
    }
    if (k == IR_E_AND || k == IR_E_OR)
        return a->dtype.code == IR_DT_BOOL && b->dtype.code == IR_DT_BOOL && !folds(k, a, b);
    return same && !folds(k, a, b);
}

static int bitwise_prec(IrOp op);
static bool bitwise_sugar(const IrExpr *e);

/* Expressions that print as a literal (bare int32, string, Python values). */
static bool prints_literal(const IrExpr *e)
{
    switch (e->kind) {
    case IR_E_INT:
        return ir_dtype_eq(e->dtype, IR_INT32);
    case IR_E_STR: case IR_E_NONE: case IR_E_PYBOOL: case IR_E_PYINT: case IR_E_PYFLOAT:
    case IR_E_DTYPE: case IR_E_OP:
        return true;
    default:
        return false;
    }
}

int pr_prec(Printer *P, const IrExpr *e)
{
    (void)P;
    if (IR_E_IS_BINARY(e->kind))
        return binary_sugar(e) ? bin_info[e->kind].prec : PR_PREC_ATOM;
    if (e->kind == IR_E_NOT)
        return prints_literal(e->u.op.a) ? PR_PREC_ATOM : PR_PREC_NOT;
    if (e->kind == IR_E_LAMBDA)
        return PR_PREC_LAMBDA;
    if (e->kind == IR_E_CALL && bitwise_sugar(e))
        return bitwise_prec(e->u.call.op);
    return PR_PREC_ATOM;
}

void pr_operand(Printer *P, const IrExpr *e, int parent, bool paren_same, TxBuf *out)
{
    int p = pr_prec(P, e);
    bool paren = p < parent || (paren_same && p == parent);
    if (paren)
        tx_buf_putc(out, '(');
    pr_expr(P, e, out);
    if (paren)
        tx_buf_putc(out, ')');
}

static void print_args(Printer *P, IrExpr *const *args, int n, TxBuf *out)
{
    for (int i = 0; i < n; i++) {
        if (i)
            tx_buf_puts(out, ", ");
        pr_expr(P, args[i], out);
    }
}

static void print_call2(Printer *P, const char *name, const IrExpr *a, const IrExpr *b, TxBuf *out)
{
    tx_buf_printf(out, "T.%s(", name);
    pr_expr(P, a, out);
    tx_buf_puts(out, ", ");
    pr_expr(P, b, out);
    tx_buf_putc(out, ')');
}

/* T.truncmod, T.min and T.max fold (x % 1, min(x, x), constants) as the
 * reference's operators do: a node they would fold prints as its
 * constructor (T.Mod, T.Min, T.Max), which reparses as the node. */
static bool call_folds(Printer *P, const IrExpr *e)
{
    const IrExpr *a = e->u.op.a, *b = e->u.op.b;
    if (!bin_info[e->kind].node || !ir_dtype_eq(a->dtype, b->dtype))
        return false;
    const char *err = NULL;
    return ar_fold_binary(&P->arena, e->kind, (IrExpr *)a, (IrExpr *)b, &err) || err;
}

static void print_binary(Printer *P, const IrExpr *e, TxBuf *out)
{
    const BinInfo *bi = &bin_info[e->kind];
    if (!binary_sugar(e)) {
        print_call2(P, call_folds(P, e) ? bi->node : bi->call, e->u.op.a, e->u.op.b, out);
        return;
    }
    /* `(a < b) == c`: Python would read `a < b == c` as a chained comparison
     * (a deliberate deviation; the reference prints it bare). */
    bool chained = bi->prec == PR_PREC_CMP && pr_prec(P, e->u.op.a) == PR_PREC_CMP;
    pr_operand(P, e->u.op.a, bi->prec, chained, out);
    tx_buf_printf(out, " %s ", bi->sugar);
    pr_operand(P, e->u.op.b, bi->prec, true, out);
}

/* Bitwise and shift operators are nodes in the reference and print like the
 * other operators: infix unless rebuilding them would fold or cast. */
static int bitwise_prec(IrOp op)
{
    switch (op) {
    case IR_OP_BITWISE_AND: return PR_PREC_BITAND;
    case IR_OP_BITWISE_OR: return PR_PREC_BITOR;
    case IR_OP_BITWISE_XOR: return PR_PREC_BITXOR;
    case IR_OP_SHIFT_LEFT: case IR_OP_SHIFT_RIGHT: return PR_PREC_SHIFT;
    case IR_OP_BITWISE_NOT: return PR_PREC_UNARY;
    default: return 0;
    }
}

static bool bitwise_sugar(const IrExpr *e)
{
    const IrCall *c = &e->u.call;
    int prec = bitwise_prec(c->op);
    if (!prec || c->nkwargs)
        return false;
    if (c->op == IR_OP_BITWISE_NOT)
        return c->nargs == 1;
    if (c->nargs != 2)
        return false;
    const IrExpr *a = c->args[0], *b = c->args[1];
    if (!ir_dtype_eq(a->dtype, b->dtype))
        return false;
    if (!is_index_dtype(a->dtype) || !is_index_dtype(b->dtype))
        return true;
    bool consts = is_int_const(a) && is_int_const(b);
    return !(consts || (prec == PR_PREC_SHIFT && pr_is_int(b, 0)));
}

static const char *bitwise_token(IrOp op)
{
    switch (op) {
    case IR_OP_BITWISE_AND: return "&";
    case IR_OP_BITWISE_OR: return "|";
    case IR_OP_BITWISE_XOR: return "^";
    case IR_OP_SHIFT_LEFT: return "<<";
    case IR_OP_SHIFT_RIGHT: return ">>";
    default: return "~";
    }
}

static void print_bitwise(Printer *P, const IrExpr *e, TxBuf *out)
{
    const IrCall *c = &e->u.call;
    int prec = bitwise_prec(c->op);
    if (c->op == IR_OP_BITWISE_NOT) {
        tx_buf_putc(out, '~');
        pr_operand(P, c->args[0], prec, false, out);
        return;
    }
    pr_operand(P, c->args[0], prec, false, out);
    tx_buf_printf(out, " %s ", bitwise_token(c->op));
    pr_operand(P, c->args[1], prec, true, out);
}

/* ================================================================ literals */

static void print_int(const IrExpr *e, TxBuf *out)
{
    char dt[IR_DTYPE_STR_MAX];
    if (ir_dtype_eq(e->dtype, IR_INT32))
        tx_buf_printf(out, "%lld", (long long)e->u.int_val);
    else if (e->dtype.code == IR_DT_BOOL && e->dtype.lanes == 1)
        tx_buf_puts(out, e->u.int_val ? "T.bool(True)" : "T.bool(False)");
    else if (e->dtype.code == IR_DT_UINT) /* uint64 values above INT64_MAX are kept as bits */
        tx_buf_printf(out, "T.%s(%llu)", pr_dtype(e->dtype, dt),
                      (unsigned long long)(uint64_t)e->u.int_val);
    else
        tx_buf_printf(out, "T.%s(%lld)", pr_dtype(e->dtype, dt), (long long)e->u.int_val);
}

static void print_float(const IrExpr *e, TxBuf *out)
{
    char dt[IR_DTYPE_STR_MAX];
    tx_buf_printf(out, "T.%s(", pr_dtype(e->dtype, dt));
    pr_float_literal(out, e->u.float_val);
    tx_buf_putc(out, ')');
}

static int cmp_kwarg_key(const void *a, const void *b)
{
    return strcmp(((const IrKwarg *)a)->key, ((const IrKwarg *)b)->key);
}

/* A string-keyed dict prints sorted by key, like the reference's maps. */
static void print_dict(Printer *P, const IrKwarg *kw, int n, TxBuf *out)
{
    IrKwarg *sorted = tx_arena_memdup(&P->arena, kw, sizeof(IrKwarg) * (size_t)n);
    if (n > 1)
        qsort(sorted, (size_t)n, sizeof *sorted, cmp_kwarg_key);
    tx_buf_putc(out, '{');
    for (int i = 0; i < n; i++) {
        if (i)
            tx_buf_puts(out, ", ");
        pr_string_literal(out, sorted[i].key);
        tx_buf_puts(out, ": ");
        pr_expr(P, sorted[i].value, out);
    }
    tx_buf_putc(out, '}');
}

/* `(a, b)`, `(a,)`: the tuple a lambda returns. */
static void print_tuple(Printer *P, const IrExpr *list, TxBuf *out)
{
    tx_buf_putc(out, '(');
    print_args(P, list->u.list.items, list->u.list.n, out);
    tx_buf_puts(out, list->u.list.n == 1 ? ",)" : ")");
}

static void print_lambda(Printer *P, const IrExpr *e, TxBuf *out)
{
    pr_frame_open(P, e);
    P->frames.items[pr_top(P)].is_lambda = true;
    tx_buf_puts(out, "lambda ");
    for (int i = 0; i < e->u.lambda.n; i++) {
        if (i)
            tx_buf_puts(out, ", ");
        tx_buf_puts(out, pr_define(P, e->u.lambda.params[i], pr_top(P)));
    }
    tx_buf_puts(out, ": ");
    if (e->u.lambda.body->kind == IR_E_LIST)
        print_tuple(P, e->u.lambda.body, out);
    else
        pr_operand(P, e->u.lambda.body, PR_PREC_LAMBDA, false, out);
    char **stmts;
    int n;
    pr_frame_close(P, &stmts, &n);
    pr_free_stmts(stmts, n); /* the reference drops definitions made inside a lambda */
}

/* ================================================================ variables */

void pr_var_creation(Printer *P, const IrExpr *var, TxBuf *out)
{
    (void)P;
    const IrType *t = var->u.var.type;
    char dt[IR_DTYPE_STR_MAX];
    if (t->kind == IR_TY_PRIM) {
        tx_buf_printf(out, "T.%s()", pr_dtype(t->dtype, dt));
    } else if (t->kind == IR_TY_TENSORMAP) {
        tx_buf_puts(out, "T.TensorMap()");
    } else if (t->dtype.code == IR_DT_VOID) {
        if (!strcmp(t->scope, "global"))
            tx_buf_puts(out, "T.handle()");
        else
            tx_buf_puts(out, "T.handle(storage_scope="), pr_string_literal(out, t->scope),
                tx_buf_putc(out, ')');
    } else {
        tx_buf_printf(out, "T.handle(\"%s\", ", pr_dtype(t->dtype, dt));
        pr_string_literal(out, t->scope);
        tx_buf_putc(out, ')');
    }
}

/* A variable without definition gets `n = T.int32()` in the deepest frame
 * enclosing all of its uses. */
static void define_free_var(Printer *P, const IrExpr *var)
{
    int f = pr_free_def_frame(P, var);
    TxBuf b = {0};
    tx_buf_puts(&b, pr_define(P, var, f));
    tx_buf_puts(&b, " = ");
    pr_var_creation(P, var, &b);
    pr_emit(P, f, tx_buf_take(&b));
}

void pr_var_use(Printer *P, const IrExpr *var, TxBuf *out)
{
    if (ir_is_buffer(var)) {
        if (!pr_is_defined(P, var)) {
            pr_free_buffer_def(P, var, pr_free_def_frame(P, var));
        }
        tx_buf_puts(out, pr_text(P, var));
        if (pr_is_scalar_buffer(var, true))
            tx_buf_puts(out, ".source"); /* the buffer object of a scalar (0.27) */
        return;
    }
    if (!pr_is_defined(P, var))
        define_free_var(P, var);
    tx_buf_puts(out, pr_text(P, var));
}

/* The name of a buffer as the prefix of an access (`A[...]`, `A.data`). */
static void print_buffer_name(Printer *P, const IrExpr *buffer, TxBuf *out)
{
    if (!pr_is_defined(P, buffer)) {
        TxBuf tmp = {0};
        pr_var_use(P, buffer, &tmp);
        tx_buf_free(&tmp);
    }
    tx_buf_puts(out, pr_text(P, buffer));
}

/* ================================================================ accesses */

/* An index; a Ramp with constant stride prints as a slice `b:b + n*s[:s]`. */
static void print_index(Printer *P, IrExpr *idx, TxBuf *out)
{
    if (idx->kind == IR_E_RAMP && idx->u.op.b->kind == IR_E_INT) {
        IrExpr *stride = idx->u.op.b;
        IrExpr *lanes = ir_int(&P->arena, IR_INT32, idx->u.op.lanes, idx->span);
        IrExpr *stop = pr_fold_add(P, idx->u.op.a, pr_fold_mul(P, lanes, stride));
        pr_expr(P, idx->u.op.a, out);
        tx_buf_putc(out, ':');
        pr_expr(P, stop, out);
        if (stride->u.int_val != 1)
            tx_buf_putc(out, ':'), pr_expr(P, stride, out);
        return;
    }
    pr_expr(P, idx, out);
}

/* Store indices print Ramps as slices; load indices keep `T.Ramp(...)`, since
 * a slice in an expression reparses as a region (apache-tvm 0.27). */
void pr_indices(Printer *P, IrExpr *const *idx, int n, bool slices, TxBuf *out)
{
    if (n == 0) {
        tx_buf_puts(out, "[()]");
        return;
    }
    tx_buf_putc(out, '[');
    for (int i = 0; i < n; i++) {
        if (i)
            tx_buf_puts(out, ", ");
        if (slices)
            print_index(P, idx[i], out);
        else
            pr_expr(P, idx[i], out);
    }
    tx_buf_putc(out, ']');
}

static void print_list(Printer *P, IrExpr *const *items, int n, TxBuf *out)
{
    tx_buf_putc(out, '[');
    print_args(P, items, n, out);
    tx_buf_putc(out, ']');
}

static void print_load(Printer *P, const IrExpr *e, TxBuf *out)
{
    const IrExpr *buf = e->u.access.buffer;
    print_buffer_name(P, buf, out);
    if (pr_is_scalar_access(buf, e->u.access.indices, e->u.access.n, e->u.access.predicate))
        return;
    if (e->u.access.predicate) {
        tx_buf_puts(out, ".vload(");
        print_list(P, e->u.access.indices, e->u.access.n, out);
        tx_buf_puts(out, ", predicate=");
        pr_expr(P, e->u.access.predicate, out);
        tx_buf_putc(out, ')');
        return;
    }
    pr_indices(P, e->u.access.indices, e->u.access.n, false, out);
}

/* Dims of extent 1 print as the index, others as `min:min + extent`. A region
 * whose every extent is 1 prints all dims as slices, so that it reparses as a
 * region rather than a load (a deliberate deviation, see the report). */
void pr_region(Printer *P, const IrExpr *region, TxBuf *out)
{
    int n = region->u.access.n;
    bool all_one = n > 0;
    for (int i = 0; i < n; i++)
        all_one = all_one && pr_is_int(region->u.access.extents[i], 1);
    print_buffer_name(P, region->u.access.buffer, out);
    tx_buf_putc(out, '[');
    for (int i = 0; i < n; i++) {
        IrExpr *min = region->u.access.indices[i], *ext = region->u.access.extents[i];
        if (i)
            tx_buf_puts(out, ", ");
        pr_expr(P, min, out);
        if (pr_is_int(ext, 1) && !all_one)
            continue;
        tx_buf_putc(out, ':');
        pr_expr(P, pr_fold_add(P, min, ext), out);
    }
    if (n == 0)
        tx_buf_puts(out, "()");
    tx_buf_putc(out, ']');
}

/* ================================================================ calls */

static void print_ptx(Printer *P, const IrCall *c, TxBuf *out)
{
    tx_buf_printf(out, "T.ptx.%s(", ir_ptx_family_printed(c->ptx_entry));
    print_args(P, c->args, c->nargs, out);
    const char *sep = c->nargs ? ", " : "";
    for (int i = 0; i < c->nptx_slots; i++) {
        tx_buf_puts(out, sep), sep = ", ";
        pr_string_literal(out, c->ptx_slots[i] ? c->ptx_slots[i] : "");
    }
    tx_buf_puts(out, sep);
    pr_string_literal(out, c->ptx_marker ? c->ptx_marker : "");
    tx_buf_putc(out, ')');
}

/* The dtype written in a call: a string, or `<pointer type>.ty` for a pointer
 * result (`T.handle().ty` for void* in global memory, also when the IR keeps
 * only the handle dtype). */
static void print_call_dtype(Printer *P, const IrExpr *call, TxBuf *out)
{
    char dt[IR_DTYPE_STR_MAX];
    const IrType *pt = call->u.call.ptr_type;
    bool void_global = !pt || (pt->dtype.code == IR_DT_VOID && !strcmp(pt->scope, "global"));
    if (call->dtype.code != IR_DT_HANDLE && !pt)
        tx_buf_printf(out, "\"%s\"", pr_dtype(call->dtype, dt));
    else if (void_global)
        tx_buf_puts(out, "T.handle().ty");
    else
        pr_type(P, pt, out), tx_buf_puts(out, ".ty");
}

/* cuda.func_call: the source code (last argument) as source_code=, the
 * result dtype as return_type= unless void. */
static void print_func_call(Printer *P, const IrExpr *e, TxBuf *out)
{
    const IrCall *c = &e->u.call;
    tx_buf_puts(out, "T.cuda.func_call(");
    print_args(P, c->args, c->nargs - 1, out);
    tx_buf_puts(out, c->nargs > 1 ? ", source_code=" : "source_code=");
    if (c->nargs)
        pr_expr(P, c->args[c->nargs - 1], out);
    if (e->dtype.code != IR_DT_VOID)
        tx_buf_puts(out, ", return_type="), print_call_dtype(P, e, out);
    tx_buf_putc(out, ')');
}

/* A call with attributes: T.Call("tirx.op", [args], attrs={...}, ret_ty=dtype). */
static void print_call_node(Printer *P, const IrExpr *e, TxBuf *out)
{
    const IrCall *c = &e->u.call;
    char name[IR_OP_NAME_MAX];
    tx_buf_puts(out, "T.Call(");
    pr_string_literal(out, ir_op_registered_name(c->op, name));
    tx_buf_puts(out, ", ");
    print_list(P, c->args, c->nargs, out);
    tx_buf_puts(out, ", attrs=");
    print_dict(P, c->kwargs, c->nkwargs, out);
    tx_buf_puts(out, ", ret_ty=");
    print_call_dtype(P, e, out);
    tx_buf_putc(out, ')');
}

static void print_call(Printer *P, const IrExpr *e, TxBuf *out)
{
    const IrCall *c = &e->u.call;
    if (c->nkwargs && c->op != IR_OP_PTX && c->op != IR_OP_CALL_FUNC) {
        print_call_node(P, e, out);
        return;
    }
    switch (c->op) {
    case IR_OP_BUFFER_DATA:
        print_buffer_name(P, c->args[0], out);
        tx_buf_puts(out, ".data");
        return;
    case IR_OP_PTX:
        print_ptx(P, c, out);
        return;
    case IR_OP_CUDA_FUNC_CALL:
        print_func_call(P, e, out);
        return;
    case IR_OP_BITWISE_AND: case IR_OP_BITWISE_OR: case IR_OP_BITWISE_XOR:
    case IR_OP_BITWISE_NOT: case IR_OP_SHIFT_LEFT: case IR_OP_SHIFT_RIGHT:
        if (bitwise_sugar(e)) {
            print_bitwise(P, e, out);
            return;
        }
        tx_buf_printf(out, "T.%s(", ir_ops[c->op].name);
        break;
    case IR_OP_CALL_FUNC:
        if (P->m->is_ir_module)
            tx_buf_puts(out, "Module.");
        tx_buf_printf(out, "%s(", c->callee);
        break;
    default:
        tx_buf_printf(out, "T.%s(", ir_ops[c->op].name);
        break;
    }
    bool first = c->op != IR_OP_CALL_FUNC && ir_ops[c->op].ret == IR_RET_EXPLICIT;
    if (first)
        print_call_dtype(P, e, out);
    if (first && c->nargs)
        tx_buf_puts(out, ", ");
    print_args(P, c->args, c->nargs, out);
    if (c->op != IR_OP_CALL_FUNC && ir_ops[c->op].ret == IR_RET_EXPLICIT_LAST)
        tx_buf_puts(out, c->nargs ? ", " : ""), print_call_dtype(P, e, out);
    tx_buf_putc(out, ')');
}

/* ================================================================ expressions */

static void print_op_call(Printer *P, const char *name, const IrExpr *const *xs, int n, TxBuf *out)
{
    tx_buf_printf(out, "T.%s(", name);
    for (int i = 0; i < n; i++) {
        if (i)
            tx_buf_puts(out, ", ");
        pr_expr(P, xs[i], out);
    }
    tx_buf_putc(out, ')');
}

static void print_node(Printer *P, const IrExpr *e, TxBuf *out)
{
    char dt[IR_DTYPE_STR_MAX];
    switch (e->kind) {
    case IR_E_NOT:
        if (prints_literal(e->u.op.a))
            print_op_call(P, "Not", (const IrExpr *const[]){e->u.op.a}, 1, out);
        else
            tx_buf_puts(out, "not "), pr_operand(P, e->u.op.a, PR_PREC_NOT, false, out);
        break;
    case IR_E_SELECT:
        print_op_call(P, "Select", (const IrExpr *const[]){e->u.op.cond, e->u.op.a, e->u.op.b},
                      3, out);
        break;
    case IR_E_CAST:
        tx_buf_printf(out, "T.Cast(\"%s\", ", pr_dtype(e->dtype, dt));
        pr_expr(P, e->u.op.a, out);
        tx_buf_putc(out, ')');
        break;
    case IR_E_RAMP:
        tx_buf_puts(out, "T.Ramp(");
        pr_expr(P, e->u.op.a, out);
        tx_buf_puts(out, ", ");
        pr_expr(P, e->u.op.b, out);
        tx_buf_printf(out, ", %d)", e->u.op.lanes);
        break;
    case IR_E_SHUFFLE:
        tx_buf_puts(out, "T.Shuffle([");
        print_args(P, e->u.shuffle.vectors, e->u.shuffle.nvectors, out);
        tx_buf_puts(out, "], [");
        print_args(P, e->u.shuffle.indices, e->u.shuffle.nindices, out);
        tx_buf_puts(out, "])");
        break;
    case IR_E_BROADCAST:
        tx_buf_puts(out, "T.Broadcast(");
        pr_expr(P, e->u.op.a, out);
        tx_buf_printf(out, ", %d)", e->u.op.lanes);
        break;
    case IR_E_RANGE: /* printed with its end, as the reference does: extent + min */
        tx_buf_puts(out, "T.Range(");
        pr_expr(P, e->u.op.a, out);
        tx_buf_puts(out, ", ");
        pr_expr(P, pr_fold_add(P, e->u.op.b, e->u.op.a), out);
        tx_buf_putc(out, ')');
        break;
    case IR_E_INDEX_MAP:
        tx_buf_puts(out, "T.index_map(");
        print_lambda(P, e->u.op.a, out);
        if (e->u.op.b)
            tx_buf_puts(out, ", inverse_index_map="), print_lambda(P, e->u.op.b, out);
        tx_buf_putc(out, ')');
        break;
    case IR_E_GLOBAL_INFO:
        if (!e->u.op.a) {
            tx_buf_puts(out, "I.dummy_global_info()");
            break;
        }
        tx_buf_puts(out, "I.vdevice(");
        print_args(P, (IrExpr *const[]){e->u.op.a, e->u.op.b, e->u.op.cond}, 3, out);
        tx_buf_putc(out, ')');
        break;
    case IR_E_COMM_REDUCER:
        tx_buf_puts(out, "T.comm_reducer(");
        print_lambda(P, e->u.op.a, out);
        tx_buf_puts(out, ", ");
        pr_expr(P, e->u.op.b, out);
        tx_buf_putc(out, ')');
        break;
    case IR_E_LET:
        tx_buf_puts(out, "T.Let(");
        pr_expr(P, e->u.op.b, out);
        tx_buf_puts(out, ", where={");
        pr_expr(P, e->u.op.var, out);
        tx_buf_puts(out, ": ");
        pr_expr(P, e->u.op.a, out);
        tx_buf_puts(out, "})");
        break;
    default:
        break;
    }
}

void pr_expr(Printer *P, const IrExpr *e, TxBuf *out)
{
    char dt[IR_DTYPE_STR_MAX];
    if (!e) {
        tx_buf_puts(out, "None");
        return;
    }
    if (IR_E_IS_BINARY(e->kind)) {
        print_binary(P, e, out);
        return;
    }
    switch (e->kind) {
    case IR_E_INT: print_int(e, out); break;
    case IR_E_FLOAT: print_float(e, out); break;
    case IR_E_STR: pr_string_literal(out, e->u.str); break;
    case IR_E_VAR: pr_var_use(P, e, out); break;
    case IR_E_CALL: print_call(P, e, out); break;
    case IR_E_LOAD: print_load(P, e, out); break;
    case IR_E_REGION: pr_region(P, e, out); break;
    case IR_E_NONE: tx_buf_puts(out, "None"); break;
    case IR_E_PYBOOL: tx_buf_puts(out, e->u.int_val ? "True" : "False"); break;
    case IR_E_PYINT: tx_buf_printf(out, "%lld", (long long)e->u.int_val); break;
    case IR_E_PYFLOAT: pr_float_literal(out, e->u.float_val); break;
    case IR_E_LIST: print_list(P, e->u.list.items, e->u.list.n, out); break;
    case IR_E_DICT: print_dict(P, e->u.list.kwargs, e->u.list.n, out); break;
    case IR_E_LAYOUT: pr_layout(P, e->u.layout, out); break;
    case IR_E_LAMBDA: print_lambda(P, e, out); break;
    /* a dtype object reads back from T.<dtype> (a string would read back as a string) */
    case IR_E_DTYPE: tx_buf_printf(out, "T.%s", pr_dtype(e->dtype, dt)); break;
    case IR_E_OP:
        P->uses_ir_prefix = true;
        tx_buf_puts(out, "I.Op(");
        pr_string_literal(out, e->u.str);
        tx_buf_putc(out, ')');
        break;
    default: print_node(P, e, out); break;
    }
}

/* ================================================================ types */

void pr_type(Printer *P, const IrType *t, TxBuf *out)
{
    (void)P;
    char dt[IR_DTYPE_STR_MAX];
    switch (t->kind) {
    case IR_TY_PRIM:
        tx_buf_printf(out, "T.%s", pr_dtype(t->dtype, dt));
        break;
    case IR_TY_TENSORMAP:
        tx_buf_puts(out, "T.TensorMap()");
        break;
    case IR_TY_TUPLE:
        tx_buf_puts(out, "None");
        break;
    case IR_TY_PTR:
        if (t->dtype.code == IR_DT_VOID && !strcmp(t->scope, "global")) {
            tx_buf_puts(out, "T.handle");
        } else if (t->dtype.code == IR_DT_VOID) {
            tx_buf_puts(out, "T.handle(storage_scope=");
            pr_string_literal(out, t->scope);
            tx_buf_putc(out, ')');
        } else {
            tx_buf_printf(out, "T.handle(\"%s\", ", pr_dtype(t->dtype, dt));
            pr_string_literal(out, t->scope);
            tx_buf_putc(out, ')');
        }
        break;
    case IR_TY_BUFFER:
        tx_buf_printf(out, "T.Buffer");
        break;
    }
}

/* ================================================================ layouts */

/* `value` on axis m, else `value @ Axis.<name>` (the `@` binds like `*`). */
static void print_on_axis(Printer *P, const IrExpr *value, const char *axis, int parent,
                          bool paren_same, TxBuf *out)
{
    if (!strcmp(axis, "m")) {
        pr_operand(P, value, parent, paren_same, out);
        return;
    }
    bool paren = PR_PREC_MUL < parent || (paren_same && PR_PREC_MUL == parent);
    if (paren)
        tx_buf_putc(out, '(');
    pr_operand(P, value, PR_PREC_MUL, false, out);
    tx_buf_printf(out, " @ Axis.%s", axis);
    if (paren)
        tx_buf_putc(out, ')');
}

/* `T.S[(e0, e1):(s0, s1 @ Axis.x)]`, one iterator without the tuples. */
static void print_iters(Printer *P, const char *head, const IrIter *it, int n, TxBuf *out)
{
    tx_buf_printf(out, "T.%s[", head);
    if (n > 1)
        tx_buf_putc(out, '(');
    for (int i = 0; i < n; i++) {
        if (i)
            tx_buf_puts(out, ", ");
        pr_expr(P, it[i].extent, out);
    }
    tx_buf_puts(out, n > 1 ? "):(" : ":");
    for (int i = 0; i < n; i++) {
        if (i)
            tx_buf_puts(out, ", ");
        print_on_axis(P, it[i].stride, it[i].axis, 0, false, out);
    }
    tx_buf_puts(out, n > 1 ? ")]" : "]");
}

/* The offset terms joined by `+`, as the right operand of the spec's `+`. */
static void print_offset(Printer *P, const IrLayout *l, TxBuf *out)
{
    bool paren = l->noffset > 1;
    if (paren)
        tx_buf_putc(out, '(');
    for (int i = 0; i < l->noffset; i++) {
        if (i)
            tx_buf_puts(out, " + ");
        bool right = i > 0 || !paren;
        print_on_axis(P, l->offset[i].value, l->offset[i].axis, PR_PREC_ADD, right, out);
    }
    if (paren)
        tx_buf_putc(out, ')');
}

static void print_from_iters(Printer *P, const IrLayout *l, TxBuf *out)
{
    tx_buf_puts(out, "T.TileLayout.from_iters(");
    if (l->noffset) {
        tx_buf_puts(out, "offset={");
        for (int i = 0; i < l->noffset; i++) {
            if (i)
                tx_buf_puts(out, ", ");
            pr_string_literal(out, l->offset[i].axis);
            tx_buf_puts(out, ": ");
            pr_expr(P, l->offset[i].value, out);
        }
        tx_buf_putc(out, '}');
    }
    tx_buf_putc(out, ')');
}

void pr_layout(Printer *P, const IrLayout *l, TxBuf *out)
{
    if (l->kind == IR_LAYOUT_COMPOSE) {
        tx_buf_printf(out, "T.ComposeLayout(%d, %d, %d, ", l->per_element, l->swizzle_len,
                      l->atom_len);
        pr_layout(P, l->tile, out);
        tx_buf_puts(out, l->swizzle_inner ? ")" : ", swizzle_inner=False)");
        return;
    }
    if (!l->nshard && !l->nreplica) {
        print_from_iters(P, l, out);
        return;
    }
    tx_buf_puts(out, "T.TileLayout(");
    const char *sep = "";
    if (l->nshard)
        print_iters(P, "S", l->shard, l->nshard, out), sep = " + ";
    if (l->nreplica)
        tx_buf_puts(out, sep), print_iters(P, "R", l->replica, l->nreplica, out), sep = " + ";
    if (l->noffset)
        tx_buf_puts(out, sep), print_offset(P, l, out);
    tx_buf_putc(out, ')');
}

/* ================================================================ equality */

static bool iters_equal(const IrIter *a, const IrIter *b, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(a[i].axis, b[i].axis) || !ar_expr_equal(a[i].extent, b[i].extent) ||
            !ar_expr_equal(a[i].stride, b[i].stride))
            return false;
    return true;
}

bool pr_layout_equal(const IrLayout *a, const IrLayout *b)
{
    if (a == b)
        return true;
    if (!a || !b || a->kind != b->kind)
        return false;
    if (a->kind == IR_LAYOUT_COMPOSE)
        return a->per_element == b->per_element && a->swizzle_len == b->swizzle_len &&
               a->atom_len == b->atom_len && a->swizzle_inner == b->swizzle_inner &&
               pr_layout_equal(a->tile, b->tile);
    if (a->nshard != b->nshard || a->nreplica != b->nreplica || a->noffset != b->noffset)
        return false;
    for (int i = 0; i < a->noffset; i++)
        if (strcmp(a->offset[i].axis, b->offset[i].axis) ||
            !ar_expr_equal(a->offset[i].value, b->offset[i].value))
            return false;
    return iters_equal(a->shard, b->shard, a->nshard) &&
           iters_equal(a->replica, b->replica, a->nreplica);
}

/* The layout a buffer declaration gets when none is written. */
bool pr_layout_is_default(Printer *P, const IrLayout *l, IrExpr **shape, int ndim)
{
    return l && pr_layout_equal(l, ir_default_layout(&P->arena, shape, ndim));
}

bool pr_is_scalar_access(const IrExpr *buffer, IrExpr *const *indices, int n,
                         const IrExpr *predicate)
{
    bool at_zero = n == 0 || (n == 1 && indices[0]->kind == IR_E_INT &&
                              indices[0]->u.int_val == 0 && indices[0]->dtype.lanes == 1);
    return at_zero && !predicate && pr_is_scalar_buffer(buffer, false);
}

bool pr_is_scalar_buffer(const IrExpr *buffer, bool alloc_or_decl)
{
    const IrBufferType *b = ir_buf(buffer);
    if (b->ndim != 1 || !pr_is_int(b->shape[0], 1) || b->nstrides || b->align != 64 ||
        b->offset_factor != 1 || b->naddr || !b->layout)
        return false;
    if (alloc_or_decl && !pr_is_int(b->elem_offset, 0))
        return false;
    const IrLayout *l = b->layout;
    return l->kind == IR_LAYOUT_TILE && l->nshard == 1 && !l->nreplica && !l->noffset &&
           !strcmp(l->shard[0].axis, "m") && pr_is_int(l->shard[0].extent, 1) &&
           ir_dtype_eq(l->shard[0].extent->dtype, IR_INT32) && pr_is_int(l->shard[0].stride, 1) &&
           ir_dtype_eq(l->shard[0].stride->dtype, IR_INT32);
}
