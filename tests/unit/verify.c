/* Unit tests of the verifier on hand-built IR: each class of error is
 * reported with its message at the offending node's line, and well-formed
 * kernels (free symbolic shapes, scalar buffers, vector stores, consistent
 * scope ids, a valid TMA encode) verify cleanly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ir/visit.h"
#include "irb.h"

/* Verifies and expects exactly one error containing `msg` at `line`. */
static void expect_error(IrModule *m, const char *msg, int line)
{
    assert_false(ir_verify(m));
    int i = irb_find_diag(m, msg);
    if (i < 0 || m->diags.nerrors != 1) {
        for (int k = 0; k < m->diags.list.len; k++)
            print_message("diag: line %d: %s\n", irb_line_of(m->diags.list.items[k].span),
                          m->diags.list.items[k].msg);
        fail_msg("expected one error containing \"%s\"", msg);
    }
    assert_int_equal(m->diags.list.items[i].sev, TX_SEV_ERROR);
    assert_int_equal(irb_line_of(m->diags.list.items[i].span), line);
    assert_int_equal(m->diags.nerrors, 1);
    ir_module_free(m);
}

static void expect_clean(IrModule *m)
{
    bool ok = ir_verify(m);
    for (int k = 0; k < m->diags.list.len; k++)
        print_message("unexpected: %s\n", m->diags.list.items[k].msg);
    assert_true(ok);
    assert_int_equal(m->diags.list.len, 0);
    ir_module_free(m);
}

static IrStmt *at(IrModule *m, IrStmt *s, int line)
{
    s->span = irb_line(m, line);
    return s;
}

/* ---------------------------------------------------------------- definitions */
static void test_use_before_definition(void **state)
{
    (void)state;
    IrModule *m = irb_module(5);
    IrExpr *x = irb_var(m, "x", IR_INT32);
    x->span = irb_line(m, 3);
    IrExpr *out = irb_buffer(m, "O", IR_INT32, "global", 1, irb_i(m, 1));
    irb_func(m, "f", irb_seq(m, 2, at(m, irb_store(m, out, x, 1, irb_i(m, 0)), 2),
                             at(m, irb_bind(m, x, irb_i(m, 1)), 3)), 1, out);
    assert_false(ir_verify(m));
    int i = irb_find_diag(m, "use of 'x' before its definition");
    assert_true(i >= 0);
    assert_int_equal(irb_line_of(m->diags.list.items[i].span), 2);
    /* the note points at the definition */
    assert_int_equal(m->diags.list.items[i + 1].sev, TX_SEV_NOTE);
    assert_int_equal(irb_line_of(m->diags.list.items[i + 1].span), 3);
    assert_int_equal(m->diags.nerrors, 1);
    ir_module_free(m);
}

static void test_buffer_used_before_allocation(void **state)
{
    (void)state;
    IrModule *m = irb_module(5);
    IrExpr *s = irb_buffer(m, "S", IR_FLOAT32, "shared", 1, irb_i(m, 8));
    IrStmt *load = at(m, irb_eval(m, irb_load(m, s, 1, irb_i(m, 0))), 2);
    irb_func(m, "f", irb_seq(m, 2, load, at(m, irb_alloc(m, s), 4)), 0);
    expect_error(m, "use of 'S' before its definition", 2);
}

static void test_var_in_buffer_type_before_definition(void **state)
{
    (void)state;
    IrModule *m = irb_module(5);
    IrExpr *k = irb_var(m, "k", IR_INT32);
    IrExpr *s = irb_buffer(m, "S", IR_FLOAT32, "shared", 1, k); /* sized by k */
    irb_func(m, "f",
             irb_seq(m, 2, at(m, irb_alloc(m, s), 2), at(m, irb_bind(m, k, irb_i(m, 4)), 3)), 0);
    expect_error(m, "use of 'k' before its definition", 2);
}

