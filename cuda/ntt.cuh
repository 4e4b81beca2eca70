/* ntt.cuh - the number-theoretic transform over Fr and the H polynomial's pointwise kernels.
 * Computes: twiddle tables (k_powers, as Shoup pairs) and coset factors (k_coset); radix-2
 * DIF/DIT stages in passes of up to 8 stages held in shared memory (k_stages); the pointwise
 * products, c = a b when the host sends no c, and the final h = (a b - c) (k_mul_table,
 * k_mul_const, k_bitrev, k_hadamard, k_hfinal), or for a monomial-H key a b - c and, after its
 * inverse transform, the coefficients' shift (k_hdiff, k_hmono).
 * Speed: memory-bound: each pass reads and writes the whole vector once (log2(n) / 8 passes),
 * so the time is ~passes x 2 x n x 32 bytes over HBM bandwidth; the modular products (Shoup
 * multiplication by the twiddles) are hidden behind the loads when a tile fills the SM. */
#pragma once
#include "cuda/engine_common.cuh"

namespace zkg
{

/* ---------------- NTT ---------------- */

/* An NTT twiddle as Shoup's multiplier pair (field.cuh mul_shoup): w in standard form and
 * q = floor(w 2^256 / p), 64 bytes. A Shoup product takes 99 word products and 16 low halves
 * (86 and 14 for BLS12-381's r) where a Montgomery product takes 128 and 8 (most of the pass
 * kernel's issue slots go to products), for twice the table bytes (n/2 pairs per direction). */
template <class Fr> struct twiddle {
	Fr w, q;
	static ZG_DEV twiddle load(const twiddle *p)
	{
		return {Fr::load(&p->w), Fr::load(&p->q)};
	}
	/* x w for x < 2p in Montgomery form: the Montgomery form of x's value times w's */
	ZG_DEV Fr mul(const Fr &x) const
	{
		return Fr::mul_shoup(x, w, q);
	}
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
 * (u, v) -> (u + v, (u - v) w^j); DIT (bit-reversed in, natural out): (u, v w^j) -> (u + v', u -
 * v'). Several stages per pass in shared memory: stages lo .. lo+k-1 (DIT ascending, DIF
 * descending). A group is the 2^k elements base + t 2^lo (t < 2^k) that those stages mix; a block
 * holds tile/2^k groups with consecutive g, so that loads with the group index fastest are
 * coalesced (when lo = 0 the groups are contiguous and t is fastest instead). Two stages per step
 * in registers: a radix-4 unit x0..x3 = t, t + 2^a, t + 2^(a+1), t + 3 2^a (t with bits a and a+1
 * clear) goes through stage a ((x0, x1), (x2, x3), one twiddle) and stage a+1 ((x0, x2), (x1, x3)),
 * in the other order for DIF; an odd last stage is a radix-2 step. Blocks of tile/4 threads (at
 * least 1), one unit (or two butterflies) per thread per step. Measured on the H200 at 2^24 (BN254
 * / BLS12-381): one radix-2 stage per step, two 512-thread blocks per SM, 5.13 / 5.33 ms; radix-4
 * steps at 2, 3 and 4 blocks of 256 per SM (128, 85, 64 registers) 4.88 / 5.02, 4.46 / 4.70
 * and 4.57 / 4.80 ms with Montgomery twiddle products. With Shoup's (two 8-limb twiddles more live
 * per unit; 2026-12-01, bench gpu, medians of 5, one call): three blocks (80 registers, 28-112
 * bytes spilled) 4.14-4.16 / 4.48-4.50 ms, two blocks (no spills) 4.13 / 4.21 ms, against 4.25
 * / 4.57 for the Montgomery kernel at three. ncu (clocks locked, BN254, three blocks): instructions
 * -14%, FMA-heavy pipe 78-81% -> 66-70% busy, long scoreboard stalls 2.2 -> 4.3 cycles per issue
 * (twiddle loads and spills). With -r's limbs 0 and 2^32 - 1 folded (field.cuh row_lo_np; two
 * calls, medians of 5): two blocks 4.12 / 4.14- 4.17 ms, three (24-56 bytes spilled) 4.13-4.15
 * / 4.09-4.10. Then smaller blocks (one call, two runs each): tiles of 512 elements (128 threads;
 * at 8 stages a pass two groups per block, 64-byte runs per row in the strided passes) at six
 * blocks per SM (80 registers) 3.92- 3.93 / 3.85 ms, at five (102 registers) 3.83-3.84 / 3.82-3.83
 * ms; tiles of 256 at twelve 4.07 / 3.96-3.97; tiles of 1024 at three 4.15 / 4.09-4.11. About as
 * many warps per SM (20 at five blocks, 24 at six, against 24), but a barrier waits for 4 warps
 * instead of 8. */
