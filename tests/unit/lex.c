/* Unit tests of the TIRx script lexer: token sequences for indentation,
 * brackets, continuations and literals, and the lexical errors with their
 * positions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "script/lex.h"

typedef struct Lexed {
    TxArena arena;
    TxDiags diags;
    TxSource *src;
    ScTokens toks;
    bool ok;
} Lexed;

static Lexed *lex(const char *text)
{
    Lexed *l = calloc(1, sizeof *l);
    tx_arena_init(&l->arena);
    tx_diags_init(&l->diags, &l->arena);
    l->src = tx_source_new(&l->arena, "t.tirx", text, strlen(text));
    l->ok = sc_lex(l->src, 0, l->src->len, false, &l->arena, &l->diags, &l->toks);
    return l;
}

static void lexed_free(Lexed *l)
{
    sc_tokens_free(&l->toks);
    tx_diags_free(&l->diags);
    tx_arena_free(&l->arena);
    free(l);
}

#define END (-1)

/* The token kinds of text must be exactly kinds[] (terminated by END). */
static void expect_kinds(const char *text, const int *kinds)
{
    Lexed *l = lex(text);
    assert_true(l->ok);
    int n = 0;
    while (kinds[n] != END)
        n++;
    if (l->toks.n != n) {
        for (int i = 0; i < l->toks.n; i++)
            print_message("%s ", sc_tok_kind_name(l->toks.t[i].kind));
        print_message("\n");
    }
    assert_int_equal(l->toks.n, n);
    for (int i = 0; i < n; i++)
        assert_int_equal(l->toks.t[i].kind, kinds[i]);
    lexed_free(l);
}

/* text must fail with message msg at line:col (1-based). */
static void expect_error(const char *text, const char *msg, int line, int col)
{
    Lexed *l = lex(text);
    assert_false(l->ok);
    assert_true(l->diags.list.len >= 1);
    const TxDiag *d = &l->diags.list.items[0];
    assert_string_equal(d->msg, msg);
    int ln, cl;
    tx_source_linecol(l->src, d->span.begin, &ln, &cl);
    assert_int_equal(ln, line);
    assert_int_equal(cl, col);
    lexed_free(l);
}

static void test_indentation(void **state)
{
    (void)state;
    const int k[] = {SC_TK_IF, SC_TK_NAME, SC_TK_COLON, SC_TK_NEWLINE, SC_TK_INDENT, SC_TK_NAME,
                     SC_TK_NEWLINE, SC_TK_DEDENT, SC_TK_NAME, SC_TK_NEWLINE, SC_TK_EOF, END};
    expect_kinds("if x:\n  y\n\n  # c\nz\n", k);
    /* Two dedents at once, and the ones still open at the end of input. */
    const int k2[] = {SC_TK_NAME, SC_TK_NEWLINE, SC_TK_INDENT, SC_TK_NAME, SC_TK_NEWLINE,
                      SC_TK_INDENT, SC_TK_NAME, SC_TK_NEWLINE, SC_TK_DEDENT, SC_TK_DEDENT,
                      SC_TK_NAME, SC_TK_NEWLINE, SC_TK_INDENT, SC_TK_NAME, SC_TK_NEWLINE,
                      SC_TK_DEDENT, SC_TK_EOF, END};
    expect_kinds("a\n    b\n        c\nd\n  e", k2);
    /* A comment-only line with a tab in it is harmless. */
    const int k3[] = {SC_TK_NAME, SC_TK_NEWLINE, SC_TK_NAME, SC_TK_NEWLINE, SC_TK_EOF, END};
    expect_kinds("a\n\t# note\nb\n", k3);
}

static void test_continuation(void **state)
{
    (void)state;
    const int k[] = {SC_TK_NAME, SC_TK_LPAR, SC_TK_NAME, SC_TK_COMMA, SC_TK_NAME, SC_TK_RPAR,
                     SC_TK_NEWLINE, SC_TK_EOF, END};
    expect_kinds("f(a,\n        b)\n", k);
    const int k2[] = {SC_TK_NAME, SC_TK_EQUAL, SC_TK_INT, SC_TK_PLUS, SC_TK_INT, SC_TK_NEWLINE,
                      SC_TK_EOF, END};
    expect_kinds("a = 1 + \\\n  2\n", k2);
    /* Comments inside brackets. */
    expect_kinds("f(a,  # first\n  b)\n", k);
}

