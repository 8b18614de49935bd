/* Unit tests of the CUDA code generator's API (src/target/cuda/codegen.h):
 * the tcgen05 instruction descriptor's bits and its checks (reference
 * cuda_backend.md 2.5: worked values, every kind, the shapes, transposes,
 * negation, saturation), target names, kernel detection, byte-identical
 * output across independent parses and across print -> parse, and the
 * prelude's self-containment. The generated code itself is tested by
 * tests/codegen (FileCheck and NVRTC). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "script/script.h"
#include "ir/ptx.h"
#include "target/cuda/codegen.h"

/* ---------------------------------------------------------------- the instruction descriptor */

static uint32_t desc_ok(IrInstrDesc d)
{
    uint32_t v = 0;
    char err[256] = "";
    if (!d.cta_group)
        d.cta_group = 1;
    bool ok = ir_tcgen05_instr_desc(&d, &v, err, sizeof err);
    if (!ok)
        fail_msg("unexpected error: %s", err);
    return v;
}

static void desc_fails(IrInstrDesc d, const char *fragment)
{
    uint32_t v = 0;
    char err[256] = "";
    if (!d.cta_group)
        d.cta_group = 1;
    assert_false(ir_tcgen05_instr_desc(&d, &v, err, sizeof err));
    if (!strstr(err, fragment))
        fail_msg("'%s' does not mention '%s'", err, fragment);
}

static void test_instr_desc_worked_values(void **state)
{
    (void)state;
    /* cuda_backend.md 2.5: f16 x f16 -> f32, M = N = 128, both K-major */
    assert_int_equal(desc_ok((IrInstrDesc){"f32", "f16", "f16", 128, 128, 16}), 0x08200010);
    assert_int_equal(desc_ok((IrInstrDesc){"f32", "bf16", "bf16", 128, 128, 16}), 0x08200490);
    /* tirx dtype names are accepted too */
    assert_int_equal(desc_ok((IrInstrDesc){"float32", "bfloat16", "bfloat16", 128, 128, 16}), 0x08200490);
}

static void test_instr_desc_fields(void **state)
{
    (void)state;
    /* f16 accumulator: D format 0 */
    assert_int_equal(desc_ok((IrInstrDesc){"f16", "f16", "f16", 64, 8, 16}),
                     (8u >> 3) << 17 | (64u >> 4) << 24);
    /* tf32: A/B format 2, K = 8 */
    assert_int_equal(desc_ok((IrInstrDesc){"f32", "tf32", "tf32", 128, 256, 8}),
                     1u << 4 | 2u << 7 | 2u << 10 | (256u >> 3) << 17 | (128u >> 4) << 24);
    /* fp8: e4m3 0, e5m2 1; e2m1 5 */
    assert_int_equal(desc_ok((IrInstrDesc){"f32", "e4m3", "e5m2", 128, 64, 32}),
                     1u << 4 | 0u << 7 | 1u << 10 | (64u >> 3) << 17 | (128u >> 4) << 24);
    assert_int_equal(desc_ok((IrInstrDesc){"f32", "e2m1", "e2m1", 128, 64, 32}) >> 7 & 0x3f, 5 | 5 << 3);
    /* i8: S32 D format 2, s8 1 / u8 0, N = 24 is one of i8's extra sizes, saturate bit 3 */
    assert_int_equal(desc_ok((IrInstrDesc){"s32", "s8", "u8", 128, 24, 32, .sat_d = true}),
                     1u << 3 | 2u << 4 | 1u << 7 | 0u << 10 | (24u >> 3) << 17 | (128u >> 4) << 24);
    /* MN-major operands, negation */
    assert_int_equal(desc_ok((IrInstrDesc){"f32", "f16", "f16", 128, 128, 16, .trans_a = true,
                                           .trans_b = true, .neg_a = true, .neg_b = true}),
                     0x08200010u | 1u << 13 | 1u << 14 | 1u << 15 | 1u << 16);
    /* cta_group::2, M = 256; sparse doubles K and sets bit 2 */
    assert_int_equal(desc_ok((IrInstrDesc){"f32", "f16", "f16", 256, 256, 16, .cta_group = 2}),
                     1u << 4 | (256u >> 3) << 17 | (256u >> 4) << 24);
    assert_int_equal(desc_ok((IrInstrDesc){"f32", "f16", "f16", 128, 128, 32, .sparse = true}),
                     0x08200010u | 1u << 2);
}

