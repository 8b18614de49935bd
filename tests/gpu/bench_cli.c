/* GPU test of `tirx bench` (the built CLI, run from the source tree) on the
 * tiled GEMM of examples/: `bench gemm --layout nn` beside cuBLAS on a small
 * sweep with --json and --plot (exit 0, one table row per shape, the files
 * written); the same kernel given B as [N, K] (nt), which it reads as
 * [K, N]: the check against cuBLAS must refuse it (exit 1, no table); the
 * default kernels, bf16 and fp8 (kernels/gemm_fp8_sm90.tirx with its scales),
 * beside cuBLAS; `bench FILE --args` on the same function; and --trace of the
 * annotated gemm_sm90 (with --trace-svg: its SVG timeline from the same run)
 * and of tests/build/iket_trace.tirx (a Chrome trace with their spans,
 * nothing dropped); `bench mla` at the memory-bound
 * shape (the defaults), on a small varlen causal problem with --json (and
 * in float16, --dtype fp16), with
 * three --variant rows (one with fast math; and a variant that breaks the kernel, refused), and
 * on a copy of the kernel with a wrong softmax constant, which the check
 * against float64 must refuse (exit 1, no table); `bench mla --topk` (the
 * sparse fp8 decode) at the shape (the defaults: a 2.75 GB cache),
 * on a small problem with the sink and more top-k than cached tokens
 * (padding) with --json, and on a copy of the sparse kernel with the same
 * wrong constant (refused); a kernel that never ends (an mbarrier wait no one
 * completes) under TIRX_KERNEL_TIMEOUT=2: exit 3 (the GPU failed) naming the timeout; a
 * kernel whose wgmma ptxas serializes, timed with ptxas's warning; with
 * TIRX_FLASHMLA naming libtirx_flashmla.so
 * (bench/flashmla), `bench mla --flashmla` on a small dense and a small
 * sparse problem (FlashMLA checked against float64 and timed beside tirx).
 * Skipped without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_test.h"
#include "tirx.h"

static char dir[] = "/tmp/tirx-gpu-bench-XXXXXX";

/* Runs `tirx bench ARGS` in the source tree; stdout and stderr to files. */
static int bench(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' bench %s >'%s/out' 2>'%s/err'", TIRX_SOURCE_DIR,
             TIRX_CLI, args, dir, dir);
    printf("$ tirx bench %s\n", args);
    int rc = system(cmd);
    rc = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    printf("exit %d\n", rc);
    return rc;
}

/* A file of the run's directory, in its own buffer (the test holds several at once; leaked). */
static char *slurp(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    GPU_CHECK(f != NULL, "the output file exists");
    size_t cap = 64 << 20; /* a trace of many warps */
    char *buf = malloc(cap);
    GPU_CHECK(buf != NULL, "memory for the output file");
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = 0;
    return buf;
}

/* bench(args) with its stderr and stdout echoed; *out: its stdout. */
static int bench_echo(const char *args, char **out)
{
    int rc = bench(args);
    *out = slurp("out");
    fputs(slurp("err"), stdout);
    fputs(*out, stdout);
    return rc;
}

/* A copy of MLA kernel `kernel` (kernels/NAME) in the run's directory,
 * named `copy`, whose softmax uses a wrong log2(e). */
