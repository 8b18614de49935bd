/* The host-function evaluator (see host_eval.h): a small interpreter over
 * the statements and expressions MakePackedAPI and SplitHostDevice produce,
 * with DLTensor fields read through T.tvm_struct_get(A.data, i, FIELD) and
 * two packed functions: a kernel launch by name and
 * runtime.cuTensorMapEncodeTiled. */
#include "host_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arith/arith.h"
#include "../ir/float_bits.h"
#include "../ir/visit.h"

bool rt_he_failed(const Eval *ev) { return ev->status != RT_OK; }

void rt_he_fail(Eval *ev, const char *fmt, ...)
{
    if (rt_he_failed(ev))
        return;
    ev->status = RT_ERR_USAGE;
    if (ev->err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ev->err->message, sizeof ev->err->message, fmt, ap);
        va_end(ap);
        ev->err->status = RT_ERR_USAGE;
    }
}

const char *rt_he_name(const IrExpr *var)
{
    return var->u.var.name && var->u.var.name[0] ? var->u.var.name : "v";
}

static Val ival(int64_t i) { return (Val){.kind = V_INT, .i = i}; }
static Val fval(double f) { return (Val){.kind = V_FLOAT, .f = f}; }
static double as_f(Val v) { return v.kind == V_FLOAT ? v.f : (double)v.i; }
/* A float value of dtype t holds what t can: float32 host code computes in
 * float32, as the device and the simulator do, not in double. */
static Val in_dtype(IrDType t, Val v)
{
    return v.kind == V_FLOAT && ir_dtype_is_float(t) ? fval(ir_float_round(t, v.f)) : v;
}

static void set_var(Eval *ev, const IrExpr *var, Val v)
{
    tx_vec_push(&ev->vals, v);
    ir_ptrmap_put(&ev->slot, var, (uintptr_t)ev->vals.len);
}

/* An integer of dtype t: wrapped to its width, sign-extended when signed. */
static int64_t wrap(IrDType t, int64_t v)
{
    if (t.code == IR_DT_BOOL)
        return v != 0;
    if (t.bits >= 64 || t.bits == 0)
        return v;
    uint64_t mask = ((uint64_t)1 << t.bits) - 1, u = (uint64_t)v & mask;
    if (t.code == IR_DT_INT && (u >> (t.bits - 1)) & 1)
        u |= ~mask;
    return (int64_t)u;
}

/* ---------------------------------------------------------------- DLTensor fields */

static const DLTensor *tensor_of(Eval *ev, const IrExpr *handle)
{
    const IrExpr *b = NULL;
    if (handle->kind == IR_E_CALL && handle->u.call.op == IR_OP_BUFFER_DATA)
        b = handle->u.call.args[0];
    uintptr_t t;
    if (b && ir_ptrmap_get(&ev->tensor, b, &t))
        return (const DLTensor *)t;
    rt_he_fail(ev, "%s: T.tvm_struct_get reads the DLTensor of a buffer param (A.data)", ev->f->name);
    return NULL;
}

static int64_t compact_stride(const DLTensor *t, int dim)
{
    int64_t s = 1;
    for (int i = dim + 1; i < t->ndim; i++)
        s *= t->shape[i];
    return s;
}

static int64_t tensor_data(const DLTensor *t)
{
    return (int64_t)((uintptr_t)t->data + t->byte_offset);
}

/* Field codes of docs/pipeline.md (TVM's, and 11: the packed dtype). */
static Val tensor_field(Eval *ev, const DLTensor *t, const char *arg, int64_t i, int64_t code)
{
    bool dim = code == 2 || code == 3;
    if (dim && (i < 0 || i >= t->ndim)) {
        rt_he_fail(ev, "%s: argument %s has %d dimensions, no dimension %" PRId64, ev->f->name, arg,
             t->ndim, i);
        return ival(0);
    }
    switch (code) {
    case 1: return ival(tensor_data(t));
    case 2: return ival(t->shape[i]);
    case 3: return ival(t->strides ? t->strides[i] : compact_stride(t, (int)i));
    case 4: return ival(t->ndim);
    case 5: return ival(t->dtype.code);
    case 6: return ival(t->dtype.bits);
    case 7: return ival(t->dtype.lanes);
    case 8: return ival((int64_t)t->byte_offset);
    case 9: return ival(t->device.device_id);
    case 10: return ival(ev->env->any_device ? kDLCUDA : t->device.device_type);
    case 11: return ival(t->dtype.code | t->dtype.bits << 8 | (int64_t)t->dtype.lanes << 16);
    default:
        rt_he_fail(ev, "%s: T.tvm_struct_get field %" PRId64 " is not a DLTensor field", ev->f->name,
             code);
        return ival(0);
    }
}

