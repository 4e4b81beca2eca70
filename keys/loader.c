/* loader.c - a .zka file into a params region at the storage's sequential bandwidth.
 *
 * Objects
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
 *   QUEUED -> IN_FLIGHT   zka_loader_load  READING loop, once pop_mark covers its bytes: an
 *                                          SQE for its remaining bytes is prepared;
 *                                          io_uring_submit_and_wait submits it
 *   IN_FLIGHT -> QUEUED   zka_loader_load  a short or interrupted read's CQE: `done` advances,
 *                                          an SQE for the rest is prepared
 *   IN_FLIGHT -> LANDED   landed()         its last byte arrived (called on the CQE); workers
 *                                          are woken
 *   LANDED -> HASHED      hash_work()      its section's `next` reached it: XXH3 updated
 * States of a load (all in zka_loader_load)
 *   HEADER -> READING     header read with one aligned pread and checked, file size checked
 *                         against it, region made, ring set up and its buffers registered,
 *                         o->on_region told the region's address and layout
 *   READING -> VERIFYING  every chunk LANDED (no read in flight)
 *   VERIFYING -> DONE     every section HASHED and equal to the header's sum, the image valid
 *                         (zka_params_from_map), the residency record written, a named region
 *                         renamed into place
 *   any -> FAILED         the err: label: workers stopped, in-flight reads drained, ring
 *                         exited, region unmapped, temporary object unlinked
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

uint64_t zka_loader_key_opens(void)
{
	return atomic_load(&key_opens);
}

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
	const char *path;
	uint8_t *base;
	struct chunk *ch;
	uint32_t nch;
	struct sect sec[ZKA_PARAMS_NSECT];
	uint64_t want[ZKA_PARAMS_NSECT];
	int nsect_done, stop;
	pthread_mutex_t mu;
	pthread_cond_t work, fin;
	/* populating ahead: pieces of ZKA_LOADER_POP_PIECE claimed in order from pop_next;
	 * pop_done[i] set when piece i is in; pop_mark (bytes) the populated prefix, read by
	 * the READING loop without the mutex */
	size_t pop_size, pop_piece, pop_npieces, pop_next, pop_prefix;
	uint8_t *pop_done;
	_Atomic uint64_t pop_mark;
	pthread_cond_t popc; /* pop_mark advanced */
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

