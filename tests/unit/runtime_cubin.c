/* Unit tests of the kernel stats read from a cubin (src/runtime/cubin.c):
 * for every kernel of examples/ and kernels/ on sm_90a and sm_100a, the
 * cubin's registers, barriers, static shared memory and stack frame equal
 * ptxas's report in the log, and its spills are unknown (-1); a log without
 * the report is completed from the cubin while a log with it wins; a cache
 * hit whose log lost the report still has its kernels (tirx_kernel_stats_get);
 * the fallbacks of older toolkits (registers in sh_info, the architecture
 * deciding the reserved shared memory) hold; and a truncated, bit-flipped or
 * deliberately malformed cubin yields no kernels without reading outside the
 * buffer (the sanitizer build checks that). Needs NVRTC for the real cubins:
 * without it the binary exits 77. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "runtime/runtime.h"
#include "tirx.h"

/* ---- compiling the repository's kernels ---- */

typedef struct Cubin {
    uint8_t *data; /* exactly `size` bytes, so the sanitizer sees any read past it */
    size_t size;
    char *log;
} Cubin;

/* Compiles a file of the repository for arch (its imports found in its
 * directory); false when the file does not target that arch (a tirx error,
 * not a crash of the compiler) or has no kernel (macros for other files to
 * import, as kernels/gemm_split_k.tirx). */
static bool compile_file(const char *dir, const char *name, const char *arch, Cubin *out)
{
    char rel[512], path[4096], abs_dir[4096];
    snprintf(rel, sizeof rel, "%s/%s", dir, name);
    snprintf(path, sizeof path, "%s/%s", TIRX_SOURCE_DIR, rel);
    snprintf(abs_dir, sizeof abs_dir, "%s/%s", TIRX_SOURCE_DIR, dir);
    size_t len;
    char *text = tx_read_file(path, &len);
    assert_non_null(text);
    const char *dirs[] = {abs_dir};
    tirx_options o = {.arch = arch, .no_cache = 1, .import_dirs = dirs, .n_import_dirs = 1};
    tirx_module *m;
    tirx_status st = tirx_compile(text, len, rel, NULL, 0, &o, &m);
    free(text);
    bool ok = st == TIRX_OK && strstr(tirx_module_cuda(m), "__global__");
    if (ok) {
        size_t n;
        const void *cubin = tirx_module_cubin(m, &n);
        assert_non_null(cubin);
        out->data = malloc(n);
        memcpy(out->data, cubin, n);
        out->size = n;
        out->log = strdup(tirx_module_log(m));
    } else if (st != TIRX_OK) {
        assert_int_equal(st, TIRX_ERR_INPUT);
    }
    tirx_module_free(m);
    return ok;
}

static void cubin_free(Cubin *c)
{
    free(c->data);
    free(c->log);
}

static const RtKernelStats *named(const RtKernelStats *k, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(k[i].name, name))
            return &k[i];
    return NULL;
}

/* ---- the cubin against ptxas's report ---- */

typedef struct Coverage {
    int pairs, kernels, with_stack, with_smem, with_barriers, multi;
} Coverage;

static void compare_file(const char *dir, const char *name, const char *arch, Coverage *cov)
{
    char rel[512];
    snprintf(rel, sizeof rel, "%s/%s", dir, name);
    Cubin c;
    if (!compile_file(dir, name, arch, &c))
        return;
    RtKernelStats *log, *bin;
    size_t nlog, nbin;
    rt_parse_ptxas_log(c.log, NULL, &log, &nlog);
    assert_true(rt_cubin_kernels(c.data, c.size, &bin, &nbin));
    if (nlog == 0 || nlog != nbin)
        fail_msg("%s %s: %zu kernels in the log, %zu in the cubin", rel, arch, nlog, nbin);
    for (size_t i = 0; i < nbin; i++) {
        const RtKernelStats *b = &bin[i], *l = named(log, nlog, b->name);
        if (!l)
            fail_msg("%s %s: kernel %s is not in the log", rel, arch, b->name);
        if (b->registers != l->registers || b->barriers != l->barriers ||
            b->smem_bytes != l->smem_bytes || b->stack_bytes != l->stack_bytes)
            fail_msg("%s %s %s: cubin %d registers, %d barriers, %d B smem, %d B stack; "
                     "ptxas %d, %d, %d, %d", rel, arch, b->name, b->registers, b->barriers,
                     b->smem_bytes, b->stack_bytes, l->registers, l->barriers, l->smem_bytes,
                     l->stack_bytes);
        assert_true(b->registers > 0);
        assert_int_equal(b->spill_store_bytes, -1);
        assert_int_equal(b->spill_load_bytes, -1);
        cov->with_stack += b->stack_bytes > 0;
        cov->with_smem += b->smem_bytes > 0;
        cov->with_barriers += b->barriers > 1;
    }
    cov->pairs++;
    cov->kernels += (int)nbin;
    cov->multi += nbin > 1;
    rt_kernel_stats_free(log, nlog);
    rt_kernel_stats_free(bin, nbin);
    cubin_free(&c);
}

