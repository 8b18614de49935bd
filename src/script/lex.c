/* The TIRx script lexer (see lex.h). One pass over the bytes, producing an
 * arena-owned token array. Indentation follows CPython (Parser/lexer.c) with
 * MicroPython's simplifications: blank and comment-only lines are ignored,
 * brackets suppress NEWLINE/INDENT/DEDENT, a dedent must land on a stacked
 * level, and tabs in indentation are an error. */
#include "lex.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INDENT 100
#define MAX_NEST 200

static const struct {
    const char *spelling;
    uint8_t len;
    char cls;
} tok_info[SC_TK_COUNT] = {
#define X(E, spelling, cls) {spelling, sizeof(spelling) - 1, #cls[0]},
#include "tokens.def"
#undef X
};

/* The keyword and punctuation kinds by the first byte of their spelling, in
 * table order: kinds[start[c]] .. kinds[start[c + 1] - 1]. Built once. */
typedef struct LexFirstByte {
    pthread_once_t once;
    uint8_t start[257];
    uint8_t kinds[SC_TK_COUNT];
} LexFirstByte;

_Static_assert(SC_TK_COUNT <= 255, "token kinds fit a byte");

static LexFirstByte lex_first_byte = {.once = PTHREAD_ONCE_INIT};

static bool has_spelling(int k)
{
    return tok_info[k].cls == 'K' || tok_info[k].cls == 'P';
}

static void lex_first_byte_build(void)
{
    LexFirstByte *ix = &lex_first_byte;
    int count[257] = {0};
    for (int k = 0; k < SC_TK_COUNT; k++)
        if (has_spelling(k))
            count[(unsigned char)tok_info[k].spelling[0] + 1]++;
    for (int c = 0; c < 256; c++)
        count[c + 1] += count[c];
    for (int c = 0; c < 257; c++)
        ix->start[c] = (uint8_t)count[c];
    for (int k = 0; k < SC_TK_COUNT; k++)
        if (has_spelling(k))
            ix->kinds[count[(unsigned char)tok_info[k].spelling[0]]++] = (uint8_t)k;
}

/* The kinds whose spelling starts with c; *n their number. */
static const uint8_t *kinds_starting(char c, int *n)
{
    pthread_once(&lex_first_byte.once, lex_first_byte_build);
    const LexFirstByte *ix = &lex_first_byte;
    unsigned char b = (unsigned char)c;
    *n = ix->start[b + 1] - ix->start[b];
    return ix->kinds + ix->start[b];
}

const char *sc_tok_kind_name(ScTokKind k)
{
    return k < SC_TK_COUNT ? tok_info[k].spelling : "?";
}


typedef struct Lexer {
    const TxSource *src;
    const char *s;
    uint32_t pos, end;
    TxArena *a;
    TxDiags *d;
    bool expr_only, failed, line_has_tokens;
    ScToken *toks;
    int n, cap;
    /* The names seen, one arena copy each: open addressing on the heap
     * (capacity a power of two, at most half full), freed by sc_lex. */
    const char **names;
    int nnames, names_cap;
    uint32_t indents[MAX_INDENT];
    int nindent;
    struct {
        char ch;
        uint32_t off;
    } open[MAX_NEST];
    int level;
} Lexer;

static TxSpan span_at(Lexer *L, uint32_t begin, uint32_t end)
{
    return (TxSpan){L->src, begin, end};
}

static void fail(Lexer *L, TxCode code, uint32_t begin, uint32_t end, const char *msg)
{
    if (!L->failed)
        tx_error(L->d, code, span_at(L, begin, end), "%s", msg);
    L->failed = true;
}

/* Room for every token of the rest of the input in most scripts (they have
 * about one token per five bytes), so a long one is not copied as it grows. */
static int first_capacity(const Lexer *L)
{
    uint32_t guess = (L->end - L->pos) / 4;
    return guess > 256 ? (int)guess : 256;
}

static ScToken *push(Lexer *L, ScTokKind k, uint32_t off, uint32_t len)
{
    if (L->n == L->cap)
        tx_vec_grow_((void **)&L->toks, &L->cap, sizeof(ScToken),
                     L->cap ? L->cap + 1 : first_capacity(L));
    ScToken *t = &L->toks[L->n++];
    memset(t, 0, sizeof *t);
    t->kind = k, t->off = off, t->len = len;
    if (k != SC_TK_NEWLINE && k != SC_TK_INDENT && k != SC_TK_DEDENT)
        L->line_has_tokens = true;
    return t;
}

