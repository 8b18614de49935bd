/* Trace records to events, and events to Chrome's trace event format (the
 * JSON Perfetto and chrome://tracing open) or to an SVG timeline. One
 * launch's record buffer at a time is decoded into RtTrace (tracks, events,
 * distinct names); the two renderers read the same events. The buffer comes
 * from the GPU, so nothing in it is trusted: counts are clipped to the
 * capacity and to the buffer, an unknown name becomes its number, a name is
 * escaped for JSON or XML (control characters and malformed UTF-8 replaced in
 * XML), and ranges are paired per warp, an unpaired one counted instead of
 * drawn. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

enum { MARK, START, END, PUSH, POP };
enum { MAX_OPEN = 64 };     /* open ranges per warp kept for pairing */
enum { MAX_NAME_IDS = 4096 }; /* name ids of a launch looked up through a table */

/* ---- decoding ---- */

typedef struct Open {
    uint32_t name;
    uint64_t t;
    uint32_t payload;
    bool is_push;
} Open;

/* One launch being added: its names and the index in RtTrace.names of each
 * name id seen so far (UINT32_MAX: not yet). */
typedef struct Launch {
    RtTrace *t;
    const char *names;
    size_t names_len;
    uint32_t ids[MAX_NAME_IDS];
} Launch;

static uint32_t intern(RtTrace *t, const char *s, size_t n)
{
    for (int i = 0; i < t->names.len; i++) {
        const char *have = t->text.data + t->names.items[i];
        if (strlen(have) == n && !memcmp(have, s, n))
            return (uint32_t)i;
    }
    uint32_t at = (uint32_t)t->text.len;
    tx_buf_putn(&t->text, s, n);
    tx_buf_putc(&t->text, 0);
    tx_vec_push(&t->names, at);
    return (uint32_t)t->names.len - 1;
}

/* The index of name id in t->names: its string in the launch's table, or
 * "event ID" past the table's end. */
static uint32_t name_index(Launch *l, uint32_t id)
{
    if (id < MAX_NAME_IDS && l->ids[id] != UINT32_MAX)
        return l->ids[id];
    size_t at = 0;
    for (uint32_t i = 0; i < id && at < l->names_len; i++)
        at += strnlen(l->names + at, l->names_len - at) + 1;
    uint32_t k;
    if (at < l->names_len) {
        k = intern(l->t, l->names + at, strnlen(l->names + at, l->names_len - at));
    } else {
        char number[24];
        k = intern(l->t, number, (size_t)snprintf(number, sizeof number, "event %u", id));
    }
    if (id < MAX_NAME_IDS)
        l->ids[id] = k;
    return k;
}

static void push_event(Launch *l, uint32_t track, const Open *o, uint64_t end, uint32_t payload,
                       bool span, int depth)
{
    uint64_t t0 = l->t->t0, t = o->t > t0 ? o->t - t0 : 0;
    RtTraceEvent e = {.t = t, .dur = span && end > o->t ? end - o->t : 0, .track = track,
                      .name = name_index(l, o->name), .payload = o->payload,
                      .end_payload = payload, .span = span, .depth = (uint8_t)depth};
    tx_vec_push(&l->t->events, e);
}

/* Pairs the closing record (kind END: the open range of that name, the
 * latest; POP: the latest push) with its opening one. */
static void close_range(Launch *l, uint32_t track, Open *open, int *nopen, int kind,
                        uint32_t name, uint64_t t, uint32_t payload)
{
    for (int i = *nopen - 1; i >= 0; i--) {
        if (kind == POP ? !open[i].is_push : open[i].is_push || open[i].name != name)
            continue;
        push_event(l, track, &open[i], t, payload, true, i);
        memmove(open + i, open + i + 1, sizeof *open * (size_t)(*nopen - i - 1));
        (*nopen)--;
        return;
    }
    l->t->unpaired++;
}

