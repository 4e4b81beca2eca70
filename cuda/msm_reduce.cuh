/* msm_reduce.cuh - bucket reduction: R = sum (k+1) B_k per window, in levels whose serial
 * depth stays small (k_red1 segments, k_red2 groups, k_planes bit planes, k_sum), the host
 * finishing by Horner's rule (zkg_host_combine).
 * Speed: latency-bound (chains of dependent point additions, microseconds each on one thread),
 * not work-bound; see the note on k_red1 for the chosen depths. */
#pragma once
#include "cuda/engine_common.cuh"
#include "cuda/msm_accumulate.cuh"

namespace zkg
{

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
__global__ void ZKG_LB(F, ZKG_SUM_T) k_planes(const jac_t<F> *G, const jac_t<F> *U, uint32_t per,
					      uint32_t np, uint32_t nch, jac_t<F> *part)
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
			src =
			    &G[(size_t)w * per + (((m >> b) << (b + 1)) | (1u << b) | (m & lowm))];
		}
		acc = acc.add(jac_t<F>::load(src));
	}
	acc = block_sum(acc, sm);
	if (threadIdx.x == 0)
		acc.store(&part[x]);
}

/* out[g] = sum of in[g*m .. g*m+m), one block per group (at most ZKG_SUM_T threads, a power
 * of two; shared memory for one point per thread) */
template <class F>
__global__ void ZKG_LB(F, ZKG_SUM_T) k_sum(const jac_t<F> *in, uint32_t m, jac_t<F> *out)
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

} // namespace zkg
