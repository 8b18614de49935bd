/* Runtime layer: everything tirx does with CUDA at run time. libcuda and
 * libnvrtc are dlopen'd on first use (their entry points come from one table
 * each, cuda.def and nvrtc.def), so libtirx links against neither and reports
 * a clean status on machines without a driver, a GPU or NVRTC. The layer
 * compiles CUDA C++ to cubin with NVRTC (nvcc as an option), caches the
 * results on disk, loads modules into the device's primary context (the one
 * PyTorch uses, so its pointers are valid here), launches kernels on the
 * caller's stream and encodes TMA tensor maps. This header needs no CUDA
 * header: handles are opaque and streams are `void *` (a CUstream).
 *
 * Every call that can fail returns an RtStatus and fills an RtError when one
 * is given (it may be NULL). Nothing here prints or exits. Prefix: rt_. */
#ifndef TX_RUNTIME_H
#define TX_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/base.h"

/* ---- status and errors ---- */

/* X(NAME, short name) */
#define RT_STATUSES(X)                                                        \
    X(OK, "ok")                                                               \
    X(ERR_NO_DRIVER, "no CUDA driver")      /* libcuda.so.1 missing or a stub */ \
    X(ERR_DRIVER_TOO_OLD, "CUDA driver too old")                              \
    X(ERR_NO_GPU, "no GPU")                                                   \
    X(ERR_NO_NVRTC, "no NVRTC")                                               \
    X(ERR_NO_NVCC, "no nvcc")                                                 \
    X(ERR_NO_NVDISASM, "no nvdisasm")       /* the disassembler (tirx_module_sass only) */ \
    X(ERR_NO_CUBLAS, "no cuBLASLt")         /* libcublasLt missing (comparisons only) */ \
    X(ERR_COMPILE, "compile error")         /* the source did not compile: see the log */ \
    X(ERR_CUDA, "CUDA error")               /* a driver or NVRTC call failed */ \
    X(ERR_USAGE, "bad argument")            /* unknown arch, launch over limits, bad tensor map */ \
    X(ERR_IO, "I/O error")                  /* cache or temporary files */ \
    X(ERR_NO_NVJITLINK, "no nvJitLink")     /* libnvJitLink missing (NVSHMEM modules only) */ \
    X(ERR_NO_NVSHMEM, "no NVSHMEM")         /* a module uses it: not installed, not initialised */

typedef enum RtStatus {
#define X(name, text) RT_##name,
    RT_STATUSES(X)
#undef X
} RtStatus;

typedef struct RtError {
    RtStatus status;
    char message[512]; /* one line, no trailing newline */
} RtError;

const char *rt_status_name(RtStatus s);

/* ---- availability ---- */

/* Loads and initialises the CUDA driver, once per process ($TIRX_LIBCUDA
 * overrides the library, default libcuda.so.1). RT_ERR_NO_DRIVER,
 * RT_ERR_DRIVER_TOO_OLD or RT_ERR_NO_GPU say why it is not usable. */
RtStatus rt_driver_check(RtError *err);
/* The same checks on the library at `path`, loaded for this call only (for
 * tests and diagnostics). */
RtStatus rt_driver_probe(const char *path, RtError *err);
/* Loads NVRTC once per process ($TIRX_LIBNVRTC, else libnvrtc.so.13, .12,
 * libnvrtc.so) and reports its version. */
RtStatus rt_nvrtc_version(int *major, int *minor, RtError *err);

/* ---- SHA-256 (cache keys and entry checksums) ---- */

typedef struct RtDigest {
    uint8_t bytes[32];
} RtDigest;

typedef struct RtSha256 {
    uint32_t state[8];
    uint64_t total;
    uint8_t block[64];
    size_t fill;
} RtSha256;

void rt_sha256_init(RtSha256 *s);
void rt_sha256_update(RtSha256 *s, const void *data, size_t n);
RtDigest rt_sha256_final(RtSha256 *s);
RtDigest rt_sha256(const void *data, size_t n);
/* Lower-case hex, NUL-terminated. */
void rt_digest_hex(const RtDigest *d, char out[65]);

