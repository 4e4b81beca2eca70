/* devkey.c - params region -> device key (devkey.h): the two ways a proving key in host memory
 * becomes a key on a CUDA device, one per caller, and what they share.
 *
 * Why two policies. zkarena-gpud keeps a key for thousands of proofs: its region is already
 * resident and mapped when the first job comes, so the registration (read-only, all five
 * point sets at once: zka_gpu_pin_key) runs before the upload, synchronously, once per region;
 * the key's window tables (19.5 GiB at BN254 2^22) are built behind the first proofs; a key
 * whose region is replaced is retired, not freed, while other lanes may still prove with it.
 * `prove --gpu` proves once: what counts is the wall time from the command's start (issue 18:
 * 0.6 s at BN254 2^22), so CUDA's start, the registration and the upload run on a thread beside
 * the key's read, the witness and a, b; each set is copied as soon as its registration ends
 * (upload gate), or a resident key is staged through pinned buffers by pread from its file;
 * no window tables (they cost more than they save on one proof). Both measured paths are kept
 * as they were (the H200 figures in the comments below). They share the library's primitives
 * (zka_gpu_pin_key_sets / zka_gpu_pin_key, cut at 64 GiB where the upload cuts its copies;
 * zka_gpu_key_load) and this module's rule that a refused registration is never silent: the
 * upload runs from pageable memory and a NOTE (prep) or WARNING (cache) line says so.
 *
 * ---- zka_devkey_prep: one proof ----
 * Objects: one zka_devkey_prep (heap), its thread (prep_main), a populate thread, up to five
 * set-registration threads, the context g and key made on the thread, the registrations pin
 * (early) or spin[i] (per set).
 * CUDA's start (~0.3 s) and the key's upload need no witness, and a, b need no device, so:
 *
 *   prep thread:  zka_gpu_open -> [region told] -> register the key's point
 *                 sections -> [key posted] -> key upload: registered during the read, copied
 *                 directly; else (a resident key) staged through pinned buffers filled by
 *                 CPU threads (zka_gpu_set_upload_staging, prep_upload) with pread from the
 *                 region's file (prep_read: the sets' pages never mapped), or with
 *                 ZKA_PROVE_UPLOAD=registered registered a set per thread, each set's copy
 *                 released to the upload as soon as it is registered (zka_gpu_set_upload_gate)
 *   main thread:  key (resident map, or .zka load: region told before its reads) -> post
 *                 -> witness -> a, b -> register a, b, w -> join -> prove (c made on the
 *                 device); a, b, w are registered beside the key's copy when it is staged
 *                 (as soon as the thread has chosen that path, zka_devkey_prep_abw_early),
 *                 else after the join
 *
 * States of the early registration (`early`, guarded by mu; the loader's on_region callback
 * asks for it from the main thread while the key is read from disk):
 *   NONE -> ASKED       zka_devkey_prep_region (the loader mapped the region, nothing read)
 *   ASKED -> PINNING    prep_run (CUDA is up)
 *   PINNING -> PINNED   prep_run (registered: the upload later skips this step)
 *   PINNING -> NONE     prep_run (refused: the ordinary registration runs after the post)
 *   ASKED -> NONE       zka_devkey_prep_region_drop, zka_devkey_prep_post (never started)
 *   PINNED -> NONE      zka_devkey_prep_region_drop (the load failed: unpinned before the
 *                       unmap)
 * The key is posted as soon as it is in memory (NULL: the command failed first; the thread
 * then only closes what it opened, in prep_end). The registration of the points is a speed-up:
 * when the driver refuses it the upload runs from pageable memory and a NOTE line says so.
 * Invariants
 *   P1. g and the key are the thread's until the join (zka_devkey_prep_join), the caller's
 *       after it; before the join the caller may use g only to register its own buffers
 *       (zka_gpu_pin_ranges: it reads g's device alone), and only once
 *       zka_devkey_prep_abw_early said 1 (the staged upload was chosen).
 *   P2. PINNING is left only by the thread; zka_devkey_prep_region_drop waits it out, so nothing
 *       of a dropped region stays registered.
 *   P3. The key is posted exactly once (zka_devkey_prep_post, or the join's NULL post).
 *   P4. Every registration (pin, spin[i]) is undone in prep_end, which the caller runs before
 *       it unmaps the region (zka_params_close).
 *
 * ---- zka_devkey_cache: keys kept (gpud) ----
 * Objects: per circuit (< ZKA_DEVKEY_CIRCUITS) its key, the mapping it came from (key_src),
 * its region's registration (pin) and the region last tried (pin_tried); retired keys and the
 * registrations of retired streamed keys' regions (freed at zka_devkey_cache_free); mu guards
 * all of it (a load holds it), warn_mu the first registration failure.
 * Transitions of a circuit's entry, all in zka_devkey_cache_get under mu:
 *   EMPTY -> LOADED          first use: cache_pin (once per region), zka_gpu_key_load
 *   LOADED -> LOADED'        p->map != key_src: the key retired, its region's registration
 *                            unpinned, or retired with it when the key streams (it copies from
 *                            that region at every proof), then as from EMPTY
 *   LOADED -> (said)         zka_devkey_cache_proved / _tick: the tables' readiness logged once
 * Invariants
 *   C1. A key is freed only at zka_devkey_cache_free (a lane may prove with a retired key).
 *   C2. A registration is undone only while its region is still mapped: on replacement (the
 *       caller unmaps the old region after get returns) or at free, after the keys.
 *   C3. A region is registered at most once (pin_tried), whether or not the driver accepted.
 */

