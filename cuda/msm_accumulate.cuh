/* msm_accumulate.cuh - bucket accumulation: the sorted entries cut into equal runs, one
 * thread each (k_flat, mixed additions of affine points into XYZZ/Jacobian accumulators), the
 * buckets split across runs put together (k_gather_runs, k_gather_big), the block tree sum
 * (block_sum) and the sum of the points whose scalar is 1 (ones_block).
 * Speed: bound by the mixed additions' field products (n W additions; ~2 G/s BLS12-381 G1,
 * ~4.7 G/s BN254 G1 on the H200) and by the random gathers of the affine points. */
#pragma once
#include "cuda/engine_common.cuh"
#include "cuda/msm_common.cuh"

namespace zkg
{

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
__global__ void ZKG_LB(F, ZKG_SUM_T)
    k_gather_big(const uint32_t *offsets, uint32_t run, const jac_t<F> *first, const jac_t<F> *last,
		 jac_t<F> *buckets, const uint32_t *nbig, const uint32_t *big)
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

} // namespace zkg
