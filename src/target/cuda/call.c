/* Builtin calls: math functions (float and double names, the fast intrinsics
 * under fast-math, half/bfloat16 computed in float), bitwise operators,
 * pointers (address_of, buffer_data, reinterpret), externs, warp shuffles, and
 * the T.cuda helpers as CUDA builtins or prelude functions; the calls that are
 * statements (descriptor encoders, mbarrier waits, traps, loop control). */
#include <string.h>

#include "internal.h"

/* ---------------------------------------------------------------- math */

typedef struct MathFn {
    IrOp op;
    const char *f32, *f64, *fast; /* fast: the float intrinsic under fast-math, or NULL */
} MathFn;

static const MathFn math_fns[] = {
    {IR_OP_EXP, "expf", "exp", "__expf"},        {IR_OP_EXP2, "exp2f", "exp2", NULL},
    {IR_OP_EXP10, "exp10f", "exp10", "__exp10f"}, {IR_OP_LOG, "logf", "log", "__logf"},
    {IR_OP_LOG2, "log2f", "log2", "__log2f"},     {IR_OP_LOG10, "log10f", "log10", "__log10f"},
    {IR_OP_LOG1P, "log1pf", "log1p", NULL},       {IR_OP_SQRT, "sqrtf", "sqrt", NULL},
    {IR_OP_RSQRT, "rsqrtf", "rsqrt", NULL},       {IR_OP_SIN, "sinf", "sin", "__sinf"},
    {IR_OP_COS, "cosf", "cos", "__cosf"},         {IR_OP_TAN, "tanf", "tan", "__tanf"},
    {IR_OP_SINH, "sinhf", "sinh", NULL},          {IR_OP_COSH, "coshf", "cosh", NULL},
    {IR_OP_TANH, "tanhf", "tanh", NULL},          {IR_OP_ASIN, "asinf", "asin", NULL},
    {IR_OP_ACOS, "acosf", "acos", NULL},          {IR_OP_ATAN, "atanf", "atan", NULL},
    {IR_OP_ASINH, "asinhf", "asinh", NULL},       {IR_OP_ACOSH, "acoshf", "acosh", NULL},
    {IR_OP_ATANH, "atanhf", "atanh", NULL},       {IR_OP_ATAN2, "atan2f", "atan2", NULL},
    {IR_OP_ERF, "erff", "erf", NULL},             {IR_OP_FABS, "fabsf", "fabs", NULL},
    {IR_OP_FLOOR, "floorf", "floor", NULL},       {IR_OP_CEIL, "ceilf", "ceil", NULL},
    {IR_OP_ROUND, "roundf", "round", NULL},       {IR_OP_TRUNC, "truncf", "trunc", NULL},
    {IR_OP_NEARBYINT, "nearbyintf", "nearbyint", NULL}, {IR_OP_POW, "powf", "pow", "__powf"},
    {IR_OP_FMOD, "fmodf", "fmod", NULL},          {IR_OP_HYPOT, "hypotf", "hypot", NULL},
    {IR_OP_COPYSIGN, "copysignf", "copysign", NULL}, {IR_OP_LDEXP, "ldexpf", "ldexp", NULL},
    {IR_OP_NEXTAFTER, "nextafterf", "nextafter", NULL}, {IR_OP_FMA, "fmaf", "fma", NULL},
    {IR_OP_ISNAN, "isnan", "isnan", NULL},        {IR_OP_ISINF, "isinf", "isinf", NULL},
    {IR_OP_ISFINITE, "isfinite", "isfinite", NULL}, {IR_OP_SIGMOID, "tx_sigmoid", "tx_sigmoid", NULL},
};

static const MathFn *math_fn(IrOp op)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(math_fns); i++)
        if (math_fns[i].op == op)
            return &math_fns[i];
    return NULL;
}

const char *cg_math_name(Cg *cg, IrOp op, IrDType t)
{
    const MathFn *f = math_fn(op);
    if (!f)
        return NULL;
    if (t.code == IR_DT_FLOAT && t.bits == 64)
        return f->f64;
    return cg->opt->fast_math && f->fast ? f->fast : f->f32;
}

int cg_math_names(const char **out, int max)
{
    int n = 0;
    for (size_t i = 0; i < TX_ARRAY_LEN(math_fns) && n + 3 <= max; i++) {
        out[n++] = math_fns[i].f32;
        out[n++] = math_fns[i].f64;
        if (math_fns[i].fast)
            out[n++] = math_fns[i].fast;
    }
    return n;
}

/* `f(a, b, ...)` over args[first..nargs). */
static int emit_args_call(Cg *cg, const char *f, const IrExpr *e, int first, TxBuf *b)
{
    tx_buf_printf(b, "%s(", f);
    for (int i = first; i < e->u.call.nargs; i++) {
        if (i > first)
            tx_buf_puts(b, ", ");
        cg_expr(cg, e->u.call.args[i], b, CG_PREC_NONE);
    }
    tx_buf_putc(b, ')');
    return CG_PREC_POSTFIX;
}

/* A float function of half/bfloat16/fp8 arguments: computed in float. */
static int emit_low_float_math(Cg *cg, const IrExpr *e, const char *f, TxBuf *b)
{
    bool value = cg_is_low_float(e->dtype);
    if (value)
        tx_buf_printf(b, "%s(", cg_ctype_at(cg, e->dtype, cg_span(cg, e)));
    tx_buf_printf(b, "%s(", f);
    for (int i = 0; i < e->u.call.nargs; i++) {
        tx_buf_printf(b, "%s(float)", i ? ", " : "");
        cg_expr(cg, e->u.call.args[i], b, CG_PREC_UNARY);
    }
    tx_buf_puts(b, value ? "))" : ")");
    return CG_PREC_POSTFIX;
}

