/* recover.c - recovery of dead owners' records, the invariant checker and the quarantine of
 * corrupt records. The transitions they make are arena.c's "(dead)" ones and
 * zka_arena_repair's; the invariants they rely on and restore are I2-I6 and I12 (arena.c).
 * One recoverer at a time: the robust recovery mutex in the header (I6). */
#include "shm/records.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- recovery ---- */

/* Is the owner named by word w dead? An owner index out of range or naming an empty entry is
 * corrupt (I4 says registration precedes use, and only recovery reaps): treated as dead. */
static int owner_dead(struct zka_arena *a, uint32_t o)
{
	if (o == ZKA_OWNER_NONE)
		return 0;
	if (o >= a->g.nowners)
		return 1;
	if (o == a->owner_idx && a->owner_pid == getpid())
		return 0;
	return !zka__owner_alive(a, o);
}

static int job_owned_state(uint32_t st)
{
	return st == ZKA_JOB_FILLING || st == ZKA_JOB_SYNTHESIZING || st == ZKA_JOB_PROVING ||
	       st == ZKA_JOB_LEASED;
}
static int slot_owned_state(uint32_t st)
{
	return st == ZKA_SLOT_WRITING || st == ZKA_SLOT_PROVING;
}

/* Recovers job j if its owner is dead. Returns 1 when a record moved. */
static int recover_job(struct zka_arena *a, uint32_t j)
{
	struct zka__job *J = job_rec(a, j);
	uint64_t w = ld(&J->word);
	uint32_t st = w_state(w), s = w_link(w);
	if (!job_owned_state(st) || !owner_dead(a, w_owner(w)))
		return 0;
	int rc;
	switch (st) {
	case ZKA_JOB_FILLING:
		rc = zka__push_job(a, ZKA_RING_FREE_JOBS, j, w,
				   job_next(w, ZKA_JOB_FREE, ZKA_OWNER_NONE, ZKA_NONE, 0));
		break;
	case ZKA_JOB_SYNTHESIZING: {
		/* I5: a READY/PROVING slot bound to j means synthesis completed: roll forward */
		if (s < a->g.nslots) {
			uint64_t sw = ld(&slot_rec(a, s)->word);
			if ((w_state(sw) == ZKA_SLOT_READY || w_state(sw) == ZKA_SLOT_PROVING) &&
			    w_link(sw) == j) {
				zka__job_roll_ready(a, j, s);
				return 1;
			}
		}
		uint32_t att = w_job_attempts(w) + 1;
		uint32_t max = atomic_load(&J->max_attempts);
		if (max < 1 || max > 255)
			max = a->g.max_attempts;
		if (att >= max) {
			snprintf(J->reason, ZKA_REASON_MAX,
				 "synthesis worker died %u time(s) (max_attempts %u)", att, max);
			if (!cas(&J->word, &w,
				 job_next(w, ZKA_JOB_FAILED, ZKA_OWNER_NONE, s, att))) {
				rc = -EBUSY;
				break;
			}
			count_job(a, ZKA_JOB_FAILED);
			cnt(a, ZKA_C_JOBS_FAILED, 1);
			job_announce(J);
			rc = 0;
		} else {
			rc = zka__push_job(
			    a, ZKA_RING_SUBMITTED_JOBS, j, w,
			    job_next(w, ZKA_JOB_SUBMITTED, ZKA_OWNER_NONE, ZKA_NONE, att));
		}
		break;
	}
	case ZKA_JOB_LEASED: {
		/* I5: committed (slot READY/PROVING bound to j): roll forward. Else nobody can
		 * finish the producer's vectors: the job fails, its slot is freed by the slot pass
		 */
		if (s < a->g.nslots) {
			uint64_t sw = ld(&slot_rec(a, s)->word);
			if ((w_state(sw) == ZKA_SLOT_READY || w_state(sw) == ZKA_SLOT_PROVING) &&
			    w_link(sw) == j) {
				zka__job_roll_ready(a, j, s);
				return 1;
			}
		}
		struct zka_owner_info who;
		zka__owner_info(a, w_owner(w), &who);
		snprintf(J->reason, ZKA_REASON_MAX,
			 "its producer (pid %d) died before committing the job", (int)who.pid);
		atomic_store(&J->t_synth_end, zka__now_ns());
		if (!cas(&J->word, &w,
			 job_next(w, ZKA_JOB_FAILED, ZKA_OWNER_NONE, s, w_job_attempts(w)))) {
			rc = -EBUSY;
			break;
		}
		count_job(a, ZKA_JOB_FAILED);
		cnt(a, ZKA_C_JOBS_FAILED, 1);
		job_announce(J);
		rc = 0;
		break;
	}
	case ZKA_JOB_PROVING:
		/* the slot keeps its a, b, w: back to READY, no re-synthesis; the slot follows */
		rc = cas(&J->word, &w,
			 job_next(w, ZKA_JOB_READY, ZKA_OWNER_NONE, s, w_job_attempts(w)))
			 ? 0
			 : -EBUSY;
		if (rc == 0)
			count_job(a, ZKA_JOB_READY);
		break;
	default:
		return 0;
	}
	if (rc == -EBUSY)
		return 0; /* the record moved on: someone else handled it */
	if (rc < 0) {
		cnt(a, ZKA_C_CLEANUP_FAILURES, 1);
		return 0;
	}
	return 1;
}

