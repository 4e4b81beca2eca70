/* zka_arena.h - the shared-memory arena: slot and job tables, futex-backed rings, recovery.
 *
 * An arena is one POSIX shm object "/zkarena-NAME" (mode 0600) that outlives every process.
 * It holds a checksummed header, an owner table (one entry per attached process), a table of
 * loaded circuits, the job table, the slot table, rings of 32-bit indices and the slots' data
 * (each slot 2 MiB aligned). Everything inside is an offset or an index, bounds-checked on read.
 *
 * Conventions: every function returns 0 (or a documented non-negative value) or -errno, and
 * never aborts on bad arena contents. Timeouts are in milliseconds: < 0 waits forever, 0 tries
 * once. A process attaches with zka_arena_open (which runs recovery); after fork() the child
 * may keep using the parent's handle: it registers itself as a new owner on first use.
 * The state machines and invariants are described at the top of shm/arena.c.
 */
#ifndef ZKA_ARENA_H
#define ZKA_ARENA_H

#include <stddef.h>
#include <stdint.h>

#define ZKA_NAME_MAX 64     /* arena name: [A-Za-z0-9._-]{1,64}, not starting with '.' */
#define ZKA_PATH_MAX 512    /* witness path, output dir, key path (NUL included) */
#define ZKA_REASON_MAX 256  /* failure reason text (NUL included) */
#define ZKA_SHM_NAME_MAX 64 /* params shm object name (NUL included) */
#define ZKA_NONE 0xFFFFFFu  /* "no index" in job/slot/circuit references */
#define ZKA_SLOT_ALIGN (2u << 20)
#define ZKA_ATTEMPT_LOG 8           /* proof attempts kept per job (the last 8) */
#define ZKA_RETENTION_DEFAULT 3600u /* seconds a DONE/FAILED record is kept */

struct zka_arena;

/* ---- geometry, create, open ---- */
struct zka_arena_params {
	uint32_t nslots;       /* >= 1 */
	uint64_t slot_bytes;   /* >= 1; rounded up to 2 MiB per slot */
	uint32_t njobs;        /* 0: default 4 * nslots (min 64) */
	uint32_t nowners;      /* 0: default 1024; at most 4094 */
	uint32_t ncircuits;    /* 0: default 16 */
	uint32_t max_attempts; /* 0: default 3; at most 255 */
	int numa_node;         /* -1: no binding */
	uint32_t nuser_rings;  /* plain rings (not bound to a table), at most 8 */
	uint32_t user_ring_cap;/* capacity of each plain ring (0: 64) */
	uint32_t retention_s;  /* DONE/FAILED records freed after this (0: 3600 s) */
	uint32_t share_group;  /* 1: the object goes to group `group`, mode 0660 (submitters) */
	uint32_t group;        /* with share_group; else the object is mode 0600 */
};

/* RDONLY: maps read-only, registers no owner, runs no recovery; every change gives -EROFS.
 * NORECOVER: skips the recovery that open otherwise runs.
 * Ownership: open refuses (-EPERM, *msg says whose it is) an object owned by another uid;
 * with SHARED (clients: submit, wait, status) it also accepts one owned by root or shared
 * with one of this process's groups (group rw bits set: `arena create --group`). */
enum { ZKA_OPEN_RDONLY = 1, ZKA_OPEN_NORECOVER = 2, ZKA_OPEN_SHARED = 4 };

/* Validates NAME and writes "/zkarena-NAME" to out (size >= ZKA_NAME_MAX + 10). -EINVAL if bad. */
int zka_arena_shm_name(const char *name, char *out, size_t outsz);
/* Creates, sizes (posix_fallocate), NUMA-binds and pre-faults a new arena; -EEXIST if it exists,
 * -ENOSPC when /dev/shm is too small. *msg (may be NULL) gets a static one-line explanation. */
int zka_arena_create(const char *name, const struct zka_arena_params *p, struct zka_arena **out,
		     const char **msg);
/* Maps an existing arena after checking magic, version, checksum, size and geometry;
 * then (unless NORECOVER/RDONLY) runs zka_arena_recover. -EPROTO: other layout version,
 * -EBADMSG: bad magic/checksum/geometry, -EINVAL: truncated object. *msg explains. */