/* popcount and clz of integers. */
static int emit_int_math(Cg *cg, const IrExpr *e, TxBuf *b)
{
    const IrExpr *x = e->u.call.args[0];
    bool wide = x->dtype.bits == 64;
    const char *f = NULL;
    switch (e->u.call.op) {
    case IR_OP_POPCOUNT: f = wide ? "__popcll" : "__popc"; break;
    case IR_OP_CLZ: f = wide ? "__clzll" : "__clz"; break;
    default: break;
    }
    if (!f || x->dtype.code == IR_DT_BOOL) {
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e), "T.%s of an integer is not supported",
                 ir_ops[e->u.call.op].name);
        tx_buf_putc(b, '0');
        return CG_PREC_POSTFIX;
    }
    int bits = x->dtype.bits;
    if (bits >= 32)
        return emit_args_call(cg, f, e, 0, b);
    /* int8 and int16 count their own bits, not those of the sign-extended int */
    tx_buf_printf(b, "(%s((uint%d_t)", f, bits);
    cg_expr(cg, x, b, CG_PREC_UNARY);
    if (e->u.call.op == IR_OP_CLZ)
        tx_buf_printf(b, ") - %d)", 32 - bits);
    else
        tx_buf_puts(b, "))");
    return CG_PREC_POSTFIX;
}

static int emit_math(Cg *cg, const IrExpr *e, TxBuf *b)
{
    IrDType t = e->u.call.args[0]->dtype;
    if (ir_dtype_is_int(t) || t.code == IR_DT_BOOL)
        return emit_int_math(cg, e, b);
    const char *f = cg_math_name(cg, e->u.call.op, cg_is_low_float(t) ? IR_FLOAT32 : t);
    if (!f) {
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e), "T.%s is not supported on floats",
                 ir_ops[e->u.call.op].name);
        tx_buf_putc(b, '0');
        return CG_PREC_POSTFIX;
    }
    return cg_is_low_float(t) ? emit_low_float_math(cg, e, f, b) : emit_args_call(cg, f, e, 0, b);
}

/* ---------------------------------------------------------------- operators */

static int emit_infix_call(Cg *cg, const IrExpr *e, const char *op, int prec, TxBuf *b)
{
    cg_expr(cg, e->u.call.args[0], b, prec);
    tx_buf_printf(b, " %s ", op);
    cg_expr(cg, e->u.call.args[1], b, prec + 1);
    return prec;
}

/* ---------------------------------------------------------------- pointers */

/* T.ptr_byte_offset(p, bytes, T.type_annotation(T)): ((T*)((char*)(p) + bytes)). */
static int emit_ptr_byte_offset(Cg *cg, const IrExpr *e, TxBuf *b)
{
    const IrCall *c = &e->u.call;
    tx_buf_printf(b, "((%s*)((char*)(", cg_storage_ctype(cg, c->args[2]->dtype, cg_span(cg, e)));
    cg_expr(cg, c->args[0], b, CG_PREC_NONE);
    tx_buf_puts(b, ") + (");
    cg_expr(cg, c->args[1], b, CG_PREC_NONE);
    tx_buf_puts(b, ")))");
    return CG_PREC_POSTFIX;
}

static int emit_address_of(Cg *cg, const IrExpr *e, TxBuf *b)
{
    const IrExpr *x = e->u.call.args[0];
    int sub = x->kind == IR_E_LOAD ? cg_subbyte(x->u.access.buffer->u.var.type->dtype) : 0;
    if (sub && x->u.access.n == 1) { /* the byte that holds the element's first bit */
        tx_buf_printf(b, "(%s + (tx_bit<%s>(", cg_name(cg, x->u.access.buffer),
                      cg_bits_args(x->u.access.buffer->u.var.type->dtype));
        cg_expr(cg, x->u.access.indices[0], b, CG_PREC_NONE);
        tx_buf_puts(b, ") >> 3))");
        return CG_PREC_POSTFIX;
    }
    if (x->kind == IR_E_LOAD && x->u.access.n == 1) {
        tx_buf_putc(b, '&');
        cg_element(cg, x->u.access.buffer, x->u.access.indices[0], b);
        return CG_PREC_UNARY;
    }
    if (x->kind == IR_E_VAR) {
        tx_buf_printf(b, "&%s", cg_name(cg, x));
        return CG_PREC_UNARY;
    }
    cg_error(cg, TX_E_CODEGEN, cg_span(cg, e), "T.address_of takes a buffer element or a variable");
    tx_buf_putc(b, '0');
    return CG_PREC_POSTFIX;
}

static int emit_buffer_data(Cg *cg, const IrExpr *e, TxBuf *b)
{
    const IrExpr *buf = e->u.call.args[0];
    if (ir_ptrmap_get(&cg->scalars, buf, NULL)) {
        tx_buf_printf(b, "&%s", cg_name(cg, buf));
        return CG_PREC_UNARY;
    }
    tx_buf_puts(b, cg_name(cg, buf));
    return CG_PREC_POSTFIX;
}

static int emit_reinterpret(Cg *cg, const IrExpr *e, TxBuf *b)
{
    const IrExpr *x = e->u.call.args[0];
    const IrType *pt = e->u.call.ptr_type;
    if (pt) {
        tx_buf_printf(b, "(%s)%s", cg_var_ctype(cg, pt, cg_span(cg, e)),
                      cg_expr_str(cg, x, CG_PREC_UNARY));
        return CG_PREC_UNARY;
    }
    if (e->dtype.code == IR_DT_HANDLE || x->dtype.code == IR_DT_HANDLE) {
        tx_buf_printf(b, "(%s)%s", cg_ctype_at(cg, e->dtype, cg_span(cg, e)),
                      cg_expr_str(cg, x, CG_PREC_UNARY));
        return CG_PREC_UNARY;
    }
    if (e->dtype.bits * e->dtype.lanes != x->dtype.bits * x->dtype.lanes)
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e),
                 "T.reinterpret between types of different sizes");
    tx_buf_printf(b, "tx_bitcast<%s>(%s)", cg_ctype_at(cg, e->dtype, cg_span(cg, e)),
                  cg_expr_str(cg, x, CG_PREC_NONE));
    return CG_PREC_POSTFIX;
}

