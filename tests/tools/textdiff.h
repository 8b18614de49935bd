/* A line diff for test failure messages: unified-diff-like hunks with three
 * lines of context, computed by LCS over the lines that differ (common
 * prefix and suffix lines are trimmed first). */
#ifndef TIRX_TEST_TEXTDIFF_H
#define TIRX_TEST_TEXTDIFF_H

#include <stddef.h>
#include <stdio.h>

/* Writes the diff from `a` to `b` to `out`, headed by `--- a_name` and
 * `+++ b_name`. Writes nothing when the texts are equal. */
void textdiff_print(FILE *out, const char *a_name, const char *a, size_t a_len,
                    const char *b_name, const char *b, size_t b_len);

#endif
