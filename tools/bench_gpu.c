/* bench_gpu.c - `zkarena bench gpu`: the GPU prover's stages over a size sweep, both curves.
 *
 *   zkarena bench gpu [--curve bn128|bls12381|both] [--min LOG] [--max LOG] [--reps N]
 *                     [--cpu-max LOG] [--bls-max LOG] [--bn-max LOG] [--ntt-max LOG]
 *                     [--windowed 1]   (window tables off: the per-window bucket MSM)
 *                     [--witness random|bits:P] [--split01 F] [--table-budget B[,B..]]
 *                     [--arith 1]      (the bucket loop's arithmetic: mixed vs batch-affine;
 *                                       products on the integer and on the FP64 pipe)
 *
 * Keys are SYNTHETIC: random multiples of the generator made on the GPU by the fixed-base path
 * (one G1 set shared by A, B1, C and H; one G2 set for B2), random a, b, c and full-width random
 * witness scalars (--witness bits:P: a fraction P of them 0 or 1, half each, as Filecoin's
 * mostly boolean witnesses; the witness MSMs may then take the 0/1 split, zka_gpu_set_split01).
 * They are not keys of a circuit, so the proofs are not valid; the benchmark measures the prover's
 * stages, which do not depend on that. Whole-proof validity and equality with the CPU prover are
 * covered by tests/gpu_test.c. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Prints the usage text; returns 1 when argv asks for it (-h or --help anywhere). */
static int want_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf(
			    "usage: zkarena bench gpu [--curve bn128|bls12381|both] [--min LOG] "
			    "[--max LOG]\n"
			    "                         [--bn-max LOG] [--bls-max LOG] [--reps N] "
			    "[--cpu-max LOG]\n"
			    "                         [--ntt-max LOG] [--windowed 0|1]\n"
			    "                         [--witness random|bits:P] [--split01 F]\n"
			    "                         [--table-budget B[,B...]] [--in-flight N] "
			    "[--stream LOG]\n"
			    "                         [--arith 1]\n\n"
			    "GPU prover stages on CUDA device 0 over proofs of 2^min .. 2^max "
			    "constraints\n"
			    "(default 16..20, at most 27; --bn-max / --bls-max: another top size "
			    "for that curve) with\n"
			    "SYNTHETIC keys made on the GPU (not keys of a circuit: the proofs are "
			    "not valid;\n"
			    "the stages' times do not depend on that): per-stage times, proofs/s "
			    "one at a\n"
			    "time and two in flight, one G1 MSM (msm1: wall time from points and "
			    "scalars\n"
			    "on the device to the affine result on the host; scratch sized by a "
			    "warm-up\n"
			    "MSM) and one NTT; the CPU prover up to 2^cpu-max\n"
			    "(default 16, 0: none) with its NTT and MSM times (G2 on CPU threads "
			    "against\n"
			    "the GPU's G2 lane); H2D GB/s from registered and pageable memory; the "
			    "NTT\n"
			    "alone up to 2^ntt-max (default 24, 0: none). Medians of --reps runs "
			    "(default\n"
			    "5) after a warm-up. --windowed 1: keys without window tables. "
			    "--witness\n"
			    "bits:P: a fraction P (0..1) of the witness values 0 or 1 (half each; "
			    "Filecoin's\n"
			    "are ~0.9), the rest full-width random (default: random, all "
			    "full-width); msm1\n"
			    "then takes the witness as its scalars. --split01 F: the witness MSMs "
			    "split off\n"
			    "their 0/1 scalars when at least a fraction F of them are 0/1 (0: "
			    "always, 2:\n"
			    "never; default: the library's ZKA_GPU_SPLIT01 or $ZKG_SPLIT01). Each "
			    "size prints\n"
			    "the path the MSMs took and the time per proof. --table-budget: the "
			    "window\n"
			    "tables' memory beyond the points, in multiples of the points' own "
			    "bytes (max,\n"
			    "N or Nx; default the library's, 1x, or $ZKG_TABLE_BUDGET); a list "
			    "(max,2x,1x)\n"
			    "runs the whole sweep once per budget. --in-flight N: the proofs whose "
			    "working\n"
			    "memory a key leaves free (default 2, as zkarena-gpud's two lanes; 1 "
			    "lets a\n"
			    "single proof take more). --stream LOG: every key and MSM streamed "
			    "from host\n"
			    "memory in chunks of 2^LOG points (default 0: only keys that do not "
			    "fit on the\n"
			    "device stream, as the key's line says). --arith 1: instead of the "
			    "sweep, the\n"
			    "bucket loop's arithmetic alone: mixed additions into the prover's "
			    "accumulator\n"
			    "against batch-affine additions (J = 1..64 lanes per thread sharing "
			    "one\n"
			    "inversion) on the same 2^20 lanes x 32 steps (their sums must "
			    "match), with\n"
			    "the product's and the inversion's price, and the product on the FP64 "
			    "pipe\n"
			    "(52-bit limbs in doubles; it must give the integer product's bytes). "
			    "Needs a\n"
			    "zkarena built with CUDA.\n");
			return 1;
		}
	return 0;
}

