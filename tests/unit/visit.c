/* Unit tests of the traversal: the visitor reaches every expression position
 * (types, layouts, call/tile arguments and keywords, attrs, scope ids, loops,
 * Python values, accesses), definitions and scopes arrive in order, and the
 * mutator rebuilds only what changed, replaces buffers whose type changed at
 * every use, honours pre-mapped replacements, splices sequences and gives
 * fresh identities for hygienic inlining. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ir/visit.h"
#include "irb.h"

/* ---------------------------------------------------------------- a function using `x` everywhere
 */
typedef struct Everywhere {
    IrModule *m;
    IrExpr *x;
    int uses; /* how many positions hold x */
} Everywhere;

static IrExpr *X(Everywhere *w)
{
    w->uses++;
    return w->x;
}

static IrKwarg *kw(Everywhere *w, const char *key)
{
    IrKwarg *k = TX_NEW(&w->m->arena, IrKwarg);
    k->key = key, k->value = X(w);
    return k;
}

static IrLayout *layout_with_x(Everywhere *w)
{
    IrModule *m = w->m;
    IrLayout *l = TX_NEW(&m->arena, IrLayout);
    l->kind = IR_LAYOUT_TILE;
    l->nshard = 1, l->nreplica = 1, l->noffset = 1;
    l->shard = TX_NEW(&m->arena, IrIter);
    *l->shard = (IrIter){X(w), X(w), "laneid"};
    l->replica = TX_NEW(&m->arena, IrIter);
    *l->replica = (IrIter){X(w), irb_i(m, 1), "warpid"};
    l->offset = TX_NEW(&m->arena, IrAxisOffset);
    *l->offset = (IrAxisOffset){"m", X(w)};
    return l;
}

/* A param buffer with x in its shape, strides, elem_offset, layout and allocated_addr. */
static IrExpr *param_buffer(Everywhere *w)
{
    IrModule *m = w->m;
    IrExpr *a = irb_buffer(m, "A", IR_FLOAT32, "global", 1, X(w));
    IrBufferType *b = a->u.var.type->buf;
    b->nstrides = 1, b->strides = irb_exprs(m, 1, X(w));
    b->elem_offset = X(w);
    b->naddr = 1, b->allocated_addr = irb_exprs(m, 1, X(w));
    b->layout = layout_with_x(w);
    return a;
}

static IrExpr *python_values(Everywhere *w)
{
    IrModule *m = w->m;
    IrExpr *list = ir_node(&m->arena, IR_E_LIST, IR_VOID, (TxSpan){0});
    list->u.list.n = 1, list->u.list.items = irb_exprs(m, 1, X(w));
    IrExpr *dict = ir_node(&m->arena, IR_E_DICT, IR_VOID, (TxSpan){0});
    dict->u.list.n = 1, dict->u.list.kwargs = kw(w, "k");
    IrExpr *lam = ir_node(&m->arena, IR_E_LAMBDA, IR_VOID, (TxSpan){0});
    lam->u.lambda.n = 1, lam->u.lambda.params = irb_exprs(m, 1, irb_var(m, "i", IR_INT32));
    lam->u.lambda.body = X(w);
    IrLayout *tile = layout_with_x(w);
    IrLayout *compose = TX_NEW(&m->arena, IrLayout);
    compose->kind = IR_LAYOUT_COMPOSE, compose->tile = tile;
    compose->per_element = compose->swizzle_len = compose->atom_len = 3;
    IrExpr *lay = ir_node(&m->arena, IR_E_LAYOUT, IR_VOID, (TxSpan){0});
    lay->u.layout = compose;
    IrExpr *items = ir_node(&m->arena, IR_E_LIST, IR_VOID, (TxSpan){0});
    items->u.list.n = 4, items->u.list.items = irb_exprs(m, 4, list, dict, lam, lay);
    return items;
}

