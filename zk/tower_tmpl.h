/* tower_tmpl.h - the extension-field tower of a pairing curve, generic over the curve.
 *
 * Include after instantiating CURVE_fq (fp_tmpl.h), with CURVE defined (bn254, bls12_381) and
 * CURVE_XI0, CURVE_XI1 naming the Montgomery constants of xi = xi0 + xi1*u.
 *   Fq2  = Fq[u]  / (u^2 + 1)        (both curves: -1 is a non-residue mod q)
 *   Fq6  = Fq2[v] / (v^3 - xi)       (xi = 9+u on BN254, 1+u on BLS12-381)
 *   Fq12 = Fq6[w] / (w^2 - v)
 * Every type offers the same names as the base field (zero, one, add, sub, neg, dbl, mul, sqr,
 * inv, eq, is_zero) so that ec_tmpl.h can build G1 over Fq and G2 over Fq2 from one text.
 * All functions allow aliasing of outputs and inputs.
 */
#include "zk/tmpl.h"

#define Q(n) ZKA_CAT2(CURVE, fq_##n)
#define Q2(n) ZKA_CAT2(CURVE, fq2_##n)
#define Q6(n) ZKA_CAT2(CURVE, fq6_##n)
#define Q12(n) ZKA_CAT2(CURVE, fq12_##n)

typedef struct {
	Q(t) c0, c1;
} Q2(t);
typedef struct {
	Q2(t) c0, c1, c2;
} Q6(t);
typedef struct {
	Q6(t) c0, c1;
} Q12(t);

/* ---- Fq2 ---- */
static inline void Q2(zero)(Q2(t) *r) { Q(zero)(&r->c0); Q(zero)(&r->c1); }
static inline void Q2(one)(Q2(t) *r) { Q(one)(&r->c0); Q(zero)(&r->c1); }
static inline int Q2(is_zero)(const Q2(t) *a) { return Q(is_zero)(&a->c0) && Q(is_zero)(&a->c1); }
static inline int Q2(eq)(const Q2(t) *a, const Q2(t) *b) { return Q(eq)(&a->c0, &b->c0) && Q(eq)(&a->c1, &b->c1); }
static inline void Q2(add)(Q2(t) *r, const Q2(t) *a, const Q2(t) *b) { Q(add)(&r->c0, &a->c0, &b->c0); Q(add)(&r->c1, &a->c1, &b->c1); }
static inline void Q2(sub)(Q2(t) *r, const Q2(t) *a, const Q2(t) *b) { Q(sub)(&r->c0, &a->c0, &b->c0); Q(sub)(&r->c1, &a->c1, &b->c1); }
static inline void Q2(neg)(Q2(t) *r, const Q2(t) *a) { Q(neg)(&r->c0, &a->c0); Q(neg)(&r->c1, &a->c1); }
static inline void Q2(dbl)(Q2(t) *r, const Q2(t) *a) { Q2(add)(r, a, a); }
static inline void Q2(conj)(Q2(t) *r, const Q2(t) *a) { r->c0 = a->c0; Q(neg)(&r->c1, &a->c1); }

/* r = a*b: Karatsuba with u^2 = -1 */
static inline void Q2(mul)(Q2(t) *r, const Q2(t) *a, const Q2(t) *b)
{
	Q(t) v0, v1, s, t;
	Q(mul)(&v0, &a->c0, &b->c0);
	Q(mul)(&v1, &a->c1, &b->c1);
	Q(add)(&s, &a->c0, &a->c1);
	Q(add)(&t, &b->c0, &b->c1);
	Q(mul)(&s, &s, &t);
	Q(sub)(&s, &s, &v0);
	Q(sub)(&r->c1, &s, &v1);
	Q(sub)(&r->c0, &v0, &v1);
}

/* r = a^2 = (a0+a1)(a0-a1) + 2 a0 a1 u */
static inline void Q2(sqr)(Q2(t) *r, const Q2(t) *a)
{
	Q(t) s, d, m;
	Q(add)(&s, &a->c0, &a->c1);
	Q(sub)(&d, &a->c0, &a->c1);
	Q(mul)(&m, &a->c0, &a->c1);
	Q(mul)(&r->c0, &s, &d);
	Q(dbl)(&r->c1, &m);
}

