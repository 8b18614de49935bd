/* C types of tirx dtypes. Scalars map to the fixed-width integers, float,
 * double, bool and the prelude's storage types (half, bfloat16, fp8_e4m3,
 * fp8_e5m2, fp8_e8m0, fp4_e2m1, fp6_e2m3, fp6_e3m2, which also carry the
 * values of the _align16 types); memory of the sub-byte types is bytes
 * (uint8_t), their elements packed or grouped (cg_subbyte, cg_bits_args); vectors to CUDA's built-in vector types where one
 * exists (float4, int2, uchar4, ...), to the prelude's half2/bfloat164/
 * fp8_e4m3x8 names, and otherwise to tx_vec<T, N>. */
#include <string.h>

#include "internal.h"

static const char *scalar_ctype(IrDType t)
{
    switch (t.code) {
    case IR_DT_INT:
        return t.bits == 8 ? "int8_t" : t.bits == 16 ? "int16_t" : t.bits == 32 ? "int"
               : t.bits == 64 ? "int64_t" : t.bits == 128 ? "__int128" : NULL;
    case IR_DT_UINT:
        return t.bits == 8 ? "uint8_t" : t.bits == 16 ? "uint16_t" : t.bits == 32 ? "uint32_t"
               : t.bits == 64 ? "uint64_t" : t.bits == 128 ? "unsigned __int128" : NULL;
    case IR_DT_FLOAT:
        return t.bits == 16 ? "half" : t.bits == 32 ? "float" : t.bits == 64 ? "double" : NULL;
    case IR_DT_BFLOAT: return "bfloat16";
    case IR_DT_BOOL: return "bool";
    case IR_DT_HANDLE: return "void*";
    case IR_DT_F8E4M3FN: return "fp8_e4m3";
    case IR_DT_F8E5M2: return "fp8_e5m2";
    case IR_DT_F8E8M0FNU: return "fp8_e8m0";
    case IR_DT_F4E2M1FN: return "fp4_e2m1";
    case IR_DT_F6E2M3FN: return "fp6_e2m3";
    case IR_DT_F6E3M2FN: return "fp6_e3m2";
    case IR_DT_F4E2M1FN_A16: return "fp4_e2m1";
    case IR_DT_F6E2M3FN_A16: return "fp6_e2m3";
    case IR_DT_F6E3M2FN_A16: return "fp6_e3m2";
    default: return NULL;
    }
}

/* CUDA's built-in vector type families: the scalar type and the name stem. */
typedef struct BuiltinVec {
    uint8_t code, bits;
    const char *stem;
    int max_lanes;
} BuiltinVec;

static const BuiltinVec builtin_vecs[] = {
    {IR_DT_FLOAT, 32, "float", 4},  {IR_DT_FLOAT, 64, "double", 2}, {IR_DT_INT, 8, "char", 4},
    {IR_DT_UINT, 8, "uchar", 4},    {IR_DT_INT, 16, "short", 4},    {IR_DT_UINT, 16, "ushort", 4},
    {IR_DT_INT, 32, "int", 4},      {IR_DT_UINT, 32, "uint", 4},    {IR_DT_INT, 64, "longlong", 2},
    {IR_DT_UINT, 64, "ulonglong", 2},
};

/* The prelude's names: half2/4/8, bfloat162/4/8, fp8_e4m3x2..x16, fp8_e5m2x2..x16. */
static const char *prelude_vec(Cg *cg, IrDType t)
{
    if (t.code == IR_DT_FLOAT && t.bits == 16 && t.lanes <= 8)
        return cg_printf(cg, "half%d", t.lanes);
    if (t.code == IR_DT_BFLOAT && t.lanes <= 8)
        return cg_printf(cg, "bfloat16%d", t.lanes);
    if ((t.code == IR_DT_F8E4M3FN || t.code == IR_DT_F8E5M2) && t.lanes <= 16)
        return cg_printf(cg, "%sx%d", scalar_ctype(ir_dtype_with_lanes(t, 1)), t.lanes);
    return NULL;
}

static bool is_pow2(int n)
{
    return n > 0 && (n & (n - 1)) == 0;
}

static const BuiltinVec *builtin_vec(IrDType t)
{
    for (size_t i = 0; i < TX_ARRAY_LEN(builtin_vecs); i++) {
        const BuiltinVec *b = &builtin_vecs[i];
        if (b->code == t.code && b->bits == t.bits && t.lanes <= b->max_lanes && t.lanes != 3)
            return b;
    }
    return NULL;
}

const char *cg_ctype(Cg *cg, IrDType t)
{
    const char *scalar = scalar_ctype(ir_dtype_with_lanes(t, 1));
    if (t.lanes <= 1 || !scalar)
        return scalar;
    if (cg_subbyte(ir_dtype_with_lanes(t, 1)))
        return NULL;
    if (!is_pow2(t.lanes) || t.code == IR_DT_BOOL || t.code == IR_DT_HANDLE)
        return NULL;
    const BuiltinVec *b = builtin_vec(t);
    if (b)
        return cg_printf(cg, "%s%d", b->stem, t.lanes);
    const char *named = prelude_vec(cg, t);
    return named ? named : cg_printf(cg, "tx_vec<%s, %d>", scalar, t.lanes);
}

const char *cg_ctype_at(Cg *cg, IrDType t, TxSpan span)
{
    const char *c = cg_ctype(cg, t);
    if (!c) {
        char buf[IR_DTYPE_STR_MAX];
        cg_error(cg, TX_E_CODEGEN, span, "the CUDA code generator has no type for dtype %s",
                 ir_dtype_str(t, buf));
        return "int";
    }
    return c;
}

int cg_subbyte(IrDType t) { return ir_dtype_subbyte(t); }

const char *cg_bits_args(IrDType t)
{
    static const char *const args[2][2] = {{"4, 0", "4, 1"}, {"6, 0", "6, 1"}};
    int n = ir_dtype_subbyte(t);
    return n ? args[n == 6][t.code != ir_dtype_unaligned(t).code] : NULL;
}

const char *cg_storage_ctype(Cg *cg, IrDType t, TxSpan span)
{
    if (cg_subbyte(t))
        return "uint8_t";
    return cg_ctype_at(cg, t, span);
}

const char *cg_var_ctype(Cg *cg, const IrType *t, TxSpan span)
{
    switch (t->kind) {
    case IR_TY_PRIM: return cg_ctype_at(cg, t->dtype, span);
    case IR_TY_PTR:
    case IR_TY_BUFFER:
        if (t->dtype.code == IR_DT_VOID)
            return "void*";
        return cg_printf(cg, "%s*", cg_storage_ctype(cg, t->dtype, span));
    case IR_TY_TENSORMAP: return "CUtensorMap";
    default: cg_error(cg, TX_E_CODEGEN, span,
                      "a variable of this type cannot appear in device code"); return "int";
    }
}

char *cg_lane_of(Cg *cg, const char *v, IrDType t, int k)
{
    static const char members[] = "xyzw";
    if (builtin_vec(t))
        return cg_printf(cg, "%s.%c", v, members[k]);
    return cg_printf(cg, "%s.v[%d]", v, k);
}

bool cg_is_low_float(IrDType t)
{
    return (t.code == IR_DT_FLOAT && t.bits == 16) || t.code == IR_DT_BFLOAT ||
           t.code == IR_DT_F8E4M3FN || t.code == IR_DT_F8E5M2 || t.code == IR_DT_F8E8M0FNU ||
           cg_subbyte(ir_dtype_with_lanes(t, 1));
}
