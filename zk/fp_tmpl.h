/* fp_tmpl.h - the one Montgomery prime-field implementation, instantiated per modulus.
 *
 * Include with these macros defined (the file undefines them again):
 *   FP      the name prefix of the instance, e.g. bn254_fr (types become bn254_fr_t, ...)
 *   FP_N    the number of 64-bit limbs (4 or 6)
 *   FP_C    the prefix of the constants in curve_consts.h, e.g. BN254_FR (uses _P, _ONE, _R2,
 *           _INV, _PM2)
 *
 * Representation (shared with the GPU, which reads the same bytes as 32-bit limbs):
 *   1. An element is FP_N little-endian 64-bit limbs holding a*R mod p, R = 2^(64*FP_N).
 *   2. Every function returns a fully reduced value (< p) given fully reduced inputs.
 *   3. Outputs may alias inputs.
 * Both moduli leave at least one spare bit in the top limb, which the additions rely on.
 */
#include <stdint.h>
#include <string.h>

#define FP_CAT2(a, b) a##_##b
#define FP_CAT(a, b) FP_CAT2(a, b)
#define F(name) FP_CAT(FP, name)
#define K2(a, b) a##_##b
#define K1(a, b) K2(a, b)
#define K(name) K1(FP_C, name)
#define T F(t)

typedef struct {
	uint64_t v[FP_N];
} T;

typedef unsigned __int128 F(u128);

/* r = 0 */
static inline void F(zero)(T *r)
{
	memset(r, 0, sizeof *r);
}

/* r = 1 (Montgomery form R mod p) */
static inline void F(one)(T *r)
{
	memcpy(r->v, K(ONE), sizeof r->v);
}

/* Returns 1 when a == 0. */
static inline int F(is_zero)(const T *a)
{
	uint64_t acc = 0;
	for (int i = 0; i < FP_N; i++)
		acc |= a->v[i];
	return acc == 0;
}

/* Returns 1 when a == b. */
static inline int F(eq)(const T *a, const T *b)
{
	uint64_t acc = 0;
	for (int i = 0; i < FP_N; i++)
		acc |= a->v[i] ^ b->v[i];
	return acc == 0;
}

/* Returns 1 when the limbs of a, read as an integer, are < p (a canonical element). */
static inline int F(is_canonical)(const T *a)
{
	for (int i = FP_N - 1; i >= 0; i--) {
		if (a->v[i] < K(P)[i])
			return 1;
		if (a->v[i] > K(P)[i])
			return 0;
	}
	return 0;
}

/* r = a - p when a >= p; otherwise r = a. Input must be < 2p. Branch-free. */
static inline void F(reduce_once)(T *r, const T *a)
{
	uint64_t t[FP_N];
	uint64_t borrow = 0;
	for (int i = 0; i < FP_N; i++) {
		F(u128) d = (F(u128))a->v[i] - K(P)[i] - borrow;
		t[i] = (uint64_t)d;
		borrow = (uint64_t)(d >> 64) & 1;
	}
	uint64_t keep = 0 - borrow; /* all ones when a < p */
	for (int i = 0; i < FP_N; i++)
		r->v[i] = (a->v[i] & keep) | (t[i] & ~keep);
}

/* r = a + b mod p */
static inline void F(add)(T *r, const T *a, const T *b)
{
	T s;
	uint64_t carry = 0;
	for (int i = 0; i < FP_N; i++) {
		F(u128) t = (F(u128))a->v[i] + b->v[i] + carry;
		s.v[i] = (uint64_t)t;
		carry = (uint64_t)(t >> 64);
	}
	/* the spare top bit of p means a + b < 2^(64N): carry is always 0 here */
	F(reduce_once)(r, &s);
}

/* r = a - b mod p */
static inline void F(sub)(T *r, const T *a, const T *b)
{
	uint64_t t[FP_N];
	uint64_t borrow = 0;
	for (int i = 0; i < FP_N; i++) {
		F(u128) d = (F(u128))a->v[i] - b->v[i] - borrow;
		t[i] = (uint64_t)d;
		borrow = (uint64_t)(d >> 64) & 1;
	}
	if (borrow) {
		uint64_t carry = 0;
		for (int i = 0; i < FP_N; i++) {
			F(u128) s = (F(u128))t[i] + K(P)[i] + carry;
			t[i] = (uint64_t)s;
			carry = (uint64_t)(s >> 64);
		}
	}
	memcpy(r->v, t, sizeof t);
}

