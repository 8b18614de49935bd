/* Layout literals in the elaborator: `Axis.<name>`, `value @ Axis.x`,
 * `T.S[extents:strides]` / `T.R[...]`, `spec + spec + offset`, the
 * constructors T.TileLayout, T.TileLayout.from_iters, T.Iter,
 * T.ComposeLayout, the factories T.tmem_datapath_layout, T.wg_local_layout
 * and T.tcgen05_atom_layout, and the methods that derive a layout from
 * another (pack, unpack, storage, canonicalize, slice, tile, tile_to,
 * direct_sum, broadcast), building the IR's layout nodes with the layout
 * library; and the names `from tvm.tirx.layout import ...` brings in. */
#include <stdlib.h>
#include <string.h>

#include "../layout/layout.h"
#include "elab.h"
#include "../arith/arith.h"

static const char *const axis_names[] = {
    "m", "P", "F", "Bank", "TCol", "TLane", "bx", "by", "bz", "cbx", "cby", "cbz", "tx",
    "warpid", "laneid", "wgid", "tid_in_wg", "wid_in_wg", "pid",
};

ScVal el_axis(El *E, const char *name, TxSpan sp)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(axis_names); i++)
        if (!strcmp(axis_names[i], name)) {
            ScVal v = {.kind = SV_AXIS, .span = sp};
            v.u.path = axis_names[i];
            return v;
        }
    el_error(E, TX_E_UNKNOWN_AXIS, sp, "unknown layout axis '%s'%s", name,
             el_suggest(E, name, axis_names, (int)TX_ARRAY_LEN(axis_names)));
    return sv_error();
}

bool el_is_layout_piece(const ScVal *v)
{
    return v->kind == SV_SPEC || v->kind == SV_ONAXIS || v->kind == SV_AXIS;
}

static ScVal spec_val(ScLayoutSpec *s, TxSpan sp)
{
    ScVal v = {.kind = SV_SPEC, .span = sp};
    v.u.spec = s;
    return v;
}

static IrExpr *layout_int(El *E, const ScVal *v, const char *what)
{
    IrExpr *e = el_prim(E, v, what);
    if (e && !ir_dtype_is_int(e->dtype)) {
        el_error(E, TX_E_LAYOUT, v->span, "%s must be an integer", what);
        return NULL;
    }
    /* layout arithmetic is int32 or wider: a narrower integer (an int16 parameter) is widened,
     * as the offsets it joins are */
    if (e && e->dtype.bits < 32)
        e = ar_cast(E->a, IR_INT32, e, v->span);
    return e;
}

/* One stride entry: `v @ Axis.x`, "axis" (stride 1), (stride, "axis") or an expression (axis m). */
static bool stride_entry(El *E, const ScVal *v, IrIter *it)
{
    if (v->kind == SV_ONAXIS) {
        it->axis = v->u.onaxis.axis;
        return (it->stride = layout_int(E, v->u.onaxis.value, "a stride")) != NULL;
    }
    if (v->kind == SV_STR) {
        ScVal a = el_axis(E, v->u.str.s, v->span);
        if (a.kind == SV_ERROR)
            return false;
        it->axis = a.u.path, it->stride = ir_int(E->a, IR_INT32, 1, v->span);
        return true;
    }
    if ((v->kind == SV_TUPLE || v->kind == SV_LIST) && v->u.seq.n == 2) {
        const ScVal *ax = &v->u.seq.items[1];
        ScVal a = ax->kind == SV_AXIS ? *ax
                  : ax->kind == SV_STR ? el_axis(E, ax->u.str.s, ax->span) : sv_error();
        if (a.kind != SV_AXIS) {
            if (a.kind != SV_ERROR || ax->kind != SV_STR)
                el_error(E, TX_E_LAYOUT, ax->span, "a (stride, axis) pair needs an axis");
            return false;
        }
        it->axis = a.u.path;
        return (it->stride = layout_int(E, &v->u.seq.items[0], "a stride")) != NULL;
    }
    it->axis = "m";
    return (it->stride = layout_int(E, v, "a stride")) != NULL;
}

static int seq_of(const ScVal *v, const ScVal **items)
{
    if (v->kind == SV_TUPLE || v->kind == SV_LIST) {
        *items = v->u.seq.items;
        return v->u.seq.n;
    }
    *items = v;
    return 1;
}

