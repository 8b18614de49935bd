/* The T.ptx dialect in the elaborator, over the instruction table of
 * src/ir/ptx.h. Authoring spellings `T.ptx.ld.global_.acquire.gpu.b32(...)`
 * and `T.ptx["ld.global.acquire.gpu.b32"](...)` (with pred=, preserve_dst=,
 * T.ptx.pred(x) and T.ptx.SINK), and the printed form
 * `T.ptx.ld(operands..., [pred,] "slot", ..., "marker")`, resolve to one
 * entry; operands are coerced as the reference does (shared-space addresses
 * through T.cuda.cvta_generic_to_shared, uint64 addresses reinterpreted as
 * handles, literals typed by their operand) and the marker records what the
 * argument list cannot: "pred", "keep", "p<i>" (.pred register operand i) and
 * "s<i>" (lane i was T.ptx.SINK). */
#include <stdio.h>
#include <string.h>

#include "../ir/ptx.h"
#include "elab.h"
#include "../arith/arith.h"

#define MAX_PTX_ARGS 320
#define MAX_PTX_TOKENS 24
#define MAX_PTX_FLAGS 32 /* marker flags; each "s<i>" adds an operand */

typedef struct PtxOperandVal {
    ScVal v;
    bool sink, pred_tag;
} PtxOperandVal;

typedef struct PtxCall {
    PtxOperandVal *ops; /* room for the operands given and one per marker flag */
    int nops;
    ScVal pred; /* kind SV_COUNT when absent */
    bool keep;
} PtxCall;

static PtxCall *new_call(El *E)
{
    PtxCall *c = TX_NEW(E->a, PtxCall);
    c->pred.kind = SV_COUNT;
    return c;
}

/* T.ptx.pred(x): tags an operand as a .pred register. */
ScVal bi_ptx_pred(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "value", &b))
        return sv_error();
    ScVal r = {.kind = SV_PTXPRED, .span = args->span};
    r.u.tagged = TX_NEW(E->a, ScVal);
    *r.u.tagged = b.v[0];
    return r;
}

static bool is_sink(const ScVal *v)
{
    return v->kind == SV_NS && !strcmp(v->u.path, "T.ptx.SINK");
}

static IrPtxArg arg_info(El *E, const PtxOperandVal *o)
{
    IrPtxArg a = {IR_VOID, o->pred_tag};
    if (o->sink || o->v.kind == SV_INT || o->v.kind == SV_FLOAT || o->v.kind == SV_BOOL)
        return a;
    if (o->v.kind == SV_EXPR || (o->v.kind == SV_BUFFER && o->v.decay)) {
        IrExpr *e = el_prim(E, &o->v, "a PTX operand");
        if (e)
            a.dtype = e->dtype;
        a.pred |= e && e->dtype.code == IR_DT_BOOL;
    }
    return a;
}

/* What the resolver learns of each operand of c. */
static IrPtxArg *operand_info(El *E, const PtxCall *c)
{
    IrPtxArg *pa = TX_NEW_ARRAY(E->a, IrPtxArg, c->nops ? c->nops : 1);
    for (int i = 0; i < c->nops; i++)
        pa[i] = arg_info(E, &c->ops[i]);
    return pa;
}

/* The default dtype of a register operand typed by a PTX type token. */
static IrDType token_dtype(const char *t)
{
    static const struct {
        const char *tok;
        IrDType dt;
    } map[] = {
        {"s8", {IR_DT_INT, 8, 1}},    {"s16", {IR_DT_INT, 16, 1}}, {"s32", {IR_DT_INT, 32, 1}},
        {"s64", {IR_DT_INT, 64, 1}},  {"u8", {IR_DT_UINT, 8, 1}},  {"b8", {IR_DT_UINT, 8, 1}},
        {"u16", {IR_DT_UINT, 16, 1}}, {"b16", {IR_DT_UINT, 16, 1}}, {"u64", {IR_DT_UINT, 64, 1}},
        {"b64", {IR_DT_UINT, 64, 1}}, {"f16", {IR_DT_FLOAT, 16, 1}}, {"f32", {IR_DT_FLOAT, 32, 1}},
        {"f64", {IR_DT_FLOAT, 64, 1}}, {"bf16", {IR_DT_BFLOAT, 16, 1}},
    };
    for (size_t i = 0; i < TX_ARRAY_LEN(map); i++)
        if (t && !strcmp(t, map[i].tok))
            return map[i].dt;
    return IR_UINT32;
}

/* An int32 constant (`T.int32(512)`) prints as a bare literal, which reads
 * back typed by its operand: so it is typed by its operand here too, as the
 * literal. */
