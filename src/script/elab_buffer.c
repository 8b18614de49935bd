/* Buffers in the elaborator: the buffer-declaring builtins (T.Buffer,
 * T.match_buffer, T.alloc_buffer/alloc_shared/alloc_local/smem/tmem,
 * T.decl_buffer and the scalar forms) with their shared keyword layout and
 * defaults, the register-fragment sugar (T.wg_reg_tile,
 * T.alloc_tcgen05_ldst_frag, T.alloc_cast_frag), buffer attributes and
 * methods (data, shape, ptr_to, vload/vstore, access_ptr; the views are
 * elab_view.c's), loads, regions and stores. */
#include <string.h>

#include "../layout/layout.h"
#include "elab.h"
#include "../arith/arith.h"

/* ---------------------------------------------------------------- construction */

IrExpr *el_new_buffer(El *E, IrDType dt, IrExpr **shape, int ndim, const char *scope, TxSpan sp)
{
    IrBufferType *bt = TX_NEW(E->a, IrBufferType);
    bt->ndim = ndim;
    bt->shape = TX_NEW_ARRAY(E->a, IrExpr *, ndim ? ndim : 1);
    for (int i = 0; i < ndim; i++)
        bt->shape[i] = shape[i];
    /* The default index dtype is the first dimension's (DefaultIndexType). */
    IrDType index = ndim && ir_dtype_is_int(shape[0]->dtype) ? shape[0]->dtype : IR_INT32;
    bt->elem_offset = ir_int(E->a, index, 0, sp);
    bt->align = 64, bt->offset_factor = 1;
    bt->layout = E->s_tir ? NULL : ir_default_layout(E->a, bt->shape, ndim);
    IrType *ty = ir_buffer_type(E->a, dt, scope, bt);
    return ir_var(E->a, "buffer", ty, sp);
}

bool el_buffer_is_scalar(const IrExpr *buffer, bool for_alloc)
{
    const IrBufferType *bt = ir_buf(buffer);
    int64_t v;
    if (bt->ndim != 1 || !ar_const_int(bt->shape[0], &v) || v != 1 || bt->nstrides ||
        bt->align != 64 || bt->offset_factor != 1 || bt->naddr || !bt->layout)
        return false;
    const IrLayout *l = bt->layout;
    if (l->kind != IR_LAYOUT_TILE || l->nshard != 1 || l->nreplica || l->noffset ||
        !ar_const_int(l->shard[0].extent, &v) || v != 1 ||
        !ar_const_int(l->shard[0].stride, &v) || v != 1 || strcmp(l->shard[0].axis, "m"))
        return false;
    return !for_alloc || (ar_const_int(bt->elem_offset, &v) && v == 0);
}

static ScVal fresh_buffer(IrExpr *buf, TxSpan sp)
{
    ScVal v = {.kind = SV_BUFFER, .fresh = true, .span = sp};
    v.u.e = buf;
    return v;
}

/* Slots of the shared keyword layout of the buffer-declaring builtins. */
/* The storage scopes tirx and the reference know. A scope outside the list
 * is kept (the reference prints other targets' scopes, "trn.sbuf", which
 * must round-trip) unless it is a near miss of one, a misspelling
 * ("sharde") that would otherwise surface only when building. */
static const char *const storage_scopes[] = {
    "global", "shared", "shared.dyn", "local", "tmem", "warp", "local.var",
    "wmma.matrix_a", "wmma.matrix_b", "wmma.accumulator", "shared.barrier",
};

/* A scope= argument: a string, and not a misspelt storage scope. */
static const char *storage_scope(El *E, const ScVal *v)
{
    const char *scope = el_str_const(E, v, "scope");
    if (!scope)
        return NULL;
    for (size_t i = 0; i < TX_ARRAY_LEN(storage_scopes); i++)
        if (!strcmp(scope, storage_scopes[i]))
            return scope;
    const char *near = el_nearest(scope, storage_scopes, (int)TX_ARRAY_LEN(storage_scopes));
    if (!near)
        return scope;
    el_error(E, TX_E_VALUE, v->span, "unknown storage scope '%s'; did you mean '%s'?", scope,
             near);
    return NULL;
}

enum { B_SHAPE, B_DTYPE, B_DATA, B_STRIDES, B_ELEM_OFFSET, B_SCOPE, B_ALIGN, B_OFFSET_FACTOR,
       B_LAYOUT, B_ADDR, B_ANNOT, B_BUFTYPE, B_AXSEP, B_BYTE_OFFSET, B_COUNT };
#define BUFFER_PARAMS                                                                       \
    "shape, dtype=, data=, strides=, elem_offset=, scope=, align=, offset_factor=, layout=, " \
    "allocated_addr=, annotations=, buffer_type=, axis_separators=, *, byte_offset="

ScVal el_eval_quoted(El *E, const ScVal *str)
{
    const TxSource *src = str->span.src;
    uint32_t b = str->span.begin, e = str->span.end;
    while (b < e && src->text[b] != '"' && src->text[b] != '\'')
        b++;
    char q = src->text[b];
    uint32_t content = b + 1;
    if (content + 1 < e && src->text[content] == q && src->text[content + 1] == q)
        content += 2;
    if (content + str->u.str.n > e || memcmp(src->text + content, str->u.str.s, str->u.str.n)) {
        /* Escapes (`"T.Cast(\"int64\", n) * 2"`): read the decoded text as its own
         * source, named after where the string stands. */
        int line, col;
        tx_source_linecol(src, str->span.begin, &line, &col);
        src = tx_source_new(E->a, tx_arena_printf(E->a, "%s:%d:%d (quoted shape)", src->name,
                                                   line, col),
                            str->u.str.s, str->u.str.n);
        content = 0;
    }
    ScTokens toks;
    AstList ast;
    bool ok = sc_lex(src, content, content + str->u.str.n, true, E->a, E->d, &toks) &&
              sc_parse_tokens(src, &toks, true, E->a, NULL, E->d, &ast) && ast.n == 1;
    sc_tokens_free(&toks);
    if (!ok)
        return sv_error();
    bool saved = E->quoted;
    E->quoted = true;
    ScVal v = el_eval_value(E, ast.items[0]);
    E->quoted = saved;
    return v;
}

