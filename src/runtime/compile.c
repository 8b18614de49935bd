/* Compiling CUDA C++ to a cubin: the option list each compiler gets (one
 * function builds it, and the cache key hashes exactly that list), the
 * in-process NVRTC compile with the in-memory headers (an NVSHMEM module's
 * compile and link is link.c's), the cache lookup before a compile and the
 * store after it, and the parse of ptxas's -v report into per-kernel
 * register, shared memory, stack and spill figures, completed from the cubin
 * (cubin.c) for the kernels the log does not report. */
#define _GNU_SOURCE /* dladdr */
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/base.h"
#include "internal.h"

/* ---- architectures and options ---- */

RtStatus rt_arch_check(const char *arch, RtError *err)
{
    const char *p = arch && strncmp(arch, "sm_", 3) == 0 ? arch + 3 : NULL;
    size_t digits = p ? strspn(p, "0123456789") : 0;
    bool ok = digits >= 2 && digits <= 3 &&
              (p[digits] == '\0' || ((p[digits] == 'a' || p[digits] == 'f') && !p[digits + 1]));
    if (ok)
        return RT_OK;
    return rt_fail(err, RT_ERR_USAGE,
                   "unknown architecture '%s' (expected a real target such as sm_80, sm_90a, "
                   "sm_100a)", arch ? arch : "(none)");
}

void rt_opt_push(RtOptList *l, const char *fmt, const char *arg)
{
    TxBuf b = {0};
    tx_buf_printf(&b, fmt, arg);
    tx_vec_push(l, tx_buf_take(&b));
}

void rt_opt_list_free(RtOptList *l)
{
    for (int i = 0; i < l->len; i++)
        free(l->items[i]);
    tx_vec_free(l);
}

/* The options that decide the output, in the compiler's spelling (nvcc
 * additionally gets -cubin, -o and the include directory of the headers). */
static void build_options(const RtCompileOptions *o, RtOptList *l)
{
    if (o->compiler == RT_NVCC) {
        TxBuf b = {0};
        tx_buf_printf(&b, "-gencode=arch=compute_%s,code=%s", o->arch + 3, o->arch);
        tx_vec_push(l, tx_buf_take(&b));
    } else {
        rt_opt_push(l, "--gpu-architecture=%s", o->arch);
        rt_opt_push(l, "%s", "-default-device");
        rt_opt_push(l, "%s", "--device-int128"); /* uint128, a PTX .b128 operand (nvcc has it) */
    }
    rt_opt_push(l, "%s", "--std=c++17");
    /* generated code leaves variables unused (a register tile's elements, a
     * let no branch reads): not worth a log line each */
    rt_opt_push(l, "%s", "--diag-suppress=177");
    rt_opt_push(l, "%s", "--ptxas-options=-v");
    if (o->lineinfo)
        rt_opt_push(l, "%s", "-lineinfo");
    if (o->fast_math)
        rt_opt_push(l, "%s", "--use_fast_math");
    if (o->nvshmem) { /* LTO IR, linked with the NVSHMEM shim and device library (link.c) */
        rt_opt_push(l, "%s", "-rdc=true");
        rt_opt_push(l, "%s", "-dlto");
    }
    for (size_t i = 0; i < o->ndefines; i++)
        rt_opt_push(l, "-D%s", o->defines[i]);
    for (size_t i = 0; i < o->nextra; i++)
        rt_opt_push(l, "%s", o->extra[i]);
}

static RtStatus check_options(const RtCompileOptions *o, RtError *err)
{
    RtStatus s = rt_arch_check(o->arch, err);
    if (s == RT_OK && o->nvshmem && (o->compiler != RT_NVRTC || !o->nvshmem_shim))
        s = rt_fail(err, RT_ERR_USAGE, o->nvshmem_shim ? "a module that uses NVSHMEM compiles "
                                                         "with NVRTC and nvJitLink, not nvcc"
                                                       : "NVSHMEM needs the shim's source");
    for (size_t i = 0; s == RT_OK && i < o->nheaders; i++) {
        const char *name = o->headers[i].name;
        if (!name || !*name || strchr(name, '/') || strcmp(name, ".") == 0 ||
            strcmp(name, "..") == 0 || !o->headers[i].text)
            s = rt_fail(err, RT_ERR_USAGE, "header %zu: '%s' is not a plain file name with a text",
                        i, name ? name : "(null)");
    }
    return s;
}

