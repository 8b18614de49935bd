/* Calls of `T.<path>` that are not elaborator builtins: the ops of
 * src/ir/op.def (result dtype by the table's RET column, the explicit dtype
 * of reinterpret/call_extern, cuda.func_call's return_type), and the dispatch
 * to the tile primitives (elab_tile.c) and the PTX dialect. Unknown names get
 * near-match suggestions. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "elab.h"
#include "../arith/arith.h"

/* ---------------------------------------------------------------- ops */

static const char *plural(int n) { return n == 1 ? "" : "s"; }

/* n arguments, besides a result dtype written in the call (`dtype`). */
static bool check_arg_count(El *E, const ScArgs *args, const char *name, int n, int lo, int hi,
                            bool dtype)
{
    if (n >= lo && (hi < 0 || n <= hi))
        return true;
    const char *was = n == 1 ? "was" : "were", *extra = dtype ? " besides the dtype" : "";
    if (hi == lo)
        el_error(E, TX_E_ARGUMENTS, args->span, "T.%s takes %d argument%s%s but %d %s given", name,
                 lo, plural(lo),
                 extra, n, was);
    else if (hi < 0)
        el_error(E, TX_E_ARGUMENTS, args->span,
                 "T.%s takes at least %d argument%s%s but %d %s given", name, lo,
                 plural(lo), extra, n, was);
    else
        el_error(E, TX_E_ARGUMENTS, args->span, "T.%s takes %d to %d arguments%s but %d %s given",
                 name, lo, hi,
                 extra, n, was);
    return false;
}

static bool explicit_dtype(El *E, const ScVal *v, IrDType *dt)
{
    return el_dtype_of(E, v, dt, "the result dtype");
}

/* Arguments as PrimExprs; for T.pow (`like_first`), Python literals take the
 * dtype of the first PrimExpr argument, as the reference's type matching does
 * (its other math functions keep a literal's own dtype: T.fmod(x, 1)). */
static bool convert_args(El *E, const ScVal *vals, int n, IrExpr **out, bool like_first)
{
    IrDType like = IR_VOID;
    for (int i = 0; i < n && like_first; i++)
        if (vals[i].kind == SV_EXPR || (vals[i].kind == SV_BUFFER && vals[i].decay)) {
            IrExpr *e = el_prim(E, &vals[i], "an argument");
            if (!e)
                return false;
            like = e->dtype;
            break;
        }
    for (int i = 0; i < n; i++) {
        bool lit = vals[i].kind == SV_INT || vals[i].kind == SV_FLOAT;
        bool like_num = ir_dtype_is_int(like) || ir_dtype_is_float(like);
        out[i] = lit && like_num && !(vals[i].kind == SV_FLOAT && ir_dtype_is_int(like))
                     ? el_prim_as(E, &vals[i], ir_dtype_with_lanes(like, 1), "an argument")
                     : el_prim(E, &vals[i], "an argument");
        if (!out[i])
            return false;
    }
    return true;
}

static int bitwise_token(IrOp op)
{
    switch (op) {
    case IR_OP_BITWISE_AND: return SC_TK_AMPER;
    case IR_OP_BITWISE_OR: return SC_TK_VBAR;
    case IR_OP_BITWISE_XOR: return SC_TK_CIRCUMFLEX;
    case IR_OP_SHIFT_LEFT: return SC_TK_LEFTSHIFT;
    case IR_OP_SHIFT_RIGHT: return SC_TK_RIGHTSHIFT;
    default: return 0;
    }
}

