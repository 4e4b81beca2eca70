/* drv_test.cuh - the engine's entry points for tests and benchmarks (cuda/zka_gpu_test.h), out
 * of the production includes: a standalone MSM (msm, streamed when its points do not fit),
 * an NTT in natural order (ntt), the H evaluations (hpoly), element-wise field operations
 * (field_op, test_kernels.cuh) and the bucket loop's arithmetic alone (acc_arith,
 * msm_affine.cuh); ZKG_DEFINE_TEST_OPS makes a curve's table of them (zkg_test_ops).
 * Included by the curve units (bn254.cu, bls12_381.cu) after engine.cuh.
 * Speed: as the production paths they call; the extra copies and synchronisations are the
 * tests'. */
#pragma once
#include "cuda/drv_eng.cuh"
#include "cuda/test_kernels.cuh"

namespace zkg
{

template <class TR>
int eng<TR>::msm(zka_gpu *g, int g2, const void *points, const uint64_t (*k)[4], size_t n,
		 void *out, double *dev_s, char *err, size_t errlen)
{
	/* the context's H scratch (a context serves one thread at a time): sized by the
	 * first call and kept, as in proofs, so that a second MSM's time (the benchmark's
	 * msm1) is the MSM's and not cudaMalloc's; freed with the context */
	zkg_msm_scratch *m = &g->ms[4];
	size_t ab = g2 ? sizeof(G2A) : sizeof(G1A);
	void *d_p = NULL, *d_k = NULL;
	int rc = msm_inner(g, m, g2, points, k, n, out, dev_s, &d_p, &d_k, ab, err, errlen);
	cudaFree(d_p);
	cudaFree(d_k);
	return rc;
}

template <class TR>
int eng<TR>::msm_inner(zka_gpu *g, zkg_msm_scratch *m, int g2, const void *points,
		       const uint64_t (*k)[4], size_t n, void *out, double *dev_s, void **d_p,
		       void **d_k, size_t ab, char *err, size_t errlen)
{
	if (n == 0) {
		memset(out, 0, ab);
		return 0;
	}
	/* copies of the points under the context's table budget (relative to n ab), fewer
	 * while they and the MSM's scratch would not fit in the free device memory (as a
	 * key's, see key_load) */
	int tmax = zkg_table_copies(g), c = 0, copies = 1;
	size_t fr = 0, tot = 0;
	CK(cudaMemGetInfo(&fr, &tot));
	for (;; tmax = copies - 1) {
		c = choose_c(n, tmax);
		copies = digit_plan_of(c, tmax).copies;
		double sort, work;
		msm_bytes(n, c, copies, g2 ? sizeof(G2) : sizeof(G1), &sort, &work);
		double need = (double)copies * n * ab + n * 32.0 + sort + work;
		if (copies <= 1 || need <= fit_bytes(fr))
			break;
	}
	/* points that do not fit even without copies (or streaming forced): streamed
	 * from the host in chunks, the largest power of two (<= 2^25) that fits */
	size_t chunk = g->stream_chunk;
	if (!chunk) {
		double sort, work, avail = fit_bytes(fr) - n * 32.0;
		msm_bytes(n, c, 1, g2 ? sizeof(G2) : sizeof(G1), &sort, &work);
		if (copies <= 1 && (double)n * ab + sort + work > avail)
			for (int e = 25; e >= 12 && !chunk; e--) {
				size_t ch = (size_t)1 << e;
				if (stream_ctx_bytes(0, 0, ch, ab, g2 ? sizeof(G2) : sizeof(G1)) <=
				    avail)
					chunk = ch;
			}
	}
	if (chunk && n > chunk) {
		CK(cudaMalloc(d_k, n * 32));
		CK(cudaMemcpyAsync(*d_k, k, n * 32, cudaMemcpyHostToDevice, g->s));
		double t0 = 0;
		if (dev_s) {
			CK(cudaStreamSynchronize(g->s));
			t0 = now_s();
		}
		sset S = {NULL, points, 0, 0, g2};
		alignas(16) uint8_t jac[1][sizeof(G2)];
		CKR(streamed(g, *d_k, n, chunk, 1, &S, true, jac, err, errlen));
		g->last.msm_split = g->ms[0].split;
		g->last.frac01 = g->ms[0].frac01;
		zkg_host_to_aff(CURVE, g2, jac[0], out);
		if (dev_s)
			*dev_s = now_s() - t0;
		return 0;
	}
	CK(cudaMalloc(d_p, (size_t)copies * n * ab));
	CK(cudaMalloc(d_k, n * 32));
	CK(cudaMemcpyAsync(*d_p, points, n * ab, cudaMemcpyHostToDevice, g->s));
	CK(cudaMemcpyAsync(*d_k, k, n * 32, cudaMemcpyHostToDevice, g->s));
	if (copies > 1) {
		if (g2)
			CKR(precompute<Fq2>(g->s, *d_p, n, c, tmax, NULL, err, errlen));
		else
			CKR(precompute<Fq>(g->s, *d_p, n, c, tmax, NULL, err, errlen));
	}
	/* timed: from the inputs on the device to the affine result on the host */
	double t0 = 0;
	if (dev_s) {
		CK(cudaStreamSynchronize(g->s));
		t0 = now_s();
	}
	CKR(prepare(g, m, *d_k, n, c, copies, true, err, errlen));
	CKR(work_grow(m, m, g2 ? sizeof(G2) : sizeof(G1), err, errlen));
	if (g2)
		CKR(run<Fq2>(g, m, m, g->s, *d_p, m->d_wsum, err, errlen));
	else
		CKR(run<Fq>(g, m, m, g->s, *d_p, m->d_wsum, err, errlen));
	uint8_t *hs = (uint8_t *)g->h_slots;
	CK(cudaMemcpyAsync(hs, m->d_wsum, WSLOT, cudaMemcpyDeviceToHost, g->s));
	CK(cudaStreamSynchronize(g->s));
	uint8_t jac[sizeof(G2)];
	combine(g2, hs, m, jac);
	g->last.msm_split = m->split;
	g->last.frac01 = m->frac01;
	zkg_host_to_aff(CURVE, g2, jac, out);
	if (dev_s)
		*dev_s = now_s() - t0;
	return 0;
}

template <class TR>
int eng<TR>::ntt(zka_gpu *g, uint32_t logn, uint64_t (*x)[4], int inverse, double *dev_s, char *err,
		 size_t errlen)
{
	void *d[3] = {NULL, NULL, NULL};
	int rc = ntt_inner(g, logn, x, inverse, dev_s, d, err, errlen);
	for (int i = 0; i < 3; i++)
		cudaFree(d[i]);
	return rc;
}

template <class TR>
int eng<TR>::ntt_inner(zka_gpu *g, uint32_t logn, uint64_t (*x)[4], int inverse, double *dev_s,
		       void **d, char *err, size_t errlen)
{
	if (logn < 1 || logn > 28) {
		zkg_errf(err, errlen, "zka_gpu_ntt: logn %u out of range", logn);
		return -EINVAL;
	}
	size_t n = (size_t)1 << logn;
	CK(cudaMalloc(&d[0], n * 32));
	CKR(tables(g, (uint32_t)logn, ZKA_ROOT_SNARKJS, &d[1], &d[2], NULL, NULL, err, errlen));
	CK(cudaMemcpyAsync(d[0], x, n * 32, cudaMemcpyHostToDevice, g->s));
	CK(cudaEventRecord(g->ev[0], g->s));
	CKR(ntt_pass(g, (Fr *)d[0], logn, (const twiddle<Fr> *)(inverse ? d[2] : d[1]), false, err,
		     errlen));
	CK(cudaEventRecord(g->ev[1], g->s));
	k_bitrev<Fr><<<nblk(n, 256), 256, 0, g->s>>>((Fr *)d[0], logn);
	CKL();
	if (inverse) {
		zkg_roots r;
		zkg_host_roots(CURVE, logn, ZKA_ROOT_SNARKJS, &r); /* tables checked logn */
		k_mul_const<Fr>
		    <<<nblk(n, 256), 256, 0, g->s>>>((Fr *)d[0], (uint32_t)n, mk1(r.ninv));
		CKL();
	}
	CK(cudaMemcpyAsync(x, d[0], n * 32, cudaMemcpyDeviceToHost, g->s));
	CK(cudaStreamSynchronize(g->s));
	if (dev_s) {
		float ms;
		CK(cudaEventElapsedTime(&ms, g->ev[0], g->ev[1]));
		*dev_s = ms * 1e-3;
	}
	return 0;
}

/* zka_gpu_h_kind: the device's H (hpoly_dev) of a key of kind (h_kind, root) on host a, b, c
 * (Montgomery) into host h (standard form). 0, -EINVAL (logn or the kind out of range) or a
 * CUDA error's code, with err. */
template <class TR>
int eng<TR>::hpoly(zka_gpu *g, uint32_t logn, uint32_t h_kind, uint32_t root,
		   const uint64_t (*a)[4], const uint64_t (*b)[4], const uint64_t (*c)[4],
		   uint64_t (*h)[4], char *err, size_t errlen)
{
	void *d[7] = {0};
	int rc = hpoly_inner(g, logn, h_kind, root, a, b, c, h, d, err, errlen);
	for (int i = 0; i < 7; i++)
		cudaFree(d[i]);
	return rc;
}

template <class TR>
int eng<TR>::hpoly_inner(zka_gpu *g, uint32_t logn, uint32_t h_kind, uint32_t root,
			 const uint64_t (*a)[4], const uint64_t (*b)[4], const uint64_t (*c)[4],
			 uint64_t (*h)[4], void **d, char *err, size_t errlen)
{
	if (logn < 1 || logn > 28) {
		zkg_errf(err, errlen, "zka_gpu_h: logn %u out of range", logn);
		return -EINVAL;
	}
	if (h_kind > ZKA_H_MONOMIAL || (h_kind == ZKA_H_COSET && root != ZKA_ROOT_SNARKJS)) {
		zkg_errf(err, errlen, "zka_gpu_h: H kind %u with roots %u: no such key", h_kind,
			 root);
		return -EINVAL;
	}
	size_t n = (size_t)1 << logn;
	zkg_hmono hm;
	for (int i = 0; i < 4; i++)
		CK(cudaMalloc(&d[i], n * 32));
	CKR(tables(g, logn, root, &d[4], &d[5], &d[6], h_kind == ZKA_H_MONOMIAL ? &hm : NULL, err,
		   errlen));
	CK(cudaMemcpyAsync(d[0], a, n * 32, cudaMemcpyHostToDevice, g->s));
	CK(cudaMemcpyAsync(d[1], b, n * 32, cudaMemcpyHostToDevice, g->s));
	CK(cudaMemcpyAsync(d[2], c, n * 32, cudaMemcpyHostToDevice, g->s));
	CKR(hpoly_dev(g, logn, (Fr *)d[0], (Fr *)d[1], (Fr *)d[2], (Fr *)d[3],
		      (const twiddle<Fr> *)d[4], (const twiddle<Fr> *)d[5], (const Fr *)d[6],
		      h_kind == ZKA_H_MONOMIAL ? &hm : NULL, err, errlen));
	CK(cudaMemcpyAsync(h, d[3], n * 32, cudaMemcpyDeviceToHost, g->s));
	CK(cudaStreamSynchronize(g->s));
	return 0;
}

template <class TR>
int eng<TR>::field_op(zka_gpu *g, int field, int op, const void *a, const void *b, void *out,
		      size_t n, char *err, size_t errlen)
{
	size_t es = field == 0 ? sizeof(Fr) : field == 1 ? sizeof(Fq) : sizeof(Fq2);
	void *d[3] = {0};
	int rc = 0;
	do {
		cudaError_t e;
		if ((e = cudaMalloc(&d[0], n * es)) || (e = cudaMalloc(&d[1], n * es)) ||
		    (e = cudaMalloc(&d[2], n * es)) ||
		    (e = cudaMemcpy(d[0], a, n * es, cudaMemcpyHostToDevice)) ||
		    (e = cudaMemcpy(d[1], b, n * es, cudaMemcpyHostToDevice))) {
			zkg_errf(err, errlen, "%s:%d: %s", __FILE__, __LINE__,
				 cudaGetErrorString(e));
			rc = -EIO;
			break;
		}
		unsigned nbk = nblk(n, 128);
		if (op == 6 && field == 0)
			k_shoup<typename TR::FrP>
			    <<<nbk, 128>>>((const Fr *)d[0], (const Fr *)d[1], (Fr *)d[2], n);
		else if (op == 6) {
			zkg_errf(err, errlen,
				 "zka_gpu_field_op: op 6 (Shoup product) is for Fr only");
			rc = -EINVAL;
			break;
		} else if ((op == 7 && field == 2) || (op == 8 && field != 1)) {
			zkg_errf(err, errlen, "zka_gpu_field_op: op %d is for %s only", op,
				 op == 7 ? "Fr and Fq" : "Fq");
			rc = -EINVAL;
			break;
		} else if (op == 5) {
			if (field == 0)
				k_from_mont<typename TR::FrP>
				    <<<nbk, 128>>>((const Fr *)d[0], (Fr *)d[2], n);
			else
				k_from_mont<typename TR::FqP>
				    <<<nbk, 128>>>((const Fq *)d[0], (Fq *)d[2], n);
		} else if (field == 0)
			k_fop<Fr>
			    <<<nbk, 128>>>(op, (const Fr *)d[0], (const Fr *)d[1], (Fr *)d[2], n);
		else if (field == 1)
			k_fop<Fq>
			    <<<nbk, 128>>>(op, (const Fq *)d[0], (const Fq *)d[1], (Fq *)d[2], n);
		else
			k_fop<Fq2><<<nbk, 128>>>(op, (const Fq2 *)d[0], (const Fq2 *)d[1],
						 (Fq2 *)d[2], n);
		if ((e = cudaGetLastError()) ||
		    (e = cudaMemcpy(out, d[2], n * es, cudaMemcpyDeviceToHost))) {
			zkg_errf(err, errlen, "%s:%d: %s", __FILE__, __LINE__,
				 cudaGetErrorString(e));
			rc = -EIO;
		}
	} while (0);
	for (int i = 0; i < 3; i++)
		cudaFree(d[i]);
	return rc;
}

/* zka_gpu_acc_arith (zka_gpu.h): the bucket loop's arithmetic alone, msm_affine.cuh */
template <class TR>
int eng<TR>::acc_arith(zka_gpu *g, int method, int J, const void *pts, size_t npts,
		       const uint32_t *idx, size_t lanes, uint32_t steps, void *out, double *dev_s,
		       char *err, size_t errlen)
{
	void *d[4] = {0};
	cudaEvent_t ev[2] = {0, 0};
	int rc =
	    arith_inner(g, method, J, pts, npts, idx, lanes, steps, out, dev_s, d, ev, err, errlen);
	for (int i = 0; i < 2; i++)
		if (ev[i])
			cudaEventDestroy(ev[i]);
	for (int i = 0; i < 4; i++)
		cudaFree(d[i]);
	return rc;
}

template <class TR>
int eng<TR>::arith_inner(zka_gpu *g, int method, int J, const void *pts, size_t npts,
			 const uint32_t *idx, size_t lanes, uint32_t steps, void *out,
			 double *dev_s, void **d, cudaEvent_t *ev, char *err, size_t errlen)
{
	if (method < 0 || method > 4 || !npts || npts > UINT32_MAX || !lanes ||
	    lanes > ((size_t)1 << 26) || !steps || (size_t)steps * lanes > ((size_t)1 << 31)) {
		zkg_errf(err, errlen,
			 "zka_gpu_acc_arith: method %d, %zu points, %zu lanes, %u steps: "
			 "out of range",
			 method, npts, lanes, steps);
		return -EINVAL;
	}
	if (method == 1 && (J < 1 || J > 64 || (J & (J - 1)))) {
		zkg_errf(err, errlen, "zka_gpu_acc_arith: J = %d is not 1, 2, 4, 8, 16, 32 or 64",
			 J);
		return -EINVAL;
	}
	size_t ne = (size_t)steps * lanes, ab = sizeof(G1A);
	if (method < 2)
		for (size_t i = 0; i < ne; i++)
			if (idx[i] >= npts) {
				zkg_errf(err, errlen,
					 "zka_gpu_acc_arith: idx[%zu] = %u is not below the "
					 "%zu points",
					 i, idx[i], npts);
				return -EINVAL;
			}
	CK(cudaMalloc(&d[0], npts * ab));
	CK(cudaMalloc(&d[2], lanes * sizeof(G1))); /* method 0: its Jacobian sums */
	CK(cudaMemcpyAsync(d[0], pts, npts * ab, cudaMemcpyHostToDevice, g->s));
	if (method < 2) {
		CK(cudaMalloc(&d[1], ne * 4));
		CK(cudaMemcpyAsync(d[1], idx, ne * 4, cudaMemcpyHostToDevice, g->s));
	}
	CK(cudaEventCreate(&ev[0]));
	CK(cudaEventCreate(&ev[1]));
	const G1A *P = (const G1A *)d[0];
	const uint32_t *I = (const uint32_t *)d[1];
	G1A *O = (G1A *)d[2];
	uint32_t L = (uint32_t)lanes, n = (uint32_t)npts;
	CK(cudaEventRecord(ev[0], g->s));
	if (method == 0)
		k_arith_mixed<Fq, typename bucket_acc<Fq>::type>
		    <<<nblk(lanes, 128), 128, 0, g->s>>>(P, I, L, steps, (G1 *)d[2]);
	else if (method == 2)
		k_arith_inv<Fq><<<nblk(lanes, 128), 128, 0, g->s>>>(P, n, L, steps, O);
	else if (method == 3)
		k_arith_mul<Fq><<<nblk(lanes, 128), 128, 0, g->s>>>(P, n, L, steps, O);
	else if (method == 4)
		k_arith_mul52<Fq><<<nblk(lanes, 128), 128, 0, g->s>>>(P, n, L, steps, O);
	else {
		unsigned nb = nblk((lanes + J - 1) / J, 128);
		switch (J) {
		case 1:
			k_arith_batch<Fq, 1><<<nb, 128, 0, g->s>>>(P, I, L, steps, O);
			break;
		case 2:
			k_arith_batch<Fq, 2><<<nb, 128, 0, g->s>>>(P, I, L, steps, O);
			break;
		case 4:
			k_arith_batch<Fq, 4><<<nb, 128, 0, g->s>>>(P, I, L, steps, O);
			break;
		case 8:
			k_arith_batch<Fq, 8><<<nb, 128, 0, g->s>>>(P, I, L, steps, O);
			break;
		case 16:
			k_arith_batch<Fq, 16><<<nb, 128, 0, g->s>>>(P, I, L, steps, O);
			break;
		case 32:
			k_arith_batch<Fq, 32><<<nb, 128, 0, g->s>>>(P, I, L, steps, O);
			break;
		default:
			k_arith_batch<Fq, 64><<<nb, 128, 0, g->s>>>(P, I, L, steps, O);
			break;
		}
	}
	CKL();
	CK(cudaEventRecord(ev[1], g->s));
	if (method == 0) { /* the Jacobian sums made affine, after the timed kernel */
		CK(cudaMalloc(&d[3], lanes * ab));
		k_arith_aff<Fq>
		    <<<nblk(lanes, 128), 128, 0, g->s>>>((const G1 *)d[2], L, (G1A *)d[3]);
		CKL();
	}
	CK(cudaMemcpyAsync(out, d[method == 0 ? 3 : 2], lanes * ab, cudaMemcpyDeviceToHost, g->s));
	CK(cudaStreamSynchronize(g->s));
	float ms = 0;
	CK(cudaEventElapsedTime(&ms, ev[0], ev[1]));
	if (dev_s)
		*dev_s = ms * 1e-3;
	return 0;
}

} // namespace zkg

#define ZKG_DEFINE_TEST_OPS(NAME, TR)                                                              \
	const struct zkg_test_ops NAME = {                                                         \
	    zkg::eng<TR>::msm,	    zkg::eng<TR>::ntt,	     zkg::eng<TR>::hpoly,                  \
	    zkg::eng<TR>::field_op, zkg::eng<TR>::acc_arith,                                       \
	};
