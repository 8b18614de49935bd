/* Compiling a module that uses NVSHMEM (docs/language.md, "NVSHMEM"). The
 * kernels (with their in-memory headers, -rdc=true -dlto) and the shim (CUDA
 * that includes nvshmem.h, with NVSHMEM's and the toolkit's headers on the
 * include path) become LTO IR, and nvJitLink links the two with NVSHMEM's
 * device library for the target (-lto), running ptxas -v so that the log
 * reports the kernels' resources as a plain compile's does. The shim is
 * compiled with NVSHMEM_ENABLE_ALL_DEVICE_INLINING, the mode of NVSHMEM's
 * NVRTC users: the device API comes whole from the headers, and the library
 * adds its globals (the device state nvshmemx_cumodule_init fills in, the
 * version it checks). The shim's LTO IR, the same for every module, is
 * cached on its own. PTX, when asked for, comes from a second link of the two
 * LTO IRs alone: nvJitLink writes PTX only when every input is LTO IR. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/base.h"
#include "internal.h"

#define SHIM_NAME "tirx_nvshmem_shim.cu"

typedef struct Ltoir {
    char *data;
    size_t size;
} Ltoir;

/* Appends a labelled part of a log ("" parts are left out). */
static void log_part(TxBuf *log, const char *label, const char *text)
{
    if (text && *text)
        tx_buf_printf(log, "%s%s:\n%s", log->len ? "\n" : "", label, text);
}

/* source compiled with opts to LTO IR; its log appended to log. */
static RtStatus to_ltoir(const RtNvrtc *nv, const char *source, const RtCompileOptions *o,
                         const char *const *opts, int nopts, Ltoir *out, TxBuf *log, RtError *err)
{
    nvrtcProgram prog;
    char *text = NULL;
    RtStatus s = rt_nvrtc_program(nv, source, o, opts, nopts, &prog, &text, err);
    log_part(log, o->name ? o->name : "tirx.cu", text);
    free(text);
    if (s != RT_OK)
        return s;
    nvrtcResult r = nv->nvrtcGetLTOIRSize(prog, &out->size);
    if (r == NVRTC_SUCCESS && out->size) {
        out->data = malloc(out->size);
        r = nv->nvrtcGetLTOIR(prog, out->data);
    }
    nv->nvrtcDestroyProgram(&prog);
    if (r != NVRTC_SUCCESS || !out->size)
        return rt_fail(err, RT_ERR_CUDA, "NVRTC gave no LTO IR for %s: %s",
                       o->name ? o->name : "tirx.cu", nv->nvrtcGetErrorString(r));
    return RT_OK;
}

/* ---- the shim ---- */

static void shim_options(const RtCompileOptions *o, RtOptList *w)
{
    rt_opt_push(w, "--gpu-architecture=%s", o->arch);
    rt_opt_push(w, "%s", "--std=c++17");
    rt_opt_push(w, "%s", "-rdc=true");
    rt_opt_push(w, "%s", "-dlto");
    rt_opt_push(w, "%s", "-DNVSHMEM_ENABLE_ALL_DEVICE_INLINING");
    for (int i = 0; i < o->nvshmem->ninclude; i++)
        rt_opt_push(w, "-I%s", o->nvshmem->include[i]);
}

static RtDigest shim_key(const RtCompileOptions *o, const char *toolkit, const RtOptList *w)
{
    RtKey k;
    rt_key_init(&k);
    rt_key_add_str(&k, "shim.toolkit", toolkit);
    rt_key_add_str(&k, "shim.source", o->nvshmem_shim);
    for (int i = 0; i < w->len; i++)
        rt_key_add_str(&k, "shim.option", w->items[i]);
    rt_nvshmem_key_files(o->nvshmem, &k);
    return rt_key_final(&k);
}

