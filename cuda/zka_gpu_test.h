/* zka_gpu_test.h - the CUDA library's entries for tests and benchmarks (tests/gpu_test.c,
 * tools/bench_gpu.c): the engine's building blocks alone (MSM, NTT, H, field operations, the
 * bucket loop's arithmetic), the proof from a, b and c, and the tuning knobs production leaves
 * at their defaults (window tables' budget, streaming, priorities, the 0/1 split). Production
 * code includes cuda/zka_gpu.h only. Conventions as zka_gpu.h's. */
#ifndef ZKA_GPU_TEST_H
#define ZKA_GPU_TEST_H
#include "cuda/zka_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of CUDA devices (0 when the runtime finds none or fails). */
int zka_gpu_device_count(void);
/* The window tables' memory budget for keys loaded (and MSMs run) afterwards through g, in
 * multiples of the points' own bytes: the tables (copies beyond the points themselves) take
 * at most times x those bytes, so a point set has 1 + floor(times) copies and the windows of
 * an MSM share buckets in groups of that many (fewer groups, less reduction). INFINITY: a copy
 * per window (one set of buckets, the fastest; BN254 2^22: 13 copies, 19.5 GiB); 0: none (the
 * windowed MSM). A key whose copies, with the working memory of the proofs in flight
 * (zka_gpu_set_proofs_in_flight), do not fit in 95% of the free device memory less 1 GiB
 * gets fewer (none only when even 2 do not fit), and zka_gpu_key_mode says so. < 0: the default,
 * ZKG_TABLE_BUDGET in the environment (as zka_gpu_table_budget_parse reads it), else
 * ZKA_GPU_TABLE_BUDGET (the key's own size). */
#define ZKA_GPU_TABLE_BUDGET 1.0
void zka_gpu_set_table_budget(zka_gpu *g, double times);
double zka_gpu_table_budget(const zka_gpu *g);
/* what zka_gpu_set_proofs_in_flight set (default 2) */
int zka_gpu_proofs_in_flight(const zka_gpu *g);
/* Streamed keys: a key whose points, with the working memory of the proofs in flight, do not fit
 * on the device even without window tables keeps some of its point sets (A, B1, B2, C, H) in
 * host memory and streams them through the device at every proof, chunk by chunk, the copy of
 * chunk j + 1 overlapping the MSM of chunk j (sort, accumulation and reduction per chunk, the
 * chunks' sums added on the host). The sets that fit stay on the device. Such a key reads the
 * host key's points at every proof: they must stay mapped, unchanged, until zka_gpu_key_free
 * (pin them, zka_gpu_pin_key, or the copies run at pageable speed); zka_gpu_key_mode names the
 * sets streamed and the chunk. A standalone MSM (zka_gpu_msm_g1/g2) whose points do not fit
 * streams them the same way. points > 0 forces streaming for keys loaded (and MSMs run)
 * afterwards through g, every set streamed, in chunks of that many points (tests, measurement);
 * 0: automatic (the default, or ZKG_STREAM_CHUNK from the environment at zka_gpu_open). */
void zka_gpu_set_stream_chunk(zka_gpu *g, size_t points);
/* "max" (INFINITY), or N or Nx with N a number >= 0: *times; -EINVAL for anything else. */
int zka_gpu_table_budget_parse(const char *s, double *times);
/* Starts a DEFERRED key's build (0 when there is nothing to start: no tables, or started). */
int zka_gpu_key_tables_start(zka_gpu_key *key, char *err, size_t errlen);
/* Waits until a started build is done (then READY); returns the state as zka_gpu_key_tables. */
int zka_gpu_key_tables_wait(zka_gpu_key *key, char *err, size_t errlen);
/* Proofs whose domain has at least min_domain elements run their critical chain (a, b, c ->
 * NTT -> H MSM) on a stream of the highest priority, the other MSMs around it; smaller ones
 * use ordinary priority. Default ZKA_GPU_PRIO_DOMAIN, from where it measured faster (see
 * zka_gpu_prove); 0: every proof, UINT32_MAX: none. Results are the same either way. */
