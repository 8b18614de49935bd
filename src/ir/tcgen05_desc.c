/* The dense tcgen05 instruction descriptor (reference cuda_backend.md 2.5),
 * computed at compile time with the reference's checks: the MMA kind from the
 * D/A/B dtypes, the legal M/N/K for the kind and CTA group, which operands may
 * be MN-major, negated or saturated. Bits: 2 sparse, 3 saturate, 4-5 D
 * format, 7-9 A format, 10-12 B format, 13/14 negate A/B, 15/16 A/B major
 * (1 = MN-major), 17-22 N >> 3, 24-28 M >> 4. Shared by the tcgen05 gemm
 * variant, which folds it while lowering, and the code generator, which
 * folds T.cuda.tcgen05.encode_instr_descriptor. */
#include <stdio.h>
#include <string.h>

#include "ptx.h"

typedef enum { F16, BF16, TF32, F32, E4M3, E5M2, E2M3, E3M2, E2M1, U8, S8, S32, BAD } MmaType;

typedef struct TypeName {
    const char *ptx, *tirx;
    MmaType type;
    int format; /* the descriptor's format code */
} TypeName;

static const TypeName type_names[] = {
    {"f16", "float16", F16, 0},         {"bf16", "bfloat16", BF16, 1},
    {"tf32", "tfloat32", TF32, 2},      {"f32", "float32", F32, 1},
    {"e4m3", "float8_e4m3fn", E4M3, 0}, {"e5m2", "float8_e5m2", E5M2, 1},
    {"e2m3", "float6_e2m3fn", E2M3, 3}, {"e3m2", "float6_e3m2fn", E3M2, 4},
    {"e2m1", "float4_e2m1fn", E2M1, 5}, {"u8", "uint8", U8, 0},
    {"s8", "int8", S8, 1},              {"s32", "int32", S32, 2},
};

static const TypeName *mma_type(const char *name)
{
    for (size_t i = 0; name && i < TX_ARRAY_LEN(type_names); i++)
        if (!strcmp(name, type_names[i].ptx) || !strcmp(name, type_names[i].tirx))
            return &type_names[i];
    return NULL;
}

static bool is_fp8_family(MmaType t)
{
    return t == E4M3 || t == E5M2 || t == E2M3 || t == E3M2 || t == E2M1;
}

typedef enum { KIND_F16, KIND_TF32, KIND_F8F6F4, KIND_I8, KIND_NONE } MmaKind;
static const char *const kind_names[] = {"f16", "tf32", "f8f6f4", "i8"};

static MmaKind mma_kind(MmaType d, MmaType a, MmaType b)
{
    if (d == F16 && a == F16 && b == F16)
        return KIND_F16;
    if (d == F32 && (a == F16 || a == BF16) && (b == F16 || b == BF16))
        return KIND_F16;
    if (d == F32 && a == TF32 && b == TF32)
        return KIND_TF32;
    if (d == S32 && (a == S8 || a == U8) && (b == S8 || b == U8))
        return KIND_I8;
    if ((d == F32 || d == F16) && is_fp8_family(a) && is_fp8_family(b))
        return KIND_F8F6F4;
    return KIND_NONE;
}

/* The N step for (kind, cta_group, M), 0 when M is not legal; extra: N values
 * allowed besides the multiples of the step (i8 with M = 64 or 128). */
static int n_step(MmaKind k, int cta_group, int m, bool *extra_8_24)
{
    *extra_8_24 = false;
    if (cta_group == 2)
        return m == 128 || m == 256 ? 32 : 0;
    if (k == KIND_I8) {
        *extra_8_24 = m == 64 || m == 128;
        return *extra_8_24 ? 16 : 0;
    }
    return m == 64 ? 8 : m == 128 ? 16 : 0;
}

static bool shape_ok(MmaKind k, const IrInstrDesc *d)
{
    static const int dense_k[] = {16, 8, 32, 32};
    bool extra;
    int step = n_step(k, d->cta_group, d->m, &extra);
    if (!step || (d->cta_group != 1 && d->cta_group != 2))
        return false;
    bool n_ok = (extra && (d->n == 8 || d->n == 24)) || (d->n >= step && d->n <= 256 && d->n % step == 0);
    return n_ok && d->k == dense_k[k] * (d->sparse ? 2 : 1);
}

static bool transposable(MmaType t)
{
    return t == E4M3 || t == E5M2 || t == S8 || t == U8 || t == F16 || t == BF16 || t == TF32;
}

const char *ir_tcgen05_kind(const char *d, const char *a, const char *b)
{
    const TypeName *dt = mma_type(d), *at = mma_type(a), *bt = mma_type(b);
    MmaKind k = dt && at && bt ? mma_kind(dt->type, at->type, bt->type) : KIND_NONE;
    return k == KIND_NONE ? NULL : kind_names[k];
}

bool ir_tcgen05_instr_desc(const IrInstrDesc *d, uint32_t *out, char *err, size_t errlen)
{
    const TypeName *dt = mma_type(d->d_dtype), *at = mma_type(d->a_dtype), *bt = mma_type(d->b_dtype);
    MmaKind k = dt && at && bt ? mma_kind(dt->type, at->type, bt->type) : KIND_NONE;
    if (k == KIND_NONE) {
        snprintf(err, errlen, "tcgen05.mma has no kind for d %s, a %s, b %s", d->d_dtype ? d->d_dtype : "?",
                 d->a_dtype ? d->a_dtype : "?", d->b_dtype ? d->b_dtype : "?");
        return false;
    }
    if (!shape_ok(k, d)) {
        snprintf(err, errlen, "tcgen05.mma kind::%s with cta_group::%d has no %dx%dx%d%s shape",
                 kind_names[k], d->cta_group, d->m, d->n, d->k, d->sparse ? " sparse" : "");
        return false;
    }
    if ((d->trans_a && !transposable(at->type)) || (d->trans_b && !transposable(bt->type))) {
        snprintf(err, errlen, "tcgen05.mma cannot read %s operands MN-major", d->trans_a ? d->a_dtype : d->b_dtype);
        return false;
    }
    if ((d->neg_a || d->neg_b) && k == KIND_I8) {
        snprintf(err, errlen, "tcgen05.mma kind::i8 cannot negate its operands");
        return false;
    }
    if (d->sat_d && k != KIND_I8) {
        snprintf(err, errlen, "tcgen05.mma saturates kind::i8 results only");
        return false;
    }
    int d_format = dt->type == F16 ? 0 : dt->format;
    *out = (uint32_t)d->sparse << 2 | (uint32_t)d->sat_d << 3 | (uint32_t)d_format << 4 |
           (uint32_t)at->format << 7 | (uint32_t)bt->format << 10 | (uint32_t)d->neg_a << 13 |
           (uint32_t)d->neg_b << 14 | (uint32_t)d->trans_a << 15 | (uint32_t)d->trans_b << 16 |
           (uint32_t)(d->n >> 3) << 17 | (uint32_t)(d->m >> 4) << 24;
    return true;
}
