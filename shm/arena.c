/* arena.c - the shared-memory arena: create/open/close/destroy, header, owners, NUMA, faults.
 *
 * ==== Design notes ====
 *
 * Objects. One POSIX shm object "/zkarena-NAME" (mode 0600, or 0660 with a group for
 * submitters: `arena create --group`):
 *   [header 4 KiB: checksummed geometry | recovery mutex | counters]
 *   [owner table: u64 ident per entry (pid:22 | start-ticks:42), 0 = empty]
 *   [circuit table] [job table] [slot table] [rings: 4 system + user rings]
 *   [pad to 2 MiB] [slot data: nslots x slot_stride (2 MiB multiple)]
 * A group arena (geometry flag SPLIT) ends its object at the pad; its slot data is a second
 * object, "/zkarena-NAME+slots", mode 0600, mapped right after the first in one address range
 * (map_split), so every offset means the same in both kinds (I15).
 * Beside it, not in it: the gpuds' status files (shm/gpud_status.c), removed by destroy.
 * Every in-arena reference is an index or an offset. The geometry is copied into the handle
 * once at open, after validation (magic, version, checksum, recomputed layout, object size);
 * nothing is ever re-read from the header afterwards, so a scribbled header cannot move a
 * process's view. Indices read from records or ring cells are bounds-checked before use.
 *
 * State words (one _Atomic uint64_t per record, changed only by CAS; gen bumps on each change):
 *   slot: state:4 owner:12 job:24 gen:24      job: state:4 owner:12 slot:24 attempts:8 gen:16
 *
 * Job states:
 *   FREE -> FILLING(me) -> SUBMITTED -> SYNTHESIZING(w, slot) -> READY(slot) -> PROVING(g, slot)
 *     -> DONE | FAILED(reason) -> FREE
 *   SYNTHESIZING(dead) -> SUBMITTED (attempts+1) | FAILED (attempts == max_attempts)
 *   SYNTHESIZING(w) -> FAILED (bad witness)      PROVING(dead) -> READY      FILLING(dead) -> FREE
 *   FREE -> FILLING(p) -> LEASED(p, slot) -> READY(slot) | FAILED (an external producer p:
 *     libzkarena; never in the submitted ring)    LEASED(dead) -> FAILED | READY (committed)
 *   DONE | FAILED -> FREE (retention: older than retention_s, or the oldest when the table is
 *     needed; `expired` keeps the final state, the serial and the fields until reuse)
 *   any corrupt word -> QUARANTINED (check --repair; never left)
 * Slot states:
 *   FREE -> WRITING(w) -> WRITING(w, job) -> READY(job) -> PROVING(g, job) -> FREE
 *   WRITING(dead) -> FREE       PROVING(dead) -> READY (job not terminal) | FREE (job terminal)
 *   any corrupt word (or data offset) -> QUARANTINED (check --repair; never left)
 *
 * Where: jobs and slots in table.c, circuits in circuit.c, the "(dead)" transitions, check
 * and repair in recover.c (helpers shared by the three in records.h), rings in ring.c.
 *
 * Transition table (function: transition [ring touched]):
 *   zka_job_submit       job FREE -> FILLING(me)                 [pop free-jobs; when empty,
 *                                                                 zka_job_expire(need 1) first]
 *                        job FILLING(me) -> SUBMITTED             [push submitted]
 *   zka_slot_acquire     slot FREE -> WRITING(me, none)           [pop free-slots]
 *   zka_job_take         job SUBMITTED -> SYNTHESIZING(me, s)     [pop submitted]
 *                        slot WRITING(me, none) -> WRITING(me, j)
 *   zka_slot_release     slot WRITING(me, none) -> FREE           [push free-slots]
 *   zka_slot_ready       slot WRITING(me, j) -> READY(j)          [push ready]  (commit point)
 *                        job SYNTHESIZING(*, s) -> READY(s)       (roll-forward, anyone)
 *   zka_job_fail_synth   job SYNTHESIZING(me) -> FAILED; slot WRITING(me) -> FREE [push free]
 *   zka_slot_take_ready  slot READY(j) -> PROVING(me, j)          [pop ready]
 *                        job READY|SYNTHESIZING(*, s) -> PROVING(me, s)   (attempt n begins)
 *   zka_job_finish       job PROVING(me) -> DONE | FAILED; slot PROVING(me) -> FREE [push free]
 *                                                                 (attempt n ends first)
 *   zka_job_lease        slot FREE -> WRITING(me, none)           [pop free-slots]
 *                        job FREE -> FILLING(me) -> LEASED(me, s) [pop free-jobs]
 *                        slot WRITING(me, none) -> WRITING(me, j)
 *   zka_job_lease_commit slot WRITING(me, j) -> READY(j)          [push ready]  (commit point)
 *                        job LEASED(*, s) -> READY(s)             (roll-forward, anyone)
 *   zka_job_lease_abort  job LEASED(me) -> FAILED; slot WRITING(me) -> FREE [push free]
 *   zka_job_release      job DONE|FAILED -> FREE                  [push free-jobs]
 *   zka_job_expire       job DONE|FAILED -> FREE, expired = state [push free-jobs] (recovery
 *                        runs it each time; submit when the table is full)
 *   zka_arena_repair     job/slot corrupt -> QUARANTINED (no ring), then ring audit
 *   zka_arena_recover    every "(dead)" transition above, each by one CAS from the exact word
 *                        that was judged dead, under the recovery mutex.
 *
 * Invariants:
 *   I1. A record's state word changes only by CAS from a word the changer has just read; the
 *       generation field makes every transition's "from" word unique (no ABA).
 *   I2. Ring binding: for each system ring R with state S(R) (free-slots: slot FREE, ready:
 *       slot READY, submitted: job SUBMITTED, free-jobs: job FREE), every transition into or out
 *       of S(R) happens while holding R's mutex, and the ring's content changes by one commit
 *       store (tail for push, head for pop) after the CAS. Hence whenever R's mutex is free,
 *       {records in S(R)} == entries of R, each exactly once.
 *   I3. A process that dies holding R's mutex leaves at most one CAS uncommitted; the next
 *       locker gets EOWNERDEAD and rebuilds R from the table (keeping the old order for entries
 *       still in S(R), appending the missing ones, dropping stale/out-of-range/duplicate ones).
 *       Tables are authoritative; rings are derived.
 *   I4. Owned states (FILLING, SYNTHESIZING, LEASED, PROVING, WRITING) name an owner entry
 *       whose ident (pid, start time) was registered before the record was taken. Only the
 *       owner, or a recoverer that judged the owner dead, changes an owned record.
 *   I5. Slot READY/PROVING with job j implies job j's synthesis is complete: the slot CAS is the
 *       commit point of synthesis and job j may lag in SYNTHESIZING(*, s) or LEASED(*, s);
 *       anyone may roll it forward. A job is terminal (DONE/FAILED) before its slot goes back to
 *       FREE.
 *   I6. One recoverer at a time (robust recovery mutex); each recovered record moves by one CAS
 *       from the exact dead word, so two recoverers (or a recoverer that died and its successor)
 *       never requeue a record twice. An owner entry is reaped only after no record names it.
 *   I7. attempts (in the job word) counts failed attempts; it changes in the same CAS as the
 *       state, so it can never be incremented twice for one death. A job is tried at most
 *       max_attempts times.
 *   I8. Futex words (ring seqs, job done_seq) are bumped after the state change they announce;
 *       waiters are counted before they re-read the state, and wakes are issued only when the
 *       count is non-zero. A waiter that dies leaves its count raised: that costs spurious wake
 *       calls, never a lost wake-up. Recovery wakes every ring waiter (covers a wakee that died
 *       before consuming its wake-up).
 *   I9. Ownership: open refuses an object whose owner is not this euid (ZKA_OPEN_SHARED, for
 *       clients: also root's, or one shared with a group of ours, mode g+rw). Daemons never
 *       open SHARED, so another user's arena of the same name is never served; create is
 *       O_EXCL, so `arena ensure` (create, else open-and-check) is atomic.
 *   I10. Retention: only DONE/FAILED records are freed without their client, oldest first
 *       (finish time = latest stage time), by the same ring-bound CAS as release (I2). A
 *       record is reused only through FREE, so a freed record's serial, out_dir and reason
 *       stay readable (zka_job_expired re-checks serial and state after copying) until a
 *       submit pops it; submit fails for a full table only when no record is DONE/FAILED.
 *   I11. The output identity (out_dev, out_ino, uid, gid) and the attempt log are written
 *       while the record is FILLING(me), before the CAS to SUBMITTED publishes it (ordered by
 *       that CAS); the prover writes only through a directory fd with that identity. Attempt
 *       n (prove_count) starts after the CAS into PROVING(me) and ends before the CAS out of
 *       it; a prover that dies leaves t_end = 0 (recovery does not touch the log).
 *   I12. QUARANTINED has no ring and no transition out: a quarantined record is never popped
 *       or taken again (the audit after repair drops any cell naming it). The quarantining CAS
 *       is made outside the ring mutex (the record was corrupt, so I2 did not hold for it);
 *       the audit restores I2. Repair is for a quiescent arena, like check.
 *   I13. Locks and slot geometry at rest (issue 38): a robust mutex word in no valid state (a
 *       kind other than init's, a holder TID that is neither alive nor marked dead) is named
 *       by check, refused by `run`, and initialised again by repair (zka_arena_locks_check,
 *       recover.c) before its ring is rebuilt from the tables (I3). A FREE slot whose data
 *       offset or size is not the geometry's is moved FREE -> QUARANTINED by the worker that
 *       pops it (under the free ring's mutex, I2) and never handed out; zka_slot_info reports a
 *       quarantined slot as QUARANTINED whatever its data fields hold. A corrupt circuit
 *       record (state out of range, LOADED without a valid region name) is named by check
 *       and reset to FREE by repair (zka_arena_repair_circuits): its key loads again.
 *   I14. Who may touch a job: zka_job_cancel and zka_job_release act only for the record's
 *       submitter uid, the arena's owner or root (zka_job_may_touch). In a group arena any
 *       member can write any record, so the daemons also require the submitter's attestation
 *       (synth/attest.h) before acting on a record.
 *   I15. A group arena's slots are its owner's alone (issue 38): the slot object is created
 *       O_EXCL, 0600, after the arena object (a stale one of the creator's replaced, another
 *       user's refused); open maps it only when it is a regular file of the arena's owner with
 *       no group/other bits, and a member (EACCES) maps the records only, the slot range left
 *       PROT_NONE: zka_slot_data gives NULL and zka_slot_acquire/zka_job_lease -EACCES, so a
 *       member never reads a witness and never quarantines a slot it cannot see.
 *   I16. Accounting (issue 38): a job record's acct_uid is the user it counts against under the
 *       per-user limits; it is written with the identity (I11) from the submitting handle's
 *       zka_arena_set_account, else the submitter. Readers take it only from records whose
 *       submitter is the owner or root (zka__job_account); any other record counts against
 *       its own submitter, so a member cannot shift its jobs onto another user.
 */