int zka_arena_open(const char *name, int flags, struct zka_arena **out, const char **msg);
/* Unmaps; releases this process's owner entry when it owns no record. NULL is fine. */
void zka_arena_close(struct zka_arena *a);
/* Removes the shm object (mapped handles stay valid until closed), then every gpud status
 * file of the arena (shm/zka_gpud_status.h). */
int zka_arena_destroy(const char *name);
/* The shm object's owner, group and mode (as fstat saw them at open). */
void zka_arena_owner(const struct zka_arena *a, uint32_t *uid, uint32_t *gid, uint32_t *mode);
/* The arena's name (as given to create/open). */
const char *zka_arena_name(const struct zka_arena *a);
/* Is an object with this owner/group/mode one this process may use? 0 yes; -EPERM with a
 * one-line reason in msg (msgsz bytes) naming the owner. shared: as ZKA_OPEN_SHARED. */
int zka_owner_check(uint32_t uid, uint32_t gid, uint32_t mode, int shared, char *msg,
		    size_t msgsz);

/* ---- introspection ---- */
struct zka_arena_geometry {
	uint32_t version, nslots, njobs, nowners, ncircuits, max_attempts, nrings;
	int32_t numa_node;
	uint32_t retention_s;
	uint64_t slot_bytes, slot_stride, total_bytes, data_off;
	int64_t epoch_ns; /* creation time, CLOCK_REALTIME */
	/* where the tables are (for inspectors and fault-injection tests) */
	uint64_t jobs_off, slots_off, job_rec_bytes, slot_rec_bytes;
	/* 1: the slot data is the owner-only object "/zkarena-NAME+slots" (a group arena);
	 * slots_mapped: this handle maps it (0 for a group's member) */
	uint32_t split, slots_mapped;
};
void zka_arena_geometry(const struct zka_arena *a, struct zka_arena_geometry *g);

enum zka_counter {
	ZKA_C_PUSHES, ZKA_C_POPS, ZKA_C_WAITS, ZKA_C_WAKES, ZKA_C_TIMEOUTS,
	ZKA_C_RECOVER_RUNS, ZKA_C_RECOVERED, ZKA_C_OWNERS_REAPED, ZKA_C_RING_REPAIRS,
	ZKA_C_QUARANTINED, ZKA_C_CLEANUP_FAILURES, ZKA_C_JOBS_SUBMITTED, ZKA_C_JOBS_DONE,
	ZKA_C_JOBS_FAILED, ZKA_C_COUNT
};
const char *zka_counter_name(int c);
uint64_t zka_arena_counter(const struct zka_arena *a, int c);
/* Cumulative transitions into a state (job: is_job = 1, state a zka_job_state; slot: 0). The
 * current number of records per state is a table scan (zka_slot_info / zka_job_info). */
uint64_t zka_arena_state_entries(const struct zka_arena *a, int is_job, int state);

/* Rings. The system rings are bound to a table state: a record is in its ring iff it is in
 * that state. User rings (zka_arena_params.nuser_rings) are plain bounded MPMC rings. */
enum zka_ring_id {
	ZKA_RING_FREE_SLOTS, ZKA_RING_READY_SLOTS, ZKA_RING_SUBMITTED_JOBS, ZKA_RING_FREE_JOBS,
	ZKA_RING_USER0
};
const char *zka_ring_name(int ring);
/* Entries in the ring now (>= 0), or -errno. */
int zka_ring_depth(const struct zka_arena *a, int ring);
int zka_ring_capacity(const struct zka_arena *a, int ring);
/* Plain ring operations (user rings only, -EPERM on system rings): blocking with timeout;
 * -ETIMEDOUT when the ring stays full/empty, -ERANGE on an index >= 2^31. */
int zka_ring_push(struct zka_arena *a, int ring, uint32_t idx, int timeout_ms);
int zka_ring_pop(struct zka_arena *a, int ring, uint32_t *idx, int timeout_ms);

