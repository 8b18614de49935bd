/* Unit tests of the runtime's compiler front: NVRTC compiles small
 * handwritten kernels for each target with the instructions that need it —
 * mma.sync (sm_80), wgmma and setmaxnreg (sm_90a), tcgen05.alloc (sm_100a) —
 * so ptxas validates them on a machine without a GPU; the same kernels for a
 * target that lacks them fail with the log naming the instruction. Also:
 * option errors, defines, fast-math, the in-memory prelude, the cubin cache
 * (a hit returns the same bytes; any change of input misses), ptxas -v stats,
 * nvcc as the compiler (when one is found) and compiles from two threads.
 * Without NVRTC the tests that need it are not run and the binary exits 77. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/internal.h"
#include "runtime/runtime.h"

/* The in-memory prelude: types, and a helper without __device__ (NVRTC's
 * -default-device makes it one). */
static const RtHeader prelude = {
    "tirx_test_prelude.h",
    "#pragma once\n"
    "typedef unsigned int u32;\n"
    "typedef unsigned long long u64;\n"
    "static inline u32 smem_addr(const void *p) { return (u32)__cvta_generic_to_shared(p); }\n",
};

static const char mma_kernel[] =
    "#include \"tirx_test_prelude.h\"\n"
    "extern \"C\" __global__ void k_mma(float *d, const u32 *a, const u32 *b) {\n"
    "  int t = threadIdx.x;\n"
    "  float c0 = 0, c1 = 0, c2 = 0, c3 = 0;\n"
    "  asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, \"\n"
    "               \"{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\"\n"
    "    : \"+f\"(c0), \"+f\"(c1), \"+f\"(c2), \"+f\"(c3)\n"
    "    : \"r\"(a[t*4]), \"r\"(a[t*4+1]), \"r\"(a[t*4+2]), \"r\"(a[t*4+3]), \"r\"(b[t*2]), \"r\"(b[t*2+1]));\n"
    "  d[t*4] = c0; d[t*4+1] = c1; d[t*4+2] = c2; d[t*4+3] = c3;\n"
    "}\n";

static const char wgmma_kernel[] =
    "#include \"tirx_test_prelude.h\"\n"
    "extern \"C\" __global__ void __launch_bounds__(256, 1) k_wgmma(float *d, u64 da, u64 db) {\n"
    "  float c0 = 0, c1 = 0, c2 = 0, c3 = 0;\n"
    "  if (threadIdx.x >= 128) {\n"
    "    asm volatile(\"setmaxnreg.dec.sync.aligned.u32 40;\");\n"
    "  } else {\n"
    "    asm volatile(\"setmaxnreg.inc.sync.aligned.u32 232;\");\n"
    "    asm volatile(\"wgmma.fence.sync.aligned;\");\n"
    "    asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %6, 0;\\n\"\n"
    "      \"wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, p, 1, 1, 0, 0;\\n}\"\n"
    "      : \"+f\"(c0), \"+f\"(c1), \"+f\"(c2), \"+f\"(c3) : \"l\"(da), \"l\"(db), \"r\"(0));\n"
    "    asm volatile(\"wgmma.commit_group.sync.aligned;\");\n"
    "    asm volatile(\"wgmma.wait_group.sync.aligned 0;\" ::: \"memory\");\n"
    "    int t = threadIdx.x;\n"
    "    d[t*4] = c0; d[t*4+1] = c1; d[t*4+2] = c2; d[t*4+3] = c3;\n"
    "  }\n"
    "}\n";

static const char tcgen05_kernel[] =
    "#include \"tirx_test_prelude.h\"\n"
    "extern \"C\" __global__ void k_tmem(u32 *out) {\n"
    "  __shared__ u32 slot;\n"
    "  if (threadIdx.x < 32) {\n"
    "    asm volatile(\"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;\"\n"
    "                 :: \"r\"(smem_addr(&slot)) : \"memory\");\n"
    "    asm volatile(\"tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\");\n"
    "  }\n"
    "  asm volatile(\"tcgen05.fence::before_thread_sync;\");\n"
    "  __syncthreads();\n"
    "  asm volatile(\"tcgen05.fence::after_thread_sync;\");\n"
    "  u32 taddr = slot;\n"
    "  if (threadIdx.x == 0) out[0] = taddr;\n"
    "  __syncthreads();\n"
    "  if (threadIdx.x < 32)\n"
    "    asm volatile(\"tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;\" :: \"r\"(taddr));\n"
    "}\n";

