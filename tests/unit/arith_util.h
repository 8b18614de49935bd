/* Helpers for the arith unit tests: a small parser of Python-style index
 * expressions over declared variables ("i:int32[0,16) n:int64 u:uint32"),
 * building plain nodes (operands type-matched, nothing folded), and an infix
 * printer in TVMScript's precedence, so test vectors read as text:
 *   expect("i*64 + j", "i * 64 + j").
 * Functions: min, max, select(c,a,b), truncdiv, truncmod, ite(c,a,b)
 * (if_then_else), i32/i64/u32 (casts), and the operators & | ^ << >>. */
#ifndef TX_TESTS_ARITH_UTIL_H
#define TX_TESTS_ARITH_UTIL_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"

#define AT_MAX_VARS 16

typedef struct AtVar {
    char name[16];
    IrExpr *var;
    bool ranged;
    int64_t lo, hi; /* inclusive */
    int bound_by;   /* [lo, that variable): index of a variable declared before, or -1 */
} AtVar;

typedef struct AtEnv {
    IrModule *m;
    ArCtx ctx;
    AtVar vars[AT_MAX_VARS];
    int nvars;
    const char *p; /* parse position */
} AtEnv;

/* ---------------------------------------------------------------- declarations */
static inline AtVar *at_find(AtEnv *E, const char *name, size_t n)
{
    for (int i = 0; i < E->nvars; i++)
        if (strlen(E->vars[i].name) == n && !strncmp(E->vars[i].name, name, n))
            return &E->vars[i];
    return NULL;
}

/* "i:int32[0,16) n:int64 u:uint32[0,100) j:int32[0,n)": [lo, hi) ranges are
 * bound in the context; a named end is a symbolic extent (n - lo). */
static inline void at_declare(AtEnv *E, const char *decls)
{
    const char *p = decls;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        AtVar *v = &E->vars[E->nvars++];
        size_t n = strcspn(p, ":");
        memcpy(v->name, p, n);
        v->name[n] = 0;
        p += n + 1;
        size_t tn = strcspn(p, "[ ");
        IrDType t;
        if (!ir_dtype_parse(p, tn, &t))
            abort();
        p += tn;
        v->var = ir_var(&E->m->arena, v->name, ir_prim_type(&E->m->arena, t), (TxSpan){0});
        v->bound_by = -1;
        long long lo;
        char end[16];
        int used = 0;
        if (*p == '[' && sscanf(p, "[%lld,%15[a-z])%n", &lo, end, &used) == 2 && used) {
            p += used;
            AtVar *n = at_find(E, end, strlen(end));
            if (!n)
                abort();
            v->lo = lo, v->bound_by = (int)(n - E->vars);
            IrExpr *l = ir_int(&E->m->arena, t, lo, (TxSpan){0});
            ar_bind_range(&E->ctx, v->var, l,
                          ir_binary(&E->m->arena, IR_E_SUB, n->var, l, (TxSpan){0}));
        } else if (*p == '[') {
            long long lo, hi;
            int used = 0;
            if (sscanf(p, "[%lld,%lld)%n", &lo, &hi, &used) != 2)
                abort();
            p += used;
            v->ranged = true, v->lo = lo, v->hi = hi - 1;
            ar_bind_range(&E->ctx, v->var, ir_int(&E->m->arena, t, lo, (TxSpan){0}),
                          ir_int(&E->m->arena, t, hi - lo, (TxSpan){0}));
        }
    }
}

static inline AtEnv *at_env(const char *decls)
{
    AtEnv *E = calloc(1, sizeof *E);
    E->m = ir_module_new();
    ar_ctx_init(&E->ctx, &E->m->arena);
    at_declare(E, decls);
    return E;
}

static inline void at_env_free(AtEnv *E)
{
    ar_ctx_free(&E->ctx);
    ir_module_free(E->m);
    free(E);
}

static inline IrExpr *at_var(AtEnv *E, const char *name)
{
    AtVar *v = at_find(E, name, strlen(name));
    return v ? v->var : NULL;
}

/* ---------------------------------------------------------------- parsing */
static inline IrExpr *at_expr(AtEnv *E);

static inline void at_skip(AtEnv *E)
{
    while (*E->p == ' ')
        E->p++;
}

static inline bool at_eat(AtEnv *E, const char *tok)
{
    at_skip(E);
    size_t n = strlen(tok);
    if (strncmp(E->p, tok, n) != 0)
        return false;
    if (isalpha((unsigned char)tok[0]) && isalnum((unsigned char)E->p[n]))
        return false;
    E->p += n;
    return true;
}

