/* zka_gpu.h - the CUDA Groth16 prover (BN254 and BLS12-381 on sm_90).
 *
 * Byte layouts are the host's (zk/groth16.h): affine Montgomery points as in .zkey (infinity is
 * all zero bytes), Fr scalars as 4 little-endian 64-bit limbs. Every function returns 0 or a
 * negative errno and writes a one-line message into err (when err != NULL); none exits.
 * A context is used by one thread at a time; it owns a stream and one proof's device buffers.
 * A loaded key is read only while proving: several contexts of the same device may prove with
 * one key at the same time (one thread each), so that one proof's copies and host work overlap
 * another's kernels without a second copy of the key. */
#ifndef ZKA_GPU_H
#define ZKA_GPU_H
#include <stddef.h>
#include <stdint.h>

#include "zk/groth16.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zka_gpu zka_gpu;         /* a device context */
typedef struct zka_gpu_key zka_gpu_key; /* a proving key resident on the device */

/* Returns -ENODEV (and "no CUDA device" in err) when there is no usable device. */
int zka_gpu_open(zka_gpu **g, int device, char *err, size_t errlen);
void zka_gpu_close(zka_gpu *g);

/* How this process's host threads wait for the device (a device-wide setting of the process,
 * applied by every later zka_gpu_open; call before the first). ZKA_GPU_WAIT_AUTO: CUDA's
 * default, which spins a core for every waiting thread while the process has fewer contexts
 * than the machine has cores (the lowest latency: benchmarks, one-shot proofs).
 * ZKA_GPU_WAIT_BLOCK: waiting threads sleep in the kernel until the device signals
 * (cudaDeviceScheduleBlockingSync): a daemon whose host shares its cores with synthesis keeps
 * them for it (two lanes spinning through their proofs hold two of the cores all the time). */
enum { ZKA_GPU_WAIT_AUTO = 0, ZKA_GPU_WAIT_BLOCK = 1 };
void zka_gpu_set_host_wait(int mode);
/* Number of CUDA devices (0 when the runtime finds none or fails). */
int zka_gpu_device_count(void);
/* A one-line description of the context's device ("NVIDIA H200, 132 SMs, 139 GiB"). */
const char *zka_gpu_device_name(const zka_gpu *g);

/* Copies the key's points to the device (A, B1, B2, C, H) and prepares the NTT tables (and
 * the window tables, see zka_gpu_set_tables_build). The key may then be used with any context
 * of the same device; free it after those contexts have finished proving with it (a build
 * still running is waited for). */
int zka_gpu_key_load(zka_gpu *g, const zka_pk *pk, zka_gpu_key **key, char *err, size_t errlen);
/* An upload gate lets the next zka_gpu_key_load on g copy each point set as soon as its
 * host memory is ready (registered on another thread) instead of after all of them: before
 * each set's copy the load calls gate(arg, todo), todo the sets still to copy (bit i: A, B1,
 * B2, C, H; only the sets the load uploads), and copies the set whose index gate returns; gate
 * may block until it can answer. A negative return (-errno) fails the load, naming the gate;
 * an index not in todo fails it with -EINVAL. The allocations before the first call and the
 * NTT tables after the copies run as without a gate. The gate is cleared when that load
 * returns; NULL clears it. */
typedef int (*zka_gpu_upload_gate)(void *arg, int todo);
void zka_gpu_set_upload_gate(zka_gpu *g, zka_gpu_upload_gate gate, void *arg);
/* Staged uploads: later key loads on g copy every point set whose host memory is not
 * registered through 2 x threads pinned buffers of piece bytes (0: ZKA_GPU_STAGE_PIECE; else
 * a power of two from 64 KiB to 1 GiB), threads CPU threads filling them piece by piece (memcpy,
 * or the reader of zka_gpu_set_upload_reader) while the buffers filled before are copied to the
 * device; registered sets are copied directly.
 * For memory that is pageable and not worth registering (a key resident in 4 KiB shm pages,
 * used once: registering and unregistering it cost more than the copy). threads 0 frees the
 * buffers and turns it off (also done by zka_gpu_close). 0, or -EINVAL (threads not in
 * 0..ZKA_GPU_STAGE_MAX, bad piece) / -ENOMEM / -EIO naming what failed, the previous setting
 * kept. zka_gpu_key_times.staged says which load used it. */
#define ZKA_GPU_STAGE_MAX 16
#define ZKA_GPU_STAGE_PIECE ((size_t)2 << 20)
int zka_gpu_set_upload_staging(zka_gpu *g, int threads, size_t piece, char *err, size_t errlen);
/* The staged upload's reader: fills dst (a pinned staging buffer) with the len bytes of host
 * key that start at src (an address inside one of the key's point sets, as its pointers give
 * them), from wherever the caller keeps those bytes; returns 0 or -errno with a one-line
 * message in err. Called from the stager's threads at once, each on its own pieces. For a key
 * whose bytes are in a file (a resident shm region): pread(2) copies them without mapping
 * its pages into the process, which then has no page tables to build or tear down. NULL (the
 * default): memcpy from src. Kept for later loads until set again. */
