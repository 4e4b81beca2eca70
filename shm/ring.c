/* ring.c - bounded MPMC rings of 32-bit indices: a robust process-shared mutex around a
 * critical section that commits with one store, plus futex waits (see invariants I2, I3, I8
 * in arena.c).
 *
 * push: lock; [enter(idx) CAS]; cells[tail % cap] = idx; tail = tail + 1 (commit); seq++; unlock
 * pop:  lock; idx = cells[head % cap]; [leave(idx) CAS]; head = head + 1 (commit); seq++; unlock
 * A process killed anywhere inside leaves either no change or one uncommitted CAS; the next
 * locker sees EOWNERDEAD and repairs the ring from the table (bound rings) or keeps the
 * committed content (plain rings, whose cell writes are invisible until the commit).
 */
#include "shm/internal.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int zka__futex_wait(_Atomic uint32_t *w, uint32_t val, const struct timespec *abs_mono)
{
	/* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline; shared (no PRIVATE flag)
	 * because the word lives in memory mapped by several processes. */
	long rc = syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_BITSET, val, abs_mono, NULL,
			  FUTEX_BITSET_MATCH_ANY);
	if (rc == 0)
		return 0;
	return errno == ETIMEDOUT ? -ETIMEDOUT : 0; /* EAGAIN/EINTR: re-check the state */
}

int zka__futex_wake(_Atomic uint32_t *w, int n)
{
	long rc = syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE, n, NULL, NULL, 0);
	return rc < 0 ? -errno : (int)rc;
}

void zka__deadline(struct timespec *ts, int timeout_ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	if (timeout_ms <= 0)
		return;
	ts->tv_sec += timeout_ms / 1000;
	ts->tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static int passed(const struct timespec *dl)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > dl->tv_sec || (now.tv_sec == dl->tv_sec && now.tv_nsec >= dl->tv_nsec);
}

/* Locks mu until the deadline (NULL: forever). 0 locked, 1 locked after a dead holder
 * (now consistent), -ETIMEDOUT, or -errno. */
static int lock_until(pthread_mutex_t *mu, const struct timespec *dl)
{
	int rc = dl ? pthread_mutex_clocklock(mu, CLOCK_MONOTONIC, dl) : pthread_mutex_lock(mu);
	if (rc == 0)
		return 0;
	if (rc == EOWNERDEAD) {
		pthread_mutex_consistent(mu);
		return 1;
	}
	return rc == ETIMEDOUT || rc == EBUSY ? -ETIMEDOUT : -rc;
}

int zka__robust_lock(pthread_mutex_t *mu, int timeout_ms)
{
	struct timespec dl;
	zka__deadline(&dl, timeout_ms);
	return lock_until(mu, timeout_ms < 0 ? NULL : &dl);
}

static int valid_ring(const struct zka_arena *a, int r)
{
	return r >= 0 && (uint32_t)r < a->g.nrings;
}

const char *zka_ring_name(int r)
{
	static const char *const n[] = {"free_slots", "ready_slots", "submitted_jobs", "free_jobs"};
	static const char *const u[] = {"user0", "user1", "user2", "user3",
					"user4", "user5", "user6", "user7"};
	if (r >= 0 && r < (int)ZKA_SYS_RINGS)
		return n[r];
	if (r >= (int)ZKA_SYS_RINGS && r < (int)(ZKA_SYS_RINGS + ZKA_MAX_USER_RINGS))
		return u[r - ZKA_SYS_RINGS];
	return "?";
}

int zka_ring_capacity(const struct zka_arena *a, int r)
{
	return valid_ring(a, r) ? (int)a->g.ring_cap[r] : -EINVAL;
}

int zka_ring_depth(const struct zka_arena *a, int r)
{
	if (!valid_ring(a, r))
		return -EINVAL;
	struct zka__ring *R = ring_at(a, r);
	/* acquire: a lock-free snapshot; head first so that tail >= head in a sane ring */
	uint32_t head = atomic_load_explicit(&R->head, memory_order_acquire);
	uint32_t tail = atomic_load_explicit(&R->tail, memory_order_acquire);
	uint32_t d = tail - head;
	return d > a->g.ring_cap[r] ? -EBADMSG : (int)d;
}

/* Rebuilds ring r under its mutex (I3). Bound rings: the old entries still in the ring's state,
 * in order, de-duplicated, then the missing members in index order. Plain rings: committed
 * content is kept; an insane head/tail span empties the ring. Each dropped entry is counted. */