/* ---- states ---- */
/* QUARANTINED: a record found corrupt and taken out of use for good (zka_arena_repair). */
enum zka_slot_state {
	ZKA_SLOT_FREE = 1, ZKA_SLOT_WRITING, ZKA_SLOT_READY, ZKA_SLOT_PROVING, ZKA_SLOT_QUARANTINED
};
enum zka_job_state {
	ZKA_JOB_FREE = 1, ZKA_JOB_FILLING, ZKA_JOB_SUBMITTED, ZKA_JOB_SYNTHESIZING, ZKA_JOB_READY,
	ZKA_JOB_PROVING, ZKA_JOB_DONE, ZKA_JOB_FAILED, ZKA_JOB_QUARANTINED,
	ZKA_JOB_LEASED /* an external producer (libzkarena) fills its slot: zka_job_lease */
};
#define ZKA_JOB_STATE_MAX ZKA_JOB_LEASED
enum zka_circuit_state { ZKA_CIRCUIT_FREE = 1, ZKA_CIRCUIT_LOADING, ZKA_CIRCUIT_LOADED };
const char *zka_slot_state_name(int s);
const char *zka_job_state_name(int s);

struct zka_owner_info {
	int32_t pid;    /* 0: owner entry empty / no owner */
	uint64_t start; /* start time, clock ticks after boot (/proc/PID/stat field 22) */
	int alive;
};

struct zka_slot_info {
	int state; /* 0: record corrupt (quarantined) */
	uint32_t owner, job, gen; /* owner/job ZKA_NONE when none */
	struct zka_owner_info who;
	uint64_t data_off, data_size, used_bytes;
	uint32_t form; /* ZKA_SLOT_FORM_*, as the record says (any value: the reader checks) */
	int data_bad; /* data offset or size disagrees with the geometry (such a slot is quarantined) */
};
int zka_slot_info(const struct zka_arena *a, uint32_t slot, struct zka_slot_info *out);
/* Base pointer and size of a slot's data region; only for the slot's owner or its prover. */
void *zka_slot_data(struct zka_arena *a, uint32_t slot, uint64_t *size);
int zka_slot_set_used(struct zka_arena *a, uint32_t slot, uint64_t used);
/* What a slot's data holds (synth/slot_layout.c): a, b and w (AB), or w only (W: the prover
 * computes a = A w and b = B w itself). Reset to AB when the slot is acquired; set by the
 * synthesis that owns the slot before zka_slot_ready. 0, -ERANGE (slot) or -EINVAL (form). */
enum { ZKA_SLOT_FORM_AB = 0, ZKA_SLOT_FORM_W = 1 };
int zka_slot_set_form(struct zka_arena *a, uint32_t slot, uint32_t form);
/* The form word of slot's record, as zka_slot_info gives it without its owner lookup (the
 * prover reads it for every proof); ZKA_SLOT_FORM_AB for a slot out of range. */
uint32_t zka_slot_form(const struct zka_arena *a, uint32_t slot);
/* NUMA node of the slot's pages (sampled with move_pages): >= 0 node; -EXDEV mixed; -ENOSYS
 * without NUMA support; other -errno from move_pages. */
int zka_slot_numa_node(const struct zka_arena *a, uint32_t slot);

struct zka_job_spec {
	uint32_t circuit;  /* index into the circuit table, or ZKA_NONE */
	const char *witness_path, *out_dir; /* < ZKA_PATH_MAX each */
	uint32_t max_attempts; /* 0: the arena's default */
	uint64_t user_tag;     /* free for the caller (tests use it) */
	int32_t priority;      /* higher first; 0: the handle's (zka_arena_set_priority) */
	/* the output directory's identity and the submitter (zka_client_submit sets them; the
	 * prover writes only into a directory with this identity, files owned by uid/gid) */
	uint64_t out_dev, out_ino;
	uint32_t uid, gid;
};
struct zka_job_info {
	int state; /* 0: record corrupt */
	uint32_t owner, slot, attempts, max_attempts, circuit, synth_count, gen;
	struct zka_owner_info who;
	uint64_t id, user_tag;
	int32_t priority;
	int64_t t_submit, t_synth_start, t_synth_end, t_prove_start, t_prove_end; /* ns, REALTIME */
	int64_t t_witness_end; /* the witness in the slot (a stage within synthesis), 0 before */
	char witness_path[ZKA_PATH_MAX], out_dir[ZKA_PATH_MAX], reason[ZKA_REASON_MAX];
	uint64_t out_dev, out_ino;
	uint32_t uid, gid;
	uint32_t acct_uid;    /* who the job counts against ([limits]; zka_arena_set_account) */
	uint32_t prove_count; /* proof attempts started */
	struct zka_attempt_info {
		uint32_t n; /* attempt number, 1-based (0: unused) */
		int32_t pid; /* the prover */
		int64_t t_start, t_end; /* ns, REALTIME; t_end 0: it never finished (killed) */
	} prove_log[ZKA_ATTEMPT_LOG]; /* the last attempts, oldest first */
	int64_t t_finished; /* when it became DONE/FAILED (latest stage time), 0 if not */
};
/* Job ids are (serial << 24 | index): unique for the arena's life. */
static inline uint32_t zka_job_index(uint64_t id)
{
	return (uint32_t)(id & 0xFFFFFFu);
}
int zka_job_info(const struct zka_arena *a, uint32_t job, struct zka_job_info *out);