static void test_use_outside_scope(void **state)
{
    (void)state;
    IrModule *m = irb_module(5);
    IrExpr *i = irb_var(m, "i", IR_INT32);
    IrExpr *t = irb_var(m, "t", IR_INT32);
    /* for i: t = i  /  then: eval(t) after the loop */
    IrStmt *loop = at(m, irb_for(m, i, irb_i(m, 4), irb_seq(m, 1, irb_bind(m, t, i))), 2);
    irb_func(m, "f", irb_seq(m, 2, loop, at(m, irb_eval(m, t), 4)), 0);
    expect_error(m, "use of 't' outside the scope of its definition", 4);
}

static void test_if_branches_are_scopes(void **state)
{
    (void)state;
    IrModule *m = irb_module(5);
    IrExpr *t = irb_var(m, "t", IR_INT32), *c = irb_var(m, "c", IR_BOOL);
    IrStmt *then_s = irb_bind(m, t, irb_i(m, 1)); /* a bare statement, not a sequence */
    IrStmt *else_s = at(m, irb_eval(m, t), 3);
    irb_func(m, "f", at(m, irb_if(m, c, then_s, else_s), 1), 1, c);
    expect_error(m, "use of 't' outside the scope", 3);
}

static void test_redefinition(void **state)
{
    (void)state;
    IrModule *m = irb_module(5);
    IrExpr *x = irb_var(m, "x", IR_INT32);
    irb_func(m, "f", irb_seq(m, 2, at(m, irb_bind(m, x, irb_i(m, 1)), 2),
                             at(m, irb_bind(m, x, irb_i(m, 2)), 3)), 0);
    expect_error(m, "redefinition of 'x'", 3);

    m = irb_module(5);
    IrExpr *i = irb_var(m, "i", IR_INT32);
    IrStmt *l1 = at(m, irb_for(m, i, irb_i(m, 4), irb_eval(m, i)), 2);
    IrStmt *l2 = at(m, irb_for(m, i, irb_i(m, 4), irb_eval(m, i)), 4);
    irb_func(m, "f", irb_seq(m, 2, l1, l2), 0);
    expect_error(m, "'i' is defined more than once", 4);

    m = irb_module(5);
    IrExpr *p = irb_var(m, "p", IR_INT32);
    irb_func(m, "f", at(m, irb_bind(m, p, irb_i(m, 1)), 2), 1, p);
    expect_error(m, "redefinition of 'p'", 2);
}

static void test_free_variables_are_legal(void **state)
{
    (void)state;
    IrModule *m = irb_module(5);
    IrExpr *n = irb_var(m, "n", IR_INT32), *k = irb_var(m, "k", IR_INT32);
    IrExpr *a = irb_buffer(m, "A", IR_FLOAT32, "global", 1, n); /* n: a later param */
    IrExpr *b = irb_buffer(m, "B", IR_FLOAT32, "global", 1, k); /* k: free */
    IrExpr *i = irb_var(m, "i", IR_INT32);
    IrStmt *copy = irb_store(m, a, irb_load(m, b, 1, i), 1, i);
    irb_func(m, "f", irb_for(m, i, irb_bin(m, IR_E_MIN, n, k), copy), 3, a, b, n);
    expect_clean(m);
}

/* ---------------------------------------------------------------- dtypes */
static void test_binary_dtype_mismatch(void **state)
{
    (void)state;
    IrModule *m = irb_module(5);
    IrExpr *x = irb_var(m, "x", IR_INT32), *y = irb_var(m, "y", IR_INT64);
    IrExpr *sum = irb_bin(m, IR_E_ADD, x, y);
    sum->span = irb_line(m, 2);
    irb_func(m, "f", at(m, irb_eval(m, sum), 1), 2, x, y);
    expect_error(
        m, "operands of '+' have different dtypes: int32 and int64; convert one with T.Cast", 2);

    m = irb_module(5);
    x = irb_var(m, "x", IR_INT32);
    IrExpr *lt = irb_bin(m, IR_E_LT, x, irb_i(m, 1));
    lt->dtype = IR_INT32;
    irb_func(m, "f", at(m, irb_eval(m, lt), 3), 1, x);
    expect_error(m, "'<' of int32 operands must produce bool, not int32", 3);

    m = irb_module(5);
    x = irb_var(m, "x", IR_INT32);
    irb_func(m, "f", at(m, irb_eval(m, irb_bin(m, IR_E_AND, x, x)), 3), 1, x);
    expect_error(m, "an operand of a logical operator must be a boolean, not int32", 3);
}

