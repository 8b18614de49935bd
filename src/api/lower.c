/* tirx_lower: the pass pipeline (src/pass) behind the public API, with the
 * --print-after text handed to the caller's callback. */
#include "../../include/tirx.h"

#include <stdlib.h>
#include <string.h>

#include "../pass/pass.h"
#include "../script/script.h"
#include "internal.h"

typedef struct PrintRelay {
    const tirx_options *o;
} PrintRelay;

static void relay_print(void *user, const char *pass, const IrModule *m)
{
    const PrintRelay *r = user;
    char *text = sc_print(m);
    r->o->print_fn(r->o->print_user, pass, text);
    free(text);
}

tirx_status api_lower(IrModule *ir, const char *passes, const tirx_options *o)
{
    static const tirx_options none;
    if (!o)
        o = &none;
    PrintRelay relay = {o};
    PsCtx ctx = {.arch = o->arch, .verify_each = o->verify_each != 0,
                 .print_after = o->print_fn ? o->print_after : NULL, .print = relay_print,
                 .print_user = &relay};
    if (ir->diags.nerrors)
        return TIRX_ERR_INPUT;
    if (passes && !ps_check_names(&ir->diags, passes)) {
        /* A usage error, not one in the module: no pass ran and the module
         * stays usable (lowered again, printed); the diagnostic says why. */
        ir->diags.nerrors--;
        return TIRX_ERR_USAGE;
    }
    bool ok = passes ? ps_run_named(&ctx, ir, passes) : ps_run_pipeline(&ctx, ir);
    return ok ? TIRX_OK : TIRX_ERR_INPUT;
}

typedef struct LowerCall {
    IrModule *ir;
    const char *passes;
    const tirx_options *o;
    tirx_status status;
} LowerCall;

static void lower_call(void *arg)
{
    LowerCall *c = arg;
    c->status = api_lower(c->ir, c->passes, c->o);
}

tirx_status tirx_lower(tirx_module *m, const char *passes, const tirx_options *o)
{
    /* a compiled module launches the functions it was compiled from: lowering
     * its IR again would leave the two apart */
    if (!m || !api_module_ir(m) || m->compiled)
        return TIRX_ERR_USAGE;
    LowerCall c = {api_module_ir(m), passes, o, TIRX_OK};
    return tx_guarded(lower_call, &c) ? c.status : TIRX_ERR_NOMEM;
}
