/* tirx_get_function, tirx_launch, tirx_launch_trace(_to), tirx_check_args and tirx_simulate(_trace_to): a
 * compiled module is loaded into GPU 0's primary context on first use (once,
 * under the module's lock), and a launch runs the function's host part in the
 * runtime's evaluator with the module's kernels (a traced launch gives each
 * kernel with trace events a record buffer sized from its grid and block,
 * waits for it and decodes it); a check runs it dry, without
 * a GPU; a simulation runs it with the simulator's launch and encode. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/host_eval.h"
#include "../sim/sim.h"
#include "../target/cuda/codegen.h"
#include "internal.h"

static tirx_status fail(tirx_error *err, tirx_status st, const char *msg)
{
    if (err)
        snprintf(err->message, sizeof err->message, "%s", msg);
    return st;
}

static tirx_status from_rt(RtStatus s)
{
    return s == RT_OK ? TIRX_OK : s == RT_ERR_USAGE ? TIRX_ERR_USAGE : TIRX_ERR_CUDA;
}

/* Loads the cubin once; the first error is returned to every caller. */
static tirx_status load(ApiCompiled *c, tirx_error *err)
{
    RtError rerr = {0};
    RtStatus s = RT_OK;
    pthread_mutex_lock(&c->lock);
    if (!c->loaded) {
        if (!c->cubin)
            s = RT_ERR_USAGE, snprintf(rerr.message, sizeof rerr.message,
                                       "the module was compiled without a binary");
        if (s == RT_OK && !c->device)
            s = rt_device_open(0, &c->device, &rerr);
        if (s == RT_OK)
            s = rt_module_load(c->device, c->cubin, &c->loaded, &rerr);
    }
    pthread_mutex_unlock(&c->lock);
    return s == RT_OK ? TIRX_OK : fail(err, from_rt(s), rerr.message);
}

/* The host function `name` of a compiled module, not loaded; NULL with err set. */
tirx_function *api_find_function(const tirx_module *m, const char *name, tirx_error *err)
{
    if (!m || !m->compiled || !m->compiled->functions || !name) {
        fail(err, TIRX_ERR_USAGE, "not a compiled module");
        return NULL;
    }
    for (int i = 0; i < m->ir->nfuncs; i++) {
        tirx_function *f = &m->compiled->functions[i];
        if (!strcmp(f->host->name, name) && !cg_is_kernel(f->host))
            return f;
    }
    /* Name the functions it has, as the Python package's KeyError does. */
    char msg[sizeof err->message];
    size_t n = (size_t)snprintf(msg, sizeof msg, "the module has no function '%.200s' (it has ",
                                name);
    const char *sep = "";
    for (int i = 0; i < m->ir->nfuncs && n < sizeof msg; i++) {
        const IrFunc *h = m->compiled->functions[i].host;
        if (cg_is_kernel(h))
            continue;
        n += (size_t)snprintf(msg + n, sizeof msg - n, "%s%s", sep, h->name);
        sep = ", ";
    }
    if (n < sizeof msg)
        snprintf(msg + n, sizeof msg - n, "%s)", *sep ? "" : "none");
    fail(err, TIRX_ERR_USAGE, msg);
    return NULL;
}

tirx_status tirx_get_function(tirx_module *m, const char *name, tirx_function **out,
                              tirx_error *err)
{
    if (!out)
        return TIRX_ERR_USAGE;
    *out = NULL;
    tirx_function *f = api_find_function(m, name, err);
    if (!f)
        return TIRX_ERR_USAGE;
    tirx_status st = load(m->compiled, err);
    if (st == TIRX_OK)
        *out = f;
    return st;
}

static RtStatus launch_on_gpu(void *user, const IrFunc *kernel, const RtLaunchConfig *cfg,
                              void **args, RtError *err)
{
    const ApiCompiled *c = user;
    RtFunction *fn;
    RtStatus s = rt_module_function(c->loaded, kernel->name, &fn, err);
    return s == RT_OK ? rt_launch(fn, cfg, args, err) : s;
}

