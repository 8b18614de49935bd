/* The `T.*` builtins that are not about buffers, layouts or calls: the
 * builtin table itself (builtins.def), function attributes, pointer and
 * tensor-map types, scope ids, loop ranges, frames (T.attr, T.launch_thread,
 * T.env_thread, T.hint, T.device_entry), T.evaluate, the expression node
 * constructors written as they are (T.Add, T.Cast, T.Select, ...) and the
 * folded ones (T.min, T.floordiv, T.if_then_else, ...). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elab.h"
#include "../arith/arith.h"

static const struct {
    const char *name;
    ScBuiltinFn fn;
} builtins[] = {
#define X(name, fn) {name, fn},
#include "builtins.def"
#undef X
};

ScBuiltinFn el_builtin(const char *name)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(builtins); i++)
        if (builtins[i].name[0] == name[0] && !strcmp(builtins[i].name, name))
            return builtins[i].fn;
    return NULL;
}

int el_builtin_names(const char **out, int max)
{
    int n = 0;
    for (size_t i = 0; i < TX_ARRAY_LEN(builtins) && n < max; i++)
        out[n++] = builtins[i].name;
    return n;
}

static ScVal frame_val(El *E, IrStmt *stmt, IrStmt **body, IrExpr *var, bool fresh, TxSpan sp)
{
    ScFrame *f = TX_NEW(E->a, ScFrame);
    f->stmt = stmt, f->body = body, f->var = var, f->var_fresh = fresh;
    ScVal v = {.kind = SV_FRAME, .span = sp};
    v.u.frame = f;
    return v;
}

static int kwarg_cmp(const void *a, const void *b)
{
    return strcmp(((const IrKwarg *)a)->key, ((const IrKwarg *)b)->key);
}

static void sort_kwargs(IrKwarg *kw, int n)
{
    if (n > 1)
        qsort(kw, (size_t)n, sizeof *kw, kwarg_cmp);
}

/* ---------------------------------------------------------------- function level */

/* T.func_attr({"key": value, ...}) */
ScVal bi_func_attr(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "attrs", &b))
        return sv_error();
    if (!E->func) {
        el_error(E, TX_E_MODULE, args->span, "T.func_attr is only valid inside a function");
        return sv_error();
    }
    if (b.v[0].kind != SV_DICT) {
        el_error(E, TX_E_TYPE, b.v[0].span, "T.func_attr takes a dictionary");
        return sv_error();
    }
    IrExpr *d = el_pod(E, &b.v[0], "function attributes");
    if (!d)
        return sv_error();
    IrKwarg *kw = TX_NEW_ARRAY(E->a, IrKwarg, d->u.list.n + E->func->nattrs + 1);
    int n = 0;
    for (int i = 0; i < E->func->nattrs; i++)
        kw[n++] = E->func->attrs[i];
    for (int i = 0; i < d->u.list.n; i++) {
        IrKwarg k = d->u.list.kwargs[i];
        /* global_symbol equal to the function's name is implied. */
        if (!strcmp(k.key, "global_symbol") && k.value->kind == IR_E_STR &&
            !strcmp(k.value->u.str, E->func->name))
            continue;
        /* These two are the decorator's flags, which print in their place. */
        bool on = (k.value->kind == IR_E_PYBOOL || k.value->kind == IR_E_PYINT ||
                   k.value->kind == IR_E_INT) && k.value->u.int_val;
        if (!strcmp(k.key, "tirx.persistent_kernel")) {
            E->func->is_persistent = on;
            continue;
        }
        if (!strcmp(k.key, "s_tir")) {
            E->func->is_s_tir = E->s_tir = on;
            continue;
        }
        int j = 0;
        while (j < n && strcmp(kw[j].key, k.key))
            j++;
        kw[j] = k;
        if (j == n)
            n++;
    }
    sort_kwargs(kw, n);
    E->func->attrs = kw, E->func->nattrs = n;
    return sv_none(args->span);
}

/* T.handle / T.handle(dtype, storage_scope): a pointer variable (its type in
 * an annotation). */
ScVal bi_handle(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "dtype=, storage_scope=", &b))
        return sv_error();
    IrDType dt = IR_VOID;
    if (sv_given(&b.v[0]) && b.v[0].kind != SV_NONE && !el_dtype_of(E, &b.v[0], &dt, "dtype"))
        return sv_error();
    const char *scope = "global";
    if (sv_given(&b.v[1]) && !(scope = el_str_const(E, &b.v[1], "storage_scope")))
        return sv_error();
    if (!*scope)
        scope = "global";
    IrExpr *var = ir_var(E->a, "v", ir_ptr_type(E->a, dt, scope), args->span);
    ScVal v = sv_expr(var, args->span);
    v.fresh = true;
    return v;
}

/* T.TensorMap() */
ScVal bi_tensormap(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "", &b))
        return sv_error();
    IrType *ty = TX_NEW(E->a, IrType);
    ty->kind = IR_TY_TENSORMAP, ty->dtype = IR_HANDLE, ty->scope = "global";
    IrExpr *var = ir_var(E->a, "v", ty, args->span);
    ScVal v = sv_expr(var, args->span);
    v.fresh = true;
    return v;
}

/* ---------------------------------------------------------------- scope ids */

static int scope_id_kind(const char *name)
{
    for (int i = 0; i < IR_SCOPEID_COUNT; i++)
        if (!strcmp(ir_scopeids[i].name, name))
            return i;
    return -1;
}

static bool expr_items(El *E, const ScVal *v, IrExpr ***out, int *n, const char *what)
{
    if (v->kind != SV_LIST && v->kind != SV_TUPLE) {
        el_error(E, TX_E_TYPE, v->span, "%s must be a list", what);
        return false;
    }
    *n = v->u.seq.n;
    *out = TX_NEW_ARRAY(E->a, IrExpr *, *n ? *n : 1);
    for (int i = 0; i < *n; i++)
        if (!((*out)[i] = el_prim(E, &v->u.seq.items[i], what)))
            return false;
    return true;
}

/* A scope-id definition of the given kind from the bound extents (absent or
 * None: deferred), preferred extents and dtype. */
static ScVal scope_id_def(El *E, ScArgs *args, int kind, const ScVal *extents,
                          const ScVal *preferred, const ScVal *dtype)
{
    const IrScopeIdInfo *info = &ir_scopeids[kind];
    IrDType dt = IR_INT32;
    if (sv_given(dtype) && !el_dtype_of(E, dtype, &dt, "dtype"))
        return sv_error();
    if (!ir_dtype_eq(dt, IR_INT32) && !ir_dtype_eq(dt, IR_UINT32)) {
        el_error(E, TX_E_LAUNCH, dtype->span, "a scope id is int32 or uint32");
        return sv_error();
    }
    IrStmt *s = ir_stmt(E->a, IR_S_SCOPEID, args->span);
    s->u.scopeid.kind = (IrScopeIdKind)kind;
    int n = E->ntargets > 0 ? E->ntargets : 1;
    if (sv_given(extents) && extents->kind != SV_NONE) {
        if (!expr_items(E, extents, &s->u.scopeid.extents, &n, "the extents"))
            return sv_error();
        if (kind == IR_SCOPEID_CTA_ID_IN_PAIR) { /* always 2, and printed without */
            if (n != 1 || !ar_is_const(s->u.scopeid.extents[0], 2)) {
                el_error(E, TX_E_LAUNCH, extents->span, "a CTA pair has the extent [2]");
                return sv_error();
            }
            s->u.scopeid.extents = NULL;
        }
    }
    if (n < 1 || n > info->max_dims) {
        el_error(E, TX_E_ARGUMENTS, args->span, "T.%s takes %d dimension%s, not %d", info->name,
                 info->max_dims,
                 info->max_dims == 1 ? "" : "s", n);
        return sv_error();
    }
    if (sv_given(preferred) && preferred->kind != SV_NONE &&
        !expr_items(E, preferred, &s->u.scopeid.preferred, &s->u.scopeid.npreferred,
                    "preferred"))
        return sv_error();
    s->u.scopeid.nvars = n;
    s->u.scopeid.vars = TX_NEW_ARRAY(E->a, IrExpr *, n);
    ScVal r = {.kind = SV_TUPLE, .fresh = true, .span = args->span};
    r.u.seq.n = n;
    r.u.seq.items = TX_NEW_ARRAY(E->a, ScVal, n);
    for (int i = 0; i < n; i++) {
        s->u.scopeid.vars[i] = ir_var(E->a, "v", el_prim_type(E, dt), args->span);
        r.u.seq.items[i] = sv_expr(s->u.scopeid.vars[i], args->span);
        r.u.seq.items[i].fresh = true;
    }
    el_emit(E, s);
    return n == 1 ? r.u.seq.items[0] : r;
}

