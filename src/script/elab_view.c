/* Buffer views in the elaborator: the methods A.view, A.permute, A.local,
 * A.rearrange and torch's A.unflatten / A.flatten / A.select / A.narrow, and
 * the indexers A.sub[...], A.tile(...)[...] and A.chunk(...)[...]. Arguments
 * are evaluated here; the geometry is src/layout/view.c's, computed with the
 * front end's arithmetic (TVM's operators, so views print as the
 * reference's). Each view is declared as a DeclBuffer over the data of the
 * buffer before it (a TMEM view at its allocated_addr), one per step of a
 * chain, as the reference declares them. Also the layout checks of declared
 * buffers: well-formed layouts, admitted shapes, swizzle-aligned offsets. */
#include <string.h>

#include "../layout/view.h"
#include "elab.h"
#include "../arith/arith.h"

/* ---------------------------------------------------------------- context */
typedef struct ViewEnv {
    El *E;
    LyCtx c;
    LyViewCtx v;
    TxSpan sp;
} ViewEnv;

static IrExpr *view_arith(void *user, IrExprKind k, IrExpr *x, IrExpr *y)
{
    ViewEnv *env = user;
    const char *err = NULL;
    IrExpr *r = k == IR_E_SUB ? ar_simplify_sub(env->E->a, x, y, env->sp, &err)
                              : ar_binary(env->E->a, k, x, y, env->sp, &err);
    if (!r)
        env->c.err = err;
    return r;
}

static void env_init(ViewEnv *env, El *E, TxSpan sp)
{
    env->E = E, env->sp = sp;
    env->c = ly_ctx(E->a);
    env->v = (LyViewCtx){&env->c, view_arith, env};
}

static void view_error(ViewEnv *env, TxSpan sp, const char *what)
{
    el_error(env->E, TX_E_VIEW, sp, "%s: %s", what, env->c.err ? env->c.err : "invalid view");
}

/* ---------------------------------------------------------------- declaring */
static IrExpr *declare(El *E, IrExpr *parent, IrType *t, TxSpan sp)
{
    IrExpr *child = ir_var(E->a, "buffer", t, sp);
    bool tmem = !strcmp(t->scope, "tmem") && t->buf->naddr;
    el_check_buffer_layout(E, child, false, sp);
    IrStmt *s = ir_stmt(E->a, IR_S_DECL, sp);
    s->u.decl.buffer = child;
    s->u.decl.data = tmem ? NULL : el_call_node(E, IR_OP_BUFFER_DATA, IR_HANDLE, &parent, 1, sp);
    el_emit(E, s);
    return child;
}

static ScVal view_result(IrExpr *buf, TxSpan sp)
{
    ScVal v = {.kind = SV_BUFFER, .fresh = true, .span = sp};
    v.u.e = buf;
    return v;
}

static ScVal one_view(ViewEnv *env, IrExpr *parent, IrType *t, const char *what)
{
    if (!t) {
        view_error(env, env->sp, what);
        return sv_error();
    }
    return view_result(declare(env->E, parent, t, env->sp), env->sp);
}

/* Declare every step of a chain; the last one is the view. An empty chain
 * (A.sub[:]) is the buffer itself, as in the reference. */
static ScVal chain_views(ViewEnv *env, IrExpr *parent, const LyViewChain *ch)
{
    IrExpr *cur = parent;
    for (int i = 0; i < ch->n; i++)
        cur = declare(env->E, cur, ch->steps[i], env->sp);
    ScVal v = view_result(cur, env->sp);
    v.fresh = ch->n > 0;
    return v;
}

/* ---------------------------------------------------------------- arguments */
/* Positional values, a single tuple/list unpacked: view((8, 8)) == view(8, 8). */
static const ScVal *unpacked(const ScVal *vals, int *n)
{
    if (*n == 1 && (vals[0].kind == SV_TUPLE || vals[0].kind == SV_LIST)) {
        *n = vals[0].u.seq.n;
        return vals[0].u.seq.items;
    }
    return vals;
}

