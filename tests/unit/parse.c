/* Unit tests of the TIRx script parser and elaborator: snippets parsed into
 * IR and inspected (signatures, buffers, scalars, folding, loops, regions,
 * constants and -D, macros, scope ids, frames, PTX), and the diagnostics of
 * malformed input with their exact message and position. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ir/ptx.h"
#include "ir/visit.h"
#include "script/parse_internal.h"
#include "script/script.h"

#define HDR "@T.prim_func\n"

static IrModule *parse_with(const char *text, const ScDefine *defs, size_t ndefs)
{
    IrModule *m = sc_parse(text, strlen(text), "t.tirx", defs, ndefs);
    for (int i = 0; i < m->diags.list.len; i++) {
        TxBuf b = {0};
        tx_diag_render(&m->diags.list.items[i], &b);
        print_message("%s", b.data ? b.data : "");
        tx_buf_free(&b);
    }
    return m;
}

static IrModule *parse_ok(const char *text)
{
    IrModule *m = parse_with(text, NULL, 0);
    assert_int_equal(m->diags.nerrors, 0);
    assert_true(m->nfuncs >= 1);
    return m;
}

/* The i-th statement of a function body (the body itself when it is not a sequence). */
static const IrStmt *stmt_at(const IrStmt *body, int i)
{
    if (body->kind != IR_S_SEQ) {
        assert_int_equal(i, 0);
        return body;
    }
    assert_true(i < body->u.seq.n);
    return body->u.seq.stmts[i];
}

static int body_len(const IrStmt *body) { return body->kind == IR_S_SEQ ? body->u.seq.n : 1; }

static void expect_error(const char *text, const char *msg, int line, int col)
{
    IrModule *m = sc_parse(text, strlen(text), "t.tirx", NULL, 0);
    assert_true(m->diags.nerrors > 0);
    const TxDiag *d = &m->diags.list.items[0];
    if (strcmp(d->msg, msg))
        print_message("got: %s\n", d->msg);
    assert_string_equal(d->msg, msg);
    int ln, cl;
    tx_source_linecol(m->source, d->span.begin, &ln, &cl);
    if (ln != line || cl != col)
        print_message("%s at %d:%d\n", msg, ln, cl);
    assert_int_equal(ln, line);
    assert_int_equal(cl, col);
    ir_module_free(m);
}

static void test_signature(void **state)
{
    (void)state;
    IrModule *m = parse_ok(HDR "def f(A: T.Buffer((128, 64), \"float16\"), n: T.int32, p: T.handle,\n"
                               "      q: T.handle(\"float16\", \"shared\"), B: T.Buffer((\"n\",), \"float32\")) -> T.int32:\n"
                               "    return n\n");
    const IrFunc *f = m->funcs[0];
    assert_string_equal(f->name, "f");
    assert_int_equal(f->nparams, 5);
    const IrExpr *A = f->params[0];
    assert_true(ir_is_buffer(A));
    const IrBufferType *bt = ir_buf(A);
    assert_int_equal(bt->ndim, 2);
    assert_int_equal(bt->shape[0]->u.int_val, 128);
    assert_true(ir_dtype_eq(A->u.var.type->dtype, IR_FLOAT16));
    assert_string_equal(A->u.var.type->scope, "global");
    assert_int_equal(bt->elem_offset->kind, IR_E_INT);
    assert_int_equal(bt->elem_offset->u.int_val, 0);
    assert_int_equal(bt->align, 64);
    assert_int_equal(bt->offset_factor, 1);
    assert_non_null(bt->layout);
    assert_int_equal(bt->layout->nshard, 2);
    assert_int_equal(bt->layout->shard[0].stride->u.int_val, 64);
    assert_true(ir_dtype_eq(f->params[1]->dtype, IR_INT32));
    assert_int_equal(f->params[2]->u.var.type->kind, IR_TY_PTR);
    assert_true(ir_dtype_eq(f->params[3]->u.var.type->dtype, IR_FLOAT16));
    assert_string_equal(f->params[3]->u.var.type->scope, "shared");
    /* The quoted "n" is the scalar parameter n. */
    assert_ptr_equal(ir_buf(f->params[4])->shape[0], f->params[1]);
    assert_true(ir_dtype_eq(f->ret_type->dtype, IR_INT32));
    assert_int_equal(f->body->kind, IR_S_RETURN);
    ir_module_free(m);
}

