/* bridge.c - `zkarena bridge --db URL --arena NAME`: one node's link between the cluster's
 * job table (cluster/zka_cluster.h) and its local arena.
 *
 * One thread, one loop. Each turn it (1) reconnects when the database is gone (backoff 100 ms
 * doubling to 5 s, said in its status file and, once back, in its node row); (2) reaps
 * expired leases of any node; (3) leases as many queued jobs as its capacity has room for and
 * submits each into the arena with a private output directory WORK/ID-TOKEN; (4) renews its
 * leases every lease/3 (a lease found lost cancels its arena job); (5) collects the arena jobs
 * that finished and writes each outcome with zka_cluster_finish, which refuses it unless the
 * lease token still holds; (6) sleeps on the oldest arena job's futex (5 ms) or on the
 * database socket (NOTIFY zka_queued), whichever applies.
 *
 * A bridge that restarts gives back its predecessor's leases at once (same node name) and
 * cancels or releases whatever that predecessor left in the arena under WORK. Results are held
 * in memory while the database is unreachable and written when it is back (or refused, if the
 * lease expired and was taken over meanwhile).
 */
#include "cluster/zka_cluster.h"
#include "synth/client.h"
#include "synth/pipe.h"
#include "tools/cli.h"
#include "zk/opt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char prog[] = "zkarena bridge";
static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

struct job {
	struct zka_cluster_lease l;
	uint64_t aid; /* arena job id; 0: not in the arena */
	char dir[PATH_MAX];
	int ready;   /* outcome known, not yet written */
	int requeue; /* the arena refused it: give the lease back (reason says why) */
	char *proof, *pub;
	char reason[ZKA_CLUSTER_REASON_MAX];
	double t_start, synth_s, prove_s;
};

struct bridge {
	const char *arena_name, *node, *work;
	struct zka_arena *a;
	struct zka_cluster *db;
	int capacity, lease_ms, n;
	struct job *jobs;
	long done, failed, refused, lost, outages, retries;
	double down_since, next_retry;
	int backoff_ms;
	char dberr[512], status_path[256];
};

/* Removes dir and the files in it (the job's proof, public signals and marker). */
static void rm_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char p[PATH_MAX + 260];
			snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
			unlink(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *s = NULL;
	size_t len = 0, cap = 0, k;
	char buf[8192];
	while ((k = fread(buf, 1, sizeof buf, f)) > 0) {
		if (len + k + 1 > cap) {
			cap = (len + k + 1) * 2;
			char *t = realloc(s, cap);
			if (!t) {
				free(s);
				fclose(f);
				return NULL;
			}
			s = t;
		}
		memcpy(s + len, buf, k);
		len += k;
	}
	fclose(f);
	if (!s)
		s = calloc(1, 1);
	else
		s[len] = 0;
	return s;
}

