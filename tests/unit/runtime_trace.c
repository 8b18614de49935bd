/* Unit tests of the trace writer (rt_trace_add, rt_trace_json): record
 * buffers laid out as the CUDA prelude's tx_trace_event writes them become
 * Chrome trace events (a process per SM, a track per warp, instants for
 * marks, complete events for start/end and push/pop pairs, microseconds from
 * the earliest record); records past a warp's capacity, unpaired ranges and
 * a buffer whose header lies are counted or clipped, never read past. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

enum { CAP = 4, SLOTS = 3, WORDS = 2 + SLOTS * (1 + 2 * CAP) };
enum { MARK, START, END, PUSH, POP };

static const char names[] = "load\0tile\0mma \"x\"\0";

static void put(uint64_t *w, int slot, int i, uint64_t t, uint32_t name, int kind, uint32_t payload)
{
    uint64_t *s = w + 2 + slot * (1 + 2 * CAP);
    s[1 + 2 * i] = t;
    s[2 + 2 * i] = (uint64_t)payload << 32 | name << 3 | (uint32_t)kind;
}

static void set_count(uint64_t *w, int slot, uint32_t count, uint32_t sm)
{
    w[2 + slot * (1 + 2 * CAP)] = (uint64_t)sm << 32 | count;
}

static void fill(uint64_t *w)
{
    memset(w, 0, sizeof(uint64_t) * WORDS);
    w[0] = CAP;
    w[1] = SLOTS;
    set_count(w, 0, 4, 5); /* CTA 0 warp 0 on SM 5: a range around a pushed one */
    put(w, 0, 0, 1000000, 1, START, 7);
    put(w, 0, 1, 1001500, 2, PUSH, 0);
    put(w, 0, 2, 1001800, 0, POP, 0);
    put(w, 0, 3, 1003000, 1, END, 8);
    set_count(w, 1, 6, 9); /* CTA 0 warp 1 on SM 9: 2 records dropped */
    put(w, 1, 0, 1002000, 0, MARK, 3);
    put(w, 1, 1, 1002100, 40, START, 0);
    put(w, 1, 2, 1002200, 40, END, 0);
    put(w, 1, 3, 1002300, 2, END, 0); /* no start */
}

static void assert_has(const char *json, const char *want)
{
    if (!strstr(json, want))
        fail_msg("the trace lacks '%s':\n%s", want, json);
}

static void test_events(void **state)
{
    (void)state;
    uint64_t w[WORDS];
    fill(w);
    RtTrace t = {0};
    rt_trace_add(&t, "k", w, WORDS, names, sizeof names, 2);
    char *json = rt_trace_json(&t);
    assert_has(json, "\"traceEvents\": [");
    assert_has(json, "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 5, \"args\": {\"name\": \"SM 5\"}}");
    assert_has(json, "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 9, \"tid\": 1, \"args\": {\"name\": \"k CTA 0 warp 1\"}}");
    assert_has(json, "{\"name\": \"tile\", \"ph\": \"X\", \"pid\": 5, \"tid\": 0, \"ts\": 0.000, \"dur\": 3.000, \"args\": {\"payload\": 7, \"end_payload\": 8}}");
    assert_has(json, "{\"name\": \"mma \\\"x\\\"\", \"ph\": \"X\", \"pid\": 5, \"tid\": 0, \"ts\": 1.500, \"dur\": 0.300,");
    assert_has(json, "{\"name\": \"load\", \"ph\": \"i\", \"pid\": 9, \"tid\": 1, \"ts\": 2.000, \"s\": \"t\", \"args\": {\"payload\": 3}}");
    assert_has(json, "{\"name\": \"event 40\", \"ph\": \"X\", \"pid\": 9, \"tid\": 1, \"ts\": 2.100, \"dur\": 0.100,");
    assert_has(json, "\"launches\": 1, \"dropped_records\": 2, \"unpaired_ranges\": 1}");
    assert_null(strstr(json, "warp 0\"}}, {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 5"));
    assert_null(strstr(json, "CTA 1")); /* the empty slot has no track */
    /* brackets balance outside strings */
    int depth = 0;
    bool in_str = false;
    for (const char *p = json; *p; p++) {
        if (in_str && *p == '\\')
            p++;
        else if (*p == '"')
            in_str = !in_str;
        else if (!in_str)
            depth += (*p == '{' || *p == '[') - (*p == '}' || *p == ']');
        assert_true(depth >= 0);
    }
    assert_int_equal(depth, 0);
    free(json);
}

static void test_second_launch(void **state)
{
    (void)state;
    uint64_t w[WORDS];
    fill(w);
    RtTrace t = {0};
    rt_trace_add(&t, "a", w, WORDS, names, sizeof names, 2);
    rt_trace_add(&t, "b", w, WORDS, names, sizeof names, 2);
    char *json = rt_trace_json(&t);
    assert_has(json, "\"tid\": 4294967296, \"args\": {\"name\": \"b CTA 0 warp 0\"}}");
    assert_has(json, "\"launches\": 2");
    free(json);
    json = rt_trace_json(&t); /* reset: an empty trace */
    assert_has(json, "\"launches\": 0");
    assert_has(json, "\"traceEvents\": [\n]}");
    free(json);
}

static void test_lying_header(void **state)
{
    (void)state;
    uint64_t w[WORDS];
    fill(w);
    w[1] = 1000; /* more slots than the buffer holds: clipped */
    set_count(w, 2, 0xffffffffu, 1);
    RtTrace t = {0};
    rt_trace_add(&t, "k", w, WORDS, names, sizeof names, 1);
    rt_trace_add(&t, "k", w, 1, names, sizeof names, 1);       /* no header */
    w[0] = (uint64_t)1 << 60;                                   /* capacity past the buffer */
    rt_trace_add(&t, "k", w, WORDS, names, sizeof names, 1);
    rt_trace_add(&t, "k", w, WORDS, names, 0, 0);
    char *json = rt_trace_json(&t);
    assert_has(json, "\"launches\": 1, \"dropped_records\": 4294967293,");
    assert_has(json, "\"name\": \"k CTA 2 warp 0\"");
    free(json);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_second_launch),
        cmocka_unit_test(test_lying_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