/* One shape dimension: an integer PrimExpr; a quoted expression in a signature. */
static IrExpr *shape_dim(El *E, const ScVal *v)
{
    ScVal d = *v;
    if (d.kind == SV_STR && E->in_signature)
        d = el_eval_quoted(E, v);
    IrExpr *e = el_prim(E, &d, "a buffer dimension");
    if (e && !ir_dtype_is_int(e->dtype)) {
        char buf[IR_DTYPE_STR_MAX];
        el_error(E, TX_E_BUFFER, v->span, "a buffer dimension must be an integer, not %s",
                 ir_dtype_str(e->dtype, buf));
        return NULL;
    }
    if (e && e->kind == IR_E_INT && e->dtype.code == IR_DT_INT && e->u.int_val < 0) {
        el_error(E, TX_E_BUFFER, v->span, "a buffer dimension must not be negative (%lld)",
                 (long long)e->u.int_val);
        return NULL;
    }
    return e;
}

static bool expr_list(El *E, const ScVal *v, IrExpr ***out, int *n, const char *what,
                      bool strings_are_vars)
{
    const ScVal *items = v;
    int cnt = 1;
    if (v->kind == SV_TUPLE || v->kind == SV_LIST)
        items = v->u.seq.items, cnt = v->u.seq.n;
    *out = TX_NEW_ARRAY(E->a, IrExpr *, cnt ? cnt : 1);
    *n = cnt;
    for (int i = 0; i < cnt; i++) {
        if (strings_are_vars && items[i].kind == SV_STR) {
            (*out)[i] = ir_var(E->a, items[i].u.str.s, el_prim_type(E, IR_INT32), items[i].span);
            continue;
        }
        IrExpr *e = !strcmp(what, "shape") ? shape_dim(E, &items[i])
                                           : el_prim(E, &items[i], what);
        if (!e)
            return false;
        (*out)[i] = e;
    }
    return true;
}

static bool int_option(El *E, const ScVal *v, int dflt, int *out, const char *what)
{
    *out = dflt;
    if (!sv_given(v) || v->kind == SV_NONE)
        return true;
    int64_t x;
    if (!el_int_const(E, v, &x, what))
        return false;
    if (x > INT32_MAX) {
        el_error(E, TX_E_BUFFER, v->span, "%s must be at most %d, got %lld", what, INT32_MAX,
                 (long long)x);
        return false;
    }
    *out = x <= 0 ? dflt : (int)x;
    return true;
}

/* byte_offset=: the element offset byte_offset * 8 // bits, folded like the
 * operators (the reference's arithmetic). */
static IrExpr *elem_offset_of_bytes(El *E, const ScVal *elem_offset, const ScVal *bytes, IrDType dt)
{
    if (sv_given(elem_offset) && elem_offset->kind != SV_NONE) {
        el_error(E, TX_E_BUFFER, bytes->span, "elem_offset and byte_offset cannot both be given");
        return NULL;
    }
    IrExpr *b = el_prim(E, bytes, "byte_offset");
    if (!b)
        return NULL;
    if (!ir_dtype_is_int(b->dtype)) {
        el_error(E, TX_E_BUFFER, bytes->span, "byte_offset must be an integer");
        return NULL;
    }
    const char *err = NULL;
    TxSpan sp = bytes->span;
    IrExpr *bits = ar_binary(E->a, IR_E_MUL, b, ir_int(E->a, b->dtype, 8, sp), sp, &err);
    IrExpr *r = bits ? ar_binary(E->a, IR_E_FLOORDIV, bits, ir_int(E->a, b->dtype, dt.bits, sp), sp, &err)
                     : NULL;
    if (!r)
        el_error(E, TX_E_BUFFER, bytes->span, "byte_offset: %s", err ? err : "invalid value");
    return r;
}

/* Build a buffer variable from the bound keyword layout (shape at slot 0). */
/* The constant dimensions of a shape times the element size must fit in
 * int64 bytes (flattened offsets and sizes are int64 at most); a negative
 * constant here is a uint64 dimension past INT64_MAX. */
static bool shape_size_fits(El *E, IrExpr **shape, int ndim, IrDType dt, TxSpan sp)
{
    int64_t bytes = ((int64_t)dt.bits * dt.lanes + 7) / 8, d;
    for (int i = 0; i < ndim; i++)
        if (ar_const_int(shape[i], &d) &&
            (d < 0 || __builtin_mul_overflow(bytes, d, &bytes))) {
            el_error(E, TX_E_BUFFER, sp,
                     "the buffer's size overflows: its shape has more than 2**63 bytes");
            return false;
        }
    return true;
}

static IrExpr *buffer_from_slots(El *E, const ScVal *s, const char *default_scope, TxSpan sp)
{
    IrExpr **shape;
    int ndim;
    if (!expr_list(E, &s[B_SHAPE], &shape, &ndim, "shape", false))
        return NULL;
    IrDType dt = IR_FLOAT32;
    if (sv_given(&s[B_DTYPE]) && !el_dtype_of(E, &s[B_DTYPE], &dt, "the dtype"))
        return NULL;
    if (!shape_size_fits(E, shape, ndim, dt, s[B_SHAPE].span))
        return NULL;
    const char *scope = default_scope;
    if (sv_given(&s[B_SCOPE]) && !(scope = storage_scope(E, &s[B_SCOPE])))
        return NULL;
    IrExpr *buf = el_new_buffer(E, dt, shape, ndim, scope, sp);
    IrBufferType *bt = buf->u.var.type->buf;
    if (sv_given(&s[B_STRIDES]) && s[B_STRIDES].kind != SV_NONE &&
        !expr_list(E, &s[B_STRIDES], &bt->strides, &bt->nstrides, "a stride", true))
        return NULL;
    if (!int_option(E, &s[B_ALIGN], 64, &bt->align, "align") ||
        !int_option(E, &s[B_OFFSET_FACTOR], 1, &bt->offset_factor, "offset_factor"))
        return NULL;
    if (sv_given(&s[B_BYTE_OFFSET]) && s[B_BYTE_OFFSET].kind != SV_NONE) {
        if (!(bt->elem_offset = elem_offset_of_bytes(E, &s[B_ELEM_OFFSET], &s[B_BYTE_OFFSET], dt)))
            return NULL;
    } else if (sv_given(&s[B_ELEM_OFFSET]) && s[B_ELEM_OFFSET].kind != SV_NONE) {
        if (!(bt->elem_offset = el_prim(E, &s[B_ELEM_OFFSET], "elem_offset")))
            return NULL;
    } else if (sv_given(&s[B_OFFSET_FACTOR]) && s[B_OFFSET_FACTOR].kind != SV_NONE) {
        bt->elem_offset = ir_var(E->a, "elem_offset", el_prim_type(E, IR_INT32), sp);
    }
    const ScVal *lay = &s[B_LAYOUT];
    if (sv_given(lay)) {
        if (lay->kind == SV_NONE)
            bt->layout = NULL;
        else if (lay->kind == SV_STR && !strcmp(lay->u.str.s, "default"))
            bt->layout = ir_default_layout(E->a, bt->shape, bt->ndim);
        else if (!(bt->layout = el_layout_of(E, lay, "layout")))
            return NULL;
    }
    bool has_data = sv_given(&s[B_DATA]) && s[B_DATA].kind != SV_NONE;
    if (!el_check_buffer_layout(E, buf, has_data, sv_given(lay) ? lay->span : sp))
        return NULL;
    if (sv_given(&s[B_ADDR]) && s[B_ADDR].kind != SV_NONE &&
        !expr_list(E, &s[B_ADDR], &bt->allocated_addr, &bt->naddr, "allocated_addr", false))
        return NULL;
    return buf;
}