#include "shm/internal.h"
#include "shm/zka_gpud_status.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>
#ifdef ZKA_HAVE_NUMA
#include <numa.h>
#include <numaif.h>
#endif

int64_t zka__now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- fault injection ---- */
const char *const zka__fault_steps[] = {
	"ring.locked",        "ring.push.entered",  "ring.push.cell",      "ring.pop.left",
	"ring.repair.cells",  "job.submit.filling", "job.take.popped",     "slot.ready.committed",
	"slot.take_ready.taken", "job.finish.done", "job.fail.failed",     "recover.mid",
	"owner.registered",   "job.lease.leased",   NULL};
int zka__fault_armed;
static char fault_step[64];
static char fault_action = 'k';
static unsigned fault_nth = 1, fault_hits;

void zka__fault_set(const char *step, char action, unsigned nth)
{
	zka__fault_armed = 0;
	if (!step)
		return;
	snprintf(fault_step, sizeof fault_step, "%s", step);
	fault_action = action == 's' ? 's' : 'k';
	fault_nth = nth ? nth : 1;
	fault_hits = 0;
	zka__fault_armed = 1;
}

static void fault_from_env(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	const char *e = getenv("ZKA_FAULT");
	if (!e || !*e)
		return;
	char step[64];
	snprintf(step, sizeof step, "%s", e);
	char action = 'k';
	unsigned nth = 1;
	char *at = strchr(step, '@');
	if (at) {
		*at = 0;
		nth = (unsigned)strtoul(at + 1, NULL, 10);
	}
	char *colon = strchr(step, ':');
	if (colon) {
		*colon = 0;
		action = colon[1];
	}
	zka__fault_set(step, action, nth);
}

