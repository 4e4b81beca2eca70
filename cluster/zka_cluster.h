/* zka_cluster.h - jobs across proving nodes through PostgreSQL (libpq).
 *
 * A cluster is one PostgreSQL database holding a queue of proof jobs (table zka_jobs), the
 * proving nodes that take them (zka_nodes) and an append-only log of what happened to each job
 * (zka_events). Clients submit jobs and wait for them (`zkarena cluster ...`); on each node a
 * bridge (`zkarena bridge`) leases jobs, runs them in its local arena and writes the outcome
 * back. The schema, the lease protocol and the state machine are described at the top of
 * cluster/cluster.c and in docs/cluster.md.
 *
 * Conventions: every function returns 0 (or a documented non-negative value) or -errno, with a
 * one-line explanation in err (which may be NULL). -ENOTCONN means the connection to the
 * database is lost (the handle must be reconnected with zka_cluster_reconnect); -ESTALE
 * means the caller's lease is no longer valid. Durations are in milliseconds; times are
 * seconds since the epoch (double) as the database's clock saw them, unless noted.
 */
#ifndef ZKA_CLUSTER_H
#define ZKA_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#define ZKA_CLUSTER_SCHEMA 1	  /* schema version this code speaks */
#define ZKA_CLUSTER_TEXT_MAX 1024 /* circuit, witness, output dir, request id, node name */
#define ZKA_CLUSTER_REASON_MAX 512

struct zka_cluster;

/* Opening flags: NOSCHEMA connects without checking the schema version (for init). */
enum { ZKA_CLUSTER_NOSCHEMA = 1 };

/* Parses url (a libpq connection URI or key=value string), connects, and (unless NOSCHEMA)
 * checks the schema: -EINVAL bad URL, -ECONNREFUSED the server cannot be reached (or refuses
 * us), -ENOENT no zkarena schema in the database, -EPROTO other schema version. On any error
 * *out is NULL, except -ECONNREFUSED where *out is a handle to retry with
 * zka_cluster_reconnect (close it when giving up). */
int zka_cluster_open(const char *url, int flags, struct zka_cluster **out, char *err, size_t n);
/* Reconnects a handle whose connection was lost (or never made); re-issues its LISTENs and
 * checks the schema again (-ENOENT, -EPROTO as for open). */
int zka_cluster_reconnect(struct zka_cluster *c, char *err, size_t n);
void zka_cluster_close(struct zka_cluster *c);
/* The server's version as text ("15.18 ..."), for reports; "" when not connected. */
const char *zka_cluster_server_version(struct zka_cluster *c);

/* Creates or migrates the schema to ZKA_CLUSTER_SCHEMA under an advisory lock; running it
 * again changes nothing. *from gets the version found (0: none). -EPROTO when the database
 * holds a newer version than this code knows. */
int zka_cluster_init(struct zka_cluster *c, int *from, char *err, size_t n);

/* ---- client side ---- */
struct zka_cluster_spec {
	const char *circuit, *witness, *out_dir; /* absolute paths (or, later, URIs) */
	const char *request_id;			 /* NULL: none (every submit is a new job) */
	int priority;				 /* higher first; ties by id */
	int max_attempts;			 /* leases granted at most; 0: 3 */
};
/* Inserts a job in QUEUED and wakes the bridges (NOTIFY). With a request id that is already
 * taken, inserts nothing, sets *existed = 1 and returns the first job's id. */
int zka_cluster_submit(struct zka_cluster *c, const struct zka_cluster_spec *s, int64_t *id,
		       int *existed, char *err, size_t n);

enum zka_cluster_state {
	ZKA_CL_QUEUED = 1,
	ZKA_CL_LEASED,
	ZKA_CL_DONE,
	ZKA_CL_FAILED,
};
const char *zka_cluster_state_name(int s);

struct zka_cluster_job {
	int64_t id, lease_token;
	int state, priority, attempts, max_attempts, expired;
	char request_id[ZKA_CLUSTER_TEXT_MAX], circuit[ZKA_CLUSTER_TEXT_MAX];
	char witness[ZKA_CLUSTER_TEXT_MAX], out_dir[ZKA_CLUSTER_TEXT_MAX];
	char lease_owner[ZKA_CLUSTER_TEXT_MAX], done_by[ZKA_CLUSTER_TEXT_MAX];
	char reason[ZKA_CLUSTER_REASON_MAX];
	double lease_left_s; /* seconds until the lease expires (negative: expired) */
	double t_submit, t_claim, t_start, t_done; /* 0: not reached */
	double synth_s, prove_s;		   /* as the arena measured them; -1: unknown */
	char *proof, *public_json; /* malloc'd (DONE only, when asked for), else NULL */
};
/* Reads job id; with_result also fetches the proof and public signals. -ESRCH: no such job. */
int zka_cluster_job_get(struct zka_cluster *c, int64_t id, int with_result,
			struct zka_cluster_job *j, char *err, size_t n);