/* ---- toolkit identity ---- */

static void add_file_identity(TxBuf *b, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0)
        tx_buf_printf(b, " %s %lld %lld.%09ld %llu", path, (long long)st.st_size,
                      (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                      (unsigned long long)st.st_ino);
}

RtStatus rt_toolkit_id(const RtCompileOptions *o, char *buf, size_t size, RtError *err)
{
    TxBuf b = {0};
    if (o->compiler == RT_NVCC) {
        char path[4096];
        RtStatus s = rt_nvcc_path(o, path, sizeof path, err);
        if (s != RT_OK)
            return s;
        tx_buf_puts(&b, "nvcc");
        add_file_identity(&b, path);
    } else {
        const RtNvrtc *nv;
        RtStatus s = rt_nvrtc(&nv, err);
        if (s != RT_OK)
            return s;
        Dl_info info;
        void *fn;
        memcpy(&fn, &nv->nvrtcVersion, sizeof fn);
        tx_buf_printf(&b, "nvrtc %d.%d", nv->major, nv->minor);
        if (dladdr(fn, &info) && info.dli_fname)
            add_file_identity(&b, info.dli_fname);
    }
    char *id = tx_buf_take(&b);
    snprintf(buf, size, "%s", id);
    free(id);
    return RT_OK;
}

/* ---- the cache ---- */

static RtStatus compile_key(const char *source, const RtCompileOptions *o, const RtOptList *opts,
                            RtDigest *key, RtError *err)
{
    char toolkit[4096 + 128];
    RtStatus s = rt_toolkit_id(o, toolkit, sizeof toolkit, err);
    if (s != RT_OK)
        return s;
    RtKey k;
    rt_key_init(&k);
    rt_key_add_str(&k, "compile.toolkit", toolkit);
    rt_key_add_str(&k, "compile.name", o->name);
    rt_key_add_int(&k, "compile.want_ptx", o->want_ptx);
    rt_key_add_str(&k, "compile.source", source);
    for (size_t i = 0; i < o->nheaders; i++) {
        rt_key_add_str(&k, "compile.header.name", o->headers[i].name);
        rt_key_add_str(&k, "compile.header.text", o->headers[i].text);
    }
    for (int i = 0; i < opts->len; i++)
        rt_key_add_str(&k, "compile.option", opts->items[i]);
    if (o->nvshmem)
        s = rt_nvshmem_key(o, &k, err);
    *key = rt_key_final(&k);
    return s;
}

/* A heap copy of n bytes, NUL-terminated. */
static void *copy_bytes(const void *p, size_t n)
{
    char *q = calloc(1, n + 1);
    if (n)
        memcpy(q, p, n);
    return q;
}

static bool binary_from_cache(const RtCache *c, const RtDigest *key, bool want_ptx, RtBinary *out)
{
    RtCacheEntry e;
    if (!rt_cache_get(c, key, &e))
        return false;
    const RtBlob *cubin = rt_cache_entry_find(&e, "cubin"), *log = rt_cache_entry_find(&e, "log");
    const RtBlob *ptx = rt_cache_entry_find(&e, "ptx");
    bool ok = cubin && cubin->size > 0 && log && (!want_ptx || (ptx && ptx->size > 0));
    if (ok) {
        out->cubin = copy_bytes(cubin->data, cubin->size);
        out->cubin_size = cubin->size;
        out->log = copy_bytes(log->data, log->size);
        if (want_ptx) {
            out->ptx = copy_bytes(ptx->data, ptx->size);
            out->ptx_size = ptx->size;
        }
        out->cached = true;
    }
    rt_cache_entry_free(&e);
    return ok;
}

