/* The helpers of the reference's kernel library, tvm.tirx.lang (also
 * tvm.backend.cuda.lang): barriers and pipelines (elab_pipeline.c), warp roles
 * (here), tile schedulers and the shared-memory descriptor (elab_sched.c),
 * the cluster launch control scheduler and its response decode (elab_clc.c).
 * They are bound by an import, as in Python:
 *
 *     from tvm.tirx.lang.pipeline import MBarrier, TMABar, Pipeline, PipelineState
 *     from tvm.tirx.lang.warp_role import WarpRole, WarpgroupRole
 *
 * and expand at parse time into the statements the reference's @T.inline
 * methods print: a helper is an SV_LANG value holding compile-time state (its
 * buffers, depth, phase offset) whose methods emit IR by calling the same
 * builtins the script would (T.ptx.mbarrier..., T.cuda.mbarrier_wait, ...).
 * This file owns the import, the calls of the classes, attribute and method
 * dispatch, the naming on assignment, and the builders the helpers share. */
#include "elab_lang.h"

#include "../arith/arith.h"

typedef ScVal (*LgCtor)(El *E, ScArgs *args, ScLangKind k);

static const struct {
    const char *name, *module;
    ScLangKind kind;
    LgCtor ctor;
} lang_classes[] = {
#define X(name, module, kind, ctor) {name, module, kind, ctor},
#include "lang.def"
#undef X
};

/* The pool classes of tvm.tirx.lang.alloc_pool are the T.* builtins. */
static const char *const pool_classes[] = {"SMEMPool", "TMEMPool"};

/* ---------------------------------------------------------------- import */

/* The module of `from <mod> import`: "pipeline", ... for one module, "" for the
 * package (every helper), NULL when mod is not one of them. */
static const char *lang_module(const char *mod)
{
    static const char *const roots[] = {"tvm.tirx.lang.", "tvm.backend.cuda.lang."};
    if (!strcmp(mod, "tvm.backend.cuda.lang"))
        return "";
    for (size_t i = 0; i < TX_ARRAY_LEN(roots); i++)
        if (!strncmp(mod, roots[i], strlen(roots[i])))
            return mod + strlen(roots[i]);
    return NULL;
}

/* The value a helper module binds to name: "T.SMEMPool" / "lang.<name>", or NULL. */
static const char *lang_name_path(El *E, const char *module, const char *name)
{
    bool pools = !*module || !strcmp(module, "alloc_pool");
    for (size_t i = 0; pools && i < TX_ARRAY_LEN(pool_classes); i++)
        if (!strcmp(name, pool_classes[i]))
            return tx_arena_printf(E->a, "T.%s", name);
    for (size_t i = 0; i < TX_ARRAY_LEN(lang_classes); i++)
        if (!strcmp(name, lang_classes[i].name) &&
            (!*module || !strcmp(module, lang_classes[i].module)))
            return tx_arena_printf(E->a, "lang.%s", name);
    return NULL;
}

static void bind_lang_name(El *E, const char *module, const char *name, const char *as,
                           TxSpan sp)
{
    const char *path = lang_name_path(E, module, name);
    if (!path) {
        el_error(E, TX_E_UNKNOWN_BUILTIN, sp, "tirx has no helper '%s' in tvm.tirx.lang%s%s", name,
                 *module ? "." : "", module);
        return;
    }
    el_bind(E, as, sv_ns(path, sp), BIND_PLAIN, sp);
}

bool el_lang_import(El *E, const Ast *s)
{
    const char *module = lang_module(s->name);
    if (!module)
        return false;
    if (s->op == SC_TK_STAR) {
        for (size_t i = 0; i < TX_ARRAY_LEN(lang_classes); i++)
            if ((!*module || !strcmp(module, lang_classes[i].module)) &&
                lang_classes[i].name[0] != '_')
                bind_lang_name(E, module, lang_classes[i].name, lang_classes[i].name, s->span);
        return true;
    }
    for (int i = 0; i < s->items.n; i++) {
        const Ast *n = s->items.items[i];
        const Ast *as = n->a ? n->a : n;
        bind_lang_name(E, module, n->name, as->name, n->span);
    }
    return true;
}

const char *el_lang_hint(El *E, const char *name)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(lang_classes); i++)
        if (!strcmp(name, lang_classes[i].name))
            return tx_arena_printf(E->a, "; import it: from tvm.tirx.lang.%s import %s",
                                   lang_classes[i].module, name);
    return "";
}

