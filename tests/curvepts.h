/* curvepts.h - random points of BN254's and BLS12-381's curves and twists for the tests:
 * field sampling, square roots in Fq and Fq2 (q = 3 mod 4 for both curves) and points from a
 * random x with the cofactor NOT cleared (so off the order-r subgroup but for odds of 1/h).
 * The includer defines `static uint64_t rnd(void)` (its PRNG) and includes zk/bn254.h,
 * zk/bls12_381.h, gmp.h and CUnit (tests/testutil.h) first; links GMP. */
#ifndef ZKA_TESTS_CURVEPTS_H
#define ZKA_TESTS_CURVEPTS_H

/* a uniform value < m (n limbs, plain), by rejection */
static void rand_below(uint64_t *k, const uint64_t *m, int n)
{
	int top = n - 1;
	while (m[top] == 0)
		top--;
	uint64_t mask = ~0ull >> __builtin_clzll(m[top]);
	for (;;) {
		for (int i = 0; i < n; i++)
			k[i] = i < top ? rnd() : i == top ? rnd() & mask : 0;
		for (int i = n - 1; i >= 0; i--) {
			if (k[i] != m[i]) {
				if (k[i] < m[i])
					return;
				break;
			}
		}
	}
}

/* limbs of v into k (n limbs, zero padded) */
static void mpz_to_limbs(uint64_t *k, int n, const mpz_t v)
{
	memset(k, 0, 8 * (size_t)n);
	size_t cnt = 0;
	if (mpz_sizeinbase(v, 2) > 64 * (size_t)n)
		abort(); /* a harness error: the buffer is too small */
	mpz_export(k, &cnt, -1, 8, 0, 0, v);
}

/* Per curve: field sampling, square roots (q = 3 mod 4 for both curves) and sampling of
 * points of the curve and of the twist from a random x. */
#define CURVE_HELPERS(C, CCN, NQ)                                                                  \
	static uint64_t sqrt_exp_##C[NQ]; /* (q + 1) / 4 */                                        \
	static void init_##C(void)                                                                 \
	{                                                                                          \
		mpz_t q;                                                                           \
		mpz_init(q);                                                                       \
		mpz_import(q, NQ, -1, 8, 0, 0, CCN##_FQ_P);                                        \
		if (mpz_fdiv_ui(q, 4) != 3)                                                        \
			abort(); /* the square roots below need q = 3 mod 4 */                     \
		mpz_add_ui(q, q, 1);                                                               \
		mpz_fdiv_q_2exp(q, q, 2);                                                          \
		mpz_to_limbs(sqrt_exp_##C, NQ, q);                                                 \
		mpz_clear(q);                                                                      \
	}                                                                                          \
	static void rand_fq_##C(C##_fq_t *r)                                                       \
	{                                                                                          \
		rand_below(r->v, CCN##_FQ_P, NQ);                                                  \
		C##_fq_to_mont(r, r);                                                              \
	}                                                                                          \
	/* 1 and r = sqrt(a) when a is a square in Fq */                                           \
	static int sqrt_fq_##C(C##_fq_t *r, const C##_fq_t *a)                                     \
	{                                                                                          \
		C##_fq_t s, t;                                                                     \
		C##_fq_pow(&s, a, sqrt_exp_##C, NQ);                                               \
		C##_fq_sqr(&t, &s);                                                                \
		*r = s;                                                                            \
		return C##_fq_eq(&t, a);                                                           \
	}                                                                                          \
	/* 1 and r = sqrt(a) when a = a0 + a1 u is a square in Fq2: with s = sqrt(a0^2 + a1^2),    \
	 * r0^2 = (a0 +- s) / 2, r1 = a1 / (2 r0); checked by squaring */                          \
	static int sqrt_fq2_##C(C##_fq2_t *r, const C##_fq2_t *a)                                  \
	{                                                                                          \
		C##_fq_t n, s, t, h;                                                               \
		C##_fq_sqr(&n, &a->c0);                                                            \
		C##_fq_sqr(&t, &a->c1);                                                            \
		C##_fq_add(&n, &n, &t);                                                            \
		if (!sqrt_fq_##C(&s, &n))                                                          \
			return 0;                                                                  \
		C##_fq_from_u64(&h, 2);                                                            \
		C##_fq_inv(&h, &h);                                                                \
		for (int sign = 0; sign < 2; sign++) {                                             \
			if (sign)                                                                  \
				C##_fq_sub(&t, &a->c0, &s);                                        \
			else                                                                       \
				C##_fq_add(&t, &a->c0, &s);                                        \
			C##_fq_mul(&t, &t, &h);                                                    \
			if (!sqrt_fq_##C(&r->c0, &t) || C##_fq_is_zero(&r->c0))                    \
				continue;                                                          \
			C##_fq_dbl(&t, &r->c0);                                                    \
			C##_fq_inv(&t, &t);                                                        \
			C##_fq_mul(&r->c1, &a->c1, &t);                                            \
			C##_fq2_t c;                                                               \
			C##_fq2_sqr(&c, r);                                                        \
			if (C##_fq2_eq(&c, a))                                                     \
				return 1;                                                          \
		}                                                                                  \
		return 0; /* a square with r0 = 0 (a real negative) is skipped: resample */        \
	}                                                                                          \
	/* a point of y^2 = x^3 + b from random x (cofactor not cleared) */                        \
	static __attribute__((unused)) void rand_curve_g1_##C(C##_g1_aff *p)                       \
	{                                                                                          \
		C##_fq_t b, t;                                                                     \
		memcpy(b.v, CCN##_G1_B, sizeof b.v);                                               \
		do {                                                                               \
			rand_fq_##C(&p->x);                                                        \
			C##_fq_sqr(&t, &p->x);                                                     \
			C##_fq_mul(&t, &t, &p->x);                                                 \
			C##_fq_add(&t, &t, &b);                                                    \
		} while (!sqrt_fq_##C(&p->y, &t));                                                 \
		CU_ASSERT_FATAL(C##_g1_aff_on_curve(p) && !C##_g1_aff_is_inf(p));                  \
	}                                                                                          \
	/* a point of the twist y^2 = x^3 + b' over Fq2 from random x (cofactor not cleared) */    \
	static void rand_curve_g2_##C(C##_g2_aff *p)                                               \
	{                                                                                          \
		C##_fq2_t b, t;                                                                    \
		memcpy(b.c0.v, CCN##_G2_B0, sizeof b.c0.v);                                        \
		memcpy(b.c1.v, CCN##_G2_B1, sizeof b.c1.v);                                        \
		do {                                                                               \
			rand_fq_##C(&p->x.c0);                                                     \
			rand_fq_##C(&p->x.c1);                                                     \
			C##_fq2_sqr(&t, &p->x);                                                    \
			C##_fq2_mul(&t, &t, &p->x);                                                \
			C##_fq2_add(&t, &t, &b);                                                   \
		} while (!sqrt_fq2_##C(&p->y, &t));                                                \
		CU_ASSERT_FATAL(C##_g2_aff_on_curve(p) && !C##_g2_aff_is_inf(p));                  \
	}
CURVE_HELPERS(bn254, BN254, 4)
CURVE_HELPERS(bls12_381, BLS12_381, 6)

#endif