void zka__fault_hit(const char *step)
{
	if (strcmp(step, fault_step) != 0 || ++fault_hits != fault_nth)
		return;
	zka__fault_armed = 0;
	raise(fault_action == 's' ? SIGSTOP : SIGKILL);
}

/* ---- names ---- */
int zka_arena_shm_name(const char *name, char *out, size_t outsz)
{
	size_t n = name ? strnlen(name, ZKA_NAME_MAX + 1) : 0;
	if (n == 0 || n > ZKA_NAME_MAX || name[0] == '.')
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '_' || c == '.'))
			return -EINVAL;
	}
	if (out && (size_t)snprintf(out, outsz, "/zkarena-%s", name) >= outsz)
		return -ENAMETOOLONG;
	return 0;
}

/* ---- layout ---- */
static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* Computes every offset of g from its counts; -EINVAL when the counts are out of range. */
static int layout(struct zka__geom *g)
{
	if (g->nslots < 1 || g->nslots > ZKA_MAX_INDEX || g->njobs < 1 || g->njobs > ZKA_MAX_INDEX ||
	    g->nowners < 1 || g->nowners > ZKA_MAX_OWNERS || g->ncircuits < 1 ||
	    g->ncircuits > 4096 || g->max_attempts < 1 || g->max_attempts > 255 ||
	    g->nrings < ZKA_SYS_RINGS || g->nrings > ZKA_SYS_RINGS + ZKA_MAX_USER_RINGS ||
	    g->slot_bytes < 1 || g->slot_bytes > (1ULL << 44) ||
	    (g->nrings > ZKA_SYS_RINGS && (g->user_ring_cap < 1 || g->user_ring_cap > (1u << 20))))
		return -EINVAL;
	g->hdr_bytes = ZKA_HDR_BYTES;
	g->slot_stride = align_up(g->slot_bytes, ZKA_SLOT_ALIGN);
	uint64_t off = ZKA_HDR_BYTES;
	g->owners_off = off;
	off = align_up(off + (uint64_t)g->nowners * 8, 64);
	g->circuits_off = off;
	off = align_up(off + (uint64_t)g->ncircuits * sizeof(struct zka__circuit), 64);
	g->jobs_off = off;
	off = align_up(off + (uint64_t)g->njobs * sizeof(struct zka__job), 64);
	g->slots_off = off;
	off = align_up(off + (uint64_t)g->nslots * sizeof(struct zka__slot), 64);
	for (uint32_t r = 0; r < ZKA_SYS_RINGS + ZKA_MAX_USER_RINGS; r++) {
		uint64_t cap = 0;
		if (r == ZKA_RING_FREE_SLOTS || r == ZKA_RING_READY_SLOTS)
			cap = g->nslots;
		else if (r == ZKA_RING_SUBMITTED_JOBS || r == ZKA_RING_FREE_JOBS)
			cap = g->njobs;
		else if (r < g->nrings)
			cap = g->user_ring_cap;
		g->ring_cap[r] = cap;
		g->rings_off[r] = 0;
		if (cap) {
			g->rings_off[r] = off;
			off = align_up(off + sizeof(struct zka__ring) + cap * 4, 64);
		}
	}
	g->data_off = align_up(off, ZKA_SLOT_ALIGN);
	if (g->slot_stride > (UINT64_MAX - g->data_off) / g->nslots)
		return -EINVAL;
	g->total_bytes = g->data_off + g->slot_stride * g->nslots;
	return 0;
}

static uint64_t geom_sum(const struct zka__geom *g)
{
	return XXH64(g, offsetof(struct zka__geom, checksum), ZKA_MAGIC);
}

/* ---- NUMA ---- */
static int arena_numa_bind(void *p, uint64_t len, int node, int quiet, const char **msg)
{
#ifdef ZKA_HAVE_NUMA
	if (numa_available() < 0 || numa_max_node() < 1) {
		if (node > 0) {
			*msg = "NUMA node does not exist on this machine (single node)";
			return -EINVAL;
		}
		if (!quiet)
			fprintf(stderr, "zkarena arena: NUMA: this machine has a single node (or no "
					"NUMA support); binding skipped\n");
		return 0;
	}
	if (node > numa_max_node()) {
		*msg = "NUMA node does not exist on this machine";
		return -EINVAL;
	}
	unsigned long mask[16] = {0};
	mask[node / (8 * sizeof(unsigned long))] |= 1UL << (node % (8 * sizeof(unsigned long)));
	if (mbind(p, len, MPOL_BIND, mask, sizeof mask * 8, 0) != 0) {
		int e = errno;
		*msg = "mbind(MPOL_BIND) failed";
		return -e;
	}
	return 0;
#else
	(void)p;
	(void)len;
	(void)node;
	(void)msg;
	if (!quiet)
		fprintf(stderr, "zkarena arena: NUMA: built without libnuma; binding skipped\n");
	return 0;
#endif
}