/* ---- cache keys ---- */

/* A key is the SHA-256 of tagged, length-prefixed fields, so ("ab", "c") and
 * ("a", "bc") differ. rt_key_init already adds the cache format, the tirx
 * version and the identity of the tirx binary (a rebuilt compiler never hits
 * entries of an older build). */
typedef struct RtKey {
    RtSha256 sha;
} RtKey;

void rt_key_init(RtKey *k);
void rt_key_add(RtKey *k, const char *field, const void *data, size_t n);
/* s may be NULL, which differs from "". */
void rt_key_add_str(RtKey *k, const char *field, const char *s);
void rt_key_add_int(RtKey *k, const char *field, int64_t v);
RtDigest rt_key_final(RtKey *k);

/* ---- the on-disk cache ---- */

/* A cache is a directory of entries, one file per key, each a list of named
 * blobs. Entries are written to a temporary file and renamed into place, so
 * readers never see a partial entry; a truncated or corrupt file (checked by
 * magic, length, key and checksum) reads as a miss. Safe to use from several
 * threads and processes at once. */
typedef struct RtCache {
    char dir[4096];
} RtCache;

typedef struct RtBlob {
    const char *name;
    const void *data;
    size_t size;
} RtBlob;

typedef struct RtCacheEntry {
    RtBlob *blobs; /* point into storage */
    size_t nblobs;
    void *storage;
} RtCacheEntry;

/* dir NULL: $TIRX_CACHE_DIR, else $XDG_CACHE_HOME/tirx, else $HOME/.cache/tirx.
 * Creates the directory. */
RtStatus rt_cache_open(RtCache *c, const char *dir, RtError *err);
/* The file of a key's entry (whether or not it exists). */
RtStatus rt_cache_path(const RtCache *c, const RtDigest *key, char *buf, size_t size,
                       RtError *err);
/* true and a filled entry on a hit; false on a miss or an unreadable entry. */
bool rt_cache_get(const RtCache *c, const RtDigest *key, RtCacheEntry *out);
const RtBlob *rt_cache_entry_find(const RtCacheEntry *e, const char *name);
void rt_cache_entry_free(RtCacheEntry *e);
RtStatus rt_cache_put(const RtCache *c, const RtDigest *key, const RtBlob *blobs, size_t n,
                      RtError *err);

/* ---- compiling CUDA C++ ---- */

/* Both get --std=c++17, --ptxas-options=-v and the options below. NVRTC also
 * gets -default-device (a function without __device__ is a device function);
 * nvcc has no such option, so source meant for both annotates its functions. */
typedef enum RtCompiler {
    RT_NVRTC, /* in-process, the default */
    RT_NVCC,  /* nvcc run as a child process, -gencode=arch=compute_XX,code=sm_XX */
} RtCompiler;

/* Where NVSHMEM is, for compiling a module that uses it (docs/language.md,
 * "NVSHMEM"): the directory of nvshmem.h, the device library, and the CUDA
 * headers that nvshmem.h includes (cuda_runtime.h, cuda_fp16.h, libcu++). */
#define RT_NVSHMEM_MAX_INCLUDES 4
typedef struct RtNvshmem {
    char include[RT_NVSHMEM_MAX_INCLUDES][1024]; /* -I directories, nvshmem.h's first */
    int ninclude;
    char device_lib[1024]; /* libnvshmem_device.a */
} RtNvshmem;

/* Finds NVSHMEM: the directory $TIRX_NVSHMEM_HOME when it is set (nothing
 * else is tried), else the nvidia-nvshmem pip package of the Python that
 * loaded libtirx, of $VIRTUAL_ENV or $CONDA_PREFIX, of the user's and the
 * system's site-packages, else /usr/local/nvshmem, /opt/nvidia/nvshmem and
 * /usr/local (each with include/nvshmem.h and lib/libnvshmem_device.a). The
 * CUDA headers: $CUDA_HOME/include, $CUDA_PATH/include, the toolkit of the
 * NVRTC in use, /usr/local/cuda/include, the nvidia/cu13 pip headers beside
 * NVSHMEM's. RT_ERR_NO_NVSHMEM says what is missing where. */
