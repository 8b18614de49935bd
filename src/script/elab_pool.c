/* The SMEM and TMEM pools, expanded at parse time (reference:
 * layout_passes.md §3.9, tvm/backend/cuda/lang/alloc_pool.py):
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
 * rounds it down silently).
 *
 *     tmem = T.TMEMPool(pool, 512, cta_group=1, alloc_warp=0)
 *     acc = tmem.alloc((128, 256), "float32")
 *     tmem.commit()
 *     ...
 *     tmem.dealloc()
 *
 * T.TMEMPool takes a 32-bit slot for the TMEM address from the SMEM pool
 * (`tmem__addr_buf`, or the given tmem_addr=) and is a bump allocator over
 * TMEM columns: alloc declares a tmem buffer at the cursor's column
 * (allocated_addr) with the layout given or S[(rows, cols):(1@TLane,
 * 1@TCol)], the columns counted from the layout's TCol span or the shape;
 * commit emits, in warp alloc_warp of the CTA (`v = T.warp_id()`,
 * `if v == alloc_warp:`), tcgen05.alloc of total_cols columns into the slot
 * (and __syncwarp), dealloc the relinquish and the tcgen05.dealloc in warp
 * dealloc_warp.
 *
 * MMA operands: pool.alloc_tcgen05_mma_AB allocates with the MMA shared-memory
 * layout of a swizzle (ly_mma_shared_layout), tmem.alloc_tcgen05_mma_A/_D/_C
 * with the data-path layout of the instruction (ly_tmem_mma_operand_layout),
 * tmem.alloc_sf the scale factors of a block-scaled MMA (ly_tmem_sf_layout).
 * An assignment names the pool's buffers after it, as the reference does
 * (`smem = T.SMEMPool()` declares smem_buf), and its messages ("smem.alloc"). */
#include "../layout/layout.h"
#include "elab.h"
#include "../arith/arith.h"

struct ScPool {
    bool tmem;
    const char *name; /* for messages: the name it is assigned to */
    int64_t offset; /* the cursor: bytes (SMEM) or 32-bit columns (TMEM) */
    int64_t max_offset;
    bool committed, deallocated;
    IrExpr *buffer; /* SMEM: pool_buf; TMEM: the address slot, when the pool declared it */
    /* TMEM */
    IrExpr *addr; /* the TMEM address: a load of the slot */
    int64_t total_cols, cta_group, alloc_warp, dealloc_warp;
    bool sync_after_alloc;
};

static ScVal pool_val(ScPool *p, TxSpan sp)
{
    ScVal v = {.kind = SV_POOL, .fresh = true, .span = sp};
    v.u.pool = p;
    return v;
}

const char *el_pool_kind_name(const ScPool *p) { return p->tmem ? "a TMEM pool" : "an SMEM pool"; }

void el_pool_named(El *E, ScPool *p, const char *name)
{
    p->name = name;
    if (p->buffer)
        p->buffer->u.var.name = tx_arena_printf(E->a, p->tmem ? "%s__addr_buf" : "%s_buf", name);
}

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
    ScPool *p = TX_NEW(E->a, ScPool);
    p->buffer = buf, p->name = "pool";
    return pool_val(p, args->span);
}

ScVal el_pool_attr(El *E, ScVal pool, const char *name, TxSpan sp)
{
    static const char *const smem_methods[] = {"alloc", "alloc_tcgen05_mma_AB", "move_base_to",
                                               "commit"};
    static const char *const tmem_methods[] = {
        "alloc", "alloc_tcgen05_mma_A", "alloc_tcgen05_mma_D", "alloc_tcgen05_mma_C",
        "alloc_sf", "move_base_to", "commit", "dealloc", "addr"};
    const ScPool *p = pool.u.pool;
    if (p->tmem && !strcmp(name, "addr"))
        return sv_expr(p->addr, sp);
    return p->tmem ? el_method_attr(E, pool, tmem_methods, (int)TX_ARRAY_LEN(tmem_methods), name,
                                    sp, "a TMEM pool")
                   : el_method_attr(E, pool, smem_methods, (int)TX_ARRAY_LEN(smem_methods), name,
                                    sp, "an SMEM pool");
}

/* The most elements one pool allocation may have (keeps byte and bit counts
 * in range), and the most dimensions. */
#define POOL_MAX_ELEMS ((int64_t)1 << 40)
#define POOL_MAX_DIMS 8

/* The dimensions and the element count of a constant shape (a tuple, a list
 * or one integer). */