#include "gpud/devkey.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { EARLY_NONE, EARLY_ASKED, EARLY_PINNING, EARLY_PINNED };
struct zka_devkey_prep {
	pthread_t th;
	int started, device, was_posted;
	pthread_mutex_t mu;
	pthread_cond_t cv;   /* any change of early or was_posted */
	const zka_params *p; /* set before the post; NULL: nothing to load */
	zka_gpu *g;
	zka_gpu_key *key;
	zka_gpu_pin *pin;
	int early, early_done; /* early: the state above; early_done: the pin came from it */
	const void *ep[5];     /* the point sections of the region being read */
	size_t el[5];
	int rc; /* the first failure's -errno, with err */
	/* the ordinary registration, a set per thread (spin[i] set i's pin, NULL when refused);
	 * set_done: the sets registered or refused (bit i, guarded by mu, cv told) */
	zka_gpu_pin *spin[5];
	int set_done, set_rc[5];
	char set_err[5][384];
	double t_pin0;
	char err[768], pin_note[512];
	double t_open, t_pin, t_key; /* seconds of each step */
	/* the staged upload of a key not registered during its read: ZKA_PROVE_UPLOAD read once
	 * at the post (prep_stage_threads: stage_T threads, 0 registered; stage_mapped,
	 * stage_bad), staged the threads it used (0: registered instead), t_stage its buffers'
	 * setup */
	int stage_T, stage_mapped, stage_bad;
	int staged;
	double t_stage;
	char stage_note[512];
	/* a, b and w's registration beside a staged upload (zka_devkey_prep_abw_early; guarded by
	 * mu, cv told): 0 undecided, 1 the key is being staged (g is up), -1 not (register after
	 * the join)
	 */
	int abw_early;
	/* the resident region's file (zka_devkey_prep_reader; -1: none), read by the stager's
	 * threads with pread (prep_read) instead of memcpy from the mapping: the point sets' pages
	 * are then never mapped, so neither populated beside CUDA's start nor torn down at exit
	 * (use_reader: chosen at the post; mapped: ZKA_PROVE_UPLOAD=staged-mapped) */
	int rfd, use_reader;
	char rname[64], reader_note[256];
	/* the populate thread (started by zka_devkey_prep_post, joined before the pin): the key's
	 * pages entered into this process's page tables while CUDA starts, so that registering them
	 * does not also fault them in (a resident region is freshly mapped) */
	pthread_t th_pop;
	int pop_started, pop_errno;
	double t_pop;
};

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif

/* The populate thread: madvise(MADV_POPULATE_READ) over the five point sets (what
 * zka_gpu_pin_key registers next). */
static void *prep_populate(void *arg)
{
	struct zka_devkey_prep *x = arg;
	const void *p[5];
	size_t len[5];
	zka_pk_point_sets(&x->p->pk, p, len);
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	double t0 = mono();
	for (int i = 0; i < 5 && !x->pop_errno; i++) {
		uintptr_t a = (uintptr_t)p[i] & ~(pg - 1), b = (uintptr_t)p[i] + len[i];
		if (len[i] && madvise((void *)a, b - a, MADV_POPULATE_READ))
			x->pop_errno = errno;
	}
	x->t_pop = mono() - t0;
	return NULL;
}

/* One set's registration (i: A, B1, B2, C, H as zka_pk_point_sets orders them), read-only;
 * then the set is marked done and the upload gate woken. Refused: set_rc[i], set_err[i]. */
