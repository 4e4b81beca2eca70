/* cmd_cluster.c - `zkarena cluster init|submit|wait|status --db URL ...`: the client side of
 * the cluster's job table (cluster/zka_cluster.h). */
#include "cluster/zka_cluster.h"
#include "tools/cli.h"
#include "zk/fmt_atomic.h"
#include "zk/opt.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Opens the database for command cmd; on failure prints "zkarena cluster CMD: --db: ..." and
 * returns NULL (every failure to open is exit status 2). */
static struct zka_cluster *open_db(const char *cmd, const char *url, int flags)
{
	struct zka_cluster *c;
	char err[600];
	if (!url) {
		fprintf(stderr, "zkarena cluster %s: --db URL is required\n", cmd);
		return NULL;
	}
	int rc = zka_cluster_open(url, flags, &c, err, sizeof err);
	if (rc) {
		fprintf(stderr, "zkarena cluster %s: --db: %s\n", cmd, err);
		zka_cluster_close(c);
		return NULL;
	}
	return c;
}

static int parse_id(const char *cmd, const char *s, int64_t *id)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end || !*s || v <= 0) {
		fprintf(stderr, "zkarena cluster %s: '%s' is not a job id\n", cmd, s);
		return -EINVAL;
	}
	*id = v;
	return 0;
}

static int cl_init(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, 0, 'd'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	const char *url = NULL;
	int opt;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			url = optarg;
			break;
		case 'h':
			printf("usage: zkarena cluster init --db URL\n\n"
			       "Creates the cluster's tables in the database at URL (a libpq URI "
			       "such as\n"
			       "postgresql://user@host/db or key=value settings), or migrates them "
			       "to this\n"
			       "zkarena's schema version. Running it again changes nothing. exit "
			       "status: 0\n"
			       "done; 2 bad URL, database unreachable, or a newer schema than this "
			       "zkarena's.\n");
			return 0;
		default:
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "zkarena cluster init: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	struct zka_cluster *c = open_db("init", url, ZKA_CLUSTER_NOSCHEMA);
	if (!c)
		return 2;
	char err[600];
	int from, rc = zka_cluster_init(c, &from, err, sizeof err);
	zka_cluster_close(c);
	if (rc) {
		fprintf(stderr, "zkarena cluster init: %s\n", err);
		return 2;
	}
	if (from == ZKA_CLUSTER_SCHEMA)
		printf("schema version %d: already up to date\n", from);
	else if (from == 0)
		printf("schema version %d: created\n", ZKA_CLUSTER_SCHEMA);
	else
		printf("schema version %d: migrated from version %d\n", ZKA_CLUSTER_SCHEMA, from);
	return 0;
}

/* Makes path absolute in out (the bridges resolve it on their own node: shared storage). */
static int abs_file(const char *what, const char *path, char *out)
{
	struct stat st;
	if (strstr(path, "://")) {
		fprintf(stderr,
			"zkarena cluster submit: %s: '%s': URI schemes are not supported yet "
			"(name a file on storage every node shares)\n",
			what, path);
		return -EPROTONOSUPPORT;
	}
	if (!realpath(path, out) || stat(out, &st) || access(out, R_OK)) {
		fprintf(stderr, "zkarena cluster submit: %s: %s: %s\n", what, path,
			strerror(errno));
		return -errno;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "zkarena cluster submit: %s: %s: not a regular file\n", what, path);
		return -EINVAL;
	}
	if (strlen(out) >= ZKA_CLUSTER_TEXT_MAX) {
		fprintf(stderr, "zkarena cluster submit: %s: %s: path too long\n", what, path);
		return -ENAMETOOLONG;
	}
	return 0;
}

