/* MakePackedAPI: the host function checks the arguments it is launched with
 * and binds its symbolic shapes (docs/pipeline.md, "The host function";
 * reference: layout_passes.md §3.8).
 *
 * For each buffer param A (a DLTensor at launch), in param order, asserts
 * on the tensor's fields, read with T.tvm_struct_get(A.data, i, FIELD,
 * dtype): ndim, dtype, device type, each dimension of the shape, the strides
 * (compact unless the buffer gives strides) and the data alignment. Each
 * message names the function, the argument and what was expected; the host
 * evaluator adds what it got. A shape or stride variable that is not a
 * scalar param is bound at its first occurrence, to a fresh variable of the
 * same name that replaces it in the body; later occurrences are asserts. A
 * buffer's elem_offset must be 0 (a free one is bound to 0). The
 * count and kind of the arguments are checked by the evaluator when it binds
 * them. Device functions are left alone. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#include "../layout/layout.h"

/* DLTensor fields of T.tvm_struct_get (TVM's codes; 11 is tirx's). */
enum {
    FIELD_DATA = 1, FIELD_SHAPE = 2, FIELD_STRIDES = 3, FIELD_NDIM = 4,
    FIELD_DEVICE_TYPE = 10, FIELD_DTYPE = 11, /* code | bits << 8 | lanes << 16 */
};
#define DL_CUDA 2

typedef TX_VEC(IrStmt *) StmtVec;

typedef struct Packed {
    IrModule *m;
    IrFunc *f;
    StmtVec out;      /* checks and binds, in order */
    IrPtrMap bound;   /* shape variable -> its host variable */
    IrPtrMap params;  /* scalar params */
} Packed;

static TxArena *arena(Packed *p) { return &p->m->arena; }

static IrExpr *field(Packed *p, IrExpr *buffer, int index, int code, IrDType t)
{
    TxArena *a = arena(p);
    IrExpr *args[3] = {ps_buffer_data(a, buffer), ps_int(a, IR_INT32, index),
                       ps_int(a, IR_INT32, code)};
    return ps_call(a, IR_OP_STRUCT_GET, t, args, 3);
}

static void check(Packed *p, IrExpr *cond, const char *msg)
{
    IrStmt *s = ir_stmt(arena(p), IR_S_ASSERT, p->f->span);
    s->u.assert_.cond = cond;
    s->u.assert_.kind = "RuntimeError";
    s->u.assert_.nparts = 1;
    s->u.assert_.parts = TX_NEW_ARRAY(arena(p), const char *, 1);
    s->u.assert_.parts[0] = msg;
    tx_vec_push(&p->out, s);
}

static const char *arg_msg(Packed *p, const IrExpr *param, const char *what)
{
    return tx_arena_printf(arena(p), "%s: argument %s: expected %s", p->f->name, ps_name(param),
                           what);
}

/* The DLPack type code of a dtype (dlpack.h DLDataTypeCode). */
static int dl_type_code(IrDType t)
{
    switch (t.code) {
    case IR_DT_INT: return 0;
    case IR_DT_UINT: return 1;
    case IR_DT_FLOAT: return 2;
    case IR_DT_HANDLE: return 3;
    case IR_DT_BFLOAT: return 4;
    case IR_DT_BOOL: return 6;
    default: return 7 + (t.code - IR_DT_F8E3M4); /* the float8/6/4 kinds, in DLPack's order */
    }
}

static IrExpr *eq(Packed *p, IrExpr *x, IrExpr *y) { return ps_arith(arena(p), IR_E_EQ, x, y); }

/* The expression with shape variables bound so far replaced by their host variables. */
static IrExpr *on_host(Packed *p, IrExpr *e)
{
    IrSubst subs[64];
    int n = 0;
    for (int i = 0; i < p->bound.cap && n < 64; i++)
        if (p->bound.slots[i].key)
            subs[n++] = (IrSubst){p->bound.slots[i].key, (IrExpr *)p->bound.slots[i].val};
    return n ? ir_substitute(arena(p), e, subs, n) : e;
}

static const char *expr_text(Packed *p, const IrExpr *e)
{
    LyCtx c = ly_ctx(arena(p));
    return ly_expr_str(&c, e);
}

