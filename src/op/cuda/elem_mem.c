/* Elementwise primitives, variant "mem": operands in shared or global
 * memory (and scalars). The scope's threads take the destination's elements
 * round-robin in vectors (consecutive threads, consecutive vectors:
 * coalesced and free of bank conflicts), load each source's elements at the
 * same positions, compute (elementwise.c) and store. The vector is the widest
 * (at most 16 bytes) that every region operand's contiguity and alignment
 * allow; its elements form a `T.vectorized` loop, which VectorizeLoop turns
 * into vector loads and stores where it proves them aligned (a serial loop
 * otherwise). As the reference's smem variant, for any element count (a
 * guard covers the rest). With oob="zero" the regions may reach past their
 * global buffers' edges (a tile of a runtime-length vector): positions past
 * the destination's edge are not written and sources read zero past theirs;
 * a vector that straddles an edge takes an element-by-element path. */
#include "../elementwise.h"

#include "../../arith/arith.h"

static bool in_memory(const OpRegion *r) { return r->mem == OP_MEM_GLOBAL || r->mem == OP_MEM_SHARED; }

const char *op_elem_mem_accept(OpCtx *c)
{
    OpRegion dst, src[OP_EW_MAX_SRC];
    bool is_region[OP_EW_MAX_SRC];
    int n;
    const char *why = op_need_scope(c, OP_ANY_SCOPE);
    if (why || (why = op_ew_operands(c, &dst, src, is_region, &n)))
        return why;
    if (!in_memory(&dst))
        return op_reason(c, "the destination is in %s memory, not shared or global",
                         op_mem_name(dst.mem));
    for (int i = 0; i < n; i++)
        if (is_region[i] && !in_memory(&src[i]))
            return op_reason(c, "operand '%s' is in %s memory, not shared or global",
                             src[i].buffer->u.var.name, op_mem_name(src[i].mem));
    return NULL;
}

/* The widest vector (elements) every region operand allows: 16 bytes of the
 * widest element at most. */
static int64_t elem_vector(OpCtx *c, const OpRegion *dst, const OpRegion *src,
                           const bool *is_region, int n)
{
    int widest = op_dtype_bytes(dst->dtype);
    for (int i = 0; i < n; i++)
        if (is_region[i] && op_dtype_bytes(src[i].dtype) > widest)
            widest = op_dtype_bytes(src[i].dtype);
    if (widest <= 0 || widest >= 16)
        return 1;
    int64_t vec = op_region_vector(c, dst, 16 / widest, false);
    for (int i = 0; i < n; i++)
        if (is_region[i]) {
            int64_t v = op_region_vector(c, &src[i], 16 / widest, false);
            vec = v < vec ? v : vec;
        }
    return vec;
}

/* Element idx (the non-unit dims, the last moved by `lane`) of every operand:
 * dst = f(sources). With guards (oob), dst past its edge is not written and
 * a source past its edge reads zero. */
static IrStmt *element(OpCtx *c, const OpRegion *dst, const OpRegion *src, const bool *is_region,
                       int n, IrExpr *const *idx, int k, IrExpr *lane, bool guards)
{
    IrExpr *at[OP_MAX_DIMS];
    for (int i = 0; i < k; i++)
        at[i] = i == k - 1 && lane ? op_bin(c, IR_E_ADD, idx[i], lane) : idx[i];
    IrExpr **didx = TX_NEW_ARRAY(c->arena, IrExpr *, dst->ndim);
    op_region_index(c, dst, at, didx);
    IrExpr *v[OP_EW_MAX_SRC];
    op_ew_load_sources(c, src, is_region, n, at, v);
    IrExpr *in_dst = guards && dst->mem == OP_MEM_GLOBAL ? op_in_bounds(c, dst, didx) : NULL;
    for (int i = 0; guards && i < n; i++) {
        if (!is_region[i])
            continue;
        IrExpr **sidx = TX_NEW_ARRAY(c->arena, IrExpr *, src[i].ndim);
        op_region_index(c, &src[i], at, sidx);
        IrExpr *in = src[i].mem == OP_MEM_GLOBAL ? op_in_bounds(c, &src[i], sidx) : NULL;
        if (in && !(in_dst && ar_expr_equal(in, in_dst))) { /* inside dst's guard already */
            IrExpr *a[3] = {in, v[i], op_cast(c, v[i]->dtype, op_i32(c, 0))};
            v[i] = op_call(c, IR_OP_IF_THEN_ELSE, v[i]->dtype, a, 3);
        }
    }
    OpSeq s = {0};
    op_store(c, &s, dst->buffer, didx, dst->ndim, op_ew_value(c, dst->dtype, v, n));
    IrStmt *st = op_seq_finish(c, &s);
    return in_dst ? op_if(c, in_dst, st, NULL) : st;
}