static void test_operators(void **state)
{
    (void)state;
    const int k[] = {SC_TK_NAME, SC_TK_DOUBLESLASHEQUAL, SC_TK_NAME, SC_TK_DOUBLESTAR,
                     SC_TK_NAME, SC_TK_RIGHTSHIFT, SC_TK_INT, SC_TK_LESSEQUAL, SC_TK_NAME,
                     SC_TK_RARROW, SC_TK_ELLIPSIS, SC_TK_AT, SC_TK_NEWLINE, SC_TK_EOF, END};
    expect_kinds("a //= b ** c >> 1 <= d -> ... @", k);
}

static void test_literals(void **state)
{
    (void)state;
    Lexed *l = lex("0x1F 0b101 0o17 1_000 0 00 18446744073709551615 1.0 1e-5 .5 2. 1_0.2_5");
    assert_true(l->ok);
    const uint64_t ints[] = {31, 5, 15, 1000, 0, 0, UINT64_MAX};
    for (int i = 0; i < 7; i++) {
        assert_int_equal(l->toks.t[i].kind, SC_TK_INT);
        assert_true(l->toks.t[i].v.i == ints[i]);
    }
    const double floats[] = {1.0, 1e-5, 0.5, 2.0, 10.25};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(l->toks.t[7 + i].kind, SC_TK_FLOAT);
        assert_true(l->toks.t[7 + i].v.f == floats[i]);
    }
    lexed_free(l);

    l = lex("'a\\n\\t\\\\\\\"\\x41' \"q'\" r'\\d' 'x' 'y' \"\"\"tri\nple\"\"\"");
    assert_true(l->ok);
    assert_int_equal(l->toks.t[0].kind, SC_TK_STRING);
    assert_string_equal(l->toks.t[0].v.s, "a\n\t\\\"A");
    assert_false(l->toks.t[0].verbatim);
    assert_string_equal(l->toks.t[1].v.s, "q'");
    assert_true(l->toks.t[1].verbatim);
    assert_string_equal(l->toks.t[2].v.s, "\\d");
    assert_string_equal(l->toks.t[5].v.s, "tri\nple");
    lexed_free(l);

    l = lex("True None and lambda_ T");
    assert_int_equal(l->toks.t[0].kind, SC_TK_TRUE);
    assert_int_equal(l->toks.t[1].kind, SC_TK_NONE);
    assert_int_equal(l->toks.t[2].kind, SC_TK_AND);
    assert_int_equal(l->toks.t[3].kind, SC_TK_NAME);
    assert_string_equal(l->toks.t[3].v.s, "lambda_");
    lexed_free(l);
}

/* The decoded text of the only token of text, which must be a string. */
static void expect_decoded(const char *text, const char *decoded, bool verbatim)
{
    Lexed *l = lex(text);
    assert_true(l->ok);
    assert_int_equal(l->toks.t[0].kind, SC_TK_STRING);
    assert_string_equal(l->toks.t[0].v.s, decoded);
    assert_int_equal(l->toks.t[0].n, strlen(decoded));
    assert_int_equal(l->toks.t[0].verbatim, verbatim);
    lexed_free(l);
}

/* Literals longer than the lexer's small buffer, each length around its edge,
 * with escapes and raw pairs that decode to fewer or as many bytes. */
static void test_long_strings(void **state)
{
    (void)state;
    char text[4096], decoded[2048];
    for (int len = 250; len <= 260; len++) {
        memset(decoded, 'a', (size_t)len);
        decoded[len] = 0;
        snprintf(text, sizeof text, "'%s'", decoded);
        expect_decoded(text, decoded, true);
        snprintf(text, sizeof text, "r'%s\\d'", decoded); /* a raw pair last: two bytes */
        snprintf(decoded + len, 4, "\\d");
        expect_decoded(text, decoded, true);
    }
    size_t n = 0, d = 0;
    n += (size_t)snprintf(text + n, sizeof text - n, "\"\"\"");
    for (int i = 0; i < 100; i++) {
        n += (size_t)snprintf(text + n, sizeof text - n, "ab\\x41\\n\\\nc\n");
        d += (size_t)snprintf(decoded + d, sizeof decoded - d, "abA\nc\n");
    }
    snprintf(text + n, sizeof text - n, "\"\"\"");
    expect_decoded(text, decoded, false);
    memset(text, 'b', 600);
    text[0] = '"';
    text[600] = 0;
    expect_error(text, "unterminated string literal (detected at line 1)", 1, 1);
}