static inline IrExpr *at_bin(AtEnv *E, IrExprKind k, IrExpr *x, IrExpr *y)
{
    const char *err = NULL;
    if (!ar_match_types(&E->m->arena, &x, &y, &err))
        abort();
    return ir_binary(&E->m->arena, k, x, y, (TxSpan){0});
}

static inline IrExpr *at_call(AtEnv *E, IrOp op, IrDType t, int n, IrExpr **args)
{
    IrExpr *e = ir_node(&E->m->arena, IR_E_CALL, t, (TxSpan){0});
    e->u.call.op = op, e->u.call.nargs = n;
    e->u.call.args = tx_arena_memdup(&E->m->arena, args, sizeof *args * (size_t)n);
    return e;
}

static inline int at_args(AtEnv *E, IrExpr **args)
{
    int n = 0;
    if (!at_eat(E, "("))
        abort();
    while (!at_eat(E, ")")) {
        args[n++] = at_expr(E);
        at_eat(E, ",");
    }
    return n;
}

static inline IrExpr *at_cast(AtEnv *E, IrDType t, IrExpr *x)
{
    IrExpr *c = ir_node(&E->m->arena, IR_E_CAST, t, (TxSpan){0});
    c->u.op.a = x;
    return c;
}

static inline IrExpr *at_function(AtEnv *E, const char *name, size_t n)
{
    IrExpr *a[4];
    int k = at_args(E, a);
#define AT_IS(s) (n == strlen(s) && !strncmp(name, s, n))
    if (AT_IS("min") && k == 2) return at_bin(E, IR_E_MIN, a[0], a[1]);
    if (AT_IS("max") && k == 2) return at_bin(E, IR_E_MAX, a[0], a[1]);
    if (AT_IS("truncdiv") && k == 2) return at_bin(E, IR_E_DIV, a[0], a[1]);
    if (AT_IS("truncmod") && k == 2) return at_bin(E, IR_E_MOD, a[0], a[1]);
    if (AT_IS("i32") && k == 1) return at_cast(E, IR_INT32, a[0]);
    if (AT_IS("i64") && k == 1) return at_cast(E, IR_INT64, a[0]);
    if (AT_IS("u32") && k == 1) return at_cast(E, IR_UINT32, a[0]);
    if (AT_IS("ite") && k == 3) {
        const char *err = NULL;
        ar_match_types(&E->m->arena, &a[1], &a[2], &err);
        return at_call(E, IR_OP_IF_THEN_ELSE, a[1]->dtype, 3, a);
    }
    if (AT_IS("select") && k == 3) {
        const char *err = NULL;
        ar_match_types(&E->m->arena, &a[1], &a[2], &err);
        IrExpr *s = ir_node(&E->m->arena, IR_E_SELECT, a[1]->dtype, (TxSpan){0});
        s->u.op.cond = a[0], s->u.op.a = a[1], s->u.op.b = a[2];
        return s;
    }
#undef AT_IS
    abort();
}

static inline IrExpr *at_atom(AtEnv *E)
{
    at_skip(E);
    if (at_eat(E, "(")) {
        IrExpr *e = at_expr(E);
        if (!at_eat(E, ")"))
            abort();
        return e;
    }
    if (isdigit((unsigned char)*E->p)) {
        char *end;
        long long v = strtoll(E->p, &end, 10);
        E->p = end;
        if (*E->p == 'u') { /* 7u: a uint32 literal */
            E->p++;
            return ir_int(&E->m->arena, IR_UINT32, v, (TxSpan){0});
        }
        return ir_int(&E->m->arena, v > INT32_MAX ? IR_INT64 : IR_INT32, v, (TxSpan){0});
    }
    const char *s = E->p;
    while (isalnum((unsigned char)*E->p) || *E->p == '_')
        E->p++;
    size_t n = (size_t)(E->p - s);
    at_skip(E);
    if (*E->p == '(')
        return at_function(E, s, n);
    if (n == 4 && !strncmp(s, "True", 4))
        return ir_int(&E->m->arena, IR_BOOL, 1, (TxSpan){0});
    if (n == 5 && !strncmp(s, "False", 5))
        return ir_int(&E->m->arena, IR_BOOL, 0, (TxSpan){0});
    AtVar *v = at_find(E, s, n);
    if (!v)
        abort();
    return v->var;
}

