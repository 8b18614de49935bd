/* The float dtypes' values as bits (dtype.def): round-to-nearest-even (the
 * PTX ISA's .rn) into each format, encoded and decoded bit for bit.
 * float16 and bfloat16 overflow to infinity as cvt.rn does; the fp8 and
 * smaller formats saturate to their largest finite value as cvt.rn.satfinite
 * does (the only fp8 conversion PTX has), NaN staying NaN. A NaN keeps its
 * sign and payload bits through a decode and an encode of the same format
 * (the double carries them at the top of its mantissa), so a copy through
 * these values is bit-exact for every pattern, as ld/st are. One generic
 * codec serves every narrow format, from a table of their fields by dtype
 * code; the simulator computes with it, and the runtime passes a narrow
 * float scalar argument to a kernel as its bits. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "float_bits.h"

/* A binary float format: exponent and mantissa bits and its special values. */
typedef struct Format {
    int ebits, mbits;
    bool ieee;    /* the top exponent is infinity and NaN */
    bool fn;      /* no infinity; NaN is the all-ones pattern (e4m3fn) */
    bool no_nan;  /* neither (fp6, fp4) */
} Format;

static const Format formats[IR_DT_COUNT] = {
    [IR_DT_BFLOAT] = {8, 7, true, false, false},
    [IR_DT_F8E4M3] = {4, 3, false, true, false},
    [IR_DT_F8E4M3FN] = {4, 3, false, true, false},
    [IR_DT_F8E5M2] = {5, 2, true, false, false},
    [IR_DT_F6E2M3FN] = {2, 3, false, false, true},
    [IR_DT_F6E3M2FN] = {3, 2, false, false, true},
    [IR_DT_F4E2M1FN] = {2, 1, false, false, true},
    [IR_DT_F4E2M1FN_A16] = {2, 1, false, false, true},
    [IR_DT_F6E2M3FN_A16] = {2, 3, false, false, true},
    [IR_DT_F6E3M2FN_A16] = {3, 2, false, false, true},
};
static const Format half = {5, 10, true, false, false};

static const Format *format_of(IrDType t)
{
    if (t.code == IR_DT_FLOAT)
        return t.bits == 16 ? &half : NULL;
    return formats[t.code].ebits ? &formats[t.code] : NULL;
}

static int bias(const Format *f) { return (1 << (f->ebits - 1)) - 1; }

/* The largest finite value of f. */
static double max_finite(const Format *f)
{
    int emax = (1 << f->ebits) - 1 - bias(f) - (f->ieee ? 1 : 0);
    double mant = 2.0 - ldexp(1.0, -f->mbits);
    if (f->fn)
        mant -= ldexp(1.0, -f->mbits); /* the all-ones mantissa is NaN */
    return ldexp(mant, emax);
}

/* x rounded to f (nearest even), before overflow handling. */
static double round_to(const Format *f, double x)
{
    double a = fabs(x);
    if (a == 0 || isinf(a) || isnan(a))
        return x;
    int e;
    frexp(a, &e);
    e -= 1; /* a = 1.m * 2^e */
    int emin = 1 - bias(f);
    double quantum = ldexp(1.0, (e < emin ? emin : e) - f->mbits);
    double r = nearbyint(a / quantum) * quantum;
    return copysign(r, x);
}

static double round_format(const Format *f, double x)
{
    if (isnan(x))
        return f->no_nan ? copysign(max_finite(f), x) : x;
    double r = round_to(f, x), max = max_finite(f);
    if (fabs(r) <= max)
        return r;
    if (1 + f->ebits + f->mbits == 16)
        return copysign(INFINITY, x); /* float16, bfloat16: .rn overflows */
    return copysign(max, x);          /* fp8 and narrower: .satfinite */
}

double ir_float_round(IrDType t, double x)
{
    if (t.code == IR_DT_FLOAT && t.bits == 32)
        return (double)(float)x;
    if (t.code == IR_DT_FLOAT && t.bits == 64)
        return x;
    const Format *f = format_of(t);
    return f ? round_format(f, x) : x;
}

/* A NaN double carrying `sign` and the mbits-bit `payload` at the top of
 * its mantissa (a signalling payload stays signalling: the bits are set,
 * not computed). */
