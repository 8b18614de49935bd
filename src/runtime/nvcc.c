/* Compiling with nvcc instead of NVRTC: finding the executable ($TIRX_NVCC,
 * $CUDA_HOME/bin, $CUDA_PATH/bin, then PATH), writing the source and the
 * in-memory headers into a fresh temporary directory, running nvcc (its
 * output goes to a log file there; tool.c), reading back the cubin, the PTX
 * and the log, and removing every file it made. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"
#include "internal.h"

/* ---- finding nvcc ---- */

RtStatus rt_nvcc_path(const RtCompileOptions *o, char *buf, size_t size, RtError *err)
{
    const char *given = o->nvcc ? o->nvcc : getenv("TIRX_NVCC");
    if (given && *given) {
        if (rt_given_program(given, buf, size))
            return RT_OK;
        return rt_fail(err, RT_ERR_NO_NVCC, "no nvcc: %s is not an executable file", given);
    }
    if (rt_find_program("nvcc", NULL, buf, size))
        return RT_OK;
    return rt_fail(err, RT_ERR_NO_NVCC,
                   "no nvcc: not on PATH (set TIRX_NVCC to it, or CUDA_HOME to the toolkit)");
}

/* ---- running nvcc ---- */

/* nvcc <opts> <mode> -I<dir> -o <output> <source> */
static int run_nvcc(const char *nvcc, const char *const *opts, size_t nopts, const char *mode,
                    RtWorkdir *w, const char *source, const char *output, const char *log)
{
    TxBuf include = {0};
    tx_buf_printf(&include, "-I%s", w->dir);
    char **argv = calloc(nopts + 8, sizeof *argv);
    size_t n = 0;
    argv[n++] = (char *)nvcc;
    for (size_t i = 0; i < nopts; i++)
        argv[n++] = (char *)opts[i];
    argv[n++] = (char *)mode;
    argv[n++] = include.data;
    argv[n++] = "-o";
    argv[n++] = (char *)output;
    argv[n++] = (char *)source;
    int rc = rt_run(argv, log);
    free(argv);
    tx_buf_free(&include);
    return rc;
}

static const char *source_name(const RtCompileOptions *o)
{
    const char *name = o->name;
    size_t n = name ? strlen(name) : 0;
    bool plain = n > 3 && !strchr(name, '/') && strcmp(name + n - 3, ".cu") == 0;
    return plain ? name : "tirx.cu";
}

static RtStatus write_inputs(RtWorkdir *w, const char *source, const RtCompileOptions *o,
                             RtError *err)
{
    RtStatus s = rt_workdir_write(w, source_name(o), source, strlen(source), err);
    for (size_t i = 0; s == RT_OK && i < o->nheaders; i++)
        s = rt_workdir_write(w, o->headers[i].name, o->headers[i].text,
                             strlen(o->headers[i].text), err);
    return s;
}

/* One nvcc run producing `output` (read into *data); its log into out->log. */
static RtStatus nvcc_step(const char *nvcc, const char *const *opts, size_t nopts, const char *mode,
                          RtWorkdir *w, const RtCompileOptions *o, const char *output_name,
                          void **data, size_t *size, RtBinary *out, RtError *err)
{
    const char *source = w->files.items[0];
    const char *output = rt_workdir_file(w, output_name), *log = rt_workdir_file(w, "nvcc.log");
    int rc = run_nvcc(nvcc, opts, nopts, mode, w, source, output, log);
    if (rc < 0)
        return rt_fail(err, RT_ERR_NO_NVCC, "no nvcc: cannot run %s: %s", nvcc, strerror(errno));
    size_t log_size;
    free(out->log);
    out->log = tx_read_file(log, &log_size);
    if (!out->log)
        out->log = calloc(1, 1);
    if (rc != 0)
        return rt_fail(err, RT_ERR_COMPILE, "nvcc could not compile %s for %s (exit status %d)",
                       source_name(o), o->arch, rc);
    *data = tx_read_file(output, size);
    if (*data && strcmp(mode, "-ptx") == 0)
        ++*size; /* PTX is text: its size counts the NUL */
    if (!*data || *size == 0)
        return rt_fail(err, RT_ERR_IO, "nvcc wrote no %s", output);
    return RT_OK;
}

RtStatus rt_nvcc_compile(const char *source, const RtCompileOptions *o,
                         const char *const *opts, size_t nopts, RtBinary *out, RtError *err)
{
    char nvcc[4096];
    RtWorkdir w;
    RtStatus s = rt_nvcc_path(o, nvcc, sizeof nvcc, err);
    if (s != RT_OK || (s = rt_workdir_open(&w, "nvcc", err)) != RT_OK)
        return s;
    s = write_inputs(&w, source, o, err);
    if (s == RT_OK && o->want_ptx)
        s = nvcc_step(nvcc, opts, nopts, "-ptx", &w, o, "out.ptx", (void **)&out->ptx,
                      &out->ptx_size, out, err);
    if (s == RT_OK)
        s = nvcc_step(nvcc, opts, nopts, "-cubin", &w, o, "out.cubin", (void **)&out->cubin,
                      &out->cubin_size, out, err);
    rt_workdir_close(&w);
    return s;
}
