/* A cubin's SASS, by the toolkit's disassembler (`nvdisasm -g -c FILE`: the
 * code sections, with a `//## File "...", line N` comment wherever the
 * source line changes when the cubin has line information, as a --lineinfo
 * build's does: the CUDA's #line directives name the .tirx file; the same
 * text without it): $TIRX_NVDISASM, else in the toolkit or on PATH, else in the pip
 * package nvidia-cuda-nvdisasm (nvidia/cu13/bin). The cubin goes to a
 * temporary file (tool.c), nvdisasm's output comes back as text. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static RtStatus find_nvdisasm(char *buf, size_t size, RtError *err)
{
    const char *given = getenv("TIRX_NVDISASM");
    if (given && *given) {
        if (rt_given_program(given, buf, size))
            return RT_OK;
        return rt_fail(err, RT_ERR_NO_NVDISASM,
                       "no nvdisasm: TIRX_NVDISASM=%s is not an executable file", given);
    }
    if (rt_find_program("nvdisasm", "nvidia/cu*/bin", buf, size))
        return RT_OK;
    return rt_fail(err, RT_ERR_NO_NVDISASM,
                   "no nvdisasm: not in the CUDA toolkit (CUDA_HOME), on PATH or in a pip "
                   "package (pip install nvidia-cuda-nvdisasm; or set TIRX_NVDISASM to it)");
}

RtStatus rt_disassemble(const void *cubin, size_t size, char **sass, RtError *err)
{
    *sass = NULL;
    char tool[4096];
    RtWorkdir w;
    RtStatus s = find_nvdisasm(tool, sizeof tool, err);
    if (s != RT_OK || (s = rt_workdir_open(&w, "sass", err)) != RT_OK)
        return s;
    s = rt_workdir_write(&w, "kernel.cubin", cubin, size, err);
    if (s == RT_OK) {
        const char *log = rt_workdir_file(&w, "sass.txt");
        char *argv[] = {tool, "-g", "-c", w.files.items[0], NULL};
        int rc = rt_run(argv, log);
        size_t n;
        char *text = rc < 0 ? NULL : tx_read_file(log, &n);
        if (rc < 0)
            s = rt_fail(err, RT_ERR_NO_NVDISASM, "no nvdisasm: cannot run %s: %s", tool,
                        strerror(errno));
        else if (rc != 0 || !text)
            s = rt_fail(err, RT_ERR_CUDA, "nvdisasm failed (exit status %d): %.200s", rc,
                        text ? text : "no output");
        if (s == RT_OK)
            *sass = text;
        else
            free(text);
    }
    rt_workdir_close(&w);
    return s;
}
