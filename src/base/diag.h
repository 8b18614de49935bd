/* Diagnostics: structured errors, warnings and notes with source spans, kept in
 * a list owned by whoever compiles. Library code never prints; the CLI renders
 * the list with tx_diag_render. A note always follows the error it explains. */
#ifndef TX_DIAG_H
#define TX_DIAG_H

#include "base.h"

typedef enum { TX_SEV_ERROR, TX_SEV_WARNING, TX_SEV_NOTE } TxSeverity;

typedef struct TxDiag {
    TxSeverity sev;
    TxSpan span;      /* span.src NULL: no location */
    const char *msg;  /* arena-owned */
} TxDiag;

typedef struct TxDiags {
    TxArena *arena;
    TX_VEC(TxDiag) list;
    int nerrors;
} TxDiags;

void tx_diags_init(TxDiags *d, TxArena *a);
void tx_diags_free(TxDiags *d);
void tx_error(TxDiags *d, TxSpan span, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void tx_warning(TxDiags *d, TxSpan span, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void tx_note(TxDiags *d, TxSpan span, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* `FILE:LINE:COL: error: message`, the source line and a caret/underline. */
void tx_diag_render(const TxDiag *dg, TxBuf *out);

#endif