/* T.Buffer(shape, dtype, ...): a parameter annotation or a free buffer. */
ScVal bi_Buffer(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, BUFFER_PARAMS, &b))
        return sv_error();
    IrExpr *buf = buffer_from_slots(E, b.v, "global", args->span);
    return buf ? fresh_buffer(buf, args->span) : sv_error();
}

static IrExpr *find_param(El *E, const IrExpr *var, int *idx)
{
    for (int i = 0; i < E->nparams; i++)
        if (E->params[i] == var) {
            *idx = i;
            return E->params[i];
        }
    return NULL;
}

/* A = T.match_buffer(handle_param, shape, dtype, ...): the handle parameter
 * is replaced by the buffer; later uses of the handle read A.data. */
ScVal bi_match_buffer(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args,
                      "param, shape, dtype=, data=, strides=, elem_offset=, scope=, align=, "
                      "offset_factor=, layout=, allocated_addr=, buffer_type=, axis_separators=",
                      &b))
        return sv_error();
    const ScVal *p = &b.v[0];
    int idx = -1;
    if (p->kind != SV_EXPR || p->u.e->kind != IR_E_VAR || !find_param(E, p->u.e, &idx)) {
        if (p->kind != SV_ERROR)
            el_error(E, TX_E_BUFFER, p->span,
                     "T.match_buffer needs a handle parameter of the function");
        return sv_error();
    }
    if (p->u.e->u.var.type->kind != IR_TY_PTR) {
        char buf[IR_DTYPE_STR_MAX];
        el_error(E, TX_E_BUFFER, p->span,
                 "T.match_buffer needs a handle parameter, but '%s' is an %s",
                 p->u.e->u.var.name, ir_dtype_str(p->u.e->dtype, buf));
        return sv_error();
    }
    bool saved = E->in_signature;
    E->in_signature = true;
    IrExpr *buf = buffer_from_slots(E, b.v + 1, "global", args->span);
    E->in_signature = saved;
    if (!buf)
        return sv_error();
    const char *handle_name = p->u.e->u.var.name;
    E->params[idx] = buf;
    IrExpr *data = el_call_node(E, IR_OP_BUFFER_DATA, IR_HANDLE, &buf, 1, p->span);
    ScBinding *bind = NULL;
    if (el_lookup(E, handle_name, &bind))
        bind->val = sv_expr(data, p->span);
    return fresh_buffer(buf, args->span);
}

static void emit_alloc(El *E, IrExpr *buf, const ScVal *annot, TxSpan sp)
{
    IrStmt *s = ir_stmt(E->a, IR_S_ALLOC, sp);
    s->u.alloc.buffer = buf;
    if (sv_given(annot) && annot->kind != SV_NONE) {
        IrExpr *d = el_pod(E, annot, "annotations");
        if (d && d->kind == IR_E_DICT)
            s->u.alloc.nannot = d->u.list.n, s->u.alloc.annot = d->u.list.kwargs;
        else if (d)
            el_error(E, TX_E_BUFFER, annot->span, "annotations must be a dictionary");
    }
    el_emit(E, s);
}

static void emit_decl(El *E, IrExpr *buf, IrExpr *data, TxSpan sp)
{
    IrStmt *s = ir_stmt(E->a, IR_S_DECL, sp);
    s->u.decl.buffer = buf, s->u.decl.data = data;
    el_emit(E, s);
}

/* A static shared-memory allocation with a dimension of constant extent 0
 * (an error at sp): it would have no storage. A shared.dyn pool of size 0 is
 * fine: its size is set at launch. */
static bool empty_shape(El *E, const IrExpr *buf, TxSpan sp)
{
    const IrBufferType *bt = ir_buf(buf);
    int64_t v;
    for (int d = 0; d < bt->ndim; d++)
        if (ar_const_int(bt->shape[d], &v) && v == 0) {
            el_error(E, TX_E_BUFFER, sp, "a shared-memory buffer cannot be empty (dimension %d "
                     "has extent 0)", d);
            return true;
        }
    return false;
}

/* T.alloc_buffer / T.alloc_shared / T.smem / T.alloc_local (shape, dtype, ...) */
ScVal bi_alloc_buffer(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, BUFFER_PARAMS, &b))
        return sv_error();
    const char *name = args->fname + 2;
    const char *scope = !strcmp(name, "alloc_local")    ? "local"
                        : !strcmp(name, "tmem")         ? "tmem"
                        : !strcmp(name, "alloc_buffer") ? "global"
                                                        : "shared";
    if (sv_given(&b.v[B_DATA]) && b.v[B_DATA].kind != SV_NONE) {
        el_error(E, TX_E_BUFFER, b.v[B_DATA].span,
                 "%s allocates its own storage; use T.decl_buffer(..., data=...)",
                 args->fname);
        return sv_error();
    }
    IrExpr *buf = buffer_from_slots(E, b.v, scope, args->span);
    if (!buf || (!strcmp(buf->u.var.type->scope, "shared") && empty_shape(E, buf, args->span)))
        return sv_error();
    emit_alloc(E, buf, &b.v[B_ANNOT], args->span);
    return fresh_buffer(buf, args->span);
}

/* A local allocation of `shape` (tuple) with a layout, as T.alloc_local would make it. */
static IrExpr *alloc_local_with(El *E, ScVal shape, IrDType dt, IrLayout *layout, TxSpan sp)
{
    ScVal slots[B_COUNT];
    for (int i = 0; i < B_COUNT; i++)
        slots[i].kind = SV_COUNT;
    char dts[IR_DTYPE_STR_MAX];
    slots[B_SHAPE] = shape;
    slots[B_DTYPE] = sv_str(E, tx_arena_strdup(E->a, ir_dtype_str(dt, dts)), sp);
    if (layout) {
        slots[B_LAYOUT] = (ScVal){.kind = SV_LAYOUT, .span = sp};
        slots[B_LAYOUT].u.layout = layout;
    }
    IrExpr *buf = buffer_from_slots(E, slots, "local", sp);
    if (buf)
        emit_alloc(E, buf, &slots[B_ANNOT], sp);
    return buf;
}