struct prep_set {
	struct zka_devkey_prep *x;
	int i;
};

static void prep_pin_set(struct zka_devkey_prep *x, int i)
{
	const void *p[5];
	size_t len[5];
	zka_pk_point_sets(&x->p->pk, p, len);
	for (int j = 0; j < 5; j++)
		len[j] = j == i ? len[j] : 0;
	zka_gpu_pin *pin = NULL;
	int r = zka_gpu_pin_key_sets(x->g, p, len, 1, &pin, x->set_err[i], sizeof x->set_err[i]);
	pthread_mutex_lock(&x->mu);
	x->spin[i] = r ? NULL : pin;
	x->set_rc[i] = r;
	x->set_done |= 1 << i;
	if (x->set_done == 31)
		x->t_pin = mono() - x->t_pin0;
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
}

static void *prep_set_main(void *arg)
{
	struct prep_set *a = arg;
	prep_pin_set(a->x, a->i);
	return NULL;
}

/* The key load's upload gate: the first of the sets still to copy whose registration has
 * finished (waiting for one); a refused set is copied from pageable memory. */
static int prep_gate(void *arg, int todo)
{
	struct zka_devkey_prep *x = arg;
	pthread_mutex_lock(&x->mu);
	while (!(x->set_done & todo))
		pthread_cond_wait(&x->cv, &x->mu);
	int i = __builtin_ctz((unsigned)(x->set_done & todo));
	pthread_mutex_unlock(&x->mu);
	return i;
}

/* The ordinary registration and the upload, overlapped: a thread per set registers it while
 * the key load copies the sets already registered. H200, BN254 2^22 resident, 7 runs each
 * interleaved (2026-12-03, docs/measurements/2026-12-03-h200-s18-c-c-modes.txt): one after
 * the other, registration 0.07-0.09 s then upload 0.035 s, wall 0.53-0.68 s (median 0.57);
 * overlapped, the upload ends 0.01-0.02 s after the registration, wall 0.54-0.58 s (median
 * 0.56). Registering a, b and w beside the key's registration as well slowed both (0.54-0.63
 * s), so they are registered after it. */
static void prep_pin_and_load(struct zka_devkey_prep *x)
{
	struct prep_set a[5];
	pthread_t th[5];
	int started = 0;
	x->t_pin0 = mono();
	for (int i = 0; i < 5; i++) {
		a[i] = (struct prep_set){x, i};
		if (pthread_create(&th[i], NULL, prep_set_main, &a[i]) == 0)
			started |= 1 << i;
		else
			prep_pin_set(x, i); /* no thread: here, before the upload */
	}
	zka_gpu_set_upload_gate(x->g, prep_gate, x);
	double t0 = mono();
	x->rc = zka_gpu_key_load(x->g, &x->p->pk, &x->key, x->err, sizeof x->err);
	x->t_key = mono() - t0;
	for (int i = 0; i < 5; i++)
		if (started >> i & 1)
			pthread_join(th[i], NULL);
	for (int i = 0; i < 5; i++)
		if (x->set_rc[i]) { /* the first refusal, once */
			snprintf(x->pin_note, sizeof x->pin_note,
				 "NOTE: the key's memory could not be registered (%s): its upload "
				 "runs from pageable memory",
				 x->set_err[i]);
			break;
		}
}

/* The threads of the staged upload (zka_gpu_set_upload_staging) for a key not registered during
 * its read, such as a resident key: ZKA_PROVE_UPLOAD=staged[:T], staged-mapped[:T] (*mapped
 * set: copied from the region's mapping, not read from its file) or registered (then 0: the
 * sets are registered and copied once registered, prep_pin_and_load); default staged with
 * half the online CPUs, 2..8. An unreadable value: the default, and *bad set. */
static int prep_stage_threads(int *bad, int *mapped)
{
	*bad = *mapped = 0;
	long nc = sysconf(_SC_NPROCESSORS_ONLN);
	int def = nc >= 16 ? 8 : nc >= 4 ? (int)(nc / 2) : 2;
	const char *e = getenv("ZKA_PROVE_UPLOAD"); /* an operator's A/B switch */
	if (!e || !*e)
		return def;
	if (!strcmp(e, "registered"))
		return 0;
	const char *t = NULL;
	if (!strncmp(e, "staged-mapped", 13)) {
		*mapped = 1;
		t = e + 13;
	} else if (!strncmp(e, "staged", 6)) {
		t = e + 6;
	}
	if (t && !*t)
		return def;
	char *end = NULL;
	long v = t && *t == ':' ? strtol(t + 1, &end, 10) : -1;
	if (v >= 1 && v <= ZKA_GPU_STAGE_MAX && end && !*end)
		return (int)v;
	*bad = 1;
	*mapped = 0;
	return def;
}