/* tvm_access_ptr(type, data, offset, extent, rw): the element's address. */
static int emit_access_ptr(Cg *cg, const IrExpr *e, TxBuf *b)
{
    cg_expr(cg, e->u.call.args[1], b, CG_PREC_ADD);
    tx_buf_puts(b, " + ");
    cg_expr(cg, e->u.call.args[2], b, CG_PREC_ADD + 1);
    return CG_PREC_ADD;
}

/* T.ptx.addr(base, byte_offset) outside an address operand: the byte offset
 * added to a pointer or to a 32/64-bit address. */
static int emit_ptx_addr(Cg *cg, const IrExpr *e, TxBuf *b)
{
    if (e->u.call.args[0]->dtype.code == IR_DT_HANDLE) {
        tx_buf_puts(b, "(char*)");
        cg_expr(cg, e->u.call.args[0], b, CG_PREC_UNARY);
        tx_buf_puts(b, " + ");
        cg_expr(cg, e->u.call.args[1], b, CG_PREC_ADD + 1);
        return CG_PREC_ADD;
    }
    return emit_infix_call(cg, e, "+", CG_PREC_ADD, b);
}

/* ---------------------------------------------------------------- T.cuda values */

static const char *str_arg(const IrExpr *e)
{
    return e && e->kind == IR_E_STR ? e->u.str : NULL;
}

/* T.cuda.ldg(address, dtype): a read-only cached load. */
static int emit_ldg(Cg *cg, const IrExpr *e, TxBuf *b)
{
    const char *type = cg_ctype_at(cg, e->dtype, cg_span(cg, e));
    char *addr = cg_expr_str(cg, e->u.call.args[0], CG_PREC_UNARY);
    if (cg_is_low_float(e->dtype))
        tx_buf_printf(b, "%s::from_bits(__ldg((const uint%d_t*)%s))", type, e->dtype.bits, addr);
    else
        tx_buf_printf(b, "__ldg((const %s*)%s)", type, addr);
    return CG_PREC_POSTFIX;
}

/* The vector form T.cuda.ldg(dst0, .., addr, dtype, "vN", N): one __ldg of a
 * CUDA vector (float4, uint2, ...) whose lanes go to the destinations. */
static int emit_ldg_vec(Cg *cg, const IrExpr *e, TxBuf *b)
{
    const IrCall *c = &e->u.call;
    int n = c->nargs - 4;
    IrDType t;
    const char *dt = str_arg(c->args[n + 1]);
    if (!dt || !ir_dtype_parse(dt, strlen(dt), &t))
        TX_UNREACHABLE(); /* the parser checked the dtype */
    const char *scalar = cg_ctype_at(cg, t, cg_span(cg, e));
    tx_buf_printf(b, "tx_ldg_v%d<%s, %s>(", n, cg_ctype_at(cg, ir_dtype_with_lanes(t, n), cg_span(cg, e)),
                  scalar);
    for (int i = 0; i <= n; i++) {
        tx_buf_puts(b, i ? ", " : "");
        cg_expr(cg, c->args[i], b, CG_PREC_NONE);
    }
    tx_buf_putc(b, ')');
    return CG_PREC_POSTFIX;
}

static const char *reduce_op(Cg *cg, const IrExpr *e, const IrExpr *op)
{
    const char *s = str_arg(op);
    if (s && (!strcmp(s, "sum") || !strcmp(s, "max") || !strcmp(s, "min")))
        return s;
    cg_error(cg, TX_E_CODEGEN, cg_span(cg, e),
             "the reduction operator must be \"sum\", \"max\" or \"min\"");
    return "sum";
}

/* A constant power of two in [lo, hi] (warp widths, warp counts). */
static int64_t pow2_arg(Cg *cg, const IrExpr *e, const IrExpr *x, int64_t lo, int64_t hi, int64_t dflt)
{
    int64_t v = dflt;
    if (x && (!cg_const_int(x, &v) || v < lo || v > hi || (v & (v - 1))))
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e),
                 "expected a constant power of two in [%lld, %lld]",
                 (long long)lo, (long long)hi);
    return v;
}

static int emit_warp_reduce(Cg *cg, const IrExpr *e, TxBuf *b)
{
    const IrCall *c = &e->u.call;
    const char *op = reduce_op(cg, e, c->args[1]);
    int64_t width = pow2_arg(cg, e, c->nargs > 2 ? c->args[2] : NULL, 2, 32, 32);
    tx_buf_printf(b, "tx_warp_reduce<tx_%s, %lld>(", op, (long long)width);
    cg_expr(cg, c->args[0], b, CG_PREC_NONE);
    tx_buf_putc(b, ')');
    return CG_PREC_POSTFIX;
}

static int emit_cta_reduce(Cg *cg, const IrExpr *e, TxBuf *b)
{
    const IrCall *c = &e->u.call;
    const char *op = reduce_op(cg, e, c->args[1]);
    int64_t warps = pow2_arg(cg, e, c->args[2], 1, 32, 1);
    tx_buf_printf(b, "tx_cta_reduce<tx_%s, %lld>(", op, (long long)warps);
    cg_expr(cg, c->args[0], b, CG_PREC_NONE);
    tx_buf_puts(b, ", ");
    cg_expr(cg, c->args[3], b, CG_PREC_NONE);
    tx_buf_putc(b, ')');
    return CG_PREC_POSTFIX;
}