static bool shape_elems(El *E, const ScVal *shape, const char *what, int64_t *out, int *ndim,
                        int64_t dims[POOL_MAX_DIMS])
{
    bool seq = shape->kind == SV_TUPLE || shape->kind == SV_LIST;
    int n = seq ? shape->u.seq.n : 1;
    const ScVal *items = seq ? shape->u.seq.items : shape;
    if (n > POOL_MAX_DIMS) {
        el_error(E, TX_E_POOL, shape->span,
                 "%s has %d dimensions; a pool allocation has at most %d", what,
                 n, POOL_MAX_DIMS);
        return false;
    }
    int64_t elems = 1;
    for (int i = 0; i < n; i++) {
        int64_t d;
        if (!el_int_const(E, &items[i], &d, what))
            return false;
        if (d < 0 || __builtin_mul_overflow(elems, d, &elems) || elems > POOL_MAX_ELEMS) {
            el_error(E, TX_E_POOL, items[i].span, "%s: dimension %lld is %s", what, (long long)d,
                     d < 0 ? "negative" : "too large");
            return false;
        }
        dims[i] = d;
    }
    *out = elems, *ndim = n;
    return true;
}

/* Arguments of a call the pool makes itself, built as the script would pass them. */
typedef struct CallArgs {
    ScVal pos[3], kw[6];
    const char *names[6];
    TxSpan spans[6];
    int npos, nkw;
} CallArgs;

static void kw_add(CallArgs *k, const char *name, ScVal v)
{
    k->names[k->nkw] = name, k->spans[k->nkw] = v.span, k->kw[k->nkw++] = v;
}

static ScArgs call_args(CallArgs *k, const ScArgs *caller, const char *fname)
{
    ScArgs a = {.call = caller->call, .span = caller->span, .fname = fname, .npos = k->npos,
                .pos = k->pos, .nkw = k->nkw, .kw = k->kw, .kwnames = k->names,
                .kwspans = k->spans};
    return a;
}

static ScVal dtype_str(El *E, IrDType t, TxSpan sp)
{
    char dt[IR_DTYPE_STR_MAX];
    return sv_str(E, tx_arena_strdup(E->a, ir_dtype_str(t, dt)), sp);
}

/* ---------------------------------------------------------------- SMEM */
/* pool.alloc(shape, dtype="float32", strides=None, scope="shared.dyn", align=0, layout=) */
static ScVal smem_alloc(El *E, ScPool *p, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "shape, dtype=, strides=, scope=, align=, layout=", &b))
        return sv_error();
    IrDType t = IR_FLOAT32;
    int64_t align = 0, elems, dims[POOL_MAX_DIMS];
    int ndim;
    if ((sv_given(&b.v[1]) && !el_dtype_of(E, &b.v[1], &t, "the dtype")) ||
        (sv_given(&b.v[4]) && !el_int_const(E, &b.v[4], &align, "align")) ||
        !shape_elems(E, &b.v[0], "a pool allocation's shape", &elems, &ndim, dims))
        return sv_error();
    if (align > INT32_MAX) {
        el_error(E, TX_E_POOL, b.v[4].span, "%s: align must be at most %d, got %lld", args->fname,
                 INT32_MAX, (long long)align);
        return sv_error();
    }
    int64_t bits = (int64_t)t.bits * t.lanes;
    if (bits <= 0) {
        el_error(E, TX_E_POOL, b.v[1].span, "%s needs an element dtype, not void", args->fname);
        return sv_error();
    }
    int64_t bytes = (elems * bits + 7) / 8;
    if (align > 0)
        p->offset = (p->offset + align - 1) / align * align;
    if ((p->offset * 8) % bits) {
        char dt[IR_DTYPE_STR_MAX];
        el_error(E, TX_E_POOL, args->span,
                 "%s: byte offset %lld is not a whole number of %s elements; "
                 "give align= or move the base with %s.move_base_to", args->fname,
                 (long long)p->offset, ir_dtype_str(t, dt), p->name);
        return sv_error();
    }
    CallArgs k = {.npos = 2};
    k.pos[0] = b.v[0], k.pos[1] = dtype_str(E, t, args->span);
    IrExpr *data = el_call_node(E, IR_OP_BUFFER_DATA, IR_HANDLE, &p->buffer, 1, args->span);
    kw_add(&k, "data", sv_expr(data, args->span));
    kw_add(&k, "elem_offset", sv_int(p->offset * 8 / bits, args->span));
    kw_add(&k, "scope", sv_given(&b.v[3]) ? b.v[3] : sv_str(E, "shared.dyn", args->span));
    kw_add(&k, "align", sv_int(align > 0 ? align : 64, args->span));
    if (sv_given(&b.v[2]))
        kw_add(&k, "strides", b.v[2]);
    if (sv_given(&b.v[5]))
        kw_add(&k, "layout", b.v[5]);
    ScArgs decl = call_args(&k, args, "T.decl_buffer");
    ScVal v = bi_decl_buffer(E, &decl);
    p->offset += bytes;
    if (p->offset > p->max_offset)
        p->max_offset = p->offset;
    return v;
}

