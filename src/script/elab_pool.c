/* The SMEM pool, expanded at parse time (reference: layout_passes.md §3.9):
 *
 *     pool = T.SMEMPool()
 *     A = pool.alloc((128, 64), "float16", layout=..., align=1024)
 *     pool.move_base_to(0)
 *     pool.commit()
 *
 * T.SMEMPool() emits the one dynamic shared allocation
 * `pool_buf = T.alloc_buffer((0,), "uint8", scope="shared.dyn")` and returns a
 * bump allocator over bytes; alloc rounds the cursor up to `align`, declares
 * the buffer on pool_buf.data at that offset (in elements of its dtype) and
 * moves the cursor past it; move_base_to sets the cursor (reuse, aliasing);
 * commit declares the size, `T.attr({"tirx.dyn_smem_bytes": T.int64(n)})`,
 * n = the furthest byte allocated (or an explicit, larger size). A byte
 * offset that is not a whole number of elements is an error (the reference
 * rounds it down silently). */
#include "elab.h"

#include <stdio.h>

struct ScPool {
    IrExpr *buffer;  /* pool_buf */
    int64_t offset;  /* the cursor, in bytes */
    int64_t max_offset;
    bool committed;
};

ScVal bi_smem_pool(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "", &b))
        return sv_error();
    IrExpr *zero = ir_int(E->a, IR_INT32, 0, args->span);
    IrExpr *buf = el_new_buffer(E, IR_UINT8, &zero, 1, "shared.dyn", args->span);
    buf->u.var.name = "pool_buf";
    IrStmt *s = ir_stmt(E->a, IR_S_ALLOC, args->span);
    s->u.alloc.buffer = buf;
    el_emit(E, s);
    ScVal v = {.kind = SV_POOL, .span = args->span};
    v.u.pool = TX_NEW(E->a, ScPool);
    v.u.pool->buffer = buf;
    return v;
}

ScVal el_pool_attr(El *E, ScVal pool, const char *name, TxSpan sp)
{
    static const char *const methods[] = {"alloc", "move_base_to", "commit"};
    return el_method_attr(E, pool, methods, (int)TX_ARRAY_LEN(methods), name, sp, "an SMEM pool");
}

/* The bytes of a constant shape of dtype t (sub-byte dtypes round up). */
static bool shape_bytes(El *E, const ScVal *shape, IrDType t, int64_t *out)
{
    int n = shape->kind == SV_TUPLE || shape->kind == SV_LIST ? shape->u.seq.n : 1;
    const ScVal *items = n == 1 && shape->kind != SV_TUPLE && shape->kind != SV_LIST
                             ? shape : shape->u.seq.items;
    int64_t elems = 1;
    for (int i = 0; i < n; i++) {
        int64_t d;
        if (!el_int_const(E, &items[i], &d, "a pool allocation's shape"))
            return false;
        elems *= d;
    }
    *out = (elems * t.bits * t.lanes + 7) / 8;
    return true;
}

/* Keyword arguments for T.decl_buffer, built as a call would pass them. */
typedef struct KwArgs {
    ScVal vals[6];
    const char *names[6];
    TxSpan spans[6];
    int n;
} KwArgs;

static void kw_add(KwArgs *k, const char *name, ScVal v)
{
    k->names[k->n] = name, k->spans[k->n] = v.span, k->vals[k->n++] = v;
}

