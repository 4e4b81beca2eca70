/* bench_witness.c - `zkarena bench witness`: witness generation from input.json, zkarena's
 * graph against snarkjs (the circuit's wasm) and circom's own C++ generator, one table, one
 * run, every witness compared byte for byte with zkarena's.
 *
 * What is timed, per witness (medians of --runs):
 *   zkarena in process   input.json parsed and the graph evaluated (the graph loaded once, as
 *                        a worker holds it); one thread: the per-core figure
 *   zkarena CLI          `zkarena witness` as a process: load, parse, evaluate, write
 *   circom C++           circom's generated code with its fr.asm, built -O3 as its Makefile
 *                        does, timed in process by circom_timer.cpp: a fresh Circom_CalcWit,
 *                        input.json parsed and the circuit run (its .dat loaded once)
 *   snarkjs CLI          `snarkjs wtns calculate circuit.wasm input.json out.wtns` (node) */
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
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

static int same_file(const char *a, const char *b)
{
	char cmd[8500];
	snprintf(cmd, sizeof cmd, "cmp -s '%.4200s' '%.4200s'", a, b);
	return system(cmd) == 0;
}

static void row(const char *what, double sec, double ref, const char *same)
{
	if (sec < 0) {
		printf("| %-30s | %12s | %14s | %12s | %-9s |\n", what, "failed", "-", "-", same);
		return;
	}
	char ratio[32] = "-";
	if (ref > 0)
		snprintf(ratio, sizeof ratio, "%.2fx", ref / sec);
	printf("| %-30s | %12.3f | %14.1f | %12s | %-9s |\n", what, sec * 1e3, 1.0 / sec, ratio,
	       same);
}

/* circom's C++ generator timed in process (built from cpp, or run from a kept build): the
 * median seconds into *t (-1 when it failed), "identical"/"DIFFERS" against mine into *same. */
static void time_circom(const char *cpp, const char *keep_cpp, const char *dir, const char *input,
			int runs, const char *mine, double *t, const char **same)
{
	char other[4200], cmd[16384], err[1024] = "";
	char name[256] = "", work[4200], tbin[4400];
	snprintf(tbin, sizeof tbin, "%s/timer", cpp);
	if (access(tbin, X_OK) == 0) { /* a kept build: DIR/timer and DIR/circuit.name */
		snprintf(work, sizeof work, "%s", cpp);
		snprintf(tbin, sizeof tbin, "%s/circuit.name", cpp);
		FILE *nf = fopen(tbin, "r");
		if (!nf || !fgets(name, sizeof name, nf))
			name[0] = 0;
		if (nf)
			fclose(nf);
		name[strcspn(name, "\n")] = 0;
	} else {
		if (keep_cpp)
			snprintf(work, sizeof work, "%s", keep_cpp);
		else
			snprintf(work, sizeof work, "%s/circom", dir);
		mkdir(work, 0700);
		fprintf(stderr,
			"zkarena bench witness: building circom's C++ generator (-O3) ...\n");
		if (zka_wc_build_circom_timer(cpp, work, name, sizeof name, err, sizeof err)) {
			fprintf(stderr, "zkarena bench witness: circom's C++: %s\n", err);
			name[0] = 0;
		} else {
			snprintf(cmd, sizeof cmd,
				 "cp '%s/%s.dat' '%s/' && echo '%s' > '%s/circuit.name'", cpp, name,
				 work, name, work);
			if (system(cmd))
				name[0] = 0;
		}
	}
	if (name[0]) {
		snprintf(other, sizeof other, "%s/circom.wtns", dir);
		snprintf(cmd, sizeof cmd, "'%s/timer' '%s/%s.dat' '%s' %d '%s' > '%s/times'", work,
			 work, name, input, runs, other, dir);
		if (system(cmd) == 0) {
			char tp[4300];
			snprintf(tp, sizeof tp, "%s/times", dir);
			FILE *f = fopen(tp, "r");
			double c[64];
			int k = 0;
			while (f && k < runs && fscanf(f, "%lf", &c[k]) == 1)
				k++;
			if (f)
				fclose(f);
			if (k == runs) {
				*t = zka_percentile(c, k, 50);
				*same = same_file(mine, other) ? "identical" : "DIFFERS";
			}
		}
	}
}

