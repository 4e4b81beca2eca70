/* pairing_ref_tmpl.h - the REFERENCE optimal ate pairing (CURVE_pairref_*), generic over BN and
 * BLS12 curves. Kept as the slow, obviously-right model that tests compare the fast pairing
 * (pairing_tmpl.h, CURVE_pair_*) against; nothing in production calls it.
 *
 * Chosen for being obviously right rather than fast: Q in G2 is mapped by the untwisting
 * isomorphism into E(Fq12) and the Miller loop runs in affine Fq12 coordinates with ordinary chord-and-tangent lines; vertical lines
 * are dropped because they lie in a proper subfield that the final exponentiation kills; the
 * Frobenius is a plain exponentiation by q; the final exponentiation is f^(q^6-1) followed by
 * one exponentiation by (q^2+1)(q^4-q^2+1)/r. No Frobenius constants or twist-specific line
 * formulas are needed, so both twist types share every line of code.
 *
 * Include after tower_tmpl.h and the G1/G2 instances, with CURVE and:
 *   PAIR_C       constant prefix (BN254, BLS12_381): uses _ATE_LOOP, _ATE_LOOP_BITS,
 *                _ATE_NEG, _FINAL_EXP, _FINAL_EXP_LIMBS, _FQ_P
 *   PAIR_DTWIST  1 for a D-type twist (b' = b/xi), 0 for M-type (b' = b*xi)
 *   PAIR_BN      1 for BN curves (two extra Frobenius lines), 0 for BLS12
 */
#include "zk/tmpl.h"

#define Q(n) ZKA_CAT2(CURVE, fq_##n)
#define Q2(n) ZKA_CAT2(CURVE, fq2_##n)
#define Q12(n) ZKA_CAT2(CURVE, fq12_##n)
#define G1(n) ZKA_CAT2(CURVE, g1_##n)
#define G2(n) ZKA_CAT2(CURVE, g2_##n)
#define PR(n) ZKA_CAT2(CURVE, pairref_##n)
#define PK2(a, b) a##_##b
#define PK1(a, b) PK2(a, b)
#define PK(n) PK1(PAIR_C, n)

typedef struct {
	Q12(t) x, y;
} PR(pt);

/* r = the image of q in E(Fq12): (x w^2, y w^3) for D-type, (x / w^2, y / w^3) for M-type. */
static inline void PR(untwist)(PR(pt) *r, const ZKA_CAT2(CURVE, g2_aff) *q)
{
	Q12(t) w, w2, w3, x, y;
	Q12(zero)(&w);
	Q2(one)(&w.c1.c0);
	Q12(sqr)(&w2, &w);
	Q12(mul)(&w3, &w2, &w);
	if (!PAIR_DTWIST) {
		Q12(inv)(&w2, &w2);
		Q12(inv)(&w3, &w3);
	}
	Q12(zero)(&x);
	Q12(zero)(&y);
	x.c0.c0 = q->x;
	y.c0.c0 = q->y;
	Q12(mul)(&r->x, &x, &w2);
	Q12(mul)(&r->y, &y, &w3);
}

/* r = (q_x^q, q_y^q), the q-power Frobenius of an Fq12 point */
static inline void PR(frob)(PR(pt) *r, const PR(pt) *p)
{
	Q12(pow)(&r->x, &p->x, PK(FQ_P), (int)(sizeof PK(FQ_P) / sizeof PK(FQ_P)[0]));
	Q12(pow)(&r->y, &p->y, PK(FQ_P), (int)(sizeof PK(FQ_P) / sizeof PK(FQ_P)[0]));
}

/* Multiplies f by the line through t with slope lam, evaluated at the G1 point (px, py):
 * (py - ty) - lam (px - tx). */
static inline void PR(line)(Q12(t) *f, const PR(pt) *t, const Q12(t) *lam, const Q12(t) *px,
			    const Q12(t) *py)
{
	Q12(t) l, d;
	Q12(sub)(&d, px, &t->x);
	Q12(mul)(&d, &d, lam);
	Q12(sub)(&l, py, &t->y);
	Q12(sub)(&l, &l, &d);
	Q12(mul)(f, f, &l);
}

/* t = 2t, f *= tangent line at t (evaluated at P). t must not have y = 0 (never for order r). */
static inline void PR(step_dbl)(Q12(t) *f, PR(pt) *t, const Q12(t) *px, const Q12(t) *py)
{
	Q12(t) lam, num, den, x3, y3;
	Q12(sqr)(&num, &t->x);
	Q12(add)(&lam, &num, &num);
	Q12(add)(&num, &lam, &num);
	Q12(dbl)(&den, &t->y);
	Q12(inv)(&den, &den);
	Q12(mul)(&lam, &num, &den);
	PR(line)(f, t, &lam, px, py);
	Q12(sqr)(&x3, &lam);
	Q12(sub)(&x3, &x3, &t->x);
	Q12(sub)(&x3, &x3, &t->x);
	Q12(sub)(&y3, &t->x, &x3);
	Q12(mul)(&y3, &y3, &lam);
	Q12(sub)(&y3, &y3, &t->y);
	t->x = x3;
	t->y = y3;
}

