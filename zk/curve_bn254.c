/* curve_bn254.c - BN254: the Groth16 prover, verifier and byte-level curve operations,
 * instantiated from the generic templates (no arithmetic is written here). */
#include "zk/bn254.h"
#include "zk/groth16_impl.h"

#define CURVE bn254
#define CC BN254
#include "zk/groth16_tmpl.h"
#include "zk/setup_tmpl.h"
#include "zk/abc_tmpl.h"

const zka_curve zka_curve_bn254 = {
	.id = ZKA_BN254,
	.name = "bn128",
	.pretty = "BN254",
	.n8q = 32,
	.n8r = 32,
	.q = BN254_FQ_P,
	.r = BN254_FR_P,
	.fr_s = BN254_FR_S,
	.fq_to_mont = bn254_fq_to_mont_b,
	.fq_from_mont = bn254_fq_from_mont_b,
	.fr_to_mont = bn254_fr_to_mont_b,
	.fr_from_mont = bn254_fr_from_mont_b,
	.g1_check = bn254_g1_check_b,
	.g2_check = bn254_g2_check_b,
	.g1_check_ref = bn254_g1_check_ref_b,
	.g2_check_ref = bn254_g2_check_ref_b,
	.g2_check_batch = bn254_g2_check_batch_b,
};