static inline IrExpr *at_unary(AtEnv *E)
{
    if (at_eat(E, "-")) {
        IrExpr *x = at_unary(E);
        if (x->kind == IR_E_INT)
            return ir_int(&E->m->arena, x->dtype, -x->u.int_val, (TxSpan){0});
        return at_bin(E, IR_E_SUB, ir_int(&E->m->arena, x->dtype, 0, (TxSpan){0}), x);
    }
    return at_atom(E);
}

/* One level of left-associative binary operators. */
typedef struct AtOp {
    const char *tok;
    int kind; /* IrExprKind, or -1 - IrOp for a bitwise call */
} AtOp;

static inline IrExpr *at_level(AtEnv *E, int level);

static inline IrExpr *at_apply(AtEnv *E, int kind, IrExpr *x, IrExpr *y)
{
    if (kind >= 0)
        return at_bin(E, (IrExprKind)kind, x, y);
    const char *err = NULL;
    ar_match_types(&E->m->arena, &x, &y, &err);
    IrExpr *a[2] = {x, y};
    return at_call(E, (IrOp)(-1 - kind), x->dtype, 2, a);
}

static const AtOp at_levels[][6] = {
    {{"or", IR_E_OR}},
    {{"and", IR_E_AND}},
    {{"<=", IR_E_LE}, {">=", IR_E_GE}, {"==", IR_E_EQ}, {"!=", IR_E_NE}, {"<", IR_E_LT},
     {">", IR_E_GT}},
    {{"|", -1 - IR_OP_BITWISE_OR}},
    {{"^", -1 - IR_OP_BITWISE_XOR}},
    {{"&", -1 - IR_OP_BITWISE_AND}},
    {{"<<", -1 - IR_OP_SHIFT_LEFT}, {">>", -1 - IR_OP_SHIFT_RIGHT}},
    {{"+", IR_E_ADD}, {"-", IR_E_SUB}},
    {{"*", IR_E_MUL}, {"//", IR_E_FLOORDIV}, {"%", IR_E_FLOORMOD}},
};
#define AT_NLEVELS ((int)(sizeof at_levels / sizeof at_levels[0]))

static inline IrExpr *at_level(AtEnv *E, int level)
{
    if (level == AT_NLEVELS)
        return at_unary(E);
    if (level == 2 && at_eat(E, "not")) {
        IrExpr *n = ir_node(&E->m->arena, IR_E_NOT, IR_BOOL, (TxSpan){0});
        n->u.op.a = at_level(E, 2);
        return n;
    }
    IrExpr *x = at_level(E, level + 1);
    for (;;) {
        int kind = -1000;
        for (int i = 0; i < 6 && at_levels[level][i].tok; i++) {
            /* "<" must not eat "<<" or "<="; "*" must not eat "**" */
            const char *t = at_levels[level][i].tok;
            at_skip(E);
            if (E->p[0] != t[0])
                continue;
            if (!strcmp(t, "<") && (E->p[1] == '<' || E->p[1] == '='))
                continue;
            if (!strcmp(t, ">") && (E->p[1] == '>' || E->p[1] == '='))
                continue;
            if (at_eat(E, t)) {
                kind = at_levels[level][i].kind;
                break;
            }
        }
        if (kind == -1000)
            return x;
        x = at_apply(E, kind, x, at_level(E, level + 1));
    }
}

static inline IrExpr *at_expr(AtEnv *E) { return at_level(E, 0); }

static inline IrExpr *at_parse(AtEnv *E, const char *text)
{
    E->p = text;
    IrExpr *e = at_expr(E);
    at_skip(E);
    if (*E->p)
        abort();
    return e;
}

