/* fixed_base.cuh - fixed-base kernels: the window tables of the shared-bucket MSM
 * (k_precomp_dbl / k_precomp_norm: 2^(start of window w) times each key point, made affine in
 * batches) and the fixed-base multiplication of setup (k_fixed: 32 byte digits against a
 * 256 x 32 table). Speed: the tables' build is bound by the doublings per window and one
 * batched inversion per point; k_fixed by 32 mixed additions per scalar. Run once per key
 * (the tables) or per setup. */
#pragma once
#include "cuda/engine_common.cuh"
#include "cuda/msm_sort.cuh"

namespace zkg
{

/* Window tables for the shared-bucket MSM: tab[w n + i] = 2^(start of window w) tab[i]
 * (affine; windows as in digit_plan) for w = 1 .. W-1, points i0 .. i0+cnt-1, in W launches
 * per chunk: k_precomp_dbl once per window, then k_precomp_norm. One thread per point.
 *
 * Why launches this short: a build in the background (ZKA_GPU_TABLES_BACKGROUND) shares the
 * device with proofs, and stream priority only picks which waiting block goes next; it never
 * stops a running one. One launch per chunk doing all windows (240 doublings per thread at
 * BN254 2^22) kept every SM busy with ~13 ms blocks, and a restarted gpud's first proof, one
 * dependent kernel after the other, waited behind them for the whole 1.1 s build (H200,
 * 2026-12-02: key on the device 1.11-1.24 s after the SIGKILL, DONE at 2.22-2.36 s). A window's
 * doublings are ~1 ms.
 *
 * k_precomp_dbl, window w: window w-1's Jacobian point (copy 0 for w = 1; else X, Y in
 * tab[(w-1) n + i], Z in z[(w-2) cnt + t]) doubled as many times as window w-1 has bits; X, Y
 * to tab[w n + i], Z to z[(w-1) cnt + t], and the running product of the nonzero Zs so far to
 * pre[(w-1) cnt + t]. A point at infinity is copied to window w and left out of z and pre.
 * z and pre are (W-1) cnt scratch elements each. */
template <class F>
__global__ void k_precomp_dbl(aff_t<F> *tab, uint32_t n, uint32_t i0, uint32_t cnt, digit_plan dp,
			      int w, F *z, F *pre)
{
	uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= cnt)
		return;
	size_t i = (size_t)i0 + t;
	aff_t<F> p = aff_t<F>::load(&tab[i]);
	if (p.is_inf()) {
		p.store(&tab[(size_t)w * n + i]);
		return;
	}
	size_t o = (size_t)(w - 1) * cnt + t;
	jac_t<F> J;
	F acc;
	if (w == 1) {
		J = jac_t<F>::from_aff(p);
		acc = F::one();
	} else {
		aff_t<F> q = aff_t<F>::load(&tab[(size_t)(w - 1) * n + i]);
		J = jac_t<F>{q.x, q.y, F::load(&z[o - cnt])};
		acc = F::load(&pre[o - cnt]);
	}
	for (int k = 0; k < dp.width(w - 1); k++)
		J = J.dbl();
	J.Z.store(&z[o]);
	/* a Z of zero (a point of small order in a malformed key) is kept out of the product
	 * and gives infinity in k_precomp_norm */
	if (!J.Z.is_zero())
		acc = acc * J.Z;
	acc.store(&pre[o]);
	aff_t<F>{J.X, J.Y}.store(&tab[(size_t)w * n + i]);
}

/* k_precomp_norm: the W-1 Z coordinates of each point inverted together (Montgomery's trick:
 * one inversion, 3 (W-1) products) and windows 1 .. W-1 made affine in place. */
template <class F>
__global__ void k_precomp_norm(aff_t<F> *tab, uint32_t n, uint32_t i0, uint32_t cnt, int W,
			       const F *z, const F *pre)
{
	uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= cnt)
		return;
	size_t i = (size_t)i0 + t;
	if (aff_t<F>::load(&tab[i]).is_inf())
		return; /* k_precomp_dbl copied it */
	F inv = F::load(&pre[(size_t)(W - 2) * cnt + t]).inv();
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