static void test_match_buffer(void **state)
{
    (void)state;
    IrModule *m = parse_ok(HDR "def f(a: T.handle, n: T.int32):\n"
                               "    A = T.match_buffer(a, (n, 16), \"float16\")\n"
                               "    T.evaluate(a)\n");
    const IrFunc *f = m->funcs[0];
    assert_true(ir_is_buffer(f->params[0]));
    assert_string_equal(f->params[0]->u.var.name, "A");
    /* The handle's uses read A.data. */
    const IrExpr *e = f->body->u.eval;
    assert_int_equal(e->kind, IR_E_CALL);
    assert_int_equal(e->u.call.op, IR_OP_BUFFER_DATA);
    assert_ptr_equal(e->u.call.args[0], f->params[0]);
    ir_module_free(m);
}

static void test_folding(void **state)
{
    (void)state;
    IrModule *m = parse_ok(HDR "def f(A: T.Buffer((8,), \"int32\"), x: T.int32, y: T.float32,\n"
                               "      B: T.Buffer((8,), \"float32\"), h: T.float16):\n"
                               "    A[0] = 1 + 2 * 3\n"
                               "    A[1] = x + 0\n"
                               "    A[2] = -x\n"
                               "    A[3] = x * 1 // 1\n"
                               "    B[0] = y * 2\n"
                               "    A[4] = T.Add(x, 0)\n"
                               "    A[5] = T.min(3, 4)\n"
                               "    B[1] = T.Cast(\"float32\", h * T.float16(2.0))\n");
    const IrStmt *b = m->funcs[0]->body;
    assert_int_equal(stmt_at(b, 0)->u.store.value->u.int_val, 7);
    assert_ptr_equal(stmt_at(b, 1)->u.store.value, m->funcs[0]->params[1]);
    const IrExpr *neg = stmt_at(b, 2)->u.store.value;
    assert_int_equal(neg->kind, IR_E_MUL);
    assert_int_equal(neg->u.op.b->u.int_val, -1);
    assert_ptr_equal(stmt_at(b, 3)->u.store.value, m->funcs[0]->params[1]);
    const IrExpr *fm = stmt_at(b, 4)->u.store.value;
    assert_int_equal(fm->kind, IR_E_MUL);
    assert_int_equal(fm->u.op.b->kind, IR_E_FLOAT);
    assert_true(ir_dtype_eq(fm->u.op.b->dtype, IR_FLOAT32));
    assert_int_equal(stmt_at(b, 5)->u.store.value->kind, IR_E_ADD);
    assert_int_equal(stmt_at(b, 6)->u.store.value->u.int_val, 3);
    assert_true(ir_dtype_eq(stmt_at(b, 7)->u.store.value->u.op.a->dtype, IR_FLOAT16));
    ir_module_free(m);
}

/* Python's int % at the ends of int64: the remainder, never an overflow of
 * the quotient times the divisor (-2**63 % 3 is 1, -2**63 % 7 is 6). */
static void test_int_remainder_extremes(void **state)
{
    (void)state;
    IrModule *m = parse_ok("X = (-9223372036854775807 - 1) % 3\n"
                           "Y = (-9223372036854775807 - 1) % 7\n"
                           "Z = (-9223372036854775807 - 1) % -1\n"
                           "W = 9223372036854775807 % -2\n"
                           HDR "def f(A: T.Buffer((8,), \"int32\")):\n"
                           "    A[0] = X\n"
                           "    A[1] = Y\n"
                           "    A[2] = Z\n"
                           "    A[3] = W\n");
    const IrStmt *b = m->funcs[0]->body;
    assert_int_equal(stmt_at(b, 0)->u.store.value->u.int_val, 1);
    assert_int_equal(stmt_at(b, 1)->u.store.value->u.int_val, 6);
    assert_int_equal(stmt_at(b, 2)->u.store.value->u.int_val, 0);
    assert_int_equal(stmt_at(b, 3)->u.store.value->u.int_val, -1);
    ir_module_free(m);
}

