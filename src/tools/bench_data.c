/* Element types and host data of `tirx bench`: the table of the types a
 * tensor argument can have, one encoder and decoder for every binary
 * floating-point format (float64 down to float8, by exponent and mantissa
 * bits), the fills of --args, the relative L2 error of the GEMM check, and
 * the table of the GEMM types with their tolerances. */
#include <math.h>
#include <string.h>

#include "bench.h"

/* X(TIRx name, alias, DLPack code, bits, kind, exponent bits, mantissa bits) */
#define BENCH_DTYPES(X)                                              \
    X("float64", "f64", 2, 64, BENCH_FLOAT, 11, 52)                  \
    X("float32", "f32", 2, 32, BENCH_FLOAT, 8, 23)                   \
    X("float16", "fp16", 2, 16, BENCH_FLOAT, 5, 10)                  \
    X("bfloat16", "bf16", 4, 16, BENCH_FLOAT, 8, 7)                  \
    X("float8_e4m3fn", "fp8", 10, 8, BENCH_FLOAT_FN, 4, 3)           \
    X("float8_e5m2", "e5m2", 12, 8, BENCH_FLOAT, 5, 2)               \
    X("int8", "i8", 0, 8, BENCH_INT, 0, 0)                           \
    X("int16", "i16", 0, 16, BENCH_INT, 0, 0)                        \
    X("int32", "i32", 0, 32, BENCH_INT, 0, 0)                        \
    X("int64", "i64", 0, 64, BENCH_INT, 0, 0)                        \
    X("uint8", "u8", 1, 8, BENCH_UINT, 0, 0)                         \
    X("uint16", "u16", 1, 16, BENCH_UINT, 0, 0)                      \
    X("uint32", "u32", 1, 32, BENCH_UINT, 0, 0)                      \
    X("uint64", "u64", 1, 64, BENCH_UINT, 0, 0)

static const BenchDType dtypes[] = {
#define X(name, alias, code, bits, kind, eb, mb) {name, alias, code, bits, kind, eb, mb},
    BENCH_DTYPES(X)
#undef X
};

/* X(name, input dtype, output dtype, tolerance, default kernel, scale of A,
 * scale of B). The tolerances leave room for the rounding of C (bfloat16:
 * 2^-8 per element, float16: 2^-11), a different summation order, and tf32
 * inputs rounded (cuBLAS) or truncated (a kernel that feeds float32 bits to
 * the tensor cores); a wrong kernel is off by O(1). The fp8 scales are not 1,
 * so that a kernel that drops one is caught. */
#define GEMM_SM90 "kernels/gemm_sm90.tirx"
#define GEMM_WS (32 << 20) /* the split-K workspace of both kernels (WORKSPACE_BYTES) */
#define BENCH_GEMM_TYPES(X)                                                                       \
    X("bf16", "bfloat16", "bfloat16", 1e-2, GEMM_SM90, GEMM_WS, 0, 0)                             \
    X("fp16", "float16", "float16", 5e-3, GEMM_SM90, GEMM_WS, 0, 0)                               \
    X("fp8", "float8_e4m3fn", "bfloat16", 2e-2, "kernels/gemm_fp8_sm90.tirx", GEMM_WS, 0.5f, 2.5f)      \
    X("tf32", "float32", "float32", 1e-2, GEMM_SM90, GEMM_WS, 0, 0)

static const BenchGemmType gemm_types[] = {
#define X(name, in, out, tol, kernel, ws, sa, sb) {name, in, out, tol, kernel, ws, sa, sb},
    BENCH_GEMM_TYPES(X)
#undef X
};

