/* The tirx command-line tool. Uses only the public API of tirx.h.
 * Exit status: 0 success, 1 an error in the input, 2 a usage error,
 * 3 no CUDA driver/NVRTC where one is needed, 70 an internal error or memory
 * that ran out. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "tirx.h"

#define MAX_DEFINES 256
#define MAX_NVRTC_OPTIONS 256
#define MAX_IMPORT_DIRS 256

static const char usage[] =
    "usage: tirx <command> [options] FILE\n"
    "       tirx layout LAYOUT --shape D0,D1,... [--at I0,I1,...] [--dtype DTYPE]\n"
    "\n"
    "commands:\n"
    "  print FILE     parse FILE and print its canonical form on stdout\n"
    "  check FILE     parse and verify FILE; prints nothing on success; with --target,\n"
    "                 also lower it and generate CUDA (all that build does but compile)\n"
    "  opt FILE       run passes over FILE and print the IR after them\n"
    "  build FILE     lower and compile FILE for a GPU target\n"
    "  layout LAYOUT  print where each element of --shape lands under LAYOUT, a layout\n"
    "                 written as in TIRx script ('T.TileLayout(T.S[(8, 16):(16, 1)])')\n"
    "  bench ...      time a function, or a GEMM beside cuBLAS ('tirx bench --help')\n"
    "  sim FILE ...   run a function in the CPU simulator ('tirx sim --help')\n"
    "\n"
    "options:\n"
    "  -D NAME=VALUE  override the module-level constant NAME (a Python literal or dtype)\n"
    "  -I DIR         search DIR for imported .tirx files, after the importing file's\n"
    "                 directory (repeatable: searched in order)\n"
    "  --passes=A,B   opt: the passes to run, in order (default: the whole pipeline)\n"
    "  --target=ARCH  build (required), check, opt: sm_80, sm_90a or sm_100a\n"
    "  --emit=KIND    build: cuda (default; with -o OUT, what OUT's extension .cubin,\n"
    "                 .ptx or .sass names), ptx, cubin (needs -o), sass (the cubin\n"
    "                 disassembled by nvdisasm: TIRX_NVDISASM, the toolkit, PATH or\n"
    "                 pip install nvidia-cuda-nvdisasm), sass-lines (that SASS counted\n"
    "                 by script line, per kernel: a static profile, with the lines of\n"
    "                 ptxas's lane loops; implies --lineinfo)\n"
    "                 or host (the host function)\n"
    "  -o OUT         build: write the output to OUT instead of stdout\n"
    "  --print-after=PASS  print the IR after PASS (or 'all') on stderr\n"
    "  --verify-each  run the verifier after every pass\n"
    "  --stats        build: registers, spills and shared memory of each kernel, on stderr\n"
    "  --fast-math    build: compile with fast math (off by default)\n"
    "  --trace        build: T.cuda.iket calls record trace events\n"
    "  --lineinfo     build: line information for profilers and compute-sanitizer\n"
    "  --nvcc         build: compile with nvcc instead of NVRTC\n"
    "  -Xnvrtc OPT    build: pass OPT to NVRTC after tirx's options (repeatable; also\n"
    "                 $TIRX_NVRTC_EXTRA_OPTS, split like shell words)\n"
    "  --shape=D0,D1  layout: the logical shape (required)\n"
    "  --at=I0,I1     layout: only this index (default: every index, row-major)\n"
    "  --dtype=T      layout: the element type; a swizzled layout then shows bank=B\n"
    "  --max-input-size=N  refuse a FILE larger than N bytes (a K, M or G suffix\n"
    "                 multiplies by 1024, 1024^2 or 1024^3; default 64M)\n"
    "  --help         show this help\n"
    "  --version      show the version\n"
    "\n"
    "A FILE of '-' reads standard input. Long options accept --opt=V and --opt V.\n"
    "Exit status: 0 success, 1 input error, 2 usage error, 3 no CUDA, 70 internal error\n"
    "or out of memory.\n";

typedef struct Options {
    const char *command, *file;
    tirx_define defines[MAX_DEFINES];
    size_t ndefines;
    const char *nvrtc_options[MAX_NVRTC_OPTIONS];
    size_t n_nvrtc_options;
    const char *import_dirs[MAX_IMPORT_DIRS];
    size_t n_import_dirs;
    /* opt and build */
    const char *passes, *target, *emit, *output, *print_after;
    bool verify_each, stats, fast_math, lineinfo, nvcc, trace;
    /* layout (the LAYOUT text is `file`) */
    const char *shape, *at, *dtype;
    const char *max_input_size; /* as given; input_limit is its value */
    size_t input_limit;
} Options;

