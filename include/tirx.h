/* tirx: a hardware-native GPU kernel language and compiler.
 *
 * The public C API. Parse TIRx script into a module, verify it, print its
 * canonical form and read its diagnostics. Every function that can fail
 * returns a tirx_status; errors in the input are reported as diagnostics on
 * the module (never printed, never fatal). */
#ifndef TIRX_H
#define TIRX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(TIRX_BUILDING_LIBRARY)
#define TIRX_API __attribute__((visibility("default")))
#else
#define TIRX_API
#endif

/* Exit statuses of the CLI share these values (but TIRX_ERR_NOMEM's). */
typedef enum tirx_status {
    TIRX_OK = 0,
    TIRX_ERR_INPUT = 1,     /* an error in the input: see the diagnostics */
    TIRX_ERR_USAGE = 2,     /* a bad argument to an API call or the CLI */
    TIRX_ERR_CUDA = 3,      /* no CUDA driver / NVRTC where one is needed */
    /* Memory ran out (the CLI exits 70 for it). A module the call was working
     * on may then only be freed; strings and counts come back NULL and 0. */
    TIRX_ERR_NOMEM = 4,
    TIRX_ERR_INTERNAL = 70, /* a bug in tirx */
} tirx_status;

typedef struct tirx_module tirx_module;
typedef struct tirx_options tirx_options; /* below, with tirx_lower */

/* A compile-time constant override: `-D NAME=VALUE`. VALUE is a Python
 * literal (int, float, bool, string) or a dtype name. */
typedef struct tirx_define {
    const char *name;
    const char *value;
} tirx_define;

typedef enum tirx_severity {
    TIRX_SEV_ERROR,
    TIRX_SEV_WARNING,
    TIRX_SEV_NOTE, /* explains the error or warning before it */
} tirx_severity;

typedef struct tirx_diag {
    tirx_severity severity;
    const char *file;    /* NULL when the diagnostic has no location */
    int line, col;       /* 1-based; col counts bytes */
    int end_line, end_col;
    const char *message; /* owned by the module */
    /* The stable code of an error or warning ("E0101") and its name
     * ("unknown-name"), for tools to match on (docs/diagnostics.md); NULL for
     * a note. Static strings. */
    const char *code;
    const char *code_name;
} tirx_diag;

TIRX_API const char *tirx_version(void);

/* Parse `len` bytes of TIRx script named `filename` (used in diagnostics;
 * "<stdin>" for standard input). Sets *out to a module (free it with
 * tirx_module_free), which carries the diagnostics even when parsing failed.
 * The text is taken up to just under 4 GiB; bounding an untrusted input more
 * tightly is the caller's choice (the CLI and tirx_compile refuse more than
 * TIRX_MAX_INPUT_SIZE_DEFAULT unless raised).
 * Returns TIRX_OK or TIRX_ERR_INPUT; TIRX_ERR_USAGE, with *out NULL, when
 * text or defines is NULL with a non-zero length or count; TIRX_ERR_NOMEM,
 * with *out NULL, when memory ran out. Every call below may also return
 * TIRX_ERR_NOMEM (or NULL where it returns a string). */
TIRX_API tirx_status tirx_parse(const char *text, size_t len, const char *filename,
                                const tirx_define *defines, size_t ndefines, tirx_module **out);
/* tirx_parse with the import directories of o (o->import_dirs; the other
 * options are for lowering and compiling); o may be NULL. A script's imports
 * of .tirx files (`from NAME import ...`) are searched in the directory of
 * `filename` (none when the name is in angle brackets: "<stdin>"), then in
 * the import directories (docs/language.md, "Imports"). */
TIRX_API tirx_status tirx_parse_with(const char *text, size_t len, const char *filename,
                                     const tirx_define *defines, size_t ndefines,
                                     const tirx_options *o, tirx_module **out);

/* Check well-formedness (use before definition, dtypes, thread extents, ...).
 * Adds diagnostics to the module. Returns TIRX_OK or TIRX_ERR_INPUT. */
TIRX_API tirx_status tirx_verify(tirx_module *m);

/* The canonical TIRx script text of the module, NUL-terminated, without a
 * trailing newline. Free it with tirx_free. NULL if the module failed to parse. */
TIRX_API char *tirx_print(const tirx_module *m);

/* Structural equality with alpha-renaming of bound variables: 1 equal, 0 not. */
TIRX_API int tirx_module_equal(const tirx_module *a, const tirx_module *b);