/* T.S[extents : strides] | T.S[extents] (row-major strides on axis m); T.R likewise. */
ScVal el_layout_subscript(El *E, const char *which, const Ast *index, TxSpan sp)
{
    const Ast *ext_ast = index, *str_ast = NULL;
    if (index->kind == A_SLICE) {
        if (!index->a || !index->b || index->c) {
            el_error(E, TX_E_LAYOUT, index->span, "T.%s[...] takes extents:strides", which);
            return sv_error();
        }
        ext_ast = index->a, str_ast = index->b;
    }
    ScVal ev = el_eval_value(E, ext_ast);
    if (ev.kind == SV_ERROR)
        return ev;
    const ScVal *exts;
    int n = seq_of(&ev, &exts);
    IrIter *iters = TX_NEW_ARRAY(E->a, IrIter, n ? n : 1);
    for (int i = 0; i < n; i++)
        if (!(iters[i].extent = layout_int(E, &exts[i], "an extent")))
            return sv_error();
    if (str_ast) {
        ScVal sv = el_eval_value(E, str_ast);
        if (sv.kind == SV_ERROR)
            return sv;
        const ScVal *strides;
        int ns = (sv.kind == SV_TUPLE || sv.kind == SV_LIST) ? seq_of(&sv, &strides)
                                                            : (strides = &sv, 1);
        if (ns != n) {
            el_error(E, TX_E_LAYOUT, str_ast->span, "T.%s[...] has %d extent%s but %d stride%s",
                     which, n,
                     n == 1 ? "" : "s", ns, ns == 1 ? "" : "s");
            return sv_error();
        }
        for (int i = 0; i < n; i++)
            if (!stride_entry(E, &strides[i], &iters[i]))
                return sv_error();
    } else {
        IrExpr *acc = ir_int(E->a, IR_INT32, 1, sp);
        for (int i = n - 1; i >= 0; i--) {
            iters[i].stride = acc, iters[i].axis = "m";
            const char *err = NULL;
            IrExpr *nx = ar_binary(E->a, IR_E_MUL, acc, iters[i].extent, sp, &err);
            acc = nx ? nx : acc;
        }
    }
    ScLayoutSpec *s = TX_NEW(E->a, ScLayoutSpec);
    if (which[0] == 'S')
        s->has_shard = true, s->nshard = n, s->shard = iters, s->shard_span = sp;
    else
        s->has_replica = true, s->nreplica = n, s->replica = iters, s->replica_span = sp;
    return spec_val(s, sp);
}

static bool add_offset(El *E, ScLayoutSpec *s, const char *axis, IrExpr *value, TxSpan sp)
{
    for (int i = 0; i < s->noffset; i++)
        if (!strcmp(s->offset[i].axis, axis)) {
            const char *err = NULL;
            IrExpr *sum = ar_binary(E->a, IR_E_ADD, s->offset[i].value, value, sp, &err);
            if (!sum) {
                el_error(E, TX_E_LAYOUT, sp, "invalid layout offset: %s", err ? err : "");
                return false;
            }
            s->offset[i].value = sum;
            return true;
        }
    IrAxisOffset *o = TX_NEW_ARRAY(E->a, IrAxisOffset, s->noffset + 1);
    if (s->noffset)
        memcpy(o, s->offset, sizeof(*o) * (size_t)s->noffset);
    o[s->noffset++] = (IrAxisOffset){axis, value};
    s->offset = o;
    return true;
}

/* Any operand of a layout '+' as a spec (offsets: ints and expressions go to axis m). */
static ScLayoutSpec *as_spec(El *E, const ScVal *v)
{
    if (v->kind == SV_SPEC) {
        ScLayoutSpec *c = TX_NEW(E->a, ScLayoutSpec);
        *c = *v->u.spec;
        return c;
    }
    ScLayoutSpec *s = TX_NEW(E->a, ScLayoutSpec);
    if (v->kind == SV_ONAXIS) {
        IrExpr *e = layout_int(E, v->u.onaxis.value, "an offset");
        return e && add_offset(E, s, v->u.onaxis.axis, e, v->span) ? s : NULL;
    }
    if (v->kind == SV_AXIS) {
        el_error(E, TX_E_LAYOUT, v->span,
                 "an axis alone is not a layout term; write 'value @ Axis.%s'", v->u.path);
        return NULL;
    }
    IrExpr *e = layout_int(E, v, "a layout offset");
    return e && add_offset(E, s, "m", e, v->span) ? s : NULL;
}