static void repair(struct zka_arena *a, int r)
{
	struct zka__ring *R = ring_at(a, r);
	uint32_t cap = (uint32_t)a->g.ring_cap[r];
	uint32_t n = zka__ring_table_n(a, r);
	/* relaxed: we hold the mutex, whose acquire ordered every earlier holder's stores */
	uint32_t head = atomic_load_explicit(&R->head, memory_order_relaxed);
	uint32_t tail = atomic_load_explicit(&R->tail, memory_order_relaxed);
	cnt(a, ZKA_C_RING_REPAIRS, 1);
	if (n == 0) {
		if (tail - head > cap) {
			/* release: commit of the emptied ring */
			atomic_store_explicit(&R->tail, head, memory_order_release);
			cnt(a, ZKA_C_QUARANTINED, 1);
		}
		return;
	}
	unsigned char *seen = calloc(n, 1);
	uint32_t *list = malloc((size_t)cap * sizeof *list);
	if (!seen || !list) {
		cnt(a, ZKA_C_CLEANUP_FAILURES, 1);
		free(seen);
		free(list);
		return;
	}
	uint32_t k = 0;
	if (tail - head <= cap) {
		for (uint32_t i = head; i != tail; i++) {
			/* relaxed: under the mutex */
			uint32_t idx = atomic_load_explicit(&R->cells[i % cap], memory_order_relaxed);
			if (idx < n && !seen[idx] && zka__ring_member(a, r, idx) == 1) {
				seen[idx] = 1;
				list[k++] = idx;
			} else {
				cnt(a, ZKA_C_QUARANTINED, 1);
			}
		}
	} else {
		cnt(a, ZKA_C_QUARANTINED, 1);
	}
	for (uint32_t idx = 0; idx < n && k < cap; idx++)
		if (!seen[idx] && zka__ring_member(a, r, idx) == 1)
			list[k++] = idx;
	for (uint32_t i = 0; i < k; i++) {
		/* relaxed: published by the tail store below */
		atomic_store_explicit(&R->cells[(head + i) % cap], list[i], memory_order_relaxed);
		if (i == k / 2)
			ZKA_FAULT("ring.repair.cells");
	}
	/* release: commits the rebuilt cells */
	atomic_store_explicit(&R->tail, head + k, memory_order_release);
	free(seen);
	free(list);
	/* seq_cst bump then wake all: the ring's content changed under every waiter */
	atomic_fetch_add(&R->nonempty_seq, 1);
	atomic_fetch_add(&R->nonfull_seq, 1);
	zka__futex_wake(&R->nonempty_seq, INT_MAX);
	zka__futex_wake(&R->nonfull_seq, INT_MAX);
}

/* Locks ring r; repairs it when the previous holder died or head/tail are insane. */
static int ring_lock(struct zka_arena *a, int r, const struct timespec *dl)
{
	struct zka__ring *R = ring_at(a, r);
	int rc = lock_until(&R->mu, dl);
	if (rc < 0)
		return rc;
	ZKA_FAULT("ring.locked");
	uint32_t head = atomic_load_explicit(&R->head, memory_order_relaxed);
	uint32_t tail = atomic_load_explicit(&R->tail, memory_order_relaxed);
	if (rc == 1 || tail - head > a->g.ring_cap[r])
		repair(a, r);
	return 0;
}

void zka__ring_repair_locked(struct zka_arena *a, int r)
{
	repair(a, r);
}

/* Recovery's audit of a bound ring: under the mutex, checks I2 (entries valid, unique, in the
 * ring's state, and every member present) and repairs the ring when it does not hold (planted
 * or scribbled cells). Returns 1 when repaired, 0 when sound, -errno. */
int zka__ring_audit(struct zka_arena *a, int r, int timeout_ms)
{
	struct zka__ring *R = ring_at(a, r);
	uint32_t n = zka__ring_table_n(a, r), cap = (uint32_t)a->g.ring_cap[r];
	if (!n)
		return 0;
	struct timespec dl;
	zka__deadline(&dl, timeout_ms);
	int rc = ring_lock(a, r, &dl);
	if (rc < 0)
		return rc;
	unsigned char *seen = calloc(n, 1);
	if (!seen) {
		pthread_mutex_unlock(&R->mu);
		return -ENOMEM;
	}
	/* relaxed under the mutex */
	uint32_t head = atomic_load_explicit(&R->head, memory_order_relaxed);
	uint32_t tail = atomic_load_explicit(&R->tail, memory_order_relaxed);
	int bad = tail - head > cap;
	uint32_t members = 0;
	for (uint32_t i = head; !bad && i != tail; i++) {
		uint32_t idx = atomic_load_explicit(&R->cells[i % cap], memory_order_relaxed);
		if (idx >= n || seen[idx] || zka__ring_member(a, r, idx) != 1)
			bad = 1;
		else
			seen[idx] = 1;
	}
	for (uint32_t idx = 0; !bad && idx < n; idx++)
		members += zka__ring_member(a, r, idx) == 1;
	if (!bad && members != tail - head)
		bad = 1;
	free(seen);
	if (bad)
		repair(a, r);
	pthread_mutex_unlock(&R->mu);
	return bad;
}