static void test_conditions(void **state)
{
    (void)state;
    IrModule *m = irb_module(5);
    IrExpr *f = irb_var(m, "f", IR_FLOAT32);
    irb_func(m, "g", at(m, irb_if(m, f, irb_eval(m, irb_i(m, 0)), NULL), 2), 1, f);
    expect_error(m, "the condition of 'if' must be a boolean or an integer, not float32", 2);

    m = irb_module(5);
    IrExpr *u = irb_var(m, "u", IR_UINT32); /* if T.cuda.elect_sync(): is legal */
    irb_func(m, "g", at(m, irb_if(m, u, irb_eval(m, irb_i(m, 0)), NULL), 2), 1, u);
    expect_clean(m);

    m = irb_module(5);
    IrExpr *x = irb_var(m, "x", IR_INT32);
    IrStmt *as = ir_stmt(&m->arena, IR_S_ASSERT, irb_line(m, 3));
    as->u.assert_.cond = x;
    irb_func(m, "g", as, 1, x);
    expect_error(m, "the condition of 'assert' must be a boolean, not int32", 3);

    m = irb_module(5);
    x = irb_var(m, "x", IR_INT32);
    IrExpr *sel = ir_node(&m->arena, IR_E_SELECT, IR_INT32, irb_line(m, 4));
    sel->u.op.cond = x, sel->u.op.a = x, sel->u.op.b = x;
    irb_func(m, "g", irb_eval(m, sel), 1, x);
    expect_error(m, "the condition of T.Select must be a boolean", 4);

    m = irb_module(5);
    f = irb_var(m, "f", IR_FLOAT32);
    IrStmt *w = ir_stmt(&m->arena, IR_S_WHILE, irb_line(m, 2));
    w->u.whl.cond = f, w->u.whl.body = irb_eval(m, irb_i(m, 0));
    irb_func(m, "g", w, 1, f);
    expect_error(m, "the condition of 'while' must be a boolean or an integer", 2);
}

static void test_index_dtype_and_count(void **state)
{
    (void)state;
    IrModule *m = irb_module(5);
    IrExpr *a = irb_buffer(m, "A", IR_FLOAT32, "global", 2, irb_i(m, 4), irb_i(m, 4));
    IrExpr *f = irb_var(m, "f", IR_FLOAT32);
    irb_func(m, "g", at(m, irb_eval(m, irb_load(m, a, 2, irb_i(m, 0), f)), 2), 2, a, f);
    expect_error(m, "a buffer index must be an integer, not float32", 2);

    m = irb_module(5);
    a = irb_buffer(m, "A", IR_FLOAT32, "global", 2, irb_i(m, 4), irb_i(m, 4));
    irb_func(m, "g", at(m, irb_store(m, a, ir_float(&m->arena, IR_FLOAT32, 1, (TxSpan){0}), 1,
                                     irb_i(m, 0)), 3), 1, a);
    expect_error(m, "buffer 'A' has 2 dimensions but 1 index was given", 3);
}

static void test_store_dtype(void **state)
{
    (void)state;
    IrModule *m = irb_module(5);
    IrExpr *a = irb_buffer(m, "A", IR_FLOAT32, "global", 1, irb_i(m, 8));
    IrExpr *h = ir_float(&m->arena, IR_FLOAT16, 1, (TxSpan){0});
    irb_func(m, "g", at(m, irb_store(m, a, h, 1, irb_i(m, 0)), 2), 1, a);
    expect_error(m,
                 "cannot store a float16 value into 'A', a buffer of float32; convert it with "
                 "T.Cast(\"float32\", ...)",
                 2);
}

static void test_pointer_stored_as_integer(void **state)
{
    (void)state;
    IrModule *m = irb_module(5);
    IrExpr *a = irb_buffer(m, "A", IR_UINT64, "global", 1, irb_i(m, 4));
    IrExpr *p = irb_var(m, "p", IR_HANDLE);
    irb_func(m, "g", irb_store(m, a, p, 1, irb_i(m, 0)), 2, a, p);
    expect_clean(m);
}

