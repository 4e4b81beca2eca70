/* wcg_int.h - circom's integer-valued operators on standard-form field elements (4 limbs).
 *
 * One implementation shared by the tracer's constant folding (witness/rt/trace.cpp, compiled
 * at import) and the graph evaluator (witness/wcg.c), so a folded constant and a replayed
 * node can never disagree. Inputs are canonical (< q); every result is canonical.
 * Semantics (circom's, see zka_wcg.h): x is "negative" when x > half = (q-1)/2; shifts and
 * bitwise results are masked to nbits = bit length of q and reduced once. */
#ifndef ZKA_WCG_INT_H
#define ZKA_WCG_INT_H
#include <stdint.h>
#include <string.h>

typedef struct {
	uint64_t q[4], half[4];
	int nbits;
} zka_wi_field;

/* -1, 0 or 1 as a <, =, > b (unsigned). */
static inline int zka_wi_cmp(const uint64_t *a, const uint64_t *b)
{
	for (int i = 3; i >= 0; i--)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* r = a - b (a >= b). */
static inline void zka_wi_sub(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
	unsigned __int128 br = 0;
	for (int i = 0; i < 4; i++) {
		unsigned __int128 t = (unsigned __int128)a[i] - b[i] - (uint64_t)br;
		r[i] = (uint64_t)t;
		br = (t >> 64) & 1;
	}
}

/* Masks r to nbits and subtracts q once when r >= q. */
static inline void zka_wi_fit(uint64_t *r, const zka_wi_field *f)
{
	for (int i = 0; i < 4; i++) {
		int lo = i * 64;
		if (lo >= f->nbits)
			r[i] = 0;
		else if (f->nbits - lo < 64)
			r[i] &= (1ull << (f->nbits - lo)) - 1;
	}
	if (zka_wi_cmp(r, f->q) >= 0)
		zka_wi_sub(r, r, f->q);
}

/* Signed comparison (-1, 0, 1) of circom's a and b. */
static inline int zka_wi_scmp(const uint64_t *a, const uint64_t *b, const zka_wi_field *f)
{
	int na = zka_wi_cmp(a, f->half) > 0, nb = zka_wi_cmp(b, f->half) > 0;
	if (na != nb)
		return na ? -1 : 1;
	return zka_wi_cmp(a, b); /* same sign: a - q vs b - q orders as a vs b */
}

/* r = a << k or a >> k for 0 <= k < 256 (plain integer shifts of 4 limbs). */
static inline void zka_wi_lshift(uint64_t *r, const uint64_t *a, unsigned k)
{
	uint64_t t[4] = {0, 0, 0, 0};
	unsigned w = k / 64, s = k % 64;
	for (int i = 3; i >= (int)w; i--) {
		t[i] = a[i - w] << s;
		if (s && i - (int)w - 1 >= 0)
			t[i] |= a[i - w - 1] >> (64 - s);
	}
	memcpy(r, t, sizeof t);
}
static inline void zka_wi_rshift(uint64_t *r, const uint64_t *a, unsigned k)
{
	uint64_t t[4] = {0, 0, 0, 0};
	unsigned w = k / 64, s = k % 64;
	for (int i = 0; i + (int)w < 4; i++) {
		t[i] = a[i + w] >> s;
		if (s && i + (int)w + 1 < 4)
			t[i] |= a[i + w + 1] << (64 - s);
	}
	memcpy(r, t, sizeof t);
}

/* circom's a << b (left = 1) or a >> b (left = 0): a "negative" b shifts the other way by
 * q - b; a shift by nbits or more gives 0. */
static inline void zka_wi_shift(uint64_t *r, const uint64_t *a, const uint64_t *b, int left,
				const zka_wi_field *f)
{
	uint64_t k[4];
	memcpy(k, b, sizeof k);
	if (zka_wi_cmp(k, f->half) > 0) {
		zka_wi_sub(k, f->q, k);
		left = !left;
	}
	if (k[1] || k[2] || k[3] || k[0] >= (uint64_t)f->nbits) {
		memset(r, 0, 4 * sizeof *r);
		return;
	}
	if (left) {
		zka_wi_lshift(r, a, (unsigned)k[0]);
		zka_wi_fit(r, f);
	} else {
		zka_wi_rshift(r, a, (unsigned)k[0]);
	}
}

/* Bitwise and (op 0), or (1), xor (2), not (3, b unused) of standard forms. */
static inline void zka_wi_bit(uint64_t *r, const uint64_t *a, const uint64_t *b, int op,
			      const zka_wi_field *f)
{
	for (int i = 0; i < 4; i++)
		r[i] = op == 0	 ? a[i] & b[i]
		       : op == 1 ? a[i] | b[i]
		       : op == 2 ? a[i] ^ b[i]
				 : ~a[i];
	zka_wi_fit(r, f);
}
#endif