#ifndef ZKG_NTT_BLOCKS_PER_SM
#define ZKG_NTT_BLOCKS_PER_SM 5 /* -DZKG_NTT_BLOCKS_PER_SM=N builds another for A/B runs */
#endif
#ifndef ZKG_NTT_TILE
#define ZKG_NTT_TILE 512 /* elements per block (tile/4 threads); a power of two >= 256 */
#endif
template <class Fr, bool DIT>
__global__ void __launch_bounds__(ZKG_NTT_TILE / 4, ZKG_NTT_BLOCKS_PER_SM)
    k_stages(Fr *x, uint32_t logn, uint32_t lo, uint32_t k, uint32_t tile, const twiddle<Fr> *tw)
{
	extern __shared__ uint4 smem_raw[];
	const uint32_t T = 1u << k, G = tile >> k, lomask = (1u << lo) - 1;
	/* element t of group gl: elements 48 bytes apart and rows 32 bytes off the bank pattern, so
	 * that eight consecutive 16-byte accesses (a quarter warp) hit distinct banks both along a
	 * row and across the four rows of the strided passes (A/B with the radix-2 kernel at 2^24:
	 * BLS12-381 5.54 -> 5.33 ms, BN254 5.98 -> 5.13 ms) */
	auto at = [&](uint32_t gl, uint32_t t) {
		return (void *)&smem_raw[gl * (3 * T + 2) + 3 * t];
	};
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
	/* twiddle of local stage lml for in-group offset jl (< 2^lml) of a group with global index
	 * g */
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
		uint32_t a =
		    DIT ? done : k - done - (pair ? 2 : 1); /* the lower stage of the step */
		/* Global stages 0 and 1 (the first step of a DIT transform, the last of a DIF one):
		 * every twiddle is 1 except w_4 = w^(n/4) for x3 in stage 1, so the step needs one
		 * product per unit instead of four: 3n/4 of a transform's (n/2) log n products
		 * (6% at 2^24). The test is uniform over the block, so no warp diverges on it (the
		 * per-butterfly test for twiddle 1 tried before measured no gain). */
		if (lo == 0 && a == 0) {
			const twiddle<Fr> w4 =
			    twiddle<Fr>::load(pair ? &tw[(size_t)1 << (logn - 2)] : tw);
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
				uint32_t gl = ub >> (k - 2), u = ub & ((T >> 2) - 1),
					 g = blockIdx.x * G + gl;
				uint32_t r = u & ((1u << a) - 1), t = ((u >> a) << (a + 2)) | r,
					 m = 1u << a;
				Fr x0 = Fr::load(at(gl, t)), x1 = Fr::load(at(gl, t + m));
				Fr x2 = Fr::load(at(gl, t + 2 * m)),
				   x3 = Fr::load(at(gl, t + 3 * m));
				const twiddle<Fr> wa = twid(g, a, r), wb0 = twid(g, a + 1, r),
						  wb1 = twid(g, a + 1, r + m);
				if (DIT) { /* stage a: (x0, x1), (x2, x3); stage a+1: (x0, x2), (x1,
					      x3) */
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
				uint32_t gl = bf >> (k - 1), tb = bf & ((T >> 1) - 1),
					 g = blockIdx.x * G + gl;
				uint32_t jl = tb & ((1u << a) - 1),
					 t0 = ((tb >> a) << (a + 1)) + jl, t1 = t0 + (1u << a);
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

/* c = a .* b (Montgomery), for a caller that sends a and b only */
template <class Fr> __global__ void k_hadamard(const Fr *a, const Fr *b, Fr *c, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		(Fr::load(&a[i]) * Fr::load(&b[i])).store(&c[i]);
}

/* a, b (standard form) to Montgomery form in place (products with r2 = R^2 mod r in Montgomery
 * form), then c = a .* b: a slot's a and b (synth/pipe.h) */
template <class Fr> __global__ void k_hadamard_std(Fr *a, Fr *b, Fr *c, uint32_t n, seeds r2)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		Fr k = seed<Fr>(r2, 0), x = Fr::load(&a[i]) * k, y = Fr::load(&b[i]) * k;
		x.store(&a[i]);
		y.store(&b[i]);
		(x * y).store(&c[i]);
	}
}

/* h = (a b - c) out of Montgomery form */
template <class Fr>
__global__ void k_hfinal(const Fr *a, const Fr *b, const Fr *c, Fr *h, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		(Fr::load(&a[i]) * Fr::load(&b[i]) - Fr::load(&c[i])).from_mont().store(&h[i]);
}

/* The monomial H's evaluations: h = a b - c, kept in Montgomery form (the input of k_hmono's
 * inverse transform). Guarantees h[i] for every i < n; h may be a, b or c. */
template <class Fr>
__global__ void k_hdiff(const Fr *a, const Fr *b, const Fr *c, Fr *h, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		(Fr::load(&a[i]) * Fr::load(&b[i]) - Fr::load(&c[i])).store(&h[i]);
}

/* The monomial H's last step, in place on x, the bit-reversed output of the inverse DIF
 * transform (position p holds coefficient bitrev(p), Montgomery form, without the 1/n):
 * coefficient j times sc ginv^j (gi.v[b] = ginv^(2^b), sc.v[0] = sc) to position j, out of
 * Montgomery form. Guarantees x[j] = (sc ginv^j y_j) in standard form for every j < 2^logn,
 * y the transform's coefficients in natural order: the thread of the smaller index of each
 * pair (p, bitrev(p)) reads both entries before it writes either, and no other thread touches
 * them. logn >= 1. */
template <class Fr> __global__ void k_hmono(Fr *x, uint32_t logn, seeds gi, seeds sc)
{
	uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
	if (p >= (1u << logn))
		return;
	uint32_t q = __brev(p) >> (32 - logn);
	if (q < p)
		return;
	auto factor = [&](uint32_t j) {
		Fr acc = seed<Fr>(sc, 0);
		for (uint32_t b = 0; b < logn; b++)
			if ((j >> b) & 1)
				acc = acc * seed<Fr>(gi, (int)b);
		return acc;
	};
	Fr xp = Fr::load(&x[p]), xq = Fr::load(&x[q]); /* coefficients q and p */
	(xp * factor(q)).from_mont().store(&x[q]);
	if (q != p)
		(xq * factor(p)).from_mont().store(&x[p]);
}

} // namespace zkg
