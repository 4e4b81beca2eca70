/* lib_producer.c - the test producer of tests/pipeline/library.sh: libzkarena's flow and its
 * adversarial cases against a running pipeline.
 *
 *   lib_producer MODE ARENA KEY WITNESS.wtns OUTDIR [N]
 * MODE:
 *   witness   one job, the caller writes the witness, zkarena computes a, b
 *   ab        one job, the caller writes the witness, a and b (computed here with zk/abc.h from
 *             the .zkey's matrices, the simple reference path: every value read, no classes)
 *   hang      begins a job, writes half the witness, prints "LEASED ID" and sleeps (the test
 *             SIGKILLs it between begin and commit)
 *   short     commits one witness value short: must be refused, the job FAILED, no proof
 *   badval    commits with witness element 1 = r (not below the group order): refused
 *   badab     the ab shape with a one element short: refused
 *   abort     begins and aborts: FAILED with the reason, no proof
 *   group     a job group of N (default 10): OUTDIR/0 .. OUTDIR/N-1, all DONE
 *   close     leases a job and a group's job and leaves both to zka_lib_close
 * The bellperson shape (KEY a .zka imported from a .params with --r1cs; argv[6] its .r1cs):
 *   bp        one ZKA_LIB_BELLPERSON job: a, b (A w, B w with the input rows) and c (C w, the
 *             circuit's third matrix: independent of a b) and the densities computed here
 *             from the .r1cs; a, b past n_constraints left as garbage (the library zeroes
 *             them); OUTDIR/got/proof.bin the 192 bytes; prints the densities' counts
 *   bpshort   n_constraints one short: refused      bpdens  b_aux_density bit 17 flipped
 *   bpc       c[5] changed: refused (constraint 5)  bpone   input[0] = 2: refused
 *   bpcall    zka_lib_commit on a bellperson job: refused
 *   bpcr      c[3] = r: refused                      bpaux   aux[4] = r (and c[3]): aux named
 *   bpmont    as bp, every value (a, b, c, the assignment) in Montgomery form (.montgomery)
 *   bphang    begins a bellperson job, prints "LEASED ID" and sleeps (SIGKILLed)
 *   bpgroup   a group of argv[7] (default 10) bellperson jobs: OUTDIR/i, proof.bin each
 *   bpkey     ZKA_LIB_BELLPERSON on a snarkjs key (KEY): begin, zka_lib_group_new and
 *             zka_lib_key_bp_info refused with the reason, nothing leased
 * Exit 0 when the mode's expectation holds; the proofs are written under OUTDIR (one job: OUTDIR/
 * proof.json and public.json, copied from what zka_lib_job_proof/public returned). */
#include "zkarena.h"

#include "keys/params.h"
#include "zk/abc.h"
#include "zk/groth16.h"
#include "zk/r1cs.h"
#include "zk/wtns.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *mode, *arena, *keyp, *wtnsp, *outdir;

static int die(const char *what)
{
	fprintf(stderr, "lib_producer %s: %s: %s\n", mode, what, zka_lib_error());
	return 1;
}

/* The witness values of the .wtns (standard form), n of them. */
static uint8_t *witness(uint32_t *n)
{
	zka_witness w;
	char err[512];
	if (zka_wtns_read(wtnsp, &w, err, sizeof err)) {
		fprintf(stderr, "lib_producer: %s\n", err);
		return NULL;
	}
	*n = w.n;
	uint8_t *v = malloc((size_t)w.n * 32);
	if (v)
		memcpy(v, w.w, (size_t)w.n * 32);
	zka_witness_free(&w);
	return v;
}

/* a and b of the witness for the key (the reference: zka_abc_compute without classes). */
static int ab(const uint8_t *w, uint8_t *a, uint8_t *b)
{
	zka_pk pk;
	zka_r1cs cs = {0};
	zka_abc m;
	char err[512];
	if (zka_params_read_files(keyp, NULL, &pk, &cs, err, sizeof err) ||
	    zka_abc_build(&pk, &m, err, sizeof err)) {
		fprintf(stderr, "lib_producer: %s\n", err);
		return -1;
	}
	uint64_t(*vs)[4] = zka_abc_values_std(&m);
	int rc = vs ? zka_abc_compute(&m, (const uint64_t(*)[4])w, NULL, (const uint64_t(*)[4])vs,
				      (uint64_t(*)[4])a, (uint64_t(*)[4])b, NULL, 1)
		    : -ENOMEM;
	free(vs);
	zka_abc_free(&m);
	zka_pk_free(&pk);
	return rc;
}

