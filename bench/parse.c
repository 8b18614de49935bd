/* bench_parse: how long tirx takes to parse and verify a kernel-sized script.
 *
 *   bench_parse [--runs N] [--lines N] [--dump FILE] TEMPLATE
 *
 * Builds a script of at least --lines lines (default 2000) from TEMPLATE
 * (bench/kernel.tirx): the part above its "# ---- bench:" marker line once,
 * then the function below it repeated, renamed bench_kernel_0, _1, ... Then
 * times parse, verify and print of that script with clock_gettime
 * (CLOCK_MONOTONIC; parse + verify also in process CPU time, which a busy
 * machine disturbs less), after 3 warm-up rounds, over --runs rounds (default
 * 51), and prints the median, minimum and maximum of each stage. Freeing the
 * module is not timed. --dump writes the generated script to FILE.
 * Measures through include/tirx.h only (the base layer just reads TEMPLATE). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "bench_util.h"
#include "tirx.h"

enum { WARMUP_ROUNDS = 3, STAGES = 5 };

static const char marker[] = "# ---- bench:";
static const char kernel_def[] = "def bench_kernel(";
static const char *const stage_names[STAGES] = {"parse", "verify", "parse + verify", "print",
                                                "parse + verify, CPU"};

typedef struct Options {
    int runs, lines;
    const char *dump, *template_path;
} Options;

typedef struct Script {
    char *text;
    size_t len;
    int lines, copies;
} Script;

static int count_lines(const char *s, size_t n)
{
    int lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += s[i] == '\n';
    return lines;
}

/* Appends n bytes to the script's text (which has room: see build_script). */
static void append(Script *s, const char *p, size_t n)
{
    memcpy(s->text + s->len, p, n);
    s->len += n;
}

/* The generated script: the template's header once, its function repeated. */
static int build_script(const char *tmpl, size_t tmpl_len, int min_lines, Script *s)
{
    const char *mark = strstr(tmpl, marker);
    const char *body = mark ? strchr(mark, '\n') : NULL;
    const char *def = body ? strstr(body, kernel_def) : NULL;
    if (!def) {
        fprintf(stderr, "bench_parse: the template needs a '%s' line and '%s' below it\n", marker,
                kernel_def);
        return -1;
    }
    body++;
    size_t head_len = (size_t)(mark - tmpl), body_len = tmpl_len - (size_t)(body - tmpl);
    int head_lines = count_lines(tmpl, head_len), body_lines = count_lines(body, body_len) + 1;
    int copies = (min_lines - head_lines + body_lines - 1) / body_lines;
    copies = copies < 1 ? 1 : copies;
    s->text = malloc(head_len + (size_t)copies * (body_len + 32) + 1);
    if (!s->text)
        return -1;
    s->len = 0;
    append(s, tmpl, head_len);
    for (int i = 0; i < copies; i++) {
        char name[48];
        int n = snprintf(name, sizeof name, "def bench_kernel_%d(", i);
        append(s, "\n", i > 0);
        append(s, body, (size_t)(def - body));
        append(s, name, (size_t)n);
        const char *rest = def + strlen(kernel_def);
        append(s, rest, body_len - (size_t)(rest - body));
    }
    s->text[s->len] = 0;
    s->lines = count_lines(s->text, s->len);
    s->copies = copies;
    return 0;
}

static void show_diags(const tirx_module *m)
{
    char *text = tirx_diag_render(m);
    fprintf(stderr, "%.4000s", text ? text : "");
    tirx_free(text);
}