#ifndef ZKA_HAVE_CUDA_LIB
/* Built without the CUDA library (no nvcc on this machine). */
int zka_bench_gpu(int argc, char **argv);
int zka_bench_gpu(int argc, char **argv)
{
	if (want_help(argc, argv))
		return 0;
	fprintf(stderr, "zkarena bench gpu: this zkarena was built without CUDA\n");
	return 2;
}
#else
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>

#include "config/zka_budget.h"
#include "cuda/zka_gpu_test.h"
#include "zk/bls12_381.h"
#include "zk/bn254.h"
#include "zk/opt.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void rnd(void *buf, size_t n)
{
	uint8_t *p = buf;
	while (n) {
		ssize_t k = getrandom(p, n > 33554431 ? 33554431 : n, 0);
		if (k <= 0)
			abort();
		p += k;
		n -= (size_t)k;
	}
}

/* n random scalars < r (top limb masked below r's top limb: uniform enough for timing) */
static void rnd_scalars(uint64_t (*k)[4], size_t n, const uint64_t *r)
{
	rnd(k, n * 32);
	for (size_t i = 0; i < n; i++)
		k[i][3] %= r[3];
}

/* the witness: a fraction p01 (0..1) of 0/1 values, half each, the rest full-width random
 * (p01 = 0: all full-width) */
