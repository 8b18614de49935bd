/* The on-disk cache: keys and entries. A key is a SHA-256 over tagged,
 * length-prefixed fields, seeded with the cache format, the tirx version and
 * the identity (size, mtime, inode) of the binary that holds this code, so a
 * rebuilt tirx never reads what an older build wrote. An entry is one file,
 * <dir>/<first two hex digits>/<the other 62>, holding a list of named blobs:
 *
 *   header (96 bytes): "TIRXCACH", u32 format, u32 blob count, u64 payload
 *                      bytes, the key, the payload's SHA-256, 8 zero bytes
 *   payload, per blob: u32 name bytes (with its NUL), u32 0, u64 data bytes,
 *                      the name, zeros to 16, the data, zeros to 16
 *
 * all integers little-endian. Writers fill a temporary file beside the entry
 * and rename it into place, so a reader sees a whole entry or none; readers
 * check every field and treat anything off (truncated, corrupt, another key)
 * as a miss. No locks are needed: concurrent writers of one key each rename a
 * complete file. */
#define _GNU_SOURCE /* dladdr */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define CACHE_FORMAT 1
#define HEADER_BYTES 96
#define BLOB_HEADER_BYTES 16
#define MAX_ENTRY_BYTES ((uint64_t)1 << 31)
static const char cache_magic[8] = {'T', 'I', 'R', 'X', 'C', 'A', 'C', 'H'};

/* ---- little-endian fields ---- */

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static size_t round16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

/* ---- keys ---- */

/* The binary that holds this code: a shared libtirx, or the executable it
 * is linked into. */
static void key_add_build_identity(RtKey *k)
{
    Dl_info info;
    void *self;
    void (*fn)(RtKey *) = rt_key_init;
    memcpy(&self, &fn, sizeof self);
    const char *path = "/proc/self/exe";
    if (dladdr(self, &info) && info.dli_fname && info.dli_fname[0] == '/')
        path = info.dli_fname;
    struct stat st;
    if (stat(path, &st) != 0)
        return;
    rt_key_add_int(k, "build.size", (int64_t)st.st_size);
    rt_key_add_int(k, "build.mtime", (int64_t)st.st_mtim.tv_sec);
    rt_key_add_int(k, "build.mtime_ns", (int64_t)st.st_mtim.tv_nsec);
    rt_key_add_int(k, "build.inode", (int64_t)st.st_ino);
}

void rt_key_init(RtKey *k)
{
    rt_sha256_init(&k->sha);
    rt_key_add_int(k, "cache.format", CACHE_FORMAT);
    rt_key_add_str(k, "tirx.version", TIRX_VERSION);
    key_add_build_identity(k);
}

void rt_key_add(RtKey *k, const char *field, const void *data, size_t n)
{
    uint8_t len[8];
    put_le(len, n, 8);
    rt_sha256_update(&k->sha, field, strlen(field) + 1);
    rt_sha256_update(&k->sha, len, sizeof len);
    rt_sha256_update(&k->sha, data, n);
}

void rt_key_add_str(RtKey *k, const char *field, const char *s)
{
    if (s) {
        rt_key_add(k, field, s, strlen(s));
        return;
    }
    uint8_t absent[8];
    put_le(absent, UINT64_MAX, 8);
    rt_sha256_update(&k->sha, field, strlen(field) + 1);
    rt_sha256_update(&k->sha, absent, sizeof absent);
}

void rt_key_add_int(RtKey *k, const char *field, int64_t v)
{
    uint8_t bytes[8];
    put_le(bytes, (uint64_t)v, 8);
    rt_key_add(k, field, bytes, sizeof bytes);
}

RtDigest rt_key_final(RtKey *k)
{
    return rt_sha256_final(&k->sha);
}

/* ---- directories ---- */

/* mkdir -p */
static RtStatus make_dirs(const char *path, RtError *err)
{
    char buf[sizeof ((RtCache *)0)->dir];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return rt_fail(err, RT_ERR_IO, "cache directory '%s': bad path", path);
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return rt_fail(err, RT_ERR_IO, "cannot create cache directory %s: %s", buf,
                           strerror(errno));
        buf[i] = saved;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return rt_fail(err, RT_ERR_IO, "cache directory %s is not a directory", path);
    return RT_OK;
}

