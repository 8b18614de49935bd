/* Compiling with nvcc instead of NVRTC: finding the executable ($TIRX_NVCC,
 * $CUDA_HOME/bin, $CUDA_PATH/bin, then PATH), writing the source and the
 * in-memory headers into a fresh temporary directory, running nvcc with
 * posix_spawn (its output goes to a log file there; no shell is involved),
 * reading back the cubin, the PTX and the log, and removing every file it
 * made. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/base.h"
#include "internal.h"

extern char **environ;

/* ---- finding nvcc ---- */

static bool executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static bool try_path(char *buf, size_t size, const char *dir, const char *file)
{
    int n = snprintf(buf, size, "%s%s%s", dir, *dir ? "/" : "", file);
    return n > 0 && (size_t)n < size && executable(buf);
}

static bool search_path(char *buf, size_t size)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        char dir[4096];
        snprintf(dir, sizeof dir, "%.*s", (int)n, n ? path : ".");
        if (try_path(buf, size, dir, "nvcc"))
            return true;
        path = colon ? colon + 1 : NULL;
    }
    return false;
}

RtStatus rt_nvcc_path(const RtCompileOptions *o, char *buf, size_t size, RtError *err)
{
    const char *given = o->nvcc ? o->nvcc : getenv("TIRX_NVCC");
    if (given && *given) {
        if (try_path(buf, size, "", given))
            return RT_OK;
        return rt_fail(err, RT_ERR_NO_NVCC, "no nvcc: %s is not an executable file", given);
    }
    static const char *const homes[] = {"CUDA_HOME", "CUDA_PATH"};
    for (size_t i = 0; i < sizeof homes / sizeof homes[0]; i++) {
        const char *home = getenv(homes[i]);
        char dir[4096];
        if (home && *home && snprintf(dir, sizeof dir, "%s/bin", home) < (int)sizeof dir &&
            try_path(buf, size, dir, "nvcc"))
            return RT_OK;
    }
    if (search_path(buf, size))
        return RT_OK;
    return rt_fail(err, RT_ERR_NO_NVCC,
                   "no nvcc: not on PATH (set TIRX_NVCC to it, or CUDA_HOME to the toolkit)");
}

/* ---- the temporary directory ---- */

typedef struct Workdir {
    char dir[4096];
    TX_VEC(char *) files; /* every file made here, removed at the end */
} Workdir;

static RtStatus workdir_open(Workdir *w, RtError *err)
{
    const char *tmp = getenv("TMPDIR");
    memset(w, 0, sizeof *w);
    snprintf(w->dir, sizeof w->dir, "%s/tirx-nvcc-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(w->dir))
        return rt_fail(err, RT_ERR_IO, "cannot create a temporary directory %s: %s", w->dir,
                       strerror(errno));
    return RT_OK;
}

/* The path of `name` in the directory, remembered for removal. */
static const char *workdir_file(Workdir *w, const char *name)
{
    TxBuf b = {0};
    tx_buf_printf(&b, "%s/%s", w->dir, name);
    tx_vec_push(&w->files, tx_buf_take(&b));
    return w->files.items[w->files.len - 1];
}

static RtStatus workdir_write(Workdir *w, const char *name, const char *text, RtError *err)
{
    const char *path = workdir_file(w, name);
    FILE *f = fopen(path, "wb");
    size_t n = strlen(text);
    bool ok = f && fwrite(text, 1, n, f) == n;
    ok = f && fclose(f) == 0 && ok;
    return ok ? RT_OK : rt_fail(err, RT_ERR_IO, "cannot write %s: %s", path, strerror(errno));
}

static void workdir_close(Workdir *w)
{
    for (int i = 0; i < w->files.len; i++) {
        unlink(w->files.items[i]);
        free(w->files.items[i]);
    }
    tx_vec_free(&w->files);
    rmdir(w->dir);
}

/* ---- running nvcc ---- */

/* Runs argv with stdout and stderr into `log`; the exit status, or -1 with
 * errno set when it could not start. */
static int run(char *const *argv, const char *log)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* nvcc <opts> <mode> -I<dir> -o <output> <source> */
static int run_nvcc(const char *nvcc, const char *const *opts, size_t nopts, const char *mode,
                    Workdir *w, const char *source, const char *output, const char *log)
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
    int rc = run(argv, log);
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

static RtStatus write_inputs(Workdir *w, const char *source, const RtCompileOptions *o,
                             RtError *err)
{
    RtStatus s = workdir_write(w, source_name(o), source, err);
    for (size_t i = 0; s == RT_OK && i < o->nheaders; i++)
        s = workdir_write(w, o->headers[i].name, o->headers[i].text, err);
    return s;
}

/* One nvcc run producing `output` (read into *data); its log into out->log. */
static RtStatus nvcc_step(const char *nvcc, const char *const *opts, size_t nopts, const char *mode,
                          Workdir *w, const RtCompileOptions *o, const char *output_name,
                          void **data, size_t *size, RtBinary *out, RtError *err)
{
    const char *source = w->files.items[0];
    const char *output = workdir_file(w, output_name), *log = workdir_file(w, "nvcc.log");
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
    Workdir w;
    RtStatus s = rt_nvcc_path(o, nvcc, sizeof nvcc, err);
    if (s != RT_OK || (s = workdir_open(&w, err)) != RT_OK)
        return s;
    s = write_inputs(&w, source, o, err);
    if (s == RT_OK && o->want_ptx)
        s = nvcc_step(nvcc, opts, nopts, "-ptx", &w, o, "out.ptx", (void **)&out->ptx,
                      &out->ptx_size, out, err);
    if (s == RT_OK)
        s = nvcc_step(nvcc, opts, nopts, "-cubin", &w, o, "out.cubin", (void **)&out->cubin,
                      &out->cubin_size, out, err);
    workdir_close(&w);
    return s;
}