static int recover_slot(struct zka_arena *a, uint32_t s)
{
	struct zka__slot *S = slot_rec(a, s);
	uint64_t w = ld(&S->word);
	uint32_t st = w_state(w), j = w_link(w);
	if (!slot_owned_state(st) || !owner_dead(a, w_owner(w)))
		return 0;
	int rc, to_ready = 0;
	if (st == ZKA_SLOT_PROVING && j < a->g.njobs) {
		uint64_t jw = ld(&job_rec(a, j)->word);
		uint32_t js = w_state(jw);
		/* the job is READY again (recover_job) or was never moved (died between the two
		 * CASes of take_ready): the slot goes back to READY; a terminal job frees it */
		to_ready =
		    (js == ZKA_JOB_READY || js == ZKA_JOB_SYNTHESIZING || js == ZKA_JOB_LEASED) &&
		    w_link(jw) == s;
		if (js == ZKA_JOB_PROVING && w_link(jw) == s) {
			recover_job(a, j); /* job's owner is dead too (same process) */
			jw = ld(&job_rec(a, j)->word);
			to_ready = w_state(jw) == ZKA_JOB_READY && w_link(jw) == s;
		}
	}
	if (to_ready)
		rc = zka__push_slot(a, ZKA_RING_READY_SLOTS, s, w,
				    slot_next(w, ZKA_SLOT_READY, ZKA_OWNER_NONE, j));
	else
		rc = zka__push_slot(a, ZKA_RING_FREE_SLOTS, s, w,
				    slot_next(w, ZKA_SLOT_FREE, ZKA_OWNER_NONE, ZKA_NONE));
	if (rc == -EBUSY)
		return 0;
	if (rc < 0) {
		cnt(a, ZKA_C_CLEANUP_FAILURES, 1);
		return 0;
	}
	return 1;
}

static int recover_circuit(struct zka_arena *a, uint32_t i)
{
	struct zka__circuit *C = circ_rec(a, i);
	uint64_t w = ld(&C->word);
	if (w_state(w) != ZKA_CIRCUIT_LOADING || !owner_dead(a, w_owner(w)))
		return 0;
	uint64_t nw = ZKA_CIRCUIT_FREE | (uint64_t)ZKA_OWNER_NONE << 4 | ((w >> 16) + 1) << 16;
	return cas(&C->word, &w, nw) ? 1 : 0;
}