int zka_slot_numa_node(const struct zka_arena *a, uint32_t slot)
{
	if (slot >= a->g.nslots)
		return -ERANGE;
	if (!a->data_mapped)
		return -EACCES; /* a group arena's member: the slots are not mapped (I15) */
#ifdef ZKA_HAVE_NUMA
	enum { N = 8 };
	void *pages[N];
	int status[N];
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t npages = a->g.slot_stride / (uint64_t)pg;
	unsigned char *base = a->base + a->g.data_off + (uint64_t)slot * a->g.slot_stride;
	for (int i = 0; i < N; i++) {
		pages[i] = base + (npages * (uint64_t)i / N) * (uint64_t)pg;
		/* read fault: maps the existing shmem page into this process, so that
		 * move_pages can report it (data read, not a sync word) */
		(void)*(volatile const unsigned char *)pages[i];
	}
	if (move_pages(0, N, pages, NULL, status, 0) != 0)
		return -errno;
	for (int i = 0; i < N; i++) {
		if (status[i] < 0)
			return status[i];
		if (status[i] != status[0])
			return -EXDEV;
	}
	return status[0];
#else
	return -ENOSYS;
#endif
}

/* ---- owners ---- */
int zka__proc_start(pid_t pid, uint64_t *start, char *state)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	int e = errno;
	close(fd);
	if (n <= 0)
		return n < 0 ? -e : -EIO;
	buf[n] = 0;
	char *p = strrchr(buf, ')'); /* comm may contain spaces and ')' */
	if (!p || p[1] != ' ')
		return -EIO;
	p += 2;
	*state = *p;
	/* p is at field 3; the start time is field 22 */
	for (int f = 3; f < 22; f++) {
		p = strchr(p, ' ');
		if (!p)
			return -EIO;
		p++;
	}
	*start = strtoull(p, NULL, 10);
	return 0;
}

void zka__owner_info(const struct zka_arena *a, uint32_t idx, struct zka_owner_info *o)
{
	memset(o, 0, sizeof *o);
	if (idx >= a->g.nowners)
		return;
	/* acquire: pairs with the registering CAS; the ident is self-contained anyway */
	uint64_t id = atomic_load_explicit(&owners(a)[idx], memory_order_acquire);
	if (!id)
		return;
	o->pid = (int32_t)(id & ((1u << 22) - 1));
	o->start = id >> 22;
	o->alive = zka__owner_alive(a, idx);
}

int zka__owner_alive(const struct zka_arena *a, uint32_t idx)
{
	if (idx >= a->g.nowners)
		return 0;
	/* acquire: see zka__owner_info */
	uint64_t id = atomic_load_explicit(&owners(a)[idx], memory_order_acquire);
	if (!id)
		return 0;
	pid_t pid = (pid_t)(id & ((1u << 22) - 1));
	uint64_t start;
	char st;
	int rc = zka__proc_start(pid, &start, &st);
	if (rc == -ENOENT || rc == -ESRCH)
		return 0;
	if (rc < 0)
		return 1; /* cannot tell: never recover a possibly live owner */
	if (st == 'Z' || st == 'X' || (start & ((1ULL << 42) - 1)) != (id >> 22))
		return 0;
	return 1;
}

static pthread_mutex_t self_mu = PTHREAD_MUTEX_INITIALIZER;

int zka__self(struct zka_arena *a, uint32_t *idx)
{
	if (a->flags & ZKA_OPEN_RDONLY)
		return -EROFS;
	pid_t me = getpid();
	pthread_mutex_lock(&self_mu);
	int rc = 0;
	if (a->owner_pid == me && a->owner_idx != ZKA_OWNER_NONE) {
		*idx = a->owner_idx;
		goto out;
	}
	uint64_t start;
	char st;
	rc = zka__proc_start(me, &start, &st);
	if (rc < 0)
		goto out;
	if ((uint32_t)me >= (1u << 22)) {
		rc = -EOVERFLOW;
		goto out;
	}
	uint64_t ident = w_owner_ident(me, start);
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < a->g.nowners; i++) {
			uint64_t zero = 0;
			/* acq_rel: claims the entry; our later record CASes (seq_cst) follow it, so
			 * anyone who sees our index in a record sees our ident (I4). */
			if (atomic_compare_exchange_strong_explicit(&owners(a)[i], &zero, ident,
								    memory_order_acq_rel,
								    memory_order_relaxed)) {
				a->owner_pid = me;
				a->owner_idx = i;
				*idx = i;
				ZKA_FAULT("owner.registered");
				goto out;
			}
		}
		if (pass == 0) {
			pthread_mutex_unlock(&self_mu);
			zka_arena_recover(a); /* reaps dead owners */
			pthread_mutex_lock(&self_mu);
		}
	}
	rc = -ENOSPC;
out:
	pthread_mutex_unlock(&self_mu);
	return rc;
}

/* ---- create / open ---- */
static int init_mutex(pthread_mutex_t *mu)
{
	pthread_mutexattr_t at;
	int rc = pthread_mutexattr_init(&at);
	if (rc)
		return -rc;
	rc = pthread_mutexattr_setpshared(&at, PTHREAD_PROCESS_SHARED);
	if (!rc)
		rc = pthread_mutexattr_setrobust(&at, PTHREAD_MUTEX_ROBUST);
	if (!rc)
		rc = pthread_mutex_init(mu, &at);
	pthread_mutexattr_destroy(&at);
	return -rc;
}

int zka__ring_init(pthread_mutex_t *mu)
{
	return init_mutex(mu);
}

static void prefault(unsigned char *p, uint64_t len)
{
#ifdef MADV_POPULATE_WRITE
	if (madvise(p, len, MADV_POPULATE_WRITE) == 0)
		return;
#endif
	long pg = sysconf(_SC_PAGESIZE);
	for (uint64_t o = 0; o < len; o += (uint64_t)pg)
		((volatile unsigned char *)p)[o] = 0; /* private zero page fault-in, not a sync word */
}

