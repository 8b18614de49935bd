/* The elaborator's expression half: evaluation of every expression form to a
 * value (ScVal), Python semantics on compile-time values, the reference's
 * operator rules on PrimExprs (fold.c), name lookup with near-match
 * suggestions, attributes, subscripts, calls (argument binding, dtype
 * constructors, macros, Module.f) and the conversions builtins rely on. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "elab.h"
#include "../arith/arith.h"

/* ---------------------------------------------------------------- values */

ScVal sv_error(void) { return (ScVal){.kind = SV_ERROR}; }
ScVal sv_none(TxSpan sp) { return (ScVal){.kind = SV_NONE, .span = sp}; }

ScVal sv_int(int64_t v, TxSpan sp)
{
    ScVal r = {.kind = SV_INT, .span = sp};
    r.u.i = v;
    return r;
}

ScVal sv_bool(bool b, TxSpan sp)
{
    ScVal r = {.kind = SV_BOOL, .span = sp};
    r.u.b = b;
    return r;
}

static ScVal sv_float(double f, TxSpan sp)
{
    ScVal r = {.kind = SV_FLOAT, .span = sp};
    r.u.f = f;
    return r;
}

ScVal sv_str(El *E, const char *s, TxSpan sp)
{
    (void)E;
    ScVal r = {.kind = SV_STR, .span = sp};
    r.u.str.s = s, r.u.str.n = (uint32_t)strlen(s);
    return r;
}

ScVal sv_expr(IrExpr *e, TxSpan sp)
{
    ScVal r = {.kind = ir_is_buffer(e) ? SV_BUFFER : SV_EXPR, .span = sp};
    r.u.e = e;
    return r;
}

ScVal sv_ns(const char *path, TxSpan sp)
{
    ScVal r = {.kind = SV_NS, .span = sp};
    r.u.path = path;
    return r;
}

static ScVal sv_seq(El *E, ScValKind k, int n, TxSpan sp)
{
    ScVal r = {.kind = k, .span = sp};
    r.u.seq.n = n;
    r.u.seq.items = TX_NEW_ARRAY(E->a, ScVal, n ? n : 1);
    return r;
}

bool sv_is_python(const ScVal *v)
{
    switch (v->kind) {
    case SV_NONE: case SV_BOOL: case SV_INT: case SV_FLOAT: case SV_STR: return true;
    case SV_TUPLE: case SV_LIST:
        for (int i = 0; i < v->u.seq.n; i++)
            if (!sv_is_python(&v->u.seq.items[i]))
                return false;
        return true;
    default: return false;
    }
}

const char *sv_kind_name(const ScVal *v)
{
    static const char *const names[SV_COUNT + 1] = {
        "an erroneous value", "None", "a bool", "an int", "a float", "a string", "an expression",
        "a buffer", "a buffer region", "a tuple", "a list", "a dict", "a dtype", "a type",
        "T.let", "a local buffer annotation", "a namespace", "a method", "a layout",
        "a layout spec", "an axis offset", "an axis", "a function", "a macro", "a lambda",
        "a slice", "a loop range", "a frame", "T.ptx.pred(...)", "a view indexer", "an SMEM pool",
        "an IR object", "a language helper", "nothing"};
    if (v->kind == SV_NS)
        return "a namespace";
    if (v->kind == SV_POOL)
        return el_pool_kind_name(v->u.pool);
    if (v->kind == SV_LANG)
        return el_lang_kind_name(v->u.lang);
    return names[v->kind <= SV_COUNT ? v->kind : SV_COUNT];
}

bool sv_truth(const ScVal *v, bool *out)
{
    switch (v->kind) {
    case SV_NONE: *out = false; return true;
    case SV_BOOL: *out = v->u.b; return true;
    case SV_INT: *out = v->u.i != 0; return true;
    case SV_FLOAT: *out = v->u.f != 0; return true;
    case SV_STR: *out = v->u.str.n != 0; return true;
    case SV_TUPLE: case SV_LIST: *out = v->u.seq.n != 0; return true;
    case SV_DTYPE: *out = true; return true;
    default: return false;
    }
}

/* ---------------------------------------------------------------- conversions */

static IrExpr *int_imm(El *E, const ScVal *v, IrDType t)
{
    if (!ar_int_fits(t, v->u.i, v->big)) {
        char buf[IR_DTYPE_STR_MAX];
        if (v->big)
            el_error(E, TX_E_VALUE, v->span, "%llu does not fit in %s", (unsigned long long)v->u.i,
                     ir_dtype_str(t, buf));
        else
            el_error(E, TX_E_VALUE, v->span, "%lld does not fit in %s", (long long)v->u.i,
                     ir_dtype_str(t, buf));
        return NULL;
    }
    return ar_make_int(E->a, t, v->u.i, v->span);
}

IrExpr *el_load(El *E, IrExpr *buffer, IrExpr **indices, int n, TxSpan sp)
{
    IrDType t = buffer->u.var.type->dtype;
    for (int i = 0; i < n; i++)
        if (indices[i]->dtype.lanes > 1)
            t = ir_dtype_with_lanes(t, indices[i]->dtype.lanes * t.lanes);
    IrExpr *e = ir_node(E->a, IR_E_LOAD, t, sp);
    e->u.access.buffer = buffer, e->u.access.n = n, e->u.access.indices = indices;
    return e;
}

IrExpr *el_region(El *E, IrExpr *buffer, IrExpr **mins, IrExpr **extents, int n, TxSpan sp)
{
    IrExpr *e = ir_node(E->a, IR_E_REGION, IR_VOID, sp);
    e->u.access.buffer = buffer, e->u.access.n = n;
    e->u.access.indices = mins, e->u.access.extents = extents;
    return e;
}

IrExpr *el_full_region(El *E, IrExpr *buffer, TxSpan sp)
{
    const IrBufferType *bt = ir_buf(buffer);
    IrExpr **mins = TX_NEW_ARRAY(E->a, IrExpr *, bt->ndim ? bt->ndim : 1);
    for (int i = 0; i < bt->ndim; i++)
        mins[i] = ir_int(E->a, bt->shape[i]->dtype.code == IR_DT_INT ? bt->shape[i]->dtype : IR_INT32,
                         0, sp);
    return el_region(E, buffer, mins, bt->shape, bt->ndim, sp);
}

static IrExpr *scalar_load(El *E, IrExpr *buffer, TxSpan sp)
{
    IrExpr **idx = TX_NEW_ARRAY(E->a, IrExpr *, 1);
    idx[0] = ir_int(E->a, IR_INT32, 0, sp);
    return el_load(E, buffer, idx, 1, sp);
}

/* A buffer of shape (1,) given where a value is needed (`T.Cast("uint32", lens)` with
 * `lens = L.view(1)`) reads its element, as the reference prints such a load bare. */
static bool one_element(const IrExpr *buffer)
{
    const IrBufferType *bt = ir_buf(buffer);
    int64_t n;
    return bt->ndim == 1 && ar_const_int(bt->shape[0], &n) && n == 1;
}

/* A region where a value is needed: the load of its elements, as the reference converts a
 * BufferRegion to a PrimExpr (BufferRegionNode::ToPrimExpr): a dimension of extent 1 is
 * indexed by its start, one of constant extent n by Ramp(start, 1, n); only the last
 * dimension may hold more than one element (a load has one vector index, the last). */
static IrExpr *region_value(El *E, const ScVal *v, const char *what)
{
    const IrExpr *r = v->u.e;
    int n = r->u.access.n;
    IrExpr **idx = TX_NEW_ARRAY(E->a, IrExpr *, n ? n : 1);
    for (int i = 0; i < n; i++) {
        IrExpr *lo = r->u.access.indices[i];
        int64_t ext;
        if (!ar_const_int(r->u.access.extents[i], &ext)) {
            el_error(E, TX_E_BUFFER, v->span,
                     "%s is a region of non-constant extent; a region used as a value "
                     "needs constant extents", what);
            return NULL;
        }
        if (ext < 1 || ext > IR_MAX_LANES) {
            el_error(E, TX_E_BUFFER, v->span,
                     "%s is a region of %lld elements in dimension %d; a region used "
                     "as a value holds 1 to %d", what, (long long)ext, i, IR_MAX_LANES);
            return NULL;
        }
        if (ext != 1 && i < n - 1) {
            el_error(E, TX_E_BUFFER, v->span,
                     "%s is a region with more than one element in dimension %d; a "
                     "region used as a value may span only its last dimension", what, i);
            return NULL;
        }
        idx[i] = lo;
        if (ext != 1) {
            idx[i] = ir_node(E->a, IR_E_RAMP, ir_dtype_with_lanes(lo->dtype, (int)ext), v->span);
            idx[i]->u.op.a = lo, idx[i]->u.op.b = ar_make_int(E->a, lo->dtype, 1, v->span);
            idx[i]->u.op.lanes = (int)ext;
        }
    }
    return el_load(E, r->u.access.buffer, idx, n, v->span);
}

IrExpr *el_prim(El *E, const ScVal *v, const char *what)
{
    switch (v->kind) {
    case SV_ERROR: return NULL;
    case SV_BOOL: return ir_int(E->a, IR_BOOL, v->u.b, v->span);
    case SV_INT:
        if (v->big)
            return int_imm(E, v, IR_UINT64);
        return ir_int(E->a, (v->u.i > INT32_MAX || v->u.i < INT32_MIN) ? IR_INT64 : IR_INT32,
                      v->u.i, v->span);
    case SV_FLOAT: return ir_float(E->a, IR_FLOAT32, v->u.f, v->span);
    case SV_STR: return ir_str(E->a, v->u.str.s, v->span);
    case SV_EXPR:
        if (v->u.e->dtype.code == IR_DT_VOID && v->u.e->kind != IR_E_CALL)
            break;
        return v->u.e;
    case SV_BUFFER:
        if (v->decay || one_element(v->u.e))
            return scalar_load(E, v->u.e, v->span);
        break;
    case SV_REGION: return region_value(E, v, what);
    default: break;
    }
    el_error(E, TX_E_TYPE, v->span, "%s must be a PrimExpr, not %s", what, sv_kind_name(v));
    return NULL;
}

/* A float given for an integer dtype (`T.int32(2.5)`) truncates toward zero,
 * as the FFI's conversion does; it must fit. */
static IrExpr *float_as_int(El *E, const ScVal *v, IrDType t)
{
    double x = trunc(v->u.f);
    if (!(x >= -0x1p63 && x < 0x1p63)) {
        char buf[IR_DTYPE_STR_MAX];
        el_error(E, TX_E_VALUE, v->span, "%g does not fit in %s", v->u.f, ir_dtype_str(t, buf));
        return NULL;
    }
    ScVal i = sv_int((int64_t)x, v->span);
    return int_imm(E, &i, t);
}

