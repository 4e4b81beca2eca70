/* field.cuh - Montgomery prime fields with 32-bit limbs and PTX carry chains, and Fq2.
 *
 * An element is N little-endian 32-bit limbs holding a*R mod p with R = 2^(32N): the same
 * bytes as the host's 64-bit-limb Montgomery form (zk/fp_tmpl.h, R = 2^(64*N/2)). Every
 * operation returns a fully reduced value (< p) given fully reduced inputs, so results can be
 * handed to the host templates byte for byte. Both moduli leave a spare top bit, which the
 * additions rely on (no carry out of the top limb). */
#pragma once
#include <stdint.h>

#include "cuda/consts.cuh"

#define ZG_DEV __device__ __forceinline__

namespace ptx {
ZG_DEV uint32_t add_cc(uint32_t a, uint32_t b) { uint32_t r; asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
ZG_DEV uint32_t addc_cc(uint32_t a, uint32_t b) { uint32_t r; asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
ZG_DEV uint32_t addc(uint32_t a, uint32_t b) { uint32_t r; asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
ZG_DEV uint32_t sub_cc(uint32_t a, uint32_t b) { uint32_t r; asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
ZG_DEV uint32_t subc_cc(uint32_t a, uint32_t b) { uint32_t r; asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
ZG_DEV uint32_t subc(uint32_t a, uint32_t b) { uint32_t r; asm volatile("subc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
ZG_DEV uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { uint32_t r; asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
ZG_DEV uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { uint32_t r; asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
ZG_DEV uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) { uint32_t r; asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
ZG_DEV uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { uint32_t r; asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
ZG_DEV uint32_t mad_lo(uint32_t a, uint32_t b, uint32_t c) { uint32_t r; asm volatile("mad.lo.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
ZG_DEV uint32_t madc_lo(uint32_t a, uint32_t b, uint32_t c) { uint32_t r; asm volatile("madc.lo.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
ZG_DEV uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) { uint32_t r; asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
/* 16-byte asynchronous copy global -> shared (sm_80+), bypassing L1; then commit the copies
 * issued since the last commit as one group, and wait until at most one group is pending */
ZG_DEV void cp_async16(void *smem, const void *gmem)
{
	uint32_t sa = (uint32_t)__cvta_generic_to_shared(smem);
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa), "l"(gmem) : "memory");
}
ZG_DEV void cp_async_commit()
{
	asm volatile("cp.async.commit_group;" ::: "memory");
}
ZG_DEV void cp_async_wait1()
{
	asm volatile("cp.async.wait_group 1;" ::: "memory");
}
} // namespace ptx

/* Field parameters: a struct with N, INV and accessors for the constant arrays. */
#define ZG_FIELD_PARAMS(NAME, PFX, NL, OUT)                                                           \
	struct NAME {                                                                                  \
		static constexpr int N = NL;                                                           \
		static constexpr bool OUTLINE = OUT;                                                   \
		static constexpr uint32_t INV = D_##PFX##_INV;                                         \
		static ZG_DEV uint32_t p(int i) { return D_##PFX##_P[i]; }                             \
		static ZG_DEV uint32_t one(int i) { return D_##PFX##_ONE[i]; }                         \
		static ZG_DEV uint32_t pm2(int i) { return D_##PFX##_PM2[i]; }                         \
		static ZG_DEV uint32_t np(int i) { return D_##PFX##_NPC(i); }                          \
		static ZG_DEV uint32_t pinv(int i) { return D_##PFX##_PINV[i]; }                       \
	};
/* OUTLINE: the product is an out-of-line function (mul_out) instead of inlined code. The
 * bucket loop's madd inlined eleven 12-limb products, ~5300 instructions (85 KB) per iteration:
 * ncu on the H200 showed the BLS12-381 G1 bucket loop stalled on instruction fetch (2.05 of 9.2
 * cycles per issued instruction, "no_instruction") with its FMA pipe 34% busy. Out of line
 * (2026-12-01, H200, bench gpu at 2^20, medians of 5, A/B in one call): BLS12-381 G1 bucket
 * loop 8.15 -> 7.24 ms, reduction 1.8 -> 1.1 ms, proof 72.2 -> 60.5 ms; BN254 base field too:
 * BN254 proof 31.0 -> 28.1 ms. The scalar fields stay inline: the NTT's kernel is small, and
 * out of line it went 4.46 -> 5.11 ms at 2^24. */
ZG_FIELD_PARAMS(bn254_fq_params, BN254_FQ, 8, true)
ZG_FIELD_PARAMS(bn254_fr_params, BN254_FR, 8, false)
ZG_FIELD_PARAMS(bls12_381_fq_params, BLS12_381_FQ, 12, true)
ZG_FIELD_PARAMS(bls12_381_fr_params, BLS12_381_FR, 8, false)

template <class P> struct fp {
	using params = P;
	static constexpr int N = P::N;
	static constexpr int BYTES = 4 * N;
	static constexpr bool PAIRS = true; /* has mul2 */
	uint32_t v[N];

	static ZG_DEV fp zero()
	{
		fp r;
#pragma unroll
		for (int i = 0; i < N; i++)
			r.v[i] = 0;
		return r;
	}
	static ZG_DEV fp one()
	{
		fp r;
#pragma unroll
		for (int i = 0; i < N; i++)
			r.v[i] = P::one(i);
		return r;
	}
	ZG_DEV bool is_zero() const
	{
		uint32_t a = 0;
#pragma unroll
		for (int i = 0; i < N; i++)
			a |= v[i];
		return a == 0;
	}
	ZG_DEV bool eq(const fp &b) const
	{
		uint32_t a = 0;
#pragma unroll
		for (int i = 0; i < N; i++)
			a |= v[i] ^ b.v[i];
		return a == 0;
	}
	/* 16-byte loads and stores (elements are 16-byte aligned in every buffer we use) */
	static ZG_DEV fp load(const void *p)
	{
		fp r;
		const uint4 *q = (const uint4 *)p;
#pragma unroll
		for (int i = 0; i < N / 4; i++) {
			uint4 t = q[i];
			r.v[4 * i] = t.x;
			r.v[4 * i + 1] = t.y;
			r.v[4 * i + 2] = t.z;
			r.v[4 * i + 3] = t.w;
		}
		return r;
	}
	ZG_DEV void store(void *p) const
	{
		uint4 *q = (uint4 *)p;
#pragma unroll
		for (int i = 0; i < N / 4; i++)
			q[i] = make_uint4(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]);
	}

	/* r = a - p if a >= p */
	static ZG_DEV fp reduce(const fp &a)
	{
		fp t;
		t.v[0] = ptx::sub_cc(a.v[0], P::p(0));
#pragma unroll
		for (int i = 1; i < N; i++)
			t.v[i] = ptx::subc_cc(a.v[i], P::p(i));
		uint32_t borrow = ptx::subc(0, 0);
		return borrow ? a : t;
	}
	friend ZG_DEV fp operator+(const fp &a, const fp &b) { return reduce(add_nr(a, b)); }
	friend ZG_DEV fp operator-(const fp &a, const fp &b)
	{
		fp s;
		s.v[0] = ptx::sub_cc(a.v[0], b.v[0]);
#pragma unroll
		for (int i = 1; i < N; i++)
			s.v[i] = ptx::subc_cc(a.v[i], b.v[i]);
		uint32_t borrow = ptx::subc(0, 0);
		if (borrow) {
			s.v[0] = ptx::add_cc(s.v[0], P::p(0));
#pragma unroll
			for (int i = 1; i < N; i++)
				s.v[i] = ptx::addc_cc(s.v[i], P::p(i));
		}
		return s;
	}
	/* a + b without the final reduction: < 2p, valid only as an operand of operator* (see
	 * there), which saves the conditional subtraction where a sum feeds a product */
	static ZG_DEV fp add_nr(const fp &a, const fp &b)
	{
		fp s;
		s.v[0] = ptx::add_cc(a.v[0], b.v[0]);
#pragma unroll
		for (int i = 1; i < N; i++)
			s.v[i] = ptx::addc_cc(a.v[i], b.v[i]);
		return s;
	}
	ZG_DEV fp neg() const { return zero() - *this; }
	ZG_DEV fp dbl() const { return *this + *this; }

	/* X[s + j - j0] += a_j x for j = j0, j0+2, .. < N (low word at s + j - j0, high word next),
	 * one carry chain ending in the word after the last high word (X[s + N] for j0 = 0, 1) */
	template <class A> static ZG_DEV void row(uint32_t *X, int s, int j0, A aj, uint32_t x)
	{
		int e = s + 2;
		X[s] = ptx::mad_lo_cc(aj(j0), x, X[s]);
		X[s + 1] = ptx::madc_hi_cc(aj(j0), x, X[s + 1]);
#pragma unroll
		for (int j = j0 + 2; j < N; j += 2, e += 2) {
			X[s + j - j0] = ptx::madc_lo_cc(aj(j), x, X[s + j - j0]);
			X[s + j - j0 + 1] = ptx::madc_hi_cc(aj(j), x, X[s + j - j0 + 1]);
		}
		X[e] = ptx::addc(X[e], 0);
	}
	/* row() mod 2^(32N): words at positions >= N are dropped, so a product whose low word
	 * lands at N-1 adds only that word and the chain ends there. For s >= j0 (row i of a
	 * product: s = i + j0) a chain that runs out of a_j ends at N-1 or N-2 + its high word,
	 * so no carry below position N is dropped. */
	template <class A> static ZG_DEV void row_lo(uint32_t *X, int s, int j0, A aj, uint32_t x)
	{
#pragma unroll
		for (int j = j0; j < N && s + j - j0 < N; j += 2) {
			int k = s + j - j0;
			bool first = j == j0, last = k + 1 == N;
			if (last)
				X[k] = first ? ptx::mad_lo(aj(j), x, X[k]) : ptx::madc_lo(aj(j), x, X[k]);
			else {
				X[k] = first ? ptx::mad_lo_cc(aj(j), x, X[k]) : ptx::madc_lo_cc(aj(j), x, X[k]);
				X[k + 1] = k + 2 == N || j + 2 >= N ? ptx::madc_hi(aj(j), x, X[k + 1])
								    : ptx::madc_hi_cc(aj(j), x, X[k + 1]);
			}
		}
	}

	/* Montgomery product a*b/R mod p, operand scanning (CIOS order) over 32-bit words with the
	 * partial products at absolute positions in two accumulators. Row i's products a_j b_i
	 * (low word at i+j) form two runs of adjacent (low, high) pairs, j even from position i
	 * and j odd from i+1; a run starting at an even position goes to E, at an odd one to O.
	 * Within a run each product's low and high words are adjacent in one carry chain, which
	 * ptxas fuses into one IMAD.WIDE.U32(.X) with carry in and out, and each array's register
	 * pairs keep one alignment (no moves). SASS of the sm_90 build (cuobjdump on the H200):
	 * the 8-limb product took 518 instructions as separate lo and hi chains (each 32-bit
	 * mad.lo/mad.hi with carry becomes IMAD + IADD3.X), about 220 now; 12 limbs ~1230 -> ~420.
	 * Row i adds a b_i, then m_i p with m_i chosen from position i of E + O plus the carry cin
	 * out of position i-1; afterwards position i of the sum is 0 mod 2^32 and its overflow
	 * (0..2) becomes cin, and no later run starts at or below i. A run from s ends with a
	 * carry into s + N; in the array of that parity, position s + N receives only such carries
	 * (from the runs starting at s, at most 4) before any later run covers it, so no carry is
	 * lost. The result, E + O (+ cin) from position N up, is < a b / R + p, so < 2p < R for
	 * a, b < 2p (4p < R for both moduli): one conditional subtraction, also when an operand is
	 * an unreduced sum (add_nr). Inlined, or one call of mul_out for the OUTLINE fields. */
	friend ZG_DEV fp operator*(const fp &a, const fp &b)
	{
		if constexpr (P::OUTLINE)
			return mul_out(a, b);
		else
			return reduce(mul_nr(a, b));
	}

	static __device__ __noinline__ fp mul_out(fp a, fp b) { return reduce(mul_nr(a, b)); }

	/* Two independent products a b and c d, for the point formulas where two products of a step
	 * need only earlier results. One call holds both product bodies, so ptxas can interleave
	 * their carry chains (the carry flag becomes predicates in SASS): the bucket loop is bound
	 * by the latency of dependent multiply-adds, not by the multiply pipe (ncu: FMA pipe ~44%
	 * busy, 3.9 of 7.8 cycles between a warp's instructions waiting on fixed-latency
	 * dependencies). Same results as two operator* calls. */
	struct pair {
		fp x, y;
	};
	static ZG_DEV pair mul2(const fp &a, const fp &b, const fp &c, const fp &d)
	{
		if constexpr (P::OUTLINE)
			return mul2_out(a, b, c, d);
		else
			return {reduce(mul_nr(a, b)), reduce(mul_nr(c, d))};
	}
	static __device__ __noinline__ pair mul2_out(fp a, fp b, fp c, fp d)
	{
		return {reduce(mul_nr(a, b)), reduce(mul_nr(c, d))};
	}
	/* operator*'s product before its final conditional subtraction: < a b / R + p */
	static ZG_DEV fp mul_nr(const fp &a, const fp &b) { return mul_acc_nr<false>(a, b, a, b); }

	/* (a b + c d) / R mod p, fully reduced: one Montgomery reduction for two products (the
	 * point formulas' Y3 = R (Q - X3) - Y1 PPP, with c = -Y1), three quarters of the word
	 * products of two operator* calls. a, c < 2p (add_nr sums allowed), b, d < p: the sum
	 * before the final subtraction is < (4p^2 + R p) / R < 2p, as 4p < R for both moduli. */
	static ZG_DEV fp mul_sum(const fp &a, const fp &b, const fp &c, const fp &d)
	{
		if constexpr (P::OUTLINE)
			return mul_sum_out(a, b, c, d);
		else
			return reduce(mul_acc_nr<true>(a, b, c, d));
	}
	static __device__ __noinline__ fp mul_sum_out(fp a, fp b, fp c, fp d)
	{
		return reduce(mul_acc_nr<true>(a, b, c, d));
	}

	/* a b (+ c d when TWO) + m p, divided by R, before the final conditional subtraction.
	 * With TWO, row i adds c d_i's two runs after a b_i's: position s + N of an array then
	 * receives up to six end-of-run carries before a later run covers it, still a small word,
	 * so the argument of operator* holds unchanged. */
	template <bool TWO> static ZG_DEV fp mul_acc_nr(const fp &a, const fp &b, const fp &c, const fp &d)
	{
		auto av = [&](int j) { return a.v[j]; };
		auto cv = [&](int j) { return c.v[j]; };
		return redc_rows([&](uint32_t *ev, uint32_t *od, int i) {
			row(ev, i, 0, av, b.v[i]);
			row(od, i + 1, 1, av, b.v[i]);
			if constexpr (TWO) {
				row(ev, i, 0, cv, d.v[i]);
				row(od, i + 1, 1, cv, d.v[i]);
			}
		});
	}

	/* a^2 / R before the final conditional subtraction, < 2p under operator*'s conditions (a <
	 * 2p where 4p < R, else a < p; either way a < 2^(32N-1)). Each a_i a_j with i < j is taken
	 * once against twice in a product, doubled through the multiplicand: with c_j the top bit
	 * of a_j, d = 2a (N words, as a < 2^(32N-1)), d_j = 2 a_j mod B + c_(j-1) (B = 2^32), row
	 * i multiplies a_i by g_i = a_i, g_(i+1) = 2 a_(i+1) mod B and g_j = d_j for j > i+1, and
	 * sum_(j >= i) g_j B^j = a_i B^i + 2 sum_(j > i) a_j B^j (the c_(i+1) B^(i+2) that the d_j
	 * carry telescopes against the one that g_(i+1) drops; c_(N-1) = 0). So row i's runs hold
	 * j = i, i+2, .. from position 2i (E) and j = i+1, i+3, .. from 2i+1 (O): N(N+1)/2 word
	 * products (BLS12-381: 78 against 144, the reduction's 144 unchanged) in mul_acc_nr's CIOS
	 * order. A run of row i ends with a carry into i+N or i+N+1, which no run of an earlier
	 * step covered (step k's runs, product or reduction, end at or below k+N), so such a word
	 * holds at most four earlier end carries: none is lost. Checked in exact integer arithmetic
	 * (Python, both moduli, 2 x 20000 random a < 2p and the edges 0, 1, p-1, p, 2p-1).
	 * A first version (2026-12-01) summed the off-diagonal rows first, doubled the sum by a
	 * shift and added the diagonal before the reduction: ptxas overlapped all of it with the
	 * reduction rows, ran out of predicates for the carries (300 LOP3 and 40 P2R per square)
	 * and the BLS12-381 G1 bucket loop went 6.89 -> 9.8 ms. This one: 383 instructions and
	 * 221 IMAD.WIDE (sm_90 SASS; operator*: 437 and 287). Squares go through sqr(): the
	 * BLS12-381 G1 bucket loop's R^2, BN254 G1's PP and R^2, every square of the full addition
	 * and the doubling. The squares that fp::mul2 pairs with another product in the mixed
	 * addition stay products: as out-of-line pairs of squares, or of a square and a product,
	 * the loop's code grew from ~49 to 60-72 KB and stalled on instruction fetch (ncu
	 * no_instruction 0.46 -> 1.35-1.68 of ~8 cycles per instruction), loop 6.89 -> 7.17-7.27
	 * ms. H200 at 2^20, A/B in one call: BLS12-381 G1 loop 6.88 -> 6.69 ms, reduction 0.59 +
	 * 0.29 -> 0.56 + 0.27 ms, msm1 8.46 -> 8.22 ms; BN254 msm1 4.04 -> 3.88 ms. */
	static ZG_DEV fp sqr_nr(const fp &a)
	{
		uint32_t d[N], h[N];
#pragma unroll
		for (int j = 0; j < N; j++) {
			d[j] = j ? __funnelshift_l(a.v[j - 1], a.v[j], 1) : a.v[0] << 1;
			h[j] = a.v[j] << 1;
		}
		return redc_rows([&](uint32_t *ev, uint32_t *od, int i) {
			/* row i's runs start at 2i (E) and 2i+1 (O); ev is E for even i only */
			uint32_t *E = (i & 1) ? od : ev, *O = (i & 1) ? ev : od;
			auto g = [&](int j) { return j == i ? a.v[i] : j == i + 1 ? h[j] : d[j]; };
			row(E, 2 * i, i, g, a.v[i]);
			if (i + 1 < N)
				row(O, 2 * i + 1, i + 1, g, a.v[i]);
		});
	}

	/* The Montgomery reduction of mul_acc_nr, step i after prow(ev, od, i) added the product
	 * runs of step i (ev takes runs starting at an even position, od at an odd one when i is
	 * even; swapped when i is odd): m_i from position i of E + O plus the carry in, then
	 * m_i p's two runs; the result is E + O + cin from position N up. */
	template <class R> static ZG_DEV fp redc_rows(R prow)
	{
		uint32_t E[2 * N + 2] = {0}, O[2 * N + 2] = {0};
		auto pv = [](int j) { return P::p(j); };
		uint32_t cin = 0;
#pragma unroll
		for (int i = 0; i < N; i++) {
			uint32_t *ev = (i & 1) ? O : E, *od = (i & 1) ? E : O;
			prow(ev, od, i);
			uint32_t m = (E[i] + O[i] + cin) * P::INV;
			row(ev, i, 0, pv, m);
			row(od, i + 1, 1, pv, m);
			uint64_t s = (uint64_t)E[i] + O[i] + cin; /* = 0 mod 2^32 */
			cin = (uint32_t)(s >> 32);
		}
		fp r;
		r.v[0] = ptx::add_cc(E[N], O[N]);
#pragma unroll
		for (int k = 1; k < N; k++)
			r.v[k] = ptx::addc_cc(E[N + k], O[N + k]);
		r.v[0] = ptx::add_cc(r.v[0], cin);
#pragma unroll
		for (int k = 1; k < N; k++)
			r.v[k] = ptx::addc_cc(r.v[k], 0);
		return r;
	}

	/* row_lo for a_j = P::np(j) (-p mod 2^(32N)), a constant after unrolling: a limb 0 adds
	 * nothing (its words only pass a pending carry on) and a limb 2^32 - 1 adds x 2^32 - x as
	 * two plain words (low -x, high x - 1, or 0 when x = 0): neither multiplies. BLS12-381's
	 * r has both (limbs 0 and 1 of -r), BN254's r neither. */
	static ZG_DEV void row_lo_np(uint32_t *X, int s, int j0, uint32_t x)
	{
		const uint32_t mlo = 0u - x, mhi = x ? x - 1 : 0; /* before the chain: no flag use */
		bool cy = false;                                  /* a carry is pending in the flag */
#pragma unroll
		for (int j = j0; j < N && s + j - j0 < N; j += 2) {
			const int k = s + j - j0;
			const bool last = k + 1 == N, end = last || k + 2 == N || j + 2 >= N;
			const uint32_t c = P::np(j);
			if (c == 0 && !cy)
				continue;
			if (last) {
				if (c == 0)
					X[k] = ptx::addc(X[k], 0);
				else if (c == 0xffffffffu)
					X[k] = cy ? ptx::addc(X[k], mlo) : X[k] + mlo;
				else
					X[k] = cy ? ptx::madc_lo(c, x, X[k]) : ptx::mad_lo(c, x, X[k]);
				cy = false;
				continue;
			}
			if (c == 0) {
				X[k] = ptx::addc_cc(X[k], 0);
				X[k + 1] = end ? ptx::addc(X[k + 1], 0) : ptx::addc_cc(X[k + 1], 0);
			} else if (c == 0xffffffffu) {
				X[k] = cy ? ptx::addc_cc(X[k], mlo) : ptx::add_cc(X[k], mlo);
				X[k + 1] = end ? ptx::addc(X[k + 1], mhi) : ptx::addc_cc(X[k + 1], mhi);
			} else {
				X[k] = cy ? ptx::madc_lo_cc(c, x, X[k]) : ptx::mad_lo_cc(c, x, X[k]);
				X[k + 1] = end ? ptx::madc_hi(c, x, X[k + 1]) : ptx::madc_hi_cc(c, x, X[k + 1]);
			}
			cy = !end;
		}
	}

	/* Shoup's product with a fixed multiplier (Harvey's NTT butterfly; here the NTT twiddles):
	 * a w mod p for a < 2p, w < p in standard form and wq = floor(w 2^(32N) / p), fully
	 * reduced. For a in Montgomery form (a = A R) the result is A w R: the Montgomery form of
	 * A w, the same bytes as a * (w R) with operator*. With B = 2^(32N) and beta = 2^32:
	 * q = mul_hi_trunc(a, wq) is floor(T / B) for T = a wq less its partial products below
	 * position N-2, which are < (N-2) beta^(N-1); and a wq >= a w B / p - a. So
	 * a w / p - 1 < T / B <= a w / p (a < 2p < 0.92 B for both scalar fields, and
	 * (N-2) / beta < 2^-29), hence q is floor(a w / p) or one less, and r = a w - q p is in
	 * [0, 2p): computed mod B (2p < B) as the low halves of a w and q (B - p) (row_lo,
	 * row_lo_np), then one conditional subtraction. Word products (32x32 -> 64, one IMAD.WIDE
	 * each): 43 + 28 + 28 (BLS12-381: 43 + 28 + 15) and 16 (14) low halves, where operator*
	 * takes 128 and 8. Folding -r's limbs 0 and 2^32 - 1 (row_lo_np; H200, NTT 2^24, two calls):
	 * BLS12-381 4.21-4.22 -> 4.14-4.17 ms at two blocks per SM, BN254 (nothing to fold, its
	 * limbs now immediates) 4.12 either way. Not kept: taking only the high words of the
	 * products at position N-2 (7 fewer low words; the bound holds with (2N-3) / beta): BN254
	 * 4.12 -> 4.24 ms (mad.hi with a carry out is no cheaper than the fused pair, and the
	 * lone high words broke the arrays' pair alignment). */
	static ZG_DEV fp mul_shoup(const fp &a, const fp &w, const fp &wq)
	{
		const fp q = mul_hi_trunc(a, wq);
		uint32_t E[N] = {0}, O[N] = {0};
		lo_rows(E, O, a, w);
		lo_rows_by(E, O, [&](uint32_t *X, int s, int j0, int i) { row_lo_np(X, s, j0, q.v[i]); });
		return reduce(lo_sum(E, O));
	}
	/* The rows of a product mod 2^(32N) into E + O: rowi(X, s, j0, i) adds row i's run of
	 * j = j0, j0 + 2, .. from position s; runs at even positions go to E, odd to O */
	template <class R> static ZG_DEV void lo_rows_by(uint32_t *E, uint32_t *O, R rowi)
	{
#pragma unroll
		for (int i = 0; i < N; i++) {
			rowi((i & 1) ? O : E, i, 0, i);
			if (i + 1 < N)
				rowi((i & 1) ? E : O, i + 1, 1, i);
		}
	}
	/* E + O += a b mod 2^(32N) */
	static ZG_DEV void lo_rows(uint32_t *E, uint32_t *O, const fp &a, const fp &b)
	{
		auto av = [&](int j) { return a.v[j]; };
		lo_rows_by(E, O, [&](uint32_t *X, int s, int j0, int i) { row_lo(X, s, j0, av, b.v[i]); });
	}
	/* (E + O) mod 2^(32N) */
	static ZG_DEV fp lo_sum(const uint32_t *E, const uint32_t *O)
	{
		fp r;
		r.v[0] = ptx::add_cc(E[0], O[0]);
#pragma unroll
		for (int k = 1; k < N; k++)
			r.v[k] = ptx::addc_cc(E[k], O[k]);
		return r;
	}
	/* floor(T / 2^(32N)) for T = the sum of the partial products a_j b_i with i + j >= N-2
	 * (so <= floor(a b / 2^(32N))). Row i's runs start at position max(i, N-2) (even and odd
	 * j as in mul_nr, a run at an even position in E, odd in O). Within each array the runs
	 * of rows taken in ascending i end at non-decreasing positions and each ends with a carry
	 * into the word after its last high word, which no earlier run covered: that word holds
	 * only earlier carries (at most 2), so no carry is lost. The sum is < 2^(64N), so the
	 * carries out of E[2N-1] and O[2N-1] are 0. */
	static ZG_DEV fp mul_hi_trunc(const fp &a, const fp &b)
	{
		uint32_t E[2 * N + 1] = {0}, O[2 * N + 1] = {0};
		auto av = [&](int j) { return a.v[j]; };
#pragma unroll
		for (int i = 0; i < N; i++) {
			int js = i >= N - 2 ? 0 : N - 2 - i;
			int s0 = i + js, s1 = s0 + 1;
			row((s0 & 1) ? O : E, s0, js, av, b.v[i]);
			row((s1 & 1) ? O : E, s1, js + 1, av, b.v[i]);
		}
		ptx::add_cc(E[N - 2], O[N - 2]); /* only the carries of the two words below N */
		ptx::addc_cc(E[N - 1], O[N - 1]);
		fp q;
#pragma unroll
		for (int k = 0; k < N; k++)
			q.v[k] = ptx::addc_cc(E[N + k], O[N + k]);
		return q;
	}
	/* x (Montgomery form) as Shoup's multiplier pair for mul_shoup: w = x R^-1 (standard form)
	 * and wq = floor(w B / p) = (B - x) p^-1 mod B (x = w B mod p, so w B - x = wq p; wq < B as
	 * w < p). x != 0. */
	ZG_DEV void shoup_pair(fp &w, fp &wq) const
	{
		w = from_mont();
		fp nx = zero() - *this; /* p - x; B - x = (p - x) + (B - p) */
		fp t, pinv;
		t.v[0] = ptx::add_cc(nx.v[0], P::np(0));
#pragma unroll
		for (int i = 1; i < N; i++)
			t.v[i] = ptx::addc_cc(nx.v[i], P::np(i));
#pragma unroll
		for (int i = 0; i < N; i++)
			pinv.v[i] = P::pinv(i);
		uint32_t E[N] = {0}, O[N] = {0};
		lo_rows(E, O, t, pinv);
		wq = lo_sum(E, O);
	}

	/* a^2, fully reduced, under operator*'s conditions (sqr_nr) */
	ZG_DEV fp sqr() const
	{
		if constexpr (P::OUTLINE)
			return sqr_out(*this);
		else
			return reduce(sqr_nr(*this));
	}
	static __device__ __noinline__ fp sqr_out(fp a)
	{
		return reduce(sqr_nr(a));
	}

	/* a * R^-1: out of Montgomery form */
	ZG_DEV fp from_mont() const
	{
		fp o = zero();
		o.v[0] = 1;
		return *this * o;
	}
	/* a^(p-2) */
	ZG_DEV fp inv() const
	{
		fp acc = one();
		for (int i = N - 1; i >= 0; i--) {
			uint32_t e = P::pm2(i);
			for (int b = 31; b >= 0; b--) {
				acc = acc.sqr();
				if ((e >> b) & 1)
					acc = acc * *this;
			}
		}
		return acc;
	}
};

/* Fq2 = Fq[u]/(u^2+1) for both curves. */
template <class F> struct fp2 {
	static constexpr int BYTES = 2 * F::BYTES;
	static constexpr bool PAIRS = false; /* no mul2: see jac_t::add_aff_inl */
	F c0, c1;
	static ZG_DEV fp2 zero() { return {F::zero(), F::zero()}; }
	static ZG_DEV fp2 one() { return {F::one(), F::zero()}; }
	ZG_DEV bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
	ZG_DEV bool eq(const fp2 &b) const { return c0.eq(b.c0) && c1.eq(b.c1); }
	static ZG_DEV fp2 load(const void *p)
	{
		return {F::load(p), F::load((const char *)p + F::BYTES)};
	}
	ZG_DEV void store(void *p) const
	{
		c0.store(p);
		c1.store((char *)p + F::BYTES);
	}
	friend ZG_DEV fp2 operator+(const fp2 &a, const fp2 &b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
	friend ZG_DEV fp2 operator-(const fp2 &a, const fp2 &b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
	/* reduced: the Karatsuba sums in operator* need components < p */
	static ZG_DEV fp2 add_nr(const fp2 &a, const fp2 &b) { return a + b; }
	ZG_DEV fp2 neg() const { return {c0.neg(), c1.neg()}; }
	ZG_DEV fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
	friend ZG_DEV fp2 operator*(const fp2 &a, const fp2 &b)
	{
		F v0 = a.c0 * b.c0, v1 = a.c1 * b.c1;
		F s = F::add_nr(a.c0, a.c1) * F::add_nr(b.c0, b.c1);
		return {v0 - v1, s - v0 - v1};
	}
	ZG_DEV fp2 sqr() const
	{
		F m = c0 * c1;
		return {F::add_nr(c0, c1) * (c0 - c1), m.dbl()};
	}
	ZG_DEV fp2 inv() const
	{
		F n = c0.sqr() + c1.sqr();
		n = n.inv();
		return {c0 * n, (c1 * n).neg()};
	}
};