/* "/zkarena-NAME+slots": the slot object of a split arena ('+' is in no arena name, so it names
 * no other arena). -EINVAL/-ENAMETOOLONG as zka_arena_shm_name. */
static int slots_shm_name(const char *name, char *out, size_t outsz)
{
	char shm[ZKA_NAME_MAX + 16];
	int rc = zka_arena_shm_name(name, shm, sizeof shm);
	if (rc < 0)
		return rc;
	return (size_t)snprintf(out, outsz, "%s+slots", shm) >= outsz ? -ENAMETOOLONG : 0;
}

/* Maps a split arena at one address range of total bytes: the arena object's first data_off
 * bytes from cfd, then the slot object's from dfd at data_off, so every offset of the geometry
 * means what it means in a single object. dfd < 0: the slot range stays reserved, PROT_NONE (a
 * group member: a stray access faults, it never reads another user's slot). MAP_FAILED and
 * errno on failure, nothing left mapped. */
static void *map_split(int cfd, int dfd, uint64_t data_off, uint64_t total, int prot)
{
	unsigned char *r =
	    mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r == MAP_FAILED)
		return MAP_FAILED;
	if (mmap(r, data_off, prot, MAP_SHARED | MAP_FIXED, cfd, 0) == MAP_FAILED ||
	    (dfd >= 0 && mmap(r + data_off, total - data_off, prot, MAP_SHARED | MAP_FIXED, dfd,
			      0) == MAP_FAILED)) {
		int e = errno;
		munmap(r, total);
		errno = e;
		return MAP_FAILED;
	}
	return r;
}

/* "the slot object /dev/shm/NAME+slots WHAT", in a per-thread buffer (a *msg that names it). */
static const char *slots_msg(const char *shm, const char *what)
{
	static _Thread_local char m[ZKA_NAME_MAX + 160];
	snprintf(m, sizeof m, "the slot object /dev/shm%s %s", shm, what);
	return m;
}

/* Creates the owner-only slot object of a split arena (O_EXCL, 0600). A stale one of this user
 * (a create that died) is replaced; one that cannot be unlinked (another user's, in the sticky
 * /dev/shm: squatted) refuses the arena. The fd, or -errno with *msg. */
static int create_slots(const char *name, const char **msg)
{
	char shm[ZKA_NAME_MAX + 24];
	int rc = slots_shm_name(name, shm, sizeof shm);
	if (rc < 0)
		return rc;
	for (int tries = 0; tries < 2; tries++) {
		int fd = shm_open(shm, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST || tries)
			break;
		if (shm_unlink(shm) != 0) {
			rc = -errno;
			*msg =
			    slots_msg(shm, "exists and is not this user's to remove (squatted by "
					   "another user?)");
			return rc;
		}
	}
	rc = -errno;
	*msg = slots_msg(shm, "cannot be created");
	return rc;
}

