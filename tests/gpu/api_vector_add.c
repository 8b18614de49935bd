/* GPU test of the whole path through the public API: examples/vector_add.tirx
 * compiled by tirx_compile (parse, passes, CUDA codegen, NVRTC) into a fresh
 * cache, then compiled again (a cache hit that parses only the host part),
 * and both modules launched on n = 2^24 + 7 fresh random elements (a ragged
 * last CTA; n is a runtime value) with the output poisoned first, checked
 * against float64 on the CPU. A wrong argument must be refused with a
 * message naming it, without launching. With OP_SIM=1
 * (sim.api_vector_add) the same at n = 2^18 + 7 in the simulator, compiled
 * once: the compile cache holds binaries, which the simulator does not run. */
#include "api_test.h"

#define N OP_SIZE((1 << 24) + 7, (1 << 18) + 7)

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

static void expect_refused(tirx_module *m, const tirx_arg *args, size_t n, const char *msg)
{
    tirx_error err;
    GPU_CHECK(api_launch(m, "vector_add", args, n, &err) == TIRX_ERR_USAGE,
              "the launch is refused");
    printf("refused: %s\n", err.message);
    GPU_CHECK(strstr(err.message, msg) != NULL, msg);
}

static void run_and_check(Run *r, tirx_module *m, const char *label)
{
    tirx_error err;
    api_poison(r->gpu, r->dc, r->out, N);
    DLTensor a = api_vector(r->da, &r->n, 32), b = api_vector(r->db, &r->n, 32);
    DLTensor c = api_vector(r->dc, &r->n, 32);
    tirx_arg args[] = {tirx_arg_tensor(&a), tirx_arg_tensor(&b), tirx_arg_tensor(&c),
                       tirx_arg_int(r->n)};
    API_OK(api_launch(m, "vector_add", args, 4, &err), err);
    api_download(r->gpu, r->out, r->dc, N);
    double rel = gpu_rel_l2(r->out, r->ref, N);
    printf("%-6s n = %d: rel L2 error %.3g\n", label, N, rel);
    GPU_CHECK(rel <= 1e-6, "vector add matches the float64 reference");

    DLTensor half = api_vector(r->db, &r->n, 16);
    args[1] = tirx_arg_tensor(&half);
    expect_refused(m, args, 4, "argument B: expected dtype float32, got float16");
    args[1] = tirx_arg_tensor(&b);
    args[3] = tirx_arg_int(r->n - 1);
    expect_refused(m, args, 4, "argument A: expected shape[0] == n");
    expect_refused(m, args, 3, "expected 4 arguments, got 3");
}

int main(void)
{
    Run r = {.gpu = api_open(), .n = N};
    GpuRng rng = gpu_rng();
    r.a = malloc(N * sizeof(float)), r.b = malloc(N * sizeof(float));
    r.out = malloc(N * sizeof(float)), r.ref = malloc(N * sizeof(double));
    GPU_CHECK(r.a && r.b && r.out && r.ref, "host memory");
    gpu_fill_random(&rng, r.a, N);
    gpu_fill_random(&rng, r.b, N);
    for (size_t i = 0; i < N; i++)
        r.ref[i] = (double)r.a[i] + (double)r.b[i];
    r.da = api_upload(r.gpu, r.a, N), r.db = api_upload(r.gpu, r.b, N);
    r.dc = api_upload(r.gpu, NULL, N);

    char *text = read_example();
    if (OP_SIM) {
        tirx_module *m = api_compile(r.gpu, text, "examples/vector_add.tirx", NULL);
        run_and_check(&r, m, "sim");
        tirx_module_free(m);
    } else {
        char cache[] = "/tmp/tirx-api-cache-XXXXXX";
        GPU_CHECK(mkdtemp(cache) != NULL, "a temporary cache directory");
        tirx_module *first = api_compile(r.gpu, text, "examples/vector_add.tirx", cache);
        tirx_module *second = api_compile(r.gpu, text, "examples/vector_add.tirx", cache);
        GPU_CHECK(!tirx_module_cached(first) && tirx_module_cached(second),
                  "the second compile is a cache hit");
        run_and_check(&r, first, "miss");
        run_and_check(&r, second, "hit");
        tirx_module_free(first);
        tirx_module_free(second);
        gpu_remove_tree(cache);
    }
    free(text);
    api_free(r.gpu, r.da);
    api_free(r.gpu, r.db);
    api_free(r.gpu, r.dc);
    free(r.a), free(r.b), free(r.out), free(r.ref);
    api_close(r.gpu);
    printf("PASSED\n");
    return 0;
}