#define ZKA_GPU_PRIO_DOMAIN (1u << 20)
void zka_gpu_set_priority_domain(zka_gpu *g, uint32_t min_domain);
/* The 0/1 split of the witness MSMs (A, B1, C, B2): when at least min_frac of the witness
 * scalars are 0 or 1 (Filecoin's: ~90% boolean), the device drops the zeros, sums the points
 * of the ones by a plain reduction (no buckets) and sends only the others through the bucket
 * MSM, whose work then scales with their number. Results are identical either way. Default
 * ZKA_GPU_SPLIT01, or ZKG_SPLIT01 from the environment at zka_gpu_open; 0: always, above 1:
 * never; a negative min_frac restores the default. The same applies to zka_gpu_msm_g1/g2.
 * ZKA_GPU_SPLIT01: the split costs one more pass over the scalars, a host round trip and the
 * compaction, and saves the accumulation of the idle runs (the flat split is sized by all n
 * scalars). Measured (H200, 2026-12-02, BN254 2^22, bench gpu --witness bits:P, split forced
 * on / off, ms per proof): P = 0.1 98.25 / 104.28, 0.3 83.47 / 91.00, 0.5 68.00 / 75.62; it
 * pays from the lowest fraction measured, 0.1 (was 0.3, a guess). */
#define ZKA_GPU_SPLIT01 0.1
void zka_gpu_set_split01(zka_gpu *g, double min_frac);
/* Page-locks host memory once (cudaHostRegister, chunks <= 64 GiB) so copies from it run at
 * full speed; the context unregisters it when closed. */
int zka_gpu_register(zka_gpu *g, void *host, size_t bytes, char *err, size_t errlen);

/* Page-locks read-only host memory (a PROT_READ mapping: a params region) for the whole process
 * with cudaHostRegisterReadOnly, in chunks of at most 64 GiB, so that copies from it (a key's
 * upload) run at pinned speed. Independent of the context's own registrations (g is only read:
 * its device), so any thread may pin while g proves; zka_gpu_unpin undoes it and must come
 * before the memory is unmapped. Returns -ENOTSUP when the device cannot register read-only
 * memory (cudaDevAttrHostRegisterReadOnlySupported = 0), -EIO or -ENOMEM when the driver
 * refuses; nothing stays registered on error. */
int zka_gpu_pin_readonly(zka_gpu *g, const void *host, size_t bytes, zka_gpu_pin **pin, char *err,
			 size_t errlen);
/* One proof: a, b, c are domain_size Montgomery scalars each (read only), w the n_vars
 * witness scalars in standard form; c NULL: c = a .* b is computed on the device (what the
 * pipeline's slots need: they hold no c). Bit-identical to zka_prove_abc for the same rs. t
 * may be NULL (t->abc is left 0; t->ntt includes the host-to-device copy of a, b, c). */
int zka_gpu_prove(zka_gpu *g, zka_gpu_key *key, const uint64_t (*a)[4], const uint64_t (*b)[4],
		  const uint64_t (*c)[4], const uint64_t (*w)[4], const zka_rs *rs,
		  zka_proof *proof, zka_prove_times *t, char *err, size_t errlen);
/* The same with the signature of zk/setup.h's zka_fixed_base_ops (ctx = the zka_gpu *):
 *   zka_fixed_base_ops fb = {g, zka_gpu_fb_g1, zka_gpu_fb_g2};  zka_setup(cs, t, pk, &fb, 0); */
int zka_gpu_fb_g1(void *ctx, const zka_curve *c, const void *base, const uint64_t (*k)[4], size_t n,
		  void *out);
int zka_gpu_fb_g2(void *ctx, const zka_curve *c, const void *base, const uint64_t (*k)[4], size_t n,
		  void *out);
/* ---- Building blocks, exposed for tests and benchmarks ---- */

/* MSM sum k[i] * p[i] (points affine Montgomery bytes, k standard form), result affine.
 * *dev_s (when non-NULL) receives the wall time from points, window tables and scalars on the
 * device (their copies and the tables are not counted) to the affine result on the host: the
 * kernels, the copy of the reduction's planes back and the host's final combination. The
 * MSM's scratch is the context's (kept between calls, as for proofs): a first call of a size
 * also counts its allocation. */
int zka_gpu_msm_g1(zka_gpu *g, const zka_curve *c, const void *points, const uint64_t (*k)[4],
		   size_t n, void *out, double *dev_s, char *err, size_t errlen);