static void compare_dir(const char *dir, Coverage *cov)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", TIRX_SOURCE_DIR, dir);
    DIR *d = opendir(path);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n <= 5 || strcmp(e->d_name + n - 5, ".tirx"))
            continue;
        compare_file(dir, e->d_name, "sm_90a", cov);
        compare_file(dir, e->d_name, "sm_100a", cov);
    }
    closedir(d);
}

static void test_matches_ptxas(void **state)
{
    (void)state;
    Coverage cov = {0};
    compare_dir("examples", &cov);
    compare_dir("kernels", &cov);
    /* the comparison covered every figure with a value other than 0 */
    assert_true(cov.pairs >= 12);
    assert_true(cov.with_stack > 0 && cov.with_smem > 0 && cov.with_barriers > 0 && cov.multi > 0);
    printf("%d compiles, %d kernels: cubin and ptxas agree\n", cov.pairs, cov.kernels);
}

/* ---- a log without the report ---- */

/* The log without its ptxas lines (the front end's warnings stay). */
static char *without_report(const char *log)
{
    TxBuf b = {0};
    tx_buf_puts(&b, "");
    for (const char *line = log; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) + 1 : strlen(line);
        if (strncmp(line, "ptxas", 5) != 0)
            tx_buf_putn(&b, line, n);
        line += n;
    }
    return tx_buf_take(&b);
}

static void test_log_without_report(void **state)
{
    (void)state;
    Cubin c;
    assert_true(compile_file("examples", "row_softmax.tirx", "sm_90a", &c));
    char *bare = without_report(c.log);
    assert_null(strstr(bare, "ptxas"));
    RtKernelStats *log, *k;
    size_t nlog, n;
    rt_parse_ptxas_log(c.log, NULL, &log, &nlog);
    assert_int_equal(nlog, 1);

    rt_parse_ptxas_log(bare, NULL, &k, &n); /* the report is gone: no stats from the log */
    assert_int_equal(n, 0);
    rt_kernel_stats(bare, NULL, c.data, c.size, &k, &n); /* the cubin fills them */
    assert_int_equal(n, 1);
    assert_string_equal(k[0].name, "row_softmax_kernel");
    assert_int_equal(k[0].registers, log[0].registers);
    assert_int_equal(k[0].smem_bytes, log[0].smem_bytes);
    assert_true(k[0].registers > 0 && k[0].smem_bytes > 0);
    assert_int_equal(k[0].spill_store_bytes, -1);
    assert_int_equal(k[0].spill_load_bytes, -1);
    rt_kernel_stats_free(k, n);

    rt_kernel_stats(NULL, NULL, c.data, c.size, &k, &n);
    assert_int_equal(n, 1);
    assert_int_equal(k[0].spill_store_bytes, -1);
    rt_kernel_stats_free(k, n);

    rt_kernel_stats(c.log, NULL, c.data, c.size, &k, &n); /* the log's report wins: spills known */
    assert_int_equal(n, 1);
    assert_int_equal(k[0].spill_store_bytes, 0);
    assert_int_equal(k[0].spill_load_bytes, 0);
    rt_kernel_stats_free(k, n);

    /* a report of another kernel stays first; the cubin adds its own */
    const char *other = "ptxas info    : Compiling entry function 'other' for 'sm_90a'\n"
                        "ptxas info    : Used 7 registers, used 0 barriers\n";
    rt_kernel_stats(other, NULL, c.data, c.size, &k, &n);
    assert_int_equal(n, 2);
    assert_string_equal(k[0].name, "other");
    assert_int_equal(k[0].registers, 7);
    assert_string_equal(k[1].name, "row_softmax_kernel");
    assert_int_equal(k[1].registers, log[0].registers);
    rt_kernel_stats_free(k, n);

    rt_kernel_stats(other, NULL, c.data, c.size / 2, &k, &n); /* a broken cubin adds nothing */
    assert_int_equal(n, 1);
    rt_kernel_stats_free(k, n);
    rt_kernel_stats(NULL, NULL, NULL, 0, &k, &n);
    assert_int_equal(n, 0);

    rt_kernel_stats_free(log, nlog);
    free(bare);
    cubin_free(&c);
}

