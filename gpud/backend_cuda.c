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

#define KEYS_MAX 256

struct cuda {
	zka_gpu *g;
	zka_gpu_key *key[KEYS_MAX];
	const void *key_src[KEYS_MAX]; /* the params mapping each key was loaded from */
};

static int cuda_init(void **ctx, struct zka_arena *a, int device, char *note, size_t notelen,
		     char *err, size_t errlen)
{
	struct cuda *c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	int r = zka_gpu_open(&c->g, device, err, errlen);
	if (r) {
		free(c);
		return r;
	}
	struct zka_arena_geometry geo;
	zka_arena_geometry(a, &geo);
	for (uint32_t s = 0; s < geo.nslots; s++) {
		uint64_t size = 0;
		void *base = zka_slot_data(a, s, &size);
		if (!base || (r = zka_gpu_register(c->g, base, size, err, errlen))) {
			zka_gpu_close(c->g);
			free(c);
			return r ? r : -EINVAL;
		}
	}
	snprintf(note, notelen, "backend cuda: %s; %u slots (%llu MiB) registered with cudaHostRegister",
		 zka_gpu_device_name(c->g), geo.nslots,
		 (unsigned long long)(geo.nslots * geo.slot_stride >> 20));
	*ctx = c;
	return 0;
}

static int cuda_prove(void *ctx, uint32_t circuit, const zka_params *p, const uint64_t (*a)[4],
		      const uint64_t (*b)[4], const uint64_t (*c)[4], const uint64_t (*w)[4],
		      const zka_rs *rs, zka_proof *proof, zka_prove_times *t, char *err,
		      size_t errlen)
{
	struct cuda *x = ctx;
	if (circuit >= KEYS_MAX) {
		snprintf(err, errlen, "circuit index %u out of range", circuit);
		return -EINVAL;
	}
	if (x->key[circuit] && x->key_src[circuit] != p->map) {
		zka_gpu_key_free(x->key[circuit]);
		x->key[circuit] = NULL;
	}
	if (!x->key[circuit]) {
		int r = zka_gpu_key_load(x->g, &p->pk, &x->key[circuit], err, errlen);
		if (r)
			return r;
		x->key_src[circuit] = p->map;
		fprintf(stderr, "zkarena-gpud: circuit %u: key on the device: %s\n", circuit,
			zka_gpu_key_mode(x->key[circuit]));
	}
	return zka_gpu_prove(x->g, x->key[circuit], a, b, c, w, rs, proof, t, err, errlen);
}

static void cuda_shutdown(void *ctx)
{
	struct cuda *x = ctx;
	if (!x)
		return;
	for (int i = 0; i < KEYS_MAX; i++)
		zka_gpu_key_free(x->key[i]);
	zka_gpu_close(x->g);
	free(x);
}

#else

static int cuda_init(void **ctx, struct zka_arena *a, int device, char *note, size_t notelen,
		     char *err, size_t errlen)
{
	(void)ctx, (void)a, (void)device, (void)note, (void)notelen;
	snprintf(err, errlen, "backend cuda: this build has no CUDA (nvcc was not found at build time)");
	return -ENOTSUP;
}

static int cuda_prove(void *ctx, uint32_t circuit, const zka_params *p, const uint64_t (*a)[4],
		      const uint64_t (*b)[4], const uint64_t (*c)[4], const uint64_t (*w)[4],
		      const zka_rs *rs, zka_proof *proof, zka_prove_times *t, char *err,
		      size_t errlen)
{
	(void)ctx, (void)circuit, (void)p, (void)a, (void)b, (void)c, (void)w, (void)rs;
	(void)proof, (void)t;
	snprintf(err, errlen, "backend cuda: not built");
	return -ENOTSUP;
}

static void cuda_shutdown(void *ctx)
{
	(void)ctx;
}
#endif

const zka_backend zka_backend_cuda = {"cuda", cuda_init, cuda_prove, cuda_shutdown};