int zka_gpu_msm_g2(zka_gpu *g, const zka_curve *c, const void *points, const uint64_t (*k)[4],
		   size_t n, void *out, double *dev_s, char *err, size_t errlen);

/* NTT of 2^logn Montgomery Fr elements in place, natural order in and out; inverse includes
 * the 1/n factor. Roots are ffjavascript's. *dev_s: device time of the transform alone (the
 * pass the prover uses, without the test-only bit-reversal). */
int zka_gpu_ntt(zka_gpu *g, const zka_curve *c, uint32_t logn, uint64_t (*x)[4], int inverse,
		double *dev_s, char *err, size_t errlen);

/* The prover's H evaluations from a, b, c (Montgomery, 2^logn each): h in standard form. */
int zka_gpu_h(zka_gpu *g, const zka_curve *c, uint32_t logn, const uint64_t (*a)[4],
	      const uint64_t (*b)[4], const uint64_t (*cc)[4], uint64_t (*h)[4], char *err,
	      size_t errlen);

/* The same for a key of H kind h_kind and root family root (zka_pk.h_kind, .root; zka_gpu_h is
 * ZKA_H_COSET, ZKA_ROOT_SNARKJS): with ZKA_H_MONOMIAL, h = the coefficients of
 * (A B - C) / (X^n - 1) (the CPU's h_scalars, zk/groth16_tmpl.h), standard form. 0, -EINVAL
 * (logn, the kind or the root family out of range for the curve) or another -errno, with err. */
int zka_gpu_h_kind(zka_gpu *g, const zka_curve *c, uint32_t logn, uint32_t h_kind, uint32_t root,
		   const uint64_t (*a)[4], const uint64_t (*b)[4], const uint64_t (*cc)[4],
		   uint64_t (*h)[4], char *err, size_t errlen);

/* Element-wise field operations for tests: field 0 Fr, 1 Fq, 2 Fq2; op 0 add, 1 sub, 2 mul,
 * 3 sqr, 4 inv, 5 from_mont, 6 (Fr only) a b as the NTT's twiddle products compute it (b made
 * into a Shoup pair, b != 0), 7 (Fr and Fq) a_i b_i + a_j b_j with j = i + 1 mod n as the point
 * formulas' one-reduction sum of two products computes it; 8 (Fq only) (a + b)^2 with the sum
 * left unreduced (< 2p), as the point formulas square such sums. Elements of the field's size,
 * packed. */
int zka_gpu_field_op(zka_gpu *g, const zka_curve *c, int field, int op, const void *a,
		     const void *b, void *out, size_t n, char *err, size_t errlen);

/* The bucket loop's arithmetic alone, measured for the choice of accumulator (cuda/msm_affine.cuh;
 * `zkarena bench gpu --arith 1`). lanes sums of G1 points: lane l adds pts[idx[s lanes + l]] for
 * s < steps (every idx below npts) and writes its sum to out[l] (affine, all zero at infinity).
 * method 0: mixed additions into the bucket loop's accumulator (XYZZ on BN254, Jacobian on
 * BLS12-381), one lane per thread; 1: batch-affine additions, J (1, 2, 4, 8, 16, 32 or 64) lanes
 * per thread sharing one Fermat inversion per step (Montgomery's trick); methods 0 and 1 give the
 * same bytes. 2: steps chained inversions of pts[l % npts].x (idx unused, the result in out[l].x);
 * 3: steps chained products pts[l % npts].x * y^steps; 4: the same chain on the FP64 pipe
 * (cuda/field_f64.cuh: 52-bit limbs in doubles), the same bytes as 3. *dev_s: the kernel's
 * device time (copies and method 0's conversion to affine not counted). -EINVAL naming the
 * argument for an index out of range or bad sizes. */
int zka_gpu_acc_arith(zka_gpu *g, const zka_curve *c, int method, int J, const void *pts,
		      size_t npts, const uint32_t *idx, size_t lanes, uint32_t steps, void *out,
		      double *dev_s, char *err, size_t errlen);

/* Host-to-device bandwidth in GB/s for a copy of bytes from host (registered or not). */
int zka_gpu_h2d_bw(zka_gpu *g, const void *host, size_t bytes, double *gbps, char *err,
		   size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
