/* table.c - the job and slot tables: their transitions (submit, take, ready, finish, ...), the
 * clients' reads and waits, retention and priorities. Circuits are in circuit.c, recovery,
 * the invariant checker and repair in recover.c; the helpers they share in records.h.
 * The transition table and invariants (I1-I12) are at the top of arena.c.
 * Ordering: all record CASes and state-word loads are seq_cst (ld/cas in records.h): a
 * transition orders every field written before it (paths, times, tags, reason) before the new
 * state is visible, and a reader's load of the state orders its later reads of those fields.
 * The field accesses themselves (atomic_store/atomic_load of times, serial, tags) are seq_cst
 * atomics that need no ordering of their own beyond that; they are not commented one by one. */
#include "shm/records.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint32_t zka__ring_table_n(const struct zka_arena *a, int r)
{
	switch (r) {
	case ZKA_RING_FREE_SLOTS:
	case ZKA_RING_READY_SLOTS:
		return a->g.nslots;
	case ZKA_RING_SUBMITTED_JOBS:
	case ZKA_RING_FREE_JOBS:
		return a->g.njobs;
	default:
		return 0;
	}
}

int zka__ring_member(const struct zka_arena *a, int r, uint32_t idx)
{
	if (idx >= zka__ring_table_n(a, r))
		return -ERANGE;
	switch (r) {
	case ZKA_RING_FREE_SLOTS:
		return w_state(ld(&slot_rec(a, idx)->word)) == ZKA_SLOT_FREE;
	case ZKA_RING_READY_SLOTS:
		return w_state(ld(&slot_rec(a, idx)->word)) == ZKA_SLOT_READY;
	case ZKA_RING_SUBMITTED_JOBS:
		return w_state(ld(&job_rec(a, idx)->word)) == ZKA_JOB_SUBMITTED;
	case ZKA_RING_FREE_JOBS:
		return w_state(ld(&job_rec(a, idx)->word)) == ZKA_JOB_FREE;
	}
	return -EINVAL;
}

/* ---- ring callbacks: each runs under the ring's mutex (I2) ---- */
struct xctx {
	uint64_t expect, desired; /* enter: exact CAS */
	uint32_t me, link;	  /* leave: new owner and link */
	uint64_t got;		  /* leave: the word installed */
};

static int enter_slot(struct zka_arena *a, uint32_t idx, void *c)
{
	struct xctx *x = c;
	uint64_t e = x->expect;
	return cas(&slot_rec(a, idx)->word, &e, x->desired) ? 0 : -EBUSY;
}
static int enter_job(struct zka_arena *a, uint32_t idx, void *c)
{
	struct xctx *x = c;
	uint64_t e = x->expect;
	return cas(&job_rec(a, idx)->word, &e, x->desired) ? 0 : -EBUSY;
}
/* Slot s's data offset by the private geometry. */
static uint64_t slot_off(const struct zka_arena *a, uint32_t s)
{
	return a->g.data_off + (uint64_t)s * a->g.slot_stride;
}

/* 1 when a slot record's data offset off and size agree with slot s's geometry. */
static int slot_geom_agrees(const struct zka_arena *a, uint32_t s, uint64_t off, uint64_t size)
{
	return off == slot_off(a, s) && size == a->g.slot_stride;
}

/* 1 when slot s's record agrees with the private geometry (offset and size of its data). */
static int slot_geom_ok(struct zka_arena *a, uint32_t s)
{
	return slot_geom_agrees(a, s, atomic_load(&slot_rec(a, s)->data_off),
				atomic_load(&slot_rec(a, s)->data_size));
}

/* free-slots: FREE -> WRITING(me, none); a FREE slot whose data offset or size disagrees with
 * the geometry is quarantined instead (FREE -> QUARANTINED under the ring's mutex, I2) and the
 * entry dropped, so a worker never takes a slot it cannot write. */
static int leave_free_slot(struct zka_arena *a, uint32_t idx, void *c)
{
	struct xctx *x = c;
	uint64_t w = ld(&slot_rec(a, idx)->word);
	if (w_state(w) != ZKA_SLOT_FREE)
		return -EAGAIN;
	if (!slot_geom_ok(a, idx)) {
		if (cas(&slot_rec(a, idx)->word, &w,
			slot_next(w, ZKA_SLOT_QUARANTINED, ZKA_OWNER_NONE, ZKA_NONE)))
			count_slot(a, ZKA_SLOT_QUARANTINED);
		return -EAGAIN;
	}
	x->got = slot_next(w, ZKA_SLOT_WRITING, x->me, ZKA_NONE);
	return cas(&slot_rec(a, idx)->word, &w, x->got) ? 0 : -EAGAIN;
}
/* ready: READY(j) -> PROVING(me, j) */
static int leave_ready_slot(struct zka_arena *a, uint32_t idx, void *c)
{
	struct xctx *x = c;
	uint64_t w = ld(&slot_rec(a, idx)->word);
	if (w_state(w) != ZKA_SLOT_READY)
		return -EAGAIN;
	x->got = slot_next(w, ZKA_SLOT_PROVING, x->me, w_link(w));
	return cas(&slot_rec(a, idx)->word, &w, x->got) ? 0 : -EAGAIN;
}
/* submitted: SUBMITTED -> SYNTHESIZING(me, slot) */
static int leave_submitted_job(struct zka_arena *a, uint32_t idx, void *c)
{
	struct xctx *x = c;
	uint64_t w = ld(&job_rec(a, idx)->word);
	if (w_state(w) != ZKA_JOB_SUBMITTED)
		return -EAGAIN;
	x->got = job_next(w, ZKA_JOB_SYNTHESIZING, x->me, x->link, w_job_attempts(w));
	return cas(&job_rec(a, idx)->word, &w, x->got) ? 0 : -EAGAIN;
}
/* free-jobs: FREE -> FILLING(me) */
static int leave_free_job(struct zka_arena *a, uint32_t idx, void *c)
{
	struct xctx *x = c;
	uint64_t w = ld(&job_rec(a, idx)->word);
	if (w_state(w) != ZKA_JOB_FREE)
		return -EAGAIN;
	x->got = job_next(w, ZKA_JOB_FILLING, x->me, ZKA_NONE, 0);
	return cas(&job_rec(a, idx)->word, &w, x->got) ? 0 : -EAGAIN;
}

