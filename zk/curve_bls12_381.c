/* curve_bls12_381.c - BLS12-381: the Groth16 prover, verifier and byte-level curve operations,
 * instantiated from the generic templates (no arithmetic is written here). */
#include "zk/bls12_381.h"
#include "zk/groth16_impl.h"

#define CURVE bls12_381
#define CC BLS12_381
#include "zk/groth16_tmpl.h"
#include "zk/setup_tmpl.h"
#include "zk/abc_tmpl.h"

const zka_curve zka_curve_bls12_381 = {
	.id = ZKA_BLS12_381,
	.name = "bls12381",
	.pretty = "BLS12-381",
	.n8q = 48,
	.n8r = 32,
	.q = BLS12_381_FQ_P,
	.r = BLS12_381_FR_P,
	.fr_s = BLS12_381_FR_S,
	.fq_to_mont = bls12_381_fq_to_mont_b,
	.fq_from_mont = bls12_381_fq_from_mont_b,
	.fr_to_mont = bls12_381_fr_to_mont_b,
	.fr_from_mont = bls12_381_fr_from_mont_b,
	.g1_check = bls12_381_g1_check_b,
	.g2_check = bls12_381_g2_check_b,
	.g1_check_ref = bls12_381_g1_check_ref_b,
	.g2_check_ref = bls12_381_g2_check_ref_b,
};
