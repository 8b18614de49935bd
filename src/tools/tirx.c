/* The tirx command-line tool. Uses only the public API of tirx.h.
 * Exit status: 0 success, 1 an error in the input, 2 a usage error,
 * 3 no CUDA driver/NVRTC where one is needed, 70 an internal error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tirx.h"

#define MAX_DEFINES 256

static const char usage[] =
    "usage: tirx <command> [options] FILE\n"
    "\n"
    "commands:\n"
    "  print FILE     parse FILE and print its canonical form on stdout\n"
    "  check FILE     parse and verify FILE; prints nothing on success\n"
    "\n"
    "options:\n"
    "  -D NAME=VALUE  override the module-level constant NAME (a Python literal or dtype)\n"
    "  --help         show this help\n"
    "  --version      show the version\n"
    "\n"
    "A FILE of '-' reads standard input. Long options accept --opt=V and --opt V.\n"
    "Exit status: 0 success, 1 input error, 2 usage error, 3 no CUDA, 70 internal error.\n";

typedef struct Options {
    const char *command, *file;
    tirx_define defines[MAX_DEFINES];
    size_t ndefines;
} Options;

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "tirx: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'tirx --help'.\n");
    return TIRX_ERR_USAGE;
}

/* Split NAME=VALUE in place into a define. */
static int add_define(Options *o, char *arg)
{
    char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return usage_error("-D expects NAME=VALUE, got '%s'", arg);
    if (o->ndefines == MAX_DEFINES)
        return usage_error("too many -D options (at most %s)", "256");
    *eq = 0;
    o->defines[o->ndefines++] = (tirx_define){arg, eq + 1};
    return 0;
}

/* Returns -1 to continue, else an exit status. */
static int parse_args(int argc, char **argv, Options *o)
{
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!strcmp(a, "--version")) {
            printf("tirx %s\n", tirx_version());
            return 0;
        }
        if (!strncmp(a, "-D", 2)) {
            char *v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v)
                return usage_error("%s needs NAME=VALUE", "-D");
            int rc = add_define(o, v);
            if (rc)
                return rc;
        } else if (a[0] == '-' && a[1] == '-') {
            return usage_error("unknown option '%s'", a);
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option '%s'", a);
        } else if (!o->command) {
            o->command = a;
        } else if (!o->file) {
            o->file = a;
        } else {
            return usage_error("unexpected argument '%s'", a);
        }
    }
    if (!o->command)
        return usage_error("%s", "missing command");
    if (strcmp(o->command, "print") && strcmp(o->command, "check"))
        return usage_error("unknown command '%s'", o->command);
    if (!o->file)
        return usage_error("%s: missing FILE", o->command);
    return -1;
}

/* Reads a whole file (or stdin for "-"); NULL with a message on failure. */
static char *read_input(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        fprintf(stderr, "tirx: cannot open '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    int err = ferror(f);
    if (f != stdin)
        fclose(f);
    if (!buf || err) {
        fprintf(stderr, "tirx: cannot read '%s'\n", path);
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

static void print_diags(const tirx_module *m)
{
    char *text = tirx_diag_render(m);
    if (text)
        fputs(text, stderr);
    tirx_free(text);
}

int main(int argc, char **argv)
{
    Options o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    size_t len;
    char *text = read_input(o.file, &len);
    if (!text)
        return TIRX_ERR_INPUT;
    const char *name = strcmp(o.file, "-") ? o.file : "<stdin>";
    tirx_module *m = NULL;
    tirx_status st = tirx_parse(text, len, name, o.defines, o.ndefines, &m);
    free(text);
    if (st == TIRX_OK)
        st = tirx_verify(m);
    print_diags(m);
    if (st == TIRX_OK && !strcmp(o.command, "print")) {
        char *out = tirx_print(m);
        if (!out) {
            st = TIRX_ERR_INTERNAL;
        } else {
            fputs(out, stdout);
            fputc('\n', stdout);
            tirx_free(out);
        }
    }
    tirx_module_free(m);
    return st;
}
