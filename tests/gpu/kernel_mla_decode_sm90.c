/* GPU test of kernels/mla_decode_sm90.tirx (sm_90a): FlashMLA's dense
 * decode (metadata, split-KV main kernel, combine) against float64, the
 * cases and checks of mla_decode_test.h; with TIRX_MLA_BENCH=1 it also
 * times the decode call. Skips (77) without a GPU or on a device other
 * than sm_90. Simulated (sim.kernel_mla_decode_sm90) on a machine of 8 SMs
 * with short requests. */
#include "mla_decode_test.h"

int main(void)
{
    return mla_decode_test(OP_SM90_ONLY, "the kernel needs sm_90a", "kernels/mla_decode_sm90.tirx",
                           OP_SIZE(132, 8));
}
