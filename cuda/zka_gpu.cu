/* zka_gpu.cu - the CUDA library's production API (cuda/zka_gpu.h): device contexts, device
 * keys and their window tables' build, host registrations, and dispatch to the curve engines
 * (zkg_ops: engine.cuh instantiated in bn254.cu and bls12_381.cu). The tests' entries are in
 * zka_gpu_test.cu, the staged upload in stage.cu.
 *
 * Objects
 *   zka_gpu      a context: one device, its streams (s; s_hi for a large proof's critical
 *                chain; ls[0..3] the witness MSMs' lanes), one proof's device buffers and MSM
 *                scratch (grown on demand, kept), pinned result slots. One thread at a time.
 *   zka_gpu_key  a proving key on one device: five point sets (A, B1, B2, C, H; W copies each
 *                with window tables; sets left in host memory when streamed), the NTT tables.
 *                Read only while proving: any context of its device may prove with it at once.
 *   zka_gpu_pin  host ranges registered for the whole process (cudaHostRegister, pieces cut at
 *                every 64 GiB of the address space: ZKG_KEY_PIECE), independent of contexts.
 *   stager       zka_gpu_set_upload_staging: pinned buffers and threads that copy pageable key
 *                memory (stage.cu).
 *
 * State word: a key's tstate (ZKG_T_*, internal.cuh), read and written with __atomic builtins
 * since lanes poll it while proving. Only keys with window tables (pc) have one.
 *
 *   from      to        by                        when
 *   (load)    READY     key_load (drv_key.cuh)    ZKA_GPU_TABLES_SYNC: built before it returns
 *   (load)    HELD      key_load (drv_key.cuh)    _BACKGROUND, _DEFERRED: copy 0 only
 *   HELD      BUILDING  zka_gpu_key_tables_start  build_main's thread made (_BACKGROUND: at
 *                                                 once, in key_load_any)
 *   BUILDING  -1        zkg_key_tables_live       ev_t1 complete: one poller wins, stamps
 *                                                 t_build (zka_gpu_key_tables, _wait, proofs)
 *   -1        READY     zkg_key_tables_live       the same poller publishes
 *   any       (freed)   zka_gpu_key_free          stop set, the build thread joined first
 *
 * Invariants
 *   I1. Every CUDA call goes through CK (file:line, the runtime's message, -EIO or -ENOMEM) and
 *       every launch is followed by CKL; a function that fails leaves its outputs for the
 *       caller's free (zka_gpu_close, zka_gpu_key_free), which accepts partial objects.
 *   I2. Until READY a proof runs the windowed MSM over copy 0, which the build only reads:
 *       results are the same bytes either way; READY is never left.
 *   I3. The build enqueues at most two launches ahead (zkg_throttle), so a proof queued behind
 *       it waits for at most ~2 ms of build work.
 *   I4. A copy from host memory never spans two registrations (the driver refuses it): key
 *       uploads end their pieces at every ZKG_KEY_PIECE boundary, as pins cut theirs.
 *   I5. The device's flags (zka_gpu_set_host_wait) are set before the first context exists;
 *       each context's stack limit and priorities are set at zka_gpu_open.
 *   I6. zka_gpu_device_desc names the kernel image the driver chose from the fat binary (SASS
 *       of a built architecture, or PTX JIT-compiled for a newer device) from one kernel of this
 *       unit, built for the same CMAKE_CUDA_ARCHITECTURES as the engines. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/zka_budget.h"
#include "cuda/internal.cuh"
#include "cuda/zka_gpu_test.h" /* the knobs and defaults implemented here */
#include "cuda/zkg_archs.h" /* ZKG_ARCHS: the build's CMAKE_CUDA_ARCHITECTURES (cuda/CMakeLists.txt) */
#include "zk/abc.h"

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
	return c->id == ZKA_BN254	? &zkg_ops_bn254
	       : c->id == ZKA_BLS12_381 ? &zkg_ops_bls12_381
					: NULL;
}

#define NEED_OPS(c, fn)                                                                            \
	const struct zkg_ops *o = ops_of(c);                                                       \
	if (!o) {                                                                                  \
		zkg_errf(err, errlen, "%s: unsupported curve", fn);                                \
		return -EINVAL;                                                                    \
	}
#define SET_DEV(g) CK(cudaSetDevice((g)->device))

extern "C" const char *zka_gpu_device_name(const zka_gpu *g)
{
	return g->name;
}

/* A kernel of this translation unit, built for the same CMAKE_CUDA_ARCHITECTURES as the
 * engines: cudaFuncGetAttributes on it says which of the fat binary's images the driver chose
 * for the device (zka_gpu_device_desc). Never launched. */
__global__ void zkg_k_image(void)
{
}

/* 1 when the build embedded SASS for sm_v (ZKG_ARCHS: "80-real 86-real ... 121", an entry
 * without -virtual carries SASS), 0 when not, -1 when the list names no number (native, all) */
