/* cmd_prove.c - `zkarena prove [options] circuit.zkey witness.wtns proof.json public.json`:
 * the snarkjs/rapidsnark-compatible prover command, on the CPU or (--gpu) on a CUDA device. */
#include "shm/zka_arena.h"
#include "synth/client.h"
#include "synth/pipe.h"
#include "keys/zka_keys.h"
#include "tools/cli.h"
#include "tools/util.h"
#include "zk/abc.h"
#include "zk/decimal.h"
#include "zk/groth16.h"
#include "zk/json_io.h"
#include "zk/opt.h"
#include "zk/r1cs.h"
#include "zk/wtns.h"
#include "zk/zkey.h"
#ifdef ZKA_HAVE_CUDA
#include "cuda/zka_gpu.h"

#include <pthread.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#endif

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: zkarena prove [options] circuit.zkey|circuit.zka witness.wtns proof.json public.json\n"
		"       zkarena prove [options] circuit.zka input.json proof.json public.json\n"
		"\n"
		"Proves with a snarkjs Groth16 key (BN254 or BLS12-381, taken from the key) and a\n"
		"circom witness; writes proof.json and public.json as snarkjs does, atomically.\n"
		"Given input.json (a name ending in .json) it first computes the witness, as\n"
		"`snarkjs groth16 fullprove` does, with the graph `import --c` recorded beside the\n"
		"key (circuit.zka.wcg); see `zkarena witness --help`.\n"
		"The proof is verified before it is written (unless --no-verify).\n"
		"The key: a resident region of it when one exists (`zkarena params load`: no key\n"
		"file is opened), else the .zka read with io_uring, else the .zkey imported once\n"
		"into the cache directory ($ZKARENA_CACHE) and read from there afterwards.\n"
		"\n"
		"options:\n"
		"  --arena NAME     hand the proof to the running pipeline of arena NAME (`zkarena\n"
		"                   run`): submit, wait, write the two files; the key is loaded into\n"
		"                   the arena once (--gpu, --threads, --r/--s do not apply)\n"
		"  --no-cache       import a .zkey in memory, without reading or writing the cache\n"
		"  --r1cs FILE      check that the witness satisfies the circuit first and name the\n"
		"                   first failing constraint instead of proving\n"
		"  --gpu            prove on a CUDA device (zkarena must be built with CUDA)\n"
		"  --device N       CUDA device index for --gpu (default 0)\n"
		"                   (--gpu loads the key for this one proof, without the window\n"
		"                   tables zkarena-gpud builds for the keys it keeps: building them\n"
		"                   costs more than they save on a single proof)\n"
		"  --threads N      CPU threads (default: one per CPU it may run on)\n"
		"  --no-verify      skip the self-check of the proof\n"
		"  --times          print per-stage times to stderr, the key load its own stage,\n"
		"                   and the number of key files this process opened\n"
		"  --r DEC --s DEC  fixed prover randomness (testing only: reusing r, s with two\n"
		"                   witnesses leaks them); default: fresh from getrandom(2)\n"
		"  -h, --help       this text\n"
		"\n"
		"environment:\n"
		"  ZKA_PROVE_UPLOAD=staged[:T]|staged-mapped[:T]|registered  how --gpu copies a\n"
		"                   resident key (one not registered while read from disk):\n"
		"                   staged: T threads (default: half the CPUs, 2..8) pread it from\n"
		"                   the region's file into pinned buffers; staged-mapped: they\n"
		"                   copy it from the region's mapping; registered: its memory is\n"
		"                   registered with CUDA first\n"
		"\n"
		"exit status: 0 proof written; 2 bad usage or bad input (nothing written);\n"
		"1 the proof could not be produced (nothing written).\n");
}

/* a = A w, b = B w and c = a .* b, in Montgomery form, from the region's CSR matrices
 * (zk/abc.h); c NULL: a and b only, in standard form, as a slot holds them (the device
 * converts them and makes c: zka_gpu_prove_ab), with no Montgomery conversion of the witness. */
