/* Unit tests of running out of memory through the public API: with the n-th
 * allocation made to fail (tx_fail_allocs_after) for every n until the call
 * succeeds, tirx_parse, tirx_verify, tirx_print, tirx_lower, tirx_compile
 * (CUDA generation only), tirx_module_host and tirx_layout_describe return
 * TIRX_ERR_NOMEM (NULL for strings) or succeed; they never crash or exit, and
 * a module they refused is only freed. The sweep runs in a child process: the
 * heap memory an unwound call held is lost, which LeakSanitizer would report. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/base.h"
#include "tirx.h"

static const char source[] =
    "@T.prim_func\n"
    "def vadd(A: T.Buffer((\"n\",), \"float32\"), B: T.Buffer((n,), \"float32\"),\n"
    "         C: T.Buffer((n,), \"float32\")):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([T.ceildiv(n, 128)])\n"
    "    tx = T.thread_id([128])\n"
    "    if bx * 128 + tx < n:\n"
    "        C[bx * 128 + tx] = A[bx * 128 + tx] + B[bx * 128 + tx]\n";

/* One step of the sweep: TIRX_OK when everything succeeded, TIRX_ERR_NOMEM
 * when memory ran out somewhere (checked to be reported as it should). */
typedef tirx_status (*Step)(void);

static tirx_status parse_verify_print_lower(void)
{
    tirx_module *m = NULL;
    tirx_status st = tirx_parse(source, sizeof source - 1, "vadd.tirx", NULL, 0, &m);
    if (st == TIRX_ERR_NOMEM) {
        if (m)
            _exit(10); /* *out is NULL on NOMEM */
        return st;
    }
    if (st == TIRX_OK)
        st = tirx_verify(m);
    char *text = st == TIRX_OK ? tirx_print(m) : NULL;
    if (st == TIRX_OK && !text)
        st = TIRX_ERR_NOMEM;
    tirx_free(text);
    if (st == TIRX_OK)
        st = tirx_lower(m, NULL, NULL);
    tirx_module_free(m);
    return st;
}

static tirx_status compile_to_cuda(void)
{
    tirx_options o = {.arch = "sm_90a", .no_binary = 1};
    tirx_module *m = NULL;
    tirx_status st = tirx_compile(source, sizeof source - 1, "vadd.tirx", NULL, 0, &o, &m);
    if (st == TIRX_ERR_NOMEM && m)
        _exit(11);
    char *host = st == TIRX_OK ? tirx_module_host(m) : NULL;
    if (st == TIRX_OK && !host)
        st = TIRX_ERR_NOMEM;
    tirx_free(host);
    tirx_module_free(m);
    return st;
}

static tirx_status describe_layout(void)
{
    long long shape[2] = {8, 16};
    char *out = NULL;
    tirx_module *diags = NULL;
    tirx_status st = tirx_layout_describe("T.TileLayout(T.S[(8, 16):(16, 1)])", shape, 2, NULL,
                                          NULL, &out, &diags);
    if (st == TIRX_ERR_NOMEM && (out || diags))
        _exit(12);
    tirx_free(out);
    tirx_module_free(diags);
    return st;
}

/* In a child: fails allocation n for n = 0, 1, 2, ... (sparser past 2,000)
 * until the step succeeds; every other status is a failure. */
static void sweep(Step step)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        for (long n = 0;; n += n < 2000 ? 1 : n / 50) {
            tx_fail_allocs_after(n);
            tirx_status st = step();
            tx_fail_allocs_after(-1);
            if (st == TIRX_OK)
                _exit(n > 0 ? 0 : 13); /* the first allocation must fail */
            if (st != TIRX_ERR_NOMEM)
                _exit(14);
        }
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_parse_verify_print_lower(void **state)
{
    (void)state;
    sweep(parse_verify_print_lower);
}

static void test_compile(void **state)
{
    (void)state;
    sweep(compile_to_cuda);
}

static void test_layout(void **state)
{
    (void)state;
    sweep(describe_layout);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_verify_print_lower),
        cmocka_unit_test(test_compile),
        cmocka_unit_test(test_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
