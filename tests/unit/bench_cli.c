/* Unit tests of `tirx bench` that need no GPU (its files of src/tools are
 * linked in): the --args SPEC parser and its messages, the command line
 * (forms, defaults, --shapes files, usage errors), the element encoders
 * against known bit patterns and exhaustively for float8, fills and the
 * relative L2 error, the statistics (tirx_bench_summarize) on known samples,
 * and the three reports: the table and the JSON record against goldens, the
 * SVG chart by its structure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <math.h>

#include "tools/bench.h"

/* ---- the SPEC ---- */

static void test_spec_items(void **state)
{
    (void)state;
    BenchArg a[BENCH_MAX_ARGS];
    int n = 0;
    char msg[256];
    assert_true(bench_parse_spec("  A=rand(4096,2048:bf16) B=zeros( 8 , 4 : float32 )\tn=4096 "
                                 "alpha=0.5 beta=-1e-3 C=empty(7:fp8) D=ones(3:int8)",
                                 a, &n, msg, sizeof msg));
    assert_int_equal(n, 7);
    assert_string_equal(a[0].name, "A");
    assert_true(a[0].is_tensor);
    assert_int_equal(a[0].init, BENCH_RAND);
    assert_int_equal(a[0].ndim, 2);
    assert_int_equal(a[0].shape[0], 4096);
    assert_int_equal(a[0].shape[1], 2048);
    assert_string_equal(a[0].dtype->name, "bfloat16");
    assert_int_equal(bench_arg_elems(&a[0]), 4096 * 2048);
    assert_int_equal(a[1].init, BENCH_ZEROS);
    assert_string_equal(a[1].dtype->name, "float32");
    assert_false(a[2].is_tensor);
    assert_false(a[2].is_float);
    assert_int_equal(a[2].i, 4096);
    assert_true(a[3].is_float);
    assert_true(a[3].f == 0.5);
    assert_true(a[4].is_float && a[4].f == -1e-3);
    assert_int_equal(a[5].init, BENCH_EMPTY);
    assert_string_equal(a[5].dtype->name, "float8_e4m3fn");
    assert_int_equal(a[6].init, BENCH_ONES);
    /* Several --args append; every integer width, signed and unsigned. */
    assert_true(bench_parse_spec("E=3", a, &n, msg, sizeof msg));
    assert_int_equal(n, 8);
    n = 0;
    assert_true(bench_parse_spec("F=rand(2:u32) G=rand(2:uint16) H=zeros(2:i16) I=ones(2:u64)", a,
                                 &n, msg, sizeof msg));
    assert_string_equal(a[0].dtype->name, "uint32");
    assert_int_equal(a[0].dtype->bits, 32);
    assert_string_equal(a[1].dtype->name, "uint16");
    assert_string_equal(a[2].dtype->name, "int16");
    assert_string_equal(a[3].dtype->name, "uint64");
    assert_int_equal(a[3].dtype->bits, 64);
    n = 0;
    assert_true(bench_parse_spec("   ", a, &n, msg, sizeof msg));
    assert_int_equal(n, 0);
}

static void expect_spec_error(const char *spec, const char *message)
{
    BenchArg a[BENCH_MAX_ARGS];
    int n = 0;
    char msg[256] = "";
    assert_false(bench_parse_spec(spec, a, &n, msg, sizeof msg));
    if (strcmp(msg, message))
        fail_msg("spec '%s':\n  got      %s\n  expected %s", spec, msg, message);
}

static void test_spec_errors(void **state)
{
    (void)state;
    expect_spec_error("A", "--args: column 2: expected '=' after 'A'");
    expect_spec_error("A=", "--args: column 3: expected a number or a tensor such as "
                            "rand(64,64:bf16) for 'A'");
    expect_spec_error("A=rand(1,2)", "--args: column 11: expected ':' and the dtype after the "
                                     "dimensions (e.g. rand(64,64:bf16))");
    expect_spec_error("A=foo(1:f32)",
                      "--args: column 6: unknown initializer 'foo' of 'A' (rand, zeros, ones or "
                      "empty)");
    expect_spec_error("A=rand(1:f33)",
                      "--args: column 10: unknown dtype 'f33' of 'A' (float32/f32, float16/fp16, "
                      "bfloat16/bf16, float8_e4m3fn/fp8, float8_e5m2/e5m2, float64/f64, "
                      "int8/i8 .. int64/i64, uint8/u8 .. uint64/u64)");
    expect_spec_error("A=rand(1:)",
                      "--args: column 10: expected a dtype of 'A' (float32/f32, float16/fp16, "
                      "bfloat16/bf16, float8_e4m3fn/fp8, float8_e5m2/e5m2, float64/f64, "
                      "int8/i8 .. int64/i64, uint8/u8 .. uint64/u64)");
    expect_spec_error("A=rand(1:f32", "--args: column 13: expected ')' after the dtype");
    expect_spec_error("A=rand(0:f32)", "--args: column 8: expected a positive dimension of 'A'");
    expect_spec_error("A=rand(-1:f32)", "--args: column 8: expected a positive dimension of 'A'");
    /* a byte count that would wrap (2^64 here) or pass 2^48 is refused, not allocated short */
    expect_spec_error("A=rand(4294967296,1073741824:f32)",
                      "--args: column 30: 'A' is larger than 2^48 bytes");
    expect_spec_error("A=zeros(65536,65536,65537:u8)", "--args: column 27: 'A' is larger than 2^48 bytes");
    expect_spec_error("A=rand(1,2,3,4,5,6,7,8,9:f32)",
                      "--args: column 24: a tensor has at most 8 dimensions");
    expect_spec_error("A=1 A=2", "--args: column 8: argument 'A' is given twice");
    expect_spec_error("A=1.2.3", "--args: column 3: '1.2.3' is not a number or a tensor such as "
                                 "rand(64,64:bf16) (for 'A')");
    expect_spec_error("A=rand(1:f32)B=1", "--args: column 14: expected a space before the next "
                                          "argument");
    expect_spec_error("9=1", "--args: column 1: expected an argument NAME=VALUE");
    expect_spec_error("averyveryveryveryverylongargumentname=1",
                      "--args: column 38: argument name longer than 31 characters");
}