/* One round; fills ms[stage]. Returns 0, or -1 (with diagnostics) on failure. */
static int run_round(const Script *s, double ms[STAGES])
{
    tirx_module *m = NULL;
    double c0 = bench_clock_ms(CLOCK_PROCESS_CPUTIME_ID), t0 = bench_now_ms();
    tirx_status st = tirx_parse(s->text, s->len, "bench.tirx", NULL, 0, &m);
    double t1 = bench_now_ms();
    if (st == TIRX_OK)
        st = tirx_verify(m);
    double t2 = bench_now_ms(), c2 = bench_clock_ms(CLOCK_PROCESS_CPUTIME_ID);
    char *printed = st == TIRX_OK ? tirx_print(m) : NULL;
    double t3 = bench_now_ms();
    if (st != TIRX_OK || !printed) {
        fprintf(stderr, "bench_parse: the generated script does not %s:\n",
                st != TIRX_OK ? "parse and verify" : "print");
        show_diags(m);
    }
    tirx_free(printed);
    tirx_module_free(m);
    ms[0] = t1 - t0, ms[1] = t2 - t1, ms[2] = t2 - t0, ms[3] = t3 - t2, ms[4] = c2 - c0;
    return st == TIRX_OK && printed ? 0 : -1;
}

static void print_table(const Options *o, const Script *s, double *samples[STAGES])
{
    printf("tirx %s parse benchmark: %d lines, %zu bytes (%s: %d copies of its function)\n",
           tirx_version(), s->lines, s->len, o->template_path, s->copies);
    printf("%d rounds after %d warm-up rounds; milliseconds per round\n\n", o->runs,
           WARMUP_ROUNDS);
    printf("%-20s %10s %10s %10s\n", "stage", "median", "min", "max");
    for (int k = 0; k < STAGES; k++) {
        BenchSummary t = bench_summary(samples[k], o->runs);
        printf("%-20s %10.3f %10.3f %10.3f\n", stage_names[k], t.median, t.min, t.max);
    }
}

static int measure(const Options *o, const Script *s)
{
    double *samples[STAGES] = {0}, ms[STAGES];
    int rc = 0;
    for (int k = 0; k < STAGES; k++)
        if (!(samples[k] = malloc((size_t)o->runs * sizeof(double))))
            rc = -1;
    for (int r = 0; !rc && r < WARMUP_ROUNDS + o->runs; r++) {
        rc = run_round(s, ms);
        for (int k = 0; !rc && k < STAGES && r >= WARMUP_ROUNDS; k++)
            samples[k][r - WARMUP_ROUNDS] = ms[k];
    }
    if (!rc)
        print_table(o, s, samples);
    for (int k = 0; k < STAGES; k++)
        free(samples[k]);
    return rc;
}

static int parse_args(int argc, char **argv, Options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--runs") && v)
            o->runs = atoi(argv[++i]);
        else if (!strcmp(a, "--lines") && v)
            o->lines = atoi(argv[++i]);
        else if (!strcmp(a, "--dump") && v)
            o->dump = argv[++i];
        else if (a[0] != '-' && !o->template_path)
            o->template_path = a;
        else
            o->template_path = NULL, i = argc;
    }
    if (!o->template_path || o->runs < 1 || o->lines < 1) {
        fprintf(stderr, "usage: bench_parse [--runs N] [--lines N] [--dump FILE] TEMPLATE\n");
        return -1;
    }
    return 0;
}

static int dump_script(const char *path, const Script *s)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(s->text, 1, s->len, f) != s->len) {
        fprintf(stderr, "bench_parse: cannot write '%s'\n", path);
        if (f)
            fclose(f);
        return -1;
    }
    return fclose(f) ? -1 : 0;
}

int main(int argc, char **argv)
{
    Options o = {.runs = 51, .lines = 2000};
    if (parse_args(argc, argv, &o))
        return 2;
    size_t len;
    char *tmpl = tx_read_file(o.template_path, &len);
    if (!tmpl) {
        fprintf(stderr, "bench_parse: cannot read '%s': %s\n", o.template_path, strerror(errno));
        return 1;
    }
    Script s = {0};
    int rc = build_script(tmpl, len, o.lines, &s);
    if (!rc && o.dump)
        rc = dump_script(o.dump, &s);
    if (!rc)
        rc = measure(&o, &s);
    free(tmpl);
    free(s.text);
    return rc ? 1 : 0;
}
