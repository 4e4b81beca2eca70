/* engine.cuh - the prover's kernels and their host drivers, generic over the curve.
 * Included once per curve (bn254.cu, bls12_381.cu) with ZKG_TRAITS and ZKG_OPS_NAME defined. */
#pragma once
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/ec.cuh"
#include "cuda/host.h"
#include "cuda/internal.cuh"

namespace zkg {

struct seeds {
	uint64_t v[32][4];
};

static inline double now_s()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

template <class Fr> ZG_DEV Fr seed(const seeds &s, int b)
{
	Fr r;
#pragma unroll
	for (int i = 0; i < Fr::N; i++)
		r.v[i] = (uint32_t)(s.v[b][i / 2] >> (32 * (i & 1)));
	return r;
}

/* ---------------- NTT ---------------- */

/* An NTT twiddle as Shoup's multiplier pair (field.cuh mul_shoup): w in standard form and
 * q = floor(w 2^256 / p), 64 bytes. A Shoup product takes 99 word products and 16 low halves
 * (86 and 14 for BLS12-381's r) where a Montgomery product takes 128 and 8 (most of the pass
 * kernel's issue slots go to products), for twice the table bytes (n/2 pairs per direction). */
template <class Fr> struct twiddle {
	Fr w, q;
	static ZG_DEV twiddle load(const twiddle *p) { return {Fr::load(&p->w), Fr::load(&p->q)}; }
	/* x w for x < 2p in Montgomery form: the Montgomery form of x's value times w's */
	ZG_DEV Fr mul(const Fr &x) const { return Fr::mul_shoup(x, w, q); }
};

/* out[i] = prod over set bits b of i of s[b] (powers of a root from its repeated squares), as
 * Shoup pairs */
template <class Fr> __global__ void k_powers(twiddle<Fr> *out, uint32_t count, seeds s)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= count)
		return;
	Fr acc = Fr::one();
	for (int b = 0; b < 32; b++)
		if ((i >> b) & 1)
			acc = acc * seed<Fr>(s, b);
	Fr w, q;
	acc.shoup_pair(w, q);
	w.store(&out[i].w);
	q.store(&out[i].q);
}

/* out[i] = inc^bitrev(i) / n: the coset factor of the coefficient that sits at position i
 * after the (bit-reversing) inverse NTT */
template <class Fr> __global__ void k_coset(Fr *out, uint32_t logn, seeds s, seeds ninv)
{
	uint32_t n = 1u << logn;
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	uint32_t j = __brev(i) >> (32 - logn);
	Fr acc = seed<Fr>(ninv, 0);
	for (int b = 0; b < 32; b++)
		if ((j >> b) & 1)
			acc = acc * seed<Fr>(s, b);
	acc.store(&out[i]);
}

/* Radix-2 stages of half-size m = 2^lm. DIF (natural in, bit-reversed out):
 * (u, v) -> (u + v, (u - v) w^j); DIT (bit-reversed in, natural out): (u, v w^j) -> (u + v', u - v').
 * Several stages per pass in shared memory: stages lo .. lo+k-1 (DIT ascending, DIF descending).
 * A group is the 2^k elements base + t 2^lo (t < 2^k) that those stages mix; a block holds
 * tile/2^k groups with consecutive g, so that loads with the group index fastest are coalesced
 * (when lo = 0 the groups are contiguous and t is fastest instead).
 * Two stages per step in registers: a radix-4 unit x0..x3 = t, t + 2^a, t + 2^(a+1), t + 3 2^a
 * (t with bits a and a+1 clear) goes through stage a ((x0, x1), (x2, x3), one twiddle) and stage
 * a+1 ((x0, x2), (x1, x3)), in the other order for DIF; an odd last stage is a radix-2 step.
 * Blocks of tile/4 threads (at least 1), one unit (or two butterflies) per thread per step.
 * Measured on the H200 at 2^24 (BN254 / BLS12-381): one radix-2 stage per step, two 512-thread
 * blocks per SM, 5.13 / 5.33 ms; radix-4 steps at 2, 3 and 4 blocks of 256 per SM (128, 85,
 * 64 registers) 4.88 / 5.02, 4.46 / 4.70 and 4.57 / 4.80 ms with Montgomery twiddle products.
 * With Shoup's (two 8-limb twiddles more live per unit; 2026-12-01, bench gpu, medians of 5, one
 * call): three blocks (80 registers, 28-112 bytes spilled) 4.14-4.16 / 4.48-4.50 ms, two blocks
 * (no spills) 4.13 / 4.21 ms, against 4.25 / 4.57 for the Montgomery kernel at three. ncu (clocks
 * locked, BN254, three blocks): instructions -14%, FMA-heavy pipe 78-81% -> 66-70% busy, long
 * scoreboard stalls 2.2 -> 4.3 cycles per issue (twiddle loads and spills). With -r's limbs 0
 * and 2^32 - 1 folded (field.cuh row_lo_np; two calls, medians of 5): two blocks 4.12 / 4.14-
 * 4.17 ms, three (24-56 bytes spilled) 4.13-4.15 / 4.09-4.10. Then smaller blocks (one call,
 * two runs each): tiles of 512 elements (128 threads; at 8 stages a pass two groups per
 * block, 64-byte runs per row in the strided passes) at six blocks per SM (80 registers) 3.92-
 * 3.93 / 3.85 ms, at five (102 registers) 3.83-3.84 / 3.82-3.83 ms; tiles of 256 at twelve
 * 4.07 / 3.96-3.97; tiles of 1024 at three 4.15 / 4.09-4.11. About as many warps per SM (20
 * at five blocks, 24 at six, against 24), but a barrier waits for 4 warps instead of 8. */
#ifndef ZKG_NTT_BLOCKS_PER_SM
#define ZKG_NTT_BLOCKS_PER_SM 5 /* -DZKG_NTT_BLOCKS_PER_SM=N builds another for A/B runs */
#endif
#ifndef ZKG_NTT_TILE
#define ZKG_NTT_TILE 512 /* elements per block (tile/4 threads); a power of two >= 256 */
#endif
template <class Fr, bool DIT>
__global__ void __launch_bounds__(ZKG_NTT_TILE / 4, ZKG_NTT_BLOCKS_PER_SM) k_stages(Fr *x, uint32_t logn, uint32_t lo, uint32_t k, uint32_t tile,
						   const twiddle<Fr> *tw)
{
	extern __shared__ uint4 smem_raw[];
	const uint32_t T = 1u << k, G = tile >> k, lomask = (1u << lo) - 1;
	/* element t of group gl: elements 48 bytes apart and rows 32 bytes off the bank pattern, so
	 * that eight consecutive 16-byte accesses (a quarter warp) hit distinct banks both along a
	 * row and across the four rows of the strided passes (A/B with the radix-2 kernel at 2^24:
	 * BLS12-381 5.54 -> 5.33 ms, BN254 5.98 -> 5.13 ms) */
	auto at = [&](uint32_t gl, uint32_t t) { return (void *)&smem_raw[gl * (3 * T + 2) + 3 * t]; };
	auto addr_of = [&](uint32_t e, uint32_t &gl, uint32_t &t) {
		if (lo == 0) {
			gl = e >> k;
			t = e & (T - 1);
		} else {
			gl = e % G;
			t = e / G;
		}
		uint32_t g = blockIdx.x * G + gl;
		return ((size_t)(g >> lo) << (lo + k)) + (g & lomask) + ((size_t)t << lo);
	};
	for (uint32_t e = threadIdx.x; e < tile; e += blockDim.x) {
		uint32_t gl, t;
		size_t addr = addr_of(e, gl, t);
		Fr::load(&x[addr]).store(at(gl, t));
	}
	__syncthreads(); /* orders the tile's loads before the first step */
	/* twiddle of local stage lml for in-group offset jl (< 2^lml) of a group with global index g */
	auto twid = [&](uint32_t g, uint32_t lml, uint32_t jl) {
		uint32_t lm = lo + lml, j = (g & lomask) + (jl << lo);
		return twiddle<Fr>::load(&tw[(size_t)j << (logn - 1 - lm)]);
	};
	auto bfly = [&](Fr &u, Fr &v, const twiddle<Fr> &w) {
		if (DIT) {
			Fr vw = w.mul(v);
			v = u - vw;
			u = u + vw;
		} else {
			Fr d = u - v;
			u = u + v;
			v = w.mul(d);
		}
	};
	/* a butterfly whose twiddle is 1 */
	auto bfly1 = [&](Fr &u, Fr &v) {
		Fr d = u - v;
		u = u + v;
		v = d;
	};
	/* stage order: DIT a = 0, 2, 4, .. (pairs a, a+1), DIF pairs (a+1, a) from the top */
	uint32_t done = 0;
	while (done < k) {
		bool pair = done + 1 < k;
		uint32_t a = DIT ? done : k - done - (pair ? 2 : 1); /* the lower stage of the step */
		/* Global stages 0 and 1 (the first step of a DIT transform, the last of a DIF one):
		 * every twiddle is 1 except w_4 = w^(n/4) for x3 in stage 1, so the step needs one
		 * product per unit instead of four: 3n/4 of a transform's (n/2) log n products
		 * (6% at 2^24). The test is uniform over the block, so no warp diverges on it (the
		 * per-butterfly test for twiddle 1 tried before measured no gain). */
		if (lo == 0 && a == 0) {
			const twiddle<Fr> w4 = twiddle<Fr>::load(pair ? &tw[(size_t)1 << (logn - 2)] : tw);
			for (uint32_t ub = threadIdx.x; pair && ub < tile / 4; ub += blockDim.x) {
				uint32_t gl = ub >> (k - 2), t = (ub & ((T >> 2) - 1)) << 2;
				Fr x0 = Fr::load(at(gl, t)), x1 = Fr::load(at(gl, t + 1));
				Fr x2 = Fr::load(at(gl, t + 2)), x3 = Fr::load(at(gl, t + 3));
				if (DIT) {
					bfly1(x0, x1);
					bfly1(x2, x3);
					bfly1(x0, x2);
					bfly(x1, x3, w4);
				} else {
					bfly1(x0, x2);
					bfly(x1, x3, w4);
					bfly1(x0, x1);
					bfly1(x2, x3);
				}
				x0.store(at(gl, t));
				x1.store(at(gl, t + 1));
				x2.store(at(gl, t + 2));
				x3.store(at(gl, t + 3));
			}
			for (uint32_t bf = threadIdx.x; !pair && bf < tile / 2; bf += blockDim.x) {
				uint32_t gl = bf >> (k - 1), t0 = (bf & ((T >> 1) - 1)) << 1;
				Fr u = Fr::load(at(gl, t0)), v = Fr::load(at(gl, t0 + 1));
				bfly1(u, v);
				u.store(at(gl, t0));
				v.store(at(gl, t0 + 1));
			}
		} else if (pair) {
			for (uint32_t ub = threadIdx.x; ub < tile / 4; ub += blockDim.x) {
				uint32_t gl = ub >> (k - 2), u = ub & ((T >> 2) - 1), g = blockIdx.x * G + gl;
				uint32_t r = u & ((1u << a) - 1), t = ((u >> a) << (a + 2)) | r, m = 1u << a;
				Fr x0 = Fr::load(at(gl, t)), x1 = Fr::load(at(gl, t + m));
				Fr x2 = Fr::load(at(gl, t + 2 * m)), x3 = Fr::load(at(gl, t + 3 * m));
				const twiddle<Fr> wa = twid(g, a, r), wb0 = twid(g, a + 1, r), wb1 = twid(g, a + 1, r + m);
				if (DIT) { /* stage a: (x0, x1), (x2, x3); stage a+1: (x0, x2), (x1, x3) */
					bfly(x0, x1, wa);
					bfly(x2, x3, wa);
					bfly(x0, x2, wb0);
					bfly(x1, x3, wb1);
				} else { /* stage a+1 first, then stage a */
					bfly(x0, x2, wb0);
					bfly(x1, x3, wb1);
					bfly(x0, x1, wa);
					bfly(x2, x3, wa);
				}
				x0.store(at(gl, t));
				x1.store(at(gl, t + m));
				x2.store(at(gl, t + 2 * m));
				x3.store(at(gl, t + 3 * m));
			}
		} else {
			for (uint32_t bf = threadIdx.x; bf < tile / 2; bf += blockDim.x) {
				uint32_t gl = bf >> (k - 1), tb = bf & ((T >> 1) - 1), g = blockIdx.x * G + gl;
				uint32_t jl = tb & ((1u << a) - 1), t0 = ((tb >> a) << (a + 1)) + jl, t1 = t0 + (1u << a);
				Fr u = Fr::load(at(gl, t0)), v = Fr::load(at(gl, t1));
				bfly(u, v, twid(g, a, jl));
				u.store(at(gl, t0));
				v.store(at(gl, t1));
			}
		}
		done += pair ? 2 : 1;
		__syncthreads(); /* orders this step's stores before the next step's loads */
	}
	for (uint32_t e = threadIdx.x; e < tile; e += blockDim.x) {
		uint32_t gl, t;
		size_t addr = addr_of(e, gl, t);
		Fr::load(at(gl, t)).store(&x[addr]);
	}
}

template <class Fr> __global__ void k_mul_table(Fr *x, const Fr *t, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		(Fr::load(&x[i]) * Fr::load(&t[i])).store(&x[i]);
}

template <class Fr> __global__ void k_mul_const(Fr *x, uint32_t n, seeds k)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		(Fr::load(&x[i]) * seed<Fr>(k, 0)).store(&x[i]);
}