static IrExpr **dims_of(El *E, const ScVal *vals, int n, const char *what)
{
    IrExpr **d = TX_NEW_ARRAY(E->a, IrExpr *, n + 1);
    for (int i = 0; i < n; i++) {
        d[i] = el_prim(E, &vals[i], what);
        if (!d[i])
            return NULL;
        if (!ir_dtype_is_int(d[i]->dtype)) {
            el_error(E, TX_E_VIEW, vals[i].span, "%s must be an integer", what);
            return NULL;
        }
    }
    return d;
}

static IrLayout *layout_arg(El *E, const ScVal *v, bool *given)
{
    *given = sv_given(v) && v->kind != SV_NONE;
    return *given ? el_layout_of(E, v, "layout") : NULL;
}

static bool int_arg(El *E, const ScVal *v, int64_t dflt, int64_t *out, const char *what)
{
    *out = dflt;
    return !sv_given(v) || el_int_const(E, v, out, what);
}

/* ---------------------------------------------------------------- methods */
/* A.view(*shape, layout=None) / A.view("dtype") */
static ScVal method_view(ViewEnv *env, IrExpr *buf, ScArgs *args)
{
    El *E = env->E;
    ScBound b;
    if (!el_bind_args(E, args, "*shape, layout=", &b))
        return sv_error();
    IrType *t;
    if (b.nrest == 1 && (b.rest[0].kind == SV_STR || b.rest[0].kind == SV_DTYPE) &&
        !sv_given(&b.v[0])) {
        IrDType dt;
        if (!el_dtype_of(E, &b.rest[0], &dt, "the view dtype"))
            return sv_error();
        t = ly_view_dtype(&env->v, buf->u.var.type, dt);
    } else {
        int n = b.nrest;
        const ScVal *vals = unpacked(b.rest, &n);
        bool given;
        IrExpr **shape = dims_of(E, vals, n, "a view dimension");
        IrLayout *lay = shape ? layout_arg(E, &b.v[0], &given) : NULL;
        if (!shape || (given && !lay))
            return sv_error();
        t = ly_view_reshape(&env->v, buf->u.var.type, shape, n, lay);
    }
    return one_view(env, buf, t, args->fname);
}

/* A.permute(*dims) */
static ScVal method_permute(ViewEnv *env, IrExpr *buf, ScArgs *args)
{
    El *E = env->E;
    ScBound b;
    if (!el_bind_args(E, args, "*dims", &b))
        return sv_error();
    int n = b.nrest;
    const ScVal *vals = unpacked(b.rest, &n);
    int64_t *dims = TX_NEW_ARRAY(E->a, int64_t, n + 1);
    for (int i = 0; i < n; i++)
        if (!el_int_const(E, &vals[i], &dims[i], "a dimension"))
            return sv_error();
    return one_view(env, buf, ly_view_permute(&env->v, buf->u.var.type, dims, n), args->fname);
}

/* A.local(*shape, layout=None) */
static ScVal method_local(ViewEnv *env, IrExpr *buf, ScArgs *args)
{
    El *E = env->E;
    ScBound b;
    if (!el_bind_args(E, args, "*shape, layout=", &b))
        return sv_error();
    int n = b.nrest;
    const ScVal *vals = unpacked(b.rest, &n);
    bool given;
    IrExpr **shape = dims_of(E, vals, n, "a local dimension");
    IrLayout *lay = shape ? layout_arg(E, &b.v[0], &given) : NULL;
    if (!shape || (given && !lay))
        return sv_error();
    return one_view(env, buf, ly_view_local(&env->v, buf->u.var.type, shape, n, lay),
                    args->fname);
}

/* A.rearrange("lhs -> rhs", /, **sizes); `pattern=` is the pattern only when
 * no positional one is given (otherwise an axis named pattern). */
