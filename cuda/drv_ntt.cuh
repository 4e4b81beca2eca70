/* drv_ntt.cuh - the engine's NTT driver (struct eng, drv_eng.cuh): the twiddle and coset
 * tables of a domain 2^logn (tables), one transform as passes of up to 8 stages in shared
 * memory (ntt_pass, kernels in ntt.cuh) and the H polynomial of a proof on the device
 * (hpoly_dev).
 * The H polynomial: a, b, c (evaluations over the domain w^i) go to the odd coset inc w^i of
 * the 2n-domain (inc the primitive 2n-th root, so X^n - 1 = -2 there): an inverse transform
 * (DIF, bit-reversed out), the coset factors inc^j / n in that order, a forward one (DIT,
 * natural out). Then, by the key's H kind (zka_pk.h_kind):
 *   coset (snarkjs): h = a b - c out of Montgomery form (k_hfinal): snarkjs's H points are
 *     [L_(2i+1)(tau) / delta] and fold the 1/Z in; nothing more.
 *   monomial (bellperson .params, ZKA_H_MONOMIAL): h's coefficients, which the H points
 *     [tau^j t(tau) / delta] need: e = a b - c (k_hdiff), an inverse transform of e over the
 *     domain (DIF with the inverse twiddles, bit-reversed out), then coefficient j times
 *     -1/(2n) inc^-j to natural order, out of Montgomery form (k_hmono): (1/n) the inverse
 *     transform, 1/-2 the division by Z, inc^-j the coset's shift undone. Exactly the CPU's
 *     h_scalars (zk/groth16_tmpl.h): the same coset, the same field elements in the same
 *     order (h[n-1] is whatever the formula gives: 0 when a, b, c satisfy the circuit).
 * The roots follow the key (zka_pk.root, tables' root): ZKA_ROOT_SNARKJS is ffjavascript's
 * FR_ROOT family, ZKA_ROOT_GEN7 blstrs's 7^((r-1)/2^S) (BLS12-381 only, bellperson's keys);
 * inc, w = inc^2 and the shift's inc^-1 all come from zkg_host_roots (host.c), the same
 * roots as the CPU prover's ntt_root_kind. A coset key's path is the one kernel sequence it
 * always was (no extra launch); a monomial key pays one more transform and one pointwise
 * pass.
 * Speed: memory-bound: each pass reads and writes the vector once, log2(n) / 8 passes; the
 * driver's own cost is one launch per pass. */
#pragma once
#include "cuda/drv_eng.cuh"

namespace zkg
{

/* Allocates and fills the tables for 2^logn in the root family root (ZKA_ROOT_*): *tw, *itw
 * (n/2 twiddle pairs each) and, when d_cs is not NULL, *cs (n coset factors); when hm is not
 * NULL, the monomial H's constants (zkg_hmono) of the same roots. Each pointer is stored as
 * soon as it is allocated: after an error the caller frees what exists. Returns 0, -EINVAL
 * (a family the curve lacks, or a coset that needs a root of order 2n above the field's
 * two-adicity) with err, or a CUDA error's code. */
template <class TR>
int eng<TR>::tables(zka_gpu *g, uint32_t logn, uint32_t root, void **d_tw, void **d_itw,
		    void **d_cs, zkg_hmono *hm, char *err, size_t errlen)
{
	zkg_roots r;
	const uint32_t two_adic = CURVE == ZKA_BN254 ? 28 : 32;
	if (zkg_host_roots(CURVE, logn, root, &r) || ((d_cs || hm) && logn >= two_adic)) {
		zkg_errf(err, errlen,
			 "NTT tables: no domain of 2^%u with a coset for roots %u (ZKA_ROOT_*) on "
			 "this curve",
			 logn, root);
		return -EINVAL;
	}
	size_t half = (size_t)1 << (logn - 1);
	CK(cudaMalloc(d_tw, half * sizeof(twiddle<Fr>)));
	CK(cudaMalloc(d_itw, half * sizeof(twiddle<Fr>)));
	if (d_cs)
		CK(cudaMalloc(d_cs, 2 * half * sizeof(Fr)));
	twiddle<Fr> *tw = (twiddle<Fr> *)*d_tw, *itw = (twiddle<Fr> *)*d_itw;
	Fr *cs = d_cs ? (Fr *)*d_cs : NULL;
	seeds fw, iw, inc;
	memcpy(fw.v, r.fw, sizeof fw.v);
	memcpy(iw.v, r.iw, sizeof iw.v);
	memcpy(inc.v, r.inc, sizeof inc.v);
	if (hm) {
		memcpy(hm->ginv, r.ginv, sizeof hm->ginv);
		memcpy(hm->sc, r.hsc, sizeof hm->sc);
	}
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

/* a, b, c (device, Montgomery; used as scratch) -> h (device, standard form; h may not be a,
 * b or c), on g's stream, with the tables of the key's roots (tables). hm NULL (a coset-H key):
 * h = a b - c on the coset, as snarkjs's H points want. hm set (a monomial-H key): h = the
 * coefficients of (A B - C) / (X^n - 1) in natural order, the CPU's h_scalars field element
 * for field element (see the header). Guarantees all n entries of h once the stream reaches
 * its end; returns 0 or a CUDA error's code with err. */
template <class TR>
int eng<TR>::hpoly_dev(zka_gpu *g, uint32_t logn, Fr *a, Fr *b, Fr *c, Fr *h, const twiddle<Fr> *tw,
		       const twiddle<Fr> *itw, const Fr *cs, const zkg_hmono *hm, char *err,
		       size_t errlen)
{
	uint32_t n = 1u << logn;
	Fr *xs[3] = {a, b, c};
	for (int k = 0; k < 3; k++) {
		CKR(ntt_pass(g, xs[k], logn, itw, false, err, errlen));
		k_mul_table<Fr><<<nblk(n, 256), 256, 0, g->s>>>(xs[k], cs, n);
		CKL();
		CKR(ntt_pass(g, xs[k], logn, tw, true, err, errlen));
	}
	if (!hm) {
		k_hfinal<Fr><<<nblk(n, 256), 256, 0, g->s>>>(a, b, c, h, n);
		CKL();
		return 0;
	}
	k_hdiff<Fr><<<nblk(n, 256), 256, 0, g->s>>>(a, b, c, h, n);
	CKL();
	CKR(ntt_pass(g, h, logn, itw, false, err, errlen));
	seeds gi;
	memcpy(gi.v, hm->ginv, sizeof gi.v);
	k_hmono<Fr><<<nblk(n, 256), 256, 0, g->s>>>(h, logn, gi, mk1(hm->sc));
	CKL();
	return 0;
}

} // namespace zkg