ScVal el_layout_binop(El *E, int op, ScVal a, ScVal b, TxSpan sp)
{
    if (op == SC_TK_AT) {
        if (b.kind != SV_AXIS) {
            el_error(E, TX_E_LAYOUT, sp, "'@' needs an axis on its right (value @ Axis.name)");
            return sv_error();
        }
        ScVal r = {.kind = SV_ONAXIS, .span = sp};
        r.u.onaxis.value = TX_NEW(E->a, ScVal);
        *r.u.onaxis.value = a;
        r.u.onaxis.axis = b.u.path;
        return r;
    }
    if (op != SC_TK_PLUS) {
        el_error(E, TX_E_LAYOUT, sp, "layout terms combine with '+' only");
        return sv_error();
    }
    ScLayoutSpec *x = as_spec(E, &a), *y = as_spec(E, &b);
    if (!x || !y)
        return sv_error();
    /* As the reference: the first shard and the last replica win. */
    if (x->has_shard && y->has_shard)
        tx_warning(E->d, TX_W_IGNORED, y->shard_span,
                   "a layout has one shard: this T.S[...] is ignored (the "
                   "first one is kept)");
    if (x->has_replica && y->has_replica)
        tx_warning(E->d, TX_W_IGNORED, x->replica_span,
                   "a layout has one replica: this T.R[...] is ignored "
                   "(the last one is kept)");
    if (y->has_shard && !x->has_shard)
        x->has_shard = true, x->nshard = y->nshard, x->shard = y->shard,
        x->shard_span = y->shard_span;
    if (y->has_replica)
        x->has_replica = true, x->nreplica = y->nreplica, x->replica = y->replica,
        x->replica_span = y->replica_span;
    for (int i = 0; i < y->noffset; i++)
        if (!add_offset(E, x, y->offset[i].axis, y->offset[i].value, sp))
            return sv_error();
    return spec_val(x, sp);
}

static int offset_cmp(const void *a, const void *b)
{
    return strcmp(((const IrAxisOffset *)a)->axis, ((const IrAxisOffset *)b)->axis);
}

static IrLayout *tile_from_spec(El *E, const ScLayoutSpec *s)
{
    IrLayout *l = TX_NEW(E->a, IrLayout);
    l->kind = IR_LAYOUT_TILE;
    l->nshard = s->nshard, l->shard = s->shard;
    l->nreplica = s->nreplica, l->replica = s->replica;
    l->noffset = s->noffset;
    l->offset = TX_NEW_ARRAY(E->a, IrAxisOffset, s->noffset ? s->noffset : 1);
    if (s->noffset)
        memcpy(l->offset, s->offset, sizeof(IrAxisOffset) * (size_t)s->noffset);
    if (l->noffset > 1)
        qsort(l->offset, (size_t)l->noffset, sizeof(IrAxisOffset), offset_cmp);
    return l;
}

IrLayout *el_layout_of(El *E, const ScVal *v, const char *what)
{
    IrLayout *l = v->kind == SV_LAYOUT ? v->u.layout
                  : v->kind == SV_SPEC ? tile_from_spec(E, v->u.spec)
                                       : NULL;
    if (l)
        return el_check_layout(E, l, v->span) ? l : NULL;
    if (v->kind != SV_ERROR)
        el_error(E, TX_E_LAYOUT, v->span,
                 "%s must be a layout (T.TileLayout(...) or T.ComposeLayout(...)), not %s",
                 what, sv_kind_name(v));
    return NULL;
}

static ScVal layout_val(IrLayout *l, TxSpan sp)
{
    ScVal v = {.kind = SV_LAYOUT, .span = sp};
    v.u.layout = l;
    return v;
}

/* T.TileLayout(T.S[...] [+ T.R[...]] [+ offset]) */
ScVal bi_tile_layout(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "spec", &b))
        return sv_error();
    IrLayout *l = el_layout_of(E, &b.v[0], "the argument of T.TileLayout");
    return l ? layout_val(l, args->span) : sv_error();
}