/* Python's float // and %: 1 // 0.1 is 9.0 and 1 % 0.1 is 0.09999999999999995
 * (0.1 is a little above a tenth); the remainder takes the divisor's sign. */
static void test_float_floordiv_mod(void **state)
{
    (void)state;
    IrModule *m = parse_ok("Q = 1 // 0.1\nR = 1 % 0.1\nS = 1e20 % 3.0\nU = -7.5 % 2.0\n"
                           "V = 7.5 // -2.0\nW = 6.0 % -3.0\n"
                           HDR "def f(A: T.Buffer((8,), \"float64\")):\n"
                           "    A[0] = T.float64(Q)\n"
                           "    A[1] = T.float64(R)\n"
                           "    A[2] = T.float64(S)\n"
                           "    A[3] = T.float64(U)\n"
                           "    A[4] = T.float64(V)\n"
                           "    A[5] = T.float64(W)\n");
    const IrStmt *b = m->funcs[0]->body;
    double want[] = {9.0, 0.09999999999999995, 1.0, 0.5, -4.0, -0.0};
    for (int i = 0; i < 6; i++) {
        double got = stmt_at(b, i)->u.store.value->u.float_val;
        if (got != want[i] || signbit(got) != signbit(want[i]))
            fail_msg("A[%d]: got %.17g, expected %.17g", i, got, want[i]);
    }
    ir_module_free(m);
}

static void test_scalars_and_let(void **state)
{
    (void)state;
    IrModule *m = parse_ok(HDR "def f(A: T.Buffer((4,), \"int32\"), n: T.int32):\n"
                               "    x: T.int32 = 5\n"
                               "    x = x + 1\n"
                               "    base: T.let = n * 4\n"
                               "    y = n + base\n"
                               "    p = A.data\n"
                               "    A[0] = x + y\n");
    const IrStmt *b = m->funcs[0]->body;
    const IrStmt *alloc = stmt_at(b, 0);
    assert_int_equal(alloc->kind, IR_S_ALLOC);
    assert_string_equal(alloc->u.alloc.buffer->u.var.type->scope, "local");
    assert_int_equal(stmt_at(b, 1)->kind, IR_S_STORE);
    const IrStmt *upd = stmt_at(b, 2);
    assert_int_equal(upd->kind, IR_S_STORE);
    assert_int_equal(upd->u.store.value->kind, IR_E_ADD);
    assert_int_equal(upd->u.store.value->u.op.a->kind, IR_E_LOAD);
    const IrStmt *let = stmt_at(b, 3);
    assert_int_equal(let->kind, IR_S_BIND);
    assert_string_equal(let->u.bind.var->u.var.name, "base");
    /* `y = e` for a new name is a mutable scalar, a pointer value a Bind. */
    assert_int_equal(stmt_at(b, 4)->kind, IR_S_ALLOC);
    const IrStmt *p = stmt_at(b, 6);
    assert_int_equal(p->kind, IR_S_BIND);
    assert_int_equal(p->u.bind.var->u.var.type->kind, IR_TY_PTR);
    ir_module_free(m);
}

