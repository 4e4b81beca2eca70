/* records.h - private to shm/: the record helpers that the table's transitions (table.c),
 * the circuits (circuit.c) and recovery (recover.c) share. Ordering: every record CAS and
 * state-word load is seq_cst (ld/cas): see table.c's opening comment. */
#ifndef ZKA_SHM_RECORDS_H
#define ZKA_SHM_RECORDS_H

#include "shm/internal.h"

#include <limits.h>
#include <string.h>

int zka__owner_in_use(const struct zka_arena *a, uint32_t idx);
void zka__ring_repair_locked(struct zka_arena *a, int r);
int zka__ring_audit(struct zka_arena *a, int r, int timeout_ms);

#define LOCK_MS 5000 /* ring locks inside transitions/recovery: a live holder never takes long */

static inline uint64_t ld(_Atomic uint64_t *w)
{
	return atomic_load(w); /* seq_cst: see the file comment */
}
static inline int cas(_Atomic uint64_t *w, uint64_t *expect, uint64_t desired)
{
	return atomic_compare_exchange_strong(w, expect, desired); /* seq_cst */
}

static inline void count_slot(struct zka_arena *a, uint32_t st)
{
	atomic_fetch_add_explicit(&hdr(a)->into_slot_state[st & 7], 1, memory_order_relaxed);
}
static inline void count_job(struct zka_arena *a, uint32_t st)
{
	atomic_fetch_add_explicit(&hdr(a)->into_job_state[st & 15], 1, memory_order_relaxed);
}

static inline uint64_t slot_next(uint64_t w, uint32_t st, uint32_t owner, uint32_t job)
{
	return w_slot(st, owner, job, w_slot_gen(w) + 1);
}
static inline uint64_t job_next(uint64_t w, uint32_t st, uint32_t owner, uint32_t slot,
				uint32_t att)
{
	return w_job(st, owner, slot, att, w_job_gen(w) + 1);
}

static inline void copy_str(char *dst, const char *src, size_t n)
{
	size_t l = strnlen(src, n - 1);
	memcpy(dst, src, l);
	memset(dst + l, 0, n - l);
}

/* Bumps the job's futex word and wakes its waiters (I8). */
static inline void job_announce(struct zka__job *J)
{
	atomic_fetch_add(&J->done_seq,
			 1); /* seq_cst: after the state CAS, before reading waiters */
	if (atomic_load(&J->waiters))
		zka__futex_wake(&J->done_seq, INT_MAX);
}

/* Moves record idx of ring r's table from word expect to desired and pushes it to r, under
 * r's mutex (I2): 0, -EBUSY when the word was not expect, or the ring's -errno. */
int zka__push_slot(struct zka_arena *a, int r, uint32_t idx, uint64_t expect, uint64_t desired);
int zka__push_job(struct zka_arena *a, int r, uint32_t idx, uint64_t expect, uint64_t desired);
/* Rolls job j forward from SYNTHESIZING(*, s) to READY(s) (I5). Anyone. */
void zka__job_roll_ready(struct zka_arena *a, uint32_t j, uint32_t s);

#endif