/* More tokens than bytes / 4 (the first guess of the token array's size). */
static void test_many_tokens(void **state)
{
    (void)state;
    char text[4002];
    for (int i = 0; i < 2000; i++)
        text[2 * i] = 'a', text[2 * i + 1] = ',';
    text[4000] = '\n', text[4001] = 0;
    Lexed *l = lex(text);
    assert_true(l->ok);
    assert_int_equal(l->toks.n, 4002);
    assert_int_equal(l->toks.t[3998].kind, SC_TK_NAME);
    assert_int_equal(l->toks.t[3999].kind, SC_TK_COMMA);
    assert_int_equal(l->toks.t[4000].kind, SC_TK_NEWLINE);
    assert_int_equal(l->toks.t[4001].kind, SC_TK_EOF);
    lexed_free(l);
}

static void test_expr_only(void **state)
{
    (void)state;
    TxArena a;
    TxDiags d;
    tx_arena_init(&a);
    tx_diags_init(&d, &a);
    const char *text = "x = (\"n * 2\",)";
    TxSource *src = tx_source_new(&a, "t", text, strlen(text));
    ScTokens toks;
    /* The bytes between the quotes, as a signature's quoted shape is lexed. */
    assert_true(sc_lex(src, 6, 11, true, &a, &d, &toks));
    assert_int_equal(toks.n, 4);
    assert_int_equal(toks.t[0].kind, SC_TK_NAME);
    assert_int_equal(toks.t[0].off, 6);
    assert_int_equal(toks.t[1].kind, SC_TK_STAR);
    assert_int_equal(toks.t[3].kind, SC_TK_EOF);
    sc_tokens_free(&toks);
    tx_diags_free(&d);
    tx_arena_free(&a);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("if x:\n\ty\n", "indentation contains a tab; indent with spaces", 2, 1);
    expect_error("if x:\n    y\n  z\n", "unindent does not match any outer indentation level", 3,
                 3);
    expect_error("a = (b + c))\n", "unmatched ')'", 1, 12);
    expect_error("a = f(b]\n", "closing parenthesis ']' does not match opening parenthesis '('",
                 1, 8);
    expect_error("a = f(b,\n  [c\n", "'[' was never closed", 2, 3);
    expect_error("x = f\"a\"\n", "f-strings are not supported in TIRx script", 1, 5);
    expect_error("x = b'a'\n", "bytes literals are not supported in TIRx script", 1, 5);
    expect_error("x = 0755\n", "leading zeros in decimal integer literals are not permitted; "
                               "use an 0o prefix for octal integers", 1, 5);
    expect_error("x = 12abc\n", "invalid decimal literal", 1, 5);
    expect_error("x = 0xZ\n", "invalid hexadecimal literal", 1, 5);
    expect_error("x = 1__0\n", "invalid decimal literal", 1, 6);
    expect_error("x = 18446744073709551616\n",
                 "integer literal is too large (the limit is 2**64 - 1)", 1, 5);
    expect_error("x = 'abc\ny = 1\n", "unterminated string literal (detected at line 1)", 1, 5);
    expect_error("x = \"\\x4\"\n", "invalid \\x escape: it takes exactly two hex digits", 1, 6);
    expect_error("x = a $ b\n", "invalid character '$'", 1, 7);
    expect_error("x = 1j\n", "complex literals are not supported", 1, 5);
    expect_error("x = a \\ b\n", "unexpected character after line continuation character", 1, 7);
}

static void test_mismatch_note(void **state)
{
    (void)state;
    Lexed *l = lex("x = [\n  f(a]\n");
    assert_false(l->ok);
    assert_int_equal(l->diags.list.len, 2);
    const TxDiag *note = &l->diags.list.items[1];
    assert_int_equal(note->sev, TX_SEV_NOTE);
    assert_string_equal(note->msg, "to close '(' opened at 2:4");
    lexed_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_indentation), cmocka_unit_test(test_continuation),
        cmocka_unit_test(test_operators),   cmocka_unit_test(test_literals),
        cmocka_unit_test(test_long_strings), cmocka_unit_test(test_many_tokens),
        cmocka_unit_test(test_expr_only),   cmocka_unit_test(test_errors),
        cmocka_unit_test(test_mismatch_note),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