/* ---- a cache hit whose log has no report ---- */

/* The one entry file under a cache directory, and its key. */
static void only_entry(const char *dir, RtDigest *key)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    char hex[65] = "";
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strlen(e->d_name) != 2)
            continue;
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        DIR *s = opendir(sub);
        struct dirent *f;
        while (s && (f = readdir(s)))
            if (strlen(f->d_name) == 62 && strspn(f->d_name, "0123456789abcdef") == 62) {
                memcpy(hex, e->d_name, 2); /* both lengths checked: 2 + 62 + NUL */
                memcpy(hex + 2, f->d_name, 63);
            }
        if (s)
            closedir(s);
    }
    closedir(d);
    assert_int_equal(strlen(hex), 64);
    for (int i = 0; i < 32; i++) {
        unsigned v;
        assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
        key->bytes[i] = (uint8_t)v;
    }
}

/* Rewrites the entry with its log stripped of the ptxas report. */
static void strip_cached_log(const char *dir)
{
    RtDigest key;
    only_entry(dir, &key);
    RtCache cache;
    RtError err;
    assert_int_equal(rt_cache_open(&cache, dir, &err), RT_OK);
    RtCacheEntry e;
    assert_true(rt_cache_get(&cache, &key, &e));
    RtBlob blobs[16];
    assert_true(e.nblobs <= 16);
    char *bare = NULL;
    for (size_t i = 0; i < e.nblobs; i++) {
        blobs[i] = e.blobs[i];
        if (!strcmp(blobs[i].name, "log")) {
            char *log = strndup(blobs[i].data, blobs[i].size);
            bare = without_report(log);
            free(log);
            blobs[i].data = bare, blobs[i].size = strlen(bare);
        }
    }
    assert_non_null(bare);
    assert_int_equal(rt_cache_put(&cache, &key, blobs, e.nblobs, &err), RT_OK);
    free(bare);
    rt_cache_entry_free(&e);
}

static tirx_module *compile_cached(const char *text, size_t len, const char *dir)
{
    tirx_options o = {.arch = "sm_90a", .cache_dir = dir};
    tirx_module *m;
    assert_int_equal(tirx_compile(text, len, "row_softmax.tirx", NULL, 0, &o, &m), TIRX_OK);
    return m;
}

static void test_cache_hit_without_report(void **state)
{
    (void)state;
    char dir[] = "/tmp/tirx-unit-cubin-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/row_softmax.tirx", TIRX_SOURCE_DIR);
    size_t len;
    char *text = tx_read_file(path, &len);
    assert_non_null(text);
    tirx_module *fresh = compile_cached(text, len, dir);
    assert_false(tirx_module_cached(fresh));
    tirx_kernel_stats want, got;
    assert_int_equal(tirx_kernel_count(fresh), 1);
    assert_int_equal(tirx_kernel_stats_get(fresh, 0, &want), 0);
    assert_int_equal(want.spill_store_bytes, 0);

    strip_cached_log(dir);
    tirx_module *hit = compile_cached(text, len, dir);
    assert_true(tirx_module_cached(hit));
    assert_null(strstr(tirx_module_log(hit), "ptxas"));
    assert_int_equal(tirx_kernel_count(hit), 1);
    assert_int_equal(tirx_kernel_stats_get(hit, 0, &got), 0);
    assert_string_equal(got.name, want.name);
    assert_int_equal(got.registers, want.registers);
    assert_int_equal(got.smem_bytes, want.smem_bytes);
    assert_int_equal(got.stack_bytes, want.stack_bytes);
    assert_int_equal(got.dyn_smem_bytes, want.dyn_smem_bytes);
    assert_int_equal(got.spill_store_bytes, -1);
    assert_int_equal(got.spill_load_bytes, -1);
    tirx_module_free(fresh);
    tirx_module_free(hit);
    free(text);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* ---- editing a cubin: the test's own reading of ELF64 ---- */

