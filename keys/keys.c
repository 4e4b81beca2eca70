/* keys.c - see zka_keys.h. */
#include "keys/zka_keys.h"

#include "zk/par.h"
#include "zk/r1cs.h"
#include "zk/zkey.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fid_of(const struct stat *sb, zka_file_id *f)
{
	memset(f, 0, sizeof *f);
	f->size = (uint64_t)sb->st_size;
	f->mtime_ns = (int64_t)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec;
	f->dev = (uint64_t)sb->st_dev;
	f->ino = (uint64_t)sb->st_ino;
}

static int same_file(const zka_file_id *a, const zka_file_id *b)
{
	return a->size == b->size && a->mtime_ns == b->mtime_ns && a->dev == b->dev &&
	       a->ino == b->ino && a->size;
}

/* XXH3 of a whole file (one sequential read). */
static int hash_file(const char *path, uint64_t *h, char *err, size_t errlen)
{
	zka_loader_count_open();
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	size_t bs = 8u << 20;
	uint8_t *buf = malloc(bs);
	XXH3_state_t *st = XXH3_createState();
	int ret = 0;
	if (!buf || !st) {
		ret = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	XXH3_64bits_reset(st);
	for (;;) {
		ssize_t n = read(fd, buf, bs);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		XXH3_64bits_update(st, buf, (size_t)n);
	}
	*h = XXH3_64bits_digest(st);
out:
	XXH3_freeState(st);
	free(buf);
	close(fd);
	return ret;
}

/* ---- point validation at import ---- */

struct vctx {
	const zka_curve *c;
	const uint8_t *p;
	size_t sz;
	int g2;
	_Atomic uint64_t bad; /* lowest failing index so far, UINT64_MAX: none */
	_Atomic int code;
	_Atomic uint64_t *done;
	uint64_t total;
	int progress;
	double t0;
	const char *path;
};

static void check_range(void *arg, size_t begin, size_t end, int tid)
{
	struct vctx *v = arg;
	const size_t step = 4096;
	double last = 0;
	for (size_t i = begin; i < end; i += step) {
		size_t e = i + step < end ? i + step : end;
		for (size_t k = i; k < e; k++) {
			if (k >= atomic_load(&v->bad))
				return; /* a lower index already failed */
			int r = v->g2 ? v->c->g2_check(v->p + k * v->sz)
				      : v->c->g1_check(v->p + k * v->sz);
			if (r) {
				uint64_t cur = atomic_load(&v->bad);
				while (k < cur && !atomic_compare_exchange_weak(&v->bad, &cur, k))
					;
				if (atomic_load(&v->bad) == k)
					atomic_store(&v->code, r);
				return;
			}
		}
		uint64_t d = atomic_fetch_add(v->done, e - i) + (e - i);
		double t = now() - v->t0;
		if (tid == 0 && v->progress && t > 1.0 && t - last > 0.25) {
			fprintf(stderr, "\rzkarena: importing %s: validating points %3d%% ",
				v->path, (int)(100.0 * (double)d / (double)v->total));
			last = t;
		}
	}
}

/* Checks every point of the image's sections 0..11; -EINVAL naming section and index. */
static int validate_points(const char *path, const void *image, const zka_params_info *in,
			   int threads, int progress, char *err, size_t errlen)
{
	static const int g2[12] = {0, 0, 1, 1, 0, 1, 0, 0, 0, 1, 0, 0};
	const zka_curve *c = in->curve;
	_Atomic uint64_t done = 0;
	uint64_t total = 0;
	for (int s = 0; s < 12; s++)
		total += in->len[s] / (g2[s] ? zka_g2_bytes(c) : zka_g1_bytes(c));
	int t = zka_par_threads(threads);
	double t0 = now();
	int show = progress > 0 || (progress < 0 && isatty(2));
	for (int s = 0; s < 12; s++) {
		size_t sz = g2[s] ? zka_g2_bytes(c) : zka_g1_bytes(c);
		uint64_t n = in->len[s] / sz;
		struct vctx v = {.c = c,
				 .p = (const uint8_t *)image + in->off[s],
				 .sz = sz,
				 .g2 = g2[s],
				 .bad = UINT64_MAX,
				 .done = &done,
				 .total = total,
				 .progress = show,
				 .t0 = t0,
				 .path = path};
		zka_par_for(n < 1024 ? 1 : t, n, check_range, &v);
		if (atomic_load(&v.bad) != UINT64_MAX) {
			if (show && now() - t0 > 1.0)
				fputc('\n', stderr);
			snprintf(err, errlen, "%s: section %s: point %llu %s", path,
				 zka_params_section_name(s),
				 (unsigned long long)atomic_load(&v.bad),
				 atomic_load(&v.code) == ZKA_ENOTINGROUP ? "is not in the subgroup"
									 : "is not on the curve");
			return -EINVAL;
		}
	}
	if (show && now() - t0 > 1.0)
		fprintf(stderr, "\rzkarena: importing %s: validating points 100%%\n", path);
	return 0;
}

/* ---- regions ---- */

struct region {
	char tmp[64]; /* a shm object under a temporary name, or "" (anonymous memory) */
	uint8_t *map;
	size_t size;
};

static int region_new(struct region *r, size_t size, int named, char *err, size_t errlen)
{
	static _Atomic unsigned serial;
	memset(r, 0, sizeof *r);
	r->size = size;
	if (!named) {
		void *m =
		    mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			snprintf(err, errlen, "cannot map %zu bytes: %s", size, strerror(errno));
			return -errno;
		}
		r->map = m;
		return 0;
	}
	snprintf(r->tmp, sizeof r->tmp, "/zka-load.%d.i%u", (int)getpid(),
		 atomic_fetch_add(&serial, 1));
	int fd = shm_open(r->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "shm_open %s: %s", r->tmp, strerror(errno));
		r->tmp[0] = 0;
		return -errno;
	}
	int e = posix_fallocate(fd, 0, (off_t)size);
	void *m = e ? MAP_FAILED : mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!e && m == MAP_FAILED)
		e = errno;
	close(fd);
	if (e) {
		shm_unlink(r->tmp);
		snprintf(err, errlen, "cannot make a region of %zu bytes in /dev/shm: %s", size,
			 strerror(e));
		return -e;
	}
	r->map = m;
	return 0;
}