/* t = t + q, f *= chord line through t and q (evaluated at P). Returns -1 when t = +-q
 * (a vertical line: never reached for points of order r and the loops below). */
static inline int PR(step_add)(Q12(t) *f, PR(pt) *t, const PR(pt) *q, const Q12(t) *px,
			       const Q12(t) *py)
{
	Q12(t) lam, num, den, x3, y3;
	Q12(sub)(&den, &q->x, &t->x);
	if (Q12(is_zero)(&den))
		return -1;
	Q12(sub)(&num, &q->y, &t->y);
	Q12(inv)(&den, &den);
	Q12(mul)(&lam, &num, &den);
	PR(line)(f, t, &lam, px, py);
	Q12(sqr)(&x3, &lam);
	Q12(sub)(&x3, &x3, &t->x);
	Q12(sub)(&x3, &x3, &q->x);
	Q12(sub)(&y3, &t->x, &x3);
	Q12(mul)(&y3, &y3, &lam);
	Q12(sub)(&y3, &y3, &t->y);
	t->x = x3;
	t->y = y3;
	return 0;
}

/* f = the Miller loop value of the optimal ate pairing of (P, Q); 1 when either is infinity.
 * Returns 0, or -1 if a degenerate line was met (inputs not of order r). */
static inline int PR(miller)(Q12(t) *f, const ZKA_CAT2(CURVE, g1_aff) *p,
			     const ZKA_CAT2(CURVE, g2_aff) *q)
{
	Q12(one)(f);
	if (G1(aff_is_inf)(p) || G2(aff_is_inf)(q))
		return 0;
	Q12(t) px, py;
	Q12(zero)(&px);
	Q12(zero)(&py);
	px.c0.c0.c0 = p->x;
	py.c0.c0.c0 = p->y;
	PR(pt) qt, t;
	PR(untwist)(&qt, q);
	t = qt;
	for (int i = PK(ATE_LOOP_BITS) - 2; i >= 0; i--) {
		Q12(sqr)(f, f);
		PR(step_dbl)(f, &t, &px, &py);
		if ((PK(ATE_LOOP)[i / 64] >> (i % 64)) & 1)
			if (PR(step_add)(f, &t, &qt, &px, &py))
				return -1;
	}
	if (PAIR_BN) {
		PR(pt) q1, q2;
		PR(frob)(&q1, &qt);
		PR(frob)(&q2, &q1);
		Q12(neg)(&q2.y, &q2.y);
		if (PR(step_add)(f, &t, &q1, &px, &py))
			return -1;
		if (PR(step_add)(f, &t, &q2, &px, &py))
			return -1;
	}
	if (PK(ATE_NEG))
		Q12(conj)(f, f);
	return 0;
}

/* r = f^((q^12 - 1) / r) */
static inline void PR(final_exp)(Q12(t) *r, const Q12(t) *f)
{
	Q12(t) a, b;
	Q12(conj)(&a, f);
	Q12(inv)(&b, f);
	Q12(mul)(&a, &a, &b);
	Q12(pow)(r, &a, PK(FINAL_EXP), PK(FINAL_EXP_LIMBS));
}

/* r = e(P, Q). Returns 0, or -1 for degenerate inputs. */
static inline int PR(pairing)(Q12(t) *r, const ZKA_CAT2(CURVE, g1_aff) *p,
			      const ZKA_CAT2(CURVE, g2_aff) *q)
{
	Q12(t) f;
	if (PR(miller)(&f, p, q))
		return -1;
	PR(final_exp)(r, &f);
	return 0;
}

/* Returns 1 when prod e(P_i, Q_i) == 1, 0 when not, -1 for degenerate inputs. */
static inline int PR(check)(const ZKA_CAT2(CURVE, g1_aff) *p, const ZKA_CAT2(CURVE, g2_aff) *q,
			    int n)
{
	Q12(t) acc, f;
	Q12(one)(&acc);
	for (int i = 0; i < n; i++) {
		if (PR(miller)(&f, &p[i], &q[i]))
			return -1;
		Q12(mul)(&acc, &acc, &f);
	}
	PR(final_exp)(&acc, &acc);
	return Q12(is_one)(&acc);
}

#undef Q
#undef Q2
#undef Q12
#undef G1
#undef G2
#undef PR
#undef PK
#undef PK1
#undef PK2
