/* internal.cuh - the context and key structures shared by the CUDA translation units. */
#pragma once
#include <cuda_runtime.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "cuda/zka_gpu.h"

void zkg_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Every CUDA call goes through CK (returns -EIO from the enclosing function with file:line and
 * the runtime's message); every launch is followed by CKL. */
#define CK(call)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (call);                                                           \
		if (e_ != cudaSuccess) {                                                           \
			zkg_errf(err, errlen, "%s:%d: %s: %s", __FILE__, __LINE__, #call,          \
				 cudaGetErrorString(e_));                                          \
			return e_ == cudaErrorMemoryAllocation ? -ENOMEM : -EIO;                   \
		}                                                                                  \
	} while (0)
#define CKL() CK(cudaGetLastError())
#define CKR(expr)                                                                                  \
	do {                                                                                       \
		int r_ = (expr);                                                                   \
		if (r_ < 0)                                                                        \
			return r_;                                                                 \
	} while (0)

struct zkg_reg {
	void *p;
	size_t n;
};

/* the largest Jacobian point: BLS12-381 G2, 3 coordinates of 2 x 48 bytes */
#define ZKG_JAC_MAX 288
/* An MSM's result slot: its reduction planes (nwin x np points) and the ones sum; 211 points
 * at most (windowed, c = 18 or 19: 15 x 14 or 14 x 15, plus 1) */
#define ZKG_WSLOT_PTS 224
#define ZKG_WSLOT ((size_t)ZKG_WSLOT_PTS * ZKG_JAC_MAX)

/* Reusable device scratch of an MSM (grown on demand; byte sizes, so that one context's
 * scratch serves keys of both curves). */
struct zkg_msm_scratch {
	size_t vals_cap, counts_cap, bucket_bytes, seg_bytes, task_bytes, partial_bytes, tmax,
	    slot_bytes, low_bytes, ccnt_bytes;
	uint32_t *d_task; /* nbig, then the big-bucket list (nb) */
	void *d_partials; /* first and last pieces of the flat split's runs (tmax each) */
	uint32_t *d_vals, *d_counts, *d_offsets;
	uint32_t *d_slots; /* the bucket sort's level 1: entries by super-bucket (engine.cuh) */
	uint16_t *d_low;   /* and the low bits of their buckets */
	uint32_t *d_ccnt;  /* level 2: entries, then places, per (chunk, low bits) */
	void *d_buckets, *d_segs, *d_wsum, *d_ones_part;
	/* the prepared scalar set: window size, windows, and the copies of the points (window
	 * tables) each group of windows reads: 1 windowed, W shared buckets (msm_sort.cuh) */
	int c, W, copies;
	uint32_t M;
	size_t n;
	const void *d_scalars;
	/* the 0/1 split of witness scalars (drv_msm.cuh, msm_split.cuh): split when this set went
	 * through it, frac01 its fraction of scalars 0 or 1; ns scalars go to the bucket sort (n,
	 * or the compacted others), n_ones are summed without buckets */
	int split;
	double frac01;
	size_t ns, n_ones, split_cap;
	void *d_cks;			       /* the compacted scalars (split_cap of 32 bytes) */
	uint32_t *d_cidx, *d_ones_idx, *d_cnt; /* their indices, the ones' indices, 2 counters */
};