/* T.Iter(extent, stride, "axis"): one iterator (usable in from_iters). */
ScVal bi_iter(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "extent, stride, axis=", &b))
        return sv_error();
    IrIter *it = TX_NEW(E->a, IrIter);
    it->axis = "m";
    if (!(it->extent = layout_int(E, &b.v[0], "an extent")) ||
        !(it->stride = layout_int(E, &b.v[1], "a stride")))
        return sv_error();
    if (sv_given(&b.v[2])) {
        ScVal a = b.v[2].kind == SV_STR ? el_axis(E, b.v[2].u.str.s, b.v[2].span) : b.v[2];
        if (a.kind != SV_AXIS) {
            if (a.kind != SV_ERROR)
                el_error(E, TX_E_LAYOUT, b.v[2].span, "the axis of T.Iter must be an axis name");
            return sv_error();
        }
        it->axis = a.u.path;
    }
    ScLayoutSpec *s = TX_NEW(E->a, ScLayoutSpec);
    s->has_shard = true, s->nshard = 1, s->shard = it, s->shard_span = args->span;
    return spec_val(s, args->span);
}

static bool iter_list(El *E, const ScVal *v, IrIter **out, int *n)
{
    *n = 0;
    if (!sv_given(v) || v->kind == SV_NONE)
        return true;
    if (v->kind != SV_LIST && v->kind != SV_TUPLE) {
        el_error(E, TX_E_LAYOUT, v->span, "a list of T.Iter(...) is expected");
        return false;
    }
    *out = TX_NEW_ARRAY(E->a, IrIter, v->u.seq.n ? v->u.seq.n : 1);
    for (int i = 0; i < v->u.seq.n; i++) {
        const ScVal *it = &v->u.seq.items[i];
        if (it->kind != SV_SPEC || it->u.spec->nshard != 1) {
            el_error(E, TX_E_LAYOUT, it->span, "a list of T.Iter(...) is expected");
            return false;
        }
        (*out)[(*n)++] = it->u.spec->shard[0];
    }
    return true;
}

/* T.TileLayout.from_iters(shard=[...], replica=[...], offset={"axis": v}) */
ScVal bi_from_iters(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "shard=, replica=, offset=", &b))
        return sv_error();
    ScLayoutSpec *s = TX_NEW(E->a, ScLayoutSpec);
    if (!iter_list(E, &b.v[0], &s->shard, &s->nshard) ||
        !iter_list(E, &b.v[1], &s->replica, &s->nreplica))
        return sv_error();
    const ScVal *off = &b.v[2];
    if (sv_given(off) && off->kind != SV_NONE) {
        if (off->kind != SV_DICT) {
            el_error(E, TX_E_LAYOUT, off->span, "offset= takes a dictionary {\"axis\": value}");
            return sv_error();
        }
        for (int i = 0; i < off->u.dict.n; i++) {
            const char *ax = el_str_const(E, &off->u.dict.keys[i], "an axis name");
            ScVal a = ax ? el_axis(E, ax, off->u.dict.keys[i].span) : sv_error();
            IrExpr *e = a.kind == SV_AXIS ? layout_int(E, &off->u.dict.vals[i], "an offset") : NULL;
            if (!e || !add_offset(E, s, a.u.path, e, args->span))
                return sv_error();
        }
    }
    return layout_val(tile_from_spec(E, s), args->span);
}

/* T.ComposeLayout(per_element, swizzle_len, atom_len, tile_layout, swizzle_inner=True) */
ScVal bi_compose_layout(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "per_element, swizzle_len, atom_len, layout=, swizzle_inner=", &b))
        return sv_error();
    int64_t m, bb, s;
    if (!el_int_const(E, &b.v[0], &m, "per_element") ||
        !el_int_const(E, &b.v[1], &bb, "swizzle_len") || !el_int_const(E, &b.v[2], &s, "atom_len"))
        return sv_error();
    IrLayout *l = TX_NEW(E->a, IrLayout);
    l->kind = IR_LAYOUT_COMPOSE;
    l->per_element = (int)m, l->swizzle_len = (int)bb, l->atom_len = (int)s;
    l->swizzle_inner = true;
    if (sv_given(&b.v[4])) {
        bool t;
        if (!sv_truth(&b.v[4], &t)) {
            el_error(E, TX_E_LAYOUT, b.v[4].span, "swizzle_inner= takes True or False");
            return sv_error();
        }
        l->swizzle_inner = t;
    }
    if (sv_given(&b.v[3]) && b.v[3].kind != SV_NONE) {
        if (!(l->tile = el_layout_of(E, &b.v[3], "the layout of T.ComposeLayout")))
            return sv_error();
    } else {
        /* A bare swizzle: over the identity layout of its span. */
        if (m < 0 || bb < 0 || s < 0 || m + bb + s > 30) {
            el_error(E, TX_E_LAYOUT, args->span,
                     "T.ComposeLayout: swizzle parameters out of range");
            return sv_error();
        }
        IrExpr *span = ir_int(E->a, IR_INT32, ((int64_t)1 << (m + bb + s)), args->span);
        l->tile = ir_default_layout(E->a, &span, 1);
    }
    return layout_val(l, args->span);
}

