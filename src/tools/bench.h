/* `tirx bench`, shared by its files in src/tools (all over tirx.h alone):
 * the command line (bench_cli.c), the tensor SPEC of --args
 * (bench_spec.c), element types and host data (bench_data.c), the reports:
 * table, JSON and SVG (bench_report.c), the runs on the GPU (bench.c) and
 * the MLA decode rows (bench_mla.c, bench_mla_sparse.c). Prefix: bench_. */
#ifndef TIRX_TOOLS_BENCH_H
#define TIRX_TOOLS_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tirx.h"
#include "../runtime/dlpack.h"
#include "bench_flashmla.h"

#define BENCH_MAX_DIMS 8
/* Bytes of one tensor of a --args spec: past any GPU's memory, short of overflow. */
#define BENCH_MAX_TENSOR_BYTES ((int64_t)1 << 48)
#define BENCH_MAX_ARGS 64
#define BENCH_MAX_SHAPES 256
#define BENCH_MAX_DEFINES 64
#define BENCH_MAX_VARIANTS 16
#define BENCH_MAX_IMPORT_DIRS 64
#define BENCH_MAX_DTYPES 4

/* ---- element types (bench_data.c) ---- */

typedef enum BenchKind {
    BENCH_FLOAT, /* a binary floating-point format: exponent and mantissa bits */
    BENCH_FLOAT_FN, /* float8_e4m3fn: no infinities, all-ones is NaN */
    BENCH_INT,
    BENCH_UINT,
} BenchKind;

typedef struct BenchDType {
    const char *name;   /* TIRx's name: "bfloat16" */
    const char *alias;  /* the short spelling: "bf16" */
    uint8_t dl_code, bits;
    BenchKind kind;
    int exp_bits, man_bits; /* floats */
} BenchDType;

/* By TIRx name or short alias; NULL when unknown. */
const BenchDType *bench_dtype(const char *name);
/* The element's bits for v (floats round to nearest, ties to even; finite
 * values past the largest saturate in fn formats and become infinity
 * otherwise; integers round and clamp). */
uint64_t bench_encode(const BenchDType *t, double v);
double bench_decode(const BenchDType *t, uint64_t bits);

/* How a tensor starts. */
typedef enum BenchInit { BENCH_RAND, BENCH_ZEROS, BENCH_ONES, BENCH_EMPTY } BenchInit;

/* xorshift64* over the state *seed: 64 random bits; uniform in [-1, 1);
 * uniform in [0, n). */
uint64_t bench_random(uint64_t *seed);
double bench_uniform(uint64_t *seed);
long long bench_below(uint64_t *seed, long long n);
/* Fills n elements of `t` at `dst` (host memory): rand is uniform in [-1, 1)
 * (integers: uniform in [-8, 8), unsigned ones in [0, 16)) from the
 * xorshift64* state *seed; empty leaves the memory alone. */
void bench_fill(const BenchDType *t, BenchInit init, void *dst, size_t n, uint64_t *seed);
/* ||x - ref|| / ||ref|| of n elements of types tx and tref; infinity when an
 * element of x is not finite. */
double bench_rel_l2(const BenchDType *tx, const void *x, const BenchDType *tref, const void *ref,
                    size_t n);

/* The GEMMs of `tirx bench gemm`: the input type, C's type, the check's
 * tolerance (relative L2 error against cuBLAS), the kernel used without
 * --kernel, and the per-tensor scales of A and B (0: the GEMM has none; else
 * the kernel takes them as two float arguments after C, and cuBLAS gets the
 * same). */
typedef struct BenchGemmType {
    const char *name;  /* "bf16", "fp16", "fp8", "tf32": cuBLAS's dtype too */
    const char *input; /* the kernel's DTYPE: "bfloat16" */
    const char *output;
    double tolerance;
    const char *kernel;
    long long workspace; /* bytes of the zeroed int32 workspace after C; 0: none */
    float scale_a, scale_b;
} BenchGemmType;

const BenchGemmType *bench_gemm_type(const char *name);

/* ---- the --args SPEC (bench_spec.c) ---- */

typedef struct BenchArg {
    char name[32];
    bool is_tensor;
    /* a tensor */
    BenchInit init;
    const BenchDType *dtype;
    int ndim;
    int64_t shape[BENCH_MAX_DIMS];
    /* a scalar */
    bool is_float;
    long long i;
    double f;
} BenchArg;

/* Parses SPEC (docs/cli.md): whitespace-separated NAME=INIT(D0,D1,...:DTYPE)
 * and NAME=NUMBER items, appended to args (at most BENCH_MAX_ARGS in all).
 * false with a message in msg (naming the item and column) when malformed. */