/* The shim's LTO IR, from the cache when it has it. */
static RtStatus shim_ltoir(const RtNvrtc *nv, const RtCompileOptions *o, Ltoir *out, TxBuf *log,
                           RtError *err)
{
    RtOptList w = {0};
    shim_options(o, &w);
    char toolkit[4096 + 128];
    RtStatus s = rt_toolkit_id(o, toolkit, sizeof toolkit, err);
    RtDigest key = shim_key(o, toolkit, &w);
    const RtCache *cache = o->shim_cache ? o->shim_cache : o->cache;
    RtCacheEntry e;
    if (s == RT_OK && cache && rt_cache_get(cache, &key, &e)) {
        const RtBlob *b = rt_cache_entry_find(&e, "ltoir");
        if (b && b->size) {
            out->data = malloc(b->size);
            memcpy(out->data, b->data, b->size);
            out->size = b->size;
        }
        rt_cache_entry_free(&e);
    }
    if (s == RT_OK && !out->data) {
        RtCompileOptions shim = {.arch = o->arch, .name = SHIM_NAME};
        s = to_ltoir(nv, o->nvshmem_shim, &shim, (const char *const *)w.items, w.len, out, log,
                     err);
        RtBlob blob = {"ltoir", out->data, out->size};
        if (s == RT_OK && cache) /* a cache that cannot be written only costs a hit */
            rt_cache_put(cache, &key, &blob, 1, NULL);
    }
    rt_opt_list_free(&w);
    return s;
}

/* ---- the link ---- */

static char *link_log(const RtNvJitLink *jl, nvJitLinkHandle h, bool errors)
{
    size_t n = 0;
    nvJitLinkResult r =
        errors ? jl->nvJitLinkGetErrorLogSize(h, &n) : jl->nvJitLinkGetInfoLogSize(h, &n);
    char *text = calloc(1, n + 1);
    if (r == NVJITLINK_SUCCESS && n)
        r = errors ? jl->nvJitLinkGetErrorLog(h, text) : jl->nvJitLinkGetInfoLog(h, text);
    if (r != NVJITLINK_SUCCESS)
        text[0] = '\0';
    return text;
}

/* The first line of text, for a one-line message. */
static int first_line(const char *text)
{
    return (int)strcspn(text, "\n");
}

static void link_options(const RtCompileOptions *o, bool ptx, RtOptList *w)
{
    rt_opt_push(w, "-arch=%s", o->arch);
    rt_opt_push(w, "%s", "-lto");
    rt_opt_push(w, "%s", ptx ? "-ptx" : "-Xptxas=-v");
    if (o->lineinfo)
        rt_opt_push(w, "%s", "-lineinfo");
    if (o->fast_math) { /* what --use_fast_math means for code generation */
        rt_opt_push(w, "%s", "-ftz=true");
        rt_opt_push(w, "%s", "-prec-div=false");
        rt_opt_push(w, "%s", "-prec-sqrt=false");
    }
}

/* Links the kernels and the shim (and the device library, for a cubin) into
 * out->cubin, or out->ptx; the link's log is appended to log. */