static void binary_to_cache(const RtCache *c, const RtDigest *key, const RtBinary *b)
{
    RtBlob blobs[3] = {
        {"cubin", b->cubin, b->cubin_size},
        {"log", b->log, strlen(b->log)},
        {"ptx", b->ptx, b->ptx_size},
    };
    /* A cache that cannot be written only costs the next compile its hit. */
    rt_cache_put(c, key, blobs, b->ptx ? 3 : 2, NULL);
}

/* ---- NVRTC ---- */

/* `what` within the n bytes of a log line, or NULL: a search that ends with
 * the line (a strstr from each line of a long log would read the rest of it). */
static const char *in_line(const char *line, size_t n, const char *what)
{
    size_t w = strlen(what);
    for (const char *p = line; p + w <= line + n; p++)
        if (memcmp(p, what, w) == 0)
            return p;
    return NULL;
}

/* The first line of the log that reports an error, for the one-line message. */
static void first_error_line(const char *log, char *buf, size_t size)
{
    const char *line = log, *stop = log ? log + strlen(log) : NULL;
    buf[0] = '\0';
    while (line && *line) {
        const char *end = memchr(line, '\n', (size_t)(stop - line));
        size_t n = end ? (size_t)(end - line) : (size_t)(stop - line);
        if (in_line(line, n, "error")) {
            snprintf(buf, size, ": %.*s", (int)n, line);
            return;
        }
        line = end ? end + 1 : NULL;
    }
}

/* NVRTC leaves ptxas's reason for failing ("uses too much shared data") out
 * of its log; nvcc's ptxas prints it. The first error line of an nvcc compile
 * of the same source into buf, when nvcc is there; else an empty string. */
static void ptxas_reason(const char *source, const RtCompileOptions *o, char *buf, size_t size)
{
    RtCompileOptions with_nvcc = *o;
    with_nvcc.compiler = RT_NVCC, with_nvcc.want_ptx = false, with_nvcc.nextra = 0;
    RtOptList opts = {0};
    build_options(&with_nvcc, &opts);
    RtBinary bin = {0};
    buf[0] = '\0';
    if (rt_nvcc_compile(source, &with_nvcc, (const char *const *)opts.items, (size_t)opts.len,
                        &bin, NULL) == RT_ERR_COMPILE && bin.log)
        first_error_line(bin.log, buf, size);
    rt_binary_free(&bin);
    rt_opt_list_free(&opts);
}

static RtStatus nvrtc_result(RtStatus s, const char *source, const RtCompileOptions *o,
                             const char *log, RtError *err)
{
    char first[400];
    first_error_line(log, first, sizeof first);
    if (!first[0] && s == RT_ERR_COMPILE && strstr(log, "ptxas"))
        ptxas_reason(source, o, first, sizeof first);
    return rt_fail(err, s, "NVRTC could not compile %s for %s%s", o->name ? o->name : "tirx.cu",
                   o->arch, first);
}

static char *nvrtc_log(const RtNvrtc *nv, nvrtcProgram prog)
{
    size_t n = 0;
    if (nv->nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n == 0)
        n = 1;
    char *log = calloc(1, n);
    if (n > 1 && nv->nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS)
        log[0] = '\0';
    return log;
}

static RtStatus nvrtc_outputs(const RtNvrtc *nv, nvrtcProgram prog, const RtCompileOptions *o,
                              RtBinary *out, RtError *err)
{
    nvrtcResult r = nv->nvrtcGetCUBINSize(prog, &out->cubin_size);
    if (r == NVRTC_SUCCESS && out->cubin_size > 0) {
        out->cubin = malloc(out->cubin_size);
        r = nv->nvrtcGetCUBIN(prog, (char *)out->cubin);
    }
    if (r == NVRTC_SUCCESS && o->want_ptx && nv->nvrtcGetPTXSize(prog, &out->ptx_size) == NVRTC_SUCCESS) {
        out->ptx = malloc(out->ptx_size);
        r = nv->nvrtcGetPTX(prog, out->ptx);
    }
    if (r != NVRTC_SUCCESS || !out->cubin || (o->want_ptx && !out->ptx))
        return rt_fail(err, RT_ERR_CUDA, "NVRTC gave no %s for %s: %s", out->cubin ? "PTX" : "cubin",
                       o->arch, nv->nvrtcGetErrorString(r));
    return RT_OK;
}

