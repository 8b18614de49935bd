/* Unit tests of structural equality and hashing: alpha-equivalent functions
 * (other names, other variables, other spans) are equal with equal hashes;
 * changing one dtype, constant, layout iter, scope, PTX slot or marker,
 * keyword, string or float makes them differ; free variables match by order
 * of first occurrence, bound ones by definition; modules match functions by
 * name. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ir/visit.h"
#include "irb.h"

/* What one built function may vary in. */
typedef struct Variant {
    const char *suffix; /* appended to every name */
    IrDType a_dtype;
    int64_t factor;
    const char *layout_axis;
    int64_t layout_stride;
    const char *scope;
    const char *ptx_sem, *ptx_marker;
    double fval;
    const char *kwarg_key, *extern_name;
    bool located; /* give nodes spans */
} Variant;

static const Variant base_variant = {
    .suffix = "", .factor = 2, .layout_axis = "laneid", .layout_stride = 1, .scope = "shared",
    .ptx_sem = "acquire", .ptx_marker = "", .fval = 1.5, .kwarg_key = "source_code",
    .extern_name = "foo"};

static Variant variant(void)
{
    Variant v = base_variant;
    v.a_dtype = IR_FLOAT16;
    return v;
}

static const char *nm(IrModule *m, const Variant *v, const char *name)
{
    return tx_arena_printf(&m->arena, "%s%s", name, v->suffix);
}

static IrExpr *swizzled_smem(IrModule *m, const Variant *v)
{
    IrExpr *s = irb_buffer(m, nm(m, v, "S"), v->a_dtype, v->scope, 1, irb_i(m, 64));
    IrLayout *tile = TX_NEW(&m->arena, IrLayout);
    tile->kind = IR_LAYOUT_TILE, tile->nshard = 2;
    tile->shard = TX_NEW_ARRAY(&m->arena, IrIter, 2);
    tile->shard[0] = (IrIter){irb_i(m, 2), irb_i(m, 32), "m"};
    tile->shard[1] = (IrIter){irb_i(m, 32), irb_i(m, v->layout_stride), v->layout_axis};
    IrLayout *l = TX_NEW(&m->arena, IrLayout);
    l->kind = IR_LAYOUT_COMPOSE, l->per_element = 3, l->swizzle_len = 3, l->atom_len = 3;
    l->swizzle_inner = true, l->tile = tile;
    s->u.var.type->buf->layout = l;
    return s;
}

static IrExpr *ptx_call(IrModule *m, const Variant *v, IrExpr *s)
{
    IrExpr *c = irb_call(m, IR_OP_PTX, IR_VOID, 1, irb_load(m, s, 1, irb_i(m, 0)));
    c->u.call.ptx_entry = 3;
    c->u.call.nptx_slots = 3;
    c->u.call.ptx_slots = TX_NEW_ARRAY(&m->arena, const char *, 3);
    c->u.call.ptx_slots[0] = "", c->u.call.ptx_slots[1] = v->ptx_sem;
    c->u.call.ptx_slots[2] = "b32";
    c->u.call.ptx_marker = v->ptx_marker;
    return c;
}

static IrExpr *extern_call(IrModule *m, const Variant *v, IrExpr *arg)
{
    IrExpr *c = irb_call(m, IR_OP_CALL_EXTERN, IR_FLOAT32, 2,
                         ir_str(&m->arena, v->extern_name, (TxSpan){0}), arg);
    c->u.call.nkwargs = 1;
    c->u.call.kwargs = TX_NEW(&m->arena, IrKwarg);
    c->u.call.kwargs->key = v->kwarg_key;
    c->u.call.kwargs->value = ir_float(&m->arena, IR_FLOAT32, v->fval, (TxSpan){0});
    return c;
}

/* def f(A: T.Buffer((n, 64)), n: T.int32):
 *     bx = T.cta_id([4]); S = alloc(swizzled)
 *     for i in range(n): t = i * factor; S[t % 64] = A[bx, i]
 *     T.ptx.ld(S[0], ...); T.evaluate(T.call_extern("float32", "foo", fval, key=fval)) */
static IrFunc *build(IrModule *m, const Variant *v)
{
    IrExpr *n = irb_var(m, nm(m, v, "n"), IR_INT32);
    IrExpr *a = irb_buffer(m, nm(m, v, "A"), v->a_dtype, "global", 2, n, irb_i(m, 64));
    IrStmt *bx = irb_scopeid(m, IR_SCOPEID_CTA_ID, 1, 4);
    IrExpr *s = swizzled_smem(m, v);
    IrExpr *i = irb_var(m, nm(m, v, "i"), IR_INT32), *t = irb_var(m, nm(m, v, "t"), IR_INT32);
    IrStmt *loop_body = irb_seq(
        m, 2, irb_bind(m, t, irb_bin(m, IR_E_MUL, i, irb_i(m, v->factor))),
        irb_store(m, s, irb_load(m, a, 2, bx->u.scopeid.vars[0], i), 1,
                  irb_bin(m, IR_E_FLOORMOD, t, irb_i(m, 64))));
    IrStmt *body = irb_seq(m, 5, bx, irb_alloc(m, s), irb_for(m, i, n, loop_body),
                           irb_eval(m, ptx_call(m, v, s)),
                           irb_eval(m, extern_call(m, v, ir_float(&m->arena, IR_FLOAT32, v->fval,
                                                                   (TxSpan){0}))));
    if (v->located) {
        body->span = irb_line(m, 2);
        body->u.seq.stmts[0]->span = irb_line(m, 3);
        n->span = irb_line(m, 1);
    }
    return irb_func(m, nm(m, v, "f"), body, 2, a, n);
}

