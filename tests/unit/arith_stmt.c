/* Unit tests of StmtSimplify (ar_simplify_func over the IrMutator):
 * functions written as TIRx script are simplified and printed, and compared
 * with the expected script (parsed and printed the same way): loop ranges,
 * scope ids and thread_extent bind their variables, provable ifs keep the
 * live branch, if conditions hold inside their branch, pure Binds are
 * substituted (and kept), impure ones are not, buffer definitions stay, and a
 * store of the same location's load becomes Evaluate(0). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "arith/arith.h"
#include "script/script.h"

static IrModule *parse(const char *text)
{
    IrModule *m = sc_parse(text, strlen(text), "t.tirx", NULL, 0);
    if (m->diags.nerrors) {
        print_error("parse failed:\n%s\n", text);
        fail();
    }
    return m;
}

static void expect_simplified(const char *input, const char *expected)
{
    IrModule *m = parse(input), *e = parse(expected);
    ArCtx c;
    ar_ctx_init(&c, &m->arena);
    for (int i = 0; i < m->nfuncs; i++)
        m->funcs[i] = ar_simplify_func(&c, m->funcs[i]);
    ar_ctx_free(&c);
    char *got = sc_print(m), *want = sc_print(e);
    if (strcmp(got, want) != 0)
        print_error("got:\n%s\nexpected:\n%s\n", got, want);
    assert_string_equal(got, want);
    free(got);
    free(want);
    ir_module_free(m);
    ir_module_free(e);
}

static void test_loop_ranges(void **state)
{
    (void)state;
    expect_simplified("@T.prim_func\n"
                      "def f(A: T.Buffer((64,), \"int32\")):\n"
                      "    for i in range(16):\n"
                      "        for j in range(4):\n"
                      "            A[(j + i * 4) % 64] = (i * 4 + j) // 4 + (i * 4 + j) % 4 * 0\n",
                      "@T.prim_func\n"
                      "def f(A: T.Buffer((64,), \"int32\")):\n"
                      "    for i in range(16):\n"
                      "        for j in range(4):\n"
                      "            A[i * 4 + j] = i\n");
}

static void test_conditions(void **state)
{
    (void)state;
    expect_simplified("@T.prim_func\n"
                      "def f(A: T.Buffer((64,), \"int32\")):\n"
                      "    for i in range(16):\n"
                      "        if i < 16:\n"
                      "            A[i] = 1\n"
                      "        else:\n"
                      "            A[i] = 2\n"
                      "        if i >= 16:\n"
                      "            A[i] = 3\n"
                      "        if i < 8:\n"
                      "            A[i % 8 + 16] = T.if_then_else(i < 8, 4, 5)\n"
                      "        else:\n"
                      "            A[i // 8 + 32] = T.if_then_else(i < 8, 4, 5)\n",
                      "@T.prim_func\n"
                      "def f(A: T.Buffer((64,), \"int32\")):\n"
                      "    for i in range(16):\n"
                      "        A[i] = 1\n"
                      "        T.evaluate(0)\n"
                      "        if i < 8:\n"
                      "            A[i + 16] = 4\n"
                      "        else:\n"
                      "            A[33] = 5\n");
}

static void test_scope_ids_and_binds(void **state)
{
    (void)state;
    expect_simplified("@T.prim_func\n"
                      "def f(A: T.Buffer((4, 128), \"int32\")):\n"
                      "    T.device_entry()\n"
                      "    bx = T.cta_id([4])\n"
                      "    tx = T.thread_id([128])\n"
                      "    lane: T.let = tx % 32\n"
                      "    warp: T.let = tx // 32\n"
                      "    A[bx % 4, warp * 32 + lane] = lane % 32 + tx // 128\n",
                      "@T.prim_func\n"
                      "def f(A: T.Buffer((4, 128), \"int32\")):\n"
                      "    T.device_entry()\n"
                      "    bx = T.cta_id([4])\n"
                      "    tx = T.thread_id([128])\n"
                      "    lane: T.let = tx % 32\n"
                      "    warp: T.let = tx // 32\n"
                      "    A[bx, tx] = tx % 32\n");
}

static void test_thread_extent_and_impure_bind(void **state)
{
    (void)state;
    expect_simplified("@T.prim_func\n"
                      "def f(A: T.Buffer((256,), \"float32\"), B: T.Buffer((256,), \"float32\")):\n"
                      "    with T.launch_thread(\"threadIdx.x\", 128) as tx:\n"
                      "        w: T.let = T.tvm_warp_shuffle(T.uint32(4294967295), tx // 32, 0, 32, 32)\n"
                      "        B[w % 4 * 32 + tx % 32 + tx // 128] = A[tx % 128]\n"
                      "        A[tx] = A[tx]\n",
                      "@T.prim_func\n"
                      "def f(A: T.Buffer((256,), \"float32\"), B: T.Buffer((256,), \"float32\")):\n"
                      "    with T.launch_thread(\"threadIdx.x\", 128) as tx:\n"
                      "        w: T.let = T.tvm_warp_shuffle(T.uint32(4294967295), tx // 32, 0, 32, 32)\n"
                      "        B[w % 4 * 32 + tx % 32] = A[tx]\n"
                      "        T.evaluate(0)\n");
}

static void test_unchanged_is_identity(void **state)
{
    (void)state;
    const char *text = "@T.prim_func\n"
                       "def f(A: T.Buffer((64,), \"int32\"), n: T.int32):\n"
                       "    for i in range(n):\n"
                       "        A[i] = i * 2 + n\n";
    IrModule *m = parse(text);
    ArCtx c;
    ar_ctx_init(&c, &m->arena);
    assert_ptr_equal(ar_simplify_func(&c, m->funcs[0]), m->funcs[0]);
    ar_ctx_free(&c);
    ir_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop_ranges),
        cmocka_unit_test(test_conditions),
        cmocka_unit_test(test_scope_ids_and_binds),
        cmocka_unit_test(test_thread_extent_and_impure_bind),
        cmocka_unit_test(test_unchanged_is_identity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