/* T.cuda.func_call("name", args..., source_code=...): the source (the last
 * argument in the IR) goes once into the helpers before the kernels. */
static int emit_func_call(Cg *cg, const IrExpr *e, TxBuf *b)
{
    const IrCall *c = &e->u.call;
    const char *name = c->nargs >= 2 ? str_arg(c->args[0]) : NULL;
    const char *source = name ? str_arg(c->args[c->nargs - 1]) : NULL;
    if (!source) {
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e),
                 "T.cuda.func_call needs the function name and its source_code");
        return CG_PREC_POSTFIX;
    }
    if (cg_nameset_add(cg, &cg->helper_names, cg_strdup(cg, name)))
        tx_buf_printf(&cg->helpers, "%s\n\n", source);
    tx_buf_printf(b, "%s(", name);
    for (int i = 1; i < c->nargs - 1; i++) {
        tx_buf_puts(b, i > 1 ? ", " : "");
        cg_expr(cg, c->args[i], b, CG_PREC_NONE);
    }
    tx_buf_putc(b, ')');
    return CG_PREC_POSTFIX;
}

static int emit_extern(Cg *cg, const IrExpr *e, TxBuf *b)
{
    const char *name = str_arg(e->u.call.args[0]);
    if (!name) {
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e), "an extern call needs the function name first");
        return CG_PREC_POSTFIX;
    }
    return emit_args_call(cg, name, e, 1, b);
}

/* printf: 16-bit floats print as float, bools as int. */
static int emit_printf(Cg *cg, const IrExpr *e, TxBuf *b)
{
    tx_buf_puts(b, "printf(");
    for (int i = 0; i < e->u.call.nargs; i++) {
        const IrExpr *a = e->u.call.args[i];
        if (i)
            tx_buf_puts(b, ", ");
        if (cg_is_low_float(a->dtype) || a->dtype.code == IR_DT_BOOL)
            tx_buf_puts(b, cg_is_low_float(a->dtype) ? "(float)" : "(int)");
        cg_expr(cg, a, b, cg_is_low_float(a->dtype) || a->dtype.code == IR_DT_BOOL ? CG_PREC_UNARY
                                                                                 : CG_PREC_NONE);
    }
    tx_buf_putc(b, ')');
    return CG_PREC_POSTFIX;
}

/* A call with an optional mask argument that defaults to the full warp. */
static int emit_masked(Cg *cg, const IrExpr *e, const char *f, TxBuf *b)
{
    if (e->u.call.nargs == 0) {
        tx_buf_printf(b, "%s(0xffffffffu)", f);
        return CG_PREC_POSTFIX;
    }
    return emit_args_call(cg, f, e, 0, b);
}

/* tvm_warp_shuffle*(mask, value, lane, width, warp_size) */
static int emit_warp_shuffle(Cg *cg, const IrExpr *e, const char *f, TxBuf *b)
{
    const IrCall *c = &e->u.call;
    tx_buf_printf(b, "%s(", f);
    for (int i = 0; i < 4; i++) {
        tx_buf_puts(b, i ? ", " : "");
        cg_expr(cg, c->args[i], b, CG_PREC_NONE);
    }
    tx_buf_putc(b, ')');
    return CG_PREC_POSTFIX;
}

typedef struct CudaFn {
    IrOp op;
    const char *name;
    int sm; /* the first target that has it */
} CudaFn;

