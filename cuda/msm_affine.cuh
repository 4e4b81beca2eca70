/* msm_affine.cuh - the bucket loop's arithmetic measured two ways (zka_gpu_acc_arith), so that
 * the choice of accumulator rests on a measurement (issue 22, "batch-affine where it pays"):
 *   - k_arith_mixed: each thread one lane, mixed additions of affine points into the
 *     accumulator the bucket loop uses (bucket_acc: XYZZ for BN254 G1, Jacobian otherwise),
 *     k_flat's arithmetic (k_flat itself, with its launch bounds and shared-memory prefetch,
 *     is faster: ZKG_PROFILE's "ns per entry" is the prover's figure);
 *   - k_arith_batch<J>: each thread J lanes (J <= 64), the J additions of a step done in affine
 *     coordinates with one inversion shared by Montgomery's trick (prefix products forward,
 *     the inverse walked back); per addition 6 products (1 prefix, 2 back, lambda, lambda^2,
 *     y3) plus 1/J of a Fermat inversion;
 *   - k_arith_inv / k_arith_mul: chained inversions and chained products alone, the two
 *     prices the comparison is made of.
 *   - k_arith_mul52: k_arith_mul's chain on the FP64 pipe (field_f64.cuh), its price and its
 *     bytes set beside the integer product's.
 * Each lane adds the points pts[idx[s lanes + lane]] for s < steps (idx laid out step-major, so
 * a warp's index loads are contiguous, as k_flat's are). Not on the prover's path: the prover
 * keeps k_flat (docs/gpu.md, "Batch-affine accumulation, measured").
 * Speed: the mixed additions are bound by their ~10-12 field products; the batch by its
 * inversion share at small J and by its J lanes' state (5 elements each: x, y, the
 * denominator, the numerator, the prefix) spilling to local memory at large J. H200,
 * 2026-12-02, 33.6 M additions: BN254 mixed 0.169 ns, batch at best (J = 32) 0.456 ns;
 * BLS12-381 0.456 against 1.128 ns (docs/gpu.md, "Batch-affine accumulation, measured"). */
#pragma once
#include "cuda/engine_common.cuh"
#include "cuda/field_f64.cuh"

