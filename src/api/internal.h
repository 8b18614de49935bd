/* Internal to src/api: the module handle of tirx.h and what compiling adds
 * to it. */
#ifndef TX_API_INTERNAL_H
#define TX_API_INTERNAL_H

#include <pthread.h>

#include "../../include/tirx.h"
#include "../ir/ir.h"
#include "../runtime/runtime.h"

struct tirx_function {
    tirx_module *module;
    const IrFunc *host;
};

/* What tirx_compile adds to a module (compile.c); loading and launching
 * (launch.c) fill in the rest lazily, under `lock`. */
typedef struct ApiCompiled {
    char *cuda, *ptx, *log;
    unsigned char *cubin;
    size_t cubin_size;
    RtKernelStats *kernels;
    size_t nkernels;
    long long *dyn_smem; /* per kernel */
    bool cached;
    tirx_function *functions; /* one per function of the module */
    pthread_mutex_t lock;
    RtDevice *device;
    RtModule *loaded;
} ApiCompiled;

struct tirx_module {
    IrModule *ir;          /* the parsed and lowered module; on a cache hit its host part */
    ApiCompiled *compiled; /* set by tirx_compile */
};

struct tirx_device {
    RtDevice *rt;
};

static inline RtDevice *api_device_rt(const tirx_device *d) { return d->rt; }

/* TIRX_OK, or the runtime's message in *err (when given) and the status:
 * usage errors stay usage errors, I/O errors are internal, the rest CUDA's. */
tirx_status api_rt_done(RtStatus s, const RtError *rerr, tirx_error *err);

static inline IrModule *api_module_ir(const tirx_module *m) { return m->ir; }
/* options.import_dirs: NULL options, or n_import_dirs directories none of which is NULL. */
static inline bool api_import_dirs_ok(const tirx_options *o)
{
    for (size_t i = 0; o && i < o->n_import_dirs; i++)
        if (!o->import_dirs || !o->import_dirs[i])
            return false;
    return true;
}

/* The passes over a module (tirx_lower without the handle). */
tirx_status api_lower(IrModule *ir, const char *passes, const tirx_options *o);
/* The SASS text of tirx_module_sass counted by script line (sass_lines.c),
 * with the text of each line from ir's sources (NULL: from the files the
 * line table names); malloc'd, NULL when out of memory. */
char *api_sass_lines(const char *sass, const IrModule *ir);
/* The host function `name` of a compiled module, not loaded; NULL with err set. */
tirx_function *api_find_function(const tirx_module *m, const char *name, tirx_error *err);
/* Frees what tirx_compile added (and unloads what launch.c loaded). */
void api_compiled_free(ApiCompiled *c);

#endif