int zka_loader_load(const char *path, const zka_loader_opts *o, zka_params *p, zka_loader_stats *st,
		    char *err, size_t errlen)
{
	static const zka_loader_opts none = {0};
	static _Atomic unsigned serial;
	if (!o)
		o = &none;
	unsigned depth = o->depth ? o->depth : ZKA_LOADER_DEPTH;
	uint64_t chunk = o->chunk ? o->chunk : ZKA_LOADER_CHUNK;
	int nthr = o->threads > 0 ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (nthr > 4)
		nthr = 4;
	if (nthr < 1)
		nthr = 1;
	double t0 = now();
	struct load L = {.path = path};
	struct io_uring ring;
	int have_ring = 0, fd = -1, ret = 0, direct = !o->buffered, fixed = 0;
	uint8_t *hdr = NULL, *map = MAP_FAILED;
	size_t mapsize = 0;
	char tmp[64] = "", final[64] = "", why[300];
	pthread_t thr[4];
	int nthr_started = 0, used_ring = 0, region_given = 0, npop_started = 0;
	pthread_t pop_thr[ZKA_LOADER_POP_THREADS];
	uint32_t next = 0, inflight = 0;
	zka_params_info in;
	struct stat sb;
	memset(p, 0, sizeof *p);
	if (st)
		memset(st, 0, sizeof *st);
	pthread_mutex_init(&L.mu, NULL);
	pthread_cond_init(&L.work, NULL);
	pthread_cond_init(&L.fin, NULL);
	pthread_cond_init(&L.popc, NULL);

	/* HEADER: open (O_DIRECT when allowed), read the first 4 KiB with one aligned read */
	if (posix_memalign((void **)&hdr, ZKA_PARAMS_ALIGN, ZKA_PARAMS_HDR)) {
		snprintf(err, errlen, "%s: out of memory", path);
		ret = -ENOMEM;
		goto err;
	}
	for (;;) {
		zka_loader_count_open();
		fd = open(path, O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0));
		if (fd >= 0 && direct && getenv("ZKA_TEST_REFUSE_DIRECT")) {
			/* test hook: a file system that refuses O_DIRECT (tmpfs before Linux 6.6)
			 */
			close(fd);
			fd = -1;
			errno = EINVAL;
		}
		if (fd < 0 && direct && errno == EINVAL)
			goto no_direct;
		if (fd < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto err;
		}
		ssize_t n = pread(fd, hdr, ZKA_PARAMS_HDR, 0);
		if (n < 0 && direct && errno == EINVAL) {
			close(fd);
			fd = -1;
			goto no_direct;
		}
		if (n < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto err;
		}
		if (n < (ssize_t)ZKA_PARAMS_HDR) {
			ret = -EBADMSG;
			snprintf(err, errlen, "%s: header: truncated (%zd bytes)", path, n);
			goto err;
		}
		break;
	no_direct:
		direct = 0;
		if (!o->quiet)
			fprintf(stderr,
				"zkarena: %s: the file system refuses O_DIRECT; reading through "
				"the page cache\n",
				path);
	}
	if ((ret = zka_params_header(hdr, &in, why, sizeof why))) {
		snprintf(err, errlen, "%s: %s", path, why);
		goto err;
	}
	if (fstat(fd, &sb)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto err;
	}
	if ((uint64_t)sb.st_size < in.total) {
		ret = -EBADMSG;
		snprintf(err, errlen,
			 "%s: section %s: truncated (the file ends at byte %lld of %llu)", path,
			 sect_at(&in, (uint64_t)sb.st_size), (long long)sb.st_size,
			 (unsigned long long)in.total);
		goto err;
	}
	if ((uint64_t)sb.st_size > in.total) {
		ret = -EBADMSG;
		snprintf(err, errlen,
			 "%s: section %s: %llu bytes past the end the header gives "
			 "(mismatched file)",
			 path, zka_params_section_name(ZKA_PARAMS_NSECT - 1),
			 (unsigned long long)((uint64_t)sb.st_size - in.total));
		goto err;
	}

	/* the region */
	mapsize = (size_t)in.total;
	if (o->dst) {
		if (o->dst_size < mapsize || (uintptr_t)o->dst % ZKA_PARAMS_ALIGN) {
			ret = -EINVAL;
			snprintf(err, errlen, "%s: the destination is too small or unaligned",
				 path);
			goto err;
		}
		map = o->dst;
	} else if (o->shm) {
		snprintf(tmp, sizeof tmp, "/zka-load.%d.%u", (int)getpid(),
			 atomic_fetch_add(&serial, 1));
		int sfd = shm_open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (sfd < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: shm_open %s: %s", path, tmp, strerror(errno));
			tmp[0] = 0;
			goto err;
		}
		int r = posix_fallocate(sfd, 0, (off_t)mapsize);
		if (!r) {
			map = mmap(NULL, mapsize, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
			r = map == MAP_FAILED ? errno : 0;
		}
		close(sfd);
		if (r) {
			ret = -r;
			snprintf(err, errlen,
				 "%s: cannot make a region of %zu bytes in /dev/shm: %s", path,
				 mapsize, strerror(r));
			goto err;
		}
	} else {
		/* private anonymous memory on 2 MiB boundaries, with transparent huge pages where
		 * the system gives them: 1/512 of the faults to fill it, of the pages to pin
		 * (a device's registration) and to free at the end */
		const size_t huge = 2u << 20;
		uint8_t *m = mmap(NULL, mapsize + huge, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			ret = -errno;
			snprintf(err, errlen, "%s: cannot map %zu bytes: %s", path, mapsize,
				 strerror(errno));
			goto err;
		}
		uint8_t *a = (uint8_t *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));
		if (a > m)
			munmap(m, (size_t)(a - m));
		munmap(a + mapsize, (size_t)(m + mapsize + huge - (a + mapsize)));
		map = a;
		madvise(map, mapsize, MADV_HUGEPAGE); /* a hint: without THP, 4 KiB pages */
	}
	L.base = map;
	memcpy(map, hdr, ZKA_PARAMS_HDR);

	/* the chunks: each section's extent (up to the next section) cut at `chunk` bytes and at
	 * iovec boundaries */
	uint64_t nmax = 0;
	for (int s = 0; s < ZKA_PARAMS_NSECT; s++) {
		uint64_t end = s + 1 < ZKA_PARAMS_NSECT ? in.off[s + 1] : in.total;
		nmax += (end - in.off[s]) / chunk + (end - in.off[s]) / ZKA_LOADER_IOV_MAX + 2;
	}
	if (!(L.ch = calloc(nmax, sizeof *L.ch))) {
		ret = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto err;
	}
	for (int s = 0; s < ZKA_PARAMS_NSECT; s++) {
		uint64_t a = in.off[s], end = s + 1 < ZKA_PARAMS_NSECT ? in.off[s + 1] : in.total;
		struct sect *c = &L.sec[s];
		c->first = c->next = L.nch;
		c->off = in.off[s];
		c->len = in.len[s];
		L.want[s] = in.sum[s];
		if (!(c->st = XXH3_createState())) {
			ret = -ENOMEM;
			snprintf(err, errlen, "%s: out of memory", path);
			goto err;
		}
		XXH3_64bits_reset(c->st);
		while (a < end) {
			uint64_t b = a + chunk,
				 iov_end = (a / ZKA_LOADER_IOV_MAX + 1) * ZKA_LOADER_IOV_MAX;
			if (b > end)
				b = end;
			if (b > iov_end)
				b = iov_end;
			L.ch[L.nch++] =
			    (struct chunk){.off = a, .len = (uint32_t)(b - a), .sect = s};
			a = b;
		}
		c->last = L.nch;
		if (c->first == c->last) { /* an empty section: nothing to wait for */
			c->done = 1;
			c->bad = XXH3_64bits_digest(c->st) != L.want[s];
			L.nsect_done++;
		}
	}

	/* populated ahead of the reads (o->populate: the kernel's page allocation and zeroing
	 * beside the disk's transfers, on several cores), or the fixed buffers' registration
	 * below faults every page in before the first read (the default) */
	int populate = o->populate > 0 || (o->populate == 0 && sysconf(_SC_NPROCESSORS_ONLN) >=
								   ZKA_LOADER_POP_MIN_CPUS);
	const char *pe = getenv("ZKA_LOADER_POPULATE"); /* an operator's A/B switch */
	if (o->populate == 0 && pe && !strcmp(pe, "ahead"))
		populate = 1;
	if (o->populate == 0 && pe && !strcmp(pe, "fixed"))
		populate = 0;
	if (populate) {
		L.pop_size = mapsize;
		L.pop_piece =
		    o->pop_piece && o->pop_piece % 4096 == 0 ? o->pop_piece : ZKA_LOADER_POP_PIECE;
		L.pop_npieces = (mapsize + L.pop_piece - 1) / L.pop_piece;
		L.pop_done = calloc(L.pop_npieces, 1);
		int np = (int)sysconf(_SC_NPROCESSORS_ONLN);
		np = np > ZKA_LOADER_POP_THREADS ? ZKA_LOADER_POP_THREADS : np < 1 ? 1 : np;
		for (int i = 0; L.pop_done && i < np; i++) {
			if (pthread_create(&pop_thr[i], NULL, pop_work, &L))
				break;
			npop_started++;
		}
		if (!npop_started) { /* no threads: nothing ahead, the reads fault the pages */
			populate = 0;
			atomic_store(&L.pop_mark, (uint64_t)mapsize);
		}
	} else {
		atomic_store(&L.pop_mark, (uint64_t)mapsize);
	}

	/* the ring and its fixed buffers */
	if (io_uring_queue_init(depth, &ring, 0) == 0) {
		have_ring = 1;
		if (!o->no_fixed && !populate) {
			unsigned niov =
			    (unsigned)((mapsize + ZKA_LOADER_IOV_MAX - 1) / ZKA_LOADER_IOV_MAX);
			struct iovec *iov = calloc(niov, sizeof *iov);
			for (unsigned i = 0; iov && i < niov; i++) {
				iov[i].iov_base = (uint8_t *)map + (size_t)i * ZKA_LOADER_IOV_MAX;
				iov[i].iov_len = mapsize - (size_t)i * ZKA_LOADER_IOV_MAX;
				if (iov[i].iov_len > ZKA_LOADER_IOV_MAX)
					iov[i].iov_len = ZKA_LOADER_IOV_MAX;
			}
			/* pins the region's pages once (RLIMIT_MEMLOCK applies without
			 * CAP_IPC_LOCK); refused: plain reads, same data */
			fixed = iov && io_uring_register_buffers(&ring, iov, niov) == 0;
			free(iov);
		}
	}

	if (o->on_region) {
		int r = o->on_region(o->region_arg, map, mapsize, &in);
		if (r) {
			ret = r < 0 ? r : -EIO;
			snprintf(err, errlen, "%s: the region's consumer refused it: %s", path,
				 strerror(-ret));
			goto err;
		}
		region_given = 1;
	}
	for (int i = 0; i < nthr; i++) {
		if (pthread_create(&thr[i], NULL, hash_work, &L))
			break;
		nthr_started++;
	}
	if (!nthr_started) {
		ret = -EAGAIN;
		snprintf(err, errlen, "%s: cannot start a checksum thread", path);
		goto err;
	}

	/* READING: keep `depth` reads in flight */
	double t_read0 = now();
	used_ring = have_ring;
	uint64_t got = ZKA_PARAMS_HDR;
	double last_print = 0;
	int printed = 0;
	while (next < L.nch || inflight) {
		if (next < L.nch && !inflight &&
		    L.ch[next].off + L.ch[next].len > atomic_load(&L.pop_mark)) {
			/* nothing in flight and the next chunk's pages not in yet: wait for them */
			pthread_mutex_lock(&L.mu);
			while (L.ch[next].off + L.ch[next].len > atomic_load(&L.pop_mark))
				pthread_cond_wait(&L.popc, &L.mu);
			pthread_mutex_unlock(&L.mu);
		}
		if (!have_ring) { /* no io_uring: the same chunks, synchronously */
			struct chunk *c = &L.ch[next];
			while (c->done < c->len) {
				ssize_t n = pread(fd, L.base + c->off + c->done, c->len - c->done,
						  (off_t)(c->off + c->done));
				if (n <= 0) {
					ret = n < 0 ? -errno : -EBADMSG;
					snprintf(err, errlen, "%s: section %s: %s", path,
						 zka_params_section_name(c->sect),
						 n < 0 ? strerror(errno)
						       : "unexpected end of file");
					goto err;
				}
				c->done += (uint32_t)n;
			}
			got += c->len;
			landed(&L, next++);
		} else {
			while (next < L.nch && inflight < depth &&
			       L.ch[next].off + L.ch[next].len <= atomic_load(&L.pop_mark)) {
				struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
				if (!sqe)
					break;
				struct chunk *c = &L.ch[next];
				uint8_t *buf = L.base + c->off;
				if (fixed)
					io_uring_prep_read_fixed(
					    sqe, fd, buf, c->len, c->off,
					    (int)(c->off / ZKA_LOADER_IOV_MAX));
				else
					io_uring_prep_read(sqe, fd, buf, c->len, c->off);
				io_uring_sqe_set_data(sqe, (void *)(uintptr_t)next);
				next++;
				inflight++;
			}
			/* submit what is queued and wait for one completion in the same syscall */
			struct io_uring_cqe *cqe;
			int r = io_uring_submit_and_wait(&ring, 1);
			if (r == -EINTR || r == -EAGAIN)
				continue; /* the queued entries stay queued and go with the next
					     call */
			if (r < 0) {
				ret = r;
				snprintf(err, errlen, "%s: io_uring_submit_and_wait: %s", path,
					 strerror(-r));
				goto err;
			}
			if ((r = io_uring_peek_cqe(&ring, &cqe)) != 0)
				continue;
			/* reap every completion that is ready (no syscall for those) */
			do {
				uint32_t k = (uint32_t)(uintptr_t)io_uring_cqe_get_data(cqe);
				int res = cqe->res;
				io_uring_cqe_seen(&ring, cqe);
				inflight--;
				struct chunk *c = &L.ch[k];
				if (res == -EAGAIN || res == -EINTR ||
				    (res > 0 && c->done + (uint32_t)res < c->len)) {
					/* short or interrupted: read the rest again (IN_FLIGHT ->
					 * QUEUED) */
					if (res > 0)
						c->done += (uint32_t)res;
					struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
					if (!sqe) {
						ret = -EBUSY;
						snprintf(err, errlen, "%s: io_uring: no free entry",
							 path);
						goto err;
					}
					uint8_t *buf = L.base + c->off + c->done;
					if (fixed)
						io_uring_prep_read_fixed(
						    sqe, fd, buf, c->len - c->done,
						    c->off + c->done,
						    (int)(c->off / ZKA_LOADER_IOV_MAX));
					else
						io_uring_prep_read(sqe, fd, buf, c->len - c->done,
								   c->off + c->done);
					io_uring_sqe_set_data(sqe, (void *)(uintptr_t)k);
					inflight++;
					continue;
				}
				if (res <= 0) {
					ret = res < 0 ? res : -EBADMSG;
					snprintf(err, errlen, "%s: section %s: %s", path,
						 zka_params_section_name(c->sect),
						 res < 0 ? strerror(-res)
							 : "unexpected end of file");
					goto err;
				}
				c->done = c->len;
				got += c->len;
				landed(&L, k);
			} while (io_uring_peek_cqe(&ring, &cqe) == 0);
		}
		double t = now() - t0;
		if (o->progress && (o->progress > 0 || isatty(2)) && t > 1.0 &&
		    t - last_print > 0.25) {
			progress_line(path, got, in.total, t);
			last_print = t;
			printed = 1;
		}
	}

	/* VERIFYING: wait for the workers to hash the last sections (the populate threads are
	 * done: every chunk was read, so every piece was in) */
	double t_verify0 = now();
	for (int i = 0; i < npop_started; i++)
		pthread_join(pop_thr[i], NULL);
	npop_started = 0;
	pthread_mutex_lock(&L.mu);
	while (L.nsect_done < ZKA_PARAMS_NSECT)
		pthread_cond_wait(&L.fin, &L.mu);
	L.stop = 1; /* wakes the workers still waiting for work */
	pthread_cond_broadcast(&L.work);
	pthread_mutex_unlock(&L.mu);
	for (int i = 0; i < nthr_started; i++)
		pthread_join(thr[i], NULL);
	nthr_started = 0;
	if (printed) {
		progress_line(path, in.total, in.total, now() - t0);
		fputc('\n', stderr);
	}
	for (int s = 0; s < ZKA_PARAMS_NSECT; s++)
		if (L.sec[s].bad) {
			ret = -EBADMSG;
			snprintf(err, errlen, "%s: section %s: checksum mismatch (corrupt file)",
				 path, zka_params_section_name(s));
			goto err;
		}
	if (have_ring) {
		io_uring_queue_exit(&ring); /* unregisters the buffers */
		have_ring = 0;
	}
	close(fd);
	fd = -1;
	if ((ret = zka_params_from_map(map, mapsize, path, p, err, errlen)))
		goto err;
	double secs = now() - t0;
	if (o->shm) {
		zka_params_res res = {.from = {.size = (uint64_t)sb.st_size,
					       .mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 +
							   sb.st_mtim.tv_nsec,
					       .dev = (uint64_t)sb.st_dev,
					       .ino = (uint64_t)sb.st_ino},
				      .seconds = secs,
				      .direct = (uint32_t)direct,
				      .depth = used_ring ? depth : 1};
		struct timespec rt;
		clock_gettime(CLOCK_REALTIME, &rt);
		res.loaded_at_ns = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
		if (!realpath(path, res.path))
			snprintf(res.path, sizeof res.path, "%s", path);
		zka_params_set_residency(map, &res);
		if (o->shm[0])
			snprintf(final, sizeof final, "%s", o->shm);
		else
			snprintf(final, sizeof final, "/zka-key.%016llx",
				 (unsigned long long)in.id);
		char a[96], b[96];
		snprintf(a, sizeof a, "/dev/shm%s", tmp);
		snprintf(b, sizeof b, "/dev/shm%s", final);
		if (rename(a, b)) { /* DONE: the commit (invariant 4) */
			ret = -errno;
			snprintf(err, errlen, "%s: cannot name the region %s: %s", path, final,
				 strerror(errno));
			memset(p, 0, sizeof *p);
			goto err;
		}
		tmp[0] = 0;
	}
	if (!o->dst)
		mprotect(map, mapsize, PROT_READ);
	if (st) {
		st->seconds = secs;
		st->t_setup = t_read0 - t0;
		st->t_read = t_verify0 - t_read0;
		st->t_verify = now() - t_verify0;
		st->bytes = in.total;
		st->direct = direct;
		st->fixed = fixed;
		st->populated = populate;
		st->depth = used_ring ? depth : 1;
		st->chunk = (unsigned)chunk;
		snprintf(st->shm, sizeof st->shm, "%s", final);
	}
	if (o->dst)
		p->map = NULL, p->size = 0; /* the caller's mapping: not ours to unmap */
	free(hdr);
	free(L.ch);
	free(L.pop_done);
	for (int s = 0; s < ZKA_PARAMS_NSECT; s++)
		XXH3_freeState(L.sec[s].st);
	pthread_mutex_destroy(&L.mu);
	pthread_cond_destroy(&L.work);
	pthread_cond_destroy(&L.fin);
	pthread_cond_destroy(&L.popc);
	return 0;