int zka_bench_witness(int argc, char **argv)
{
	static const struct option opts[] = {{"runs", required_argument, 0, 'r'},
					     {"wasm", required_argument, 0, 'w'},
					     {"snarkjs", required_argument, 0, 's'},
					     {"cpp", required_argument, 0, 'c'},
					     {"keep-cpp", required_argument, 0, 'k'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *wasm = NULL, *cpp = NULL, *keep_cpp = NULL;
	const char *snarkjs = "node tests/interop/node_modules/snarkjs/cli.js";
	int runs = 10, opt;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			runs = atoi(optarg);
			if (runs < 1 || runs > 64) {
				fprintf(stderr, "zkarena bench witness: --runs: 1 to 64\n");
				return 2;
			}
			break;
		case 'w':
			wasm = optarg;
			break;
		case 's':
			snarkjs = optarg;
			break;
		case 'c':
			cpp = optarg;
			break;
		case 'k':
			keep_cpp = optarg;
			break;
		case 'h':
			printf("usage: zkarena bench witness circuit.zka|circuit.wcg input.json "
			       "[--runs N]\n"
			       "                             [--cpp circuit_cpp] [--wasm "
			       "circuit.wasm]\n"
			       "                             [--snarkjs CMD] [--keep-cpp DIR]\n\n"
			       "Times witness generation from input.json: zkarena's graph in "
			       "process (one\n"
			       "thread: the per-core figure) and as the `zkarena witness` CLI, "
			       "circom's own\n"
			       "C++ generator (--cpp: circom's --c output, built here -O3 with "
			       "nasm, timed\n"
			       "in process; --keep-cpp DIR keeps that build in DIR, and --cpp DIR "
			       "of such\n"
			       "a build runs it without building: for machines without nasm) and\n"
			       "`snarkjs wtns calculate` (--wasm; CMD default: node\n"
			       "tests/interop/node_modules/snarkjs/cli.js). Medians of N runs "
			       "(default 10;\n"
			       "snarkjs at most 3). Every peer's witness is compared byte for byte "
			       "with\n"
			       "zkarena's; the exit status is 1 when one differs.\n");
			return 0;
		default:
			return zka_cli_bad_option(argc, argv);
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr,
			"zkarena bench witness: expected circuit.zka input.json (see --help)\n");
		return 2;
	}
	const char *key = argv[optind], *input = argv[optind + 1];
	char gp[4096], err[1024] = "", dir[] = "/tmp/zkarena-bench-witness-XXXXXX";
	zka_wcg_path(key, gp, sizeof gp);
	zka_wcg *g = NULL;
	double t0 = zka_now();
	if (zka_wcg_load(gp, &g, err, sizeof err)) {
		fprintf(stderr, "zkarena bench witness: %s\n", err);
		return 2;
	}
	double tload = zka_now() - t0;
	if (!mkdtemp(dir)) {
		fprintf(stderr, "zkarena bench witness: mkdtemp: %s\n", strerror(errno));
		zka_wcg_free(g);
		return 1;
	}
	uint32_t nw = zka_wcg_n_witness(g);
	uint64_t(*in)[4] = calloc((size_t)zka_wcg_n_inputs(g) + 1, 32);
	zka_witness w = {zka_wcg_curve(g), nw, calloc(nw, 32)};
	void *scratch = malloc(zka_wcg_scratch_bytes(g));
	double v[64], ve[64];
	int status = 0;
	if (!in || !w.w || !scratch) {
		fprintf(stderr, "zkarena bench witness: out of memory\n");
		status = 1;
		goto out;
	}
	for (int i = 0; i < runs; i++) {
		double a = zka_now();
		int rc = zka_wcg_inputs_json(g, input, in, err, sizeof err);
		double b = zka_now();
		if (!rc)
			rc = zka_wcg_eval(g, (const uint64_t(*)[4])in, w.w, scratch, err,
					  sizeof err);
		if (rc) {
			fprintf(stderr, "zkarena bench witness: %s\n", err);
			status = 2;
			goto out;
		}
		v[i] = zka_now() - a;
		ve[i] = zka_now() - b;
	}
	char mine[4200], other[4200], cmd[16384], self[1024];
	snprintf(mine, sizeof mine, "%s/zkarena.wtns", dir);
	if (zka_wtns_write(mine, &w, err, sizeof err)) {
		fprintf(stderr, "zkarena bench witness: %s\n", err);
		status = 1;
		goto out;
	}
	ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
	self[sl > 0 ? sl : 0] = 0;

	double tcpp = -1;
	const char *cpp_same = "-";
	if (cpp)
		time_circom(cpp, keep_cpp, dir, input, runs, mine, &tcpp, &cpp_same);
	snprintf(other, sizeof other, "%s/cli.wtns", dir);
	snprintf(cmd, sizeof cmd, "rm -f '%s'; '%s' witness '%s' '%s' '%s' 2>/dev/null", other,
		 self, gp, input, other);
	double tcli = zka_time_cmd(cmd, runs < 5 ? runs : 5);
	const char *cli_same = tcli >= 0 && same_file(mine, other) ? "identical" : "DIFFERS";
	double tsj = -1;
	const char *sj_same = "-";
	if (wasm) {
		snprintf(other, sizeof other, "%s/snarkjs.wtns", dir);
		snprintf(cmd, sizeof cmd, "%s wtns calculate '%s' '%s' '%s' >/dev/null 2>&1",
			 snarkjs, wasm, input, other);
		tsj = zka_time_cmd(cmd, runs < 3 ? runs : 3);
		sj_same = tsj >= 0 && same_file(mine, other) ? "identical" : "DIFFERS";
	}

	struct utsname un;
	uname(&un);
	printf("zkarena bench witness: %s (%u witness values, %s), %s; %d runs, medians; %s %s, "
	       "%ld CPUs; graph loaded in %.3f s; standard forms: %s\n\n",
	       gp, nw, zka_wcg_curve(g)->pretty, input, runs, un.nodename, un.machine,
	       sysconf(_SC_NPROCESSORS_ONLN), tload, zka_wcg_conversions());
	printf("| %-30s | %12s | %14s | %12s | %-9s |\n", "generator", "ms/witness", "witnesses/s",
	       "vs circom C++", "witness");
	printf("|--------------------------------|--------------|----------------|--------------|"
	       "-----------|\n");
	double pe = zka_percentile(ve, runs, 50), pv = zka_percentile(v, runs, 50);
	row("zkarena graph, 1 thread", pe, tcpp, "reference");
	row("zkarena, + input.json parse", pv, tcpp, "reference");
	row("zkarena witness (CLI process)", tcli, tcpp, cli_same);
	if (cpp)
		row("circom C++ -O3, in process", tcpp, tcpp, cpp_same);
	if (wasm)
		row("snarkjs wtns calculate (CLI)", tsj, tcpp, sj_same);
	printf("\nvs circom C++: its time per witness over this row's (above 1: faster). The "
	       "in-process circom row includes its input.json parse, as the second zkarena row "
	       "does.\n");
	if (strcmp(cli_same, "identical") || !strcmp(cpp_same, "DIFFERS") ||
	    !strcmp(sj_same, "DIFFERS"))
		status = 1;
out:
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd)) {
	}
	free(in);
	free(w.w);
	free(scratch);
	zka_wcg_free(g);
	return status;
}