static int cl_submit(int argc, char **argv)
{
	static const struct option opts[] = {{"db", required_argument, 0, 'd'},
					     {"out", required_argument, 0, 'o'},
					     {"priority", required_argument, 0, 'p'},
					     {"request-id", required_argument, 0, 'r'},
					     {"max-attempts", required_argument, 0, 'm'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *url = NULL, *out = NULL, *rid = NULL;
	int opt, prio = 0, att = 3;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			url = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'p':
			if (zka_opt_int("zkarena cluster submit", "--priority", optarg, -1000000,
					1000000, &prio))
				return 2;
			break;
		case 'r':
			if (!*optarg || strlen(optarg) >= ZKA_CLUSTER_TEXT_MAX) {
				fprintf(
				    stderr,
				    "zkarena cluster submit: --request-id: must be 1..%d bytes\n",
				    ZKA_CLUSTER_TEXT_MAX - 1);
				return 2;
			}
			rid = optarg;
			break;
		case 'm':
			if (zka_opt_int("zkarena cluster submit", "--max-attempts", optarg, 1, 100,
					&att))
				return 2;
			break;
		case 'h':
			printf("usage: zkarena cluster submit --db URL circuit.zkey witness.wtns "
			       "--out DIR\n"
			       "                              [--priority N] [--request-id ID] "
			       "[--max-attempts N]\n\n"
			       "Queues one proof in the cluster's database. The key and witness "
			       "are named by\n"
			       "absolute path and must be readable at that path on every proving "
			       "node (shared\n"
			       "storage). `cluster wait` writes proof.json and public.json into "
			       "DIR. Higher\n"
			       "--priority runs first (default 0). With --request-id, a submit "
			       "repeated with the\n"
			       "same ID (a retry) queues nothing and returns the first job. A job "
			       "whose lease\n"
			       "lapses --max-attempts times (default 3: its node died each time) "
			       "fails.\n"
			       "Prints the job id alone on the last line. exit status: 0 queued "
			       "(or already\n"
			       "queued under ID); 2 bad input or database problem (nothing "
			       "queued).\n");
			return 0;
		default:
			return 2;
		}
	}
	if (argc - optind != 2 || !out) {
		fprintf(stderr, "zkarena cluster submit: expected circuit.zkey witness.wtns --out "
				"DIR (see --help)\n");
		return 2;
	}
	char key[PATH_MAX], wtns[PATH_MAX], dir[PATH_MAX];
	struct stat st;
	if (abs_file("circuit", argv[optind], key) || abs_file("witness", argv[optind + 1], wtns))
		return 2;
	if (!realpath(out, dir) || stat(dir, &st)) {
		fprintf(stderr, "zkarena cluster submit: --out: %s: %s\n", out, strerror(errno));
		return 2;
	}
	if (!S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK)) {
		fprintf(stderr, "zkarena cluster submit: --out: %s: not a writable directory\n",
			out);
		return 2;
	}
	struct zka_cluster *c = open_db("submit", url, 0);
	if (!c)
		return 2;
	struct zka_cluster_spec s = {.circuit = key,
				     .witness = wtns,
				     .out_dir = dir,
				     .request_id = rid,
				     .priority = prio,
				     .max_attempts = att};
	int64_t id;
	int existed;
	char err[600];
	int rc = zka_cluster_submit(c, &s, &id, &existed, err, sizeof err);
	zka_cluster_close(c);
	if (rc) {
		fprintf(stderr, "zkarena cluster submit: %s\n", err);
		return 2;
	}
	if (existed)
		fprintf(stderr,
			"zkarena cluster submit: request id '%s' already names job %lld; nothing "
			"queued\n",
			rid, (long long)id);
	printf("%lld\n", (long long)id);
	return 0;
}

/* Writes text to DIR/name through a temporary file and a rename (zk/fmt_atomic.h: an
 * unguessable name created O_EXCL|O_NOFOLLOW in DIR opened once). */
static int write_atomic(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 64];
	zka_atomic a;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int r = zka_atomic_open_mode(&a, path, 0644);
	if (r)
		return r;
	if ((r = zka_atomic_write(&a, text, strlen(text)))) {
		zka_atomic_abort(&a);
		return r;
	}
	return zka_atomic_commit(&a);
}