err:
	if (nthr_started || npop_started) {
		pthread_mutex_lock(&L.mu);
		L.stop = 1; /* the populate threads take no further piece */
		pthread_cond_broadcast(&L.work);
		pthread_mutex_unlock(&L.mu);
		for (int i = 0; i < nthr_started; i++)
			pthread_join(thr[i], NULL);
		for (int i = 0; i < npop_started; i++) /* before the region is unmapped */
			pthread_join(pop_thr[i], NULL);
	}
	if (have_ring) {
		/* barrier: reads still in flight write into the region; drain them before it is
		 * unmapped (queue_exit alone does not wait for them) */
		struct io_uring_cqe *cqe;
		while (inflight && io_uring_wait_cqe(&ring, &cqe) == 0) {
			io_uring_cqe_seen(&ring, cqe);
			inflight--;
		}
		io_uring_queue_exit(&ring);
	}
	if (fd >= 0)
		close(fd);
	if (region_given && o->on_region_drop)
		o->on_region_drop(o->region_arg); /* before the memory goes away */
	if (map != MAP_FAILED && !o->dst)
		munmap(map, mapsize);
	if (tmp[0])
		shm_unlink(tmp);
	free(hdr);
	free(L.ch);
	free(L.pop_done);
	for (int s = 0; s < ZKA_PARAMS_NSECT; s++)
		XXH3_freeState(L.sec[s].st);
	pthread_mutex_destroy(&L.mu);
	pthread_cond_destroy(&L.work);
	pthread_cond_destroy(&L.fin);
	pthread_cond_destroy(&L.popc);
	memset(p, 0, sizeof *p);
	return ret;
}