typedef int (*zka_gpu_upload_read)(void *arg, void *dst, const void *src, size_t len, char *err,
				   size_t errlen);
void zka_gpu_set_upload_reader(zka_gpu *g, zka_gpu_upload_read read, void *arg);
void zka_gpu_key_free(zka_gpu_key *key);
/* How a key's load went (zka_gpu_key_timing), in bytes and seconds: the key's points copied
 * host to device, the copies' time (from the first copy's start to the last one's completion),
 * the window tables' build on the device after them (0 when the key has none, and while a
 * background build is not done) and the whole zka_gpu_key_load (allocations, copies, tables
 * when built before it returns, NTT twiddles). pinned: every point set's
 * source was page-locked (registered) host memory, so the copies ran at pinned speed; 0: at
 * least one came from pageable memory. staged: the threads that copied the pageable sets through
 * pinned buffers (zka_gpu_set_upload_staging), 0 when the driver staged them (several times
 * slower) or every set was pinned. split: 0 when the engine did not stamp its phases (upload and
 * tables are then 0; only total is known). */
typedef struct {
	uint64_t bytes;
	double upload, tables, total;
	int pinned, split, staged;
} zka_gpu_key_times;
void zka_gpu_key_timing(const zka_gpu_key *key, zka_gpu_key_times *t);
/* One line saying which MSM path the key uses: "shared-bucket MSM with window tables (...)"
 * or "windowed MSM: ..." with the reason (tables turned off, or too large for the device). */
const char *zka_gpu_key_mode(const zka_gpu_key *key);
/* 1 when the key streams point sets from the host key at every proof (zka_gpu_set_stream_chunk:
 * its host points must stay mapped, and should stay registered, until zka_gpu_key_free) */
int zka_gpu_key_streamed(const zka_gpu_key *key);
/* Window tables (default on): a key loaded afterwards stores W copies of each point set,
 * copy w = 2^(c w) times the points, so that all windows of an MSM share one set of buckets
 * (no per-window bucket reduction). 0 turns them off for later key loads and MSMs. */
void zka_gpu_set_precompute(zka_gpu *g, int on);
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
/* The proofs that will run at once with keys loaded afterwards through g (1..64, default 2:
 * zkarena-gpud's lanes, each its own context): a key's window tables leave their estimated
 * working memory free, so that every lane can allocate its buffers. */
void zka_gpu_set_proofs_in_flight(zka_gpu *g, int n);
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
/* When keys loaded afterwards through g build their window tables (about 1.1 s of device time
 * for BN254 2^22's 19.5 GiB on an H200):
 *   ZKA_GPU_TABLES_SYNC (default): zka_gpu_key_load builds them before it returns;
 *   ZKA_GPU_TABLES_BACKGROUND: zka_gpu_key_load starts the build on a stream of the lowest
 *     priority and returns; proofs run the windowed MSM (same results, slower) until the
 *     build is done, then the shared-bucket one, so a restarted daemon proves at once;
 *   ZKA_GPU_TABLES_DEFERRED: the tables are allocated but the build waits for
 *     zka_gpu_key_tables_start (tests: proofs before, during and after the build). */
#define ZKA_GPU_TABLES_SYNC 0
#define ZKA_GPU_TABLES_BACKGROUND 1
#define ZKA_GPU_TABLES_DEFERRED 2
void zka_gpu_set_tables_build(zka_gpu *g, int mode);
/* Starts a DEFERRED key's build (0 when there is nothing to start: no tables, or started). */
int zka_gpu_key_tables_start(zka_gpu_key *key, char *err, size_t errlen);
/* Never blocks: ZKA_GPU_TABLES_NONE (the key has no window tables: windowed MSM for good),
 * ZKA_GPU_TABLES_BUILDING (not started or not finished: proofs run the windowed MSM),
 * ZKA_GPU_TABLES_READY (proofs from now on use them; *build_s, when not NULL, gets the
 * build's device seconds), or -errno with err on a device error. Any thread. */
#define ZKA_GPU_TABLES_NONE 0
#define ZKA_GPU_TABLES_BUILDING 1
#define ZKA_GPU_TABLES_READY 2
int zka_gpu_key_tables(zka_gpu_key *key, double *build_s, char *err, size_t errlen);
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
typedef struct zka_gpu_pin zka_gpu_pin;
int zka_gpu_pin_readonly(zka_gpu *g, const void *host, size_t bytes, zka_gpu_pin **pin, char *err,
			 size_t errlen);
void zka_gpu_unpin(zka_gpu_pin *pin); /* NULL is fine */
/* The same for n ranges at once (readonly: cudaHostRegisterReadOnly, for PROT_READ mappings;
 * 0: ordinary registration), pinned by up to 8 threads in parallel: the ranges are rounded out
 * to whole pages, merged where they share a page, and a range over 64 GiB is cut every 64 GiB
 * from its start. A copy must lie within one piece (the driver refuses one that spans two
 * registrations): pin each buffer that is copied whole as its own range. Whole pages are
 * registered, so memory sharing a page with a range (a small heap buffer's neighbour) must not
 * be copied to a device while pinned: pin page-aligned memory (mmap, the arena, a params
 * region). Returns 0, or -errno with the failing piece named in err and nothing left
 * registered. */