IrExpr *el_prim_as(El *E, const ScVal *v, IrDType t, const char *what)
{
    /* a number typed as a pointer has no printed form that reads back */
    if (t.code == IR_DT_HANDLE && (v->kind == SV_INT || v->kind == SV_BOOL || v->kind == SV_FLOAT)) {
        el_error(E, TX_E_TYPE, v->span,
                 "%s must be a pointer (handle), not a number; for an address: "
                 "T.reinterpret(\"handle\", T.uint64(x))", what);
        return NULL;
    }
    switch (v->kind) {
    case SV_INT: return int_imm(E, v, t);
    case SV_BOOL:
        return t.code == IR_DT_BOOL ? ir_int(E->a, t, v->u.b, v->span)
                                    : ar_make_int(E->a, t, v->u.b, v->span);
    case SV_FLOAT:
        return ir_dtype_is_float(t) ? ar_make_float(E->a, t, v->u.f, v->span)
                                    : float_as_int(E, v, t);
    default: return el_prim(E, v, what);
    }
}

static int kwarg_key_cmp(const void *a, const void *b)
{
    return strcmp(((const IrKwarg *)a)->key, ((const IrKwarg *)b)->key);
}

IrExpr *el_pod(El *E, const ScVal *v, const char *what)
{
    IrExpr *e;
    switch (v->kind) {
    case SV_ERROR: return NULL;
    case SV_NONE: return ir_node(E->a, IR_E_NONE, IR_VOID, v->span);
    case SV_BOOL:
        e = ir_node(E->a, IR_E_PYBOOL, IR_VOID, v->span);
        e->u.int_val = v->u.b;
        return e;
    case SV_INT:
        e = ir_node(E->a, IR_E_PYINT, IR_VOID, v->span);
        e->u.int_val = v->u.i;
        return e;
    case SV_FLOAT: return ir_float(E->a, IR_FLOAT32, v->u.f, v->span);
    case SV_STR: return ir_str(E->a, v->u.str.s, v->span);
    case SV_EXPR: case SV_REGION: case SV_OBJECT: return v->u.e;
    case SV_LAMBDA: return el_lambda(E, v, IR_INT32, NULL, 0, false, what);
    case SV_BUFFER: return v->decay ? scalar_load(E, v->u.e, v->span) : v->u.e;
    case SV_DTYPE:
        return ir_node(E->a, IR_E_DTYPE, v->u.dt, v->span);
    case SV_LAYOUT:
        e = ir_node(E->a, IR_E_LAYOUT, IR_VOID, v->span);
        e->u.layout = v->u.layout;
        return e;
    case SV_TUPLE: case SV_LIST: {
        e = ir_node(E->a, IR_E_LIST, IR_VOID, v->span);
        e->u.list.n = v->u.seq.n;
        e->u.list.items = TX_NEW_ARRAY(E->a, IrExpr *, v->u.seq.n ? v->u.seq.n : 1);
        for (int i = 0; i < v->u.seq.n; i++)
            if (!(e->u.list.items[i] = el_pod(E, &v->u.seq.items[i], what)))
                return NULL;
        return e;
    }
    case SV_DICT: {
        e = ir_node(E->a, IR_E_DICT, IR_VOID, v->span);
        IrKwarg *kw = TX_NEW_ARRAY(E->a, IrKwarg, v->u.dict.n ? v->u.dict.n : 1);
        int n = 0;
        for (int i = 0; i < v->u.dict.n; i++) {
            const ScVal *k = &v->u.dict.keys[i];
            if (k->kind != SV_STR) {
                el_error(E, TX_E_TYPE, k->span, "the keys of %s must be strings, not %s", what,
                         sv_kind_name(k));
                return NULL;
            }
            IrExpr *val = el_pod(E, &v->u.dict.vals[i], what);
            if (!val)
                return NULL;
            int j = 0; /* a repeated key keeps its last value, as in Python */
            while (j < n && strcmp(kw[j].key, k->u.str.s))
                j++;
            kw[j] = (IrKwarg){.key = k->u.str.s, .value = val};
            n += j == n;
        }
        /* A map has no order: kept sorted by key, as it prints. */
        qsort(kw, (size_t)n, sizeof *kw, kwarg_key_cmp);
        e->u.list.n = n, e->u.list.kwargs = kw;
        return e;
    }
    default:
        el_error(E, TX_E_TYPE, v->span, "%s cannot hold %s", what, sv_kind_name(v));
        return NULL;
    }
}

bool el_int_const(El *E, const ScVal *v, int64_t *out, const char *what)
{
    if (v->kind == SV_INT && !v->big) {
        *out = v->u.i;
        return true;
    }
    if (v->kind == SV_BOOL) {
        *out = v->u.b;
        return true;
    }
    if (v->kind == SV_EXPR && v->u.e->kind == IR_E_INT) {
        *out = v->u.e->u.int_val;
        return true;
    }
    if (v->kind != SV_ERROR)
        el_error(E, TX_E_TYPE, v->span, "%s must be a constant integer, not %s", what,
                 sv_kind_name(v));
    return false;
}

const char *el_str_const(El *E, const ScVal *v, const char *what)
{
    if (v->kind == SV_STR)
        return v->u.str.s;
    if (v->kind != SV_ERROR)
        el_error(E, TX_E_TYPE, v->span, "%s must be a string, not %s", what, sv_kind_name(v));
    return NULL;
}

bool el_dtype_of(El *E, const ScVal *v, IrDType *out, const char *what)
{
    if (v->kind == SV_DTYPE) {
        *out = v->u.dt;
        return true;
    }
    if (v->kind == SV_STR) {
        if (ir_dtype_parse(v->u.str.s, v->u.str.n, out))
            return true;
        const char *names[64];
        int n = ir_dtype_names(names, 64);
        el_error(E, TX_E_UNKNOWN_DTYPE, v->span, "unknown dtype '%s'%s", v->u.str.s,
                 el_suggest(E, v->u.str.s, names, n));
        return false;
    }
    if (v->kind == SV_TYPE && v->u.ty->kind == IR_TY_PTR) {
        *out = IR_HANDLE;
        return true;
    }
    if (v->kind != SV_ERROR)
        el_error(E, TX_E_TYPE, v->span, "%s must be a dtype, not %s", what, sv_kind_name(v));
    return false;
}

IrType *el_pointer_type(El *E, const IrExpr *e)
{
    if (e->kind == IR_E_VAR && e->u.var.type->kind == IR_TY_PTR)
        return e->u.var.type;
    if (e->kind == IR_E_CALL && e->u.call.ptr_type)
        return e->u.call.ptr_type;
    if (e->kind == IR_E_CALL && e->u.call.nargs == 1) {
        const IrExpr *arg = e->u.call.args[0];
        if (e->u.call.op == IR_OP_BUFFER_DATA && ir_is_buffer(arg))
            return ir_ptr_type(E->a, arg->u.var.type->dtype, arg->u.var.type->scope);
        if (e->u.call.op == IR_OP_ADDRESS_OF && arg->kind == IR_E_LOAD)
            return ir_ptr_type(E->a, arg->dtype, arg->u.access.buffer->u.var.type->scope);
    }
    if (e->dtype.code == IR_DT_HANDLE && e->kind != IR_E_STR)
        return ir_ptr_type(E->a, IR_VOID, "global");
    return NULL;
}

/* ---------------------------------------------------------------- names */

static const char *const root_names[] = {"T", "Tx", "I", "Axis", "range", "len", "int",
                                         "float", "str", "abs"};

static void collect_names(El *E, const char **out, int *n, int max)
{
    for (ScScope *s = E->scope; s; s = s->parent)
        for (ScBinding *b = s->head; b && *n < max; b = b->next)
            out[(*n)++] = b->name;
    for (size_t i = 0; i < TX_ARRAY_LEN(root_names) && *n < max; i++)
        out[(*n)++] = root_names[i];
}

/* A name defined by a quoted signature shape ("n"): int32, or the dtype
 * el_sig_scalar_dtype finds for it. */
static ScVal define_quoted_name(El *E, const Ast *x)
{
    IrDType dt = IR_INT32;
    el_sig_scalar_dtype(E, x->name, &dt);
    IrExpr *var = ir_var(E->a, x->name, el_prim_type(E, dt), x->span);
    ScVal v = sv_expr(var, x->span);
    el_bind(E, x->name, v, BIND_SIGVAR, x->span);
    return v;
}

static ScVal eval_name(El *E, const Ast *x)
{
    ScVal *v = el_lookup(E, x->name, NULL);
    if (v) {
        ScVal r = *v;
        r.span = x->span;
        r.fresh = false;
        return r;
    }
    for (size_t i = 0; i < TX_ARRAY_LEN(root_names); i++)
        if (!strcmp(x->name, root_names[i])) {
            const char *path = !strcmp(x->name, "Tx") ? "T" : root_names[i];
            if (i >= 5)
                path = tx_arena_printf(E->a, "py.%s", root_names[i]);
            return sv_ns(path, x->span);
        }
    if (E->quoted)
        return define_quoted_name(E, x);
    const char *names[512];
    int n = 0;
    collect_names(E, names, &n, 512);
    const char *hint = el_lang_hint(E, x->name);
    /* The reference prints a string it cannot write inline (one with a newline)
     * as metadata["ir.StringImm"][i] and leaves the table out unless asked. */
    if (!*hint && !strcmp(x->name, "metadata"))
        hint = "; the reference's printer writes some strings (one with a newline) as "
               "metadata[\"ir.StringImm\"][i], a table it prints only with show_meta=True: "
               "write the string in its place";
    el_error(E, TX_E_UNKNOWN_NAME, x->span, "name '%s' is not defined%s", x->name,
             *hint ? hint : el_suggest(E, x->name, names, n));
    return sv_error();
}

/* ---------------------------------------------------------------- attributes */

static const char *const dtype_aliases[][2] = {
    {"f16", "float16"}, {"f32", "float32"}, {"f64", "float64"}, {"bf16", "bfloat16"},
    {"i8", "int8"},     {"i16", "int16"},   {"i32", "int32"},   {"i64", "int64"},
    {"u8", "uint8"},    {"u16", "uint16"},  {"u32", "uint32"},  {"u64", "uint64"},
};

