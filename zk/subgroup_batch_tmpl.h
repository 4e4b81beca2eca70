/* subgroup_batch_tmpl.h - a batched subgroup test of many points of a G2 (over Fq2): a random
 * linear combination sum_i c_i P_i, by buckets, tested once by the exact test, repeated with
 * fresh scalars; a batch that fails is checked point by point, so the answer (the lowest bad
 * index and why) is the exact test's. Generic over the curve; instantiated for BN254 G2 by
 * zk/curve_inst.h, after the exact test CURVE_g2_aff_in_group.
 *
 * Include with:
 *   SB_G     the group prefix, e.g. bn254_g2 (needs ec_tmpl.h's names and SB_G_aff_in_group)
 *   SB_FQ    its base field's prefix, e.g. bn254_fq (for the canonical-encoding check)
 *   SB_REPS  the repetitions (below: derived from the cofactor by the includer)
 * Generates:
 *   int  SB_G_batch_in_group(const SB_G_aff *p, size_t n, const uint16_t *c, int reps, xyzz *bk)
 *   int  SB_G_check_batch_b(const void *p, size_t n, size_t *bad)   (a zka_curve g2_check_batch)
 *   int  SB_G_batch_reps(void)
 *
 * Soundness. Let E' be the twist, #E' = r h with gcd(r, h) = 1, so E' = G2 (+) H, H the points
 * of order dividing h, and P in G2 iff its H-component T is 0. Every point of the batch is first
 * checked on E' (and canonical). Suppose P_j is not in G2: T_j != 0 has order m > 1, m | h, so
 * m >= l, the least prime factor of h. The sum is in G2 iff sum_i c_i T_i = 0; with every c_i
 * (i != j) fixed, that is c_j T_j = V for one V, whose solutions c_j are empty or one class mod
 * m. For c_j uniform in [0, 2^16) (getrandom), P(pass) <= ceil(2^16 / m) / 2^16 <=
 * ceil(2^16 / l) / 2^16 =: p1, whatever the other points are (chosen before the c_i). The SB_REPS
 * repetitions use independent scalars: a batch with a bad point passes with probability
 * <= p1^SB_REPS. BN254: h = 10069 * 5864401 * 1875725156269 * (a 178-bit prime) (factored in
 * tests/test_subgroup.c), l = 10069, p1 = 7 / 2^16 = 2^-13.19, 5 repetitions: <= 2^-65.9 per
 * batch (docs/keys.md). The sums are computed with complete formulas (ec_tmpl.h's XYZZ and
 * Jacobian additions handle P == Q, P == -Q and infinity), so the bound holds for crafted
 * points too.
 *
 * Cost: 16-bit scalars in windows of 8 bits (4 below 512 points): per point and repetition 2
 * mixed XYZZ additions, against one 63-bit multiplication and three psi for the exact test.
 */
#include "zk/curve.h"
#include "zk/tmpl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define E(n) ZKA_CAT2(SB_G, n)
#define SBQ(n) ZKA_CAT2(SB_FQ, n)

#ifndef ZKA_SB_CONSTS
#define ZKA_SB_CONSTS
/* bits of each random scalar */
#define ZKA_SB_BITS 16
/* batches below this many points are checked point by point (the buckets would cost more) */
#define ZKA_SB_MIN 64

