/* Trace records to Chrome's trace event format (the JSON Perfetto and
 * chrome://tracing open): one launch's record buffer at a time is decoded
 * into events appended to RtTrace, and rt_trace_json wraps them. The buffer
 * comes from the GPU, so nothing in it is trusted: counts are clipped to the
 * capacity and to the buffer, an unknown name is printed as its number, and
 * ranges are paired per warp, an unpaired one counted instead of drawn. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

enum { MARK, START, END, PUSH, POP };
enum { MAX_OPEN = 64 }; /* open ranges per warp kept for pairing */

typedef struct Open {
    uint32_t name;
    uint64_t t;
    uint32_t payload;
} Open;

static void json_string(TxBuf *b, const char *s, size_t n)
{
    tx_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            tx_buf_printf(b, "\\%c", c);
        else if (c < 32)
            tx_buf_printf(b, "\\u%04x", c);
        else
            tx_buf_putc(b, (char)c);
    }
    tx_buf_putc(b, '"');
}

static void event_name(TxBuf *b, const char *names, size_t len, uint32_t id)
{
    size_t at = 0;
    for (uint32_t i = 0; i < id && at < len; i++)
        at += strnlen(names + at, len - at) + 1;
    if (at < len)
        json_string(b, names + at, strnlen(names + at, len - at));
    else
        tx_buf_printf(b, "\"event %u\"", id);
}

static void sep(RtTrace *t)
{
    tx_buf_puts(&t->events, t->events.len ? ",\n" : "\n");
}

/* A time in microseconds from t0 (ns resolution). */
static void ts(TxBuf *b, uint64_t t0, uint64_t t)
{
    uint64_t d = t > t0 ? t - t0 : 0;
    tx_buf_printf(b, "%llu.%03llu", (unsigned long long)(d / 1000), (unsigned long long)(d % 1000));
}

typedef struct Track {
    RtTrace *t;
    const char *names;
    size_t names_len;
    uint32_t pid;
    uint64_t tid;
} Track;

static void head(Track *k, const char *ph, uint32_t name, uint64_t t)
{
    sep(k->t);
    tx_buf_puts(&k->t->events, "{\"name\": ");
    event_name(&k->t->events, k->names, k->names_len, name);
    tx_buf_printf(&k->t->events, ", \"ph\": \"%s\", \"pid\": %u, \"tid\": %llu, \"ts\": ", ph, k->pid,
                  (unsigned long long)k->tid);
    ts(&k->t->events, k->t->t0, t);
}

static void instant(Track *k, uint32_t name, uint64_t t, uint32_t payload)
{
    head(k, "i", name, t);
    tx_buf_printf(&k->t->events, ", \"s\": \"t\", \"args\": {\"payload\": %u}}", payload);
}

static void span(Track *k, const Open *o, uint64_t end, uint32_t payload)
{
    head(k, "X", o->name, o->t);
    tx_buf_puts(&k->t->events, ", \"dur\": ");
    ts(&k->t->events, o->t, end);
    tx_buf_printf(&k->t->events, ", \"args\": {\"payload\": %u, \"end_payload\": %u}}", o->payload,
                  payload);
}

static void metadata(RtTrace *t, const char *what, uint32_t pid, const uint64_t *tid, const char *name)
{
    sep(t);
    tx_buf_printf(&t->events, "{\"name\": \"%s\", \"ph\": \"M\", \"pid\": %u, ", what, pid);
    if (tid)
        tx_buf_printf(&t->events, "\"tid\": %llu, ", (unsigned long long)*tid);
    tx_buf_puts(&t->events, "\"args\": {\"name\": ");
    json_string(&t->events, name, strlen(name));
    tx_buf_puts(&t->events, "}}");
}

/* Pairs the closing record (kind END: the open range of that name, the
 * latest; POP: the latest push) with its opening one. */
static void close_range(Track *k, Open *open, int *nopen, int kind, uint32_t name, uint64_t t,
                        uint32_t payload, bool *is_push)
{
    for (int i = *nopen - 1; i >= 0; i--) {
        if (kind == POP ? !is_push[i] : is_push[i] || open[i].name != name)
            continue;
        span(k, &open[i], t, payload);
        memmove(open + i, open + i + 1, sizeof *open * (size_t)(*nopen - i - 1));
        memmove(is_push + i, is_push + i + 1, sizeof *is_push * (size_t)(*nopen - i - 1));
        (*nopen)--;
        return;
    }
    k->t->unpaired++;
}

static void add_warp(Track *k, const uint64_t *rec, uint64_t n)
{
    Open open[MAX_OPEN];
    bool is_push[MAX_OPEN];
    int nopen = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t time = rec[2 * i];
        uint32_t code = (uint32_t)rec[2 * i + 1], payload = (uint32_t)(rec[2 * i + 1] >> 32);
        uint32_t kind = code & 7, name = code >> 3;
        if (kind == MARK) {
            instant(k, name, time, payload);
        } else if (kind == START || kind == PUSH) {
            if (nopen == MAX_OPEN) {
                k->t->unpaired++;
                continue;
            }
            is_push[nopen] = kind == PUSH;
            open[nopen++] = (Open){name, time, payload};
        } else if (kind == END || kind == POP) {
            close_range(k, open, &nopen, (int)kind, name, time, payload, is_push);
        }
    }
    k->t->unpaired += (uint64_t)nopen;
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
    for (uint64_t s = 0; s < slots; s++) {
        const uint64_t *slot = words + 2 + s * (1 + 2 * cap);
        uint32_t count = (uint32_t)slot[0], sm = (uint32_t)(slot[0] >> 32);
        if (count == 0)
            continue;
        Track k = {t, names, names_len, sm, (uint64_t)(t->launches - 1) << 32 | s};
        char label[160];
        snprintf(label, sizeof label, "%s CTA %llu warp %llu", kernel,
                 (unsigned long long)(s / warps_per_cta), (unsigned long long)(s % warps_per_cta));
        metadata(t, "thread_name", sm, &k.tid, label);
        if (sm >= 8 * sizeof t->sm_named || !(t->sm_named[sm / 8] & 1u << sm % 8)) {
            snprintf(label, sizeof label, "SM %u", sm);
            metadata(t, "process_name", sm, NULL, label);
            if (sm < 8 * sizeof t->sm_named)
                t->sm_named[sm / 8] |= (uint8_t)(1u << sm % 8);
        }
        t->dropped += count > cap ? count - cap : 0;
        add_warp(&k, slot + 1, count < cap ? count : cap);
    }
}

char *rt_trace_json(RtTrace *t)
{
    TxBuf b = {0};
    tx_buf_puts(&b, "{\"displayTimeUnit\": \"ns\", \"otherData\": {");
    tx_buf_printf(&b, "\"launches\": %d, \"dropped_records\": %llu, \"unpaired_ranges\": %llu},\n",
                  t->launches, (unsigned long long)t->dropped, (unsigned long long)t->unpaired);
    tx_buf_puts(&b, "\"traceEvents\": [");
    if (t->events.len)
        tx_buf_putn(&b, t->events.data, t->events.len);
    tx_buf_puts(&b, "\n]}\n");
    tx_buf_free(&t->events);
    *t = (RtTrace){0};
    return tx_buf_take(&b);
}
