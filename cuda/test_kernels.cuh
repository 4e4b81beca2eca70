/* test_kernels.cuh - field kernels for the tests and benchmarks (zka_gpu_field_op): add, sub,
 * mul, square, inverse, Shoup products, from_mont, elementwise over n values.
 * Speed: irrelevant to proving (one launch per test call). */
#pragma once
#include "cuda/engine_common.cuh"

namespace zkg
{

template <class F> __global__ void k_fop(int op, const F *a, const F *b, F *out, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	F x = F::load(&a[i]), y = F::load(&b[i]), r;
	switch (op) {
	case 0:
		r = x + y;
		break;
	case 1:
		r = x - y;
		break;
	case 2:
		r = x * y;
		break;
	case 3:
		r = x.sqr();
		break;
	case 4:
		r = x.inv();
		break;
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
	default:
		r = x;
		break;
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

} // namespace zkg
