/* GPU test of the TMA copy_async variants (tests/gpu/op_tma.tirx), each on
 * fresh random bits with the outputs poisoned first:
 *   - loads into the MMA shared-memory layouts (128B swizzle in two K slabs,
 *     128B, 64B, 32B, unswizzled core matrices), read back by element loops
 *     through the layouts: bit-exact against the source;
 *   - a multicast load across a 2-CTA cluster (cta_mask=3): each CTA holds
 *     its cluster's whole tile;
 *   - a reduce-add TMA store: C + X, exactly as float32 adds;
 *   - TMA through views declared in the kernel (a select with a CTA-dependent
 *     offset in, a flatten out): bit-exact;
 *   - ragged edges of a 1000 x 1000 matrix in 64 x 64 tiles: zero-filled
 *     loads past the edge, stores dropped there.
 * Needs sm_90a or newer (skipped below). */
#include "op_kernel.h"

static void random_bits(GpuRng *rng, uint16_t *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (uint16_t)(gpu_next(rng) >> 48);
}

static void expect_equal(const void *got, const void *want, size_t bytes, const char *what)
{
    long long at = op_first_difference(got, want, bytes);
    if (at >= 0)
        printf("  %s differs first at byte %lld\n", what, at);
    else
        printf("  %s: bit-exact\n", what);
    GPU_CHECK(at < 0, what);
}

static void free_tensors(tirx_device *gpu, OpTensor *const *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        op_free(gpu, t[i]);
}

static void layouts(tirx_device *gpu, tirx_module *m, GpuRng *rng)
{
    printf("tma_layouts: 256 x 128 bfloat16 into the MMA layouts:\n");
    uint16_t *a = malloc(256 * 128 * 2), *b = malloc(256 * 128 * 2), *a64 = malloc(256 * 64 * 2);
    uint16_t *out = malloc(256 * 64 * 2);
    GPU_CHECK(a && b && a64 && out, "host memory");
    random_bits(rng, a, 256 * 128);
    for (int r = 0; r < 256; r++)
        memcpy(a64 + r * 64, a + r * 128, 64 * 2);
    OpTensor A, B, C, D, E, F;
    op_tensor(gpu, &A, 256, 128, kDLBfloat, 16);
    op_tensor(gpu, &B, 256, 128, kDLBfloat, 16);
    OpTensor *narrow[] = {&C, &D, &E, &F};
    for (int i = 0; i < 4; i++)
        op_tensor(gpu, narrow[i], 256, 64, kDLBfloat, 16), op_poison(gpu, narrow[i]);
    op_upload(gpu, &A, a), op_poison(gpu, &B);
    OpTensor *args[] = {&A, &B, &C, &D, &E, &F};
    op_launch(m, "tma_layouts", args, 6);
    op_download(gpu, &B, b);
    expect_equal(b, a, 256 * 128 * 2, "128B swizzle, two K slabs");
    static const char *const what[] = {"128B swizzle", "64B swizzle (two slabs)",
                                       "32B swizzle (four slabs)", "no swizzle (core matrices)"};
    for (int i = 0; i < 4; i++) {
        op_download(gpu, narrow[i], out);
        expect_equal(out, a64, 256 * 64 * 2, what[i]);
    }
    free_tensors(gpu, args, 6);
    free(a), free(b), free(a64), free(out);
}

static void multicast(tirx_device *gpu, tirx_module *m, GpuRng *rng)
{
    printf("tma_multicast: clusters of 2, each CTA loads half of the tile for both:\n");
    uint16_t *a = malloc(256 * 64 * 2), *b = malloc(512 * 64 * 2), *want = malloc(512 * 64 * 2);
    GPU_CHECK(a && b && want, "host memory");
    random_bits(rng, a, 256 * 64);
    for (int cta = 0; cta < 8; cta++)
        memcpy(want + cta * 64 * 64, a + (cta / 2) * 64 * 64, 64 * 64 * 2);
    OpTensor A, B;
    op_tensor(gpu, &A, 256, 64, kDLFloat, 16);
    op_tensor(gpu, &B, 512, 64, kDLFloat, 16);
    op_upload(gpu, &A, a), op_poison(gpu, &B);
    OpTensor *args[] = {&A, &B};
    op_launch(m, "tma_multicast", args, 2);
    op_download(gpu, &B, b);
    expect_equal(b, want, 512 * 64 * 2, "every CTA's tile");
    free_tensors(gpu, args, 2);
    free(a), free(b), free(want);
}