/* cuda.func_call("name", args..., source_code="...", return_type="dtype") */
static ScVal func_call(El *E, ScArgs *args)
{
    ScBound b;
    args->fname = "T.cuda.func_call";
    if (!el_bind_args(E, args, "*args, source_code=, return_type=", &b))
        return sv_error();
    IrDType dt = IR_VOID;
    if (sv_given(&b.v[1]) && b.v[1].kind != SV_NONE && !explicit_dtype(E, &b.v[1], &dt))
        return sv_error();
    int n = b.nrest + 1;
    IrExpr **a = TX_NEW_ARRAY(E->a, IrExpr *, n);
    if (!convert_args(E, b.rest, b.nrest, a, false))
        return sv_error();
    if (!sv_given(&b.v[0])) {
        el_error(E, TX_E_ARGUMENTS, args->span, "T.cuda.func_call needs source_code=\"...\"");
        return sv_error();
    }
    if (!(a[b.nrest] = el_prim(E, &b.v[0], "source_code")))
        return sv_error();
    return sv_expr(el_call_node(E, IR_OP_CUDA_FUNC_CALL, dt, a, n, args->span), args->span);
}

/* Ops whose authoring API names its parameters (the Python wrappers); the
 * printed form passes all of them positionally, defaults included. */
static const struct {
    IrOp op;
    const char *params;
    int nparams, nrequired;
    const char *defaults[8]; /* of the optional parameters, in order; NULL: left out */
} named_ops[] = {
    {IR_OP_CUDA_TCGEN05_INSTR_DESC,
     "desc, d_dtype, a_dtype, b_dtype, M, N, K, trans_a, trans_b, n_cta_groups=, neg_a=, "
     "neg_b=, sat_d=, is_sparse=",
     14, 9, {"1", "False", "False", "False", "False"}},
    {IR_OP_CUDA_TCGEN05_INSTR_DESC_BLOCK_SCALED,
     "desc, d_dtype, a_dtype, b_dtype, sfa_dtype, sfb_dtype, sfa_tmem_addr, sfb_tmem_addr, M, N, "
     "K, trans_a, trans_b, n_cta_groups=, neg_a=, neg_b=, is_sparse=",
     17, 13, {"1", "False", "False", "False"}},
    {IR_OP_CUDA_TCGEN05_SMEM_DESC, "desc, addr, ldo, sdo, swizzle", 5, 5, {0}},
    {IR_OP_CUDA_WGMMA_SMEM_DESC, "desc, addr, ldo, sdo, swizzle", 5, 5, {0}},
    {IR_OP_CUDA_WARP_REDUCE, "value, op, width=", 3, 2, {"32"}},
    {IR_OP_CUDA_IKET_OFFICIAL_EVENT, "event_id, source_code=, payload=", 3, 1, {"\"\"", NULL}},
};

static ScVal default_value(const char *text, TxSpan sp)
{
    if (!strcmp(text, "True") || !strcmp(text, "False"))
        return sv_bool(text[0] == 'T', sp);
    if (!strcmp(text, "\"\""))
        return (ScVal){.kind = SV_STR, .span = sp, .u.str = {"", 0}};
    return sv_int(strtoll(text, NULL, 10), sp);
}

/* Map the keyword arguments of a named op onto positions. */
static bool named_op_args(El *E, IrOp op, ScArgs *args)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(named_ops); i++) {
        bool defaults = args->npos >= named_ops[i].nrequired && args->npos < named_ops[i].nparams;
        if (named_ops[i].op != op || (!args->nkw && !defaults))
            continue;
        ScBound b;
        args->fname = tx_arena_printf(E->a, "T.%s", ir_ops[op].name);
        if (!el_bind_args(E, args, named_ops[i].params, &b))
            return false;
        int n = named_ops[i].nparams, req = named_ops[i].nrequired;
        for (int k = req; k < n; k++) {
            const char *dflt = named_ops[i].defaults[k - req];
            if (sv_given(&b.v[k]))
                continue;
            if (!dflt) { /* an optional argument left out, printed only when given */
                n = k;
                break;
            }
            b.v[k] = default_value(dflt, args->span);
        }
        args->pos = TX_NEW_ARRAY(E->a, ScVal, n);
        el_copy(args->pos, b.v, sizeof(ScVal) * (size_t)n);
        args->npos = n, args->nkw = 0;
        return true;
    }
    return true;
}