template <class Fr> __global__ void k_bitrev(Fr *x, uint32_t logn)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= (1u << logn))
		return;
	uint32_t j = __brev(i) >> (32 - logn);
	if (i < j) {
		Fr a = Fr::load(&x[i]), b = Fr::load(&x[j]);
		a.store(&x[j]);
		b.store(&x[i]);
	}
}

/* h = (a b - c) out of Montgomery form */
template <class Fr> __global__ void k_hfinal(const Fr *a, const Fr *b, const Fr *c, Fr *h, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		(Fr::load(&a[i]) * Fr::load(&b[i]) - Fr::load(&c[i])).from_mont().store(&h[i]);
}

/* ---------------- MSM ---------------- */

/* Resident threads per SM that the point kernels are compiled for (the register budget is
 * 65536 / PER_SM per thread), and the block size of the bucket loop. Measured on the H200
 * (2026-11-30, a microbenchmark of the bucket loop: 2^24 mixed additions of random points from
 * a 14 x 2^20-point table, with the fused-IMAD multiplication): BLS12-381 G1 1.98 G additions/s
 * at 144 registers (384 threads/SM, blocks of 128), 1.93 at 144 (256/SM), 1.81 at 128 (512/SM),
 * 1.81 at 96; BN254 G1 4.67 G/s at 114 registers (512/SM), 4.40 at 80 (768/SM), 4.47 at 64;
 * G2: BLS12-381 0.64 G/s at 255 registers (256/SM), 0.38 at 168 (spills); BN254 1.38 at 196
 * (256/SM), 1.33 at 168, 1.31 at 128. Full Jacobian additions (the bucket reduction) on
 * BLS12-381 G1: 0.94-0.96 G/s at 204 or 128 registers. Re-measured with the base-field
 * products out of line (field.cuh, OUTLINE; 2026-12-01, bench gpu at 2^20, A/B in one call):
 * BN254 G2 at 384 threads/SM (168 registers, no spills) 28.1 -> 27.5 ms a proof; BLS12-381 G2
 * at 384 spills (61.8 against 60.5 ms); BLS12-381 G1 at 512 or 256 threads/SM and BN254 G1 at
 * 768: no better than the values here. */
template <class F> struct lb {
	static constexpr int T = 128, PER_SM = 256;
};
template <> struct lb<fp<bls12_381_fq_params>> {
	static constexpr int T = 128, PER_SM = 384;
};
template <> struct lb<fp2<fp<bn254_fq_params>>> {
	static constexpr int T = 128, PER_SM = 384;
};
template <> struct lb<fp<bn254_fq_params>> {
	static constexpr int T = 256, PER_SM = 512;
};
#define ZKG_LB(F, T) __launch_bounds__(T, lb<F>::PER_SM / (T))

struct scal {
	uint32_t v[8];
};

ZG_DEV scal load_scalar(const void *p)
{
	const uint4 *q = (const uint4 *)p;
	uint4 a = q[0], b = q[1];
	return {{a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w}};
}

ZG_DEV int scalar_kind(const scal &k) /* 0: zero, 1: one, 2: other */
{
	uint32_t hi = k.v[1] | k.v[2] | k.v[3] | k.v[4] | k.v[5] | k.v[6] | k.v[7];
	if (hi)
		return 2;
	return k.v[0] <= 1 ? (int)k.v[0] : 2;
}

/* ---- bucket sort of the signed digits ----
 * Signed digits (windows as in digit_plan below): digit d of window w puts an entry into
 * bucket b = w*M + |d| - 1 (windowed) or |d| - 1 (shared: the points' tables hold
 * 2^(start of window w) P_i at w*n + i, and every window uses the same M buckets). An entry is the point's index (i, or w*n + i when shared)
 * with bit 31 set when d < 0. Scalars 0 and 1 produce no entries.
 *
 * The entries are sorted by bucket in two levels, so that atomics on single buckets stay in
 * shared memory: first by the bucket's "super-bucket" (b >> ZKG_FINE_BITS), then, in chunks of
 * at most ZKG_CHUNK entries of one super-bucket, by its low bits.
 *   1. k_sort_count: per block, a shared histogram of super-buckets, added to scount with one
 *      global atomic per (block, super-bucket). k_sort_plan: soff (super-bucket starts),
 *      cursor (a copy) and cst (each super-bucket's first chunk; ceil(count / ZKG_CHUNK) each).
 *   2. k_sort_scatter: the same histogram gives each entry its rank; the block reserves one run
 *      per super-bucket on cursor, sorts its entries by super-bucket in shared memory and
 *      writes them out in order (tval: the entry, tlow: its bucket's low bits), so that
 *      neighbouring threads write neighbouring words.
 *   3. k_chunk_count: per chunk, a shared histogram of low bits into ccnt[chunk][low].
 *      k_chunk_base, per super-bucket: the buckets' starts (offsets) and every chunk's start
 *      inside every bucket, in place in ccnt.
 *      k_chunk_place: per chunk, shared atomics on those starts place its entries into vals.
 * Every block handles at most ZKG_CHUNK entries in level 2, whatever the bucket sizes: a
 * shared-bucket MSM puts its top window's small digits (all n scalars) into the lowest
 * buckets, and witnesses with many equal small values do the same to one bucket. Before (one
 * global atomic per entry into 2^18 counters, then a scatter by the place it returned; H200,
 * 2^20 points, BLS12-381 c = 19, W = 14, ncu): 0.456 + 0.395 ms. Entries keep no order inside
 * a bucket (the sum does not depend on it). */
#define ZKG_FINE_BITS 10
#define ZKG_FINE (1u << ZKG_FINE_BITS)
#define ZKG_CHUNK 8192u /* entries per level-2 block */
#define ZKG_CHUNK_T 512 /* threads of the level-2 chunk kernels: two low-bit counters each */
/* Level 1: a block's entries at most (threads x windows). Each block reserves a run per
 * super-bucket with a global atomic on one of nsup counters: with 2048 entries per block
 * (8192 blocks of 128 threads at 2^20 points, W = 14) k_sort_scatter took 0.17 ms, with 8192
 * (2048 blocks of 512) 0.095 ms (H200, ncu). */
#define ZKG_SORT_ENT 8192u
/* level 1's shared memory at most: windowed c = 20 (13 x 2^19 buckets, 6656 super-buckets)
 * needs 53 KB of counters and 80 KB of entries */
#define ZKG_SORT_SMEM (160 * 1024)

/* How scalars split into signed digits: W windows, the first r of c bits and the others of
 * c - 1 (window w starts at bit w (c - 1) + min(w, r)), with M = 2^(c-1) buckets per window.
 * Windowed MSMs use r = W (all c bits; the host combines the windows by shifts of c). Shared
 * buckets take the fewest c-bit windows that still cover the scalar (zkg::eng::digit_plan_of):
 * with W windows of c bits the top one held only the last few bits (BLS12-381 at c = 19: 8),
 * so its n small digits crowded into the lowest buckets (spread over ~40 runs each, summed by
 * k_gather_big: 0.15 ms of a 2^20 MSM); 4 x 19 + 10 x 18 bits spread every window's digits.
 * Window w's table copy is then 2^(start of w) P (k_precomp). */
struct digit_plan {
	int c, W, r, shared;
	ZG_DEV int width(int w) const { return w < r ? c : c - 1; }
	ZG_DEV int start(int w) const { return w * (c - 1) + min(w, r); }
};

/* Calls fn(w, b, entry) for each nonzero signed digit of scalar i (see above). */
template <class Fn>
ZG_DEV void digit_entries(const scal &k, uint32_t i, uint32_t n, const digit_plan &d, Fn fn)
{
	uint32_t M = 1u << (d.c - 1), carry = 0;
	for (int w = 0; w < d.W; w++) {
		int cw = d.width(w), bit = d.start(w), limb = bit >> 5, sh = bit & 31;
		uint32_t v = 0, mask = (1u << cw) - 1, half = 1u << (cw - 1);
		if (limb < 8) {
			v = k.v[limb] >> sh;
			if (sh && limb + 1 < 8)
				v |= k.v[limb + 1] << (32 - sh);
		}
		v = (v & mask) + carry;
		uint32_t neg = 0;
		if (v > half) {
			v = (1u << cw) - v;
			neg = 1;
			carry = 1;
		} else {
			carry = 0;
		}
		if (v)
			fn(w, d.shared ? v - 1 : w * M + v - 1,
			   (d.shared ? w * n + i : i) | (neg << 31));
	}
}

/* In-place exclusive prefix sum of a[0 .. len) (shared or global memory) by the whole block
 * (32 <= blockDim.x <= 1024; tsum: blockDim.x + 1 words of shared memory). Returns the total
 * to every thread; every thread must call it; ends with a barrier. */
ZG_DEV uint32_t block_scan_excl(uint32_t *a, uint32_t len, uint32_t *tsum)
{
	uint32_t T = blockDim.x, t = threadIdx.x, per = (len + T - 1) / T;
	uint32_t b0 = min(t * per, len), b1 = min(b0 + per, len), sum = 0;
	for (uint32_t i = b0; i < b1; i++)
		sum += a[i];
	tsum[t] = sum;
	__syncthreads(); /* orders the segment sums before warp 0 scans them */
	if (t < 32) {
		uint32_t q = (T + 31) / 32, j0 = min(t * q, T), j1 = min(j0 + q, T), ls = 0;
		for (uint32_t j = j0; j < j1; j++)
			ls += tsum[j];
		uint32_t inc = ls;
		for (int d = 1; d < 32; d <<= 1) {
			uint32_t y = __shfl_up_sync(0xffffffffu, inc, d);
			if (t >= (uint32_t)d)
				inc += y;
		}
		uint32_t run = inc - ls;
		for (uint32_t j = j0; j < j1; j++) {
			uint32_t v = tsum[j];
			tsum[j] = run;
			run += v;
		}
		if (t == 31)
			tsum[T] = inc;
	}
	__syncthreads(); /* orders warp 0's segment starts before their use */
	uint32_t run = tsum[t];
	for (uint32_t i = b0; i < b1; i++) {
		uint32_t v = a[i];
		a[i] = run;
		run += v;
	}
	uint32_t total = tsum[T];
	__syncthreads(); /* orders every thread's writes and reads of tsum before any reuse */
	return total;
}

/* Level 1, counting: scount[s] += the block's entries in super-bucket s */
static __global__ void k_sort_count(const scal *ks, uint32_t n, digit_plan dp, uint32_t nsup,
				    uint32_t *scount)
{
	extern __shared__ uint32_t hist[];
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	for (uint32_t s = threadIdx.x; s < nsup; s += blockDim.x)
		hist[s] = 0;
	__syncthreads(); /* orders the zeroing before any thread's count */
	if (i < n) {
		scal k = load_scalar(&ks[i]);
		if (scalar_kind(k) == 2)
			digit_entries(k, i, n, dp, [&](int, uint32_t b, uint32_t) {
				atomicAdd(&hist[b >> ZKG_FINE_BITS], 1u);
			});
	}
	__syncthreads(); /* orders every count before the flush */
	for (uint32_t s = threadIdx.x; s < nsup; s += blockDim.x)
		if (hist[s])
			atomicAdd(&scount[s], hist[s]);
}

/* One block: soff = exclusive sum of scount (soff[nsup] = all entries), cursor = soff,
 * cst = exclusive sum of the chunks per super-bucket (cst[nsup] = all chunks) */
static __global__ void __launch_bounds__(1024)
    k_sort_plan(const uint32_t *scount, uint32_t nsup, uint32_t *soff, uint32_t *cursor,
		uint32_t *cst)
{
	__shared__ uint32_t tsum[1025];
	for (uint32_t s = threadIdx.x; s <= nsup; s += blockDim.x) {
		uint32_t k = s < nsup ? scount[s] : 0;
		soff[s] = k;
		cst[s] = (k + ZKG_CHUNK - 1) / ZKG_CHUNK;
	}
	__syncthreads(); /* orders the counts before the scans (global memory, one block) */
	block_scan_excl(soff, nsup + 1, tsum);
	block_scan_excl(cst, nsup + 1, tsum);
	for (uint32_t s = threadIdx.x; s < nsup; s += blockDim.x)
		cursor[s] = soff[s];
}

/* Level 1, scatter (shared memory: hist and base, nsup + 1 words each, then blockDim.x + 1
 * words for the scan, then per entry slot: value (32 bits), super-bucket, low bits and rank
 * (16 bits each; nsup < 2^16, ranks < ZKG_SORT_ENT)) */
