/* Unit tests of the tile-op table (src/ir/tile_ops.def) and the tile-primitive
 * registry (src/op/variants.def): the ops' names are unique and found by
 * lookup, their arities fit their signatures; every variant row is complete,
 * (op, variant) pairs are unique (family rows included), every family row
 * lowers some op, and the dispatch order is descending priority then name --
 * checked on a parsed call by the order of the reasons in the failure report.
 * Also the architecture checks the variants make through the PTX table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "op/op.h"
#include "pass/pass.h"
#include "script/script.h"

static void test_tile_ops(void **state)
{
    (void)state;
    for (int i = 0; i < IR_TILE_COUNT; i++) {
        const IrTileOpInfo *t = &ir_tile_ops[i];
        assert_int_equal(ir_tile_op_lookup(t->name), i);
        int np = ir_tile_op_nparams((IrTileOp)i);
        assert_true(t->arity >= 0 && (t->arity < np || np == 0));
        assert_true((t->flags & IR_TILE_FRAME) ? np == 0 : np > 0);
    }
    assert_int_equal(ir_tile_op_lookup("copy_async"), IR_TILE_COPY_ASYNC);
    assert_int_equal(ir_tile_op_lookup("cpy"), -1);
    assert_int_equal(ir_tile_op_nparams(IR_TILE_EXP), 4);
    assert_int_equal(ir_tile_op_nparams(IR_TILE_GEMM_ASYNC), 8);
    assert_int_equal(ir_tile_ops[IR_TILE_FMA].arity, 3);
    assert_int_equal(ir_tile_ops[IR_TILE_SUM].family, IR_TILE_FAMILY_REDUCTION);
}

static void test_rows_complete_and_unique(void **state)
{
    (void)state;
    int n;
    const OpVariant *v = op_variants(&n);
    assert_true(n > 0);
    for (int i = 0; i < n; i++) {
        assert_non_null(v[i].accept);
        assert_non_null(v[i].lower);
        assert_true(v[i].what && *v[i].what);
        assert_true(v[i].priority >= 0);
        int lowered = 0;
        for (int op = 0; op < IR_TILE_COUNT; op++) {
            if (!op_variant_lowers(&v[i], (IrTileOp)op))
                continue;
            lowered++;
            for (int j = 0; j < i; j++)
                assert_false(op_variant_lowers(&v[j], (IrTileOp)op) &&
                             !strcmp(v[i].name, v[j].name));
        }
        assert_true(lowered > 0);
    }
    /* a family row is a variant of each op of the family, and of no other */
    int mem = -1;
    for (int i = 0; i < n; i++)
        if (v[i].op == IR_TILE_COUNT && v[i].family == IR_TILE_FAMILY_ELEMENTWISE)
            mem = i;
    assert_true(mem >= 0);
    assert_true(op_variant_lowers(&v[mem], IR_TILE_ADD));
    assert_true(op_variant_lowers(&v[mem], IR_TILE_SILU));
    assert_false(op_variant_lowers(&v[mem], IR_TILE_COPY));
    assert_false(op_variant_lowers(&v[mem], IR_TILE_SUM));
}

/* A CTA-scope copy out of a plain local array, which no variant accepts. */
static const char *const refused =
    "@T.prim_func\n"
    "def f(A: T.Buffer((64,), \"float32\")):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([64])\n"
    "    R = T.alloc_local((64,), \"float32\")\n"
    "    Tx.cta.copy(A, R)\n";