static IrExpr *scalar_exprs(Everywhere *w)
{
    IrModule *m = w->m;
    IrExpr *let = ir_node(&m->arena, IR_E_LET, IR_INT32, (TxSpan){0});
    let->u.op.var = irb_var(m, "t", IR_INT32), let->u.op.a = X(w), let->u.op.b = X(w);
    IrExpr *sel = ir_node(&m->arena, IR_E_SELECT, IR_INT32, (TxSpan){0});
    sel->u.op.cond = irb_bin(m, IR_E_LT, X(w), irb_i(m, 0));
    sel->u.op.a = let, sel->u.op.b = X(w);
    IrExpr *ramp = ir_node(&m->arena, IR_E_RAMP, ir_dtype_with_lanes(IR_INT32, 4), (TxSpan){0});
    ramp->u.op.a = X(w), ramp->u.op.b = X(w), ramp->u.op.lanes = 4;
    IrExpr *cast = ir_node(&m->arena, IR_E_CAST, IR_INT64, (TxSpan){0});
    cast->u.op.a = sel;
    IrExpr *call = irb_call(m, IR_OP_CALL_EXTERN, IR_INT32, 3, ir_str(&m->arena, "f", (TxSpan){0}),
                            cast, ramp);
    call->u.call.nkwargs = 1, call->u.call.kwargs = kw(w, "source_code");
    return call;
}

static IrStmt *access_stmts(Everywhere *w, IrExpr *a)
{
    IrModule *m = w->m;
    IrExpr *load = irb_load(m, a, 1, X(w));
    load->u.access.predicate = irb_bin(m, IR_E_EQ, X(w), irb_i(m, 0));
    IrStmt *store = irb_store(m, a, load, 1, X(w));
    store->u.store.predicate = irb_bin(m, IR_E_NE, X(w), irb_i(m, 0));
    IrExpr *reg = ir_node(&m->arena, IR_E_REGION, IR_VOID, (TxSpan){0});
    reg->u.access.buffer = a, reg->u.access.n = 1;
    reg->u.access.indices = irb_exprs(m, 1, X(w));
    reg->u.access.extents = irb_exprs(m, 1, X(w));
    IrStmt *tile = ir_stmt(&m->arena, IR_S_TILE, (TxSpan){0});
    tile->u.tile.op = IR_TILE_COPY;
    tile->u.tile.nargs = 2, tile->u.tile.args = irb_exprs(m, 2, reg, X(w));
    tile->u.tile.nworkspace = 1, tile->u.tile.workspace = kw(w, "ws");
    tile->u.tile.nconfig = 1, tile->u.tile.config = kw(w, "cfg");
    return irb_seq(m, 2, store, tile);
}

static IrStmt *loop_and_scopeids(Everywhere *w, IrStmt *body)
{
    IrModule *m = w->m;
    IrStmt *loop = irb_for(m, irb_var(m, "i", IR_INT32), X(w), body);
    loop->u.loop.min = X(w), loop->u.loop.step = X(w);
    loop->u.loop.nannot = 1, loop->u.loop.annot = kw(w, "pragma_unroll");
    IrStmt *sid = irb_scopeid(m, IR_SCOPEID_CTA_ID_IN_CLUSTER, 1, 2);
    sid->u.scopeid.extents[0] = X(w);
    sid->u.scopeid.npreferred = 1, sid->u.scopeid.preferred = irb_exprs(m, 1, X(w));
    return irb_seq(m, 2, sid, loop);
}

