/* The tcgen05 instruction descriptor (reference cuda_backend.md 2.5),
 * computed at compile time with the reference's checks: the MMA kind from the
 * D/A/B dtypes (and the scale-factor dtype of the block-scaled kinds), the
 * legal M/N/K for the kind and CTA group, which operands may be MN-major,
 * negated or saturated. Bits: 2 sparse, 3 saturate, 4-5 D format (block
 * scaled: B's scale-factor id), 7-9 A format, 10-12 B format, 13/14 negate
 * A/B, 15/16 A/B major (1 = MN-major), 17-22 N >> 3, 23 the scale-factor
 * format (block scaled: 0 e4m3, 1 e8m0), 24-28 M >> 4, 29-30 A's
 * scale-factor id (block scaled). The scale-factor ids pick the byte of each
 * 32-bit TMEM column the MMA reads its scale factors from. Shared by the tcgen05 gemm
 * variant, which folds it while lowering, and the code generator, which
 * folds T.cuda.tcgen05.encode_instr_descriptor. */
#include <stdio.h>
#include <string.h>

#include "ptx.h"

/* E2M1A: fp4 in the _align16 form, which the f8f6f4 kinds read (the packed
 * form is the mxf4 kinds'). */
typedef enum { F16, BF16, TF32, F32, E4M3, E5M2, E2M3, E3M2, E2M1, E2M1A, U8, S8, S32, BAD } MmaType;

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
    {"e2m1", "float4_e2m1fn_align16", E2M1A, 5},
    {"e2m3", "float6_e2m3fn_align16", E2M3, 3},
    {"e3m2", "float6_e3m2fn_align16", E3M2, 4},
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
    return t == E4M3 || t == E5M2 || t == E2M3 || t == E3M2 || t == E2M1 || t == E2M1A;
}

typedef enum {
    KIND_F16, KIND_TF32, KIND_F8F6F4, KIND_I8, KIND_MXF8F6F4, KIND_MXF4, KIND_MXF4NVF4, KIND_NONE
} MmaKind;
static const char *const kind_names[] = {"f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4",
                                         "mxf4nvf4"};
static const int kind_k[] = {16, 8, 32, 32, 32, 64, 64}; /* dense K per kind */

static bool block_scaled(MmaKind k) { return k >= KIND_MXF8F6F4 && k < KIND_NONE; }

/* The scale-factor format bit: 1 e8m0, 0 e4m3; -1 for other types. */
static int sf_format(const char *name)
{
    if (name && (!strcmp(name, "float8_e8m0fnu") || !strcmp(name, "ue8m0")))
        return 1;
    if (name && (!strcmp(name, "float8_e4m3fn") || !strcmp(name, "ue4m3")))
        return 0;
    return -1;
}

/* A block-scaled kind: the float32 D, the operand and scale-factor types. */
static MmaKind block_kind(MmaType d, MmaType a, MmaType b, int sf)
{
    if (d != F32 || !is_fp8_family(a) || !is_fp8_family(b) || sf < 0)
        return KIND_NONE;
    if (a == E2M1 && b == E2M1)
        return sf ? KIND_MXF4 : KIND_MXF4NVF4;
    return sf ? KIND_MXF8F6F4 : KIND_NONE;
}

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
    if (block_scaled(k))
        return cta_group == 1 ? (m == 128 ? 8 : 0) : (m == 128 || m == 256 ? 16 : 0);
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
    bool extra;
    int step = n_step(k, d->cta_group, d->m, &extra);
    if (!step || (d->cta_group != 1 && d->cta_group != 2))
        return false;
    bool n_ok = (extra && (d->n == 8 || d->n == 24)) || (d->n >= step && d->n <= 256 && d->n % step == 0);
    return n_ok && d->k == kind_k[k] * (d->sparse ? 2 : 1);
}

static bool transposable(MmaType t)
{
    return t == E4M3 || t == E5M2 || t == S8 || t == U8 || t == F16 || t == BF16 || t == TF32;
}

static MmaKind kind_of(const TypeName *dt, const TypeName *at, const TypeName *bt, const char *sf)
{
    if (!dt || !at || !bt)
        return KIND_NONE;
    return sf ? block_kind(dt->type, at->type, bt->type, sf_format(sf))
              : mma_kind(dt->type, at->type, bt->type);
}

const char *ir_tcgen05_kind(const char *d, const char *a, const char *b, const char *sf)
{
    MmaKind k = kind_of(mma_type(d), mma_type(a), mma_type(b), sf);
    return k == KIND_NONE ? NULL : kind_names[k];
}

int ir_tcgen05_mma_k(const char *kind)
{
    for (size_t i = 0; kind && i < TX_ARRAY_LEN(kind_names); i++)
        if (!strcmp(kind, kind_names[i]))
            return kind_k[i];
    return 0;
}

