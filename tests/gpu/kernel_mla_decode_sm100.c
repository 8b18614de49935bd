/* GPU test of kernels/mla_decode_sm100.tirx (sm_100a): FlashMLA's dense
 * decode on tcgen05 (metadata, split-KV main kernel, combine) against
 * float64, the cases and checks of mla_decode_test.h (those of the sm_90a
 * kernel: the two share their interface); with TIRX_MLA_BENCH=1 it also
 * times the decode call. Skips (77) without a GPU or on a device other
 * than sm_100. No Blackwell GPU has run it; sim.kernel_mla_decode_sm100
 * runs it in the simulator on a machine of 8 SMs with short requests. */
#include "mla_decode_test.h"

int main(void)
{
    return mla_decode_test(OP_SM100_ONLY, "the kernel needs sm_100a",
                           "kernels/mla_decode_sm100.tirx", OP_SIZE(148, 8));
}