/* bx, by = T.cta_id([GX, GY], preferred=[...], dtype="uint32"); T.cta_id() defers the extents. */
ScVal bi_scope_id(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "extents=, *, preferred=, dtype=", &b))
        return sv_error();
    return scope_id_def(E, args, scope_id_kind(args->fname + 2), &b.v[0], &b.v[1], &b.v[2]);
}

static int scope_by_name(const char *name)
{
    for (int i = 0; i < IR_SCOPE_COUNT; i++)
        if (!strcmp(ir_scope_names[i], name))
            return i;
    return -1;
}

/* T.scope_id(extents, "parent", "cur", dtype="int32"): the scope id named by
 * its two scopes (T.scope_id([4], "kernel", "cta") is T.cta_id([4])). */
ScVal bi_scope_id_named(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "extents, parent, cur, dtype=", &b))
        return sv_error();
    const char *parent = el_str_const(E, &b.v[1], "the parent scope");
    const char *cur = parent ? el_str_const(E, &b.v[2], "the scope") : NULL;
    if (!cur)
        return sv_error();
    int p = scope_by_name(parent), c = scope_by_name(cur);
    for (int k = 0; k < IR_SCOPEID_COUNT; k++)
        if ((int)ir_scopeids[k].parent == p && (int)ir_scopeids[k].cur == c)
            return scope_id_def(E, args, k, &b.v[0], &(ScVal){.kind = SV_COUNT}, &b.v[3]);
    el_error(E, TX_E_LAUNCH, args->span, "there is no scope id of a %s in a %s", cur, parent);
    return sv_error();
}

/* ---------------------------------------------------------------- loops */

/* The `dtype=` of a loop: int32 or uint32; false on error, *t untouched when
 * not given. */
static bool loop_dtype(El *E, const ScVal *v, IrDType *t)
{
    if (!sv_given(v) || v->kind == SV_NONE)
        return true;
    IrDType dt;
    if (!el_dtype_of(E, v, &dt, "the loop dtype"))
        return false;
    if (!ir_dtype_eq(dt, IR_INT32) && !ir_dtype_eq(dt, IR_UINT32)) {
        el_error(E, TX_E_TYPE, v->span, "a loop's dtype is int32 or uint32");
        return false;
    }
    *t = dt;
    return true;
}

/* Two bounds as PrimExprs of one dtype: the loop's dtype= when given (a
 * literal retyped, another expression cast), else, as the reference builds
 * them, a Python int is an int32 constant that the other bound then meets
 * as in arithmetic (an int8 bound is cast to int32), an int32 constant
 * beside a narrower unsigned bound a uint32 one (that bound cast to it);
 * the implicit start of T.serial(n) (typed_zero) takes n's dtype. */
static bool loop_bounds(El *E, const ScVal *lo, const ScVal *hi, const IrDType *forced,
                        bool typed_zero, IrExpr **x, IrExpr **y)
{
    bool lp = lo->kind == SV_INT || lo->kind == SV_BOOL;
    bool hp = hi->kind == SV_INT || hi->kind == SV_BOOL;
    *x = lp ? NULL : el_prim(E, lo, "a loop bound");
    *y = hp ? NULL : el_prim(E, hi, "a loop bound");
    if ((!lp && !*x) || (!hp && !*y))
        return false;
    const IrExpr *other = *x ? *x : *y;
    IrDType t = IR_INT32;
    if (forced)
        t = *forced;
    else if (typed_zero && *y)
        t = (*y)->dtype;
    else if (other && other->dtype.code == IR_DT_UINT && other->dtype.bits < 32)
        t = IR_UINT32;
    if (!*x && !(*x = el_prim_as(E, lo, t, "a loop bound")))
        return false;
    if (!*y && !(*y = el_prim_as(E, hi, t, "a loop bound")))
        return false;
    if (forced && ir_dtype_is_int((*x)->dtype) && ir_dtype_is_int((*y)->dtype))
        *x = ar_cast(E->a, t, *x, lo->span), *y = ar_cast(E->a, t, *y, hi->span);
    const char *err = NULL;
    if (!ar_match_types(E->a, x, y, &err) || !ir_dtype_is_int((*x)->dtype)) {
        el_error(E, TX_E_ARGUMENTS, hi->span, "loop bounds must be integers of compatible dtypes");
        return false;
    }
    return true;
}

/* range(start, stop) (is_range: range(n) starts at a Python 0) or
 * T.serial(start, stop) and the like, whose T.serial(n) starts at n's 0. */
static bool loop_dim(El *E, const ScVal *start, const ScVal *stop, const IrDType *dtype,
                     bool is_range, ScLoopDim *d, TxSpan sp)
{
    ScVal zero = sv_int(0, start->span);
    const ScVal *lo = start, *hi = stop;
    if (!sv_given(stop) || stop->kind == SV_NONE)
        lo = &zero, hi = start;
    IrExpr *x, *y;
    if (!loop_bounds(E, lo, hi, dtype, lo == &zero && !is_range, &x, &y))
        return false;
    const char *err = NULL;
    d->min = x;
    d->extent = lo == &zero ? y : ar_simplify_sub(E->a, y, x, sp, &err);
    if (!d->extent) {
        el_error(E, TX_E_VALUE, sp, "invalid loop bounds: %s", err ? err : "");
        return false;
    }
    d->dtype = x->dtype;
    return true;
}

static ScVal loop_value(ScLoop *L, TxSpan sp)
{
    ScVal v = {.kind = SV_LOOP, .span = sp};
    v.u.loop = L;
    return v;
}

static bool loop_annotations(El *E, ScLoop *L, const ScVal *annot, const ScVal *unroll)
{
    int n = 0;
    IrKwarg *kw = NULL;
    if (sv_given(annot) && annot->kind != SV_NONE) {
        IrExpr *d = el_pod(E, annot, "annotations");
        if (!d)
            return false;
        if (d->kind != IR_E_DICT) {
            el_error(E, TX_E_TYPE, annot->span, "annotations must be a dictionary");
            return false;
        }
        n = d->u.list.n, kw = d->u.list.kwargs;
    }
    if (sv_given(unroll) && unroll->kind != SV_NONE) {
        IrKwarg *k2 = TX_NEW_ARRAY(E->a, IrKwarg, n + 1);
        if (n)
            memcpy(k2, kw, sizeof(IrKwarg) * (size_t)n);
        bool off = unroll->kind == SV_BOOL && !unroll->u.b;
        ScVal t = sv_bool(true, unroll->span);
        k2[n].key = off ? "disable_unroll" : "pragma_unroll";
        k2[n].value = el_pod(E, off ? &t : unroll, "unroll");
        if (!k2[n].value)
            return false;
        kw = k2, n++;
    }
    sort_kwargs(kw, n);
    L->nannot = n, L->annot = kw;
    return true;
}

static IrForKind loop_kind(const char *fname)
{
    for (int k = 0; k < IR_FOR_COUNT; k++)
        if (!strcmp(fname + 2, ir_for_names[k]))
            return (IrForKind)k;
    return IR_FOR_SERIAL;
}

/* range(stop) | range(start, stop[, step]) | T.serial/parallel/vectorized/unroll(start,
 * stop=None, *, step=, annotations=, unroll=) | T.thread_binding(start, stop=None, thread=...) */