static void region_drop(struct region *r)
{
	if (r->map)
		munmap(r->map, r->size);
	if (r->tmp[0])
		shm_unlink(r->tmp);
	memset(r, 0, sizeof *r);
}

/* Imports zkey (+ r1cs) into a new region (named: a tmp shm object). */
static int import_region(const char *zkey, const char *r1cs, int named, int threads, int progress,
			 struct region *rg, zka_file_id *kid, char *err, size_t errlen)
{
	struct stat sb;
	zka_file_id rid = {0};
	zka_pk pk;
	zka_r1cs cs;
	zka_params_plan pl;
	char why[400];
	int ret;
	if (stat(zkey, &sb)) {
		snprintf(err, errlen, "%s: %s", zkey, strerror(errno));
		return -errno;
	}
	fid_of(&sb, kid);
	if ((ret = hash_file(zkey, &kid->hash, err, errlen)))
		return ret;
	if (r1cs) {
		if (stat(r1cs, &sb)) {
			snprintf(err, errlen, "%s: %s", r1cs, strerror(errno));
			return -errno;
		}
		fid_of(&sb, &rid);
		if ((ret = hash_file(r1cs, &rid.hash, err, errlen)))
			return ret;
	}
	zka_loader_count_open();
	if ((ret = zka_params_read_files(zkey, r1cs, &pk, &cs, err, errlen)))
		return ret;
	const char *base = strrchr(zkey, '/');
	ret = zka_params_plan_new(&pl, &pk, r1cs ? &cs : NULL, kid, r1cs ? &rid : NULL,
				  base ? base + 1 : zkey, why, sizeof why);
	if (ret) {
		snprintf(err, errlen, "%s: %s", zkey, why);
		goto out;
	}
	if ((ret = region_new(rg, (size_t)pl.info.total, named, why, sizeof why))) {
		snprintf(err, errlen, "%s: %s", zkey, why);
		goto out;
	}
	zka_params_plan_fill(&pl, rg->map, threads);
	ret = validate_points(zkey, rg->map, &pl.info, threads, progress, err, errlen);
	if (ret)
		region_drop(rg);
out:
	zka_params_plan_free(&pl);
	zka_pk_free(&pk);
	zka_r1cs_free(&cs);
	return ret;
}

