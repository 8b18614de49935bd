/* What the code generator's GPU tests share: kernels in the IR contract's
 * form are generated with cg_emit_module for a target and compiled with the
 * prelude, with its hardware or its software fp8 conversions. */
#ifndef TIRX_GPU_CODEGEN_TEST_H
#define TIRX_GPU_CODEGEN_TEST_H

#include "gpu_test.h"

#include "script/script.h"
#include "target/cuda/codegen.h"

/* The CUDA of the module `text` (named `name` in diagnostics) for sm_<sm>. */
static char *cg_test_generate(const char *text, const char *name, int sm)
{
    IrModule *m = sc_parse(text, strlen(text), name, NULL, 0);
    CgOptions o = {.sm = sm};
    TxBuf out = {0};
    GPU_CHECK(sm, "the device's target is one codegen knows");
    bool ok = !m->diags.nerrors && cg_emit_module(m, &o, &out);
    for (int i = 0; i < m->diags.list.len; i++) {
        TxBuf b = {0};
        tx_diag_render(&m->diags.list.items[i], &b);
        fputs(b.data, stderr);
        tx_buf_free(&b);
    }
    ir_module_free(m);
    GPU_CHECK(ok, "codegen of the test kernels");
    return tx_buf_take(&out);
}

static RtModule *cg_test_build(RtDevice *d, const char *source, bool software_fp8)
{
    static const char *const soft[] = {"TX_FP8_SOFTWARE"};
    RtHeader prelude = {cg_prelude_name(), cg_prelude_text()};
    RtCompileOptions o = {.lineinfo = true, .headers = &prelude, .nheaders = 1,
                          .defines = software_fp8 ? soft : NULL, .ndefines = software_fp8 ? 1 : 0};
    return gpu_build(d, source, &o);
}

#endif
