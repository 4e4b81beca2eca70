/* cmd_witness.c - `zkarena witness`: input.json -> witness.wtns through a circuit's recorded
 * graph (`import --c`), as `snarkjs wtns calculate` does with the circuit's wasm. */
#include "tools/cli.h"
#include "tools/util.h"
#include "witness/zka_wcimport.h"
#include "witness/zka_witness.h"
#include "zk/groth16.h"
#include "zk/wtns.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Computes the witness of input.json with the graph of key into *w (caller frees with
 * zka_witness_free). Prints nothing; 0, -EDOM (a circuit assert), or -errno with err set. */
int zka_witness_from_input(const char *key, const char *input, zka_witness *w, double *secs,
			   char *err, size_t errlen)
{
	char gp[4096];
	zka_wcg *g = NULL;
	uint64_t(*in)[4] = NULL;
	struct timespec a, b;
	memset(w, 0, sizeof *w);
	zka_wcg_path(key, gp, sizeof gp);
	int rc = zka_wcg_load(gp, &g, err, errlen);
	if (rc == -ENOENT)
		snprintf(err, errlen, "%s: no witness graph for this key (import it with --c DIR)",
			 gp);
	if (rc)
		return rc;
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
	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = zka_wcg_eval(g, (const uint64_t(*)[4])in, w->w, NULL, err, errlen);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (secs)
		*secs = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
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
					     {0, 0, 0, 0}};
	const char *cdir = NULL, *prime = "bn128", *out = NULL;
	int opt;
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
		if (opt == 'h') {
			printf(
			    "usage: zkarena witness circuit.zka|circuit.wcg input.json "
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
			    "atomically.\n"
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
	double secs = 0;
	int rc = zka_witness_from_input(argv[optind], argv[optind + 1], &w, &secs, err, sizeof err);
	if (!rc)
		rc = zka_wtns_write(argv[optind + 2], &w, err, sizeof err);
	zka_witness_free(&w);
	if (rc) {
		fprintf(stderr, "zkarena witness: %s\n", err);
		return rc == -ENOMEM ? 1 : 2;
	}
	fprintf(stderr, "zkarena witness: %s in %.3f ms\n", argv[optind + 2], secs * 1e3);
	return 0;
}
