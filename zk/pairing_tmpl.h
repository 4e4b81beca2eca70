/* pairing_tmpl.h - the optimal ate pairing, generic over BN and BLS12 curves (fast version).
 *
 * The slow, obviously-right model is pairing_ref_tmpl.h (CURVE_pairref_*); tests check that
 * CURVE_pair_pairing and CURVE_pair_final_exp here give exactly the same Fq12 values.
 *
 * Miller loop: Q stays on the twist over Fq2 in homogeneous projective coordinates
 * (X : Y : Z), x = X/Z, y = Y/Z; each doubling/addition step returns the tangent/chord line as
 * three Fq2 coefficients (Costello-Lange-Naehrig formulas for a = 0), which multiply f as a
 * sparse Fq12 element: at w^0, w^1, w^3 for a D-type twist (mul_by_034), at w^0, w^2, w^3 for
 * an M-type twist (mul_by_014). These lines differ from the reference's untwisted affine lines
 * by factors in proper subfields (Fq2 scalings, powers of w^3 in Fq4), which the final
 * exponentiation maps to 1. All pairs of a product share one Miller loop (one squaring of f
 * per bit). BN: the loop runs over the NAF of 6x+2, then adds the lines through psi(Q) and
 * -psi^2(Q) (psi = twist Frobenius, with constants gamma_{1,2}, gamma_{1,3}, gamma_{2,2},
 * gamma_{2,3}). BLS12: the loop runs over |x| and f is conjugated at the end (x < 0).
 *
 * Final exponentiation, exactly f^((q^12 - 1)/r) as in the reference:
 *   easy part  f^((q^6 - 1)(q^2 + 1)) = frob2(g) g with g = conj(f) f^-1;
 *   hard part  h = (q^4 - q^2 + 1)/r on the cyclotomic subgroup (Granger-Scott squarings,
 *              conj = inverse), by identities asserted in scripts/gen-consts.py:
 *     BN:    h = sum_{i<4} q^i sum_{j<4} HARD[i][j] x^j   (Scott et al., exact integer identity)
 *     BLS12: h = (x-1) ((x-1)/3) (x+q) (x^2+q^2-1) + 1   (Hayashida et al. form, 3 | x-1)
 *
 * Include after tower_tmpl.h and the G1/G2 instances, with CURVE and:
 *   PAIR_C       constant prefix (BN254, BLS12_381): uses _ATE_LOOP, _ATE_LOOP_BITS,
 *                _ATE_NEG, _FROB_GAMMA, _X_ABS, _X_NEG, _HARD (BN), _XM1_DIV3_ABS/_NEG (BLS12)
 *   PAIR_DTWIST  1 for a D-type twist (b' = b/xi), 0 for M-type (b' = b*xi)
 *   PAIR_BN      1 for BN curves (two extra Frobenius lines), 0 for BLS12
 */
#include "zk/tmpl.h"

#if PAIR_BN && !PAIR_DTWIST
#error "pairing_tmpl.h: the BN psi map is written for D-type twists only"
#endif

#define Q(n) ZKA_CAT2(CURVE, fq_##n)
#define Q2(n) ZKA_CAT2(CURVE, fq2_##n)
#define Q6(n) ZKA_CAT2(CURVE, fq6_##n)
#define Q12(n) ZKA_CAT2(CURVE, fq12_##n)
#define G1(n) ZKA_CAT2(CURVE, g1_##n)
#define G2(n) ZKA_CAT2(CURVE, g2_##n)
#define PR(n) ZKA_CAT2(CURVE, pair_##n)
#define PK2(a, b) a##_##b
#define PK1(a, b) PK2(a, b)
#define PK(n) PK1(PAIR_C, n)

/* A point of the twist in homogeneous projective coordinates. */
typedef struct {
	Q2(t) X, Y, Z;
} PR(proj);

/* A line as its three Fq2 coefficients, before evaluation at P (see PR(ell)). */
typedef struct {
	Q2(t) c0, c1, c2;
} PR(line);

/* r = gamma_{i,k} = xi^(k (q^i - 1)/6) from the generated table, 1 <= i <= 3, 1 <= k <= 5 */
static inline void PR(gamma)(Q2(t) *r, int i, int k)
{
	memcpy(r->c0.v, PK(FROB_GAMMA)[i - 1][k - 1][0], sizeof r->c0.v);
	memcpy(r->c1.v, PK(FROB_GAMMA)[i - 1][k - 1][1], sizeof r->c1.v);
}

