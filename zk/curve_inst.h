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

/* Returns 1 when p is on G1 and in the order-r subgroup (r p = 0). On a BN curve #E(Fq) = r
 * (cofactor 1): every point on the curve is in the subgroup and r p is not computed. */
static inline int ZKA_CAT2(CURVE, g1_aff_in_group)(const ZKA_CAT2(CURVE, g1_aff) * p)
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

/* Returns 1 when p is on the twist and in the order-r subgroup (r p = 0). */
static inline int ZKA_CAT2(CURVE, g2_aff_in_group)(const ZKA_CAT2(CURVE, g2_aff) * p)
{
	if (!ZKA_CAT2(CURVE, g2_aff_on_curve)(p))
		return 0;
	ZKA_CAT2(CURVE, g2_jac) j;
	ZKA_CAT2(CURVE, g2_from_aff)(&j, p);
	ZKA_CAT2(CURVE, g2_mul)(&j, &j, ZKA_CAT2(CC, R_PLAIN), 4);
	return ZKA_CAT2(CURVE, g2_is_inf)(&j);
}
