/* drv_msm.cuh - the engine's MSM driver (struct eng, drv_eng.cuh), for one scalar set on a
 * stream: the window size and the digit plan (choose_c, digit_plan_of), the scratch's sizes
 * against the free device memory (fit_bytes, msm_bytes, work_grow), the 0/1 split of witness
 * scalars (split01), prepare (the signed digits and the two-level bucket sort, msm_sort.cuh),
 * run (the accumulation and the reduction in levels, msm_accumulate.cuh, msm_reduce.cuh) and
 * combine (the reduction's planes summed on the host).
 * Speed: bound by the bucket accumulation's mixed additions (msm_accumulate.cuh); the driver's
 * cost is launch latency and the host's combination of the planes (~0.1 ms). */
#pragma once
#include "cuda/drv_eng.cuh"

namespace zkg
{

/* The digit plan for window size c and points that come with up to tmax copies (window
 * tables; 1: none): copies = min(W, tmax) (see digit_plan). Shared buckets (copies = W)
 * narrow the windows past the first r to c - 1 bits, r the fewest c-bit windows with which
 * W windows cover FR_BITS + 1 bits (the signed digits' carry out of the top window is then
 * 0); fewer copies keep all windows c bits wide, so that every group's copy t is the same
 * multiple 2^(c t). */
template <class TR> digit_plan eng<TR>::digit_plan_of(int c, int tmax)
{
	int W = windows(c), r = TR::FR_BITS + 1 - W * (c - 1);
	if (tmax >= W)
		return {c, W, r < 0 ? 0 : r > W ? W : r, W};
	return {c, W, W, tmax < 1 ? 1 : tmax};
}

/* Window size for n points with up to tmax copies of them (window tables): minimise
 * W n A + G 2^(c-1) R, accumulation A per entry and reduction R per bucket for G =
 * ceil(W / min(W, tmax)) groups, R/A ~ 7 as measured in the first version (one thread per
 * bucket task, one-level reduction; not re-tuned since). Windowed (tmax = 1): W (n A +
 * 2^(c-1) R); shared buckets (tmax >= W): the reduction is paid once. c <= 20 keeps the
 * buckets' scratch small and bounds the tables (min(W, tmax) copies of the points). */
template <class TR> int eng<TR>::choose_c(size_t n, int tmax)
{
	int c = 4;
	double best = 1e300;
	for (int cc = 4; cc <= 20; cc++) {
		int W = windows(cc), t = tmax < 1 ? 1 : tmax < W ? tmax : W;
		double w = W, red = 7.0 * (double)(1u << (cc - 1));
		double cost = w * (double)n + groups(W, t) * red;
		if (cost < best) {
			best = cost;
			c = cc;
		}
	}
	return c;
}

/* The device bytes a key's tables, streamed sets or an MSM's buffers may plan to take of
 * fr bytes free: 95% less 1 GiB (room for the runtime, fragmentation and the estimates'
 * error; key_load, stream_plan, msm_inner) */
template <class TR> double eng<TR>::fit_bytes(size_t fr)
{
	return 0.95 * (double)fr - 1073741824.0;
}

/* Sizes the bucket work buffers of w for the scalar set prepared in p (w may be p), for
 * points whose Jacobian form takes js bytes (G1 or G2: the lane's): buckets, first and
 * last pieces of the flat split's runs (then the reduction's plane chunks), nbig and the
 * big-bucket list, the reduction's S, T, G and U, the ones sums and the result slots. */
template <class TR>
int eng<TR>::work_grow(zkg_msm_scratch *w, const zkg_msm_scratch *p, size_t js, char *err,
		       size_t errlen)
{
	size_t nb = (size_t)nwins(p) * p->M, L1 = red_l1(p->M), L2 = red_l2(p->M);
	CKR(grow(&w->d_buckets, &w->bucket_bytes, nb * js, err, errlen));
	CKR(grow((void **)&w->d_task, &w->task_bytes, (nb + 2 + p->tmax) * sizeof(uint32_t), err,
		 errlen));
	size_t nplane = (size_t)nwins(p) * red_np(p->M) * red_nch(p->M);
	size_t npart = 2 * p->tmax > nplane ? 2 * p->tmax : nplane;
	CKR(grow(&w->d_partials, &w->partial_bytes, npart * js, err, errlen));
	CKR(grow(&w->d_segs, &w->seg_bytes, (2 * nb / L1 + 2 * nb / (L1 * L2)) * js, err, errlen));
	if (!w->d_wsum)
		CK(cudaMalloc(&w->d_wsum, 8 * WSLOT));
	if (!w->d_ones_part)
		CK(cudaMalloc(&w->d_ones_part, ONES_PARTS * ZKG_JAC_MAX));
	return 0;
}

/* Device bytes of one MSM's bucket sort (sort) and of one lane's work buffers for points
 * of js bytes (Jacobian) (work), for n scalars and the window plan (c, copies): the sizes
 * prepare and work_grow allocate, with runs of 64 entries (flat_run makes ~96) */
template <class TR>
void eng<TR>::msm_bytes(size_t n, int c, int copies, double js, double *sort, double *work)
{
	int W = windows(c);
	double ent = (double)n * W;
	double nb = (double)groups(W, copies < W ? copies : W) * (double)(1u << (c - 1));
	double tmax = ent / 64 + 1;
	*sort = ent * 10 + (ent / ZKG_CHUNK + nb / ZKG_FINE) * ZKG_FINE * 4 + 8 * (nb + 1);
	*work = nb * js + (nb + tmax) * 4 + 2 * tmax * js + (nb / 4 + nb / 16) * js;
}

/* the 0/1 split's buffers for n scalars (msm_split.cuh) */
template <class TR> int eng<TR>::split_grow(zkg_msm_scratch *m, size_t n, char *err, size_t errlen)
{
	if (!m->d_cnt)
		CK(cudaMalloc((void **)&m->d_cnt, 2 * sizeof(uint32_t)));
	if (m->split_cap >= n)
		return 0;
	void **p[3] = {&m->d_cks, (void **)&m->d_cidx, (void **)&m->d_ones_idx};
	size_t es[3] = {sizeof(scal), sizeof(uint32_t), sizeof(uint32_t)};
	m->split_cap = 0;
	for (int i = 0; i < 3; i++) { /* cudaFree waits for the whole device: not on NULL */
		if (*p[i])
			CK(cudaFree(*p[i]));
		*p[i] = NULL;
	}
	for (int i = 0; i < 3; i++)
		CK(cudaMalloc(p[i], n * es[i]));
	m->split_cap = n;
	return 0;
}

/* The 0/1 split of n scalars when split_ok and g's threshold allow (zka_gpu_set_split01):
 * k_split01 counts the ones and the others, the host reads the counts (one round trip) and,
 * when the fraction of 0/1 is at least the threshold, a second k_split01 compacts them:
 * m->split, ns (scalars left for the buckets), n_ones, frac01; *ks and *idx then point at
 * the compacted scalars and their indices. */
template <class TR>
int eng<TR>::split01(zka_gpu *g, zkg_msm_scratch *m, size_t n, bool split_ok, const scal **ks,
		     const uint32_t **idx, char *err, size_t errlen)
{
	m->split = 0;
	m->frac01 = -1;
	m->ns = n;
	m->n_ones = 0;
	*idx = NULL;
	if (!split_ok || !(g->split01 <= 1.0) || n == 0)
		return 0;
	CKR(split_grow(m, n, err, errlen));
	unsigned nbs = nblk(n, ZKG_SPLIT_T * ZKG_SPLIT_ITEMS);
	uint32_t hc[2];
	CK(cudaMemsetAsync(m->d_cnt, 0, 2 * sizeof(uint32_t), g->s));
	k_split01<<<nbs, ZKG_SPLIT_T, 0, g->s>>>(*ks, (uint32_t)n, m->d_cnt, NULL, NULL, NULL);
	CKL();
	CK(cudaMemcpyAsync(hc, m->d_cnt, sizeof hc, cudaMemcpyDeviceToHost, g->s));
	CK(cudaStreamSynchronize(g->s));
	m->frac01 = (double)(n - hc[1]) / (double)n;
	if (m->frac01 < g->split01)
		return 0;
	CK(cudaMemsetAsync(m->d_cnt, 0, 2 * sizeof(uint32_t), g->s));
	k_split01<<<nbs, ZKG_SPLIT_T, 0, g->s>>>(*ks, (uint32_t)n, m->d_cnt, (scal *)m->d_cks,
						 m->d_cidx, m->d_ones_idx);
	CKL();
	m->split = 1;
	m->ns = hc[1];
	m->n_ones = hc[0];
	*ks = (const scal *)m->d_cks;
	*idx = m->d_cidx;
	return 0;
}

/* Sorts the digits of n scalars (device) into buckets: c = 0 chooses the window size;
 * the points come with up to tmax copies (window tables, see digit_entries; 1: none, and
 * with a key's tables c and tmax are the key's): the entries by
 * bucket in d_vals, the buckets' starts in d_offsets (k_sort_count, k_sort_plan,
 * k_sort_scatter, then k_chunk_count, k_chunk_base, k_chunk_place). split_ok: the scalars
 * may take the 0/1 split (split01; the witness MSMs'), which then sorts only the others. */
template <class TR>
int eng<TR>::prepare(zka_gpu *g, zkg_msm_scratch *m, const void *d_scalars, size_t n, int c,
		     int tmax, bool split_ok, char *err, size_t errlen)
{
	const scal *ks = (const scal *)d_scalars;
	const uint32_t *idx = NULL;
	CKR(split01(g, m, n, split_ok, &ks, &idx, err, errlen));
	size_t ns = m->ns;
	if (!c)
		c = choose_c(ns, tmax);
	const digit_plan dp = digit_plan_of(c, tmax);
	int W = dp.W;
	if ((double)dp.copies * (double)n >= 2147483648.0) {
		zkg_errf(err, errlen, "zkg msm: %zu points x %d copies do not fit 31-bit entries",
			 n, dp.copies);
		return -EINVAL;
	}
	uint32_t M = 1u << (c - 1), G = groups(W, dp.copies);
	size_t nb = (size_t)G * M;
	if ((size_t)G * red_np(M) + 1 > WSLOT_PTS) {
		zkg_errf(err, errlen,
			 "zkg msm: window size %d gives more reduction planes than a slot holds",
			 c);
		return -EINVAL;
	}
	m->copies = dp.copies;
	m->c = c;
	m->W = W;
	m->M = M;
	m->n = n;
	m->d_scalars = d_scalars;
	/* counts and offsets in one allocation */
	if (m->counts_cap < nb + 1) {
		if (m->d_counts)
			CK(cudaFree(m->d_counts));
		m->d_counts = NULL;
		m->counts_cap = 0;
		CK(cudaMalloc(&m->d_counts, 2 * (nb + 1) * sizeof(uint32_t)));
		m->counts_cap = nb + 1;
	}
	m->d_offsets = m->d_counts + m->counts_cap;
	/* the bucket sort's counters in the first half: scount, soff, cursor and cst (nsup
	 * + 1 each; 4 (nb / ZKG_FINE + 2) <= nb + 1 as nb >= 8) */
	uint32_t nsup = (uint32_t)((nb + ZKG_FINE - 1) / ZKG_FINE);
	uint32_t *scount = m->d_counts, *soff = scount + nsup + 1, *cursor = soff + nsup + 1,
		 *cst = cursor + nsup + 1;
	/* level 1: threads per block, a power of two with T W <= ZKG_SORT_ENT (W <= 64) */
	uint32_t T = 1024;
	while (T > 32 && T * (uint32_t)W > ZKG_SORT_ENT)
		T >>= 1;
	size_t sh_scatter = (2 * (size_t)(nsup + 1) + T + 1) * 4 + (size_t)T * W * 10;
	if (sh_scatter > ZKG_SORT_SMEM) {
		zkg_errf(err, errlen,
			 "zkg msm: %zu buckets need %zu bytes of shared memory to sort (at "
			 "most %d)",
			 nb, sh_scatter, ZKG_SORT_SMEM);
		return -EINVAL;
	}
	size_t ent = ns * (size_t)W, nchunk = ent / ZKG_CHUNK + nsup; /* chunks: a bound */
	/* buffers of at least one entry (none when the split left no scalar for the
	 * buckets) */
	size_t vb = (ent ? ent : 1) * sizeof(uint32_t);
	size_t vcap = m->vals_cap * sizeof(uint32_t);
	CKR(grow((void **)&m->d_vals, &vcap, vb, err, errlen));
	m->vals_cap = vcap / sizeof(uint32_t);
	CKR(grow((void **)&m->d_slots, &m->slot_bytes, vb, err, errlen));
	CKR(grow((void **)&m->d_low, &m->low_bytes, (ent ? ent : 1) * sizeof(uint16_t), err,
		 errlen));
	CKR(grow((void **)&m->d_ccnt, &m->ccnt_bytes, nchunk * ZKG_FINE * sizeof(uint32_t), err,
		 errlen));
	/* runs of the flat split: run's count for either point type, plus one (it was
	 * ent / ZKG_RUN_MIN, three times the ~96-entry runs flat_run makes: at BLS12-381
	 * 2^24 that bound held 4.5 GB of pieces per lane) */
	uint32_t r1 = flat_run<Fq>(g, m), r2 = flat_run<Fq2>(g, m), rmin = r1 < r2 ? r1 : r2;
	m->tmax = (ent + rmin - 1) / rmin + 1;

	bool prof = getenv("ZKG_PROFILE") != NULL;
	if (prof)
		CK(cudaEventRecord(g->ev[6], g->s));
	CK(cudaMemsetAsync(scount, 0, nsup * sizeof(uint32_t), g->s));
	size_t nl = ns ? ns : 1; /* grids of at least one block (all scalars 0/1 after the split) */
	k_sort_count<<<nblk(nl, 256), 256, nsup * sizeof(uint32_t), g->s>>>(ks, (uint32_t)ns, dp,
									    nsup, scount);
	CKL();
	k_sort_plan<<<1, 1024, 0, g->s>>>(scount, nsup, soff, cursor, cst);
	CKL();
	/* one bound for every launch (see ntt_pass on why not this launch's size) */
	CK(cudaFuncSetAttribute(k_sort_scatter, cudaFuncAttributeMaxDynamicSharedMemorySize,
				ZKG_SORT_SMEM));
	k_sort_scatter<<<nblk(nl, T), T, sh_scatter, g->s>>>(ks, (uint32_t)ns, idx, (uint32_t)n, dp,
							     nsup, cursor, m->d_slots, m->d_low);
	CKL();
	k_chunk_count<<<(unsigned)nchunk, ZKG_CHUNK_T, 0, g->s>>>(soff, cst, nsup, m->d_low,
								  m->d_ccnt);
	CKL();
	k_chunk_base<<<nsup, ZKG_FINE, 0, g->s>>>(soff, cst, (uint32_t)nb, m->d_ccnt, m->d_offsets);
	CKL();
	CK(cudaFuncSetAttribute(k_chunk_place, cudaFuncAttributeMaxDynamicSharedMemorySize,
				ZKG_PLACE_SMEM));
	k_chunk_place<<<(unsigned)nchunk, ZKG_CHUNK_T, ZKG_PLACE_SMEM, g->s>>>(
	    soff, cst, nsup, m->d_slots, m->d_low, m->d_ccnt, m->d_vals);
	CKL();
	if (prof) {
		CK(cudaEventRecord(g->ev[7], g->s));
		CK(cudaEventSynchronize(g->ev[7]));
		float t;
		CK(cudaEventElapsedTime(&t, g->ev[6], g->ev[7]));
		fprintf(stderr, "zkg msm prepare n=%zu c=%d W=%d copies=%d: digits+sort %.3f ms\n",
			n, c, W, dp.copies, t);
	}
	return 0;
}

/* Entries per thread of the flat split: whole waves of resident threads (SMs x PER_SM),
 * as few waves as keep runs near 96 entries, and never below ZKG_RUN_MIN (the pieces
 * k_gather_runs adds grow as runs shrink). The entry count is the bound ns W (0/1 scalars
 * have none, leaving some threads idle unless the 0/1 split took them out of ns). */
template <class TR>
template <class F>
uint32_t eng<TR>::flat_run(const zka_gpu *g, const zkg_msm_scratch *m)
{
	double entries = (double)m->ns * m->W, resident = (double)g->sms * lb<F>::PER_SM;
	double waves = floor(entries / (resident * 96.0) + 0.5);
	if (waves < 1)
		waves = 1;
	uint32_t run = (uint32_t)ceil(entries / (waves * resident));
	return run < ZKG_RUN_MIN ? ZKG_RUN_MIN : run;
}

/* Device part of one MSM over the scalars prepared in m, with w's work buffers (sized by
 * work_grow; w may be m), on stream st: the reduction planes (then the ones sum) go to ws.
 */
template <class TR>
template <class F>
int eng<TR>::run(zka_gpu *g, const zkg_msm_scratch *m, zkg_msm_scratch *w, cudaStream_t st,
		 const void *d_points, void *ws_out, char *err, size_t errlen)
{
	using J = jac_t<F>;
	using A = aff_t<F>;
	uint32_t nwin = nwins(m);
	size_t nb = (size_t)nwin * m->M;
	uint32_t L1 = red_l1(m->M), L2 = red_l2(m->M);
	bool prof = st == g->s && getenv("ZKG_PROFILE") != NULL; /* kernel times: one stream only */
	/* d_task: nbig, nown, the big-bucket list (nb), the owned buckets (tmax) */
	uint32_t *nbig = w->d_task, *nown = nbig + 1, *big = nbig + 2, *owners = big + nb;
	J *first = (J *)w->d_partials, *last = first + m->tmax;
	/* after the 0/1 split the ones are summed here, one wave of blocks over their list
	 * (else by ONES_BLOCKS blocks beside k_red2's groups, scanning all n scalars) */
	uint32_t nones = ONES_BLOCKS;
	if (m->split) {
		uint32_t per_sm = lb<F>::PER_SM / ZKG_SUM_T;
		nones = (uint32_t)g->sms * (per_sm ? per_sm : 1);
		nones = nones < ONES_PARTS ? nones : ONES_PARTS;
		k_ones_list<F><<<nones, ZKG_SUM_T, ZKG_SUM_T * sizeof(J), st>>>(
		    (const A *)d_points, m->d_ones_idx, (uint32_t)m->n_ones, (J *)w->d_ones_part);
		CKL();
	}
	if (prof)
		CK(cudaEventRecord(g->ev[9], st));
	uint32_t run = flat_run<F>(g, m), nrun = (uint32_t)((m->ns * m->W + run - 1) / run);
	if (!nrun)
		nrun = 1;
	CK(cudaMemsetAsync(nbig, 0, 2 * sizeof(uint32_t), st)); /* nbig, nown */
	/* k_flat's two point slots per thread stay within the default dynamic shared memory
	 */
	static_assert(2 * lb<F>::T * sizeof(A) <= 48 * 1024,
		      "k_flat's slots need cudaFuncSetAttribute");
	k_flat<F, typename bucket_acc<F>::type>
	    <<<nblk(nrun, lb<F>::T), lb<F>::T, 2 * lb<F>::T * sizeof(A), st>>>(
		(const A *)d_points, m->d_vals, m->d_offsets, (uint32_t)nb, run, nrun,
		(J *)w->d_buckets, first, last, nown, owners);
	CKL();
	if (prof)
		CK(cudaEventRecord(g->ev[10], st));
	/* a bound on the listed buckets: nrun (one per run at most) */
	k_gather_runs<F><<<nblk(nrun, 128), 128, 0, st>>>(m->d_offsets, run, nown, owners, first,
							  last, (J *)w->d_buckets, nbig, big);
	CKL();
	k_gather_big<F><<<264, ZKG_SUM_T, ZKG_SUM_T * sizeof(J), st>>>(
	    m->d_offsets, run, first, last, (J *)w->d_buckets, nbig, big);
	CKL();
	if (prof)
		CK(cudaEventRecord(g->ev[11], st));
	uint32_t nseg = (uint32_t)(nb / L1), ngrp = nseg / L2, per = red_per(m->M);
	uint32_t np = red_np(m->M), nch = red_nch(m->M);
	J *S = (J *)w->d_segs, *T = S + nseg, *Gs = T + nseg, *U = Gs + ngrp;
	k_red1<F><<<nblk(nseg, 128), 128, 0, st>>>((const J *)w->d_buckets, m->d_offsets, L1, nseg,
						   S, T);
	CKL();
	size_t sh_sum = ZKG_SUM_T * sizeof(J);
	/* level 2, then ONES_BLOCKS blocks of the ones' sum (as many threads: ZKG_SUM_T) */
	static_assert(ZKG_SUM_T == 128, "k_red2's blocks are ones_block's");
	uint32_t nred = nblk((size_t)ngrp * red2_lanes<F>(), 128);
	k_red2<F><<<nred + (m->split ? 0 : ONES_BLOCKS), 128, sh_sum, st>>>(
	    S, T, L1, L2, ngrp, Gs, U, nred, (const A *)d_points, (const scal *)m->d_scalars,
	    (uint32_t)m->n, (J *)w->d_ones_part);
	CKL();
	J *ws = (J *)ws_out;
	if (prof)
		CK(cudaEventRecord(g->ev[12], st));
	/* the flat split's pieces are consumed: d_partials holds the plane chunks */
	k_planes<F>
	    <<<nwin * np * nch, ZKG_SUM_T, sh_sum, st>>>(Gs, U, per, np, nch, (J *)w->d_partials);
	CKL();
	/* level 4: 64 threads per plane (nch <= 128 chunk sums) */
	k_sum<F><<<nwin * np, 64, 64 * sizeof(J), st>>>((const J *)w->d_partials, nch, ws);
	CKL();
	if (prof)
		CK(cudaEventRecord(g->ev[13], st));
	/* the ones' sum goes right after the planes of the slot */
	k_sum<F><<<1, ZKG_SUM_T, sh_sum, st>>>((const J *)w->d_ones_part, nones,
					       ws + (size_t)nwin * np);
	CKL();
	if (prof) {
		CK(cudaEventRecord(g->ev[14], st));
		CK(cudaEventSynchronize(g->ev[14]));
		float t[5];
		for (int i = 0; i < 5; i++)
			CK(cudaEventElapsedTime(&t[i], g->ev[9 + i], g->ev[10 + i]));
		fprintf(stderr,
			"zkg msm %s n=%zu c=%d W=%d: flat %.3f gather %.3f reduce+ones "
			"%.3f sum %.3f ones-sum %.3f ms; flat %.3f ns per entry of %zu\n",
			sizeof(F) == sizeof(Fq) ? "G1" : "G2", m->n, m->c, m->W, t[0], t[1], t[2],
			t[3], t[4], t[0] * 1e6 / ((double)m->ns * m->W + 1e-9),
			(size_t)m->ns * m->W);
	}
	return 0;
}

/* the planes of the slot of m (already on the host) -> Jacobian result */
template <class TR>
void eng<TR>::combine(int g2, const void *hslot, const zkg_msm_scratch *m, void *out)
{
	size_t js = g2 ? sizeof(G2) : sizeof(G1);
	uint32_t W = nwins(m), np = red_np(m->M),
		 sh = (uint32_t)__builtin_ctz(red_l1(m->M) * red_l2(m->M));
	zkg_host_combine(CURVE, g2, hslot, (int)W, m->c * m->copies, (int)np, (int)sh,
			 (const char *)hslot + W * np * js, out);
}

} // namespace zkg
