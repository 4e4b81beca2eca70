/* abc.cuh - a = A w and b = B w on the device, for a pipeline slot that holds only the witness
 * (synth/slot_layout.c's form W): the key's A and B in compressed sparse rows
 * (zka_gpu_key_set_abc uploads zk/abc.h's zka_abc once per key) times the witness already
 * copied for the witness MSMs, so the host computes neither and copies a third as much.
 *
 * Forms (zk/abc.h's "Forms"): the witness is in standard form and the coefficients in
 * Montgomery form, so each Montgomery product x (v R) / R = x v is in standard form and the
 * row sums come out as a slot's a and b would hold them (ab_std: the proof converts them next).
 * Coefficients 1 and -1 (value indices 0 and 1) are an addition and a subtraction; a zero
 * witness value adds nothing and is skipped (circom witnesses are mostly bits).
 *
 * One thread per row: circom rows hold a few terms (SHA-256's bit decompositions ~30, Poseidon's
 * full-width rows ~10), so a warp's rows are of similar lengths; rows are read once, in order.
 * Guarantees: out[i] = sum over row i's terms of val[v] w[col], canonical, for every i < n;
 * results equal the host's zka_abc_compute byte for byte (field sums are exact). */
#pragma once
#include "cuda/field.cuh"

namespace zkg
{

template <class Fr>
__global__ void k_ab_rows(const uint32_t *start, const uint2 *term, const Fr *val, const Fr *w,
			  Fr *out, uint32_t n)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	Fr acc = Fr::zero();
	for (uint32_t t = start[i], e = start[i + 1]; t < e; t++) {
		uint2 c = term[t]; /* {column, value index} */
		Fr x = Fr::load(&w[c.x]);
		if (x.is_zero())
			continue;
		if (c.y == 0)
			acc = acc + x;
		else if (c.y == 1)
			acc = acc - x;
		else
			acc = acc + x * Fr::load(&val[c.y]);
	}
	acc.store(&out[i]);
}

} // namespace zkg
