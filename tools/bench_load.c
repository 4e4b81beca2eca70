/* bench_load.c - `zkarena bench load FILE.zka`: the ways to read a key into one params region,
 * cold and warm, in one table: the loader (io_uring + O_DIRECT into registered buffers, its
 * checksums included) at several depths, io_uring through the page cache, read(2), and
 * mmap(2) + memcpy. Cold for page-cache methods: the file's pages dropped first with
 * posix_fadvise(DONTNEED) (and /proc/sys/vm/drop_caches where permitted), the share still
 * cached measured with mincore(2) and printed. */
#include "synth/zka_keys.h"
#include "synth/zka_loader.h"
#include "tools/cli.h"
#include "tools/util.h"
#include "zk/opt.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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

/* The file system type and the device that hold path. */
static void where(const char *path, char *fs, size_t fsn, char *dev, size_t devn)
{
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
	char note[96];
	double best, sum;
	int n;
};

static void add(struct row *r, double s)
{
	if (r->n == 0 || s < r->best)
		r->best = s;
	r->sum += s;
	r->n++;
}

int zka_bench_load(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"reps", required_argument, 0, 'r'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	int reps = 3, opt;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			if (zka_opt_int("zkarena bench load", "--reps", optarg, 1, 100, &reps))
				return 2;
			break;
		case 'h':
			printf(
			    "usage: zkarena bench load FILE.zka|FILE.zkey [--reps N]\n\n"
			    "Reads FILE into one params region in every way, cold and warm, N "
			    "times each\n"
			    "(best and mean GB/s): the loader (io_uring, O_DIRECT, fixed buffers,\n"
			    "checksums) at depths 1-32, io_uring through the page cache, read(2), "
			    "and\n"
			    "mmap(2) + memcpy. Names the file system and the device.\n");
			return 0;
		default:
			return 2;
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "zkarena bench load: expected FILE.zka (see --help)\n");
		return 2;
	}
	const char *path = argv[optind];
	char err[1024], fs[64], dev[384];
	zka_params p;
	zka_loader_stats st;
	zka_keys_info ki;
	size_t l = strlen(path);
	if (l < 4 || strcmp(path + l - 4, ".zka")) {
		/* a .zkey: its .zka in the cache (imported now when missing) */
		zka_keys_opts ko = {.no_resident = 1, .progress = -1};
		if (zka_keys_open(path, &ko, &p, &ki, err, sizeof err)) {
			fprintf(stderr, "zkarena bench load: %s\n", err);
			return 2;
		}
		zka_params_close(&p);
		if (!ki.file[0]) {
			fprintf(stderr, "zkarena bench load: %s: no cached .zka to read\n", path);
			return 2;
		}
		printf("%s: its cached .zka is %s\n", path, ki.file);
		path = ki.file;
	}
	/* the size, and a first check that the file loads at all */
	zka_loader_opts first = {.buffered = 1, .quiet = 1};
	if (zka_loader_load(path, &first, &p, &st, err, sizeof err)) {
		fprintf(stderr, "zkarena bench load: %s\n", err);
		return 2;
	}
	size_t size = p.size;
	zka_params_close(&p);
	char shm[64];
	snprintf(shm, sizeof shm, "/zka-bench.%d", (int)getpid());
	int fd = shm_open(shm, O_RDWR | O_CREAT | O_EXCL, 0600);
	uint8_t *dst = MAP_FAILED;
	if (fd >= 0 && posix_fallocate(fd, 0, (off_t)size) == 0)
		dst = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fd >= 0)
		close(fd);
	shm_unlink(shm); /* the mapping stays: one region for every method */
	if (dst == MAP_FAILED) {
		fprintf(stderr, "zkarena bench load: cannot make a %zu-byte region in /dev/shm\n",
			size);
		return 1;
	}
	where(path, fs, sizeof fs, dev, sizeof dev);
	static const unsigned depths[] = {1, 2, 4, 8, 16, 32};
	enum { ND = sizeof depths / sizeof depths[0] };
	struct row rows[ND + 6];
	int nr = 0;
	memset(rows, 0, sizeof rows);
	for (int i = 0; i < ND; i++) {
		rows[nr].method = "io_uring O_DIRECT (loader)";
		rows[nr].cache = "cold";
		snprintf(rows[nr].note, sizeof rows[nr].note, "depth %u, %u MiB reads", depths[i],
			 ZKA_LOADER_CHUNK >> 20);
		nr++;
	}
	int r_ur_warm = nr, r_rd_cold = nr + 1, r_rd_warm = nr + 2, r_mm_cold = nr + 3,
	    r_mm_warm = nr + 4;
	rows[r_ur_warm] = (struct row){.method = "io_uring buffered (loader)", .cache = "warm"};
	rows[r_rd_cold] = (struct row){.method = "read(2), 8 MiB", .cache = "cold"};
	rows[r_rd_warm] = (struct row){.method = "read(2), 8 MiB", .cache = "warm"};
	rows[r_mm_cold] = (struct row){.method = "mmap + memcpy", .cache = "cold"};
	rows[r_mm_warm] = (struct row){.method = "mmap + memcpy", .cache = "warm"};
	nr += 5;
	double cached_max = 0;
	int direct = 1, fixed = 1;
	for (int rep = 0; rep < reps; rep++) {
		for (int i = 0; i < ND; i++) {
			zka_loader_opts o = {
			    .depth = depths[i], .dst = dst, .dst_size = size, .quiet = 1};
			double t = zka_now();
			if (zka_loader_load(path, &o, &p, &st, err, sizeof err)) {
				fprintf(stderr, "zkarena bench load: %s\n", err);
				return 1;
			}
			add(&rows[i], zka_now() - t);
			direct &= st.direct;
			fixed &= st.fixed;
		}
		double c = drop_cache(path, size);
		cached_max = c > cached_max ? c : cached_max;
		double t = zka_now();
		if (by_read(path, dst, size))
			return 1;
		add(&rows[r_rd_cold], zka_now() - t);
		t = zka_now();
		by_read(path, dst, size);
		add(&rows[r_rd_warm], zka_now() - t);
		c = drop_cache(path, size);
		cached_max = c > cached_max ? c : cached_max;
		t = zka_now();
		if (by_mmap(path, dst, size))
			return 1;
		add(&rows[r_mm_cold], zka_now() - t);
		t = zka_now();
		by_mmap(path, dst, size);
		add(&rows[r_mm_warm], zka_now() - t);
		zka_loader_opts o = {.buffered = 1, .dst = dst, .dst_size = size, .quiet = 1};
		t = zka_now();
		zka_loader_load(path, &o, &p, &st, err, sizeof err);
		add(&rows[r_ur_warm], zka_now() - t);
	}
	snprintf(rows[r_rd_cold].note, sizeof rows[0].note,
		 "after fadvise DONTNEED: <= %.0f%% cached", 100 * cached_max);
	memcpy(rows[r_mm_cold].note, rows[r_rd_cold].note, sizeof rows[0].note);
	snprintf(rows[r_ur_warm].note, sizeof rows[0].note, "depth %u, checksums",
		 ZKA_LOADER_DEPTH);
	printf("zkarena bench load: %s, %.1f MB, file system %s, device %s\n", path,
	       1e-6 * (double)size, fs, dev);
	if (!direct)
		printf("(the file system refused O_DIRECT: the loader rows read through the page "
		       "cache)\n");
	if (!fixed)
		printf("(buffer registration refused: the loader rows used plain reads)\n");
	printf("%-28s %-5s %9s %9s %9s  %s\n", "method", "cache", "best GB/s", "mean GB/s",
	       "best s", "notes");
	for (int i = 0; i < nr; i++)
		printf("%-28s %-5s %9.2f %9.2f %9.4f  %s\n", rows[i].method, rows[i].cache,
		       1e-9 * (double)size / rows[i].best,
		       1e-9 * (double)size / (rows[i].sum / rows[i].n), rows[i].best, rows[i].note);
	munmap(dst, size);
	return 0;
}