/* The stager's reader for a resident region (zka_gpu_upload_read): src's bytes pread from the
 * region's file at src's offset in the mapping. */
static int prep_read(void *arg, void *dst, const void *src, size_t len, char *err, size_t errlen)
{
	struct zka_devkey_prep *x = arg;
	const char *base = x->p->map;
	size_t off = (size_t)((const char *)src - base);
	if ((const char *)src < base || off > x->p->size || len > x->p->size - off) {
		snprintf(err, errlen, "resident region %s: %zu bytes at offset %zu are outside it",
			 x->rname, len, off);
		return -EINVAL;
	}
	for (size_t done = 0; done < len;) {
		ssize_t r = pread(x->rfd, (char *)dst + done, len - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = r < 0 ? errno : EIO;
			snprintf(err, errlen, "resident region %s: pread of %zu bytes at %zu: %s",
				 x->rname, len - done, off + done,
				 r < 0 ? strerror(e) : "end of file (truncated)");
			return -e;
		}
		done += (size_t)r;
	}
	return 0;
}

/* Opens the resident region NAME (mapped at p) again for reading, for prep_read; keeps it
 * only when it is that region still (its size and its header page equal the mapping's: the
 * header holds every section's checksum); else a NOTE in reader_note and rfd -1. */
void zka_devkey_prep_reader(struct zka_devkey_prep *x, const char *name, const zka_params *p)
{
	char hdr[4096];
	struct stat st;
	snprintf(x->rname, sizeof x->rname, "%s", name);
	int fd = shm_open(name, O_RDONLY | O_CLOEXEC, 0);
	const char *why = NULL;
	if (fd < 0)
		why = strerror(errno);
	else if (fstat(fd, &st) || (size_t)st.st_size != p->size ||
		 pread(fd, hdr, sizeof hdr, 0) != (ssize_t)sizeof hdr ||
		 memcmp(hdr, p->map, sizeof hdr))
		why = "it changed since it was mapped";
	if (why) {
		if (fd >= 0)
			close(fd);
		snprintf(x->reader_note, sizeof x->reader_note,
			 "NOTE: the resident region %s cannot be read again (%s): the staged "
			 "upload copies the key from its mapping",
			 name, why);
		return;
	}
	x->rfd = fd;
}

/* The key upload when nothing was registered during its read: staged, or (refused, or asked
 * for) registered a set per thread and copied once registered; a NOTE in stage_note says why
 * the staged path was not taken when it was meant to be. */
static void prep_upload(struct zka_devkey_prep *x)
{
	int T = x->stage_T;
	if (x->stage_bad)
		snprintf(x->stage_note, sizeof x->stage_note,
			 "NOTE: ZKA_PROVE_UPLOAD='%.200s' is not staged[:T], staged-mapped[:T] (T "
			 "1..%d) or registered: staged with the default %d threads",
			 getenv("ZKA_PROVE_UPLOAD"), ZKA_GPU_STAGE_MAX, T);
	if (T > 0) {
		char e[384];
		double t0 = mono();
		int r = zka_gpu_set_upload_staging(x->g, T, 0, e, sizeof e);
		x->t_stage = mono() - t0;
		if (r == 0) {
			x->staged = T;
			zka_gpu_set_upload_reader(x->g, x->use_reader ? prep_read : NULL, x);
			pthread_mutex_lock(&x->mu);
			x->abw_early = 1; /* the main thread may use g beside the copy */
			pthread_cond_broadcast(&x->cv);
			pthread_mutex_unlock(&x->mu);
			t0 = mono();
			x->rc = zka_gpu_key_load(x->g, &x->p->pk, &x->key, x->err, sizeof x->err);
			x->t_key = mono() - t0;
			return;
		}
		snprintf(x->stage_note, sizeof x->stage_note,
			 "NOTE: the staged upload is unavailable (%s): the key's memory is "
			 "registered instead",
			 e);
	}
	prep_pin_and_load(x);
}

