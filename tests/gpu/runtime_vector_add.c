/* GPU test of the runtime's whole path on a handwritten kernel: NVRTC
 * compile (with an in-memory prelude and the cubin cache: the second compile
 * is a hit and its cubin runs too), module load, resource query, launch on a
 * stream of the caller's, y = a + alpha * b over n = 2^24 + 7 elements (a
 * ragged last block), checked against float64 on the CPU. The same kernel is
 * also loaded from PTX (driver JIT) and, when nvcc is found, built by nvcc.
 * Bad launches and lookups must be errors with messages, not crashes. */
#include "gpu_test.h"

static const RtHeader prelude = {"vadd_prelude.h", "typedef long long i64;\n"};

static const char source[] =
    "#include \"vadd_prelude.h\"\n"
    "extern \"C\" __global__ void vadd(float *out, const float *a, const float *b, float alpha,\n"
    "                                 i64 n) {\n"
    "  i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) out[i] = a[i] + alpha * b[i];\n"
    "}\n";

#define N ((1u << 24) + 7)
#define BLOCK 256

typedef struct Problem {
    RtDevice *dev;
    float *a, *b, *out;
    double *ref;
    float alpha;
    RtDevPtr da, db, dout;
    void *stream;
} Problem;

static void problem_init(Problem *p, RtDevice *d)
{
    RtError err;
    GpuRng rng = gpu_rng();
    p->dev = d;
    p->a = malloc(N * sizeof(float));
    p->b = malloc(N * sizeof(float));
    p->out = malloc(N * sizeof(float));
    p->ref = malloc(N * sizeof(double));
    gpu_fill_random(&rng, p->a, N);
    gpu_fill_random(&rng, p->b, N);
    p->alpha = gpu_uniform(&rng) * 4;
    for (size_t i = 0; i < N; i++)
        p->ref[i] = (double)p->a[i] + (double)p->alpha * (double)p->b[i];
    GPU_OK(rt_mem_alloc(d, N * sizeof(float), &p->da, &err), err);
    GPU_OK(rt_mem_alloc(d, N * sizeof(float), &p->db, &err), err);
    GPU_OK(rt_mem_alloc(d, N * sizeof(float), &p->dout, &err), err);
    GPU_OK(rt_memcpy_htod(d, p->da, p->a, N * sizeof(float), &err), err);
    GPU_OK(rt_memcpy_htod(d, p->db, p->b, N * sizeof(float), &err), err);
    GPU_OK(rt_stream_create(d, &p->stream, &err), err);
}

/* Poison, launch on the stream, check; returns the kernel time in ms. */
static float run_and_check(Problem *p, RtFunction *f, const char *label)
{
    RtError err;
    long long n = N;
    void *args[] = {&p->dout, &p->da, &p->db, &p->alpha, &n};
    RtLaunchConfig cfg = {.grid = {(N + BLOCK - 1) / BLOCK, 1, 1}, .block = {BLOCK, 1, 1},
                          .stream = p->stream};
    RtEvent *start, *end;
    float ms;
    GPU_OK(rt_memset8(p->dev, p->dout, 0xff, N * sizeof(float), &err), err);
    GPU_OK(rt_synchronize(p->dev, NULL, &err), err);
    GPU_OK(rt_event_create(p->dev, &start, &err), err);
    GPU_OK(rt_event_create(p->dev, &end, &err), err);
    GPU_OK(rt_event_record(start, p->stream, &err), err);
    GPU_OK(rt_launch(f, &cfg, args, &err), err);
    GPU_OK(rt_event_record(end, p->stream, &err), err);
    GPU_OK(rt_event_elapsed_ms(start, end, &ms, &err), err);
    GPU_OK(rt_synchronize(p->dev, p->stream, &err), err);
    GPU_OK(rt_memcpy_dtoh(p->dev, p->out, p->dout, N * sizeof(float), &err), err);
    double rel = gpu_rel_l2(p->out, p->ref, N);
    printf("%-10s n = %u: rel L2 error %.3g, %.3f ms (%.0f GB/s)\n", label, N, rel, ms,
           3.0 * N * sizeof(float) / (ms * 1e6));
    GPU_CHECK(rel <= 1e-6, "vector add matches the float64 reference");
    rt_event_destroy(start);
    rt_event_destroy(end);
    return ms;
}

static char *make_cache_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    char *dir = malloc(4096);
    snprintf(dir, 4096, "%s/tirx-gpu-cache-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    GPU_CHECK(mkdtemp(dir) != NULL, "a temporary cache directory");
    return dir;
}

