/* field_f64.cuh - Montgomery products on the FP64 pipe: K limbs of 52 bits held in doubles.
 *
 * Why it was built (issue 22): the 32-bit-limb product (field.cuh) is bound by the H200's
 * IMAD.WIDE (~4 cycles per warp instruction per scheduler; an 8-limb product is ~136 of them),
 * and the FP64 pipe (one DFMA per 2 cycles per scheduler) looked idle beside it. The
 * measurements at the end of this note say it is not. A 52 x 52-bit limb
 * product is exact in two fused multiply-adds rounded toward zero (after Emmart, Zheng and
 * Weems, ARITH 2018, "wide samples"):
 *   hi = fma_rz(a, b, 2^104)              = 2^104 + H 2^52,   H = floor(a b / 2^52)
 *   lo = fma_rz(a, b, (2^104 + 2^52) - hi) = 2^52 + L,        L = a b mod 2^52
 * (the subtraction is exact: (1 - H) 2^52). Both results have a fixed exponent, so their bit
 * patterns are the integers H and L plus a constant; the column sums add the patterns as 64-bit
 * integers and every column starts at minus the sum of the constants it will receive (the
 * constants are multiples of 2^52, so a column's low 52 bits are right at any time).
 *
 * Objects: f52<P> holds K = D_*_K52 limbs, each an integer < 2^52 in a double; the value is
 * x R' mod p (R' = 2^(52K)), kept < 2p (4p < R' for every field here), so a product of two
 * such values is < 2p again without a final subtraction. from32/to32 convert from and to the
 * 32-bit-limb form of field.cuh (R = 2^(32N)): x R -> x R' is a product by CIN52 = R'^2/R mod p,
 * back is a product by COUT52 = R mod p and one conditional subtraction.
 *
 * Product (mul): Montgomery in product scanning over 2K columns of uint64; column k < K
 * takes m_k = (column mod 2^52) (-p^-1) mod 2^52 (an integer product: PINV52), so that adding
 * m_k p makes it 0 mod 2^52. Columns K..2K-1 are the result's limbs. Bounds: a column receives
 * at most 4K terms < 2^52 and a carry < 2^(4 + log K), so it stays below 2^(55 + log K).
 * A first version (operand scanning, 2K live columns, one 64-bit add per pattern) measured
 * 0.97x the integer product's speed on BN254 Fq and 0.90x on BLS12-381 Fq (H200, 2026-12-03,
 * docs/measurements/2026-12-03-h200-s21-b-arith-fp64-v1.txt).
 *
 * Invariants: (1) every limb is an integer in [0, 2^52); (2) values are < 2p; (3) to32 returns
 * the same bytes as field.cuh's product chain would (checked by gpu_test against k_arith_mul).
 * Not on the prover's path: zka_gpu_acc_arith method 4 prices it (bench gpu --arith 1). H200,
 * 2026-12-03: BN254 Fq 0.0178 ns against the integer product's 0.0173 (0.97x); BLS12-381 Fq
 * 0.0528 against 0.0378 (0.72x; the product-scanned K = 8 code spills). On this GPU the FP64
 * pipe's work barely overlaps the integer pipe's (tools/probe/pipes.cu: a DFMA and an IMAD.WIDE
 * interleaved take 6.46 cycles against 2.04 + 5.12 alone), and integer additions do not hide
 * behind IMAD.WIDE at all (9.52 against 5.12 + 4.10), so neither this product nor a mix of the
 * two can beat the integer one: docs/gpu.md, "FP64 limb products, measured". */
#pragma once
#include "cuda/field.cuh"

#define ZG_F52_PARAMS(NAME, PFX)                                                                   \
	struct NAME {                                                                              \
		static constexpr int K = D_##PFX##_K52;                                            \
		static constexpr uint64_t PINV = D_##PFX##_PINV52;                                 \
		static ZG_DEV double p(int i)                                                      \
		{                                                                                  \
			return D_##PFX##_P52(i);                                                   \
		}                                                                                  \
		static ZG_DEV double cin(int i)                                                    \
		{                                                                                  \
			return D_##PFX##_CIN52(i);                                                 \
		}                                                                                  \
		static ZG_DEV double cout(int i)                                                   \
		{                                                                                  \
			return D_##PFX##_COUT52(i);                                                \
		}                                                                                  \
	};
ZG_F52_PARAMS(bn254_fq_f52, BN254_FQ)
ZG_F52_PARAMS(bls12_381_fq_f52, BLS12_381_FQ)

template <class P> struct f52_of;
template <> struct f52_of<bn254_fq_params> {
	using type = bn254_fq_f52;
};
template <> struct f52_of<bls12_381_fq_params> {
	using type = bls12_381_fq_f52;
};