static void write_status(struct bridge *b)
{
	char tmp[300];
	snprintf(tmp, sizeof tmp, "%s.tmp", b->status_path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return;
	if (b->down_since > 0)
		fprintf(f,
			"node %s pid %d: database UNREACHABLE for %.1f s (%ld retries, next in "
			"%.1f s): %s\n",
			b->node, (int)getpid(), mono() - b->down_since, b->retries,
			b->next_retry - mono() > 0 ? b->next_retry - mono() : 0, b->dberr);
	else
		fprintf(f, "node %s pid %d: database OK\n", b->node, (int)getpid());
	fprintf(f,
		"capacity %d, in flight %d, done %ld, failed %ld, refused %ld, leases lost %ld, "
		"database outages %ld\n",
		b->capacity, b->n, b->done, b->failed, b->refused, b->lost, b->outages);
	fclose(f);
	rename(tmp, b->status_path);
}

static void beat(struct bridge *b)
{
	char st[128];
	snprintf(st, sizeof st, "%s, done %ld, failed %ld, refused %ld, lost %ld",
		 stopping ? "stopped" : "running", b->done, b->failed, b->refused, b->lost);
	struct zka_cluster_node nd = {.name = b->node,
				      .arena = b->arena_name,
				      .status = st,
				      .capacity = b->capacity,
				      .inflight = b->n,
				      .db_outages = b->outages};
	zka_cluster_node_beat(b->db, &nd, NULL, 0);
}

/* The connection just broke (rc -ENOTCONN) or could not be made. */
static void db_down(struct bridge *b, const char *err)
{
	if (b->down_since == 0) {
		b->down_since = mono();
		b->retries = 0;
		b->backoff_ms = 100;
		zka_pipe_log(prog, "database unreachable, retrying with backoff: %s", err);
	}
	snprintf(b->dberr, sizeof b->dberr, "%s", err);
	b->next_retry = mono() + b->backoff_ms / 1000.0;
	b->backoff_ms = b->backoff_ms * 2 > 5000 ? 5000 : b->backoff_ms * 2;
	write_status(b);
}

static void drop(struct bridge *b, int i)
{
	struct job *j = &b->jobs[i];
	if (j->aid) {
		struct zka_job_info ji;
		int r = zka_job_wait(b->a, j->aid, 0, &ji);
		if (r == 0 || r == 1)
			zka_job_release(b->a, j->aid);
		else
			zka_job_cancel(b->a, j->aid); /* released by a later sweep */
	}
	rm_dir(j->dir);
	free(j->proof);
	free(j->pub);
	b->jobs[i] = b->jobs[--b->n];
}

/* Directories under WORK that neither a lease of ours nor any arena job names (the arena's
 * names are the nn basenames in named, collected by sweep): left by a predecessor killed
 * between mkdir and submit, or between releasing its arena job and removing the directory.
 * Only names of the form ID-TOKEN are touched (WORK is ours, mode 0700); start() creates and
 * submits in one step of this thread, so a directory being filled is always named. */
static void sweep_orphans(struct bridge *b, char (*named)[64], uint32_t nn)
{
	DIR *d = opendir(b->work);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		long long id, tok;
		char tail;
		if (sscanf(e->d_name, "%lld-%lld%c", &id, &tok, &tail) != 2)
			continue;
		char p[PATH_MAX + 260];
		snprintf(p, sizeof p, "%s/%s", b->work, e->d_name);
		int in_use = 0;
		for (int i = 0; i < b->n && !in_use; i++)
			in_use = !strcmp(b->jobs[i].dir, p);
		for (uint32_t x = 0; x < nn && !in_use; x++)
			in_use = !strcmp(named[x], e->d_name);
		if (!in_use) {
			zka_pipe_log(prog, "removing %s: no lease or arena job names it", p);
			rm_dir(p);
		}
	}
	closedir(d);
}

/* Jobs of the arena whose output directory lies under WORK but that no lease of ours names
 * (left by a killed predecessor, or cancelled): cancel the live ones, release the finished.
 * Then the directories no job names at all (sweep_orphans), from the same pass's names. */
static void sweep(struct bridge *b)
{
	struct zka_arena_geometry g;
	zka_arena_geometry(b->a, &g);
	size_t wl = strlen(b->work);
	char(*named)[64] = malloc((size_t)g.njobs * sizeof *named);
	uint32_t nn = 0;
	for (uint32_t x = 0; x < g.njobs; x++) {
		struct zka_job_info ji;
		if (zka_job_info(b->a, x, &ji) || ji.state == ZKA_JOB_FREE ||
		    strncmp(ji.out_dir, b->work, wl) || ji.out_dir[wl] != '/')
			continue;
		int ours = 0;
		for (int i = 0; i < b->n; i++)
			ours |= b->jobs[i].aid == ji.id;
		if (!ours && ji.state != ZKA_JOB_FILLING) {
			if (ji.state == ZKA_JOB_DONE || ji.state == ZKA_JOB_FAILED) {
				zka_job_release(b->a, ji.id);
				rm_dir(ji.out_dir);
				continue; /* its directory is gone: nothing to name */
			}
			if (!zka_job_cancelled(b->a, x))
				zka_job_cancel(b->a, ji.id);
		}
		if (named && strlen(ji.out_dir + wl + 1) < sizeof *named)
			strcpy(named[nn++], ji.out_dir + wl + 1);
	}
	if (named) /* without the list no directory can be shown unnamed: none is removed */
		sweep_orphans(b, named, nn);
	free(named);
}