/* The MMA swizzle of swizzle_mode=: "auto" (128 bytes), "none" (0), or the
 * swizzle's width in bytes (0, 32, 64, 128). */
static bool swizzle_mode_arg(El *E, const ScVal *v, int *bytes)
{
    *bytes = 128;
    if (!sv_given(v))
        return true;
    if (v->kind == SV_STR && (!strcmp(v->u.str.s, "auto") || !strcmp(v->u.str.s, "none"))) {
        *bytes = v->u.str.s[0] == 'a' ? 128 : 0;
        return true;
    }
    if (v->kind == SV_INT && (v->u.i == 0 || v->u.i == 32 || v->u.i == 64 || v->u.i == 128)) {
        *bytes = (int)v->u.i;
        return true;
    }
    if (v->kind != SV_ERROR)
        el_error(E, TX_E_POOL, v->span,
                 "swizzle_mode is \"auto\", \"none\" or a width of 0, 32, 64 or "
                 "128 bytes");
    return false;
}

/* The shape an MMA swizzle atom (8 rows of `bytes`) tiles. */
static bool mma_shape_ok(El *E, const int64_t *dims, int ndim, int64_t bits, int bytes,
                         const ScArgs *args)
{
    TxSpan sp = args->span;
    if (ndim < 2) {
        el_error(E, TX_E_POOL, sp, "%s: an MMA tile has 2 or more dimensions (rows, cols)",
                 args->fname);
        return false;
    }
    if (!bytes)
        return true;
    int64_t rows = dims[ndim - 2], row_bits = dims[ndim - 1] * bits, atom_bits = bytes * 8;
    if (row_bits < atom_bits || row_bits % atom_bits) {
        el_error(E, TX_E_POOL, sp,
                 "%s: rows of %lld bits do not fit the %d-byte swizzle atom; widen "
                 "shape[-1] to a multiple of %lld elements or give swizzle_mode=\"none\"",
                 args->fname, (long long)row_bits, bytes, (long long)(atom_bits / bits));
        return false;
    }
    if (rows < 8 || rows % 8) {
        el_error(E, TX_E_POOL, sp,
                 "%s: the swizzle atom has 8 rows, but shape[-2] is %lld; use a multiple "
                 "of 8 or swizzle_mode=\"none\"", args->fname, (long long)rows);
        return false;
    }
    return true;
}

/* pool.alloc_tcgen05_mma_AB(shape, dtype="float16", swizzle_mode="auto", align=1024): an
 * MMA operand tile with the MMA shared-memory layout of that swizzle. */
static ScVal smem_alloc_mma(El *E, ScPool *p, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "shape, dtype=, swizzle_mode=, align=", &b))
        return sv_error();
    IrDType t = IR_FLOAT16;
    int64_t elems, dims[POOL_MAX_DIMS];
    int ndim, bytes;
    if ((sv_given(&b.v[1]) && !el_dtype_of(E, &b.v[1], &t, "the dtype")) ||
        !swizzle_mode_arg(E, &b.v[2], &bytes) ||
        !shape_elems(E, &b.v[0], "an MMA tile's shape", &elems, &ndim, dims))
        return sv_error();
    int64_t bits = (int64_t)t.bits * t.lanes;
    if (bits <= 0) {
        el_error(E, TX_E_POOL, b.v[1].span, "%s needs an element dtype, not void", args->fname);
        return sv_error();
    }
    CallArgs k = {.npos = 2};
    k.pos[0] = b.v[0], k.pos[1] = dtype_str(E, t, args->span);
    if (!elems && ndim >= 2) {
        /* an empty tile (a variant a constant turns off): no bytes and no
         * padding before them, and no layout (nothing to lay out) */
        kw_add(&k, "align", sv_int(1, args->span));
        ScArgs alloc = call_args(&k, args, args->fname);
        return smem_alloc(E, p, &alloc);
    }
    kw_add(&k, "align", sv_given(&b.v[3]) ? b.v[3] : sv_int(1024, args->span));
    if (!mma_shape_ok(E, dims, ndim, bits, bytes, args))
        return sv_error();
    LyCtx c = ly_ctx(E->a);
    ScVal lay = {.kind = SV_LAYOUT, .span = args->span};
    if (!(lay.u.layout = ly_mma_shared_layout(&c, t, bytes, dims, ndim))) {
        el_error(E, TX_E_POOL, args->span, "%s: %s", args->fname, c.err);
        return sv_error();
    }
    kw_add(&k, "layout", lay);
    ScArgs alloc = call_args(&k, args, args->fname);
    return smem_alloc(E, p, &alloc);
}