int zka__push_slot(struct zka_arena *a, int r, uint32_t idx, uint64_t expect, uint64_t desired)
{
	struct xctx x = {.expect = expect, .desired = desired};
	struct zka__ring_ops ops = {.enter = enter_slot, .ctx = &x};
	int rc = zka__ring_push(a, r, idx, LOCK_MS, &ops);
	if (rc == 0)
		count_slot(a, w_state(desired));
	return rc;
}
int zka__push_job(struct zka_arena *a, int r, uint32_t idx, uint64_t expect, uint64_t desired)
{
	struct xctx x = {.expect = expect, .desired = desired};
	struct zka__ring_ops ops = {.enter = enter_job, .ctx = &x};
	int rc = zka__ring_push(a, r, idx, LOCK_MS, &ops);
	if (rc == 0)
		count_job(a, w_state(desired));
	return rc;
}

/* Reads slot s's word and checks it is in state st owned by me. */
static int my_slot(struct zka_arena *a, uint32_t s, uint32_t st, uint32_t *me, uint64_t *w)
{
	int rc = zka__self(a, me);
	if (rc < 0)
		return rc;
	if (s >= a->g.nslots)
		return -ERANGE;
	*w = ld(&slot_rec(a, s)->word);
	if (w_state(*w) != st || w_owner(*w) != *me)
		return -EPERM;
	return 0;
}

/* The slot and job that a slot's holder acts on: slot s in state sst owned by me, bound to
 * job j, which is in state jst, owned by me and bound back to s (I4, I5). */
struct pair {
	uint32_t me, j;
	uint64_t sw, jw; /* the words just read: the "from" words of the holder's CASes */
	struct zka__job *J;
};

/* Reads and checks the pair of slot s: 0 with *p filled; zka__self's -errno, -ERANGE (s out of
 * range), -EPERM (s not in sst, or not mine), -EINVAL (no job bound) or -EBADMSG (the job
 * disagrees: arena corrupt). The opening check of every transition a slot's holder makes. */
static int my_pair(struct zka_arena *a, uint32_t s, uint32_t sst, uint32_t jst, struct pair *p)
{
	int rc = my_slot(a, s, sst, &p->me, &p->sw);
	if (rc < 0)
		return rc;
	p->j = w_link(p->sw);
	if (p->j >= a->g.njobs)
		return -EINVAL;
	p->J = job_rec(a, p->j);
	p->jw = ld(&p->J->word);
	if (w_state(p->jw) != jst || w_owner(p->jw) != p->me || w_link(p->jw) != s)
		return -EBADMSG;
	return 0;
}

/* The record that job id names for its client (j = zka_job_index(id) in range: the caller's
 * check): 0 with *J and its word *w; -ESTALE when it no longer names that job (another
 * serial, or FREE or FILLING: released, expired or reused). The opening check of every
 * client call on an id. */
static int live_job(const struct zka_arena *a, uint64_t id, struct zka__job **J, uint64_t *w)
{
	*J = job_rec(a, zka_job_index(id));
	*w = ld(&(*J)->word);
	if (atomic_load(&(*J)->serial) != id >> 24 || w_state(*w) == ZKA_JOB_FREE ||
	    w_state(*w) == ZKA_JOB_FILLING)
		return -ESTALE;
	return 0;
}

/* ---- issue 19: retention, output identity, proof attempts (helpers of the transitions) ---- */

/* When a terminal record finished: its latest stage time. */
static int64_t job_finished_at(struct zka__job *J)
{
	int64_t t = atomic_load(&J->t_submit), v;
	if ((v = atomic_load(&J->t_synth_start)) > t)
		t = v;
	if ((v = atomic_load(&J->t_synth_end)) > t)
		t = v;
	if ((v = atomic_load(&J->t_prove_end)) > t)
		t = v;
	return t;
}

/* Submit's record fields added by issue 19 (written while the record is FILLING(me)). */
static void fill_identity(struct zka_arena *a, struct zka__job *J, const struct zka_job_spec *sp)
{
	atomic_store(&J->out_dev, sp->out_dev);
	atomic_store(&J->out_ino, sp->out_ino);
	atomic_store(&J->sub_uid, sp->uid);
	atomic_store(&J->sub_gid, sp->gid);
	atomic_store(&J->acct_uid, a->acct_uid != ZKA_ACCT_NONE ? a->acct_uid : sp->uid);
	atomic_store(&J->expired, 0);
	atomic_store(&J->prove_count, 0);
	for (int i = 0; i < ZKA_ATTEMPT_LOG; i++) {
		atomic_store(&J->prove_log[i].n, 0);
		atomic_store(&J->prove_log[i].pid, 0);
		atomic_store(&J->prove_log[i].t_start, 0);
		atomic_store(&J->prove_log[i].t_end, 0);
	}
}

/* A proof attempt starts (the job just became PROVING(me)): entry n of the log. */
static void attempt_begin(struct zka__job *J)
{
	uint32_t n = atomic_fetch_add(&J->prove_count, 1) + 1;
	struct zka__attempt *e = &J->prove_log[(n - 1) % ZKA_ATTEMPT_LOG];
	atomic_store(&e->n, 0);
	atomic_store(&e->pid, (int32_t)getpid());
	atomic_store(&e->t_start, zka__now_ns());
	atomic_store(&e->t_end, 0);
	atomic_store(&e->n, n);
}

/* The current attempt ends (before the job leaves PROVING(me)). */
static void attempt_end(struct zka__job *J)
{
	uint32_t n = atomic_load(&J->prove_count);
	if (!n)
		return;
	struct zka__attempt *e = &J->prove_log[(n - 1) % ZKA_ATTEMPT_LOG];
	if (atomic_load(&e->n) == n && atomic_load(&e->pid) == (int32_t)getpid())
		atomic_store(&e->t_end, zka__now_ns());
}

/* Pops a FREE job record; when the table has none, frees the oldest finished record
 * (zka_job_expire) and tries again, until timeout_ms. */
