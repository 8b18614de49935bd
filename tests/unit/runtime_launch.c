/* Unit tests of the launch path (rt_launch) against a fake driver
 * (tests/tools/fake_libcuda.c, loaded through TIRX_LIBCUDA): the
 * configuration and launch attributes cuLaunchKernelEx receives. A plain
 * launch passes none; a cluster shape the cluster dimension; a programmatic
 * dependent launch programmatic stream serialization (value 1), beside the
 * cluster dimension when there is one. A device below sm_90 refuses a
 * programmatic dependent launch with a message, launching nothing. Waits
 * for a kernel that never finishes end with TIRX_KERNEL_TIMEOUT. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include <cmocka.h>

#include "runtime/cuda_api.h"
#include "runtime/runtime.h"

typedef int (*LastLaunchFn)(CUlaunchConfig *cfg);
typedef void (*SetCcFn)(int major);

typedef struct Fake {
    LastLaunchFn last_launch;
    SetCcFn set_cc;
} Fake;

static Fake fake(void)
{
    void *lib = dlopen(TIRX_FAKE_LIBCUDA, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(lib);
    Fake f;
    void *p = dlsym(lib, "fake_cuda_last_launch"), *q = dlsym(lib, "fake_cuda_set_cc");
    assert_non_null(p);
    assert_non_null(q);
    memcpy(&f.last_launch, &p, sizeof p);
    memcpy(&f.set_cc, &q, sizeof q);
    return f;
}

/* Launches one kernel of a fake module on a device of compute capability
 * cc_major; returns the status, *cfg the configuration the driver saw. */
static RtStatus launch(int cc_major, unsigned cx, unsigned cy, bool pdl, CUlaunchConfig *cfg,
                       int *launches, RtError *err)
{
    RtDevice *d;
    RtModule *m;
    RtFunction *f;
    assert_int_equal(rt_device_open(0, &d, err), RT_OK);
    Fake fk = fake();
    fk.set_cc(cc_major);
    rt_device_close(d);
    assert_int_equal(rt_device_open(0, &d, err), RT_OK);
    assert_int_equal(rt_module_load(d, "not a cubin", &m, err), RT_OK);
    assert_int_equal(rt_module_function(m, "k", &f, err), RT_OK);
    RtLaunchConfig c = {.grid = {8, 4, 1}, .block = {128, 1, 1}, .cluster = {cx, cy, 0},
                        .pdl = pdl};
    int before = fk.last_launch(cfg);
    RtStatus s = rt_launch(f, &c, NULL, err);
    *launches = fk.last_launch(cfg) - before;
    rt_module_unload(m);
    rt_device_close(d);
    return s;
}

