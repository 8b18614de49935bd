/* unit.cuda_api's view of src/runtime/cuda_api.h: the facts of
 * cuda_api_facts.def evaluated under tirx's own declarations (the test's
 * main file evaluates them under the toolkit's headers). */
#include <stddef.h>

#include "runtime/cuda_api.h"

const long long tx_cuda_api_ours[] = {
#define F(expr) (long long)(expr),
#include "cuda_api_facts.def"
#undef F
};
const size_t tx_cuda_api_ours_align = _Alignof(CUtensorMap);