static int built_sass(int v)
{
	const char *s = ZKG_ARCHS;
	int any = 0;
	while (*s) {
		char *end = NULL;
		long a = strtol(s, &end, 10);
		if (end == s) { /* a word: native, all, all-major */
			s += strcspn(s, " ");
			s += strspn(s, " ");
			continue;
		}
		any = 1;
		int sass = strncmp(end, "-virtual", 8) != 0;
		if (a == v && sass)
			return 1;
		s = end + strcspn(end, " ");
		s += strspn(s, " ");
	}
	return any ? 0 : -1;
}

extern "C" int zka_gpu_device_desc(zka_gpu *g, char *buf, size_t len)
{
	char *err = buf; /* CK's message goes to buf */
	size_t errlen = len;
	if (!g->image[0]) {
		CK(cudaSetDevice(g->device));
		cudaFuncAttributes fa;
		CK(cudaFuncGetAttributes(&fa, zkg_k_image));
		int b = fa.binaryVersion, built = built_sass(b);
		if (built == 1)
			snprintf(g->image, sizeof g->image, "SASS for sm_%d", b);
		else if (built == 0)
			snprintf(g->image, sizeof g->image,
				 "PTX of compute_%d JIT-compiled for sm_%d", fa.ptxVersion, b);
		else
			snprintf(g->image, sizeof g->image, "binary for sm_%d (PTX compute_%d)", b,
				 fa.ptxVersion);
	}
	snprintf(buf, len, "%s; kernels: %s (built: %s)", g->name, g->image, ZKG_ARCHS_DESC);
	return 0;
}

static int host_wait = ZKA_GPU_WAIT_AUTO; /* zka_gpu_set_host_wait: set before the opens */

extern "C" void zka_gpu_set_host_wait(int mode)
{
	host_wait = mode == ZKA_GPU_WAIT_BLOCK ? ZKA_GPU_WAIT_BLOCK : ZKA_GPU_WAIT_AUTO;
}

