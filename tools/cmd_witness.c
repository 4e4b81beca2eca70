/* cmd_witness.c - `zkarena witness`: input.json -> witness.wtns through a circuit's recorded
 * graph (`import --c`), as `snarkjs wtns calculate` does with the circuit's wasm. */
#include "keys/zka_keys.h"
#include "tools/cli.h"
#include "tools/util.h"
#include "witness/zka_wcimport.h"
#include "witness/zka_witness.h"
#include "zk/groth16.h"
#include "zk/wtns.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Seconds since *t0, and *t0 moved to now. */
static double lap(struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	double s = (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
	*t0 = t;
	return s;
}

/* The graph at gp, through its compiled form kept in the key cache when there is a usable
 * one (zka_wcg_load_kept; a new entry is counted against the cache's cap like an import's).
 * how describes what was done. Prints one line on stderr only for an entry refused as
 * damaged or untrusted, or one that could not be written. 0 or -errno with err set. */
static int load_graph(const char *gp, zka_wcg **g, char *how, size_t howlen, char *err,
		      size_t errlen)
{
	char dir[PATH_MAX], derr[1024];
	struct zka_wcg_kept k;
	zka_keys_cache_dir(dir, sizeof dir);
	if (!dir[0] || zka_keys_cache_check(dir, 1, derr, sizeof derr)) {
		snprintf(how, howlen, "compiled; not kept: %s",
			 dir[0] ? derr : "no key cache directory (HOME unset)");
		return zka_wcg_load(gp, g, err, errlen);
	}
	int rc = zka_wcg_load_kept(gp, dir, g, &k, err, errlen);
	if (rc)
		return rc;
	if (k.refused)
		fprintf(stderr, "zkarena: kept compiled graph %s: %s: compiled again\n", k.entry,
			k.why);
	if (k.werr[0])
		fprintf(stderr, "zkarena: %s (the graph is compiled on every call)\n", k.werr);
	if (k.hit) { /* a use, for the cache's least-recently-used eviction */
		const struct timespec ts[2] = {{.tv_nsec = UTIME_NOW}, {.tv_nsec = UTIME_OMIT}};
		utimensat(AT_FDCWD, k.entry, ts, AT_SYMLINK_NOFOLLOW);
		snprintf(how, howlen, "kept compiled form %s", k.entry);
	} else {
		snprintf(how, howlen, "compiled%s%s%s%s", k.why[0] ? " (kept form " : "", k.why,
			 k.why[0] ? ")" : "", k.written ? "; kept for the next call" : "");
	}
	if (k.written) { /* the entry counts against the cache's cap, like an import's */
		uint64_t max = 0, left;
		if (!zka_keys_cache_max(&max, derr, sizeof derr) && max)
			zka_keys_cache_gc(dir, max, k.entry, stderr, &left);
	}
	return 0;
}

/* Computes the witness of input.json with the graph of key into *w (caller frees with
 * zka_witness_free); t, when not NULL, gets the stages' times. Prints only load_graph's
 * notes; 0, -EDOM (a circuit assert), or -errno with err set. */
int zka_witness_from_input(const char *key, const char *input, zka_witness *w,
			   struct zka_witness_times *t, char *err, size_t errlen)
{
	char gp[4096], how[4700];
	zka_wcg *g = NULL;
	uint64_t(*in)[4] = NULL;
	struct timespec t0;
	struct zka_witness_times tt;
	memset(w, 0, sizeof *w);
	memset(&tt, 0, sizeof tt);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	zka_wcg_path(key, gp, sizeof gp);
	int rc = load_graph(gp, &g, how, sizeof how, err, errlen);
	if (rc == -ENOENT)
		snprintf(err, errlen, "%s: no witness graph for this key (import it with --c DIR)",
			 gp);
	if (rc)
		return rc;
	tt.graph = lap(&t0);
	snprintf(tt.how, sizeof tt.how, "%s", how);
	in = calloc((size_t)zka_wcg_n_inputs(g) + 1, 32);
	w->w = calloc(zka_wcg_n_witness(g), 32);
	if (!in || !w->w) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory for %u witness values", zka_wcg_n_witness(g));
		goto out;
	}
	rc = zka_wcg_inputs_json(g, input, in, err, errlen);
	if (rc)
		goto out;
	tt.inputs = lap(&t0);
	rc = zka_wcg_eval(g, (const uint64_t(*)[4])in, w->w, NULL, err, errlen);
	tt.eval = lap(&t0);
	if (t)
		*t = tt;
	if (rc == -EDOM) {
		char m[1024];
		snprintf(m, sizeof m, "%s: %s", input, err);
		snprintf(err, errlen, "%s", m);
	}
	w->curve = zka_wcg_curve(g);
	w->n = zka_wcg_n_witness(g);
out:
	if (rc) {
		free(w->w);
		memset(w, 0, sizeof *w);
	}
	free(in);
	zka_wcg_free(g);
	return rc;
}