/* `T.<name>` as a dtype (exact canonical spelling or an alias). */
static bool t_dtype(const char *name, IrDType *out)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(dtype_aliases); i++)
        if (!strcmp(name, dtype_aliases[i][0]))
            name = dtype_aliases[i][1];
    if (!ir_dtype_parse(name, strlen(name), out))
        return false;
    char buf[IR_DTYPE_STR_MAX];
    return !strcmp(ir_dtype_str(*out, buf), name);
}

static ScVal module_function(El *E, const char *name, TxSpan sp)
{
    ScBinding *b = el_scope_find(&E->func_names, name);
    if (b) {
        ScVal v = b->val;
        v.span = sp;
        return v;
    }
    const char **names = TX_NEW_ARRAY(E->a, const char *, E->nfuncs ? E->nfuncs : 1);
    for (int i = 0; i < E->nfuncs; i++)
        names[i] = E->funcs[i].name;
    el_error(E, TX_E_UNKNOWN_ATTRIBUTE, sp, "module '%s' has no function '%s'%s",
             E->class_name ? E->class_name : "Module",
             name, el_suggest(E, name, names, E->nfuncs));
    return sv_error();
}

/* a + sep + b in the arena (namespace paths are built on every `T.x`). */
static const char *path_join(El *E, const char *a, char sep, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = tx_arena_alloc(E->a, la + lb + 2);
    memcpy(s, a, la);
    s[la] = sep;
    memcpy(s + la + 1, b, lb);
    return s;
}

static ScVal attr_of_ns(El *E, const char *path, const char *name, TxSpan sp)
{
    if (!strcmp(path, "T")) {
        IrDType dt;
        if (t_dtype(name, &dt)) {
            ScVal v = {.kind = SV_DTYPE, .span = sp};
            v.u.dt = dt;
            return v;
        }
        if (!strcmp(name, "let")) {
            ScVal v = {.kind = SV_LET, .span = sp};
            return v;
        }
    }
    if (!strcmp(path, "Axis"))
        return el_axis(E, name, sp);
    if (!strcmp(path, "<module>"))
        return module_function(E, name, sp);
    return sv_ns(path_join(E, path, '.', name), sp);
}

ScVal el_method_attr(El *E, ScVal recv, const char *const *methods, int n, const char *name,
                     TxSpan sp, const char *what)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(name, methods[i])) {
            ScVal m = {.kind = SV_METHOD, .span = sp};
            m.u.method.recv = TX_NEW(E->a, ScVal);
            *m.u.method.recv = recv;
            m.u.method.name = methods[i];
            return m;
        }
    el_error(E, TX_E_UNKNOWN_ATTRIBUTE, sp, "%s has no attribute '%s'%s", what, name,
             el_suggest(E, name, methods, n));
    return sv_error();
}

static ScVal eval_attr(El *E, const Ast *x)
{
    ScVal obj = el_eval(E, x->a);
    TxSpan sp = x->span;
    switch (obj.kind) {
    case SV_ERROR: return obj;
    case SV_NS: return attr_of_ns(E, obj.u.path, x->name, sp);
    case SV_BUFFER: return el_buffer_attr(E, obj, x->name, sp);
    case SV_POOL: return el_pool_attr(E, obj, x->name, sp);
    case SV_LANG: return el_lang_attr(E, obj, x->name, sp);
    case SV_LAYOUT: return el_layout_attr(E, obj, x->name, sp);
    case SV_EXPR:
        if (!strcmp(x->name, "ty") && obj.u.e->kind == IR_E_VAR) {
            ScVal v = {.kind = SV_TYPE, .span = sp};
            v.u.ty = obj.u.e->u.var.type;
            return v;
        }
        if (!strcmp(x->name, "dtype")) {
            char buf[IR_DTYPE_STR_MAX];
            return sv_str(E, tx_arena_strdup(E->a, ir_dtype_str(obj.u.e->dtype, buf)), sp);
        }
        break;
    default: break;
    }
    el_error(E, TX_E_UNKNOWN_ATTRIBUTE, x->name_span.src ? x->name_span : sp,
             "%s has no attribute '%s'",
             sv_kind_name(&obj), x->name);
    return sv_error();
}

/* ---------------------------------------------------------------- subscripts */

static ScVal eval_index_python(El *E, ScVal obj, const Ast *index, TxSpan sp)
{
    ScVal iv = el_eval(E, index);
    int64_t i;
    if (!el_int_const(E, &iv, &i, "an index"))
        return sv_error();
    if (i < 0)
        i += obj.u.seq.n;
    if (i < 0 || i >= obj.u.seq.n) {
        el_error(E, TX_E_VALUE, sp, "index %lld is out of range for %s of length %d", (long long)i,
                 sv_kind_name(&obj), obj.u.seq.n);
        return sv_error();
    }
    ScVal r = obj.u.seq.items[i];
    r.span = sp;
    return r;
}

static ScVal eval_subscript(El *E, const Ast *x)
{
    ScVal obj = el_eval(E, x->a);
    TxSpan sp = x->span;
    switch (obj.kind) {
    case SV_ERROR: return obj;
    case SV_BUFFER: return el_subscript_buffer(E, obj, x->b, sp);
    case SV_METHOD:
        if (!strcmp(obj.u.method.name, "sub"))
            return el_view_subscript(E, obj, x->b, sp);
        break;
    case SV_INDEXER: return el_view_subscript(E, obj, x->b, sp);
    case SV_TUPLE: case SV_LIST: return eval_index_python(E, obj, x->b, sp);
    case SV_LET: {
        ScVal t = el_eval(E, x->b);
        ScVal v = {.kind = SV_LET, .span = sp};
        if (t.kind == SV_DTYPE)
            v.u.ty = t.u.dt.code == IR_DT_HANDLE ? ir_ptr_type(E->a, IR_VOID, "global")
                                                 : el_prim_type(E, t.u.dt);
        else if (t.kind == SV_EXPR && t.fresh && t.u.e->kind == IR_E_VAR)
            v.u.ty = t.u.e->u.var.type;
        else if (t.kind == SV_TYPE)
            v.u.ty = t.u.ty;
        else {
            if (t.kind != SV_ERROR)
                el_error(E, TX_E_ARGUMENTS, x->b->span, "T.let[...] takes a type, not %s",
                         sv_kind_name(&t));
            return sv_error();
        }
        return v;
    }
    case SV_DTYPE: {
        const Ast *b = x->b;
        int n = b->kind == A_TUPLE ? b->items.n : 1;
        ScVal v = {.kind = SV_LOCALBUF, .span = sp};
        v.u.localbuf.dt = obj.u.dt, v.u.localbuf.n = n;
        v.u.localbuf.dims = TX_NEW_ARRAY(E->a, ScVal, n);
        for (int i = 0; i < n; i++)
            if ((v.u.localbuf.dims[i] = el_eval_value(E, b->kind == A_TUPLE ? b->items.items[i] : b))
                    .kind == SV_ERROR)
                return sv_error();
        return v;
    }
    case SV_NS:
        if (!strcmp(obj.u.path, "T.S") || !strcmp(obj.u.path, "T.R"))
            return el_layout_subscript(E, obj.u.path + 2, x->b, sp);
        if (!strcmp(obj.u.path, "T.ptx")) {
            ScVal s = el_eval(E, x->b);
            const char *name = el_str_const(E, &s, "a T.ptx[...] instruction");
            if (!name)
                return sv_error();
            ScVal v = sv_ns(tx_arena_printf(E->a, "T.ptx[%s", name), sp);
            v.span = x->b->span;
            return v;
        }
        break;
    default: break;
    }
    el_error(E, TX_E_TYPE, sp, "%s cannot be subscripted", sv_kind_name(&obj));
    return sv_error();
}

/* ---------------------------------------------------------------- operators */

static bool is_num(const ScVal *v)
{
    return (v->kind == SV_INT && !v->big) || v->kind == SV_BOOL || v->kind == SV_FLOAT;
}

static double num_f(const ScVal *v)
{
    return v->kind == SV_FLOAT ? v->u.f : v->kind == SV_BOOL ? (double)v->u.b : (double)v->u.i;
}

static int64_t num_i(const ScVal *v) { return v->kind == SV_BOOL ? v->u.b : v->u.i; }

/* Python's float // and % (CPython's float_divmod): the remainder is fmod's,
 * exact, moved to the divisor's sign; the quotient is (x - mod) / y rounded
 * to an integer. floor(x / y) rounds x / y first: 1 // 0.1 is 9.0, not
 * 10.0, and 1e20 % 3.0 is 1.0, not 0.0. */
static double py_float_divmod(double x, double y, double *mod)
{
    double m = fmod(x, y), div = (x - m) / y, q;
    if (m != 0 && ((y < 0) != (m < 0))) {
        m += y;
        div -= 1.0;
    } else if (m == 0) {
        m = copysign(0.0, y);
    }
    if (div != 0) {
        q = floor(div);
        if (div - q > 0.5)
            q += 1.0;
    } else {
        q = copysign(0.0, x / y);
    }
    *mod = m;
    return q;
}

/* x ** y for y >= 0; false when the result overflows int64. */
static bool int_pow(int64_t x, int64_t y, int64_t *out)
{
    int64_t r = 1;
    for (; y > 0; y >>= 1) {
        if ((y & 1) && __builtin_mul_overflow(r, x, &r))
            return false;
        if (y > 1 && __builtin_mul_overflow(x, x, &x))
            return false;
    }
    *out = r;
    return true;
}

/* Python's int arithmetic, checked: a result outside int64 is an error, as a
 * literal outside a dtype is. false with *r untouched when op is not one of these. */
static bool int_arith(El *E, int op, int64_t x, int64_t y, TxSpan sp, ScVal *r)
{
    int64_t v;
    bool ok;
    switch (op) {
    case SC_TK_PLUS: ok = !__builtin_add_overflow(x, y, &v); break;
    case SC_TK_MINUS: ok = !__builtin_sub_overflow(x, y, &v); break;
    case SC_TK_STAR: ok = !__builtin_mul_overflow(x, y, &v); break;
    case SC_TK_DOUBLESTAR:
        if (y < 0)
            return false;
        ok = int_pow(x, y, &v);
        break;
    case SC_TK_DOUBLESLASH:
        if (y == 0)
            return false;
        ok = !(x == INT64_MIN && y == -1);
        v = ok ? ar_floordiv64(x, y) : 0;
        break;
    default: return false;
    }
    if (!ok) {
        el_error(E, TX_E_VALUE, sp, "integer overflow: %lld %s %lld does not fit in int64",
                 (long long)x, sc_tok_kind_name(op), (long long)y);
        *r = sv_error();
        return true;
    }
    *r = sv_int(v, sp);
    return true;
}

