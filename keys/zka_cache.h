/* zka_cache.h - the params cache: one process's opened params regions of an arena's circuits,
 * indexed by circuit table entry. zkarena-synth and zkarena-gpud (its lanes share one) both
 * use it. See cache.c for the design (objects, states, invariants). */
#ifndef ZKA_CACHE_H
#define ZKA_CACHE_H
#include <stddef.h>
#include <stdint.h>

#include "keys/params.h"
#include "shm/zka_arena.h"

#define ZKA_PARAMS_CACHE_MAX 256 /* circuit indices served (0 .. 255) */

typedef struct zka_params_cache zka_params_cache;

/* A new, empty cache. keep: how many replaced regions stay mapped until zka_params_cache_free
 * (the oldest unmapped past that): 0 where one thread uses the cache and drops what _get
 * returned before its next call (a worker); more where other threads may still prove from a
 * region when a reload replaces it (gpud's lanes). NULL when out of memory. */
zka_params_cache *zka_params_cache_new(unsigned keep);
/* Unmaps every region and frees the cache. Safe on NULL. */
void zka_params_cache_free(zka_params_cache *c);

/* Returns the params of circuit idx (opened on first use, reopened if the entry changed), or
 * NULL with err set when there is no such entry, it is not LOADED, its region is not the
 * arena owner's (zka_params_owner_check) or cannot be opened. Thread-safe. The result stays
 * valid until the entry is replaced by a later call (keep = 0) or the cache is freed. */
const zka_params *zka_params_cache_get(zka_params_cache *c, struct zka_arena *a, uint32_t idx,
				       char *err, size_t errlen);

/* The standard form of circuit idx's coefficient values (zka_abc_values_std), for synthesis
 * into a slot; made at the first call after zka_params_cache_get opened the region, kept with
 * it. NULL when the circuit is not open here or out of memory. Thread-safe. */
const uint64_t (*zka_params_cache_values_std(zka_params_cache *c, uint32_t idx))[4];

/* The params region SHM must be a regular object owned by the arena's owner (or root):
 * 0, or -errno with err naming the region and its owner (EPERM: another user's). Opens
 * nothing (a group member may not read the region). */
int zka_params_owner_check(const struct zka_arena *a, const char *shm, char *err, size_t errlen);

#endif
