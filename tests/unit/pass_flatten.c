/* Unit tests of FlattenBuffer's identity rules on hand-built IR (what the
 * text goldens of tests/pass cannot see): an already-flat buffer keeps its
 * variable (layout_passes.md §5.8 P8), a rebuilt one is a new variable used
 * everywhere (no stale reference), a use before the definition is an
 * error naming the buffer, reported at its statement, and the index width
 * decision (int64 offsets only where the storage may hold 2^31 elements). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ir/visit.h"
#include "irb.h"
#include "pass/internal.h"

static bool flatten(IrModule *m)
{
    PsCtx ctx = {0};
    int id = ps_pass_lookup("FlattenBuffer");
    assert_true(id >= 0);
    PsPassId pid = (PsPassId)id;
    return ps_run(&ctx, m, &pid, 1);
}

/* The statements of a body, flattened out of sequences. */
static const IrStmt *nth(const IrStmt *body, int i)
{
    return body->kind == IR_S_SEQ ? body->u.seq.stmts[i] : body;
}

static void test_flat_keeps_identity(void **state)
{
    (void)state;
    IrModule *m = irb_module(4);
    IrExpr *flat = irb_buffer(m, "flat", IR_FLOAT32, "shared", 1, irb_i(m, 32));
    flat->u.var.type->buf->layout = NULL;
    IrExpr *i = irb_var(m, "i", IR_INT32);
    IrStmt *body = irb_seq(m, 2, irb_alloc(m, flat),
                           irb_for(m, i, irb_i(m, 32),
                                   irb_store(m, flat, ir_float(&m->arena, IR_FLOAT32, 1.0,
                                                               (TxSpan){0}), 1, i)));
    irb_func(m, "f", body, 0);
    assert_true(flatten(m));
    const IrStmt *alloc = nth(m->funcs[0]->body, 0);
    assert_int_equal(alloc->kind, IR_S_ALLOC);
    assert_ptr_equal(alloc->u.alloc.buffer, flat);
    const IrStmt *store = nth(m->funcs[0]->body, 1)->u.loop.body;
    assert_ptr_equal(store->u.store.buffer, flat);
    ir_module_free(m);
}

static void test_rebuilt_is_used_everywhere(void **state)
{
    (void)state;
    IrModule *m = irb_module(4);
    IrExpr *tile = irb_buffer(m, "tile", IR_FLOAT32, "shared", 2, irb_i(m, 4), irb_i(m, 8));
    IrExpr *i = irb_var(m, "i", IR_INT32);
    IrStmt *body = irb_seq(m, 2, irb_alloc(m, tile),
                           irb_for(m, i, irb_i(m, 4),
                                   irb_store(m, tile, irb_load(m, tile, 2, i, irb_i(m, 7)), 2, i,
                                             irb_i(m, 0))));
    irb_func(m, "f", body, 0);
    assert_true(flatten(m));
    const IrStmt *alloc = nth(m->funcs[0]->body, 0);
    IrExpr *husk = alloc->u.alloc.buffer;
    assert_ptr_not_equal(husk, tile);
    assert_int_equal(ir_buf(husk)->ndim, 1);
    assert_null(ir_buf(husk)->layout);
    const IrStmt *store = nth(m->funcs[0]->body, 1)->u.loop.body;
    assert_ptr_equal(store->u.store.buffer, husk);
    assert_ptr_equal(store->u.store.value->u.access.buffer, husk);
    assert_true(ir_verify(m));
    ir_module_free(m);
}

static void test_use_before_definition(void **state)
{
    (void)state;
    IrModule *m = irb_module(4);
    IrExpr *late = irb_buffer(m, "late", IR_FLOAT32, "shared", 1, irb_i(m, 16));
    IrStmt *use = irb_store(m, late, ir_float(&m->arena, IR_FLOAT32, 0.0, (TxSpan){0}), 1,
                            irb_i(m, 0));
    use->span = irb_line(m, 2);
    irb_func(m, "f", irb_seq(m, 2, use, irb_alloc(m, late)), 0);
    assert_false(flatten(m));
    int d = irb_find_diag(m, "buffer 'late' is used before its definition "
                             "(AllocBuffer/DeclBuffer/param)");
    assert_true(d >= 0);
    assert_int_equal(irb_line_of(m->diags.list.items[d].span), 2);
    ir_module_free(m);
}

