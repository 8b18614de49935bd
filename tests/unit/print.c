/* Unit tests of the printer on hand-built IR. Every expected text is what the
 * reference printer (apache-tvm 0.27 `tvm.tirx`, `.script()`) prints for the
 * same function, apart from the deviations the test names say. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ir/ir.h"
#include "script/script.h"

#define HEADER "# from tvm.script import tirx as T\n# from tvm.tirx.layout import Axis\n\n"

/* ---------------------------------------------------------------- builders */

static TxArena *A_;
static IrModule *M_;

static void begin(void)
{
    M_ = ir_module_new();
    A_ = &M_->arena;
}

static IrExpr *i32(int64_t v) { return ir_i32(A_, v); }
static IrExpr *imm(IrDType t, int64_t v) { return ir_int(A_, t, v, (TxSpan){0}); }
static IrExpr *fimm(IrDType t, double v) { return ir_float(A_, t, v, (TxSpan){0}); }
static IrExpr *var(const char *name, IrDType t) { return ir_var(A_, name, ir_prim_type(A_, t), (TxSpan){0}); }
static IrExpr *bin(IrExprKind k, IrExpr *a, IrExpr *b) { return ir_binary(A_, k, a, b, (TxSpan){0}); }

static IrExpr **list(int n, ...)
{
    IrExpr **xs = TX_NEW_ARRAY(A_, IrExpr *, n > 0 ? n : 1);
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        xs[i] = va_arg(ap, IrExpr *);
    va_end(ap);
    return xs;
}

/* A buffer with the default layout of its shape (int32 extents). */
static IrExpr *buffer_of(const char *name, IrDType t, const char *scope, int ndim, IrExpr **shape)
{
    IrBufferType *b = TX_NEW(A_, IrBufferType);
    b->ndim = ndim, b->shape = shape;
    b->elem_offset = imm(ndim ? shape[0]->dtype : IR_INT32, 0);
    b->align = 64, b->offset_factor = 1;
    b->layout = ir_default_layout(A_, shape, ndim);
    return ir_var(A_, name, ir_buffer_type(A_, t, scope, b), (TxSpan){0});
}

static IrExpr *buffer1(const char *name, IrDType t, const char *scope, int64_t n)
{
    return buffer_of(name, t, scope, 1, list(1, i32(n)));
}

static IrExpr *buffer2(const char *name, IrDType t, const char *scope, int64_t n0, int64_t n1)
{
    return buffer_of(name, t, scope, 2, list(2, i32(n0), i32(n1)));
}

static IrExpr *load(IrExpr *buf, int n, IrExpr **idx)
{
    IrExpr *e = ir_node(A_, IR_E_LOAD, buf->u.var.type->dtype, (TxSpan){0});
    e->u.access.buffer = buf, e->u.access.n = n, e->u.access.indices = idx;
    return e;
}

static IrExpr *region(IrExpr *buf, int n, IrExpr **mins, IrExpr **exts)
{
    IrExpr *e = ir_node(A_, IR_E_REGION, IR_VOID, (TxSpan){0});
    e->u.access.buffer = buf, e->u.access.n = n;
    e->u.access.indices = mins, e->u.access.extents = exts;
    return e;
}

static IrExpr *call(IrOp op, IrDType t, int n, IrExpr **args)
{
    IrExpr *e = ir_node(A_, IR_E_CALL, t, (TxSpan){0});
    e->u.call.op = op, e->u.call.nargs = n, e->u.call.args = args;
    return e;
}

static IrExpr *cast(IrDType t, IrExpr *x)
{
    IrExpr *e = ir_node(A_, IR_E_CAST, t, (TxSpan){0});
    e->u.op.a = x;
    return e;
}

static IrStmt *store(IrExpr *buf, IrExpr *value, int n, IrExpr **idx)
{
    IrStmt *s = ir_stmt(A_, IR_S_STORE, (TxSpan){0});
    s->u.store.buffer = buf, s->u.store.value = value;
    s->u.store.n = n, s->u.store.indices = idx;
    return s;
}