static int peekc(Lexer *L, uint32_t ahead)
{
    uint32_t p = L->pos + ahead;
    return p < L->end ? (unsigned char)L->s[p] : -1;
}

static bool is_ident_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool sc_is_name(const char *s)
{
    if (!is_ident_start((unsigned char)*s))
        return false;
    for (const char *p = s + 1; *p; p++)
        if (!is_ident_start((unsigned char)*p) && !(*p >= '0' && *p <= '9'))
            return false;
    int n;
    const uint8_t *k = kinds_starting(*s, &n);
    for (int i = 0; i < n; i++)
        if (tok_info[k[i]].cls == 'K' && !strcmp(tok_info[k[i]].spelling, s))
            return false;
    return true;
}
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_ident_char(int c) { return is_ident_start(c) || is_digit(c); }

/* ---------------------------------------------------------------- indentation */

/* At the start of a line outside brackets: measure the indentation and emit
 * INDENT/DEDENT tokens. Blank and comment-only lines produce nothing. */
static void lex_indentation(Lexer *L)
{
    uint32_t col = 0, start = L->pos;
    for (;;) {
        int c = peekc(L, 0);
        if (c == ' ')
            col++;
        else if (c == '\f')
            col = 0;
        else if (c == '\t') {
            /* A tab inside a blank or comment-only line is harmless. */
            uint32_t p = L->pos;
            while (p < L->end && (L->s[p] == ' ' || L->s[p] == '\t' || L->s[p] == '\f'))
                p++;
            if (p < L->end && L->s[p] != '\n' && L->s[p] != '#') {
                fail(L, TX_E_INDENTATION, L->pos, L->pos + 1,
                     "indentation contains a tab; indent with spaces");
                return;
            }
            L->pos = p;
            return;
        } else
            break;
        L->pos++;
    }
    int c = peekc(L, 0);
    if (c == -1 || c == '\n' || c == '#' || (c == '\\' && peekc(L, 1) == '\n'))
        return; /* blank line */
    uint32_t top = L->indents[L->nindent - 1];
    if (col > top) {
        if (L->nindent == MAX_INDENT) {
            fail(L, TX_E_NESTING, start, L->pos, "too many levels of indentation");
            return;
        }
        L->indents[L->nindent++] = col;
        push(L, SC_TK_INDENT, start, L->pos - start);
        L->line_has_tokens = false;
        return;
    }
    while (col < L->indents[L->nindent - 1]) {
        L->nindent--;
        push(L, SC_TK_DEDENT, L->pos, 0);
    }
    L->line_has_tokens = false;
    if (col != L->indents[L->nindent - 1])
        fail(L, TX_E_INDENTATION, L->pos, L->pos + 1,
             "unindent does not match any outer indentation level");
}

/* ---------------------------------------------------------------- numbers */

static int digit_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

/* Digits of one radix with single '_' separators between digits; returns the
 * number of digits read (0 on a malformed separator, with an error). */
static int read_digits(Lexer *L, int radix, uint64_t *val, bool *overflow, const char *what)
{
    int ndig = 0;
    for (;;) {
        int c = peekc(L, 0);
        if (c == '_') {
            if (ndig == 0 && radix == 10) {
                fail(L, TX_E_LITERAL, L->pos, L->pos + 1, what);
                return 0;
            }
            if (digit_value(peekc(L, 1)) >= radix) {
                fail(L, TX_E_LITERAL, L->pos, L->pos + 1, what);
                return 0;
            }
            L->pos++;
            continue;
        }
        int dv = digit_value(c);
        if (dv >= radix)
            return ndig;
        if (*val > (UINT64_MAX - (uint64_t)dv) / (uint64_t)radix)
            *overflow = true;
        *val = *val * (uint64_t)radix + (uint64_t)dv;
        ndig++;
        L->pos++;
    }
}

/* The bytes of a float literal without '_' separators, parsed with strtod. */
static double float_value(Lexer *L, uint32_t begin, uint32_t end)
{
    char *buf = tx_arena_alloc(L->a, end - begin + 1);
    size_t n = 0;
    for (uint32_t p = begin; p < end; p++)
        if (L->s[p] != '_')
            buf[n++] = L->s[p];
    buf[n] = 0;
    return strtod(buf, NULL);
}