/* r = a^(q^i) for i = 1, 2, 3: conjugates the six Fq2 coefficients of a = sum a_k w^k (for odd
 * i) and multiplies a_k by gamma_{i,k} */
static inline void PR(frob12)(Q12(t) *r, const Q12(t) *a, int i)
{
	/* w^k coefficient: k = 0: c0.c0, 1: c1.c0, 2: c0.c1, 3: c1.c1, 4: c0.c2, 5: c1.c2 */
	const Q2(t) *in[6] = {&a->c0.c0, &a->c1.c0, &a->c0.c1, &a->c1.c1, &a->c0.c2, &a->c1.c2};
	Q2(t) out[6], g;
	for (int k = 0; k < 6; k++) {
		if (i & 1)
			Q2(conj)(&out[k], in[k]);
		else
			out[k] = *in[k];
		if (k) {
			PR(gamma)(&g, i, k);
			Q2(mul)(&out[k], &out[k], &g);
		}
	}
	r->c0.c0 = out[0];
	r->c1.c0 = out[1];
	r->c0.c1 = out[2];
	r->c1.c1 = out[3];
	r->c0.c2 = out[4];
	r->c1.c2 = out[5];
}

/* T = 2T; l = the tangent line at T (3 coefficients, twist-type layout, see PR(ell)).
 * The formulas are those of Costello-Lange-Naehrig scaled by 4 to avoid halving:
 * X3 = 2XY(B - F), Y3 = (B + F)^2 - 12 E^2, Z3 = 4 B H with B = Y^2, C = Z^2, E = 3 b' C,
 * F = 3E, H = (Y + Z)^2 - B - C; the line is (E - B) + 3 X^2 (x_P) - H (y_P) up to layout. */
static inline void PR(dbl_step)(PR(line) *l, PR(proj) *t)
{
	Q2(t) a, b, c, e, f, g, h, i, j, bp, s;
	memcpy(bp.c0.v, PK(G2_B0), sizeof bp.c0.v);
	memcpy(bp.c1.v, PK(G2_B1), sizeof bp.c1.v);
	Q2(mul)(&a, &t->X, &t->Y);
	Q2(sqr)(&b, &t->Y);
	Q2(sqr)(&c, &t->Z);
	Q2(dbl)(&e, &c);
	Q2(add)(&e, &e, &c);
	Q2(mul)(&e, &e, &bp);
	Q2(dbl)(&f, &e);
	Q2(add)(&f, &f, &e);
	Q2(add)(&g, &b, &f);
	Q2(add)(&h, &t->Y, &t->Z);
	Q2(sqr)(&h, &h);
	Q2(sub)(&h, &h, &b);
	Q2(sub)(&h, &h, &c);
	Q2(sub)(&i, &e, &b);
	Q2(sqr)(&j, &t->X);
	/* X3 = 2 a (b - f) */
	Q2(sub)(&s, &b, &f);
	Q2(mul)(&t->X, &a, &s);
	Q2(dbl)(&t->X, &t->X);
	/* Y3 = g^2 - 12 e^2 */
	Q2(sqr)(&g, &g);
	Q2(sqr)(&s, &e);
	Q2(dbl)(&e, &s);
	Q2(add)(&e, &e, &s); /* 3 e^2 */
	Q2(dbl)(&e, &e);
	Q2(dbl)(&e, &e);
	Q2(sub)(&t->Y, &g, &e);
	/* Z3 = 4 b h */
	Q2(mul)(&t->Z, &b, &h);
	Q2(dbl)(&t->Z, &t->Z);
	Q2(dbl)(&t->Z, &t->Z);
	Q2(dbl)(&s, &j);
	Q2(add)(&j, &s, &j); /* 3 X^2 */
	Q2(neg)(&h, &h);
	if (PAIR_DTWIST) {
		l->c0 = h; /* times y_P */
		l->c1 = j; /* times x_P */
		l->c2 = i;
	} else {
		l->c0 = i;
		l->c1 = j; /* times x_P */
		l->c2 = h; /* times y_P */
	}
}

/* T = T + Q (Q affine, T != +-Q); l = the chord line. Returns -1 (T untouched) when T and Q
 * have the same x (a vertical line: never met for points of order r). */
