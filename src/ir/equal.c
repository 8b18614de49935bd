/* Structural equality and hashing of functions and modules. One walker serves
 * both: it walks two trees in lockstep and compares each field, or, in
 * hashing mode, walks one tree (a == b) and mixes each field into the hash,
 * so the hash can never disagree with the equality.
 *
 * Alpha-renaming: every variable gets an index the first time the walk meets
 * it, at its definition for bound variables and at its first use for free
 * ones; two variables match when their indices match. Names and spans are
 * ignored; dtypes, types, scopes, layouts, keyword arguments, strings, PTX
 * slots and markers are compared, floats bit for bit. */
#include "visit.h"

#include <string.h>

typedef struct Eq {
    bool hashing;
    uint64_t h;
    IrPtrMap ia, ib; /* variable -> index */
    uintptr_t next;
} Eq;

static bool eq_expr(Eq *q, const IrExpr *a, const IrExpr *b);
static bool eq_stmt(Eq *q, const IrStmt *a, const IrStmt *b);
static bool eq_type(Eq *q, const IrType *a, const IrType *b);

/* ---------------------------------------------------------------- leaves */
static bool eq_u64(Eq *q, uint64_t x, uint64_t y)
{
    if (q->hashing) {
        q->h = tx_hash_mix(q->h, x);
        return true;
    }
    return x == y;
}

static bool eq_str(Eq *q, const char *x, const char *y)
{
    if (q->hashing) {
        q->h = tx_hash_mix(q->h, x ? tx_hash_bytes(x, strlen(x), 0) : 0);
        return true;
    }
    return x == y || (x && y && !strcmp(x, y));
}

static bool eq_float(Eq *q, double x, double y)
{
    uint64_t bx, by;
    memcpy(&bx, &x, sizeof bx);
    memcpy(&by, &y, sizeof by);
    return eq_u64(q, bx, by);
}

static bool eq_dtype(Eq *q, IrDType x, IrDType y)
{
    return eq_u64(q, x.code, y.code) && eq_u64(q, x.bits, y.bits) &&
           eq_u64(q, x.lanes, y.lanes);
}

/* At a NULL the walk stops: equal when both are NULL. */
#define EQ_STOP_AT_NULL(q, a, b)                \
    do {                                        \
        if (!(a) || !(b))                       \
            return eq_u64((q), !(a), !(b));     \
    } while (0)

static bool eq_exprs(Eq *q, IrExpr *const *a, IrExpr *const *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!eq_expr(q, a[i], b[i]))
            return false;
    return true;
}

static bool eq_kwargs(Eq *q, const IrKwarg *a, const IrKwarg *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!eq_str(q, a[i].key, b[i].key) || !eq_expr(q, a[i].value, b[i].value))
            return false;
    return true;
}

static bool eq_strs(Eq *q, const char *const *a, const char *const *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!eq_str(q, a[i], b[i]))
            return false;
    return true;
}

/* ---------------------------------------------------------------- variables */
static uintptr_t var_index(const IrPtrMap *m, const IrExpr *v)
{
    uintptr_t i = 0;
    ir_ptrmap_get(m, v, &i);
    return i;
}

static void bind_pair(Eq *q, const IrExpr *a, const IrExpr *b)
{
    q->next++;
    ir_ptrmap_put(&q->ia, a, q->next);
    ir_ptrmap_put(&q->ib, b, q->next);
}

/* A definition: both variables take the next index (or must already share
 * one), then their types are compared. */
static bool eq_def(Eq *q, const IrExpr *a, const IrExpr *b)
{
    uintptr_t ia = var_index(&q->ia, a), ib = var_index(&q->ib, b);
    if (!ia && !ib)
        bind_pair(q, a, b);
    else if (!eq_u64(q, ia, ib))
        return false;
    return eq_dtype(q, a->dtype, b->dtype);
}

static bool eq_def_typed(Eq *q, const IrExpr *a, const IrExpr *b)
{
    return eq_def(q, a, b) && eq_type(q, a->u.var.type, b->u.var.type);
}

