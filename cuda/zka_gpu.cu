/* zka_gpu.cu - the public API: contexts, keys, registration and dispatch to the curve engines. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/internal.cuh"

void zkg_errf(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static const struct zkg_ops *ops_of(const zka_curve *c)
{
	if (!c)
		return NULL;
	return c->id == ZKA_BN254 ? &zkg_ops_bn254 : c->id == ZKA_BLS12_381 ? &zkg_ops_bls12_381 : NULL;
}

#define NEED_OPS(c, fn)                                                                                \
	const struct zkg_ops *o = ops_of(c);                                                           \
	if (!o) {                                                                                      \
		zkg_errf(err, errlen, "%s: unsupported curve", fn);                                    \
		return -EINVAL;                                                                        \
	}
#define SET_DEV(g) CK(cudaSetDevice((g)->device))

extern "C" int zka_gpu_device_count(void)
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	return n;
}

extern "C" const char *zka_gpu_device_name(const zka_gpu *g) { return g->name; }

static int open_inner(zka_gpu *g, int device, char *err, size_t errlen)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n == 0) {
		cudaGetLastError();
		zkg_errf(err, errlen, "no CUDA device");
		return -ENODEV;
	}
	if (device < 0 || device >= n) {
		zkg_errf(err, errlen, "zka_gpu_open: device %d out of range (%d devices)", device, n);
		return -ENODEV;
	}
	g->device = device;
	CK(cudaSetDevice(device));
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, device));
	g->sms = p.multiProcessorCount;
	snprintf(g->name, sizeof g->name, "%.200s, %d SMs, %.0f GiB, cc %d.%d", p.name, p.multiProcessorCount,
		 p.totalGlobalMem / 1073741824.0, p.major, p.minor);
	/* the out-of-line point operations pass Fq2 Jacobian points on the stack */
	CK(cudaDeviceSetLimit(cudaLimitStackSize, 8192));
	CK(cudaStreamCreateWithFlags(&g->s, cudaStreamNonBlocking));
	/* see zka_gpu_prove: the stream a large proof's critical chain runs on */
	int prio_least = 0, prio_greatest = 0;
	CK(cudaDeviceGetStreamPriorityRange(&prio_least, &prio_greatest));
	CK(cudaStreamCreateWithPriority(&g->s_hi, cudaStreamNonBlocking, prio_greatest));
	g->prio_domain = ZKA_GPU_PRIO_DOMAIN;
	zka_gpu_set_split01(g, -1);
	/* once per context: MSM results come back to pinned memory, so that their copies do not
	 * block the host thread (which works on the proof's host share meanwhile) */
	CK(cudaHostAlloc(&g->h_slots, 5 * ZKG_WSLOT, cudaHostAllocDefault));
	for (int i = 0; i < 16; i++)
		CK(cudaEventCreate(&g->ev[i]));
	for (int i = 0; i < 4; i++)
		CK(cudaStreamCreateWithFlags(&g->ls[i], cudaStreamNonBlocking));
	for (int i = 0; i < 8; i++)
		CK(cudaEventCreate(&g->lev[i]));
	return 0;
}

extern "C" int zka_gpu_open(zka_gpu **gp, int device, char *err, size_t errlen)
{
	*gp = NULL;
	zka_gpu *g = (zka_gpu *)calloc(1, sizeof *g);
	if (!g) {
		zkg_errf(err, errlen, "zka_gpu_open: out of memory");
		return -ENOMEM;
	}
	int rc = open_inner(g, device, err, errlen);
	if (rc < 0) {
		zka_gpu_close(g);
		return rc;
	}
	*gp = g;
	return 0;
}

extern "C" void zka_gpu_close(zka_gpu *g)
{
	if (!g)
		return;
	cudaSetDevice(g->device);
	void *bufs[] = {g->d_a, g->d_b, g->d_c, g->d_w, g->d_h};
	for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
		cudaFree(bufs[i]);
	for (int i = 0; i < 5; i++)
		zkg_msm_scratch_free(&g->ms[i]);
	if (g->h_slots)
		cudaFreeHost(g->h_slots);
	for (int i = 0; i < 8; i++)
		if (g->lev[i])
			cudaEventDestroy(g->lev[i]);
	for (int i = 0; i < 4; i++)
		if (g->ls[i])
			cudaStreamDestroy(g->ls[i]);
	for (int i = 0; i < g->nreg; i++)
		cudaHostUnregister(g->reg[i].p);
	for (int i = 0; i < 16; i++)
		if (g->ev[i])
			cudaEventDestroy(g->ev[i]);
	if (g->s)
		cudaStreamDestroy(g->s);
	if (g->s_hi)
		cudaStreamDestroy(g->s_hi);
	free(g);
}

