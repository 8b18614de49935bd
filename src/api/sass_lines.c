/* tirx_module_sass_lines (tirx build --emit sass-lines): the SASS of a
 * lineinfo build counted by script line. nvdisasm -g marks each run of
 * instructions with the line it came from (`//## File "kernel.tirx", line
 * 42`); this counts the instructions under each mark, per kernel, with their
 * most frequent opcodes and the line's text (from the module's own sources):
 * a static profile of where a kernel's machine code goes (instructions in
 * the binary, not instructions executed: an unrolled loop counts each copy,
 * a loop body once).
 *
 * It also counts the lane loops: an instruction whose operands must be the
 * same for the whole warp (TMA, bulk copies and prefetches, whose addresses
 * sit in uniform registers) that ptxas could not prove so is issued in a
 * loop, once per distinct value among the lanes, closed by a `BRA.U.ANY`
 * back to its head. Each costs about 8 instructions a round; issuing the
 * instruction from one elected lane, or with a warp-uniform address, or in
 * another form, avoids it. The report names their lines. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define TOP_OPCODES 4

typedef struct Opcode {
    char name[24];
    int n;
} Opcode;

typedef struct Line {
    char file[256];
    int line, n;
    int loops; /* lane loops closed at this line (BRA.U.ANY) */
    TX_VEC(Opcode) ops;
} Line;

typedef TX_VEC(Line) Lines;

static Line *line_of(Lines *ls, const char *file, int line)
{
    for (int i = 0; i < ls->len; i++)
        if (ls->items[i].line == line && !strcmp(ls->items[i].file, file))
            return &ls->items[i];
    Line l = {.line = line};
    snprintf(l.file, sizeof l.file, "%s", file);
    tx_vec_push(ls, l);
    return &ls->items[ls->len - 1];
}

static void count(Line *l, const char *op, size_t len)
{
    l->n++;
    if (len >= sizeof l->ops.items[0].name)
        len = sizeof l->ops.items[0].name - 1;
    for (int i = 0; i < l->ops.len; i++)
        if (strlen(l->ops.items[i].name) == len && !strncmp(l->ops.items[i].name, op, len)) {
            l->ops.items[i].n++;
            return;
        }
    Opcode o = {.n = 1};
    memcpy(o.name, op, len);
    tx_vec_push(&l->ops, o);
}