static IrStmt *seq(int n, ...)
{
    IrStmt **ss = TX_NEW_ARRAY(A_, IrStmt *, n);
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        ss[i] = va_arg(ap, IrStmt *);
    va_end(ap);
    return ir_seq(A_, ss, n, (TxSpan){0});
}

static IrStmt *loop(IrExpr *v, IrExpr *min, IrExpr *extent, IrStmt *body)
{
    IrStmt *s = ir_stmt(A_, IR_S_FOR, (TxSpan){0});
    s->u.loop.var = v, s->u.loop.min = min, s->u.loop.extent = extent;
    s->u.loop.kind = IR_FOR_SERIAL, s->u.loop.body = body;
    return s;
}

static IrStmt *alloc(IrExpr *buf)
{
    IrStmt *s = ir_stmt(A_, IR_S_ALLOC, (TxSpan){0});
    s->u.alloc.buffer = buf;
    return s;
}

static IrStmt *attr(IrExpr *node, const char *key, IrExpr *value, IrStmt *body)
{
    IrStmt *s = ir_stmt(A_, IR_S_ATTR, (TxSpan){0});
    s->u.attr.node = node, s->u.attr.key = key, s->u.attr.value = value, s->u.attr.body = body;
    return s;
}

static IrStmt *eval(IrExpr *e)
{
    IrStmt *s = ir_stmt(A_, IR_S_EVAL, (TxSpan){0});
    s->u.eval = e;
    return s;
}

static IrFunc *func(const char *name, int nparams, IrExpr **params, IrStmt *body)
{
    IrFunc *f = TX_NEW(A_, IrFunc);
    f->name = name, f->nparams = nparams, f->params = params, f->body = body;
    IrFunc **fs = TX_NEW_ARRAY(A_, IrFunc *, M_->nfuncs + 1);
    for (int i = 0; i < M_->nfuncs; i++)
        fs[i] = M_->funcs[i];
    fs[M_->nfuncs++] = f;
    M_->funcs = fs;
    return f;
}

/* Print the module, compare, free. */
static void expect(const char *want)
{
    char *got = sc_print(M_);
    if (strcmp(got, want))
        fprintf(stderr, "--- want\n%s\n--- got\n%s\n---\n", want, got);
    assert_string_equal(got, want);
    free(got);
    ir_module_free(M_);
}

/* ---------------------------------------------------------------- tests */

/* Sibling loops reuse `i`; nested plain loops collapse to T.grid. */
static void test_loops_and_names(void **state)
{
    (void)state;
    begin();
    IrExpr *Ab = buffer2("A", IR_FLOAT16, "global", 128, 64);
    IrExpr *n = var("n", IR_INT32), *x = var("x", IR_FLOAT32);
    IrExpr *i1 = var("i", IR_INT32), *i2 = var("i", IR_INT32), *j2 = var("j", IR_INT32);
    IrExpr *i3 = var("i", IR_INT32), *j3 = var("j", IR_INT32);
    IrStmt *l1 = loop(i1, i32(0), i32(4), store(Ab, fimm(IR_FLOAT16, 1.5), 2, list(2, i1, i32(0))));
    IrExpr *sum = bin(IR_E_ADD, load(Ab, 2, list(2, j2, i2)), cast(IR_FLOAT16, x));
    IrStmt *l2 = loop(i2, i32(0), i32(4), loop(j2, i32(0), n, store(Ab, sum, 2, list(2, i2, j2))));
    IrStmt *l3 = loop(i3, i32(0), i32(2),
                      loop(j3, i32(0), i32(3), store(Ab, fimm(IR_FLOAT16, 0), 2, list(2, i3, j3))));
    func("f1", 3, list(3, Ab, n, x), seq(3, l1, l2, l3));
    expect(HEADER "@T.prim_func\n"
                  "def f1(A: T.Buffer((128, 64), \"float16\"), n: T.int32, x: T.float32):\n"
                  "    for i in range(4):\n"
                  "        A[i, 0] = T.float16(1.5)\n"
                  "    for i, j in T.grid(4, n):\n"
                  "        A[i, j] = A[j, i] + T.Cast(\"float16\", x)\n"
                  "    for i, j in T.grid(2, 3):\n"
                  "        A[i, j] = T.float16(0.0)");
}

