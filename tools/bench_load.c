/* bench_load.c - `zkarena bench load FILE.zka`: the ways to read a key into one params region,
 * cold and warm, in one table: the loader (io_uring + O_DIRECT into registered buffers, its
 * checksums included) at several depths, io_uring through the page cache, read(2), and
 * mmap(2) + memcpy. Cold for page-cache methods: the file's pages dropped first with
 * posix_fadvise(DONTNEED) (and /proc/sys/vm/drop_caches where permitted), the share still
 * cached measured with mincore(2) and printed. */
#include "keys/zka_keys.h"
#include "keys/zka_loader.h"
#include "tools/cli.h"
#include "tools/util.h"
#include "zk/opt.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Drops path's pages from the page cache; returns the share still cached (0..1). */
static double drop_cache(const char *path, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	fdatasync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (geteuid() == 0) {
		int d = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
		if (d >= 0) {
			sync();
			if (write(d, "1", 1) !=
			    1) { /* not permitted in this container: fadvise only */
			}
			close(d);
		}
	}
	double share = 1;
	void *m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (m != MAP_FAILED) {
		size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = (size - 1) / pg + 1, in = 0;
		unsigned char *v = malloc(n);
		if (v && mincore(m, size, v) == 0) {
			for (size_t i = 0; i < n; i++)
				in += v[i] & 1;
			share = (double)in / (double)n;
		}
		free(v);
		munmap(m, size);
	}
	close(fd);
	return share;
}

static int by_read(const char *path, uint8_t *dst, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t done = 0;
	while (done < size) {
		size_t n = size - done > (8u << 20) ? (8u << 20) : size - done;
		ssize_t r = read(fd, dst + done, n);
		if (r <= 0) {
			close(fd);
			return r < 0 ? -errno : -EIO;
		}
		done += (size_t)r;
	}
	close(fd);
	return 0;
}

static int by_mmap(const char *path, uint8_t *dst, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	void *m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -errno;
	madvise(m, size, MADV_SEQUENTIAL);
	memcpy(dst, m, size);
	munmap(m, size);
	return 0;
}

/* The reference for "what O_DIRECT reads of this file reach at depth": `threads` threads
 * each pread(2) O_DIRECT chunks of `chunk` bytes taken in file order from one counter, into
 * the same region, nothing else (no io_uring, no registration, no checksums, no validation). */
struct dref {
	int fd;
	uint8_t *dst;
	size_t size, chunk;
	_Atomic size_t next;
	_Atomic int bad;
};

static void *dref_main(void *arg)
{
	struct dref *d = arg;
	for (;;) {
		size_t off = atomic_fetch_add(&d->next, d->chunk);
		if (off >= d->size || atomic_load(&d->bad))
			return NULL;
		size_t want = d->size - off < d->chunk ? d->size - off : d->chunk;
		/* O_DIRECT wants whole blocks: the file's last chunk is read rounded up (a short
		 * read at the end of the file) */
		size_t len = (want + 4095) & ~(size_t)4095;
		ssize_t r = pread(d->fd, d->dst + off, len, (off_t)off);
		if (r < (ssize_t)want)
			atomic_store(&d->bad, r < 0 ? errno : EIO);
	}
}

static int by_direct(const char *path, uint8_t *dst, size_t size, size_t mapped, int threads,
		     size_t chunk)
{
	struct dref d = {.dst = dst, .size = size, .chunk = chunk};
	if (((size + 4095) & ~(size_t)4095) > mapped)
		return -EINVAL;
	d.fd = open(path, O_RDONLY | O_CLOEXEC | O_DIRECT);
	if (d.fd < 0)
		return -errno;
	pthread_t th[64];
	int n = 0;
	for (; n < threads && n < 64; n++)
		if (pthread_create(&th[n], NULL, dref_main, &d))
			break;
	if (!n)
		dref_main(&d);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	close(d.fd);
	return -atomic_load(&d.bad);
}

/* One line of the block queue's settings for the device dev_t mm ("254:0"), or "". */
static void queue_line(const char *mm, char *out, size_t outn)
{
	static const char *const keys[] = {"max_sectors_kb", "read_ahead_kb", "nr_requests",
					   "scheduler"};
	size_t l = 0;
	out[0] = 0;
	for (int i = 0; i < 4; i++) {
		char p[160], v[128] = "";
		snprintf(p, sizeof p, "/sys/dev/block/%s/queue/%s", mm, keys[i]);
		FILE *f = fopen(p, "r");
		if (!f) { /* a partition: its disk's queue */
			snprintf(p, sizeof p, "/sys/dev/block/%s/../queue/%s", mm, keys[i]);
			f = fopen(p, "r");
		}
		if (!f)
			continue;
		if (fgets(v, sizeof v, f))
			v[strcspn(v, "\n")] = 0;
		fclose(f);
		l += (size_t)snprintf(out + l, l < outn ? outn - l : 0, "%s%s %s", l ? ", " : "",
				      keys[i], v);
		if (l >= outn)
			break;
	}
}