/* A shape or stride entry: bind a new variable at its first occurrence, else
 * assert. A symbolic extent must not be negative: it would describe no memory
 * while the kernel's arithmetic on it (n * m of two) may still reach some. */
static void match_dim(Packed *p, IrExpr *buffer, int i, int code, IrExpr *want)
{
    IrExpr *got = field(p, buffer, i, code, IR_INT64);
    const char *what = code == FIELD_SHAPE ? "shape" : "strides";
    int64_t c;
    bool bound = want->kind == IR_E_VAR && ir_ptrmap_get(&p->bound, want, NULL);
    if (code == FIELD_SHAPE && !bound && !ps_const_int(want, &c)) /* a bound one was checked */
        check(p, ps_arith(arena(p), IR_E_GE, got, ps_int(arena(p), IR_INT64, 0)),
              arg_msg(p, buffer, tx_arena_printf(arena(p), "shape[%d] (%s) >= 0", i,
                                                 expr_text(p, want))));
    if (want->kind == IR_E_VAR && !ir_ptrmap_get(&p->params, want, NULL) && !bound) {
        IrExpr *host = ir_var(arena(p), want->u.var.name, want->u.var.type, want->span);
        tx_vec_push(&p->out, ps_bind(arena(p), host, ps_cast(arena(p), want->dtype, got),
                                     p->f->span));
        ir_ptrmap_put(&p->bound, want, (uintptr_t)host);
        if (want->dtype.bits < 64) { /* never a silently truncated extent or stride */
            char dt[IR_DTYPE_STR_MAX];
            check(p, eq(p, ps_cast(arena(p), IR_INT64, host), got),
                  arg_msg(p, buffer, tx_arena_printf(arena(p), "%s[%d] (%s) to fit %s", what, i,
                                                     want->u.var.name,
                                                     ir_dtype_str(want->dtype, dt))));
        }
        return;
    }
    IrExpr *cond = eq(p, got, ps_cast(arena(p), IR_INT64, on_host(p, want)));
    check(p, cond, arg_msg(p, buffer, tx_arena_printf(arena(p), "%s[%d] == %s", what, i,
                                                      expr_text(p, want))));
}

static void check_strides(Packed *p, IrExpr *buffer, const IrBufferType *b)
{
    TxArena *a = arena(p);
    if (b->nstrides) {
        for (int i = 0; i < b->nstrides; i++)
            match_dim(p, buffer, i, FIELD_STRIDES, b->strides[i]);
        return;
    }
    IrExpr *compact = ps_int(a, IR_INT64, 1);
    for (int i = b->ndim - 1; i >= 0; i--) {
        int64_t one;
        if (!(ps_const_int(b->shape[i], &one) && one == 1)) {
            IrExpr *cond = eq(p, field(p, buffer, i, FIELD_STRIDES, IR_INT64), compact);
            cond = ps_arith(a, IR_E_OR, cond, eq(p, field(p, buffer, i, FIELD_SHAPE, IR_INT64),
                                                 ps_int(a, IR_INT64, 1)));
            check(p, cond, arg_msg(p, buffer, tx_arena_printf(a, "strides[%d] == %s (compact)",
                                                              i, expr_text(p, compact))));
        }
        compact = ps_simplify_expr(a, ps_arith(a, IR_E_MUL, compact,
                                               ps_cast(a, IR_INT64, on_host(p, b->shape[i]))));
    }
}

/* A tensor argument begins at its data + byte_offset (FIELD_DATA), and the
 * kernel adds the buffer's elem_offset to every index: anything but 0 would
 * reach past the tensor. A free variable (offset_factor=) is bound to 0. */