static IrStmt *control_stmts(Everywhere *w, IrStmt *inner)
{
    IrModule *m = w->m;
    IrExpr *buf = irb_buffer(m, "B", IR_FLOAT16, "shared", 1, X(w));
    buf->u.var.type->buf->layout = NULL; /* the default layout would repeat x */
    IrStmt *alloc = irb_alloc(m, buf);
    alloc->u.alloc.nannot = 1, alloc->u.alloc.annot = kw(w, "note");
    IrExpr *view = irb_buffer(m, "V", IR_FLOAT16, "shared", 1, X(w));
    view->u.var.type->buf->layout = NULL;
    IrStmt *decl = irb_decl(m, view, irb_call(m, IR_OP_ADDRESS_OF, IR_HANDLE, 1, X(w)));
    IrStmt *bind = irb_bind(m, irb_var(m, "y", IR_INT32), X(w));
    IrStmt *whl = ir_stmt(&m->arena, IR_S_WHILE, (TxSpan){0});
    whl->u.whl.cond = irb_bin(m, IR_E_GT, X(w), irb_i(m, 0));
    whl->u.whl.body = irb_eval(m, scalar_exprs(w));
    IrStmt *as = ir_stmt(&m->arena, IR_S_ASSERT, (TxSpan){0});
    as->u.assert_.cond = irb_bin(m, IR_E_LE, X(w), irb_i(m, 9));
    IrStmt *ret = ir_stmt(&m->arena, IR_S_RETURN, (TxSpan){0});
    ret->u.ret = X(w);
    IrStmt *branch = irb_if(m, irb_bin(m, IR_E_GE, X(w), irb_i(m, 1)), whl, as);
    IrStmt *attr = irb_attr(m, X(w), "pragma", python_values(w), inner);
    return irb_seq(m, 6, alloc, decl, bind, branch, attr, ret);
}

static IrFunc *everywhere_func(Everywhere *w)
{
    IrModule *m = w->m;
    w->x = irb_var(m, "x", IR_INT32);
    IrExpr *a = param_buffer(w);
    IrStmt *body = control_stmts(w, loop_and_scopeids(w, access_stmts(w, a)));
    IrFunc *f = irb_func(m, "f", body, 1, a);
    f->nattrs = 1, f->attrs = kw(w, "attr");
    return f;
}

/* ---------------------------------------------------------------- counting visitor */
typedef struct Count {
    const IrExpr *target;
    int uses, defs, scopes, max_depth, depth;
} Count;

static bool count_expr(IrVisitor *v, const IrExpr *e)
{
    Count *c = v->ctx;
    c->uses += e == c->target;
    return true;
}

static void count_def(IrVisitor *v, const IrExpr *var, const IrStmt *where)
{
    (void)var, (void)where;
    ((Count *)v->ctx)->defs++;
}

static void count_enter(IrVisitor *v)
{
    Count *c = v->ctx;
    c->scopes++;
    if (++c->depth > c->max_depth)
        c->max_depth = c->depth;
}

static void count_exit(IrVisitor *v) { ((Count *)v->ctx)->depth--; }

static Count count_in(const IrFunc *f, const IrExpr *target)
{
    Count c = {.target = target};
    IrVisitor v = {.ctx = &c, .expr = count_expr, .def = count_def,
                   .scope_enter = count_enter, .scope_exit = count_exit};
    ir_visit_func(&v, f);
    assert_int_equal(c.depth, 0);
    return c;
}

static void test_visitor_reaches_every_position(void **state)
{
    (void)state;
    Everywhere w = {.m = irb_module(1)};
    IrFunc *f = everywhere_func(&w);
    Count c = count_in(f, w.x);
    assert_true(w.uses >= 45);
    assert_int_equal(c.uses, w.uses);
    /* A, B, V, y, i (loop), cta_id_in_cluster, t (let), i (lambda) */
    assert_int_equal(c.defs, 8);
    ir_module_free(w.m);
}

/* Skipping children: an expr hook returning false hides a subtree. */
static bool skip_loads(IrVisitor *v, const IrExpr *e)
{
    count_expr(v, e);
    return e->kind != IR_E_LOAD;
}

static void test_visitor_skip(void **state)
{
    (void)state;
    IrModule *m = irb_module(1);
    IrExpr *i = irb_var(m, "i", IR_INT32);
    IrExpr *a = irb_buffer(m, "A", IR_INT32, "global", 1, irb_i(m, 4));
    IrStmt *body = irb_store(m, a, irb_load(m, a, 1, i), 1, i);
    Count c = {.target = i};
    IrVisitor v = {.ctx = &c, .expr = skip_loads};
    ir_visit_stmt(&v, body);
    assert_int_equal(c.uses, 1);
    ir_module_free(m);
}