static ScVal int_tuple(El *E, const int64_t *v, int n, TxSpan sp)
{
    ScVal t = {.kind = SV_TUPLE, .span = sp};
    t.u.seq.n = n;
    t.u.seq.items = TX_NEW_ARRAY(E->a, ScVal, n);
    for (int i = 0; i < n; i++)
        t.u.seq.items[i] = sv_int(v[i], sp);
    return t;
}

/* T.wg_reg_tile(elem_per_thread, dtype="float32"): the (128, n) register tile of
 * a warpgroup, one row per thread (layout T.wg_local_layout(n)). */
ScVal bi_wg_reg_tile(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "elem_per_thread, dtype=", &b))
        return sv_error();
    IrDType dt = IR_FLOAT32;
    IrExpr *n = el_prim(E, &b.v[0], "elem_per_thread");
    if (!n || (sv_given(&b.v[1]) && !el_dtype_of(E, &b.v[1], &dt, "the dtype")))
        return sv_error();
    if (!ir_dtype_is_int(n->dtype)) {
        el_error(E, TX_E_BUFFER, b.v[0].span, "elem_per_thread must be an integer");
        return sv_error();
    }
    LyCtx c = ly_ctx(E->a);
    IrLayout *l = ly_wg_local_layout(&c, n, ir_int(E->a, IR_INT32, 128, args->span));
    ScVal shape = {.kind = SV_TUPLE, .span = args->span};
    shape.u.seq.n = 2;
    shape.u.seq.items = TX_NEW_ARRAY(E->a, ScVal, 2);
    shape.u.seq.items[0] = sv_int(128, args->span);
    shape.u.seq.items[1] = sv_expr(n, b.v[0].span);
    IrExpr *buf = alloc_local_with(E, shape, dt, l, args->span);
    return buf ? fresh_buffer(buf, args->span) : sv_error();
}

/* A per-thread register array viewed as a (rows, cols) warpgroup fragment:
 * `buffer = T.alloc_local((rows * cols // 128,), dtype)` and
 * `buffer.view(rows, cols, layout=layout)`, as the reference declares it. */
static ScVal frag_view(El *E, int64_t rows, int64_t cols, IrDType dt, IrLayout *layout,
                       const char *fname, TxSpan sp)
{
    int64_t n;
    if (rows < 1 || cols < 1 || __builtin_mul_overflow(rows, cols, &n) || n % 128) {
        el_error(E, TX_E_BUFFER, sp,
                 "%s: a (%lld, %lld) fragment does not divide evenly over the 128 "
                 "threads of a warpgroup", fname, (long long)rows, (long long)cols);
        return sv_error();
    }
    int64_t per_thread = n / 128;
    IrExpr *flat = alloc_local_with(E, int_tuple(E, &per_thread, 1, sp), dt, NULL, sp);
    if (!flat)
        return sv_error();
    ScVal pos[2] = {sv_int(rows, sp), sv_int(cols, sp)};
    ScVal kw = {.kind = SV_LAYOUT, .span = sp};
    kw.u.layout = layout;
    const char *kwname = "layout";
    ScArgs view = {.span = sp, .fname = fname, .npos = 2, .pos = pos, .nkw = 1, .kw = &kw,
                   .kwnames = &kwname, .kwspans = &sp};
    return el_view_method(E, flat, "view", &view);
}

/* T.alloc_tcgen05_ldst_frag(instr_shape, (rows, cols), dtype): the register
 * fragment of a tcgen05.ld/st atom, with T.tcgen05_atom_layout's layout. */
ScVal bi_alloc_tcgen05_ldst_frag(El *E, ScArgs *args)
{
    int64_t rows, cols;
    IrDType dt;
    IrLayout *l = el_tcgen05_atom(E, args, true, &rows, &cols, &dt);
    return l ? frag_view(E, rows, cols, dt, l, args->fname, args->span) : sv_error();
}

/* T.alloc_cast_frag(src, dtype): a fresh fragment with src's shape and layout
 * and another dtype (for a per-thread element-wise cast). */
ScVal bi_alloc_cast_frag(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "src, dtype", &b))
        return sv_error();
    IrDType dt;
    if (!el_dtype_of(E, &b.v[1], &dt, "the dtype"))
        return sv_error();
    const ScVal *src = &b.v[0];
    if (src->kind != SV_BUFFER) {
        if (src->kind != SV_ERROR)
            el_error(E, TX_E_BUFFER, src->span, "%s takes a register fragment, not %s", args->fname,
                     sv_kind_name(src));
        return sv_error();
    }
    const IrBufferType *bt = ir_buf(src->u.e);
    int64_t rows, cols;
    if (bt->ndim != 2 || !ar_const_int(bt->shape[0], &rows) || !ar_const_int(bt->shape[1], &cols)) {
        el_error(E, TX_E_BUFFER, src->span, "%s: '%s' is not a 2-d fragment of constant shape",
                 args->fname,
                 src->u.e->u.var.name);
        return sv_error();
    }
    const char *name = src->u.e->u.var.name;
    if (!bt->layout) {
        el_error(E, TX_E_BUFFER, src->span, "%s: '%s' has no layout to copy", args->fname, name);
        return sv_error();
    }
    /* a warpgroup fragment: each thread stores rows * cols / 128 elements */
    LyCtx c = ly_ctx(E->a);
    IrLayout *st = ly_storage(&c, bt->layout);
    IrExpr *span = st ? ly_span(&c, st, NULL) : NULL;
    int64_t per_thread, n;
    if (!span || !ar_const_int(span, &per_thread) || __builtin_mul_overflow(rows, cols, &n) ||
        n % 128 || per_thread != n / 128) {
        el_error(E, TX_E_BUFFER, src->span,
                 "%s: '%s' is not a warpgroup fragment: its layout does not "
                 "spread its (%lld, %lld) elements evenly over 128 threads", args->fname, name,
                 (long long)rows, (long long)cols);
        return sv_error();
    }
    return frag_view(E, rows, cols, dt, bt->layout, args->fname, args->span);
}

/* T.decl_buffer(shape, dtype, data=..., ...): a buffer over existing storage;
 * data=None allocates. */
