/* A line diff for test failure messages. The texts are split into lines,
 * the common leading and trailing lines are trimmed, and the rest is
 * aligned by a longest-common-subsequence table (or, when that table would
 * be too large, shown as one replaced block). The edit script is printed as
 * unified-diff-like hunks with three lines of context. */
#include "textdiff.h"

#include <stdlib.h>
#include <string.h>

enum { CONTEXT = 3, MAX_LCS_CELLS = 1 << 22 };

typedef struct Line {
    const char *text;
    size_t len;
} Line;

typedef struct Lines {
    Line *items;
    size_t n;
} Lines;

/* One step of the edit script: ' ' keep, '-' delete from a, '+' insert from b. */
typedef struct Edit {
    char kind;
    size_t a, b; /* line indices in a and b (the next line of each side) */
} Edit;

static Lines split_lines(const char *text, size_t len)
{
    size_t n = 1;
    for (size_t i = 0; i < len; i++)
        n += text[i] == '\n';
    Lines ls = {calloc(n, sizeof(Line)), 0};
    if (!ls.items)
        return ls;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || text[i] == '\n') {
            ls.items[ls.n++] = (Line){text + start, i - start};
            start = i + 1;
        }
    }
    return ls;
}

static int line_eq(Line x, Line y) { return x.len == y.len && !memcmp(x.text, y.text, x.len); }

static void push(Edit *edits, size_t *n, char kind, size_t a, size_t b)
{
    edits[(*n)++] = (Edit){kind, a, b};
}

/* Aligns a[lo_a..hi_a) with b[lo_b..hi_b) and appends the edits. */
static void align_middle(const Lines *a, const Lines *b, size_t lo_a, size_t hi_a, size_t lo_b,
                         size_t hi_b, Edit *edits, size_t *n)
{
    size_t na = hi_a - lo_a, nb = hi_b - lo_b;
    unsigned *lcs = NULL;
    if ((na + 1) * (nb + 1) <= MAX_LCS_CELLS)
        lcs = calloc((na + 1) * (nb + 1), sizeof *lcs);
    if (!lcs) {
        for (size_t i = lo_a; i < hi_a; i++)
            push(edits, n, '-', i, lo_b);
        for (size_t j = lo_b; j < hi_b; j++)
            push(edits, n, '+', hi_a, j);
        return;
    }
    /* lcs[i][j] = LCS length of a[lo_a+i..hi_a) and b[lo_b+j..hi_b). */
#define AT(i, j) lcs[(i) * (nb + 1) + (j)]
    for (size_t i = na; i-- > 0;)
        for (size_t j = nb; j-- > 0;)
            AT(i, j) = line_eq(a->items[lo_a + i], b->items[lo_b + j])
                           ? AT(i + 1, j + 1) + 1
                           : (AT(i + 1, j) > AT(i, j + 1) ? AT(i + 1, j) : AT(i, j + 1));
    size_t i = 0, j = 0;
    while (i < na || j < nb) {
        if (i < na && j < nb && line_eq(a->items[lo_a + i], b->items[lo_b + j])) {
            push(edits, n, ' ', lo_a + i++, lo_b + j++);
        } else if (i < na && (j == nb || AT(i + 1, j) >= AT(i, j + 1))) {
            push(edits, n, '-', lo_a + i++, lo_b + j);
        } else {
            push(edits, n, '+', lo_a + i, lo_b + j++);
        }
    }
#undef AT
    free(lcs);
}

static void print_line(FILE *out, char kind, Line l)
{
    fprintf(out, "%c%.*s\n", kind, (int)l.len, l.text);
}

/* Prints the hunk edits[from..to) with its @@ header. */
static void print_hunk(FILE *out, const Lines *a, const Lines *b, const Edit *edits, size_t from,
                       size_t to)
{
    size_t count_a = 0, count_b = 0;
    for (size_t k = from; k < to; k++) {
        count_a += edits[k].kind != '+';
        count_b += edits[k].kind != '-';
    }
    fprintf(out, "@@ -%zu,%zu +%zu,%zu @@\n", edits[from].a + 1, count_a, edits[from].b + 1,
            count_b);
    for (size_t k = from; k < to; k++) {
        const Edit *e = &edits[k];
        print_line(out, e->kind, e->kind == '+' ? b->items[e->b] : a->items[e->a]);
    }
}

static void print_hunks(FILE *out, const Lines *a, const Lines *b, const Edit *edits, size_t n)
{
    size_t k = 0;
    while (k < n) {
        while (k < n && edits[k].kind == ' ')
            k++;
        if (k == n)
            return;
        size_t from = k > CONTEXT ? k - CONTEXT : 0, last_change = k;
        /* Extend while the next change is within 2*CONTEXT kept lines. */
        for (size_t m = k + 1; m < n && m <= last_change + 2 * CONTEXT; m++)
            if (edits[m].kind != ' ')
                last_change = m;
        size_t to = last_change + 1 + CONTEXT < n ? last_change + 1 + CONTEXT : n;
        print_hunk(out, a, b, edits, from, to);
        k = to;
    }
}

void textdiff_print(FILE *out, const char *a_name, const char *a_text, size_t a_len,
                    const char *b_name, const char *b_text, size_t b_len)
{
    if (a_len == b_len && !memcmp(a_text, b_text, a_len))
        return;
    Lines a = split_lines(a_text, a_len), b = split_lines(b_text, b_len);
    Edit *edits = calloc(a.n + b.n, sizeof *edits);
    if (!a.items || !b.items || !edits) {
        fprintf(out, "(out of memory while diffing %s and %s)\n", a_name, b_name);
        goto done;
    }
    size_t pre = 0, suf = 0, n = 0;
    while (pre < a.n && pre < b.n && line_eq(a.items[pre], b.items[pre]))
        pre++;
    while (suf < a.n - pre && suf < b.n - pre &&
           line_eq(a.items[a.n - 1 - suf], b.items[b.n - 1 - suf]))
        suf++;
    for (size_t i = 0; i < pre; i++)
        push(edits, &n, ' ', i, i);
    align_middle(&a, &b, pre, a.n - suf, pre, b.n - suf, edits, &n);
    for (size_t i = suf; i > 0; i--)
        push(edits, &n, ' ', a.n - i, b.n - i);
    fprintf(out, "--- %s\n+++ %s\n", a_name, b_name);
    print_hunks(out, &a, &b, edits, n);
done:
    free(a.items);
    free(b.items);
    free(edits);
}
