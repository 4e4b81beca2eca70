/* keys.c - where a proving key comes from (keys/zka_keys.h): resident regions, .zka files, the
 * .zkey import and its cache directory; `zkarena import`, `params list` and `params evict`.
 *
 * Objects
 *   key file     a .zka (a params image, keys/params.h) or a .zkey (snarkjs), with an optional
 *                .r1cs; its identity is zka_file_id: stat(2)'s size, mtime, device and inode,
 *                plus an XXH3-64 of its bytes where imported (hash_file).
 *   region       struct region: an image being built by the import, in anonymous memory or
 *                in a shm object under a temporary name (/zka-load.PID.iN).
 *   resident     a named params region /zka-key.<id> (id: zka_params_info.id, the content
 *                identity) or the caller's name (o->shm), carrying a residency record: the
 *                file it was read from or imported from, when, how fast.
 *   cache entry  <cache dir>/<name>-<XXH3 of the .zkey's and .r1cs's identities>.zka: the
 *                import of a .zkey kept as a .zka, so the next open of that .zkey is a load.
 *
 * States of a key request (zka_keys_open: the first source that serves the key returns)
 *   RESIDENT   open_resident()  a resident region imported from or read from this very file
 *                               (and circuit) is mapped: no key file is opened
 *   ZKA        open_zka()       a .zka: read by the loader (keys/zka_loader.h)
 *   CACHED     open_cached()    a .zkey whose cache entry was imported from this very .zkey
 *                               (zkey_identity): the entry read by the loader; a stale or bad
 *                               entry is said on stderr and its region dropped
 *   IMPORT     open_import()    the .zkey imported (import_region: its stages overlapped,
 *                               "the import's stages overlapped" below, unless
 *                               ZKA_IMPORT_SEQUENTIAL), the cache entry written
 *                               while its points are validated (struct wjob; a failure is
 *                               said and ignored), the region published under its name
 *                               (region_publish) and validated; with o->defer_validate (never
 *                               for a named region) it is returned while a thread validates
 *                               it (struct zka_keys_pending), and zka_keys_validated waits
 * States of a named region
 *   TEMPORARY -> PUBLISHED   region_publish() (an import) or the loader's load_commit (a .zka):
 *                            the residency record written, then the rename into its name
 *   PUBLISHED -> EVICTED     zka_keys_evict(): unlinked; processes that map it keep it
 * States of a cache entry
 *   ABSENT | STALE -> WRITTEN   wjob_start/wjob_end: unguessable temporary file
 *                               (O_EXCL|O_NOFOLLOW, in the directory opened once) written and
 *                               fsynced on a thread during validation, renameat only after
 *                               every point passed (else unlinked); mode 0600
 *   WRITTEN -> USED             open_cached(): a hit sets the entry's atime (utimensat)
 *   WRITTEN|USED -> REMOVED     zka_keys_cache_gc(): after each new entry, and by `params gc`,
 *                               the least recently used entries go until the cache fits its
 *                               cap ($ZKARENA_CACHE_MAX, default 64 GiB); never the new one;
 *                               witness/wcg.c's kept compiled graphs (*.wcgx) count with them
 *   The cache directory is used only when zka_keys_cache_check passes: it and every ancestor
 *   this user's or root's, none writable by others without the sticky bit, itself 0700;
 *   with HOME unset there is none (never a shared fallback in /tmp).
 *
 * Invariants
 *   1. A resident region or a cache entry serves a key file only when the identity it records
 *      (the file read, or the .zkey it was imported from) equals the file's (same_file), and
 *      the circuit's when one is asked for, none when none is.
 *   2. An image becomes visible under a name (a region's, a .zka's, a cache entry's) only by a
 *      rename after it is complete: every point of an import validated (validate_points: on
 *      the curve, in the subgroup; either the image's sections or, overlapped, the very arrays
 *      of the parsed key they were copied from; a .params's in its read: on the curve as it
 *      is decoded, then zka_keys_check_sections on its sections), every section of a load
 *      checksummed. `import -o` fills the output's temporary file itself (region_of_file):
 *      it is renamed only after that, and removed on any failure.
 *   3. Every open(2) of a key file here is counted (zka_loader_count_open): finding a resident
 *      region opens none, and the tests hold it to that.
 *   4. A failed import or publish leaves nothing: no temporary object, no mapping.
 *   6. A key returned before its validation ended (defer_validate) stays mapped until the
 *      validation is joined (zka_keys_validated, or zka_params_close first); its cache entry
 *      is committed only once every point passed. `prove` releases nothing (no proof check,
 *      no file) before zka_keys_validated returned 0.
 *   5. Trust (issue 38): a resident region serves a key only when zka_keys_region_trusted
 *      accepts its inode (a regular file of this euid, or of a uid in ZKARENA_KEY_OWNERS, not
 *      writable by group or others) and its /zka-key.<id> name matches its content id; a
 *      .zkey is checked from its header (zka_zkey_shape_check) before its bytes are hashed.
 */
#include "keys/zka_keys.h"

#include "zk/fmt_atomic.h"
#include "zk/par.h"
#include "zk/r1cs.h"
#include "zk/zkey.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
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

/* the stages of the last import (zka_keys_last_times) */
static zka_keys_times last_times;

void zka_keys_last_times(zka_keys_times *t)
{
	*t = last_times;
}

/* ---- point validation at import ---- */

/* The point sections to check: section s's n[s] bytes at pts[s] (an image's sections, or the
 * parsed key's arrays they are copied from: zka_params_pk_points). */
struct pointsets {
	const zka_curve *c;
	int n;					 /* sections 0..n-1 */
	int g2[ZKA_PARAMS_NPOINTSECT];		 /* 1: section s holds G2 points */
	const char *name[ZKA_PARAMS_NPOINTSECT]; /* for the refusal: "section NAME: point K" */
	const void *pts[ZKA_PARAMS_NPOINTSECT];
	uint64_t len[ZKA_PARAMS_NPOINTSECT];
	/* not NULL: when set, the checks may stop early and validate_points then returns
	 * -ECANCELED (the caller no longer needs the outcome) */
	const _Atomic int *cancel;
};

/* 1 when ps's checks were cancelled. */
static int cancelled(const struct pointsets *ps)
{
	return ps->cancel && atomic_load(ps->cancel);
}

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
	int batch; /* G2 by the curve's g2_check_batch, batches of step points */
	int ref;   /* per point by the curve's r*P reference checks (ZKA_VALIDATE_EXACT=ref) */
	const struct pointsets *ps; /* its cancel flag, looked at between steps */
};

/* Records the failure of point k (code r), keeping the lowest index. */
static void check_fail(struct vctx *v, uint64_t k, int r)
{
	uint64_t cur = atomic_load(&v->bad);
	while (k < cur && !atomic_compare_exchange_weak(&v->bad, &cur, k))
		;
	if (atomic_load(&v->bad) == k)
		atomic_store(&v->code, r);
}

