/* drv_setup.cuh - setup's batch fixed-base multiplication on the device (struct eng,
 * drv_eng.cuh): out[i] = k[i] base for `setup --insecure --gpu` (fixed_base, in batches:
 * a 256 x 32 table of base, then k_fixed, fixed_base.cuh).
 * Speed: bound by k_fixed's 32 mixed additions per scalar; run once per setup. */
#pragma once
#include "cuda/drv_eng.cuh"

namespace zkg
{

template <class TR>
int eng<TR>::fixed_base(zka_gpu *g, int g2, const void *base, const uint64_t (*k)[4], size_t n,
			void *out, char *err, size_t errlen)
{
	void *d[3] = {0};
	int rc = fixed_inner(g, g2, base, k, n, out, d, err, errlen);
	for (int i = 0; i < 3; i++)
		cudaFree(d[i]);
	return rc;
}

template <class TR>
int eng<TR>::fixed_inner(zka_gpu *g, int g2, const void *base, const uint64_t (*k)[4], size_t n,
			 void *out, void **d, char *err, size_t errlen)
{
	size_t ab = g2 ? sizeof(G2A) : sizeof(G1A);
	void *tab = malloc(256 * 32 * ab);
	if (!tab) {
		zkg_errf(err, errlen, "zka_gpu_fixed_base: out of host memory");
		return -ENOMEM;
	}
	zkg_host_fb_table(CURVE, g2, base, tab);
	cudaError_t e = cudaMalloc(&d[0], 256 * 32 * ab);
	if (e == cudaSuccess)
		e = cudaMemcpy(d[0], tab, 256 * 32 * ab, cudaMemcpyHostToDevice);
	free(tab);
	CK(e);
	size_t chunk = (size_t)1 << 22;
	CK(cudaMalloc(&d[1], chunk * 32));
	CK(cudaMalloc(&d[2], chunk * ab));
	for (size_t off = 0; off < n; off += chunk) {
		size_t m = n - off < chunk ? n - off : chunk;
		CK(cudaMemcpyAsync(d[1], k + off, m * 32, cudaMemcpyHostToDevice, g->s));
		if (g2)
			k_fixed<Fq2><<<nblk(m, 128), 128, 0, g->s>>>(
			    (const G2A *)d[0], (const scal *)d[1], (uint32_t)m, (G2A *)d[2]);
		else
			k_fixed<Fq><<<nblk(m, 128), 128, 0, g->s>>>(
			    (const G1A *)d[0], (const scal *)d[1], (uint32_t)m, (G1A *)d[2]);
		CKL();
		CK(cudaMemcpyAsync((char *)out + off * ab, d[2], m * ab, cudaMemcpyDeviceToHost,
				   g->s));
		CK(cudaStreamSynchronize(g->s));
	}
	return 0;
}

} // namespace zkg