static __global__ void k_sort_scatter(const scal *ks, uint32_t n, digit_plan dp, uint32_t nsup,
				      uint32_t *cursor, uint32_t *tval, uint16_t *tlow)
{
	extern __shared__ uint32_t sm[];
	uint32_t T = blockDim.x, ne = T * (uint32_t)dp.W, *hist = sm, *base = hist + nsup + 1,
		 *tsum = base + nsup + 1;
	uint32_t *sval = tsum + T + 1;
	uint16_t *ssup = (uint16_t *)(sval + ne), *slow = ssup + ne, *rank = slow + ne;
	uint32_t tid = threadIdx.x, i = blockIdx.x * T + tid;
	for (uint32_t s = tid; s <= nsup; s += T)
		hist[s] = 0;
	__syncthreads(); /* orders the zeroing before the ranks */
	scal k;
	bool act = false;
	if (i < n) {
		k = load_scalar(&ks[i]);
		act = scalar_kind(k) == 2;
	}
	if (act)
		digit_entries(k, i, n, dp, [&](int w, uint32_t b, uint32_t) {
			rank[tid * dp.W + w] = (uint16_t)atomicAdd(&hist[b >> ZKG_FINE_BITS], 1u);
		});
	__syncthreads(); /* orders every rank before the counts are read */
	for (uint32_t s = tid; s < nsup; s += T)
		if (hist[s])
			base[s] =
			    atomicAdd(&cursor[s], hist[s]); /* this block's run of super-bucket s */
	uint32_t total = block_scan_excl(hist, nsup + 1, tsum); /* hist: local starts */
	if (act)
		digit_entries(k, i, n, dp, [&](int w, uint32_t b, uint32_t e) {
			uint32_t s = b >> ZKG_FINE_BITS, p = hist[s] + rank[tid * dp.W + w];
			sval[p] = e;
			ssup[p] = (uint16_t)s;
			slow[p] = (uint16_t)(b & (ZKG_FINE - 1));
		});
	__syncthreads(); /* orders the sorted entries before the copy out */
	for (uint32_t j = tid; j < total; j += T) {
		uint32_t s = ssup[j], g = base[s] + (j - hist[s]);
		tval[g] = sval[j];
		tlow[g] = slow[j];
	}
}

/* The last index i < n with a[i] <= x, for non-decreasing a with a[0] <= x < a[n] */
ZG_DEV uint32_t last_at_most(const uint32_t *a, uint32_t n, uint32_t x)
{
	uint32_t lo = 0, hi = n; /* a[lo] <= x < a[hi] */
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) >> 1;
		if (a[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Level-2 chunk x: its super-bucket s and entries [*e0, *e1); false past the last chunk */
ZG_DEV bool chunk_of(uint32_t x, const uint32_t *soff, const uint32_t *cst, uint32_t nsup,
		     uint32_t *e0, uint32_t *e1)
{
	if (x >= cst[nsup])
		return false;
	uint32_t lo = last_at_most(cst, nsup, x); /* the super-bucket with a chunk x */
	*e0 = soff[lo] + (x - cst[lo]) * ZKG_CHUNK;
	*e1 = min(*e0 + ZKG_CHUNK, soff[lo + 1]);
	return true;
}

/* Level 2, counting: ccnt[x][low] = chunk x's entries with those low bits */
static __global__ void __launch_bounds__(ZKG_CHUNK_T)
    k_chunk_count(const uint32_t *soff, const uint32_t *cst, uint32_t nsup, const uint16_t *tlow,
		  uint32_t *ccnt)
{
	__shared__ uint32_t cnt[ZKG_FINE];
	static_assert(ZKG_FINE == 2 * ZKG_CHUNK_T, "two counters per thread");
	uint32_t e0, e1, tid = threadIdx.x;
	if (!chunk_of(blockIdx.x, soff, cst, nsup, &e0, &e1))
		return; /* the whole block */
	cnt[2 * tid] = cnt[2 * tid + 1] = 0;
	__syncthreads(); /* orders the zeroing before the counts */
	for (uint32_t e = e0 + tid; e < e1; e += ZKG_CHUNK_T)
		atomicAdd(&cnt[tlow[e]], 1u);
	__syncthreads(); /* orders the counts before the copy out */
	uint32_t *out = ccnt + (size_t)blockIdx.x * ZKG_FINE;
	out[2 * tid] = cnt[2 * tid];
	out[2 * tid + 1] = cnt[2 * tid + 1];
}

/* Level 2, one block of ZKG_FINE threads per super-bucket s, thread = low bits: offsets of the
 * buckets s ZKG_FINE + low (< nb; offsets[nb] = all entries, by the last block), and
 * ccnt[x][low] becomes the place of chunk x's first entry of that bucket. The chunks' counts
 * are read ZKG_BASE_BATCH at a time (a super-bucket holding a shared MSM's top window has
 * over a hundred chunks at 2^20 points; one load at a time left this kernel at 0.17 ms). */
#define ZKG_BASE_BATCH 8
/* v[j] = col[(x + j) ZKG_FINE] (chunk x + j's counter of one bucket) for x + j < x1, else 0 */
ZG_DEV void column_batch(const uint32_t *col, uint32_t x, uint32_t x1, uint32_t *v)
{
#pragma unroll
	for (int j = 0; j < ZKG_BASE_BATCH; j++)
		v[j] = x + j < x1 ? col[(size_t)(x + j) * ZKG_FINE] : 0;
}
static __global__ void __launch_bounds__(ZKG_FINE)
    k_chunk_base(const uint32_t *soff, const uint32_t *cst, uint32_t nb, uint32_t *ccnt,
		 uint32_t *offsets)
{
	__shared__ uint32_t tot[ZKG_FINE], tsum[ZKG_FINE + 1];
	uint32_t s = blockIdx.x, low = threadIdx.x, x0 = cst[s], x1 = cst[s + 1], run = 0;
	uint32_t *col = ccnt + low;
	for (uint32_t x = x0; x < x1; x += ZKG_BASE_BATCH) {
		uint32_t v[ZKG_BASE_BATCH];
		column_batch(col, x, x1, v);
#pragma unroll
		for (int j = 0; j < ZKG_BASE_BATCH; j++)
			run += v[j];
	}
	tot[low] = run;
	__syncthreads(); /* orders the totals before the scan */
	block_scan_excl(tot, ZKG_FINE, tsum);
	uint32_t start = soff[s] + tot[low], b = s * ZKG_FINE + low;
	if (b < nb)
		offsets[b] = start;
	if (s + 1 == gridDim.x && low == 0)
		offsets[nb] = soff[s + 1];
	for (uint32_t x = x0; x < x1; x += ZKG_BASE_BATCH) {
		uint32_t v[ZKG_BASE_BATCH];
		column_batch(col, x, x1, v);
#pragma unroll
		for (int j = 0; j < ZKG_BASE_BATCH; j++)
			if (x + j < x1) {
				col[(size_t)(x + j) * ZKG_FINE] = start;
				start += v[j];
			}
	}
}

/* Level 2, placing: chunk x's entries sorted by low bits in shared memory (ranks from shared
 * atomics, starts from a block scan), then written out in that order from the chunk's places
 * in ccnt[x], so that neighbouring threads mostly write neighbouring words. Dynamic shared
 * memory: ZKG_CHUNK entries and their low bits. */
#define ZKG_PER_T (ZKG_CHUNK / ZKG_CHUNK_T)
#define ZKG_PLACE_SMEM (ZKG_CHUNK * 6)
static __global__ void __launch_bounds__(ZKG_CHUNK_T, 2)
    k_chunk_place(const uint32_t *soff, const uint32_t *cst, uint32_t nsup, const uint32_t *tval,
		  const uint16_t *tlow, const uint32_t *ccnt, uint32_t *vals)
{
	__shared__ uint32_t cnt[ZKG_FINE], gst[ZKG_FINE], tsum[ZKG_CHUNK_T + 1];
	extern __shared__ uint32_t sval[];
	uint16_t *slow = (uint16_t *)(sval + ZKG_CHUNK);
	uint32_t e0, e1, tid = threadIdx.x;
	if (!chunk_of(blockIdx.x, soff, cst, nsup, &e0, &e1))
		return; /* the whole block */
	const uint32_t *in = ccnt + (size_t)blockIdx.x * ZKG_FINE;
	for (uint32_t j = tid; j < ZKG_FINE; j += ZKG_CHUNK_T) {
		cnt[j] = 0;
		gst[j] = in[j];
	}
	__syncthreads();			/* orders the zeroing before the ranks */
	uint32_t val[ZKG_PER_T], lr[ZKG_PER_T]; /* entry; low bits << 16 | rank (< ZKG_CHUNK) */
	static_assert(ZKG_CHUNK <= 65536, "ranks in 16 bits");
#pragma unroll
	for (int r = 0; r < ZKG_PER_T; r++) {
		uint32_t e = e0 + r * ZKG_CHUNK_T + tid;
		if (e < e1) {
			uint32_t l = tlow[e];
			val[r] = tval[e];
			lr[r] = l << 16 | atomicAdd(&cnt[l], 1u);
		}
	}
	__syncthreads(); /* orders every rank before the scan reads the counts */
	block_scan_excl(cnt, ZKG_FINE, tsum);
#pragma unroll
	for (int r = 0; r < ZKG_PER_T; r++)
		if (e0 + r * ZKG_CHUNK_T + tid < e1) {
			uint32_t l = lr[r] >> 16, p = cnt[l] + (lr[r] & 0xffffu);
			sval[p] = val[r];
			slow[p] = (uint16_t)l;
		}
	__syncthreads(); /* orders the sorted entries before the copy out */
	for (uint32_t j = tid; j < e1 - e0; j += ZKG_CHUNK_T) {
		uint32_t l = slow[j];
		vals[gst[l] + (j - cnt[l])] = sval[j];
	}
}

/* Bucket accumulation, flat split: the sorted entries (all buckets back to back) are cut into
 * runs of exactly `run` entries, one thread each, so every thread does the same number of mixed
 * additions whatever the bucket sizes (skewed scalars, e.g. a top window with two used bits or
 * many equal small witness values, make a few huge buckets; a split by bucket made warps wait
 * for their longest task). A thread writes every bucket that lies wholly inside its run
 * straight to buckets[b]; of a bucket split across runs it writes the piece at its run's start
 * to first[t] and the piece at its run's end to last[t], which k_gather_runs adds up. Empty
 * buckets are not written (k_red1 reads them as infinity). */
#define ZKG_RUN_MIN 32
template <class F, class Acc>
__global__ void ZKG_LB(F, lb<F>::T)
    k_flat(const aff_t<F> *pts, const uint32_t *vals, const uint32_t *offsets, uint32_t nb,
	   uint32_t run, uint32_t nrun, jac_t<F> *buckets, jac_t<F> *first, jac_t<F> *last,
	   uint32_t *nown, uint32_t *owners)
{
	uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= nrun)
		return;
	uint32_t total = offsets[nb], s = t * run, e = min(s + run, total);
	if (s >= total) /* nrun is a bound from n W; scalars 0 and 1 have no entries */
		return;
	/* the bucket holding entry s: offsets[b] <= s < offsets[b + 1] */
	uint32_t b = last_at_most(offsets, nb, s), bend = offsets[b + 1];
	bool head = offsets[b] < s; /* the run starts inside bucket b: its piece goes to first[t] */
	Acc acc = Acc::inf();
	/* Entry k+1's point is copied into this thread's slot (k+1) & 1 of shared memory by
	 * cp.async while entry k's addition runs, and entry k+2's index is loaded (ncu, BLS12-381
	 * G1 loop at 2^20 on the H200: waits on global loads 0.45 -> 0.07 of ~8 cycles between a
	 * warp's instructions, loop 6.69 -> 6.56 ms, msm1 8.22 -> 8.12 ms). Chunk c of slot q of
	 * thread i sits at (q CH + c) blockDim + i: a warp's 16-byte copies and loads are
	 * contiguous. */
	constexpr int CH = (int)sizeof(aff_t<F>) / 16;
	extern __shared__ uint4 smem_raw[];
	uint4 *slots = smem_raw + threadIdx.x;
	const uint32_t bd = blockDim.x;
	auto fetch = [&](uint32_t v, uint32_t slot) {
		const uint4 *src = (const uint4 *)&pts[v & 0x7fffffffu];
#pragma unroll
		for (int c = 0; c < CH; c++)
			ptx::cp_async16(&slots[(slot * CH + c) * bd], &src[c]);
	};
	uint32_t vcur = vals[s], vnext = s + 1 < e ? vals[s + 1] : 0;
	fetch(vcur, 0);
	ptx::cp_async_commit();
	for (uint32_t k = s; k < e; k++) {
		uint32_t slot = (k - s) & 1, vafter = 0;
		if (k + 1 < e) {
			fetch(vnext, slot ^ 1);
			if (k + 2 < e)
				vafter = vals[k + 2];
		}
		ptx::cp_async_commit(); /* possibly empty: one group per entry */
		if (k == bend) {	/* bucket b ends here */
			acc.to_jac().store(head ? &first[t] : &buckets[b]);
			acc = Acc::inf();
			head = false;
			do
				bend = offsets[++b + 1];
			while (bend == k); /* empty buckets */
		}
		/* orders entry k's copies (all but the newest group complete) before reading its
		 * slot; the copies are this thread's own, so no barrier */
		ptx::cp_async_wait1();
		uint4 w[CH];
#pragma unroll
		for (int c = 0; c < CH; c++)
			w[c] = slots[(slot * CH + c) * bd];
		aff_t<F> p = aff_t<F>::load(w);
		if (vcur >> 31)
			p.y = p.y.neg();
		acc = acc.add_aff_inl(p);
		vcur = vnext;
		vnext = vafter;
	}
	/* bucket b: whole when it started in this run and ends with it, else a piece; when it
	 * started in this run and goes on, this run owns it: b is listed for k_gather_runs */
	acc.to_jac().store(head ? &first[t] : bend == e ? &buckets[b] : &last[t]);
	if (!head && bend > e)
		owners[atomicAdd(nown, 1u)] = b;
}

/* A bucket b spread over runs t0 .. t1 (t0 = offsets[b] / run) is the last bucket of run t0,
 * which k_flat listed in owners: thread x takes the x-th listed bucket and adds its pieces,
 * last[t0] and first[t] for t0 < t <= t1; buckets over more than 8 runs are listed for
 * k_gather_big. One thread per listed bucket (at most one per run): a thread per bucket
 * (2^18 at BLS12-381 2^20, some 58% adding) took 0.35 ms, a thread per run (58% of them
 * adding) 0.19 ms. */
template <class F>
__global__ void ZKG_LB(F, 128)
    k_gather_runs(const uint32_t *offsets, uint32_t run, const uint32_t *nown,
		  const uint32_t *owners, const jac_t<F> *first, const jac_t<F> *last,
		  jac_t<F> *buckets, uint32_t *nbig, uint32_t *big)
{
	uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
	if (x >= *nown)
		return;
	uint32_t b = owners[x], t0 = offsets[b] / run, t1 = (offsets[b + 1] - 1) / run;
	if (t1 - t0 > 8) {
		big[atomicAdd(nbig, 1u)] = b;
		return;
	}
	jac_t<F> acc = jac_t<F>::load(&last[t0]);
	for (uint32_t u = t0 + 1; u <= t1; u++)
		acc = acc.add(jac_t<F>::load(&first[u]));
	acc.store(&buckets[b]);
}

#define ZKG_SUM_T 128
/* One level of block_sum over a prime field with a quad of lanes per sum (jac_t::add_quad):
 * sm[x] += sm[x + s] for x < s. On the H200 (BLS12-381 G1 MSM of 2^20), the plane sums' levels
 * 3 and 4 (k_planes, k_sum): 0.272 -> 0.193 ms. */
template <class F> ZG_DEV void quad_level(jac_t<F> *sm, uint32_t s)
{
	uint32_t tid = threadIdx.x, x = tid / 4;
	if (x >= s)
		return;
	jac_t<F> a = sm[x], b = sm[x + s];
	__syncwarp(0xfu << (tid % 32 / 4 * 4)); /* orders the quad's loads before lane 0's store */
	a = a.add_quad(b);
	if (tid % 4 == 0)
		sm[x] = a;
}
/* Sum over the block of each thread's acc by a tree in shared memory sm (blockDim.x points,
 * a power of two): the result is valid in thread 0. Every thread must call it; sm may be
 * reused after it returns (it ends with a barrier). */
template <class F> ZG_DEV jac_t<F> block_sum(jac_t<F> acc, jac_t<F> *sm)
{
	uint32_t tid = threadIdx.x;
	sm[tid] = acc;
	__syncthreads(); /* orders every thread's store before the first level's loads */
	for (uint32_t s = blockDim.x / 2; s > 0; s >>= 1) {
		if constexpr (F::PAIRS) {
			if (4 * s <= blockDim.x) {
				quad_level(sm, s);
				__syncthreads(); /* as below */
				continue;
			}
		}
		if (tid < s)
			sm[tid] = sm[tid].add(sm[tid + s]);
		__syncthreads(); /* orders this level's stores before the next level's loads */
	}
	acc = sm[0];
	__syncthreads(); /* orders thread 0's read of sm[0] before any reuse of sm */
	return acc;
}
/* The listed buckets, one block each: the same pieces as k_gather_runs, summed by a tree */
template <class F>
__global__ void ZKG_LB(F, ZKG_SUM_T) k_gather_big(const uint32_t *offsets, uint32_t run, const jac_t<F> *first,
						  const jac_t<F> *last, jac_t<F> *buckets, const uint32_t *nbig,
						  const uint32_t *big)
{
	extern __shared__ uint4 smem_raw[];
	jac_t<F> *sm = (jac_t<F> *)smem_raw;
	uint32_t tid = threadIdx.x, nbg = *nbig;
	for (uint32_t x = blockIdx.x; x < nbg; x += gridDim.x) {
		uint32_t b = big[x], ob = offsets[b], oe = offsets[b + 1];
		uint32_t t0 = ob / run, t1 = (oe - 1) / run;
		jac_t<F> acc = jac_t<F>::inf();
		if (tid == 0)
			acc = jac_t<F>::load(&last[t0]);
		for (uint32_t t = t0 + 1 + tid; t <= t1; t += blockDim.x)
			acc = acc.add(jac_t<F>::load(&first[t]));
		acc = block_sum(acc, sm);
		if (tid == 0)
			acc.store(&buckets[b]);
	}
}

/* Sum of the points whose scalar is 1: block blk of nblk (ZKG_SUM_T threads, dynamic shared
 * memory for ZKG_SUM_T points) writes its share's sum to partials[blk]; run as the last blocks
 * of k_red2. Every thread of the block must call it (block_sum). */
template <class F>
ZG_DEV void ones_block(const aff_t<F> *pts, const scal *ks, uint32_t n, uint32_t blk, uint32_t nblk,
		       jac_t<F> *partials)
{
	extern __shared__ uint4 smem_raw[];
	jac_t<F> *sm = (jac_t<F> *)smem_raw;
	uint32_t tid = threadIdx.x;
	jac_t<F> acc = jac_t<F>::inf();
	for (uint32_t i = blk * ZKG_SUM_T + tid; i < n; i += nblk * ZKG_SUM_T)
		if (scalar_kind(load_scalar(&ks[i])) == 1)
			acc = acc.add_aff(aff_t<F>::load(&pts[i]));
	acc = block_sum(acc, sm);
	if (tid == 0)
		acc.store(&partials[blk]);
}

/* Bucket reduction: R = sum over k of (k+1) B_k for each window of M buckets, in levels
 * whose sequential depth stays small (a lone thread's point addition takes microseconds, so
 * chains, not work, set the time here: the previous version's per-group multiplication and
 * 64-deep block sums took 2.7 ms of a 13 ms BLS12-381 MSM of 2^20 points on the H200).
 *   1. k_red1, segment j of L1 buckets: S_j = sum_k B_{j L1 + k},
 *      T_j = sum_k (k+1) B_{j L1 + k} (running sums from the top); then
 *      R = sum_j T_j + L1 sum_j j' S_j with j' the segment's index inside its window.
 *   2. k_red2, group i of L2 segments: G_i = sum_k S_{i L2 + k} and
 *      U_i = sum_k T_{i L2 + k} + L1 sum_k k S_{i L2 + k}; then
 *      R = sum_i U_i + L1 L2 sum_i i' G_i with i' < per, the group's index in its window.
 *   3. k_planes: sum_i i' G_i = sum_b 2^b P_b, P_b = sum of the G_i whose i' has bit b set.
 *      Plane 0 is Q = sum_i U_i, plane 1 + b is P_b; each block sums a chunk of one plane.
 *   4. k_sum, a block per plane: the sum of its chunks, into the window's slot; the
 *      host then takes R = Q + 2^log2(L1 L2) sum_b 2^b P_b by Horner's rule (zkg_host_combine:
 *      ~2 log2(per) serial point operations, which one CPU core does many times faster than
 *      one GPU thread).
 * Serial depth on the device at M = 2^18 (L1 = 8, L2 = 4, per = 2^13): 14 + 13 + 8 + 7 point
 * operations. L1 = 8 rather than 4 (H200, BLS12-381 G1 MSM of 2^20, one call): levels 1-2
 * 0.61 -> 0.59 ms, levels 3-4 0.46 -> 0.29 ms (one plane fewer, half the members), MSM 8.75-8.78
 * -> 8.56-8.61 ms; BN254 MSM 2^21 7.68 -> 7.54, 2^22 13.40 -> 13.27 ms (2^20: 3.98 -> 4.04).
 * Also measured there: L1 = 16 with L2 = 4 or 2, and L1 = L2 = 8: 8.67-8.74 ms (deeper level
 * 1 or 2); L2 = 1 (no level 2, planes over the segments): 9.45 ms. */
template <class F>
__global__ void ZKG_LB(F, 128) k_red1(const jac_t<F> *B, const uint32_t *offsets, uint32_t L1,
				      uint32_t nseg, jac_t<F> *S, jac_t<F> *T)
{
	uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= nseg)
		return;
	const jac_t<F> *b = B + (size_t)j * L1;
	const uint32_t *o = offsets + (size_t)j * L1;
	/* an empty bucket (no entries: k_flat did not write it) is infinity */
	auto bucket = [&](int k) {
		return o[k] == o[k + 1] ? jac_t<F>::inf() : jac_t<F>::load(&b[k]);
	};
	jac_t<F> s = bucket((int)L1 - 1), t = s;
	for (int k = (int)L1 - 2; k >= 0; k--) {
		s = s.add(bucket(k));
		t = t.add(s);
	}
	s.store(&S[j]);
	t.store(&T[j]);
}