RtStatus rt_nvshmem_find(RtNvshmem *out, RtError *err);

/* Adds NVSHMEM's directories and the identity (size, time, inode) of
 * nvshmem.h and the device library to a cache key. */
void rt_nvshmem_key_files(const RtNvshmem *n, RtKey *k);

/* Whether NVSHMEM is initialised in this process (libnvshmem_host.so.3
 * loaded and nvshmemx_init_status() at NVSHMEM_STATUS_IS_INITIALIZED);
 * RT_ERR_NO_NVSHMEM saying which part is missing. Loading a module that uses
 * NVSHMEM checks this, then runs nvshmemx_cumodule_init on it. */
RtStatus rt_nvshmem_check_initialised(RtError *err);

/* An in-memory header the source can #include by name (the prelude). */
typedef struct RtHeader {
    const char *name; /* a plain file name, no '/' */
    const char *text;
} RtHeader;

typedef struct RtCompileOptions {
    const char *arch;   /* "sm_80", "sm_90a", "sm_100a", ...: a real target */
    RtCompiler compiler;
    bool fast_math;     /* --use_fast_math; off by default */
    bool lineinfo;      /* -lineinfo */
    bool want_ptx;      /* also return the PTX */
    const RtHeader *headers;
    size_t nheaders;
    const char *const *defines; /* "NAME" or "NAME=VALUE" */
    size_t ndefines;
    const char *const *extra;   /* more compiler options, appended last */
    size_t nextra;
    const char *name;   /* the source's name in the log; NULL: "tirx.cu" */
    /* NVSHMEM (NVRTC only): the source is compiled to LTO IR (-rdc=true
     * -dlto), so is nvshmem_shim (CUDA that includes nvshmem.h), and
     * nvJitLink links both with the device library into the cubin. */
    const RtNvshmem *nvshmem;
    const char *nvshmem_shim;
    const RtCache *shim_cache; /* where the shim's LTO IR is kept (NULL: cache) */
    const char *nvcc;   /* RT_NVCC: NULL: $TIRX_NVCC, $CUDA_HOME/bin/nvcc, then PATH */
    const RtCache *cache; /* NULL: no caching */
} RtCompileOptions;

/* One kernel's resources: ptxas's report (`ptxas -v`, so it is there without
 * a GPU), or what the cubin records when the log has no report for it; the
 * cubin does not record spills, which are then -1 (unknown). */
typedef struct RtKernelStats {
    char *name;
    int registers, barriers;
    int smem_bytes, stack_bytes, spill_store_bytes, spill_load_bytes;
    /* ptxas's "Potential Performance Loss" note for the kernel (its first),
     * e.g. wgmma serialized; NULL when the log has none */
    char *perf_loss;
} RtKernelStats;

typedef struct RtBinary {
    unsigned char *cubin;
    size_t cubin_size;
    char *ptx;          /* NUL-terminated; NULL unless want_ptx */
    size_t ptx_size;    /* including the NUL */
    char *log;          /* the compiler's log, NUL-terminated; set on success and on RT_ERR_COMPILE */
    RtKernelStats *kernels;
    size_t nkernels;
    bool cached;        /* read from the cache */
} RtBinary;

/* The identity of the NVRTC or nvcc a compile with these options would use
 * (version and library or executable), for the keys of caches above this
 * layer. RT_ERR_NO_NVRTC / RT_ERR_NO_NVCC when there is none. */
RtStatus rt_toolkit_id(const RtCompileOptions *o, char *buf, size_t size, RtError *err);
/* Checks an architecture name: sm_<digits> with an optional 'a' or 'f'. */
RtStatus rt_arch_check(const char *arch, RtError *err);
/* The SASS of a cubin (disasm.c: nvdisasm -c), malloc'd into *sass;
 * RT_ERR_NO_NVDISASM without the program. */