extern "C" int zka_gpu_register(zka_gpu *g, void *host, size_t bytes, char *err, size_t errlen)
{
	SET_DEV(g);
	const size_t chunk = (size_t)64 << 30;
	for (size_t off = 0; off < bytes; off += chunk) {
		size_t m = bytes - off < chunk ? bytes - off : chunk;
		if (g->nreg >= 64) {
			zkg_errf(err, errlen, "zka_gpu_register: too many registered ranges (64)");
			return -ENOSPC;
		}
		CK(cudaHostRegister((char *)host + off, m, cudaHostRegisterDefault));
		g->reg[g->nreg].p = (char *)host + off;
		g->reg[g->nreg].n = m;
		g->nreg++;
	}
	return 0;
}

/* A read-only pin: its chunks (<= 64 GiB each) */
#define PIN_CHUNK ((size_t)64 << 30)
struct zka_gpu_pin {
	int device, n;
	void *p[]; /* n chunk starts */
};

extern "C" int zka_gpu_pin_readonly(zka_gpu *g, const void *host, size_t bytes, zka_gpu_pin **pinp,
				    char *err, size_t errlen)
{
	*pinp = NULL;
	SET_DEV(g);
	int ro = 0;
	CK(cudaDeviceGetAttribute(&ro, cudaDevAttrHostRegisterReadOnlySupported, g->device));
	if (!ro) {
		zkg_errf(err, errlen,
			 "device %d cannot register read-only memory "
			 "(cudaDevAttrHostRegisterReadOnlySupported = 0)",
			 g->device);
		return -ENOTSUP;
	}
	int n = (int)((bytes + PIN_CHUNK - 1) / PIN_CHUNK);
	zka_gpu_pin *pin = (zka_gpu_pin *)calloc(1, sizeof *pin + (size_t)n * sizeof pin->p[0]);
	if (!pin) {
		zkg_errf(err, errlen, "zka_gpu_pin_readonly: out of memory");
		return -ENOMEM;
	}
	pin->device = g->device;
	for (size_t off = 0; off < bytes; off += PIN_CHUNK) {
		size_t m = bytes - off < PIN_CHUNK ? bytes - off : PIN_CHUNK;
		void *p = (char *)host + off;
		cudaError_t e = cudaHostRegister(p, m, cudaHostRegisterReadOnly);
		if (e != cudaSuccess) {
			/* leave no error behind for a later call to report */
			(void)cudaGetLastError();
			zkg_errf(err, errlen,
				 "cudaHostRegister(%zu bytes at offset %zu, "
				 "cudaHostRegisterReadOnly): %s",
				 m, off, cudaGetErrorString(e));
			zka_gpu_unpin(pin);
			return e == cudaErrorMemoryAllocation ? -ENOMEM : -EIO;
		}
		pin->p[pin->n++] = p;
	}
	*pinp = pin;
	return 0;
}

extern "C" void zka_gpu_unpin(zka_gpu_pin *pin)
{
	if (!pin)
		return;
	cudaSetDevice(pin->device);
	for (int i = 0; i < pin->n; i++)
		cudaHostUnregister(pin->p[i]);
	(void)cudaGetLastError();
	free(pin);
}

extern "C" int zka_gpu_mem_info(zka_gpu *g, size_t *free_b, size_t *total_b, char *err,
				size_t errlen)
{
	*free_b = *total_b = 0;
	SET_DEV(g);
	CK(cudaMemGetInfo(free_b, total_b));
	return 0;
}

