/* Launch-argument checks of the MLA decodes without a GPU
 * (tirx_check_args on host memory), kernels/mla_decode_sm90.tirx and
 * kernels/mla_decode_sm100.tirx alike (one interface): the three kernels
 * accept FlashMLA's shapes, with the batch, the page count and the block table's width taken
 * from the tensors, and refuse a mismatched shape or dtype with a message
 * naming the argument (a non-positive softmax scale too); the sparse decodes
 * (mla_sparse_fp8_sm90 / _sm100) accept their shapes and refuse such a scale. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "runtime/dlpack.h"
#include "tirx.h"

enum { B = 4, S_Q = 2, H_Q = 64, PAGES = 40, MAXP = 12, PARTS = 66, ROWS = S_Q * H_Q };

typedef struct T4 {
    DLTensor t;
    int64_t shape[4];
} T4;

static void *storage;
/* the softmax scale mla_decode is given */
static double scale = 0.0417;

static T4 make(int ndim, const int64_t *shape, uint8_t code, uint8_t bits)
{
    T4 x = {0};
    for (int i = 0; i < ndim; i++)
        x.shape[i] = shape[i];
    DLTensor t = {.data = storage, .device = {kDLCPU, 0}, .ndim = ndim,
                  .dtype = {code, bits, 1}, .shape = NULL};
    x.t = t;
    return x;
}

/* The decode's arguments in order; shape pointers are fixed up by args(). */
typedef struct Decode {
    T4 q, kv, table, lens, meta, splits, out, lse, oacc, lacc;
} Decode;

static Decode decode_args(void)
{
    Decode d;
    d.q = make(4, (int64_t[]){B, S_Q, H_Q, 576}, kDLBfloat, 16);
    d.kv = make(4, (int64_t[]){PAGES, 64, 1, 576}, kDLBfloat, 16);
    d.table = make(2, (int64_t[]){B, MAXP}, kDLInt, 32);
    d.lens = make(1, (int64_t[]){B}, kDLInt, 32);
    d.meta = make(2, (int64_t[]){PARTS, 8}, kDLInt, 32);
    d.splits = make(1, (int64_t[]){B + 1}, kDLInt, 32);
    d.out = make(4, (int64_t[]){B, S_Q, H_Q, 512}, kDLBfloat, 16);
    d.lse = make(3, (int64_t[]){B, H_Q, S_Q}, kDLFloat, 32);
    d.oacc = make(3, (int64_t[]){B + PARTS, ROWS, 512}, kDLFloat, 32);
    d.lacc = make(2, (int64_t[]){B + PARTS, ROWS}, kDLFloat, 32);
    return d;
}

static void expect(tirx_module *m, const char *name, Decode *d, int which, const char *error)
{
    T4 *all[] = {&d->q, &d->kv, &d->table, &d->lens, &d->meta,
                 &d->splits, &d->out, &d->lse, &d->oacc, &d->lacc};
    tirx_arg a[11];
    int n = 0;
    if (which == 0) {
        for (int i = 0; i < 10; i++)
            all[i]->t.shape = all[i]->shape, a[n++] = tirx_arg_tensor(&all[i]->t);
        a[n++] = tirx_arg_float(scale);
    } else if (which == 1) {
        T4 *c[] = {&d->out, &d->lse, &d->oacc, &d->lacc, &d->splits};
        for (int i = 0; i < 5; i++)
            c[i]->t.shape = c[i]->shape, a[n++] = tirx_arg_tensor(&c[i]->t);
    } else {
        T4 *c[] = {&d->lens, &d->meta, &d->splits};
        for (int i = 0; i < 3; i++)
            c[i]->t.shape = c[i]->shape, a[n++] = tirx_arg_tensor(&c[i]->t);
    }
    tirx_error err = {{0}};
    tirx_status st = tirx_check_args(m, name, a, (size_t)n, &err);
    if (!error) {
        if (st != TIRX_OK)
            fail_msg("%s: unexpected: %s", name, err.message);
        return;
    }
    assert_int_equal(st, TIRX_ERR_USAGE);
    if (!strstr(err.message, error))
        fail_msg("'%s' does not say '%s'", err.message, error);
}

/* kernels/NAME.tirx for `arch`, S_Q 2, H_Q 64, 132 SMs (PARTS parts). */
static tirx_module *compile_kernel(const char *name, const char *arch)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/kernels/%s.tirx", TIRX_SOURCE_DIR, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char text[1 << 17];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    tirx_define d[] = {{"S_Q", "2"}, {"H_Q", "64"}, {"NUM_SMS", "132"}};
    tirx_options o = {.arch = arch, .no_binary = 1};
    tirx_module *m;
    assert_int_equal(tirx_compile(text, n, path, d, 3, &o, &m), TIRX_OK);
    return m;
}

