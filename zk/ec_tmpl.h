/* ec_tmpl.h - points of a short Weierstrass curve y^2 = x^3 + b (a = 0), generic over the
 * coordinate field. Instantiated for G1 (over Fq) and G2 (over Fq2) of each curve.
 *
 * Include with:
 *   EC        the prefix of the group, e.g. bn254_g1
 *   EF        the prefix of its field, e.g. bn254_fq or bn254_fq2 (needs the fp_tmpl.h names)
 *   EC_B(r)   a statement that stores b (Montgomery form) into the field element *r
 *
 * Representation:
 *   1. Affine points {x, y} are the bytes of the snarkjs .zkey layout (Montgomery, LE); the
 *      point at infinity is all zero bytes, which is never on the curve since b != 0.
 *   2. Jacobian points {X, Y, Z} represent (X/Z^2, Y/Z^3); Z = 0 is infinity.
 * All functions allow aliasing of outputs and inputs.
 */
#include "zk/tmpl.h"

#define E(n) ZKA_CAT2(EC, n)
#define G(n) ZKA_CAT2(EF, n)
#define FT G(t)

typedef struct {
	FT x, y;
} E(aff);
typedef struct {
	FT X, Y, Z;
} E(jac);

/* Returns 1 when p is the point at infinity (all zero). */
static inline int E(aff_is_inf)(const E(aff) *p)
{
	return G(is_zero)(&p->x) && G(is_zero)(&p->y);
}

/* Returns 1 when p satisfies y^2 = x^3 + b or is infinity. */
static inline int E(aff_on_curve)(const E(aff) *p)
{
	if (E(aff_is_inf)(p))
		return 1;
	FT l, r, b;
	G(sqr)(&l, &p->y);
	G(sqr)(&r, &p->x);
	G(mul)(&r, &r, &p->x);
	EC_B(&b);
	G(add)(&r, &r, &b);
	return G(eq)(&l, &r);
}

static inline void E(set_inf)(E(jac) *r)
{
	G(one)(&r->X);
	G(one)(&r->Y);
	G(zero)(&r->Z);
}

static inline int E(is_inf)(const E(jac) *p)
{
	return G(is_zero)(&p->Z);
}

/* r = p lifted to Jacobian coordinates */
static inline void E(from_aff)(E(jac) *r, const E(aff) *p)
{
	if (E(aff_is_inf)(p)) {
		E(set_inf)(r);
		return;
	}
	r->X = p->x;
	r->Y = p->y;
	G(one)(&r->Z);
}

/* r = p in affine coordinates (one inversion) */
static inline void E(to_aff)(E(aff) *r, const E(jac) *p)
{
	if (E(is_inf)(p)) {
		G(zero)(&r->x);
		G(zero)(&r->y);
		return;
	}
	FT zi, zi2, zi3;
	G(inv)(&zi, &p->Z);
	G(sqr)(&zi2, &zi);
	G(mul)(&zi3, &zi2, &zi);
	G(mul)(&r->x, &p->X, &zi2);
	G(mul)(&r->y, &p->Y, &zi3);
}

/* r = -p */
static inline void E(neg)(E(jac) *r, const E(jac) *p)
{
	r->X = p->X;
	G(neg)(&r->Y, &p->Y);
	r->Z = p->Z;
}

static inline void E(aff_neg)(E(aff) *r, const E(aff) *p)
{
	r->x = p->x;
	if (E(aff_is_inf)(p))
		r->y = p->y;
	else
		G(neg)(&r->y, &p->y);
}

/* r = 2p (dbl-2009-l, a = 0) */
static inline void E(dbl)(E(jac) *r, const E(jac) *p)
{
	if (E(is_inf)(p)) {
		*r = *p;
		return;
	}
	FT A, B, C, D, E_, F_, t;
	G(sqr)(&A, &p->X);
	G(sqr)(&B, &p->Y);
	G(sqr)(&C, &B);
	G(add)(&D, &p->X, &B);
	G(sqr)(&D, &D);
	G(sub)(&D, &D, &A);
	G(sub)(&D, &D, &C);
	G(dbl)(&D, &D);
	G(dbl)(&E_, &A);
	G(add)(&E_, &E_, &A);
	G(sqr)(&F_, &E_);
	G(mul)(&t, &p->Y, &p->Z); /* Z3 = 2 Y1 Z1, before Y1 is overwritten */
	G(dbl)(&r->Z, &t);
	G(sub)(&r->X, &F_, &D);
	G(sub)(&r->X, &r->X, &D);
	G(sub)(&t, &D, &r->X);
	G(mul)(&t, &E_, &t);
	G(dbl)(&C, &C);
	G(dbl)(&C, &C);
	G(dbl)(&C, &C);
	G(sub)(&r->Y, &t, &C);
}

