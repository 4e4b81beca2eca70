/* drv_eng.cuh - the engine's host driver, generic over the curve (struct eng<TR>, TR a curve's
 * traits: bn254.cu, bls12_381.cu): its types, constants and small helpers, and the declarations
 * of its parts, one concept per file, each opening with what it computes and what bounds it:
 *   drv_ntt.cuh     NTT tables and passes, the H polynomial on the device
 *   drv_msm.cuh     one MSM: window choice, scratch sizing, 0/1 split, bucket sort, run, combine
 *   drv_stream.cuh  streamed point sets: chunks through two staging buffers, the plan
 *   drv_key.cuh     the device key: point sets' upload, window tables under the memory check
 *   drv_prove.cuh   one proof: the witness MSMs on four lanes beside the H chain
 *   drv_setup.cuh   setup's fixed-base multiplication
 *   drv_check.cuh   a key's points validated (subgroup.cuh)
 *   drv_test.cuh    entry points for tests and benchmarks (not in the production includes)
 * Every CUDA call goes through CK (file:line and the runtime's message, internal.cuh) and every
 * launch is followed by CKL (or, after a chain of alternative launches, one cudaGetLastError
 * check); only the frees on the unwind after an error go unchecked (the first error is the one
 * reported). Members are static: eng<TR> is a namespace that knows its curve. */
#pragma once
#include "cuda/abc.cuh"
#include "cuda/fixed_base.cuh"
#include "cuda/msm_accumulate.cuh"
#include "cuda/msm_affine.cuh"
#include "cuda/msm_common.cuh"
#include "cuda/msm_reduce.cuh"
#include "cuda/msm_sort.cuh"
#include "cuda/msm_split.cuh"
#include "cuda/ntt.cuh"

namespace zkg
{

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

	/* all logn stages: passes of up to 8 stages in shared memory (tiles of <= ZKG_NTT_TILE
	 * elements, at least 2^8 so that a tile holds a whole group) */
	static constexpr int NTT_SMEM_MAX =
	    ZKG_NTT_TILE * 48 + 512 * 32; /* the largest k_stages tile */

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

	/* groups of windows (sets of buckets) whose sums the reduction produces */
	static uint32_t groups(int W, int copies)
	{
		return (uint32_t)((W + copies - 1) / copies);
	}
	static uint32_t nwins(const zkg_msm_scratch *m)
	{
		return groups(m->W, m->copies);
	}

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

	/* ---- NTT (drv_ntt.cuh) ---- */
	static int tables(zka_gpu *g, uint32_t logn, uint32_t root, void **d_tw, void **d_itw,
			  void **d_cs, zkg_hmono *hm, char *err, size_t errlen);
	static int ntt_pass(zka_gpu *g, Fr *x, uint32_t logn, const twiddle<Fr> *tw, bool dit,
			    char *err, size_t errlen);
	static int hpoly_dev(zka_gpu *g, uint32_t logn, Fr *a, Fr *b, Fr *c, Fr *h,
			     const twiddle<Fr> *tw, const twiddle<Fr> *itw, const Fr *cs,
			     const zkg_hmono *hm, char *err, size_t errlen);

	/* ---- one MSM (drv_msm.cuh) ---- */
	static digit_plan digit_plan_of(int c, int tmax);
	static int choose_c(size_t n, int tmax);
	static double fit_bytes(size_t fr);
	static int work_grow(zkg_msm_scratch *w, const zkg_msm_scratch *p, size_t js, char *err,
			     size_t errlen);
	static void msm_bytes(size_t n, int c, int copies, double js, double *sort, double *work);
	static int split_grow(zkg_msm_scratch *m, size_t n, char *err, size_t errlen);
	static int split01(zka_gpu *g, zkg_msm_scratch *m, size_t n, bool split_ok, const scal **ks,
			   const uint32_t **idx, char *err, size_t errlen);
	static int prepare(zka_gpu *g, zkg_msm_scratch *m, const void *d_scalars, size_t n, int c,
			   int tmax, bool split_ok, char *err, size_t errlen);
	template <class F> static uint32_t flat_run(const zka_gpu *g, const zkg_msm_scratch *m);
	template <class F>
	static int run(zka_gpu *g, const zkg_msm_scratch *m, zkg_msm_scratch *w, cudaStream_t st,
		       const void *d_points, void *ws_out, char *err, size_t errlen);
	static void combine(int g2, const void *hslot, const zkg_msm_scratch *m, void *out);

	/* ---- streamed point sets (drv_stream.cuh) ---- */
	static size_t stage_per_point(int ns, sset *S);
	static int stage(zka_gpu *g, int ns, const sset *S, size_t chunk, size_t off, size_t cnt,
			 int b, char *err, size_t errlen);
	static int streamed(zka_gpu *g, const void *d_sc, size_t n, size_t chunk, int ns, sset *S,
			    bool split_ok, uint8_t (*acc)[sizeof(G2)], char *err, size_t errlen);
	static double stream_ctx_bytes(size_t nv, size_t nd, size_t chunk, size_t per, size_t js);
	static size_t stream_per(int mask);
	static int stream_plan(zka_gpu *g, zka_gpu_key *k, size_t fr, int *mask, char *err,
			       size_t errlen);