static void test_bind_dtype(void **state)
{
    (void)state;
    IrModule *m = irb_module(5);
    IrExpr *x = irb_var(m, "x", IR_INT32);
    irb_func(m, "g", at(m, irb_bind(m, x, ir_int(&m->arena, IR_INT64, 1, (TxSpan){0})), 2), 0);
    expect_error(m, "cannot bind a int64 value to 'x' of type int32", 2);
}

static void test_vector_store_and_scalar_buffer(void **state)
{
    (void)state;
    IrModule *m = irb_module(5);
    IrExpr *a = irb_buffer(m, "A", IR_FLOAT16, "shared", 1, irb_i(m, 64));
    IrExpr *s = irb_buffer(m, "s", IR_FLOAT16, "local", 1, irb_i(m, 1));
    IrDType x4 = ir_dtype_with_lanes(IR_INT32, 4);
    IrExpr *ramp = ir_node(&m->arena, IR_E_RAMP, x4, (TxSpan){0});
    ramp->u.op.a = irb_i(m, 0), ramp->u.op.b = irb_i(m, 1), ramp->u.op.lanes = 4;
    IrExpr *v = ir_node(&m->arena, IR_E_BROADCAST, ir_dtype_with_lanes(IR_FLOAT16, 4), (TxSpan){0});
    v->u.op.a = irb_load(m, s, 0), v->u.op.lanes = 4; /* a scalar buffer read with no index */
    irb_func(m, "g", irb_seq(m, 3, irb_alloc(m, a), irb_alloc(m, s), irb_store(m, a, v, 1, ramp)),
             0);
    expect_clean(m);
}

static void test_builtin_arity(void **state)
{
    (void)state;
    IrModule *m = irb_module(5);
    IrExpr *x = irb_var(m, "x", IR_FLOAT32);
    IrExpr *e = irb_call(m, IR_OP_EXP, IR_FLOAT32, 2, x, x);
    e->span = irb_line(m, 4);
    irb_func(m, "g", irb_eval(m, e), 1, x);
    expect_error(m, "T.exp takes 1 argument but 2 were given", 4);
}

static void test_break_outside_loop(void **state)
{
    (void)state;
    IrModule *m = irb_module(5);
    IrStmt *brk = irb_eval(m, irb_call(m, IR_OP_BREAK_LOOP, IR_VOID, 0));
    irb_func(m, "g", at(m, brk, 2), 0);
    expect_error(m, "'break' outside a loop", 2);

    m = irb_module(5);
    IrExpr *i = irb_var(m, "i", IR_INT32);
    irb_func(m, "g", irb_for(m, i, irb_i(m, 2), ir_stmt(&m->arena, IR_S_CONTINUE, (TxSpan){0})), 0);
    expect_clean(m);
}

/* ---------------------------------------------------------------- launch */
/* A kernel body: the given scope-id statements under a device_entry attr. */
static void kernel(IrModule *m, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    IrStmt *seq = ir_stmt(&m->arena, IR_S_SEQ, (TxSpan){0});
    seq->u.seq.n = n;
    seq->u.seq.stmts = TX_NEW_ARRAY(&m->arena, IrStmt *, n);
    for (int i = 0; i < n; i++)
        seq->u.seq.stmts[i] = va_arg(ap, IrStmt *);
    va_end(ap);
    IrExpr *yes = ir_int(&m->arena, IR_BOOL, 1, (TxSpan){0});
    irb_func(m, "k", irb_attr(m, irb_i(m, 0), "tirx.device_entry", yes, seq), 0);
}