/* A symbolic shape variable is quoted at its first signature occurrence
 * and defined by `n = T.int32()` in the body. */
static void test_symbolic_shape(void **state)
{
    (void)state;
    begin();
    IrExpr *n = var("n", IR_INT32);
    IrExpr *Ab = buffer_of("A", IR_FLOAT32, "global", 2, list(2, n, i32(4)));
    IrExpr *Bb = buffer_of("B", IR_INT32, "global", 1, list(1, n));
    func("f2", 1, list(1, Ab), seq(2, alloc(Bb), store(Bb, i32(1), 1, list(1, i32(0)))));
    expect(HEADER "@T.prim_func\n"
                  "def f2(A: T.Buffer((\"n\", 4), \"float32\")):\n"
                  "    n = T.int32()\n"
                  "    B = T.alloc_buffer((n,), \"int32\")\n"
                  "    B[0] = 1");
}

/* Device entry and a directly nested dict attribute merge into one flat
 * T.attr; scalars: fused init, bare declaration, loads by name. A shared
 * scalar prints T.shared_scalar (the reference prints `s: T.uint64`, which
 * reparses as a local scalar: a deliberate deviation). */
static void test_attrs_and_scalars(void **state)
{
    (void)state;
    begin();
    IrExpr *Ab = buffer1("A", IR_INT32, "global", 8);
    IrExpr *x = buffer1("x", IR_INT32, "local", 1), *y = buffer1("y", IR_INT32, "local", 1);
    IrExpr *s = buffer1("s", IR_UINT64, "shared", 1);
    IrExpr *k = var("k", IR_INT32);
    IrExpr *zero = i32(0);
    IrStmt *body = seq(6, alloc(x), store(x, i32(0), 1, list(1, zero)), alloc(y), alloc(s),
                       loop(k, i32(0), i32(4),
                            store(x, bin(IR_E_ADD, load(x, 1, list(1, zero)), k), 1, list(1, zero))),
                       store(Ab, load(x, 1, list(1, zero)), 1, list(1, zero)));
    IrStmt *inner = attr(i32(0), "tirx.launch_bounds_min_blocks_per_sm", i32(2), body);
    func("f3", 1, list(1, Ab), attr(i32(0), "tirx.device_entry", imm(IR_BOOL, 1), inner));
    expect(HEADER "@T.prim_func\n"
                  "def f3(A: T.Buffer((8,), \"int32\")):\n"
                  "    T.attr({\"tirx.device_entry\": T.bool(True), "
                  "\"tirx.launch_bounds_min_blocks_per_sm\": 2})\n"
                  "    x: T.int32 = 0\n"
                  "    y: T.int32\n"
                  "    s = T.shared_scalar(T.uint64)\n"
                  "    for k in range(4):\n"
                  "        x = x + k\n"
                  "    A[0] = x");
}

/* Operators print as Python operators only when rebuilding them gives the
 * same node: foldable or mixed-dtype operands print as T.Add(...). */
