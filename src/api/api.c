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

/* Each entry point runs its work as one of these calls under tx_guarded, so
 * memory running out anywhere below comes back as TIRX_ERR_NOMEM. */
typedef struct ParseCall {
    const char *text, *filename;
    size_t len, ndefines;
    const ScDefine *defines;
    const tirx_options *o;
    IrModule *ir;
} ParseCall;

static void parse_call(void *arg)
{
    ParseCall *c = arg;
    c->ir = sc_parse_imports(c->text, c->len, c->filename, c->defines, c->ndefines,
                             c->o ? c->o->import_dirs : NULL, c->o ? c->o->n_import_dirs : 0);
}

tirx_status tirx_parse(const char *text, size_t len, const char *filename,
                       const tirx_define *defines, size_t ndefines, tirx_module **out)
{
    return tirx_parse_with(text, len, filename, defines, ndefines, NULL, out);
}

tirx_status tirx_parse_with(const char *text, size_t len, const char *filename,
                            const tirx_define *defines, size_t ndefines, const tirx_options *o,
                            tirx_module **out)
{
    if (!out)
        return TIRX_ERR_USAGE;
    *out = NULL;
    if ((!text && len) || (ndefines && !defines) || !api_import_dirs_ok(o))
        return TIRX_ERR_USAGE;
    _Static_assert(sizeof(ScDefine) == sizeof(tirx_define), "define layouts agree");
    ParseCall c = {text ? text : "", filename ? filename : "<input>", len, ndefines,
                   (const ScDefine *)defines, o, NULL};
    tirx_module *m = calloc(1, sizeof *m);
    if (!m || !tx_guarded(parse_call, &c)) {
        free(m);
        return TIRX_ERR_NOMEM;
    }
    m->ir = c.ir;
    *out = m;
    return m->ir->diags.nerrors ? TIRX_ERR_INPUT : TIRX_OK;
}

typedef struct ModuleCall {
    IrModule *a;
    const IrModule *b;
    bool ok;
    char *text;
} ModuleCall;

static void verify_call(void *arg)
{
    ModuleCall *c = arg;
    c->ok = ir_verify(c->a);
}

tirx_status tirx_verify(tirx_module *m)
{
    if (!m)
        return TIRX_ERR_USAGE;
    if (m->ir->diags.nerrors)
        return TIRX_ERR_INPUT;
    ModuleCall c = {.a = m->ir};
    if (!tx_guarded(verify_call, &c))
        return TIRX_ERR_NOMEM;
    return c.ok ? TIRX_OK : TIRX_ERR_INPUT;
}

static void print_call(void *arg)
{
    ModuleCall *c = arg;
    c->text = sc_print(c->b);
}

char *tirx_print(const tirx_module *m)
{
    if (!m || m->ir->diags.nerrors)
        return NULL;
    ModuleCall c = {.b = m->ir};
    return tx_guarded(print_call, &c) ? c.text : NULL;
}

static void equal_call(void *arg)
{
    ModuleCall *c = arg;
    c->ok = ir_module_equal(c->a, c->b);
}

int tirx_module_equal(const tirx_module *a, const tirx_module *b)
{
    if (!a || !b || a->ir->diags.nerrors || b->ir->diags.nerrors)
        return 0;
    ModuleCall c = {.a = a->ir, .b = b->ir};
    return tx_guarded(equal_call, &c) && c.ok;
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

static void render_call(void *arg)
{
    ModuleCall *c = arg;
    TxBuf b = {0};
    tx_buf_puts(&b, "");
    if (c->b)
        for (int i = 0; i < c->b->diags.list.len; i++)
            tx_diag_render(&c->b->diags.list.items[i], &b);
    c->text = tx_buf_take(&b);
}

char *tirx_diag_render(const tirx_module *m)
{
    ModuleCall c = {.b = m ? m->ir : NULL};
    return tx_guarded(render_call, &c) ? c.text : NULL;
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
