/* tirx_layout_describe (include/tirx.h), behind `tirx layout`: a layout
 * written as in TIRx script, applied to every index of a shape (or one), as
 * lines `(i, j) -> {axis=v, ...}; {...} bank=B`. The layout text is the
 * source of the diagnostics ("<layout>"). */
#include <stdlib.h>
#include <string.h>

#include "../layout/layout.h"
#include "../script/script.h"
#include "internal.h"

enum { MAX_RANK = 16 };
/* Every index of a larger shape would be a line each: tens of MB of text, or
 * far more than memory holds; one index (at) of any shape is fine. */
#define MAX_DESCRIBED ((int64_t)1 << 20)

static tirx_status usage(IrModule *m, const char *msg)
{
    tx_error(&m->diags, TX_E_USAGE, (TxSpan){0}, "%s", msg);
    return TIRX_ERR_USAGE;
}

static const char *index_text(TxArena *a, const int64_t *idx, int ndim)
{
    char *s = "(";
    for (int d = 0; d < ndim; d++)
        s = tx_arena_printf(a, "%s%s%lld", s, d ? ", " : "", (long long)idx[d]);
    return tx_arena_printf(a, "%s%s)", s, ndim == 1 ? "," : "");
}

/* The shape, the index and the dtype are well formed. */
static tirx_status check_args(IrModule *m, const long long *shape, int ndim, const long long *at,
                              const char *dtype, IrDType *dt)
{
    if (ndim < 1 || ndim > MAX_RANK || !shape)
        return usage(m, tx_arena_printf(&m->arena, "a shape has 1 to %d dimensions", MAX_RANK));
    int64_t count = 1;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 1)
            return usage(m, tx_arena_printf(&m->arena, "dimension %d of the shape is %lld; "
                                            "dimensions are positive", d, shape[d]));
        if (__builtin_mul_overflow(count, (int64_t)shape[d], &count))
            return usage(m, "the shape has more elements than a 64-bit count holds");
    }
    if (!at && count > MAX_DESCRIBED)
        return usage(m, tx_arena_printf(&m->arena, "the shape has %lld elements, more than the "
                                        "%lld described one by one; give an index (--at)",
                                        (long long)count, (long long)MAX_DESCRIBED));
    for (int d = 0; at && d < ndim; d++)
        if (at[d] < 0 || at[d] >= shape[d]) {
            int64_t s[MAX_RANK], i[MAX_RANK];
            for (int k = 0; k < ndim; k++)
                s[k] = shape[k], i[k] = at[k];
            return usage(m, tx_arena_printf(&m->arena, "index %s is outside the shape %s",
                                            index_text(&m->arena, i, ndim),
                                            index_text(&m->arena, s, ndim)));
        }
    if (dtype && (!ir_dtype_parse(dtype, strlen(dtype), dt) || dt->bits == 0))
        return usage(m, tx_arena_printf(&m->arena, "unknown dtype '%s'", dtype));
    return TIRX_OK;
}

/* The 4-byte shared-memory bank of point p's m address. */
static bool bank_of(const LyCoords *co, int p, IrDType dt, int64_t *bank)
{
    for (int k = 0; k < co->naxes; k++)
        if (!strcmp(co->axes[k], "m")) {
            int64_t bytes = co->vals[p * co->naxes + k] * dt.bits * (dt.lanes > 1 ? dt.lanes : 1) / 8;
            *bank = (bytes / 4) % 32;
            return true;
        }
    return false;
}

static void describe_one(TxBuf *b, TxArena *a, const LyCoords *co, const int64_t *idx, int ndim,
                         const IrDType *banks)
{
    tx_buf_printf(b, "%s ->", index_text(a, idx, ndim));
    for (int p = 0; p < co->npoints; p++) {
        tx_buf_puts(b, p ? "; {" : " {");
        for (int k = 0; k < co->naxes; k++)
            tx_buf_printf(b, "%s%s=%lld", k ? ", " : "", co->axes[k],
                          (long long)co->vals[p * co->naxes + k]);
        tx_buf_putc(b, '}');
        int64_t bank;
        if (banks && bank_of(co, p, *banks, &bank))
            tx_buf_printf(b, " bank=%lld", (long long)bank);
    }
    tx_buf_putc(b, '\n');
}

