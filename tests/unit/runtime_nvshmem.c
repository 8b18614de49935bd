/* Unit tests of NVSHMEM in the runtime, without a GPU: finding it through
 * TIRX_NVSHMEM_HOME (each missing file named), and the check a module that
 * uses NVSHMEM goes through when it is loaded: not initialised while
 * libnvshmem_host is not loaded, and not initialised either once it is loaded
 * but nvshmem_init has not run (when this machine has NVSHMEM). */
#define _GNU_SOURCE /* mkdtemp, setenv */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "runtime/runtime.h"

static void touch(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
}

static void subdir(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(mkdir(path, 0700), 0);
}

static void remove_home(const char *home)
{
    const char *files[] = {"include/nvshmem.h", "lib/libnvshmem_device.a", "include", "lib", ""};
    char path[1024];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", home, files[i]);
        remove(path);
    }
}

/* TIRX_NVSHMEM_HOME is the only place looked at when set; what it lacks is named. */
static void test_find_home(void **state)
{
    (void)state;
    const char *saved = getenv("TIRX_NVSHMEM_HOME");
    char *before = saved ? strdup(saved) : NULL;
    char home[] = "/tmp/tirx-nvshmem-home.XXXXXX";
    assert_non_null(mkdtemp(home));
    setenv("TIRX_NVSHMEM_HOME", home, 1);
    RtNvshmem n;
    RtError err;
    assert_int_equal(rt_nvshmem_find(&n, &err), RT_ERR_NO_NVSHMEM);
    assert_non_null(strstr(err.message, "has no include/nvshmem.h"));
    subdir(home, "include");
    touch(home, "include/nvshmem.h");
    assert_int_equal(rt_nvshmem_find(&n, &err), RT_ERR_NO_NVSHMEM);
    assert_non_null(strstr(err.message, "has no lib/libnvshmem_device.a"));
    subdir(home, "lib");
    touch(home, "lib/libnvshmem_device.a");
    /* the rest depends on this machine's CUDA headers */
    RtStatus s = rt_nvshmem_find(&n, &err);
    if (s == RT_OK) {
        char want[1100];
        snprintf(want, sizeof want, "%s/include", home);
        assert_string_equal(n.include[0], want);
        snprintf(want, sizeof want, "%s/lib/libnvshmem_device.a", home);
        assert_string_equal(n.device_lib, want);
        assert_true(n.ninclude >= 2);
    } else {
        assert_int_equal(s, RT_ERR_NO_NVSHMEM);
        assert_true(strstr(err.message, "no CUDA headers") || strstr(err.message, "no libcu++"));
    }
    remove_home(home);
    if (before)
        setenv("TIRX_NVSHMEM_HOME", before, 1);
    else
        unsetenv("TIRX_NVSHMEM_HOME");
    free(before);
}

static void test_not_initialised(void **state)
{
    (void)state;
    RtError err;
    assert_int_equal(rt_nvshmem_check_initialised(&err), RT_ERR_NO_NVSHMEM);
    assert_non_null(strstr(err.message, "libnvshmem_host.so.3 is not loaded"));
    RtNvshmem n;
    if (rt_nvshmem_find(&n, NULL) != RT_OK)
        return; /* no NVSHMEM here: the host library cannot be loaded */
    char lib[1200];
    snprintf(lib, sizeof lib, "%.*s/lib/libnvshmem_host.so.3",
             (int)(strlen(n.include[0]) - strlen("/include")), n.include[0]);
    void *host = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!host)
        return; /* the package has no host library (a headers-only install) */
    assert_int_equal(rt_nvshmem_check_initialised(&err), RT_ERR_NO_NVSHMEM);
    assert_non_null(strstr(err.message, "nvshmemx_init_status() is 0"));
    dlclose(host);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find_home),
        cmocka_unit_test(test_not_initialised),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