/* Long options of opt and build: a value (--name=V or --name V) or a flag. */
typedef struct LongOption {
    const char *name;
    bool takes_value;
    size_t field; /* offsetof a const char * (value) or a bool (flag) in Options */
} LongOption;

static const LongOption long_options[] = {
    {"passes", true, offsetof(Options, passes)},
    {"target", true, offsetof(Options, target)},
    {"emit", true, offsetof(Options, emit)},
    {"print-after", true, offsetof(Options, print_after)},
    {"verify-each", false, offsetof(Options, verify_each)},
    {"stats", false, offsetof(Options, stats)},
    {"fast-math", false, offsetof(Options, fast_math)},
    {"lineinfo", false, offsetof(Options, lineinfo)},
    {"nvcc", false, offsetof(Options, nvcc)},
    {"trace", false, offsetof(Options, trace)},
    {"shape", true, offsetof(Options, shape)},
    {"at", true, offsetof(Options, at)},
    {"dtype", true, offsetof(Options, dtype)},
    {"max-input-size", true, offsetof(Options, max_input_size)},
};

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "tirx: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'tirx --help'.\n");
    return TIRX_ERR_USAGE;
}

/* Levenshtein distance of a and b (each cut to 31 characters). */
static int distance(const char *a, const char *b)
{
    int la = (int)strnlen(a, 31), lb = (int)strnlen(b, 31), row[32];
    for (int j = 0; j <= lb; j++)
        row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            best = up + 1 < best ? up + 1 : best;
            best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

/* The candidate within 2 edits of name (1 for names of 3 characters or fewer), or NULL. */
static const char *nearest(const char *name, const char *const *cands, size_t n)
{
    const char *best = NULL;
    int limit = strlen(name) <= 3 ? 1 : 2, bestd = limit + 1;
    for (size_t k = 0; k < n; k++) {
        int d = distance(name, cands[k]);
        if (d < bestd)
            bestd = d, best = cands[k];
    }
    return best;
}

/* "unknown WHAT 'ARG'", with "; did you mean 'PREFIX NEAR'?" when there is a near one. */
static int unknown_error(const char *what, const char *arg, const char *prefix, const char *near)
{
    fprintf(stderr, "tirx: unknown %s '%s'", what, arg);
    if (near)
        fprintf(stderr, "; did you mean '%s%s'?", prefix, near);
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

/* --name, --name=V or --name V at argv[*i]; 0 when taken, else an exit status. */
static int long_option(Options *o, int argc, char **argv, int *i)
{
    const char *arg = argv[*i] + 2, *eq = strchr(arg, '=');
    size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
    for (size_t k = 0; k < sizeof long_options / sizeof *long_options; k++) {
        const LongOption *lo = &long_options[k];
        if (strlen(lo->name) != n || strncmp(lo->name, arg, n))
            continue;
        char *field = (char *)o + lo->field;
        if (!lo->takes_value) {
            if (eq)
                return usage_error("option '--%s' takes no value", lo->name);
            *(bool *)field = true;
            return 0;
        }
        const char *v = eq ? eq + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
        if (!v)
            return usage_error("option '--%s' needs a value", lo->name);
        *(const char **)field = v;
        return 0;
    }
    /* --arch is what other compilers call it. */
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)(n < 31 ? n : 31), arg);
    const char *cands[sizeof long_options / sizeof *long_options];
    for (size_t k = 0; k < sizeof long_options / sizeof *long_options; k++)
        cands[k] = long_options[k].name;
    const char *near = !strcmp(name, "arch") ? "target"
                                             : nearest(name, cands, sizeof cands / sizeof *cands);
    return unknown_error("option", argv[*i], "--", near);
}

