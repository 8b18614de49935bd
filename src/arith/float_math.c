/* Float math functions of constant arguments (T.exp ... T.atan2, T.fma):
 * one implementation for every evaluator that computes them off the GPU (the
 * simulator, the host evaluator). Computed in double and rounded to the
 * call's dtype, which is within the device functions' error bounds; fma and
 * nextafter of float32 are computed in float32, where double would round
 * twice or step by a double's ulp. */
#include <math.h>

#include "../ir/float_bits.h"
#include "arith.h"

bool ar_is_float_math(IrOp op)
{
    return (op >= IR_OP_EXP && op <= IR_OP_NEARBYINT) || (op >= IR_OP_POW && op <= IR_OP_FMA);
}

/* ldexp's exponent: clamped (any exponent past +-2100 already saturates a double). */
static int exponent_of(double b)
{
    return isnan(b) ? 0 : b > 2100 ? 2100 : b < -2100 ? -2100 : (int)b;
}

static double unary(IrOp op, double x)
{
    switch (op) {
    case IR_OP_EXP: return exp(x);
    case IR_OP_EXP2: return exp2(x);
    case IR_OP_EXP10: return pow(10, x);
    case IR_OP_LOG: return log(x);
    case IR_OP_LOG2: return log2(x);
    case IR_OP_LOG10: return log10(x);
    case IR_OP_LOG1P: return log1p(x);
    case IR_OP_SQRT: return sqrt(x);
    case IR_OP_RSQRT: return 1 / sqrt(x);
    case IR_OP_SIN: return sin(x);
    case IR_OP_COS: return cos(x);
    case IR_OP_TAN: return tan(x);
    case IR_OP_SINH: return sinh(x);
    case IR_OP_COSH: return cosh(x);
    case IR_OP_TANH: return tanh(x);
    case IR_OP_ASIN: return asin(x);
    case IR_OP_ACOS: return acos(x);
    case IR_OP_ATAN: return atan(x);
    case IR_OP_ASINH: return asinh(x);
    case IR_OP_ACOSH: return acosh(x);
    case IR_OP_ATANH: return atanh(x);
    case IR_OP_ERF: return erf(x);
    case IR_OP_SIGMOID: return 1 / (1 + exp(-x));
    case IR_OP_FABS: return fabs(x);
    case IR_OP_FLOOR: return floor(x);
    case IR_OP_CEIL: return ceil(x);
    case IR_OP_ROUND: return round(x);
    case IR_OP_TRUNC: return trunc(x);
    default: return nearbyint(x);
    }
}

double ar_float_math(IrOp op, IrDType t, const double *args)
{
    double a = args[0], b = op >= IR_OP_POW ? args[1] : 0, r;
    bool f32 = t.bits == 32;
    switch (op) {
    case IR_OP_POW: r = pow(a, b); break;
    case IR_OP_FMOD: r = fmod(a, b); break;
    case IR_OP_HYPOT: r = hypot(a, b); break;
    case IR_OP_COPYSIGN: r = copysign(a, b); break;
    case IR_OP_LDEXP: r = ldexp(a, exponent_of(b)); break;
    case IR_OP_NEXTAFTER: r = f32 ? (double)nextafterf((float)a, (float)b) : nextafter(a, b); break;
    case IR_OP_ATAN2: r = atan2(a, b); break;
    case IR_OP_FMA: r = f32 ? (double)fmaf((float)a, (float)b, (float)args[2]) : fma(a, b, args[2]);
        break;
    default: r = unary(op, a); break;
    }
    return ir_float_round(t, r);
}