/* The file system type and the device that hold path. */
static void where(const char *path, char *fs, size_t fsn, char *dev, size_t devn, char *q,
		  size_t qn)
{
	q[0] = 0;
	struct stat sb;
	struct statfs sf;
	snprintf(fs, fsn, "?");
	snprintf(dev, devn, "?");
	if (stat(path, &sb) || statfs(path, &sf))
		return;
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096], want[32];
	snprintf(want, sizeof want, "%u:%u", major(sb.st_dev), minor(sb.st_dev));
	while (f && fgets(line, sizeof line, f)) {
		char id[32], mm[32], *sep = strstr(line, " - ");
		if (sscanf(line, "%31s %*s %31s", id, mm) != 2 || strcmp(mm, want) || !sep)
			continue;
		char type[64], src[256];
		if (sscanf(sep + 3, "%63s %255s", type, src) == 2) {
			snprintf(fs, fsn, "%s", type);
			snprintf(dev, devn, "%s (%s)", src, want);
		}
		break;
	}
	if (f)
		fclose(f);
	char p[128], model[128] = "", rot[8] = "";
	queue_line(want, q, qn);
	snprintf(p, sizeof p, "/sys/dev/block/%s/device/model", want);
	FILE *m = fopen(p, "r");
	if (m) {
		if (fgets(model, sizeof model, m))
			model[strcspn(model, "\n")] = 0;
		fclose(m);
	}
	snprintf(p, sizeof p, "/sys/dev/block/%s/queue/rotational", want);
	if ((m = fopen(p, "r"))) {
		if (fgets(rot, sizeof rot, m))
			rot[strcspn(rot, "\n")] = 0;
		fclose(m);
	}
	size_t l = strlen(dev);
	snprintf(dev + l, devn - l, "%s%s%s", model[0] ? ", " : "", model,
		 rot[0] ? (rot[0] == '1' ? ", rotational" : ", non-rotational") : "");
}

struct row {
	const char *method, *cache;
	char note[160];
	double best, sum, setup, read, verify; /* setup/read/verify: the loader's phase sums */
	int n;
};

static void add(struct row *r, double s)
{
	if (r->n == 0 || s < r->best)
		r->best = s;
	r->sum += s;
	r->n++;
}

/* One timed loader run into row r, its phases added to the row's sums; 0, or 1 with the
 * loader's error printed. */
static int timed_load(const char *path, const zka_loader_opts *o, zka_params *p,
		      zka_loader_stats *st, struct row *r)
{
	char err[1024];
	double t = zka_now();
	if (zka_loader_load(path, o, p, st, err, sizeof err)) {
		fprintf(stderr, "zkarena bench load: %s\n", err);
		return 1;
	}
	add(r, zka_now() - t);
	r->setup += st->t_setup;
	r->read += st->t_read;
	r->verify += st->t_verify;
	return 0;
}

/* One row's method: the loader (depth, chunk), the O_DIRECT reference (threads, chunk), or
 * one of the page-cache methods. */
enum { M_LOADER, M_DIRECT, M_READ, M_MMAP, M_BUFFERED, M_FRESH, M_FRESH_SHM };
struct method {
	int kind;
	unsigned depth, chunk; /* M_LOADER: reads in flight; M_DIRECT: threads; M_FRESH*: the
				  loader's way (0: populated ahead, 1: fixed buffers) */
};

/* The methods, in the order of the first repetition. */
static const struct method ms[] = {{M_LOADER, 1, 4u << 20},
				   {M_LOADER, 2, 4u << 20},
				   {M_LOADER, 4, 4u << 20},
				   {M_LOADER, 8, 4u << 20},
				   {M_LOADER, 16, 4u << 20},
				   {M_LOADER, 32, 4u << 20},
				   {M_LOADER, 8, 1u << 20},
				   {M_LOADER, 8, 16u << 20},
				   {M_LOADER, 32, 16u << 20},
				   {M_DIRECT, 8, 4u << 20},
				   {M_DIRECT, 32, 4u << 20},
				   {M_DIRECT, 8, 16u << 20},
				   {M_DIRECT, 32, 16u << 20},
				   {M_FRESH, 0, 0},
				   {M_FRESH, 1, 0},
				   {M_FRESH_SHM, 0, 0},
				   {M_FRESH_SHM, 1, 0},
				   {M_BUFFERED, 0, 0},
				   {M_READ, 0, 0},
				   {M_MMAP, 0, 0}};