bool bench_parse_spec(const char *spec, BenchArg *args, int *nargs, char *msg, size_t msg_size);
/* Elements of a tensor argument. */
size_t bench_arg_elems(const BenchArg *a);

/* ---- the command line (bench_cli.c) ---- */

typedef struct BenchShape {
    long long m, n, k;
} BenchShape;

/* `tirx bench mla`: one decode problem (FlashMLA's benchmark shapes). */
typedef struct BenchMla {
    int batch, s_q, h_q, s_k; /* s_k: every request's length, or the mean with varlen */
    bool varlen;              /* lengths ~ N(s_k, s_k / 2), at least s_q */
    bool causal;
    bool f16;                 /* dense: --dtype fp16 (q, the cache and out float16) */
    int topk;                 /* > 0: the sparse fp8 decode, each query's top-k tokens */
    bool sink;                /* sparse: the attention sink (-D ATTN_SINK=True) */
} BenchMla;

typedef struct BenchConfig {
    bool gemm;              /* `tirx bench gemm` */
    bool mla;               /* `tirx bench mla` */
    const char *file;       /* FILE, or the GEMM's or MLA's --kernel (NULL: the default) */
    const char *kernel;     /* --kernel */
    const char *func;       /* --func */
    tirx_define defines[BENCH_MAX_DEFINES];
    size_t ndefines;
    const char *import_dirs[BENCH_MAX_IMPORT_DIRS + 1]; /* -I DIR; gemm, mla: then kernels/ */
    size_t n_import_dirs;
    BenchArg args[BENCH_MAX_ARGS];
    int nargs;
    BenchShape shapes[BENCH_MAX_SHAPES];
    int nshapes;
    const BenchGemmType *dtypes[BENCH_MAX_DTYPES];
    int ndtypes;
    bool layout_nn;
    const BenchDType *out_dtype; /* --out-dtype: C's type in the kernel; NULL: the GEMM's */
    const char *json, *plot;
    const char *trace;      /* --trace FILE */
    const char *trace_svg;  /* --trace-svg FILE */
    int trace_sms;          /* --trace-sms; 0: the default */
    size_t trace_records;   /* --trace-records; 0: the default */
    double flops;           /* --flops of a FILE's function; 0: not reported */
    tirx_bench_options timing;
    bool no_cublas;         /* gemm: time the kernel alone, unchecked */
    bool lineinfo;          /* --lineinfo: compile with -lineinfo */
    bool fast_math;         /* --fast-math: compile with --use_fast_math */
    BenchMla mla_problem;   /* mla */
    /* mla --variant: "NAME=VALUE[,NAME=VALUE...]" ("-": none), a row each */
    const char *variants[BENCH_MAX_VARIANTS];
    int nvariants;
    const char *flashmla;   /* mla --flashmla LIB: the baseline library */
} BenchConfig;

/* Parses `tirx bench ...` (argv[0] is "bench"). Returns -1 to go on, else the
 * exit status (0 after --help; 2 after a usage error, printed on stderr). */
int bench_parse_args(int argc, char **argv, BenchConfig *c);
/* Whether a kernel's text declares the module-level constant name (a line
 * "name = ..."): `bench gemm` passes LAYOUT only to a kernel that has one. */
bool bench_declares(const char *text, const char *name);
/* Whether a file name ends in .svg (--trace-svg and --plot need one, --trace
 * refuses one: it writes JSON). */
bool bench_is_svg_name(const char *name);
/* Writes a trace (JSON or SVG) to path; "tirx TOOL: cannot write" and
 * TIRX_ERR_USAGE when it cannot. */
int bench_write_trace(const char *tool, const char *path, const char *text);
extern const char bench_usage[];

/* ---- results and reports (bench_report.c) ---- */

typedef struct BenchRow {
    char label[160];        /* "4096x4096x4096", "mla b=128 s_q=1 h_q=64 s_k=8192" (and its
                               --variant in brackets), or the function's name */
    char dtype[16], layout[8];
    long long m, n, k;      /* GEMM rows; 0 otherwise */
    double flops;           /* per run; 0: unknown */
    double bytes;           /* moved per run (MLA rows: TB/s); 0: not reported */
    tirx_bench_stats tirx;
    /* the baseline timed beside tirx on the same inputs: cuBLASLt (GEMM rows)
       or FlashMLA (MLA rows with --flashmla) */
    bool has_baseline;
    tirx_bench_stats baseline;
    char baseline_detail[128]; /* GEMM rows: cuBLASLt's algorithm */
    bool checked;
    const char *against;    /* what the check compares with: "cuBLASLt" */
    double rel_error, tolerance;
    double lse_error, lse_tolerance; /* MLA rows: max |lse - reference| */
} BenchRow;