int zka__ring_push(struct zka_arena *a, int r, uint32_t idx, int timeout_ms,
		   const struct zka__ring_ops *ops)
{
	if (!valid_ring(a, r))
		return -EINVAL;
	if (a->flags & ZKA_OPEN_RDONLY)
		return -EROFS;
	struct zka__ring *R = ring_at(a, r);
	uint32_t cap = (uint32_t)a->g.ring_cap[r];
	struct timespec dl;
	zka__deadline(&dl, timeout_ms);
	const struct timespec *dlp = timeout_ms < 0 ? NULL : &dl;
	int rc;
	for (;;) {
		if ((rc = ring_lock(a, r, dlp)) < 0)
			goto err;
		/* relaxed under the mutex (it orders all holders) */
		uint32_t head = atomic_load_explicit(&R->head, memory_order_relaxed);
		uint32_t tail = atomic_load_explicit(&R->tail, memory_order_relaxed);
		if (tail - head < cap) {
			if (ops && ops->enter && (rc = ops->enter(a, idx, ops->ctx)) < 0) {
				pthread_mutex_unlock(&R->mu);
				goto err;
			}
			ZKA_FAULT("ring.push.entered");
			/* relaxed: made visible by the release store of tail */
			atomic_store_explicit(&R->cells[tail % cap], idx, memory_order_relaxed);
			ZKA_FAULT("ring.push.cell");
			/* release: the commit; publishes the cell to lock-free readers too */
			atomic_store_explicit(&R->tail, tail + 1, memory_order_release);
			/* seq_cst: bump before reading the waiter count (pairs with the waiter's
			 * count increment before it reads the seq; I8) */
			atomic_fetch_add(&R->nonempty_seq, 1);
			uint32_t w = atomic_load(&R->pop_waiters);
			pthread_mutex_unlock(&R->mu);
			cnt(a, ZKA_C_PUSHES, 1);
			if (w) {
				zka__futex_wake(&R->nonempty_seq, 1);
				cnt(a, ZKA_C_WAKES, 1);
			}
			return 0;
		}
		if (timeout_ms == 0 || (dlp && passed(dlp))) {
			pthread_mutex_unlock(&R->mu);
			rc = -ETIMEDOUT;
			goto err;
		}
		/* seq_cst: count ourselves, then read the seq we will sleep on (I8) */
		atomic_fetch_add(&R->push_waiters, 1);
		uint32_t seq = atomic_load(&R->nonfull_seq);
		pthread_mutex_unlock(&R->mu);
		cnt(a, ZKA_C_WAITS, 1);
		zka__futex_wait(&R->nonfull_seq, seq, dlp);
		atomic_fetch_sub(&R->push_waiters, 1);
	}
err:
	if (rc == -ETIMEDOUT)
		cnt(a, ZKA_C_TIMEOUTS, 1);
	return rc;
}

/* Priorities (issue 20): moves the entry that ops->pick chooses to the head cell, under the
 * ring's mutex, so that the pop below takes it; the entries before it move back one cell. The
 * ring keeps the same entries (I2 holds); a death between the stores leaves one entry twice and
 * one missing, which the next locker's repair (EOWNERDEAD, I3) rebuilds from the table. */
static void ring_pick(struct zka_arena *a, struct zka__ring *R, uint32_t head, uint32_t tail,
		      uint32_t cap, const struct zka__ring_ops *ops)
{
	uint32_t n = tail - head;
	uint32_t k = ops->pick(a, R->cells, head, n > cap ? cap : n, cap);
	if (k == 0 || k >= n || k >= cap)
		return;
	/* rotate cells[head..head+k] by one: the others keep their order (FIFO among equals) */
	uint32_t b = atomic_load_explicit(&R->cells[(head + k) % cap], memory_order_relaxed);
	for (uint32_t i = k; i > 0; i--)
		atomic_store_explicit(
		    &R->cells[(head + i) % cap],
		    atomic_load_explicit(&R->cells[(head + i - 1) % cap], memory_order_relaxed),
		    memory_order_relaxed);
	atomic_store_explicit(&R->cells[head % cap], b, memory_order_relaxed);
}