static int pop_free_job(struct zka_arena *a, uint32_t *j, int timeout_ms,
			const struct zka__ring_ops *ops)
{
	struct timespec dl, now;
	zka__deadline(&dl, timeout_ms < 0 ? 0 : timeout_ms);
	for (;;) {
		int rc = zka__ring_pop(a, ZKA_RING_FREE_JOBS, j, 0, ops);
		if (rc != -ETIMEDOUT)
			return rc;
		if (zka_job_expire(a, 1) > 0)
			continue;
		int left = -1;
		if (timeout_ms >= 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			int64_t ms = (int64_t)(dl.tv_sec - now.tv_sec) * 1000 +
				     (dl.tv_nsec - now.tv_nsec) / 1000000;
			if (ms <= 0)
				return -ETIMEDOUT;
			left = (int)ms;
		}
		/* a record that finishes meanwhile is not pushed to the ring: look again soon */
		rc = zka__ring_pop(a, ZKA_RING_FREE_JOBS, j, left < 0 || left > 100 ? 100 : left,
				   ops);
		if (rc != -ETIMEDOUT)
			return rc;
	}
}

struct fin {
	int64_t t;
	uint32_t j;
};
static int fin_cmp(const void *x, const void *y)
{
	const struct fin *a = x, *b = y;
	return a->t < b->t ? -1 : a->t > b->t ? 1 : (a->j > b->j) - (a->j < b->j);
}

/* job DONE|FAILED -> FREE [free-jobs], by retention: expired keeps the final state. */
int zka_job_expire(struct zka_arena *a, uint32_t need)
{
	if (a->flags & ZKA_OPEN_RDONLY)
		return 0;
	struct fin *f = malloc(sizeof *f * a->g.njobs);
	if (!f)
		return -ENOMEM;
	uint32_t n = 0;
	for (uint32_t j = 0; j < a->g.njobs; j++) {
		uint32_t st = w_state(ld(&job_rec(a, j)->word));
		if (st == ZKA_JOB_DONE || st == ZKA_JOB_FAILED)
			f[n++] = (struct fin){job_finished_at(job_rec(a, j)), j};
	}
	qsort(f, n, sizeof *f, fin_cmp);
	int64_t cut = zka__now_ns() - (int64_t)a->g.retention_s * 1000000000;
	int freed = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (f[i].t > cut && need == 0)
			break;
		struct zka__job *J = job_rec(a, f[i].j);
		uint64_t w = ld(&J->word);
		uint32_t st = w_state(w);
		if (st != ZKA_JOB_DONE && st != ZKA_JOB_FAILED)
			continue;
		atomic_store(&J->expired, st); /* before the CAS: a waiter woken by it sees it */
		if (zka__push_job(a, ZKA_RING_FREE_JOBS, f[i].j, w,
				  job_next(w, ZKA_JOB_FREE, ZKA_OWNER_NONE, ZKA_NONE, 0)) < 0)
			continue; /* moved on (released by its client): nothing to do */
		job_announce(J);
		freed++;
		if (f[i].t > cut)
			need--;
	}
	free(f);
	return freed;
}

int zka_job_expired(const struct zka_arena *a, uint64_t id, struct zka_job_info *info)
{
	uint32_t j = zka_job_index(id);
	if (j >= a->g.njobs)
		return -ESTALE;
	struct zka__job *J = job_rec(a, j);
	uint32_t st = atomic_load(&J->expired);
	if (atomic_load(&J->serial) != id >> 24 || w_state(ld(&J->word)) != ZKA_JOB_FREE ||
	    (st != ZKA_JOB_DONE && st != ZKA_JOB_FAILED))
		return -ESTALE;
	zka_job_info(a, j, info);
	/* a record being reused changes its serial or state first: look again after the copy */
	if (atomic_load(&J->serial) != id >> 24 || w_state(ld(&J->word)) != ZKA_JOB_FREE ||
	    atomic_load(&J->expired) != st)
		return -ESTALE;
	info->state = (int)st;
	return 0;
}

void zka_job_counts(const struct zka_arena *a, uint32_t *used, uint32_t *finished)
{
	uint32_t u = 0, f = 0;
	for (uint32_t j = 0; j < a->g.njobs; j++) {
		uint32_t st = w_state(ld(&job_rec(a, j)->word));
		if (st != ZKA_JOB_FREE && st != ZKA_JOB_QUARANTINED)
			u++;
		if (st == ZKA_JOB_DONE || st == ZKA_JOB_FAILED)
			f++;
	}
	if (used)
		*used = u;
	if (finished)
		*finished = f;
}

uint32_t zka_job_pending(const struct zka_arena *a)
{
	uint32_t n = 0;
	for (uint32_t j = 0; j < a->g.njobs; j++) {
		uint32_t st = w_state(ld(&job_rec(a, j)->word));
		n += st == ZKA_JOB_SUBMITTED || st == ZKA_JOB_SYNTHESIZING;
	}
	return n;
}

/* ---- transitions ---- */

/* ---- priorities (issue 20) ----
 * A worker takes the SUBMITTED job of the highest effective priority: its priority plus one
 * level for each ZKA_PRIORITY_AGE_S seconds it has waited since submission; ties go to the
 * entry nearest the ring's head (the earliest submitted: FIFO within a priority). The age rule
 * bounds starvation: a job of priority p waiting behind a stream of jobs of priority q > p is
 * taken after at most (q - p + 1) * ZKA_PRIORITY_AGE_S seconds of waiting (plus the time for
 * a worker to come free), since by then its effective priority passes that of every newly
 * submitted job of q. The scan is O(queued jobs) per take, under the ring's mutex. The taking
 * process's ZKA_PRIORITY_AGE_MS (a test hook) replaces the step of ZKA_PRIORITY_AGE_S. */
/* The age step in ns: ZKA_PRIORITY_AGE_S, or ZKA_PRIORITY_AGE_MS milliseconds from the
 * environment (a test hook: tests/pipeline/priority.sh shows the rule with a short step). Read
 * once per process; concurrent first calls compute the same value. */
static int64_t age_step_ns(void)
{
	static _Atomic int64_t step;
	int64_t s = atomic_load_explicit(&step, memory_order_relaxed);
	if (s)
		return s;
	s = ZKA_PRIORITY_AGE_S * 1000000000LL;
	const char *e = getenv("ZKA_PRIORITY_AGE_MS");
	if (e && *e) {
		char *end;
		long long ms = strtoll(e, &end, 10);
		if (!*end && ms > 0 && ms <= 86400000LL)
			s = ms * 1000000LL;
	}
	atomic_store_explicit(&step, s, memory_order_relaxed);
	return s;
}

/* Who job J counts against under the per-user limits: its submitter, unless the submitter is the
 * arena's owner or root, who may name another (zka_arena_set_account: a server submitting for a
 * socket peer). A member's own claim is ignored: only the owner's records are trusted with it
 * (and a member cannot pass for the owner: the daemons require the submitter's attestation). */
