/* cluster.c - jobs across proving nodes through PostgreSQL: schema, submit, lease, finish.
 *
 * ==== Design notes ====
 *
 * Objects. One PostgreSQL database (any that libpq reaches; tests use a throwaway cluster):
 *   zka_schema  one row: the schema version (ZKA_CLUSTER_SCHEMA). Migrations are SQL steps
 *               numbered 1..N, applied in order under an advisory lock, each idempotent
 *               (IF NOT EXISTS), so `cluster init` may run any number of times, concurrently.
 *   zka_jobs    one row per job: request_id (UNIQUE, the idempotency key), priority, circuit
 *               (key path; a URI later), witness, out_dir, state, lease (owner, token,
 *               expires), attempts/max_attempts, expired (leases that ran out), timings
 *               (t_submit, t_claim, t_start, t_done, synth_s, prove_s), reason, done_by and,
 *               once DONE, the text of proof.json and public.json.
 *   zka_nodes   one row per bridge name: arena, capacity, in flight, pid, heartbeat, status.
 *   zka_events  append-only: (job, kind, node, token, time) for every submit, claim, done,
 *               failed, expired, released and refused transition; it is how tests prove that
 *               each job was DONE exactly once and how `bench cluster` times a claim.
 *   zka_lease_token  a sequence: every lease gets a fresh token, never reused.
 *
 * State word. A job's state is (state, lease_owner, lease_token, lease_expires); CHECK
 * constraints keep the lease columns non-NULL exactly when the state is LEASED, and a DONE row
 * always holds its proof. Every transition is one SQL statement (one implicit transaction),
 * so a client that dies mid-call leaves either the old row or the new one.
 *
 * Job states:
 *   QUEUED -> LEASED(node, token, expires) -> DONE | FAILED(reason)
 *   LEASED(token) -> LEASED(token, later expiry)          (heartbeat)
 *   LEASED(expired) -> QUEUED | FAILED (attempts used up)  (anyone)
 *   LEASED(node) -> QUEUED                                 (node restarted, or released)
 *
 * Transition table (function: transition [notification]):
 *   zka_cluster_submit        (none) -> QUEUED; an existing request_id inserts nothing
 *                             [zka_queued]
 *   zka_cluster_claim         QUEUED -> LEASED(node, fresh token, now + lease), attempts + 1;
 *                             rows chosen by SELECT ... FOR UPDATE SKIP LOCKED
 *   zka_cluster_renew         LEASED(node, token) -> LEASED(node, token, now + lease)
 *   zka_cluster_finish        LEASED(node, token) -> DONE(proof) | FAILED(reason) [zka_done];
 *                             any other row: nothing written, a "refused" event
 *   zka_cluster_release       LEASED(node, token) -> QUEUED | FAILED (attempts used up)
 *   zka_cluster_release_node  LEASED(node, *) -> QUEUED | FAILED           [zka_queued]
 *   zka_cluster_reap          LEASED(*, expired) -> QUEUED | FAILED   [zka_queued, zka_done]
 *
 * Invariants:
 *   C1. A row is LEASED iff it has a lease owner, token and expiry (CHECK constraints).
 *   C2. Tokens come from one sequence, so no two leases (of any jobs, ever) share a token.
 *       A lease is named by (id, token) and holds exactly while the row is LEASED with that
 *       token; every bridge-side write (renew, finish, release) is conditional on it.
 *   C3. DONE and FAILED are terminal: no statement has them in its WHERE clause as a "from"
 *       state. With C2, a job becomes DONE at most once, and only by the holder of its lease
 *       at that moment: a late holder whose lease was reaped and granted again finds another
 *       token (or a terminal row) and gets -ESTALE; its result is never written.
 *   C4. An expired lease is still valid until someone reaps it: the row lock of the UPDATE
 *       orders a late finish and the reaper, and whichever comes second sees the other's row
 *       (READ COMMITTED re-checks the WHERE clause), so a job is never both requeued and DONE.
 *   C5. Claims skip rows locked by other claims (SKIP LOCKED), so concurrent bridges never
 *       wait on each other nor lease one job twice.
 *   C6. attempts counts leases granted; a lease that ends without a result (expiry, release,
 *       node restart) requeues the job only while attempts < max_attempts, so a job that
 *       kills every node it lands on ends FAILED instead of circulating forever.
 *   C7. Notifications are sent from the statement that makes the change, so they are
 *       delivered at its commit, never before; a listener that misses one (reconnecting)
 *       re-reads the row, so a lost notification costs latency, never a hang.
 */
#include "cluster/zka_cluster.h"

#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct zka_cluster {
	PGconn *pg;
	char *url;
	int connected, flags;
	int listen_queued, listen_done;
	char version[64];
};