/* cuda.mov_sreg(bits, "%reg"): a signed integer of that many bits. The
 * register may be named without its '%' ("laneid"), as the reference's
 * sources write it; it is stored with it. */
static bool sreg_dtype(El *E, const ScArgs *args, IrExpr *const *a, int n, IrDType *dt)
{
    int64_t bits = 0;
    if (n < 1 || !ar_const_int(a[0], &bits) || (bits != 32 && bits != 64)) {
        el_error(E, TX_E_ARGUMENTS, args->span,
                 "T.cuda.mov_sreg takes the register width first: 32 or 64");
        return false;
    }
    if (n > 1 && a[1]->kind == IR_E_STR && a[1]->u.str[0] && a[1]->u.str[0] != '%')
        a[1]->u.str = tx_arena_printf(E->a, "%%%s", a[1]->u.str);
    *dt = bits == 32 ? IR_INT32 : IR_INT64;
    return true;
}

/* T.dp4a(a, b[, acc]), the authoring form: int32, acc 0 by default. The
 * printed form names the dtype first, T.dp4a("int32", a, b, acc). */
static bool dp4a_authoring(El *E, ScArgs *args, IrDType *dt)
{
    if (args->npos && (args->pos[0].kind == SV_STR || args->pos[0].kind == SV_DTYPE))
        return false;
    if (args->npos == 2) {
        ScVal *pos = TX_NEW_ARRAY(E->a, ScVal, 3);
        el_copy(pos, args->pos, sizeof(ScVal) * 2);
        pos[2] = sv_int(0, args->span);
        args->pos = pos, args->npos = 3;
    }
    *dt = IR_INT32;
    return true;
}

/* T.cuda.ldg(addr, dtype, dst=(p0, ..), vec="v2" | "v4"): the vector form,
 * which stores the lanes through the dst pointers; it prints with every
 * argument positional, T.cuda.ldg(p0, .., addr, dtype, vec, n), and that form
 * reads back. The scalar form T.cuda.ldg(addr, dtype) is an ordinary op. */
static bool ldg_vector_args(El *E, ScArgs *args)
{
    ScBound b;
    args->fname = "T.cuda.ldg";
    if (!el_bind_args(E, args, "addr, dtype, *, dst=, vec=", &b))
        return false;
    const ScVal *dst = &b.v[2], *vec = &b.v[3];
    if (!sv_given(dst) || (dst->kind != SV_TUPLE && dst->kind != SV_LIST) || !sv_given(vec)) {
        el_error(E, TX_E_ARGUMENTS, args->span,
                 "the vector form of T.cuda.ldg takes dst=(pointers...) and "
                                                "vec=\"v2\" or \"v4\"");
        return false;
    }
    int n = dst->u.seq.n;
    ScVal *pos = TX_NEW_ARRAY(E->a, ScVal, n + 4);
    el_copy(pos, dst->u.seq.items, sizeof(ScVal) * (size_t)n);
    pos[n] = b.v[0], pos[n + 1] = b.v[1], pos[n + 2] = *vec, pos[n + 3] = sv_int(n, vec->span);
    args->pos = pos, args->npos = n + 4, args->nkw = 0;
    return true;
}