static inline int PR(add_step)(PR(line) *l, PR(proj) *t, const ZKA_CAT2(CURVE, g2_aff) *q)
{
	Q2(t) theta, lambda, c, d, e, f, g, h, j, s;
	Q2(mul)(&s, &q->y, &t->Z);
	Q2(sub)(&theta, &t->Y, &s);
	Q2(mul)(&s, &q->x, &t->Z);
	Q2(sub)(&lambda, &t->X, &s);
	if (Q2(is_zero)(&lambda))
		return -1;
	Q2(sqr)(&c, &theta);
	Q2(sqr)(&d, &lambda);
	Q2(mul)(&e, &lambda, &d);
	Q2(mul)(&f, &t->Z, &c);
	Q2(mul)(&g, &t->X, &d);
	Q2(dbl)(&h, &g);
	Q2(sub)(&h, &f, &h);
	Q2(add)(&h, &h, &e); /* h = e + f - 2g */
	Q2(mul)(&t->X, &lambda, &h);
	Q2(sub)(&s, &g, &h);
	Q2(mul)(&s, &s, &theta);
	Q2(mul)(&t->Y, &e, &t->Y);
	Q2(sub)(&t->Y, &s, &t->Y);
	Q2(mul)(&t->Z, &t->Z, &e);
	Q2(mul)(&j, &theta, &q->x); /* j = theta x_Q - lambda y_Q */
	Q2(mul)(&s, &lambda, &q->y);
	Q2(sub)(&j, &j, &s);
	Q2(neg)(&theta, &theta);
	if (PAIR_DTWIST) {
		l->c0 = lambda; /* times y_P */
		l->c1 = theta;  /* times x_P */
		l->c2 = j;
	} else {
		l->c0 = j;
		l->c1 = theta;  /* times x_P */
		l->c2 = lambda; /* times y_P */
	}
	return 0;
}

/* f = f * l(P): evaluates the line at P = (px, py) and multiplies sparsely; D-type lines
 * (c0 y_P) + (c1 x_P) w + c2 w^3, M-type lines c0 + (c1 x_P) w^2 + (c2 y_P) w^3 */
static inline void PR(ell)(Q12(t) *f, const PR(line) *l, const ZKA_CAT2(CURVE, g1_aff) *p)
{
	Q2(t) a, b;
	if (PAIR_DTWIST) {
		Q2(mul_fq)(&a, &l->c0, &p->y);
		Q2(mul_fq)(&b, &l->c1, &p->x);
		Q12(mul_by_034)(f, f, &a, &b, &l->c2);
	} else {
		Q2(mul_fq)(&a, &l->c1, &p->x);
		Q2(mul_fq)(&b, &l->c2, &p->y);
		Q12(mul_by_014)(f, f, &l->c0, &a, &b);
	}
}

#if PAIR_DTWIST
/* r = psi^i(q) for i = 1, 2 on a D-type twist: the image of the q^i-power Frobenius of the
 * untwisted point, (x^(q^i) gamma_{i,2}, y^(q^i) gamma_{i,3}) */
static inline void PR(psi)(ZKA_CAT2(CURVE, g2_aff) * r, const ZKA_CAT2(CURVE, g2_aff) * q, int i)
{
	Q2(t) g;
	if (i & 1) {
		Q2(conj)(&r->x, &q->x);
		Q2(conj)(&r->y, &q->y);
	} else {
		*r = *q;
	}
	PR(gamma)(&g, i, 2);
	Q2(mul)(&r->x, &r->x, &g);
	PR(gamma)(&g, i, 3);
	Q2(mul)(&r->y, &r->y, &g);
}
#endif

/* Writes the NAF of the 128-bit value e[0..1] into d (little-endian digits in {-1,0,1});
 * returns the number of digits. d must hold 130. */
static inline int PR(naf)(int8_t *d, const uint64_t *e)
{
	uint64_t lo = e[0], hi = e[1];
	int n = 0;
	while (lo || hi) {
		int8_t z = 0;
		if (lo & 1) {
			z = (lo & 2) ? -1 : 1; /* 2 - (e mod 4) */
			if (z == 1) {
				lo -= 1;
			} else {
				lo += 1;
				if (lo == 0)
					hi++;
			}
		}
		d[n++] = z;
		lo = (lo >> 1) | (hi << 63);
		hi >>= 1;
	}
	return n;
}