/* ---- the command line ---- */

static int parse(BenchConfig *c, const char *line)
{
    static char buf[1024];
    char *argv[64];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t && argc < 64;
         t = strtok_r(NULL, " ", &save))
        argv[argc++] = t;
    memset(c, 0, sizeof *c);
    return bench_parse_args(argc, argv, c);
}

static void test_args_gemm(void **state)
{
    (void)state;
    static BenchConfig c;
    assert_int_equal(parse(&c, "bench gemm --shape 4096,4096,4096 --shape=128x7168x2048"), -1);
    assert_true(c.gemm);
    assert_null(c.file); /* each dtype's own kernel */
    assert_string_equal(bench_gemm_type("bf16")->kernel, "kernels/gemm_sm90.tirx");
    assert_string_equal(bench_gemm_type("fp8")->kernel, "kernels/gemm_fp8_sm90.tirx");
    assert_true(bench_gemm_type("fp8")->scale_a != 0 && bench_gemm_type("fp8")->scale_b != 0);
    assert_true(bench_gemm_type("bf16")->scale_a == 0);
    assert_true(bench_gemm_type("bf16")->workspace == 32 << 20);
    assert_true(bench_gemm_type("fp8")->workspace == 32 << 20);
    assert_string_equal(c.func, "gemm");
    assert_int_equal(c.nshapes, 2);
    assert_int_equal(c.shapes[1].m, 128);
    assert_int_equal(c.shapes[1].n, 7168);
    assert_int_equal(c.shapes[1].k, 2048);
    assert_int_equal(c.ndtypes, 1);
    assert_string_equal(c.dtypes[0]->name, "bf16");
    assert_false(c.layout_nn);
    assert_null(c.out_dtype);
    assert_int_equal(parse(&c, "bench gemm --kernel k.tirx --func tiled_gemm --layout nn "
                               "--dtype fp16,fp8,tf32 --out-dtype f32 -D BM=64 -DBN=32 "
                               "--shape 1,2,3 --budget-ms 250 --warmup-ms 0 --max-reps 77 "
                               "--no-flush --json o.json --plot o.SVG --no-cublas --trace t.json "
                               "--trace-svg t.svg --trace-sms 8 --trace-records 64 -I lib -Ilib2 --lineinfo "
                               "--fast-math"),
                     -1);
    assert_string_equal(c.file, "k.tirx");
    assert_string_equal(c.func, "tiled_gemm");
    assert_true(c.layout_nn);
    assert_int_equal(c.ndtypes, 3);
    assert_string_equal(c.dtypes[2]->input, "float32");
    assert_string_equal(c.out_dtype->name, "float32");
    assert_int_equal(c.ndefines, 2);
    assert_string_equal(c.defines[1].name, "BN");
    assert_string_equal(c.defines[1].value, "32");
    assert_true(c.timing.budget_ms == 250);
    assert_true(c.timing.warmup_ms < 0);
    assert_int_equal(c.timing.max_reps, 77);
    assert_true(c.timing.no_flush);
    assert_true(c.no_cublas);
    assert_true(c.lineinfo);
    assert_true(c.fast_math);
    assert_string_equal(c.json, "o.json");
    assert_string_equal(c.plot, "o.SVG");
    assert_string_equal(c.trace, "t.json");
    assert_string_equal(c.trace_svg, "t.svg");
    assert_int_equal(c.trace_sms, 8);
    assert_int_equal(c.trace_records, 64);
    /* -I in order, then the kernel library for the built-in kernels' copies */
    assert_int_equal(c.n_import_dirs, 3);
    assert_string_equal(c.import_dirs[0], "lib");
    assert_string_equal(c.import_dirs[1], "lib2");
    assert_string_equal(c.import_dirs[2], "kernels");
}

static void test_args_shapes_file(void **state)
{
    (void)state;
    static BenchConfig c;
    char path[] = "/tmp/tirx-bench-shapes-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("# LLM shapes\n128,7168,2048\n\n  4096x2048x7168   # a comment\n", f);
    fclose(f);
    char line[256];
    snprintf(line, sizeof line, "bench gemm --shapes %s --shape 8,8,8", path);
    assert_int_equal(parse(&c, line), -1);
    assert_int_equal(c.nshapes, 3);
    assert_int_equal(c.shapes[1].m, 4096);
    assert_int_equal(c.shapes[1].k, 7168);
    assert_int_equal(c.shapes[2].n, 8);
    f = fopen(path, "w");
    fputs("1,2,3\n4,5\n", f);
    fclose(f);
    snprintf(line, sizeof line, "bench gemm --shapes %s", path);
    assert_int_equal(parse(&c, line), 2);
    remove(path);
}

static void test_args_file(void **state)
{
    (void)state;
    static BenchConfig c;
    assert_int_equal(parse(&c, "bench k.tirx --func f --args A=rand(8:f32) --args n=8 "
                               "--flops 1e9 -D X=1"),
                     -1);
    assert_false(c.gemm);
    assert_string_equal(c.file, "k.tirx");
    assert_int_equal(c.nargs, 2);
    assert_true(c.flops == 1e9);
    assert_int_equal(c.n_import_dirs, 0);
    assert_int_equal(parse(&c, "bench --help"), 0);
}