static void test_operator_sugar(void **state)
{
    (void)state;
    begin();
    IrExpr *Ab = buffer1("A", IR_INT32, "global", 16);
    IrExpr *a = var("a", IR_INT32), *b = var("b", IR_INT32), *l = var("l", IR_INT64);
    IrExpr *x = var("x", IR_FLOAT32), *y = var("y", IR_FLOAT32);
    IrExpr *Bb = buffer1("B", IR_FLOAT32, "global", 4);
    IrStmt *body = seq(
        9, store(Ab, bin(IR_E_ADD, i32(1), i32(2)), 1, list(1, i32(0))),
        store(Ab, bin(IR_E_ADD, a, i32(0)), 1, list(1, i32(1))),
        store(Ab, bin(IR_E_SUB, a, bin(IR_E_SUB, b, i32(1))), 1, list(1, i32(2))),
        store(Ab, bin(IR_E_MUL, bin(IR_E_ADD, a, b), bin(IR_E_FLOORDIV, a, b)), 1, list(1, i32(3))),
        store(Ab, bin(IR_E_DIV, a, b), 1, list(1, i32(4))),
        store(Ab, cast(IR_INT32, bin(IR_E_ADD, l, a)), 1, list(1, i32(5))),
        store(Ab, bin(IR_E_MOD, a, b), 1, list(1, i32(6))),
        store(Bb, bin(IR_E_DIV, x, bin(IR_E_ADD, y, fimm(IR_FLOAT32, 1.0))), 1, list(1, i32(0))),
        store(Ab, bin(IR_E_MAX, a, bin(IR_E_FLOORMOD, a, i32(7))), 1, list(1, i32(7))));
    func("ops", 6, list(6, Ab, Bb, a, b, x, y), body);
    (void)l;
    expect(HEADER "@T.prim_func\n"
                  "def ops(A: T.Buffer((16,), \"int32\"), B: T.Buffer((4,), \"float32\"), a: T.int32, b: T.int32, "
                  "x: T.float32, y: T.float32):\n"
                  "    A[0] = T.Add(1, 2)\n"
                  "    A[1] = T.Add(a, 0)\n"
                  "    A[2] = a - (b - 1)\n"
                  "    A[3] = (a + b) * (a // b)\n"
                  "    A[4] = T.Div(a, b)\n"
                  "    l = T.int64()\n"
                  "    A[5] = T.Cast(\"int32\", T.Add(l, a))\n"
                  "    A[6] = T.truncmod(a, b)\n"
                  "    B[0] = x / (y + T.float32(1.0))\n"
                  "    A[7] = T.max(a, a % 7)");
}

/* Float literal formatting: integral values with one decimal, others with
 * 17 significant digits, inf and nan quoted. */
static void test_float_literals(void **state)
{
    (void)state;
    begin();
    IrExpr *Bb = buffer1("B", IR_FLOAT32, "global", 8);
    IrStmt *body = seq(5, store(Bb, fimm(IR_FLOAT32, 0.1), 1, list(1, i32(0))),
                       store(Bb, fimm(IR_FLOAT32, 1e-5), 1, list(1, i32(1))),
                       store(Bb, fimm(IR_FLOAT32, 1e20), 1, list(1, i32(2))),
                       store(Bb, fimm(IR_FLOAT32, -1.0 / 0.0), 1, list(1, i32(3))),
                       store(Bb, cast(IR_FLOAT32, imm(IR_UINT32, 4294967295)), 1, list(1, i32(4))));
    func("lits", 1, list(1, Bb), body);
    expect(HEADER "@T.prim_func\n"
                  "def lits(B: T.Buffer((8,), \"float32\")):\n"
                  "    B[0] = T.float32(0.10000000000000001)\n"
                  "    B[1] = T.float32(1.0000000000000001e-05)\n"
                  "    B[2] = T.float32(100000000000000000000.0)\n"
                  "    B[3] = T.float32(\"-inf\")\n"
                  "    B[4] = T.Cast(\"float32\", T.uint32(4294967295))");
}

/* Tile calls: regions print `min:min + extent`, extent-1 dims as the index;
 * an in-place unary op shows one operand. */
