/* test_curve.c - G1/G2 group laws, G1 against an independent GMP affine implementation,
 * the pairing's bilinearity and non-degeneracy, NTT round trips and against a naive DFT, MSM
 * against naive sums. Every run draws fresh random scalars. */
#include "tests/testutil.h"
#include "zk/bls12_381.h"
#include "zk/bn254.h"
#include "zk/curve.h"

#include <gmp.h>
#include <stdlib.h>

#define CURVE bn254
#define CC BN254
#include "zk/ntt_tmpl.h"
#define MSM_G bn254_g1
#include "zk/msm_tmpl.h"
#define MSM_G bn254_g2
#include "zk/msm_tmpl.h"
#undef CURVE
#undef CC
#define CURVE bls12_381
#define CC BLS12_381
#include "zk/ntt_tmpl.h"
#define MSM_G bls12_381_g1
#include "zk/msm_tmpl.h"
#define MSM_G bls12_381_g2
#include "zk/msm_tmpl.h"
#undef CURVE
#undef CC

/* a fresh scalar < r (plain form); bits limits it to that many low bits when < 256 */
static void rand_scalar(uint64_t k[4], const uint64_t *r, int bits)
{
	do {
		zka_test_random(k, 32);
		k[3] &= 0x7fffffffffffffffull;
		for (int i = 0; i < 4; i++) {
			int lo = 64 * i;
			if (bits <= lo)
				k[i] = 0;
			else if (bits < lo + 64)
				k[i] &= (1ull << (bits - lo)) - 1;
		}
	} while (!zka_lt_modulus(k, r, 4));
}

/* ---- an independent affine G1 in GMP: the oracle for the Montgomery/Jacobian code ---- */
typedef struct {
	mpz_t x, y;
	int inf;
} gpt;

static void g_add(gpt *r, const gpt *a, const gpt *b, const mpz_t p)
{
	if (a->inf) {
		mpz_set(r->x, b->x), mpz_set(r->y, b->y), r->inf = b->inf;
		return;
	}
	if (b->inf) {
		mpz_set(r->x, a->x), mpz_set(r->y, a->y), r->inf = a->inf;
		return;
	}
	mpz_t l, t, x3;
	mpz_inits(l, t, x3, NULL);
	if (mpz_cmp(a->x, b->x) == 0) {
		mpz_add(t, a->y, b->y);
		mpz_mod(t, t, p);
		if (mpz_sgn(t) == 0) {
			r->inf = 1;
			goto out;
		}
		mpz_mul(l, a->x, a->x);
		mpz_mul_ui(l, l, 3);
		mpz_mul_ui(t, a->y, 2);
	} else {
		mpz_sub(l, b->y, a->y);
		mpz_sub(t, b->x, a->x);
	}
	mpz_mod(t, t, p);
	mpz_invert(t, t, p);
	mpz_mul(l, l, t);
	mpz_mod(l, l, p);
	mpz_mul(x3, l, l);
	mpz_sub(x3, x3, a->x);
	mpz_sub(x3, x3, b->x);
	mpz_mod(x3, x3, p);
	mpz_sub(t, a->x, x3);
	mpz_mul(t, t, l);
	mpz_sub(t, t, a->y);
	mpz_mod(r->y, t, p);
	mpz_set(r->x, x3);
	r->inf = 0;
out:
	mpz_clears(l, t, x3, NULL);
}