int zka_arena_recover(struct zka_arena *a)
{
	if (a->flags & ZKA_OPEN_RDONLY)
		return -EROFS;
	struct zka__hdr *h = hdr(a);
	int rc = zka__robust_lock(&h->recover_mu, LOCK_MS);
	if (rc < 0) {
		cnt(a, ZKA_C_CLEANUP_FAILURES, 1);
		return rc;
	}
	cnt(a, ZKA_C_RECOVER_RUNS, 1);
	int n = 0;
	/* jobs first: a SYNTHESIZING job's fate depends on its slot's state (I5) */
	for (uint32_t j = 0; j < a->g.njobs; j++) {
		n += recover_job(a, j);
		if (j == a->g.njobs / 2)
			ZKA_FAULT("recover.mid");
	}
	for (uint32_t s = 0; s < a->g.nslots; s++)
		n += recover_slot(a, s);
	for (uint32_t i = 0; i < a->g.ncircuits; i++)
		n += recover_circuit(a, i);
	/* a second job pass: SYNTHESIZING jobs whose slot moved during the slot pass */
	for (uint32_t j = 0; j < a->g.njobs; j++)
		n += recover_job(a, j);
	/* reap dead owner entries no record names any more (I6) */
	for (uint32_t o = 0; o < a->g.nowners; o++) {
		uint64_t id = atomic_load(&owners(a)[o]);
		if (!id || !owner_dead(a, o) || zka__owner_in_use(a, o))
			continue;
		/* seq_cst CAS: frees the entry only if it still holds the dead ident */
		if (atomic_compare_exchange_strong(&owners(a)[o], &id, 0))
			cnt(a, ZKA_C_OWNERS_REAPED, 1);
	}
	/* tables are authoritative: rings that disagree with them are rebuilt (I2, I3) */
	for (int r = 0; r < (int)ZKA_SYS_RINGS; r++)
		if (zka__ring_audit(a, r, 200) == -ENOMEM)
			cnt(a, ZKA_C_CLEANUP_FAILURES,
			    1); /* busy (live holder): audited next time */
	cnt(a, ZKA_C_RECOVERED, (uint64_t)n);
	pthread_mutex_unlock(&h->recover_mu);
	zka__ring_kick_all(a);
	zka_job_expire(a, 0); /* retention: finished records older than retention_s */
	return n;
}

/* ---- invariant check (quiescent arena) ---- */
#define FAIL(...)                                                                                  \
	do {                                                                                       \
		if (err)                                                                           \
			snprintf(err, errsz, __VA_ARGS__);                                         \
		rc = -EUCLEAN;                                                                     \
		goto out;                                                                          \
	} while (0)

/* ---- the robust mutexes' words (issue 38) ----
 * glibc's robust, process-shared mutex: __lock is 0 (free) or the holder's TID, with
 * FUTEX_OWNER_DIED set by the kernel when the holder died, FUTEX_WAITERS when someone sleeps;
 * __owner repeats the TID while held; __kind is fixed at init. A word outside those states
 * (written by hand, or by a stray store) makes every lock fail (EINVAL) or sleep forever. */
static int mutex_sane(pthread_mutex_t *mu, int kind, char *why, size_t n)
{
	int lock = mu->__data.__lock, owner = mu->__data.__owner, k = mu->__data.__kind;
	unsigned tid = (unsigned)lock & FUTEX_TID_MASK;
	if (k != kind) {
		snprintf(why, n, "kind %d, not %d (lock word %08x)", k, kind, (unsigned)lock);
		return 0;
	}
	if (lock == 0 || (!tid && (lock & FUTEX_OWNER_DIED)))
		return 1;
	if (!tid) {
		snprintf(why, n, "lock word %08x names no thread", (unsigned)lock);
		return 0;
	}
	if ((lock & FUTEX_OWNER_DIED) == 0 && (unsigned)owner != tid &&
	    owner != INT_MAX /* glibc: inconsistent */) {
		snprintf(why, n, "lock word %08x (thread %u) but owner field %d", (unsigned)lock,
			 tid, owner);
		return 0;
	}
	char p[64];
	snprintf(p, sizeof p, "/proc/%u", tid);
	if (access(p, F_OK) && !(lock & FUTEX_OWNER_DIED)) {
		snprintf(why, n, "held by thread %u, which does not exist, and not marked dead",
			 tid);
		return 0;
	}
	return 1;
}

