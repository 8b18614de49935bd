/* The C interface of the FlashMLA baseline library, libtirx_flashmla
 * (bench/flashmla: deepseek-ai/FlashMLA's sm90 decode kernels behind these
 * three functions), which `tirx bench mla --flashmla LIB` dlopens to time
 * FlashMLA on the same inputs as the tirx kernel. Shared by the library and
 * the tool; plain C, so that neither needs the other's headers. */
#ifndef TIRX_TOOLS_BENCH_FLASHMLA_H
#define TIRX_TOOLS_BENCH_FLASHMLA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever the struct or the functions change; the tool refuses a
 * library built for another version. */
#define TIRX_FLASHMLA_ABI 2

/* One decode problem, FlashMLA's interface (all pointers device memory, the
 * tensors contiguous). topk == 0: the dense bf16 decode over the paged cache
 * kv [pages, 64, 1, 576] bf16 with block_table [batch, max_pages] and
 * seqlens [batch]; topk > 0: the sparse fp8 decode over kv [pages, 64, 1,
 * 656] bytes (DeepSeek V3.2's format) with indices [batch, s_q, topk]
 * (positions page * 64 + row, -1 padding) and sink [h_q] (NULL: none).
 * q [batch, s_q, h_q, 576] bf16 (dense with f16: float16, the cache and out
 * too); out [batch, s_q, h_q, 512] bf16; lse
 * [batch, s_q, h_q] f32 (FlashMLA's order, not tirx's [batch, h_q, s_q]). */
typedef struct TirxFlashmlaProblem {
    int abi; /* TIRX_FLASHMLA_ABI */
    int batch, s_q, h_q, topk;
    int pages, max_pages;
    int causal, f16; /* dense only */
    float scale;
    const void *q, *kv;
    const int *block_table, *seqlens;
    const int *indices;
    const float *sink;
    void *out;
    float *lse;
} TirxFlashmlaProblem;

/* Validates p against what FlashMLA supports, allocates its metadata and
 * split buffers and runs its metadata kernel on stream (a CUstream of the
 * current context). A plan, or NULL with a message in err. */
typedef void *(*tirx_flashmla_prepare_fn)(const TirxFlashmlaProblem *p, void *stream, char *err,
                                          size_t err_size);
/* One decode call on stream: the main kernel, then the combine. 0, or -1
 * with a message in err when a launch fails. */
typedef int (*tirx_flashmla_run_fn)(void *plan, void *stream, char *err, size_t err_size);
typedef void (*tirx_flashmla_free_fn)(void *plan);

#define TIRX_FLASHMLA_PREPARE "tirx_flashmla_prepare"
#define TIRX_FLASHMLA_RUN "tirx_flashmla_run"
#define TIRX_FLASHMLA_FREE "tirx_flashmla_free"

#ifdef __cplusplus
}
#endif

#endif
