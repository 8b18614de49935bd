/* The deep libFuzzer target: parse -> verify -> every pass of the pipeline
 * with the verifier after each -> CUDA generation, through tirx_compile (no
 * CUDA compiler, no cache) for one of the targets, picked by the input's
 * length so each input always meets the same one. An input rejected with
 * diagnostics is fine; a pass whose output the verifier rejects, an internal
 * error, or a success without CUDA aborts, so the fuzzer saves the input.
 * Crashes, leaks and undefined behaviour are caught by the sanitizers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tirx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const targets[] = {"sm_80", "sm_90a", "sm_100a"};

/* Whether a diagnostic of m says a pass left IR the verifier rejects. */
static int pass_broke_ir(const tirx_module *m)
{
    tirx_diag d;
    for (size_t i = 0; tirx_diag_get(m, i, &d) == 0; i++)
        if (d.severity == TIRX_SEV_NOTE && strstr(d.message, "is not well-formed"))
            return 1;
    return 0;
}

static void fail(const char *why, const tirx_module *m, const uint8_t *data, size_t size)
{
    char *diags = tirx_diag_render(m);
    fprintf(stderr, "%s\n%s---- the input (%zu bytes)\n%.*s\n----\n", why, diags ? diags : "",
            size, (int)size, (const char *)data);
    tirx_free(diags);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tirx_options o = {.arch = targets[size % 3], .verify_each = 1, .no_binary = 1,
                      .no_cache = 1};
    tirx_module *m = NULL;
    tirx_status st = tirx_compile((const char *)data, size, "<fuzz>", NULL, 0, &o, &m);
    if (st == TIRX_ERR_INTERNAL || st == TIRX_ERR_NOMEM)
        fail("tirx_compile failed inside tirx", m, data, size);
    if (pass_broke_ir(m))
        fail("a pass left IR that the verifier rejects", m, data, size);
    if (st == TIRX_OK && !tirx_module_cuda(m))
        fail("tirx_compile succeeded without CUDA", m, data, size);
    tirx_module_free(m);
    return 0;
}
