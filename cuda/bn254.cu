/* bn254.cu - the prover engine instantiated for BN254. */
#include "cuda/drv_test.cuh" /* the tests' entries (zka_gpu_test.h) */
#include "cuda/engine.cuh"

struct zkg_bn254_traits {
	using FrP = bn254_fr_params;
	using FqP = bn254_fq_params;
	using Fr = fp<FrP>;
	using Fq = fp<FqP>;
	static constexpr int CURVE = ZKA_BN254;
	static constexpr int FR_BITS = 254;
};
ZKG_DEFINE_OPS(zkg_ops_bn254, zkg_bn254_traits)
ZKG_DEFINE_TEST_OPS(zkg_test_ops_bn254, zkg_bn254_traits)
