/* bench_import.c - `zkarena bench import KEY.zkey`: a .zkey's first proof against rapidsnark's,
 * in one run on the same key, witness and machine (issue 40).
 *
 * Objects
 *   run        one repetition: rapidsnark's proof (when --rapidsnark is given), zkarena's first
 *              proof of the raw .zkey with an empty cache directory (DIR/cache, removed before;
 *              ZKARENA_CACHE points at it), then zkarena's second proof (the cache's .zka).
 *   stages     the import's stages of the first proof, read from `prove --times`' lines
 *              ("key load", "import: read .. parse .. csr .. fill .. validate .. write ..").
 *
 * States of a run
 *   START -> RAPIDSNARK -> COLD -> WARM -> DONE   bi_run(): each a child command timed by its
 *                                                 wall clock (process start included)
 *   any   -> FAILED                               a command exits non-zero, its log lacks the
 *                                                 stage lines, or a proof does not verify
 *
 * Invariants
 *   1. Every first proof imports: no resident region may serve the key (checked before the
 *      first run: the first proof would read no key file), and the cache directory is empty.
 *   2. A peer's proof is timed only if it verifies against the key with the witness's publics
 *      (zka_bench_peer_ok); zkarena's own proofs are verified by `prove` before it writes them.
 *   3. The table shows every run and then the medians; the exit status is 1 when any cell
 *      failed, 2 for bad usage or input. */
#include "keys/zka_keys.h"
#include "tools/cli.h"
#include "tools/util.h"
#include "zk/groth16.h"
#include "zk/opt.h"
#include "zk/wtns.h"
#include "zk/zkey.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: zkarena bench import KEY.zkey [--wtns W] [--rapidsnark PATH] [--runs R]\n"
	    "                            [--gpu] [--threads T] [--keep DIR]\n"
	    "\n"
	    "The first proof of a raw .zkey, as a user's first `zkarena prove KEY.zkey W ...`\n"
	    "makes it (the key imported: read, parsed, CSR built, every point validated on the\n"
	    "curve and in its subgroup, the .zka written to an empty cache directory), next to\n"
	    "rapidsnark's proof (PATH KEY.zkey W proof.json public.json; BN254 only) and to\n"
	    "zkarena's second proof (from the cached .zka), R times (default 3): one row a run,\n"
	    "then the medians, with the import's stages. Times are wall clock of each command,\n"
	    "process start included. W defaults to KEY.wtns beside the key. --gpu proves with\n"
	    "`prove --gpu`. A resident region of the key (`zkarena params load`) is refused: the\n"
	    "first proof would not import. Exit status: 0; 1 a command failed or a proof did not\n"
	    "verify; 2 bad usage or input.\n");
}

/* one run's times, seconds (-1: not measured) */
struct bi_row {
	double rs, cold, load, st[7], warm; /* st: the stages, then their wall */
};

/* where the last parsed import validated its points: "" or " on ..." (prove --times) */
static char bi_where[200];

/* The import's stage lines of a `prove --times` log into r; 0 when both were found. */
static int bi_parse_log(const char *path, struct bi_row *r)
{
	FILE *f = fopen(path, "r");
	char line[2048];
	int got = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		const char *p;
		if ((p = strstr(line, "zkarena prove: key load ")) &&
		    sscanf(p, "zkarena prove: key load %lf", &r->load) == 1)
			got |= 1;
		if ((p = strstr(line, "zkarena prove: import: ")) &&
		    sscanf(p,
			   "zkarena prove: import: read %lf s, parse %lf s, csr %lf s, fill %lf s, "
			   "validate %lf s, write %lf s",
			   &r->st[0], &r->st[1], &r->st[2], &r->st[3], &r->st[4], &r->st[5]) == 6) {
			const char *w = strstr(p, "(points validated");
			snprintf(bi_where, sizeof bi_where, "%s",
				 w ? w + strlen("(points validated") : ")");
			bi_where[strcspn(bi_where, "\n")] = 0;
			const char *wl = strstr(p, ": wall ");
			r->st[6] = -1;
			if (wl && sscanf(wl, ": wall %lf", &r->st[6]) != 1)
				r->st[6] = -1;
			if (*bi_where) /* the closing parenthesis */
				bi_where[strlen(bi_where) - 1] = 0;
			got |= 2;
		}
	}
	fclose(f);
	return got == 3 ? 0 : -1;
}

