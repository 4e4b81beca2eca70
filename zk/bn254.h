/* bn254.h - BN254 (snarkjs "bn128"): q 254 bits, r 254 bits, D-type twist, xi = 9 + u. */
#ifndef ZKA_BN254_H
#define ZKA_BN254_H
#define CURVE bn254
#define CC BN254
#define CURVE_FQ_N 4
#define CURVE_DTWIST 1
#define CURVE_BN 1
#include "zk/curve_inst.h"
#undef CURVE
#undef CC
#undef CURVE_FQ_N
#undef CURVE_DTWIST
#undef CURVE_BN
#endif
