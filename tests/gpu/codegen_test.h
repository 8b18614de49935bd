/* What the code generator's GPU tests share: kernels in the IR contract's
 * form are generated with cg_emit_module for a target and compiled with the
 * prelude, with its hardware or its software fp8 conversions; device
 * buffers, launches (each waited for) and copies.
 *
 * Built with OP_SIM=1 (the sim.* tests of the CPU suite), the same test runs
 * the same IR in the simulator (sim_launch, as sm_90a): the CUDA is still
 * generated, "device" buffers are host memory the simulation may touch and
 * a launch is a simulation of the kernel with the launch's configuration
 * (grid, block, cluster). The prelude's two fp8 paths are one here: the
 * simulator has one conversion, the GPU's. */
#ifndef TIRX_GPU_CODEGEN_TEST_H
#define TIRX_GPU_CODEGEN_TEST_H

#include "gpu_test.h"

#include "script/script.h"
#include "sim/sim.h"
#include "target/cuda/codegen.h"

/* The device: the GPU, or (OP_SIM) the simulator's session. */
typedef struct CgDevice {
    RtDevice *rt;
    SimSession sim;
    int sm;       /* the code generator's target */
    int sm_count; /* the GPU's (0 in the simulator) */
    const char *arch;
    void *host[32]; /* OP_SIM: the "device" buffers, freed with the device */
    int nhost;
} CgDevice;

/* The kernels of one build: the driver's module, or the IR the simulator runs. */
typedef struct CgKernels {
    RtModule *rt;
    IrModule *ir;
} CgKernels;

/* The GPU (a skip without one, or one older than min_cc_major), or the simulator. */
static inline void cg_open(CgDevice *d, int min_cc_major)
{
    memset(d, 0, sizeof *d);
    if (OP_SIM) {
        sim_session_init(&d->sim);
        d->sm = 90;
        d->arch = "sm_90a";
        printf("simulator: %s\n", d->arch);
        return;
    }
    d->rt = gpu_open(min_cc_major);
    const RtDeviceInfo *info = rt_device_info(d->rt);
    d->sm = ir_target_sm(info->arch);
    d->sm_count = info->sm_count;
    d->arch = info->arch;
}

static inline void cg_close(CgDevice *d)
{
    if (OP_SIM) {
        sim_session_free(&d->sim);
        for (int i = 0; i < d->nhost; i++)
            free(d->host[i]);
    } else
        rt_device_close(d->rt);
}

/* The kernels of the module `text` (named `name` in diagnostics), generated
 * for the device's target and built (kept as IR under OP_SIM). */
static inline CgKernels cg_test_build(CgDevice *d, const char *text, const char *name,
                                      bool software_fp8)
{
    IrModule *m = sc_parse(text, strlen(text), name, NULL, 0);
    CgOptions o = {.sm = d->sm};
    TxBuf out = {0};
    GPU_CHECK(d->sm, "the device's target is one codegen knows");
    bool ok = !m->diags.nerrors && cg_emit_module(m, &o, &out);
    for (int i = 0; i < m->diags.list.len; i++) {
        TxBuf b = {0};
        tx_diag_render(&m->diags.list.items[i], &b);
        fputs(b.data, stderr);
        tx_buf_free(&b);
    }
    GPU_CHECK(ok, "codegen of the test kernels");
    CgKernels k = {0};
    if (OP_SIM) {
        k.ir = m;
    } else {
        static const char *const soft[] = {"TX_FP8_SOFTWARE"};
        RtHeader prelude = {cg_prelude_name(), cg_prelude_text()};
        RtCompileOptions co = {.lineinfo = true, .headers = &prelude, .nheaders = 1,
                               .defines = software_fp8 ? soft : NULL,
                               .ndefines = software_fp8 ? 1 : 0};
        k.rt = gpu_build(d->rt, out.data, &co);
        ir_module_free(m);
    }
    tx_buf_free(&out);
    return k;
}

static inline void cg_kernels_free(CgKernels *k)
{
    if (k->ir)
        ir_module_free(k->ir);
    if (k->rt)
        rt_module_unload(k->rt);
}

/* n bytes of device memory, poisoned (all bits set). */
static inline RtDevPtr cg_alloc(CgDevice *d, size_t n)
{
    if (!OP_SIM)
        return gpu_alloc_poisoned(d->rt, n);
    void *p = aligned_alloc(256, (n + 255) / 256 * 256);
    GPU_CHECK(p != NULL && d->nhost < (int)TX_ARRAY_LEN(d->host), "host memory");
    d->host[d->nhost++] = p;
    memset(p, 0xff, n);
    sim_add_global(&d->sim, p, n, NULL);
    return (RtDevPtr)(uintptr_t)p;
}

/* Under OP_SIM the buffer stays until cg_close (the session keeps its region). */
static inline void cg_free(CgDevice *d, RtDevPtr p)
{
    if (!OP_SIM)
        rt_mem_free(d->rt, p);
}

static inline void cg_upload(CgDevice *d, RtDevPtr p, const void *host, size_t n)
{
    RtError err;
    if (OP_SIM)
        memcpy((void *)(uintptr_t)p, host, n);
    else
        GPU_OK(rt_memcpy_htod(d->rt, p, host, n, &err), err);
}

static inline void cg_download(CgDevice *d, void *host, RtDevPtr p, size_t n)
{
    RtError err;
    if (OP_SIM)
        memcpy(host, (const void *)(uintptr_t)p, n);
    else
        GPU_OK(rt_memcpy_dtoh(d->rt, host, p, n, &err), err);
}

static inline void cg_poison(CgDevice *d, RtDevPtr p, size_t n)
{
    RtError err;
    if (OP_SIM)
        memset((void *)(uintptr_t)p, 0xff, n);
    else
        GPU_OK(rt_memset8(d->rt, p, 0xff, n, &err), err);
}

/* Launches kernel `name` and waits for it (simulates it under OP_SIM; a
 * kernel error fails the test with the simulator's message). */
static inline void cg_launch(CgDevice *d, const CgKernels *k, const char *name,
                             const RtLaunchConfig *cfg, void **args)
{
    RtError err;
    if (!OP_SIM) {
        GPU_OK(rt_launch(gpu_function(k->rt, name), cfg, args, &err), err);
        GPU_OK(rt_synchronize(d->rt, NULL, &err), err);
        return;
    }
    for (int i = 0; i < k->ir->nfuncs; i++) {
        if (!strcmp(k->ir->funcs[i]->name, name)) {
            GPU_OK(sim_launch(&d->sim, k->ir->funcs[i], cfg, args, &err), err);
            return;
        }
    }
    gpu_fail_at(__FILE__, __LINE__, "no such kernel", name);
}

#endif