static void check_number_end(Lexer *L, uint32_t begin, const char *what)
{
    int c = peekc(L, 0);
    if (c == 'j' || c == 'J')
        fail(L, TX_E_UNSUPPORTED_SYNTAX, begin, L->pos + 1, "complex literals are not supported");
    else if (is_ident_char(c))
        fail(L, TX_E_LITERAL, begin, L->pos + 1, what);
}

/* exponent := ('e'|'E') ['+'|'-'] digits */
static bool read_exponent(Lexer *L)
{
    int c = peekc(L, 0);
    if (c != 'e' && c != 'E')
        return false;
    int sign = peekc(L, 1) == '+' || peekc(L, 1) == '-';
    if (!is_digit(peekc(L, 1 + (uint32_t)sign)))
        return false;
    L->pos += 1 + (uint32_t)sign;
    uint64_t ignored = 0;
    bool ovf = false;
    read_digits(L, 10, &ignored, &ovf, "invalid decimal literal");
    return true;
}

/* number := '0' ('x'|'o'|'b') digits | decimal ['.' digits] [exponent] | '.' digits [exponent] */
static void lex_number(Lexer *L)
{
    uint32_t begin = L->pos;
    uint64_t val = 0;
    bool overflow = false;
    int c1 = peekc(L, 1);
    if (peekc(L, 0) == '0' && c1 != -1 && strchr("xXoObB", c1)) {
        int radix = (c1 == 'x' || c1 == 'X') ? 16 : (c1 == 'o' || c1 == 'O') ? 8 : 2;
        const char *what = radix == 16   ? "invalid hexadecimal literal"
                           : radix == 8 ? "invalid octal literal"
                                        : "invalid binary literal";
        L->pos += 2;
        if (peekc(L, 0) == '_')
            L->pos++;
        int nd = read_digits(L, radix, &val, &overflow, what);
        if (L->failed)
            return;
        if (nd == 0 || is_digit(peekc(L, 0))) {
            fail(L, TX_E_LITERAL, begin, L->pos + 1, what);
            return;
        }
        check_number_end(L, begin, what);
    } else {
        bool is_float = false;
        int nd = 0;
        if (peekc(L, 0) != '.')
            nd = read_digits(L, 10, &val, &overflow, "invalid decimal literal");
        if (L->failed)
            return;
        if (peekc(L, 0) == '.') {
            is_float = true;
            L->pos++;
            uint64_t frac = 0;
            bool fovf = false;
            if (is_digit(peekc(L, 0)))
                read_digits(L, 10, &frac, &fovf, "invalid decimal literal");
        }
        if (read_exponent(L))
            is_float = true;
        if (L->failed)
            return;
        check_number_end(L, begin, "invalid decimal literal");
        if (L->failed)
            return;
        if (is_float) {
            ScToken *t = push(L, SC_TK_FLOAT, begin, L->pos - begin);
            t->v.f = float_value(L, begin, L->pos);
            return;
        }
        if (nd > 1 && L->s[begin] == '0' && val != 0) {
            fail(L, TX_E_LITERAL, begin, L->pos,
                 "leading zeros in decimal integer literals are not permitted; use an 0o prefix "
                 "for octal integers");
            return;
        }
    }
    if (L->failed)
        return;
    if (overflow) {
        fail(L, TX_E_LITERAL, begin, L->pos,
             "integer literal is too large (the limit is 2**64 - 1)");
        return;
    }
    ScToken *t = push(L, SC_TK_INT, begin, L->pos - begin);
    t->v.i = val;
}

/* ---------------------------------------------------------------- strings */