/* lanes per group of k_red2: over a prime field a quad (jac_t::add_quad; with ONES_BLOCKS
 * 264 -> 128, levels 1-2 and the ones' sum 0.575 -> 0.521 ms, BLS12-381 G1 MSM of 2^20 on the
 * H200), else a thread */
template <class F> constexpr uint32_t red2_lanes()
{
	return F::PAIRS ? 4 : 1;
}
template <class F>
__global__ void ZKG_LB(F, 128)
    k_red2(const jac_t<F> *S, const jac_t<F> *T, uint32_t L1, uint32_t L2, uint32_t ngrp,
	   jac_t<F> *G, jac_t<F> *U, uint32_t nred, const aff_t<F> *pts, const scal *ks, uint32_t n,
	   jac_t<F> *ones)
{
	/* blocks nred.. are ones_block's: a thread of this kernel has a chain of some fourteen
	 * point operations and the grid is small, so the ones' scan runs in its shadow */
	if (blockIdx.x >= nred) {
		ones_block(pts, ks, n, blockIdx.x - nred, gridDim.x - nred, ones);
		return;
	}
	constexpr uint32_t Q = red2_lanes<F>();
	uint32_t x = (blockIdx.x * blockDim.x + threadIdx.x) / Q;
	if (x >= ngrp)
		return;
	auto add = [](const jac_t<F> &a, const jac_t<F> &b) {
		if constexpr (Q == 4)
			return a.add_quad(b);
		else
			return a.add(b);
	};
	const jac_t<F> *s0 = S + (size_t)x * L2, *t0 = T + (size_t)x * L2;
	/* s = sum S_k, u = sum (k+1) S_k, so sum k S_k = u - s */
	jac_t<F> s = jac_t<F>::load(&s0[L2 - 1]), u = s, tsum = jac_t<F>::load(&t0[L2 - 1]);
	for (int k = (int)L2 - 2; k >= 0; k--) {
		s = add(s, jac_t<F>::load(&s0[k]));
		u = add(u, s);
		tsum = add(tsum, jac_t<F>::load(&t0[k]));
	}
	u = add(u, s.neg());
	for (uint32_t l = L1; l > 1; l >>= 1)
		u = u.dbl();
	u = add(tsum, u);
	if (threadIdx.x % Q == 0) {
		s.store(&G[x]);
		u.store(&U[x]);
	}
}

#define ZKG_PLANE_CHUNK (2 * ZKG_SUM_T) /* two members per thread, then the block's tree */
/* Planes of the reduction's level 3: plane 0 of window w sums U over the window's groups,
 * plane 1 + b sums the G_i whose in-window index has bit b set (per / 2 of them). Block
 * x = (w np + p) nch + ch sums members ch CHUNK .. of that plane into part[x]. */
template <class F>
__global__ void ZKG_LB(F, ZKG_SUM_T) k_planes(const jac_t<F> *G, const jac_t<F> *U, uint32_t per, uint32_t np,
					      uint32_t nch, jac_t<F> *part)
{
	extern __shared__ uint4 smem_raw[];
	jac_t<F> *sm = (jac_t<F> *)smem_raw;
	uint32_t x = blockIdx.x, ch = x % nch, p = (x / nch) % np, w = x / (nch * np);
	uint32_t members = p == 0 ? per : per / 2;
	jac_t<F> acc = jac_t<F>::inf();
	uint32_t m1 = min(members, (ch + 1) * ZKG_PLANE_CHUNK);
	for (uint32_t m = ch * ZKG_PLANE_CHUNK + threadIdx.x; m < m1; m += ZKG_SUM_T) {
		const jac_t<F> *src = &U[(size_t)w * per + m];
		if (p > 0) { /* the m-th index with bit b set */
			uint32_t b = p - 1, lowm = (1u << b) - 1;
			src = &G[(size_t)w * per + (((m >> b) << (b + 1)) | (1u << b) | (m & lowm))];
		}
		acc = acc.add(jac_t<F>::load(src));
	}
	acc = block_sum(acc, sm);
	if (threadIdx.x == 0)
		acc.store(&part[x]);
}

/* out[g] = sum of in[g*m .. g*m+m), one block per group (at most ZKG_SUM_T threads, a power
 * of two; shared memory for one point per thread) */
template <class F> __global__ void ZKG_LB(F, ZKG_SUM_T) k_sum(const jac_t<F> *in, uint32_t m, jac_t<F> *out)
{
	extern __shared__ uint4 smem_raw[];
	jac_t<F> *sm = (jac_t<F> *)smem_raw;
	uint32_t g = blockIdx.x, tid = threadIdx.x;
	jac_t<F> acc = jac_t<F>::inf();
	for (uint32_t j = tid; j < m; j += blockDim.x)
		acc = acc.add(jac_t<F>::load(&in[(size_t)g * m + j]));
	acc = block_sum(acc, sm);
	if (tid == 0)
		acc.store(&out[g]);
}

/* Window tables for the shared-bucket MSM: tab[w n + i] = 2^(start of window w) tab[i]
 * (affine; windows as in digit_plan) for w = 1 .. W-1, points i0 .. i0+cnt-1. One thread per
 * point: as many doublings per window as the window before it has bits, the W-1
 * Z coordinates inverted together (Montgomery's trick: one inversion, 3 (W-1) products), z and
 * pre are (W-1) cnt scratch elements each. A Z of zero (a point of small order in a malformed
 * key) is kept out of the product and gives infinity. */