enum { NM = sizeof ms / sizeof ms[0] };
#define MIB (1u << 20)

/* One run of the benchmark: the file, the region every method reads into, the rows. */
struct bload {
	const char *path;
	size_t size, mapped;
	uint8_t *dst;
	zka_params p;
	zka_loader_stats st;
	zka_keys_info ki;
	int direct, fixed; /* every loader run read with O_DIRECT, into fixed buffers */
	double cached_max; /* the largest share still cached after a drop */
	/* rows: one per method, the page-cache methods two (cold, warm) */
	struct row rows[NM + 2];
	int row_of[NM], nr, r_default;
	char fs[64], dev[384], queue[256];
};

/* Parses the options: -1 to go on (*reps set), else the exit status (help, bad usage). */
static int bl_options(int argc, char **argv, int *reps)
{
	static const struct option opts[] = {
	    {"reps", required_argument, 0, 'r'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	int opt;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			if (zka_opt_int("zkarena bench load", "--reps", optarg, 1, 100, reps))
				return 2;
			break;
		case 'h':
			printf(
			    "usage: zkarena bench load FILE.zka|FILE.zkey [--reps N]\n\n"
			    "Reads FILE into one params region in every way, N times each (best "
			    "and mean\n"
			    "GB/s; the order of the methods rotates from one repetition to the "
			    "next):\n"
			    "  the loader (io_uring, O_DIRECT, fixed buffers, checksums, the "
			    "image's\n"
			    "  validation) at depths 1-32 with 4 MiB reads, and at 1 and 16 MiB;\n"
			    "  the O_DIRECT reference: threads doing pread(2) O_DIRECT of the same "
			    "file and\n"
			    "  nothing else (what the storage gives at depth);\n"
			    "  the loader into a region it makes (as prove and params load do: "
			    "new pages),\n"
			    "  with fixed buffers and populated ahead of the reads (the default "
			    "from 8 CPUs);\n"
			    "  io_uring through the page cache (warm), read(2) and mmap(2) + "
			    "memcpy, cold\n"
			    "  (the file's pages dropped first) and warm.\n"
			    "Names the file system, the device and its queue settings, gives the "
			    "loader's\n"
			    "phases (setup, reads, verification), and ends with the loader at its "
			    "defaults\n"
			    "against the best O_DIRECT reference and against cold read(2).\n");
			return 0;
		default:
			return zka_cli_bad_option(argc, argv);
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "zkarena bench load: expected FILE.zka (see --help)\n");
		return 2;
	}
	return -1;
}

/* The file to read (a .zkey's cached .zka, imported now when missing), its size, and the one
 * shm region every method reads into, faulted in once. -1 to go on, else the exit status. */
static int bl_prepare(struct bload *b, const char *path)
{
	char err[1024];
	size_t l = strlen(path);
	b->path = path;
	if (l < 4 || strcmp(path + l - 4, ".zka")) {
		zka_keys_opts ko = {.no_resident = 1, .progress = -1};
		if (zka_keys_open(path, &ko, &b->p, &b->ki, err, sizeof err)) {
			fprintf(stderr, "zkarena bench load: %s\n", err);
			return 2;
		}
		zka_params_close(&b->p);
		if (!b->ki.file[0]) {
			fprintf(stderr, "zkarena bench load: %s: no cached .zka to read\n", path);
			return 2;
		}
		printf("%s: its cached .zka is %s\n", path, b->ki.file);
		b->path = b->ki.file;
	}
	/* the size, and a first check that the file loads at all */
	zka_loader_opts first = {.buffered = 1, .quiet = 1};
	if (zka_loader_load(b->path, &first, &b->p, &b->st, err, sizeof err)) {
		fprintf(stderr, "zkarena bench load: %s\n", err);
		return 2;
	}
	b->size = b->p.size;
	b->mapped = (b->size + 4095) & ~(size_t)4095;
	zka_params_close(&b->p);
	char shm[64];
	snprintf(shm, sizeof shm, "/zka-bench.%d", (int)getpid());
	int fd = shm_open(shm, O_RDWR | O_CREAT | O_EXCL, 0600);
	b->dst = MAP_FAILED;
	if (fd >= 0 && posix_fallocate(fd, 0, (off_t)b->mapped) == 0)
		b->dst = mmap(NULL, b->mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fd >= 0)
		close(fd);
	shm_unlink(shm); /* the mapping stays: one region for every method */
	if (b->dst == MAP_FAILED) {
		fprintf(stderr, "zkarena bench load: cannot make a %zu-byte region in /dev/shm\n",
			b->size);
		return 1;
	}
	/* faulted in once here, so that no method's first run pays for the region's first touch */
	memset(b->dst, 0, b->mapped);
	where(b->path, b->fs, sizeof b->fs, b->dev, sizeof b->dev, b->queue, sizeof b->queue);
	return -1;
}