static void prep_run(struct zka_devkey_prep *x)
{
	double t0 = mono();
	x->rc = zka_gpu_open(&x->g, x->device, x->err, sizeof x->err);
	if (x->rc == 0)
		zka_gpu_set_precompute(x->g, 0); /* one proof per key load */
	x->t_open = mono() - t0;
	pthread_mutex_lock(&x->mu);
	while (!x->was_posted) {
		if (x->early == EARLY_ASKED && x->rc == 0) {
			/* the region's pages are registered while the loader's reads fill them
			 * (ordinary registration: they are still being written) */
			x->early = EARLY_PINNING;
			pthread_mutex_unlock(&x->mu);
			char e[384];
			zka_gpu_pin *pin = NULL;
			t0 = mono();
			int r = zka_gpu_pin_key_sets(x->g, x->ep, x->el, 0, &pin, e, sizeof e);
			double t = mono() - t0;
			pthread_mutex_lock(&x->mu);
			x->early = r ? EARLY_NONE : EARLY_PINNED;
			if (!r) {
				x->pin = pin;
				x->t_pin = t;
			}
			pthread_cond_broadcast(&x->cv);
			continue;
		}
		pthread_cond_wait(&x->cv, &x->mu);
	}
	int pinned = x->early == EARLY_PINNED;
	x->early_done = pinned;
	pthread_mutex_unlock(&x->mu);
	if (x->pop_started) {
		pthread_join(x->th_pop, NULL);
		x->pop_started = 0;
	}
	if (x->rc || !x->p)
		return;
	if (!pinned) {
		prep_upload(x);
		return;
	}
	t0 = mono();
	x->rc = zka_gpu_key_load(x->g, &x->p->pk, &x->key, x->err, sizeof x->err);
	x->t_key = mono() - t0;
}

/* The prep thread: prep_run, then the main thread told that a, b and w wait for the join
 * unless the staged upload said otherwise. */
static void *prep_main(void *arg)
{
	struct zka_devkey_prep *x = arg;
	prep_run(x);
	pthread_mutex_lock(&x->mu);
	if (x->abw_early == 0)
		x->abw_early = -1;
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
	return NULL;
}

/* The loader's on_region: the region being read (no byte landed yet); asks the thread to
 * register its point sections beside the reads. Never fails the load. */
int zka_devkey_prep_region(void *arg, void *map, size_t size, const zka_params_info *in)
{
	struct zka_devkey_prep *x = arg;
	(void)size;
	pthread_mutex_lock(&x->mu);
	if (x->started && !x->was_posted && x->early == EARLY_NONE && !x->pin) {
		zka_params_point_sections(in, map, x->ep, x->el);
		x->early = EARLY_ASKED;
		pthread_cond_broadcast(&x->cv);
	}
	pthread_mutex_unlock(&x->mu);
	return 0;
}

/* The loader's on_region_drop: the load failed and the region goes away; when this returns
 * nothing of it is registered. */
void zka_devkey_prep_region_drop(void *arg)
{
	struct zka_devkey_prep *x = arg;
	pthread_mutex_lock(&x->mu);
	while (x->early == EARLY_PINNING)
		pthread_cond_wait(&x->cv, &x->mu);
	if (x->early == EARLY_PINNED) {
		zka_gpu_unpin(x->pin);
		x->pin = NULL;
		x->t_pin = 0;
	}
	x->early = EARLY_NONE;
	pthread_mutex_unlock(&x->mu);
}

/* Starts the thread (CUDA's start begins at once); -errno when it cannot be made. */
static int prep_start_at(struct zka_devkey_prep *x, int device)
{
	memset(x, 0, sizeof *x);
	x->device = device;
	x->rfd = -1;
	pthread_mutex_init(&x->mu, NULL);
	pthread_cond_init(&x->cv, NULL);
	int r = pthread_create(&x->th, NULL, prep_main, x);
	if (r) {
		pthread_mutex_destroy(&x->mu);
		pthread_cond_destroy(&x->cv);
		return -r;
	}
	x->started = 1;
	return 0;
}

/* Hands the thread the key in memory (p, or NULL to stop it); once per zka_devkey_prep_start_at. */
void zka_devkey_prep_post(struct zka_devkey_prep *x, const zka_params *p)
{
	if (!x->started || x->was_posted)
		return;
	pthread_mutex_lock(&x->mu);
	if (x->early == EARLY_ASKED)
		x->early = EARLY_NONE; /* CUDA was not up in time: the ordinary path */
	x->p = p;
	/* a registration still running finishes on the thread, which then decides; a staged
	 * upload that reads the region's file needs no page of the point sets mapped */
	x->stage_T = prep_stage_threads(&x->stage_bad, &x->stage_mapped);
	x->use_reader =
	    p && x->early == EARLY_NONE && x->rfd >= 0 && x->stage_T > 0 && !x->stage_mapped;
	if (p && x->early == EARLY_NONE && !x->use_reader &&
	    pthread_create(&x->th_pop, NULL, prep_populate, x) == 0)
		x->pop_started = 1; /* (without it the registration faults the pages in itself) */
	x->was_posted = 1;
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
}