static void test_args_mla(void **state)
{
    (void)state;
    static BenchConfig c;
    assert_int_equal(parse(&c, "bench mla"), -1);
    assert_true(c.mla);
    assert_false(c.gemm);
    assert_null(c.file); /* kernels/mla_decode_sm90.tirx */
    assert_int_equal(c.mla_problem.batch, 128);
    assert_int_equal(c.mla_problem.s_q, 1);
    assert_int_equal(c.mla_problem.h_q, 64);
    assert_int_equal(c.mla_problem.s_k, 8192);
    assert_false(c.mla_problem.varlen);
    assert_false(c.mla_problem.causal);
    assert_int_equal(c.timing.min_reps, 30);
    assert_int_equal(parse(&c, "bench mla --batch 16 --sq=2 --hq 128 --sk 16384 --varlen --causal "
                               "--kernel k.tirx -D STAGES=3 --json m.json --budget-ms 50 "
                               "--no-flush"),
                     -1);
    assert_int_equal(c.mla_problem.batch, 16);
    assert_int_equal(c.mla_problem.s_q, 2);
    assert_int_equal(c.mla_problem.h_q, 128);
    assert_int_equal(c.mla_problem.s_k, 16384);
    assert_true(c.mla_problem.varlen && c.mla_problem.causal);
    assert_string_equal(c.file, "k.tirx");
    assert_int_equal(c.ndefines, 1);
    assert_string_equal(c.json, "m.json");
    assert_true(c.timing.budget_ms == 50 && c.timing.no_flush);
    assert_int_equal(c.mla_problem.topk, 0);
    assert_false(c.mla_problem.f16);
    assert_int_equal(parse(&c, "bench mla --dtype fp16"), -1);
    assert_true(c.mla_problem.f16);
    assert_int_equal(parse(&c, "bench mla --dtype bf16"), -1);
    assert_false(c.mla_problem.f16);
    /* --variant: a row each, "-" for none */
    assert_int_equal(parse(&c, "bench mla --hq 128 --variant - --variant STAGES=2,OVERLAP=1 "
                               "--variant=- -D X=1 --variant fast-math --variant A=1,fast-math"),
                     -1);
    assert_int_equal(c.nvariants, 5);
    assert_string_equal(c.variants[0], "-");
    assert_string_equal(c.variants[1], "STAGES=2,OVERLAP=1");
    assert_string_equal(c.variants[2], "-");
    assert_string_equal(c.variants[3], "fast-math");
    assert_string_equal(c.variants[4], "A=1,fast-math");
}

/* --topk: the sparse decode, with its own defaults (b 128, s_q 2, h_q 128,
 * s_k 32768) and --sink. */
static void test_args_mla_sparse(void **state)
{
    (void)state;
    static BenchConfig c;
    assert_int_equal(parse(&c, "bench mla --topk 2048"), -1);
    assert_true(c.mla);
    assert_null(c.file); /* kernels/mla_sparse_fp8_sm90.tirx */
    assert_int_equal(c.mla_problem.topk, 2048);
    assert_int_equal(c.mla_problem.batch, 128);
    assert_int_equal(c.mla_problem.s_q, 2);
    assert_int_equal(c.mla_problem.h_q, 128);
    assert_int_equal(c.mla_problem.s_k, 32768);
    assert_false(c.mla_problem.sink);
    assert_int_equal(c.timing.min_reps, 30);
    assert_int_equal(parse(&c, "bench mla --topk=100 --batch 4 --sq 1 --hq 64 --sk 1000 --sink "
                               "--kernel k.tirx -D STAGES=3 -D CAUSAL=1 --json m.json "
                               "--trace m.json --trace-svg m.svg"),
                     -1);
    assert_string_equal(c.trace_svg, "m.svg");
    assert_int_equal(c.mla_problem.topk, 100);
    assert_int_equal(c.mla_problem.batch, 4);
    assert_int_equal(c.mla_problem.s_q, 1);
    assert_int_equal(c.mla_problem.h_q, 64);
    assert_int_equal(c.mla_problem.s_k, 1000);
    assert_true(c.mla_problem.sink);
    assert_string_equal(c.file, "k.tirx");
    assert_int_equal(c.ndefines, 2);
    /* int32 indices address 2047 requests of 2^20 tokens (in whole pages of 64) */
    assert_int_equal(parse(&c, "bench mla --topk 2048 --batch 2047 --sk 1048576"), -1);
}

