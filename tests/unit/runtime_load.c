/* Unit tests of the runtime's loaders: a missing libcuda, the toolkit's stub
 * libcuda (cuInit answers CUDA_ERROR_STUB_LIBRARY), the process-wide driver
 * check (whatever this machine has, the answer is a status and a message,
 * the same every time), calls that need the driver failing with that status,
 * and NVRTC's version. TIRX_CUDA_STUB is the stub's path, when CMake found
 * one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "runtime/runtime.h"

static bool driver_unavailable(RtStatus s)
{
    return s == RT_ERR_NO_DRIVER || s == RT_ERR_NO_GPU || s == RT_ERR_DRIVER_TOO_OLD;
}

static void test_missing_library(void **state)
{
    (void)state;
    RtError err;
    assert_int_equal(rt_driver_probe("libtirx-no-such-driver.so.1", &err), RT_ERR_NO_DRIVER);
    assert_int_equal(err.status, RT_ERR_NO_DRIVER);
    assert_non_null(strstr(err.message, "no CUDA driver: cannot load libtirx-no-such-driver.so.1"));
    assert_int_equal(rt_driver_probe("libtirx-no-such-driver.so.1", NULL), RT_ERR_NO_DRIVER);
}

static void test_not_a_driver(void **state)
{
    (void)state;
    RtError err;
    /* A library that loads but has no cuInit. */
    assert_int_equal(rt_driver_probe("libm.so.6", &err), RT_ERR_NO_DRIVER);
    assert_non_null(strstr(err.message, "has no cuInit"));
}

static void test_stub_library(void **state)
{
    (void)state;
#ifdef TIRX_CUDA_STUB
    RtError err;
    assert_int_equal(rt_driver_probe(TIRX_CUDA_STUB, &err), RT_ERR_NO_DRIVER);
    assert_non_null(strstr(err.message, "no CUDA driver"));
    assert_non_null(strstr(err.message, "stub library"));
#else
    skip();
#endif
}

static void test_process_driver(void **state)
{
    (void)state;
    RtError first, second;
    RtStatus s = rt_driver_check(&first);
    assert_int_equal(rt_driver_check(&second), s);
    if (s == RT_OK)
        return;
    assert_true(driver_unavailable(s));
    assert_int_equal(first.status, s);
    assert_string_equal(first.message, second.message);
    assert_true(strlen(first.message) > 0);
}

/* Every entry point that needs the driver reports the loader's status. */
static void test_calls_without_driver(void **state)
{
    (void)state;
    RtError load, err;
    RtStatus s = rt_driver_check(&load);
    if (s == RT_OK)
        skip();
    RtDevice *d = (RtDevice *)1;
    int n = -1;
    assert_int_equal(rt_device_open(0, &d, &err), s);
    assert_null(d);
    assert_string_equal(err.message, load.message);
    assert_int_equal(rt_device_count(&n, &err), s);
    RtTensorMapSpec spec = {.dtype = RT_TMA_FLOAT32, .rank = 1, .global_address = 256,
                            .global_dim = {64}, .box_dim = {32}};
    RtTensorMap map;
    assert_int_equal(rt_tensor_map_encode(&spec, &map, &err), s);
}

static void test_nvrtc_version(void **state)
{
    (void)state;
    int major = 0, minor = -1;
    RtError err;
    RtStatus s = rt_nvrtc_version(&major, &minor, &err);
    if (s != RT_OK) {
        assert_int_equal(s, RT_ERR_NO_NVRTC);
        assert_non_null(strstr(err.message, "no NVRTC"));
        skip();
    }
    assert_true(major >= 12);
    assert_true(minor >= 0);
}

static void test_status_names(void **state)
{
    (void)state;
    assert_string_equal(rt_status_name(RT_OK), "ok");
    assert_string_equal(rt_status_name(RT_ERR_NO_DRIVER), "no CUDA driver");
    assert_string_equal(rt_status_name(RT_ERR_NO_GPU), "no GPU");
    assert_string_equal(rt_status_name((RtStatus)999), "unknown status");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_library),
        cmocka_unit_test(test_not_a_driver),
        cmocka_unit_test(test_stub_library),
        cmocka_unit_test(test_process_driver),
        cmocka_unit_test(test_calls_without_driver),
        cmocka_unit_test(test_nvrtc_version),
        cmocka_unit_test(test_status_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