static const char divide_kernel[] =
    "#ifndef SCALE\n"
    "#error SCALE must be defined\n"
    "#endif\n"
    "extern \"C\" __global__ void k_div(float *o, const float *a, const float *b) {\n"
    "  int i = threadIdx.x;\n"
    "  o[i] = SCALE * a[i] / b[i];\n"
    "}\n";

static RtCompileOptions options(const char *arch)
{
    return (RtCompileOptions){.arch = arch, .lineinfo = true, .want_ptx = true,
                              .headers = &prelude, .nheaders = 1, .name = "test.cu"};
}

static bool is_elf(const RtBinary *b)
{
    return b->cubin && b->cubin_size > 4 && memcmp(b->cubin, "\x7f" "ELF", 4) == 0;
}

/* Compiles `source` for `arch`, expecting success and one kernel `name`. */
static void compile_ok(const char *source, const char *arch, const char *name)
{
    RtCompileOptions o = options(arch);
    RtBinary b;
    RtError err = {0};
    RtStatus s = rt_compile(source, &o, &b, &err);
    if (s != RT_OK)
        fail_msg("%s for %s: %s\n%s", name, arch, err.message, b.log ? b.log : "");
    assert_true(is_elf(&b));
    assert_false(b.cached);
    char target[32];
    snprintf(target, sizeof target, ".target %s", arch);
    assert_non_null(strstr(b.ptx, target));
    assert_int_equal(b.ptx[b.ptx_size - 1], '\0');
    assert_int_equal(b.nkernels, 1);
    assert_string_equal(b.kernels[0].name, name);
    assert_true(b.kernels[0].registers > 0);
    rt_binary_free(&b);
}

/* Compiles `source` for `arch`, expecting ptxas to reject `instruction`. */
static void compile_rejects(const char *source, const char *arch, const char *instruction)
{
    RtCompileOptions o = options(arch);
    RtBinary b;
    RtError err;
    assert_int_equal(rt_compile(source, &o, &b, &err), RT_ERR_COMPILE);
    assert_int_equal(err.status, RT_ERR_COMPILE);
    assert_null(b.cubin);
    assert_null(b.ptx);
    char expect[128];
    snprintf(expect, sizeof expect, "Instruction '%s", instruction);
    assert_non_null(strstr(b.log, expect));
    snprintf(expect, sizeof expect, "not supported on .target '%s'", arch);
    assert_non_null(strstr(b.log, expect));
    assert_non_null(strstr(err.message, "NVRTC could not compile test.cu for"));
    assert_non_null(strstr(err.message, "error"));
    rt_binary_free(&b);
}

static void test_mma_sm80(void **state)
{
    (void)state;
    compile_ok(mma_kernel, "sm_80", "k_mma");
}

static void test_wgmma_setmaxnreg_sm90a(void **state)
{
    (void)state;
    compile_ok(wgmma_kernel, "sm_90a", "k_wgmma");
}

static void test_tcgen05_sm100a(void **state)
{
    (void)state;
    compile_ok(tcgen05_kernel, "sm_100a", "k_tmem");
}

static void test_arch_gating(void **state)
{
    (void)state;
    compile_rejects(wgmma_kernel, "sm_80", "setmaxnreg");
    compile_rejects(wgmma_kernel, "sm_100a", "wgmma.fence");
    compile_rejects(tcgen05_kernel, "sm_90a", "tcgen05.alloc");
}

static void test_syntax_error(void **state)
{
    (void)state;
    RtCompileOptions o = options("sm_90a");
    o.name = "bad.cu";
    RtBinary b;
    RtError err;
    assert_int_equal(rt_compile("extern \"C\" __global__ void k( {}\n", &o, &b, &err), RT_ERR_COMPILE);
    assert_non_null(strstr(b.log, "bad.cu(1)"));
    assert_non_null(strstr(err.message, "bad.cu(1): error"));
    rt_binary_free(&b);
}

/* ptxas failing inside NVRTC (here on 4 MiB of static shared memory) gives
 * its reason in the message, which NVRTC's log lacks: taken from nvcc's
 * ptxas (skipped without nvcc). */