static int save(const char *dir, const char *name, const char *text)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	return f && fputs(text, f) >= 0 && !fclose(f) ? 0 : -1;
}

/* A refused commit: -EINVAL, the job FAILED with the reason, no proof written. */
static int expect_refused(zka_lib_job *j, int rc)
{
	if (rc != -EINVAL) {
		fprintf(stderr, "lib_producer %s: commit returned %d, not -EINVAL\n", mode, rc);
		return 1;
	}
	printf("refused: %s\n", zka_lib_error());
	if (zka_lib_wait(j, 0) != ZKA_LIB_FAILED || !*zka_lib_job_reason(j)) {
		fprintf(stderr, "lib_producer %s: the refused job is not FAILED with a reason\n",
			mode);
		return 1;
	}
	printf("reason: %s\n", zka_lib_job_reason(j));
	return 0;
}

/* ---- the bellperson shape ---- */

/* The bellperson job of the circuit at r1cs for witness w: a, b, c (n rows, standard form) and
 * the three density bitmaps, computed from the .r1cs alone (not from the key). */
struct bpjob {
	uint64_t n, n_in, n_aux;
	uint64_t (*a)[4], (*b)[4], (*c)[4];
	uint8_t *dens[3]; /* a_aux, b_input, b_aux */
};

/* m_out = M w over the given matrices of cs as the rows 0 .. rows-1 of one zka_abc (M = A or
 * C in matrix 0, B in matrix 1; input rows: row m + i of matrix 0 is variable i when inputs). */
static int mat_vec(const zka_r1cs *cs, int k0, int k1, int inputs, uint32_t rows, uint32_t dom,
		   const uint8_t *w, uint64_t (*o0)[4], uint64_t (*o1)[4])
{
	zka_pk pk = {.curve = cs->curve, .n_vars = cs->n_wires, .domain_size = dom};
	uint64_t n = (k0 >= 0 ? cs->m[k0].n_terms : 0) + (k1 >= 0 ? cs->m[k1].n_terms : 0) +
		     (inputs ? rows - cs->n_constraints : 0);
	zka_coef *cf = calloc(n ? n : 1, sizeof *cf);
	uint64_t one[4] = {1, 0, 0, 0}, onem[4];
	zka_abc m;
	char err[256];
	int rc = -ENOMEM;
	if (!cf)
		return rc;
	cs->curve->fr_to_mont(onem, one);
	uint32_t e = 0;
	for (int mi = 0; mi < 2; mi++) {
		int k = mi ? k1 : k0;
		for (uint32_t i = 0; k >= 0 && i < cs->n_constraints; i++)
			for (uint64_t t = cs->m[k].start[i]; t < cs->m[k].start[i + 1]; t++, e++) {
				cf[e] = (zka_coef){
				    .matrix = (uint32_t)mi, .row = i, .signal = cs->m[k].signal[t]};
				memcpy(cf[e].value, cs->m[k].value[t], 32);
			}
	}
	for (uint32_t i = 0; inputs && cs->n_constraints + i < rows; i++, e++) {
		cf[e] = (zka_coef){.matrix = 0, .row = cs->n_constraints + i, .signal = i};
		memcpy(cf[e].value, onem, 32);
	}
	pk.n_coefs = e;
	pk.coefs = cf;
	uint64_t(*scratch)[4] = calloc(dom, 32);
	if (scratch && !(rc = zka_abc_build(&pk, &m, err, sizeof err))) {
		uint64_t(*vs)[4] = zka_abc_values_std(&m);
		rc = vs ? zka_abc_compute(&m, (const uint64_t(*)[4])w, NULL,
					  (const uint64_t(*)[4])vs, o0, o1 ? o1 : scratch, NULL, 1)
			: -ENOMEM;
		free(vs);
		zka_abc_free(&m);
	} else if (scratch) {
		fprintf(stderr, "lib_producer: %s\n", err);
	}
	free(scratch);
	free(cf);
	return rc;
}

