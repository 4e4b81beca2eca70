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
 * Exit 0 when the mode's expectation holds; the proofs are written under OUTDIR (one job: OUTDIR/
 * proof.json and public.json, copied from what zka_lib_job_proof/public returned). */
#include "zkarena.h"

#include "keys/params.h"
#include "zk/abc.h"
#include "zk/groth16.h"
#include "zk/wtns.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