static void check_elem_offset(Packed *p, IrExpr *buffer, IrExpr *off)
{
    TxArena *a = arena(p);
    int64_t c;
    if (!off || (ps_const_int(off, &c) && c == 0))
        return;
    if (off->kind == IR_E_VAR && !ir_ptrmap_get(&p->params, off, NULL) &&
        !ir_ptrmap_get(&p->bound, off, NULL)) {
        IrExpr *host = ir_var(a, off->u.var.name, off->u.var.type, off->span);
        tx_vec_push(&p->out, ps_bind(a, host, ps_int(a, off->dtype, 0), p->f->span));
        ir_ptrmap_put(&p->bound, off, (uintptr_t)host);
        return;
    }
    check(p, eq(p, ps_cast(a, IR_INT64, on_host(p, off)), ps_int(a, IR_INT64, 0)),
          arg_msg(p, buffer, tx_arena_printf(a, "elem_offset (%s) to be 0: the tensor begins at "
                                                "data + byte_offset", expr_text(p, off))));
}

static void check_tensor(Packed *p, IrExpr *buffer)
{
    TxArena *a = arena(p);
    const IrBufferType *b = ir_buf(buffer);
    IrDType t = buffer->u.var.type->dtype;
    char name[IR_DTYPE_STR_MAX];
    check(p, eq(p, field(p, buffer, 0, FIELD_NDIM, IR_INT32), ps_int(a, IR_INT32, b->ndim)),
          arg_msg(p, buffer, tx_arena_printf(a, "ndim %d", b->ndim)));
    int64_t packed = (int64_t)dl_type_code(t) | (int64_t)t.bits << 8 | (int64_t)t.lanes << 16;
    check(p, eq(p, field(p, buffer, 0, FIELD_DTYPE, IR_INT64), ps_int(a, IR_INT64, packed)),
          arg_msg(p, buffer, tx_arena_printf(a, "dtype %s", ir_dtype_str(t, name))));
    check(p, eq(p, field(p, buffer, 0, FIELD_DEVICE_TYPE, IR_INT32), ps_int(a, IR_INT32, DL_CUDA)),
          arg_msg(p, buffer, "a CUDA device tensor"));
    for (int i = 0; i < b->ndim; i++)
        match_dim(p, buffer, i, FIELD_SHAPE, b->shape[i]);
    check_strides(p, buffer, b);
    check_elem_offset(p, buffer, b->elem_offset);
    if (b->align > 1) {
        IrExpr *rem = ps_arith(a, IR_E_FLOORMOD, field(p, buffer, 0, FIELD_DATA, IR_INT64),
                               ps_int(a, IR_INT64, b->align));
        check(p, eq(p, rem, ps_int(a, IR_INT64, 0)),
              arg_msg(p, buffer, tx_arena_printf(a, "data aligned to %d bytes", b->align)));
    }
}

static IrFunc *packed_func(Packed *p)
{
    TxArena *a = arena(p);
    IrFunc *f = p->f;
    for (int i = 0; i < f->nparams; i++)
        if (!ir_is_buffer(f->params[i]))
            ir_ptrmap_put(&p->params, f->params[i], 1);
    for (int i = 0; i < f->nparams; i++)
        if (ir_is_buffer(f->params[i]))
            check_tensor(p, f->params[i]);
    IrStmt *body = f->body;
    if (p->bound.len) {
        IrSubst *subs = TX_NEW_ARRAY(a, IrSubst, p->bound.len);
        int n = 0;
        for (int i = 0; i < p->bound.cap; i++)
            if (p->bound.slots[i].key)
                subs[n++] = (IrSubst){p->bound.slots[i].key, (IrExpr *)p->bound.slots[i].val};
        body = ir_substitute_stmt(a, body, subs, n, false);
    }
    IrStmt *checks = p->out.len ? ir_seq(a, p->out.items, p->out.len, f->span) : NULL;
    f = ps_func_with_body(a, f, ps_seq2(a, checks, body));
    return ps_func_set_attr(a, f, "target", ir_str(a, "host", (TxSpan){0}));
}

bool ps_make_packed_api(PsCtx *ctx, IrModule *m)
{
    (void)ctx;
    for (int i = 0; i < m->nfuncs; i++) {
        IrFunc *f = m->funcs[i];
        if (!f->body || ps_is_device_func(f))
            continue;
        Packed p = {.m = m, .f = f};
        m->funcs[i] = packed_func(&p);
        tx_vec_free(&p.out);
        ir_ptrmap_free(&p.bound);
        ir_ptrmap_free(&p.params);
    }
    return true;
}