static void test_ptxas_reason(void **state)
{
    (void)state;
    char nvcc[4096];
    RtCompileOptions o = options("sm_90a");
    if (rt_nvcc_path(&o, nvcc, sizeof nvcc, NULL) != RT_OK)
        skip();
    RtBinary b;
    RtError err;
    assert_int_equal(rt_compile("extern \"C\" __global__ void k_big(char *o) {\n"
                                "  __shared__ char big[1 << 22];\n"
                                "  big[threadIdx.x] = 1;\n"
                                "  __syncthreads();\n"
                                "  o[threadIdx.x] = big[threadIdx.x + 4096];\n"
                                "}\n", &o, &b, &err),
                     RT_ERR_COMPILE);
    if (!strstr(err.message, "too much shared data"))
        fail_msg("no ptxas reason: %s", err.message);
    rt_binary_free(&b);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    const char *archs[] = {"sm_9", "compute_90a", "sm_90x", "sm_90aa", "", NULL};
    RtBinary b;
    RtError err;
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++) {
        RtCompileOptions o = options(archs[i]);
        assert_int_equal(rt_compile(mma_kernel, &o, &b, &err), RT_ERR_USAGE);
        assert_non_null(strstr(err.message, "unknown architecture"));
        assert_null(b.log);
    }
    RtHeader bad = {"../escape.h", "int x;"};
    RtCompileOptions o = options("sm_90a");
    o.headers = &bad;
    assert_int_equal(rt_compile(mma_kernel, &o, &b, &err), RT_ERR_USAGE);
    assert_non_null(strstr(err.message, "../escape.h"));
    const char *extra = "--no-such-option";
    o = options("sm_90a");
    o.extra = &extra;
    o.nextra = 1;
    assert_int_equal(rt_compile(mma_kernel, &o, &b, &err), RT_ERR_USAGE);
    assert_non_null(strstr(b.log, "--no-such-option"));
    rt_binary_free(&b);
}

static void test_defines_and_fast_math(void **state)
{
    (void)state;
    RtCompileOptions o = options("sm_90a");
    RtBinary b;
    RtError err;
    assert_int_equal(rt_compile(divide_kernel, &o, &b, &err), RT_ERR_COMPILE);
    assert_non_null(strstr(b.log, "SCALE must be defined"));
    rt_binary_free(&b);
    const char *define = "SCALE=3.0f";
    o.defines = &define;
    o.ndefines = 1;
    assert_int_equal(rt_compile(divide_kernel, &o, &b, &err), RT_OK);
    assert_non_null(strstr(b.ptx, "div.rn.f32"));
    rt_binary_free(&b);
    o.fast_math = true;
    assert_int_equal(rt_compile(divide_kernel, &o, &b, &err), RT_OK);
    assert_null(strstr(b.ptx, "div.rn.f32"));
    assert_non_null(strstr(b.ptx, "div.approx"));
    rt_binary_free(&b);
}

/* ---- the cache ---- */

static void remove_tree(const char *path)
{
    DIR *dir = opendir(path);
    if (!dir) {
        unlink(path);
        return;
    }
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            char child[4096];
            snprintf(child, sizeof child, "%s/%s", path, e->d_name);
            remove_tree(child);
        }
    }
    closedir(dir);
    rmdir(path);
}

static char *scratch_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    char *dir = malloc(4096);
    snprintf(dir, 4096, "%s/tirx-compile-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(dir));
    return dir;
}

static bool dir_is_empty(const char *path)
{
    DIR *dir = opendir(path);
    int entries = 0;
    while (dir && readdir(dir))
        entries++;
    if (dir)
        closedir(dir);
    return dir && entries == 2;
}

static void compile_cached(const RtCompileOptions *o, bool expect_cached, RtBinary *b)
{
    RtError err;
    assert_int_equal(rt_compile(divide_kernel, o, b, &err), RT_OK);
    assert_int_equal(b->cached, expect_cached);
}