static void test_loops(void **state)
{
    (void)state;
    IrModule *m = parse_ok(HDR "def f(A: T.Buffer((64, 64), \"float32\"), n: T.int32):\n"
                               "    for i in range(1, n + 1):\n"
                               "        A[i, 0] = T.float32(0.0)\n"
                               "    for i, j in T.grid(4, 8):\n"
                               "        A[i, j] = T.float32(1.0)\n"
                               "    for k in T.serial(4, unroll=False):\n"
                               "        if k == 2:\n"
                               "            break\n"
                               "        continue\n"
                               "    for t in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
                               "        pass\n");
    const IrStmt *b = m->funcs[0]->body;
    const IrStmt *l = stmt_at(b, 0);
    assert_int_equal(l->kind, IR_S_FOR);
    assert_int_equal(l->u.loop.min->u.int_val, 1);
    assert_ptr_equal(l->u.loop.extent, m->funcs[0]->params[1]); /* (n + 1) - 1 == n */
    const IrStmt *g = stmt_at(b, 1);
    assert_int_equal(g->u.loop.body->kind, IR_S_FOR);
    assert_int_equal(g->u.loop.body->u.loop.extent->u.int_val, 8);
    const IrStmt *s = stmt_at(b, 2);
    assert_int_equal(s->u.loop.nannot, 1);
    assert_string_equal(s->u.loop.annot[0].key, "disable_unroll");
    const IrStmt *inner = s->u.loop.body;
    assert_int_equal(stmt_at(inner, 0)->u.ifs.then_s->kind, IR_S_BREAK);
    assert_int_equal(stmt_at(inner, 1)->kind, IR_S_CONTINUE);
    const IrStmt *tb = stmt_at(b, 3);
    assert_int_equal(tb->u.loop.kind, IR_FOR_THREAD_BINDING);
    assert_string_equal(tb->u.loop.thread, "threadIdx.x");
    assert_int_equal(tb->u.loop.body->kind, IR_S_EVAL); /* an empty body is Evaluate(0) */
    ir_module_free(m);
}

static void test_regions_and_tile(void **state)
{
    (void)state;
    IrModule *m = parse_ok(HDR "def f(A: T.Buffer((128, 128), \"float16\")):\n"
                               "    S = T.alloc_shared((128, 32), \"float16\")\n"
                               "    for k in range(4):\n"
                               "        Tx.cta.copy(S[0:128, 0:32], A[0:128, k * 32:k * 32 + 32])\n"
                               "        T.warp.exp2(S[0:32, 0:32])\n"
                               "        T.tile.copy(S, A[0:128, 0:32], dispatch=\"v1\", b=2, a=1)\n");
    const IrStmt *loop = stmt_at(m->funcs[0]->body, 1);
    const IrStmt *copy = stmt_at(loop->u.loop.body, 0);
    assert_int_equal(copy->kind, IR_S_TILE);
    assert_int_equal(copy->u.tile.scope, IR_SCOPE_CTA);
    assert_int_equal(copy->u.tile.op, IR_TILE_COPY);
    const IrExpr *src = copy->u.tile.args[1];
    assert_int_equal(src->kind, IR_E_REGION);
    assert_int_equal(src->u.access.extents[1]->kind, IR_E_INT);
    assert_int_equal(src->u.access.extents[1]->u.int_val, 32);
    const IrStmt *ex = stmt_at(loop->u.loop.body, 1);
    assert_int_equal(ex->u.tile.nargs, 2); /* in place: dst == src */
    assert_ptr_equal(ex->u.tile.args[0], ex->u.tile.args[1]);
    const IrStmt *t = stmt_at(loop->u.loop.body, 2);
    assert_int_equal(t->u.tile.scope, IR_SCOPE_THREAD);
    assert_int_equal(t->u.tile.args[0]->kind, IR_E_REGION); /* a whole buffer is a full region */
    assert_string_equal(t->u.tile.dispatch, "v1");
    assert_int_equal(t->u.tile.nconfig, 2);
    assert_string_equal(t->u.tile.config[0].key, "a");
    assert_int_equal(t->u.tile.config[1].value->kind, IR_E_PYINT);
    ir_module_free(m);
}

/* A tile call as an author writes it and as the reference prints it build the same IR. */
static void expect_same_tile_ir(const char *sugar, const char *printed)
{
    static const char head[] =
        HDR "def f(A: T.Buffer((64,), \"float32\"), S: T.Buffer((16, 32), \"float32\"), "
        "R: T.Buffer((16,), \"float32\"), G: T.Buffer((64, 64), \"float16\"), "
        "D: T.Buffer((64, 64), \"float32\")):\n    ";
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s%s\n", head, sugar);
    snprintf(b, sizeof b, "%s%s\n", head, printed);
    IrModule *ma = parse_ok(a), *mb = parse_ok(b);
    if (!ir_module_equal(ma, mb))
        fail_msg("'%s' and '%s' differ", sugar, printed);
    ir_module_free(ma);
    ir_module_free(mb);
}

