/* Unit tests of api_sass_lines (tirx build --emit sass-lines) on SASS text
 * as nvdisasm -g prints it: instructions counted per kernel and per script
 * line with their opcodes, guards skipped, and the lane loops (a BRA.U.ANY
 * closing ptxas's loop over the lanes' distinct operands) counted and named
 * by line; a kernel without any says nothing of them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "api/internal.h"

static const char *const sass =
    "\t.text.looped_kernel:\n"
    "\t//## File \"k.tirx\", line 3\n"
    "        /*0000*/                   VOTEU.ALL UP1, P0 ;\n"
    ".L_x_9:\n"
    "        /*0010*/               @P2 ELECT P1, URZ, PT ;\n"
    "        /*0020*/                   @!UP1 UTMALDG.3D [UR16], [UR4] ;\n"
    "        /*0030*/               @P2 BRA.U.ANY `(.L_x_9) ;\n"
    "\t//## File \"k.tirx\", line 7\n"
    "        /*0040*/               @P3 R2UR P0, UR6, R20 ;\n"
    "        /*0050*/                   @!UP0 UBLKPF.L2 [UR6], UR4 ;\n"
    "        /*0060*/               @P3 BRA.U.ANY `(.L_x_13) ;\n"
    "        /*0070*/                   BRA `(.L_x_14) ;\n"
    "\t.text.plain_kernel:\n"
    "\t//## File \"k.tirx\", line 9\n"
    "        /*0000*/                   EXIT ;\n";

static void test_counts_and_lane_loops(void **state)
{
    (void)state;
    char *out = api_sass_lines(sass, NULL);
    assert_non_null(out);
    assert_non_null(strstr(out, "looped_kernel: 8 instructions\n"));
    assert_non_null(strstr(out, "  2 lane loops (ptxas repeats an instruction that needs "
                                "warp-uniform operands once per distinct value among the lanes): "
                                "k.tirx:3 k.tirx:7\n"));
    /* per line: the count, then the opcodes by frequency (guards skipped) */
    assert_non_null(strstr(out, "       3      4  BRA 1, ELECT 1, UTMALDG 1, VOTEU 1"));
    assert_non_null(strstr(out, "       7      4  BRA 2, R2UR 1, UBLKPF 1"));
    const char *plain = strstr(out, "plain_kernel: 1 instructions\n");
    assert_non_null(plain);
    assert_null(strstr(plain, "lane loop"));
    free(out);
}

static void test_several_loops_on_one_line(void **state)
{
    (void)state;
    const char *text = "\t.text.k:\n"
                       "\t//## File \"a.tirx\", line 12\n"
                       "        /*0000*/               @P2 BRA.U.ANY `(.L_x_1) ;\n"
                       "        /*0010*/               @P2 BRA.U.ANY `(.L_x_2) ;\n"
                       "\t//## File \"a.tirx\", line 20\n"
                       "        /*0020*/               @P2 BRA.U.ANY `(.L_x_3) ;\n";
    char *out = api_sass_lines(text, NULL);
    assert_non_null(out);
    assert_non_null(strstr(out, "  3 lane loops (ptxas"));
    assert_non_null(strstr(out, "lanes): a.tirx:12 (2) a.tirx:20\n"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_and_lane_loops),
        cmocka_unit_test(test_several_loops_on_one_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