template <class F>
__global__ void k_precomp(aff_t<F> *tab, uint32_t n, uint32_t i0, uint32_t cnt, digit_plan dp, F *z, F *pre)
{
	uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= cnt)
		return;
	size_t i = (size_t)i0 + t;
	aff_t<F> p = aff_t<F>::load(&tab[i]);
	const int W = dp.W;
	if (p.is_inf()) {
		for (int w = 1; w < W; w++)
			p.store(&tab[(size_t)w * n + i]);
		return;
	}
	jac_t<F> J = jac_t<F>::from_aff(p);
	F acc = F::one();
	for (int w = 1; w < W; w++) {
		for (int k = 0; k < dp.width(w - 1); k++)
			J = J.dbl();
		size_t o = (size_t)(w - 1) * cnt + t;
		J.Z.store(&z[o]);
		if (!J.Z.is_zero())
			acc = acc * J.Z;
		acc.store(&pre[o]);
		aff_t<F>{J.X, J.Y}.store(&tab[(size_t)w * n + i]);
	}
	F inv = acc.inv();
	for (int w = W - 1; w >= 1; w--) {
		size_t o = (size_t)(w - 1) * cnt + t;
		F zw = F::load(&z[o]);
		aff_t<F> *q = &tab[(size_t)w * n + i];
		if (zw.is_zero()) {
			aff_t<F>{F::zero(), F::zero()}.store(q);
			continue;
		}
		F zi = w > 1 ? inv * F::load(&pre[o - cnt]) : inv;
		inv = inv * zw;
		aff_t<F> a = aff_t<F>::load(q);
		F zi2 = zi.sqr();
		aff_t<F>{a.x * zi2, a.y * zi2 * zi}.store(q);
	}
}

/* ---------------- fixed base, field tests ---------------- */

template <class F>
__global__ void k_fixed(const aff_t<F> *table, const scal *ks, uint32_t n, aff_t<F> *out)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	scal k = load_scalar(&ks[i]);
	jac_t<F> acc = jac_t<F>::inf();
	for (int j = 0; j < 32; j++) {
		uint32_t d = (k.v[j >> 2] >> (8 * (j & 3))) & 0xff;
		if (d)
			acc = acc.add_aff(aff_t<F>::load(&table[j * 256 + d]));
	}
	acc.to_aff().store(&out[i]);
}

template <class F> __global__ void k_fop(int op, const F *a, const F *b, F *out, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	F x = F::load(&a[i]), y = F::load(&b[i]), r;
	switch (op) {
	case 0: r = x + y; break;
	case 1: r = x - y; break;
	case 2: r = x * y; break;
	case 3: r = x.sqr(); break;
	case 4: r = x.inv(); break;
	case 7: /* a_i b_i + a_j b_j, j = i + 1 mod n, by one sum of two products (prime fields) */
		if constexpr (F::PAIRS) {
			uint32_t j = i + 1 == n ? 0 : i + 1;
			r = F::mul_sum(x, y, F::load(&a[j]), F::load(&b[j]));
		} else {
			r = x;
		}
		break;
	case 8: /* (a + b)^2, the sum unreduced (< 2p) as the point formulas square them (Fq) */
		if constexpr (F::PAIRS)
			r = F::add_nr(x, y).sqr();
		else
			r = x;
		break;
	default: r = x; break;
	}
	r.store(&out[i]);
}
/* out = a y through y's Shoup pair (the NTT's twiddle products): equals a * y */
template <class P> __global__ void k_shoup(const fp<P> *a, const fp<P> *b, fp<P> *out, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	fp<P> w, q;
	fp<P>::load(&b[i]).shoup_pair(w, q);
	fp<P>::mul_shoup(fp<P>::load(&a[i]), w, q).store(&out[i]);
}
template <class P> __global__ void k_from_mont(const fp<P> *a, fp<P> *out, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		fp<P>::load(&a[i]).from_mont().store(&out[i]);
}

static inline unsigned nblk(size_t n, unsigned t) { return (unsigned)((n + t - 1) / t); }

/* ---------------- host drivers ---------------- */