static int cl_wait(int argc, char **argv)
{
	static const struct option opts[] = {{"db", required_argument, 0, 'd'},
					     {"timeout", required_argument, 0, 't'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const char *url = NULL;
	int opt, timeout_ms = -1;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			url = optarg;
			break;
		case 't': {
			char *end;
			errno = 0;
			double sec = strtod(optarg, &end);
			if (!*optarg || *end || errno || !(sec >= 0 && sec <= 2000000)) {
				fprintf(stderr,
					"zkarena cluster wait: --timeout: '%s' is not a number of "
					"seconds in 0..2000000\n",
					optarg);
				return 2;
			}
			timeout_ms = (int)(sec * 1000);
			break;
		}
		case 'h':
			printf("usage: zkarena cluster wait --db URL JOB [--timeout SECONDS]\n\n"
			       "Blocks until JOB is DONE or FAILED, woken by LISTEN/NOTIFY (the "
			       "row is re-read\n"
			       "every 3 s as well; a lost connection is retried until the "
			       "timeout). When DONE,\n"
			       "writes proof.json and public.json into the job's --out directory.\n"
			       "exit status: 0 DONE (files written); 1 FAILED (the reason is "
			       "printed);\n"
			       "3 timed out; 2 bad usage, unknown job or database problem.\n");
			return 0;
		default:
			return 2;
		}
	}
	int64_t id;
	if (argc - optind != 1) {
		fprintf(stderr, "zkarena cluster wait: expected JOB (see --help)\n");
		return 2;
	}
	if (parse_id("wait", argv[optind], &id))
		return 2;
	struct zka_cluster *c = open_db("wait", url, 0);
	if (!c)
		return 2;
	struct zka_cluster_job j;
	char err[600];
	int rc = zka_cluster_wait(c, id, timeout_ms, &j, err, sizeof err), status;
	zka_cluster_close(c);
	if (rc == 0) {
		int w = write_atomic(j.out_dir, "proof.json", j.proof);
		if (!w)
			w = write_atomic(j.out_dir, "public.json", j.public_json);
		if (w) {
			fprintf(stderr, "zkarena cluster wait: job %lld: %s: %s\n", (long long)id,
				j.out_dir, strerror(-w));
			status = 2;
		} else {
			printf(
			    "job %lld DONE on %s: %s/proof.json %s/public.json (synthesis %.3f s, "
			    "prove %.3f s, total %.3f s, leases %d)\n",
			    (long long)id, j.done_by, j.out_dir, j.out_dir, j.synth_s, j.prove_s,
			    j.t_done - j.t_submit, j.attempts);
			status = 0;
		}
	} else if (rc == 1) {
		printf("job %lld FAILED: %s\n", (long long)id, j.reason);
		status = 1;
	} else if (rc == -ETIMEDOUT) {
		fprintf(stderr, "zkarena cluster wait: job %lld: still running after the timeout\n",
			(long long)id);
		status = 3;
	} else {
		fprintf(stderr, "zkarena cluster wait: %s\n", err);
		status = 2;
	}
	zka_cluster_job_free(&j);
	return status;
}

static double since(double a, double b)
{
	return a > 0 && b > 0 ? b - a : -1;
}

