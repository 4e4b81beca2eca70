/* curve_inst.h - instantiates the field, tower, group and pairing templates for one curve.
 *
 * Define before including (bn254.h and bls12_381.h do):
 *   CURVE         lower-case prefix of every generated name (bn254, bls12_381)
 *   CC            upper-case prefix of its constants in curve_consts.h (BN254, BLS12_381)
 *   CURVE_FQ_N    64-bit limbs of Fq (4 or 6); Fr always has 4
 *   CURVE_DTWIST  1 when G2 lives on a D-type twist, 0 for M-type
 *   CURVE_BN      1 for a BN curve, 0 for BLS12
 * Generated: CURVE_fq_*, CURVE_fr_*, CURVE_fq2/6/12_*, CURVE_g1_*, CURVE_g2_*, CURVE_pair_*
 * (and the slow reference pairing CURVE_pairref_*, which tests compare against).
 */
#include "zk/curve_consts.h"
#include "zk/tmpl.h"

#define FP ZKA_CAT2(CURVE, fq)
#define FP_N CURVE_FQ_N
#define FP_C ZKA_CAT2(CC, FQ)
#include "zk/fp_tmpl.h"

#define FP ZKA_CAT2(CURVE, fr)
#define FP_N 4
#define FP_C ZKA_CAT2(CC, FR)
#include "zk/fp_tmpl.h"

#define CURVE_XI0 ZKA_CAT2(CC, XI0)
#define CURVE_XI1 ZKA_CAT2(CC, XI1)
#include "zk/tower_tmpl.h"

#define EC ZKA_CAT2(CURVE, g1)
#define EF ZKA_CAT2(CURVE, fq)
#define EC_B(r) memcpy((r)->v, ZKA_CAT2(CC, G1_B), sizeof(r)->v)
#include "zk/ec_tmpl.h"

#define EC ZKA_CAT2(CURVE, g2)
#define EF ZKA_CAT2(CURVE, fq2)
#define EC_B(r)                                                                                    \
	(memcpy((r)->c0.v, ZKA_CAT2(CC, G2_B0), sizeof(r)->c0.v),                                  \
	 memcpy((r)->c1.v, ZKA_CAT2(CC, G2_B1), sizeof(r)->c1.v))
#include "zk/ec_tmpl.h"

#define PAIR_C CC
#define PAIR_DTWIST CURVE_DTWIST
#define PAIR_BN CURVE_BN
#include "zk/pairing_ref_tmpl.h"
#include "zk/pairing_tmpl.h"
#undef PAIR_C
#undef PAIR_DTWIST
#undef PAIR_BN
#undef CURVE_XI0
#undef CURVE_XI1

/* The generators, as affine points. */
static inline void ZKA_CAT2(CURVE, g1_gen)(ZKA_CAT2(CURVE, g1_aff) * g)
{
	memcpy(g->x.v, ZKA_CAT2(CC, G1_GX), sizeof g->x.v);
	memcpy(g->y.v, ZKA_CAT2(CC, G1_GY), sizeof g->y.v);
}

static inline void ZKA_CAT2(CURVE, g2_gen)(ZKA_CAT2(CURVE, g2_aff) * g)
{
	memcpy(g->x.c0.v, ZKA_CAT2(CC, G2_GX0), sizeof g->x.c0.v);
	memcpy(g->x.c1.v, ZKA_CAT2(CC, G2_GX1), sizeof g->x.c1.v);
	memcpy(g->y.c0.v, ZKA_CAT2(CC, G2_GY0), sizeof g->y.c0.v);
	memcpy(g->y.c1.v, ZKA_CAT2(CC, G2_GY1), sizeof g->y.c1.v);
}

/* Reference subgroup tests: 1 when p is on the curve (twist) and r p = 0, by a 254-bit
 * double-and-add. On a BN curve #E(Fq) = r (cofactor 1): every point on G1's curve is in the
 * subgroup and r p is not computed. Kept for the tests, which compare the fast tests below
 * with them. Infinity is in the group. */
static inline int ZKA_CAT2(CURVE, g1_aff_in_group_ref)(const ZKA_CAT2(CURVE, g1_aff) * p)
{
	if (!ZKA_CAT2(CURVE, g1_aff_on_curve)(p))
		return 0;
	if (CURVE_BN)
		return 1;
	ZKA_CAT2(CURVE, g1_jac) j;
	ZKA_CAT2(CURVE, g1_from_aff)(&j, p);
	ZKA_CAT2(CURVE, g1_mul)(&j, &j, ZKA_CAT2(CC, R_PLAIN), 4);
	return ZKA_CAT2(CURVE, g1_is_inf)(&j);
}