/* r = a * s for s in Fq */
static inline void Q2(mul_fq)(Q2(t) *r, const Q2(t) *a, const Q(t) *s)
{
	Q(mul)(&r->c0, &a->c0, s);
	Q(mul)(&r->c1, &a->c1, s);
}

/* r = a^-1 = conj(a) / (a0^2 + a1^2) with the base-field inversion qinv; the inverse of 0 is 0 */
static inline void Q2(inv_by)(Q2(t) *r, const Q2(t) *a, void (*qinv)(Q(t) *, const Q(t) *))
{
	Q(t) n, t;
	Q(sqr)(&n, &a->c0);
	Q(sqr)(&t, &a->c1);
	Q(add)(&n, &n, &t);
	qinv(&n, &n);
	Q(mul)(&r->c0, &a->c0, &n);
	Q(mul)(&t, &a->c1, &n);
	Q(neg)(&r->c1, &t);
}

/* r = a^-1 (constant time: Fermat in the base field) */
static inline void Q2(inv)(Q2(t) *r, const Q2(t) *a)
{
	Q2(inv_by)(r, a, Q(inv));
}

/* Q2(inv) with the variable-time base-field inversion (Q(inv_vartime)): for the same batched
 * uses only */
static inline void Q2(inv_vartime)(Q2(t) *r, const Q2(t) *a)
{
	Q2(inv_by)(r, a, Q(inv_vartime));
}

/* r = a * xi */
static inline void Q2(mul_xi)(Q2(t) *r, const Q2(t) *a)
{
	Q2(t) xi;
	memcpy(xi.c0.v, CURVE_XI0, sizeof xi.c0.v);
	memcpy(xi.c1.v, CURVE_XI1, sizeof xi.c1.v);
	Q2(mul)(r, a, &xi);
}

/* ---- Fq6 ---- */
static inline void Q6(zero)(Q6(t) *r) { Q2(zero)(&r->c0); Q2(zero)(&r->c1); Q2(zero)(&r->c2); }
static inline void Q6(one)(Q6(t) *r) { Q2(one)(&r->c0); Q2(zero)(&r->c1); Q2(zero)(&r->c2); }
static inline int Q6(is_zero)(const Q6(t) *a) { return Q2(is_zero)(&a->c0) && Q2(is_zero)(&a->c1) && Q2(is_zero)(&a->c2); }
static inline int Q6(eq)(const Q6(t) *a, const Q6(t) *b) { return Q2(eq)(&a->c0, &b->c0) && Q2(eq)(&a->c1, &b->c1) && Q2(eq)(&a->c2, &b->c2); }
static inline void Q6(add)(Q6(t) *r, const Q6(t) *a, const Q6(t) *b) { Q2(add)(&r->c0, &a->c0, &b->c0); Q2(add)(&r->c1, &a->c1, &b->c1); Q2(add)(&r->c2, &a->c2, &b->c2); }
static inline void Q6(sub)(Q6(t) *r, const Q6(t) *a, const Q6(t) *b) { Q2(sub)(&r->c0, &a->c0, &b->c0); Q2(sub)(&r->c1, &a->c1, &b->c1); Q2(sub)(&r->c2, &a->c2, &b->c2); }
static inline void Q6(neg)(Q6(t) *r, const Q6(t) *a) { Q2(neg)(&r->c0, &a->c0); Q2(neg)(&r->c1, &a->c1); Q2(neg)(&r->c2, &a->c2); }
static inline void Q6(dbl)(Q6(t) *r, const Q6(t) *a) { Q6(add)(r, a, a); }

