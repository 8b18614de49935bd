/* The part of the CUDA driver API, of NVRTC and of nvJitLink that tirx
 * calls, declared here from their documented interfaces so that tirx builds
 * without the CUDA toolkit's headers (libcuda, libnvrtc and libnvJitLink are
 * dlopen'd at run time, never linked). Types, the constants the runtime
 * passes or tests, and the entry points' pointer types PFN_<name>_v<version>
 * (cuda.def lists them with their parameters, nvrtc.def and nvjitlink.def
 * likewise). unit.cuda_api checks every value, size, offset and signature
 * here against the toolkit's cuda.h, cudaTypedefs.h, nvrtc.h and nvJitLink.h
 * wherever those are installed. */
#ifndef TX_RUNTIME_CUDA_API_H
#define TX_RUNTIME_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;

/* ---- the driver ---- */

typedef enum cudaError_enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
} CUresult;

typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

typedef enum CUdevice_attribute_enum {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
    CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH = 120,
} CUdevice_attribute;

typedef enum CUfunction_attribute_enum {
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
    CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
    CU_FUNC_ATTRIBUTE_PTX_VERSION = 5,
    CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14,
} CUfunction_attribute;

typedef enum CUjit_option_enum {
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
} CUjit_option;

typedef enum CUdriverProcAddressQueryResult_enum {
    CU_GET_PROC_ADDRESS_SUCCESS = 0,
} CUdriverProcAddressQueryResult;

#define CU_GET_PROC_ADDRESS_DEFAULT 0
#define CU_STREAM_NON_BLOCKING 0x1
#define CU_MEMHOSTALLOC_DEVICEMAP 0x02
#define CU_EVENT_DEFAULT 0x0
#define CU_EVENT_DISABLE_TIMING 0x2

/* cuLaunchKernelEx's configuration; of the attributes only the cluster
 * dimension and programmatic stream serialization (programmatic dependent
 * launch) are used (the value is a 64-byte union in the driver). */
typedef enum CUlaunchAttributeID_enum {
    CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
    CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6,
} CUlaunchAttributeID;

typedef union CUlaunchAttributeValue_union {
    char pad[64];
    struct {
        unsigned int x, y, z;
    } clusterDim;
    int programmaticStreamSerializationAllowed;
} CUlaunchAttributeValue;

typedef struct CUlaunchAttribute_st {
    CUlaunchAttributeID id;
    char pad[8 - sizeof(CUlaunchAttributeID)];
    CUlaunchAttributeValue value;
} CUlaunchAttribute;

typedef struct CUlaunchConfig_st {
    unsigned int gridDimX, gridDimY, gridDimZ;
    unsigned int blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    CUstream hStream;
    CUlaunchAttribute *attrs;
    unsigned int numAttrs;
} CUlaunchConfig;

/* Tensor maps: 128 opaque bytes; the parameters are enums in the driver
 * (int-sized), passed runtime.h's RtTma* values (unit.cuda_api checks those
 * against cuda.h's). */
typedef struct CUtensorMap_st {
    _Alignas(128) cuuint64_t opaque[16];
} CUtensorMap;
typedef int CUtensorMapDataType;
typedef int CUtensorMapInterleave;
typedef int CUtensorMapSwizzle;
typedef int CUtensorMapL2promotion;
typedef int CUtensorMapFloatOOBfill;

/* The entry points: cuInit and cuGetProcAddress (looked up by name), then
 * every cuda.def entry through cuGetProcAddress at its ABI version. */
typedef CUresult (*PFN_cuInit_v2000)(unsigned int Flags);
typedef CUresult (*PFN_cuGetProcAddress_v12000)(const char *symbol, void **pfn, int cudaVersion,
                                                cuuint64_t flags,
                                                CUdriverProcAddressQueryResult *symbolStatus);
#define X(name, version, params) typedef CUresult(*PFN_##name##_v##version) params;
#include "cuda.def"
#undef X

/* ---- NVRTC ---- */

typedef enum nvrtcResult_enum {
    NVRTC_SUCCESS = 0,
    NVRTC_ERROR_INVALID_OPTION = 5,
    NVRTC_ERROR_COMPILATION = 6,
} nvrtcResult;

typedef struct _nvrtcProgram *nvrtcProgram;

/* ---- nvJitLink (linking NVSHMEM modules) ---- */

typedef enum {
    NVJITLINK_SUCCESS = 0,
} nvJitLinkResult;

typedef enum {
    NVJITLINK_INPUT_LTOIR = 3,
    NVJITLINK_INPUT_LIBRARY = 6,
} nvJitLinkInputType;

typedef struct nvJitLink *nvJitLinkHandle;

#endif
