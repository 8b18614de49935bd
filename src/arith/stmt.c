/* StmtSimplify over the one traversal (IrMutator): every expression goes
 * through ar_simplify under the facts of its position. Loops bind their
 * ranges, scope ids [0, extent), thread_extent attrs [0, value); if and
 * assert conditions are assumed where they hold; a provable if keeps its
 * live branch; a pure integer Bind is substituted into later expressions (the
 * Bind itself stays); buffer definitions are left as they are, to keep their
 * identities; a store of the same location's load becomes Evaluate(0), dropped
 * from its sequence.
 * Flat definitions scope to the end of their sequence. */
#include <string.h>

#include "internal.h"

static ArCtx *ctx_of(IrMutator *m) { return m->ctx; }

static IrStmt *copy_stmt(IrMutator *m, const IrStmt *s)
{
    return ir_stmt_copy(m->arena, s);
}

static IrStmt *evaluate_zero(IrMutator *m, TxSpan sp)
{
    IrStmt *s = ir_stmt(m->arena, IR_S_EVAL, sp);
    s->u.eval = ir_i32(m->arena, 0);
    return s;
}

/* A body in its own scope of facts. */
static IrStmt *scoped_body(IrMutator *m, IrStmt *body)
{
    if (!body)
        return NULL;
    ar_scope_push(ctx_of(m));
    IrStmt *r = ir_mutate_stmt(m, body);
    ar_scope_pop(ctx_of(m));
    return r;
}

/* A body under an assumed condition. */
static IrStmt *body_assuming(IrMutator *m, IrStmt *body, IrExpr *cond)
{
    if (!body)
        return NULL;
    ar_scope_push(ctx_of(m));
    ar_assume(ctx_of(m), cond);
    IrStmt *r = ir_mutate_stmt(m, body);
    ar_scope_pop(ctx_of(m));
    return r;
}

/* ---------------------------------------------------------------- purity */
static bool pure_op(IrOp op)
{
    /* op.def lists the elementwise math, bitwise and select ops first */
    return op <= IR_OP_LIKELY || op == IR_OP_REINTERPRET || op == IR_OP_CALL_PURE_EXTERN;
}

static bool pure(const IrExpr *e)
{
    if (!e)
        return true;
    if (IR_E_IS_BINARY(e->kind))
        return pure(e->u.op.a) && pure(e->u.op.b);
    switch (e->kind) {
    case IR_E_INT: case IR_E_FLOAT: case IR_E_VAR: return true;
    case IR_E_NOT: case IR_E_CAST: case IR_E_BROADCAST: return pure(e->u.op.a);
    case IR_E_RAMP: return pure(e->u.op.a) && pure(e->u.op.b);
    case IR_E_SELECT: return pure(e->u.op.cond) && pure(e->u.op.a) && pure(e->u.op.b);
    case IR_E_LET: return pure(e->u.op.a) && pure(e->u.op.b);
    case IR_E_CALL:
        if (!pure_op(e->u.call.op))
            return false;
        for (int i = 0; i < e->u.call.nargs; i++)
            if (!pure(e->u.call.args[i]))
                return false;
        return true;
    default: return false;
    }
}

/* ---------------------------------------------------------------- statements */
typedef TX_VEC(IrStmt *) StmtVec;

static IrStmt *simplify_seq(IrMutator *m, IrStmt *s)
{
    StmtVec out = {0};
    bool changed = false;
    ar_scope_push(ctx_of(m));
    for (int i = 0; i < s->u.seq.n; i++) {
        IrStmt *r = ir_mutate_stmt(m, s->u.seq.stmts[i]);
        changed |= r != s->u.seq.stmts[i];
        if (r->kind != IR_S_SEQ) {
            tx_vec_push(&out, r);
            continue;
        }
        for (int k = 0; k < r->u.seq.n; k++)
            tx_vec_push(&out, r->u.seq.stmts[k]);
    }
    ar_scope_pop(ctx_of(m));
    /* A store of a location's own load became a no-op: dropped, as the parser
     * drops `T.evaluate(0)` from a sequence. */
    int kept = 0;
    for (int i = 0; i < out.len; i++)
        if (!ir_stmt_is_no_op(out.items[i]))
            out.items[kept++] = out.items[i];
    changed |= kept != out.len;
    out.len = kept;
    if (changed && out.len <= 1) {
        IrStmt *r = out.len ? out.items[0] : evaluate_zero(m, s->span);
        tx_vec_free(&out);
        return r;
    }
    IrStmt *n = s;
    if (changed) {
        n = copy_stmt(m, s);
        n->u.seq.n = out.len;
        n->u.seq.stmts = tx_vec_to_arena(m->arena, &out);
    }
    tx_vec_free(&out);
    return n;
}

