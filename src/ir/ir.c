/* Dtype spelling, the vocabulary tables and the node constructors. */
#include "ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- dtypes */
static const struct {
    const char *name;
    int bits;
} dtype_info[IR_DT_COUNT] = {
#define X(E, name, bits) {name, bits},
#include "dtype.def"
#undef X
};

#define DT(code, bits) {IR_DT_##code, bits, 1}
const IrDType IR_BOOL = DT(BOOL, 8), IR_INT8 = DT(INT, 8), IR_INT16 = DT(INT, 16),
              IR_INT32 = DT(INT, 32), IR_INT64 = DT(INT, 64), IR_UINT8 = DT(UINT, 8),
              IR_UINT16 = DT(UINT, 16), IR_UINT32 = DT(UINT, 32), IR_UINT64 = DT(UINT, 64),
              IR_FLOAT16 = DT(FLOAT, 16), IR_FLOAT32 = DT(FLOAT, 32),
              IR_FLOAT64 = DT(FLOAT, 64), IR_BFLOAT16 = DT(BFLOAT, 16),
              IR_HANDLE = DT(HANDLE, 64), IR_VOID = {IR_DT_VOID, 0, 0};
#undef DT

bool ir_dtype_eq(IrDType a, IrDType b)
{
    return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

bool ir_dtype_is_int(IrDType t) { return t.code == IR_DT_INT || t.code == IR_DT_UINT; }

bool ir_dtype_is_float(IrDType t)
{
    return t.code == IR_DT_FLOAT || t.code == IR_DT_BFLOAT || t.code >= IR_DT_F8E3M4;
}

IrDType ir_dtype_unaligned(IrDType t)
{
    static const struct { uint8_t from, to, bits; } forms[] = {
        {IR_DT_F4E2M1FN_A16, IR_DT_F4E2M1FN, 4},
        {IR_DT_F6E2M3FN_A16, IR_DT_F6E2M3FN, 6},
        {IR_DT_F6E3M2FN_A16, IR_DT_F6E3M2FN, 6},
    };
    for (size_t i = 0; i < TX_ARRAY_LEN(forms); i++)
        if (t.code == forms[i].from)
            return (IrDType){forms[i].to, forms[i].bits, t.lanes};
    return t;
}

int ir_dtype_subbyte(IrDType t)
{
    IrDType u = ir_dtype_unaligned(t);
    return t.lanes == 1 && ir_dtype_is_float(u) && (u.bits == 4 || u.bits == 6) ? u.bits : 0;
}

int64_t ir_subbyte_bit(IrDType t, int64_t i)
{
    int n = ir_dtype_subbyte(t);
    if (t.code != ir_dtype_unaligned(t).code)
        return i / 16 * 128 + i % 16 * n;
    return i * n;
}

IrDType ir_dtype_with_lanes(IrDType t, int lanes)
{
    t.lanes = (uint16_t)lanes;
    return t;
}

static bool parse_uint(const char *s, size_t n, long *out)
{
    if (n == 0 || n > 6)
        return false;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

bool ir_dtype_parse(const char *s, size_t n, IrDType *out)
{
    if (n == 0 || (n == 4 && !memcmp(s, "void", 4))) {
        *out = IR_VOID;
        return true;
    }
    /* Longest matching name first, so "float8_e4m3fn" wins over "float". */
    int best = -1;
    size_t best_len = 0;
    for (int c = 0; c < IR_DT_COUNT; c++) {
        size_t l = strlen(dtype_info[c].name);
        if (l <= n && !memcmp(s, dtype_info[c].name, l) && l > best_len)
            best = c, best_len = l;
    }
    if (best < 0 || best == IR_DT_VOID)
        return false;
    const char *rest = s + best_len;
    size_t rn = n - best_len;
    long bits = dtype_info[best].bits, lanes = 1;
    if (bits == 0) {
        size_t d = 0;
        while (d < rn && rest[d] >= '0' && rest[d] <= '9')
            d++;
        if (d == 0)
            bits = 32;
        else if (!parse_uint(rest, d, &bits))
            return false;
        rest += d, rn -= d;
        /* 128-bit integers are scalars: a PTX .b128 operand (the reference's uint128) */
        bool ok = best == IR_DT_FLOAT ? (bits == 16 || bits == 32 || bits == 64)
                                      : (bits == 1 || bits == 8 || bits == 16 || bits == 32 ||
                                         bits == 64 || (bits == 128 && rn == 0));
        if (!ok)
            return false;
    } else if (best == IR_DT_BFLOAT && rn >= 2 && !memcmp(rest, "16", 2)) {
        rest += 2, rn -= 2;
    }
    if (rn > 0) {
        if (rest[0] != 'x' || !parse_uint(rest + 1, rn - 1, &lanes) || lanes < 1 ||
            lanes > IR_MAX_LANES || best == IR_DT_HANDLE)
            return false;
    }
    out->code = (uint8_t)best;
    out->bits = (uint8_t)bits;
    out->lanes = (uint16_t)lanes;
    return true;
}

const char *ir_dtype_str(IrDType t, char *buf)
{
    if (t.code == IR_DT_VOID) {
        strcpy(buf, "void");
        return buf;
    }
    const char *name = dtype_info[t.code].name;
    int n;
    if (dtype_info[t.code].bits == 0)
        n = snprintf(buf, IR_DTYPE_STR_MAX, "%s%d", name, t.bits);
    else if (t.code == IR_DT_BFLOAT)
        n = snprintf(buf, IR_DTYPE_STR_MAX, "bfloat16");
    else
        n = snprintf(buf, IR_DTYPE_STR_MAX, "%s", name);
    if (t.lanes > 1)
        snprintf(buf + n, IR_DTYPE_STR_MAX - (size_t)n, "x%d", t.lanes);
    return buf;
}

int ir_dtype_names(const char **out, int max)
{
    static const char *const names[] = {
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64", "bfloat16", "handle", "void", "float8_e3m4",
        "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
        "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn",
        "float4_e2m1fn", "float4_e2m1fn_align16", "float6_e2m3fn_align16",
        "float6_e3m2fn_align16"};
    int n = 0;
    for (size_t i = 0; i < TX_ARRAY_LEN(names) && n < max; i++)
        out[n++] = names[i];
    return n;
}

/* ---------------------------------------------------------------- tables */
const IrOpInfo ir_ops[IR_OP_COUNT] = {
#define X(E, name, ret, lo, hi) {name, IR_RET_##ret, lo, hi},
#include "op.def"
#undef X
};

int ir_op_lookup(const char *name)
{
    for (int i = 0; i < IR_OP_COUNT; i++)
        if (ir_ops[i].name[0] == name[0] && !strcmp(ir_ops[i].name, name))
            return i;
    return -1;
}

/* The ops the reference registers under a name other than "tirx." + the
 * printed name. */
static const struct {
    IrOp op;
    const char *name;
} registered_names[] = {
    {IR_OP_LOG2, "prim.log2"},
    {IR_OP_CEIL, "prim.ceil"},
    {IR_OP_CLZ, "prim.clz"},
    {IR_OP_IF_THEN_ELSE, "prim.if_then_else"},
    {IR_OP_LIKELY, "prim.likely"},
    {IR_OP_VSCALE, "prim.vscale"},
    {IR_OP_CALL_PACKED, "tirx.tvm_call_packed"},
    {IR_OP_CUDA_TCGEN05_INSTR_DESC, "tirx.cuda.tcgen05_encode_instr_descriptor"},
    {IR_OP_CUDA_TCGEN05_INSTR_DESC_BLOCK_SCALED,
     "tirx.cuda.tcgen05_encode_instr_descriptor_block_scaled"},
    {IR_OP_CUDA_TCGEN05_SMEM_DESC, "tirx.cuda.tcgen05_encode_matrix_descriptor"},
    {IR_OP_CUDA_WGMMA_SMEM_DESC, "tirx.cuda.wgmma_encode_matrix_descriptor"},
    {IR_OP_CUDA_WGMMA_NOOP_BARRIER, "tirx.cuda.wgmma_noop_barrier"},
    {IR_OP_CUDA_MMA_STORE, "tirx.mma_store"},
    {IR_OP_CUDA_MMA_FILL, "tirx.mma_fill"},
    {IR_OP_CUDA_TIMER_INIT, "tirx.timer_init_cuda"},
    {IR_OP_CUDA_TIMER_START, "tirx.timer_start_cuda"},
    {IR_OP_CUDA_TIMER_END, "tirx.timer_end_cuda"},
    {IR_OP_CUDA_TIMER_FINALIZE, "tirx.timer_finalize_cuda"},
    {IR_OP_CUDA_IKET_MARK, "tirx.cuda.iket_mark"},
    {IR_OP_CUDA_IKET_RANGE_START, "tirx.cuda.iket_range_start"},
    {IR_OP_CUDA_IKET_RANGE_END, "tirx.cuda.iket_range_end"},
    {IR_OP_CUDA_IKET_RANGE_PUSH, "tirx.cuda.iket_range_push"},
    {IR_OP_CUDA_IKET_RANGE_POP, "tirx.cuda.iket_range_pop"},
    {IR_OP_CUDA_IKET_SENTINEL_TOKEN, "tirx.cuda.iket_sentinel_token"},
    {IR_OP_CUDA_IKET_OFFICIAL_EVENT, "tirx.cuda.iket_official_event"},
};

const char *ir_op_registered_name(IrOp op, char *buf)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(registered_names); i++)
        if (registered_names[i].op == op) {
            snprintf(buf, IR_OP_NAME_MAX, "%s", registered_names[i].name);
            return buf;
        }
    snprintf(buf, IR_OP_NAME_MAX, "tirx.%s", ir_ops[op].name);
    /* the scoped NVSHMEM variants print T.nvshmem.putmem_nbi.warp and are
     * registered as tirx.nvshmem.putmem_nbi_warp */
    for (char *p = buf + strlen("tirx.nvshmem."); ir_nvshmem_op(op) && *p; p++)
        if (*p == '.')
            *p = '_';
    return buf;
}

