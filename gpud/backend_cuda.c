/* backend_cuda.c - the CUDA backend: cuda/zka_gpu.h behind the backend interface. init
 * registers every slot of the arena once (cudaHostRegister), so a/b/c go to the device at
 * full PCIe speed with no staging copy; each circuit's key is loaded to the device once. */
#include "gpud/backend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef ZKA_HAVE_CUDA
#include "cuda/zka_gpu.h"

#include <pthread.h>

#define KEYS_MAX 256

/* Lanes: one device context each (a stream and one proof's buffers); keys are shared by all
 * of them and loaded once, under key_mu. A key replaced because its params region changed is
 * retired, not freed, while another lane may still prove with it; retired keys are freed at
 * shutdown. */
struct cuda {
	int lanes;
	zka_gpu *g[ZKA_LANES_MAX];
	pthread_mutex_t key_mu;
	zka_gpu_key *key[KEYS_MAX];
	const void *key_src[KEYS_MAX]; /* the params mapping each key was loaded from */
	zka_gpu_key *retired[KEYS_MAX];
	int nretired;
};

static void cuda_shutdown(void *ctx);

static int cuda_init(void **ctx, struct zka_arena *a, int device, int lanes, char *note,
		     size_t notelen, char *err, size_t errlen)
{
	struct cuda *c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&c->key_mu, NULL);
	int r = 0;
	for (c->lanes = 0; c->lanes < lanes; c->lanes++)
		if ((r = zka_gpu_open(&c->g[c->lanes], device, err, errlen))) {
			cuda_shutdown(c);
			return r;
		}
	/* registration is per process (pinned pages), so one context registers for all lanes */
	struct zka_arena_geometry geo;
	zka_arena_geometry(a, &geo);
	for (uint32_t s = 0; s < geo.nslots; s++) {
		uint64_t size = 0;
		void *base = zka_slot_data(a, s, &size);
		if (!base || (r = zka_gpu_register(c->g[0], base, size, err, errlen))) {
			cuda_shutdown(c);
			return r ? r : -EINVAL;
		}
	}
	snprintf(note, notelen,
		 "backend cuda: %s; %u slots (%llu MiB) registered with cudaHostRegister; %d "
		 "proof%s in flight",
		 zka_gpu_device_name(c->g[0]), geo.nslots,
		 (unsigned long long)(geo.nslots * geo.slot_stride >> 20), lanes,
		 lanes > 1 ? "s" : "");
	*ctx = c;
	return 0;
}

/* Returns the device key of circuit, loading it on first use through the calling lane's own
 * context (a context is used by one thread at a time); NULL with err on failure. */
static zka_gpu_key *cuda_key(struct cuda *x, int lane, uint32_t circuit, const zka_params *p,
			     char *err, size_t errlen)
{
	pthread_mutex_lock(&x->key_mu);
	zka_gpu_key *k = x->key[circuit];
	if (k && x->key_src[circuit] != p->map) {
		if (x->nretired < KEYS_MAX)
			x->retired[x->nretired++] = k;
		x->key[circuit] = k = NULL;
	}
	if (!k) {
		if (zka_gpu_key_load(x->g[lane], &p->pk, &k, err, errlen) == 0) {
			x->key[circuit] = k;
			x->key_src[circuit] = p->map;
			fprintf(stderr, "zkarena-gpud: circuit %u: key on the device: %s\n",
				circuit, zka_gpu_key_mode(k));
		} else {
			k = NULL;
		}
	}
	pthread_mutex_unlock(&x->key_mu);
	return k;
}

static int cuda_prove(void *ctx, int lane, uint32_t circuit, const zka_params *p,
		      const uint64_t (*a)[4], const uint64_t (*b)[4], const uint64_t (*c)[4],
		      const uint64_t (*w)[4], const zka_rs *rs, zka_proof *proof,
		      zka_prove_times *t, double *copy_s, char *err, size_t errlen)
{
	struct cuda *x = ctx;
	if (circuit >= KEYS_MAX || lane < 0 || lane >= x->lanes) {
		snprintf(err, errlen, "circuit %u or lane %d out of range", circuit, lane);
		return -EINVAL;
	}
	zka_gpu_key *k = cuda_key(x, lane, circuit, p, err, errlen);
	if (!k)
		return -EIO;
	int r = zka_gpu_prove(x->g[lane], k, a, b, c, w, rs, proof, t, err, errlen);
	zka_gpu_times gt;
	zka_gpu_last_times(x->g[lane], &gt);
	*copy_s = gt.h2d;
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
	for (int i = x->lanes - 1; i >= 0; i--) /* g[0] last: it unregisters the slots */
		zka_gpu_close(x->g[i]);
	pthread_mutex_destroy(&x->key_mu);
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
		      const uint64_t (*a)[4], const uint64_t (*b)[4], const uint64_t (*c)[4],
		      const uint64_t (*w)[4], const zka_rs *rs, zka_proof *proof,
		      zka_prove_times *t, double *copy_s, char *err, size_t errlen)
{
	(void)ctx, (void)lane, (void)circuit, (void)p, (void)a, (void)b, (void)c, (void)w, (void)rs;
	(void)proof, (void)t, (void)copy_s;
	snprintf(err, errlen, "backend cuda: not built");
	return -ENOTSUP;
}

static void cuda_shutdown(void *ctx)
{
	(void)ctx;
}
#endif

const zka_backend zka_backend_cuda = {"cuda", cuda_init, cuda_prove, cuda_shutdown};