static void test_tile_signatures(void **state)
{
    (void)state;
    expect_same_tile_ir("Tx.cta.sum(R, S)", "T.cta.sum(R[0:16], S[0:16, 0:32], [-1], False)");
    expect_same_tile_ir("Tx.cta.max(R, S, 1, accum=True)",
                        "T.cta.max(R[0:16], S[0:16, 0:32], [1], True)");
    expect_same_tile_ir("Tx.cta.min(R, S, axes=(0, 1))",
                        "T.cta.min(R[0:16], S[0:16, 0:32], [0, 1], False)");
    expect_same_tile_ir("Tx.cta.gemm(D, G, G, D, transpose_B=True, alpha=2)",
                        "T.cta.gemm(D[0:64, 0:64], G[0:64, 0:64], G[0:64, 0:64], D[0:64, 0:64], "
                        "False, True, 2, T.float32(0.0))");
    expect_same_tile_ir("Tx.tile.gemm_async(D, G, G, accum=True, transA=True)",
                        "T.tile.gemm_async(D[0:64, 0:64], G[0:64, 0:64], G[0:64, 0:64], True, "
                        "False, True)");
    expect_same_tile_ir("Tx.tile.gemm_async(D, G, G, G, G)",
                        "T.tile.gemm_async(D[0:64, 0:64], G[0:64, 0:64], G[0:64, 0:64], "
                        "G[0:64, 0:64], G[0:64, 0:64], False, False, False)");
    expect_same_tile_ir("Tx.warp.exp(A, scale=0.5)",
                        "T.warp.exp(A[0:64], A[0:64], None, T.float32(0.5))");
    expect_same_tile_ir("Tx.exp(A)", "T.tile.exp(A[0:64])");
    expect_same_tile_ir("Tx.max(R, S)", "T.tile.max(R[0:16], S[0:16, 0:32], [-1], False)");
    expect_same_tile_ir("Tx.warp.copy(A, A)", "T.warp.copy(A[0:64])");
    expect_same_tile_ir("Tx.warp.copy(A[0], R[1], None, \"reg\")",
                        "T.warp.copy(A[0:1], R[1:2], dispatch=\"reg\")");
    expect_same_tile_ir("Tx.cta.reduce_negate(R, S, \"max\", accum=True)",
                        "T.cta.reduce_negate(R[0:16], S[0:16, 0:32], [-1], True, "
                        "I.Op(\"tirx.tile.max\"))");
    expect_same_tile_ir("Tx.cta.binary_chain(S, S, S, 1.0, \"add\", \"mul\")",
                        "T.cta.binary_chain(S[0:16, 0:32], S[0:16, 0:32], S[0:16, 0:32], "
                        "T.float32(1.0), I.Op(\"tirx.tile.add\"), I.Op(\"tirx.tile.mul\"), False)");
    /* The IR holds every argument, in the reference's order. */
    IrModule *m = parse_ok(HDR "def f(D: T.Buffer((64, 64), \"float32\"), G: T.Buffer((64, 64), \"float16\")):\n"
                               "    Tx.cta.gemm(D, G, G, D, beta=1.0)\n");
    const IrStmt *g = m->funcs[0]->body;
    assert_int_equal(g->u.tile.nargs, 8);
    assert_int_equal(g->u.tile.nconfig, 0);
    assert_int_equal(g->u.tile.args[7]->kind, IR_E_FLOAT);
    assert_true(g->u.tile.args[7]->u.float_val == 1.0);
    ir_module_free(m);
}