static uint64_t rd(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void wr(uint8_t *p, int bytes, uint64_t v)
{
    for (int i = 0; i < bytes; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

/* The offset of section `name`'s header. */
static size_t shdr_of(const uint8_t *p, const char *name)
{
    uint64_t shoff = rd(p + 40, 8), names = rd(p + shoff + rd(p + 62, 2) * 64 + 24, 8);
    for (uint64_t i = 0; i < rd(p + 60, 2); i++) {
        const uint8_t *h = p + shoff + i * 64;
        if (!strcmp((const char *)p + names + rd(h, 4), name))
            return (size_t)(h - p);
    }
    fail_msg("no section %s", name);
    return 0;
}

/* The offset of symbol `name` in .symtab. */
static size_t sym_of(const uint8_t *p, const char *name)
{
    size_t tab = shdr_of(p, ".symtab"), str = shdr_of(p, ".strtab");
    uint64_t off = rd(p + tab + 24, 8), n = rd(p + tab + 32, 8) / 24, strs = rd(p + str + 24, 8);
    for (uint64_t i = 0; i < n; i++)
        if (!strcmp((const char *)p + strs + rd(p + off + i * 24, 4), name))
            return (size_t)(off + i * 24);
    fail_msg("no symbol %s", name);
    return 0;
}

static uint8_t *copy_of(const Cubin *c, size_t n)
{
    uint8_t *p = malloc(n ? n : 1);
    memcpy(p, c->data, n);
    return p;
}

static void expect_rejected(const uint8_t *p, size_t n, const char *what)
{
    RtKernelStats *k;
    size_t nk;
    if (rt_cubin_kernels(p, n, &k, &nk))
        fail_msg("%s: accepted", what);
    assert_null(k);
    assert_int_equal(nk, 0);
}

typedef enum { AT_EHDR, AT_SHDR, AT_SYM, AT_DATA, AT_DATA_END } Where;

typedef struct Damage {
    const char *what;
    Where where;
    const char *name; /* the section (AT_SHDR, AT_DATA, AT_DATA_END) or symbol (AT_SYM) */
    size_t off;
    int bytes;
    uint64_t value;
} Damage;

#define KERNEL "row_softmax_kernel"
static const Damage damages[] = {
    {"not for EM_CUDA", AT_EHDR, NULL, 18, 2, 62},
    {"32-bit class", AT_EHDR, NULL, 4, 1, 1},
    {"section table past the end", AT_EHDR, NULL, 40, 8, ~0ull - 100},
    {"too many sections", AT_EHDR, NULL, 60, 2, 0xffff},
    {"odd section header size", AT_EHDR, NULL, 58, 2, 40},
    {"section names out of range", AT_EHDR, NULL, 62, 2, 0xfff0},
    {"symbols past the end", AT_SHDR, ".symtab", 24, 8, ~0ull - 8},
    {"symbols longer than the file", AT_SHDR, ".symtab", 32, 8, 1ull << 40},
    {"a partial symbol", AT_SHDR, ".symtab", 32, 8, 25},
    {"symbol names out of range", AT_SHDR, ".symtab", 40, 4, 0xffff},
    {"symbol names longer than the file", AT_SHDR, ".strtab", 32, 8, ~0ull},
    {"a section name out of range", AT_SHDR, ".nv.info", 0, 4, 0xffffff},
    {"attributes longer than the file", AT_SHDR, ".nv.info", 32, 8, 1ull << 33},
    {"a kernel's name out of range", AT_SYM, KERNEL, 0, 4, 0xffffff},
    {"a kernel in no section", AT_SYM, KERNEL, 6, 2, 0},
    {"a kernel in a missing section", AT_SYM, KERNEL, 6, 2, 0xff00},
    {"an attribute longer than its section", AT_DATA, ".nv.info", 2, 2, 0xffff},
    {"section names without their NUL", AT_DATA_END, ".shstrtab", 1, 1, 'x'},
};

static void apply(uint8_t *p, const Damage *d)
{
    size_t at = d->off;
    if (d->where == AT_SHDR)
        at += shdr_of(p, d->name);
    else if (d->where == AT_SYM)
        at += sym_of(p, d->name);
    else if (d->where == AT_DATA)
        at += rd(p + shdr_of(p, d->name) + 24, 8);
    else if (d->where == AT_DATA_END)
        at = rd(p + shdr_of(p, d->name) + 24, 8) + rd(p + shdr_of(p, d->name) + 32, 8) - d->off;
    wr(p + at, d->bytes, d->value);
}

static void test_malformed(void **state)
{
    (void)state;
    Cubin c;
    assert_true(compile_file("examples", "row_softmax.tirx", "sm_90a", &c));
    RtKernelStats *k;
    size_t n;
    assert_true(rt_cubin_kernels(c.data, c.size, &k, &n));
    assert_int_equal(n, 1);
    rt_kernel_stats_free(k, n);

    for (size_t i = 0; i < sizeof damages / sizeof *damages; i++) {
        uint8_t *p = copy_of(&c, c.size);
        apply(p, &damages[i]);
        expect_rejected(p, c.size, damages[i].what);
        free(p);
    }
    /* cut anywhere before the end of the section table (only the program
     * headers, which the stats do not need, come after it) */
    size_t table_end = rd(c.data + 40, 8) + rd(c.data + 60, 2) * 64;
    assert_true(table_end <= c.size);
    for (size_t len = 0; len < table_end; len++) {
        uint8_t *p = copy_of(&c, len);
        expect_rejected(p, len, "truncated");
        free(p);
    }
    expect_rejected(NULL, 0, "no cubin");
    /* random damage: whatever it yields, nothing outside the buffer is read */
    uint64_t seed = 12345;
    for (int round = 0; round < 3000; round++) {
        uint8_t *p = copy_of(&c, c.size);
        for (int flips = 1 + round % 4; flips > 0; flips--) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (size_t)(seed >> 33) % (round % 2 ? 1024 : c.size);
            p[at] ^= (uint8_t)(1u << (seed >> 29 & 7));
        }
        if (rt_cubin_kernels(p, c.size, &k, &n))
            rt_kernel_stats_free(k, n);
        free(p);
    }
    cubin_free(&c);
}

/* ---- what older toolkits and other architectures write ---- */

static RtKernelStats the_kernel(const uint8_t *p, size_t size)
{
    RtKernelStats *k;
    size_t n;
    assert_true(rt_cubin_kernels(p, size, &k, &n));
    assert_int_equal(n, 1);
    RtKernelStats one = k[0];
    one.name = NULL;
    rt_kernel_stats_free(k, n);
    return one;
}

static void test_fallbacks(void **state)
{
    (void)state;
    Cubin c;
    assert_true(compile_file("examples", "row_softmax.tirx", "sm_90a", &c));
    RtKernelStats base = the_kernel(c.data, c.size);
    uint8_t *p = copy_of(&c, c.size);

    /* before CUDA 13 the architecture was e_flags' low byte (ELF ABI version 7) */
    p[8] = 7;
    wr(p + 48, 4, 0x5a);
    assert_int_equal(the_kernel(p, c.size).smem_bytes, base.smem_bytes);
    /* sm_80 reserves no shared memory in the section: all of it is the kernel's */
    p[8] = 8;
    wr(p + 48, 4, (rd(p + 48, 4) & ~0xff00ull) | 80 << 8);
    assert_int_equal(the_kernel(p, c.size).smem_bytes, base.smem_bytes + 1024);

    /* without EIATTR_REGCOUNT the registers come from sh_info >> 24 of .text.<kernel> */
    size_t info = shdr_of(p, ".nv.info");
    uint8_t *rec = p + rd(p + info + 24, 8), *end = rec + rd(p + info + 32, 8);
    int renamed = 0;
    for (; rec < end; rec += 4 + (rec[0] == 4 ? rd(rec + 2, 2) : 0)) {
        if (rec[1] == 0x2f) {
            rec[1] = 0x01; /* EIATTR_PAD */
            renamed++;
        }
    }
    assert_int_equal(renamed, 1);
    assert_int_equal(the_kernel(p, c.size).registers, 0);
    size_t text = shdr_of(p, ".text." KERNEL);
    wr(p + text + 44, 4, rd(p + text + 44, 4) | 77u << 24);
    assert_int_equal(the_kernel(p, c.size).registers, 77);
    assert_int_equal(the_kernel(p, c.size).barriers, base.barriers);
    free(p);
    cubin_free(&c);
}

int main(void)
{
    int major, minor;
    RtError err;
    if (rt_nvrtc_version(&major, &minor, &err) != RT_OK) {
        printf("SKIPPED: %s\n", err.message);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_ptxas),
        cmocka_unit_test(test_log_without_report),
        cmocka_unit_test(test_cache_hit_without_report),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_fallbacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