/* Writes the image to path atomically (temporary file in the same directory, then rename). */
static int write_file(const char *path, const void *img, size_t size, char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s.tmp%d", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
		return -errno;
	}
	size_t done = 0;
	while (done < size) {
		ssize_t n = write(fd, (const uint8_t *)img + done,
				  size - done > (1u << 30) ? (1u << 30) : size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			close(fd);
			unlink(tmp);
			snprintf(err, errlen, "%s: write: %s", path, strerror(e));
			return -e;
		}
		done += (size_t)n;
	}
	if (fsync(fd) || close(fd) || rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	return 0;
}

int zka_keys_import(const char *zkey, const char *r1cs, const char *out, int threads, int progress,
		    char *err, size_t errlen)
{
	struct region rg;
	zka_file_id kid;
	int ret = import_region(zkey, r1cs, 0, threads, progress, &rg, &kid, err, errlen);
	if (ret)
		return ret;
	ret = write_file(out, rg.map, rg.size, err, errlen);
	region_drop(&rg);
	return ret;
}

void zka_keys_cache_dir(char *out, size_t n)
{
	const char *e = getenv("ZKARENA_CACHE"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	if (e && *e)
		snprintf(out, n, "%s", e);
	else if (geteuid() == 0)
		snprintf(out, n, "/var/cache/zkarena");
	else if (x && *x)
		snprintf(out, n, "%s/zkarena", x);
	else
		snprintf(out, n, "%s/.cache/zkarena", h && *h ? h : "/tmp");
}

static int mkdirs(const char *dir)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s", dir);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			if (mkdir(p, 0755) && errno != EEXIST)
				return -errno;
			*s = '/';
		}
	return mkdir(p, 0755) && errno != EEXIST ? -errno : 0;
}

/* The cache file of a .zkey: "<name>-<hash of its identity and the circuit's>.zka". */
static void cache_path(const char *zkey, const zka_file_id *k, const zka_file_id *r, char *out,
		       size_t n)
{
	char dir[PATH_MAX / 2], name[96];
	zka_keys_cache_dir(dir, sizeof dir);
	zka_file_id ids[2] = {*k, r ? *r : (zka_file_id){0}};
	ids[0].hash = ids[1].hash = 0;
	const char *b = strrchr(zkey, '/');
	b = b ? b + 1 : zkey;
	size_t l = strlen(b);
	if (l > 5 && !strcmp(b + l - 5, ".zkey"))
		l -= 5;
	if (l > 60)
		l = 60;
	snprintf(name, sizeof name, "%.*s", (int)l, b);
	for (char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_' && *c != '.')
			*c = '_';
	snprintf(out, n, "%s/%s-%016llx.zka", dir, name,
		 (unsigned long long)XXH3_64bits(ids, sizeof ids));
}

static int file_is_zka(const char *path)
{
	size_t l = strlen(path);
	if (l > 4 && !strcmp(path + l - 4, ".zka"))
		return 1;
	if (l > 5 && !strcmp(path + l - 5, ".zkey"))
		return 0;
	char m[8] = {0};
	zka_loader_count_open();
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, m, 8) != 8)
			memset(m, 0, 8);
		close(fd);
	}
	return !memcmp(m, "ZKAPARM1", 8);
}