/* T.cuda helpers and builtins that are plain calls of a CUDA or prelude function. */
static const CudaFn cuda_fns[] = {
    {IR_OP_CUDA_CTA_SYNC, "__syncthreads", 80},
    {IR_OP_CUDA_ACTIVEMASK, "__activemask", 80},
    {IR_OP_CUDA_SHFL_SYNC, "__shfl_sync", 80},
    {IR_OP_CUDA_SHFL_XOR_SYNC, "__shfl_xor_sync", 80},
    {IR_OP_CUDA_SHFL_UP_SYNC, "__shfl_up_sync", 80},
    {IR_OP_CUDA_SHFL_DOWN_SYNC, "__shfl_down_sync", 80},
    {IR_OP_CUDA_GET_TMEM_ADDR, "tx_get_tmem_addr", 80},
    {IR_OP_CUDA_CVTA_TO_SHARED, "tx_cvta_to_shared", 80},
    {IR_OP_CUDA_ATOMIC_ADD, "atomicAdd", 80},
    {IR_OP_CUDA_ATOMIC_CAS, "atomicCAS", 80},
    {IR_OP_CUDA_BALLOT_SYNC, "__ballot_sync", 80},
    {IR_OP_CUDA_ANY_SYNC, "__any_sync", 80},
    {IR_OP_CUDA_FLOAT_AS_UINT, "__float_as_uint", 80},
    {IR_OP_CUDA_UINT_AS_FLOAT, "__uint_as_float", 80},
    {IR_OP_CUDA_FDIVIDEF, "__fdividef", 80},
    {IR_OP_CUDA_CLUSTER_SYNC, "tx_cluster_sync", 90},
    {IR_OP_CUDA_WARPGROUP_SYNC, "tx_warpgroup_sync", 80},
    {IR_OP_CUDA_THREAD_FENCE, "__threadfence", 80},
    {IR_OP_CUDA_THREAD_RANK, "tx_thread_rank", 80},
    {IR_OP_CUDA_NANO_SLEEP, "__nanosleep", 80},
    {IR_OP_CUDA_CLOCK64, "clock64", 80},
    {IR_OP_CUDA_FFS_U32, "__ffs", 80},
    {IR_OP_CUDA_REDUCE_ADD_SYNC_U32, "__reduce_add_sync", 80},
    {IR_OP_CUDA_REDUCE_MIN_SYNC_U32, "__reduce_min_sync", 80},
    {IR_OP_CUDA_SYNCTHREADS_AND, "__syncthreads_and", 80},
    {IR_OP_CUDA_SYNCTHREADS_OR, "__syncthreads_or", 80},
    {IR_OP_CUDA_MBARRIER_WAIT, "tx_mbarrier_wait", 80},
    {IR_OP_CUDA_MBARRIER_WAIT_ACQUIRE_CLUSTER, "tx_mbarrier_wait_acquire_cluster", 90},
    {IR_OP_CUDA_SMEM_ADDR_FROM_UINT64, "tx_smem_addr_from_uint64", 80},
    {IR_OP_CUDA_MAKE_FLOAT2, "tx_make_float2", 80},
    {IR_OP_CUDA_FLOAT2_X, "tx_float2_x", 80},
    {IR_OP_CUDA_FLOAT2_Y, "tx_float2_y", 80},
    {IR_OP_CUDA_FMUL2_RN, "tx_fmul2_rn", 80},
    {IR_OP_CUDA_FADD2_RN, "tx_fadd2_rn", 80},
    {IR_OP_CUDA_FLOAT22BFLOAT162_RN, "tx_float22bfloat162_rn", 80},
    {IR_OP_CUDA_FLOAT22BFLOAT162_RN_FROM_FLOAT2, "tx_float22bfloat162_rn_from_float2", 80},
    {IR_OP_CUDA_BFLOAT1622FLOAT2, "tx_bfloat1622float2", 80},
    {IR_OP_CUDA_HMIN2, "tx_hmin2", 80},
    {IR_OP_CUDA_HMAX2, "tx_hmax2", 80},
    {IR_OP_CUDA_FP8X4_E4M3_FROM_FLOAT4, "tx_fp8x4_e4m3_from_float4", 80},
    {IR_OP_CUDA_FLOAT22HALF2, "tx_float22half2", 80},
    {IR_OP_CUDA_HALF8TOFLOAT8, "tx_half8tofloat8", 80},
    {IR_OP_CUDA_FLOAT8TOHALF8, "tx_float8tohalf8", 80},
};

static const CudaFn *cuda_fn(IrOp op)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(cuda_fns); i++)
        if (cuda_fns[i].op == op)
            return &cuda_fns[i];
    return NULL;
}

/* Builtins tirx reads and prints but has no CUDA lowering for (LLVM, vector
 * and runtime builtins of other targets, the apache-style MMA helpers, the
 * profiler, IKET's official events). */
static const IrOp unlowered_ops[] = {
    IR_OP_CALL_LLVM_INTRIN, IR_OP_CALL_LLVM_PURE_INTRIN, IR_OP_VECTORLOW, IR_OP_VECTORHIGH,
    IR_OP_VECTORCOMBINE, IR_OP_DP4A, IR_OP_GET_ACTIVE_LANE_MASK, IR_OP_Q_MULTIPLY_SHIFT,
    IR_OP_Q_MULTIPLY_SHIFT_PER_AXIS, IR_OP_UNDEF, IR_OP_VSCALE, IR_OP_ANYLIST_GETITEM,
    IR_OP_ANYLIST_RESETITEM, IR_OP_ANYLIST_SETITEM_CALL_PACKED, IR_OP_ANYLIST_SETITEM_CALL_CPACKED,
    IR_OP_START_PROFILE_INTRINSIC, IR_OP_END_PROFILE_INTRINSIC, IR_OP_SELECTOR,
    IR_OP_CUDA_MMA_STORE,
    IR_OP_CUDA_MMA_FILL, IR_OP_CUDA_TIMER_INIT, IR_OP_CUDA_TIMER_START, IR_OP_CUDA_TIMER_END,
    IR_OP_CUDA_TIMER_FINALIZE, IR_OP_CUDA_IKET_OFFICIAL_EVENT,
};

static bool unlowered(IrOp op)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(unlowered_ops); i++)
        if (unlowered_ops[i] == op)
            return true;
    return false;
}

static int emit_unsupported(Cg *cg, const IrExpr *e, TxBuf *b)
{
    IrOp op = e->u.call.op;
    cg_error(cg, TX_E_CODEGEN, cg_span(cg, e),
             unlowered(op) ? "T.%s is not supported by the CUDA code generator"
                           : "T.%s cannot appear in a CUDA device function",
             op == IR_OP_PTX ? "ptx" : ir_ops[op].name);
    tx_buf_putc(b, '0');
    return CG_PREC_POSTFIX;
}

/* `a & b`, `a << b`, ...: an operand that is itself an operator is put in
 * parentheses, as a person would write it ((x % 8 * 8) ^ ((y & 7) << 3)). */
static int emit_bitwise_infix(Cg *cg, const IrExpr *e, const char *op, int prec, TxBuf *b)
{
    cg_expr(cg, e->u.call.args[0], b, CG_PREC_UNARY);
    tx_buf_printf(b, " %s ", op);
    cg_expr(cg, e->u.call.args[1], b, CG_PREC_UNARY);
    return prec;
}

