/* The round-trip check shared by the roundtrip driver and the fuzz target,
 * written against include/tirx.h only: parse, verify, print (p1), reparse p1,
 * verify, print (p2); p1 == p2 and the two modules structurally equal; and
 * optionally p1 == the input text. Also the `# RUN-DEFINES:` convention of
 * test scripts (tests/README.md). */
#ifndef TIRX_TEST_ROUNDTRIP_CORE_H
#define TIRX_TEST_ROUNDTRIP_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tirx.h"

typedef enum RtOutcome {
    RT_PASSED,
    RT_REJECTED_PARSE,  /* the input does not parse */
    RT_REJECTED_VERIFY, /* the input parses but does not verify */
    RT_DIFFERS_FROM_INPUT,
    RT_REPARSE_FAILED, /* the printed text does not parse */
    RT_REVERIFY_FAILED,
    RT_NOT_FIXPOINT,
    RT_NOT_EQUAL,
    RT_PRINT_FAILED,
} RtOutcome;

typedef struct RtOptions {
    bool expect_same_as_input; /* p1 must equal the input, modulo one trailing newline */
    bool quiet_rejections;     /* log nothing when the input itself is rejected */
    FILE *log;                 /* where failures are explained; NULL: nowhere */
} RtOptions;

/* Runs every stage it can, logs each failure, returns the first one. */
RtOutcome rt_check(const char *name, const char *text, size_t len, const tirx_define *defines,
                   size_t ndefines, const RtOptions *opt);

/* Whether an outcome is a bug in tirx rather than bad input. */
bool rt_is_bug(RtOutcome o);

enum { RT_MAX_DEFINES = 64 };

/* Defines owned by this struct: from `# RUN-DEFINES: A=1 B=float16` lines of
 * a file's leading comment block, and from command-line NAME=VALUE words. */
typedef struct RtDefines {
    tirx_define items[RT_MAX_DEFINES];
    char *words[RT_MAX_DEFINES];
    size_t n;
} RtDefines;

/* Adds one NAME=VALUE word (copied). Returns 0, or -1 if it is malformed or
 * there are too many. */
int rt_defines_add(RtDefines *d, const char *word, size_t len);
/* Adds the words of every RUN-DEFINES line. Returns 0, or -1 on a bad word. */
int rt_defines_from_header(RtDefines *d, const char *text, size_t len);
void rt_defines_free(RtDefines *d);

#endif
