/* setup.c - toxic waste derivation and curve dispatch of the test-only setup. */
#include "zk/setup.h"

#include <errno.h>
#include <string.h>

int zka__bn254_setup(const zka_r1cs *cs, const zka_toxic *t, zka_pk *pk,
		     const zka_fixed_base_ops *fb, int threads, uint32_t h_kind, uint32_t root);
int zka__bls12_381_setup(const zka_r1cs *cs, const zka_toxic *t, zka_pk *pk,
			 const zka_fixed_base_ops *fb, int threads, uint32_t h_kind, uint32_t root);

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* v = next value of the stream reduced below r by rejection (top bit cleared), never 0 */
static void draw(uint64_t v[4], const uint64_t *r, uint64_t *s)
{
	do {
		for (int i = 0; i < 4; i++)
			v[i] = splitmix64(s);
		v[3] &= 0x3fffffffffffffffull;
	} while (!zka_lt_modulus(v, r, 4) || (v[0] | v[1] | v[2] | v[3]) == 0);
}

void zka_toxic_from_seed(zka_toxic *t, const zka_curve *c, uint64_t seed)
{
	uint64_t s = seed;
	draw(t->tau, c->r, &s);
	draw(t->alpha, c->r, &s);
	draw(t->beta, c->r, &s);
	draw(t->gamma, c->r, &s);
	draw(t->delta, c->r, &s);
}

void (*zka_setup_progress)(int step, const char *what, uint64_t points);

int zka_setup(const zka_r1cs *cs, const zka_toxic *t, zka_pk *pk, const zka_fixed_base_ops *fb,
	      int threads)
{
	return zka_setup_kind(cs, t, pk, fb, threads, ZKA_H_COSET, ZKA_ROOT_SNARKJS);
}

int zka_setup_kind(const zka_r1cs *cs, const zka_toxic *t, zka_pk *pk, const zka_fixed_base_ops *fb,
		   int threads, uint32_t h_kind, uint32_t root)
{
	if (h_kind > ZKA_H_MONOMIAL || root > ZKA_ROOT_GEN7 ||
	    (h_kind == ZKA_H_COSET && root != ZKA_ROOT_SNARKJS) ||
	    (root == ZKA_ROOT_GEN7 && cs->curve->id != ZKA_BLS12_381))
		return -EINVAL;
	switch (cs->curve->id) {
	case ZKA_BN254:
		return zka__bn254_setup(cs, t, pk, fb, threads, h_kind, root);
	case ZKA_BLS12_381:
		return zka__bls12_381_setup(cs, t, pk, fb, threads, h_kind, root);
	}
	return -EINVAL;
}
