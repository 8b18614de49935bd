/* The tile-primitive registry: the table of variants.def and the dispatch
 * over it. The variants of the call's op (its rows and its family's rows,
 * families as src/ir/tile_ops.def gives them) are tried by descending
 * priority, ties by name (the reference's order); `dispatch="name"` keeps
 * only that variant.
 * A call nothing accepts is an error at the call listing every variant tried
 * with its priority and its reason, so the author sees why each was refused. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op.h"

/* The variant functions named by the table. */
#define OP_VARIANT(op, name, prio, accept, lower, what) \
    const char *accept(OpCtx *c);                       \
    IrStmt *lower(OpCtx *c);
#define OP_FAMILY_VARIANT OP_VARIANT
#include "variants.def"
#undef OP_VARIANT
#undef OP_FAMILY_VARIANT

static const OpVariant variants[] = {
#define OP_VARIANT(op_, name_, prio, accept_, lower_, what_)                              \
    {.op = IR_TILE_##op_, .name = name_, .priority = prio, .accept = accept_, .lower = lower_, \
     .what = what_},
#define OP_FAMILY_VARIANT(family_, name_, prio, accept_, lower_, what_)                     \
    {.op = IR_TILE_COUNT, .family = IR_TILE_FAMILY_##family_, .name = name_,                 \
     .priority = prio, .accept = accept_, .lower = lower_, .what = what_},
#include "variants.def"
#undef OP_VARIANT
#undef OP_FAMILY_VARIANT
};

const OpVariant *op_variants(int *n)
{
    *n = (int)TX_ARRAY_LEN(variants);
    return variants;
}

bool op_variant_lowers(const OpVariant *v, IrTileOp op)
{
    return v->op == IR_TILE_COUNT ? v->family == ir_tile_ops[op].family : v->op == op;
}

const char *op_reason(OpCtx *c, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return tx_arena_strdup(c->arena, buf);
}

IrStmt *op_decline(OpCtx *c, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    c->reason = tx_arena_strdup(c->arena, buf);
    return NULL;
}

static int by_priority(const void *pa, const void *pb)
{
    const OpVariant *a = *(const OpVariant *const *)pa, *b = *(const OpVariant *const *)pb;
    if (a->priority != b->priority)
        return a->priority > b->priority ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* The candidates for the call, in trial order; returns their count. */
static int candidates(const IrStmt *call, const OpVariant **out, bool forced)
{
    int n = 0;
    for (size_t i = 0; i < TX_ARRAY_LEN(variants); i++)
        if (op_variant_lowers(&variants[i], call->u.tile.op) &&
            (!forced || !strcmp(variants[i].name, call->u.tile.dispatch)))
            out[n++] = &variants[i];
    qsort(out, (size_t)n, sizeof *out, by_priority);
    return n;
}

const char *op_target_name(int sm)
{
    switch (sm) {
    case 80: return "sm_80";
    case 90: return "sm_90a";
    case 100: return "sm_100a";
    default: return "an unknown target";
    }
}

static const char *scope_name(IrScope s) { return s == IR_SCOPE_THREAD ? "thread" : ir_scope_names[s]; }

static void report_unknown_variant(const OpCtx *c, TxDiags *d)
{
    const IrStmt *call = c->call;
    const char *op = ir_tile_ops[call->u.tile.op].name;
    const char *names[TX_ARRAY_LEN(variants)];
    char list[512] = "";
    size_t len = 0;
    int n = 0;
    for (size_t i = 0; i < TX_ARRAY_LEN(variants); i++)
        if (op_variant_lowers(&variants[i], call->u.tile.op)) {
            names[n++] = variants[i].name;
            len += (size_t)snprintf(list + len, len < sizeof list ? sizeof list - len : 0, "%s%s",
                                    len ? ", " : "", variants[i].name);
        }
    const char *near = tx_nearest(call->u.tile.dispatch, names, n);
    tx_error(d, TX_E_UNKNOWN_TILE_OP, call->span, "tile primitive '%s' has no variant '%s'%s%s%s",
             op,
             call->u.tile.dispatch, near ? "; did you mean '" : "", near ? near : "",
             near ? "'?" : "");
    tx_note(d, (TxSpan){0}, "the variants of '%s' are: %s", op, list);
}

/* Whether region operand e is empty: a constant extent of 0 somewhere. */
static bool empty_region(const IrExpr *e)
{
    int64_t n;
    if (e->kind != IR_E_REGION)
        return false;
    for (int d = 0; d < e->u.access.n; d++)
        if (op_const(e->u.access.extents[d], &n) && n == 0)
            return true;
    return false;
}

/* A call whose region operands are all empty (`B[3, 8:8]`) does nothing: it
 * lowers to no statement. One with some empty and some not is an error. */
static bool empty_call(const IrStmt *call, TxArena *a, TxDiags *diags, IrStmt **out)
{
    int empty = 0, regions = 0, first = 0;
    for (int i = 0; i < call->u.tile.nargs; i++) {
        const IrExpr *e = call->u.tile.args[i];
        regions += e && e->kind == IR_E_REGION;
        if (e && empty_region(e) && !empty++)
            first = i + 1;
    }
    if (!empty)
        return false;
    if (empty == regions) {
        *out = ir_seq(a, NULL, 0, call->span);
        return true;
    }
    tx_error(diags, TX_E_TILE_OPERANDS, call->span,
             "tile primitive '%s': argument %d is an empty region but other regions are not",
             ir_tile_ops[call->u.tile.op].name, first);
    *out = NULL;
    return true;
}

bool op_dispatch(OpCtx *c, TxDiags *diags, IrStmt **out)
{
    const IrStmt *call = c->call;
    const char *op = ir_tile_ops[call->u.tile.op].name;
    if (empty_call(call, c->arena, diags, out))
        return *out != NULL;
    const OpVariant *cand[TX_ARRAY_LEN(variants)];
    bool forced = call->u.tile.dispatch != NULL;
    int n = candidates(call, cand, forced);
    if (forced && n == 0) {
        report_unknown_variant(c, diags);
        return false;
    }
    const char **why = TX_NEW_ARRAY(c->arena, const char *, n ? n : 1);
    int wrong_scope = 0;
    for (int i = 0; i < n; i++) {
        c->reason = NULL, c->wrong_scope = false;
        why[i] = cand[i]->accept(c);
        wrong_scope += why[i] && c->wrong_scope;
        if (why[i])
            continue;
        IrStmt *s = cand[i]->lower(c);
        if (s) {
            *out = s;
            return true;
        }
        why[i] = c->reason ? c->reason : "declined";
    }
    if (n == 0) {
        tx_error(diags, TX_E_NO_VARIANT, call->span, "tile primitive '%s' has no CUDA lowering",
                 op);
        return false;
    }
    if (wrong_scope == n)
        /* Not a call to fix but a lowering tirx does not have. */
        tx_error(diags, TX_E_NO_VARIANT, call->span,
                 "tile primitive '%s' has no variant at %s scope yet (%s): call it at the scope "
                 "of a variant below", op, scope_name(call->u.tile.scope), op_target_name(c->sm));
    else
        tx_error(diags, TX_E_NO_VARIANT, call->span,
                 "no variant of tile primitive '%s' accepts this call (%s scope, %s)",
                 op, scope_name(call->u.tile.scope), op_target_name(c->sm));
    for (int i = 0; i < n; i++)
        tx_note(diags, (TxSpan){0}, "variant '%s' (priority %d): %s", cand[i]->name,
                cand[i]->priority, why[i]);
    return false;
}