static const char *const migrations[] = {
    /* 1: the first schema */
    "CREATE SEQUENCE IF NOT EXISTS zka_lease_token;"
    "CREATE TABLE IF NOT EXISTS zka_jobs ("
    " id bigserial PRIMARY KEY,"
    " request_id text UNIQUE,"
    " priority integer NOT NULL DEFAULT 0,"
    " circuit text NOT NULL,"
    " witness text NOT NULL,"
    " out_dir text NOT NULL,"
    " state text NOT NULL DEFAULT 'QUEUED'"
    "  CHECK (state IN ('QUEUED', 'LEASED', 'DONE', 'FAILED')),"
    " lease_owner text, lease_token bigint, lease_expires timestamptz,"
    " attempts integer NOT NULL DEFAULT 0,"
    " max_attempts integer NOT NULL DEFAULT 3 CHECK (max_attempts >= 1),"
    " expired integer NOT NULL DEFAULT 0,"
    " t_submit timestamptz NOT NULL DEFAULT clock_timestamp(),"
    " t_claim timestamptz, t_start timestamptz, t_done timestamptz,"
    " synth_s double precision, prove_s double precision,"
    " reason text, done_by text, proof text, public text,"
    " CHECK ((state = 'LEASED') = (lease_token IS NOT NULL)),"
    " CHECK ((state = 'LEASED') = (lease_owner IS NOT NULL AND lease_expires IS NOT NULL)),"
    " CHECK (state <> 'DONE' OR (proof IS NOT NULL AND public IS NOT NULL)));"
    "CREATE INDEX IF NOT EXISTS zka_jobs_queued ON zka_jobs (priority DESC, id)"
    " WHERE state = 'QUEUED';"
    "CREATE INDEX IF NOT EXISTS zka_jobs_leased ON zka_jobs (lease_expires)"
    " WHERE state = 'LEASED';"
    "CREATE TABLE IF NOT EXISTS zka_nodes ("
    " name text PRIMARY KEY, arena text, capacity integer, inflight integer, pid integer,"
    " host text, started timestamptz, heartbeat timestamptz, status text,"
    " db_outages bigint NOT NULL DEFAULT 0);"
    "CREATE TABLE IF NOT EXISTS zka_events ("
    " seq bigserial PRIMARY KEY, job_id bigint NOT NULL, kind text NOT NULL, node text,"
    " token bigint, at timestamptz NOT NULL DEFAULT clock_timestamp(), detail text);"
    "CREATE INDEX IF NOT EXISTS zka_events_job ON zka_events (job_id);",
};
_Static_assert(sizeof migrations / sizeof migrations[0] == ZKA_CLUSTER_SCHEMA,
	       "one migration per schema version");

static void quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg; /* "relation ... already exists, skipping" and the like */
}

static void seterr(char *err, size_t n, const char *fmt, const char *a, const char *b)
{
	if (!err || !n)
		return;
	snprintf(err, n, fmt, a, b ? b : "");
	/* libpq messages end in a newline (some span lines): keep one line */
	for (char *p = err; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = p[1] ? ' ' : 0;
}

const char *zka_cluster_state_name(int s)
{
	static const char *const names[] = {"?", "QUEUED", "LEASED", "DONE", "FAILED"};
	return s >= 1 && s <= 4 ? names[s] : "?";
}

static int state_of(const char *s)
{
	for (int i = 1; i <= 4; i++)
		if (!strcmp(s, zka_cluster_state_name(i)))
			return i;
	return 0;
}

/* Runs one statement; returns its result (caller clears) or NULL with *rc and err set. A
 * lost connection is -ENOTCONN and marks the handle disconnected. */
static PGresult *run(struct zka_cluster *c, const char *sql, int np, const char *const *p, int *rc,
		     char *err, size_t n)
{
	if (!c->connected || !c->pg) {
		*rc = -ENOTCONN;
		seterr(err, n, "%s%s", "database connection lost", NULL);
		return NULL;
	}
	/* without parameters, PQexec (several statements allowed: migrations) */
	PGresult *r =
	    np ? PQexecParams(c->pg, sql, np, NULL, p, NULL, NULL, 0) : PQexec(c->pg, sql);
	ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
	if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK)
		return r;
	const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	if (PQstatus(c->pg) != CONNECTION_OK || !state || !strncmp(state, "08", 2) ||
	    !strncmp(state, "57P", 3)) {
		c->connected = 0;
		*rc = -ENOTCONN;
		seterr(err, n, "database connection lost: %s%s", PQerrorMessage(c->pg), NULL);
	} else if (!strcmp(state, "42P01") || !strcmp(state, "42703")) {
		*rc = -ENOENT; /* undefined table / column: no (or another) schema */
		seterr(err, n, "%s%s", PQresultErrorMessage(r), NULL);
	} else {
		*rc = -EIO;
		seterr(err, n, "database: %s%s", PQresultErrorMessage(r), NULL);
	}
	PQclear(r);
	return NULL;
}

/* Runs a statement whose result is not needed. */
static int exec0(struct zka_cluster *c, const char *sql, char *err, size_t n)
{
	int rc = 0;
	PGresult *r = run(c, sql, 0, NULL, &rc, err, n);
	PQclear(r);
	return rc;
}

