/* groth16.h - Groth16 proving keys, witnesses, proofs, the CPU prover and the verifier.
 *
 * Byte layouts (shared with the files and the GPU):
 *   - G1 affine: x, y; G2 affine: x.c0, x.c1, y.c0, y.c1; each coordinate n8q bytes,
 *     little-endian, Montgomery form; infinity is all zero bytes (the .zkey layout).
 *   - Fr scalars: 32 bytes little-endian; "std" = plain integer < r, "mont" = x*R mod r.
 */
#ifndef ZKA_GROTH16_H
#define ZKA_GROTH16_H
#include <stddef.h>
#include <stdint.h>

#include "zk/curve.h"

/* One entry of the A or B matrix (as in .zkey section 4). value: Montgomery form. */
typedef struct {
	uint32_t matrix; /* 0 = A, 1 = B */
	uint32_t row;	 /* constraint index (< domain_size) */
	uint32_t signal; /* witness index (< n_vars) */
	uint32_t pad;
	uint64_t value[4];
} zka_coef;

/* What a key's H points are (zka_pk.h_kind): */
/*   ZKA_H_COSET: snarkjs, H_i = [L'_{2i+1}(tau)/delta]_1, the odd points of the 2n-domain
 *   ZKA_H_MONOMIAL: bellperson, H_i = [tau^i t(tau)/delta]_1 for i < n-1, H_{n-1} = 0 */
#define ZKA_H_COSET 0
#define ZKA_H_MONOMIAL 1
/* Which roots of unity number the key's domain (zka_pk.root): row i is w^i for the */
#define ZKA_ROOT_SNARKJS 0 /* ffjavascript's root (curve_consts.h FR_ROOT) */
#define ZKA_ROOT_GEN7 1	   /* 7^((r-1)/2^S), blstrs's ROOT_OF_UNITY (bellperson, BLS12-381) */

/* A Groth16 proving key (what a .zkey holds), every buffer owned by the key. */
typedef struct zka_pk {
	const zka_curve *curve;
	uint32_t n_vars;      /* witness length, w[0] = 1 included */
	uint32_t n_public;    /* public signals (outputs + public inputs) */
	uint32_t domain_size; /* power of two >= constraints + n_public + 1 */
	uint32_t log_domain;
	uint8_t *alpha1, *beta1, *beta2, *gamma2, *delta1, *delta2;
	uint8_t *IC;	      /* n_public + 1 G1 points (verification key) */
	uint8_t *A, *B1, *B2; /* n_vars points each (G1, G1, G2) */
	uint8_t *C;	      /* n_vars - n_public - 1 G1 points: signals n_public+1.. */
	uint8_t *H;	      /* domain_size G1 points */
	uint32_t n_coefs;
	zka_coef *coefs;
	/* ZKA_H_* and ZKA_ROOT_*; zero (a snarkjs key) unless set. A coset H key always has
	 * the snarkjs root (its H points depend on it); a monomial one may have either. */
	uint32_t h_kind, root;
} zka_pk;

/* The key's five point sets as a prover reads them, A, B1, B2, C, H: their starts and byte
 * sizes (C holds no points for w[0] and the public signals). What a GPU upload copies, and
 * registers or pre-faults first. */
static inline void zka_pk_point_sets(const zka_pk *pk, const void *p[5], size_t len[5])
{
	size_t n1 = zka_g1_bytes(pk->curve), n2 = zka_g2_bytes(pk->curve), nv = pk->n_vars;
	size_t pre = (size_t)pk->n_public + 1, nc = nv > pre ? nv - pre : 0;
	p[0] = pk->A, p[1] = pk->B1, p[2] = pk->B2, p[3] = pk->C, p[4] = pk->H;
	len[0] = nv * n1, len[1] = nv * n1, len[2] = nv * n2, len[3] = nc * n1;
	len[4] = (size_t)pk->domain_size * n1;
}

/* A verification key (verification_key.json). */
typedef struct zka_vk {
	const zka_curve *curve;
	uint32_t n_public;
	uint8_t *alpha1, *beta2, *gamma2, *delta2;
	uint8_t *IC; /* n_public + 1 G1 points */
	/* Optional e(alpha1, beta2) as snarkjs's vk_alphabeta_12, or NULL: 12*n8q bytes,
	 * Montgomery, tower order c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1 (ffjavascript's
	 * Gt.toObject nesting). Owned by the key; zka_vk_free must free it. */
	uint8_t *alphabeta12;
} zka_vk;

