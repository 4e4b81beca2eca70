/* drv_check.cuh - a key's points validated on the device (check_points; the kernel and what it
 * checks: subgroup.cuh): the points go up in chunks through two device buffers on two streams,
 * so that one chunk's copy overlaps the kernel of the one before, and one word comes back.
 * Speed: bound by the host-to-device copy of pageable memory (every point is read once) and,
 * for BLS12-381 G1, by the two 64-bit multiplications a point. */
#pragma once
#include "cuda/drv_eng.cuh"
#include "cuda/subgroup.cuh"

namespace zkg
{

/* points a chunk: 2^20 (192 MiB of BLS12-381 G2 points a buffer) */
static const size_t ZKG_CHECK_CHUNK = (size_t)1 << 20;

template <class TR>
int eng<TR>::check_points(zka_gpu *g, int g2, const void *pts, size_t n, uint64_t *bad, int *code,
			  char *err, size_t errlen)
{
	void *d[3] = {0};
	int rc = check_inner(g, g2, pts, n, bad, code, d, err, errlen);
	for (int i = 0; i < 3; i++)
		cudaFree(d[i]);
	return rc;
}

template <class TR>
int eng<TR>::check_inner(zka_gpu *g, int g2, const void *pts, size_t n, uint64_t *bad, int *code,
			 void **d, char *err, size_t errlen)
{
	*bad = UINT64_MAX;
	*code = 0;
	if (n == 0)
		return 0;
	zkg_sg_consts c;
	zkg_host_sg_consts(CURVE, &c, sizeof c);
	const size_t ab = g2 ? sizeof(G2A) : sizeof(G1A), chunk = ZKG_CHECK_CHUNK;
	const size_t per = n < chunk ? n : chunk;
	unsigned long long init = ~0ull, best = 0;
	CK(cudaMalloc(&d[0], sizeof best));
	CK(cudaMalloc(&d[1], per * ab));
	if (n > chunk)
		CK(cudaMalloc(&d[2], per * ab));
	CK(cudaMemcpyAsync(d[0], &init, sizeof init, cudaMemcpyHostToDevice, g->s));
	/* the word is set before either stream's first kernel reads it */
	CK(cudaStreamSynchronize(g->s));
	cudaStream_t st[2] = {g->s, g->s_hi};
	for (size_t off = 0, k = 0; off < n; off += chunk, k++) {
		size_t m = n - off < chunk ? n - off : chunk;
		void *buf = d[1 + (k & 1)];
		/* a buffer is reused on the stream whose kernel last read it: stream order */
		CK(cudaMemcpyAsync(buf, (const char *)pts + off * ab, m * ab,
				   cudaMemcpyHostToDevice, st[k & 1]));
		if (g2)
			k_check<G2A><<<nblk(m, 128), 128, 0, st[k & 1]>>>(
			    c, (const G2A *)buf, (uint32_t)m, off, (unsigned long long *)d[0]);
		else
			k_check<G1A><<<nblk(m, 128), 128, 0, st[k & 1]>>>(
			    c, (const G1A *)buf, (uint32_t)m, off, (unsigned long long *)d[0]);
		CKL();
	}
	CK(cudaStreamSynchronize(g->s_hi));
	CK(cudaMemcpyAsync(&best, d[0], sizeof best, cudaMemcpyDeviceToHost, g->s));
	CK(cudaStreamSynchronize(g->s));
	if (best != ~0ull) {
		*bad = best >> 1;
		*code = best & 1 ? ZKA_ENOTINGROUP : ZKA_ENOTONCURVE;
	}
	return 0;
}

} // namespace zkg