/* Runs cmd with stderr into log; its wall seconds, or -1 (the log's tail said) on failure. */
static double bi_time(const char *cmd, const char *log)
{
	char full[4600];
	snprintf(full, sizeof full, "%s >/dev/null 2>'%s'", cmd, log);
	double t0 = zka_now();
	int rc = system(full);
	double t = zka_now() - t0;
	if (rc != 0) {
		char tail[700];
		snprintf(tail, sizeof tail, "tail -n 3 '%s' >&2", log);
		fprintf(stderr, "zkarena bench import: failed: %s\n", cmd);
		if (system(tail) != 0)
			fprintf(stderr, "zkarena bench import: (no log)\n");
		return -1;
	}
	return t;
}

static void bi_cell(char *out, size_t n, double v)
{
	if (v < 0)
		snprintf(out, n, "n/a");
	else
		snprintf(out, n, "%.3f", v);
}

static void bi_print(const char *label, const struct bi_row *r)
{
	char c[12][32];
	bi_cell(c[0], 32, r->rs);
	bi_cell(c[1], 32, r->cold);
	bi_cell(c[2], 32, r->load);
	for (int i = 0; i < 7; i++)
		bi_cell(c[3 + i], 32, r->st[i]);
	bi_cell(c[10], 32, r->warm);
	if (r->rs > 0 && r->cold > 0)
		snprintf(c[11], 32, "%.2fx / %.2fx", r->cold / r->rs, r->warm / r->rs);
	else
		snprintf(c[11], 32, "n/a");
	printf("| %-6s | %10s | %10s | %8s | %5s | %5s | %5s | %5s | %8s | %5s | %6s | %11s | %15s "
	       "|\n",
	       label, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11]);
	fflush(stdout);
}