/* A proof: affine Montgomery points. */
typedef struct zka_proof {
	const zka_curve *curve;
	uint8_t a[96];	/* G1: 2*n8q bytes used */
	uint8_t b[192]; /* G2: 4*n8q bytes used */
	uint8_t c[96];	/* G1 */
} zka_proof;

/* A witness (.wtns): n values of 32 bytes, standard form, w[0] = 1. */
typedef struct zka_witness {
	const zka_curve *curve;
	uint32_t n;
	uint64_t (*w)[4];
} zka_witness;

void zka_pk_free(zka_pk *pk);
void zka_vk_free(zka_vk *vk);
void zka_witness_free(zka_witness *w);

/* Builds the verification key of a proving key (copies alpha1, beta2, gamma2, delta2, IC). */
int zka_vk_from_pk(zka_vk *vk, const zka_pk *pk);
/* Sets vk->alphabeta12 to snarkjs's vk_alphabeta_12: the pairing of alpha1 and beta2 as
 * snarkjs computes it (Fq12, c0.c0.c0 first, the curve's internal form). 0, -EINVAL (degenerate points) or -ENOMEM. */
int zka_vk_alphabeta(zka_vk *vk);

/* Prover randomness: r and s as standard-form scalars < r. */
typedef struct {
	uint64_t r[4], s[4];
} zka_rs;

/* Fills rs with uniform scalars from getrandom(2). Returns 0 or -errno. */
int zka_rs_random(zka_rs *rs, const zka_curve *c);

/* Options for the CPU prover. */
typedef struct {
	int threads; /* 0: one per online CPU */
} zka_prove_opts;

/* Per-stage timings in seconds, filled by the provers when non-NULL. */
typedef struct {
	double abc, ntt, msm_g1, msm_g2, total;
} zka_prove_times;

/* Computes a = A w, b = B w and c = a .* b (all Montgomery, domain_size entries each; rows
 * past the constraints are zero) from the key's coefficients; w is standard form.
 * Returns 0 or -EINVAL (witness length differs from the key's n_vars).
 * This is the simple reference (one thread, the coefficient list in file order): the provers
 * and the pipeline use zk/abc.h's CSR path, which tests compare against this one. */
int zka_compute_abc(const zka_pk *pk, const zka_witness *w, uint64_t (*a)[4], uint64_t (*b)[4],
		    uint64_t (*c)[4], const zka_prove_opts *o);

/* Proves from precomputed a, b, c (Montgomery; overwritten as scratch) and the witness scalars
 * (standard form, n_vars entries). The rest of the CPU prover: H by NTTs on the coset, MSMs,
 * randomisation by rs. Returns 0 or -errno. */
int zka_prove_abc(const zka_pk *pk, uint64_t (*a)[4], uint64_t (*b)[4], uint64_t (*c)[4],
		  const uint64_t (*w)[4], const zka_rs *rs, zka_proof *proof,
		  const zka_prove_opts *o, zka_prove_times *t);

/* The whole CPU prover: a, b, c by the CSR path (zka_abc_compute_pk), then zka_prove_abc. */
int zka_prove(const zka_pk *pk, const zka_witness *w, const zka_rs *rs, zka_proof *proof,
	      const zka_prove_opts *o, zka_prove_times *t);

/* out = the primitive 2^k-th root of unity of root family root (ZKA_ROOT_*), Montgomery
 * limbs. 0, or -EINVAL (k above the curve's two-adicity, GEN7 off BLS12-381). */
int zka_domain_root(const zka_curve *c, int k, uint32_t root, uint64_t out[4]);

/* Verifies proof against vk and the public inputs (n_public standard-form scalars).
 * Returns 1 valid, 0 invalid, -EINVAL when inputs are malformed (public value >= r, point
 * not on the curve or not in the group, count mismatch); *why names the problem. */
int zka_verify(const zka_vk *vk, const uint64_t (*pub)[4], uint32_t n_pub, const zka_proof *proof,
	       const char **why);

#endif