static bool is_command(const char *c)
{
    return !strcmp(c, "print") || !strcmp(c, "check") || !strcmp(c, "opt") ||
           !strcmp(c, "build") || !strcmp(c, "layout");
}

/* "64M" (K, M and G multiply by 1024, 1024^2, 1024^3) in bytes; 0 when
 * malformed or past SIZE_MAX / 2 (so limit + 1 cannot wrap). */
static size_t parse_size(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = !*end ? 0 : !strcmp(end, "K") ? 10 : !strcmp(end, "M") ? 20
                                        : !strcmp(end, "G") ? 30 : -1;
    if (end == s || *s == '-' || errno || shift < 0 || v > (SIZE_MAX / 2 >> shift))
        return 0;
    return (size_t)v << shift;
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
            int rc = long_option(o, argc, argv, &i);
            if (rc)
                return rc;
        } else if (!strcmp(a, "-Xnvrtc")) {
            if (i + 1 >= argc)
                return usage_error("%s needs an NVRTC option", "-Xnvrtc");
            if (o->n_nvrtc_options == MAX_NVRTC_OPTIONS)
                return usage_error("too many -Xnvrtc options (at most %s)", "256");
            o->nvrtc_options[o->n_nvrtc_options++] = argv[++i];
        } else if (!strncmp(a, "-I", 2)) {
            const char *v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v)
                return usage_error("%s needs a directory", "-I");
            if (o->n_import_dirs == MAX_IMPORT_DIRS)
                return usage_error("too many -I directories (at most %s)", "256");
            o->import_dirs[o->n_import_dirs++] = v;
        } else if (!strcmp(a, "-o")) {
            if (i + 1 >= argc)
                return usage_error("%s needs a file name", "-o");
            o->output = argv[++i];
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
    if (!is_command(o->command)) {
        static const char *const commands[] = {"print", "check", "opt",  "build",
                                               "layout", "bench", "sim"};
        return unknown_error("command", o->command, "",
                             nearest(o->command, commands, sizeof commands / sizeof *commands));
    }
    if (!o->file && !strcmp(o->command, "layout"))
        return usage_error("%s", "layout: missing LAYOUT");
    if (!o->file)
        return usage_error("%s: missing FILE", o->command);
    o->input_limit = TIRX_MAX_INPUT_SIZE_DEFAULT;
    if (o->max_input_size && !(o->input_limit = parse_size(o->max_input_size)))
        return usage_error("--max-input-size takes a positive number of bytes with an optional "
                           "K, M or G suffix, not '%s'", o->max_input_size);
    return -1;
}

/* Reads all of f into *buf (grown as needed) but stops after limit + 1 bytes,
 * so an endless input (/dev/zero) costs bounded time and memory. The bytes
 * read; *failed when a read failed or memory ran out. */
static size_t read_capped(FILE *f, size_t limit, char **buf, bool *failed)
{
    size_t cap = 0, n = 0, got;
    do {
        if (n == cap) {
            size_t want = cap ? cap * 2 : 1 << 16;
            char *nb = realloc(*buf, want < limit + 1 ? want : limit + 1);
            if (!nb) {
                *failed = true;
                return n;
            }
            *buf = nb, cap = want < limit + 1 ? want : limit + 1;
        }
        got = fread(*buf + n, 1, cap - n, f);
        n += got;
    } while (got > 0 && n <= limit);
    *failed = ferror(f) != 0;
    return n;
}