static RtStatus link_all(const RtNvJitLink *jl, const RtCompileOptions *o, const Ltoir *kernels,
                         const Ltoir *shim, bool ptx, RtBinary *out, TxBuf *log, RtError *err)
{
    RtOptList w = {0};
    link_options(o, ptx, &w);
    nvJitLinkHandle h = NULL;
    nvJitLinkResult r = jl->nvJitLinkCreate(&h, (uint32_t)w.len, (const char **)w.items);
    rt_opt_list_free(&w);
    if (r != NVJITLINK_SUCCESS)
        return rt_fail(err, RT_ERR_USAGE, "nvJitLink refused the options for %s (error %d)",
                       o->arch, (int)r);
    const char *stage = "the kernels";
    r = jl->nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, kernels->data, kernels->size,
                             o->name ? o->name : "tirx.cu");
    if (r == NVJITLINK_SUCCESS) {
        stage = "the shim";
        r = jl->nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, shim->data, shim->size, SHIM_NAME);
    }
    if (r == NVJITLINK_SUCCESS && !ptx) {
        stage = o->nvshmem->device_lib;
        r = jl->nvJitLinkAddFile(h, NVJITLINK_INPUT_LIBRARY, o->nvshmem->device_lib);
    }
    if (r == NVJITLINK_SUCCESS) {
        stage = "the link";
        r = jl->nvJitLinkComplete(h);
    }
    char *errors = link_log(jl, h, true), *info = link_log(jl, h, false);
    log_part(log, "nvJitLink", info);
    log_part(log, "nvJitLink errors", errors);
    RtStatus s = RT_OK;
    if (r != NVJITLINK_SUCCESS) {
        s = rt_fail(err, RT_ERR_COMPILE, "nvJitLink failed at %s for %s (error %d)%s%.*s", stage,
                    o->arch, (int)r, *errors ? ": " : "", first_line(errors), errors);
    } else if (ptx) {
        r = jl->nvJitLinkGetLinkedPtxSize(h, &out->ptx_size);
        out->ptx = r == NVJITLINK_SUCCESS ? calloc(1, out->ptx_size + 1) : NULL;
        if (!out->ptx || jl->nvJitLinkGetLinkedPtx(h, out->ptx) != NVJITLINK_SUCCESS)
            s = rt_fail(err, RT_ERR_CUDA, "nvJitLink gave no PTX for %s", o->arch);
    } else {
        r = jl->nvJitLinkGetLinkedCubinSize(h, &out->cubin_size);
        out->cubin = r == NVJITLINK_SUCCESS && out->cubin_size ? malloc(out->cubin_size) : NULL;
        if (!out->cubin || jl->nvJitLinkGetLinkedCubin(h, out->cubin) != NVJITLINK_SUCCESS)
            s = rt_fail(err, RT_ERR_CUDA, "nvJitLink gave no cubin for %s", o->arch);
    }
    free(errors);
    free(info);
    jl->nvJitLinkDestroy(&h);
    return s;
}

/* ---- the entry points ---- */

RtStatus rt_nvshmem_compile(const char *source, const RtCompileOptions *o,
                            const char *const *opts, int nopts, RtBinary *out, RtError *err)
{
    const RtNvrtc *nv;
    const RtNvJitLink *jl;
    RtStatus s = rt_nvrtc(&nv, err);
    if (s == RT_OK)
        s = rt_nvjitlink(&jl, err);
    if (s != RT_OK)
        return s;
    TxBuf log = {0};
    Ltoir kernels = {0}, shim = {0};
    s = to_ltoir(nv, source, o, opts, nopts, &kernels, &log, err);
    if (s == RT_OK)
        s = shim_ltoir(nv, o, &shim, &log, err);
    if (s == RT_OK)
        s = link_all(jl, o, &kernels, &shim, false, out, &log, err);
    if (s == RT_OK && o->want_ptx)
        s = link_all(jl, o, &kernels, &shim, true, out, &log, err);
    free(kernels.data);
    free(shim.data);
    tx_buf_puts(&log, "");
    out->log = tx_buf_take(&log);
    return s;
}

RtStatus rt_nvshmem_key(const RtCompileOptions *o, RtKey *k, RtError *err)
{
    const RtNvJitLink *jl;
    RtStatus s = rt_nvjitlink(&jl, err);
    if (s != RT_OK)
        return s;
    rt_key_add_int(k, "nvshmem.nvjitlink", (int64_t)jl->major * 1000 + jl->minor);
    rt_key_add_str(k, "nvshmem.shim", o->nvshmem_shim);
    rt_nvshmem_key_files(o->nvshmem, k);
    RtOptList w = {0};
    link_options(o, false, &w);
    for (int i = 0; i < w.len; i++)
        rt_key_add_str(k, "nvshmem.link_option", w.items[i]);
    rt_opt_list_free(&w);
    return RT_OK;
}