/* Builds the base function and one variant in two modules and compares. */
static bool differs(const Variant *v, bool *hash_differs)
{
    Variant b = variant();
    IrModule *m1 = irb_module(4), *m2 = irb_module(4);
    IrFunc *f1 = build(m1, &b), *f2 = build(m2, v);
    bool eq = ir_func_equal(f1, f2);
    assert_true(ir_func_equal(f2, f1) == eq);
    *hash_differs = ir_func_hash(f1) != ir_func_hash(f2);
    ir_module_free(m1);
    ir_module_free(m2);
    return !eq;
}

static void test_alpha_equivalent_equal(void **state)
{
    (void)state;
    Variant v = variant();
    v.suffix = "_renamed", v.located = true;
    bool hd;
    assert_false(differs(&v, &hd));
    assert_false(hd);
    IrModule *m = irb_module(4); /* build gives nodes the spans of lines 1-3 */
    IrFunc *f = build(m, &v);
    assert_true(ir_func_equal(f, f));
    assert_int_equal(ir_func_hash(f), ir_func_hash(f));
    ir_module_free(m);
}

static void expect_differs(const Variant *v)
{
    bool hd;
    assert_true(differs(v, &hd));
    assert_true(hd);
}

static void test_one_change_differs(void **state)
{
    (void)state;
    Variant v;
    v = variant(), v.a_dtype = IR_FLOAT32;
    expect_differs(&v);
    v = variant(), v.factor = 3;
    expect_differs(&v);
    v = variant(), v.layout_axis = "warpid";
    expect_differs(&v);
    v = variant(), v.layout_stride = 2;
    expect_differs(&v);
    v = variant(), v.scope = "shared.dyn";
    expect_differs(&v);
    v = variant(), v.ptx_sem = "relaxed";
    expect_differs(&v);
    v = variant(), v.ptx_marker = "pred";
    expect_differs(&v);
    v = variant(), v.fval = 2.5;
    expect_differs(&v);
    v = variant(), v.kwarg_key = "return_type";
    expect_differs(&v);
    v = variant(), v.extern_name = "bar";
    expect_differs(&v);
}

static void test_floats_bitwise(void **state)
{
    (void)state;
    Variant a = variant(), b = variant();
    a.fval = NAN, b.fval = NAN;
    IrModule *m1 = irb_module(1), *m2 = irb_module(1);
    IrFunc *f1 = build(m1, &a), *f2 = build(m2, &b);
    assert_true(ir_func_equal(f1, f2));
    assert_int_equal(ir_func_hash(f1), ir_func_hash(f2));
    ir_module_free(m1);
    ir_module_free(m2);
    Variant z = variant();
    z.fval = -0.0;
    Variant p = variant();
    p.fval = 0.0;
    m1 = irb_module(1), m2 = irb_module(1);
    assert_false(ir_func_equal(build(m1, &z), build(m2, &p)));
    ir_module_free(m1);
    ir_module_free(m2);
}

/* eval(x + y); eval(<last>) with x, y free. */
static IrFunc *two_free(IrModule *m, bool swap_names, bool last_is_first)
{
    IrExpr *x = irb_var(m, swap_names ? "m" : "n", IR_INT32);
    IrExpr *y = irb_var(m, swap_names ? "n" : "m", IR_INT32);
    IrStmt *body = irb_seq(m, 2, irb_eval(m, irb_bin(m, IR_E_ADD, x, y)),
                           irb_eval(m, last_is_first ? x : y));
    return irb_func(m, "f", body, 0);
}

static void test_free_vars_by_first_occurrence(void **state)
{
    (void)state;
    IrModule *m = irb_module(1);
    IrFunc *a = two_free(m, false, true), *b = two_free(m, true, true);
    IrFunc *c = two_free(m, false, false);
    assert_true(ir_func_equal(a, b));
    assert_int_equal(ir_func_hash(a), ir_func_hash(b));
    assert_false(ir_func_equal(a, c));
    /* a free variable never equals a bound one */
    IrExpr *i = irb_var(m, "i", IR_INT32), *j = irb_var(m, "j", IR_INT32);
    IrFunc *bound = irb_func(m, "g", irb_for(m, i, irb_i(m, 4), irb_eval(m, i)), 0);
    IrFunc *free_ = irb_func(m, "g", irb_for(m, irb_var(m, "i", IR_INT32), irb_i(m, 4),
                                             irb_eval(m, j)), 0);
    assert_false(ir_func_equal(bound, free_));
    ir_module_free(m);
}