/* The vector form's dtype, "vN" and N agree with its N destinations. */
static bool check_ldg_vector(El *E, const ScArgs *args, IrExpr *const *a, int n)
{
    int64_t lanes = 0;
    IrDType dt;
    const char *vec = a[n - 2]->kind == IR_E_STR ? a[n - 2]->u.str : "";
    bool ok = ar_const_int(a[n - 1], &lanes) && (lanes == 2 || lanes == 4) && lanes == n - 4 &&
              vec[0] == 'v' && vec[1] == (char)('0' + lanes) && !vec[2];
    if (!ok) {
        el_error(E, TX_E_ARGUMENTS, args->span,
                 "T.cuda.ldg: vec must be \"v2\" or \"v4\", with as many "
                                                "destinations (%d given)", n - 4);
        return false;
    }
    if (a[n - 3]->kind != IR_E_STR || !ir_dtype_parse(a[n - 3]->u.str, strlen(a[n - 3]->u.str), &dt) ||
        !(ir_dtype_eq(dt, IR_INT32) || ir_dtype_eq(dt, IR_UINT32) || ir_dtype_eq(dt, IR_FLOAT32))) {
        el_error(E, TX_E_TYPE, args->pos[n - 3].span,
                 "the vector form of T.cuda.ldg reads int32, uint32 or "
                                            "float32");
        return false;
    }
    for (int i = 0; i < n - 3; i++)
        if (a[i]->dtype.code != IR_DT_HANDLE) {
            el_error(E, TX_E_TYPE, args->pos[i].span,
                     "T.cuda.ldg: the address and the destinations are "
                                                      "pointers");
            return false;
        }
    return true;
}

static ScVal ldg_vector(El *E, ScArgs *args)
{
    if (args->nkw && !ldg_vector_args(E, args))
        return sv_error();
    int n = args->npos;
    if (!check_arg_count(E, args, "cuda.ldg", n, 6, 8, false))
        return sv_error();
    IrExpr **a = TX_NEW_ARRAY(E->a, IrExpr *, n);
    if (!convert_args(E, args->pos, n, a, false) || !check_ldg_vector(E, args, a, n))
        return sv_error();
    return sv_expr(el_call_node(E, IR_OP_CUDA_LDG_VEC, IR_VOID, a, n, args->span), args->span);
}

/* The arguments of a T.nvshmem op against its letters in nvshmem.def:
 * pointers, integers, and the strings that name a signal operation, a
 * comparison or wait_until's value type. wait_until written without its type
 * gets "uint64_t", the form the reference prints. */
static bool nvshmem_args(El *E, const ScArgs *args, IrOp op, IrExpr **a, int *n)
{
    const IrNvshmemOp *nv = ir_nvshmem_op(op);
    const char *name = ir_ops[op].name;
    char dt[IR_DTYPE_STR_MAX];
    for (int i = 0; i < *n; i++) {
        char k = nv->args[i];
        const char *str = a[i]->kind == IR_E_STR ? a[i]->u.str : NULL;
        TxSpan sp = args->pos[i].span;
        if ((k == 'a' || k == 'u') && a[i]->dtype.code != IR_DT_HANDLE) {
            el_error(E, TX_E_TYPE, sp, "T.%s: argument %d must be an address (a pointer), not %s",
                     name, i + 1, ir_dtype_str(a[i]->dtype, dt));
            return false;
        }
        if (k == 'n' && !ir_dtype_is_int(a[i]->dtype)) {
            el_error(E, TX_E_TYPE, sp, "T.%s: argument %d must be an integer, not %s", name,
                     i + 1, ir_dtype_str(a[i]->dtype, dt));
            return false;
        }
        if ((k == 's' || k == 'c' || k == 'm') && !(str && ir_nvshmem_const(k, str))) {
            el_error(E, TX_E_VALUE, sp, "T.%s: argument %d, the %s, must be one of %s", name,
                     i + 1, ir_nvshmem_kind_name(k), ir_nvshmem_const_choices(k));
            return false;
        }
        if (k == 't' && !(str && (!strcmp(str, "uint64_t") || !strcmp(str, "uint64")))) {
            el_error(E, TX_E_VALUE, sp,
                     "T.%s: argument %d, the value type, must be \"uint64_t\" (the only one "
                     "supported)",
                     name, i + 1);
            return false;
        }
    }
    if (nv->args[*n] == 't')
        a[(*n)++] = ir_str(E->a, "uint64_t", args->span);
    return true;
}

IrType *el_result_ptr_type(const ScVal *v)
{
    /* `T.handle().ty` is how the plain "handle" dtype prints */
    IrType *ty = v->kind == SV_TYPE ? v->u.ty : NULL;
    if (ty && ty->kind == IR_TY_PTR && !(ty->dtype.code == IR_DT_VOID && !strcmp(ty->scope, "global")))
        return ty;
    return NULL;
}