/* ---- transitions (each is one function; see the table in shm/arena.c) ---- */
/* Submit: FREE -> FILLING(me) -> SUBMITTED, pushed to the submitted ring; *id = job id.
 * -EAGAIN when the job table stays full for timeout_ms. */
/* Priorities: workers take the SUBMITTED job of the highest priority plus one level per
 * ZKA_PRIORITY_AGE_S seconds waited (the bound on starvation), FIFO among equals (shm/table.c);
 * the test hook ZKA_PRIORITY_AGE_MS in the taking process's environment sets a shorter step.
 * zka_arena_set_priority sets the priority of the jobs this handle submits with spec priority
 * 0 (for callers that build the spec elsewhere, e.g. zka_client_submit). */
#define ZKA_PRIORITY_AGE_S 10
#define ZKA_PRIORITY_MIN (-1000)
#define ZKA_PRIORITY_MAX 1000
void zka_arena_set_priority(struct zka_arena *a, int priority);
/* Per-user limits (issue 38), for the jobs of every submitter but the arena's owner and root.
 * A worker that sets them picks by these rules instead: a limited user's priority counts at
 * most max_priority; its waiting time counts from its submit or from the last time one of
 * that user's jobs was taken, whichever is later (so one user's stream cannot keep the age
 * rule to itself); and only its first max_queued queued jobs (in queue order) are eligible,
 * the rest wait behind them. Set by the worker from [limits] of the arena's settings file;
 * submit refuses beyond them too (advisory: the worker is what enforces). */
struct zka_user_limits {
	unsigned set;	      /* ZKA_LIM_* bits: which of the two apply */
	int32_t max_priority; /* ZKA_LIM_PRIORITY */
	uint32_t max_queued;  /* ZKA_LIM_QUEUED, >= 1 */
};
enum { ZKA_LIM_PRIORITY = 1, ZKA_LIM_QUEUED = 2 };
void zka_arena_set_user_limits(struct zka_arena *a, const struct zka_user_limits *l);
/* The user the jobs this handle submits count against under the per-user limits (a server's
 * socket peer, from SO_PEERCRED), or ZKA_ACCT_NONE (the default: the submitter itself). Honoured
 * only for the arena owner's and root's records (a member cannot shift its jobs onto another). */
#define ZKA_ACCT_NONE 0xFFFFFFFFu
void zka_arena_set_account(struct zka_arena *a, uint32_t uid);
int zka_job_submit(struct zka_arena *a, const struct zka_job_spec *spec, uint64_t *id,
		   int timeout_ms);
/* Worker, step 1: pop a FREE slot -> WRITING(me). Blocks on the free-slot ring. */
int zka_slot_acquire(struct zka_arena *a, uint32_t *slot, int timeout_ms);
/* Worker, step 2: pop a SUBMITTED job -> SYNTHESIZING(me, slot), bind slot WRITING(me, job). */
int zka_job_take(struct zka_arena *a, uint32_t slot, uint32_t *job, int timeout_ms);
/* Worker: slot WRITING(me) -> FREE (no job bound, e.g. shutting down). */
int zka_slot_release(struct zka_arena *a, uint32_t slot);
/* Worker, step 3: slot WRITING(me, job) -> READY (pushed to the ready ring), job -> READY. */
/* Stamps the end of the witness stage of the job linked to slot (WRITING, held by me; the job
 * SYNTHESIZING or LEASED): the witness is in the slot, a and b come next. 0 or -errno as
 * zka_slot_ready. */