/* r = a*b (Karatsuba over three coefficients, v^3 = xi) */
static inline void Q6(mul)(Q6(t) *r, const Q6(t) *a, const Q6(t) *b)
{
	Q2(t) v0, v1, v2, s, t, c0, c1, c2;
	Q2(mul)(&v0, &a->c0, &b->c0);
	Q2(mul)(&v1, &a->c1, &b->c1);
	Q2(mul)(&v2, &a->c2, &b->c2);
	/* c0 = v0 + xi((a1+a2)(b1+b2) - v1 - v2) */
	Q2(add)(&s, &a->c1, &a->c2);
	Q2(add)(&t, &b->c1, &b->c2);
	Q2(mul)(&s, &s, &t);
	Q2(sub)(&s, &s, &v1);
	Q2(sub)(&s, &s, &v2);
	Q2(mul_xi)(&s, &s);
	Q2(add)(&c0, &v0, &s);
	/* c1 = (a0+a1)(b0+b1) - v0 - v1 + xi v2 */
	Q2(add)(&s, &a->c0, &a->c1);
	Q2(add)(&t, &b->c0, &b->c1);
	Q2(mul)(&s, &s, &t);
	Q2(sub)(&s, &s, &v0);
	Q2(sub)(&s, &s, &v1);
	Q2(mul_xi)(&t, &v2);
	Q2(add)(&c1, &s, &t);
	/* c2 = (a0+a2)(b0+b2) - v0 - v2 + v1 */
	Q2(add)(&s, &a->c0, &a->c2);
	Q2(add)(&t, &b->c0, &b->c2);
	Q2(mul)(&s, &s, &t);
	Q2(sub)(&s, &s, &v0);
	Q2(sub)(&s, &s, &v2);
	Q2(add)(&c2, &s, &v1);
	r->c0 = c0;
	r->c1 = c1;
	r->c2 = c2;
}

static inline void Q6(sqr)(Q6(t) *r, const Q6(t) *a) { Q6(mul)(r, a, a); }

/* r = a * v: (c0, c1, c2) -> (xi c2, c0, c1) */
static inline void Q6(mul_v)(Q6(t) *r, const Q6(t) *a)
{
	Q2(t) t;
	Q2(mul_xi)(&t, &a->c2);
	r->c2 = a->c1;
	r->c1 = a->c0;
	r->c0 = t;
}

/* r = a^-1 (adjugate over the norm); the inverse of 0 is 0 */
static inline void Q6(inv)(Q6(t) *r, const Q6(t) *a)
{
	Q2(t) A, B, C, t, f;
	Q2(sqr)(&A, &a->c0); /* A = a0^2 - xi a1 a2 */
	Q2(mul)(&t, &a->c1, &a->c2);
	Q2(mul_xi)(&t, &t);
	Q2(sub)(&A, &A, &t);
	Q2(sqr)(&B, &a->c2); /* B = xi a2^2 - a0 a1 */
	Q2(mul_xi)(&B, &B);
	Q2(mul)(&t, &a->c0, &a->c1);
	Q2(sub)(&B, &B, &t);
	Q2(sqr)(&C, &a->c1); /* C = a1^2 - a0 a2 */
	Q2(mul)(&t, &a->c0, &a->c2);
	Q2(sub)(&C, &C, &t);
	Q2(mul)(&f, &a->c2, &B); /* F = a0 A + xi (a2 B + a1 C) */
	Q2(mul)(&t, &a->c1, &C);
	Q2(add)(&f, &f, &t);
	Q2(mul_xi)(&f, &f);
	Q2(mul)(&t, &a->c0, &A);
	Q2(add)(&f, &f, &t);
	Q2(inv)(&f, &f);
	Q2(mul)(&r->c0, &A, &f);
	Q2(mul)(&r->c1, &B, &f);
	Q2(mul)(&r->c2, &C, &f);
}