int zka_arena_create(const char *name, const struct zka_arena_params *p, struct zka_arena **out,
		     const char **msg)
{
	const char *dummy;
	if (!msg)
		msg = &dummy;
	*msg = NULL;
	char shm[ZKA_NAME_MAX + 16];
	int fd = -1, dfd = -1, rc, created = 0;
	struct zka_arena *a = NULL;
	void *base = MAP_FAILED;
	struct zka__geom g;
	fault_from_env();
	memset(&g, 0, sizeof g);
	if ((rc = zka_arena_shm_name(name, shm, sizeof shm)) < 0) {
		*msg = "invalid name (use 1-64 of [A-Za-z0-9._-], not starting with '.')";
		goto err;
	}
	g.magic = 0; /* set last */
	g.version = ZKA_VERSION;
	g.nslots = p->nslots;
	g.slot_bytes = p->slot_bytes;
	g.njobs = p->njobs ? p->njobs : (p->nslots * 4 < 64 ? 64 : p->nslots * 4);
	g.nowners = p->nowners ? p->nowners : 1024;
	g.ncircuits = p->ncircuits ? p->ncircuits : 16;
	g.max_attempts = p->max_attempts ? p->max_attempts : 3;
	g.nrings = ZKA_SYS_RINGS + p->nuser_rings;
	g.user_ring_cap = p->nuser_rings ? (p->user_ring_cap ? p->user_ring_cap : 64) : 0;
	g.numa_node = p->numa_node;
	g.retention_s = p->retention_s ? p->retention_s : ZKA_RETENTION_DEFAULT;
	g.epoch_ns = zka__now_ns();
	g.flags = p->share_group ? ZKA_GEOM_SPLIT : 0; /* the members never map the slots */
	if (p->nuser_rings > ZKA_MAX_USER_RINGS || p->numa_node < -1 || p->numa_node > 1023 ||
	    (rc = layout(&g)) < 0) {
		rc = -EINVAL;
		*msg = "geometry out of range (slots 1..16M, jobs 1..16M, owners 1..4094, "
		       "max-attempts 1..255, slot-bytes 1..16T)";
		goto err;
	}
	if (!(a = calloc(1, sizeof *a))) {
		rc = -ENOMEM;
		goto err;
	}
	fd = shm_open(shm, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
		*msg = rc == -EEXIST ? "arena already exists" : "shm_open failed";
		goto err;
	}
	created = 1;
	/* --group: the object is shared with one group (mode 0660), for submitters */
	if (p->share_group &&
	    (fchown(fd, (uid_t)-1, (gid_t)p->group) != 0 || fchmod(fd, 0660) != 0)) {
		rc = -errno;
		*msg = "cannot give the arena to the group (fchown/fchmod)";
		goto err;
	}
	a->obj_uid = (uint32_t)geteuid();
	a->obj_gid = p->share_group ? p->group : (uint32_t)getegid();
	a->obj_mode = p->share_group ? 0660 : 0600;
	/* split: the arena object ends at data_off, the slots live in their own 0600 object */
	uint64_t obj_bytes = (g.flags & ZKA_GEOM_SPLIT) ? g.data_off : g.total_bytes;
	if ((g.flags & ZKA_GEOM_SPLIT) && (dfd = rc = create_slots(name, msg)) < 0)
		goto err;
	if (ftruncate(fd, (off_t)obj_bytes) != 0 ||
	    (dfd >= 0 && ftruncate(dfd, (off_t)(g.total_bytes - g.data_off)) != 0)) {
		rc = -errno;
		*msg = "ftruncate failed";
		goto err;
	}
	base = dfd >= 0 ? map_split(fd, dfd, g.data_off, g.total_bytes, PROT_READ | PROT_WRITE)
			: mmap(NULL, g.total_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		rc = -errno;
		*msg = "mmap failed";
		goto err;
	}
	if (g.numa_node >= 0 &&
	    (rc = arena_numa_bind(base, g.total_bytes, g.numa_node, 0, msg)) < 0)
		goto err;
	/* Bound before any page exists: fallocate and pre-fault obey the shared policy. */
	rc = posix_fallocate(fd, 0, (off_t)obj_bytes);
	if (rc == 0 && dfd >= 0)
		rc = posix_fallocate(dfd, 0, (off_t)(g.total_bytes - g.data_off));
	if (rc != 0) {
		rc = -rc;
		*msg = rc == -ENOSPC ? "not enough space in /dev/shm for the arena"
				     : "posix_fallocate failed";
		goto err;
	}
	prefault(base, g.total_bytes);

	a->base = base;
	a->size = g.total_bytes;
	a->g = g;
	a->owner_idx = ZKA_OWNER_NONE;
	a->data_mapped = 1;
	a->acct_uid = ZKA_ACCT_NONE;
	snprintf(a->name, sizeof a->name, "%s", name);
	struct zka__hdr *h = hdr(a);
	h->g = g;
	if ((rc = init_mutex(&h->recover_mu)) < 0) {
		*msg = "pthread_mutex_init failed";
		goto err;
	}
	atomic_init(&h->next_serial, 0);
	for (uint32_t i = 0; i < g.nslots; i++) {
		struct zka__slot *s = slot_rec(a, i);
		atomic_init(&s->word, w_slot(ZKA_SLOT_FREE, ZKA_OWNER_NONE, ZKA_NONE, 0));
		atomic_init(&s->data_off, g.data_off + (uint64_t)i * g.slot_stride);
		atomic_init(&s->data_size, g.slot_stride);
	}
	for (uint32_t i = 0; i < g.njobs; i++)
		atomic_init(&job_rec(a, i)->word,
			    w_job(ZKA_JOB_FREE, ZKA_OWNER_NONE, ZKA_NONE, 0, 0));
	for (uint32_t i = 0; i < g.ncircuits; i++)
		atomic_init(&circ_rec(a, i)->word, (uint64_t)ZKA_CIRCUIT_FREE | ZKA_OWNER_NONE << 4);
	for (uint32_t r = 0; r < g.nrings; r++) {
		struct zka__ring *R = ring_at(a, r);
		if ((rc = init_mutex(&R->mu)) < 0) {
			*msg = "pthread_mutex_init failed";
			goto err;
		}
		uint32_t fill = r == ZKA_RING_FREE_SLOTS ? g.nslots
				: r == ZKA_RING_FREE_JOBS ? g.njobs
							  : 0;
		for (uint32_t i = 0; i < fill; i++)
			atomic_init(&R->cells[i], i);
		atomic_init(&R->head, 0);
		atomic_init(&R->tail, fill);
	}
	g.magic = ZKA_MAGIC;
	g.checksum = geom_sum(&g);
	a->g = g;
	h->g.checksum = g.checksum;
	/* release: every initialising store above happens-before an opener's check of magic */
	atomic_store_explicit((_Atomic uint64_t *)&h->g.magic, ZKA_MAGIC, memory_order_release);
	if (msync(base, ZKA_HDR_BYTES, MS_ASYNC) != 0) {
		/* tmpfs: nothing to flush; ignore */
	}
	close(fd);
	if (dfd >= 0)
		close(dfd);
	*out = a;
	return 0;
err:
	if (base != MAP_FAILED)
		munmap(base, g.total_bytes);
	if (fd >= 0)
		close(fd);
	if (dfd >= 0) {
		char ds[ZKA_NAME_MAX + 24];
		close(dfd);
		if (slots_shm_name(name, ds, sizeof ds) == 0)
			shm_unlink(ds);
	}
	if (created)
		shm_unlink(shm);
	free(a);
	if (!*msg)
		*msg = strerror(-rc);
	return rc;
}

/* Opens the slot object of a split arena whose arena object has the status *cst: *dfd = the
 * fd, or -1 when this user may not read it (a member of the arena's group: the slots are the
 * owner's alone). Refused (-errno, *msg): a slot object that is missing, not a regular file, not
 * owned by the arena's owner, readable or writable by anyone else (a replaced or loosened
 * object would expose or feed the slots). */
static int open_slots(const char *name, const struct stat *cst, int ro, int *dfd, const char **msg)
{
	char shm[ZKA_NAME_MAX + 24];
	struct stat st;
	int rc = slots_shm_name(name, shm, sizeof shm);
	*dfd = -1;
	if (rc < 0)
		return rc;
	int fd = shm_open(shm, (ro ? O_RDONLY : O_RDWR) | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		if (rc == -EACCES && geteuid() != cst->st_uid)
			return 0; /* a member: the arena's records only */
		*msg = slots_msg(shm, rc == -ENOENT ? "is missing" : "cannot be opened");
		return rc;
	}
	if (fstat(fd, &st) != 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != cst->st_uid || (st.st_mode & 077)) {
		close(fd);
		*msg = slots_msg(shm, "is not the arena owner's alone (owner or mode changed): "
				      "refused");
		return -EPERM;
	}
	*dfd = fd;
	return 0;
}