/* Whether a, b and w may be registered before the join: waits until the thread has chosen the
 * key's path; 1 when it stages the key (g is open; registering beside the registration of the
 * key's sets slowed both, s18-c, so only beside a staged copy), else 0. */
int zka_devkey_prep_abw_early(struct zka_devkey_prep *x)
{
	if (!x->started)
		return 0;
	pthread_mutex_lock(&x->mu);
	while (x->abw_early == 0)
		pthread_cond_wait(&x->cv, &x->mu);
	int r = x->abw_early > 0;
	pthread_mutex_unlock(&x->mu);
	return r;
}

/* Waits for the thread; returns its result (0: g and the key ready). */
static int prep_join(struct zka_devkey_prep *x)
{
	if (!x->started)
		return -EINVAL;
	zka_devkey_prep_post(x, NULL); /* nothing when the key was posted */
	pthread_join(x->th, NULL);
	x->started = 0;
	pthread_mutex_destroy(&x->mu);
	pthread_cond_destroy(&x->cv);
	return x->rc;
}

/* Frees what the thread made (joining it first when it still runs). */
static void prep_end(struct zka_devkey_prep *x)
{
	if (x->started)
		prep_join(x);
	zka_gpu_key_free(x->key);
	zka_gpu_unpin(x->pin); /* before the params region is unmapped */
	for (int i = 0; i < 5; i++) {
		zka_gpu_unpin(x->spin[i]);
		x->spin[i] = NULL;
	}
	zka_gpu_close(x->g);
	x->key = NULL;
	x->pin = NULL;
	x->g = NULL;
	if (x->rfd >= 0)
		close(x->rfd);
	x->rfd = -1;
}

int zka_devkey_prep_start(zka_devkey_prep **xp, int device)
{
	zka_devkey_prep *x = calloc(1, sizeof *x);
	*xp = NULL;
	if (!x)
		return -ENOMEM;
	int r = prep_start_at(x, device);
	if (r) {
		free(x);
		return r;
	}
	*xp = x;
	return 0;
}

int zka_devkey_prep_join(zka_devkey_prep *x, zka_devkey_report *r, char *err, size_t errlen)
{
	int rc = prep_join(x);
	if (r) {
		memset(r, 0, sizeof *r);
		r->open = x->t_open;
		r->pop = x->t_pop;
		r->pop_errno = x->pop_errno;
		r->pin = x->t_pin;
		r->pin_early = x->early_done;
		r->key = x->t_key;
		r->staged = x->staged;
		r->stage = x->t_stage;
		r->reader = x->use_reader && x->staged;
		r->device = x->device;
		snprintf(r->stage_note, sizeof r->stage_note, "%s", x->stage_note);
		snprintf(r->reader_note, sizeof r->reader_note, "%s", x->reader_note);
		snprintf(r->pin_note, sizeof r->pin_note, "%s", x->pin_note);
	}
	if (rc && err)
		snprintf(err, errlen, "%s", x->err);
	return rc;
}

zka_gpu *zka_devkey_prep_gpu(const zka_devkey_prep *x)
{
	return x->g;
}

zka_gpu_key *zka_devkey_prep_key(const zka_devkey_prep *x)
{
	return x->key;
}

void zka_devkey_prep_end(zka_devkey_prep *x)
{
	if (!x)
		return;
	prep_end(x);
	free(x);
}

/* ---- zka_devkey_cache ---- */