/* `witness --c DIR --prime P -o OUT.wcg`: records a graph without a key. */
static int record_only(const char *cdir, const char *prime, const char *out)
{
	const zka_curve *c = zka_curve_by_name(prime);
	char err[1024] = "";
	if (!c) {
		fprintf(stderr, "zkarena witness: --prime %s: unknown (bn128 or bls12381)\n",
			prime);
		return 2;
	}
	if (!out) {
		fprintf(stderr, "zkarena witness: --c needs -o circuit.wcg\n");
		return 2;
	}
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.%d.tmp", out, (int)getpid());
	int rc = zka_wc_build(cdir, c, tmp, err, sizeof err);
	if (!rc && rename(tmp, out)) {
		rc = -errno;
		snprintf(err, sizeof err, "%s: %s", out, strerror(errno));
		unlink(tmp);
	}
	if (rc) {
		fprintf(stderr, "zkarena witness: %s\n", err);
		return rc == -ENOMEM ? 1 : 2;
	}
	fprintf(stderr, "zkarena witness: recorded %s\n", out);
	return 0;
}

int zka_cmd_witness(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, 0, 'h'},
					     {"c", required_argument, 0, 'c'},
					     {"prime", required_argument, 0, 'p'},
					     {"times", no_argument, 0, 't'},
					     {0, 0, 0, 0}};
	const char *cdir = NULL, *prime = "bn128", *out = NULL;
	int opt, times = 0;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		if (opt == 'c') {
			cdir = optarg;
			continue;
		}
		if (opt == 'p') {
			prime = optarg;
			continue;
		}
		if (opt == 'o') {
			out = optarg;
			continue;
		}
		if (opt == 't') {
			times = 1;
			continue;
		}
		if (opt == 'h') {
			printf(
			    "usage: zkarena witness [--times] circuit.zka|circuit.wcg input.json "
			    "witness.wtns\n"
			    "       zkarena witness --c circuit_cpp [--prime bn128|bls12381] -o "
			    "circuit.wcg\n\n"
			    "Computes the witness of input.json, as `snarkjs wtns calculate` does, "
			    "from\n"
			    "the circuit's witness graph (circuit.zka.wcg beside the key, recorded "
			    "by\n"
			    "`zkarena import --c`). input.json is read as snarkjs reads it: each "
			    "name\n"
			    "an input signal of the main component, arrays flattened in order, "
			    "numbers\n"
			    "or decimal/0x strings, negative values mod r. The file is written\n"
			    "atomically. The graph's compiled program is kept in the key cache\n"
			    "(ZKARENA_CACHE, as for imports) and mapped by later calls.\n"
			    "--times says which, and where the time went.\n"
			    "The second form records the graph of circom's --c output without a "
			    "key.\n"
			    "exit status: 0 written; 2 bad usage, bad input or a failed circuit\n"
			    "assert (one line naming the signal or circom's template and line;\n"
			    "nothing written).\n");
			return 0;
		}
		return zka_cli_bad_option(argc, argv);
	}
	if (cdir) {
		if (argc != optind) {
			fprintf(stderr,
				"zkarena witness: --c takes no other arguments (see --help)\n");
			return 2;
		}
		return record_only(cdir, prime, out);
	}
	if (argc - optind != 3 || out) {
		fprintf(stderr,
			"zkarena witness: expected circuit.zka input.json witness.wtns (see "
			"--help)\n");
		return 2;
	}
	zka_witness w;
	char err[1024] = "";
	struct zka_witness_times t;
	struct timespec t0;
	double wsecs = 0;
	int rc = zka_witness_from_input(argv[optind], argv[optind + 1], &w, &t, err, sizeof err);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!rc)
		rc = zka_wtns_write(argv[optind + 2], &w, err, sizeof err);
	wsecs = lap(&t0);
	zka_witness_free(&w);
	if (rc) {
		fprintf(stderr, "zkarena witness: %s\n", err);
		return rc == -ENOMEM ? 1 : 2;
	}
	fprintf(stderr, "zkarena witness: %s in %.3f ms\n", argv[optind + 2], t.eval * 1e3);
	if (times)
		fprintf(stderr,
			"zkarena witness: times: graph %.1f ms (%s), input.json %.1f ms, "
			"evaluation %.1f ms, witness file %.1f ms\n",
			t.graph * 1e3, t.how, t.inputs * 1e3, t.eval * 1e3, wsecs * 1e3);
	return 0;
}