/* ---------------------------------------------------------------- mutator */
typedef struct Replace {
    const IrExpr *from;
    IrExpr *to;
} Replace;

static IrExpr *replace_expr(IrMutator *mu, IrExpr *e)
{
    Replace *r = mu->ctx;
    return e == r->from ? r->to : NULL;
}

static void test_mutator_identity_and_everywhere(void **state)
{
    (void)state;
    Everywhere w = {.m = irb_module(1)};
    IrFunc *f = everywhere_func(&w);
    IrMutator none = {.arena = &w.m->arena};
    assert_ptr_equal(ir_mutate_func(&none, f), f);
    ir_mutator_free(&none);

    IrExpr *y = irb_var(w.m, "y2", IR_INT32);
    Replace r = {w.x, y};
    IrMutator mu = {.ctx = &r, .arena = &w.m->arena, .expr = replace_expr};
    IrFunc *g = ir_mutate_func(&mu, f);
    assert_ptr_not_equal(g, f);
    assert_int_equal(count_in(g, w.x).uses, 0);
    assert_int_equal(count_in(g, y).uses, w.uses);
    /* the original is untouched */
    assert_int_equal(count_in(f, w.x).uses, w.uses);
    assert_int_equal(count_in(f, y).uses, 0);
    /* the param's type changed, so the param is a new variable */
    assert_ptr_not_equal(g->params[0], f->params[0]);
    assert_ptr_equal(ir_buf(g->params[0])->shape[0], y);
    ir_mutator_free(&mu);
    ir_module_free(w.m);
}

/* A kernel where n sizes buffer A; A is used by a load, a store, a region, a
 * DeclBuffer's data and as a call argument. */
typedef struct Kernel {
    IrModule *m;
    IrExpr *n, *a, *v;
    IrFunc *f;
} Kernel;

static Kernel kernel_using_a(void)
{
    Kernel k = {.m = irb_module(1)};
    IrModule *m = k.m;
    k.n = irb_var(m, "n", IR_INT32);
    k.a = irb_buffer(m, "A", IR_FLOAT32, "shared", 1, k.n);
    k.v = irb_buffer(m, "V", IR_FLOAT32, "shared", 1, k.n);
    IrExpr *i = irb_var(m, "i", IR_INT32);
    IrStmt *store = irb_store(m, k.a, irb_load(m, k.a, 1, i), 1, i);
    IrStmt *tile = ir_stmt(&m->arena, IR_S_TILE, (TxSpan){0});
    tile->u.tile.op = IR_TILE_ZERO, tile->u.tile.nargs = 1;
    tile->u.tile.args = irb_exprs(m, 1, irb_full_region(m, k.a));
    IrStmt *body = irb_seq(m, 5, irb_alloc(m, k.a), irb_decl(m, k.v, irb_data(m, k.a)),
                           irb_for(m, i, k.n, store), tile,
                           irb_eval(m, irb_call(m, IR_OP_ADDRESS_OF, IR_HANDLE, 1,
                                                irb_load(m, k.a, 1, irb_i(m, 0)))));
    k.f = irb_func(m, "k", body, 1, k.n);
    return k;
}