static ScVal op_call(El *E, IrOp op, ScArgs *args)
{
    const IrOpInfo *info = &ir_ops[op];
    if (op == IR_OP_CUDA_FUNC_CALL)
        return func_call(E, args);
    if (op == IR_OP_CUDA_LDG && (args->nkw || args->npos > 2))
        return ldg_vector(E, args);
    if (!named_op_args(E, op, args))
        return sv_error();
    if (args->nkw) {
        el_error(E, TX_E_ARGUMENTS, args->kwspans[0],
                 "T.%s got an unexpected keyword argument '%s'", info->name,
                 args->kwnames[0]);
        return sv_error();
    }
    IrDType dt = IR_VOID;
    bool authoring = op == IR_OP_DP4A && dp4a_authoring(E, args, &dt);
    const ScVal *vals = args->pos;
    int n = args->npos;
    IrType *ptr_type = NULL;
    if (info->ret == IR_RET_EXPLICIT && !authoring) {
        if (n < 1) {
            el_error(E, TX_E_ARGUMENTS, args->span, "T.%s needs the result dtype first",
                     info->name);
            return sv_error();
        }
        if (!explicit_dtype(E, &vals[0], &dt))
            return sv_error();
        ptr_type = el_result_ptr_type(&vals[0]);
        vals++, n--;
    } else if (info->ret == IR_RET_EXPLICIT_LAST) {
        if (n < 1) {
            el_error(E, TX_E_ARGUMENTS, args->span, "T.%s needs the result dtype last", info->name);
            return sv_error();
        }
        if (!explicit_dtype(E, &vals[n - 1], &dt))
            return sv_error();
        n--;
    }
    bool dtype_written = n != args->npos;
    if (!check_arg_count(E, args, info->name, n, info->min_args, info->max_args, dtype_written))
        return sv_error();
    int tok = bitwise_token(op);
    if (tok)
        return el_binop(E, tok, vals[0], vals[1], args->span);
    IrExpr **a = TX_NEW_ARRAY(E->a, IrExpr *, n + 1);
    if (!convert_args(E, vals, n, a, op == IR_OP_POW))
        return sv_error();
    if (ir_nvshmem_op(op) && !nvshmem_args(E, args, op, a, &n))
        return sv_error();
    if ((op == IR_OP_CALL_LLVM_INTRIN || op == IR_OP_CALL_LLVM_PURE_INTRIN) &&
        a[0]->kind != IR_E_STR) {
        el_error(E, TX_E_ARGUMENTS, vals[0].span,
                 "T.%s takes the LLVM intrinsic's name (a string) after the dtype",
                 info->name);
        return sv_error();
    }
    if (op == IR_OP_PTR_BYTE_OFFSET &&
        (a[0]->dtype.code != IR_DT_HANDLE || !ir_dtype_is_int(a[1]->dtype) ||
         a[2]->kind != IR_E_CALL || a[2]->u.call.op != IR_OP_TYPE_ANNOTATION)) {
        el_error(E, TX_E_ARGUMENTS, args->span,
                 "T.ptr_byte_offset takes a pointer, a byte offset and the pointee type "
                 "(T.type_annotation(\"float16\"))");
        return sv_error();
    }
    if (op == IR_OP_BUFFER_OFFSET && a[0]->kind != IR_E_LOAD) {
        el_error(E, TX_E_ARGUMENTS, vals[0].span,
                 "T.buffer_offset takes a buffer element, as in A[i, j]");
        return sv_error();
    }
    switch (info->ret) {
    case IR_RET_FLOAT32: dt = IR_FLOAT32; break;
    case IR_RET_INT64: dt = IR_INT64; break;
    case IR_RET_ARG0: dt = a[0]->dtype; break;
    case IR_RET_ARG1: dt = a[1]->dtype; break;
    case IR_RET_VOID: dt = IR_VOID; break;
    case IR_RET_BOOL: dt = ir_dtype_with_lanes(IR_BOOL, a[0]->dtype.lanes); break;
    case IR_RET_INT32: dt = IR_INT32; break;
    case IR_RET_UINT32: dt = IR_UINT32; break;
    case IR_RET_UINT64: dt = IR_UINT64; break;
    case IR_RET_HANDLE: case IR_RET_PTR: dt = IR_HANDLE; break;
    case IR_RET_INT_BITS:
        if (!sreg_dtype(E, args, a, n, &dt))
            return sv_error();
        break;
    default: break;
    }
    IrExpr *call = el_call_node(E, op, dt, a, n, args->span);
    call->u.call.ptr_type = ptr_type;
    return sv_expr(call, args->span);
}

