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

/* Builds the proving key of cs with toxic waste t, exactly as snarkjs's groth16 setup lays it
 * out (domain = smallest power of two >= constraints + public + 1; A gets the public-input
 * rows; H = [L_{2i+1}(tau)/delta] over the 2n-domain). fb may be NULL (CPU threads).
 * Returns 0, -EINVAL (circuit too large for the field's two-adicity) or -ENOMEM. */
int zka_setup(const zka_r1cs *cs, const zka_toxic *t, zka_pk *pk, const zka_fixed_base_ops *fb,
	      int threads);

/* Told of each step of a setup as it starts (name: what it computes, e.g. "B2 = [v(tau)]_2:
 * 65003 points of G2"), and once more with NULL when the setup ends. */
typedef void (*zka_setup_step_fn)(void *arg, const char *name);
/* zka_setup, with step (may be NULL) told of each step. */
int zka_setup_steps(const zka_r1cs *cs, const zka_toxic *t, zka_pk *pk,
		    const zka_fixed_base_ops *fb, int threads, zka_setup_step_fn step, void *arg);

#endif