static ScVal method_rearrange(ViewEnv *env, IrExpr *buf, ScArgs *args)
{
    El *E = env->E;
    const char *pattern = NULL;
    int pat_kw = -1;
    if (args->npos > 1) {
        el_error(E, TX_E_VIEW, args->pos[1].span,
                 "%s takes one pattern; give axis sizes as keywords",
                 args->fname);
        return sv_error();
    }
    if (args->npos == 1) {
        pattern = el_str_const(E, &args->pos[0], "the pattern");
    } else {
        for (int i = 0; i < args->nkw; i++)
            if (!strcmp(args->kwnames[i], "pattern"))
                pat_kw = i;
        if (pat_kw < 0) {
            el_error(E, TX_E_VIEW, args->span, "%s needs a pattern such as \"(a b) c -> a c b\"",
                     args->fname);
            return sv_error();
        }
        pattern = el_str_const(E, &args->kw[pat_kw], "the pattern");
    }
    if (!pattern)
        return sv_error();
    const char **names = TX_NEW_ARRAY(E->a, const char *, args->nkw + 1);
    int64_t *sizes = TX_NEW_ARRAY(E->a, int64_t, args->nkw + 1);
    int n = 0;
    for (int i = 0; i < args->nkw; i++) {
        if (i == pat_kw)
            continue;
        names[n] = args->kwnames[i];
        if (!el_int_const(E, &args->kw[i], &sizes[n++], "an axis size"))
            return sv_error();
    }
    LyViewChain ch = {0};
    if (!ly_view_rearrange(&env->v, buf->u.var.type, pattern, names, sizes, n, &ch)) {
        view_error(env, args->span, args->fname);
        return sv_error();
    }
    return chain_views(env, buf, &ch);
}

/* torch's A.unflatten(dim, sizes), A.flatten(start_dim=0, end_dim=-1),
 * A.select(dim, index), A.narrow(dim, start, length) */
static ScVal method_torch(ViewEnv *env, IrExpr *buf, const char *name, ScArgs *args)
{
    El *E = env->E;
    const IrType *t = buf->u.var.type;
    ScBound b;
    int64_t d0, d1;
    if (!strcmp(name, "flatten")) {
        if (!el_bind_args(E, args, "start_dim=, end_dim=", &b) ||
            !int_arg(E, &b.v[0], 0, &d0, "start_dim") || !int_arg(E, &b.v[1], -1, &d1, "end_dim"))
            return sv_error();
        return one_view(env, buf, ly_view_flatten(&env->v, t, d0, d1), args->fname);
    }
    const char *params = !strcmp(name, "unflatten") ? "dim, sizes"
                         : !strcmp(name, "select")  ? "dim, index"
                                                    : "dim, start, length";
    if (!el_bind_args(E, args, params, &b) || !el_int_const(E, &b.v[0], &d0, "dim"))
        return sv_error();
    if (!strcmp(name, "unflatten")) {
        int n = 1;
        const ScVal *vals = unpacked(&b.v[1], &n);
        IrExpr **sizes = dims_of(E, vals, n, "a size");
        return sizes ? one_view(env, buf, ly_view_unflatten(&env->v, t, d0, sizes, n), args->fname)
                     : sv_error();
    }
    IrExpr *x = el_prim(E, &b.v[1], name[0] == 's' ? "the index" : "the start");
    if (!x)
        return sv_error();
    if (name[0] == 's')
        return one_view(env, buf, ly_view_select(&env->v, t, d0, x), args->fname);
    IrExpr *len = el_prim(E, &b.v[2], "the length");
    return len ? one_view(env, buf, ly_view_narrow(&env->v, t, d0, x, len), args->fname)
               : sv_error();
}

/* A.tile(dim, factors) / A.tile((dim, factors), ...) and A.chunk(spec):
 * indexers that wait for their subscript. */
static ScVal indexer(El *E, IrExpr *buf, const char *name, ScArgs *args)
{
    if (args->nkw) {
        el_error(E, TX_E_ARGUMENTS, args->kwspans[0], "%s takes no keyword arguments", args->fname);
        return sv_error();
    }
    ScVal v = {.kind = SV_INDEXER, .span = args->span};
    v.u.method.recv = TX_NEW_ARRAY(E->a, ScVal, 2);
    v.u.method.recv[0] = view_result(buf, args->span);
    v.u.method.recv[0].fresh = false;
    ScVal *t = &v.u.method.recv[1];
    t->kind = SV_TUPLE, t->span = args->span;
    t->u.seq.n = args->npos, t->u.seq.items = args->pos;
    v.u.method.name = name;
    return v;
}

