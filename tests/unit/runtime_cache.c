/* Unit tests of the runtime's cache: SHA-256 against the FIPS 180-4 vectors,
 * keys (stable, sensitive to every field, to field boundaries and to NULL
 * versus ""), the cache directory's environment fallbacks, entries written
 * and read back, and everything a reader must reject as a miss: a truncated
 * file, a flipped byte, another key's entry, garbage, a named pipe (at once,
 * without waiting for a writer), blob lengths past the end under a right
 * checksum. Threads writing and reading one key at once only ever see whole
 * entries. Each test works in a fresh temporary directory. */
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
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "runtime/runtime.h"

/* ---- scratch directories ---- */

static void remove_tree(const char *path)
{
    DIR *dir = opendir(path);
    if (dir) {
        struct dirent *e;
        while ((e = readdir(dir))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char child[4096];
            snprintf(child, sizeof child, "%s/%s", path, e->d_name);
            remove_tree(child);
        }
        closedir(dir);
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* Files under path (recursively), not counting directories. */
static int count_files(const char *path)
{
    DIR *dir = opendir(path);
    if (!dir)
        return 1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        n += count_files(child);
    }
    closedir(dir);
    return n;
}

static int make_scratch(void **state)
{
    const char *tmp = getenv("TMPDIR");
    char *dir = malloc(4096);
    snprintf(dir, 4096, "%s/tirx-cache-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        free(dir);
        return -1;
    }
    *state = dir;
    return 0;
}

static int remove_scratch(void **state)
{
    remove_tree(*state);
    free(*state);
    return 0;
}

static void open_cache(RtCache *c, const char *scratch)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/cache", scratch);
    RtError err;
    assert_int_equal(rt_cache_open(c, dir, &err), RT_OK);
}

/* ---- SHA-256 ---- */

static void assert_sha(const char *text, size_t n, const char *hex)
{
    RtDigest d = rt_sha256(text, n);
    char got[65];
    rt_digest_hex(&d, got);
    assert_string_equal(got, hex);
}

