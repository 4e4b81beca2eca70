/* bench_cluster.c - `zkarena bench cluster --db URL`: what the database costs a job, next to
 * what proving it costs. Two parts:
 *   1. the database alone: N submits from this process, then K processes claiming (batches of
 *      B, SKIP LOCKED) and finishing (a proof-sized result, token check) until the queue is
 *      empty, with no proving: per-call latencies and jobs/s through the database;
 *   2. end to end on this node: a temporary arena with `zkarena run` (CPU prover) and
 *      `zkarena bridge`, N jobs of a random M-constraint BN254 circuit: claim-to-start latency
 *      (t_claim to the start of synthesis), synthesis, proof, submit-to-done, and jobs/s.
 * It uses the database it is given (cluster init, then rows it leaves there): run it on a
 * scratch database that no other bridge serves (tests/cluster/pg.sh starts one). */
#include "cluster/zka_cluster.h"
#include "tools/cli.h"
#include "tools/util.h"
#include "zk/opt.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char prog[] = "zkarena bench cluster";

/* A proof.json of the usual size (BN254: ~700 bytes), so that finish moves realistic bytes. */
static char fake_proof[800];

static int run_self(char *const args[], int quiet)
{
	char self[PATH_MAX];
	ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
	if (l <= 0)
		return -1;
	self[l] = 0;
	fflush(NULL); /* or the child's freopen writes our buffered output again */
	pid_t p = fork();
	if (p == 0) {
		if (quiet) {
			freopen("/dev/null", "w", stdout);
			freopen("/dev/null", "w", stderr);
		}
		execv(self, args);
		_exit(127);
	}
	if (p < 0)
		return -1;
	int st;
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static pid_t spawn_self(char *const args[], const char *log)
{
	char self[PATH_MAX];
	ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
	if (l <= 0)
		return -1;
	self[l] = 0;
	fflush(NULL);
	pid_t p = fork();
	if (p == 0) {
		freopen(log, "a", stdout);
		freopen(log, "a", stderr);
		execv(self, args);
		_exit(127);
	}
	return p;
}

static void row(const char *what, double *v, int n, double rate)
{
	if (n <= 0) {
		printf("| %-44s | %9s | %9s | %12s |\n", what, "-", "-", "-");
		return;
	}
	double p50 = zka_percentile(v, n, 50) * 1e3, p99 = zka_percentile(v, n, 99) * 1e3;
	char r[32] = "";
	if (rate > 0)
		snprintf(r, sizeof r, "%.0f", rate);
	printf("| %-44s | %9.3f | %9.3f | %12s |\n", what, p50, p99, r);
}

/* Part 1: the database alone. */
static int db_only(const char *url, int njobs, int nclients, int batch)
{
	struct zka_cluster *c;
	char err[600];
	if (zka_cluster_open(url, 0, &c, err, sizeof err)) {
		fprintf(stderr, "%s: --db: %s\n", prog, err);
		zka_cluster_close(c);
		return 2;
	}
	double *sub = calloc((size_t)njobs, sizeof *sub);
	if (!sub)
		return 2;
	double t0 = zka_now();
	for (int i = 0; i < njobs; i++) {
		struct zka_cluster_spec s = {.circuit = "/bench/none.zkey",
					     .witness = "/bench/none.wtns",
					     .out_dir = "/bench"};
		int64_t id;
		int ex;
		double a = zka_now();
		if (zka_cluster_submit(c, &s, &id, &ex, err, sizeof err)) {
			fprintf(stderr, "%s: submit: %s\n", prog, err);
			return 2;
		}
		sub[i] = zka_now() - a;
	}
	double t_sub = zka_now() - t0;
	zka_cluster_close(c);
	/* K claimers, each sending back (claim latency, jobs in it) and finish latencies */
	int fds[64];
	pid_t pids[64];
	t0 = zka_now();
	for (int w = 0; w < nclients; w++) {
		int pf[2];
		if (pipe(pf))
			return 2;
		fflush(NULL);
		if ((pids[w] = fork()) == 0) {
			close(pf[0]);
			struct zka_cluster *cc;
			char node[32];
			snprintf(node, sizeof node, "bench-%d", w);
			if (zka_cluster_open(url, 0, &cc, NULL, 0))
				_exit(1);
			struct zka_cluster_lease l[64];
			struct zka_cluster_result r = {.proof = fake_proof,
						       .public_json = "[\"1\",\"2\"]",
						       .synth_s = 0,
						       .prove_s = 0};
			for (;;) {
				double a = zka_now();
				int k = zka_cluster_claim(cc, node, batch, 60000, l, NULL, 0);
				double rec[2] = {zka_now() - a, k};
				if (k <= 0)
					break;
				if (write(pf[1], rec, sizeof rec) != sizeof rec)
					_exit(1);
				for (int i = 0; i < k; i++) {
					a = zka_now();
					int rc = zka_cluster_finish(cc, node, l[i].id, l[i].token,
								    &r, NULL, 0);
					double f[2] = {zka_now() - a, rc ? -1 : -2};
					if (write(pf[1], f, sizeof f) != sizeof f)
						_exit(1);
				}
			}
			zka_cluster_close(cc);
			_exit(0);
		}
		close(pf[1]);
		fds[w] = pf[0];
	}
	double *cl = calloc((size_t)njobs + 64, sizeof *cl),
	       *fin = calloc((size_t)njobs, sizeof *fin);
	int ncl = 0, nfin = 0, bad = 0, claimed = 0;
	for (int w = 0; w < nclients; w++) {
		double rec[2];
		while (read(fds[w], rec, sizeof rec) == sizeof rec) {
			if (rec[1] >= 0) {
				if (ncl < njobs + 64)
					cl[ncl++] = rec[0] / (rec[1] > 0 ? rec[1] : 1);
				claimed += (int)rec[1];
			} else {
				bad += rec[1] == -1;
				if (nfin < njobs)
					fin[nfin++] = rec[0];
			}
		}
		close(fds[w]);
		int st;
		waitpid(pids[w], &st, 0);
		bad += !WIFEXITED(st) || WEXITSTATUS(st);
	}
	double t_run = zka_now() - t0;
	printf("\ndatabase only (%d jobs; %d claimers in parallel, batches of up to %d, no "
	       "proving):\n\n",
	       njobs, nclients, batch);
	printf("| %-44s | %9s | %9s | %12s |\n", "step", "p50 (ms)", "p99 (ms)", "jobs/s");
	printf("|%s|%s|%s|%s|\n", "----------------------------------------------", "-----------",
	       "-----------", "--------------");
	row("submit (INSERT + NOTIFY, one transaction)", sub, njobs, njobs / t_sub);
	row("claim, per job of its batch (SKIP LOCKED)", cl, ncl, 0);
	row("finish (result + token check, one statement)", fin, nfin, 0);
	double tot[1] = {t_run / (claimed ? claimed : 1)};
	row("claim + finish, wall / job (all clients)", tot, 1, claimed / t_run);
	if (bad || claimed != njobs)
		printf("(claimed %d of %d, %d finishes refused or failed)\n", claimed, njobs, bad);
	free(sub);
	free(cl);
	free(fin);
	return bad || claimed != njobs;
}

/* Part 2: end to end through one bridge, arena and CPU prover on this machine. */
static int end_to_end(const char *url, int njobs, int m, int slots, int workers)
{
	char dir[] = "/tmp/zka-bench-cluster-XXXXXX";
	if (!mkdtemp(dir)) {
		fprintf(stderr, "%s: mkdtemp: %s\n", prog, strerror(errno));
		return 2;
	}
	char name[64], r1cs[PATH_MAX], wtns[PATH_MAX], zkey[PATH_MAX], vk[PATH_MAX], ms[16], sl[16],
	    wk[16], log[PATH_MAX], work[PATH_MAX], out[PATH_MAX], cap[16];
	snprintf(name, sizeof name, "bench-cluster-%d", (int)getpid());
	snprintf(r1cs, sizeof r1cs, "%s/c.r1cs", dir);
	snprintf(wtns, sizeof wtns, "%s/c.wtns", dir);
	snprintf(zkey, sizeof zkey, "%s/c.zkey", dir);
	snprintf(vk, sizeof vk, "%s/c.vk.json", dir);
	snprintf(log, sizeof log, "%s/log", dir);
	snprintf(work, sizeof work, "%s/work", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	snprintf(ms, sizeof ms, "%d", m);
	snprintf(sl, sizeof sl, "%d", slots);
	snprintf(wk, sizeof wk, "%d", workers);
	snprintf(cap, sizeof cap, "%d", 2 * slots);
	mkdir(out, 0700);
	int status = 2;
	pid_t run = -1, br = -1;
	char *gen[] = {"zkarena", "circuit", "--curve", "bn128", "--constraints", ms, "--public",
		       "2",	  r1cs,	     wtns,	NULL};
	char *setup[] = {"zkarena", "setup", "--insecure", r1cs, zkey, vk, NULL};
	char *create[] = {"zkarena", "arena",	     "create", name, "--slots",
			  sl,	     "--slot-bytes", "64M",    NULL};
	char *destroy[] = {"zkarena", "arena", "destroy", name, NULL};
	if (run_self(gen, 1) || run_self(setup, 1) || run_self(create, 1)) {
		fprintf(stderr, "%s: could not make the circuit, keys or arena (in %s)\n", prog,
			dir);
		goto out;
	}
	char *runa[] = {"zkarena", "run", name, "--workers", wk, "--backend", "cpu", NULL};
	char *bra[] = {"zkarena", "bridge", "--db",	  (char *)url, "--arena", name,
		       "--work",  work,	    "--capacity", cap,	       NULL};
	run = spawn_self(runa, log);
	br = spawn_self(bra, log);
	struct zka_cluster *c;
	char err[600];
	if (zka_cluster_open(url, 0, &c, err, sizeof err)) {
		fprintf(stderr, "%s: --db: %s\n", prog, err);
		zka_cluster_close(c);
		goto out;
	}
	int64_t *ids = calloc((size_t)njobs, sizeof *ids);
	double *c2s = calloc((size_t)njobs, sizeof *c2s), *syn = calloc((size_t)njobs, sizeof *syn),
	       *prv = calloc((size_t)njobs, sizeof *prv), *tot = calloc((size_t)njobs, sizeof *tot);
	/* one warm-up job loads the key into the arena's params region */
	struct zka_cluster_spec s = {.circuit = zkey, .witness = wtns, .out_dir = out};
	int ex, n = 0;
	struct zka_cluster_job j;
	int64_t w0;
	if (zka_cluster_submit(c, &s, &w0, &ex, err, sizeof err) ||
	    zka_cluster_wait(c, w0, 120000, &j, err, sizeof err)) {
		fprintf(stderr, "%s: warm-up job: %s\n", prog, j.reason[0] ? j.reason : err);
		zka_cluster_job_free(&j);
		goto out2;
	}
	zka_cluster_job_free(&j);
	/* latency: one job at a time, so that nothing queues behind anything */
	int nl = njobs < 20 ? njobs : 20, nlat = 0;
	double *s2c = calloc((size_t)nl, sizeof *s2c), *lat = calloc((size_t)nl, sizeof *lat);
	for (int i = 0; i < nl; i++) {
		int64_t id;
		if (zka_cluster_submit(c, &s, &id, &ex, err, sizeof err) ||
		    zka_cluster_wait(c, id, 120000, &j, err, sizeof err)) {
			fprintf(stderr, "%s: job: %s\n", prog, j.reason[0] ? j.reason : err);
			zka_cluster_job_free(&j);
			goto out2;
		}
		if (j.t_start > 0) {
			s2c[nlat] = j.t_claim - j.t_submit;
			c2s[nlat] = j.t_start - j.t_claim;
			lat[nlat++] = j.t_done - j.t_submit;
		}
		zka_cluster_job_free(&j);
	}
	/* throughput: all at once */
	double first = 1e300, last = 0;
	for (int i = 0; i < njobs; i++)
		if (zka_cluster_submit(c, &s, &ids[i], &ex, err, sizeof err)) {
			fprintf(stderr, "%s: submit: %s\n", prog, err);
			goto out2;
		}
	for (int i = 0; i < njobs; i++) {
		int r = zka_cluster_wait(c, ids[i], 300000, &j, err, sizeof err);
		if (r == 0 && j.t_start > 0) {
			syn[n] = j.synth_s;
			prv[n] = j.prove_s;
			tot[n] = j.t_done - j.t_submit;
			first = j.t_submit < first ? j.t_submit : first;
			last = j.t_done > last ? j.t_done : last;
			n++;
		} else if (r) {
			fprintf(stderr, "%s: job %lld: %s\n", prog, (long long)ids[i],
				r == 1 ? j.reason : err);
		}
		zka_cluster_job_free(&j);
	}
	printf("\nend to end on this machine (a %d-constraint BN254 circuit; one node: arena of %d "
	       "slots,\n%d synthesis worker(s), CPU prover, bridge capacity %d):\n\n",
	       m, slots, workers, 2 * slots);
	printf("| %-44s | %9s | %9s | %12s |\n", "stage", "p50 (ms)", "p99 (ms)", "jobs/s");
	printf("|%s|%s|%s|%s|\n", "----------------------------------------------", "-----------",
	       "-----------", "--------------");
	char what[64];
	snprintf(what, sizeof what, "%d jobs one at a time: submit -> claim", nlat);
	row(what, s2c, nlat, 0);
	row("  claim -> synthesis start", c2s, nlat, 0);
	row("  submit -> DONE in the database", lat, nlat, 0);
	double prove_p50 = n ? zka_percentile(prv, n, 50) : 0;
	snprintf(what, sizeof what, "%d jobs at once: synthesis", n);
	row(what, syn, n, 0);
	row("  proof (CPU prover; jobs/s = 1 / p50)", prv, n, prove_p50 > 0 ? 1 / prove_p50 : 0);
	row("  submit -> DONE (queueing included)", tot, n,
	    n && last > first ? n / (last - first) : 0);
	free(s2c);
	free(lat);
	status = n == njobs ? 0 : 1;
out2:
	zka_cluster_close(c);
	free(ids);
	free(c2s);
	free(syn);
	free(prv);
	free(tot);
out:
	if (br > 0) {
		kill(br, SIGTERM);
		waitpid(br, NULL, 0);
	}
	if (run > 0) {
		kill(run, SIGTERM);
		waitpid(run, NULL, 0);
	}
	run_self(destroy, 1);
	char st[128];
	snprintf(st, sizeof st, "/dev/shm/zkarena-%s.bridge-status", name);
	unlink(st);
	char rm[PATH_MAX + 16];
	snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
	if (system(rm)) {
		/* nothing to do: a leftover temporary directory */
	}
	return status;
}

int zka_bench_cluster(int argc, char **argv)
{
	static const struct option opts[] = {{"db", required_argument, 0, 'd'},
					     {"jobs", required_argument, 0, 'j'},
					     {"clients", required_argument, 0, 'k'},
					     {"batch", required_argument, 0, 'b'},
					     {"constraints", required_argument, 0, 'm'},
					     {"slots", required_argument, 0, 's'},
					     {"workers", required_argument, 0, 'w'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *url = NULL;
	int njobs = 500, k = 4, batch = 4, m = 2000, slots = 2, workers = 1, opt;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			url = optarg;
			break;
		case 'j':
			if (zka_opt_int(prog, "--jobs", optarg, 1, 100000, &njobs))
				return 2;
			break;
		case 'k':
			if (zka_opt_int(prog, "--clients", optarg, 1, 64, &k))
				return 2;
			break;
		case 'b':
			if (zka_opt_int(prog, "--batch", optarg, 1, 64, &batch))
				return 2;
			break;
		case 'm':
			if (zka_opt_int(prog, "--constraints", optarg, 1, 1 << 20, &m))
				return 2;
			break;
		case 's':
			if (zka_opt_int(prog, "--slots", optarg, 1, 64, &slots))
				return 2;
			break;
		case 'w':
			if (zka_opt_int(prog, "--workers", optarg, 1, 64, &workers))
				return 2;
			break;
		case 'h':
			printf("usage: zkarena bench cluster --db URL [--jobs N] [--clients K] "
			       "[--batch B]\n"
			       "                            [--constraints M] [--slots S] "
			       "[--workers W]\n\n"
			       "Measures what the database costs a job next to what proving it "
			       "costs: first\n"
			       "N jobs (default 500) through the database alone (K = 4 claimers, "
			       "batches of\n"
			       "B = 4, no proving), then N / 5 real jobs of an M-constraint BN254 "
			       "circuit\n"
			       "(default 2000) through a bridge and a temporary arena (S slots, W "
			       "workers,\n"
			       "CPU prover) on this machine. Prints p50/p99 per step and jobs/s. "
			       "Use a scratch\n"
			       "database that no other bridge serves: its rows stay there.\n");
			return 0;
		default:
			return 2;
		}
	}
	if (!url) {
		fprintf(stderr, "%s: --db URL is required (a scratch database; see --help)\n",
			prog);
		return 2;
	}
	memset(fake_proof, 'x', sizeof fake_proof - 1);
	struct zka_cluster *c;
	char err[600];
	int from;
	if (zka_cluster_open(url, ZKA_CLUSTER_NOSCHEMA, &c, err, sizeof err) ||
	    zka_cluster_init(c, &from, err, sizeof err)) {
		fprintf(stderr, "%s: --db: %s\n", prog, err);
		zka_cluster_close(c);
		return 2;
	}
	long cnt[5];
	if (zka_cluster_counts(c, cnt, err, sizeof err) || cnt[ZKA_CL_QUEUED] ||
	    cnt[ZKA_CL_LEASED]) {
		fprintf(stderr,
			"%s: the database has jobs queued or leased: use a scratch database\n",
			prog);
		zka_cluster_close(c);
		return 2;
	}
	time_t now = time(NULL);
	char date[64];
	strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	printf("zkarena bench cluster: PostgreSQL %s, %s, %ld CPUs\n",
	       zka_cluster_server_version(c), date, cpus);
	zka_cluster_close(c);
	int r = db_only(url, njobs, k, batch);
	int r2 = end_to_end(url, njobs / 5 > 0 ? njobs / 5 : 1, m, slots, workers);
	return r ? r : r2;
}