/* Publishes a freshly imported region: residency record, then the rename (the commit). */
static int region_publish(struct region *rg, const char *want, const char *path,
			  const zka_file_id *from, double secs, char name[64], char *err,
			  size_t errlen)
{
	zka_params_info in;
	char why[300];
	zka_params_header(rg->map, &in, why, sizeof why);
	zka_params_res res = {.from = *from, .seconds = secs};
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	res.loaded_at_ns = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
	if (!realpath(path, res.path))
		snprintf(res.path, sizeof res.path, "%s", path);
	zka_params_set_residency(rg->map, &res);
	if (want[0])
		snprintf(name, 64, "%s", want);
	else
		snprintf(name, 64, "/zka-key.%016llx", (unsigned long long)in.id);
	char a[96], b[96];
	snprintf(a, sizeof a, "/dev/shm%s", rg->tmp);
	snprintf(b, sizeof b, "/dev/shm%s", name);
	if (rename(a, b)) {
		snprintf(err, errlen, "%s: cannot name the region %s: %s", path, name,
			 strerror(errno));
		return -errno;
	}
	rg->tmp[0] = 0;
	return 0;
}

int zka_keys_open(const char *path, const zka_keys_opts *o, zka_params *p, zka_keys_info *ki,
		  char *err, size_t errlen)
{
	static const zka_keys_opts none = {0};
	zka_keys_info dummy;
	if (!o)
		o = &none;
	if (!ki)
		ki = &dummy;
	memset(ki, 0, sizeof *ki);
	memset(p, 0, sizeof *p);
	double t0 = now();
	int ret;
	char name[64];
	if (!o->no_resident && zka_keys_find_resident(path, o->r1cs, name) == 0 &&
	    zka_params_open(name, p, err, errlen) == 0) {
		ki->seconds = now() - t0;
		ki->resident = 1;
		snprintf(ki->shm, sizeof ki->shm, "%s", name);
		snprintf(ki->how, sizeof ki->how, "resident region %s", name);
		return 0;
	}
	zka_loader_opts lo = {.threads = o->threads,
			      .progress = o->progress,
			      .shm = o->shm,
			      .on_region = o->on_region,
			      .on_region_drop = o->on_region_drop,
			      .region_arg = o->region_arg};
	zka_loader_stats ls;
	if (file_is_zka(path)) {
		if (o->r1cs) {
			snprintf(err, errlen,
				 "%s: a .zka holds its circuit already (import it with --r1cs)",
				 path);
			return -EINVAL;
		}
		if ((ret = zka_loader_load(path, &lo, p, &ls, err, errlen)))
			return ret;
		ki->seconds = now() - t0;
		snprintf(ki->shm, sizeof ki->shm, "%s", ls.shm);
		snprintf(ki->file, sizeof ki->file, "%s", path);
		snprintf(ki->how, sizeof ki->how, "read %s: %.2f GB/s, %s, %s buffers, depth %u",
			 path, ls.seconds > 0 ? 1e-9 * (double)ls.bytes / ls.seconds : 0.0,
			 ls.direct ? "O_DIRECT" : "buffered", ls.fixed ? "fixed" : "plain",
			 ls.depth);
		return 0;
	}
	/* a .zkey: its cached .zka when one matches, else import it (and cache the result) */
	struct stat sb;
	zka_file_id kid, rid = {0};
	char cpath[PATH_MAX] = "", why[600] = "";
	if (stat(path, &sb)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	fid_of(&sb, &kid);
	if (o->r1cs) {
		if (stat(o->r1cs, &sb)) {
			snprintf(err, errlen, "%s: %s", o->r1cs, strerror(errno));
			return -errno;
		}
		fid_of(&sb, &rid);
	}
	if (!o->no_cache) {
		cache_path(path, &kid, o->r1cs ? &rid : NULL, cpath, sizeof cpath);
		if (access(cpath, R_OK) == 0) {
			lo.quiet = 1;
			if (zka_loader_load(cpath, &lo, p, &ls, why, sizeof why) == 0) {
				zka_params_info in;
				zka_params_header(p->map, &in, why, sizeof why);
				if (same_file(&in.src_key, &kid) &&
				    (!o->r1cs ? !in.has_r1cs
					      : in.has_r1cs && same_file(&in.src_r1cs, &rid))) {
					ki->seconds = now() - t0;
					snprintf(ki->shm, sizeof ki->shm, "%s", ls.shm);
					snprintf(ki->file, sizeof ki->file, "%s", cpath);
					snprintf(ki->how, sizeof ki->how,
						 "cached %s: %.2f GB/s, %s", cpath,
						 ls.seconds > 0
						     ? 1e-9 * (double)ls.bytes / ls.seconds
						     : 0.0,
						 ls.direct ? "O_DIRECT" : "buffered");
					return 0;
				}
				if (ls.shm[0])
					shm_unlink(ls.shm);
				zka_params_close(p);
			}
			fprintf(stderr,
				"zkarena: %s: stale or bad cache entry (%s); importing again\n",
				cpath, why[0] ? why : "another key");
		}
	}
	struct region rg;
	if ((ret = import_region(path, o->r1cs, o->shm != NULL, o->threads, o->progress, &rg, &kid,
				 err, errlen)))
		return ret;
	const char *cached = "not cached";
	if (cpath[0]) {
		char dir[PATH_MAX];
		zka_keys_cache_dir(dir, sizeof dir);
		if (mkdirs(dir) || write_file(cpath, rg.map, rg.size, why, sizeof why))
			fprintf(stderr, "zkarena: cannot cache %s in %s (%s); continuing without\n",
				path, dir, why[0] ? why : strerror(errno));
		else
			cached = cpath;
	}
	if (o->shm &&
	    (ret = region_publish(&rg, o->shm, path, &kid, now() - t0, name, err, errlen))) {
		region_drop(&rg);
		return ret;
	}
	if (o->shm)
		mprotect(rg.map, rg.size, PROT_READ);
	if ((ret = zka_params_from_map(rg.map, rg.size, path, p, err, errlen))) {
		if (o->shm)
			shm_unlink(name);
		region_drop(&rg);
		return ret;
	}
	ki->seconds = now() - t0;
	if (o->shm)
		snprintf(ki->shm, sizeof ki->shm, "%s", name);
	if (strcmp(cached, "not cached"))
		snprintf(ki->file, sizeof ki->file, "%s", cached);
	snprintf(ki->how, sizeof ki->how, "imported %s (points validated; %s)", path, cached);
	return 0;
}

/* ---- resident regions ---- */

static int read_region_header(const char *name, uint8_t *hdr, uint64_t *size)
{
	int fd = shm_open(name, O_RDONLY | O_CLOEXEC, 0);
	struct stat sb;
	if (fd < 0)
		return -errno;
	ssize_t n = fstat(fd, &sb) ? -1 : pread(fd, hdr, ZKA_PARAMS_HDR, 0);
	close(fd);
	*size = (uint64_t)sb.st_size;
	return n == ZKA_PARAMS_HDR ? 0 : -EBADMSG;
}

int zka_keys_find_resident(const char *path, const char *r1cs, char name[64])
{
	struct stat sb;
	zka_file_id f, rf = {0};
	if (stat(path, &sb))
		return -ENOENT;
	fid_of(&sb, &f);
	if (r1cs) {
		if (stat(r1cs, &sb))
			return -ENOENT;
		fid_of(&sb, &rf);
	}
	DIR *d = opendir("/dev/shm");
	if (!d)
		return -ENOENT;
	struct dirent *e;
	int found = -ENOENT;
	uint8_t *hdr = malloc(ZKA_PARAMS_HDR);
	while (hdr && found && (e = readdir(d))) {
		if (strncmp(e->d_name, "zka-key.", 8) || strlen(e->d_name) > 60)
			continue;
		char n[64], why[200];
		uint64_t size = 0;
		zka_params_info in;
		zka_params_res res;
		snprintf(n, sizeof n, "/%s", e->d_name);
		if (read_region_header(n, hdr, &size) ||
		    zka_params_header(hdr, &in, why, sizeof why) || in.total != size)
			continue;
		int from = zka_params_residency(hdr, &res) == 0 && same_file(&res.from, &f);
		if (!from && !same_file(&in.src_key, &f))
			continue;
		if (r1cs && !(in.has_r1cs && same_file(&in.src_r1cs, &rf)))
			continue;
		snprintf(name, 64, "%s", n);
		found = 0;
	}
	free(hdr);
	closedir(d);
	return found;
}

/* "pid (comm)" of every process with name mapped, from /proc/PID/maps. */
static void mappers(const char *name, char *out, size_t n)
{
	char want[96];
	snprintf(want, sizeof want, "/dev/shm%s", name);
	out[0] = 0;
	DIR *d = opendir("/proc");
	if (!d)
		return;
	struct dirent *e;
	size_t used = 0;
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		char p[300], line[1024];
		snprintf(p, sizeof p, "/proc/%s/maps", e->d_name);
		FILE *f = fopen(p, "r");
		if (!f)
			continue;
		int hit = 0;
		while (!hit && fgets(line, sizeof line, f)) {
			char *s = strstr(line, want);
			hit = s && (s[strlen(want)] == '\n' || s[strlen(want)] == ' ' ||
				    !s[strlen(want)]);
		}
		fclose(f);
		if (!hit)
			continue;
		char comm[64] = "?";
		snprintf(p, sizeof p, "/proc/%s/comm", e->d_name);
		if ((f = fopen(p, "r"))) {
			if (fgets(comm, sizeof comm, f))
				comm[strcspn(comm, "\n")] = 0;
			fclose(f);
		}
		int k =
		    snprintf(out + used, n - used, "%s%s (%s)", used ? ", " : "", e->d_name, comm);
		if (k < 0 || (size_t)k >= n - used)
			break;
		used += (size_t)k;
	}
	closedir(d);
}