uint32_t zka__job_account(const struct zka_arena *a, struct zka__job *J)
{
	uint32_t sub = atomic_load(&J->sub_uid);
	return sub == a->obj_uid || sub == 0 ? atomic_load(&J->acct_uid) : sub;
}

/* One submitter's picture during a pick under per-user limits. */
struct upick {
	uint32_t uid, rank;
	int64_t last_taken; /* the latest t_synth_start among its jobs, 0: none */
};

/* The pick under per-user limits (zka_arena_set_user_limits): as zka__pick_job, with a limited
 * user's priority capped, its age counted from max(t_submit, its last take), only its first
 * max_queued queued jobs eligible, and ties going to the earliest such start of the count (so
 * two users at one level alternate instead of one draining its queue first). At most 64 distinct
 * submitters are told apart; the jobs of any further one are judged without limits (their owner had
 * to be in the table's top 64). */
static uint32_t pick_limited(struct zka_arena *a, const _Atomic uint32_t *cells, uint32_t head,
			     uint32_t n, uint32_t cap, int64_t now, int64_t step)
{
	struct upick u[64];
	uint32_t nu = 0, ouid = a->obj_uid;
	const struct zka_user_limits *L = &a->lim;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t j = atomic_load_explicit(&cells[(head + k) % cap], memory_order_relaxed);
		if (j >= a->g.njobs)
			continue;
		uint32_t uid = zka__job_account(a, job_rec(a, j)), i = 0;
		while (i < nu && u[i].uid != uid)
			i++;
		if (i == nu && nu < 64)
			u[nu++] = (struct upick){.uid = uid};
	}
	for (uint32_t j = 0; j < a->g.njobs; j++) { /* each submitter's last take */
		struct zka__job *J = job_rec(a, j);
		int64_t t = atomic_load(&J->t_synth_start);
		uint32_t uid = zka__job_account(a, J);
		for (uint32_t i = 0; t && i < nu; i++)
			if (u[i].uid == uid && t > u[i].last_taken)
				u[i].last_taken = t;
	}
	int64_t best = INT64_MIN, best_from = INT64_MAX;
	uint32_t k_best = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t j = atomic_load_explicit(&cells[(head + k) % cap], memory_order_relaxed);
		if (j >= a->g.njobs)
			continue;
		struct zka__job *J = job_rec(a, j);
		uint32_t uid = zka__job_account(a, J), i = 0;
		while (i < nu && u[i].uid != uid)
			i++;
		int64_t from = atomic_load(&J->t_submit), prio = atomic_load(&J->priority);
		if (i < nu && uid != ouid && uid != 0) {
			if ((L->set & ZKA_LIM_QUEUED) && u[i].rank++ >= L->max_queued)
				continue; /* beyond its share: waits behind its earlier jobs */
			if ((L->set & ZKA_LIM_PRIORITY) && prio > L->max_priority)
				prio = L->max_priority;
			if (u[i].last_taken > from)
				from = u[i].last_taken;
		}
		int64_t age = now - from;
		int64_t eff = prio + (age > 0 ? age / step : 0);
		/* ties: the earliest "from" (a user just served yields to one that waits) */
		if (eff > best || (eff == best && from < best_from))
			best = eff, best_from = from, k_best = k;
	}
	return k_best;
}

uint32_t zka__pick_job(struct zka_arena *a, const _Atomic uint32_t *cells, uint32_t head,
		       uint32_t n, uint32_t cap)
{
	int64_t now = zka__now_ns(), best = INT64_MIN, step = age_step_ns();
	if (a->lim.set)
		return pick_limited(a, cells, head, n, cap, now, step);
	uint32_t k_best = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t j = atomic_load_explicit(&cells[(head + k) % cap], memory_order_relaxed);
		if (j >= a->g.njobs)
			continue; /* the pop quarantines it */
		struct zka__job *J = job_rec(a, j);
		int64_t age = now - atomic_load(&J->t_submit);
		int64_t eff = (int64_t)atomic_load(&J->priority) + (age > 0 ? age / step : 0);
		if (eff > best)
			best = eff, k_best = k;
	}
	return k_best;
}

void zka_arena_set_user_limits(struct zka_arena *a, const struct zka_user_limits *l)
{
	a->lim = *l;
	if (!a->lim.max_queued)
		a->lim.set &= ~(unsigned)ZKA_LIM_QUEUED;
}

void zka_arena_set_priority(struct zka_arena *a, int priority)
{
	a->priority = priority;
}

void zka_arena_set_account(struct zka_arena *a, uint32_t uid)
{
	a->acct_uid = uid;
}

/* job FREE -> FILLING(me) -> SUBMITTED. Any process. */
int zka_job_submit(struct zka_arena *a, const struct zka_job_spec *sp, uint64_t *id, int timeout_ms)
{
	uint32_t me, j;
	int rc;
	if (!sp->witness_path || !sp->out_dir ||
	    strnlen(sp->witness_path, ZKA_PATH_MAX) >= ZKA_PATH_MAX ||
	    strnlen(sp->out_dir, ZKA_PATH_MAX) >= ZKA_PATH_MAX || sp->max_attempts > 255 ||
	    (sp->circuit != ZKA_NONE && sp->circuit >= a->g.ncircuits))
		return -EINVAL;
	if ((rc = zka__self(a, &me)) < 0)
		return rc;
	struct xctx x = {.me = me};
	struct zka__ring_ops ops = {.leave = leave_free_job, .ctx = &x};
	if ((rc = pop_free_job(a, &j, timeout_ms, &ops)) < 0)
		return rc == -ETIMEDOUT ? -EAGAIN : rc;
	count_job(a, ZKA_JOB_FILLING);
	struct zka__job *J = job_rec(a, j);
	uint64_t serial = atomic_fetch_add(&hdr(a)->next_serial, 1) + 1;
	atomic_store(&J->serial, serial);
	atomic_store(&J->user_tag, sp->user_tag);
	atomic_store(&J->circuit, sp->circuit);
	atomic_store(&J->max_attempts, sp->max_attempts ? sp->max_attempts : a->g.max_attempts);
	atomic_store(&J->synth_count, 0);
	atomic_store(&J->cancel, 0);
	atomic_store(&J->t_submit, zka__now_ns());
	atomic_store(&J->t_synth_start, 0);
	atomic_store(&J->t_synth_end, 0);
	atomic_store(&J->t_witness_end, 0);
	atomic_store(&J->t_prove_start, 0);
	atomic_store(&J->t_prove_end, 0);
	copy_str(J->witness_path, sp->witness_path, ZKA_PATH_MAX);
	copy_str(J->out_dir, sp->out_dir, ZKA_PATH_MAX);
	memset(J->reason, 0, ZKA_REASON_MAX);
	fill_identity(a, J, sp);
	atomic_store(&J->priority, sp->priority ? sp->priority : a->priority);
	ZKA_FAULT("job.submit.filling");
	uint64_t w = x.got;
	if ((rc = zka__push_job(a, ZKA_RING_SUBMITTED_JOBS, j, w,
				job_next(w, ZKA_JOB_SUBMITTED, ZKA_OWNER_NONE, ZKA_NONE, 0))) < 0)
		return rc; /* the record stays FILLING(me): recovered when we die */
	cnt(a, ZKA_C_JOBS_SUBMITTED, 1);
	*id = serial << 24 | j;
	return 0;
}