/* T.tmem_datapath_layout("F", rows, cols, sub_slab=0): the tcgen05 data-path
 * layout of a TMEM accumulator (it prints as the TileLayout it builds). */
ScVal bi_tmem_datapath_layout(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "dp, rows, cols, sub_slab=", &b))
        return sv_error();
    const char *dp = el_str_const(E, &b.v[0], "the data path");
    int64_t rows, cols, sub = 0;
    if (!dp || !el_int_const(E, &b.v[1], &rows, "rows") || !el_int_const(E, &b.v[2], &cols, "cols") ||
        (sv_given(&b.v[3]) && !el_int_const(E, &b.v[3], &sub, "sub_slab")))
        return sv_error();
    if (strlen(dp) != 1) {
        el_error(E, TX_E_LAYOUT, b.v[0].span, "the data path is one letter, 'A' to 'G'");
        return sv_error();
    }
    LyCtx c = ly_ctx(E->a);
    IrLayout *l = sub == 0 || sub == 1 ? ly_tmem_datapath_layout(&c, dp[0], rows, cols, (int)sub)
                                       : NULL;
    if (!l) {
        el_error(E, TX_E_LAYOUT, args->span, "%s",
                 c.err ? c.err : "tmem_datapath_layout: sub_slab must be 0 or 1");
        return sv_error();
    }
    return layout_val(l, args->span);
}

/* T.wg_local_layout(cols, rows=128): a warpgroup register tile, one row per thread. */
ScVal bi_wg_local_layout(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "cols, rows=", &b))
        return sv_error();
    IrExpr *cols = layout_int(E, &b.v[0], "cols");
    IrExpr *rows = sv_given(&b.v[1]) ? layout_int(E, &b.v[1], "rows")
                                     : ir_int(E->a, IR_INT32, 128, args->span);
    if (!cols || !rows)
        return sv_error();
    LyCtx c = ly_ctx(E->a);
    return layout_val(ly_wg_local_layout(&c, cols, rows), args->span);
}

/* T.wgmma_acc_layout(rows, cols): the register layout of a warpgroup's wgmma accumulator. */
ScVal bi_wgmma_acc_layout(El *E, ScArgs *args)
{
    ScBound b;
    int64_t rows, cols;
    if (!el_bind_args(E, args, "rows, cols", &b) || !el_int_const(E, &b.v[0], &rows, "rows") ||
        !el_int_const(E, &b.v[1], &cols, "cols"))
        return sv_error();
    LyCtx c = ly_ctx(E->a);
    IrLayout *l = ly_wgmma_acc_layout(&c, rows, cols);
    if (!l) {
        el_error(E, TX_E_LAYOUT, args->span, "wgmma_acc_layout: %s", c.err);
        return sv_error();
    }
    return layout_val(l, args->span);
}

/* The arguments (instr_shape, (rows, cols), dtype) of T.tcgen05_atom_layout and
 * T.alloc_tcgen05_ldst_frag, and the fragment's layout; NULL after an error.
 * Messages name tcgen05_atom_layout, and the call when name_call is set. */
