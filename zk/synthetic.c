/* synthetic.c - see synthetic.h. */
#include "zk/synthetic.h"

#include "zk/bls12_381.h"
#include "zk/bn254.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Emits one term into matrix mx of constraint row (terms are appended in row order). */
static void term(zka_r1cs_matrix *mx, uint32_t sig, const uint64_t v[4])
{
	uint64_t t = mx->n_terms++;
	mx->signal[t] = sig;
	memcpy(mx->value[t], v, 32);
}

#define SYNTH(C)                                                                                   \
	static int synth_##C(uint32_t m, uint32_t npub, uint64_t *seed, zka_r1cs *cs,              \
			     zka_witness *w)                                                       \
	{                                                                                          \
		uint32_t nw = 1 + npub + m;                                                        \
		C##_fr_t *v = malloc((size_t)nw * sizeof *v);                                      \
		if (!v)                                                                            \
			return -ENOMEM;                                                            \
		C##_fr_t one, mone;                                                                \
		C##_fr_one(&one);                                                                  \
		C##_fr_neg(&mone, &one);                                                           \
		v[0] = one;                                                                        \
		for (uint32_t i = 1; i <= npub; i++)                                               \
			C##_fr_from_u64(&v[i], next(seed) >> 1);                                   \
		for (uint32_t i = 0; i < m; i++) {                                                 \
			uint32_t out = 1 + npub + i;                                               \
			zka_r1cs_matrix *A = &cs->m[0], *B = &cs->m[1], *Cm = &cs->m[2];           \
			A->start[i] = A->n_terms;                                                  \
			B->start[i] = B->n_terms;                                                  \
			Cm->start[i] = Cm->n_terms;                                                \
			uint64_t r = next(seed);                                                   \
			if (r % 3 == 0) { /* boolean: out * (out - 1) = 0 */                       \
				if (r & 8)                                                         \
					v[out] = one;                                              \
				else                                                               \
					C##_fr_zero(&v[out]);                                      \
				term(A, out, one.v);                                               \
				term(B, out, one.v);                                               \
				term(B, 0, mone.v);                                                \
			} else { /* (x + k y) * z = out */                                         \
				uint32_t x = (uint32_t)(next(seed) % out),                         \
					 y = (uint32_t)(next(seed) % out),                         \
					 z = (uint32_t)(next(seed) % out);                         \
				C##_fr_t k, a, t;                                                  \
				C##_fr_from_u64(&k, (next(seed) & 0xffff) + 2);                    \
				C##_fr_mul(&t, &k, &v[y]);                                         \
				C##_fr_add(&a, &v[x], &t);                                         \
				C##_fr_mul(&v[out], &a, &v[z]);                                    \
				term(A, x, one.v);                                                 \
				if (y != x)                                                        \
					term(A, y, k.v);                                           \
				else                                                               \
					C##_fr_add((C##_fr_t *)A->value[A->n_terms - 1],           \
						   (C##_fr_t *)A->value[A->n_terms - 1], &k);      \
				term(B, z, one.v);                                                 \
				term(Cm, out, one.v);                                              \
			}                                                                          \
		}                                                                                  \
		for (int j = 0; j < 3; j++)                                                        \
			cs->m[j].start[m] = cs->m[j].n_terms;                                      \
		for (uint32_t i = 0; i < nw; i++) {                                                \
			C##_fr_from_mont(&v[i], &v[i]);                                            \
			memcpy(w->w[i], v[i].v, 32);                                               \
		}                                                                                  \
		free(v);                                                                           \
		return 0;                                                                          \
	}
SYNTH(bn254)
SYNTH(bls12_381)

int zka_synthetic_circuit(const zka_curve *c, uint32_t m, uint32_t n_pub, uint64_t seed,
			  zka_r1cs *cs, zka_witness *w)
{
	memset(cs, 0, sizeof *cs);
	memset(w, 0, sizeof *w);
	if (m == 0 || m > (1u << 28) || n_pub > 1024)
		return -EINVAL;
	uint32_t nw = 1 + n_pub + m;
	cs->curve = c;
	cs->n_wires = nw;
	cs->n_pub_in = n_pub;
	cs->n_labels = nw;
	cs->n_constraints = m;
	size_t cap[3] = {2 * (size_t)m, 2 * (size_t)m, m};
	for (int j = 0; j < 3; j++) {
		cs->m[j].start = malloc(((size_t)m + 1) * sizeof *cs->m[j].start);
		cs->m[j].signal = malloc(cap[j] * sizeof *cs->m[j].signal);
		cs->m[j].value = malloc(cap[j] * sizeof *cs->m[j].value);
		if (!cs->m[j].start || !cs->m[j].signal || !cs->m[j].value)
			goto nomem;
	}
	w->curve = c;
	w->n = nw;
	w->w = malloc((size_t)nw * sizeof *w->w);
	if (!w->w)
		goto nomem;
	int r = c->id == ZKA_BN254 ? synth_bn254(m, n_pub, &seed, cs, w)
				   : synth_bls12_381(m, n_pub, &seed, cs, w);
	if (r)
		goto fail;
	return 0;
nomem:
	r = -ENOMEM;
fail:
	zka_r1cs_free(cs);
	zka_witness_free(w);
	return r;
}