ScVal bi_decl_buffer(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, BUFFER_PARAMS, &b))
        return sv_error();
    IrExpr *buf = buffer_from_slots(E, b.v, "global", args->span);
    if (!buf)
        return sv_error();
    const ScVal *d = &b.v[B_DATA];
    if (!sv_given(d) || d->kind == SV_NONE) {
        if (strcmp(buf->u.var.type->scope, "tmem") != 0) {
            emit_alloc(E, buf, &b.v[B_ANNOT], args->span);
            return fresh_buffer(buf, args->span);
        }
        emit_decl(E, buf, NULL, args->span);
        return fresh_buffer(buf, args->span);
    }
    IrExpr *data = el_prim(E, d, "data");
    if (!data)
        return sv_error();
    emit_decl(E, buf, data, args->span);
    return fresh_buffer(buf, args->span);
}

/* T.alloc_scalar(dtype, scope) / T.local_scalar(dtype) / T.shared_scalar(dtype) */
ScVal bi_scalar(El *E, ScArgs *args)
{
    ScBound b;
    const char *name = args->fname + 2;
    bool any_scope = !strcmp(name, "alloc_scalar");
    if (!el_bind_args(E, args, any_scope ? "dtype, scope=, align=" : "dtype, align=", &b))
        return sv_error();
    IrDType dt;
    if (!el_dtype_of(E, &b.v[0], &dt, "the dtype"))
        return sv_error();
    const char *scope = !strcmp(name, "shared_scalar") ? "shared" : "local";
    if (any_scope && sv_given(&b.v[1]) && !(scope = storage_scope(E, &b.v[1])))
        return sv_error();
    IrExpr *one = ir_int(E->a, IR_INT32, 1, args->span);
    IrExpr *buf = el_new_buffer(E, dt, &one, 1, scope, args->span);
    int align;
    if (!int_option(E, &b.v[any_scope ? 2 : 1], 64, &align, "align"))
        return sv_error();
    buf->u.var.type->buf->align = align;
    emit_alloc(E, buf, &(ScVal){.kind = SV_COUNT}, args->span);
    return fresh_buffer(buf, args->span);
}

/* T.decl_scalar(dtype, data, scope, elem_offset) */
ScVal bi_decl_scalar(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "dtype, data, scope=, elem_offset=", &b))
        return sv_error();
    IrDType dt;
    if (!el_dtype_of(E, &b.v[0], &dt, "the dtype"))
        return sv_error();
    const char *scope = "global";
    if (sv_given(&b.v[2]) && !(scope = storage_scope(E, &b.v[2])))
        return sv_error();
    IrExpr *data = el_prim(E, &b.v[1], "data");
    if (!data)
        return sv_error();
    IrExpr *one = ir_int(E->a, IR_INT32, 1, args->span);
    IrExpr *buf = el_new_buffer(E, dt, &one, 1, scope, args->span);
    if (sv_given(&b.v[3]) &&
        !(buf->u.var.type->buf->elem_offset = el_prim(E, &b.v[3], "elem_offset")))
        return sv_error();
    emit_decl(E, buf, data, args->span);
    return fresh_buffer(buf, args->span);
}

/* ---------------------------------------------------------------- attributes */

static const char *const buffer_attrs[] = {
    "data", "shape", "strides", "elem_offset", "dtype", "layout", "buffer", "source",
    "allocated_addr", "view", "permute", "local", "ptr_to", "vload", "vstore", "access_ptr", "scope", "sub",
    "rearrange", "tile", "chunk", "unflatten", "flatten", "select", "narrow", "elem_offset_of",
    "byte_offset_of",
};

static ScVal expr_tuple(El *E, IrExpr **items, int n, TxSpan sp)
{
    ScVal t = {.kind = SV_TUPLE, .span = sp};
    t.u.seq.n = n;
    t.u.seq.items = TX_NEW_ARRAY(E->a, ScVal, n ? n : 1);
    for (int i = 0; i < n; i++)
        t.u.seq.items[i] = sv_expr(items[i], sp);
    return t;
}

/* Row-major strides of a compact buffer (folded). */
static IrExpr **compact_strides(El *E, const IrBufferType *bt, TxSpan sp)
{
    IrExpr **s = TX_NEW_ARRAY(E->a, IrExpr *, bt->ndim ? bt->ndim : 1);
    IrExpr *acc = ir_int(E->a, IR_INT32, 1, sp);
    for (int i = bt->ndim - 1; i >= 0; i--) {
        s[i] = acc;
        const char *err = NULL;
        IrExpr *next = ar_binary(E->a, IR_E_MUL, acc, bt->shape[i], sp, &err);
        acc = next ? next : acc;
    }
    return s;
}

ScVal el_buffer_attr(El *E, ScVal obj, const char *name, TxSpan sp)
{
    IrExpr *buf = obj.u.e;
    const IrBufferType *bt = ir_buf(buf);
    if (!strcmp(name, "data"))
        return sv_expr(el_call_node(E, IR_OP_BUFFER_DATA, IR_HANDLE, &buf, 1, sp), sp);
    if (!strcmp(name, "shape"))
        return expr_tuple(E, bt->shape, bt->ndim, sp);
    if (!strcmp(name, "strides"))
        return bt->nstrides ? expr_tuple(E, bt->strides, bt->nstrides, sp)
                            : expr_tuple(E, compact_strides(E, bt, sp), bt->ndim, sp);
    if (!strcmp(name, "elem_offset"))
        return sv_expr(bt->elem_offset, sp);
    if (!strcmp(name, "allocated_addr"))
        return expr_tuple(E, bt->allocated_addr, bt->naddr, sp);
    if (!strcmp(name, "dtype")) {
        char b[IR_DTYPE_STR_MAX];
        return sv_str(E, tx_arena_strdup(E->a, ir_dtype_str(buf->u.var.type->dtype, b)), sp);
    }
    if (!strcmp(name, "layout")) {
        if (!bt->layout)
            return sv_none(sp);
        ScVal v = {.kind = SV_LAYOUT, .span = sp};
        v.u.layout = bt->layout;
        return v;
    }
    /* the buffer object of a scalar; 0.27 prints it `x.source` */
    if (!strcmp(name, "buffer") || !strcmp(name, "source")) {
        obj.decay = false, obj.span = sp;
        return obj;
    }
    for (size_t i = 9; i < TX_ARRAY_LEN(buffer_attrs); i++)
        if (!strcmp(name, buffer_attrs[i])) {
            ScVal m = {.kind = SV_METHOD, .span = sp};
            m.u.method.recv = TX_NEW(E->a, ScVal);
            *m.u.method.recv = obj;
            m.u.method.recv->decay = false;
            m.u.method.name = buffer_attrs[i];
            return m;
        }
    el_error(E, TX_E_UNKNOWN_ATTRIBUTE, sp, "buffer '%s' has no attribute '%s'%s", buf->u.var.name,
             name,
             el_suggest(E, name, buffer_attrs, (int)TX_ARRAY_LEN(buffer_attrs)));
    return sv_error();
}