static void add_warp(Launch *l, uint32_t track, const uint64_t *rec, uint64_t n)
{
    Open open[MAX_OPEN];
    int nopen = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t time = rec[2 * i];
        uint32_t code = (uint32_t)rec[2 * i + 1], payload = (uint32_t)(rec[2 * i + 1] >> 32);
        uint32_t kind = code & 7, name = code >> 3;
        if (kind == MARK) {
            push_event(l, track, &(Open){name, time, payload, false}, time, payload, false,
                       nopen);
        } else if (kind == START || kind == PUSH) {
            if (nopen == MAX_OPEN) {
                l->t->unpaired++;
                continue;
            }
            open[nopen++] = (Open){name, time, payload, kind == PUSH};
        } else if (kind == END || kind == POP) {
            close_range(l, track, open, &nopen, (int)kind, name, time, payload);
        }
    }
    l->t->unpaired += (uint64_t)nopen;
}

static uint64_t earliest(const uint64_t *words, uint64_t cap, uint64_t slots)
{
    uint64_t t0 = UINT64_MAX;
    for (uint64_t s = 0; s < slots; s++) {
        const uint64_t *slot = words + 2 + s * (1 + 2 * cap);
        uint64_t n = (uint32_t)slot[0] < cap ? (uint32_t)slot[0] : cap;
        for (uint64_t i = 0; i < n; i++)
            t0 = slot[1 + 2 * i] < t0 ? slot[1 + 2 * i] : t0;
    }
    return t0 == UINT64_MAX ? 0 : t0;
}

void rt_trace_add(RtTrace *t, const char *kernel, const uint64_t *words, size_t nwords,
                  const char *names, size_t names_len, uint64_t warps_per_cta)
{
    if (nwords < 2 || warps_per_cta == 0)
        return;
    uint64_t cap = words[0], slots = words[1];
    if (cap == 0 || cap > (nwords - 2) / 2)
        return;
    if (slots > (nwords - 2) / (1 + 2 * cap))
        slots = (nwords - 2) / (1 + 2 * cap);
    if (t->launches++ == 0)
        t->t0 = earliest(words, cap, slots);
    Launch *l = malloc(sizeof *l);
    if (!l)
        tx_out_of_memory(sizeof *l);
    *l = (Launch){.t = t, .names = names, .names_len = names ? names_len : 0};
    memset(l->ids, 0xff, sizeof l->ids);
    uint32_t kernel_at = (uint32_t)t->text.len;
    tx_buf_puts(&t->text, kernel);
    tx_buf_putc(&t->text, 0);
    for (uint64_t s = 0; s < slots; s++) {
        const uint64_t *slot = words + 2 + s * (1 + 2 * cap);
        uint32_t count = (uint32_t)slot[0], sm = (uint32_t)(slot[0] >> 32);
        if (count == 0)
            continue;
        RtTraceTrack k = {.tid = (uint64_t)(t->launches - 1) << 32 | s, .cta = s / warps_per_cta,
                          .warp = s % warps_per_cta, .sm = sm, .kernel = kernel_at};
        tx_vec_push(&t->tracks, k);
        t->dropped += count > cap ? count - cap : 0;
        add_warp(l, (uint32_t)t->tracks.len - 1, slot + 1, count < cap ? count : cap);
    }
    free(l);
}

void rt_trace_free(RtTrace *t)
{
    tx_vec_free(&t->events);
    tx_vec_free(&t->tracks);
    tx_vec_free(&t->names);
    tx_buf_free(&t->text);
    *t = (RtTrace){0};
}

static const char *event_name(const RtTrace *t, uint32_t name)
{
    return t->text.data + t->names.items[name];
}

static const char *track_kernel(const RtTrace *t, const RtTraceTrack *k)
{
    return t->text.data + k->kernel;
}

/* ---- JSON ---- */

