/* The reference GEMM of benchmarks: cuBLASLt, dlopen'd on first use (its
 * entry points from blaslt.def, its types from blaslt.h, so nothing of cuBLAS
 * is needed to build tirx). A GEMM is planned once: the operation and matrix
 * layouts are described, the heuristic's best algorithm for them is kept with
 * the workspace it asks for, and each run is one cublasLtMatmul on the
 * caller's stream. tirx's operands are row-major and cuBLAS's column-major,
 * so C [M, N] = A B^T is computed as C^T [N, M] = B A^T: cuBLAS's A is our
 * B, transposed in the nt layout, and cuBLAS's B is our A. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blaslt.h"
#include "internal.h"

#define WORKSPACE_LIMIT ((uint64_t)32 << 20)

typedef struct RtBlas {
    void *lib;
    size_t version;
#define X(ret, name, params) ret(*name) params;
#include "blaslt.def"
#undef X
} RtBlas;

/* X(name, A and B type, C and D type, compute type) */
#define GEMM_TYPES(X)                                        \
    X("bf16", BL_R_16BF, BL_R_16BF, BL_COMPUTE_32F)          \
    X("fp16", BL_R_16F, BL_R_16F, BL_COMPUTE_32F)            \
    X("fp8", BL_R_8F_E4M3, BL_R_16BF, BL_COMPUTE_32F)        \
    X("tf32", BL_R_32F, BL_R_32F, BL_COMPUTE_32F_FAST_TF32)

typedef struct GemmType {
    const char *name;
    int in, out, compute;
} GemmType;

static const GemmType gemm_types[] = {
#define X(name, in, out, compute) {name, in, out, compute},
    GEMM_TYPES(X)
#undef X
};

struct RtBlasGemm {
    RtDevice *dev;
    const RtBlas *bl;
    BlHandle handle;
    BlMatmulDesc op;
    BlLayout a, b, c; /* cuBLAS's A (our B), B (our A) and C = D */
    BlAlgo algo;
    RtDevPtr workspace, scales;
    size_t workspace_bytes;
    char algo_text[128];
};

/* ---- loading ---- */