ScVal bi_loop(El *E, ScArgs *args)
{
    bool is_range = !strcmp(args->fname, "range");
    bool binding = !is_range && !strcmp(args->fname, "T.thread_binding");
    ScBound b;
    const char *spec = is_range ? "start, stop=, step="
                       : binding ? "start, stop=, thread=, *, annotations=, step="
                                 : "start, stop=, *, annotations=, step=, unroll=, dtype=";
    if (!el_bind_args(E, args, spec, &b))
        return sv_error();
    ScLoop *L = TX_NEW(E->a, ScLoop);
    L->kind = is_range ? IR_FOR_SERIAL : loop_kind(args->fname);
    L->ndims = 1;
    L->dims = TX_NEW(E->a, ScLoopDim);
    IrDType dt;
    bool typed = !is_range && !binding && sv_given(&b.v[5]) && b.v[5].kind != SV_NONE;
    if ((typed && !loop_dtype(E, &b.v[5], &dt)) ||
        !loop_dim(E, &b.v[0], &b.v[1], typed ? &dt : NULL, is_range, L->dims, args->span))
        return sv_error();
    const ScVal *step = is_range ? &b.v[2] : &b.v[binding ? 4 : 3];
    if (sv_given(step) && step->kind != SV_NONE) {
        int64_t one;
        IrExpr *st = el_prim_as(E, step, L->dims->dtype, "step");
        if (!st)
            return sv_error();
        L->dims->step = ar_const_int(st, &one) && one == 1 ? NULL : st;
    }
    if (binding) {
        if (!sv_given(&b.v[2])) {
            el_error(E, TX_E_ARGUMENTS, args->span,
                     "T.thread_binding needs thread=\"threadIdx.x\" (or another tag)");
            return sv_error();
        }
        if (!(L->thread = el_str_const(E, &b.v[2], "thread")))
            return sv_error();
    }
    if (!is_range) {
        ScVal none = {.kind = SV_COUNT};
        if (!loop_annotations(E, L, &b.v[binding ? 3 : 2], binding ? &none : &b.v[4]))
            return sv_error();
    }
    if (!is_range && !binding && L->kind != IR_FOR_SERIAL && sv_given(&b.v[4]) &&
        b.v[4].kind != SV_NONE) {
        el_error(E, TX_E_ARGUMENTS, b.v[4].span, "unroll= is only valid on T.serial");
        return sv_error();
    }
    return loop_value(L, args->span);
}

/* T.grid(e0, e1, ...): perfectly nested serial loops */
ScVal bi_grid(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "*extents, dtype=", &b))
        return sv_error();
    if (b.nrest == 0) {
        el_error(E, TX_E_ARGUMENTS, args->span, "T.grid needs at least one extent");
        return sv_error();
    }
    ScLoop *L = TX_NEW(E->a, ScLoop);
    L->kind = IR_FOR_SERIAL;
    L->ndims = b.nrest;
    L->dims = TX_NEW_ARRAY(E->a, ScLoopDim, b.nrest);
    ScVal none = {.kind = SV_COUNT};
    IrDType dt;
    bool typed = sv_given(&b.v[0]) && b.v[0].kind != SV_NONE;
    if (!loop_dtype(E, &b.v[0], &dt))
        return sv_error();
    for (int i = 0; i < b.nrest; i++) {
        const ScVal *e = &b.rest[i];
        bool pair = (e->kind == SV_TUPLE || e->kind == SV_LIST) && e->u.seq.n == 2;
        if (!loop_dim(E, pair ? &e->u.seq.items[0] : e, pair ? &e->u.seq.items[1] : &none,
                      typed ? &dt : NULL, false, &L->dims[i], args->span))
            return sv_error();
        if (pair) {
            const char *err = NULL;
            L->dims[i].extent = el_prim_as(E, &e->u.seq.items[1], L->dims[i].dtype, "an extent");
            (void)err;
        }
    }
    return loop_value(L, args->span);
}

/* ---------------------------------------------------------------- frames */

static IrStmt *attr_stmt(El *E, IrExpr *node, const char *key, IrExpr *value, TxSpan sp)
{
    IrStmt *s = ir_stmt(E->a, IR_S_ATTR, sp);
    s->u.attr.node = node, s->u.attr.key = key, s->u.attr.value = value;
    return s;
}

static IrExpr *attr_value(El *E, const ScVal *v)
{
    if (v->kind == SV_STR)
        return ir_str(E->a, v->u.str.s, v->span);
    return el_prim(E, v, "an attribute value");
}

/* T.attr({"k": v, ...}) | T.attr(node, "key", value) */
ScVal bi_attr(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "node, attr_key=, value=", &b))
        return sv_error();
    if (!sv_given(&b.v[1])) {
        const ScVal *d = &b.v[0];
        if (d->kind != SV_DICT || d->u.dict.n == 0) {
            el_error(E, TX_E_ARGUMENTS, d->span,
                     "T.attr takes a non-empty dictionary, or (node, key, value)");
            return sv_error();
        }
        IrStmt *outer = NULL, **slot = NULL;
        for (int i = 0; i < d->u.dict.n; i++) {
            const char *key = el_str_const(E, &d->u.dict.keys[i], "an attribute key");
            IrExpr *val = key ? attr_value(E, &d->u.dict.vals[i]) : NULL;
            if (!val)
                return sv_error();
            IrStmt *s = attr_stmt(E, ir_int(E->a, IR_INT32, 0, args->span), key, val, args->span);
            if (!outer)
                outer = s;
            else
                *slot = s;
            slot = &s->u.attr.body;
        }
        return frame_val(E, outer, slot, NULL, false, args->span);
    }
    if (!sv_given(&b.v[2])) {
        el_error(E, TX_E_ARGUMENTS, args->span, "T.attr(node, key, value) is missing the value");
        return sv_error();
    }
    IrExpr *node = b.v[0].kind == SV_INT ? el_prim(E, &b.v[0], "the node")
                                         : el_pod(E, &b.v[0], "the attribute node");
    const char *key = el_str_const(E, &b.v[1], "the attribute key");
    IrExpr *val = key ? attr_value(E, &b.v[2]) : NULL;
    if (!node || !val)
        return sv_error();
    IrStmt *s = attr_stmt(E, node, key, val, args->span);
    return frame_val(E, s, &s->u.attr.body, NULL, false, args->span);
}

/* tx = T.launch_thread("threadIdx.x", 128) | T.launch_thread(tx, 128) */
ScVal bi_launch_thread(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "thread, extent", &b))
        return sv_error();
    IrExpr *ext = el_prim(E, &b.v[1], "the thread extent");
    if (!ext)
        return sv_error();
    IrExpr *var;
    const char *tag;
    bool fresh = false;
    if (b.v[0].kind == SV_STR) {
        tag = b.v[0].u.str.s;
        var = ir_var(E->a, tag, el_prim_type(E, ext->dtype), args->span);
        fresh = true;
    } else if (b.v[0].kind == SV_EXPR && b.v[0].u.e->kind == IR_E_VAR) {
        var = b.v[0].u.e;
        tag = el_thread_tag(E, var);
    } else {
        if (b.v[0].kind != SV_ERROR)
            el_error(E, TX_E_ARGUMENTS, b.v[0].span,
                     "T.launch_thread takes a thread tag (\"threadIdx.x\") or a "
                                                     "thread variable");
        return sv_error();
    }
    bool vthread = tag && (!strncmp(tag, "vthread", 7) || !strncmp(tag, "cthread", 7));
    IrStmt *s = attr_stmt(E, var, vthread ? "virtual_thread" : "thread_extent", ext, args->span);
    s->u.attr.thread_tag = tag;
    return frame_val(E, s, &s->u.attr.body, var, fresh, args->span);
}

