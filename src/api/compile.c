/* tirx_compile: text -> passes -> CUDA -> cubin, behind a cache checked
 * after parsing (the key hashes the files the text imports, which only the
 * parse finds), before lowering. A cache entry keeps the cubin, the CUDA source, the
 * compiler's log (ptxas -v: the kernels' resource usage), the PTX when asked
 * for, and the host part of the lowered module printed as TIRx script: the
 * host functions and the kernels' signatures and launch attributes, which is
 * all a launch needs. On a hit that text is parsed instead of the input.
 * NVRTC gets tirx's options, then $TIRX_NVRTC_EXTRA_OPTS, then the caller's
 * nvrtc_options; the key hashes them all. Kernels that use NVSHMEM also get
 * its header and are linked with it (the runtime's link.c); the key of a text
 * that names NVSHMEM hashes the NVSHMEM found. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/visit.h"
#include "../script/script.h"
#include "../target/cuda/codegen.h"
#include "internal.h"

#define HOST_BLOB "host.tirx"

typedef TX_VEC(char *) Words;

typedef struct Job {
    tirx_module *m;
    const tirx_options *o;
    const char *text, *filename;
    size_t len;
    const tirx_define *defines;
    size_t ndefines;
    RtCompileOptions rt;
    RtHeader headers[2]; /* the prelude, and the NVSHMEM header when the kernels use it */
    RtNvshmem nvshmem;
    RtCache cache;
    RtDigest key;
    bool use_cache;
    Words extra; /* the NVRTC options after tirx's own */
    tirx_status status;
} Job;

static tirx_status from_rt(RtStatus s)
{
    switch (s) {
    case RT_OK: return TIRX_OK;
    case RT_ERR_USAGE: return TIRX_ERR_USAGE;
    case RT_ERR_COMPILE: return TIRX_ERR_INPUT;
    case RT_ERR_IO: return TIRX_ERR_INTERNAL;
    default: return TIRX_ERR_CUDA;
    }
}

/* Whether two architecture names agree but for case, '_' and a final 'a'. */
static bool same_arch(const char *a, const char *b)
{
    for (;; a++, b++) {
        while (*a == '_')
            a++;
        while (*b == '_')
            b++;
        if (!*a || !*b || tolower((unsigned char)*a) != tolower((unsigned char)*b))
            break;
    }
    return (!*a || ((*a == 'a' || *a == 'A') && !a[1])) && (!*b || (*b == 'a' && !b[1]));
}

/* An error without a source location, on the module. */
static tirx_status report(Job *j, tirx_status st, TxCode code, const char *msg)
{
    tx_error(&j->m->ir->diags, code, (TxSpan){0}, "%s", msg);
    return st;
}

/* A runtime failure: no toolkit or driver, a bad option, or the compiler's own failure. */
static tirx_status report_rt(Job *j, RtStatus s, const char *msg)
{
    tirx_status st = from_rt(s);
    TxCode code = st == TIRX_ERR_CUDA    ? TX_E_CUDA_UNAVAILABLE
                  : st == TIRX_ERR_USAGE ? TX_E_USAGE
                                         : TX_E_CUDA_COMPILE;
    return report(j, st, code, msg);
}

static char *dup_bytes(const void *p, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, p, n);
        d[n] = 0;
    }
    return d;
}

/* ---------------------------------------------------------------- the host part */

typedef struct SmemFind {
    const char *kernel;
    long long bytes;
} SmemFind;

static bool find_smem(IrVisitor *v, const IrExpr *e)
{
    SmemFind *f = v->ctx;
    if (e->kind == IR_E_CALL && e->u.call.op == IR_OP_CALL_PACKED && e->u.call.nargs >= 2 &&
        e->u.call.args[0]->kind == IR_E_STR && !strcmp(e->u.call.args[0]->u.str, f->kernel)) {
        const IrExpr *last = e->u.call.args[e->u.call.nargs - 1];
        f->bytes = last->kind == IR_E_INT ? last->u.int_val : -1;
    }
    return true;
}

/* The dynamic shared memory the host launches `kernel` with (-1: not constant). */
static long long dyn_smem_of(const IrModule *ir, const char *kernel)
{
    SmemFind f = {kernel, -1};
    IrVisitor v = {.ctx = &f, .expr = find_smem};
    for (int i = 0; i < ir->nfuncs; i++)
        if (!cg_is_kernel(ir->funcs[i]))
            ir_visit_func(&v, ir->funcs[i]);
    return f.bytes;
}