static void json_string(TxBuf *b, const char *s)
{
    tx_buf_putc(b, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            tx_buf_printf(b, "\\%c", c);
        else if (c < 32)
            tx_buf_printf(b, "\\u%04x", c);
        else
            tx_buf_putc(b, (char)c);
    }
    tx_buf_putc(b, '"');
}

static void sep(TxBuf *b, bool *first)
{
    tx_buf_puts(b, *first ? "\n" : ",\n");
    *first = false;
}

/* A duration in microseconds (ns resolution). */
static void micros(TxBuf *b, uint64_t d)
{
    tx_buf_printf(b, "%llu.%03llu", (unsigned long long)(d / 1000), (unsigned long long)(d % 1000));
}

static void metadata(TxBuf *b, bool *first, const char *what, uint32_t pid, const uint64_t *tid,
                     const char *name)
{
    sep(b, first);
    tx_buf_printf(b, "{\"name\": \"%s\", \"ph\": \"M\", \"pid\": %u, ", what, pid);
    if (tid)
        tx_buf_printf(b, "\"tid\": %llu, ", (unsigned long long)*tid);
    tx_buf_puts(b, "\"args\": {\"name\": ");
    json_string(b, name);
    tx_buf_puts(b, "}}");
}

/* The track's thread and its SM's process (once, for SMs up to 4095). */
static void json_track(const RtTrace *t, const RtTraceTrack *k, uint8_t named[512], TxBuf *b,
                       bool *first)
{
    char label[200];
    snprintf(label, sizeof label, "%.150s CTA %llu warp %llu", track_kernel(t, k),
             (unsigned long long)k->cta, (unsigned long long)k->warp);
    metadata(b, first, "thread_name", k->sm, &k->tid, label);
    if (k->sm >= 8 * 512 || !(named[k->sm / 8] & 1u << k->sm % 8)) {
        snprintf(label, sizeof label, "SM %u", k->sm);
        metadata(b, first, "process_name", k->sm, NULL, label);
        if (k->sm < 8 * 512)
            named[k->sm / 8] |= (uint8_t)(1u << k->sm % 8);
    }
}

static void json_event(const RtTrace *t, TxBuf *b, const RtTraceEvent *e)
{
    const RtTraceTrack *k = &t->tracks.items[e->track];
    tx_buf_puts(b, "{\"name\": ");
    json_string(b, event_name(t, e->name));
    tx_buf_printf(b, ", \"ph\": \"%s\", \"pid\": %u, \"tid\": %llu, \"ts\": ", e->span ? "X" : "i",
                  k->sm, (unsigned long long)k->tid);
    micros(b, e->t);
    if (e->span) {
        tx_buf_puts(b, ", \"dur\": ");
        micros(b, e->dur);
        tx_buf_printf(b, ", \"args\": {\"payload\": %u, \"end_payload\": %u}}", e->payload,
                      e->end_payload);
    } else {
        tx_buf_printf(b, ", \"s\": \"t\", \"args\": {\"payload\": %u}}", e->payload);
    }
}

char *rt_trace_json(const RtTrace *t)
{
    TxBuf b = {0};
    bool first = true;
    tx_buf_puts(&b, "{\"displayTimeUnit\": \"ns\", \"otherData\": {");
    tx_buf_printf(&b, "\"launches\": %d, \"dropped_records\": %llu, \"unpaired_ranges\": %llu},\n",
                  t->launches, (unsigned long long)t->dropped, (unsigned long long)t->unpaired);
    tx_buf_puts(&b, "\"traceEvents\": [");
    uint8_t named[512] = {0};
    /* each track's metadata, then its events (added together, in order) */
    for (int i = 0, e = 0; i < t->tracks.len; i++) {
        json_track(t, &t->tracks.items[i], named, &b, &first);
        for (; e < t->events.len && t->events.items[e].track == (uint32_t)i; e++) {
            sep(&b, &first);
            json_event(t, &b, &t->events.items[e]);
        }
    }
    tx_buf_puts(&b, "\n]}\n");
    return tx_buf_take(&b);
}