static void test_constants_and_defines(void **state)
{
    (void)state;
    const char *text = "BLOCK = 64\nDT = \"float16\"\nUSE = False\n"
                       HDR "def f(A: T.Buffer((BLOCK * 2,), DT)):\n"
                       "    if USE:\n"
                       "        A[0] = undefined_name\n"
                       "    else:\n"
                       "        A[1] = T.Cast(DT, 1)\n";
    IrModule *m = parse_ok(text);
    const IrExpr *A = m->funcs[0]->params[0];
    assert_int_equal(ir_buf(A)->shape[0]->u.int_val, 128);
    assert_true(ir_dtype_eq(A->u.var.type->dtype, IR_FLOAT16));
    assert_int_equal(m->funcs[0]->body->kind, IR_S_STORE); /* only the taken branch */
    ir_module_free(m);
    ScDefine defs[] = {{"BLOCK", "32"}, {"DT", "bfloat16"}};
    m = parse_with(text, defs, 2);
    assert_int_equal(m->diags.nerrors, 0);
    A = m->funcs[0]->params[0];
    assert_int_equal(ir_buf(A)->shape[0]->u.int_val, 64);
    assert_true(ir_dtype_eq(A->u.var.type->dtype, IR_BFLOAT16));
    ir_module_free(m);
    ScDefine twice[] = {{"BLOCK", "32"}, {"BLOCK", "16"}}; /* the last one wins */
    m = parse_with(text, twice, 2);
    assert_int_equal(m->diags.nerrors, 0);
    assert_int_equal(ir_buf(m->funcs[0]->params[0])->shape[0]->u.int_val, 32);
    ir_module_free(m);
    ScDefine bad[] = {{"BLOK", "32"}};
    m = sc_parse(text, strlen(text), "t.tirx", bad, 1);
    assert_int_equal(m->diags.nerrors, 1);
    assert_string_equal(m->diags.list.items[0].msg,
                        "-D BLOK: the source declares no module-level constant 'BLOK'; did you "
                        "mean 'BLOCK'?");
    ir_module_free(m);
}

static void test_macros(void **state)
{
    (void)state;
    IrModule *m = parse_ok("@T.macro\n"
                           "def fill(buf, v):\n"
                           "    t: T.int32 = v\n"
                           "    buf[0] = t\n"
                           HDR "def f(A: T.Buffer((4,), \"int32\")):\n"
                           "    fill(A, 1)\n"
                           "    fill(A, 2)\n");
    const IrStmt *b = m->funcs[0]->body;
    assert_int_equal(body_len(b), 6);
    /* Hygiene: each expansion has its own t. */
    const IrExpr *t1 = stmt_at(b, 0)->u.alloc.buffer, *t2 = stmt_at(b, 3)->u.alloc.buffer;
    assert_ptr_not_equal(t1, t2);
    assert_int_equal(stmt_at(b, 4)->u.store.value->u.int_val, 2);
    ir_module_free(m);
}

static void test_scope_ids_and_frames(void **state)
{
    (void)state;
    IrModule *m = parse_ok(HDR "def f(A: T.Buffer((4,), \"int32\")):\n"
                               "    T.device_entry()\n"
                               "    bx, by = T.cta_id([2, 3])\n"
                               "    tx = T.thread_id([128], dtype=\"uint32\")\n"
                               "    w = T.warp_id()\n"
                               "    T.attr({\"a\": 1, \"b\": True})\n"
                               "    with T.launch_thread(\"threadIdx.y\", 4) as ty:\n"
                               "        A[0] = bx + ty\n");
    const IrStmt *de = m->funcs[0]->body;
    assert_int_equal(de->kind, IR_S_ATTR);
    assert_string_equal(de->u.attr.key, "tirx.device_entry");
    const IrStmt *b = de->u.attr.body;
    const IrStmt *cta = stmt_at(b, 0);
    assert_int_equal(cta->kind, IR_S_SCOPEID);
    assert_int_equal(cta->u.scopeid.nvars, 2);
    assert_string_equal(cta->u.scopeid.vars[1]->u.var.name, "by");
    assert_true(ir_dtype_eq(stmt_at(b, 1)->u.scopeid.vars[0]->dtype, IR_UINT32));
    assert_null(stmt_at(b, 2)->u.scopeid.extents); /* deferred */
    const IrStmt *a = stmt_at(b, 3);
    assert_string_equal(a->u.attr.key, "a");
    assert_string_equal(a->u.attr.body->u.attr.key, "b"); /* the flat frame nests */
    const IrStmt *lt = a->u.attr.body->u.attr.body;
    assert_string_equal(lt->u.attr.key, "thread_extent");
    assert_string_equal(lt->u.attr.thread_tag, "threadIdx.y");
    assert_string_equal(lt->u.attr.node->u.var.name, "ty");
    ir_module_free(m);
}