typedef struct BenchReport {
    tirx_device_info device;
    const tirx_bench_options *timing;
    const char *command;    /* the command line, for the record */
    const BenchRow *rows;
    int nrows;
} BenchReport;

/* TFLOP/s of a median; 0 when flops is unknown. */
double bench_tflops(double flops, const tirx_bench_stats *s);
/* TB/s of a median; 0 when bytes is unknown. */
double bench_tbps(double bytes, const tirx_bench_stats *s);
/* tirx's speed over the baseline's (its median / tirx's; > 1: tirx is faster). */
double bench_ratio(const BenchRow *r);
void bench_print_table(FILE *f, const BenchReport *r);
void bench_write_json(FILE *f, const BenchReport *r);
void bench_write_svg(FILE *f, const BenchReport *r);

/* ---- running (bench.c) ---- */

/* A device tensor and the host copy it was filled from (or is read into). */
typedef struct BenchTensor {
    DLTensor dl;
    int64_t shape[BENCH_MAX_DIMS];
    const BenchDType *dtype;
    size_t elems, bytes;
    void *host;
} BenchTensor;

/* libtirx_flashmla (--flashmla), loaded before the GPU is opened, and its
 * plan for the problem being timed. It stays loaded until the process
 * exits: its static CUDA runtime is not unloaded while the context lives. */
typedef struct BenchFlashmla {
    void *lib, *plan;
    tirx_flashmla_prepare_fn prepare;
    tirx_flashmla_run_fn run;
    tirx_flashmla_free_fn release;
} BenchFlashmla;

/* Loads the library at path into *f; TIRX_ERR_USAGE, with a message naming
 * the path, when it will not load or is not one (bench_mla.c). */
int bench_flashmla_open(const char *path, BenchFlashmla *f);

typedef struct BenchSession {
    const BenchConfig *c;
    tirx_device *dev;
    uint64_t seed;
    const char *file; /* the source being compiled */
    char *text;
    size_t len;
    bool tracing; /* compile with the trace option */
    bool traced;  /* the trace file is written */
    int variant;  /* the --variant being compiled (0 without) */
    bool fast_math; /* that variant asks for fast math (its item "fast-math") */
    BenchFlashmla flashmla; /* --flashmla; lib NULL without */
} BenchSession;

/* A function and its arguments, timed by bench_launch. */
typedef struct BenchLaunch {
    tirx_function *fn;
    tirx_arg args[BENCH_MAX_ARGS];
    size_t nargs;
} BenchLaunch;

/* `tirx bench: [WHAT: ]message` on stderr; returns st. */
int bench_cuda_error(tirx_status st, const char *what, const tirx_error *err);
/* Allocates the tensor on the device and a host buffer of its size. */
int bench_tensor_alloc(BenchSession *s, BenchTensor *t, const BenchDType *dt, int ndim,
                       const int64_t *shape);
/* Fills the host copy (empty: leaves it) and uploads it. */
int bench_tensor_init(BenchSession *s, BenchTensor *t, BenchInit init);
int bench_tensor_upload(BenchSession *s, BenchTensor *t);
int bench_tensor_download(BenchSession *s, BenchTensor *t);
void bench_tensor_free(BenchSession *s, BenchTensor *t);
/* Compiles s->text for the session's GPU (diagnostics on stderr). */
int bench_compile(BenchSession *s, const tirx_define *defs, size_t ndefs, tirx_module **m);
/* Function `name` of m. */
int bench_function(BenchSession *s, tirx_module *m, const char *name, tirx_function **fn);
/* Enqueues a BenchLaunch (a tirx_bench_fn). */
tirx_status bench_launch(void *launch, void *stream, tirx_error *err);
/* Times fn with the command's timing options, progress on stderr. */
int bench_time_it(BenchSession *s, const char *who, tirx_bench_fn fn, void *user,
                  tirx_bench_stats *out);

/* `tirx bench`: the exit status. */
int bench_main(int argc, char **argv);

/* ---- tirx bench mla (bench_mla.c: the dense decode and what the MLA rows
 * share; bench_mla_sparse.c: the sparse fp8 decode) ---- */

enum {
    BENCH_MLA_DK = 576, BENCH_MLA_DV = 512, /* K's and V's dimensions (V: K's first 512) */
    BENCH_MLA_CHECK_GROUPS = 8, BENCH_MLA_CHECK_ROWS = 8 /* sampled rows: groups of rows */
};

/* A decode kernel's module and its three functions' calls. */
typedef struct BenchMlaKernel {
    tirx_module *module;
    BenchLaunch metadata, decode, combine;
} BenchMlaKernel;

/* A sampled query row and its float64 attention so far, an online softmax
 * (out and sum are scaled by exp(-max)). */