/* ---- SVG ---- */

enum {
    SVG_WIDTH = 1000,
    SVG_LEFT = 150,   /* the row labels */
    SVG_RIGHT = 24,
    SVG_ROW = 16,     /* a warp's row */
    SVG_BAR = 12,     /* a span's height at depth 0 */
    SVG_GROUP = 20,   /* an SM's heading */
    SVG_LEGEND_ROW = 18,
    SVG_LEGEND_W = 160, /* a legend entry */
    SVG_AXIS = 40,    /* the time axis under the rows */
};
#define SVG_PLOT_W (SVG_WIDTH - SVG_LEFT - SVG_RIGHT)

/* Colour-blind-safe hues (Okabe-Ito, then Tableau's); the names past them
 * reuse them in order. */
static const char *const svg_colours[] = {
    "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#000000",
    "#8c564b", "#7f7f7f", "#bcbd22", "#9467bd",
};

/* The length of the UTF-8 sequence at s (1 to 4) when it encodes a
 * character XML 1.0 can hold (tab, newline, carriage return, U+0020 to
 * U+D7FF, U+E000 to U+FFFD, U+10000 to U+10FFFF) in the shortest form, else
 * 0. */
static int xml_char_length(const unsigned char *s)
{
    int n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
                              : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
    uint32_t c = n == 1 ? s[0] : n ? s[0] & (0x7fu >> n) : 0;
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3fu);
    }
    static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    bool ok = n && c >= least[n] && (c >= 32 || c == 9 || c == 10 || c == 13) && c != 127 &&
              (c < 0xd800 || c > 0xdfff) && c != 0xfffe && c != 0xffff && c <= 0x10ffff;
    return ok ? n : 0;
}

/* s as XML character data: markup characters as entities, what XML 1.0
 * cannot hold (control characters, malformed or overlong UTF-8, surrogates)
 * as '?'. */
static void xml_text(TxBuf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int n = xml_char_length(p);
        if (*p == '&' || *p == '<' || *p == '>' || *p == '"')
            tx_buf_puts(b, *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;" : "&quot;");
        else if (n == 0 || *p < 32)
            tx_buf_putc(b, '?');
        else
            tx_buf_putn(b, (const char *)p, (size_t)n);
        p += n ? n : 1;
    }
}

/* What the timeline draws: the tracks of the chosen SMs in SM order, each
 * track's row (-1: not drawn), and the time scale. */
typedef struct Timeline {
    const RtTrace *t;
    int *row_y;       /* per track: the row's top, or -1 */
    int *order;       /* the drawn tracks, by SM, then as added */
    int ndrawn;
    unsigned nsms, total_sms;
    uint64_t first_sm, last_sm;
    double end_us, step_us; /* the axis's extent and tick step */
    int max_depth;          /* of a drawn span */
    int legend_rows, top, height;
} Timeline;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The distinct SMs in ascending order (*n of them); the caller frees it. */
static uint32_t *distinct_sms(const RtTrace *t, unsigned *n)
{
    uint32_t *sms = malloc(sizeof *sms * (size_t)(t->tracks.len + 1));
    if (!sms)
        tx_out_of_memory(sizeof *sms * (size_t)(t->tracks.len + 1));
    for (int i = 0; i < t->tracks.len; i++)
        sms[i] = t->tracks.items[i].sm;
    qsort(sms, (size_t)t->tracks.len, sizeof *sms, cmp_u32);
    unsigned k = 0;
    for (int i = 0; i < t->tracks.len; i++)
        if (k == 0 || sms[k - 1] != sms[i])
            sms[k++] = sms[i];
    *n = k;
    return sms;
}