struct zka_devkey_cache {
	pthread_mutex_t mu;
	zka_gpu_key *key[ZKA_DEVKEY_CIRCUITS];
	const void *key_src[ZKA_DEVKEY_CIRCUITS]; /* the params mapping each key was loaded from */
	zka_gpu_key *retired[ZKA_DEVKEY_CIRCUITS];
	int nretired;
	zka_gpu_pin *retired_pin[ZKA_DEVKEY_CIRCUITS]; /* retired streamed keys' regions' pins */
	int nretired_pin;
	zka_gpu_pin
	    *pin[ZKA_DEVKEY_CIRCUITS]; /* the registration of key_src's point sets, or NULL */
	const void
	    *pin_tried[ZKA_DEVKEY_CIRCUITS]; /* the region last registered, or that failed to */
	const zka_gpu_key *tables_said[ZKA_DEVKEY_CIRCUITS]; /* the key whose tables were logged */
	unsigned windowed[ZKA_DEVKEY_CIRCUITS]; /* proofs of the key before its tables were ready */
	pthread_mutex_t warn_mu;		/* guards warn (read by the status tick) */
	char warn[256]; /* the first registration failure, for the status note */
};

int zka_devkey_cache_new(zka_devkey_cache **cp)
{
	zka_devkey_cache *c = calloc(1, sizeof *c);
	*cp = NULL;
	if (!c)
		return -ENOMEM;
	pthread_mutex_init(&c->mu, NULL);
	pthread_mutex_init(&c->warn_mu, NULL);
	*cp = c;
	return 0;
}

/* Registers circuit's params region p once (under mu) before its key's upload, undoing the
 * registration of the region it replaces (kept, in retired_pin, when the replaced key streams
 * from it: keep_old); a failure is logged once per region and kept for the status note, and
 * the upload then runs from pageable memory. */
static void cache_pin(zka_devkey_cache *x, zka_gpu *g, uint32_t circuit, const zka_params *p,
		      int keep_old)
{
	if (x->pin_tried[circuit] == p->map)
		return;
	if (keep_old && x->pin[circuit] && x->nretired_pin < ZKA_DEVKEY_CIRCUITS)
		x->retired_pin[x->nretired_pin++] = x->pin[circuit];
	else
		zka_gpu_unpin(
		    x->pin[circuit]); /* the replaced region's, still mapped (gpud/main.c) */
	x->pin[circuit] = NULL;
	x->pin_tried[circuit] = p->map;
	char e[512] = "";
	double t0 = mono();
	int r = zka_gpu_pin_key(g, &p->pk, &x->pin[circuit], e, sizeof e);
	if (r == 0) {
		fprintf(stderr,
			"zkarena-gpud: circuit %u: params region's key points (of %.1f MiB) "
			"registered with cudaHostRegisterReadOnly in %.3f s\n",
			circuit, (double)p->size / 1048576.0, mono() - t0);
		return;
	}
	fprintf(stderr,
		"zkarena-gpud: WARNING: circuit %u: cannot register its params region's key points "
		"(of %.1f MiB) as pinned memory: %s; its key is uploaded from PAGEABLE memory "
		"(several times slower)\n",
		circuit, (double)p->size / 1048576.0, e);
	pthread_mutex_lock(&x->warn_mu);
	if (!x->warn[0])
		snprintf(x->warn, sizeof x->warn,
			 "WARNING: circuit %u's params region not registered (%.150s): key uploads "
			 "at pageable speed",
			 circuit, e);
	pthread_mutex_unlock(&x->warn_mu);
}

/* The "key on the device" line: the MSM path, then the upload and the window tables (built
 * in the load, or building behind it: then tables_check says when they are ready). */
static void key_line(uint32_t circuit, zka_gpu_key *k)
{
	zka_gpu_key_times t;
	zka_gpu_key_timing(k, &t);
	double mib = (double)t.bytes / 1048576.0;
	const char *src = t.pinned ? "pinned" : "PAGEABLE";
	char e[256], tab[96];
	int ts = zka_gpu_key_tables(k, NULL, e, sizeof e);
	if (ts == ZKA_GPU_TABLES_BUILDING)
		snprintf(tab, sizeof tab, "window tables building in the background");
	else
		snprintf(tab, sizeof tab, "window tables %.3f s", t.tables);
	if (t.split)
		fprintf(
		    stderr,
		    "zkarena-gpud: circuit %u: key on the device: %s; uploaded %.1f MiB in %.3f s "
		    "(%.1f GB/s, %s), %s, key load %.3f s in all\n",
		    circuit, zka_gpu_key_mode(k), mib, t.upload,
		    t.upload > 0 ? (double)t.bytes / t.upload / 1e9 : 0.0, src, tab, t.total);
	else /* an engine that does not stamp its phases: only the whole load is known */
		fprintf(
		    stderr,
		    "zkarena-gpud: circuit %u: key on the device: %s; uploaded %.1f MiB (%s) with "
		    "the window tables in %.3f s (%.1f GB/s at least; upload and tables not "
		    "split)\n",
		    circuit, zka_gpu_key_mode(k), mib, src, t.total,
		    t.total > 0 ? (double)t.bytes / t.total / 1e9 : 0.0);
}