struct zka_gpu {
	int device;
	int sms;
	char name[320];
	char
	    image[96]; /* zka_gpu_device_desc: the kernel image the driver chose ("" until asked) */
	cudaStream_t s;
	cudaStream_t
	    s_hi; /* highest priority: takes s's place in proofs of domain >= prio_domain */
	uint32_t prio_domain; /* zka_gpu_set_priority_domain (default ZKA_GPU_PRIO_DOMAIN) */
	int prio_least; /* the device's least stream priority: the tables' background builds */
	cudaEvent_t ev[16];
	struct zkg_reg reg[64];
	int nreg;
	zka_gpu_times last;
	double
	    split01; /* zka_gpu_set_split01: the least fraction of 0/1 witness scalars to split */
	int no_precomp; /* zka_gpu_set_precompute(g, 0): window tables off for later keys and MSMs
			 */
	double table_budget; /* zka_gpu_set_table_budget: tables' bytes / the points' (INFINITY:
				max) */
	int in_flight;	  /* zka_gpu_set_proofs_in_flight: proofs whose memory tables leave free */
	int tables_build; /* zka_gpu_set_tables_build: ZKA_GPU_TABLES_SYNC, _BACKGROUND, _DEFERRED
			   */
	size_t stream_chunk; /* zka_gpu_set_stream_chunk: > 0 forces streamed keys and MSMs */
	/* zka_gpu_set_upload_gate: the next key load's order of its sets' copies (NULL: in order)
	 */
	zka_gpu_upload_gate gate;
	void *gate_arg;
	struct zkg_stager *stg; /* zka_gpu_set_upload_staging (stage.cu), NULL: off */
	zka_gpu_upload_read
	    up_read; /* zka_gpu_set_upload_reader: the stager's source, NULL memcpy */
	void *up_arg;
	/* a streamed key's (or MSM's) staging buffers: chunk j's host points go to d_stage[j & 1]
	 * on ls[0] (lev[j & 1] recorded after the copy, lev[2 + (j & 1)] on s after the chunk's
	 * MSMs have read them); stage_cap bytes each */
	void *d_stage[2];
	size_t stage_cap;
	/* one proof's device buffers (grown on demand): a key is read only while proving, so
	 * several contexts of a device can prove with one key at the same time */
	size_t nd_cap, nv_cap;
	void *d_a, *d_b, *d_c, *d_w, *d_h;
	/* MSM scratch: ms[0] the witness digits and lane A, ms[1..3] lanes B1, C, B2 (streams
	 * ls[0..3], start/end events lev), ms[4] the H digits and its MSM (on s) */
	struct zkg_msm_scratch ms[5];
	void *h_slots; /* pinned (allocated once per context): 5 result slots come back here */
	cudaStream_t ls[4];
	cudaEvent_t lev[8];
};

/* A monomial-H key's constants for hpoly_dev (drv_ntt.cuh), Montgomery Fr: ginv[b] =
 * inc^(-2^b), inc the coset's generator (the primitive 2n-th root of the key's root family), and
 * sc = -1/(2n) */
struct zkg_hmono {
	uint64_t ginv[32][4], sc[4];
};