int zka_arena_locks_check(struct zka_arena *a, int fix, uint32_t *fixed, char *err, size_t errsz)
{
	pthread_mutex_t ref;
	uint32_t nfix = 0;
	int rc = 0;
	if (fix && (a->flags & ZKA_OPEN_RDONLY))
		return -EROFS;
	if (zka__ring_init(&ref) < 0)
		return -ENOMEM;
	int kind = ref.__data.__kind;
	pthread_mutex_destroy(&ref);
	for (int r = -1; r < (int)ZKA_SYS_RINGS; r++) {
		pthread_mutex_t *mu = r < 0 ? &hdr(a)->recover_mu : &ring_at(a, r)->mu;
		char why[160];
		if (mutex_sane(mu, kind, why, sizeof why))
			continue;
		if (!fix) {
			if (err)
				snprintf(err, errsz, "mutex of %s%s: not a valid state (%s)",
					 r < 0 ? "the recovery lock" : "ring ",
					 r < 0 ? "" : zka_ring_name(r), why);
			return -EUCLEAN;
		}
		memset(mu, 0, sizeof *mu);
		if ((rc = zka__ring_init(mu)) < 0)
			return rc;
		nfix++;
		if (r >= 0)
			zka__ring_audit(a, r, 1000);
	}
	if (fixed)
		*fixed = nfix;
	return 0;
}

/* Why circuit record i is corrupt, or NULL: a state word out of range, a LOADED record without
 * a params region name ("/name", NUL-terminated, no other '/'), or a LOADED one with an owner. */
static const char *circuit_corrupt(const struct zka_arena *a, uint32_t i)
{
	struct zka__circuit *C = circ_rec(a, i);
	uint64_t w = ld(&C->word);
	uint32_t st = w_state(w);
	if (st < ZKA_CIRCUIT_FREE || st > ZKA_CIRCUIT_LOADED)
		return "state word out of range";
	if (st != ZKA_CIRCUIT_LOADED)
		return NULL;
	if (w_owner(w) != ZKA_OWNER_NONE)
		return "LOADED with an owner";
	size_t n = strnlen(C->params_shm, ZKA_SHM_NAME_MAX);
	if (n == ZKA_SHM_NAME_MAX || n < 2 || C->params_shm[0] != '/' ||
	    memchr(C->params_shm + 1, '/', n - 1))
		return "LOADED without a valid params region name";
	return NULL;
}

int zka_arena_repair_circuits(struct zka_arena *a)
{
	if (a->flags & ZKA_OPEN_RDONLY)
		return -EROFS;
	int n = 0;
	for (uint32_t i = 0; i < a->g.ncircuits; i++) {
		struct zka__circuit *C = circ_rec(a, i);
		uint64_t w = ld(&C->word);
		if (!circuit_corrupt(a, i))
			continue;
		memset(C->params_shm, 0, ZKA_SHM_NAME_MAX);
		uint64_t nw =
		    ZKA_CIRCUIT_FREE | (uint64_t)ZKA_OWNER_NONE << 4 | ((w >> 16) + 1) << 16;
		if (cas(&C->word, &w, nw))
			n++;
	}
	return n;
}