static void test_layout(void **state)
{
    (void)state;
    IrModule *m = parse_ok(HDR "def f():\n"
                               "    R = T.alloc_local((8,), layout=T.TileLayout(T.S[(8, 4):(4 @ Axis.laneid, 1)] + T.R[2:1 @ Axis.warpid] + (1 @ Axis.laneid + 64)))\n"
                               "    S = T.alloc_shared((64,), layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[64:1]), swizzle_inner=False))\n");
    const IrLayout *l = ir_buf(stmt_at(m->funcs[0]->body, 0)->u.alloc.buffer)->layout;
    assert_int_equal(l->nshard, 2);
    assert_string_equal(l->shard[0].axis, "laneid");
    assert_int_equal(l->nreplica, 1);
    assert_int_equal(l->noffset, 2);
    assert_string_equal(l->offset[0].axis, "laneid"); /* sorted by axis */
    assert_string_equal(l->offset[1].axis, "m");
    const IrLayout *c = ir_buf(stmt_at(m->funcs[0]->body, 1)->u.alloc.buffer)->layout;
    assert_int_equal(c->kind, IR_LAYOUT_COMPOSE);
    assert_false(c->swizzle_inner);
    ir_module_free(m);
}

static void test_ptx(void **state)
{
    (void)state;
    IrModule *m = parse_ok(HDR "def f(A: T.Buffer((4,), \"uint32\")):\n"
                               "    v: T.uint32\n"
                               "    T.ptx.ld.global_.acquire.gpu.b32(v, A.ptr_to([0]))\n"
                               "    T.ptx[\"ld.global.acquire.gpu.b32\"](v, A.ptr_to([0]), pred=True)\n");
    const IrStmt *b = m->funcs[0]->body;
    const IrExpr *c1 = stmt_at(b, 1)->u.eval, *c2 = stmt_at(b, 2)->u.eval;
    assert_int_equal(c1->u.call.op, IR_OP_PTX);
    assert_int_equal(c1->u.call.ptx_entry, c2->u.call.ptx_entry);
    assert_string_equal(ir_ptx_family_printed(c1->u.call.ptx_entry), "ld");
    assert_string_equal(c1->u.call.ptx_marker, "");
    assert_string_equal(c2->u.call.ptx_marker, "pred");
    assert_int_equal(c2->u.call.nargs, 3);
    ir_module_free(m);
}

