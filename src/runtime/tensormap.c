/* TMA tensor maps: the driver's rules for cuTensorMapEncodeTiled (from its
 * documentation in cuda.h), checked on the CPU so a violation is a message
 * naming the field, the dimension and the rule rather than a bare
 * CUDA_ERROR_INVALID_VALUE, then the encode itself. runtime.h's enums carry
 * CUDA's values (unit.cuda_api checks them against cuda.h). */
#include <inttypes.h>
#include <string.h>

#include "internal.h"

enum DtypeKind { KIND_I, KIND_F, KIND_P8, KIND_P16 };

typedef struct DtypeRow {
    const char *name;
    int bits;
    enum DtypeKind kind;
} DtypeRow;

static const DtypeRow *dtype_row(RtTmaDtype t)
{
    static const DtypeRow rows[] = {
#define X(name, value, bits, kind) [value] = {#name, bits, KIND_##kind},
        RT_TMA_DTYPES(X)
#undef X
    };
    return (unsigned)t < sizeof rows / sizeof rows[0] ? &rows[t] : NULL;
}

static int swizzle_span(RtTmaSwizzle s)
{
    static const int spans[] = {
#define X(name, value, span) [value] = span,
        RT_TMA_SWIZZLES(X)
#undef X
    };
    return (unsigned)s < sizeof spans / sizeof spans[0] ? spans[s] : -1;
}

static uint32_t element_stride(const RtTensorMapSpec *s, int i)
{
    bool defaulted = true;
    for (int j = 0; j < s->rank; j++)
        defaulted = defaulted && s->element_strides[j] == 0;
    return defaulted ? 1 : s->element_strides[i];
}

#define FAIL(...) rt_fail(err, RT_ERR_USAGE, "tensor map: " __VA_ARGS__)

static RtStatus check_enums(const RtTensorMapSpec *s, const DtypeRow *t, RtError *err)
{
    if (!t)
        return FAIL("unknown dtype %d", (int)s->dtype);
    if (s->rank < 1 || s->rank > 5)
        return FAIL("rank %d is not in 1..5", s->rank);
    if ((unsigned)s->interleave > RT_TMA_INTERLEAVE_32B || swizzle_span(s->swizzle) < 0 ||
        (unsigned)s->l2_promotion > RT_TMA_L2_256B || (unsigned)s->oob_fill > RT_TMA_OOB_NAN)
        return FAIL("an interleave, swizzle, L2 promotion or OOB fill value out of range");
    if (s->interleave != RT_TMA_INTERLEAVE_NONE && s->rank < 3)
        return FAIL("an interleaved layout needs rank >= 3, not %d", s->rank);
    if (s->interleave == RT_TMA_INTERLEAVE_32B && s->swizzle != RT_TMA_SWIZZLE_32B)
        return FAIL("32-byte interleave needs the 32-byte swizzle");
    if (s->oob_fill == RT_TMA_OOB_NAN && t->kind != KIND_F)
        return FAIL("NaN out-of-bounds fill needs a float dtype, not %s", t->name);
    if (s->dtype == RT_TMA_16U6_ALIGN16B && s->interleave != RT_TMA_INTERLEAVE_NONE)
        return FAIL("16U6_ALIGN16B cannot be interleaved");
    bool packed_swizzle_ok = s->swizzle == RT_TMA_SWIZZLE_NONE || s->swizzle == RT_TMA_SWIZZLE_128B ||
                             s->swizzle == RT_TMA_SWIZZLE_128B_ATOM_32B ||
                             (s->dtype == RT_TMA_16U6_ALIGN16B && s->swizzle == RT_TMA_SWIZZLE_128B_ATOM_64B);
    if (t->kind == KIND_P16 && !packed_swizzle_ok)
        return FAIL("%s does not support swizzle mode %d", t->name, (int)s->swizzle);
    return RT_OK;
}

