/* The T.ptx dialect in the elaborator (placeholder until it is wired to the
 * instruction table of src/ir/ptx.h). */
#include "elab.h"

ScVal el_call_ptx(El *E, const char *path, ScArgs *args)
{
    el_error(E, args->span, "'T.%s': T.ptx is not supported yet", path);
    return sv_error();
}

ScVal bi_ptx_pred(El *E, ScArgs *args) { return el_call_ptx(E, "ptx.pred", args); }
ScVal bi_ptx_addr(El *E, ScArgs *args) { return el_call_ptx(E, "ptx.addr", args); }