template <class TR> struct eng {
	using Fr = typename TR::Fr;
	using Fq = typename TR::Fq;
	using Fq2 = fp2<Fq>;
	using G1 = jac_t<Fq>;
	using G1A = aff_t<Fq>;
	using G2 = jac_t<Fq2>;
	using G2A = aff_t<Fq2>;
	static constexpr int CURVE = TR::CURVE;
	/* blocks of the ones' sum, run beside k_red2's groups (one block per SM or so: with a
	 * quad per group, k_red2's 256 blocks at BLS12-381 2^20 and 264 of these overflowed the
	 * H200's 396 resident blocks, and the ones' blocks waited for a second wave) */
	static constexpr int ONES_BLOCKS = 128;
	/* The result slot of one MSM: its reduction planes and the ones sum. A context's scratch
	 * serves keys of both curves, so its fixed-size buffers are sized for the largest point
	 * (ZKG_JAC_MAX). */
	static_assert(sizeof(G2) <= ZKG_JAC_MAX, "ZKG_JAC_MAX too small");
	static constexpr size_t WSLOT_PTS = ZKG_WSLOT_PTS, WSLOT = ZKG_WSLOT;

	/* buckets per level-1 segment and segments per level-2 group of the bucket reduction
	 * (k_red1, k_red2): M = L1 L2 per, all powers of two */
	static uint32_t red_l1(uint32_t M) { return M < 8 ? M : 8; }
	static uint32_t red_l2(uint32_t M) { return M / red_l1(M) < 4 ? M / red_l1(M) : 4; }
	/* level 3 of the reduction: groups per window, planes (1 + log2 per) and chunks per plane */
	static uint32_t red_per(uint32_t M) { return M / (red_l1(M) * red_l2(M)); }
	static uint32_t red_np(uint32_t M) { return 1 + (uint32_t)__builtin_ctz(red_per(M)); }
	static uint32_t red_nch(uint32_t M) { return (red_per(M) + ZKG_PLANE_CHUNK - 1) / ZKG_PLANE_CHUNK; }

	static seeds mk1(const uint64_t v[4])
	{
		seeds s;
		memset(&s, 0, sizeof s);
		memcpy(s.v[0], v, 32);
		return s;
	}

	/* Allocates and fills the tables for 2^logn: *tw, *itw (n/2 twiddle pairs each) and, when
	 * cs is not NULL, *cs (n coset factors). Each pointer is stored as soon as it is allocated:
	 * after an error the caller frees what exists. */
	static int tables(zka_gpu *g, uint32_t logn, void **d_tw, void **d_itw, void **d_cs, char *err,
			  size_t errlen)
	{
		size_t half = (size_t)1 << (logn - 1);
		CK(cudaMalloc(d_tw, half * sizeof(twiddle<Fr>)));
		CK(cudaMalloc(d_itw, half * sizeof(twiddle<Fr>)));
		if (d_cs)
			CK(cudaMalloc(d_cs, 2 * half * sizeof(Fr)));
		twiddle<Fr> *tw = (twiddle<Fr> *)*d_tw, *itw = (twiddle<Fr> *)*d_itw;
		Fr *cs = d_cs ? (Fr *)*d_cs : NULL;
		zkg_roots r;
		zkg_host_roots(CURVE, logn, &r);
		seeds fw, iw, inc;
		memcpy(fw.v, r.fw, sizeof fw.v);
		memcpy(iw.v, r.iw, sizeof iw.v);
		memcpy(inc.v, r.inc, sizeof inc.v);
		uint32_t h = 1u << (logn - 1);
		k_powers<Fr><<<nblk(h, 256), 256, 0, g->s>>>(tw, h, fw);
		CKL();
		k_powers<Fr><<<nblk(h, 256), 256, 0, g->s>>>(itw, h, iw);
		CKL();
		if (cs) {
			k_coset<Fr><<<nblk(2 * h, 256), 256, 0, g->s>>>(cs, logn, inc, mk1(r.ninv));
			CKL();
		}
		return 0;
	}

	/* all logn stages: passes of up to 8 stages in shared memory (tiles of <= ZKG_NTT_TILE
	 * elements, at least 2^8 so that a tile holds a whole group) */
	static constexpr int NTT_SMEM_MAX = ZKG_NTT_TILE * 48 + 512 * 32; /* the largest k_stages tile */
	static int ntt_pass(zka_gpu *g, Fr *x, uint32_t logn, const twiddle<Fr> *tw, bool dit, char *err,
			    size_t errlen)
	{
		uint32_t npass = (logn + 7) / 8, done = 0;
		static_assert(ZKG_NTT_TILE >= 256 && ZKG_NTT_TILE <= 4096 && !(ZKG_NTT_TILE & (ZKG_NTT_TILE - 1)),
			      "ZKG_NTT_TILE: a power of two, 256 .. 4096");
		uint32_t tile = (1u << logn) < ZKG_NTT_TILE ? 1u << logn : ZKG_NTT_TILE; /* logn <= 28 */
		for (uint32_t p = 0; p < npass; p++) {
			uint32_t k = (logn - done) / (npass - p); /* balanced split */
			uint32_t lo = dit ? done : logn - done - k;
			size_t nblocks = ((size_t)1 << logn) / tile, G = tile >> k;
			size_t sh = G * (3 * ((size_t)1 << k) + 2) * 16; /* see at() in k_stages */
			unsigned bt = tile / 4 ? tile / 4 : 1;
			auto kern = dit ? k_stages<Fr, true> : k_stages<Fr, false>;
			/* Three blocks' tiles per SM need the maximum carveout and more than 48 KB per
			 * block. The limit is one bound for every pass (sh <= 1024 x 48 + 512 x 32 bytes),
			 * not this pass's sh: the attribute belongs to the kernel, which contexts on other
			 * host threads launch at the same time with their own passes' sizes (a per-pass
			 * limit let one thread lower it under another's launch: "invalid argument"). */
			CK(cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
						cudaSharedmemCarveoutMaxShared));
			CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, NTT_SMEM_MAX));
			kern<<<(unsigned)nblocks, bt, sh, g->s>>>(x, logn, lo, k, tile, tw);
			CKL();
			done += k;
		}
		return 0;
	}

	/* a, b, c (device, Montgomery) -> h (device, standard form) */
	static int hpoly_dev(zka_gpu *g, uint32_t logn, Fr *a, Fr *b, Fr *c, Fr *h, const twiddle<Fr> *tw,
			     const twiddle<Fr> *itw,
			     const Fr *cs, char *err, size_t errlen)
	{
		uint32_t n = 1u << logn;
		Fr *xs[3] = {a, b, c};
		for (int k = 0; k < 3; k++) {
			CKR(ntt_pass(g, xs[k], logn, itw, false, err, errlen));
			k_mul_table<Fr><<<nblk(n, 256), 256, 0, g->s>>>(xs[k], cs, n);
			CKL();
			CKR(ntt_pass(g, xs[k], logn, tw, true, err, errlen));
		}
		k_hfinal<Fr><<<nblk(n, 256), 256, 0, g->s>>>(a, b, c, h, n);
		CKL();
		return 0;
	}

	/* ---- MSM ---- */
	static int grow(void **p, size_t *cap, size_t need, char *err, size_t errlen)
	{
		if (*cap >= need)
			return 0;
		if (*p)
			CK(cudaFree(*p));
		*p = NULL;
		*cap = 0;
		CK(cudaMalloc(p, need));
		*cap = need;
		return 0;
	}

	static int windows(int c) { return (TR::FR_BITS + 1 + c - 1) / c; }

	/* The digit plan for window size c (see digit_plan): shared buckets narrow the windows past
	 * the first r to c - 1 bits, r the fewest c-bit windows with which W windows cover
	 * FR_BITS + 1 bits (the signed digits' carry out of the top window is then 0) */
	static digit_plan digit_plan_of(int c, bool shared)
	{
		int W = windows(c), r = TR::FR_BITS + 1 - W * (c - 1);
		return {c, W, shared ? (r < 0 ? 0 : r > W ? W : r) : W, shared ? 1 : 0};
	}

	/* windows whose sums the reduction produces: one when the buckets are shared */
	static uint32_t nwins(const zkg_msm_scratch *m) { return m->shared ? 1 : (uint32_t)m->W; }

	/* Window size for n points. Windowed: minimise W (n A + 2^(c-1) R), accumulation A per
	 * entry and reduction R per bucket, R/A ~ 7 as measured in the first version (one thread
	 * per bucket task, one-level reduction; not re-tuned since). Shared buckets: the reduction
	 * is paid once, W n A + 2^(c-1) R, and c <= 20 keeps the buckets' scratch small; both also
	 * bound the window tables (W copies of the points). */
	static int choose_c(size_t n, bool shared)
	{
		int c = 4;
		double best = 1e300;
		for (int cc = 4; cc <= 20; cc++) {
			double w = windows(cc), red = 7.0 * (double)(1u << (cc - 1));
			double cost = shared ? w * (double)n + red : w * ((double)n + red);
			if (cost < best) {
				best = cost;
				c = cc;
			}
		}
		return c;
	}

	/* Sizes the bucket work buffers of w for the scalar set prepared in p (w may be p): buckets,
	 * first and last pieces of the flat split's runs (then the reduction's plane chunks), nbig and the
	 * big-bucket list, the reduction's S, T, G and U, the ones sums and the result slots. */
	static int work_grow(zkg_msm_scratch *w, const zkg_msm_scratch *p, char *err, size_t errlen)
	{
		size_t nb = (size_t)nwins(p) * p->M, L1 = red_l1(p->M), L2 = red_l2(p->M);
		CKR(grow(&w->d_buckets, &w->bucket_bytes, nb * sizeof(G2), err, errlen));
		CKR(grow((void **)&w->d_task, &w->task_bytes, (nb + 2 + p->tmax) * sizeof(uint32_t),
			 err, errlen));
		size_t nplane = (size_t)nwins(p) * red_np(p->M) * red_nch(p->M);
		size_t npart = 2 * p->tmax > nplane ? 2 * p->tmax : nplane;
		CKR(grow(&w->d_partials, &w->partial_bytes, npart * sizeof(G2), err, errlen));
		CKR(grow(&w->d_segs, &w->seg_bytes, (2 * nb / L1 + 2 * nb / (L1 * L2)) * sizeof(G2), err, errlen));
		if (!w->d_wsum)
			CK(cudaMalloc(&w->d_wsum, 8 * WSLOT));
		if (!w->d_ones_part)
			CK(cudaMalloc(&w->d_ones_part, ONES_BLOCKS * ZKG_JAC_MAX));
		return 0;
	}

	/* Sorts the digits of n scalars (device) into buckets: c = 0 chooses the window size; shared
	 * means the points come with window tables (see digit_entries): the entries by bucket in d_vals,
	 * the buckets' starts in d_offsets (k_sort_count, k_sort_plan, k_sort_scatter, then
	 * k_chunk_count, k_chunk_base, k_chunk_place). */
	static int prepare(zka_gpu *g, zkg_msm_scratch *m, const void *d_scalars, size_t n, int c, bool shared,
			   char *err, size_t errlen)
	{
		if (!c)
			c = choose_c(n, shared);
		int W = windows(c);
		if (shared && (double)W * (double)n >= 2147483648.0) {
			zkg_errf(err, errlen, "zkg msm: %zu points x %d windows do not fit 31-bit entries", n, W);
			return -EINVAL;
		}
		uint32_t M = 1u << (c - 1);
		size_t nb = (size_t)(shared ? 1 : W) * M;
		if ((size_t)(shared ? 1 : W) * red_np(M) + 1 > WSLOT_PTS) {
			zkg_errf(err, errlen, "zkg msm: window size %d gives more reduction planes than a slot holds", c);
			return -EINVAL;
		}
		m->shared = shared;
		m->c = c;
		m->W = W;
		m->M = M;
		m->n = n;
		m->d_scalars = d_scalars;
		/* counts and offsets in one allocation */
		if (m->counts_cap < nb + 1) {
			if (m->d_counts)
				CK(cudaFree(m->d_counts));
			m->d_counts = NULL;
			m->counts_cap = 0;
			CK(cudaMalloc(&m->d_counts, 2 * (nb + 1) * sizeof(uint32_t)));
			m->counts_cap = nb + 1;
		}
		m->d_offsets = m->d_counts + m->counts_cap;
		/* the bucket sort's counters in the first half: scount, soff, cursor and cst (nsup + 1
		 * each; 4 (nb / ZKG_FINE + 2) <= nb + 1 as nb >= 8) */
		uint32_t nsup = (uint32_t)((nb + ZKG_FINE - 1) / ZKG_FINE);
		uint32_t *scount = m->d_counts, *soff = scount + nsup + 1, *cursor = soff + nsup + 1, *cst = cursor + nsup + 1;
		/* level 1: threads per block, a power of two with T W <= ZKG_SORT_ENT (W <= 64) */
		uint32_t T = 1024;
		while (T > 32 && T * (uint32_t)W > ZKG_SORT_ENT)
			T >>= 1;
		size_t sh_scatter = (2 * (size_t)(nsup + 1) + T + 1) * 4 + (size_t)T * W * 10;
		if (sh_scatter > ZKG_SORT_SMEM) {
			zkg_errf(err, errlen, "zkg msm: %zu buckets need %zu bytes of shared memory to sort (at most %d)",
				 nb, sh_scatter, ZKG_SORT_SMEM);
			return -EINVAL;
		}
		size_t ent = n * (size_t)W, nchunk = ent / ZKG_CHUNK + nsup; /* chunks: a bound */
		size_t vb = ent * sizeof(uint32_t);
		size_t vcap = m->vals_cap * sizeof(uint32_t);
		CKR(grow((void **)&m->d_vals, &vcap, vb, err, errlen));
		m->vals_cap = vcap / sizeof(uint32_t);
		CKR(grow((void **)&m->d_slots, &m->slot_bytes, vb, err, errlen));
		CKR(grow((void **)&m->d_low, &m->low_bytes, ent * sizeof(uint16_t), err, errlen));
		CKR(grow((void **)&m->d_ccnt, &m->ccnt_bytes, nchunk * ZKG_FINE * sizeof(uint32_t), err, errlen));
		/* runs of the flat split: a bound (scalars 0 and 1 have no entries) */
		m->tmax = (ent + ZKG_RUN_MIN - 1) / ZKG_RUN_MIN + 1;
		CKR(work_grow(m, m, err, errlen));

		bool prof = getenv("ZKG_PROFILE") != NULL;
		if (prof)
			CK(cudaEventRecord(g->ev[6], g->s));
		const scal *ks = (const scal *)d_scalars;
		CK(cudaMemsetAsync(scount, 0, nsup * sizeof(uint32_t), g->s));
		const digit_plan dp = digit_plan_of(c, shared);
		k_sort_count<<<nblk(n, 256), 256, nsup * sizeof(uint32_t), g->s>>>(ks, (uint32_t)n, dp, nsup, scount);
		CKL();
		k_sort_plan<<<1, 1024, 0, g->s>>>(scount, nsup, soff, cursor, cst);
		CKL();
		/* one bound for every launch (see ntt_pass on why not this launch's size) */
		CK(cudaFuncSetAttribute(k_sort_scatter, cudaFuncAttributeMaxDynamicSharedMemorySize, ZKG_SORT_SMEM));
		k_sort_scatter<<<nblk(n, T), T, sh_scatter, g->s>>>(ks, (uint32_t)n, dp, nsup, cursor, m->d_slots,
								     m->d_low);
		CKL();
		k_chunk_count<<<(unsigned)nchunk, ZKG_CHUNK_T, 0, g->s>>>(soff, cst, nsup, m->d_low, m->d_ccnt);
		CKL();
		k_chunk_base<<<nsup, ZKG_FINE, 0, g->s>>>(soff, cst, (uint32_t)nb, m->d_ccnt, m->d_offsets);
		CKL();
		CK(cudaFuncSetAttribute(k_chunk_place, cudaFuncAttributeMaxDynamicSharedMemorySize, ZKG_PLACE_SMEM));
		k_chunk_place<<<(unsigned)nchunk, ZKG_CHUNK_T, ZKG_PLACE_SMEM, g->s>>>(soff, cst, nsup, m->d_slots, m->d_low, m->d_ccnt,
									   m->d_vals);
		CKL();
		if (prof) {
			CK(cudaEventRecord(g->ev[7], g->s));
			CK(cudaEventSynchronize(g->ev[7]));
			float t;
			CK(cudaEventElapsedTime(&t, g->ev[6], g->ev[7]));
			fprintf(stderr, "zkg msm prepare n=%zu c=%d W=%d%s: digits+sort %.3f ms\n", n, c, W,
				shared ? " shared" : "", t);
		}
		return 0;
	}


	/* Window tables in place: tab holds n affine points followed by room for W-1 more copies;
	 * fills copy w with 2^(start of window w) times the points (k_precomp; the shared plan of
	 * digit_plan_of), in chunks of 2^18 points. */
	template <class F>
	static int precompute(zka_gpu *g, void *tab, size_t n, int c, char *err, size_t errlen)
	{
		const digit_plan dp = digit_plan_of(c, true);
		int W = dp.W;
		if (W < 2 || n == 0)
			return 0;
		size_t chunk = n < ((size_t)1 << 18) ? n : ((size_t)1 << 18);
		void *z = NULL, *pre = NULL;
		cudaError_t e = cudaMalloc(&z, (size_t)(W - 1) * chunk * sizeof(F));
		if (e == cudaSuccess)
			e = cudaMalloc(&pre, (size_t)(W - 1) * chunk * sizeof(F));
		for (size_t i0 = 0; e == cudaSuccess && i0 < n; i0 += chunk) {
			size_t cnt = n - i0 < chunk ? n - i0 : chunk;
			k_precomp<F><<<nblk(cnt, 128), 128, 0, g->s>>>((aff_t<F> *)tab, (uint32_t)n, (uint32_t)i0,
								       (uint32_t)cnt, dp, (F *)z, (F *)pre);
			e = cudaGetLastError();
		}
		if (e == cudaSuccess)
			e = cudaStreamSynchronize(g->s);
		cudaFree(z);
		cudaFree(pre);
		CK(e);
		return 0;
	}

	/* Entries per thread of the flat split: whole waves of resident threads (SMs x PER_SM),
	 * as few waves as keep runs near 96 entries, and never below ZKG_RUN_MIN (the pieces
	 * k_gather_runs adds grow as runs shrink). The entry count is the bound n W (0/1 scalars
	 * have none, leaving some threads idle). */
	template <class F> static uint32_t flat_run(const zka_gpu *g, const zkg_msm_scratch *m)
	{
		double entries = (double)m->n * m->W, resident = (double)g->sms * lb<F>::PER_SM;
		double waves = floor(entries / (resident * 96.0) + 0.5);
		if (waves < 1)
			waves = 1;
		uint32_t run = (uint32_t)ceil(entries / (waves * resident));
		return run < ZKG_RUN_MIN ? ZKG_RUN_MIN : run;
	}

	/* Device part of one MSM over the scalars prepared in m, with w's work buffers (sized by
	 * work_grow; w may be m), on stream st: the reduction planes (then the ones sum) go to ws. */
	template <class F>
	static int run(zka_gpu *g, const zkg_msm_scratch *m, zkg_msm_scratch *w, cudaStream_t st, const void *d_points,
		       void *ws_out, char *err, size_t errlen)
	{
		using J = jac_t<F>;
		using A = aff_t<F>;
		uint32_t nwin = nwins(m);
		size_t nb = (size_t)nwin * m->M;
		uint32_t L1 = red_l1(m->M), L2 = red_l2(m->M);
		bool prof = st == g->s && getenv("ZKG_PROFILE") != NULL; /* kernel times: one stream only */
		/* d_task: nbig, nown, the big-bucket list (nb), the owned buckets (tmax) */
		uint32_t *nbig = w->d_task, *nown = nbig + 1, *big = nbig + 2, *owners = big + nb;
		J *first = (J *)w->d_partials, *last = first + m->tmax;
		if (prof)
			CK(cudaEventRecord(g->ev[9], st));
		uint32_t run = flat_run<F>(g, m), nrun = (uint32_t)((m->n * m->W + run - 1) / run);
		if (!nrun)
			nrun = 1;
		CK(cudaMemsetAsync(nbig, 0, 2 * sizeof(uint32_t), st)); /* nbig, nown */
		/* k_flat's two point slots per thread stay within the default dynamic shared memory
		 */
		static_assert(2 * lb<F>::T * sizeof(A) <= 48 * 1024,
			      "k_flat's slots need cudaFuncSetAttribute");
		k_flat<F, typename bucket_acc<F>::type>
		    <<<nblk(nrun, lb<F>::T), lb<F>::T, 2 * lb<F>::T * sizeof(A), st>>>(
			(const A *)d_points, m->d_vals, m->d_offsets, (uint32_t)nb, run, nrun,
			(J *)w->d_buckets, first, last, nown, owners);
		CKL();
		if (prof)
			CK(cudaEventRecord(g->ev[10], st));
		/* a bound on the listed buckets: nrun (one per run at most) */
		k_gather_runs<F><<<nblk(nrun, 128), 128, 0, st>>>(
		    m->d_offsets, run, nown, owners, first, last, (J *)w->d_buckets, nbig, big);
		CKL();
		k_gather_big<F><<<264, ZKG_SUM_T, ZKG_SUM_T * sizeof(J), st>>>(m->d_offsets, run, first, last,
										    (J *)w->d_buckets, nbig, big);
		CKL();
		if (prof)
			CK(cudaEventRecord(g->ev[11], st));
		uint32_t nseg = (uint32_t)(nb / L1), ngrp = nseg / L2, per = red_per(m->M);
		uint32_t np = red_np(m->M), nch = red_nch(m->M);
		J *S = (J *)w->d_segs, *T = S + nseg, *Gs = T + nseg, *U = Gs + ngrp;
		k_red1<F><<<nblk(nseg, 128), 128, 0, st>>>((const J *)w->d_buckets, m->d_offsets,
							   L1, nseg, S, T);
		CKL();
		size_t sh_sum = ZKG_SUM_T * sizeof(J);
		/* level 2, then ONES_BLOCKS blocks of the ones' sum (as many threads: ZKG_SUM_T) */
		static_assert(ZKG_SUM_T == 128, "k_red2's blocks are ones_block's");
		uint32_t nred = nblk((size_t)ngrp * red2_lanes<F>(), 128);
		k_red2<F><<<nred + ONES_BLOCKS, 128, sh_sum, st>>>(
		    S, T, L1, L2, ngrp, Gs, U, nred, (const A *)d_points,
		    (const scal *)m->d_scalars, (uint32_t)m->n, (J *)w->d_ones_part);
		CKL();
		J *ws = (J *)ws_out;
		if (prof)
			CK(cudaEventRecord(g->ev[12], st));
		/* the flat split's pieces are consumed: d_partials holds the plane chunks */
		k_planes<F><<<nwin * np * nch, ZKG_SUM_T, sh_sum, st>>>(Gs, U, per, np, nch, (J *)w->d_partials);
		CKL();
		/* level 4: 64 threads per plane (nch <= 128 chunk sums) */
		k_sum<F><<<nwin * np, 64, 64 * sizeof(J), st>>>((const J *)w->d_partials, nch, ws);
		CKL();
		if (prof)
			CK(cudaEventRecord(g->ev[13], st));
		/* the ones' sum goes right after the planes of the slot */
		k_sum<F><<<1, ZKG_SUM_T, sh_sum, st>>>((const J *)w->d_ones_part, ONES_BLOCKS,
						       ws + (size_t)nwin * np);
		CKL();
		if (prof) {
			CK(cudaEventRecord(g->ev[14], st));
			CK(cudaEventSynchronize(g->ev[14]));
			float t[5];
			for (int i = 0; i < 5; i++)
				CK(cudaEventElapsedTime(&t[i], g->ev[9 + i], g->ev[10 + i]));
			fprintf(stderr,
				"zkg msm %s n=%zu c=%d W=%d: flat %.3f gather %.3f reduce+ones "
				"%.3f sum %.3f ones-sum %.3f ms\n",
				sizeof(F) == sizeof(Fq) ? "G1" : "G2", m->n, m->c, m->W, t[0], t[1],
				t[2], t[3], t[4]);
		}
		return 0;
	}

	/* the planes of the slot of m (already on the host) -> Jacobian result */
	static void combine(int g2, const void *hslot, const zkg_msm_scratch *m, void *out)
	{
		size_t js = g2 ? sizeof(G2) : sizeof(G1);
		uint32_t W = nwins(m), np = red_np(m->M), sh = (uint32_t)__builtin_ctz(red_l1(m->M) * red_l2(m->M));
		zkg_host_combine(CURVE, g2, hslot, (int)W, m->c, (int)np, (int)sh, (const char *)hslot + W * np * js,
				 out);
	}

	static int msm(zka_gpu *g, int g2, const void *points, const uint64_t (*k)[4], size_t n, void *out,
		       double *dev_s, char *err, size_t errlen)
	{
		/* the context's H scratch (a context serves one thread at a time): sized by the first
		 * call and kept, as in proofs, so that a second MSM's time (the benchmark's msm1) is the
		 * MSM's and not cudaMalloc's; freed with the context */
		zkg_msm_scratch *m = &g->ms[4];
		size_t ab = g2 ? sizeof(G2A) : sizeof(G1A);
		void *d_p = NULL, *d_k = NULL;
		int rc = msm_inner(g, m, g2, points, k, n, out, dev_s, &d_p, &d_k, ab, err, errlen);
		cudaFree(d_p);
		cudaFree(d_k);
		return rc;
	}
	static int msm_inner(zka_gpu *g, zkg_msm_scratch *m, int g2, const void *points, const uint64_t (*k)[4],
			     size_t n, void *out, double *dev_s, void **d_p, void **d_k, size_t ab, char *err,
			     size_t errlen)
	{
		if (n == 0) {
			memset(out, 0, ab);
			return 0;
		}
		bool pc = !g->no_precomp;
		int c = choose_c(n, pc);
		size_t copies = pc ? windows(c) : 1;
		CK(cudaMalloc(d_p, copies * n * ab));
		CK(cudaMalloc(d_k, n * 32));
		CK(cudaMemcpyAsync(*d_p, points, n * ab, cudaMemcpyHostToDevice, g->s));
		CK(cudaMemcpyAsync(*d_k, k, n * 32, cudaMemcpyHostToDevice, g->s));
		if (pc) {
			if (g2)
				CKR(precompute<Fq2>(g, *d_p, n, c, err, errlen));
			else
				CKR(precompute<Fq>(g, *d_p, n, c, err, errlen));
		}
		/* timed: from the inputs on the device to the affine result on the host */
		double t0 = 0;
		if (dev_s) {
			CK(cudaStreamSynchronize(g->s));
			t0 = now_s();
		}
		CKR(prepare(g, m, *d_k, n, c, pc, err, errlen));
		if (g2)
			CKR(run<Fq2>(g, m, m, g->s, *d_p, m->d_wsum, err, errlen));
		else
			CKR(run<Fq>(g, m, m, g->s, *d_p, m->d_wsum, err, errlen));
		uint8_t *hs = (uint8_t *)g->h_slots;
		CK(cudaMemcpyAsync(hs, m->d_wsum, WSLOT, cudaMemcpyDeviceToHost, g->s));
		CK(cudaStreamSynchronize(g->s));
		uint8_t jac[sizeof(G2)];
		combine(g2, hs, m, jac);
		zkg_host_to_aff(CURVE, g2, jac, out);
		if (dev_s)
			*dev_s = now_s() - t0;
		return 0;
	}

	/* ---- key and prover ---- */
	/* device memory for the key's five point sets, W copies each (window tables); on failure
	 * the sets allocated so far are freed and the runtime's error returned */
	static cudaError_t alloc_sets(zka_gpu_key *k, size_t Wv, size_t Wh)
	{
		size_t g1 = sizeof(G1A), g2 = sizeof(G2A), nv = k->n_vars, nd = k->domain;
		void **p[5] = {&k->d_A, &k->d_B1, &k->d_B2, &k->d_C, &k->d_H};
		size_t bytes[5] = {Wv * nv * g1, Wv * nv * g1, Wv * nv * g2, Wv * nv * g1, Wh * nd * g1};
		for (int i = 0; i < 5; i++) {
			cudaError_t e = cudaMalloc(p[i], bytes[i]);
			if (e != cudaSuccess) {
				(void)cudaGetLastError(); /* an allocation error is not sticky: clear it */
				free_sets(k);
				return e;
			}
		}
		return cudaSuccess;
	}
	static void free_sets(zka_gpu_key *k)
	{
		void **p[5] = {&k->d_A, &k->d_B1, &k->d_B2, &k->d_C, &k->d_H};
		for (int i = 0; i < 5; i++) {
			cudaFree(*p[i]); /* a pointer from a successful cudaMalloc, or NULL */
			*p[i] = NULL;
		}
	}

	static int key_load(zka_gpu *g, const zka_pk *pk, zka_gpu_key *k, char *err, size_t errlen)
	{
		size_t g1 = sizeof(G1A), g2 = sizeof(G2A), nv = pk->n_vars, nd = pk->domain_size;
		if (pk->domain_size < 2 || (pk->domain_size & (pk->domain_size - 1)) ||
		    pk->n_public + 1 > pk->n_vars) {
			zkg_errf(err, errlen, "zka_gpu_key_load: bad key shape (domain %u, n_vars %u, n_public %u)",
				 pk->domain_size, pk->n_vars, pk->n_public);
			return -EINVAL;
		}
		/* Window tables (shared buckets) when they fit in 70% of the free device memory */
		int cv = choose_c(nv, true), ch = choose_c(nd, true);
		size_t Wv = windows(cv), Wh = windows(ch);
		double tab = (double)Wv * nv * (3 * g1 + g2) + (double)Wh * nd * g1;
		size_t fr = 0, tot = 0;
		CK(cudaMemGetInfo(&fr, &tot));
		const double GiB = 1073741824.0;
		if (g->no_precomp) {
			k->pc = 0;
			snprintf(k->mode, sizeof k->mode, "windowed MSM (window tables turned off by the caller)");
		} else if (tab > 0.7 * (double)fr || (double)Wv * nv >= 2147483648.0 || (double)Wh * nd >= 2147483648.0) {
			k->pc = 0;
			snprintf(k->mode, sizeof k->mode,
				 "windowed MSM: window tables need %.1f GiB, more than 70%% of the %.1f GiB free; "
				 "the shared-bucket path is OFF for this key",
				 tab / GiB, fr / GiB);
		} else {
			k->pc = 1;
			k->c_v = cv;
			k->c_h = ch;
			snprintf(k->mode, sizeof k->mode,
				 "shared-bucket MSM with window tables (c = %d / %d, %zu / %zu copies, %.2f GiB)", cv, ch,
				 Wv, Wh, tab / GiB);
		}
		if (!k->pc)
			Wv = Wh = 1;
		cudaError_t ae = alloc_sets(k, Wv, Wh);
		if (k->pc && ae == cudaSuccess && getenv("ZKG_FAIL_TABLE_ALLOC")) /* test hook (gpu_test) */
			ae = cudaErrorMemoryAllocation;
		if (k->pc && ae == cudaErrorMemoryAllocation) {
			/* the memory went to someone else between cudaMemGetInfo and here: keep the key
			 * on the windowed path rather than fail it, and say so in the mode line */
			free_sets(k);
			k->pc = 0;
			Wv = Wh = 1;
			snprintf(k->mode, sizeof k->mode,
				 "windowed MSM: allocating the window tables (%.1f GiB of %.1f GiB free) failed: "
				 "out of device memory; the shared-bucket path is OFF for this key",
				 tab / GiB, fr / GiB);
			ae = alloc_sets(k, Wv, Wh);
		}
		CK(ae);
		CK(cudaMemcpyAsync(k->d_A, pk->A, nv * g1, cudaMemcpyHostToDevice, g->s));
		CK(cudaMemcpyAsync(k->d_B1, pk->B1, nv * g1, cudaMemcpyHostToDevice, g->s));
		CK(cudaMemcpyAsync(k->d_B2, pk->B2, nv * g2, cudaMemcpyHostToDevice, g->s));
		size_t pre = (size_t)pk->n_public + 1;
		CK(cudaMemsetAsync(k->d_C, 0, pre * g1, g->s));
		if (nv > pre)
			CK(cudaMemcpyAsync((char *)k->d_C + pre * g1, pk->C, (nv - pre) * g1, cudaMemcpyHostToDevice, g->s));
		CK(cudaMemcpyAsync(k->d_H, pk->H, nd * g1, cudaMemcpyHostToDevice, g->s));
		if (k->pc) {
			CKR(precompute<Fq>(g, k->d_A, nv, cv, err, errlen));
			CKR(precompute<Fq>(g, k->d_B1, nv, cv, err, errlen));
			CKR(precompute<Fq>(g, k->d_C, nv, cv, err, errlen));
			CKR(precompute<Fq2>(g, k->d_B2, nv, cv, err, errlen));
			CKR(precompute<Fq>(g, k->d_H, nd, ch, err, errlen));
		}
		CKR(tables(g, pk->log_domain, &k->d_tw, &k->d_itw, &k->d_cs, err, errlen));
		CK(cudaStreamSynchronize(g->s));
		return 0;
	}

	static int prove(zka_gpu *g, zka_gpu_key *k, const uint64_t (*a)[4], const uint64_t (*b)[4],
			 const uint64_t (*c)[4], const uint64_t (*w)[4], const zka_rs *rs, zka_proof *proof,
			 char *err, size_t errlen)
	{
		double t0 = now_s();
		size_t nd = k->domain, nv = k->n_vars;
		cudaEvent_t *ev = g->ev;
		if (g->nd_cap < nd || g->nv_cap < nv) { /* this context's proof buffers */
			void **bufs[] = {&g->d_a, &g->d_b, &g->d_c, &g->d_h, &g->d_w};
			for (int i = 0; i < 5; i++) {
				CK(cudaFree(*bufs[i]));
				*bufs[i] = NULL;
			}
			g->nd_cap = g->nv_cap = 0;
			for (int i = 0; i < 5; i++)
				CK(cudaMalloc(bufs[i], (i < 4 ? nd : nv) * sizeof(Fr)));
			g->nd_cap = nd;
			g->nv_cap = nv;
		}
		/* Stream s0 (the context's): the witness, its digits, then a, b, c, the H polynomial,
		 * its digits and the H MSM. Streams ls[0..3]: the A, B1, C and B2 MSMs, started as soon
		 * as the witness digits are sorted, so that they overlap the NTT, one another's
		 * latency-bound reductions and the tails of their bucket loops. */
		cudaStream_t s0 = g->s;
		zkg_msm_scratch *mw = &g->ms[0], *mh = &g->ms[4];
		CK(cudaEventRecord(ev[0], s0));
		CK(cudaMemcpyAsync(g->d_w, w, nv * 32, cudaMemcpyHostToDevice, s0));
		CK(cudaEventRecord(ev[15], s0));
		CKR(prepare(g, mw, g->d_w, nv, k->pc ? k->c_v : 0, k->pc, err, errlen));
		CK(cudaEventRecord(ev[1], s0));
		char *wsum = (char *)mw->d_wsum; /* slots: A, B1, C, B2, H */
		uint8_t *hs = (uint8_t *)g->h_slots; /* pinned: the copies below do not block the host */
		const void *pts[4] = {k->d_A, k->d_B1, k->d_C, k->d_B2};
		for (int i = 0; i < 4; i++) {
			cudaStream_t st = g->ls[i];
			CKR(work_grow(&g->ms[i], mw, err, errlen));
			CK(cudaStreamWaitEvent(st, ev[1], 0)); /* orders the witness digits before lane i */
			CK(cudaEventRecord(g->lev[2 * i], st));
			if (i < 3)
				CKR(run<Fq>(g, mw, &g->ms[i], st, pts[i], wsum + i * WSLOT, err, errlen));
			else
				CKR(run<Fq2>(g, mw, &g->ms[i], st, pts[i], wsum + i * WSLOT, err, errlen));
			CK(cudaMemcpyAsync(hs + i * WSLOT, wsum + i * WSLOT, WSLOT, cudaMemcpyDeviceToHost, st));
			CK(cudaEventRecord(g->lev[2 * i + 1], st)); /* lane i's result is on the host */
		}
		CK(cudaMemcpyAsync(g->d_a, a, nd * 32, cudaMemcpyHostToDevice, s0));
		CK(cudaMemcpyAsync(g->d_b, b, nd * 32, cudaMemcpyHostToDevice, s0));
		CK(cudaMemcpyAsync(g->d_c, c, nd * 32, cudaMemcpyHostToDevice, s0));
		CK(cudaEventRecord(ev[2], s0));
		CKR(hpoly_dev(g, k->logn, (Fr *)g->d_a, (Fr *)g->d_b, (Fr *)g->d_c, (Fr *)g->d_h,
			      (const twiddle<Fr> *)k->d_tw, (const twiddle<Fr> *)k->d_itw, (const Fr *)k->d_cs, err, errlen));
		CK(cudaEventRecord(ev[3], s0));
		CKR(prepare(g, mh, g->d_h, nd, k->pc ? k->c_h : 0, k->pc, err, errlen));
		CKR(run<Fq>(g, mh, mh, s0, k->d_H, wsum + 4 * WSLOT, err, errlen));
		CK(cudaEventRecord(ev[4], s0));
		CK(cudaMemcpyAsync(hs + 4 * WSLOT, wsum + 4 * WSLOT, WSLOT, cudaMemcpyDeviceToHost, s0));
		for (int i = 0; i < 4; i++)
			CK(cudaStreamWaitEvent(s0, g->lev[2 * i + 1], 0)); /* s0's end implies every lane's */
		/* While the device works: the r, s multiples of delta, then each lane's planes as soon
		 * as they arrive (the H MSM, behind the NTT, usually ends last). */
		alignas(16) uint8_t pre[ZKG_PRE_BYTES];
		zkg_host_pre(&k->pk, rs, pre);
		uint8_t jA[sizeof(G1)], jB1[sizeof(G1)], jC[sizeof(G1)], jH[sizeof(G1)], jB2[sizeof(G2)];
		uint8_t *jl[4] = {jA, jB1, jC, jB2};
		for (int i = 0; i < 4; i++) {
			CK(cudaEventSynchronize(g->lev[2 * i + 1]));
			combine(i == 3, hs + i * WSLOT, mw, jl[i]);
		}
		CK(cudaStreamSynchronize(s0));
		double t1 = now_s();
		combine(0, hs + 4 * WSLOT, mh, jH);
		double t2 = now_s();
		zkg_host_finish(&k->pk, jA, jB1, jB2, jC, jH, rs, pre, proof);
		double t3 = now_s();
		/* device intervals (they overlap): h2d = the copies; ntt = the H polynomial; msm_g1 =
		 * from the witness digits to the last of A, B1, C and H, plus the host's combination of
		 * H's planes (the lanes' are combined while the device works); msm_g2 = the B2 lane */
		float cw0, cabc, cntt, g1a, g1b, g2;
		CK(cudaEventElapsedTime(&cw0, ev[0], ev[15]));
		CK(cudaEventElapsedTime(&cabc, ev[1], ev[2]));
		CK(cudaEventElapsedTime(&cntt, ev[2], ev[3]));
		CK(cudaEventElapsedTime(&g1a, ev[1], ev[4]));
		CK(cudaEventElapsedTime(&g2, g->lev[6], g->lev[7]));
		float g1max = g1a;
		for (int i = 0; i < 3; i++) {
			CK(cudaEventElapsedTime(&g1b, ev[1], g->lev[2 * i + 1]));
			g1max = g1b > g1max ? g1b : g1max;
		}
		zka_gpu_times *t = &g->last;
		t->h2d = (cw0 + cabc) * 1e-3;
		t->ntt = cntt * 1e-3;
		t->msm_g1 = g1max * 1e-3 + (t2 - t1);
		t->msm_g2 = g2 * 1e-3;
		t->finish = t3 - t2;
		t->total = t3 - t0;
		return 0;
	}

	/* ---- building blocks for tests and benchmarks ---- */
	static int ntt(zka_gpu *g, uint32_t logn, uint64_t (*x)[4], int inverse, double *dev_s, char *err,
		       size_t errlen)
	{
		void *d[3] = {NULL, NULL, NULL};
		int rc = ntt_inner(g, logn, x, inverse, dev_s, d, err, errlen);
		for (int i = 0; i < 3; i++)
			cudaFree(d[i]);
		return rc;
	}
	static int ntt_inner(zka_gpu *g, uint32_t logn, uint64_t (*x)[4], int inverse, double *dev_s, void **d,
			     char *err, size_t errlen)
	{
		if (logn < 1 || logn > 28) {
			zkg_errf(err, errlen, "zka_gpu_ntt: logn %u out of range", logn);
			return -EINVAL;
		}
		size_t n = (size_t)1 << logn;
		CK(cudaMalloc(&d[0], n * 32));
		CKR(tables(g, (uint32_t)logn, &d[1], &d[2], NULL, err, errlen));
		CK(cudaMemcpyAsync(d[0], x, n * 32, cudaMemcpyHostToDevice, g->s));
		CK(cudaEventRecord(g->ev[0], g->s));
		CKR(ntt_pass(g, (Fr *)d[0], logn, (const twiddle<Fr> *)(inverse ? d[2] : d[1]), false, err, errlen));
		CK(cudaEventRecord(g->ev[1], g->s));
		k_bitrev<Fr><<<nblk(n, 256), 256, 0, g->s>>>((Fr *)d[0], logn);
		CKL();
		if (inverse) {
			zkg_roots r;
			zkg_host_roots(CURVE, logn, &r);
			k_mul_const<Fr><<<nblk(n, 256), 256, 0, g->s>>>((Fr *)d[0], (uint32_t)n, mk1(r.ninv));
			CKL();
		}
		CK(cudaMemcpyAsync(x, d[0], n * 32, cudaMemcpyDeviceToHost, g->s));
		CK(cudaStreamSynchronize(g->s));
		if (dev_s) {
			float ms;
			CK(cudaEventElapsedTime(&ms, g->ev[0], g->ev[1]));
			*dev_s = ms * 1e-3;
		}
		return 0;
	}

	static int hpoly(zka_gpu *g, uint32_t logn, const uint64_t (*a)[4], const uint64_t (*b)[4],
			 const uint64_t (*c)[4], uint64_t (*h)[4], char *err, size_t errlen)
	{
		void *d[7] = {0};
		int rc = hpoly_inner(g, logn, a, b, c, h, d, err, errlen);
		for (int i = 0; i < 7; i++)
			cudaFree(d[i]);
		return rc;
	}
	static int hpoly_inner(zka_gpu *g, uint32_t logn, const uint64_t (*a)[4], const uint64_t (*b)[4],
			       const uint64_t (*c)[4], uint64_t (*h)[4], void **d, char *err, size_t errlen)
	{
		if (logn < 1 || logn > 28) {
			zkg_errf(err, errlen, "zka_gpu_h: logn %u out of range", logn);
			return -EINVAL;
		}
		size_t n = (size_t)1 << logn;
		for (int i = 0; i < 4; i++)
			CK(cudaMalloc(&d[i], n * 32));
		CKR(tables(g, logn, &d[4], &d[5], &d[6], err, errlen));
		CK(cudaMemcpyAsync(d[0], a, n * 32, cudaMemcpyHostToDevice, g->s));
		CK(cudaMemcpyAsync(d[1], b, n * 32, cudaMemcpyHostToDevice, g->s));
		CK(cudaMemcpyAsync(d[2], c, n * 32, cudaMemcpyHostToDevice, g->s));
		CKR(hpoly_dev(g, logn, (Fr *)d[0], (Fr *)d[1], (Fr *)d[2], (Fr *)d[3], (const twiddle<Fr> *)d[4],
			      (const twiddle<Fr> *)d[5], (const Fr *)d[6], err, errlen));
		CK(cudaMemcpyAsync(h, d[3], n * 32, cudaMemcpyDeviceToHost, g->s));
		CK(cudaStreamSynchronize(g->s));
		return 0;
	}

	static int field_op(zka_gpu *g, int field, int op, const void *a, const void *b, void *out, size_t n,
			    char *err, size_t errlen)
	{
		size_t es = field == 0 ? sizeof(Fr) : field == 1 ? sizeof(Fq) : sizeof(Fq2);
		void *d[3] = {0};
		int rc = 0;
		do {
			cudaError_t e;
			if ((e = cudaMalloc(&d[0], n * es)) || (e = cudaMalloc(&d[1], n * es)) ||
			    (e = cudaMalloc(&d[2], n * es)) ||
			    (e = cudaMemcpy(d[0], a, n * es, cudaMemcpyHostToDevice)) ||
			    (e = cudaMemcpy(d[1], b, n * es, cudaMemcpyHostToDevice))) {
				zkg_errf(err, errlen, "%s:%d: %s", __FILE__, __LINE__, cudaGetErrorString(e));
				rc = -EIO;
				break;
			}
			unsigned nbk = nblk(n, 128);
			if (op == 6 && field == 0)
				k_shoup<typename TR::FrP><<<nbk, 128>>>((const Fr *)d[0], (const Fr *)d[1], (Fr *)d[2], n);
			else if (op == 6) {
				zkg_errf(err, errlen, "zka_gpu_field_op: op 6 (Shoup product) is for Fr only");
				rc = -EINVAL;
				break;
			} else if ((op == 7 && field == 2) || (op == 8 && field != 1)) {
				zkg_errf(err, errlen, "zka_gpu_field_op: op %d is for %s only", op,
					 op == 7 ? "Fr and Fq" : "Fq");
				rc = -EINVAL;
				break;
			} else if (op == 5) {
				if (field == 0)
					k_from_mont<typename TR::FrP><<<nbk, 128>>>((const Fr *)d[0], (Fr *)d[2], n);
				else
					k_from_mont<typename TR::FqP><<<nbk, 128>>>((const Fq *)d[0], (Fq *)d[2], n);
			} else if (field == 0)
				k_fop<Fr><<<nbk, 128>>>(op, (const Fr *)d[0], (const Fr *)d[1], (Fr *)d[2], n);
			else if (field == 1)
				k_fop<Fq><<<nbk, 128>>>(op, (const Fq *)d[0], (const Fq *)d[1], (Fq *)d[2], n);
			else
				k_fop<Fq2><<<nbk, 128>>>(op, (const Fq2 *)d[0], (const Fq2 *)d[1], (Fq2 *)d[2], n);
			if ((e = cudaGetLastError()) || (e = cudaMemcpy(out, d[2], n * es, cudaMemcpyDeviceToHost))) {
				zkg_errf(err, errlen, "%s:%d: %s", __FILE__, __LINE__, cudaGetErrorString(e));
				rc = -EIO;
			}
		} while (0);
		for (int i = 0; i < 3; i++)
			cudaFree(d[i]);
		return rc;
	}

	static int fixed_base(zka_gpu *g, int g2, const void *base, const uint64_t (*k)[4], size_t n, void *out,
			      char *err, size_t errlen)
	{
		void *d[3] = {0};
		int rc = fixed_inner(g, g2, base, k, n, out, d, err, errlen);
		for (int i = 0; i < 3; i++)
			cudaFree(d[i]);
		return rc;
	}
	static int fixed_inner(zka_gpu *g, int g2, const void *base, const uint64_t (*k)[4], size_t n, void *out,
			       void **d, char *err, size_t errlen)
	{
		size_t ab = g2 ? sizeof(G2A) : sizeof(G1A);
		void *tab = malloc(256 * 32 * ab);
		if (!tab) {
			zkg_errf(err, errlen, "zka_gpu_fixed_base: out of host memory");
			return -ENOMEM;
		}
		zkg_host_fb_table(CURVE, g2, base, tab);
		cudaError_t e = cudaMalloc(&d[0], 256 * 32 * ab);
		if (e == cudaSuccess)
			e = cudaMemcpy(d[0], tab, 256 * 32 * ab, cudaMemcpyHostToDevice);
		free(tab);
		CK(e);
		size_t chunk = (size_t)1 << 22;
		CK(cudaMalloc(&d[1], chunk * 32));
		CK(cudaMalloc(&d[2], chunk * ab));
		for (size_t off = 0; off < n; off += chunk) {
			size_t m = n - off < chunk ? n - off : chunk;
			CK(cudaMemcpyAsync(d[1], k + off, m * 32, cudaMemcpyHostToDevice, g->s));
			if (g2)
				k_fixed<Fq2><<<nblk(m, 128), 128, 0, g->s>>>((const G2A *)d[0], (const scal *)d[1],
									      (uint32_t)m, (G2A *)d[2]);
			else
				k_fixed<Fq><<<nblk(m, 128), 128, 0, g->s>>>((const G1A *)d[0], (const scal *)d[1],
									     (uint32_t)m, (G1A *)d[2]);
			CKL();
			CK(cudaMemcpyAsync((char *)out + off * ab, d[2], m * ab, cudaMemcpyDeviceToHost, g->s));
			CK(cudaStreamSynchronize(g->s));
		}
		return 0;
	}
};

} // namespace zkg

#define ZKG_DEFINE_OPS(NAME, TR)                                                                       \
	const struct zkg_ops NAME = {                                                                  \
		zkg::eng<TR>::key_load, zkg::eng<TR>::prove,    zkg::eng<TR>::msm,                     \
		zkg::eng<TR>::ntt,      zkg::eng<TR>::hpoly,    zkg::eng<TR>::field_op,                \
		zkg::eng<TR>::fixed_base,                                                              \
	};