static void test_mutator_buffer_type_change_reaches_every_use(void **state)
{
    (void)state;
    Kernel k = kernel_using_a();
    IrExpr *c128 = irb_i(k.m, 128);
    Replace r = {k.n, c128};
    IrMutator mu = {.ctx = &r, .arena = &k.m->arena, .expr = replace_expr};
    IrFunc *g = ir_mutate_func(&mu, k.f);
    IrExpr *a2 = ir_mutator_lookup(&mu, k.a);
    assert_non_null(a2);
    assert_ptr_not_equal(a2, k.a);
    assert_ptr_equal(ir_buf(a2)->shape[0], c128);
    assert_string_equal(a2->u.var.name, "A");
    /* V's shape changed too */
    assert_non_null(ir_mutator_lookup(&mu, k.v));
    Count old = count_in(g, k.a), now = count_in(g, a2);
    assert_int_equal(old.uses, 0);
    assert_int_equal(now.uses, 5); /* data, load, store, region, address_of load */
    IrStmt *const *s = g->body->u.seq.stmts;
    assert_ptr_equal(s[0]->u.alloc.buffer, a2);
    assert_ptr_equal(s[1]->u.decl.data->u.call.args[0], a2);
    assert_ptr_equal(s[2]->u.loop.body->u.store.buffer, a2);
    assert_ptr_equal(s[3]->u.tile.args[0]->u.access.buffer, a2);
    ir_mutator_free(&mu);
    ir_module_free(k.m);
}

static void test_mutator_premapped_definition(void **state)
{
    (void)state;
    Kernel k = kernel_using_a();
    IrExpr *husk = irb_buffer(k.m, "A_flat", IR_FLOAT32, "shared", 1, irb_i(k.m, 64));
    IrMutator mu = {.arena = &k.m->arena};
    ir_mutator_map_var(&mu, k.a, husk);
    IrFunc *g = ir_mutate_func(&mu, k.f);
    assert_ptr_equal(g->body->u.seq.stmts[0]->u.alloc.buffer, husk);
    assert_int_equal(count_in(g, husk).uses, 5);
    assert_int_equal(count_in(g, k.a).uses, 0);
    assert_null(ir_mutator_lookup(&mu, k.v)); /* its type did not change */
    ir_mutator_free(&mu);
    ir_module_free(k.m);
}

/* A statement hook that expands every Evaluate into two and drops Tile calls. */
static IrStmt *splice_stmt(IrMutator *mu, IrStmt *s)
{
    if (s->kind == IR_S_EVAL) {
        IrStmt *two[2] = {s, s};
        IrStmt *seq = ir_stmt(mu->arena, IR_S_SEQ, s->span);
        seq->u.seq.n = 2;
        seq->u.seq.stmts = tx_arena_memdup(mu->arena, two, sizeof two);
        return seq;
    }
    if (s->kind == IR_S_TILE)
        return ir_stmt(mu->arena, IR_S_SEQ, s->span);
    return NULL;
}

static void test_mutator_splices_sequences(void **state)
{
    (void)state;
    Kernel k = kernel_using_a();
    IrMutator mu = {.arena = &k.m->arena, .stmt = splice_stmt};
    IrFunc *g = ir_mutate_func(&mu, k.f);
    assert_int_equal(g->body->u.seq.n, 5); /* 5 - tile + one more eval */
    assert_int_equal(g->body->u.seq.stmts[3]->kind, IR_S_EVAL);
    assert_int_equal(g->body->u.seq.stmts[4]->kind, IR_S_EVAL);
    assert_int_equal(k.f->body->u.seq.n, 5);
    assert_int_equal(k.f->body->u.seq.stmts[3]->kind, IR_S_TILE);
    ir_mutator_free(&mu);
    ir_module_free(k.m);
}

