/* Base layer: the arena allocator, growable arrays, string helpers, reading a
 * file, and source text with its line table. Everything above allocates IR and diagnostics from
 * an arena owned by a module and freed in one go. Prefix: tx_. */
#ifndef TX_BASE_H
#define TX_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define TX_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* For compiler bugs only, never for user input. */
#define TX_UNREACHABLE() tx_unreachable(__FILE__, __LINE__)
_Noreturn void tx_unreachable(const char *file, int line);
/* ---- out of memory ----
 * Allocation failure unwinds (longjmp) to the innermost tx_guarded call of the
 * thread, which returns false; every entry point of the public API runs its
 * work under one and returns TIRX_ERR_NOMEM. The heap blocks the unwound code
 * held are lost and an arena it was filling must be freed, not used. */
_Noreturn void tx_out_of_memory(size_t n);
bool tx_guarded(void (*fn)(void *arg), void *arg);
/* For tests: the next `n` allocations succeed and every later one of this
 * thread fails, until called again with n < 0. */
void tx_fail_allocs_after(long n);

/* ---- arena ---- */
typedef struct TxArenaChunk TxArenaChunk;
typedef struct TxArena {
    TxArenaChunk *head;
    size_t used_total;
} TxArena;

void tx_arena_init(TxArena *a);
void tx_arena_free(TxArena *a);
/* Zeroed, 16-byte aligned memory that lives until the arena is freed. */
void *tx_arena_alloc(TxArena *a, size_t size);
/* An arena whose contents are released in the order they were allocated: a
 * mark is its current chunk (NULL when empty), and tx_arena_free_before frees
 * every chunk filled before the mark's, leaving what was allocated since. */
TxArenaChunk *tx_arena_mark(const TxArena *a);
void tx_arena_free_before(TxArenaChunk *mark);
char *tx_arena_strndup(TxArena *a, const char *s, size_t n);
char *tx_arena_strdup(TxArena *a, const char *s);
/* printf into the arena. */
char *tx_arena_printf(TxArena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void *tx_arena_memdup(TxArena *a, const void *p, size_t n);
#define TX_NEW(arena, T) ((T *)tx_arena_alloc((arena), sizeof(T)))
#define TX_NEW_ARRAY(arena, T, n) ((T *)tx_arena_alloc((arena), sizeof(T) * (size_t)(n)))

/* ---- growable array (heap; use tx_vec_to_arena to freeze into an arena) ---- */
#define TX_VEC(T) struct { T *items; int len, cap; }
void tx_vec_grow_(void **items, int *cap, size_t elem, int need);
#define tx_vec_push(v, x)                                                      \
    do {                                                                       \
        if ((v)->len == (v)->cap)                                              \
            tx_vec_grow_((void **)&(v)->items, &(v)->cap, sizeof(*(v)->items), \
                         (v)->len + 1);                                        \
        (v)->items[(v)->len] = (x); /* x may read v: store before counting */ \
        (v)->len++;                                                            \
    } while (0)
#define tx_vec_free(v) (free((v)->items), (v)->items = NULL, (v)->len = (v)->cap = 0)
/* Copy a vector's items into the arena (NULL when empty). */
#define tx_vec_to_arena(arena, v) \
    tx_arena_memdup((arena), (v)->items, sizeof(*(v)->items) * (size_t)(v)->len)

/* ---- string builder (heap) ---- */
typedef struct TxBuf {
    char *data;
    size_t len, cap;
} TxBuf;
void tx_buf_putn(TxBuf *b, const char *s, size_t n);
void tx_buf_puts(TxBuf *b, const char *s);
void tx_buf_putc(TxBuf *b, char c);
void tx_buf_printf(TxBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Returns the NUL-terminated contents and leaves the buffer empty; the caller frees. */
char *tx_buf_take(TxBuf *b);
void tx_buf_free(TxBuf *b);

/* ---- files ---- */
/* The whole file, NUL-terminated (its length, without the NUL, in *len), for
 * the caller to free; NULL with errno set when it cannot be opened or read. */
char *tx_read_file(const char *path, size_t *len);

/* ---- hashing ---- */
uint64_t tx_hash_bytes(const void *p, size_t n, uint64_t seed);
uint64_t tx_hash_mix(uint64_t h, uint64_t v);

/* ---- near-match suggestions ---- */
/* Edit distance (Damerau-free Levenshtein), capped at 'cap' for speed. */
int tx_edit_distance(const char *a, const char *b, int cap);
/* The candidate closest to 'name' within a distance that makes a useful
 * suggestion, or NULL. */
const char *tx_nearest(const char *name, const char *const *cands, int ncands);

/* ---- source text ---- */
typedef struct TxSource {
    const char *name;  /* file name as given; "<stdin>" for standard input */
    const char *text;  /* NUL-terminated; '\r\n' normalised to '\n' */
    uint32_t len;
    uint32_t *line_off; /* byte offset of each line start */
    uint32_t nlines;
} TxSource;

/* A byte range in one source. */
typedef struct TxSpan {
    const TxSource *src;
    uint32_t begin, end;
} TxSpan;

TxSource *tx_source_new(TxArena *a, const char *name, const char *text, size_t len);
/* 1-based line and 1-based byte column of a byte offset. */
void tx_source_linecol(const TxSource *s, uint32_t off, int *line, int *col);

#endif
