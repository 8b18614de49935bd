/* What the copy_async TMA variants share (tma.h): reading the call and its
 * config keys, the descriptor element type, the global base through views,
 * the tensor-map rules, tma_auto's repair (canonicalization and element
 * widening), and the emission: the host encode placed first in the device
 * region (SplitHostDevice hoists it), the issue loops and one
 * cp.async.bulk.tensor / cp.reduce.async.bulk.tensor per box, as the
 * reference's TMA dispatch emits them, and after a store's boxes the
 * cp.async.bulk.commit_group that the reference leaves to the caller
 * (docs/primitives.md, copy_async). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../arith/arith.h"
#include "tma.h"

/* ---------------------------------------------------------------- proofs */

static IrExpr *c64(OpCtx *c, int64_t v) { return ar_index_int(c->arena, v); }

TmaProof tma_multiple(OpCtx *c, IrExpr *e, int64_t m)
{
    int64_t v;
    if (op_const(e, &v))
        return v % m == 0 ? TMA_PROVEN : TMA_DISPROVEN;
    if (ar_known_multiple(c->multiples, e) % m == 0)
        return TMA_PROVEN;
    return TMA_UNKNOWN;
}

TmaProof tma_equal(OpCtx *c, IrExpr *a, IrExpr *b)
{
    int64_t x, y;
    if (op_const(a, &x) && op_const(b, &y))
        return x == y ? TMA_PROVEN : TMA_DISPROVEN;
    if (ar_expr_value_equal(a, b))
        return TMA_PROVEN;
    ArCtx ac;
    ar_ctx_init(&ac, c->arena);
    IrExpr *d = ar_simplify(&ac, ar_sub(c->arena, a, b));
    ar_ctx_free(&ac);
    return op_const(d, &x) ? (x == 0 ? TMA_PROVEN : TMA_DISPROVEN) : TMA_UNKNOWN;
}

TmaProof tma_in_range(IrExpr *e, int64_t lo, int64_t hi)
{
    int64_t l, h;
    if (op_const(e, &l))
        return l >= lo && l <= hi ? TMA_PROVEN : TMA_DISPROVEN;
    ar_bound(NULL, e, &l, &h);
    if (l >= lo && h <= hi)
        return TMA_PROVEN;
    return h < lo || l > hi ? TMA_DISPROVEN : TMA_UNKNOWN;
}

/* ---------------------------------------------------------------- the call */

/* The forms whose presence in the PTX table decides what a target can do. */
#define TMA_LOAD_2D "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
#define TMA_GATHER4 "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4." \
                    "mbarrier::complete_tx::bytes"

const char *tma_accept_scope(OpCtx *c)
{
    const char *why = op_need_ptx(c, "TMA", TMA_LOAD_2D);
    if (why)
        return why;
    why = op_need_scope(c, OP_SCOPE_BIT(IR_SCOPE_THREAD));
    return why ? op_reason(c, "%s (one elected thread issues TMA)", why) : NULL;
}

static const char *const common_keys[] = {
    "cache_hint", "cta_group", "cta_mask", "mbar", "mbarrier_addr", "oob",
    "prefetch_tensormap", "tensormap_l2_promotion", "tma_dtype", "use_tma_reduce",
};

static const char *const explicit_keys_only[] = {"gather4", "src_selector"};

static bool listed(const char *key, const char *const *keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(key, keys[i]))
            return true;
    return false;
}

static const char *str_value(const IrExpr *e) { return e && e->kind == IR_E_STR ? e->u.str : NULL; }

static bool is_zero(const IrExpr *e)
{
    int64_t v;
    return !e || (op_const(e, &v) && v == 0) || (e->kind == IR_E_PYINT && e->u.int_val == 0);
}

static bool int_value(const IrExpr *e, int64_t *v)
{
    if (e && (e->kind == IR_E_PYINT || e->kind == IR_E_PYBOOL)) {
        *v = e->u.int_val;
        return true;
    }
    return e && op_const(e, v);
}

static const char *read_l2(OpCtx *c, TmaCall *t)
{
    static const char *const names[] = {"none", "L2::64B", "L2::128B", "L2::256B"};
    IrExpr *v = op_config(c, "tensormap_l2_promotion");
    int64_t n;
    t->l2_promotion = 2;
    if (!v || v->kind == IR_E_NONE)
        return NULL;
    if (int_value(v, &n) && n >= 0 && n <= 3) {
        t->l2_promotion = (int)n;
        return NULL;
    }
    for (int i = 0; str_value(v) && i < 4; i++)
        if (!strcmp(v->u.str, names[i]) || (i == 0 && !strcmp(v->u.str, "L2::none"))) {
            t->l2_promotion = i;
            return NULL;
        }
    return op_reason(c, "tensormap_l2_promotion must be 0..3, 'none', 'L2::64B', 'L2::128B' or "
                        "'L2::256B'");
}

static const char *read_cache_hint(OpCtx *c, TmaCall *t)
{
    static const struct { const char *name; uint64_t policy; } hints[] = {
        {"evict_normal", 0x1000000000000000ull},
        {"evict_first", 0x12F0000000000000ull},
        {"evict_last", 0x14F0000000000000ull},
    };
    IrExpr *v = op_config(c, "cache_hint");
    if (!v || v->kind == IR_E_NONE || (str_value(v) && !*v->u.str))
        return NULL;
    if (!str_value(v)) {
        if (!ir_dtype_is_int(v->dtype))
            return op_reason(c, "cache_hint must be a policy name or a 64-bit cache policy");
        t->cache_policy = op_cast(c, IR_UINT64, v);
        return NULL;
    }
    for (size_t i = 0; i < TX_ARRAY_LEN(hints); i++)
        if (!strcmp(v->u.str, hints[i].name)) {
            t->cache_policy = ar_make_int(c->arena, IR_UINT64, (int64_t)hints[i].policy,
                                          c->call->span);
            return NULL;
        }
    return op_reason(c, "cache_hint '%s' is not 'evict_normal', 'evict_first' or 'evict_last' "
                        "(or a cache-policy value)", v->u.str);
}