struct zka_gpu_key {
	zka_gpu *g;
	const zka_pk *pk_host; /* not owned: alpha1 etc. are copied below */
	zka_pk pk;	       /* shallow copy with alpha1.. pointing into pts below */
	uint8_t alpha1[96], beta1[96], delta1[96], beta2[192], delta2[192], gamma2[192];
	uint32_t n_vars, n_public, domain, logn;
	uint64_t r2[4]; /* R^2 mod r, for a slot's standard-form a and b (zka_gpu_prove_ab) */
	/* d_C: n_vars points, the first n_public+1 infinity. With window tables (pc), each holds
	 * t copies: copy w (at w * n) is 2^(start of window w) times the points (digit_plan); c_v
	 * and t_v for A, B1, C, B2, c_h and t_h for H. */
	void *d_A, *d_B1, *d_B2, *d_C, *d_H;
	int pc, c_v, c_h, t_v, t_h;
	/* streamed (drv_stream.cuh, zka_gpu_set_stream_chunk): the sets not in resident (bit i for
	 * A, B1, B2, C, H, as zka_pk_point_sets orders them) have no device copy (d_X NULL) and are
	 * read from pk_host at every proof in chunks of chunk points */
	int streamed, resident;
	size_t chunk;
	/* The window tables' state (pc = 1 only), read and written with __atomic builtins since
	 * lanes poll it while proving: ZKG_T_READY (built; proofs use them), ZKG_T_HELD (copy 0
	 * only: the build has not started, ZKA_GPU_TABLES_DEFERRED), ZKG_T_BUILDING (the build runs
	 * on s_bg, lowest priority, between ev_t0 and ev_t1). HELD -> BUILDING in
	 * zka_gpu_key_tables_start, BUILDING -> READY in the first zka_gpu_key_tables (or a proof)
	 * that finds ev_t1 complete. Until READY proofs run the windowed MSM over copy 0, which the
	 * build only reads. */
	int tstate;
	cudaStream_t s_bg;
	cudaEvent_t ev_t0, ev_t1;
	double t_build; /* device seconds of the tables' build (ev_t0 -> ev_t1), once READY */
	/* the build thread (zka_gpu_key_tables_start): it enqueues the build two launches at a
	 * time and sets launched (__atomic) once ev_t1 is recorded; stop asks it to end early
	 * (zka_gpu_key_free); build_rc and build_err: its failure, if any */
	pthread_t th_build;
	int th_started, launched, stop, build_rc;
	char build_err[256];
	char mode[384]; /* one line: which MSM path the key uses and why */
	/* the domain's NTT tables, of the key's root family (pk.root) */
	void *d_tw, *d_itw, *d_cs;
	/* a monomial-H key (pk.h_kind ZKA_H_MONOMIAL): h_mono set and hm its constants, so that
	 * hpoly_dev gives h's coefficients; 0 for a coset-H (snarkjs) key */
	int h_mono;
	/* the key's A and B in compressed sparse rows for slots that hold only the witness
	 * (zka_gpu_key_set_abc, cuda/abc.cuh): d_ab_start[m] (domain + 1 row starts), d_ab_term[m]
	 * ({column, value index} pairs), d_ab_val (the values, Montgomery form). ab_set (read
	 * and written with __atomic) is 1 once they are on the device; they never change after */
	void *d_ab_start[2], *d_ab_term[2], *d_ab_val;
	uint32_t ab_nvals;
	int ab_set;
	struct zkg_hmono hm;
	/* zka_gpu_key_timing: zka_gpu_key_load fills bytes, pinned and the total; the engine's
	 * key_load stamps (zkg_now, 0 where not stamped) the start of the points' copies and their
	 * completion (the tables' build time is t_build) */
	uint64_t up_bytes;
	int pinned, staged; /* staged: the stager's threads when a set went through it */
	double t_load, t_copy, t_uploaded;
};

enum { ZKG_T_READY = 0, ZKG_T_HELD = 1, ZKG_T_BUILDING = 2 };

/* A key's registrations (zka_gpu_pin_key) are cut at every multiple of this in the address
 * space (the driver registers at most 64 GiB at once), and key_load's copies of its point sets
 * end there too: a copy may not span two registrations (the driver answers
 * "invalid argument"; H200, 2026-12-02). Cutting a 2^22 key into 64 MiB pieces, to pin them on
 * more threads, pinned slower (0.13 s against 0.09-0.11 s for five ranges): the size stays the
 * driver's limit. */
#define ZKG_KEY_PIECE ((size_t)64 << 30)
/* ZKG_KEY_PIECE, or ZKG_KEY_PIECE from the environment (a power of two >= 4096: gpu_test cuts
 * small keys into many pieces with it) */
size_t zkg_key_piece(void);

/* A background build's pacing: after each launch an event is recorded and the host waits for
 * the one before, so at most two launches (~1 ms each) are queued behind a proof. Stream
 * priority only orders waiting blocks, and some runtime calls wait for all queued work (a
 * kernel's first launch loading its module, cudaFree): with the whole build queued at once
 * (~1000 launches, 1.1 s at BN254 2^22) a restarted gpud's first proof ended after the build
 * (H200, 2026-12-02: key on the device 1.00-1.04 s after the SIGKILL, DONE 2.09-2.13 s). */
struct zkg_throttle {
	cudaEvent_t ev[2]; /* blocking-sync events: the waiting thread sleeps */
	unsigned i;
	const int *stop; /* __atomic: nonzero ends the build early (cudaErrorNotPermitted) */
};
/* after a launch on st: records ev[i & 1], waits for ev[(i - 1) & 1] */
cudaError_t zkg_throttle_step(struct zkg_throttle *t, cudaStream_t st);
/* 1 when proofs may use k's window tables (pc and READY; a BUILDING key whose ev_t1 has
 * completed becomes READY here), 0 when they run the windowed MSM, -errno (err) on a device
 * error. Never blocks. */