/* ---------------------------------------------------------------- objects */

ScLang *lg_new(El *E, ScLangKind kind)
{
    ScLang *h = TX_NEW(E->a, ScLang);
    h->kind = kind;
    for (size_t i = 0; i < TX_ARRAY_LEN(lang_classes); i++)
        if (lang_classes[i].kind == kind)
            h->name = lang_classes[i].name;
    return h;
}

ScVal lg_val(ScLang *h, TxSpan sp)
{
    ScVal v = {.kind = SV_LANG, .fresh = true, .span = sp};
    v.u.lang = h;
    return v;
}

ScVal el_lang_call(El *E, const char *path, ScArgs *args)
{
    const char *name = path + strlen("lang.");
    for (size_t i = 0; i < TX_ARRAY_LEN(lang_classes); i++)
        if (!strcmp(name, lang_classes[i].name)) {
            args->fname = lang_classes[i].name;
            return lang_classes[i].ctor(E, args, lang_classes[i].kind);
        }
    el_error(E, TX_E_HELPER, args->span, "'%s' is not callable", name);
    return sv_error();
}

const char *el_lang_kind_name(const ScLang *h)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(lang_classes); i++)
        if (lang_classes[i].kind == h->kind)
            return lang_classes[i].name;
    return "a language helper";
}

static bool is_barrier(const ScLang *h)
{
    return h->kind == LANG_MBARRIER || h->kind == LANG_TMABAR || h->kind == LANG_TCGEN05BAR;
}

ScVal el_lang_attr(El *E, ScVal obj, const char *name, TxSpan sp)
{
    ScLang *h = obj.u.lang;
    if (is_barrier(h))
        return lg_barrier_attr(E, obj, name, sp);
    switch (h->kind) {
    case LANG_PIPELINE: return lg_pipeline_attr(E, obj, name, sp);
    case LANG_PIPE_STATE: return lg_state_attr(E, obj, name, sp);
    case LANG_SCHED_2D: case LANG_CLC_WORKER: return lg_sched_attr(E, obj, name, sp);
    case LANG_CLC: return lg_clc_attr(E, obj, name, sp);
    case LANG_SMEM_DESC: return lg_desc_attr(E, obj, name, sp);
    case LANG_GROUP_MAJOR_3D: case LANG_RANK_AWARE: case LANG_INDEXED_TRIPLE:
    case LANG_FA_LINEAR: case LANG_FA_LPT: return lg_linear_sched_attr(E, obj, name, sp);
    default:
        el_error(E, TX_E_UNKNOWN_ATTRIBUTE, sp,
                 "%s has no attribute '%s'; use it as `with %s(...):`", h->name, name,
                 el_lang_kind_name(h));
        return sv_error();
    }
}

ScVal el_lang_method(El *E, ScVal obj, const char *name, ScArgs *args)
{
    ScLang *h = obj.u.lang;
    args->fname = tx_arena_printf(E->a, "%s.%s", h->name, name);
    if (is_barrier(h))
        return lg_barrier_method(E, h, name, args);
    switch (h->kind) {
    case LANG_PIPE_STATE: return lg_state_method(E, h, name, args);
    case LANG_SCHED_2D: return lg_sched_method(E, h, name, args);
    case LANG_CLC_WORKER: return lg_worker_method(E, h, name, args);
    case LANG_CLC: return lg_clc_method(E, h, name, args);
    case LANG_SMEM_DESC: return lg_desc_method(E, h, name, args);
    case LANG_GROUP_MAJOR_3D: case LANG_RANK_AWARE: case LANG_INDEXED_TRIPLE:
    case LANG_FA_LINEAR: case LANG_FA_LPT: return lg_linear_sched_method(E, h, name, args);
    default: TX_UNREACHABLE();
    }
}

/* As the reference names the state of a helper object: `bar = MBarrier(...)`
 * declares bar_buf, `ps = PipelineState(...)` ps_stage and ps_phase, `p =
 * Pipeline(...)` p_full_buf / p_empty_buf for its MBarrier sides. The
 * subclasses TMABar and TCGen05Bar leave their buffer unnamed ("buffer"). */
