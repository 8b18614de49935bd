/* Unit tests of the trace writer (rt_trace_add, rt_trace_json,
 * rt_trace_svg): record buffers laid out as the CUDA prelude's
 * tx_trace_event writes them become Chrome trace events (a process per SM, a
 * track per warp, instants for marks, complete events for start/end and
 * push/pop pairs, microseconds from the earliest record); records past a
 * warp's capacity, unpaired ranges and a buffer whose header lies are
 * counted or clipped, never read past. The same events as an SVG timeline:
 * well-formed XML (balanced tags, escaped text; and xmllint's verdict where
 * it was found), a bar per span in its colour (spans closer than a quarter
 * of a pixel as one), nested ranges inset, a line per mark, a legend, a
 * time axis, the first SMs only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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
    rt_trace_free(&t);
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
    char *svg = rt_trace_svg(&t, 0); /* a row per launch's warp, named by kernel */
    assert_has(svg, "trace of a and 1 more launch: ");
    assert_has(svg, ">a CTA 0 warp 1</text>");
    assert_has(svg, ">b CTA 0 warp 1</text>");
    free(svg);
    rt_trace_free(&t); /* an empty trace */
    json = rt_trace_json(&t);
    assert_has(json, "\"launches\": 0");
    assert_has(json, "\"traceEvents\": [\n]}");
    free(json);
    svg = rt_trace_svg(&t, 0);
    assert_has(svg, "</svg>");
    assert_null(strstr(svg, "<title>"));
    free(svg);
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
    rt_trace_free(&t);
}

/* The XML is well formed as far as a timeline needs: every tag closed in
 * order, '&' only in the four entities, no '<' in text or attributes, no
 * control characters. */
static void assert_well_formed(const char *xml)
{
    const char *stack[64];
    size_t lens[64];
    int depth = 0;
    for (const char *p = xml; *p; p++) {
        assert_true((unsigned char)*p >= 32 || *p == '\n');
        if (*p == '&') {
            assert_true(!strncmp(p, "&amp;", 5) || !strncmp(p, "&lt;", 4) ||
                        !strncmp(p, "&gt;", 4) || !strncmp(p, "&quot;", 6));
            continue;
        }
        if (*p != '<')
            continue;
        const char *end = strchr(p, '>'), *name = p + 1 + (p[1] == '/');
        assert_non_null(end);
        assert_null(memchr(p + 1, '<', (size_t)(end - p - 1)));
        size_t n = strcspn(name, " />");
        if (p[1] == '/') {
            assert_true(depth > 0);
            depth--;
            assert_true(lens[depth] == n && !memcmp(stack[depth], name, n));
        } else if (end[-1] != '/') {
            assert_true(depth < 64);
            stack[depth] = name;
            lens[depth++] = n;
        }
        p = end;
    }
    assert_int_equal(depth, 0);
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

/* The class of the last rect before the text `at`. */
static void rect_class_before(const char *svg, const char *at, char *out, size_t size)
{
    const char *end = strstr(svg, at), *rect = NULL;
    assert_non_null(end);
    for (const char *p = strstr(svg, "<rect class=\""); p && p < end;
         p = strstr(p + 1, "<rect class=\""))
        rect = p;
    assert_non_null(rect);
    rect += strlen("<rect class=\"");
    snprintf(out, size, "%.*s", (int)strcspn(rect, "\""), rect);
}

static void check_with_xmllint(const char *svg)
{
#ifdef TIRX_XMLLINT
    char path[] = "/tmp/tirx_trace_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(svg, f);
    fclose(f);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "%s --noout %s", TIRX_XMLLINT, path);
    int rc = system(cmd);
    remove(path);
    assert_int_equal(rc, 0);
#else
    (void)svg;
#endif
}