static void test_failure_lists_variants_in_order(void **state)
{
    (void)state;
    IrModule *m = sc_parse(refused, strlen(refused), "f.tirx", NULL, 0);
    assert_int_equal(m->diags.nerrors, 0);
    PsCtx ctx = {.arch = "sm_90a"};
    assert_false(ps_tile_dispatch(&ctx, m));
    /* one error, then one note per copy variant in trial order */
    int n;
    const OpVariant *v = op_variants(&n);
    int prev_prio = 1 << 30;
    const char *prev_name = "";
    int notes = 0;
    for (int i = 0; i < m->diags.list.len; i++) {
        const TxDiag *d = &m->diags.list.items[i];
        if (d->sev != TX_SEV_NOTE)
            continue;
        notes++;
        for (int k = 0; k < n; k++) {
            char head[128];
            snprintf(head, sizeof head, "variant '%s' (priority %d)", v[k].name, v[k].priority);
            if (!op_variant_lowers(&v[k], IR_TILE_COPY) || strncmp(d->msg, head, strlen(head)))
                continue;
            assert_true(v[k].priority < prev_prio ||
                        (v[k].priority == prev_prio && strcmp(v[k].name, prev_name) > 0));
            prev_prio = v[k].priority, prev_name = v[k].name;
        }
    }
    int copies = 0;
    for (int k = 0; k < n; k++)
        copies += op_variant_lowers(&v[k], IR_TILE_COPY);
    assert_int_equal(notes, copies);
    assert_int_equal(m->diags.nerrors, 1);
    ir_module_free(m);
}

/* The architecture checks read the PTX table: an instruction is refused on a
 * target older than its entry (or one of its tokens) with the first target
 * that has it, on a newer one that lacks it (wgmma on sm_100a) with the one
 * that has it; an unknown target has what sm_80 has. */
static void test_ptx_architecture(void **state)
{
    (void)state;
    IrModule *m = ir_module_new();
    IrStmt *call = ir_stmt(&m->arena, IR_S_TILE, (TxSpan){0});
    call->u.tile.op = IR_TILE_COPY_ASYNC;
    OpCtx c = {.arena = &m->arena, .call = call};
    const char *tma = "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes";
    const char *grouped = "cp.async.bulk.tensor.2d.shared::cluster.global."
                          "mbarrier::complete_tx::bytes.cta_group::1";
    c.sm = 80;
    assert_string_equal(op_need_ptx(&c, "TMA", tma),
                        "TMA (cp.async.bulk.tensor.2d.shared::cluster.global."
                        "mbarrier::complete_tx::bytes) needs sm_90a or newer; the target is sm_80");
    assert_null(op_need_ptx(&c, "cp.async", "cp.async.cg.shared.global"));
    assert_null(op_need_ptx(&c, "mma.sync", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
    c.sm = 90;
    assert_null(op_need_ptx(&c, "TMA", tma));
    assert_false(op_has_ptx(&c, grouped)); /* the cta_group token is sm_100a's */
    assert_string_equal(op_need_ptx(&c, "TMA", grouped),
                        "TMA (cp.async.bulk.tensor.2d.shared::cluster.global."
                        "mbarrier::complete_tx::bytes.cta_group::1) needs sm_100a or newer; the "
                        "target is sm_90a");
    const char *wgmma = "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16";
    assert_null(op_need_ptx(&c, "wgmma", wgmma));
    c.sm = 100;
    assert_true(op_has_ptx(&c, grouped));
    assert_null(op_need_ptx(&c, "TMA", grouped));
    assert_false(op_has_ptx(&c, wgmma)); /* sm_90a only */
    assert_string_equal(op_need_ptx(&c, "wgmma", wgmma),
                        "wgmma (wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16) exists only "
                        "on sm_90a; the target is sm_100a");
    c.sm = 0;
    assert_false(op_has_ptx(&c, "cp.async.cg.shared.global"));
    assert_null(op_need_ptx(&c, "cp.async", "cp.async.cg.shared.global"));
    const char *why = op_need_ptx(&c, "TMA", tma);
    assert_non_null(why);
    assert_non_null(strstr(why, "needs sm_90a or newer; the target is not known"));
    why = op_need_ptx(&c, "wgmma", wgmma);
    assert_non_null(why);
    assert_non_null(strstr(why, "exists only on sm_90a; the target is not known"));
    ir_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tile_ops),
        cmocka_unit_test(test_rows_complete_and_unique),
        cmocka_unit_test(test_failure_lists_variants_in_order),
        cmocka_unit_test(test_ptx_architecture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