/* f = the product of the Miller loop values of (P_i, Q_i), i < n, with one shared squaring of
 * f per step; pairs with P or Q at infinity contribute 1. Returns 0, or -1 if a degenerate
 * (vertical) chord was met (inputs not of order r). */
static inline int PR(miller_multi)(Q12(t) *f, const ZKA_CAT2(CURVE, g1_aff) *p,
				   const ZKA_CAT2(CURVE, g2_aff) *q, int n)
{
	enum { MAXB = 8 };
	Q12(one)(f);
	int8_t naf[130];
	int nd;
	if (PAIR_BN) {
		nd = PR(naf)(naf, PK(ATE_LOOP));
	} else {
		nd = PK(ATE_LOOP_BITS);
		for (int i = 0; i < nd; i++)
			naf[i] = (int8_t)((PK(ATE_LOOP)[i / 64] >> (i % 64)) & 1);
	}
	for (int base = 0; base < n; base += MAXB) {
		/* pairs in batches of MAXB, each batch with its own shared loop */
		PR(proj) t[MAXB];
		ZKA_CAT2(CURVE, g1_aff) pp[MAXB];
		ZKA_CAT2(CURVE, g2_aff) qq[MAXB], qn[MAXB];
		int m = 0;
		for (int k = base; k < n && k < base + MAXB; k++) {
			if (G1(aff_is_inf)(&p[k]) || G2(aff_is_inf)(&q[k]))
				continue;
			pp[m] = p[k];
			qq[m] = q[k];
			qn[m].x = q[k].x;
			Q2(neg)(&qn[m].y, &q[k].y);
			t[m].X = q[k].x;
			t[m].Y = q[k].y;
			Q2(one)(&t[m].Z);
			m++;
		}
		if (!m)
			continue;
		Q12(t) g;
		Q12(one)(&g);
		PR(line) l;
		for (int i = nd - 2; i >= 0; i--) {
			if (i != nd - 2)
				Q12(sqr_fast)(&g, &g);
			for (int k = 0; k < m; k++) {
				PR(dbl_step)(&l, &t[k]);
				PR(ell)(&g, &l, &pp[k]);
				if (naf[i]) {
					if (PR(add_step)(&l, &t[k], naf[i] > 0 ? &qq[k] : &qn[k]))
						return -1;
					PR(ell)(&g, &l, &pp[k]);
				}
			}
		}
#if PAIR_BN
		{
			for (int k = 0; k < m; k++) {
				ZKA_CAT2(CURVE, g2_aff) q1, q2;
				PR(psi)(&q1, &qq[k], 1);
				PR(psi)(&q2, &qq[k], 2);
				Q2(neg)(&q2.y, &q2.y);
				if (PR(add_step)(&l, &t[k], &q1))
					return -1;
				PR(ell)(&g, &l, &pp[k]);
				if (PR(add_step)(&l, &t[k], &q2))
					return -1;
				PR(ell)(&g, &l, &pp[k]);
			}
		}
#endif
		Q12(mul)(f, f, &g);
	}
	if (PK(ATE_NEG))
		Q12(conj)(f, f);
	return 0;
}

/* f = the Miller loop value of the optimal ate pairing of (P, Q); 1 when either is infinity.
 * Differs from the reference's Miller value by a factor that the final exponentiation kills.
 * Returns 0, or -1 if a degenerate line was met (inputs not of order r). */
static inline int PR(miller)(Q12(t) *f, const ZKA_CAT2(CURVE, g1_aff) *p,
			     const ZKA_CAT2(CURVE, g2_aff) *q)
{
	return PR(miller_multi)(f, p, q, 1);
}

/* r = a^e for a in the cyclotomic subgroup and e = +-e_abs (neg = 1 for -), by the NAF of e_abs
 * with cyclotomic squarings and conj for negative digits */