void zka_cluster_job_free(struct zka_cluster_job *j);

/* Waits until job id is DONE (returns 0) or FAILED (returns 1), on LISTEN/NOTIFY (re-reading
 * the row every few seconds as a safety net). The job is read with its result. A lost
 * connection is retried with backoff until the timeout. -ETIMEDOUT, -ESRCH. timeout_ms < 0:
 * forever. */
int zka_cluster_wait(struct zka_cluster *c, int64_t id, int timeout_ms, struct zka_cluster_job *j,
		     char *err, size_t n);

/* Jobs per state (indexed by enum zka_cluster_state; [0] unused) and held leases. */
int zka_cluster_counts(struct zka_cluster *c, long counts[5], char *err, size_t n);

struct zka_cluster_node_info {
	char name[ZKA_CLUSTER_TEXT_MAX], arena[128], status[ZKA_CLUSTER_REASON_MAX];
	int capacity, inflight, pid;
	long leased, done, failed, refused, db_outages;
	double heartbeat_age_s;
};
/* Every node that ever ran a bridge; *out is malloc'd (free it). */
int zka_cluster_nodes(struct zka_cluster *c, struct zka_cluster_node_info **out, int *count,
		      char *err, size_t n);

/* ---- bridge side ---- */
struct zka_cluster_lease {
	int64_t id, token;
	int attempts;
	char circuit[ZKA_CLUSTER_TEXT_MAX], witness[ZKA_CLUSTER_TEXT_MAX];
	double claimed_at; /* CLOCK_REALTIME seconds on this node, when the claim returned */
};
/* Leases up to max QUEUED jobs (highest priority first) to node for lease_ms: one statement,
 * SELECT ... FOR UPDATE SKIP LOCKED, a fresh token per lease. Returns the number leased. */
int zka_cluster_claim(struct zka_cluster *c, const char *node, int max, int lease_ms,
		      struct zka_cluster_lease *out, char *err, size_t n);
/* Renews the leases (ids[i], tokens[i]) for lease_ms; held[i] gets 1 when lease i is still
 * this node's, 0 when it was lost. Returns the number still held. */
int zka_cluster_renew(struct zka_cluster *c, const char *node, int lease_ms, int count,
		      const int64_t *ids, const int64_t *tokens, int *held, char *err, size_t n);

struct zka_cluster_result {
	const char *reason;		 /* NULL: DONE; else FAILED with this reason */
	const char *proof, *public_json; /* DONE: the files' text */
	double t_start;		 /* CLOCK_REALTIME seconds when synthesis started; 0: unknown */
	double synth_s, prove_s; /* -1: unknown */
};
/* Writes the outcome of lease (id, token) and clears the lease, in one transaction, if and
 * only if the lease is still node's with that token; else logs a refusal and returns -ESTALE.
 * This check is what makes a job DONE exactly once. */
int zka_cluster_finish(struct zka_cluster *c, const char *node, int64_t id, int64_t token,
		       const struct zka_cluster_result *r, char *err, size_t n);
/* Gives lease (id, token) back to the queue (FAILED with reason when its attempts are used
 * up). -ESTALE when it was no longer held. */
int zka_cluster_release(struct zka_cluster *c, const char *node, int64_t id, int64_t token,
			const char *why, char *err, size_t n);
/* Gives back every lease that node holds (a restarted bridge's predecessor's). Returns the
 * number given back. */
int zka_cluster_release_node(struct zka_cluster *c, const char *node, char *err, size_t n);
/* Expired leases back to QUEUED (or FAILED when their attempts are used up). Returns the
 * number of jobs moved. Any process may call it at any time. */
int zka_cluster_reap(struct zka_cluster *c, char *err, size_t n);

struct zka_cluster_node {
	const char *name, *arena, *status;
	int capacity, inflight;
	long db_outages;
};
/* Records the node's heartbeat (upsert of its row). */
int zka_cluster_node_beat(struct zka_cluster *c, const struct zka_cluster_node *nd, char *err,
			  size_t n);

/* ---- notifications ---- */
/* LISTEN on channel "zka_queued" (new work) or "zka_done" (a job finished); kept across
 * reconnects. */
int zka_cluster_listen(struct zka_cluster *c, const char *channel, char *err, size_t n);
/* Waits up to timeout_ms for a notification (0: only what has arrived). Returns the number
 * of notifications consumed (>= 0); when id is not NULL it gets the payload of the last one
 * (a job id, or -1). -ENOTCONN when the connection broke. */
int zka_cluster_poll(struct zka_cluster *c, int timeout_ms, int64_t *id);

#endif