/* x = 1; y = 2; eval(<x or y>) */
static IrFunc *two_binds(IrModule *m, bool use_second)
{
    IrExpr *x = irb_var(m, "x", IR_INT32), *y = irb_var(m, "y", IR_INT32);
    IrStmt *body = irb_seq(m, 3, irb_bind(m, x, irb_i(m, 1)), irb_bind(m, y, irb_i(m, 1)),
                           irb_eval(m, use_second ? y : x));
    return irb_func(m, "f", body, 0);
}

static void test_bound_vars_by_definition(void **state)
{
    (void)state;
    IrModule *m = irb_module(1);
    assert_true(ir_func_equal(two_binds(m, false), two_binds(m, false)));
    assert_false(ir_func_equal(two_binds(m, false), two_binds(m, true)));
    /* a var's type is part of its definition */
    IrExpr *x64 = irb_var(m, "x", IR_INT64);
    IrFunc *f64 =
        irb_func(m, "f", irb_bind(m, x64, ir_int(&m->arena, IR_INT64, 1, (TxSpan){0})), 0);
    IrExpr *x32 = irb_var(m, "x", IR_INT32);
    IrExpr *v64 = ir_int(&m->arena, IR_INT64, 1, (TxSpan){0});
    IrFunc *f32 = irb_func(m, "f", irb_bind(m, x32, v64), 0);
    assert_false(ir_func_equal(f64, f32));
    ir_module_free(m);
}

static IrFunc *launch(IrModule *m, const char *tag)
{
    IrExpr *tx = irb_var(m, "tx", IR_INT32);
    IrStmt *s = irb_attr(m, tx, "thread_extent", irb_i(m, 128), irb_eval(m, tx));
    s->u.attr.thread_tag = tag;
    return irb_func(m, "k", s, 0);
}

static void test_attr_thread_tag(void **state)
{
    (void)state;
    IrModule *m = irb_module(1);
    assert_true(ir_func_equal(launch(m, "threadIdx.x"), launch(m, "threadIdx.x")));
    assert_false(ir_func_equal(launch(m, "threadIdx.x"), launch(m, "threadIdx.y")));
    assert_false(ir_func_equal(launch(m, "threadIdx.x"), launch(m, NULL)));
    ir_module_free(m);
}

/* T.reinterpret(T.handle(<elem>, "shared").ty, x) */
static IrFunc *reinterpret_ptr(IrModule *m, IrDType elem)
{
    IrExpr *x = irb_var(m, "x", IR_UINT64);
    IrExpr *c = irb_call(m, IR_OP_REINTERPRET, IR_HANDLE, 1, x);
    c->u.call.ptr_type = ir_ptr_type(&m->arena, elem, "shared");
    return irb_func(m, "f", irb_eval(m, c), 1, x);
}

static void test_call_pointer_type(void **state)
{
    (void)state;
    IrModule *m = irb_module(1);
    assert_true(ir_func_equal(reinterpret_ptr(m, IR_FLOAT16), reinterpret_ptr(m, IR_FLOAT16)));
    assert_false(ir_func_equal(reinterpret_ptr(m, IR_FLOAT16), reinterpret_ptr(m, IR_UINT64)));
    ir_module_free(m);
}

static void test_module_equal(void **state)
{
    (void)state;
    Variant v = variant(), g = variant();
    g.suffix = "_g";
    IrModule *m1 = irb_module(1), *m2 = irb_module(1);
    build(m1, &v), build(m1, &g);
    build(m2, &g), build(m2, &v); /* other order */
    assert_true(ir_module_equal(m1, m2));
    m2->funcs[0]->name = "other";
    assert_false(ir_module_equal(m1, m2));
    m2->funcs[0]->name = "f_g";
    m1->nattrs = 1;
    m1->attrs = TX_NEW(&m1->arena, IrKwarg);
    m1->attrs->key = "target", m1->attrs->value = ir_str(&m1->arena, "cuda", (TxSpan){0});
    assert_false(ir_module_equal(m1, m2));
    m2->nattrs = 1, m2->attrs = m1->attrs;
    assert_true(ir_module_equal(m1, m2));
    ir_module_free(m1);
    ir_module_free(m2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alpha_equivalent_equal),
        cmocka_unit_test(test_one_change_differs),
        cmocka_unit_test(test_floats_bitwise),
        cmocka_unit_test(test_free_vars_by_first_occurrence),
        cmocka_unit_test(test_bound_vars_by_definition),
        cmocka_unit_test(test_attr_thread_tag),
        cmocka_unit_test(test_call_pointer_type),
        cmocka_unit_test(test_module_equal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