RtStatus rt_disassemble(const void *cubin, size_t size, char **sass, RtError *err);

/* Compiles `source` to a cubin for opts->arch. On RT_ERR_COMPILE out->log has
 * the compiler's messages. Thread-safe. Free the result with rt_binary_free. */
RtStatus rt_compile(const char *source, const RtCompileOptions *opts, RtBinary *out,
                    RtError *err);
void rt_binary_free(RtBinary *b);
/* ptxas -v lines of a compile log → per-kernel stats (heap; free with
 * rt_kernel_stats_free), with the performance-loss notes ptxas prints before
 * the kernels' reports. A note that names no function ("'setmaxnreg' ignored
 * ...") goes to every kernel whose definition in the CUDA `source` uses
 * setmaxnreg (every kernel when `source` is NULL or does not show it). Lines
 * it does not know are skipped. */
void rt_parse_ptxas_log(const char *log, const char *source, RtKernelStats **out, size_t *n);
/* The kernels of a cubin (cubin.c) with the resources the cubin records:
 * registers, barriers, static shared memory and stack frame; spills -1.
 * false and no kernels when the cubin is malformed or truncated; nothing
 * outside [cubin, cubin + size) is read. */
bool rt_cubin_kernels(const void *cubin, size_t size, RtKernelStats **out, size_t *n);
/* Each kernel's stats: the log's ptxas report (the CUDA `source` as for
 * rt_parse_ptxas_log), and for every kernel of the cubin the log does not
 * report, the cubin's figures (log, source and cubin may be NULL). */
void rt_kernel_stats(const char *log, const char *source, const void *cubin, size_t cubin_size,
                     RtKernelStats **out, size_t *n);
void rt_kernel_stats_free(RtKernelStats *k, size_t n);

/* ---- devices, memory, events ---- */

typedef struct RtDevice RtDevice;
typedef uint64_t RtDevPtr;

typedef struct RtDeviceInfo {
    int ordinal;
    int cc_major, cc_minor;
    int sm_count;
    int max_threads_per_block;
    int smem_per_block_optin; /* the most dynamic + static shared memory a block can opt in to */
    int l2_bytes;
    int driver_version;       /* e.g. 13000 */
    bool cluster_launch;
    char name[128];
    char arch[16];            /* the target to build for: "sm_90a" on an H100/H200 */
} RtDeviceInfo;

RtStatus rt_device_count(int *n, RtError *err);
/* TIRX_KERNEL_TIMEOUT: the seconds a kernel may run (a wait for the GPU, a
 * simulated launch) before it is an error; 0 when unset, empty or 0 (no
 * limit). RT_ERR_USAGE for a value that is not a number from 0 to 1e6. */
RtStatus rt_kernel_timeout(double *seconds, RtError *err);
/* Seconds on a monotonic clock. */
double rt_seconds_now(void);
/* Retains the device's primary context and makes it current on this thread. */
RtStatus rt_device_open(int ordinal, RtDevice **out, RtError *err);
void rt_device_close(RtDevice *d);
const RtDeviceInfo *rt_device_info(const RtDevice *d);
/* A new stream (a CUstream) of the device's context, non-blocking with
 * respect to the legacy default stream. */
RtStatus rt_stream_create(RtDevice *d, void **out, RtError *err);
void rt_stream_destroy(RtDevice *d, void *stream);
/* Waits for `stream`, or for all work of the context when stream is NULL. */
RtStatus rt_synchronize(RtDevice *d, void *stream, RtError *err);

