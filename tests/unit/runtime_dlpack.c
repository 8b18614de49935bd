/* Unit tests of src/runtime/dlpack.h, our own declaration of the DLPack ABI:
 * the layout a producer and a consumer share. When a system
 * <dlpack/dlpack.h> is installed (Debian's libdlpack-dev is 0.6), its
 * structs are compiled under other names in this file and every shared
 * struct, field offset and enum value must match ours; without it that test
 * is skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<dlpack/dlpack.h>)
#define HAVE_SYSTEM_DLPACK 1
#endif
#endif

#ifdef HAVE_SYSTEM_DLPACK
/* The system header's names, moved aside so ours can be included too. */
#define DLDeviceType sys_DLDeviceType
#define DLDevice sys_DLDevice
#define DLDataTypeCode sys_DLDataTypeCode
#define DLDataType sys_DLDataType
#define DLTensor sys_DLTensor
#define DLManagedTensor sys_DLManagedTensor
#define DLManagedTensorVersioned sys_DLManagedTensorVersioned
#define DLPackVersion sys_DLPackVersion
#define kDLCPU sys_kDLCPU
#define kDLCUDA sys_kDLCUDA
#define kDLCUDAHost sys_kDLCUDAHost
#define kDLOpenCL sys_kDLOpenCL
#define kDLVulkan sys_kDLVulkan
#define kDLMetal sys_kDLMetal
#define kDLVPI sys_kDLVPI
#define kDLROCM sys_kDLROCM
#define kDLROCMHost sys_kDLROCMHost
#define kDLExtDev sys_kDLExtDev
#define kDLCUDAManaged sys_kDLCUDAManaged
#define kDLInt sys_kDLInt
#define kDLUInt sys_kDLUInt
#define kDLFloat sys_kDLFloat
#define kDLOpaqueHandle sys_kDLOpaqueHandle
#define kDLBfloat sys_kDLBfloat
#define kDLComplex sys_kDLComplex
#include <dlpack/dlpack.h>
#undef DLDeviceType
#undef DLDevice
#undef DLDataTypeCode
#undef DLDataType
#undef DLTensor
#undef DLManagedTensor
#undef DLManagedTensorVersioned
#undef DLPackVersion
#undef kDLCPU
#undef kDLCUDA
#undef kDLCUDAHost
#undef kDLOpenCL
#undef kDLVulkan
#undef kDLMetal
#undef kDLVPI
#undef kDLROCM
#undef kDLROCMHost
#undef kDLExtDev
#undef kDLCUDAManaged
#undef kDLInt
#undef kDLUInt
#undef kDLFloat
#undef kDLOpaqueHandle
#undef kDLBfloat
#undef kDLComplex
#endif

#include "runtime/dlpack.h"

#define SAME_FIELD(ours, theirs, field)                                      \
    assert_int_equal(offsetof(ours, field), offsetof(theirs, field));         \
    assert_int_equal(sizeof(((ours *)0)->field), sizeof(((theirs *)0)->field))

static void test_system_header(void **state)
{
    (void)state;
#ifdef HAVE_SYSTEM_DLPACK
    assert_int_equal(sizeof(DLDevice), sizeof(sys_DLDevice));
    SAME_FIELD(DLDevice, sys_DLDevice, device_type);
    SAME_FIELD(DLDevice, sys_DLDevice, device_id);
    assert_int_equal(sizeof(DLDataType), sizeof(sys_DLDataType));
    SAME_FIELD(DLDataType, sys_DLDataType, code);
    SAME_FIELD(DLDataType, sys_DLDataType, bits);
    SAME_FIELD(DLDataType, sys_DLDataType, lanes);
    assert_int_equal(sizeof(DLTensor), sizeof(sys_DLTensor));
    SAME_FIELD(DLTensor, sys_DLTensor, data);
    SAME_FIELD(DLTensor, sys_DLTensor, device);
    SAME_FIELD(DLTensor, sys_DLTensor, ndim);
    SAME_FIELD(DLTensor, sys_DLTensor, dtype);
    SAME_FIELD(DLTensor, sys_DLTensor, shape);
    SAME_FIELD(DLTensor, sys_DLTensor, strides);
    SAME_FIELD(DLTensor, sys_DLTensor, byte_offset);
    assert_int_equal(sizeof(DLManagedTensor), sizeof(sys_DLManagedTensor));
    SAME_FIELD(DLManagedTensor, sys_DLManagedTensor, dl_tensor);
    SAME_FIELD(DLManagedTensor, sys_DLManagedTensor, manager_ctx);
    SAME_FIELD(DLManagedTensor, sys_DLManagedTensor, deleter);
    const int ours[] = {kDLCPU, kDLCUDA, kDLCUDAHost, kDLOpenCL, kDLVulkan, kDLMetal, kDLVPI,
                        kDLROCM, kDLROCMHost, kDLExtDev, kDLCUDAManaged, kDLInt, kDLUInt,
                        kDLFloat, kDLOpaqueHandle, kDLBfloat, kDLComplex};
    const int theirs[] = {sys_kDLCPU, sys_kDLCUDA, sys_kDLCUDAHost, sys_kDLOpenCL, sys_kDLVulkan,
                          sys_kDLMetal, sys_kDLVPI, sys_kDLROCM, sys_kDLROCMHost, sys_kDLExtDev,
                          sys_kDLCUDAManaged, sys_kDLInt, sys_kDLUInt, sys_kDLFloat,
                          sys_kDLOpaqueHandle, sys_kDLBfloat, sys_kDLComplex};
    assert_memory_equal(ours, theirs, sizeof ours);
#else
    skip();
#endif
}

/* The 1.x layout, spelled out (LP64), independent of any other header. */
static void test_versioned_layout(void **state)
{
    (void)state;
    assert_int_equal(offsetof(DLManagedTensorVersioned, version), 0);
    assert_int_equal(offsetof(DLManagedTensorVersioned, manager_ctx), 8);
    assert_int_equal(offsetof(DLManagedTensorVersioned, deleter), 16);
    assert_int_equal(offsetof(DLManagedTensorVersioned, flags), 24);
    assert_int_equal(offsetof(DLManagedTensorVersioned, dl_tensor), 32);
    assert_int_equal(sizeof(DLManagedTensorVersioned), 80);
    assert_int_equal(kDLFloat8_e4m3fn, 10);
    assert_int_equal(kDLFloat4_e2m1fn, 17);
    assert_int_equal(kDLBool, 6);
    assert_int_equal(DLPACK_FLAG_BITMASK_READ_ONLY, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_system_header),
        cmocka_unit_test(test_versioned_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
