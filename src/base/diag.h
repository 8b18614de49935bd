/* Diagnostics: structured errors, warnings and notes with source spans, kept in
 * a list owned by whoever compiles. Library code never prints; the CLI renders
 * the list with tx_diag_render. A note always follows the error it explains.
 * Every error and warning carries a stable code from diag_codes.def. */
#ifndef TX_DIAG_H
#define TX_DIAG_H

#include "base.h"

typedef enum { TX_SEV_ERROR, TX_SEV_WARNING, TX_SEV_NOTE } TxSeverity;

typedef enum TxCode {
    TX_CODE_NONE, /* a note */
#define X(id, code, name, summary) TX_##id,
#include "diag_codes.def"
#undef X
    TX_CODE_COUNT
} TxCode;

typedef struct TxDiag {
    TxSeverity sev;
    TxCode code;      /* TX_CODE_NONE for a note */
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
void tx_error(TxDiags *d, TxCode code, TxSpan span, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void tx_warning(TxDiags *d, TxCode code, TxSpan span, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void tx_note(TxDiags *d, TxSpan span, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A code's text ("E0101"), name ("unknown-name") and one-line summary; NULL
 * for TX_CODE_NONE. */
const char *tx_code_text(TxCode code);
const char *tx_code_name(TxCode code);
const char *tx_code_summary(TxCode code);
/* `FILE:LINE:COL: error[E0101]: message`, the source line and a caret/underline. */
void tx_diag_render(const TxDiag *dg, TxBuf *out);

#endif