static bool eq_defs_typed(Eq *q, IrExpr *const *a, IrExpr *const *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!eq_def_typed(q, a[i], b[i]))
            return false;
    return true;
}

/* A use: a free variable met for the first time is bound here (its type
 * compared once); otherwise the indices must agree. */
static bool eq_use(Eq *q, const IrExpr *a, const IrExpr *b)
{
    uintptr_t ia = var_index(&q->ia, a), ib = var_index(&q->ib, b);
    if (ia || ib)
        return eq_u64(q, ia, ib);
    bind_pair(q, a, b);
    return eq_type(q, a->u.var.type, b->u.var.type);
}

/* ---------------------------------------------------------------- types and layouts */
static bool eq_iters(Eq *q, const IrIter *a, const IrIter *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!eq_expr(q, a[i].extent, b[i].extent) || !eq_expr(q, a[i].stride, b[i].stride) ||
            !eq_str(q, a[i].axis, b[i].axis))
            return false;
    return true;
}

static bool eq_layout(Eq *q, const IrLayout *a, const IrLayout *b)
{
    EQ_STOP_AT_NULL(q, a, b);
    if (!eq_u64(q, a->kind, b->kind))
        return false;
    if (a->kind == IR_LAYOUT_COMPOSE)
        return eq_u64(q, (uint64_t)a->per_element, (uint64_t)b->per_element) &&
               eq_u64(q, (uint64_t)a->swizzle_len, (uint64_t)b->swizzle_len) &&
               eq_u64(q, (uint64_t)a->atom_len, (uint64_t)b->atom_len) &&
               eq_u64(q, a->swizzle_inner, b->swizzle_inner) && eq_layout(q, a->tile, b->tile);
    if (!eq_u64(q, (uint64_t)a->nshard, (uint64_t)b->nshard) ||
        !eq_u64(q, (uint64_t)a->nreplica, (uint64_t)b->nreplica) ||
        !eq_u64(q, (uint64_t)a->noffset, (uint64_t)b->noffset) ||
        !eq_iters(q, a->shard, b->shard, a->nshard) ||
        !eq_iters(q, a->replica, b->replica, a->nreplica))
        return false;
    for (int i = 0; i < a->noffset; i++)
        if (!eq_str(q, a->offset[i].axis, b->offset[i].axis) ||
            !eq_expr(q, a->offset[i].value, b->offset[i].value))
            return false;
    return true;
}

static bool eq_buffer_type(Eq *q, const IrBufferType *a, const IrBufferType *b)
{
    return eq_u64(q, (uint64_t)a->ndim, (uint64_t)b->ndim) &&
           eq_u64(q, (uint64_t)a->nstrides, (uint64_t)b->nstrides) &&
           eq_u64(q, (uint64_t)a->naddr, (uint64_t)b->naddr) &&
           eq_exprs(q, a->shape, b->shape, a->ndim) &&
           eq_exprs(q, a->strides, b->strides, a->nstrides) &&
           eq_expr(q, a->elem_offset, b->elem_offset) &&
           eq_u64(q, (uint64_t)a->align, (uint64_t)b->align) &&
           eq_u64(q, (uint64_t)a->offset_factor, (uint64_t)b->offset_factor) &&
           eq_layout(q, a->layout, b->layout) &&
           eq_exprs(q, a->allocated_addr, b->allocated_addr, a->naddr);
}

static bool eq_type(Eq *q, const IrType *a, const IrType *b)
{
    EQ_STOP_AT_NULL(q, a, b);
    if (!eq_u64(q, a->kind, b->kind) || !eq_dtype(q, a->dtype, b->dtype) ||
        !eq_str(q, a->scope, b->scope))
        return false;
    if (a->kind != IR_TY_BUFFER)
        return true;
    EQ_STOP_AT_NULL(q, a->buf, b->buf);
    return eq_buffer_type(q, a->buf, b->buf);
}