static int open_inner(zka_gpu *g, int device, char *err, size_t errlen)
{
	int n = 0;
	const bool prof = getenv("ZKG_PROFILE") != NULL; /* each step's time, one line */
	double t[6];
	t[0] = zkg_now();
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n == 0) {
		cudaGetLastError();
		zkg_errf(err, errlen, "no CUDA device");
		return -ENODEV;
	}
	if (device < 0 || device >= n) {
		zkg_errf(err, errlen, "zka_gpu_open: device %d out of range (%d devices)", device,
			 n);
		return -ENODEV;
	}
	g->device = device;
	t[1] = zkg_now();
	CK(cudaSetDevice(device));
	/* before anything creates the device's primary context: it takes the flags then */
	CK(cudaSetDeviceFlags(host_wait == ZKA_GPU_WAIT_BLOCK ? cudaDeviceScheduleBlockingSync
							      : cudaDeviceScheduleAuto));
	t[2] = zkg_now();
	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, device));
	t[3] = zkg_now();
	g->sms = p.multiProcessorCount;
	snprintf(g->name, sizeof g->name, "%.200s, %d SMs, %.0f GiB, cc %d.%d", p.name,
		 p.multiProcessorCount, p.totalGlobalMem / 1073741824.0, p.major, p.minor);
	/* the out-of-line point operations pass Fq2 Jacobian points on the stack. Its cost: 0.4
	 * ms here and nothing at exit (H200, 2026-12-03, docs/measurements/src/ctxbench.cu); of
	 * a one-shot proof's ~0.2 s CUDA start, ~0.1 s is the driver's init (the device count)
	 * and ~0.1 s the primary context */
	CK(cudaDeviceSetLimit(cudaLimitStackSize, 8192));
	t[4] = zkg_now();
	/* Priorities: the least is left to the window tables' background build
	 * (zka_gpu_set_tables_build), one above it for the context's stream and lanes where the
	 * device has three levels or more (an H200 has six: 0 to -5), and the greatest for a large
	 * proof's critical chain (s_hi, see zka_gpu_prove). */
	int prio_least = 0, prio_greatest = 0;
	CK(cudaDeviceGetStreamPriorityRange(&prio_least, &prio_greatest));
	int prio_mid = prio_greatest < prio_least - 1 ? prio_least - 1 : prio_least;
	g->prio_least = prio_least;
	CK(cudaStreamCreateWithPriority(&g->s, cudaStreamNonBlocking, prio_mid));
	CK(cudaStreamCreateWithPriority(&g->s_hi, cudaStreamNonBlocking, prio_greatest));
	g->prio_domain = ZKA_GPU_PRIO_DOMAIN;
	zka_gpu_set_split01(g, -1);
	zka_gpu_set_table_budget(g, -1);
	g->in_flight = 2;
	{ /* ZKG_STREAM_CHUNK: forced streaming (zka_gpu_set_stream_chunk) */
		const char *e = getenv("ZKG_STREAM_CHUNK");
		char *end = NULL;
		unsigned long long v = e ? strtoull(e, &end, 10) : 0;
		g->stream_chunk = e && end != e && !*end ? (size_t)v : 0;
		static int said; /* once per process, loudly: not forced */
		if (e && *e && (end == e || *end) &&
		    !__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
			fprintf(stderr,
				"zka_gpu: ZKG_STREAM_CHUNK='%s' is not a number of points; keys "
				"stream only when they do not fit\n",
				e);
	}
	/* once per context: MSM results come back to pinned memory, so that their copies do not
	 * block the host thread (which works on the proof's host share meanwhile) */
	CK(cudaHostAlloc(&g->h_slots, 5 * ZKG_WSLOT, cudaHostAllocDefault));
	for (int i = 0; i < 16; i++)
		CK(cudaEventCreate(&g->ev[i]));
	for (int i = 0; i < 4; i++)
		CK(cudaStreamCreateWithPriority(&g->ls[i], cudaStreamNonBlocking, prio_mid));
	for (int i = 0; i < 8; i++)
		CK(cudaEventCreate(&g->lev[i]));
	t[5] = zkg_now();
	if (prof)
		fprintf(
		    stderr,
		    "zkg open: device count %.1f ms, context %.1f ms, properties %.1f ms, stack "
		    "limit %.1f ms, streams and buffers %.1f ms\n",
		    (t[1] - t[0]) * 1e3, (t[2] - t[1]) * 1e3, (t[3] - t[2]) * 1e3,
		    (t[4] - t[3]) * 1e3, (t[5] - t[4]) * 1e3);
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
	zkg_stager_free(g);
	void *bufs[] = {g->d_a, g->d_b, g->d_c, g->d_w, g->d_h, g->d_stage[0], g->d_stage[1]};
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

/* A pin: its registered pieces (page-rounded, merged where they share a page, <= 64 GiB) */
#define PIN_CHUNK ZKG_KEY_PIECE /* the driver's most per registration */
#define PIN_THREADS                                                                                \
	8 /* more threads pinned no faster (H200 box, 1.6 GB of shm: 1 thread 0.08-                \
	     0.12 s, 2 0.075, 4 0.054-0.061, 8 0.058-0.063; 2026-12-02) */
struct zkg_piece {
	char *p;
	size_t len;
	cudaError_t e; /* its cudaHostRegister's result */
};
struct zka_gpu_pin {
	int device, n;
	struct zkg_piece pc[];
};

struct pin_work {
	zka_gpu_pin *pin;
	unsigned flags;
	int next; /* the next piece to take (__atomic) */
};

/* A pinning thread: takes pieces until none is left (each cudaHostRegister locks its pages;
 * the kernel's work for them runs in parallel across threads). */
static void *pin_main(void *arg)
{
	struct pin_work *w = (struct pin_work *)arg;
	if (cudaSetDevice(w->pin->device) != cudaSuccess) {
		(void)cudaGetLastError();
		return NULL; /* the pieces it would have taken stay for the others */
	}
	for (;;) {
		int k = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED);
		if (k >= w->pin->n)
			return NULL;
		struct zkg_piece *q = &w->pin->pc[k];
		q->e = cudaHostRegister(q->p, q->len, w->flags);
		if (q->e != cudaSuccess)
			(void)cudaGetLastError();
	}
}

static int cmp_piece(const void *a, const void *b)
{
	const char *x = ((const struct zkg_piece *)a)->p, *y = ((const struct zkg_piece *)b)->p;
	return x < y ? -1 : x > y;
}

static int pin_ranges(zka_gpu *g, const void *const *ptrs, const size_t *lens, int n, int readonly,
		      size_t cut, zka_gpu_pin **pinp, char *err, size_t errlen);

extern "C" int zka_gpu_pin_ranges(zka_gpu *g, const void *const *ptrs, const size_t *lens, int n,
				  int readonly, zka_gpu_pin **pinp, char *err, size_t errlen)
{
	return pin_ranges(g, ptrs, lens, n, readonly, 0, pinp, err, errlen);
}

/* cut, a power of two: pieces end at every multiple of cut in the address space, where the
 * caller's copies split too (the key's: zkg_key_piece, upload in drv_key.cuh); 0: a range is cut
 * only every PIN_CHUNK from its own start (one under 64 GiB stays whole wherever it lies: the
 * slots', whose copies are not split) */
