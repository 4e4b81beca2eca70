/* setup.c - toxic waste derivation and curve dispatch of the test-only setup. */
#include "zk/setup.h"

#include <errno.h>
#include <string.h>

int zka__bn254_setup(const zka_r1cs *cs, const zka_toxic *t, zka_pk *pk,
		     const zka_fixed_base_ops *fb, int threads, zka_setup_step_fn step, void *arg);
int zka__bls12_381_setup(const zka_r1cs *cs, const zka_toxic *t, zka_pk *pk,
			 const zka_fixed_base_ops *fb, int threads, zka_setup_step_fn step,
			 void *arg);

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

int zka_setup(const zka_r1cs *cs, const zka_toxic *t, zka_pk *pk, const zka_fixed_base_ops *fb,
	      int threads)
{
	return zka_setup_steps(cs, t, pk, fb, threads, NULL, NULL);
}

int zka_setup_steps(const zka_r1cs *cs, const zka_toxic *t, zka_pk *pk,
		    const zka_fixed_base_ops *fb, int threads, zka_setup_step_fn step, void *arg)
{
	switch (cs->curve->id) {
	case ZKA_BN254:
		return zka__bn254_setup(cs, t, pk, fb, threads, step, arg);
	case ZKA_BLS12_381:
		return zka__bls12_381_setup(cs, t, pk, fb, threads, step, arg);
	}
	return -EINVAL;
}