static ScVal python_binop(El *E, int op, ScVal a, ScVal b, TxSpan sp)
{
    bool flt = a.kind == SV_FLOAT || b.kind == SV_FLOAT;
    int64_t x = num_i(&a), y = num_i(&b);
    double fx = num_f(&a), fy = num_f(&b), fm;
    ScVal r;
    if (!flt && int_arith(E, op, x, y, sp, &r))
        return r;
    switch (op) {
    case SC_TK_PLUS: return sv_float(fx + fy, sp);
    case SC_TK_MINUS: return sv_float(fx - fy, sp);
    case SC_TK_STAR: return sv_float(fx * fy, sp);
    case SC_TK_SLASH:
        if (fy == 0)
            break;
        return sv_float(fx / fy, sp);
    case SC_TK_DOUBLESLASH:
        if (fy == 0)
            break;
        return sv_float(py_float_divmod(fx, fy, &fm), sp);
    case SC_TK_PERCENT:
        if (fy == 0)
            break;
        if (flt)
            return py_float_divmod(fx, fy, &fm), sv_float(fm, sp);
        if (y == -1) /* INT64_MIN % -1 is undefined in C */
            return sv_int(0, sp);
        return sv_int(ar_floormod64(x, y), sp);
    case SC_TK_DOUBLESTAR:
        return sv_float(pow(fx, fy), sp);
    case SC_TK_AMPER: case SC_TK_VBAR: case SC_TK_CIRCUMFLEX: case SC_TK_LEFTSHIFT:
    case SC_TK_RIGHTSHIFT:
        if (flt) {
            el_error(E, TX_E_TYPE, sp, "'%s' needs integers", sc_tok_kind_name(op));
            return sv_error();
        }
        if (op == SC_TK_AMPER) return sv_int(x & y, sp);
        if (op == SC_TK_VBAR) return sv_int(x | y, sp);
        if (op == SC_TK_CIRCUMFLEX) return sv_int(x ^ y, sp);
        if (y < 0 || y > 63) {
            el_error(E, TX_E_VALUE, sp, "shift count %lld is out of range", (long long)y);
            return sv_error();
        }
        if (op == SC_TK_RIGHTSHIFT)
            return sv_int(x >> y, sp);
        int64_t shifted = (int64_t)((uint64_t)x << y); /* unsigned: no undefined overflow */
        if ((shifted >> y) != x) {
            el_error(E, TX_E_VALUE, sp, "integer overflow: %lld << %lld does not fit in int64",
                     (long long)x, (long long)y);
            return sv_error();
        }
        return sv_int(shifted, sp);
    default:
        el_error(E, TX_E_UNSUPPORTED, sp, "'%s' is not supported on numbers", sc_tok_kind_name(op));
        return sv_error();
    }
    el_error(E, TX_E_VALUE, sp, "division by zero");
    return sv_error();
}

/* The largest string and tuple or list a constant expression may build, and
 * the most bytes all of a module's concatenations may build: sizes stay far
 * from overflow and memory stays bounded. */
#define SC_MAX_STR_BYTES ((uint64_t)64 << 20)
#define SC_MAX_SEQ_ITEMS ((uint64_t)1 << 20)
#define SC_MAX_BUILT_BYTES ((uint64_t)256 << 20)

static ScVal concat(El *E, ScVal a, ScVal b, TxSpan sp)
{
    bool str = a.kind == SV_STR;
    uint64_t n = str ? (uint64_t)a.u.str.n + b.u.str.n : (uint64_t)a.u.seq.n + (uint64_t)b.u.seq.n;
    if (n > (str ? SC_MAX_STR_BYTES : SC_MAX_SEQ_ITEMS)) {
        el_error(E, TX_E_VALUE, sp, "'+' would build a %s of %llu %s (the limit is %llu)",
                 str ? "string" : a.kind == SV_TUPLE ? "tuple" : "list", (unsigned long long)n,
                 str ? "bytes" : "items",
                 (unsigned long long)(str ? SC_MAX_STR_BYTES : SC_MAX_SEQ_ITEMS));
        return sv_error();
    }
    uint64_t bytes = str ? n + 1 : n * sizeof(ScVal);
    if (E->built_bytes + bytes > SC_MAX_BUILT_BYTES) {
        el_error(E, TX_E_VALUE, sp,
                 "'+' would take the module's concatenated constants past %llu bytes",
                 (unsigned long long)SC_MAX_BUILT_BYTES);
        return sv_error();
    }
    E->built_bytes += bytes;
    if (str) {
        char *s = tx_arena_alloc(E->a, a.u.str.n + b.u.str.n + 1);
        memcpy(s, a.u.str.s, a.u.str.n);
        memcpy(s + a.u.str.n, b.u.str.s, b.u.str.n);
        ScVal r = {.kind = SV_STR, .span = sp};
        r.u.str.s = s, r.u.str.n = a.u.str.n + b.u.str.n;
        return r;
    }
    ScVal r = sv_seq(E, a.kind, a.u.seq.n + b.u.seq.n, sp);
    for (int i = 0; i < a.u.seq.n; i++)
        r.u.seq.items[i] = a.u.seq.items[i];
    for (int i = 0; i < b.u.seq.n; i++)
        r.u.seq.items[a.u.seq.n + i] = b.u.seq.items[i];
    return r;
}

static IrOp bitwise_op(int op)
{
    switch (op) {
    case SC_TK_AMPER: return IR_OP_BITWISE_AND;
    case SC_TK_VBAR: return IR_OP_BITWISE_OR;
    case SC_TK_CIRCUMFLEX: return IR_OP_BITWISE_XOR;
    case SC_TK_LEFTSHIFT: return IR_OP_SHIFT_LEFT;
    default: return IR_OP_SHIFT_RIGHT;
    }
}

IrExpr *el_call_node(El *E, IrOp op, IrDType t, IrExpr **args, int n, TxSpan sp)
{
    IrExpr *e = ir_node(E->a, IR_E_CALL, t, sp);
    e->u.call.op = op, e->u.call.nargs = n;
    e->u.call.args = TX_NEW_ARRAY(E->a, IrExpr *, n ? n : 1);
    for (int i = 0; i < n; i++)
        e->u.call.args[i] = args[i];
    return e;
}

/* a & b, a | b, a ^ b, a << b, a >> b on PrimExprs: calls of the bitwise ops,
 * a Python int taking the other operand's dtype, folded on index constants.
 * A literal above INT64_MAX is a uint64 constant here, as in arithmetic (so
 * that two of them never leave both operands without a dtype). */
static ScVal bitwise(El *E, int op, ScVal a, ScVal b, TxSpan sp)
{
    IrExpr *x = a.kind == SV_INT && !a.big ? NULL : el_prim(E, &a, "an operand");
    IrExpr *y = b.kind == SV_INT && !b.big ? NULL : el_prim(E, &b, "an operand");
    if ((!x && a.kind != SV_INT) || (!y && b.kind != SV_INT))
        return sv_error();
    if (!x)
        x = el_prim_as(E, &a, y->dtype, "an operand");
    if (!y)
        y = el_prim_as(E, &b, x->dtype, "an operand");
    const char *err = NULL;
    if (!x || !y || !ar_match_types(E->a, &x, &y, &err)) {
        if (err)
            el_error(E, TX_E_TYPE, sp, "operands of '%s': %s", sc_tok_kind_name(op), err);
        return sv_error();
    }
    if (!ir_dtype_is_int(x->dtype) && x->dtype.code != IR_DT_BOOL) {
        char buf[IR_DTYPE_STR_MAX];
        el_error(E, TX_E_TYPE, sp, "'%s' needs integer operands, not %s", sc_tok_kind_name(op),
                 ir_dtype_str(x->dtype, buf));
        return sv_error();
    }
    int64_t cx, cy;
    bool index = x->dtype.code == IR_DT_INT && (x->dtype.bits == 32 || x->dtype.bits == 64) &&
                 x->dtype.lanes == 1;
    /* the reference's shifts of an index type: a constant amount must be
     * below the width (C leaves the rest undefined), and 0 gives x */
    if (index && (op == SC_TK_LEFTSHIFT || op == SC_TK_RIGHTSHIFT) && ar_const_int(y, &cy)) {
        if (cy < 0 || cy >= x->dtype.bits) {
            char buf[IR_DTYPE_STR_MAX];
            el_error(E, TX_E_VALUE, sp, "shift amount %lld: must be non-negative and less than %d for %s",
                     (long long)cy, x->dtype.bits, ir_dtype_str(x->dtype, buf));
            return sv_error();
        }
        if (cy == 0)
            return sv_expr(x, sp);
    }
    if (ar_const_int(x, &cx) && ar_const_int(y, &cy) && index) {
        ScVal pa = sv_int(cx, sp), pb = sv_int(cy, sp);
        ScVal r = python_binop(E, op, pa, pb, sp);
        if (r.kind == SV_INT)
            return sv_expr(ar_make_int(E->a, x->dtype, r.u.i, sp), sp);
        return sv_error();
    }
    IrExpr *args[2] = {x, y};
    return sv_expr(el_call_node(E, bitwise_op(op), x->dtype, args, 2, sp), sp);
}

/* The FFI conversion of a Python scalar operand of + - * / // % and unary -;
 * a string converts to a StringImm and a pointer is a handle: not numbers. */
static IrExpr *ffi_prim(El *E, const ScVal *v, int op)
{
    IrExpr *e = el_prim(E, v, "an operand");
    if (e && (e->kind == IR_E_STR || e->dtype.code == IR_DT_HANDLE)) {
        el_error(E, TX_E_TYPE, v->span, "%s cannot be an operand of '%s'",
                 e->kind == IR_E_STR ? "a string" : "a pointer (handle)", sc_tok_kind_name(op));
        return NULL;
    }
    return e;
}

static IrExprKind arith_kind(int op)
{
    switch (op) {
    case SC_TK_PLUS: return IR_E_ADD;
    case SC_TK_MINUS: return IR_E_SUB;
    case SC_TK_STAR: return IR_E_MUL;
    case SC_TK_SLASH: return IR_E_DIV;
    case SC_TK_DOUBLESLASH: return IR_E_FLOORDIV;
    default: return IR_E_FLOORMOD;
    }
}

