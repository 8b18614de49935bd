/* The libFuzzer target of the front end: parse -> verify -> print -> reparse
 * -> verify -> print, through include/tirx.h. An input the front end rejects
 * is fine (its diagnostics are not shown); for an accepted one, a printed
 * text that does not reparse or verify, a print that is not a fixpoint, or a
 * reparse that is not structurally equal aborts, so the fuzzer saves it.
 * Crashes, leaks and undefined behaviour are caught by the sanitizers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../tools/roundtrip_core.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A module that parses but does not verify still prints (the printer must
 * not crash on it); no round trip is asked of it. */
static void print_unverified(const char *text, size_t len)
{
    tirx_module *m = NULL;
    if (tirx_parse(text, len, "<fuzz>", NULL, 0, &m) == TIRX_OK)
        tirx_free(tirx_print(m));
    tirx_module_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    RtOptions opt = {.quiet_rejections = true, .log = stderr};
    RtOutcome outcome = rt_check("<fuzz>", text, size, NULL, 0, &opt);
    if (rt_is_bug(outcome)) {
        fprintf(stderr, "---- the input (%zu bytes)\n%.*s\n----\n", size, (int)size, text);
        abort();
    }
    if (outcome == RT_REJECTED_VERIFY)
        print_unverified(text, size);
    return 0;
}
