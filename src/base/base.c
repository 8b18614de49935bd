/* The arena, growable arrays, the string builder, reading a file, hashing,
 * near-match suggestions and source line tables. */
#include "base.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void tx_unreachable(const char *file, int line)
{
    fprintf(stderr, "tirx: internal error at %s:%d\n", file, line);
    abort();
}

/* Out of memory (or a size past SIZE_MAX): no caller has anything sensible to
 * do with a NULL, so the failure unwinds to the thread's innermost guard, an
 * entry point of the API. These two are the only mutable state of the library
 * outside the registries: per thread, so compiles in threads stay apart. */
typedef struct TxGuard {
    jmp_buf jump;
    struct TxGuard *prev;
} TxGuard;
static _Thread_local TxGuard *guard_top;
static _Thread_local long allocs_left = -1; /* tx_fail_allocs_after; -1: no injection */

_Noreturn void tx_out_of_memory(size_t n)
{
    if (guard_top)
        longjmp(guard_top->jump, 1);
    /* An allocation outside every entry point: a bug in tirx, as TX_UNREACHABLE. */
    fprintf(stderr, "tirx: out of memory (allocating %zu bytes) outside the API\n", n);
    abort();
}

bool tx_guarded(void (*fn)(void *arg), void *arg)
{
    TxGuard g = {.prev = guard_top};
    if (setjmp(g.jump)) {
        guard_top = g.prev;
        return false;
    }
    guard_top = &g;
    fn(arg);
    guard_top = g.prev;
    return true;
}

void tx_fail_allocs_after(long n) { allocs_left = n < 0 ? -1 : n; }

/* realloc(p, n), or tx_out_of_memory. */
static void *xrealloc(void *p, size_t n)
{
    if (allocs_left == 0)
        tx_out_of_memory(n);
    if (allocs_left > 0)
        allocs_left--;
    void *q = realloc(p, n ? n : 1);
    if (!q)
        tx_out_of_memory(n);
    return q;
}

/* ---- arena ---- */
struct TxArenaChunk {
    TxArenaChunk *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
};

void tx_arena_init(TxArena *a) { a->head = NULL, a->used_total = 0; }