static void witness_scalars(uint64_t (*w)[4], size_t n, const uint64_t *r, double p01)
{
	rnd_scalars(w, n, r);
	if (p01 <= 0)
		return;
	uint64_t cut = p01 >= 1 ? UINT64_MAX : (uint64_t)(p01 * 18446744073709551616.0);
	for (size_t i = 0; i < n; i++) {
		uint64_t u;
		rnd(&u, sizeof u);
		if (cut == UINT64_MAX || u < cut) {
			int one = (int)(u & 1); /* u < cut: its low bit is as random as any */
			memset(w[i], 0, 32);
			w[i][0] = (uint64_t)one;
		}
	}
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

typedef struct {
	double v[64];
	int n;
} samples;
static double med(samples *s)
{
	qsort(s->v, s->n, sizeof s->v[0], cmpd);
	return s->n ? s->v[s->n / 2] : 0;
}

/* one of several provers in flight: its own context (the key may be shared) */
typedef struct {
	zka_gpu *g;
	zka_gpu_key *key;
	const uint64_t (*abcw)[4];
	size_t n;
	const zka_rs *rs;
	int reps, rc;
	char err[256]; /* why rc is not 0 */
} flight;

static void *flight_run(void *arg)
{
	flight *f = arg;
	zka_proof pf;
	for (int i = 0; i < f->reps && !f->rc; i++)
		f->rc = zka_gpu_prove(f->g, f->key, f->abcw, f->abcw + f->n, f->abcw + 2 * f->n,
				      f->abcw + 3 * f->n, f->rs, &pf, NULL, f->err, sizeof f->err);
	return NULL;
}

static int bench_curve(zka_gpu *g, const zka_curve *c, int lmin, int lmax, int reps, int cpu_max,
		       double p01, double split01)
{
	char err[512];
	int bad = 0; /* a measurement failed: the exit status says so too */
	size_t g1 = zka_g1_bytes(c), g2 = zka_g2_bytes(c);
	char wdesc[64];
	if (p01 > 0)
		snprintf(wdesc, sizeof wdesc, "witness bits:%.3g (0/1 values, the rest full-width)",
			 p01);
	else
		snprintf(wdesc, sizeof wdesc, "witness full-width random");
	char bud[32];
	zka_budget_str(zka_gpu_table_budget(g), bud, sizeof bud);
	printf("\n%s (synthetic keys; n_vars = domain; %s; table budget %s; %d in flight)\n",
	       c->pretty, wdesc, bud, zka_gpu_proofs_in_flight(g));
	printf("%-6s %8s %8s %8s %8s %8s %9s %8s %8s %8s %8s %10s\n", "log2n", "h2d ms", "ntt ms",
	       "g1 ms", "g2 ms", "finish", "total ms", "proofs/s", "2fly/s", "msm1 ms", "ntt1 ms",
	       "cpu ms");
	for (int logn = lmin; logn <= lmax; logn++) {
		size_t n = (size_t)1 << logn;
		uint8_t *P1 = malloc(n * g1), *P2 = malloc(n * g2);
		uint64_t(*k)[4] = malloc(n * 32);
		uint64_t(*abcw)[4] = malloc(4 * n * 32);
		uint64_t(*x)[4] = malloc(n * 32);
		if (!P1 || !P2 || !k || !abcw || !x) {
			fprintf(stderr, "zkarena bench gpu: out of memory at 2^%d\n", logn);
			return 2;
		}
		uint8_t gen1[96], gen2[192], inf1[96];
		memset(inf1, 0, sizeof inf1);
		if (c->id == ZKA_BN254) {
			bn254_g1_gen((bn254_g1_aff *)gen1);
			bn254_g2_gen((bn254_g2_aff *)gen2);
		} else {
			bls12_381_g1_gen((bls12_381_g1_aff *)gen1);
			bls12_381_g2_gen((bls12_381_g2_aff *)gen2);
		}
		double tk = now();
		rnd_scalars(k, n, c->r);
		int rc = zka_gpu_fixed_base_g1(g, c, gen1, (const uint64_t(*)[4])k, n, P1, err,
					       sizeof err);
		if (!rc) {
			rnd_scalars(k, n, c->r);
			rc = zka_gpu_fixed_base_g2(g, c, gen2, (const uint64_t(*)[4])k, n, P2, err,
						   sizeof err);
		}
		if (rc) {
			fprintf(stderr, "zkarena bench gpu: fixed base: %s\n", err);
			return 2;
		}
		tk = now() - tk;
		zka_pk pk;
		memset(&pk, 0, sizeof pk);
		pk.curve = c;
		pk.n_vars = (uint32_t)n;
		pk.n_public = 1;
		pk.domain_size = (uint32_t)n;
		pk.log_domain = (uint32_t)logn;
		pk.alpha1 = pk.beta1 = pk.delta1 = P1;
		pk.beta2 = pk.gamma2 = pk.delta2 = P2;
		pk.A = pk.B1 = pk.H = P1;
		pk.C = P1 + 2 * g1;
		pk.B2 = P2;
		/* the key's points registered, as gpud and prove --gpu register a params region's:
		 * a streamed key (zka_gpu_set_stream_chunk) reads them at every proof */
		zka_gpu_pin *kpin = NULL;
		const void *kp[2] = {P1, P2};
		size_t kl[2] = {n * g1, n * g2};
		if ((rc = zka_gpu_pin_ranges(g, kp, kl, 2, 0, &kpin, err, sizeof err)))
			fprintf(stderr,
				"zkarena bench gpu: registering the key's points: %s (copies from "
				"pageable memory)\n",
				err);
		zka_gpu_key *key = NULL;
		double tl = now();
		if ((rc = zka_gpu_key_load(g, &pk, &key, err, sizeof err))) {
			fprintf(stderr, "zkarena bench gpu: key load: %s\n", err);
			return 2;
		}
		tl = now() - tl;
		/* a, b, c Montgomery (any value < r is some Montgomery form), w standard */
		rnd_scalars(abcw, 3 * n, c->r);
		witness_scalars(abcw + 3 * n, n, c->r, p01);
		if ((rc = zka_gpu_register(g, abcw, 4 * n * 32, err, sizeof err)))
			fprintf(stderr,
				"zkarena bench gpu: register: %s (copies from pageable memory)\n",
				err);
		zka_rs rs;
		rnd_scalars((uint64_t(*)[4])rs.r, 1, c->r);
		rnd_scalars((uint64_t(*)[4])rs.s, 1, c->r);
		zka_proof pf;
		samples sh = {0}, sn = {0}, s1 = {0}, s2 = {0}, sf = {0}, st = {0};
		double tsteady = 0, frac01 = -1;
		int split = 0;
		for (int i = 0; i <= reps; i++) {
			double t0 = now();
			rc = zka_gpu_prove(
			    g, key, (const uint64_t(*)[4])abcw, (const uint64_t(*)[4])(abcw + n),
			    (const uint64_t(*)[4])(abcw + 2 * n),
			    (const uint64_t(*)[4])(abcw + 3 * n), &rs, &pf, NULL, err, sizeof err);
			if (rc) {
				fprintf(stderr, "zkarena bench gpu: prove: %s\n", err);
				return 2;
			}
			if (i == 0)
				continue; /* warm-up */
			tsteady += now() - t0;
			zka_gpu_times t;
			zka_gpu_last_times(g, &t);
			split = t.msm_split;
			frac01 = t.frac01;
			sh.v[sh.n++] = t.h2d;
			sn.v[sn.n++] = t.ntt;
			s1.v[s1.n++] = t.msm_g1;
			s2.v[s2.n++] = t.msm_g2;
			sf.v[sf.n++] = t.finish;
			st.v[st.n++] = t.total;
		}
		/* two proofs in flight: a second context sharing the key, two host threads */
		double par = 0;
		{
			zka_gpu *gb = NULL;
			if (!zka_gpu_open(&gb, 0, err,
					  sizeof err)) { /* abcw: already registered (by g) */
				if (split01 >= 0)
					zka_gpu_set_split01(gb, split01);
				flight f[2] = {
				    {g, key, (const uint64_t(*)[4])abcw, n, &rs, 1, 0, ""},
				    {gb, key, (const uint64_t(*)[4])abcw, n, &rs, 1, 0, ""}};
				flight_run(&f[1]); /* warm-up */
				pthread_t th[2];
				double t0 = now();
				for (int i = 0; i < 2; i++) {
					f[i].reps = reps;
					pthread_create(&th[i], NULL, flight_run, &f[i]);
				}
				for (int i = 0; i < 2; i++)
					pthread_join(th[i], NULL);
				if (!f[0].rc && !f[1].rc)
					par = 2.0 * reps / (now() - t0);
				for (int i = 0; i < 2; i++)
					if (f[i].rc) { /* the 2fly column then reads 0.0; say why */
						fprintf(stderr,
							"zkarena bench gpu: two in flight: context "
							"%d: %s\n",
							i, f[i].err);
						bad = 1;
					}
			} else {
				fprintf(stderr, "zkarena bench gpu: second context: %s\n", err);
			}
			zka_gpu_close(gb);
		}
		/* the building blocks alone: medians of reps after a warm-up each */
		samples sm1 = {.n = 0}, snt = {.n = 0};
		uint8_t out[192];
		if (p01 > 0) /* msm1 over the witness: the split's effect on one MSM */
			memcpy(k, abcw + 3 * n, n * 32);
		else
			rnd_scalars(k, n, c->r);
		zka_gpu_msm_g1(g, c, P1, (const uint64_t(*)[4])k, n, out, NULL, err, sizeof err);
		for (int r = 0; r < reps; r++) {
			double t = 0;
			if (zka_gpu_msm_g1(g, c, P1, (const uint64_t(*)[4])k, n, out, &t, err,
					   sizeof err)) {
				fprintf(stderr, "zkarena bench gpu: msm: %s\n", err);
				bad = 1;
				break;
			}
			sm1.v[sm1.n++] = t;
		}
		memcpy(x, abcw, n * 32);
		zka_gpu_ntt(g, c, (uint32_t)logn, x, 0, NULL, err, sizeof err);
		for (int r = 0; r < reps; r++) {
			double t = 0;
			if (zka_gpu_ntt(g, c, (uint32_t)logn, x, 0, &t, err, sizeof err)) {
				fprintf(stderr, "zkarena bench gpu: ntt: %s\n", err);
				bad = 1;
				break;
			}
			snt.v[snt.n++] = t;
		}
		double msm1 = med(&sm1), ntt1 = med(&snt);
		zka_gpu_times mt;
		zka_gpu_last_times(g,
				   &mt); /* msm1's path (zka_gpu_msm_g1 sets msm_split, frac01) */
		double cpu = 0;
		zka_prove_times ct = {0};
		if (logn <= cpu_max) {
			zka_proof pc;
			zka_prove_opts po = {0};
			memcpy(x, abcw, n * 32);
			uint64_t(*b2)[4] = malloc(2 * n * 32);
			if (b2) {
				memcpy(b2, abcw + n, 2 * n * 32);
				double t0 = now();
				zka_prove_abc(&pk, x, b2, b2 + n,
					      (const uint64_t(*)[4])(abcw + 3 * n), &rs, &pc, &po,
					      &ct);
				cpu = now() - t0;
				free(b2);
			}
		}
		printf("%-6d %8.2f %8.2f %8.2f %8.2f %8.2f %9.2f %8.1f %8.1f %8.2f %8.3f ", logn,
		       med(&sh) * 1e3, med(&sn) * 1e3, med(&s1) * 1e3, med(&s2) * 1e3,
		       med(&sf) * 1e3, med(&st) * 1e3, reps / tsteady, par, msm1 * 1e3, ntt1 * 1e3);
		if (cpu > 0)
			printf("%10.1f\n", cpu * 1e3);
		else
			printf("%10s\n", "-");
		printf("       (key: fixed-base %.2f s, load %.2f s; %s)\n", tk, tl,
		       zka_gpu_key_mode(key));
		char thr[32], fr[32];
		if (split01 >= 0)
			snprintf(thr, sizeof thr, "%.3g", split01);
		else
			snprintf(thr, sizeof thr, "default");
		if (frac01 < 0) /* the split turned off: the scalars were not counted */
			snprintf(fr, sizeof fr, "not counted");
		else
			snprintf(fr, sizeof fr, "%.3f", frac01);
		printf("       (witness MSMs: %s, 0/1 fraction %s, split threshold %s; msm1: %s; "
		       "per proof %.2f ms one at a time)\n",
		       split ? "0/1 split (zeros dropped, ones summed, the rest bucketed)"
			     : "bucket MSM, no split",
		       fr, thr, mt.msm_split ? "0/1 split" : "no split", tsteady / reps * 1e3);
		/* the alternative, G2 on CPU threads beside the GPU: the CPU prover's share
		 * of its MSM wall time that went to G2 (all threads), against the GPU proof's G2
		 * lane */
		if (cpu > 0)
			printf("       (cpu prover on %ld threads: ntt %.1f ms, msm G1 %.1f ms, "
			       "msm G2 %.1f ms;"
			       " the GPU proof's G2 lane ends at %.2f ms)\n",
			       sysconf(_SC_NPROCESSORS_ONLN), ct.ntt * 1e3, ct.msm_g1 * 1e3,
			       ct.msm_g2 * 1e3, med(&s2) * 1e3);
		fflush(stdout);
		zka_gpu_key_free(key);
		zka_gpu_unpin(kpin); /* before the points are freed */
		free(P1);
		free(P2);
		free(k);
		free(x);
		/* abcw stays registered until the context closes: leak it deliberately here */
	}
	return bad;
}

/* --arith 1: the bucket loop's arithmetic alone (zka_gpu_acc_arith), mixed additions into the
 * prover's accumulator against batch-affine additions with J lanes per thread, over the same
 * 2^20 lanes x 32 steps of random G1 points, gathered from 2^20 points (device memory, as the
 * bucket loop gathers) and from 2^12 (cache-resident: the arithmetic alone); the batch's sums
 * must equal the mixed additions' byte for byte, else the benchmark fails. The products and
 * inversions alone give the per-addition cost in products. Medians of reps after a warm-up. */
static int bench_arith(zka_gpu *g, const zka_curve *c, int reps)
{
	char err[512];
	const size_t np = (size_t)1 << 20, lanes = (size_t)1 << 20;
	const uint32_t steps = 32;
	enum { NJ = 7 };
	const int Js[NJ] = {1, 2, 4, 8, 16, 32, 64};
	size_t g1 = zka_g1_bytes(c);
	uint8_t *P = malloc(np * g1), *ref = malloc(lanes * g1), *o = malloc(lanes * g1);
	uint64_t(*k)[4] = malloc(np * 32);
	uint32_t *idx = malloc(lanes * steps * 4);
	double t[1 + NJ] = {0}, tinv = 0, tmul = 0, tmul52 = 0;
	uint8_t gen1[96];
	int rc = 2;
	if (!P || !ref || !o || !k || !idx) {
		fprintf(stderr, "zkarena bench gpu: --arith: out of memory\n");
		goto out;
	}
	if (c->id == ZKA_BN254)
		bn254_g1_gen((bn254_g1_aff *)gen1);
	else
		bls12_381_g1_gen((bls12_381_g1_aff *)gen1);
	rnd_scalars(k, np, c->r);
	if (zka_gpu_fixed_base_g1(g, c, gen1, (const uint64_t(*)[4])k, np, P, err, sizeof err)) {
		fprintf(stderr, "zkarena bench gpu: --arith: fixed base: %s\n", err);
		goto out;
	}
	for (int from = 20; from >= 12; from -= 8) {
		rnd(idx, lanes * steps * 4);
		for (size_t i = 0; i < lanes * steps; i++)
			idx[i] &= ((uint32_t)1 << from) - 1;
		printf("\n%s G1: the bucket loop's arithmetic alone (%zu lanes x %u steps = %.1f M "
		       "additions of points gathered from 2^%d%s; device time, median of %d)\n",
		       c->pretty, lanes, steps, lanes * steps / 1e6, from,
		       from == 12 ? ", cache-resident" : "", reps);
		/* m: 0 mixed, 1..NJ batch with J = Js[m - 1], NJ + 1 inversions (2 chained per
		 * lane), NJ + 2 products (256 chained per lane; into ref, the batch's checks being
		 * done), NJ + 3 the same products on the FP64 pipe (must equal NJ + 2's) */
		for (int m = 0; m <= NJ + 3; m++) {
			int method = m == 0 ? 0 : m <= NJ ? 1 : m - NJ + 1;
			int J = method == 1 ? Js[m - 1] : 1;
			uint32_t st = method == 2 ? 2 : method >= 3 ? 256 : steps;
			samples sm = {0};
			if (method >= 2 && from != 20)
				break; /* the prices once */
			for (int r = 0; r <= reps; r++) {
				double dt = 0;
				if (zka_gpu_acc_arith(g, c, method, J, P, np, idx, lanes, st,
						      m && method != 3 ? o : ref, &dt, err,
						      sizeof err)) {
					fprintf(stderr, "zkarena bench gpu: --arith: %s\n", err);
					goto out;
				}
				if (r)
					sm.v[sm.n++] = dt;
			}
			double ms = med(&sm) * 1e3;
			if (method == 1 && memcmp(o, ref, lanes * g1)) {
				fprintf(
				    stderr,
				    "zkarena bench gpu: --arith: %s: the batch-affine sums (J = "
				    "%d) differ from the mixed additions'\n",
				    c->pretty, J);
				rc = 1;
				goto out;
			}
			if (method == 2)
				tinv = ms * 1e6 / (2.0 * lanes);
			else if (method == 3)
				tmul = ms * 1e6 / (256.0 * lanes);
			else if (method == 4) {
				tmul52 = ms * 1e6 / (256.0 * lanes);
				if (memcmp(o, ref, lanes * g1)) {
					fprintf(stderr,
						"zkarena bench gpu: --arith: %s: the FP64 products "
						"differ from the integer products\n",
						c->pretty);
					rc = 1;
					goto out;
				}
			} else
				t[m] = ms;
		}
		if (from == 20)
			printf("  product %.4f ns (throughput: 2^20 threads x 256 chained); Fermat "
			       "inversion %.2f ns = %.0f products\n",
			       tmul, tinv, tinv / tmul);
		if (from == 20)
			printf(
			    "  product on the FP64 pipe (52-bit limbs, same bytes) %.4f ns = %.2fx "
			    "the integer product's speed\n",
			    tmul52, tmul / tmul52);
		printf("  %-34s %9s %9s %13s %9s\n", "method", "ms", "ns/add", "products/add",
		       "vs mixed");
		for (int m = 0; m <= NJ; m++) {
			char name[64];
			if (m == 0)
				snprintf(name, sizeof name, "mixed additions (%s)",
					 c->id == ZKA_BN254 ? "XYZZ" : "Jacobian");
			else
				snprintf(name, sizeof name, "batch affine, J = %d lanes/thread",
					 Js[m - 1]);
			double ns = t[m] * 1e6 / ((double)lanes * steps);
			printf("  %-34s %9.3f %9.3f %13.1f %8.2fx\n", name, t[m], ns, ns / tmul,
			       t[0] / t[m]);
		}
		printf("  (the batch-affine sums equal the mixed additions' for every J)\n");
	}
	rc = 0;
out:
	free(P);
	free(ref);
	free(o);
	free(k);
	free(idx);
	return rc;
}

int zka_bench_gpu(int argc, char **argv)
{
	const char *curve = "both";
	int lmin = 16, lmax = 20, reps = 5, cpu_max = 16, bls_max = -1, bn_max = -1, ntt_max = 24,
	    windowed = 0, in_flight = 2, stream_log = 0, arith = 0;
	double p01 = 0,
	       split01 = -1;	  /* --witness bits:P, --split01 F (-1: the library's default) */
	double budgets[8] = {-1}; /* --table-budget (-1: the library's default) */
	int nbudget = 1;
	const struct {
		const char *name;
		int *v, lo, hi;
	} iopt[] = {{"--min", &lmin, 2, 27},
		    {"--max", &lmax, 2, 27},
		    {"--reps", &reps, 1, 60},
		    {"--cpu-max", &cpu_max, 0, 26},
		    {"--bls-max", &bls_max, 2, 27},
		    {"--bn-max", &bn_max, 2, 27},
		    {"--ntt-max", &ntt_max, 0, 26},
		    {"--windowed", &windowed, 0, 1},
		    {"--in-flight", &in_flight, 1, 64},
		    {"--stream", &stream_log, 0, 27},
		    {"--arith", &arith, 0, 1}};
	const size_t no = sizeof iopt / sizeof iopt[0];
	if (want_help(argc, argv))
		return 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v) {
			fprintf(stderr, "zkarena bench gpu: %s needs a value\n", a);
			return 2;
		}
		size_t o = 0;
		while (o < no && strcmp(a, iopt[o].name))
			o++;
		if (!strcmp(a, "--witness")) {
			char *end = NULL;
			if (!strcmp(v, "random"))
				p01 = 0;
			else if (!strncmp(v, "bits:", 5) &&
				 (p01 = strtod(v + 5, &end), end != v + 5) && !*end && p01 >= 0 &&
				 p01 <= 1)
				;
			else {
				fprintf(stderr,
					"zkarena bench gpu: --witness: '%s' is not random or "
					"bits:P (0 <= P <= 1)\n",
					v);
				return 2;
			}
		} else if (!strcmp(a, "--table-budget")) {
			char list[256];
			snprintf(list, sizeof list, "%s", v);
			nbudget = 0;
			for (char *sv = NULL, *t = strtok_r(list, ",", &sv); t;
			     t = strtok_r(NULL, ",", &sv)) {
				if (nbudget == 8 ||
				    zka_gpu_table_budget_parse(t, &budgets[nbudget])) {
					fprintf(stderr,
						"zkarena bench gpu: --table-budget: '%s' is not a "
						"list of at most 8 of max, N or Nx (N >= 0)\n",
						v);
					return 2;
				}
				nbudget++;
			}
			if (!nbudget) {
				fprintf(stderr, "zkarena bench gpu: --table-budget: empty list\n");
				return 2;
			}
		} else if (!strcmp(a, "--split01")) {
			char *end = NULL;
			split01 = strtod(v, &end);
			if (end == v || *end || split01 < 0) {
				fprintf(
				    stderr,
				    "zkarena bench gpu: --split01: '%s' is not a fraction >= 0\n",
				    v);
				return 2;
			}
		} else if (!strcmp(a, "--curve")) {
			/* the other commands' names (bn128, bls12381) and the library's */
			if (!strcmp(v, "bn128") || !strcmp(v, "bn254"))
				curve = "bn254";
			else if (!strcmp(v, "bls12381") || !strcmp(v, "bls12_381"))
				curve = "bls12_381";
			else if (!strcmp(v, "both"))
				curve = v;
			else {
				fprintf(stderr,
					"zkarena bench gpu: --curve: '%s' is not bn128, bls12381 "
					"or both\n",
					v);
				return 2;
			}
		} else if (o < no) {
			if (zka_opt_int("zkarena bench gpu", a, v, iopt[o].lo, iopt[o].hi,
					iopt[o].v))
				return 2;
		} else {
			fprintf(stderr, "zkarena bench gpu: unknown option %s\n", a);
			return 2;
		}
		i++;
	}
	if (ntt_max > 0 && ntt_max < 16) {
		fprintf(stderr, "zkarena bench gpu: --ntt-max: %d is not 0 (none) or 16..26\n",
			ntt_max);
		return 2;
	}
	if (lmin > lmax) {
		fprintf(stderr, "zkarena bench gpu: --min %d is above --max %d\n", lmin, lmax);
		return 2;
	}
	char err[512];
	zka_gpu *g;
	if (zka_gpu_open(&g, 0, err, sizeof err)) {
		fprintf(stderr, "zkarena bench gpu: %s\n", err);
		return 2;
	}
	zka_gpu_set_precompute(g, !windowed);
	zka_gpu_set_proofs_in_flight(g, in_flight);
	if (stream_log)
		zka_gpu_set_stream_chunk(g, (size_t)1 << stream_log);
	if (split01 >= 0)
		zka_gpu_set_split01(g, split01);
	time_t tnow = time(NULL);
	char date[64];
	strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&tnow));
	printf("zkarena bench gpu: %s, %s\n", zka_gpu_device_name(g), date);
	/* H2D bandwidth: 1 GiB from registered and from pageable memory */
	size_t bw = (size_t)1 << 30;
	void *hb = malloc(bw), *hp = malloc(bw);
	if (hb && hp) {
		memset(hb, 1, bw);
		memset(hp, 2, bw);
		double reg = 0, pag = 0;
		int r1 = zka_gpu_h2d_bw(g, hp, bw, &pag, err, sizeof err);
		int r0 = zka_gpu_register(g, hb, bw, err, sizeof err);
		if (!r0)
			r0 = zka_gpu_h2d_bw(g, hb, bw, &reg, err, sizeof err);
		printf("H2D 1 GiB: registered %.1f GB/s%s, pageable %.1f GB/s%s\n", reg,
		       r0 ? " (failed)" : "", pag, r1 ? " (failed)" : "");
	}
	/* one forward NTT (the prover's shared-memory passes, device time, median of 5) */
	if (ntt_max >= 16 && ntt_max <= 26) {
		uint64_t(*x)[4] = malloc(((size_t)1 << ntt_max) * 32);
		printf("NTT (forward, device time, median of 5):");
		for (int ci = 0; ci < 2 && x; ci++) {
			const zka_curve *c = ci ? &zka_curve_bls12_381 : &zka_curve_bn254;
			printf("\n  %-10s", c->pretty);
			for (int l = 16; l <= ntt_max; l += 2) {
				size_t n = (size_t)1 << l;
				rnd_scalars(x, n, c->r);
				samples sm = {0};
				for (int i = 0; i < 5; i++) {
					double t = 0;
					if (zka_gpu_ntt(g, c, (uint32_t)l, x, 0, &t, err,
							sizeof err)) {
						fprintf(stderr, "zkarena bench gpu: ntt: %s\n",
							err);
						break;
					}
					sm.v[sm.n++] = t;
				}
				printf("  2^%d %.3f ms", l, med(&sm) * 1e3);
			}
		}
		printf("\n");
		free(x);
	}
	int rc = 0;
	if (arith) {
		if (!strcmp(curve, "both") || !strcmp(curve, "bn254"))
			rc = bench_arith(g, &zka_curve_bn254, reps);
		if (!rc && (!strcmp(curve, "both") || !strcmp(curve, "bls12_381")))
			rc = bench_arith(g, &zka_curve_bls12_381, reps);
		zka_gpu_close(g);
		return rc;
	}
	for (int bi = 0; bi < nbudget && !rc; bi++) {
		zka_gpu_set_table_budget(g, budgets[bi]);
		if (!strcmp(curve, "both") || !strcmp(curve, "bn254"))
			rc |= bench_curve(g, &zka_curve_bn254, lmin, bn_max >= 0 ? bn_max : lmax,
					  reps, cpu_max, p01, split01);
		if (!rc && (!strcmp(curve, "both") || !strcmp(curve, "bls12_381")))
			rc |=
			    bench_curve(g, &zka_curve_bls12_381, lmin,
					bls_max >= 0 ? bls_max : lmax, reps, cpu_max, p01, split01);
	}
	zka_gpu_close(g);
	free(hp);
	/* hb was registered; the context has unregistered it */
	free(hb);
	return rc;
}

#ifdef ZKG_BENCH_MAIN
int main(int argc, char **argv)
{
	return zka_bench_gpu(argc, argv);
}
#endif
#endif /* ZKA_HAVE_CUDA_LIB */