static void assert_cluster(const CUlaunchAttribute *a, unsigned x, unsigned y)
{
    assert_int_equal(a->id, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
    assert_int_equal(a->value.clusterDim.x, x);
    assert_int_equal(a->value.clusterDim.y, y);
    assert_int_equal(a->value.clusterDim.z, 1);
}

static void assert_pdl(const CUlaunchAttribute *a)
{
    assert_int_equal(a->id, CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
    assert_int_equal(a->value.programmaticStreamSerializationAllowed, 1);
}

static void test_plain(void **state)
{
    (void)state;
    CUlaunchConfig cfg;
    RtError err;
    int n;
    assert_int_equal(launch(9, 0, 0, false, &cfg, &n, &err), RT_OK);
    assert_int_equal(n, 1);
    assert_int_equal(cfg.gridDimX, 8);
    assert_int_equal(cfg.gridDimY, 4);
    assert_int_equal(cfg.blockDimX, 128);
    assert_int_equal(cfg.numAttrs, 0);
}

static void test_cluster(void **state)
{
    (void)state;
    CUlaunchConfig cfg;
    RtError err;
    int n;
    assert_int_equal(launch(9, 2, 1, false, &cfg, &n, &err), RT_OK);
    assert_int_equal(cfg.numAttrs, 1);
    assert_cluster(&cfg.attrs[0], 2, 1);
}

static void test_pdl(void **state)
{
    (void)state;
    CUlaunchConfig cfg;
    RtError err;
    int n;
    assert_int_equal(launch(9, 0, 0, true, &cfg, &n, &err), RT_OK);
    assert_int_equal(n, 1);
    assert_int_equal(cfg.numAttrs, 1);
    assert_pdl(&cfg.attrs[0]);
}

static void test_cluster_and_pdl(void **state)
{
    (void)state;
    CUlaunchConfig cfg;
    RtError err;
    int n;
    assert_int_equal(launch(10, 2, 2, true, &cfg, &n, &err), RT_OK);
    assert_int_equal(cfg.numAttrs, 2);
    assert_cluster(&cfg.attrs[0], 2, 2);
    assert_pdl(&cfg.attrs[1]);
}

static void test_pdl_needs_sm90(void **state)
{
    (void)state;
    CUlaunchConfig cfg;
    RtError err;
    int n;
    assert_int_equal(launch(8, 0, 0, true, &cfg, &n, &err), RT_ERR_USAGE);
    assert_int_equal(n, 0);
    assert_string_equal(err.message, "launch of k: Fake GPU has no programmatic dependent "
                                     "launch (needs sm_90+)");
    assert_int_equal(launch(8, 0, 0, false, &cfg, &n, &err), RT_OK);
    assert_int_equal(n, 1);
}

/* The fake driver's kernels never finish: with TIRX_KERNEL_TIMEOUT a wait
 * for them (a synchronize, a copy back, an event's time) is an error after
 * that long, and every later call on that device's context fails at once (a
 * free or the context's release would block), through any handle of it; a
 * bad value is refused when the device opens. */
enum { WAIT_SYNC, WAIT_COPY, WAIT_EVENT };

static RtStatus wait_for_gpu(RtDevice *d, int how, RtError *err)
{
    int host;
    float ms;
    RtEvent *a = NULL, *b = NULL;
    RtStatus s;
    switch (how) {
    case WAIT_SYNC: return rt_synchronize(d, NULL, err);
    case WAIT_COPY: return rt_memcpy_dtoh(d, &host, 0, sizeof host, err);
    default:
        assert_int_equal(rt_event_create(d, &a, err), RT_OK);
        assert_int_equal(rt_event_create(d, &b, err), RT_OK);
        s = rt_event_elapsed_ms(a, b, &ms, err);
        rt_event_destroy(a);
        rt_event_destroy(b);
        return s;
    }
}

static void test_kernel_timeout(void **state)
{
    (void)state;
    RtDevice *d, *other;
    RtError err;
    const char *still = "the GPU is still running a kernel that did not finish within 0.05 s "
                        "(TIRX_KERNEL_TIMEOUT)";
    setenv("TIRX_KERNEL_TIMEOUT", "0.05", 1);
    /* each way of waiting on a device of its own: a timed-out context stays unusable */
    for (int how = WAIT_SYNC; how <= WAIT_EVENT; how++) {
        int ordinal = 1 + how;
        assert_int_equal(rt_device_open(ordinal, &d, &err), RT_OK);
        assert_int_equal(rt_device_open(ordinal, &other, &err), RT_OK);
        assert_int_equal(wait_for_gpu(d, how, &err), RT_ERR_CUDA);
        assert_string_equal(err.message, "the GPU did not finish within 0.05 s "
                                         "(TIRX_KERNEL_TIMEOUT): a kernel that never ends, such "
                                         "as a barrier or wait that never completes; its context "
                                         "is unusable now");
        assert_int_equal(wait_for_gpu(d, WAIT_COPY, &err), RT_ERR_CUDA);
        assert_string_equal(err.message, still);
        assert_int_equal(rt_synchronize(other, NULL, &err), RT_ERR_CUDA);
        assert_string_equal(err.message, still);
        rt_device_close(other);
        rt_device_close(d);
        assert_int_equal(rt_device_open(ordinal, &d, &err), RT_ERR_CUDA);
        assert_string_equal(err.message, still);
    }
    /* device 0 is another context */
    assert_int_equal(rt_device_open(0, &d, &err), RT_OK);
    rt_device_close(d);
    setenv("TIRX_KERNEL_TIMEOUT", "soon", 1);
    assert_int_equal(rt_device_open(0, &d, &err), RT_ERR_USAGE);
    assert_string_equal(err.message, "TIRX_KERNEL_TIMEOUT is a number of seconds from 0 (no "
                                     "limit) to 1e6, not 'soon'");
    unsetenv("TIRX_KERNEL_TIMEOUT");
}

int main(void)
{
    /* before the first call into the driver, which loads it once per process */
    setenv("TIRX_LIBCUDA", TIRX_FAKE_LIBCUDA, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_cluster),
        cmocka_unit_test(test_pdl),
        cmocka_unit_test(test_cluster_and_pdl),
        cmocka_unit_test(test_pdl_needs_sm90),
        cmocka_unit_test(test_kernel_timeout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
