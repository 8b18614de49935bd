/* GPU test of the whole path through the public API: examples/vector_add.tirx
 * compiled by tirx_compile (parse, passes, CUDA codegen, NVRTC) into a fresh
 * cache, then compiled again (a cache hit that parses only the host part),
 * and both modules launched on n = 2^24 + 7 fresh random elements (a ragged
 * last CTA; n is a runtime value) with the output poisoned first, checked
 * against float64 on the CPU. A wrong argument must be refused with a
 * message naming it, without launching. */
#include "gpu_test.h"
#include "runtime/dlpack.h"
#include "tirx.h"

#define N ((1 << 24) + 7)

typedef struct Run {
    tirx_device *gpu;
    float *a, *b, *out;
    double *ref;
    void *da, *db, *dc;
    int64_t n;
} Run;

static char *read_example(void)
{
    FILE *f = fopen(TIRX_SOURCE_DIR "/examples/vector_add.tirx", "rb");
    GPU_CHECK(f != NULL, "examples/vector_add.tirx is readable");
    char *text = calloc(1, 1 << 16);
    size_t n = fread(text, 1, (1 << 16) - 1, f);
    fclose(f);
    GPU_CHECK(n > 0, "examples/vector_add.tirx is not empty");
    return text;
}

static DLTensor vec(void *data, int64_t *n, uint8_t bits)
{
    DLTensor t = {.data = data, .device = {kDLCUDA, 0}, .ndim = 1,
                  .dtype = {kDLFloat, bits, 1}, .shape = n};
    return t;
}

static void tirx_ok(tirx_status st, const tirx_error *err, const char *what)
{
    if (st != TIRX_OK)
        gpu_fail_at(__FILE__, __LINE__, what, err->message);
}

static tirx_module *compile(const char *text, const char *arch, const char *cache)
{
    tirx_options o = {.arch = arch, .lineinfo = 1, .cache_dir = cache};
    tirx_module *m;
    tirx_status st = tirx_compile(text, strlen(text), "examples/vector_add.tirx", NULL, 0, &o, &m);
    if (st != TIRX_OK) {
        char *d = tirx_diag_render(m);
        fprintf(stderr, "%s", d);
        tirx_free(d);
        gpu_fail_at(__FILE__, __LINE__, "tirx_compile", NULL);
    }
    tirx_kernel_stats k;
    GPU_CHECK(tirx_kernel_count(m) == 1 && tirx_kernel_stats_get(m, 0, &k) == 0, "one kernel");
    printf("%s: %d registers, %d B spilled, cached: %d\n", k.name, k.registers,
           k.spill_store_bytes, tirx_module_cached(m));
    return m;
}

static void run_and_check(Run *r, tirx_module *m, const char *label)
{
    tirx_error err;
    tirx_function *f;
    tirx_ok(tirx_get_function(m, "vector_add", &f, &err), &err, "tirx_get_function");
    size_t bytes = (size_t)N * sizeof(float);
    memset(r->out, 0xff, bytes);
    tirx_ok(tirx_copy_to_device(r->gpu, r->dc, r->out, bytes, &err), &err, "poison");
    DLTensor a = vec(r->da, &r->n, 32), b = vec(r->db, &r->n, 32), c = vec(r->dc, &r->n, 32);
    tirx_arg args[] = {tirx_arg_tensor(&a), tirx_arg_tensor(&b), tirx_arg_tensor(&c),
                       tirx_arg_int(r->n)};
    tirx_ok(tirx_launch(f, args, 4, NULL, &err), &err, "tirx_launch");
    tirx_ok(tirx_device_synchronize(r->gpu, NULL, &err), &err, "synchronize");
    tirx_ok(tirx_copy_to_host(r->gpu, r->out, r->dc, bytes, &err), &err, "copy back");
    double rel = gpu_rel_l2(r->out, r->ref, N);
    printf("%-6s n = %d: rel L2 error %.3g\n", label, N, rel);
    GPU_CHECK(rel <= 1e-6, "vector add matches the float64 reference");

    /* Wrong arguments: refused before anything runs. */
    DLTensor half = vec(r->db, &r->n, 16);
    args[1] = tirx_arg_tensor(&half);
    GPU_CHECK(tirx_launch(f, args, 4, NULL, &err) == TIRX_ERR_USAGE, "a float16 B is refused");
    printf("wrong dtype: %s\n", err.message);
    GPU_CHECK(strstr(err.message, "argument B: expected dtype float32, got float16") != NULL,
              "the message names B and both dtypes");
    args[1] = tirx_arg_tensor(&b);
    args[3] = tirx_arg_int(r->n - 1);
    GPU_CHECK(tirx_launch(f, args, 4, NULL, &err) == TIRX_ERR_USAGE, "n != A.shape[0] is refused");
    printf("wrong n: %s\n", err.message);
    GPU_CHECK(tirx_launch(f, args, 3, NULL, &err) == TIRX_ERR_USAGE, "3 arguments are refused");
    printf("wrong count: %s\n", err.message);
}

static void setup(Run *r)
{
    tirx_error err;
    GpuRng rng = gpu_rng();
    size_t bytes = (size_t)N * sizeof(float);
    r->n = N;
    r->a = malloc(bytes), r->b = malloc(bytes), r->out = malloc(bytes);
    r->ref = malloc((size_t)N * sizeof(double));
    GPU_CHECK(r->a && r->b && r->out && r->ref, "host memory");
    gpu_fill_random(&rng, r->a, N);
    gpu_fill_random(&rng, r->b, N);
    for (size_t i = 0; i < N; i++)
        r->ref[i] = (double)r->a[i] + (double)r->b[i];
    tirx_ok(tirx_device_alloc(r->gpu, bytes, &r->da, &err), &err, "alloc A");
    tirx_ok(tirx_device_alloc(r->gpu, bytes, &r->db, &err), &err, "alloc B");
    tirx_ok(tirx_device_alloc(r->gpu, bytes, &r->dc, &err), &err, "alloc C");
    tirx_ok(tirx_copy_to_device(r->gpu, r->da, r->a, bytes, &err), &err, "copy A");
    tirx_ok(tirx_copy_to_device(r->gpu, r->db, r->b, bytes, &err), &err, "copy B");
}

int main(void)
{
    Run r = {0};
    tirx_error err;
    if (tirx_device_open(0, &r.gpu, &err) != TIRX_OK)
        gpu_skip(err.message);
    const char *arch = tirx_device_arch(r.gpu);
    printf("device arch: %s\n", arch);
    setup(&r);
    char *text = read_example();
    char cache[] = "/tmp/tirx-api-cache-XXXXXX";
    GPU_CHECK(mkdtemp(cache) != NULL, "a temporary cache directory");
    tirx_module *first = compile(text, arch, cache);
    tirx_module *second = compile(text, arch, cache);
    GPU_CHECK(!tirx_module_cached(first) && tirx_module_cached(second),
              "the second compile is a cache hit");
    run_and_check(&r, first, "miss");
    run_and_check(&r, second, "hit");
    tirx_module_free(first);
    tirx_module_free(second);
    gpu_remove_tree(cache);
    free(text);
    tirx_device_free(r.gpu, r.da);
    tirx_device_free(r.gpu, r.db);
    tirx_device_free(r.gpu, r.dc);
    free(r.a), free(r.b), free(r.out), free(r.ref);
    tirx_device_close(r.gpu);
    printf("PASSED\n");
    return 0;
}