static int pin_ranges(zka_gpu *g, const void *const *ptrs, const size_t *lens, int n, int readonly,
		      size_t cut, zka_gpu_pin **pinp, char *err, size_t errlen)
{
	*pinp = NULL;
	SET_DEV(g);
	if (readonly) {
		int ro = 0;
		CK(cudaDeviceGetAttribute(&ro, cudaDevAttrHostRegisterReadOnlySupported,
					  g->device));
		if (!ro) {
			zkg_errf(err, errlen,
				 "device %d cannot register read-only memory "
				 "(cudaDevAttrHostRegisterReadOnlySupported = 0)",
				 g->device);
			return -ENOTSUP;
		}
	}
	/* the ranges rounded out to pages, sorted, merged where they share a page (a page cannot
	 * be registered twice; ranges that only touch stay apart, to be pinned in parallel), then
	 * cut into pieces of at most PIN_CHUNK */
	const uintptr_t pg = 4096;
	struct zkg_piece *r = (struct zkg_piece *)calloc(n > 0 ? n : 1, sizeof *r);
	if (!r) {
		zkg_errf(err, errlen, "zka_gpu_pin_ranges: out of memory");
		return -ENOMEM;
	}
	int m = 0;
	for (int i = 0; i < n; i++) {
		if (!lens[i])
			continue;
		uintptr_t a = (uintptr_t)ptrs[i] & ~(pg - 1);
		uintptr_t b = ((uintptr_t)ptrs[i] + lens[i] + pg - 1) & ~(pg - 1);
		r[m].p = (char *)a;
		r[m++].len = b - a;
	}
	qsort(r, m, sizeof *r, cmp_piece);
	int k = 0;
	size_t pieces = 0;
	for (int i = 0; i < m; i++) {
		if (k && r[k - 1].p + r[k - 1].len > r[i].p) {
			char *end = r[i].p + r[i].len;
			if (end > r[k - 1].p + r[k - 1].len)
				r[k - 1].len = (size_t)(end - r[k - 1].p);
		} else {
			r[k++] = r[i];
		}
	}
	size_t step = cut ? cut : PIN_CHUNK;
	for (int i = 0; i < k; i++)
		pieces += (r[i].len + step - 1) / step + 1;
	zka_gpu_pin *pin = (zka_gpu_pin *)calloc(1, sizeof *pin + pieces * sizeof pin->pc[0]);
	if (!pin) {
		free(r);
		zkg_errf(err, errlen, "zka_gpu_pin_ranges: out of memory");
		return -ENOMEM;
	}
	pin->device = g->device;
	for (int i = 0; i < k; i++)
		for (char *a = r[i].p, *end = r[i].p + r[i].len; a < end;) {
			uintptr_t nx = cut ? ((uintptr_t)a & ~(uintptr_t)(cut - 1)) + cut
					   : (uintptr_t)a + PIN_CHUNK; /* the next cut */
			char *b = (uintptr_t)end < nx ? end : (char *)nx;
			struct zkg_piece *q = &pin->pc[pin->n++];
			q->p = a;
			q->len = (size_t)(b - a);
			q->e = cudaErrorNotReady; /* not taken yet */
			a = b;
		}
	free(r);
	struct pin_work w = {
	    pin, readonly ? (unsigned)cudaHostRegisterReadOnly : (unsigned)cudaHostRegisterDefault,
	    0};
	pthread_t th[PIN_THREADS];
	int nt = 0;
	for (; nt < PIN_THREADS - 1 && nt < pin->n - 1; nt++)
		if (pthread_create(&th[nt], NULL, pin_main, &w))
			break; /* fewer threads: the calling one takes what is left */
	pin_main(&w);
	for (int i = 0; i < nt; i++)
		pthread_join(th[i], NULL);
	(void)cudaSetDevice(g->device);
	for (int i = 0; i < pin->n; i++) {
		struct zkg_piece *q = &pin->pc[i];
		if (q->e == cudaSuccess)
			continue;
		zkg_errf(err, errlen, "cudaHostRegister(%zu bytes at %p%s): %s", q->len,
			 (void *)q->p, readonly ? ", cudaHostRegisterReadOnly" : "",
			 cudaGetErrorString(q->e));
		int rc = q->e == cudaErrorMemoryAllocation ? -ENOMEM : -EIO;
		zka_gpu_unpin(pin); /* the pieces that succeeded */
		return rc;
	}
	*pinp = pin;
	return 0;
}

extern "C" int zka_gpu_pin_readonly(zka_gpu *g, const void *host, size_t bytes, zka_gpu_pin **pinp,
				    char *err, size_t errlen)
{
	return zka_gpu_pin_ranges(g, &host, &bytes, 1, 1, pinp, err, errlen);
}

extern "C" int zka_gpu_pin_key(zka_gpu *g, const zka_pk *pk, zka_gpu_pin **pinp, char *err,
			       size_t errlen)
{
	const void *p[5];
	size_t len[5];
	zka_pk_point_sets(pk, p, len);
	return zka_gpu_pin_key_sets(g, p, len, 1, pinp, err, errlen);
}

extern "C" int zka_gpu_pin_key_sets(zka_gpu *g, const void *const p[5], const size_t len[5],
				    int readonly, zka_gpu_pin **pinp, char *err, size_t errlen)
{
	return pin_ranges(g, p, len, 5, readonly, zkg_key_piece(), pinp, err, errlen);
}

size_t zkg_key_piece(void)
{
	static size_t piece; /* a benign race: every thread computes the same value */
	if (!piece) {
		const char *e = getenv("ZKG_KEY_PIECE");
		unsigned long long v = e ? strtoull(e, NULL, 0) : 0;
		piece = v >= 4096 && !(v & (v - 1)) ? (size_t)v : ZKG_KEY_PIECE;
	}
	return piece;
}