/* pool.commit(size=None) */
static ScVal smem_commit(El *E, ScPool *p, ScArgs *args)
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
        el_error(E, TX_E_POOL, b.v[0].span, "%s: size %lld is less than the %lld bytes allocated",
                 args->fname, (long long)size, (long long)p->max_offset);
        return sv_error();
    }
    if (p->committed) {
        el_error(E, TX_E_POOL, args->span, "%s: the pool is already committed", args->fname);
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

/* pool.move_base_to(offset): bytes, or TMEM columns */
static ScVal pool_move(El *E, ScPool *p, ScArgs *args)
{
    ScBound b;
    int64_t off;
    if (!el_bind_args(E, args, "offset", &b) || !el_int_const(E, &b.v[0], &off, "the offset"))
        return sv_error();
    if (off < 0) {
        el_error(E, TX_E_POOL, b.v[0].span, "%s: the offset must not be negative", args->fname);
        return sv_error();
    }
    p->offset = off;
    if (p->tmem && off > p->max_offset) /* as the reference: a TMEM base counts as used */
        p->max_offset = off;
    return sv_none(args->span);
}

/* ---------------------------------------------------------------- TMEM */
static bool flag_arg(El *E, const ScVal *v, bool dflt, bool *out, const char *what)
{
    *out = dflt;
    if (!sv_given(v))
        return true;
    if (!sv_truth(v, out) || (v->kind != SV_BOOL && v->kind != SV_INT)) {
        el_error(E, TX_E_POOL, v->span, "%s takes True or False", what);
        return false;
    }
    return true;
}

static bool int_arg(El *E, const ScVal *v, int64_t dflt, int64_t *out, const char *what)
{
    *out = dflt;
    return !sv_given(v) || v->kind == SV_NONE || el_int_const(E, v, out, what);
}

/* The TMEM address held by tmem_addr=: a buffer's first element, or the value. */
static IrExpr *address_of_slot(El *E, const ScVal *v)
{
    if (v->kind == SV_BUFFER) {
        IrExpr **zero = TX_NEW_ARRAY(E->a, IrExpr *, 1);
        zero[0] = ir_int(E->a, IR_INT32, 0, v->span);
        return el_load(E, v->u.e, zero, 1, v->span);
    }
    IrExpr *e = el_prim(E, v, "tmem_addr");
    if (e && !ir_dtype_is_int(e->dtype)) {
        el_error(E, TX_E_POOL, v->span, "tmem_addr must be an integer or a buffer holding one");
        return NULL;
    }
    return e;
}

/* T.TMEMPool(pool, total_cols=512, *, cta_group=1, alloc_warp=0, dealloc_warp=None,
 *            tmem_addr=None, sync_after_alloc=True) */
ScVal bi_tmem_pool(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "pool, total_cols=, *, cta_group=, alloc_warp=, dealloc_warp=, "
                               "tmem_addr=, sync_after_alloc=", &b))
        return sv_error();
    ScPool *p = TX_NEW(E->a, ScPool);
    p->tmem = true, p->name = "tmem";
    if (!int_arg(E, &b.v[1], 512, &p->total_cols, "total_cols") ||
        !int_arg(E, &b.v[2], 1, &p->cta_group, "cta_group") ||
        !int_arg(E, &b.v[3], 0, &p->alloc_warp, "alloc_warp") ||
        !int_arg(E, &b.v[4], p->alloc_warp, &p->dealloc_warp, "dealloc_warp") ||
        !flag_arg(E, &b.v[6], true, &p->sync_after_alloc, "sync_after_alloc"))
        return sv_error();
    if (p->cta_group != 1 && p->cta_group != 2) {
        el_error(E, TX_E_POOL, b.v[2].span, "T.TMEMPool: cta_group is 1 or 2, not %lld",
                 (long long)p->cta_group);
        return sv_error();
    }
    if (p->total_cols < 32 || p->total_cols > 512 || (p->total_cols & (p->total_cols - 1))) {
        el_error(E, TX_E_POOL, sv_given(&b.v[1]) ? b.v[1].span : args->span,
                 "T.TMEMPool: total_cols is a power of two from 32 to 512, not %lld",
                 (long long)p->total_cols);
        return sv_error();
    }
    const ScVal *addr = &b.v[5];
    if (sv_given(addr) && addr->kind != SV_NONE) {
        if (!(p->addr = address_of_slot(E, addr)))
            return sv_error();
        return pool_val(p, args->span);
    }
    const ScVal *smem = &b.v[0];
    if (smem->kind != SV_POOL || smem->u.pool->tmem) {
        if (smem->kind != SV_ERROR)
            el_error(E, TX_E_POOL, smem->span,
                     "T.TMEMPool takes the SMEM pool that holds its address slot "
                     "(T.SMEMPool()), or tmem_addr=");
        return sv_error();
    }
    CallArgs k = {.npos = 2};
    k.pos[0] = sv_int(1, args->span), k.pos[1] = sv_str(E, "uint32", args->span);
    kw_add(&k, "align", sv_int(4, args->span));
    ScArgs slot_args = call_args(&k, args, args->fname);
    ScVal slot = smem_alloc(E, smem->u.pool, &slot_args);
    if (slot.kind == SV_ERROR)
        return slot;
    p->buffer = slot.u.e;
    p->buffer->u.var.name = "tmem__addr_buf";
    p->addr = address_of_slot(E, &slot);
    return pool_val(p, args->span);
}

