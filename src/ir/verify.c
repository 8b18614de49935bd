/* The verifier: well-formedness of every function of a module, reported into
 * the module's diagnostics at the offending node's span.
 *
 * Definitions and scopes: a variable (a buffer too) must be defined before it
 * is used, and used only inside the scope of its definition; defining one
 * that is already defined is an error. Flat definitions (Bind, AllocBuffer,
 * DeclBuffer, ScopeIdDef) reach to the end of the enclosing sequence; loop,
 * branch, attribute and compose-op bodies open scopes (see visit.h). A
 * variable that is used but never defined in the function is free — symbolic
 * shapes in params, `n = T.int32()` lines, launch_thread vars — and legal.
 *
 * Types: both operands of a binary operator share a dtype; comparisons give
 * bool; and/or/not/select/assert/if_then_else/predicates take bool; if and
 * while take bool or an integer (the reference prints
 * `if T.cuda.elect_sync():`, a uint32 condition); buffer indices, region
 * extents, loop bounds and buffer-type fields are integers; a store's value
 * has the buffer's element type; a load or store has one index per dimension.
 * Launch checks live in verify_launch.c. */
#include "verify_launch.h"
#include "visit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct DefSite {
    const IrExpr *var;
    TxSpan span;
    bool live; /* its scope is open */
} DefSite;

typedef struct Verifier {
    TxDiags *diags;
    TxSpan func_span;
    IrPtrMap planned;  /* every variable the function defines -> its DefSite in `plan` */
    TX_VEC(DefSite) plan;
    IrPtrMap defs;     /* variables defined so far -> index into `sites` */
    TX_VEC(DefSite) sites;
    TX_VEC(int) scope_vars;  /* indices into `sites`, innermost scope last */
    TX_VEC(int) scope_marks; /* scope_vars.len when each open scope began */
    TX_VEC(TxSpan) spans;    /* the nearest enclosing node with a location */
    IrPtrMap reported; /* variables already reported as used too early */
    int loops;
    bool has_device_entry; /* the function has a T.device_entry() */
    int in_device_entry;   /* how many device_entry regions enclose the statement */
    IrLaunchCheck launch;
} Verifier;

static bool is_device_entry(const IrStmt *s)
{
    return s->kind == IR_S_ATTR && s->u.attr.key && !strcmp(s->u.attr.key, "tirx.device_entry");
}

static const char *var_name(const IrExpr *v)
{
    return v->u.var.name && v->u.var.name[0] ? v->u.var.name : "v";
}

static const char *dt(IrDType t, char *buf) { return ir_dtype_str(t, buf); }

/* The span to report at: the node's own, else the nearest located ancestor's. */
static TxSpan here(const Verifier *vf, TxSpan own)
{
    if (own.src)
        return own;
    return vf->spans.len ? vf->spans.items[vf->spans.len - 1] : vf->func_span;
}

/* An expression's own span; a variable's span is its definition's, not this use's. */
static TxSpan expr_span(const IrExpr *e)
{
    return e && e->kind != IR_E_VAR ? e->span : (TxSpan){0};
}

static void push_span(Verifier *vf, TxSpan own)
{
    TxSpan sp = here(vf, own); /* before the push: tx_vec_push's index and value are unsequenced */
    tx_vec_push(&vf->spans, sp);
}

/* ---------------------------------------------------------------- definitions */
static TxSpan def_span(const Verifier *vf, const IrExpr *var, const IrStmt *where)
{
    if (var->span.src)
        return var->span;
    return here(vf, where ? where->span : (TxSpan){0});
}

static void plan_def(IrVisitor *v, const IrExpr *var, const IrStmt *where)
{
    Verifier *vf = v->ctx;
    if (ir_ptrmap_get(&vf->planned, var, NULL))
        return;
    ir_ptrmap_put(&vf->planned, var, (uintptr_t)vf->plan.len);
    tx_vec_push(&vf->plan, ((DefSite){var, def_span(vf, var, where), false}));
}

