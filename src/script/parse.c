/* Placeholder until the parser lands. */
#include "script.h"
IrModule *sc_parse(const char *text, size_t len, const char *filename, const ScDefine *defines,
                   size_t ndefines)
{
    (void)defines, (void)ndefines;
    IrModule *m = ir_module_new();
    m->source = tx_source_new(&m->arena, filename, text, len);
    tx_error(&m->diags, (TxSpan){m->source, 0, 0}, "parser not implemented");
    return m;
}