static int connect_pg(struct zka_cluster *c, char *err, size_t n)
{
	if (c->pg)
		PQfinish(c->pg);
	c->connected = 0;
	c->version[0] = 0;
	/* URL settings come after ours, so a connect_timeout in the URL wins */
	const char *const keys[] = {"connect_timeout", "application_name", "dbname", NULL};
	const char *const vals[] = {"5", "zkarena", c->url, NULL};
	c->pg = PQconnectdbParams(keys, vals, 1);
	if (!c->pg || PQstatus(c->pg) != CONNECTION_OK) {
		seterr(err, n, "database unreachable: %s%s",
		       c->pg ? PQerrorMessage(c->pg) : "out of memory", NULL);
		return -ECONNREFUSED;
	}
	PQsetNoticeProcessor(c->pg, quiet, NULL);
	c->connected = 1;
	int v = PQserverVersion(c->pg);
	snprintf(c->version, sizeof c->version, "%d.%d", v / 10000, v % 10000);
	if (c->listen_queued && exec0(c, "LISTEN zka_queued", err, n))
		return -ENOTCONN;
	if (c->listen_done && exec0(c, "LISTEN zka_done", err, n))
		return -ENOTCONN;
	return 0;
}

static int check_schema(struct zka_cluster *c, char *err, size_t n)
{
	int rc = 0;
	PGresult *r = run(c, "SELECT max(version) FROM zka_schema", 0, NULL, &rc, err, n);
	if (!r) {
		if (rc == -ENOENT)
			seterr(
			    err, n,
			    "no zkarena schema in this database (run `zkarena cluster init`)%s%s",
			    "", NULL);
		return rc;
	}
	int v = PQgetisnull(r, 0, 0) ? 0 : atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	if (v == 0) {
		seterr(err, n,
		       "no zkarena schema in this database (run `zkarena cluster init`)%s%s", "",
		       NULL);
		return -ENOENT;
	}
	if (v != ZKA_CLUSTER_SCHEMA) {
		char a[16], b[16];
		snprintf(a, sizeof a, "%d", v);
		snprintf(b, sizeof b, "%d", ZKA_CLUSTER_SCHEMA);
		seterr(
		    err, n,
		    "schema version mismatch: the database has version %s, this zkarena speaks %s",
		    a, b);
		return -EPROTO;
	}
	return 0;
}

int zka_cluster_open(const char *url, int flags, struct zka_cluster **out, char *err, size_t n)
{
	*out = NULL;
	char *perr = NULL;
	PQconninfoOption *o = PQconninfoParse(url, &perr);
	if (!o) {
		seterr(err, n, "bad database URL: %s%s", perr ? perr : "out of memory", NULL);
		PQfreemem(perr);
		return -EINVAL;
	}
	PQconninfoFree(o);
	struct zka_cluster *c = calloc(1, sizeof *c);
	int rc = -ENOMEM;
	if (!c || !(c->url = strdup(url)))
		goto err;
	c->flags = flags;
	rc = connect_pg(c, err, n);
	if (rc == -ECONNREFUSED) {
		*out = c; /* the caller may retry */
		return rc;
	}
	if (rc)
		goto err;
	if (!(flags & ZKA_CLUSTER_NOSCHEMA) && (rc = check_schema(c, err, n)))
		goto err;
	*out = c;
	return 0;
err:
	zka_cluster_close(c);
	return rc;
}

int zka_cluster_reconnect(struct zka_cluster *c, char *err, size_t n)
{
	int rc = connect_pg(c, err, n);
	if (!rc && !(c->flags & ZKA_CLUSTER_NOSCHEMA))
		rc = check_schema(c, err, n);
	return rc;
}

void zka_cluster_close(struct zka_cluster *c)
{
	if (!c)
		return;
	if (c->pg)
		PQfinish(c->pg);
	free(c->url);
	free(c);
}

const char *zka_cluster_server_version(struct zka_cluster *c)
{
	return c && c->connected ? c->version : "";
}

