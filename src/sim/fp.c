/* Values of the dtypes (dtype.def) in the simulator: integers wrapped to
 * their width, floats rounded to their format with round-to-nearest-even
 * (the PTX ISA's .rn), the narrow formats encoded and decoded bit for bit.
 * float16 and bfloat16 overflow to infinity as cvt.rn does; the fp8 and
 * smaller formats saturate to their largest finite value as cvt.rn.satfinite
 * does (the only fp8 conversion PTX has), NaN staying NaN. A NaN keeps its
 * sign and payload bits through a decode and an encode of the same format
 * (the double carries them at the top of its mantissa), so a copy through
 * the simulator's values is bit-exact for every pattern, as ld/st are. The codec
 * is the IR's (ir/float_bits.c). */
#include <math.h>
#include <string.h>

#include "../arith/arith.h"
#include "../ir/float_bits.h"
#include "internal.h"

bool sim_is_float(IrDType t) { return ir_dtype_is_float(t); }

bool sim_packed(IrDType t) { return ir_dtype_subbyte(t) != 0; }

int64_t sim_wrap(IrDType t, int64_t v) { return ar_wrap_int(t, v); }

double sim_round(IrDType t, double x) { return ir_float_round(t, x); }

uint64_t sim_to_bits(IrDType t, SimVal v)
{
    if (!sim_is_float(t))
        return (uint64_t)v.i & (t.bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << t.bits) - 1);
    return ir_float_to_bits(t, v.f);
}

SimVal sim_from_bits(IrDType t, uint64_t bits)
{
    SimVal v = {0};
    if (!sim_is_float(t))
        v.i = sim_wrap(t, (int64_t)bits);
    else
        v.f = ir_float_from_bits(t, bits);
    return v;
}

/* Integer v as a double, rounded to odd past 53 bits (a dropped bit leaves a
 * sticky 1): rounding that once more to a format of at most 51 bits gives the
 * integer correctly rounded, as cvt.rn does; a plain (double) would round twice. */
static double int_to_double_odd(IrDType from, int64_t v)
{
    bool neg = from.code != IR_DT_UINT && v < 0;
    uint64_t m = neg ? 0 - (uint64_t)v : (uint64_t)v;
    int len = m ? 64 - __builtin_clzll(m) : 0, drop = len > 53 ? len - 53 : 0;
    uint64_t kept = m >> drop, sticky = (m & (((uint64_t)1 << drop) - 1)) != 0;
    double d = ldexp((double)(kept | sticky), drop);
    return neg ? -d : d;
}

SimVal sim_convert(IrDType from, IrDType to, SimVal v)
{
    SimVal r;
    bool ff = sim_is_float(from), tf = sim_is_float(to);
    bool u64 = from.code == IR_DT_UINT && from.bits == 64;
    if (ff && tf)
        r.f = sim_round(to, v.f);
    else if (tf && to.bits == 64)
        r.f = u64 ? (double)(uint64_t)v.i : (double)v.i;
    else if (tf)
        r.f = sim_round(to, int_to_double_odd(from, v.i));
    else if (ff)
        r.i = ir_float_to_int(to, v.f);
    else
        r.i = sim_wrap(to, v.i);
    return r;
}