/* NVRTC through the cache: a miss, then a hit with the same cubin. */
static void test_nvrtc_cached(Problem *p)
{
    RtError err;
    RtCache cache;
    char *dir = make_cache_dir();
    GPU_OK(rt_cache_open(&cache, dir, &err), err);
    RtCompileOptions o = {.arch = rt_device_info(p->dev)->arch, .lineinfo = true,
                          .headers = &prelude, .nheaders = 1, .cache = &cache};
    RtBinary first, second;
    GPU_OK(rt_compile(source, &o, &first, &err), err);
    GPU_OK(rt_compile(source, &o, &second, &err), err);
    GPU_CHECK(!first.cached && second.cached, "the second compile is a cache hit");
    GPU_CHECK(first.cubin_size == second.cubin_size &&
                  memcmp(first.cubin, second.cubin, first.cubin_size) == 0,
              "the cached cubin is the compiled one");
    RtModule *m;
    GPU_OK(rt_module_load(p->dev, second.cubin, &m, &err), err);
    RtFunction *f = gpu_function(m, "vadd");
    const RtResources *r = rt_function_resources(f);
    printf("vadd: %d registers, %d B local, %d B static smem, max %d threads, sm_%d binary\n",
           r->registers, r->local_bytes, r->static_smem_bytes, r->max_threads_per_block,
           r->binary_version);
    GPU_CHECK(first.nkernels == 1 && r->registers == first.kernels[0].registers,
              "the driver's register count is ptxas's");
    GPU_CHECK(r->local_bytes == 0, "no local memory");
    run_and_check(p, f, "nvrtc");
    /* The module's errors. */
    RtFunction *missing;
    GPU_CHECK(rt_module_function(m, "no_such_kernel", &missing, &err) == RT_ERR_USAGE,
              "looking up a missing kernel is a usage error");
    GPU_CHECK(strstr(err.message, "no_such_kernel") != NULL, "the message names the kernel");
    RtLaunchConfig bad = {.grid = {1, 1, 1}, .block = {2048, 1, 1}};
    void *args[5] = {0};
    GPU_CHECK(rt_launch(f, &bad, args, &err) == RT_ERR_USAGE, "2048 threads is a usage error");
    GPU_CHECK(strstr(err.message, "2048 threads per block") != NULL, "the message says why");
    bad.block[0] = 1, bad.grid[1] = 0;
    GPU_CHECK(rt_launch(f, &bad, args, &err) == RT_ERR_USAGE, "grid.y = 0 is a usage error");
    rt_module_unload(m);
    rt_binary_free(&first);
    rt_binary_free(&second);
    gpu_remove_tree(dir);
    free(dir);
}

/* The PTX image, JIT-compiled by the driver. */
static void test_ptx_jit(Problem *p)
{
    RtError err;
    RtCompileOptions o = {.arch = rt_device_info(p->dev)->arch, .want_ptx = true,
                          .headers = &prelude, .nheaders = 1};
    RtBinary b;
    GPU_OK(rt_compile(source, &o, &b, &err), err);
    RtModule *m;
    GPU_OK(rt_module_load(p->dev, b.ptx, &m, &err), err);
    run_and_check(p, gpu_function(m, "vadd"), "ptx-jit");
    rt_module_unload(m);
    RtModule *broken;
    GPU_CHECK(rt_module_load(p->dev, ".version 9.0\n.target sm_90a\nnot ptx\n", &broken, &err) ==
                  RT_ERR_CUDA,
              "loading broken PTX is an error");
    printf("broken PTX: %s\n", err.message);
    rt_binary_free(&b);
}

static void test_nvcc(Problem *p)
{
    RtError err;
    RtCompileOptions o = {.arch = rt_device_info(p->dev)->arch, .compiler = RT_NVCC,
                          .lineinfo = true, .headers = &prelude, .nheaders = 1, .name = "vadd.cu"};
    RtBinary b;
    RtStatus s = rt_compile(source, &o, &b, &err);
    if (s == RT_ERR_NO_NVCC) {
        printf("nvcc: not found, not tested (%s)\n", err.message);
        return;
    }
    if (s != RT_OK)
        fprintf(stderr, "%s\n", b.log ? b.log : "");
    GPU_OK(s, err);
    RtModule *m;
    GPU_OK(rt_module_load(p->dev, b.cubin, &m, &err), err);
    run_and_check(p, gpu_function(m, "vadd"), "nvcc");
    rt_module_unload(m);
    rt_binary_free(&b);
}

int main(void)
{
    RtDevice *d = gpu_open(7);
    Problem p;
    problem_init(&p, d);
    test_nvrtc_cached(&p);
    test_ptx_jit(&p);
    test_nvcc(&p);
    rt_stream_destroy(d, p.stream);
    rt_mem_free(d, p.da);
    rt_mem_free(d, p.db);
    rt_mem_free(d, p.dout);
    free(p.a);
    free(p.b);
    free(p.out);
    free(p.ref);
    rt_device_close(d);
    printf("PASSED\n");
    return 0;
}
