/* Diagnostic list, the code table, and GCC-style rendering with the code in
 * brackets and a caret under the span. */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tx_diags_init(TxDiags *d, TxArena *a)
{
    memset(d, 0, sizeof *d);
    d->arena = a;
}

void tx_diags_free(TxDiags *d) { tx_vec_free(&d->list); }

static void add(TxDiags *d, TxSeverity sev, TxCode code, TxSpan span, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *msg = tx_arena_alloc(d->arena, (size_t)n + 1);
    vsnprintf(msg, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    TxDiag dg = {sev, code, span, msg};
    tx_vec_push(&d->list, dg);
    d->nerrors += sev == TX_SEV_ERROR;
}

#define DEFINE_REPORTER(fn, sev)                                   \
    void fn(TxDiags *d, TxCode code, TxSpan span, const char *fmt, ...) \
    {                                                              \
        va_list ap;                                                \
        va_start(ap, fmt);                                         \
        add(d, sev, code, span, fmt, ap);                          \
        va_end(ap);                                                \
    }
DEFINE_REPORTER(tx_error, TX_SEV_ERROR)
DEFINE_REPORTER(tx_warning, TX_SEV_WARNING)

void tx_note(TxDiags *d, TxSpan span, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(d, TX_SEV_NOTE, TX_CODE_NONE, span, fmt, ap);
    va_end(ap);
}

static const char *const code_texts[TX_CODE_COUNT] = {
#define X(id, code, name, summary) [TX_##id] = code,
#include "diag_codes.def"
#undef X
};

static const char *const code_names[TX_CODE_COUNT] = {
#define X(id, code, name, summary) [TX_##id] = name,
#include "diag_codes.def"
#undef X
};

static const char *const code_summaries[TX_CODE_COUNT] = {
#define X(id, code, name, summary) [TX_##id] = summary,
#include "diag_codes.def"
#undef X
};

const char *tx_code_text(TxCode code)
{
    return code > TX_CODE_NONE && code < TX_CODE_COUNT ? code_texts[code] : NULL;
}

const char *tx_code_name(TxCode code)
{
    return code > TX_CODE_NONE && code < TX_CODE_COUNT ? code_names[code] : NULL;
}

const char *tx_code_summary(TxCode code)
{
    return code > TX_CODE_NONE && code < TX_CODE_COUNT ? code_summaries[code] : NULL;
}

static const char *sev_name(TxSeverity s)
{
    return s == TX_SEV_ERROR ? "error" : s == TX_SEV_WARNING ? "warning" : "note";
}

/* `error[E0101]: message` (a note: `note: message`). */
static void render_head(const TxDiag *dg, TxBuf *out)
{
    const char *code = tx_code_text(dg->code);
    if (code)
        tx_buf_printf(out, "%s[%s]: %s\n", sev_name(dg->sev), code, dg->msg);
    else
        tx_buf_printf(out, "%s: %s\n", sev_name(dg->sev), dg->msg);
}

void tx_diag_render(const TxDiag *dg, TxBuf *out)
{
    const TxSource *src = dg->span.src;
    if (!src) {
        render_head(dg, out);
        return;
    }
    int line, col;
    tx_source_linecol(src, dg->span.begin, &line, &col);
    tx_buf_printf(out, "%s:%d:%d: ", src->name, line, col);
    render_head(dg, out);
    const char *ls = src->text + src->line_off[line - 1];
    const char *le = strchr(ls, '\n');
    size_t llen = le ? (size_t)(le - ls) : strlen(ls);
    tx_buf_putn(out, ls, llen);
    tx_buf_putc(out, '\n');
    for (int i = 1; i < col; i++)
        tx_buf_putc(out, ls[i - 1] == '\t' ? '\t' : ' ');
    tx_buf_putc(out, '^');
    uint32_t end = dg->span.end;
    uint32_t line_end = (uint32_t)(ls - src->text + llen);
    if (end > line_end)
        end = line_end;
    for (uint32_t o = dg->span.begin + 1; o < end; o++)
        tx_buf_putc(out, '~');
    tx_buf_putc(out, '\n');
}