typedef struct BenchMlaRow {
    int bi, si, hi; /* request, query token, head */
    double sink;    /* the head's attention sink (docs/kernels.md); -inf: none */
    double q[BENCH_MLA_DK], out[BENCH_MLA_DV], max, sum;
} BenchMlaRow;

/* The float64 references of group g of the sampled rows: fills and attends
 * rows[0 .. BENCH_MLA_CHECK_ROWS). */
typedef int (*BenchMlaReference)(BenchSession *s, void *problem, int g, BenchMlaRow *rows);

/* Compiles --kernel (default `fallback`) with the command's -D, `defs` and
 * the session's --variant (last: it overrides them), and finds its
 * functions names[0], [1], [2]: the metadata, decode and combine. */
int bench_mla_compile(BenchSession *s, const char *fallback, const tirx_define *defs,
                      size_t ndefs, const char *const names[3], BenchMlaKernel *k);
/* 0 .. n-1 in random order (malloc'd); NULL, with a message, without memory. */
int32_t *bench_shuffled(BenchSession *s, long long n);
/* Request k of the check's sample of b: the first, the last, then random. */
int bench_mla_request(BenchSession *s, int k, int b);
/* Starts row (bi, si, hi) of q [b, s_q, h_q, 576] with no token seen. */
void bench_mla_row_start(BenchMlaRow *r, const BenchTensor *q, int bi, int si, int hi,
                         double sink);
/* The row attends to one more token, kv its 576 values. */
void bench_mla_attend(BenchMlaRow *r, const double *kv);
/* Runs the metadata once; one decode call (decode, then combine) with out
 * [b, s_q, h_q, 512] and lse [b, h_q, s_q] poisoned, checked against
 * `groups` groups of reference rows (a wrong kernel gets no number); then
 * times the decode call into row->tirx. */
int bench_mla_measure(BenchSession *s, BenchMlaKernel *k, BenchTensor *out, BenchTensor *lse,
                      BenchMlaReference reference, void *problem, int groups, BenchRow *row);
/* One traced launch of l (its module compiled with the trace option) into the
 * --trace file, the --trace-svg file or both; what names it on stderr. */
int bench_trace_launch(BenchSession *s, BenchLaunch *l, const char *what);
/* --trace / --trace-svg: k's module compiled again with the trace option
 * (compile(s, problem) fills k), the metadata run, then one traced launch of
 * the decode kernel; 0 without either option. */
typedef int (*BenchMlaCompile)(BenchSession *s, void *problem);
int bench_mla_trace(BenchSession *s, BenchMlaKernel *k, BenchMlaCompile compile, void *problem);

/* The rows of every --variant (one row without), the first compiled: each
 * variant compiled in turn, checked and timed (bench_mla_measure) on the
 * same inputs, rows[v] labelled with it; with --flashmla, FlashMLA on the
 * same inputs (bench_mla_flashmla, `baseline` the problem's inputs); then
 * --trace of the first. */
int bench_mla_variants(BenchSession *s, BenchMlaKernel *k, BenchMlaCompile compile, void *problem,
                       BenchTensor *out, BenchTensor *lse, BenchMlaReference reference,
                       int groups, BenchRow *rows, int nrows, TirxFlashmlaProblem *baseline);
/* --flashmla (the library s->flashmla, loaded by bench_flashmla_open):
 * gives FlashMLA the problem p (its inputs set; out and lse are allocated
 * here), checks one call against groups of reference rows as the kernel's
 * and times it into every row's baseline. */
int bench_mla_flashmla(BenchSession *s, TirxFlashmlaProblem *p, BenchMlaReference reference,
                       void *problem, int groups, BenchRow *rows, int nrows);
/* Whether spec is a --variant: "-" or items joined by commas, each NAME=VALUE
 * or BENCH_VARIANT_FAST_MATH. */
bool bench_variant_ok(const char *spec);
/* The --variant item that compiles the variant with fast math. */
#define BENCH_VARIANT_FAST_MATH "fast-math"

/* The MLA decode rows (one per --variant): compile the kernel for the
 * problem, make its inputs and measure (bench_mla_variants). */
int bench_mla_row(BenchSession *s, BenchRow *rows, int nrows);
int bench_mla_sparse_row(BenchSession *s, BenchRow *rows, int nrows);

/* `tirx sim` (sim.c, over the SPEC and data of bench): the exit status. */
int tool_sim_main(int argc, char **argv);

/* From tirx.c: reads a whole file (or stdin for "-") of at most `limit`
 * bytes; NULL with a message on stderr on failure or when it is larger. */
char *tool_read_input(const char *path, size_t limit, size_t *len);
/* From tirx.c: ptxas's performance-loss notes of m's kernels (serialized
 * wgmma, setmaxnreg ignored) as warnings on stderr, with notes on the causes. */
void tool_print_perf_loss(const tirx_module *m);

#endif