/* Puts a fresh lease into the arena. A job the arena refuses (key or witness unreadable here,
 * params region lost, job table full) goes back to the queue with the reason: the problem
 * may be this node's; a job that every lease fails ends FAILED after max_attempts with the
 * last reason (zka_cluster_release). */
static void start(struct bridge *b, const struct zka_cluster_lease *l)
{
	struct job *j = &b->jobs[b->n++];
	memset(j, 0, sizeof *j);
	j->l = *l;
	j->synth_s = j->prove_s = -1;
	snprintf(j->dir, sizeof j->dir, "%s/%lld-%lld", b->work, (long long)l->id,
		 (long long)l->token);
	char err[PATH_MAX + 256] = "";
	int r = 0;
	if (strstr(l->circuit, "://") || strstr(l->witness, "://")) {
		snprintf(err, sizeof err,
			 "URI keys and witnesses are not supported yet (paths only)");
		r = -EPROTONOSUPPORT;
	} else if (mkdir(j->dir, 0700) && errno != EEXIST) {
		snprintf(err, sizeof err, "%s: %s", j->dir, strerror(errno));
		r = -errno;
	} else {
		r = zka_client_submit(b->a, b->arena_name, l->circuit, NULL, l->witness, j->dir,
				      &j->aid, err, sizeof err);
	}
	if (r) {
		j->aid = 0;
		j->ready = 1;
		j->requeue = 1;
		snprintf(j->reason, sizeof j->reason, "node %.200s: %.300s", b->node, err);
	}
}

/* Collects the outcome of job i from the arena when it has one. */
static void collect(struct bridge *b, int i)
{
	struct job *j = &b->jobs[i];
	struct zka_job_info ji;
	int r = zka_job_wait(b->a, j->aid, 0, &ji);
	if (r == -ETIMEDOUT)
		return;
	j->ready = 1;
	if (r == 0) {
		char p[PATH_MAX + 16];
		snprintf(p, sizeof p, "%s/proof.json", j->dir);
		j->proof = slurp(p);
		snprintf(p, sizeof p, "%s/public.json", j->dir);
		j->pub = slurp(p);
		if (!j->proof || !j->pub)
			snprintf(j->reason, sizeof j->reason,
				 "node %.150s: the arena said DONE but %.300s is unreadable",
				 b->node, p);
		j->t_start = ji.t_synth_start * 1e-9;
		j->synth_s = ji.t_synth_end > ji.t_synth_start
				 ? (ji.t_synth_end - ji.t_synth_start) * 1e-9
				 : -1;
		j->prove_s = ji.t_prove_end > ji.t_prove_start
				 ? (ji.t_prove_end - ji.t_prove_start) * 1e-9
				 : -1;
	} else if (r == 1) {
		snprintf(j->reason, sizeof j->reason, "%s", ji.reason);
		j->t_start = ji.t_synth_start * 1e-9;
	} else {
		snprintf(j->reason, sizeof j->reason, "node %s: arena job %llu vanished (%s)",
			 b->node, (unsigned long long)j->aid, strerror(-r));
		j->aid = 0;
	}
}

/* Writes the outcome of job i; returns 1 when the job is finished with (written or refused),
 * 0 when it must wait for the database. */