int zka_gpu_pin_ranges(zka_gpu *g, const void *const *ptrs, const size_t *lens, int n,
		       int readonly, zka_gpu_pin **pin, char *err, size_t errlen);
/* A host key's five point sets (A, B1, B2, C, H: what zka_gpu_key_load copies), read-only,
 * each its own range, pinned in parallel: a key in a params region uploads at pinned speed.
 * Its pieces end at every multiple of 64 GiB in the address space, where zka_gpu_key_load cuts
 * its copies too, so a set that straddles such an address still uploads pinned. */
int zka_gpu_pin_key(zka_gpu *g, const zka_pk *pk, zka_gpu_pin **pin, char *err, size_t errlen);
/* The same for five ranges given by address (A, B1, B2, C, H as zka_pk_point_sets orders
 * them; zka_params_point_sections gives them from a .zka's header), cut as zka_gpu_pin_key cuts.
 * readonly 0: ordinary registration, for memory still being written (a key being read into
 * its region: the pages pinned are the ones the reads fill). */
int zka_gpu_pin_key_sets(zka_gpu *g, const void *const p[5], const size_t len[5], int readonly,
			 zka_gpu_pin **pin, char *err, size_t errlen);

/* Device memory of g's device (cudaMemGetInfo): *free_b and *total_b in bytes, used by every
 * process on the device. g is only read (any thread). Returns 0 or -EIO with err set. */
int zka_gpu_mem_info(zka_gpu *g, size_t *free_b, size_t *total_b, char *err, size_t errlen);

/* One proof: a, b, c are domain_size Montgomery scalars each (read only), w the n_vars
 * witness scalars in standard form; c NULL: c = a .* b is computed on the device (what the
 * pipeline's slots need: they hold no c). Bit-identical to zka_prove_abc for the same rs. t
 * may be NULL (t->abc is left 0; t->ntt includes the host-to-device copy of a, b, c). */
int zka_gpu_prove(zka_gpu *g, zka_gpu_key *key, const uint64_t (*a)[4], const uint64_t (*b)[4],
		  const uint64_t (*c)[4], const uint64_t (*w)[4], const zka_rs *rs, zka_proof *proof,
		  zka_prove_times *t, char *err, size_t errlen);
/* The same from a and b alone (c = a .* b made on the device), in standard form when ab_std
 * (a slot's: synth/pipe.h; the device converts them), else in Montgomery form. */
int zka_gpu_prove_ab(zka_gpu *g, zka_gpu_key *key, const uint64_t (*a)[4], const uint64_t (*b)[4],
		     int ab_std, const uint64_t (*w)[4], const zka_rs *rs, zka_proof *proof,
		     zka_prove_times *t, char *err, size_t errlen);

/* Finer timings of the last zka_gpu_prove, in seconds. */
typedef struct {
	double h2d;     /* host-to-device copies of a, b, c, w */
	double ntt;     /* the H polynomial on the device (copies excluded) */
	double msm_g1;  /* A, B1, C, H (device work + host window combination) */
	double msm_g2;  /* B2 */
	double finish;  /* randomisation and conversion to affine on the host */
	double total;
	/* msm_split: the witness MSMs took the 0/1 split (zka_gpu_set_split01), frac01 the
	 * fraction of witness scalars 0 or 1 (-1: not counted, the split being off). Also set by
	 * zka_gpu_msm_g1/g2 for their scalars. */
	int msm_split;
	double frac01;
	int tables; /* 1: the proof's MSMs used the key's window tables; 0: the windowed MSM */
} zka_gpu_times;
void zka_gpu_last_times(const zka_gpu *g, zka_gpu_times *t);

/* Batch fixed-base multiplication (for `setup --insecure --gpu`): out[i] = k[i] * base with
 * base and out affine Montgomery bytes (G1: 2*n8q, G2: 4*n8q bytes each), k standard form. */
int zka_gpu_fixed_base_g1(zka_gpu *g, const zka_curve *c, const void *base, const uint64_t (*k)[4],
			  size_t n, void *out, char *err, size_t errlen);
int zka_gpu_fixed_base_g2(zka_gpu *g, const zka_curve *c, const void *base, const uint64_t (*k)[4],
			  size_t n, void *out, char *err, size_t errlen);

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

/* Element-wise field operations for tests: field 0 Fr, 1 Fq, 2 Fq2; op 0 add, 1 sub, 2 mul,
 * 3 sqr, 4 inv, 5 from_mont, 6 (Fr only) a b as the NTT's twiddle products compute it (b made
 * into a Shoup pair, b != 0), 7 (Fr and Fq) a_i b_i + a_j b_j with j = i + 1 mod n as the point
 * formulas' one-reduction sum of two products computes it; 8 (Fq only) (a + b)^2 with the sum
 * left unreduced (< 2p), as the point formulas square such sums. Elements of the field's size, packed. */
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