static tirx_status describe(IrModule *m, const IrLayout *l, const int64_t *shape, int ndim,
                            const long long *at, const IrDType *banks, char **out)
{
    LyCtx c = ly_ctx(&m->arena);
    int64_t count = 1, idx[MAX_RANK];
    for (int d = 0; d < ndim; d++)
        count *= shape[d];
    TxBuf b = {0};
    tx_buf_puts(&b, "");
    for (int64_t pos = 0; pos < (at ? 1 : count); pos++) {
        for (int64_t d = ndim - 1, rest = pos; d >= 0; d--) {
            idx[d] = at ? at[d] : rest % shape[d];
            rest /= shape[d];
        }
        LyCoords co;
        if (!ly_apply_at(&c, l, shape, idx, ndim, &co)) {
            tx_buf_free(&b);
            tx_error(&m->diags, TX_E_LAYOUT, (TxSpan){m->source, 0, m->source->len}, "%s", c.err);
            return TIRX_ERR_INPUT;
        }
        describe_one(&b, &m->arena, &co, idx, ndim, banks);
    }
    *out = tx_buf_take(&b);
    return TIRX_OK;
}

typedef struct DescribeCall {
    const char *layout, *dtype;
    const long long *shape, *at;
    int ndim;
    char **out;
    tirx_module *diags;
    tirx_status status;
} DescribeCall;

static tirx_status describe_layout(const char *layout, const long long *shape, int ndim,
                                   const long long *at, const char *dtype, char **out,
                                   tirx_module *diags)
{
    IrModule *m = diags->ir = ir_module_new();
    IrDType dt;
    tirx_status st = check_args(m, shape, ndim, at, dtype, &dt);
    if (st != TIRX_OK)
        return st;
    IrLayout *l = sc_parse_layout(m, layout, strlen(layout), "<layout>");
    if (!l)
        return TIRX_ERR_INPUT;
    LyCtx c = ly_ctx(&m->arena);
    int64_t s[MAX_RANK];
    IrExpr *dims[MAX_RANK];
    for (int d = 0; d < ndim; d++) {
        s[d] = shape[d];
        dims[d] = ir_int(&m->arena, IR_INT64, shape[d], (TxSpan){0});
    }
    if (!ly_admits(&c, l, dims, ndim)) {
        tx_error(&m->diags, TX_E_LAYOUT, (TxSpan){m->source, 0, m->source->len}, "%s", c.err);
        return TIRX_ERR_INPUT;
    }
    bool swizzled = l->kind == IR_LAYOUT_COMPOSE;
    return describe(m, l, s, ndim, at, dtype && swizzled ? &dt : NULL, out);
}

static void describe_call(void *arg)
{
    DescribeCall *c = arg;
    c->status = describe_layout(c->layout, c->shape, c->ndim, c->at, c->dtype, c->out, c->diags);
}

tirx_status tirx_layout_describe(const char *layout, const long long *shape, int ndim,
                                 const long long *at, const char *dtype, char **out,
                                 tirx_module **diags)
{
    if (!out || !diags || !layout)
        return TIRX_ERR_USAGE;
    *out = NULL;
    *diags = calloc(1, sizeof **diags);
    if (!*diags)
        return TIRX_ERR_NOMEM;
    DescribeCall c = {layout, dtype, shape, at, ndim, out, *diags, TIRX_OK};
    if (tx_guarded(describe_call, &c))
        return c.status;
    tirx_module_free(*diags);
    *diags = NULL, *out = NULL;
    return TIRX_ERR_NOMEM;
}