static void check_kernel(const char *name, const char *arch)
{
    storage = aligned_alloc(1024, 1024);
    tirx_module *m = compile_kernel(name, arch);
    Decode d = decode_args();
    expect(m, "mla_decode", &d, 0, NULL);
    expect(m, "mla_combine", &d, 1, NULL);
    expect(m, "mla_metadata", &d, 2, NULL);
    d.q.t.dtype = (DLDataType){kDLFloat, 16, 1};
    expect(m, "mla_decode", &d, 0, "argument q: expected dtype bfloat16, got float16");
    d = decode_args();
    d.kv.shape[3] = 512;
    expect(m, "mla_decode", &d, 0, "argument kv: expected shape[3] == 576, got 512");
    d = decode_args();
    d.kv.shape[1] = 32;
    expect(m, "mla_decode", &d, 0, "argument kv: expected shape[1] == 64, got 32");
    d = decode_args();
    d.table.shape[0] = B + 1;
    expect(m, "mla_decode", &d, 0, "argument block_table: expected shape[0] == batch");
    d = decode_args();
    d.lens.t.dtype = (DLDataType){kDLInt, 64, 1};
    expect(m, "mla_decode", &d, 0, "argument cache_seqlens: expected dtype int32, got int64");
    d = decode_args();
    d.lse.shape[1] = S_Q, d.lse.shape[2] = H_Q;
    expect(m, "mla_decode", &d, 0, "argument lse: expected shape[1] == 64, got 2");
    d = decode_args();
    d.meta.shape[0] = 132;
    expect(m, "mla_decode", &d, 0, "argument meta: expected shape[0] == 66, got 132");
    d = decode_args();
    d.oacc.shape[0] = B;
    expect(m, "mla_combine", &d, 1, "argument o_accum: expected shape[0] == batch + 66");
    d = decode_args();
    d.splits.shape[0] = B;
    expect(m, "mla_metadata", &d, 2, "argument num_splits: expected shape[0] == batch + 1");
    d = decode_args();
    scale = -0.0417;
    expect(m, "mla_decode", &d, 0, "argument scale: expected a positive softmax scale");
    scale = 0.0417;
    tirx_module_free(m);
    free(storage);
}

/* The sparse decodes' arguments (`parts` parts) with softmax scale `sc`:
 * TIRX_OK or the status of tirx_check_args, its message in err. */
static tirx_status check_sparse(tirx_module *m, int parts, double sc, tirx_error *err)
{
    enum { TOPK = 128, BLOCKS = 8 };
    T4 x[10] = {
        make(4, (int64_t[]){B, S_Q, H_Q, 576}, kDLBfloat, 16),
        make(4, (int64_t[]){BLOCKS, 64, 1, 656}, kDLUInt, 8),
        make(3, (int64_t[]){B, S_Q, TOPK}, kDLInt, 32),
        make(2, (int64_t[]){parts, 8}, kDLInt, 32),
        make(1, (int64_t[]){B + 1}, kDLInt, 32),
        make(4, (int64_t[]){B, S_Q, H_Q, 512}, kDLBfloat, 16),
        make(3, (int64_t[]){B, H_Q, S_Q}, kDLFloat, 32),
        make(3, (int64_t[]){B + parts, ROWS, 512}, kDLFloat, 32),
        make(2, (int64_t[]){B + parts, ROWS}, kDLFloat, 32),
        make(1, (int64_t[]){H_Q}, kDLFloat, 32),
    };
    tirx_arg a[11];
    for (int i = 0; i < 10; i++)
        x[i].t.shape = x[i].shape, a[i] = tirx_arg_tensor(&x[i].t);
    a[10] = tirx_arg_float(sc);
    return tirx_check_args(m, "mla_sparse_decode", a, 11, err);
}

static void check_sparse_kernel(const char *name, const char *arch, int parts)
{
    storage = aligned_alloc(1024, 1024);
    tirx_module *m = compile_kernel(name, arch);
    tirx_error err = {{0}};
    if (check_sparse(m, parts, 0.0417, &err) != TIRX_OK)
        fail_msg("%s: unexpected: %s", name, err.message);
    assert_int_equal(check_sparse(m, parts, 0.0, &err), TIRX_ERR_USAGE);
    if (!strstr(err.message, "mla_sparse_decode: argument scale: expected a positive softmax scale"))
        fail_msg("'%s' does not name the scale", err.message);
    tirx_module_free(m);
    free(storage);
}

static void test_mla_args_sm90(void **state)
{
    (void)state;
    check_kernel("mla_decode_sm90", "sm_90a");
}

static void test_mla_args_sm100(void **state)
{
    (void)state;
    check_kernel("mla_decode_sm100", "sm_100a");
}

/* S_Q 2, H_Q 64: 132 SMs over two blocks of 64 query rows, as PARTS */
static void test_mla_sparse_args_sm90(void **state)
{
    (void)state;
    check_sparse_kernel("mla_sparse_fp8_sm90", "sm_90a", PARTS);
}

static void test_mla_sparse_args_sm100(void **state)
{
    (void)state;
    check_sparse_kernel("mla_sparse_fp8_sm100", "sm_100a", PARTS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mla_args_sm90),
        cmocka_unit_test(test_mla_args_sm100),
        cmocka_unit_test(test_mla_sparse_args_sm90),
        cmocka_unit_test(test_mla_sparse_args_sm100),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