static void name_lang(El *E, ScLang *h, const char *name)
{
    h->name = name;
    switch (h->kind) {
    case LANG_MBARRIER:
        if (!h->u.bar.remote)
            h->u.bar.buf->u.var.name = tx_arena_printf(E->a, "%s_buf", name);
        return;
    case LANG_TMABAR: case LANG_TCGEN05BAR: return;
    case LANG_PIPELINE:
        name_lang(E, h->u.pipe.full, tx_arena_printf(E->a, "%s_full", name));
        name_lang(E, h->u.pipe.empty, tx_arena_printf(E->a, "%s_empty", name));
        return;
    case LANG_PIPE_STATE:
        h->u.state.stage->u.var.name = tx_arena_printf(E->a, "%s_stage", name);
        h->u.state.phase->u.var.name = tx_arena_printf(E->a, "%s_phase", name);
        return;
    case LANG_SCHED_2D: lg_sched_named(E, h, name); return;
    case LANG_CLC: case LANG_CLC_WORKER: lg_clc_named(E, h, name); return;
    case LANG_GROUP_MAJOR_3D: case LANG_RANK_AWARE: case LANG_INDEXED_TRIPLE:
    case LANG_FA_LINEAR: case LANG_FA_LPT: lg_linear_sched_named(E, h, name); return;
    case LANG_SMEM_DESC:
        h->u.desc.buf->u.var.name = tx_arena_printf(E->a, "%s__buf", name);
        return;
    default: return;
    }
}

void el_lang_named(El *E, ScLang *h, const char *name) { name_lang(E, h, name); }

/* ---------------------------------------------------------------- builders */

void lg_pos(LgCall *k, ScVal v) { k->pos[k->npos++] = v; }

void lg_kw(LgCall *k, const char *name, ScVal v)
{
    k->names[k->nkw] = name, k->spans[k->nkw] = v.span, k->kw[k->nkw++] = v;
}

ScArgs lg_args(LgCall *k, const ScArgs *at, const char *fname)
{
    return (ScArgs){.call = at->call, .span = at->span, .fname = fname, .npos = k->npos,
                    .pos = k->pos, .nkw = k->nkw, .kw = k->kw, .kwnames = k->names,
                    .kwspans = k->spans};
}

ScVal lg_call(El *E, const char *path, LgCall *k, const ScArgs *at)
{
    ScArgs a = lg_args(k, at, tx_arena_printf(E->a, "T.%s", path));
    ScBuiltinFn f = el_builtin(path);
    return f ? f(E, &a) : el_call_path(E, path, &a);
}

ScVal lg_method(El *E, ScLang *h, const char *name, LgCall *k, const ScArgs *at)
{
    ScArgs a = lg_args(k, at, name);
    ScVal v = lg_val(h, at->span);
    v.fresh = false;
    return el_lang_method(E, v, name, &a);
}

ScVal lg_seq1(El *E, ScValKind kind, ScVal item, TxSpan sp)
{
    ScVal v = {.kind = kind, .span = sp};
    v.u.seq.items = TX_NEW(E->a, ScVal);
    v.u.seq.items[0] = item, v.u.seq.n = 1;
    return v;
}

ScVal lg_addr0(El *E, IrExpr *buf, const ScArgs *at)
{
    LgCall k = {0};
    lg_pos(&k, sv_expr(el_load(E, buf, lg_index0(E, at->span), 1, at->span), at->span));
    return lg_call(E, "address_of", &k, at);
}

bool lg_stmt(El *E, const char *path, LgCall *k, const ScArgs *at)
{
    ScVal r = lg_call(E, path, k, at);
    IrExpr *e = r.kind == SV_ERROR ? NULL : el_prim(E, &r, "a call");
    if (!e)
        return false;
    IrStmt *s = ir_stmt(E->a, IR_S_EVAL, at->span);
    s->u.eval = e;
    el_emit(E, s);
    return true;
}

IrExpr **lg_index0(El *E, TxSpan sp)
{
    IrExpr **zero = TX_NEW_ARRAY(E->a, IrExpr *, 1);
    zero[0] = ir_int(E->a, IR_INT32, 0, sp);
    return zero;
}

bool lg_store(El *E, IrExpr *scalar, ScVal v, TxSpan sp)
{
    return el_store(E, scalar, lg_index0(E, sp), 1, &v, NULL, sp);
}

ScVal lg_scalar(IrExpr *scalar, TxSpan sp)
{
    ScVal v = {.kind = SV_BUFFER, .decay = true, .span = sp};
    v.u.e = scalar;
    return v;
}