static void check_range(void *arg, size_t begin, size_t end, int tid)
{
	struct vctx *v = arg;
	const size_t step = v->batch ? 32768 : 4096;
	double last = 0;
	for (size_t i = begin; i < end; i += step) {
		size_t e = i + step < end ? i + step : end;
		if (cancelled(v->ps))
			return;
		if (v->batch) {
			size_t bad = 0;
			if (i >= atomic_load(&v->bad))
				return; /* a lower index already failed */
			int r = v->c->g2_check_batch(v->p + i * v->sz, e - i, &bad);
			if (r) {
				check_fail(v, i + bad, r);
				return;
			}
		}
		for (size_t k = i; k < e && !v->batch; k++) {
			if (k >= atomic_load(&v->bad))
				return; /* a lower index already failed */
			int r = v->ref ? (v->g2 ? v->c->g2_check_ref(v->p + k * v->sz)
						: v->c->g1_check_ref(v->p + k * v->sz))
				       : (v->g2 ? v->c->g2_check(v->p + k * v->sz)
						: v->c->g1_check(v->p + k * v->sz));
			if (r) {
				check_fail(v, k, r);
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

/* $ZKA_VALIDATE_EXACT: 0 when unset, "" or "0" (the default tests); 2 when "ref" (every point
 * by the curve's r*P reference tests, g1_check_ref/g2_check_ref: A/B of the endomorphism
 * tests); 1 otherwise (the per-point endomorphism tests, no batching). */
static int validate_exact(void)
{
	const char *e = getenv("ZKA_VALIDATE_EXACT");
	if (!e || !*e || !strcmp(e, "0"))
		return 0;
	return strcmp(e, "ref") ? 1 : 2;
}

/* ---- the device checker (zka_keys_set_checker) ---- */

/* Where points are checked when $ZKA_VALIDATE_ON is unset: "auto", the device where the build
 * has CUDA and there is one (else the CPU, said on the import's line). The device's check
 * (cuda/subgroup.cuh) passed tests/gpu_check.c against the host's checks on an H100 (cc 9.0,
 * 2026-12-07, both curves, G1 and G2, 2574 asserts) and took BLS12-381 2^22's validation from
 * 102 s to 1.4 s (docs/keys.md). */
#define ZKA_VALIDATE_ON_DEFAULT "auto"

static const int sec_g2[12] = {0, 0, 1, 1, 0, 1, 0, 0, 0, 1, 0, 0};
static zka_keys_check_fn checker;
static void *checker_arg;
static char checker_name[96];
/* the last import's checks when the device did not make them: " on the CPU (REASON)" */
static char checker_note[224];
static _Atomic int checker_warned;

void zka_keys_set_checker(zka_keys_check_fn check, void *arg, const char *name)
{
	checker = check;
	checker_arg = arg;
	snprintf(checker_name, sizeof checker_name, "%s", name ? name : "the device");
}

/* ps names the key's 12 point sections (an image's, or the parsed key's arrays) */
static void pointsets_of_key(struct pointsets *ps, const zka_curve *c)
{
	ps->c = c;
	ps->n = ZKA_PARAMS_NPOINTSECT;
	for (int s = 0; s < ZKA_PARAMS_NPOINTSECT; s++) {
		ps->g2[s] = sec_g2[s];
		ps->name[s] = zka_params_section_name(s);
	}
}

/* the one-line refusal of point k of section name */
static int bad_point(char *err, size_t errlen, const char *path, const char *name, uint64_t k,
		     int code)
{
	snprintf(err, errlen, "%s: section %s: point %llu %s", path, name, (unsigned long long)k,
		 code == ZKA_ENOTINGROUP ? "is not in the subgroup" : "is not on the curve");
	return -EINVAL;
}

/* The point sections of the image at image, as its header in says. */
static void pointsets_of_image(struct pointsets *ps, const void *image, const zka_params_info *in)
{
	pointsets_of_key(ps, in->curve);
	ps->cancel = NULL;
	for (int s = 0; s < ZKA_PARAMS_NPOINTSECT; s++) {
		ps->pts[s] = (const uint8_t *)image + in->off[s];
		ps->len[s] = in->len[s];
	}
}

/* Every section on the device checker: 1 when it answered (*ret: 0, or -EINVAL with the lowest
 * failing point of the first failing section in err, as validate_points names it), 0 when it
 * could not (checker_note says why; said once on stderr unless there is no device). */
static int validate_dev(const char *path, const struct pointsets *ps, int *ret, char *err,
			size_t errlen)
{
	checker_note[0] = 0;
	for (int s = 0; s < ps->n; s++) {
		size_t sz = ps->g2[s] ? zka_g2_bytes(ps->c) : zka_g1_bytes(ps->c);
		uint64_t n = ps->len[s] / sz, bad = UINT64_MAX;
		int code = 0;
		char e[160] = "";
		if (!n)
			continue;
		if (cancelled(ps)) {
			*ret = -ECANCELED;
			return 1;
		}
		int r =
		    checker(checker_arg, ps->c, ps->g2[s], ps->pts[s], n, &bad, &code, e, sizeof e);
		if (r < 0) {
			snprintf(checker_note, sizeof checker_note, " on the CPU (%s: %s)",
				 checker_name, e);
			if (r != -ENODEV && !atomic_exchange(&checker_warned, 1))
				fprintf(
				    stderr,
				    "zkarena: WARNING: %s cannot check key points (%s): they are "
				    "checked on the CPU, several times slower\n",
				    checker_name, e);
			return 0;
		}
		if (bad != UINT64_MAX) {
			*ret = bad_point(err, errlen, path, ps->name[s], bad, code);
			return 1;
		}
	}
	*ret = 0;
	return 1;
}

/* See zka_keys.h. */
const char *zka_keys_validated_where(void)
{
	static char buf[128];
	if (!checker)
		return "";
	if (last_times.validate_dev) {
		snprintf(buf, sizeof buf, " on %s", checker_name);
		return buf;
	}
	return checker_note;
}

/* 1 when the CPU's threads are expected to check ps's points in less than
 * ZKA_VALIDATE_CPU_MAX_S, so that ZKA_VALIDATE_ON=auto leaves the device alone: starting a CUDA
 * context and copying the points costs ~0.15-0.2 s however small the key. The per-point costs
 * (one thread) and the bound come from the H100 machine (16 cores, 2026-12-07, bench import,
 * docs/keys.md): BN254 keys of 2^16, 2^18, 2^20 constraints validated on the CPU in 0.062,
 * 0.168, 0.734 s and on the device in 0.19-0.22, 0.15-0.27, 0.146 s (G1 points need only the
 * curve equation, G2 points the batched test: ~0.5 and ~10 us a point); BLS12-381 points need
 * a subgroup test each (44 us G1, 52 us G2 on one core), so its keys go to the device from a few
 * thousand points. */
#define ZKA_VALIDATE_CPU_MAX_S 0.12
static int cpu_is_quicker(const struct pointsets *ps, int threads)
{
	const zka_curve *c = ps->c;
	double us1 = c->id == ZKA_BN254 ? 0.5 : 44, us2 = c->id == ZKA_BN254 ? 10 : 52, us = 0;
	for (int s = 0; s < ps->n; s++) {
		size_t sz = ps->g2[s] ? zka_g2_bytes(c) : zka_g1_bytes(c);
		us += (double)(ps->len[s] / sz) * (ps->g2[s] ? us2 : us1);
	}
	return us * 1e-6 / zka_par_threads(threads) < ZKA_VALIDATE_CPU_MAX_S;
}

/* Checks every point of the sections ps (an image's sections 0..11, or the parsed key's arrays
 * they are copied from); -EINVAL naming section and index; *on_dev: 1 when the device checker
 * made the checks. With a
 * device checker installed (zka_keys_set_checker) and ZKA_VALIDATE_ON auto or gpu (the default:
 * ZKA_VALIDATE_ON_DEFAULT), it checks them (unless ZKA_VALIDATE_EXACT is set), the CPU only
 * when it cannot. On the CPU, G1
 * points and BLS12-381 G2 points are checked one by one; BN254 G2 points in batches by the
 * curve's g2_check_batch (one random combination test per batch, repeated; a failing batch
 * checked point by point: the same answer, docs/keys.md), unless ZKA_VALIDATE_EXACT=1;
 * ZKA_VALIDATE_EXACT=ref checks every point by the r*P reference tests (A/B). */
static int validate_points(const char *path, const struct pointsets *ps, int threads, int progress,
			   int *on_dev, char *err, size_t errlen)
{
	const int *g2 = ps->g2;
	const zka_curve *c = ps->c;
	const int exact = validate_exact();
	const char *on = getenv("ZKA_VALIDATE_ON");
	if (!on || !*on)
		on = ZKA_VALIDATE_ON_DEFAULT;
	int dev = !strcmp(on, "auto") || !strcmp(on, "gpu");
	*on_dev = 0;
	if (checker && !exact && dev && !strcmp(on, "auto") && cpu_is_quicker(ps, threads)) {
		dev = 0; /* a small key: the CPU's threads end before the device would start */
		snprintf(checker_note, sizeof checker_note,
			 " on the CPU (a small key: quicker than starting %s)", checker_name);
	}
	if (checker && !exact && dev) {
		int ret = 0;
		if (validate_dev(path, ps, &ret, err, errlen)) {
			*on_dev = 1;
			return ret;
		}
	} else if (checker) {
		snprintf(checker_note, sizeof checker_note, " on the CPU (%s)",
			 exact ? "ZKA_VALIDATE_EXACT"
			       : "ZKA_VALIDATE_ON=cpu");
	}
	const int batch = c->g2_check_batch && !exact;
	_Atomic uint64_t done = 0;
	uint64_t total = 0;
	for (int s = 0; s < ps->n; s++)
		total += ps->len[s] / (g2[s] ? zka_g2_bytes(c) : zka_g1_bytes(c));
	int t = zka_par_threads(threads);
	double t0 = now();
	int show = progress > 0 || (progress < 0 && isatty(2));
	for (int s = 0; s < ps->n; s++) {
		size_t sz = g2[s] ? zka_g2_bytes(c) : zka_g1_bytes(c);
		uint64_t n = ps->len[s] / sz;
		struct vctx v = {.c = c,
				 .p = ps->pts[s],
				 .sz = sz,
				 .g2 = g2[s],
				 .bad = UINT64_MAX,
				 .done = &done,
				 .total = total,
				 .progress = show,
				 .t0 = t0,
				 .path = path,
				 .batch = batch && g2[s],
				 .ref = exact == 2,
				 .ps = ps};
		zka_par_for(n < 1024 ? 1 : t, n, check_range, &v);
		if (cancelled(ps))
			return -ECANCELED;
		if (atomic_load(&v.bad) != UINT64_MAX) {
			if (show && now() - t0 > 1.0)
				fputc('\n', stderr);
			return bad_point(err, errlen, path, ps->name[s], atomic_load(&v.bad),
					 atomic_load(&v.code));
		}
	}
	if (show && now() - t0 > 1.0)
		fprintf(stderr, "\rzkarena: importing %s: validating points 100%%\n", path);
	return 0;
}

/* the last zka_keys_check_sections of this thread: its duration and where it ran, for the
 * import's line (a .params's sections are checked inside its parse) */
static _Thread_local struct {
	double secs;
	int dev;
} sect_last;

/* See zka_keys.h. */
int zka_keys_check_sections(const char *path, const zka_curve *c, int n, const char *const name[],
			    const int g2[], const void *const pts[], const uint64_t count[],
			    int threads, int progress, char *err, size_t errlen)
{
	struct pointsets ps = {.c = c, .n = n};
	if (n < 0 || n > ZKA_PARAMS_NPOINTSECT) {
		snprintf(err, errlen, "%s: %d point sections (at most %d)", path, n,
			 ZKA_PARAMS_NPOINTSECT);
		return -EINVAL;
	}
	for (int s = 0; s < n; s++) {
		ps.g2[s] = !!g2[s];
		ps.name[s] = name[s];
		ps.pts[s] = pts[s];
		ps.len[s] = count[s] * (g2[s] ? zka_g2_bytes(c) : zka_g1_bytes(c));
	}
	double t0 = now();
	int ret = validate_points(path, &ps, threads, progress, &sect_last.dev, err, errlen);
	sect_last.secs = now() - t0;
	return ret;
}

/* ---- regions ---- */

struct region {
	char tmp[64]; /* a shm object under a temporary name, or "" (anonymous memory, or the
		       * output file's temporary: region_of_file) */
	uint8_t *map;
	size_t size;
};

/* r made the mapping of fd (the output's temporary file: a wjob's, mapped), its size blocks
 * allocated first (so that a full disk is an error here, never a SIGBUS in the fill). The
 * image is then filled in the page cache, which the kernel writes back as it goes: an import
 * to a file holds no anonymous copy of the image beside the parsed key (a BLS12-381 2^26
 * .params import was killed for memory on the 128 GiB H100 machine, 2026-12-07, with one). */
static int region_of_file(struct region *r, int fd, size_t size, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->size = size;
	int e = posix_fallocate(fd, 0, (off_t)size);
	void *m = e ? MAP_FAILED : mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!e && m == MAP_FAILED)
		e = errno;
	if (e) {
		snprintf(err, errlen, "cannot make the %zu-byte output: %s", size, strerror(e));
		return -e;
	}
	r->map = m;
	return 0;
}

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

/* ---- the image written while it is validated ----
 * A wjob writes the filled image to path through zka_atomic (zk/fmt_atomic.h: an unguessable
 * temporary name created O_EXCL|O_NOFOLLOW in the directory opened once; mode masked by the
 * umask) on its own thread, fsyncs it there, and is renamed into place (zka_atomic_commit) only
 * after every point was validated; a failed validation or write aborts it: nothing is left.
 * States: IDLE (no path) | OPEN (temporary created, thread writing) -> COMMITTED | ABORTED. */
struct wjob {
	const char *path; /* NULL: nothing to write */
	mode_t mode;
	zka_atomic a;
	const uint8_t *img;
	size_t size;
	_Atomic int stop; /* validation failed: stop writing */
	int ret;	  /* 0 or -errno of the write (why in err) */
	int open, thread;
	int mapped; /* the image is the temporary file's mapping (region_of_file): no copy, an
		     * msync at the end */
	int map_ok; /* the caller drops the image right after (zka_keys_import_root): it may be
		     * the file's mapping, which later writes to the image would change */
	pthread_t th;
	double t0;
	char err[600];
};

static void *wjob_run(void *arg)
{
	struct wjob *w = arg;
	if (w->mapped) { /* the pages are the file's: written back, then fsynced by the commit */
		if (!atomic_load(&w->stop) && msync((void *)w->img, w->size, MS_SYNC))
			w->ret = -errno;
		if (w->ret)
			snprintf(w->err, sizeof w->err, "%s: write: %s", w->path,
				 strerror(-w->ret));
		return NULL;
	}
	for (size_t done = 0; !w->ret && done < w->size && !atomic_load(&w->stop);) {
		size_t k = w->size - done > (64u << 20) ? (64u << 20) : w->size - done;
		w->ret = zka_atomic_write(&w->a, w->img + done, k);
		done += k;
	}
	if (!w->ret && !atomic_load(&w->stop) && (fflush(w->a.f) || fsync(fileno(w->a.f))))
		w->ret = errno ? -errno : -EIO;
	if (w->ret)
		snprintf(w->err, sizeof w->err, "%s: write: %s", w->path, strerror(-w->ret));
	return NULL;
}

/* Creates the temporary file and starts writing img (on the calling thread later, in
 * wjob_end, when no thread can be made). */
static void wjob_start(struct wjob *w, const void *img, size_t size)
{
	if (!w || !w->path)
		return;
	w->t0 = now();
	w->img = img;
	w->size = size;
	if (w->mapped) /* opened by wjob_map; its msync waits for wjob_end */
		return;
	if ((w->ret = zka_atomic_open_mode(&w->a, w->path, w->mode))) {
		snprintf(w->err, sizeof w->err, "%s: cannot create: %s", w->path,
			 strerror(-w->ret));
		return;
	}
	w->open = 1;
	w->thread = pthread_create(&w->th, NULL, wjob_run, w) == 0;
}

/* Creates w's temporary file and makes rg its mapping of size bytes (region_of_file); 0, or
 * -errno with err set and nothing left on disk. */
static int wjob_map(struct wjob *w, struct region *rg, size_t size, char *err, size_t errlen)
{
	char why[300];
	int ret = zka_atomic_open_mode(&w->a, w->path, w->mode);
	if (ret) {
		snprintf(err, errlen, "%s: cannot create: %s", w->path, strerror(-ret));
		return ret;
	}
	if ((ret = region_of_file(rg, fileno(w->a.f), size, why, sizeof why))) {
		zka_atomic_abort(&w->a);
		snprintf(err, errlen, "%s: %s", w->path, why);
		return ret;
	}
	w->open = w->mapped = 1;
	return 0;
}

/* After validation (valid: it passed): joins the writer, then commits or aborts. Sets the
 * import's write time to what the write added after validation. */
static void wjob_end(struct wjob *w, int valid)
{
	if (!w || !w->path)
		return;
	double t0 = now();
	if (!valid)
		atomic_store(&w->stop, 1);
	if (w->thread)
		pthread_join(w->th, NULL);
	else if (w->open && valid)
		wjob_run(w);
	if (w->open && (!valid || w->ret)) {
		zka_atomic_abort(&w->a);
	} else if (w->open) {
		if ((w->ret = zka_atomic_commit(&w->a)))
			snprintf(w->err, sizeof w->err, "%s: %s", w->path, strerror(-w->ret));
	}
	w->open = w->thread = 0;
	if (!valid && !w->ret)
		w->ret = -ECANCELED;
	last_times.write = now() - t0;
}

/* The cache entry w wrote for the key at path (nothing when w has no path): a failed write is
 * said (the key is used uncached), a committed one makes the cache in dir pruned to its cap
 * (never this entry). 1 when the entry was committed. */
static int cache_outcome(const char *path, const struct wjob *w, const char *dir)
{
	char why[600] = "";
	uint64_t max = 0, left = 0;
	if (!w->path)
		return 0;
	if (w->ret) {
		fprintf(stderr, "zkarena: cannot cache %s (%s); continuing without\n", path,
			w->err);
		return 0;
	}
	if (zka_keys_cache_max(&max, why, sizeof why) == 0 && max &&
	    zka_keys_cache_gc(dir, max, w->path, stderr, &left) < 0)
		fprintf(stderr, "zkarena: cannot prune the key cache %s\n", dir);
	else if (why[0] && !max)
		fprintf(stderr, "zkarena: %s; the key cache is not pruned\n", why);
	return 1;
}

/* ---- validation behind the first proof (zka_keys_opts.defer_validate) ----
 * A pending validation: validate_points over the imported image on its own thread, then the
 * cache entry's wjob ended (committed only when every point passed). States: RUNNING
 * (pending_start) -> JOINED (zka__keys_pending_end: the outcome read, the cache's result said,
 * freed). The image stays mapped until it is joined (zka_params_close joins first). */
struct zka_keys_pending {
	char path[PATH_MAX], cpath[PATH_MAX], dir[PATH_MAX];
	const void *image;
	zka_params_info info;
	int threads, progress, thread, ret;
	double t0;
	struct wjob w;
	pthread_t th;
	char err[700];
};

static void *pending_run(void *arg)
{
	struct zka_keys_pending *d = arg;
	struct pointsets ps;
	int dev = 0;
	pointsets_of_image(&ps, d->image, &d->info);
	d->ret =
	    validate_points(d->path, &ps, d->threads, d->progress, &dev, d->err, sizeof d->err);
	last_times.validate_dev = dev;
	last_times.validate = now() - d->t0;
	wjob_end(&d->w, d->ret == 0);
	return NULL;
}

/* Starts d's thread (or runs it here when none can be made). */
static void pending_start(struct zka_keys_pending *d, const char *path, const void *image,
			  const zka_params_info *in, int threads, int progress, double t0)
{
	snprintf(d->path, sizeof d->path, "%s", path);
	d->image = image;
	d->info = *in;
	d->threads = threads;
	d->progress = progress;
	d->t0 = t0;
	d->thread = pthread_create(&d->th, NULL, pending_run, d) == 0;
	if (!d->thread)
		pending_run(d);
}

/* Joins p's pending validation: its outcome into *ret (when not NULL) and err, the cache
 * entry's result said on stderr (and the cache pruned after a new entry), then freed. */
void zka__keys_pending_end(zka_params *p, char *err, size_t errlen, int *ret)
{
	struct zka_keys_pending *d = p->pending;
	if (!d)
		return;
	if (d->thread)
		pthread_join(d->th, NULL);
	if (ret)
		*ret = d->ret;
	if (d->ret && err)
		snprintf(err, errlen, "%s", d->err);
	if (!d->ret)
		cache_outcome(d->path, &d->w, d->dir);
	free(d);
	p->pending = NULL;
}

int zka_keys_validated(zka_params *p, char *err, size_t errlen)
{
	int ret = 0;
	zka__keys_pending_end(p, err, errlen, &ret);
	return ret;
}

/* ---- the import's stages overlapped (issue 40) ----
 * Sequentially an import reads (hash_file), parses, builds the CSR form and the region, fills
 * it, then validates its points. Overlapped (the default), two threads run beside the parse:
 *   hjob  the files' identity hashes (hash_file), started before the parse (both read the
 *         files), joined before the fill (the header records them);
 *   vjob  the points validated (validate_points: the device checker or the CPU threads) from
 *         the parsed key's arrays (zka_params_pk_points), started right after the parse, joined
 *         after the fill, before the image is written anywhere, published or returned.
 * What vjob validates is what the fill copies: the same pointers and lengths (checked at the
 * join against the plan, the region validated instead when they differ), from the parsed key,
 * which this process alone holds and nothing writes after the parse. Errors are reported in
 * the sequential order: read, parse, csr, then the first failing point. A deferred validation
 * (defer_validate) still validates the region itself behind the first proof. */

/* $ZKA_IMPORT_SEQUENTIAL: 1 when set to anything but "" or "0" (the stages one after the other,
 * the points validated in the filled image: the order before the overlap; the tests compare
 * the two imports byte for byte). */
static int import_sequential(void)
{
	const char *e = getenv("ZKA_IMPORT_SEQUENTIAL");
	return e && *e && strcmp(e, "0");
}

/* The identity hashes of the key (and circuit), into its own fields (the caller's file ids are
 * read meanwhile: hjob_end copies them in once joined). */
struct hjob {
	const char *zkey, *r1cs;
	zka_file_id *kid, *rid; /* set by hjob_end, after the join */
	uint64_t khash, rhash;	/* written by the thread */
	int ret, thread, joined;
	double secs; /* the hashing's own duration */
	pthread_t th;
	char err[600];
};

static void *hjob_run(void *arg)
{
	struct hjob *h = arg;
	double t0 = now();
	h->ret = hash_file(h->zkey, &h->khash, h->err, sizeof h->err);
	if (!h->ret && h->r1cs)
		h->ret = hash_file(h->r1cs, &h->rhash, h->err, sizeof h->err);
	h->secs = now() - t0;
	return NULL;
}

/* Starts h on its thread (overlapped) or runs it here (sequential, or no thread). */
static void hjob_start(struct hjob *h, int sequential)
{
	h->thread = !sequential && pthread_create(&h->th, NULL, hjob_run, h) == 0;
	if (!h->thread)
		hjob_run(h);
}

/* Joins h (once; a no-op after); its outcome in h->ret, h->err; on success the hashes are
 * set in h->kid (and h->rid). */
static int hjob_end(struct hjob *h)
{
	if (h->thread && !h->joined)
		pthread_join(h->th, NULL);
	if (!h->joined && !h->ret) {
		h->kid->hash = h->khash;
		if (h->r1cs)
			h->rid->hash = h->rhash;
	}
	h->joined = 1;
	return h->ret;
}

/* The parsed key's points validated on a thread (validate_points). */
struct vjob {
	const char *path;
	struct pointsets ps;
	_Atomic int cancel; /* an earlier stage failed: stop (the outcome is then unused) */
	int threads, progress, ret, dev, started, joined;
	double secs; /* the validation's own duration */
	pthread_t th;
	char err[700];
};

static void *vjob_run(void *arg)
{
	struct vjob *v = arg;
	double t0 = now();
	v->ret = validate_points(v->path, &v->ps, v->threads, v->progress, &v->dev, v->err,
				 sizeof v->err);
	v->secs = now() - t0;
	return NULL;
}

/* Starts validating pk's point arrays on a thread; 0 when none could be made (the caller
 * validates the image as the sequential import does). */
static int vjob_start(struct vjob *v, const char *path, const zka_pk *pk, int threads, int progress)
{
	v->path = path;
	pointsets_of_key(&v->ps, pk->curve);
	v->ps.cancel = &v->cancel;
	zka_params_pk_points(pk, v->ps.pts, v->ps.len);
	v->threads = threads;
	v->progress = progress;
	v->started = pthread_create(&v->th, NULL, vjob_run, v) == 0;
	return v->started;
}

/* Joins v when started (once; a no-op after). */
static void vjob_end(struct vjob *v)
{
	if (v->started && !v->joined)
		pthread_join(v->th, NULL);
	v->joined = 1;
}

/* 1 when v validated exactly the point sections the plan copied into the image (the same
 * source pointers and lengths). */
static int vjob_covers(const struct vjob *v, const zka_params_plan *pl)
{
	for (int s = 0; s < ZKA_PARAMS_NPOINTSECT; s++)
		if (v->ps.pts[s] != pl->src[s] || v->ps.len[s] != pl->info.len[s])
			return 0;
	return v->ps.c == pl->info.curve;
}

/* Imports zkey (+ r1cs) into a new region (named: a tmp shm object), its stages overlapped
 * unless ZKA_IMPORT_SEQUENTIAL (above); every point validated before this returns 0 (or, with
 * defer, by defer's thread). With w (and w->path), the image is written to w->path while its
 * points are validated, committed only when they pass (the outcome of the write in w->ret,
 * w->err). */
static int import_region(const char *zkey, const char *r1cs, uint32_t root, int named, int threads,
			 int progress, struct region *rg, zka_file_id *kid, struct wjob *w,
			 struct zka_keys_pending *defer, char *err, size_t errlen)
{
	struct stat sb;
	zka_file_id rid = {0};
	zka_pk pk;
	zka_r1cs cs;
	zka_params_plan pl;
	char why[400];
	int ret;
	const int seq = import_sequential(), bp = zka_params_is_bellperson(zkey);
	struct hjob hj = {.zkey = zkey, .r1cs = r1cs, .kid = kid, .rid = &rid};
	struct vjob vj = {0};
	memset(rg, 0, sizeof *rg);
	if (stat(zkey, &sb)) {
		snprintf(err, errlen, "%s: %s", zkey, strerror(errno));
		return -errno;
	}
	zka_keys_times tm = {.overlapped = !seq};
	double t0 = now();
	last_times = tm;
	fid_of(&sb, kid);
	/* an oversized or sparse .zkey is refused from its header, before hash_file reads it */
	if (!bp && (ret = zka_zkey_shape_check(zkey, err, errlen))) /* (.params: its reader) */
		return ret;
	if (r1cs) {
		if (stat(r1cs, &sb)) {
			snprintf(err, errlen, "%s: %s", r1cs, strerror(errno));
			return -errno;
		}
		fid_of(&sb, &rid);
	}
	hjob_start(&hj, seq);
	if (seq && hjob_end(&hj)) { /* sequential: the hashes known before the parse */
		snprintf(err, errlen, "%s", hj.err);
		return hj.ret;
	}
	zka_loader_count_open();
	double t1 = now();
	sect_last.secs = 0, sect_last.dev = 0;
	if ((ret = zka_params_read_files_root(zkey, r1cs, root, &pk, &cs, err, errlen))) {
		if (hjob_end(&hj)) { /* the read's failure comes first */
			snprintf(err, errlen, "%s", hj.err);
			ret = hj.ret;
		}
		return ret;
	}
	double t2 = now();
	tm.parse = t2 - t1;
	if (bp) { /* its sections were checked inside the read (zka_keys_check_sections) */
		tm.validate = sect_last.secs;
		tm.validate_dev = sect_last.dev;
		tm.parse -= sect_last.secs;
	}
	/* a .params's reader checked every point already (keys/params.c: on the curve as it
	 * decodes, then the subgroup by zka_keys_check_sections, the device where there is one);
	 * a deferred validation checks the region behind the first proof */
	if (!seq && !bp && !defer)
		vjob_start(&vj, zkey, &pk, threads, progress);
	const char *base = strrchr(zkey, '/');
	ret = zka_params_plan_new(&pl, &pk, r1cs ? &cs : NULL, kid, r1cs ? &rid : NULL,
				  base ? base + 1 : zkey, why, sizeof why);
	/* an import to a file fills the file's own pages (region_of_file); others a region */
	const int to_file = w && w->path && w->map_ok && !named && !defer;
	if (!ret && to_file)
		ret = wjob_map(w, rg, (size_t)pl.info.total, why, sizeof why);
	else if (!ret)
		ret = region_new(rg, (size_t)pl.info.total, named, why, sizeof why);
	if (ret) {
		if (hjob_end(&hj)) { /* the read's failure comes first */
			snprintf(err, errlen, "%s", hj.err);
			ret = hj.ret;
		} else {
			snprintf(err, errlen, "%s: %s", zkey, why);
		}
		goto out;
	}
	double t3 = now();
	tm.csr = t3 - t2;
	if ((ret = hjob_end(&hj))) {
		snprintf(err, errlen, "%s", hj.err);
		goto out;
	}
	zka_params_plan_set_ids(&pl, kid, r1cs ? &rid : NULL); /* the hashes, known now */
	double t3b = now();
	zka_params_plan_fill(&pl, rg->map, threads);
	double t4 = now();
	tm.fill = t4 - t3b;
	tm.read = seq ? t1 - t0 : hj.secs;
	/* written under a temporary name while the points are validated; renamed into place by
	 * wjob_end only once every point passed */
	wjob_start(w, rg->map, rg->size);
	if (defer) { /* validated on a thread from here (never a .params: see open_import) */
		tm.wall = t4 - t0;
		last_times = tm;
		pending_start(defer, zkey, rg->map, &pl.info, threads, progress, t4);
		ret = 0;
		goto out;
	}
	if (vj.started) {
		vjob_end(&vj);
		if (!vjob_covers(&vj, &pl)) { /* cannot happen (one layout): the region, then */
			struct pointsets ps;
			pointsets_of_image(&ps, rg->map, &pl.info);
			double tv = now();
			ret = validate_points(zkey, &ps, threads, progress, &tm.validate_dev, err,
					      errlen);
			tm.validate = now() - tv;
		} else {
			ret = vj.ret;
			if (ret)
				snprintf(err, errlen, "%s", vj.err);
			tm.validate = vj.secs;
			tm.validate_dev = vj.dev;
		}
	} else {
		struct pointsets ps;
		pointsets_of_image(&ps, rg->map, &pl.info);
		if (!bp) {
			ret = validate_points(zkey, &ps, threads, progress, &tm.validate_dev, err,
					      errlen);
			tm.validate = now() - t4;
		}
	}
	tm.wall = now() - t0;
	last_times = tm;
	wjob_end(w, ret == 0);
	if (ret)
		region_drop(rg);
out:
	if (ret) /* an earlier stage failed: the points' outcome is not needed */
		atomic_store(&vj.cancel, 1);
	if (ret && w && w->mapped && w->open)
		wjob_end(w, 0); /* the mapped output's temporary file removed */
	vjob_end(&vj); /* its thread reads pk: joined before pk is freed */
	hjob_end(&hj);
	if (ret && rg->map)
		region_drop(rg);
	zka_params_plan_free(&pl);
	zka_pk_free(&pk);
	zka_r1cs_free(&cs);
	return ret;
}

int zka_keys_import(const char *zkey, const char *r1cs, const char *out, int threads, int progress,
		    char *err, size_t errlen)
{
	return zka_keys_import_root(zkey, r1cs, ZKA_ROOT_GEN7, out, threads, progress, err, errlen);
}

int zka_keys_import_root(const char *zkey, const char *r1cs, uint32_t bp_root, const char *out,
			 int threads, int progress, char *err, size_t errlen)
{
	struct region rg;
	zka_file_id kid;
	struct wjob w = {.path = out, .mode = 0666, .map_ok = 1};
	int ret = import_region(zkey, r1cs, bp_root, 0, threads, progress, &rg, &kid, &w, NULL, err,
				errlen);
	if (ret)
		return ret;
	if ((ret = w.ret))
		snprintf(err, errlen, "%s", w.err);
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
	else if (x && *x == '/')
		snprintf(out, n, "%s/zkarena", x);
	else if (h && *h == '/')
		snprintf(out, n, "%s/.cache/zkarena", h);
	else
		out[0] =
		    0; /* no shared fallback (a /tmp directory another user could make first) */
}

/* May this process trust what is in directory st (owner, mode)? Its own or root's, and not
 * writable by group or others unless sticky (then others cannot replace our entries). */
static const char *dir_untrusted(const struct stat *st, int last)
{
	if (!S_ISDIR(st->st_mode))
		return "not a directory";
	if (st->st_uid != geteuid() && st->st_uid != 0)
		return "owned by another user";
	if (last && st->st_uid != geteuid())
		return "owned by another user";
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		return "writable by group or others without the sticky bit";
	return NULL;
}

int zka_keys_cache_check(const char *dir, int create, char *err, size_t errlen)
{
	char p[PATH_MAX];
	struct stat st;
	if (!dir[0]) {
		snprintf(
		    err, errlen,
		    "no key cache directory (HOME and XDG_CACHE_HOME unset or not absolute; set "
		    "ZKARENA_CACHE)");
		return -ENOENT;
	}
	if (dir[0] != '/') {
		snprintf(err, errlen, "key cache directory %s: not an absolute path", dir);
		return -EINVAL;
	}
	snprintf(p, sizeof p, "%s", dir);
	size_t len = strlen(p);
	while (len > 1 && p[len - 1] == '/')
		p[--len] = 0;
	/* every ancestor, from the root down: lstat (a link is checked by what it names as well) */
	for (char *s = p + 1;; s++) {
		int last = *s == 0;
		if (*s != '/' && !last)
			continue;
		char c = *s;
		*s = 0;
		struct stat lst; /* a link is judged by its own owner too, then by what it names */
		if (lstat(p, &lst) == 0 && S_ISLNK(lst.st_mode) && lst.st_uid != geteuid() &&
		    lst.st_uid != 0) {
			snprintf(
			    err, errlen,
			    "key cache directory %s: %s is a symbolic link of another user (uid "
			    "%u)",
			    dir, p, (unsigned)lst.st_uid);
			*s = c;
			return -EPERM;
		}
		if (stat(p, &st)) {
			int e = errno;
			if (e == ENOENT && create && mkdir(p, last ? 0700 : 0755) == 0 &&
			    stat(p, &st) == 0)
				e = 0;
			if (e) {
				snprintf(err, errlen, "key cache directory %s: %s: %s", dir, p,
					 strerror(e));
				*s = c;
				return -e;
			}
		}
		/* our own cache directory is made 0700 whatever mkdir -p gave it */
		if (last && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 077) &&
		    chmod(p, 0700) == 0)
			st.st_mode &= ~(mode_t)077;
		const char *why = dir_untrusted(&st, last);
		if (why) {
			snprintf(err, errlen,
				 "key cache directory %s: %s is %s (uid %u, mode %04o)", dir,
				 p[0] ? p : "/", why, (unsigned)st.st_uid,
				 (unsigned)(st.st_mode & 07777));
			*s = c;
			return -EPERM;
		}
		*s = c;
		if (last)
			break;
	}
	return 0;
}

int zka_keys_cache_max(uint64_t *max, char *err, size_t errlen)
{
	const char *e = getenv("ZKARENA_CACHE_MAX");
	char *end;
	*max = ZKA_KEYS_CACHE_MAX_DEFAULT;
	err[0] = 0;
	if (!e || !*e)
		return 0;
	errno = 0;
	unsigned long long v = strtoull(e, &end, 10);
	int sh = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : *end == 'T' ? 40 : 0;
	if (sh)
		end++;
	if (errno || end == e || *end || e[0] == '-' || (sh && v > (UINT64_MAX >> sh))) {
		snprintf(err, errlen, "ZKARENA_CACHE_MAX='%.40s' is not a size (bytes, K/M/G/T)",
			 e);
		*max = 0;
		return -EINVAL;
	}
	*max = (uint64_t)v << sh;
	return 0;
}

struct centry {
	char name[256];
	uint64_t size;
	struct timespec used;
};

/* Oldest use first. */
static int centry_cmp(const void *a, const void *b)
{
	const struct centry *x = a, *y = b;
	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

int zka_keys_cache_gc(const char *dir, uint64_t max, const char *keep, FILE *log, uint64_t *left)
{
	const char *kb = keep ? strrchr(keep, '/') : NULL;
	kb = kb ? kb + 1 : keep;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), ret = 0;
	struct centry *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	*left = 0;
	if (dfd < 0)
		return errno == ENOENT ? 0 : -errno;
	DIR *d = fdopendir(dfd);
	if (!d) {
		ret = -errno;
		close(dfd);
		return ret;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		struct stat st;
		if (l < 5 || l >= sizeof v->name ||
		    (strcmp(de->d_name + l - 4, ".zka") &&
		     (l < 6 || strcmp(de->d_name + l - 5, ".wcgx"))) ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid())
			continue; /* only this user's entries; temporaries and links left alone */
		if (n == cap) {
			struct centry *t = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof *v);
			if (!t) {
				ret = -ENOMEM;
				goto err;
			}
			v = t;
		}
		snprintf(v[n].name, sizeof v[n].name, "%s", de->d_name);
		v[n].size = (uint64_t)st.st_size;
		v[n].used = st.st_atim;
		total += v[n].size;
		n++;
	}
	if (n)
		qsort(v, n, sizeof *v, centry_cmp);
	for (size_t i = 0; i < n && total > max; i++) {
		if (kb && !strcmp(v[i].name, kb))
			continue;
		if (unlinkat(dfd, v[i].name, 0)) {
			if (log)
				fprintf(log, "zkarena: cannot remove %s/%s: %s\n", dir, v[i].name,
					strerror(errno));
			continue;
		}
		total -= v[i].size;
		ret++;
		if (log)
			fprintf(log,
				"zkarena: key cache over its cap (%llu bytes): removed %s/%s "
				"(%llu bytes, least recently used)\n",
				(unsigned long long)max, dir, v[i].name,
				(unsigned long long)v[i].size);
	}
	*left = total;
err:
	free(v);
	closedir(d);
	return ret;
}

/* The cache file of a .zkey: "<name>-<hash of its identity and the circuit's>.zka"; a .params
 * imported with snarkjs's roots (root ZKA_ROOT_SNARKJS) hashes them with another seed, so the
 * two imports of one file have two entries. */
static void cache_path(const char *zkey, const zka_file_id *k, const zka_file_id *r, uint32_t root,
		       char *out, size_t n)
{
	char dir[PATH_MAX / 2], name[96];
	zka_keys_cache_dir(dir, sizeof dir);
	out[0] = 0;
	if (!dir[0])
		return;
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
	uint64_t h =
	    zka_params_is_bellperson(zkey) && root == ZKA_ROOT_SNARKJS
		? XXH3_64bits_withSeed(ids, sizeof ids, 0x736e61726b6a73ull) /* "snarkjs" */
		: XXH3_64bits(ids, sizeof ids);
	snprintf(out, n, "%s/%s-%016llx.zka", dir, name, (unsigned long long)h);
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

/* snprintf into a fixed-size field of zka_keys_info, where a long path is cut (intended). */
static void fieldf(char *dst, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fieldf(char *dst, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, n, fmt, ap);
	va_end(ap);
}

/* One zka_keys_open call: what each source (resident, .zka, cached, imported) needs. */
struct req {
	const char *path;
	const zka_keys_opts *o;
	zka_params *p;
	zka_keys_info *ki;
	char *err;
	size_t errlen;
	double t0;
	zka_loader_opts lo;   /* for a .zka or a cache entry */
	zka_file_id kid, rid; /* the .zkey's and the .r1cs's identity (stat only) */
	char cpath[PATH_MAX]; /* the .zkey's cache entry, "" with o->no_cache */
	uint32_t root;	      /* the key's rows' roots: a .params's per o->root_snarkjs */
};

static int find_resident(const char *path, const char *r1cs, int root, char name[64]);

/* RESIDENT: the key's resident region (zka_keys_find_resident) opened; 0, or -ENOENT when
 * there is none or it does not open (the next source is tried). Opens no key file. */
static int open_resident(struct req *q)
{
	char name[64];
	int root = zka_params_is_bellperson(q->path) ? (int)q->root : -1; /* .zka, .zkey: any */
	if (q->o->no_resident || find_resident(q->path, q->o->r1cs, root, name) ||
	    zka_params_open(name, q->p, q->err, q->errlen))
		return -ENOENT;
	q->ki->seconds = now() - q->t0;
	q->ki->resident = 1;
	fieldf(q->ki->shm, sizeof q->ki->shm, "%s", name);
	fieldf(q->ki->how, sizeof q->ki->how, "resident region %s", name);
	return 0;
}

/* ZKA: the .zka read by the loader (which holds its circuit already: o->r1cs is refused). */
static int open_zka(struct req *q)
{
	zka_loader_stats ls;
	int ret;
	if (q->o->r1cs) {
		snprintf(q->err, q->errlen,
			 "%s: a .zka holds its circuit already (import it with --r1cs)", q->path);
		return -EINVAL;
	}
	if ((ret = zka_loader_load(q->path, &q->lo, q->p, &ls, q->err, q->errlen)))
		return ret;
	q->ki->seconds = now() - q->t0;
	fieldf(q->ki->shm, sizeof q->ki->shm, "%s", ls.shm);
	fieldf(q->ki->file, sizeof q->ki->file, "%s", q->path);
	fieldf(q->ki->how, sizeof q->ki->how, "read %s: %.2f GB/s, %s, %s buffers, depth %u",
	       q->path, ls.seconds > 0 ? 1e-9 * (double)ls.bytes / ls.seconds : 0.0,
	       ls.direct ? "O_DIRECT" : "buffered", ls.fixed ? "fixed" : "plain", ls.depth);
	return 0;
}

/* The .zkey's (and .r1cs's) identity into q->kid (q->rid), and its cache entry's path unless
 * o->no_cache. 0 or -errno naming the file. */
static int zkey_identity(struct req *q)
{
	struct stat sb;
	const char *r1cs = q->o->r1cs;
	if (stat(q->path, &sb)) {
		snprintf(q->err, q->errlen, "%s: %s", q->path, strerror(errno));
		return -errno;
	}
	fid_of(&sb, &q->kid);
	if (r1cs) {
		if (stat(r1cs, &sb)) {
			snprintf(q->err, q->errlen, "%s: %s", r1cs, strerror(errno));
			return -errno;
		}
		fid_of(&sb, &q->rid);
	}
	if (!q->o->no_cache)
		cache_path(q->path, &q->kid, r1cs ? &q->rid : NULL, q->root, q->cpath,
			   sizeof q->cpath);
	return 0;
}

/* CACHED: the .zkey's cache entry read by the loader when it exists and was imported from
 * this very .zkey (and circuit, or none when none is asked for); 0, or -ENOENT when there is
 * no such entry (a stale or bad one is said on stderr, its region dropped). */
static int open_cached(struct req *q)
{
	const zka_keys_opts *o = q->o;
	zka_loader_stats ls;
	char why[600] = "", dir[PATH_MAX];
	zka_keys_cache_dir(dir, sizeof dir);
	if (!q->cpath[0] || zka_keys_cache_check(dir, 0, why, sizeof why) || access(q->cpath, R_OK))
		return -ENOENT; /* an untrusted directory is named when the import writes */
	q->lo.quiet = 1;
	if (zka_loader_load(q->cpath, &q->lo, q->p, &ls, why, sizeof why) == 0) {
		zka_params_info in;
		zka_params_header(q->p->map, &in, why, sizeof why);
		if (same_file(&in.src_key, &q->kid) && in.root == q->root &&
		    (!o->r1cs ? !in.has_r1cs : in.has_r1cs && same_file(&in.src_r1cs, &q->rid))) {
			q->ki->seconds = now() - q->t0;
			fieldf(q->ki->shm, sizeof q->ki->shm, "%s", ls.shm);
			fieldf(q->ki->file, sizeof q->ki->file, "%s", q->cpath);
			/* LRU: the hit is this entry's use (its atime; mtime untouched) */
			struct timespec tu[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
			(void)utimensat(AT_FDCWD, q->cpath, tu, AT_SYMLINK_NOFOLLOW);
			fieldf(q->ki->how, sizeof q->ki->how, "cached %s: %.2f GB/s, %s", q->cpath,
			       ls.seconds > 0 ? 1e-9 * (double)ls.bytes / ls.seconds : 0.0,
			       ls.direct ? "O_DIRECT" : "buffered");
			return 0;
		}
		if (ls.shm[0])
			shm_unlink(ls.shm);
		zka_params_close(q->p);
	}
	fprintf(stderr, "zkarena: %s: stale or bad cache entry (%s); importing again\n", q->cpath,
		why[0] ? why : "another key");
	return -ENOENT;
}

/* IMPORT: the .zkey imported into a new region (every point validated), written to its cache
 * entry (a failure to cache is said and ignored), the region published under its name
 * (o->shm) and validated into q->p. */
static int open_import(struct req *q)
{
	const zka_keys_opts *o = q->o;
	const char *path = q->path, *cached = "not cached";
	char why[600] = "", name[64];
	struct region rg;
	char dir[PATH_MAX];
	struct wjob w = {.mode = 0600}, *wp = &w;
	struct zka_keys_pending *defer = NULL;
	/* invariant 2: a named region is published validated, never behind a proof; a .params
	 * was checked by its reader, so nothing is left to defer */
	if (o->defer_validate && !o->shm && !zka_params_is_bellperson(path)) {
		if (!(defer = calloc(1, sizeof *defer))) {
			snprintf(q->err, q->errlen, "%s: out of memory", path);
			return -ENOMEM;
		}
		defer->w.mode = 0600;
		wp = &defer->w;
	}
	zka_keys_cache_dir(dir, sizeof dir);
	if (q->cpath[0] && zka_keys_cache_check(dir, 1, why, sizeof why)) {
		fprintf(stderr, "zkarena: cannot cache %s (%s); continuing without\n", path, why);
	} else if (q->cpath[0]) { /* written while the points are validated */
		wp->path = q->cpath;
		if (defer) { /* q is the caller's: the paths the thread keeps are copied */
			snprintf(defer->cpath, sizeof defer->cpath, "%s", q->cpath);
			snprintf(defer->dir, sizeof defer->dir, "%s", dir);
			wp->path = defer->cpath;
		}
	}
	int ret = import_region(path, o->r1cs, q->root, o->shm != NULL, o->threads, o->progress,
				&rg, &q->kid, wp, defer, q->err, q->errlen);
	if (ret) {
		free(defer);
		return ret;
	}
	if (!q->cpath[0] && !o->no_cache) { /* said, never a silent fallback */
		zka_keys_cache_check(dir, 0, why, sizeof why);
		fprintf(stderr, "zkarena: cannot cache %s (%s); continuing without\n", path, why);
	}
	/* deferred: the cache entry's outcome is said when the validation is joined */
	if (!defer && cache_outcome(path, &w, dir))
		cached = q->cpath;
	if (o->shm && (ret = region_publish(&rg, o->shm, path, &q->kid, now() - q->t0, name, q->err,
					    q->errlen))) {
		region_drop(&rg);
		return ret;
	}
	if (o->shm)
		mprotect(rg.map, rg.size, PROT_READ);
	if ((ret = zka_params_from_map(rg.map, rg.size, path, q->p, q->err, q->errlen))) {
		if (o->shm)
			shm_unlink(name);
		if (defer) { /* its thread reads the map: joined before the unmap */
			q->p->pending = defer;
			zka__keys_pending_end(q->p, NULL, 0, NULL);
		}
		region_drop(&rg);
		return ret;
	}
	q->p->pending = defer;
	q->ki->seconds = now() - q->t0;
	if (o->shm)
		fieldf(q->ki->shm, sizeof q->ki->shm, "%s", name);
	if (strcmp(cached, "not cached"))
		fieldf(q->ki->file, sizeof q->ki->file, "%s", cached);
	else if (defer && defer->cpath[0]) /* committed there once every point passed */
		fieldf(q->ki->file, sizeof q->ki->file, "%s", defer->cpath);
	fieldf(q->ki->how, sizeof q->ki->how, "imported %s (points %s%s; %s)", path,
	       defer ? "validated beside the proof" : "validated",
	       defer ? "" : zka_keys_validated_where(),
	       defer && defer->cpath[0] ? defer->cpath : cached);
	return 0;
}

/* See zka_keys.h: the sources in order, RESIDENT, then ZKA for a .zka, else CACHED and
 * IMPORT for a .zkey; the first that serves the key returns. */
int zka_keys_open(const char *path, const zka_keys_opts *o, zka_params *p, zka_keys_info *ki,
		  char *err, size_t errlen)
{
	static const zka_keys_opts none = {0};
	zka_keys_info dummy;
	struct req q = {.path = path,
			.o = o ? o : &none,
			.p = p,
			.ki = ki ? ki : &dummy,
			.err = err,
			.errlen = errlen,
			.t0 = now()};
	memset(q.ki, 0, sizeof *q.ki);
	memset(p, 0, sizeof *p);
	q.root =
	    zka_params_is_bellperson(path) && !q.o->root_snarkjs ? ZKA_ROOT_GEN7 : ZKA_ROOT_SNARKJS;
	if (open_resident(&q) == 0)
		return 0;
	q.lo = (zka_loader_opts){.threads = q.o->threads,
				 .progress = q.o->progress,
				 .shm = q.o->shm,
				 .on_region = q.o->on_region,
				 .on_region_drop = q.o->on_region_drop,
				 .region_arg = q.o->region_arg};
	if (file_is_zka(path))
		return open_zka(&q);
	int ret = zkey_identity(&q);
	if (ret || (ret = open_cached(&q)) != -ENOENT)
		return ret;
	return open_import(&q);
}

/* ---- resident regions ---- */

int zka_keys_region_trusted(const struct stat *st, char *why, size_t whylen)
{
	uid_t me = geteuid();
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, whylen, "not a regular file");
		return 0;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, whylen, "writable by group or others (mode %04o)",
			 (unsigned)(st->st_mode & 07777));
		return 0;
	}
	if (st->st_uid == me)
		return 1;
	/* ZKARENA_KEY_OWNERS: a comma-separated list of further uids whose regions are trusted */
	const char *e = getenv("ZKARENA_KEY_OWNERS");
	while (e && *e) {
		char *end;
		unsigned long u = strtoul(e, &end, 10);
		if (end != e && (*end == ',' || !*end) && u == st->st_uid)
			return 1;
		e = strchr(e, ',');
		e = e ? e + 1 : NULL;
	}
	snprintf(why, whylen,
		 "owned by uid %u, not by this user (uid %u) nor in ZKARENA_KEY_OWNERS",
		 (unsigned)st->st_uid, (unsigned)me);
	return 0;
}

