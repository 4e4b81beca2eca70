/* setup.h - a TEST-ONLY Groth16 setup with known toxic waste, producing keys in the snarkjs
 * layout, so that benchmarks can use circuits far larger than a local ceremony reaches.
 * Anyone who knows the toxic waste (the seed) can forge proofs for the key. */
#ifndef ZKA_SETUP_H
#define ZKA_SETUP_H
#include <stdint.h>

#include "zk/groth16.h"
#include "zk/r1cs.h"

/* The toxic waste, standard-form scalars in [1, r). */
typedef struct {
	uint64_t tau[4], alpha[4], beta[4], gamma[4], delta[4];
} zka_toxic;

/* Derives the toxic waste deterministically from seed (SplitMix64 stream, 512 bits reduced
 * mod r per value, zero never used). */
void zka_toxic_from_seed(zka_toxic *t, const zka_curve *c, uint64_t seed);

/* Optional accelerator for the batch fixed-base multiplications out[i] = k[i] * base (affine
 * Montgomery bytes in and out, standard-form scalars). Each returns 0 or -errno. */
typedef struct {
	void *ctx;
	int (*g1)(void *ctx, const zka_curve *c, const void *base, const uint64_t (*k)[4], size_t n,
		  void *out);
	int (*g2)(void *ctx, const zka_curve *c, const void *base, const uint64_t (*k)[4], size_t n,
		  void *out);
} zka_fixed_base_ops;

/* Progress of zka_setup: when set, called before each of its ZKA_SETUP_STEPS long steps with
 * the step's number (1-based) and what it computes (a process-wide hook for the CLI). */
#define ZKA_SETUP_STEPS 7
extern void (*zka_setup_progress)(int step, const char *what, uint64_t points);

/* Builds the proving key of cs with toxic waste t, exactly as snarkjs's groth16 setup lays it
 * out (domain = smallest power of two >= constraints + public + 1; A gets the public-input
 * rows; H = [L_{2i+1}(tau)/delta] over the 2n-domain). fb may be NULL (CPU threads).
 * Returns 0, -EINVAL (circuit too large for the field's two-adicity) or -ENOMEM. */
int zka_setup(const zka_r1cs *cs, const zka_toxic *t, zka_pk *pk, const zka_fixed_base_ops *fb,
	      int threads);

/* zka_setup for another kind of key (groth16.h's ZKA_H_* and ZKA_ROOT_*): with
 * ZKA_H_MONOMIAL, H_i = [tau^i (tau^n - 1)/delta]_1 for i < n-1 and H_{n-1} infinity
 * (bellperson's h query, one point longer); root numbers the domain's rows (ZKA_ROOT_GEN7:
 * bellperson's BLS12-381 domains). zka_setup is (ZKA_H_COSET, ZKA_ROOT_SNARKJS); a coset H
 * with another root, or GEN7 on BN254, is -EINVAL. The key records both kinds. */
int zka_setup_kind(const zka_r1cs *cs, const zka_toxic *t, zka_pk *pk,
		   const zka_fixed_base_ops *fb, int threads, uint32_t h_kind, uint32_t root);

#endif