/* slot FREE -> WRITING(me, none). Workers. */
int zka_slot_acquire(struct zka_arena *a, uint32_t *slot, int timeout_ms)
{
	uint32_t me;
	if (!a->data_mapped)
		return -EACCES; /* a group arena's member: the slots are the owner's (I15) */
	int rc = zka__self(a, &me);
	if (rc < 0)
		return rc;
	struct xctx x = {.me = me};
	struct zka__ring_ops ops = {.leave = leave_free_slot, .ctx = &x};
	if ((rc = zka__ring_pop(a, ZKA_RING_FREE_SLOTS, slot, timeout_ms, &ops)) < 0)
		return rc;
	count_slot(a, ZKA_SLOT_WRITING);
	atomic_store(&slot_rec(a, *slot)->used_bytes, 0);
	atomic_store(&slot_rec(a, *slot)->form, ZKA_SLOT_FORM_AB);
	return 0;
}

/* job SUBMITTED -> SYNTHESIZING(me, slot); slot WRITING(me, none) -> WRITING(me, job).
 * Only the worker holding slot. */
int zka_job_take(struct zka_arena *a, uint32_t slot, uint32_t *job, int timeout_ms)
{
	uint32_t me, j;
	uint64_t sw;
	int rc = my_slot(a, slot, ZKA_SLOT_WRITING, &me, &sw);
	if (rc < 0)
		return rc;
	if (w_link(sw) != ZKA_NONE)
		return -EBUSY;
	struct xctx x = {.me = me, .link = slot};
	struct zka__ring_ops ops = {.leave = leave_submitted_job, .ctx = &x, .pick = zka__pick_job};
	if ((rc = zka__ring_pop(a, ZKA_RING_SUBMITTED_JOBS, &j, timeout_ms, &ops)) < 0)
		return rc;
	count_job(a, ZKA_JOB_SYNTHESIZING);
	struct zka__job *J = job_rec(a, j);
	atomic_fetch_add(&J->synth_count, 1);
	atomic_store(&J->t_synth_start, zka__now_ns());
	ZKA_FAULT("job.take.popped");
	if (!cas(&slot_rec(a, slot)->word, &sw, slot_next(sw, ZKA_SLOT_WRITING, me, j)))
		return -EBADMSG; /* our own slot changed under us: arena corrupt */
	*job = j;
	return 0;
}

/* slot WRITING(me, none) -> FREE. Only the worker holding slot, before zka_job_take. */
int zka_slot_release(struct zka_arena *a, uint32_t slot)
{
	uint32_t me;
	uint64_t sw;
	int rc = my_slot(a, slot, ZKA_SLOT_WRITING, &me, &sw);
	if (rc < 0)
		return rc;
	if (w_link(sw) != ZKA_NONE)
		return -EBUSY;
	return zka__push_slot(a, ZKA_RING_FREE_SLOTS, slot, sw,
			      slot_next(sw, ZKA_SLOT_FREE, ZKA_OWNER_NONE, ZKA_NONE));
}

/* Roll job j forward from SYNTHESIZING|LEASED(*, s) to READY(s) (I5). Anyone. */
void zka__job_roll_ready(struct zka_arena *a, uint32_t j, uint32_t s)
{
	struct zka__job *J = job_rec(a, j);
	uint64_t w = ld(&J->word);
	while ((w_state(w) == ZKA_JOB_SYNTHESIZING || w_state(w) == ZKA_JOB_LEASED) &&
	       w_link(w) == s) {
		if (cas(&J->word, &w,
			job_next(w, ZKA_JOB_READY, ZKA_OWNER_NONE, s, w_job_attempts(w)))) {
			count_job(a, ZKA_JOB_READY);
			break;
		}
	}
}

/* slot WRITING(me, j) -> READY(j) [ready ring], then job -> READY. Only the slot's worker. */
int zka_job_witness_done(struct zka_arena *a, uint32_t slot)
{
	struct pair p;
	int rc = my_pair(a, slot, ZKA_SLOT_WRITING, ZKA_JOB_SYNTHESIZING, &p);
	if (rc == -EBADMSG) /* an external producer's lease */
		rc = my_pair(a, slot, ZKA_SLOT_WRITING, ZKA_JOB_LEASED, &p);
	if (rc)
		return rc;
	atomic_store(&p.J->t_witness_end, zka__now_ns());
	return 0;
}

/* The commit point shared by workers (job SYNTHESIZING) and producers (job LEASED). */
static int slot_ready(struct zka_arena *a, uint32_t slot, uint32_t jst)
{
	struct pair p;
	int rc = my_pair(a, slot, ZKA_SLOT_WRITING, jst, &p);
	if (rc < 0)
		return rc;
	atomic_store(&p.J->t_synth_end, zka__now_ns());
	if ((rc = zka__push_slot(a, ZKA_RING_READY_SLOTS, slot, p.sw,
				 slot_next(p.sw, ZKA_SLOT_READY, ZKA_OWNER_NONE, p.j))) < 0)
		return rc;
	ZKA_FAULT("slot.ready.committed");
	zka__job_roll_ready(a, p.j, slot);
	return 0;
}

int zka_slot_ready(struct zka_arena *a, uint32_t slot)
{
	return slot_ready(a, slot, ZKA_JOB_SYNTHESIZING);
}

