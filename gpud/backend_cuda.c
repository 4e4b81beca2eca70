/* backend_cuda.c - the CUDA backend: cuda/zka_gpu.h behind the backend interface. init
 * registers every slot of the arena once (cudaHostRegister, the slots in parallel:
 * zka_gpu_pin_ranges), so a, b and w go to the device at
 * full PCIe speed with no staging copy; each circuit's key is loaded to the device once.
 *
 * Keys at disk speed (issue 18): before a key's first upload, the five point sets in its params
 * region (a PROT_READ shm mapping, keys/params.h) are registered once with
 * cudaHostRegisterReadOnly, in parallel (zka_gpu_pin_key), so the upload
 * runs at pinned speed (55 GB/s on an H200 against 8.3 GB/s pageable); the registration is
 * undone when the region is replaced (the circuit reloaded) and at shutdown, before gpud unmaps
 * it. A registration that fails is said once per region, loudly, in the log and in the status
 * note, and the key is uploaded from pageable memory (never silently). The "key on the device"
 * line gives the bytes uploaded, the upload's seconds and GB/s (pinned or pageable) and the
 * whole load (zka_gpu_key_timing).
 *
 * Window tables in the background (issue 18: a restarted gpud's next proof within a second):
 * keys load with ZKA_GPU_TABLES_BACKGROUND, so a key's first proofs run the windowed MSM while
 * its tables (19.5 GiB and ~1.1 s of device time for BN254 2^22) build on a lowest-priority
 * stream; the proof after the build uses them. A line says when they are ready, how long the
 * build took and how many proofs ran without them. The init note gives the CUDA start and the
 * slots' registration times (the rest of a restart). */
#include "gpud/backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef ZKA_HAVE_CUDA
#include "cuda/zka_gpu.h"

#include <pthread.h>

#define KEYS_MAX 256

/* Lanes: one device context each (a stream and one proof's buffers); keys are shared by all
 * of them and loaded once, under key_mu. A key replaced because its params region changed is
 * retired, not freed, while another lane may still prove with it; retired keys are freed at
 * shutdown. A retired streamed key (zka_gpu_key_streamed) still copies from its old region at
 * every proof: that region's registration is retired with it (retired_pin), not undone. */
struct cuda {
	int lanes;
	zka_gpu *g[ZKA_LANES_MAX];
	pthread_mutex_t key_mu;
	zka_gpu_key *key[KEYS_MAX];
	const void *key_src[KEYS_MAX]; /* the params mapping each key was loaded from */
	zka_gpu_key *retired[KEYS_MAX];
	int nretired;
	zka_gpu_pin *retired_pin[KEYS_MAX]; /* registrations of retired streamed keys' regions */
	int nretired_pin;
	zka_gpu_pin *slots_pin;		 /* the arena's slots, registered at init */
	zka_gpu_pin *pin[KEYS_MAX];	 /* the registration of key_src's point sets, or NULL */
	const void *pin_tried[KEYS_MAX]; /* the region last registered, or that failed to */
	const zka_gpu_key *tables_said[KEYS_MAX]; /* the key whose tables' readiness was logged */
	unsigned windowed[KEYS_MAX]; /* proofs of the key that ran before its tables were ready */
	pthread_mutex_t warn_mu;     /* guards warn (read by status on the main thread) */
	char warn[256];		     /* the first registration failure, for the status note */
};