/* The storage bits of a buffer of dtype t with one extent, and elem_offset off. */
static int64_t bits_of(IrModule *m, IrDType t, IrExpr *extent, IrExpr *off)
{
    IrExpr *buf = irb_buffer(m, "b", t, "global", 1, extent);
    if (off)
        buf->u.var.type->buf->elem_offset = off;
    return ps_storage_bits(ir_buf(buf), t, extent);
}

static bool wide(IrModule *m, IrDType t, IrExpr *extent, IrExpr *off)
{
    return ps_offsets_are_wide(t, bits_of(m, t, extent, off));
}

static void test_index_width(void **state)
{
    (void)state;
    IrModule *m = irb_module(1);
    IrExpr *n = irb_var(m, "n", IR_INT32), *h = irb_var(m, "h", IR_INT16);
    IrExpr *l = irb_var(m, "l", IR_INT64), *i = irb_var(m, "i", IR_INT32);
    /* constants: 2^31 elements still fit (the last index is 2^31 - 1) */
    assert_false(wide(m, IR_FLOAT32, irb_i(m, 64 * 64), NULL));
    assert_false(wide(m, IR_FLOAT32, ir_int(&m->arena, IR_INT64, (int64_t)1 << 31, (TxSpan){0}),
                      NULL));
    assert_true(wide(m, IR_FLOAT32,
                     ir_int(&m->arena, IR_INT64, ((int64_t)1 << 31) + 1, (TxSpan){0}), NULL));
    /* symbolic extents at their dtype's maximum */
    assert_int_equal(bits_of(m, IR_UINT8, n, NULL), INT32_MAX * (int64_t)8);
    assert_false(wide(m, IR_UINT8, n, NULL));
    assert_true(wide(m, IR_UINT8, irb_bin(m, IR_E_MUL, n, irb_i(m, 656)), NULL));
    assert_true(wide(m, IR_FLOAT32, irb_bin(m, IR_E_MUL, n, irb_bin(m, IR_E_ADD, n, irb_i(m, 1))),
                     NULL));
    /* 32767 * 65538 < 2^31 <= 32767 * 65540 */
    assert_false(wide(m, IR_FLOAT32, irb_bin(m, IR_E_MUL, h, irb_i(m, 65538)), NULL));
    assert_true(wide(m, IR_FLOAT32, irb_bin(m, IR_E_MUL, h, irb_i(m, 65540)), NULL));
    assert_int_equal(bits_of(m, IR_FLOAT32, l, NULL), INT64_MAX);
    assert_true(wide(m, IR_FLOAT32, l, NULL));
    /* the offset counts: a 16-element window at a symbolic offset */
    assert_false(wide(m, IR_FLOAT32, irb_i(m, 16), irb_i(m, 1024)));
    assert_true(wide(m, IR_FLOAT32, irb_i(m, 16), i));
    /* a view takes its root's bits in its own elements: 2^31 floats are
     * 2^33 bytes */
    int64_t root = bits_of(m, IR_FLOAT32, ir_int(&m->arena, IR_INT64, (int64_t)1 << 31, (TxSpan){0}),
                           NULL);
    assert_false(ps_offsets_are_wide(IR_FLOAT32, root));
    assert_true(ps_offsets_are_wide(IR_UINT8, root));
    assert_false(ps_offsets_are_wide(IR_FLOAT64, root));
    ir_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flat_keeps_identity),
        cmocka_unit_test(test_rebuilt_is_used_everywhere),
        cmocka_unit_test(test_use_before_definition),
        cmocka_unit_test(test_index_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
