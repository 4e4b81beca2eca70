/* msm_split.cuh - the 0/1 split of an MSM's scalars (witnesses that are mostly boolean, as
 * Filecoin's): k_split01 counts the scalars 1 and the others (neither 0 nor 1) and, with output
 * buffers, compacts them: the others' scalars and indices back to back (for the bucket sort,
 * whose entries keep the original indices), the ones' indices in a list that k_ones_list sums
 * with a plain point reduction (no buckets: one mixed addition per point, then block trees).
 * Zeros are dropped. Order inside the lists follows block reservations (atomics), which does
 * not change the sums: the MSM is exact.
 * Speed: k_split01 is memory-bound (32 bytes read per scalar, 36 written per other, one global
 * atomic per block and kind); k_ones_list is bound by the mixed additions of the ones (one
 * full wave of blocks) and the random gathers of their points. */
#pragma once
#include "cuda/engine_common.cuh"
#include "cuda/msm_accumulate.cuh"

namespace zkg
{

#define ZKG_SPLIT_T 256	  /* threads of k_split01 */
#define ZKG_SPLIT_ITEMS 8 /* scalars per thread: a block reserves once for 2048 */

/* cnt[0] += scalars 1, cnt[1] += others; with oks != NULL also oks/oidx[cnt[1]..] = the
 * others and ones[cnt[0]..] = the ones' indices. Block x takes scalars x 2048 .. (2048 each),
 * item j of thread t being x 2048 + j 256 + t (coalesced loads). */
static __global__ void __launch_bounds__(ZKG_SPLIT_T)
    k_split01(const scal *ks, uint32_t n, uint32_t *cnt, scal *oks, uint32_t *oidx, uint32_t *ones)
{
	constexpr uint32_t NW = ZKG_SPLIT_T / 32, R = ZKG_SPLIT_ITEMS;
	__shared__ uint32_t wofs[2][R * NW]; /* per (round, warp): count, then exclusive start */
	__shared__ uint32_t base[2];
	uint32_t tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;
	uint32_t i0 = blockIdx.x * (ZKG_SPLIT_T * R);
	unsigned m1[R], m2[R];
#pragma unroll
	for (uint32_t j = 0; j < R; j++) {
		uint32_t i = i0 + j * ZKG_SPLIT_T + tid;
		int kind = i < n ? scalar_kind(load_scalar(&ks[i])) : 0;
		m1[j] = __ballot_sync(0xffffffffu, kind == 1);
		m2[j] = __ballot_sync(0xffffffffu, kind == 2);
		if (lane == 0) {
			wofs[0][j * NW + wid] = __popc(m1[j]);
			wofs[1][j * NW + wid] = __popc(m2[j]);
		}
	}
	__syncthreads(); /* orders the warps' counts before the scan */
	if (tid < 2) {
		uint32_t s = 0;
		for (uint32_t x = 0; x < R * NW; x++) {
			uint32_t c = wofs[tid][x];
			wofs[tid][x] = s;
			s += c;
		}
		base[tid] = s ? atomicAdd(&cnt[tid], s) : 0;
	}
	if (!oks)
		return;
	__syncthreads(); /* orders the starts before the writes */
	unsigned below = (1u << lane) - 1;
#pragma unroll
	for (uint32_t j = 0; j < R; j++) {
		uint32_t i = i0 + j * ZKG_SPLIT_T + tid;
		if (m1[j] >> lane & 1)
			ones[base[0] + wofs[0][j * NW + wid] + __popc(m1[j] & below)] = i;
		if (m2[j] >> lane & 1) {
			uint32_t p = base[1] + wofs[1][j * NW + wid] + __popc(m2[j] & below);
			oks[p] = load_scalar(&ks[i]);
			oidx[p] = i;
		}
	}
}

/* partials[blockIdx.x] = the sum of pts[idx[i]] over this block's share of i < cnt (ZKG_SUM_T
 * threads, dynamic shared memory for ZKG_SUM_T points) */
template <class F>
__global__ void ZKG_LB(F, ZKG_SUM_T)
    k_ones_list(const aff_t<F> *pts, const uint32_t *idx, uint32_t cnt, jac_t<F> *partials)
{
	extern __shared__ uint4 smem_raw[];
	jac_t<F> *sm = (jac_t<F> *)smem_raw;
	jac_t<F> acc = jac_t<F>::inf();
	for (uint32_t i = blockIdx.x * ZKG_SUM_T + threadIdx.x; i < cnt; i += gridDim.x * ZKG_SUM_T)
		acc = acc.add_aff(aff_t<F>::load(&pts[idx[i]]));
	acc = block_sum(acc, sm);
	if (threadIdx.x == 0)
		acc.store(&partials[blockIdx.x]);
}

} // namespace zkg