static inline void PR(cyc_exp)(Q12(t) *r, const Q12(t) *a, uint64_t e_abs, int neg)
{
	int8_t d[130];
	uint64_t e[2] = {e_abs, 0};
	int nd = PR(naf)(d, e);
	if (nd == 0) {
		Q12(one)(r);
		return;
	}
	Q12(t) acc = *a, ac;
	Q12(conj)(&ac, a);
	for (int i = nd - 2; i >= 0; i--) {
		Q12(cyc_sqr)(&acc, &acc);
		if (d[i] > 0)
			Q12(mul)(&acc, &acc, a);
		else if (d[i] < 0)
			Q12(mul)(&acc, &acc, &ac);
	}
	if (neg)
		Q12(conj)(&acc, &acc);
	*r = acc;
}

/* r = a^h, h = (q^4 - q^2 + 1)/r, for a in the cyclotomic subgroup (see the file comment) */
static inline void PR(hard_part)(Q12(t) *r, const Q12(t) *a)
{
#if PAIR_BN
	/* a^h = prod_{i,j} frob_i(a^(x^j))^HARD[i][j], by a simultaneous exponentiation over the
	 * bits of |HARD[i][j]| (at most 6) */
	Q12(t) ax[4], base[4][4], acc;
	ax[0] = *a;
	for (int j = 1; j < 4; j++)
		PR(cyc_exp)(&ax[j], &ax[j - 1], PK(X_ABS), PK(X_NEG));
	int top = 0;
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			int c = PK(HARD)[i][j];
			if (!c)
				continue;
			if (i)
				PR(frob12)(&base[i][j], &ax[j], i);
			else
				base[i][j] = ax[j];
			if (c < 0)
				Q12(conj)(&base[i][j], &base[i][j]);
			int ac = c < 0 ? -c : c;
			while ((ac >> top) > 1)
				top++;
		}
	Q12(one)(&acc);
	for (int b = top; b >= 0; b--) {
		if (b != top)
			Q12(cyc_sqr)(&acc, &acc);
		for (int i = 0; i < 4; i++)
			for (int j = 0; j < 4; j++) {
				int c = PK(HARD)[i][j];
				int ac = c < 0 ? -c : c;
				if ((ac >> b) & 1)
					Q12(mul)(&acc, &acc, &base[i][j]);
			}
	}
	*r = acc;
#else
	/* h = (x-1) ((x-1)/3) (x+q) (x^2+q^2-1) + 1 */
	Q12(t) t0, t1, t2;
	PR(cyc_exp)(&t0, a, PK(X_ABS), PK(X_NEG)); /* t0 = a^(x-1) */
	Q12(conj)(&t1, a);
	Q12(mul)(&t0, &t0, &t1);
	PR(cyc_exp)(&t0, &t0, PK(XM1_DIV3_ABS), PK(XM1_DIV3_NEG)); /* ^((x-1)/3) */
	PR(cyc_exp)(&t1, &t0, PK(X_ABS), PK(X_NEG)); /* t0 = t0^(x+q) */
	PR(frob12)(&t0, &t0, 1);
	Q12(mul)(&t0, &t0, &t1);
	PR(cyc_exp)(&t1, &t0, PK(X_ABS), PK(X_NEG)); /* t0 = t0^(x^2+q^2-1) */
	PR(cyc_exp)(&t1, &t1, PK(X_ABS), PK(X_NEG));
	PR(frob12)(&t2, &t0, 2);
	Q12(mul)(&t1, &t1, &t2);
	Q12(conj)(&t0, &t0);
	Q12(mul)(&t0, &t0, &t1);
	Q12(mul)(r, &t0, a); /* times a^1 */
#endif
}

/* r = f^((q^12 - 1) / r), exactly the reference's value; f = 0 gives 0 like the reference */
static inline void PR(final_exp)(Q12(t) *r, const Q12(t) *f)
{
	Q12(t) a, b;
	if (Q12(is_zero)(f)) {
		Q12(zero)(r);
		return;
	}
	Q12(conj)(&a, f);
	Q12(inv)(&b, f);
	Q12(mul)(&a, &a, &b); /* f^(q^6 - 1) */
	PR(frob12)(&b, &a, 2);
	Q12(mul)(&a, &a, &b); /* ^(q^2 + 1) */
	PR(hard_part)(r, &a);
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
	Q12(t) acc;
	if (PR(miller_multi)(&acc, p, q, n))
		return -1;
	PR(final_exp)(&acc, &acc);
	return Q12(is_one)(&acc);
}

#undef Q
#undef Q2
#undef Q6
#undef Q12
#undef G1
#undef G2
#undef PR
#undef PK
#undef PK1
#undef PK2