static void test_tile_call(void **state)
{
    (void)state;
    begin();
    IrExpr *Ab = buffer2("A", IR_FLOAT16, "global", 128, 128);
    IrExpr *S = buffer2("S", IR_FLOAT16, "shared", 128, 32);
    IrExpr *k = var("k", IR_INT32);
    IrStmt *copy = ir_stmt(A_, IR_S_TILE, (TxSpan){0});
    copy->u.tile.scope = IR_SCOPE_CTA, copy->u.tile.op = IR_TILE_COPY, copy->u.tile.nargs = 2;
    copy->u.tile.args =
        list(2, region(S, 2, list(2, i32(0), i32(0)), list(2, i32(128), i32(32))),
             region(Ab, 2, list(2, i32(0), bin(IR_E_MUL, k, i32(32))), list(2, i32(128), i32(32))));
    IrStmt *ex = ir_stmt(A_, IR_S_TILE, (TxSpan){0});
    IrExpr *r = region(S, 2, list(2, k, i32(0)), list(2, i32(1), i32(32)));
    ex->u.tile.scope = IR_SCOPE_WARP, ex->u.tile.op = IR_TILE_EXP2, ex->u.tile.nargs = 2;
    ex->u.tile.args = list(2, r, region(S, 2, list(2, k, i32(0)), list(2, i32(1), i32(32))));
    func("tile", 1, list(1, Ab),
         seq(2, alloc(S), loop(k, i32(0), i32(4), seq(2, copy, ex))));
    expect(HEADER "@T.prim_func\n"
                  "def tile(A: T.Buffer((128, 128), \"float16\")):\n"
                  "    S = T.alloc_shared((128, 32), \"float16\")\n"
                  "    for k in range(4):\n"
                  "        T.cta.copy(S[0:128, 0:32], A[0:128, k * 32:k * 32 + 32])\n"
                  "        T.warp.exp2(S[k, 0:32])");
}

/* int64 shape variables are type variables (portable TypeVar form; compound
 * expressions quoted); a stride variable used once prints as its name string
 * and later as `B.strides[0]`; an elem_offset variable is implicit and forces
 * offset_factor=. */
static void test_type_vars_and_implicit_vars(void **state)
{
    (void)state;
    begin();
    IrExpr *n = var("n", IR_INT64), *m = var("m", IR_INT32), *s0 = var("s0", IR_INT32);
    IrExpr *off = var("elem_offset", IR_INT32);
    IrExpr *Ab = buffer_of("A", IR_FLOAT32, "global", 2, list(2, n, bin(IR_E_MUL, n, imm(IR_INT64, 2))));
    IrExpr *Bb = buffer_of("B", IR_FLOAT32, "global", 2, list(2, m, i32(4)));
    IrBufferType *bt = Bb->u.var.type->buf;
    bt->nstrides = 2, bt->strides = list(2, s0, i32(1)), bt->elem_offset = off, bt->offset_factor = 4;
    IrExpr *Cb = buffer_of("C", IR_INT8, "global", 1, list(1, bin(IR_E_MUL, m, i32(2))));
    IrExpr *sum = bin(IR_E_ADD, cast(IR_FLOAT32, s0), cast(IR_FLOAT32, off));
    func("f", 3, list(3, Ab, Bb, Cb),
         seq(2, store(Ab, fimm(IR_FLOAT32, 1), 2, list(2, i32(0), i32(0))),
             store(Bb, sum, 2, list(2, i32(0), i32(0)))));
    expect("# from typing import TypeVar\n" HEADER "n = TypeVar(\"n\")\n"
           "@T.prim_func\n"
           "def f(A: T.Buffer((n, \"n * T.int64(2)\"), \"float32\"), B: T.Buffer((\"m\", 4), "
           "\"float32\", strides=(\"s0\", 1), offset_factor=4), C: T.Buffer((m * 2,), \"int8\")):\n"
           "    m = T.int32()\n"
           "    A[0, 0] = T.float32(1.0)\n"
           "    B[0, 0] = T.Cast(\"float32\", B.strides[0]) + T.Cast(\"float32\", B.elem_offset)");
}

/* An allocation's elem_offset variable used once is implicit: later uses
 * print `S.elem_offset` (the buffer is named after the declaration). */
static void test_implicit_elem_offset(void **state)
{
    (void)state;
    begin();
    IrExpr *Ab = buffer1("A", IR_INT32, "global", 4);
    IrExpr *S = buffer1("S", IR_INT32, "shared", 16);
    IrExpr *off = var("off", IR_INT32);
    S->u.var.type->buf->elem_offset = off;
    func("imp", 1, list(1, Ab), seq(2, alloc(S), store(Ab, off, 1, list(1, i32(0)))));
    expect(HEADER "@T.prim_func\n"
                  "def imp(A: T.Buffer((4,), \"int32\")):\n"
                  "    S = T.alloc_shared((16,), \"int32\", offset_factor=1)\n"
                  "    A[0] = S.elem_offset");
}