static void test_args_errors(void **state)
{
    (void)state;
    static BenchConfig c;
    const char *bad[] = {
        "bench",
        "bench gemm",
        "bench gemm --shape 1,2",
        "bench gemm --shape 1,2,0",
        "bench gemm --shape 1,2,3 --dtype bf8",
        "bench gemm --shape 1,2,3 --layout tn",
        "bench gemm --shape 1,2,3 -D M=4",
        "bench gemm --shape 1,2,3 -D DTYPE=float16",
        "bench gemm --shape 1,2,3 --layout nn -D LAYOUT=\"nn\"",
        "bench gemm --shape 1,2,3 --args A=1",
        "bench gemm --shape 1,2,3 --budget-ms 0",
        "bench gemm --shape 1,2,3 --max-reps x",
        "bench gemm --shape 1,2,3 --no-flush=1",
        "bench gemm --shape 1,2,3 --json",
        "bench gemm --shape 1,2,3 --trace",
        "bench gemm --shape 1,2,3 --trace t.json --trace-records 0",
        "bench gemm --shape 1,2,3 --plot o.png",
        "bench gemm --shape 1,2,3 --plot svg",
        "bench gemm --shape 1,2,3 --plot .svg",
        "bench gemm --shape 1,2,3 --trace t.svg",
        "bench gemm --shape 1,2,3 --trace-svg t.json",
        "bench gemm --shape 1,2,3 --trace-svg t.svg --trace-sms 0",
        "bench gemm --shape 1,2,3 --trace-svg t.svg --trace-sms x",
        "bench gemm --shape 1,2,3 --trace t.json --trace-sms 4",
        "bench k.tirx --func f --plot o.svg.png",
        "bench gemm --shape 1,2,3 --frobnicate",
        "bench gemm --shape 1,2,3 -x",
        "bench gemm gemm --shape 1,2,3",
        "bench gemm --shape 1,2,3 --out-dtype f99",
        "bench k.tirx",
        "bench k.tirx --func f --shape 1,2,3",
        "bench k.tirx --func f --kernel g.tirx",
        "bench k.tirx --func f --args A=",
        "bench k.tirx --func f -D",
        "bench k.tirx --func f -D =1",
        "bench k.tirx --func f -I",
        "bench mla mla",
        "bench mla k.tirx",
        "bench mla --hq 8",
        "bench mla --hq 129",
        "bench mla --sq 0",
        "bench mla --sq 5",
        "bench mla --batch 0",
        "bench mla --batch x",
        "bench mla --sk 0",
        "bench mla --sk 2.5",
        "bench mla --varlen=1",
        "bench mla --causal 1",
        "bench mla --shape 1,2,3",
        "bench mla --dtype fp8",
        "bench mla --dtype tf32",
        "bench mla --dtype bf16,fp16",
        "bench mla --topk 2048 --dtype fp16",
        "bench mla -D DTYPE=float16",
        "bench mla --variant DTYPE=float16",
        "bench mla --func mla_decode",
        "bench mla --args A=1",
        "bench mla --plot m.svg",
        "bench mla -D S_Q=2",
        "bench mla -D H_Q=16",
        "bench mla -D CAUSAL=True",
        "bench mla -D NUM_SMS=8",
        "bench mla --topk 0",
        "bench mla --topk -5",
        "bench mla --topk 2048.5",
        "bench mla --topk",
        "bench mla --topk 1048577",
        "bench mla --topk 2048 --varlen",
        "bench mla --topk 2048 --causal",
        "bench mla --topk 2048 --hq 16",
        "bench mla --topk 2048 --hq 96",
        "bench mla --topk 2048 --sink=1",
        "bench mla --lineinfo=1",
        "bench mla --fast-math=1",
        "bench mla --topk 2048 -D S_Q=2",
        "bench mla --topk 2048 -D H_Q=64",
        "bench mla --topk 2048 -D ATTN_SINK=True",
        "bench mla --topk 2048 -D NUM_SMS=8",
        "bench mla --topk 2048 --batch 2048 --sk 1048545", /* 2^31 tokens in whole pages */
        "bench mla --topk 2048 --dtype fp8",
        "bench mla --topk 100 --flashmla lib.so", /* FlashMLA's sparse top-k: multiples of 64 */
        "bench mla --sink",
        "bench mla --varlen --sink",
        "bench gemm --shape 1,2,3 --topk 64",
        "bench gemm --shape 1,2,3 --sink",
        "bench k.tirx --func f --topk 8",
        "bench gemm --shape 1,2,3 --hq 64",
        "bench gemm --shape 1,2,3 --varlen",
        "bench k.tirx --func f --sk 8",
        "bench mla --variant A",
        "bench mla --variant fast-math=1",
        "bench mla --variant fastmath",
        "bench mla --variant =1",
        "bench mla --variant A=1,",
        "bench mla --variant ,A=1",
        "bench mla --variant A=1,,B=2",
        "bench mla --variant X=1,H_Q=64",
        "bench mla --variant NUM_SMS=8",
        "bench mla --topk 2048 --variant ATTN_SINK=True",
        "bench gemm --shape 1,2,3 --variant A=1",
        "bench k.tirx --func f --variant A=1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (parse(&c, bad[i]) != 2)
            fail_msg("'%s' is not a usage error", bad[i]);
}

/* `bench gemm` gives LAYOUT to a kernel that declares it (a module-level
 * constant: a line "LAYOUT = ..."), not to one that only mentions it. */
static void test_declares(void **state)
{
    (void)state;
    assert_true(bench_declares("LAYOUT = \"nt\"\n", "LAYOUT"));
    assert_true(bench_declares("# a GEMM\n\nM = 4\nLAYOUT=\"nn\"", "LAYOUT"));
    assert_false(bench_declares("M = 4\nassert LAYOUT == \"nt\"\n", "LAYOUT"));
    assert_false(bench_declares("    LAYOUT = 1\n", "LAYOUT"));
    assert_false(bench_declares("LAYOUT_NN = 1\nLAYOUT == 2\n", "LAYOUT"));
    assert_false(bench_declares("LAYOUT", "LAYOUT"));
    assert_false(bench_declares("", "LAYOUT"));
}

/* ---- element types ---- */

static void expect_bits(const char *dtype, double v, uint64_t bits)
{
    const BenchDType *t = bench_dtype(dtype);
    assert_non_null(t);
    uint64_t got = bench_encode(t, v);
    if (got != bits)
        fail_msg("%s(%g): got 0x%llx, expected 0x%llx", dtype, v, (unsigned long long)got,
                 (unsigned long long)bits);
}

static void test_encode_known(void **state)
{
    (void)state;
    expect_bits("bf16", 1.0, 0x3f80);
    expect_bits("bf16", -2.0, 0xc000);
    expect_bits("bf16", 1.0 + 1.0 / 256, 0x3f80); /* a tie: to even */
    expect_bits("bf16", 1.0 + 3.0 / 256, 0x3f82); /* a tie: to even, upwards */
    expect_bits("bf16", 2.0 - ldexp(1, -9), 0x4000); /* the carry into the exponent */
    expect_bits("bf16", 3.0e38, 0x7f62);
    expect_bits("bf16", 1e39, 0x7f80);           /* past the largest: infinity */
    expect_bits("fp16", 1.0, 0x3c00);
    expect_bits("fp16", 65504, 0x7bff);
    expect_bits("fp16", 65519, 0x7bff);
    expect_bits("fp16", 65520, 0x7c00);
    expect_bits("fp16", ldexp(1, -14), 0x0400);  /* the smallest normal */
    expect_bits("fp16", ldexp(1, -14) - ldexp(1, -26), 0x0400); /* a subnormal rounded up */
    expect_bits("fp16", ldexp(1, -24), 0x0001);  /* the smallest subnormal */
    expect_bits("fp16", ldexp(1, -26), 0x0000);  /* rounds to zero */
    expect_bits("fp16", -0.0, 0x8000);
    expect_bits("float16", NAN, 0x7e00);
    expect_bits("fp8", 1.0, 0x38);
    expect_bits("fp8", 448, 0x7e);
    expect_bits("fp8", 1e6, 0x7e);               /* fn formats saturate */
    expect_bits("fp8", -1e6, 0xfe);
    expect_bits("fp8", NAN, 0x7f);
    expect_bits("fp8", ldexp(1, -9), 0x01);
    expect_bits("fp8", 0.3, 0x2a);               /* 0.3125 */
    expect_bits("e5m2", 57344, 0x7b);
    expect_bits("e5m2", 1e6, 0x7c);
    expect_bits("f32", 1.0, 0x3f800000);
    expect_bits("f32", 0.1, 0x3dcccccd);
    expect_bits("f64", 1.0, 0x3ff0000000000000ull);
    expect_bits("i8", 200, 0x7f);
    expect_bits("i8", -200, 0x80);
    expect_bits("i8", -1, 0xff);
    expect_bits("i32", -2.5, 0xfffffffe);
    expect_bits("u8", -3, 0x00);
    expect_bits("u8", 300, 0xff);
    assert_null(bench_dtype("float99"));
}

static void test_decode(void **state)
{
    (void)state;
    const BenchDType *bf = bench_dtype("bf16"), *h = bench_dtype("fp16");
    const BenchDType *e4 = bench_dtype("fp8"), *e5 = bench_dtype("e5m2"), *i8 = bench_dtype("i8");
    assert_true(bench_decode(bf, 0x3f80) == 1.0);
    assert_true(bench_decode(h, 0x7bff) == 65504);
    assert_true(isinf(bench_decode(h, 0x7c00)));
    assert_true(isnan(bench_decode(h, 0x7e00)));
    assert_true(bench_decode(h, 0x0001) == ldexp(1, -24));
    assert_true(bench_decode(e4, 0x7e) == 448);
    assert_true(bench_decode(e4, 0xfe) == -448);
    assert_true(isnan(bench_decode(e4, 0x7f)));
    assert_true(bench_decode(e4, 0x78) == 256); /* the all-ones exponent is finite in fn */
    assert_true(isinf(bench_decode(e5, 0x7c)));
    assert_true(bench_decode(i8, 0x80) == -128);
    /* Every float8 code decodes and encodes back to itself (but NaN). */
    for (unsigned b = 0; b < 256; b++) {
        double v = bench_decode(e4, b);
        if (!isnan(v))
            assert_int_equal(bench_encode(e4, v), b);
        v = bench_decode(e5, b);
        if (!isnan(v))
            assert_int_equal(bench_encode(e5, v), b);
    }
    /* And every bfloat16 and float16 code. */
    for (unsigned b = 0; b < 65536; b++) {
        double v = bench_decode(bf, b);
        if (!isnan(v) && bench_encode(bf, v) != b)
            fail_msg("bfloat16 0x%04x", b);
        v = bench_decode(h, b);
        if (!isnan(v) && bench_encode(h, v) != b)
            fail_msg("float16 0x%04x", b);
    }
}

static void test_fill_and_error(void **state)
{
    (void)state;
    const BenchDType *bf = bench_dtype("bf16"), *f = bench_dtype("f32"), *i8 = bench_dtype("i8");
    uint16_t x[1000];
    uint64_t seed = 42;
    bench_fill(bf, BENCH_RAND, x, 1000, &seed);
    double lo = 1, hi = -1, sum = 0;
    for (int i = 0; i < 1000; i++) {
        double v = bench_decode(bf, x[i]);
        lo = fmin(lo, v), hi = fmax(hi, v), sum += v;
    }
    assert_true(lo >= -1 && hi <= 1 && lo < -0.9 && hi > 0.9 && fabs(sum / 1000) < 0.1);
    bench_fill(bf, BENCH_ONES, x, 3, &seed);
    assert_int_equal(x[2], 0x3f80);
    bench_fill(bf, BENCH_ZEROS, x, 3, &seed);
    assert_int_equal(x[0], 0);
    x[0] = 0x1234;
    bench_fill(bf, BENCH_EMPTY, x, 1, &seed);
    assert_int_equal(x[0], 0x1234);
    int8_t q[100];
    bench_fill(i8, BENCH_RAND, q, 100, &seed);
    for (int i = 0; i < 100; i++)
        assert_true(q[i] >= -8 && q[i] < 8);
    /* ||(1, 2) - (1, 2.5)|| / ||(1, 2.5)|| across types. */
    float ref[2] = {1, 2.5f};
    uint16_t got[2] = {0x3f80, 0x4000};
    assert_true(fabs(bench_rel_l2(bf, got, f, ref, 2) - 0.5 / sqrt(7.25)) < 1e-12);
    assert_true(bench_rel_l2(bf, got, bf, got, 2) == 0);
    got[1] = 0xffff; /* NaN: the poison of an unwritten element */
    assert_true(isinf(bench_rel_l2(bf, got, f, ref, 2)));
    assert_non_null(bench_gemm_type("fp8"));
    assert_string_equal(bench_gemm_type("fp8")->output, "bfloat16");
    assert_null(bench_gemm_type("fp64"));
}

/* ---- statistics ---- */

static void test_summarize(void **state)
{
    (void)state;
    tirx_bench_stats s;
    double ten[] = {10, 3, 1, 2, 9, 8, 7, 4, 6, 5};
    assert_int_equal(tirx_bench_summarize(ten, 10, &s), TIRX_OK);
    assert_int_equal(s.reps, 10);
    assert_true(s.min_ms == 1 && s.max_ms == 10);
    assert_true(s.median_ms == 5.5);
    assert_true(fabs(s.p90_ms - 9.1) < 1e-12);
    assert_true(s.mean_ms == 5.5);
    assert_true(ten[0] == 1 && ten[9] == 10); /* sorted in place */
    double three[] = {0.3, 0.1, 0.2};
    tirx_bench_summarize(three, 3, &s);
    assert_true(s.median_ms == 0.2);
    assert_true(fabs(s.p90_ms - 0.28) < 1e-12);
    double one[] = {1.5};
    tirx_bench_summarize(one, 1, &s);
    assert_true(s.median_ms == 1.5 && s.p90_ms == 1.5 && s.min_ms == 1.5 && s.max_ms == 1.5);
    double skewed[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 100};
    tirx_bench_summarize(skewed, 10, &s);
    assert_true(s.median_ms == 1);
    assert_true(fabs(s.p90_ms - 10.9) < 1e-12);
    assert_int_equal(tirx_bench_summarize(one, 0, &s), TIRX_ERR_USAGE);
}

/* ---- reports ---- */

static tirx_bench_stats stats(double median)
{
    return (tirx_bench_stats){.reps = 100, .min_ms = median * 0.98, .median_ms = median,
                              .p90_ms = median * 1.01, .mean_ms = median * 1.002,
                              .max_ms = median * 1.2, .flush_bytes = 100 << 20, .held = 1};
}

static BenchRow rows[3];
static const tirx_bench_options timing = {.budget_ms = 500};

static BenchReport report(void)
{
    memset(rows, 0, sizeof rows);
    BenchRow *r = &rows[0];
    snprintf(r->label, sizeof r->label, "4096x4096x4096");
    snprintf(r->dtype, sizeof r->dtype, "bf16");
    snprintf(r->layout, sizeof r->layout, "nt");
    r->m = r->n = r->k = 4096;
    r->flops = 2.0 * 4096 * 4096 * 4096;
    r->tirx = stats(0.2);
    r->has_baseline = true;
    r->baseline = stats(0.18);
    snprintf(r->baseline_detail, sizeof r->baseline_detail, "cuBLASLt 130001 algo 66 tile 27");
    r->checked = true, r->against = "cuBLASLt", r->rel_error = 0.0021, r->tolerance = 0.01;
    r = &rows[1];
    snprintf(r->label, sizeof r->label, "128x7168x2048");
    snprintf(r->dtype, sizeof r->dtype, "fp8");
    snprintf(r->layout, sizeof r->layout, "nt");
    r->m = 128, r->n = 7168, r->k = 2048;
    r->flops = 2.0 * 128 * 7168 * 2048;
    r->tirx = stats(0.01);
    BenchReport rep = {.device = {"NVIDIA H200 <&>", "sm_90a", 132, 60 << 20, 13000},
                       .timing = &timing, .command = "tirx bench gemm \"x\"", .rows = rows,
                       .nrows = 2};
    return rep;
}

/* The text a writer produces. */
static char *written(void (*write)(FILE *, const BenchReport *), const BenchReport *r)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    write(f, r);
    fclose(f);
    return buf;
}