int zka_keys_list(zka_keys_region **out)
{
	DIR *d = opendir("/dev/shm");
	*out = NULL;
	if (!d)
		return -errno;
	zka_keys_region *v = NULL;
	int n = 0, cap = 0;
	struct dirent *e;
	uint8_t *hdr = malloc(ZKA_PARAMS_HDR);
	while (hdr && (e = readdir(d))) {
		int res = !strncmp(e->d_name, "zka-key.", 8);
		if ((!res && !(!strncmp(e->d_name, "zka-", 4) && strstr(e->d_name, "+p"))) ||
		    strlen(e->d_name) > 60 || strstr(e->d_name, ".tmp"))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			zka_keys_region *nv = realloc(v, (size_t)cap * sizeof *v);
			if (!nv)
				break;
			v = nv;
		}
		zka_keys_region *r = &v[n++];
		memset(r, 0, sizeof *r);
		snprintf(r->name, sizeof r->name, "/%s", e->d_name);
		r->resident = res;
		char why[200];
		r->ok = read_region_header(r->name, hdr, &r->size) == 0 &&
			zka_params_header(hdr, &r->info, why, sizeof why) == 0;
		r->has_res = r->ok && zka_params_residency(hdr, &r->res) == 0;
		mappers(r->name, r->mappers, sizeof r->mappers);
	}
	free(hdr);
	closedir(d);
	*out = v;
	return n;
}

int zka_keys_evict(const char *id, char *err, size_t errlen)
{
	zka_keys_region *v;
	int n = zka_keys_list(&v), hits = 0;
	char name[64] = "";
	const char *q = id[0] == '/' ? id + 1 : id;
	if (!strncmp(q, "zka-key.", 8))
		q += 8;
	for (int i = 0; i < n; i++)
		if (v[i].resident && *q && !strncmp(v[i].name + 9, q, strlen(q))) {
			hits++;
			snprintf(name, sizeof name, "%s", v[i].name);
		}
	free(v);
	if (hits != 1) {
		snprintf(err, errlen, "%s: %s", id,
			 hits ? "ambiguous (several resident keys match)"
			      : "no resident key with this id");
		return hits ? -EEXIST : -ENOENT;
	}
	if (shm_unlink(name)) {
		snprintf(err, errlen, "%s: %s", name, strerror(errno));
		return -errno;
	}
	return 0;
}