static RtStatus encode_on_gpu(void *user, const RtTensorMapSpec *s, RtTensorMap *out, RtError *err)
{
    (void)user;
    return rt_tensor_map_encode(s, out, err);
}

size_t tirx_function_num_args(const tirx_function *f)
{
    return f ? (size_t)f->host->nparams : 0;
}

static RtArg to_rt_arg(const tirx_arg *a)
{
    RtArg r = {RT_ARG_UNKNOWN, {.i = 0}};
    switch (a->kind) {
    case TIRX_ARG_TENSOR: r = (RtArg){RT_ARG_TENSOR, {.tensor = (const DLTensor *)a->v.tensor}}; break;
    case TIRX_ARG_INT: r = (RtArg){RT_ARG_INT, {.i = a->v.i}}; break;
    case TIRX_ARG_FLOAT: r = (RtArg){RT_ARG_FLOAT, {.f = a->v.f}}; break;
    case TIRX_ARG_TENSORMAP:
        r = (RtArg){RT_ARG_TENSORMAP, {.map = a->v.tensormap}};
        break;
    }
    return r;
}

typedef struct HostEvalCall {
    const IrFunc *host;
    const RtArg *args;
    int nargs;
    const RtHostEnv *env;
    RtError err;
    RtStatus status;
} HostEvalCall;

static void host_eval_call(void *arg)
{
    HostEvalCall *c = arg;
    c->status = rt_host_eval(c->host, c->args, c->nargs, c->env, &c->err);
}

/* Runs f's host part on args in env (a launch, or a dry run without env.launch). */
static tirx_status run_host(const tirx_function *f, const tirx_arg *args, size_t nargs,
                            const RtHostEnv *env, tirx_error *err)
{
    if (nargs > 4096 || (nargs && !args))
        return fail(err, TIRX_ERR_USAGE, "bad argument array");
    RtArg *rargs = malloc(sizeof *rargs * (nargs + 1));
    if (!rargs)
        return fail(err, TIRX_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < nargs; i++)
        rargs[i] = to_rt_arg(&args[i]);
    HostEvalCall c = {f->host, rargs, (int)nargs, env, {0}, RT_OK};
    bool done = tx_guarded(host_eval_call, &c);
    free(rargs);
    if (!done)
        return fail(err, TIRX_ERR_NOMEM, "out of memory");
    return c.status == RT_OK ? TIRX_OK : fail(err, from_rt(c.status), c.err.message);
}

tirx_status tirx_launch(tirx_function *f, const tirx_arg *args, size_t nargs, void *stream,
                        tirx_error *err)
{
    if (!f)
        return fail(err, TIRX_ERR_USAGE, "no function");
    ApiCompiled *c = f->module->compiled;
    RtHostEnv env = {.module = f->module->ir, .launch = launch_on_gpu,
                     .encode = encode_on_gpu, .user = c, .stream = stream,
                     .device_id = rt_device_info(c->device)->ordinal};
    return run_host(f, args, nargs, &env, err);
}

typedef struct TraceRun {
    ApiCompiled *c;
    size_t cap; /* records per warp */
    RtTrace trace;
    bool traced; /* a kernel had a trace buffer */
} TraceRun;

/* The bytes of the module's global name (NULL when it has none). */
static char *read_global(ApiCompiled *c, const char *name, size_t *bytes)
{
    RtError ignored;
    RtDevPtr p;
    char *host = NULL;
    if (rt_module_global(c->loaded, name, &p, bytes, &ignored) != RT_OK ||
        !(host = malloc(*bytes ? *bytes : 1)))
        return NULL;
    if (rt_memcpy_dtoh(c->device, host, p, *bytes, &ignored) == RT_OK)
        return host;
    free(host);
    return NULL;
}

/* Launches with tx_trace_buf pointing at a fresh buffer, waits, and adds
 * the records to the trace; a kernel without the global launches as is. */