/* On a difference, the text from the line where it starts. */
static void expect_text(const char *got, const char *want)
{
    size_t i = 0, line = 0;
    while (got[i] && got[i] == want[i])
        if (got[i++] == '\n')
            line = i;
    if (got[i] || want[i])
        fail_msg("differs at byte %zu:\n  got      %.200s\n  expected %.200s", i, got + line,
                 want + line);
}

static void test_table(void **state)
{
    (void)state;
    BenchReport r = report();
    char *t = written(bench_print_table, &r);
    expect_text(t,
        "# NVIDIA H200 <&> (sm_90a, 132 SMs, 60 MiB L2, driver 13.0); median of CUDA-event times "
        "per run, L2 flushed (100 MiB) before each run; clocks not locked\n"
        "shape                  dtype layout    tirx ms   TFLOP/s  cuBLAS ms   TFLOP/s   ratio\n"
        "4096x4096x4096         bf16  nt         0.2000     687.2     0.1800     763.5   0.900\n"
        "128x7168x2048          fp8   nt         0.0100     375.8          -         -       -\n");
    free(t);
    rows[0].m = 0, rows[0].flops = 0;
    r.nrows = 1;
    t = written(bench_print_table, &r);
    assert_non_null(strstr(t, "function                  median ms     min ms     p90 ms    runs"
                              "   TFLOP/s\n4096x4096x4096               0.2000     0.1960     "
                              "0.2020     100         -\n"));
    free(t);
}

