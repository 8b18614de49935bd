/* codegen_check: the driver of the CUDA codegen tests (tests/codegen). It
 * calls the code generator directly on the kernels of a parsed file (functions
 * with attribute "calling_conv" 2, written in the IR contract's form), so the
 * tests do not depend on the pass pipeline.
 *
 *   codegen_check [--arch ARCH] [--fast-math] [--no-lines] [--trace] [--nvrtc] [--twice] FILE
 *
 * Prints the CUDA source generated for ARCH (default sm_90a) on stdout.
 * --nvrtc also compiles it with NVRTC for ARCH (ptxas validates every
 * instruction; NVSHMEM calls are left unresolved) and prints nothing on
 * success; exit 77 when NVRTC cannot be loaded. --twice checks that two independent parses, and a parse of the
 * printed module, generate byte-identical source. Diagnostics go to stderr.
 * Exit status: 0 success, 1 an error, 2 a usage error, 77 no NVRTC. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"
#include "script/script.h"
#include "target/cuda/codegen.h"

typedef struct Options {
    const char *arch, *file;
    bool fast_math, no_lines, trace, nvrtc, twice;
} Options;

static const char usage[] =
    "usage: codegen_check [--arch ARCH] [--fast-math] [--no-lines] [--trace] [--nvrtc] [--twice] FILE\n";

static void print_diags(const IrModule *m)
{
    TxBuf b = {0};
    for (int i = 0; i < m->diags.list.len; i++)
        tx_diag_render(&m->diags.list.items[i], &b);
    if (b.len)
        fputs(b.data, stderr);
    tx_buf_free(&b);
}

/* Parse text and generate its kernels; NULL (diagnostics printed) on error. */
static char *generate(const Options *o, const char *text, size_t len)
{
    IrModule *m = sc_parse(text, len, o->file, NULL, 0);
    CgOptions co = {.sm = ir_target_sm(o->arch), .fast_math = o->fast_math, .no_lines = o->no_lines,
                    .trace = o->trace};
    TxBuf out = {0};
    bool ok = !m->diags.nerrors;
    int kernels = 0;
    for (int i = 0; ok && i < m->nfuncs; i++)
        kernels += cg_is_kernel(m->funcs[i]);
    if (ok && !kernels) {
        fprintf(stderr, "%s: no kernel (a function with attribute \"calling_conv\": 2)\n", o->file);
        ok = false;
    }
    ok = ok && cg_emit_module(m, &co, &out);
    print_diags(m);
    ir_module_free(m);
    if (!ok) {
        tx_buf_free(&out);
        return NULL;
    }
    return tx_buf_take(&out);
}

/* The source of a parse of the printed module. */
static char *generate_reprinted(const Options *o, const char *text, size_t len)
{
    IrModule *m = sc_parse(text, len, o->file, NULL, 0);
    char *printed = m->diags.nerrors ? NULL : sc_print(m);
    ir_module_free(m);
    if (!printed)
        return NULL;
    char *src = generate(o, printed, strlen(printed));
    free(printed);
    return src;
}

static int check_twice(const Options *o, const char *text, size_t len, const char *first)
{
    char *again = generate(o, text, len), *reprinted = generate_reprinted(o, text, len);
    int rc = 0;
    if (!again || strcmp(first, again)) {
        fprintf(stderr, "%s: a second generation differs from the first\n", o->file);
        rc = 1;
    }
    /* #line directives differ (the printed text has other line numbers) */
    if (o->no_lines && (!reprinted || strcmp(first, reprinted))) {
        fprintf(stderr, "%s: the printed module generates different source\n", o->file);
        rc = 1;
    }
    free(again);
    free(reprinted);
    return rc;
}

/* NVRTC compiles the source; kernels that call NVSHMEM compile as relocatable
 * code (-rdc=true), their calls left for the link that tirx build does (so
 * the test needs no NVSHMEM). */
static int compile(const Options *o, const char *source)
{
    RtHeader headers[] = {{cg_prelude_name(), cg_prelude_text()},
                          {cg_nvshmem_header_name(), cg_nvshmem_header_text()}};
    const char *rdc[] = {"-rdc=true"};
    bool nvshmem = strstr(source, cg_nvshmem_header_name()) != NULL;
    RtCompileOptions co = {.arch = o->arch, .fast_math = o->fast_math, .lineinfo = true,
                           .headers = headers, .nheaders = 2, .name = "generated.cu",
                           .extra = rdc, .nextra = nvshmem};
    RtBinary bin = {0};
    RtError err;
    int major, minor;
    if (rt_nvrtc_version(&major, &minor, &err) != RT_OK) {
        fprintf(stderr, "SKIPPED: %s\n", err.message);
        return 77;
    }
    RtStatus s = rt_compile(source, &co, &bin, &err);
    if (s != RT_OK)
        fprintf(stderr, "%s: %s\n%s", o->file, err.message, bin.log ? bin.log : "");
    rt_binary_free(&bin);
    return s == RT_OK ? 0 : 1;
}

static int parse_args(int argc, char **argv, Options *o)
{
    o->arch = "sm_90a";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--arch") && i + 1 < argc)
            o->arch = argv[++i];
        else if (!strcmp(a, "--fast-math"))
            o->fast_math = true;
        else if (!strcmp(a, "--no-lines"))
            o->no_lines = true;
        else if (!strcmp(a, "--trace"))
            o->trace = true;
        else if (!strcmp(a, "--nvrtc"))
            o->nvrtc = true;
        else if (!strcmp(a, "--twice"))
            o->twice = true;
        else if (a[0] != '-' && !o->file)
            o->file = a;
        else
            return 2;
    }
    if (!o->file || !ir_target_sm(o->arch))
        return 2;
    return 0;
}

int main(int argc, char **argv)
{
    Options o = {0};
    if (parse_args(argc, argv, &o)) {
        fputs(usage, stderr);
        return 2;
    }
    size_t len;
    char *text = tx_read_file(o.file, &len);
    if (!text) {
        fprintf(stderr, "codegen_check: cannot open '%s': %s\n", o.file, strerror(errno));
        return 1;
    }
    char *source = generate(&o, text, len);
    int rc = source ? 0 : 1;
    if (source && o.twice)
        rc = check_twice(&o, text, len, source);
    else if (source && o.nvrtc)
        rc = compile(&o, source);
    else if (source)
        fputs(source, stdout);
    free(source);
    free(text);
    return rc;
}
