/* synthetic.h - random satisfiable circuits made in code, for benchmarks, the demo and tests
 * at sizes no circom ceremony reaches here. */
#ifndef ZKA_SYNTHETIC_H
#define ZKA_SYNTHETIC_H
#include <stdint.h>

#include "zk/groth16.h"
#include "zk/r1cs.h"

/* Builds a circuit of m constraints over curve c with n_pub public inputs, and a witness that
 * satisfies it. Like circom output, about a third of the constraints are boolean checks
 * (x * (x - 1) = 0), so the witness holds many 0/1 values; the rest are products of two
 * earlier signals with small linear combinations. Deterministic in seed.
 * Returns 0 or -ENOMEM / -EINVAL (m or n_pub too large). Free with zka_r1cs_free and
 * zka_witness_free. */
int zka_synthetic_circuit(const zka_curve *c, uint32_t m, uint32_t n_pub, uint64_t seed,
			  zka_r1cs *cs, zka_witness *w);

#endif
