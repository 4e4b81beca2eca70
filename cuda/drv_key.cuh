/* drv_key.cuh - the device key (struct eng, drv_eng.cuh): key_load allocates the five point
 * sets (alloc_sets), copies them (upload, upload_set: in pieces that never span two host
 * registrations, through the upload gate or the stager when set), chooses the window tables'
 * copies under the memory check (ctx_bytes: the proofs in flight's working memory left free;
 * fewer copies, then streamed sets, when they do not fit) and builds the tables (precompute,
 * tables_on; tables_build on the background stream, throttled).
 * Speed: bound by the copies' PCIe bandwidth (pinned ~51-53 GB/s) and the tables' build
 * (~1.1 s of device time for BN254 2^22's 19.5 GiB). */
#pragma once
#include "cuda/drv_eng.cuh"

namespace zkg
{

/* Device bytes one context needs to prove with a key of nv variables and domain nd, its
 * sets' plans (cv, tv) and (ch, th): the proof's buffers, the 0/1 split's, the witness
 * sort with lanes A, B1, C (G1) and B2 (G2), the H sort and lane; the larger of that and
 * of the windowed plans (the proofs before the tables are built). */
template <class TR> double eng<TR>::ctx_bytes(size_t nv, size_t nd, int cv, int tv, int ch, int th)
{
	double best = 0;
	for (int pass = 0; pass < 2; pass++) {
		if (pass) {
			cv = choose_c(nv, 1);
			ch = choose_c(nd, 1);
			tv = th = 1;
		}
		double sv, w1, w2, sh, wh;
		msm_bytes(nv, cv, tv, sizeof(G1), &sv, &w1);
		msm_bytes(nv, cv, tv, sizeof(G2), &sv, &w2);
		msm_bytes(nd, ch, th, sizeof(G1), &sh, &wh);
		double b = (4.0 * nd + nv) * 32 + (double)nv * 40 + sv + 3 * w1 + w2 + sh + wh;
		best = b > best ? b : best;
	}
	return best;
}

/* Window tables in place: tab holds n affine points followed by room for T-1 more copies
 * (T = digit_plan_of(c, tmax).copies); fills copy t with 2^(start of window t) times the
 * points (k_precomp_dbl per copy, then k_precomp_norm), in chunks of 2^18 points, on stream
 * st. Its scratch is stream-ordered (cudaMallocAsync / cudaFreeAsync on st). Without thr
 * nothing here waits for the device (the caller synchronizes st). With thr (a build in the
 * background, on its own host thread) at most two launches are queued at any time: see
 * zkg_throttle. Copy 0 is only read. */
template <class TR>
template <class F>
int eng<TR>::precompute(cudaStream_t st, void *tab, size_t n, int c, int tmax, zkg_throttle *thr,
			char *err, size_t errlen)
{
	const digit_plan dp = digit_plan_of(c, tmax);
	int W = dp.copies;
	if (W < 2 || n == 0)
		return 0;
	size_t chunk = n < ((size_t)1 << 18) ? n : ((size_t)1 << 18);
	void *z = NULL, *pre = NULL;
	CK(cudaMallocAsync(&z, (size_t)(W - 1) * chunk * sizeof(F), st));
	cudaError_t e = cudaMallocAsync(&pre, (size_t)(W - 1) * chunk * sizeof(F), st);
	for (size_t i0 = 0; e == cudaSuccess && i0 < n; i0 += chunk) {
		size_t cnt = n - i0 < chunk ? n - i0 : chunk;
		for (int w = 1; e == cudaSuccess && w <= W; w++) {
			if (w < W)
				k_precomp_dbl<F><<<nblk(cnt, 128), 128, 0, st>>>(
				    (aff_t<F> *)tab, (uint32_t)n, (uint32_t)i0, (uint32_t)cnt, dp,
				    w, (F *)z, (F *)pre);
			else
				k_precomp_norm<F><<<nblk(cnt, 128), 128, 0, st>>>(
				    (aff_t<F> *)tab, (uint32_t)n, (uint32_t)i0, (uint32_t)cnt, W,
				    (F *)z, (F *)pre);
			e = cudaGetLastError();
			if (e == cudaSuccess && thr)
				e = zkg_throttle_step(thr, st);
		}
	}
	/* freed behind the kernels in stream order (both calls accept NULL) */
	cudaError_t f = cudaFreeAsync(z, st);
	if (pre && f == cudaSuccess)
		f = cudaFreeAsync(pre, st);
	CK(e);
	CK(f);
	return 0;
}

/* The five point sets' tables, on st (see precompute) */
template <class TR>
int eng<TR>::tables_on(cudaStream_t st, zka_gpu_key *k, zkg_throttle *thr, char *err, size_t errlen)
{
	size_t nv = k->n_vars, nd = k->domain;
	CKR(precompute<Fq>(st, k->d_A, nv, k->c_v, k->t_v, thr, err, errlen));
	CKR(precompute<Fq>(st, k->d_B1, nv, k->c_v, k->t_v, thr, err, errlen));
	CKR(precompute<Fq>(st, k->d_C, nv, k->c_v, k->t_v, thr, err, errlen));
	CKR(precompute<Fq2>(st, k->d_B2, nv, k->c_v, k->t_v, thr, err, errlen));
	CKR(precompute<Fq>(st, k->d_H, nd, k->c_h, k->t_h, thr, err, errlen));
	return 0;
}

/* zkg_ops.tables_build: a background build on k->s_bg, run by the key's build thread
 * (zka_gpu.cu), throttled; ev_t0 and ev_t1 around it */
template <class TR>
int eng<TR>::tables_build(zka_gpu_key *k, zkg_throttle *thr, char *err, size_t errlen)
{
	CK(cudaEventRecord(k->ev_t0, k->s_bg));
	CKR(tables_on(k->s_bg, k, thr, err, errlen));
	CK(cudaEventRecord(k->ev_t1, k->s_bg));
	return 0;
}

/* device memory for the key's five point sets, W copies each (window tables); on failure
 * the sets allocated so far are freed and the runtime's error returned */
template <class TR> cudaError_t eng<TR>::alloc_sets(zka_gpu_key *k, size_t Wv, size_t Wh, int mask)
{
	size_t g1 = sizeof(G1A), g2 = sizeof(G2A), nv = k->n_vars, nd = k->domain;
	void **p[5] = {&k->d_A, &k->d_B1, &k->d_B2, &k->d_C, &k->d_H};
	size_t bytes[5] = {Wv * nv * g1, Wv * nv * g1, Wv * nv * g2, Wv * nv * g1, Wh * nd * g1};
	for (int i = 0; i < 5; i++) {
		if (!(mask >> i & 1)) /* streamed: no device copy */
			continue;
		cudaError_t e = cudaMalloc(p[i], bytes[i]);
		if (e != cudaSuccess) {
			(void)cudaGetLastError(); /* an allocation error is not sticky:
						     clear it */
			free_sets(k);
			return e;
		}
	}
	return cudaSuccess;
}

template <class TR> void eng<TR>::free_sets(zka_gpu_key *k)
{
	void **p[5] = {&k->d_A, &k->d_B1, &k->d_B2, &k->d_C, &k->d_H};
	for (int i = 0; i < 5; i++) {
		cudaFree(*p[i]); /* a pointer from a successful cudaMalloc, or NULL */
		*p[i] = NULL;
	}
}

/* A key set's copy to the device on g->s, in copies that end at every ZKG_KEY_PIECE of
 * the source's addresses, where zka_gpu_pin_key's registrations end */
template <class TR>
int eng<TR>::upload(zka_gpu *g, void *dst, const void *src, size_t bytes, char *err, size_t errlen)
{
	return upload_on(g->s, dst, src, bytes, err, errlen);
}

/* A key set's copy: through g's stager (waiting for it) when g has one and src is not
 * page-locked (k->staged then says so), else upload's on g->s */
template <class TR>
int eng<TR>::upload_set(zka_gpu *g, zka_gpu_key *k, void *dst, const void *src, size_t bytes,
			char *err, size_t errlen)
{
	if (!g->stg || zkg_is_pinned(src))
		return upload(g, dst, src, bytes, err, errlen);
	k->staged = zkg_stage_threads(g);
	return zkg_stage_copy(g, dst, src, bytes, err, errlen);
}

template <class TR>
int eng<TR>::upload_on(cudaStream_t st, void *dst, const void *src, size_t bytes, char *err,
		       size_t errlen)
{
	const char *a = (const char *)src, *end = a + bytes;
	const uintptr_t piece = zkg_key_piece();
	while (a < end) {
		uintptr_t nx = ((uintptr_t)a & ~(piece - 1)) + piece;
		const char *b = (uintptr_t)end < nx ? end : (const char *)nx;
		CK(cudaMemcpyAsync((char *)dst + (a - (const char *)src), a, (size_t)(b - a),
				   cudaMemcpyHostToDevice, st));
		a = b;
	}
	return 0;
}

template <class TR>
int eng<TR>::key_load(zka_gpu *g, const zka_pk *pk, zka_gpu_key *k, char *err, size_t errlen)
{
	size_t g1 = sizeof(G1A), g2 = sizeof(G2A), nv = pk->n_vars, nd = pk->domain_size;
	if (pk->domain_size < 2 || (pk->domain_size & (pk->domain_size - 1)) ||
	    pk->n_public + 1 > pk->n_vars) {
		zkg_errf(err, errlen,
			 "zka_gpu_key_load: bad key shape (domain %u, n_vars %u, n_public %u)",
			 pk->domain_size, pk->n_vars, pk->n_public);
		return -EINVAL;
	}
	/* the H kinds the device computes (hpoly_dev): snarkjs's coset H (its root), and
	 * bellperson's monomial H with either root family (GEN7 on BLS12-381 only); anything else
	 * would give wrong proofs, so it is refused */
	if (!(pk->h_kind == ZKA_H_COSET && pk->root == ZKA_ROOT_SNARKJS) &&
	    !(pk->h_kind == ZKA_H_MONOMIAL &&
	      (pk->root == ZKA_ROOT_SNARKJS ||
	       (pk->root == ZKA_ROOT_GEN7 && CURVE == ZKA_BLS12_381)))) {
		zkg_errf(err, errlen,
			 "zka_gpu_key_load: a key with H kind %u and domain roots %u is not "
			 "supported on the GPU (it proves coset-H keys with snarkjs's roots and "
			 "monomial-H keys with snarkjs's or, on BLS12-381, bellperson's 7^t roots)",
			 pk->h_kind, pk->root);
		return -ENOTSUP;
	}
	/* Window tables: as many copies as the context's budget allows (zkg_table_copies,
	 * relative to the key's own points), fewer while they and the working memory of
	 * g's proofs in flight (zka_gpu_set_proofs_in_flight, ctx_bytes) would not fit in
	 * 95% of the free device memory less 1 GiB, or not in 31-bit entries; none
	 * (windowed) when even two copies do not */
	const double kb = (double)nv * (3 * g1 + g2) + (double)nd * g1;
	int tmax = zkg_table_copies(g), cv = 0, ch = 0;
	size_t Wv = 1, Wh = 1;
	double tab = kb, work = 0;
	size_t fr = 0, tot = 0;
	CK(cudaMemGetInfo(&fr, &tot));
	if (const char *fe = getenv("ZKG_FREE_BYTES")) { /* test hook (gpu_test): less */
		unsigned long long v = strtoull(fe, NULL, 10);
		fr = v && v < fr ? (size_t)v : fr;
	}
	const double GiB = 1073741824.0;
	int want = tmax; /* the budget's copies before the memory check */
	for (; tmax > 1; tmax--) {
		cv = choose_c(nv, tmax);
		ch = choose_c(nd, tmax);
		Wv = (size_t)digit_plan_of(cv, tmax).copies;
		Wh = (size_t)digit_plan_of(ch, tmax).copies;
		tab = (double)Wv * nv * (3 * g1 + g2) + (double)Wh * nd * g1;
		work = g->in_flight * ctx_bytes(nv, nd, cv, (int)Wv, ch, (int)Wh);
		if (tab + work <= fit_bytes(fr) && (double)Wv * nv < 2147483648.0 &&
		    (double)Wh * nd < 2147483648.0)
			break;
		/* one copy fewer than the smaller of the two sets has */
		size_t lo = Wv < Wh ? Wv : Wh;
		if ((size_t)tmax > lo)
			tmax = (int)lo;
	}
	char bud[32];
	zkg_budget_str(g, bud, sizeof bud);
	if (g->no_precomp || g->stream_chunk) { /* streamed: stream_plan's mode line */
		k->pc = 0;
		snprintf(k->mode, sizeof k->mode,
			 "windowed MSM (window tables turned off by the caller)");
	} else if (want <= 1) {
		k->pc = 0;
		snprintf(k->mode, sizeof k->mode,
			 "windowed MSM (table budget %s: no window tables for the key's "
			 "%.2f GiB)",
			 bud, kb / GiB);
	} else if (tmax <= 1) {
		k->pc = 0;
		double two = (double)2 * kb;
		snprintf(k->mode, sizeof k->mode,
			 "windowed MSM: even 2 copies of the key's points (%.1f GiB) and %d "
			 "proofs' working memory (%.1f GiB) do not fit in the %.1f GiB free "
			 "(or in 31-bit entries); the window tables are OFF for this key",
			 two / GiB, g->in_flight, work / GiB, fr / GiB);
	} else {
		k->pc = 1;
		k->c_v = cv;
		k->c_h = ch;
		k->t_v = (int)Wv;
		k->t_h = (int)Wh;
		char fewer[160] = "";
		if (tmax < want)
			snprintf(fewer, sizeof fewer,
				 ", fewer copies: device memory, %d proofs' working memory "
				 "of %.1f GiB kept free of %.1f GiB",
				 g->in_flight, work / GiB, fr / GiB);
		snprintf(k->mode, sizeof k->mode,
			 "shared-bucket MSM with window tables (c = %d / %d, %zu / %zu "
			 "copies of %d / %d windows, %.2f GiB, table budget %s%s)",
			 cv, ch, Wv, Wh, windows(cv), windows(ch), tab / GiB, bud, fewer);
	}
	if (!k->pc)
		Wv = Wh = 1;
	int mask = 31; /* the sets on the device */
	if (!k->pc)
		CKR(stream_plan(g, k, fr, &mask, err, errlen));
	cudaError_t ae = alloc_sets(k, Wv, Wh, mask);
	if (k->pc && ae == cudaSuccess && getenv("ZKG_FAIL_TABLE_ALLOC")) /* test hook (gpu_test) */
		ae = cudaErrorMemoryAllocation;
	if (k->pc && ae == cudaErrorMemoryAllocation) {
		/* the memory went to someone else between cudaMemGetInfo and here: keep the
		 * key on the windowed path rather than fail it, and say so in the mode line
		 */
		free_sets(k);
		k->pc = 0;
		Wv = Wh = 1;
		snprintf(k->mode, sizeof k->mode,
			 "windowed MSM: allocating the window tables (%.1f GiB of %.1f GiB "
			 "free) failed: "
			 "out of device memory; the shared-bucket path is OFF for this key",
			 tab / GiB, fr / GiB);
		ae = alloc_sets(k, Wv, Wh, 31);
	}
	CK(ae);
	/* zka_gpu_key_timing's phases: the copies (from a quiet stream), then the tables */
	CK(cudaStreamSynchronize(g->s));
	k->t_copy = zkg_now();
	/* the sets in order, or in the order the caller's gate releases them (each as
	 * soon as its host memory is registered: zka_gpu_set_upload_gate) */
	size_t pre = (size_t)pk->n_public + 1;
	if (mask & 8)
		CK(cudaMemsetAsync(k->d_C, 0, pre * g1, g->s));
	for (int todo = mask; todo;) {
		int i = g->gate ? g->gate(g->gate_arg, todo) : __builtin_ctz((unsigned)todo);
		if (i < 0 || i > 4 || !(todo >> i & 1)) {
			zkg_errf(err, errlen,
				 "zka_gpu_key_load: the upload gate answered %d for sets 0x%x%s%s",
				 i, (unsigned)todo, i < 0 ? ": " : " (not one of them)",
				 i < 0 ? strerror(-i) : "");
			return i < 0 ? i : -EINVAL;
		}
		todo &= ~(1 << i);
		if (i == 0)
			CKR(upload_set(g, k, k->d_A, pk->A, nv * g1, err, errlen));
		else if (i == 1)
			CKR(upload_set(g, k, k->d_B1, pk->B1, nv * g1, err, errlen));
		else if (i == 2)
			CKR(upload_set(g, k, k->d_B2, pk->B2, nv * g2, err, errlen));
		else if (i == 3 && nv > pre)
			CKR(upload_set(g, k, (char *)k->d_C + pre * g1, pk->C, (nv - pre) * g1, err,
				       errlen));
		else if (i == 4)
			CKR(upload_set(g, k, k->d_H, pk->H, nd * g1, err, errlen));
	}
	CK(cudaStreamSynchronize(g->s));
	k->t_uploaded = zkg_now();
	if (k->pc && g->tables_build == ZKA_GPU_TABLES_SYNC) {
		CKR(tables_on(g->s, k, NULL, err, errlen));
		CK(cudaStreamSynchronize(g->s));
		k->t_build = zkg_now() - k->t_uploaded;
		__atomic_store_n(&k->tstate, ZKG_T_READY, __ATOMIC_RELEASE);
	} else if (k->pc) { /* zka_gpu_key_load starts the build (or the caller does) */
		__atomic_store_n(&k->tstate, ZKG_T_HELD, __ATOMIC_RELEASE);
	}
	k->h_mono = pk->h_kind == ZKA_H_MONOMIAL;
	CKR(tables(g, pk->log_domain, pk->root, &k->d_tw, &k->d_itw, &k->d_cs,
		   k->h_mono ? &k->hm : NULL, err, errlen));
	CK(cudaStreamSynchronize(g->s));
	return 0;
}

} // namespace zkg