IrLayout *el_tcgen05_atom(El *E, ScArgs *args, bool name_call, int64_t *rows, int64_t *cols,
                          IrDType *dt)
{
    const char *call = name_call ? args->fname : "tcgen05_atom_layout";
    ScBound b;
    if (!el_bind_args(E, args, "instr_shape, tensor_shape, dtype", &b))
        return NULL;
    const char *shape = el_str_const(E, &b.v[0], "the instruction shape");
    if (!shape || !el_dtype_of(E, &b.v[2], dt, "the dtype"))
        return NULL;
    const ScVal *dims;
    if (seq_of(&b.v[1], &dims) != 2 || (b.v[1].kind != SV_TUPLE && b.v[1].kind != SV_LIST)) {
        el_error(E, TX_E_LAYOUT, b.v[1].span, "%s: the tensor shape is (rows, cols)", call);
        return NULL;
    }
    if (!el_int_const(E, &dims[0], rows, "rows") || !el_int_const(E, &dims[1], cols, "cols"))
        return NULL;
    LyCtx c = ly_ctx(E->a);
    IrLayout *l = ly_tcgen05_atom_layout(&c, shape, *rows, *cols, dt->bits);
    if (!l) /* c.err names tcgen05_atom_layout */
        el_error(E, TX_E_LAYOUT, args->span, "%s%s%s", name_call ? call : "",
                 name_call ? ": " : "", c.err);
    return l;
}

/* T.tcgen05_atom_layout("16x64b", (rows, cols), dtype): the register layout of
 * a tcgen05.ld/st fragment. */
ScVal bi_tcgen05_atom_layout(El *E, ScArgs *args)
{
    int64_t rows, cols;
    IrDType dt;
    IrLayout *l = el_tcgen05_atom(E, args, false, &rows, &cols, &dt);
    return l ? layout_val(l, args->span) : sv_error();
}

/* ---------------------------------------------------------------- methods */
/* The layout methods of the reference that build a layout, computed by the
 * layout library; each prints as the layout it returns. Canonicalization
 * here has no target (the reference's parser runs with none), so thread
 * axes are not fused. */
static const char *const layout_methods[] = {
    "pack", "unpack", "storage", "canonicalize", "slice", "tile", "tile_to", "direct_sum",
    "broadcast",
};

ScVal el_layout_attr(El *E, ScVal layout, const char *name, TxSpan sp)
{
    return el_method_attr(E, layout, layout_methods, (int)TX_ARRAY_LEN(layout_methods), name, sp,
                          "a layout");
}

static ScVal layout_result(El *E, LyCtx *c, IrLayout *l, const char *method, TxSpan sp)
{
    if (!l) {
        const char *msg = c->err ? c->err : "invalid layout";
        size_t n = strlen(method);
        if (!strncmp(msg, method, n) && !strncmp(msg + n, ": ", 2))
            msg += n + 2; /* the library names the operation too */
        el_error(E, TX_E_LAYOUT, sp, "layout.%s: %s", method, msg);
        return sv_error();
    }
    return layout_val(l, sp);
}

/* A shape: a tuple or list of integer expressions (one integer is a 1-d shape). */
static bool shape_arg(El *E, const ScVal *v, IrExpr ***out, int *n, const char *what)
{
    const ScVal *items;
    *n = seq_of(v, &items);
    *out = TX_NEW_ARRAY(E->a, IrExpr *, *n ? *n : 1);
    for (int i = 0; i < *n; i++)
        if (!((*out)[i] = layout_int(E, &items[i], what)))
            return false;
    return true;
}

static bool same_rank(El *E, int a, int b, const char *method, TxSpan sp)
{
    if (a == b)
        return true;
    el_error(E, TX_E_LAYOUT, sp, "layout.%s: the two shapes have ranks %d and %d", method, a, b);
    return false;
}