#define G1_ORACLE_TEST(C, CCN, NQ)                                                                 \
	static void test_g1_oracle_##C(void)                                                       \
	{                                                                                          \
		mpz_t p;                                                                           \
		mpz_init(p);                                                                       \
		mpz_import(p, NQ, -1, 8, 0, 0, CCN##_FQ_P);                                        \
		C##_g1_aff g;                                                                      \
		C##_g1_gen(&g);                                                                    \
		C##_fq_t gx, gy;                                                                   \
		C##_fq_from_mont(&gx, &g.x);                                                       \
		C##_fq_from_mont(&gy, &g.y);                                                       \
		for (int it = 0; it < 8; it++) {                                                   \
			uint64_t k[4];                                                             \
			rand_scalar(k, CCN##_FR_P, it < 2 ? 3 : 256);                              \
			if (it == 0)                                                               \
				k[0] = 2, k[1] = k[2] = k[3] = 0; /* 2G, a known small multiple */ \
			if ((k[0] | k[1] | k[2] | k[3]) == 0)                                      \
				k[0] = 5; /* a 3-bit draw may be 0; the oracle wants a point */    \
			gpt base, acc, t;                                                          \
			mpz_inits(base.x, base.y, acc.x, acc.y, t.x, t.y, NULL);                   \
			mpz_import(base.x, NQ, -1, 8, 0, 0, gx.v);                                 \
			mpz_import(base.y, NQ, -1, 8, 0, 0, gy.v);                                 \
			base.inf = 0;                                                              \
			acc.inf = 1;                                                               \
			for (int b = 255; b >= 0; b--) {                                           \
				g_add(&t, &acc, &acc, p);                                          \
				mpz_set(acc.x, t.x), mpz_set(acc.y, t.y), acc.inf = t.inf;         \
				if ((k[b / 64] >> (b % 64)) & 1) {                                 \
					g_add(&t, &acc, &base, p);                                 \
					mpz_set(acc.x, t.x), mpz_set(acc.y, t.y), acc.inf = t.inf; \
				}                                                                  \
			}                                                                          \
			C##_g1_jac j;                                                              \
			C##_g1_from_aff(&j, &g);                                                   \
			C##_g1_mul(&j, &j, k, 4);                                                  \
			C##_g1_aff a;                                                              \
			C##_g1_to_aff(&a, &j);                                                     \
			C##_fq_from_mont(&a.x, &a.x);                                              \
			C##_fq_from_mont(&a.y, &a.y);                                              \
			mpz_import(t.x, NQ, -1, 8, 0, 0, a.x.v);                                   \
			mpz_import(t.y, NQ, -1, 8, 0, 0, a.y.v);                                   \
			CU_ASSERT_FATAL(!acc.inf);                                                 \
			CU_ASSERT_FATAL(mpz_cmp(t.x, acc.x) == 0 && mpz_cmp(t.y, acc.y) == 0);     \
			mpz_clears(base.x, base.y, acc.x, acc.y, t.x, t.y, NULL);                  \
		}                                                                                  \
		mpz_clear(p);                                                                      \
	}
G1_ORACLE_TEST(bn254, BN254, 4)
G1_ORACLE_TEST(bls12_381, BLS12_381, 6)

/* Group laws in G (G1 or G2): (a+b)P = aP + bP, commutativity, associativity, mixed addition
 * equals full addition, doubling equals self-addition, rP = 0, P - P = 0, affine round trip. */
#define GROUP_LAW_TEST(C, G, CCN)                                                                  \
	static void test_laws_##C##_##G(void)                                                      \
	{                                                                                          \
		C##_##G##_aff g;                                                                   \
		C##_##G##_gen(&g);                                                                 \
		CU_ASSERT_FATAL(C##_##G##_aff_in_group(&g));                                       \
		C##_##G##_jac P, A, B, S, T, U;                                                    \
		C##_##G##_from_aff(&P, &g);                                                        \
		for (int it = 0; it < 4; it++) {                                                   \
			uint64_t a[4], b[4], s[4];                                                 \
			rand_scalar(a, CCN##_FR_P, 200);                                           \
			rand_scalar(b, CCN##_FR_P, 200);                                           \
			uint64_t c = 0;                                                            \
			for (int i = 0; i < 4; i++) {                                              \
				unsigned __int128 t = (unsigned __int128)a[i] + b[i] + c;           \
				s[i] = (uint64_t)t;                                                \
				c = (uint64_t)(t >> 64);                                           \
			}                                                                          \
			C##_##G##_mul(&A, &P, a, 4);                                               \
			C##_##G##_mul(&B, &P, b, 4);                                               \
			C##_##G##_mul(&S, &P, s, 4);                                               \
			C##_##G##_add(&T, &A, &B);                                                 \
			CU_ASSERT_FATAL(C##_##G##_eq(&T, &S));                                     \
			C##_##G##_add(&U, &B, &A);                                                 \
			CU_ASSERT_FATAL(C##_##G##_eq(&T, &U));                                     \
			C##_##G##_add(&T, &T, &P);                                                 \
			C##_##G##_add(&U, &B, &P);                                                 \
			C##_##G##_add(&U, &A, &U);                                                 \
			CU_ASSERT_FATAL(C##_##G##_eq(&T, &U));                                     \
			C##_##G##_aff ba;                                                          \
			C##_##G##_to_aff(&ba, &B);                                                 \
			CU_ASSERT_FATAL(C##_##G##_aff_on_curve(&ba));                              \
			C##_##G##_add_aff(&T, &A, &ba);                                            \
			CU_ASSERT_FATAL(C##_##G##_eq(&T, &S));                                     \
			C##_##G##_from_aff(&T, &ba);                                               \
			CU_ASSERT_FATAL(C##_##G##_eq(&T, &B));                                     \
			C##_##G##_dbl(&T, &A);                                                     \
			C##_##G##_add(&U, &A, &A);                                                 \
			CU_ASSERT_FATAL(C##_##G##_eq(&T, &U));                                     \
			C##_##G##_add_aff(&U, &B, &ba); /* mixed doubling path */                  \
			C##_##G##_dbl(&T, &B);                                                     \
			CU_ASSERT_FATAL(C##_##G##_eq(&T, &U));                                     \
			C##_##G##_neg(&T, &A);                                                     \
			C##_##G##_add(&T, &T, &A);                                                 \
			CU_ASSERT_FATAL(C##_##G##_is_inf(&T));                                     \
			C##_##G##_mul(&T, &A, CCN##_R_PLAIN, 4);                                   \
			CU_ASSERT_FATAL(C##_##G##_is_inf(&T));                                     \
		}                                                                                  \
		/* a point off the curve and the all-zero infinity encoding */                    \
		C##_##G##_aff bad = g;                                                             \
		bad.y = g.x;                                                                       \
		CU_ASSERT(!C##_##G##_aff_on_curve(&bad));                                          \
		CU_ASSERT(!C##_##G##_aff_in_group(&bad));                                          \
		memset(&bad, 0, sizeof bad);                                                       \
		CU_ASSERT(C##_##G##_aff_is_inf(&bad) && C##_##G##_aff_on_curve(&bad));             \
	}
GROUP_LAW_TEST(bn254, g1, BN254)
GROUP_LAW_TEST(bn254, g2, BN254)
GROUP_LAW_TEST(bls12_381, g1, BLS12_381)
GROUP_LAW_TEST(bls12_381, g2, BLS12_381)

/* e(aP, bQ) = e(P, Q)^(ab), e(P, Q) != 1, e(P, Q)^r = 1, e(P, Q1 + Q2) = e(P, Q1) e(P, Q2). */
#define PAIRING_TEST(C, CCN)                                                                       \
	static void test_pairing_##C(void)                                                         \
	{                                                                                          \
		C##_g1_aff g, ga;                                                                  \
		C##_g2_aff h, hb;                                                                  \
		C##_g1_gen(&g);                                                                    \
		C##_g2_gen(&h);                                                                    \
		uint64_t a[4], b[4];                                                               \
		rand_scalar(a, CCN##_FR_P, 256);                                                   \
		rand_scalar(b, CCN##_FR_P, 256);                                                   \
		C##_g1_jac j;                                                                      \
		C##_g2_jac k;                                                                      \
		C##_g1_from_aff(&j, &g);                                                           \
		C##_g1_mul(&j, &j, a, 4);                                                          \
		C##_g1_to_aff(&ga, &j);                                                            \
		C##_g2_from_aff(&k, &h);                                                           \
		C##_g2_mul(&k, &k, b, 4);                                                          \
		C##_g2_to_aff(&hb, &k);                                                            \
		C##_fq12_t e, eab, t;                                                              \
		CU_ASSERT_FATAL(C##_pair_pairing(&e, &g, &h) == 0);                                \
		CU_ASSERT_FATAL(!C##_fq12_is_one(&e));                                             \
		C##_fq12_pow(&t, &e, CCN##_R_PLAIN, 4);                                            \
		CU_ASSERT_FATAL(C##_fq12_is_one(&t));                                              \
		CU_ASSERT_FATAL(C##_pair_pairing(&eab, &ga, &hb) == 0);                            \
		C##_fr_t fa, fb;                                                                   \
		memcpy(fa.v, a, 32);                                                               \
		memcpy(fb.v, b, 32);                                                               \
		C##_fr_to_mont(&fa, &fa);                                                          \
		C##_fr_to_mont(&fb, &fb);                                                          \
		C##_fr_mul(&fa, &fa, &fb);                                                         \
		C##_fr_from_mont(&fa, &fa);                                                        \
		C##_fq12_pow(&t, &e, fa.v, 4);                                                     \
		CU_ASSERT_FATAL(C##_fq12_eq(&t, &eab));                                            \
		/* linearity in the second argument, and the multi-pairing check */               \
		C##_g2_aff q2;                                                                     \
		C##_g2_jac k2;                                                                     \
		C##_g2_from_aff(&k2, &h);                                                          \
		C##_g2_add_aff(&k2, &k2, &hb);                                                     \
		C##_g2_to_aff(&q2, &k2);                                                           \
		C##_fq12_t e1, e2, e3;                                                             \
		C##_pair_pairing(&e1, &ga, &h);                                                    \
		C##_pair_pairing(&e2, &ga, &hb);                                                   \
		C##_pair_pairing(&e3, &ga, &q2);                                                   \
		C##_fq12_mul(&e1, &e1, &e2);                                                       \
		CU_ASSERT_FATAL(C##_fq12_eq(&e1, &e3));                                            \
		C##_g1_aff ps[2];                                                                  \
		C##_g2_aff qs[2];                                                                  \
		ps[0] = ga;                                                                        \
		qs[0] = hb;                                                                        \
		C##_g1_aff_neg(&ps[1], &ga);                                                       \
		qs[1] = hb;                                                                        \
		CU_ASSERT_FATAL(C##_pair_check(ps, qs, 2) == 1);                                   \
		qs[1] = h;                                                                         \
		CU_ASSERT_FATAL(C##_pair_check(ps, qs, 2) == 0);                                   \
	}
PAIRING_TEST(bn254, BN254)
PAIRING_TEST(bls12_381, BLS12_381)

/* NTT: root orders, agreement with a naive DFT, inverse round trip, coset shift. */
#define NTT_TEST(C, CCN)                                                                           \
	static void test_ntt_##C(void)                                                             \
	{                                                                                          \
		C##_fr_t w, one;                                                                   \
		C##_fr_one(&one);                                                                  \
		C##_ntt_root(&w, CCN##_FR_S);                                                      \
		for (int i = 0; i < CCN##_FR_S - 1; i++)                                           \
			C##_fr_sqr(&w, &w);                                                        \
		CU_ASSERT_FATAL(!C##_fr_eq(&w, &one));                                             \
		C##_fr_sqr(&w, &w);                                                                \
		CU_ASSERT_FATAL(C##_fr_eq(&w, &one));                                              \
		for (int k = 0; k <= 17; k += (k < 6 ? 1 : k < 12 ? 6 : 1)) {                                   \
			size_t n = (size_t)1 << k;                                                 \
			C##_fr_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);           \
			CU_ASSERT_FATAL(a && b);                                                   \
			for (size_t i = 0; i < n; i++) {                                           \
				rand_scalar(a[i].v, CCN##_FR_P, 256);                              \
				b[i] = a[i];                                                       \
			}                                                                          \
			CU_ASSERT_FATAL(C##_ntt_ntt(b, k, 0, 1 + k % 4) == 0);                            \
			{ /* naive DFT: every output up to k = 6, 4 random ones above */          \
				C##_fr_t wk;                                                       \
				C##_ntt_root(&wk, k);                                              \
				for (size_t ii = 0; ii < (k <= 6 ? n : 4); ii++) {                 \
					size_t i = k <= 6 ? ii : (size_t)(zka_test_rand64() % n);  \
					C##_fr_t s, x, wi;                                         \
					C##_fr_zero(&s);                                           \
					uint64_t e[1] = {i};                                       \
					C##_fr_pow(&wi, &wk, e, 1);                                \
					C##_fr_t pw;                                               \
					C##_fr_one(&pw);                                           \
					for (size_t j = 0; j < n; j++) {                           \
						C##_fr_mul(&x, &a[j], &pw);                        \
						C##_fr_add(&s, &s, &x);                            \
						C##_fr_mul(&pw, &pw, &wi);                         \
					}                                                          \
					CU_ASSERT_FATAL(C##_fr_eq(&s, &b[i]));                     \
				}                                                                  \
			}                                                                          \
			CU_ASSERT_FATAL(C##_ntt_ntt(b, k, 1, 4 - k % 4) == 0);                            \
			for (size_t i = 0; i < n; i++)                                             \
				CU_ASSERT_FATAL(C##_fr_eq(&a[i], &b[i]));                          \
			C##_fr_t g;                                                                \
			C##_ntt_root(&g, k + 1);                                                   \
			C##_ntt_shift(b, n, &g, 2);                                                \
			C##_fr_t pw;                                                               \
			C##_fr_one(&pw);                                                           \
			for (size_t i = 0; i < n; i++) {                                           \
				C##_fr_t x;                                                        \
				C##_fr_mul(&x, &a[i], &pw);                                        \
				CU_ASSERT_FATAL(C##_fr_eq(&x, &b[i]));                             \
				C##_fr_mul(&pw, &pw, &g);                                          \
			}                                                                          \
			if (k > 0 && k <= 12) { /* the prover path: tables, 1/n in the shift */ \
				C##_fr_t *tw = malloc(n * sizeof *tw), ninv;                       \
				CU_ASSERT_FATAL(tw != NULL);                                       \
				C##_ntt_twiddles(tw, k, 1);                                        \
				C##_ntt_twiddles(tw + n / 2, k, 0);                                \
				C##_fr_from_u64(&ninv, (uint64_t)n);                               \
				C##_fr_inv(&ninv, &ninv);                                          \
				memcpy(b, a, n * sizeof *b);                                       \
				C##_ntt_ntt_tw(b, k, tw + n / 2, 1 + k % 3); /* forward */         \
				C##_ntt_ntt_tw(b, k, tw, 2); /* inverse without 1/n */             \
				C##_ntt_shift_scaled(b, n, &g, &ninv, 3);                          \
				C##_fr_one(&pw);                                                   \
				for (size_t i = 0; i < n; i++) {                                   \
					C##_fr_t x;                                                \
					C##_fr_mul(&x, &a[i], &pw);                                \
					CU_ASSERT_FATAL(C##_fr_eq(&x, &b[i]));                     \
					C##_fr_mul(&pw, &pw, &g);                                  \
				}                                                                  \
				free(tw);                                                          \
			}                                                                          \
			if (k > 0) { /* the prover's H without bit reversals, against the three \
					steps it replaces (threads 1-4: several blocks from 2^12) */ \
				C##_fr_t *tw = malloc(n * sizeof *tw), ninv;                       \
				C##_fr_t *r = malloc(n * sizeof *r);                               \
				CU_ASSERT_FATAL(tw && r);                                          \
				C##_ntt_twiddles(tw, k, 1);                                        \
				C##_ntt_twiddles(tw + n / 2, k, 0);                                \
				C##_fr_from_u64(&ninv, (uint64_t)n);                               \
				C##_fr_inv(&ninv, &ninv);                                          \
				memcpy(r, a, n * sizeof *r);                                       \
				C##_ntt_ntt_tw(r, k, tw, 1);                                       \
				C##_ntt_shift_scaled(r, n, &g, &ninv, 1);                          \
				C##_ntt_ntt_tw(r, k, tw + n / 2, 1);                               \
				memcpy(b, a, n * sizeof *b);                                       \
				CU_ASSERT_FATAL(C##_ntt_coset_tw(b, k, tw, tw + n / 2, &g, &ninv,  \
								 1 + k % 4) == 0);                 \
				CU_ASSERT_FATAL(memcmp(b, r, n * sizeof *b) == 0);                 \
				free(tw);                                                          \
				free(r);                                                           \
			}                                                                          \
			free(a);                                                                   \
			free(b);                                                                   \
		}                                                                                  \
	}
NTT_TEST(bn254, BN254)
NTT_TEST(bls12_381, BLS12_381)

/* MSM against the naive sum of k_i P_i, at several sizes, with many scalars 0 and 1. */
#define MSM_TEST(C, G, CCN)                                                                        \
	static void test_msm_##C##_##G(void)                                                       \
	{                                                                                          \
		static const size_t sizes[] = {1, 2, 3, 31, 100, 257};                             \
		C##_##G##_aff g;                                                                   \
		C##_##G##_gen(&g);                                                                 \
		for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {                   \
			size_t n = sizes[si];                                                      \
			C##_##G##_aff *p = malloc(n * sizeof *p);                                  \
			C##_##G##_jac *pj = malloc(n * sizeof *pj);                                \
			uint64_t(*k)[4] = malloc(n * sizeof *k);                                   \
			CU_ASSERT_FATAL(p && pj && k);                                             \
			C##_##G##_jac acc, t, got;                                                 \
			C##_##G##_set_inf(&acc);                                                   \
			for (size_t i = 0; i < n; i++) {                                           \
				uint64_t s[4];                                                     \
				rand_scalar(s, CCN##_FR_P, 64);                                    \
				C##_##G##_from_aff(&pj[i], &g);                                    \
				C##_##G##_mul(&pj[i], &pj[i], s, 4);                               \
				uint32_t sel = (uint32_t)zka_test_rand64() % 4;                    \
				rand_scalar(k[i], CCN##_FR_P, 256);                                \
				if (sel == 0)                                                      \
					memset(k[i], 0, 32);                                       \
				if (sel == 1)                                                      \
					memset(k[i], 0, 32), k[i][0] = 1;                          \
			}                                                                          \
			if (n > 2)                                                                 \
				C##_##G##_set_inf(&pj[1]); /* a point at infinity in the key */    \
			for (size_t i = 0; i < n; i++) {                                           \
				C##_##G##_to_aff(&p[i], &pj[i]);                                   \
				C##_##G##_mul(&t, &pj[i], k[i], 4);                                \
				C##_##G##_add(&acc, &acc, &t);                                     \
			}                                                                          \
			for (int thr = 1; thr <= 3; thr += 2) {                                    \
				CU_ASSERT_FATAL(                                                   \
				    C##_##G##_msm(&got, p, (const uint64_t(*)[4])k, n, thr) == 0); \
				CU_ASSERT_FATAL(C##_##G##_eq(&got, &acc));                         \
			}                                                                          \
			free(p);                                                                   \
			free(pj);                                                                  \
			free(k);                                                                   \
		}                                                                                  \
	}
MSM_TEST(bn254, g1, BN254)
MSM_TEST(bn254, g2, BN254)
MSM_TEST(bls12_381, g1, BLS12_381)
MSM_TEST(bls12_381, g2, BLS12_381)

/* MSM at sizes that take the Jacobian (700) and the batch-affine path, thread counts 1..4 and
 * 16 (more threads than windows: point ranges split), against an oracle that never adds
 * points: P_i = s_i G with known s_i,
 * so sum k_i P_i = (sum k_i s_i mod r) G. Scalars: 0, 1, small, r - small, random; points:
 * infinity (s = 0), duplicates (P + P in one bucket) and negations (P + (-P)). */
#define MSM_BIG_TEST(C, G, CCN, NSIZES)                                                            \
	static void test_msm_big_##C##_##G(void)                                                   \
	{                                                                                          \
		static const size_t sizes[] = {700, 1500, 5000, 4097, 8192};                            \
		C##_##G##_aff g;                                                                   \
		C##_##G##_gen(&g);                                                                 \
		for (size_t si = 0; si < NSIZES; si++) {                                           \
			size_t n = sizes[si];                                                      \
			C##_##G##_aff *p = malloc(n * sizeof *p);                                  \
			C##_##G##_jac *pj = malloc(n * sizeof *pj);                                \
			C##_fr_t *s = malloc(n * sizeof *s);                                       \
			void *scr = malloc(2 * n * sizeof(p->x));                                  \
			uint64_t(*k)[4] = malloc(n * sizeof *k);                                   \
			CU_ASSERT_FATAL(p && pj && s && scr && k);                                 \
			uint64_t u[4];                                                             \
			C##_##G##_jac step, gj;                                                    \
			C##_##G##_from_aff(&gj, &g);                                               \
			rand_scalar(u, CCN##_FR_P, 256);                                           \
			C##_##G##_mul(&pj[0], &gj, u, 4);                                          \
			memcpy(s[0].v, u, 32);                                                     \
			C##_fr_t st;                                                               \
			rand_scalar(u, CCN##_FR_P, 256);                                           \
			C##_##G##_mul(&step, &gj, u, 4);                                           \
			memcpy(st.v, u, 32);                                                       \
			C##_fr_to_mont(&s[0], &s[0]);                                              \
			C##_fr_to_mont(&st, &st);                                                  \
			for (size_t i = 1; i < n; i++) {                                           \
				uint32_t sel = (uint32_t)(zka_test_rand64() % 100);                \
				size_t j = (size_t)(zka_test_rand64() % i);                        \
				if (sel < 2) { /* infinity */                                      \
					C##_##G##_set_inf(&pj[i]);                                 \
					C##_fr_zero(&s[i]);                                        \
				} else if (sel < 8) { /* duplicate */                              \
					pj[i] = pj[j];                                             \
					s[i] = s[j];                                               \
				} else if (sel < 14) { /* negation */                              \
					C##_##G##_neg(&pj[i], &pj[j]);                             \
					C##_fr_neg(&s[i], &s[j]);                                  \
				} else {                                                           \
					C##_##G##_add(&pj[i], &pj[i - 1], &step);                  \
					C##_fr_add(&s[i], &s[i - 1], &st);                         \
					if (C##_fr_is_zero(&s[i - 1])) { /* after infinity */      \
						pj[i] = step;                                      \
						s[i] = st;                                         \
					}                                                          \
				}                                                                  \
			}                                                                          \
			C##_##G##_batch_to_aff(p, pj, n, scr);                                     \
			C##_fr_t want, t;                                                          \
			C##_fr_zero(&want);                                                        \
			for (size_t i = 0; i < n; i++) {                                           \
				uint32_t sel = (uint32_t)(zka_test_rand64() % 100);                \
				rand_scalar(k[i], CCN##_FR_P, 256);                                \
				if (sel < 15)                                                      \
					memset(k[i], 0, 32);                                       \
				else if (sel < 30)                                                 \
					memset(k[i], 0, 32), k[i][0] = 1;                          \
				else if (sel < 45)                                                 \
					memset(k[i], 0, 32), k[i][0] = 2 + zka_test_rand64() % 20; \
				else if (sel < 55) { /* r - 1 - small */                           \
					memcpy(k[i], CCN##_FR_P, 32);                              \
					k[i][0] -= 1 + zka_test_rand64() % 20;                     \
				}                                                                  \
				C##_fr_t km;                                                       \
				memcpy(km.v, k[i], 32);                                            \
				C##_fr_to_mont(&km, &km);                                          \
				C##_fr_mul(&t, &km, &s[i]);                                        \
				C##_fr_add(&want, &want, &t);                                      \
			}                                                                          \
			C##_fr_from_mont(&want, &want);                                            \
			C##_##G##_jac exp, got;                                                    \
			C##_##G##_mul(&exp, &gj, want.v, 4);                                       \
			for (int thr = 1; thr <= 5; thr++) { /* 5: 16 threads, split ranges */     \
				CU_ASSERT_FATAL(C##_##G##_msm(&got, p, (const uint64_t(*)[4])k, n, \
							      thr == 5 ? 16 : thr) == 0);          \
				CU_ASSERT_FATAL(C##_##G##_eq(&got, &exp));                         \
			}                                                                          \
			free(p);                                                                   \
			free(pj);                                                                  \
			free(s);                                                                   \
			free(scr);                                                                 \
			free(k);                                                                   \
		}                                                                                  \
	}
MSM_BIG_TEST(bn254, g1, BN254, 5)
MSM_BIG_TEST(bn254, g2, BN254, 3)
MSM_BIG_TEST(bls12_381, g1, BLS12_381, 5)
MSM_BIG_TEST(bls12_381, g2, BLS12_381, 3)

/* XYZZ accumulators (the MSM's buckets and running sums) against the Jacobian group law:
 * mixed and full addition, the doubling and P + (-P) cases of both, infinity on either side,
 * doubling, aliasing of output and input. */
#define XYZZ_TEST(C, G, CCN)                                                                       \
	static void test_xyzz_##C##_##G(void)                                                      \
	{                                                                                          \
		C##_##G##_aff g;                                                                   \
		C##_##G##_gen(&g);                                                                 \
		C##_##G##_jac P, A, B, J, K;                                                       \
		C##_##G##_from_aff(&P, &g);                                                        \
		for (int it = 0; it < 4; it++) {                                                   \
			uint64_t a[4], b[4];                                                       \
			rand_scalar(a, CCN##_FR_P, 256);                                           \
			rand_scalar(b, CCN##_FR_P, 256);                                           \
			C##_##G##_mul(&A, &P, a, 4);                                               \
			C##_##G##_mul(&B, &P, b, 4);                                               \
			C##_##G##_aff aa, ba, na;                                                  \
			C##_##G##_to_aff(&aa, &A);                                                 \
			C##_##G##_to_aff(&ba, &B);                                                 \
			C##_##G##_aff_neg(&na, &aa);                                               \
			C##_##G##_xyzz xa, xb, xs, inf;                                            \
			C##_##G##_xyzz_set_inf(&inf);                                              \
			C##_##G##_xyzz_add_aff(&xa, &inf, &aa); /* xa = A, ZZ = 1 */               \
			C##_##G##_xyzz_add_aff(&xb, &inf, &ba);                                    \
			C##_##G##_xyzz_dbl(&xb, &xb); /* xb = 2B, ZZ != 1 */                       \
			C##_##G##_xyzz_add_aff(&xb, &xb, &aa); /* xb = 2B + A */                   \
			C##_##G##_dbl(&K, &B);                                                     \
			C##_##G##_add(&K, &K, &A);                                                 \
			C##_##G##_xyzz_to_jac(&J, &xb);                                            \
			CU_ASSERT_FATAL(C##_##G##_eq(&J, &K));                                     \
			C##_##G##_xyzz_add(&xs, &xa, &xb); /* 2A + 2B */                           \
			C##_##G##_add(&K, &K, &A);                                                 \
			C##_##G##_xyzz_to_jac(&J, &xs);                                            \
			CU_ASSERT_FATAL(C##_##G##_eq(&J, &K));                                     \
			C##_##G##_xyzz_add(&xs, &xs, &xs); /* full-addition doubling */            \
			C##_##G##_dbl(&K, &K);                                                     \
			C##_##G##_xyzz_to_jac(&J, &xs);                                            \
			CU_ASSERT_FATAL(C##_##G##_eq(&J, &K));                                     \
			C##_##G##_xyzz_add_aff(&xs, &xa, &aa); /* mixed doubling */                \
			C##_##G##_dbl(&K, &A);                                                     \
			C##_##G##_xyzz_to_jac(&J, &xs);                                            \
			CU_ASSERT_FATAL(C##_##G##_eq(&J, &K));                                     \
			C##_##G##_xyzz_add_aff(&xs, &xs, &na); /* 2A - A with ZZ != 1 */           \
			C##_##G##_xyzz_to_jac(&J, &xs);                                            \
			CU_ASSERT_FATAL(C##_##G##_eq(&J, &A));                                     \
			C##_##G##_xyzz_add_aff(&xs, &xs, &na); /* A - A */                         \
			CU_ASSERT_FATAL(C##_##G##_xyzz_is_inf(&xs));                               \
			C##_##G##_xyzz_add_aff(&xs, &inf, &na);                                    \
			C##_##G##_xyzz_add(&xs, &xa, &xs); /* A + (-A), full */                    \
			CU_ASSERT_FATAL(C##_##G##_xyzz_is_inf(&xs));                               \
			C##_##G##_xyzz_add(&xs, &inf, &xb); /* infinity on either side */          \
			C##_##G##_xyzz_add(&xs, &xs, &inf);                                        \
			C##_##G##_xyzz_to_jac(&J, &xs);                                            \
			C##_##G##_xyzz_to_jac(&K, &xb);                                            \
			CU_ASSERT_FATAL(C##_##G##_eq(&J, &K));                                     \
			C##_##G##_xyzz_to_jac(&J, &inf);                                           \
			CU_ASSERT_FATAL(C##_##G##_is_inf(&J));                                     \
		}                                                                                  \
	}
XYZZ_TEST(bn254, g1, BN254)
XYZZ_TEST(bn254, g2, BN254)
XYZZ_TEST(bls12_381, g1, BLS12_381)
XYZZ_TEST(bls12_381, g2, BLS12_381)

/* Prepared MSMs (the prover's one task queue): a G1 plan and a G2 plan sharing the G1 plan's
 * digit decomposition, their tasks run in reverse order on one workspace, equal msm. */
#define MSM_PLAN_TEST(C, CCN)                                                                      \
	static void test_msm_plan_##C(void)                                                        \
	{                                                                                          \
		size_t n = 2800;                                                                   \
		C##_g1_aff g1, *p1 = malloc(n * sizeof *p1);                                       \
		C##_g2_aff g2, *p2 = malloc(n * sizeof *p2);                                       \
		C##_g1_jac *j1 = malloc(n * sizeof *j1), a1, b1, s1;                               \
		C##_g2_jac *j2 = malloc(n * sizeof *j2), a2, b2, s2;                               \
		void *scr = malloc(2 * n * sizeof(p2->x));                                         \
		uint64_t(*k)[4] = malloc(n * sizeof *k);                                           \
		CU_ASSERT_FATAL(p1 && p2 && j1 && j2 && scr && k);                                 \
		C##_g1_gen(&g1);                                                                   \
		C##_g2_gen(&g2);                                                                   \
		C##_g1_from_aff(&s1, &g1);                                                         \
		C##_g2_from_aff(&s2, &g2);                                                         \
		uint64_t u[4];                                                                     \
		rand_scalar(u, CCN##_FR_P, 256);                                                   \
		C##_g1_mul(&j1[0], &s1, u, 4);                                                     \
		C##_g2_mul(&j2[0], &s2, u, 4);                                                     \
		for (size_t i = 1; i < n; i++) {                                                   \
			C##_g1_add(&j1[i], &j1[i - 1], &s1);                                       \
			C##_g2_add(&j2[i], &j2[i - 1], &s2);                                       \
		}                                                                                  \
		C##_g1_batch_to_aff(p1, j1, n, scr);                                               \
		C##_g2_batch_to_aff(p2, j2, n, scr);                                               \
		for (size_t i = 0; i < n; i++) {                                                   \
			uint32_t sel = (uint32_t)(zka_test_rand64() % 100);                        \
			rand_scalar(k[i], CCN##_FR_P, 256);                                        \
			if (sel < 20)                                                              \
				memset(k[i], 0, 32);                                               \
			else if (sel < 40)                                                         \
				memset(k[i], 0, 32), k[i][0] = 1;                                  \
		}                                                                                  \
		const uint64_t(*kc)[4] = (const uint64_t(*)[4])k;                                  \
		CU_ASSERT_FATAL(C##_g1_msm(&a1, p1, kc, n, 1) == 0);                               \
		CU_ASSERT_FATAL(C##_g2_msm(&a2, p2, kc, n, 1) == 0);                               \
		struct C##_g1_msm_ctx x1;                                                          \
		struct C##_g2_msm_ctx x2;                                                          \
		CU_ASSERT_FATAL(C##_g1_msm_plan(&x1, p1, kc, n, 3, NULL) == 0);                    \
		CU_ASSERT_FATAL(C##_g2_msm_plan(&x2, p2, kc, n, 3, &x1.d) == 0);                   \
		CU_ASSERT_FATAL(x1.c >= ZKA_MSM_AFFINE_MIN_C && x1.nones == 3);                    \
		struct C##_g1_msm_ws w1;                                                           \
		struct C##_g2_msm_ws w2;                                                           \
		CU_ASSERT_FATAL(C##_g1_msm_ws_alloc(&w1, x1.c) == 0);                              \
		CU_ASSERT_FATAL(C##_g2_msm_ws_alloc(&w2, x2.c) == 0);                              \
		for (int t = C##_g1_msm_ntask(&x1); t-- > 0;)                                      \
			C##_g1_msm_run_task(&x1, &w1, t);                                          \
		for (int t = C##_g2_msm_ntask(&x2); t-- > 0;)                                      \
			C##_g2_msm_run_task(&x2, &w2, t);                                          \
		C##_g1_msm_finish(&x1, &b1);                                                       \
		C##_g2_msm_finish(&x2, &b2);                                                       \
		CU_ASSERT_FATAL(C##_g1_eq(&a1, &b1));                                              \
		CU_ASSERT_FATAL(C##_g2_eq(&a2, &b2));                                              \
		C##_g1_msm_ws_free(&w1);                                                           \
		C##_g2_msm_ws_free(&w2);                                                           \
		C##_g2_msm_plan_free(&x2);                                                         \
		C##_g1_msm_plan_free(&x1);                                                         \
		free(p1), free(p2), free(j1), free(j2), free(scr), free(k);                        \
	}
MSM_PLAN_TEST(bn254, BN254)
MSM_PLAN_TEST(bls12_381, BLS12_381)

int main(void)
{
	static const zka_test_case cases[] = {
	    {"bn254 G1 vs GMP affine oracle", test_g1_oracle_bn254},
	    {"bls12-381 G1 vs GMP affine oracle", test_g1_oracle_bls12_381},
	    {"bn254 G1 laws", test_laws_bn254_g1},
	    {"bn254 G2 laws", test_laws_bn254_g2},
	    {"bls12-381 G1 laws", test_laws_bls12_381_g1},
	    {"bls12-381 G2 laws", test_laws_bls12_381_g2},
	    {"bn254 G1 XYZZ", test_xyzz_bn254_g1},
	    {"bn254 G2 XYZZ", test_xyzz_bn254_g2},
	    {"bls12-381 G1 XYZZ", test_xyzz_bls12_381_g1},
	    {"bls12-381 G2 XYZZ", test_xyzz_bls12_381_g2},
	    {"bn254 pairing", test_pairing_bn254},
	    {"bls12-381 pairing", test_pairing_bls12_381},
	    {"bn254 NTT", test_ntt_bn254},
	    {"bls12-381 NTT", test_ntt_bls12_381},
	    {"bn254 MSM G1", test_msm_bn254_g1},
	    {"bn254 MSM G2", test_msm_bn254_g2},
	    {"bls12-381 MSM G1", test_msm_bls12_381_g1},
	    {"bls12-381 MSM G2", test_msm_bls12_381_g2},
	    {"bn254 MSM G1 large, batch-affine", test_msm_big_bn254_g1},
	    {"bn254 MSM G2 large, batch-affine", test_msm_big_bn254_g2},
	    {"bls12-381 MSM G1 large, batch-affine", test_msm_big_bls12_381_g1},
	    {"bls12-381 MSM G2 large, batch-affine", test_msm_big_bls12_381_g2},
	    {"bn254 MSM plans, shared digits, G1 + G2", test_msm_plan_bn254},
	    {"bls12-381 MSM plans, shared digits, G1 + G2", test_msm_plan_bls12_381},
	    {NULL, NULL}};
	zka_test_suite("curve", cases);
	return zka_test_run();
}