static const char *const view_methods[] = {"view", "permute", "local", "rearrange", "unflatten",
                                           "flatten", "select", "narrow", "tile", "chunk"};

bool el_is_view_method(const char *name)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(view_methods); i++)
        if (!strcmp(view_methods[i], name))
            return true;
    return false;
}

ScVal el_view_method(El *E, IrExpr *buf, const char *name, ScArgs *args)
{
    ViewEnv env;
    env_init(&env, E, args->span);
    if (!strcmp(name, "view"))
        return method_view(&env, buf, args);
    if (!strcmp(name, "permute"))
        return method_permute(&env, buf, args);
    if (!strcmp(name, "local"))
        return method_local(&env, buf, args);
    if (!strcmp(name, "rearrange"))
        return method_rearrange(&env, buf, args);
    if (!strcmp(name, "tile") || !strcmp(name, "chunk"))
        return indexer(E, buf, name, args);
    return method_torch(&env, buf, name, args);
}

/* ---------------------------------------------------------------- subscripts */
/* One subscript item as a pick: i, :, a:b (step 1), a::s. */
static bool pick_of(El *E, const ScIndexItem *it, LyPick *p)
{
    *p = (LyPick){LY_PICK_ALL, NULL, NULL, 1};
    if (!it->slice) {
        p->kind = LY_PICK_INDEX;
        return (p->start = el_index_expr(E, &it->v)) != NULL;
    }
    const ScSliceParts *sl = it->slice;
    if ((sv_given(&sl->lo) && !(p->start = el_index_expr(E, &sl->lo))) ||
        (sv_given(&sl->hi) && !(p->stop = el_index_expr(E, &sl->hi))) ||
        (sv_given(&sl->step) && sl->step.kind != SV_NONE &&
         !el_int_const(E, &sl->step, &p->step, "a slice step")))
        return false;
    if (p->step != 1)
        p->kind = LY_PICK_STEP;
    else if (p->start || p->stop)
        p->kind = LY_PICK_RANGE;
    return true;
}

static LyPick *picks_of(El *E, const Ast *index, ScIndexItem **items, int *n)
{
    if (!el_index_items(E, index, NULL, 0, items, n))
        return NULL;
    LyPick *p = TX_NEW_ARRAY(E->a, LyPick, *n + 1);
    for (int i = 0; i < *n; i++)
        if (!pick_of(E, &(*items)[i], &p[i]))
            return NULL;
    return p;
}

static ScVal chain_or_error(ViewEnv *env, IrExpr *buf, bool ok, const LyViewChain *ch,
                            const ScIndexItem *items, const char *what)
{
    if (ok)
        return chain_views(env, buf, ch);
    view_error(env, ch->at >= 0 ? items[ch->at].span : env->sp, what);
    return sv_error();
}

static ScVal subscript_sub(ViewEnv *env, IrExpr *buf, const Ast *index)
{
    ScIndexItem *items;
    int n;
    LyPick *p = picks_of(env->E, index, &items, &n);
    if (!p)
        return sv_error();
    LyViewChain ch = {0};
    bool ok = ly_view_sub(&env->v, buf->u.var.type, p, n, &ch);
    return chain_or_error(env, buf, ok, &ch, items,
                          tx_arena_printf(env->E->a, "%s.sub", buf->u.var.name));
}

/* (dim, factors) of A.tile */
static bool tile_spec(El *E, const ScVal *dim, const ScVal *factors, LyTileSpec *out)
{
    if (!el_int_const(E, dim, &out->dim, "a tiled dimension"))
        return false;
    if (factors->kind != SV_TUPLE && factors->kind != SV_LIST) {
        el_error(E, TX_E_VIEW, factors->span,
                 "the factors of a tiled dimension are a tuple, e.g. (4, -1)");
        return false;
    }
    out->nfactors = factors->u.seq.n;
    return (out->factors = dims_of(E, factors->u.seq.items, out->nfactors, "a factor")) != NULL;
}