int zka_arena_check(struct zka_arena *a, char *err, size_t errsz)
{
	int rc = 0;
	if (a->flags & ZKA_OPEN_RDONLY)
		return -EROFS; /* it takes the ring mutexes */
	if ((rc = zka_arena_locks_check(a, 0, NULL, err, errsz)))
		return rc;
	for (uint32_t i = 0; i < a->g.ncircuits; i++) {
		const char *why = circuit_corrupt(a, i);
		if (why) {
			if (err)
				snprintf(err, errsz, "circuit record %u: %s", i, why);
			return -EUCLEAN;
		}
	}
	uint32_t nmax = a->g.nslots > a->g.njobs ? a->g.nslots : a->g.njobs;
	unsigned char *seen = calloc(nmax, 1);
	if (!seen)
		return -ENOMEM;
	for (int r = 0; r < (int)ZKA_SYS_RINGS; r++) {
		struct zka__ring *R = ring_at(a, r);
		uint32_t n = zka__ring_table_n(a, r), cap = (uint32_t)a->g.ring_cap[r];
		memset(seen, 0, nmax);
		int lr = zka__robust_lock(&R->mu, LOCK_MS);
		if (lr < 0)
			FAIL("ring %s: cannot lock (%d)", zka_ring_name(r), lr);
		if (lr == 1)
			zka__ring_repair_locked(a, r);
		uint32_t head = atomic_load(&R->head), tail = atomic_load(&R->tail);
		if (tail - head > cap) {
			pthread_mutex_unlock(&R->mu);
			FAIL("ring %s: span %u > capacity %u", zka_ring_name(r), tail - head, cap);
		}
		for (uint32_t i = head; i != tail; i++) {
			uint32_t idx = atomic_load(&R->cells[i % cap]);
			if (idx >= n || seen[idx] || zka__ring_member(a, r, idx) != 1) {
				pthread_mutex_unlock(&R->mu);
				FAIL("ring %s: entry %u (index %u) %s", zka_ring_name(r), i - head,
				     idx,
				     idx >= n	 ? "out of range"
				     : seen[idx] ? "duplicated"
						 : "not in the ring's state");
			}
			seen[idx] = 1;
		}
		for (uint32_t idx = 0; idx < n; idx++)
			if (!seen[idx] && zka__ring_member(a, r, idx) == 1) {
				pthread_mutex_unlock(&R->mu);
				FAIL(
				    "ring %s: record %u is in the ring's state but not in the ring",
				    zka_ring_name(r), idx);
			}
		pthread_mutex_unlock(&R->mu);
	}
	for (uint32_t s = 0; s < a->g.nslots; s++) {
		struct zka_slot_info si;
		zka_slot_info(a, s, &si);
		if (!si.state)
			FAIL("slot %u: corrupt record (check --repair quarantines it)", s);
		if (slot_owned_state((uint32_t)si.state) != (si.owner != ZKA_NONE))
			FAIL("slot %u: %s with owner %u", s, zka_slot_state_name(si.state),
			     si.owner);
		if (si.state == ZKA_SLOT_FREE && si.job != ZKA_NONE)
			FAIL("slot %u: FREE but bound to job %u", s, si.job);
		if (si.state == ZKA_SLOT_READY || si.state == ZKA_SLOT_PROVING ||
		    (si.state == ZKA_SLOT_WRITING && si.job != ZKA_NONE)) {
			uint64_t jw = ld(&job_rec(a, si.job)->word);
			uint32_t js = w_state(jw);
			int ok = w_link(jw) == s &&
				 (si.state == ZKA_SLOT_WRITING
				      ? (js == ZKA_JOB_SYNTHESIZING || js == ZKA_JOB_LEASED)
				  : si.state == ZKA_SLOT_READY
				      ? (js == ZKA_JOB_READY || js == ZKA_JOB_SYNTHESIZING ||
					 js == ZKA_JOB_LEASED)
				      : (js == ZKA_JOB_PROVING || js == ZKA_JOB_READY ||
					 js == ZKA_JOB_SYNTHESIZING || js == ZKA_JOB_LEASED ||
					 js == ZKA_JOB_DONE || js == ZKA_JOB_FAILED));
			if (!ok)
				FAIL("slot %u: %s bound to job %u in state %s (slot link %u)", s,
				     zka_slot_state_name(si.state), si.job,
				     zka_job_state_name((int)js), w_link(jw));
		}
	}
	for (uint32_t j = 0; j < a->g.njobs; j++) {
		struct zka_job_info ji;
		zka_job_info(a, j, &ji);
		if (!ji.state)
			FAIL("job %u: corrupt record (check --repair quarantines it)", j);
		if (job_owned_state((uint32_t)ji.state) != (ji.owner != ZKA_NONE))
			FAIL("job %u: %s with owner %u", j, zka_job_state_name(ji.state), ji.owner);
		if (ji.state == ZKA_JOB_READY || ji.state == ZKA_JOB_PROVING) {
			uint64_t sw = ld(&slot_rec(a, ji.slot)->word);
			uint32_t ss = w_state(sw);
			if (w_link(sw) != j || (ji.state == ZKA_JOB_READY
						    ? ss != ZKA_SLOT_READY && ss != ZKA_SLOT_PROVING
						    : ss != ZKA_SLOT_PROVING))
				FAIL("job %u: %s but slot %u is %s bound to %u", j,
				     zka_job_state_name(ji.state), ji.slot,
				     zka_slot_state_name((int)ss), w_link(sw));
		}
		if (ji.attempts > ji.max_attempts)
			FAIL("job %u: attempts %u > max %u", j, ji.attempts, ji.max_attempts);
	}
out:
	free(seen);
	return rc;
}