RtStatus rt_mem_alloc(RtDevice *d, size_t bytes, RtDevPtr *out, RtError *err);
void rt_mem_free(RtDevice *d, RtDevPtr p);
RtStatus rt_memcpy_htod(RtDevice *d, RtDevPtr dst, const void *src, size_t bytes, RtError *err);
RtStatus rt_memcpy_dtoh(RtDevice *d, void *dst, RtDevPtr src, size_t bytes, RtError *err);
RtStatus rt_memset8(RtDevice *d, RtDevPtr dst, uint8_t value, size_t bytes, RtError *err);
/* Enqueues a fill of `count` 32-bit words on `stream`. */
RtStatus rt_memset32_async(RtDevice *d, RtDevPtr dst, uint32_t value, size_t count, void *stream,
                           RtError *err);
/* Page-locked host memory that kernels can read and write through *dev. */
RtStatus rt_host_alloc_mapped(RtDevice *d, size_t bytes, void **host, RtDevPtr *dev, RtError *err);
void rt_host_free(RtDevice *d, void *host);

typedef struct RtEvent RtEvent;
RtStatus rt_event_create(RtDevice *d, RtEvent **out, RtError *err);
RtStatus rt_event_record(RtEvent *e, void *stream, RtError *err);
/* Waits for `end`, then the time between the two records. */
RtStatus rt_event_elapsed_ms(RtEvent *start, RtEvent *end, float *ms, RtError *err);
void rt_event_destroy(RtEvent *e);

/* ---- cuBLASLt: the reference GEMM of benchmarks ---- */

/* libcublasLt is dlopen'd on first use, once per process ($TIRX_LIBCUBLASLT,
 * else libcublasLt.so.13, .12, libcublasLt.so); RT_ERR_NO_CUBLAS without it.
 * Reports the library's version (e.g. 130001). */
RtStatus rt_blas_version(size_t *version, RtError *err);

/* C = A @ B with row-major A [M, K], C [M, N] and B [N, K] ("nt", B given
 * K-major) or B [K, N] (b_kn, "nn"), f32 accumulation. dtype: "bf16" and
 * "fp16" (C the same), "fp8" (e4m3 in, per-tensor scales, bf16 C), "tf32"
 * (float32 in and out, tensor cores). */
typedef struct RtGemmSpec {
    int64_t m, n, k;
    const char *dtype;
    bool b_kn;
    float scale_a, scale_b; /* fp8 only: the values of the scale pointers (0: 1) */
} RtGemmSpec;

typedef struct RtBlasGemm RtBlasGemm;

/* Describes the GEMM to cuBLASLt and keeps its heuristic's best algorithm
 * (cublasLtMatmulAlgoGetHeuristic, 32 MiB of workspace allowed).
 * RT_ERR_USAGE for an unknown dtype or a GEMM cuBLASLt has no algorithm for. */
RtStatus rt_blas_gemm_create(RtDevice *d, const RtGemmSpec *spec, RtBlasGemm **out, RtError *err);
/* Enqueues the GEMM on `stream`. */
RtStatus rt_blas_gemm_run(RtBlasGemm *g, RtDevPtr a, RtDevPtr b, RtDevPtr c, void *stream,
                          RtError *err);
/* The algorithm, e.g. "cuBLASLt 130001 algo 66 tile 27 stages 19 split-k 1". */
const char *rt_blas_gemm_algo(const RtBlasGemm *g);
void rt_blas_gemm_destroy(RtBlasGemm *g);

/* ---- modules and launches ---- */

typedef struct RtModule RtModule;
typedef struct RtFunction RtFunction;

/* What the loaded kernel uses (cuFuncGetAttribute). */
typedef struct RtResources {
    int registers;         /* per thread */
    int local_bytes;       /* per thread: stack frame and spills */
    int static_smem_bytes;
    int const_bytes;
    int max_threads_per_block;
    int ptx_version, binary_version; /* e.g. 90 */
} RtResources;

/* image: a cubin, or NUL-terminated PTX that the driver JIT-compiles (the
 * JIT's error log goes into the message). */
RtStatus rt_module_load(RtDevice *d, const void *image, RtModule **out, RtError *err);
void rt_module_unload(RtModule *m);
/* A kernel of the module by its (extern "C") name; owned by the module.
 * Thread-safe. */
