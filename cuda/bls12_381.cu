/* bls12_381.cu - the prover engine instantiated for BLS12-381. */
#include "cuda/drv_test.cuh" /* the tests' entries (zka_gpu_test.h) */
#include "cuda/engine.cuh"

struct zkg_bls12_381_traits {
	using FrP = bls12_381_fr_params;
	using FqP = bls12_381_fq_params;
	using Fr = fp<FrP>;
	using Fq = fp<FqP>;
	static constexpr int CURVE = ZKA_BLS12_381;
	static constexpr int FR_BITS = 255;
};
ZKG_DEFINE_OPS(zkg_ops_bls12_381, zkg_bls12_381_traits)
ZKG_DEFINE_TEST_OPS(zkg_test_ops_bls12_381, zkg_bls12_381_traits)
