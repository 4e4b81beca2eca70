/* slot_layout.h - the layout of a slot's data: what synthesis writes and the prover reads.
 * See slot_layout.c for the design note. */
#ifndef ZKA_SLOT_LAYOUT_H
#define ZKA_SLOT_LAYOUT_H
#include <stdint.h>

#include "shm/zka_arena.h"
#include "keys/params.h"

/* Pointers into a slot's data for a key: a and b (domain_size values each), w (n_vars). */
typedef struct {
	uint64_t (*a)[4], (*b)[4], (*w)[4];
	uint64_t bytes; /* the bytes the three take: zka_params_slot_bytes(pk) */
} zka_slot_view;

/* Maps slot's data for pk into v: 0; -EINVAL when the slot has no valid data (index out of
 * range, or a record that disagrees with the geometry); -ENOSPC when it is too small. */
int zka_slot_layout_view(struct zka_arena *a, uint32_t slot, const zka_pk *pk, zka_slot_view *v);

#endif