static void test_instr_desc_errors(void **state)
{
    (void)state;
    desc_fails((IrInstrDesc){"f32", "f16", "e4m3", 128, 128, 16}, "no kind");
    desc_fails((IrInstrDesc){"f16", "bf16", "bf16", 128, 128, 16}, "no kind");
    desc_fails((IrInstrDesc){"f32", "f17", "f16", 128, 128, 16}, "no kind");
    desc_fails((IrInstrDesc){"f32", "f16", "f16", 128, 12, 16}, "128x12x16");
    desc_fails((IrInstrDesc){"f32", "f16", "f16", 128, 264, 16}, "shape");
    desc_fails((IrInstrDesc){"f32", "f16", "f16", 32, 128, 16}, "shape");
    desc_fails((IrInstrDesc){"f32", "f16", "f16", 128, 128, 32}, "shape");
    desc_fails((IrInstrDesc){"f32", "f16", "f16", 64, 128, 16, .cta_group = 2}, "cta_group::2");
    desc_fails((IrInstrDesc){"f32", "e2m1", "e2m1", 128, 64, 32, .trans_a = true}, "MN-major");
    desc_fails((IrInstrDesc){"s32", "s8", "s8", 128, 64, 32, .neg_a = true}, "negate");
    desc_fails((IrInstrDesc){"f32", "f16", "f16", 128, 128, 16, .sat_d = true}, "saturates");
}

static void test_instr_desc_block_scaled(void **state)
{
    (void)state;
    /* mxf8f6f4: e8m0 factors (bit 23), M 128 only at cta_group::1, N steps of 8 */
    assert_int_equal(desc_ok((IrInstrDesc){"f32", "e4m3", "e4m3", 128, 64, 32,
                                           .sf_dtype = "float8_e8m0fnu"}),
                     1u << 23 | (64u >> 3) << 17 | (128u >> 4) << 24);
    /* the scale-factor ids: B's in bits 4-5, A's in bits 29-30 */
    assert_int_equal(desc_ok((IrInstrDesc){"f32", "e5m2", "e4m3", 128, 8, 32, .sf_id_a = 3,
                                           .sf_id_b = 2, .sf_dtype = "ue8m0"}),
                     2u << 4 | 1u << 7 | 1u << 17 | 1u << 23 | 8u << 24 | 3u << 29);
    /* e2m1 with e8m0 factors is mxf4, with e4m3 mxf4nvf4: formats 1, K 64 */
    assert_int_equal(desc_ok((IrInstrDesc){"f32", "e2m1", "e2m1", 128, 256, 64,
                                           .sf_dtype = "float8_e4m3fn"}),
                     1u << 7 | 1u << 10 | (256u >> 3) << 17 | (128u >> 4) << 24);
    assert_string_equal(ir_tcgen05_kind("f32", "e2m1", "e2m1", "float8_e8m0fnu"), "mxf4");
    assert_string_equal(ir_tcgen05_kind("f32", "e2m1", "e2m1", "float8_e4m3fn"), "mxf4nvf4");
    assert_string_equal(ir_tcgen05_kind("f32", "e4m3", "e2m3", "float8_e8m0fnu"), "mxf8f6f4");
    assert_null(ir_tcgen05_kind("f32", "e4m3", "e4m3", "float8_e4m3fn"));
    assert_null(ir_tcgen05_kind("f32", "f16", "f16", "float8_e8m0fnu"));
    assert_int_equal(ir_tcgen05_mma_k("mxf4nvf4"), 64);
    assert_int_equal(ir_tcgen05_mma_k("mxf8f6f4"), 32);
    desc_fails((IrInstrDesc){"f32", "e4m3", "e4m3", 64, 64, 32, .sf_dtype = "ue8m0"}, "shape");
    desc_fails((IrInstrDesc){"f32", "e4m3", "e4m3", 128, 64, 32, .sf_dtype = "ue8m0",
                             .sf_id_a = 4}, "scale-factor ids");
    desc_fails((IrInstrDesc){"f32", "e4m3", "e4m3", 128, 64, 32, .sf_id_b = 1}, "block-scaled");
    desc_fails((IrInstrDesc){"f32", "e4m3", "e4m3", 128, 64, 32, .sf_dtype = "uint8"}, "no kind");
}

/* ---------------------------------------------------------------- targets and kernels */

static void test_targets(void **state)
{
    (void)state;
    assert_int_equal(ir_target_sm("sm_80"), 80);
    assert_int_equal(ir_target_sm("sm_90a"), 90);
    assert_int_equal(ir_target_sm("sm_100a"), 100);
    assert_int_equal(ir_target_sm("sm_90"), 0);
    assert_int_equal(ir_target_sm(NULL), 0);
    assert_string_equal(ir_target_name(100), "sm_100a");
}