const char *zka_slot_state_name(int s)
{
	static const char *const n[] = {"CORRUPT", "FREE",    "WRITING",
					"READY",   "PROVING", "QUARANTINED"};
	return s >= 0 && s <= 5 ? n[s] : "CORRUPT";
}

const char *zka_job_state_name(int s)
{
	static const char *const n[] = {"CORRUPT",	"FREE",	       "FILLING", "SUBMITTED",
					"SYNTHESIZING", "READY",       "PROVING", "DONE",
					"FAILED",	"QUARANTINED", "LEASED"};
	return s >= 0 && s <= ZKA_JOB_STATE_MAX ? n[s] : "CORRUPT";
}

/* ---- quarantine of corrupt records (issue 19) ----
 * A record whose state word is out of range, whose links point outside the tables, or (a
 * slot) whose data offset disagrees with the geometry is corrupt: it moves, by one CAS from
 * the word judged corrupt, to QUARANTINED (no owner, no link) and stays there for good. No
 * ring's state is QUARANTINED, so the ring audit that follows drops any cell naming it. */
int zka_arena_repair(struct zka_arena *a, uint32_t *slots, uint32_t *jobs)
{
	if (a->flags & ZKA_OPEN_RDONLY)
		return -EROFS;
	struct zka__hdr *h = hdr(a);
	int rc = zka__robust_lock(&h->recover_mu, LOCK_MS);
	if (rc < 0)
		return rc;
	uint32_t ns = 0, nj = 0;
	for (uint32_t s = 0; s < a->g.nslots; s++) {
		struct zka__slot *S = slot_rec(a, s);
		uint64_t w = ld(&S->word);
		struct zka_slot_info si;
		zka_slot_info(a, s, &si);
		if (si.state != 0 || w_state(w) == ZKA_SLOT_QUARANTINED)
			continue;
		if (cas(&S->word, &w,
			slot_next(w, ZKA_SLOT_QUARANTINED, ZKA_OWNER_NONE, ZKA_NONE))) {
			count_slot(a, ZKA_SLOT_QUARANTINED);
			ns++;
		}
	}
	for (uint32_t j = 0; j < a->g.njobs; j++) {
		struct zka__job *J = job_rec(a, j);
		uint64_t w = ld(&J->word);
		struct zka_job_info ji;
		zka_job_info(a, j, &ji);
		if (ji.state != 0 || w_state(w) == ZKA_JOB_QUARANTINED)
			continue;
		if (cas(&J->word, &w,
			job_next(w, ZKA_JOB_QUARANTINED, ZKA_OWNER_NONE, ZKA_NONE, 0))) {
			count_job(a, ZKA_JOB_QUARANTINED);
			job_announce(J); /* its waiters stop waiting */
			nj++;
		}
	}
	for (int r = 0; r < (int)ZKA_SYS_RINGS; r++)
		zka__ring_audit(a, r, 1000);
	cnt(a, ZKA_C_QUARANTINED, ns + nj);
	pthread_mutex_unlock(&h->recover_mu);
	zka__ring_kick_all(a);
	if (slots)
		*slots = ns;
	if (jobs)
		*jobs = nj;
	return (int)(ns + nj);
}