static RtStatus check_global(const RtTensorMapSpec *s, const DtypeRow *t, RtError *err)
{
    bool wide = s->interleave == RT_TMA_INTERLEAVE_32B || t->kind == KIND_P16;
    uint64_t align = wide ? 32 : 16;
    if (s->global_address % align != 0)
        return FAIL("global address 0x%" PRIx64 " is not %" PRIu64 "-byte aligned",
                    s->global_address, align);
    for (int i = 0; i < s->rank; i++)
        if (s->global_dim[i] == 0 || s->global_dim[i] > ((uint64_t)1 << 32))
            return FAIL("global_dim[%d] = %" PRIu64 " is not in 1..2^32", i, s->global_dim[i]);
    if (t->kind == KIND_P16 && s->global_dim[0] % 128 != 0)
        return FAIL("global_dim[0] = %" PRIu64 " of %s is not a multiple of 128", s->global_dim[0], t->name);
    if (t->kind == KIND_P8 && s->global_dim[0] % 2 != 0)
        return FAIL("global_dim[0] = %" PRIu64 " of %s is odd", s->global_dim[0], t->name);
    for (int i = 0; i + 1 < s->rank; i++) {
        uint64_t st = s->global_strides[i];
        if (st % align != 0 || st >= ((uint64_t)1 << 40))
            return FAIL("global_strides[%d] = %" PRIu64 " bytes is not a multiple of %" PRIu64
                        " below 2^40", i, st, align);
    }
    return RT_OK;
}

static RtStatus check_box(const RtTensorMapSpec *s, const DtypeRow *t, RtError *err)
{
    for (int i = 0; i < s->rank; i++) {
        if (s->box_dim[i] == 0 || s->box_dim[i] > 256)
            return FAIL("box_dim[%d] = %u is not in 1..256", i, s->box_dim[i]);
        uint32_t es = element_stride(s, i);
        if (es == 0 || es > 8)
            return FAIL("element_strides[%d] = %u is not in 1..8", i, es);
    }
    uint64_t inner_bytes = (uint64_t)s->box_dim[0] * (uint64_t)t->bits / 8;
    if (t->kind == KIND_P16 && s->box_dim[0] != 128)
        return FAIL("box_dim[0] of %s must be 128, not %u", t->name, s->box_dim[0]);
    if (s->interleave == RT_TMA_INTERLEAVE_NONE && inner_bytes % 16 != 0)
        return FAIL("the box's inner extent, %" PRIu64 " bytes (box_dim[0] = %u of %s), is not a "
                    "multiple of 16", inner_bytes, s->box_dim[0], t->name);
    int span = swizzle_span(s->swizzle);
    if (s->interleave == RT_TMA_INTERLEAVE_NONE && span > 0 && inner_bytes > (uint64_t)span)
        return FAIL("the box's inner extent, %" PRIu64 " bytes, exceeds the %d-byte swizzle span",
                    inner_bytes, span);
    return RT_OK;
}

RtStatus rt_tensor_map_check(const RtTensorMapSpec *s, RtError *err)
{
    const DtypeRow *t = dtype_row(s->dtype);
    RtStatus st = check_enums(s, t, err);
    if (st == RT_OK)
        st = check_global(s, t, err);
    if (st == RT_OK)
        st = check_box(s, t, err);
    return st;
}

RtStatus rt_tensor_map_encode(const RtTensorMapSpec *s, RtTensorMap *out, RtError *err)
{
    RtStatus st = rt_tensor_map_check(s, err);
    const RtCuda *cu;
    if (st == RT_OK)
        st = rt_driver(&cu, err);
    if (st != RT_OK)
        return st;
    cuuint32_t strides[5];
    for (int i = 0; i < s->rank; i++)
        strides[i] = element_stride(s, i);
    void *address = (void *)(uintptr_t)s->global_address;
    CUresult r = cu->cuTensorMapEncodeTiled(
        (CUtensorMap *)out, (CUtensorMapDataType)s->dtype, (cuuint32_t)s->rank, address,
        s->global_dim, s->global_strides, s->box_dim, strides, (CUtensorMapInterleave)s->interleave,
        (CUtensorMapSwizzle)s->swizzle, (CUtensorMapL2promotion)s->l2_promotion,
        (CUtensorMapFloatOOBfill)s->oob_fill);
    return r == CUDA_SUCCESS ? RT_OK : rt_cu_fail(err, cu, r, "cuTensorMapEncodeTiled");
}