static bool plan_stmt(IrVisitor *v, const IrStmt *s)
{
    Verifier *vf = v->ctx;
    vf->has_device_entry |= is_device_entry(s);
    return true;
}

/* In a function with a device region, a scope id outside it names nothing
 * the launch has: the host part runs once, on the CPU. It still counts for
 * the launch's checks, which would otherwise find no thread extent at all. */
static void check_scopeid(Verifier *vf, const IrStmt *s)
{
    if (vf->has_device_entry && !vf->in_device_entry)
        tx_error(vf->diags, TX_E_LAUNCH, here(vf, s->span),
                 "scope id '%s' is defined before T.device_entry(): scope ids describe the "
                 "launch and belong in the device region after it",
                 s->u.scopeid.nvars ? var_name(s->u.scopeid.vars[0]) : "?");
    ir_launch_scopeid(&vf->launch, s);
}

static void report_redefinition(Verifier *vf, const DefSite *prev, TxSpan sp)
{
    const char *name = var_name(prev->var);
    if (prev->live)
        tx_error(vf->diags, TX_E_REDEFINITION, sp, "redefinition of '%s'", name);
    else
        tx_error(vf->diags, TX_E_REDEFINITION, sp, "'%s' is defined more than once", name);
    tx_note(vf->diags, prev->span, "'%s' was first defined here", name);
}

static void check_buffer_type(Verifier *vf, const IrExpr *var, TxSpan sp);

static void on_def(IrVisitor *v, const IrExpr *var, const IrStmt *where)
{
    Verifier *vf = v->ctx;
    TxSpan sp = def_span(vf, var, where);
    uintptr_t i;
    if (ir_ptrmap_get(&vf->defs, var, &i)) {
        /* the variable's own span is its first definition; report at this one */
        report_redefinition(vf, &vf->sites.items[i], where ? here(vf, where->span) : sp);
        vf->sites.items[i].live = true;
    } else {
        i = (uintptr_t)vf->sites.len;
        ir_ptrmap_put(&vf->defs, var, i);
        tx_vec_push(&vf->sites, ((DefSite){var, sp, true}));
    }
    tx_vec_push(&vf->scope_vars, (int)i);
    check_buffer_type(vf, var, sp);
}

static void on_scope_enter(IrVisitor *v)
{
    Verifier *vf = v->ctx;
    tx_vec_push(&vf->scope_marks, vf->scope_vars.len);
}

static void on_scope_exit(IrVisitor *v)
{
    Verifier *vf = v->ctx;
    int mark = vf->scope_marks.items[--vf->scope_marks.len];
    while (vf->scope_vars.len > mark)
        vf->sites.items[vf->scope_vars.items[--vf->scope_vars.len]].live = false;
}

static void check_use(Verifier *vf, const IrExpr *var)
{
    uintptr_t i;
    const DefSite *site = NULL;
    const char *what = "before its definition";
    if (ir_ptrmap_get(&vf->defs, var, &i)) {
        site = &vf->sites.items[i];
        if (site->live)
            return;
        what = "outside the scope of its definition";
    } else if (ir_ptrmap_get(&vf->planned, var, &i)) {
        site = &vf->plan.items[i];
    }
    if (!site || ir_ptrmap_get(&vf->reported, var, NULL))
        return; /* a free variable, or already reported */
    ir_ptrmap_put(&vf->reported, var, 1);
    tx_error(vf->diags, TX_E_USE_BEFORE_DEF, here(vf, (TxSpan){0}), "use of '%s' %s",
             var_name(var), what);
    tx_note(vf->diags, site->span, "'%s' is defined here", var_name(var));
}

/* ---------------------------------------------------------------- dtype helpers */
static bool is_bool(IrDType t) { return t.code == IR_DT_BOOL; }

/* The span for a problem with expression e found at a node spanning sp. */
static TxSpan at_expr(const Verifier *vf, const IrExpr *e, TxSpan sp)
{
    TxSpan own = expr_span(e);
    return own.src ? own : here(vf, sp);
}

