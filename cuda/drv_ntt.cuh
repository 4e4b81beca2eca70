/* drv_ntt.cuh - the engine's NTT driver (struct eng, drv_eng.cuh): the twiddle and coset
 * tables of a domain 2^logn (tables), one transform as passes of up to 8 stages in shared
 * memory (ntt_pass, kernels in ntt.cuh) and the H polynomial of a proof on the device
 * (hpoly_dev: three inverse NTTs, three coset NTTs, the pointwise (a b - c) / Z).
 * Speed: memory-bound: each pass reads and writes the vector once, log2(n) / 8 passes; the
 * driver's own cost is one launch per pass. */
#pragma once
#include "cuda/drv_eng.cuh"

namespace zkg
{

/* Allocates and fills the tables for 2^logn: *tw, *itw (n/2 twiddle pairs each) and, when
 * cs is not NULL, *cs (n coset factors). Each pointer is stored as soon as it is allocated:
 * after an error the caller frees what exists. */
template <class TR>
int eng<TR>::tables(zka_gpu *g, uint32_t logn, void **d_tw, void **d_itw, void **d_cs, char *err,
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

template <class TR>
int eng<TR>::ntt_pass(zka_gpu *g, Fr *x, uint32_t logn, const twiddle<Fr> *tw, bool dit, char *err,
		      size_t errlen)
{
	uint32_t npass = (logn + 7) / 8, done = 0;
	static_assert(ZKG_NTT_TILE >= 256 && ZKG_NTT_TILE <= 4096 &&
			  !(ZKG_NTT_TILE & (ZKG_NTT_TILE - 1)),
		      "ZKG_NTT_TILE: a power of two, 256 .. 4096");
	uint32_t tile = (1u << logn) < ZKG_NTT_TILE ? 1u << logn : ZKG_NTT_TILE; /* logn <= 28 */
	for (uint32_t p = 0; p < npass; p++) {
		uint32_t k = (logn - done) / (npass - p); /* balanced split */
		uint32_t lo = dit ? done : logn - done - k;
		size_t nblocks = ((size_t)1 << logn) / tile, G = tile >> k;
		size_t sh = G * (3 * ((size_t)1 << k) + 2) * 16; /* see at() in k_stages */
		unsigned bt = tile / 4 ? tile / 4 : 1;
		auto kern = dit ? k_stages<Fr, true> : k_stages<Fr, false>;
		/* Three blocks' tiles per SM need the maximum carveout and more than 48 KB
		 * per block. The limit is one bound for every pass (sh <= 1024 x 48 + 512 x
		 * 32 bytes), not this pass's sh: the attribute belongs to the kernel, which
		 * contexts on other host threads launch at the same time with their own
		 * passes' sizes (a per-pass limit let one thread lower it under another's
		 * launch: "invalid argument"). */
		CK(cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
					cudaSharedmemCarveoutMaxShared));
		CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
					NTT_SMEM_MAX));
		kern<<<(unsigned)nblocks, bt, sh, g->s>>>(x, logn, lo, k, tile, tw);
		CKL();
		done += k;
	}
	return 0;
}

/* a, b, c (device, Montgomery) -> h (device, standard form) */
template <class TR>
int eng<TR>::hpoly_dev(zka_gpu *g, uint32_t logn, Fr *a, Fr *b, Fr *c, Fr *h, const twiddle<Fr> *tw,
		       const twiddle<Fr> *itw, const Fr *cs, char *err, size_t errlen)
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

} // namespace zkg