static int write_back(struct bridge *b, int i)
{
	static int stalled;
	struct job *j = &b->jobs[i];
	const char *stall = getenv("ZKA_BRIDGE_STALL_MS");
	if (stall && !stalled && !j->reason[0] && !j->requeue) {
		/* test hook: a pause (GC, network cut) long enough for the lease to be taken over
		 */
		stalled = 1;
		zka_pipe_log(prog, "test hook: stalling %s ms before writing job %lld", stall,
			     (long long)j->l.id);
		sleep_ms(atoi(stall));
	}
	char err[512];
	if (j->requeue) {
		int r = zka_cluster_release(b->db, b->node, j->l.id, j->l.token, j->reason, err,
					    sizeof err);
		if (r == -ENOTCONN) {
			db_down(b, err);
			return 0;
		}
		zka_pipe_log(prog, "job %lld: given back: %s", (long long)j->l.id, j->reason);
		return 1;
	}
	struct zka_cluster_result res = {.reason = j->reason[0] ? j->reason : NULL,
					 .proof = j->proof,
					 .public_json = j->pub,
					 .t_start = j->t_start,
					 .synth_s = j->synth_s,
					 .prove_s = j->prove_s};
	int r = zka_cluster_finish(b->db, b->node, j->l.id, j->l.token, &res, err, sizeof err);
	if (r == -ENOTCONN) {
		db_down(b, err);
		return 0;
	}
	if (r == -ESTALE) {
		b->refused++;
		zka_pipe_log(prog, "job %lld: result refused, lease %lld no longer ours",
			     (long long)j->l.id, (long long)j->l.token);
	} else if (r) {
		zka_pipe_log(prog, "job %lld: cannot write the outcome: %s", (long long)j->l.id,
			     err);
		return 0;
	} else if (res.reason) {
		b->failed++;
		zka_pipe_log(prog, "job %lld FAILED: %s", (long long)j->l.id, j->reason);
	} else {
		b->done++;
	}
	return 1;
}

static void renew(struct bridge *b)
{
	if (!b->n)
		return;
	int64_t ids[b->n], toks[b->n];
	int held[b->n];
	for (int i = 0; i < b->n; i++) {
		ids[i] = b->jobs[i].l.id;
		toks[i] = b->jobs[i].l.token;
	}
	char err[512];
	int r =
	    zka_cluster_renew(b->db, b->node, b->lease_ms, b->n, ids, toks, held, err, sizeof err);
	if (r == -ENOTCONN) {
		db_down(b, err);
		return;
	}
	if (r < 0)
		return;
	/* a lost lease belongs to someone else now: stop its work, write nothing */
	for (int i = b->n - 1; i >= 0; i--) {
		if (held[i])
			continue;
		zka_pipe_log(prog,
			     "job %lld: lease %lld lost (expired and taken over); dropping it",
			     (long long)ids[i], (long long)toks[i]);
		b->lost++;
		for (int x = 0; x < b->n; x++)
			if (b->jobs[x].l.token == toks[i]) {
				drop(b, x);
				break;
			}
	}
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: zkarena bridge --db URL --arena NAME [--node NAME] [--capacity N] [--lease S]\n"
	    "                      [--work DIR]\n"
	    "       zkarena bridge --status --arena NAME\n\n"
	    "Runs one node's side of a cluster: leases queued jobs from the database at URL (as\n"
	    "many as the node has room for: --capacity, default twice the arena's slots), runs\n"
	    "them in arena NAME (whose pipeline `zkarena run NAME` must be running) and writes\n"
	    "each outcome back in one transaction. Leases last --lease seconds (default 10) and\n"
	    "are renewed every third of that; a lease that lapses goes back to the queue and a\n"
	    "late result is refused. --node names this bridge in the database (default\n"
	    "HOST/NAME; a restarted bridge gives back what its predecessor of the same name "
	    "held).\n"
	    "--work DIR holds the jobs' outputs until written (default /tmp/zkarena-bridge-NAME).\n"
	    "When the database is unreachable it retries with backoff (100 ms to 5 s) and says so\n"
	    "in its status file, which --status prints. Stops on SIGTERM/SIGINT, giving its\n"
	    "unfinished leases back. exit status: 0 stopped; 2 bad usage, bad URL or schema.\n");
}