/* The header of region name into hdr, its size into *size; with trust, only a region
 * zka_keys_region_trusted accepts (-EPERM, the reason in why). Never blocks, follows no link. */
static int read_region_header(const char *name, uint8_t *hdr, uint64_t *size, int trust, char *why,
			      size_t whylen)
{
	int fd = shm_open(name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0);
	struct stat sb;
	*size = 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb)) {
		close(fd);
		return -EIO;
	}
	if (trust && !zka_keys_region_trusted(&sb, why, whylen)) {
		close(fd);
		return -EPERM;
	}
	if (!S_ISREG(sb.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	ssize_t n = pread(fd, hdr, ZKA_PARAMS_HDR, 0);
	close(fd);
	*size = (uint64_t)sb.st_size;
	return n == ZKA_PARAMS_HDR ? 0 : -EBADMSG;
}

int zka_keys_find_resident(const char *path, const char *r1cs, char name[64])
{
	/* a .params: the region of its default import (bellperson's roots) only */
	return find_resident(path, r1cs, zka_params_is_bellperson(path) ? ZKA_ROOT_GEN7 : -1, name);
}

/* zka_keys_find_resident, only a region whose key's rows are numbered by root (ZKA_ROOT_*;
 * -1: any) */
static int find_resident(const char *path, const char *r1cs, int root, char name[64])
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
		snprintf(n, sizeof n, "/%.62s", e->d_name);
		if (read_region_header(n, hdr, &size, 1, why, sizeof why) ||
		    zka_params_header(hdr, &in, why, sizeof why) || in.total != size)
			continue;
		/* a region under a content-id name must hold that content */
		char want[64];
		snprintf(want, sizeof want, "/zka-key.%016llx", (unsigned long long)in.id);
		if (strlen(n) == strlen(want) && strcmp(n, want))
			continue;
		int from = zka_params_residency(hdr, &res) == 0 && same_file(&res.from, &f);
		if (!from && !same_file(&in.src_key, &f))
			continue;
		if (r1cs && !(in.has_r1cs && same_file(&in.src_r1cs, &rf)))
			continue;
		if (root >= 0 && in.root != (uint32_t)root)
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
		snprintf(r->name, sizeof r->name, "/%.62s", e->d_name);
		r->resident = res;
		char why[200];
		r->ok = read_region_header(r->name, hdr, &r->size, 0, why, sizeof why) == 0 &&
			zka_params_header(hdr, &r->info, why, sizeof why) == 0;
		r->has_res = r->ok && zka_params_residency(hdr, &r->res) == 0;
		mappers(r->name, r->mappers, sizeof r->mappers);
	}
	free(hdr);
	closedir(d);
	*out = v;
	return n;
}

int zka_keys_resolve(const char *id, char name[64], char *err, size_t errlen)
{
	zka_keys_region *v;
	int n = zka_keys_list(&v), hits = 0;
	const char *q = id[0] == '/' ? id + 1 : id;
	if (!strncmp(q, "zka-key.", 8))
		q += 8;
	name[0] = 0;
	for (int i = 0; i < n; i++)
		if (v[i].resident && *q && !strncmp(v[i].name + 9, q, strlen(q))) {
			hits++;
			snprintf(name, 64, "%s", v[i].name);
		}
	free(v);
	if (hits != 1) {
		snprintf(err, errlen, "%s: %s", id,
			 hits ? "ambiguous (several resident keys match)"
			      : "no resident key with this id");
		return hits ? -EEXIST : -ENOENT;
	}
	return 0;
}

int zka_keys_evict(const char *id, char *err, size_t errlen)
{
	char name[64];
	int r = zka_keys_resolve(id, name, err, errlen);
	if (r)
		return r;
	if (shm_unlink(name)) {
		snprintf(err, errlen, "%s: %s", name, strerror(errno));
		return -errno;
	}
	return 0;
}