/* ---------------------------------------------------------------- indexing */

bool el_index_items(El *E, const Ast *index, ScIndexItem *local, int nlocal, ScIndexItem **out,
                    int *n)
{
    const Ast *const *items = (const Ast *const *)&index;
    int cnt = 1;
    if (index->kind == A_TUPLE)
        items = (const Ast *const *)index->items.items, cnt = index->items.n;
    int cap = cnt; /* a starred item grows it */
    ScIndexItem *r = cap <= nlocal ? local : TX_NEW_ARRAY(E->a, ScIndexItem, cap);
    int k = 0;
    for (int i = 0; i < cnt; i++) {
        const Ast *it = items[i];
        if (it->kind == A_SLICE) {
            ScIndexItem *x = &r[k++];
            *x = (ScIndexItem){.span = it->span};
            ScSliceParts *sl = x->slice = TX_NEW(E->a, ScSliceParts);
            sl->lo.kind = sl->hi.kind = sl->step.kind = SV_COUNT;
            if ((it->a && (sl->lo = el_eval_value(E, it->a)).kind == SV_ERROR) ||
                (it->b && (sl->hi = el_eval_value(E, it->b)).kind == SV_ERROR) ||
                (it->c && (sl->step = el_eval_value(E, it->c)).kind == SV_ERROR))
                return false;
            continue;
        }
        ScVal v = el_eval_value(E, it->kind == A_STARRED ? it->a : it);
        if (v.kind == SV_ERROR)
            return false;
        if (it->kind == A_STARRED) {
            if (v.kind != SV_TUPLE && v.kind != SV_LIST) {
                el_error(E, TX_E_BUFFER, it->span,
                         "only a tuple or a list can be unpacked with '*'");
                return false;
            }
            if (k + v.u.seq.n > cap) {
                ScIndexItem *bigger = TX_NEW_ARRAY(E->a, ScIndexItem, k + v.u.seq.n + cap);
                memcpy(bigger, r, sizeof(ScIndexItem) * (size_t)k);
                r = bigger, cap = k + v.u.seq.n + cap;
            }
            for (int q = 0; q < v.u.seq.n; q++)
                r[k++] = (ScIndexItem){.v = v.u.seq.items[q], .span = it->span};
            continue;
        }
        if (v.kind == SV_TUPLE && index->kind != A_TUPLE && v.u.seq.n == 0)
            continue; /* A[()] */
        r[k++] = (ScIndexItem){.v = v, .span = it->span};
    }
    *out = r, *n = k;
    return true;
}

IrExpr *el_index_expr(El *E, const ScVal *v)
{
    IrExpr *e = el_prim(E, v, "an index");
    if (e && !ir_dtype_is_int(e->dtype) && e->dtype.code != IR_DT_BOOL) {
        char buf[IR_DTYPE_STR_MAX];
        el_error(E, TX_E_BUFFER, v->span, "an index must be an integer, not %s",
                 ir_dtype_str(e->dtype, buf));
        return NULL;
    }
    return e;
}

static bool slice_bounds(El *E, IrExpr *buffer, int dim, const ScIndexItem *it, IrExpr **lo,
                         IrExpr **hi, int64_t *step)
{
    *step = 1;
    const ScSliceParts *sl = it->slice;
    *lo = sv_given(&sl->lo) ? el_index_expr(E, &sl->lo) : ir_int(E->a, IR_INT32, 0, it->span);
    *hi = sv_given(&sl->hi) ? el_index_expr(E, &sl->hi) : ir_buf(buffer)->shape[dim];
    if (!*lo || !*hi)
        return false;
    if (sv_given(&sl->step) && !el_int_const(E, &sl->step, step, "a slice step"))
        return false;
    if (*step <= 0) {
        el_error(E, TX_E_BUFFER, it->span, "a slice step must be positive");
        return false;
    }
    return true;
}

/* A vector index lo:hi:step as a Ramp with a constant number of lanes. */
static IrExpr *slice_ramp(El *E, IrExpr *lo, IrExpr *hi, int64_t step, TxSpan sp)
{
    const char *err = NULL;
    IrExpr *ext = ar_simplify_sub(E->a, hi, lo, sp, &err);
    int64_t n;
    if (!ext || !ar_const_int(ext, &n) || n <= 0) {
        el_error(E, TX_E_BUFFER, sp, "a vector index needs a constant, positive length");
        return NULL;
    }
    int64_t lanes = (n + step - 1) / step;
    IrExpr *r = ir_node(E->a, IR_E_RAMP, ir_dtype_with_lanes(lo->dtype, (int)lanes), sp);
    r->u.op.a = lo, r->u.op.b = ar_make_int(E->a, lo->dtype, step, sp);
    r->u.op.lanes = (int)lanes;
    return r;
}

static bool check_rank(El *E, IrExpr *buffer, int n, TxSpan sp, bool allow_fewer)
{
    int ndim = ir_buf(buffer)->ndim;
    if (n > ndim || (!allow_fewer && n < ndim)) {
        el_error(E, TX_E_BUFFER, sp, "buffer '%s' has %d dimension%s but %d ind%s given",
                 buffer->u.var.name,
                 ndim, ndim == 1 ? "" : "s", n, n == 1 ? "ex was" : "ices were");
        return false;
    }
    return true;
}