int zka_arena_open(const char *name, int flags, struct zka_arena **out, const char **msg)
{
	const char *dummy;
	if (!msg)
		msg = &dummy;
	*msg = NULL;
	char shm[ZKA_NAME_MAX + 16];
	int fd = -1, rc;
	struct zka_arena *a = NULL;
	void *base = MAP_FAILED;
	uint64_t maplen = 0;
	struct stat stt;
	fault_from_env();
	if ((rc = zka_arena_shm_name(name, shm, sizeof shm)) < 0) {
		*msg = "invalid name (use 1-64 of [A-Za-z0-9._-], not starting with '.')";
		goto err;
	}
	int ro = flags & ZKA_OPEN_RDONLY;
	fd = shm_open(shm, (ro ? O_RDONLY : O_RDWR) | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		*msg = rc == -ENOENT  ? "no such arena (ENOENT)"
		       : rc == -EACCES ? "permission denied (EACCES): the arena belongs to another "
					 "user and is not shared with this one (arena create --group)"
		       : rc == -ELOOP  ? "refusing a symbolic link (ELOOP)"
				       : "shm_open failed";
		goto err;
	}
	if (fstat(fd, &stt) != 0) {
		rc = -errno;
		goto err;
	}
	static _Thread_local char owner_msg[256];
	if (!S_ISREG(stt.st_mode)) {
		rc = -EINVAL;
		*msg = "not a regular shm object";
		goto err;
	}
	if ((rc = zka_owner_check((uint32_t)stt.st_uid, (uint32_t)stt.st_gid,
				  (uint32_t)stt.st_mode & 07777, !!(flags & ZKA_OPEN_SHARED),
				  owner_msg, sizeof owner_msg)) < 0) {
		*msg = owner_msg;
		goto err;
	}
	if ((uint64_t)stt.st_size < ZKA_HDR_BYTES) {
		rc = -EINVAL;
		*msg = "truncated: smaller than the arena header";
		goto err;
	}
	maplen = (uint64_t)stt.st_size;
	base = mmap(NULL, maplen, PROT_READ | (ro ? 0 : PROT_WRITE), MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		rc = -errno;
		*msg = "mmap failed";
		goto err;
	}
	struct zka__geom g;
	/* acquire: pairs with the creator's release store of magic */
	uint64_t magic = atomic_load_explicit((_Atomic uint64_t *)base, memory_order_acquire);
	memcpy(&g, base, sizeof g);
	if (magic != ZKA_MAGIC) {
		rc = -EBADMSG;
		*msg = "bad magic: not a zkarena arena (or still being created)";
		goto err;
	}
	if (g.version != ZKA_VERSION) {
		rc = -EPROTO;
		*msg = "arena has another layout version than this build (let the old build finish its "
		       "jobs, then destroy and re-create the arena)";
		goto err;
	}
	if (geom_sum(&g) != g.checksum) {
		rc = -EBADMSG;
		*msg = "header checksum mismatch: corrupt header";
		goto err;
	}
	struct zka__geom chk = g;
	if (layout(&chk) < 0 || memcmp(&chk, &g, offsetof(struct zka__geom, checksum)) != 0) {
		rc = -EBADMSG;
		*msg = "header geometry is inconsistent";
		goto err;
	}
	int split = !!(g.flags & ZKA_GEOM_SPLIT), mapped = 1;
	if (g.flags & ~ZKA_GEOM_SPLIT) {
		rc = -EBADMSG;
		*msg = "header geometry has unknown flags";
		goto err;
	}
	if (maplen < (split ? g.data_off : g.total_bytes)) {
		rc = -EINVAL;
		*msg = "truncated: object is smaller than its header says";
		goto err;
	}
	if (split) {
		/* the header is validated: map again, the slot object (if ours to read) after it */
		int dfd = -1;
		if ((rc = open_slots(name, &stt, ro, &dfd, msg)) < 0)
			goto err;
		munmap(base, maplen);
		maplen = g.total_bytes;
		base = map_split(fd, dfd, g.data_off, g.total_bytes,
				 PROT_READ | (ro ? 0 : PROT_WRITE));
		rc = -errno;
		if (dfd >= 0)
			close(dfd);
		mapped = dfd >= 0;
		if (base == MAP_FAILED) {
			*msg = "mmap failed";
			goto err;
		}
	}
	if (!(a = calloc(1, sizeof *a))) {
		rc = -ENOMEM;
		goto err;
	}
	a->base = base;
	a->size = maplen;
	a->data_mapped = mapped;
	a->acct_uid = ZKA_ACCT_NONE;
	a->g = g;
	a->flags = flags;
	a->owner_idx = ZKA_OWNER_NONE;
	a->obj_uid = (uint32_t)stt.st_uid;
	a->obj_gid = (uint32_t)stt.st_gid;
	a->obj_mode = (uint32_t)stt.st_mode & 07777;
	snprintf(a->name, sizeof a->name, "%s", name);
	close(fd);
	if (!(flags & (ZKA_OPEN_RDONLY | ZKA_OPEN_NORECOVER)))
		zka_arena_recover(a);
	*out = a;
	return 0;
err:
	if (base != MAP_FAILED)
		munmap(base, maplen);
	if (fd >= 0)
		close(fd);
	free(a);
	if (!*msg)
		*msg = strerror(-rc);
	return rc;
}

/* Does any record name owner idx? */
static int owner_in_use(const struct zka_arena *a, uint32_t idx)
{
	for (uint32_t i = 0; i < a->g.nslots; i++) {
		/* relaxed: a scan of our own records, no ordering needed */
		uint64_t w = atomic_load_explicit(&slot_rec(a, i)->word, memory_order_relaxed);
		if (w_owner(w) == idx)
			return 1;
	}
	for (uint32_t i = 0; i < a->g.njobs; i++) {
		uint64_t w = atomic_load_explicit(&job_rec(a, i)->word, memory_order_relaxed);
		if (w_owner(w) == idx)
			return 1;
	}
	for (uint32_t i = 0; i < a->g.ncircuits; i++) {
		uint64_t w = atomic_load_explicit(&circ_rec(a, i)->word, memory_order_relaxed);
		if (w_owner(w) == idx)
			return 1;
	}
	return 0;
}