int zka_bench_import(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"wtns", required_argument, 0, 'w'}, {"rapidsnark", required_argument, 0, 'R'},
	    {"runs", required_argument, 0, 'r'}, {"threads", required_argument, 0, 't'},
	    {"gpu", no_argument, 0, 'g'},	 {"keep", required_argument, 0, 'k'},
	    {"help", no_argument, 0, 'h'},	 {0, 0, 0, 0}};
	const char *wtns = NULL, *rapid = NULL, *keep = NULL;
	int runs = 3, threads = 0, gpu = 0, opt;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'w':
			wtns = optarg;
			break;
		case 'R':
			rapid = optarg;
			break;
		case 'k':
			keep = optarg;
			break;
		case 'g':
			gpu = 1;
			break;
		case 'r':
			if (zka_opt_int("zkarena bench import", "--runs", optarg, 1, 64, &runs))
				return 2;
			break;
		case 't':
			if (zka_opt_int("zkarena bench import", "--threads", optarg, 1, 1024,
					&threads))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	const char *zkey = argv[optind];
	char wbuf[1024], dir[512], self[1024], name[64], err[512] = "";
	if (!wtns) {
		size_t l = strlen(zkey);
		if (l < 5 || strcmp(zkey + l - 5, ".zkey")) {
			fprintf(stderr, "zkarena bench import: %s: not a .zkey (give --wtns)\n",
				zkey);
			return 2;
		}
		snprintf(wbuf, sizeof wbuf, "%.*s.wtns", (int)(l - 5), zkey);
		wtns = wbuf;
	}
	if (rapid && access(rapid, X_OK)) {
		fprintf(stderr, "zkarena bench import: --rapidsnark %s: %s\n", rapid,
			strerror(errno));
		return 2;
	}
	if (zka_keys_find_resident(zkey, NULL, name) == 0) {
		fprintf(stderr,
			"zkarena bench import: %s is resident (%s): its first proof would not "
			"import (zkarena params evict %s)\n",
			zkey, name, name + 9);
		return 2;
	}
	zka_pk pk;
	zka_witness w;
	memset(&w, 0, sizeof w);
	if (zka_zkey_read(zkey, &pk, err, sizeof err)) {
		fprintf(stderr, "zkarena bench import: %s\n", err);
		return 2;
	}
	if (zka_wtns_read(wtns, &w, err, sizeof err) || w.curve != pk.curve || w.n != pk.n_vars) {
		fprintf(stderr, "zkarena bench import: %s\n",
			err[0] ? err : "the witness does not fit the key");
		zka_pk_free(&pk);
		zka_witness_free(&w);
		return 2;
	}
	ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
	snprintf(dir, sizeof dir, "%s", keep ? keep : "/tmp/zkarena-bench-import-XXXXXX");
	if (sl <= 0 || (!keep && !mkdtemp(dir))) {
		fprintf(stderr, "zkarena bench import: %s\n",
			sl <= 0 ? "cannot find my own executable" : strerror(errno));
		zka_pk_free(&pk);
		zka_witness_free(&w);
		return 1;
	}
	self[sl] = 0;
	char cache[600], cmd[4096], log[700], rm[700];
	snprintf(cache, sizeof cache, "%s/cache", dir);
	setenv("ZKARENA_CACHE", cache, 1);
	struct utsname un;
	uname(&un);
	double la[3] = {-1, -1, -1};
	if (getloadavg(la, 3) < 0)
		la[0] = -1;
	printf("zkarena bench import: %s (%s, domain 2^%u, %u signals) with %s, %d runs; %s %s, "
	       "%ld CPUs, load average %.2f at the start\n\n",
	       zkey, pk.curve->pretty, pk.log_domain, pk.n_vars, wtns, runs, un.nodename,
	       un.machine, sysconf(_SC_NPROCESSORS_ONLN), la[0]);
	printf("seconds; first: `zkarena prove%s` of the raw .zkey with an empty cache; key "
	       "load: its import, whose stages follow (each its own duration; overlapped stages "
	       "sum to more than wall, the import's start to its image filled, the points then "
	       "validated beside the proof); second: the same command again (the cached .zka)"
	       "\n\n",
	       gpu ? " --gpu" : "");
	printf("| run    | rapidsnark | zk. first  | key load | read  | parse | csr   | fill  | "
	       "validate | write | wall   | zk. second  | first, second / rapidsnark |\n");
	printf("|--------|------------|------------|----------|-------|-------|-------|-------|--"
	       "--------|-------|--------|-------------|-----------------|\n");
	struct bi_row rows[64];
	int status = 0;
	char thr[32] = "";
	if (threads)
		snprintf(thr, sizeof thr, " --threads %d", threads);
	for (int i = 0; i < runs; i++) {
		struct bi_row *r = &rows[i];
		for (int k = 0; k < 7; k++)
			r->st[k] = -1;
		r->rs = r->load = r->warm = -1;
		if (rapid && pk.curve->id != ZKA_BN254) {
			if (i == 0)
				fprintf(stderr,
					"zkarena bench import: rapidsnark proves BN254 only\n");
		} else if (rapid) {
			snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s/rp.json' '%s/rpub.json'",
				 rapid, zkey, wtns, dir, dir);
			snprintf(log, sizeof log, "%s/rapidsnark.log", dir);
			r->rs = bi_time(cmd, log);
			if (r->rs < 0 || !zka_bench_peer_ok(&pk, &w, dir, "rp.json", "rpub.json",
							    "rapidsnark")) {
				r->rs = -1;
				status = 1;
			}
		}
		snprintf(rm, sizeof rm, "rm -rf '%s'", cache);
		if (system(rm) != 0) {
			fprintf(stderr, "zkarena bench import: cannot empty %s\n", cache);
			status = 1;
			break;
		}
		snprintf(cmd, sizeof cmd,
			 "'%s' prove --times%s%s '%s' '%s' '%s/p.json' '%s/pub.json'", self,
			 gpu ? " --gpu" : "", thr, zkey, wtns, dir, dir);
		snprintf(log, sizeof log, "%s/first.log", dir);
		r->cold = bi_time(cmd, log);
		if (r->cold < 0 || bi_parse_log(log, r)) {
			if (r->cold >= 0)
				fprintf(stderr,
					"zkarena bench import: %s: no import stages (was the "
					"key imported?)\n",
					log);
			r->cold = -1;
			status = 1;
		}
		snprintf(log, sizeof log, "%s/second.log", dir);
		r->warm = bi_time(cmd, log);
		if (r->warm < 0)
			status = 1;
		char label[16];
		snprintf(label, sizeof label, "%d", i + 1);
		bi_print(label, r);
	}
	if (runs > 1) {
		struct bi_row med;
		double v[64];
#define BI_MED(field)                                                                              \
	do {                                                                                       \
		int n = 0;                                                                         \
		for (int i = 0; i < runs; i++)                                                     \
			if (rows[i].field >= 0)                                                    \
				v[n++] = rows[i].field;                                            \
		med.field = n ? zka_percentile(v, n, 50) : -1;                                     \
	} while (0)
		BI_MED(rs);
		BI_MED(cold);
		BI_MED(load);
		BI_MED(warm);
		for (int k = 0; k < 7; k++)
			BI_MED(st[k]);
#undef BI_MED
		bi_print("median", &med);
	}
	printf("\nthe import's points validated%s (the last run's first proof)\n", bi_where);
	if (!keep) {
		snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
		if (system(rm) != 0)
			fprintf(stderr, "zkarena bench import: could not remove %s\n", dir);
	}
	zka_pk_free(&pk);
	zka_witness_free(&w);
	return status;
}