static void require_bool(Verifier *vf, const IrExpr *e, TxSpan sp, const char *what)
{
    char b[IR_DTYPE_STR_MAX];
    if (e && !is_bool(e->dtype))
        tx_error(vf->diags, TX_E_TYPE, at_expr(vf, e, sp), "%s must be a boolean, not %s", what,
                 dt(e->dtype, b));
}

static void require_int(Verifier *vf, const IrExpr *e, TxSpan sp, const char *what)
{
    char b[IR_DTYPE_STR_MAX];
    if (e && !ir_dtype_is_int(e->dtype))
        tx_error(vf->diags, TX_E_TYPE, at_expr(vf, e, sp), "%s must be an integer, not %s", what,
                 dt(e->dtype, b));
}

static void require_ints(Verifier *vf, IrExpr *const *xs, int n, TxSpan sp, const char *what)
{
    for (int i = 0; i < n; i++)
        require_int(vf, xs[i], sp, what);
}

/* A branch or loop condition: bool, or a scalar integer (C truthiness). */
static void check_condition(Verifier *vf, const IrExpr *cond, TxSpan sp, const char *what)
{
    char b[IR_DTYPE_STR_MAX];
    if (cond && cond->dtype.lanes == 1 && (is_bool(cond->dtype) || ir_dtype_is_int(cond->dtype)))
        return;
    if (cond)
        tx_error(vf->diags, TX_E_TYPE, at_expr(vf, cond, sp),
                 "the condition of %s must be a boolean or an integer, not %s", what,
                 dt(cond->dtype, b));
}

static void check_buffer_type(Verifier *vf, const IrExpr *var, TxSpan sp)
{
    const IrType *t = var->u.var.type;
    if (!t || t->kind != IR_TY_BUFFER || !t->buf)
        return;
    const IrBufferType *b = t->buf;
    require_ints(vf, b->shape, b->ndim, sp, "a buffer dimension");
    require_ints(vf, b->strides, b->nstrides, sp, "a buffer stride");
    require_int(vf, b->elem_offset, sp, "a buffer's elem_offset");
    require_ints(vf, b->allocated_addr, b->naddr, sp, "an allocated address");
}

/* ---------------------------------------------------------------- expressions */
static const char *const binop_spelling[] = {
    [IR_E_ADD] = "+",       [IR_E_SUB] = "-",        [IR_E_MUL] = "*",
    [IR_E_DIV] = "T.Div",   [IR_E_MOD] = "T.truncmod", [IR_E_FLOORDIV] = "//",
    [IR_E_FLOORMOD] = "%",  [IR_E_MIN] = "T.min",    [IR_E_MAX] = "T.max",
    [IR_E_EQ] = "==",       [IR_E_NE] = "!=",        [IR_E_LT] = "<",
    [IR_E_LE] = "<=",       [IR_E_GT] = ">",         [IR_E_GE] = ">=",
    [IR_E_AND] = "and",     [IR_E_OR] = "or",
};

static void check_binary(Verifier *vf, const IrExpr *e)
{
    const IrExpr *a = e->u.op.a, *b = e->u.op.b;
    const char *op = binop_spelling[e->kind];
    char b1[IR_DTYPE_STR_MAX], b2[IR_DTYPE_STR_MAX];
    TxSpan sp = here(vf, e->span);
    if (!a || !b)
        return;
    if (!ir_dtype_eq(a->dtype, b->dtype)) {
        tx_error(vf->diags, TX_E_TYPE, sp,
                 "operands of '%s' have different dtypes: %s and %s; convert one with T.Cast", op,
                 dt(a->dtype, b1), dt(b->dtype, b2));
        return;
    }
    if (e->kind == IR_E_AND || e->kind == IR_E_OR)
        require_bool(vf, a, e->span, "an operand of a logical operator");
    IrDType want = e->kind >= IR_E_EQ ? ir_dtype_with_lanes(IR_BOOL, a->dtype.lanes) : a->dtype;
    if (!ir_dtype_eq(e->dtype, want))
        tx_error(vf->diags, TX_E_TYPE, sp, "'%s' of %s operands must produce %s, not %s", op,
                 dt(a->dtype, b1), dt(want, b2), dt(e->dtype, b1));
}