RtStatus rt_module_function(RtModule *m, const char *name, RtFunction **out, RtError *err);
const RtResources *rt_function_resources(const RtFunction *f);
/* The address and size of a __device__ variable of the module;
 * RT_ERR_USAGE when it has none of that name. */
RtStatus rt_module_global(RtModule *m, const char *name, RtDevPtr *addr, size_t *bytes,
                          RtError *err);

/* ---- trace records (T.cuda.iket under the trace option) ---- */

/* The events of kernel launches' record buffers (the layout tx_trace_event
 * of the CUDA prelude writes: [0] records per warp, [1] warp slots, then per
 * slot {count | smid << 32, records {globaltimer, payload << 32 | name << 3 |
 * kind}}), decoded once and rendered two ways: a Chrome / Perfetto trace
 * (a track per warp in a process per SM) and an SVG timeline (a row per
 * warp, grouped by SM). Marks are instants; a range_start/range_end pair (by
 * token) and a push/pop pair are spans. Times are nanoseconds from the
 * earliest record of the first launch. */
typedef struct RtTraceEvent {
    uint64_t t, dur;      /* dur: 0 for a mark */
    uint32_t track, name; /* indices into RtTrace.tracks and RtTrace.names */
    uint32_t payload, end_payload;
    uint8_t span;         /* else a mark */
    uint8_t depth;        /* ranges of the warp open around this span */
} RtTraceEvent;
typedef struct RtTraceTrack {
    uint64_t tid;         /* launch << 32 | warp slot */
    uint64_t cta, warp;
    uint32_t sm, kernel;  /* kernel: an offset into RtTrace.text */
} RtTraceTrack;
typedef struct RtTrace {
    TX_VEC(RtTraceEvent) events;
    TX_VEC(RtTraceTrack) tracks;
    TX_VEC(uint32_t) names; /* distinct event names: offsets into text */
    TxBuf text;             /* NUL-terminated names */
    uint64_t t0;
    int launches;
    uint64_t dropped;  /* records past a warp's capacity */
    uint64_t unpaired; /* starts or pushes with no end, ends with no start */
} RtTrace;
/* Adds one launch of kernel: words of its buffer, names the NUL-separated
 * event names (names_len bytes), warps_per_cta from its block. */
void rt_trace_add(RtTrace *t, const char *kernel, const uint64_t *words, size_t nwords,
                  const char *names, size_t names_len, uint64_t warps_per_cta);
/* The JSON document ({"traceEvents": [...]}); the caller frees it. */
char *rt_trace_json(const RtTrace *t);
/* The SVG timeline of the tracks on the max_sms lowest-numbered SMs (0:
 * RT_TRACE_SVG_SMS); the caller frees it. */
enum { RT_TRACE_SVG_SMS = 4 };
char *rt_trace_svg(const RtTrace *t, unsigned max_sms);
/* Frees the events and leaves t empty. */
void rt_trace_free(RtTrace *t);

typedef struct RtLaunchConfig {
    unsigned grid[3], block[3];
    unsigned cluster[3];   /* all 0 (or 1): no cluster */
    size_t dyn_smem_bytes;
    void *stream;          /* the caller's CUstream; NULL: the legacy default stream */
    bool pdl;              /* programmatic dependent launch: the kernel may start before the
                            * previous one on the stream ends; it waits for that one's
                            * results with griddepcontrol.wait (sm_90+) */
} RtLaunchConfig;

/* Launches f with cuLaunchKernelEx. args[i] points at argument i (a
 * CUtensorMap argument: at an RtTensorMap). Raises the function's dynamic
 * shared memory limit when the launch asks for more than 48 KiB. Checks the
 * configuration against the device's limits first, naming what is wrong.
 * A cluster shape and cfg->pdl become launch attributes (cluster dimension,
 * programmatic stream serialization). Thread-safe. */
RtStatus rt_launch(RtFunction *f, const RtLaunchConfig *cfg, void **args, RtError *err);

/* ---- TMA tensor maps ---- */