TIRX_API size_t tirx_diag_count(const tirx_module *m);
/* Fills *out with diagnostic i (0-based); returns 0, or -1 if i is out of range. */
TIRX_API int tirx_diag_get(const tirx_module *m, size_t i, tirx_diag *out);
/* Every diagnostic rendered as `FILE:LINE:COL: error[E0101]: message`, the
 * source line and a caret under the span. Free it with tirx_free. */
TIRX_API char *tirx_diag_render(const tirx_module *m);
/* Entry i (0-based) of the table of diagnostic codes: its code ("E0101"),
 * name ("unknown-name") and a one-line summary (static strings; any pointer
 * may be NULL). Returns 0, or -1 past the end. */
TIRX_API int tirx_diag_code_get(size_t i, const char **code, const char **name,
                                const char **summary);

TIRX_API void tirx_module_free(tirx_module *m);
TIRX_API void tirx_free(void *p);

/* ---------------------------------------------------------------- layouts */

/* What `tirx layout` prints (docs/layouts.md): where each element of `shape`
 * (ndim dimensions) lands under `layout`, written as in TIRx script
 * (T.TileLayout(...), T.ComposeLayout(...), T.tmem_datapath_layout(...)).
 * One line per logical index in row-major order, or only the index `at`
 * (ndim entries; NULL for every index):
 *     (i, j) -> {axis=v, axis=v}
 * naming the axes of the layout (memory axes, then thread axes, each group in
 * ASCII order); a replicated element's coordinates are `{...}; {...}`, sorted.
 * With a dtype ("float16"; NULL for none) and a ComposeLayout, ` bank=B` (the
 * 4-byte shared-memory bank of the element's m address) follows each `{...}`.
 * *out receives the text (free it with tirx_free), NULL on failure. *diags
 * receives a module carrying the diagnostics, whose source is the layout text
 * named "<layout>" (free it with tirx_module_free). Returns TIRX_OK,
 * TIRX_ERR_INPUT (the layout does not parse or does not admit the shape) or
 * TIRX_ERR_USAGE (a bad shape, index or dtype; every index of a shape of more
 * than 2^20 elements: give `at`). */
TIRX_API tirx_status tirx_layout_describe(const char *layout, const long long *shape, int ndim,
                                          const long long *at, const char *dtype, char **out,
                                          tirx_module **diags);

/* ---------------------------------------------------------------- lowering and compiling */

/* Options of tirx_lower and tirx_compile. Zero-initialise; every field is
 * optional unless said otherwise. */
struct tirx_options {
    const char *arch;        /* "sm_80", "sm_90a", "sm_100a"; tirx_compile needs it */
    int fast_math;           /* --use_fast_math (off by default) */
    int lineinfo;            /* -lineinfo: profilers and compute-sanitizer see .tirx lines */
    int use_nvcc;            /* compile with nvcc instead of NVRTC */
    const char *nvcc;        /* nvcc's path; NULL: $TIRX_NVCC, $CUDA_HOME/bin/nvcc, PATH */
    int want_ptx;            /* keep the PTX (tirx_module_ptx) */
    int verify_each;         /* run the verifier after every pass */
    const char *print_after; /* a pass name, or "all": print_fn gets the module after it */
    void (*print_fn)(void *user, const char *pass, const char *text);
    void *print_user;
    const char *cache_dir;   /* NULL: $TIRX_CACHE_DIR, else $XDG_CACHE_HOME/tirx, else ~/.cache/tirx */
    int no_cache;            /* neither read nor write the cache */
    int no_binary;           /* tirx_compile stops after generating CUDA (no toolkit, no cache) */
    /* More NVRTC options ("-lineinfo", "--ftz=false"), appended after tirx's own
     * and after those of $TIRX_NVRTC_EXTRA_OPTS (split as a shell splits words),
     * so they override both. NVRTC only: nvcc does not get them. */
    const char *const *nvrtc_options;
    size_t n_nvrtc_options;
    /* tirx_compile refuses a text longer than this many bytes (an error,
     * E0007); 0: TIRX_MAX_INPUT_SIZE_DEFAULT. */
    size_t max_input_size;
    /* T.cuda.iket calls record per-warp events (tirx_function_trace); without
     * it they generate nothing */
    int trace;
    /* Directories searched, in order, for the .tirx files a script imports,
     * after the importing file's own directory (tirx_parse_with); none may be
     * NULL (TIRX_ERR_USAGE) */
    const char *const *import_dirs;
    size_t n_import_dirs;
};