/* tx = T.env_thread("threadIdx.x"): a thread variable for a later T.launch_thread */
ScVal bi_env_thread(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "thread_tag, dtype=", &b))
        return sv_error();
    const char *tag = el_str_const(E, &b.v[0], "the thread tag");
    IrDType dt = IR_INT32;
    if (!tag || (sv_given(&b.v[1]) && !el_dtype_of(E, &b.v[1], &dt, "dtype")))
        return sv_error();
    IrExpr *var = ir_var(E->a, tag, el_prim_type(E, dt), args->span);
    el_set_thread_tag(E, var, tag);
    ScVal v = sv_expr(var, args->span);
    v.fresh = true;
    return v;
}

/* T.hint("message", k=v, ...) */
ScVal bi_hint(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "message=, **kwargs", &b))
        return sv_error();
    int n = (sv_given(&b.v[0]) ? 1 : 0) + b.nrest_kw;
    IrExpr *d = ir_node(E->a, IR_E_DICT, IR_VOID, args->span);
    d->u.list.n = n;
    d->u.list.kwargs = TX_NEW_ARRAY(E->a, IrKwarg, n ? n : 1);
    int j = 0;
    if (sv_given(&b.v[0])) {
        const char *msg = el_str_const(E, &b.v[0], "the hint message");
        if (!msg)
            return sv_error();
        d->u.list.kwargs[j].key = "message";
        d->u.list.kwargs[j++].value = ir_str(E->a, msg, b.v[0].span);
    }
    for (int i = 0; i < b.nrest_kw; i++) {
        int k = b.rest_kw[i];
        d->u.list.kwargs[j].key = args->kwnames[k];
        if (!(d->u.list.kwargs[j++].value = el_pod(E, &args->kw[k], "a hint value")))
            return sv_error();
    }
    IrStmt *s = attr_stmt(E, d, "tirx_hint", ir_int(E->a, IR_INT32, 0, args->span), args->span);
    return frame_val(E, s, &s->u.attr.body, NULL, false, args->span);
}

/* T.device_entry(): the rest of the block is the device region. */
ScVal bi_device_entry(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "", &b))
        return sv_error();
    IrStmt *s = attr_stmt(E, ir_int(E->a, IR_INT32, 0, args->span), "tirx.device_entry",
                          ir_int(E->a, IR_BOOL, 1, args->span), args->span);
    return frame_val(E, s, &s->u.attr.body, NULL, false, args->span);
}

/* T.evaluate(value) */
ScVal bi_evaluate(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "value", &b))
        return sv_error();
    IrExpr *e = el_prim(E, &b.v[0], "the evaluated value");
    if (!e)
        return sv_error();
    IrStmt *s = ir_stmt(E->a, IR_S_EVAL, args->span);
    s->u.eval = e;
    el_emit(E, s);
    return sv_none(args->span);
}

/* T.meta_var(value): a compile-time value (a layout, say) as it is; the
 * reference's way to keep its parser from converting a Python object. */
ScVal bi_meta_var(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "value", &b))
        return sv_error();
    ScVal v = b.v[0];
    v.span = args->span;
    return v;
}

/* T.Break(), T.Continue(): the loop-control statements `break` / `continue`. */
ScVal bi_loop_control(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "", &b))
        return sv_error();
    el_emit(E, ir_stmt(E->a, !strcmp(args->fname, "T.Break") ? IR_S_BREAK : IR_S_CONTINUE,
                       args->span));
    return sv_none(args->span);
}

/* The type a T.Bind annotation names: a dtype, a pointer (`T.handle(...)`,
 * or its `.ty`); NULL after an error. */
static IrType *bind_annotation(El *E, const ScVal *v)
{
    if (v->kind == SV_DTYPE)
        return el_prim_type(E, v->u.dt);
    if (v->kind == SV_TYPE)
        return v->u.ty;
    if (v->kind == SV_EXPR && v->fresh && v->u.e->kind == IR_E_VAR)
        return v->u.e->u.var.type;
    el_error(E, TX_E_TYPE, v->span,
             "the type annotation of T.Bind must be a dtype or a pointer type");
    return NULL;
}

/* T.Bind(value, type_annotation=None, *, var=None) / T.bind(...): a let
 * binding of var (a new variable, named by an assignment, when absent). */
ScVal bi_bind(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "value, type_annotation=, *, var=", &b))
        return sv_error();
    IrExpr *value = el_prim(E, &b.v[0], "the bound value");
    if (!value)
        return sv_error();
    IrType *ty = NULL;
    if (sv_given(&b.v[1]) && b.v[1].kind != SV_NONE && !(ty = bind_annotation(E, &b.v[1])))
        return sv_error();
    IrExpr *var = NULL;
    if (sv_given(&b.v[2]) && b.v[2].kind != SV_NONE) {
        if (b.v[2].kind != SV_EXPR || b.v[2].u.e->kind != IR_E_VAR || ir_is_buffer(b.v[2].u.e)) {
            el_error(E, TX_E_TYPE, b.v[2].span, "var= of T.Bind must be a variable");
            return sv_error();
        }
        var = b.v[2].u.e;
        ty = var->u.var.type;
    }
    if (!ty && !(ty = el_pointer_type(E, value)))
        ty = el_prim_type(E, value->dtype);
    if (ty->kind == IR_TY_PRIM && !ir_dtype_eq(ty->dtype, value->dtype)) {
        char x[IR_DTYPE_STR_MAX], y[IR_DTYPE_STR_MAX];
        el_error(E, TX_E_TYPE, b.v[0].span, "T.Bind: the variable is %s but the value has dtype %s",
                 ir_dtype_str(ty->dtype, x), ir_dtype_str(value->dtype, y));
        return sv_error();
    }
    if (!var)
        var = ir_var(E->a, "v", ty, args->span);
    IrStmt *s = ir_stmt(E->a, IR_S_BIND, args->span);
    s->u.bind.var = var, s->u.bind.value = value;
    el_emit(E, s);
    ScVal r = sv_expr(var, args->span);
    r.fresh = true; /* defined here: named by an assignment, else no statement */
    return r;
}

/* ---------------------------------------------------------------- expression nodes */

static const struct {
    const char *name;
    IrExprKind kind;
} node_names[] = {
    {"Add", IR_E_ADD}, {"Sub", IR_E_SUB}, {"Mul", IR_E_MUL}, {"Div", IR_E_DIV},
    {"Mod", IR_E_MOD}, {"FloorDiv", IR_E_FLOORDIV}, {"FloorMod", IR_E_FLOORMOD},
    {"Min", IR_E_MIN}, {"Max", IR_E_MAX}, {"EQ", IR_E_EQ}, {"NE", IR_E_NE}, {"LT", IR_E_LT},
    {"LE", IR_E_LE}, {"GT", IR_E_GT}, {"GE", IR_E_GE}, {"And", IR_E_AND}, {"Or", IR_E_OR},
    {"min", IR_E_MIN}, {"max", IR_E_MAX}, {"floordiv", IR_E_FLOORDIV},
    {"floormod", IR_E_FLOORMOD}, {"truncdiv", IR_E_DIV}, {"truncmod", IR_E_MOD},
};

static IrExprKind node_kind(const char *name)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(node_names); i++)
        if (!strcmp(node_names[i].name, name))
            return node_names[i].kind;
    return IR_E_ADD;
}

static bool two_prims_named(El *E, ScArgs *args, const char *names, IrExpr **x, IrExpr **y)
{
    ScBound b;
    if (!el_bind_args(E, args, names, &b))
        return false;
    *x = el_prim(E, &b.v[0], "an operand");
    *y = el_prim(E, &b.v[1], "an operand");
    return *x && *y;
}

static bool two_prims(El *E, ScArgs *args, IrExpr **x, IrExpr **y)
{
    return two_prims_named(E, args, "a, b", x, y);
}

