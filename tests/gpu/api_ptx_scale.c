/* GPU test of an explicit kernel written with T.ptx: each CTA stages 1024
 * floats of A in shared memory with cp.async (16 bytes per thread, a scalar
 * fallback for the ragged end), waits for its group, and writes
 * B = alpha * A. n = 2^24 + 7 is bound from A's shape at launch; fresh random
 * input, the output poisoned first, checked against float64. With OP_SIM=1
 * (sim.api_ptx_scale) the same at n = 2^16 + 7 in the simulator. */
#include "api_test.h"

#define N OP_SIZE((1 << 24) + 7, (1 << 16) + 7)

static const char source[] =
    "@T.prim_func\n"
    "def ptx_scale(A: T.Buffer((\"n\",), \"float32\"), B: T.Buffer((n,), \"float32\"),\n"
    "              alpha: T.float32):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([T.ceildiv(n, 1024)])\n"
    "    tx = T.thread_id([256])\n"
    "    S = T.alloc_shared((1024,), \"float32\", align=16)\n"
    "    first: T.let = bx * 1024 + tx * 4\n"
    "    if first + 4 <= n:\n"
    "        T.ptx.cp.async_.cg.shared.global_(S.ptr_to([tx * 4]), A.ptr_to([first]), 16)\n"
    "    else:\n"
    "        for j in range(4):\n"
    "            if first + j < n:\n"
    "                S[tx * 4 + j] = A[first + j]\n"
    "    T.ptx.cp.async_.commit_group()\n"
    "    T.ptx.cp.async_.wait_group(0)\n"
    "    T.cuda.cta_sync()\n"
    "    for j in range(4):\n"
    "        if first + j < n:\n"
    "            B[first + j] = S[tx * 4 + j] * alpha\n";

int main(void)
{
    tirx_device *gpu = api_open();
    GpuRng rng = gpu_rng();
    float *a = malloc(N * sizeof(float)), *out = malloc(N * sizeof(float));
    double *ref = malloc(N * sizeof(double));
    GPU_CHECK(a && out && ref, "host memory");
    gpu_fill_random(&rng, a, N);
    float alpha = 1.0f + gpu_uniform(&rng);
    for (size_t i = 0; i < N; i++)
        ref[i] = (double)alpha * (double)a[i];
    void *da = api_upload(gpu, a, N), *db = api_upload(gpu, NULL, N);
    api_poison(gpu, db, out, N);

    tirx_module *m = api_compile(gpu, source, "ptx_scale.tirx", NULL);
    tirx_error err;
    int64_t n = N;
    DLTensor ta = api_vector(da, &n, 32), tb = api_vector(db, &n, 32);
    tirx_arg args[] = {tirx_arg_tensor(&ta), tirx_arg_tensor(&tb), tirx_arg_float(alpha)};
    API_OK(api_launch(m, "ptx_scale", args, 3, &err), err);
    api_download(gpu, out, db, N);
    double rel = gpu_rel_l2(out, ref, N);
    printf("ptx_scale n = %d: rel L2 error %.3g\n", N, rel);
    GPU_CHECK(rel <= 1e-6, "B = alpha * A matches the float64 reference");

    tirx_module_free(m);
    api_free(gpu, da);
    api_free(gpu, db);
    free(a), free(out), free(ref);
    api_close(gpu);
    printf("PASSED\n");
    return 0;
}