char *tool_read_input(const char *path, size_t limit, size_t *len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        fprintf(stderr, "tirx: cannot open '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    bool failed = false;
    errno = 0;
    size_t n = read_capped(f, limit, &buf, &failed);
    int read_errno = errno; /* e.g. EISDIR: a directory opens but does not read */
    if (f != stdin)
        fclose(f);
    if (failed || n > limit) {
        if (failed)
            fprintf(stderr, "tirx: cannot read '%s'%s%s\n", path, read_errno ? ": " : "",
                    read_errno ? strerror(read_errno) : "");
        else
            fprintf(stderr, "tirx: '%s' is larger than the input size limit of %zu bytes "
                    "(--max-input-size raises it)\n", path, limit);
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

/* --print-after: the module after a pass, on stderr. */
static void print_after_pass(void *user, const char *pass, const char *text)
{
    (void)user;
    fprintf(stderr, "# IR after %s\n%s\n", pass, text);
}

static tirx_options lowering_options(const Options *o)
{
    tirx_options t = {.arch = o->target, .fast_math = o->fast_math, .lineinfo = o->lineinfo,
                      .use_nvcc = o->nvcc, .verify_each = o->verify_each,
                      .print_after = o->print_after, .print_fn = print_after_pass,
                      .nvrtc_options = o->nvrtc_options, .n_nvrtc_options = o->n_nvrtc_options,
                      .max_input_size = o->input_limit, .trace = o->trace,
                      .import_dirs = o->import_dirs, .n_import_dirs = o->n_import_dirs};
    return t;
}

static tirx_status print_module(const tirx_module *m)
{
    char *out = tirx_print(m);
    if (!out)
        return TIRX_ERR_INTERNAL;
    fputs(out, stdout);
    fputc('\n', stdout);
    tirx_free(out);
    return TIRX_OK;
}

/* tirx opt [--passes=A,B] FILE: the IR after the passes. */
static tirx_status run_opt(const Options *o, tirx_module *m)
{
    tirx_options t = lowering_options(o);
    tirx_status st = tirx_lower(m, o->passes, &t);
    print_diags(m);
    return st == TIRX_OK ? print_module(m) : st;
}

/* "8,16" into at most `max` integers; false when malformed. */
static bool int_list(const char *s, long long *out, int max, int *n)
{
    for (*n = 0; *n < max;) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (end == s || errno || (*end && *end != ','))
            return false;
        out[(*n)++] = v;
        if (!*end)
            return true;
        s = end + 1;
    }
    return false;
}

/* tirx layout LAYOUT --shape D0,D1 [--at I0,I1] [--dtype T] */
static int run_layout(const Options *o)
{
    long long shape[16], at[16];
    int nd, na;
    if (!o->shape)
        return usage_error("%s", "layout: --shape is required (e.g. --shape 8,16)");
    if (!int_list(o->shape, shape, 16, &nd))
        return usage_error("layout: malformed --shape '%s' (e.g. --shape 8,16)", o->shape);
    if (o->at && (!int_list(o->at, at, 16, &na) || na != nd))
        return usage_error("layout: --at '%s' needs one integer per dimension of --shape", o->at);
    char *out = NULL;
    tirx_module *m = NULL;
    tirx_status st = tirx_layout_describe(o->file, shape, nd, o->at ? at : NULL, o->dtype, &out, &m);
    print_diags(m);
    if (out)
        fputs(out, stdout);
    tirx_free(out);
    tirx_module_free(m);
    return st;
}

/* Writes `n` bytes to -o OUT, or to stdout; an output that cannot be written
 * is exit status 1, as an input that cannot be read. */
static tirx_status write_output(const Options *o, const void *data, size_t n)
{
    FILE *f = o->output ? fopen(o->output, "wb") : stdout;
    if (!f) {
        fprintf(stderr, "tirx: cannot write '%s': %s\n", o->output, strerror(errno));
        return TIRX_ERR_INPUT;
    }
    bool ok = fwrite(data, 1, n, f) == n;
    if (f != stdout)
        ok &= fclose(f) == 0;
    if (!ok) {
        fprintf(stderr, "tirx: cannot write '%s'\n", o->output ? o->output : "<stdout>");
        return TIRX_ERR_INPUT;
    }
    return TIRX_OK;
}

/* --stats: each kernel's registers, spills and shared memory, on stderr. */
static void print_stats(const tirx_module *m)
{
    for (size_t i = 0; i < tirx_kernel_count(m); i++) {
        tirx_kernel_stats k;
        tirx_kernel_stats_get(m, i, &k);
        fprintf(stderr, "%s: %d registers, ", k.name, k.registers);
        if (k.spill_store_bytes >= 0)
            fprintf(stderr, "%d B spill stores, %d B spill loads, ", k.spill_store_bytes,
                    k.spill_load_bytes);
        else
            fprintf(stderr, "spills unknown, ");
        fprintf(stderr, "%d B stack, %d B static shared memory, ", k.stack_bytes, k.smem_bytes);
        if (k.dyn_smem_bytes >= 0)
            fprintf(stderr, "%lld B dynamic shared memory\n", k.dyn_smem_bytes);
        else
            fprintf(stderr, "dynamic shared memory set at launch\n");
    }
}

/* ptxas's performance-loss notes (serialized wgmma, ...) as warnings: a
 * kernel that builds may still have lost what it was written for. ptxas's
 * reason for serializing wgmma may name a symptom (register resources)
 * rather than the cause in the source, so a note lists the usual causes. */
void tool_print_perf_loss(const tirx_module *m)
{
    for (size_t i = 0; i < tirx_kernel_count(m); i++) {
        tirx_kernel_stats k;
        tirx_kernel_stats_get(m, i, &k);
        if (!k.perf_loss)
            continue;
        fprintf(stderr, "warning: %s: ptxas: potential performance loss: %s\n", k.name,
                k.perf_loss);
        if (strstr(k.perf_loss, "wgmma.mma_async instructions are serialized"))
            fprintf(stderr,
                    "note: %s: ptxas keeps wgmma products in flight together only when the "
                    "same groups are in flight on every path where control flow meets (after "
                    "an if, at a loop's back edge), no thread touches an accumulator before "
                    "its wait, and every product into one accumulator tile has one width "
                    "(docs/primitives.md, gemm_async)\n",
                    k.name);
        if (strstr(k.perf_loss, "'setmaxnreg' ignored"))
            fprintf(stderr,
                    "note: %s: every warp then keeps the registers the kernel is launched with, "
                    "whatever its role asks for (docs/language.md, warp roles)\n",
                    k.name);
        if (strstr(k.perf_loss, "insufficient register resources"))
            fprintf(stderr,
                    "note: %s: or the registers live beside the products in flight exceed "
                    "what a thread may have (its share of the launch's registers, or its "
                    "role's setmaxnreg count): fewer tiles live across the wgmma, or more "
                    "registers for this role\n",
                    k.name);
    }
}

static tirx_status emit(const Options *o, const tirx_module *m, const char *kind)
{
    if (!strcmp(kind, "cubin")) {
        size_t n;
        const void *cubin = tirx_module_cubin(m, &n);
        return cubin ? write_output(o, cubin, n) : TIRX_ERR_INTERNAL;
    }
    if (!strcmp(kind, "sass") || !strcmp(kind, "sass-lines")) {
        char *sass = NULL;
        tirx_error err;
        tirx_status st = !strcmp(kind, "sass") ? tirx_module_sass(m, &sass, &err)
                                                : tirx_module_sass_lines(m, &sass, &err);
        if (st != TIRX_OK)
            fprintf(stderr, "error: %s\n", err.message);
        else
            st = write_output(o, sass, strlen(sass));
        tirx_free(sass);
        return st;
    }
    char *host = !strcmp(kind, "host") ? tirx_module_host(m) : NULL;
    const char *text = host ? host : !strcmp(kind, "ptx") ? tirx_module_ptx(m) : tirx_module_cuda(m);
    tirx_status st = text ? write_output(o, text, strlen(text)) : TIRX_ERR_INTERNAL;
    if (st == TIRX_OK && host && !o->output)
        fputc('\n', stdout);
    tirx_free(host);
    return st;
}

/* What build emits without --emit: what -o's extension names (.cubin,
 * .ptx, .sass), else the CUDA. */
static const char *default_emit(const char *output)
{
    static const char *const kinds[] = {"cubin", "ptx", "sass"};
    const char *dot = output ? strrchr(output, '.') : NULL;
    for (size_t i = 0; dot && i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(dot + 1, kinds[i]))
            return kinds[i];
    return "cuda";
}

/* tirx build FILE --target ARCH [--emit KIND] [-o OUT], and tirx check FILE
 * --target ARCH: the same up to the CUDA, which is neither compiled nor shown. */
static tirx_status run_build(const Options *o, const char *text, size_t len, const char *name)
{
    bool check = !strcmp(o->command, "check");
    const char *kind = o->emit ? o->emit : default_emit(o->output);
    if (!o->target)
        return usage_error("%s: --target is required (sm_80, sm_90a or sm_100a)", "build");
    if (strcmp(kind, "cuda") && strcmp(kind, "ptx") && strcmp(kind, "cubin") &&
        strcmp(kind, "sass") && strcmp(kind, "sass-lines") && strcmp(kind, "host"))
        return usage_error("--emit takes cuda, ptx, cubin, sass, sass-lines or host, not '%s'",
                           kind);
    if (!strcmp(kind, "cubin") && !o->output)
        return usage_error("%s", "--emit cubin needs -o OUT");
    tirx_options t = lowering_options(o);
    t.want_ptx = !strcmp(kind, "ptx");
    if (!strcmp(kind, "sass-lines"))
        t.lineinfo = 1; /* its marks come from the line table */
    t.no_binary = check || (!o->stats && (!strcmp(kind, "cuda") || !strcmp(kind, "host")));
    tirx_module *m = NULL;
    tirx_status st = tirx_compile(text, len, name, o->defines, o->ndefines, &t, &m);
    print_diags(m);
    if (st == TIRX_OK && !check)
        tool_print_perf_loss(m);
    if (st == TIRX_OK && o->stats && !check)
        print_stats(m);
    if (st == TIRX_OK && !check)
        st = emit(o, m, kind);
    tirx_module_free(m);
    return st;
}

static int run(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "bench"))
        return bench_main(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "sim"))
        return tool_sim_main(argc - 1, argv + 1);
    Options o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0)
        return rc;
    if (!strcmp(o.command, "layout"))
        return run_layout(&o);
    size_t len;
    char *text = tool_read_input(o.file, o.input_limit, &len);
    if (!text)
        return TIRX_ERR_INPUT;
    const char *name = strcmp(o.file, "-") ? o.file : "<stdin>";
    if (!strcmp(o.command, "build") || (!strcmp(o.command, "check") && o.target)) {
        tirx_status bst = run_build(&o, text, len, name);
        free(text);
        return bst;
    }
    tirx_module *m = NULL;
    tirx_options t = lowering_options(&o);
    tirx_status st = tirx_parse_with(text, len, name, o.defines, o.ndefines, &t, &m);
    free(text);
    if (st == TIRX_OK)
        st = tirx_verify(m);
    if (st == TIRX_OK && !strcmp(o.command, "opt")) {
        st = run_opt(&o, m);
    } else {
        print_diags(m);
        if (st == TIRX_OK && !strcmp(o.command, "print"))
            st = print_module(m);
    }
    tirx_module_free(m);
    return st;
}

/* Output that did not reach stdout (a full disk, a closed pipe) is an error,
 * whatever the command: buffered writes fail only at the final flush. */
int main(int argc, char **argv)
{
    int rc = run(argc, argv);
    if (rc == TIRX_ERR_NOMEM) {
        fprintf(stderr, "tirx: out of memory\n");
        rc = TIRX_ERR_INTERNAL;
    }
    int err = fflush(stdout) ? errno : ferror(stdout) ? EIO : 0;
    if (err) {
        fprintf(stderr, "tirx: cannot write <stdout>: %s\n", strerror(err));
        return rc ? rc : TIRX_ERR_INPUT;
    }
    return rc;
}