/* ---------------------------------------------------------------- NVSHMEM */

static const IrNvshmemOp nvshmem_ops[] = {
#define NVSHMEM_OP(id, name, ret, lo, hi, args, cfunc, ...) {IR_OP_NVSHMEM_##id, args, cfunc},
#define NVSHMEM_CONST(kind, name, cname, value)
#include "nvshmem.def"
#undef NVSHMEM_OP
#undef NVSHMEM_CONST
};

#define NVSHMEM_KIND_SIG 's'
#define NVSHMEM_KIND_CMP 'c'
#define NVSHMEM_KIND_TEAM 'm'

static const struct {
    char kind;
    const char *name, *cname;
} nvshmem_consts[] = {
#define NVSHMEM_OP(...)
#define NVSHMEM_CONST(kind, name, cname, value) {NVSHMEM_KIND_##kind, name, #cname},
#include "nvshmem.def"
#undef NVSHMEM_OP
#undef NVSHMEM_CONST
};

const IrNvshmemOp *ir_nvshmem_op(IrOp op)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(nvshmem_ops); i++)
        if (nvshmem_ops[i].op == op)
            return &nvshmem_ops[i];
    return NULL;
}

const char *ir_nvshmem_const(char kind, const char *name)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(nvshmem_consts); i++)
        if (nvshmem_consts[i].kind == kind && !strcmp(nvshmem_consts[i].name, name))
            return nvshmem_consts[i].cname;
    return NULL;
}

