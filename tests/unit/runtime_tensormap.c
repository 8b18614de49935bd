/* Unit tests of the tensor-map checks (rt_tensor_map_check): each of the
 * driver's documented rules for cuTensorMapEncodeTiled is violated once, on
 * top of a valid 2-d bf16 map with a 128-byte swizzle, and the message must
 * name what is wrong. No driver is needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "runtime/runtime.h"

/* A 1000 x 4096 bf16 matrix, 64 x 128 boxes, 128-byte swizzle: valid. */
static RtTensorMapSpec valid_spec(void)
{
    return (RtTensorMapSpec){
        .dtype = RT_TMA_BFLOAT16,
        .rank = 2,
        .global_address = 0x7f0000000000,
        .global_dim = {4096, 1000},
        .global_strides = {4096 * 2},
        .box_dim = {64, 128},
        .swizzle = RT_TMA_SWIZZLE_128B,
        .l2_promotion = RT_TMA_L2_128B,
    };
}

static void assert_rejected(const RtTensorMapSpec *s, const char *expect)
{
    RtError err;
    assert_int_equal(rt_tensor_map_check(s, &err), RT_ERR_USAGE);
    if (!strstr(err.message, expect))
        fail_msg("message '%s' lacks '%s'", err.message, expect);
    assert_non_null(strstr(err.message, "tensor map: "));
}

static void test_valid(void **state)
{
    (void)state;
    RtTensorMapSpec s = valid_spec();
    RtError err;
    assert_int_equal(rt_tensor_map_check(&s, &err), RT_OK);
    s.element_strides[0] = 1, s.element_strides[1] = 2;
    assert_int_equal(rt_tensor_map_check(&s, &err), RT_OK);
    /* 5-d fp32, 32-byte interleave with its 32-byte swizzle. */
    RtTensorMapSpec t = {.dtype = RT_TMA_FLOAT32, .rank = 5, .global_address = 64,
                         .global_dim = {8, 4, 4, 4, 4}, .global_strides = {32, 128, 512, 2048},
                         .box_dim = {8, 4, 4, 4, 4}, .interleave = RT_TMA_INTERLEAVE_32B,
                         .swizzle = RT_TMA_SWIZZLE_32B};
    assert_int_equal(rt_tensor_map_check(&t, &err), RT_OK);
}

static void test_shape_rules(void **state)
{
    (void)state;
    RtTensorMapSpec s = valid_spec();
    s.rank = 0;
    assert_rejected(&s, "rank 0 is not in 1..5");
    s = valid_spec();
    s.rank = 6;
    assert_rejected(&s, "rank 6");
    s = valid_spec();
    s.global_dim[1] = 0;
    assert_rejected(&s, "global_dim[1] = 0 is not in 1..2^32");
    s = valid_spec();
    s.global_dim[0] = ((uint64_t)1 << 32) + 1;
    assert_rejected(&s, "global_dim[0]");
    s = valid_spec();
    s.global_strides[0] = 4096 * 2 + 8;
    assert_rejected(&s, "global_strides[0] = 8200 bytes is not a multiple of 16");
    s = valid_spec();
    s.global_strides[0] = (uint64_t)1 << 40;
    assert_rejected(&s, "below 2^40");
    s = valid_spec();
    s.box_dim[1] = 257;
    assert_rejected(&s, "box_dim[1] = 257 is not in 1..256");
    s = valid_spec();
    s.element_strides[0] = 1, s.element_strides[1] = 9;
    assert_rejected(&s, "element_strides[1] = 9 is not in 1..8");
}

static void test_alignment_rules(void **state)
{
    (void)state;
    RtTensorMapSpec s = valid_spec();
    s.global_address += 8;
    assert_rejected(&s, "is not 16-byte aligned");
    s = valid_spec();
    s.box_dim[0] = 4; /* 8 bytes */
    assert_rejected(&s, "inner extent, 8 bytes (box_dim[0] = 4 of BFLOAT16), is not a multiple of 16");
    s = valid_spec();
    s.box_dim[0] = 128; /* 256 bytes under a 128-byte swizzle */
    assert_rejected(&s, "256 bytes, exceeds the 128-byte swizzle span");
    s.swizzle = RT_TMA_SWIZZLE_NONE;
    RtError err;
    assert_int_equal(rt_tensor_map_check(&s, &err), RT_OK);
    s.swizzle = RT_TMA_SWIZZLE_32B;
    s.box_dim[0] = 32; /* 64 bytes */
    assert_rejected(&s, "exceeds the 32-byte swizzle span");
}

static void test_mode_rules(void **state)
{
    (void)state;
    RtTensorMapSpec s = valid_spec();
    s.interleave = RT_TMA_INTERLEAVE_16B;
    assert_rejected(&s, "interleaved layout needs rank >= 3, not 2");
    s = valid_spec();
    s.rank = 3, s.global_dim[2] = 2, s.global_strides[1] = 4096 * 2 * 1000, s.box_dim[2] = 1;
    s.interleave = RT_TMA_INTERLEAVE_32B;
    assert_rejected(&s, "32-byte interleave needs the 32-byte swizzle");
    s = valid_spec();
    s.dtype = RT_TMA_INT32, s.box_dim[0] = 32;
    s.oob_fill = RT_TMA_OOB_NAN;
    assert_rejected(&s, "NaN out-of-bounds fill needs a float dtype, not INT32");
    s = valid_spec();
    s.dtype = (RtTmaDtype)42;
    assert_rejected(&s, "unknown dtype 42");
    s = valid_spec();
    s.swizzle = (RtTmaSwizzle)9;
    assert_rejected(&s, "out of range");
}

static void test_packed_rules(void **state)
{
    (void)state;
    /* fp4 as 16U4_ALIGN16B: 128-value inner box, 32-byte alignment. */
    RtTensorMapSpec s = {.dtype = RT_TMA_16U4_ALIGN16B, .rank = 2, .global_address = 1024,
                         .global_dim = {256, 64}, .global_strides = {256},
                         .box_dim = {128, 64}, .swizzle = RT_TMA_SWIZZLE_128B};
    RtError err;
    assert_int_equal(rt_tensor_map_check(&s, &err), RT_OK);
    RtTensorMapSpec t = s;
    t.global_address = 1024 + 16;
    assert_rejected(&t, "is not 32-byte aligned");
    t = s;
    t.box_dim[0] = 64;
    assert_rejected(&t, "box_dim[0] of 16U4_ALIGN16B must be 128, not 64");
    t = s;
    t.global_dim[0] = 192;
    assert_rejected(&t, "global_dim[0] = 192 of 16U4_ALIGN16B is not a multiple of 128");
    t = s;
    t.global_strides[0] = 272;
    assert_rejected(&t, "is not a multiple of 32");
    t = s;
    t.swizzle = RT_TMA_SWIZZLE_64B;
    assert_rejected(&t, "16U4_ALIGN16B does not support swizzle mode 2");
    t = s;
    t.dtype = RT_TMA_16U4_ALIGN8B, t.global_address = 1040, t.global_dim[0] = 255;
    t.global_strides[0] = 128;
    assert_rejected(&t, "global_dim[0] = 255 of 16U4_ALIGN8B is odd");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid),
        cmocka_unit_test(test_shape_rules),
        cmocka_unit_test(test_alignment_rules),
        cmocka_unit_test(test_mode_rules),
        cmocka_unit_test(test_packed_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