/* The TMEM columns of an allocation: cols=, else the layout's TCol span in
 * 32-bit cells, else the shape's bits over its rows. */
static bool tmem_cols(El *E, const ScBound *b, IrDType t, const IrLayout *layout, int64_t elems,
                      int ndim, const int64_t *dims, int64_t *cols, const ScArgs *args)
{
    const char *fn = args->fname;
    TxSpan sp = args->span;
    int64_t bits = (int64_t)t.bits * t.lanes;
    if (sv_given(&b->v[3]) && b->v[3].kind != SV_NONE) {
        if (!el_int_const(E, &b->v[3], cols, "cols"))
            return false;
        if (*cols < 0)
            el_error(E, TX_E_POOL, b->v[3].span, "%s: cols must not be negative", fn);
        return *cols >= 0;
    }
    if (layout) {
        LyCtx c = ly_ctx(E->a);
        IrExpr *span = ly_span(&c, layout, "TCol");
        int64_t n;
        if (!span || !ar_const_int(span, &n) || n < 0 || n > POOL_MAX_ELEMS) {
            el_error(E, TX_E_POOL, sp,
                     "%s: the layout's TCol span is not a constant column count; give "
                     "cols=", fn);
            return false;
        }
        if ((n * bits) % 32) {
            el_error(E, TX_E_POOL, sp,
                     "%s: the layout's TCol span of %lld %lld-bit element%s is not a "
                     "whole number of 32-bit columns", fn, (long long)n, (long long)bits,
                     n == 1 ? "" : "s");
            return false;
        }
        *cols = n * bits / 32;
        return true;
    }
    if (ndim != 2) {
        el_error(E, TX_E_POOL, sp, "%s: a %d-d TMEM buffer needs cols= or layout=", fn, ndim);
        return false;
    }
    if (dims[0] < 1 || (elems * bits) % (32 * dims[0])) {
        el_error(E, TX_E_POOL, sp, "%s: cannot infer the TMEM columns of shape (%lld, %lld) of "
                 "%lld-bit elements; give cols=", fn, (long long)dims[0], (long long)dims[1],
                 (long long)bits);
        return false;
    }
    *cols = elems * bits / (32 * dims[0]);
    return true;
}

/* The layout of an M=128 accumulator (datapath D): row r on lane r. */
static ScVal default_tmem_layout(El *E, const int64_t *dims, TxSpan sp)
{
    IrIter *it = TX_NEW_ARRAY(E->a, IrIter, 2);
    it[0] = (IrIter){ir_int(E->a, IR_INT32, dims[0], sp), ir_int(E->a, IR_INT32, 1, sp), "TLane"};
    it[1] = (IrIter){ir_int(E->a, IR_INT32, dims[1], sp), ir_int(E->a, IR_INT32, 1, sp), "TCol"};
    LyCtx c = ly_ctx(E->a);
    ScVal v = {.kind = SV_LAYOUT, .span = sp};
    v.u.layout = ly_tile(&c, it, 2, NULL, 0, NULL, 0);
    return v;
}