/* The module's host functions, and its kernels as signatures (with_kernels). */
static char *print_host_part(const IrModule *ir, bool with_kernels)
{
    IrModule view = *ir;
    IrFunc **funcs = calloc((size_t)ir->nfuncs + 1, sizeof *funcs);
    IrFunc *stubs = calloc((size_t)ir->nfuncs + 1, sizeof *stubs);
    IrExpr zero = {.kind = IR_E_INT, .dtype = IR_INT32};
    IrStmt stub_body = {.kind = IR_S_EVAL};
    stub_body.u.eval = &zero;
    int n = 0;
    for (int i = 0; funcs && stubs && i < ir->nfuncs; i++) {
        if (!cg_is_kernel(ir->funcs[i])) {
            funcs[n++] = ir->funcs[i];
        } else if (with_kernels) {
            stubs[i] = *ir->funcs[i];
            stubs[i].body = &stub_body;
            funcs[n++] = &stubs[i];
        }
    }
    view.funcs = funcs, view.nfuncs = n;
    view.is_ir_module = n > 1;
    char *text = funcs && stubs ? sc_print(&view) : NULL;
    free(funcs);
    free(stubs);
    return text;
}

typedef struct HostCall {
    const IrModule *ir;
    char *text;
} HostCall;

static void host_call(void *arg)
{
    HostCall *c = arg;
    c->text = print_host_part(c->ir, false);
}

char *tirx_module_host(const tirx_module *m)
{
    if (!m || !m->ir || m->ir->diags.nerrors)
        return NULL;
    HostCall c = {m->ir, NULL};
    return tx_guarded(host_call, &c) ? c.text : NULL;
}

/* ---------------------------------------------------------------- results */

static bool finish(tirx_module *m)
{
    ApiCompiled *c = m->compiled;
    int n = m->ir->nfuncs;
    c->functions = calloc((size_t)n + 1, sizeof *c->functions);
    c->dyn_smem = calloc(c->nkernels + 1, sizeof *c->dyn_smem);
    if (!c->functions || !c->dyn_smem)
        return false;
    for (int i = 0; i < n; i++)
        c->functions[i] = (tirx_function){m, m->ir->funcs[i]};
    for (size_t i = 0; i < c->nkernels; i++)
        c->dyn_smem[i] = dyn_smem_of(m->ir, c->kernels[i].name);
    return true;
}

static void take_binary(ApiCompiled *c, RtBinary *b)
{
    c->cubin = b->cubin, c->cubin_size = b->cubin_size;
    c->ptx = b->ptx, c->log = b->log;
    c->kernels = b->kernels, c->nkernels = b->nkernels;
    memset(b, 0, sizeof *b);
}

/* ---------------------------------------------------------------- the cache */

/* Whether the text or a file it imports names NVSHMEM: only such a module can
 * use it (a T.nvshmem op, or inline CUDA that calls it). */
static bool has_nvshmem(const char *text, size_t len)
{
    for (size_t i = 0; i + 7 <= len; i++)
        if (text[i] == 'n' && !memcmp(text + i, "nvshmem", 7))
            return true;
    return false;
}

static bool names_nvshmem(const Job *j)
{
    const IrModule *ir = j->m->ir;
    bool named = has_nvshmem(j->text, j->len);
    for (int i = 0; i < ir->nimports && !named; i++)
        named = has_nvshmem(ir->imports[i]->text, ir->imports[i]->len);
    return named;
}

/* The NVSHMEM a compile would link with (none found: a key of its own, and
 * the compile reports it). */
static void key_nvshmem(RtKey *k)
{
    RtNvshmem n;
    if (rt_nvshmem_find(&n, NULL) == RT_OK)
        rt_nvshmem_key_files(&n, k);
    else
        rt_key_add_str(k, "tirx.nvshmem", "none");
}