/* r = p + q (add-2007-bl), handling infinity and p == q */
static inline void E(add)(E(jac) *r, const E(jac) *p, const E(jac) *q)
{
	if (E(is_inf)(p)) {
		*r = *q;
		return;
	}
	if (E(is_inf)(q)) {
		*r = *p;
		return;
	}
	FT z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
	G(sqr)(&z1z1, &p->Z);
	G(sqr)(&z2z2, &q->Z);
	G(mul)(&u1, &p->X, &z2z2);
	G(mul)(&u2, &q->X, &z1z1);
	G(mul)(&s1, &p->Y, &q->Z);
	G(mul)(&s1, &s1, &z2z2);
	G(mul)(&s2, &q->Y, &p->Z);
	G(mul)(&s2, &s2, &z1z1);
	G(sub)(&h, &u2, &u1);
	G(sub)(&rr, &s2, &s1);
	if (G(is_zero)(&h)) {
		if (G(is_zero)(&rr))
			E(dbl)(r, p);
		else
			E(set_inf)(r);
		return;
	}
	G(dbl)(&rr, &rr);
	G(dbl)(&i, &h);
	G(sqr)(&i, &i);
	G(mul)(&j, &h, &i);
	G(mul)(&v, &u1, &i);
	G(add)(&t, &p->Z, &q->Z); /* Z3 = ((Z1+Z2)^2 - Z1Z1 - Z2Z2) H */
	G(sqr)(&t, &t);
	G(sub)(&t, &t, &z1z1);
	G(sub)(&t, &t, &z2z2);
	G(mul)(&r->Z, &t, &h);
	G(sqr)(&r->X, &rr);
	G(sub)(&r->X, &r->X, &j);
	G(sub)(&r->X, &r->X, &v);
	G(sub)(&r->X, &r->X, &v);
	G(sub)(&t, &v, &r->X);
	G(mul)(&t, &rr, &t);
	G(mul)(&s1, &s1, &j);
	G(dbl)(&s1, &s1);
	G(sub)(&r->Y, &t, &s1);
}

/* r = p + q with q affine (madd-2007-bl), handling infinity and p == q */
static inline void E(add_aff)(E(jac) *r, const E(jac) *p, const E(aff) *q)
{
	if (E(aff_is_inf)(q)) {
		*r = *p;
		return;
	}
	if (E(is_inf)(p)) {
		E(from_aff)(r, q);
		return;
	}
	FT z1z1, u2, s2, h, hh, i, j, rr, v, t;
	G(sqr)(&z1z1, &p->Z);
	G(mul)(&u2, &q->x, &z1z1);
	G(mul)(&s2, &q->y, &p->Z);
	G(mul)(&s2, &s2, &z1z1);
	G(sub)(&h, &u2, &p->X);
	G(sub)(&rr, &s2, &p->Y);
	if (G(is_zero)(&h)) {
		if (G(is_zero)(&rr))
			E(dbl)(r, p);
		else
			E(set_inf)(r);
		return;
	}
	G(dbl)(&rr, &rr);
	G(sqr)(&hh, &h);
	G(dbl)(&i, &hh);
	G(dbl)(&i, &i);
	G(mul)(&j, &h, &i);
	G(mul)(&v, &p->X, &i);
	G(add)(&t, &p->Z, &h); /* Z3 = (Z1+H)^2 - Z1Z1 - HH */
	G(sqr)(&t, &t);
	G(sub)(&t, &t, &z1z1);
	G(sub)(&r->Z, &t, &hh);
	FT y1j;
	G(mul)(&y1j, &p->Y, &j);
	G(sqr)(&r->X, &rr);
	G(sub)(&r->X, &r->X, &j);
	G(sub)(&r->X, &r->X, &v);
	G(sub)(&r->X, &r->X, &v);
	G(sub)(&t, &v, &r->X);
	G(mul)(&t, &rr, &t);
	G(dbl)(&y1j, &y1j);
	G(sub)(&r->Y, &t, &y1j);
}