/* The input size limit unless raised (64 MiB). Whatever the limit, no input
 * of 4 GiB or more is taken. */
#define TIRX_MAX_INPUT_SIZE_DEFAULT ((size_t)64 << 20)

/* Runs passes over a parsed, verified module, in place: `passes` is a
 * comma-separated list of pass names ("LowerTIRxOpaque,FlattenBuffer"), or
 * NULL for the whole pipeline (docs/pipeline.md). Errors are diagnostics on
 * the module. Returns TIRX_OK, TIRX_ERR_INPUT or TIRX_ERR_USAGE (an unknown
 * pass name, also reported as a diagnostic; no pass runs and the module stays
 * usable; or a module tirx_compile made, which is already lowered). */
TIRX_API tirx_status tirx_lower(tirx_module *m, const char *passes, const tirx_options *o);

/* Compiles `len` bytes of TIRx script through the whole pipeline, CUDA code
 * generation and NVRTC (or nvcc) to a cubin for o->arch (required;
 * tirx_device_arch gives a GPU's). The text is parsed (its imports found in
 * o->import_dirs as tirx_parse_with says), then the on-disk cache is
 * consulted before anything is lowered: its key hashes the text, the file
 * name, the names and contents of the files it imports, the defines, the
 * options, the arch, the toolkit and the tirx build. Always sets *out (free it with
 * tirx_module_free), but to NULL on TIRX_ERR_NOMEM; it carries the
 * diagnostics when compiling failed.
 * Returns TIRX_OK, TIRX_ERR_INPUT (see the diagnostics; a CUDA compile error
 * is one too, with the compiler's log), TIRX_ERR_USAGE, or TIRX_ERR_CUDA (no
 * NVRTC, nvcc or driver where one was needed). Thread-safe. */
TIRX_API tirx_status tirx_compile(const char *text, size_t len, const char *filename,
                                  const tirx_define *defines, size_t ndefines,
                                  const tirx_options *o, tirx_module **out);

/* What a compiled module holds; NULL (size 0) when it does not. The strings
 * are owned by the module. */
TIRX_API const char *tirx_module_cuda(const tirx_module *m);   /* the generated CUDA C++ */
TIRX_API const char *tirx_module_ptx(const tirx_module *m);    /* with o->want_ptx */
TIRX_API const void *tirx_module_cubin(const tirx_module *m, size_t *size);
TIRX_API const char *tirx_module_log(const tirx_module *m);    /* the CUDA compiler's log */
/* The host functions as TIRx script (argument checks, launches). Free it with tirx_free. */
TIRX_API char *tirx_module_host(const tirx_module *m);
/* 1 when the module came from the cache, 0 when it was compiled now. */
TIRX_API int tirx_module_cached(const tirx_module *m);

/* Resource usage of one kernel: ptxas's report in the compiler's log, or, for a
 * kernel the log does not report (some NVRTC builds leave the report out of
 * all but a process's first compile), what the cubin records. The cubin has
 * no spill figures: both spill fields are then -1 (unknown). */
typedef struct tirx_kernel_stats {
    const char *name;     /* owned by the module */
    int registers;        /* per thread */
    int spill_store_bytes, spill_load_bytes; /* -1: unknown (the report was not in the log) */
    int stack_bytes;
    int smem_bytes;       /* static shared memory */
    long long dyn_smem_bytes; /* the launch's dynamic shared memory; -1 when it is not constant */
    /* ptxas's "Potential Performance Loss" note (e.g. "wgmma.mma_async
     * instructions are serialized due to ..."), owned by the module; NULL
     * when it printed none */
    const char *perf_loss;
} tirx_kernel_stats;

TIRX_API size_t tirx_kernel_count(const tirx_module *m);
/* Fills *out with kernel i (0-based); returns 0, or -1 if i is out of range. */
TIRX_API int tirx_kernel_stats_get(const tirx_module *m, size_t i, tirx_kernel_stats *out);

/* ---------------------------------------------------------------- launching */

struct DLTensor; /* DLPack 1.x (dlpack.h): tensors are passed as DLTensor pointers */