RtStatus rt_nvrtc_program(const RtNvrtc *nv, const char *source, const RtCompileOptions *o,
                          const char *const *opts, int nopts, nvrtcProgram *prog, char **log,
                          RtError *err)
{
    *log = NULL;
    const char **names = calloc(o->nheaders + 1, sizeof *names);
    const char **texts = calloc(o->nheaders + 1, sizeof *texts);
    for (size_t i = 0; i < o->nheaders; i++) {
        names[i] = o->headers[i].name;
        texts[i] = o->headers[i].text;
    }
    nvrtcResult r = nv->nvrtcCreateProgram(prog, source, o->name ? o->name : "tirx.cu",
                                           (int)o->nheaders, texts, names);
    free(names);
    free(texts);
    if (r != NVRTC_SUCCESS)
        return rt_fail(err, RT_ERR_CUDA, "nvrtcCreateProgram failed: %s", nv->nvrtcGetErrorString(r));
    r = nv->nvrtcCompileProgram(*prog, nopts, opts);
    *log = nvrtc_log(nv, *prog);
    RtStatus s = RT_OK;
    if (r == NVRTC_ERROR_COMPILATION)
        s = nvrtc_result(RT_ERR_COMPILE, source, o, *log, err);
    else if (r == NVRTC_ERROR_INVALID_OPTION)
        s = nvrtc_result(RT_ERR_USAGE, source, o, *log, err);
    else if (r != NVRTC_SUCCESS)
        s = rt_fail(err, RT_ERR_CUDA, "nvrtcCompileProgram failed: %s", nv->nvrtcGetErrorString(r));
    if (s != RT_OK)
        nv->nvrtcDestroyProgram(prog);
    return s;
}

static RtStatus nvrtc_compile(const char *source, const RtCompileOptions *o, const RtOptList *opts,
                              RtBinary *out, RtError *err)
{
    const RtNvrtc *nv;
    RtStatus s = rt_nvrtc(&nv, err);
    if (s != RT_OK)
        return s;
    nvrtcProgram prog;
    s = rt_nvrtc_program(nv, source, o, (const char *const *)opts->items, opts->len, &prog,
                         &out->log, err);
    if (s == RT_OK) {
        s = nvrtc_outputs(nv, prog, o, out, err);
        nv->nvrtcDestroyProgram(&prog);
    }
    return s;
}

/* ---- the entry point ---- */

RtStatus rt_compile(const char *source, const RtCompileOptions *o, RtBinary *out, RtError *err)
{
    memset(out, 0, sizeof *out);
    RtStatus s = check_options(o, err);
    if (s != RT_OK)
        return s;
    RtOptList opts = {0};
    build_options(o, &opts);
    RtDigest key;
    if (o->cache)
        s = compile_key(source, o, &opts, &key, err);
    if (s == RT_OK && !(o->cache && binary_from_cache(o->cache, &key, o->want_ptx, out))) {
        const char *const *items = (const char *const *)opts.items;
        s = o->compiler == RT_NVCC ? rt_nvcc_compile(source, o, items, (size_t)opts.len, out, err)
            : o->nvshmem          ? rt_nvshmem_compile(source, o, items, opts.len, out, err)
                                  : nvrtc_compile(source, o, &opts, out, err);
        if (s == RT_OK && o->cache)
            binary_to_cache(o->cache, &key, out);
    }
    rt_opt_list_free(&opts);
    rt_kernel_stats(out->log, source, out->cubin, out->cubin_size, &out->kernels,
                    &out->nkernels);
    if (s != RT_OK) {
        free(out->cubin);
        free(out->ptx);
        out->cubin = NULL;
        out->ptx = NULL;
        out->cubin_size = out->ptx_size = 0;
    }
    return s;
}

void rt_binary_free(RtBinary *b)
{
    free(b->cubin);
    free(b->ptx);
    free(b->log);
    rt_kernel_stats_free(b->kernels, b->nkernels);
    memset(b, 0, sizeof *b);
}

/* ---- ptxas -v ---- */