void zkg_msm_scratch_free(struct zkg_msm_scratch *m)
{
	cudaFree(m->d_vals);
	cudaFree(m->d_slots);
	cudaFree(m->d_low);
	cudaFree(m->d_ccnt);
	cudaFree(m->d_counts);
	cudaFree(m->d_buckets);
	cudaFree(m->d_segs);
	cudaFree(m->d_wsum);
	cudaFree(m->d_ones_part);
	cudaFree(m->d_task);
	cudaFree(m->d_partials);
	cudaFree(m->d_cks);
	cudaFree(m->d_cidx);
	cudaFree(m->d_ones_idx);
	cudaFree(m->d_cnt);
	memset(m, 0, sizeof *m);
}

/* the 0/1 split's threshold (zka_gpu.h): ZKG_SPLIT01 in the environment, else the default */
static double split01_default(void)
{
	const char *e = getenv("ZKG_SPLIT01");
	char *end = NULL;
	double v = e ? strtod(e, &end) : 0;
	return e && end != e ? v : ZKA_GPU_SPLIT01;
}

extern "C" void zka_gpu_set_split01(zka_gpu *g, double min_frac)
{
	g->split01 = min_frac < 0 ? split01_default() : min_frac;
}

extern "C" void zka_gpu_key_free(zka_gpu_key *k)
{
	if (!k)
		return;
	cudaSetDevice(k->g->device);
	void *bufs[] = {k->d_A, k->d_B1, k->d_B2, k->d_C, k->d_H, k->d_tw, k->d_itw, k->d_cs};
	for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
		cudaFree(bufs[i]);
	free(k);
}

extern "C" const char *zka_gpu_key_mode(const zka_gpu_key *k) { return k->mode; }

extern "C" void zka_gpu_key_timing(const zka_gpu_key *k, zka_gpu_key_times *t)
{
	memset(t, 0, sizeof *t);
	t->bytes = k->up_bytes;
	t->pinned = k->pinned;
	t->total = k->t_load;
	if (k->t_copy > 0 && k->t_uploaded >= k->t_copy) {
		t->split = 1;
		t->upload = k->t_uploaded - k->t_copy;
		t->tables = k->pc && k->t_tables >= k->t_uploaded ? k->t_tables - k->t_uploaded : 0;
	}
}

/* 1 when host is page-locked memory (registered or cudaHostAlloc'ed); clears any error */
static int is_pinned(const void *host)
{
	cudaPointerAttributes a;
	if (!host || cudaPointerGetAttributes(&a, host) != cudaSuccess) {
		(void)cudaGetLastError();
		return 0;
	}
	return a.type == cudaMemoryTypeHost;
}

extern "C" void zka_gpu_set_precompute(zka_gpu *g, int on) { g->no_precomp = !on; }

extern "C" void zka_gpu_set_priority_domain(zka_gpu *g, uint32_t min_domain) { g->prio_domain = min_domain; }

extern "C" int zka_gpu_key_load(zka_gpu *g, const zka_pk *pk, zka_gpu_key **kp, char *err, size_t errlen)
{
	*kp = NULL;
	NEED_OPS(pk->curve, "zka_gpu_key_load");
	SET_DEV(g);
	zka_gpu_key *k = (zka_gpu_key *)calloc(1, sizeof *k);
	if (!k) {
		zkg_errf(err, errlen, "zka_gpu_key_load: out of memory");
		return -ENOMEM;
	}
	k->g = g;
	k->pk_host = pk;
	k->n_vars = pk->n_vars;
	k->n_public = pk->n_public;
	k->domain = pk->domain_size;
	k->logn = pk->log_domain;
	size_t n1 = zka_g1_bytes(pk->curve), n2 = zka_g2_bytes(pk->curve);
	memcpy(k->alpha1, pk->alpha1, n1);
	memcpy(k->beta1, pk->beta1, n1);
	memcpy(k->delta1, pk->delta1, n1);
	memcpy(k->beta2, pk->beta2, n2);
	memcpy(k->delta2, pk->delta2, n2);
	memcpy(k->gamma2, pk->gamma2, n2);
	memset(&k->pk, 0, sizeof k->pk);
	k->pk.curve = pk->curve;
	k->pk.n_vars = pk->n_vars;
	k->pk.n_public = pk->n_public;
	k->pk.domain_size = pk->domain_size;
	k->pk.log_domain = pk->log_domain;
	k->pk.alpha1 = k->alpha1;
	k->pk.beta1 = k->beta1;
	k->pk.delta1 = k->delta1;
	k->pk.beta2 = k->beta2;
	k->pk.delta2 = k->delta2;
	k->pk.gamma2 = k->gamma2;
	size_t pre = (size_t)pk->n_public + 1;
	/* C's first n_public + 1 points are zeroed on the device, not copied */
	k->up_bytes = (uint64_t)pk->n_vars * (3 * n1 + n2) + (uint64_t)pk->domain_size * n1 -
		      (pk->n_vars > pre ? pre : pk->n_vars) * n1;
	k->pinned = is_pinned(pk->A) && is_pinned(pk->B1) && is_pinned(pk->B2) && is_pinned(pk->C) &&
		    is_pinned(pk->H);
	double t0 = zkg_now();
	int rc = o->key_load(g, pk, k, err, errlen);
	if (rc < 0) {
		zka_gpu_key_free(k);
		return rc;
	}
	k->t_load = zkg_now() - t0;
	*kp = k;
	return 0;
}