namespace f52d
{
constexpr uint64_t M52 = (1ull << 52) - 1;
constexpr uint64_t B52 = 0x4330000000000000ull;	 /* bits of 2^52 */
constexpr uint64_t B104 = 0x4670000000000000ull; /* bits of 2^104 */
ZG_DEV uint64_t bits(double d)
{
	return (uint64_t)__double_as_longlong(d);
}
/* an integer < 2^52 as an exact double: its bits under 2^52's exponent, minus 2^52 */
ZG_DEV double from_int(uint64_t x)
{
	return __dsub_rn(__longlong_as_double((long long)(x | B52)), 4503599627370496.0);
}
/* the bit patterns of 2^52 + L and 2^104 + H 2^52 for a b = H 2^52 + L (a, b < 2^52) */
ZG_DEV void split(double a, double b, uint64_t &lo, uint64_t &hi)
{
	const double C1 = 20282409603651670423947251286016.0; /* 2^104 */
	const double C2 = 20282409603651674927546878656512.0; /* 2^104 + 2^52 */
	double h = __fma_rz(a, b, C1);
	double l = __fma_rz(a, b, __dsub_rn(C2, h));
	hi = bits(h);
	lo = bits(l);
}
} // namespace f52d

template <class P> struct f52 {
	using Q = typename f52_of<P>::type;
	static constexpr int K = Q::K, N = P::N;
	double v[K];

	/* minus the pattern constants column k receives: 2 n(k) low ones and 2 n(k-1) high ones
	 * (the product's and the reduction's), n(k) = #{i + j = k, 0 <= i, j < K} */
	static constexpr __host__ __device__ int nk(int k)
	{
		return k < 0 || k > 2 * K - 2 ? 0 : k < K ? k + 1 : 2 * K - 1 - k;
	}
	static constexpr __host__ __device__ uint64_t corr(int k)
	{
		return 0 - (uint64_t)(2 * nk(k)) * f52d::B52 -
		       (uint64_t)(2 * nk(k - 1)) * f52d::B104;
	}
	/* the product of two values < 2p, reduced by R': < 2p. Product scanning: column k sums
	 * the low halves of a_i b_j and m_i p_j (i + j = k) and the high halves of column k-1's,
	 * two patterns per 64-bit add (IADD3 takes three operands); for k < K, m_k is chosen from
	 * the column before m_k p_0 joins it, so that the column becomes 0 mod 2^52 and only its
	 * carry moves on. Two accumulators live: this column's and the next's. */
	static ZG_DEV f52 mul(const f52 &a, const f52 &b)
	{
		double m[K];
		f52 r;
		uint64_t cur = corr(0);
#pragma unroll
		for (int k = 0; k < 2 * K - 1; k++) {
			uint64_t nxt = corr(k + 1), pl = 0, ph = 0;
			bool hl = false, hh = false;
			/* adds a pattern pair's low half to cur and high half to nxt, two at a time
			 */
			auto put = [&](double x, double y) {
				uint64_t lo, hi;
				f52d::split(x, y, lo, hi);
				if (hl)
					cur = cur + pl + lo;
				else
					pl = lo;
				if (hh)
					nxt = nxt + ph + hi;
				else
					ph = hi;
				hl = !hl;
				hh = !hh;
			};
			int i0 = k < K ? 0 : k - K + 1, i1 = k < K ? k : K - 1;
#pragma unroll
			for (int i = i0; i <= i1; i++)
				put(a.v[i], b.v[k - i]);
#pragma unroll
			for (int i = i0; i <= i1; i++)
				if (i < k)
					put(m[i], Q::p(k - i));
			if (hl) {
				cur += pl;
				hl = false;
			}
			if (k < K) {
				uint64_t mk = ((cur & f52d::M52) * Q::PINV) & f52d::M52;
				m[k] = f52d::from_int(mk);
				put(m[k], Q::p(0));
				if (hl)
					cur += pl;
			} else
				r.v[k - K] = f52d::from_int(cur & f52d::M52);
			if (hh)
				nxt += ph;
			cur = nxt + (cur >> 52);
		}
		r.v[K - 1] = f52d::from_int(cur & f52d::M52);
		return r;
	}
	/* x R (32-bit limbs, < p) -> x R' (< 2p) */
	static ZG_DEV f52 from32(const fp<P> &a)
	{
		f52 s, c;
#pragma unroll
		for (int k = 0; k < K; k++) {
			int b = 52 * k, w = b / 32, o = b % 32;
			uint64_t x = 0;
#pragma unroll
			for (int t = 0; t < 3; t++)
				if (w + t < N && 32 * t - o < 64)
					x |= t == 0 ? (uint64_t)(a.v[w] >> o)
						    : (uint64_t)a.v[w + t] << (32 * t - o);
			s.v[k] = f52d::from_int(x & f52d::M52);
			c.v[k] = Q::cin(k);
		}
		return mul(s, c);
	}
	/* x R' (< 2p) -> x R (32-bit limbs, fully reduced) */
	ZG_DEV fp<P> to32() const
	{
		f52 c;
#pragma unroll
		for (int k = 0; k < K; k++)
			c.v[k] = Q::cout(k);
		f52 t = mul(*this, c);
		fp<P> r;
#pragma unroll
		for (int w = 0; w < N; w++) {
			int b = 32 * w, k = b / 52, o = b % 52;
			uint64_t x = (uint64_t)__double2ull_rz(t.v[k]) >> o;
			if (o > 20 && k + 1 < K)
				x |= (uint64_t)__double2ull_rz(t.v[k + 1]) << (52 - o);
			r.v[w] = (uint32_t)x;
		}
		return fp<P>::reduce(r);
	}
};
