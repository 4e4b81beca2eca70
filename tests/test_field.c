/* test_field.c - the four prime fields against GMP, on fresh random values every run;
 * the extension tower's field laws; Montgomery byte layout. */
#include "tests/testutil.h"
#include "zk/bls12_381.h"
#include "zk/bn254.h"

#include <gmp.h>

#define ROUNDS 2000

/* products checked on the mulx/adx path (0 on a CPU without BMI2 + ADX) */
static long n_adx;
static long n_invvt; /* inv_vartime results checked against GMP */
static long n_bgcd;  /* inv_bgcd results checked against GMP */

/* x = random value < p in GMP, also as limbs */
static void rand_mod(mpz_t x, const uint64_t *p, int n, uint64_t *limbs)
{
	mpz_t m;
	uint64_t buf[8];
	mpz_init(m);
	mpz_import(m, (size_t)n, -1, 8, 0, 0, p);
	zka_test_random(buf, sizeof buf);
	mpz_import(x, 8, -1, 8, 0, 0, buf);
	mpz_mod(x, x, m);
	memset(limbs, 0, (size_t)n * 8);
	mpz_export(limbs, NULL, -1, 8, 0, 0, x);
	mpz_clear(m);
}

static void to_mpz(mpz_t x, const uint64_t *limbs, int n)
{
	mpz_import(x, (size_t)n, -1, 8, 0, 0, limbs);
}

/* Asserts that std (n limbs, standard form) is a^-1 mod p (0 for a = 0); counts the nonzero
 * cases in *count when count is not NULL. e and g are scratch. */
static void check_inv(const uint64_t *std, int n, const mpz_t a, const mpz_t p, mpz_t e, mpz_t g,
		      long *count)
{
	to_mpz(g, std, n);
	if (mpz_sgn(a) == 0) {
		CU_ASSERT_FATAL(mpz_sgn(g) == 0);
		return;
	}
	CU_ASSERT_FATAL(mpz_invert(e, a, p) != 0);
	CU_ASSERT_FATAL(mpz_cmp(e, g) == 0);
	if (count)
		(*count)++;
}

