/* devkey.h - params region -> device key: how a proving key in host memory (a params region,
 * keys/params.h) becomes a key on a CUDA device (cuda/zka_gpu.h), for the two callers and
 * their two policies (devkey.c's note says why they differ and what they share):
 *   zka_devkey_prep   one proof (`zkarena prove --gpu`): CUDA starts, the key's memory is
 *                     registered and the key uploaded on a thread of its own, beside the
 *                     caller's key read, witness and a, b; no window tables.
 *   zka_devkey_cache  keys kept for many proofs (zkarena-gpud's CUDA backend): a key per
 *                     circuit, loaded on first use and again when its region is replaced, its
 *                     region registered once before the upload, window tables built behind.
 * Built with the CUDA library only (zka_backend, ZKA_HAVE_CUDA). 0 or -errno returns. */
#ifndef ZKA_DEVKEY_H
#define ZKA_DEVKEY_H
#include <stddef.h>
#include <stdint.h>

#include "cuda/zka_gpu.h"
#include "keys/params.h"

/* ---- one proof: zka_devkey_prep ---- */

typedef struct zka_devkey_prep zka_devkey_prep;

/* What the preparation did, for `prove --times` and its notes (zka_devkey_prep_join). */
typedef struct {
	double open, pop, pin, key, stage; /* seconds: CUDA start, pages mapped, registration,
					    * key upload, staging buffers' setup */
	int pop_errno;			   /* MADV_POPULATE_READ's failure (0: none) */
	int pin_early;			   /* the key's memory was registered during its read */
	int staged;			   /* the staged upload's threads (0: registered instead) */
	int reader; /* the staged upload read the resident region's file (pread) */
	int device; /* the device index given to zka_devkey_prep_start */
	/* "" or one NOTE line each: the staged upload not taken as asked, the region's file not
	 * readable again, the key's memory not registered */
	char stage_note[512], reader_note[256], pin_note[512];
} zka_devkey_report;

/* Starts the preparation's thread (CUDA's start begins at once) on device; *x NULL and -errno
 * when the thread cannot be made. */
int zka_devkey_prep_start(zka_devkey_prep **x, int device);
/* The key loader's on_region and on_region_drop (arg: the zka_devkey_prep): the region being
 * read gets its point sections registered beside the reads; dropped, nothing of it stays
 * registered when on_region_drop returns. on_region never fails the load. */
int zka_devkey_prep_region(void *arg, void *map, size_t size, const zka_params_info *in);
void zka_devkey_prep_region_drop(void *arg);
/* The key is the resident region NAME mapped at p: a staged upload may pread it from the
 * region's file instead of the mapping (kept only while the file is that region still; else a
 * NOTE in the report's reader_note). Before the post. */
void zka_devkey_prep_reader(zka_devkey_prep *x, const char *name, const zka_params *p);
/* Hands the thread the key in memory (p; NULL: nothing to load, the thread stops); once. */
void zka_devkey_prep_post(zka_devkey_prep *x, const zka_params *p);
/* Waits until the thread has chosen the key's path: 1 when it stages the key (the context is
 * open: the caller may register its a, b and w beside the copy), else 0. */
int zka_devkey_prep_abw_early(zka_devkey_prep *x);
/* Waits for the thread; fills *r (may be NULL); 0 when the context and the key are ready,
 * else the first failure's -errno with its message in err. */
int zka_devkey_prep_join(zka_devkey_prep *x, zka_devkey_report *r, char *err, size_t errlen);
/* The context and the key (NULL before a successful join). */
zka_gpu *zka_devkey_prep_gpu(const zka_devkey_prep *x);
zka_gpu_key *zka_devkey_prep_key(const zka_devkey_prep *x);
/* Frees the key, the registrations (before the caller unmaps the region), the context and x,
 * joining the thread first when it still runs. NULL is fine. */
void zka_devkey_prep_end(zka_devkey_prep *x);

/* ---- keys kept: zka_devkey_cache ---- */

#define ZKA_DEVKEY_CIRCUITS 256

typedef struct zka_devkey_cache zka_devkey_cache;

/* An empty cache for the contexts of one device (loads go through the caller's context). */
int zka_devkey_cache_new(zka_devkey_cache **c);
/* The device key of circuit from its params region p, loaded through g (the calling lane's
 * context; one thread at a time per context) on first use and again when p is another region
 * than the key's (the old key retired, not freed: other lanes may still prove with it);
 * before a load the region's point sets are registered once (refused: a WARNING line, the
 * upload from pageable memory, the first refusal kept for zka_devkey_cache_warn). NULL with
 * err on failure. Any thread (under the cache's lock: a load holds it for its seconds). */
zka_gpu_key *zka_devkey_cache_get(zka_devkey_cache *c, zka_gpu *g, uint32_t circuit,
				  const zka_params *p, char *err, size_t errlen);
/* After a proof of circuit with k (windowed: it ran without the window tables), and from the
 * status tick (circuit and k of every cached key, windowed 0, never waiting for a load): says
 * once per key when its tables are ready or failed. */
void zka_devkey_cache_proved(zka_devkey_cache *c, uint32_t circuit, zka_gpu_key *k, int windowed);
void zka_devkey_cache_tick(zka_devkey_cache *c);
/* The first registration failure's line ("" when none), for the status note. */
void zka_devkey_cache_warn(zka_devkey_cache *c, char *buf, size_t len);
/* Frees every key (the retired ones too) and then the registrations, before the caller unmaps
 * the regions. NULL is fine. */
void zka_devkey_cache_free(zka_devkey_cache *c);

#endif
