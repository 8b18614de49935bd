/* Internal to src/api: the module handle of tirx.h and what compiling adds
 * to it. */
#ifndef TX_API_INTERNAL_H
#define TX_API_INTERNAL_H

#include "../../include/tirx.h"
#include "../ir/ir.h"

typedef struct ApiCompiled ApiCompiled;

struct tirx_module {
    IrModule *ir;          /* the parsed (and lowered) module; on a cache hit, the host part */
    ApiCompiled *compiled; /* set by tirx_compile */
};

static inline IrModule *api_module_ir(const tirx_module *m) { return m->ir; }

/* The passes over a module (tirx_lower without the handle). */
tirx_status api_lower(IrModule *ir, const char *passes, const tirx_options *o);
/* Frees what tirx_compile added (api/compile.c). */
void api_compiled_free(ApiCompiled *c);

#endif