static void test_json(void **state)
{
    (void)state;
    BenchReport r = report();
    char *j = written(bench_write_json, &r), want[4096];
    snprintf(want, sizeof want,
        "{\n"
        "  \"tirx\": \"%s\",\n"
        "  \"command\": \"tirx bench gemm \\\"x\\\"\",\n"
        "  \"device\": {\"name\": \"NVIDIA H200 <&>\", \"arch\": \"sm_90a\", \"sm_count\": 132, "
        "\"l2_bytes\": 62914560, \"driver_version\": 13000},\n"
        "  \"method\": {\"timer\": \"CUDA events around each run\", \"statistic\": \"median\", "
        "\"budget_ms\": 500, \"warmup_ms\": 100, \"max_reps\": 10000, \"l2_flush\": true, "
        "\"clocks\": \"not locked\"},\n"
        "  \"rows\": [\n"
        "    {\"label\": \"4096x4096x4096\", \"dtype\": \"bf16\", \"layout\": \"nt\", \"m\": 4096, "
        "\"n\": 4096, \"k\": 4096, \"flops\": 1.37439e+11,\n"
        "     \"check\": {\"against\": \"cuBLASLt\", \"rel_l2_error\": 0.0021, \"tolerance\": 0.01},\n"
        "     \"tirx\": {\"reps\": 100, \"median_ms\": 0.2, \"min_ms\": 0.196, \"p90_ms\": 0.202, "
        "\"mean_ms\": 0.2004, \"max_ms\": 0.24, \"tflops\": 687.195, \"l2_flush_bytes\": 104857600, "
        "\"held\": true},\n"
        "     \"cublas\": {\"reps\": 100, \"median_ms\": 0.18, \"min_ms\": 0.1764, \"p90_ms\": 0.1818, "
        "\"mean_ms\": 0.18036, \"max_ms\": 0.216, \"tflops\": 763.55, \"l2_flush_bytes\": 104857600, "
        "\"held\": true, \"algo\": \"cuBLASLt 130001 algo 66 tile 27\"},\n"
        "     \"ratio\": 0.9},\n"
        "    {\"label\": \"128x7168x2048\", \"dtype\": \"fp8\", \"layout\": \"nt\", \"m\": 128, "
        "\"n\": 7168, \"k\": 2048, \"flops\": 3.7581e+09,\n"
        "     \"check\": null,\n"
        "     \"tirx\": {\"reps\": 100, \"median_ms\": 0.01, \"min_ms\": 0.0098, \"p90_ms\": 0.0101, "
        "\"mean_ms\": 0.01002, \"max_ms\": 0.012, \"tflops\": 375.81, \"l2_flush_bytes\": 104857600, "
        "\"held\": true},\n"
        "     \"cublas\": null,\n"
        "     \"ratio\": null}\n"
        "  ]\n"
        "}\n", tirx_version());
    expect_text(j, want);
    free(j);
}

