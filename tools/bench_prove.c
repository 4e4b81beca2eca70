/* bench_prove.c - `zkarena bench prove`: zkarena's CPU prover next to snarkjs's (and, given
 * its binary, rapidsnark's) on the same circuit, key and machine, measured in one run, with the
 * ratios. A peer's last proof is verified against the key, so a peer that exits 0 without
 * proving is reported, not timed. */
#include "tools/cli.h"
#include "tools/util.h"
#include "zk/groth16.h"
#include "zk/json_io.h"
#include "zk/opt.h"
#include "zk/setup.h"
#include "zk/synthetic.h"
#include "zk/wtns.h"
#include "zk/zkey.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* Whether a peer's proof DIR/PROOF verifies against pk with publics DIR/PUB, and those are the
 * witness's (a peer that exits 0 without a valid proof is not timed); says why on stderr when
 * not. */
int zka_bench_peer_ok(const zka_pk *pk, const zka_witness *w, const char *dir, const char *proof,
		      const char *pub, const char *who)
{
	char pp[600], qp[600], err[512] = "";
	const char *why = NULL;
	snprintf(pp, sizeof pp, "%s/%s", dir, proof);
	snprintf(qp, sizeof qp, "%s/%s", dir, pub);
	zka_vk vk;
	zka_proof p;
	uint64_t(*pv)[4] = NULL;
	uint32_t np = 0;
	int ok = 0;
	memset(&vk, 0, sizeof vk);
	if (zka_vk_from_pk(&vk, pk))
		snprintf(err, sizeof err, "cannot derive the verification key");
	else if (zka_proof_read_json(pp, pk->curve, &p, err, sizeof err) == 0 &&
		 zka_public_read_json(qp, pk->curve, &pv, &np, err, sizeof err) == 0)
		ok = np == pk->n_public && !memcmp(pv, w->w + 1, (size_t)np * sizeof *pv) &&
		     zka_verify(&vk, (const uint64_t(*)[4])pv, np, &p, &why) == 1;
	if (!ok)
		fprintf(stderr, "zkarena bench: %s's proof %s does not verify (%s)\n", who, pp,
			err[0] ? err
			: why  ? why
			       : "its publics are not the witness's");
	free(pv);
	zka_vk_free(&vk);
	return ok;
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: zkarena bench prove [--curve bn128|bls12381|both] [--constraints N]\n"
	    "                           [--runs R] [--threads T] [--snarkjs CMD|none]\n"
	    "                           [--rapidsnark PATH] [--keep DIR]\n"
	    "       zkarena bench prove --zkey circuit.zkey --wtns witness.wtns [--runs R] ...\n"
	    "\n"
	    "Makes a random circuit of N constraints (default 6000) and a test-only key, then\n"
	    "proves it R times (default 3) with zkarena in process, with the zkarena CLI and with\n"
	    "snarkjs's CLI (CMD, default: node tests/interop/node_modules/snarkjs/cli.js; none:\n"
	    "skipped), and with --rapidsnark with that rapidsnark prover binary (BN254 only:\n"
	    "PATH circuit.zkey witness.wtns proof.json public.json), and prints the medians and\n"
	    "the ratios. CLI times include process start and file reading for every tool; the\n"
	    "zkarena CLI reads the .zkey through its key cache ($ZKARENA_CACHE), whose first\n"
	    "run imports it. Each peer's last proof must verify against the key, else the cell\n"
	    "says so and the exit status is 1. With --zkey and --wtns, that key and witness are\n"
	    "used instead (e.g. a circom circuit).\n");
}

/* The benchmark's settings and the paths it works with. */
struct bprove {
	const char *curve, *snarkjs, *keep, *zkey_in, *wtns_in, *rapidsnark;
	int m, runs, threads;
	char sj[1024];	 /* the snarkjs command, "" when none */
	char dir[256];	 /* the working directory (--keep, or a temporary one) */
	char self[1024]; /* this executable, for the zkarena CLI's runs */
};

