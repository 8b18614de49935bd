/* The pass table (from passes.def), the default pipeline as a plain list, and
 * the runner: passes in order, the verifier after each one under
 * --verify-each, and the module handed to a printer after --print-after. */
#include "pass.h"

#include <string.h>

#include "../ir/visit.h"

const PsPassInfo ps_passes[PS_PASS_COUNT] = {
#define X(E, name, fn, what) {name, fn, what},
#include "passes.def"
#undef X
};

/* The default order (docs/pipeline.md). */
static const PsPassId default_pipeline[] = {
    PS_PASS_TILE_PRIMITIVE_DISPATCH,
    PS_PASS_LOWER_TIRX_CLEANUP,
    PS_PASS_SIMPLIFY,
    PS_PASS_LOWER_TIRX_OPAQUE,
    PS_PASS_FLATTEN_BUFFER,
    PS_PASS_LEGALIZE_LOW_PRECISION,
    PS_PASS_VECTORIZE_LOOP,
    PS_PASS_UNROLL_LOOP,
    PS_PASS_SIMPLIFY,
    PS_PASS_SPLIT_HOST_DEVICE,
    PS_PASS_MAKE_PACKED_API,
};

int ps_pass_lookup(const char *name)
{
    for (int i = 0; i < PS_PASS_COUNT; i++)
        if (!strcmp(ps_passes[i].name, name))
            return i;
    return -1;
}

static bool wants_print(const PsCtx *ctx, const char *name)
{
    return ctx->print && ctx->print_after &&
           (!strcmp(ctx->print_after, "all") || !strcmp(ctx->print_after, name));
}

static bool run_one(PsCtx *ctx, IrModule *m, PsPassId id)
{
    const PsPassInfo *p = &ps_passes[id];
    int errors = m->diags.nerrors;
    bool ok = p->run(ctx, m) && m->diags.nerrors == errors;
    if (ok && ctx->verify_each && !ir_verify(m)) {
        tx_note(&m->diags, (TxSpan){0}, "the IR after pass %s is not well-formed", p->name);
        ok = false;
    }
    if (wants_print(ctx, p->name))
        ctx->print(ctx->print_user, p->name, m);
    return ok;
}

bool ps_run(PsCtx *ctx, IrModule *m, const PsPassId *ids, int n)
{
    if (m->diags.nerrors)
        return false;
    for (int i = 0; i < n; i++)
        if (!run_one(ctx, m, ids[i]))
            return false;
    return true;
}

bool ps_run_pipeline(PsCtx *ctx, IrModule *m)
{
    return ps_run(ctx, m, default_pipeline, (int)TX_ARRAY_LEN(default_pipeline));
}

/* The next name of a comma-separated list into buf; returns the rest or NULL at the end. */
static const char *next_name(const char *s, char *buf, size_t size)
{
    if (!*s)
        return NULL;
    const char *comma = strchr(s, ',');
    size_t n = comma ? (size_t)(comma - s) : strlen(s);
    if (n >= size)
        n = size - 1;
    memcpy(buf, s, n);
    buf[n] = 0;
    return comma ? comma + 1 : s + strlen(s);
}

bool ps_check_names(TxDiags *d, const char *names)
{
    const char *all[PS_PASS_COUNT];
    for (int i = 0; i < PS_PASS_COUNT; i++)
        all[i] = ps_passes[i].name;
    char name[128];
    for (const char *s = names; (s = next_name(s, name, sizeof name));) {
        if (ps_pass_lookup(name) >= 0)
            continue;
        const char *near = tx_nearest(name, all, PS_PASS_COUNT);
        tx_error(d, TX_E_UNKNOWN_PASS, (TxSpan){0}, "unknown pass '%s'%s%s%s", name,
                 near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
        return false;
    }
    return true;
}

bool ps_run_named(PsCtx *ctx, IrModule *m, const char *names)
{
    if (!ps_check_names(&m->diags, names))
        return false;
    char name[128];
    for (const char *s = names; (s = next_name(s, name, sizeof name));) {
        PsPassId pid = (PsPassId)ps_pass_lookup(name);
        if (!ps_run(ctx, m, &pid, 1))
            return false;
    }
    return true;
}