static void check_select(Verifier *vf, const IrExpr *e)
{
    const IrExpr *c = e->u.op.cond, *a = e->u.op.a, *b = e->u.op.b;
    char b1[IR_DTYPE_STR_MAX], b2[IR_DTYPE_STR_MAX];
    require_bool(vf, c, e->span, "the condition of T.Select");
    if (a && b && !ir_dtype_eq(a->dtype, b->dtype))
        tx_error(vf->diags, TX_E_TYPE, here(vf, e->span),
                 "the branches of T.Select have different dtypes: %s and %s", dt(a->dtype, b1),
                 dt(b->dtype, b2));
}

static const IrBufferType *buffer_of(Verifier *vf, const IrExpr *buffer, TxSpan sp)
{
    if (ir_is_buffer(buffer) && ir_buf(buffer))
        return ir_buf(buffer);
    if (buffer)
        tx_error(vf->diags, TX_E_BUFFER, here(vf, sp), "'%s' is not a buffer",
                 buffer->kind == IR_E_VAR ? var_name(buffer) : "this expression");
    return NULL;
}

/* A shape-(1,) buffer may be accessed with no index (a scalar). */
static bool is_scalar_shape(const IrBufferType *b)
{
    int64_t n;
    return b->ndim == 1 && ir_const_int(b->shape[0], &n) && n == 1;
}

/* Indices of a load, store or region: integers, one per dimension (fewer for
 * a region, none for a scalar), only the last one a vector. */
static void check_indices(Verifier *vf, const IrExpr *buffer, IrExpr *const *idx, int n,
                          bool region, TxSpan sp)
{
    const IrBufferType *b = buffer_of(vf, buffer, sp);
    if (!b)
        return;
    bool count_ok = region ? n <= b->ndim : n == b->ndim || (n == 0 && is_scalar_shape(b));
    if (!count_ok)
        tx_error(vf->diags, TX_E_BUFFER, here(vf, sp),
                 "buffer '%s' has %d dimension%s but %d %s given",
                 var_name(buffer), b->ndim, b->ndim == 1 ? "" : "s", n,
                 n == 1 ? "index was" : "indices were");
    require_ints(vf, idx, n, sp, "a buffer index");
    for (int i = 0; i + 1 < n; i++)
        if (idx[i] && idx[i]->dtype.lanes > 1)
            tx_error(vf->diags, TX_E_BUFFER, here(vf, sp),
                     "only the last index of '%s' may be a vector",
                     var_name(buffer));
}

static void check_load(Verifier *vf, const IrExpr *e)
{
    const IrExpr *buf = e->u.access.buffer;
    check_indices(vf, buf, e->u.access.indices, e->u.access.n, e->kind == IR_E_REGION, e->span);
    if (e->kind == IR_E_REGION)
        require_ints(vf, e->u.access.extents, e->u.access.n, e->span, "a region extent");
    require_bool(vf, e->u.access.predicate, e->span, "a load predicate");
    char b1[IR_DTYPE_STR_MAX], b2[IR_DTYPE_STR_MAX];
    IrDType bt = ir_is_buffer(buf) ? buf->u.var.type->dtype : e->dtype;
    if (e->kind == IR_E_LOAD && (bt.code != e->dtype.code || bt.bits != e->dtype.bits))
        tx_error(vf->diags, TX_E_TYPE, here(vf, e->span), "a load of '%s' (%s) has dtype %s",
                 var_name(buf), dt(bt, b1), dt(e->dtype, b2));
}

