/* The round-trip check of the test drivers (roundtrip, the fuzz target):
 * every stage from the input text to a reparsed print, with a message and a
 * line diff for each failure. Uses only include/tirx.h. */
#include "roundtrip_core.h"

#include <stdlib.h>
#include <string.h>

#include "textdiff.h"

static const char defines_tag[] = "# RUN-DEFINES:";

static void log_diags(const RtOptions *opt, const tirx_module *m)
{
    if (!opt->log)
        return;
    char *text = tirx_diag_render(m);
    if (text)
        fputs(text, opt->log);
    tirx_free(text);
}

static void log_failure(const RtOptions *opt, const char *name, const char *what)
{
    if (opt->log)
        fprintf(opt->log, "FAIL %s: %s\n", name, what);
}

static void log_numbered(const RtOptions *opt, const char *title, const char *text)
{
    if (!opt->log)
        return;
    fprintf(opt->log, "---- %s\n", title);
    int line = 1;
    for (const char *p = text; *p; line++) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(opt->log, "%4d | %.*s\n", line, (int)n, p);
        p += n + (nl != NULL);
    }
}

/* Parses and verifies; on failure logs why and returns the outcome. */
static RtOutcome parse_and_verify(const char *name, const char *text, size_t len,
                                  const tirx_define *defines, size_t ndefines, bool reparse,
                                  const RtOptions *opt, tirx_module **out)
{
    bool quiet = !reparse && opt->quiet_rejections;
    if (tirx_parse(text, len, name, defines, ndefines, out) != TIRX_OK) {
        if (!quiet) {
            log_failure(opt, name, reparse ? "the printed text does not parse" : "does not parse");
            log_diags(opt, *out);
        }
        return reparse ? RT_REPARSE_FAILED : RT_REJECTED_PARSE;
    }
    if (tirx_verify(*out) != TIRX_OK) {
        if (!quiet) {
            log_failure(opt, name, reparse ? "the printed text does not verify" : "does not verify");
            log_diags(opt, *out);
        }
        return reparse ? RT_REVERIFY_FAILED : RT_REJECTED_VERIFY;
    }
    return RT_PASSED;
}

static RtOutcome first_failure(RtOutcome a, RtOutcome b) { return a != RT_PASSED ? a : b; }

static RtOutcome compare_with_input(const char *name, const char *input, size_t len,
                                    const char *printed, const RtOptions *opt)
{
    if (len && input[len - 1] == '\n')
        len--;
    if (strlen(printed) == len && !memcmp(printed, input, len))
        return RT_PASSED;
    log_failure(opt, name, "the printed text differs from the input");
    if (opt->log)
        textdiff_print(opt->log, "input", input, len, "print(parse(input))", printed,
                       strlen(printed));
    return RT_DIFFERS_FROM_INPUT;
}

/* Reparses p1 and checks the fixpoint and structural equality against m1. */
static RtOutcome check_reparse(const char *name, const tirx_module *m1, const char *p1,
                               const RtOptions *opt)
{
    size_t name_len = strlen(name);
    char *printed_name = malloc(name_len + sizeof " (printed)");
    if (!printed_name)
        return RT_PRINT_FAILED;
    memcpy(printed_name, name, name_len);
    memcpy(printed_name + name_len, " (printed)", sizeof " (printed)");
    tirx_module *m2 = NULL;
    RtOutcome rc = parse_and_verify(printed_name, p1, strlen(p1), NULL, 0, true, opt, &m2);
    if (rc != RT_PASSED) {
        log_numbered(opt, "the printed text", p1);
    } else {
        char *p2 = tirx_print(m2);
        if (!p2) {
            log_failure(opt, name, "printing the reparsed module failed");
            rc = RT_PRINT_FAILED;
        } else if (strcmp(p1, p2)) {
            log_failure(opt, name, "print is not a fixpoint: print(parse(p1)) != p1");
            if (opt->log)
                textdiff_print(opt->log, "p1 = print(parse(input))", p1, strlen(p1),
                               "p2 = print(parse(p1))", p2, strlen(p2));
            rc = RT_NOT_FIXPOINT;
        }
        tirx_free(p2);
        if (!tirx_module_equal(m1, m2)) {
            log_failure(opt, name, "parse(p1) is not structurally equal to parse(input)");
            log_numbered(opt, "p1 = print(parse(input))", p1);
            rc = first_failure(rc, RT_NOT_EQUAL);
        }
    }
    tirx_module_free(m2);
    free(printed_name);
    return rc;
}

RtOutcome rt_check(const char *name, const char *text, size_t len, const tirx_define *defines,
                   size_t ndefines, const RtOptions *opt)
{
    tirx_module *m1 = NULL;
    RtOutcome rc = parse_and_verify(name, text, len, defines, ndefines, false, opt, &m1);
    if (rc == RT_PASSED) {
        char *p1 = tirx_print(m1);
        if (!p1) {
            log_failure(opt, name, "printing failed");
            rc = RT_PRINT_FAILED;
        } else {
            if (opt->expect_same_as_input)
                rc = compare_with_input(name, text, len, p1, opt);
            rc = first_failure(rc, check_reparse(name, m1, p1, opt));
        }
        tirx_free(p1);
    }
    tirx_module_free(m1);
    return rc;
}

bool rt_is_bug(RtOutcome o)
{
    return o != RT_PASSED && o != RT_REJECTED_PARSE && o != RT_REJECTED_VERIFY;
}

int rt_defines_add(RtDefines *d, const char *word, size_t len)
{
    const char *eq = memchr(word, '=', len);
    if (!eq || eq == word || d->n == RT_MAX_DEFINES)
        return -1;
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, word, len);
    copy[len] = 0;
    copy[eq - word] = 0;
    d->words[d->n] = copy;
    d->items[d->n++] = (tirx_define){copy, copy + (eq - word) + 1};
    return 0;
}

/* Adds the space-separated words of one line's text after the tag. */
static int add_words(RtDefines *d, const char *p, const char *end)
{
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        const char *w = p;
        while (p < end && *p != ' ' && *p != '\t')
            p++;
        if (p > w && rt_defines_add(d, w, (size_t)(p - w)))
            return -1;
    }
    return 0;
}

int rt_defines_from_header(RtDefines *d, const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        size_t n = (size_t)(eol - p);
        if (n && *p != '#' && strspn(p, " \t\r") < n)
            break; /* the first code line ends the header */
        if (n >= sizeof defines_tag - 1 && !memcmp(p, defines_tag, sizeof defines_tag - 1) &&
            add_words(d, p + sizeof defines_tag - 1, eol > p && eol[-1] == '\r' ? eol - 1 : eol))
            return -1;
        p = eol + (nl != NULL);
    }
    return 0;
}

void rt_defines_free(RtDefines *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->words[i]);
    d->n = 0;
}