static const char *read_reduce(OpCtx *c, TmaCall *t)
{
    static const char *const ops[] = {"add", "min", "max", "inc", "dec", "and", "or", "xor"};
    IrExpr *v = op_config(c, "use_tma_reduce");
    if (!v || v->kind == IR_E_NONE)
        return NULL;
    if (t->load)
        return op_reason(c, "use_tma_reduce is only valid for shared-to-global TMA");
    for (size_t i = 0; str_value(v) && i < TX_ARRAY_LEN(ops); i++)
        if (!strcmp(v->u.str, ops[i])) {
            t->reduce = ops[i];
            return NULL;
        }
    return op_reason(c, "use_tma_reduce must be one of add, min, max, inc, dec, and, or, xor");
}

static const char *read_mask_and_group(OpCtx *c, TmaCall *t)
{
    IrExpr *g = op_config(c, "cta_group"), *m = op_config(c, "cta_mask");
    int64_t v;
    t->cta_group = 1;
    if (g && g->kind != IR_E_NONE) {
        if (!int_value(g, &v) || (v != 1 && v != 2))
            return op_reason(c, "cta_group must be 1 or 2");
        t->cta_group = (int)v;
    }
    if (t->cta_group == 2 && !op_has_ptx(c, TMA_LOAD_2D ".cta_group::2"))
        return op_need_ptx(c, "cta_group=2", TMA_LOAD_2D ".cta_group::2");
    if (!m || m->kind == IR_E_NONE || is_zero(m))
        return NULL;
    if (!t->load)
        return op_reason(c, "cta_mask is only valid for global-to-shared TMA");
    if (int_value(m, &v)) {
        if (v < 0 || v > 0xFFFF)
            return op_reason(c, "cta_mask must fit 16 bits, not %lld", (long long)v);
        if (!(v & (v - 1)))
            return NULL; /* one CTA: the reference issues it unicast */
        m = op_i32(c, v);
    } else if (!ir_dtype_is_int(m->dtype)) {
        return op_reason(c, "cta_mask must be an integer");
    }
    t->cta_mask = m;
    return NULL;
}

static const char *read_gather4(OpCtx *c, TmaCall *t)
{
    IrExpr *v = op_config(c, "gather4");
    if (!v || v->kind == IR_E_NONE)
        return NULL;
    if (v->kind != IR_E_LIST || v->u.list.n != 4)
        return op_reason(c, "gather4 must list exactly four row coordinates");
    if (!t->load)
        return op_reason(c, "gather4 is only valid for global-to-shared TMA");
    for (int i = 0; i < 4; i++) {
        IrExpr *r = v->u.list.items[i];
        int64_t n;
        if (r->kind == IR_E_PYINT && int_value(r, &n))
            r = op_i32(c, n);
        if (!ir_dtype_is_int(r->dtype))
            return op_reason(c, "gather4 row %d is not an integer", i);
        t->gather4[i] = r;
    }
    return NULL;
}

/* src_selector=[[cond, buffer], ...]: global buffers (or views) read instead
 * of the main source, each over the main region's starts and extents. */
static const char *read_src_selector(OpCtx *c, TmaCall *t)
{
    IrExpr *v = op_config(c, "src_selector");
    if (!v || v->kind == IR_E_NONE)
        return NULL;
    if (v->kind != IR_E_LIST)
        return op_reason(c, "src_selector must be a list of [condition, global buffer] pairs");
    if (!t->load)
        return op_reason(c, "src_selector is only valid for global-to-shared TMA");
    t->nselect = v->u.list.n;
    t->select = TX_NEW_ARRAY(c->arena, TmaSelector, t->nselect ? t->nselect : 1);
    for (int i = 0; i < t->nselect; i++) {
        IrExpr *pair = v->u.list.items[i], *when, *buf;
        if (pair->kind != IR_E_LIST || pair->u.list.n != 2)
            return op_reason(c, "src_selector[%d] must be a [condition, buffer] pair", i);
        when = pair->u.list.items[0], buf = pair->u.list.items[1];
        if (when->kind == IR_E_PYBOOL || !ir_dtype_eq(when->dtype, IR_BOOL))
            return op_reason(c, "src_selector[%d]'s condition must be a boolean expression", i);
        if (!ir_is_buffer(buf))
            return op_reason(c, "src_selector[%d]'s candidate must be a global buffer or view%s",
                             i, buf->kind == IR_E_REGION ? ", not a region" : "");
        TmaSelector *sel = &t->select[i];
        sel->when = when;
        const char *why = op_region_over(c, buf, &t->gmem, &sel->gmem);
        if (why)
            return op_reason(c, "src_selector[%d]: %s", i, why);
        if (sel->gmem.mem != OP_MEM_GLOBAL)
            return op_reason(c, "src_selector[%d]'s candidate '%s' is in %s memory, not global",
                             i, buf->u.var.name, op_mem_name(sel->gmem.mem));
    }
    return NULL;
}

static const char *read_flags(OpCtx *c, const char *variant, TmaCall *t)
{
    IrExpr *oob = op_config(c, "oob"), *pre = op_config(c, "prefetch_tensormap");
    IrExpr *tdt = op_config(c, "tma_dtype"), *ma = op_config(c, "mbarrier_addr");
    bool b;
    if (oob && oob->kind != IR_E_NONE) {
        if (!strcmp(variant, "tma_auto"))
            return op_reason(c, "tma_auto does not support oob=; use dispatch=\"tma_explicit\"");
        if (!t->load)
            return op_reason(c, "oob= is only valid for global-to-shared copies");
        if (!str_value(oob) || (strcmp(oob->u.str, "zero") && strcmp(oob->u.str, "nan")))
            return op_reason(c, "oob must be 'zero' or 'nan'");
        t->oob = !strcmp(oob->u.str, "nan");
    }
    if (pre && !op_flag(pre, &t->prefetch))
        return op_reason(c, "prefetch_tensormap must be True or False");
    if (ma && ma->kind != IR_E_NONE && !op_flag(ma, &b) && !ir_dtype_is_int(ma->dtype))
        return op_reason(c, "mbarrier_addr must be a bool or an expression");
    if (ma && ma->kind != IR_E_NONE && !t->load && !(op_flag(ma, &b) && !b))
        return op_reason(c, "mbarrier_addr is only valid for global-to-shared TMA");
    if (tdt && tdt->kind != IR_E_NONE) {
        const char *s = str_value(tdt);
        if (!s || (strcmp(s, "tf32") && strcmp(s, "tfloat32")))
            return op_reason(c, "tma_dtype must be 'tf32' or 'tfloat32'");
        t->tf32 = true;
    }
    return NULL;
}