static double nan_with_payload(bool sign, uint64_t payload, int mbits)
{
    uint64_t u = (uint64_t)sign << 63 | (uint64_t)0x7ff << 52 | payload << (52 - mbits);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* The top mbits of a NaN double's mantissa, or the quiet NaN's (top bit
 * set) when those are all zero. */
static uint64_t nan_payload(double x, int mbits)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    uint64_t p = (u >> (52 - mbits)) & (((uint64_t)1 << mbits) - 1);
    return p ? p : (uint64_t)1 << (mbits - 1);
}

static uint64_t encode(const Format *f, double x)
{
    int nbits = 1 + f->ebits + f->mbits;
    uint64_t sign = signbit(x) ? (uint64_t)1 << (nbits - 1) : 0;
    uint64_t emask = ((uint64_t)1 << f->ebits) - 1, mmask = ((uint64_t)1 << f->mbits) - 1;
    if (isnan(x))
        return sign | emask << f->mbits | (f->fn ? mmask : nan_payload(x, f->mbits));
    if (isinf(x))
        return sign | emask << f->mbits;
    double a = fabs(x);
    if (a == 0)
        return sign;
    int e;
    frexp(a, &e);
    e -= 1;
    int emin = 1 - bias(f);
    if (e < emin)
        return sign | (uint64_t)ldexp(a, f->mbits - emin);
    uint64_t mant = (uint64_t)ldexp(a, f->mbits - e) & mmask;
    return sign | (uint64_t)(e + bias(f)) << f->mbits | mant;
}

static double decode(const Format *f, uint64_t b)
{
    int nbits = 1 + f->ebits + f->mbits;
    bool neg = (b >> (nbits - 1)) & 1;
    uint64_t emask = ((uint64_t)1 << f->ebits) - 1, mmask = ((uint64_t)1 << f->mbits) - 1;
    uint64_t ef = (b >> f->mbits) & emask, m = b & mmask;
    double v;
    if (f->ieee && ef == emask && m)
        return nan_with_payload(neg, m, f->mbits);
    if (f->ieee && ef == emask)
        v = INFINITY;
    else if (f->fn && ef == emask && m == mmask)
        v = NAN;
    else if (ef == 0)
        v = ldexp((double)m, 1 - bias(f) - f->mbits);
    else
        v = ldexp((double)(m | (mmask + 1)), (int)ef - bias(f) - f->mbits);
    return neg ? -v : v;
}

uint64_t ir_float_to_bits(IrDType t, double x)
{
    if (t.code == IR_DT_FLOAT && t.bits == 64) {
        uint64_t u;
        memcpy(&u, &x, 8);
        return u;
    }
    if (t.code == IR_DT_FLOAT && t.bits == 32) {
        if (isnan(x))
            return (uint64_t)(signbit(x) != 0) << 31 | 0x7f800000u | nan_payload(x, 23);
        float f = (float)x;
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    const Format *f = format_of(t);
    uint64_t mask = ((uint64_t)1 << t.bits) - 1;
    return f ? encode(f, round_format(f, x)) & mask : 0;
}

double ir_float_from_bits(IrDType t, uint64_t bits)
{
    if (t.code == IR_DT_FLOAT && t.bits == 64) {
        double d;
        memcpy(&d, &bits, 8);
        return d;
    }
    if (t.code == IR_DT_FLOAT && t.bits == 32) {
        uint32_t u = (uint32_t)bits;
        float f;
        memcpy(&f, &u, 4);
        return isnan(f) ? nan_with_payload(u >> 31, u & 0x7fffff, 23) : f;
    }
    const Format *f = format_of(t);
    return f ? decode(f, bits) : 0;
}

int64_t ir_float_to_int(IrDType t, double x)
{
    if (t.code == IR_DT_BOOL) /* C++'s (bool)x: a NaN is true */
        return x != 0;
    if (isnan(x))
        return 0;
    x = trunc(x);
    int bits = t.bits ? t.bits : 32;
    if (t.code == IR_DT_UINT) {
        uint64_t max = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
        /* ldexp(1, bits) is one past the range and exact in double */
        return x <= 0 ? 0 : x >= ldexp(1, bits) ? (int64_t)max : (int64_t)(uint64_t)x;
    }
    int64_t max = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
    double top = ldexp(1, bits - 1);
    return x <= -top ? -max - 1 : x >= top ? max : (int64_t)x;
}
