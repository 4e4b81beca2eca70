/* cluster_lease.c - the lease protocol of cluster/zka_cluster.h against a real PostgreSQL
 * server (the database at $ZKA_TEST_DB, started by tests/cluster/unit.sh): claims, tokens,
 * renewal, expiry and reaping, refused late results, request ids, priorities, attempts used
 * up, concurrent claimers never sharing a job, bad URLs and schema versions. */
#include "cluster/zka_cluster.h"
#include "tests/testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *url;
static struct zka_cluster *db;
static char tag[32]; /* makes this run's request ids unique */

static void msleep(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* Claims everything queued (earlier tests' leftovers) and fails it, so that each test sees
 * only its own jobs. */
static void drain(void)
{
	struct zka_cluster_lease l[64];
	int k;
	while ((k = zka_cluster_claim(db, "drain", 64, 10000, l, NULL, 0)) > 0)
		for (int i = 0; i < k; i++) {
			struct zka_cluster_result r = {
			    .reason = "drained", .synth_s = -1, .prove_s = -1};
			zka_cluster_finish(db, "drain", l[i].id, l[i].token, &r, NULL, 0);
		}
}

static int64_t submit(const char *rid, int prio, int max_attempts)
{
	char r[64];
	if (rid)
		snprintf(r, sizeof r, "%s-%s", tag, rid);
	struct zka_cluster_spec s = {.circuit = "/k.zkey",
				     .witness = "/w.wtns",
				     .out_dir = "/tmp",
				     .request_id = rid ? r : NULL,
				     .priority = prio,
				     .max_attempts = max_attempts};
	int64_t id = 0;
	int existed;
	CU_ASSERT_EQUAL_FATAL(zka_cluster_submit(db, &s, &id, &existed, NULL, 0), 0);
	return id;
}

static const struct zka_cluster_result done_res = {
    .proof = "{\"p\":1}", .public_json = "[\"7\"]", .synth_s = 0.001, .prove_s = 0.002};

static void test_stolen_lease_refused(void)
{
	drain();
	int64_t id = submit(NULL, 0, 3);
	struct zka_cluster_lease a, b;
	CU_ASSERT_EQUAL_FATAL(zka_cluster_claim(db, "n1", 1, 150, &a, NULL, 0), 1);
	CU_ASSERT_EQUAL(a.id, id);
	CU_ASSERT_EQUAL(a.attempts, 1);
	/* nobody else can claim it while leased; the reaper leaves an unexpired lease alone */
	CU_ASSERT_EQUAL(zka_cluster_claim(db, "n2", 1, 150, &b, NULL, 0), 0);
	CU_ASSERT_EQUAL(zka_cluster_reap(db, NULL, 0), 0);
	msleep(300);
	CU_ASSERT_EQUAL(zka_cluster_reap(db, NULL, 0), 1);
	CU_ASSERT_EQUAL_FATAL(zka_cluster_claim(db, "n2", 1, 10000, &b, NULL, 0), 1);
	CU_ASSERT_EQUAL(b.id, id);
	CU_ASSERT_NOT_EQUAL(b.token, a.token);
	CU_ASSERT_EQUAL(b.attempts, 2);
	/* the old holder: its renewal finds the lease gone, its result is refused */
	int held = 1;
	CU_ASSERT_EQUAL(zka_cluster_renew(db, "n1", 10000, 1, &a.id, &a.token, &held, NULL, 0), 0);
	CU_ASSERT_EQUAL(held, 0);
	char err[512] = "";
	CU_ASSERT_EQUAL(zka_cluster_finish(db, "n1", a.id, a.token, &done_res, err, sizeof err),
			-ESTALE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "refused"));
	/* even with the right token, another node name is refused */
	CU_ASSERT_EQUAL(zka_cluster_finish(db, "n1", b.id, b.token, &done_res, NULL, 0), -ESTALE);
	CU_ASSERT_EQUAL(zka_cluster_renew(db, "n2", 10000, 1, &b.id, &b.token, &held, NULL, 0), 1);
	CU_ASSERT_EQUAL(held, 1);
	CU_ASSERT_EQUAL(zka_cluster_finish(db, "n2", b.id, b.token, &done_res, NULL, 0), 0);
	/* DONE is terminal: a second finish, a release or a reap changes nothing */
	CU_ASSERT_EQUAL(zka_cluster_finish(db, "n2", b.id, b.token, &done_res, NULL, 0), -ESTALE);
	CU_ASSERT_EQUAL(zka_cluster_release(db, "n2", b.id, b.token, "x", NULL, 0), -ESTALE);
	struct zka_cluster_job j;
	CU_ASSERT_EQUAL_FATAL(zka_cluster_job_get(db, id, 1, &j, NULL, 0), 0);
	CU_ASSERT_EQUAL(j.state, ZKA_CL_DONE);
	CU_ASSERT_STRING_EQUAL(j.done_by, "n2");
	CU_ASSERT_STRING_EQUAL(j.lease_owner, "");
	CU_ASSERT_EQUAL(j.lease_token, 0);
	CU_ASSERT_EQUAL(j.expired, 1);
	CU_ASSERT_STRING_EQUAL(j.proof, done_res.proof);
	CU_ASSERT_STRING_EQUAL(j.public_json, done_res.public_json);
	zka_cluster_job_free(&j);
}

static void test_late_finish_before_reap(void)
{
	/* an expired lease nobody has reaped yet is still the holder's (invariant C4) */
	drain();
	int64_t id = submit(NULL, 0, 3);
	struct zka_cluster_lease a;
	CU_ASSERT_EQUAL_FATAL(zka_cluster_claim(db, "n1", 1, 50, &a, NULL, 0), 1);
	msleep(150);
	CU_ASSERT_EQUAL(zka_cluster_finish(db, "n1", a.id, a.token, &done_res, NULL, 0), 0);
	CU_ASSERT_EQUAL(zka_cluster_reap(db, NULL, 0), 0);
	struct zka_cluster_job j;
	CU_ASSERT_EQUAL_FATAL(zka_cluster_job_get(db, id, 0, &j, NULL, 0), 0);
	CU_ASSERT_EQUAL(j.state, ZKA_CL_DONE);
	CU_ASSERT_EQUAL(j.expired, 0);
}

static void test_request_id(void)
{
	drain();
	int64_t a = submit("dup", 0, 3);
	char r[64];
	snprintf(r, sizeof r, "%s-dup", tag);
	struct zka_cluster_spec s = {
	    .circuit = "/other.zkey", .witness = "/w", .out_dir = "/tmp", .request_id = r};
	int64_t b = 0;
	int existed = 0;
	CU_ASSERT_EQUAL(zka_cluster_submit(db, &s, &b, &existed, NULL, 0), 0);
	CU_ASSERT_EQUAL(b, a);
	CU_ASSERT_EQUAL(existed, 1);
	struct zka_cluster_job j;
	CU_ASSERT_EQUAL_FATAL(zka_cluster_job_get(db, a, 0, &j, NULL, 0), 0);
	CU_ASSERT_STRING_EQUAL(j.circuit, "/k.zkey"); /* the first submit's */
	long cnt[5];
	CU_ASSERT_EQUAL(zka_cluster_counts(db, cnt, NULL, 0), 0);
	CU_ASSERT_EQUAL(cnt[ZKA_CL_QUEUED], 1);
}

static void test_priority_and_batch(void)
{
	drain();
	int64_t lo = submit(NULL, -5, 3), mid = submit(NULL, 0, 3), hi = submit(NULL, 9, 3);
	int64_t mid2 = submit(NULL, 0, 3);
	struct zka_cluster_lease l[8];
	CU_ASSERT_EQUAL_FATAL(zka_cluster_claim(db, "n1", 3, 10000, l, NULL, 0), 3);
	CU_ASSERT_EQUAL(l[0].id, hi);
	CU_ASSERT_EQUAL(l[1].id, mid);
	CU_ASSERT_EQUAL(l[2].id, mid2);
	CU_ASSERT(l[0].token != l[1].token && l[1].token != l[2].token);
	CU_ASSERT_EQUAL_FATAL(zka_cluster_claim(db, "n1", 8, 10000, l + 3, NULL, 0), 1);
	CU_ASSERT_EQUAL(l[3].id, lo);
	/* a restarted bridge of the same name gives its predecessor's leases back */
	CU_ASSERT_EQUAL(zka_cluster_release_node(db, "n1", NULL, 0), 4);
	long cnt[5];
	CU_ASSERT_EQUAL(zka_cluster_counts(db, cnt, NULL, 0), 0);
	CU_ASSERT_EQUAL(cnt[ZKA_CL_QUEUED], 4);
	CU_ASSERT_EQUAL(cnt[ZKA_CL_LEASED], 0);
}

static void test_attempts_used_up(void)
{
	drain();
	int64_t id = submit(NULL, 0, 2);
	struct zka_cluster_lease l;
	for (int k = 1; k <= 2; k++) {
		CU_ASSERT_EQUAL_FATAL(zka_cluster_claim(db, "n1", 1, 50, &l, NULL, 0), 1);
		CU_ASSERT_EQUAL(l.attempts, k);
		msleep(120);
		CU_ASSERT_EQUAL(zka_cluster_reap(db, NULL, 0), 1);
	}
	struct zka_cluster_job j;
	CU_ASSERT_EQUAL_FATAL(zka_cluster_job_get(db, id, 0, &j, NULL, 0), 0);
	CU_ASSERT_EQUAL(j.state, ZKA_CL_FAILED);
	CU_ASSERT_PTR_NOT_NULL(strstr(j.reason, "gave up after 2 leases"));
	CU_ASSERT_EQUAL(zka_cluster_claim(db, "n1", 1, 50, &l, NULL, 0), 0);
	/* wait sees FAILED at once */
	CU_ASSERT_EQUAL(zka_cluster_wait(db, id, 1000, &j, NULL, 0), 1);
	zka_cluster_job_free(&j);
}

static void test_wait_notified(void)
{
	drain();
	int64_t id = submit(NULL, 0, 3);
	pid_t p = fork();
	if (p == 0) {
		struct zka_cluster *c;
		if (zka_cluster_open(url, 0, &c, NULL, 0))
			_exit(9);
		struct zka_cluster_lease l;
		msleep(300);
		int k = zka_cluster_claim(c, "n3", 1, 10000, &l, NULL, 0);
		int r = k == 1 ? zka_cluster_finish(c, "n3", l.id, l.token, &done_res, NULL, 0) : 1;
		zka_cluster_close(c);
		_exit(r ? 8 : 0);
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct zka_cluster_job j;
	CU_ASSERT_EQUAL(zka_cluster_wait(db, id, 100, &j, NULL, 0), -ETIMEDOUT);
	zka_cluster_job_free(&j);
	CU_ASSERT_EQUAL(zka_cluster_wait(db, id, 10000, &j, NULL, 0), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	/* woken by the notification, not by the 3 s safety re-read */
	CU_ASSERT(s < 2.0);
	CU_ASSERT_STRING_EQUAL(j.done_by, "n3");
	zka_cluster_job_free(&j);
	int st;
	waitpid(p, &st, 0);
	CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	int64_t none = 0x7fffffff;
	CU_ASSERT_EQUAL(zka_cluster_wait(db, none, 100, &j, NULL, 0), -ESRCH);
}

static void test_concurrent_claims(void)
{
	/* 4 processes claim 100 jobs in batches of 3 and finish each: every job exactly once */
	drain();
	enum { NJOBS = 100, NPROC = 4 };
	int64_t ids[NJOBS];
	for (int i = 0; i < NJOBS; i++)
		ids[i] = submit(NULL, 0, 3);
	pid_t pids[NPROC];
	for (int w = 0; w < NPROC; w++) {
		if ((pids[w] = fork()) == 0) {
			struct zka_cluster *c;
			char node[16];
			snprintf(node, sizeof node, "w%d", w);
			if (zka_cluster_open(url, 0, &c, NULL, 0))
				_exit(255);
			struct zka_cluster_lease l[3];
			int k, bad = 0, done = 0;
			while ((k = zka_cluster_claim(c, node, 3, 10000, l, NULL, 0)) > 0)
				for (int i = 0; i < k; i++) {
					int r = zka_cluster_finish(c, node, l[i].id, l[i].token,
								   &done_res, NULL, 0);
					bad |= r != 0;
					done += r == 0;
				}
			zka_cluster_close(c);
			_exit(k < 0 || bad ? 255 : done); /* the number this worker finished */
		}
	}
	int sum = 0;
	for (int w = 0; w < NPROC; w++) {
		int st;
		waitpid(pids[w], &st, 0);
		CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) != 255);
		sum += WIFEXITED(st) ? WEXITSTATUS(st) : 1000;
	}
	CU_ASSERT_EQUAL(sum, NJOBS);
	for (int i = 0; i < NJOBS; i++) {
		struct zka_cluster_job j;
		CU_ASSERT_EQUAL_FATAL(zka_cluster_job_get(db, ids[i], 0, &j, NULL, 0), 0);
		CU_ASSERT_EQUAL(j.state, ZKA_CL_DONE);
		CU_ASSERT_EQUAL(j.attempts, 1); /* never leased twice */
		CU_ASSERT(j.done_by[0] == 'w');
	}
}

static void test_bad_url_and_schema(void)
{
	struct zka_cluster *c = NULL;
	char err[512];
	CU_ASSERT_EQUAL(zka_cluster_open("postgresql://[bad", 0, &c, err, sizeof err), -EINVAL);
	CU_ASSERT_PTR_NULL(c);
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	CU_ASSERT_EQUAL(zka_cluster_open("host=/nonexistent-dir", 0, &c, err, sizeof err),
			-ECONNREFUSED);
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	zka_cluster_close(c);
	int from = -1;
	CU_ASSERT_EQUAL(zka_cluster_init(db, &from, NULL, 0), 0);
	CU_ASSERT_EQUAL(from, ZKA_CLUSTER_SCHEMA);
}

int main(void)
{
	url = getenv("ZKA_TEST_DB");
	if (!url || !*url) {
		fprintf(stderr, "cluster_lease: set ZKA_TEST_DB (tests/cluster/unit.sh does)\n");
		return 1;
	}
	snprintf(tag, sizeof tag, "%llx", (unsigned long long)zka_test_rand64());
	char err[512];
	int from;
	if (zka_cluster_open(url, ZKA_CLUSTER_NOSCHEMA, &db, err, sizeof err) ||
	    zka_cluster_init(db, &from, err, sizeof err)) {
		fprintf(stderr, "cluster_lease: %s\n", err);
		return 1;
	}
	static const zka_test_case cases[] = {
	    {"a stolen lease's late result is refused", test_stolen_lease_refused},
	    {"an expired, unreaped lease may still finish", test_late_finish_before_reap},
	    {"a repeated request id returns the first job", test_request_id},
	    {"priority order, batches, release of a node", test_priority_and_batch},
	    {"attempts used up: FAILED", test_attempts_used_up},
	    {"wait is woken by NOTIFY", test_wait_notified},
	    {"4 concurrent claimers: each job once", test_concurrent_claims},
	    {"bad URL, unreachable, init again", test_bad_url_and_schema},
	    {NULL, NULL}};
	zka_test_suite("cluster_lease", cases);
	int r = zka_test_run();
	zka_cluster_close(db);
	return r;
}