static const char *read_config(OpCtx *c, const char *variant, bool explicit_keys, TmaCall *t)
{
    const IrStmt *s = c->call;
    for (int i = 0; i < s->u.tile.nconfig; i++) {
        const char *key = s->u.tile.config[i].key;
        bool only_explicit = listed(key, explicit_keys_only, TX_ARRAY_LEN(explicit_keys_only));
        if (!listed(key, common_keys, TX_ARRAY_LEN(common_keys)) &&
            !(explicit_keys && only_explicit))
            return op_reason(c, "%s does not support config key '%s'%s", variant, key,
                             only_explicit ? tx_arena_printf(c->arena, " (%s needs dispatch="
                                                             "\"tma_explicit\")", key) : "");
    }
    const char *why;
    if ((why = read_flags(c, variant, t)) || (why = read_l2(c, t)) ||
        (why = read_cache_hint(c, t)) || (why = read_reduce(c, t)) ||
        (why = read_mask_and_group(c, t)) || (why = read_gather4(c, t)) ||
        (why = read_src_selector(c, t)))
        return why;
    t->mbar = op_config(c, "mbar");
    if (t->mbar && t->mbar->kind == IR_E_NONE)
        t->mbar = NULL;
    if (t->load && !t->mbar)
        return op_reason(c, "a TMA load completes on an mbarrier: give mbar=");
    if (!t->load && t->mbar)
        return op_reason(c, "mbar= is only valid for global-to-shared TMA");
    return NULL;
}

const char *tma_read_call(OpCtx *c, const char *variant, bool explicit_keys, TmaCall *t)
{
    memset(t, 0, sizeof *t);
    OpRegion dst, src;
    const char *why;
    if ((why = op_region(c, 0, &dst)) || (why = op_region(c, 1, &src)))
        return why;
    t->load = dst.mem == OP_MEM_SHARED && src.mem == OP_MEM_GLOBAL;
    if (!t->load && !(dst.mem == OP_MEM_GLOBAL && src.mem == OP_MEM_SHARED))
        return op_reason(c, "copies between global and shared; here %s to %s",
                         op_mem_name(src.mem), op_mem_name(dst.mem));
    t->smem = t->load ? dst : src, t->gmem = t->load ? src : dst;
    bool padded = ir_dtype_eq(ir_dtype_unaligned(t->smem.dtype), t->gmem.dtype) &&
                  t->smem.dtype.code != t->gmem.dtype.code;
    IrDType d = dst.dtype, s = src.dtype;
    bool ints = (d.code == IR_DT_INT || d.code == IR_DT_UINT) &&
                (s.code == IR_DT_INT || s.code == IR_DT_UINT) && d.bits == s.bits &&
                d.lanes == s.lanes;
    if (!ir_dtype_eq(d, s) && !padded && !ints)
        return op_reason(c, "the shared and global dtypes differ (a packed fp4 / fp6 global "
                            "tensor moves only into a shared buffer of its own dtype or of "
                            "its _align16 form; signed and unsigned integers of one width "
                            "move as bytes)");
    if ((why = read_config(c, variant, explicit_keys, t)))
        return why;
    if (!ir_dtype_eq(d, s) && ints && t->reduce)
        return op_reason(c, "a reduce store (%s) needs the shared and global integers of one "
                            "signedness", t->reduce);
    return NULL;
}

/* ---------------------------------------------------------------- descriptor type */

const char *tma_descriptor_type(OpCtx *c, const TmaCall *t, TmaSpec *s)
{
    IrDType d = t->gmem.dtype;
    char name[IR_DTYPE_STR_MAX];
    int code = -1;
    if (ir_dtype_subbyte(d) && t->smem.dtype.code != d.code) /* _align16: 16U4 / 16U6_ALIGN16B */
        code = d.bits == 4 ? 14 : 15, s->packed = s->padded = true;
    else if (d.lanes == 1)
        switch (d.code) {
        case IR_DT_UINT: code = d.bits == 8 ? 0 : d.bits == 16 ? 1 : d.bits == 32 ? 2 : d.bits == 64 ? 4 : -1; break;
        case IR_DT_INT: code = d.bits == 8 ? 0 : d.bits == 32 ? 3 : d.bits == 64 ? 5 : -1; break;
        case IR_DT_FLOAT: code = d.bits == 16 ? 6 : d.bits == 32 ? 7 : d.bits == 64 ? 8 : -1; break;
        case IR_DT_BFLOAT: code = d.bits == 16 ? 9 : -1; break;
        case IR_DT_F8E4M3FN: case IR_DT_F8E5M2: code = 0; break; /* fp8 travels as bytes */
        case IR_DT_F4E2M1FN: code = 13, s->packed = true; break; /* 16U4_ALIGN8B */
        default: break;
        }
    if (code < 0 && ir_dtype_subbyte(d))
        return op_reason(c, "%s moves by TMA only into its _align16 form in shared memory "
                            "(16U6_ALIGN16B)", ir_dtype_str(d, name));
    if (code < 0)
        return op_reason(c, "%s has no tensor-map element type", ir_dtype_str(d, name));
    if (t->tf32) {
        if (code != 7)
            return op_reason(c, "tma_dtype='tf32' needs a float32 global buffer, not %s",
                             ir_dtype_str(d, name));
        code = 11;
    }
    s->cu_dtype = code;
    s->bits = d.bits;
    return NULL;
}