extern "C" void zka_gpu_unpin(zka_gpu_pin *pin)
{
	if (!pin)
		return;
	cudaSetDevice(pin->device);
	for (int i = 0; i < pin->n; i++)
		if (pin->pc[i].e == cudaSuccess)
			cudaHostUnregister(pin->pc[i].p);
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

extern "C" int zka_gpu_table_budget_parse(const char *s, double *times)
{
	return zka_budget_parse(s, times);
}

extern "C" void zka_gpu_set_table_budget(zka_gpu *g, double times)
{
	double v = ZKA_GPU_TABLE_BUDGET;
	const char *e = getenv("ZKG_TABLE_BUDGET");
	if (times >= 0)
		v = times;
	else if (e && zka_gpu_table_budget_parse(e, &v)) {
		static int said; /* once per process, loudly: the default is used instead */
		if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
			fprintf(stderr,
				"zka_gpu: ZKG_TABLE_BUDGET='%s' is not max, N or Nx (N >= 0); "
				"using the default %gx\n",
				e, ZKA_GPU_TABLE_BUDGET);
		v = ZKA_GPU_TABLE_BUDGET;
	}
	g->table_budget = v;
}

extern "C" double zka_gpu_table_budget(const zka_gpu *g)
{
	return g->table_budget;
}

extern "C" void zka_gpu_set_stream_chunk(zka_gpu *g, size_t points)
{
	g->stream_chunk = points;
}

extern "C" int zka_gpu_proofs_in_flight(const zka_gpu *g)
{
	return g->in_flight;
}

extern "C" void zka_gpu_set_proofs_in_flight(zka_gpu *g, int n)
{
	g->in_flight = n < 1 ? 1 : n > 64 ? 64 : n;
}

void zkg_budget_str(const zka_gpu *g, char *buf, size_t len)
{
	zka_budget_str(g->table_budget, buf, len);
}

extern "C" void zka_gpu_key_free(zka_gpu_key *k)
{
	if (!k)
		return;
	cudaSetDevice(k->g->device);
	if (k->th_started) { /* a build still running writes into the tables: stop it */
		__atomic_store_n(&k->stop, 1, __ATOMIC_RELAXED);
		pthread_join(k->th_build, NULL); /* it synchronizes s_bg before it ends */
	}
	if (k->s_bg) {
		cudaStreamSynchronize(k->s_bg);
		cudaStreamDestroy(k->s_bg);
	}
	if (k->ev_t0)
		cudaEventDestroy(k->ev_t0);
	if (k->ev_t1)
		cudaEventDestroy(k->ev_t1);
	void *bufs[] = {k->d_A,		  k->d_B1,	    k->d_B2,	     k->d_C,
			k->d_H,		  k->d_tw,	    k->d_itw,	     k->d_cs,
			k->d_ab_start[0], k->d_ab_start[1], k->d_ab_term[0], k->d_ab_term[1],
			k->d_ab_val};
	for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
		cudaFree(bufs[i]);
	free(k);
}

extern "C" const char *zka_gpu_key_mode(const zka_gpu_key *k)
{
	return k->mode;
}

extern "C" void zka_gpu_key_timing(const zka_gpu_key *k, zka_gpu_key_times *t)
{
	memset(t, 0, sizeof *t);
	t->bytes = k->up_bytes;
	t->pinned = k->pinned;
	t->staged = k->staged;
	t->total = k->t_load;
	if (k->t_copy > 0 && k->t_uploaded >= k->t_copy) {
		t->split = 1;
		t->upload = k->t_uploaded - k->t_copy;
		t->tables = k->pc && __atomic_load_n(&k->tstate, __ATOMIC_ACQUIRE) == ZKG_T_READY
				? k->t_build
				: 0;
	}
}

extern "C" int zka_gpu_key_streamed(const zka_gpu_key *k)
{
	return k->streamed && k->resident != 31;
}

int zkg_is_pinned(const void *host)
{
	cudaPointerAttributes a;
	if (!host || cudaPointerGetAttributes(&a, host) != cudaSuccess) {
		(void)cudaGetLastError();
		return 0;
	}
	return a.type == cudaMemoryTypeHost;
}

extern "C" void zka_gpu_set_precompute(zka_gpu *g, int on)
{
	g->no_precomp = !on;
}

extern "C" void zka_gpu_set_upload_gate(zka_gpu *g, zka_gpu_upload_gate gate, void *arg)
{
	g->gate = gate;
	g->gate_arg = gate ? arg : NULL;
}

extern "C" void zka_gpu_set_tables_build(zka_gpu *g, int mode)
{
	g->tables_build = mode == ZKA_GPU_TABLES_BACKGROUND || mode == ZKA_GPU_TABLES_DEFERRED
			      ? mode
			      : ZKA_GPU_TABLES_SYNC;
}

cudaError_t zkg_throttle_step(struct zkg_throttle *t, cudaStream_t st)
{
	if (t->stop && __atomic_load_n(t->stop, __ATOMIC_RELAXED))
		return cudaErrorNotPermitted; /* the key is being freed */
	cudaError_t e = cudaEventRecord(t->ev[t->i & 1], st);
	if (e == cudaSuccess && t->i > 0)
		e = cudaEventSynchronize(t->ev[(t->i - 1) & 1]);
	t->i++;
	return e;
}

/* The build thread: the whole build, paced by a zkg_throttle; then launched (or build_rc). */
static void *build_main(void *arg)
{
	zka_gpu_key *k = (zka_gpu_key *)arg;
	const struct zkg_ops *o = ops_of(k->pk.curve);
	struct zkg_throttle thr;
	memset(&thr, 0, sizeof thr);
	thr.stop = &k->stop;
	char *err = k->build_err;
	size_t errlen = sizeof k->build_err;
	int rc = cudaSetDevice(k->g->device) == cudaSuccess ? 0 : -EIO;
	for (int i = 0; !rc && i < 2; i++)
		if (cudaEventCreateWithFlags(&thr.ev[i], cudaEventBlockingSync |
							     cudaEventDisableTiming) != cudaSuccess)
			rc = -EIO;
	if (rc)
		zkg_errf(err, errlen, "the window tables' build thread cannot use device %d",
			 k->g->device);
	else
		rc = o->tables_build(k, &thr, err, errlen);
	/* the kernels queued so far finish before the events go (and before key_free frees) */
	(void)cudaStreamSynchronize(k->s_bg);
	for (int i = 0; i < 2; i++)
		if (thr.ev[i])
			cudaEventDestroy(thr.ev[i]);
	if (rc) {
		(void)cudaGetLastError();
		k->build_rc = rc;
	}
	/* release: a poller that sees launched sees ev_t1 recorded (or build_rc) */
	__atomic_store_n(&k->launched, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* HELD -> BUILDING: the build's stream (lowest priority: proofs' kernels are scheduled ahead
 * of its blocks), its events, then the build thread. The upload it reads finished in
 * key_load. */
extern "C" int zka_gpu_key_tables_start(zka_gpu_key *k, char *err, size_t errlen)
{
	if (!k->pc || __atomic_load_n(&k->tstate, __ATOMIC_ACQUIRE) != ZKG_T_HELD)
		return 0;
	SET_DEV(k->g);
	if (!k->s_bg)
		CK(cudaStreamCreateWithPriority(&k->s_bg, cudaStreamNonBlocking, k->g->prio_least));
	if (!k->ev_t0)
		CK(cudaEventCreate(&k->ev_t0));
	if (!k->ev_t1)
		CK(cudaEventCreate(&k->ev_t1));
	int r = pthread_create(&k->th_build, NULL, build_main, k);
	if (r) {
		zkg_errf(err, errlen, "cannot start the window tables' build thread: %s",
			 strerror(r));
		return -r;
	}
	k->th_started = 1;
	/* release: a poller that sees BUILDING sees s_bg and the events */
	__atomic_store_n(&k->tstate, ZKG_T_BUILDING, __ATOMIC_RELEASE);
	return 0;
}

int zkg_key_tables_live(zka_gpu_key *k, char *err, size_t errlen)
{
	if (!k->pc)
		return 0;
	int st = __atomic_load_n(&k->tstate, __ATOMIC_ACQUIRE);
	if (st == ZKG_T_READY || st == -1) /* -1: done, READY being published */
		return 1;
	if (st != ZKG_T_BUILDING || !__atomic_load_n(&k->launched, __ATOMIC_ACQUIRE))
		return 0; /* (ev_t1 is not recorded before launched: do not query it) */
	if (k->build_rc) {
		zkg_errf(err, errlen, "%s", k->build_err);
		return k->build_rc;
	}
	cudaError_t e = cudaEventQuery(k->ev_t1);
	if (e == cudaErrorNotReady) {
		(void)cudaGetLastError(); /* not an error: clear it */
		return 0;
	}
	CK(e);
	float ms = 0;
	CK(cudaEventElapsedTime(&ms, k->ev_t0, k->ev_t1));
	int want = ZKG_T_BUILDING;
	/* one poller wins the transition and stamps the build time before publishing READY */
	if (__atomic_compare_exchange_n(&k->tstate, &want, -1, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		k->t_build = ms * 1e-3;
		__atomic_store_n(&k->tstate, ZKG_T_READY, __ATOMIC_RELEASE);
		return 1;
	}
	/* another poller is publishing (-1) or has published: the build is done either way */
	return 1;
}

extern "C" int zka_gpu_key_tables(zka_gpu_key *k, double *build_s, char *err, size_t errlen)
{
	if (!k->pc)
		return ZKA_GPU_TABLES_NONE;
	SET_DEV(k->g);
	int live = zkg_key_tables_live(k, err, errlen);
	if (live < 0)
		return live;
	if (!live)
		return ZKA_GPU_TABLES_BUILDING;
	if (build_s) {
		while (__atomic_load_n(&k->tstate, __ATOMIC_ACQUIRE) != ZKG_T_READY)
			; /* the winner of the transition stores t_build next */
		*build_s = k->t_build;
	}
	return ZKA_GPU_TABLES_READY;
}

extern "C" int zka_gpu_key_tables_wait(zka_gpu_key *k, char *err, size_t errlen)
{
	if (k->pc && __atomic_load_n(&k->tstate, __ATOMIC_ACQUIRE) == ZKG_T_BUILDING) {
		struct timespec ms = {0, 1000000};
		while (!__atomic_load_n(&k->launched, __ATOMIC_ACQUIRE))
			nanosleep(&ms, NULL); /* the thread ends with the build */
		SET_DEV(k->g);
		if (!k->build_rc)
			CK(cudaEventSynchronize(k->ev_t1));
	}
	return zka_gpu_key_tables(k, NULL, err, errlen);
}

extern "C" void zka_gpu_set_priority_domain(zka_gpu *g, uint32_t min_domain)
{
	g->prio_domain = min_domain;
}

static int key_load_any(zka_gpu *g, const zka_pk *pk, zka_gpu_key **kp, char *err, size_t errlen);

extern "C" int zka_gpu_key_load(zka_gpu *g, const zka_pk *pk, zka_gpu_key **kp, char *err,
				size_t errlen)
{
	int rc = key_load_any(g, pk, kp, err, errlen);
	g->gate = NULL; /* one load's, whatever its outcome */
	g->gate_arg = NULL;
	return rc;
}

static int key_load_any(zka_gpu *g, const zka_pk *pk, zka_gpu_key **kp, char *err, size_t errlen)
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
	{ /* R^2 mod r (Montgomery form of R): a product with it takes a value into Montgomery form
	   */
		uint64_t one[4] = {1, 0, 0, 0}, r1[4];
		pk->curve->fr_to_mont(r1, one);
		pk->curve->fr_to_mont(k->r2, r1);
	}
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
	k->pk.h_kind = pk->h_kind; /* the H kind and roots the device's H follows (key_load) */
	k->pk.root = pk->root;
	k->pk.alpha1 = k->alpha1;
	k->pk.beta1 = k->beta1;
	k->pk.delta1 = k->delta1;
	k->pk.beta2 = k->beta2;
	k->pk.delta2 = k->delta2;
	k->pk.gamma2 = k->gamma2;
	/* the bytes copied (C's first n_public + 1 points are zeroed on the device instead) */
	const void *sp[5];
	size_t sl[5];
	zka_pk_point_sets(pk, sp, sl);
	double t0 = zkg_now();
	int rc = o->key_load(g, pk, k, err, errlen);
	/* after the copies: a gate releases a set once its memory is registered */
	k->up_bytes = 0;
	k->pinned = 1;
	for (int i = 0; i < 5; i++) {
		k->up_bytes += sl[i];
		k->pinned &= zkg_is_pinned(sp[i]);
	}
	if (rc < 0) {
		zka_gpu_key_free(k);
		return rc;
	}
	k->t_load = zkg_now() - t0;
	if (g->tables_build == ZKA_GPU_TABLES_BACKGROUND &&
	    (rc = zka_gpu_key_tables_start(k, err, errlen)) < 0) {
		zka_gpu_key_free(k);
		return rc;
	}
	*kp = k;
	return 0;
}

/* one upload of a key's matrices at a time (rare: once per key); ab_set says it is done */
static pthread_mutex_t ab_mu = PTHREAD_MUTEX_INITIALIZER;

static int ab_upload(zka_gpu *g, zka_gpu_key *k, const zka_abc *m, char *err, size_t errlen)
{
	for (int j = 0; j < 2; j++) {
		size_t ns = ((size_t)m->n_rows + 1) * 4, nt = (size_t)m->nnz[j] * 8;
		CK(cudaMalloc(&k->d_ab_start[j], ns));
		CK(cudaMalloc(&k->d_ab_term[j], nt ? nt : 8));
		CK(cudaMemcpy(k->d_ab_start[j], m->start[j], ns, cudaMemcpyHostToDevice));
		if (nt)
			CK(cudaMemcpy(k->d_ab_term[j], m->term[j], nt, cudaMemcpyHostToDevice));
	}
	CK(cudaMalloc(&k->d_ab_val, (size_t)m->n_vals * 32));
	CK(cudaMemcpy(k->d_ab_val, m->val, (size_t)m->n_vals * 32, cudaMemcpyHostToDevice));
	(void)g;
	return 0;
}

extern "C" int zka_gpu_key_set_abc(zka_gpu *g, zka_gpu_key *k, const zka_abc *m, char *err,
				   size_t errlen)
{
	if (__atomic_load_n(&k->ab_set, __ATOMIC_ACQUIRE))
		return 0;
	if (!m || !m->curve || m->curve->id != k->pk.curve->id || m->n_rows != k->domain ||
	    m->n_cols != k->n_vars || m->n_vals < 2 || m->nnz[0] > UINT32_MAX ||
	    m->nnz[1] > UINT32_MAX) {
		zkg_errf(err, errlen,
			 "zka_gpu_key_set_abc: the matrices do not fit the key (%u rows, %u "
			 "columns against a domain of %u and %u variables)",
			 m ? m->n_rows : 0, m ? m->n_cols : 0, k->domain, k->n_vars);
		return -EINVAL;
	}
	SET_DEV(g);
	pthread_mutex_lock(&ab_mu);
	int rc = 0;
	if (!__atomic_load_n(&k->ab_set, __ATOMIC_ACQUIRE)) {
		rc = ab_upload(g, k, m, err, errlen);
		if (rc) { /* nothing half-made stays: the next call tries again */
			void **bufs[] = {&k->d_ab_start[0], &k->d_ab_start[1], &k->d_ab_term[0],
					 &k->d_ab_term[1], &k->d_ab_val};
			for (int i = 0; i < 5; i++) {
				if (*bufs[i])
					cudaFree(*bufs[i]);
				*bufs[i] = NULL;
			}
		} else {
			k->ab_nvals = m->n_vals;
			/* release: a lane that reads ab_set = 1 sees the buffers' pointers (the
			 * copies above were synchronous) */
			__atomic_store_n(&k->ab_set, 1, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&ab_mu);
	return rc;
}

/* zka_gpu_prove and zka_gpu_prove_ab: c NULL, made on the device; ab_std: a, b standard form;
 * a = b = NULL: made on the device from w (zka_gpu_key_set_abc) */
static int prove_any(zka_gpu *g, zka_gpu_key *key, const uint64_t (*a)[4], const uint64_t (*b)[4],
		     const uint64_t (*c)[4], int ab_std, const uint64_t (*w)[4], const zka_rs *rs,
		     zka_proof *proof, zka_prove_times *t, char *err, size_t errlen)
{
	NEED_OPS(key->pk.curve, "zka_gpu_prove");
	SET_DEV(g);
	if (!a != !b || (!a && (c || !ab_std))) {
		zkg_errf(err, errlen,
			 "zka_gpu_prove: a and b must be both given or both NULL "
			 "(then in standard form, with no c)");
		return -EINVAL;
	}
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
	int rc = o->prove(g, key, a, b, c, ab_std, w, rs, proof, err, errlen);
	if (g->s != keep) {
		/* a failed proof may leave work queued on s_hi: finish it before later calls use s
		 */
		if (rc < 0)
			(void)cudaStreamSynchronize(
			    g->s); /* its error, if any, is the one rc reports */
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

extern "C" int zka_gpu_prove(zka_gpu *g, zka_gpu_key *key, const uint64_t (*a)[4],
			     const uint64_t (*b)[4], const uint64_t (*c)[4], const uint64_t (*w)[4],
			     const zka_rs *rs, zka_proof *proof, zka_prove_times *t, char *err,
			     size_t errlen)
{
	return prove_any(g, key, a, b, c, 0, w, rs, proof, t, err, errlen);
}

extern "C" int zka_gpu_prove_ab(zka_gpu *g, zka_gpu_key *key, const uint64_t (*a)[4],
				const uint64_t (*b)[4], int ab_std, const uint64_t (*w)[4],
				const zka_rs *rs, zka_proof *proof, zka_prove_times *t, char *err,
				size_t errlen)
{
	return prove_any(g, key, a, b, NULL, ab_std, w, rs, proof, t, err, errlen);
}

extern "C" void zka_gpu_last_times(const zka_gpu *g, zka_gpu_times *t)
{
	*t = g->last;
}

extern "C" int zka_gpu_fixed_base_g1(zka_gpu *g, const zka_curve *c, const void *base,
				     const uint64_t (*k)[4], size_t n, void *out, char *err,
				     size_t errlen)
{
	NEED_OPS(c, "zka_gpu_fixed_base_g1");
	SET_DEV(g);
	return o->fixed_base(g, 0, base, k, n, out, err, errlen);
}

extern "C" int zka_gpu_check_points(zka_gpu *g, const zka_curve *c, int g2, const void *pts,
				    size_t n, uint64_t *bad, int *code, char *err, size_t errlen)
{
	NEED_OPS(c, "zka_gpu_check_points");
	SET_DEV(g);
	return o->check_points(g, g2, pts, n, bad, code, err, errlen);
}

extern "C" int zka_gpu_fixed_base_g2(zka_gpu *g, const zka_curve *c, const void *base,
				     const uint64_t (*k)[4], size_t n, void *out, char *err,
				     size_t errlen)
{
	NEED_OPS(c, "zka_gpu_fixed_base_g2");
	SET_DEV(g);
	return o->fixed_base(g, 1, base, k, n, out, err, errlen);
}
