/* GPU test of tracing through the public API: tests/build/iket_trace.tirx
 * compiled with options.trace and run by tirx_launch_trace on n = 1000
 * (four CTAs of four warps, the last one ragged): the kernel's result is
 * still right, and the trace holds one "cta" span, two "half" spans and one
 * "done" mark per warp, with nothing dropped or unpaired; with two records
 * per warp the rest are counted as dropped; tirx_launch_trace_to gives the
 * same run as JSON and as an SVG timeline (a bar per span, or one for two
 * halves too close to tell apart, a line per mark, a row per warp; with
 * svg_sms 1 the warps of one SM only); the same kernel
 * compiled without the option is refused by tirx_launch_trace. A traced
 * launch that the runtime refuses after installing its buffer (a grid of 3
 * CTAs for clusters of 2) leaves no pointer to the freed buffer behind: an
 * untraced launch of the same module then runs cleanly (sm_90+; the GPU
 * run under compute-sanitizer reports any write into the freed buffer).
 *
 * Built with OP_SIM=1 (sim.trace_events), the same checks run in the
 * simulator (tirx_simulate_trace_to, sm_90a, host memory): its time is
 * modelled (a thread's statements), so nothing here depends on real time,
 * and the modelled trace must be the same in two runs. */
#include "api_test.h"

#ifndef OP_SIM
#define OP_SIM 0
#endif

#define N 1000

typedef struct Traced {
    tirx_module *m;
    tirx_function *f;
} Traced;

static char *read_kernel(void)
{
    FILE *f = fopen(TIRX_SOURCE_DIR "/tests/build/iket_trace.tirx", "rb");
    GPU_CHECK(f != NULL, "tests/build/iket_trace.tirx is readable");
    char *text = calloc(1, 1 << 16);
    size_t n = fread(text, 1, (1 << 16) - 1, f);
    fclose(f);
    GPU_CHECK(n > 0, "the kernel is not empty");
    return text;
}

static Traced compile(tirx_device *d, const char *text, int trace)
{
    tirx_options o = {.arch = OP_SIM ? "sm_90a" : tirx_device_arch(d), .no_cache = 1,
                      .no_binary = OP_SIM, .trace = trace};
    tirx_error err;
    Traced k = {0};
    if (tirx_compile(text, strlen(text), "iket_trace.tirx", NULL, 0, &o, &k.m) != TIRX_OK) {
        char *diags = tirx_diag_render(k.m);
        fprintf(stderr, "%s%s\n", diags ? diags : "", tirx_module_log(k.m));
        tirx_free(diags);
        gpu_fail_at(__FILE__, __LINE__, "tirx_compile", "iket_trace.tirx");
    }
    if (!OP_SIM) /* a module without a binary has no launchable function */
        API_OK(tirx_get_function(k.m, "traced_scale", &k.f, &err), err);
    return k;
}

/* One traced run (simulated under OP_SIM). */
static tirx_status run_to(const Traced *k, const tirx_arg *args, const tirx_trace_options *o,
                          char **json, char **svg, tirx_error *err)
{
    if (OP_SIM)
        return tirx_simulate_trace_to(k->m, "traced_scale", args, 2, o, json, svg, err);
    return tirx_launch_trace_to(k->f, args, 2, o, json, svg, err);
}

static tirx_status run_json(const Traced *k, const tirx_arg *args, size_t cap, char **json,
                            tirx_error *err)
{
    if (OP_SIM)
        return run_to(k, args, &(tirx_trace_options){.records_per_warp = cap}, json, NULL, err);
    return tirx_launch_trace(k->f, args, 2, cap, json, err);
}

/* Clusters of two CTAs, so a grid of an odd number of CTAs is refused at
 * launch, after the traced launch has installed its buffer. */