int zka_cluster_init(struct zka_cluster *c, int *from, char *err, size_t n)
{
	int rc, v = 0;
	PGresult *r = NULL;
	*from = 0;
	if ((rc = exec0(c, "BEGIN", err, n)))
		return rc;
	/* one initialiser at a time; the key is "zkarena" in ASCII */
	if ((rc = exec0(c, "SELECT pg_advisory_xact_lock(8825883906597729)", err, n)) ||
	    (rc = exec0(c, "CREATE TABLE IF NOT EXISTS zka_schema (version integer NOT NULL)", err,
			n)))
		goto err;
	if (!(r = run(c, "SELECT max(version) FROM zka_schema", 0, NULL, &rc, err, n)))
		goto err;
	v = PQgetisnull(r, 0, 0) ? 0 : atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	*from = v;
	if (v > ZKA_CLUSTER_SCHEMA) {
		char a[16], b[16];
		snprintf(a, sizeof a, "%d", v);
		snprintf(b, sizeof b, "%d", ZKA_CLUSTER_SCHEMA);
		seterr(err, n,
		       "schema version mismatch: the database has version %s, newer than this "
		       "zkarena's %s",
		       a, b);
		rc = -EPROTO;
		goto err;
	}
	for (int i = v; i < ZKA_CLUSTER_SCHEMA; i++)
		if ((rc = exec0(c, migrations[i], err, n)))
			goto err;
	char sql[96];
	snprintf(sql, sizeof sql, "DELETE FROM zka_schema; INSERT INTO zka_schema VALUES (%d)",
		 ZKA_CLUSTER_SCHEMA);
	if ((rc = exec0(c, sql, err, n)) || (rc = exec0(c, "COMMIT", err, n)))
		goto err;
	return 0;
err:
	if (c->connected)
		exec0(c, "ROLLBACK", NULL, 0);
	return rc;
}

int zka_cluster_submit(struct zka_cluster *c, const struct zka_cluster_spec *s, int64_t *id,
		       int *existed, char *err, size_t n)
{
	char prio[16], att[16];
	snprintf(prio, sizeof prio, "%d", s->priority);
	snprintf(att, sizeof att, "%d", s->max_attempts > 0 ? s->max_attempts : 3);
	const char *p[] = {s->request_id, prio, s->circuit, s->witness, s->out_dir, att};
	int rc = 0;
	*existed = 0;
	/* ON CONFLICT DO NOTHING waits for a concurrent insert of the same request id to commit,
	 * so the SELECT below then sees it */
	PGresult *r =
	    run(c,
		"WITH i AS (INSERT INTO zka_jobs (request_id, priority, circuit, witness, out_dir,"
		" max_attempts) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (request_id) DO NOTHING"
		" RETURNING id),"
		" e AS (INSERT INTO zka_events (job_id, kind) SELECT id, 'submit' FROM i)"
		" SELECT id, pg_notify('zka_queued', id::text) FROM i",
		6, p, &rc, err, n);
	if (!r)
		return rc;
	if (PQntuples(r) == 1) {
		*id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
		PQclear(r);
		return 0;
	}
	PQclear(r);
	if (!(r = run(c, "SELECT id FROM zka_jobs WHERE request_id = $1", 1, p, &rc, err, n)))
		return rc;
	if (PQntuples(r) != 1) {
		PQclear(r);
		seterr(err, n, "request id '%s' conflicts but names no job%s", s->request_id, NULL);
		return -EIO;
	}
	*id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	*existed = 1;
	PQclear(r);
	return 0;
}

static double dbl(PGresult *r, int row, int col, double dflt)
{
	return PQgetisnull(r, row, col) ? dflt : strtod(PQgetvalue(r, row, col), NULL);
}

static void text(char *dst, size_t n, PGresult *r, int row, int col)
{
	snprintf(dst, n, "%s", PQgetisnull(r, row, col) ? "" : PQgetvalue(r, row, col));
}

int zka_cluster_job_get(struct zka_cluster *c, int64_t id, int with_result,
			struct zka_cluster_job *j, char *err, size_t n)
{
	char ids[24];
	snprintf(ids, sizeof ids, "%lld", (long long)id);
	const char *p[] = {ids, with_result ? "1" : "0"};
	int rc = 0;
	PGresult *r =
	    run(c,
		"SELECT id, state, priority, attempts, max_attempts, expired, request_id, circuit,"
		" witness, out_dir, lease_owner, lease_token, done_by, reason,"
		" extract(epoch FROM lease_expires - clock_timestamp())::float8,"
		" extract(epoch FROM t_submit)::float8, extract(epoch FROM t_claim)::float8,"
		" extract(epoch FROM t_start)::float8, extract(epoch FROM t_done)::float8,"
		" synth_s, prove_s,"
		" CASE WHEN $2 = '1' THEN proof END, CASE WHEN $2 = '1' THEN public END"
		" FROM zka_jobs WHERE id = $1",
		2, p, &rc, err, n);
	memset(j, 0, sizeof *j);
	if (!r)
		return rc;
	if (PQntuples(r) != 1) {
		PQclear(r);
		seterr(err, n, "job %s: no such job%s", ids, NULL);
		return -ESRCH;
	}
	j->id = id;
	j->state = state_of(PQgetvalue(r, 0, 1));
	j->priority = atoi(PQgetvalue(r, 0, 2));
	j->attempts = atoi(PQgetvalue(r, 0, 3));
	j->max_attempts = atoi(PQgetvalue(r, 0, 4));
	j->expired = atoi(PQgetvalue(r, 0, 5));
	text(j->request_id, sizeof j->request_id, r, 0, 6);
	text(j->circuit, sizeof j->circuit, r, 0, 7);
	text(j->witness, sizeof j->witness, r, 0, 8);
	text(j->out_dir, sizeof j->out_dir, r, 0, 9);
	text(j->lease_owner, sizeof j->lease_owner, r, 0, 10);
	j->lease_token = PQgetisnull(r, 0, 11) ? 0 : strtoll(PQgetvalue(r, 0, 11), NULL, 10);
	text(j->done_by, sizeof j->done_by, r, 0, 12);
	text(j->reason, sizeof j->reason, r, 0, 13);
	j->lease_left_s = dbl(r, 0, 14, 0);
	j->t_submit = dbl(r, 0, 15, 0);
	j->t_claim = dbl(r, 0, 16, 0);
	j->t_start = dbl(r, 0, 17, 0);
	j->t_done = dbl(r, 0, 18, 0);
	j->synth_s = dbl(r, 0, 19, -1);
	j->prove_s = dbl(r, 0, 20, -1);
	if (!PQgetisnull(r, 0, 21) && !(j->proof = strdup(PQgetvalue(r, 0, 21))))
		rc = -ENOMEM;
	if (!PQgetisnull(r, 0, 22) && !(j->public_json = strdup(PQgetvalue(r, 0, 22))))
		rc = -ENOMEM;
	PQclear(r);
	if (rc)
		zka_cluster_job_free(j);
	return rc;
}