int zkg_key_tables_live(zka_gpu_key *k, char *err, size_t errlen);

/* stage.cu: copies bytes of pageable src to the device at dst through g's stager (g->stg set),
 * returning when all of it is there; 0 or -errno with err. */
int zkg_stage_copy(zka_gpu *g, void *dst, const void *src, size_t bytes, char *err, size_t errlen);
/* frees g's stager (none: nothing) */
void zkg_stager_free(zka_gpu *g);
/* the stager's threads (0: none) */
int zkg_stage_threads(const zka_gpu *g);
/* 1 when host is page-locked memory (registered or cudaHostAlloc'ed); clears any error */
int zkg_is_pinned(const void *host);

/* CLOCK_MONOTONIC in seconds (the key_load stamps above) */
static inline double zkg_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void zkg_msm_scratch_free(struct zkg_msm_scratch *m);

/* The copies of a point set (its own included) that g's table budget allows: 1 when tables
 * are off or the budget is below one copy, 1 << 20 (every window) when it is unlimited. */
static inline int zkg_table_copies(const zka_gpu *g)
{
	if (g->no_precomp || !(g->table_budget >= 0))
		return 1;
	if (g->table_budget >= 1048575.0)
		return 1 << 20;
	return 1 + (int)(g->table_budget + 1e-9);
}
/* g's budget as zka_gpu_table_budget_parse reads it ("max", "1x", "2.5x") */
void zkg_budget_str(const zka_gpu *g, char *buf, size_t len);

/* Per-curve implementations (engine.cuh instantiated in bn254.cu and bls12_381.cu): what
 * production proving calls (zka_gpu.cu) */
struct zkg_ops {
	int (*key_load)(zka_gpu *g, const zka_pk *pk, zka_gpu_key *k, char *err, size_t errlen);
	/* the window tables' build of a BUILDING key on k->s_bg, throttled (the build thread) */
	int (*tables_build)(zka_gpu_key *k, struct zkg_throttle *thr, char *err, size_t errlen);
	/* c NULL: made on the device from a and b, which are in standard form when ab_std */
	int (*prove)(zka_gpu *g, zka_gpu_key *k, const uint64_t (*a)[4], const uint64_t (*b)[4],
		     const uint64_t (*c)[4], int ab_std, const uint64_t (*w)[4], const zka_rs *rs,
		     zka_proof *proof, char *err, size_t errlen);
	int (*fixed_base)(zka_gpu *g, int g2, const void *base, const uint64_t (*k)[4], size_t n,
			  void *out, char *err, size_t errlen);
	/* zka_gpu_check_points */
	int (*check_points)(zka_gpu *g, int g2, const void *pts, size_t n, uint64_t *bad,
			    int *code, char *err, size_t errlen);
};
extern const struct zkg_ops zkg_ops_bn254, zkg_ops_bls12_381;
/* and the entries of tests and benchmarks (drv_test.cuh, zka_gpu_test.cu) */
struct zkg_test_ops {
	int (*msm)(zka_gpu *g, int g2, const void *points, const uint64_t (*k)[4], size_t n,
		   void *out, double *dev_s, char *err, size_t errlen);
	int (*ntt)(zka_gpu *g, uint32_t logn, uint64_t (*x)[4], int inverse, double *dev_s,
		   char *err, size_t errlen);
	int (*hpoly)(zka_gpu *g, uint32_t logn, uint32_t h_kind, uint32_t root,
		     const uint64_t (*a)[4], const uint64_t (*b)[4], const uint64_t (*c)[4],
		     uint64_t (*h)[4], char *err, size_t errlen);
	int (*field_op)(zka_gpu *g, int field, int op, const void *a, const void *b, void *out,
			size_t n, char *err, size_t errlen);
	int (*acc_arith)(zka_gpu *g, int method, int J, const void *pts, size_t npts,
			 const uint32_t *idx, size_t lanes, uint32_t steps, void *out,
			 double *dev_s, char *err, size_t errlen);
};
extern const struct zkg_test_ops zkg_test_ops_bn254, zkg_test_ops_bls12_381;
