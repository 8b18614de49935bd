/* roundtrip: the test driver of the script corpus, the reference oracle
 * files and the docs. Uses only include/tirx.h (through roundtrip_core).
 *
 *   roundtrip [--expect-same-as-input] [--markdown] [-D NAME=VALUE]... FILE...
 *
 * For each FILE: parse (with the defines of its `# RUN-DEFINES:` header lines
 * and of -D), verify, print -> p1, parse p1, verify, print -> p2; p1 == p2 and
 * the modules are structurally equal. --expect-same-as-input also requires
 * p1 == FILE byte for byte (modulo one trailing newline). --markdown checks
 * each ```tirx (or ```tirx fragment) fenced block of a Markdown FILE instead,
 * each padded with blank lines so that diagnostics carry the line numbers of
 * the Markdown file.
 * Exit status: 0 all passed, 1 a check failed, 2 a usage error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roundtrip_core.h"

typedef struct Options {
    RtOptions check;
    bool markdown;
    RtDefines defines; /* from -D */
    int nfiles;
    char **files;
} Options;

typedef struct Tally {
    int passed, failed;
} Tally;

static const char usage[] =
    "usage: roundtrip [--expect-same-as-input] [--markdown] [-D NAME=VALUE]... FILE...\n";

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "roundtrip: cannot open '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            char *nb = realloc(buf, cap = cap ? 2 * cap : 1 << 16);
            if (!nb)
                break;
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (!got)
            break;
    }
    bool ok = !ferror(f) && buf && n < cap;
    fclose(f);
    if (!ok) {
        fprintf(stderr, "roundtrip: cannot read '%s'\n", path);
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

/* Checks one text with the command-line defines plus its header's. */
static void check_one(const Options *o, const char *name, const char *text, size_t len, Tally *t)
{
    RtDefines d = o->defines;
    size_t cli = d.n;
    bool ok = !rt_defines_from_header(&d, text, len);
    if (!ok)
        fprintf(stderr, "FAIL %s: a bad NAME=VALUE in a RUN-DEFINES line\n", name);
    else
        ok = rt_check(name, text, len, d.items, d.n, &o->check) == RT_PASSED;
    for (size_t i = cli; i < d.n; i++)
        free(d.words[i]);
    ok ? t->passed++ : t->failed++;
}

static bool is_fence(const char *line, const char *end, bool opening)
{
    size_t n = (size_t)(end - line);
    if (n < 3 || memcmp(line, "```", 3))
        return false;
    if (!opening)
        return true;
    const char *info = line + 3;
    if ((size_t)(end - info) < 4 || memcmp(info, "tirx", 4))
        return false;
    info += 4;
    info += strspn(info, " \t\r");
    if ((size_t)(end - info) >= 8 && !memcmp(info, "fragment", 8)) /* not built (docs_build) */
        info += 8 + strspn(info + 8, " \t\r");
    return info >= end;
}

/* The block's text, preceded by one blank line for each Markdown line
 * before it, so that diagnostics point into the Markdown file. */
static char *padded_block(const char *start, const char *stop, int first_line, size_t *len)
{
    size_t pad = (size_t)first_line - 1, n = (size_t)(stop - start);
    char *text = malloc(pad + n + 1);
    if (!text)
        return NULL;
    memset(text, '\n', pad);
    memcpy(text + pad, start, n);
    text[pad + n] = 0;
    *len = pad + n;
    return text;
}

static void check_markdown(const Options *o, const char *path, const char *md, size_t len,
                           Tally *t)
{
    const char *p = md, *end = md + len, *block = NULL;
    int line = 1, block_line = 0, blocks = 0;
    for (; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        if (!block && is_fence(p, eol, true)) {
            block = eol + (nl != NULL);
            block_line = line + 1;
        } else if (block && is_fence(p, eol, false)) {
            size_t n;
            char *text = padded_block(block, p, block_line, &n);
            if (text)
                check_one(o, path, text, n, t);
            else
                t->failed++;
            free(text);
            block = NULL;
            blocks++;
        }
        p = eol + (nl != NULL);
    }
    if (block) {
        fprintf(stderr, "FAIL %s:%d: unclosed ```tirx block\n", path, block_line - 1);
        t->failed++;
    }
    if (!blocks)
        printf("%s: no ```tirx blocks\n", path);
}

static void check_file(const Options *o, const char *path, Tally *t)
{
    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        t->failed++;
        return;
    }
    if (o->markdown)
        check_markdown(o, path, text, len, t);
    else
        check_one(o, path, text, len, t);
    free(text);
}

/* Returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, Options *o)
{
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--expect-same-as-input")) {
            o->check.expect_same_as_input = true;
        } else if (!strcmp(a, "--markdown")) {
            o->markdown = true;
        } else if (!strncmp(a, "-D", 2)) {
            const char *v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : "");
            if (rt_defines_add(&o->defines, v, strlen(v))) {
                fprintf(stderr, "roundtrip: -D expects NAME=VALUE, got '%s'\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        } else {
            fprintf(stderr, "roundtrip: unknown option '%s'\n%s", a, usage);
            return 2;
        }
    }
    o->files = argv + i;
    o->nfiles = argc - i;
    if (!o->nfiles) {
        fputs(usage, stderr);
        return 2;
    }
    return -1;
}

int main(int argc, char **argv)
{
    Options o = {.check = {.log = stderr}};
    int rc = parse_args(argc, argv, &o);
    if (rc < 0) {
        Tally t = {0};
        for (int i = 0; i < o.nfiles; i++)
            check_file(&o, o.files[i], &t);
        printf("roundtrip: %d of %d checks passed\n", t.passed, t.passed + t.failed);
        rc = t.failed ? 1 : 0;
    }
    rt_defines_free(&o.defines);
    return rc;
}