static void test_scope_ids_consistent(void **state)
{
    (void)state;
    IrModule *m = irb_module(9);
    kernel(m, 5, at(m, irb_scopeid(m, IR_SCOPEID_CTA_ID, 3, 8, 4, 1), 1),
           at(m, irb_scopeid(m, IR_SCOPEID_WARPGROUP_ID, 1, 2), 2),
           at(m, irb_scopeid(m, IR_SCOPEID_WARP_ID, 1, 8), 3),
           at(m, irb_scopeid(m, IR_SCOPEID_LANE_ID, 1, 32), 4),
           at(m, irb_scopeid(m, IR_SCOPEID_THREAD_ID, 1, 256), 5));
    expect_clean(m);
}

static void test_scope_id_errors(void **state)
{
    (void)state;
    IrModule *m = irb_module(9);
    kernel(m, 2, at(m, irb_scopeid(m, IR_SCOPEID_THREAD_ID, 1, 128), 2),
           at(m, irb_scopeid(m, IR_SCOPEID_THREAD_ID, 1, 256), 6));
    expect_error(m, "inconsistent extents for T.thread_id: [256] here, [128] before", 6);

    m = irb_module(9);
    kernel(m, 1, at(m, irb_scopeid(m, IR_SCOPEID_LANE_ID, 1, 16), 3));
    expect_error(m, "the extent of T.lane_id must be 32, not 16", 3);

    m = irb_module(9);
    kernel(m, 1, at(m, irb_scopeid(m, IR_SCOPEID_THREAD_ID, 2, 64, 32), 4));
    expect_error(m, "too many threads per CTA: 64 x 32 = 2048 (the limit is 1024)", 4);

    m = irb_module(9);
    kernel(m, 2, at(m, irb_scopeid(m, IR_SCOPEID_THREAD_ID, 1, 256), 1),
           at(m, irb_scopeid(m, IR_SCOPEID_WARP_ID, 1, 4), 2));
    expect_error(m,
                 "inconsistent thread extents: T.warp_id says 4 x 32 = 128 threads per CTA, but "
                 "T.thread_id gives 256",
                 2);

    m = irb_module(9);
    kernel(m, 3, at(m, irb_scopeid(m, IR_SCOPEID_WARP_ID, 1, 4), 5),
           at(m, irb_scopeid(m, IR_SCOPEID_LANE_ID, 1, 32), 6),
           at(m, irb_scopeid(m, IR_SCOPEID_THREAD_ID, 1, 256), 7));
    assert_false(ir_verify(m));
    assert_int_equal(m->diags.list.len, 2);
    assert_string_equal(m->diags.list.items[0].msg,
                        "inconsistent thread extents: T.thread_id says 256 threads per CTA, but "
                        "T.warp_id and T.lane_id give 4 x 32 = 128");
    assert_int_equal(irb_line_of(m->diags.list.items[0].span), 7);
    assert_string_equal(m->diags.list.items[1].msg, "the warp count is set here");
    assert_int_equal(irb_line_of(m->diags.list.items[1].span), 5);
    ir_module_free(m);

    m = irb_module(9);
    kernel(m, 1, at(m, irb_scopeid(m, IR_SCOPEID_CTA_ID_IN_CLUSTER, 3, 4, 4, 2), 5));
    expect_error(m, "T.cta_id_in_cluster gives 4 x 4 x 2 = 32 CTAs per cluster, the limit is 16", 5);

    m = irb_module(9);
    kernel(m, 2, at(m, irb_scopeid(m, IR_SCOPEID_THREAD_ID, 1, 100), 1),
           at(m, irb_scopeid(m, IR_SCOPEID_LANE_ID, 1, 32), 2));
    expect_error(m, "not a multiple of 32, but the kernel uses warp-level ids", 1);

    m = irb_module(9);
    kernel(m, 1, at(m, irb_scopeid(m, IR_SCOPEID_WARP_ID, 2, 2, 2), 7));
    expect_error(m, "T.warp_id defines at most 1 id, not 2", 7);

    m = irb_module(9);
    kernel(m, 1, at(m, irb_scopeid(m, IR_SCOPEID_CTA_ID, 2, 1, 70000), 8));
    expect_error(m, "T.cta_id: dimension y is 70000, the limit is 65535", 8);
}

