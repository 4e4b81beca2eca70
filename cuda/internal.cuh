/* internal.cuh - the context and key structures shared by the CUDA translation units. */
#pragma once
#include <cuda_runtime.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "cuda/zka_gpu.h"

void zkg_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Every CUDA call goes through CK (returns -EIO from the enclosing function with file:line and
 * the runtime's message); every launch is followed by CKL. */
#define CK(call)                                                                                       \
	do {                                                                                           \
		cudaError_t e_ = (call);                                                               \
		if (e_ != cudaSuccess) {                                                               \
			zkg_errf(err, errlen, "%s:%d: %s: %s", __FILE__, __LINE__, #call,              \
				 cudaGetErrorString(e_));                                              \
			return e_ == cudaErrorMemoryAllocation ? -ENOMEM : -EIO;                       \
		}                                                                                      \
	} while (0)
#define CKL() CK(cudaGetLastError())
#define CKR(expr)                                                                                      \
	do {                                                                                           \
		int r_ = (expr);                                                                       \
		if (r_ < 0)                                                                            \
			return r_;                                                                     \
	} while (0)

struct zkg_reg {
	void *p;
	size_t n;
};

struct zka_gpu {
	int device;
	int sms;
	char name[320];
	cudaStream_t s;
	cudaEvent_t ev[16];
	struct zkg_reg reg[64];
	int nreg;
	zka_gpu_times last;
};

/* Reusable device scratch of an MSM (grown on demand). */
struct zkg_msm_scratch {
	size_t vals_cap, counts_cap, bucket_bytes, seg_bytes, cub_bytes, task_bytes, partial_bytes, tmax;
	uint32_t *d_task;  /* ntask, task_off (nb+1 each), nbig, big (nb), task_bucket (tmax) */
	void *d_partials;
	int tasks_ready;
	uint32_t *d_vals, *d_counts, *d_offsets, *d_cursor;
	void *d_cub, *d_buckets, *d_segs, *d_wsum, *d_ones_part, *d_ones;
	/* the prepared scalar set */
	int c, W;
	uint32_t M;
	size_t n;
	const void *d_scalars;
};

struct zka_gpu_key {
	zka_gpu *g;
	const zka_pk *pk_host; /* not owned: alpha1 etc. are copied below */
	zka_pk pk;             /* shallow copy with alpha1.. pointing into pts below */
	uint8_t alpha1[96], beta1[96], delta1[96], beta2[192], delta2[192], gamma2[192];
	uint32_t n_vars, n_public, domain, logn;
	void *d_A, *d_B1, *d_B2, *d_C, *d_H; /* d_C: n_vars points, the first n_public+1 infinity */
	void *d_tw, *d_itw, *d_cs;
	void *d_a, *d_b, *d_c, *d_w, *d_h;
	struct zkg_msm_scratch ms;
};

void zkg_msm_scratch_free(struct zkg_msm_scratch *m);

/* Per-curve implementations (engine.cuh instantiated in bn254.cu and bls12_381.cu). */
struct zkg_ops {
	int (*key_load)(zka_gpu *g, const zka_pk *pk, zka_gpu_key *k, char *err, size_t errlen);
	int (*prove)(zka_gpu *g, zka_gpu_key *k, const uint64_t (*a)[4], const uint64_t (*b)[4],
		     const uint64_t (*c)[4], const uint64_t (*w)[4], const zka_rs *rs, zka_proof *proof,
		     char *err, size_t errlen);
	int (*msm)(zka_gpu *g, int g2, const void *points, const uint64_t (*k)[4], size_t n, void *out,
		   double *dev_s, char *err, size_t errlen);
	int (*ntt)(zka_gpu *g, uint32_t logn, uint64_t (*x)[4], int inverse, double *dev_s, char *err,
		   size_t errlen);
	int (*hpoly)(zka_gpu *g, uint32_t logn, const uint64_t (*a)[4], const uint64_t (*b)[4],
		     const uint64_t (*c)[4], uint64_t (*h)[4], char *err, size_t errlen);
	int (*field_op)(zka_gpu *g, int field, int op, const void *a, const void *b, void *out, size_t n,
			char *err, size_t errlen);
	int (*fixed_base)(zka_gpu *g, int g2, const void *base, const uint64_t (*k)[4], size_t n,
			  void *out, char *err, size_t errlen);
};
extern const struct zkg_ops zkg_ops_bn254, zkg_ops_bls12_381;