/* An MLA row: the table with TB/s beside TFLOP/s, the JSON with its bytes
 * and the check's lse. */
static void test_mla_reports(void **state)
{
    (void)state;
    BenchReport r = report();
    BenchRow *w = &rows[2];
    memset(w, 0, sizeof *w);
    snprintf(w->label, sizeof w->label, "mla b=128 s_q=1 h_q=64 s_k=8192 varlen causal");
    w->flops = 2.0 * 64 * 128 * 8192 * 1088, w->bytes = 1.2e9;
    w->tirx = stats(0.3);
    w->checked = true, w->against = "float64 attention of sampled rows";
    w->rel_error = 0.002, w->tolerance = 0.003, w->lse_error = 2e-5, w->lse_tolerance = 1e-3;
    r.rows = w, r.nrows = 1;
    char *t = written(bench_print_table, &r);
    assert_non_null(strstr(t, "\nproblem                                         median ms     "
                              "min ms     p90 ms    runs    TB/s   TFLOP/s\n"
                              "mla b=128 s_q=1 h_q=64 s_k=8192 varlen causal      0.3000     "
                              "0.2940     0.3030     100   4.000     486.8\n"));
    free(t);
    char *j = written(bench_write_json, &r);
    assert_non_null(strstr(j, "\"label\": \"mla b=128 s_q=1 h_q=64 s_k=8192 varlen causal\", "
                              "\"flops\": 1.46029e+11, \"bytes\": 1.2e+09,\n"
                              "     \"check\": {\"against\": \"float64 attention of sampled "
                              "rows\", \"rel_l2_error\": 0.002, \"tolerance\": 0.003, "
                              "\"lse_max_abs_error\": 2e-05, \"lse_tolerance\": 0.001},\n"));
    assert_non_null(strstr(j, "\"tflops\": 486.763, \"tbps\": 4, \"l2_flush_bytes\""));
    free(j);
}

/* A sparse MLA row: its longer label widens the problem column (header and
 * row stay aligned); the JSON as the dense row's. */
