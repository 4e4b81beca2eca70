/* bench_field.c - `zkarena bench field`: the host's field inversions side by side, in
 * nanoseconds and in products of the same field, on one core: Fermat (F(inv), constant time),
 * the binary extended Euclid (F(inv_euclid), F(inv_vartime) until 2026-12-02) and the binary
 * GCD on 64-bit approximations (F(inv_bgcd), F(inv_vartime) now; zk/fp_tmpl.h). A benchmark,
 * not a test: it checks that the three agree on every input it times (and exits 1 if not),
 * but the tests are tests/test_field.c's. */
#include "tools/cli.h"
#include "zk/bls12_381.h"
#include "zk/bn254.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

static double bf_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* n random limb vectors below p (any such vector is the Montgomery form of some element) */
static int bf_random(uint64_t *v, int limbs, const uint64_t *p, int n)
{
	size_t bytes = (size_t)n * limbs * 8;
	for (size_t off = 0; off < bytes;) {
		ssize_t k = getrandom((char *)v + off, bytes - off, 0);
		if (k <= 0)
			return -1;
		off += (size_t)k;
	}
	for (int i = 0; i < n; i++)
		v[i * limbs + limbs - 1] %= p[limbs - 1];
	return 0;
}

/* One field's row: ns per product and per inversion of each kind, medians of reps passes
 * over n inputs; *bad set when the inversions disagree. */
#define BF_FIELD(F, LIMBS, PCONST, NAME)                                                           \
	static void bf_##F(int n, int reps, int *bad)                                              \
	{                                                                                          \
		F##_t *x = malloc(sizeof(F##_t) * n), *y = malloc(sizeof(F##_t) * 3 * n);          \
		if (!x || !y || bf_random(x[0].v, LIMBS, PCONST, n)) {                             \
			fprintf(stderr, "zkarena bench field: out of memory or randomness\n");     \
			free(x);                                                                   \
			free(y);                                                                   \
			*bad = 1;                                                                  \
			return;                                                                    \
		}                                                                                  \
		double best[4] = {1e30, 1e30, 1e30, 1e30};                                         \
		int fallbacks = 0;                                                                 \
		for (int r = 0; r < reps; r++) {                                                   \
			double t0 = bf_now();                                                      \
			F##_t acc = x[0];                                                          \
			for (int i = 0; i < 64 * n;                                                \
			     i++) /* a chain: each product waits for the last */                   \
				F##_mul(&acc, &acc, &x[i % n]);                                    \
			double t1 = bf_now();                                                      \
			for (int i = 0; i < n; i++)                                                \
				F##_inv(&y[i], &x[i]);                                             \
			double t2 = bf_now();                                                      \
			for (int i = 0; i < n; i++)                                                \
				F##_inv_euclid(&y[n + i], &x[i]);                                  \
			double t3 = bf_now();                                                      \
			for (int i = 0; i < n; i++)                                                \
				fallbacks += F##_inv_bgcd(&y[2 * n + i], &x[i]);                   \
			double t4 = bf_now();                                                      \
			double t[4] = {(t1 - t0) / (64.0 * n), (t2 - t1) / n, (t3 - t2) / n,       \
				       (t4 - t3) / n};                                             \
			for (int k = 0; k < 4; k++)                                                \
				best[k] = t[k] < best[k] ? t[k] : best[k];                         \
			if (F##_is_zero(&acc) && !F##_is_zero(&x[0])) /* keeps the chain alive */  \
				*bad = 1;                                                          \
		}                                                                                  \
		for (int i = 0; i < n; i++)                                                        \
			if (!F##_eq(&y[i], &y[n + i]) || !F##_eq(&y[i], &y[2 * n + i]))            \
				*bad = 1;                                                          \
		printf("| %-14s | %8.1f | %8.0f %6.0f | %8.0f %6.0f | %8.0f %6.0f |%s\n", NAME,    \
		       best[0] * 1e9, best[1] * 1e9, best[1] / best[0], best[2] * 1e9,             \
		       best[2] / best[0], best[3] * 1e9, best[3] / best[0],                        \
		       fallbacks ? " (inv_bgcd fell back)" : "");                                  \
		free(x);                                                                           \
		free(y);                                                                           \
	}
BF_FIELD(bn254_fq, 4, BN254_FQ_P, "BN254 Fq")
BF_FIELD(bn254_fr, 4, BN254_FR_P, "BN254 Fr")
BF_FIELD(bls12_381_fq, 6, BLS12_381_FQ_P, "BLS12-381 Fq")
BF_FIELD(bls12_381_fr, 4, BLS12_381_FR_P, "BLS12-381 Fr")

int zka_bench_field(int argc, char **argv)
{
	int n = 2000, reps = 5;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			printf(
			    "usage: zkarena bench field [--n N] [--reps R]\n\n"
			    "The host's field inversions on one core, each over the same N random\n"
			    "elements (default 2000), best of R passes (default 5): Fermat "
			    "(constant\n"
			    "time), the binary extended Euclid and the binary GCD on 64-bit\n"
			    "approximations (both variable time), in ns and in products of the "
			    "same\n"
			    "field (a chain of 64 N products). Exits 1 if the three disagree.\n");
			return 0;
		}
		int *dst = !strcmp(a, "--n") ? &n : !strcmp(a, "--reps") ? &reps : NULL;
		char *end = NULL;
		long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
		if (!dst || !end || *end || v < 1 || v > 1000000) {
			fprintf(
			    stderr,
			    "zkarena bench field: %s: expected --n N or --reps R with 1 <= value "
			    "<= 1000000\n",
			    a);
			return 2;
		}
		*dst = (int)v;
		i++;
	}
	int bad = 0;
	printf("zkarena bench field: %d elements, best of %d passes, one core\n\n", n, reps);
	printf(
	    "| field          | product  | Fermat (inv)    | binary Euclid   | binary GCD on   |\n"
	    "|                | ns       | ns    products  | ns    products  | approximations  |\n"
	    "|----------------|----------|-----------------|-----------------|-----------------|"
	    "\n");
	bf_bn254_fq(n, reps, &bad);
	bf_bn254_fr(n, reps, &bad);
	bf_bls12_381_fq(n, reps, &bad);
	bf_bls12_381_fr(n, reps, &bad);
	if (bad)
		fprintf(stderr, "zkarena bench field: the inversions disagree\n");
	return bad;
}