/* One comma-separated item of a "Used N registers, ..." line. */
static void parse_usage_item(const char *item, RtKernelStats *k)
{
    int v;
    if (strstr(item, "register") && sscanf(item, " Used %d", &v) == 1)
        k->registers = v;
    else if (strstr(item, "barrier") && sscanf(item, " used %d", &v) == 1)
        k->barriers = v;
    else if (strstr(item, "bytes smem") && sscanf(item, " %d", &v) == 1)
        k->smem_bytes = v;
}

static void parse_usage_line(const char *line, size_t n, RtKernelStats *k)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%.*s", (int)n, line);
    char *item = strstr(buf, "Used ");
    while (item) {
        char *comma = strchr(item, ',');
        if (comma)
            *comma = '\0';
        parse_usage_item(item, k);
        item = comma ? comma + 1 : NULL;
    }
}

/* The quoted or trailing name after `marker` on the line, into buf. */
static bool name_after(const char *line, size_t n, const char *marker, char *buf, size_t size)
{
    const char *hit = in_line(line, n, marker);
    if (!hit)
        return false;
    const char *p = hit + strlen(marker), *end = line + n;
    if (*p == '\'')
        p++;
    size_t len = 0;
    while (p + len < end && p[len] != '\'' && !isspace((unsigned char)p[len]))
        len++;
    snprintf(buf, size, "%.*s", (int)len, p);
    return len > 0;
}

/* A line `(C7514) Potential Performance Loss: TEXT in the function 'NAME'`
 * (C7512 says "for the function"): TEXT (heap) and NAME into buf; NULL for
 * any other line. */
static char *perf_loss_line(const char *line, size_t n, char *buf, size_t size)
{
    static const char marker[] = "Potential Performance Loss: ";
    static const char *const tails[] = {" in the function ", " for the function "};
    char text[1024];
    if (n >= sizeof text) /* cut short, it could lose its function's name */
        return NULL;
    snprintf(text, sizeof text, "%.*s", (int)n, line);
    char *hit = strstr(text, marker);
    if (!hit)
        return NULL;
    char *body = hit + strlen(marker), *end = NULL;
    for (size_t i = 0; i < sizeof tails / sizeof *tails && !end; i++)
        if ((end = strstr(body, tails[i])) &&
            !name_after(end, strlen(end), tails[i] + 1, buf, size))
            end = NULL;
    if (!end) { /* a note for no function ("'setmaxnreg' ignored ..."): name "" */
        buf[0] = 0;
        end = body + strlen(body);
        while (end > body && (end[-1] == '.' || isspace((unsigned char)end[-1])))
            end--;
    }
    while (end > body && end[-1] == ' ')
        end--;
    return end > body ? strndup(body, (size_t)(end - body)) : NULL;
}

/* Whether kernel `name`'s definition in the CUDA `source` (a __global__
 * whose signature, before its first '{', holds " name(", up to the next
 * __global__) holds `word`; true without a source or when the kernel is not
 * found there, so that a note is kept. */
static bool kernel_mentions(const char *source, const char *name, const char *word)
{
    size_t n = strlen(name), w = strlen(word);
    for (const char *g = source ? strstr(source, "__global__") : NULL; g;
         g = strstr(g + 1, "__global__")) {
        const char *next = strstr(g + 1, "__global__");
        const char *stop = next ? next : g + strlen(g);
        const char *body = strchr(g, '{');
        if (body && body < stop)
            stop = body; /* the signature only: not a call in the body */
        for (const char *h = strstr(g, name); h && h < stop; h = strstr(h + 1, name)) {
            if (h == source || h[-1] != ' ' || h[n] != '(')
                continue;
            const char *end = next ? next : h + strlen(h);
            for (const char *q = h; q + w <= end; q++)
                if (strncmp(q, word, w) == 0)
                    return true;
            return false;
        }
    }
    return true;
}