static tirx_status make_key(Job *j)
{
    char toolkit[1024];
    RtError err;
    RtStatus s = rt_toolkit_id(&j->rt, toolkit, sizeof toolkit, &err);
    if (s != RT_OK)
        return report_rt(j, s, err.message);
    RtKey k;
    rt_key_init(&k);
    rt_key_add_str(&k, "tirx.toolkit", toolkit);
    rt_key_add_str(&k, "tirx.arch", j->rt.arch);
    rt_key_add_str(&k, "tirx.filename", j->filename);
    rt_key_add(&k, "tirx.text", j->text, j->len);
    const IrModule *ir = j->m->ir;
    for (int i = 0; i < ir->nimports; i++) {
        rt_key_add_str(&k, "tirx.import.name", ir->imports[i]->name);
        rt_key_add(&k, "tirx.import.text", ir->imports[i]->text, ir->imports[i]->len);
    }
    for (size_t i = 0; i < j->ndefines; i++) {
        rt_key_add_str(&k, "tirx.define.name", j->defines[i].name);
        rt_key_add_str(&k, "tirx.define.value", j->defines[i].value);
    }
    for (int i = 0; i < j->extra.len; i++)
        rt_key_add_str(&k, "tirx.nvrtc_option", j->extra.items[i]);
    rt_key_add_int(&k, "tirx.fast_math", j->rt.fast_math);
    rt_key_add_int(&k, "tirx.trace", j->o->trace != 0);
    rt_key_add_int(&k, "tirx.lineinfo", j->rt.lineinfo);
    rt_key_add_int(&k, "tirx.want_ptx", j->rt.want_ptx);
    rt_key_add_int(&k, "tirx.compiler", j->rt.compiler);
    if (names_nvshmem(j))
        key_nvshmem(&k);
    j->key = rt_key_final(&k);
    return TIRX_OK;
}

/* A hit: the blobs into the module and the host part parsed. */
static bool from_cache(Job *j)
{
    RtCacheEntry e;
    if (!rt_cache_get(&j->cache, &j->key, &e))
        return false;
    const RtBlob *cubin = rt_cache_entry_find(&e, "cubin"), *cuda = rt_cache_entry_find(&e, "cuda");
    const RtBlob *log = rt_cache_entry_find(&e, "log"), *host = rt_cache_entry_find(&e, HOST_BLOB);
    const RtBlob *ptx = rt_cache_entry_find(&e, "ptx");
    bool ok = cubin && cuda && log && host && (!j->rt.want_ptx || ptx);
    IrModule *ir = ok ? sc_parse(host->data, host->size, j->filename, NULL, 0) : NULL;
    ok = ir && !ir->diags.nerrors;
    if (ok) {
        ApiCompiled *c = j->m->compiled;
        ir_module_free(j->m->ir);
        j->m->ir = ir;
        c->cubin = (unsigned char *)dup_bytes(cubin->data, cubin->size);
        c->cubin_size = cubin->size;
        c->cuda = dup_bytes(cuda->data, cuda->size);
        c->log = dup_bytes(log->data, log->size);
        c->ptx = ptx ? dup_bytes(ptx->data, ptx->size) : NULL;
        rt_kernel_stats(c->log, c->cuda, c->cubin, c->cubin_size, &c->kernels, &c->nkernels);
        c->cached = true;
    } else {
        ir_module_free(ir);
    }
    rt_cache_entry_free(&e);
    return ok;
}

static void to_cache(Job *j)
{
    ApiCompiled *c = j->m->compiled;
    char *host = print_host_part(j->m->ir, true);
    if (!host)
        return;
    RtBlob blobs[5] = {{"cubin", c->cubin, c->cubin_size},
                       {"cuda", c->cuda, strlen(c->cuda)},
                       {"log", c->log ? c->log : "", c->log ? strlen(c->log) : 0},
                       {HOST_BLOB, host, strlen(host)},
                       {"ptx", c->ptx, c->ptx ? strlen(c->ptx) : 0}};
    /* A cache that cannot be written only costs the next compile its hit. */
    rt_cache_put(&j->cache, &j->key, blobs, c->ptx ? 5 : 4, NULL);
    free(host);
}

/* ---------------------------------------------------------------- extra NVRTC options */

/* One word of s at *p as a POSIX shell reads it: '...' literally, "..." with
 * \" \\ \$ \` escapes, \c outside quotes as c; blanks end it. NULL on an
 * unterminated quote. */