	/* ---- the device key (drv_key.cuh) ---- */
	static double ctx_bytes(size_t nv, size_t nd, int cv, int tv, int ch, int th);
	template <class F>
	static int precompute(cudaStream_t st, void *tab, size_t n, int c, int tmax,
			      zkg_throttle *thr, char *err, size_t errlen);
	static int tables_on(cudaStream_t st, zka_gpu_key *k, zkg_throttle *thr, char *err,
			     size_t errlen);
	static int tables_build(zka_gpu_key *k, zkg_throttle *thr, char *err, size_t errlen);
	static cudaError_t alloc_sets(zka_gpu_key *k, size_t Wv, size_t Wh, int mask);
	static void free_sets(zka_gpu_key *k);
	static int upload(zka_gpu *g, void *dst, const void *src, size_t bytes, char *err,
			  size_t errlen);
	static int upload_set(zka_gpu *g, zka_gpu_key *k, void *dst, const void *src, size_t bytes,
			      char *err, size_t errlen);
	static int upload_on(cudaStream_t st, void *dst, const void *src, size_t bytes, char *err,
			     size_t errlen);
	static int key_load(zka_gpu *g, const zka_pk *pk, zka_gpu_key *k, char *err, size_t errlen);

	/* ---- the proof (drv_prove.cuh) ---- */
	static int proof_bufs(zka_gpu *g, size_t nd, size_t nv, char *err, size_t errlen);
	static int abc_copy(zka_gpu *g, zka_gpu_key *k, size_t nd, const uint64_t (*a)[4],
			    const uint64_t (*b)[4], const uint64_t (*c)[4], cudaStream_t st,
			    char *err, size_t errlen);
	static int abc_hpoly(zka_gpu *g, zka_gpu_key *k, bool have_c, int ab_std, char *err,
			     size_t errlen);
	static int prove_streamed(zka_gpu *g, zka_gpu_key *k, const uint64_t (*a)[4],
				  const uint64_t (*b)[4], const uint64_t (*c)[4], int ab_std,
				  const uint64_t (*w)[4], const zka_rs *rs, zka_proof *proof,
				  char *err, size_t errlen);
	static int prove(zka_gpu *g, zka_gpu_key *k, const uint64_t (*a)[4], const uint64_t (*b)[4],
			 const uint64_t (*c)[4], int ab_std, const uint64_t (*w)[4],
			 const zka_rs *rs, zka_proof *proof, char *err, size_t errlen);

	/* ---- setup (drv_setup.cuh) ---- */
	static int check_points(zka_gpu *g, int g2, const void *pts, size_t n, uint64_t *bad,
				int *code, char *err, size_t errlen);
	static int check_inner(zka_gpu *g, int g2, const void *pts, size_t n, uint64_t *bad,
			       int *code, void **d, char *err, size_t errlen);
	static int fixed_base(zka_gpu *g, int g2, const void *base, const uint64_t (*k)[4],
			      size_t n, void *out, char *err, size_t errlen);
	static int fixed_inner(zka_gpu *g, int g2, const void *base, const uint64_t (*k)[4],
			       size_t n, void *out, void **d, char *err, size_t errlen);

	/* ---- tests and benchmarks (drv_test.cuh, cuda/zka_gpu_test.h) ---- */
	static int msm(zka_gpu *g, int g2, const void *points, const uint64_t (*k)[4], size_t n,
		       void *out, double *dev_s, char *err, size_t errlen);
	static int msm_inner(zka_gpu *g, zkg_msm_scratch *m, int g2, const void *points,
			     const uint64_t (*k)[4], size_t n, void *out, double *dev_s, void **d_p,
			     void **d_k, size_t ab, char *err, size_t errlen);
	static int ntt(zka_gpu *g, uint32_t logn, uint64_t (*x)[4], int inverse, double *dev_s,
		       char *err, size_t errlen);
	static int ntt_inner(zka_gpu *g, uint32_t logn, uint64_t (*x)[4], int inverse,
			     double *dev_s, void **d, char *err, size_t errlen);
	static int hpoly(zka_gpu *g, uint32_t logn, uint32_t h_kind, uint32_t root,
			 const uint64_t (*a)[4], const uint64_t (*b)[4], const uint64_t (*c)[4],
			 uint64_t (*h)[4], char *err, size_t errlen);
	static int hpoly_inner(zka_gpu *g, uint32_t logn, uint32_t h_kind, uint32_t root,
			       const uint64_t (*a)[4], const uint64_t (*b)[4],
			       const uint64_t (*c)[4], uint64_t (*h)[4], void **d, char *err,
			       size_t errlen);
	static int field_op(zka_gpu *g, int field, int op, const void *a, const void *b, void *out,
			    size_t n, char *err, size_t errlen);
	static int acc_arith(zka_gpu *g, int method, int J, const void *pts, size_t npts,
			     const uint32_t *idx, size_t lanes, uint32_t steps, void *out,
			     double *dev_s, char *err, size_t errlen);
	static int arith_inner(zka_gpu *g, int method, int J, const void *pts, size_t npts,
			       const uint32_t *idx, size_t lanes, uint32_t steps, void *out,
			       double *dev_s, void **d, cudaEvent_t *ev, char *err, size_t errlen);
};

} // namespace zkg
