/* stage.cu - staged uploads: a key's point sets copied to the device from pageable host memory
 * through a few pinned buffers that CPU threads fill (zka_gpu_set_upload_staging).
 *
 * Why. A one-shot `zkarena prove --gpu` with its key resident in /dev/shm must either register
 * the key's 4 KiB shm pages with CUDA (pin_user_pages over ~420k pages: 0.07-0.09 s for the
 * 1.6 GB of a BN254 2^22 key on the H200 box, 2026-12-03, and as long again to unpin them at
 * exit) or let the driver copy from pageable memory (one thread staging through its own small
 * buffers, several times slower than pinned copies). Here T threads copy pieces of the set into
 * their own pinned buffers and queue each piece's DMA from there, which runs while they fill
 * the next buffer; the copy is bounded by memory bandwidth. A piece is read by the caller's
 * reader (for a resident region: pread from its shm file, so the pages are never mapped) or,
 * without one, memcpy'd from pages the caller has mapped and populated.
 *
 * Objects.
 *   stager (struct zkg_stager, one per context, g->stg): T threads' worth of pinned buffers,
 *     two per thread of `piece` bytes each (one registered mapping), a stream per thread and an
 *     event per buffer. Made by zka_gpu_set_upload_staging, freed by it (threads 0) or by
 *     zka_gpu_close.
 *   staged copy (zkg_stage_copy): one host range to one device range; piece j of the range
 *     goes through thread t = j mod T, buffer (j div T) mod 2 of t.
 *
 *   reader (g->up_read, zka_gpu_set_upload_reader): what fills a buffer with a piece; memcpy
 *     from the host address when none is set; for a resident region, pread(2) from its shm
 *     file, so the key's 4 KiB pages are never mapped (no page tables built while CUDA starts,
 *     none torn down at exit: 0.04-0.06 s for 1.6 GB, H200 box 2026-12-03).
 *
 * A buffer's states (per thread t, buffer s; no shared state between threads):
 *   FREE -> FILLED       the reader (or memcpy) puts the next piece into it  stage_run
 *   FILLED -> IN_DMA     cudaMemcpyAsync on t's stream, event recorded    stage_run
 *   IN_DMA -> FREE       cudaEventSynchronize of its event (before reuse)  stage_run
 * and at the end of a copy every thread synchronizes its stream, so zkg_stage_copy returns
 * only when every byte is on the device.
 *
 * Invariants.
 *   1. A buffer is written by the host only after the event recorded after its last DMA has
 *      completed (the first two pieces of a thread find both buffers FREE).
 *   2. Each piece is copied exactly once: thread t takes pieces t, t + T, t + 2T, ...; a thread
 *      that could not be started has its share run by the caller after its own.
 *   3. zkg_stage_copy returns 0 only after all of its streams have completed; on a failure it
 *      still waits for them (no DMA reads a buffer after it returns) and reports the first
 *      failure, naming the call.
 *   4. The stager is used by one key load at a time (its context's loads are serialized by the
 *      caller, like every other use of a context). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cuda/internal.cuh"

struct zkg_stager {
	int threads;
	size_t piece;
	char *buf; /* threads x 2 x piece registered bytes, 2 MiB aligned in map */
	size_t bytes, map_len;
	void *map;
	int registered;
	cudaStream_t st[ZKA_GPU_STAGE_MAX];
	cudaEvent_t ev[2 * ZKA_GPU_STAGE_MAX];
};

struct stage_job {
	const struct zkg_stager *s;
	zka_gpu_upload_read rd; /* NULL: memcpy */
	void *rd_arg;
	int device, t;
	char *dst;
	const char *src;
	size_t bytes;
	int rc;
	char err[256];
};