/* ---- Fq12 ---- */
static inline void Q12(zero)(Q12(t) *r) { Q6(zero)(&r->c0); Q6(zero)(&r->c1); }
static inline void Q12(one)(Q12(t) *r) { Q6(one)(&r->c0); Q6(zero)(&r->c1); }
static inline int Q12(is_zero)(const Q12(t) *a) { return Q6(is_zero)(&a->c0) && Q6(is_zero)(&a->c1); }
static inline int Q12(eq)(const Q12(t) *a, const Q12(t) *b) { return Q6(eq)(&a->c0, &b->c0) && Q6(eq)(&a->c1, &b->c1); }
static inline int Q12(is_one)(const Q12(t) *a) { Q12(t) o; Q12(one)(&o); return Q12(eq)(a, &o); }
static inline void Q12(add)(Q12(t) *r, const Q12(t) *a, const Q12(t) *b) { Q6(add)(&r->c0, &a->c0, &b->c0); Q6(add)(&r->c1, &a->c1, &b->c1); }
static inline void Q12(sub)(Q12(t) *r, const Q12(t) *a, const Q12(t) *b) { Q6(sub)(&r->c0, &a->c0, &b->c0); Q6(sub)(&r->c1, &a->c1, &b->c1); }
static inline void Q12(neg)(Q12(t) *r, const Q12(t) *a) { Q6(neg)(&r->c0, &a->c0); Q6(neg)(&r->c1, &a->c1); }
static inline void Q12(dbl)(Q12(t) *r, const Q12(t) *a) { Q12(add)(r, a, a); }
/* r = a^(p^6): negates the w coefficient; equals a^-1 on the cyclotomic subgroup */
static inline void Q12(conj)(Q12(t) *r, const Q12(t) *a) { r->c0 = a->c0; Q6(neg)(&r->c1, &a->c1); }

/* r = a*b (Karatsuba, w^2 = v) */
static inline void Q12(mul)(Q12(t) *r, const Q12(t) *a, const Q12(t) *b)
{
	Q6(t) v0, v1, s, t;
	Q6(mul)(&v0, &a->c0, &b->c0);
	Q6(mul)(&v1, &a->c1, &b->c1);
	Q6(add)(&s, &a->c0, &a->c1);
	Q6(add)(&t, &b->c0, &b->c1);
	Q6(mul)(&s, &s, &t);
	Q6(sub)(&s, &s, &v0);
	Q6(sub)(&r->c1, &s, &v1);
	Q6(mul_v)(&v1, &v1);
	Q6(add)(&r->c0, &v0, &v1);
}

static inline void Q12(sqr)(Q12(t) *r, const Q12(t) *a) { Q12(mul)(r, a, a); }

/* r = a^-1 = (a0 - a1 w) / (a0^2 - v a1^2); the inverse of 0 is 0 */
static inline void Q12(inv)(Q12(t) *r, const Q12(t) *a)
{
	Q6(t) n, t;
	Q6(sqr)(&n, &a->c0);
	Q6(sqr)(&t, &a->c1);
	Q6(mul_v)(&t, &t);
	Q6(sub)(&n, &n, &t);
	Q6(inv)(&n, &n);
	Q6(mul)(&r->c0, &a->c0, &n);
	Q6(mul)(&t, &a->c1, &n);
	Q6(neg)(&r->c1, &t);
}

/* r = a^e for e given as ne little-endian 64-bit limbs */
static inline void Q12(pow)(Q12(t) *r, const Q12(t) *a, const uint64_t *e, int ne)
{
	Q12(t) acc, base = *a;
	Q12(one)(&acc);
	int started = 0;
	for (int i = ne - 1; i >= 0; i--)
		for (int b = 63; b >= 0; b--) {
			if (started)
				Q12(sqr)(&acc, &acc);
			if ((e[i] >> b) & 1) {
				Q12(mul)(&acc, &acc, &base);
				started = 1;
			}
		}
	*r = acc;
}

/* ---- sparse products and special squarings (used by the fast pairing) ---- */