static int decode_escape(Lexer *L, uint32_t *p, char *out, size_t *n)
{
    uint32_t at = *p; /* at the backslash */
    int c = at + 1 < L->end ? (unsigned char)L->s[at + 1] : -1;
    const char *simple = "\\\\''\"\"a\ab\bf\fn\nr\rt\tv\v";
    for (const char *e = simple; *e; e += 2)
        if (c == e[0]) {
            out[(*n)++] = e[1];
            *p = at + 2;
            return 1;
        }
    if (c == '\n') {
        *p = at + 2;
        return 1;
    }
    if (c == 'x') {
        int h1 = at + 2 < L->end ? digit_value((unsigned char)L->s[at + 2]) : 99;
        int h2 = at + 3 < L->end ? digit_value((unsigned char)L->s[at + 3]) : 99;
        if (h1 > 15 || h2 > 15) {
            fail(L, TX_E_LITERAL, at, at + 2,
                 "invalid \\x escape: it takes exactly two hex digits");
            return 0;
        }
        out[(*n)++] = (char)(h1 * 16 + h2);
        *p = at + 4;
        return 1;
    }
    if (c >= '0' && c <= '7') {
        int v = 0;
        uint32_t q = at + 1;
        while (q < L->end && q < at + 4 && L->s[q] >= '0' && L->s[q] <= '7')
            v = v * 8 + (L->s[q++] - '0');
        out[(*n)++] = (char)(v & 0xff);
        *p = q;
        return 1;
    }
    /* Unknown escapes keep the backslash, as Python does, which warns (\N, \u
     * and \U are escapes of Python's str that are kept as written here). */
    bool str_escape = c == 'N' || c == 'u' || c == 'U';
    if (!str_escape && c > ' ' && c < 0x7f)
        tx_warning(L->d, TX_W_INVALID_ESCAPE, span_at(L, at, at + 2),
                   "invalid escape sequence '\\%c' (kept as written); write '\\\\%c' or "
                   "use a raw string", c, c);
    else if (!str_escape)
        tx_warning(L->d, TX_W_INVALID_ESCAPE, span_at(L, at, at + 1),
                   "invalid escape sequence (the backslash is kept); write '\\\\' or use a "
                   "raw string");
    out[(*n)++] = '\\';
    *p = at + 1;
    return 1;
}

/* Moves a literal's first n decoded bytes from a small buffer into one that
 * holds the rest of the source: a character decodes to at most one byte per
 * source byte (an escape to fewer, a raw one to two for two). */
static char *spill_string(Lexer *L, const char *small, size_t n)
{
    char *buf = tx_arena_alloc(L->a, L->end - L->pos + n + 1);
    memcpy(buf, small, n);
    return buf;
}

/* string := quote chars quote | triple-quote chars triple-quote, after an
 * optional prefix (r/u; f and b are rejected by the caller). */
static void lex_string(Lexer *L, uint32_t begin, bool raw)
{
    char q = L->s[L->pos];
    bool triple = peekc(L, 1) == q && peekc(L, 2) == q;
    uint32_t open = L->pos;
    L->pos += triple ? 3 : 1;
    uint32_t content = L->pos;
    char small[256]; /* most literals: no allocation sized by the rest of the file */
    char *buf = small;
    size_t n = 0;
    bool verbatim = !triple;
    for (;;) {
        if (buf == small && n + 2 >= sizeof small)
            buf = spill_string(L, small, n);
        if (L->pos >= L->end || (!triple && L->s[L->pos] == '\n')) {
            int line, col;
            tx_source_linecol(L->src, L->pos >= L->end && L->pos > 0 ? L->pos - 1 : L->pos,
                              &line, &col);
            char msg[96];
            snprintf(msg, sizeof msg, "unterminated %sstring literal (detected at line %d)",
                     triple ? "triple-quoted " : "", line);
            fail(L, TX_E_LITERAL, open, open + 1, msg);
            return;
        }
        char c = L->s[L->pos];
        if (c == q && (!triple || (peekc(L, 1) == q && peekc(L, 2) == q)))
            break;
        if (c == '\\' && !raw) {
            verbatim = false;
            if (!decode_escape(L, &L->pos, buf, &n))
                return;
            continue;
        }
        if (c == '\\' && raw && L->pos + 1 < L->end) {
            buf[n++] = c, buf[n++] = L->s[L->pos + 1];
            L->pos += 2;
            continue;
        }
        buf[n++] = c;
        L->pos++;
    }
    uint32_t content_end = L->pos;
    L->pos += triple ? 3 : 1;
    if (buf == small)
        buf = tx_arena_strndup(L->a, small, n);
    buf[n] = 0;
    ScToken *t = push(L, SC_TK_STRING, begin, L->pos - begin);
    t->v.s = buf;
    t->n = (uint32_t)n;
    t->verbatim = verbatim && n == content_end - content;
}

/* A string prefix: its letters, or NULL when the name is not one. */
static bool is_string_prefix(const char *s, uint32_t n)
{
    if (n == 0 || n > 2)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (!strchr("rRuUbBfF", s[i]))
            return false;
    return true;
}