/* Returns 1 when p and q are the same point (compares X1 Z2^2 = X2 Z1^2, Y1 Z2^3 = Y2 Z1^3). */
static inline int E(eq)(const E(jac) *p, const E(jac) *q)
{
	if (E(is_inf)(p) || E(is_inf)(q))
		return E(is_inf)(p) && E(is_inf)(q);
	FT z1z1, z2z2, a, b;
	G(sqr)(&z1z1, &p->Z);
	G(sqr)(&z2z2, &q->Z);
	G(mul)(&a, &p->X, &z2z2);
	G(mul)(&b, &q->X, &z1z1);
	if (!G(eq)(&a, &b))
		return 0;
	G(mul)(&a, &p->Y, &z2z2);
	G(mul)(&a, &a, &q->Z);
	G(mul)(&b, &q->Y, &z1z1);
	G(mul)(&b, &b, &p->Z);
	return G(eq)(&a, &b);
}

/* r = k p for k given as nk little-endian 64-bit limbs (plain integer, any size). */
static inline void E(mul)(E(jac) *r, const E(jac) *p, const uint64_t *k, int nk)
{
	E(jac) acc, base = *p;
	E(set_inf)(&acc);
	for (int i = nk - 1; i >= 0; i--)
		for (int b = 63; b >= 0; b--) {
			E(dbl)(&acc, &acc);
			if ((k[i] >> b) & 1)
				E(add)(&acc, &acc, &base);
		}
	*r = acc;
}

/* Writes the non-adjacent form of k (little-endian digits in {-1, 0, 1}, no two adjacent
 * non-zero) into d, which holds 65; returns the number of digits. */
static inline int E(naf64)(int8_t *d, uint64_t k)
{
	unsigned __int128 v = k;
	int n = 0;
	while (v) {
		int8_t z = 0;
		if (v & 1) {
			z = (v & 2) ? -1 : 1; /* 2 - (v mod 4) */
			v = z == 1 ? v - 1 : v + 1;
		}
		d[n++] = z;
		v >>= 1;
	}
	return n;
}

/* r = k p for a 64-bit k and an affine p, by the NAF of k with mixed additions (for the short
 * fixed scalars of the subgroup tests: the curve parameter). */
static inline void E(mul_u64_aff)(E(jac) *r, const E(aff) *p, uint64_t k)
{
	int8_t d[65];
	int n = E(naf64)(d, k);
	E(aff) np;
	E(aff_neg)(&np, p);
	E(jac) acc;
	E(set_inf)(&acc);
	for (int i = n - 1; i >= 0; i--) {
		E(dbl)(&acc, &acc);
		if (d[i])
			E(add_aff)(&acc, &acc, d[i] > 0 ? p : &np);
	}
	*r = acc;
}

/* r = k p for a 64-bit k and a Jacobian p, by the NAF of k. */
static inline void E(mul_u64)(E(jac) *r, const E(jac) *p, uint64_t k)
{
	int8_t d[65];
	int n = E(naf64)(d, k);
	E(jac) base = *p, nb, acc;
	E(neg)(&nb, &base);
	E(set_inf)(&acc);
	for (int i = n - 1; i >= 0; i--) {
		E(dbl)(&acc, &acc);
		if (d[i])
			E(add)(&acc, &acc, d[i] > 0 ? &base : &nb);
	}
	*r = acc;
}

/* Converts n Jacobian points to affine with one field inversion. scratch holds 2n elements. */
static inline void E(batch_to_aff)(E(aff) *r, const E(jac) *p, size_t n, FT *scratch)
{
	FT *z = scratch, *s = scratch + n;
	for (size_t i = 0; i < n; i++)
		z[i] = p[i].Z;
	/* Montgomery's trick, zeros (infinity) skipped */
	FT acc;
	G(one)(&acc);
	for (size_t i = 0; i < n; i++) {
		s[i] = acc;
		if (!G(is_zero)(&z[i]))
			G(mul)(&acc, &acc, &z[i]);
	}
	G(inv_vartime)(&acc, &acc); /* public points: see F(inv_vartime) */
	for (size_t i = n; i-- > 0;) {
		if (G(is_zero)(&z[i])) {
			G(zero)(&r[i].x);
			G(zero)(&r[i].y);
			continue;
		}
		FT zi, zi2;
		G(mul)(&zi, &acc, &s[i]);
		G(mul)(&acc, &acc, &z[i]);
		G(sqr)(&zi2, &zi);
		G(mul)(&r[i].x, &p[i].X, &zi2);
		G(mul)(&zi2, &zi2, &zi);
		G(mul)(&r[i].y, &p[i].Y, &zi2);
	}
}