const char *ir_nvshmem_kind_name(char kind)
{
    switch (kind) {
    case NVSHMEM_KIND_SIG: return "signal operation";
    case NVSHMEM_KIND_CMP: return "comparison";
    case NVSHMEM_KIND_TEAM: return "team";
    default: return "value type";
    }
}

const char *ir_nvshmem_const_choices(char kind)
{
    /* ", " before each string; the result starts after the first */
#define NVSHMEM_OP(...)
#define NVSHMEM_CONST(kind, name, cname, value) NVSHMEM_CHOICE_##kind(name)
#define NVSHMEM_CHOICE(name) ", \"" name "\""
#define NVSHMEM_CHOICE_SIG(name) NVSHMEM_CHOICE(name)
#define NVSHMEM_CHOICE_CMP(name)
#define NVSHMEM_CHOICE_TEAM(name)
    static const char sig[] = ""
#include "nvshmem.def"
        ;
#undef NVSHMEM_CHOICE_SIG
#undef NVSHMEM_CHOICE_CMP
#define NVSHMEM_CHOICE_SIG(name)
#define NVSHMEM_CHOICE_CMP(name) NVSHMEM_CHOICE(name)
    static const char cmp[] = ""
#include "nvshmem.def"
        ;
#undef NVSHMEM_CHOICE_CMP
#undef NVSHMEM_CHOICE_TEAM
#define NVSHMEM_CHOICE_CMP(name)
#define NVSHMEM_CHOICE_TEAM(name) NVSHMEM_CHOICE(name)
    static const char team[] = ""
#include "nvshmem.def"
        ;
#undef NVSHMEM_CHOICE
#undef NVSHMEM_CHOICE_SIG
#undef NVSHMEM_CHOICE_CMP
#undef NVSHMEM_CHOICE_TEAM
#undef NVSHMEM_OP
#undef NVSHMEM_CONST
    return (kind == NVSHMEM_KIND_SIG ? sig : kind == NVSHMEM_KIND_CMP ? cmp : team) + 2;
}

