/* cmd_circuit.c - `zkarena circuit`: writes a random satisfiable circuit and its witness
 * (zk/synthetic.h), for benchmarks at sizes a circom ceremony cannot reach. */
#include "tools/cli.h"
#include "tools/util.h"
#include "zk/r1cs.h"
#include "zk/synthetic.h"
#include "zk/wtns.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(
	    f, "usage: zkarena circuit [--curve bn128|bls12381] [--constraints N] [--public P]\n"
	       "                       [--seed S] out.r1cs out.wtns\n"
	       "\n"
	       "Writes a random satisfiable circuit of N constraints (default 1024) with P public\n"
	       "inputs (default 1) and a witness for it. A third of the constraints are boolean\n"
	       "checks, and most products multiply bits, so the witness is rich in 0/1 values\n"
	       "like circom's (about 94%%: the command says how many). Key it with\n"
	       "`zkarena setup --insecure`.\n");
}

int zka_cmd_circuit(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"curve", required_argument, 0, 'c'},  {"constraints", required_argument, 0, 'n'},
	    {"public", required_argument, 0, 'p'}, {"seed", required_argument, 0, 's'},
	    {"help", no_argument, 0, 'h'},	   {0, 0, 0, 0}};
	const zka_curve *c = &zka_curve_bn254;
	unsigned long m = 1024, npub = 1;
	unsigned long long seed = 1;
	int opt;
	char *end;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			if (!(c = zka_curve_by_name(optarg))) {
				fprintf(stderr,
					"zkarena circuit: --curve: unknown curve '%s' (bn128, "
					"bls12381)\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
		case 'p':
		case 's':
			errno = 0;
			unsigned long long v = strtoull(optarg, &end, 0);
			if (errno || *end || !*optarg || optarg[0] == '-') {
				fprintf(stderr,
					"zkarena circuit: '%s' is not a non-negative integer\n",
					optarg);
				return 2;
			}
			if (opt == 'n')
				m = (unsigned long)v;
			else if (opt == 'p')
				npub = (unsigned long)v;
			else
				seed = v;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return zka_cli_bad_option(argc, argv);
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "zkarena circuit: expected 2 arguments: out.r1cs out.wtns\n");
		return 2;
	}
	if (m < 1 || m > (1ul << 28) || npub > 1024) {
		fprintf(stderr,
			"zkarena circuit: --constraints must be in 1..2^28 and --public <= 1024\n");
		return 2;
	}
	zka_r1cs cs;
	zka_witness w;
	char err[512] = "";
	int r = zka_synthetic_circuit(c, (uint32_t)m, (uint32_t)npub, seed, &cs, &w);
	if (r) {
		fprintf(stderr, "zkarena circuit: %s\n", strerror(-r));
		return 1;
	}
	int status = 0;
	if (zka_r1cs_write(argv[optind], &cs, err, sizeof err) ||
	    zka_wtns_write(argv[optind + 1], &w, err, sizeof err)) {
		fprintf(stderr, "zkarena circuit: %s\n", err);
		unlink(argv[optind]);
		status = 1;
	} else {
		uint64_t k = 0; /* standard form: 0 and 1 are one limb */
		for (uint32_t i = 0; i < w.n; i++)
			k += !(w.w[i][1] | w.w[i][2] | w.w[i][3]) && w.w[i][0] <= 1;
		printf(
		    "zkarena circuit: %lu constraints, %u signals, %.1f%% of the witness 0 or 1\n",
		    m, w.n, 100.0 * (double)k / w.n);
	}
	zka_r1cs_free(&cs);
	zka_witness_free(&w);
	return status;
}