typedef enum tirx_arg_kind {
    TIRX_ARG_TENSOR,    /* a T.Buffer param: a DLTensor on the GPU */
    TIRX_ARG_INT,       /* an integer param */
    TIRX_ARG_FLOAT,     /* a floating-point param (rounded to a narrow float's format) */
    TIRX_ARG_TENSORMAP, /* a T.TensorMap() param: 128 bytes of encoded CUtensorMap, any
                           alignment */
} tirx_arg_kind;

typedef struct tirx_arg {
    tirx_arg_kind kind;
    union {
        const struct DLTensor *tensor;
        long long i;
        double f;
        const void *tensormap;
    } v;
} tirx_arg;

static inline tirx_arg tirx_arg_tensor(const struct DLTensor *t)
{
    tirx_arg a;
    a.kind = TIRX_ARG_TENSOR, a.v.tensor = t;
    return a;
}
static inline tirx_arg tirx_arg_int(long long i)
{
    tirx_arg a;
    a.kind = TIRX_ARG_INT, a.v.i = i;
    return a;
}
static inline tirx_arg tirx_arg_float(double f)
{
    tirx_arg a;
    a.kind = TIRX_ARG_FLOAT, a.v.f = f;
    return a;
}

/* A launch failure: one line naming the function, the argument and what was wrong. */
typedef struct tirx_error {
    char message[512];
} tirx_error;

/* The cubin's SASS, as the toolkit's `nvdisasm -c` prints it, into *sass
 * (free it with tirx_free). nvdisasm is $TIRX_NVDISASM, else the toolkit's
 * ($CUDA_HOME/bin, $CUDA_PATH/bin), one on PATH, or the pip package
 * nvidia-cuda-nvdisasm's. TIRX_ERR_USAGE for a module without a cubin
 * (no_binary), TIRX_ERR_CUDA without nvdisasm (err says where it looked). */
TIRX_API tirx_status tirx_module_sass(const tirx_module *m, char **sass, tirx_error *err);

/* That SASS counted by script line, into *lines (free it with tirx_free):
 * per kernel, `NAME: N instructions`, then per file and line of the script
 * the instructions the line became, its most frequent opcodes and its text.
 * A static profile: instructions in the binary, not instructions executed.
 * The lines come from the line table of a module compiled with lineinfo
 * (without it, every instruction is under "(no line)"). The errors of
 * tirx_module_sass. */
TIRX_API tirx_status tirx_module_sass_lines(const tirx_module *m, char **lines, tirx_error *err);

/* A GPU for programs that have no CUDA runtime of their own (tests, small
 * tools): its primary context, memory and copies. Programs that already
 * hold device memory (PyTorch, CUDA runtime) pass their pointers in
 * DLTensors and need none of this. TIRX_ERR_CUDA without a driver or GPU. */
typedef struct tirx_device tirx_device;

TIRX_API tirx_status tirx_device_open(int ordinal, tirx_device **out, tirx_error *err);
TIRX_API void tirx_device_close(tirx_device *d);
/* The architecture to compile for: "sm_80", "sm_90a" (H100/H200), "sm_100a", ... */
TIRX_API const char *tirx_device_arch(const tirx_device *d);
TIRX_API tirx_status tirx_device_alloc(tirx_device *d, size_t bytes, void **out, tirx_error *err);
TIRX_API void tirx_device_free(tirx_device *d, void *p);
TIRX_API tirx_status tirx_copy_to_device(tirx_device *d, void *dst, const void *src, size_t bytes,
                                         tirx_error *err);
TIRX_API tirx_status tirx_copy_to_host(tirx_device *d, void *dst, const void *src, size_t bytes,
                                       tirx_error *err);
/* Waits for `stream`, or for all of the device's work when stream is NULL. */
TIRX_API tirx_status tirx_device_synchronize(tirx_device *d, void *stream, tirx_error *err);

typedef struct tirx_function tirx_function;

/* A function of a compiled module by its source name, loaded on first use
 * into GPU 0's primary context (the one PyTorch uses). The handle is owned
 * by the module. Thread-safe. TIRX_ERR_USAGE for an unknown name,
 * TIRX_ERR_CUDA without a driver or GPU. */
TIRX_API tirx_status tirx_get_function(tirx_module *m, const char *name, tirx_function **out,
                                       tirx_error *err);