static RtStatus launch_traced(void *user, const IrFunc *kernel, const RtLaunchConfig *cfg,
                              void **args, RtError *err)
{
    TraceRun *t = user;
    RtDevice *d = t->c->device;
    RtDevPtr var, buf = 0;
    size_t var_bytes;
    RtError none_here;
    if (rt_module_global(t->c->loaded, "tx_trace_buf", &var, &var_bytes, &none_here) != RT_OK)
        return launch_on_gpu(t->c, kernel, cfg, args, err);
    uint64_t warps = ((uint64_t)cfg->block[0] * cfg->block[1] * cfg->block[2] + 31) / 32;
    uint64_t slots = (uint64_t)cfg->grid[0] * cfg->grid[1] * cfg->grid[2] * warps;
    /* the records of every warp's slot must fit a size_t of bytes */
    uint64_t per_slot = 1 + 2 * (uint64_t)t->cap;
    if (slots > (SIZE_MAX / sizeof(uint64_t) - 2) / per_slot) {
        snprintf(err->message, sizeof err->message,
                 "trace buffer for %" PRIu64 " warps x %" PRIu64 " words does not fit memory",
                 slots, per_slot);
        return err->status = RT_ERR_USAGE;
    }
    size_t nwords = 2 + (size_t)(slots * per_slot), bytes = nwords * sizeof(uint64_t);
    uint64_t *host = calloc(nwords, sizeof *host);
    if (!host) {
        snprintf(err->message, sizeof err->message, "out of host memory for %zu trace bytes", bytes);
        return err->status = RT_ERR_USAGE;
    }
    host[0] = t->cap;
    host[1] = slots;
    RtStatus s = rt_mem_alloc(d, bytes, &buf, err);
    if (s == RT_OK)
        s = rt_memcpy_htod(d, buf, host, bytes, err);
    bool var_set = false;
    if (s == RT_OK)
        s = rt_memcpy_htod(d, var, &buf, sizeof buf, err);
    if (s == RT_OK) {
        var_set = true;
        s = launch_on_gpu(t->c, kernel, cfg, args, err);
    }
    if (s == RT_OK)
        s = rt_synchronize(d, cfg->stream, err);
    if (s == RT_OK)
        s = rt_memcpy_dtoh(d, host, buf, bytes, err);
    if (s == RT_OK) {
        size_t names_len = 0;
        char *names = read_global(t->c, "tx_trace_names", &names_len);
        rt_trace_add(&t->trace, kernel->name, host, nwords, names, names ? names_len : 0, warps);
        free(names);
        t->traced = true;
    }
    if (var_set) {
        /* a later untraced launch must not find the freed buffer */
        RtDevPtr none = 0;
        RtError reset_err;
        RtStatus r = rt_memcpy_htod(d, var, &none, sizeof none, &reset_err);
        if (s == RT_OK && r != RT_OK) {
            *err = reset_err;
            s = r;
        }
    }
    if (buf)
        rt_mem_free(d, buf);
    free(host);
    return s;
}

typedef struct TraceRender {
    const RtTrace *trace;
    unsigned svg_sms;
    char **json, **svg; /* NULL: not wanted */
} TraceRender;

static void render_trace(void *arg)
{
    TraceRender *r = arg;
    if (r->json)
        *r->json = rt_trace_json(r->trace);
    if (r->svg)
        *r->svg = rt_trace_svg(r->trace, r->svg_sms);
}

