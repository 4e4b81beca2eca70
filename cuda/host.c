/* host.c - the host side of the GPU prover: the little serial work that is faster on one CPU
 * core than on the device (combining an MSM's reduction planes and windows, the final
 * randomisation, roots of unity), written with the host templates so that it is
 * byte-compatible with the CPU prover. */
#include <errno.h>
#include <string.h>

#include "cuda/host.h"
#include "zk/bls12_381.h"
#include "zk/bn254.h"

/* out = extra + sum_w 2^(c w) R_w with R_w = Q_w + 2^sh sum_b 2^b P_(w,b): window w's planes
 * are ps[w np] (Q) and ps[w np + 1 + b] (P_b), see the reduction's notes in engine.cuh. */
#define ZKG_HOST_COMBINE(C, G)                                                                         \
	static void C##_##G##_combine(const void *planes, int W, int c, int np, int sh, const void *extra, \
				      void *out)                                                       \
	{                                                                                              \
		const C##_##G##_jac *ps = planes;                                                      \
		C##_##G##_jac acc, r;                                                                  \
		C##_##G##_set_inf(&acc);                                                               \
		for (int w = W - 1; w >= 0; w--) {                                                     \
			C##_##G##_set_inf(&r);                                                         \
			for (int b = np - 2; b >= 0; b--) {                                            \
				C##_##G##_dbl(&r, &r);                                                 \
				C##_##G##_add(&r, &r, &ps[w * np + 1 + b]);                            \
			}                                                                              \
			for (int i = 0; i < sh && np > 1; i++)                                         \
				C##_##G##_dbl(&r, &r);                                                 \
			C##_##G##_add(&r, &r, &ps[w * np]);                                            \
			for (int i = 0; i < c; i++)                                                    \
				C##_##G##_dbl(&acc, &acc);                                             \
			C##_##G##_add(&acc, &acc, &r);                                                 \
		}                                                                                      \
		if (extra)                                                                             \
			C##_##G##_add(&acc, &acc, (const C##_##G##_jac *)extra);                       \
		memcpy(out, &acc, sizeof acc);                                                         \
	}