int zka__owner_in_use(const struct zka_arena *a, uint32_t idx)
{
	return owner_in_use(a, idx);
}

void zka_arena_close(struct zka_arena *a)
{
	if (!a)
		return;
	if (a->owner_idx != ZKA_OWNER_NONE && a->owner_pid == getpid() &&
	    !owner_in_use(a, a->owner_idx)) {
		uint64_t id = atomic_load_explicit(&owners(a)[a->owner_idx], memory_order_relaxed);
		/* release: our record CASes (all undone, per the scan) precede freeing the entry */
		atomic_compare_exchange_strong_explicit(&owners(a)[a->owner_idx], &id, 0,
							memory_order_release, memory_order_relaxed);
	}
	munmap(a->base, a->size);
	free(a);
}

int zka_arena_destroy(const char *name)
{
	char shm[ZKA_NAME_MAX + 16];
	int rc = zka_arena_shm_name(name, shm, sizeof shm);
	if (rc < 0)
		return rc;
	if (shm_unlink(shm) != 0)
		return -errno;
	if (slots_shm_name(name, shm, sizeof shm) == 0)
		shm_unlink(shm);	  /* a split arena's slots (ENOENT for the others) */
	zka_gpud_status_remove_all(name); /* no gpud's status file outlives the arena */
	return 0;
}

const char *zka_arena_name(const struct zka_arena *a)
{
	return a->name;
}

void zka_arena_owner(const struct zka_arena *a, uint32_t *uid, uint32_t *gid, uint32_t *mode)
{
	if (uid)
		*uid = a->obj_uid;
	if (gid)
		*gid = a->obj_gid;
	if (mode)
		*mode = a->obj_mode;
}

static int in_groups(gid_t g)
{
	if (getegid() == g)
		return 1;
	gid_t list[256];
	int n = getgroups(256, list);
	for (int i = 0; i < n; i++)
		if (list[i] == g)
			return 1;
	return 0;
}

int zka_owner_check(uint32_t uid, uint32_t gid, uint32_t mode, int shared, char *msg,
		    size_t msgsz)
{
	uid_t me = geteuid();
	if (uid == (uint32_t)me)
		return 0;
	if (shared && (uid == 0 || ((mode & 060) == 060 && in_groups((gid_t)gid))))
		return 0;
	char who[64], grp[64];
	struct passwd pw, *pp = NULL;
	struct group gr, *gp = NULL;
	char buf[1024];
	if (getpwuid_r((uid_t)uid, &pw, buf, sizeof buf, &pp) == 0 && pp)
		snprintf(who, sizeof who, "%s", pp->pw_name);
	else
		snprintf(who, sizeof who, "?");
	if (getgrgid_r((gid_t)gid, &gr, buf, sizeof buf, &gp) == 0 && gp)
		snprintf(grp, sizeof grp, "%s", gp->gr_name);
	else
		snprintf(grp, sizeof grp, "?");
	snprintf(msg, msgsz,
		 "owned by uid %u (%s), group %u (%s), mode %04o, not by this user (uid %u): "
		 "refusing another user's object (EPERM)%s",
		 uid, who, gid, grp, mode, (unsigned)me,
		 shared ? "" : "; submitters may use one shared with their group, daemons only their own");
	return -EPERM;
}

void zka_arena_geometry(const struct zka_arena *a, struct zka_arena_geometry *o)
{
	memset(o, 0, sizeof *o);
	o->version = a->g.version;
	o->nslots = a->g.nslots;
	o->njobs = a->g.njobs;
	o->nowners = a->g.nowners;
	o->ncircuits = a->g.ncircuits;
	o->max_attempts = a->g.max_attempts;
	o->nrings = a->g.nrings;
	o->numa_node = a->g.numa_node;
	o->retention_s = a->g.retention_s;
	o->slot_bytes = a->g.slot_bytes;
	o->slot_stride = a->g.slot_stride;
	o->total_bytes = a->g.total_bytes;
	o->data_off = a->g.data_off;
	o->epoch_ns = a->g.epoch_ns;
	o->jobs_off = a->g.jobs_off;
	o->slots_off = a->g.slots_off;
	o->job_rec_bytes = sizeof(struct zka__job);
	o->slot_rec_bytes = sizeof(struct zka__slot);
	o->split = !!(a->g.flags & ZKA_GEOM_SPLIT);
	o->slots_mapped = (uint32_t)a->data_mapped;
}

static const char *const counter_names[ZKA_C_COUNT] = {
	"pushes",        "pops",          "waits",        "wakes",          "timeouts",
	"recover_runs",  "recovered",     "owners_reaped", "ring_repairs",  "quarantined",
	"cleanup_failures", "jobs_submitted", "jobs_done", "jobs_failed"};

const char *zka_counter_name(int c)
{
	return c >= 0 && c < ZKA_C_COUNT ? counter_names[c] : "?";
}

uint64_t zka_arena_counter(const struct zka_arena *a, int c)
{
	if (c < 0 || c >= ZKA_C_COUNT)
		return 0;
	/* relaxed: statistics */
	return atomic_load_explicit(&hdr(a)->counters[c], memory_order_relaxed);
}

uint64_t zka_arena_state_entries(const struct zka_arena *a, int is_job, int state)
{
	if (state < 0 || state >= (is_job ? 16 : 8))
		return 0;
	/* relaxed: statistics */
	return atomic_load_explicit(is_job ? &hdr(a)->into_job_state[state]
					   : &hdr(a)->into_slot_state[state],
				    memory_order_relaxed);
}
