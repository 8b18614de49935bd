// libtirx_flashmla: deepseek-ai/FlashMLA's Hopper decode kernels (the dense
// bf16 / fp16 and the sparse fp8 V3.2 decode, with their metadata and combine
// kernels) behind the C interface of src/tools/bench_flashmla.h, so that
// `tirx bench mla --flashmla LIB` times them on the tirx kernel's own inputs.
// It fills FlashMLA's parameter structs as its PyTorch interface
// (csrc/api/dense_decode.h, sparse_decode.h) does for h_k = 1, contiguous
// tensors and no extra cache; it is built against a FlashMLA checkout
// (bench/flashmla/README.md) and links none of PyTorch.
#include <cmath>
#include <cstdio>
#include <exception>
#include <new>

#include <cuda_runtime_api.h>
#include <cutlass/half.h>

#include "params.h"
#include "sm90/decode/dense/splitkv_mla.h"
#include "sm90/decode/sparse_fp8/splitkv_mla.h"
#include "smxx/decode/combine/combine.h"
#include "smxx/decode/get_decoding_sched_meta/get_decoding_sched_meta.h"

#include "bench_flashmla.h"

namespace {

constexpr int kDk = 576, kDv = 512, kPage = 64, kTokenBytes = 656;
constexpr int kFixedOverheadBlocks = 5; // FlashMLA's metadata: the cost of a request in blocks

struct Plan {
    TirxFlashmlaProblem p;
    int parts;
    DecodingSchedMeta *meta = nullptr;
    int *splits = nullptr;
    float *lse_accum = nullptr, *o_accum = nullptr;
};

void say(char *err, size_t size, const char *what)
{
    if (err && size)
        snprintf(err, size, "FlashMLA: %s", what);
}

// The problem's limits as FlashMLA's interface checks them.
const char *unsupported(const TirxFlashmlaProblem &p)
{
    if (p.abi != TIRX_FLASHMLA_ABI)
        return "the caller was built for another version of bench_flashmla.h";
    if (p.batch <= 0 || p.s_q <= 0 || p.pages <= 0)
        return "batch, s_q and the page count must be positive";
    if (p.topk == 0 && (p.h_q <= 0 || p.max_pages <= 0))
        return "the dense decode needs h_q > 0 and a block table";
    if (p.topk > 0 && p.h_q != 64 && p.h_q != 128)
        return "the sparse decode on sm90 takes h_q 64 or 128";
    if (p.topk % 64)
        return "the sparse decode takes top-k in multiples of 64";
    if (p.topk < 0 || !(p.scale > 0))
        return "top-k must be >= 0 and the softmax scale positive";
    if (p.topk > 0 && p.f16)
        return "the sparse decode takes bfloat16 q (float16 is for the dense decode)";
    return nullptr;
}

// The current device's SM count, 0 unless it is a Hopper (sm_90) GPU: the
// library holds sm_90a code only, and FlashMLA's launchers exit the process
// on a CUDA error rather than report it.
int hopper_sm_count()
{
    int dev = 0, sms = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        return 0;
    return major == 9 && minor == 0 ? sms : 0;
}

void release(Plan *plan)
{
    cudaFree(plan->meta);
    cudaFree(plan->splits);
    cudaFree(plan->lse_accum);
    cudaFree(plan->o_accum);
    delete plan;
}

// FlashMLA's metadata kernel over the plan's problem.
void schedule(Plan &plan, cudaStream_t stream)
{
    const TirxFlashmlaProblem &p = plan.p;
    bool sparse = p.topk > 0;
    GetDecodeSchedMetaParams m = {
        p.batch, p.s_q, kPage, kFixedOverheadBlocks,
        sparse ? p.topk : -1, sparse ? 0 : -1, // FlashMLA's interfaces: no extra cache
        nullptr, nullptr,
        sparse ? nullptr : const_cast<int *>(p.seqlens),
        plan.meta, plan.splits, plan.parts,
        stream,
    };
    smxx::decode::run_get_decoding_sched_meta_kernel(m);
}

void dense(const Plan &plan, cudaStream_t stream)
{
    const TirxFlashmlaProblem &p = plan.p;
    int rows = p.s_q * p.h_q; // q_seq_per_hk with h_k = 1
    DenseAttnDecodeParams d = {};
    d.b = p.batch;
    d.s_q = p.s_q;
    d.q_seq_per_hk = rows;
    d.d = kDk;
    d.d_v = kDv;
    d.h_q = p.h_q;
    d.h_k = 1;
    d.num_blocks = p.pages;
    d.q_head_per_hk = p.h_q;
    d.is_causal = p.causal && p.s_q > 1;
    d.scale_softmax = p.scale;
    d.scale_softmax_log2 = float(p.scale * M_LOG2E);
    d.q_ptr = const_cast<void *>(p.q);
    d.k_ptr = const_cast<void *>(p.kv);
    d.o_ptr = p.out;
    d.softmax_lse_ptr = p.lse;
    d.q_batch_stride = (int64_t)rows * kDk;
    d.k_batch_stride = (int64_t)kPage * kDk;
    d.o_batch_stride = (int64_t)rows * kDv;
    d.q_row_stride = kDk;
    d.k_row_stride = kDk;
    d.o_row_stride = kDv;
    d.q_head_stride = kDk; // one KV head: never stepped
    d.k_head_stride = kDk;
    d.o_head_stride = (int64_t)rows * kDv;
    d.block_table = const_cast<int *>(p.block_table);
    d.block_table_batch_stride = p.max_pages;
    d.page_block_size = kPage;
    d.seqlens_k_ptr = const_cast<int *>(p.seqlens);
    d.tile_scheduler_metadata_ptr = plan.meta;
    d.num_sm_parts = plan.parts;
    d.num_splits_ptr = plan.splits;
    d.total_num_splits = p.batch + plan.parts;
    d.softmax_lseaccum_ptr = plan.lse_accum;
    d.oaccum_ptr = plan.o_accum;
    d.stream = stream;
    if (p.f16)
        sm90::run_flash_splitkv_mla_kernel<cutlass::half_t>(d);
    else
        sm90::run_flash_splitkv_mla_kernel<cutlass::bfloat16_t>(d);
}

void sparse(const Plan &plan, cudaStream_t stream)
{
    const TirxFlashmlaProblem &p = plan.p;
    int rows = p.s_q * p.h_q;
    SparseAttnDecodeParams s = {};
    s.b = p.batch;
    s.s_q = p.s_q;
    s.h_q = p.h_q;
    s.h_kv = 1;
    s.d_qk = kDk;
    s.d_v = kDv;
    s.sm_scale = p.scale;
    s.sm_scale_div_log2 = p.scale * 1.44269504f; // as FlashMLA's interface (a float log2 e)
    s.num_blocks = p.pages;
    s.page_block_size = kPage;
    s.topk = p.topk;
    s.model_type = ModelType::V32;
    s.q = (cutlass::bfloat16_t *)p.q;
    s.kv = (cutlass::bfloat16_t *)p.kv; // bytes: FlashMLA reinterprets them
    s.indices = const_cast<int *>(p.indices);
    s.attn_sink = const_cast<float *>(p.sink);
    s.lse = p.lse;
    s.out = (cutlass::bfloat16_t *)p.out;
    s.stride_q_b = rows * kDk;
    s.stride_q_s_q = p.h_q * kDk;
    s.stride_q_h_q = kDk;
    s.stride_kv_block = kPage * kTokenBytes;
    s.stride_kv_row = kTokenBytes;
    s.stride_indices_b = p.s_q * p.topk;
    s.stride_indices_s_q = p.topk;
    s.stride_lse_b = rows;
    s.stride_lse_s_q = p.h_q;
    s.stride_o_b = rows * kDv;
    s.stride_o_s_q = p.h_q * kDv;
    s.stride_o_h_q = kDv;
    s.stream = stream;
    s.lse_accum = plan.lse_accum;
    s.o_accum = plan.o_accum;
    s.stride_lse_accum_split = rows;
    s.stride_lse_accum_s_q = p.h_q;
    s.stride_o_accum_split = rows * kDv;
    s.stride_o_accum_s_q = p.h_q * kDv;
    s.stride_o_accum_h_q = kDv;
    s.tile_scheduler_metadata_ptr = plan.meta;
    s.num_splits_ptr = plan.splits;
    s.num_sm_parts = plan.parts;
    if (p.h_q == 64)
        sm90::decode::sparse_fp8::run_flash_splitkv_mla_fp8_sparse_kernel<ModelType::V32, 64>(s);
    else
        sm90::decode::sparse_fp8::run_flash_splitkv_mla_fp8_sparse_kernel<ModelType::V32, 128>(s);
}

// FlashMLA's combine of the split requests' partials; both decodes write out,
// lse and the partials in the same order ([batch or split, s_q, h_q]).
void combine(const Plan &plan, cudaStream_t stream)
{
    const TirxFlashmlaProblem &p = plan.p;
    int rows = p.s_q * p.h_q;
    CombineParams c = {
        p.batch, p.s_q, p.h_q, kDv,
        p.lse, p.out, rows, p.h_q, rows * kDv, p.h_q * kDv, kDv,
        plan.lse_accum, plan.o_accum, rows, p.h_q, rows * kDv, p.h_q * kDv, kDv,
        plan.meta, plan.splits, plan.parts,
        p.topk > 0 ? const_cast<float *>(p.sink) : nullptr, stream,
    };
    if (p.f16)
        smxx::decode::run_flash_mla_combine_kernel<cutlass::half_t>(c);
    else
        smxx::decode::run_flash_mla_combine_kernel<cutlass::bfloat16_t>(c);
}

// A CUDA call's failure as a message; true when it failed.
bool failed(cudaError_t e, const char *what, char *err, size_t size)
{
    if (e == cudaSuccess)
        return false;
    if (err && size)
        snprintf(err, size, "FlashMLA: %s: %s", what, cudaGetErrorString(e));
    return true;
}

} // namespace