/* ---------------------------------------------------------------- expressions */
static bool eq_call(Eq *q, const IrCall *a, const IrCall *b)
{
    return eq_u64(q, a->op, b->op) && eq_u64(q, (uint64_t)a->nargs, (uint64_t)b->nargs) &&
           eq_u64(q, (uint64_t)a->nkwargs, (uint64_t)b->nkwargs) &&
           eq_exprs(q, a->args, b->args, a->nargs) &&
           eq_kwargs(q, a->kwargs, b->kwargs, a->nkwargs) &&
           eq_u64(q, (uint64_t)a->ptx_entry, (uint64_t)b->ptx_entry) &&
           eq_u64(q, (uint64_t)a->nptx_slots, (uint64_t)b->nptx_slots) &&
           eq_strs(q, a->ptx_slots, b->ptx_slots, a->nptx_slots) &&
           eq_str(q, a->ptx_marker, b->ptx_marker) && eq_str(q, a->callee, b->callee) &&
           eq_type(q, a->ptr_type, b->ptr_type);
}

static bool eq_access(Eq *q, const IrExpr *a, const IrExpr *b)
{
    if (!eq_u64(q, (uint64_t)a->u.access.n, (uint64_t)b->u.access.n) ||
        !eq_expr(q, a->u.access.buffer, b->u.access.buffer) ||
        !eq_exprs(q, a->u.access.indices, b->u.access.indices, a->u.access.n))
        return false;
    if (a->kind == IR_E_REGION &&
        !eq_exprs(q, a->u.access.extents, b->u.access.extents, a->u.access.n))
        return false;
    return eq_expr(q, a->u.access.predicate, b->u.access.predicate);
}

static bool eq_let(Eq *q, const IrExpr *a, const IrExpr *b)
{
    return eq_expr(q, a->u.op.a, b->u.op.a) && eq_def_typed(q, a->u.op.var, b->u.op.var) &&
           eq_expr(q, a->u.op.b, b->u.op.b);
}

static bool eq_lambda(Eq *q, const IrExpr *a, const IrExpr *b)
{
    return eq_u64(q, (uint64_t)a->u.lambda.n, (uint64_t)b->u.lambda.n) &&
           eq_defs_typed(q, a->u.lambda.params, b->u.lambda.params, a->u.lambda.n) &&
           eq_expr(q, a->u.lambda.body, b->u.lambda.body);
}