/* ---------------------------------------------------------------- the global base */

IrLayout *tma_tile_layout(OpCtx *c, IrExpr *buffer)
{
    const IrBufferType *bt = ir_buf(buffer);
    const IrLayout *l = op_buffer_layout(c, bt);
    if (l->kind == IR_LAYOUT_COMPOSE && !ly_is_bare_swizzle(l))
        return l->tile;
    if (l->kind == IR_LAYOUT_TILE)
        return (IrLayout *)l;
    return (IrLayout *)op_strided_layout(c, bt);
}

/* The sum of a layout's offsets on m (its memory offset). */
static IrExpr *memory_offset(OpCtx *c, const IrLayout *l)
{
    IrExpr *o = c64(c, 0);
    for (int i = 0; l && i < l->noffset; i++)
        if (!strcmp(l->offset[i].axis, "m"))
            o = ar_add(c->arena, o, l->offset[i].value);
    return o;
}

/* Splits a sum into the terms the host knows and the others. */
static void split_terms(OpCtx *c, IrExpr *e, IrExpr **host, IrExpr **device)
{
    if (e->kind == IR_E_ADD) {
        split_terms(c, e->u.op.a, host, device);
        split_terms(c, e->u.op.b, host, device);
        return;
    }
    IrExpr **to = op_host_known(c, e) ? host : device;
    *to = *to ? ar_add(c->arena, *to, e) : e;
}

static IrExpr *bytes_of(OpCtx *c, IrExpr *elements, int bits)
{
    return ar_floordiv(c->arena, ar_mul(c->arena, elements, c64(c, bits)), c64(c, 8));
}

const char *tma_global_base(OpCtx *c, const TmaCall *t, TmaSpec *s, IrExpr **device_off)
{
    IrExpr *g = t->gmem.buffer;
    s->root = op_storage_root(c, g);
    if (!op_host_known(c, s->root))
        return op_reason(c, "the storage of '%s' is allocated inside the kernel; a tensor map "
                            "needs a buffer the host passes", g->u.var.name);
    IrExpr *off = ar_add(c->arena, ir_buf(g)->elem_offset, memory_offset(c, tma_tile_layout(c, g)));
    IrExpr *host = NULL;
    *device_off = NULL;
    split_terms(c, off, &host, device_off);
    if (!host)
        host = c64(c, 0);
    if (tma_multiple(c, ar_mul(c->arena, host, c64(c, s->bits)), 8) != TMA_PROVEN)
        return op_reason(c, "the offset of '%s' is not a whole number of bytes", g->u.var.name);
    s->base_bytes = bytes_of(c, host, s->bits);
    IrExpr *root = s->root;
    s->base = op_call(c, IR_OP_BUFFER_DATA, IR_HANDLE, &root, 1);
    if (!is_zero(s->base_bytes)) {
        IrExpr *a[2] = {s->base, op_cast(c, IR_INT64, s->base_bytes)};
        s->base = op_call(c, IR_OP_HANDLE_ADD_BYTE_OFFSET, IR_HANDLE, a, 2);
    }
    return NULL;
}

/* The elements of the root's storage (a host expression). */
static IrExpr *root_elements(OpCtx *c, IrExpr *root)
{
    const IrBufferType *bt = ir_buf(root);
    LyCtx lc = op_ly_ctx(c);
    IrExpr *n = ly_span(&lc, tma_tile_layout(c, root), NULL);
    (void)bt;
    return n ? n : c64(c, 0);
}

const char *tma_fold_device_offset(OpCtx *c, const TmaCall *t, TmaSpec *s, IrExpr *off)
{
    int64_t unit = op_known_pow2(off), min_unit = 128 / s->bits; /* 16 bytes */
    if (s->rank >= TMA_DIMS)
        return op_reason(c, "too many descriptor dimensions");
    if (unit < min_unit || s->packed)
        return op_reason(c, "the offset of view '%s' depends on values of the kernel and is not "
                            "a known multiple of 16 bytes, so it cannot become a coordinate",
                         t->gmem.buffer->u.var.name);
    if (unit > ((int64_t)1 << 24))
        unit = (int64_t)1 << 24;
    IrExpr *n = root_elements(c, s->root);
    int r = s->rank++;
    s->dim[r] = ar_floordiv(c->arena, ar_add(c->arena, n, c64(c, unit - 1)), c64(c, unit));
    s->stride[r] = c64(c, unit * s->bits / 8);
    s->box[r] = 1;
    s->coord[r] = ar_floordiv(c->arena, off, c64(c, unit));
    return NULL;
}

const char *tma_shared_swizzle(OpCtx *c, const TmaCall *t, int *swizzle)
{
    const IrLayout *l = t->smem.layout;
    *swizzle = 0;
    if (!l || l->kind != IR_LAYOUT_COMPOSE)
        return NULL;
    int bytes = ly_swizzle_bytes(l, t->smem.dtype);
    if (bytes < 0)
        return op_reason(c, "the swizzle of '%s' is not a hardware swizzle mode (32, 64 or 128 "
                            "bytes, swizzle_inner)", t->smem.buffer->u.var.name);
    *swizzle = bytes == 32 ? 1 : bytes == 64 ? 2 : bytes == 128 ? 3 : 0;
    return NULL;
}

/* ---------------------------------------------------------------- validation */

typedef struct Check {
    OpCtx *c;
    bool strict, failed, repairable;
    char msg[640];
    size_t len;
} Check;

static const char *const repairable_rules[] = {"rank", "global_stride_alignment", "box_dim",
                                               "inner_box_bytes"};