static ScVal prim_arith(El *E, int op, ScVal a, ScVal b, TxSpan sp)
{
    IrExpr *x = ffi_prim(E, &a, op), *y = ffi_prim(E, &b, op);
    if (!x || !y)
        return sv_error();
    char bx[IR_DTYPE_STR_MAX], by[IR_DTYPE_STR_MAX];
    if (op == SC_TK_SLASH && !ir_dtype_is_float(x->dtype) && !ir_dtype_is_float(y->dtype)) {
        el_error(E, TX_E_TYPE, sp,
                 "'/' is not defined on integers (%s / %s); use '//' for floor division or "
                 "T.truncdiv",
                 ir_dtype_str(x->dtype, bx), ir_dtype_str(y->dtype, by));
        return sv_error();
    }
    const char *err = NULL;
    IrExpr *r = ar_binary(E->a, arith_kind(op), x, y, sp, &err);
    if (!r) {
        if (err && strstr(err, "lanes"))
            el_error(E, TX_E_TYPE, sp,
                     "operands of '%s' have different numbers of lanes: %s and %s",
                     sc_tok_kind_name(op), ir_dtype_str(x->dtype, bx), ir_dtype_str(y->dtype, by));
        else if (err && strstr(err, "dtypes"))
            el_error(E, TX_E_TYPE, sp,
                     "operands of '%s' have different dtypes: %s and %s; convert one with T.Cast",
                     sc_tok_kind_name(op), ir_dtype_str(x->dtype, bx), ir_dtype_str(y->dtype, by));
        else
            el_error(E, el_arith_error_code(err), sp, "'%s': %s", sc_tok_kind_name(op),
                     err ? err : "invalid operands");
        return sv_error();
    }
    return sv_expr(r, sp);
}

ScVal el_binop(El *E, int op, ScVal a, ScVal b, TxSpan sp)
{
    if (a.kind == SV_ERROR || b.kind == SV_ERROR)
        return sv_error();
    if (op == SC_TK_AT || el_is_layout_piece(&a) || el_is_layout_piece(&b))
        return el_layout_binop(E, op, a, b, sp);
    if (is_num(&a) && is_num(&b))
        return python_binop(E, op, a, b, sp);
    if (op == SC_TK_PLUS && ((a.kind == SV_STR && b.kind == SV_STR) ||
                             ((a.kind == SV_TUPLE || a.kind == SV_LIST) && a.kind == b.kind)))
        return concat(E, a, b, sp);
    switch (op) {
    case SC_TK_PLUS: case SC_TK_MINUS: case SC_TK_STAR: case SC_TK_SLASH:
    case SC_TK_DOUBLESLASH: case SC_TK_PERCENT:
        return prim_arith(E, op, a, b, sp);
    case SC_TK_AMPER: case SC_TK_VBAR: case SC_TK_CIRCUMFLEX: case SC_TK_LEFTSHIFT:
    case SC_TK_RIGHTSHIFT:
        return bitwise(E, op, a, b, sp);
    default:
        el_error(E, TX_E_UNSUPPORTED, sp, "'%s' is not supported on PrimExprs",
                 sc_tok_kind_name(op));
        return sv_error();
    }
}

static ScVal eval_unary(El *E, const Ast *x)
{
    ScVal a = el_eval_value(E, x->a);
    if (a.kind == SV_ERROR)
        return a;
    if (is_num(&a)) {
        if (x->op == SC_TK_PLUS)
            return a;
        if (x->op == SC_TK_MINUS && a.kind != SV_FLOAT && num_i(&a) == INT64_MIN) {
            el_error(E, TX_E_VALUE, x->span,
                     "integer overflow: -(%lld) does not fit in int64", (long long)INT64_MIN);
            return sv_error();
        }
        if (x->op == SC_TK_MINUS)
            return a.kind == SV_FLOAT ? sv_float(-a.u.f, x->span)
                                      : sv_int(-num_i(&a), x->span);
        if (a.kind == SV_FLOAT) {
            el_error(E, TX_E_TYPE, x->span, "'~' needs an integer");
            return sv_error();
        }
        return sv_int(~num_i(&a), x->span);
    }
    if (a.kind == SV_INT && a.big && x->op == SC_TK_MINUS && a.u.i == INT64_MIN)
        return sv_int(INT64_MIN, x->span); /* -9223372036854775808, the smallest int64 */
    if (a.kind == SV_INT && a.big && x->op == SC_TK_MINUS) {
        el_error(E, TX_E_VALUE, x->span, "integer too large to negate");
        return sv_error();
    }
    IrExpr *e = ffi_prim(E, &a, x->op);
    if (!e)
        return sv_error();
    if (x->op == SC_TK_PLUS)
        return sv_expr(e, x->span);
    if (x->op == SC_TK_MINUS) {
        if (e->dtype.code == IR_DT_UINT) { /* -x is x * -1, and -1 is no unsigned constant */
            char buf[IR_DTYPE_STR_MAX];
            el_error(E, TX_E_VALUE, x->span, "cannot negate an unsigned value (%s); subtract it from 0",
                     ir_dtype_str(e->dtype, buf));
            return sv_error();
        }
        const char *err = NULL;
        IrExpr *r = ar_binary(E->a, IR_E_MUL, e, ar_make_int(E->a, e->dtype, -1, x->span),
                             x->span, &err);
        if (!r) {
            el_error(E, TX_E_TYPE, x->span, "cannot negate: %s", err ? err : "invalid operand");
            return sv_error();
        }
        return sv_expr(r, x->span);
    }
    if (ir_dtype_is_float(e->dtype)) {
        el_error(E, TX_E_TYPE, x->span, "'~' cannot be applied to a float");
        return sv_error();
    }
    /* a constant operand folds, as the reference's bitwise_neg does: ~ of an
     * expression that folded to 11 is -12, as ~11 written out is */
    int64_t v;
    if (ir_dtype_is_int(e->dtype) && e->dtype.lanes == 1 && ar_const_int(e, &v))
        return sv_expr(ar_make_int(E->a, e->dtype, ar_wrap_int(e->dtype, ~v), x->span), x->span);
    return sv_expr(el_call_node(E, IR_OP_BITWISE_NOT, e->dtype, &e, 1, x->span), x->span);
}

static IrExpr *bool_operand(El *E, const ScVal *v)
{
    if (v->kind == SV_BOOL)
        return ir_int(E->a, IR_BOOL, v->u.b, v->span);
    return el_prim(E, v, "a logical operand");
}

static ScVal logical_node(El *E, IrExprKind k, ScVal a, ScVal b, TxSpan sp)
{
    IrExpr *x = bool_operand(E, &a), *y = bool_operand(E, &b);
    if (!x || !y)
        return sv_error();
    if (x->dtype.lanes > 1 || y->dtype.lanes > 1)
        return bitwise(E, k == IR_E_AND ? SC_TK_AMPER : SC_TK_VBAR, sv_expr(x, sp),
                       sv_expr(y, sp), sp);
    return sv_expr(ir_binary(E->a, k, x, y, sp), sp);
}

ScVal el_logical(El *E, int op, ScVal a, ScVal b, TxSpan sp)
{
    return logical_node(E, op == SC_TK_AND ? IR_E_AND : IR_E_OR, a, b, sp);
}

/* and/or: Python short-circuit on compile-time values, And/Or nodes otherwise. */
static ScVal eval_boolop(El *E, const Ast *x)
{
    ScVal a = el_eval_value(E, x->a);
    if (a.kind == SV_ERROR)
        return a;
    bool truth;
    if (sv_truth(&a, &truth)) {
        if (truth != (x->op == SC_TK_AND))
            return a;
        ScVal b = el_eval_value(E, x->b);
        if (b.kind == SV_ERROR || sv_is_python(&b) || b.kind == SV_DTYPE)
            return b;
        return logical_node(E, x->op == SC_TK_AND ? IR_E_AND : IR_E_OR, a, b, x->span);
    }
    ScVal b = el_eval_value(E, x->b);
    if (b.kind == SV_ERROR)
        return b;
    return logical_node(E, x->op == SC_TK_AND ? IR_E_AND : IR_E_OR, a, b, x->span);
}

static ScVal eval_not(El *E, const Ast *x)
{
    ScVal a = el_eval_value(E, x->a);
    bool truth;
    if (a.kind == SV_ERROR)
        return a;
    if (sv_truth(&a, &truth))
        return sv_bool(!truth, x->span);
    IrExpr *e = el_prim(E, &a, "the operand of 'not'");
    if (!e)
        return sv_error();
    IrExpr *n = ir_node(E->a, IR_E_NOT, ir_dtype_with_lanes(IR_BOOL, e->dtype.lanes), x->span);
    n->u.op.a = e;
    return sv_expr(n, x->span);
}

static bool python_equal(const ScVal *a, const ScVal *b)
{
    if (is_num(a) && is_num(b))
        return num_f(a) == num_f(b) && num_i(a) == num_i(b);
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case SV_NONE: return true;
    case SV_STR: return a->u.str.n == b->u.str.n && !memcmp(a->u.str.s, b->u.str.s, a->u.str.n);
    case SV_DTYPE: return ir_dtype_eq(a->u.dt, b->u.dt);
    case SV_TUPLE: case SV_LIST:
        if (a->u.seq.n != b->u.seq.n)
            return false;
        for (int i = 0; i < a->u.seq.n; i++)
            if (!python_equal(&a->u.seq.items[i], &b->u.seq.items[i]))
                return false;
        return true;
    default: return false;
    }
}

static IrExprKind compare_kind(int op)
{
    switch (op) {
    case SC_TK_EQEQUAL: return IR_E_EQ;
    case SC_TK_NOTEQUAL: return IR_E_NE;
    case SC_TK_LESS: return IR_E_LT;
    case SC_TK_LESSEQUAL: return IR_E_LE;
    case SC_TK_GREATER: return IR_E_GT;
    default: return IR_E_GE;
    }
}

static ScVal python_compare(El *E, int op, const ScVal *a, const ScVal *b, TxSpan sp)
{
    if (op == SC_TK_IS || op == SC_TK_IS + 1) {
        bool same = (a->kind == SV_NONE && b->kind == SV_NONE) || python_equal(a, b);
        return sv_bool(op == SC_TK_IS ? same : !same, sp);
    }
    if (op == SC_TK_IN || op == SC_TK_NOT) {
        if (b->kind != SV_TUPLE && b->kind != SV_LIST) {
            el_error(E, TX_E_ARGUMENTS, sp, "'in' needs a tuple or a list on its right");
            return sv_error();
        }
        bool found = false;
        for (int i = 0; i < b->u.seq.n && !found; i++)
            found = python_equal(a, &b->u.seq.items[i]);
        return sv_bool(op == SC_TK_IN ? found : !found, sp);
    }
    if (op == SC_TK_EQEQUAL || op == SC_TK_NOTEQUAL) {
        bool eq = python_equal(a, b);
        return sv_bool(op == SC_TK_EQEQUAL ? eq : !eq, sp);
    }
    if (!is_num(a) || !is_num(b)) {
        el_error(E, TX_E_TYPE, sp, "'%s' needs numbers", sc_tok_kind_name(op));
        return sv_error();
    }
    double x = num_f(a), y = num_f(b);
    bool r = op == SC_TK_LESS ? x < y : op == SC_TK_LESSEQUAL ? x <= y : op == SC_TK_GREATER ? x > y : x >= y;
    return sv_bool(r, sp);
}