static int by_place(const void *a, const void *b)
{
    const Line *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int by_count(const void *a, const void *b)
{
    const Opcode *x = a, *y = b;
    return x->n != y->n ? (x->n < y->n) - (x->n > y->n) : strcmp(x->name, y->name);
}

/* Where the lines' text comes from: the module's own sources, or (a module
 * from the compile cache holds only its host part) the files on disk, the
 * last one read kept. */
typedef struct Texts {
    const IrModule *ir; /* NULL: read the files */
    char path[256];
    char *file;         /* the last file read (NULL: not readable) */
} Texts;

/* The module's source whose name the line table gives (nvdisasm prints it
 * resolved: a path ending in the name), or NULL. */
static const TxSource *module_source(const IrModule *ir, const char *path)
{
    for (int i = -1; ir && i < ir->nimports; i++) {
        const TxSource *s = i < 0 ? ir->source : ir->imports[i];
        size_t a = strlen(path), b = s ? strlen(s->name) : 0;
        if (b && a >= b && !strcmp(path + a - b, s->name) && (a == b || path[a - b - 1] == '/'))
            return s;
    }
    return NULL;
}

/* The file's text, or NULL (not readable: no message). */
static char *read_quietly(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    long n = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
    if (n >= 0 && n < (64L << 20) && !fseek(f, 0, SEEK_SET) && (text = malloc((size_t)n + 1))) {
        size_t got = fread(text, 1, (size_t)n, f);
        text[got] = 0;
    }
    fclose(f);
    return text;
}

/* Line n (1-based) of the source named path, trimmed, into out (empty when
 * there is no such line). */
static void source_line(Texts *t, const char *path, int n, char *out, size_t cap)
{
    *out = 0;
    const char *p = NULL;
    const TxSource *s = t->ir ? module_source(t->ir, path) : NULL;
    if (s && n >= 1 && (uint32_t)n <= s->nlines) {
        p = s->text + s->line_off[n - 1];
    } else if (!t->ir) {
        if (strcmp(t->path, path)) {
            free(t->file);
            snprintf(t->path, sizeof t->path, "%s", path);
            t->file = read_quietly(path);
        }
        p = t->file;
        for (int i = 1; p && i < n; i++)
            p = (p = strchr(p, '\n')) ? p + 1 : NULL;
    }
    if (!p)
        return;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t k = strcspn(p, "\n");
    snprintf(out, cap, "%.*s", (int)(k < cap - 1 ? k : cap - 1), p);
}

static void report(TxBuf *out, const char *kernel, Lines *ls, int total, Texts *texts)
{
    tx_buf_printf(out, "%s: %d instructions\n", kernel, total);
    qsort(ls->items, (size_t)ls->len, sizeof *ls->items, by_place);
    int loops = 0;
    for (int i = 0; i < ls->len; i++)
        loops += ls->items[i].loops;
    if (loops) {
        tx_buf_printf(out, "  %d lane loop%s (ptxas repeats an instruction that needs warp-uniform "
                           "operands once per distinct value among the lanes):", loops,
                      loops == 1 ? "" : "s");
        for (int i = 0; i < ls->len; i++) {
            const Line *l = &ls->items[i];
            if (!l->loops)
                continue;
            tx_buf_printf(out, " %s:%d", *l->file ? l->file : "(no line)", l->line);
            if (l->loops > 1)
                tx_buf_printf(out, " (%d)", l->loops);
        }
        tx_buf_printf(out, "\n");
    }
    const char *file = "";
    for (int i = 0; i < ls->len; i++) {
        Line *l = &ls->items[i];
        if (strcmp(l->file, file)) {
            file = l->file;
            tx_buf_printf(out, "  %s\n", *file ? file : "(no line)");
        }
        qsort(l->ops.items, (size_t)l->ops.len, sizeof *l->ops.items, by_count);
        TxBuf ops = {0};
        for (int k = 0; k < l->ops.len && k < TOP_OPCODES; k++)
            tx_buf_printf(&ops, "%s%s %d", k ? ", " : "", l->ops.items[k].name, l->ops.items[k].n);
        char text[120];
        source_line(texts, l->file, l->line, text, sizeof text);
        tx_buf_printf(out, "  %6d %6d  %-40s %s\n", l->line, l->n, ops.data ? ops.data : "", text);
        tx_buf_free(&ops);
        tx_vec_free(&l->ops);
    }
    ls->len = 0;
}

/* Whether [q, e) starts with an instruction's address comment (0a40 between slash-stars). */
static bool is_address(const char *q, const char *e)
{
    if (e - q < 5 || q[0] != '/' || q[1] != '*')
        return false;
    const char *c = q + 2;
    while (c < e && strchr("0123456789abcdef", *c) && *c)
        c++;
    return c > q + 2 && c + 1 < e && c[0] == '*' && c[1] == '/';
}

char *api_sass_lines(const char *sass, const IrModule *ir)
{
    TxBuf out = {0};
    Lines ls = {0};
    Texts texts = {.ir = ir};
    char kernel[256] = "", file[256] = "";
    int line = 0, total = 0;
    for (const char *p = sass; *p;) {
        size_t n = strcspn(p, "\n");
        const char *e = p + n, *q = p;
        while (q < e && (*q == ' ' || *q == '\t'))
            q++;
        const char *mark = strstr(q, "//## File \"");
        if (!strncmp(q, ".text.", 6) && e > q && e[-1] == ':') {
            if (*kernel)
                report(&out, kernel, &ls, total, &texts);
            snprintf(kernel, sizeof kernel, "%.*s", (int)(e - q - 7), q + 6);
            total = 0, *file = 0, line = 0;
        } else if (mark && mark < e) {
            const char *f = mark + 11, *fe = memchr(f, '"', (size_t)(e - f));
            const char *ln = fe ? strstr(fe, "line ") : NULL;
            if (fe && ln && ln < e) {
                snprintf(file, sizeof file, "%.*s", (int)(fe - f), f);
                line = atoi(ln + 5);
            }
        } else if (*kernel && is_address(q, e)) {
            /* an instruction: its address, an optional guard, the opcode */
            const char *op = strstr(q, "*/") + 2;
            while (op < e && (*op == ' ' || *op == '\t'))
                op++;
            if (*op == '@')
                op += strcspn(op, " \t");
            while (op < e && (*op == ' ' || *op == '\t'))
                op++;
            size_t len = strcspn(op, ". \t;");
            if (len && op + len <= e && *op >= 'A' && *op <= 'Z') {
                Line *l = line_of(&ls, file, line);
                count(l, op, len);
                l->loops += !strncmp(op, "BRA.U.ANY", 9) && strchr(" \t", op[9]);
                total++;
            }
        }
        p = *e ? e + 1 : e;
    }
    if (*kernel)
        report(&out, kernel, &ls, total, &texts);
    tx_vec_free(&ls);
    free(texts.file);
    return out.data ? out.data : strdup("");
}

tirx_status tirx_module_sass_lines(const tirx_module *m, char **lines, tirx_error *err)
{
    char *sass = NULL;
    tirx_status st = lines ? tirx_module_sass(m, &sass, err) : TIRX_ERR_USAGE;
    if (!lines && err)
        snprintf(err->message, sizeof err->message, "tirx_module_sass_lines: lines is NULL");
    if (st != TIRX_OK)
        return st;
    *lines = api_sass_lines(sass, tirx_module_cached(m) ? NULL : m->ir);
    tirx_free(sass);
    if (!*lines && err)
        snprintf(err->message, sizeof err->message, "tirx_module_sass_lines: out of memory");
    return *lines ? TIRX_OK : TIRX_ERR_INTERNAL;
}