/* Batch affine addition: for i < m, *acc[i] = *acc[i] + q[i], with one field inversion for
 * all m (Montgomery's trick; ~6 multiplications per addition instead of the ~11 of a mixed
 * Jacobian addition). Requires: no acc[i] or q[i] is infinity and the acc[i] are pairwise
 * distinct. Handles q[i] == *acc[i] (doubling) and q[i] == -*acc[i] (the result is infinity,
 * stored as all zero, as is the double of a point with y = 0). scratch holds 2m elements. */
static inline void E(batch_add_aff)(E(aff) *const *acc, const E(aff) *q, size_t m, FT *scratch)
{
	FT *d = scratch, *s = scratch + m;
	FT prod;
	G(one)(&prod);
	for (size_t i = 0; i < m; i++) {
		const E(aff) *a = acc[i];
		G(sub)(&d[i], &q[i].x, &a->x);
		if (G(is_zero)(&d[i]) && G(eq)(&q[i].y, &a->y))
			G(dbl)(&d[i], &a->y); /* doubling: 2y, zero when y = 0 */
		/* else d = 0 for P + (-P) */
		s[i] = prod;
		if (!G(is_zero)(&d[i]))
			G(mul)(&prod, &prod, &d[i]);
	}
	G(inv_vartime)(&prod, &prod); /* public points: see F(inv_vartime) */
	for (size_t i = m; i-- > 0;) {
		E(aff) *a = acc[i];
		if (G(is_zero)(&d[i])) {
			G(zero)(&a->x);
			G(zero)(&a->y);
			continue;
		}
		FT inv, lam, t;
		G(mul)(&inv, &prod, &s[i]);
		G(mul)(&prod, &prod, &d[i]);
		if (G(eq)(&q[i].x, &a->x)) { /* doubling: lambda = 3x^2 / 2y */
			G(sqr)(&t, &a->x);
			G(add)(&lam, &t, &t);
			G(add)(&lam, &lam, &t);
		} else {
			G(sub)(&lam, &q[i].y, &a->y);
		}
		G(mul)(&lam, &lam, &inv);
		G(sqr)(&t, &lam);
		G(sub)(&t, &t, &a->x);
		G(sub)(&t, &t, &q[i].x); /* x3 */
		FT y3;
		G(sub)(&y3, &a->x, &t);
		G(mul)(&y3, &y3, &lam);
		G(sub)(&a->y, &y3, &a->y);
		a->x = t;
	}
}

/* ---- XYZZ coordinates (x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; ZZ = 0 is infinity): cheaper
 * accumulators than Jacobian (mixed addition 8M+2S instead of 7M+4S, full addition 12M+2S
 * instead of 11M+5S; EFD madd-2008-s / add-2008-s / dbl-2008-s-1). Used by the MSM's bucket
 * overflow and running sums. All functions allow aliasing of outputs and inputs. ---- */
typedef struct {
	FT X, Y, ZZ, ZZZ;
} E(xyzz);

/* r = infinity */
static inline void E(xyzz_set_inf)(E(xyzz) *r)
{
	G(one)(&r->X);
	G(one)(&r->Y);
	G(zero)(&r->ZZ);
	G(zero)(&r->ZZZ);
}

/* Returns 1 when p is infinity. */
static inline int E(xyzz_is_inf)(const E(xyzz) *p)
{
	return G(is_zero)(&p->ZZ);
}

/* r = 2p (dbl-2008-s-1, a = 0); the double of a point with Y = 0 is infinity. */
static inline void E(xyzz_dbl)(E(xyzz) *r, const E(xyzz) *p)
{
	if (E(xyzz_is_inf)(p) || G(is_zero)(&p->Y)) {
		E(xyzz_set_inf)(r);
		return;
	}
	FT U, V, W, S, Mm, t, x3, y3, wy;
	G(dbl)(&U, &p->Y);
	G(sqr)(&V, &U);
	G(mul)(&W, &U, &V);
	G(mul)(&S, &p->X, &V);
	G(sqr)(&t, &p->X);
	G(dbl)(&Mm, &t);
	G(add)(&Mm, &Mm, &t);
	G(mul)(&wy, &W, &p->Y);
	G(sqr)(&x3, &Mm);
	G(sub)(&x3, &x3, &S);
	G(sub)(&x3, &x3, &S);
	G(sub)(&y3, &S, &x3);
	G(mul)(&y3, &Mm, &y3);
	G(sub)(&y3, &y3, &wy);
	G(mul)(&r->ZZ, &V, &p->ZZ);
	G(mul)(&r->ZZZ, &W, &p->ZZZ);
	r->X = x3;
	r->Y = y3;
}