static int emit_bitwise_op(Cg *cg, const IrExpr *e, TxBuf *b)
{
    switch (e->u.call.op) {
    case IR_OP_BITWISE_AND: return emit_bitwise_infix(cg, e, "&", CG_PREC_BITAND, b);
    case IR_OP_BITWISE_OR: return emit_bitwise_infix(cg, e, "|", CG_PREC_BITOR, b);
    case IR_OP_BITWISE_XOR: return emit_bitwise_infix(cg, e, "^", CG_PREC_BITXOR, b);
    case IR_OP_SHIFT_LEFT: return emit_bitwise_infix(cg, e, "<<", CG_PREC_SHIFT, b);
    case IR_OP_SHIFT_RIGHT: return emit_bitwise_infix(cg, e, ">>", CG_PREC_SHIFT, b);
    default:
        tx_buf_putc(b, '~');
        cg_expr(cg, e->u.call.args[0], b, CG_PREC_UNARY);
        return CG_PREC_UNARY;
    }
}

/* A left shift or complement of a narrow integer leaves its range in C++'s
 * int: cast back, as the IR wraps ((uint8_t)(~x) == 255 - x). */
static int emit_bitwise(Cg *cg, const IrExpr *e, TxBuf *b)
{
    size_t start = b->len;
    int prec = emit_bitwise_op(cg, e, b);
    IrOp op = e->u.call.op;
    bool leaves = op == IR_OP_SHIFT_LEFT || op == IR_OP_BITWISE_NOT;
    return leaves && cg_narrow_int(e->dtype) ? cg_narrow_back(cg, e->dtype, b, start) : prec;
}

/* T.cuda.mov_sreg(bits, "%reg"): a helper per register, emitted once. */
static int emit_mov_sreg(Cg *cg, const IrExpr *e, TxBuf *b)
{
    const IrCall *c = &e->u.call;
    int64_t bits = 0;
    const char *reg = str_arg(c->args[1]);
    bool ok = reg && reg[0] == '%' && reg[1] && cg_const_int(c->args[0], &bits) &&
              (bits == 32 || bits == 64);
    for (const char *p = reg ? reg + 1 : ""; ok && *p; p++)
        ok = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '.';
    if (!ok) {
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e),
                 "T.cuda.mov_sreg needs the width 32 or 64 and a special "
                                                   "register name such as \"%%smid\"");
        tx_buf_putc(b, '0');
        return CG_PREC_POSTFIX;
    }
    TxBuf name = {0};
    tx_buf_printf(&name, "tx_sreg%d_", (int)bits);
    for (const char *p = reg + 1; *p; p++)
        tx_buf_putc(&name, *p == '.' ? '_' : *p);
    if (cg_nameset_add(cg, &cg->helper_names, cg_strdup(cg, name.data)))
        tx_buf_printf(&cg->helpers,
                      "TX_DEVICE int%d_t %s()\n{\n  uint%d_t v;\n"
                      "  asm volatile(\"mov.u%d %%0, %%%s;\" : \"=%s\"(v));\n"
                      "  return (int%d_t)v;\n}\n\n",
                      (int)bits, name.data, (int)bits, (int)bits, reg, bits == 64 ? "l" : "r",
                      (int)bits);
    tx_buf_printf(b, "%s()", name.data);
    tx_buf_free(&name);
    return CG_PREC_POSTFIX;
}

static int emit_cuda(Cg *cg, const IrExpr *e, TxBuf *b)
{
    const IrCall *c = &e->u.call;
    const CudaFn *f = cuda_fn(c->op);
    if (f) {
        cg_require_sm(cg, cg_span(cg, e), f->sm, ir_ops[c->op].name);
        return emit_args_call(cg, f->name, e, 0, b);
    }
    switch (c->op) {
    case IR_OP_CUDA_ELECT_SYNC: return emit_masked(cg, e, "tx_elect_sync", b);
    case IR_OP_CUDA_WARP_SYNC: return emit_args_call(cg, "__syncwarp", e, 0, b);
    case IR_OP_CUDA_HALF2FLOAT:
    case IR_OP_CUDA_BFLOAT162FLOAT:
        tx_buf_puts(b, "(float)");
        cg_expr(cg, c->args[0], b, CG_PREC_UNARY);
        return CG_PREC_UNARY;
    case IR_OP_CUDA_LDG: return emit_ldg(cg, e, b);
    case IR_OP_CUDA_LDG_VEC: return emit_ldg_vec(cg, e, b);
    case IR_OP_CUDA_WARP_REDUCE: return emit_warp_reduce(cg, e, b);
    case IR_OP_CUDA_CTA_REDUCE: return emit_cta_reduce(cg, e, b);
    case IR_OP_CUDA_FUNC_CALL: return emit_func_call(cg, e, b);
    case IR_OP_CUDA_PRINTF: return emit_printf(cg, e, b);
    case IR_OP_CUDA_MOV_SREG: return emit_mov_sreg(cg, e, b);
    case IR_OP_CUDA_IKET_RANGE_START:
    case IR_OP_CUDA_IKET_SENTINEL_TOKEN: return cg_iket_expr(cg, e, b);
    default: return emit_unsupported(cg, e, b);
    }
}