/* One instance of everything below per curve. */
#define ZKG_HOST_CURVE(C, CC)                                                                          \
	/* acc = 2^c acc + Q + 2^sh sum_b 2^b P_b for each window from the top (Horner's rule twice) */ \
	ZKG_HOST_COMBINE(C, g1)                                                                        \
	ZKG_HOST_COMBINE(C, g2)                                                                        \
	static void C##_combine(int g2, const void *planes, int W, int c, int np, int sh, const void *extra, \
				void *out)                                                             \
	{                                                                                              \
		if (g2)                                                                                \
			C##_g2_combine(planes, W, c, np, sh, extra, out);                              \
		else                                                                                   \
			C##_g1_combine(planes, W, c, np, sh, extra, out);                              \
	}                                                                                              \
	static void C##_add(int g2, const void *a, const void *b, void *out)                           \
	{                                                                                              \
		if (g2) {                                                                              \
			C##_g2_jac r;                                                                  \
			C##_g2_add(&r, (const C##_g2_jac *)a, (const C##_g2_jac *)b);                  \
			memcpy(out, &r, sizeof r);                                                     \
		} else {                                                                               \
			C##_g1_jac r;                                                                  \
			C##_g1_add(&r, (const C##_g1_jac *)a, (const C##_g1_jac *)b);                  \
			memcpy(out, &r, sizeof r);                                                     \
		}                                                                                      \
	}                                                                                              \
	/* an MSM's result to affine with the variable-time inversion (see F(inv_vartime)): the     \
	 * MSM's memory accesses (bucket indices) depend on its scalars already. The inversion in   \
	 * base-field products (bench field): 592 (Fermat) -> 75 for BLS12-381, 429 -> 78 for BN254. */ \
	static void C##_to_aff(int g2, const void *jac, void *aff)                                     \
	{                                                                                              \
		if (!g2) {                                                                             \
			C##_fq_t scr[2];                                                               \
			C##_g1_batch_to_aff(aff, jac, 1, scr);                                         \
		} else {                                                                               \
			C##_fq2_t scr[2];                                                              \
			C##_g2_batch_to_aff(aff, jac, 1, scr);                                         \
		}                                                                                      \
	}                                                                                              \
	/* the parts of the randomisation that depend on r and s only (computed while the GPU runs):  \
	 * pre = {r delta1, s delta1, -(r s) delta1 (G1), s delta2 (G2)} */                           \
	static void C##_pre(const zka_pk *pk, const zka_rs *rs, void *pre)                             \
	{                                                                                              \
		C##_g1_jac *p1 = pre, d1;                                                              \
		C##_g2_jac *p2 = (C##_g2_jac *)(p1 + 3), d2;                                           \
		C##_g1_aff delta1;                                                                     \
		C##_g2_aff delta2;                                                                     \
		memcpy(&delta1, pk->delta1, sizeof delta1);                                            \
		memcpy(&delta2, pk->delta2, sizeof delta2);                                            \
		C##_g1_from_aff(&d1, &delta1);                                                         \
		C##_g2_from_aff(&d2, &delta2);                                                         \
		C##_g1_mul(&p1[0], &d1, rs->r, 4);                                                     \
		C##_g1_mul(&p1[1], &d1, rs->s, 4);                                                     \
		C##_fr_t r_, s_, rs_;                                                                  \
		memcpy(r_.v, rs->r, 32);                                                               \
		memcpy(s_.v, rs->s, 32);                                                               \
		C##_fr_to_mont(&r_, &r_);                                                              \
		C##_fr_to_mont(&s_, &s_);                                                              \
		C##_fr_mul(&rs_, &r_, &s_);                                                            \
		C##_fr_from_mont(&rs_, &rs_);                                                          \
		C##_g1_mul(&p1[2], &d1, rs_.v, 4);                                                     \
		C##_g1_neg(&p1[2], &p1[2]);                                                            \
		C##_g2_mul(p2, &d2, rs->s, 4);                                                         \
	}                                                                                              \
	static void C##_finish(const zka_pk *pk, const void *jA, const void *jB1, const void *jB2,     \
			       const void *jC, const void *jH, const zka_rs *rs, const void *pre,      \
			       zka_proof *proof)                                                       \
	{                                                                                              \
		const C##_g1_jac *p1 = pre;                                                            \
		const C##_g2_jac *p2 = (const C##_g2_jac *)(p1 + 3);                                   \
		C##_g1_jac A, B1, Cc, t;                                                               \
		C##_g2_jac B2;                                                                         \
		C##_g1_aff alpha1, beta1;                                                              \
		C##_g2_aff beta2;                                                                      \
		memcpy(&A, jA, sizeof A);                                                              \
		memcpy(&B1, jB1, sizeof B1);                                                           \
		memcpy(&B2, jB2, sizeof B2);                                                           \
		memcpy(&Cc, jC, sizeof Cc);                                                            \
		memcpy(&alpha1, pk->alpha1, sizeof alpha1);                                            \
		memcpy(&beta1, pk->beta1, sizeof beta1);                                               \
		memcpy(&beta2, pk->beta2, sizeof beta2);                                               \
		/* A += alpha1 + r delta1 */                                                           \
		C##_g1_add_aff(&A, &A, &alpha1);                                                       \
		C##_g1_add(&A, &A, &p1[0]);                                                            \
		/* B2 += beta2 + s delta2 */                                                           \
		C##_g2_add_aff(&B2, &B2, &beta2);                                                      \
		C##_g2_add(&B2, &B2, p2);                                                              \
		/* B1 += beta1 + s delta1 */                                                           \
		C##_g1_add_aff(&B1, &B1, &beta1);                                                      \
		C##_g1_add(&B1, &B1, &p1[1]);                                                          \
		/* C += H + s A + r B1 - r s delta1 */                                                 \
		C##_g1_add(&Cc, &Cc, (const C##_g1_jac *)jH);                                          \
		C##_g1_mul(&t, &A, rs->s, 4);                                                          \
		C##_g1_add(&Cc, &Cc, &t);                                                              \
		C##_g1_mul(&t, &B1, rs->r, 4);                                                         \
		C##_g1_add(&Cc, &Cc, &t);                                                              \
		C##_g1_add(&Cc, &Cc, &p1[2]);                                                          \
		memset(proof->a, 0, sizeof proof->a);                                                  \
		memset(proof->b, 0, sizeof proof->b);                                                  \
		memset(proof->c, 0, sizeof proof->c);                                                  \
		C##_g1_to_aff((C##_g1_aff *)proof->a, &A);                                             \
		C##_g2_to_aff((C##_g2_aff *)proof->b, &B2);                                            \
		C##_g1_to_aff((C##_g1_aff *)proof->c, &Cc);                                            \
		proof->curve = pk->curve;                                                              \
	}                                                                                              \
	/* See zkg_host_roots in host.h: inc is the primitive 2^(logn+1)-th root of the family         \
	 * root (the CPU's ntt_root_kind(logn + 1, root)), w = inc^2, the monomial H's constants       \
	 * ginv = inc^-1 and -1/(2n). */                                                               \
	static void C##_roots(uint32_t logn, uint32_t root, zkg_roots *r)                              \
	{                                                                                              \
		C##_fr_t w, iw, inc, gi, t;                                                            \
		uint32_t s = CC##_FR_S;                                                                \
		if (root == ZKA_ROOT_GEN7) { /* 7^((r-1) / 2^S), blstrs's ROOT_OF_UNITY */             \
			uint64_t e[4];                                                                 \
			memcpy(e, CC##_FR_P, sizeof e);                                                \
			e[0] -= 1; /* r is odd: no borrow */                                           \
			for (int i = 0; i < 4; i++)                                                    \
				e[i] = (e[i] >> s) | (i < 3 ? e[i + 1] << (64 - s) : 0);               \
			C##_fr_from_u64(&t, 7);                                                        \
			C##_fr_pow(&inc, &t, e, 4);                                                    \
		} else {                                                                               \
			memcpy(inc.v, CC##_FR_ROOT, 32);                                               \
		}                                                                                      \
		for (uint32_t i = 0; i + logn + 1 < s; i++)                                            \
			C##_fr_sqr(&inc, &inc);                                                        \
		if (logn < s)                                                                          \
			C##_fr_sqr(&w, &inc);                                                          \
		else /* logn = s: w = ROOT; inc (of order 2^s only) is not a coset's */                \
			w = inc;                                                                       \
		C##_fr_inv(&iw, &w);                                                                   \
		C##_fr_inv(&gi, &inc);                                                                 \
		for (uint32_t b = 0; b < 32; b++) {                                                    \
			memcpy(r->fw[b], w.v, 32);                                                     \
			memcpy(r->iw[b], iw.v, 32);                                                    \
			memcpy(r->inc[b], inc.v, 32);                                                  \
			memcpy(r->ginv[b], gi.v, 32);                                                  \
			C##_fr_sqr(&w, &w);                                                            \
			C##_fr_sqr(&iw, &iw);                                                          \
			C##_fr_sqr(&inc, &inc);                                                        \
			C##_fr_sqr(&gi, &gi);                                                          \
		}                                                                                      \
		C##_fr_from_u64(&t, (uint64_t)1 << logn);                                              \
		C##_fr_inv(&t, &t);                                                                    \
		memcpy(r->ninv, t.v, 32);                                                              \
		C##_fr_from_u64(&t, (uint64_t)2 << logn);                                              \
		C##_fr_inv(&t, &t);                                                                    \
		C##_fr_neg(&t, &t);                                                                    \
		memcpy(r->hsc, t.v, 32);                                                               \
	}                                                                                              \
	static void C##_fb_table(int g2, const void *base, void *table)                                \
	{                                                                                              \
		/* table[j*256 + d] = d 2^(8j) base, affine; d = 0 is infinity */                     \
		if (!g2) {                                                                             \
			C##_g1_jac b, acc;                                                             \
			C##_g1_jac *tj = malloc(sizeof(C##_g1_jac) * 256 * 32);                        \
			C##_fq_t *scr = malloc(sizeof(C##_fq_t) * 2 * 256 * 32);                       \
			C##_g1_from_aff(&b, base);                                                     \
			for (int j = 0; j < 32; j++) {                                                 \
				C##_g1_set_inf(&acc);                                                  \
				for (int d = 0; d < 256; d++) {                                        \
					tj[j * 256 + d] = acc;                                         \
					C##_g1_add(&acc, &acc, &b);                                    \
				}                                                                      \
				b = acc;                                                               \
			}                                                                              \
			C##_g1_batch_to_aff(table, tj, 256 * 32, scr);                                 \
			free(tj);                                                                      \
			free(scr);                                                                     \
		} else {                                                                               \
			C##_g2_jac b, acc;                                                             \
			C##_g2_jac *tj = malloc(sizeof(C##_g2_jac) * 256 * 32);                        \
			C##_fq2_t *scr = malloc(sizeof(C##_fq2_t) * 2 * 256 * 32);                     \
			C##_g2_from_aff(&b, base);                                                     \
			for (int j = 0; j < 32; j++) {                                                 \
				C##_g2_set_inf(&acc);                                                  \
				for (int d = 0; d < 256; d++) {                                        \
					tj[j * 256 + d] = acc;                                         \
					C##_g2_add(&acc, &acc, &b);                                    \
				}                                                                      \
				b = acc;                                                               \
			}                                                                              \
			C##_g2_batch_to_aff(table, tj, 256 * 32, scr);                                 \
			free(tj);                                                                      \
			free(scr);                                                                     \
		}                                                                                      \
	}

#include <stdlib.h>
ZKG_HOST_CURVE(bn254, BN254)
ZKG_HOST_CURVE(bls12_381, BLS12_381)

#define PICK(curve, fn, ...)                                                                           \
	((curve) == ZKA_BN254 ? bn254_##fn(__VA_ARGS__) : bls12_381_##fn(__VA_ARGS__))

void zkg_host_combine(int curve, int g2, const void *planes, int W, int c, int np, int sh, const void *extra,
		      void *out)
{
	PICK(curve, combine, g2, planes, W, c, np, sh, extra, out);
}

void zkg_host_to_aff(int curve, int g2, const void *jac, void *aff)
{
	PICK(curve, to_aff, g2, jac, aff);
}

void zkg_host_add(int curve, int g2, const void *a, const void *b, void *out)
{
	PICK(curve, add, g2, a, b, out);
}

void zkg_host_pre(const zka_pk *pk, const zka_rs *rs, void *pre)
{
	PICK(pk->curve->id, pre, pk, rs, pre);
}

void zkg_host_finish(const zka_pk *pk, const void *A, const void *B1, const void *B2, const void *C,
		     const void *H, const zka_rs *rs, const void *pre, zka_proof *proof)
{
	PICK(pk->curve->id, finish, pk, A, B1, B2, C, H, rs, pre, proof);
}

int zkg_host_roots(int curve, uint32_t logn, uint32_t root, zkg_roots *r)
{
	uint32_t s = curve == ZKA_BN254 ? BN254_FR_S : BLS12_381_FR_S;
	if (logn > s || root > ZKA_ROOT_GEN7 || (root == ZKA_ROOT_GEN7 && curve != ZKA_BLS12_381))
		return -EINVAL;
	PICK(curve, roots, logn, root, r);
	return 0;
}

void zkg_host_fb_table(int curve, int g2, const void *base, void *table)
{
	PICK(curve, fb_table, g2, base, table);
}

/* the field elements' limbs (nl 64-bit limbs) into the six-limb slots of zkg_sg_consts */
#define SG_FILL(c, P, nl)                                                                          \
	do {                                                                                       \
		memcpy((c)->b1, P##_G1_B, 8 * (nl));                                               \
		memcpy((c)->b2[0], P##_G2_B0, 8 * (nl));                                           \
		memcpy((c)->b2[1], P##_G2_B1, 8 * (nl));                                           \
		for (int k = 0; k < 3; k++)                                                        \
			for (int j = 0; j < 2; j++)                                                \
				for (int e = 0; e < 2; e++)                                        \
					memcpy((c)->psi[k][j][e], P##_G2_PSI[k][j][e], 8 * (nl));  \
		(c)->x_abs = P##_X_ABS;                                                            \
		(c)->x_neg = P##_X_NEG;                                                            \
	} while (0)

void zkg_host_sg_consts(int curve, zkg_sg_consts *c, size_t len)
{
	if (len != sizeof *c)
		abort(); /* the device and the host disagree on the layout: a build error */
	memset(c, 0, sizeof *c);
	if (curve == ZKA_BN254) {
		SG_FILL(c, BN254, 4);
		c->bn = 1;
	} else {
		SG_FILL(c, BLS12_381, 6);
		memcpy(c->beta, BLS12_381_G1_BETA, sizeof c->beta);
	}
}