static void test_cache(void **state)
{
    (void)state;
    char *dir = scratch_dir();
    RtCache cache;
    RtError err;
    assert_int_equal(rt_cache_open(&cache, dir, &err), RT_OK);
    const char *define = "SCALE=2.0f";
    RtCompileOptions o = options("sm_90a");
    o.defines = &define;
    o.ndefines = 1;
    o.cache = &cache;
    RtBinary first, again, other;
    compile_cached(&o, false, &first);
    compile_cached(&o, true, &again);
    assert_int_equal(again.cubin_size, first.cubin_size);
    assert_memory_equal(again.cubin, first.cubin, first.cubin_size);
    assert_string_equal(again.log, first.log);
    assert_string_equal(again.ptx, first.ptx);
    assert_int_equal(again.nkernels, 1);
    assert_int_equal(again.kernels[0].registers, first.kernels[0].registers);
    /* Every input is part of the key. */
    const char *define2 = "SCALE=4.0f";
    RtCompileOptions changed[4] = {o, o, o, o};
    changed[0].defines = &define2;
    changed[1].fast_math = true;
    changed[2].arch = "sm_100a";
    changed[3].lineinfo = false;
    for (int i = 0; i < 4; i++) {
        compile_cached(&changed[i], false, &other);
        rt_binary_free(&other);
    }
    /* Without PTX in the entry, a compile that wants PTX misses, one that does not hits. */
    o.want_ptx = false;
    compile_cached(&o, false, &other);
    assert_null(other.ptx);
    rt_binary_free(&other);
    compile_cached(&o, true, &other);
    rt_binary_free(&other);
    rt_binary_free(&first);
    rt_binary_free(&again);
    remove_tree(dir);
    free(dir);
}

/* ---- ptxas -v ---- */