static int bp_compute(const char *r1cs, const uint8_t *w, struct bpjob *bj)
{
	zka_r1cs cs;
	char err[512];
	if (zka_r1cs_read(r1cs, &cs, err, sizeof err)) {
		fprintf(stderr, "lib_producer: %s\n", err);
		return -1;
	}
	uint32_t npub = cs.n_pub_out + cs.n_pub_in, dom = 1;
	bj->n_in = npub + 1;
	bj->n_aux = cs.n_wires - bj->n_in;
	bj->n = cs.n_constraints + bj->n_in;
	while (dom < bj->n)
		dom *= 2;
	bj->a = calloc(dom, 32), bj->b = calloc(dom, 32), bj->c = calloc(dom, 32);
	for (int i = 0; i < 3; i++)
		bj->dens[i] = calloc(cs.n_wires / 8 + 1, 1);
	int rc = -1;
	if (!bj->a || !bj->b || !bj->c || !bj->dens[0] || !bj->dens[1] || !bj->dens[2])
		goto out;
	if (mat_vec(&cs, 0, 1, 1, (uint32_t)bj->n, dom, w, bj->a, bj->b) ||
	    mat_vec(&cs, 2, -1, 0, (uint32_t)bj->n, dom, w, bj->c, NULL))
		goto out;
	for (int k = 0; k < 2; k++) /* A: aux only; B: input and aux */
		for (uint64_t t = 0; t < cs.m[k].n_terms; t++) {
			uint64_t v = cs.m[k].signal[t];
			if (v >= bj->n_in)
				bj->dens[k ? 2 : 0][(v - bj->n_in) / 8] |= 1
									   << ((v - bj->n_in) % 8);
			else if (k)
				bj->dens[1][v / 8] |= 1 << (v % 8);
		}
	rc = 0;
out:
	zka_r1cs_free(&cs);
	return rc;
}

static uint64_t popcount(const uint8_t *m, uint64_t n)
{
	uint64_t k = 0;
	for (uint64_t i = 0; i < n; i++)
		k += (m[i / 8] >> (i % 8)) & 1;
	return k;
}

/* Writes job i's vectors into its regions: a, b (n rows, garbage past them), the assignment. */
static void bp_fill(const struct bpjob *bj, const struct zka_lib_regions *r, const uint8_t *w)
{
	memcpy(r->a, bj->a, bj->n * 32);
	memcpy(r->b, bj->b, bj->n * 32);
	memset(r->a + bj->n * 32, 0x5a, (r->n_ab - bj->n) * 32);
	memset(r->b + bj->n * 32, 0xa5, (r->n_ab - bj->n) * 32);
	memcpy(r->witness, w, (bj->n_in + bj->n_aux) * 32);
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int save_bin(const char *dir, const uint8_t *b, size_t n)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/proof.bin", dir);
	FILE *f = fopen(p, "w");
	return f && fwrite(b, 1, n, f) == n && !fclose(f) ? 0 : -1;
}