static void test_substitute_fresh_defs(void **state)
{
    (void)state;
    IrModule *m = irb_module(1);
    IrExpr *p = irb_var(m, "p", IR_INT32), *t = irb_var(m, "t", IR_INT32);
    IrExpr *out = irb_buffer(m, "O", IR_INT32, "global", 1, irb_i(m, 1));
    /* t = p + 1; O[0] = t */
    IrStmt *body = irb_seq(m, 2, irb_bind(m, t, irb_bin(m, IR_E_ADD, p, irb_i(m, 1))),
                           irb_store(m, out, t, 1, irb_i(m, 0)));
    IrExpr *arg = irb_i(m, 7);
    IrSubst map[] = {{p, arg}};
    IrStmt *same = ir_substitute_stmt(&m->arena, body, map, 1, false);
    IrStmt *fresh = ir_substitute_stmt(&m->arena, body, map, 1, true);
    assert_ptr_equal(same->u.seq.stmts[0]->u.bind.var, t);
    assert_ptr_equal(same->u.seq.stmts[0]->u.bind.value->u.op.a, arg);
    IrExpr *t2 = fresh->u.seq.stmts[0]->u.bind.var;
    assert_ptr_not_equal(t2, t);
    assert_string_equal(t2->u.var.name, "t");
    assert_ptr_equal(fresh->u.seq.stmts[1]->u.store.value, t2);
    assert_ptr_equal(fresh->u.seq.stmts[1]->u.store.buffer, out); /* free: kept */
    IrExpr *e = irb_bin(m, IR_E_MUL, p, p);
    IrExpr *e2 = ir_substitute(&m->arena, e, map, 1);
    assert_ptr_equal(e2->u.op.a, arg);
    assert_ptr_equal(e2->u.op.b, arg);
    assert_ptr_equal(ir_substitute(&m->arena, e, NULL, 0), e);
    ir_module_free(m);
}

/* A fresh copy of f(A: T.Buffer(("n",)), n) is alpha-equivalent to it: A's
 * shape names the new n although n is defined after A. */
static void test_mutator_fresh_params(void **state)
{
    (void)state;
    IrModule *m = irb_module(1);
    IrExpr *n = irb_var(m, "n", IR_INT32);
    IrExpr *a = irb_buffer(m, "A", IR_FLOAT32, "global", 1, n);
    IrExpr *i = irb_var(m, "i", IR_INT32);
    IrFunc *f = irb_func(m, "f", irb_for(m, i, n, irb_store(m, a, irb_load(m, a, 1, i), 1, i)), 2,
                         a, n);
    IrMutator mu = {.arena = &m->arena, .fresh_defs = true};
    IrFunc *g = ir_mutate_func(&mu, f);
    assert_ptr_not_equal(g->params[0], a);
    assert_ptr_not_equal(g->params[1], n);
    assert_ptr_equal(ir_buf(g->params[0])->shape[0], g->params[1]);
    assert_ptr_equal(ir_buf(a)->shape[0], n); /* the original is untouched */
    assert_true(ir_func_equal(f, g));
    assert_int_equal(ir_func_hash(f), ir_func_hash(g));
    ir_mutator_free(&mu);
    ir_module_free(m);
}

static void test_ptrmap(void **state)
{
    (void)state;
    IrPtrMap map = {0};
    static int keys[1000];
    for (int i = 0; i < 1000; i++)
        ir_ptrmap_put(&map, &keys[i], (uintptr_t)i * 3);
    ir_ptrmap_put(&map, &keys[5], 1);
    uintptr_t v = 0;
    assert_int_equal(map.len, 1000);
    for (int i = 0; i < 1000; i++) {
        assert_true(ir_ptrmap_get(&map, &keys[i], &v));
        assert_int_equal(v, i == 5 ? 1 : (uintptr_t)i * 3);
    }
    assert_false(ir_ptrmap_get(&map, &v, NULL));
    assert_false(ir_ptrmap_get(&map, NULL, NULL));
    ir_ptrmap_free(&map);
    assert_false(ir_ptrmap_get(&map, &keys[0], NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_visitor_reaches_every_position),
        cmocka_unit_test(test_visitor_skip),
        cmocka_unit_test(test_mutator_identity_and_everywhere),
        cmocka_unit_test(test_mutator_buffer_type_change_reaches_every_use),
        cmocka_unit_test(test_mutator_premapped_definition),
        cmocka_unit_test(test_mutator_splices_sequences),
        cmocka_unit_test(test_substitute_fresh_defs),
        cmocka_unit_test(test_mutator_fresh_params),
        cmocka_unit_test(test_ptrmap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