static void cuda_shutdown(void *ctx);

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cuda_init(void **ctx, struct zka_arena *a, int device, int lanes, char *note,
		     size_t notelen, char *err, size_t errlen)
{
	struct cuda *c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&c->key_mu, NULL);
	pthread_mutex_init(&c->warn_mu, NULL);
	int r = 0;
	/* the lanes sleep while their proofs run instead of spinning a core each: the cores are
	 * synthesis's (ZKA_GPU_WAIT=spin keeps CUDA's default, for comparison) */
	const char *wv = getenv("ZKA_GPU_WAIT");
	int spin = wv && !strcmp(wv, "spin");
	zka_gpu_set_host_wait(spin ? ZKA_GPU_WAIT_AUTO : ZKA_GPU_WAIT_BLOCK);
	double t0 = mono_s();
	for (c->lanes = 0; c->lanes < lanes; c->lanes++) {
		if ((r = zka_gpu_open(&c->g[c->lanes], device, err, errlen))) {
			cuda_shutdown(c);
			return r;
		}
		zka_gpu_set_tables_build(c->g[c->lanes], ZKA_GPU_TABLES_BACKGROUND);
		/* the keys' window tables leave every lane's working memory free */
		zka_gpu_set_proofs_in_flight(c->g[c->lanes], lanes);
	}
	double t1 = mono_s();
	/* registration is per process (pinned pages), so one context registers for all lanes */
	struct zka_arena_geometry geo;
	zka_arena_geometry(a, &geo);
	const void **base = calloc(geo.nslots ? geo.nslots : 1, sizeof *base);
	size_t *len = calloc(geo.nslots ? geo.nslots : 1, sizeof *len);
	r = base && len ? 0 : -ENOMEM;
	for (uint32_t s = 0; !r && s < geo.nslots; s++) {
		uint64_t size = 0;
		base[s] = zka_slot_data(a, s, &size);
		len[s] = size;
		if (!base[s])
			r = -EINVAL;
	}
	/* each slot its own range (a proof's copies stay within its slot), pinned in parallel,
	 * read-only where the device allows: it only reads slots (results come back to the
	 * context's own pinned buffer), and a read-only registration needs no write access to
	 * each shared page */
	const char *how = "read-only";
	if (!r) {
		r = zka_gpu_pin_ranges(c->g[0], base, len, (int)geo.nslots, 1, &c->slots_pin, err,
				       errlen);
		if (r == -ENOTSUP) {
			how = "read-write (the device has no read-only registration)";
			r = zka_gpu_pin_ranges(c->g[0], base, len, (int)geo.nslots, 0,
					       &c->slots_pin, err, errlen);
		}
	} else
		snprintf(err, errlen, "cannot list the arena's slots: %s", strerror(-r));
	free(base);
	free(len);
	if (r) {
		cuda_shutdown(c);
		return r;
	}
	snprintf(note, notelen,
		 "backend cuda: %s; CUDA started in %.3f s; %u slots (%llu MiB) registered %s "
		 "with cudaHostRegister in %.3f s; %d proof%s in flight; lanes wait for the "
		 "device %s",
		 zka_gpu_device_name(c->g[0]), t1 - t0, geo.nslots,
		 (unsigned long long)(geo.nslots * geo.slot_stride >> 20), how, mono_s() - t1,
		 lanes, lanes > 1 ? "s" : "",
		 spin ? "spinning (ZKA_GPU_WAIT=spin)" : "asleep (blocking sync)");
	*ctx = c;
	return 0;
}

/* Registers circuit's params region p once (under key_mu) before its key's upload, undoing the
 * registration of the region it replaces (kept, in retired_pin, when the replaced key streams
 * from it: keep_old); a failure is logged once per region and kept for the status note, and
 * the upload then runs from pageable memory. */