tirx_status tirx_launch_trace_to(tirx_function *f, const tirx_arg *args, size_t nargs,
                                 const tirx_trace_options *options, char **json, char **svg,
                                 tirx_error *err)
{
    if (json)
        *json = NULL;
    if (svg)
        *svg = NULL;
    if (!f || (!json && !svg))
        return fail(err, TIRX_ERR_USAGE, "no function or no place for the trace");
    tirx_trace_options o = options ? *options : (tirx_trace_options){0};
    ApiCompiled *c = f->module->compiled;
    TraceRun t = {.c = c, .cap = o.records_per_warp ? o.records_per_warp : 4096};
    if (t.cap > ((size_t)1 << 24))
        return fail(err, TIRX_ERR_USAGE, "records_per_warp is larger than 16777216");
    RtHostEnv env = {.module = f->module->ir, .launch = launch_traced, .encode = encode_on_gpu,
                     .user = &t, .device_id = rt_device_info(c->device)->ordinal};
    tirx_status st = run_host(f, args, nargs, &env, err);
    if (st == TIRX_OK && !t.traced)
        st = fail(err, TIRX_ERR_USAGE, "no kernel of the function records trace events (it has "
                                       "no T.cuda.iket calls, or its module was compiled "
                                       "without the trace option)");
    TraceRender r = {&t.trace, o.svg_sms, json, svg};
    if (st == TIRX_OK && !tx_guarded(render_trace, &r)) {
        if (json) {
            free(*json);
            *json = NULL;
        }
        st = fail(err, TIRX_ERR_NOMEM, "out of memory");
    }
    rt_trace_free(&t.trace);
    return st;
}

tirx_status tirx_launch_trace(tirx_function *f, const tirx_arg *args, size_t nargs,
                              size_t records_per_warp, char **json, tirx_error *err)
{
    if (!json)
        return fail(err, TIRX_ERR_USAGE, "no function or no place for the trace");
    tirx_trace_options o = {.records_per_warp = records_per_warp};
    return tirx_launch_trace_to(f, args, nargs, &o, json, NULL, err);
}

tirx_status tirx_check_args(const tirx_module *m, const char *name, const tirx_arg *args,
                            size_t nargs, tirx_error *err)
{
    const tirx_function *f = api_find_function(m, name, err);
    if (!f)
        return TIRX_ERR_USAGE;
    RtHostEnv env = {.module = m->ir, .device_id = -1, .any_device = true};
    return run_host(f, args, nargs, &env, err);
}

/* The bytes t reaches, [*first, *end) from data + byte_offset (a negative
 * stride reaches below it; NULL strides are compact); false when it has none. */
static bool tensor_span(const DLTensor *t, int64_t *first, int64_t *end)
{
    int64_t compact = 1, lo = 0, hi = 0, bits = t->dtype.bits * (int64_t)t->dtype.lanes;
    for (int d = t->ndim - 1; d >= 0 && t->shape; d--) {
        int64_t n = t->shape[d], s = t->strides ? t->strides[d] : compact, reach;
        if (n <= 0)
            return false;
        if (__builtin_mul_overflow(n - 1, s, &reach) ||
            __builtin_add_overflow(reach < 0 ? lo : hi, reach, reach < 0 ? &lo : &hi) ||
            __builtin_mul_overflow(compact, n, &compact))
            return false; /* the checks refuse such a tensor; give the kernels none of it */
    }
    /* in bits, as fp4 and fp6 are packed: lo (<= 0) rounded down, hi + 1 up */
    if (__builtin_mul_overflow(lo, bits, &lo) || __builtin_sub_overflow(lo, 7, &lo) ||
        __builtin_mul_overflow(hi, bits, &hi) || __builtin_add_overflow(hi, bits + 7, &hi))
        return false;
    *first = lo / 8, *end = hi / 8;
    return true;
}

/* Every tensor argument must be host memory; each becomes global memory the
 * simulated kernels may touch. */