void rt_parse_ptxas_log(const char *log, const char *source, RtKernelStats **out, size_t *n)
{
    TX_VEC(RtKernelStats) v = {0};
    char name[256];
    /* notes come before the kernels they name: kept, then attached */
    struct {
        char *text;
        char name[256];
    } notes[16];
    int nnotes = 0;
    bool in_properties = false; /* the "Function properties" block is the current kernel's */
    /* memchr within what is left: a strchr per line reads (under ASan's strict
     * string checks) the rest of the log each time */
    const char *stop = log ? log + strlen(log) : NULL;
    for (const char *line = log; line && *line;) {
        const char *end = memchr(line, '\n', (size_t)(stop - line));
        size_t len = end ? (size_t)(end - line) : (size_t)(stop - line);
        RtKernelStats *cur = v.len ? &v.items[v.len - 1] : NULL;
        char *note = nnotes < 16 ? perf_loss_line(line, len, notes[nnotes].name,
                                                  sizeof notes[nnotes].name)
                                 : NULL;
        bool again = false; /* a note for no function, already kept */
        for (int i = 0; note && !notes[nnotes].name[0] && i < nnotes && !again; i++)
            again = !notes[i].name[0] && strcmp(notes[i].text, note) == 0;
        if (again) {
            free(note);
        } else if (note) {
            notes[nnotes++].text = note;
        } else if (name_after(line, len, "Compiling entry function ", name, sizeof name)) {
            RtKernelStats k = {.name = strdup(name)};
            tx_vec_push(&v, k);
        } else if (name_after(line, len, "Function properties for ", name, sizeof name)) {
            in_properties = cur && strcmp(cur->name, name) == 0;
        } else if (in_properties && in_line(line, len, "bytes stack frame")) {
            const char *digits = line; /* NVRTC writes "ptxas . N bytes ...", nvcc "N bytes ..." */
            while (digits < line + len && !isdigit((unsigned char)*digits))
                digits++;
            sscanf(digits, "%d bytes stack frame, %d bytes spill stores, %d bytes spill loads",
                   &cur->stack_bytes, &cur->spill_store_bytes, &cur->spill_load_bytes);
        } else if (cur && in_line(line, len, "Used ")) {
            parse_usage_line(line, len, cur);
        }
        line = end ? end + 1 : NULL;
    }
    /* a kernel's own notes first; then each for no function to every kernel
     * without a note whose source uses setmaxnreg (for a setmaxnreg note),
     * or, when none does, to every kernel without a note */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < nnotes; i++) {
            bool own = notes[i].name[0] != 0;
            if (own != (pass == 0))
                continue;
            bool only_users = false; /* to the kernels that use setmaxnreg */
            for (int j = 0; !own && j < v.len && !only_users; j++)
                only_users = strstr(notes[i].text, "setmaxnreg") &&
                             kernel_mentions(source, v.items[j].name, "setmaxnreg");
            for (int j = 0, given = 0; j < v.len && !(own && given); j++) {
                RtKernelStats *k = &v.items[j];
                if (k->perf_loss || (own && strcmp(k->name, notes[i].name) != 0) ||
                    (only_users && !kernel_mentions(source, k->name, "setmaxnreg")))
                    continue;
                k->perf_loss = strdup(notes[i].text);
                given = 1;
            }
            free(notes[i].text);
        }
    *out = v.items;
    *n = (size_t)v.len;
}

static bool reported(const RtKernelStats *k, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(k[i].name, name) == 0)
            return true;
    return false;
}

void rt_kernel_stats(const char *log, const char *source, const void *cubin, size_t cubin_size,
                     RtKernelStats **out, size_t *n)
{
    rt_parse_ptxas_log(log ? log : "", source, out, n);
    RtKernelStats *found;
    size_t nfound;
    if (!cubin || !rt_cubin_kernels(cubin, cubin_size, &found, &nfound))
        return;
    size_t nlog = *n;
    RtKernelStats *all = realloc(*out, (nlog + nfound + 1) * sizeof *all);
    for (size_t i = 0; i < nfound; i++) {
        if (all && !reported(all, nlog, found[i].name))
            all[(*n)++] = found[i];
        else
            free(found[i].name);
    }
    free(found);
    if (all)
        *out = all;
}

void rt_kernel_stats_free(RtKernelStats *k, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(k[i].name), free(k[i].perf_loss);
    free(k);
}