static int params_abc(const zka_params *p, const zka_witness *w, uint64_t (*a)[4],
		      uint64_t (*b)[4], uint64_t (*c)[4], int threads)
{
	int std = c == NULL;
	uint64_t(*vs)[4] = std ? zka_abc_values_std(&p->abc) : NULL;
	uint64_t(*wm)[4] = zka_abc_scratch(w->n); /* huge pages: the row loop reads it at random */
	int r = -ENOMEM;
	if (wm && (vs || !std)) {
		uint64_t *cls = zka_abc_scratch_cls(wm, w->n);
		int64_t bad = zka_abc_witness_mem(p->pk.curve, (const uint64_t(*)[4])w->w, w->n, wm,
						  cls, std, threads);
		r = bad ? -EINVAL
			: zka_abc_compute(&p->abc, (const uint64_t(*)[4])wm, cls,
					  (const uint64_t(*)[4])vs, a, b, c, threads);
	}
	zka_abc_scratch_free(wm, w->n);
	free(vs);
	return r;
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The CPU prover from a params region. */
static int prove_cpu(const zka_params *p, const zka_witness *w, const zka_rs *rs,
		     zka_proof *proof, const zka_prove_opts *o, zka_prove_times *t)
{
	size_t n = p->pk.domain_size;
	int ret = -ENOMEM;
	double t0 = mono();
	uint64_t(*a)[4] = malloc(n * sizeof *a), (*b)[4] = malloc(n * sizeof *b),
		(*c)[4] = malloc(n * sizeof *c);
	if (!a || !b || !c)
		goto err;
	if ((ret = params_abc(p, w, a, b, c, o->threads)))
		goto err;
	double t1 = mono();
	ret = zka_prove_abc(&p->pk, a, b, c, (const uint64_t(*)[4])w->w, rs, proof, o, t);
	t->abc = t1 - t0;
	t->total = mono() - t0;
err:
	free(a);
	free(b);
	free(c);
	return ret;
}

/* --gpu's start beside the CPU's work (issue 18: a one-shot proof of BN254 2^22 in 0.6 s).
 * CUDA's start (~0.3 s) and the key's upload need no witness, and a, b need no device, so:
 *
 *   prep thread:  zka_gpu_open -> [region told] -> register the key's point
 *                 sections -> [key posted] -> key upload: registered during the read, copied
 *                 directly; else (a resident key) staged through pinned buffers filled by
 *                 CPU threads (zka_gpu_set_upload_staging, gprep_upload) with pread from the
 *                 region's file (gprep_read: the sets' pages never mapped), or with
 *                 ZKA_PROVE_UPLOAD=registered registered a set per thread, each set's copy
 *                 released to the upload as soon as it is registered (zka_gpu_set_upload_gate)
 *   main thread:  key (resident map, or .zka load: region told before its reads) -> post
 *                 -> witness -> a, b -> register a, b, w -> join -> prove (c made on the
 *                 device); a, b, w are registered beside the key's copy when it is staged
 *                 (as soon as the thread has chosen that path, gprep_abw_early), else
 *                 after the join
 *
 * States of the early registration (`early`, guarded by mu; the loader's on_region callback
 * asks for it from the main thread while the key is read from disk):
 *   NONE -> ASKED       gprep_region   (the loader mapped the region, no byte read yet)
 *   ASKED -> PINNING    gprep_main     (CUDA is up)
 *   PINNING -> PINNED   gprep_main     (registered: the upload later skips this step)
 *   PINNING -> NONE     gprep_main     (refused: the ordinary registration runs after the post)
 *   ASKED -> NONE       gprep_region_drop, gprep_post (never started)
 *   PINNED -> NONE      gprep_region_drop (the load failed: unpinned before the unmap)
 * The key is posted as soon as it is in memory (NULL: the command failed first; the thread
 * then only closes what it opened, in gprep_end). The registration of the points is a speed-up:
 * when the driver refuses it the upload runs from pageable memory and a NOTE line says so. */
#ifdef ZKA_HAVE_CUDA
enum { EARLY_NONE, EARLY_ASKED, EARLY_PINNING, EARLY_PINNED };
struct gprep {
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
	 * at the post (gprep_stage_threads: stage_T threads, 0 registered; stage_mapped,
	 * stage_bad), staged the threads it used (0: registered instead), t_stage its buffers'
	 * setup */
	int stage_T, stage_mapped, stage_bad;
	int staged;
	double t_stage;
	char stage_note[512];
	/* a, b and w's registration beside a staged upload (gprep_abw_early; guarded by mu, cv
	 * told): 0 undecided, 1 the key is being staged (g is up), -1 not (register after the join)
	 */
	int abw_early;
	/* the resident region's file (gprep_reader_open; -1: none), read by the stager's threads
	 * with pread (gprep_read) instead of memcpy from the mapping: the point sets' pages are
	 * then never mapped, so neither populated beside CUDA's start nor torn down at exit
	 * (use_reader: chosen at the post; mapped: ZKA_PROVE_UPLOAD=staged-mapped) */
	int rfd, use_reader;
	char rname[64], reader_note[256];
	/* the populate thread (started by gprep_post, joined before the pin): the key's pages
	 * entered into this process's page tables while CUDA starts, so that registering them
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
static void *gprep_populate(void *arg)
{
	struct gprep *x = arg;
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
struct gprep_set {
	struct gprep *x;
	int i;
};

static void gprep_pin_set(struct gprep *x, int i)
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

static void *gprep_set_main(void *arg)
{
	struct gprep_set *a = arg;
	gprep_pin_set(a->x, a->i);
	return NULL;
}

/* The key load's upload gate: the first of the sets still to copy whose registration has
 * finished (waiting for one); a refused set is copied from pageable memory. */
static int gprep_gate(void *arg, int todo)
{
	struct gprep *x = arg;
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
static void gprep_pin_and_load(struct gprep *x)
{
	struct gprep_set a[5];
	pthread_t th[5];
	int started = 0;
	x->t_pin0 = mono();
	for (int i = 0; i < 5; i++) {
		a[i] = (struct gprep_set){x, i};
		if (pthread_create(&th[i], NULL, gprep_set_main, &a[i]) == 0)
			started |= 1 << i;
		else
			gprep_pin_set(x, i); /* no thread: here, before the upload */
	}
	zka_gpu_set_upload_gate(x->g, gprep_gate, x);
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
 * sets are registered and copied once registered, gprep_pin_and_load); default staged with
 * half the online CPUs, 2..8. An unreadable value: the default, and *bad set. */
static int gprep_stage_threads(int *bad, int *mapped)
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
static int gprep_read(void *arg, void *dst, const void *src, size_t len, char *err, size_t errlen)
{
	struct gprep *x = arg;
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

/* Opens the resident region NAME (mapped at p) again for reading, for gprep_read; keeps it
 * only when it is that region still (its size and its header page equal the mapping's: the
 * header holds every section's checksum); else a NOTE in reader_note and rfd -1. */
static void gprep_reader_open(struct gprep *x, const char *name, const zka_params *p)
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
static void gprep_upload(struct gprep *x)
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
			zka_gpu_set_upload_reader(x->g, x->use_reader ? gprep_read : NULL, x);
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
	gprep_pin_and_load(x);
}

static void gprep_run(struct gprep *x)
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
		gprep_upload(x);
		return;
	}
	t0 = mono();
	x->rc = zka_gpu_key_load(x->g, &x->p->pk, &x->key, x->err, sizeof x->err);
	x->t_key = mono() - t0;
}

/* The prep thread: gprep_run, then the main thread told that a, b and w wait for the join
 * unless the staged upload said otherwise. */
static void *gprep_main(void *arg)
{
	struct gprep *x = arg;
	gprep_run(x);
	pthread_mutex_lock(&x->mu);
	if (x->abw_early == 0)
		x->abw_early = -1;
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
	return NULL;
}

/* The loader's on_region: the region being read (no byte landed yet); asks the thread to
 * register its point sections beside the reads. Never fails the load. */
static int gprep_region(void *arg, void *map, size_t size, const zka_params_info *in)
{
	struct gprep *x = arg;
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
static void gprep_region_drop(void *arg)
{
	struct gprep *x = arg;
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
static int gprep_start(struct gprep *x, int device)
{
	memset(x, 0, sizeof *x);
	x->device = device;
	x->rfd = -1;
	pthread_mutex_init(&x->mu, NULL);
	pthread_cond_init(&x->cv, NULL);
	int r = pthread_create(&x->th, NULL, gprep_main, x);
	if (r) {
		pthread_mutex_destroy(&x->mu);
		pthread_cond_destroy(&x->cv);
		return -r;
	}
	x->started = 1;
	return 0;
}

/* Hands the thread the key in memory (p, or NULL to stop it); once per gprep_start. */
static void gprep_post(struct gprep *x, const zka_params *p)
{
	if (!x->started || x->was_posted)
		return;
	pthread_mutex_lock(&x->mu);
	if (x->early == EARLY_ASKED)
		x->early = EARLY_NONE; /* CUDA was not up in time: the ordinary path */
	x->p = p;
	/* a registration still running finishes on the thread, which then decides; a staged
	 * upload that reads the region's file needs no page of the point sets mapped */
	x->stage_T = gprep_stage_threads(&x->stage_bad, &x->stage_mapped);
	x->use_reader =
	    p && x->early == EARLY_NONE && x->rfd >= 0 && x->stage_T > 0 && !x->stage_mapped;
	if (p && x->early == EARLY_NONE && !x->use_reader &&
	    pthread_create(&x->th_pop, NULL, gprep_populate, x) == 0)
		x->pop_started = 1; /* (without it the registration faults the pages in itself) */
	x->was_posted = 1;
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->mu);
}

/* Whether a, b and w may be registered before the join: waits until the thread has chosen the
 * key's path; 1 when it stages the key (g is open; registering beside the registration of the
 * key's sets slowed both, s18-c, so only beside a staged copy), else 0. */
static int gprep_abw_early(struct gprep *x)
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
static int gprep_join(struct gprep *x)
{
	if (!x->started)
		return -EINVAL;
	gprep_post(x, NULL); /* nothing when the key was posted */
	pthread_join(x->th, NULL);
	x->started = 0;
	pthread_mutex_destroy(&x->mu);
	pthread_cond_destroy(&x->cv);
	return x->rc;
}

/* Frees what the thread made (joining it first when it still runs). */
static void gprep_end(struct gprep *x)
{
	if (x->started)
		gprep_join(x);
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
#else
struct gprep {
	int unused;
};
#endif

/* --times' GPU stages: the prep thread's (beside the main thread's work) and the main
 * thread's wait for it */
typedef struct {
	double open, pop, pin, key, abc, wait, reg, prove, teardown, stage;
	int pin_early; /* the key's memory was registered during its read */
	int staged;    /* the staged upload's threads (0: registered) */
	int reg_early; /* a, b and w were registered beside the staged upload, before the wait */
	int reader;    /* the staged upload read the resident region's file */
	char pop_note[96];
} gpu_stages;

static int prove_gpu(const zka_params *p, const zka_witness *w, const zka_rs *rs,
		     struct gprep *x, zka_proof *proof, zka_prove_times *t, gpu_stages *gs,
		     char *err, size_t errlen)
{
#ifdef ZKA_HAVE_CUDA
	const zka_pk *pk = &p->pk;
	size_t n = pk->domain_size;
	uint64_t(*a)[4] = NULL, (*b)[4] = NULL;
	int ret = -ENOMEM;
	double t0 = mono(), t1;
	zka_gpu_pin *abw = NULL;
	/* huge pages: a tenth of the page faults, and registered in a third of the time (THP
	 * anonymous 1.6 GB: 0.035 s against 0.08-0.12 s for 4 KiB pages; H200 box, 2026-12-02) */
	a = zka_abc_scratch(n);
	b = zka_abc_scratch(n);
	if (!a || !b) {
		snprintf(err, errlen, "out of memory for a, b (%zu entries)", n);
		goto err;
	}
	/* a and b only, in standard form: the device converts them and makes c = a .* b (one
	 * buffer less to fill, to register and to copy; no Montgomery conversion here) */
	ret = params_abc(p, w, a, b, NULL, 0);
	if (ret) {
		snprintf(err, errlen, "computing a, b failed (%s)", strerror(-ret));
		goto err;
	}
	t1 = mono();
	gs->abc = t1 - t0;
	/* the buffers are ours and not pinned: register them (in parallel) for full-speed copies;
	 * beside the key's copy when it is staged, else after the join (beside the key's
	 * registration both took longer, H200 2026-12-03, s18-c) */
	const void *bp[3] = {a, b, w->w};
	size_t bl[3] = {n * sizeof *a, n * sizeof *b, (size_t)w->n * sizeof *w->w};
	if ((gs->reg_early = gprep_abw_early(x))) {
		double t2 = mono();
		if ((ret = zka_gpu_pin_ranges(x->g, bp, bl, 3, 0, &abw, err, errlen)))
			goto err;
		gs->reg = mono() - t2;
	}
	ret = gprep_join(x);
	gs->wait = mono() - t1; /* (the early registration included) */
	gs->open = x->t_open;
	gs->pop = x->t_pop;
	if (x->pop_errno)
		snprintf(gs->pop_note, sizeof gs->pop_note, " (MADV_POPULATE_READ: %s)",
			 strerror(x->pop_errno));
	gs->pin = x->t_pin;
	gs->pin_early = x->early_done;
	gs->key = x->t_key;
	gs->staged = x->staged;
	gs->stage = x->t_stage;
	gs->reader = x->use_reader && x->staged;
	if (ret) {
		snprintf(err, errlen, "%s", x->err);
		goto err;
	}
	fprintf(stderr, "zkarena prove: device %d: %s\n", x->device, zka_gpu_device_name(x->g));
	if (x->stage_note[0])
		fprintf(stderr, "zkarena prove: %s\n", x->stage_note);
	if (x->reader_note[0] && x->staged)
		fprintf(stderr, "zkarena prove: %s\n", x->reader_note);
	if (x->pin_note[0])
		fprintf(stderr, "zkarena prove: %s\n", x->pin_note);
	if (x->staged)
		fprintf(stderr,
			"zkarena prove: key copied %s through pinned buffers by %d threads "
			"(staged upload; ZKA_PROVE_UPLOAD=registered registers it instead)\n",
			x->use_reader ? "from the resident region's file (pread, its pages never "
					"mapped)"
				      : "from pageable memory",
			x->staged);
	t1 = mono();
	if (!abw && (ret = zka_gpu_pin_ranges(x->g, bp, bl, 3, 0, &abw, err, errlen)))
		goto err;
	if (!gs->reg_early)
		gs->reg = mono() - t1;
	fprintf(stderr, "zkarena prove: registered a, b and the witness with "
			"cudaHostRegister (pinned, no staging copy); c made on the device\n");
	fprintf(stderr, "zkarena prove: key on the device: %s\n", zka_gpu_key_mode(x->key));
	t1 = mono();
	ret = zka_gpu_prove_ab(x->g, x->key, (const uint64_t(*)[4])a, (const uint64_t(*)[4])b, 1,
			       (const uint64_t(*)[4])w->w, rs, proof, t, err, errlen);
	gs->prove = mono() - t1;
err:
	zka_gpu_unpin(abw); /* before a, b and w are freed */
	t1 = mono();
	gprep_end(x);
	gs->teardown = mono() - t1;
	zka_abc_scratch_free(a, n);
	zka_abc_scratch_free(b, n);
	return ret;
#else
	(void)p, (void)w, (void)rs, (void)x, (void)proof, (void)t, (void)gs;
	snprintf(err, errlen, "--gpu: this zkarena was built without CUDA (no nvcc at build time)");
	return -ENOTSUP;
#endif
}

/* Moves src to dst (rename, or a copy across file systems). */
static int move_file(const char *src, const char *dst, char *err, size_t errlen)
{
	if (rename(src, dst) == 0)
		return 0;
	if (errno != EXDEV) {
		snprintf(err, errlen, "%s: %s", dst, strerror(errno));
		return -errno;
	}
	FILE *in = fopen(src, "rb"), *out = NULL;
	char tmp[PATH_MAX], buf[65536];
	int ret = 0;
	snprintf(tmp, sizeof tmp, "%s.tmp%d", dst, (int)getpid());
	if (!in || !(out = fopen(tmp, "wb")))
		ret = -errno;
	for (size_t n; !ret && (n = fread(buf, 1, sizeof buf, in)) > 0;)
		if (fwrite(buf, 1, n, out) != n)
			ret = -EIO;
	if (in)
		fclose(in);
	if (out && fclose(out) && !ret)
		ret = -EIO;
	if (!ret && rename(tmp, dst))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		snprintf(err, errlen, "%s: %s", dst, strerror(-ret));
	} else
		unlink(src);
	return ret;
}

/* `prove --arena NAME`: the job through a running pipeline, its two files moved into place. */
static int prove_arena(const char *name, const char *zkey, const char *r1cs, const char *wtns,
		       const char *proof_path, const char *public_path, int times)
{
	char err[1024] = "", dir[PATH_MAX], pdir[PATH_MAX], src[PATH_MAX + 32];
	double t0 = mono();
	snprintf(pdir, sizeof pdir, "%s", proof_path);
	snprintf(dir, sizeof dir, "%s/.zkarena-prove-XXXXXX", dirname(pdir));
	if (!mkdtemp(dir)) {
		fprintf(stderr, "zkarena prove: %s: cannot make a directory for the job: %s\n", dir,
			strerror(errno));
		return 2;
	}
	struct zka_arena *a = zka_pipe_attach("zkarena prove", name, 0);
	uint64_t id = 0;
	int status = 2;
	struct zka_job_info ji;
	if (!a)
		goto out;
	if (zka_client_submit(a, name, zkey, r1cs, wtns, dir, &id, err, sizeof err))
		goto out;
	double t1 = mono();
	int r = zka_job_wait(a, id, -1, &ji);
	if (r == 1) {
		/* a witness the key or the circuit refuses is bad input, as for `prove` */
		int bad_input = strstr(ji.reason, "witness") || strstr(ji.reason, "does not satisfy") ||
				strstr(ji.reason, ".wtns");
		snprintf(err, sizeof err, "job %llu failed: %s", (unsigned long long)id, ji.reason);
		status = bad_input ? 2 : 1;
		goto out;
	}
	if (r) {
		snprintf(err, sizeof err, "job %llu: %s", (unsigned long long)id, strerror(-r));
		status = 1;
		goto out;
	}
	status = 1;
	snprintf(src, sizeof src, "%s/public.json", dir);
	if (move_file(src, public_path, err, sizeof err))
		goto out;
	snprintf(src, sizeof src, "%s/proof.json", dir);
	if (move_file(src, proof_path, err, sizeof err)) {
		unlink(public_path); /* never leave half of the output */
		goto out;
	}
	if (times)
		fprintf(stderr, "zkarena prove: arena %s job %llu: submit (key in the arena) %.3f s, "
				"queued to done %.3f s, total %.3f s\n",
			name, (unsigned long long)id, t1 - t0, mono() - t1, mono() - t0);
	status = 0;
out:
	if (status)
		fprintf(stderr, "zkarena prove: %s\n", err[0] ? err : "cannot reach the arena");
	if (a) {
		if (id) {
			char mk[PATH_MAX + 96];
			zka_client_marker(mk, sizeof mk, a, dir, id);
			unlink(mk);
			zka_job_release(a, id);
		}
		zka_arena_close(a);
	}
	snprintf(src, sizeof src, "%s/proof.json", dir);
	unlink(src);
	snprintf(src, sizeof src, "%s/public.json", dir);
	unlink(src);
	rmdir(dir);
	return status;
}

int zka_cmd_prove(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"r1cs", required_argument, 0, 'c'},   {"gpu", no_argument, 0, 'g'},
	    {"device", required_argument, 0, 'd'}, {"threads", required_argument, 0, 't'},
	    {"no-verify", no_argument, 0, 'n'},	   {"times", no_argument, 0, 'T'},
	    {"r", required_argument, 0, 'r'},	   {"s", required_argument, 0, 's'},
	    {"no-cache", no_argument, 0, 'N'},	   {"arena", required_argument, 0, 'a'},
	    {"help", no_argument, 0, 'h'},	   {0, 0, 0, 0}};
	const char *r1cs_path = NULL, *r_dec = NULL, *s_dec = NULL, *arena = NULL;
	int gpu = 0, device = 0, threads = 0, verify = 1, times = 0, no_cache = 0, opt;
	char err[1024] = "";
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': r1cs_path = optarg; break;
		case 'g': gpu = 1; break;
		case 'd':
			if (zka_opt_int("zkarena prove", "--device", optarg, 0, 1023, &device))
				return 2;
			break;
		case 't':
			if (zka_opt_int("zkarena prove", "--threads", optarg, 1, 1024, &threads))
				return 2;
			break;
		case 'n': verify = 0; break;
		case 'T': times = 1; break;
		case 'r': r_dec = optarg; break;
		case 's': s_dec = optarg; break;
		case 'N': no_cache = 1; break;
		case 'a': arena = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (argc - optind != 4) {
		fprintf(stderr, "zkarena prove: expected 4 arguments: circuit.zkey witness.wtns "
				"proof.json public.json (see --help)\n");
		return 2;
	}
	if ((r_dec == NULL) != (s_dec == NULL)) {
		fprintf(stderr, "zkarena prove: --r and --s go together\n");
		return 2;
	}
	const char *zkey = argv[optind], *wtns = argv[optind + 1], *proof_path = argv[optind + 2],
		   *public_path = argv[optind + 3];
	if (arena) {
		if (r_dec || gpu || no_cache) {
			fprintf(stderr, "zkarena prove: --arena: the pipeline chooses r, s and the device "
					"itself (drop --r/--s, --gpu, --no-cache)\n");
			return 2;
		}
		return prove_arena(arena, zkey, r1cs_path, wtns, proof_path, public_path, times);
	}
	zka_params p = {0};
	zka_witness w = {0};
	zka_r1cs cs = {0};
	zka_proof proof;
	zka_rs rs;
	zka_prove_times t = {0};
	zka_keys_info ki = {0};
	zka_keys_opts ko = {.no_cache = no_cache, .threads = threads, .progress = -1};
	int status = 2, ret;
	struct gprep gx;
	gpu_stages gs = {0};
	double t_start = mono();
	memset(&gx, 0, sizeof gx);
#ifdef ZKA_HAVE_CUDA
	gx.rfd = -1; /* (gprep_end runs on every path: no descriptor 0 closed by mistake) */
#endif
#ifndef ZKA_HAVE_CUDA
	(void)device; /* --gpu fails in prove_gpu, after the inputs are checked */
#else
	if (gpu && (ret = gprep_start(&gx, device))) { /* CUDA starts while the key loads */
		snprintf(err, sizeof err, "cannot start the GPU thread: %s", strerror(-ret));
		status = 1;
		goto err;
	}
	if (gpu) { /* a key read from a .zka is registered while its reads are in flight */
		ko.on_region = gprep_region;
		ko.on_region_drop = gprep_region_drop;
		ko.region_arg = &gx;
	}
#endif

	if (zka_keys_open(zkey, &ko, &p, &ki, err, sizeof err))
		goto err;
#ifdef ZKA_HAVE_CUDA
	if (gpu && ki.resident)
		gprep_reader_open(&gx, ki.shm, &p); /* a staged upload reads the region's file */
	if (gpu)
		gprep_post(&gx, &p); /* the key's upload runs beside the witness and a, b */
#endif
	size_t wl = strlen(wtns);
	double wsecs = -1;
	if (wl > 5 && !strcmp(wtns + wl - 5, ".json")) { /* fullprove: the witness of input.json */
		if (zka_witness_from_input(zkey, wtns, &w, &wsecs, err, sizeof err))
			goto err;
	} else if (zka_wtns_read(wtns, &w, err, sizeof err)) {
		goto err;
	}
	if (wsecs >= 0 && times)
		fprintf(stderr, "zkarena prove: witness of %s computed in %.3f s\n", wtns, wsecs);
	const zka_pk *pk = &p.pk;
	if (w.curve != pk->curve) {
		snprintf(err, sizeof err, "%s: witness is for %s but %s is a %s key", wtns,
			 w.curve->pretty, zkey, pk->curve->pretty);
		goto err;
	}
	if (w.n != pk->n_vars) {
		snprintf(err, sizeof err, "%s: witness has %u values but %s expects %u", wtns, w.n,
			 zkey, pk->n_vars);
		goto err;
	}
	if (r1cs_path) {
		uint32_t bad = 0;
		if (zka_r1cs_read(r1cs_path, &cs, err, sizeof err))
			goto err;
		if (cs.curve != pk->curve || cs.n_wires != pk->n_vars) {
			snprintf(err, sizeof err, "%s: circuit (%s, %u wires) does not match %s (%s, %u signals)",
				 r1cs_path, cs.curve->pretty, cs.n_wires, zkey, pk->curve->pretty,
				 pk->n_vars);
			goto err;
		}
		ret = zka_r1cs_check(&cs, &w, &bad);
		if (ret == 1) {
			snprintf(err, sizeof err, "%s: witness does not satisfy constraint %u of %s", wtns,
				 bad, r1cs_path);
			goto err;
		}
		if (ret) {
			snprintf(err, sizeof err, "%s: cannot check the witness against %s (%s)", wtns,
				 r1cs_path, strerror(-ret));
			goto err;
		}
	}
	if (r_dec) {
		if (zka_dec_parse(r_dec, rs.r, 32, pk->curve->r, 4) ||
		    zka_dec_parse(s_dec, rs.s, 32, pk->curve->r, 4)) {
			snprintf(err, sizeof err, "--r/--s: not a decimal integer below the group order");
			goto err;
		}
	} else if ((ret = zka_rs_random(&rs, pk->curve))) {
		snprintf(err, sizeof err, "getrandom: %s", strerror(-ret));
		status = 1;
		goto err;
	}
	zka_prove_opts po = {.threads = threads};
	status = 1;
	if (gpu)
		ret = prove_gpu(&p, &w, &rs, &gx, &proof, &t, &gs, err, sizeof err);
	else
		ret = prove_cpu(&p, &w, &rs, &proof, &po, &t);
	if (ret) {
		if (!err[0])
			snprintf(err, sizeof err, "proving %s with %s failed: %s", wtns, zkey,
				 strerror(-ret));
		goto err;
	}
	proof.curve = pk->curve;
	const uint64_t(*pub)[4] = (const uint64_t(*)[4])(w.w + 1);
	if (verify) {
		const char *why = NULL;
		if (zka_verify(&p.vk, pub, pk->n_public, &proof, &why) != 1) {
			snprintf(err, sizeof err,
				 "witness %s does not satisfy the circuit, or key %s may be corrupt "
				 "(the new proof does not verify: %s); nothing written",
				 wtns, zkey, why ? why : "?");
			goto err;
		}
	}
	if (zka_proof_write_json(proof_path, &proof, err, sizeof err))
		goto err;
	if (zka_public_write_json(public_path, pk->curve, pub, pk->n_public, err, sizeof err)) {
		unlink(proof_path); /* never leave half of the output */
		goto err;
	}
	zka_profile_stamp("prove: files written");
	if (times) {
		fprintf(stderr, "zkarena prove: key load %.3f s (%s); key files opened %llu\n",
			ki.seconds, ki.how, (unsigned long long)zka_loader_key_opens());
		if (gpu) {
			t.abc = gs.abc;
			char up[192], pop[160]; /* the key's way to the device; its pages */
			if (gs.reader)
				snprintf(pop, sizeof pop, "key pages not mapped");
			else
				snprintf(pop, sizeof pop, "key pages mapped %.3f s%s", gs.pop,
					 gs.pop_note);
			if (gs.staged)
				snprintf(up, sizeof up,
					 "staging buffers %.3f s, key upload %.3f s (staged by %d "
					 "threads, %s)",
					 gs.stage, gs.key, gs.staged,
					 gs.reader ? "read from the region's file"
						   : "from its mapping");
			else
				snprintf(up, sizeof up,
					 "key memory registered %.3f s%s, key upload %.3f s%s",
					 gs.pin, gs.pin_early ? " (during the key's read)" : "",
					 gs.key,
					 gs.pin_early ? ""
						      : " (beside the registration: each set "
							"copied once registered)");
			fprintf(stderr,
				"zkarena prove: gpu: beside the key's load, the witness and a, b: "
				"CUDA start %.3f s, %s, %s; then waited for them %.3f s, a, b and "
				"witness registered %.3f s%s, proof %.3f s, teardown %.3f s\n",
				gs.open, pop, up, gs.wait, gs.reg,
				gs.reg_early ? " (beside the key's copy, within the wait)" : "",
				gs.prove, gs.teardown);
		}
		fprintf(stderr, "zkarena prove: %s, %u constraints domain, abc %.3f s, ntt %.3f s, "
				"msm G1 %.3f s, msm G2 %.3f s, total %.3f s; command %.3f s to the "
				"files written\n",
			pk->curve->pretty, pk->domain_size, t.abc, t.ntt, t.msm_g1, t.msm_g2, t.total,
			mono() - t_start);
	}
	status = 0;
err:
#ifdef ZKA_HAVE_CUDA
	gprep_end(&gx); /* (done already when the proof ran) */
#endif
	if (status)
		fprintf(stderr, "zkarena prove: %s\n", err);
	zka_params_close(&p);
	zka_witness_free(&w);
	zka_r1cs_free(&cs);
	zka_profile_stamp("prove: returns");
	return status;
}