static inline int ZKA_CAT2(CURVE, g2_aff_in_group_ref)(const ZKA_CAT2(CURVE, g2_aff) * p)
{
	if (!ZKA_CAT2(CURVE, g2_aff_on_curve)(p))
		return 0;
	ZKA_CAT2(CURVE, g2_jac) j;
	ZKA_CAT2(CURVE, g2_from_aff)(&j, p);
	ZKA_CAT2(CURVE, g2_mul)(&j, &j, ZKA_CAT2(CC, R_PLAIN), 4);
	return ZKA_CAT2(CURVE, g2_is_inf)(&j);
}

/* r = psi^k(p) (k = 1, 2, 3) on the twist, psi = untwist^-1 o Frobenius o untwist: each
 * coordinate X, Y, Z goes to its q^k-power (conjugation for odd k); X and Y are then scaled by
 * the constants _G2_PSI[k-1] (derived and checked in scripts/gen-consts.py: psi(G) = [q]G).
 * Valid in Jacobian coordinates because the Frobenius is a field automorphism. */
static inline void ZKA_CAT2(CURVE, g2_psi)(ZKA_CAT2(CURVE, g2_jac) * r,
					   const ZKA_CAT2(CURVE, g2_jac) * p, int k)
{
	ZKA_CAT2(CURVE, fq2_t) c;
	if (k & 1) {
		ZKA_CAT2(CURVE, fq2_conj)(&r->X, &p->X);
		ZKA_CAT2(CURVE, fq2_conj)(&r->Y, &p->Y);
		ZKA_CAT2(CURVE, fq2_conj)(&r->Z, &p->Z);
	} else {
		*r = *p;
	}
	memcpy(c.c0.v, ZKA_CAT2(CC, G2_PSI)[k - 1][0][0], sizeof c.c0.v);
	memcpy(c.c1.v, ZKA_CAT2(CC, G2_PSI)[k - 1][0][1], sizeof c.c1.v);
	ZKA_CAT2(CURVE, fq2_mul)(&r->X, &r->X, &c);
	memcpy(c.c0.v, ZKA_CAT2(CC, G2_PSI)[k - 1][1][0], sizeof c.c0.v);
	memcpy(c.c1.v, ZKA_CAT2(CC, G2_PSI)[k - 1][1][1], sizeof c.c1.v);
	ZKA_CAT2(CURVE, fq2_mul)(&r->Y, &r->Y, &c);
}

/* Returns 1 when p is on G1 and in the order-r subgroup; infinity is. Same answers as
 * g1_aff_in_group_ref (tests/test_subgroup.c compares them).
 * BN: the curve check only (cofactor 1).
 * BLS12: phi(p) == -[x^2] p with phi(x, y) = (beta x, y) (Scott, "A note on group membership
 * tests for G1, G2 and GT on BLS pairing-friendly curves", ePrint 2021/1130): two 64-bit
 * multiplications by |x| instead of one by r. Exact (not only necessary): phi acts as -x^2 on
 * G1, and on every l-torsion of the cofactor part phi - (-x^2) has determinant
 * Res(X^2 + X + 1, X + x^2) = r mod l != 0; asserted in scripts/gen-consts.py.
 * Timing per subgroup point (2-core dev VM, shared, 2026-12-02, test_subgroup, best of 3 runs of
 * 200 points): BLS12-381 G1 r*P 152 us -> 44 us (3.4x). */
static inline int ZKA_CAT2(CURVE, g1_aff_in_group)(const ZKA_CAT2(CURVE, g1_aff) * p)
{
	if (!ZKA_CAT2(CURVE, g1_aff_on_curve)(p))
		return 0;
#if CURVE_BN
	return 1;
#else
	if (ZKA_CAT2(CURVE, g1_aff_is_inf)(p))
		return 1;
	ZKA_CAT2(CURVE, g1_jac) a, f;
	ZKA_CAT2(CURVE, g1_mul_u64_aff)(&a, p, ZKA_CAT2(CC, X_ABS));
	ZKA_CAT2(CURVE, g1_mul_u64)(&a, &a, ZKA_CAT2(CC, X_ABS)); /* x^2 p: the sign squares away */
	ZKA_CAT2(CURVE, g1_neg)(&a, &a);
	ZKA_CAT2(CURVE, fq_t) beta;
	memcpy(beta.v, ZKA_CAT2(CC, G1_BETA), sizeof beta.v);
	ZKA_CAT2(CURVE, g1_from_aff)(&f, p);
	ZKA_CAT2(CURVE, fq_mul)(&f.X, &f.X, &beta);
	return ZKA_CAT2(CURVE, g1_eq)(&f, &a);
#endif
}