/* "1 argument", "2 to 3 arguments", "at least 1 argument" */
static void arity_str(const IrOpInfo *info, char *buf, size_t len)
{
    int lo = info->min_args, hi = info->max_args;
    const char *plural = (hi < 0 ? lo : hi) == 1 ? "" : "s";
    if (hi < 0)
        snprintf(buf, len, "at least %d argument%s", lo, plural);
    else if (lo == hi)
        snprintf(buf, len, "%d argument%s", lo, plural);
    else
        snprintf(buf, len, "%d to %d arguments", lo, hi);
}

static void check_call(Verifier *vf, const IrExpr *e)
{
    const IrCall *c = &e->u.call;
    if (c->op >= IR_OP_COUNT)
        return;
    const IrOpInfo *info = &ir_ops[c->op];
    if (c->op != IR_OP_PTX && c->op != IR_OP_CALL_FUNC &&
        (c->nargs < info->min_args || (info->max_args >= 0 && c->nargs > info->max_args))) {
        char want[64];
        arity_str(info, want, sizeof want);
        tx_error(vf->diags, TX_E_ARGUMENTS, here(vf, e->span), "T.%s takes %s but %d %s given",
                 info->name, want,
                 c->nargs, c->nargs == 1 ? "was" : "were");
    }
    if (c->op == IR_OP_IF_THEN_ELSE && c->nargs >= 1)
        require_bool(vf, c->args[0], e->span, "the condition of T.if_then_else");
    if ((c->op == IR_OP_BREAK_LOOP || c->op == IR_OP_CONTINUE_LOOP) && !vf->loops)
        tx_error(vf->diags, TX_E_MALFORMED_IR, here(vf, e->span), "'%s' outside a loop",
                 c->op == IR_OP_BREAK_LOOP ? "break" : "continue");
    if (c->op == IR_OP_CALL_PACKED)
        ir_launch_tma_call(vf->diags, e, here(vf, e->span));
}

static void check_let(Verifier *vf, const IrExpr *e)
{
    const IrExpr *var = e->u.op.var, *val = e->u.op.a;
    char b1[IR_DTYPE_STR_MAX], b2[IR_DTYPE_STR_MAX];
    if (var && val && !ir_dtype_eq(var->dtype, val->dtype))
        tx_error(vf->diags, TX_E_TYPE, here(vf, e->span),
                 "T.Let binds a %s value to '%s' of dtype %s",
                 dt(val->dtype, b1), var_name(var), dt(var->dtype, b2));
}

static void check_expr(Verifier *vf, const IrExpr *e)
{
    if (IR_E_IS_BINARY(e->kind)) {
        check_binary(vf, e);
        return;
    }
    switch (e->kind) {
    case IR_E_NOT:
        require_bool(vf, e->u.op.a, e->span, "the operand of 'not'");
        break;
    case IR_E_SELECT:
        check_select(vf, e);
        break;
    case IR_E_RAMP: /* any scalar dtype (a float Ramp is a value); indices are checked as such */
        if (e->u.op.a && e->u.op.b && !ir_dtype_eq(e->u.op.a->dtype, e->u.op.b->dtype)) {
            char b1[IR_DTYPE_STR_MAX], b2[IR_DTYPE_STR_MAX];
            tx_error(vf->diags, TX_E_TYPE, here(vf, e->span),
                     "the base and stride of T.Ramp have different dtypes: %s and %s",
                     dt(e->u.op.a->dtype, b1), dt(e->u.op.b->dtype, b2));
        }
        break;
    case IR_E_LOAD: case IR_E_REGION:
        check_load(vf, e);
        break;
    case IR_E_CALL:
        check_call(vf, e);
        break;
    case IR_E_LET:
        check_let(vf, e);
        break;
    default:
        break;
    }
}

static bool on_expr(IrVisitor *v, const IrExpr *e)
{
    Verifier *vf = v->ctx;
    if (e->kind == IR_E_VAR) {
        check_use(vf, e);
        return true;
    }
    push_span(vf, e->span);
    check_expr(vf, e);
    return true;
}

static void on_expr_post(IrVisitor *v, const IrExpr *e)
{
    Verifier *vf = v->ctx;
    if (e->kind != IR_E_VAR)
        vf->spans.len--;
}