/* The number of arguments a launch of the function takes (0 for NULL). */
TIRX_API size_t tirx_function_num_args(const tirx_function *f);
/* Runs the function's host part on `args`: checks each argument (count,
 * kind, dtype, ndim, shape, strides, device, alignment), binds symbolic
 * shapes, encodes TMA descriptors and launches its kernels on `stream` (a
 * CUstream; NULL: the legacy default stream). Asynchronous like a CUDA
 * launch. TIRX_ERR_USAGE when an argument does not match (err says which and
 * how); TIRX_ERR_CUDA when the driver fails. Thread-safe. */
TIRX_API tirx_status tirx_launch(tirx_function *f, const tirx_arg *args, size_t nargs,
                                 void *stream, tirx_error *err);
/* Runs the function once as tirx_launch does, on the legacy default stream,
 * and waits for it. Each kernel it launches that has T.cuda.iket calls
 * (compiled with options.trace) gets a buffer of records_per_warp event
 * records (0: 4096) for each of its warps; *json receives the events as a
 * Chrome / Perfetto trace (docs/cli.md, "Tracing"; free it with tirx_free).
 * A warp's records past the capacity are counted, not kept.
 * TIRX_ERR_USAGE as tirx_launch, and when no kernel records events. */
TIRX_API tirx_status tirx_launch_trace(tirx_function *f, const tirx_arg *args, size_t nargs,
                                       size_t records_per_warp, char **json, tirx_error *err);
typedef struct tirx_trace_options {
    size_t records_per_warp; /* 0: 4096 */
    unsigned svg_sms;        /* SMs the SVG timeline draws, the lowest-numbered (0: 4) */
} tirx_trace_options;
/* tirx_launch_trace with options (NULL: the defaults), writing the events of
 * the one traced run as a Chrome / Perfetto trace into *json and as an SVG
 * timeline (a row per warp, grouped by SM, spans coloured by name, a legend
 * and a time axis in microseconds) into *svg; either may be NULL (not
 * wanted), not both. Free each with tirx_free. */
TIRX_API tirx_status tirx_launch_trace_to(tirx_function *f, const tirx_arg *args, size_t nargs,
                                          const tirx_trace_options *options, char **json,
                                          char **svg, tirx_error *err);
/* Checks `args` against function `name` of a compiled module as tirx_launch
 * does (count, kind, dtype, ndim, shape, strides, alignment, the launch
 * configuration they imply), without a GPU: nothing is loaded or launched,
 * TMA descriptors are checked, not encoded, and a tensor may live anywhere
 * (host arrays stand in for GPU tensors). Works on a module compiled with
 * no_binary. TIRX_OK, or TIRX_ERR_USAGE with err naming the argument.
 * Thread-safe. */
TIRX_API tirx_status tirx_check_args(const tirx_module *m, const char *name, const tirx_arg *args,
                                     size_t nargs, tirx_error *err);
/* Runs function `name` of a compiled module on the CPU, in the simulator
 * (docs/simulator.md): the host part checks the arguments as for a launch,
 * then every kernel it launches runs with the GPU's semantics, every CTA and
 * every thread, reading and writing the tensors' host memory (kDLCPU
 * tensors only). Needs no GPU and no CUDA toolkit: compile with no_binary.
 * TIRX_ERR_USAGE when an argument does not match, and when the kernel does
 * something wrong (an out-of-bounds access, a read of uninitialised shared
 * memory, an access with no barrier between two threads, a deadlock) or
 * something the simulator does not model: err names the .tirx line, the
 * thread and the CTA. Thread-safe. */
TIRX_API tirx_status tirx_simulate(tirx_module *m, const char *name, const tirx_arg *args,
                                   size_t nargs, tirx_error *err);
/* tirx_simulate of a module compiled with options.trace (and no_binary),
 * writing its T.cuda.iket events as tirx_launch_trace_to does (JSON, SVG or
 * both; free each with tirx_free). Time in the simulator is modelled: a
 * thread's %globaltimer counts the statements it executed, one nanosecond
 * each (docs/simulator.md). TIRX_ERR_USAGE as tirx_simulate, and when the
 * module records no events. */
TIRX_API tirx_status tirx_simulate_trace_to(tirx_module *m, const char *name,
                                            const tirx_arg *args, size_t nargs,
                                            const tirx_trace_options *options, char **json,
                                            char **svg, tirx_error *err);

