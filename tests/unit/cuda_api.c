/* src/runtime/cuda_api.h declares the driver and NVRTC interfaces tirx
 * calls, so that tirx builds without the CUDA toolkit. This test, built
 * where the toolkit's headers are, checks those declarations against them:
 * every constant, size and offset of tests/tools/cuda_api_facts.def (the
 * other file of this test evaluates the same list under cuda_api.h), every
 * cuda.def, nvrtc.def and nvjitlink.def signature against cudaTypedefs.h's
 * PFN types and nvrtc.h's and nvJitLink.h's prototypes (at compile time), and
 * runtime.h's tensor-map enums against cuda.h's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cuda.h>
#include <cudaTypedefs.h>
#include <nvrtc.h>
#include <nvJitLink.h>

#include "runtime/runtime.h"

/* The entry points' types: cuda.def's parameters with cuda.h's types must
 * give cudaTypedefs.h's PFN type of that version; nvrtc.def's, nvrtc.h's. */
#define X(name, version, params)                                                          \
    _Static_assert(__builtin_types_compatible_p(PFN_##name##_v##version, CUresult(*) params), \
                   #name " differs from cudaTypedefs.h");
#include "runtime/cuda.def"
#undef X
#define X(ret, name, params) \
    _Static_assert(_Generic(&name, ret(*) params: 1, default: 0), #name " differs from nvrtc.h");
#include "runtime/nvrtc.def"
#undef X
#define X(ret, name, params) \
    _Static_assert(_Generic(&name, ret(*) params: 1, default: 0), #name " differs from nvJitLink.h");
#include "runtime/nvjitlink.def"
#undef X

/* runtime.h's tensor-map enums carry cuda.h's values. */
#define X(name, value, bits, kind) \
    _Static_assert(RT_TMA_##name == (int)CU_TENSOR_MAP_DATA_TYPE_##name, #name);
RT_TMA_DTYPES(X)
#undef X
#define X(name, value, span) \
    _Static_assert(RT_TMA_SWIZZLE_##name == (int)CU_TENSOR_MAP_SWIZZLE_##name, #name);
RT_TMA_SWIZZLES(X)
#undef X
_Static_assert(RT_TMA_INTERLEAVE_32B == (int)CU_TENSOR_MAP_INTERLEAVE_32B, "interleave");
_Static_assert(RT_TMA_L2_256B == (int)CU_TENSOR_MAP_L2_PROMOTION_L2_256B, "l2 promotion");
_Static_assert(RT_TMA_OOB_NAN == (int)CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA, "oob fill");
_Static_assert(sizeof(RtTensorMap) == sizeof(CUtensorMap), "tensor map size");
_Static_assert(_Alignof(RtTensorMap) % _Alignof(CUtensorMap) == 0, "tensor map alignment");

extern const long long tx_cuda_api_ours[];
extern const size_t tx_cuda_api_ours_align;

static const long long theirs[] = {
#define F(expr) (long long)(expr),
#include "../tools/cuda_api_facts.def"
#undef F
};
static const char *const names[] = {
#define F(expr) #expr,
#include "../tools/cuda_api_facts.def"
#undef F
};

static void test_facts(void **state)
{
    (void)state;
    int wrong = 0;
    for (size_t i = 0; i < sizeof theirs / sizeof theirs[0]; i++) {
        if (tx_cuda_api_ours[i] != theirs[i]) {
            print_error("%s: cuda_api.h has %lld, the toolkit %lld\n", names[i],
                        tx_cuda_api_ours[i], theirs[i]);
            wrong++;
        }
    }
    assert_int_equal(wrong, 0);
}

/* A map aligned as cuda_api.h says is aligned as the driver wants. */
static void test_tensor_map_alignment(void **state)
{
    (void)state;
    assert_int_equal(tx_cuda_api_ours_align % _Alignof(CUtensorMap), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_facts),
        cmocka_unit_test(test_tensor_map_alignment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