/* Parses the options into b: -1 to go on, else the exit status (help, bad usage). */
static int bp_options(int argc, char **argv, struct bprove *b)
{
	static const struct option opts[] = {{"curve", required_argument, 0, 'c'},
					     {"constraints", required_argument, 0, 'n'},
					     {"runs", required_argument, 0, 'r'},
					     {"threads", required_argument, 0, 't'},
					     {"snarkjs", required_argument, 0, 's'},
					     {"rapidsnark", required_argument, 0, 'R'},
					     {"keep", required_argument, 0, 'k'},
					     {"zkey", required_argument, 0, 'z'},
					     {"wtns", required_argument, 0, 'w'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	int opt;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			b->curve = optarg;
			break;
		case 'n':
			if (zka_opt_int("zkarena bench prove", "--constraints", optarg, 1, 1 << 26,
					&b->m))
				return 2;
			break;
		case 'r':
			if (zka_opt_int("zkarena bench prove", "--runs", optarg, 1, 64, &b->runs))
				return 2;
			break;
		case 't':
			if (zka_opt_int("zkarena bench prove", "--threads", optarg, 1, 1024,
					&b->threads))
				return 2;
			break;
		case 's':
			b->snarkjs = optarg;
			break;
		case 'R':
			b->rapidsnark = optarg;
			break;
		case 'k':
			b->keep = optarg;
			break;
		case 'z':
			b->zkey_in = optarg;
			break;
		case 'w':
			b->wtns_in = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return zka_cli_bad_option(argc, argv);
		}
	}
	if ((b->zkey_in == NULL) != (b->wtns_in == NULL)) {
		fprintf(stderr, "zkarena bench prove: --zkey and --wtns go together\n");
		return 2;
	}
	if (b->m < 1 || b->runs < 1 || b->runs > 64) {
		fprintf(stderr, "zkarena bench prove: --constraints >= 1 and --runs in 1..64\n");
		return 2;
	}
	return -1;
}

/* The peers' commands, the working directory and this executable's path: -1 to go on, else
 * the exit status. */