namespace zkg
{

/* Mixed additions, one lane per thread; the lane's sum to out[lane] in Jacobian coordinates
 * (k_arith_aff makes it affine outside the timed kernel: its inversion per lane would cost
 * the 32-step lanes of the benchmark ~10 products per addition, which the bucket loop, whose
 * buckets stay Jacobian, never pays). */
template <class F, class Acc>
__global__ void k_arith_mixed(const aff_t<F> *pts, const uint32_t *idx, uint32_t lanes,
			      uint32_t steps, jac_t<F> *out)
{
	uint32_t l = blockIdx.x * blockDim.x + threadIdx.x;
	if (l >= lanes)
		return;
	Acc acc = Acc::inf();
	/* the next step's point and the index after it are loaded before this step's addition
	 * (k_flat prefetches the same way, through shared memory) */
	uint32_t vn = steps > 1 ? idx[lanes + l] : 0;
	aff_t<F> p = aff_t<F>::load(&pts[idx[l]]);
	for (uint32_t s = 0; s < steps; s++) {
		aff_t<F> q = p;
		if (s + 1 < steps) {
			q = aff_t<F>::load(&pts[vn]);
			if (s + 2 < steps)
				vn = idx[(size_t)(s + 2) * lanes + l];
		}
		acc = acc.add_aff_inl(p);
		p = q;
	}
	acc.to_jac().store(&out[l]);
}
template <class F> __global__ void k_arith_aff(const jac_t<F> *in, uint32_t lanes, aff_t<F> *out)
{
	uint32_t l = blockIdx.x * blockDim.x + threadIdx.x;
	if (l < lanes)
		jac_t<F>::load(&in[l]).to_aff().store(&out[l]);
}

/* Batch-affine additions, J lanes per thread (lane t + j T for j < J, T threads in the grid).
 * A step's lane is in one of three modes: SET (its sum is infinity, or the point is: no
 * addition, factor 1), ADD (x differs: lambda = (y2 - y1) / (x2 - x1)) or DBL (the same point:
 * lambda = 3 x1^2 / 2 y1); P + (-P) makes the sum infinity (SET). Only ADD and DBL lanes take
 * part in the shared inversion. The result equals k_arith_mixed's: affine coordinates are
 * unique. */
template <class F, int J>
__global__ void k_arith_batch(const aff_t<F> *pts, const uint32_t *idx, uint32_t lanes,
			      uint32_t steps, aff_t<F> *out)
{
	const uint32_t T = gridDim.x * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
	F ax[J], ay[J], den[J], num[J], pre[J];
	uint64_t inf = 0, add = 0, dbl = 0; /* bit j: lane j's sum is infinity / adds / doubles */
#pragma unroll
	for (int j = 0; j < J; j++) {
		ax[j] = ay[j] = F::zero();
		inf |= (uint64_t)1 << j;
	}
	for (uint32_t s = 0; s < steps; s++) {
		F prod = F::one();
		add = dbl = 0;
#pragma unroll
		for (int j = 0; j < J; j++) {
			uint32_t l = t + j * T;
			if (l >= lanes)
				continue;
			aff_t<F> p = aff_t<F>::load(&pts[idx[(size_t)s * lanes + l]]);
			if (p.is_inf())
				continue;
			if ((inf >> j) & 1) {
				ax[j] = p.x;
				ay[j] = p.y;
				inf &= ~((uint64_t)1 << j);
				continue;
			}
			if (!p.x.eq(ax[j])) {
				den[j] = p.x - ax[j];
				num[j] = p.y - ay[j];
				add |= (uint64_t)1 << j;
			} else if (p.y.eq(ay[j])) {
				F x2 = ax[j].sqr();
				den[j] = ay[j].dbl();
				num[j] = x2.dbl() + x2;
				dbl |= (uint64_t)1 << j;
			} else { /* p = -sum */
				inf |= (uint64_t)1 << j;
				continue;
			}
			pre[j] = prod; /* the product of the earlier lanes' denominators */
			prod = prod * den[j];
		}
		if (!(add | dbl))
			continue;
		F inv = prod.inv(); /* 1 / (product of every taking part lane's denominator) */
#pragma unroll
		for (int j = J - 1; j >= 0; j--) {
			if (!(((add | dbl) >> j) & 1))
				continue;
			F dinv = inv * pre[j]; /* 1 / den[j] */
			inv = inv * den[j];    /* 1 / (the product of the lanes before j) */
			F lam = num[j] * dinv;
			/* x3 = lambda^2 - x1 - x2, with x2 = den + x1 (ADD) or x1 (DBL) */
			F x2 = (add >> j) & 1 ? den[j] + ax[j] : ax[j];
			F x3 = lam.sqr() - ax[j] - x2;
			ay[j] = lam * (ax[j] - x3) - ay[j];
			ax[j] = x3;
		}
	}
#pragma unroll
	for (int j = 0; j < J; j++) {
		uint32_t l = t + j * T;
		if (l >= lanes)
			continue;
		aff_t<F> r = {ax[j], ay[j]};
		if ((inf >> j) & 1)
			r.x = r.y = F::zero();
		r.store(&out[l]);
	}
}

/* steps chained Fermat inversions (x <- 1/x) from x = in[l].x: out[l].x is in's x for even
 * steps, its inverse for odd */
template <class F>
__global__ void k_arith_inv(const aff_t<F> *in, uint32_t n, uint32_t lanes, uint32_t steps,
			    aff_t<F> *out)
{
	uint32_t l = blockIdx.x * blockDim.x + threadIdx.x;
	if (l >= lanes)
		return;
	F x = F::load(&in[l % n].x);
	for (uint32_t s = 0; s < steps; s++)
		x = x.inv();
	out[l] = {x, F::zero()};
}
/* steps chained products (x <- x y) from in[l]: out[l].x = x y^steps */
template <class F>
__global__ void k_arith_mul(const aff_t<F> *in, uint32_t n, uint32_t lanes, uint32_t steps,
			    aff_t<F> *out)
{
	uint32_t l = blockIdx.x * blockDim.x + threadIdx.x;
	if (l >= lanes)
		return;
	aff_t<F> p = aff_t<F>::load(&in[l % n]);
	F x = p.x;
	for (uint32_t s = 0; s < steps; s++)
		x = x * p.y;
	out[l] = {x, F::zero()};
}

/* k_arith_mul on the FP64 pipe (field_f64.cuh): the same chain, x and y converted to the
 * 52-bit-limb form before it and x back after it, so out[l].x equals k_arith_mul's byte for
 * byte */
template <class F>
__global__ void k_arith_mul52(const aff_t<F> *in, uint32_t n, uint32_t lanes, uint32_t steps,
			      aff_t<F> *out)
{
	using D = f52<typename F::params>;
	uint32_t l = blockIdx.x * blockDim.x + threadIdx.x;
	if (l >= lanes)
		return;
	aff_t<F> p = aff_t<F>::load(&in[l % n]);
	D x = D::from32(p.x), y = D::from32(p.y);
	for (uint32_t s = 0; s < steps; s++)
		x = D::mul(x, y);
	out[l] = {x.to32(), F::zero()};
}

} // namespace zkg