const BenchDType *bench_dtype(const char *name)
{
    for (size_t i = 0; name && i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (!strcmp(dtypes[i].name, name) || !strcmp(dtypes[i].alias, name))
            return &dtypes[i];
    return NULL;
}

const BenchGemmType *bench_gemm_type(const char *name)
{
    for (size_t i = 0; name && i < sizeof gemm_types / sizeof gemm_types[0]; i++)
        if (!strcmp(gemm_types[i].name, name))
            return &gemm_types[i];
    return NULL;
}

/* ---- floating-point formats ---- */

typedef struct Format {
    int mb, bias, emin;
    uint64_t exp_all, man_all, sign;
    bool fn;
} Format;

static Format format(const BenchDType *t)
{
    Format f = {.mb = t->man_bits, .bias = (1 << (t->exp_bits - 1)) - 1,
                .exp_all = (1ull << t->exp_bits) - 1, .man_all = (1ull << t->man_bits) - 1,
                .sign = 1ull << (t->bits - 1), .fn = t->kind == BENCH_FLOAT_FN};
    f.emin = 1 - f.bias;
    return f;
}

/* The largest finite value: fn formats use the all-ones exponent too, but
 * not the all-ones mantissa with it (that is NaN). */
static double max_finite(const Format *f)
{
    if (f->fn)
        return ldexp(2.0 - ldexp(1.0, 1 - f->mb), (int)f->exp_all - f->bias);
    return ldexp(2.0 - ldexp(1.0, -f->mb), (int)f->exp_all - 1 - f->bias);
}

/* The bits of a, a value of the format (0 <= a <= max_finite). */
static uint64_t pack(const Format *f, double a)
{
    if (a == 0)
        return 0;
    int e;
    frexp(a, &e);
    if (e - 1 < f->emin)
        return (uint64_t)ldexp(a, f->mb - f->emin);
    uint64_t man = (uint64_t)ldexp(a, f->mb - (e - 1)) - (1ull << f->mb);
    return ((uint64_t)(e - 1 + f->bias) << f->mb) | man;
}

/* A value whose rounding is a normal number of the format, rounded to
 * nearest even on the bits of the double (the fills' hot path: frexp and
 * ldexp per element made a 604M-element KV cache take 24 s); anything else
 * (zero, subnormal, overflow, NaN) returns false. */
static bool encode_normal(const Format *f, double v, uint64_t *bits)
{
    uint64_t d;
    memcpy(&d, &v, sizeof d);
    uint64_t mag = d & ~(1ull << 63);
    int e = (int)(mag >> 52) - 1023, drop = 52 - f->mb;
    if (e < f->emin || e > f->bias || mag >> 52 == 0x7ff)
        return false;
    mag = (mag + (1ull << (drop - 1)) - 1 + (mag >> drop & 1)) >> drop;
    int be = (int)(mag >> f->mb) - 1023 + f->bias;
    uint64_t man = mag & f->man_all;
    if ((uint64_t)be > f->exp_all || ((uint64_t)be == f->exp_all && (!f->fn || man == f->man_all)))
        return false;
    *bits = (d >> 63 ? f->sign : 0) | (uint64_t)be << f->mb | man;
    return true;
}

static uint64_t encode_float(const BenchDType *t, double v)
{
    Format f = format(t);
    uint64_t sign = signbit(v) ? f.sign : 0, fast;
    if (f.mb < 52 && encode_normal(&f, v, &fast))
        return fast;
    if (isnan(v))
        return f.fn ? f.sign - 1 : (f.exp_all << f.mb) | (1ull << (f.mb - 1));
    double a = fabs(v), top = max_finite(&f);
    int e = 0;
    frexp(a, &e);
    int ue = a > 0 && e - 1 > f.emin ? e - 1 : f.emin;
    double q = isinf(a) ? a : ldexp(nearbyint(ldexp(a, f.mb - ue)), ue - f.mb);
    if (q > top)
        return sign | (f.fn ? pack(&f, top) : f.exp_all << f.mb);
    return sign | pack(&f, q);
}

static double decode_float(const BenchDType *t, uint64_t bits)
{
    Format f = format(t);
    uint64_t exp = (bits >> f.mb) & f.exp_all, man = bits & f.man_all;
    if (exp && exp != f.exp_all && f.mb <= 52) { /* normal: the double's bits directly */
        uint64_t d = (uint64_t)(bits & f.sign ? 1 : 0) << 63 |
                     (uint64_t)((int64_t)exp - f.bias + 1023) << 52 | man << (52 - f.mb);
        double v;
        memcpy(&v, &d, sizeof v);
        return v;
    }
    double s = bits & f.sign ? -1.0 : 1.0;
    if (f.fn && exp == f.exp_all && man == f.man_all)
        return NAN;
    if (!f.fn && exp == f.exp_all)
        return man ? NAN : s * INFINITY;
    if (exp == 0)
        return s * ldexp((double)man, f.emin - f.mb);
    return s * ldexp((double)(man | (1ull << f.mb)), (int)exp - f.bias - f.mb);
}

/* ---- integers ---- */

static uint64_t encode_int(const BenchDType *t, double v)
{
    double lo = t->kind == BENCH_UINT ? 0 : -ldexp(1.0, t->bits - 1);
    double hi = t->kind == BENCH_UINT ? ldexp(1.0, t->bits) - 1 : ldexp(1.0, t->bits - 1) - 1;
    double r = isnan(v) ? 0 : fmin(fmax(nearbyint(v), lo), hi);
    uint64_t mask = t->bits == 64 ? ~0ull : (1ull << t->bits) - 1;
    return r < 0 ? (uint64_t)(int64_t)r & mask : (uint64_t)r & mask;
}

static double decode_int(const BenchDType *t, uint64_t bits)
{
    if (t->kind == BENCH_UINT || !(bits >> (t->bits - 1) & 1))
        return (double)bits;
    uint64_t ext = t->bits == 64 ? bits : bits | ~((1ull << t->bits) - 1);
    return (double)(int64_t)ext;
}

uint64_t bench_encode(const BenchDType *t, double v)
{
    return t->kind == BENCH_INT || t->kind == BENCH_UINT ? encode_int(t, v) : encode_float(t, v);
}

double bench_decode(const BenchDType *t, uint64_t bits)
{
    return t->kind == BENCH_INT || t->kind == BENCH_UINT ? decode_int(t, bits)
                                                         : decode_float(t, bits);
}

/* ---- host data ---- */

static uint64_t load(const BenchDType *t, const void *p, size_t i)
{
    const unsigned char *b = (const unsigned char *)p + i * (t->bits / 8);
    uint64_t v = 0;
    memcpy(&v, b, t->bits / 8); /* little-endian, as the GPU */
    return v;
}

static void store(const BenchDType *t, void *p, size_t i, uint64_t v)
{
    memcpy((unsigned char *)p + i * (t->bits / 8), &v, t->bits / 8);
}

uint64_t bench_random(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

double bench_uniform(uint64_t *s)
{
    return (double)(bench_random(s) >> 11) / 4503599627370496.0 - 1.0;
}

long long bench_below(uint64_t *s, long long n)
{
    return (long long)((bench_uniform(s) + 1) / 2 * (double)n);
}

void bench_fill(const BenchDType *t, BenchInit init, void *dst, size_t n, uint64_t *seed)
{
    if (init == BENCH_EMPTY)
        return;
    bool integer = t->kind == BENCH_INT || t->kind == BENCH_UINT;
    uint64_t fixed = bench_encode(t, init == BENCH_ONES ? 1.0 : 0.0);
    for (size_t i = 0; i < n; i++) {
        if (init != BENCH_RAND) {
            store(t, dst, i, fixed);
            continue;
        }
        double u = bench_uniform(seed);
        double v = !integer ? u : t->kind == BENCH_UINT ? floor((u + 1) * 8) : floor(u * 8);
        store(t, dst, i, bench_encode(t, v));
    }
}

double bench_rel_l2(const BenchDType *tx, const void *x, const BenchDType *tref, const void *ref,
                    size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double a = bench_decode(tx, load(tx, x, i)), b = bench_decode(tref, load(tref, ref, i));
        if (!isfinite(a))
            return INFINITY;
        num += (a - b) * (a - b);
        den += b * b;
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}