static void write_wrong_mla(const char *kernel, const char *copy)
{
    char path[512];
    snprintf(path, sizeof path, "%s/kernels/%s", TIRX_SOURCE_DIR, kernel);
    FILE *f = fopen(path, "rb");
    GPU_CHECK(f != NULL, "the MLA kernel");
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    char *at = strstr(text, "LOG2E = 1.4426950408889634");
    GPU_CHECK(at != NULL, "the kernel defines LOG2E");
    memcpy(at, "LOG2E = 1.3", 11);
    memset(at + 11, ' ', strlen("LOG2E = 1.4426950408889634") - 11);
    snprintf(path, sizeof path, "%s/%s", dir, copy);
    f = fopen(path, "wb");
    GPU_CHECK(f && fwrite(text, 1, n, f) == n && !fclose(f), "the wrong kernel is written");
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

int main(void)
{
    tirx_device *gpu;
    tirx_error err;
    if (tirx_device_open(0, &gpu, &err) != TIRX_OK)
        gpu_skip(err.message);
    tirx_device_close(gpu);
    GPU_CHECK(mkdtemp(dir) != NULL, "a scratch directory");
    char args[2048];
    const char *kernel = "--kernel examples/tiled_gemm.tirx --func tiled_gemm --out-dtype f32";
    snprintf(args, sizeof args, "gemm %s --layout nn --dtype fp16,bf16 --shape 512,512,512 "
             "--shape 1000,1000,1024 --budget-ms 20 --json %s/r.json --plot %s/r.svg", kernel,
             dir, dir);
    int rc = bench(args);
    fputs(slurp("err"), stdout);
    char *out = slurp("out");
    fputs(out, stdout);
    GPU_CHECK(rc == 0, "tirx bench gemm succeeds");
    GPU_CHECK(lines(out) == 2 + 4, "a header, the column names and one row per shape and dtype");
    GPU_CHECK(strstr(out, "1000x1000x1024         bf16  nn") != NULL, "the rows name the shape");
    GPU_CHECK(strstr(slurp("r.json"), "\"ratio\": ") != NULL, "the JSON record has ratios");
    GPU_CHECK(!strncmp(slurp("r.svg"), "<svg ", 5), "the chart is written");

    snprintf(args, sizeof args, "gemm %s --layout nt --shape 256,256,256 --budget-ms 20", kernel);
    rc = bench(args);
    char *e = slurp("err");
    fputs(e, stdout);
    GPU_CHECK(rc == 1, "a wrong kernel ends the run with exit status 1");
    GPU_CHECK(strstr(e, "differs from cuBLAS's") != NULL, "the message says why");
    GPU_CHECK(slurp("out")[0] == 0, "no number is reported for a wrong kernel");

    rc = bench_echo("gemm --dtype bf16,fp8 --shape 1024,1024,1024 --budget-ms 20", &out);
    GPU_CHECK(rc == 0 && lines(out) == 2 + 2, "the default kernels (bf16, and fp8 with its "
              "scales) match cuBLAS");
    GPU_CHECK(strstr(out, "fp8   nt") != NULL, "the fp8 row is reported");

    /* a kernel that never ends: the wait gives up (TIRX_KERNEL_TIMEOUT) */
    char hang[512];
    snprintf(hang, sizeof hang, "%s/hang.tirx", dir);
    FILE *hf = fopen(hang, "w");
    GPU_CHECK(hf != NULL, "the hanging kernel's file");
    fputs("from tvm.tirx.lang.pipeline import MBarrier\n@T.prim_func\n"
          "def hang(A: T.Buffer((32,), \"int32\")):\n    T.device_entry()\n"
          "    bx = T.cta_id([1])\n    tx = T.thread_id([32])\n    pool = T.SMEMPool()\n"
          "    bar = MBarrier(pool, 1)\n    pool.commit()\n    bar.init(1)\n"
          "    T.ptx.fence.mbarrier_init.release.cluster()\n    T.cuda.cta_sync()\n"
          "    bar.wait(0, 0)\n    A[tx] = 1\n", hf);
    fclose(hf);
    setenv("TIRX_KERNEL_TIMEOUT", "2", 1);
    snprintf(args, sizeof args, "%s --func hang --args 'A=zeros(32:int32)' --budget-ms 20", hang);
    rc = bench(args);
    unsetenv("TIRX_KERNEL_TIMEOUT");
    e = slurp("err");
    fputs(e, stdout);
    GPU_CHECK(rc == 3, "a kernel that never ends fails the run as a GPU failure");
    GPU_CHECK(strstr(e, "did not finish within 2 s (TIRX_KERNEL_TIMEOUT)") != NULL,
              "the message names the timeout");

    /* a kernel whose wgmma ptxas serializes: timed, with ptxas's warning */
    rc = bench("tests/tools/perf_loss.tirx --func serialized --args 'A=rand(64,64:bf16) "
               "C=empty(64,64:f32) n=8' --budget-ms 20");
    e = slurp("err");
    fputs(e, stdout);
    GPU_CHECK(rc == 0 && strstr(e, "warning: serialized_kernel: ptxas: potential performance loss: "
                                   "wgmma.mma_async instructions are serialized") != NULL,
              "tirx bench passes on ptxas's serialized-wgmma warning");

    rc = bench_echo("examples/tiled_gemm.tirx --func tiled_gemm -D M=512 -D N=512 -D K=512 "
               "--args 'A=rand(512,512:fp16) B=rand(512,512:fp16) C=empty(512,512:f32)' "
               "--flops 268435456 --budget-ms 20", &out);
    GPU_CHECK(rc == 0 && strstr(out, "tiled_gemm ") != NULL, "tirx bench FILE times the function");

    snprintf(args, sizeof args, "gemm --shape 1024,1024,1024 --budget-ms 20 --trace %s/g.json "
             "--trace-svg %s/g.svg", dir, dir);
    rc = bench(args);
    fputs(slurp("err"), stdout);
    char *trace = slurp("g.json");
    printf("%.800s\n", trace);
    GPU_CHECK(rc == 0, "bench gemm --trace succeeds");
    GPU_CHECK(strstr(trace, "\"dropped_records\": 0, \"unpaired_ranges\": 0") != NULL,
              "the gemm trace is complete");
    GPU_CHECK(strstr(trace, "{\"name\": \"load tile\", \"ph\": \"X\"") != NULL &&
                  strstr(trace, "{\"name\": \"wait empty\", \"ph\": \"X\"") != NULL,
              "the producer's spans");
    char *svg = slurp("g.svg");
    GPU_CHECK(strstr(svg, ">load tile</text>") != NULL && strstr(svg, "<title>load tile: ") != NULL &&
                  strstr(svg, " (4 of the ") != NULL && strstr(svg, "</svg>") != NULL,
              "the gemm's SVG timeline: the producer's spans on 4 SMs, in the legend");

    snprintf(args, sizeof args, "tests/build/iket_trace.tirx --func traced_scale --args "
             "'A=rand(1000:f32) n=1000' --budget-ms 20 --trace %s/t.json", dir);
    rc = bench(args);
    fputs(slurp("err"), stdout);
    trace = slurp("t.json");
    GPU_CHECK(rc == 0 && strstr(trace, "{\"name\": \"half\", \"ph\": \"X\"") != NULL,
              "bench FILE --trace writes the function's spans");
    rc = bench_echo("mla --budget-ms 50", &out);
    GPU_CHECK(rc == 0 && strstr(out, "mla b=128 s_q=1 h_q=64 s_k=8192 ") != NULL,
              "bench mla checks and times the issue's memory-bound row");

    snprintf(args, sizeof args, "mla --batch 16 --sq 2 --hq 128 --sk 1000 --varlen --causal "
             "--budget-ms 20 --json %s/m.json", dir);
    rc = bench_echo(args, &out);
    GPU_CHECK(rc == 0 && strstr(out, "mla b=16 s_q=2 h_q=128 s_k=1000 varlen causal") != NULL,
              "bench mla runs a varlen causal problem");
    GPU_CHECK(strstr(slurp("m.json"), "\"tbps\": ") != NULL, "the JSON record has TB/s");

    snprintf(args, sizeof args, "mla --batch 8 --sk 700 --budget-ms 20 --trace-svg %s/mla.svg", dir);
    rc = bench(args);
    e = slurp("err");
    fputs(e, stdout);
    GPU_CHECK(rc == 0 && strstr(e, "tracing the decode kernel") != NULL,
              "bench mla --trace-svg traces the decode kernel");
    GPU_CHECK(strstr(slurp("mla.svg"), ">qk<") != NULL && strstr(slurp("mla.svg"), ">load pair<"),
              "the MLA timeline has the consumers' and the producer's spans");

    rc = bench_echo("mla --batch 8 --sq 2 --hq 64 --sk 700 --varlen --causal --dtype fp16 "
                    "--budget-ms 20", &out);
    GPU_CHECK(rc == 0 && strstr(out, "mla b=8 s_q=2 h_q=64 s_k=700 varlen causal fp16 ") != NULL,
              "bench mla --dtype fp16 checks and times the float16 decode");

    rc = bench_echo("mla --batch 8 --sk 700 --budget-ms 20 --variant - "
                    "--variant EVICT_FIRST=False --variant fast-math --lineinfo",
                    &out);
    GPU_CHECK(rc == 0 && strstr(out, "mla b=8 s_q=1 h_q=64 s_k=700 [-] ") != NULL &&
                  strstr(out, "mla b=8 s_q=1 h_q=64 s_k=700 [EVICT_FIRST=False] ") != NULL &&
                  strstr(out, "mla b=8 s_q=1 h_q=64 s_k=700 [fast-math] ") != NULL,
              "bench mla --variant times a row per variant, fast-math too (compiled with "
              "--lineinfo), each checked");
    rc = bench("mla --batch 8 --sk 700 --budget-ms 20 --variant - --variant LOG2E=1.5");
    e = slurp("err");
    fputs(e, stdout);
    GPU_CHECK(rc == 1 && strstr(e, "[LOG2E=1.5]: tirx's out or lse differs") != NULL,
              "a wrong variant is refused by name");

    write_wrong_mla("mla_decode_sm90.tirx", "wrong_mla.tirx");
    snprintf(args, sizeof args, "mla --batch 8 --sk 500 --budget-ms 20 --kernel %s/wrong_mla.tirx",
             dir);
    rc = bench(args);
    e = slurp("err");
    fputs(e, stdout);
    GPU_CHECK(rc == 1 && strstr(e, "differs from the float64 reference") != NULL,
              "a wrong MLA kernel is refused");
    GPU_CHECK(slurp("out")[0] == 0, "no number is reported for a wrong MLA kernel");

    rc = bench_echo("mla --topk 2048 --budget-ms 50", &out);
    GPU_CHECK(rc == 0 && strstr(out, "mla sparse b=128 s_q=2 h_q=128 topk=2048 s_k=32768 ") != NULL,
              "bench mla --topk checks and times the issue's sparse row");

    snprintf(args, sizeof args, "mla --topk 300 --batch 9 --sq 1 --hq 64 --sk 200 --sink "
             "--budget-ms 20 --json %s/s.json", dir);
    rc = bench_echo(args, &out);
    GPU_CHECK(rc == 0 && strstr(out, "mla sparse b=9 s_q=1 h_q=64 topk=300 s_k=200 sink ") != NULL,
              "bench mla --topk runs a small problem with the sink and padded lists");
    GPU_CHECK(strstr(slurp("s.json"), "\"tbps\": ") != NULL, "the sparse JSON record has TB/s");

    write_wrong_mla("mla_sparse_fp8_sm90.tirx", "wrong_sparse.tirx");
    snprintf(args, sizeof args, "mla --topk 256 --batch 8 --sk 500 --budget-ms 20 "
             "--kernel %s/wrong_sparse.tirx", dir);
    rc = bench(args);
    e = slurp("err");
    fputs(e, stdout);
    GPU_CHECK(rc == 1 && strstr(e, "differs from the float64 reference") != NULL,
              "a wrong sparse MLA kernel is refused");
    GPU_CHECK(slurp("out")[0] == 0, "no number is reported for a wrong sparse MLA kernel");

    const char *flashmla = getenv("TIRX_FLASHMLA");
    if (flashmla && *flashmla) {
        snprintf(args, sizeof args, "mla --batch 8 --sq 2 --hq 128 --sk 700 --varlen --causal "
                 "--budget-ms 20 --flashmla '%s' --json %s/f.json", flashmla, dir);
        rc = bench_echo(args, &out);
        GPU_CHECK(rc == 0 && strstr(out, "FlashMLA ms") != NULL &&
                      strstr(slurp("f.json"), "\"flashmla\": {") != NULL,
                  "bench mla --flashmla checks and times FlashMLA's dense decode beside tirx");
        snprintf(args, sizeof args, "mla --topk 320 --batch 9 --sq 2 --hq 64 --sk 200 --sink "
                 "--budget-ms 20 --flashmla '%s'", flashmla);
        rc = bench_echo(args, &out);
        GPU_CHECK(rc == 0 && strstr(out, "FlashMLA ms") != NULL,
                  "bench mla --topk --flashmla checks and times FlashMLA's sparse decode");
    } else {
        printf("--flashmla not run: TIRX_FLASHMLA names no libtirx_flashmla.so\n");
    }
    gpu_remove_tree(dir);
    printf("PASSED\n");
    return 0;
}