static void test_ptxas_log(void **state)
{
    (void)state;
    const char *log =
        "ptxas info    : (C7514) Potential Performance Loss: wgmma.mma_async instructions are "
        "serialized due to non wgmma instructions reading accumulator registers of  a wgmma "
        "between start and end of the pipeline stage in the function '_Z5k_twoPf'\n"
        "ptxas info    : (C7517) warpgroup.wait is injected in around line 78 by compiler to "
        "allow use of registers defined by GMMA in function '_Z5k_twoPf'\n"
        "ptxas info    : 0 bytes gmem\n"
        "ptxas info    : Compiling entry function 'k_one' for 'sm_90a'\n"
        "ptxas info    : Function properties for k_one\n"
        "ptxas         .     16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
        "ptxas info    : Used 1 register, used 2 barriers, 4096 bytes smem, 376 bytes cmem[0]\n"
        "ptxas info    : Function properties for helper\n"
        "ptxas         .     99 bytes stack frame, 99 bytes spill stores, 99 bytes spill loads\n"
        "ptxas info    : Compile time = 2.980 ms\n"
        "ptxas info    : Compiling entry function '_Z5k_twoPf' for 'sm_90a'\n"
        "ptxas info    : Function properties for _Z5k_twoPf\n"
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 232 registers, used 0 barriers\n"
        "some warning: unrelated\n";
    RtKernelStats *k;
    size_t n;
    rt_parse_ptxas_log(log, NULL, &k, &n);
    assert_int_equal(n, 2);
    assert_string_equal(k[0].name, "k_one");
    assert_int_equal(k[0].registers, 1);
    assert_int_equal(k[0].barriers, 2);
    assert_int_equal(k[0].smem_bytes, 4096);
    assert_int_equal(k[0].stack_bytes, 16);
    assert_int_equal(k[0].spill_store_bytes, 8);
    assert_int_equal(k[0].spill_load_bytes, 4);
    assert_string_equal(k[1].name, "_Z5k_twoPf");
    assert_int_equal(k[1].registers, 232);
    assert_int_equal(k[1].smem_bytes, 0);
    assert_int_equal(k[1].stack_bytes, 0);
    assert_null(k[0].perf_loss);
    assert_string_equal(k[1].perf_loss,
                        "wgmma.mma_async instructions are serialized due to non wgmma "
                        "instructions reading accumulator registers of  a wgmma between start "
                        "and end of the pipeline stage");
    rt_kernel_stats_free(k, n);
    /* C7512 names the function after "for", not "in" */
    rt_parse_ptxas_log("ptxas info    : (C7512) Potential Performance Loss: wgmma.mma_async "
                       "instructions are serialized due to insufficient register resources "
                       "for the function 'k3'\n"
                       "ptxas info    : Compiling entry function 'k3' for 'sm_90a'\n"
                       "ptxas info    : Used 240 registers, used 1 barriers\n",
                       NULL, &k, &n);
    assert_int_equal(n, 1);
    assert_string_equal(k[0].name, "k3");
    assert_string_equal(k[0].perf_loss, "wgmma.mma_async instructions are serialized due to "
                                        "insufficient register resources");
    rt_kernel_stats_free(k, n);
    /* a note for no function: to each kernel whose source uses setmaxnreg */
    const char *ignored =
        "ptxas info    : (C7508) Potential Performance Loss: 'setmaxnreg' ignored to maintain "
        "minimum register requirements.\n"
        "ptxas info    : Compiling entry function 'plain' for 'sm_90a'\n"
        "ptxas info    : Compiling entry function 'roles' for 'sm_90a'\n";
    const char *source = "extern \"C\" __global__ void __launch_bounds__(384) roles(float *a) {\n"
                         "  asm volatile(\"setmaxnreg.dec.sync.aligned.u32 40;\");\n}\n"
                         "extern \"C\" __global__ void plain(float *a) { a[0] = 1.f; }\n";
    rt_parse_ptxas_log(ignored, source, &k, &n);
    assert_int_equal(n, 2);
    assert_string_equal(k[1].name, "roles");
    assert_string_equal(k[1].perf_loss, "'setmaxnreg' ignored to maintain minimum register "
                                        "requirements");
    assert_null(k[0].perf_loss);
    rt_kernel_stats_free(k, n);
    rt_parse_ptxas_log(ignored, NULL, &k, &n); /* without the source: both */
    assert_int_equal(n, 2);
    assert_non_null(k[0].perf_loss);
    assert_non_null(k[1].perf_loss);
    rt_kernel_stats_free(k, n);
    /* a kernel's own note wins over one for no function, whatever the order */
    char both[1024];
    snprintf(both, sizeof both, "%sptxas info    : (C7514) Potential Performance Loss: "
             "wgmma.mma_async instructions are serialized due to ill formed pipeline stage in "
             "the function 'roles'\n", ignored);
    rt_parse_ptxas_log(both, source, &k, &n);
    assert_int_equal(n, 2);
    assert_string_equal(k[1].perf_loss, "wgmma.mma_async instructions are serialized due to "
                                        "ill formed pipeline stage");
    assert_null(k[0].perf_loss);
    rt_kernel_stats_free(k, n);
    /* setmaxnreg in a helper, no kernel's own text shows it: every kernel
     * gets the note; a name called in another kernel's body is not its
     * definition; the same note twice is kept once */
    const char *helper = "__device__ void roles_h() { asm volatile(\"setmaxnreg.dec...\"); }\n"
                         "extern \"C\" __global__ void plain(float *a) { roles(a); }\n"
                         "extern \"C\" __global__ void roles(float *a) { roles_h(); }\n";
    char twice[1024];
    snprintf(twice, sizeof twice, "%s%s", ignored, ignored);
    rt_parse_ptxas_log(twice, helper, &k, &n);
    assert_int_equal(n, 4); /* the log names each kernel twice */
    for (size_t i = 0; i < n; i++)
        assert_non_null(k[i].perf_loss);
    rt_kernel_stats_free(k, n);
    /* a line too long to read whole is not taken for a note for no function */
    char *longline = malloc(2100);
    assert_non_null(longline);
    int len = snprintf(longline, 2100, "ptxas info    : (C7514) Potential Performance Loss: %0*d "
                       "in the function 'roles'\nptxas info    : Compiling entry function 'plain' "
                       "for 'sm_90a'\n", 1500, 0);
    assert_true(len > 1500 && len < 2100);
    rt_parse_ptxas_log(longline, NULL, &k, &n);
    assert_int_equal(n, 1);
    assert_null(k[0].perf_loss);
    rt_kernel_stats_free(k, n);
    free(longline);
    rt_parse_ptxas_log("", NULL, &k, &n);
    assert_int_equal(n, 0);
    rt_kernel_stats_free(k, n);
    /* a log of a million warning lines (48 MB) before the kernel's: each line
     * is searched alone (a search from each line through the rest of the log
     * took a minute for a fifth of this, so some 25 minutes here, past the
     * test's time limit) */
    static const char warning[] = "sweep.cu(12): warning: variable \"r_44\" is unused\n";
    static const char tail[] = "ptxas info    : Compiling entry function 'big' for 'sm_90a'\n"
                               "ptxas info    : Used 7 registers\n";
    size_t nlines = 1000000, wlen = sizeof warning - 1;
    char *huge = malloc(nlines * wlen + sizeof tail);
    assert_non_null(huge);
    for (size_t i = 0; i < nlines; i++)
        memcpy(huge + i * wlen, warning, wlen);
    memcpy(huge + nlines * wlen, tail, sizeof tail);
    rt_parse_ptxas_log(huge, NULL, &k, &n);
    assert_int_equal(n, 1);
    assert_string_equal(k[0].name, "big");
    assert_int_equal(k[0].registers, 7);
    rt_kernel_stats_free(k, n);
    free(huge);
}

