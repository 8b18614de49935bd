/* Golden tests of TilePrimitiveDispatch (tests/op, tests/README.md):
 *
 *   op_golden [--update] op/NAME.tirx
 *
 * parses op/NAME.tirx, runs TilePrimitiveDispatch for the target named by a
 * `# TARGET: sm_90a` line of its leading comment block (default sm_90a) --
 * or the passes of a `# PASSES: A,B` line (tests/pass), with the verifier
 * after each -- and then either
 *  - compares the result, structurally (alpha-renaming bound variables), with
 *    the module of op/NAME.expected.tirx, which must also verify; or
 *  - when op/NAME.err exists, requires the dispatch to fail with exactly
 *    those rendered diagnostics.
 * A mismatch prints a diff of the printed texts. --update (or
 * TIRX_UPDATE_GOLDENS=1) writes the expectation from the actual output, for a
 * human to review before committing. Exit 0 pass, 1 fail, 2 usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/ir/visit.h"
#include "../../src/pass/pass.h"
#include "../../src/script/script.h"
#include "textdiff.h"

static bool write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    fputs(text, f);
    return fclose(f) == 0;
}

/* `# KEY: value` in the leading comment block (key "# TARGET:"), else dflt. */
static const char *header_value(const char *text, const char *key, char *buf, size_t n,
                                const char *dflt)
{
    const char *p = text;
    size_t klen = strlen(key);
    while (*p == '#' || *p == '\n') {
        if (!strncmp(p, key, klen)) {
            const char *s = p + klen;
            while (*s == ' ')
                s++;
            size_t k = strcspn(s, " \n");
            snprintf(buf, n, "%.*s", (int)(k < n ? k : n - 1), s);
            return buf;
        }
        p = strchr(p, '\n');
        if (!p)
            break;
        p++;
    }
    return dflt;
}

static char *render(const IrModule *m)
{
    TxBuf b = {0};
    for (int i = 0; i < m->diags.list.len; i++)
        tx_diag_render(&m->diags.list.items[i], &b);
    return tx_buf_take(&b);
}

static IrModule *parse(const char *path, const char *text, size_t len)
{
    IrModule *m = sc_parse(text, len, path, NULL, 0);
    if (m->diags.nerrors || !ir_verify(m)) {
        char *d = render(m);
        fprintf(stderr, "%s does not parse and verify:\n%s", path, d);
        free(d);
        ir_module_free(m);
        return NULL;
    }
    return m;
}

static char *sibling(const char *path, const char *ext)
{
    size_t n = strlen(path) - strlen(".tirx");
    char *p = malloc(n + strlen(ext) + 1);
    memcpy(p, path, n);
    strcpy(p + n, ext);
    return p;
}

static bool check_error(const char *err_path, const char *actual, bool update)
{
    if (update)
        return write_file(err_path, actual);
    size_t len;
    char *want = tx_read_file(err_path, &len);
    bool ok = want && !strcmp(want, actual);
    if (!ok)
        textdiff_print(stderr, err_path, want ? want : "", want ? len : 0, "actual", actual,
                       strlen(actual));
    free(want);
    return ok;
}

static bool check_lowered(const char *exp_path, IrModule *m, bool update)
{
    char *actual = sc_print(m);
    bool ok = false;
    if (update) {
        ok = write_file(exp_path, actual) && (free(actual), true);
        return ok;
    }
    size_t len;
    char *want_text = tx_read_file(exp_path, &len);
    IrModule *want = want_text ? parse(exp_path, want_text, len) : NULL;
    if (!want_text)
        fprintf(stderr, "cannot read %s\n", exp_path);
    if (want && ir_module_equal(m, want)) {
        ok = true;
    } else if (want) {
        char *wp = sc_print(want);
        fprintf(stderr, "the lowered module is not structurally equal to %s:\n", exp_path);
        textdiff_print(stderr, exp_path, wp, strlen(wp), "actual", actual, strlen(actual));
        free(wp);
    }
    if (want)
        ir_module_free(want);
    free(want_text);
    free(actual);
    return ok;
}

int main(int argc, char **argv)
{
    bool update = getenv("TIRX_UPDATE_GOLDENS") && !strcmp(getenv("TIRX_UPDATE_GOLDENS"), "1");
    int i = 1;
    if (i < argc && !strcmp(argv[i], "--update"))
        update = true, i++;
    if (i + 1 != argc) {
        fprintf(stderr, "usage: op_golden [--update] op/NAME.tirx\n");
        return 2;
    }
    const char *path = argv[i];
    size_t len;
    char *text = tx_read_file(path, &len);
    if (!text) {
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    IrModule *m = parse(path, text, len);
    if (!m) {
        free(text);
        return 1;
    }
    char target[32], passes[512];
    PsCtx ctx = {.arch = header_value(text, "# TARGET:", target, sizeof target, "sm_90a")};
    const char *names = header_value(text, "# PASSES:", passes, sizeof passes, NULL);
    ctx.verify_each = names != NULL;
    bool lowered = (names ? ps_run_named(&ctx, m, names) : ps_tile_dispatch(&ctx, m)) &&
                   !m->diags.nerrors;
    char *err_path = sibling(path, ".err"), *exp_path = sibling(path, ".expected.tirx");
    FILE *probe = fopen(err_path, "rb");
    bool expect_error = probe != NULL;
    if (probe)
        fclose(probe);
    bool ok;
    char *diags = render(m);
    if (expect_error || (update && !lowered)) {
        ok = !lowered ? check_error(err_path, diags, update)
                      : (fprintf(stderr, "%s: the dispatch succeeded; %s expects an error\n", path,
                                 err_path), false);
    } else if (!lowered) {
        fprintf(stderr, "%s: the dispatch failed:\n%s", path, diags);
        ok = false;
    } else if (!ir_verify(m)) {
        char *d = render(m);
        fprintf(stderr, "%s: the lowered module does not verify:\n%s", path, d);
        free(d);
        ok = false;
    } else {
        ok = check_lowered(exp_path, m, update);
    }
    free(diags);
    free(err_path);
    free(exp_path);
    ir_module_free(m);
    free(text);
    return ok ? 0 : 1;
}
