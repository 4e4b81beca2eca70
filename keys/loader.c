/* loader.c - a .zka file into a params region at the storage's sequential bandwidth.
 *
 * Objects
 *   load     one call of zka_loader_load: every object below and the progress of the load,
 *            in one struct that the state functions pass along; load_end releases it.
 *   file     the .zka, opened O_DIRECT; where the file system refuses O_DIRECT (tmpfs, some
 *            overlays: open or the first aligned read fails with EINVAL) it is reopened
 *            buffered and one notice line says so.
 *   region   the destination, ZKA_PARAMS_ALIGN-aligned: anonymous shared memory (a private
 *            load), a shm object under a temporary name (a named load), or the caller's
 *            mapping (o->dst). The file's bytes land at the same offsets: the layouts are one.
 *   iovecs   the region cut into ZKA_LOADER_IOV_MAX pieces, registered with the ring as fixed
 *            buffers (pinned once, not per read); without registration (refused, o->no_fixed)
 *            reads are plain IORING_OP_READ.
 *   ring     an io_uring of `depth` entries; without io_uring (disabled, old kernel) the same
 *            chunks are read with pread(2), one at a time.
 *   chunk    one read: a byte range of one section's extent (the section and its padding),
 *            at most `chunk` bytes, never across an iovec boundary.
 *   section  its checksum state: XXH3 streaming state and `next`, the first chunk not yet
 *            hashed; hashed in file order by one worker at a time.
 *   workers  up to 4 threads that hash landed chunks while later reads are in flight.
 *   pieces   with o->populate, the region cut into pop_piece pieces that up to 4 populate
 *            threads fault in (MADV_POPULATE_WRITE) in file order, ahead of the reads: the
 *            kernel's allocation and zeroing of the pages runs on other cores beside the
 *            disk's transfers, and the reads are plain O_DIRECT reads. By default the fixed
 *            buffers' registration faults every page in before the first read instead
 *            (zka_loader.h says why that is the default).
 *
 * States of a chunk (the mutex `mu` guards `landed` and the sections' next/busy/done)
 *   QUEUED -> IN_FLIGHT   read_ring()      once pop_mark covers its bytes: an SQE for its
 *                                          remaining bytes (prep_read), submitted by
 *                                          io_uring_submit_and_wait
 *   IN_FLIGHT -> QUEUED   reap()           a short or interrupted read's CQE: `done` advances,
 *                                          an SQE for the rest is prepared
 *   IN_FLIGHT -> LANDED   landed()         its last byte arrived (from reap(), or read_sync()
 *                                          without a ring); workers are woken
 *   LANDED -> HASHED      hash_work()      its section's `next` reached it: XXH3 updated
 *
 * States of a load (zka_loader_load calls one function per step, in this order, and stops
 * at the first that fails; load_end is its one exit)
 *   HEADER               load_open()      file opened (O_DIRECT when allowed), the header read
 *                                          with one aligned pread
 *                        load_header()    header checked, the file's size checked against it
 *   HEADER -> READING    load_region()    region made, the header copied into it
 *                        load_plan()      the chunks and the sections' checksum states
 *                        load_populate()  populate threads started (o->populate)
 *                        load_ring()      ring set up and its buffers registered
 *                        load_start()     o->on_region told the region's address and layout,
 *                                          the checksum workers started
 *   READING -> VERIFYING load_read()      every chunk LANDED (no read in flight)
 *   VERIFYING            load_verify()    every section HASHED and equal to the header's sum,
 *                                          the ring and the file closed, the image valid
 *                                          (zka_params_from_map)
 *   VERIFYING -> DONE    load_commit()    the residency record written, a named region renamed
 *                                          into place, the statistics filled in
 *   any -> FAILED        load_end()       not DONE: workers stopped, in-flight reads drained,
 *                                          ring exited, the consumer told to let go, region
 *                                          unmapped, temporary object unlinked; DONE or not,
 *                                          the load's own memory freed
 *
 * Invariants
 *   1. At most `depth` reads are in flight and no two of them target the same bytes.
 *   2. A section is hashed only over LANDED chunks, in file order, by one worker at a time:
 *      its digest is the digest of the bytes the file holds, however reads complete.
 *   3. A chunk's bytes are written only while it is IN_FLIGHT (by the kernel) and read only
 *      once LANDED (by a worker): the mutex orders the CQE before the worker's reads.
 *   4. A named region appears under its name only in DONE (rename is the commit); readers
 *      never see a partial or unverified image. A private region is never visible at all.
 *   5. Every error path leaves nothing: no tmp object, no mapping, no registered buffers; a
 *      consumer told of the region (on_region) is told to let go (on_region_drop) before the
 *      region is unmapped.
 *   6. No read targets bytes above pop_mark: a read never lands on a page a populate
 *      thread is still faulting in, and the populate threads are joined before an unmap.
 */