/* Returns 1 when p is on the twist and in the order-r subgroup G2; infinity is. Same answers
 * as g2_aff_in_group_ref (tests/test_subgroup.c compares them). psi acts as q on G2, and each
 * test is g(psi) p == 0 for a polynomial g with g(q) = 0 mod r whose resultant with psi's
 * characteristic polynomial X^2 - tX + q is prime to the cofactor h2, so g(psi) is injective
 * on the cofactor part: the test is exact (asserted in scripts/gen-consts.py).
 * BN: [x+1]p + psi([x]p) + psi^2([x]p) == psi^3([2x]p) (El Housni, Guillevic, Piellard,
 *     "Co-factor clearing and subgroup membership testing on pairing-friendly curves", ePrint
 *     2022/352): one 63-bit multiplication by x instead of one by r.
 * BLS12: psi(p) == [x]p (Scott, ePrint 2021/1130): one 64-bit multiplication.
 * Timing per subgroup point (2-core dev VM, shared, 2026-12-02, test_subgroup, best of 3 runs of
 * 200 points): BN254 G2 r*P 220 us -> 49 us (4.4x); BLS12-381 G2 r*P 405 us -> 52 us (7.7x).
 * zkarena import --threads 1 of a 16384-constraint key: BN254 2.44 s -> 0.67 s, BLS12-381
 * 15.7 s -> 3.9 s, the .zka byte-identical. */
static inline int ZKA_CAT2(CURVE, g2_aff_in_group)(const ZKA_CAT2(CURVE, g2_aff) * p)
{
	if (!ZKA_CAT2(CURVE, g2_aff_on_curve)(p))
		return 0;
	if (ZKA_CAT2(CURVE, g2_aff_is_inf)(p))
		return 1;
	ZKA_CAT2(CURVE, g2_jac) a, l, t;
	ZKA_CAT2(CURVE, g2_mul_u64_aff)(&a, p, ZKA_CAT2(CC, X_ABS));
	if (ZKA_CAT2(CC, X_NEG))
		ZKA_CAT2(CURVE, g2_neg)(&a, &a); /* a = [x] p */
#if CURVE_BN
	ZKA_CAT2(CURVE, g2_add_aff)(&l, &a, p);
	ZKA_CAT2(CURVE, g2_psi)(&t, &a, 1);
	ZKA_CAT2(CURVE, g2_add)(&l, &l, &t);
	ZKA_CAT2(CURVE, g2_psi)(&t, &a, 2);
	ZKA_CAT2(CURVE, g2_add)(&l, &l, &t);
	ZKA_CAT2(CURVE, g2_dbl)(&t, &a);
	ZKA_CAT2(CURVE, g2_psi)(&t, &t, 3);
	return ZKA_CAT2(CURVE, g2_eq)(&l, &t);
#else
	ZKA_CAT2(CURVE, g2_from_aff)(&t, p);
	ZKA_CAT2(CURVE, g2_psi)(&l, &t, 1);
	return ZKA_CAT2(CURVE, g2_eq)(&l, &a);
#endif
}

#if CURVE_BN
/* The batched G2 subgroup test, CURVE_g2_batch_in_group and CURVE_g2_check_batch_b (the curve
 * object's g2_check_batch): 16-bit random scalars, 5 repetitions. h2 = 10069 * 5864401 *
 * 1875725156269 * (a 178-bit prime), its least prime factor 10069, so a batch with a point off
 * G2 passes with probability <= (ceil(2^16 / 10069) / 2^16)^5 = (7 / 2^16)^5 < 2^-65.9
 * (the argument in zk/subgroup_batch_tmpl.h; tests/test_subgroup.c factors h2 and checks the
 * bound). */
#define SB_G ZKA_CAT2(CURVE, g2)
#define SB_FQ ZKA_CAT2(CURVE, fq)
#define SB_FQ2 ZKA_CAT2(CURVE, fq2)
#define SB_REPS 5
#include "zk/subgroup_batch_tmpl.h"
#endif