int zka_job_witness_done(struct zka_arena *a, uint32_t slot);
int zka_slot_ready(struct zka_arena *a, uint32_t slot);
/* Worker: the job is bad (witness): job SYNTHESIZING(me) -> FAILED(reason), slot -> FREE. */
int zka_job_fail_synth(struct zka_arena *a, uint32_t slot, const char *reason);
/* External producers (libzkarena, include/zkarena.h). The job never enters the submitted ring,
 * so no worker's zka_job_take can see it; its owner is the producer, recovered like a worker.
 * Lease: slot FREE -> WRITING(me) [free-slots], job FREE -> FILLING(me) [free-jobs] ->
 * LEASED(me, slot), slot -> WRITING(me, job). spec as for zka_job_submit (witness_path is a
 * label). 0 with *slot and *id; -ETIMEDOUT when no slot came free in timeout_ms, -EAGAIN
 * when the job table stayed full. */
int zka_job_lease(struct zka_arena *a, const struct zka_job_spec *spec, uint32_t *slot,
		  uint64_t *id, int timeout_ms);
/* Commit: slot WRITING(me, j) -> READY(j) [ready], job LEASED(me) -> READY. The producer. */
int zka_job_lease_commit(struct zka_arena *a, uint32_t slot);
/* Abort: job LEASED(me) -> FAILED(reason); slot WRITING(me, j) -> FREE [free-slots]. */
int zka_job_lease_abort(struct zka_arena *a, uint32_t slot, const char *reason);
/* Prover, step 1: pop a READY slot -> PROVING(me), its job -> PROVING(me). */
int zka_slot_take_ready(struct zka_arena *a, uint32_t *slot, uint32_t *job, int timeout_ms);
/* Prover, step 2: job PROVING(me) -> DONE (reason NULL) or FAILED(reason); slot -> FREE.
 * Wakes the job's waiters and one worker blocked on the free-slot ring. */
int zka_job_finish(struct zka_arena *a, uint32_t slot, const char *reason);
/* Client: wait until the job is DONE (returns 0) or FAILED (returns 1; reason in info).
 * -ESTALE: the id no longer names that job; -ETIMEDOUT. Blocks on the job's futex word
 * (a read-only handle may only look: timeout 0, else -EROFS). */
int zka_job_wait(struct zka_arena *a, uint64_t id, int timeout_ms, struct zka_job_info *info);
/* Client: DONE/FAILED -> FREE (record reusable). -EBUSY when not terminal; -EPERM when the
 * caller is neither the job's submitter, the arena's owner nor root (zka_job_may_touch). */
int zka_job_release(struct zka_arena *a, uint64_t id);
/* Whether this process (euid) may cancel, release or read job ji: its submitter (the uid the
 * record names), the arena's owner, or root. A policy of the library and the CLI: in a group
 * arena a member with write access to the object could still write the record itself
 * (docs/ops.md, the multi-user model). */
int zka_job_may_touch(const struct zka_arena *a, const struct zka_job_info *ji);
/* Retention: frees every DONE/FAILED record finished more than the arena's retention ago
 * (oldest first); with need > 0, also frees up to need of the oldest finished records even if
 * younger. Returns the number freed. A freed record keeps its id, output directory and
 * outcome until it is reused (zka_job_expired). Run by recovery and by submit (table full). */
int zka_job_expire(struct zka_arena *a, uint32_t need);
/* After -ESTALE from wait: 0 when id names a record freed by retention and not yet reused
 * (info->out_dir set, info->state DONE or FAILED as it was, reason kept); -ESTALE otherwise. */
