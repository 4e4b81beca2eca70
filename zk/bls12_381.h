/* bls12_381.h - BLS12-381 (snarkjs "bls12381"): q 381 bits, r 255 bits, M-type twist,
 * xi = 1 + u. */
#ifndef ZKA_BLS12_381_H
#define ZKA_BLS12_381_H
#define CURVE bls12_381
#define CC BLS12_381
#define CURVE_FQ_N 6
#define CURVE_DTWIST 0
#define CURVE_BN 0
#include "zk/curve_inst.h"
#undef CURVE
#undef CC
#undef CURVE_FQ_N
#undef CURVE_DTWIST
#undef CURVE_BN
#endif