/* tmem.alloc(shape, dtype="float32", *, layout=None, cols=None) */
static ScVal tmem_alloc(El *E, ScPool *p, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "shape, dtype=, *, layout=, cols=", &b))
        return sv_error();
    IrDType t = IR_FLOAT32;
    int64_t elems, dims[POOL_MAX_DIMS] = {0}, cols;
    int ndim;
    if ((sv_given(&b.v[1]) && !el_dtype_of(E, &b.v[1], &t, "the dtype")) ||
        !shape_elems(E, &b.v[0], "a TMEM allocation's shape", &elems, &ndim, dims))
        return sv_error();
    if (t.bits * t.lanes <= 0) {
        el_error(E, TX_E_POOL, b.v[1].span, "%s needs an element dtype, not void", args->fname);
        return sv_error();
    }
    bool has_layout = sv_given(&b.v[2]) && b.v[2].kind != SV_NONE;
    const IrLayout *layout = has_layout ? el_layout_of(E, &b.v[2], "layout") : NULL;
    if ((has_layout && !layout) ||
        !tmem_cols(E, &b, t, layout, elems, ndim, dims, &cols, args))
        return sv_error();
    if (p->offset > p->total_cols || cols > p->total_cols - p->offset) {
        el_error(E, TX_E_POOL, args->span,
                 "%s: TMEM overflow: %lld columns at column %lld of a pool of "
                 "%lld", args->fname, (long long)cols, (long long)p->offset,
                 (long long)p->total_cols);
        return sv_error();
    }
    if (!has_layout && ndim != 2) {
        el_error(E, TX_E_POOL, args->span, "%s: a %d-d TMEM buffer needs layout=", args->fname,
                 ndim);
        return sv_error();
    }
    CallArgs k = {.npos = 2};
    k.pos[0] = b.v[0], k.pos[1] = dtype_str(E, t, args->span);
    kw_add(&k, "scope", sv_str(E, "tmem", args->span));
    kw_add(&k, "allocated_addr", sv_int(p->offset, args->span));
    kw_add(&k, "layout", has_layout ? b.v[2] : default_tmem_layout(E, dims, args->span));
    ScArgs decl = call_args(&k, args, "T.decl_buffer");
    ScVal v = bi_decl_buffer(E, &decl);
    p->offset += cols;
    if (p->offset > p->max_offset)
        p->max_offset = p->offset;
    return v;
}

/* tmem.alloc_tcgen05_mma_A(shape, dtype="bfloat16", *, M, cta_group, ws=False,
 * sparse=False, cols=None) / alloc_tcgen05_mma_D (or _C)(shape, dtype="float32", *, M,
 * cta_group, ws=False, sparse=False, group=None, cols=None): an MMA operand in TMEM with
 * the layout of the data path the instruction's M and cta_group select. */
static ScVal tmem_alloc_mma(El *E, ScPool *p, ScArgs *args, char operand)
{
    ScBound b;
    if (!el_bind_args(E, args, operand == 'A'
                                   ? "shape, dtype=, *, M, cta_group, ws=, sparse=, cols="
                                   : "shape, dtype=, *, M, cta_group, ws=, sparse=, cols=, group=",
                      &b))
        return sv_error();
    int64_t elems, dims[POOL_MAX_DIMS], m, group, groups[POOL_MAX_DIMS];
    int ndim, ngroup = 0;
    bool ws, sparse;
    if (!shape_elems(E, &b.v[0], "a TMEM operand's shape", &elems, &ndim, dims) ||
        !el_int_const(E, &b.v[2], &m, "M") || !el_int_const(E, &b.v[3], &group, "cta_group") ||
        !flag_arg(E, &b.v[4], false, &ws, "ws") || !flag_arg(E, &b.v[5], false, &sparse, "sparse"))
        return sv_error();
    const ScVal *g = operand == 'D' ? &b.v[7] : NULL;
    if (g && sv_given(g) && g->kind != SV_NONE &&
        !shape_elems(E, g, "group", &elems, &ngroup, groups))
        return sv_error();
    if (ngroup && ngroup != 3) {
        el_error(E, TX_E_POOL, g->span, "group= is (s, 2, n)");
        return sv_error();
    }
    LyCtx c = ly_ctx(E->a);
    ScVal lay = {.kind = SV_LAYOUT, .span = args->span};
    lay.u.layout = ly_tmem_mma_operand_layout(&c, operand, dims, ndim, m, group, ws, sparse,
                                              ngroup ? groups : NULL);
    if (!lay.u.layout) {
        el_error(E, TX_E_POOL, args->span, "%s: %s", args->fname, c.err);
        return sv_error();
    }
    CallArgs k = {.npos = 2};
    k.pos[0] = b.v[0];
    k.pos[1] = sv_given(&b.v[1]) ? b.v[1]
                                 : sv_str(E, operand == 'A' ? "bfloat16" : "float32", args->span);
    kw_add(&k, "layout", lay);
    if (sv_given(&b.v[6]))
        kw_add(&k, "cols", b.v[6]);
    ScArgs alloc = call_args(&k, args, args->fname);
    return tmem_alloc(E, p, &alloc);
}