/* r = -a mod p */
static inline void F(neg)(T *r, const T *a)
{
	T z;
	F(zero)(&z);
	F(sub)(r, &z, a);
}

/* r = 2a mod p */
static inline void F(dbl)(T *r, const T *a)
{
	F(add)(r, a, a);
}

/* r = a * b * R^-1 mod p: Montgomery product, CIOS with the "no-carry" shortcut, valid
 * because the top limb of every modulus here is below (2^64 - 1)/2 - 1, so the running value
 * never needs a limb beyond FP_N. */
static inline void F(mul)(T *r, const T *a, const T *b)
{
	uint64_t t[FP_N];
	for (int j = 0; j < FP_N; j++)
		t[j] = 0;
	for (int i = 0; i < FP_N; i++) {
		F(u128) c = (F(u128))a->v[0] * b->v[i] + t[0];
		uint64_t A = (uint64_t)(c >> 64);
		uint64_t m = (uint64_t)c * K(INV);
		F(u128) d = (F(u128))m * K(P)[0] + (uint64_t)c;
		uint64_t C = (uint64_t)(d >> 64);
		for (int j = 1; j < FP_N; j++) {
			c = (F(u128))a->v[j] * b->v[i] + t[j] + A;
			A = (uint64_t)(c >> 64);
			d = (F(u128))m * K(P)[j] + (uint64_t)c + C;
			C = (uint64_t)(d >> 64);
			t[j - 1] = (uint64_t)d;
		}
		t[FP_N - 1] = A + C;
	}
	T s;
	for (int j = 0; j < FP_N; j++)
		s.v[j] = t[j];
	F(reduce_once)(r, &s);
}

/* r = a^2 mod p (Montgomery) */
static inline void F(sqr)(T *r, const T *a)
{
	F(mul)(r, a, a);
}

/* r = a converted into Montgomery form (a * R mod p); a must be < p. */
static inline void F(to_mont)(T *r, const T *a)
{
	T r2;
	memcpy(r2.v, K(R2), sizeof r2.v);
	F(mul)(r, a, &r2);
}

/* r = a converted out of Montgomery form (a * R^-1 mod p). */
static inline void F(from_mont)(T *r, const T *a)
{
	T one;
	memset(&one, 0, sizeof one);
	one.v[0] = 1;
	F(mul)(r, a, &one);
}

/* r = small integer v in Montgomery form */
static inline void F(from_u64)(T *r, uint64_t v)
{
	T a;
	memset(&a, 0, sizeof a);
	a.v[0] = v;
	F(to_mont)(r, &a);
}

/* r = a^e for e given as ne little-endian 64-bit limbs (plain integer). */
static inline void F(pow)(T *r, const T *a, const uint64_t *e, int ne)
{
	T acc, base = *a;
	F(one)(&acc);
	for (int i = ne - 1; i >= 0; i--)
		for (int b = 63; b >= 0; b--) {
			F(sqr)(&acc, &acc);
			if ((e[i] >> b) & 1)
				F(mul)(&acc, &acc, &base);
		}
	*r = acc;
}

/* r = a^-1 mod p (Fermat); the inverse of 0 is 0. */
static inline void F(inv)(T *r, const T *a)
{
	F(pow)(r, a, K(PM2), FP_N);
}

/* Inverts the n elements of a in place with one inversion (Montgomery's trick); zeros stay
 * zero. scratch must hold n elements. */
static inline void F(batch_inv)(T *a, T *scratch, size_t n)
{
	T acc;
	F(one)(&acc);
	for (size_t i = 0; i < n; i++) {
		scratch[i] = acc;
		if (!F(is_zero)(&a[i]))
			F(mul)(&acc, &acc, &a[i]);
	}
	F(inv)(&acc, &acc);
	for (size_t i = n; i-- > 0;) {
		if (F(is_zero)(&a[i]))
			continue;
		T t;
		F(mul)(&t, &acc, &scratch[i]);
		F(mul)(&acc, &acc, &a[i]);
		a[i] = t;
	}
}

#undef T
#undef K
#undef K1
#undef K2
#undef F
#undef FP_CAT
#undef FP_CAT2
#undef FP
#undef FP_N
#undef FP_C