int cg_call(Cg *cg, const IrExpr *e, TxBuf *b)
{
    const IrCall *c = &e->u.call;
    if (math_fn(c->op) || c->op == IR_OP_POPCOUNT || c->op == IR_OP_CLZ)
        return emit_math(cg, e, b);
    if (ir_nvshmem_op(c->op))
        return cg_nvshmem_call(cg, e, b);
    switch (c->op) {
    case IR_OP_BITWISE_AND:
    case IR_OP_BITWISE_OR:
    case IR_OP_BITWISE_XOR:
    case IR_OP_BITWISE_NOT:
    case IR_OP_SHIFT_LEFT:
    case IR_OP_SHIFT_RIGHT: return emit_bitwise(cg, e, b);
    case IR_OP_IF_THEN_ELSE:
        cg_expr(cg, c->args[0], b, CG_PREC_COND + 1);
        tx_buf_puts(b, " ? ");
        cg_expr(cg, c->args[1], b, CG_PREC_COND + 1);
        tx_buf_puts(b, " : ");
        cg_expr(cg, c->args[2], b, CG_PREC_COND);
        return CG_PREC_COND;
    case IR_OP_LIKELY: cg_expr(cg, c->args[0], b, CG_PREC_POSTFIX); return CG_PREC_POSTFIX;
    /* hints: the value itself (filter's predicate is evaluated at run time) */
    case IR_OP_IGNORE_LOOP_PARTITION: return cg_expr(cg, c->args[0], b, CG_PREC_NONE);
    case IR_OP_FILTER: return cg_expr(cg, c->args[1], b, CG_PREC_NONE);
    case IR_OP_ISNULLPTR:
        tx_buf_putc(b, '(');
        cg_expr(cg, c->args[0], b, CG_PREC_EQ);
        tx_buf_puts(b, " == nullptr)");
        return CG_PREC_POSTFIX;
    case IR_OP_REINTERPRET: return emit_reinterpret(cg, e, b);
    case IR_OP_CALL_EXTERN:
    case IR_OP_CALL_PURE_EXTERN: return emit_extern(cg, e, b);
    case IR_OP_ADDRESS_OF: return emit_address_of(cg, e, b);
    case IR_OP_PTR_BYTE_OFFSET: return emit_ptr_byte_offset(cg, e, b);
    case IR_OP_BUFFER_DATA: return emit_buffer_data(cg, e, b);
    case IR_OP_ACCESS_PTR: return emit_access_ptr(cg, e, b);
    case IR_OP_PTX_ADDR: return emit_ptx_addr(cg, e, b);
    case IR_OP_WARP_SHUFFLE: return emit_warp_shuffle(cg, e, "__shfl_sync", b);
    case IR_OP_WARP_SHUFFLE_UP: return emit_warp_shuffle(cg, e, "__shfl_up_sync", b);
    case IR_OP_WARP_SHUFFLE_DOWN: return emit_warp_shuffle(cg, e, "__shfl_down_sync", b);
    case IR_OP_WARP_SHUFFLE_XOR: return emit_warp_shuffle(cg, e, "__shfl_xor_sync", b);
    default: return emit_cuda(cg, e, b);
    }
}

/* ---------------------------------------------------------------- statements */

/* The lvalue a descriptor encoder writes through its pointer argument. */
static char *deref(Cg *cg, const IrExpr *ptr, const char *type)
{
    TxBuf b = {0};
    if (ptr->kind == IR_E_CALL && ptr->u.call.op == IR_OP_ADDRESS_OF &&
        ptr->u.call.args[0]->kind == IR_E_LOAD && ptr->u.call.args[0]->u.access.n == 1) {
        const IrExpr *x = ptr->u.call.args[0];
        cg_element(cg, x->u.access.buffer, x->u.access.indices[0], &b);
    } else {
        tx_buf_printf(&b, "*(%s*)%s", type, cg_expr_str(cg, ptr, CG_PREC_UNARY));
    }
    char *s = cg_strdup(cg, b.data);
    tx_buf_free(&b);
    return s;
}

/* T.cuda.{wgmma,tcgen05}.encode_matrix_descriptor(desc_ptr, addr, ldo, sdo, swizzle) */
static void smem_desc_stmt(Cg *cg, const IrExpr *e, const char *helper, int max_swizzle)
{
    const IrCall *c = &e->u.call;
    int64_t swz;
    if (c->nargs != 5) {
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e), "%s takes (desc, addr, ldo, sdo, swizzle)",
                 ir_ops[c->op].name);
        return;
    }
    if (cg_const_int(c->args[4], &swz) && (swz < 0 || swz > max_swizzle))
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e), "swizzle mode %lld is not one of 0..%d",
                 (long long)swz, max_swizzle);
    TxBuf v = {0};
    emit_args_call(cg, helper, e, 1, &v);
    cg_line(cg, "%s = %s;", deref(cg, c->args[0], "uint64_t"), v.data);
    tx_buf_free(&v);
}

/* T.cuda.tcgen05.encode_instr_descriptor(desc_ptr, d, a, b, M, N, K, trans_a,
 * trans_b[, n_cta_groups, neg_a, neg_b, sat_d, is_sparse]) and
 * encode_instr_descriptor_block_scaled(desc_ptr, d, a, b, sfa, sfb, sfa_tmem,
 * sfb_tmem, M, N, K, trans_a, trans_b[, n_cta_groups, neg_a, neg_b,
 * is_sparse]): folded here. The block-scaled one leaves the scale-factor ids
 * 0 (T.cuda.runtime_instr_desc sets them), as the reference's encoder does. */
static void instr_desc_stmt(Cg *cg, const IrExpr *e)
{
    const IrCall *c = &e->u.call;
    bool bs = c->op == IR_OP_CUDA_TCGEN05_INSTR_DESC_BLOCK_SCALED;
    IrInstrDesc d;
    const char *sfb;
    if (!ir_tcgen05_instr_desc_call(e, &d, &sfb)) {
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e), "T.%s needs constant dtypes, M, N, K and flags",
                 ir_ops[c->op].name);
        return;
    }
    if (bs && strcmp(d.sf_dtype, sfb)) {
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e), "T.%s: the descriptor has one scale-factor "
                 "format; sfa_dtype %s and sfb_dtype %s differ", ir_ops[c->op].name, d.sf_dtype,
                 sfb);
        return;
    }
    uint32_t value;
    char err[256];
    if (!ir_tcgen05_instr_desc(&d, &value, err, sizeof err)) {
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e), "%s", err);
        return;
    }
    cg_line(cg, "%s = 0x%08xu;", deref(cg, c->args[0], "uint32_t"), value);
}