extern "C" int zka_gpu_prove(zka_gpu *g, zka_gpu_key *key, const uint64_t (*a)[4], const uint64_t (*b)[4],
			     const uint64_t (*c)[4], const uint64_t (*w)[4], const zka_rs *rs, zka_proof *proof,
			     zka_prove_times *t, char *err, size_t errlen)
{
	NEED_OPS(key->pk.curve, "zka_gpu_prove");
	SET_DEV(g);
	/* From 2^20 on, the context's stream (a, b, c -> NTT -> H digits -> H MSM) is a proof's
	 * critical chain: it runs at the highest stream priority and the four lanes (A, B1, C,
	 * B2), ready from the start, fill the SMs around it. Below, the G2 lane is the longest and
	 * the priority delays it. H200, bench gpu, two runs each of the old and new binaries in one
	 * call (2026-12-01): priority at every size: BLS12-381 2^16 6.05 / 6.04 -> 7.39 / 7.48 ms,
	 * 2^18 17.31 / 17.16 -> 17.70 / 17.75; from 2^20 only (this code): BLS12-381 2^20 60.58 /
	 * 60.52 -> 59.52 / 59.51 ms, 2^21 110.36 / 110.37 -> 109.65 / 109.61, BN254 2^21 55.18 /
	 * 55.17 -> 54.60 / 54.84, 2^16-2^19 and BN254 2^20 unchanged. */
	cudaStream_t keep = g->s;
	if (key->domain >= g->prio_domain)
		g->s = g->s_hi;
	int rc = o->prove(g, key, a, b, c, w, rs, proof, err, errlen);
	if (g->s != keep) {
		/* a failed proof may leave work queued on s_hi: finish it before later calls use s */
		if (rc < 0)
			(void)cudaStreamSynchronize(g->s); /* its error, if any, is the one rc reports */
		g->s = keep;
	}
	if (rc < 0)
		return rc;
	if (t) {
		t->abc = 0;
		t->ntt = g->last.h2d + g->last.ntt;
		t->msm_g1 = g->last.msm_g1;
		t->msm_g2 = g->last.msm_g2;
		t->total = g->last.total;
	}
	return 0;
}

extern "C" void zka_gpu_last_times(const zka_gpu *g, zka_gpu_times *t) { *t = g->last; }

extern "C" int zka_gpu_fixed_base_g1(zka_gpu *g, const zka_curve *c, const void *base, const uint64_t (*k)[4],
				     size_t n, void *out, char *err, size_t errlen)
{
	NEED_OPS(c, "zka_gpu_fixed_base_g1");
	SET_DEV(g);
	return o->fixed_base(g, 0, base, k, n, out, err, errlen);
}

extern "C" int zka_gpu_fixed_base_g2(zka_gpu *g, const zka_curve *c, const void *base, const uint64_t (*k)[4],
				     size_t n, void *out, char *err, size_t errlen)
{
	NEED_OPS(c, "zka_gpu_fixed_base_g2");
	SET_DEV(g);
	return o->fixed_base(g, 1, base, k, n, out, err, errlen);
}