static void test_sha256_vectors(void **state)
{
    (void)state;
    assert_sha("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert_sha("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    assert_sha(two_blocks, strlen(two_blocks),
               "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *million = malloc(1000000);
    memset(million, 'a', 1000000);
    assert_sha(million, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    /* The same bytes fed in uneven pieces. */
    RtSha256 s;
    rt_sha256_init(&s);
    for (size_t at = 0, step = 1; at < 1000000; at += step, step = step * 3 % 1000 + 1)
        rt_sha256_update(&s, million + at, at + step > 1000000 ? 1000000 - at : step);
    RtDigest d = rt_sha256_final(&s), whole = rt_sha256(million, 1000000);
    assert_memory_equal(d.bytes, whole.bytes, 32);
    free(million);
}

/* ---- keys ---- */

typedef struct KeyFields {
    const char *source, *arch, *define;
    int64_t fast_math;
} KeyFields;

static RtDigest key_of(KeyFields f)
{
    RtKey k;
    rt_key_init(&k);
    rt_key_add_str(&k, "source", f.source);
    rt_key_add_str(&k, "arch", f.arch);
    rt_key_add_str(&k, "define", f.define);
    rt_key_add_int(&k, "fast_math", f.fast_math);
    return rt_key_final(&k);
}

static bool same(RtDigest a, RtDigest b)
{
    return memcmp(a.bytes, b.bytes, 32) == 0;
}

static void test_key_stable_and_sensitive(void **state)
{
    (void)state;
    KeyFields base = {"def f(): pass", "sm_90a", "BLOCK=128", 0};
    assert_true(same(key_of(base), key_of(base)));
    KeyFields changed[] = {
        {"def f(): pass ", "sm_90a", "BLOCK=128", 0},
        {"def f(): pass", "sm_100a", "BLOCK=128", 0},
        {"def f(): pass", "sm_90a", "BLOCK=64", 0},
        {"def f(): pass", "sm_90a", "BLOCK=128", 1},
        {"def f(): pass", "sm_90a", NULL, 0},
        {"def f(): pass", "sm_90a", "", 0},
    };
    for (size_t i = 0; i < sizeof changed / sizeof changed[0]; i++)
        assert_false(same(key_of(base), key_of(changed[i])));
    assert_false(same(key_of(changed[4]), key_of(changed[5])));
}

static void test_key_field_boundaries(void **state)
{
    (void)state;
    RtKey a, b, c;
    rt_key_init(&a);
    rt_key_add_str(&a, "x", "ab");
    rt_key_add_str(&a, "x", "c");
    rt_key_init(&b);
    rt_key_add_str(&b, "x", "a");
    rt_key_add_str(&b, "x", "bc");
    rt_key_init(&c);
    rt_key_add_str(&c, "y", "ab");
    rt_key_add_str(&c, "x", "c");
    RtDigest da = rt_key_final(&a), db = rt_key_final(&b), dc = rt_key_final(&c);
    assert_false(same(da, db));
    assert_false(same(da, dc));
    /* A key is not the plain hash of its text. */
    assert_false(same(da, rt_sha256("abc", 3)));
}

/* ---- the directory ---- */

static void test_cache_dir_fallbacks(void **state)
{
    const char *scratch = *state;
    char explicit[4096], xdg[4096], home[4096], expect[4096 + 32];
    snprintf(explicit, sizeof explicit, "%s/explicit", scratch);
    snprintf(xdg, sizeof xdg, "%s/xdg", scratch);
    snprintf(home, sizeof home, "%s/home", scratch);
    char *saved_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    RtCache c;
    RtError err;
    setenv("TIRX_CACHE_DIR", explicit, 1);
    setenv("XDG_CACHE_HOME", xdg, 1);
    setenv("HOME", home, 1);
    assert_int_equal(rt_cache_open(&c, NULL, &err), RT_OK);
    assert_string_equal(c.dir, explicit);
    unsetenv("TIRX_CACHE_DIR");
    assert_int_equal(rt_cache_open(&c, NULL, &err), RT_OK);
    snprintf(expect, sizeof expect, "%s/tirx", xdg);
    assert_string_equal(c.dir, expect);
    setenv("XDG_CACHE_HOME", "relative/ignored", 1);
    assert_int_equal(rt_cache_open(&c, NULL, &err), RT_OK);
    snprintf(expect, sizeof expect, "%s/.cache/tirx", home);
    assert_string_equal(c.dir, expect);
    struct stat st;
    assert_int_equal(stat(expect, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    assert_int_equal(rt_cache_open(&c, NULL, &err), RT_ERR_IO);
    assert_non_null(strstr(err.message, "TIRX_CACHE_DIR"));
    if (saved_home)
        setenv("HOME", saved_home, 1);
    free(saved_home);
}

static void test_cache_dir_is_a_file(void **state)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/file", (const char *)*state);
    FILE *f = fopen(path, "w");
    fclose(f);
    RtCache c;
    RtError err;
    assert_int_equal(rt_cache_open(&c, path, &err), RT_ERR_IO);
    assert_non_null(strstr(err.message, path));
}

/* ---- entries ---- */

static const char cubin[] = "\x7f" "ELF fake cubin bytes";
static const char log_text[] = "ptxas info    : Used 8 registers";

static RtDigest test_key(const char *text)
{
    RtKey k;
    rt_key_init(&k);
    rt_key_add_str(&k, "test", text);
    return rt_key_final(&k);
}

static void put_sample(const RtCache *c, const RtDigest *key)
{
    RtBlob blobs[] = {{"cubin", cubin, sizeof cubin}, {"log", log_text, strlen(log_text)},
                      {"empty", "", 0}};
    RtError err;
    assert_int_equal(rt_cache_put(c, key, blobs, 3, &err), RT_OK);
}

static void assert_sample(const RtCacheEntry *e)
{
    assert_int_equal(e->nblobs, 3);
    const RtBlob *b = rt_cache_entry_find(e, "cubin");
    assert_non_null(b);
    assert_int_equal(b->size, sizeof cubin);
    assert_memory_equal(b->data, cubin, sizeof cubin);
    assert_int_equal((uintptr_t)b->data % 16, 0);
    b = rt_cache_entry_find(e, "log");
    assert_int_equal(b->size, strlen(log_text));
    assert_memory_equal(b->data, log_text, b->size);
    assert_int_equal(rt_cache_entry_find(e, "empty")->size, 0);
    assert_null(rt_cache_entry_find(e, "ptx"));
}

static void test_put_get(void **state)
{
    RtCache c;
    open_cache(&c, *state);
    RtDigest key = test_key("one"), other = test_key("two");
    RtCacheEntry e;
    assert_false(rt_cache_get(&c, &key, &e));
    put_sample(&c, &key);
    assert_true(rt_cache_get(&c, &key, &e));
    assert_sample(&e);
    rt_cache_entry_free(&e);
    assert_false(rt_cache_get(&c, &other, &e));
    /* Only the entry is left: the temporary file was renamed into place. */
    assert_int_equal(count_files(c.dir), 1);
    /* Overwriting an entry keeps one file, with the new contents. */
    RtBlob blob = {"cubin", "new", 3};
    RtError err;
    assert_int_equal(rt_cache_put(&c, &key, &blob, 1, &err), RT_OK);
    assert_true(rt_cache_get(&c, &key, &e));
    assert_int_equal(e.nblobs, 1);
    assert_memory_equal(e.blobs[0].data, "new", 3);
    rt_cache_entry_free(&e);
    assert_int_equal(count_files(c.dir), 1);
    /* The entry has the umask's mode, so another user sharing the cache can read it. */
    char path[4096];
    struct stat st;
    mode_t saved = umask(022);
    assert_int_equal(rt_cache_put(&c, &other, &blob, 1, &err), RT_OK);
    umask(saved);
    assert_int_equal(rt_cache_path(&c, &other, path, sizeof path, &err), RT_OK);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
}

/* A writer killed between its temporary file and the rename leaves the file:
 * the next write into the same directory removes it once it is an hour old,
 * and leaves a younger one (a writer may still be busy with it). */
static void test_stale_temporary_removed(void **state)
{
    RtCache c;
    open_cache(&c, *state);
    RtDigest key = test_key("one");
    put_sample(&c, &key);
    char path[4096], stale[4200], young[4200];
    RtError err;
    assert_int_equal(rt_cache_path(&c, &key, path, sizeof path, &err), RT_OK);
    snprintf(stale, sizeof stale, "%s.tmp.AAAAAA", path);
    snprintf(young, sizeof young, "%s.tmp.BBBBBB", path);
    FILE *f = fopen(stale, "wb");
    assert_non_null(f);
    fclose(f);
    f = fopen(young, "wb");
    assert_non_null(f);
    fclose(f);
    struct timeval old[2] = {{time(NULL) - 7200, 0}, {time(NULL) - 7200, 0}};
    assert_int_equal(utimes(stale, old), 0);
    assert_int_equal(count_files(c.dir), 3);
    put_sample(&c, &key);
    assert_int_equal(access(stale, F_OK), -1);
    assert_int_equal(access(young, F_OK), 0);
    assert_int_equal(count_files(c.dir), 2);
}

static void rewrite(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static unsigned char *slurp(const char *path, size_t *n)
{
    char *data = tx_read_file(path, n);
    assert_non_null(data);
    return (unsigned char *)data;
}

static void test_truncated_and_corrupt(void **state)
{
    RtCache c;
    open_cache(&c, *state);
    RtDigest key = test_key("victim");
    char path[8192];
    RtCacheEntry e;
    put_sample(&c, &key);
    assert_int_equal(rt_cache_path(&c, &key, path, sizeof path, NULL), RT_OK);
    size_t n;
    unsigned char *good = slurp(path, &n);
    /* Every truncation, including an empty file, is a miss. */
    for (size_t len = 0; len < n; len += len < 100 ? 1 : 37) {
        rewrite(path, good, len);
        assert_false(rt_cache_get(&c, &key, &e));
    }
    /* A flipped byte anywhere (magic, lengths, key, checksum, payload) is a miss. */
    for (size_t at = 0; at < n; at++) {
        good[at] ^= 0x40;
        rewrite(path, good, n);
        assert_false(rt_cache_get(&c, &key, &e));
        good[at] ^= 0x40;
    }
    /* Trailing bytes too. */
    unsigned char *longer = calloc(1, n + 16);
    memcpy(longer, good, n);
    rewrite(path, longer, n + 16);
    assert_false(rt_cache_get(&c, &key, &e));
    free(longer);
    /* The intact file reads again, and a put over a corrupt entry repairs it. */
    rewrite(path, good, n);
    assert_true(rt_cache_get(&c, &key, &e));
    rt_cache_entry_free(&e);
    rewrite(path, "garbage", 7);
    put_sample(&c, &key);
    assert_true(rt_cache_get(&c, &key, &e));
    assert_sample(&e);
    rt_cache_entry_free(&e);
    free(good);
}

static void test_entry_of_another_key(void **state)
{
    RtCache c;
    open_cache(&c, *state);
    RtDigest a = test_key("a"), b = test_key("b");
    char pa[8192], pb[8192];
    put_sample(&c, &a);
    assert_int_equal(rt_cache_path(&c, &a, pa, sizeof pa, NULL), RT_OK);
    assert_int_equal(rt_cache_path(&c, &b, pb, sizeof pb, NULL), RT_OK);
    size_t n;
    unsigned char *data = slurp(pa, &n);
    char dir[8192];
    snprintf(dir, sizeof dir, "%s", pb);
    *strrchr(dir, '/') = '\0';
    mkdir(dir, 0755);
    rewrite(pb, data, n);
    RtCacheEntry e;
    assert_false(rt_cache_get(&c, &b, &e));
    free(data);
}

/* A named pipe where the entry belongs is a miss at once: opening it to read
 * must not wait for a writer that never comes. A put then replaces it. */
static void test_entry_is_a_fifo(void **state)
{
    RtCache c;
    open_cache(&c, *state);
    RtDigest key = test_key("fifo");
    char path[8192], dir[8192];
    assert_int_equal(rt_cache_path(&c, &key, path, sizeof path, NULL), RT_OK);
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    mkdir(dir, 0755);
    assert_int_equal(mkfifo(path, 0644), 0);
    alarm(20); /* a reader that blocks fails the test instead of hanging it */
    RtCacheEntry e;
    assert_false(rt_cache_get(&c, &key, &e));
    put_sample(&c, &key);
    assert_true(rt_cache_get(&c, &key, &e));
    alarm(0);
    assert_sample(&e);
    rt_cache_entry_free(&e);
}

/* An entry whose header and checksum are right but whose blob lengths are
 * not (a writer's bug, or a file made by hand: the checksum is no secret) is
 * a miss, and no length makes the reader look past the file's end. Blob 0's
 * data ends in the payload's last 16 bytes, so its padding would overrun it. */
static void test_entry_lengths_past_the_end(void **state)
{
    RtCache c;
    open_cache(&c, *state);
    RtDigest key = test_key("lengths");
    char path[8192];
    put_sample(&c, &key);
    assert_int_equal(rt_cache_path(&c, &key, path, sizeof path, NULL), RT_OK);
    enum { PAYLOAD = 16 + 16 + 1 };
    unsigned char file[96 + PAYLOAD] = {0};
    memcpy(file, "TIRXCACH", 8);
    file[8] = 1;  /* format */
    file[12] = 2; /* two blobs, room for one */
    file[16] = PAYLOAD;
    memcpy(file + 24, key.bytes, 32);
    unsigned char *p = file + 96;
    p[0] = 2;    /* name bytes, with the NUL */
    p[8] = 1;    /* data bytes */
    p[16] = 'a'; /* the name */
    p[32] = 'x'; /* the data: the payload's last byte */
    RtDigest sum = rt_sha256(p, PAYLOAD);
    memcpy(file + 56, sum.bytes, 32);
    rewrite(path, file, sizeof file);
    RtCacheEntry e;
    assert_false(rt_cache_get(&c, &key, &e));
}

/* ---- threads ---- */

typedef struct Writer {
    const RtCache *cache;
    const RtDigest *key;
    int id;
    int hits, bad;
} Writer;

/* Two payloads of different sizes; a reader must see one of them whole. */
static void payload(int id, char *buf, size_t *n)
{
    *n = id % 2 ? 3000 : 70000;
    memset(buf, 'a' + id % 2, *n);
}

static void *writer_thread(void *arg)
{
    Writer *w = arg;
    size_t n;
    char *mine = malloc(70000);
    payload(w->id, mine, &n);
    for (int i = 0; i < 40; i++) {
        RtBlob blob = {"cubin", mine, n};
        if (rt_cache_put(w->cache, w->key, &blob, 1, NULL) != RT_OK)
            w->bad++;
        RtCacheEntry e;
        if (!rt_cache_get(w->cache, w->key, &e))
            continue;
        w->hits++;
        const RtBlob *b = rt_cache_entry_find(&e, "cubin");
        char first = b && b->size ? ((const char *)b->data)[0] : 0;
        size_t expect = first == 'a' ? 70000 : 3000;
        if (!b || (first != 'a' && first != 'b') || b->size != expect ||
            memchr(b->data, first == 'a' ? 'b' : 'a', b->size))
            w->bad++;
        rt_cache_entry_free(&e);
    }
    free(mine);
    return NULL;
}

static void test_threads(void **state)
{
    RtCache c;
    open_cache(&c, *state);
    RtDigest key = test_key("shared");
    Writer w[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (Writer){&c, &key, i, 0, 0};
        assert_int_equal(pthread_create(&t[i], NULL, writer_thread, &w[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].bad, 0);
        assert_int_equal(w[i].hits, 40);
    }
    assert_int_equal(count_files(c.dir), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_vectors),
        cmocka_unit_test(test_key_stable_and_sensitive),
        cmocka_unit_test(test_key_field_boundaries),
        cmocka_unit_test_setup_teardown(test_cache_dir_fallbacks, make_scratch, remove_scratch),
        cmocka_unit_test_setup_teardown(test_cache_dir_is_a_file, make_scratch, remove_scratch),
        cmocka_unit_test_setup_teardown(test_put_get, make_scratch, remove_scratch),
        cmocka_unit_test_setup_teardown(test_stale_temporary_removed, make_scratch,
                                        remove_scratch),
        cmocka_unit_test_setup_teardown(test_truncated_and_corrupt, make_scratch, remove_scratch),
        cmocka_unit_test_setup_teardown(test_entry_of_another_key, make_scratch, remove_scratch),
        cmocka_unit_test_setup_teardown(test_entry_is_a_fifo, make_scratch, remove_scratch),
        cmocka_unit_test_setup_teardown(test_entry_lengths_past_the_end, make_scratch,
                                        remove_scratch),
        cmocka_unit_test_setup_teardown(test_threads, make_scratch, remove_scratch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
