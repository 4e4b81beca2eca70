/* drv_prove.cuh - one proof (struct eng, drv_eng.cuh): the proof's device buffers
 * (proof_bufs), a, b (and c, or c = a .* b made on the device) copied and the H polynomial
 * (abc_copy, abc_hpoly), then the witness MSMs A, B1, C, B2 on four lane streams beside the H
 * polynomial's NTTs and the H MSM on the context's stream (prove), or chunk by chunk for a
 * streamed key (prove_streamed); the host adds r, s and converts to affine.
 * Speed: bound by the MSMs' bucket accumulation; the H chain (copies, NTTs, H MSM) runs on the
 * highest-priority stream for large domains so that it ends with the witness MSMs. */
#pragma once
#include "cuda/drv_eng.cuh"

namespace zkg
{

/* the context's proof buffers for a domain of nd and nv variables (grown on demand) */
template <class TR>
int eng<TR>::proof_bufs(zka_gpu *g, size_t nd, size_t nv, char *err, size_t errlen)
{
	if (g->nd_cap >= nd && g->nv_cap >= nv)
		return 0;
	void **bufs[] = {&g->d_a, &g->d_b, &g->d_c, &g->d_h, &g->d_w};
	for (int i = 0; i < 5; i++) {
		/* not on NULL: cudaFree waits for the whole device (a background tables
		 * build included) */
		if (*bufs[i])
			CK(cudaFree(*bufs[i]));
		*bufs[i] = NULL;
	}
	g->nd_cap = g->nv_cap = 0;
	for (int i = 0; i < 5; i++)
		CK(cudaMalloc(bufs[i], (i < 4 ? nd : nv) * sizeof(Fr)));
	g->nd_cap = nd;
	g->nv_cap = nv;
	return 0;
}

/* a, b (and c) to the device on st; a NULL (a slot of form W): a = A w and b = B w made on st
 * from the key's device CSR (zka_gpu_key_set_abc) and d_w, which st must already have copied,
 * in standard form (the caller passes ab_std) */
template <class TR>
int eng<TR>::abc_copy(zka_gpu *g, zka_gpu_key *k, size_t nd, const uint64_t (*a)[4],
		      const uint64_t (*b)[4], const uint64_t (*c)[4], cudaStream_t st, char *err,
		      size_t errlen)
{
	if (!a) {
		if (!__atomic_load_n(&k->ab_set, __ATOMIC_ACQUIRE)) {
			zkg_errf(err, errlen,
				 "a slot with only the witness, and the key's A and B are not on "
				 "the device (zka_gpu_key_set_abc)");
			return -EINVAL;
		}
		void *out[2] = {g->d_a, g->d_b};
		for (int m = 0; m < 2; m++) {
			k_ab_rows<Fr><<<nblk(nd, 256), 256, 0, st>>>(
			    (const uint32_t *)k->d_ab_start[m], (const uint2 *)k->d_ab_term[m],
			    (const Fr *)k->d_ab_val, (const Fr *)g->d_w, (Fr *)out[m],
			    (uint32_t)nd);
			CKL();
		}
		return 0;
	}
	CK(cudaMemcpyAsync(g->d_a, a, nd * 32, cudaMemcpyHostToDevice, st));
	CK(cudaMemcpyAsync(g->d_b, b, nd * 32, cudaMemcpyHostToDevice, st));
	if (c)
		CK(cudaMemcpyAsync(g->d_c, c, nd * 32, cudaMemcpyHostToDevice, st));
	return 0;
}

/* After abc_copy, on s0: c = a .* b when c was not given (a, b in standard form when
 * ab_std), then the H polynomial into d_h (events ev[2] before, ev[3] after) */
template <class TR>
int eng<TR>::abc_hpoly(zka_gpu *g, zka_gpu_key *k, bool have_c, int ab_std, char *err,
		       size_t errlen)
{
	cudaStream_t s0 = g->s;
	size_t nd = k->domain;
	cudaEvent_t *ev = g->ev;
	if (!have_c && ab_std) { /* a slot's a, b: to Montgomery form, then c = a .* b */
		k_hadamard_std<Fr><<<nblk(nd, 256), 256, 0, s0>>>(
		    (Fr *)g->d_a, (Fr *)g->d_b, (Fr *)g->d_c, (uint32_t)nd, mk1(k->r2));
		CKL();
	} else if (!have_c) { /* c = a .* b here: a third less to copy (and for synthesis
			       * to write) */
		k_hadamard<Fr><<<nblk(nd, 256), 256, 0, s0>>>(
		    (const Fr *)g->d_a, (const Fr *)g->d_b, (Fr *)g->d_c, (uint32_t)nd);
		CKL();
	}
	CK(cudaEventRecord(ev[2], s0));
	CKR(hpoly_dev(g, k->logn, (Fr *)g->d_a, (Fr *)g->d_b, (Fr *)g->d_c, (Fr *)g->d_h,
		      (const twiddle<Fr> *)k->d_tw, (const twiddle<Fr> *)k->d_itw,
		      (const Fr *)k->d_cs, k->h_mono ? &k->hm : NULL, err, errlen));
	CK(cudaEventRecord(ev[3], s0));
	return 0;
}

/* A proof with a streamed key (stream_plan): the witness to the device and its four MSMs
 * chunk by chunk on s0 (one sort per chunk for the four: streamed), while ls[1] copies a,
 * b, c; then the H polynomial and the H MSM, chunk by chunk, on s0. The host sets'
 * copies (ls[0]) overlap the work. Times: msm_g1 holds every MSM (G2's included),
 * msm_g2 is 0. */
template <class TR>
int eng<TR>::prove_streamed(zka_gpu *g, zka_gpu_key *k, const uint64_t (*a)[4],
			    const uint64_t (*b)[4], const uint64_t (*c)[4], int ab_std,
			    const uint64_t (*w)[4], const zka_rs *rs, zka_proof *proof, char *err,
			    size_t errlen)
{
	double t0 = now_s();
	size_t nd = k->domain, nv = k->n_vars;
	cudaEvent_t *ev = g->ev;
	cudaStream_t s0 = g->s;
	const zka_pk *ph = k->pk_host;
	CKR(proof_bufs(g, nd, nv, err, errlen));
	CK(cudaEventRecord(ev[0], s0));
	CK(cudaMemcpyAsync(g->d_w, w, nv * 32, cudaMemcpyHostToDevice, s0));
	CK(cudaEventRecord(ev[15], s0));
	/* a, b, c on ls[1], beside the witness MSMs (the NTT waits for them: lev[4]) */
	cudaStream_t cs = g->ls[1];
	/* (a slot of form W: a and b are made from the witness, so after its copy, ev[15]) */
	CK(cudaStreamWaitEvent(cs, a ? ev[0] : ev[15], 0));
	CK(cudaEventRecord(g->lev[5], cs));
	CKR(abc_copy(g, k, nd, a, b, c, cs, err, errlen));
	CK(cudaEventRecord(g->lev[4], cs));
	alignas(16) uint8_t acc[5][sizeof(G2)];
	size_t pre = (size_t)k->n_public + 1;
	sset S[4] = {{k->d_A, k->d_A ? NULL : ph->A, 0, 0, 0},
		     {k->d_B1, k->d_B1 ? NULL : ph->B1, 0, 0, 0},
		     {k->d_C, k->d_C ? NULL : ph->C, pre, 0, 0},
		     {k->d_B2, k->d_B2 ? NULL : ph->B2, 0, 0, 1}};
	CKR(streamed(g, g->d_w, nv, k->chunk, 4, S, true, acc, err, errlen));
	int split = g->ms[0].split;
	double frac01 = g->ms[0].frac01;
	CK(cudaEventRecord(ev[1], s0));
	CK(cudaStreamWaitEvent(s0, g->lev[4], 0));
	CKR(abc_hpoly(g, k, c != NULL, ab_std, err, errlen));
	sset H = {k->d_H, k->d_H ? NULL : ph->H, 0, 0, 0};
	CKR(streamed(g, g->d_h, nd, k->chunk, 1, &H, false, &acc[4], err, errlen));
	CK(cudaEventRecord(ev[4], s0));
	CK(cudaEventSynchronize(ev[4]));
	double t2 = now_s();
	alignas(16) uint8_t prep[ZKG_PRE_BYTES];
	zkg_host_pre(&k->pk, rs, prep);
	zkg_host_finish(&k->pk, acc[0], acc[1], acc[3], acc[2], acc[4], rs, prep, proof);
	double t3 = now_s();
	/* h2d: w, then a, b, c (beside the witness MSMs); msm_g1: the witness MSMs and the
	 * H MSM */
	float cw0, cabc, cntt, gw, gh;
	CK(cudaEventElapsedTime(&cw0, ev[0], ev[15]));
	CK(cudaEventElapsedTime(&cabc, g->lev[5], g->lev[4]));
	CK(cudaEventElapsedTime(&cntt, ev[2], ev[3]));
	CK(cudaEventElapsedTime(&gw, ev[15], ev[1]));
	CK(cudaEventElapsedTime(&gh, ev[3], ev[4]));
	zka_gpu_times *t = &g->last;
	t->h2d = (cw0 + cabc) * 1e-3;
	t->ntt = cntt * 1e-3;
	t->msm_g1 = (gw + gh) * 1e-3;
	t->msm_g2 = 0;
	t->finish = t3 - t2;
	t->total = t3 - t0;
	t->msm_split = split;
	t->frac01 = frac01;
	t->tables = 0;
	return 0;
}

template <class TR>
int eng<TR>::prove(zka_gpu *g, zka_gpu_key *k, const uint64_t (*a)[4], const uint64_t (*b)[4],
		   const uint64_t (*c)[4], int ab_std, const uint64_t (*w)[4], const zka_rs *rs,
		   zka_proof *proof, char *err, size_t errlen)
{
	if (k->streamed)
		return prove_streamed(g, k, a, b, c, ab_std, w, rs, proof, err, errlen);
	double t0 = now_s();
	size_t nd = k->domain, nv = k->n_vars;
	cudaEvent_t *ev = g->ev;
	/* the window tables, once for the whole proof: a build finishing midway changes
	 * nothing until the next proof; a failed build leaves the windowed MSM (gpud says
	 * so from zka_gpu_key_tables) */
	int pc = zkg_key_tables_live(k, err, errlen);
	if (pc < 0) {
		pc = 0;
		if (err && errlen)
			err[0] = 0;
	}
	CKR(proof_bufs(g, nd, nv, err, errlen));
	/* Stream s0 (the context's): the witness, its digits, then a, b, c, the H
	 * polynomial, its digits and the H MSM. Streams ls[0..3]: the A, B1, C and B2 MSMs,
	 * started as soon as the witness digits are sorted, so that they overlap the NTT,
	 * one another's latency-bound reductions and the tails of their bucket loops. */
	cudaStream_t s0 = g->s;
	zkg_msm_scratch *mw = &g->ms[0], *mh = &g->ms[4];
	CK(cudaEventRecord(ev[0], s0));
	CK(cudaMemcpyAsync(g->d_w, w, nv * 32, cudaMemcpyHostToDevice, s0));
	CK(cudaEventRecord(ev[15], s0));
	/* the witness digits: the 0/1 split may take them (zka_gpu_set_split01) */
	CKR(prepare(g, mw, g->d_w, nv, pc ? k->c_v : 0, pc ? k->t_v : 1, true, err, errlen));
	CKR(work_grow(mw, mw, sizeof(G1), err, errlen)); /* lane A's (and the slots) */
	CK(cudaEventRecord(ev[1], s0));
	char *wsum = (char *)mw->d_wsum;     /* slots: A, B1, C, B2, H */
	uint8_t *hs = (uint8_t *)g->h_slots; /* pinned: the copies below do not block the host */
	const void *pts[4] = {k->d_A, k->d_B1, k->d_C, k->d_B2};
	for (int i = 0; i < 4; i++) {
		cudaStream_t st = g->ls[i];
		CKR(work_grow(&g->ms[i], mw, i == 3 ? sizeof(G2) : sizeof(G1), err, errlen));
		CK(cudaStreamWaitEvent(st, ev[1], 0)); /* orders the witness digits before lane i */
		CK(cudaEventRecord(g->lev[2 * i], st));
		if (i < 3)
			CKR(run<Fq>(g, mw, &g->ms[i], st, pts[i], wsum + i * WSLOT, err, errlen));
		else
			CKR(run<Fq2>(g, mw, &g->ms[i], st, pts[i], wsum + i * WSLOT, err, errlen));
		CK(cudaMemcpyAsync(hs + i * WSLOT, wsum + i * WSLOT, WSLOT, cudaMemcpyDeviceToHost,
				   st));
		CK(cudaEventRecord(g->lev[2 * i + 1], st)); /* lane i's result is on the host */
	}
	CKR(abc_copy(g, k, nd, a, b, c, s0, err, errlen)); /* after w's copy on s0 */
	CKR(abc_hpoly(g, k, c != NULL, ab_std, err, errlen));
	CKR(prepare(g, mh, g->d_h, nd, pc ? k->c_h : 0, pc ? k->t_h : 1, false, err, errlen));
	CKR(work_grow(mh, mh, sizeof(G1), err, errlen));
	CKR(run<Fq>(g, mh, mh, s0, k->d_H, wsum + 4 * WSLOT, err, errlen));
	CK(cudaEventRecord(ev[4], s0));
	CK(cudaMemcpyAsync(hs + 4 * WSLOT, wsum + 4 * WSLOT, WSLOT, cudaMemcpyDeviceToHost, s0));
	for (int i = 0; i < 4; i++)
		CK(cudaStreamWaitEvent(s0, g->lev[2 * i + 1],
				       0)); /* s0's end implies every lane's */
	/* While the device works: the r, s multiples of delta, then each lane's planes as
	 * soon as they arrive (the H MSM, behind the NTT, usually ends last). */
	alignas(16) uint8_t pre[ZKG_PRE_BYTES];
	zkg_host_pre(&k->pk, rs, pre);
	uint8_t jA[sizeof(G1)], jB1[sizeof(G1)], jC[sizeof(G1)], jH[sizeof(G1)], jB2[sizeof(G2)];
	uint8_t *jl[4] = {jA, jB1, jC, jB2};
	for (int i = 0; i < 4; i++) {
		CK(cudaEventSynchronize(g->lev[2 * i + 1]));
		combine(i == 3, hs + i * WSLOT, mw, jl[i]);
	}
	CK(cudaStreamSynchronize(s0));
	double t1 = now_s();
	combine(0, hs + 4 * WSLOT, mh, jH);
	double t2 = now_s();
	zkg_host_finish(&k->pk, jA, jB1, jB2, jC, jH, rs, pre, proof);
	double t3 = now_s();
	/* device intervals (they overlap): h2d = the copies; ntt = the H polynomial; msm_g1
	 * = from the witness digits to the last of A, B1, C and H, plus the host's
	 * combination of H's planes (the lanes' are combined while the device works);
	 * msm_g2 = the B2 lane */
	float cw0, cabc, cntt, g1a, g1b, g2;
	CK(cudaEventElapsedTime(&cw0, ev[0], ev[15]));
	CK(cudaEventElapsedTime(&cabc, ev[1], ev[2]));
	CK(cudaEventElapsedTime(&cntt, ev[2], ev[3]));
	CK(cudaEventElapsedTime(&g1a, ev[1], ev[4]));
	CK(cudaEventElapsedTime(&g2, g->lev[6], g->lev[7]));
	float g1max = g1a;
	for (int i = 0; i < 3; i++) {
		CK(cudaEventElapsedTime(&g1b, ev[1], g->lev[2 * i + 1]));
		g1max = g1b > g1max ? g1b : g1max;
	}
	zka_gpu_times *t = &g->last;
	t->h2d = (cw0 + cabc) * 1e-3;
	t->ntt = cntt * 1e-3;
	t->msm_g1 = g1max * 1e-3 + (t2 - t1);
	t->msm_g2 = g2 * 1e-3;
	t->finish = t3 - t2;
	t->total = t3 - t0;
	t->msm_split = mw->split;
	t->frac01 = mw->frac01;
	t->tables = pc;
	return 0;
}

} // namespace zkg
