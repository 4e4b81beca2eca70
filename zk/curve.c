/* curve.c - looking up the supported curves by modulus or by name. */
#include "zk/curve.h"

#include <string.h>
#include <strings.h>

static const zka_curve *const all[] = {&zka_curve_bn254, &zka_curve_bls12_381};

int zka_lt_modulus(const void *x, const uint64_t *m, uint32_t nlimbs)
{
	const unsigned char *b = x;
	for (int i = (int)nlimbs - 1; i >= 0; i--) {
		uint64_t v;
		memcpy(&v, b + 8 * i, 8);
		if (v != m[i])
			return v < m[i];
	}
	return 0;
}

const zka_curve *zka_curve_by_q(const void *q, uint32_t n8)
{
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (all[i]->n8q == n8 && !memcmp(all[i]->q, q, n8))
			return all[i];
	return NULL;
}

const zka_curve *zka_curve_by_r(const void *r, uint32_t n8)
{
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (all[i]->n8r == n8 && !memcmp(all[i]->r, r, n8))
			return all[i];
	return NULL;
}

const zka_curve *zka_curve_by_name(const char *name)
{
	static const struct {
		const char *alias;
		const zka_curve *c;
	} names[] = {{"bn128", &zka_curve_bn254},	  {"bn254", &zka_curve_bn254},
		     {"alt_bn128", &zka_curve_bn254},	  {"bls12381", &zka_curve_bls12_381},
		     {"bls12-381", &zka_curve_bls12_381}, {"bls12_381", &zka_curve_bls12_381}};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcasecmp(name, names[i].alias))
			return names[i].c;
	return NULL;
}
