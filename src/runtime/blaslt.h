/* The few cuBLASLt types and enum values that the runtime's reference GEMM
 * (blaslt.c) needs, declared here so that tirx builds without cuBLAS's
 * headers and links nothing of it: libcublasLt is dlopen'd at run time. The
 * names follow cublasLt.h with a Bl prefix; the values are those of CUDA
 * 12.x and 13.x (cublasLt.h, cublas_api.h, library_types.h), and
 * tests/unit/runtime_blaslt.c checks them against the real headers where
 * they are installed. C enums are passed as int. */
#ifndef TX_RUNTIME_BLASLT_H
#define TX_RUNTIME_BLASLT_H

#include <stddef.h>
#include <stdint.h>

typedef int BlStatus; /* cublasStatus_t */
typedef struct BlContext *BlHandle;             /* cublasLtHandle_t */
typedef struct BlMatmulDesc *BlMatmulDesc;      /* cublasLtMatmulDesc_t */
typedef struct BlLayout *BlLayout;              /* cublasLtMatrixLayout_t */
typedef struct BlPreference *BlPreference;      /* cublasLtMatmulPreference_t */
typedef void *BlStream;                         /* cudaStream_t (a CUstream) */

typedef struct BlAlgo {
    uint64_t data[8];
} BlAlgo; /* cublasLtMatmulAlgo_t */

typedef struct BlHeuristic {
    BlAlgo algo;
    size_t workspace_size;
    BlStatus state;
    float waves_count;
    int reserved[4];
} BlHeuristic; /* cublasLtMatmulHeuristicResult_t */

enum {
    BL_STATUS_SUCCESS = 0,
    BL_STATUS_NOT_SUPPORTED = 15,
    BL_OP_N = 0,
    BL_OP_T = 1,
    /* cublasComputeType_t */
    BL_COMPUTE_32F = 68,
    BL_COMPUTE_32F_FAST_TF32 = 77,
    /* cudaDataType */
    BL_R_32F = 0,
    BL_R_16F = 2,
    BL_R_16BF = 14,
    BL_R_8F_E4M3 = 28,
    /* cublasLtMatmulDescAttributes_t */
    BL_DESC_TRANSA = 3,
    BL_DESC_TRANSB = 4,
    BL_DESC_A_SCALE_POINTER = 17,
    BL_DESC_B_SCALE_POINTER = 18,
    /* cublasLtMatmulPreferenceAttributes_t */
    BL_PREF_MAX_WORKSPACE_BYTES = 1,
    /* cublasLtMatmulAlgoConfigAttributes_t */
    BL_ALGO_CONFIG_ID = 0,
    BL_ALGO_CONFIG_TILE_ID = 1,
    BL_ALGO_CONFIG_SPLITK_NUM = 2,
    BL_ALGO_CONFIG_STAGES_ID = 6,
};

#endif