/* tmem.alloc_sf(shape, dtype, *, sf_per_mma, sf_reuse=1): the scale factors of a
 * block-scaled tcgen05.mma, shape (rows, SF_K * sf_reuse) or (pipe_depth, rows,
 * SF_K * sf_reuse), 8-bit; whole 32-bit columns. */
static ScVal tmem_alloc_sf(El *E, ScPool *p, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "shape, dtype, *, sf_per_mma, sf_reuse=", &b))
        return sv_error();
    int64_t elems, dims[POOL_MAX_DIMS], per_mma, reuse = 1;
    int ndim;
    IrDType t;
    if (!shape_elems(E, &b.v[0], "a scale-factor shape", &elems, &ndim, dims) ||
        !el_dtype_of(E, &b.v[1], &t, "the dtype") ||
        !el_int_const(E, &b.v[2], &per_mma, "sf_per_mma") ||
        (sv_given(&b.v[3]) && !el_int_const(E, &b.v[3], &reuse, "sf_reuse")))
        return sv_error();
    if (ndim != 2 && ndim != 3) {
        el_error(E, TX_E_POOL, b.v[0].span, "%s: the shape is (rows, SF_K * sf_reuse) or "
                 "(pipe_depth, rows, SF_K * sf_reuse)", args->fname);
        return sv_error();
    }
    if (t.bits * t.lanes != 8) {
        el_error(E, TX_E_POOL, b.v[1].span, "%s: scale factors are 8-bit (float8_e8m0fnu, "
                 "float8_e4m3fn)", args->fname);
        return sv_error();
    }
    if (reuse < 1 || dims[ndim - 1] % reuse) {
        el_error(E, TX_E_POOL, args->span, "%s: the last dimension (%lld) must be a multiple "
                 "of sf_reuse (%lld)", args->fname, (long long)dims[ndim - 1], (long long)reuse);
        return sv_error();
    }
    LyCtx c = ly_ctx(E->a);
    ScVal lay = {.kind = SV_LAYOUT, .span = args->span};
    lay.u.layout = ly_tmem_sf_layout(&c, dims[ndim - 2], dims[ndim - 1] / reuse, per_mma, reuse,
                                     ndim == 3 ? dims[0] : 0);
    IrExpr *span = lay.u.layout ? ly_span(&c, lay.u.layout, "TCol") : NULL;
    int64_t n = 0;
    if (!span || !ar_const_int(span, &n)) {
        el_error(E, TX_E_POOL, args->span, "%s: %s", args->fname, c.err ? c.err : "no layout");
        return sv_error();
    }
    CallArgs k = {.npos = 2};
    k.pos[0] = b.v[0], k.pos[1] = b.v[1];
    kw_add(&k, "layout", lay);
    kw_add(&k, "cols", sv_int((n + 3) / 4, args->span));
    ScArgs alloc = call_args(&k, args, args->fname);
    return tmem_alloc(E, p, &alloc);
}

/* Emit `v = T.warp_id()` and `if v == warp:` around the statements `emit` adds. */
static bool in_warp(El *E, ScPool *p, int64_t warp, const ScArgs *args,
                    bool (*emit)(El *, ScPool *, const ScArgs *))
{
    CallArgs none = {0};
    ScArgs id_args = call_args(&none, args, "T.warp_id");
    int saved = E->ntargets;
    E->ntargets = 0;
    ScVal id = bi_scope_id(E, &id_args);
    E->ntargets = saved;
    if (id.kind == SV_ERROR)
        return false;
    ScStmtList outer = el_block_begin(E);
    bool ok = emit(E, p, args);
    IrStmt *then_s = el_block_end(E, outer, args->span);
    if (!ok)
        return false;
    IrStmt *s = ir_stmt(E->a, IR_S_IF, args->span);
    const char *err = NULL;
    s->u.ifs.cond = ar_binary(E->a, IR_E_EQ, id.u.e, ir_int(E->a, id.u.e->dtype, warp, args->span),
                              args->span, &err);
    s->u.ifs.then_s = then_s;
    el_emit(E, s);
    return s->u.ifs.cond != NULL;
}