/* The reference's _auto_broadcast: a Python literal takes the dtype of the
 * other operand; the comparison node is built without folding. */
static IrExpr *literal_like(El *E, const ScVal *lit, IrDType other)
{
    IrDType s = ir_dtype_with_lanes(other, 1);
    if (lit->kind == SV_INT || lit->kind == SV_BOOL) {
        if (ir_dtype_is_int(s) || s.code == IR_DT_BOOL)
            return el_prim_as(E, lit, s, "an operand");
        if (ir_dtype_is_float(s))
            return ir_float(E->a, s, num_f(lit), lit->span);
        return el_prim(E, lit, "an operand");
    }
    if (lit->kind == SV_FLOAT)
        return ir_float(E->a, ir_dtype_is_float(s) ? s : IR_FLOAT32, lit->u.f, lit->span);
    return el_prim(E, lit, "an operand");
}

ScVal el_compare(El *E, int op, ScVal a, ScVal b, TxSpan sp)
{
    if (a.kind == SV_ERROR || b.kind == SV_ERROR)
        return sv_error();
    if ((sv_is_python(&a) || a.kind == SV_DTYPE) && (sv_is_python(&b) || b.kind == SV_DTYPE))
        return python_compare(E, op, &a, &b, sp);
    if (op == SC_TK_IN || op == SC_TK_NOT || op == SC_TK_IS || op == SC_TK_IS + 1) {
        el_error(E, TX_E_UNSUPPORTED, sp, "'in' and 'is' work on compile-time values only");
        return sv_error();
    }
    IrExpr *x = is_num(&a) ? NULL : el_prim(E, &a, "an operand");
    IrExpr *y = is_num(&b) ? NULL : el_prim(E, &b, "an operand");
    if ((!x && !is_num(&a)) || (!y && !is_num(&b)))
        return sv_error();
    if (!x)
        x = literal_like(E, &a, y->dtype);
    if (!y)
        y = literal_like(E, &b, x->dtype);
    if (!x || !y)
        return sv_error();
    if (x->dtype.lanes == 1 && y->dtype.lanes > 1) {
        const char *err = NULL;
        ar_match_types(E->a, &x, &y, &err);
    } else if (y->dtype.lanes == 1 && x->dtype.lanes > 1) {
        const char *err = NULL;
        ar_match_types(E->a, &x, &y, &err);
    }
    if (!ir_dtype_eq(x->dtype, y->dtype)) {
        char bx[IR_DTYPE_STR_MAX], by[IR_DTYPE_STR_MAX];
        el_error(E, TX_E_TYPE, sp,
                 "operands of '%s' have different dtypes: %s and %s; convert one with T.Cast",
                 sc_tok_kind_name(op), ir_dtype_str(x->dtype, bx), ir_dtype_str(y->dtype, by));
        return sv_error();
    }
    /* a constant PrimExpr on the left compares by its own operator, which
     * folds an ordering of two constants (the reference's PrimExpr.__lt__);
     * == and != and a Python number on the left build the node */
    IrExprKind k = compare_kind(op);
    bool consts = (x->kind == IR_E_INT || x->kind == IR_E_FLOAT) &&
                  (y->kind == IR_E_INT || y->kind == IR_E_FLOAT);
    if (consts && !is_num(&a) && k != IR_E_EQ && k != IR_E_NE) {
        const char *err = NULL;
        IrExpr *r = ar_binary(E->a, k, x, y, sp, &err);
        if (r)
            return sv_expr(r, sp);
    }
    return sv_expr(ir_binary(E->a, k, x, y, sp), sp);
}

/* a < b < c is (a < b) and (b < c), each operand evaluated once. */
static ScVal eval_compare(El *E, const Ast *x)
{
    ScVal left = el_eval_value(E, x->items.items[0]);
    ScVal acc = {.kind = SV_COUNT};
    for (int i = 0; i < x->items.n - 1; i++) {
        ScVal right = el_eval_value(E, x->items.items[i + 1]);
        ScVal r = el_compare(E, x->ops[i], left, right, x->span);
        if (r.kind == SV_ERROR)
            return r;
        if (acc.kind == SV_COUNT) {
            acc = r;
        } else {
            bool ta, tr;
            if (sv_truth(&acc, &ta) && sv_truth(&r, &tr))
                acc = sv_bool(ta && tr, x->span);
            else
                acc = logical_node(E, IR_E_AND, acc, r, x->span);
        }
        left = right;
    }
    return acc;
}

static ScVal eval_ifexp(El *E, const Ast *x)
{
    ScVal c = el_eval_value(E, x->c);
    bool truth;
    if (c.kind == SV_ERROR)
        return c;
    if (!sv_truth(&c, &truth)) {
        el_error(E, TX_E_ARGUMENTS, x->c->span,
                 "a conditional expression needs a compile-time condition; use T.Select or "
                 "T.if_then_else for a runtime one");
        return sv_error();
    }
    return el_eval(E, truth ? x->a : x->b);
}

/* A lambda is elaborated where it is used, which knows its parameters'
 * dtypes (el_lambda). */
static ScVal eval_lambda(El *E, const Ast *x)
{
    ScVal r = {.kind = SV_LAMBDA, .span = x->span};
    r.u.lambda.ast = x, r.u.lambda.scope = E->scope;
    return r;
}

/* A tuple (or list) a lambda returns, as an IR_E_LIST of PrimExprs. */
static IrExpr *lambda_tuple(El *E, const ScVal *body)
{
    IrExpr *l = ir_node(E->a, IR_E_LIST, IR_VOID, body->span);
    l->u.list.n = body->u.seq.n;
    l->u.list.items = TX_NEW_ARRAY(E->a, IrExpr *, body->u.seq.n ? body->u.seq.n : 1);
    for (int i = 0; i < body->u.seq.n; i++)
        if (!(l->u.list.items[i] = el_prim(E, &body->u.seq.items[i], "a lambda result")))
            return NULL;
    return l;
}

IrExpr *el_lambda(El *E, const ScVal *v, IrDType all, const IrDType *each, int neach,
                  bool tuple, const char *what)
{
    const Ast *x = v->u.lambda.ast;
    if (each && x->nnames != neach) {
        el_error(E, TX_E_ARGUMENTS, v->span, "%s takes %d parameter%s, not %d", what, neach,
                 neach == 1 ? "" : "s", x->nnames);
        return NULL;
    }
    ScScope *saved = E->scope;
    ScScope *s = TX_NEW(E->a, ScScope);
    s->parent = v->u.lambda.scope;
    E->scope = s;
    IrExpr *lam = ir_node(E->a, IR_E_LAMBDA, IR_VOID, x->span);
    lam->u.lambda.n = x->nnames;
    lam->u.lambda.params = TX_NEW_ARRAY(E->a, IrExpr *, x->nnames ? x->nnames : 1);
    for (int i = 0; i < x->nnames; i++) {
        IrType *ty = el_prim_type(E, each ? each[i] : all);
        IrExpr *p = ir_var(E->a, x->names[i], ty, x->name_spans[i]);
        lam->u.lambda.params[i] = p;
        el_bind(E, x->names[i], sv_expr(p, x->name_spans[i]), BIND_PLAIN, x->name_spans[i]);
    }
    ScVal body = el_eval_value(E, x->a);
    E->scope = saved;
    if (tuple && (body.kind == SV_TUPLE || body.kind == SV_LIST))
        lam->u.lambda.body = lambda_tuple(E, &body);
    else
        lam->u.lambda.body = el_prim(E, &body, "a lambda body");
    return lam->u.lambda.body ? lam : NULL;
}

/* ---------------------------------------------------------------- displays */

static bool eval_items(El *E, AstList items, ScVal *out_seq, ScValKind k, TxSpan sp)
{
    int n = 0;
    for (int i = 0; i < items.n; i++) {
        const Ast *it = items.items[i];
        if (it->kind == A_STARRED) {
            ScVal v = el_eval(E, it->a);
            if (v.kind == SV_ERROR)
                return false;
            if (v.kind != SV_TUPLE && v.kind != SV_LIST) {
                el_error(E, TX_E_TYPE, it->span, "only a tuple or a list can be unpacked with '*'");
                return false;
            }
            n += v.u.seq.n;
        } else {
            n++;
        }
    }
    *out_seq = sv_seq(E, k, n, sp);
    int j = 0;
    for (int i = 0; i < items.n; i++) {
        const Ast *it = items.items[i];
        ScVal v = el_eval(E, it->kind == A_STARRED ? it->a : it);
        if (v.kind == SV_ERROR)
            return false;
        if (it->kind == A_STARRED)
            for (int q = 0; q < v.u.seq.n && j < n; q++)
                out_seq->u.seq.items[j++] = v.u.seq.items[q];
        else if (j < n)
            out_seq->u.seq.items[j++] = v;
    }
    out_seq->u.seq.n = j;
    return true;
}

static ScVal eval_dict(El *E, const Ast *x)
{
    ScVal r = {.kind = SV_DICT, .span = x->span};
    int n = x->items.n;
    r.u.dict.n = n;
    r.u.dict.keys = TX_NEW_ARRAY(E->a, ScVal, n ? n : 1);
    r.u.dict.vals = TX_NEW_ARRAY(E->a, ScVal, n ? n : 1);
    for (int i = 0; i < n; i++) {
        r.u.dict.keys[i] = el_eval(E, x->items.items[i]);
        r.u.dict.vals[i] = el_eval(E, x->items2.items[i]);
        if (r.u.dict.keys[i].kind == SV_ERROR || r.u.dict.vals[i].kind == SV_ERROR)
            return sv_error();
        for (int j = 0; j < i; j++)
            if (python_equal(&r.u.dict.keys[j], &r.u.dict.keys[i])) {
                r.u.dict.vals[j] = r.u.dict.vals[i];
                r.u.dict.n = --n, i--;
                break;
            }
    }
    return r;
}

/* ---------------------------------------------------------------- calls */

/* One keyword argument; a repeated name is an error (as in Python). */
static bool add_kwarg(El *E, ScArgs *args, const char *name, ScVal v, TxSpan sp)
{
    for (int i = 0; i < args->nkw; i++)
        if (!strcmp(args->kwnames[i], name)) {
            el_error(E, TX_E_ARGUMENTS, sp, "keyword argument repeated: %s", name);
            return false;
        }
    args->kwnames[args->nkw] = name, args->kwspans[args->nkw] = sp;
    args->kw[args->nkw++] = v;
    return true;
}