/* One test per field: every operation against GMP after leaving Montgomery form. */
#define FIELD_TEST(F, N, PCONST)                                                                   \
	static void test_##F(void)                                                                 \
	{                                                                                          \
		mpz_t a, b, p, e, g;                                                               \
		mpz_inits(a, b, p, e, g, NULL);                                                    \
		to_mpz(p, PCONST, N);                                                              \
		for (int i = 0; i < ROUNDS; i++) {                                                 \
			F##_t x, y, z, o;                                                          \
			rand_mod(a, PCONST, N, x.v);                                               \
			rand_mod(b, PCONST, N, y.v);                                               \
			if (i == 0)                                                                \
				mpz_set_ui(b, 0), memset(y.v, 0, sizeof y.v);                      \
			if (i == 1)                                                                \
				mpz_sub_ui(a, p, 1), mpz_export(x.v, NULL, -1, 8, 0, 0, a);        \
			F##_to_mont(&x, &x);                                                       \
			F##_to_mont(&y, &y);                                                       \
			CU_ASSERT_FATAL(F##_is_canonical(&x) && F##_is_canonical(&y));             \
			/* mul */                                                                  \
			F##_mul(&z, &x, &y);                                                       \
			F##_from_mont(&o, &z);                                                     \
			to_mpz(g, o.v, N);                                                         \
			mpz_mul(e, a, b);                                                          \
			mpz_mod(e, e, p);                                                          \
			CU_ASSERT_FATAL(mpz_cmp(e, g) == 0);                                       \
			for (int impl = 0; impl < 2; impl++) { /* each mul implementation */       \
				F##_t c = x, d = y;                                                \
				if (!F##_mul_impl(&z, &x, &y, impl))                               \
					continue;                                                  \
				CU_ASSERT_FATAL(F##_is_canonical(&z));                             \
				F##_from_mont(&o, &z);                                             \
				to_mpz(g, o.v, N);                                                 \
				CU_ASSERT_FATAL(mpz_cmp(e, g) == 0);                               \
				F##_mul_impl(&c, &c, &d, impl); /* aliased output */               \
				CU_ASSERT_FATAL(F##_eq(&c, &z));                                   \
				F##_mul_impl(&c, &x, &x, impl); /* square vs GMP */                \
				F##_from_mont(&o, &c);                                             \
				to_mpz(g, o.v, N);                                                 \
				mpz_mul(e, a, a);                                                  \
				mpz_mod(e, e, p);                                                  \
				CU_ASSERT_FATAL(mpz_cmp(e, g) == 0);                               \
				mpz_mul(e, a, b);                                                  \
				mpz_mod(e, e, p);                                                  \
				if (impl == 1)                                                     \
					n_adx++;                                                   \
			}                                                                          \
			/* add */                                                                  \
			F##_add(&z, &x, &y);                                                       \
			F##_from_mont(&o, &z);                                                     \
			to_mpz(g, o.v, N);                                                         \
			mpz_add(e, a, b);                                                          \
			mpz_mod(e, e, p);                                                          \
			CU_ASSERT_FATAL(mpz_cmp(e, g) == 0);                                       \
			/* sub */                                                                  \
			F##_sub(&z, &x, &y);                                                       \
			F##_from_mont(&o, &z);                                                     \
			to_mpz(g, o.v, N);                                                         \
			mpz_sub(e, a, b);                                                          \
			mpz_mod(e, e, p);                                                          \
			CU_ASSERT_FATAL(mpz_cmp(e, g) == 0);                                       \
			/* neg, sqr */                                                             \
			F##_neg(&z, &x);                                                           \
			F##_from_mont(&o, &z);                                                     \
			to_mpz(g, o.v, N);                                                         \
			mpz_neg(e, a);                                                             \
			mpz_mod(e, e, p);                                                          \
			CU_ASSERT_FATAL(mpz_cmp(e, g) == 0);                                       \
			F##_sqr(&z, &x);                                                           \
			F##_from_mont(&o, &z);                                                     \
			to_mpz(g, o.v, N);                                                         \
			mpz_mul(e, a, a);                                                          \
			mpz_mod(e, e, p);                                                          \
			CU_ASSERT_FATAL(mpz_cmp(e, g) == 0);                                       \
			/* inv (a few: each is a full exponentiation) */                           \
			if (i < 50 && mpz_sgn(a) != 0) {                                           \
				F##_inv(&z, &x);                                                   \
				F##_from_mont(&o, &z);                                             \
				to_mpz(g, o.v, N);                                                 \
				CU_ASSERT_FATAL(mpz_invert(e, a, p) != 0);                         \
				CU_ASSERT_FATAL(mpz_cmp(e, g) == 0);                               \
			}                                                                          \
			/* inv_vartime (inv_bgcd): every round (cheap; p-1 in round 1) */          \
			F##_inv_vartime(&z, &x);                                                   \
			F##_from_mont(&o, &z);                                                     \
			check_inv(o.v, N, a, p, e, g, &n_invvt);                                   \
			F##_inv_vartime(&z, &z); /* twice: back to x (aliased output) */           \
			CU_ASSERT_FATAL(F##_eq(&z, &x));                                           \
			/* the binary extended Euclid (the previous inv_vartime, inv_bgcd's        \
			 * fallback) */                                                            \
			F##_inv_euclid(&z, &x);                                                    \
			F##_from_mont(&o, &z);                                                     \
			check_inv(o.v, N, a, p, e, g, NULL);                                       \
			/* the binary GCD on approximations: every round, against GMP, and no      \
			 * fallback */                                                             \
			CU_ASSERT_FATAL(F##_inv_bgcd(&z, &x) == 0);                                \
			F##_from_mont(&o, &z);                                                     \
			check_inv(o.v, N, a, p, e, g, &n_bgcd);                                    \
		}                                                                                  \
		/* inv_bgcd on the values whose stand-ins are poorest: small, near p, powers of 2, \
		 * all-ones limbs (as Montgomery limbs, so each is some element) */                \
		for (int j = 0; j < 64 * N; j++) {                                                 \
			F##_t w, z, one;                                                           \
			memset(&w, 0, sizeof w);                                                   \
			if (j < 3 * 64)                                                            \
				w.v[j / 64] = (uint64_t)1 << (j % 64); /* 2^j */                   \
			else {                                                                     \
				memcpy(w.v, PCONST, sizeof w.v); /* p - (j - 191) */               \
				w.v[0] -= (uint64_t)(j - 191);                                     \
			}                                                                          \
			if (j == 64 * N - 1) /* the all-ones of the low limbs, below p */          \
				for (int l = 0; l < N - 1; l++)                                    \
					w.v[l] = ~0ull;                                            \
			if (j == 64 * N - 1)                                                       \
				w.v[N - 1] = 0;                                                    \
			CU_ASSERT_FATAL(F##_inv_bgcd(&z, &w) == 0);                                \
			F##_mul(&z, &z, &w);                                                       \
			F##_one(&one);                                                             \
			CU_ASSERT_FATAL(F##_eq(&z, &one));                                         \
			n_bgcd++;                                                                  \
		}                                                                                  \
		{                                                                                  \
			F##_t one, zero, t;                                                        \
			F##_one(&one);                                                             \
			F##_zero(&zero);                                                           \
			F##_inv_vartime(&t, &one);                                                 \
			CU_ASSERT_FATAL(F##_eq(&t, &one));                                         \
			F##_inv_vartime(&t, &zero); /* 0 -> 0, like F##_inv */                     \
			CU_ASSERT_FATAL(F##_is_zero(&t));                                          \
		}                                                                                  \
		/* batch inversion agrees with single inversions, zeros stay zero */               \
		F##_t v[9], s[9], w[9];                                                            \
		for (int i = 0; i < 9; i++) {                                                      \
			rand_mod(a, PCONST, N, v[i].v);                                            \
			if (i == 4)                                                                \
				F##_zero(&v[i]);                                                   \
			F##_inv(&w[i], &v[i]);                                                     \
		}                                                                                  \
		F##_batch_inv(v, s, 9);                                                            \
		for (int i = 0; i < 9; i++)                                                        \
			CU_ASSERT(F##_eq(&v[i], &w[i]));                                           \
		mpz_clears(a, b, p, e, g, NULL);                                                   \
	}

FIELD_TEST(bn254_fq, 4, BN254_FQ_P)
FIELD_TEST(bn254_fr, 4, BN254_FR_P)
FIELD_TEST(bls12_381_fq, 6, BLS12_381_FQ_P)
FIELD_TEST(bls12_381_fr, 4, BLS12_381_FR_P)

/* Random element of Fq12 with every coefficient fresh. */
#define RAND12(C, x)                                                                               \
	do {                                                                                       \
		mpz_t t_;                                                                          \
		mpz_init(t_);                                                                      \
		C##_fq_t *c_ = (C##_fq_t *)&(x);                                                   \
		for (int k_ = 0; k_ < 12; k_++)                                                    \
			rand_mod(t_, C##_FQ_P_, (int)(sizeof(C##_fq_t) / 8), c_[k_].v);            \
		mpz_clear(t_);                                                                     \
	} while (0)
#define bn254_FQ_P_ BN254_FQ_P
#define bls12_381_FQ_P_ BLS12_381_FQ_P

/* Ring and field laws of Fq12 (so of Fq2 and Fq6 below it): associativity, commutativity,
 * distributivity, inverses, conjugation as the p^6 Frobenius on products. */
#define TOWER_TEST(C)                                                                              \
	static void test_tower_##C(void)                                                           \
	{                                                                                          \
		for (int i = 0; i < 20; i++) {                                                     \
			C##_fq12_t a, b, c, x, y, z, one;                                          \
			RAND12(C, a);                                                              \
			RAND12(C, b);                                                              \
			RAND12(C, c);                                                              \
			C##_fq12_one(&one);                                                        \
			C##_fq12_mul(&x, &a, &b);                                                  \
			C##_fq12_mul(&y, &b, &a);                                                  \
			CU_ASSERT_FATAL(C##_fq12_eq(&x, &y));                                      \
			C##_fq12_mul(&x, &x, &c);                                                  \
			C##_fq12_mul(&y, &b, &c);                                                  \
			C##_fq12_mul(&y, &a, &y);                                                  \
			CU_ASSERT_FATAL(C##_fq12_eq(&x, &y));                                      \
			C##_fq12_add(&x, &b, &c);                                                  \
			C##_fq12_mul(&x, &a, &x);                                                  \
			C##_fq12_mul(&y, &a, &b);                                                  \
			C##_fq12_mul(&z, &a, &c);                                                  \
			C##_fq12_add(&y, &y, &z);                                                  \
			CU_ASSERT_FATAL(C##_fq12_eq(&x, &y));                                      \
			C##_fq12_inv(&x, &a);                                                      \
			C##_fq12_mul(&x, &x, &a);                                                  \
			CU_ASSERT_FATAL(C##_fq12_eq(&x, &one));                                    \
			C##_fq12_conj(&x, &a);                                                     \
			C##_fq12_conj(&y, &b);                                                     \
			C##_fq12_mul(&x, &x, &y);                                                  \
			C##_fq12_mul(&z, &a, &b);                                                  \
			C##_fq12_conj(&z, &z);                                                     \
			CU_ASSERT_FATAL(C##_fq12_eq(&x, &z));                                      \
			C##_fq12_sub(&x, &a, &a);                                                  \
			CU_ASSERT_FATAL(C##_fq12_is_zero(&x));                                     \
		}                                                                                  \
	}
TOWER_TEST(bn254)
TOWER_TEST(bls12_381)

/* The Montgomery bytes the GPU reads: limb i holds bits 64i..64i+63, and 1 is R mod p. */
static void test_layout(void)
{
	bn254_fr_t one, x;
	bn254_fr_one(&one);
	bn254_fr_from_u64(&x, 1);
	CU_ASSERT(bn254_fr_eq(&one, &x));
	bn254_fr_from_mont(&x, &x);
	CU_ASSERT(x.v[0] == 1 && x.v[1] == 0 && x.v[2] == 0 && x.v[3] == 0);
	CU_ASSERT(sizeof(bls12_381_fq_t) == 48 && sizeof(bn254_fq_t) == 32);
	CU_ASSERT(sizeof(bls12_381_g2_aff) == 192 && sizeof(bn254_g1_aff) == 64);
}

int main(void)
{
	static const zka_test_case cases[] = {{"bn254 Fq vs GMP", test_bn254_fq},
					      {"bn254 Fr vs GMP", test_bn254_fr},
					      {"bls12-381 Fq vs GMP", test_bls12_381_fq},
					      {"bls12-381 Fr vs GMP", test_bls12_381_fr},
					      {"bn254 Fq12 laws", test_tower_bn254},
					      {"bls12-381 Fq12 laws", test_tower_bls12_381},
					      {"Montgomery byte layout", test_layout},
					      {NULL, NULL}};
	zka_test_suite("field", cases);
	int rc = zka_test_run();
	printf("field: mulx/adx multiplication checked against GMP on %ld inputs%s\n", n_adx,
	       n_adx ? "" : " (CPU without BMI2 + ADX: portable path only)");
	printf("field: variable-time inversion (inv_vartime) checked against GMP on %ld inputs, "
	       "inv_bgcd on %ld\n",
	       n_invvt, n_bgcd);
	return rc;
}