/* ---------------------------------------------------------------- statements */
static void check_bind(Verifier *vf, const IrStmt *s)
{
    const IrExpr *var = s->u.bind.var, *val = s->u.bind.value;
    char b1[IR_DTYPE_STR_MAX], b2[IR_DTYPE_STR_MAX];
    if (var->u.var.type->kind == IR_TY_PRIM && val && !ir_dtype_eq(var->dtype, val->dtype))
        tx_error(vf->diags, TX_E_TYPE, here(vf, s->span),
                 "cannot bind a %s value to '%s' of type %s",
                 dt(val->dtype, b1), var_name(var), dt(var->dtype, b2));
}

/* A pointer stored as a 64-bit integer (the reference prints
 * `A[0] = T.address_of(tmap)` into a uint64 buffer). */
static bool pointer_as_integer(IrDType value, IrDType buffer)
{
    return value.code == IR_DT_HANDLE && ir_dtype_is_int(buffer) && buffer.bits == 64;
}

static void check_store(Verifier *vf, const IrStmt *s)
{
    const IrExpr *buf = s->u.store.buffer, *val = s->u.store.value;
    check_indices(vf, buf, s->u.store.indices, s->u.store.n, false, s->span);
    require_bool(vf, s->u.store.predicate, s->span, "a store predicate");
    if (!ir_is_buffer(buf) || !val)
        return;
    IrDType bt = buf->u.var.type->dtype, vt = val->dtype;
    bool vector_index = false;
    for (int i = 0; i < s->u.store.n; i++)
        vector_index |= s->u.store.indices[i] && s->u.store.indices[i]->dtype.lanes > 1;
    char b1[IR_DTYPE_STR_MAX], b2[IR_DTYPE_STR_MAX];
    TxSpan sp = at_expr(vf, val, s->span);
    if (pointer_as_integer(vt, bt))
        return;
    if (bt.code != vt.code || bt.bits != vt.bits)
        tx_error(vf->diags, TX_E_TYPE, sp,
                 "cannot store a %s value into '%s', a buffer of %s; convert it with "
                 "T.Cast(\"%s\", ...)", dt(vt, b1), var_name(buf), dt(bt, b2), b2);
    else if (!vector_index && bt.lanes != vt.lanes)
        tx_error(vf->diags, TX_E_TYPE, sp, "cannot store a %s value into '%s', a buffer of %s",
                 dt(vt, b1), var_name(buf), dt(bt, b2));
}

static void check_loop_bounds(Verifier *vf, const IrStmt *s)
{
    const IrExpr *var = s->u.loop.var;
    const IrExpr *bounds[] = {s->u.loop.min, s->u.loop.extent, s->u.loop.step};
    char b1[IR_DTYPE_STR_MAX], b2[IR_DTYPE_STR_MAX];
    require_int(vf, var, s->span, "a loop variable");
    for (size_t i = 0; i < TX_ARRAY_LEN(bounds); i++) {
        if (!bounds[i] || ir_dtype_eq(bounds[i]->dtype, var->dtype))
            continue;
        tx_error(vf->diags, TX_E_TYPE, here(vf, s->span),
                 "the bounds of loop '%s' are %s but the loop variable is %s", var_name(var),
                 dt(bounds[i]->dtype, b1), dt(var->dtype, b2));
        return;
    }
    if (s->u.loop.kind == IR_FOR_THREAD_BINDING)
        ir_launch_thread_tag(&vf->launch, s, s->u.loop.thread, s->u.loop.extent);
}