ScVal el_subscript_buffer(El *E, ScVal buf, const Ast *index, TxSpan sp)
{
    IrExpr *buffer = buf.u.e;
    ScIndexItem local[SC_LOCAL_INDEX_ITEMS], *items;
    int n;
    if (!el_index_items(E, index, local, SC_LOCAL_INDEX_ITEMS, &items, &n) ||
        !check_rank(E, buffer, n, sp, true))
        return sv_error();
    int ndim = ir_buf(buffer)->ndim;
    bool region = n < ndim;
    for (int i = 0; i < n; i++)
        if (items[i].slice && (!sv_given(&items[i].slice->step) ||
                               (items[i].slice->step.kind == SV_INT &&
                                items[i].slice->step.u.i == 1)))
            region = true;
    if (region) {
        IrExpr **mins = TX_NEW_ARRAY(E->a, IrExpr *, ndim ? ndim : 1);
        IrExpr **exts = TX_NEW_ARRAY(E->a, IrExpr *, ndim ? ndim : 1);
        for (int i = 0; i < ndim; i++) {
            if (i >= n) {
                mins[i] = ir_int(E->a, IR_INT32, 0, sp);
                exts[i] = ir_buf(buffer)->shape[i];
                continue;
            }
            if (!items[i].slice) {
                if (!(mins[i] = el_index_expr(E, &items[i].v)))
                    return sv_error();
                exts[i] = ar_make_int(E->a, mins[i]->dtype, 1, items[i].span);
                continue;
            }
            IrExpr *lo, *hi;
            int64_t step;
            if (!slice_bounds(E, buffer, i, &items[i], &lo, &hi, &step))
                return sv_error();
            if (step != 1) {
                el_error(E, TX_E_BUFFER, items[i].span, "a buffer region cannot have a step");
                return sv_error();
            }
            const char *err = NULL;
            mins[i] = lo;
            if (!(exts[i] = ar_simplify_sub(E->a, hi, lo, items[i].span, &err))) {
                el_error(E, TX_E_BUFFER, items[i].span, "invalid slice: %s",
                         err ? err : "bad bounds");
                return sv_error();
            }
        }
        ScVal r = {.kind = SV_REGION, .span = sp};
        r.u.e = el_region(E, buffer, mins, exts, ndim, sp);
        return r;
    }
    IrExpr **idx = TX_NEW_ARRAY(E->a, IrExpr *, n ? n : 1);
    for (int i = 0; i < n; i++) {
        if (items[i].slice) {
            IrExpr *lo, *hi;
            int64_t step;
            if (!slice_bounds(E, buffer, i, &items[i], &lo, &hi, &step) ||
                !(idx[i] = slice_ramp(E, lo, hi, step, items[i].span)))
                return sv_error();
        } else if (!(idx[i] = el_index_expr(E, &items[i].v))) {
            return sv_error();
        }
    }
    return sv_expr(el_load(E, buffer, idx, n, sp), sp);
}

bool el_store_indices(El *E, IrExpr *buffer, const Ast *index, IrExpr ***out, int *n)
{
    ScIndexItem local[SC_LOCAL_INDEX_ITEMS], *items;
    if (!el_index_items(E, index, local, SC_LOCAL_INDEX_ITEMS, &items, n) ||
        !check_rank(E, buffer, *n, index->span, false))
        return false;
    *out = TX_NEW_ARRAY(E->a, IrExpr *, *n ? *n : 1);
    for (int i = 0; i < *n; i++) {
        if (items[i].slice) {
            IrExpr *lo, *hi;
            int64_t step;
            if (!slice_bounds(E, buffer, i, &items[i], &lo, &hi, &step) ||
                !((*out)[i] = slice_ramp(E, lo, hi, step, items[i].span)))
                return false;
        } else if (!((*out)[i] = el_index_expr(E, &items[i].v))) {
            return false;
        }
    }
    return true;
}

bool el_store(El *E, IrExpr *buffer, IrExpr **indices, int n, const ScVal *value,
              IrExpr *predicate, TxSpan sp)
{
    IrDType t = buffer->u.var.type->dtype;
    for (int i = 0; i < n; i++)
        if (indices[i]->dtype.lanes > 1)
            t = ir_dtype_with_lanes(t, indices[i]->dtype.lanes * t.lanes);
    char b1[IR_DTYPE_STR_MAX], b2[IR_DTYPE_STR_MAX];
    if (value->kind == SV_ERROR)
        return false;
    if (value->kind == SV_STR) {
        el_error(E, TX_E_BUFFER, value->span, "cannot store a string into '%s', a buffer of %s",
                 buffer->u.var.name, ir_dtype_str(buffer->u.var.type->dtype, b1));
        return false;
    }
    IrExpr *v = (value->kind == SV_INT || value->kind == SV_BOOL || value->kind == SV_FLOAT)
                    ? el_prim_as(E, value, t, "the stored value")
                    : el_prim(E, value, "the stored value");
    if (!v)
        return false;
    /* As the reference: a value of another dtype with the same lanes is cast to
     * the buffer's dtype; a pointer stored into a 64-bit integer buffer keeps
     * its bits. Stricter than the reference (which warns): a float value into
     * an integer buffer is an error. */
    bool ptr_bits = v->dtype.code == IR_DT_HANDLE && ir_dtype_is_int(t) && t.bits == 64;
    bool narrowing = ir_dtype_is_int(t) && ir_dtype_is_float(v->dtype);
    bool castable = v->dtype.lanes == t.lanes && v->dtype.code != IR_DT_HANDLE &&
                    t.code != IR_DT_HANDLE && !narrowing;
    if (!ir_dtype_eq(v->dtype, t) && castable)
        v = ar_cast(E->a, t, v, value->span);
    if (!ir_dtype_eq(v->dtype, t) && !ptr_bits) {
        el_error(E, TX_E_BUFFER, value->span,
                 "cannot store a %s value into '%s', a buffer of %s; convert it with T.Cast(\"%s\", ...)",
                 ir_dtype_str(v->dtype, b1), buffer->u.var.name, ir_dtype_str(t, b2), b2);
        return false;
    }
    IrStmt *s = ir_stmt(E->a, IR_S_STORE, sp);
    s->u.store.buffer = buffer, s->u.store.value = v, s->u.store.predicate = predicate;
    s->u.store.n = n;
    s->u.store.indices = TX_NEW_ARRAY(E->a, IrExpr *, n ? n : 1);
    for (int i = 0; i < n; i++)
        s->u.store.indices[i] = indices[i];
    el_emit(E, s);
    return true;
}

/* ---------------------------------------------------------------- methods */

static IrExpr **index_list(El *E, const ScVal *v, int *n)
{
    IrExpr **r;
    if (!expr_list(E, v, &r, n, "an index", false))
        return NULL;
    return r;
}

/* A.elem_offset_of(indices, inner=True): T.buffer_offset(A[indices]), the
 * element's offset through A's layout, plus A.elem_offset when not inner;
 * A.byte_offset_of(...) is that times the element's bytes (bits // 8). */
static ScVal method_offset_of(El *E, IrExpr *buf, bool bytes, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "indices, inner=", &b))
        return sv_error();
    bool inner = !sv_given(&b.v[1]) || (b.v[1].kind == SV_BOOL && b.v[1].u.b);
    if (sv_given(&b.v[1]) && b.v[1].kind != SV_BOOL) {
        el_error(E, TX_E_BUFFER, b.v[1].span, "inner must be True or False");
        return sv_error();
    }
    int n;
    IrExpr **idx = index_list(E, &b.v[0], &n);
    if (!idx || !check_rank(E, buf, n, args->span, false))
        return sv_error();
    IrExpr *load = el_load(E, buf, idx, n, args->span);
    ScVal off = sv_expr(el_call_node(E, IR_OP_BUFFER_OFFSET, IR_INT32, &load, 1, args->span),
                        args->span);
    const IrBufferType *bt = ir_buf(buf);
    if (!inner && bt->elem_offset)
        off = el_binop(E, SC_TK_PLUS, sv_expr(bt->elem_offset, args->span), off, args->span);
    if (bytes)
        off = el_binop(E, SC_TK_DOUBLESLASH, el_binop(E, SC_TK_STAR, off, sv_int(buf->u.var.type->dtype.bits, args->span),
                                                 args->span),
                       sv_int(8, args->span), args->span);
    return off;
}

