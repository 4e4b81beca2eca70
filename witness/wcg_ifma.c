/* wcg_ifma.c - 8 Montgomery-to-standard conversions at once with AVX-512 IFMA (wcg_ifma.h's
 * design note). The lanes are independent values; the limb loops below are sequential in the
 * limbs and parallel in the lanes. */
#include "witness/wcg_ifma.h"

#include <string.h>

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
	static int ok = -1; /* a data race here only recomputes the same answer */
	if (ok < 0) {
		__builtin_cpu_init();
		ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
	}
	return ok;
}

#define IFMA __attribute__((target("avx512f,avx512ifma")))

/* The standard forms of the lanes of mask: x's limbs gathered at xi (+ limb), written at wi */
static IFMA void to_std8(uint64_t (*w)[4], const uint64_t (*x)[4], __m512i xi, __m512i wi,
			 __mmask8 mask, const zka_ifma_redc *c)
{
	const __m512i m52 = _mm512_set1_epi64((long long)M52), zero = _mm512_setzero_si512();
	const long long *xb = (const long long *)x;
	__m512i x0 = _mm512_mask_i64gather_epi64(zero, mask, xi, xb, 8);
	__m512i x1 = _mm512_mask_i64gather_epi64(zero, mask,
						 _mm512_add_epi64(xi, _mm512_set1_epi64(1)), xb, 8);
	__m512i x2 = _mm512_mask_i64gather_epi64(zero, mask,
						 _mm512_add_epi64(xi, _mm512_set1_epi64(2)), xb, 8);
	__m512i x3 = _mm512_mask_i64gather_epi64(zero, mask,
						 _mm512_add_epi64(xi, _mm512_set1_epi64(3)), xb, 8);
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
	/* four 64-bit limbs, scattered to the entries */
	long long *wb = (long long *)w;
	__m512i y0 = _mm512_or_si512(a[0], _mm512_slli_epi64(a[1], 52));
	__m512i y1 = _mm512_or_si512(_mm512_srli_epi64(a[1], 12), _mm512_slli_epi64(a[2], 40));
	__m512i y2 = _mm512_or_si512(_mm512_srli_epi64(a[2], 24), _mm512_slli_epi64(a[3], 28));
	__m512i y3 = _mm512_or_si512(_mm512_srli_epi64(a[3], 36), _mm512_slli_epi64(a[4], 16));
	_mm512_mask_i64scatter_epi64(wb, mask, wi, y0, 8);
	_mm512_mask_i64scatter_epi64(wb, mask, _mm512_add_epi64(wi, _mm512_set1_epi64(1)), y1, 8);
	_mm512_mask_i64scatter_epi64(wb, mask, _mm512_add_epi64(wi, _mm512_set1_epi64(2)), y2, 8);
	_mm512_mask_i64scatter_epi64(wb, mask, _mm512_add_epi64(wi, _mm512_set1_epi64(3)), y3, 8);
}

/* See wcg_ifma.h. */
IFMA void zka_ifma_to_std(uint64_t (*w)[4], const uint64_t (*x)[4], const uint32_t *idx, uint32_t n,
			  const zka_ifma_redc *c)
{
	const __m512i lanes = _mm512_set_epi64(28, 24, 20, 16, 12, 8, 4, 0);
	for (uint32_t k = 0; k < n; k += 8) {
		uint32_t r = n - k < 8 ? n - k : 8;
		__mmask8 mask = (__mmask8)((1u << r) - 1);
		uint32_t i8[8] = {0, 0, 0, 0, 0, 0, 0, 0};
		memcpy(i8, idx + k, r * sizeof *idx);
		__m256i i32 = _mm256_loadu_si256((const __m256i *)i8);
		__m512i wi = _mm512_slli_epi64(_mm512_cvtepu32_epi64(i32), 2);
		__m512i xi = _mm512_add_epi64(lanes, _mm512_set1_epi64((long long)k * 4));
		to_std8(w, x, xi, wi, mask, c);
	}
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