static bool eq_expr_fields(Eq *q, const IrExpr *a, const IrExpr *b)
{
    if (IR_E_IS_BINARY(a->kind))
        return eq_expr(q, a->u.op.a, b->u.op.a) && eq_expr(q, a->u.op.b, b->u.op.b);
    switch (a->kind) {
    case IR_E_INT: case IR_E_PYBOOL: case IR_E_PYINT:
        return eq_u64(q, (uint64_t)a->u.int_val, (uint64_t)b->u.int_val);
    case IR_E_FLOAT: case IR_E_PYFLOAT:
        return eq_float(q, a->u.float_val, b->u.float_val);
    case IR_E_STR: case IR_E_OP:
        return eq_str(q, a->u.str, b->u.str);
    case IR_E_VAR:
        return eq_use(q, a, b);
    case IR_E_NOT: case IR_E_CAST:
        return eq_expr(q, a->u.op.a, b->u.op.a);
    case IR_E_BROADCAST:
        return eq_u64(q, (uint64_t)a->u.op.lanes, (uint64_t)b->u.op.lanes) &&
               eq_expr(q, a->u.op.a, b->u.op.a);
    case IR_E_SELECT:
        return eq_expr(q, a->u.op.cond, b->u.op.cond) && eq_expr(q, a->u.op.a, b->u.op.a) &&
               eq_expr(q, a->u.op.b, b->u.op.b);
    case IR_E_RAMP:
        return eq_u64(q, (uint64_t)a->u.op.lanes, (uint64_t)b->u.op.lanes) &&
               eq_expr(q, a->u.op.a, b->u.op.a) && eq_expr(q, a->u.op.b, b->u.op.b);
    case IR_E_SHUFFLE:
        return eq_u64(q, (uint64_t)a->u.shuffle.nvectors, (uint64_t)b->u.shuffle.nvectors) &&
               eq_u64(q, (uint64_t)a->u.shuffle.nindices, (uint64_t)b->u.shuffle.nindices) &&
               eq_exprs(q, a->u.shuffle.vectors, b->u.shuffle.vectors, a->u.shuffle.nvectors) &&
               eq_exprs(q, a->u.shuffle.indices, b->u.shuffle.indices, a->u.shuffle.nindices);
    case IR_E_LET:
        return eq_let(q, a, b);
    case IR_E_LAMBDA:
        return eq_lambda(q, a, b);
    case IR_E_RANGE: case IR_E_INDEX_MAP: case IR_E_COMM_REDUCER:
        return eq_expr(q, a->u.op.a, b->u.op.a) && eq_expr(q, a->u.op.b, b->u.op.b);
    case IR_E_GLOBAL_INFO:
        return eq_expr(q, a->u.op.a, b->u.op.a) && eq_expr(q, a->u.op.b, b->u.op.b) &&
               eq_expr(q, a->u.op.cond, b->u.op.cond);
    case IR_E_CALL:
        return eq_call(q, &a->u.call, &b->u.call);
    case IR_E_LOAD: case IR_E_REGION:
        return eq_access(q, a, b);
    case IR_E_LIST:
        return eq_u64(q, (uint64_t)a->u.list.n, (uint64_t)b->u.list.n) &&
               eq_exprs(q, a->u.list.items, b->u.list.items, a->u.list.n);
    case IR_E_DICT:
        return eq_u64(q, (uint64_t)a->u.list.n, (uint64_t)b->u.list.n) &&
               eq_kwargs(q, a->u.list.kwargs, b->u.list.kwargs, a->u.list.n);
    case IR_E_LAYOUT:
        return eq_layout(q, a->u.layout, b->u.layout);
    default: /* NONE, DTYPE: kind and dtype say everything */
        return true;
    }
}

static bool eq_expr(Eq *q, const IrExpr *a, const IrExpr *b)
{
    EQ_STOP_AT_NULL(q, a, b);
    return eq_u64(q, a->kind, b->kind) && eq_dtype(q, a->dtype, b->dtype) &&
           eq_expr_fields(q, a, b);
}

/* ---------------------------------------------------------------- statements */
static bool eq_scopeid(Eq *q, const IrStmt *a, const IrStmt *b)
{
    IrExpr **ea = a->u.scopeid.extents, **eb = b->u.scopeid.extents;
    int n = a->u.scopeid.nvars;
    return eq_u64(q, a->u.scopeid.kind, b->u.scopeid.kind) &&
           eq_u64(q, (uint64_t)n, (uint64_t)b->u.scopeid.nvars) &&
           eq_u64(q, (uint64_t)a->u.scopeid.npreferred, (uint64_t)b->u.scopeid.npreferred) &&
           eq_u64(q, !ea, !eb) && (!ea || eq_exprs(q, ea, eb, n)) &&
           eq_exprs(q, a->u.scopeid.preferred, b->u.scopeid.preferred, a->u.scopeid.npreferred) &&
           eq_defs_typed(q, a->u.scopeid.vars, b->u.scopeid.vars, n);
}

static bool eq_for(Eq *q, const IrStmt *a, const IrStmt *b)
{
    return eq_u64(q, a->u.loop.kind, b->u.loop.kind) &&
           eq_str(q, a->u.loop.thread, b->u.loop.thread) &&
           eq_expr(q, a->u.loop.min, b->u.loop.min) &&
           eq_expr(q, a->u.loop.extent, b->u.loop.extent) &&
           eq_expr(q, a->u.loop.step, b->u.loop.step) &&
           eq_u64(q, (uint64_t)a->u.loop.nannot, (uint64_t)b->u.loop.nannot) &&
           eq_kwargs(q, a->u.loop.annot, b->u.loop.annot, a->u.loop.nannot) &&
           eq_def_typed(q, a->u.loop.var, b->u.loop.var) &&
           eq_stmt(q, a->u.loop.body, b->u.loop.body);
}