/* pool.alloc(shape, dtype="float32", strides=None, scope="shared.dyn", align=0, layout=) */
static ScVal pool_alloc(El *E, ScPool *p, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "shape, dtype=, strides=, scope=, align=, layout=", &b))
        return sv_error();
    IrDType t = IR_FLOAT32;
    int64_t align = 0, bytes;
    if ((sv_given(&b.v[1]) && !el_dtype_of(E, &b.v[1], &t, "the dtype")) ||
        (sv_given(&b.v[4]) && !el_int_const(E, &b.v[4], &align, "align")) ||
        !shape_bytes(E, &b.v[0], t, &bytes))
        return sv_error();
    int64_t bits = (int64_t)t.bits * t.lanes;
    if (bits <= 0) {
        el_error(E, b.v[1].span, "pool.alloc needs an element dtype, not void");
        return sv_error();
    }
    if (align > 0)
        p->offset = (p->offset + align - 1) / align * align;
    if ((p->offset * 8) % bits) {
        char dt[IR_DTYPE_STR_MAX];
        el_error(E, args->span, "pool.alloc: byte offset %lld is not a whole number of %s "
                 "elements; give align= or move the base with pool.move_base_to",
                 (long long)p->offset, ir_dtype_str(t, dt));
        return sv_error();
    }
    KwArgs kw = {0};
    IrExpr *data = el_call_node(E, IR_OP_BUFFER_DATA, IR_HANDLE, &p->buffer, 1, args->span);
    kw_add(&kw, "data", sv_expr(data, args->span));
    kw_add(&kw, "elem_offset", sv_int(p->offset * 8 / bits, args->span));
    kw_add(&kw, "scope", sv_given(&b.v[3]) ? b.v[3] : sv_str(E, "shared.dyn", args->span));
    kw_add(&kw, "align", sv_int(align > 0 ? align : 64, args->span));
    if (sv_given(&b.v[2]))
        kw_add(&kw, "strides", b.v[2]);
    if (sv_given(&b.v[5]))
        kw_add(&kw, "layout", b.v[5]);
    char dt[IR_DTYPE_STR_MAX];
    ScVal pos[2] = {b.v[0], sv_str(E, tx_arena_strdup(E->a, ir_dtype_str(t, dt)), args->span)};
    ScArgs decl = {.call = args->call, .span = args->span, .fname = "T.decl_buffer", .npos = 2,
                   .pos = pos, .nkw = kw.n, .kw = kw.vals, .kwnames = kw.names,
                   .kwspans = kw.spans};
    ScVal v = bi_decl_buffer(E, &decl);
    p->offset += bytes;
    if (p->offset > p->max_offset)
        p->max_offset = p->offset;
    return v;
}

/* pool.move_base_to(offset) */
static ScVal pool_move(El *E, ScPool *p, ScArgs *args)
{
    ScBound b;
    int64_t off;
    if (!el_bind_args(E, args, "offset", &b) || !el_int_const(E, &b.v[0], &off, "the offset"))
        return sv_error();
    if (off < 0) {
        el_error(E, b.v[0].span, "pool.move_base_to: the offset must not be negative");
        return sv_error();
    }
    p->offset = off;
    return sv_none(args->span);
}

/* pool.commit(size=None) */
static ScVal pool_commit(El *E, ScPool *p, ScArgs *args)
{
    ScBound b;
    int64_t size;
    if (!el_bind_args(E, args, "size=", &b))
        return sv_error();
    size = p->max_offset;
    if (sv_given(&b.v[0]) && b.v[0].kind != SV_NONE &&
        !el_int_const(E, &b.v[0], &size, "the pool size"))
        return sv_error();
    if (size < p->max_offset) {
        el_error(E, b.v[0].span, "pool.commit: size %lld is less than the %lld bytes allocated",
                 (long long)size, (long long)p->max_offset);
        return sv_error();
    }
    if (p->committed) {
        el_error(E, args->span, "pool.commit: the pool is already committed");
        return sv_error();
    }
    p->committed = true;
    IrStmt *body = ir_stmt(E->a, IR_S_EVAL, args->span);
    body->u.eval = ir_int(E->a, IR_INT32, 0, args->span);
    IrStmt *s = ir_stmt(E->a, IR_S_ATTR, args->span);
    s->u.attr.node = ir_int(E->a, IR_INT32, 0, args->span);
    s->u.attr.key = "tirx.dyn_smem_bytes";
    s->u.attr.value = ir_int(E->a, IR_INT64, size, args->span);
    s->u.attr.body = body;
    el_emit(E, s);
    return sv_none(args->span);
}

ScVal el_pool_method(El *E, ScVal pool, const char *name, ScArgs *args)
{
    if (!strcmp(name, "alloc"))
        return pool_alloc(E, pool.u.pool, args);
    if (!strcmp(name, "move_base_to"))
        return pool_move(E, pool.u.pool, args);
    return pool_commit(E, pool.u.pool, args);
}
