/* The TIRx script lexer: source text to a token array, with CPython's
 * indentation algorithm (INDENT/DEDENT; a dedent must land on a stacked level;
 * tabs in indentation are rejected), an open-bracket stack with positions,
 * comments, blank lines, line continuation inside brackets and after a
 * backslash, Python integer/float literals and single- or double-quoted
 * strings with escapes. The first lexical error stops the lexer. Prefix: sc_. */
#ifndef TX_SCRIPT_LEX_H
#define TX_SCRIPT_LEX_H

#include "../base/diag.h"

typedef enum {
#define X(E, spelling, cls) SC_TK_##E,
#include "tokens.def"
#undef X
    SC_TK_COUNT
} ScTokKind;

/* 24 bytes: a large input has about one token per two bytes, all of them
 * held until the parse ends. */
typedef struct ScToken {
    uint8_t kind;      /* ScTokKind */
    bool verbatim;     /* STRING: the decoded text equals the source between the quotes */
    uint32_t off, len; /* byte range in the source */
    uint32_t n;        /* NAME, STRING: the bytes of v.s */
    union {
        uint64_t i;    /* INT: the value (at most UINT64_MAX) */
        double f;      /* FLOAT */
        const char *s; /* NAME (identifier), STRING (decoded bytes, NUL-terminated) */
    } v;
} ScToken;

typedef struct ScTokens {
    ScToken *t;
    int n;
} ScTokens;

/* The spelling of a token kind ("(", "def") or its description ("name"). */
const char *sc_tok_kind_name(ScTokKind k);

/* Lex the bytes [begin, end) of src into a token array ending in SC_TK_EOF.
 * The array is on the heap, to be released by sc_tokens_free (also after an
 * error) once parsed; the strings of its tokens are in arena a (one copy per
 * distinct name) and outlive it. With 'expr_only', newlines are plain
 * whitespace and no NEWLINE/INDENT/DEDENT tokens are produced (for the small
 * expressions quoted in buffer shapes). Returns false after reporting the first
 * error into d. */
bool sc_lex(const TxSource *src, uint32_t begin, uint32_t end, bool expr_only, TxArena *a,
            TxDiags *d, ScTokens *out);
/* Free a token array of sc_lex. */
void sc_tokens_free(ScTokens *toks);
/* Whether s lexes as one NAME: an identifier that is not a keyword. */
bool sc_is_name(const char *s);

#endif