/* Fills buf with n bytes from getrandom(2); 0 or -errno. */
static inline int zka_sb_random(void *buf, size_t n)
{
	uint8_t *b = buf;
	while (n) {
		ssize_t k = getrandom(b, n, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}
#endif

static inline int E(batch_reps)(void)
{
	return SB_REPS;
}

/* r = sum_i d_i p_i, d_i = (c_i >> shift) mod 2^w, by 2^w - 1 buckets bk. */
static inline void E(sb_window)(E(jac) *r, const E(aff) *p, size_t n, const uint16_t *c,
				int shift, int w, E(xyzz) *bk)
{
	const uint32_t mask = (1u << w) - 1;
	for (uint32_t d = 0; d < mask; d++)
		E(xyzz_set_inf)(&bk[d]);
	for (size_t i = 0; i < n; i++) {
		uint32_t d = ((uint32_t)c[i] >> shift) & mask;
		if (d)
			E(xyzz_add_aff)(&bk[d - 1], &bk[d - 1], &p[i]);
	}
	E(xyzz) run, sum; /* sum_d d B_d = sum over d of the running sums from the top */
	E(xyzz_set_inf)(&run);
	E(xyzz_set_inf)(&sum);
	for (uint32_t d = mask; d-- > 0;) {
		E(xyzz_add)(&run, &run, &bk[d]);
		E(xyzz_add)(&sum, &sum, &run);
	}
	E(xyzz_to_jac)(r, &sum);
}

/* 1 when sum_i c_i p_i (c_i 16-bit) is in the group, by the exact test. */
static inline int E(sb_once)(const E(aff) *p, size_t n, const uint16_t *c, int w, E(xyzz) *bk)
{
	E(jac) acc, t;
	E(aff) a;
	E(set_inf)(&acc);
	for (int shift = ZKA_SB_BITS - w; shift >= 0; shift -= w) {
		for (int k = 0; k < w; k++)
			E(dbl)(&acc, &acc);
		E(sb_window)(&t, p, n, c, shift, w, bk);
		E(add)(&acc, &acc, &t);
	}
	E(to_aff)(&a, &acc);
	return E(aff_in_group)(&a);
}

/* Returns 1 when, for each k < reps, sum_i c[k n + i] p_i is in the group; 0 otherwise. The
 * points must be on the curve (see Soundness). bk holds 255 buckets. */
static inline int E(batch_in_group)(const E(aff) *p, size_t n, const uint16_t *c, int reps,
				    E(xyzz) *bk)
{
	int w = n < 512 ? 4 : 8;
	for (int k = 0; k < reps; k++)
		if (!E(sb_once)(p, n, c + (size_t)k * n, w, bk))
			return 0;
	return 1;
}

/* The exact check of one point's bytes: 0, ZKA_ENOTONCURVE (a coordinate not below q, or off
 * the curve) or ZKA_ENOTINGROUP; a copy in *a. */
static inline int E(sb_check1)(E(aff) *a, const uint8_t *b)
{
	memcpy(a, b, sizeof *a);
	if (!SBQ(is_canonical)(&a->x.c0) || !SBQ(is_canonical)(&a->x.c1) ||
	    !SBQ(is_canonical)(&a->y.c0) || !SBQ(is_canonical)(&a->y.c1) || !E(aff_on_curve)(a))
		return ZKA_ENOTONCURVE;
	return 0;
}

/* The n points of p (affine Montgomery bytes, consecutive, infinity all zero): 0 when all are
 * in the order-r subgroup; else the code of the lowest failing one (ZKA_ENOTONCURVE,
 * ZKA_ENOTINGROUP, as the one-point check says) and its index in *bad. On the curve checked
 * point by point, the subgroup by SB_REPS random combinations; a batch that fails one, or
 * below ZKA_SB_MIN points, or where memory or getrandom fails, is checked point by point. */
static inline int E(check_batch_b)(const void *p, size_t n, size_t *bad)
{
	const uint8_t *b = p;
	const size_t sz = sizeof(E(aff));
	E(aff) *pt = NULL;
	uint16_t *c = NULL;
	E(xyzz) *bk = NULL;
	int ok = 0;
	if (n >= ZKA_SB_MIN && (pt = malloc(n * sizeof *pt)) &&
	    (c = malloc((size_t)SB_REPS * n * sizeof *c)) && (bk = malloc(255 * sizeof *bk))) {
		ok = 1;
		for (size_t i = 0; i < n && ok; i++)
			ok = E(sb_check1)(&pt[i], b + i * sz) == 0;
		ok = ok && zka_sb_random(c, (size_t)SB_REPS * n * sizeof *c) == 0 &&
		     E(batch_in_group)(pt, n, c, SB_REPS, bk);
	}
	free(pt);
	free(c);
	free(bk);
	if (ok)
		return 0;
	for (size_t i = 0; i < n; i++) { /* exact, point by point */
		E(aff) a;
		int r = E(sb_check1)(&a, b + i * sz);
		if (!r && !E(aff_in_group)(&a))
			r = ZKA_ENOTINGROUP;
		if (r) {
			*bad = i;
			return r;
		}
	}
	return 0;
}

#undef E
#undef SBQ
#undef SB_G
#undef SB_FQ
#undef SB_REPS