void zka_cluster_job_free(struct zka_cluster_job *j)
{
	free(j->proof);
	free(j->public_json);
	j->proof = j->public_json = NULL;
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int zka_cluster_wait(struct zka_cluster *c, int64_t id, int timeout_ms, struct zka_cluster_job *j,
		     char *err, size_t n)
{
	double end = timeout_ms < 0 ? 1e300 : mono() + timeout_ms / 1000.0;
	int rc, backoff = 100;
	memset(j, 0, sizeof *j);
	c->listen_done = 1; /* re-issued by every reconnect */
	if (c->connected && (rc = exec0(c, "LISTEN zka_done", err, n)) && rc != -ENOTCONN)
		return rc;
	for (;;) {
		if (!c->connected) {
			double left = end - mono();
			if (left <= 0)
				break;
			struct timespec ts = {0, 0};
			double d = backoff / 1000.0 < left ? backoff / 1000.0 : left;
			ts.tv_sec = (time_t)d;
			ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
			nanosleep(&ts, NULL);
			backoff = backoff * 2 > 5000 ? 5000 : backoff * 2;
			if (zka_cluster_reconnect(c, err, n))
				continue;
			backoff = 100;
		}
		/* LISTEN is active before this read, so a finish after it is always notified */
		rc = zka_cluster_job_get(c, id, 1, j, err, n);
		if (rc == -ENOTCONN)
			continue;
		if (rc)
			return rc;
		if (j->state == ZKA_CL_DONE || j->state == ZKA_CL_FAILED)
			return j->state == ZKA_CL_FAILED;
		zka_cluster_job_free(j);
		for (;;) {
			double left = end - mono();
			if (left <= 0)
				goto timeout;
			int ms = left * 1000 > 3000 ? 3000 : (int)(left * 1000) + 1;
			int64_t got = -1;
			int k = zka_cluster_poll(c, ms, &got);
			if (k < 0 || k == 0 || got == id || got < 0)
				break; /* lost (reconnect), safety re-read, or maybe ours */
		}
	}
timeout:
	seterr(err, n, "still not finished after the timeout%s%s", "", NULL);
	return -ETIMEDOUT;
}

int zka_cluster_counts(struct zka_cluster *c, long counts[5], char *err, size_t n)
{
	int rc = 0;
	PGresult *r =
	    run(c, "SELECT state, count(*) FROM zka_jobs GROUP BY state", 0, NULL, &rc, err, n);
	for (int i = 0; i < 5; i++)
		counts[i] = 0;
	if (!r)
		return rc;
	for (int i = 0; i < PQntuples(r); i++)
		counts[state_of(PQgetvalue(r, i, 0))] += atol(PQgetvalue(r, i, 1));
	PQclear(r);
	return 0;
}

int zka_cluster_nodes(struct zka_cluster *c, struct zka_cluster_node_info **out, int *count,
		      char *err, size_t n)
{
	int rc = 0;
	*out = NULL;
	*count = 0;
	PGresult *r =
	    run(c,
		"SELECT n.name, n.arena, n.status, n.capacity, n.inflight, n.pid,"
		" (SELECT count(*) FROM zka_jobs WHERE state = 'LEASED' AND lease_owner = n.name),"
		" (SELECT count(*) FROM zka_jobs WHERE state = 'DONE' AND done_by = n.name),"
		" (SELECT count(*) FROM zka_jobs WHERE state = 'FAILED' AND done_by = n.name),"
		" (SELECT count(*) FROM zka_events WHERE kind = 'refused' AND node = n.name),"
		" n.db_outages, extract(epoch FROM clock_timestamp() - n.heartbeat)::float8"
		" FROM zka_nodes n ORDER BY n.name",
		0, NULL, &rc, err, n);
	if (!r)
		return rc;
	int k = PQntuples(r);
	struct zka_cluster_node_info *v = calloc(k ? (size_t)k : 1, sizeof *v);
	if (!v) {
		PQclear(r);
		return -ENOMEM;
	}
	for (int i = 0; i < k; i++) {
		text(v[i].name, sizeof v[i].name, r, i, 0);
		text(v[i].arena, sizeof v[i].arena, r, i, 1);
		text(v[i].status, sizeof v[i].status, r, i, 2);
		v[i].capacity = atoi(PQgetvalue(r, i, 3));
		v[i].inflight = atoi(PQgetvalue(r, i, 4));
		v[i].pid = atoi(PQgetvalue(r, i, 5));
		v[i].leased = atol(PQgetvalue(r, i, 6));
		v[i].done = atol(PQgetvalue(r, i, 7));
		v[i].failed = atol(PQgetvalue(r, i, 8));
		v[i].refused = atol(PQgetvalue(r, i, 9));
		v[i].db_outages = atol(PQgetvalue(r, i, 10));
		v[i].heartbeat_age_s = dbl(r, i, 11, -1);
	}
	PQclear(r);
	*out = v;
	*count = k;
	return 0;
}

static double realtime(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int zka_cluster_claim(struct zka_cluster *c, const char *node, int max, int lease_ms,
		      struct zka_cluster_lease *out, char *err, size_t n)
{
	if (max <= 0)
		return 0;
	char maxs[16], ls[16];
	snprintf(maxs, sizeof maxs, "%d", max);
	snprintf(ls, sizeof ls, "%d", lease_ms);
	const char *p[] = {node, maxs, ls};
	int rc = 0;
	PGresult *r =
	    run(c,
		"WITH c AS (SELECT id FROM zka_jobs WHERE state = 'QUEUED'"
		"  ORDER BY priority DESC, id LIMIT $2 FOR UPDATE SKIP LOCKED),"
		" u AS (UPDATE zka_jobs j SET state = 'LEASED', lease_owner = $1,"
		"  lease_token = nextval('zka_lease_token'),"
		"  lease_expires = clock_timestamp() + $3 * interval '1 millisecond',"
		"  attempts = j.attempts + 1, t_claim = clock_timestamp()"
		"  FROM c WHERE j.id = c.id"
		"  RETURNING j.id, j.lease_token, j.attempts, j.circuit, j.witness, j.priority),"
		" e AS (INSERT INTO zka_events (job_id, kind, node, token)"
		"  SELECT id, 'claim', $1, lease_token FROM u)"
		" SELECT id, lease_token, attempts, circuit, witness FROM u"
		" ORDER BY priority DESC, id",
		3, p, &rc, err, n);
	if (!r)
		return rc;
	int k = PQntuples(r);
	double now = realtime();
	for (int i = 0; i < k && i < max; i++) {
		out[i].id = strtoll(PQgetvalue(r, i, 0), NULL, 10);
		out[i].token = strtoll(PQgetvalue(r, i, 1), NULL, 10);
		out[i].attempts = atoi(PQgetvalue(r, i, 2));
		text(out[i].circuit, sizeof out[i].circuit, r, i, 3);
		text(out[i].witness, sizeof out[i].witness, r, i, 4);
		out[i].claimed_at = now;
	}
	PQclear(r);
	return k;
}

/* Writes "{a,b,c}" (a PostgreSQL array literal) into a malloc'd string. */
static char *array_lit(int count, const int64_t *v)
{
	if (count < 0 || count > (1 << 20)) /* callers pass a bridge's lease count */
		return NULL;
	char *s = malloc((size_t)count * 21 + 3), *p = s;
	if (!s)
		return NULL;
	*p++ = '{';
	for (int i = 0; i < count; i++)
		p += sprintf(p, "%s%lld", i ? "," : "", (long long)v[i]);
	*p++ = '}';
	*p = 0;
	return s;
}

int zka_cluster_renew(struct zka_cluster *c, const char *node, int lease_ms, int count,
		      const int64_t *ids, const int64_t *tokens, int *held, char *err, size_t n)
{
	for (int i = 0; i < count; i++)
		held[i] = 0;
	if (count == 0)
		return 0;
	char ls[16];
	snprintf(ls, sizeof ls, "%d", lease_ms);
	char *ia = array_lit(count, ids), *ta = array_lit(count, tokens);
	int rc = -ENOMEM, k = 0;
	PGresult *r = NULL;
	if (!ia || !ta)
		goto err;
	const char *p[] = {node, ls, ia, ta};
	r = run(c,
		"UPDATE zka_jobs j SET lease_expires = clock_timestamp() + $2 * interval '1 "
		"millisecond'"
		" FROM unnest($3::bigint[], $4::bigint[]) AS u(id, tok)"
		" WHERE j.id = u.id AND j.lease_token = u.tok AND j.state = 'LEASED'"
		" AND j.lease_owner = $1 RETURNING j.lease_token",
		4, p, &rc, err, n);
	if (!r)
		goto err;
	rc = 0;
	for (int i = 0; i < PQntuples(r); i++) {
		int64_t t = strtoll(PQgetvalue(r, i, 0), NULL, 10);
		for (int x = 0; x < count; x++)
			if (tokens[x] == t && !held[x]) {
				held[x] = 1;
				k++;
				break;
			}
	}
err:
	PQclear(r);
	free(ia);
	free(ta);
	return rc ? rc : k;
}

int zka_cluster_finish(struct zka_cluster *c, const char *node, int64_t id, int64_t token,
		       const struct zka_cluster_result *res, char *err, size_t n)
{
	char ids[24], toks[24], ts[32], ss[32], ps[32];
	snprintf(ids, sizeof ids, "%lld", (long long)id);
	snprintf(toks, sizeof toks, "%lld", (long long)token);
	snprintf(ts, sizeof ts, "%.6f", res->t_start);
	snprintf(ss, sizeof ss, "%.6f", res->synth_s);
	snprintf(ps, sizeof ps, "%.6f", res->prove_s);
	const char *p[] = {ids,
			   toks,
			   node,
			   res->reason ? "FAILED" : "DONE",
			   res->reason ? NULL : res->proof,
			   res->reason ? NULL : res->public_json,
			   res->reason,
			   res->t_start > 0 ? ts : NULL,
			   res->synth_s >= 0 ? ss : NULL,
			   res->prove_s >= 0 ? ps : NULL};
	int rc = 0;
	/* one statement: the conditional update, its event (or the refusal) and the notification */
	PGresult *r =
	    run(c,
		"WITH u AS (UPDATE zka_jobs SET state = $4, proof = $5, public = $6, reason = $7,"
		"  done_by = lease_owner, t_start = to_timestamp($8::float8), t_done = "
		"clock_timestamp(),"
		"  synth_s = $9, prove_s = $10,"
		"  lease_owner = NULL, lease_token = NULL, lease_expires = NULL"
		"  WHERE id = $1 AND state = 'LEASED' AND lease_token = $2 AND lease_owner = $3"
		"  RETURNING id),"
		" e AS (INSERT INTO zka_events (job_id, kind, node, token, detail)"
		"  SELECT $1, CASE WHEN EXISTS (SELECT 1 FROM u) THEN lower($4) ELSE 'refused' END,"
		"  $3, $2, $7)"
		" SELECT id, pg_notify('zka_done', id::text) FROM u",
		10, p, &rc, err, n);
	if (!r)
		return rc;
	int k = PQntuples(r);
	PQclear(r);
	if (k != 1) {
		seterr(err, n,
		       "job %s: lease %s is no longer held (expired and taken over, or the job is "
		       "finished): result refused",
		       ids, toks);
		return -ESTALE;
	}
	return 0;
}

/* The requeue-or-fail update shared by release, release_node and reap: $1 is why the lease
 * ended, the WHERE clause choosing the rows (its own parameters from $2) goes in between.
 * The rows are locked first (o) so that the event can name the lease that ended. */
#define REQUEUE_HEAD "WITH o AS (SELECT id, lease_owner, lease_token FROM zka_jobs "
#define REQUEUE_TAIL                                                                               \
	"),"                                                                                       \
	" u AS (UPDATE zka_jobs j SET"                                                             \
	"  state = CASE WHEN j.attempts >= j.max_attempts THEN 'FAILED' ELSE 'QUEUED' END,"        \
	"  reason = CASE WHEN j.attempts >= j.max_attempts THEN 'gave up after ' || j.attempts ||" \
	"  ' leases (the last, of ' || j.lease_owner || ', ended: ' || $1::text || ')'"            \
	"  ELSE j.reason END,"                                                                     \
	"  t_done = CASE WHEN j.attempts >= j.max_attempts THEN clock_timestamp() END,"            \
	"  done_by = CASE WHEN j.attempts >= j.max_attempts THEN j.lease_owner END,"               \
	"  expired = j.expired + CASE WHEN $1::text = 'lease expired' THEN 1 ELSE 0 END,"          \
	"  lease_owner = NULL, lease_token = NULL, lease_expires = NULL"                           \
	"  FROM o WHERE j.id = o.id RETURNING j.id, j.state, o.lease_owner, o.lease_token),"       \
	" e AS (INSERT INTO zka_events (job_id, kind, node, token, detail)"                        \
	"  SELECT id, CASE WHEN state = 'FAILED' THEN 'failed' WHEN $1::text = 'lease expired'"    \
	"  THEN 'expired' ELSE 'released' END, lease_owner, lease_token, $1::text FROM u)"         \
	" SELECT id, pg_notify(CASE WHEN state = 'FAILED' THEN 'zka_done' ELSE 'zka_queued' END,"  \
	" id::text) FROM u"

static int requeue(struct zka_cluster *c, const char *sql, int np, const char *const *p, char *err,
		   size_t n)
{
	int rc = 0;
	PGresult *r = run(c, sql, np, p, &rc, err, n);
	if (!r)
		return rc;
	int k = PQntuples(r);
	PQclear(r);
	return k;
}

int zka_cluster_release(struct zka_cluster *c, const char *node, int64_t id, int64_t token,
			const char *why, char *err, size_t n)
{
	char ids[24], toks[24];
	snprintf(ids, sizeof ids, "%lld", (long long)id);
	snprintf(toks, sizeof toks, "%lld", (long long)token);
	const char *p[] = {why, node, ids, toks};
	int k = requeue(c,
			REQUEUE_HEAD "WHERE state = 'LEASED' AND lease_owner = $2 AND id = $3"
				     " AND lease_token = $4 FOR UPDATE" REQUEUE_TAIL,
			4, p, err, n);
	if (k == 0) {
		seterr(err, n, "job %s: lease %s is no longer held", ids, toks);
		return -ESTALE;
	}
	return k < 0 ? k : 0;
}

int zka_cluster_release_node(struct zka_cluster *c, const char *node, char *err, size_t n)
{
	const char *p[] = {"the bridge restarted", node};
	return requeue(
	    c, REQUEUE_HEAD "WHERE state = 'LEASED' AND lease_owner = $2 FOR UPDATE" REQUEUE_TAIL,
	    2, p, err, n);
}

int zka_cluster_reap(struct zka_cluster *c, char *err, size_t n)
{
	const char *p[] = {"lease expired"};
	return requeue(c,
		       REQUEUE_HEAD "WHERE state = 'LEASED' AND lease_expires < clock_timestamp()"
				    " FOR UPDATE SKIP LOCKED" REQUEUE_TAIL,
		       1, p, err, n);
}

int zka_cluster_node_beat(struct zka_cluster *c, const struct zka_cluster_node *nd, char *err,
			  size_t n)
{
	char cap[16], inf[16], pid[16], outs[24], host[256] = "";
	snprintf(cap, sizeof cap, "%d", nd->capacity);
	snprintf(inf, sizeof inf, "%d", nd->inflight);
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	snprintf(outs, sizeof outs, "%ld", nd->db_outages);
	gethostname(host, sizeof host - 1);
	const char *p[] = {nd->name, nd->arena, cap, inf, pid, host, nd->status, outs};
	int rc = 0;
	PGresult *r =
	    run(c,
		"INSERT INTO zka_nodes (name, arena, capacity, inflight, pid, host, started,"
		" heartbeat, status, db_outages) VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp(),"
		" clock_timestamp(), $7, $8) ON CONFLICT (name) DO UPDATE SET arena = $2,"
		" capacity = $3, inflight = $4, started = CASE WHEN zka_nodes.pid = $5::integer"
		" THEN zka_nodes.started ELSE clock_timestamp() END, pid = $5, host = $6,"
		" heartbeat = clock_timestamp(), status = $7, db_outages = $8",
		8, p, &rc, err, n);
	PQclear(r);
	return rc;
}

int zka_cluster_listen(struct zka_cluster *c, const char *channel, char *err, size_t n)
{
	if (!strcmp(channel, "zka_queued"))
		c->listen_queued = 1;
	else if (!strcmp(channel, "zka_done"))
		c->listen_done = 1;
	else
		return -EINVAL;
	char sql[64];
	snprintf(sql, sizeof sql, "LISTEN %s", channel);
	return exec0(c, sql, err, n);
}

static int drain(struct zka_cluster *c, int64_t *id)
{
	int k = 0;
	PGnotify *no;
	while ((no = PQnotifies(c->pg))) {
		if (id)
			*id = no->extra && *no->extra ? strtoll(no->extra, NULL, 10) : -1;
		k++;
		PQfreemem(no);
	}
	return k;
}

int zka_cluster_poll(struct zka_cluster *c, int timeout_ms, int64_t *id)
{
	if (!c->connected)
		return -ENOTCONN;
	if (!PQconsumeInput(c->pg)) {
		c->connected = 0;
		return -ENOTCONN;
	}
	int k = drain(c, id);
	if (k || timeout_ms == 0)
		return k;
	struct pollfd pfd = {.fd = PQsocket(c->pg), .events = POLLIN};
	if (pfd.fd < 0) {
		c->connected = 0;
		return -ENOTCONN;
	}
	int pr = poll(&pfd, 1, timeout_ms);
	if (pr < 0)
		return errno == EINTR ? 0 : -errno;
	if (pr == 0)
		return 0;
	if (!PQconsumeInput(c->pg) || PQstatus(c->pg) != CONNECTION_OK) {
		c->connected = 0;
		return -ENOTCONN;
	}
	return drain(c, id);
}