/* A Python identifier (ASCII): what a keyword argument's name must be. */
/* f(**opts): the entries of a dict with string keys, as keyword arguments. */
static bool expand_kwargs(El *E, ScArgs *args, ScVal d, TxSpan sp)
{
    if (d.kind != SV_DICT) {
        if (d.kind != SV_ERROR)
            el_error(E, TX_E_ARGUMENTS, d.span, "'**' takes a dict of keyword arguments, not %s",
                     sv_kind_name(&d));
        return false;
    }
    for (int i = 0; i < d.u.dict.n; i++) {
        if (d.u.dict.keys[i].kind != SV_STR) {
            el_error(E, TX_E_TYPE, d.u.dict.keys[i].span,
                     "the keys of a '**' dict are strings, not %s",
                     sv_kind_name(&d.u.dict.keys[i]));
            return false;
        }
        if (!sc_is_name(d.u.dict.keys[i].u.str.s)) {
            el_error(E, TX_E_ARGUMENTS, d.u.dict.keys[i].span,
                     "a '**' dict's key names a keyword argument: '%s' is not a name",
                     d.u.dict.keys[i].u.str.s);
            return false;
        }
        if (!add_kwarg(E, args, d.u.dict.keys[i].u.str.s, d.u.dict.vals[i], sp))
            return false;
    }
    return true;
}

static bool collect_args(El *E, const Ast *call, ScArgs *args)
{
    memset(args, 0, sizeof *args);
    args->call = call;
    args->span = call->span;
    ScVal seq;
    if (!eval_items(E, call->items, &seq, SV_TUPLE, call->span))
        return false;
    args->npos = seq.u.seq.n, args->pos = seq.u.seq.items;
    ScVal *vals = TX_NEW_ARRAY(E->a, ScVal, call->nnames ? call->nnames : 1);
    int total = 0;
    for (int i = 0; i < call->nnames; i++) {
        if ((vals[i] = el_eval(E, call->items2.items[i])).kind == SV_ERROR)
            return false;
        total += strcmp(call->names[i], "**") ? 1 : (vals[i].kind == SV_DICT ? vals[i].u.dict.n : 0);
    }
    args->kw = TX_NEW_ARRAY(E->a, ScVal, total ? total : 1);
    args->kwnames = TX_NEW_ARRAY(E->a, const char *, total ? total : 1);
    args->kwspans = TX_NEW_ARRAY(E->a, TxSpan, total ? total : 1);
    for (int i = 0; i < call->nnames; i++) {
        bool ok = strcmp(call->names[i], "**")
                      ? add_kwarg(E, args, call->names[i], vals[i], call->name_spans[i])
                      : expand_kwargs(E, args, vals[i], call->items2.items[i]->span);
        if (!ok)
            return false;
    }
    return true;
}

/* T.float16(x): cast with folding; T.float32("inf"); T.int32(): a fresh variable. */
static ScVal call_dtype(El *E, IrDType dt, ScArgs *args)
{
    char buf[IR_DTYPE_STR_MAX];
    args->fname = path_join(E, "T", '.', ir_dtype_str(dt, buf));
    if (dt.code == IR_DT_HANDLE)
        return bi_handle(E, args);
    ScBound b;
    if (!el_bind_args(E, args, "value=, *, is_size_var=", &b))
        return sv_error();
    if (!sv_given(&b.v[0])) {
        IrExpr *var = ir_var(E->a, "v", el_prim_type(E, dt), args->span);
        ScVal r = sv_expr(var, args->span);
        r.fresh = true;
        return r;
    }
    ScVal v = b.v[0];
    if (v.kind == SV_STR) {
        double f;
        if (!strcmp(v.u.str.s, "inf"))
            f = INFINITY;
        else if (!strcmp(v.u.str.s, "-inf"))
            f = -INFINITY;
        else if (!strcmp(v.u.str.s, "nan"))
            f = NAN;
        else {
            char *end;
            f = strtod(v.u.str.s, &end);
            if (*end || end == v.u.str.s) {
                el_error(E, TX_E_TYPE, v.span, "cannot convert '%s' to %s", v.u.str.s,
                         args->fname + 2);
                return sv_error();
            }
        }
        return sv_expr(ar_make_float(E->a, dt, f, args->span), args->span);
    }
    if (v.kind == SV_INT || v.kind == SV_BOOL || v.kind == SV_FLOAT) {
        IrExpr *c = el_prim_as(E, &v, dt, "the value");
        if (c)
            c->span = args->span;
        return c ? sv_expr(c, args->span) : sv_error();
    }
    IrExpr *e = el_prim(E, &v, "the value");
    return e ? sv_expr(ar_cast(E->a, dt, e, args->span), args->span) : sv_error();
}

static bool def_on_stack(El *E, const Ast *def)
{
    for (int i = 0; i < E->nmacro; i++)
        if (E->macro_stack[i].def == def)
            return true;
    return false;
}

/* Hygienic inline expansion: the body is elaborated afresh in a scope whose
 * parent is the module scope of the macro's file (home), with the parameters
 * bound to the arguments. */
static ScVal expand_macro(El *E, const Ast *def, ScScope *home, ScArgs *args)
{
    if (E->macro_over)
        return sv_error(); /* reported once, where the limit was passed */
    if (def_on_stack(E, def)) {
        el_error(E, TX_E_MACRO, args->span,
                 "macro '%s' calls itself; macros expand inline and cannot be recursive",
                 def->name);
        return sv_error();
    }
    if (E->nmacro >= 64) {
        el_error(E, TX_E_NESTING, args->span, "macros nested too deeply (the limit is 64)");
        return sv_error();
    }
    int np = def->nparams;
    int nreq = 0;
    for (int i = 0; i < np; i++)
        nreq += def->params[i].def == NULL;
    if (args->npos > np || args->npos + args->nkw < nreq) {
        el_error(E, TX_E_ARGUMENTS, args->span, "macro '%s' takes %d argument%s but %d %s given",
                 def->name, np,
                 np == 1 ? "" : "s", args->npos + args->nkw,
                 args->npos + args->nkw == 1 ? "was" : "were");
        return sv_error();
    }
    ScVal *vals = TX_NEW_ARRAY(E->a, ScVal, np ? np : 1);
    bool *set = TX_NEW_ARRAY(E->a, bool, np ? np : 1);
    for (int i = 0; i < args->npos; i++)
        vals[i] = args->pos[i], set[i] = true;
    for (int k = 0; k < args->nkw; k++) {
        int i = 0;
        while (i < np && strcmp(def->params[i].name, args->kwnames[k]))
            i++;
        if (i == np || set[i]) {
            el_error(E, TX_E_ARGUMENTS, args->kwspans[k],
                     "macro '%s' got %s keyword argument '%s'", def->name,
                     i == np ? "an unexpected" : "a repeated", args->kwnames[k]);
            return sv_error();
        }
        vals[i] = args->kw[k], set[i] = true;
    }
    ScScope *saved_scope = E->scope;
    E->scope = TX_NEW(E->a, ScScope);
    E->scope->parent = home;
    for (int i = 0; i < np; i++) {
        if (!set[i]) {
            if (!def->params[i].def) {
                el_error(E, TX_E_ARGUMENTS, args->span, "macro '%s' is missing the argument '%s'",
                         def->name,
                         def->params[i].name);
                E->scope = saved_scope;
                return sv_error();
            }
            vals[i] = el_eval(E, def->params[i].def);
        }
        el_bind(E, def->params[i].name, vals[i], BIND_PLAIN, def->params[i].span);
    }
    if (E->nmacro == E->capmacro) {
        int cap = E->capmacro ? E->capmacro * 2 : 8;
        ScMacroCall *st = TX_NEW_ARRAY(E->a, ScMacroCall, cap);
        if (E->nmacro)
            memcpy(st, E->macro_stack, sizeof(*st) * (size_t)E->nmacro);
        E->macro_stack = st, E->capmacro = cap;
    }
    E->macro_stack[E->nmacro++] = (ScMacroCall){def, args->span};
    ScVal saved_ret = E->macro_ret;
    bool saved_returned = E->returned;
    E->macro_ret = sv_none(args->span), E->returned = false;
    el_block_inline(E, def->body);
    ScVal r = E->macro_ret;
    E->macro_ret = saved_ret, E->returned = saved_returned;
    E->nmacro--;
    E->scope = saved_scope;
    return r;
}

/* Module.f(args): a call of another function of the module. */
static ScVal call_function(El *E, const Ast *def, ScArgs *args)
{
    IrDType t = IR_INT32;
    if (def->a && def->a->kind == A_ATTR) {
        ScVal rt = el_eval(E, def->a);
        if (rt.kind == SV_DTYPE)
            t = rt.u.dt;
    } else if (def->a && def->a->kind == A_NONE) {
        t = IR_VOID;
    }
    if (args->nkw) {
        el_error(E, TX_E_ARGUMENTS, args->kwspans[0],
                 "a call of a module function takes positional arguments only");
        return sv_error();
    }
    IrExpr **a = TX_NEW_ARRAY(E->a, IrExpr *, args->npos ? args->npos : 1);
    for (int i = 0; i < args->npos; i++)
        if (!(a[i] = el_pod(E, &args->pos[i], "a function argument")))
            return sv_error();
    IrExpr *e = el_call_node(E, IR_OP_CALL_FUNC, t, a, args->npos, args->span);
    e->u.call.callee = def->name;
    return sv_expr(e, args->span);
}

static ScVal call_python(El *E, const char *name, ScArgs *args)
{
    if (args->npos != 1 || args->nkw) {
        el_error(E, TX_E_ARGUMENTS, args->span, "%s() takes one argument here", name);
        return sv_error();
    }
    ScVal v = args->pos[0];
    if (!strcmp(name, "len") && (v.kind == SV_TUPLE || v.kind == SV_LIST))
        return sv_int(v.u.seq.n, args->span);
    if (!strcmp(name, "len") && v.kind == SV_STR)
        return sv_int(v.u.str.n, args->span);
    if (!strcmp(name, "int") && is_num(&v))
        return sv_int(v.kind == SV_FLOAT ? (int64_t)v.u.f : num_i(&v), args->span);
    if (!strcmp(name, "float") && is_num(&v))
        return sv_float(num_f(&v), args->span);
    if (!strcmp(name, "abs") && is_num(&v))
        return v.kind == SV_FLOAT ? sv_float(fabs(v.u.f), args->span)
                                  : sv_int(num_i(&v) < 0 ? -num_i(&v) : num_i(&v), args->span);
    if (!strcmp(name, "str") && v.kind == SV_STR)
        return v;
    if (!strcmp(name, "str") && v.kind == SV_DTYPE) {
        char buf[IR_DTYPE_STR_MAX];
        return sv_str(E, tx_arena_strdup(E->a, ir_dtype_str(v.u.dt, buf)), args->span);
    }
    el_error(E, TX_E_UNSUPPORTED, args->span, "%s() is not supported on %s", name,
             sv_kind_name(&v));
    return sv_error();
}