static void test_mla_sparse_reports(void **state)
{
    (void)state;
    BenchReport r = report();
    BenchRow *w = &rows[2];
    memset(w, 0, sizeof *w);
    snprintf(w->label, sizeof w->label, "mla sparse b=128 s_q=2 h_q=128 topk=2048 s_k=32768 sink");
    w->flops = 2.0 * 128 * 2 * 128 * 2048 * 1088, w->bytes = 4.5e8;
    w->tirx = stats(0.7);
    w->checked = true, w->against = "float64 attention of sampled rows";
    w->rel_error = 0.0023, w->tolerance = 0.004, w->lse_error = 4e-7, w->lse_tolerance = 1e-3;
    r.rows = w, r.nrows = 1;
    char *t = written(bench_print_table, &r);
    assert_non_null(strstr(t, "\nproblem                                                  median ms"
                              "     min ms     p90 ms    runs    TB/s   TFLOP/s\n"
                              "mla sparse b=128 s_q=2 h_q=128 topk=2048 s_k=32768 sink     0.7000"
                              "     0.6860     0.7070     100   0.643     208.6\n"));
    free(t);
    char *j = written(bench_write_json, &r);
    assert_non_null(strstr(j, "\"label\": \"mla sparse b=128 s_q=2 h_q=128 topk=2048 s_k=32768 "
                              "sink\", \"flops\": 1.46029e+11, \"bytes\": 4.5e+08,\n"
                              "     \"check\": {\"against\": \"float64 attention of sampled "
                              "rows\", \"rel_l2_error\": 0.0023, \"tolerance\": 0.004, "
                              "\"lse_max_abs_error\": 4e-07, \"lse_tolerance\": 0.001},\n"));
    assert_non_null(strstr(j, "\"tflops\": 208.613, \"tbps\": 0.642857, \"l2_flush_bytes\""));
    free(j);
}

/* MLA rows beside FlashMLA (--flashmla): its median, TB/s, TFLOP/s and the
 * ratio in the table (dashes for a row without), "flashmla" in the JSON. */
static void test_mla_flashmla_reports(void **state)
{
    (void)state;
    BenchReport r = report();
    BenchRow *w = &rows[1];
    memset(w, 0, 2 * sizeof *w);
    snprintf(w[0].label, sizeof w[0].label, "mla b=128 s_q=2 h_q=128 s_k=8192");
    w[0].flops = 2.0 * 2 * 128 * 128 * 8192 * 1088, w[0].bytes = 1.2e9;
    w[0].tirx = stats(0.8);
    w[0].has_baseline = true, w[0].baseline = stats(0.84);
    w[1] = w[0];
    snprintf(w[1].label, sizeof w[1].label, "mla b=128 s_q=2 h_q=128 s_k=8192 [X=1]");
    w[1].has_baseline = false;
    r.rows = w, r.nrows = 2;
    char *t = written(bench_print_table, &r);
    assert_non_null(strstr(t,
        "\nproblem                                         median ms     min ms     p90 ms    runs"
        "    TB/s   TFLOP/s FlashMLA ms    TB/s   TFLOP/s   ratio\n"
        "mla b=128 s_q=2 h_q=128 s_k=8192                   0.8000     0.7840     0.8080     100"
        "   1.500     730.1      0.8400   1.429     695.4   1.050\n"
        "mla b=128 s_q=2 h_q=128 s_k=8192 [X=1]             0.8000     0.7840     0.8080     100"
        "   1.500     730.1           -       -         -       -\n"));
    free(t);
    char *j = written(bench_write_json, &r);
    assert_non_null(strstr(j, "\"flashmla\": {\"reps\": 100, \"median_ms\": 0.84, "));
    assert_non_null(strstr(j, "\"tflops\": 695.376, \"tbps\": 1.42857, \"l2_flush_bytes\": "
                              "104857600, \"held\": true},\n     \"ratio\": 1.05}"));
    assert_non_null(strstr(j, "\"flashmla\": null,\n     \"ratio\": null}"));
    assert_null(strstr(j, "\"cublas\""));
    free(j);
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

static void test_svg(void **state)
{
    (void)state;
    BenchReport r = report();
    char *s = written(bench_write_svg, &r);
    assert_true(!strncmp(s, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39));
    assert_true(strlen(s) > 7 && !strcmp(s + strlen(s) - 7, "</svg>\n"));
    assert_int_equal(count(s, "<rect class=\"tirx\" x="), 2 + 1); /* bars and the legend */
    assert_int_equal(count(s, "<rect class=\"cublas\" x="), 1 + 1);
    assert_int_equal(count(s, "<text class=\"label\""), 2);
    assert_int_equal(count(s, "<text class=\"ratio\""), 1);
    assert_non_null(strstr(s, ">0.90\xc3\x97</text>"));
    assert_non_null(strstr(s, ">4096x4096x4096 bf16</text>"));
    assert_non_null(strstr(s, "NVIDIA H200 &lt;&amp;&gt;"));
    assert_null(strstr(s, "<&>"));
    assert_non_null(strstr(s, "TFLOP/s (higher is better)"));
    assert_non_null(strstr(s, "<title>cuBLAS: 763.5 TFLOP/s</title>"));
    /* Text is escaped: each < and > is part of a tag. */
    assert_int_equal(count(s, "<"), count(s, ">"));
    free(s);
    /* Without FLOP counts the chart shows milliseconds. */
    rows[1].flops = 0;
    s = written(bench_write_svg, &r);
    assert_non_null(strstr(s, "median ms (lower is better)"));
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_items),     cmocka_unit_test(test_spec_errors),
        cmocka_unit_test(test_args_gemm),      cmocka_unit_test(test_args_shapes_file),
        cmocka_unit_test(test_args_file),      cmocka_unit_test(test_args_mla),
        cmocka_unit_test(test_args_mla_sparse), cmocka_unit_test(test_args_errors),
        cmocka_unit_test(test_mla_reports),    cmocka_unit_test(test_mla_sparse_reports),
        cmocka_unit_test(test_mla_flashmla_reports),
        cmocka_unit_test(test_declares),
        cmocka_unit_test(test_encode_known),   cmocka_unit_test(test_decode),
        cmocka_unit_test(test_fill_and_error), cmocka_unit_test(test_summarize),
        cmocka_unit_test(test_table),          cmocka_unit_test(test_json),
        cmocka_unit_test(test_svg),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