/* T.Add(a, b) ... T.Or(a, b): the node as written (no folding, no conversion). */
ScVal bi_node(El *E, ScArgs *args)
{
    IrExpr *x, *y;
    if (!two_prims(E, args, &x, &y))
        return sv_error();
    if (!ir_dtype_eq(x->dtype, y->dtype)) {
        char bx[IR_DTYPE_STR_MAX], by[IR_DTYPE_STR_MAX];
        el_error(E, TX_E_TYPE, args->span, "the operands of %s have different dtypes: %s and %s",
                 args->fname, ir_dtype_str(x->dtype, bx), ir_dtype_str(y->dtype, by));
        return sv_error();
    }
    IrExprKind k = node_kind(args->fname + 2);
    bool divides = k == IR_E_DIV || k == IR_E_MOD || k == IR_E_FLOORDIV || k == IR_E_FLOORMOD;
    bool zero = (y->kind == IR_E_INT && !y->u.int_val) || (y->kind == IR_E_FLOAT && !y->u.float_val);
    if (divides && zero) { /* its printed form `a // 0` would not read back */
        el_error(E, TX_E_VALUE, args->span, "%s: division by zero", args->fname);
        return sv_error();
    }
    return sv_expr(ir_binary(E->a, k, x, y, args->span), args->span);
}

/* T.min, T.max, T.floordiv, T.floormod, T.truncdiv, T.truncmod: typed and folded. */
ScVal bi_arith(El *E, ScArgs *args)
{
    IrExpr *x, *y;
    if (!two_prims(E, args, &x, &y))
        return sv_error();
    const char *err = NULL;
    IrExpr *r = ar_binary(E->a, node_kind(args->fname + 2), x, y, args->span, &err);
    if (!r) {
        el_error(E, el_arith_error_code(err), args->span, "%s: %s", args->fname,
                 err ? err : "invalid operands");
        return sv_error();
    }
    return sv_expr(r, args->span);
}

/* A zero of x's dtype (a broadcast one for a vector). */
static IrExpr *zero_like(El *E, const IrExpr *x, TxSpan sp)
{
    IrExpr *z = ir_int(E->a, ir_dtype_with_lanes(x->dtype, 1), 0, sp);
    if (x->dtype.lanes == 1)
        return z;
    IrExpr *b = ir_node(E->a, IR_E_BROADCAST, x->dtype, sp);
    b->u.op.a = z, b->u.op.lanes = x->dtype.lanes;
    return b;
}

/* T.abs(x), lowered as the reference does when it is written: a constant
 * folds, an integer becomes T.Select(x >= 0, x, 0 - x), a float T.fabs(x),
 * an unsigned value itself. */
ScVal bi_abs(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "x", &b))
        return sv_error();
    IrExpr *x = el_prim(E, &b.v[0], "the operand");
    if (!x)
        return sv_error();
    TxSpan sp = args->span;
    if (x->kind == IR_E_INT && x->dtype.code == IR_DT_INT) {
        int64_t v = x->u.int_val < 0 ? (int64_t)(0 - (uint64_t)x->u.int_val) : x->u.int_val;
        return sv_expr(ir_int(E->a, x->dtype, ar_wrap_int(x->dtype, v), sp), sp);
    }
    if (x->kind == IR_E_FLOAT)
        return sv_expr(ir_float(E->a, x->dtype, x->u.float_val < 0 ? -x->u.float_val : x->u.float_val, sp), sp);
    switch (x->dtype.code) {
    case IR_DT_INT: {
        IrExpr *zero = zero_like(E, x, sp);
        IrExpr *s = ir_node(E->a, IR_E_SELECT, x->dtype, sp);
        s->u.op.cond = ir_binary(E->a, IR_E_GE, x, zero, sp);
        s->u.op.a = x, s->u.op.b = ir_binary(E->a, IR_E_SUB, zero, x, sp);
        return sv_expr(s, sp);
    }
    case IR_DT_UINT: return sv_expr(x, sp);
    default:
        if (ir_dtype_is_float(x->dtype))
            return sv_expr(el_call_node(E, IR_OP_FABS, x->dtype, &x, 1, sp), sp);
        char dt[IR_DTYPE_STR_MAX];
        el_error(E, TX_E_ARGUMENTS, b.v[0].span, "T.abs takes a number, not a %s",
                 ir_dtype_str(x->dtype, dt));
        return sv_error();
    }
}

/* T.ceildiv(a, b): (a + b - 1) // b, folded like the operators. */
ScVal bi_ceildiv(El *E, ScArgs *args)
{
    IrExpr *x, *y;
    if (!two_prims(E, args, &x, &y))
        return sv_error();
    const char *err = NULL;
    if (!ar_match_types(E->a, &x, &y, &err) || !ir_dtype_is_int(x->dtype)) {
        el_error(E, TX_E_ARGUMENTS, args->span, "T.ceildiv takes two integers%s%s",
                 err ? ": " : "", err ? err : "");
        return sv_error();
    }
    IrExpr *one = ir_int(E->a, x->dtype, 1, args->span);
    IrExpr *sum = ar_binary(E->a, IR_E_ADD, x, y, args->span, &err);
    IrExpr *num = sum ? ar_binary(E->a, IR_E_SUB, sum, one, args->span, &err) : NULL;
    IrExpr *r = num ? ar_binary(E->a, IR_E_FLOORDIV, num, y, args->span, &err) : NULL;
    if (!r) {
        el_error(E, TX_E_TYPE, args->span, "T.ceildiv: %s", err ? err : "invalid operands");
        return sv_error();
    }
    return sv_expr(r, args->span);
}

/* The largest finite value of each float dtype, as the reference's
 * max_value gives it (bfloat16 gets float32's; its min_value is the negated
 * one except for the unsigned-zero formats, where it is 0). */
static const struct {
    IrDtypeCode code;
    int bits;
    double max;
    bool min_zero;
} float_extremes[] = {
    {IR_DT_FLOAT, 16, 65504.0, false},
    {IR_DT_FLOAT, 32, 3.4028234663852886e38, false},
    {IR_DT_FLOAT, 64, 1.7976931348623157e308, false},
    {IR_DT_BFLOAT, 16, 3.4028234663852886e38, false},
    {IR_DT_F8E3M4, 8, 31.0, false},
    {IR_DT_F8E4M3, 8, 448.0, false},
    {IR_DT_F8E4M3B11FNUZ, 8, 30.0, true},
    {IR_DT_F8E4M3FN, 8, 448.0, false},
    {IR_DT_F8E4M3FNUZ, 8, 448.0, true},
    {IR_DT_F8E5M2, 8, 57344.0, false},
    {IR_DT_F8E5M2FNUZ, 8, 57344.0, true},
    {IR_DT_F8E8M0FNU, 8, 3.4028236692093846e38, true},
    {IR_DT_F6E2M3FN, 6, 7.5, false},
    {IR_DT_F6E3M2FN, 6, 28.0, false},
    {IR_DT_F4E2M1FN, 4, 6.0, false},
};

/* T.infinity(dtype), T.max_value(dtype), T.min_value(dtype): constants. */
ScVal bi_extreme(El *E, ScArgs *args)
{
    ScBound b;
    IrDType t;
    if (!el_bind_args(E, args, "dtype", &b) || !el_dtype_of(E, &b.v[0], &t, "dtype"))
        return sv_error();
    const char *what = args->fname + 2;
    bool inf = !strcmp(what, "infinity"), max = !strcmp(what, "max_value");
    char dt[IR_DTYPE_STR_MAX];
    TxSpan sp = args->span;
    if (t.lanes == 1 && (t.code == IR_DT_INT || t.code == IR_DT_UINT) && !inf) {
        int64_t lo, hi;
        ar_dtype_range(t, &lo, &hi);
        if (t.code == IR_DT_UINT && t.bits == 64)
            hi = -1; /* all ones: uint64 values above INT64_MAX are kept as bits */
        return sv_expr(ir_int(E->a, t, max ? hi : lo, sp), sp);
    }
    if (t.lanes == 1 && inf && t.code == IR_DT_FLOAT)
        return sv_expr(ir_float(E->a, t, HUGE_VAL, sp), sp);
    for (size_t i = 0; i < TX_ARRAY_LEN(float_extremes) && t.lanes == 1 && !inf; i++)
        if (float_extremes[i].code == t.code && float_extremes[i].bits == t.bits) {
            double v = max ? float_extremes[i].max
                           : float_extremes[i].min_zero ? 0.0 : -float_extremes[i].max;
            return sv_expr(ir_float(E->a, t, v, sp), sp);
        }
    el_error(E, TX_E_VALUE, b.v[0].span, "T.%s has no value for %s", what, ir_dtype_str(t, dt));
    return sv_error();
}