static char *read_word(const char **p)
{
    TxBuf w = {0};
    tx_buf_puts(&w, "");
    const char *s = *p;
    char quote = 0;
    for (; *s && (quote || !strchr(" \t\n", *s)); s++) {
        if (quote == '\'' ? *s == '\'' : quote == '"' ? *s == '"' : *s == '\'' || *s == '"') {
            quote = quote ? 0 : *s;
        } else if (*s == '\\' && quote != '\'' && s[1] &&
                   (!quote || strchr("\"\\$`", s[1]))) {
            tx_buf_putc(&w, *++s);
        } else {
            tx_buf_putc(&w, *s);
        }
    }
    *p = s;
    if (quote) {
        tx_buf_free(&w);
        return NULL;
    }
    return tx_buf_take(&w);
}

/* $TIRX_NVRTC_EXTRA_OPTS split into words, then the caller's options. */
static tirx_status collect_extra(Job *j)
{
    const char *s = getenv("TIRX_NVRTC_EXTRA_OPTS");
    while (s && *(s += strspn(s, " \t\n"))) {
        char *w = read_word(&s);
        if (!w)
            return report(j, TIRX_ERR_USAGE, TX_E_USAGE,
                          "TIRX_NVRTC_EXTRA_OPTS has an unterminated quote");
        tx_vec_push(&j->extra, w);
    }
    for (size_t i = 0; i < j->o->n_nvrtc_options; i++) {
        const char *opt = j->o->nvrtc_options ? j->o->nvrtc_options[i] : NULL;
        if (!opt)
            return report(j, TIRX_ERR_USAGE, TX_E_USAGE, "options.nvrtc_options has a NULL entry");
        tx_vec_push(&j->extra, strdup(opt));
    }
    j->rt.extra = (const char *const *)j->extra.items;
    j->rt.nextra = (size_t)j->extra.len;
    return TIRX_OK;
}

static void free_words(Words *w)
{
    for (int i = 0; i < w->len; i++)
        free(w->items[i]);
    tx_vec_free(w);
}

/* ---------------------------------------------------------------- the pipeline */

/* Whether a function of the module declares T.func_attr({"tirx.fast_math":
 * True}): the whole module is then compiled with fast math, as NVRTC compiles
 * it as one unit. Another value is an error at it. */
static bool declares_fast_math(IrModule *ir)
{
    bool fast = false;
    for (int i = 0; i < ir->nfuncs; i++)
        for (int a = 0; a < ir->funcs[i]->nattrs; a++) {
            const IrKwarg *k = &ir->funcs[i]->attrs[a];
            if (strcmp(k->key, "tirx.fast_math"))
                continue;
            if (k->value->kind == IR_E_PYBOOL)
                fast |= k->value->u.int_val != 0;
            else
                tx_error(&ir->diags, TX_E_VALUE, k->value->span, "\"%s\" must be True or False",
                         k->key);
        }
    return fast;
}

static tirx_status generate(Job *j, int sm)
{
    IrModule *ir = j->m->ir;
    if (ir->diags.nerrors || !ir_verify(ir))
        return TIRX_ERR_INPUT;
    tirx_status st = api_lower(ir, NULL, j->o);
    if (st != TIRX_OK)
        return st;
    CgOptions cg = {.sm = sm, .fast_math = j->rt.fast_math, .trace = j->o->trace != 0,
                    .exact_lines = j->o->lineinfo != 0};
    TxBuf out = {0};
    bool ok = cg_emit_module(ir, &cg, &out);
    j->m->compiled->cuda = tx_buf_take(&out);
    return ok ? TIRX_OK : TIRX_ERR_INPUT;
}

static tirx_status build_binary(Job *j)
{
    RtBinary b;
    RtError err;
    RtStatus s = rt_compile(j->m->compiled->cuda, &j->rt, &b, &err);
    if (s == RT_ERR_COMPILE) {
        j->m->compiled->log = b.log, b.log = NULL;
        rt_binary_free(&b);
        tx_error(&j->m->ir->diags, TX_E_CUDA_COMPILE, (TxSpan){0},
                 "the generated CUDA did not compile (%s):\n%s",
                 err.message, j->m->compiled->log ? j->m->compiled->log : "");
        return TIRX_ERR_INPUT;
    }
    if (s != RT_OK) {
        rt_binary_free(&b);
        return report_rt(j, s, err.message);
    }
    take_binary(j->m->compiled, &b);
    return TIRX_OK;
}

