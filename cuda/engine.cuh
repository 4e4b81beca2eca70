/* engine.cuh - the prover's kernels and their host drivers, generic over the curve.
 * Included once per curve (bn254.cu, bls12_381.cu), which then instantiate ZKG_DEFINE_OPS.
 * The parts, one concept per file, each with a note on what it computes and what bounds it:
 *   engine_common.cuh  includes, seeds, host helpers
 *   ntt.cuh            NTT and the H polynomial's pointwise kernels
 *   msm_common.cuh     launch bounds of the point kernels, scalars
 *   msm_sort.cuh       signed digits and the two-level bucket sort
 *   msm_accumulate.cuh bucket accumulation (flat split), block sums, the ones' sum
 *   msm_affine.cuh     the bucket loop's arithmetic measured: mixed vs batch-affine additions
 *   msm_reduce.cuh     bucket reduction in levels
 *   fixed_base.cuh     window tables (k_precomp_dbl, _norm) and setup's fixed-base multiplication
 *   test_kernels.cuh   field kernels for tests
 *   prove.cuh          host drivers: MSM, key load, proof, test entry points */
#pragma once
#include "cuda/prove.cuh"