/* The shape of T.Buffer(...) in a signature or of T.match_buffer(handle, ...):
 * the positional or shape= argument, when it is a tuple or list literal. */
static const Ast *declared_shape(const El *E, const ScVal *fn, const Ast *call)
{
    int at;
    if (fn->kind != SV_NS)
        return NULL;
    if (!strcmp(fn->u.path, "T.Buffer") && E->in_signature)
        at = 0;
    else if (!strcmp(fn->u.path, "T.match_buffer"))
        at = 1;
    else
        return NULL;
    const Ast *shape = call->items.n > at ? call->items.items[at] : NULL;
    for (int i = 0; !shape && i < call->nnames; i++)
        if (!strcmp(call->names[i], "shape"))
            shape = call->items2.items[i];
    return shape && (shape->kind == A_TUPLE || shape->kind == A_LIST) ? shape : NULL;
}

/* A quoted dimension ("n") defines its names for the whole declaration, so
 * they are defined before the arguments are read: T.Buffer(("n", n * 2)),
 * T.match_buffer(a, ("n", "m"), strides=(m, 1)). */
static bool define_quoted_dims(El *E, const ScVal *fn, const Ast *call)
{
    const Ast *shape = declared_shape(E, fn, call);
    for (int i = 0; shape && i < shape->items.n; i++) {
        if (shape->items.items[i]->kind != A_STR)
            continue;
        ScVal str = el_eval(E, shape->items.items[i]);
        if (str.kind == SV_ERROR || el_eval_quoted(E, &str).kind == SV_ERROR)
            return false;
    }
    return true;
}

ScVal el_call(El *E, ScVal fn, const Ast *call)
{
    ScArgs args;
    if (fn.kind == SV_ERROR || !define_quoted_dims(E, &fn, call) || !collect_args(E, call, &args))
        return sv_error();
    switch (fn.kind) {
    case SV_NS: {
        const char *path = fn.u.path;
        if (!strcmp(path, "range")) {
            args.fname = "range";
            return bi_loop(E, &args);
        }
        if (!strncmp(path, "py.", 3))
            return call_python(E, path + 3, &args);
        if (!strcmp(path, "I.dummy_global_info") || !strcmp(path, "I.vdevice")) {
            args.fname = path;
            return el_global_info(E, &args);
        }
        if (!strncmp(path, "T.", 2)) {
            args.fname = path;
            ScBuiltinFn f = el_builtin(path + 2);
            if (f && !el_tile_overload(E, path + 2, &args))
                return f(E, &args);
            return el_call_path(E, path + 2, &args);
        }
        if (!strcmp(path, "I.Op"))
            return el_op_value(E, &args);
        if (!strncmp(path, "lang.", 5))
            return el_lang_call(E, path, &args);
        el_error(E, TX_E_TYPE, fn.span, "'%s' is not callable here", path);
        return sv_error();
    }
    case SV_DTYPE: return call_dtype(E, fn.u.dt, &args);
    case SV_METHOD:
        if (fn.u.method.recv->kind == SV_POOL)
            return el_pool_method(E, *fn.u.method.recv, fn.u.method.name, &args);
        if (fn.u.method.recv->kind == SV_LANG)
            return el_lang_method(E, *fn.u.method.recv, fn.u.method.name, &args);
        if (fn.u.method.recv->kind == SV_LAYOUT)
            return el_layout_method(E, *fn.u.method.recv, fn.u.method.name, &args);
        return el_buffer_method(E, *fn.u.method.recv, fn.u.method.name, &args);
    case SV_MACRO: return expand_macro(E, fn.u.macro.def, fn.u.macro.home, &args);
    case SV_FUNC: return call_function(E, fn.u.def, &args);
    default:
        el_error(E, TX_E_TYPE, call->a->span, "%s is not callable", sv_kind_name(&fn));
        return sv_error();
    }
}

/* ---------------------------------------------------------------- argument binding */

typedef struct ParamSpec {
    char name[24];
    bool optional, kwonly;
} ParamSpec;

static int parse_param_spec(const char *spec, ParamSpec *ps, int max, bool *star, bool *starkw)
{
    int n = 0;
    bool kwonly = false;
    *star = *starkw = false;
    const char *p = spec;
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        if (!*p)
            break;
        const char *q = p;
        while (*q && *q != ',')
            q++;
        size_t len = (size_t)(q - p);
        while (len && p[len - 1] == ' ')
            len--;
        if (len == 1 && *p == '*')
            kwonly = true;
        else if (len > 2 && !strncmp(p, "**", 2))
            *starkw = true;
        else if (len > 1 && *p == '*')
            *star = true, kwonly = true;
        else if (n < max) {
            bool opt = p[len - 1] == '=';
            size_t nl = opt ? len - 1 : len;
            if (nl >= sizeof ps[n].name)
                nl = sizeof ps[n].name - 1;
            memcpy(ps[n].name, p, nl);
            ps[n].name[nl] = 0;
            ps[n].optional = opt, ps[n].kwonly = kwonly;
            n++;
        }
        p = q;
    }
    return n;
}

bool el_bind_args(El *E, const ScArgs *args, const char *params, ScBound *out)
{
    ParamSpec ps[SC_MAX_PARAMS];
    bool star, starkw;
    int n = parse_param_spec(params, ps, SC_MAX_PARAMS, &star, &starkw);
    memset(out, 0, sizeof *out);
    for (int i = 0; i < SC_MAX_PARAMS; i++)
        out->v[i].kind = SV_COUNT;
    int npos_params = 0;
    while (npos_params < n && !ps[npos_params].kwonly)
        npos_params++;
    const char *fname = args->fname ? args->fname : "the call";
    if (args->npos > npos_params && !star) {
        el_error(E, TX_E_ARGUMENTS, args->span,
                 "%s takes %d positional argument%s but %d %s given", fname,
                 npos_params, npos_params == 1 ? "" : "s", args->npos,
                 args->npos == 1 ? "was" : "were");
        return false;
    }
    for (int i = 0; i < args->npos && i < npos_params; i++)
        out->v[i] = args->pos[i];
    if (args->npos > npos_params) {
        out->nrest = args->npos - npos_params;
        out->rest = args->pos + npos_params;
    }
    out->rest_kw = TX_NEW_ARRAY(E->a, int, args->nkw ? args->nkw : 1);
    for (int k = 0; k < args->nkw; k++) {
        int i = 0;
        while (i < n && strcmp(ps[i].name, args->kwnames[k]))
            i++;
        if (i == n) {
            if (starkw) {
                out->rest_kw[out->nrest_kw++] = k;
                continue;
            }
            const char *cands[SC_MAX_PARAMS];
            for (int j = 0; j < n; j++)
                cands[j] = ps[j].name;
            el_error(E, TX_E_ARGUMENTS, args->kwspans[k],
                     "%s got an unexpected keyword argument '%s'%s", fname,
                     args->kwnames[k], el_suggest(E, args->kwnames[k], cands, n));
            return false;
        }
        if (sv_given(&out->v[i])) {
            el_error(E, TX_E_ARGUMENTS, args->kwspans[k],
                     "%s got multiple values for argument '%s'", fname,
                     ps[i].name);
            return false;
        }
        out->v[i] = args->kw[k];
    }
    for (int i = 0; i < n; i++)
        if (!ps[i].optional && !sv_given(&out->v[i])) {
            el_error(E, TX_E_ARGUMENTS, args->span, "%s is missing the argument '%s'", fname,
                     ps[i].name);
            return false;
        }
    return true;
}

/* ---------------------------------------------------------------- eval */

ScVal el_eval(El *E, const Ast *x)
{
    if (++E->depth > SC_MAX_DEPTH * 2) {
        el_error(E, TX_E_NESTING, x->span, "expression nested too deeply");
        E->depth--;
        return sv_error();
    }
    ScVal r;
    switch (x->kind) {
    case A_NAME: r = eval_name(E, x); break;
    case A_INT:
        r = sv_int((int64_t)x->lit.i, x->span);
        r.big = x->lit.i > (uint64_t)INT64_MAX;
        break;
    case A_FLOAT: r = sv_float(x->lit.f, x->span); break;
    case A_STR:
        r = (ScVal){.kind = SV_STR, .span = x->span};
        r.u.str.s = x->lit.str.s, r.u.str.n = x->lit.str.n;
        break;
    case A_BOOL: r = sv_bool(x->lit.b, x->span); break;
    case A_NONE: r = sv_none(x->span); break;
    case A_ATTR: r = eval_attr(E, x); break;
    case A_CALL: r = el_call(E, el_eval(E, x->a), x); break;
    case A_SUBSCRIPT: r = eval_subscript(E, x); break;
    case A_TUPLE: case A_LIST:
        if (!eval_items(E, x->items, &r, x->kind == A_TUPLE ? SV_TUPLE : SV_LIST, x->span))
            r = sv_error();
        break;
    case A_DICT: r = eval_dict(E, x); break;
    case A_BINOP:
        r = el_binop(E, x->op, el_eval_value(E, x->a), el_eval_value(E, x->b), x->span);
        break;
    case A_UNARY: r = eval_unary(E, x); break;
    case A_NOT: r = eval_not(E, x); break;
    case A_BOOLOP: r = eval_boolop(E, x); break;
    case A_COMPARE: r = eval_compare(E, x); break;
    case A_IFEXP: r = eval_ifexp(E, x); break;
    case A_LAMBDA: r = eval_lambda(E, x); break;
    default:
        el_error(E, TX_E_UNSUPPORTED_SYNTAX, x->span,
                 "this expression is not supported in TIRx script");
        r = sv_error();
        break;
    }
    E->depth--;
    return r;
}

ScVal el_eval_value(El *E, const Ast *x)
{
    ScVal v = el_eval(E, x);
    if (v.kind == SV_BUFFER && v.decay) {
        IrExpr *e = scalar_load(E, v.u.e, v.span);
        return sv_expr(e, v.span);
    }
    return v;
}