/* ---------------------------------------------------------------- printing */
static inline int at_prec(const IrExpr *e, const char **tok)
{
    static const struct { IrExprKind k; const char *tok; int prec; } ops[] = {
        {IR_E_OR, "or", 1}, {IR_E_AND, "and", 2}, {IR_E_EQ, "==", 4}, {IR_E_NE, "!=", 4},
        {IR_E_LT, "<", 4}, {IR_E_LE, "<=", 4}, {IR_E_GT, ">", 4}, {IR_E_GE, ">=", 4},
        {IR_E_ADD, "+", 9}, {IR_E_SUB, "-", 9}, {IR_E_MUL, "*", 10},
        {IR_E_FLOORDIV, "//", 10}, {IR_E_FLOORMOD, "%", 10},
    };
    static const struct { IrOp op; const char *tok; int prec; } calls[] = {
        {IR_OP_BITWISE_OR, "|", 5}, {IR_OP_BITWISE_XOR, "^", 6}, {IR_OP_BITWISE_AND, "&", 7},
        {IR_OP_SHIFT_LEFT, "<<", 8}, {IR_OP_SHIFT_RIGHT, ">>", 8},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (e->kind == ops[i].k)
            return *tok = ops[i].tok, ops[i].prec;
    if (e->kind == IR_E_CALL && e->u.call.nargs == 2)
        for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
            if (e->u.call.op == calls[i].op)
                return *tok = calls[i].tok, calls[i].prec;
    return 0;
}

static inline void at_print(TxBuf *b, const IrExpr *e, int ctx);

static inline void at_print_args(TxBuf *b, const char *name, IrExpr *const *args, int n)
{
    tx_buf_printf(b, "%s(", name);
    for (int i = 0; i < n; i++) {
        if (i)
            tx_buf_puts(b, ", ");
        at_print(b, args[i], 0);
    }
    tx_buf_putc(b, ')');
}

static inline void at_print(TxBuf *b, const IrExpr *e, int ctx)
{
    const char *tok;
    int prec = at_prec(e, &tok);
    if (prec) {
        const IrExpr *x = e->kind == IR_E_CALL ? e->u.call.args[0] : e->u.op.a;
        const IrExpr *y = e->kind == IR_E_CALL ? e->u.call.args[1] : e->u.op.b;
        if (prec < ctx)
            tx_buf_putc(b, '(');
        at_print(b, x, prec == 4 ? 5 : prec);
        tx_buf_printf(b, " %s ", tok);
        at_print(b, y, prec + 1);
        if (prec < ctx)
            tx_buf_putc(b, ')');
        return;
    }
    char dt[IR_DTYPE_STR_MAX];
    switch (e->kind) {
    case IR_E_INT:
        if (e->dtype.code == IR_DT_BOOL)
            tx_buf_puts(b, e->u.int_val ? "True" : "False");
        else
            tx_buf_printf(b, e->u.int_val < 0 && ctx > 0 ? "(%lld)" : "%lld",
                          (long long)e->u.int_val);
        break;
    case IR_E_VAR: tx_buf_puts(b, e->u.var.name); break;
    case IR_E_MIN: case IR_E_MAX: case IR_E_DIV: case IR_E_MOD: {
        IrExpr *a[2] = {e->u.op.a, e->u.op.b};
        at_print_args(b, e->kind == IR_E_MIN ? "min" : e->kind == IR_E_MAX ? "max"
                         : e->kind == IR_E_DIV ? "truncdiv" : "truncmod", a, 2);
        break;
    }
    case IR_E_NOT:
        if (ctx > 3)
            tx_buf_putc(b, '(');
        tx_buf_puts(b, "not ");
        at_print(b, e->u.op.a, 3);
        if (ctx > 3)
            tx_buf_putc(b, ')');
        break;
    case IR_E_SELECT: {
        IrExpr *a[3] = {e->u.op.cond, e->u.op.a, e->u.op.b};
        at_print_args(b, "select", a, 3);
        break;
    }
    case IR_E_CAST:
        tx_buf_printf(b, "%s(", ir_dtype_str(e->dtype, dt));
        at_print(b, e->u.op.a, 0);
        tx_buf_putc(b, ')');
        break;
    case IR_E_LET:
        tx_buf_printf(b, "let %s = ", e->u.op.var->u.var.name);
        at_print(b, e->u.op.a, 0);
        tx_buf_puts(b, " in ");
        at_print(b, e->u.op.b, 0);
        break;
    case IR_E_CALL:
        at_print_args(b, e->u.call.op == IR_OP_IF_THEN_ELSE ? "ite" : ir_ops[e->u.call.op].name,
                      e->u.call.args, e->u.call.nargs);
        break;
    case IR_E_LOAD:
        at_print_args(b, e->u.access.buffer->u.var.name, e->u.access.indices, e->u.access.n);
        break;
    default: tx_buf_puts(b, "<?>"); break;
    }
}

/* The printed form of e, in the module's arena. */
static inline const char *at_str(AtEnv *E, const IrExpr *e)
{
    TxBuf b = {0};
    at_print(&b, e, 0);
    char *s = tx_buf_take(&b);
    const char *r = tx_arena_strdup(&E->m->arena, s ? s : "");
    free(s);
    return r;
}

/* simplify(parse(in)) printed. */
static inline const char *at_simplify_str(AtEnv *E, const char *in)
{
    return at_str(E, ar_simplify(&E->ctx, at_parse(E, in)));
}

#endif