/* Thread t's pieces of one copy (the state machine above); 0 or -EIO with j->err. */
static int stage_run(struct stage_job *j)
{
	char *err = j->err;
	size_t errlen = sizeof j->err;
	const struct zkg_stager *s = j->s;
	const int T = s->threads, t = j->t;
	const size_t piece = s->piece, np = (j->bytes + piece - 1) / piece;
	CK(cudaSetDevice(j->device));
	size_t k = 0;
	for (size_t p = (size_t)t; p < np; p += (size_t)T, k++) {
		int b = t * 2 + (int)(k & 1);
		char *hb = s->buf + (size_t)b * piece;
		if (k >= 2) /* invariant 1: the DMA out of this buffer two pieces ago is done */
			CK(cudaEventSynchronize(s->ev[b]));
		size_t off = p * piece, m = j->bytes - off < piece ? j->bytes - off : piece;
		if (!j->rd)
			memcpy(hb, j->src + off, m);
		else if (int r = j->rd(j->rd_arg, hb, j->src + off, m, err, errlen))
			return r < 0 ? r : -EIO; /* the reader's message names what failed */
		CK(cudaMemcpyAsync(j->dst + off, hb, m, cudaMemcpyHostToDevice, s->st[t]));
		CK(cudaEventRecord(s->ev[b], s->st[t]));
	}
	return 0;
}

static void *stage_main(void *arg)
{
	struct stage_job *j = (struct stage_job *)arg;
	j->rc = stage_run(j);
	return NULL;
}

int zkg_stage_copy(zka_gpu *g, void *dst, const void *src, size_t bytes, char *err, size_t errlen)
{
	const struct zkg_stager *s = g->stg;
	struct stage_job job[ZKA_GPU_STAGE_MAX];
	pthread_t th[ZKA_GPU_STAGE_MAX];
	int started[ZKA_GPU_STAGE_MAX] = {0};
	const int T = s->threads;
	for (int t = 0; t < T; t++) {
		job[t].s = s;
		job[t].rd = g->up_read;
		job[t].rd_arg = g->up_arg;
		job[t].device = g->device;
		job[t].t = t;
		job[t].dst = (char *)dst;
		job[t].src = (const char *)src;
		job[t].bytes = bytes;
		job[t].rc = 0;
		job[t].err[0] = 0;
	}
	for (int t = 1; t < T; t++)
		started[t] = pthread_create(&th[t], NULL, stage_main, &job[t]) == 0;
	job[0].rc = stage_run(&job[0]);
	for (int t = 1; t < T; t++) /* invariant 2: a share without its thread runs here */
		if (!started[t])
			job[t].rc = stage_run(&job[t]);
	for (int t = 1; t < T; t++)
		if (started[t])
			pthread_join(th[t], NULL);
	int rc = 0;
	for (int t = 0; t < T; t++) { /* invariant 3: every stream done, the first failure kept */
		cudaError_t e = cudaStreamSynchronize(s->st[t]);
		if (!rc && job[t].rc) {
			rc = job[t].rc;
			zkg_errf(err, errlen, "staged upload (thread %d of %d): %s", t, T,
				 job[t].err);
		} else if (!rc && e != cudaSuccess) {
			rc = -EIO;
			zkg_errf(err, errlen,
				 "staged upload (thread %d of %d): cudaStreamSynchronize: %s", t, T,
				 cudaGetErrorString(e));
		}
	}
	return rc;
}

static void stager_free(struct zkg_stager *s)
{
	if (!s)
		return;
	for (int i = 0; i < 2 * ZKA_GPU_STAGE_MAX; i++)
		if (s->ev[i])
			cudaEventDestroy(s->ev[i]);
	for (int i = 0; i < ZKA_GPU_STAGE_MAX; i++)
		if (s->st[i])
			cudaStreamDestroy(s->st[i]);
	if (s->registered)
		cudaHostUnregister(s->buf);
	if (s->map)
		munmap(s->map, s->map_len);
	free(s);
}

void zkg_stager_free(zka_gpu *g)
{
	stager_free(g->stg);
	g->stg = NULL;
}

