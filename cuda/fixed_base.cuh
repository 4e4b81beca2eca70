/* fixed_base.cuh - fixed-base kernels: the window tables of the shared-bucket MSM (k_precomp,
 * 2^(start of window w) times each key point, made affine in batches) and the fixed-base
 * multiplication of setup (k_fixed: 32 byte digits against a 256 x 32 table).
 * Speed: k_precomp is bound by the doublings per window and one batched inversion per point
 * chunk; k_fixed by 32 mixed additions per scalar. Run once per key (k_precomp) or per setup. */
#pragma once
#include "cuda/engine_common.cuh"
#include "cuda/msm_sort.cuh"

namespace zkg
{

/* Window tables for the shared-bucket MSM: tab[w n + i] = 2^(start of window w) tab[i]
 * (affine; windows as in digit_plan) for w = 1 .. W-1, points i0 .. i0+cnt-1. One thread per
 * point: as many doublings per window as the window before it has bits, the W-1
 * Z coordinates inverted together (Montgomery's trick: one inversion, 3 (W-1) products), z and
 * pre are (W-1) cnt scratch elements each. A Z of zero (a point of small order in a malformed
 * key) is kept out of the product and gives infinity. */
template <class F>
__global__ void k_precomp(aff_t<F> *tab, uint32_t n, uint32_t i0, uint32_t cnt, digit_plan dp, F *z,
			  F *pre)
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

} // namespace zkg
