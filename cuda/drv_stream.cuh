/* drv_stream.cuh - streamed point sets (zka_gpu_set_stream_chunk): the sets of a key (or a
 * standalone MSM) that do not fit on the device stay in host memory and go through two
 * staging buffers chunk by chunk (stage: the copies of chunk j + 1 on ls[0] overlap the MSMs of
 * chunk j; streamed: per chunk prepare, run and the chunk sums added on the host), and the
 * plan that picks which of a key's sets stream and the chunk (stream_plan, stream_per,
 * stream_ctx_bytes).
 * Speed: bound by the host-to-device copy (~51-53 GB/s from registered memory on an H200,
 * ~6 GB/s pageable) when the chunk's MSM is shorter than its copy, else by the MSM. */
#pragma once
#include "cuda/drv_eng.cuh"

namespace zkg
{

/* Staging bytes per point of a chunk for the host sets of S (their at offsets set) */
template <class TR> size_t eng<TR>::stage_per_point(int ns, sset *S)
{
	size_t per = 0;
	for (int i = 0; i < ns; i++)
		if (!S[i].dev) {
			S[i].at = per;
			per += aff_bytes(S[i].g2);
		}
	return per;
}

/* The copies of chunk [off, off + cnt) of S's host sets into staging buffer b, on
 * ls[0] after the MSMs that last read b (lev[2 + b]); lev[b] marks their completion */
template <class TR>
int eng<TR>::stage(zka_gpu *g, int ns, const sset *S, size_t chunk, size_t off, size_t cnt, int b,
		   char *err, size_t errlen)
{
	cudaStream_t cs = g->ls[0];
	/* orders the copies after the chunk two back's last read of buffer b (an event
	 * never recorded is complete) */
	CK(cudaStreamWaitEvent(cs, g->lev[2 + b], 0));
	for (int i = 0; i < ns; i++) {
		if (S[i].dev)
			continue;
		size_t ab = aff_bytes(S[i].g2);
		char *dst = (char *)g->d_stage[b] + S[i].at * chunk;
		size_t z = off < S[i].skip ? S[i].skip - off : 0;
		z = z < cnt ? z : cnt;
		if (z) /* zeros: infinity, as key_load stores C's first points */
			CK(cudaMemsetAsync(dst, 0, z * ab, cs));
		if (cnt > z)
			CKR(upload_on(cs, dst + z * ab,
				      (const char *)S[i].host + (off + z - S[i].skip) * ab,
				      (cnt - z) * ab, err, errlen));
	}
	CK(cudaEventRecord(g->lev[b], cs));
	return 0;
}

/* The MSMs of the ns point sets S (<= 4) with the n scalars at d_sc (device), in chunks
 * of chunk scalars: acc[i] (host, Jacobian) gets set i's sum. Per chunk: the scalars'
 * sort (prepare, with the 0/1 split when split_ok) once for all sets in ms[0], then each
 * set's accumulation and reduction on s, the planes to the host and their combination
 * added to acc. The host sets' copies for chunk j + 1 (stage, on ls[0]) are issued
 * before chunk j's work, so they overlap it; s waits for chunk j's copies (lev[j & 1])
 * before reading them. The staging buffers grow to 2 x chunk x stage_per_point. */
template <class TR>
int eng<TR>::streamed(zka_gpu *g, const void *d_sc, size_t n, size_t chunk, int ns, sset *S,
		      bool split_ok, uint8_t (*acc)[sizeof(G2)], char *err, size_t errlen)
{
	zkg_msm_scratch *m = &g->ms[0];
	cudaStream_t s = g->s;
	size_t per = stage_per_point(ns, S), nch = (n + chunk - 1) / chunk;
	bool any2 = false;
	for (int i = 0; i < ns; i++)
		any2 |= S[i].g2 != 0;
	if (per && g->stage_cap < chunk * per) {
		for (int b = 0; b < 2; b++) {
			if (g->d_stage[b]) /* cudaFree waits for the device: not on NULL */
				CK(cudaFree(g->d_stage[b]));
			g->d_stage[b] = NULL;
		}
		g->stage_cap = 0;
		for (int b = 0; b < 2; b++)
			CK(cudaMalloc(&g->d_stage[b], chunk * per));
		g->stage_cap = chunk * per;
	}
	uint8_t *hs = (uint8_t *)g->h_slots;
	auto count = [&](size_t off) { return n - off < chunk ? n - off : chunk; };
	if (per)
		CKR(stage(g, ns, S, chunk, 0, count(0), 0, err, errlen));
	double f01 = 0; /* the chunks' 0/1 scalars, summed (m's split and frac01 at the end) */
	int split = 0;
	for (size_t j = 0; j < nch; j++) {
		size_t off = j * chunk, cnt = count(off);
		int b = (int)(j & 1);
		if (per && j + 1 < nch)
			CKR(stage(g, ns, S, chunk, off + chunk, count(off + chunk), b ^ 1, err,
				  errlen));
		CKR(prepare(g, m, (const char *)d_sc + off * 32, cnt, 0, 1, split_ok, err, errlen));
		CKR(work_grow(m, m, any2 ? sizeof(G2) : sizeof(G1), err, errlen));
		split |= m->split;
		f01 = f01 >= 0 && m->frac01 >= 0 ? f01 + m->frac01 * (double)cnt : -1;
		if (per) /* chunk j's points are in buffer b */
			CK(cudaStreamWaitEvent(s, g->lev[b], 0));
		for (int i = 0; i < ns; i++) {
			size_t ab = aff_bytes(S[i].g2);
			const void *pts =
			    S[i].dev ? (const void *)((const char *)S[i].dev + off * ab)
				     : (const void *)((char *)g->d_stage[b] + S[i].at * chunk);
			char *slot = (char *)m->d_wsum + i * WSLOT;
			if (S[i].g2)
				CKR(run<Fq2>(g, m, m, s, pts, slot, err, errlen));
			else
				CKR(run<Fq>(g, m, m, s, pts, slot, err, errlen));
		}
		CK(cudaEventRecord(g->lev[2 + b], s)); /* buffer b is free again */
		CK(cudaMemcpyAsync(hs, m->d_wsum, ns * WSLOT, cudaMemcpyDeviceToHost, s));
		CK(cudaStreamSynchronize(s));
		for (int i = 0; i < ns; i++) {
			alignas(16) uint8_t sum[sizeof(G2)];
			combine(S[i].g2, hs + i * WSLOT, m, j ? sum : acc[i]);
			if (j)
				zkg_host_add(CURVE, S[i].g2, acc[i], sum, acc[i]);
		}
	}
	m->split = split;
	m->frac01 = f01 >= 0 && n ? f01 / (double)n : -1;
	return 0;
}

/* Device bytes of one streamed proof's context (chunks of chunk points, per staging
 * bytes per point, work buffers for Jacobian points of js bytes): the proof's buffers
 * (none for a standalone MSM: nv = nd = 0), a chunk's 0/1 split, sort and work buffers,
 * and the two staging buffers */
template <class TR>
double eng<TR>::stream_ctx_bytes(size_t nv, size_t nd, size_t chunk, size_t per, size_t js)
{
	double sort, work;
	msm_bytes(chunk, choose_c(chunk, 1), 1, (double)js, &sort, &work);
	return (4.0 * nd + nv) * 32 + (double)chunk * 40 + sort + work + 2.0 * (double)chunk * per;
}

/* Staging bytes per point of a streamed key's chunks for the sets not in mask: the
 * larger of the witness sets' (A, B1, C, B2 at once) and H's */
template <class TR> size_t eng<TR>::stream_per(int mask)
{
	size_t w = 0, g1 = sizeof(G1A);
	w += (mask & 1) ? 0 : g1;
	w += (mask & 2) ? 0 : g1;
	w += (mask & 4) ? 0 : sizeof(G2A);
	w += (mask & 8) ? 0 : g1;
	return (mask & 16) || w >= g1 ? w : g1;
}

/* A key without window tables: streamed (k->streamed, chunk, resident = *mask) when the
 * caller forces it (g->stream_chunk: every set streamed) or when its points, NTT tables
 * and the windowed working memory of g's proofs in flight do not fit in 95% of the fr
 * bytes free less 1 GiB. Then the chunk is the largest power of two (2^8..2^25) whose
 * contexts fit with every set streamed, and sets stay on the device, B2 first (the
 * largest), then A, B1, C and H, while they fit beside them. -ENOMEM when no chunk fits. */
template <class TR>
int eng<TR>::stream_plan(zka_gpu *g, zka_gpu_key *k, size_t fr, int *mask, char *err, size_t errlen)
{
	size_t g1 = sizeof(G1A), g2 = sizeof(G2A), nv = k->n_vars, nd = k->domain;
	const double GiB = 1073741824.0, avail = fit_bytes(fr);
	const double setb[5] = {(double)nv * g1, (double)nv * g1, (double)nv * g2, (double)nv * g1,
				(double)nd * g1};
	double kb = setb[0] + setb[1] + setb[2] + setb[3] + setb[4];
	double ntt_b = (double)nd * (sizeof(twiddle<Fr>) + sizeof(Fr));
	double win = g->in_flight * ctx_bytes(nv, nd, choose_c(nv, 1), 1, choose_c(nd, 1), 1);
	bool forced = g->stream_chunk > 0;
	*mask = 31;
	if (!forced && kb + ntt_b + win <= avail)
		return 0;
	size_t chunk = forced ? g->stream_chunk : 0;
	for (int e = 25; !forced && e >= 8; e--)
		if (ntt_b + g->in_flight * stream_ctx_bytes(nv, nd, (size_t)1 << e, stream_per(0),
							    sizeof(G2)) <=
		    avail) {
			chunk = (size_t)1 << e;
			break;
		}
	if (!chunk) {
		zkg_errf(err, errlen,
			 "zka_gpu_key_load: %d proofs of this key (%.1f GiB of points) do "
			 "not fit in the %.1f GiB of device memory free, even streamed",
			 g->in_flight, kb / GiB, fr / GiB);
		return -ENOMEM;
	}
	*mask = 0;
	double res = ntt_b;
	static const int order[5] = {2, 0, 1, 3, 4};
	for (int q = 0; !forced && q < 5; q++) {
		int i = order[q], m2 = *mask | 1 << i;
		if (res + setb[i] +
			g->in_flight *
			    stream_ctx_bytes(nv, nd, chunk, stream_per(m2), sizeof(G2)) <=
		    avail) {
			*mask = m2;
			res += setb[i];
		}
	}
	k->streamed = 1;
	k->chunk = chunk;
	k->resident = *mask;
	static const char *nm[5] = {"A", "B1", "B2", "C", "H"};
	char host[32] = "", dev[32] = "";
	for (int i = 0; i < 5; i++) {
		char *d = *mask >> i & 1 ? dev : host;
		snprintf(d + strlen(d), 32 - strlen(d), "%s%s", *d ? " " : "", nm[i]);
	}
	if (forced)
		snprintf(k->mode, sizeof k->mode,
			 "streamed MSM (forced: chunks of %zu points): sets %s stream from "
			 "%s host memory",
			 chunk, host, k->pinned ? "pinned" : "PAGEABLE (slow copies)");
	else if (!*host) /* all sets fit: only the MSMs' working memory is cut */
		snprintf(k->mode, sizeof k->mode,
			 "streamed MSM: the key's points (%.1f GiB) and %d proofs' working "
			 "memory (%.1f GiB) do not fit in the %.1f GiB free; every set stays "
			 "on the device, the MSMs run in chunks of 2^%d points",
			 kb / GiB, g->in_flight, win / GiB, fr / GiB, __builtin_ctzll(chunk));
	else
		snprintf(k->mode, sizeof k->mode,
			 "streamed MSM: the key's points (%.1f GiB) and %d proofs' working "
			 "memory (%.1f GiB) do not fit in the %.1f GiB free; sets %s stream "
			 "from %s host memory in chunks of 2^%d points%s%s",
			 kb / GiB, g->in_flight, win / GiB, fr / GiB, host,
			 k->pinned ? "pinned" : "PAGEABLE (slow copies)", __builtin_ctzll(chunk),
			 *dev ? ", on the device: " : "", dev);
	return 0;
}

} // namespace zkg