ScVal bi_not(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "a", &b))
        return sv_error();
    IrExpr *x = el_prim(E, &b.v[0], "the operand");
    if (!x)
        return sv_error();
    IrExpr *n = ir_node(E->a, IR_E_NOT, ir_dtype_with_lanes(IR_BOOL, x->dtype.lanes), args->span);
    n->u.op.a = x;
    return sv_expr(n, args->span);
}

/* T.Cast("dtype", x) */
ScVal bi_cast(El *E, ScArgs *args)
{
    ScBound b;
    IrDType dt;
    if (!el_bind_args(E, args, "dtype, value", &b) || !el_dtype_of(E, &b.v[0], &dt, "dtype"))
        return sv_error();
    IrExpr *x = el_prim(E, &b.v[1], "the value");
    if (!x)
        return sv_error();
    IrExpr *c = ir_node(E->a, IR_E_CAST, dt, args->span);
    c->u.op.a = x;
    return sv_expr(c, args->span);
}

/* Why constant x does not fit dtype t as the literal T.cast folds it to (the
 * reference's checks: integers truncated towards zero must be in range, an
 * unsigned one from a nonnegative value, a bool 0 or 1, a float16 within
 * 65504, a float32 or bfloat16 within FLT_MAX); NULL when it fits. */
static const char *cast_literal_range(IrDType t, const IrExpr *x)
{
    double v = x->kind == IR_E_FLOAT ? x->u.float_val : (double)x->u.int_val;
    if (x->kind == IR_E_INT && x->dtype.code == IR_DT_UINT && x->u.int_val < 0)
        v += 18446744073709551616.0; /* a uint64 above INT64_MAX */
    if (isnan(v))
        return NULL;
    double w = trunc(v);
    switch (t.code) {
    case IR_DT_UINT:
        if (v < 0)
            return "an unsigned integer cannot hold a negative value";
        return t.bits < 64 && w >= ldexp(1.0, t.bits) ? "the value exceeds its maximum" : NULL;
    case IR_DT_INT:
        return t.bits < 64 && (w < -ldexp(1.0, t.bits - 1) || w >= ldexp(1.0, t.bits - 1))
                   ? "the value exceeds its range"
                   : NULL;
    case IR_DT_BOOL: return w == 0 || w == 1 ? NULL : "a bool is 0 or 1";
    case IR_DT_FLOAT: case IR_DT_BFLOAT:
        if (t.bits == 64 || isinf(v))
            return NULL;
        return fabs(v) > (t.code == IR_DT_FLOAT && t.bits == 16 ? 65504.0 : (double)FLT_MAX)
                   ? "the value exceeds its range"
                   : NULL;
    default: return NULL;
    }
}

/* T.cast(value, dtype): the value converted as TVM's cast() converts it: unchanged when it
 * has the dtype, constants folded, else a Cast (a vector keeps its lanes). */
ScVal bi_cast_value(El *E, ScArgs *args)
{
    ScBound b;
    IrDType dt;
    if (!el_bind_args(E, args, "value, dtype", &b) || !el_dtype_of(E, &b.v[1], &dt, "dtype"))
        return sv_error();
    IrExpr *x = el_prim(E, &b.v[0], "the value");
    if (!x)
        return sv_error();
    if (dt.lanes == 1 && x->dtype.lanes > 1)
        dt = ir_dtype_with_lanes(dt, x->dtype.lanes);
    const char *why;
    if ((x->kind == IR_E_INT || x->kind == IR_E_FLOAT) && !ir_dtype_eq(x->dtype, dt) &&
        (why = cast_literal_range(ir_dtype_with_lanes(dt, 1), x))) {
        char buf[IR_DTYPE_STR_MAX], val[32];
        if (x->kind == IR_E_FLOAT)
            snprintf(val, sizeof val, "%g", x->u.float_val);
        else if (x->dtype.code == IR_DT_UINT)
            snprintf(val, sizeof val, "%llu", (unsigned long long)x->u.int_val);
        else
            snprintf(val, sizeof val, "%lld", (long long)x->u.int_val);
        el_error(E, TX_E_VALUE, args->span, "T.cast: the constant %s does not fit %s: %s", val,
                 ir_dtype_str(dt, buf), why);
        return sv_error();
    }
    return sv_expr(ar_cast(E->a, dt, x, args->span), args->span);
}

/* The condition and the two values of T.Select / T.if_then_else. */
static bool choice_operands(El *E, ScArgs *args, const char *names, IrExpr *ops[3])
{
    static const char *const what[3] = {"the condition", "the true value", "the false value"};
    ScBound b;
    if (!el_bind_args(E, args, names, &b))
        return false;
    bool ok = true;
    for (int i = 0; i < 3; i++)
        ok = (ops[i] = el_prim(E, &b.v[i], what[i])) && ok;
    return ok;
}

/* T.Select(cond, a, b) */
ScVal bi_select(El *E, ScArgs *args)
{
    IrExpr *ops[3];
    if (!choice_operands(E, args, "condition, true_value, false_value", ops))
        return sv_error();
    IrExpr *s = ir_node(E->a, IR_E_SELECT, ops[1]->dtype, args->span);
    s->u.op.cond = ops[0], s->u.op.a = ops[1], s->u.op.b = ops[2];
    return sv_expr(s, args->span);
}

static bool lanes_in_range(El *E, int64_t lanes, const ScVal *v)
{
    if (lanes >= 1 && lanes <= IR_MAX_LANES)
        return true;
    el_error(E, TX_E_VALUE, v->span, "lanes must be between 1 and %d, not %lld", IR_MAX_LANES,
             (long long)lanes);
    return false;
}

/* T.Ramp(base, stride, lanes) */
ScVal bi_ramp(El *E, ScArgs *args)
{
    ScBound b;
    int64_t lanes;
    if (!el_bind_args(E, args, "base, stride, lanes", &b) ||
        !el_int_const(E, &b.v[2], &lanes, "lanes") || !lanes_in_range(E, lanes, &b.v[2]))
        return sv_error();
    IrExpr *base = el_prim(E, &b.v[0], "the base");
    IrExpr *stride = base ? el_prim_as(E, &b.v[1], base->dtype, "the stride") : NULL;
    if (!base || !stride)
        return sv_error();
    IrExpr *r = ir_node(E->a, IR_E_RAMP, ir_dtype_with_lanes(base->dtype, (int)lanes), args->span);
    r->u.op.a = base, r->u.op.b = stride, r->u.op.lanes = (int)lanes;
    return sv_expr(r, args->span);
}

/* T.Broadcast(value, lanes) */
ScVal bi_broadcast(El *E, ScArgs *args)
{
    ScBound b;
    int64_t lanes;
    if (!el_bind_args(E, args, "value, lanes", &b) || !el_int_const(E, &b.v[1], &lanes, "lanes") ||
        !lanes_in_range(E, lanes, &b.v[1]))
        return sv_error();
    IrExpr *v = el_prim(E, &b.v[0], "the value");
    if (!v)
        return sv_error();
    IrExpr *r = ir_node(E->a, IR_E_BROADCAST, ir_dtype_with_lanes(v->dtype, (int)lanes), args->span);
    r->u.op.a = v, r->u.op.lanes = (int)lanes;
    return sv_expr(r, args->span);
}