/* r = a * (b0 + b1 v): a product by a sparse Fq6 element (5 Fq2 products) */
static inline void Q6(mul_by_01)(Q6(t) *r, const Q6(t) *a, const Q2(t) *b0, const Q2(t) *b1)
{
	Q2(t) v0, v1, s, t, c0, c1, c2;
	Q2(mul)(&v0, &a->c0, b0);
	Q2(mul)(&v1, &a->c1, b1);
	Q2(mul)(&c0, &a->c2, b1); /* c0 = a0 b0 + xi a2 b1 */
	Q2(mul_xi)(&c0, &c0);
	Q2(add)(&c0, &c0, &v0);
	Q2(add)(&s, &a->c0, &a->c1); /* c1 = (a0+a1)(b0+b1) - v0 - v1 */
	Q2(add)(&t, b0, b1);
	Q2(mul)(&c1, &s, &t);
	Q2(sub)(&c1, &c1, &v0);
	Q2(sub)(&c1, &c1, &v1);
	Q2(mul)(&c2, &a->c2, b0); /* c2 = a1 b1 + a2 b0 */
	Q2(add)(&c2, &c2, &v1);
	r->c0 = c0;
	r->c1 = c1;
	r->c2 = c2;
}

/* r = a * (b1 v): (xi a2 b1, a0 b1, a1 b1) */
static inline void Q6(mul_by_1)(Q6(t) *r, const Q6(t) *a, const Q2(t) *b1)
{
	Q2(t) c0, c1, c2;
	Q2(mul)(&c0, &a->c2, b1);
	Q2(mul_xi)(&c0, &c0);
	Q2(mul)(&c1, &a->c0, b1);
	Q2(mul)(&c2, &a->c1, b1);
	r->c0 = c0;
	r->c1 = c1;
	r->c2 = c2;
}

/* r = a * l for the sparse l = b0 + b3 w + b4 w^3, i.e. l.c0 = (b0, 0, 0), l.c1 = (b3, b4, 0)
 * (the shape of a D-type twist line) */
static inline void Q12(mul_by_034)(Q12(t) *r, const Q12(t) *a, const Q2(t) *b0, const Q2(t) *b3,
				   const Q2(t) *b4)
{
	Q6(t) x, y, e;
	Q2(t) s;
	Q2(mul)(&x.c0, &a->c0.c0, b0); /* x = a0 * b0 */
	Q2(mul)(&x.c1, &a->c0.c1, b0);
	Q2(mul)(&x.c2, &a->c0.c2, b0);
	Q6(mul_by_01)(&y, &a->c1, b3, b4); /* y = a1 * (b3 + b4 v) */
	Q2(add)(&s, b0, b3);
	Q6(add)(&e, &a->c0, &a->c1); /* e = (a0 + a1)(b0 + b3 + b4 v) */
	Q6(mul_by_01)(&e, &e, &s, b4);
	Q6(sub)(&e, &e, &x);
	Q6(sub)(&r->c1, &e, &y);
	Q6(mul_v)(&y, &y);
	Q6(add)(&r->c0, &x, &y);
}

/* r = a * l for the sparse l = b0 + b1 w^2 + b4 w^3, i.e. l.c0 = (b0, b1, 0), l.c1 = (0, b4, 0)
 * (the shape of an M-type twist line) */
static inline void Q12(mul_by_014)(Q12(t) *r, const Q12(t) *a, const Q2(t) *b0, const Q2(t) *b1,
				   const Q2(t) *b4)
{
	Q6(t) x, y, e;
	Q2(t) s;
	Q6(mul_by_01)(&x, &a->c0, b0, b1); /* x = a0 * (b0 + b1 v) */
	Q6(mul_by_1)(&y, &a->c1, b4);      /* y = a1 * (b4 v) */
	Q2(add)(&s, b1, b4);
	Q6(add)(&e, &a->c0, &a->c1); /* e = (a0 + a1)(b0 + (b1 + b4) v) */
	Q6(mul_by_01)(&e, &e, b0, &s);
	Q6(sub)(&e, &e, &x);
	Q6(sub)(&r->c1, &e, &y);
	Q6(mul_v)(&y, &y);
	Q6(add)(&r->c0, &x, &y);
}

/* r = a^2 by the complex method: (a0^2 + v a1^2) + 2 a0 a1 w with 2 Fq6 products; the same
 * value as Q12(sqr) */