static RtStatus blas_fetch_table(RtBlas *bl, const char *path, RtError *err)
{
#define X(ret, name, params)                                                          \
    if (!rt_lookup(bl->lib, #name, &bl->name))                                        \
        return rt_fail(err, RT_ERR_NO_CUBLAS, "no usable cuBLASLt: %s has no %s", path, #name);
#include "blaslt.def"
#undef X
    bl->version = bl->cublasLtGetVersion();
    return RT_OK;
}

static RtStatus blas_load(RtBlas *bl, const char *override, RtError *err)
{
    static const char *const names[] = {"libcublasLt.so.13", "libcublasLt.so.12",
                                        "libcublasLt.so"};
    const char *why, *path;
    memset(bl, 0, sizeof *bl);
    bl->lib = rt_dlopen_first(override, names, sizeof names / sizeof names[0], &path, &why);
    if (!bl->lib && override)
        return rt_fail(err, RT_ERR_NO_CUBLAS, "no cuBLASLt: cannot load %s (%s)", override,
                       why ? why : "not found");
    if (!bl->lib)
        return rt_fail(err, RT_ERR_NO_CUBLAS,
                       "no cuBLASLt: cannot load libcublasLt.so.13, libcublasLt.so.12 or "
                       "libcublasLt.so (install the CUDA toolkit's cuBLAS, add its lib64 "
                       "directory to LD_LIBRARY_PATH or set TIRX_LIBCUBLASLT to the library)");
    RtStatus s = blas_fetch_table(bl, path, err);
    if (s != RT_OK) {
        dlclose(bl->lib);
        bl->lib = NULL;
    }
    return s;
}

static struct {
    RtOnce once;
    RtBlas bl;
} blas_slot = {{PTHREAD_ONCE_INIT}};

static void blas_load_once(void)
{
    blas_slot.once.err.status =
        blas_load(&blas_slot.bl, rt_env_or("TIRX_LIBCUBLASLT", NULL), &blas_slot.once.err);
}

static RtStatus rt_blas(const RtBlas **out, RtError *err)
{
    RtStatus s = rt_once(&blas_slot.once, blas_load_once, err);
    if (s == RT_OK)
        *out = &blas_slot.bl;
    return s;
}

RtStatus rt_blas_version(size_t *version, RtError *err)
{
    const RtBlas *bl;
    RtStatus s = rt_blas(&bl, err);
    if (s == RT_OK)
        *version = bl->version;
    return s;
}

/* RT_ERR_CUDA naming the call and cuBLAS's name and text for r. */
static RtStatus blas_fail(RtError *err, const RtBlas *bl, BlStatus r, const char *call)
{
    const char *name = bl->cublasLtGetStatusName(r), *text = bl->cublasLtGetStatusString(r);
    return rt_fail(err, RT_ERR_CUDA, "%s failed: %s (%d)%s%s", call,
                   name ? name : "unknown cuBLAS status", r, text && *text ? ": " : "",
                   text ? text : "");
}

#define BL_CALL(g, err, call, ...)                                             \
    do {                                                                       \
        BlStatus r_ = (g)->bl->call(__VA_ARGS__);                              \
        if (r_ != BL_STATUS_SUCCESS)                                           \
            return blas_fail(err, (g)->bl, r_, #call);                         \
    } while (0)

/* ---- planning ---- */

static const GemmType *gemm_type(const char *name)
{
    for (size_t i = 0; name && i < sizeof gemm_types / sizeof gemm_types[0]; i++)
        if (!strcmp(gemm_types[i].name, name))
            return &gemm_types[i];
    return NULL;
}

/* The operation and the three layouts, in cuBLAS's column-major terms. */
static RtStatus describe(RtBlasGemm *g, const RtGemmSpec *s, const GemmType *t, RtError *err)
{
    int32_t trans_a = s->b_kn ? BL_OP_N : BL_OP_T, trans_b = BL_OP_N;
    uint64_t m = (uint64_t)s->m, n = (uint64_t)s->n, k = (uint64_t)s->k;
    BL_CALL(g, err, cublasLtMatmulDescCreate, &g->op, t->compute, BL_R_32F);
    BL_CALL(g, err, cublasLtMatmulDescSetAttribute, g->op, BL_DESC_TRANSA, &trans_a, sizeof trans_a);
    BL_CALL(g, err, cublasLtMatmulDescSetAttribute, g->op, BL_DESC_TRANSB, &trans_b, sizeof trans_b);
    if (s->b_kn)
        BL_CALL(g, err, cublasLtMatrixLayoutCreate, &g->a, t->in, n, k, (int64_t)n);
    else
        BL_CALL(g, err, cublasLtMatrixLayoutCreate, &g->a, t->in, k, n, (int64_t)k);
    BL_CALL(g, err, cublasLtMatrixLayoutCreate, &g->b, t->in, k, m, (int64_t)k);
    BL_CALL(g, err, cublasLtMatrixLayoutCreate, &g->c, t->out, n, m, (int64_t)n);
    return RT_OK;
}

/* fp8: the per-tensor scales in device memory; cuBLAS's A is our B. Each
 * scale has its own 256-byte aligned slot, as separately allocated scales
 * (the form cuBLASLt's fp8 callers use) are: packed 4 bytes apart, the plan
 * succeeded but cublasLtMatmul answered CUBLAS_STATUS_NOT_SUPPORTED. */
#define SCALE_SLOT 256
static RtStatus set_scales(RtBlasGemm *g, const RtGemmSpec *s, RtError *err)
{
    float v[SCALE_SLOT / sizeof(float) * 2] = {0};
    v[0] = s->scale_b ? s->scale_b : 1.0f;
    v[SCALE_SLOT / sizeof(float)] = s->scale_a ? s->scale_a : 1.0f;
    RtStatus st = rt_mem_alloc(g->dev, sizeof v, &g->scales, err);
    if (st == RT_OK)
        st = rt_memcpy_htod(g->dev, g->scales, v, sizeof v, err);
    if (st != RT_OK)
        return st;
    void *a_scale = (void *)(uintptr_t)g->scales,
         *b_scale = (void *)(uintptr_t)(g->scales + SCALE_SLOT);
    BL_CALL(g, err, cublasLtMatmulDescSetAttribute, g->op, BL_DESC_A_SCALE_POINTER, &a_scale,
            sizeof a_scale);
    BL_CALL(g, err, cublasLtMatmulDescSetAttribute, g->op, BL_DESC_B_SCALE_POINTER, &b_scale,
            sizeof b_scale);
    return RT_OK;
}

static void describe_algo(RtBlasGemm *g)
{
    int32_t id = -1, splitk = 1;
    uint32_t tile = 0, stages = 0;
    size_t n;
    g->bl->cublasLtMatmulAlgoConfigGetAttribute(&g->algo, BL_ALGO_CONFIG_ID, &id, sizeof id, &n);
    g->bl->cublasLtMatmulAlgoConfigGetAttribute(&g->algo, BL_ALGO_CONFIG_TILE_ID, &tile,
                                                sizeof tile, &n);
    g->bl->cublasLtMatmulAlgoConfigGetAttribute(&g->algo, BL_ALGO_CONFIG_STAGES_ID, &stages,
                                                sizeof stages, &n);
    g->bl->cublasLtMatmulAlgoConfigGetAttribute(&g->algo, BL_ALGO_CONFIG_SPLITK_NUM, &splitk,
                                                sizeof splitk, &n);
    snprintf(g->algo_text, sizeof g->algo_text,
             "cuBLASLt %zu algo %d tile %u stages %u split-k %d", g->bl->version, (int)id,
             (unsigned)tile, (unsigned)stages, (int)splitk);
}

/* The heuristic's best algorithm and its workspace. */
static RtStatus choose_algo(RtBlasGemm *g, const RtGemmSpec *s, RtError *err)
{
    BlPreference pref = NULL;
    uint64_t limit = WORKSPACE_LIMIT;
    BlHeuristic best;
    int found = 0;
    BL_CALL(g, err, cublasLtMatmulPreferenceCreate, &pref);
    BlStatus r = g->bl->cublasLtMatmulPreferenceSetAttribute(pref, BL_PREF_MAX_WORKSPACE_BYTES,
                                                             &limit, sizeof limit);
    if (r == BL_STATUS_SUCCESS)
        r = g->bl->cublasLtMatmulAlgoGetHeuristic(g->handle, g->op, g->a, g->b, g->c, g->c, pref, 1,
                                                  &best, &found);
    g->bl->cublasLtMatmulPreferenceDestroy(pref);
    if (r != BL_STATUS_SUCCESS && r != BL_STATUS_NOT_SUPPORTED)
        return blas_fail(err, g->bl, r, "cublasLtMatmulAlgoGetHeuristic");
    if (r != BL_STATUS_SUCCESS || found < 1 || best.state != BL_STATUS_SUCCESS)
        return rt_fail(err, RT_ERR_USAGE,
                       "cuBLASLt has no algorithm for a %s GEMM %lldx%lldx%lld with B as %s%s",
                       s->dtype, (long long)s->m, (long long)s->n, (long long)s->k,
                       s->b_kn ? "[K, N] (nn)" : "[N, K] (nt)",
                       !strcmp(s->dtype, "fp8") && s->b_kn ? " (its fp8 GEMMs take nt only)" : "");
    g->algo = best.algo;
    g->workspace_bytes = best.workspace_size;
    describe_algo(g);
    return g->workspace_bytes ? rt_mem_alloc(g->dev, g->workspace_bytes, &g->workspace, err) : RT_OK;
}

static RtStatus plan(RtBlasGemm *g, const RtGemmSpec *s, RtError *err)
{
    const GemmType *t = gemm_type(s->dtype);
    if (!t)
        return rt_fail(err, RT_ERR_USAGE, "no cuBLASLt GEMM for dtype '%s' (bf16, fp16, fp8, tf32)",
                       s->dtype ? s->dtype : "(none)");
    if (s->m < 1 || s->n < 1 || s->k < 1)
        return rt_fail(err, RT_ERR_USAGE, "GEMM dimensions must be positive, not %lldx%lldx%lld",
                       (long long)s->m, (long long)s->n, (long long)s->k);
    RtStatus st = rt_enter(g->dev, err);
    if (st != RT_OK)
        return st;
    BL_CALL(g, err, cublasLtCreate, &g->handle);
    st = describe(g, s, t, err);
    if (st == RT_OK && !strcmp(t->name, "fp8"))
        st = set_scales(g, s, err);
    return st == RT_OK ? choose_algo(g, s, err) : st;
}

RtStatus rt_blas_gemm_create(RtDevice *d, const RtGemmSpec *spec, RtBlasGemm **out, RtError *err)
{
    *out = NULL;
    const RtBlas *bl;
    RtStatus s = rt_blas(&bl, err);
    if (s != RT_OK)
        return s;
    RtBlasGemm *g = calloc(1, sizeof *g);
    if (!g)
        return rt_fail(err, RT_ERR_IO, "out of memory");
    g->dev = d, g->bl = bl;
    s = plan(g, spec, err);
    if (s != RT_OK) {
        rt_blas_gemm_destroy(g);
        return s;
    }
    *out = g;
    return RT_OK;
}

RtStatus rt_blas_gemm_run(RtBlasGemm *g, RtDevPtr a, RtDevPtr b, RtDevPtr c, void *stream,
                          RtError *err)
{
    static const float one = 1.0f, zero = 0.0f;
    RtStatus s = rt_enter(g->dev, err);
    if (s != RT_OK)
        return s;
    /* fp8 runs out of place with no C (beta is 0), the form cuBLASLt's fp8
     * GEMMs are known to take (C == D is an in-place GEMM, which not every
     * algorithm supports, and the heuristic is not told). */
    void *cp = (void *)(uintptr_t)c;
    const void *cin = g->scales ? NULL : cp;
    BL_CALL(g, err, cublasLtMatmul, g->handle, g->op, &one, (const void *)(uintptr_t)b, g->a,
            (const void *)(uintptr_t)a, g->b, &zero, cin, g->c, cp, g->c, &g->algo,
            (void *)(uintptr_t)g->workspace, g->workspace_bytes, stream);
    return RT_OK;
}

const char *rt_blas_gemm_algo(const RtBlasGemm *g) { return g->algo_text; }

void rt_blas_gemm_destroy(RtBlasGemm *g)
{
    if (!g)
        return;
    if (rt_enter(g->dev, NULL) == RT_OK) {
        if (g->a)
            g->bl->cublasLtMatrixLayoutDestroy(g->a);
        if (g->b)
            g->bl->cublasLtMatrixLayoutDestroy(g->b);
        if (g->c)
            g->bl->cublasLtMatrixLayoutDestroy(g->c);
        if (g->op)
            g->bl->cublasLtMatmulDescDestroy(g->op);
        if (g->handle)
            g->bl->cublasLtDestroy(g->handle);
    }
    rt_mem_free(g->dev, g->workspace);
    rt_mem_free(g->dev, g->scales);
    free(g);
}