/* T.cuda.warp_sum(value, width=32) ... T.cuda.cta_min(value, num_warps,
 * scratch): T.cuda.warp_reduce / T.cuda.cta_reduce with the operator named. */
ScVal bi_cuda_reduce(El *E, ScArgs *args)
{
    bool warp = !strncmp(args->fname, "T.cuda.warp_", 12);
    const char *op = args->fname + (warp ? 12 : 11);
    ScBound b;
    if (!el_bind_args(E, args, warp ? "value, width=" : "value, num_warps, scratch", &b))
        return sv_error();
    ScArgs call = *args;
    call.pos = TX_NEW_ARRAY(E->a, ScVal, 4);
    call.pos[0] = b.v[0];
    call.pos[1] = (ScVal){.kind = SV_STR, .span = args->span};
    call.pos[1].u.str.s = op, call.pos[1].u.str.n = (uint32_t)strlen(op);
    call.pos[2] = sv_given(&b.v[1]) ? b.v[1] : sv_int(32, args->span);
    call.pos[3] = b.v[2];
    call.npos = warp ? 3 : 4, call.nkw = 0;
    return op_call(E, warp ? IR_OP_CUDA_WARP_REDUCE : IR_OP_CUDA_CTA_REDUCE, &call);
}

/* T.cuda.sm100_2sm_leader_smem_addr(ptr): the shared address of ptr with bit
 * 24 cleared (the leader CTA of a 2-SM pair). */
ScVal bi_leader_smem_addr(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "ptr", &b))
        return sv_error();
    IrExpr *ptr = el_prim(E, &b.v[0], "the pointer");
    if (!ptr)
        return sv_error();
    IrExpr *addr = el_call_node(E, IR_OP_CUDA_CVTA_TO_SHARED, IR_UINT32, &ptr, 1, args->span);
    IrExpr *mask = ir_int(E->a, IR_UINT32, 0xFEFFFFFF, args->span);
    return sv_expr(ar_bitwise(E->a, IR_OP_BITWISE_AND, addr, mask), args->span);
}

/* The named helpers for the PTX of barrier setup, the TMA-store epilogue and
 * named barriers (docs/language.md, "T.cuda calls"), printed as the T.ptx call
 * each makes: T.cuda.fence_barrier_init() after mbarrier.init,
 * T.cuda.fence_proxy_async() after generic-proxy writes to shared memory that
 * TMA reads, T.cuda.tma_store_wait(n=0): at most n committed TMA stores may
 * still be reading their shared memory, and T.cuda.named_barrier_sync /
 * named_barrier_arrive(bar_no, num_threads): bar.sync / bar.arrive on one of
 * the 16 named barriers of the CTA (the spelling of the reference's
 * T.cuda.warpgroup_sync(bar_no), which is bar.sync bar_no, 128), and
 * T.cuda.tcgen05_fence_before_thread_sync / tcgen05_fence_after_thread_sync():
 * tcgen05.fence::before_thread_sync before a barrier arrival that publishes
 * tensor-memory work, ::after_thread_sync after the wait that observes it. */
