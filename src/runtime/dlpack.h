/* The DLPack 1.x ABI, declared from the specification (not copied from the
 * upstream header): how tensors arrive from PyTorch and other frameworks. A
 * DLTensor's layout is unchanged since 0.x; DLManagedTensorVersioned (1.0+)
 * puts its version first so a consumer can check `major` before reading
 * anything else. Strides count elements and may be NULL (compact row-major).
 * The static asserts pin the LP64 layout; tests/unit/runtime_dlpack.c checks
 * it against a system <dlpack/dlpack.h> when one is installed. The header is
 * installed as tirx_dlpack.h and compiles as C11 and as C++11. */
#ifndef TX_DLPACK_H
#define TX_DLPACK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#define TX_DLPACK_STATIC_ASSERT static_assert
#else
#define TX_DLPACK_STATIC_ASSERT _Static_assert
#endif

#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 1

typedef struct DLPackVersion {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

typedef enum DLDeviceType {
    kDLCPU = 1,
    kDLCUDA = 2,
    kDLCUDAHost = 3,
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLExtDev = 12,
    kDLCUDAManaged = 13,
    kDLOneAPI = 14,
    kDLWebGPU = 15,
    kDLHexagon = 16,
    kDLMAIA = 17,
} DLDeviceType;

typedef struct DLDevice {
    DLDeviceType device_type;
    int32_t device_id;
} DLDevice;

typedef enum DLDataTypeCode {
    kDLInt = 0,
    kDLUInt = 1,
    kDLFloat = 2,
    kDLOpaqueHandle = 3,
    kDLBfloat = 4,
    kDLComplex = 5,
    kDLBool = 6,
    kDLFloat8_e3m4 = 7,
    kDLFloat8_e4m3 = 8,
    kDLFloat8_e4m3b11fnuz = 9,
    kDLFloat8_e4m3fn = 10,
    kDLFloat8_e4m3fnuz = 11,
    kDLFloat8_e5m2 = 12,
    kDLFloat8_e5m2fnuz = 13,
    kDLFloat8_e8m0fnu = 14,
    kDLFloat6_e2m3fn = 15,
    kDLFloat6_e3m2fn = 16,
    kDLFloat4_e2m1fn = 17,
} DLDataTypeCode;

/* code: a DLDataTypeCode; bits per lane; lanes (1 for a scalar type). */
typedef struct DLDataType {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct DLTensor {
    void *data; /* the element at all-zero indices is at data + byte_offset */
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides; /* in elements; NULL: compact row-major */
    uint64_t byte_offset;
} DLTensor;

/* The pre-1.0 managed tensor, still what older producers hand out. */
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << 0)
#define DLPACK_FLAG_BITMASK_IS_COPIED (UINT64_C(1) << 1)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (UINT64_C(1) << 2)

typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

#if UINTPTR_MAX == UINT64_MAX
TX_DLPACK_STATIC_ASSERT(sizeof(DLDevice) == 8, "DLDevice layout");
TX_DLPACK_STATIC_ASSERT(sizeof(DLDataType) == 4, "DLDataType layout");
TX_DLPACK_STATIC_ASSERT(offsetof(DLTensor, device) == 8 && offsetof(DLTensor, ndim) == 16 &&
                            offsetof(DLTensor, dtype) == 20 && offsetof(DLTensor, shape) == 24 &&
                            offsetof(DLTensor, strides) == 32 && offsetof(DLTensor, byte_offset) == 40 &&
                            sizeof(DLTensor) == 48,
                        "DLTensor layout");
TX_DLPACK_STATIC_ASSERT(offsetof(DLManagedTensor, manager_ctx) == 48 && sizeof(DLManagedTensor) == 64,
                        "DLManagedTensor layout");
TX_DLPACK_STATIC_ASSERT(offsetof(DLManagedTensorVersioned, manager_ctx) == 8 &&
                            offsetof(DLManagedTensorVersioned, deleter) == 16 &&
                            offsetof(DLManagedTensorVersioned, flags) == 24 &&
                            offsetof(DLManagedTensorVersioned, dl_tensor) == 32 &&
                            sizeof(DLManagedTensorVersioned) == 80,
                        "DLManagedTensorVersioned layout");
#endif

#undef TX_DLPACK_STATIC_ASSERT
#ifdef __cplusplus
}
#endif

#endif