/* T.Shuffle([vectors], [indices]): the vectors concatenated, then the lanes at indices. */
ScVal bi_shuffle(El *E, ScArgs *args)
{
    ScBound b;
    IrExpr **vecs, **idx;
    int nv, ni;
    if (!el_bind_args(E, args, "vectors, indices", &b) ||
        !expr_items(E, &b.v[0], &vecs, &nv, "the vectors") ||
        !expr_items(E, &b.v[1], &idx, &ni, "the indices"))
        return sv_error();
    if (nv < 1 || ni < 1) {
        el_error(E, TX_E_ARGUMENTS, args->span,
                 "T.Shuffle needs at least one vector and one index");
        return sv_error();
    }
    int total = 0;
    for (int i = 0; i < nv; i++) {
        if (!ir_dtype_eq(ir_dtype_with_lanes(vecs[i]->dtype, 1),
                         ir_dtype_with_lanes(vecs[0]->dtype, 1))) {
            el_error(E, TX_E_ARGUMENTS, vecs[i]->span,
                     "the vectors of T.Shuffle must share an element type");
            return sv_error();
        }
        total += vecs[i]->dtype.lanes;
    }
    for (int i = 0; i < ni; i++)
        if (idx[i]->kind != IR_E_INT || idx[i]->u.int_val < 0 || idx[i]->u.int_val >= total) {
            el_error(E, TX_E_VALUE, idx[i]->span,
                     "a T.Shuffle index must be a constant in [0, %d)", total);
            return sv_error();
        }
    IrExpr *r = ir_node(E->a, IR_E_SHUFFLE, ir_dtype_with_lanes(vecs[0]->dtype, ni), args->span);
    r->u.shuffle.nvectors = nv, r->u.shuffle.vectors = vecs;
    r->u.shuffle.nindices = ni, r->u.shuffle.indices = idx;
    return sv_expr(r, args->span);
}

/* T.Let(body, where={x: value}) */
ScVal bi_let(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "body, *, where", &b))
        return sv_error();
    const ScVal *w = &b.v[1];
    if (w->kind != SV_DICT || w->u.dict.n != 1 || w->u.dict.keys[0].kind != SV_EXPR ||
        w->u.dict.keys[0].u.e->kind != IR_E_VAR) {
        el_error(E, TX_E_ARGUMENTS, w->span, "T.Let takes where={variable: value}");
        return sv_error();
    }
    IrExpr *body = el_prim(E, &b.v[0], "the body");
    IrExpr *val = el_prim(E, &w->u.dict.vals[0], "the value");
    if (!body || !val)
        return sv_error();
    IrExpr *l = ir_node(E->a, IR_E_LET, body->dtype, args->span);
    l->u.op.var = w->u.dict.keys[0].u.e, l->u.op.a = val, l->u.op.b = body;
    return sv_expr(l, args->span);
}

static ScVal object_val(IrExpr *e, TxSpan sp)
{
    ScVal v = {.kind = SV_OBJECT, .span = sp};
    v.u.e = e;
    return v;
}

/* T.Range(begin, end): min begin, extent end - begin (folded, not simplified:
 * the reference's). Its printed form T.Range(min, extent + min) reads back
 * as that extent, so that printing is a fixpoint (the reference's is not). */
ScVal bi_range(El *E, ScArgs *args)
{
    IrExpr *lo, *hi;
    if (!two_prims_named(E, args, "begin, end", &lo, &hi))
        return sv_error();
    const char *err = NULL;
    bool printed = hi->kind == IR_E_ADD && ar_expr_equal(hi->u.op.b, lo) && !ar_is_const(lo, 0);
    IrExpr *extent = !ar_match_types(E->a, &lo, &hi, &err) || !ir_dtype_is_int(lo->dtype) ? NULL
                     : printed ? hi->u.op.a
                               : ar_binary(E->a, IR_E_SUB, hi, lo, args->span, &err);
    if (!extent) {
        el_error(E, TX_E_ARGUMENTS, args->span, "T.Range takes two integers%s%s", err ? ": " : "",
                 err ? err : "");
        return sv_error();
    }
    IrExpr *r = ir_node(E->a, IR_E_RANGE, IR_VOID, args->span);
    r->u.op.a = lo, r->u.op.b = extent;
    return object_val(r, args->span);
}

static bool is_lambda(El *E, const ScVal *v, const char *what)
{
    if (v->kind == SV_LAMBDA)
        return true;
    if (v->kind != SV_ERROR)
        el_error(E, TX_E_TYPE, v->span, "%s must be a lambda", what);
    return false;
}

/* Every result of an index map is an expression (a Python number is not). */
static bool index_map_results(El *E, const IrExpr *lam, TxSpan sp)
{
    const IrExpr *body = lam->u.lambda.body;
    for (int i = 0; i < body->u.list.n; i++)
        if (body->u.list.items[i]->kind == IR_E_INT || body->u.list.items[i]->kind == IR_E_FLOAT) {
            el_error(E, TX_E_TYPE, sp,
                     "T.index_map: each result must be an expression of the indices, not a "
                                       "constant");
            return false;
        }
    return true;
}

/* The mapping of T.index_map, its body a tuple. */
static IrExpr *index_map_lambda(El *E, const ScVal *v, IrDType index, const char *what)
{
    IrExpr *lam = is_lambda(E, v, what) ? el_lambda(E, v, index, NULL, 0, true, what) : NULL;
    if (lam && lam->u.lambda.body->kind != IR_E_LIST) {
        IrExpr *l = ir_node(E->a, IR_E_LIST, IR_VOID, v->span);
        l->u.list.n = 1;
        l->u.list.items = TX_NEW_ARRAY(E->a, IrExpr *, 1);
        l->u.list.items[0] = lam->u.lambda.body;
        lam->u.lambda.body = l;
    }
    return lam && index_map_results(E, lam, v->span) ? lam : NULL;
}

/* T.index_map(lambda i, j: (j, i), inverse_index_map=None, index_dtype="int64") */
ScVal bi_index_map(El *E, ScArgs *args)
{
    ScBound b;
    IrDType index = IR_INT64;
    if (!el_bind_args(E, args, "mapping, *, inverse_index_map=, index_dtype=", &b) ||
        (sv_given(&b.v[2]) && !el_dtype_of(E, &b.v[2], &index, "index_dtype")))
        return sv_error();
    IrExpr *r = ir_node(E->a, IR_E_INDEX_MAP, IR_VOID, args->span);
    if (!(r->u.op.a = index_map_lambda(E, &b.v[0], index, "the mapping of T.index_map")))
        return sv_error();
    if (sv_given(&b.v[1]) && b.v[1].kind != SV_NONE &&
        !(r->u.op.b = index_map_lambda(E, &b.v[1], index, "inverse_index_map")))
        return sv_error();
    return object_val(r, args->span);
}

/* T.comm_reducer(lambda x0, x1, y0, y1: (x0 + y0, x1 * y1), [id0, id1]): the
 * parameters take the identities' dtypes. */
ScVal bi_comm_reducer(El *E, ScArgs *args)
{
    ScBound b;
    IrExpr **ids;
    int n;
    if (!el_bind_args(E, args, "combiner, identity", &b) ||
        !expr_items(E, &b.v[1], &ids, &n, "the identity elements") ||
        !is_lambda(E, &b.v[0], "the combiner of T.comm_reducer"))
        return sv_error();
    if (n < 1) {
        el_error(E, TX_E_ARGUMENTS, b.v[1].span,
                 "T.comm_reducer needs at least one identity element");
        return sv_error();
    }
    IrDType *dts = TX_NEW_ARRAY(E->a, IrDType, 2 * n);
    for (int i = 0; i < n; i++)
        dts[i] = dts[n + i] = ids[i]->dtype;
    IrExpr *lam = el_lambda(E, &b.v[0], IR_INT32, dts, 2 * n, n > 1, "the combiner");
    if (!lam)
        return sv_error();
    const IrExpr *body = lam->u.lambda.body;
    if ((n > 1 && (body->kind != IR_E_LIST || body->u.list.n != n)) ||
        (n == 1 && body->kind == IR_E_LIST)) {
        el_error(E, TX_E_ARGUMENTS, b.v[0].span,
                 "the combiner must return %d value%s, one per identity", n,
                 n == 1 ? "" : "s");
        return sv_error();
    }
    IrExpr *list = ir_node(E->a, IR_E_LIST, IR_VOID, b.v[1].span);
    list->u.list.n = n, list->u.list.items = ids;
    IrExpr *r = ir_node(E->a, IR_E_COMM_REDUCER, IR_VOID, args->span);
    r->u.op.a = lam, r->u.op.b = list;
    return object_val(r, args->span);
}

