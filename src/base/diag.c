/* Diagnostic list and GCC-style rendering with a caret under the span. */
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

static void add(TxDiags *d, TxSeverity sev, TxSpan span, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *msg = tx_arena_alloc(d->arena, (size_t)n + 1);
    vsnprintf(msg, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    TxDiag dg = {sev, span, msg};
    tx_vec_push(&d->list, dg);
    d->nerrors += sev == TX_SEV_ERROR;
}

#define DEFINE_REPORTER(fn, sev)                                   \
    void fn(TxDiags *d, TxSpan span, const char *fmt, ...)         \
    {                                                              \
        va_list ap;                                                \
        va_start(ap, fmt);                                         \
        add(d, sev, span, fmt, ap);                                \
        va_end(ap);                                                \
    }
DEFINE_REPORTER(tx_error, TX_SEV_ERROR)
DEFINE_REPORTER(tx_warning, TX_SEV_WARNING)
DEFINE_REPORTER(tx_note, TX_SEV_NOTE)

static const char *sev_name(TxSeverity s)
{
    return s == TX_SEV_ERROR ? "error" : s == TX_SEV_WARNING ? "warning" : "note";
}

void tx_diag_render(const TxDiag *dg, TxBuf *out)
{
    const TxSource *src = dg->span.src;
    if (!src) {
        tx_buf_printf(out, "%s: %s\n", sev_name(dg->sev), dg->msg);
        return;
    }
    int line, col;
    tx_source_linecol(src, dg->span.begin, &line, &col);
    tx_buf_printf(out, "%s:%d:%d: %s: %s\n", src->name, line, col, sev_name(dg->sev), dg->msg);
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