static const struct {
    const char *name, *ptx, *params;
    bool named_barrier; /* bar_no and num_threads checked where constant */
} ptx_helpers[] = {
    {"T.cuda.fence_barrier_init", "ptx.fence.mbarrier_init.release.cluster", "", false},
    {"T.cuda.fence_proxy_async", "ptx.fence.proxy.async_.shared__cta", "", false},
    {"T.cuda.tma_store_wait", "ptx.cp.async_.bulk.wait_group.read", "n=", false},
    {"T.cuda.named_barrier_sync", "ptx.bar.sync", "bar_no, num_threads", true},
    {"T.cuda.named_barrier_arrive", "ptx.bar.arrive", "bar_no, num_threads", true},
    {"T.cuda.tcgen05_fence_before_thread_sync", "ptx.tcgen05.fence__before_thread_sync", "", false},
    {"T.cuda.tcgen05_fence_after_thread_sync", "ptx.tcgen05.fence__after_thread_sync", "", false},
};

/* An integer argument; a constant one outside [lo, hi] or not a multiple of `step` is an
 * error at the argument; a run-time value is the hardware's to check. */
static bool check_const_arg(El *E, const char *helper, const ScVal *v, const char *what,
                            int64_t lo, int64_t hi, int64_t step)
{
    IrExpr *e = el_prim(E, v, what);
    if (!e)
        return false;
    if (!ir_dtype_is_int(e->dtype) || e->dtype.lanes != 1) {
        char buf[IR_DTYPE_STR_MAX];
        el_error(E, TX_E_TYPE, v->span, "%s: %s is an integer, not %s", helper, what,
                 ir_dtype_str(e->dtype, buf));
        return false;
    }
    if (e->kind != IR_E_INT ||
        (e->u.int_val >= lo && e->u.int_val <= hi && e->u.int_val % step == 0))
        return true;
    el_error(E, TX_E_VALUE, v->span, "%s: %s is %s%" PRId64 " to %" PRId64 ", not %" PRId64, helper,
             what, step > 1 ? "a multiple of 32 from " : "", lo, hi, e->u.int_val);
    return false;
}

ScVal bi_cuda_ptx_helper(El *E, ScArgs *args)
{
    size_t i = 0;
    while (i + 1 < sizeof ptx_helpers / sizeof ptx_helpers[0] &&
           strcmp(ptx_helpers[i].name, args->fname))
        i++;
    ScBound b;
    if (!el_bind_args(E, args, ptx_helpers[i].params, &b))
        return sv_error();
    if (ptx_helpers[i].named_barrier &&
        (!check_const_arg(E, args->fname, &b.v[0], "the barrier id", 0, 15, 1) ||
         !check_const_arg(E, args->fname, &b.v[1], "the thread count", 32, 1024, 32)))
        return sv_error();
    const char *p = ptx_helpers[i].params;
    int n = *p ? 1 : 0;
    while ((p = strchr(p, ',')))
        p++, n++;
    ScArgs call = *args;
    call.pos = TX_NEW_ARRAY(E->a, ScVal, 2);
    call.npos = n, call.nkw = 0;
    for (int k = 0; k < n; k++)
        call.pos[k] = sv_given(&b.v[k]) ? b.v[k] : sv_int(0, args->span);
    return el_call_ptx(E, ptx_helpers[i].ptx, &call);
}

/* T.cuda.wgmma_wait(n, *accumulators): wgmma.wait_group n (at most the n
 * latest committed groups still in flight), then every register of each
 * named accumulator pinned as gemm_async pins its own after its wait (an
 * empty asm per register: the compiler may not move their reads above the
 * wait). The accumulators are the register tiles whose MMAs were committed
 * with `wait=None` and have completed at this point. */