/* Whether term is one of the conjuncts of cond. */
static bool contains(const IrExpr *cond, const IrExpr *term)
{
    if (cond->kind == IR_E_AND)
        return contains(cond->u.op.a, term) || contains(cond->u.op.b, term);
    return ar_expr_equal(cond, term);
}

/* Whether the whole vector at idx lies inside every global operand (NULL:
 * known to). */
static IrExpr *vector_inside(OpCtx *c, const OpRegion *dst, const OpRegion *src,
                             const bool *is_region, int n, IrExpr *const *idx, int k, int64_t vec)
{
    IrExpr *last[OP_MAX_DIMS], *cond = NULL;
    for (int i = 0; i < k; i++)
        last[i] = i == k - 1 ? op_bin(c, IR_E_ADD, idx[i], op_i32(c, vec - 1)) : idx[i];
    for (int i = -1; i < n; i++) {
        const OpRegion *r = i < 0 ? dst : &src[i];
        if ((i >= 0 && !is_region[i]) || r->mem != OP_MEM_GLOBAL)
            continue;
        IrExpr **ridx = TX_NEW_ARRAY(c->arena, IrExpr *, r->ndim);
        op_region_index(c, r, last, ridx);
        IrExpr *in = op_in_bounds(c, r, ridx);
        if (in && !(cond && contains(cond, in)))
            cond = cond ? op_bin(c, IR_E_AND, cond, in) : in;
    }
    return cond;
}

IrStmt *op_elem_mem_lower(OpCtx *c)
{
    OpRegion dst, src[OP_EW_MAX_SRC];
    bool is_region[OP_EW_MAX_SRC];
    int n;
    op_ew_operands(c, &dst, src, is_region, &n);
    bool oob = op_oob_zero(c);
    int64_t vec = elem_vector(c, &dst, src, is_region, n);
    OpSpace sp;
    const char *why = op_space_init(c, &sp, &dst, vec);
    if (why)
        return op_decline(c, "%s", why);
    IrExpr *idx[OP_MAX_DIMS];
    op_space_begin(c, &sp, idx);
    if (vec == 1)
        return op_space_wrap(c, &sp, element(c, &dst, src, is_region, n, idx, sp.k, NULL, oob),
                             IR_FOR_SERIAL);
    IrExpr *lane = op_var(c, "v", IR_INT32);
    IrStmt *body = op_for(c, lane, vec, IR_FOR_VECTORIZED,
                          element(c, &dst, src, is_region, n, idx, sp.k, lane, false));
    IrExpr *inside = oob ? vector_inside(c, &dst, src, is_region, n, idx, sp.k, vec) : NULL;
    if (inside) {
        IrExpr *tail = op_var(c, "v", IR_INT32);
        body = op_if(c, inside, body,
                     op_for(c, tail, vec, IR_FOR_SERIAL,
                            element(c, &dst, src, is_region, n, idx, sp.k, tail, true)));
    }
    return op_space_wrap(c, &sp, body, IR_FOR_SERIAL);
}