/* The rows' method and cache columns, and which row is the loader at its defaults. */
static void bl_rows(struct bload *b)
{
	memset(b->rows, 0, sizeof b->rows);
	b->nr = 0;
	b->r_default = -1;
	for (int i = 0; i < NM; i++) {
		struct row *r = &b->rows[b->row_of[i] = b->nr++];
		switch (ms[i].kind) {
		case M_LOADER:
			r->method = "io_uring O_DIRECT (loader)";
			r->cache = "cold";
			if (ms[i].depth == ZKA_LOADER_DEPTH && ms[i].chunk == ZKA_LOADER_CHUNK)
				b->r_default = b->row_of[i];
			break;
		case M_DIRECT:
			r->method = "pread O_DIRECT (reference)";
			r->cache = "cold";
			snprintf(r->note, sizeof r->note, "%u threads, %u MiB reads, nothing else",
				 ms[i].depth, ms[i].chunk / MIB);
			break;
		case M_FRESH:
		case M_FRESH_SHM:
			r->method = ms[i].kind == M_FRESH ? "loader, new private region"
							  : "loader, new shm region";
			r->cache = "cold";
			break;
		case M_BUFFERED:
			r->method = "io_uring buffered (loader)";
			r->cache = "warm";
			snprintf(r->note, sizeof r->note, "depth %u, checksums", ZKA_LOADER_DEPTH);
			break;
		case M_READ:
		case M_MMAP:
			r->method = ms[i].kind == M_READ ? "read(2), 8 MiB" : "mmap + memcpy";
			r->cache = "cold";
			b->rows[b->nr].method = r->method;
			b->rows[b->nr++].cache = "warm";
			break;
		}
	}
}

/* One timed run of method i into its row(s). 0, or -1 after saying what failed. */
static int bl_run(struct bload *b, int i)
{
	const char *path = b->path;
	struct row *r = &b->rows[b->row_of[i]];
	char err[1024];
	double t = zka_now(), c;
	switch (ms[i].kind) {
	case M_LOADER: {
		zka_loader_opts o = {.depth = ms[i].depth,
				     .chunk = ms[i].chunk,
				     .dst = b->dst,
				     .dst_size = b->size,
				     .quiet = 1};
		if (timed_load(path, &o, &b->p, &b->st, r))
			return -1;
		b->direct &= b->st.direct;
		b->fixed &= b->st.fixed;
		break;
	}
	case M_FRESH:
	case M_FRESH_SHM: {
		/* what prove (a private region) and params load (shm) see: the loader makes the
		 * region, so its pages are new */
		char nm[64];
		snprintf(nm, sizeof nm, "/zka-bench-fresh.%d", (int)getpid());
		zka_loader_opts o = {.populate = ms[i].depth ? -1 : 1,
				     .shm = ms[i].kind == M_FRESH_SHM ? nm : NULL,
				     .quiet = 1};
		if (timed_load(path, &o, &b->p, &b->st, r))
			return -1;
		zka_params_close(&b->p);
		if (o.shm)
			shm_unlink(nm);
		break;
	}
	case M_DIRECT: {
		int e = by_direct(path, b->dst, b->size, b->mapped, (int)ms[i].depth, ms[i].chunk);
		if (e) {
			fprintf(stderr, "zkarena bench load: %s: O_DIRECT pread: %s\n", path,
				strerror(-e));
			return -1;
		}
		add(r, zka_now() - t);
		break;
	}
	case M_BUFFERED: {
		by_read(path, b->dst, b->size); /* warm: the file in the page cache */
		zka_loader_opts o = {.buffered = 1, .dst = b->dst, .dst_size = b->size, .quiet = 1};
		t = zka_now();
		if (zka_loader_load(path, &o, &b->p, &b->st, err, sizeof err)) {
			fprintf(stderr, "zkarena bench load: %s\n", err);
			return -1;
		}
		add(r, zka_now() - t);
		break;
	}
	case M_READ:
	case M_MMAP:
		c = drop_cache(path, b->size);
		b->cached_max = c > b->cached_max ? c : b->cached_max;
		for (int warm = 0; warm < 2; warm++) {
			t = zka_now();
			int e = ms[i].kind == M_READ ? by_read(path, b->dst, b->size)
						     : by_mmap(path, b->dst, b->size);
			if (e) {
				fprintf(stderr, "zkarena bench load: %s: %s\n", path, strerror(-e));
				return -1;
			}
			add(r + warm, zka_now() - t);
		}
		break;
	}
	return 0;
}

