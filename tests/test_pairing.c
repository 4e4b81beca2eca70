/* test_pairing.c - the fast pairing (zk/pairing_tmpl.h, CURVE_pair_*) against the slow reference
 * (zk/pairing_ref_tmpl.h, CURVE_pairref_*) on both curves: exact equality of pairings and final
 * exponentiations on fresh random inputs, bilinearity, non-degeneracy, product checks on valid
 * and invalid products (also against the reference), infinity inputs, and the building blocks
 * (Frobenius constants against exponentiation by q, sparse products, cyclotomic squaring).
 * Every run draws fresh random values. */
#include "tests/testutil.h"
#include "zk/bls12_381.h"
#include "zk/bn254.h"

#include <string.h>

/* a fresh scalar < r (plain limbs), nonzero */
static void rand_scalar(uint64_t k[4], const uint64_t *r)
{
	for (;;) {
		zka_test_random(k, 32);
		k[3] &= 0x7fffffffffffffffull;
		int lt = 0;
		for (int i = 3; i >= 0; i--) {
			if (k[i] != r[i]) {
				lt = k[i] < r[i];
				break;
			}
		}
		if (lt && (k[0] | k[1] | k[2] | k[3]))
			return;
	}
}

#define PAIRING_TESTS(C, CCN)                                                                      \
	/* a fresh field element of Fq (Montgomery form) */                                       \
	static void rand_fq_##C(C##_fq_t *a)                                                       \
	{                                                                                          \
		do {                                                                               \
			zka_test_random(a->v, sizeof a->v);                                        \
			uint64_t top = CCN##_FQ_P[sizeof a->v / 8 - 1];                            \
			while (top & (top + 1))                                                    \
				top |= top >> 1; /* all ones up to the top bit of q */             \
			a->v[sizeof a->v / 8 - 1] &= top;                                          \
		} while (!C##_fq_is_canonical(a));                                                 \
	}                                                                                          \
	static void rand_fq2_##C(C##_fq2_t *a)                                                     \
	{                                                                                          \
		rand_fq_##C(&a->c0);                                                               \
		rand_fq_##C(&a->c1);                                                               \
	}                                                                                          \
	static void rand_fq12_##C(C##_fq12_t *a)                                                   \
	{                                                                                          \
		rand_fq2_##C(&a->c0.c0);                                                           \
		rand_fq2_##C(&a->c0.c1);                                                           \
		rand_fq2_##C(&a->c0.c2);                                                           \
		rand_fq2_##C(&a->c1.c0);                                                           \
		rand_fq2_##C(&a->c1.c1);                                                           \
		rand_fq2_##C(&a->c1.c2);                                                           \
	}                                                                                          \
	/* k P for the generator P and a fresh scalar k (returned in k) */                        \
	static void rand_g1_##C(C##_g1_aff *p, uint64_t k[4])                                      \
	{                                                                                          \
		C##_g1_jac j;                                                                      \
		rand_scalar(k, CCN##_R_PLAIN);                                                     \
		C##_g1_gen(p);                                                                     \
		C##_g1_from_aff(&j, p);                                                            \
		C##_g1_mul(&j, &j, k, 4);                                                          \
		C##_g1_to_aff(p, &j);                                                              \
	}                                                                                          \
	static void rand_g2_##C(C##_g2_aff *q, uint64_t k[4])                                      \
	{                                                                                          \
		C##_g2_jac j;                                                                      \
		rand_scalar(k, CCN##_R_PLAIN);                                                     \
		C##_g2_gen(q);                                                                     \
		C##_g2_from_aff(&j, q);                                                            \
		C##_g2_mul(&j, &j, k, 4);                                                          \
		C##_g2_to_aff(q, &j);                                                              \
	}                                                                                          \
	/* r = a * b mod r (plain limbs) */                                                       \
	static void scalar_mul_##C(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])        \
	{                                                                                          \
		C##_fr_t fa, fb;                                                                   \
		memcpy(fa.v, a, 32);                                                               \
		memcpy(fb.v, b, 32);                                                               \
		C##_fr_to_mont(&fa, &fa);                                                          \
		C##_fr_to_mont(&fb, &fb);                                                          \
		C##_fr_mul(&fa, &fa, &fb);                                                         \
		C##_fr_from_mont(&fa, &fa);                                                        \
		memcpy(r, fa.v, 32);                                                               \
	}                                                                                          \
	/* an element of the cyclotomic subgroup: a^((q^6-1)(q^2+1)) for a random a */            \
	static void rand_cyc_##C(C##_fq12_t *r)                                                    \
	{                                                                                          \
		C##_fq12_t a, b;                                                                   \
		rand_fq12_##C(&a);                                                                 \
		C##_fq12_conj(r, &a);                                                              \
		C##_fq12_inv(&b, &a);                                                              \
		C##_fq12_mul(r, r, &b);                                                            \
		C##_pair_frob12(&b, r, 2);                                                         \
		C##_fq12_mul(r, r, &b);                                                            \
	}                                                                                          \
                                                                                                   \
	/* frob12(a, i) == a^(q^i) */             \
	static void test_frobenius_##C(void)                                                       \
	{                                                                                          \
		int nq = (int)(sizeof CCN##_FQ_P / sizeof CCN##_FQ_P[0]);                          \
		for (int rep = 0; rep < 1; rep++) {                                                \
			C##_fq12_t a, p, f;                                                        \
			rand_fq12_##C(&a);                                                         \
			p = a;                                                                     \
			for (int i = 1; i <= 3; i++) {                                             \
				C##_fq12_pow(&p, &p, CCN##_FQ_P, nq);                              \
				C##_pair_frob12(&f, &a, i);                                        \
				CU_ASSERT_FATAL(C##_fq12_eq(&f, &p));                              \
			}                                                                          \
		}                                                                                  \
	}                                                                                          \
                                                                                                   \
	/* the sparse products, the complex squaring and the cyclotomic squaring */               \
	static void test_tower_ops_##C(void)                                                       \
	{                                                                                          \
		C##_fq12_t a, l, r1, r2;                                                           \
		C##_fq2_t b0, b1, b2;                                                              \
		rand_fq12_##C(&a);                                                                 \
		rand_fq2_##C(&b0);                                                                 \
		rand_fq2_##C(&b1);                                                                 \
		rand_fq2_##C(&b2);                                                                 \
		C##_fq12_zero(&l); /* b0 + b1 w + b2 w^3 */                                        \
		l.c0.c0 = b0;                                                                      \
		l.c1.c0 = b1;                                                                      \
		l.c1.c1 = b2;                                                                      \
		C##_fq12_mul(&r1, &a, &l);                                                         \
		r2 = a;                                                                            \
		C##_fq12_mul_by_034(&r2, &r2, &b0, &b1, &b2);                                      \
		CU_ASSERT_FATAL(C##_fq12_eq(&r1, &r2));                                            \
		C##_fq12_zero(&l); /* b0 + b1 w^2 + b2 w^3 */                                      \
		l.c0.c0 = b0;                                                                      \
		l.c0.c1 = b1;                                                                      \
		l.c1.c1 = b2;                                                                      \
		C##_fq12_mul(&r1, &a, &l);                                                         \
		r2 = a;                                                                            \
		C##_fq12_mul_by_014(&r2, &r2, &b0, &b1, &b2);                                      \
		CU_ASSERT_FATAL(C##_fq12_eq(&r1, &r2));                                            \
		C##_fq12_sqr(&r1, &a);                                                             \
		r2 = a;                                                                            \
		C##_fq12_sqr_fast(&r2, &r2);                                                       \
		CU_ASSERT_FATAL(C##_fq12_eq(&r1, &r2));                                            \
		rand_cyc_##C(&a);                                                                  \
		C##_fq12_sqr(&r1, &a);                                                             \
		r2 = a;                                                                            \
		C##_fq12_cyc_sqr(&r2, &r2);                                                        \
		CU_ASSERT_FATAL(C##_fq12_eq(&r1, &r2));                                            \
	}                                                                                          \
                                                                                                   \
	/* pair_pairing == pairref_pairing on fresh P, Q; final_exp == pairref_final_exp */       \
	static void test_vs_ref_##C(void)                                                          \
	{                                                                                          \
		for (int rep = 0; rep < 2; rep++) {                                                \
			C##_g1_aff p;                                                              \
			C##_g2_aff q;                                                              \
			uint64_t k[4];                                                             \
			rand_g1_##C(&p, k);                                                        \
			rand_g2_##C(&q, k);                                                        \
			C##_fq12_t e, er;                                                          \
			CU_ASSERT_FATAL(C##_pair_pairing(&e, &p, &q) == 0);                        \
			CU_ASSERT_FATAL(C##_pairref_pairing(&er, &p, &q) == 0);                    \
			CU_ASSERT_FATAL(C##_fq12_eq(&e, &er));                                     \
		}                                                                                  \
		C##_fq12_t f, e, er;                                                               \
		rand_fq12_##C(&f);                                                                 \
		C##_pair_final_exp(&e, &f);                                                        \
		C##_pairref_final_exp(&er, &f);                                                    \
		CU_ASSERT_FATAL(C##_fq12_eq(&e, &er));                                             \
	}                                                                                          \
                                                                                                   \
	/* e(aP, bQ) = e(P, Q)^(ab), e(P, Q) != 1, e(P, Q)^r = 1 */                               \
	static void test_bilinear_##C(void)                                                        \
	{                                                                                          \
		C##_g1_aff p, pa;                                                                  \
		C##_g2_aff q, qb;                                                                  \
		uint64_t kp[4], kq[4], a[4], b[4], ab[4];                                          \
		rand_g1_##C(&p, kp);                                                               \
		rand_g2_##C(&q, kq);                                                               \
		rand_scalar(a, CCN##_R_PLAIN);                                                     \
		rand_scalar(b, CCN##_R_PLAIN);                                                     \
		C##_g1_jac j;                                                                      \
		C##_g2_jac k;                                                                      \
		C##_g1_from_aff(&j, &p);                                                           \
		C##_g1_mul(&j, &j, a, 4);                                                          \
		C##_g1_to_aff(&pa, &j);                                                            \
		C##_g2_from_aff(&k, &q);                                                           \
		C##_g2_mul(&k, &k, b, 4);                                                          \
		C##_g2_to_aff(&qb, &k);                                                            \
		C##_fq12_t e, eab, t;                                                              \
		CU_ASSERT_FATAL(C##_pair_pairing(&e, &p, &q) == 0);                                \
		CU_ASSERT_FATAL(!C##_fq12_is_one(&e));                                             \
		C##_fq12_pow(&t, &e, CCN##_R_PLAIN, 4);                                            \
		CU_ASSERT_FATAL(C##_fq12_is_one(&t));                                              \
		CU_ASSERT_FATAL(C##_pair_pairing(&eab, &pa, &qb) == 0);                            \
		scalar_mul_##C(ab, a, b);                                                          \
		C##_fq12_pow(&t, &e, ab, 4);                                                       \
		CU_ASSERT_FATAL(C##_fq12_eq(&t, &eab));                                            \
		/* the generators pair to a non-trivial value too */                              \
		C##_g1_gen(&p);                                                                    \
		C##_g2_gen(&q);                                                                    \
		CU_ASSERT_FATAL(C##_pair_pairing(&e, &p, &q) == 0);                                \
		CU_ASSERT_FATAL(!C##_fq12_is_one(&e));                                             \
	}                                                                                          \
                                                                                                   \
	/* a Groth16-shaped 4-pair product: e(-aP, bQ) e(cP, dQ) e(eP, Q) e(gP, Q) with           \
	 * e + g = ab - cd is valid; changing one scalar makes it invalid; both agree with the    \
	 * reference. Also a 10-pair product (more than one batch of the shared loop). */        \
	static void test_check_##C(void)                                                          \
	{                                                                                          \
		C##_g1_aff p[10], g;                                                               \
		C##_g2_aff q[10], h;                                                               \
		uint64_t s[8][4], t1[4], t2[4], kk[4];                                             \
		C##_g1_gen(&g);                                                                    \
		C##_g2_gen(&h);                                                                    \
		for (int i = 0; i < 5; i++)                                                        \
			rand_scalar(s[i], CCN##_R_PLAIN);                                          \
		/* s5 = ab - cd - e (mod r), via Fr */                                             \
		scalar_mul_##C(t1, s[0], s[1]);                                                    \
		scalar_mul_##C(t2, s[2], s[3]);                                                    \
		{                                                                                  \
			C##_fr_t x, y, z;                                                          \
			memcpy(x.v, t1, 32);                                                       \
			memcpy(y.v, t2, 32);                                                       \
			memcpy(z.v, s[4], 32);                                                     \
			C##_fr_to_mont(&x, &x);                                                    \
			C##_fr_to_mont(&y, &y);                                                    \
			C##_fr_to_mont(&z, &z);                                                    \
			C##_fr_sub(&x, &x, &y);                                                    \
			C##_fr_sub(&x, &x, &z);                                                    \
			C##_fr_from_mont(&x, &x);                                                  \
			memcpy(s[5], x.v, 32);                                                     \
		}                                                                                  \
		uint64_t *g1s[4] = {s[0], s[2], s[4], s[5]}, *g2s[4] = {s[1], s[3], NULL, NULL};   \
		for (int i = 0; i < 4; i++) {                                                      \
			C##_g1_jac j;                                                              \
			C##_g1_from_aff(&j, &g);                                                   \
			C##_g1_mul(&j, &j, g1s[i], 4);                                             \
			C##_g1_to_aff(&p[i], &j);                                                  \
			if (g2s[i]) {                                                              \
				C##_g2_jac k;                                                      \
				C##_g2_from_aff(&k, &h);                                           \
				C##_g2_mul(&k, &k, g2s[i], 4);                                     \
				C##_g2_to_aff(&q[i], &k);                                          \
			} else {                                                                   \
				q[i] = h;                                                          \
			}                                                                          \
		}                                                                                  \
		C##_g1_aff_neg(&p[0], &p[0]);                                                      \
		CU_ASSERT_FATAL(C##_pair_check(p, q, 4) == 1);                                     \
		CU_ASSERT_FATAL(C##_pairref_check(p, q, 4) == 1);                                  \
		C##_g1_aff keep = p[2];                                                            \
		rand_g1_##C(&p[2], kk); /* now almost surely invalid */                            \
		CU_ASSERT_FATAL(C##_pair_check(p, q, 4) == 0);                                     \
		CU_ASSERT_FATAL(C##_pairref_check(p, q, 4) == 0);                                  \
		p[2] = keep;                                                                       \
		C##_g1_aff_neg(&p[1], &p[1]); /* e(cP,dQ)^-1 in place of e(cP,dQ) */               \
		CU_ASSERT_FATAL(C##_pair_check(p, q, 4) == 0);                                     \
		C##_g1_aff_neg(&p[1], &p[1]);                                                      \
		CU_ASSERT_FATAL(C##_pair_check(p, q, 4) == 1);                                     \
		/* an infinity pair anywhere changes nothing */                                   \
		C##_g1_aff p5[5];                                                                  \
		C##_g2_aff q5[5];                                                                  \
		memcpy(p5, p, sizeof p[0] * 2);                                                    \
		memcpy(q5, q, sizeof q[0] * 2);                                                    \
		memset(&p5[2], 0, sizeof p5[2]);                                                   \
		q5[2] = h;                                                                         \
		memcpy(p5 + 3, p + 2, sizeof p[0] * 2);                                            \
		memcpy(q5 + 3, q + 2, sizeof q[0] * 2);                                            \
		CU_ASSERT_FATAL(C##_pair_check(p5, q5, 5) == 1);                                   \
		/* 10 pairs: sum_{i<9} e(a_i P, Q_i) with Q_i = b_i Q, and e(-(sum a_i b_i) P, Q) */  \
		C##_fr_t acc, x, y;                                                                \
		C##_fr_zero(&acc);                                                                 \
		for (int i = 0; i < 9; i++) {                                                      \
			rand_g1_##C(&p[i], s[6]);                                                  \
			rand_g2_##C(&q[i], s[7]);                                                  \
			memcpy(x.v, s[6], 32);                                                     \
			memcpy(y.v, s[7], 32);                                                     \
			C##_fr_to_mont(&x, &x);                                                    \
			C##_fr_to_mont(&y, &y);                                                    \
			C##_fr_mul(&x, &x, &y);                                                    \
			C##_fr_add(&acc, &acc, &x);                                                \
		}                                                                                  \
		C##_fr_neg(&acc, &acc);                                                            \
		C##_fr_from_mont(&acc, &acc);                                                      \
		C##_g1_jac j;                                                                      \
		C##_g1_from_aff(&j, &g);                                                           \
		C##_g1_mul(&j, &j, acc.v, 4);                                                      \
		C##_g1_to_aff(&p[9], &j);                                                          \
		q[9] = h;                                                                          \
		CU_ASSERT_FATAL(C##_pair_check(p, q, 10) == 1);                                    \
		C##_g2_aff_neg(&q[4], &q[4]);                                                      \
		CU_ASSERT_FATAL(C##_pair_check(p, q, 10) == 0);                                    \
	}                                                                                          \
                                                                                                   \
	/* infinity on either side pairs to 1; a product of infinities checks as 1 */             \
	static void test_infinity_##C(void)                                                        \
	{                                                                                          \
		C##_g1_aff p, pinf;                                                                \
		C##_g2_aff q, qinf;                                                                \
		uint64_t k[4];                                                                     \
		rand_g1_##C(&p, k);                                                                \
		rand_g2_##C(&q, k);                                                                \
		memset(&pinf, 0, sizeof pinf);                                                     \
		memset(&qinf, 0, sizeof qinf);                                                     \
		C##_fq12_t e;                                                                      \
		CU_ASSERT_FATAL(C##_pair_pairing(&e, &pinf, &q) == 0);                             \
		CU_ASSERT(C##_fq12_is_one(&e));                                                    \
		CU_ASSERT_FATAL(C##_pair_pairing(&e, &p, &qinf) == 0);                             \
		CU_ASSERT(C##_fq12_is_one(&e));                                                    \
		CU_ASSERT_FATAL(C##_pair_miller(&e, &pinf, &qinf) == 0);                           \
		CU_ASSERT(C##_fq12_is_one(&e));                                                    \
		C##_g1_aff ps[2] = {pinf, p};                                                      \
		C##_g2_aff qs[2] = {q, qinf};                                                      \
		CU_ASSERT(C##_pair_check(ps, qs, 2) == 1);                                         \
		CU_ASSERT(C##_pair_check(ps, qs, 0) == 1);                                         \
		qs[1] = q; /* e(P, Q) alone: not 1 */                                              \
		CU_ASSERT(C##_pair_check(ps, qs, 2) == 0);                                         \
	}

PAIRING_TESTS(bn254, BN254)

/* BN254's twist Frobenius psi: psi(Q) and psi^2(Q) lie on the twist, psi o psi = psi^2, and
 * psi(Q) = [q mod r] Q = [6x^2] Q on G2 */
static void test_psi_bn254(void)
{
	bn254_g2_aff q, q1, q11, q2, t;
	uint64_t k[4];
	rand_g2_bn254(&q, k);
	bn254_pair_psi(&q1, &q, 1);
	bn254_pair_psi(&q11, &q1, 1);
	bn254_pair_psi(&q2, &q, 2);
	CU_ASSERT(bn254_g2_aff_on_curve(&q1));
	CU_ASSERT(bn254_g2_aff_on_curve(&q2));
	CU_ASSERT(bn254_fq2_eq(&q11.x, &q2.x) && bn254_fq2_eq(&q11.y, &q2.y));
	/* q = 36x^4+36x^3+24x^2+6x+1 and r = 36x^4+36x^3+18x^2+6x+1, so q = 6x^2 mod r */
	unsigned __int128 x2 = (unsigned __int128)BN254_X_ABS * BN254_X_ABS;
	uint64_t e[4] = {0, 0, 0, 0};
	unsigned __int128 lo = (x2 & 0xffffffffffffffffull) * 6;
	unsigned __int128 hi = (x2 >> 64) * 6 + (lo >> 64);
	e[0] = (uint64_t)lo;
	e[1] = (uint64_t)hi;
	e[2] = (uint64_t)(hi >> 64);
	bn254_g2_jac j;
	bn254_g2_from_aff(&j, &q);
	bn254_g2_mul(&j, &j, e, 4);
	bn254_g2_to_aff(&t, &j);
	CU_ASSERT(bn254_fq2_eq(&t.x, &q1.x) && bn254_fq2_eq(&t.y, &q1.y));
}
PAIRING_TESTS(bls12_381, BLS12_381)

int main(void)
{
	static const zka_test_case cases[] = {
	    {"bn254 Frobenius constants", test_frobenius_bn254},
	    {"bls12-381 Frobenius constants", test_frobenius_bls12_381},
	    {"bn254 twist Frobenius psi", test_psi_bn254},
	    {"bn254 sparse/cyclotomic tower ops", test_tower_ops_bn254},
	    {"bls12-381 sparse/cyclotomic tower ops", test_tower_ops_bls12_381},
	    {"bn254 fast == reference", test_vs_ref_bn254},
	    {"bls12-381 fast == reference", test_vs_ref_bls12_381},
	    {"bn254 bilinearity", test_bilinear_bn254},
	    {"bls12-381 bilinearity", test_bilinear_bls12_381},
	    {"bn254 product checks", test_check_bn254},
	    {"bls12-381 product checks", test_check_bls12_381},
	    {"bn254 infinity", test_infinity_bn254},
	    {"bls12-381 infinity", test_infinity_bls12_381},
	    {NULL, NULL}};
	zka_test_suite("pairing", cases);
	return zka_test_run();
}
