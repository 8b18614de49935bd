/* The one traversal of the IR: the visitor (read-only hooks with scopes and
 * definition sites), the mutator (copy-on-write rebuilding with variable
 * replacement that reaches types, buffer fields and layouts), variable
 * substitution built on the mutator, and the pointer hash map the traversal,
 * equality and the verifier share. Every expression position of every node
 * kind is listed here once for visiting and once for mutating. */
#include "visit.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- pointer maps */
static size_t ptr_hash(const void *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (size_t)h;
}

/* The slot holding key, or the empty slot where it would go. cap is a power of two. */
static struct IrPtrMapSlot *ptrmap_slot(const IrPtrMap *m, const void *key)
{
    size_t mask = (size_t)m->cap - 1;
    for (size_t i = ptr_hash(key) & mask;; i = (i + 1) & mask)
        if (m->slots[i].key == key || !m->slots[i].key)
            return &m->slots[i];
}

bool ir_ptrmap_get(const IrPtrMap *m, const void *key, uintptr_t *val)
{
    if (!m->cap || !key)
        return false;
    struct IrPtrMapSlot *s = ptrmap_slot(m, key);
    if (!s->key)
        return false;
    if (val)
        *val = s->val;
    return true;
}

static void ptrmap_grow(IrPtrMap *m)
{
    IrPtrMap bigger = {0};
    bigger.cap = m->cap ? m->cap * 2 : 64;
    bigger.slots = calloc((size_t)bigger.cap, sizeof *bigger.slots);
    if (!bigger.slots)
        tx_out_of_memory(sizeof *bigger.slots * (size_t)bigger.cap);
    for (int i = 0; i < m->cap; i++)
        if (m->slots[i].key)
            *ptrmap_slot(&bigger, m->slots[i].key) = m->slots[i];
    bigger.len = m->len;
    free(m->slots);
    *m = bigger;
}

void ir_ptrmap_put(IrPtrMap *m, const void *key, uintptr_t val)
{
    if ((m->len + 1) * 4 > m->cap * 3)
        ptrmap_grow(m);
    struct IrPtrMapSlot *s = ptrmap_slot(m, key);
    if (!s->key)
        m->len++;
    s->key = key, s->val = val;
}