static RtStatus default_cache_dir(char *buf, size_t size, RtError *err)
{
    const char *dir = getenv("TIRX_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (dir && *dir)
        n = snprintf(buf, size, "%s", dir);
    else if (xdg && xdg[0] == '/')
        n = snprintf(buf, size, "%s/tirx", xdg);
    else if (home && *home)
        n = snprintf(buf, size, "%s/.cache/tirx", home);
    else
        return rt_fail(err, RT_ERR_IO, "no cache directory: set TIRX_CACHE_DIR or HOME");
    if (n < 0 || (size_t)n >= size)
        return rt_fail(err, RT_ERR_IO, "cache directory path too long");
    return RT_OK;
}

RtStatus rt_cache_open(RtCache *c, const char *dir, RtError *err)
{
    if (dir) {
        if (strlen(dir) >= sizeof c->dir)
            return rt_fail(err, RT_ERR_IO, "cache directory path too long");
        strcpy(c->dir, dir);
    } else {
        RtStatus s = default_cache_dir(c->dir, sizeof c->dir, err);
        if (s != RT_OK)
            return s;
    }
    return make_dirs(c->dir, err);
}

RtStatus rt_cache_path(const RtCache *c, const RtDigest *key, char *buf, size_t size,
                       RtError *err)
{
    char hex[65];
    rt_digest_hex(key, hex);
    int n = snprintf(buf, size, "%s/%.2s/%s", c->dir, hex, hex + 2);
    if (n < 0 || (size_t)n >= size)
        return rt_fail(err, RT_ERR_IO, "cache entry path too long");
    return RT_OK;
}

/* ---- reading ---- */

static bool read_whole(const char *path, uint8_t **data, size_t *size)
{
    /* O_NONBLOCK: a named pipe in the entry's place opens at once (and is not
     * a regular file) rather than waiting for a writer. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return false;
    struct stat st;
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= HEADER_BYTES &&
              (uint64_t)st.st_size <= MAX_ENTRY_BYTES;
    uint8_t *buf = ok ? malloc((size_t)st.st_size) : NULL;
    size_t got = 0;
    while (buf && got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (!buf || got != (size_t)st.st_size) {
        free(buf);
        return false;
    }
    *data = buf;
    *size = got;
    return true;
}

static bool header_valid(const uint8_t *file, size_t size, const RtDigest *key)
{
    if (memcmp(file, cache_magic, sizeof cache_magic) != 0 || get_le(file + 8, 4) != CACHE_FORMAT)
        return false;
    if (get_le(file + 16, 8) != size - HEADER_BYTES || memcmp(file + 24, key->bytes, 32) != 0 ||
        get_le(file + 88, 8) != 0)
        return false;
    RtDigest sum = rt_sha256(file + HEADER_BYTES, size - HEADER_BYTES);
    return memcmp(file + 56, sum.bytes, 32) == 0;
}

/* Splits the payload into blobs; false when a length runs past the end. */
static bool parse_blobs(uint8_t *payload, size_t size, RtBlob *blobs, size_t nblobs)
{
    size_t at = 0;
    for (size_t i = 0; i < nblobs; i++) {
        /* the previous blob's padding may have run past the end */
        if (at > size || size - at < BLOB_HEADER_BYTES)
            return false;
        uint64_t name_len = get_le(payload + at, 4), data_len = get_le(payload + at + 8, 8);
        at += BLOB_HEADER_BYTES;
        if (name_len == 0 || name_len > size - at || payload[at + name_len - 1] != '\0')
            return false;
        blobs[i].name = (const char *)payload + at;
        at = round16(at + name_len);
        if (at > size || data_len > size - at)
            return false;
        blobs[i].data = payload + at;
        blobs[i].size = data_len;
        at = round16(at + data_len);
    }
    return at == size;
}

bool rt_cache_get(const RtCache *c, const RtDigest *key, RtCacheEntry *out)
{
    char path[sizeof c->dir + 80];
    uint8_t *file;
    size_t size;
    memset(out, 0, sizeof *out);
    if (rt_cache_path(c, key, path, sizeof path, NULL) != RT_OK || !read_whole(path, &file, &size))
        return false;
    bool valid = header_valid(file, size, key);
    size_t nblobs = valid ? get_le(file + 12, 4) : 0;
    valid = valid && nblobs <= (size - HEADER_BYTES) / BLOB_HEADER_BYTES;
    RtBlob *blobs = valid ? calloc(nblobs + 1, sizeof *blobs) : NULL;
    if (!blobs || !parse_blobs(file + HEADER_BYTES, size - HEADER_BYTES, blobs, nblobs)) {
        free(blobs);
        free(file);
        return false;
    }
    out->blobs = blobs;
    out->nblobs = nblobs;
    out->storage = file;
    return true;
}

const RtBlob *rt_cache_entry_find(const RtCacheEntry *e, const char *name)
{
    for (size_t i = 0; i < e->nblobs; i++)
        if (strcmp(e->blobs[i].name, name) == 0)
            return &e->blobs[i];
    return NULL;
}

void rt_cache_entry_free(RtCacheEntry *e)
{
    free(e->blobs);
    free(e->storage);
    memset(e, 0, sizeof *e);
}

/* ---- writing ---- */

static uint8_t *serialize(const RtDigest *key, const RtBlob *blobs, size_t n, size_t *size_out)
{
    size_t size = HEADER_BYTES;
    for (size_t i = 0; i < n; i++)
        size += BLOB_HEADER_BYTES + round16(strlen(blobs[i].name) + 1) + round16(blobs[i].size);
    uint8_t *file = calloc(1, size);
    if (!file)
        return NULL;
    size_t at = HEADER_BYTES;
    for (size_t i = 0; i < n; i++) {
        size_t name_len = strlen(blobs[i].name) + 1;
        put_le(file + at, name_len, 4);
        put_le(file + at + 8, blobs[i].size, 8);
        at += BLOB_HEADER_BYTES;
        memcpy(file + at, blobs[i].name, name_len);
        at += round16(name_len);
        if (blobs[i].size)
            memcpy(file + at, blobs[i].data, blobs[i].size);
        at += round16(blobs[i].size);
    }
    memcpy(file, cache_magic, sizeof cache_magic);
    put_le(file + 8, CACHE_FORMAT, 4);
    put_le(file + 12, n, 4);
    put_le(file + 16, size - HEADER_BYTES, 8);
    memcpy(file + 24, key->bytes, 32);
    RtDigest sum = rt_sha256(file + HEADER_BYTES, size - HEADER_BYTES);
    memcpy(file + 56, sum.bytes, 32);
    *size_out = size;
    return file;
}

static bool write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Creates a temporary file beside `path`, named by this process and a counter
 * (not mkstemp: its files are 0600, and the cache would be private to its
 * first writer; this one gets the umask's mode, as every other file). */
static int create_tmp(const char *path, char *tmp, size_t size)
{
    static _Atomic unsigned counter;
    for (int attempt = 0; attempt < 100; attempt++) {
        int n = snprintf(tmp, size, "%s.tmp.%ld.%u", path, (long)getpid(), counter++);
        if (n < 0 || (size_t)n >= size) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

/* Writes `data` to a fresh temporary file beside `path`, then renames it to `path`. */
static RtStatus write_atomically(const char *path, const uint8_t *data, size_t size, RtError *err)
{
    char tmp[sizeof ((RtCache *)0)->dir + 96];
    int fd = create_tmp(path, tmp, sizeof tmp);
    if (fd < 0)
        return rt_fail(err, RT_ERR_IO, "cannot create %s: %s", tmp, strerror(errno));
    bool ok = write_all(fd, data, size);
    int saved = errno;
    ok = close(fd) == 0 && ok;
    if (ok && rename(tmp, path) == 0)
        return RT_OK;
    saved = ok ? errno : saved;
    unlink(tmp);
    return rt_fail(err, RT_ERR_IO, "cannot write cache entry %s: %s", path, strerror(saved));
}

/* A temporary file older than this was left by a writer that was killed
 * before its rename: a live writer renames within the time it takes to write
 * one entry. */
#define CACHE_STALE_TMP_SECONDS 3600

/* Removes the stale temporary files of the entries' directory `dir`. */
static void remove_stale_tmp(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    time_t now = time(NULL);
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        char path[sizeof ((RtCache *)0)->dir + 96];
        struct stat st;
        if (!strstr(ent->d_name, ".tmp.") ||
            snprintf(path, sizeof path, "%s/%s", dir, ent->d_name) >= (int)sizeof path)
            continue;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
            now - st.st_mtime > CACHE_STALE_TMP_SECONDS)
            unlink(path);
    }
    closedir(d);
}

RtStatus rt_cache_put(const RtCache *c, const RtDigest *key, const RtBlob *blobs, size_t n,
                      RtError *err)
{
    char path[sizeof c->dir + 80];
    RtStatus s = rt_cache_path(c, key, path, sizeof path, err);
    if (s != RT_OK)
        return s;
    char *slash = strrchr(path, '/');
    *slash = '\0';
    s = make_dirs(path, err);
    if (s == RT_OK)
        remove_stale_tmp(path);
    *slash = '/';
    if (s != RT_OK)
        return s;
    size_t size;
    uint8_t *file = serialize(key, blobs, n, &size);
    if (!file)
        return rt_fail(err, RT_ERR_IO, "out of memory writing a cache entry");
    s = write_atomically(path, file, size, err);
    free(file);
    return s;
}