static void rule(Check *k, const char *name, TmaProof p, bool runtime, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void rule(Check *k, const char *name, TmaProof p, bool runtime, const char *fmt, ...)
{
    if (p == TMA_PROVEN || (p == TMA_UNKNOWN && (!k->strict || runtime)))
        return;
    bool rep = false;
    for (size_t i = 0; i < TX_ARRAY_LEN(repairable_rules); i++)
        rep |= !strcmp(name, repairable_rules[i]);
    k->repairable = (!k->failed || k->repairable) && rep;
    k->failed = true;
    if (k->len + 8 >= sizeof k->msg)
        return;
    k->len += (size_t)snprintf(k->msg + k->len, sizeof k->msg - k->len, "%s%s: ",
                               k->len ? "; " : "", name);
    va_list ap;
    va_start(ap, fmt);
    if (k->len < sizeof k->msg)
        k->len += (size_t)vsnprintf(k->msg + k->len, sizeof k->msg - k->len, fmt, ap);
    va_end(ap);
    if (k->len < sizeof k->msg && p == TMA_UNKNOWN)
        k->len += (size_t)snprintf(k->msg + k->len, sizeof k->msg - k->len, " (not proven)");
    if (k->len >= sizeof k->msg)
        k->len = sizeof k->msg - 1;
}

static TmaProof truth(bool b) { return b ? TMA_PROVEN : TMA_DISPROVEN; }

static const char *expr_text(OpCtx *c, const IrExpr *e)
{
    LyCtx lc = op_ly_ctx(c);
    return ly_expr_str(&lc, e);
}

static void check_global(Check *k, const TmaSpec *s)
{
    OpCtx *c = k->c;
    int align = s->packed ? 32 : 16;
    rule(k, "global_base_alignment", tma_multiple(c, s->base_bytes, align), false,
         "the view's byte offset %s is not a multiple of %d", expr_text(c, s->base_bytes), align);
    for (int d = 0; d < s->rank; d++) {
        rule(k, "global_dim", tma_in_range(s->dim[d], 1, (int64_t)1 << 32), true,
             "globalDim[%d] = %s is not in 1..2^32", d, expr_text(c, s->dim[d]));
        rule(k, "host", truth(op_host_known(c, s->dim[d]) && op_host_known(c, s->stride[d])),
             false, "dimension %d of the descriptor depends on values of the kernel", d);
        if (d == 0)
            continue;
        rule(k, "global_stride_range", tma_in_range(s->stride[d], 0, ((int64_t)1 << 40) - 1),
             false, "globalStrides[%d] = %s is not in 0..2^40", d - 1, expr_text(c, s->stride[d]));
        rule(k, "global_stride_alignment", tma_multiple(c, s->stride[d], align), false,
             "globalStrides[%d] = %s bytes is not a multiple of %d", d - 1,
             expr_text(c, s->stride[d]), align);
    }
    rule(k, "inner_stride", truth(s->inner_stride == 1), false,
         "the innermost global element stride is %lld, not 1", (long long)s->inner_stride);
}

static void check_box(Check *k, const TmaSpec *s)
{
    for (int d = 0; d < s->rank; d++)
        rule(k, "box_dim", truth(s->box[d] >= 1 && s->box[d] <= 256), false,
             "boxDim[%d] = %lld is not in 1..256", d, (long long)s->box[d]);
    if (!s->rank)
        return;
    int64_t inner = s->box[0] * s->bits / 8;
    if (s->padded) {
        rule(k, "padded_box", truth(s->box[0] == 128), false,
             "a 16-byte-aligned sub-byte descriptor (16U%d_ALIGN16B) needs boxDim[0] == 128, "
             "not %lld", s->bits, (long long)s->box[0]);
        rule(k, "padded_shape", tma_multiple(k->c, s->dim[0], 128), false,
             "a 16-byte-aligned sub-byte descriptor needs globalDim[0] a multiple of 128");
        rule(k, "padded_swizzle", truth(s->swizzle == 0 || s->swizzle == 3), false,
             "a 16-byte-aligned sub-byte descriptor takes no swizzle or the 128-byte one");
    } else if (s->packed) {
        rule(k, "packed_shape", tma_multiple(k->c, s->dim[0], 2), false,
             "a packed 4-bit descriptor needs an even globalDim[0]");
    }
    rule(k, "inner_box_bytes", truth(inner % 16 == 0), false,
         "the innermost box is %lld bytes, not a multiple of 16", (long long)inner);
    if (s->swizzle)
        rule(k, "swizzle_inner_box", truth(inner <= (16 << s->swizzle)), false,
             "the innermost box, %lld bytes, exceeds the %d-byte swizzle atom", (long long)inner,
             16 << s->swizzle);
}

static void check_instruction(Check *k, const TmaPlan *p, const TmaCall *t)
{
    OpCtx *c = k->c;
    const TmaSpec *s = &p->s;
    rule(k, "rank", truth(s->rank >= 1 && s->rank <= 5), false,
         "the descriptor has rank %d, not 1..5", s->rank);
    if (t->oob)
        rule(k, "nan_oob_dtype",
             truth(!s->packed && (s->cu_dtype >= 6 && s->cu_dtype <= 12)), false,
             "NaN out-of-bounds fill needs a floating-point descriptor");
    if (s->packed)
        rule(k, "packed_direction", truth(t->load), false,
             "packed sub-byte descriptors are load-only here");
    if (t->gather4[0]) {
        rule(k, "gather4_rank", truth(s->rank == 2), false, "gather4 needs a rank-2 descriptor");
        rule(k, "gather4_box", truth(s->rank == 2 && s->box[1] == 1), false,
             "gather4 needs a box of one row");
        rule(k, "target", truth(op_has_ptx(c, TMA_GATHER4)), false, "gather4 needs sm_100a");
    }
    int atom = 16 << s->swizzle;
    IrExpr *off_bits = ar_mul(c->arena, s->smem_off, c64(c, t->smem.dtype.bits));
    rule(k, "shared_pointer", tma_multiple(c, off_bits, atom * 8), false,
         "the shared box starts %s elements in, not a multiple of %d bytes",
         expr_text(c, s->smem_off), atom);
    int64_t align = op_shared_alignment(c, t->smem.buffer);
    rule(k, "shared_alignment", truth(align >= atom), false,
         "'%s' is %lld-byte aligned, the box needs %d", t->smem.buffer->u.var.name,
         (long long)align, atom);
}

const char *tma_validate(OpCtx *c, const TmaPlan *p, const TmaCall *t, bool strict,
                         bool *repairable)
{
    Check k = {.c = c, .strict = strict};
    check_instruction(&k, p, t);
    check_global(&k, &p->s);
    check_box(&k, &p->s);
    *repairable = k.failed && k.repairable;
    return k.failed ? tx_arena_strdup(c->arena, k.msg) : NULL;
}

/* ---------------------------------------------------------------- repair (tma_auto) */

static bool issue_driven(const TmaPlan *p, int d)
{
    for (int a = 0; a < p->naxes; a++)
        for (int k = 0; k < p->axis[a].ncoord; k++)
            if (p->axis[a].coord[k].dim == d)
                return true;
    return false;
}

static void remove_dim(TmaPlan *p, int d)
{
    TmaSpec *s = &p->s;
    for (int i = d; i + 1 < s->rank; i++) {
        s->dim[i] = s->dim[i + 1], s->stride[i] = s->stride[i + 1];
        s->box[i] = s->box[i + 1], s->coord[i] = s->coord[i + 1];
    }
    s->rank--;
    for (int a = 0; a < p->naxes; a++)
        for (int k = 0; k < p->axis[a].ncoord; k++)
            if (p->axis[a].coord[k].dim > d)
                p->axis[a].coord[k].dim--;
}

/* The rules that change when (dim, box) becomes dimension 0. */
static bool inner_legal(OpCtx *c, const TmaSpec *s, IrExpr *dim, int64_t box)
{
    if (s->padded)
        return tma_multiple(c, dim, 128) == TMA_PROVEN && box == 128;
    if (s->packed && tma_multiple(c, dim, 2) != TMA_PROVEN)
        return false;
    int64_t bytes = box * s->bits / 8;
    return bytes % 16 == 0 && (!s->swizzle || bytes <= (16 << s->swizzle));
}

/* A dimension of extent 1 carries no address: drop one. */
static bool drop_unit(OpCtx *c, TmaPlan *p)
{
    TmaSpec *s = &p->s;
    for (int d = 0; s->rank > 1 && d < s->rank; d++) {
        if (issue_driven(p, d) || s->box[d] != 1 || tma_equal(c, s->dim[d], c64(c, 1)) != TMA_PROVEN)
            continue;
        if (d == 0 && (tma_equal(c, s->stride[1], s->stride[0]) != TMA_PROVEN ||
                       !inner_legal(c, s, s->dim[1], s->box[1])))
            continue;
        remove_dim(p, d);
        return true;
    }
    return false;
}

static bool promote(OpCtx *c, TmaPlan *p, const TmaCall *t);

/* Whether a merge that needs a box over 256 becomes legal with a wider element. */
static bool promote_for_merge(OpCtx *c, TmaPlan *p, const TmaCall *t)
{
    TmaPlan q = *p;
    if (!promote(c, &q, t))
        return false;
    const TmaSpec *s = &q.s;
    int64_t box = s->box[0] * s->box[1];
    IrExpr *dim = ar_mul(c->arena, s->dim[0], s->dim[1]);
    if (box > 256 || tma_in_range(dim, 1, (int64_t)1 << 32) != TMA_PROVEN ||
        !inner_legal(c, s, dim, box))
        return false;
    *p = q;
    return true;
}

/* Bits between consecutive elements of dimension d: the element itself for
 * the innermost dimension of unit stride (whose byte stride a 4-bit element
 * does not have). */
static IrExpr *stride_bits(OpCtx *c, const TmaSpec *s, int d)
{
    if (d == 0 && s->inner_stride == 1)
        return c64(c, s->bits);
    return ar_mul(c->arena, s->stride[d], c64(c, 8));
}

/* Flatten an adjacent pair whose inner dimension is copied whole from
 * coordinate 0 and whose outer stride follows it: 0 none, 1 merged, 2 the
 * element was widened to allow a merge. */
static int merge_pair(OpCtx *c, TmaPlan *p, const TmaCall *t)
{
    TmaSpec *s = &p->s;
    for (int in = 0; in + 1 < s->rank; in++) {
        int out = in + 1;
        if (issue_driven(p, in) || issue_driven(p, out))
            continue;
        IrExpr *dim = ar_mul(c->arena, s->dim[in], s->dim[out]);
        int64_t box = s->box[in] * s->box[out];
        if (tma_equal(c, c64(c, s->box[in]), s->dim[in]) != TMA_PROVEN ||
            tma_equal(c, s->coord[in], c64(c, 0)) != TMA_PROVEN ||
            tma_equal(c, ar_mul(c->arena, s->stride[out], c64(c, 8)),
                      ar_mul(c->arena, s->dim[in], stride_bits(c, s, in))) != TMA_PROVEN ||
            tma_in_range(dim, 1, (int64_t)1 << 32) != TMA_PROVEN ||
            (in == 0 && !inner_legal(c, s, dim, box)))
            continue;
        if (box > 256) {
            if (in == 0 && s->rank > 2 &&
                tma_equal(c, c64(c, s->box[out]), s->dim[out]) == TMA_PROVEN &&
                tma_equal(c, s->coord[out], c64(c, 0)) == TMA_PROVEN && promote_for_merge(c, p, t))
                return 2;
            continue;
        }
        s->coord[in] = ar_mul(c->arena, s->coord[out], s->dim[in]);
        s->dim[in] = dim, s->box[in] = box;
        remove_dim(p, out);
        return 1;
    }
    return 0;
}

static void canonicalize(OpCtx *c, TmaPlan *p, const TmaCall *t)
{
    for (int guard = 0; guard < 64; guard++)
        if (!drop_unit(c, p) && !merge_pair(c, p, t))
            return;
}

/* Move the same bytes as elements twice as wide: dimension 0, its box and
 * coordinate halve. */
static bool promote(OpCtx *c, TmaPlan *p, const TmaCall *t)
{
    TmaSpec *s = &p->s;
    int bytes = s->bits / 8;
    if (s->bits % 8 || bytes > 4 || s->packed || t->oob || t->reduce || t->gather4[0] ||
        s->cu_dtype == 11 || s->inner_stride != 1 || issue_driven(p, 0) || s->box[0] % 2 ||
        tma_multiple(c, s->dim[0], 2) != TMA_PROVEN || tma_multiple(c, s->coord[0], 2) != TMA_PROVEN)
        return false;
    for (int d = 1; d < s->rank; d++)
        if (tma_multiple(c, s->stride[d], 2 * bytes) != TMA_PROVEN)
            return false;
    s->bits *= 2;
    s->cu_dtype = s->bits == 16 ? 1 : s->bits == 32 ? 2 : 4; /* UINT16, UINT32, UINT64 */
    s->dim[0] = ar_floordiv(c->arena, s->dim[0], c64(c, 2));
    s->coord[0] = ar_floordiv(c->arena, s->coord[0], c64(c, 2));
    s->box[0] /= 2;
    s->stride[0] = c64(c, 2 * bytes);
    return true;
}

const char *tma_repair(OpCtx *c, TmaPlan *p, const TmaCall *t)
{
    for (int guard = 0;; guard++) {
        canonicalize(c, p, t);
        bool repairable;
        const char *why = tma_validate(c, p, t, true, &repairable);
        if (!why || !repairable || guard == 4 || !promote(c, p, t))
            return why;
    }
}

/* ---------------------------------------------------------------- emission */

static const char *key_exprs(OpCtx *c, const char *key, IrExpr *const *e, int n)
{
    for (int i = 0; i < n; i++)
        key = tx_arena_printf(c->arena, "%s:%s", key, expr_text(c, e[i]));
    return key;
}

/* The tensor-map variable of the descriptor of `source`, encoded once per
 * function. */
static IrExpr *tensor_map(OpCtx *c, const TmaSpec *s, const TmaCall *t, const IrExpr *source)
{
    const char *key = tx_arena_printf(c->arena, "tma:%p:%s:%d:%d:%d:%d:%d", (void *)s->root,
                                      expr_text(c, s->base), s->cu_dtype, s->rank, s->swizzle,
                                      t->l2_promotion, t->oob);
    key = key_exprs(c, key, s->dim, s->rank);
    key = key_exprs(c, key, s->stride + 1, s->rank - 1);
    for (int d = 0; d < s->rank; d++)
        key = tx_arena_printf(c->arena, "%s:%lld", key, (long long)s->box[d]);
    IrExpr *map = op_memo_get(c, key);
    if (map)
        return map;
    IrType *ty = TX_NEW(c->arena, IrType);
    ty->kind = IR_TY_TENSORMAP, ty->dtype = IR_HANDLE, ty->scope = "global";
    map = ir_var(c->arena, tx_arena_printf(c->arena, "%s_tensormap", source->u.var.name),
                 ty, c->call->span);
    op_memo_put(c, key, map);
    IrExpr *alloca_args[2] = {ir_str(c->arena, "tensormap", c->call->span), op_i32(c, 1)};
    OpSeq q = {0};
    op_bind(c, &q, map, op_call(c, IR_OP_STACK_ALLOCA, IR_HANDLE, alloca_args, 2));
    IrExpr *a[4 + 4 * TMA_DIMS + 4];
    int n = 0;
    a[n++] = ir_str(c->arena, "runtime.cuTensorMapEncodeTiled", c->call->span);
    a[n++] = map;
    a[n++] = op_i32(c, s->cu_dtype);
    a[n++] = op_i32(c, s->rank);
    a[n++] = s->base;
    for (int d = 0; d < s->rank; d++)
        a[n++] = s->dim[d];
    for (int d = 1; d < s->rank; d++)
        a[n++] = op_cast(c, IR_INT64, s->stride[d]);
    for (int d = 0; d < s->rank; d++)
        a[n++] = op_i32(c, s->box[d]);
    for (int d = 0; d < s->rank; d++)
        a[n++] = op_i32(c, 1); /* element strides */
    a[n++] = op_i32(c, 0);     /* no interleave */
    a[n++] = op_i32(c, s->swizzle);
    a[n++] = op_i32(c, t->l2_promotion);
    a[n++] = op_i32(c, t->oob);
    op_eval(c, &q, op_call(c, IR_OP_CALL_PACKED, IR_INT32, a, n));
    for (int i = 0; i < q.v.len; i++)
        tx_vec_push(c->host_init, q.v.items[i]);
    tx_vec_free(&q.v);
    return map;
}

static IrExpr *address_of_map(OpCtx *c, IrExpr *map)
{
    return op_call(c, IR_OP_ADDRESS_OF, IR_HANDLE, &map, 1);
}

/* The address the instructions read their tensor map at: the main map's, or
 * with src_selector the first candidate's whose condition holds, as the
 * reference binds it (a uint64 selected_tensormap) before the issues. */
static IrExpr *map_address(OpCtx *c, OpSeq *q, const TmaSpec *s, const TmaCall *t)
{
    IrExpr *addr = address_of_map(c, tensor_map(c, s, t, t->gmem.buffer));
    if (!t->nselect)
        return addr;
    IrExpr **alt = TX_NEW_ARRAY(c->arena, IrExpr *, t->nselect);
    for (int i = 0; i < t->nselect; i++) /* encoded in the list's order */
        alt[i] = address_of_map(c, tensor_map(c, &t->select[i].spec, t, t->select[i].gmem.buffer));
    addr = op_call(c, IR_OP_REINTERPRET, IR_UINT64, &addr, 1);
    for (int i = t->nselect - 1; i >= 0; i--) {
        IrExpr *pick = ir_node(c->arena, IR_E_SELECT, IR_UINT64, c->call->span);
        pick->u.op.cond = t->select[i].when;
        pick->u.op.a = op_call(c, IR_OP_REINTERPRET, IR_UINT64, &alt[i], 1);
        pick->u.op.b = addr;
        addr = pick;
    }
    IrExpr *selected = op_var(c, "selected_tensormap", IR_UINT64);
    op_bind(c, q, selected, addr);
    return selected;
}

static IrExpr *mbar_operand(OpCtx *c, IrExpr *m)
{
    return m->kind == IR_E_LOAD ? op_call(c, IR_OP_ADDRESS_OF, IR_HANDLE, &m, 1) : m;
}

static const char *spelling(OpCtx *c, const TmaSpec *s, const TmaCall *t)
{
    const char *hint = t->cache_policy ? ".L2::cache_hint" : "";
    if (!t->load && t->reduce)
        return tx_arena_printf(c->arena, "cp.reduce.async.bulk.tensor.%dd.global.shared::cta.%s."
                                         "tile.bulk_group%s", s->rank, t->reduce, hint);
    if (!t->load)
        return tx_arena_printf(c->arena, "cp.async.bulk.tensor.%dd.global.shared::cta.tile."
                                         "bulk_group%s", s->rank, hint);
    /* the .cta_group form where the target has it (sm_100a) */
    bool grouped = op_has_ptx(c, TMA_LOAD_2D ".cta_group::1");
    return tx_arena_printf(c->arena, "cp.async.bulk.tensor.%dd.shared::cluster.global%s."
                                     "mbarrier::complete_tx::bytes%s%s%s",
                           s->rank, t->gather4[0] ? ".tile::gather4" : "",
                           t->cta_mask ? ".multicast::cluster" : "",
                           grouped ? (t->cta_group == 2 ? ".cta_group::2" : ".cta_group::1") : "",
                           hint);
}

/* One instruction at shared address smem with coordinates coord, its tensor
 * map at map_addr. */
static IrExpr *instruction(OpCtx *c, const TmaSpec *s, const TmaCall *t, IrExpr *map_addr,
                           IrExpr *smem, IrExpr *const *coord)
{
    IrExpr *args[4 + TMA_DIMS + 4];
    int n = 0;
    if (t->load)
        args[n++] = smem;
    args[n++] = map_addr;
    for (int d = 0; d < (t->gather4[0] ? 1 : s->rank); d++)
        args[n++] = op_cast(c, IR_INT32, coord[d]); /* .s32 */
    for (int i = 0; t->gather4[0] && i < 4; i++) /* tile::gather4: the column, four rows */
        args[n++] = op_cast(c, IR_INT32, t->gather4[i]);
    if (t->load) {
        args[n++] = mbar_operand(c, t->mbar);
        if (t->cta_mask)
            args[n++] = op_cast(c, IR_UINT16, t->cta_mask);
    } else {
        args[n++] = smem;
    }
    if (t->cache_policy)
        args[n++] = t->cache_policy;
    return op_ptx(c, spelling(c, s, t), args, n);
}

/* The shared address of element `off` of the shared buffer's storage. */
static IrExpr *smem_address(OpCtx *c, IrExpr *flat, int bits, IrExpr *off)
{
    if (bits < 8)
        off = ar_floordiv(c->arena, ar_mul(c->arena, off, c64(c, bits)), c64(c, 8));
    return op_address_of(c, flat, &off, 1);
}

IrStmt *tma_emit(OpCtx *c, const TmaPlan *p, const TmaCall *t)
{
    const TmaSpec *s = &p->s;
    OpSeq q = {0};
    IrExpr *map_addr = map_address(c, &q, s, t);
    if (t->prefetch) /* the map the instructions read */
        op_eval(c, &q, op_ptx(c, "prefetch.tensormap", &map_addr, 1));
    int bits = t->smem.dtype.bits;
    IrExpr *flat = op_flat_view(c, &q, t->smem.buffer, bits < 8 ? IR_UINT8 : t->smem.dtype, 1);
    IrExpr *var[TMA_DIMS] = {0}, *coord[TMA_DIMS], *off = s->smem_off;
    for (int d = 0; d < s->rank; d++)
        coord[d] = s->coord[d];
    for (int a = 0; a < p->naxes; a++) {
        const TmaIssueAxis *x = &p->axis[a];
        if (x->extent == 1)
            continue;
        var[a] = op_var(c, "i", IR_INT32);
        off = ar_add(c->arena, off, ar_mul(c->arena, var[a], c64(c, x->smem_stride)));
        for (int k = 0; k < x->ncoord; k++) {
            IrExpr *digit = ar_floordiv(c->arena, var[a], c64(c, x->coord[k].divisor));
            if (x->coord[k].divisor * x->coord[k].modulus < x->extent)
                digit = ar_floormod(c->arena, digit, c64(c, x->coord[k].modulus));
            if (x->coord[k].scale != 1)
                digit = ar_mul(c->arena, digit, c64(c, x->coord[k].scale));
            coord[x->coord[k].dim] = ar_add(c->arena, coord[x->coord[k].dim], digit);
        }
    }
    OpSeq issue = {0};
    op_eval(c, &issue, instruction(c, s, t, map_addr, smem_address(c, flat, bits, off), coord));
    IrStmt *body = op_seq_finish(c, &issue);
    for (int a = 0; a < p->naxes; a++)
        if (var[a])
            body = op_for(c, var[a], p->axis[a].extent, IR_FOR_UNROLLED, body);
    op_emit(&q, body);
    if (!t->load) /* a store closes its own bulk async-group: the caller only waits */
        op_eval(c, &q, op_ptx(c, "cp.async.bulk.commit_group", NULL, 0));
    return op_seq_finish(c, &q);
}