/* X(NAME, CUtensorMapDataType value, bits an element takes in memory, kind).
 * Kinds: I integer, F float, P8 16 packed values in 8 bytes, P16 16 packed
 * values in a 16-byte slot (32-byte alignment, inner dimension of 128). */
#define RT_TMA_DTYPES(X)                                                      \
    X(UINT8, 0, 8, I) X(UINT16, 1, 16, I) X(UINT32, 2, 32, I) X(INT32, 3, 32, I) \
    X(UINT64, 4, 64, I) X(INT64, 5, 64, I) X(FLOAT16, 6, 16, F) X(FLOAT32, 7, 32, F) \
    X(FLOAT64, 8, 64, F) X(BFLOAT16, 9, 16, F) X(FLOAT32_FTZ, 10, 32, F)          \
    X(TFLOAT32, 11, 32, F) X(TFLOAT32_FTZ, 12, 32, F) X(16U4_ALIGN8B, 13, 4, P8) \
    X(16U4_ALIGN16B, 14, 8, P16) X(16U6_ALIGN16B, 15, 8, P16)

/* X(NAME, CUtensorMapSwizzle value, span in bytes) */
#define RT_TMA_SWIZZLES(X)                                                    \
    X(NONE, 0, 0) X(32B, 1, 32) X(64B, 2, 64) X(128B, 3, 128) X(128B_ATOM_32B, 4, 128) \
    X(128B_ATOM_32B_FLIP_8B, 5, 128) X(128B_ATOM_64B, 6, 128)

typedef enum RtTmaDtype {
#define X(name, value, bits, kind) RT_TMA_##name = value,
    RT_TMA_DTYPES(X)
#undef X
} RtTmaDtype;

typedef enum RtTmaSwizzle {
#define X(name, value, span) RT_TMA_SWIZZLE_##name = value,
    RT_TMA_SWIZZLES(X)
#undef X
} RtTmaSwizzle;

/* The CUDA enum values of interleave, L2 promotion and OOB fill. */
typedef enum { RT_TMA_INTERLEAVE_NONE, RT_TMA_INTERLEAVE_16B, RT_TMA_INTERLEAVE_32B } RtTmaInterleave;
typedef enum { RT_TMA_L2_NONE, RT_TMA_L2_64B, RT_TMA_L2_128B, RT_TMA_L2_256B } RtTmaL2Promotion;
typedef enum { RT_TMA_OOB_ZERO, RT_TMA_OOB_NAN } RtTmaOobFill;

/* A tiled tensor map, in CUDA's order: dimension 0 is the innermost. */
typedef struct RtTensorMapSpec {
    RtTmaDtype dtype;
    int rank;                     /* 1..5 */
    RtDevPtr global_address;      /* 16-byte aligned (32 with 32-byte interleave) */
    uint64_t global_dim[5];
    uint64_t global_strides[4];   /* bytes, of dimensions 1..rank-1 */
    uint32_t box_dim[5];          /* each 1..256 */
    uint32_t element_strides[5];  /* each 1..8; all 0: all 1 */
    RtTmaInterleave interleave;
    RtTmaSwizzle swizzle;
    RtTmaL2Promotion l2_promotion;
    RtTmaOobFill oob_fill;
} RtTensorMapSpec;

/* CUtensorMap: 128 opaque bytes; the driver needs 64-byte alignment, CUDA
 * 13's header declares 128. Passed to a kernel by value (a `const
 * __grid_constant__ CUtensorMap` parameter). */
typedef struct RtTensorMap {
    _Alignas(128) uint64_t opaque[16];
} RtTensorMap;

/* The driver's rules for a tiled map, checked on the CPU; the message names
 * the field, the dimension and the rule. */
RtStatus rt_tensor_map_check(const RtTensorMapSpec *s, RtError *err);
/* Checks, then cuTensorMapEncodeTiled. Needs the driver, not a context. */
RtStatus rt_tensor_map_encode(const RtTensorMapSpec *s, RtTensorMap *out, RtError *err);

#endif