static void reduce_add(tirx_device *gpu, tirx_module *m, GpuRng *rng)
{
    printf("tma_reduce: C += X with cp.reduce.async.bulk.tensor .add:\n");
    size_t n = 256 * 64;
    float *x = malloc(n * 4), *c = malloc(n * 4), *want = malloc(n * 4), *got = malloc(n * 4);
    GPU_CHECK(x && c && want && got, "host memory");
    gpu_fill_random(rng, x, n);
    gpu_fill_random(rng, c, n);
    for (size_t i = 0; i < n; i++)
        want[i] = c[i] + x[i];
    OpTensor X, C;
    op_tensor(gpu, &X, 256, 64, kDLFloat, 32);
    op_tensor(gpu, &C, 256, 64, kDLFloat, 32);
    op_upload(gpu, &X, x), op_upload(gpu, &C, c);
    OpTensor *args[] = {&X, &C};
    op_launch(m, "tma_reduce", args, 2);
    op_download(gpu, &C, got);
    expect_equal(got, want, n * 4, "C + X");
    free_tensors(gpu, args, 2);
    free(x), free(c), free(want), free(got);
}

/* A (4, 256, 64) float16 tensor. */
typedef struct Tensor3 {
    OpTensor o;
    int64_t shape[3];
} Tensor3;

static void tensor3(tirx_device *gpu, Tensor3 *t)
{
    op_tensor(gpu, &t->o, 4 * 256, 64, kDLFloat, 16);
    t->shape[0] = 4, t->shape[1] = 256, t->shape[2] = 64;
    t->o.t.ndim = 3, t->o.t.shape = t->shape;
}

static void views(tirx_device *gpu, tirx_module *m, GpuRng *rng)
{
    printf("tma_views: A.select(0, bx // 4) in, B.flatten(0, 1) out:\n");
    size_t n = 4 * 256 * 64;
    uint16_t *a = malloc(n * 2), *b = malloc(n * 2);
    GPU_CHECK(a && b, "host memory");
    random_bits(rng, a, n);
    Tensor3 A, B;
    tensor3(gpu, &A), tensor3(gpu, &B);
    op_upload(gpu, &A.o, a), op_poison(gpu, &B.o);
    OpTensor *args[] = {&A.o, &B.o};
    op_launch(m, "tma_views", args, 2);
    op_download(gpu, &B.o, b);
    expect_equal(b, a, n * 2, "B");
    free_tensors(gpu, args, 2);
    free(a), free(b);
}

static void ragged(tirx_device *gpu, tirx_module *m, GpuRng *rng)
{
    printf("tma_ragged: 1000 x 1000 float16 in 64 x 64 tiles:\n");
    size_t n = 1000 * 1000, np = 1024 * 1024;
    uint16_t *a = malloc(n * 2), *b = malloc(n * 2), *p = malloc(np * 2), *want = calloc(np, 2);
    GPU_CHECK(a && b && p && want, "host memory");
    random_bits(rng, a, n);
    for (int r = 0; r < 1000; r++)
        memcpy(want + (size_t)r * 1024, a + (size_t)r * 1000, 1000 * 2);
    OpTensor A, B, P;
    op_tensor(gpu, &A, 1000, 1000, kDLFloat, 16);
    op_tensor(gpu, &B, 1000, 1000, kDLFloat, 16);
    op_tensor(gpu, &P, 1024, 1024, kDLFloat, 16);
    op_upload(gpu, &A, a), op_poison(gpu, &B), op_poison(gpu, &P);
    OpTensor *args[] = {&A, &B, &P};
    op_launch(m, "tma_ragged", args, 3);
    op_download(gpu, &B, b);
    op_download(gpu, &P, p);
    expect_equal(p, want, np * 2, "the loaded tiles (zeros past the edge)");
    expect_equal(b, a, n * 2, "B (stores past the edge dropped)");
    free_tensors(gpu, args, 3);
    free(a), free(b), free(p), free(want);
}

int main(void)
{
    tirx_device *gpu = op_open_gpu(OP_SM90_OR_NEWER, "TMA needs sm_90a or newer");
    GpuRng rng = gpu_rng();
    tirx_module *m = op_compile(gpu, "tests/gpu/op_tma.tirx", NULL, 0);
    layouts(gpu, m, &rng);
    multicast(gpu, m, &rng);
    reduce_add(gpu, m, &rng);
    views(gpu, m, &rng);
    ragged(gpu, m, &rng);
    tirx_module_free(m);
    op_close(gpu);
    printf("PASSED\n");
    return 0;
}