/* Bitwise ops print infix (they are nodes in the reference); deviations: a
 * comparison of a comparison is parenthesized, keyword names get `_1`. */
static void test_bitwise_and_deviations(void **state)
{
    (void)state;
    begin();
    IrExpr *Ab = buffer1("A", IR_INT32, "global", 4);
    IrExpr *n = var("n", IR_INT32), *kw = var("lambda", IR_INT32);
    IrExpr *band = call(IR_OP_BITWISE_AND, IR_INT32, 2, list(2, n, i32(3)));
    IrExpr *shl = call(IR_OP_SHIFT_LEFT, IR_INT32, 2, list(2, n, i32(2)));
    IrExpr *bnot = call(IR_OP_BITWISE_NOT, IR_INT32, 1, list(1, bin(IR_E_ADD, n, i32(1))));
    IrExpr *folded = call(IR_OP_SHIFT_RIGHT, IR_INT32, 2, list(2, n, i32(0)));
    IrExpr *chain = bin(IR_E_EQ, bin(IR_E_LT, n, kw), imm(IR_BOOL, 1));
    func("bits", 3, list(3, Ab, n, kw),
         seq(3, store(Ab, bin(IR_E_ADD, band, shl), 1, list(1, i32(0))),
             store(Ab, bin(IR_E_MUL, bnot, folded), 1, list(1, i32(1))),
             store(Ab, cast(IR_INT32, chain), 1, list(1, i32(2)))));
    expect(HEADER "@T.prim_func\n"
                  "def bits(A: T.Buffer((4,), \"int32\"), n: T.int32, lambda_1: T.int32):\n"
                  "    A[0] = (n & 3) + (n << 2)\n"
                  "    A[1] = ~(n + 1) * T.shift_right(n, 0)\n"
                  "    A[2] = T.Cast(\"int32\", (n < lambda_1) == T.bool(True))");
}

/* An ir_module: functions sorted by name with main last, one blank line
 * between them; calls of module functions print Module.f(...). */
static void test_module(void **state)
{
    (void)state;
    begin();
    M_->is_ir_module = true;
    IrExpr *A1 = buffer1("A", IR_INT32, "global", 4), *A2 = buffer1("A", IR_INT32, "global", 4);
    func("main", 1, list(1, A1), store(A1, i32(2), 1, list(1, i32(0))));
    IrFunc *z = func("zeta", 1, list(1, A2), store(A2, i32(1), 1, list(1, i32(0))));
    z->is_private = true;
    IrExpr *c = call(IR_OP_CALL_FUNC, IR_INT32, 1, list(1, i32(3)));
    c->u.call.callee = "zeta";
    M_->funcs[0]->body = seq(2, M_->funcs[0]->body, eval(c));
    expect("# from tvm.script import ir as I\n" HEADER "@I.ir_module\n"
           "class Module:\n"
           "    @T.prim_func(private=True)\n"
           "    def zeta(A: T.Buffer((4,), \"int32\")):\n"
           "        A[0] = 1\n"
           "\n"
           "    @T.prim_func\n"
           "    def main(A: T.Buffer((4,), \"int32\")):\n"
           "        A[0] = 2\n"
           "        Module.zeta(3)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loops_and_names), cmocka_unit_test(test_symbolic_shape),
        cmocka_unit_test(test_attrs_and_scalars), cmocka_unit_test(test_operator_sugar),
        cmocka_unit_test(test_float_literals),  cmocka_unit_test(test_tile_call),
        cmocka_unit_test(test_module), cmocka_unit_test(test_type_vars_and_implicit_vars),
        cmocka_unit_test(test_bitwise_and_deviations), cmocka_unit_test(test_implicit_elem_offset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