static bool eq_tile(Eq *q, const IrStmt *a, const IrStmt *b)
{
    return eq_u64(q, a->u.tile.scope, b->u.tile.scope) && eq_u64(q, a->u.tile.op, b->u.tile.op) &&
           eq_u64(q, (uint64_t)a->u.tile.nargs, (uint64_t)b->u.tile.nargs) &&
           eq_u64(q, (uint64_t)a->u.tile.nworkspace, (uint64_t)b->u.tile.nworkspace) &&
           eq_u64(q, (uint64_t)a->u.tile.nconfig, (uint64_t)b->u.tile.nconfig) &&
           eq_exprs(q, a->u.tile.args, b->u.tile.args, a->u.tile.nargs) &&
           eq_kwargs(q, a->u.tile.workspace, b->u.tile.workspace, a->u.tile.nworkspace) &&
           eq_str(q, a->u.tile.dispatch, b->u.tile.dispatch) &&
           eq_kwargs(q, a->u.tile.config, b->u.tile.config, a->u.tile.nconfig) &&
           eq_stmt(q, a->u.tile.body, b->u.tile.body);
}

static bool eq_store(Eq *q, const IrStmt *a, const IrStmt *b)
{
    return eq_u64(q, (uint64_t)a->u.store.n, (uint64_t)b->u.store.n) &&
           eq_expr(q, a->u.store.buffer, b->u.store.buffer) &&
           eq_exprs(q, a->u.store.indices, b->u.store.indices, a->u.store.n) &&
           eq_expr(q, a->u.store.value, b->u.store.value) &&
           eq_expr(q, a->u.store.predicate, b->u.store.predicate);
}

static bool eq_stmts(Eq *q, IrStmt *const *a, IrStmt *const *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!eq_stmt(q, a[i], b[i]))
            return false;
    return true;
}

static bool eq_stmt_fields(Eq *q, const IrStmt *a, const IrStmt *b)
{
    switch (a->kind) {
    case IR_S_BIND:
        return eq_expr(q, a->u.bind.value, b->u.bind.value) &&
               eq_def_typed(q, a->u.bind.var, b->u.bind.var);
    case IR_S_ALLOC:
        return eq_u64(q, (uint64_t)a->u.alloc.nannot, (uint64_t)b->u.alloc.nannot) &&
               eq_kwargs(q, a->u.alloc.annot, b->u.alloc.annot, a->u.alloc.nannot) &&
               eq_def_typed(q, a->u.alloc.buffer, b->u.alloc.buffer);
    case IR_S_DECL:
        return eq_expr(q, a->u.decl.data, b->u.decl.data) &&
               eq_def_typed(q, a->u.decl.buffer, b->u.decl.buffer);
    case IR_S_SCOPEID:
        return eq_scopeid(q, a, b);
    case IR_S_FOR:
        return eq_for(q, a, b);
    case IR_S_WHILE:
        return eq_expr(q, a->u.whl.cond, b->u.whl.cond) && eq_stmt(q, a->u.whl.body, b->u.whl.body);
    case IR_S_IF:
        return eq_expr(q, a->u.ifs.cond, b->u.ifs.cond) &&
               eq_stmt(q, a->u.ifs.then_s, b->u.ifs.then_s) &&
               eq_stmt(q, a->u.ifs.else_s, b->u.ifs.else_s);
    case IR_S_ATTR:
        return eq_expr(q, a->u.attr.node, b->u.attr.node) &&
               eq_str(q, a->u.attr.key, b->u.attr.key) &&
               eq_str(q, a->u.attr.thread_tag, b->u.attr.thread_tag) &&
               eq_expr(q, a->u.attr.value, b->u.attr.value) &&
               eq_stmt(q, a->u.attr.body, b->u.attr.body);
    case IR_S_SEQ:
        return eq_u64(q, (uint64_t)a->u.seq.n, (uint64_t)b->u.seq.n) &&
               eq_stmts(q, a->u.seq.stmts, b->u.seq.stmts, a->u.seq.n);
    case IR_S_EVAL:
        return eq_expr(q, a->u.eval, b->u.eval);
    case IR_S_STORE:
        return eq_store(q, a, b);
    case IR_S_ASSERT:
        return eq_expr(q, a->u.assert_.cond, b->u.assert_.cond) &&
               eq_str(q, a->u.assert_.kind, b->u.assert_.kind) &&
               eq_u64(q, (uint64_t)a->u.assert_.nparts, (uint64_t)b->u.assert_.nparts) &&
               eq_strs(q, a->u.assert_.parts, b->u.assert_.parts, a->u.assert_.nparts);
    case IR_S_RETURN:
        return eq_expr(q, a->u.ret, b->u.ret);
    case IR_S_TILE:
        return eq_tile(q, a, b);
    case IR_S_BREAK: case IR_S_CONTINUE: case IR_S_COUNT:
        return true;
    }
    return true;
}