/* job SYNTHESIZING|LEASED(me) -> FAILED(reason); slot WRITING(me, j) -> FREE. The slot's
 * worker (jst SYNTHESIZING) or producer (jst LEASED). */
static int fail_writing(struct zka_arena *a, uint32_t slot, const char *reason, uint32_t jst)
{
	struct pair p;
	int rc = my_pair(a, slot, ZKA_SLOT_WRITING, jst, &p);
	if (rc < 0)
		return rc;
	copy_str(p.J->reason, reason ? reason : "synthesis failed", ZKA_REASON_MAX);
	atomic_store(&p.J->t_synth_end, zka__now_ns());
	if (!cas(&p.J->word, &p.jw,
		 job_next(p.jw, ZKA_JOB_FAILED, ZKA_OWNER_NONE, slot, w_job_attempts(p.jw))))
		return -EBADMSG;
	count_job(a, ZKA_JOB_FAILED);
	cnt(a, ZKA_C_JOBS_FAILED, 1);
	job_announce(p.J);
	ZKA_FAULT("job.fail.failed");
	return zka__push_slot(a, ZKA_RING_FREE_SLOTS, slot, p.sw,
			      slot_next(p.sw, ZKA_SLOT_FREE, ZKA_OWNER_NONE, ZKA_NONE));
}

int zka_job_fail_synth(struct zka_arena *a, uint32_t slot, const char *reason)
{
	return fail_writing(a, slot, reason, ZKA_JOB_SYNTHESIZING);
}

/* ---- external producers (libzkarena) ---- */

/* slot FREE -> WRITING(me) [free-slots]; job FREE -> FILLING(me) [free-jobs] -> LEASED(me, s);
 * slot WRITING(me, none) -> WRITING(me, j). A death at any step leaves only records owned by
 * me, which recovery moves: WRITING(dead) -> FREE, FILLING(dead) -> FREE, LEASED(dead) ->
 * FAILED. */
int zka_job_lease(struct zka_arena *a, const struct zka_job_spec *sp, uint32_t *slot, uint64_t *id,
		  int timeout_ms)
{
	uint32_t me, s, j;
	uint64_t sw;
	int rc;
	if (!sp->witness_path || !sp->out_dir ||
	    strnlen(sp->witness_path, ZKA_PATH_MAX) >= ZKA_PATH_MAX ||
	    strnlen(sp->out_dir, ZKA_PATH_MAX) >= ZKA_PATH_MAX || sp->circuit >= a->g.ncircuits)
		return -EINVAL;
	if ((rc = zka_slot_acquire(a, &s, timeout_ms)) < 0)
		return rc;
	if ((rc = my_slot(a, s, ZKA_SLOT_WRITING, &me, &sw)) < 0)
		return rc;
	struct xctx x = {.me = me};
	struct zka__ring_ops ops = {.leave = leave_free_job, .ctx = &x};
	if ((rc = pop_free_job(a, &j, timeout_ms, &ops)) < 0) {
		zka_slot_release(a, s);
		return rc == -ETIMEDOUT ? -EAGAIN : rc;
	}
	count_job(a, ZKA_JOB_FILLING);
	struct zka__job *J = job_rec(a, j);
	uint64_t serial = atomic_fetch_add(&hdr(a)->next_serial, 1) + 1;
	int64_t now = zka__now_ns();
	atomic_store(&J->serial, serial);
	atomic_store(&J->user_tag, sp->user_tag);
	atomic_store(&J->circuit, sp->circuit);
	atomic_store(&J->max_attempts, sp->max_attempts ? sp->max_attempts : a->g.max_attempts);
	atomic_store(&J->synth_count, 1);
	atomic_store(&J->cancel, 0);
	atomic_store(&J->t_submit, now);
	atomic_store(&J->t_synth_start, now);
	atomic_store(&J->t_synth_end, 0);
	atomic_store(&J->t_witness_end, 0);
	atomic_store(&J->t_prove_start, 0);
	atomic_store(&J->t_prove_end, 0);
	copy_str(J->witness_path, sp->witness_path, ZKA_PATH_MAX);
	copy_str(J->out_dir, sp->out_dir, ZKA_PATH_MAX);
	memset(J->reason, 0, ZKA_REASON_MAX);
	fill_identity(a, J, sp);
	atomic_store(&J->priority, sp->priority ? sp->priority : a->priority);
	uint64_t w = x.got;
	if (!cas(&J->word, &w, job_next(w, ZKA_JOB_LEASED, me, s, 0)))
		return -EBADMSG; /* our own record changed under us: arena corrupt */
	count_job(a, ZKA_JOB_LEASED);
	cnt(a, ZKA_C_JOBS_SUBMITTED, 1);
	ZKA_FAULT("job.lease.leased");
	if (!cas(&slot_rec(a, s)->word, &sw, slot_next(sw, ZKA_SLOT_WRITING, me, j)))
		return -EBADMSG;
	*slot = s;
	*id = serial << 24 | j;
	return 0;
}

int zka_job_lease_commit(struct zka_arena *a, uint32_t slot)
{
	return slot_ready(a, slot, ZKA_JOB_LEASED);
}

int zka_job_lease_abort(struct zka_arena *a, uint32_t slot, const char *reason)
{
	return fail_writing(a, slot, reason ? reason : "aborted by its producer", ZKA_JOB_LEASED);
}

/* slot READY(j) -> PROVING(me, j) [ready ring]; job READY|SYNTHESIZING(*, s) -> PROVING(me).
 * Provers. A slot whose job is inconsistent is quarantined back to FREE and skipped. */
