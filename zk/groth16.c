/* groth16.c - curve dispatch for the prover and verifier, and the lifetime of keys,
 * witnesses and randomness. */
#include "zk/groth16.h"
#include "zk/abc.h"
#include "zk/groth16_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

void zka_pk_free(zka_pk *pk)
{
	if (!pk)
		return;
	free(pk->alpha1);
	free(pk->beta1);
	free(pk->beta2);
	free(pk->gamma2);
	free(pk->delta1);
	free(pk->delta2);
	free(pk->IC);
	free(pk->A);
	free(pk->B1);
	free(pk->B2);
	free(pk->C);
	free(pk->H);
	free(pk->coefs);
	memset(pk, 0, sizeof *pk);
}

void zka_vk_free(zka_vk *vk)
{
	if (!vk)
		return;
	free(vk->alpha1);
	free(vk->beta2);
	free(vk->gamma2);
	free(vk->delta2);
	free(vk->IC);
	free(vk->alphabeta12);
	memset(vk, 0, sizeof *vk);
}

void zka_witness_free(zka_witness *w)
{
	if (!w)
		return;
	free(w->w);
	memset(w, 0, sizeof *w);
}

static uint8_t *dup(const void *p, size_t n)
{
	uint8_t *d = malloc(n);
	if (d)
		memcpy(d, p, n);
	return d;
}

int zka_vk_from_pk(zka_vk *vk, const zka_pk *pk)
{
	const zka_curve *c = pk->curve;
	memset(vk, 0, sizeof *vk);
	vk->curve = c;
	vk->n_public = pk->n_public;
	vk->alpha1 = dup(pk->alpha1, zka_g1_bytes(c));
	vk->beta2 = dup(pk->beta2, zka_g2_bytes(c));
	vk->gamma2 = dup(pk->gamma2, zka_g2_bytes(c));
	vk->delta2 = dup(pk->delta2, zka_g2_bytes(c));
	vk->IC = dup(pk->IC, zka_g1_bytes(c) * (pk->n_public + 1));
	if (!vk->alpha1 || !vk->beta2 || !vk->gamma2 || !vk->delta2 || !vk->IC) {
		zka_vk_free(vk);
		return -ENOMEM;
	}
	return 0;
}

int zka_rs_random(zka_rs *rs, const zka_curve *c)
{
	/* rejection sampling: 255 random bits (r has 254 or 255), retried while >= r */
	uint64_t *v[2] = {rs->r, rs->s};
	for (int i = 0; i < 2; i++) {
		do {
			size_t got = 0;
			while (got < 32) {
				ssize_t g = getrandom((char *)v[i] + got, 32 - got, 0);
				if (g < 0) {
					if (errno == EINTR)
						continue;
					return -errno;
				}
				got += (size_t)g;
			}
			v[i][3] &= 0x7fffffffffffffffull;
		} while (!zka_lt_modulus(v[i], c->r, 4));
	}
	return 0;
}

int zka_compute_abc(const zka_pk *pk, const zka_witness *w, uint64_t (*a)[4], uint64_t (*b)[4],
		    uint64_t (*c)[4], const zka_prove_opts *o)
{
	if (w->curve != pk->curve)
		return -EINVAL;
	switch (pk->curve->id) {
	case ZKA_BN254:
		return zka__bn254_compute_abc(pk, w, a, b, c, o);
	case ZKA_BLS12_381:
		return zka__bls12_381_compute_abc(pk, w, a, b, c, o);
	}
	return -EINVAL;
}

int zka_prove_abc(const zka_pk *pk, uint64_t (*a)[4], uint64_t (*b)[4], uint64_t (*c)[4],
		  const uint64_t (*w)[4], const zka_rs *rs, zka_proof *proof,
		  const zka_prove_opts *o, zka_prove_times *t)
{
	proof->curve = pk->curve;
	switch (pk->curve->id) {
	case ZKA_BN254:
		return zka__bn254_prove_abc(pk, a, b, c, w, rs, proof, o, t);
	case ZKA_BLS12_381:
		return zka__bls12_381_prove_abc(pk, a, b, c, w, rs, proof, o, t);
	}
	return -EINVAL;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int zka_prove(const zka_pk *pk, const zka_witness *w, const zka_rs *rs, zka_proof *proof,
	      const zka_prove_opts *o, zka_prove_times *t)
{
	size_t n = pk->domain_size;
	int ret = -ENOMEM;
	double t0 = now();
	uint64_t(*a)[4] = malloc(n * sizeof *a), (*b)[4] = malloc(n * sizeof *b),
	(*c)[4] = malloc(n * sizeof *c);
	if (!a || !b || !c)
		goto err;
	ret = zka_abc_compute_pk(pk, w, a, b, c, o); /* the CSR path (zk/abc.h) */
	if (ret)
		goto err;
	double t1 = now();
	ret = zka_prove_abc(pk, a, b, c, (const uint64_t(*)[4])w->w, rs, proof, o, t);
	if (t) {
		t->abc = t1 - t0;
		t->total = now() - t0;
	}
err:
	free(a);
	free(b);
	free(c);
	return ret;
}

/* snarkjs's pairing (ffjavascript's wasm final exponentiation) is e^k for the exact reduced
 * optimal ate pairing e computed here: k = 2x(6x^2 + 3x + 1) for BN254 (x = 4965661367192848881,
 * the Fuentes-Castaneda et al. multiple of the hard part) and k = 3 for BLS12-381; found by
 * comparing with ffjavascript's curve.pairing on the fixtures' keys (tests/fmt checks it). */
static const uint64_t ab_k_bn254[4] = {0x2e5d4e223ddedaf4ull, 0x1ea96b02d9d9e38dull,
				       0x3bec47df15e307c8ull, 0};
static const uint64_t ab_k_bls12_381[4] = {3, 0, 0, 0};

int zka_vk_alphabeta(zka_vk *vk)
{
	if (!vk->curve)
		return -EINVAL;
	switch (vk->curve->id) {
	case ZKA_BN254:
		return zka__bn254_alphabeta(vk, ab_k_bn254);
	case ZKA_BLS12_381:
		return zka__bls12_381_alphabeta(vk, ab_k_bls12_381);
	}
	return -EINVAL;
}

int zka_domain_root(const zka_curve *c, int k, uint32_t root, uint64_t out[4])
{
	if (k < 0 || (uint32_t)k > c->fr_s || root > ZKA_ROOT_GEN7 ||
	    (root == ZKA_ROOT_GEN7 && c->id != ZKA_BLS12_381))
		return -EINVAL;
	if (c->id == ZKA_BN254)
		zka__bn254_domain_root(k, root, out);
	else
		zka__bls12_381_domain_root(k, root, out);
	return 0;
}

int zka_verify(const zka_vk *vk, const uint64_t (*pub)[4], uint32_t n_pub, const zka_proof *proof,
	       const char **why)
{
	switch (vk->curve->id) {
	case ZKA_BN254:
		return zka__bn254_verify(vk, pub, n_pub, proof, why);
	case ZKA_BLS12_381:
		return zka__bls12_381_verify(vk, pub, n_pub, proof, why);
	}
	*why = "unknown curve";
	return -EINVAL;
}
