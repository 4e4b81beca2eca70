/* gpu_check.c - the device's key-point validation (zka_gpu_check_points, cuda/subgroup.cuh)
 * against the host's checks (the curve's g1_check/g2_check), both curves, G1 and G2:
 *   - a set of 2^20 + 4099 valid points (two chunks and a tail; subgroup points and
 *     infinities) passes;
 *   - a point planted at random indices and at the chunks' edges (off the curve, a coordinate
 *     not below q, on the curve but off the subgroup where the cofactor is not 1) is found at
 *     its index with the host's answer for that point;
 *   - of two planted points the lower index is the one named.
 * Without a CUDA device it prints "SKIP: no CUDA device" and passes (label "gpu").
 * Also prints the device's points per second on the set (not asserted: a test, not a
 * benchmark). */
#include "cuda/zka_gpu.h"
#include "tests/testutil.h"
#include "zk/bls12_381.h"
#include "zk/bn254.h"
#include "zk/curve.h"

#include <errno.h>
#include <gmp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the PRNG (splitmix64, reproducible from the printed seed) and the clock */
#include "tests/seeded.h"

#include "tests/curvepts.h"

static zka_gpu *G;
static const size_t NSET = ((size_t)1 << 20) + 4099, NBASE = 512;

/* The device's answer for the set: index (UINT64_MAX: all passed) and code. */
static uint64_t dev_check(const zka_curve *c, int g2, const void *pts, size_t n, int *code)
{
	uint64_t bad = 0;
	char err[300];
	int r = zka_gpu_check_points(G, c, g2, pts, n, &bad, code, err, sizeof err);
	if (r)
		fprintf(stderr, "zka_gpu_check_points: %s\n", err);
	CU_ASSERT_FATAL(r == 0);
	return bad;
}

/* Per group: the set tiled from NBASE subgroup points (k G, random k; every 97th base point
 * infinity), then the plants. */
#define CHECK_TEST(C, G_, CCN, IS_G2, COF1)                                                        \
	static void test_##C##_##G_(void)                                                          \
	{                                                                                          \
		const zka_curve *cv = &zka_curve_##C;                                              \
		const size_t sz = sizeof(C##_##G_##_aff);                                          \
		int (*host)(const void *) = IS_G2 ? cv->g2_check : cv->g1_check;                   \
		C##_##G_##_aff *base = calloc(NBASE, sz), *set = malloc(NSET * sz);                \
		CU_ASSERT_FATAL(base &&set);                                                       \
		C##_##G_##_aff g;                                                                  \
		C##_##G_##_gen(&g);                                                                \
		for (size_t i = 0; i < NBASE; i++) {                                               \
			if (i % 97 == 5)                                                           \
				continue; /* all zero: infinity */                                 \
			uint64_t k[4];                                                             \
			C##_##G_##_jac j;                                                          \
			rand_below(k, CCN##_FR_P, 4);                                              \
			C##_##G_##_from_aff(&j, &g);                                               \
			C##_##G_##_mul(&j, &j, k, 4);                                              \
			C##_##G_##_to_aff(&base[i], &j);                                           \
			CU_ASSERT_FATAL(host(&base[i]) == 0);                                      \
		}                                                                                  \
		for (size_t i = 0; i < NSET; i++)                                                  \
			set[i] = base[(i * 7) % NBASE];                                            \
		int code = -1;                                                                     \
		double t0 = now_s();                                                               \
		CU_ASSERT_EQUAL(dev_check(cv, IS_G2, set, NSET, &code), UINT64_MAX);               \
		double t = now_s() - t0;                                                           \
		printf("  " #C " " #G_ ": %zu points in %.3f s (%.1f M points/s, copies "          \
		       "included)\n",                                                              \
		       NSET, t, (double)NSET / t / 1e6);                                           \
		const size_t at[] = {0,                                                            \
				     ((size_t)1 << 20) - 1,                                        \
				     (size_t)1 << 20,                                              \
				     NSET - 1,                                                     \
				     rnd() % NSET,                                                 \
				     rnd() % NSET,                                                 \
				     rnd() % NSET,                                                 \
				     rnd() % NSET};                                                \
		for (int kind = 0; kind < 3; kind++) {                                             \
			if (kind == 2 && COF1)                                                     \
				continue; /* every point of the curve is in the group */           \
			for (size_t a = 0; a < sizeof at / sizeof at[0]; a++) {                    \
				size_t i = at[a];                                                  \
				C##_##G_##_aff keep = set[i], p = set[(i + 1) % NSET];             \
				if (kind == 0) { /* y with a low bit flipped: off the curve */     \
					if (C##_##G_##_aff_is_inf(&p))                             \
						p = base[1];                                       \
					((uint64_t *)&p)[sz / 16] ^= 1; /* a low bit of y */       \
				} else if (kind == 1) { /* x's limbs = q: not canonical */         \
					memcpy(&p, CCN##_FQ_P, sizeof CCN##_FQ_P);                 \
				} else { /* on the curve, cofactor not cleared */                  \
					do                                                         \
						IS_G2 ? rand_curve_g2_##C((void *)&p)              \
						      : rand_curve_g1_##C((void *)&p);             \
					while (host(&p) == 0);                                     \
				}                                                                  \
				int want = host(&p);                                               \
				CU_ASSERT_FATAL(want != 0);                                        \
				set[i] = p;                                                        \
				uint64_t got = dev_check(cv, IS_G2, set, NSET, &code);             \
				if (got != i || code != want)                                      \
					printf("  kind %d at %zu: device %" PRIu64 " code %d, "    \
					       "host code %d\n",                                   \
					       kind, i, got, code, want);                          \
				CU_ASSERT_EQUAL(got, i);                                           \
				CU_ASSERT_EQUAL(code, want);                                       \
				/* a second plant above it: the lower one is named */              \
				if (i + 10 < NSET) {                                               \
					C##_##G_##_aff k2 = set[i + 10];                           \
					set[i + 10] = p;                                           \
					CU_ASSERT_EQUAL(dev_check(cv, IS_G2, set, NSET, &code),    \
							i);                                        \
					set[i + 10] = k2;                                          \
				}                                                                  \
				set[i] = keep;                                                     \
			}                                                                          \
		}                                                                                  \
		CU_ASSERT_EQUAL(dev_check(cv, IS_G2, set, NSET, &code), UINT64_MAX);               \
		free(base);                                                                        \
		free(set);                                                                         \
	}

CHECK_TEST(bn254, g1, BN254, 0, 1)
CHECK_TEST(bn254, g2, BN254, 1, 0)
CHECK_TEST(bls12_381, g1, BLS12_381, 0, 0)
CHECK_TEST(bls12_381, g2, BLS12_381, 1, 0)

int main(void)
{
	seed_init("gpu_check", "ZKA_CHECK_SEED");
	char err[300];
	int r = zka_gpu_open(&G, 0, err, sizeof err);
	if (r == -ENODEV) {
		printf("SKIP: no CUDA device (%s)\n", err);
		return 0;
	}
	if (r) {
		fprintf(stderr, "gpu_check: %s\n", err);
		return 1;
	}
	init_bn254();
	init_bls12_381();
	static const zka_test_case cases[] = {
	    {"device check BN254 G1", test_bn254_g1},
	    {"device check BN254 G2", test_bn254_g2},
	    {"device check BLS12-381 G1", test_bls12_381_g1},
	    {"device check BLS12-381 G2", test_bls12_381_g2},
	    {NULL, NULL},
	};
	zka_test_suite("gpu_check", cases);
	r = zka_test_run();
	zka_gpu_close(G);
	return r;
}