static int bp_prepare(struct bprove *b)
{
	static const char *deflt = "tests/interop/node_modules/snarkjs/cli.js";
	if (!b->snarkjs) {
		if (access(deflt, R_OK) == 0)
			snprintf(b->sj, sizeof b->sj, "node %s", deflt);
		else
			b->sj[0] = 0;
	} else if (!strcmp(b->snarkjs, "none")) {
		b->sj[0] = 0;
	} else {
		snprintf(b->sj, sizeof b->sj, "%s", b->snarkjs);
	}
	if (b->rapidsnark && access(b->rapidsnark, X_OK)) {
		fprintf(stderr, "zkarena bench prove: --rapidsnark %s: %s\n", b->rapidsnark,
			strerror(errno));
		return 2;
	}
	if (b->keep)
		snprintf(b->dir, sizeof b->dir, "%s", b->keep);
	else
		snprintf(b->dir, sizeof b->dir, "/tmp/zkarena-bench-XXXXXX");
	if (!b->keep && !mkdtemp(b->dir)) {
		fprintf(stderr, "zkarena bench prove: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	ssize_t sl = readlink("/proc/self/exe", b->self, sizeof b->self - 1);
	if (sl <= 0) {
		fprintf(stderr, "zkarena bench prove: cannot find my own executable\n");
		return 1;
	}
	b->self[sl] = 0;
	return -1;
}

/* The table's title and header. */
static void bp_header(const struct bprove *b)
{
	struct utsname un;
	uname(&un);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (b->zkey_in)
		printf("zkarena bench prove: %s with %s (constraints column: the key's domain "
		       "size), %d runs, "
		       "medians; %s %s, %ld CPUs\n\n",
		       b->zkey_in, b->wtns_in, b->runs, un.nodename, un.machine, ncpu);
	else
		printf(
		    "zkarena bench prove: %d constraints (random circuit, 1/3 boolean), %d runs, "
		    "medians; %s %s, %ld CPUs\n\n",
		    b->m, b->runs, un.nodename, un.machine, ncpu);
	printf("| curve     | constraints | zkarena in-process | zkarena CLI | snarkjs CLI | "
	       "snarkjs / zkarena (CLI) | rapidsnark CLI | rapidsnark / zkarena (CLI) |\n");
	printf("|-----------|-------------|--------------------|-------------|-------------|-------"
	       "------------------|----------------|----------------------------|\n");
}

enum { BP_GO, BP_SKIP, BP_STOP };

/* Curve c's key and witness: --zkey/--wtns when given (BP_SKIP when the key is of another
 * curve), else a random circuit with a test-only key written to b->dir; their files in zk and
 * wt. BP_STOP with *status set when the row cannot be made; BP_GO (with *status 1 when the
 * files could not be written) otherwise. */
static int bp_inputs(const struct bprove *b, const zka_curve *c, zka_r1cs *cs, zka_witness *w,
		     zka_pk *pk, char zk[512], char wt[512], int *status)
{
	zka_toxic tw;
	char err[512] = "";
	memset(cs, 0, sizeof *cs);
	if (b->zkey_in) {
		if (zka_zkey_read(b->zkey_in, pk, err, sizeof err) ||
		    zka_wtns_read(b->wtns_in, w, err, sizeof err)) {
			fprintf(stderr, "zkarena bench prove: %s\n", err);
			zka_pk_free(pk);
			*status = 2;
			return BP_STOP;
		}
		if (pk->curve != c) {
			zka_pk_free(pk);
			zka_witness_free(w);
			return BP_SKIP;
		}
		if (w->curve != c || w->n != pk->n_vars) {
			fprintf(stderr, "zkarena bench prove: %s does not fit %s\n", b->wtns_in,
				b->zkey_in);
			zka_pk_free(pk);
			zka_witness_free(w);
			*status = 2;
			return BP_STOP;
		}
		snprintf(zk, 512, "%s", b->zkey_in);
		snprintf(wt, 512, "%s", b->wtns_in);
		return BP_GO;
	}
	if (zka_synthetic_circuit(c, (uint32_t)b->m, 1, 7, cs, w)) {
		*status = 1;
		return BP_STOP;
	}
	zka_toxic_from_seed(&tw, c, 11);
	if (zka_setup(cs, &tw, pk, NULL, b->threads)) {
		zka_r1cs_free(cs);
		zka_witness_free(w);
		*status = 1;
		return BP_STOP;
	}
	snprintf(zk, 512, "%s/%s.zkey", b->dir, c->name);
	snprintf(wt, 512, "%s/%s.wtns", b->dir, c->name);
	if (zka_zkey_write(zk, pk, 0, err, sizeof err) || zka_wtns_write(wt, w, err, sizeof err)) {
		fprintf(stderr, "zkarena bench prove: %s\n", err);
		*status = 1;
	}
	return BP_GO;
}

/* Times curve c's row (in process, the zkarena CLI, snarkjs, rapidsnark), checks the peers'
 * proofs and prints the row; a failure sets *status. */
static void bp_row(const struct bprove *b, const zka_curve *c, const zka_pk *pk,
		   const zka_witness *w, const char *zk, const char *wt, int *status)
{
	const char *dir = b->dir, *self = b->self;
	int runs = b->runs, threads = b->threads;
	char cmd[4096];
	double in[64];
	zka_prove_opts po = {.threads = threads};
	for (int i = 0; i < runs && !*status; i++) {
		zka_rs rs;
		zka_proof p;
		zka_rs_random(&rs, c);
		double t0 = zka_now();
		if (zka_prove(pk, w, &rs, &p, &po, NULL))
			*status = 1;
		in[i] = zka_now() - t0;
	}
	double tin = *status ? -1 : zka_percentile(in, runs, 50);
	snprintf(cmd, sizeof cmd, "'%s' prove --no-verify %s%d '%s' '%s' %s/p.json %s/pub.json",
		 self, threads ? "--threads " : "", threads, zk, wt, dir, dir);
	if (!threads)
		snprintf(cmd, sizeof cmd, "'%s' prove --no-verify '%s' '%s' %s/p.json %s/pub.json",
			 self, zk, wt, dir, dir);
	double tcli = *status ? -1 : zka_time_cmd(cmd, runs);
	double tsj = -1;
	if (b->sj[0] && !*status) {
		snprintf(cmd, sizeof cmd,
			 "%s groth16 prove '%s' '%s' %s/sp.json %s/spub.json >/dev/null 2>&1",
			 b->sj, zk, wt, dir, dir);
		tsj = zka_time_cmd(cmd, runs);
	}
	char sjs[64] = "n/a", ratio[64] = "n/a", rss[64] = "n/a", rratio[64] = "n/a";
	if (tsj > 0 && zka_bench_peer_ok(pk, w, dir, "sp.json", "spub.json", "snarkjs")) {
		snprintf(sjs, sizeof sjs, "%.3f s", tsj);
		snprintf(ratio, sizeof ratio, "%.1fx", tsj / tcli);
	} else if (b->sj[0] && !*status) {
		snprintf(sjs, sizeof sjs, "failed");
		*status = 1;
	}
	if (b->rapidsnark && c != &zka_curve_bn254) {
		snprintf(rss, sizeof rss, "BN254 only");
	} else if (b->rapidsnark && !*status) {
		snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' %s/rp.json %s/rpub.json >/dev/null 2>&1",
			 b->rapidsnark, zk, wt, dir, dir);
		double trs = zka_time_cmd(cmd, runs);
		if (trs > 0 &&
		    zka_bench_peer_ok(pk, w, dir, "rp.json", "rpub.json", "rapidsnark")) {
			snprintf(rss, sizeof rss, "%.3f s", trs);
			snprintf(rratio, sizeof rratio, "%.2fx", trs / tcli);
		} else {
			snprintf(rss, sizeof rss, "failed");
			*status = 1;
		}
	}
	int ncons = b->zkey_in ? (int)pk->domain_size : b->m;
	printf("| %-9s | %11d | %16.3f s | %9.3f s | %11s | %23s | %14s | %26s |\n", c->pretty,
	       ncons, tin, tcli, sjs, ratio, rss, rratio);
	fflush(stdout);
}

int zka_bench_prove(int argc, char **argv)
{
	struct bprove b = {.curve = "both", .m = 6000, .runs = 3};
	int status = bp_options(argc, argv, &b);
	if (status >= 0 || (status = bp_prepare(&b)) >= 0)
		return status;
	bp_header(&b);
	const zka_curve *cs_[2] = {&zka_curve_bn254, &zka_curve_bls12_381};
	status = 0;
	for (int ci = 0; ci < 2; ci++) {
		const zka_curve *c = cs_[ci];
		if (strcmp(b.curve, "both") && zka_curve_by_name(b.curve) != c)
			continue;
		zka_r1cs cs;
		zka_witness w;
		zka_pk pk;
		char zk[512], wt[512];
		int in = bp_inputs(&b, c, &cs, &w, &pk, zk, wt, &status);
		if (in == BP_SKIP)
			continue;
		if (in == BP_STOP)
			break;
		bp_row(&b, c, &pk, &w, zk, wt, &status);
		zka_pk_free(&pk);
		zka_r1cs_free(&cs);
		zka_witness_free(&w);
	}
	if (!b.sj[0] && !(b.snarkjs && !strcmp(b.snarkjs, "none")))
		printf("\nsnarkjs not found: run from the source tree after "
		       "scripts/install-deps.sh or pass --snarkjs\n");
	if (!b.keep) {
		char rm[512];
		snprintf(rm, sizeof rm, "rm -rf '%s'", b.dir);
		if (system(rm) != 0)
			fprintf(stderr, "zkarena bench prove: could not remove %s\n", b.dir);
	}
	return status;
}