int zka_cmd_bridge(int argc, char **argv)
{
	static const struct option opts[] = {{"db", required_argument, 0, 'd'},
					     {"arena", required_argument, 0, 'a'},
					     {"node", required_argument, 0, 'n'},
					     {"capacity", required_argument, 0, 'c'},
					     {"lease", required_argument, 0, 'l'},
					     {"work", required_argument, 0, 'w'},
					     {"status", no_argument, 0, 's'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	struct bridge B = {.capacity = 0, .lease_ms = 10000}, *b = &B;
	const char *url = NULL;
	int opt, show = 0, lease_s = 10;
	char node[300], work[PATH_MAX];
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			url = optarg;
			break;
		case 'a':
			b->arena_name = optarg;
			break;
		case 'n':
			b->node = optarg;
			break;
		case 'c':
			if (zka_opt_int(prog, "--capacity", optarg, 1, 4096, &b->capacity))
				return 2;
			break;
		case 'l':
			if (zka_opt_int(prog, "--lease", optarg, 1, 3600, &lease_s))
				return 2;
			break;
		case 'w':
			b->work = optarg;
			break;
		case 's':
			show = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(
			    stderr,
			    "zkarena bridge: unknown option or missing value: '%s' (see zkarena "
			    "bridge --help)\n",
			    optind > 0 && optind <= argc ? argv[optind - 1] : "?");
			return 2;
		}
	}
	b->lease_ms = lease_s * 1000;
	if (optind != argc || !b->arena_name || (!url && !show)) {
		fprintf(stderr, "%s: expected --db URL --arena NAME (see --help)\n", prog);
		return 2;
	}
	char shm[ZKA_NAME_MAX + 16];
	if (zka_arena_shm_name(b->arena_name, shm, sizeof shm)) {
		fprintf(stderr, "%s: --arena: '%s' is not a valid arena name\n", prog,
			b->arena_name);
		return 2;
	}
	snprintf(b->status_path, sizeof b->status_path, "/dev/shm/zkarena-%s.bridge-status",
		 b->arena_name);
	if (show) {
		char *s = slurp(b->status_path);
		if (!s) {
			fprintf(stderr, "%s: arena %s: no bridge has run on it\n", prog,
				b->arena_name);
			return 2;
		}
		fputs(s, stdout);
		free(s);
		return 0;
	}
	if (!b->node) {
		char host[256] = "localhost";
		gethostname(host, sizeof host - 1);
		snprintf(node, sizeof node, "%s/%s", host, b->arena_name);
		b->node = node;
	}
	if (!b->work) {
		snprintf(work, sizeof work, "/tmp/zkarena-bridge-%s", b->arena_name);
		b->work = work;
	}
	if (mkdir(b->work, 0700) && errno != EEXIST) {
		fprintf(stderr, "%s: --work: %s: %s\n", prog, b->work, strerror(errno));
		return 2;
	}
	char wabs[PATH_MAX];
	if (!realpath(b->work, wabs)) {
		fprintf(stderr, "%s: --work: %s: %s\n", prog, b->work, strerror(errno));
		return 2;
	}
	b->work = wabs;

	char err[512];
	int rc = zka_cluster_open(url, 0, &b->db, err, sizeof err);
	if (rc && rc != -ECONNREFUSED) {
		fprintf(stderr, "%s: --db: %s\n", prog, err);
		return 2;
	}
	int status = 2;
	b->a = zka_pipe_attach(prog, b->arena_name, ZKA_OPEN_NORECOVER);
	if (!b->a)
		goto err;
	struct zka_arena_geometry g;
	zka_arena_geometry(b->a, &g);
	if (!b->capacity)
		b->capacity = (int)g.nslots * 2;
	if ((uint32_t)b->capacity > g.njobs / 2)
		b->capacity = (int)(g.njobs / 2 ? g.njobs / 2 : 1);
	if (!(b->jobs = calloc((size_t)b->capacity, sizeof *b->jobs)))
		goto err;
	signal(SIGTERM, on_stop);
	signal(SIGINT, on_stop);
	signal(SIGPIPE, SIG_IGN);
	if (rc == -ECONNREFUSED)
		db_down(b, err);
	int fresh = 1; /* the first connection gives back our predecessor's leases */
	double now = mono(), next_reap = 0, next_beat = 0, next_claim = 0, next_status = 0,
	       next_sweep = 0;
	if (!rc)
		zka_pipe_log(prog, "node %s on arena %s: capacity %d, lease %d s, PostgreSQL %s",
			     b->node, b->arena_name, b->capacity, lease_s,
			     zka_cluster_server_version(b->db));
	int woken = 1, fatal = 0;
	while (!stopping) {
		now = mono();
		if (b->down_since > 0 && now >= b->next_retry) {
			b->retries++;
			rc = zka_cluster_reconnect(b->db, err, sizeof err);
			if (rc == -ENOENT || rc == -EPROTO || rc == -EINVAL) {
				fprintf(stderr, "%s: --db: %s\n", prog, err);
				fatal = 1;
				break;
			}
			if (rc) {
				db_down(b, err);
			} else {
				zka_pipe_log(prog, "database back after %.1f s (%ld retries)",
					     now - b->down_since, b->retries);
				b->outages += !fresh;
				b->down_since = 0;
				next_beat = next_reap = next_claim = 0;
				woken = 1;
			}
		}
		if (b->down_since == 0) {
			if (fresh) {
				if (zka_cluster_listen(b->db, "zka_queued", err, sizeof err) ==
				    -ENOTCONN) {
					db_down(b, err);
					continue;
				}
				int k = zka_cluster_release_node(b->db, b->node, err, sizeof err);
				if (k == -ENOTCONN) {
					db_down(b, err);
					continue;
				}
				if (k > 0)
					zka_pipe_log(
					    prog,
					    "gave back %d lease(s) of this node's previous bridge",
					    k);
				fresh = 0;
			}
			if (now >= next_reap) {
				rc = zka_cluster_reap(b->db, err, sizeof err);
				if (rc > 0)
					woken = 1;
				next_reap = now + b->lease_ms / 4000.0;
			}
			if (now >= next_beat) {
				renew(b);
				beat(b);
				next_beat = now + b->lease_ms / 3000.0;
			}
			if (b->down_since == 0 && b->n < b->capacity &&
			    (woken || now >= next_claim)) {
				struct zka_cluster_lease ls[b->capacity - b->n];
				int k = zka_cluster_claim(b->db, b->node, b->capacity - b->n,
							  b->lease_ms, ls, err, sizeof err);
				if (k == -ENOTCONN)
					db_down(b, err);
				for (int i = 0; i < k; i++)
					start(b, &ls[i]);
				/* a full batch may mean more are queued: claim again next turn */
				woken = k > 0 && k == (int)(sizeof ls / sizeof ls[0]);
				next_claim = now + 1.0;
			}
		}
		for (int i = b->n - 1; i >= 0; i--) {
			if (!b->jobs[i].ready && b->jobs[i].aid)
				collect(b, i);
			if (b->jobs[i].ready && b->down_since == 0 && write_back(b, i))
				drop(b, i);
		}
		if (now >= next_sweep) {
			sweep(b);
			next_sweep = now + 2.0;
		}
		if (now >= next_status) {
			write_status(b);
			next_status = now + 1.0;
		}
		/* sleep: on the oldest arena job's futex (a completion wakes us) or on the socket
		 */
		int waiting = -1;
		for (int i = 0; i < b->n; i++)
			if (!b->jobs[i].ready && b->jobs[i].aid)
				waiting = i;
		if (b->down_since > 0) {
			sleep_ms(waiting >= 0 ? 5 : 50);
		} else if (waiting >= 0) {
			struct zka_job_info ji;
			zka_job_wait(b->a, b->jobs[waiting].aid, 5, &ji);
			if (zka_cluster_poll(b->db, 0, NULL) > 0)
				woken = 1;
		} else {
			int k = zka_cluster_poll(b->db, 100, NULL);
			if (k > 0)
				woken = 1;
			else if (k == -ENOTCONN)
				db_down(b, "connection lost while listening");
		}
	}
	/* stopping: give unfinished leases back, write what is ready */
	for (int i = b->n - 1; i >= 0; i--) {
		if (b->down_since == 0) {
			if (b->jobs[i].ready)
				write_back(b, i);
			else
				zka_cluster_release(b->db, b->node, b->jobs[i].l.id,
						    b->jobs[i].l.token, "the bridge stopped", NULL,
						    0);
		}
		drop(b, i);
	}
	if (b->down_since == 0)
		beat(b);
	write_status(b);
	zka_pipe_log(prog, "stopped: done %ld, failed %ld, refused %ld, leases lost %ld", b->done,
		     b->failed, b->refused, b->lost);
	status = fatal ? 2 : 0;
err:
	free(b->jobs);
	zka_arena_close(b->a);
	zka_cluster_close(b->db);
	return status;
}