static bool eq_stmt(Eq *q, const IrStmt *a, const IrStmt *b)
{
    EQ_STOP_AT_NULL(q, a, b);
    return eq_u64(q, a->kind, b->kind) && eq_stmt_fields(q, a, b);
}

/* ---------------------------------------------------------------- functions and modules */
/* Params are all defined first, then their types compared (a shape may name
 * a later scalar param), as the visitor does. */
static bool eq_func(Eq *q, const IrFunc *a, const IrFunc *b)
{
    if (!eq_u64(q, (uint64_t)a->nparams, (uint64_t)b->nparams))
        return false;
    for (int i = 0; i < a->nparams; i++)
        if (!eq_def(q, a->params[i], b->params[i]))
            return false;
    for (int i = 0; i < a->nparams; i++)
        if (!eq_type(q, a->params[i]->u.var.type, b->params[i]->u.var.type))
            return false;
    return eq_type(q, a->ret_type, b->ret_type) &&
           eq_u64(q, (uint64_t)a->nattrs, (uint64_t)b->nattrs) &&
           eq_kwargs(q, a->attrs, b->attrs, a->nattrs) &&
           eq_u64(q, a->is_private, b->is_private) &&
           eq_u64(q, a->is_persistent, b->is_persistent) && eq_u64(q, a->is_s_tir, b->is_s_tir) &&
           eq_stmt(q, a->body, b->body);
}

static void eq_free(Eq *q)
{
    ir_ptrmap_free(&q->ia);
    ir_ptrmap_free(&q->ib);
}

bool ir_func_equal(const IrFunc *a, const IrFunc *b)
{
    Eq q = {0};
    bool r = eq_func(&q, a, b);
    eq_free(&q);
    return r;
}

uint64_t ir_func_hash(const IrFunc *f)
{
    Eq q = {.hashing = true};
    eq_func(&q, f, f);
    eq_free(&q);
    return q.h;
}

static const IrFunc *find_func(const IrModule *m, const char *name)
{
    for (int i = 0; i < m->nfuncs; i++)
        if (!strcmp(m->funcs[i]->name, name))
            return m->funcs[i];
    return NULL;
}

/* Functions are matched by name: the printer sorts them, the parser keeps
 * source order. */
bool ir_module_equal(const IrModule *a, const IrModule *b)
{
    if (a->nfuncs != b->nfuncs || a->nattrs != b->nattrs || a->nglobal_infos != b->nglobal_infos)
        return false;
    Eq q = {0};
    bool r = eq_kwargs(&q, a->attrs, b->attrs, a->nattrs) &&
             eq_kwargs(&q, a->global_infos, b->global_infos, a->nglobal_infos);
    eq_free(&q);
    for (int i = 0; r && i < a->nfuncs; i++) {
        const IrFunc *g = find_func(b, a->funcs[i]->name);
        r = g && ir_func_equal(a->funcs[i], g);
    }
    return r;
}