ScVal bi_cuda_wgmma_wait(El *E, ScArgs *args)
{
    ScBound b;
    if (!el_bind_args(E, args, "n, *accumulators", &b) ||
        !check_const_arg(E, args->fname, &b.v[0], "the group count", 0, 7, 1))
        return sv_error();
    ScArgs call = *args;
    call.pos = &b.v[0], call.npos = 1, call.nkw = 0;
    ScVal wait = el_call_ptx(E, "ptx.wgmma.wait_group.sync.aligned", &call);
    IrExpr *w = wait.kind == SV_ERROR ? NULL : el_prim(E, &wait, "the wait");
    if (!w)
        return sv_error();
    IrStmt *ws = ir_stmt(E->a, IR_S_EVAL, args->span);
    ws->u.eval = w;
    el_emit(E, ws);
    for (int i = 0; i < b.nrest; i++) {
        const ScVal *t = &b.rest[i];
        const IrType *ty = t->kind == SV_BUFFER ? t->u.e->u.var.type : NULL;
        if (!ty || !ty->scope || strcmp(ty->scope, "local")) {
            el_error(E, TX_E_TYPE, t->span, "%s: an accumulator is a register tile "
                     "(T.alloc_local), not %s%s", args->fname, ty ? "a buffer of scope " : "",
                     ty ? (ty->scope ? ty->scope : "global") : sv_kind_name(t));
            return sv_error();
        }
        ScArgs none = {.span = t->span, .fname = "local"};
        ScVal view = el_view_method(E, t->u.e, "local", &none);
        if (view.kind != SV_BUFFER)
            return sv_error();
        view.u.e->u.var.name = tx_arena_printf(E->a, "%s_regs", t->u.e->u.var.name);
        const IrBufferType *bt = ir_buf(view.u.e);
        IrExpr *var = ir_var(E->a, "i", el_prim_type(E, IR_INT32), t->span);
        IrExpr **reg = TX_NEW_ARRAY(E->a, IrExpr *, 2);
        reg[1] = var;
        reg[0] = el_load(E, view.u.e, reg + 1, 1, t->span);
        IrStmt *pin = ir_stmt(E->a, IR_S_EVAL, t->span);
        pin->u.eval = el_call_node(E, IR_OP_CUDA_WGMMA_NOOP_BARRIER, IR_VOID, reg, 1, t->span);
        IrStmt *f = ir_stmt(E->a, IR_S_FOR, t->span);
        f->u.loop.var = var, f->u.loop.min = ir_int(E->a, IR_INT32, 0, t->span);
        f->u.loop.extent = bt->shape[0], f->u.loop.kind = IR_FOR_UNROLLED;
        f->u.loop.body = pin;
        el_emit(E, f);
    }
    return sv_none(args->span);
}

/* ---------------------------------------------------------------- dispatch */

static TxSpan callee_span(const ScArgs *args)
{
    return args->call && args->call->a ? args->call->a->span : args->span;
}

static void unknown_builtin(El *E, const char *path, ScArgs *args)
{
    const char *cands[512];
    int n = el_builtin_names(cands, 256);
    for (int i = 0; i < IR_OP_COUNT && n < 480; i++)
        if (i != IR_OP_PTX && i != IR_OP_CALL_FUNC)
            cands[n++] = ir_ops[i].name;
    n += ir_dtype_names(cands + n, 512 - n);
    const char *best = el_nearest(path, cands, n);
    el_error(E, TX_E_UNKNOWN_BUILTIN, callee_span(args), "'T.%s' is not a TIRx builtin%s%s%s", path,
             best ? "; did you mean 'T." : "", best ? best : "", best ? "'?" : "");
}

ScVal el_call_path(El *E, const char *path, ScArgs *args)
{
    int op = ir_op_lookup(path);
    if (op >= 0 && op != IR_OP_PTX && op != IR_OP_CALL_FUNC && !el_tile_overload(E, path, args))
        return op_call(E, (IrOp)op, args);
    if (!strncmp(path, "ptx.", 4) || !strncmp(path, "ptx[", 4))
        return el_call_ptx(E, path, args);
    ScVal r;
    if (el_tile_call(E, path, args, &r))
        return r;
    unknown_builtin(E, path, args);
    return sv_error();
}