int zka_job_expired(const struct zka_arena *a, uint64_t id, struct zka_job_info *info);
/* Records that are neither FREE nor QUARANTINED (live or retained), and those DONE/FAILED. */
void zka_job_counts(const struct zka_arena *a, uint32_t *used, uint32_t *finished);
/* Records SUBMITTED or SYNTHESIZING (read from the state words alone, as zka_job_counts). */
uint32_t zka_job_pending(const struct zka_arena *a);
/* Client: asks that a job not yet finished be cancelled; the worker or prover that handles it
 * next fails it with "cancelled". -ESTALE (no such job), -EALREADY (already DONE/FAILED),
 * -EPERM (not the submitter, the owner or root). */
int zka_job_cancel(struct zka_arena *a, uint64_t id);
/* Returns 1 when cancellation of the job at table index job was requested. */
int zka_job_cancelled(const struct zka_arena *a, uint32_t job);

/* ---- circuits loaded (the table only; loading is the pipeline's job) ---- */
struct zka_circuit_key {
	const char *key_path;
	uint64_t key_size;
	int64_t key_mtime_ns;
	uint64_t header_hash;
};
struct zka_circuit_info {
	int state;
	uint32_t owner;
	char key_path[ZKA_PATH_MAX], params_shm[ZKA_SHM_NAME_MAX];
	uint64_t key_size, header_hash;
	int64_t key_mtime_ns;
};
/* Finds a LOADED or LOADING circuit with this exact key: returns its state (> 0) and index;
 * else claims a FREE entry as LOADING(me) and returns 0 (the caller loads, then publishes). */
int zka_circuit_claim(struct zka_arena *a, const struct zka_circuit_key *k, uint32_t *idx);
/* LOADING(me) -> LOADED with the params shm object's name; or -> FREE when name is NULL. */
int zka_circuit_publish(struct zka_arena *a, uint32_t idx, const char *params_shm);
int zka_circuit_info(const struct zka_arena *a, uint32_t idx, struct zka_circuit_info *out);

/* ---- recovery, checking ---- */
/* Moves records of dead owners back (see arena.c), reaps dead owner entries, wakes all ring
 * waiters. Any process may call it at any time. Returns the number of records recovered. */
int zka_arena_recover(struct zka_arena *a);
/* Checks every invariant that holds when no process is mid-operation (debug/test use):
 * each slot/job in exactly one place, rings exact, links consistent. 0, -EUCLEAN, or -EROFS
 * on a read-only handle (it takes the ring mutexes); when
 * err is not NULL, writes the first violation there. */
int zka_arena_check(struct zka_arena *a, char *err, size_t errsz);
/* Quarantines every corrupt slot and job record (state word out of range, links out of
 * range, a slot's data offset not the geometry's) for good: -> QUARANTINED, out of every
 * ring, never handed out again; then audits the rings. Returns the number quarantined now
 * (*slots, *jobs may be NULL), or -errno. Counted in status (QUARANTINED states). */
int zka_arena_repair(struct zka_arena *a, uint32_t *slots, uint32_t *jobs);
/* Checks the arena's robust mutexes (recovery, each ring) without locking them: a kind other
 * than the one create gave, or a lock word that names no live thread and no dead owner, is
 * not a valid state (a scribbled word: every locker would fail or hang). 0, or -EUCLEAN with
 * "mutex of ring R: ..." in err. `zkarena run` refuses such an arena; with fix set (repair,
 * on an idle arena) each broken mutex is initialised again and the rings audited from the
 * tables; *fixed (may be NULL) counts them. */
int zka_arena_locks_check(struct zka_arena *a, int fix, uint32_t *fixed, char *err,
			  size_t errsz);
/* Resets every corrupt circuit record (state word out of range, a LOADED record without a valid
 * params region name, or with an owner) to FREE, its name cleared: jobs naming it then fail
 * with "no circuit entry", and the next submit of its key loads it again. Named by
 * zka_arena_check. For an idle arena (check --repair). Returns how many, or -EROFS. */
int zka_arena_repair_circuits(struct zka_arena *a);

/* ---- fault injection (inert unless armed) ---- */
/* Arms: at the nth (1-based) hit of STEP this process stops (action 's': SIGSTOP) or dies
 * ('k': SIGKILL). Also armed from the environment: ZKA_FAULT=step[:k|s][@n]. NULL disarms. */
void zka__fault_set(const char *step, char action, unsigned nth);
/* NULL-terminated list of the fault step names. */
extern const char *const zka__fault_steps[];

#endif
