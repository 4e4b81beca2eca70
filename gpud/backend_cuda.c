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
 * it (gpud/devkey.c, zka_devkey_cache: the policy, its states and invariants). A registration
 * that fails is said once per region, loudly, in the log and in the status note, and the key is
 * uploaded from pageable memory (never silently). The "key on the device"
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
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef ZKA_HAVE_CUDA
#include "cuda/zka_gpu.h"
#include "gpud/devkey.h"
#include "zk/abc.h"

/* Lanes: one device context each (a stream and one proof's buffers); keys are shared by all
 * of them, kept in a devkey cache (gpud/devkey.h: loaded once per circuit and params region,
 * the region registered before the upload, retired keys kept until shutdown). */
struct cuda {
	int lanes;
	zka_gpu *g[ZKA_LANES_MAX];
	zka_devkey_cache *keys;
	zka_gpu_pin *slots_pin; /* the arena's slots, registered at init */
	/* slots of form W whose key's matrices do not fit on the device: a and b made here, per
	 * lane (Montgomery form: wm the witness, ab a then b), said once (ab_warn, in status) */
	uint64_t (*wm[ZKA_LANES_MAX])[4], (*ab[ZKA_LANES_MAX])[4];
	size_t wcap[ZKA_LANES_MAX], abcap[ZKA_LANES_MAX];
	_Atomic int ab_warned;
	char device[384]; /* zka_gpu_device_desc of lane 0's device (logged at init), for status */
};

static void cuda_shutdown(void *ctx);

static const char ab_warn[] =
    "WARNING: a key's A and B do not fit on the device: slots holding only the witness get a "
    "and b from the CPU (slower; `run --ab worker` avoids it)";

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
	int r = zka_devkey_cache_new(&c->keys);
	if (r) {
		free(c);
		snprintf(err, errlen, "out of memory");
		return r;
	}
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
	/* the device's capability and the kernel image the driver chose from the fat binary */
	if ((r = zka_gpu_device_desc(c->g[0], c->device, sizeof c->device))) {
		snprintf(err, errlen, "%s", c->device);
		cuda_shutdown(c);
		return r;
	}
	fprintf(stderr, "zkarena-gpud: device %d: %s\n", device, c->device);
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
	snprintf(st->device, sizeof st->device, "%s", x->device); /* set once, at init */
	zka_devkey_cache_warn(x->keys, st->warn, sizeof st->warn);
	if (atomic_load(&x->ab_warned) && !st->warn[0]) /* the device's own warning first */
		snprintf(st->warn, sizeof st->warn, "%s", ab_warn);
	zka_devkey_cache_tick(x->keys); /* the tables' readiness said without further proofs */
}

/* a = A w, b = B w on the host into lane's buffers, in Montgomery form, for a slot of form W
 * whose key's matrices the device cannot hold; the first time, one WARNING line in the log and
 * the status note. 0, -ENOMEM or -EINVAL (a witness value not below r) with err set. */
static int ab_on_host(struct cuda *x, int lane, const zka_params *p, const uint64_t (*w)[4],
		      char *err, size_t errlen)
{
	size_t nd = p->pk.domain_size;
	if (!atomic_exchange(&x->ab_warned, 1))
		fprintf(stderr, "zkarena-gpud: %s\n", ab_warn);
	if (zka_abc_scratch_reserve(&x->wm[lane], &x->wcap[lane], p->pk.n_vars))
		goto oom;
	if (x->abcap[lane] < nd) {
		free(x->ab[lane]);
		x->abcap[lane] = 0;
		if (!(x->ab[lane] = malloc(2 * nd * 32)))
			goto oom;
		x->abcap[lane] = nd;
	}
	int64_t bad =
	    zka_abc_compute_w(&p->abc, w, x->wm[lane], x->ab[lane], x->ab[lane] + nd, NULL, 0);
	if (bad > 0) {
		snprintf(err, errlen, "witness value %lld is not below r", (long long)bad - 1);
		return -EINVAL;
	}
	return (int)bad;
oom:
	snprintf(err, errlen, "out of memory for a and b of %zu rows on the host", nd);
	return -ENOMEM;
}

static int cuda_prove(void *ctx, int lane, uint32_t circuit, const zka_params *p,
		      const uint64_t (*a)[4], const uint64_t (*b)[4], const uint64_t (*w)[4],
		      const zka_rs *rs, zka_proof *proof, zka_prove_times *t, double *copy_s,
		      char *err, size_t errlen)
{
	struct cuda *x = ctx;
	if (circuit >= ZKA_DEVKEY_CIRCUITS || lane < 0 || lane >= x->lanes) {
		snprintf(err, errlen, "circuit %u or lane %d out of range", circuit, lane);
		return -EINVAL;
	}
	zka_gpu_key *k = zka_devkey_cache_get(x->keys, x->g[lane], circuit, p, err, errlen);
	if (!k)
		return -EIO;
	/* a slot of form W (a = b = NULL): the key's A and B go to the device once, and a, b
	 * are made there from the witness; when they do not fit, here (said once, loudly) */
	int ab_std = 1, r;
	if (!a && (r = zka_gpu_key_set_abc(x->g[lane], k, &p->abc, err, errlen))) {
		if (r != -ENOMEM || (r = ab_on_host(x, lane, p, w, err, errlen)))
			return r == -ENOMEM ? r : -EIO;
		a = (const uint64_t(*)[4])x->ab[lane];
		b = (const uint64_t(*)[4])(x->ab[lane] + p->pk.domain_size);
		ab_std = 0;
	}
	/* a slot's a, b (standard form; no c, synth/pipe.h): converted and c made on the device */
	r = zka_gpu_prove_ab(x->g[lane], k, a, b, ab_std, w, rs, proof, t, err, errlen);
	zka_gpu_times gt;
	zka_gpu_last_times(x->g[lane], &gt);
	*copy_s = gt.h2d;
	if (r == 0)
		zka_devkey_cache_proved(x->keys, circuit, k, !gt.tables);
	return r;
}

static void cuda_shutdown(void *ctx)
{
	struct cuda *x = ctx;
	if (!x)
		return;
	zka_devkey_cache_free(x->keys); /* keys, then their regions' pins: before the unmaps */
	zka_gpu_unpin(x->slots_pin);	/* before gpud unmaps the arena */
	for (int i = 0; i < ZKA_LANES_MAX; i++) {
		zka_abc_scratch_free(x->wm[i], x->wcap[i]);
		free(x->ab[i]);
	}
	for (int i = x->lanes - 1; i >= 0; i--)
		zka_gpu_close(x->g[i]);
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
