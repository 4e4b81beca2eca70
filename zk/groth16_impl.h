/* groth16_impl.h - internal: the per-curve instances of the prover and verifier, dispatched
 * by groth16.c. */
#ifndef ZKA_GROTH16_IMPL_H
#define ZKA_GROTH16_IMPL_H
#include "zk/groth16.h"

#define ZKA__DECLARE_CURVE(c)                                                                      \
	int zka__##c##_compute_abc(const zka_pk *pk, const zka_witness *w, uint64_t(*a)[4],        \
				   uint64_t(*b)[4], uint64_t(*cc)[4], const zka_prove_opts *o);    \
	int zka__##c##_prove_abc(const zka_pk *pk, uint64_t(*a)[4], uint64_t(*b)[4],               \
				 uint64_t(*cc)[4], const uint64_t(*w)[4], const zka_rs *rs,        \
				 zka_proof *proof, const zka_prove_opts *o, zka_prove_times *t);   \
	int zka__##c##_verify(const zka_vk *vk, const uint64_t(*pub)[4], uint32_t n_pub,           \
			      const zka_proof *proof, const char **why);                           \
	int zka__##c##_alphabeta(zka_vk *vk, const uint64_t k[4]);                                 \
	void zka__##c##_domain_root(int k, uint32_t root, uint64_t out[4]);
ZKA__DECLARE_CURVE(bn254)
ZKA__DECLARE_CURVE(bls12_381)
#undef ZKA__DECLARE_CURVE
#endif
