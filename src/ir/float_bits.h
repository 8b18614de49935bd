/* Values of the float dtypes as their bits (float_bits.c). */
#ifndef TX_IR_FLOAT_BITS_H
#define TX_IR_FLOAT_BITS_H

#include <stdint.h>

#include "ir.h"

/* x rounded to float dtype t (nearest even; narrow formats overflow or
 * saturate as cvt.rn does). */
double ir_float_round(IrDType t, double x);
/* x rounded to t, as t's bits (in the low t.bits). */
uint64_t ir_float_to_bits(IrDType t, double x);
/* The value of t's bits. */
double ir_float_from_bits(IrDType t, uint64_t bits);
/* x converted to integer dtype t as cvt.rzi does: truncated, saturated to
 * t's range, NaN -> 0; a uint64 past INT64_MAX is returned as its bits. To
 * bool, x != 0 (NaN is true), as the generated (bool)x computes. */
int64_t ir_float_to_int(IrDType t, double x);

#endif