int zka_slot_take_ready(struct zka_arena *a, uint32_t *slot, uint32_t *job, int timeout_ms)
{
	uint32_t me, s;
	int rc = zka__self(a, &me);
	if (rc < 0)
		return rc;
	for (;;) {
		struct xctx x = {.me = me};
		struct zka__ring_ops ops = {.leave = leave_ready_slot, .ctx = &x};
		if ((rc = zka__ring_pop(a, ZKA_RING_READY_SLOTS, &s, timeout_ms, &ops)) < 0)
			return rc;
		count_slot(a, ZKA_SLOT_PROVING);
		ZKA_FAULT("slot.take_ready.taken");
		uint32_t j = w_link(x.got);
		if (j < a->g.njobs) {
			struct zka__job *J = job_rec(a, j);
			uint64_t jw = ld(&J->word);
			while ((w_state(jw) == ZKA_JOB_READY ||
				w_state(jw) == ZKA_JOB_SYNTHESIZING ||
				w_state(jw) == ZKA_JOB_LEASED) &&
			       w_link(jw) == s) {
				if (cas(&J->word, &jw,
					job_next(jw, ZKA_JOB_PROVING, me, s, w_job_attempts(jw)))) {
					count_job(a, ZKA_JOB_PROVING);
					atomic_store(&J->t_prove_start, zka__now_ns());
					attempt_begin(J);
					*slot = s;
					*job = j;
					return 0;
				}
			}
		}
		/* inconsistent pair: quarantine the slot (its a, b, w belong to no live job) */
		cnt(a, ZKA_C_QUARANTINED, 1);
		if (zka__push_slot(a, ZKA_RING_FREE_SLOTS, s, x.got,
				   slot_next(x.got, ZKA_SLOT_FREE, ZKA_OWNER_NONE, ZKA_NONE)) < 0)
			cnt(a, ZKA_C_CLEANUP_FAILURES, 1);
	}
}

/* job PROVING(me) -> DONE | FAILED(reason); slot PROVING(me, j) -> FREE. The slot's prover. */
int zka_job_finish(struct zka_arena *a, uint32_t slot, const char *reason)
{
	struct pair p;
	int rc = my_pair(a, slot, ZKA_SLOT_PROVING, ZKA_JOB_PROVING, &p);
	if (rc < 0)
		return rc;
	if (reason)
		copy_str(p.J->reason, reason, ZKA_REASON_MAX);
	atomic_store(&p.J->t_prove_end, zka__now_ns());
	attempt_end(p.J);
	uint32_t st = reason ? ZKA_JOB_FAILED : ZKA_JOB_DONE;
	if (!cas(&p.J->word, &p.jw, job_next(p.jw, st, ZKA_OWNER_NONE, slot, w_job_attempts(p.jw))))
		return -EBADMSG;
	count_job(a, st);
	cnt(a, reason ? ZKA_C_JOBS_FAILED : ZKA_C_JOBS_DONE, 1);
	job_announce(p.J);
	ZKA_FAULT("job.finish.done");
	return zka__push_slot(a, ZKA_RING_FREE_SLOTS, slot, p.sw,
			      slot_next(p.sw, ZKA_SLOT_FREE, ZKA_OWNER_NONE, ZKA_NONE));
}

/* Copies a validated snapshot of job j. */
int zka_job_info(const struct zka_arena *a, uint32_t j, struct zka_job_info *o)
{
	memset(o, 0, sizeof *o);
	if (j >= a->g.njobs)
		return -ERANGE;
	struct zka__job *J = job_rec(a, j);
	uint64_t w = ld(&J->word);
	uint32_t st = w_state(w);
	o->state = (st >= ZKA_JOB_FREE && st <= ZKA_JOB_STATE_MAX) ? (int)st : 0;
	o->owner = w_owner(w) == ZKA_OWNER_NONE ? ZKA_NONE : w_owner(w);
	o->slot = w_link(w);
	o->attempts = w_job_attempts(w);
	o->gen = w_job_gen(w);
	if (o->owner != ZKA_NONE)
		zka__owner_info(a, o->owner, &o->who);
	uint64_t serial = atomic_load(&J->serial);
	o->id = serial << 24 | j;
	o->user_tag = atomic_load(&J->user_tag);
	o->priority = atomic_load(&J->priority);
	o->circuit = atomic_load(&J->circuit);
	o->max_attempts = atomic_load(&J->max_attempts);
	o->synth_count = atomic_load(&J->synth_count);
	o->t_submit = atomic_load(&J->t_submit);
	o->t_synth_start = atomic_load(&J->t_synth_start);
	o->t_synth_end = atomic_load(&J->t_synth_end);
	o->t_witness_end = atomic_load(&J->t_witness_end);
	o->t_prove_start = atomic_load(&J->t_prove_start);
	o->t_prove_end = atomic_load(&J->t_prove_end);
	/* text fields: copied, then forced NUL-terminated (never trusted) */
	memcpy(o->witness_path, J->witness_path, ZKA_PATH_MAX);
	o->witness_path[ZKA_PATH_MAX - 1] = 0;
	memcpy(o->out_dir, J->out_dir, ZKA_PATH_MAX);
	o->out_dir[ZKA_PATH_MAX - 1] = 0;
	memcpy(o->reason, J->reason, ZKA_REASON_MAX);
	o->reason[ZKA_REASON_MAX - 1] = 0;
	o->out_dev = atomic_load(&J->out_dev);
	o->out_ino = atomic_load(&J->out_ino);
	o->uid = atomic_load(&J->sub_uid);
	o->gid = atomic_load(&J->sub_gid);
	o->acct_uid = zka__job_account(a, J);
	o->prove_count = atomic_load(&J->prove_count);
	uint32_t first = o->prove_count > ZKA_ATTEMPT_LOG ? o->prove_count - ZKA_ATTEMPT_LOG : 0;
	for (uint32_t k = 0; k < ZKA_ATTEMPT_LOG && first + k < o->prove_count; k++) {
		struct zka__attempt *e = &J->prove_log[(first + k) % ZKA_ATTEMPT_LOG];
		o->prove_log[k].n = atomic_load(&e->n);
		o->prove_log[k].pid = atomic_load(&e->pid);
		o->prove_log[k].t_start = atomic_load(&e->t_start);
		o->prove_log[k].t_end = atomic_load(&e->t_end);
	}
	if (st == ZKA_JOB_DONE || st == ZKA_JOB_FAILED)
		o->t_finished = job_finished_at(J);
	if (o->slot != ZKA_NONE && o->slot >= a->g.nslots)
		o->state = 0;
	if (o->circuit != ZKA_NONE && o->circuit >= a->g.ncircuits)
		o->state = 0;
	return 0;
}