/* slice(shape, region): region is one (begin, end) pair per dimension. */
static IrLayout *method_slice(El *E, LyCtx *c, const IrLayout *l, const ScBound *b)
{
    IrExpr **shape;
    int n;
    const ScVal *pairs;
    if (!shape_arg(E, &b->v[0], &shape, &n, "a dimension"))
        return NULL;
    int nr = seq_of(&b->v[1], &pairs);
    if (b->v[1].kind != SV_TUPLE && b->v[1].kind != SV_LIST) {
        el_error(E, TX_E_LAYOUT, b->v[1].span,
                 "layout.slice: the region is a list of (begin, end) pairs");
        return NULL;
    }
    if (n != nr) {
        el_error(E, TX_E_LAYOUT, b->v[1].span,
                 "layout.slice: the region has %d entr%s for a shape of rank %d",
                 nr, nr == 1 ? "y" : "ies", n);
        return NULL;
    }
    IrExpr **begin = TX_NEW_ARRAY(E->a, IrExpr *, n ? n : 1);
    IrExpr **extent = TX_NEW_ARRAY(E->a, IrExpr *, n ? n : 1);
    for (int d = 0; d < n; d++) {
        const ScVal *p = &pairs[d];
        if ((p->kind != SV_TUPLE && p->kind != SV_LIST) || p->u.seq.n != 2) {
            el_error(E, TX_E_LAYOUT, p->span,
                     "layout.slice: a region entry is a (begin, end) pair");
            return NULL;
        }
        IrExpr *end = NULL;
        if (!(begin[d] = layout_int(E, &p->u.seq.items[0], "a region begin")) ||
            !(end = layout_int(E, &p->u.seq.items[1], "a region end")))
            return NULL;
        const char *err = NULL;
        if (!(extent[d] = ar_simplify_sub(E->a, end, begin[d], p->span, &err))) {
            el_error(E, TX_E_LAYOUT, p->span, "layout.slice: %s", err ? err : "invalid region");
            return NULL;
        }
    }
    return ly_slice(c, l, shape, begin, extent, n, LY_TARGET_NONE);
}

/* tile(outer, outer_shape, inner_shape) / direct_sum(left, left_shape, right_shape) /
 * tile_to(to_shape, current_shape) */
static IrLayout *method_compose(El *E, LyCtx *c, const IrLayout *l, const char *name,
                                const ScBound *b, TxSpan sp)
{
    bool to = !strcmp(name, "tile_to");
    const ScVal *shapes = to ? b->v : b->v + 1;
    IrLayout *other = to ? NULL : el_layout_of(E, &b->v[0], "the layout argument");
    IrExpr **s0, **s1;
    int n0, n1;
    if ((!to && !other) || !shape_arg(E, &shapes[0], &s0, &n0, "a dimension") ||
        !shape_arg(E, &shapes[1], &s1, &n1, "a dimension") || !same_rank(E, n0, n1, name, sp))
        return NULL;
    if (to)
        return ly_tile_to(c, l, s0, s1, n0, LY_TARGET_NONE);
    if (!strcmp(name, "tile"))
        return ly_tile_by(c, l, other, s0, s1, n0, LY_TARGET_NONE);
    return ly_direct_sum(c, l, other, s0, s1, n0, LY_TARGET_NONE);
}

/* broadcast(num, position=-1, axis="m") */
static IrLayout *method_broadcast(El *E, LyCtx *c, const IrLayout *l, const ScBound *b)
{
    IrExpr *n = layout_int(E, &b->v[0], "the broadcast extent");
    int64_t pos = -1;
    if (!n || (sv_given(&b->v[1]) && !el_int_const(E, &b->v[1], &pos, "the position")))
        return NULL;
    const char *axis = "m";
    if (sv_given(&b->v[2])) {
        ScVal a = b->v[2].kind == SV_STR ? el_axis(E, b->v[2].u.str.s, b->v[2].span) : b->v[2];
        if (a.kind != SV_AXIS) {
            if (a.kind != SV_ERROR)
                el_error(E, TX_E_LAYOUT, b->v[2].span,
                         "layout.broadcast: axis= takes an axis name");
            return NULL;
        }
        axis = a.u.path;
    }
    if (pos < INT32_MIN || pos > INT32_MAX) {
        el_error(E, TX_E_LAYOUT, b->v[1].span, "layout.broadcast: position %lld is out of range",
                 (long long)pos);
        return NULL;
    }
    return ly_broadcast(c, l, n, (int)pos, axis);
}

static const char *method_params(const char *name)
{
    if (!strcmp(name, "pack") || !strcmp(name, "unpack"))
        return "num";
    if (!strcmp(name, "slice"))
        return "shape, region";
    if (!strcmp(name, "tile"))
        return "outer, outer_shape, inner_shape";
    if (!strcmp(name, "tile_to"))
        return "to_shape, current_shape";
    if (!strcmp(name, "direct_sum"))
        return "left, left_shape, right_shape";
    if (!strcmp(name, "broadcast"))
        return "num, position=, axis=";
    return ""; /* storage, canonicalize */
}