#include "keys/zka_loader.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

static _Atomic uint64_t key_opens;

/* The count of key-file opens in this process (zka_loader.h). */
uint64_t zka_loader_key_opens(void)
{
	return atomic_load(&key_opens);
}

/* Counts one open of a key file. */
void zka_loader_count_open(void)
{
	atomic_fetch_add(&key_opens, 1);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct chunk {
	uint64_t off; /* file offset = region offset */
	uint32_t len, done;
	int sect, landed;
};

struct sect {
	uint32_t first, last, next; /* chunk range; next: the first chunk not yet hashed */
	uint64_t off, len;	    /* the bytes the checksum covers */
	int busy, done, bad;
	XXH3_state_t *st;
};

struct load {
	/* the call */
	const char *path;
	const zka_loader_opts *o;
	zka_params *p;
	zka_loader_stats *st;
	char *err;
	size_t errlen;
	unsigned depth;
	uint64_t chunk;
	int nthr; /* checksum workers wanted */
	double t0, t_read0, t_verify0;
	/* HEADER */
	int fd, direct;
	uint8_t *hdr;
	zka_params_info in;
	struct stat sb;
	/* the region */
	uint8_t *base; /* NULL: none yet */
	size_t mapsize;
	char tmp[64], final[64]; /* a named region's temporary and final names */
	int region_given;	 /* o->on_region accepted it */
	int committed;		 /* DONE: the region is the caller's */
	/* chunks, sections and the workers */
	struct chunk *ch;
	uint32_t nch;
	struct sect sec[ZKA_PARAMS_NSECT];
	uint64_t want[ZKA_PARAMS_NSECT];
	int nsect_done, stop;
	pthread_mutex_t mu;
	pthread_cond_t work, fin;
	pthread_t thr[4];
	int nthr_started;
	/* populating ahead: pieces of ZKA_LOADER_POP_PIECE claimed in order from pop_next;
	 * pop_done[i] set when piece i is in; pop_mark (bytes) the populated prefix, read by
	 * the READING loop without the mutex */
	int populate;
	size_t pop_size, pop_piece, pop_npieces, pop_next, pop_prefix;
	uint8_t *pop_done;
	_Atomic uint64_t pop_mark;
	pthread_cond_t popc; /* pop_mark advanced */
	pthread_t pop_thr[ZKA_LOADER_POP_THREADS];
	int npop_started;
	/* the ring and READING's progress */
	struct io_uring ring;
	int have_ring, used_ring, fixed;
	uint32_t next, inflight; /* the first QUEUED chunk; reads in flight */
	uint64_t got;		 /* bytes landed */
	double last_print;
	int printed;
};

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/* A populate thread: takes the next piece, faults its pages in writable (the kernel allocates
 * and zeroes them here, not under the first read that lands on them), and advances pop_mark
 * over the populated prefix. A piece whose populate fails is marked in anyway: the read into
 * it faults its pages itself (and reports what the kernel says). */
static void *pop_work(void *arg)
{
	struct load *L = arg;
	const size_t piece = L->pop_piece, pg = 4096;
	pthread_mutex_lock(&L->mu);
	while (!L->stop && L->pop_next < L->pop_npieces) {
		size_t i = L->pop_next++;
		pthread_mutex_unlock(&L->mu);
		uint8_t *a = L->base + i * piece;
		size_t len = L->pop_size - i * piece < piece ? L->pop_size - i * piece : piece;
		if (madvise(a, len, MADV_POPULATE_WRITE))
			for (size_t k = 0; k < len; k += pg) /* before 5.14: touch each page */
				((volatile uint8_t *)a)[k] = ((volatile uint8_t *)a)[k];
		pthread_mutex_lock(&L->mu);
		L->pop_done[i] = 1;
		size_t before = L->pop_prefix;
		while (L->pop_prefix < L->pop_npieces && L->pop_done[L->pop_prefix])
			L->pop_prefix++;
		if (L->pop_prefix != before) {
			uint64_t mark = L->pop_prefix == L->pop_npieces
					    ? (uint64_t)L->pop_size
					    : (uint64_t)(L->pop_prefix * piece);
			atomic_store(&L->pop_mark, mark);
			pthread_cond_broadcast(&L->popc);
		}
	}
	pthread_mutex_unlock(&L->mu);
	return NULL;
}

/* A worker: claims a section whose next chunk has landed, hashes the run of landed chunks from
 * there outside the mutex, and finalizes the section after its last chunk. */
static void *hash_work(void *arg)
{
	struct load *L = arg;
	pthread_mutex_lock(&L->mu);
	while (!L->stop && L->nsect_done < ZKA_PARAMS_NSECT) {
		struct sect *s = NULL;
		for (int i = 0; i < ZKA_PARAMS_NSECT && !s; i++) {
			struct sect *c = &L->sec[i];
			if (!c->busy && !c->done && c->next < c->last && L->ch[c->next].landed)
				s = c;
		}
		if (!s) {
			pthread_cond_wait(&L->work, &L->mu);
			continue;
		}
		uint32_t from = s->next, to = from;
		while (to < s->last && L->ch[to].landed)
			to++;
		s->busy = 1;
		/* barrier: the mutex was taken after the CQEs of [from, to) were reaped (reap()
		 * sets landed under it), so the kernel's writes to those bytes happen before the
		 * reads below (invariant 3) */
		pthread_mutex_unlock(&L->mu);
		for (uint32_t k = from; k < to; k++) {
			uint64_t a = L->ch[k].off, b = a + L->ch[k].len, end = s->off + s->len;
			if (b > end)
				b = end; /* the padding after the section is not hashed */
			if (b > a)
				XXH3_64bits_update(s->st, L->base + a, (size_t)(b - a));
		}
		pthread_mutex_lock(&L->mu);
		s->next = to;
		s->busy = 0;
		if (to == s->last) {
			s->done = 1;
			s->bad = XXH3_64bits_digest(s->st) != L->want[s - L->sec];
			L->nsect_done++;
			pthread_cond_broadcast(&L->fin);
		}
	}
	pthread_mutex_unlock(&L->mu);
	return NULL;
}

/* Marks chunk k landed and wakes the workers. */
static void landed(struct load *L, uint32_t k)
{
	pthread_mutex_lock(&L->mu);
	L->ch[k].landed = 1;
	pthread_cond_broadcast(&L->work);
	pthread_mutex_unlock(&L->mu);
}

/* The section whose extent holds file offset off (for messages). */
static const char *sect_at(const zka_params_info *in, uint64_t off)
{
	int s = 0;
	for (int i = 0; i < ZKA_PARAMS_NSECT; i++)
		if (in->off[i] <= off && (in->len[i] || i == 0))
			s = i;
	return off < ZKA_PARAMS_HDR ? "header" : zka_params_section_name(s);
}

static void progress_line(const char *path, uint64_t done, uint64_t total, double t)
{
	fprintf(stderr, "\rzkarena: loading %s: %3d%% of %.2f GB, %.2f GB/s ", path,
		(int)(100.0 * (double)done / (double)total), 1e-9 * (double)total,
		t > 0 ? 1e-9 * (double)done / t : 0.0);
}

/* Puts "path: " and the formatted message into the caller's err; returns ret. */
static int fail(struct load *L, int ret, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct load *L, int ret, const char *fmt, ...)
{
	int n = snprintf(L->err, L->errlen, "%s: ", L->path);
	if (n >= 0 && (size_t)n < L->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(L->err + n, L->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* The load's starting state: options resolved, synchronization made, nothing acquired. */
static void load_init(struct load *L, const char *path, const zka_loader_opts *o, zka_params *p,
		      zka_loader_stats *st, char *err, size_t errlen)
{
	memset(L, 0, sizeof *L);
	L->t0 = now();
	L->path = path;
	L->o = o;
	L->p = p;
	L->st = st;
	L->err = err;
	L->errlen = errlen;
	L->depth = o->depth ? o->depth : ZKA_LOADER_DEPTH;
	L->chunk = o->chunk ? o->chunk : ZKA_LOADER_CHUNK;
	L->nthr = o->threads > 0 ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
	L->nthr = L->nthr > 4 ? 4 : L->nthr < 1 ? 1 : L->nthr;
	L->fd = -1;
	L->direct = !o->buffered;
	memset(p, 0, sizeof *p);
	if (st)
		memset(st, 0, sizeof *st);
	pthread_mutex_init(&L->mu, NULL);
	pthread_cond_init(&L->work, NULL);
	pthread_cond_init(&L->fin, NULL);
	pthread_cond_init(&L->popc, NULL);
}

/* HEADER: opens the file (O_DIRECT unless o->buffered) and reads its first ZKA_PARAMS_HDR
 * bytes with one aligned read. Where the file system refuses O_DIRECT (open or that read
 * fails with EINVAL) the file is reopened buffered and one notice line says so. */
static int load_open(struct load *L)
{
	if (posix_memalign((void **)&L->hdr, ZKA_PARAMS_ALIGN, ZKA_PARAMS_HDR)) {
		L->hdr = NULL;
		return fail(L, -ENOMEM, "out of memory");
	}
	for (;;) {
		zka_loader_count_open();
		L->fd = open(L->path, O_RDONLY | O_CLOEXEC | (L->direct ? O_DIRECT : 0));
		if (L->fd >= 0 && L->direct && getenv("ZKA_TEST_REFUSE_DIRECT")) {
			/* test hook: a file system refusing O_DIRECT (tmpfs before Linux 6.6) */
			close(L->fd);
			L->fd = -1;
			errno = EINVAL;
		}
		ssize_t n = L->fd < 0 ? -1 : pread(L->fd, L->hdr, ZKA_PARAMS_HDR, 0);
		int e = errno;
		if (n < 0 && L->direct && e == EINVAL) {
			if (L->fd >= 0)
				close(L->fd);
			L->fd = -1;
			L->direct = 0;
			if (!L->o->quiet)
				fprintf(stderr,
					"zkarena: %s: the file system refuses O_DIRECT; reading "
					"through the page cache\n",
					L->path);
			continue;
		}
		if (n < 0)
			return fail(L, -e, "%s", strerror(e));
		if (n < (ssize_t)ZKA_PARAMS_HDR)
			return fail(L, -EBADMSG, "header: truncated (%zd bytes)", n);
		return 0;
	}
}

/* HEADER: the header checked (zka_params_header) and the file's size against it. */
static int load_header(struct load *L)
{
	char why[300];
	int ret = zka_params_header(L->hdr, &L->in, why, sizeof why);
	if (ret)
		return fail(L, ret, "%s", why);
	if (fstat(L->fd, &L->sb))
		return fail(L, -errno, "%s", strerror(errno));
	uint64_t size = (uint64_t)L->sb.st_size, total = L->in.total;
	if (size < total)
		return fail(
		    L, -EBADMSG, "section %s: truncated (the file ends at byte %lld of %llu)",
		    sect_at(&L->in, size), (long long)L->sb.st_size, (unsigned long long)total);
	if (size > total)
		return fail(
		    L, -EBADMSG,
		    "section %s: %llu bytes past the end the header gives (mismatched file)",
		    zka_params_section_name(ZKA_PARAMS_NSECT - 1),
		    (unsigned long long)(size - total));
	L->mapsize = (size_t)total;
	return 0;
}

/* A named region: a new shm object under a temporary name (L->tmp, unlinked by load_end
 * unless committed), mapped shared. */
static int region_named(struct load *L)
{
	static _Atomic unsigned serial;
	snprintf(L->tmp, sizeof L->tmp, "/zka-load.%d.%u", (int)getpid(),
		 atomic_fetch_add(&serial, 1));
	int sfd = shm_open(L->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (sfd < 0) {
		int e = errno;
		fail(L, -e, "shm_open %s: %s", L->tmp, strerror(e));
		L->tmp[0] = 0;
		return -e;
	}
	int r = posix_fallocate(sfd, 0, (off_t)L->mapsize);
	if (!r) {
		void *m = mmap(NULL, L->mapsize, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
		r = m == MAP_FAILED ? errno : 0;
		L->base = m == MAP_FAILED ? NULL : m;
	}
	close(sfd);
	if (r)
		return fail(L, -r, "cannot make a region of %zu bytes in /dev/shm: %s", L->mapsize,
			    strerror(r));
	return 0;
}

/* A private region: anonymous memory on 2 MiB boundaries, with transparent huge pages where
 * the system gives them: 1/512 of the faults to fill it, of the pages to pin (a device's
 * registration) and to free at the end. */
static int region_private(struct load *L)
{
	const size_t huge = 2u << 20, size = L->mapsize;
	uint8_t *m =
	    mmap(NULL, size + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return fail(L, -errno, "cannot map %zu bytes: %s", size, strerror(errno));
	uint8_t *a = (uint8_t *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));
	if (a > m)
		munmap(m, (size_t)(a - m));
	munmap(a + size, (size_t)(m + size + huge - (a + size)));
	L->base = a;
	madvise(a, size, MADV_HUGEPAGE); /* a hint: without THP, 4 KiB pages */
	return 0;
}

/* HEADER -> READING: the region (the caller's o->dst, named, or private), the header copied
 * into it. */
static int load_region(struct load *L)
{
	const zka_loader_opts *o = L->o;
	int ret = 0;
	if (o->dst) {
		if (o->dst_size < L->mapsize || (uintptr_t)o->dst % ZKA_PARAMS_ALIGN)
			return fail(L, -EINVAL, "the destination is too small or unaligned");
		L->base = o->dst;
	} else if (o->shm) {
		ret = region_named(L);
	} else {
		ret = region_private(L);
	}
	if (!ret)
		memcpy(L->base, L->hdr, ZKA_PARAMS_HDR);
	return ret;
}

/* HEADER -> READING: the chunks (each section's extent, up to the next section, cut at `chunk`
 * bytes and at iovec boundaries) and each section's checksum state; an empty section is
 * HASHED at once. */
static int load_plan(struct load *L)
{
	const zka_params_info *in = &L->in;
	uint64_t nmax = 0;
	for (int s = 0; s < ZKA_PARAMS_NSECT; s++) {
		uint64_t end = s + 1 < ZKA_PARAMS_NSECT ? in->off[s + 1] : in->total;
		nmax += (end - in->off[s]) / L->chunk + (end - in->off[s]) / ZKA_LOADER_IOV_MAX + 2;
	}
	if (!(L->ch = calloc(nmax, sizeof *L->ch)))
		return fail(L, -ENOMEM, "out of memory");
	for (int s = 0; s < ZKA_PARAMS_NSECT; s++) {
		uint64_t a = in->off[s],
			 end = s + 1 < ZKA_PARAMS_NSECT ? in->off[s + 1] : in->total;
		struct sect *c = &L->sec[s];
		c->first = c->next = L->nch;
		c->off = in->off[s];
		c->len = in->len[s];
		L->want[s] = in->sum[s];
		if (!(c->st = XXH3_createState()))
			return fail(L, -ENOMEM, "out of memory");
		XXH3_64bits_reset(c->st);
		while (a < end) {
			uint64_t b = a + L->chunk,
				 iov_end = (a / ZKA_LOADER_IOV_MAX + 1) * ZKA_LOADER_IOV_MAX;
			if (b > end)
				b = end;
			if (b > iov_end)
				b = iov_end;
			L->ch[L->nch++] =
			    (struct chunk){.off = a, .len = (uint32_t)(b - a), .sect = s};
			a = b;
		}
		c->last = L->nch;
		if (c->first == c->last) { /* an empty section: nothing to wait for */
			c->done = 1;
			c->bad = XXH3_64bits_digest(c->st) != L->want[s];
			L->nsect_done++;
		}
	}
	return 0;
}

/* HEADER -> READING: with populate (o->populate, the default on many CPUs, or the operator's
 * ZKA_LOADER_POPULATE), populate threads that fault the region in ahead of the reads (the
 * kernel's page allocation and zeroing beside the disk's transfers, on several cores); else,
 * or without threads, pop_mark covers the whole region at once (the fixed buffers'
 * registration in load_ring faults every page in before the first read). Cannot fail. */
static int load_populate(struct load *L)
{
	const zka_loader_opts *o = L->o;
	int populate = o->populate > 0 || (o->populate == 0 && sysconf(_SC_NPROCESSORS_ONLN) >=
								   ZKA_LOADER_POP_MIN_CPUS);
	const char *pe = getenv("ZKA_LOADER_POPULATE"); /* an operator's A/B switch */
	if (o->populate == 0 && pe && !strcmp(pe, "ahead"))
		populate = 1;
	if (o->populate == 0 && pe && !strcmp(pe, "fixed"))
		populate = 0;
	if (populate) {
		L->pop_size = L->mapsize;
		L->pop_piece =
		    o->pop_piece && o->pop_piece % 4096 == 0 ? o->pop_piece : ZKA_LOADER_POP_PIECE;
		L->pop_npieces = (L->mapsize + L->pop_piece - 1) / L->pop_piece;
		L->pop_done = calloc(L->pop_npieces, 1);
		int np = (int)sysconf(_SC_NPROCESSORS_ONLN);
		np = np > ZKA_LOADER_POP_THREADS ? ZKA_LOADER_POP_THREADS : np < 1 ? 1 : np;
		for (int i = 0; L->pop_done && i < np; i++) {
			if (pthread_create(&L->pop_thr[i], NULL, pop_work, L))
				break;
			L->npop_started++;
		}
		if (!L->npop_started) /* no threads: nothing ahead, the reads fault the pages */
			populate = 0;
	}
	L->populate = populate;
	if (!populate)
		atomic_store(&L->pop_mark, (uint64_t)L->mapsize);
	return 0;
}

/* HEADER -> READING: the ring, and (unless populating ahead or o->no_fixed) the region
 * registered as its fixed buffers, which pins the region's pages once (RLIMIT_MEMLOCK applies
 * without CAP_IPC_LOCK). No ring: pread; registration refused: plain reads. Cannot fail. */
static int load_ring(struct load *L)
{
	if (io_uring_queue_init(L->depth, &L->ring, 0) != 0)
		return 0;
	L->have_ring = 1;
	if (L->o->no_fixed || L->populate)
		return 0;
	size_t size = L->mapsize;
	unsigned niov = (unsigned)((size + ZKA_LOADER_IOV_MAX - 1) / ZKA_LOADER_IOV_MAX);
	struct iovec *iov = calloc(niov, sizeof *iov);
	for (unsigned i = 0; iov && i < niov; i++) {
		iov[i].iov_base = L->base + (size_t)i * ZKA_LOADER_IOV_MAX;
		iov[i].iov_len = size - (size_t)i * ZKA_LOADER_IOV_MAX;
		if (iov[i].iov_len > ZKA_LOADER_IOV_MAX)
			iov[i].iov_len = ZKA_LOADER_IOV_MAX;
	}
	L->fixed = iov && io_uring_register_buffers(&L->ring, iov, niov) == 0;
	free(iov);
	return 0;
}

/* HEADER -> READING: o->on_region told the region (its refusal fails the load), then the
 * checksum workers started (at least one, or the load fails). */
static int load_start(struct load *L)
{
	const zka_loader_opts *o = L->o;
	if (o->on_region) {
		int r = o->on_region(o->region_arg, L->base, L->mapsize, &L->in);
		if (r) {
			int ret = r < 0 ? r : -EIO;
			return fail(L, ret, "the region's consumer refused it: %s", strerror(-ret));
		}
		L->region_given = 1;
	}
	for (int i = 0; i < L->nthr; i++) {
		if (pthread_create(&L->thr[i], NULL, hash_work, L))
			break;
		L->nthr_started++;
	}
	if (!L->nthr_started)
		return fail(L, -EAGAIN, "cannot start a checksum thread");
	return 0;
}

/* Blocks, with nothing in flight, until the populate threads have the next chunk's pages in
 * (invariant 6). */
static void wait_populated(struct load *L)
{
	struct chunk *c = &L->ch[L->next];
	if (L->next >= L->nch || L->inflight || c->off + c->len <= atomic_load(&L->pop_mark))
		return;
	pthread_mutex_lock(&L->mu);
	while (c->off + c->len > atomic_load(&L->pop_mark))
		pthread_cond_wait(&L->popc, &L->mu);
	pthread_mutex_unlock(&L->mu);
}

/* READING without a ring: the next chunk with pread(2), QUEUED -> LANDED. */
static int read_sync(struct load *L)
{
	struct chunk *c = &L->ch[L->next];
	while (c->done < c->len) {
		ssize_t n = pread(L->fd, L->base + c->off + c->done, c->len - c->done,
				  (off_t)(c->off + c->done));
		if (n <= 0)
			return fail(L, n < 0 ? -errno : -EBADMSG, "section %s: %s",
				    zka_params_section_name(c->sect),
				    n < 0 ? strerror(errno) : "unexpected end of file");
		c->done += (uint32_t)n;
	}
	L->got += c->len;
	landed(L, L->next++);
	return 0;
}

/* Prepares sqe to read chunk k's remaining bytes into the region. */
static void prep_read(struct load *L, struct io_uring_sqe *sqe, uint32_t k)
{
	struct chunk *c = &L->ch[k];
	uint8_t *buf = L->base + c->off + c->done;
	if (L->fixed)
		io_uring_prep_read_fixed(sqe, L->fd, buf, c->len - c->done, c->off + c->done,
					 (int)(c->off / ZKA_LOADER_IOV_MAX));
	else
		io_uring_prep_read(sqe, L->fd, buf, c->len - c->done, c->off + c->done);
	io_uring_sqe_set_data(sqe, (void *)(uintptr_t)k);
}

/* One CQE: its chunk IN_FLIGHT -> QUEUED (short or interrupted: the rest prepared again) or
 * -> LANDED; a failed read fails the load naming the section. */
static int reap(struct load *L, struct io_uring_cqe *cqe)
{
	uint32_t k = (uint32_t)(uintptr_t)io_uring_cqe_get_data(cqe);
	int res = cqe->res;
	io_uring_cqe_seen(&L->ring, cqe);
	L->inflight--;
	struct chunk *c = &L->ch[k];
	if (res == -EAGAIN || res == -EINTR || (res > 0 && c->done + (uint32_t)res < c->len)) {
		if (res > 0)
			c->done += (uint32_t)res;
		struct io_uring_sqe *sqe = io_uring_get_sqe(&L->ring);
		if (!sqe)
			return fail(L, -EBUSY, "io_uring: no free entry");
		prep_read(L, sqe, k);
		L->inflight++;
		return 0;
	}
	if (res <= 0)
		return fail(L, res < 0 ? res : -EBADMSG, "section %s: %s",
			    zka_params_section_name(c->sect),
			    res < 0 ? strerror(-res) : "unexpected end of file");
	c->done = c->len;
	L->got += c->len;
	landed(L, k);
	return 0;
}

/* READING with a ring: chunks QUEUED -> IN_FLIGHT up to `depth` in flight and up to pop_mark,
 * submitted with a wait for one completion in the same syscall, then every ready completion
 * reaped (no syscall for those). 0, 1 (interrupted or nothing reaped: call again), -errno. */
static int read_ring(struct load *L)
{
	while (L->next < L->nch && L->inflight < L->depth &&
	       L->ch[L->next].off + L->ch[L->next].len <= atomic_load(&L->pop_mark)) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&L->ring);
		if (!sqe)
			break;
		prep_read(L, sqe, L->next++);
		L->inflight++;
	}
	struct io_uring_cqe *cqe;
	int r = io_uring_submit_and_wait(&L->ring, 1);
	if (r == -EINTR || r == -EAGAIN)
		return 1; /* the queued entries stay queued and go with the next call */
	if (r < 0)
		return fail(L, r, "io_uring_submit_and_wait: %s", strerror(-r));
	if (io_uring_peek_cqe(&L->ring, &cqe) != 0)
		return 1;
	do {
		if ((r = reap(L, cqe)))
			return r;
	} while (io_uring_peek_cqe(&L->ring, &cqe) == 0);
	return 0;
}

/* READING -> VERIFYING: keeps `depth` reads in flight (or reads synchronously) until every
 * chunk has LANDED; a progress line on stderr for a load over a second when asked. */
static int load_read(struct load *L)
{
	const zka_loader_opts *o = L->o;
	L->t_read0 = now();
	L->used_ring = L->have_ring;
	L->got = ZKA_PARAMS_HDR;
	while (L->next < L->nch || L->inflight) {
		wait_populated(L);
		int r = L->have_ring ? read_ring(L) : read_sync(L);
		if (r < 0)
			return r;
		if (r > 0)
			continue;
		double t = now() - L->t0;
		if (o->progress && (o->progress > 0 || isatty(2)) && t > 1.0 &&
		    t - L->last_print > 0.25) {
			progress_line(L->path, L->got, L->in.total, t);
			L->last_print = t;
			L->printed = 1;
		}
	}
	return 0;
}

/* Stops the workers and the populate threads and joins them (the populate threads take no
 * further piece); safe when none runs. */
static void stop_threads(struct load *L)
{
	pthread_mutex_lock(&L->mu);
	L->stop = 1; /* wakes the workers still waiting for work */
	pthread_cond_broadcast(&L->work);
	pthread_mutex_unlock(&L->mu);
	for (int i = 0; i < L->nthr_started; i++)
		pthread_join(L->thr[i], NULL);
	L->nthr_started = 0;
	for (int i = 0; i < L->npop_started; i++) /* before the region is unmapped */
		pthread_join(L->pop_thr[i], NULL);
	L->npop_started = 0;
}

/* VERIFYING: waits for the workers to hash the last sections (the populate threads are done:
 * every chunk was read, so every piece was in), checks every section's sum, closes the ring
 * and the file, and validates the image into the caller's params. */
static int load_verify(struct load *L)
{
	L->t_verify0 = now();
	pthread_mutex_lock(&L->mu);
	while (L->nsect_done < ZKA_PARAMS_NSECT)
		pthread_cond_wait(&L->fin, &L->mu);
	pthread_mutex_unlock(&L->mu);
	stop_threads(L);
	if (L->printed) {
		progress_line(L->path, L->in.total, L->in.total, now() - L->t0);
		fputc('\n', stderr);
	}
	for (int s = 0; s < ZKA_PARAMS_NSECT; s++)
		if (L->sec[s].bad)
			return fail(L, -EBADMSG, "section %s: checksum mismatch (corrupt file)",
				    zka_params_section_name(s));
	if (L->have_ring)
		io_uring_queue_exit(&L->ring); /* unregisters the buffers */
	L->have_ring = 0;
	close(L->fd);
	L->fd = -1;
	return zka_params_from_map(L->base, L->mapsize, L->path, L->p, L->err, L->errlen);
}

/* VERIFYING -> DONE: a named region gets its residency record and its name (the rename is the
 * commit, invariant 4); the region becomes read-only (not the caller's o->dst, which p does
 * not own) and the caller's; the statistics are filled in. */
static int load_commit(struct load *L)
{
	const zka_loader_opts *o = L->o;
	double secs = now() - L->t0;
	unsigned depth = L->used_ring ? L->depth : 1;
	if (o->shm) {
		const struct stat *sb = &L->sb;
		zka_params_res res = {
		    .from = {.size = (uint64_t)sb->st_size,
			     .mtime_ns =
				 (int64_t)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec,
			     .dev = (uint64_t)sb->st_dev,
			     .ino = (uint64_t)sb->st_ino},
		    .seconds = secs,
		    .direct = (uint32_t)L->direct,
		    .depth = depth};
		struct timespec rt;
		clock_gettime(CLOCK_REALTIME, &rt);
		res.loaded_at_ns = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
		if (!realpath(L->path, res.path))
			snprintf(res.path, sizeof res.path, "%s", L->path);
		zka_params_set_residency(L->base, &res);
		if (o->shm[0])
			snprintf(L->final, sizeof L->final, "%s", o->shm);
		else
			snprintf(L->final, sizeof L->final, "/zka-key.%016llx",
				 (unsigned long long)L->in.id);
		char a[96], b[96];
		snprintf(a, sizeof a, "/dev/shm%s", L->tmp);
		snprintf(b, sizeof b, "/dev/shm%s", L->final);
		if (rename(a, b)) /* DONE: the commit (invariant 4) */
			return fail(L, -errno, "cannot name the region %s: %s", L->final,
				    strerror(errno));
		L->tmp[0] = 0;
	}
	if (!o->dst)
		mprotect(L->base, L->mapsize, PROT_READ);
	L->committed = 1;
	zka_loader_stats *st = L->st;
	if (st) {
		st->seconds = secs;
		st->t_setup = L->t_read0 - L->t0;
		st->t_read = L->t_verify0 - L->t_read0;
		st->t_verify = now() - L->t_verify0;
		st->bytes = L->in.total;
		st->direct = L->direct;
		st->fixed = L->fixed;
		st->populated = L->populate;
		st->depth = depth;
		st->chunk = (unsigned)L->chunk;
		snprintf(st->shm, sizeof st->shm, "%s", L->final);
	}
	if (o->dst)
		L->p->map = NULL, L->p->size = 0; /* the caller's mapping: not ours to unmap */
	return 0;
}

/* The one exit. Not DONE (FAILED, invariant 5): threads stopped and joined, reads still in
 * flight drained (they write into the region) and the ring exited, the file closed, the
 * consumer told to let go before the memory goes away, the region unmapped (never the
 * caller's o->dst), the temporary object unlinked, p zeroed. Always: the load's own memory
 * and synchronization freed. Returns ret. */
static int load_end(struct load *L, int ret)
{
	const zka_loader_opts *o = L->o;
	if (L->nthr_started || L->npop_started)
		stop_threads(L);
	if (L->have_ring) {
		/* barrier: reads still in flight write into the region; drain them before it is
		 * unmapped (queue_exit alone does not wait for them) */
		struct io_uring_cqe *cqe;
		while (L->inflight && io_uring_wait_cqe(&L->ring, &cqe) == 0) {
			io_uring_cqe_seen(&L->ring, cqe);
			L->inflight--;
		}
		io_uring_queue_exit(&L->ring);
	}
	if (L->fd >= 0)
		close(L->fd);
	if (!L->committed) {
		if (L->region_given && o->on_region_drop)
			o->on_region_drop(o->region_arg); /* before the memory goes away */
		if (L->base && !o->dst)
			munmap(L->base, L->mapsize);
		if (L->tmp[0])
			shm_unlink(L->tmp);
		memset(L->p, 0, sizeof *L->p);
	}
	free(L->hdr);
	free(L->ch);
	free(L->pop_done);
	for (int s = 0; s < ZKA_PARAMS_NSECT; s++)
		XXH3_freeState(L->sec[s].st);
	pthread_mutex_destroy(&L->mu);
	pthread_cond_destroy(&L->work);
	pthread_cond_destroy(&L->fin);
	pthread_cond_destroy(&L->popc);
	return ret;
}

/* See zka_loader.h. One function per step of the load (the note's table), in order, until
 * one fails; load_end is the one exit of both outcomes. */
int zka_loader_load(const char *path, const zka_loader_opts *o, zka_params *p, zka_loader_stats *st,
		    char *err, size_t errlen)
{
	static const zka_loader_opts none = {0};
	struct load L;
	load_init(&L, path, o ? o : &none, p, st, err, errlen);
	int ret = load_open(&L); /* HEADER */
	if (!ret)
		ret = load_header(&L);
	if (!ret) /* HEADER -> READING */
		ret = load_region(&L);
	if (!ret)
		ret = load_plan(&L);
	if (!ret)
		ret = load_populate(&L);
	if (!ret)
		ret = load_ring(&L);
	if (!ret)
		ret = load_start(&L);
	if (!ret) /* READING -> VERIFYING */
		ret = load_read(&L);
	if (!ret) /* VERIFYING -> DONE */
		ret = load_verify(&L);
	if (!ret)
		ret = load_commit(&L);
	return load_end(&L, ret);
}
