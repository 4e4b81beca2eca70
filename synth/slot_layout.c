/* slot_layout.c - the layout of a slot's data (arena layout version 5).
 *
 * ==== Design notes ====
 *
 * Object. A slot's data (zka_slot_data: slot_stride bytes in the arena) holds one job's
 * synthesized vectors, all little-endian, 32 bytes per Fr element:
 *   [a: domain_size, standard form][b: domain_size, standard form][w: n_vars, standard form]
 * followed by unused bytes up to slot_stride. zka_params_slot_bytes(pk) is 32 x
 * (2 domain_size + n_vars): the size `arena create --slot-bytes` must reach for the key.
 *
 * Writers and readers. Synthesis (zkarena-synth's worker) writes w, a = A.w and b = B.w
 * while the slot is WRITING(me); the prover (zkarena-gpud, bench pipeline) reads
 * all three while it is PROVING(me) (the state machine is arena.c's). a and b are only read by
 * the prover, so a prover that dies mid-proof leaves them intact for the next one (no
 * re-synthesis).
 *
 * Why this shape. c = a .* b is not in the slot: the prover makes it (the GPU on the device,
 * from a and b already copied there; the CPU backend into its scratch), which saves synthesis a
 * third of its output writes and the GPU a third of its input copies. a and b are in standard
 * form (zk/abc.h's "Forms"): the witness needs no Montgomery conversion on the host, and the GPU
 * converts a and b after the copy, where it costs one product each. Version 3 slots held c
 * between b and w; version 4 held a and b in Montgomery form.
 *
 * Forms (the slot record's form word, zka_slot_set_form; reset to AB at acquire):
 *   AB  a, b and w as above: the worker computed a and b (zk/abc.h).
 *   W   w only; the bytes of a and b are unspecified and never read: the prover makes
 *       a = A w and b = B w from the key's matrices (a cuda gpud on the device, cuda/abc.cuh;
 *       a cpu gpud on its lane), the same values. For circuits whose synthesis bounds the
 *       pipeline (a witness computed from input.json, then a and b on one core each), it moves
 *       the matrix products to the device and copies a third as much to it. zkarena-synth's
 *       --ab picks the form (auto: W when every running gpud is cuda).
 *
 * Invariants:
 *   L1. A view is handed out only for a slot whose data record agrees with the arena's
 *       geometry (zka_slot_data checks it) and that holds zka_params_slot_bytes(pk) bytes.
 *   L2. a, b and w never overlap: a at 0, b at 32 domain_size, w at 64 domain_size. */
#include "synth/slot_layout.h"

#include <errno.h>

int zka_slot_layout_view(struct zka_arena *a, uint32_t slot, const zka_pk *pk, zka_slot_view *v)
{
	uint64_t size = 0;
	uint8_t *base = zka_slot_data(a, slot, &size);
	uint64_t need = zka_params_slot_bytes(pk), n = pk->domain_size;
	if (!base)
		return -EINVAL;
	if (size < need)
		return -ENOSPC;
	v->a = (uint64_t(*)[4])base;
	v->b = (uint64_t(*)[4])(base + 32 * n);
	v->w = (uint64_t(*)[4])(base + 64 * n);
	v->bytes = need;
	return 0;
}