static ScVal int32_const_as_literal(const ScVal *v)
{
    if (v->kind == SV_EXPR && v->u.e->kind == IR_E_INT && ir_dtype_eq(v->u.e->dtype, IR_INT32))
        return sv_int(v->u.e->u.int_val, v->span);
    return *v;
}

static IrExpr *coerce_pred_reg(El *E, const PtxOperandVal *o)
{
    ScVal lit = int32_const_as_literal(&o->v);
    const ScVal *v = &lit;
    if (v->kind == SV_BOOL || v->kind == SV_INT)
        return el_prim_as(E, v, IR_UINT32, "a .pred operand");
    return el_prim(E, v, "a .pred operand");
}

static IrExpr *coerce_address(El *E, const ScVal *v, const char *space)
{
    IrExpr *e = el_prim(E, v, "a PTX address");
    if (!e)
        return NULL;
    if (space && !strncmp(space, "shared", 6)) {
        if (e->dtype.code == IR_DT_HANDLE)
            return el_call_node(E, IR_OP_CUDA_CVTA_TO_SHARED, IR_UINT32, &e, 1, v->span);
        return e;
    }
    if (space && !strcmp(space, "tmem"))
        return e;
    if (ir_dtype_eq(e->dtype, IR_UINT64)) {
        IrExpr *r = el_call_node(E, IR_OP_REINTERPRET, IR_HANDLE, &e, 1, v->span);
        return r;
    }
    return e;
}

/* A register or pointer operand, or the predicate: any PrimExpr but a string,
 * which the printed form would read back as a slot token. */
static IrExpr *operand_prim(El *E, const ScVal *v, const char *what)
{
    IrExpr *e = el_prim(E, v, what);
    if (e && e->kind == IR_E_STR) {
        el_error(E, TX_E_TYPE, v->span, "%s cannot be a string", what);
        return NULL;
    }
    return e;
}

static IrExpr *coerce_operand(El *E, const IrPtxOperand *op, const PtxOperandVal *o)
{
    ScVal lit = int32_const_as_literal(&o->v);
    const ScVal *v = &lit;
    switch (op->kind) {
    case IR_PTX_OPND_IMM: {
        int64_t x;
        if (!el_int_const(E, v, &x, "a PTX immediate"))
            return NULL;
        return ir_int(E->a, IR_INT32, x, v->span);
    }
    case IR_PTX_OPND_ADDR: return coerce_address(E, v, op->space);
    case IR_PTX_OPND_PTR: return operand_prim(E, v, "a PTX pointer operand");
    default:
        if (op->type && !strcmp(op->type, "pred") && op->rw == 'r')
            return coerce_pred_reg(E, o);
        if (v->kind == SV_INT || v->kind == SV_FLOAT || v->kind == SV_BOOL)
            return el_prim_as(E, v, token_dtype(op->type), "a PTX operand");
        return operand_prim(E, v, "a PTX operand");
    }
}

static void add_flag(char *buf, size_t n, const char *flag)
{
    size_t len = strlen(buf);
    snprintf(buf + len, n - len, "%s%s", len ? "," : "", flag);
}

/* Build the call: coerced operands (sunk lanes dropped), the predicate, the
 * slot tokens and the marker. */
static ScVal emit_ptx(El *E, const IrPtxResolved *res, PtxCall *c, TxSpan sp)
{
    int nops = ir_ptx_operands(res, NULL, 0);
    IrPtxOperand *ops = TX_NEW_ARRAY(E->a, IrPtxOperand, nops ? nops : 1);
    ir_ptx_operands(res, ops, nops);
    int expected = ir_ptx_noperands(res);
    if (expected != c->nops) {
        el_error(E, TX_E_PTX_OPERANDS, sp,
                 "PTX instruction '%s' expects %d operand%s but %d %s given",
                 ir_ptx_key(res->entry), expected, expected == 1 ? "" : "s", c->nops,
                 c->nops == 1 ? "was" : "were");
        return sv_error();
    }
    IrExpr **args = TX_NEW_ARRAY(E->a, IrExpr *, c->nops + 1);
    int nargs = 0;
    char marker[256] = "";
    if (sv_given(&c->pred))
        add_flag(marker, sizeof marker, "pred");
    if (c->keep)
        add_flag(marker, sizeof marker, "keep");
    ir_ptx_pred_marker(res, marker, sizeof marker);
    for (int k = 0; k < nops; k++) {
        const IrPtxOperand *op = &ops[k];
        for (int l = 0; l < op->lanes; l++) {
            int i = op->first_arg + l;
            if (i < 0 || i >= c->nops || c->ops[i].sink)
                continue;
            if (!(args[nargs++] = coerce_operand(E, op, &c->ops[i])))
                return sv_error();
        }
    }
    for (int i = 0; i < c->nops; i++)
        if (c->ops[i].sink) {
            char f[16];
            snprintf(f, sizeof f, "s%d", i);
            add_flag(marker, sizeof marker, f);
        }
    if (sv_given(&c->pred)) {
        IrExpr *p = c->pred.kind == SV_BOOL ? ir_int(E->a, IR_BOOL, c->pred.u.b, c->pred.span)
                                            : operand_prim(E, &c->pred, "pred");
        if (!p)
            return sv_error();
        args[nargs++] = p;
    }
    IrExpr *call = el_call_node(E, IR_OP_PTX, IR_VOID, args, nargs, sp);
    call->u.call.ptx_entry = res->entry;
    call->u.call.nptx_slots = res->nslots;
    call->u.call.ptx_slots = TX_NEW_ARRAY(E->a, const char *, res->nslots ? res->nslots : 1);
    for (int i = 0; i < res->nslots; i++)
        call->u.call.ptx_slots[i] = res->slots[i] ? res->slots[i] : "";
    call->u.call.ptx_marker = tx_arena_strdup(E->a, marker);
    return sv_expr(call, sp);
}

