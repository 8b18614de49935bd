/* The public API of include/tirx.h over the internal layers. */
#include "../../include/tirx.h"

#include <stdlib.h>
#include <string.h>

#include "../ir/visit.h"
#include "../script/script.h"
#include "internal.h"

#ifndef TIRX_VERSION
#define TIRX_VERSION "0.0.0"
#endif

const char *tirx_version(void) { return TIRX_VERSION; }

tirx_status tirx_parse(const char *text, size_t len, const char *filename,
                       const tirx_define *defines, size_t ndefines, tirx_module **out)
{
    if (!out)
        return TIRX_ERR_USAGE;
    *out = NULL;
    if ((!text && len) || (ndefines && !defines))
        return TIRX_ERR_USAGE;
    tirx_module *m = calloc(1, sizeof *m);
    if (!m)
        return TIRX_ERR_INTERNAL;
    _Static_assert(sizeof(ScDefine) == sizeof(tirx_define), "define layouts agree");
    m->ir = sc_parse(text ? text : "", len, filename ? filename : "<input>",
                     (const ScDefine *)defines, ndefines);
    *out = m;
    return m->ir->diags.nerrors ? TIRX_ERR_INPUT : TIRX_OK;
}

tirx_status tirx_verify(tirx_module *m)
{
    if (!m)
        return TIRX_ERR_USAGE;
    if (m->ir->diags.nerrors)
        return TIRX_ERR_INPUT;
    return ir_verify(m->ir) ? TIRX_OK : TIRX_ERR_INPUT;
}

char *tirx_print(const tirx_module *m)
{
    if (!m || m->ir->diags.nerrors)
        return NULL;
    return sc_print(m->ir);
}

int tirx_module_equal(const tirx_module *a, const tirx_module *b)
{
    if (!a || !b || a->ir->diags.nerrors || b->ir->diags.nerrors)
        return 0;
    return ir_module_equal(a->ir, b->ir);
}

size_t tirx_diag_count(const tirx_module *m) { return m ? (size_t)m->ir->diags.list.len : 0; }

int tirx_diag_get(const tirx_module *m, size_t i, tirx_diag *out)
{
    if (!m || !out || i >= (size_t)m->ir->diags.list.len)
        return -1;
    const TxDiag *d = &m->ir->diags.list.items[i];
    memset(out, 0, sizeof *out);
    out->severity = (tirx_severity)d->sev;
    out->message = d->msg;
    out->code = tx_code_text(d->code);
    out->code_name = tx_code_name(d->code);
    if (d->span.src) {
        out->file = d->span.src->name;
        tx_source_linecol(d->span.src, d->span.begin, &out->line, &out->col);
        tx_source_linecol(d->span.src, d->span.end, &out->end_line, &out->end_col);
    }
    return 0;
}

char *tirx_diag_render(const tirx_module *m)
{
    TxBuf b = {0};
    tx_buf_puts(&b, "");
    if (m)
        for (int i = 0; i < m->ir->diags.list.len; i++)
            tx_diag_render(&m->ir->diags.list.items[i], &b);
    return tx_buf_take(&b);
}

int tirx_diag_code_get(size_t i, const char **code, const char **name, const char **summary)
{
    if (i >= TX_CODE_COUNT - 1)
        return -1;
    TxCode c = (TxCode)(i + 1);
    if (code)
        *code = tx_code_text(c);
    if (name)
        *name = tx_code_name(c);
    if (summary)
        *summary = tx_code_summary(c);
    return 0;
}

void tirx_module_free(tirx_module *m)
{
    if (!m)
        return;
    ir_module_free(m->ir);
    api_compiled_free(m->compiled);
    free(m);
}

void tirx_free(void *p) { free(p); }