static ScVal method_access_ptr(El *E, IrExpr *buf, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "access_mask, ptr_type=, content_lanes=, offset=, extent=", &b))
        return sv_error();
    int mask = 0;
    const char *m = b.v[0].kind == SV_STR ? b.v[0].u.str.s : NULL;
    int64_t mi;
    if (m) {
        for (; *m; m++)
            mask |= *m == 'r' ? 1 : *m == 'w' ? 2 : 0;
    } else if (el_int_const(E, &b.v[0], &mi, "access_mask")) {
        mask = (int)mi;
    } else {
        return sv_error();
    }
    const IrBufferType *bt = ir_buf(buf);
    const char *err = NULL;
    IrExpr *off = sv_given(&b.v[3]) ? el_prim(E, &b.v[3], "offset") : ir_int(E->a, IR_INT32, 0, args->span);
    if (!off)
        return sv_error();
    IrExpr *extent = ir_int(E->a, IR_INT32, 1, args->span);
    if (bt->nstrides == bt->ndim && bt->ndim)
        extent = ar_binary(E->a, IR_E_MUL, bt->strides[0], bt->shape[0], args->span, &err);
    else
        for (int i = 0; i < bt->ndim; i++)
            extent = ar_binary(E->a, IR_E_MUL, extent, bt->shape[i], args->span, &err);
    if (extent)
        extent = ar_binary(E->a, IR_E_SUB, extent, off, args->span, &err);
    if (sv_given(&b.v[4]) && b.v[4].kind != SV_NONE)
        extent = el_prim(E, &b.v[4], "extent");
    IrExpr *eoff = ar_binary(E->a, IR_E_ADD, bt->elem_offset, off, args->span, &err);
    if (!extent || !eoff)
        return sv_error();
    IrExpr *ta = el_call_node(E, IR_OP_TYPE_ANNOTATION, buf->u.var.type->dtype, NULL, 0, args->span);
    IrExpr *data = el_call_node(E, IR_OP_BUFFER_DATA, IR_HANDLE, &buf, 1, args->span);
    IrExpr *a[5] = {ta, data, eoff, extent, ir_int(E->a, IR_INT32, mask, args->span)};
    return sv_expr(el_call_node(E, IR_OP_ACCESS_PTR, IR_HANDLE, a, 5, args->span), args->span);
}

ScVal el_buffer_method(El *E, ScVal recv, const char *name, ScArgs *args)
{
    IrExpr *buf = recv.u.e;
    args->fname = tx_arena_printf(E->a, "%s.%s", buf->u.var.name, name);
    ScBound b;
    if (el_is_view_method(name))
        return el_view_method(E, buf, name, args);
    if (!strcmp(name, "access_ptr"))
        return method_access_ptr(E, buf, args);
    if (!strcmp(name, "scope")) {
        if (!el_bind_args(E, args, "", &b))
            return sv_error();
        return sv_str(E, buf->u.var.type->scope, args->span);
    }
    if (!strcmp(name, "ptr_to")) {
        if (!el_bind_args(E, args, "indices", &b))
            return sv_error();
        int n;
        IrExpr **idx = index_list(E, &b.v[0], &n);
        if (!idx || !check_rank(E, buf, n, args->span, false))
            return sv_error();
        IrExpr *load = el_load(E, buf, idx, n, args->span);
        return sv_expr(el_call_node(E, IR_OP_ADDRESS_OF, IR_HANDLE, &load, 1, args->span),
                       args->span);
    }
    if (!strcmp(name, "elem_offset_of") || !strcmp(name, "byte_offset_of"))
        return method_offset_of(E, buf, name[0] == 'b', args);
    if (!strcmp(name, "vload") || !strcmp(name, "vstore")) {
        bool store = name[1] == 's';
        if (!el_bind_args(E, args, store ? "indices, value, predicate=" : "indices, dtype=, predicate=",
                          &b))
            return sv_error();
        int n;
        IrExpr **idx = index_list(E, &b.v[0], &n);
        if (!idx || !check_rank(E, buf, n, args->span, false))
            return sv_error();
        /* The lanes of the accessed vector (vload's dtype, vstore's value) make
         * the last index a Ramp. */
        int lanes = 1;
        IrDType dt;
        if (!store && sv_given(&b.v[1]) && b.v[1].kind != SV_NONE) {
            if (!el_dtype_of(E, &b.v[1], &dt, "dtype"))
                return sv_error();
            lanes = dt.lanes / (buf->u.var.type->dtype.lanes ? buf->u.var.type->dtype.lanes : 1);
        } else if (store && (b.v[1].kind == SV_EXPR)) {
            lanes = b.v[1].u.e->dtype.lanes / (buf->u.var.type->dtype.lanes ? buf->u.var.type->dtype.lanes : 1);
        }
        if (lanes > 1 && n > 0 && idx[n - 1]->dtype.lanes == 1) {
            IrExpr *base = idx[n - 1];
            IrExpr *r = ir_node(E->a, IR_E_RAMP, ir_dtype_with_lanes(base->dtype, lanes), base->span);
            r->u.op.a = base, r->u.op.b = ar_make_int(E->a, base->dtype, 1, base->span);
            r->u.op.lanes = lanes;
            idx[n - 1] = r;
        }
        const ScVal *pv = &b.v[2];
        IrExpr *pred = sv_given(pv) && pv->kind != SV_NONE ? el_prim(E, pv, "predicate") : NULL;
        if (sv_given(pv) && pv->kind != SV_NONE && !pred)
            return sv_error();
        if (store) {
            el_store(E, buf, idx, n, &b.v[1], pred, args->span);
            return sv_none(args->span);
        }
        IrExpr *load = el_load(E, buf, idx, n, args->span);
        load->u.access.predicate = pred;
        return sv_expr(load, args->span);
    }
    el_error(E, TX_E_UNKNOWN_ATTRIBUTE, args->span, "buffer method '%s' is not supported", name);
    return sv_error();
}