static void lex_prefixed_string(Lexer *L, uint32_t begin)
{
    bool raw = false;
    for (uint32_t p = begin; p < L->pos; p++) {
        char c = L->s[p];
        if (c == 'f' || c == 'F') {
            fail(L, TX_E_UNSUPPORTED_SYNTAX, begin, L->pos + 1,
                 "f-strings are not supported in TIRx script");
            return;
        }
        if (c == 'b' || c == 'B') {
            fail(L, TX_E_UNSUPPORTED_SYNTAX, begin, L->pos + 1,
                 "bytes literals are not supported in TIRx script");
            return;
        }
        raw |= c == 'r' || c == 'R';
    }
    lex_string(L, begin, raw);
}

/* ---------------------------------------------------------------- names */

/* The slot of the name text[0, n) in the names index: its copy, or NULL where
 * it would go. */
static const char **name_slot(const char **names, int cap, const char *text, uint32_t n)
{
    size_t mask = (size_t)cap - 1;
    for (size_t h = tx_hash_bytes(text, n, 0) & mask;; h = (h + 1) & mask)
        if (!names[h] || (!strncmp(names[h], text, n) && names[h][n] == '\0'))
            return &names[h];
}

/* A name's text as a NUL-terminated arena string, one copy per distinct name:
 * a long input repeats a few names many times. */
static const char *intern_name(Lexer *L, const char *text, uint32_t n)
{
    if (2 * (L->nnames + 1) > L->names_cap) {
        const char **old = L->names, **bigger = NULL;
        int oldcap = L->names_cap, cap = 0;
        tx_vec_grow_((void **)&bigger, &cap, sizeof *bigger, oldcap ? oldcap * 2 : 256);
        memset(bigger, 0, sizeof *bigger * (size_t)cap);
        for (int i = 0; i < oldcap; i++)
            if (old[i])
                *name_slot(bigger, cap, old[i], (uint32_t)strlen(old[i])) = old[i];
        free(old);
        L->names = bigger, L->names_cap = cap;
    }
    const char **slot = name_slot(L->names, L->names_cap, text, n);
    if (!*slot) {
        *slot = tx_arena_strndup(L->a, text, n);
        L->nnames++;
    }
    return *slot;
}

static void lex_name(Lexer *L)
{
    uint32_t begin = L->pos;
    while (is_ident_char(peekc(L, 0)))
        L->pos++;
    uint32_t n = L->pos - begin;
    int c = peekc(L, 0);
    if ((c == '"' || c == '\'') && is_string_prefix(L->s + begin, n)) {
        lex_prefixed_string(L, begin);
        return;
    }
    int nk;
    const uint8_t *kinds = kinds_starting(L->s[begin], &nk);
    for (int i = 0; i < nk; i++) {
        int k = kinds[i];
        if (tok_info[k].cls == 'K' && tok_info[k].len == n &&
            !memcmp(tok_info[k].spelling, L->s + begin, n)) {
            push(L, (ScTokKind)k, begin, n);
            return;
        }
    }
    ScToken *t = push(L, SC_TK_NAME, begin, n);
    t->v.s = intern_name(L, L->s + begin, n);
    t->n = n;
}

/* ---------------------------------------------------------------- punctuation */

static const char *closer_of(char open)
{
    return open == '(' ? ")" : open == '[' ? "]" : "}";
}

static void note_opener(Lexer *L, int i)
{
    int line, col;
    tx_source_linecol(L->src, L->open[i].off, &line, &col);
    tx_note(L->d, span_at(L, L->open[i].off, L->open[i].off + 1), "to close '%c' opened at %d:%d",
            L->open[i].ch, line, col);
}

static void track_bracket(Lexer *L, char c, uint32_t off)
{
    if (c == '(' || c == '[' || c == '{') {
        if (L->level == MAX_NEST) {
            fail(L, TX_E_NESTING, off, off + 1, "too many nested parentheses");
            return;
        }
        L->open[L->level].ch = c, L->open[L->level].off = off;
        L->level++;
        return;
    }
    char msg[80];
    if (L->level == 0) {
        snprintf(msg, sizeof msg, "unmatched '%c'", c);
        fail(L, TX_E_SYNTAX, off, off + 1, msg);
        return;
    }
    char o = L->open[L->level - 1].ch;
    if (closer_of(o)[0] != c) {
        snprintf(msg, sizeof msg, "closing parenthesis '%c' does not match opening parenthesis '%c'",
                 c, o);
        fail(L, TX_E_SYNTAX, off, off + 1, msg);
        note_opener(L, L->level - 1);
        return;
    }
    L->level--;
}