void tx_arena_free(TxArena *a)
{
    for (TxArenaChunk *c = a->head, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    a->head = NULL;
}

TxArenaChunk *tx_arena_mark(const TxArena *a) { return a->head; }

void tx_arena_free_before(TxArenaChunk *mark)
{
    if (!mark)
        return;
    for (TxArenaChunk *c = mark->next, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    mark->next = NULL;
}

void *tx_arena_alloc(TxArena *a, size_t size)
{
    if (size > SIZE_MAX - sizeof(TxArenaChunk) - 15)
        tx_out_of_memory(size);
    size = (size + 15) & ~(size_t)15;
    TxArenaChunk *c = a->head;
    if (!c || c->size - c->used < size) {
        size_t cap = size > 64 * 1024 ? size : 64 * 1024;
        c = xrealloc(NULL, sizeof(TxArenaChunk) + cap);
        c->size = cap, c->used = 0, c->next = a->head;
        a->head = c;
    }
    void *p = c->data + c->used;
    c->used += size;
    a->used_total += size;
    memset(p, 0, size);
    return p;
}

void *tx_arena_memdup(TxArena *a, const void *p, size_t n)
{
    if (!n)
        return NULL;
    void *q = tx_arena_alloc(a, n);
    memcpy(q, p, n);
    return q;
}

char *tx_arena_strndup(TxArena *a, const char *s, size_t n)
{
    char *q = tx_arena_alloc(a, n + 1);
    memcpy(q, s, n);
    return q;
}

char *tx_arena_strdup(TxArena *a, const char *s) { return tx_arena_strndup(a, s, strlen(s)); }

char *tx_arena_printf(TxArena *a, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *q = tx_arena_alloc(a, (size_t)n + 1);
    vsnprintf(q, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return q;
}

/* ---- vectors ---- */
void tx_vec_grow_(void **items, int *cap, size_t elem, int need)
{
    int n = *cap ? *cap : 8;
    while (n < need)
        n *= 2;
    *items = xrealloc(*items, elem * (size_t)n), *cap = n;
}

/* ---- string builder ---- */
static void buf_reserve(TxBuf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t n = b->cap ? b->cap : 256;
    while (n < b->len + extra + 1)
        n *= 2;
    b->data = xrealloc(b->data, n), b->cap = n;
}

void tx_buf_putn(TxBuf *b, const char *s, size_t n)
{
    buf_reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void tx_buf_puts(TxBuf *b, const char *s) { tx_buf_putn(b, s, strlen(s)); }
void tx_buf_putc(TxBuf *b, char c) { tx_buf_putn(b, &c, 1); }

void tx_buf_printf(TxBuf *b, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    buf_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    b->len += (size_t)n;
}

char *tx_buf_take(TxBuf *b)
{
    buf_reserve(b, 0);
    b->data[b->len] = 0; /* an empty buffer has had no terminator written yet */
    char *p = b->data;
    b->data = NULL, b->len = b->cap = 0;
    return p;
}

void tx_buf_free(TxBuf *b)
{
    free(b->data);
    b->data = NULL, b->len = b->cap = 0;
}

/* ---- files ---- */
char *tx_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    TxBuf b = {0};
    char chunk[16384];
    size_t n;
    errno = 0;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        tx_buf_putn(&b, chunk, n);
    int read_errno = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (read_errno) {
        tx_buf_free(&b);
        errno = read_errno;
        return NULL;
    }
    *len = b.len;
    return tx_buf_take(&b);
}

/* ---- hashing (FNV-1a over bytes, splitmix-style mixing) ---- */
uint64_t tx_hash_bytes(const void *p, size_t n, uint64_t seed)
{
    const unsigned char *s = p;
    uint64_t h = seed ^ 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

uint64_t tx_hash_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 29);
}

/* ---- near-match ---- */
int tx_edit_distance(const char *a, const char *b, int cap)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return cap + 1;
    int row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0], best = row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int v = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < v)
                v = up + 1;
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            row[j] = v, diag = up;
            if (v < best)
                best = v;
        }
        if (best > cap)
            return cap + 1;
    }
    return row[lb];
}

const char *tx_nearest(const char *name, const char *const *cands, int ncands)
{
    int len = (int)strlen(name);
    int limit = len <= 3 ? 1 : len <= 6 ? 2 : 3;
    const char *best = NULL;
    int bestd = limit + 1;
    for (int i = 0; i < ncands; i++) {
        int d = tx_edit_distance(name, cands[i], limit);
        if (d < bestd)
            bestd = d, best = cands[i];
    }
    return best;
}

/* ---- source ---- */
TxSource *tx_source_new(TxArena *a, const char *name, const char *text, size_t len)
{
    TxSource *s = TX_NEW(a, TxSource);
    s->name = tx_arena_strdup(a, name);
    char *t = tx_arena_alloc(a, len + 2);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\r') {
            t[n++] = '\n';
            if (i + 1 < len && text[i + 1] == '\n')
                i++;
        } else {
            t[n++] = text[i];
        }
    }
    t[n] = 0;
    s->text = t;
    s->len = (uint32_t)n;
    uint32_t lines = 1;
    for (size_t i = 0; i < n; i++)
        lines += t[i] == '\n';
    s->line_off = TX_NEW_ARRAY(a, uint32_t, lines);
    s->nlines = 0;
    s->line_off[s->nlines++] = 0;
    for (size_t i = 0; i < n; i++)
        if (t[i] == '\n' && i + 1 <= n && s->nlines < lines)
            s->line_off[s->nlines++] = (uint32_t)(i + 1);
    return s;
}

void tx_source_linecol(const TxSource *s, uint32_t off, int *line, int *col)
{
    uint32_t lo = 0, hi = s->nlines;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (s->line_off[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    *line = (int)lo + 1;
    *col = (int)(off - s->line_off[lo]) + 1;
}
