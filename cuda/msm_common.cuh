/* msm_common.cuh - what the MSM kernels share: the launch bounds of the point kernels (lb,
 * ZKG_LB: register budget per thread, measured per field) and the scalar as eight words (scal,
 * load_scalar, scalar_kind: 0, 1 or other, since scalars 0 and 1 take no bucket entries).
 * Speed: the launch bounds decide the point kernels' occupancy against spills (see lb). */
#pragma once
#include "cuda/engine_common.cuh"

namespace zkg
{

/* ---------------- MSM ---------------- */

/* Resident threads per SM that the point kernels are compiled for (the register budget is
 * 65536 / PER_SM per thread), and the block size of the bucket loop. Measured on the H200
 * (2026-11-30, a microbenchmark of the bucket loop: 2^24 mixed additions of random points from
 * a 14 x 2^20-point table, with the fused-IMAD multiplication): BLS12-381 G1 1.98 G additions/s
 * at 144 registers (384 threads/SM, blocks of 128), 1.93 at 144 (256/SM), 1.81 at 128 (512/SM),
 * 1.81 at 96; BN254 G1 4.67 G/s at 114 registers (512/SM), 4.40 at 80 (768/SM), 4.47 at 64;
 * G2: BLS12-381 0.64 G/s at 255 registers (256/SM), 0.38 at 168 (spills); BN254 1.38 at 196
 * (256/SM), 1.33 at 168, 1.31 at 128. Full Jacobian additions (the bucket reduction) on
 * BLS12-381 G1: 0.94-0.96 G/s at 204 or 128 registers. Re-measured with the base-field
 * products out of line (field.cuh, OUTLINE; 2026-12-01, bench gpu at 2^20, A/B in one call):
 * BN254 G2 at 384 threads/SM (168 registers, no spills) 28.1 -> 27.5 ms a proof; BLS12-381 G2
 * at 384 spills (61.8 against 60.5 ms); BLS12-381 G1 at 512 or 256 threads/SM and BN254 G1 at
 * 768: no better than the values here. */
template <class F> struct lb {
	static constexpr int T = 128, PER_SM = 256;
};
template <> struct lb<fp<bls12_381_fq_params>> {
	static constexpr int T = 128, PER_SM = 384;
};
template <> struct lb<fp2<fp<bn254_fq_params>>> {
	static constexpr int T = 128, PER_SM = 384;
};
template <> struct lb<fp<bn254_fq_params>> {
	static constexpr int T = 256, PER_SM = 512;
};
#define ZKG_LB(F, T) __launch_bounds__(T, lb<F>::PER_SM / (T))

struct scal {
	uint32_t v[8];
};

ZG_DEV scal load_scalar(const void *p)
{
	const uint4 *q = (const uint4 *)p;
	uint4 a = q[0], b = q[1];
	return {{a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w}};
}

ZG_DEV int scalar_kind(const scal &k) /* 0: zero, 1: one, 2: other */
{
	uint32_t hi = k.v[1] | k.v[2] | k.v[3] | k.v[4] | k.v[5] | k.v[6] | k.v[7];
	if (hi)
		return 2;
	return k.v[0] <= 1 ? (int)k.v[0] : 2;
}

} // namespace zkg