/* ---------------------------------------------------------------- authoring spelling */

static int split_tokens(El *E, const char *s, char sep, const char **out, int max)
{
    int n = 0;
    while (*s && n < max) {
        const char *q = strchr(s, sep);
        size_t len = q ? (size_t)(q - s) : strlen(s);
        out[n++] = tx_arena_strndup(E->a, s, len);
        if (!q)
            break;
        s = q + 1;
    }
    return n;
}

/* The span of token i of an attribute chain `T.ptx.a.b.c` (the callee). */
static TxSpan token_span(const Ast *callee, int ntok, int i, bool family)
{
    const Ast *x = callee;
    for (int k = ntok - 1; k > i && x && x->kind == A_ATTR; k--)
        x = x->a;
    if (!x || x->kind != A_ATTR)
        return callee->span;
    return family ? x->span : x->name_span;
}

/* Report a resolution error at the piece it is about: the family (as far as
 * `T.ptx.family`), a modifier token, the bracketed string, or the whole call. */
static void report(El *E, const ScArgs *args, const char *err, int bad, int ntok, bool bracket)
{
    const Ast *callee = args->call ? args->call->a : NULL;
    TxSpan sp = args->span;
    if (callee && bracket && callee->kind == A_SUBSCRIPT)
        sp = bad >= 0 ? callee->b->span : args->span;
    else if (callee && bad >= 0)
        sp = token_span(callee, ntok, bad, bad == 0);
    /* The piece at 0 is the instruction's name: unknown; another piece is a modifier. */
    el_error(E, bad == 0 ? TX_E_UNKNOWN_PTX : TX_E_PTX_OPERANDS, sp, "%s", err);
}

static bool collect_operands(El *E, ScArgs *args, int npos, PtxCall *c)
{
    if (npos > MAX_PTX_ARGS) {
        el_error(E, TX_E_PTX_OPERANDS, args->span, "too many PTX operands");
        return false;
    }
    c->nops = npos;
    c->ops = TX_NEW_ARRAY(E->a, PtxOperandVal, npos + MAX_PTX_FLAGS);
    for (int i = 0; i < npos; i++) {
        ScVal v = args->pos[i];
        c->ops[i] = (PtxOperandVal){v, is_sink(&v), v.kind == SV_PTXPRED};
        if (v.kind == SV_PTXPRED)
            c->ops[i].v = *v.u.tagged;
    }
    return true;
}

static ScVal resolve_authoring(El *E, const char **tok, int ntok, ScArgs *args, bool bracket)
{
    PtxCall *c = new_call(E);
    ScBound b;
    if (!el_bind_args(E, args, "*operands, pred=, preserve_dst=", &b) ||
        !collect_operands(E, args, args->npos, c))
        return sv_error();
    if (sv_given(&b.v[0]) && b.v[0].kind != SV_NONE)
        c->pred = b.v[0];
    if (sv_given(&b.v[1]) && !sv_truth(&b.v[1], &c->keep)) {
        el_error(E, TX_E_PTX_OPERANDS, b.v[1].span, "preserve_dst= takes True or False");
        return sv_error();
    }
    IrPtxArg *pa = operand_info(E, c);
    IrPtxResolved res;
    char err[512];
    int bad = -1;
    if (!ir_ptx_resolve_args(tok, ntok, pa, c->nops, &res, &bad, err, sizeof err)) {
        report(E, args, err, bad, ntok, bracket);
        return sv_error();
    }
    return emit_ptx(E, &res, c, args->span);
}