int ir_op_lookup_registered(const char *name)
{
    char full[IR_OP_NAME_MAX], buf[IR_OP_NAME_MAX];
    if (!strncmp(name, "tir.", 4))
        snprintf(full, sizeof full, "tirx.%s", name + 4), name = full;
    for (int i = 0; i < IR_OP_COUNT; i++)
        if (i != IR_OP_PTX && i != IR_OP_CALL_FUNC &&
            !strcmp(ir_op_registered_name((IrOp)i, buf), name))
            return i;
    return -1;
}

const IrTileOpInfo ir_tile_ops[IR_TILE_COUNT] = {
#define CONFIG IR_TILE_CONFIG
#define FRAME IR_TILE_FRAME
#define X(E, name, family, arity, flags, params, ir) \
    {name, IR_TILE_FAMILY_##family, arity, flags, params, ir},
#include "tile_ops.def"
#undef X
#undef CONFIG
#undef FRAME
};

int ir_tile_op_lookup(const char *name)
{
    for (int i = 0; i < IR_TILE_COUNT; i++)
        if (!strcmp(ir_tile_ops[i].name, name))
            return i;
    return -1;
}

int ir_tile_op_nparams(IrTileOp op)
{
    const char *p = ir_tile_ops[op].params;
    int n = *p != 0;
    for (; *p; p++)
        n += *p == ',';
    return n;
}

const char *const ir_scope_names[IR_SCOPE_COUNT] = {
#define X(E, name) name,
#include "scope.def"
#undef X
};

const IrScopeIdInfo ir_scopeids[IR_SCOPEID_COUNT] = {
#define X(E, name, parent, cur, maxdims) {name, IR_SCOPE_##parent, IR_SCOPE_##cur, maxdims},
#include "scopeid.def"
#undef X
};

const char *const ir_for_names[IR_FOR_COUNT] = {
#define X(E, name) name,
#include "forkind.def"
#undef X
};

/* ---------------------------------------------------------------- modules */
IrModule *ir_module_new(void)
{
    IrModule *m = calloc(1, sizeof *m);
    if (!m)
        tx_out_of_memory(sizeof *m);
    tx_arena_init(&m->arena);
    tx_diags_init(&m->diags, &m->arena);
    m->class_name = "Module";
    return m;
}

void ir_module_free(IrModule *m)
{
    if (!m)
        return;
    tx_diags_free(&m->diags);
    tx_arena_free(&m->arena);
    free(m);
}

/* ---------------------------------------------------------------- constructors */
IrType *ir_prim_type(TxArena *a, IrDType t)
{
    IrType *ty = TX_NEW(a, IrType);
    ty->kind = IR_TY_PRIM, ty->dtype = t;
    return ty;
}

IrType *ir_ptr_type(TxArena *a, IrDType elem, const char *scope)
{
    IrType *ty = TX_NEW(a, IrType);
    ty->kind = IR_TY_PTR, ty->dtype = elem, ty->scope = scope ? scope : "global";
    return ty;
}

IrType *ir_buffer_type(TxArena *a, IrDType elem, const char *scope, IrBufferType *buf)
{
    IrType *ty = TX_NEW(a, IrType);
    ty->kind = IR_TY_BUFFER, ty->dtype = elem, ty->scope = scope ? scope : "global";
    ty->buf = buf;
    return ty;
}

/* The bytes of an expression of each kind: its header and the member of u it
 * uses (an integer constant takes a third of a call). */
static const uint8_t expr_size[IR_E_COUNT] = {
#define X(E, name, member) \
    [IR_E_##E] = offsetof(IrExpr, u) + sizeof(((IrExpr *)0)->u.member),
#include "expr.def"
#undef X
};

size_t ir_expr_size(IrExprKind k) { return expr_size[k]; }

IrExpr *ir_node(TxArena *a, IrExprKind k, IrDType t, TxSpan sp)
{
    IrExpr *e = tx_arena_alloc(a, expr_size[k]);
    e->kind = k, e->dtype = t, e->span = sp;
    return e;
}

IrExpr *ir_expr_copy(TxArena *a, const IrExpr *e)
{
    return tx_arena_memdup(a, e, expr_size[e->kind]);
}

IrExpr *ir_int(TxArena *a, IrDType t, int64_t v, TxSpan sp)
{
    IrExpr *e = ir_node(a, IR_E_INT, t, sp);
    e->u.int_val = v;
    return e;
}

IrExpr *ir_i32(TxArena *a, int64_t v) { return ir_int(a, IR_INT32, v, (TxSpan){0}); }

IrExpr *ir_float(TxArena *a, IrDType t, double v, TxSpan sp)
{
    IrExpr *e = ir_node(a, IR_E_FLOAT, t, sp);
    e->u.float_val = v;
    return e;
}

IrExpr *ir_str(TxArena *a, const char *s, TxSpan sp)
{
    IrExpr *e = ir_node(a, IR_E_STR, IR_HANDLE, sp);
    e->u.str = s;
    return e;
}

IrExpr *ir_var(TxArena *a, const char *name, IrType *type, TxSpan sp)
{
    IrDType t = type->kind == IR_TY_PRIM ? type->dtype : IR_HANDLE;
    IrExpr *e = ir_node(a, IR_E_VAR, t, sp);
    e->u.var.name = name, e->u.var.type = type;
    return e;
}

IrExpr *ir_binary(TxArena *a, IrExprKind k, IrExpr *x, IrExpr *y, TxSpan sp)
{
    IrDType t = x->dtype;
    if (k >= IR_E_EQ && k <= IR_E_OR)
        t = ir_dtype_with_lanes(IR_BOOL, x->dtype.lanes);
    IrExpr *e = ir_node(a, k, t, sp);
    e->u.op.a = x, e->u.op.b = y;
    return e;
}

static const uint8_t stmt_size[IR_S_COUNT] = {
#define X(E, name, member) \
    [IR_S_##E] = offsetof(IrStmt, u) + sizeof(((IrStmt *)0)->u.member),
#include "stmt.def"
#undef X
};

IrStmt *ir_stmt(TxArena *a, IrStmtKind k, TxSpan sp)
{
    IrStmt *s = tx_arena_alloc(a, stmt_size[k]);
    s->kind = k, s->span = sp;
    return s;
}

IrStmt *ir_stmt_copy(TxArena *a, const IrStmt *s)
{
    return tx_arena_memdup(a, s, stmt_size[s->kind]);
}

IrStmt *ir_seq(TxArena *a, IrStmt **stmts, int n, TxSpan sp)
{
    if (n == 1)
        return stmts[0];
    IrStmt *s = ir_stmt(a, IR_S_SEQ, sp);
    s->u.seq.n = n;
    s->u.seq.stmts = tx_arena_memdup(a, stmts, sizeof(IrStmt *) * (size_t)n);
    return s;
}

bool ir_stmt_is_no_op(const IrStmt *s)
{
    return s->kind == IR_S_EVAL && s->u.eval->kind == IR_E_INT && s->u.eval->u.int_val == 0;
}

/* TVM's binary-operator type matching for integers: the narrower operand is
 * widened (an IntImm re-typed, anything else cast). */
static IrExpr *widen_int(TxArena *a, IrExpr *e, IrDType t)
{
    if (ir_dtype_eq(e->dtype, t))
        return e;
    if (e->kind == IR_E_INT)
        return ir_int(a, t, e->u.int_val, e->span);
    IrExpr *c = ir_node(a, IR_E_CAST, t, e->span);
    c->u.op.a = e;
    return c;
}

IrLayout *ir_default_layout(TxArena *a, IrExpr **shape, int ndim)
{
    IrLayout *l = TX_NEW(a, IrLayout);
    l->kind = IR_LAYOUT_TILE;
    l->nshard = ndim;
    l->shard = TX_NEW_ARRAY(a, IrIter, ndim);
    if (ndim == 0)
        return l;
    /* Row-major strides as the reference builds them: a 1 of the first
     * extent's dtype, then stride * extent, constants and `* 1` folded. */
    IrExpr *stride = ir_int(a, shape[0]->dtype, 1, (TxSpan){0});
    for (int i = ndim - 1; i >= 0; i--) {
        l->shard[i] = (IrIter){shape[i], stride, "m"};
        IrDType t = stride->dtype.bits >= shape[i]->dtype.bits ? stride->dtype : shape[i]->dtype;
        IrExpr *x = widen_int(a, stride, t), *e = widen_int(a, shape[i], t);
        if (x->kind == IR_E_INT && e->kind == IR_E_INT)
            stride = ir_int(a, t, (int64_t)((uint64_t)x->u.int_val * (uint64_t)e->u.int_val),
                            (TxSpan){0}); /* wraps, as the reference's fold */
        else if (x->kind == IR_E_INT && x->u.int_val == 1)
            stride = e;
        else if (!(e->kind == IR_E_INT && e->u.int_val == 1))
            stride = ir_binary(a, IR_E_MUL, x, e, (TxSpan){0});
        else
            stride = x;
    }
    return l;
}