static tirx_status host_tensors(const tirx_function *f, const tirx_arg *args, size_t nargs,
                                SimSession *ss, tirx_error *err)
{
    for (size_t i = 0; i < nargs && args; i++) {
        if (args[i].kind != TIRX_ARG_TENSOR || !args[i].v.tensor)
            continue;
        const DLTensor *t = (const DLTensor *)args[i].v.tensor;
        if (t->device.device_type != kDLCPU) {
            char msg[300], name[64];
            if (i < (size_t)f->host->nparams) /* named as every other argument error is */
                snprintf(name, sizeof name, "%s", f->host->params[i]->u.var.name);
            else
                snprintf(name, sizeof name, "%zu", i + 1);
            snprintf(msg, sizeof msg, "%s: argument %s: the simulator needs a host (kDLCPU) "
                     "tensor", f->host->name, name);
            return fail(err, TIRX_ERR_USAGE, msg);
        }
        int64_t first = 0, end = 0;
        if (!tensor_span(t, &first, &end))
            first = end = 0;
        sim_add_global(ss, (char *)t->data + t->byte_offset + first, (size_t)(end - first),
                       i < (size_t)f->host->nparams ? f->host->params[i]->u.var.name : NULL);
    }
    return TIRX_OK;
}

/* Simulates function `name` of m; with trace, each launch's T.cuda.iket
 * records (records_per_warp per warp) are added to it. */
static tirx_status simulate(tirx_module *m, const char *name, const tirx_arg *args, size_t nargs,
                            RtTrace *trace, size_t records_per_warp, tirx_error *err)
{
    const tirx_function *f = api_find_function(m, name, err);
    if (!f)
        return TIRX_ERR_USAGE;
    /* a cache hit holds the host part and the kernels' signatures, not their bodies */
    if (m->compiled->cached)
        return fail(err, TIRX_ERR_USAGE, "the module came from the compile cache without its "
                    "device code: compile it with no_binary or no_cache to simulate it");
    double timeout_s;
    RtError timeout_err;
    if (rt_kernel_timeout(&timeout_s, &timeout_err) != RT_OK)
        return fail(err, TIRX_ERR_USAGE, timeout_err.message);
    SimSession ss;
    sim_session_init(&ss);
    ss.trace = trace, ss.trace_cap = records_per_warp, ss.timeout_s = timeout_s;
    tirx_status st = host_tensors(f, args, nargs, &ss, err);
    RtHostEnv env = {.module = m->ir, .launch = sim_launch, .encode = sim_encode, .user = &ss,
                     .device_id = -1, .any_device = true};
    if (st == TIRX_OK)
        st = run_host(f, args, nargs, &env, err);
    sim_session_free(&ss);
    return st;
}

tirx_status tirx_simulate(tirx_module *m, const char *name, const tirx_arg *args, size_t nargs,
                          tirx_error *err)
{
    return simulate(m, name, args, nargs, NULL, 0, err);
}

tirx_status tirx_simulate_trace_to(tirx_module *m, const char *name, const tirx_arg *args,
                                   size_t nargs, const tirx_trace_options *options, char **json,
                                   char **svg, tirx_error *err)
{
    if (json)
        *json = NULL;
    if (svg)
        *svg = NULL;
    if (!m || (!json && !svg))
        return fail(err, TIRX_ERR_USAGE, "no module or no place for the trace");
    tirx_trace_options o = options ? *options : (tirx_trace_options){0};
    size_t cap = o.records_per_warp ? o.records_per_warp : 4096;
    if (cap > ((size_t)1 << 24))
        return fail(err, TIRX_ERR_USAGE, "records_per_warp is larger than 16777216");
    /* as on the GPU: the module's kernels record events when its CUDA has the buffer */
    const char *cuda = m->compiled ? m->compiled->cuda : NULL;
    if (!cuda || !strstr(cuda, "tx_trace_buf"))
        return fail(err, TIRX_ERR_USAGE, "no kernel of the function records trace events (it "
                    "has no T.cuda.iket calls, or its module was compiled without the trace "
                    "option)");
    RtTrace trace = {0};
    tirx_status st = simulate(m, name, args, nargs, &trace, cap, err);
    TraceRender r = {&trace, o.svg_sms, json, svg};
    if (st == TIRX_OK && !tx_guarded(render_trace, &r)) {
        if (json) {
            free(*json);
            *json = NULL;
        }
        st = fail(err, TIRX_ERR_NOMEM, "out of memory");
    }
    rt_trace_free(&trace);
    return st;
}
