/* msm_sort.cuh - the MSM's bucket sort: scalars to signed digits (digit_plan, digit_entries)
 * and the entries (point indices) sorted by bucket in two levels (super-buckets, then low bits
 * in chunks), leaving the entries by bucket in vals and the buckets' starts in offsets.
 * Speed: memory- and atomic-bound: n W entries written twice (level 1 and level 2) with the
 * atomics kept in shared memory; ~0.1-0.5 ms at 2^20 points, small next to the accumulation. */
#pragma once
#include "cuda/engine_common.cuh"
#include "cuda/msm_common.cuh"

namespace zkg
{

/* ---- bucket sort of the signed digits ----
 * Signed digits (windows as in digit_plan below): the W windows fall into groups of T (the
 * plan's copies) consecutive windows, one set of M buckets per group, and window w = g T + t
 * reads copy t of the points (2^(start of window t) P_i at t*n + i: the window tables). Digit
 * d of window w puts an entry into bucket b = g*M + |d| - 1, the entry being the point's index
 * t*n + i with bit 31 set when d < 0. T = 1 is the windowed MSM (no tables, one bucket set per
 * window), T = W the shared-bucket MSM (every window in one set); between, a table budget
 * (zka_gpu_set_table_budget) buys T copies and the reduction runs once per group. Scalars 0
 * and 1 produce no entries.
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
 * c - 1 (window w starts at bit w (c - 1) + min(w, r)), with M = 2^(c-1) buckets per group of
 * `copies` windows (above). Windowed and grouped MSMs (copies < W) use r = W (all c bits; the
 * host combines the groups' sums by shifts of c copies). Shared buckets (copies = W) take the
 * fewest c-bit windows that still cover the scalar (zkg::eng::digit_plan_of): with W windows
 * of c bits the top one held only the last few bits (BLS12-381 at c = 19: 8), so its n small
 * digits crowded into the lowest buckets (spread over ~40 runs each, summed by k_gather_big:
 * 0.15 ms of a 2^20 MSM); 4 x 19 + 10 x 18 bits spread every window's digits. Copy t of the
 * table is then 2^(start of t) P (k_precomp_dbl, fixed_base.cuh). */
struct digit_plan {
	int c, W, r, copies;
	ZG_DEV int width(int w) const
	{
		return w < r ? c : c - 1;
	}
	ZG_DEV int start(int w) const
	{
		return w * (c - 1) + min(w, r);
	}
};

/* Calls fn(w, b, entry) for each nonzero signed digit of scalar i (see above). */
template <class Fn>
ZG_DEV void digit_entries(const scal &k, uint32_t i, uint32_t n, const digit_plan &d, Fn fn)
{
	uint32_t M = 1u << (d.c - 1), carry = 0, gb = 0, cp = 0; /* group's first bucket, copy */
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
			fn(w, gb + v - 1, (cp * n + i) | (neg << 31));
		if (++cp == (uint32_t)d.copies) {
			cp = 0;
			gb += M;
		}
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
 * (16 bits each; nsup < 2^16, ranks < ZKG_SORT_ENT)). Scalar i is point idx[i] of npts (the
 * 0/1 split's compacted scalars, msm_split.cuh), or point i of npts = n when idx is NULL. */
static __global__ void k_sort_scatter(const scal *ks, uint32_t n, const uint32_t *idx,
				      uint32_t npts, digit_plan dp, uint32_t nsup, uint32_t *cursor,
				      uint32_t *tval, uint16_t *tlow)
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
		digit_entries(k, idx ? idx[i] : i, npts, dp, [&](int w, uint32_t b, uint32_t e) {
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

} // namespace zkg