/* ---------------------------------------------------------------- expressions */


static Val int_binary(Eval *ev, IrExprKind k, int64_t a, int64_t b)
{
    bool div = k == IR_E_DIV || k == IR_E_MOD || k == IR_E_FLOORDIV || k == IR_E_FLOORMOD;
    if (div && b == 0) {
        rt_he_fail(ev, "%s: division by zero in the host function", ev->f->name);
        return ival(0);
    }
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (k) {
    case IR_E_ADD: return ival((int64_t)(ua + ub));
    case IR_E_SUB: return ival((int64_t)(ua - ub));
    case IR_E_MUL: return ival((int64_t)(ua * ub));
    case IR_E_DIV: return ival(a == INT64_MIN && b == -1 ? a : a / b);
    case IR_E_MOD: return ival(a == INT64_MIN && b == -1 ? 0 : a % b);
    case IR_E_FLOORDIV: {
        int64_t q = a / b;
        return ival((a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q);
    }
    case IR_E_FLOORMOD: {
        int64_t r = a % b;
        return ival((r != 0 && ((r < 0) != (b < 0))) ? r + b : r);
    }
    case IR_E_MIN: return ival(a < b ? a : b);
    case IR_E_MAX: return ival(a > b ? a : b);
    case IR_E_EQ: return ival(a == b);
    case IR_E_NE: return ival(a != b);
    case IR_E_LT: return ival(a < b);
    case IR_E_LE: return ival(a <= b);
    case IR_E_GT: return ival(a > b);
    case IR_E_GE: return ival(a >= b);
    case IR_E_AND: return ival(a && b);
    case IR_E_OR: return ival(a || b);
    default: return ival(0);
    }
}

static Val float_binary(IrExprKind k, double a, double b)
{
    switch (k) {
    case IR_E_ADD: return fval(a + b);
    case IR_E_SUB: return fval(a - b);
    case IR_E_MUL: return fval(a * b);
    case IR_E_DIV: return fval(a / b);
    case IR_E_FLOORDIV: return fval(floor(a / b));
    case IR_E_MOD: return fval(fmod(a, b));
    case IR_E_FLOORMOD: return fval(a - floor(a / b) * b);
    case IR_E_MIN: return fval(fmin(a, b)); /* a NaN loses, as with CUDA's fminf */
    case IR_E_MAX: return fval(fmax(a, b));
    case IR_E_EQ: return ival(a == b);
    case IR_E_NE: return ival(a != b);
    case IR_E_LT: return ival(a < b);
    case IR_E_LE: return ival(a <= b);
    case IR_E_GT: return ival(a > b);
    case IR_E_GE: return ival(a >= b);
    case IR_E_AND: return ival(a != 0 && b != 0);
    case IR_E_OR: return ival(a != 0 || b != 0);
    default: return fval(0);
    }
}

static Val binary(Eval *ev, const IrExpr *e)
{
    IrExprKind k = e->kind;
    Val a = rt_he_eval(ev, e->u.op.a);
    if (k == IR_E_AND && a.kind == V_INT && !a.i)
        return ival(0);
    if (k == IR_E_OR && a.kind == V_INT && a.i)
        return ival(1);
    Val b = rt_he_eval(ev, e->u.op.b);
    if (a.kind == V_FLOAT || b.kind == V_FLOAT)
        return in_dtype(e->dtype, float_binary(k, as_f(a), as_f(b)));
    Val r = int_binary(ev, k, a.i, b.i);
    return ir_dtype_is_int(e->dtype) ? ival(wrap(e->dtype, r.i)) : r;
}

static Val cast(const IrExpr *e, Val v)
{
    if (ir_dtype_is_float(e->dtype))
        return in_dtype(e->dtype, fval(as_f(v)));
    if (v.kind == V_FLOAT) /* saturated, NaN -> 0, as on the device: never C's undefined cast */
        return ival(ir_float_to_int(e->dtype, v.f));
    return ival(wrap(e->dtype, v.i));
}

static Val var_value(Eval *ev, const IrExpr *e)
{
    uintptr_t s;
    if (ir_ptrmap_get(&ev->slot, e, &s))
        return ev->vals.items[s - 1];
    rt_he_fail(ev, "%s: the host function uses '%s', which has no value", ev->f->name, rt_he_name(e));
    return ival(0);
}

static Val buffer_data(Eval *ev, const IrExpr *b)
{
    uintptr_t t;
    if (ir_ptrmap_get(&ev->tensor, b, &t))
        return ival(tensor_data((const DLTensor *)t));
    return var_value(ev, b);
}

static Val stack_alloca(Eval *ev, const IrCall *c)
{
    if (c->nargs < 1 || c->args[0]->kind != IR_E_STR || strcmp(c->args[0]->u.str, "tensormap")) {
        rt_he_fail(ev, "%s: the host can only allocate tensor maps on its stack", ev->f->name);
        return ival(0);
    }
    if (ev->nmaps == MAX_MAPS) {
        rt_he_fail(ev, "%s: more than %d tensor maps", ev->f->name, MAX_MAPS);
        return ival(0);
    }
    memset(&ev->maps[ev->nmaps], 0, sizeof ev->maps[0]);
    return (Val){.kind = V_MAP, .map = ev->nmaps++};
}

/* T.bitwise_* and T.shift_* of integers in e's dtype (ar_int_bitop); a shift
 * count C leaves undefined is an error. */
static Val bit_op(Eval *ev, const IrExpr *e)
{
    const IrCall *c = &e->u.call;
    IrDType t = e->dtype;
    Val a = rt_he_eval(ev, c->args[0]), b = c->nargs > 1 ? rt_he_eval(ev, c->args[1]) : ival(0);
    if (rt_he_failed(ev))
        return ival(0);
    if (a.kind != V_INT || b.kind != V_INT || !ir_dtype_is_int(t)) {
        rt_he_fail(ev, "%s: T.%s of a non-integer in the host function", ev->f->name,
                   ir_ops[c->op].name);
        return ival(0);
    }
    int64_t r;
    if (!ar_int_bitop(t, c->op, a.i, b.i, &r)) {
        rt_he_fail(ev, "%s: T.%s by %" PRId64 " of a %d-bit value in the host function",
                   ev->f->name, ir_ops[c->op].name, b.i, t.bits < 32 ? 32 : t.bits);
        return ival(0);
    }
    return ival(r);
}

static Val call(Eval *ev, const IrExpr *e)
{
    const IrCall *c = &e->u.call;
    if (ar_is_float_math(c->op) && ir_dtype_is_float(e->dtype)) {
        double args[3] = {0};
        for (int i = 0; i < c->nargs && i < 3; i++)
            args[i] = as_f(rt_he_eval(ev, c->args[i]));
        return fval(ar_float_math(c->op, e->dtype, args));
    }
    switch (c->op) {
    case IR_OP_STRUCT_GET: {
        const DLTensor *t = tensor_of(ev, c->args[0]);
        Val i = rt_he_eval(ev, c->args[1]), code = rt_he_eval(ev, c->args[2]);
        if (!t || rt_he_failed(ev))
            return ival(0);
        return tensor_field(ev, t, rt_he_name(c->args[0]->u.call.args[0]), i.i, code.i);
    }
    case IR_OP_BUFFER_DATA: return buffer_data(ev, c->args[0]);
    case IR_OP_HANDLE_ADD_BYTE_OFFSET:
        return ival((int64_t)((uint64_t)rt_he_eval(ev, c->args[0]).i +
                              (uint64_t)rt_he_eval(ev, c->args[1]).i));
    case IR_OP_ADDRESS_OF:
        return c->args[0]->kind == IR_E_VAR ? var_value(ev, c->args[0]) : rt_he_eval(ev, c->args[0]);
    case IR_OP_STACK_ALLOCA: return stack_alloca(ev, c);
    case IR_OP_LIKELY: return rt_he_eval(ev, c->args[0]);
    case IR_OP_BITWISE_AND: case IR_OP_BITWISE_OR: case IR_OP_BITWISE_XOR:
    case IR_OP_BITWISE_NOT: case IR_OP_SHIFT_LEFT: case IR_OP_SHIFT_RIGHT:
        return bit_op(ev, e);
    case IR_OP_IF_THEN_ELSE:
        return rt_he_eval(ev, c->args[0]).i ? rt_he_eval(ev, c->args[1]) : rt_he_eval(ev, c->args[2]);
    default:
        rt_he_fail(ev, "%s: the host function cannot evaluate T.%s", ev->f->name, ir_ops[c->op].name);
        return ival(0);
    }
}

Val rt_he_eval(Eval *ev, const IrExpr *e)
{
    if (rt_he_failed(ev))
        return ival(0);
    if (IR_E_IS_BINARY(e->kind))
        return binary(ev, e);
    switch (e->kind) {
    case IR_E_INT: case IR_E_PYINT: case IR_E_PYBOOL: return ival(e->u.int_val);
    case IR_E_FLOAT: case IR_E_PYFLOAT: return in_dtype(e->dtype, fval(e->u.float_val));
    case IR_E_VAR: return var_value(ev, e);
    case IR_E_NOT: return ival(!rt_he_eval(ev, e->u.op.a).i);
    case IR_E_CAST: return cast(e, rt_he_eval(ev, e->u.op.a));
    case IR_E_SELECT:
        return rt_he_eval(ev, e->u.op.cond).i ? rt_he_eval(ev, e->u.op.a) : rt_he_eval(ev, e->u.op.b);
    case IR_E_LET:
        set_var(ev, e->u.op.var, rt_he_eval(ev, e->u.op.a));
        return rt_he_eval(ev, e->u.op.b);
    case IR_E_CALL: return call(ev, e);
    default:
        rt_he_fail(ev, "%s: the host function cannot evaluate a %s expression", ev->f->name,
             e->kind == IR_E_LOAD ? "buffer load" : "non-scalar");
        return ival(0);
    }
}

/* ---------------------------------------------------------------- assert messages */

static const char *device_type_name(int64_t t)
{
    switch (t) {
    case kDLCPU: return "CPU";
    case kDLCUDA: return "CUDA";
    case kDLCUDAHost: return "CUDA host (pinned)";
    case kDLCUDAManaged: return "CUDA managed";
    case kDLROCM: return "ROCm";
    default: return "another device";
    }
}

static bool is_field(const IrExpr *e, int64_t code)
{
    return e->kind == IR_E_CALL && e->u.call.op == IR_OP_STRUCT_GET && e->u.call.nargs == 3 &&
           e->u.call.args[2]->kind == IR_E_INT && e->u.call.args[2]->u.int_val == code;
}

static void dtype_text(int64_t packed, char *buf, size_t n)
{
    static const char *const codes[] = {"int", "uint", "float", "handle", "bfloat", "complex",
                                        "bool"};
    int64_t code = packed & 0xff, bits = packed >> 8 & 0xff, lanes = packed >> 16;
    const char *name = code < 7 ? codes[code] : "float8/6/4 kind ";
    int len = snprintf(buf, n, "%s%" PRId64, name, bits);
    if (lanes != 1 && len > 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, "x%" PRId64, lanes);
}

/* What the failing check saw: ", got ..." for `x == y` or `x >= y` (the left
 * side of an `or`). */
static void describe_failure(Eval *ev, const IrExpr *cond, char *buf, size_t n)
{
    buf[0] = 0;
    if (cond->kind == IR_E_OR)
        cond = cond->u.op.a;
    if (cond->kind != IR_E_EQ && cond->kind != IR_E_GE)
        return;
    const IrExpr *lhs = cond->u.op.a;
    Val got = rt_he_eval(ev, lhs);
    if (rt_he_failed(ev))
        return;
    if (is_field(lhs, 11)) {
        char t[48];
        dtype_text(got.i, t, sizeof t);
        snprintf(buf, n, ", got %s", t);
    } else if (is_field(lhs, 10)) {
        snprintf(buf, n, ", got device type %" PRId64 " (%s)", got.i, device_type_name(got.i));
    } else if (lhs->kind == IR_E_FLOORMOD && is_field(lhs->u.op.a, 1)) {
        snprintf(buf, n, ", got address 0x%" PRIx64, (uint64_t)rt_he_eval(ev, lhs->u.op.a).i);
    } else if (cond->u.op.b->kind != IR_E_INT && got.kind == V_INT) {
        Val want = rt_he_eval(ev, cond->u.op.b);
        snprintf(buf, n, ", got %" PRId64 " instead of %" PRId64, got.i, want.i);
    } else if (got.kind == V_FLOAT) {
        snprintf(buf, n, ", got %g", got.f);
    } else {
        snprintf(buf, n, ", got %" PRId64, got.i);
    }
}

static void run_assert(Eval *ev, const IrStmt *s)
{
    Val ok = rt_he_eval(ev, s->u.assert_.cond);
    if (rt_he_failed(ev) || ok.i)
        return;
    char got[96];
    describe_failure(ev, s->u.assert_.cond, got, sizeof got);
    const char *msg = s->u.assert_.nparts ? s->u.assert_.parts[0] : "assertion failed";
    rt_he_fail(ev, "%s%s", msg, got);
}

/* ---------------------------------------------------------------- packed calls */

static void run_packed(Eval *ev, const IrCall *c)
{
    if (c->nargs < 1 || c->args[0]->kind != IR_E_STR) {
        rt_he_fail(ev, "%s: T.call_packed needs a function name", ev->f->name);
        return;
    }
    const char *name = c->args[0]->u.str;
    if (!strcmp(name, "runtime.cuTensorMapEncodeTiled")) {
        rt_he_encode_tma(ev, c);
        return;
    }
    const IrModule *m = ev->env->module;
    for (int i = 0; m && i < m->nfuncs; i++)
        if (!strcmp(m->funcs[i]->name, name)) {
            rt_he_launch(ev, m->funcs[i], c);
            return;
        }
    rt_he_fail(ev, "%s: T.call_packed(\"%s\"): no such kernel or runtime function", ev->f->name, name);
}

/* ---------------------------------------------------------------- statements */

static void run(Eval *ev, const IrStmt *s)
{
    if (!s || rt_he_failed(ev))
        return;
    switch (s->kind) {
    case IR_S_SEQ:
        for (int i = 0; i < s->u.seq.n && !rt_he_failed(ev); i++)
            run(ev, s->u.seq.stmts[i]);
        return;
    case IR_S_BIND: set_var(ev, s->u.bind.var, rt_he_eval(ev, s->u.bind.value)); return;
    case IR_S_DECL: set_var(ev, s->u.decl.buffer, rt_he_eval(ev, s->u.decl.data)); return;
    case IR_S_ASSERT: run_assert(ev, s); return;
    case IR_S_ATTR: run(ev, s->u.attr.body); return;
    case IR_S_IF:
        if (rt_he_eval(ev, s->u.ifs.cond).i)
            run(ev, s->u.ifs.then_s);
        else
            run(ev, s->u.ifs.else_s);
        return;
    case IR_S_EVAL:
        if (s->u.eval->kind == IR_E_CALL && s->u.eval->u.call.op == IR_OP_CALL_PACKED)
            run_packed(ev, &s->u.eval->u.call);
        else
            rt_he_eval(ev, s->u.eval);
        return;
    case IR_S_FOR: {
        int64_t lo = rt_he_eval(ev, s->u.loop.min).i, n = rt_he_eval(ev, s->u.loop.extent).i;
        for (int64_t i = 0; i < n && !rt_he_failed(ev); i++) {
            set_var(ev, s->u.loop.var, ival(lo + i));
            run(ev, s->u.loop.body);
        }
        return;
    }
    default:
        rt_he_fail(ev, "%s: the host function cannot run a %s statement", ev->f->name,
             s->kind == IR_S_ALLOC ? "buffer allocation" : "device");
        return;
    }
}

/* ---------------------------------------------------------------- arguments */

static const char *kind_name(RtArgKind k)
{
    switch (k) {
    case RT_ARG_TENSOR: return "a tensor";
    case RT_ARG_INT: return "an integer";
    case RT_ARG_FLOAT: return "a float";
    case RT_ARG_TENSORMAP: return "a tensor map";
    case RT_ARG_UNKNOWN: break;
    }
    return "an argument of unknown kind";
}

static void bind_tensor(Eval *ev, const IrExpr *p, const RtArg *a)
{
    if (a->kind != RT_ARG_TENSOR || !a->u.tensor) {
        rt_he_fail(ev, "%s: argument %s: expected a tensor (DLTensor *), got %s", ev->f->name,
             rt_he_name(p), a->kind == RT_ARG_TENSOR ? "NULL" : kind_name(a->kind));
        return;
    }
    const DLTensor *t = a->u.tensor;
    if (!t->data || (t->ndim > 0 && !t->shape)) {
        rt_he_fail(ev, "%s: argument %s: the tensor has no %s", ev->f->name, rt_he_name(p),
             t->data ? "shape" : "data");
        return;
    }
    if (ev->env->device_id >= 0 && t->device.device_type == kDLCUDA &&
        t->device.device_id != ev->env->device_id) {
        rt_he_fail(ev, "%s: argument %s: expected a tensor on cuda:%d, got cuda:%d", ev->f->name,
             rt_he_name(p), ev->env->device_id, t->device.device_id);
        return;
    }
    ir_ptrmap_put(&ev->tensor, p, (uintptr_t)t);
}

static void bind_scalar(Eval *ev, const IrExpr *p, const RtArg *a)
{
    const IrType *t = p->u.var.type;
    if (t->kind == IR_TY_TENSORMAP) {
        if (a->kind != RT_ARG_TENSORMAP || !a->u.map) {
            rt_he_fail(ev, "%s: argument %s: expected a tensor map, got %s", ev->f->name, rt_he_name(p),
                 a->kind == RT_ARG_TENSORMAP ? "NULL" : kind_name(a->kind));
            return;
        }
        if (ev->nmaps == MAX_MAPS) {
            rt_he_fail(ev, "%s: more than %d tensor maps", ev->f->name, MAX_MAPS);
            return;
        }
        /* the caller's map need not have RtTensorMap's alignment */
        memcpy(&ev->maps[ev->nmaps], a->u.map, sizeof ev->maps[0]);
        set_var(ev, p, (Val){.kind = V_MAP, .map = ev->nmaps++});
        return;
    }
    bool want_float = t->kind == IR_TY_PRIM && ir_dtype_is_float(t->dtype);
    bool want_int = ir_dtype_is_int(t->dtype) || t->dtype.code == IR_DT_BOOL; /* bool: 0 or 1 */
    if (a->kind == RT_ARG_INT && t->kind == IR_TY_PRIM && want_int &&
        wrap(t->dtype, a->u.i) != a->u.i) {
        char dt[IR_DTYPE_STR_MAX];
        rt_he_fail(ev, "%s: argument %s: %lld does not fit %s", ev->f->name, rt_he_name(p),
                   (long long)a->u.i, ir_dtype_str(t->dtype, dt));
    } else if (a->kind == RT_ARG_INT)
        set_var(ev, p, want_float ? in_dtype(t->dtype, fval((double)a->u.i))
                                  : ival(wrap(t->dtype, a->u.i)));
    else if (a->kind == RT_ARG_FLOAT && want_float)
        set_var(ev, p, in_dtype(t->dtype, fval(a->u.f)));
    else
        rt_he_fail(ev, "%s: argument %s: expected %s, got %s", ev->f->name, rt_he_name(p),
             want_float ? "a number" : "an integer", kind_name(a->kind));
}

static void bind_args(Eval *ev, const RtArg *args, int nargs)
{
    const IrFunc *f = ev->f;
    if (nargs != f->nparams) {
        rt_he_fail(ev, "%s: expected %d argument%s, got %d", f->name, f->nparams,
             f->nparams == 1 ? "" : "s", nargs);
        return;
    }
    for (int i = 0; i < nargs && !rt_he_failed(ev); i++) {
        if (ir_is_buffer(f->params[i]))
            bind_tensor(ev, f->params[i], &args[i]);
        else
            bind_scalar(ev, f->params[i], &args[i]);
    }
}

RtStatus rt_host_eval(const IrFunc *host, const RtArg *args, int nargs, const RtHostEnv *env,
                      RtError *err)
{
    Eval ev = {.f = host, .env = env, .err = err, .status = RT_OK};
    if (!args && nargs)
        rt_he_fail(&ev, "%s: %d arguments but no argument array", host->name, nargs);
    else
        bind_args(&ev, args, nargs);
    run(&ev, host->body);
    ir_ptrmap_free(&ev.slot);
    ir_ptrmap_free(&ev.tensor);
    tx_vec_free(&ev.vals);
    return ev.status;
}