/* What tirx_device_info reports. */
typedef struct tirx_device_info {
    char name[128];     /* "NVIDIA H200" */
    char arch[16];      /* as tirx_device_arch */
    int sm_count;
    long long l2_bytes;
    int driver_version; /* e.g. 13000 */
} tirx_device_info;

/* A NULL d fills *out with zeros (empty name and arch); a NULL out is ignored. */
TIRX_API void tirx_device_get_info(const tirx_device *d, tirx_device_info *out);

/* ---------------------------------------------------------------- benchmarking */

/* How tirx_bench_time measures (docs/cli.md, "tirx bench": the method).
 * Zero-initialise: every zero field takes its default. */
typedef struct tirx_bench_options {
    double budget_ms;  /* GPU time of the timed runs, estimated from a few runs; 0: 1000 */
    double warmup_ms;  /* GPU time of the untimed warm-up runs; 0: 100, negative: none */
    int min_reps;      /* 0: 10 */
    int max_reps;      /* 0: 10000 */
    int no_flush;      /* leave L2 warm (default: write twice the L2 size before each run) */
    int no_hold;       /* do not hold the stream while a chunk of runs is enqueued */
    void *stream;      /* a CUstream; NULL: a stream of its own */
} tirx_bench_options;

/* The figures are milliseconds of GPU time of one run, from its CUDA events. */
typedef struct tirx_bench_stats {
    int reps;
    double min_ms, median_ms, p90_ms, mean_ms, max_ms;
    size_t flush_bytes; /* the L2 flush before each run; 0 with no_flush */
    int held;           /* 1: no run's events include launch overhead (the stream was held) */
} tirx_bench_stats;

/* One run of the work to time: enqueue it on `stream` (asynchronously). */
typedef tirx_status (*tirx_bench_fn)(void *user, void *stream, tirx_error *err);

/* Times fn on the device: one first run, a warm-up, then runs each preceded
 * by an L2 flush and bracketed by its own CUDA events, their count set by
 * the budget; fn's own status and message are returned if it fails. */
TIRX_API tirx_status tirx_bench_time(tirx_device *d, tirx_bench_fn fn, void *user,
                                     const tirx_bench_options *o, tirx_bench_stats *out,
                                     tirx_error *err);
/* The statistics of n >= 1 samples in milliseconds (sorted in place): the
 * median and the 90th percentile interpolate linearly between the closest
 * ranks (numpy's default). TIRX_ERR_USAGE when n is 0. */
TIRX_API tirx_status tirx_bench_summarize(double *ms, size_t n, tirx_bench_stats *out);

/* ---------------------------------------------------------------- cuBLAS, the reference GEMM */

/* C = A @ B, row-major: A [M, K], C [M, N], and B [N, K] ("nt", B K-major)
 * or, with b_kn, B [K, N] ("nn"); f32 accumulation. dtype "bf16" and "fp16"
 * (C the same type), "fp8" (float8_e4m3fn A and B, per-tensor scales, bfloat16
 * C; nt only), "tf32" (float32 A, B and C on tensor cores). */
typedef struct tirx_gemm_problem {
    long long m, n, k;
    const char *dtype;
    int b_kn;
    float scale_a, scale_b; /* fp8: per-tensor scales of A and B (0: 1) */
} tirx_gemm_problem;

typedef struct tirx_cublas_gemm tirx_cublas_gemm;

/* Plans the GEMM with cuBLASLt (dlopen'd: libcublasLt.so.13, .12 or .so, or
 * $TIRX_LIBCUBLASLT) and its heuristic's best algorithm. TIRX_ERR_CUDA
 * without cuBLASLt or a GPU, TIRX_ERR_USAGE for a GEMM it cannot run. */
TIRX_API tirx_status tirx_cublas_gemm_create(tirx_device *d, const tirx_gemm_problem *p,
                                             tirx_cublas_gemm **out, tirx_error *err);
/* Enqueues C = A @ B on `stream` (a CUstream; NULL: the legacy default stream). */
TIRX_API tirx_status tirx_cublas_gemm_run(tirx_cublas_gemm *g, const void *a, const void *b,
                                          void *c, void *stream, tirx_error *err);
/* The library version and algorithm chosen, one line, owned by g. */
TIRX_API const char *tirx_cublas_gemm_describe(const tirx_cublas_gemm *g);
TIRX_API void tirx_cublas_gemm_free(tirx_cublas_gemm *g);

#ifdef __cplusplus
}
#endif
#endif