static const char kernel_text[] =
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func\n"
    "    def zeta(A_data: T.handle(\"float32\", \"global\"), n: T.int32):\n"
    "        T.func_attr({\"calling_conv\": 2, \"target\": \"cuda\", \"tirx.kernel_launch_params\": [\"threadIdx.x\"]})\n"
    "        threadIdx_x = T.launch_thread(\"threadIdx.x\", 128)\n"
    "        A = T.decl_buffer((n,), data=A_data, layout=None)\n"
    "        S = T.alloc_buffer((128,), \"float32\", scope=\"shared\", layout=None)\n"
    "        a: T.let[T.int32] = threadIdx_x - 64\n"
    "        b: T.let[T.int32] = threadIdx_x - 64\n"
    "        S[threadIdx_x] = A[threadIdx_x] * T.float32(2)\n"
    "        A[threadIdx_x] = S[127 - threadIdx_x] + T.Cast(\"float32\", a // 3 + b % 5)\n"
    "\n"
    "    @T.prim_func\n"
    "    def alpha(B_data: T.handle(\"float32\", \"global\")):\n"
    "        T.func_attr({\"calling_conv\": 2, \"target\": \"cuda\", \"tirx.kernel_launch_params\": [\"threadIdx.x\"]})\n"
    "        threadIdx_x = T.launch_thread(\"threadIdx.x\", 32)\n"
    "        B = T.decl_buffer((32,), data=B_data, layout=None)\n"
    "        B[threadIdx_x] = T.float32(1)\n"
    "\n"
    "    @T.prim_func\n"
    "    def host(C: T.Buffer((4,), \"float32\")):\n"
    "        C[0] = T.float32(0)\n";

static char *generate(const char *text, bool lines)
{
    IrModule *m = sc_parse(text, strlen(text), "unit.tirx", NULL, 0);
    assert_int_equal(m->diags.nerrors, 0);
    CgOptions o = {.sm = 90, .no_lines = !lines};
    TxBuf out = {0};
    assert_true(cg_emit_module(m, &o, &out));
    ir_module_free(m);
    return tx_buf_take(&out);
}

static void test_kernels_only(void **state)
{
    (void)state;
    IrModule *m = sc_parse(kernel_text, strlen(kernel_text), "unit.tirx", NULL, 0);
    int kernels = 0;
    for (int i = 0; i < m->nfuncs; i++)
        kernels += cg_is_kernel(m->funcs[i]);
    assert_int_equal(kernels, 2);
    ir_module_free(m);
    char *src = generate(kernel_text, true);
    assert_non_null(strstr(src, "void __launch_bounds__(32) alpha("));
    assert_non_null(strstr(src, "void __launch_bounds__(128) zeta("));
    assert_true(strstr(src, " alpha(") < strstr(src, " zeta(")); /* name order */
    assert_null(strstr(src, "host"));
    assert_non_null(strstr(src, "#line 4 \"unit.tirx\""));
    /* a and b are not known non-negative: floor semantics through the prelude */
    assert_non_null(strstr(src, "tx_floordiv(a, 3) + tx_floormod(b, 5)"));
    free(src);
}

/* Independent parses (other addresses), with unrelated allocations in
 * between, and a parse of the printed module generate the same bytes. */
static void test_byte_identical(void **state)
{
    (void)state;
    char *first = generate(kernel_text, true);
    void *noise[64];
    for (int i = 0; i < 64; i++)
        noise[i] = malloc((size_t)(i * 37 + 1));
    char *second = generate(kernel_text, true);
    assert_string_equal(first, second);
    for (int i = 0; i < 64; i++)
        free(noise[i]);
    IrModule *m = sc_parse(kernel_text, strlen(kernel_text), "unit.tirx", NULL, 0);
    char *printed = sc_print(m);
    ir_module_free(m);
    char *a = generate(kernel_text, false), *b = generate(printed, false);
    assert_string_equal(a, b);
    free(printed);
    free(a);
    free(b);
    free(first);
    free(second);
}

static void test_target_error(void **state)
{
    (void)state;
    IrModule *m = sc_parse(kernel_text, strlen(kernel_text), "unit.tirx", NULL, 0);
    CgOptions o = {.sm = 75};
    TxBuf out = {0};
    assert_false(cg_emit_module(m, &o, &out));
    assert_int_equal(m->diags.nerrors, 1);
    tx_buf_free(&out);
    ir_module_free(m);
}

static void test_prelude(void **state)
{
    (void)state;
    const char *p = cg_prelude_text();
    assert_string_equal(cg_prelude_name(), "tirx_cuda.h");
    assert_non_null(strstr(p, "struct alignas(64) CUtensorMap"));
    assert_non_null(strstr(p, "struct alignas(2) half"));
    assert_non_null(strstr(p, "struct alignas(1) fp8_e4m3"));
    assert_null(strstr(p, "#include <cuda"));
    assert_null(strstr(p, "#include \"cuda"));
    /* the only include is <stdint.h>, outside NVRTC */
    const char *inc = strstr(p, "#include");
    assert_non_null(inc);
    assert_int_equal(strncmp(inc, "#include <stdint.h>", 19), 0);
    assert_null(strstr(inc + 1, "#include"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_instr_desc_worked_values),
        cmocka_unit_test(test_instr_desc_fields),
        cmocka_unit_test(test_instr_desc_errors),
        cmocka_unit_test(test_instr_desc_block_scaled),
        cmocka_unit_test(test_targets),
        cmocka_unit_test(test_kernels_only),
        cmocka_unit_test(test_byte_identical),
        cmocka_unit_test(test_target_error),
        cmocka_unit_test(test_prelude),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