static ScVal subscript_tile(ViewEnv *env, IrExpr *buf, const ScVal *args, const Ast *index)
{
    El *E = env->E;
    const ScVal *a = args->u.seq.items;
    int n = args->u.seq.n;
    LyTileSpec *specs = TX_NEW_ARRAY(E->a, LyTileSpec, n + 1);
    int nspecs = 0;
    if (n >= 1 && a[0].kind == SV_INT) {
        if (n != 2) {
            el_error(E, TX_E_VIEW, args->span,
                     "A.tile(dim, factors) takes a dimension and a factors tuple");
            return sv_error();
        }
        if (!tile_spec(E, &a[0], &a[1], &specs[nspecs++]))
            return sv_error();
    } else {
        for (int i = 0; i < n; i++) {
            if ((a[i].kind != SV_TUPLE && a[i].kind != SV_LIST) || a[i].u.seq.n != 2) {
                el_error(E, TX_E_VIEW, a[i].span, "each tile spec is (dim, factors)");
                return sv_error();
            }
            if (!tile_spec(E, &a[i].u.seq.items[0], &a[i].u.seq.items[1], &specs[nspecs++]))
                return sv_error();
        }
    }
    ScIndexItem *items;
    int np;
    LyPick *p = picks_of(E, index, &items, &np);
    if (!p)
        return sv_error();
    LyViewChain ch = {0};
    bool ok = ly_view_tile(&env->v, buf->u.var.type, specs, nspecs, p, np, &ch);
    return chain_or_error(env, buf, ok, &ch, items,
                          tx_arena_printf(E->a, "%s.tile", buf->u.var.name));
}

/* A.chunk(spec)[picks]: a region; a chunked dimension takes a chunk index,
 * the others an ordinary index or slice. */
static ScVal subscript_chunk(ViewEnv *env, IrExpr *buf, const ScVal *args, const Ast *index)
{
    El *E = env->E;
    const IrBufferType *bt = ir_buf(buf);
    const char *what = tx_arena_printf(E->a, "%s.chunk", buf->u.var.name);
    const ScVal *spec = args->u.seq.n == 1 ? &args->u.seq.items[0] : NULL;
    if (!spec || (spec->kind != SV_TUPLE && spec->kind != SV_LIST) || spec->u.seq.n != bt->ndim) {
        el_error(E, TX_E_VIEW, args->span, "%s takes one count (or None) per dimension (%d)", what,
                 bt->ndim);
        return sv_error();
    }
    ScIndexItem *items;
    int n;
    LyPick *p = picks_of(E, index, &items, &n);
    if (!p)
        return sv_error();
    if (n > bt->ndim) {
        el_error(E, TX_E_VIEW, env->sp, "%s: %d indices for a buffer of rank %d", what, n,
                 bt->ndim);
        return sv_error();
    }
    IrExpr **mins = TX_NEW_ARRAY(E->a, IrExpr *, bt->ndim + 1);
    IrExpr **exts = TX_NEW_ARRAY(E->a, IrExpr *, bt->ndim + 1);
    for (int d = 0; d < bt->ndim; d++) {
        const ScVal *count = &spec->u.seq.items[d];
        LyPick pk = d < n ? p[d] : (LyPick){LY_PICK_ALL, NULL, NULL, 1};
        int64_t k;
        if (count->kind != SV_NONE) {
            if (!el_int_const(E, count, &k, "a chunk count"))
                return sv_error();
            if (pk.kind != LY_PICK_INDEX) {
                el_error(E, TX_E_VIEW, d < n ? items[d].span : env->sp,
                         "%s: chunked dimension %d takes a chunk index, not a slice", what, d);
                return sv_error();
            }
            if (!ly_view_chunk(&env->v, buf->u.var.type, d, k, pk.start, &mins[d], &exts[d])) {
                view_error(env, items[d].span, what);
                return sv_error();
            }
            continue;
        }
        if (pk.kind == LY_PICK_STEP) {
            el_error(E, TX_E_VIEW, items[d].span, "%s: a stepped slice is not a region", what);
            return sv_error();
        }
        const char *err = NULL;
        mins[d] = pk.start ? pk.start : ir_int(E->a, IR_INT32, 0, env->sp);
        exts[d] = pk.kind == LY_PICK_INDEX ? ir_int(E->a, IR_INT32, 1, env->sp)
                  : pk.stop ? ar_simplify_sub(E->a, pk.stop, mins[d], env->sp, &err)
                  : pk.start ? ar_simplify_sub(E->a, bt->shape[d], mins[d], env->sp, &err)
                             : bt->shape[d];
        if (!exts[d]) {
            el_error(E, TX_E_VIEW, items[d].span, "%s: %s", what, err ? err : "invalid slice");
            return sv_error();
        }
    }
    ScVal r = {.kind = SV_REGION, .span = env->sp};
    r.u.e = el_region(E, buf, mins, exts, bt->ndim, env->sp);
    return r;
}