static int cl_status(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, 0, 'd'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	const char *url = NULL;
	int opt;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			url = optarg;
			break;
		case 'h':
			printf("usage: zkarena cluster status --db URL [JOB]\n\n"
			       "Without JOB: jobs per state and, per node (bridge), its capacity, "
			       "jobs in\n"
			       "flight, leases held, jobs done and failed, results refused (late, "
			       "after the\n"
			       "lease was taken over), database outages and the age of its last "
			       "heartbeat.\n"
			       "With JOB: its state, node, attempts, timings and reason. A "
			       "bridge's own view\n"
			       "(also while the database is down) is `zkarena bridge --status "
			       "--arena NAME`.\n");
			return 0;
		default:
			return 2;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "zkarena cluster status: expected at most one JOB\n");
		return 2;
	}
	int64_t id = 0;
	if (argc - optind == 1 && parse_id("status", argv[optind], &id))
		return 2;
	struct zka_cluster *c = open_db("status", url, 0);
	if (!c)
		return 2;
	char err[600];
	int status = 0;
	if (id) {
		struct zka_cluster_job j;
		int rc = zka_cluster_job_get(c, id, 0, &j, err, sizeof err);
		if (rc) {
			fprintf(stderr, "zkarena cluster status: %s\n", err);
			status = 2;
		} else {
			printf("job %lld: %s, %d of %d leases used (%d expired), priority %d\n",
			       (long long)id, zka_cluster_state_name(j.state), j.attempts,
			       j.max_attempts, j.expired, j.priority);
			if (j.state == ZKA_CL_LEASED)
				printf("  node %s, lease %lld, expires in %.1f s\n", j.lease_owner,
				       (long long)j.lease_token, j.lease_left_s);
			if (j.done_by[0])
				printf("  node %s\n", j.done_by);
			if (j.request_id[0])
				printf("  request id %s\n", j.request_id);
			printf("  circuit %s\n  witness %s\n  output  %s\n", j.circuit, j.witness,
			       j.out_dir);
			printf("  queued %.3f s, claim to start %.3f s, synthesis %.3f s, prove "
			       "%.3f s, "
			       "total %.3f s\n",
			       since(j.t_submit, j.t_claim), since(j.t_claim, j.t_start), j.synth_s,
			       j.prove_s, since(j.t_submit, j.t_done));
			if (j.reason[0])
				printf("  reason: %s\n", j.reason);
		}
		zka_cluster_job_free(&j);
	} else {
		long cnt[5];
		struct zka_cluster_node_info *nd = NULL;
		int k = 0;
		if (zka_cluster_counts(c, cnt, err, sizeof err) ||
		    zka_cluster_nodes(c, &nd, &k, err, sizeof err)) {
			fprintf(stderr, "zkarena cluster status: %s\n", err);
			status = 2;
		} else {
			printf("PostgreSQL %s, schema %d\njobs:", zka_cluster_server_version(c),
			       ZKA_CLUSTER_SCHEMA);
			for (int s = ZKA_CL_QUEUED; s <= ZKA_CL_FAILED; s++)
				printf(" %s %ld", zka_cluster_state_name(s), cnt[s]);
			printf("\n%-28s %-16s %8s %8s %6s %6s %6s %7s %7s %9s  %s\n", "node",
			       "arena", "capacity", "inflight", "leased", "done", "failed",
			       "refused", "outages", "heartbeat", "status");
			for (int i = 0; i < k; i++)
				printf("%-28s %-16s %8d %8d %6ld %6ld %6ld %7ld %7ld %7.1f s  %s\n",
				       nd[i].name, nd[i].arena, nd[i].capacity, nd[i].inflight,
				       nd[i].leased, nd[i].done, nd[i].failed, nd[i].refused,
				       nd[i].db_outages, nd[i].heartbeat_age_s, nd[i].status);
		}
		free(nd);
	}
	zka_cluster_close(c);
	return status;
}

int zka_cmd_cluster(int argc, char **argv)
{
	static const struct zka_cmd sub[] = {
	    {"init", cl_init, "create or migrate the schema: --db URL"},
	    {"submit", cl_submit, "queue a proof: --db URL circuit.zkey witness.wtns --out DIR"},
	    {"wait", cl_wait, "wait for a job and write its proof: --db URL JOB"},
	    {"status", cl_status, "jobs per state and nodes, or one job: --db URL [JOB]"},
	};
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		FILE *f = argc < 2 ? stderr : stdout;
		fprintf(
		    f,
		    "usage: zkarena cluster SUBCOMMAND --db URL [ARGS...]\n\n"
		    "Jobs across proving nodes through PostgreSQL: clients queue jobs here, and\n"
		    "`zkarena bridge` on each node runs them in its arena. See "
		    "docs/cluster.md.\n\n");
		for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++)
			fprintf(f, "  %-8s %s\n", sub[i].name, sub[i].summary);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++)
		if (!strcmp(argv[1], sub[i].name))
			return sub[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "zkarena cluster: unknown subcommand '%s' (try zkarena cluster --help)\n",
		argv[1]);
	return 2;
}