ScVal lg_select(El *E, ScVal cond, ScVal a, ScVal b, TxSpan sp)
{
    LgCall k = {0};
    lg_pos(&k, cond);
    lg_pos(&k, a);
    lg_pos(&k, b);
    ScArgs at = {.span = sp};
    return lg_call(E, "Select", &k, &at);
}

ScVal lg_load(El *E, IrExpr *scalar, TxSpan sp)
{
    ScVal s = lg_scalar(scalar, sp);
    IrExpr *e = el_prim(E, &s, "a scheduler value");
    return e ? sv_expr(e, sp) : sv_error();
}

ScVal lg_let(El *E, const char *name, ScVal v, TxSpan sp)
{
    IrExpr *e = v.kind == SV_ERROR ? NULL : el_prim(E, &v, "a scheduler value");
    if (!e)
        return sv_error();
    IrExpr *var = ir_var(E->a, name, el_prim_type(E, e->dtype), sp);
    IrStmt *s = ir_stmt(E->a, IR_S_BIND, sp);
    s->u.bind.var = var, s->u.bind.value = e;
    el_emit(E, s);
    return sv_expr(var, sp);
}

IrExpr *lg_local_scalar(El *E, const char *dtype, const ScArgs *at)
{
    LgCall k = {0};
    lg_pos(&k, sv_str(E, dtype, at->span));
    ScVal v = lg_call(E, "local_scalar", &k, at);
    return v.kind == SV_BUFFER ? v.u.e : NULL;
}

ScVal lg_u32(El *E, ScVal v, TxSpan sp)
{
    if (v.kind == SV_INT || v.kind == SV_BOOL) {
        IrExpr *c = el_prim_as(E, &v, IR_UINT32, "a count");
        return c ? sv_expr(c, sp) : sv_error();
    }
    IrExpr *e = el_prim(E, &v, "a count");
    return e ? sv_expr(ar_cast(E->a, IR_UINT32, e, sp), sp) : sv_error();
}

bool lg_if(El *E, ScVal cond, LgEmitFn emit, void *ctx, bool has_else, TxSpan sp)
{
    bool truth;
    if (cond.kind == SV_ERROR)
        return false;
    if (sv_truth(&cond, &truth))
        return truth ? emit(E, ctx, 0) : !has_else || emit(E, ctx, 1);
    IrExpr *c = el_prim(E, &cond, "a condition");
    if (!c)
        return false;
    ScStmtList outer = el_block_begin(E);
    bool ok = emit(E, ctx, 0);
    IrStmt *then_s = el_block_end(E, outer, sp), *else_s = NULL;
    if (ok && has_else) {
        outer = el_block_begin(E);
        ok = emit(E, ctx, 1);
        else_s = el_block_end(E, outer, sp);
    }
    IrStmt *s = ir_stmt(E->a, IR_S_IF, sp);
    s->u.ifs.cond = c, s->u.ifs.then_s = then_s, s->u.ifs.else_s = else_s;
    el_emit(E, s);
    return ok;
}

bool lg_while(El *E, ScVal cond, LgEmitFn emit, void *ctx, TxSpan sp)
{
    IrExpr *c = cond.kind == SV_ERROR ? NULL : el_prim(E, &cond, "a condition");
    if (!c)
        return false;
    ScStmtList outer = el_block_begin(E);
    bool ok = emit(E, ctx, 0);
    IrStmt *w = ir_stmt(E->a, IR_S_WHILE, sp);
    w->u.whl.cond = c, w->u.whl.body = el_block_end(E, outer, sp);
    el_emit(E, w);
    return ok;
}

bool lg_count(El *E, const ScVal *v, int64_t dflt, int64_t *out, const char *what,
              const ScArgs *args)
{
    if (!lg_int(E, v, dflt, out, what))
        return false;
    if (*out < 1 || *out > INT32_MAX) {
        el_error(E, TX_E_HELPER, sv_given(v) ? v->span : args->span,
                 *out < 1 ? "%s: %s must be at least 1, not %lld"
                          : "%s: %s must be at most 2147483647 (tile indices are int32), not %lld",
                 args->fname, what, (long long)*out);
        return false;
    }
    return true;
}

bool lg_work_fits(El *E, ScVal total, const ScArgs *args)
{
    if (total.kind != SV_INT || total.u.i <= INT32_MAX)
        return total.kind != SV_ERROR;
    el_error(E, TX_E_HELPER, args->span, "%s: %lld tiles do not fit the int32 tile index",
             args->fname, (long long)total.u.i);
    return false;
}

