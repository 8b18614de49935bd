/* Running the CUDA toolkit's programs (nvcc, cuobjdump): finding one ($CUDA_HOME/bin,
 * $CUDA_PATH/bin, PATH, then the pip package of a Python nearby), a fresh
 * temporary directory whose files are all removed at the end, and running a
 * program with posix_spawn (no shell), its stdout and stderr into a log
 * file. The pip search is shared with NVSHMEM's (nvshmem.c). */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

extern char **environ;

/* ---- finding a program ---- */

bool rt_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static bool try_path(char *buf, size_t size, const char *dir, const char *file)
{
    int n = snprintf(buf, size, "%s%s%s", dir, *dir ? "/" : "", file);
    return n > 0 && (size_t)n < size && rt_executable(buf);
}

static bool search_path(const char *file, char *buf, size_t size)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *colon = strchr(path, ':');
        size_t n = colon ? (size_t)(colon - path) : strlen(path);
        char dir[4096];
        snprintf(dir, sizeof dir, "%.*s", (int)n, n ? path : ".");
        if (try_path(buf, size, dir, file))
            return true;
        path = colon ? colon + 1 : NULL;
    }
    return false;
}

bool rt_library_dir(RtAnyFn fn, int up, char *out, size_t size)
{
    Dl_info info;
    void *p;
    memcpy(&p, &fn, sizeof p);
    if (!dladdr(p, &info) || !info.dli_fname || !strchr(info.dli_fname, '/'))
        return false;
    snprintf(out, size, "%s", info.dli_fname);
    for (int i = 0; i <= up; i++) {
        char *slash = strrchr(out, '/');
        if (!slash || slash == out)
            return false;
        *slash = '\0';
    }
    return true;
}

static bool join(char *out, size_t size, const char *dir, const char *rest)
{
    int n = snprintf(out, size, "%s/%s", dir, rest);
    return n >= 0 && (size_t)n < size;
}

/* The first directory matching pattern (a glob) that `ok` accepts. */
static bool first_match(const char *pattern, bool (*ok)(const char *dir, const void *arg),
                        const void *arg, char *out, size_t size)
{
    glob_t g;
    bool found = false;
    if (glob(pattern, 0, NULL, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc && !found; i++)
            if ((found = ok(g.gl_pathv[i], arg)))
                snprintf(out, size, "%s", g.gl_pathv[i]);
    globfree(&g);
    return found;
}

/* The site-packages of the python3 on PATH, asked of Python itself: a pyenv
 * or uv Python, or a virtual environment not activated, has a prefix no
 * fixed pattern names. */
static bool python_site(char *out, size_t size)
{
    char python[4096];
    RtWorkdir w;
    RtError err;
    if (!search_path("python3", python, sizeof python) ||
        rt_workdir_open(&w, "python", &err) != RT_OK)
        return false;
    const char *log = rt_workdir_file(&w, "site");
    char code[] = "import sysconfig; print(sysconfig.get_paths()['purelib'])";
    char isolated[] = "-I", command[] = "-c";
    char *argv[] = {python, isolated, command, code, NULL};
    bool found = false;
    FILE *f = rt_run(argv, log) == 0 ? fopen(log, "r") : NULL;
    if (f) {
        if ((found = fgets(out, (int)size, f) && out[0] == '/'))
            out[strcspn(out, "\n")] = '\0';
        fclose(f);
    }
    rt_workdir_close(&w);
    struct stat st;
    return found && stat(out, &st) == 0 && S_ISDIR(st.st_mode);
}

bool rt_pip_dir(const char *rel, bool (*ok)(const char *dir, const void *arg), const void *arg,
                char *out, size_t size)
{
    static const char *const sites[] = {
        "/usr/local/lib/python3*/dist-packages",
        "/usr/local/lib/python3*/site-packages",
        "/usr/lib/python3/dist-packages",
    };
    static const struct {
        const char *var, *rest;
    } envs[] = {
        {"VIRTUAL_ENV", "lib/python3*/site-packages"},
        {"CONDA_PREFIX", "lib/python3*/site-packages"},
        {"HOME", ".local/lib/python3*/site-packages"},
    };
    char site[2048], pattern[2048];
    /* site-packages/tirx/libtirx.so: the packages beside it */
    if (rt_library_dir((RtAnyFn)rt_pip_dir, 1, site, sizeof site) &&
        join(pattern, sizeof pattern, site, rel) && first_match(pattern, ok, arg, out, size))
        return true;
    for (size_t i = 0; i < sizeof envs / sizeof envs[0]; i++) {
        const char *v = getenv(envs[i].var);
        if (v && *v && join(site, sizeof site, v, envs[i].rest) &&
            join(pattern, sizeof pattern, site, rel) && first_match(pattern, ok, arg, out, size))
            return true;
    }
    for (size_t i = 0; i < sizeof sites / sizeof sites[0]; i++)
        if (join(pattern, sizeof pattern, sites[i], rel) &&
            first_match(pattern, ok, arg, out, size))
            return true;
    return python_site(site, sizeof site) && join(pattern, sizeof pattern, site, rel) &&
           first_match(pattern, ok, arg, out, size);
}

static bool has_program(const char *dir, const void *file)
{
    char path[4096];
    return try_path(path, sizeof path, dir, file);
}

bool rt_find_program(const char *file, const char *pip_bin, char *buf, size_t size)
{
    static const char *const homes[] = {"CUDA_HOME", "CUDA_PATH"};
    for (size_t i = 0; i < sizeof homes / sizeof homes[0]; i++) {
        const char *home = getenv(homes[i]);
        char dir[4096];
        if (home && *home && snprintf(dir, sizeof dir, "%s/bin", home) < (int)sizeof dir &&
            try_path(buf, size, dir, file))
            return true;
    }
    if (search_path(file, buf, size))
        return true;
    char dir[4096];
    return pip_bin && rt_pip_dir(pip_bin, has_program, file, dir, sizeof dir) &&
           try_path(buf, size, dir, file);
}

bool rt_given_program(const char *path, char *buf, size_t size)
{
    return try_path(buf, size, "", path);
}

/* ---- the temporary directory ---- */

RtStatus rt_workdir_open(RtWorkdir *w, const char *what, RtError *err)
{
    const char *tmp = getenv("TMPDIR");
    memset(w, 0, sizeof *w);
    snprintf(w->dir, sizeof w->dir, "%s/tirx-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", what);
    if (!mkdtemp(w->dir))
        return rt_fail(err, RT_ERR_IO, "cannot create a temporary directory %s: %s", w->dir,
                       strerror(errno));
    return RT_OK;
}

const char *rt_workdir_file(RtWorkdir *w, const char *name)
{
    TxBuf b = {0};
    tx_buf_printf(&b, "%s/%s", w->dir, name);
    tx_vec_push(&w->files, tx_buf_take(&b));
    return w->files.items[w->files.len - 1];
}

RtStatus rt_workdir_write(RtWorkdir *w, const char *name, const void *data, size_t n,
                          RtError *err)
{
    const char *path = rt_workdir_file(w, name);
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, n, f) == n;
    ok = f && fclose(f) == 0 && ok;
    return ok ? RT_OK : rt_fail(err, RT_ERR_IO, "cannot write %s: %s", path, strerror(errno));
}

void rt_workdir_close(RtWorkdir *w)
{
    for (int i = 0; i < w->files.len; i++) {
        unlink(w->files.items[i]);
        free(w->files.items[i]);
    }
    tx_vec_free(&w->files);
    rmdir(w->dir);
}

/* ---- running ---- */

int rt_run(char *const *argv, const char *log)
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