static IrStmt *simplify_for(IrMutator *m, IrStmt *s)
{
    ArCtx *c = ctx_of(m);
    IrExpr *min = ar_simplify(c, s->u.loop.min), *extent = ar_simplify(c, s->u.loop.extent);
    ar_scope_push(c);
    ar_bind_range(c, s->u.loop.var, min, extent);
    IrStmt *body = ir_mutate_stmt(m, s->u.loop.body);
    ar_scope_pop(c);
    if (min == s->u.loop.min && extent == s->u.loop.extent && body == s->u.loop.body)
        return s;
    IrStmt *n = copy_stmt(m, s);
    n->u.loop.min = min, n->u.loop.extent = extent, n->u.loop.body = body;
    return n;
}

static IrExpr *negation(IrMutator *m, IrExpr *cond)
{
    IrExpr *n = ir_node(m->arena, IR_E_NOT, IR_BOOL, cond->span);
    n->u.op.a = cond;
    return ar_simplify(ctx_of(m), n);
}

static IrStmt *simplify_if(IrMutator *m, IrStmt *s)
{
    IrExpr *cond = ar_simplify(ctx_of(m), s->u.ifs.cond);
    if (cond->kind == IR_E_INT) {
        IrStmt *live = cond->u.int_val ? s->u.ifs.then_s : s->u.ifs.else_s;
        return live ? scoped_body(m, live) : evaluate_zero(m, s->span);
    }
    IrStmt *then_s = body_assuming(m, s->u.ifs.then_s, cond);
    IrStmt *else_s = s->u.ifs.else_s ? body_assuming(m, s->u.ifs.else_s, negation(m, cond)) : NULL;
    if (cond == s->u.ifs.cond && then_s == s->u.ifs.then_s && else_s == s->u.ifs.else_s)
        return s;
    IrStmt *n = copy_stmt(m, s);
    n->u.ifs.cond = cond, n->u.ifs.then_s = then_s, n->u.ifs.else_s = else_s;
    return n;
}

static bool binds_thread(const IrStmt *s)
{
    return (!strcmp(s->u.attr.key, "thread_extent") || !strcmp(s->u.attr.key, "virtual_thread")) &&
           s->u.attr.node && s->u.attr.node->kind == IR_E_VAR;
}

static IrStmt *simplify_attr(IrMutator *m, IrStmt *s)
{
    ArCtx *c = ctx_of(m);
    IrExpr *value = s->u.attr.value ? ar_simplify(c, s->u.attr.value) : NULL;
    ar_scope_push(c);
    if (binds_thread(s) && value && ir_dtype_is_int(value->dtype))
        ar_bind_range(c, s->u.attr.node, ir_int(m->arena, value->dtype, 0, (TxSpan){0}), value);
    IrStmt *body = s->u.attr.body ? ir_mutate_stmt(m, s->u.attr.body) : NULL;
    ar_scope_pop(c);
    if (value == s->u.attr.value && body == s->u.attr.body)
        return s;
    IrStmt *n = copy_stmt(m, s);
    n->u.attr.value = value, n->u.attr.body = body;
    return n;
}

static IrStmt *simplify_while(IrMutator *m, IrStmt *s)
{
    IrExpr *cond = ar_simplify(ctx_of(m), s->u.whl.cond);
    IrStmt *body = scoped_body(m, s->u.whl.body);
    if (cond == s->u.whl.cond && body == s->u.whl.body)
        return s;
    IrStmt *n = copy_stmt(m, s);
    n->u.whl.cond = cond, n->u.whl.body = body;
    return n;
}

/* The value is simplified; a pure integer value is substituted later, any
 * other integer value contributes its bounds. */
static IrStmt *simplify_bind(IrMutator *m, IrStmt *s)
{
    ArCtx *c = ctx_of(m);
    IrExpr *value = ar_simplify(c, s->u.bind.value), *var = s->u.bind.var;
    bool integer = ir_dtype_is_int(value->dtype) || value->dtype.code == IR_DT_BOOL;
    int64_t lo, hi;
    if (integer && value->dtype.lanes == 1 && pure(value))
        ar_bind_value(c, var, value);
    else if (integer && ar_bound(c, value, &lo, &hi))
        ar_bind_bounds(c, var, lo, hi);
    if (value == s->u.bind.value)
        return s;
    IrStmt *n = copy_stmt(m, s);
    n->u.bind.value = value;
    return n;
}

static void bind_scope_ids(IrMutator *m, const IrStmt *s)
{
    if (!s->u.scopeid.extents)
        return;
    for (int i = 0; i < s->u.scopeid.nvars; i++) {
        IrExpr *ext = s->u.scopeid.extents[i];
        if (ext && ir_dtype_is_int(ext->dtype))
            ar_bind_range(ctx_of(m), s->u.scopeid.vars[i],
                          ir_int(m->arena, ext->dtype, 0, (TxSpan){0}), ext);
    }
}

static IrExpr **simplify_exprs(IrMutator *m, IrExpr **xs, int n)
{
    IrExpr **out = xs;
    for (int i = 0; i < n; i++) {
        IrExpr *r = ar_simplify(ctx_of(m), xs[i]);
        if (r == xs[i])
            continue;
        if (out == xs)
            out = tx_arena_memdup(m->arena, xs, sizeof *xs * (size_t)n);
        out[i] = r;
    }
    return out;
}