ScVal el_layout_method(El *E, ScVal layout, const char *name, ScArgs *args)
{
    const IrLayout *l = layout.u.layout;
    args->fname = tx_arena_printf(E->a, "layout.%s", name);
    ScBound b;
    if (!el_bind_args(E, args, method_params(name), &b))
        return sv_error();
    LyCtx c = ly_ctx(E->a);
    IrLayout *r = NULL;
    int64_t num;
    int errors = E->d->nerrors;
    if (!strcmp(name, "pack") || !strcmp(name, "unpack")) {
        if (!el_int_const(E, &b.v[0], &num, "the factor"))
            return sv_error();
        r = name[0] == 'p' ? ly_pack(&c, l, num, NULL) : ly_unpack(&c, l, num, NULL);
    } else if (!strcmp(name, "storage")) {
        r = ly_storage(&c, l);
    } else if (!strcmp(name, "canonicalize")) {
        r = ly_canonicalize(&c, l, LY_TARGET_NONE);
    } else if (!strcmp(name, "slice")) {
        r = method_slice(E, &c, l, &b);
    } else if (!strcmp(name, "broadcast")) {
        r = method_broadcast(E, &c, l, &b);
    } else {
        r = method_compose(E, &c, l, name, &b, args->span);
    }
    if (!r && E->d->nerrors > errors)
        return sv_error(); /* an argument was reported */
    return layout_result(E, &c, r, name, args->span);
}

/* ---------------------------------------------------------------- imports */
/* The names a script imports from the reference's layout module, as the
 * values they stand for here. */
static const char *const layout_module[][2] = {
    {"S", "T.S"}, {"R", "T.R"}, {"TileLayout", "T.TileLayout"},
    {"ComposeLayout", "T.ComposeLayout"}, {"Iter", "T.Iter"}, {"Axis", "Axis"},
    {"tmem_datapath_layout", "T.tmem_datapath_layout"},
    {"wg_local_layout", "T.wg_local_layout"},
    {"tcgen05_atom_layout", "T.tcgen05_atom_layout"},
};

static bool layout_module_name(const char *name, TxSpan sp, ScVal *out)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(layout_module); i++)
        if (!strcmp(name, layout_module[i][0])) {
            *out = sv_ns(layout_module[i][1], sp);
            return true;
        }
    for (size_t i = 0; i < TX_ARRAY_LEN(axis_names); i++)
        if (!strcmp(name, axis_names[i])) {
            *out = (ScVal){.kind = SV_AXIS, .span = sp};
            out->u.path = axis_names[i];
            return true;
        }
    return false;
}

void el_import(El *E, const Ast *s)
{
    if (s->name && el_lang_import(E, s))
        return;
    if (!s->name || strcmp(s->name, "tvm.tirx.layout"))
        return;
    ScVal v;
    if (s->op == SC_TK_STAR) {
        for (size_t i = 0; i < TX_ARRAY_LEN(layout_module); i++)
            if (layout_module_name(layout_module[i][0], s->span, &v))
                el_bind(E, layout_module[i][0], v, BIND_PLAIN, s->span);
        for (size_t i = 0; i < TX_ARRAY_LEN(axis_names); i++)
            if (layout_module_name(axis_names[i], s->span, &v))
                el_bind(E, axis_names[i], v, BIND_PLAIN, s->span);
        return;
    }
    for (int i = 0; i < s->items.n; i++) {
        const Ast *n = s->items.items[i];
        const Ast *as = n->a ? n->a : n;
        if (layout_module_name(n->name, n->span, &v))
            el_bind(E, as->name, v, BIND_PLAIN, as->span);
    }
}

IrLayout *sc_parse_layout(IrModule *m, const char *text, size_t len, const char *filename)
{
    m->source = tx_source_new(&m->arena, filename, text, len);
    ScTokens toks;
    AstList ast;
    bool ok = sc_lex(m->source, 0, m->source->len, true, &m->arena, &m->diags, &toks) &&
              sc_parse_tokens(m->source, &toks, true, &m->arena, NULL, &m->diags, &ast) && ast.n == 1;
    sc_tokens_free(&toks);
    if (!ok)
        return NULL;
    El E = {0};
    E.m = m, E.a = &m->arena, E.d = &m->diags, E.src = m->source;
    E.global = E.scope = TX_NEW(E.a, ScScope);
    ScVal v = el_eval(&E, ast.items[0]);
    IrLayout *l = v.kind == SV_ERROR ? NULL : el_layout_of(&E, &v, "the layout");
    return m->diags.nerrors ? NULL : l;
}
