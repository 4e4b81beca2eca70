/* engine_common.cuh - what every part of the prover engine uses: the includes, the seed
 * constants passed to kernels by value (seeds, seed) and the host's clock and grid helpers.
 * Included by each part (ntt.cuh, msm_*.cuh, fixed_base.cuh, test_kernels.cuh, drv_*.cuh);
 * engine.cuh includes them all. */
#pragma once
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/ec.cuh"
#include "cuda/host.h"
#include "cuda/internal.cuh"

namespace zkg
{

struct seeds {
	uint64_t v[32][4];
};

static inline double now_s()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

template <class Fr> ZG_DEV Fr seed(const seeds &s, int b)
{
	Fr r;
#pragma unroll
	for (int i = 0; i < Fr::N; i++)
		r.v[i] = (uint32_t)(s.v[b][i / 2] >> (32 * (i & 1)));
	return r;
}

static inline unsigned nblk(size_t n, unsigned t)
{
	return (unsigned)((n + t - 1) / t);
}

} // namespace zkg