static bool same_location(const IrStmt *s, const IrExpr *load)
{
    if (load->kind != IR_E_LOAD || load->u.access.buffer != s->u.store.buffer ||
        load->u.access.n != s->u.store.n || load->u.access.predicate || s->u.store.predicate)
        return false;
    for (int i = 0; i < s->u.store.n; i++)
        if (!ar_expr_equal(load->u.access.indices[i], s->u.store.indices[i]))
            return false;
    return true;
}

static IrStmt *simplify_store(IrMutator *m, IrStmt *s)
{
    ArCtx *c = ctx_of(m);
    IrExpr **idx = simplify_exprs(m, s->u.store.indices, s->u.store.n);
    IrExpr *value = ar_simplify(c, s->u.store.value);
    IrExpr *pred = s->u.store.predicate ? ar_simplify(c, s->u.store.predicate) : NULL;
    IrStmt *n = s;
    if (idx != s->u.store.indices || value != s->u.store.value || pred != s->u.store.predicate) {
        n = copy_stmt(m, s);
        n->u.store.indices = idx, n->u.store.value = value, n->u.store.predicate = pred;
    }
    return same_location(n, value) ? evaluate_zero(m, s->span) : n;
}

static IrStmt *simplify_assert(IrMutator *m, IrStmt *s)
{
    IrExpr *cond = ar_simplify(ctx_of(m), s->u.assert_.cond);
    ar_assume(ctx_of(m), cond);
    if (cond == s->u.assert_.cond)
        return s;
    IrStmt *n = copy_stmt(m, s);
    n->u.assert_.cond = cond;
    return n;
}

/* A DeclBuffer's data address (a view at an element, `&A[i * 128 + 0 * 64]`
 * after unrolling) is simplified; the buffer itself is a definition and stays. */
static IrStmt *simplify_decl(IrMutator *m, IrStmt *s)
{
    IrExpr *data = s->u.decl.data ? ar_simplify(ctx_of(m), s->u.decl.data) : NULL;
    if (data == s->u.decl.data)
        return s;
    IrStmt *n = copy_stmt(m, s);
    n->u.decl.data = data;
    return n;
}

static IrStmt *stmt_hook(IrMutator *m, IrStmt *s)
{
    switch (s->kind) {
    case IR_S_SEQ: return simplify_seq(m, s);
    case IR_S_FOR: return simplify_for(m, s);
    case IR_S_IF: return simplify_if(m, s);
    case IR_S_ATTR: return simplify_attr(m, s);
    case IR_S_WHILE: return simplify_while(m, s);
    case IR_S_BIND: return simplify_bind(m, s);
    case IR_S_STORE: return simplify_store(m, s);
    case IR_S_ASSERT: return simplify_assert(m, s);
    case IR_S_SCOPEID: bind_scope_ids(m, s); return s;
    case IR_S_DECL: return simplify_decl(m, s);
    case IR_S_ALLOC: return s;
    default: return NULL;
    }
}

/* Expressions the simplifier does not own (regions, lists, lambdas) are
 * traversed; layouts are definitions and stay. */
static IrExpr *expr_hook(IrMutator *m, IrExpr *e)
{
    switch (e->kind) {
    case IR_E_REGION: case IR_E_LIST: case IR_E_DICT: case IR_E_LAMBDA: case IR_E_RANGE:
    case IR_E_INDEX_MAP: case IR_E_COMM_REDUCER: return NULL;
    case IR_E_LAYOUT: return e;
    default: return ar_simplify(ctx_of(m), e);
    }
}

IrStmt *ar_simplify_stmt(ArCtx *c, IrStmt *s)
{
    IrMutator m = {.ctx = c, .arena = c->arena, .expr = expr_hook, .stmt = stmt_hook};
    ar_scope_push(c);
    IrStmt *r = ir_mutate_stmt(&m, s);
    ar_scope_pop(c);
    ir_mutator_free(&m);
    return r;
}

/* Shapes of buffer params are non-negative. */
static void bind_param_shapes(ArCtx *c, const IrFunc *f)
{
    for (int i = 0; i < f->nparams; i++) {
        if (!ir_is_buffer(f->params[i]))
            continue;
        const IrBufferType *b = ir_buf(f->params[i]);
        for (int d = 0; d < b->ndim; d++)
            if (b->shape[d]->kind == IR_E_VAR)
                ar_bind_bounds(c, b->shape[d], 0, AR_POS_INF);
    }
}

IrFunc *ar_simplify_func(ArCtx *c, IrFunc *f)
{
    ar_scope_push(c);
    bind_param_shapes(c, f);
    IrStmt *body = f->body ? ar_simplify_stmt(c, f->body) : NULL;
    ar_scope_pop(c);
    if (body == f->body)
        return f;
    IrFunc *n = tx_arena_memdup(c->arena, f, sizeof *f);
    n->body = body;
    return n;
}
