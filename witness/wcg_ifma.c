/* wcg_ifma.c - 8 Montgomery-to-standard conversions at once with AVX-512 IFMA (wcg_ifma.h's
 * design note). The lanes are independent values; the limb loops below are sequential in the
 * limbs and parallel in the lanes. */
#include "witness/wcg_ifma.h"

#define M52 ((1ull << 52) - 1)

/* See wcg_ifma.h. */
void zka_ifma_redc_init(zka_ifma_redc *c, const uint64_t p[4])
{
	uint64_t inv = 1; /* p^-1 mod 2^64 by Newton's iteration: 6 steps double 1 bit to 64 */
	for (int i = 0; i < 6; i++)
		inv *= 2 - p[0] * inv;
	c->p[0] = p[0] & M52;
	c->p[1] = (p[0] >> 52 | p[1] << 12) & M52;
	c->p[2] = (p[1] >> 40 | p[2] << 24) & M52;
	c->p[3] = (p[2] >> 28 | p[3] << 36) & M52;
	c->p[4] = p[3] >> 16;
	c->pinv = (0 - inv) & M52;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

/* See wcg_ifma.h. */
int zka_ifma_available(void)
{
	static _Atomic int ok = -1; /* two first calls only compute the same answer */
	if (ok < 0) {
		__builtin_cpu_init();
		ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
	}
	return ok;
}

#define IFMA __attribute__((target("avx512f,avx512ifma")))

/* The standard forms of x[0..r-1] (r <= 8, one a lane) to w[idx[0..r-1]]. The values move
 * in and out by loads, lane transposes (permutes) and 32-byte stores: gathers and scatters
 * cost more, and a vector load of indices just stored piecewise stalled on store forwarding
 * (perf on the 2-core box: 95% of the first version's time on that load). */
static IFMA void to_std8(uint64_t (*w)[4], const uint64_t (*x)[4], const uint32_t *idx, uint32_t r,
			 const zka_ifma_redc *c)
{
	const __m512i m52 = _mm512_set1_epi64((long long)M52), zero = _mm512_setzero_si512();
	const long long *xb = (const long long *)x;
	__m512i v[4]; /* v[i]: values 2i and 2i + 1, four limbs each */
	for (int i = 0; i < 4; i++) {
		uint32_t have = r > 2u * i ? r - 2u * i : 0;
		__mmask8 m = have >= 2 ? 0xff : have == 1 ? 0x0f : 0;
		v[i] = _mm512_maskz_loadu_epi64(m, xb + 8 * i);
	}
	/* transpose: x0..x3 hold limb 0..3 of the 8 values, lane k value k */
	const __m512i s_lo = _mm512_set_epi64(13, 9, 5, 1, 12, 8, 4, 0);
	const __m512i s_hi = _mm512_set_epi64(15, 11, 7, 3, 14, 10, 6, 2);
	const __m512i j_lo = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0);
	const __m512i j_hi = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
	__m512i t0 = _mm512_permutex2var_epi64(v[0], s_lo, v[1]); /* a0 b0 c0 d0 a1 b1 c1 d1 */
	__m512i t1 = _mm512_permutex2var_epi64(v[0], s_hi, v[1]); /* a2 .. d2 a3 .. d3 */
	__m512i t2 = _mm512_permutex2var_epi64(v[2], s_lo, v[3]); /* e0 .. h0 e1 .. h1 */
	__m512i t3 = _mm512_permutex2var_epi64(v[2], s_hi, v[3]);
	__m512i x0 = _mm512_permutex2var_epi64(t0, j_lo, t2);
	__m512i x1 = _mm512_permutex2var_epi64(t0, j_hi, t2);
	__m512i x2 = _mm512_permutex2var_epi64(t1, j_lo, t3);
	__m512i x3 = _mm512_permutex2var_epi64(t1, j_hi, t3);
	/* 16 x in 52-bit limbs: bits 52 i - 4 .. 52 i + 47 of x */
	__m512i a[6];
	a[0] = _mm512_and_si512(_mm512_slli_epi64(x0, 4), m52);
	a[1] = _mm512_and_si512(
	    _mm512_or_si512(_mm512_srli_epi64(x0, 48), _mm512_slli_epi64(x1, 16)), m52);
	a[2] = _mm512_and_si512(
	    _mm512_or_si512(_mm512_srli_epi64(x1, 36), _mm512_slli_epi64(x2, 28)), m52);
	a[3] = _mm512_and_si512(
	    _mm512_or_si512(_mm512_srli_epi64(x2, 24), _mm512_slli_epi64(x3, 40)), m52);
	a[4] = _mm512_srli_epi64(x3, 12);
	a[5] = zero;
	__m512i p[5], pinv = _mm512_set1_epi64((long long)c->pinv);
	for (int j = 0; j < 5; j++)
		p[j] = _mm512_set1_epi64((long long)c->p[j]);
	/* five steps of the reduction: t += m p (m = t_0 (-p^-1) mod 2^52), then t / 2^52 */
	for (int i = 0; i < 5; i++) {
		__m512i m = _mm512_madd52lo_epu64(zero, a[0], pinv);
		for (int j = 0; j < 5; j++)
			a[j] = _mm512_madd52lo_epu64(a[j], m, p[j]);
		for (int j = 0; j < 5; j++)
			a[j + 1] = _mm512_madd52hi_epu64(a[j + 1], m, p[j]);
		/* a[0] is 0 mod 2^52 now: its carry moves up with the shift */
		a[1] = _mm512_add_epi64(a[1], _mm512_srli_epi64(a[0], 52));
		for (int j = 0; j < 5; j++)
			a[j] = a[j + 1];
		a[5] = zero;
	}
	/* normalise to 52-bit limbs (t <= p < 2^255: no carry out of a[4]) */
	for (int j = 0; j < 4; j++) {
		a[j + 1] = _mm512_add_epi64(a[j + 1], _mm512_srli_epi64(a[j], 52));
		a[j] = _mm512_and_si512(a[j], m52);
	}
	/* t - p where t >= p (a lane whose subtraction does not borrow) */
	__m512i d[5], b = zero;
	for (int j = 0; j < 5; j++) {
		__m512i s = _mm512_sub_epi64(_mm512_sub_epi64(a[j], p[j]), b);
		b = _mm512_srli_epi64(s, 63);
		d[j] = _mm512_and_si512(s, m52);
	}
	__mmask8 ge = _mm512_cmpeq_epi64_mask(b, zero);
	for (int j = 0; j < 5; j++)
		a[j] = _mm512_mask_mov_epi64(a[j], ge, d[j]);
	/* four 64-bit limbs, transposed back to one value per 256 bits, stored to the entries */
	__m512i y0 = _mm512_or_si512(a[0], _mm512_slli_epi64(a[1], 52));
	__m512i y1 = _mm512_or_si512(_mm512_srli_epi64(a[1], 12), _mm512_slli_epi64(a[2], 40));
	__m512i y2 = _mm512_or_si512(_mm512_srli_epi64(a[2], 24), _mm512_slli_epi64(a[3], 28));
	__m512i y3 = _mm512_or_si512(_mm512_srli_epi64(a[3], 36), _mm512_slli_epi64(a[4], 16));
	const __m512i u_lo = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
	const __m512i u_hi = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
	const __m512i k_lo = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
	const __m512i k_hi = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
	__m512i q0 = _mm512_permutex2var_epi64(y0, u_lo, y1); /* a0 a1 b0 b1 c0 c1 d0 d1 */
	__m512i q1 = _mm512_permutex2var_epi64(y0, u_hi, y1); /* e0 e1 .. h0 h1 */
	__m512i q2 = _mm512_permutex2var_epi64(y2, u_lo, y3); /* a2 a3 .. d2 d3 */
	__m512i q3 = _mm512_permutex2var_epi64(y2, u_hi, y3);
	__m512i o[4];
	o[0] = _mm512_permutex2var_epi64(q0, k_lo, q2); /* a0 a1 a2 a3 b0 b1 b2 b3 */
	o[1] = _mm512_permutex2var_epi64(q0, k_hi, q2); /* c, d */
	o[2] = _mm512_permutex2var_epi64(q1, k_lo, q3); /* e, f */
	o[3] = _mm512_permutex2var_epi64(q1, k_hi, q3); /* g, h */
	for (uint32_t k = 0; k < r; k++) {
		__m256i e = k & 1 ? _mm512_extracti64x4_epi64(o[k >> 1], 1)
				  : _mm512_castsi512_si256(o[k >> 1]);
		_mm256_storeu_si256((__m256i *)w[idx[k]], e);
	}
}

/* See wcg_ifma.h. */
IFMA void zka_ifma_to_std(uint64_t (*w)[4], const uint64_t (*x)[4], const uint32_t *idx, uint32_t n,
			  const zka_ifma_redc *c)
{
	for (uint32_t k = 0; k < n; k += 8)
		to_std8(w, x + k, idx + k, n - k < 8 ? n - k : 8, c);
}
#else
int zka_ifma_available(void)
{
	return 0;
}

void zka_ifma_to_std(uint64_t (*w)[4], const uint64_t (*x)[4], const uint32_t *idx, uint32_t n,
		     const zka_ifma_redc *c)
{
	(void)w, (void)x, (void)idx, (void)n, (void)c;
}
#endif
