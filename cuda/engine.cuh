/* engine.cuh - the prover's kernels and their host drivers, generic over the curve: what
 * production proving needs. Included once per curve (bn254.cu, bls12_381.cu), which then
 * instantiate ZKG_DEFINE_OPS (and, from drv_test.cuh, ZKG_DEFINE_TEST_OPS).
 * The parts, one concept per file, each with a note on what it computes and what bounds it:
 *   engine_common.cuh  includes, seeds, host helpers
 *   ntt.cuh            NTT and the H polynomial's pointwise kernels
 *   msm_common.cuh     launch bounds of the point kernels, scalars
 *   msm_sort.cuh       signed digits and the two-level bucket sort
 *   msm_accumulate.cuh bucket accumulation (flat split), block sums, the ones' sum
 *   msm_affine.cuh     the bucket loop's arithmetic measured: mixed vs batch-affine additions
 *   msm_reduce.cuh     bucket reduction in levels
 *   fixed_base.cuh     window tables (k_precomp_dbl, _norm) and setup's fixed-base multiplication
 *   drv_eng.cuh        the host driver's struct (eng<TR>) and its parts' declarations
 *   drv_ntt.cuh        host driver: NTT tables and passes, the H polynomial
 *   drv_msm.cuh        host driver: one MSM (window choice, scratch, sort, run, combine)
 *   drv_stream.cuh     host driver: streamed point sets
 *   drv_key.cuh        host driver: the device key (upload, window tables)
 *   drv_prove.cuh      host driver: one proof
 *   drv_setup.cuh      host driver: setup's fixed-base multiplication
 *   subgroup.cuh       a key's points checked: canonical, on the curve, in the subgroup
 *   drv_check.cuh      host driver: those checks over a key's point sets
 * Not included here: test_kernels.cuh and drv_test.cuh (the tests' and benchmarks' entries,
 * cuda/zka_gpu_test.h). */
#pragma once
#include "cuda/drv_check.cuh"
#include "cuda/drv_key.cuh"
#include "cuda/drv_msm.cuh"
#include "cuda/drv_ntt.cuh"
#include "cuda/drv_prove.cuh"
#include "cuda/drv_setup.cuh"
#include "cuda/drv_stream.cuh"

#define ZKG_DEFINE_OPS(NAME, TR)                                                                   \
	const struct zkg_ops NAME = {                                                              \
	    zkg::eng<TR>::key_load,                                                                \
	    zkg::eng<TR>::tables_build,                                                            \
	    zkg::eng<TR>::prove,                                                                   \
	    zkg::eng<TR>::fixed_base,                                                              \
	    zkg::eng<TR>::check_points,                                                            \
	};