/* `T.launch_thread(tag, extent)`: thread_extent/virtual_thread on a variable. */
static void check_launch_thread(Verifier *vf, const IrStmt *s)
{
    const IrExpr *node = s->u.attr.node;
    if (!s->u.attr.key || !node || node->kind != IR_E_VAR ||
        (strcmp(s->u.attr.key, "thread_extent") && strcmp(s->u.attr.key, "virtual_thread")))
        return;
    require_int(vf, s->u.attr.value, s->span, "a thread extent");
    if (!strcmp(s->u.attr.key, "thread_extent"))
        ir_launch_thread_tag(&vf->launch, s,
                             s->u.attr.thread_tag ? s->u.attr.thread_tag : node->u.var.name,
                             s->u.attr.value);
}

static void check_jump(Verifier *vf, const IrStmt *s)
{
    if (!vf->loops)
        tx_error(vf->diags, TX_E_MALFORMED_IR, here(vf, s->span), "'%s' outside a loop",
                 s->kind == IR_S_BREAK ? "break" : "continue");
}

static void check_stmt(Verifier *vf, const IrStmt *s)
{
    switch (s->kind) {
    case IR_S_BIND:
        check_bind(vf, s);
        break;
    case IR_S_ALLOC:
        buffer_of(vf, s->u.alloc.buffer, s->span);
        break;
    case IR_S_DECL:
        buffer_of(vf, s->u.decl.buffer, s->span);
        break;
    case IR_S_SCOPEID:
        check_scopeid(vf, s);
        break;
    case IR_S_FOR:
        check_loop_bounds(vf, s);
        break;
    case IR_S_WHILE:
        check_condition(vf, s->u.whl.cond, s->span, "'while'");
        break;
    case IR_S_IF:
        check_condition(vf, s->u.ifs.cond, s->span, "'if'");
        break;
    case IR_S_STORE:
        check_store(vf, s);
        break;
    case IR_S_ATTR:
        check_launch_thread(vf, s);
        break;
    case IR_S_BREAK: case IR_S_CONTINUE:
        check_jump(vf, s);
        break;
    case IR_S_ASSERT:
        require_bool(vf, s->u.assert_.cond, s->span, "the condition of 'assert'");
        break;
    default:
        break;
    }
}

static bool on_stmt(IrVisitor *v, const IrStmt *s)
{
    Verifier *vf = v->ctx;
    push_span(vf, s->span);
    check_stmt(vf, s);
    vf->loops += s->kind == IR_S_FOR || s->kind == IR_S_WHILE;
    vf->in_device_entry += is_device_entry(s);
    return true;
}

static void on_stmt_post(IrVisitor *v, const IrStmt *s)
{
    Verifier *vf = v->ctx;
    vf->spans.len--;
    vf->loops -= s->kind == IR_S_FOR || s->kind == IR_S_WHILE;
    vf->in_device_entry -= is_device_entry(s);
}

/* ---------------------------------------------------------------- driver */
static void verifier_free(Verifier *vf)
{
    ir_ptrmap_free(&vf->planned);
    ir_ptrmap_free(&vf->defs);
    ir_ptrmap_free(&vf->reported);
    tx_vec_free(&vf->plan);
    tx_vec_free(&vf->sites);
    tx_vec_free(&vf->scope_vars);
    tx_vec_free(&vf->scope_marks);
    tx_vec_free(&vf->spans);
}

static void verify_func(TxDiags *diags, const IrFunc *f)
{
    Verifier vf = {.diags = diags, .func_span = f->span};
    IrVisitor plan = {.ctx = &vf, .def = plan_def, .stmt = plan_stmt};
    ir_visit_func(&plan, f);
    ir_launch_begin(&vf.launch, diags);
    IrVisitor check = {.ctx = &vf, .expr = on_expr, .stmt = on_stmt, .def = on_def,
                       .expr_post = on_expr_post, .stmt_post = on_stmt_post,
                       .scope_enter = on_scope_enter, .scope_exit = on_scope_exit};
    ir_visit_func(&check, f);
    ir_launch_end(&vf.launch);
    verifier_free(&vf);
}

bool ir_verify(IrModule *m)
{
    int before = m->diags.nerrors;
    for (int i = 0; i < m->nfuncs; i++)
        verify_func(&m->diags, m->funcs[i]);
    return m->diags.nerrors == before;
}