/* One call statement: T.ptx[...](...), T.cuda.warp_sync(). */
static bool emit_call(El *E, const char *path, ScVal *pos, int npos, const ScArgs *caller)
{
    CallArgs k = {.npos = npos};
    for (int i = 0; i < npos; i++)
        k.pos[i] = pos[i];
    ScArgs a = call_args(&k, caller, path);
    ScVal r = el_call_path(E, path, &a);
    IrExpr *e = r.kind == SV_ERROR ? NULL : el_prim(E, &r, "a call");
    if (!e)
        return false;
    IrStmt *s = ir_stmt(E->a, IR_S_EVAL, caller->span);
    s->u.eval = e;
    el_emit(E, s);
    return true;
}

static ScVal uint32_val(El *E, int64_t v, TxSpan sp)
{
    return sv_expr(ir_int(E->a, IR_UINT32, v, sp), sp);
}

static bool emit_alloc(El *E, ScPool *p, const ScArgs *args)
{
    ScVal addr = sv_expr(p->addr, args->span);
    CallArgs k = {.npos = 1, .pos = {addr}};
    ScArgs a = call_args(&k, args, "T.address_of");
    ScVal pos[2] = {el_call_path(E, "address_of", &a), uint32_val(E, p->total_cols, args->span)};
    const char *path = tx_arena_printf(E->a, "ptx[tcgen05.alloc.cta_group::%lld.sync.aligned."
                                             "shared::cta.b32", (long long)p->cta_group);
    return pos[0].kind != SV_ERROR && emit_call(E, path, pos, 2, args) &&
           (!p->sync_after_alloc || emit_call(E, "cuda.warp_sync", NULL, 0, args));
}

static bool emit_dealloc(El *E, ScPool *p, const ScArgs *args)
{
    long long g = (long long)p->cta_group;
    ScVal pos[2] = {sv_expr(p->addr, args->span), uint32_val(E, p->total_cols, args->span)};
    const char *relinquish = tx_arena_printf(
        E->a, "ptx[tcgen05.relinquish_alloc_permit.cta_group::%lld.sync.aligned", g);
    const char *dealloc =
        tx_arena_printf(E->a, "ptx[tcgen05.dealloc.cta_group::%lld.sync.aligned.b32", g);
    return emit_call(E, relinquish, NULL, 0, args) && emit_call(E, dealloc, pos, 2, args);
}

/* tmem.commit() / tmem.dealloc() */
static ScVal tmem_commit(El *E, ScPool *p, ScArgs *args, bool dealloc)
{
    ScBound b;
    if (!el_bind_args(E, args, "", &b))
        return sv_error();
    const char *problem = NULL;
    if (!dealloc && p->committed)
        problem = "the pool is already committed";
    else if (dealloc && !p->committed)
        problem = "the pool is not committed";
    else if (dealloc && p->deallocated)
        problem = "the pool is already deallocated";
    if (problem) {
        el_error(E, TX_E_POOL, args->span, "%s: %s", args->fname, problem);
        return sv_error();
    }
    *(dealloc ? &p->deallocated : &p->committed) = true;
    bool ok = dealloc ? in_warp(E, p, p->dealloc_warp, args, emit_dealloc)
                      : in_warp(E, p, p->alloc_warp, args, emit_alloc);
    return ok ? sv_none(args->span) : sv_error();
}

ScVal el_pool_method(El *E, ScVal pool, const char *name, ScArgs *args)
{
    ScPool *p = pool.u.pool;
    args->fname = tx_arena_printf(E->a, "%s.%s", p->name, name);
    if (!strcmp(name, "move_base_to"))
        return pool_move(E, p, args);
    if (!p->tmem && !strcmp(name, "alloc_tcgen05_mma_AB"))
        return smem_alloc_mma(E, p, args);
    if (!p->tmem)
        return !strcmp(name, "alloc") ? smem_alloc(E, p, args) : smem_commit(E, p, args);
    if (!strcmp(name, "alloc"))
        return tmem_alloc(E, p, args);
    if (!strcmp(name, "alloc_sf"))
        return tmem_alloc_sf(E, p, args);
    if (!strncmp(name, "alloc_tcgen05_mma_", 18))
        return tmem_alloc_mma(E, p, args, name[18] == 'A' ? 'A' : 'D');
    return tmem_commit(E, p, args, !strcmp(name, "dealloc"));
}