int zka__ring_pop(struct zka_arena *a, int r, uint32_t *out, int timeout_ms,
		  const struct zka__ring_ops *ops)
{
	if (!valid_ring(a, r))
		return -EINVAL;
	if (a->flags & ZKA_OPEN_RDONLY)
		return -EROFS;
	struct zka__ring *R = ring_at(a, r);
	uint32_t cap = (uint32_t)a->g.ring_cap[r];
	uint32_t n = zka__ring_table_n(a, r);
	uint32_t limit = n ? n : 0x80000000u;
	struct timespec dl;
	zka__deadline(&dl, timeout_ms);
	const struct timespec *dlp = timeout_ms < 0 ? NULL : &dl;
	int rc;
	for (;;) {
		if ((rc = ring_lock(a, r, dlp)) < 0)
			goto err;
		/* relaxed under the mutex */
		uint32_t head = atomic_load_explicit(&R->head, memory_order_relaxed);
		uint32_t tail = atomic_load_explicit(&R->tail, memory_order_relaxed);
		if (head != tail && ops && ops->pick)
			ring_pick(a, R, head, tail, cap, ops);
		while (head != tail) {
			uint32_t idx = atomic_load_explicit(&R->cells[head % cap], memory_order_relaxed);
			rc = 0;
			if (idx >= limit)
				rc = -EAGAIN; /* out of range: quarantine the entry */
			else if (ops && ops->leave)
				rc = ops->leave(a, idx, ops->ctx);
			if (rc == -EAGAIN) {
				/* release: drops the bad/stale entry (one store, like a pop) */
				atomic_store_explicit(&R->head, ++head, memory_order_release);
				cnt(a, ZKA_C_QUARANTINED, 1);
				continue;
			}
			if (rc < 0) {
				pthread_mutex_unlock(&R->mu);
				goto err;
			}
			ZKA_FAULT("ring.pop.left");
			/* release: the commit of the pop */
			atomic_store_explicit(&R->head, head + 1, memory_order_release);
			/* seq_cst: bump, then read the waiter count (I8) */
			atomic_fetch_add(&R->nonfull_seq, 1);
			uint32_t w = atomic_load(&R->push_waiters);
			pthread_mutex_unlock(&R->mu);
			cnt(a, ZKA_C_POPS, 1);
			if (w) {
				zka__futex_wake(&R->nonfull_seq, 1);
				cnt(a, ZKA_C_WAKES, 1);
			}
			*out = idx;
			return 0;
		}
		if (timeout_ms == 0 || (dlp && passed(dlp))) {
			pthread_mutex_unlock(&R->mu);
			rc = -ETIMEDOUT;
			goto err;
		}
		/* seq_cst: count ourselves, then read the seq we sleep on (I8) */
		atomic_fetch_add(&R->pop_waiters, 1);
		uint32_t seq = atomic_load(&R->nonempty_seq);
		pthread_mutex_unlock(&R->mu);
		cnt(a, ZKA_C_WAITS, 1);
		zka__futex_wait(&R->nonempty_seq, seq, dlp);
		atomic_fetch_sub(&R->pop_waiters, 1);
	}
err:
	if (rc == -ETIMEDOUT)
		cnt(a, ZKA_C_TIMEOUTS, 1);
	return rc;
}

void zka__ring_kick_all(struct zka_arena *a)
{
	for (uint32_t r = 0; r < a->g.nrings; r++) {
		struct zka__ring *R = ring_at(a, r);
		/* seq_cst bump then wake: any sleeper re-checks its ring */
		atomic_fetch_add(&R->nonempty_seq, 1);
		atomic_fetch_add(&R->nonfull_seq, 1);
		zka__futex_wake(&R->nonempty_seq, INT_MAX);
		zka__futex_wake(&R->nonfull_seq, INT_MAX);
	}
}

int zka_ring_push(struct zka_arena *a, int ring, uint32_t idx, int timeout_ms)
{
	if (!valid_ring(a, ring))
		return -EINVAL;
	if (ring < (int)ZKA_SYS_RINGS)
		return -EPERM;
	if (idx >= 0x80000000u)
		return -ERANGE;
	return zka__ring_push(a, ring, idx, timeout_ms, NULL);
}

int zka_ring_pop(struct zka_arena *a, int ring, uint32_t *idx, int timeout_ms)
{
	if (!valid_ring(a, ring))
		return -EINVAL;
	if (ring < (int)ZKA_SYS_RINGS)
		return -EPERM;
	return zka__ring_pop(a, ring, idx, timeout_ms, NULL);
}