bool lg_int(El *E, const ScVal *v, int64_t dflt, int64_t *out, const char *what)
{
    *out = dflt;
    return !sv_given(v) || v->kind == SV_NONE || el_int_const(E, v, out, what);
}

/* ---------------------------------------------------------------- warp roles */

/* The range (start, stop) of WarpgroupRole: start <= id and id < stop. */
static IrExpr *role_range(El *E, ScVal id, const ScVal *range, TxSpan sp)
{
    if (range->u.seq.n != 2) {
        el_error(E, TX_E_HELPER, range->span, "a warpgroup range is (start, stop)");
        return NULL;
    }
    ScVal lo = el_compare(E, SC_TK_LESSEQUAL, range->u.seq.items[0], id, sp);
    ScVal hi = el_compare(E, SC_TK_LESS, id, range->u.seq.items[1], sp);
    IrExpr *a = lo.kind == SV_ERROR ? NULL : el_prim(E, &lo, "a role condition");
    IrExpr *b = hi.kind == SV_ERROR ? NULL : el_prim(E, &hi, "a role condition");
    return a && b ? ir_binary(E->a, IR_E_AND, a, b, sp) : NULL;
}

/* WarpRole(warp_id_var, warp_id_val, regs=None, increase=False);
 * WarpgroupRole(wg_id_var, wg_id_val, regs=None, increase=False), wg_id_val an
 * index or a (start, stop) range. */
ScVal lg_new_role(El *E, ScArgs *args, ScLangKind k)
{
    ScBound b;
    if (!el_bind_args(E, args, "id_var, id_val, regs=, increase=", &b))
        return sv_error();
    ScLang *h = lg_new(E, k);
    const ScVal *val = &b.v[1];
    bool range = k == LANG_WG_ROLE && (val->kind == SV_TUPLE || val->kind == SV_LIST);
    if (!el_prim(E, &b.v[0], "the warp id") || !lg_int(E, &b.v[2], 0, &h->u.role.regs, "regs"))
        return sv_error();
    if (sv_given(&b.v[2]) && b.v[2].kind != SV_NONE &&
        (h->u.role.regs < 24 || h->u.role.regs > 256 || h->u.role.regs % 8)) {
        el_error(E, TX_E_HELPER, b.v[2].span,
                 "%s: regs is a multiple of 8 from 24 to 256 (setmaxnreg), "
                 "not %lld", args->fname, (long long)h->u.role.regs);
        return sv_error();
    }
    if (sv_given(&b.v[3]) && !sv_truth(&b.v[3], &h->u.role.increase)) {
        el_error(E, TX_E_HELPER, b.v[3].span, "%s: increase takes True or False", args->fname);
        return sv_error();
    }
    if (range) {
        h->u.role.cond = role_range(E, b.v[0], val, args->span);
    } else {
        ScVal c = el_compare(E, SC_TK_EQEQUAL, b.v[0], *val, args->span);
        h->u.role.cond = c.kind == SV_ERROR ? NULL : el_prim(E, &c, "a role condition");
    }
    return h->u.role.cond ? lg_val(h, args->span) : sv_error();
}

ScFrame *el_lang_frame(El *E, const ScVal *v)
{
    ScLang *h = v->u.lang;
    if (h->kind != LANG_WARP_ROLE && h->kind != LANG_WG_ROLE) {
        el_error(E, TX_E_HELPER, v->span, "'with' takes a WarpRole or WarpgroupRole, not %s",
                 el_lang_kind_name(h));
        return NULL;
    }
    ScFrame *f = TX_NEW(E->a, ScFrame);
    f->stmt = ir_stmt(E->a, IR_S_IF, v->span);
    f->stmt->u.ifs.cond = h->u.role.cond;
    f->body = &f->stmt->u.ifs.then_s;
    if (!h->u.role.regs)
        return f;
    ScArgs at = {.span = v->span};
    LgCall k = {0};
    lg_pos(&k, sv_int(h->u.role.regs, v->span));
    ScStmtList outer = el_block_begin(E);
    bool ok = lg_stmt(E, h->u.role.increase ? "ptx[setmaxnreg.inc.sync.aligned.u32"
                                            : "ptx[setmaxnreg.dec.sync.aligned.u32", &k, &at);
    f->prologue = el_block_end(E, outer, v->span);
    return ok ? f : NULL;
}