static void test_svg(void **state)
{
    (void)state;
    static const char odd[] = "a<b&c>\0tile\0mma \"x\"\x01\xff\xc3\xa9\xed\xa0\x80\xc0\xaf\x7f\0";
    uint64_t w[WORDS];
    fill(w);
    RtTrace t = {0};
    rt_trace_add(&t, "k<1>", w, WORDS, odd, sizeof odd, 2);
    char *svg = rt_trace_svg(&t, 0);
    assert_well_formed(svg);
    check_with_xmllint(svg);
    assert_has(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1000\"");
    assert_has(svg, "trace of k&lt;1&gt;: SM 5 to 9 (2 of the 2 SMs with events)");
    assert_has(svg, "2 records dropped, 1 unpaired ranges");
    /* a bar per span, a line per mark, each with its numbers on hover */
    assert_int_equal(count(svg, "</title></rect>"), 4);
    assert_int_equal(count(svg, " mark\""), 1);
    assert_has(svg, "x=\"150.00\" y=\"");
    assert_has(svg, "width=\"826.00\" height=\"12.0\"><title>tile: 0.000 to 3.000 \xc2\xb5s, "
                    "payload 7, end payload 8</title>");
    assert_has(svg, "height=\"8.0\"><title>mma &quot;x&quot;??\xc3\xa9??????: 1.500 to 1.800"); /* nested: inset */
    assert_has(svg, "<title>a&lt;b&amp;c&gt;: 2.000 \xc2\xb5s, payload 3</title>");
    assert_has(svg, "<title>event 40: 2.100 to 2.200");
    /* a legend entry per name, in the colour of its spans */
    char legend[16], bar[16];
    rect_class_before(svg, ">tile</text>", legend, sizeof legend);
    rect_class_before(svg, "<title>tile:", bar, sizeof bar);
    assert_string_equal(legend, bar);
    rect_class_before(svg, ">event 40</text>", legend, sizeof legend);
    rect_class_before(svg, "<title>event 40:", bar, sizeof bar);
    assert_string_equal(legend, bar);
    /* the rows, grouped by SM, and the axis: 0 to 3 us in steps of 0.5 */
    assert_has(svg, ">SM 5</text>");
    assert_has(svg, ">SM 9</text>");
    assert_has(svg, ">CTA 0 warp 1</text>");
    assert_int_equal(count(svg, "class=\"tick\""), 7);
    assert_has(svg, ">0.5</text>");
    assert_has(svg, ">3</text>");
    assert_has(svg, "time (\xc2\xb5s from the first event)");
    free(svg);

    svg = rt_trace_svg(&t, 1); /* the first SM only */
    assert_well_formed(svg);
    assert_has(svg, "SM 5 to 5 (1 of the 2 SMs with events)");
    assert_null(strstr(svg, ">SM 9<"));
    assert_int_equal(count(svg, "</title></rect>"), 2);
    assert_int_equal(count(svg, " mark\""), 0);
    free(svg);
    rt_trace_free(&t);
}

/* Spans of one row and name closer than a quarter of a pixel are one bar
 * (a long trace's short waits), as high as they are dense; farther apart,
 * a bar each. */
static void test_svg_runs(void **state)
{
    (void)state;
    const uint64_t base = 1000000;
    uint64_t w[WORDS];
    memset(w, 0, sizeof w);
    w[0] = CAP;
    w[1] = SLOTS;
    set_count(w, 0, 2, 0); /* 1000 us: a pixel is 1.2 us */
    put(w, 0, 0, base, 1, START, 0);
    put(w, 0, 1, base + 1000000, 1, END, 0);
    set_count(w, 1, 4, 0); /* 10 ns apart */
    put(w, 1, 0, base + 100000, 0, PUSH, 0);
    put(w, 1, 1, base + 100010, 0, POP, 0);
    put(w, 1, 2, base + 100020, 0, PUSH, 0);
    put(w, 1, 3, base + 100030, 0, POP, 0);
    set_count(w, 2, 4, 0); /* 500 us apart */
    put(w, 2, 0, base + 100000, 0, PUSH, 0);
    put(w, 2, 1, base + 100010, 0, POP, 0);
    put(w, 2, 2, base + 600000, 0, PUSH, 0);
    put(w, 2, 3, base + 600010, 0, POP, 0);
    RtTrace t = {0};
    rt_trace_add(&t, "k", w, WORDS, names, sizeof names, 1);
    char *svg = rt_trace_svg(&t, 0);
    assert_well_formed(svg);
    assert_int_equal(count(svg, "</title></rect>"), 4);
    assert_has(svg, "height=\"8.0\"><title>load: 2 spans covering 67% of 100.000 to " /* 2/3 of 12 */
                    "100.030 \xc2\xb5s</title>");
    assert_int_equal(count(svg, "<title>load: 100.000 to 100.010"), 1);
    assert_int_equal(count(svg, "<title>load: 600.000 to 600.010"), 1);
    assert_has(svg, ">1000</text>");
    free(svg);
    rt_trace_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_second_launch),
        cmocka_unit_test(test_lying_header),
        cmocka_unit_test(test_svg),
        cmocka_unit_test(test_svg_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