/* ---- nvcc ---- */

static void test_nvcc(void **state)
{
    (void)state;
    RtCompileOptions o = options("sm_90a");
    o.compiler = RT_NVCC;
    RtBinary b;
    RtError err;
    char *tmp = scratch_dir();
    char *saved = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
    setenv("TMPDIR", tmp, 1);
    RtStatus s = rt_compile(wgmma_kernel, &o, &b, &err);
    if (s == RT_ERR_NO_NVCC) {
        remove_tree(tmp);
        free(tmp);
        free(saved);
        skip();
    }
    if (s != RT_OK)
        fail_msg("%s\n%s", err.message, b.log ? b.log : "");
    assert_true(is_elf(&b));
    assert_non_null(strstr(b.ptx, ".target sm_90a"));
    assert_int_equal(b.nkernels, 1);
    assert_string_equal(b.kernels[0].name, "k_wgmma");
    rt_binary_free(&b);
    assert_int_equal(rt_compile(mma_kernel, &o, &b, &err), RT_OK); /* mma.sync runs on sm_90a too */
    rt_binary_free(&b);
    o.arch = "sm_80";
    assert_int_equal(rt_compile(wgmma_kernel, &o, &b, &err), RT_ERR_COMPILE);
    assert_non_null(strstr(b.log, "not supported on .target 'sm_80'"));
    assert_non_null(strstr(err.message, "nvcc could not compile test.cu for sm_80"));
    rt_binary_free(&b);
    assert_true(dir_is_empty(tmp)); /* every temporary file was removed */
    o.nvcc = "/nonexistent/nvcc";
    assert_int_equal(rt_compile(mma_kernel, &o, &b, &err), RT_ERR_NO_NVCC);
    assert_non_null(strstr(err.message, "/nonexistent/nvcc"));
    if (saved)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
    free(saved);
    remove_tree(tmp);
    free(tmp);
}

/* ---- threads ---- */

static void *compile_thread(void *arg)
{
    RtCompileOptions o = options(arg);
    RtBinary b;
    RtStatus s = rt_compile(mma_kernel, &o, &b, NULL);
    bool ok = s == RT_OK && is_elf(&b);
    rt_binary_free(&b);
    return ok ? arg : NULL;
}

static void test_threads(void **state)
{
    (void)state;
    static char *archs[] = {"sm_80", "sm_90a", "sm_100a"};
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        assert_int_equal(pthread_create(&t[i], NULL, compile_thread, archs[i]), 0);
    for (int i = 0; i < 3; i++) {
        void *result;
        pthread_join(t[i], &result);
        assert_ptr_equal(result, archs[i]);
    }
}

int main(void)
{
    const struct CMUnitTest offline[] = {
        cmocka_unit_test(test_ptxas_log),
    };
    const struct CMUnitTest with_nvrtc[] = {
        cmocka_unit_test(test_mma_sm80),
        cmocka_unit_test(test_wgmma_setmaxnreg_sm90a),
        cmocka_unit_test(test_tcgen05_sm100a),
        cmocka_unit_test(test_arch_gating),
        cmocka_unit_test(test_syntax_error),
        cmocka_unit_test(test_ptxas_reason),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_defines_and_fast_math),
        cmocka_unit_test(test_cache),
        cmocka_unit_test(test_nvcc),
        cmocka_unit_test(test_threads),
    };
    int failed = cmocka_run_group_tests(offline, NULL, NULL);
    int major, minor;
    RtError err;
    if (rt_nvrtc_version(&major, &minor, &err) != RT_OK) {
        printf("SKIPPED: %s\n", err.message);
        return failed ? failed : 77;
    }
    return failed + cmocka_run_group_tests(with_nvrtc, NULL, NULL);
}