/* ---------------------------------------------------------------- printed form */

static bool parse_marker(El *E, const char *marker, PtxCall *c, ScArgs *args)
{
    const char *flags[MAX_PTX_FLAGS];
    int nf = *marker ? split_tokens(E, marker, ',', flags, MAX_PTX_FLAGS) : 0;
    bool pred = false;
    for (int i = 0; i < nf; i++) {
        if (!strcmp(flags[i], "pred"))
            pred = true;
        else if (!strcmp(flags[i], "keep"))
            c->keep = true;
    }
    if (pred) {
        if (c->nops == 0) {
            el_error(E, TX_E_PTX_OPERANDS, args->span,
                     "the marker says \"pred\" but no predicate operand is given");
            return false;
        }
        c->pred = c->ops[--c->nops].v;
    }
    for (int i = 0; i < nf; i++) {
        int idx;
        if (flags[i][0] == 's' && sscanf(flags[i] + 1, "%d", &idx) == 1) {
            if (idx < 0 || idx > c->nops || c->nops >= MAX_PTX_ARGS) {
                el_error(E, TX_E_PTX_OPERANDS, args->span, "invalid PTX marker flag '%s'",
                         flags[i]);
                return false;
            }
            memmove(&c->ops[idx + 1], &c->ops[idx], sizeof(c->ops[0]) * (size_t)(c->nops - idx));
            c->ops[idx] = (PtxOperandVal){.sink = true};
            c->nops++;
        }
    }
    for (int i = 0; i < nf; i++) {
        int idx;
        if (flags[i][0] == 'p' && strcmp(flags[i], "pred") &&
            sscanf(flags[i] + 1, "%d", &idx) == 1) {
            if (idx < 0 || idx >= c->nops) {
                el_error(E, TX_E_PTX_OPERANDS, args->span, "invalid PTX marker flag '%s'",
                         flags[i]);
                return false;
            }
            c->ops[idx].pred_tag = true;
        }
    }
    return true;
}

static ScVal resolve_printed(El *E, const char *family, ScArgs *args)
{
    int split = args->npos;
    while (split > 0 && args->pos[split - 1].kind == SV_STR)
        split--;
    int nstr = args->npos - split;
    if (args->nkw) {
        el_error(E, TX_E_ARGUMENTS, args->kwspans[0],
                 "the printed T.ptx form takes no keyword arguments");
        return sv_error();
    }
    PtxCall *c = new_call(E);
    if (!collect_operands(E, args, split, c) ||
        !parse_marker(E, args->pos[args->npos - 1].u.str.s, c, args))
        return sv_error();
    const char **slots = TX_NEW_ARRAY(E->a, const char *, nstr);
    for (int i = 0; i < nstr - 1; i++)
        slots[i] = args->pos[split + i].u.str.s;
    IrPtxArg *pa = operand_info(E, c);
    char err[512];
    int entry = ir_ptx_resolve_printed_args(family, slots, nstr - 1, pa, c->nops, err, sizeof err);
    if (entry < 0) {
        el_error(E, TX_E_PTX_OPERANDS, args->span, "%s", err);
        return sv_error();
    }
    IrPtxResolved res = {.entry = entry, .nslots = nstr - 1};
    if (res.nslots > IR_PTX_MAX_SLOTS) {
        el_error(E, TX_E_PTX_OPERANDS, args->span, "too many PTX modifier strings");
        return sv_error();
    }
    for (int i = 0; i < res.nslots; i++)
        res.slots[i] = slots[i];
    return emit_ptx(E, &res, c, args->span);
}

ScVal el_call_ptx(El *E, const char *path, ScArgs *args)
{
    const char *tok[MAX_PTX_TOKENS];
    int ntok;
    bool bracket = !strncmp(path, "ptx[", 4);
    if (bracket)
        ntok = split_tokens(E, path + 4, '.', tok, MAX_PTX_TOKENS);
    else
        ntok = split_tokens(E, path + 4, '.', tok, MAX_PTX_TOKENS);
    if (ntok == 0) {
        el_error(E, TX_E_PTX_OPERANDS, args->span, "a PTX instruction needs a name");
        return sv_error();
    }
    bool printed = !bracket && ntok == 1 && args->npos > 0 &&
                   args->pos[args->npos - 1].kind == SV_STR;
    if (printed)
        return resolve_printed(E, tok[0], args);
    return resolve_authoring(E, tok, ntok, args, bracket);
}