/* r = p + q with q affine (madd-2008-s), handling infinity, p == q and p == -q. */
static inline void E(xyzz_add_aff)(E(xyzz) *r, const E(xyzz) *p, const E(aff) *q)
{
	if (E(aff_is_inf)(q)) {
		*r = *p;
		return;
	}
	if (E(xyzz_is_inf)(p)) {
		r->X = q->x;
		r->Y = q->y;
		G(one)(&r->ZZ);
		G(one)(&r->ZZZ);
		return;
	}
	FT P, R, PP, PPP, Qq, x3, y3, u;
	G(mul)(&P, &q->x, &p->ZZ);
	G(sub)(&P, &P, &p->X);
	G(mul)(&R, &q->y, &p->ZZZ);
	G(sub)(&R, &R, &p->Y);
	if (G(is_zero)(&P)) {
		if (G(is_zero)(&R))
			E(xyzz_dbl)(r, p);
		else
			E(xyzz_set_inf)(r);
		return;
	}
	G(sqr)(&PP, &P);
	G(mul)(&PPP, &P, &PP);
	G(mul)(&Qq, &p->X, &PP);
	G(sqr)(&x3, &R);
	G(sub)(&x3, &x3, &PPP);
	G(sub)(&x3, &x3, &Qq);
	G(sub)(&x3, &x3, &Qq);
	G(sub)(&y3, &Qq, &x3);
	G(mul)(&y3, &R, &y3);
	G(mul)(&u, &p->Y, &PPP);
	G(sub)(&y3, &y3, &u);
	G(mul)(&r->ZZ, &p->ZZ, &PP);
	G(mul)(&r->ZZZ, &p->ZZZ, &PPP);
	r->X = x3;
	r->Y = y3;
}

/* r = p + q (add-2008-s), handling infinity, p == q and p == -q. */
static inline void E(xyzz_add)(E(xyzz) *r, const E(xyzz) *p, const E(xyzz) *q)
{
	if (E(xyzz_is_inf)(p)) {
		*r = *q;
		return;
	}
	if (E(xyzz_is_inf)(q)) {
		*r = *p;
		return;
	}
	FT U1, S1, P, R, PP, PPP, Qq, x3, y3, u;
	G(mul)(&U1, &p->X, &q->ZZ);
	G(mul)(&P, &q->X, &p->ZZ);
	G(sub)(&P, &P, &U1);
	G(mul)(&S1, &p->Y, &q->ZZZ);
	G(mul)(&R, &q->Y, &p->ZZZ);
	G(sub)(&R, &R, &S1);
	if (G(is_zero)(&P)) {
		if (G(is_zero)(&R))
			E(xyzz_dbl)(r, p);
		else
			E(xyzz_set_inf)(r);
		return;
	}
	G(sqr)(&PP, &P);
	G(mul)(&PPP, &P, &PP);
	G(mul)(&Qq, &U1, &PP);
	G(sqr)(&x3, &R);
	G(sub)(&x3, &x3, &PPP);
	G(sub)(&x3, &x3, &Qq);
	G(sub)(&x3, &x3, &Qq);
	G(sub)(&y3, &Qq, &x3);
	G(mul)(&y3, &R, &y3);
	G(mul)(&u, &S1, &PPP);
	G(sub)(&y3, &y3, &u);
	G(mul)(&u, &p->ZZ, &q->ZZ);
	G(mul)(&r->ZZ, &u, &PP);
	G(mul)(&u, &p->ZZZ, &q->ZZZ);
	G(mul)(&r->ZZZ, &u, &PPP);
	r->X = x3;
	r->Y = y3;
}

/* r = p in Jacobian coordinates: Z = ZZ ZZZ, X = X ZZ ZZZ^2, Y = Y ZZ^3 ZZZ^2 (needs no
 * inversion and no use of the ZZ^3 = ZZZ^2 invariant). */
static inline void E(xyzz_to_jac)(E(jac) *r, const E(xyzz) *p)
{
	if (E(xyzz_is_inf)(p)) {
		E(set_inf)(r);
		return;
	}
	FT z3s, zz2, t;
	G(sqr)(&z3s, &p->ZZZ);
	G(sqr)(&zz2, &p->ZZ);
	G(mul)(&t, &p->X, &p->ZZ);
	G(mul)(&r->X, &t, &z3s);
	G(mul)(&t, &p->Y, &zz2);
	G(mul)(&t, &t, &p->ZZ);
	G(mul)(&r->Y, &t, &z3s);
	G(mul)(&r->Z, &p->ZZ, &p->ZZZ);
}

#undef FT
#undef E
#undef G
#undef EC
#undef EF
#undef EC_B