/* T.cuda.runtime_instr_desc(desc_ptr, sf_id): a block-scaled instruction
 * descriptor's A and B scale-factor ids (bits 29-30, 4-5) set to sf_id. */
static void runtime_instr_desc_stmt(Cg *cg, const IrExpr *e)
{
    const IrCall *c = &e->u.call;
    const char *desc = deref(cg, c->args[0], "uint32_t");
    cg_line(cg, "{ const uint32_t tx_sf = %s; %s = (%s & ~0x60000030u) | tx_sf << 29 | tx_sf << 4; }",
            cg_expr_str(cg, c->args[1], CG_PREC_NONE), desc, desc);
}

/* T.cuda.wait_until(dst, ptr, cond, scope, space, ptx_type, backoff_ns): poll
 * with ld.relaxed until cond holds, then one ld.acquire for the edge. */
static void wait_until_stmt(Cg *cg, const IrExpr *e)
{
    const IrCall *c = &e->u.call;
    const char *scope = str_arg(c->args[3]), *space = str_arg(c->args[4]), *type = str_arg(c->args[5]);
    IrDType t = c->args[0]->dtype;
    int64_t backoff = 0;
    if (!scope || !space || !type || !cg_const_int(c->args[6], &backoff) || !ir_dtype_is_int(t) ||
        (t.bits != 32 && t.bits != 64)) {
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e),
                 "T.cuda.wait_until needs a 32- or 64-bit integer destination "
                                                   "and constant scope, space, type and backoff");
        return;
    }
    if (!*type)
        type = t.bits == 64 ? "b64" : "b32";
    char *dst = cg_expr_str(cg, c->args[0], CG_PREC_NONE);
    char *ptr = cg_expr_str(cg, c->args[1], CG_PREC_NONE);
    const char *reg = t.bits == 64 ? "l" : "r", *ctype = t.bits == 64 ? "uint64_t" : "uint32_t";
    cg_raw_line(cg, "#pragma unroll 1");
    cg_line(cg, "for (bool tx_first = true;; tx_first = false) {");
    cg->indent++;
    if (backoff)
        cg_line(cg, "if (!tx_first) __nanosleep(%lld);", (long long)backoff);
    cg_line(cg, "asm volatile(\"ld.relaxed.%s.%s.%s %%0, [%%1];\" : \"=%s\"(%s) : \"l\"(%s) : \"memory\");",
            scope, space, type, reg, dst, ptr);
    cg_line(cg, "if (%s) break;", cg_expr_str(cg, c->args[2], CG_PREC_NONE));
    cg->indent--;
    cg_line(cg, "}");
    cg_line(cg, "{ %s tx_edge; asm volatile(\"ld.acquire.%s.%s.%s %%0, [%%1];\" : \"=%s\"(tx_edge) : "
                "\"l\"(%s) : \"memory\"); }",
            ctype, scope, space, type, reg, ptr);
}

/* T.cuda.wgmma.noop_barrier(reg): an empty asm that pins the register. It
 * orders the register alone (the wgmma asm around it orders memory): a
 * "memory" clobber on each of a decode's thousands of pins costs NVVM a
 * fifth of its time and changes no instruction. */
static void noop_barrier_stmt(Cg *cg, const IrExpr *e)
{
    const IrExpr *reg = e->u.call.args[0];
    IrDType t = reg->dtype;
    const char *cons = t.code == IR_DT_FLOAT && t.bits == 32 ? "f" : t.bits == 64 ? "l" : "r";
    cg_line(cg, "asm volatile(\"\" : \"+%s\"(%s));", cons, cg_expr_str(cg, reg, CG_PREC_NONE));
}

bool cg_call_stmt(Cg *cg, const IrExpr *e)
{
    const IrCall *c = &e->u.call;
    if (cg_iket_stmt(cg, e))
        return true;
    switch (c->op) {
    case IR_OP_PTX: cg_ptx(cg, e); return true;
    case IR_OP_CUDA_WGMMA_SMEM_DESC: smem_desc_stmt(cg, e, "tx_wgmma_smem_desc", 3); return true;
    case IR_OP_CUDA_TCGEN05_SMEM_DESC: smem_desc_stmt(cg, e, "tx_tcgen05_smem_desc", 4); return true;
    case IR_OP_CUDA_TCGEN05_INSTR_DESC:
    case IR_OP_CUDA_TCGEN05_INSTR_DESC_BLOCK_SCALED: instr_desc_stmt(cg, e); return true;
    case IR_OP_CUDA_RUNTIME_INSTR_DESC: runtime_instr_desc_stmt(cg, e); return true;
    case IR_OP_CUDA_WAIT_UNTIL: wait_until_stmt(cg, e); return true;
    case IR_OP_CUDA_WGMMA_NOOP_BARRIER: noop_barrier_stmt(cg, e); return true;
    case IR_OP_CUDA_TRAP_WHEN_ASSERT_FAILED:
        cg_line(cg, "if (!(%s)) __trap();", cg_expr_str(cg, c->args[0], CG_PREC_NONE));
        return true;
    case IR_OP_BREAK_LOOP: cg_line(cg, "break;"); return true;
    case IR_OP_CONTINUE_LOOP: cg_line(cg, "continue;"); return true;
    case IR_OP_THREAD_RETURN: cg_line(cg, "return;"); return true;
    case IR_OP_ASSUME: return true;
    case IR_OP_CUDA_GRID_SYNC:
        cg_error(cg, TX_E_CODEGEN, cg_span(cg, e),
                 "T.cuda.grid_sync needs a cooperative launch, which tirx does not support");
        return true;
    default: return false;
    }
}