static void test_thread_binding_loops(void **state)
{
    (void)state;
    IrModule *m = irb_module(9);
    IrExpr *t1 = irb_var(m, "tx", IR_INT32), *t2 = irb_var(m, "tx2", IR_INT32);
    IrStmt *l1 = at(m, irb_for(m, t1, irb_i(m, 128), irb_eval(m, t1)), 2);
    IrStmt *l2 = at(m, irb_for(m, t2, irb_i(m, 64), irb_eval(m, t2)), 5);
    l1->u.loop.kind = l2->u.loop.kind = IR_FOR_THREAD_BINDING;
    l1->u.loop.thread = l2->u.loop.thread = "threadIdx.x";
    irb_func(m, "k", irb_seq(m, 2, l1, l2), 0);
    expect_error(m, "inconsistent extents for threadIdx.x: 64 here, 128 before", 5);

    /* launch_thread attrs: the tag, or the var's name when there is none */
    m = irb_module(9);
    IrExpr *tx = irb_var(m, "threadIdx.x", IR_INT32), *bx = irb_var(m, "bx", IR_INT32);
    IrStmt *inner = at(m, irb_attr(m, tx, "thread_extent", irb_i(m, 2048), irb_eval(m, tx)), 3);
    IrStmt *outer = irb_attr(m, bx, "thread_extent", irb_i(m, 70000), inner);
    outer->u.attr.thread_tag = "blockIdx.y";
    outer->span = irb_line(m, 2);
    irb_func(m, "k", outer, 0);
    assert_false(ir_verify(m));
    assert_int_equal(m->diags.nerrors, 3);
    assert_int_equal(irb_find_diag(m, "blockIdx.y extent 70000 exceeds the limit 65535"), 0);
    assert_int_equal(irb_find_diag(m, "threadIdx.x extent 2048 exceeds the limit 1024"), 1);
    assert_int_equal(irb_find_diag(m, "threadIdx extents give 2048 threads per CTA"), 2);
    ir_module_free(m);

    /* extents whose product would overflow an int64 */
    m = irb_module(9);
    IrExpr *ty = irb_var(m, "threadIdx.y", IR_INT32), *tz = irb_var(m, "threadIdx.z", IR_INT32);
    IrStmt *z = at(m, irb_attr(m, tz, "thread_extent", irb_i(m, 1LL << 31), irb_eval(m, tz)), 4);
    IrStmt *y = at(m, irb_attr(m, ty, "thread_extent", irb_i(m, 1LL << 31), z), 3);
    tx = irb_var(m, "threadIdx.x", IR_INT32);
    irb_func(m, "k", at(m, irb_attr(m, tx, "thread_extent", irb_i(m, 1LL << 31), y), 2), 0);
    assert_false(ir_verify(m));
    assert_true(irb_find_diag(m, "threadIdx extents give more than 2147483648 threads per CTA") >= 0);
    ir_module_free(m);
}

/* T.call_packed("runtime.cuTensorMapEncodeTiled", map, "float16", 2, A.data,
 *               64, 64, 128, <box0>, 64, 1, 1, 0, <swizzle>, 0, 0) */
static IrFunc *tma_encode(IrModule *m, int box0, int swizzle)
{
    IrExpr *a = irb_buffer(m, "A", IR_FLOAT16, "global", 2, irb_i(m, 64), irb_i(m, 64));
    IrExpr *map = irb_var(m, "A_map", IR_HANDLE);
    IrExpr *c = irb_call(m, IR_OP_CALL_PACKED, IR_INT32, 16,
                         ir_str(&m->arena, "runtime.cuTensorMapEncodeTiled", (TxSpan){0}), map,
                         ir_str(&m->arena, "float16", (TxSpan){0}), irb_i(m, 2), irb_data(m, a),
                         irb_i(m, 64), irb_i(m, 64), irb_i(m, 128), irb_i(m, box0), irb_i(m, 64),
                         irb_i(m, 1), irb_i(m, 1), irb_i(m, 0), irb_i(m, swizzle), irb_i(m, 0),
                         irb_i(m, 0));
    c->span = irb_line(m, 3);
    return irb_func(m, "host", irb_eval(m, c), 2, a, map);
}

