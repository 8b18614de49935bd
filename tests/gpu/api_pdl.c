/* GPU test of programmatic dependent launch through the public API:
 * tests/build/pdl_pair.tirx's `produce` (B from A, slowly; it signals its
 * dependents as it starts) and then `consume` (C = B + A, launched with
 * programmatic stream serialization: it may start while `produce` runs and
 * waits with griddepcontrol.wait before reading B), on the same stream,
 * with B and C poisoned before each of three rounds: a consumer that read B
 * too early reads NaN. Both outputs are checked against float64 on the CPU.
 * Needs sm_90 (skipped below). With OP_SIM=1 (sim.api_pdl) the same at a
 * small size in the simulator, where the kernels run one after the other
 * and griddepcontrol is a no-op. */
#include "api_test.h"

#define N OP_SIZE((1 << 22) + 3, 1000 + 3)
#define ITERS OP_SIZE(4096, 3)
#define ROUNDS OP_SIZE(3, 1)

typedef struct Run {
    tirx_device *gpu;
    float *a, *b, *c;
    double *ref_b, *ref_c;
    void *da, *db, *dc;
    int64_t n;
} Run;

static char *read_pair(void)
{
    FILE *f = fopen(TIRX_SOURCE_DIR "/tests/build/pdl_pair.tirx", "rb");
    GPU_CHECK(f != NULL, "tests/build/pdl_pair.tirx is readable");
    char *text = calloc(1, 1 << 16);
    size_t n = fread(text, 1, (1 << 16) - 1, f);
    fclose(f);
    GPU_CHECK(n > 0, "tests/build/pdl_pair.tirx is not empty");
    return text;
}

/* The recurrence x = 0.9999 x + 0.0001 a from 0, in closed form. */
static void reference(Run *r)
{
    double f = 1 - pow(0.9999, ITERS);
    for (size_t i = 0; i < N; i++) {
        r->ref_b[i] = (double)r->a[i] * f;
        r->ref_c[i] = r->ref_b[i] + (double)r->a[i];
    }
}

static void round_trip(Run *r, tirx_module *m, int round)
{
    tirx_error err;
    api_poison(r->gpu, r->db, r->b, N);
    api_poison(r->gpu, r->dc, r->c, N);
    DLTensor a = api_vector(r->da, &r->n, 32), b = api_vector(r->db, &r->n, 32);
    DLTensor c = api_vector(r->dc, &r->n, 32);
    tirx_arg produce[] = {tirx_arg_tensor(&a), tirx_arg_tensor(&b), tirx_arg_int(r->n),
                          tirx_arg_int(ITERS)};
    tirx_arg consume[] = {tirx_arg_tensor(&a), tirx_arg_tensor(&b), tirx_arg_tensor(&c),
                          tirx_arg_int(r->n)};
    API_OK(api_launch(m, "produce", produce, 4, &err), err);
    API_OK(api_launch(m, "consume", consume, 4, &err), err);
    api_download(r->gpu, r->c, r->dc, N);
    api_download(r->gpu, r->b, r->db, N);
    double rel_b = gpu_rel_l2(r->b, r->ref_b, N), rel_c = gpu_rel_l2(r->c, r->ref_c, N);
    printf("round %d, n = %d, %d iterations: B rel L2 error %.3g, C %.3g\n", round, N, ITERS,
           rel_b, rel_c);
    GPU_CHECK(rel_b <= 1e-4, "the producer's B matches the float64 reference");
    GPU_CHECK(rel_c <= 1e-4, "the dependent consumer read the finished B");
}

int main(void)
{
    Run r = {.gpu = api_open(), .n = N};
    if (!OP_SIM && atoi(tirx_device_arch(r.gpu) + 3) < 90)
        gpu_skip_arch("programmatic dependent launch needs sm_90+");
    GpuRng rng = gpu_rng();
    r.a = malloc(N * sizeof(float)), r.b = malloc(N * sizeof(float));
    r.c = malloc(N * sizeof(float));
    r.ref_b = malloc(N * sizeof(double)), r.ref_c = malloc(N * sizeof(double));
    GPU_CHECK(r.a && r.b && r.c && r.ref_b && r.ref_c, "host memory");
    gpu_fill_random(&rng, r.a, N);
    reference(&r);
    r.da = api_upload(r.gpu, r.a, N), r.db = api_upload(r.gpu, NULL, N);
    r.dc = api_upload(r.gpu, NULL, N);
    char *text = read_pair();
    tirx_module *m = api_compile(r.gpu, text, "tests/build/pdl_pair.tirx", NULL);
    for (int i = 0; i < ROUNDS; i++)
        round_trip(&r, m, i);
    tirx_module_free(m);
    free(text);
    api_free(r.gpu, r.da);
    api_free(r.gpu, r.db);
    api_free(r.gpu, r.dc);
    free(r.a), free(r.b), free(r.c), free(r.ref_b), free(r.ref_c);
    api_close(r.gpu);
    printf("PASSED\n");
    return 0;
}
