/* Unit tests of the base layer: arena, vectors, strings, near-match, sources. */
#include <ctype.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/base.h"
#include "base/diag.h"
#include "ir/ir.h"

static void test_arena(void **state)
{
    (void)state;
    TxArena a;
    tx_arena_init(&a);
    char *big = tx_arena_alloc(&a, 200000);
    big[199999] = 1;
    char *s = tx_arena_printf(&a, "%s-%d", "x", 42);
    assert_string_equal(s, "x-42");
    tx_arena_free(&a);
}

static void test_dtype_roundtrip(void **state)
{
    (void)state;
    const char *names[] = {"int8", "int32", "uint64", "float16", "float32x4", "bfloat16",
                           "bool", "handle", "float8_e4m3fn", "float8_e4m3fnx4",
                           "float4_e2m1fn", "float8_e8m0fnu", "float16x2", "void"};
    for (size_t i = 0; i < TX_ARRAY_LEN(names); i++) {
        IrDType t;
        char buf[IR_DTYPE_STR_MAX];
        assert_true(ir_dtype_parse(names[i], strlen(names[i]), &t));
        assert_string_equal(ir_dtype_str(t, buf), names[i]);
    }
    IrDType t;
    assert_true(ir_dtype_parse("int", 3, &t));
    assert_true(ir_dtype_eq(t, IR_INT32));
    assert_false(ir_dtype_parse("int7", 4, &t));
    assert_false(ir_dtype_parse("float8", 6, &t));
    assert_false(ir_dtype_parse("handlex2", 8, &t));
}

static void test_nearest(void **state)
{
    (void)state;
    const char *c[] = {"alloc_shared", "alloc_local", "alloc_buffer"};
    assert_string_equal(tx_nearest("alloc_shard", c, 3), "alloc_shared");
    assert_null(tx_nearest("zzz", c, 3));
}

static void test_diag_render(void **state)
{
    (void)state;
    TxArena a;
    tx_arena_init(&a);
    TxDiags d;
    tx_diags_init(&d, &a);
    TxSource *src = tx_source_new(&a, "k.tirx", "def f():\r\n    x = (1\n", 22);
    tx_error(&d, TX_E_SYNTAX, (TxSpan){src, 17, 18}, "'(' was never closed");
    tx_note(&d, (TxSpan){0}, "a note has no code");
    TxBuf b = {0};
    tx_diag_render(&d.list.items[0], &b);
    tx_diag_render(&d.list.items[1], &b);
    assert_string_equal(b.data, "k.tirx:2:9: error[E0001]: '(' was never closed\n"
                                "    x = (1\n"
                                "        ^\n"
                                "note: a note has no code\n");
    tx_buf_free(&b);
    tx_diags_free(&d);
    tx_arena_free(&a);
}

/* The code table: codes and names are unique and well formed, an error's code
 * starts with E and a warning's with W, and docs/diagnostics.md has a row
 * `| E0101 | unknown-name | ...` for each. */
static void test_diag_codes(void **state)
{
    (void)state;
    FILE *f = fopen(TIRX_SOURCE_DIR "/docs/diagnostics.md", "rb");
    assert_non_null(f);
    static char doc[1 << 16];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = 0;
    static const char *const ids[] = {
#define X(id, code, name, summary) #id,
#include "base/diag_codes.def"
#undef X
    };
    assert_int_equal(TX_ARRAY_LEN(ids), TX_CODE_COUNT - 1);
    for (int i = 1; i < TX_CODE_COUNT; i++) {
        const char *code = tx_code_text((TxCode)i), *name = tx_code_name((TxCode)i);
        assert_int_equal(strlen(code), 5);
        assert_int_equal(code[0], ids[i - 1][0]);
        for (int k = 1; k < 5; k++)
            assert_true(isdigit((unsigned char)code[k]));
        for (const char *p = name; *p; p++)
            assert_true(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '-');
        assert_non_null(tx_code_summary((TxCode)i));
        for (int j = 1; j < i; j++) {
            assert_string_not_equal(code, tx_code_text((TxCode)j));
            assert_string_not_equal(name, tx_code_name((TxCode)j));
        }
        char row[96];
        snprintf(row, sizeof row, "| %s | %s |", code, name);
        if (!strstr(doc, row))
            fail_msg("docs/diagnostics.md has no row '%s'", row);
    }
    assert_null(tx_code_text(TX_CODE_NONE));
}

static void alloc_huge(void *arg) { tx_arena_alloc(arg, SIZE_MAX - 4); }

static void alloc_small(void *arg) { tx_arena_alloc(arg, 16); }

static void nested_guard(void *arg)
{
    assert_false(tx_guarded(alloc_huge, arg));
    tx_arena_alloc(arg, 16); /* the outer guard is in force again */
}

/* An allocation that cannot be made (here a size past SIZE_MAX once rounded,
 * which used to wrap to a tiny block) unwinds to the innermost guard, which
 * returns false; the outer one is untouched. tx_fail_allocs_after(n) lets n
 * allocations through, then fails every one until reset. */
static void test_out_of_memory(void **state)
{
    (void)state;
    TxArena a;
    tx_arena_init(&a);
    assert_false(tx_guarded(alloc_huge, &a));
    assert_true(tx_guarded(nested_guard, &a));
    tx_fail_allocs_after(1);
    assert_true(tx_guarded(alloc_small, &a)); /* from the chunk of the first */
    TxArena b;
    tx_arena_init(&b);
    assert_true(tx_guarded(alloc_small, &b));
    TxArena c;
    tx_arena_init(&c);
    assert_false(tx_guarded(alloc_small, &c));
    tx_fail_allocs_after(-1);
    assert_true(tx_guarded(alloc_small, &c));
    tx_arena_free(&a);
    tx_arena_free(&b);
    tx_arena_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arena),
        cmocka_unit_test(test_dtype_roundtrip),
        cmocka_unit_test(test_nearest),
        cmocka_unit_test(test_diag_render),
        cmocka_unit_test(test_diag_codes),
        cmocka_unit_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