/* The notes that need the runs' means (the loader's phases, the cache left after drops). */
static void bl_notes(struct bload *b)
{
	for (int i = 0; i < NM; i++) {
		struct row *r = &b->rows[b->row_of[i]];
		if (ms[i].kind == M_LOADER)
			snprintf(r->note, sizeof r->note,
				 "depth %u, %u MiB reads; mean setup %.3f s, reads %.3f s, "
				 "verify %.3f s",
				 ms[i].depth, ms[i].chunk / MIB, r->setup / r->n, r->read / r->n,
				 r->verify / r->n);
		if (ms[i].kind == M_FRESH || ms[i].kind == M_FRESH_SHM)
			snprintf(r->note, sizeof r->note,
				 "%s; mean setup %.3f s, reads %.3f s, verify %.3f s",
				 ms[i].depth ? "fixed buffers (registration faults the pages)"
					     : "pages populated ahead, plain reads",
				 r->setup / r->n, r->read / r->n, r->verify / r->n);
		if (ms[i].kind == M_READ || ms[i].kind == M_MMAP)
			snprintf(r->note, sizeof r->note,
				 "after fadvise DONTNEED: <= %.0f%% cached", 100 * b->cached_max);
	}
}

/* The table, and the loader at its defaults against the best O_DIRECT reference and cold
 * read(2). */
static void bl_report(const struct bload *b)
{
	size_t size = b->size;
	printf("zkarena bench load: %s, %.1f MB, file system %s, device %s\n", b->path,
	       1e-6 * (double)size, b->fs, b->dev);
	if (b->queue[0])
		printf("block queue: %s\n", b->queue);
	if (!b->direct)
		printf("(the file system refused O_DIRECT: the loader rows read through the page "
		       "cache)\n");
	if (!b->fixed)
		printf("(buffer registration refused: the loader rows used plain reads)\n");
	printf("%-28s %-5s %9s %9s %9s  %s\n", "method", "cache", "best GB/s", "mean GB/s",
	       "best s", "notes");
	double best_ref = 0, read_cold = 0;
	for (int i = 0; i < b->nr; i++) {
		const struct row *r = &b->rows[i];
		double gb = 1e-9 * (double)size / r->best;
		printf("%-28s %-5s %9.2f %9.2f %9.4f  %s\n", r->method, r->cache, gb,
		       1e-9 * (double)size / (r->sum / r->n), r->best, r->note);
		if (!strcmp(r->method, "pread O_DIRECT (reference)") && gb > best_ref)
			best_ref = gb;
		if (!strcmp(r->method, "read(2), 8 MiB") && !strcmp(r->cache, "cold"))
			read_cold = gb;
	}
	if (b->r_default >= 0 && best_ref > 0 && read_cold > 0) {
		double gb = 1e-9 * (double)size / b->rows[b->r_default].best;
		printf("loader at its defaults (depth %u, %u MiB): %.2f GB/s = %.0f%% of the best "
		       "O_DIRECT reference (%.2f GB/s), %.2fx cold read(2) (%.2f GB/s)\n",
		       ZKA_LOADER_DEPTH, ZKA_LOADER_CHUNK / MIB, gb, 100 * gb / best_ref, best_ref,
		       gb / read_cold, read_cold);
	}
}

int zka_bench_load(int argc, char **argv)
{
	static struct bload b0;
	struct bload *b = &b0;
	int reps = 3, status = bl_options(argc, argv, &reps);
	if (status >= 0)
		return status;
	*b = (struct bload){.direct = 1, .fixed = 1};
	if ((status = bl_prepare(b, argv[optind])) >= 0)
		return status;
	bl_rows(b);
	status = 1;
	for (int rep = 0; rep < reps; rep++)
		for (int j = 0; j < NM; j++)
			if (bl_run(b, (j + rep) % NM)) /* rotated: no method always first or last */
				goto err;
	bl_notes(b);
	bl_report(b);
	status = 0;
err:
	munmap(b->dst, b->mapped);
	return status;
}