extern "C" int zka_gpu_msm_g1(zka_gpu *g, const zka_curve *c, const void *points, const uint64_t (*k)[4],
			      size_t n, void *out, double *dev_s, char *err, size_t errlen)
{
	NEED_OPS(c, "zka_gpu_msm_g1");
	SET_DEV(g);
	return o->msm(g, 0, points, k, n, out, dev_s, err, errlen);
}

extern "C" int zka_gpu_msm_g2(zka_gpu *g, const zka_curve *c, const void *points, const uint64_t (*k)[4],
			      size_t n, void *out, double *dev_s, char *err, size_t errlen)
{
	NEED_OPS(c, "zka_gpu_msm_g2");
	SET_DEV(g);
	return o->msm(g, 1, points, k, n, out, dev_s, err, errlen);
}

extern "C" int zka_gpu_ntt(zka_gpu *g, const zka_curve *c, uint32_t logn, uint64_t (*x)[4], int inverse,
			   double *dev_s, char *err, size_t errlen)
{
	NEED_OPS(c, "zka_gpu_ntt");
	SET_DEV(g);
	return o->ntt(g, logn, x, inverse, dev_s, err, errlen);
}

extern "C" int zka_gpu_h(zka_gpu *g, const zka_curve *c, uint32_t logn, const uint64_t (*a)[4],
			 const uint64_t (*b)[4], const uint64_t (*cc)[4], uint64_t (*h)[4], char *err, size_t errlen)
{
	NEED_OPS(c, "zka_gpu_h");
	SET_DEV(g);
	return o->hpoly(g, logn, a, b, cc, h, err, errlen);
}

extern "C" int zka_gpu_field_op(zka_gpu *g, const zka_curve *c, int field, int op, const void *a,
				const void *b, void *out, size_t n, char *err, size_t errlen)
{
	NEED_OPS(c, "zka_gpu_field_op");
	SET_DEV(g);
	return o->field_op(g, field, op, a, b, out, n, err, errlen);
}

extern "C" int zka_gpu_h2d_bw(zka_gpu *g, const void *host, size_t bytes, double *gbps, char *err, size_t errlen)
{
	SET_DEV(g);
	void *d = NULL;
	CK(cudaMalloc(&d, bytes));
	cudaError_t e = cudaMemcpyAsync(d, host, bytes, cudaMemcpyHostToDevice, g->s); /* warm-up */
	float best = 1e30f;
	for (int i = 0; i < 3 && e == cudaSuccess; i++) {
		float ms = 0;
		if ((e = cudaEventRecord(g->ev[0], g->s)) || (e = cudaMemcpyAsync(d, host, bytes, cudaMemcpyHostToDevice, g->s)) ||
		    (e = cudaEventRecord(g->ev[1], g->s)) || (e = cudaEventSynchronize(g->ev[1])) ||
		    (e = cudaEventElapsedTime(&ms, g->ev[0], g->ev[1])))
			break;
		if (ms < best)
			best = ms;
	}
	cudaFree(d);
	CK(e);
	*gbps = bytes / (best * 1e-3) / 1e9;
	return 0;
}

/* zka_fixed_base_ops adapters: the message goes to stderr (that interface has no err buffer) */
static int fb_logged(void *ctx, int g2, const zka_curve *c, const void *base, const uint64_t (*k)[4], size_t n,
		     void *out)
{
	char err[256];
	zka_gpu *g = (zka_gpu *)ctx;
	int rc = g2 ? zka_gpu_fixed_base_g2(g, c, base, k, n, out, err, sizeof err)
		    : zka_gpu_fixed_base_g1(g, c, base, k, n, out, err, sizeof err);
	if (rc)
		fprintf(stderr, "zka_gpu_fixed_base_g%d: %s\n", g2 + 1, err);
	return rc;
}

extern "C" int zka_gpu_fb_g1(void *ctx, const zka_curve *c, const void *base, const uint64_t (*k)[4], size_t n,
			     void *out)
{
	return fb_logged(ctx, 0, c, base, k, n, out);
}

extern "C" int zka_gpu_fb_g2(void *ctx, const zka_curve *c, const void *base, const uint64_t (*k)[4], size_t n,
			     void *out)
{
	return fb_logged(ctx, 1, c, base, k, n, out);
}
