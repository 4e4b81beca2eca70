/* prove.cuh - the host drivers of the engine (struct eng, one per curve): NTT tables and
 * passes, the MSM's driver (window choice, scratch sizing, prepare = the bucket sort, run =
 * accumulation and reduction on a stream, combine on the host), the key load (window tables
 * under a memory check), the proof (the witness MSMs A, B1, C, B2 on four streams beside the
 * H polynomial's NTTs and the H MSM on the context's stream), streamed keys (point sets left
 * in host memory and copied through two staging buffers chunk by chunk, each chunk's MSM
 * overlapping the next chunk's copy; stream_plan decides which sets) and the test entry
 * points.
 * Speed: a proof is bound by the MSMs' bucket accumulation (msm_accumulate.cuh); the driver's
 * own cost is launch latency and the host's combination of each MSM's planes. */
#pragma once
#include "cuda/fixed_base.cuh"
#include "cuda/msm_accumulate.cuh"
#include "cuda/msm_affine.cuh"
#include "cuda/msm_common.cuh"
#include "cuda/msm_reduce.cuh"
#include "cuda/msm_sort.cuh"
#include "cuda/msm_split.cuh"
#include "cuda/ntt.cuh"
#include "cuda/test_kernels.cuh"

namespace zkg
{

/* ---------------- host drivers ---------------- */

template <class TR> struct eng {
	using Fr = typename TR::Fr;
	using Fq = typename TR::Fq;
	using Fq2 = fp2<Fq>;
	using G1 = jac_t<Fq>;
	using G1A = aff_t<Fq>;
	using G2 = jac_t<Fq2>;
	using G2A = aff_t<Fq2>;
	static constexpr int CURVE = TR::CURVE;
	/* blocks of the ones' sum, run beside k_red2's groups (one block per SM or so: with a
	 * quad per group, k_red2's 256 blocks at BLS12-381 2^20 and 264 of these overflowed the
	 * H200's 396 resident blocks, and the ones' blocks waited for a second wave) */
	static constexpr int ONES_BLOCKS = 128;
	/* partial sums of the ones at most: ONES_BLOCKS, or k_ones_list's blocks (one wave) after
	 * the 0/1 split */
	static constexpr int ONES_PARTS = 1024;
	static_assert(ONES_PARTS >= ONES_BLOCKS, "ONES_PARTS too small");
	/* The result slot of one MSM: its reduction planes and the ones sum. A context's scratch
	 * serves keys of both curves, so its fixed-size buffers are sized for the largest point
	 * (ZKG_JAC_MAX). */
	static_assert(sizeof(G2) <= ZKG_JAC_MAX, "ZKG_JAC_MAX too small");
	static constexpr size_t WSLOT_PTS = ZKG_WSLOT_PTS, WSLOT = ZKG_WSLOT;

	/* buckets per level-1 segment and segments per level-2 group of the bucket reduction
	 * (k_red1, k_red2): M = L1 L2 per, all powers of two */
	static uint32_t red_l1(uint32_t M)
	{
		return M < 8 ? M : 8;
	}
	static uint32_t red_l2(uint32_t M)
	{
		return M / red_l1(M) < 4 ? M / red_l1(M) : 4;
	}
	/* level 3 of the reduction: groups per window, planes (1 + log2 per) and chunks per plane
	 */
	static uint32_t red_per(uint32_t M)
	{
		return M / (red_l1(M) * red_l2(M));
	}
	static uint32_t red_np(uint32_t M)
	{
		return 1 + (uint32_t)__builtin_ctz(red_per(M));
	}
	static uint32_t red_nch(uint32_t M)
	{
		return (red_per(M) + ZKG_PLANE_CHUNK - 1) / ZKG_PLANE_CHUNK;
	}

	static seeds mk1(const uint64_t v[4])
	{
		seeds s;
		memset(&s, 0, sizeof s);
		memcpy(s.v[0], v, 32);
		return s;
	}

	/* Allocates and fills the tables for 2^logn: *tw, *itw (n/2 twiddle pairs each) and, when
	 * cs is not NULL, *cs (n coset factors). Each pointer is stored as soon as it is allocated:
	 * after an error the caller frees what exists. */
	static int tables(zka_gpu *g, uint32_t logn, void **d_tw, void **d_itw, void **d_cs,
			  char *err, size_t errlen)
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

	/* all logn stages: passes of up to 8 stages in shared memory (tiles of <= ZKG_NTT_TILE
	 * elements, at least 2^8 so that a tile holds a whole group) */
	static constexpr int NTT_SMEM_MAX =
	    ZKG_NTT_TILE * 48 + 512 * 32; /* the largest k_stages tile */
	static int ntt_pass(zka_gpu *g, Fr *x, uint32_t logn, const twiddle<Fr> *tw, bool dit,
			    char *err, size_t errlen)
	{
		uint32_t npass = (logn + 7) / 8, done = 0;
		static_assert(ZKG_NTT_TILE >= 256 && ZKG_NTT_TILE <= 4096 &&
				  !(ZKG_NTT_TILE & (ZKG_NTT_TILE - 1)),
			      "ZKG_NTT_TILE: a power of two, 256 .. 4096");
		uint32_t tile =
		    (1u << logn) < ZKG_NTT_TILE ? 1u << logn : ZKG_NTT_TILE; /* logn <= 28 */
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
			CK(cudaFuncSetAttribute(kern,
						cudaFuncAttributePreferredSharedMemoryCarveout,
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
	static int hpoly_dev(zka_gpu *g, uint32_t logn, Fr *a, Fr *b, Fr *c, Fr *h,
			     const twiddle<Fr> *tw, const twiddle<Fr> *itw, const Fr *cs, char *err,
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
		k_hfinal<Fr><<<nblk(n, 256), 256, 0, g->s>>>(a, b, c, h, n);
		CKL();
		return 0;
	}

	/* ---- MSM ---- */
	static int grow(void **p, size_t *cap, size_t need, char *err, size_t errlen)
	{
		if (*cap >= need)
			return 0;
		if (*p)
			CK(cudaFree(*p));
		*p = NULL;
		*cap = 0;
		CK(cudaMalloc(p, need));
		*cap = need;
		return 0;
	}

	static int windows(int c)
	{
		return (TR::FR_BITS + 1 + c - 1) / c;
	}

	/* The digit plan for window size c and points that come with up to tmax copies (window
	 * tables; 1: none): copies = min(W, tmax) (see digit_plan). Shared buckets (copies = W)
	 * narrow the windows past the first r to c - 1 bits, r the fewest c-bit windows with which
	 * W windows cover FR_BITS + 1 bits (the signed digits' carry out of the top window is then
	 * 0); fewer copies keep all windows c bits wide, so that every group's copy t is the same
	 * multiple 2^(c t). */
	static digit_plan digit_plan_of(int c, int tmax)
	{
		int W = windows(c), r = TR::FR_BITS + 1 - W * (c - 1);
		if (tmax >= W)
			return {c, W, r < 0 ? 0 : r > W ? W : r, W};
		return {c, W, W, tmax < 1 ? 1 : tmax};
	}

	/* groups of windows (sets of buckets) whose sums the reduction produces */
	static uint32_t groups(int W, int copies)
	{
		return (uint32_t)((W + copies - 1) / copies);
	}
	static uint32_t nwins(const zkg_msm_scratch *m)
	{
		return groups(m->W, m->copies);
	}

	/* Window size for n points with up to tmax copies of them (window tables): minimise
	 * W n A + G 2^(c-1) R, accumulation A per entry and reduction R per bucket for G =
	 * ceil(W / min(W, tmax)) groups, R/A ~ 7 as measured in the first version (one thread per
	 * bucket task, one-level reduction; not re-tuned since). Windowed (tmax = 1): W (n A +
	 * 2^(c-1) R); shared buckets (tmax >= W): the reduction is paid once. c <= 20 keeps the
	 * buckets' scratch small and bounds the tables (min(W, tmax) copies of the points). */
	static int choose_c(size_t n, int tmax)
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
	static double fit_bytes(size_t fr)
	{
		return 0.95 * (double)fr - 1073741824.0;
	}

	/* Sizes the bucket work buffers of w for the scalar set prepared in p (w may be p), for
	 * points whose Jacobian form takes js bytes (G1 or G2: the lane's): buckets, first and
	 * last pieces of the flat split's runs (then the reduction's plane chunks), nbig and the
	 * big-bucket list, the reduction's S, T, G and U, the ones sums and the result slots. */
	static int work_grow(zkg_msm_scratch *w, const zkg_msm_scratch *p, size_t js, char *err,
			     size_t errlen)
	{
		size_t nb = (size_t)nwins(p) * p->M, L1 = red_l1(p->M), L2 = red_l2(p->M);
		CKR(grow(&w->d_buckets, &w->bucket_bytes, nb * js, err, errlen));
		CKR(grow((void **)&w->d_task, &w->task_bytes, (nb + 2 + p->tmax) * sizeof(uint32_t),
			 err, errlen));
		size_t nplane = (size_t)nwins(p) * red_np(p->M) * red_nch(p->M);
		size_t npart = 2 * p->tmax > nplane ? 2 * p->tmax : nplane;
		CKR(grow(&w->d_partials, &w->partial_bytes, npart * js, err, errlen));
		CKR(grow(&w->d_segs, &w->seg_bytes, (2 * nb / L1 + 2 * nb / (L1 * L2)) * js, err,
			 errlen));
		if (!w->d_wsum)
			CK(cudaMalloc(&w->d_wsum, 8 * WSLOT));
		if (!w->d_ones_part)
			CK(cudaMalloc(&w->d_ones_part, ONES_PARTS * ZKG_JAC_MAX));
		return 0;
	}

	/* Device bytes of one MSM's bucket sort (sort) and of one lane's work buffers for points
	 * of js bytes (Jacobian) (work), for n scalars and the window plan (c, copies): the sizes
	 * prepare and work_grow allocate, with runs of 64 entries (flat_run makes ~96) */
	static void msm_bytes(size_t n, int c, int copies, double js, double *sort, double *work)
	{
		int W = windows(c);
		double ent = (double)n * W;
		double nb = (double)groups(W, copies < W ? copies : W) * (double)(1u << (c - 1));
		double tmax = ent / 64 + 1;
		*sort = ent * 10 + (ent / ZKG_CHUNK + nb / ZKG_FINE) * ZKG_FINE * 4 + 8 * (nb + 1);
		*work = nb * js + (nb + tmax) * 4 + 2 * tmax * js + (nb / 4 + nb / 16) * js;
	}
	/* Device bytes one context needs to prove with a key of nv variables and domain nd, its
	 * sets' plans (cv, tv) and (ch, th): the proof's buffers, the 0/1 split's, the witness
	 * sort with lanes A, B1, C (G1) and B2 (G2), the H sort and lane; the larger of that and
	 * of the windowed plans (the proofs before the tables are built). */
	static double ctx_bytes(size_t nv, size_t nd, int cv, int tv, int ch, int th)
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

	/* the 0/1 split's buffers for n scalars (msm_split.cuh) */
	static int split_grow(zkg_msm_scratch *m, size_t n, char *err, size_t errlen)
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
	static int split01(zka_gpu *g, zkg_msm_scratch *m, size_t n, bool split_ok, const scal **ks,
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
		k_split01<<<nbs, ZKG_SPLIT_T, 0, g->s>>>(*ks, (uint32_t)n, m->d_cnt, NULL, NULL,
							 NULL);
		CKL();
		CK(cudaMemcpyAsync(hc, m->d_cnt, sizeof hc, cudaMemcpyDeviceToHost, g->s));
		CK(cudaStreamSynchronize(g->s));
		m->frac01 = (double)(n - hc[1]) / (double)n;
		if (m->frac01 < g->split01)
			return 0;
		CK(cudaMemsetAsync(m->d_cnt, 0, 2 * sizeof(uint32_t), g->s));
		k_split01<<<nbs, ZKG_SPLIT_T, 0, g->s>>>(
		    *ks, (uint32_t)n, m->d_cnt, (scal *)m->d_cks, m->d_cidx, m->d_ones_idx);
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
	static int prepare(zka_gpu *g, zkg_msm_scratch *m, const void *d_scalars, size_t n, int c,
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
			zkg_errf(err, errlen,
				 "zkg msm: %zu points x %d copies do not fit 31-bit entries", n,
				 dp.copies);
			return -EINVAL;
		}
		uint32_t M = 1u << (c - 1), G = groups(W, dp.copies);
		size_t nb = (size_t)G * M;
		if ((size_t)G * red_np(M) + 1 > WSLOT_PTS) {
			zkg_errf(
			    err, errlen,
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
		uint32_t *scount = m->d_counts, *soff = scount + nsup + 1,
			 *cursor = soff + nsup + 1, *cst = cursor + nsup + 1;
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
		CKR(grow((void **)&m->d_ccnt, &m->ccnt_bytes, nchunk * ZKG_FINE * sizeof(uint32_t),
			 err, errlen));
		/* runs of the flat split: run's count for either point type, plus one (it was
		 * ent / ZKG_RUN_MIN, three times the ~96-entry runs flat_run makes: at BLS12-381
		 * 2^24 that bound held 4.5 GB of pieces per lane) */
		uint32_t r1 = flat_run<Fq>(g, m), r2 = flat_run<Fq2>(g, m), rmin = r1 < r2 ? r1 : r2;
		m->tmax = (ent + rmin - 1) / rmin + 1;

		bool prof = getenv("ZKG_PROFILE") != NULL;
		if (prof)
			CK(cudaEventRecord(g->ev[6], g->s));
		CK(cudaMemsetAsync(scount, 0, nsup * sizeof(uint32_t), g->s));
		size_t nl =
		    ns ? ns : 1; /* grids of at least one block (all scalars 0/1 after the split) */
		k_sort_count<<<nblk(nl, 256), 256, nsup * sizeof(uint32_t), g->s>>>(
		    ks, (uint32_t)ns, dp, nsup, scount);
		CKL();
		k_sort_plan<<<1, 1024, 0, g->s>>>(scount, nsup, soff, cursor, cst);
		CKL();
		/* one bound for every launch (see ntt_pass on why not this launch's size) */
		CK(cudaFuncSetAttribute(k_sort_scatter, cudaFuncAttributeMaxDynamicSharedMemorySize,
					ZKG_SORT_SMEM));
		k_sort_scatter<<<nblk(nl, T), T, sh_scatter, g->s>>>(
		    ks, (uint32_t)ns, idx, (uint32_t)n, dp, nsup, cursor, m->d_slots, m->d_low);
		CKL();
		k_chunk_count<<<(unsigned)nchunk, ZKG_CHUNK_T, 0, g->s>>>(soff, cst, nsup, m->d_low,
									  m->d_ccnt);
		CKL();
		k_chunk_base<<<nsup, ZKG_FINE, 0, g->s>>>(soff, cst, (uint32_t)nb, m->d_ccnt,
							  m->d_offsets);
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

	/* Window tables in place: tab holds n affine points followed by room for T-1 more copies
	 * (T = digit_plan_of(c, tmax).copies); fills copy t with 2^(start of window t) times the
	 * points (k_precomp_dbl per copy, then k_precomp_norm), in chunks of 2^18 points, on stream
	 * st. Its scratch is stream-ordered (cudaMallocAsync / cudaFreeAsync on st). Without thr
	 * nothing here waits for the device (the caller synchronizes st). With thr (a build in the
	 * background, on its own host thread) at most two launches are queued at any time: see
	 * zkg_throttle. Copy 0 is only read. */
	template <class F>
	static int precompute(cudaStream_t st, void *tab, size_t n, int c, int tmax,
			      zkg_throttle *thr, char *err, size_t errlen)
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
					    (aff_t<F> *)tab, (uint32_t)n, (uint32_t)i0, (uint32_t)cnt,
					    dp, w, (F *)z, (F *)pre);
				else
					k_precomp_norm<F><<<nblk(cnt, 128), 128, 0, st>>>(
					    (aff_t<F> *)tab, (uint32_t)n, (uint32_t)i0, (uint32_t)cnt,
					    W, (F *)z, (F *)pre);
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
	static int tables_on(cudaStream_t st, zka_gpu_key *k, zkg_throttle *thr, char *err,
			     size_t errlen)
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
	static int tables_build(zka_gpu_key *k, zkg_throttle *thr, char *err, size_t errlen)
	{
		CK(cudaEventRecord(k->ev_t0, k->s_bg));
		CKR(tables_on(k->s_bg, k, thr, err, errlen));
		CK(cudaEventRecord(k->ev_t1, k->s_bg));
		return 0;
	}

	/* Entries per thread of the flat split: whole waves of resident threads (SMs x PER_SM),
	 * as few waves as keep runs near 96 entries, and never below ZKG_RUN_MIN (the pieces
	 * k_gather_runs adds grow as runs shrink). The entry count is the bound ns W (0/1 scalars
	 * have none, leaving some threads idle unless the 0/1 split took them out of ns). */
	template <class F> static uint32_t flat_run(const zka_gpu *g, const zkg_msm_scratch *m)
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
	template <class F>
	static int run(zka_gpu *g, const zkg_msm_scratch *m, zkg_msm_scratch *w, cudaStream_t st,
		       const void *d_points, void *ws_out, char *err, size_t errlen)
	{
		using J = jac_t<F>;
		using A = aff_t<F>;
		uint32_t nwin = nwins(m);
		size_t nb = (size_t)nwin * m->M;
		uint32_t L1 = red_l1(m->M), L2 = red_l2(m->M);
		bool prof =
		    st == g->s && getenv("ZKG_PROFILE") != NULL; /* kernel times: one stream only */
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
			    (const A *)d_points, m->d_ones_idx, (uint32_t)m->n_ones,
			    (J *)w->d_ones_part);
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
		k_gather_runs<F><<<nblk(nrun, 128), 128, 0, st>>>(
		    m->d_offsets, run, nown, owners, first, last, (J *)w->d_buckets, nbig, big);
		CKL();
		k_gather_big<F><<<264, ZKG_SUM_T, ZKG_SUM_T * sizeof(J), st>>>(
		    m->d_offsets, run, first, last, (J *)w->d_buckets, nbig, big);
		CKL();
		if (prof)
			CK(cudaEventRecord(g->ev[11], st));
		uint32_t nseg = (uint32_t)(nb / L1), ngrp = nseg / L2, per = red_per(m->M);
		uint32_t np = red_np(m->M), nch = red_nch(m->M);
		J *S = (J *)w->d_segs, *T = S + nseg, *Gs = T + nseg, *U = Gs + ngrp;
		k_red1<F><<<nblk(nseg, 128), 128, 0, st>>>((const J *)w->d_buckets, m->d_offsets,
							   L1, nseg, S, T);
		CKL();
		size_t sh_sum = ZKG_SUM_T * sizeof(J);
		/* level 2, then ONES_BLOCKS blocks of the ones' sum (as many threads: ZKG_SUM_T) */
		static_assert(ZKG_SUM_T == 128, "k_red2's blocks are ones_block's");
		uint32_t nred = nblk((size_t)ngrp * red2_lanes<F>(), 128);
		k_red2<F><<<nred + (m->split ? 0 : ONES_BLOCKS), 128, sh_sum, st>>>(
		    S, T, L1, L2, ngrp, Gs, U, nred, (const A *)d_points,
		    (const scal *)m->d_scalars, (uint32_t)m->n, (J *)w->d_ones_part);
		CKL();
		J *ws = (J *)ws_out;
		if (prof)
			CK(cudaEventRecord(g->ev[12], st));
		/* the flat split's pieces are consumed: d_partials holds the plane chunks */
		k_planes<F><<<nwin * np * nch, ZKG_SUM_T, sh_sum, st>>>(Gs, U, per, np, nch,
									(J *)w->d_partials);
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
				sizeof(F) == sizeof(Fq) ? "G1" : "G2", m->n, m->c, m->W, t[0], t[1],
				t[2], t[3], t[4], t[0] * 1e6 / ((double)m->ns * m->W + 1e-9),
				(size_t)m->ns * m->W);
		}
		return 0;
	}

	/* the planes of the slot of m (already on the host) -> Jacobian result */
	static void combine(int g2, const void *hslot, const zkg_msm_scratch *m, void *out)
	{
		size_t js = g2 ? sizeof(G2) : sizeof(G1);
		uint32_t W = nwins(m), np = red_np(m->M),
			 sh = (uint32_t)__builtin_ctz(red_l1(m->M) * red_l2(m->M));
		zkg_host_combine(CURVE, g2, hslot, (int)W, m->c * m->copies, (int)np, (int)sh,
				 (const char *)hslot + W * np * js, out);
	}

	/* ---- streamed point sets (zka_gpu_set_stream_chunk) ---- */
	/* One point set of a streamed MSM: its points on the device (dev, indexed as the
	 * scalars) or in host memory (host: copied chunk by chunk into the context's staging
	 * buffers, at byte at * chunk of each); the first skip points are infinity and not stored
	 * on the host (C's, for the public inputs: host holds points skip, skip + 1, ..). */
	struct sset {
		const void *dev, *host;
		size_t skip, at;
		int g2;
	};
	static size_t aff_bytes(int g2)
	{
		return g2 ? sizeof(G2A) : sizeof(G1A);
	}

	/* Staging bytes per point of a chunk for the host sets of S (their at offsets set) */
	static size_t stage_per_point(int ns, sset *S)
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
	static int stage(zka_gpu *g, int ns, const sset *S, size_t chunk, size_t off, size_t cnt,
			 int b, char *err, size_t errlen)
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
	static int streamed(zka_gpu *g, const void *d_sc, size_t n, size_t chunk, int ns, sset *S,
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
			CKR(prepare(g, m, (const char *)d_sc + off * 32, cnt, 0, 1, split_ok, err,
				    errlen));
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
	static double stream_ctx_bytes(size_t nv, size_t nd, size_t chunk, size_t per, size_t js)
	{
		double sort, work;
		msm_bytes(chunk, choose_c(chunk, 1), 1, (double)js, &sort, &work);
		return (4.0 * nd + nv) * 32 + (double)chunk * 40 + sort + work +
		       2.0 * (double)chunk * per;
	}

	static int msm(zka_gpu *g, int g2, const void *points, const uint64_t (*k)[4], size_t n,
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
	static int msm_inner(zka_gpu *g, zkg_msm_scratch *m, int g2, const void *points,
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

	/* ---- key and prover ---- */
	/* device memory for the key's five point sets, W copies each (window tables); on failure
	 * the sets allocated so far are freed and the runtime's error returned */
	static cudaError_t alloc_sets(zka_gpu_key *k, size_t Wv, size_t Wh, int mask)
	{
		size_t g1 = sizeof(G1A), g2 = sizeof(G2A), nv = k->n_vars, nd = k->domain;
		void **p[5] = {&k->d_A, &k->d_B1, &k->d_B2, &k->d_C, &k->d_H};
		size_t bytes[5] = {Wv * nv * g1, Wv * nv * g1, Wv * nv * g2, Wv * nv * g1,
				   Wh * nd * g1};
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
	static void free_sets(zka_gpu_key *k)
	{
		void **p[5] = {&k->d_A, &k->d_B1, &k->d_B2, &k->d_C, &k->d_H};
		for (int i = 0; i < 5; i++) {
			cudaFree(*p[i]); /* a pointer from a successful cudaMalloc, or NULL */
			*p[i] = NULL;
		}
	}

	/* A key set's copy to the device on g->s, in copies that end at every ZKG_KEY_PIECE of
	 * the source's addresses, where zka_gpu_pin_key's registrations end */
	static int upload(zka_gpu *g, void *dst, const void *src, size_t bytes, char *err,
			  size_t errlen)
	{
		return upload_on(g->s, dst, src, bytes, err, errlen);
	}
	/* A key set's copy: through g's stager (waiting for it) when g has one and src is not
	 * page-locked (k->staged then says so), else upload's on g->s */
	static int upload_set(zka_gpu *g, zka_gpu_key *k, void *dst, const void *src, size_t bytes,
			      char *err, size_t errlen)
	{
		if (!g->stg || zkg_is_pinned(src))
			return upload(g, dst, src, bytes, err, errlen);
		k->staged = zkg_stage_threads(g);
		return zkg_stage_copy(g, dst, src, bytes, err, errlen);
	}
	static int upload_on(cudaStream_t st, void *dst, const void *src, size_t bytes, char *err,
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

	/* Staging bytes per point of a streamed key's chunks for the sets not in mask: the
	 * larger of the witness sets' (A, B1, C, B2 at once) and H's */
	static size_t stream_per(int mask)
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
	static int stream_plan(zka_gpu *g, zka_gpu_key *k, size_t fr, int *mask, char *err,
			       size_t errlen)
	{
		size_t g1 = sizeof(G1A), g2 = sizeof(G2A), nv = k->n_vars, nd = k->domain;
		const double GiB = 1073741824.0, avail = fit_bytes(fr);
		const double setb[5] = {(double)nv * g1, (double)nv * g1, (double)nv * g2,
					(double)nv * g1, (double)nd * g1};
		double kb = setb[0] + setb[1] + setb[2] + setb[3] + setb[4];
		double ntt_b = (double)nd * (sizeof(twiddle<Fr>) + sizeof(Fr));
		double win = g->in_flight * ctx_bytes(nv, nd, choose_c(nv, 1), 1, choose_c(nd, 1), 1);
		bool forced = g->stream_chunk > 0;
		*mask = 31;
		if (!forced && kb + ntt_b + win <= avail)
			return 0;
		size_t chunk = forced ? g->stream_chunk : 0;
		for (int e = 25; !forced && e >= 8; e--)
			if (ntt_b + g->in_flight * stream_ctx_bytes(nv, nd, (size_t)1 << e,
								    stream_per(0), sizeof(G2)) <=
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
				 kb / GiB, g->in_flight, win / GiB, fr / GiB,
				 __builtin_ctzll(chunk));
		else
			snprintf(k->mode, sizeof k->mode,
				 "streamed MSM: the key's points (%.1f GiB) and %d proofs' working "
				 "memory (%.1f GiB) do not fit in the %.1f GiB free; sets %s stream "
				 "from %s host memory in chunks of 2^%d points%s%s",
				 kb / GiB, g->in_flight, win / GiB, fr / GiB, host,
				 k->pinned ? "pinned" : "PAGEABLE (slow copies)",
				 __builtin_ctzll(chunk), *dev ? ", on the device: " : "", dev);
		return 0;
	}

	static int key_load(zka_gpu *g, const zka_pk *pk, zka_gpu_key *k, char *err, size_t errlen)
	{
		size_t g1 = sizeof(G1A), g2 = sizeof(G2A), nv = pk->n_vars, nd = pk->domain_size;
		if (pk->domain_size < 2 || (pk->domain_size & (pk->domain_size - 1)) ||
		    pk->n_public + 1 > pk->n_vars) {
			zkg_errf(
			    err, errlen,
			    "zka_gpu_key_load: bad key shape (domain %u, n_vars %u, n_public %u)",
			    pk->domain_size, pk->n_vars, pk->n_public);
			return -EINVAL;
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
		if (k->pc && ae == cudaSuccess &&
		    getenv("ZKG_FAIL_TABLE_ALLOC")) /* test hook (gpu_test) */
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
				CKR(upload_set(g, k, (char *)k->d_C + pre * g1, pk->C,
					       (nv - pre) * g1, err, errlen));
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
		CKR(tables(g, pk->log_domain, &k->d_tw, &k->d_itw, &k->d_cs, err, errlen));
		CK(cudaStreamSynchronize(g->s));
		return 0;
	}

	/* the context's proof buffers for a domain of nd and nv variables (grown on demand) */
	static int proof_bufs(zka_gpu *g, size_t nd, size_t nv, char *err, size_t errlen)
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

	/* a, b (and c) to the device on st */
	static int abc_copy(zka_gpu *g, size_t nd, const uint64_t (*a)[4], const uint64_t (*b)[4],
			    const uint64_t (*c)[4], cudaStream_t st, char *err, size_t errlen)
	{
		CK(cudaMemcpyAsync(g->d_a, a, nd * 32, cudaMemcpyHostToDevice, st));
		CK(cudaMemcpyAsync(g->d_b, b, nd * 32, cudaMemcpyHostToDevice, st));
		if (c)
			CK(cudaMemcpyAsync(g->d_c, c, nd * 32, cudaMemcpyHostToDevice, st));
		return 0;
	}

	/* After abc_copy, on s0: c = a .* b when c was not given (a, b in standard form when
	 * ab_std), then the H polynomial into d_h (events ev[2] before, ev[3] after) */
	static int abc_hpoly(zka_gpu *g, zka_gpu_key *k, bool have_c, int ab_std, char *err,
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
			k_hadamard<Fr><<<nblk(nd, 256), 256, 0, s0>>>((const Fr *)g->d_a,
								    (const Fr *)g->d_b, (Fr *)g->d_c,
								    (uint32_t)nd);
			CKL();
		}
		CK(cudaEventRecord(ev[2], s0));
		CKR(hpoly_dev(g, k->logn, (Fr *)g->d_a, (Fr *)g->d_b, (Fr *)g->d_c, (Fr *)g->d_h,
			      (const twiddle<Fr> *)k->d_tw, (const twiddle<Fr> *)k->d_itw,
			      (const Fr *)k->d_cs, err, errlen));
		CK(cudaEventRecord(ev[3], s0));
		return 0;
	}

	/* A proof with a streamed key (stream_plan): the witness to the device and its four MSMs
	 * chunk by chunk on s0 (one sort per chunk for the four: streamed), while ls[1] copies a,
	 * b, c; then the H polynomial and the H MSM, chunk by chunk, on s0. The host sets'
	 * copies (ls[0]) overlap the work. Times: msm_g1 holds every MSM (G2's included),
	 * msm_g2 is 0. */
	static int prove_streamed(zka_gpu *g, zka_gpu_key *k, const uint64_t (*a)[4],
				  const uint64_t (*b)[4], const uint64_t (*c)[4], int ab_std,
				  const uint64_t (*w)[4], const zka_rs *rs, zka_proof *proof,
				  char *err, size_t errlen)
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
		CK(cudaStreamWaitEvent(cs, ev[0], 0));
		CK(cudaEventRecord(g->lev[5], cs));
		CKR(abc_copy(g, nd, a, b, c, cs, err, errlen));
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

	static int prove(zka_gpu *g, zka_gpu_key *k, const uint64_t (*a)[4], const uint64_t (*b)[4],
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
		CKR(prepare(g, mw, g->d_w, nv, pc ? k->c_v : 0, pc ? k->t_v : 1, true, err,
			    errlen));
		CKR(work_grow(mw, mw, sizeof(G1), err, errlen)); /* lane A's (and the slots) */
		CK(cudaEventRecord(ev[1], s0));
		char *wsum = (char *)mw->d_wsum; /* slots: A, B1, C, B2, H */
		uint8_t *hs =
		    (uint8_t *)g->h_slots; /* pinned: the copies below do not block the host */
		const void *pts[4] = {k->d_A, k->d_B1, k->d_C, k->d_B2};
		for (int i = 0; i < 4; i++) {
			cudaStream_t st = g->ls[i];
			CKR(work_grow(&g->ms[i], mw, i == 3 ? sizeof(G2) : sizeof(G1), err, errlen));
			CK(cudaStreamWaitEvent(st, ev[1],
					       0)); /* orders the witness digits before lane i */
			CK(cudaEventRecord(g->lev[2 * i], st));
			if (i < 3)
				CKR(run<Fq>(g, mw, &g->ms[i], st, pts[i], wsum + i * WSLOT, err,
					    errlen));
			else
				CKR(run<Fq2>(g, mw, &g->ms[i], st, pts[i], wsum + i * WSLOT, err,
					     errlen));
			CK(cudaMemcpyAsync(hs + i * WSLOT, wsum + i * WSLOT, WSLOT,
					   cudaMemcpyDeviceToHost, st));
			CK(cudaEventRecord(g->lev[2 * i + 1],
					   st)); /* lane i's result is on the host */
		}
		CKR(abc_copy(g, nd, a, b, c, s0, err, errlen));
		CKR(abc_hpoly(g, k, c != NULL, ab_std, err, errlen));
		CKR(prepare(g, mh, g->d_h, nd, pc ? k->c_h : 0, pc ? k->t_h : 1, false, err,
			    errlen));
		CKR(work_grow(mh, mh, sizeof(G1), err, errlen));
		CKR(run<Fq>(g, mh, mh, s0, k->d_H, wsum + 4 * WSLOT, err, errlen));
		CK(cudaEventRecord(ev[4], s0));
		CK(cudaMemcpyAsync(hs + 4 * WSLOT, wsum + 4 * WSLOT, WSLOT, cudaMemcpyDeviceToHost,
				   s0));
		for (int i = 0; i < 4; i++)
			CK(cudaStreamWaitEvent(s0, g->lev[2 * i + 1],
					       0)); /* s0's end implies every lane's */
		/* While the device works: the r, s multiples of delta, then each lane's planes as
		 * soon as they arrive (the H MSM, behind the NTT, usually ends last). */
		alignas(16) uint8_t pre[ZKG_PRE_BYTES];
		zkg_host_pre(&k->pk, rs, pre);
		uint8_t jA[sizeof(G1)], jB1[sizeof(G1)], jC[sizeof(G1)], jH[sizeof(G1)],
		    jB2[sizeof(G2)];
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

	/* ---- building blocks for tests and benchmarks ---- */
	static int ntt(zka_gpu *g, uint32_t logn, uint64_t (*x)[4], int inverse, double *dev_s,
		       char *err, size_t errlen)
	{
		void *d[3] = {NULL, NULL, NULL};
		int rc = ntt_inner(g, logn, x, inverse, dev_s, d, err, errlen);
		for (int i = 0; i < 3; i++)
			cudaFree(d[i]);
		return rc;
	}
	static int ntt_inner(zka_gpu *g, uint32_t logn, uint64_t (*x)[4], int inverse,
			     double *dev_s, void **d, char *err, size_t errlen)
	{
		if (logn < 1 || logn > 28) {
			zkg_errf(err, errlen, "zka_gpu_ntt: logn %u out of range", logn);
			return -EINVAL;
		}
		size_t n = (size_t)1 << logn;
		CK(cudaMalloc(&d[0], n * 32));
		CKR(tables(g, (uint32_t)logn, &d[1], &d[2], NULL, err, errlen));
		CK(cudaMemcpyAsync(d[0], x, n * 32, cudaMemcpyHostToDevice, g->s));
		CK(cudaEventRecord(g->ev[0], g->s));
		CKR(ntt_pass(g, (Fr *)d[0], logn, (const twiddle<Fr> *)(inverse ? d[2] : d[1]),
			     false, err, errlen));
		CK(cudaEventRecord(g->ev[1], g->s));
		k_bitrev<Fr><<<nblk(n, 256), 256, 0, g->s>>>((Fr *)d[0], logn);
		CKL();
		if (inverse) {
			zkg_roots r;
			zkg_host_roots(CURVE, logn, &r);
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

	static int hpoly(zka_gpu *g, uint32_t logn, const uint64_t (*a)[4], const uint64_t (*b)[4],
			 const uint64_t (*c)[4], uint64_t (*h)[4], char *err, size_t errlen)
	{
		void *d[7] = {0};
		int rc = hpoly_inner(g, logn, a, b, c, h, d, err, errlen);
		for (int i = 0; i < 7; i++)
			cudaFree(d[i]);
		return rc;
	}
	static int hpoly_inner(zka_gpu *g, uint32_t logn, const uint64_t (*a)[4],
			       const uint64_t (*b)[4], const uint64_t (*c)[4], uint64_t (*h)[4],
			       void **d, char *err, size_t errlen)
	{
		if (logn < 1 || logn > 28) {
			zkg_errf(err, errlen, "zka_gpu_h: logn %u out of range", logn);
			return -EINVAL;
		}
		size_t n = (size_t)1 << logn;
		for (int i = 0; i < 4; i++)
			CK(cudaMalloc(&d[i], n * 32));
		CKR(tables(g, logn, &d[4], &d[5], &d[6], err, errlen));
		CK(cudaMemcpyAsync(d[0], a, n * 32, cudaMemcpyHostToDevice, g->s));
		CK(cudaMemcpyAsync(d[1], b, n * 32, cudaMemcpyHostToDevice, g->s));
		CK(cudaMemcpyAsync(d[2], c, n * 32, cudaMemcpyHostToDevice, g->s));
		CKR(hpoly_dev(g, logn, (Fr *)d[0], (Fr *)d[1], (Fr *)d[2], (Fr *)d[3],
			      (const twiddle<Fr> *)d[4], (const twiddle<Fr> *)d[5],
			      (const Fr *)d[6], err, errlen));
		CK(cudaMemcpyAsync(h, d[3], n * 32, cudaMemcpyDeviceToHost, g->s));
		CK(cudaStreamSynchronize(g->s));
		return 0;
	}

	static int field_op(zka_gpu *g, int field, int op, const void *a, const void *b, void *out,
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
				k_shoup<typename TR::FrP><<<nbk, 128>>>(
				    (const Fr *)d[0], (const Fr *)d[1], (Fr *)d[2], n);
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
				k_fop<Fr><<<nbk, 128>>>(op, (const Fr *)d[0], (const Fr *)d[1],
							(Fr *)d[2], n);
			else if (field == 1)
				k_fop<Fq><<<nbk, 128>>>(op, (const Fq *)d[0], (const Fq *)d[1],
							(Fq *)d[2], n);
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
	static int acc_arith(zka_gpu *g, int method, int J, const void *pts, size_t npts,
			     const uint32_t *idx, size_t lanes, uint32_t steps, void *out, double *dev_s,
			     char *err, size_t errlen)
	{
		void *d[4] = {0};
		cudaEvent_t ev[2] = {0, 0};
		int rc = arith_inner(g, method, J, pts, npts, idx, lanes, steps, out, dev_s, d, ev,
				     err, errlen);
		for (int i = 0; i < 2; i++)
			if (ev[i])
				cudaEventDestroy(ev[i]);
		for (int i = 0; i < 4; i++)
			cudaFree(d[i]);
		return rc;
	}
	static int arith_inner(zka_gpu *g, int method, int J, const void *pts, size_t npts,
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
			zkg_errf(err, errlen,
				 "zka_gpu_acc_arith: J = %d is not 1, 2, 4, 8, 16, 32 or 64", J);
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
			k_arith_aff<Fq><<<nblk(lanes, 128), 128, 0, g->s>>>((const G1 *)d[2], L,
									   (G1A *)d[3]);
			CKL();
		}
		CK(cudaMemcpyAsync(out, d[method == 0 ? 3 : 2], lanes * ab, cudaMemcpyDeviceToHost,
				   g->s));
		CK(cudaStreamSynchronize(g->s));
		float ms = 0;
		CK(cudaEventElapsedTime(&ms, ev[0], ev[1]));
		if (dev_s)
			*dev_s = ms * 1e-3;
		return 0;
	}

	static int fixed_base(zka_gpu *g, int g2, const void *base, const uint64_t (*k)[4],
			      size_t n, void *out, char *err, size_t errlen)
	{
		void *d[3] = {0};
		int rc = fixed_inner(g, g2, base, k, n, out, d, err, errlen);
		for (int i = 0; i < 3; i++)
			cudaFree(d[i]);
		return rc;
	}
	static int fixed_inner(zka_gpu *g, int g2, const void *base, const uint64_t (*k)[4],
			       size_t n, void *out, void **d, char *err, size_t errlen)
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
				    (const G2A *)d[0], (const scal *)d[1], (uint32_t)m,
				    (G2A *)d[2]);
			else
				k_fixed<Fq><<<nblk(m, 128), 128, 0, g->s>>>(
				    (const G1A *)d[0], (const scal *)d[1], (uint32_t)m,
				    (G1A *)d[2]);
			CKL();
			CK(cudaMemcpyAsync((char *)out + off * ab, d[2], m * ab,
					   cudaMemcpyDeviceToHost, g->s));
			CK(cudaStreamSynchronize(g->s));
		}
		return 0;
	}
};

} // namespace zkg

#define ZKG_DEFINE_OPS(NAME, TR)                                                                   \
	const struct zkg_ops NAME = {                                                              \
	    zkg::eng<TR>::key_load,   zkg::eng<TR>::tables_build, zkg::eng<TR>::prove,             \
	    zkg::eng<TR>::msm,                                                                     \
	    zkg::eng<TR>::ntt,	      zkg::eng<TR>::hpoly, zkg::eng<TR>::field_op,                 \
	    zkg::eng<TR>::fixed_base, zkg::eng<TR>::acc_arith,                                     \
	};
