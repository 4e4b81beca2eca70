/* subgroup_batch_tmpl.h - a batched subgroup test of many points of a G2 (over Fq2): a random
 * linear combination sum_i c_i P_i, by buckets, tested once by the exact test, repeated with
 * fresh scalars; a batch that fails is checked point by point, so the answer (the lowest bad
 * index and why) is the exact test's. Generic over the curve; instantiated for BN254 G2 by
 * zk/curve_inst.h, after the exact test CURVE_g2_aff_in_group.
 *
 * Include with:
 *   SB_G     the group prefix, e.g. bn254_g2 (needs ec_tmpl.h's names and SB_G_aff_in_group)
 *   SB_FQ    its base field's prefix, e.g. bn254_fq (for the canonical-encoding check)
 *   SB_FQ2   its coordinate field's prefix, e.g. bn254_fq2
 *   SB_REPS  the repetitions (below: derived from the cofactor by the includer)
 * Generates:
 *   int  SB_G_batch_in_group(const SB_G_aff *p, size_t n, const uint16_t *c, int reps,
 *                            SB_G_sb_scratch *s)   (and SB_G_sb_sum, the combination itself)
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
 * batch (docs/keys.md). The sums are computed with complete formulas (ec_tmpl.h's XYZZ,
 * Jacobian and batch-affine additions handle P == Q, P == -Q and infinity; tests/test_subgroup.c
 * compares the sums with naive ones on such points), so the bound holds for crafted points too.
 *
 * Cost: 16-bit scalars in windows of 8 bits (4 below 512 points): per point and repetition 2
 * bucket additions (affine, batched inversion), against one 63-bit multiplication and three
 * psi for the exact test.
 */
#include "zk/curve.h"
#include "zk/tmpl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define E(n) ZKA_CAT2(SB_G, n)
#define SBQ(n) ZKA_CAT2(SB_FQ, n)
#define SBF(n) ZKA_CAT2(SB_FQ2, n)

#ifndef ZKA_SB_CONSTS
#define ZKA_SB_CONSTS
/* bits of each random scalar */
#define ZKA_SB_BITS 16
/* batches below this many points are checked point by point (the buckets would cost more) */
#define ZKA_SB_MIN 64
/* affine bucket additions sharing one inversion */
#define ZKA_SB_AFF_BATCH 64

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

/* Scratch of one batch: 255 buckets of each kind and one batch of affine additions. */
typedef struct {
	E(xyzz) ov[255]; /* XYZZ buckets: 4-bit windows, and the conflicts of affine ones */
	E(aff) bk[255];	 /* affine buckets (8-bit windows) */
	uint8_t used[255], busy[255]; /* bk[d] holds a point (not infinity); is in the batch */
	E(aff) *acc[ZKA_SB_AFF_BATCH];
	E(aff) q[ZKA_SB_AFF_BATCH];
	SBF(t) fs[2 * ZKA_SB_AFF_BATCH];
	size_t m;   /* additions pending in acc, q */
	int affine; /* 1: affine buckets for 8-bit windows (the default); 0: XYZZ only (tests) */
} E(sb_scratch);

/* The pending affine additions done, with one inversion (ec_tmpl.h's batch_add_aff). */
static inline void E(sb_flush)(E(sb_scratch) *s)
{
	E(batch_add_aff)(s->acc, s->q, s->m, s->fs);
	for (size_t k = 0; k < s->m; k++) {
		size_t d = (size_t)(s->acc[k] - s->bk);
		s->busy[d] = 0;
		if (E(aff_is_inf)(&s->bk[d])) /* P + (-P) */
			s->used[d] = 0;
	}
	s->m = 0;
}

/* r = sum_i d_i p_i, d_i = (c_i >> shift) mod 2^w, by 2^w - 1 buckets. 8-bit windows (unless
 * s->affine is 0) use affine buckets added in batches sharing one inversion (~6
 * multiplications an addition instead of a mixed XYZZ addition's ~10); a point whose bucket is
 * already in the pending batch goes to that bucket's XYZZ twin instead. */
static inline void E(sb_window)(E(jac) *r, const E(aff) *p, size_t n, const uint16_t *c,
				int shift, int w, E(sb_scratch) *s)
{
	const uint32_t mask = (1u << w) - 1;
	const int aff = s->affine && w == 8;
	for (uint32_t d = 0; d < mask; d++) {
		E(xyzz_set_inf)(&s->ov[d]);
		s->used[d] = s->busy[d] = 0;
	}
	s->m = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t d = ((uint32_t)c[i] >> shift) & mask;
		if (!d--)
			continue;
		if (!aff || s->busy[d]) {
			E(xyzz_add_aff)(&s->ov[d], &s->ov[d], &p[i]);
		} else if (E(aff_is_inf)(&p[i])) {
			continue;
		} else if (!s->used[d]) {
			s->bk[d] = p[i];
			s->used[d] = 1;
		} else {
			s->busy[d] = 1;
			s->acc[s->m] = &s->bk[d];
			s->q[s->m++] = p[i];
			if (s->m == ZKA_SB_AFF_BATCH)
				E(sb_flush)(s);
		}
	}
	if (aff)
		E(sb_flush)(s);
	E(xyzz) run, sum; /* sum_d d B_d = sum over d of the running sums from the top */
	E(xyzz_set_inf)(&run);
	E(xyzz_set_inf)(&sum);
	for (uint32_t d = mask; d-- > 0;) {
		if (aff && s->used[d])
			E(xyzz_add_aff)(&s->ov[d], &s->ov[d], &s->bk[d]);
		E(xyzz_add)(&run, &run, &s->ov[d]);
		E(xyzz_add)(&sum, &sum, &run);
	}
	E(xyzz_to_jac)(r, &sum);
}

/* r = sum_i c_i p_i (c_i 16-bit), by windows of w bits (4 or 8). */
static inline void E(sb_sum)(E(jac) *r, const E(aff) *p, size_t n, const uint16_t *c, int w,
			     E(sb_scratch) *s)
{
	E(jac) t;
	E(set_inf)(r);
	for (int shift = ZKA_SB_BITS - w; shift >= 0; shift -= w) {
		for (int k = 0; k < w; k++)
			E(dbl)(r, r);
		E(sb_window)(&t, p, n, c, shift, w, s);
		E(add)(r, r, &t);
	}
}

/* Returns 1 when, for each k < reps, sum_i c[k n + i] p_i is in the group (the exact test);
 * 0 otherwise. The points must be on the curve (see Soundness). */
static inline int E(batch_in_group)(const E(aff) *p, size_t n, const uint16_t *c, int reps,
				    E(sb_scratch) *s)
{
	int w = n < 512 ? 4 : 8;
	for (int k = 0; k < reps; k++) {
		E(jac) t;
		E(aff) a;
		E(sb_sum)(&t, p, n, c + (size_t)k * n, w, s);
		E(to_aff)(&a, &t);
		if (!E(aff_in_group)(&a))
			return 0;
	}
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
	E(sb_scratch) *bk = NULL;
	int ok = 0;
	if (n >= ZKA_SB_MIN && (pt = malloc(n * sizeof *pt)) &&
	    (c = malloc((size_t)SB_REPS * n * sizeof *c)) && (bk = malloc(sizeof *bk))) {
		bk->affine = 1;
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
#undef SBF
#undef SB_G
#undef SB_FQ
#undef SB_FQ2
#undef SB_REPS