int zka_slot_info(const struct zka_arena *a, uint32_t s, struct zka_slot_info *o)
{
	memset(o, 0, sizeof *o);
	if (s >= a->g.nslots)
		return -ERANGE;
	struct zka__slot *S = slot_rec(a, s);
	uint64_t w = ld(&S->word);
	uint32_t st = w_state(w);
	o->state = (st >= ZKA_SLOT_FREE && st <= ZKA_SLOT_QUARANTINED) ? (int)st : 0;
	o->owner = w_owner(w) == ZKA_OWNER_NONE ? ZKA_NONE : w_owner(w);
	o->job = w_link(w);
	o->gen = w_slot_gen(w);
	if (o->owner != ZKA_NONE)
		zka__owner_info(a, o->owner, &o->who);
	o->data_off = atomic_load(&S->data_off);
	o->data_size = atomic_load(&S->data_size);
	o->used_bytes = atomic_load(&S->used_bytes);
	o->form = atomic_load(&S->form);
	if (o->job != ZKA_NONE && o->job >= a->g.njobs)
		o->state = 0;
	o->data_bad = !slot_geom_agrees(a, s, o->data_off, o->data_size);
	if (o->data_bad && st != ZKA_SLOT_QUARANTINED) /* quarantined stays named so */
		o->state = 0;
	return 0;
}

void *zka_slot_data(struct zka_arena *a, uint32_t s, uint64_t *size)
{
	if (s >= a->g.nslots)
		return NULL;
	/* computed from the private geometry; the record's copy must agree */
	if (!a->data_mapped || !slot_geom_ok(a, s))
		return NULL;
	if (size)
		*size = a->g.slot_stride;
	return a->base + slot_off(a, s);
}

int zka_slot_set_used(struct zka_arena *a, uint32_t s, uint64_t used)
{
	if (s >= a->g.nslots || used > a->g.slot_stride)
		return -ERANGE;
	atomic_store(&slot_rec(a, s)->used_bytes, used);
	return 0;
}

uint32_t zka_slot_form(const struct zka_arena *a, uint32_t s)
{
	return s < a->g.nslots ? atomic_load(&slot_rec(a, s)->form) : ZKA_SLOT_FORM_AB;
}

int zka_slot_set_form(struct zka_arena *a, uint32_t s, uint32_t form)
{
	if (s >= a->g.nslots)
		return -ERANGE;
	if (form != ZKA_SLOT_FORM_AB && form != ZKA_SLOT_FORM_W)
		return -EINVAL;
	atomic_store(&slot_rec(a, s)->form, form);
	return 0;
}

/* Waits for job id to be terminal. Clients. */
int zka_job_wait(struct zka_arena *a, uint64_t id, int timeout_ms, struct zka_job_info *info)
{
	uint32_t j = zka_job_index(id);
	if (j >= a->g.njobs)
		return -ERANGE;
	struct zka__job *J = job_rec(a, j);
	struct timespec dl;
	zka__deadline(&dl, timeout_ms);
	int rc = 0;
	int ro = a->flags & ZKA_OPEN_RDONLY;
	if (ro && timeout_ms != 0)
		return -EROFS; /* an uncounted waiter could miss its wake-up (I8): needs a RW handle
				*/
	if (!ro)
		atomic_fetch_add(&J->waiters,
				 1); /* seq_cst: counted before reading seq/state (I8) */
	for (;;) {
		uint32_t seq = atomic_load(&J->done_seq);
		uint64_t w;
		if ((rc = live_job(a, id, &J, &w)) < 0)
			break;
		uint32_t st = w_state(w);
		if (st == ZKA_JOB_DONE || st == ZKA_JOB_FAILED) {
			if (info)
				zka_job_info(a, j, info);
			rc = st == ZKA_JOB_DONE ? 0 : 1;
			break;
		}
		if (timeout_ms == 0) {
			rc = -ETIMEDOUT;
			break;
		}
		cnt(a, ZKA_C_WAITS, 1);
		if (zka__futex_wait(&J->done_seq, seq, timeout_ms < 0 ? NULL : &dl) == -ETIMEDOUT) {
			timeout_ms = 0; /* one last look */
		}
	}
	if (!ro)
		atomic_fetch_sub(&J->waiters, 1);
	return rc;
}

/* job DONE|FAILED -> FREE [free-jobs]. Clients, after wait. */
int zka_job_may_touch(const struct zka_arena *a, const struct zka_job_info *ji)
{
	uid_t me = geteuid();
	return me == 0 || me == a->obj_uid || me == ji->uid;
}

/* The same from the record (not a copy): submitter, arena owner or root. */
static int may_touch_rec(const struct zka_arena *a, struct zka__job *J)
{
	uid_t me = geteuid();
	return me == 0 || me == a->obj_uid || me == atomic_load(&J->sub_uid);
}

int zka_job_release(struct zka_arena *a, uint64_t id)
{
	uint32_t j = zka_job_index(id), me;
	if (j >= a->g.njobs)
		return -ERANGE;
	int rc = zka__self(a, &me);
	if (rc < 0)
		return rc;
	struct zka__job *J;
	uint64_t w;
	if ((rc = live_job(a, id, &J, &w)) < 0)
		return rc;
	if (!may_touch_rec(a, J))
		return -EPERM;
	if (w_state(w) != ZKA_JOB_DONE && w_state(w) != ZKA_JOB_FAILED)
		return -EBUSY;
	if ((rc = zka__push_job(a, ZKA_RING_FREE_JOBS, j, w,
				job_next(w, ZKA_JOB_FREE, ZKA_OWNER_NONE, ZKA_NONE, 0))) < 0)
		return rc == -EBUSY ? -ESTALE : rc;
	job_announce(J); /* waiters see -ESTALE */
	return 0;
}

/* Sets the job's cancel flag (no state change: the worker or prover that next handles the
 * job fails it with "cancelled"). Clients. -ESTALE when id no longer names a live job,
 * -EALREADY when it is already DONE or FAILED. The flag is read with acquire by
 * zka_job_cancelled; the release store orders nothing else, it is a one-way latch. */
int zka_job_cancel(struct zka_arena *a, uint64_t id)
{
	uint32_t j = zka_job_index(id);
	if (j >= a->g.njobs)
		return -ERANGE;
	if (a->flags & ZKA_OPEN_RDONLY)
		return -EROFS;
	struct zka__job *J;
	uint64_t w;
	if (live_job(a, id, &J, &w) < 0)
		return -ESTALE;
	if (!may_touch_rec(a, J))
		return -EPERM;
	if (w_state(w) == ZKA_JOB_DONE || w_state(w) == ZKA_JOB_FAILED)
		return -EALREADY;
	atomic_store_explicit(&J->cancel, 1, memory_order_release);
	return 0;
}

int zka_job_cancelled(const struct zka_arena *a, uint32_t job)
{
	if (job >= a->g.njobs)
		return 0;
	return atomic_load_explicit(&job_rec(a, job)->cancel, memory_order_acquire) == 1;
}