/* Makes a stager of threads x 2 x piece pinned bytes, or returns -errno with nothing made. */
static int stager_make(zka_gpu *g, int threads, size_t piece, struct zkg_stager **out, char *err,
		       size_t errlen)
{
	struct zkg_stager *s = (struct zkg_stager *)calloc(1, sizeof *s);
	if (!s) {
		zkg_errf(err, errlen, "zka_gpu_set_upload_staging: out of memory");
		return -ENOMEM;
	}
	s->threads = threads;
	s->piece = piece;
	int rc = 0;
	/* the buffers: private anonymous memory on huge pages, faulted in, then registered (H200
	 * box, 2026-12-03: cudaHostAlloc of 64 MiB took 0.017-0.048 s, a third of the 2^22
	 * upload it serves; THP memory registers in a third of 4 KiB pages' time) */
	s->bytes = (size_t)threads * 2 * piece;
	const size_t huge = (size_t)2 << 20;
	size_t len = (s->bytes + huge - 1) / huge * huge + huge;
	char *m =
	    (char *)mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		zkg_errf(err, errlen, "zka_gpu_set_upload_staging: mmap of %zu bytes: %s", len,
			 strerror(errno));
		free(s);
		return -ENOMEM;
	}
	s->map = m;
	s->map_len = len;
	s->buf = (char *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));
	(void)madvise(s->buf, s->bytes, MADV_HUGEPAGE); /* a hint: 4 KiB pages work too */
	memset(s->buf, 0, s->bytes);			/* faulted in before the registration */
	cudaError_t e = cudaSetDevice(g->device);
	if (e == cudaSuccess)
		e = cudaHostRegister(s->buf, s->bytes, cudaHostRegisterDefault);
	s->registered = e == cudaSuccess;
	for (int i = 0; e == cudaSuccess && i < threads; i++)
		e = cudaStreamCreateWithFlags(&s->st[i], cudaStreamNonBlocking);
	for (int i = 0; e == cudaSuccess && i < 2 * threads; i++)
		e = cudaEventCreateWithFlags(&s->ev[i], cudaEventDisableTiming);
	if (e != cudaSuccess) {
		zkg_errf(err, errlen,
			 "zka_gpu_set_upload_staging: %d threads x 2 pinned buffers of %zu KiB: %s",
			 threads, piece >> 10, cudaGetErrorString(e));
		rc = e == cudaErrorMemoryAllocation ? -ENOMEM : -EIO;
		(void)cudaGetLastError();
		stager_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

extern "C" int zka_gpu_set_upload_staging(zka_gpu *g, int threads, size_t piece, char *err,
					  size_t errlen)
{
	if (threads < 0 || threads > ZKA_GPU_STAGE_MAX ||
	    (piece && (piece < 65536 || (piece & (piece - 1)) || piece > ((size_t)1 << 30)))) {
		zkg_errf(
		    err, errlen,
		    "zka_gpu_set_upload_staging: threads %d (0..%d) or piece %zu (0, or a power "
		    "of two from 64 KiB to 1 GiB) out of range",
		    threads, ZKA_GPU_STAGE_MAX, piece);
		return -EINVAL;
	}
	if (!piece)
		piece = ZKA_GPU_STAGE_PIECE;
	if (threads == 0) {
		zkg_stager_free(g);
		return 0;
	}
	if (g->stg && g->stg->threads == threads && g->stg->piece == piece)
		return 0;
	struct zkg_stager *s = NULL;
	int rc = stager_make(g, threads, piece, &s, err, errlen);
	if (rc)
		return rc; /* the old stager, if any, stays */
	zkg_stager_free(g);
	g->stg = s;
	return 0;
}

extern "C" void zka_gpu_set_upload_reader(zka_gpu *g, zka_gpu_upload_read read, void *arg)
{
	g->up_read = read;
	g->up_arg = read ? arg : NULL;
}

int zkg_stage_threads(const zka_gpu *g)
{
	return g->stg ? g->stg->threads : 0;
}
