/* cache.c - the params cache: one per process, mapping an arena's circuit entries to opened
 * params regions (keys/zka_cache.h).
 *
 * Objects
 *   entry    one per circuit index (< ZKA_PARAMS_CACHE_MAX): the opened region (a read-only
 *            mapping, keys/params.h), the shm name it was opened under, and the standard form
 *            of its coefficient values (made on first demand, freed with the entry).
 *   retired  a ring of `keep` entries whose region a reload replaced: still mapped, because
 *            another thread may still read it; the oldest is closed when the ring wraps.
 *   mu       one mutex over all of the above (the lanes of a gpud share one cache).
 *
 * States of an entry
 *   EMPTY -> OPEN(shm)       zka_params_cache_get    the circuit entry is LOADED, its region
 *                                                    the arena owner's, zka_params_open worked
 *   OPEN(shm) -> OPEN(shm2)  zka_params_cache_get    the circuit entry now names another
 *                                                    region (a reload): the old one is retired
 *                                                    (keep > 0) or closed (keep = 0) first
 *   OPEN -> EMPTY            zka_params_cache_get    as above, and the new region does not open
 *   any -> gone              zka_params_cache_free   every entry and retired one closed
 *
 * Invariants
 *   1. Every get checks the circuit entry's state and its region's owner afresh (no cached
 *      verdict): a region replaced or re-owned between two jobs is seen at the next one.
 *   2. An entry is OPEN(shm) only with shm equal to the name its region was opened under; a
 *      hit needs the circuit entry to name the same shm.
 *   3. With keep > 0, a region handed out is unmapped only after `keep` later replacements or
 *      at free; with keep = 0, at the next replacement of its entry.
 */
#include "keys/zka_cache.h"

#include "zk/abc.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct entry {
	zka_params p;
	char shm[ZKA_SHM_NAME_MAX];
	uint64_t (*vs)[4]; /* zka_params_cache_values_std: made at first use, freed with p */
};

struct zka_params_cache {
	pthread_mutex_t mu; /* guards everything below */
	struct entry e[ZKA_PARAMS_CACHE_MAX];
	struct entry *retired; /* keep entries, a ring */
	unsigned keep, nretired;
};

/* Closes e's region and frees its values; e is EMPTY after. */
static void entry_close(struct entry *e)
{
	zka_params_close(&e->p);
	free(e->vs);
	memset(e, 0, sizeof *e);
}

zka_params_cache *zka_params_cache_new(unsigned keep)
{
	zka_params_cache *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	if (keep && !(c->retired = calloc(keep, sizeof *c->retired))) {
		free(c);
		return NULL;
	}
	c->keep = keep;
	pthread_mutex_init(&c->mu, NULL);
	return c;
}

void zka_params_cache_free(zka_params_cache *c)
{
	if (!c)
		return;
	for (int i = 0; i < ZKA_PARAMS_CACHE_MAX; i++)
		entry_close(&c->e[i]);
	for (unsigned i = 0; i < c->keep; i++)
		entry_close(&c->retired[i]);
	free(c->retired);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

/* Moves entry e out of the way of a new region: into the retired ring (closing the oldest
 * there) when keep > 0, else closed. Under mu. */
static void entry_replace(zka_params_cache *c, struct entry *e)
{
	if (c->keep) {
		struct entry *r = &c->retired[c->nretired++ % c->keep];
		entry_close(r);
		*r = *e;
		memset(e, 0, sizeof *e);
	} else {
		entry_close(e);
	}
}

const zka_params *zka_params_cache_get(zka_params_cache *c, struct zka_arena *a, uint32_t idx,
				       char *err, size_t errlen)
{
	struct zka_circuit_info ci;
	if (idx >= ZKA_PARAMS_CACHE_MAX || zka_circuit_info(a, idx, &ci)) {
		snprintf(err, errlen, "circuit %u: no such entry", idx);
		return NULL;
	}
	if (ci.state != ZKA_CIRCUIT_LOADED) {
		snprintf(err, errlen, "circuit %u (%s): not loaded", idx, ci.key_path);
		return NULL;
	}
	if (zka_params_owner_check(a, ci.params_shm, err, errlen)) /* invariant 1 */
		return NULL;
	const zka_params *r = NULL;
	struct entry *e = &c->e[idx];
	pthread_mutex_lock(&c->mu);
	if (e->p.map && !strcmp(e->shm, ci.params_shm)) {
		r = &e->p;
		goto out;
	}
	if (e->p.map)
		entry_replace(c, e);
	if (zka_params_open(ci.params_shm, &e->p, err, errlen) == 0) {
		snprintf(e->shm, sizeof e->shm, "%s", ci.params_shm);
		r = &e->p;
	}
out:
	pthread_mutex_unlock(&c->mu);
	return r;
}

const uint64_t (*zka_params_cache_values_std(zka_params_cache *c, uint32_t idx))[4]
{
	if (idx >= ZKA_PARAMS_CACHE_MAX)
		return NULL;
	struct entry *e = &c->e[idx];
	pthread_mutex_lock(&c->mu);
	if (e->p.map && !e->vs)
		e->vs = zka_abc_values_std(&e->p.abc);
	const uint64_t(*vs)[4] = e->p.map ? (const uint64_t(*)[4])e->vs : NULL;
	pthread_mutex_unlock(&c->mu);
	return vs;
}

int zka_params_owner_check(const struct zka_arena *a, const char *shm, char *err, size_t errlen)
{
	uint32_t auid;
	zka_arena_owner(a, &auid, NULL, NULL);
	/* the owner from the name's inode (no open: a group member may not read the region) */
	char path[ZKA_SHM_NAME_MAX + 16];
	struct stat st;
	snprintf(path, sizeof path, "/dev/shm/%s", shm[0] == '/' ? shm + 1 : shm);
	if (strchr(path + 9, '/') || lstat(path, &st)) {
		int e = strchr(path + 9, '/') ? EINVAL : errno;
		snprintf(err, errlen, "params region %s: %s (%s)", shm, strerror(e),
			 e == ENOENT   ? "ENOENT"
			 : e == EACCES ? "EACCES"
				       : "lstat");
		return -e;
	}
	if (!S_ISREG(st.st_mode) || (st.st_uid != auid && st.st_uid != 0)) {
		snprintf(err, errlen,
			 "params region %s is owned by uid %u, not by the arena's owner (uid %u): "
			 "refusing another user's region (EPERM)",
			 shm, (unsigned)st.st_uid, (unsigned)auid);
		return -EPERM;
	}
	return 0;
}