extern "C" void *tirx_flashmla_prepare(const TirxFlashmlaProblem *p, void *stream, char *err,
                                       size_t err_size)
{
    if (const char *why = p ? unsupported(*p) : "no problem") {
        say(err, err_size, why);
        return nullptr;
    }
    int sms = hopper_sm_count();
    if (!sms) {
        say(err, err_size, "its kernels are built for sm_90a and the GPU is not a Hopper (sm_90)");
        return nullptr;
    }
    Plan *plan = new (std::nothrow) Plan{*p, 0};
    if (!plan) {
        say(err, err_size, "out of host memory");
        return nullptr;
    }
    // FlashMLA's parts: the SMs over the CTAs a part runs at once (its
    // interfaces' num_sm_parts for h_k = 1).
    int ctas = p->topk > 0 ? p->s_q * (p->h_q / 64) : (p->s_q * p->h_q + 63) / 64;
    plan->parts = sms / ctas > 0 ? sms / ctas : 1;
    size_t splits = (size_t)p->batch + plan->parts, rows = (size_t)p->s_q * p->h_q;
    try {
        if (failed(cudaMalloc(&plan->meta, sizeof(DecodingSchedMeta) * plan->parts), "cudaMalloc",
                   err, err_size) ||
            failed(cudaMalloc(&plan->splits, sizeof(int) * (p->batch + 1)), "cudaMalloc", err,
                   err_size) ||
            failed(cudaMalloc(&plan->lse_accum, sizeof(float) * splits * rows), "cudaMalloc", err,
                   err_size) ||
            failed(cudaMalloc(&plan->o_accum, sizeof(float) * splits * rows * kDv), "cudaMalloc",
                   err, err_size)) {
            release(plan);
            return nullptr;
        }
        schedule(*plan, (cudaStream_t)stream);
        if (failed(cudaGetLastError(), "the metadata kernel", err, err_size)) {
            release(plan);
            return nullptr;
        }
    } catch (const std::exception &e) {
        say(err, err_size, e.what());
        release(plan);
        return nullptr;
    }
    return plan;
}

extern "C" int tirx_flashmla_run(void *plan_, void *stream, char *err, size_t err_size)
{
    const Plan *plan = static_cast<const Plan *>(plan_);
    try {
        (plan->p.topk > 0 ? sparse : dense)(*plan, (cudaStream_t)stream);
        combine(*plan, (cudaStream_t)stream);
    } catch (const std::exception &e) {
        say(err, err_size, e.what());
        return -1;
    }
    return failed(cudaGetLastError(), "the decode call", err, err_size) ? -1 : 0;
}

extern "C" void tirx_flashmla_free(void *plan)
{
    if (plan)
        release(static_cast<Plan *>(plan));
}