static inline void Q12(sqr_fast)(Q12(t) *r, const Q12(t) *a)
{
	Q6(t) t, s, u;
	Q6(mul)(&t, &a->c0, &a->c1);
	Q6(add)(&s, &a->c0, &a->c1);
	Q6(mul_v)(&u, &a->c1);
	Q6(add)(&u, &u, &a->c0);
	Q6(mul)(&s, &s, &u); /* (a0 + a1)(a0 + v a1) = a0^2 + v a1^2 + t (1 + v) */
	Q6(sub)(&s, &s, &t);
	Q6(mul_v)(&u, &t);
	Q6(sub)(&r->c0, &s, &u);
	Q6(dbl)(&r->c1, &t);
}

/* (t0, t1) = (a + b s)^2 in Fq4 = Fq2[s]/(s^2 - xi): t0 = a^2 + xi b^2, t1 = 2ab */
static inline void Q2(fq4_sqr)(Q2(t) *t0, Q2(t) *t1, const Q2(t) *a, const Q2(t) *b)
{
	Q2(t) ab, s, u;
	Q2(mul)(&ab, a, b);
	Q2(add)(&s, a, b);
	Q2(mul_xi)(&u, b);
	Q2(add)(&u, &u, a);
	Q2(mul)(&s, &s, &u); /* (a + b)(a + xi b) = a^2 + xi b^2 + ab (1 + xi) */
	Q2(sub)(&s, &s, &ab);
	Q2(mul_xi)(&u, &ab);
	Q2(sub)(t0, &s, &u);
	Q2(dbl)(t1, &ab);
}

/* r = a^2 for a in the cyclotomic subgroup (a^(q^6+1)(q^2+1)... = 1, i.e. after the easy part
 * of the final exponentiation): Granger-Scott squaring; for other a the result is garbage */
static inline void Q12(cyc_sqr)(Q12(t) *r, const Q12(t) *a)
{
	/* a = g0 + h0 w + g1 w^2 + h1 w^3 + g2 w^4 + h2 w^5; in Fq4 = Fq2[w^3] the pairs are
	 * (g0, h1), (h0, g2), (g1, h2) */
	Q2(t) t0, t1, t2, t3, t4, t5, z;
	Q2(fq4_sqr)(&t0, &t1, &a->c0.c0, &a->c1.c1);
	Q2(fq4_sqr)(&t2, &t3, &a->c1.c0, &a->c0.c2);
	Q2(fq4_sqr)(&t4, &t5, &a->c0.c1, &a->c1.c2);
	/* g0' = 3 t0 - 2 g0, h1' = 3 t1 + 2 h1 */
	Q2(sub)(&z, &t0, &a->c0.c0);
	Q2(dbl)(&z, &z);
	Q2(add)(&r->c0.c0, &z, &t0);
	Q2(add)(&z, &t1, &a->c1.c1);
	Q2(dbl)(&z, &z);
	Q2(add)(&r->c1.c1, &z, &t1);
	/* h0' = 3 xi t5 + 2 h0, g2' = 3 t4 - 2 g2 */
	Q2(t) x5;
	Q2(mul_xi)(&x5, &t5);
	Q2(add)(&z, &x5, &a->c1.c0);
	Q2(dbl)(&z, &z);
	Q2(add)(&r->c1.c0, &z, &x5);
	Q2(sub)(&z, &t4, &a->c0.c2);
	Q2(dbl)(&z, &z);
	Q2(add)(&r->c0.c2, &z, &t4);
	/* g1' = 3 t2 - 2 g1, h2' = 3 t3 + 2 h2 */
	Q2(sub)(&z, &t2, &a->c0.c1);
	Q2(dbl)(&z, &z);
	Q2(add)(&r->c0.c1, &z, &t2);
	Q2(add)(&z, &t3, &a->c1.c2);
	Q2(dbl)(&z, &z);
	Q2(add)(&r->c1.c2, &z, &t3);
}

#undef Q
#undef Q2
#undef Q6
#undef Q12