void ir_ptrmap_free(IrPtrMap *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

/* ---------------------------------------------------------------- visitor */
static void visit_exprs(IrVisitor *v, IrExpr *const *xs, int n)
{
    for (int i = 0; i < n; i++)
        ir_visit_expr(v, xs[i]);
}

static void visit_kwargs(IrVisitor *v, const IrKwarg *kw, int n)
{
    for (int i = 0; i < n; i++)
        ir_visit_expr(v, kw[i].value);
}

static void scope_enter(IrVisitor *v)
{
    if (v->scope_enter)
        v->scope_enter(v);
}

static void scope_exit(IrVisitor *v)
{
    if (v->scope_exit)
        v->scope_exit(v);
}

static void visit_def(IrVisitor *v, const IrExpr *var, const IrStmt *where)
{
    if (v->def)
        v->def(v, var, where);
    ir_visit_type(v, var->u.var.type);
}

static void visit_body(IrVisitor *v, const IrStmt *body)
{
    if (!body)
        return;
    scope_enter(v);
    ir_visit_stmt(v, body);
    scope_exit(v);
}

static void visit_iters(IrVisitor *v, const IrIter *it, int n)
{
    for (int i = 0; i < n; i++) {
        ir_visit_expr(v, it[i].extent);
        ir_visit_expr(v, it[i].stride);
    }
}

void ir_visit_layout(IrVisitor *v, const IrLayout *l)
{
    if (!l)
        return;
    if (l->kind == IR_LAYOUT_COMPOSE) {
        ir_visit_layout(v, l->tile);
        return;
    }
    visit_iters(v, l->shard, l->nshard);
    visit_iters(v, l->replica, l->nreplica);
    for (int i = 0; i < l->noffset; i++)
        ir_visit_expr(v, l->offset[i].value);
}

void ir_visit_type(IrVisitor *v, const IrType *t)
{
    if (!t || t->kind != IR_TY_BUFFER || !t->buf)
        return;
    const IrBufferType *b = t->buf;
    visit_exprs(v, b->shape, b->ndim);
    visit_exprs(v, b->strides, b->nstrides);
    ir_visit_expr(v, b->elem_offset);
    ir_visit_layout(v, b->layout);
    visit_exprs(v, b->allocated_addr, b->naddr);
}

static void visit_expr_children(IrVisitor *v, const IrExpr *e)
{
    if (IR_E_IS_BINARY(e->kind)) {
        ir_visit_expr(v, e->u.op.a);
        ir_visit_expr(v, e->u.op.b);
        return;
    }
    switch (e->kind) {
    case IR_E_NOT: case IR_E_CAST: case IR_E_BROADCAST:
        ir_visit_expr(v, e->u.op.a);
        break;
    case IR_E_SELECT:
        ir_visit_expr(v, e->u.op.cond);
        ir_visit_expr(v, e->u.op.a);
        ir_visit_expr(v, e->u.op.b);
        break;
    case IR_E_RAMP: case IR_E_RANGE: case IR_E_INDEX_MAP: case IR_E_COMM_REDUCER:
        ir_visit_expr(v, e->u.op.a);
        ir_visit_expr(v, e->u.op.b);
        break;
    case IR_E_SHUFFLE:
        visit_exprs(v, e->u.shuffle.vectors, e->u.shuffle.nvectors);
        visit_exprs(v, e->u.shuffle.indices, e->u.shuffle.nindices);
        break;
    case IR_E_LET:
        ir_visit_expr(v, e->u.op.a);
        scope_enter(v);
        visit_def(v, e->u.op.var, NULL);
        ir_visit_expr(v, e->u.op.b);
        scope_exit(v);
        break;
    case IR_E_LAMBDA:
        scope_enter(v);
        for (int i = 0; i < e->u.lambda.n; i++)
            visit_def(v, e->u.lambda.params[i], NULL);
        ir_visit_expr(v, e->u.lambda.body);
        scope_exit(v);
        break;
    case IR_E_CALL:
        visit_exprs(v, e->u.call.args, e->u.call.nargs);
        visit_kwargs(v, e->u.call.kwargs, e->u.call.nkwargs);
        break;
    case IR_E_LOAD: case IR_E_REGION:
        ir_visit_expr(v, e->u.access.buffer);
        visit_exprs(v, e->u.access.indices, e->u.access.n);
        if (e->kind == IR_E_REGION)
            visit_exprs(v, e->u.access.extents, e->u.access.n);
        ir_visit_expr(v, e->u.access.predicate);
        break;
    case IR_E_LIST:
        visit_exprs(v, e->u.list.items, e->u.list.n);
        break;
    case IR_E_DICT:
        visit_kwargs(v, e->u.list.kwargs, e->u.list.n);
        break;
    case IR_E_LAYOUT:
        ir_visit_layout(v, e->u.layout);
        break;
    default: /* immediates, strings, dtypes, None, and VAR uses */
        break;
    }
}

void ir_visit_expr(IrVisitor *v, const IrExpr *e)
{
    if (!e || (v->expr && !v->expr(v, e)))
        return;
    visit_expr_children(v, e);
    if (v->expr_post)
        v->expr_post(v, e);
}

static void visit_scopeid(IrVisitor *v, const IrStmt *s)
{
    if (s->u.scopeid.extents)
        visit_exprs(v, s->u.scopeid.extents, s->u.scopeid.nvars);
    visit_exprs(v, s->u.scopeid.preferred, s->u.scopeid.npreferred);
    for (int i = 0; i < s->u.scopeid.nvars; i++)
        visit_def(v, s->u.scopeid.vars[i], s);
}

static void visit_for(IrVisitor *v, const IrStmt *s)
{
    ir_visit_expr(v, s->u.loop.min);
    ir_visit_expr(v, s->u.loop.extent);
    ir_visit_expr(v, s->u.loop.step);
    visit_kwargs(v, s->u.loop.annot, s->u.loop.nannot);
    scope_enter(v);
    visit_def(v, s->u.loop.var, s);
    ir_visit_stmt(v, s->u.loop.body);
    scope_exit(v);
}

static void visit_stmt_children(IrVisitor *v, const IrStmt *s)
{
    switch (s->kind) {
    case IR_S_BIND:
        ir_visit_expr(v, s->u.bind.value);
        visit_def(v, s->u.bind.var, s);
        break;
    case IR_S_ALLOC:
        visit_kwargs(v, s->u.alloc.annot, s->u.alloc.nannot);
        visit_def(v, s->u.alloc.buffer, s);
        break;
    case IR_S_DECL:
        ir_visit_expr(v, s->u.decl.data);
        visit_def(v, s->u.decl.buffer, s);
        break;
    case IR_S_SCOPEID:
        visit_scopeid(v, s);
        break;
    case IR_S_FOR:
        visit_for(v, s);
        break;
    case IR_S_WHILE:
        ir_visit_expr(v, s->u.whl.cond);
        visit_body(v, s->u.whl.body);
        break;
    case IR_S_IF:
        ir_visit_expr(v, s->u.ifs.cond);
        visit_body(v, s->u.ifs.then_s);
        visit_body(v, s->u.ifs.else_s);
        break;
    case IR_S_ATTR:
        ir_visit_expr(v, s->u.attr.node);
        ir_visit_expr(v, s->u.attr.value);
        visit_body(v, s->u.attr.body);
        break;
    case IR_S_SEQ:
        scope_enter(v);
        for (int i = 0; i < s->u.seq.n; i++)
            ir_visit_stmt(v, s->u.seq.stmts[i]);
        scope_exit(v);
        break;
    case IR_S_EVAL:
        ir_visit_expr(v, s->u.eval);
        break;
    case IR_S_STORE:
        ir_visit_expr(v, s->u.store.buffer);
        visit_exprs(v, s->u.store.indices, s->u.store.n);
        ir_visit_expr(v, s->u.store.value);
        ir_visit_expr(v, s->u.store.predicate);
        break;
    case IR_S_ASSERT:
        ir_visit_expr(v, s->u.assert_.cond);
        break;
    case IR_S_RETURN:
        ir_visit_expr(v, s->u.ret);
        break;
    case IR_S_TILE:
        visit_exprs(v, s->u.tile.args, s->u.tile.nargs);
        visit_kwargs(v, s->u.tile.workspace, s->u.tile.nworkspace);
        visit_kwargs(v, s->u.tile.config, s->u.tile.nconfig);
        visit_body(v, s->u.tile.body);
        break;
    case IR_S_BREAK: case IR_S_CONTINUE: case IR_S_COUNT:
        break;
    }
}

void ir_visit_stmt(IrVisitor *v, const IrStmt *s)
{
    if (!s || (v->stmt && !v->stmt(v, s)))
        return;
    visit_stmt_children(v, s);
    if (v->stmt_post)
        v->stmt_post(v, s);
}

void ir_visit_func(IrVisitor *v, const IrFunc *f)
{
    scope_enter(v);
    for (int i = 0; i < f->nparams; i++)
        if (v->def)
            v->def(v, f->params[i], NULL);
    for (int i = 0; i < f->nparams; i++)
        ir_visit_type(v, f->params[i]->u.var.type);
    ir_visit_type(v, f->ret_type);
    visit_kwargs(v, f->attrs, f->nattrs);
    ir_visit_stmt(v, f->body);
    scope_exit(v);
}

/* ---------------------------------------------------------------- mutator */
/* A copy of a node in the mutator's arena: an expression or a statement as
 * large as its kind. */
#define COPY_NODE(m, orig)                                                       \
    _Generic((orig),                                                             \
        IrExpr *: ir_expr_copy((m)->arena, (const IrExpr *)(orig)),              \
        const IrExpr *: ir_expr_copy((m)->arena, (const IrExpr *)(orig)),        \
        IrStmt *: ir_stmt_copy((m)->arena, (const IrStmt *)(orig)),              \
        const IrStmt *: ir_stmt_copy((m)->arena, (const IrStmt *)(orig)),        \
        default: tx_arena_memdup((m)->arena, (orig), sizeof *(orig)))

/* Copy-on-write of one pointer field: `cur` starts equal to `orig` and is
 * copied the first time a field gets a different value. */
#define COW(m, cur, orig, field, value)                                          \
    do {                                                                         \
        void *cow_v_ = (value);                                                  \
        if (cow_v_ != (void *)(orig)->field) {                                   \
            if ((cur) == (orig))                                                 \
                (cur) = COPY_NODE(m, orig);                                      \
            (cur)->field = cow_v_;                                               \
        }                                                                        \
    } while (0)

void ir_mutator_map_var(IrMutator *m, const IrExpr *from, IrExpr *to)
{
    ir_ptrmap_put(&m->var_map, from, (uintptr_t)to);
}

IrExpr *ir_mutator_lookup(const IrMutator *m, const IrExpr *var)
{
    uintptr_t to;
    return ir_ptrmap_get(&m->var_map, var, &to) ? (IrExpr *)to : NULL;
}

void ir_mutator_free(IrMutator *m) { ir_ptrmap_free(&m->var_map); }

static IrExpr **mutate_exprs(IrMutator *m, IrExpr **xs, int n)
{
    IrExpr **out = xs;
    for (int i = 0; i < n; i++) {
        IrExpr *r = ir_mutate_expr(m, xs[i]);
        if (r == xs[i])
            continue;
        if (out == xs)
            out = tx_arena_memdup(m->arena, xs, sizeof *xs * (size_t)n);
        out[i] = r;
    }
    return out;
}

static IrKwarg *mutate_kwargs(IrMutator *m, IrKwarg *kw, int n)
{
    IrKwarg *out = kw;
    for (int i = 0; i < n; i++) {
        IrExpr *r = ir_mutate_expr(m, kw[i].value);
        if (r == kw[i].value)
            continue;
        if (out == kw)
            out = tx_arena_memdup(m->arena, kw, sizeof *kw * (size_t)n);
        out[i].value = r;
    }
    return out;
}

static IrIter *mutate_iters(IrMutator *m, IrIter *it, int n)
{
    IrIter *out = it;
    for (int i = 0; i < n; i++) {
        IrExpr *ext = ir_mutate_expr(m, it[i].extent), *str = ir_mutate_expr(m, it[i].stride);
        if (ext == it[i].extent && str == it[i].stride)
            continue;
        if (out == it)
            out = tx_arena_memdup(m->arena, it, sizeof *it * (size_t)n);
        out[i].extent = ext, out[i].stride = str;
    }
    return out;
}

static IrAxisOffset *mutate_offsets(IrMutator *m, IrAxisOffset *off, int n)
{
    IrAxisOffset *out = off;
    for (int i = 0; i < n; i++) {
        IrExpr *r = ir_mutate_expr(m, off[i].value);
        if (r == off[i].value)
            continue;
        if (out == off)
            out = tx_arena_memdup(m->arena, off, sizeof *off * (size_t)n);
        out[i].value = r;
    }
    return out;
}

IrLayout *ir_mutate_layout(IrMutator *m, IrLayout *l)
{
    if (!l)
        return NULL;
    IrLayout *n = l;
    if (l->kind == IR_LAYOUT_COMPOSE) {
        COW(m, n, l, tile, ir_mutate_layout(m, l->tile));
        return n;
    }
    COW(m, n, l, shard, mutate_iters(m, l->shard, l->nshard));
    COW(m, n, l, replica, mutate_iters(m, l->replica, l->nreplica));
    COW(m, n, l, offset, mutate_offsets(m, l->offset, l->noffset));
    return n;
}

static IrBufferType *mutate_buffer_type(IrMutator *m, IrBufferType *b)
{
    IrBufferType *n = b;
    COW(m, n, b, shape, mutate_exprs(m, b->shape, b->ndim));
    COW(m, n, b, strides, mutate_exprs(m, b->strides, b->nstrides));
    COW(m, n, b, elem_offset, ir_mutate_expr(m, b->elem_offset));
    COW(m, n, b, layout, ir_mutate_layout(m, b->layout));
    COW(m, n, b, allocated_addr, mutate_exprs(m, b->allocated_addr, b->naddr));
    return n;
}

IrType *ir_mutate_type(IrMutator *m, IrType *t)
{
    if (!t || t->kind != IR_TY_BUFFER || !t->buf)
        return t;
    IrType *n = t;
    COW(m, n, t, buf, mutate_buffer_type(m, t->buf));
    return n;
}

/* A definition: the pre-mapped replacement, or a new variable when the type
 * changed (or fresh_defs), recorded for every later use. */
static IrExpr *mutate_def(IrMutator *m, IrExpr *var)
{
    IrExpr *mapped = ir_mutator_lookup(m, var);
    if (mapped)
        return mapped;
    IrType *t = ir_mutate_type(m, var->u.var.type);
    if (t == var->u.var.type && !m->fresh_defs)
        return var;
    IrExpr *nv = ir_expr_copy(m->arena, var);
    nv->u.var.type = t;
    ir_mutator_map_var(m, var, nv);
    return nv;
}

static IrExpr **mutate_defs(IrMutator *m, IrExpr **vars, int n)
{
    IrExpr **out = vars;
    for (int i = 0; i < n; i++) {
        IrExpr *r = mutate_def(m, vars[i]);
        if (r == vars[i])
            continue;
        if (out == vars)
            out = tx_arena_memdup(m->arena, vars, sizeof *vars * (size_t)n);
        out[i] = r;
    }
    return out;
}

static IrExpr *mutate_expr_children(IrMutator *m, IrExpr *e)
{
    IrExpr *n = e;
    if (IR_E_IS_BINARY(e->kind)) {
        COW(m, n, e, u.op.a, ir_mutate_expr(m, e->u.op.a));
        COW(m, n, e, u.op.b, ir_mutate_expr(m, e->u.op.b));
        return n;
    }
    switch (e->kind) {
    case IR_E_NOT: case IR_E_CAST: case IR_E_BROADCAST:
        COW(m, n, e, u.op.a, ir_mutate_expr(m, e->u.op.a));
        break;
    case IR_E_SELECT:
        COW(m, n, e, u.op.cond, ir_mutate_expr(m, e->u.op.cond));
        COW(m, n, e, u.op.a, ir_mutate_expr(m, e->u.op.a));
        COW(m, n, e, u.op.b, ir_mutate_expr(m, e->u.op.b));
        break;
    case IR_E_RAMP: case IR_E_RANGE: case IR_E_INDEX_MAP: case IR_E_COMM_REDUCER:
        COW(m, n, e, u.op.a, ir_mutate_expr(m, e->u.op.a));
        COW(m, n, e, u.op.b, ir_mutate_expr(m, e->u.op.b));
        break;
    case IR_E_SHUFFLE:
        COW(m, n, e, u.shuffle.vectors,
            mutate_exprs(m, e->u.shuffle.vectors, e->u.shuffle.nvectors));
        COW(m, n, e, u.shuffle.indices,
            mutate_exprs(m, e->u.shuffle.indices, e->u.shuffle.nindices));
        break;
    case IR_E_LET:
        COW(m, n, e, u.op.a, ir_mutate_expr(m, e->u.op.a));
        COW(m, n, e, u.op.var, mutate_def(m, e->u.op.var));
        COW(m, n, e, u.op.b, ir_mutate_expr(m, e->u.op.b));
        break;
    case IR_E_LAMBDA:
        COW(m, n, e, u.lambda.params, mutate_defs(m, e->u.lambda.params, e->u.lambda.n));
        COW(m, n, e, u.lambda.body, ir_mutate_expr(m, e->u.lambda.body));
        break;
    case IR_E_CALL:
        COW(m, n, e, u.call.args, mutate_exprs(m, e->u.call.args, e->u.call.nargs));
        COW(m, n, e, u.call.kwargs, mutate_kwargs(m, e->u.call.kwargs, e->u.call.nkwargs));
        break;
    case IR_E_LOAD: case IR_E_REGION:
        COW(m, n, e, u.access.buffer, ir_mutate_expr(m, e->u.access.buffer));
        COW(m, n, e, u.access.indices, mutate_exprs(m, e->u.access.indices, e->u.access.n));
        if (e->kind == IR_E_REGION)
            COW(m, n, e, u.access.extents, mutate_exprs(m, e->u.access.extents, e->u.access.n));
        COW(m, n, e, u.access.predicate, ir_mutate_expr(m, e->u.access.predicate));
        break;
    case IR_E_LIST:
        COW(m, n, e, u.list.items, mutate_exprs(m, e->u.list.items, e->u.list.n));
        break;
    case IR_E_DICT:
        COW(m, n, e, u.list.kwargs, mutate_kwargs(m, e->u.list.kwargs, e->u.list.n));
        break;
    case IR_E_LAYOUT:
        COW(m, n, e, u.layout, ir_mutate_layout(m, e->u.layout));
        break;
    default:
        break;
    }
    return n;
}

IrExpr *ir_mutate_expr(IrMutator *m, IrExpr *e)
{
    if (!e)
        return NULL;
    if (m->expr) {
        IrExpr *r = m->expr(m, e);
        if (r)
            return r;
    }
    if (e->kind == IR_E_VAR) {
        IrExpr *mapped = ir_mutator_lookup(m, e);
        return mapped ? mapped : e;
    }
    return mutate_expr_children(m, e);
}

/* A statement inside a body; NULL stays NULL. */
static IrStmt *mutate_body(IrMutator *m, IrStmt *s) { return s ? ir_mutate_stmt(m, s) : NULL; }

typedef TX_VEC(IrStmt *) StmtVec;

static void push_spliced(IrStmt *s, StmtVec *out)
{
    if (s->kind != IR_S_SEQ) {
        tx_vec_push(out, s);
        return;
    }
    for (int i = 0; i < s->u.seq.n; i++)
        tx_vec_push(out, s->u.seq.stmts[i]);
}

static IrStmt *mutate_seq(IrMutator *m, IrStmt *s)
{
    StmtVec out = {0};
    bool changed = false;
    for (int i = 0; i < s->u.seq.n; i++) {
        IrStmt *r = ir_mutate_stmt(m, s->u.seq.stmts[i]);
        if (!changed && r == s->u.seq.stmts[i])
            continue;
        for (int k = 0; !changed && k < i; k++) /* first change: keep what came before */
            tx_vec_push(&out, s->u.seq.stmts[k]);
        changed = true;
        push_spliced(r, &out);
    }
    if (!changed)
        return s;
    IrStmt *n = ir_stmt(m->arena, IR_S_SEQ, s->span);
    n->u.seq.n = out.len;
    n->u.seq.stmts = tx_vec_to_arena(m->arena, &out);
    tx_vec_free(&out);
    return n;
}

static IrStmt *mutate_scopeid(IrMutator *m, IrStmt *s)
{
    IrStmt *n = s;
    if (s->u.scopeid.extents)
        COW(m, n, s, u.scopeid.extents,
            mutate_exprs(m, s->u.scopeid.extents, s->u.scopeid.nvars));
    COW(m, n, s, u.scopeid.preferred,
        mutate_exprs(m, s->u.scopeid.preferred, s->u.scopeid.npreferred));
    COW(m, n, s, u.scopeid.vars, mutate_defs(m, s->u.scopeid.vars, s->u.scopeid.nvars));
    return n;
}

static IrStmt *mutate_for(IrMutator *m, IrStmt *s)
{
    IrStmt *n = s;
    COW(m, n, s, u.loop.min, ir_mutate_expr(m, s->u.loop.min));
    COW(m, n, s, u.loop.extent, ir_mutate_expr(m, s->u.loop.extent));
    COW(m, n, s, u.loop.step, ir_mutate_expr(m, s->u.loop.step));
    COW(m, n, s, u.loop.annot, mutate_kwargs(m, s->u.loop.annot, s->u.loop.nannot));
    COW(m, n, s, u.loop.var, mutate_def(m, s->u.loop.var));
    COW(m, n, s, u.loop.body, mutate_body(m, s->u.loop.body));
    return n;
}

static IrStmt *mutate_stmt_children(IrMutator *m, IrStmt *s)
{
    IrStmt *n = s;
    switch (s->kind) {
    case IR_S_BIND:
        COW(m, n, s, u.bind.value, ir_mutate_expr(m, s->u.bind.value));
        COW(m, n, s, u.bind.var, mutate_def(m, s->u.bind.var));
        break;
    case IR_S_ALLOC:
        COW(m, n, s, u.alloc.annot, mutate_kwargs(m, s->u.alloc.annot, s->u.alloc.nannot));
        COW(m, n, s, u.alloc.buffer, mutate_def(m, s->u.alloc.buffer));
        break;
    case IR_S_DECL:
        COW(m, n, s, u.decl.data, ir_mutate_expr(m, s->u.decl.data));
        COW(m, n, s, u.decl.buffer, mutate_def(m, s->u.decl.buffer));
        break;
    case IR_S_SCOPEID:
        return mutate_scopeid(m, s);
    case IR_S_FOR:
        return mutate_for(m, s);
    case IR_S_WHILE:
        COW(m, n, s, u.whl.cond, ir_mutate_expr(m, s->u.whl.cond));
        COW(m, n, s, u.whl.body, mutate_body(m, s->u.whl.body));
        break;
    case IR_S_IF:
        COW(m, n, s, u.ifs.cond, ir_mutate_expr(m, s->u.ifs.cond));
        COW(m, n, s, u.ifs.then_s, mutate_body(m, s->u.ifs.then_s));
        COW(m, n, s, u.ifs.else_s, mutate_body(m, s->u.ifs.else_s));
        break;
    case IR_S_ATTR:
        COW(m, n, s, u.attr.node, ir_mutate_expr(m, s->u.attr.node));
        COW(m, n, s, u.attr.value, ir_mutate_expr(m, s->u.attr.value));
        COW(m, n, s, u.attr.body, mutate_body(m, s->u.attr.body));
        break;
    case IR_S_SEQ:
        return mutate_seq(m, s);
    case IR_S_EVAL:
        COW(m, n, s, u.eval, ir_mutate_expr(m, s->u.eval));
        break;
    case IR_S_STORE:
        COW(m, n, s, u.store.buffer, ir_mutate_expr(m, s->u.store.buffer));
        COW(m, n, s, u.store.indices, mutate_exprs(m, s->u.store.indices, s->u.store.n));
        COW(m, n, s, u.store.value, ir_mutate_expr(m, s->u.store.value));
        COW(m, n, s, u.store.predicate, ir_mutate_expr(m, s->u.store.predicate));
        break;
    case IR_S_ASSERT:
        COW(m, n, s, u.assert_.cond, ir_mutate_expr(m, s->u.assert_.cond));
        break;
    case IR_S_RETURN:
        COW(m, n, s, u.ret, ir_mutate_expr(m, s->u.ret));
        break;
    case IR_S_TILE:
        COW(m, n, s, u.tile.args, mutate_exprs(m, s->u.tile.args, s->u.tile.nargs));
        COW(m, n, s, u.tile.workspace,
            mutate_kwargs(m, s->u.tile.workspace, s->u.tile.nworkspace));
        COW(m, n, s, u.tile.config, mutate_kwargs(m, s->u.tile.config, s->u.tile.nconfig));
        COW(m, n, s, u.tile.body, mutate_body(m, s->u.tile.body));
        break;
    case IR_S_BREAK: case IR_S_CONTINUE: case IR_S_COUNT:
        break;
    }
    return n;
}

IrStmt *ir_mutate_stmt(IrMutator *m, IrStmt *s)
{
    if (!s)
        return NULL;
    if (m->stmt) {
        IrStmt *r = m->stmt(m, s);
        if (r)
            return r;
    }
    return mutate_stmt_children(m, s);
}

/* Params: every param is given its identity first (a shape may name a later
 * scalar param), then the types are mutated, as the visitor orders them. */
static IrExpr **mutate_params(IrMutator *m, IrExpr **params, int n)
{
    IrExpr **out = tx_arena_memdup(m->arena, params, sizeof *params * (size_t)n);
    bool *premapped = TX_NEW_ARRAY(m->arena, bool, n);
    bool changed = false;
    for (int i = 0; i < n; i++) {
        IrExpr *mapped = ir_mutator_lookup(m, params[i]);
        premapped[i] = mapped != NULL;
        if (!mapped && m->fresh_defs) {
            mapped = ir_expr_copy(m->arena, params[i]);
            ir_mutator_map_var(m, params[i], mapped);
        }
        out[i] = mapped ? mapped : params[i];
    }
    for (int i = 0; i < n; i++) {
        if (premapped[i])
            continue;
        IrType *t = ir_mutate_type(m, params[i]->u.var.type);
        if (out[i] == params[i] && t != params[i]->u.var.type) {
            out[i] = ir_expr_copy(m->arena, params[i]);
            ir_mutator_map_var(m, params[i], out[i]);
        }
        if (out[i] != params[i])
            out[i]->u.var.type = t; /* a copy made here, not yet shared */
    }
    for (int i = 0; i < n; i++)
        changed |= out[i] != params[i];
    return changed ? out : params;
}

IrFunc *ir_mutate_func(IrMutator *m, IrFunc *f)
{
    IrFunc *n = f;
    COW(m, n, f, params, mutate_params(m, f->params, f->nparams));
    COW(m, n, f, ret_type, ir_mutate_type(m, f->ret_type));
    COW(m, n, f, attrs, mutate_kwargs(m, f->attrs, f->nattrs));
    COW(m, n, f, body, mutate_body(m, f->body));
    return n;
}

/* ---------------------------------------------------------------- substitution */
typedef struct SubstCtx {
    const IrSubst *map;
    int n;
} SubstCtx;

static IrExpr *subst_var(IrMutator *m, IrExpr *e)
{
    if (e->kind != IR_E_VAR)
        return NULL;
    const SubstCtx *c = m->ctx;
    for (int i = 0; i < c->n; i++)
        if (c->map[i].from == e)
            return c->map[i].to;
    return NULL;
}

IrExpr *ir_substitute(TxArena *a, IrExpr *e, const IrSubst *map, int n)
{
    SubstCtx c = {map, n};
    IrMutator m = {.ctx = &c, .arena = a, .expr = subst_var};
    IrExpr *r = ir_mutate_expr(&m, e);
    ir_mutator_free(&m);
    return r;
}

IrStmt *ir_substitute_stmt(TxArena *a, IrStmt *s, const IrSubst *map, int n, bool fresh_defs)
{
    SubstCtx c = {map, n};
    IrMutator m = {.ctx = &c, .arena = a, .expr = subst_var, .fresh_defs = fresh_defs};
    IrStmt *r = ir_mutate_stmt(&m, s);
    ir_mutator_free(&m);
    return r;
}