/* 1, 2 or 5 times a power of ten, near range / 8. */
static double nice_step(double range)
{
    double raw = range / 8, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static void place_rows(Timeline *l, const uint32_t *sms)
{
    const RtTrace *t = l->t;
    int y = l->top;
    for (unsigned s = 0; s < l->nsms; s++) {
        y += SVG_GROUP;
        for (int i = 0; i < t->tracks.len; i++) {
            if (t->tracks.items[i].sm != sms[s])
                continue;
            l->row_y[i] = y;
            l->order[l->ndrawn++] = i;
            y += SVG_ROW;
        }
    }
    l->height = y + SVG_AXIS;
}

static void plan(Timeline *l, unsigned max_sms)
{
    const RtTrace *t = l->t;
    size_t n = (size_t)t->tracks.len + 1;
    l->row_y = malloc(sizeof *l->row_y * n);
    l->order = malloc(sizeof *l->order * n);
    if (!l->row_y || !l->order)
        tx_out_of_memory(sizeof *l->row_y * n);
    for (int i = 0; i < t->tracks.len; i++)
        l->row_y[i] = -1;
    uint32_t *sms = distinct_sms(t, &l->total_sms);
    l->nsms = l->total_sms < max_sms ? l->total_sms : max_sms;
    l->first_sm = l->nsms ? sms[0] : 0;
    l->last_sm = l->nsms ? sms[l->nsms - 1] : 0;
    int per_row = SVG_WIDTH / SVG_LEGEND_W;
    l->legend_rows = (t->names.len + per_row - 1) / per_row;
    l->top = 48 + l->legend_rows * SVG_LEGEND_ROW;
    place_rows(l, sms);
    free(sms);
    uint64_t end = 0;
    for (int i = 0; i < t->events.len; i++) {
        const RtTraceEvent *e = &t->events.items[i];
        if (l->row_y[e->track] < 0)
            continue;
        end = e->t + e->dur > end ? e->t + e->dur : end;
        l->max_depth = e->span && e->depth > l->max_depth ? e->depth : l->max_depth;
    }
    double us = end > 0 ? (double)end / 1000 : 1;
    l->step_us = nice_step(us);
    l->end_us = ceil(us / l->step_us) * l->step_us;
}

static double x_of(const Timeline *l, double us)
{
    return SVG_LEFT + us / l->end_us * SVG_PLOT_W;
}

static void svg_heading(const Timeline *l, TxBuf *b)
{
    const RtTrace *t = l->t;
    tx_buf_printf(b, "<text class=\"title\" x=\"8\" y=\"20\">T.cuda.iket trace of ");
    xml_text(b, t->tracks.len ? track_kernel(t, &t->tracks.items[0]) : "no kernel");
    if (t->launches > 1)
        tx_buf_printf(b, " and %d more launch%s", t->launches - 1, t->launches > 2 ? "es" : "");
    if (l->nsms)
        tx_buf_printf(b, ": SM %llu to %llu (%u of the %u SMs with events)",
                      (unsigned long long)l->first_sm, (unsigned long long)l->last_sm, l->nsms,
                      l->total_sms);
    tx_buf_puts(b, "</text>\n");
    if (t->dropped || t->unpaired)
        tx_buf_printf(b, "<text class=\"note\" x=\"8\" y=\"36\">%llu records dropped, %llu "
                         "unpaired ranges (not drawn)</text>\n",
                      (unsigned long long)t->dropped, (unsigned long long)t->unpaired);
}

static void svg_legend(const Timeline *l, TxBuf *b)
{
    const RtTrace *t = l->t;
    int per_row = SVG_WIDTH / SVG_LEGEND_W;
    for (int i = 0; i < t->names.len; i++) {
        int x = 8 + i % per_row * SVG_LEGEND_W, y = 44 + i / per_row * SVG_LEGEND_ROW;
        tx_buf_printf(b, "<rect class=\"n%d\" x=\"%d\" y=\"%d\" width=\"12\" height=\"12\"/>"
                         "<text x=\"%d\" y=\"%d\">",
                      i % (int)TX_ARRAY_LEN(svg_colours), x, y, x + 16, y + 10);
        xml_text(b, event_name(t, (uint32_t)i));
        tx_buf_puts(b, "</text>\n");
    }
}

/* The SM headings, the row labels and the rows' bands. */
static void svg_rows(const Timeline *l, TxBuf *b)
{
    const RtTrace *t = l->t;
    uint32_t sm = 0;
    for (int j = 0; j < l->ndrawn; j++) {
        const RtTraceTrack *k = &t->tracks.items[l->order[j]];
        int y = l->row_y[l->order[j]];
        if (j == 0 || k->sm != sm)
            tx_buf_printf(b, "<text class=\"sm\" x=\"8\" y=\"%d\">SM %u</text>\n", y - 6, k->sm);
        sm = k->sm;
        if (j % 2 == 0)
            tx_buf_printf(b, "<rect class=\"band\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
                          SVG_LEFT, y, SVG_PLOT_W, SVG_ROW);
        tx_buf_printf(b, "<text class=\"row\" x=\"%d\" y=\"%d\">", SVG_LEFT - 6, y + 12);
        if (t->launches > 1) {
            xml_text(b, track_kernel(t, k));
            tx_buf_putc(b, ' ');
        }
        tx_buf_printf(b, "CTA %llu warp %llu</text>\n", (unsigned long long)k->cta,
                      (unsigned long long)k->warp);
    }
}

static void svg_axis(const Timeline *l, TxBuf *b)
{
    int y0 = l->top, y1 = l->height - SVG_AXIS;
    for (double v = 0; v <= l->end_us + l->step_us * 1e-9; v += l->step_us) {
        double x = x_of(l, v);
        tx_buf_printf(b, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                         "<text class=\"tick\" x=\"%.1f\" y=\"%d\">%g</text>\n",
                      x, y0, x, y1, x, y1 + 14, v);
    }
    tx_buf_printf(b, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", SVG_LEFT,
                  y1, SVG_LEFT + SVG_PLOT_W, y1);
    tx_buf_printf(b, "<text class=\"label\" x=\"%d\" y=\"%d\">time (\xc2\xb5s from the first "
                     "event)</text>\n", SVG_LEFT + SVG_PLOT_W / 2, y1 + 32);
}

/* Events of one row, name and depth drawn as one shape: each closer to
 * the one before than a quarter of a pixel, which could not be told apart
 * drawn one by one (a long trace's short waits stay a few shapes, not
 * thousands). A bar's height is scaled by the fraction of its extent its
 * spans cover, so many short waits read as a thin bar, not as one long
 * wait, and no colour is blended. */
typedef struct Run {
    const RtTraceEvent *first;
    uint64_t end;  /* the latest end (a mark's time) */
    uint64_t busy; /* the spans' summed durations */
    int count;
} Run;

static bool joins(const Timeline *l, const Run *r, const RtTraceEvent *e)
{
    const RtTraceEvent *f = r->first;
    if (!r->count || e->track != f->track || e->name != f->name || e->span != f->span ||
        e->depth != f->depth)
        return false;
    return e->t <= r->end || (double)(e->t - r->end) / 1000 / l->end_us * SVG_PLOT_W < 0.25;
}

/* A span as a bar (inset by its depth, so a nested range shows inside its
 * parent), a mark as a thin line across its row; the title gives the
 * numbers on hover. */
static void svg_run(const Timeline *l, TxBuf *b, const Run *r)
{
    const RtTraceEvent *e = r->first;
    int y = l->row_y[e->track], inset = e->depth < 4 ? e->depth * 2 : 8;
    double x = x_of(l, (double)e->t / 1000);
    double w = (double)(r->end - e->t) / 1000 / l->end_us * SVG_PLOT_W;
    int colour = (int)(e->name % TX_ARRAY_LEN(svg_colours));
    double cover = r->end > e->t ? (double)r->busy / (double)(r->end - e->t) : 1;
    double h = (SVG_BAR - 2 * inset) * (cover < 1 ? cover : 1);
    h = h > 2 ? h : 2;
    if (e->span)
        tx_buf_printf(b, "<rect class=\"n%d\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\">",
                      colour, x, y + SVG_ROW / 2 - h / 2, w > 0.5 ? w : 0.5, h);
    else
        tx_buf_printf(b, "<rect class=\"n%d mark\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\">",
                      colour, x - 0.75, y, w + 1.5, SVG_ROW);
    tx_buf_puts(b, "<title>");
    xml_text(b, event_name(l->t, e->name));
    if (r->count > 1 && e->span)
        tx_buf_printf(b, ": %d spans covering %.0f%% of %.3f to %.3f \xc2\xb5s</title></rect>\n",
                      r->count, cover * 100, (double)e->t / 1000, (double)r->end / 1000);
    else if (r->count > 1)
        tx_buf_printf(b, ": %d marks, %.3f to %.3f \xc2\xb5s</title></rect>\n", r->count,
                      (double)e->t / 1000, (double)r->end / 1000);
    else if (e->span)
        tx_buf_printf(b, ": %.3f to %.3f \xc2\xb5s, payload %u, end payload %u</title></rect>\n",
                      (double)e->t / 1000, (double)r->end / 1000, e->payload, e->end_payload);
    else
        tx_buf_printf(b, ": %.3f \xc2\xb5s, payload %u</title></rect>\n", (double)e->t / 1000,
                      e->payload);
}

/* The spans of the drawn rows, outer ones before the ranges nested in them
 * (which are recorded first, as they close first), then the marks. */
static void svg_events(const Timeline *l, TxBuf *b)
{
    const RtTrace *t = l->t;
    for (int depth = 0; depth <= l->max_depth + 1; depth++) {
        Run r = {0};
        for (int i = 0; i < t->events.len; i++) {
            const RtTraceEvent *e = &t->events.items[i];
            bool now = depth > l->max_depth ? !e->span : e->span && e->depth == depth;
            if (l->row_y[e->track] < 0 || !now)
                continue;
            if (joins(l, &r, e)) {
                r.end = e->t + e->dur > r.end ? e->t + e->dur : r.end;
                r.busy += e->dur;
                r.count++;
                continue;
            }
            if (r.count)
                svg_run(l, b, &r);
            r = (Run){e, e->t + e->dur, e->dur, 1};
        }
        if (r.count)
            svg_run(l, b, &r);
    }
}

char *rt_trace_svg(const RtTrace *t, unsigned max_sms)
{
    Timeline l = {.t = t};
    plan(&l, max_sms ? max_sms : RT_TRACE_SVG_SMS);
    TxBuf b = {0};
    tx_buf_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                      "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n",
                  SVG_WIDTH, l.height, SVG_WIDTH, l.height);
    tx_buf_puts(&b, "<style>.title{font-size:14px}.note{fill:#b00000}.sm{font-weight:bold}"
                    ".row{text-anchor:end}.tick,.label{text-anchor:middle}.band{fill:#f3f3f3}"
                    ".grid{stroke:#dddddd}.axis{stroke:#000000}.mark{opacity:0.9}");
    for (size_t i = 0; i < TX_ARRAY_LEN(svg_colours); i++)
        tx_buf_printf(&b, ".n%zu{fill:%s}", i, svg_colours[i]);
    tx_buf_puts(&b, "</style>\n");
    tx_buf_printf(&b, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", SVG_WIDTH, l.height);
    svg_heading(&l, &b);
    svg_legend(&l, &b);
    svg_rows(&l, &b);
    svg_axis(&l, &b);
    svg_events(&l, &b);
    tx_buf_puts(&b, "</svg>\n");
    free(l.row_y);
    free(l.order);
    return tx_buf_take(&b);
}