static int bp_main(zka_lib_key *key, const uint8_t *w, int argc, char **argv)
{
	struct bpjob bj = {0};
	struct zka_lib_regions r;
	struct zka_lib_bp_info bi;
	zka_lib_job *j = NULL;
	uint8_t bin[192];
	int st = 1, rc;
	if (!strcmp(mode, "bpkey")) { /* a snarkjs key: refused at begin, nothing leased */
		zka_lib_group *g = NULL;
		rc = zka_lib_begin(key, ZKA_LIB_BELLPERSON, outdir, 1000, &j, &r);
		printf("begin: %d %s\n", rc, zka_lib_error());
		int rg = zka_lib_group_new(key, 2, ZKA_LIB_BELLPERSON, NULL, &g);
		printf("group_new: %d %s\n", rg, zka_lib_error());
		int ri = zka_lib_key_bp_info(key, &bi);
		printf("key_bp_info: %d %s\n", ri, zka_lib_error());
		return rc == -EINVAL && rg == -EINVAL && ri == -EINVAL && !j && !g ? 0 : 1;
	}
	if (argc < 7 || bp_compute(argv[6], w, &bj))
		return 1;
	struct zka_lib_bp_commit bc = {.n_constraints = bj.n,
				       .n_input = bj.n_in,
				       .n_aux = bj.n_aux,
				       .c = (const uint64_t(*)[4])bj.c,
				       .a_aux_density = bj.dens[0],
				       .b_input_density = bj.dens[1],
				       .b_aux_density = bj.dens[2]};
	printf("density a_aux %llu/%llu b_input %llu/%llu b_aux %llu/%llu\n",
	       (unsigned long long)popcount(bj.dens[0], bj.n_aux), (unsigned long long)bj.n_aux,
	       (unsigned long long)popcount(bj.dens[1], bj.n_in), (unsigned long long)bj.n_in,
	       (unsigned long long)popcount(bj.dens[2], bj.n_aux), (unsigned long long)bj.n_aux);
	if (zka_lib_key_bp_info(key, &bi) || bi.n_constraints != bj.n || bi.n_input != bj.n_in ||
	    bi.n_aux != bj.n_aux) {
		fprintf(stderr, "lib_producer: zka_lib_key_bp_info disagrees with the .r1cs: %s\n",
			zka_lib_error());
		goto out;
	}
	if (!strcmp(mode, "bpgroup")) {
		uint32_t gn = argc > 7 ? (uint32_t)atoi(argv[7]) : 10;
		zka_lib_group *g;
		if (zka_lib_group_new(key, gn, ZKA_LIB_BELLPERSON, outdir, &g)) {
			st = die("group");
			goto out;
		}
		/* timed for tools/gpu-bp-group.sh: begin (waits for a free slot), the copy into
		 * the slot, commit (the library's checks of lengths, densities and values) */
		double t0 = now(), tb = 0, tf = 0, tc = 0, tl = t0;
		for (uint32_t i = 0; i < gn; i++) {
			if (zka_lib_group_begin(g, i, 600000, &r)) {
				st = die("group begin");
				break;
			}
			double t1 = now();
			bp_fill(&bj, &r, w);
			double t2 = now();
			if (zka_lib_group_commit_bellperson(g, i, &bc)) {
				st = die("group commit");
				break;
			}
			double t3 = now();
			tb += t1 - tl, tf += t2 - t1, tc += t3 - t2, tl = t3;
		}
		rc = zka_lib_group_wait(g, 1800000);
		double te = now();
		printf("group %016llx: %u jobs, %d failed\n",
		       (unsigned long long)zka_lib_group_id(g), gn, rc);
		printf("group timing: %u jobs, first begin to last commit %.3f s (begin, waiting "
		       "for slots %.3f, fill %.3f, commit %.3f), to the last result %.3f s: "
		       "%.3f s per proof, %.3f proofs/s\n",
		       gn, tl - t0, tb, tf, tc, te - t0, (te - t0) / gn, gn / (te - t0));
		st = rc != 0;
		for (uint32_t i = 0; i < gn && rc == 0; i++) {
			zka_lib_job *gj = zka_lib_group_job(g, i);
			char d[4096];
			snprintf(d, sizeof d, "%s/%u", outdir, i);
			if (zka_lib_job_proof_bellperson(gj, bin) || save_bin(d, bin, 192))
				st = die("group proof.bin");
			printf("job %llu DONE\n", (unsigned long long)zka_lib_job_id(gj));
		}
		zka_lib_group_free(g);
		goto out;
	}
	if (zka_lib_begin(key, ZKA_LIB_BELLPERSON, outdir, 60000, &j, &r)) {
		st = die("begin");
		goto out;
	}
	if (!r.a || !r.b || r.n_ab < bj.n || r.n_witness != bj.n_in + bj.n_aux) {
		fprintf(stderr, "lib_producer: regions disagree with the key's geometry\n");
		goto out;
	}
	bp_fill(&bj, &r, w);
	if (!strcmp(mode, "bpmont")) { /* every value in Montgomery form, as blstrs holds it */
		const zka_curve *cv = &zka_curve_bls12_381;
		uint64_t(*ra)[4] = (uint64_t(*)[4])r.a, (*rb)[4] = (uint64_t(*)[4])r.b,
		(*rw)[4] = (uint64_t(*)[4])r.witness;
		for (uint64_t i = 0; i < bj.n; i++) {
			cv->fr_to_mont(ra[i], ra[i]);
			cv->fr_to_mont(rb[i], rb[i]);
			cv->fr_to_mont(bj.c[i], bj.c[i]);
		}
		for (uint64_t i = 0; i < bj.n_in + bj.n_aux; i++)
			cv->fr_to_mont(rw[i], rw[i]);
		bc.montgomery = 1;
	}
	if (!strcmp(mode, "bphang")) {
		printf("LEASED %llu\n", (unsigned long long)zka_lib_job_id(j));
		fflush(stdout);
		for (;;)
			pause();
	}
	if (!strcmp(mode, "bpshort")) {
		bc.n_constraints--;
		st = expect_refused(j, zka_lib_commit_bellperson(j, &bc));
	} else if (!strcmp(mode, "bpdens")) {
		bj.dens[2][17 / 8] ^= 1 << (17 % 8);
		st = expect_refused(j, zka_lib_commit_bellperson(j, &bc));
	} else if (!strcmp(mode, "bpc")) {
		bj.c[5][0] ^= 1;
		st = expect_refused(j, zka_lib_commit_bellperson(j, &bc));
	} else if (!strcmp(mode, "bpone")) {
		r.witness[0] = 2;
		st = expect_refused(j, zka_lib_commit_bellperson(j, &bc));
	} else if (!strcmp(mode, "bpcr")) { /* c[3] = r, aux[4] = r: the first named */
		memcpy(bj.c[3], zka_curve_bls12_381.r, 32);
		st = expect_refused(j, zka_lib_commit_bellperson(j, &bc));
	} else if (!strcmp(mode, "bpaux")) {
		memcpy(r.witness + (bj.n_in + 4) * 32, zka_curve_bls12_381.r, 32);
		memcpy(bj.c[3], zka_curve_bls12_381.r, 32);
		st = expect_refused(j, zka_lib_commit_bellperson(j, &bc));
	} else if (!strcmp(mode, "bpcall")) {
		st = expect_refused(j, zka_lib_commit(j, bj.n_in + bj.n_aux, bj.n, bj.n));
	} else {
		double t0 = now();
		if (zka_lib_commit_bellperson(j, &bc)) {
			st = die("commit");
			goto out;
		}
		printf("commit %.4f s\n", now() - t0);
		rc = zka_lib_wait(j, 120000);
		if (rc != ZKA_LIB_DONE) {
			fprintf(stderr, "lib_producer %s: job %llu: %d %s %s\n", mode,
				(unsigned long long)zka_lib_job_id(j), rc, zka_lib_job_reason(j),
				zka_lib_error());
			goto out;
		}
		printf("job %llu DONE\n", (unsigned long long)zka_lib_job_id(j));
		char d[4096];
		snprintf(d, sizeof d, "%s/got", outdir);
		mkdir(d, 0700);
		if (zka_lib_job_proof_bellperson(j, bin)) {
			st = die("proof_bellperson");
			goto out;
		}
		st = save(d, "proof.json", zka_lib_job_proof(j)) ||
		     save(d, "public.json", zka_lib_job_public(j)) || save_bin(d, bin, 192);
	}
out:
	zka_lib_job_free(j);
	free(bj.a);
	free(bj.b);
	free(bj.c);
	for (int i = 0; i < 3; i++)
		free(bj.dens[i]);
	return st;
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: lib_producer MODE ARENA KEY WITNESS.wtns OUTDIR [N]\n");
		return 2;
	}
	mode = argv[1], arena = argv[2], keyp = argv[3], wtnsp = argv[4], outdir = argv[5];
	zka_lib *lib;
	zka_lib_key *key;
	zka_lib_job *j = NULL;
	struct zka_lib_regions r;
	struct zka_lib_key_info ki;
	uint32_t n;
	int st = 1, rc;
	uint8_t *w = witness(&n);
	if (!w)
		return 1;
	if (zka_lib_open(arena, &lib))
		return die("open");
	if (zka_lib_key_open(lib, keyp, &key)) {
		st = die("key");
		goto out;
	}
	zka_lib_key_info(key, &ki);
	if (!strncmp(mode, "bp", 2)) {
		st = bp_main(key, w, argc, argv);
		goto out;
	}
	if (!strcmp(mode, "close")) { /* leased jobs and a group left to zka_lib_close */
		zka_lib_group *g;
		zka_lib_job *j2;
		if (zka_lib_begin(key, ZKA_LIB_WITNESS, NULL, 60000, &j2, &r) ||
		    zka_lib_group_new(key, 3, ZKA_LIB_WITNESS, NULL, &g) ||
		    zka_lib_group_begin(g, 0, 60000, &r)) {
			st = die("close");
			goto out;
		}
		printf("LEASED %llu %llu\n", (unsigned long long)zka_lib_job_id(j2),
		       (unsigned long long)zka_lib_job_id(zka_lib_group_job(g, 0)));
		st = 0;
		goto out; /* zka_lib_close aborts both and frees the job and the group */
	}
	if (!strcmp(mode, "group")) {
		uint32_t gn = argc > 6 ? (uint32_t)atoi(argv[6]) : 10;
		zka_lib_group *g;
		if (zka_lib_group_new(key, gn, ZKA_LIB_WITNESS, outdir, &g)) {
			st = die("group");
			goto out;
		}
		for (uint32_t i = 0; i < gn; i++) {
			if (zka_lib_group_begin(g, i, 60000, &r)) {
				st = die("group begin");
				break;
			}
			memcpy(r.witness, w, (size_t)n * 32);
			if (zka_lib_group_commit(g, i, n, 0, 0)) {
				st = die("group commit");
				break;
			}
		}
		rc = zka_lib_group_wait(g, 120000);
		printf("group %016llx: %u jobs, %d failed\n",
		       (unsigned long long)zka_lib_group_id(g), gn, rc);
		if (rc == 0)
			st = 0;
		for (uint32_t i = 0; i < gn && rc == 0; i++)
			printf("job %llu DONE\n",
			       (unsigned long long)zka_lib_job_id(zka_lib_group_job(g, i)));
		zka_lib_group_free(g);
		goto out;
	}
	int shape =
	    !strcmp(mode, "ab") || !strcmp(mode, "badab") ? ZKA_LIB_WITNESS_AB : ZKA_LIB_WITNESS;
	if (zka_lib_begin(key, shape, outdir, 60000, &j, &r)) {
		st = die("begin");
		goto out;
	}
	if (r.n_witness != n || r.n_witness != ki.n_witness || r.n_ab != ki.domain_size ||
	    (shape == ZKA_LIB_WITNESS) != (r.a == NULL)) {
		fprintf(stderr, "lib_producer: regions disagree with the key's geometry\n");
		goto out;
	}
	if (!strcmp(mode, "hang")) {
		memcpy(r.witness, w, (size_t)n * 16);
		printf("LEASED %llu\n", (unsigned long long)zka_lib_job_id(j));
		fflush(stdout);
		for (;;)
			pause();
	}
	memcpy(r.witness, w, (size_t)n * 32);
	if (shape == ZKA_LIB_WITNESS_AB && ab(w, r.a, r.b)) {
		zka_lib_abort(j, "reference a, b failed");
		goto out;
	}
	if (!strcmp(mode, "short")) {
		st = expect_refused(j, zka_lib_commit(j, n - 1, 0, 0));
	} else if (!strcmp(mode, "badval")) {
		const uint8_t *rr = (const uint8_t *)zka_curve_by_name(
					ki.curve == ZKA_LIB_BN254 ? "bn128" : "bls12381")
					->r;
		memcpy(r.witness + 32, rr, 32); /* the group order itself (little-endian limbs) */
		st = expect_refused(j, zka_lib_commit(j, n, 0, 0));
	} else if (!strcmp(mode, "badab")) {
		st = expect_refused(j, zka_lib_commit(j, n, r.n_ab - 1, r.n_ab));
	} else if (!strcmp(mode, "abort")) {
		if (zka_lib_abort(j, "the test gave up") == 0 &&
		    zka_lib_wait(j, 0) == ZKA_LIB_FAILED &&
		    !strcmp(zka_lib_job_reason(j), "the test gave up") &&
		    zka_lib_commit(j, n, 0, 0) == -EALREADY)
			st = 0;
	} else {
		if (zka_lib_commit(j, n, shape == ZKA_LIB_WITNESS_AB ? r.n_ab : 0,
				   shape == ZKA_LIB_WITNESS_AB ? r.n_ab : 0)) {
			st = die("commit");
			goto out;
		}
		rc = zka_lib_wait(j, 120000);
		if (rc != ZKA_LIB_DONE) {
			fprintf(stderr, "lib_producer %s: job %llu: %d %s %s\n", mode,
				(unsigned long long)zka_lib_job_id(j), rc, zka_lib_job_reason(j),
				zka_lib_error());
			goto out;
		}
		printf("job %llu DONE\n", (unsigned long long)zka_lib_job_id(j));
		char d[4096];
		snprintf(d, sizeof d, "%s/got", outdir);
		mkdir(d, 0700);
		st = save(d, "proof.json", zka_lib_job_proof(j)) ||
		     save(d, "public.json", zka_lib_job_public(j));
	}
out:
	zka_lib_job_free(j);
	zka_lib_close(lib);
	free(w);
	return st;
}