static const char cluster_source[] =
    "@T.prim_func\n"
    "def traced_pairs(a: T.handle, n: T.int32):\n"
    "    A = T.match_buffer(a, (n,), \"float32\")\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([T.ceildiv(n, 128)])\n"
    "    cb = T.cta_id_in_cluster([2])\n"
    "    tx = T.thread_id([128])\n"
    "    T.cuda.iket.range_push(\"cta\")\n"
    "    if bx * 128 + tx < n:\n"
    "        A[bx * 128 + tx] = A[bx * 128 + tx] * T.float32(2)\n"
    "    T.cuda.iket.range_pop()\n";

static void check_refused_traced_launch(tirx_device *gpu, const float *a, void *da)
{
    if (strcmp(tirx_device_arch(gpu), "sm_90") < 0) {
        printf("refused traced launch: skipped (clusters need sm_90+)\n");
        return;
    }
    tirx_options o = {.arch = tirx_device_arch(gpu), .no_cache = 1, .trace = 1};
    tirx_module *m;
    tirx_function *f;
    tirx_error err;
    if (tirx_compile(cluster_source, strlen(cluster_source), "pairs.tirx", NULL, 0, &o, &m) !=
        TIRX_OK) {
        fprintf(stderr, "%s\n", tirx_module_log(m));
        gpu_fail_at(__FILE__, __LINE__, "tirx_compile", "pairs.tirx");
    }
    API_OK(tirx_get_function(m, "traced_pairs", &f, &err), err);
    API_OK(tirx_copy_to_device(gpu, da, a, N * sizeof *a, &err), err);
    int64_t odd = 3 * 128, even = 4 * 128;
    DLTensor t = api_vector(da, &odd, 32);
    tirx_arg args[] = {tirx_arg_tensor(&t), tirx_arg_int(odd)};
    char *json = NULL;
    GPU_CHECK(tirx_launch_trace(f, args, 2, 16, &json, &err) == TIRX_ERR_USAGE && !json,
              "a grid of 3 CTAs for clusters of 2 is refused");
    printf("refused: %s\n", err.message);
    GPU_CHECK(strstr(err.message, "not a multiple of cluster") != NULL, "the message says why");
    t = api_vector(da, &even, 32);
    args[1] = tirx_arg_int(even);
    API_OK(tirx_launch(f, args, 2, NULL, &err), err);
    API_OK(tirx_device_synchronize(gpu, NULL, &err), err);
    float out[4 * 128];
    API_OK(tirx_copy_to_host(gpu, out, da, sizeof out, &err), err);
    int wrong = 0;
    for (int i = 0; i < 4 * 128; i++)
        wrong += out[i] != 2.0f * a[i];
    GPU_CHECK(wrong == 0, "the untraced launch after the refused one doubles every element");
    tirx_module_free(m);
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

int main(void)
{
    tirx_device *gpu = OP_SIM ? NULL : api_open();
    GpuRng rng = gpu_rng();
    float a[N], out[N];
    double ref[N];
    gpu_fill_random(&rng, a, N);
    for (int i = 0; i < N; i++)
        ref[i] = 2.0 * a[i];
    void *da = OP_SIM ? aligned_alloc(256, (sizeof a + 255) / 256 * 256) : api_upload(gpu, a, N);
    int64_t n = N;
    DLTensor t = api_vector(da, &n, 32);
    if (OP_SIM) {
        memcpy(da, a, sizeof a);
        t.device = (DLDevice){kDLCPU, 0};
    }
    tirx_arg args[] = {tirx_arg_tensor(&t), tirx_arg_int(N)};
    char *text = read_kernel();
    tirx_error err;
    Traced k = compile(gpu, text, 1);

    char *json = NULL;
    API_OK(run_json(&k, args, 16, &json, &err), err);
    if (OP_SIM)
        memcpy(out, da, sizeof out);
    else
        API_OK(tirx_copy_to_host(gpu, out, da, sizeof out, &err), err);
    double rel = gpu_rel_l2(out, ref, N);
    printf("traced run: rel L2 error %.3g\n%.600s...\n", rel, json);
    GPU_CHECK(rel <= 1e-7, "the traced kernel's result matches float64");
    GPU_CHECK(count(json, "{\"name\": \"cta\", \"ph\": \"X\"") == 16, "a cta span per warp");
    GPU_CHECK(count(json, "{\"name\": \"half\", \"ph\": \"X\"") == 32, "two half spans per warp");
    GPU_CHECK(count(json, "{\"name\": \"done\", \"ph\": \"i\"") == 16, "a done mark per warp");
    GPU_CHECK(count(json, "\"name\": \"thread_name\"") == 16, "a track per warp");
    GPU_CHECK(strstr(json, "traced_scale_kernel CTA 3 warp 3") != NULL, "the last warp's track");
    GPU_CHECK(strstr(json, "\"dropped_records\": 0, \"unpaired_ranges\": 0") != NULL,
              "nothing dropped or unpaired");
    char *svg = NULL;
    tirx_trace_options o = {.records_per_warp = 16};
    if (OP_SIM) { /* modelled time: the same trace every run */
        char *again = NULL;
        API_OK(run_json(&k, args, 16, &again, &err), err);
        GPU_CHECK(!strcmp(json, again), "the simulated trace is deterministic");
        tirx_free(again);
    }
    tirx_free(json);
    API_OK(run_to(&k, args, &o, &json, &svg, &err), err);
    printf("%.600s...\n", svg);
    GPU_CHECK(count(json, "{\"name\": \"cta\", \"ph\": \"X\"") == 16, "the JSON beside the SVG");
    /* a warp's two halves may be closer than a quarter pixel: one bar then */
    int merged = count(svg, "<title>half: 2 spans covering ");
    GPU_CHECK(count(svg, "<title>cta: ") == 16, "a cta bar per warp");
    GPU_CHECK(count(svg, "<title>half: ") + merged == 32, "two half spans per warp");
    GPU_CHECK(count(svg, "</title></rect>") == 64 - merged, "a bar per span and a line per mark");
    GPU_CHECK(count(svg, " mark\"") == 16, "a done mark per warp");
    GPU_CHECK(strstr(svg, ">CTA 3 warp 3</text>") != NULL, "the last warp's row");
    GPU_CHECK(strstr(svg, "time (\xc2\xb5s from the first event)</text>") != NULL, "the axis");
    tirx_free(json);
    tirx_free(svg);
    o.svg_sms = 1;
    API_OK(run_to(&k, args, &o, NULL, &svg, &err), err);
    int drawn = count(svg, "<title>cta: ");
    GPU_CHECK(strstr(svg, " (1 of the ") != NULL && drawn > 0 && drawn % 4 == 0,
              "svg_sms 1: the warps of the CTAs of one SM");
    tirx_free(svg);
    GPU_CHECK(run_to(&k, args, &o, NULL, NULL, &err) == TIRX_ERR_USAGE,
              "neither JSON nor SVG wanted is refused");

    API_OK(run_json(&k, args, 2, &json, &err), err);
    GPU_CHECK(strstr(json, "\"dropped_records\": 80,") != NULL, "five of seven records per warp dropped");
    tirx_free(json);
    tirx_module_free(k.m);

    k = compile(gpu, text, 0);
    GPU_CHECK(run_json(&k, args, 0, &json, &err) == TIRX_ERR_USAGE && !json,
              "a module compiled without trace is refused");
    printf("refused: %s\n", err.message);
    GPU_CHECK(strstr(err.message, "without the trace option") != NULL, "the message says why");
    tirx_module_free(k.m);
    free(text);
    if (!OP_SIM)
        check_refused_traced_launch(gpu, a, da);
    if (OP_SIM) {
        free(da);
    } else {
        tirx_device_free(gpu, da);
        tirx_device_close(gpu);
    }
    printf("PASSED\n");
    return 0;
}