static void lex_punct(Lexer *L)
{
    int best = -1, nk;
    size_t best_len = 0;
    const uint8_t *kinds = kinds_starting(L->s[L->pos], &nk);
    for (int i = 0; i < nk; i++) {
        int k = kinds[i];
        if (tok_info[k].cls != 'P')
            continue;
        size_t l = tok_info[k].len;
        if (l > best_len && L->pos + l <= L->end && !memcmp(L->s + L->pos, tok_info[k].spelling, l))
            best = k, best_len = l;
    }
    if (best < 0) {
        unsigned char c = (unsigned char)L->s[L->pos];
        char msg[64];
        if (c >= 0x80)
            snprintf(msg, sizeof msg, "invalid non-ASCII character (byte 0x%02x)", c);
        else if (c < 0x20 || c == 0x7f)
            snprintf(msg, sizeof msg, "invalid control character (byte 0x%02x)", c);
        else
            snprintf(msg, sizeof msg, "invalid character '%c'", c);
        fail(L, TX_E_CHARACTER, L->pos, L->pos + 1, msg);
        return;
    }
    char c = L->s[L->pos];
    if (best_len == 1 && strchr("()[]{}", c))
        track_bracket(L, c, L->pos);
    if (!L->failed)
        push(L, (ScTokKind)best, L->pos, (uint32_t)best_len);
    L->pos += (uint32_t)best_len;
}

/* ---------------------------------------------------------------- driver */

static void lex_newline(Lexer *L)
{
    if (L->level == 0 && !L->expr_only && L->line_has_tokens) {
        push(L, SC_TK_NEWLINE, L->pos, 1);
        L->line_has_tokens = false;
    }
    L->pos++;
}

static void lex_token(Lexer *L)
{
    int c = peekc(L, 0);
    if (c == '#') {
        while (L->pos < L->end && L->s[L->pos] != '\n')
            L->pos++;
    } else if (c == '\n') {
        lex_newline(L);
    } else if (c == ' ' || c == '\t' || c == '\f') {
        L->pos++;
    } else if (c == '\\') {
        if (peekc(L, 1) != '\n')
            fail(L, TX_E_CHARACTER, L->pos, L->pos + 1,
                 "unexpected character after line continuation character");
        L->pos += 2;
    } else if (is_ident_start(c)) {
        lex_name(L);
    } else if (is_digit(c) || (c == '.' && is_digit(peekc(L, 1)))) {
        lex_number(L);
    } else if (c == '"' || c == '\'') {
        lex_string(L, L->pos, false);
    } else {
        lex_punct(L);
    }
}

static void lex_finish(Lexer *L)
{
    if (L->level > 0) {
        int i = L->level - 1;
        char msg[48];
        snprintf(msg, sizeof msg, "'%c' was never closed", L->open[i].ch);
        fail(L, TX_E_SYNTAX, L->open[i].off, L->open[i].off + 1, msg);
        return;
    }
    if (!L->expr_only) {
        if (L->line_has_tokens)
            push(L, SC_TK_NEWLINE, L->end, 0);
        while (L->nindent > 1) {
            L->nindent--;
            push(L, SC_TK_DEDENT, L->end, 0);
        }
    }
    push(L, SC_TK_EOF, L->end, 0);
}

bool sc_lex(const TxSource *src, uint32_t begin, uint32_t end, bool expr_only, TxArena *a,
            TxDiags *d, ScTokens *out)
{
    Lexer L = {0};
    L.src = src, L.s = src->text, L.pos = begin, L.end = end < src->len ? end : src->len;
    L.a = a, L.d = d, L.expr_only = expr_only;
    L.indents[0] = 0, L.nindent = 1;
    bool line_start = true;
    while (!L.failed && L.pos < L.end) {
        if (line_start && L.level == 0 && !expr_only) {
            lex_indentation(&L);
            if (L.failed || L.pos >= L.end)
                break;
        }
        uint32_t before = L.pos;
        bool was_newline = L.s[L.pos] == '\n';
        lex_token(&L);
        line_start = was_newline && L.pos == before + 1;
    }
    if (!L.failed)
        lex_finish(&L);
    free(L.names);
    out->t = L.toks, out->n = L.n;
    return !L.failed;
}

void sc_tokens_free(ScTokens *toks)
{
    free(toks->t);
    toks->t = NULL, toks->n = 0;
}