/* The kernels use NVSHMEM (where: the first call): they are compiled to LTO
 * IR and linked with NVSHMEM's shim and device library (docs/language.md,
 * "NVSHMEM"). NVSHMEM not found is an error at that call. */
static tirx_status use_nvshmem(Job *j, TxSpan where)
{
    RtError err;
    if (j->o->use_nvcc) {
        tx_error(&j->m->ir->diags, TX_E_USAGE, where,
                 "the kernels use NVSHMEM, which tirx links with NVRTC and nvJitLink, not nvcc "
                 "(build without --nvcc)");
        return TIRX_ERR_USAGE;
    }
    if (rt_nvshmem_find(&j->nvshmem, &err) != RT_OK) {
        tx_error(&j->m->ir->diags, TX_E_NVSHMEM, where, "%s", err.message);
        return TIRX_ERR_CUDA;
    }
    j->headers[1] = (RtHeader){cg_nvshmem_header_name(), cg_nvshmem_header_text()};
    j->rt.nheaders = 2;
    j->rt.nvshmem = &j->nvshmem;
    j->rt.nvshmem_shim = cg_nvshmem_shim_text();
    j->rt.shim_cache = j->use_cache ? &j->cache : NULL;
    return TIRX_OK;
}

static tirx_status compile(Job *j)
{
    const tirx_options *o = j->o;
    RtError err;
    size_t limit = o->max_input_size ? o->max_input_size : TIRX_MAX_INPUT_SIZE_DEFAULT;
    IrModule *big = sc_refuse_large_input(j->filename, j->len, limit);
    if (big) {
        ir_module_free(j->m->ir);
        j->m->ir = big;
        return TIRX_ERR_INPUT;
    }
    if (!o->arch)
        return report(j, TIRX_ERR_USAGE, TX_E_TARGET,
                      "no target architecture (options.arch, e.g. sm_90a)");
    int sm = ir_target_sm(o->arch);
    if (rt_arch_check(o->arch, &err) != RT_OK || !sm) {
        /* sm_90, sm90a, SM_80a: the known one spelt with another suffix, case or '_'. */
        static const char *const known[] = {"sm_80", "sm_90a", "sm_100a"};
        const char *near = NULL;
        for (int k = 0; k < 3 && !near; k++)
            if (same_arch(o->arch, known[k]))
                near = known[k];
        tx_error(&j->m->ir->diags, TX_E_TARGET, (TxSpan){0},
                 "unknown target architecture '%.64s' (expected sm_80, sm_90a or sm_100a)%s%s%s",
                 o->arch, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
        return TIRX_ERR_USAGE;
    }
    j->headers[0] = (RtHeader){cg_prelude_name(), cg_prelude_text()};
    j->rt = (RtCompileOptions){.arch = o->arch, .compiler = o->use_nvcc ? RT_NVCC : RT_NVRTC,
                               .fast_math = o->fast_math != 0, .lineinfo = o->lineinfo != 0,
                               .want_ptx = o->want_ptx != 0, .headers = j->headers,
                               .nheaders = 1, .name = j->filename, .nvcc = o->nvcc};
    tirx_status st;
    if (!o->use_nvcc && (st = collect_extra(j)) != TIRX_OK)
        return st;
    ir_module_free(j->m->ir);
    j->m->ir = NULL; /* until parsed: memory may run out inside sc_parse */
    j->m->ir = sc_parse_imports(j->text, j->len, j->filename, (const ScDefine *)j->defines,
                                j->ndefines, o->import_dirs, o->n_import_dirs);
    j->rt.fast_math |= declares_fast_math(j->m->ir);
    j->use_cache = !o->no_binary && !o->no_cache && !j->m->ir->diags.nerrors;
    if (j->use_cache) {
        if ((st = make_key(j)) != TIRX_OK)
            return st;
        RtStatus s = rt_cache_open(&j->cache, o->cache_dir, &err);
        j->use_cache = s == RT_OK;
        if (j->use_cache && from_cache(j))
            return finish(j->m) ? TIRX_OK : TIRX_ERR_INTERNAL;
    }
    if ((st = generate(j, sm)) != TIRX_OK)
        return st;
    TxSpan nvshmem_call;
    if (!o->no_binary && cg_uses_nvshmem(j->m->ir, &nvshmem_call) &&
        (st = use_nvshmem(j, nvshmem_call)) != TIRX_OK)
        return st;
    if (!o->no_binary && (st = build_binary(j)) != TIRX_OK)
        return st;
    if (j->use_cache)
        to_cache(j);
    return finish(j->m) ? TIRX_OK : TIRX_ERR_INTERNAL;
}

static void compile_call(void *arg)
{
    Job *j = arg;
    j->status = compile(j);
}

tirx_status tirx_compile(const char *text, size_t len, const char *filename,
                         const tirx_define *defines, size_t ndefines, const tirx_options *o,
                         tirx_module **out)
{
    static const tirx_options none;
    if (!out)
        return TIRX_ERR_USAGE;
    *out = NULL;
    if ((!text && len) || (ndefines && !defines) || !api_import_dirs_ok(o))
        return TIRX_ERR_USAGE;
    tirx_module *m = calloc(1, sizeof *m);
    if (!m || !(m->compiled = calloc(1, sizeof *m->compiled))) {
        free(m);
        return TIRX_ERR_INTERNAL;
    }
    pthread_mutex_init(&m->compiled->lock, NULL);
    m->ir = ir_module_new();
    *out = m;
    Job j = {.m = m, .o = o ? o : &none, .text = text ? text : "", .len = len,
             .filename = filename ? filename : "<input>", .defines = defines,
             .ndefines = ndefines};
    if (!tx_guarded(compile_call, &j)) {
        tirx_module_free(m); /* half built: nothing in it can be trusted */
        *out = NULL;
        j.status = TIRX_ERR_NOMEM;
    }
    free_words(&j.extra);
    return j.status;
}

/* ---------------------------------------------------------------- queries */

const char *tirx_module_cuda(const tirx_module *m)
{
    return m && m->compiled ? m->compiled->cuda : NULL;
}

const char *tirx_module_ptx(const tirx_module *m)
{
    return m && m->compiled ? m->compiled->ptx : NULL;
}

const char *tirx_module_log(const tirx_module *m)
{
    return m && m->compiled ? m->compiled->log : NULL;
}

const void *tirx_module_cubin(const tirx_module *m, size_t *size)
{
    const ApiCompiled *c = m ? m->compiled : NULL;
    if (size)
        *size = c && c->cubin ? c->cubin_size : 0;
    return c ? c->cubin : NULL;
}

int tirx_module_cached(const tirx_module *m) { return m && m->compiled && m->compiled->cached; }

tirx_status tirx_module_sass(const tirx_module *m, char **sass, tirx_error *err)
{
    size_t size;
    const void *cubin = tirx_module_cubin(m, &size);
    if (!sass || !cubin || !size) {
        if (err)
            snprintf(err->message, sizeof err->message, "%s",
                     !sass ? "tirx_module_sass: sass is NULL"
                           : "tirx_module_sass: the module has no cubin (compiled with no_binary, "
                             "or its compile failed)");
        return TIRX_ERR_USAGE;
    }
    RtError rerr;
    return api_rt_done(rt_disassemble(cubin, size, sass, &rerr), &rerr, err);
}

size_t tirx_kernel_count(const tirx_module *m)
{
    return m && m->compiled ? m->compiled->nkernels : 0;
}

int tirx_kernel_stats_get(const tirx_module *m, size_t i, tirx_kernel_stats *out)
{
    if (!out || i >= tirx_kernel_count(m))
        return -1;
    const RtKernelStats *k = &m->compiled->kernels[i];
    *out = (tirx_kernel_stats){.name = k->name, .registers = k->registers,
                               .spill_store_bytes = k->spill_store_bytes,
                               .spill_load_bytes = k->spill_load_bytes,
                               .stack_bytes = k->stack_bytes, .smem_bytes = k->smem_bytes,
                               .dyn_smem_bytes = m->compiled->dyn_smem[i],
                               .perf_loss = k->perf_loss};
    return 0;
}

void api_compiled_free(ApiCompiled *c)
{
    if (!c)
        return;
    if (c->loaded)
        rt_module_unload(c->loaded);
    if (c->device)
        rt_device_close(c->device);
    pthread_mutex_destroy(&c->lock);
    free(c->cuda);
    free(c->ptx);
    free(c->log);
    free(c->cubin);
    rt_kernel_stats_free(c->kernels, c->nkernels);
    free(c->dyn_smem);
    free(c->functions);
    free(c);
}