zka_gpu_key *zka_devkey_cache_get(zka_devkey_cache *x, zka_gpu *g, uint32_t circuit,
				  const zka_params *p, char *err, size_t errlen)
{
	if (circuit >= ZKA_DEVKEY_CIRCUITS) {
		snprintf(err, errlen, "circuit %u out of range", circuit);
		return NULL;
	}
	pthread_mutex_lock(&x->mu);
	zka_gpu_key *k = x->key[circuit];
	int keep_old = 0; /* the replaced key streams from its region: keep it registered */
	if (k && x->key_src[circuit] != p->map) {
		keep_old = zka_gpu_key_streamed(k);
		if (x->nretired < ZKA_DEVKEY_CIRCUITS)
			x->retired[x->nretired++] = k;
		x->key[circuit] = k = NULL;
	}
	if (!k) {
		cache_pin(x, g, circuit, p, keep_old);
		if (zka_gpu_key_load(g, &p->pk, &k, err, errlen) == 0) {
			x->key[circuit] = k;
			x->key_src[circuit] = p->map;
			key_line(circuit, k);
		} else {
			k = NULL;
		}
	}
	pthread_mutex_unlock(&x->mu);
	return k;
}

/* Says once per key, when its window tables are ready, how long their build took and behind
 * how many proofs (windowed: this proof ran without them); under mu. */
static void tables_check(zka_devkey_cache *x, uint32_t circuit, zka_gpu_key *k, int windowed)
{
	if (k && x->key[circuit] == k && x->tables_said[circuit] != k) {
		double bs = 0;
		char e[256] = "";
		int ts = zka_gpu_key_tables(k, &bs, e, sizeof e);
		x->windowed[circuit] += windowed;
		if (ts == ZKA_GPU_TABLES_READY)
			fprintf(
			    stderr,
			    "zkarena-gpud: circuit %u: window tables ready, built in %.3f s on the "
			    "device behind %u proof%s (windowed MSM); the next proofs use them\n",
			    circuit, bs, x->windowed[circuit],
			    x->windowed[circuit] == 1 ? "" : "s");
		else if (ts < 0)
			fprintf(
			    stderr,
			    "zkarena-gpud: WARNING: circuit %u: the window tables' build failed "
			    "(%s); proofs stay on the windowed MSM\n",
			    circuit, e);
		if (ts != ZKA_GPU_TABLES_BUILDING) {
			x->tables_said[circuit] = k;
			x->windowed[circuit] = 0;
		}
	}
}

void zka_devkey_cache_proved(zka_devkey_cache *x, uint32_t circuit, zka_gpu_key *k, int windowed)
{
	if (circuit >= ZKA_DEVKEY_CIRCUITS)
		return;
	pthread_mutex_lock(&x->mu);
	tables_check(x, circuit, k, windowed);
	pthread_mutex_unlock(&x->mu);
}

void zka_devkey_cache_tick(zka_devkey_cache *x)
{
	/* a key load holds mu for seconds: the tick does not wait for it */
	if (pthread_mutex_trylock(&x->mu) == 0) {
		for (uint32_t i = 0; i < ZKA_DEVKEY_CIRCUITS; i++)
			tables_check(x, i, x->key[i], 0);
		pthread_mutex_unlock(&x->mu);
	}
}

void zka_devkey_cache_warn(zka_devkey_cache *x, char *buf, size_t len)
{
	pthread_mutex_lock(&x->warn_mu);
	snprintf(buf, len, "%s", x->warn);
	pthread_mutex_unlock(&x->warn_mu);
}

void zka_devkey_cache_free(zka_devkey_cache *x)
{
	if (!x)
		return;
	for (int i = 0; i < ZKA_DEVKEY_CIRCUITS; i++)
		zka_gpu_key_free(x->key[i]);
	for (int i = 0; i < x->nretired; i++)
		zka_gpu_key_free(x->retired[i]);
	for (int i = 0; i < ZKA_DEVKEY_CIRCUITS; i++) /* before gpud unmaps the regions */
		zka_gpu_unpin(x->pin[i]);
	for (int i = 0; i < x->nretired_pin; i++)
		zka_gpu_unpin(x->retired_pin[i]);
	pthread_mutex_destroy(&x->mu);
	pthread_mutex_destroy(&x->warn_mu);
	free(x);
}