static void test_tma_descriptor_limits(void **state)
{
    (void)state;
    IrModule *m = irb_module(5);
    tma_encode(m, 64, 3); /* 128-byte inner box, 128-byte swizzle */
    expect_clean(m);

    m = irb_module(5);
    tma_encode(m, 512, 0);
    expect_error(m, "box dimension 0 is 512, must be in 1..256", 3);

    m = irb_module(5);
    tma_encode(m, 64, 2);
    expect_error(m, "the inner box is 128 bytes, wider than the 64-byte swizzle", 3);

    m = irb_module(5);
    IrFunc *f = tma_encode(m, 64, 0);
    f->body->u.eval->u.call.nargs = 15;
    expect_error(m, "an encode of rank 2 takes 16 arguments, not 15", 3);
}

/* ---------------------------------------------------------------- a well-formed kernel */
static void test_well_formed_kernel(void **state)
{
    (void)state;
    IrModule *m = irb_module(3);
    IrExpr *a = irb_buffer(m, "A", IR_FLOAT16, "global", 2, irb_i(m, 128), irb_i(m, 128));
    IrExpr *smem = irb_buffer(m, "A_smem", IR_FLOAT16, "shared", 2, irb_i(m, 128), irb_i(m, 32));
    IrExpr *view = irb_buffer(m, "A_flat", IR_FLOAT16, "shared", 1, irb_i(m, 4096));
    IrExpr *k = irb_var(m, "k", IR_INT32);
    IrStmt *tile = ir_stmt(&m->arena, IR_S_TILE, (TxSpan){0});
    tile->u.tile.op = IR_TILE_COPY, tile->u.tile.scope = IR_SCOPE_CTA, tile->u.tile.nargs = 2;
    tile->u.tile.args = irb_exprs(m, 2, irb_full_region(m, smem), irb_full_region(m, a));
    IrStmt *bx = irb_scopeid(m, IR_SCOPEID_CTA_ID, 3, 1, 1, 1);
    IrStmt *wid = irb_scopeid(m, IR_SCOPEID_WARP_ID, 1, 4);
    IrStmt *lid = irb_scopeid(m, IR_SCOPEID_LANE_ID, 1, 32);
    IrExpr *lane = lid->u.scopeid.vars[0];
    IrStmt *store = irb_store(m, view, irb_load(m, smem, 2, lane, k), 1,
                              irb_bin(m, IR_E_ADD, lane, irb_i(m, 64)));
    kernel(m, 7, bx, wid, lid, irb_alloc(m, smem), irb_decl(m, view, irb_data(m, smem)),
           irb_for(m, k, irb_i(m, 4), irb_seq(m, 2, tile, store)),
           irb_eval(m, irb_call(m, IR_OP_CUDA_CTA_SYNC, IR_VOID, 0)));
    m->funcs[0]->nparams = 1;
    m->funcs[0]->params = irb_exprs(m, 1, a);
    expect_clean(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_use_before_definition),
        cmocka_unit_test(test_buffer_used_before_allocation),
        cmocka_unit_test(test_var_in_buffer_type_before_definition),
        cmocka_unit_test(test_use_outside_scope),
        cmocka_unit_test(test_if_branches_are_scopes),
        cmocka_unit_test(test_redefinition),
        cmocka_unit_test(test_free_variables_are_legal),
        cmocka_unit_test(test_binary_dtype_mismatch),
        cmocka_unit_test(test_conditions),
        cmocka_unit_test(test_index_dtype_and_count),
        cmocka_unit_test(test_store_dtype),
        cmocka_unit_test(test_pointer_stored_as_integer),
        cmocka_unit_test(test_bind_dtype),
        cmocka_unit_test(test_vector_store_and_scalar_buffer),
        cmocka_unit_test(test_builtin_arity),
        cmocka_unit_test(test_break_outside_loop),
        cmocka_unit_test(test_scope_ids_consistent),
        cmocka_unit_test(test_scope_id_errors),
        cmocka_unit_test(test_thread_binding_loops),
        cmocka_unit_test(test_tma_descriptor_limits),
        cmocka_unit_test(test_well_formed_kernel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
