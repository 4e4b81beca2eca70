/* circuit.c - the circuit table: a key's entry claimed by one loader, published with its
 * params region, read by workers and gpuds.
 *
 * States (one word per entry: state:4 owner:12 gen:48, changed only by CAS, gen bumped each
 * time, as arena.c's I1):
 *   FREE -> LOADING(me) -> LOADED(params_shm) | FREE (load failed)
 *   LOADING(dead) -> FREE                       (recover.c, recover_circuit)
 * Transition table:
 *   zka_circuit_claim    FREE -> LOADING(me), or finds the entry of the same key (LOADING or
 *                        LOADED: returns its state, claims nothing)
 *   zka_circuit_publish  LOADING(me) -> LOADED (params_shm) | FREE (NULL)
 * Invariants:
 *   C1. The key's identity (path, size, mtime, header hash) is written while the entry is
 *       LOADING(me), before the CAS that publishes it; params_shm before the CAS to LOADED.
 *   C2. Only the claimer (or a recoverer that judged it dead) moves a LOADING entry (I4). */
#include "shm/records.h"

#include <errno.h>
#include <string.h>

int zka_circuit_claim(struct zka_arena *a, const struct zka_circuit_key *k, uint32_t *idx)
{
	uint32_t me;
	if (!k->key_path || strnlen(k->key_path, ZKA_PATH_MAX) >= ZKA_PATH_MAX)
		return -EINVAL;
	int rc = zka__self(a, &me);
	if (rc < 0)
		return rc;
	for (uint32_t i = 0; i < a->g.ncircuits; i++) {
		struct zka__circuit *C = circ_rec(a, i);
		uint64_t w = ld(&C->word);
		uint32_t st = w_state(w);
		if ((st == ZKA_CIRCUIT_LOADED || st == ZKA_CIRCUIT_LOADING) &&
		    atomic_load(&C->key_size) == k->key_size &&
		    atomic_load(&C->key_mtime_ns) == k->key_mtime_ns &&
		    atomic_load(&C->header_hash) == k->header_hash &&
		    strncmp(C->key_path, k->key_path, ZKA_PATH_MAX) == 0) {
			*idx = i;
			return (int)st;
		}
	}
	for (uint32_t i = 0; i < a->g.ncircuits; i++) {
		struct zka__circuit *C = circ_rec(a, i);
		uint64_t w = ld(&C->word);
		if (w_state(w) != ZKA_CIRCUIT_FREE)
			continue;
		uint64_t nw = ZKA_CIRCUIT_LOADING | (uint64_t)me << 4 | ((w >> 16) + 1) << 16;
		if (!cas(&C->word, &w, nw))
			continue;
		copy_str(C->key_path, k->key_path, ZKA_PATH_MAX);
		memset(C->params_shm, 0, ZKA_SHM_NAME_MAX);
		atomic_store(&C->key_size, k->key_size);
		atomic_store(&C->key_mtime_ns, k->key_mtime_ns);
		atomic_store(&C->header_hash, k->header_hash);
		*idx = i;
		return 0;
	}
	return -ENOSPC;
}

int zka_circuit_publish(struct zka_arena *a, uint32_t idx, const char *params_shm)
{
	uint32_t me;
	if (idx >= a->g.ncircuits ||
	    (params_shm && strnlen(params_shm, ZKA_SHM_NAME_MAX) >= ZKA_SHM_NAME_MAX))
		return -EINVAL;
	int rc = zka__self(a, &me);
	if (rc < 0)
		return rc;
	struct zka__circuit *C = circ_rec(a, idx);
	uint64_t w = ld(&C->word);
	if (w_state(w) != ZKA_CIRCUIT_LOADING || w_owner(w) != me)
		return -EPERM;
	if (params_shm)
		copy_str(C->params_shm, params_shm, ZKA_SHM_NAME_MAX);
	uint64_t nw = (params_shm ? ZKA_CIRCUIT_LOADED : ZKA_CIRCUIT_FREE) |
		      (uint64_t)ZKA_OWNER_NONE << 4 | ((w >> 16) + 1) << 16;
	return cas(&C->word, &w, nw) ? 0 : -EBADMSG;
}

int zka_circuit_info(const struct zka_arena *a, uint32_t idx, struct zka_circuit_info *o)
{
	memset(o, 0, sizeof *o);
	if (idx >= a->g.ncircuits)
		return -ERANGE;
	struct zka__circuit *C = circ_rec(a, idx);
	uint64_t w = ld(&C->word);
	o->state = w_state(w) >= ZKA_CIRCUIT_FREE && w_state(w) <= ZKA_CIRCUIT_LOADED
		       ? (int)w_state(w)
		       : 0;
	o->owner = w_owner(w) == ZKA_OWNER_NONE ? ZKA_NONE : w_owner(w);
	memcpy(o->key_path, C->key_path, ZKA_PATH_MAX);
	o->key_path[ZKA_PATH_MAX - 1] = 0;
	memcpy(o->params_shm, C->params_shm, ZKA_SHM_NAME_MAX);
	o->params_shm[ZKA_SHM_NAME_MAX - 1] = 0;
	o->key_size = atomic_load(&C->key_size);
	o->key_mtime_ns = atomic_load(&C->key_mtime_ns);
	o->header_hash = atomic_load(&C->header_hash);
	return 0;
}
