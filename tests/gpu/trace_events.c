/* GPU test of tracing through the public API: tests/build/iket_trace.tirx
 * compiled with options.trace and run by tirx_launch_trace on n = 1000
 * (four CTAs of four warps, the last one ragged): the kernel's result is
 * still right, and the trace holds one "cta" span, two "half" spans and one
 * "done" mark per warp, with nothing dropped or unpaired; with two records
 * per warp the rest are counted as dropped; tirx_launch_trace_to gives the
 * same run as JSON and as an SVG timeline (a bar per span, or one for two
 * halves too close to tell apart, a line per mark, a row per warp; with
 * svg_sms 1 the warps of one SM only); the same kernel
 * compiled without the option is refused by tirx_launch_trace. */
#include "api_test.h"

#define N 1000

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

static tirx_function *compile(tirx_device *d, const char *text, int trace, tirx_module **m)
{
    tirx_options o = {.arch = tirx_device_arch(d), .no_cache = 1, .trace = trace};
    tirx_error err;
    tirx_function *f;
    if (tirx_compile(text, strlen(text), "iket_trace.tirx", NULL, 0, &o, m) != TIRX_OK) {
        char *diags = tirx_diag_render(*m);
        fprintf(stderr, "%s%s\n", diags ? diags : "", tirx_module_log(*m));
        tirx_free(diags);
        gpu_fail_at(__FILE__, __LINE__, "tirx_compile", "iket_trace.tirx");
    }
    API_OK(tirx_get_function(*m, "traced_scale", &f, &err), err);
    return f;
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
    tirx_device *gpu = api_open();
    GpuRng rng = gpu_rng();
    float a[N], out[N];
    double ref[N];
    gpu_fill_random(&rng, a, N);
    for (int i = 0; i < N; i++)
        ref[i] = 2.0 * a[i];
    void *da = api_upload(gpu, a, N);
    int64_t n = N;
    DLTensor t = api_vector(da, &n, 32);
    tirx_arg args[] = {tirx_arg_tensor(&t), tirx_arg_int(N)};
    char *text = read_kernel();
    tirx_error err;
    tirx_module *m;
    tirx_function *f = compile(gpu, text, 1, &m);

    char *json = NULL;
    API_OK(tirx_launch_trace(f, args, 2, 16, &json, &err), err);
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
    tirx_free(json);

    char *svg = NULL;
    tirx_trace_options o = {.records_per_warp = 16};
    API_OK(tirx_launch_trace_to(f, args, 2, &o, &json, &svg, &err), err);
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
    API_OK(tirx_launch_trace_to(f, args, 2, &o, NULL, &svg, &err), err);
    int drawn = count(svg, "<title>cta: ");
    GPU_CHECK(strstr(svg, " (1 of the ") != NULL && drawn > 0 && drawn % 4 == 0,
              "svg_sms 1: the warps of the CTAs of one SM");
    tirx_free(svg);
    GPU_CHECK(tirx_launch_trace_to(f, args, 2, &o, NULL, NULL, &err) == TIRX_ERR_USAGE,
              "neither JSON nor SVG wanted is refused");

    API_OK(tirx_launch_trace(f, args, 2, 2, &json, &err), err);
    GPU_CHECK(strstr(json, "\"dropped_records\": 80,") != NULL, "five of seven records per warp dropped");
    tirx_free(json);
    tirx_module_free(m);

    f = compile(gpu, text, 0, &m);
    GPU_CHECK(tirx_launch_trace(f, args, 2, 0, &json, &err) == TIRX_ERR_USAGE && !json,
              "a module compiled without trace is refused");
    printf("refused: %s\n", err.message);
    GPU_CHECK(strstr(err.message, "without the trace option") != NULL, "the message says why");
    tirx_module_free(m);
    free(text);
    tirx_device_free(gpu, da);
    tirx_device_close(gpu);
    printf("PASSED\n");
    return 0;
}