static void cuda_pin(struct cuda *x, int lane, uint32_t circuit, const zka_params *p, int keep_old)
{
	if (x->pin_tried[circuit] == p->map)
		return;
	if (keep_old && x->pin[circuit] && x->nretired_pin < KEYS_MAX)
		x->retired_pin[x->nretired_pin++] = x->pin[circuit];
	else
		zka_gpu_unpin(
		    x->pin[circuit]); /* the replaced region's, still mapped (gpud/main.c) */
	x->pin[circuit] = NULL;
	x->pin_tried[circuit] = p->map;
	char e[512] = "";
	double t0 = mono_s();
	int r = zka_gpu_pin_key(x->g[lane], &p->pk, &x->pin[circuit], e, sizeof e);
	if (r == 0) {
		fprintf(stderr,
			"zkarena-gpud: circuit %u: params region's key points (of %.1f MiB) "
			"registered with cudaHostRegisterReadOnly in %.3f s\n",
			circuit, (double)p->size / 1048576.0, mono_s() - t0);
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

/* Returns the device key of circuit, loading it on first use through the calling lane's own
 * context (a context is used by one thread at a time); NULL with err on failure. */
static zka_gpu_key *cuda_key(struct cuda *x, int lane, uint32_t circuit, const zka_params *p,
			     char *err, size_t errlen)
{
	pthread_mutex_lock(&x->key_mu);
	zka_gpu_key *k = x->key[circuit];
	int keep_old = 0; /* the replaced key streams from its region: keep it registered */
	if (k && x->key_src[circuit] != p->map) {
		keep_old = zka_gpu_key_streamed(k);
		if (x->nretired < KEYS_MAX)
			x->retired[x->nretired++] = k;
		x->key[circuit] = k = NULL;
	}
	if (!k) {
		cuda_pin(x, lane, circuit, p, keep_old);
		if (zka_gpu_key_load(x->g[lane], &p->pk, &k, err, errlen) == 0) {
			x->key[circuit] = k;
			x->key_src[circuit] = p->map;
			key_line(circuit, k);
		} else {
			k = NULL;
		}
	}
	pthread_mutex_unlock(&x->key_mu);
	return k;
}

/* Says once per key, when its window tables are ready, how long their build took and behind
 * how many proofs (windowed: this proof ran without them); under key_mu. Called after each
 * proof and from the status tick (each second), so the line comes without further proofs. */
static void tables_check(struct cuda *x, uint32_t circuit, zka_gpu_key *k, int windowed)
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

static void cuda_status(void *ctx, zka_backend_status *st)
{
	struct cuda *x = ctx;
	memset(st, 0, sizeof *st);
	size_t fr = 0, tot = 0;
	char e[256];
	if (zka_gpu_mem_info(x->g[0], &fr, &tot, e, sizeof e) == 0 && tot >= fr) {
		st->has_mem = 1;
		st->mem_used = tot - fr;
		st->mem_total = tot;
	}
	pthread_mutex_lock(&x->warn_mu);
	snprintf(st->warn, sizeof st->warn, "%s", x->warn);
	pthread_mutex_unlock(&x->warn_mu);
	/* a key load holds key_mu for seconds: the tick does not wait for it */
	if (pthread_mutex_trylock(&x->key_mu) == 0) {
		for (uint32_t i = 0; i < KEYS_MAX; i++)
			tables_check(x, i, x->key[i], 0);
		pthread_mutex_unlock(&x->key_mu);
	}
}

static int cuda_prove(void *ctx, int lane, uint32_t circuit, const zka_params *p,
		      const uint64_t (*a)[4], const uint64_t (*b)[4], const uint64_t (*w)[4],
		      const zka_rs *rs, zka_proof *proof, zka_prove_times *t, double *copy_s,
		      char *err, size_t errlen)
{
	struct cuda *x = ctx;
	if (circuit >= KEYS_MAX || lane < 0 || lane >= x->lanes) {
		snprintf(err, errlen, "circuit %u or lane %d out of range", circuit, lane);
		return -EINVAL;
	}
	zka_gpu_key *k = cuda_key(x, lane, circuit, p, err, errlen);
	if (!k)
		return -EIO;
	/* a slot's a, b (standard form; no c, synth/pipe.h): converted and c made on the device */
	int r = zka_gpu_prove_ab(x->g[lane], k, a, b, 1, w, rs, proof, t, err, errlen);
	zka_gpu_times gt;
	zka_gpu_last_times(x->g[lane], &gt);
	*copy_s = gt.h2d;
	if (r == 0) {
		pthread_mutex_lock(&x->key_mu);
		tables_check(x, circuit, k, !gt.tables);
		pthread_mutex_unlock(&x->key_mu);
	}
	return r;
}

static void cuda_shutdown(void *ctx)
{
	struct cuda *x = ctx;
	if (!x)
		return;
	for (int i = 0; i < KEYS_MAX; i++)
		zka_gpu_key_free(x->key[i]);
	for (int i = 0; i < x->nretired; i++)
		zka_gpu_key_free(x->retired[i]);
	for (int i = 0; i < KEYS_MAX; i++) /* before gpud unmaps the regions */
		zka_gpu_unpin(x->pin[i]);
	for (int i = 0; i < x->nretired_pin; i++)
		zka_gpu_unpin(x->retired_pin[i]);
	zka_gpu_unpin(x->slots_pin); /* before gpud unmaps the arena */
	for (int i = x->lanes - 1; i >= 0; i--)
		zka_gpu_close(x->g[i]);
	pthread_mutex_destroy(&x->key_mu);
	pthread_mutex_destroy(&x->warn_mu);
	free(x);
}

#else

static int cuda_init(void **ctx, struct zka_arena *a, int device, int lanes, char *note,
		     size_t notelen, char *err, size_t errlen)
{
	(void)ctx, (void)a, (void)device, (void)lanes, (void)note, (void)notelen;
	snprintf(err, errlen,
		 "backend cuda: this build has no CUDA (nvcc was not found at build time)");
	return -ENOTSUP;
}

static int cuda_prove(void *ctx, int lane, uint32_t circuit, const zka_params *p,
		      const uint64_t (*a)[4], const uint64_t (*b)[4], const uint64_t (*w)[4],
		      const zka_rs *rs, zka_proof *proof, zka_prove_times *t, double *copy_s,
		      char *err, size_t errlen)
{
	(void)ctx, (void)lane, (void)circuit, (void)p, (void)a, (void)b, (void)w, (void)rs;
	(void)proof, (void)t, (void)copy_s;
	snprintf(err, errlen, "backend cuda: not built");
	return -ENOTSUP;
}

static void cuda_shutdown(void *ctx)
{
	(void)ctx;
}

static void cuda_status(void *ctx, zka_backend_status *st)
{
	(void)ctx;
	memset(st, 0, sizeof *st);
}
#endif

const zka_backend zka_backend_cuda = {"cuda", cuda_init, cuda_prove, cuda_shutdown, cuda_status};