bool ir_tcgen05_instr_desc(const IrInstrDesc *d, uint32_t *out, char *err, size_t errlen)
{
    const TypeName *dt = mma_type(d->d_dtype), *at = mma_type(d->a_dtype), *bt = mma_type(d->b_dtype);
    MmaKind k = kind_of(dt, at, bt, d->sf_dtype);
    if (k == KIND_NONE) {
        snprintf(err, errlen, "tcgen05.mma has no kind for d %s, a %s, b %s%s%s",
                 d->d_dtype ? d->d_dtype : "?", d->a_dtype ? d->a_dtype : "?",
                 d->b_dtype ? d->b_dtype : "?", d->sf_dtype ? ", scale factors " : "",
                 d->sf_dtype ? d->sf_dtype : "");
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
    if (d->sf_id_a < 0 || d->sf_id_a > 3 || d->sf_id_b < 0 || d->sf_id_b > 3 ||
        ((d->sf_id_a || d->sf_id_b) && !block_scaled(k))) {
        snprintf(err, errlen, "tcgen05.mma scale-factor ids are 0-3, of the block-scaled kinds");
        return false;
    }
    uint32_t fmt_a = k == KIND_MXF4 || k == KIND_MXF4NVF4 ? 1 : (uint32_t)at->format;
    uint32_t fmt_b = k == KIND_MXF4 || k == KIND_MXF4NVF4 ? 1 : (uint32_t)bt->format;
    uint32_t v = (uint32_t)d->sparse << 2 | fmt_a << 7 | fmt_b << 10 | (uint32_t)d->neg_a << 13 |
                 (uint32_t)d->neg_b << 14 | (uint32_t)d->trans_a << 15 |
                 (uint32_t)d->trans_b << 16 | (uint32_t)(d->n >> 3) << 17 |
                 (uint32_t)(d->m >> 4) << 24;
    if (block_scaled(k))
        v |= (uint32_t)d->sf_id_b << 4 | (uint32_t)sf_format(d->sf_dtype) << 23 |
             (uint32_t)d->sf_id_a << 29;
    else
        v |= (uint32_t)d->sat_d << 3 | (uint32_t)(dt->type == F16 ? 0 : dt->format) << 4;
    *out = v;
    return true;
}

/* ---------------------------------------------------------------- encoder calls */
static bool const_arg(const IrExpr *e, int64_t *v)
{
    if (!e || (e->kind != IR_E_INT && e->kind != IR_E_PYINT && e->kind != IR_E_PYBOOL))
        return false;
    *v = e->u.int_val;
    return true;
}

static const char *str_arg(const IrExpr *e) { return e && e->kind == IR_E_STR ? e->u.str : NULL; }

bool ir_tcgen05_instr_desc_call(const IrExpr *e, IrInstrDesc *d, const char **sfb)
{
    const IrCall *c = &e->u.call;
    bool bs = c->op == IR_OP_CUDA_TCGEN05_INSTR_DESC_BLOCK_SCALED;
    int at = bs ? 8 : 4; /* M */
    int64_t m = 0, n = 0, k = 0, ctag = 1, f;
    bool *dense_flags[] = {&d->trans_a, &d->trans_b, NULL, &d->neg_a, &d->neg_b, &d->sat_d,
                           &d->sparse};
    bool *bs_flags[] = {&d->trans_a, &d->trans_b, NULL, &d->neg_a, &d->neg_b, &d->sparse};
    bool **flags = bs ? bs_flags : dense_flags;
    *d = (IrInstrDesc){.cta_group = 1};
    *sfb = NULL;
    bool ok = c->nargs >= at + 5 && c->nargs <= at + (bs ? 9 : 10) &&
              (d->d_dtype = str_arg(c->args[1])) && (d->a_dtype = str_arg(c->args[2])) &&
              (d->b_dtype = str_arg(c->args[3])) &&
              (!bs || ((d->sf_dtype = str_arg(c->args[4])) && (*sfb = str_arg(c->args[5])))) &&
              const_arg(c->args[at], &m) && const_arg(c->args[at + 1], &n) &&
              const_arg(c->args[at + 2], &k) &&
              (c->nargs < at + 6 || const_arg(c->args[at + 5], &ctag));
    for (int i = at + 3; ok && i < c->nargs; i++) {
        ok = !flags[i - at - 3] || const_arg(c->args[i], &f);
        if (ok && flags[i - at - 3])
            *flags[i - at - 3] = f != 0;
    }
    d->m = (int)m, d->n = (int)n, d->k = (int)k, d->cta_group = (int)ctag;
    return ok;
}