static void test_module(void **state)
{
    (void)state;
    IrModule *m = parse_ok("from tvm.script import ir as I\n"
                           "@I.ir_module\n"
                           "class Mod:\n"
                           "    I.module_attrs({\"k\": 1})\n"
                           "    @T.prim_func(private=True)\n"
                           "    def sq(x: T.int32) -> T.int32:\n"
                           "        return x * x\n"
                           "    @T.prim_func\n"
                           "    def main(A: T.Buffer((1,), \"int32\")):\n"
                           "        A[0] = Mod.sq(3)\n");
    assert_true(m->is_ir_module);
    assert_int_equal(m->nfuncs, 2);
    assert_true(m->funcs[0]->is_private);
    assert_int_equal(m->nattrs, 1);
    const IrExpr *call = m->funcs[1]->body->u.store.value;
    assert_int_equal(call->u.call.op, IR_OP_CALL_FUNC);
    assert_string_equal(call->u.call.callee, "sq");
    ir_module_free(m);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error(HDR "def f(A: T.Buffer((4,), \"int32\"), count: T.int32):\n"
                     "    for i in range(cuont):\n        pass\n",
                 "name 'cuont' is not defined; did you mean 'count'?", 3, 20);
    expect_error(HDR "def f():\n    S = T.alloc_buffer((4,), scop=\"shared\")\n",
                 "T.alloc_buffer got an unexpected keyword argument 'scop'; did you mean 'scope'?",
                 3, 30);
    expect_error(HDR "def f(a: T.int32, b: T.int32):\n    T.evaluate(a / b)\n",
                 "'/' is not defined on integers (int32 / int32); use '//' for floor division or "
                 "T.truncdiv",
                 3, 16);
    expect_error(HDR "def f():\n    T.alloc_shard((4,))\n",
                 "'T.alloc_shard' is not a TIRx builtin; did you mean 'T.alloc_shared'?", 3, 5);
    expect_error(HDR "def f(A: T.Buffer((4,), \"flaot16\")):\n    pass\n",
                 "unknown dtype 'flaot16'; did you mean 'float16'?", 2, 25);
    expect_error(HDR "def f():\n    for i in range(4)\n        pass\n",
                 "expected ':', found end of line", 3, 22);
    expect_error(HDR "def f():\n    x = (1 +\n", "'(' was never closed", 3, 9);
    expect_error(HDR "def f(A: T.Buffer((4,), \"int32\")):\n    A[0, 1] = 0\n",
                 "buffer 'A' has 1 dimension but 2 indices were given", 3, 6);
    expect_error("@T.macro\ndef m(n):\n    m(n)\n" HDR "def f():\n    m(1)\n",
                 "macro 'm' calls itself; macros expand inline and cannot be recursive", 3, 5);
    expect_error(HDR "def f():\n    T.ptx.ld.global_.acquier.gpu.b32(1, 2)\n",
                 "'acquier' is not a modifier of PTX instruction 'ld'; did you mean 'acquire'?",
                 3, 22);
}

/* An error inside a macro expanded 2^20 times stops at SC_MAX_ERRORS errors
 * (and a note), not one per expansion. */
static void test_error_limit(void **state)
{
    (void)state;
    TxBuf b = {0};
    tx_buf_puts(&b, "@T.macro\ndef m0(A):\n    A[0] = T.gloat32(1)\n");
    for (int i = 1; i <= 20; i++)
        tx_buf_printf(&b, "@T.macro\ndef m%d(A):\n    m%d(A)\n    m%d(A)\n", i, i - 1, i - 1);
    tx_buf_puts(&b, HDR "def f(A: T.Buffer((4,), \"float32\")):\n    m20(A)\n");
    IrModule *m = sc_parse(b.data, b.len, "t.tirx", NULL, 0);
    assert_int_equal(m->diags.nerrors, SC_MAX_ERRORS);
    const TxDiag *last = &m->diags.list.items[m->diags.list.len - 1];
    assert_non_null(strstr(last->msg, "errors: elaboration stops here"));
    ir_module_free(m);
    tx_buf_free(&b);
}

static void test_nesting_limit(void **state)
{
    (void)state;
    char *text = malloc(8192);
    size_t n = (size_t)sprintf(text, HDR "def f():\n    x = ");
    for (int i = 0; i < 1000; i++)
        text[n++] = '(';
    text[n++] = '1';
    for (int i = 0; i < 1000; i++)
        text[n++] = ')';
    text[n++] = '\n';
    text[n] = 0;
    IrModule *m = sc_parse(text, n, "t.tirx", NULL, 0);
    assert_int_equal(m->diags.nerrors, 1);
    ir_module_free(m);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signature),    cmocka_unit_test(test_match_buffer),
        cmocka_unit_test(test_folding),      cmocka_unit_test(test_scalars_and_let),
        cmocka_unit_test(test_loops),        cmocka_unit_test(test_regions_and_tile),
        cmocka_unit_test(test_tile_signatures), cmocka_unit_test(test_int_remainder_extremes),
        cmocka_unit_test(test_float_floordiv_mod),
        cmocka_unit_test(test_constants_and_defines), cmocka_unit_test(test_macros),
        cmocka_unit_test(test_scope_ids_and_frames),  cmocka_unit_test(test_layout),
        cmocka_unit_test(test_ptx),          cmocka_unit_test(test_module),
        cmocka_unit_test(test_errors),       cmocka_unit_test(test_nesting_limit),
        cmocka_unit_test(test_error_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