ScVal el_view_subscript(El *E, ScVal obj, const Ast *index, TxSpan sp)
{
    ViewEnv env;
    env_init(&env, E, sp);
    IrExpr *buf = obj.u.method.recv[0].u.e;
    if (obj.kind == SV_METHOD)
        return subscript_sub(&env, buf, index);
    if (!strcmp(obj.u.method.name, "tile"))
        return subscript_tile(&env, buf, &obj.u.method.recv[1], index);
    return subscript_chunk(&env, buf, &obj.u.method.recv[1], index);
}

/* ---------------------------------------------------------------- declared buffers */
/* Unknown axes and invalid swizzles are errors. Thread axes whose scopes do
 * not chain are a warning: the reference never checks them and prints such
 * layouts, which must round-trip. */
static bool on_memory_axes_only(const IrLayout *l)
{
    const char *axes[LY_AXIS_COUNT + 8];
    int n = ly_axes(l, axes, (int)TX_ARRAY_LEN(axes));
    for (int i = 0; i < n && i < (int)TX_ARRAY_LEN(axes); i++)
        if (ly_axis_kind(axes[i]) != LY_MEMORY)
            return false;
    return true;
}

bool el_check_layout(El *E, const IrLayout *l, TxSpan sp)
{
    LyCtx c = ly_ctx(E->a), scope = ly_ctx(E->a);
    if (ly_check(&c, l))
        return true;
    IrScope inner, outer;
    if (!ly_scope(&scope, l, &inner, &outer) && scope.err && !strcmp(scope.err, c.err)) {
        tx_warning(E->d, TX_W_LAYOUT_SHAPE, sp, "%s", c.err);
        return true;
    }
    el_error(E, TX_E_VIEW, sp, "%s", c.err);
    return false;
}

bool el_check_buffer_layout(El *E, const IrExpr *buf, bool has_data, TxSpan sp)
{
    const IrBufferType *bt = ir_buf(buf);
    if (!bt->layout)
        return true;
    LyCtx c = ly_ctx(E->a);
    /* A layout over memory only that does not admit the shape cannot be
     * applied by lowering: an error (the reference never checks). Over thread
     * axes the reference prints such buffers, which must round-trip: a warning.
     * A mutable scalar stored only where it is declared counts as its value. */
    if (!ly_admits(&c, bt->layout, bt->shape, bt->ndim)) {
        if (!on_memory_axes_only(bt->layout)) {
            tx_warning(E->d, TX_W_LAYOUT_SHAPE, sp, "%s", c.err);
        } else if (!el_admits_by_scalars(E, bt->layout, bt->shape, bt->ndim, c.err, sp)) {
            el_error(E, TX_E_LAYOUT, sp, "%s", c.err);
            return false;
        }
    }
    /* A buffer over given data at a known offset: a swizzle needs the offset
     * aligned to its period (the storage root is assumed period-aligned). */
    IrDType dt = buf->u.var.type->dtype;
    int64_t eo, bytes;
    if (!has_data || bt->layout->kind != IR_LAYOUT_COMPOSE || !ar_const_int(bt->elem_offset, &eo))
        return true;
    bytes = ly_swizzle_period(bt->layout) * (dt.bits ? dt.bits : 8) / 8;
    const char *err = bytes > 0 ? ly_check_swizzle_base(&c, bt->layout, dt, bt->elem_offset, bytes)
                                : NULL;
    if (err) {
        el_error(E, TX_E_VIEW, sp, "%s", err);
        return false;
    }
    return true;
}