ScVal el_global_info(El *E, ScArgs *args)
{
    ScBound b;
    bool vdevice = !strcmp(args->fname, "I.vdevice");
    if (!el_bind_args(E, args, vdevice ? "target, vdevice_id=, memory_scope=" : "", &b))
        return sv_error();
    IrExpr *r = ir_node(E->a, IR_E_GLOBAL_INFO, IR_VOID, args->span);
    if (!vdevice)
        return object_val(r, args->span);
    if (b.v[0].kind != SV_DICT && b.v[0].kind != SV_STR) {
        el_error(E, TX_E_TYPE, b.v[0].span, "the target of I.vdevice is a dictionary or a string");
        return sv_error();
    }
    int64_t id = 0;
    const char *scope = "global";
    if ((sv_given(&b.v[1]) && !el_int_const(E, &b.v[1], &id, "vdevice_id")) ||
        (sv_given(&b.v[2]) && !(scope = el_str_const(E, &b.v[2], "memory_scope"))) ||
        !(r->u.op.a = el_pod(E, &b.v[0], "the target")))
        return sv_error();
    r->u.op.b = ir_node(E->a, IR_E_PYINT, IR_VOID, args->span);
    r->u.op.b->u.int_val = id;
    r->u.op.cond = ir_str(E->a, scope, args->span);
    return object_val(r, args->span);
}

/* T.if_then_else(cond, a, b): folded on a constant condition. */
ScVal bi_if_then_else(El *E, ScArgs *args)
{
    IrExpr *ops[3];
    if (!choice_operands(E, args, "cond, t, f", ops))
        return sv_error();
    if (ops[0]->kind == IR_E_INT)
        return sv_expr(ops[0]->u.int_val ? ops[1] : ops[2], args->span);
    const char *err = NULL;
    if (!ar_match_types(E->a, &ops[1], &ops[2], &err)) {
        el_error(E, TX_E_TYPE, args->span, "T.if_then_else: %s", err);
        return sv_error();
    }
    return sv_expr(el_call_node(E, IR_OP_IF_THEN_ELSE, ops[1]->dtype, ops, 3, args->span),
                   args->span);
}

/* The result dtype an op fixes by itself (false when the call names it). */
static bool intrin_result(const IrOpInfo *info, IrExpr **a, int n, IrDType *out)
{
    switch (info->ret) {
    case IR_RET_FLOAT32: *out = IR_FLOAT32; return true;
    case IR_RET_INT64: *out = IR_INT64; return true;
    case IR_RET_INT32: *out = IR_INT32; return true;
    case IR_RET_UINT32: *out = IR_UINT32; return true;
    case IR_RET_UINT64: *out = IR_UINT64; return true;
    case IR_RET_VOID: *out = IR_VOID; return true;
    case IR_RET_ARG0: if (n < 1) return false; *out = a[0]->dtype; return true;
    case IR_RET_ARG1: if (n < 2) return false; *out = a[1]->dtype; return true;
    case IR_RET_BOOL: *out = n ? ir_dtype_with_lanes(IR_BOOL, a[0]->dtype.lanes) : IR_BOOL; return true;
    case IR_RET_HANDLE: *out = IR_HANDLE; return true;
    case IR_RET_INT_BITS: {
        int64_t bits = 0;
        if (n < 1 || !ar_const_int(a[0], &bits) || (bits != 32 && bits != 64))
            return false;
        *out = bits == 32 ? IR_INT32 : IR_INT64;
        return true;
    }
    default: return false;
    }
}

/* The op a registered name ("tirx.exp") names, or an error. */
static int registered_op(El *E, const ScVal *v)
{
    const char *name = el_str_const(E, v, "the op name");
    if (!name)
        return -1;
    int op = ir_op_lookup_registered(name);
    if (op < 0)
        el_error(E, TX_E_UNKNOWN_BUILTIN, v->span, "unknown op '%s'", name);
    return op;
}

/* A call of op with result dtype dt. Printed without its dtype (no attrs),
 * the dtype must be the op's own. */
static ScVal op_call_node(El *E, IrOp op, IrDType dt, IrExpr **a, int n, const IrExpr *attrs,
                          TxSpan dt_span, TxSpan sp)
{
    IrDType own = dt;
    bool fixed = intrin_result(&ir_ops[op], a, n, &own);
    if (!attrs && fixed && !ir_dtype_eq(own, dt)) {
        char want[IR_DTYPE_STR_MAX], got[IR_DTYPE_STR_MAX];
        el_error(E, TX_E_TYPE, dt_span, "T.%s returns %s, not %s", ir_ops[op].name,
                 ir_dtype_str(own, want), ir_dtype_str(dt, got));
        return sv_error();
    }
    IrExpr *call = el_call_node(E, op, dt, a, n, sp);
    if (attrs)
        call->u.call.kwargs = attrs->u.list.kwargs, call->u.call.nkwargs = attrs->u.list.n;
    return sv_expr(call, sp);
}

/* T.call_intrin("dtype", "tirx.op.name", args...): a call of that op. */
ScVal bi_call_intrin(El *E, ScArgs *args)
{
    ScBound b;
    IrDType dt;
    if (!el_bind_args(E, args, "dtype, op, *args", &b) || !el_dtype_of(E, &b.v[0], &dt, "dtype"))
        return sv_error();
    int op = registered_op(E, &b.v[1]);
    if (op < 0)
        return sv_error();
    IrExpr **a = TX_NEW_ARRAY(E->a, IrExpr *, b.nrest ? b.nrest : 1);
    for (int i = 0; i < b.nrest; i++)
        if (!(a[i] = el_prim(E, &b.rest[i], "an argument")))
            return sv_error();
    return op_call_node(E, (IrOp)op, dt, a, b.nrest, NULL, b.v[0].span, args->span);
}

/* T.Call("tirx.op", [args], attrs={...}, ret_ty="dtype"): a call node as the
 * reference builds it; a call with attrs prints in this form. */
ScVal bi_call_node(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "op, args, attrs=, ty_args=, span=, ret_ty=", &b))
        return sv_error();
    int op = registered_op(E, &b.v[0]);
    IrExpr **a;
    int n;
    if (op < 0 || !expr_items(E, &b.v[1], &a, &n, "the arguments"))
        return sv_error();
    IrExpr *attrs = NULL;
    if (sv_given(&b.v[2]) && b.v[2].kind != SV_NONE) {
        if (b.v[2].kind != SV_DICT || !(attrs = el_pod(E, &b.v[2], "attrs"))) {
            if (b.v[2].kind != SV_DICT)
                el_error(E, TX_E_TYPE, b.v[2].span, "attrs= of T.Call must be a dictionary");
            return sv_error();
        }
        if (!attrs->u.list.n)
            attrs = NULL;
    }
    IrDType dt;
    IrType *ptr_type = NULL;
    if (!sv_given(&b.v[5]) || b.v[5].kind == SV_NONE) {
        if (!intrin_result(&ir_ops[op], a, n, &dt)) {
            el_error(E, TX_E_ARGUMENTS, args->span, "T.Call of '%s' needs ret_ty=",
                     ir_ops[op].name);
            return sv_error();
        }
    } else if (!el_dtype_of(E, &b.v[5], &dt, "ret_ty")) {
        return sv_error();
    } else {
        ptr_type = el_result_ptr_type(&b.v[5]);
    }
    ScVal r = op_call_node(E, (IrOp)op, dt, a, n, attrs, b.v[5].span, args->span);
    if (r.kind == SV_EXPR)
        r.u.e->u.call.ptr_type = ptr_type;
    return r;
}
