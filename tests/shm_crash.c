/* shm_crash.c - processes die at every named step of push, pop and the transitions (fault
 * hook), holding locks, concurrently with several recoverers, and at random points (hundreds of
 * SIGKILLs); after recovery the invariants must hold: every slot in exactly one place (one ring
 * or one owner), every job in exactly one state, nothing lost, nothing duplicated. */
#include "shm/zka_arena.h"
#include "tests/testutil.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t seed;
static char name[64];

static uint64_t rs; /* xorshift state, from the printed seed (children mix in their pid) */
static uint32_t rnd(uint32_t n)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (uint32_t)((rs * 0x2545F4914F6CDD1DULL) >> 32) % n;
}

static struct zka_arena *mk(uint32_t nslots, uint32_t njobs, uint32_t max_attempts)
{
	struct zka_arena_params p = {.nslots = nslots, .slot_bytes = 4096, .njobs = njobs,
				     .numa_node = -1, .max_attempts = max_attempts};
	struct zka_arena *a = NULL;
	const char *msg;
	snprintf(name, sizeof name, "t-crash-%016llx", (unsigned long long)zka_test_rand64()); /* unique, not from the seed */
	int rc = zka_arena_create(name, &p, &a, &msg);
	if (rc)
		fprintf(stderr, "create: %s\n", msg);
	CU_ASSERT_FATAL(rc == 0);
	return a;
}

static int check(struct zka_arena *a, const char *when)
{
	char err[300] = "";
	int rc = zka_arena_check(a, err, sizeof err);
	if (rc)
		fprintf(stderr, "invariant broken %s: %s (seed %llu)\n", when, err,
			(unsigned long long)seed);
	CU_ASSERT(rc == 0);
	return rc;
}

static void finish_arena(struct zka_arena *a)
{
	zka_arena_close(a);
	CU_ASSERT(zka_arena_destroy(name) == 0);
}

static _Atomic uint32_t *corrupt_count; /* shared with children */
static uint32_t work_us;                 /* chaos children: simulated synthesis/proving time */

/* A worker's step: one job synthesized into one slot (the slot gets the job's tag). */
static int worker_once(struct zka_arena *a, int timeout)
{
	uint32_t s, j;
	int rc = zka_slot_acquire(a, &s, timeout);
	if (rc)
		return rc;
	if ((rc = zka_job_take(a, s, &j, timeout)) != 0) {
		zka_slot_release(a, s);
		return rc;
	}
	struct zka_job_info ji;
	zka_job_info(a, j, &ji);
	uint64_t *d = zka_slot_data(a, s, NULL);
	d[0] = ji.user_tag;
	if (work_us)
		usleep(rnd(work_us));
	d[1] = ~ji.user_tag;
	return zka_slot_ready(a, s);
}

/* A prover's step: the slot must hold exactly its job's data (I5). */
static int prover_once(struct zka_arena *a, int timeout)
{
	uint32_t s, j;
	int rc = zka_slot_take_ready(a, &s, &j, timeout);
	if (rc)
		return rc;
	struct zka_job_info ji;
	zka_job_info(a, j, &ji);
	uint64_t *d = zka_slot_data(a, s, NULL);
	if (work_us)
		usleep(rnd(work_us));
	if (d[0] != ji.user_tag || d[1] != ~ji.user_tag)
		atomic_fetch_add(corrupt_count, 1);
	return zka_job_finish(a, s, NULL);
}

/* Runs the pipeline in this process until nothing moves. */
static void drain(struct zka_arena *a)
{
	for (int idle = 0; idle < 3;) {
		int moved = 0;
		while (prover_once(a, 0) == 0)
			moved++;
		while (worker_once(a, 0) == 0)
			moved++;
		idle = moved ? 0 : idle + 1;
	}
}

static void submit(struct zka_arena *a, uint64_t tag, uint64_t *id)
{
	struct zka_job_spec sp = {.circuit = ZKA_NONE, .witness_path = "w", .out_dir = "o",
				  .user_tag = tag};
	uint64_t dummy;
	CU_ASSERT(zka_job_submit(a, &sp, id ? id : &dummy, 1000) == 0);
}

/* After recovery and a drain: every job is FREE, DONE or FAILED; every slot FREE. */
static void assert_quiet(struct zka_arena *a, const char *when)
{
	struct zka_arena_geometry g;
	zka_arena_geometry(a, &g);
	for (uint32_t j = 0; j < g.njobs; j++) {
		struct zka_job_info ji;
		zka_job_info(a, j, &ji);
		if (ji.state != ZKA_JOB_FREE && ji.state != ZKA_JOB_DONE && ji.state != ZKA_JOB_FAILED) {
			fprintf(stderr, "%s: job %u stuck in %s (seed %llu)\n", when, j,
				zka_job_state_name(ji.state), (unsigned long long)seed);
			CU_FAIL("job stuck");
		}
	}
	CU_ASSERT(zka_ring_depth(a, ZKA_RING_FREE_SLOTS) == (int)g.nslots);
	check(a, when);
}

/* An external producer's step (zka_job_lease): writes the tag as a worker does, then commits
 * (commit 1) or aborts. */
static int lease_once(struct zka_arena *a, uint64_t tag, int commit)
{
	struct zka_job_spec sp = {
	    .circuit = 0, .witness_path = "lib", .out_dir = "o", .user_tag = tag};
	uint32_t s;
	uint64_t id;
	int rc = zka_job_lease(a, &sp, &s, &id, 100);
	if (rc)
		return rc;
	uint64_t *d = zka_slot_data(a, s, NULL);
	d[0] = tag;
	d[1] = ~tag;
	return commit ? zka_job_lease_commit(a, s) : zka_job_lease_abort(a, s, "aborted");
}

/* The lease: invisible to workers; a producer killed before commit fails its job and gives its
 * slot back; one killed after commit loses nothing (the job is proved); abort and commit only
 * by the holder. */
static void test_lease(void)
{
	struct zka_arena *a = mk(2, 8, 3);
	struct zka_job_spec sp = {
	    .circuit = 0, .witness_path = "lib", .out_dir = "o", .user_tag = 9};
	uint32_t s, j;
	uint64_t id;
	CU_ASSERT(zka_job_lease(a, &sp, &s, &id, 100) == 0);
	uint32_t s2;
	CU_ASSERT(zka_slot_acquire(a, &s2, 100) == 0);
	CU_ASSERT(zka_job_take(a, s2, &j, 0) == -ETIMEDOUT); /* the leased job is no worker's */
	CU_ASSERT(zka_slot_release(a, s2) == 0);
	CU_ASSERT(zka_slot_ready(a, s) == -EBADMSG); /* a worker's commit on a lease: refused */
	CU_ASSERT(zka_job_lease_abort(a, s, "x") == 0);
	struct zka_job_info ji;
	CU_ASSERT(zka_job_wait(a, id, 0, &ji) == 1);
	CU_ASSERT(strcmp(ji.reason, "x") == 0);
	CU_ASSERT(check(a, "after abort") == 0);
	for (int commit = 0; commit <= 1; commit++) {
		int pfd[2];
		CU_ASSERT(pipe(pfd) == 0);
		pid_t pid = fork();
		if (pid == 0) {
			uint64_t cid = 0;
			uint32_t cs;
			if (zka_job_lease(a, &sp, &cs, &cid, 100) == 0) {
				uint64_t *d = zka_slot_data(a, cs, NULL);
				d[0] = 9;
				d[1] = ~9ULL;
				if (commit)
					zka_job_lease_commit(a, cs);
			}
			if (write(pfd[1], &cid, sizeof cid) != sizeof cid)
				_exit(1);
			raise(SIGKILL);
		}
		close(pfd[1]);
		uint64_t cid = 0;
		CU_ASSERT(read(pfd[0], &cid, sizeof cid) == sizeof cid);
		close(pfd[0]);
		waitpid(pid, NULL, 0);
		CU_ASSERT(zka_job_info(a, zka_job_index(cid), &ji) == 0);
		CU_ASSERT(ji.state == (commit ? ZKA_JOB_READY : ZKA_JOB_LEASED));
		CU_ASSERT(zka_arena_recover(a) >= (commit ? 0 : 2));
		drain(a);
		int w = zka_job_wait(a, cid, 0, &ji);
		CU_ASSERT(w == (commit ? 0 : 1));
		if (!commit)
			CU_ASSERT(strstr(ji.reason, "died before committing") != NULL);
		assert_quiet(a, commit ? "producer killed after commit"
				       : "producer killed before commit");
	}
	CU_ASSERT(*corrupt_count == 0);
	finish_arena(a);
}

/* Every named step, hit at its 1st..3rd occurrence by a child running the whole lifecycle. */
static void test_fault_points(void)
{
	int hit_steps = 0, runs = 0;
	for (int si = 0; zka__fault_steps[si]; si++) {
		const char *step = zka__fault_steps[si];
		int hit_once = 0;
		for (unsigned nth = 1; nth <= 3; nth++) {
			struct zka_arena *a = mk(2, 8, 5);
			uint64_t id1, id2;
			submit(a, 1, &id1);
			submit(a, 2, &id2);
			pid_t pid = fork();
			if (pid == 0) {
				zka__fault_set(step, 'k', nth);
				uint64_t id3;
				struct zka_job_spec sp = {.circuit = ZKA_NONE, .witness_path = "w",
							  .out_dir = "o", .user_tag = 3};
				zka_job_submit(a, &sp, &id3, 1000);
				worker_once(a, 100);
				prover_once(a, 100);
				worker_once(a, 100);
				worker_once(a, 100);
				prover_once(a, 100);
				zka_job_release(a, id1);
				sp.user_tag = 4; /* a bad witness: FIFO makes it the job taken next */
				zka_job_submit(a, &sp, &id3, 1000);
				uint32_t s, j;
				if (zka_slot_acquire(a, &s, 100) == 0 && zka_job_take(a, s, &j, 100) == 0)
					zka_job_fail_synth(a, s, "bad witness");
				/* an external producer: a lease committed and proved, one aborted
				 */
				lease_once(a, 5, 1);
				prover_once(a, 100);
				lease_once(a, 6, 0);
				zka_arena_recover(a);
				_exit(0);
			}
			int st;
			CU_ASSERT(waitpid(pid, &st, 0) == pid);
			int killed = WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
			CU_ASSERT(killed || (WIFEXITED(st) && WEXITSTATUS(st) == 0));
			hit_once |= killed;
			runs++;
			zka_arena_recover(a);
			if (check(a, step) == 0) {
				drain(a);
				char when[96];
				snprintf(when, sizeof when, "after %s@%u", step, nth);
				assert_quiet(a, when);
				struct zka_job_info ji;
				int w2 = zka_job_wait(a, id2, 0, &ji);
				CU_ASSERT(w2 == 0);
			}
			finish_arena(a);
		}
		if (hit_once)
			hit_steps++;
		else if (strcmp(step, "ring.repair.cells") != 0)
			fprintf(stderr, "fault step %s never hit (seed %llu)\n", step, (unsigned long long)seed);
	}
	/* every step but ring.repair.cells is on the lifecycle's path */
	int nsteps = 0;
	while (zka__fault_steps[nsteps])
		nsteps++;
	CU_ASSERT(hit_steps >= nsteps - 1);
	CU_ASSERT(runs == nsteps * 3);
}

/* A process stopped while holding the free-slot ring's lock (or between its CAS and the commit
 * store) blocks others only until their timeout; once it is killed, the next locker repairs the
 * ring from the table. A repairer killed mid-repair is repaired after in turn. */
static void test_stopped_holder(void)
{
	static const char *steps[] = {"ring.locked", "ring.pop.left", "ring.push.entered", "ring.push.cell"};
	for (unsigned k = 0; k < 4; k++) {
		struct zka_arena *a = mk(3, 8, 3);
		uint32_t s0;
		if (k >= 2)
			CU_ASSERT(zka_slot_acquire(a, &s0, 0) == 0); /* the child releases one slot */
		pid_t pid = fork();
		if (pid == 0) {
			uint32_t s;
			if (k >= 2) {
				/* take over s0's ownership is impossible: acquire our own, release it */
				if (zka_slot_acquire(a, &s, 1000))
					_exit(1);
				zka__fault_set(steps[k], 's', 1);
				zka_slot_release(a, s);
			} else {
				zka__fault_set(steps[k], 's', 1);
				zka_slot_acquire(a, &s, 1000);
			}
			_exit(0);
		}
		int st;
		CU_ASSERT(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st));
		uint32_t s;
		/* the lock is held by a live (stopped) process: a timeout, and no recovery steal */
		CU_ASSERT(zka_slot_acquire(a, &s, 60) == -ETIMEDOUT);
		CU_ASSERT(zka_arena_recover(a) == 0);
		kill(pid, SIGKILL);
		CU_ASSERT(waitpid(pid, &st, 0) == pid);
		zka_arena_recover(a);
		uint64_t rep0 = zka_arena_counter(a, ZKA_C_RING_REPAIRS);
		CU_ASSERT(check(a, steps[k]) == 0);
		CU_ASSERT(zka_arena_counter(a, ZKA_C_RING_REPAIRS) > rep0 ||
			  zka_arena_counter(a, ZKA_C_RING_REPAIRS) >= 1);
		if (k >= 2)
			CU_ASSERT(zka_slot_release(a, s0) == 0);
		CU_ASSERT(zka_ring_depth(a, ZKA_RING_FREE_SLOTS) == 3);
		/* the slots can all be taken again, each once */
		uint32_t got[3];
		for (int i = 0; i < 3; i++)
			CU_ASSERT(zka_slot_acquire(a, &got[i], 0) == 0);
		CU_ASSERT(got[0] != got[1] && got[1] != got[2] && got[0] != got[2]);
		CU_ASSERT(zka_slot_acquire(a, &s, 0) == -ETIMEDOUT);
		for (int i = 0; i < 3; i++)
			CU_ASSERT(zka_slot_release(a, got[i]) == 0);
		finish_arena(a);
	}
	/* a repairer killed in the middle of its repair */
	struct zka_arena *a = mk(6, 8, 3);
	pid_t pid = fork();
	if (pid == 0) {
		zka__fault_set("ring.pop.left", 'k', 1);
		uint32_t s;
		zka_slot_acquire(a, &s, 1000);
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	pid = fork();
	if (pid == 0) {
		zka__fault_set("ring.repair.cells", 'k', 1);
		uint32_t s;
		zka_slot_acquire(a, &s, 1000);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	CU_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	zka_arena_recover(a);
	check(a, "after a killed repairer");
	CU_ASSERT(zka_ring_depth(a, ZKA_RING_FREE_SLOTS) == 6);
	finish_arena(a);
}

/* A worker dies holding slot + job; several recoverers race: the job is requeued exactly once
 * per death (attempts +1), then FAILED when attempts reach max_attempts. A prover's death puts
 * the slot back to READY without re-synthesis. */
static void test_concurrent_recoverers(void)
{
	const uint32_t max = 4;
	struct zka_arena *a = mk(2, 4, max);
	_Atomic uint32_t *go = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(go != MAP_FAILED);
	uint64_t id;
	submit(a, 77, &id);
	uint32_t j = zka_job_index(id);
	for (uint32_t round = 1; round <= max; round++) {
		pid_t w = fork();
		if (w == 0) {
			uint32_t s, jj;
			if (zka_slot_acquire(a, &s, 1000) || zka_job_take(a, s, &jj, 1000))
				_exit(1);
			raise(SIGKILL);
		}
		int st;
		waitpid(w, &st, 0);
		CU_ASSERT(WIFSIGNALED(st));
		atomic_store(go, 0);
		enum { R = 4 };
		pid_t rs[R];
		for (int i = 0; i < R; i++)
			if ((rs[i] = fork()) == 0) {
				while (!atomic_load(go))
					;
				int n = zka_arena_recover(a);
				_exit(n < 0 ? 255 : n);
			}
		atomic_store(go, 1);
		int total = 0;
		for (int i = 0; i < R; i++) {
			waitpid(rs[i], &st, 0);
			CU_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) != 255);
			total += WEXITSTATUS(st);
		}
		int n = zka_arena_recover(a); /* the parent is a recoverer too */
		total += n;
		CU_ASSERT(total == 2); /* the job and the slot, each exactly once */
		struct zka_job_info ji;
		zka_job_info(a, j, &ji);
		CU_ASSERT(ji.attempts == round);
		CU_ASSERT(ji.synth_count == round);
		CU_ASSERT(ji.state == (round < max ? ZKA_JOB_SUBMITTED : ZKA_JOB_FAILED));
		if (round == max)
			CU_ASSERT(strstr(ji.reason, "died") != NULL);
		check(a, "after concurrent recovery");
	}
	struct zka_job_info ji;
	CU_ASSERT(zka_job_wait(a, id, 0, &ji) == 1);
	/* prover death: no re-synthesis */
	submit(a, 78, &id);
	j = zka_job_index(id);
	CU_ASSERT(worker_once(a, 0) == 0);
	pid_t p = fork();
	if (p == 0) {
		uint32_t s, jj;
		if (zka_slot_take_ready(a, &s, &jj, 1000))
			_exit(1);
		raise(SIGKILL);
	}
	int st;
	waitpid(p, &st, 0);
	CU_ASSERT(zka_arena_recover(a) == 2);
	zka_job_info(a, j, &ji);
	CU_ASSERT(ji.state == ZKA_JOB_READY && ji.synth_count == 1 && ji.attempts == 0);
	CU_ASSERT(zka_ring_depth(a, ZKA_RING_READY_SLOTS) == 1);
	check(a, "after prover death");
	CU_ASSERT(prover_once(a, 0) == 0);
	CU_ASSERT(zka_job_wait(a, id, 0, &ji) == 0 && ji.synth_count == 1);
	munmap((void *)go, 4096);
	finish_arena(a);
}

/* Chaos: workers, a prover and a submitter, each maybe armed to die at a random step, while
 * the parent SIGKILLs random children; after each round everyone is killed, recovery runs and
 * the invariants are checked; at the end the pipeline drains and every submitted token is in
 * exactly one job, DONE (or FAILED after max_attempts), its data intact at proving time. */
enum { T = 1500, NKIDS = 4 };
struct chaos_shared {
	_Atomic uint32_t next_tok;
	_Atomic uint32_t submitted[T];
};

static void chaos_child(struct zka_arena *a, int role, struct chaos_shared *sh)
{
	rs ^= (uint64_t)getpid() * 0x9E3779B97F4A7C15ULL;
	rs |= 1;
	work_us = 1500;
	if (rnd(2)) {
		int n = 0;
		while (zka__fault_steps[n])
			n++;
		zka__fault_set(zka__fault_steps[rnd((uint32_t)n)], 'k', 1 + rnd(8));
	}
	zka_arena_recover(a); /* as on attach */
	for (;;) {
		if (role == 0) {
			uint32_t tok = atomic_fetch_add(&sh->next_tok, 1);
			if (tok >= T) {
				usleep(10000);
				continue;
			}
			struct zka_job_spec sp = {.circuit = ZKA_NONE, .witness_path = "w",
						  .out_dir = "o", .user_tag = tok + 1};
			uint64_t id;
			if (zka_job_submit(a, &sp, &id, 1000) == 0)
				atomic_store(&sh->submitted[tok], 1);
		} else if (role == 1) {
			prover_once(a, 50);
		} else {
			worker_once(a, 50);
		}
	}
}

static void test_chaos(void)
{
	struct zka_arena *a = mk(3, T + 16, 200);
	struct chaos_shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(sh != MAP_FAILED);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int kills = 0, selfkills = 0, rounds = 0;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double el = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		if ((kills + selfkills >= 400 && rounds >= 8) || el > 25)
			break;
		rounds++;
		pid_t kids[NKIDS];
		for (int i = 0; i < NKIDS; i++)
			if ((kids[i] = fork()) == 0)
				chaos_child(a, i < 1 ? 0 : i < 2 ? 1 : 2, sh);
		int ticks = 20 + (int)rnd(40);
		for (int t = 0; t < ticks; t++) {
			usleep(2000 + rnd(15000));
			int i = (int)rnd(NKIDS);
			int st;
			pid_t r = waitpid(kids[i], &st, WNOHANG);
			if (r == kids[i]) {
				/* children loop forever: only a SIGKILL (the fault hook) may end one */
				if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)) {
					fprintf(stderr, "chaos child ended with status 0x%x\n", st);
					CU_FAIL("chaos child died abnormally");
				}
				selfkills++;
			} else {
				kill(kids[i], SIGKILL);
				waitpid(kids[i], &st, 0);
				kills++;
			}
			if ((kids[i] = fork()) == 0)
				chaos_child(a, i < 1 ? 0 : i < 2 ? 1 : 2, sh);
			if (rnd(4) == 0)
				zka_arena_recover(a);
		}
		for (int i = 0; i < NKIDS; i++) {
			int st;
			kill(kids[i], SIGKILL);
			waitpid(kids[i], &st, 0);
			kills++;
		}
		zka_arena_recover(a);
		char when[64];
		snprintf(when, sizeof when, "after chaos round %d", rounds);
		if (check(a, when))
			break;
	}
	fprintf(stderr, "chaos: %d rounds, %d SIGKILLs by the parent, %d fault-hook deaths, "
			"%u tokens taken (seed %llu)\n",
		rounds, kills, selfkills, atomic_load(&sh->next_tok), (unsigned long long)seed);
	fprintf(stderr, "chaos: %llu jobs DONE during the rounds\n",
		(unsigned long long)zka_arena_counter(a, ZKA_C_JOBS_DONE));
	CU_ASSERT(kills + selfkills >= 300);
	/* let the submitter's work finish: submit whatever tokens were never taken */
	for (uint32_t tok = atomic_load(&sh->next_tok); tok < T; tok++) {
		struct zka_job_spec sp = {.circuit = ZKA_NONE, .witness_path = "w", .out_dir = "o",
					  .user_tag = tok + 1};
		uint64_t id;
		if (zka_job_submit(a, &sp, &id, 0) == 0)
			atomic_store(&sh->submitted[tok], 1);
	}
	drain(a);
	assert_quiet(a, "after chaos drain");
	struct zka_arena_geometry g;
	zka_arena_geometry(a, &g);
	uint32_t *seen = calloc(T + 2, sizeof *seen);
	uint32_t done = 0, failed = 0, dup = 0, lost = 0;
	for (uint32_t j = 0; j < g.njobs; j++) {
		struct zka_job_info ji;
		zka_job_info(a, j, &ji);
		if (ji.state == ZKA_JOB_FREE)
			continue;
		if (ji.user_tag < 1 || ji.user_tag > T) {
			CU_FAIL("job with an unknown tag");
			continue;
		}
		dup += seen[ji.user_tag]++ > 0;
		done += ji.state == ZKA_JOB_DONE;
		if (ji.state == ZKA_JOB_FAILED) {
			failed++;
			CU_ASSERT(strstr(ji.reason, "died") != NULL && ji.attempts == ji.max_attempts);
		}
	}
	for (uint32_t t = 0; t < T; t++)
		if (atomic_load(&sh->submitted[t]) && !seen[t + 1])
			lost++;
	fprintf(stderr, "chaos: %u DONE, %u FAILED, %u duplicated, %u lost, %u corrupt slots\n", done,
		failed, dup, lost, atomic_load(corrupt_count));
	CU_ASSERT(dup == 0);
	CU_ASSERT(lost == 0);
	CU_ASSERT(atomic_load(corrupt_count) == 0);
	CU_ASSERT((int)(done + failed) >= T - 5 * rounds); /* only in-flight submits may vanish */
	CU_ASSERT(zka_arena_counter(a, ZKA_C_CLEANUP_FAILURES) == 0);
	free(seen);
	munmap(sh, sizeof *sh);
	finish_arena(a);
}

int main(void)
{
	seed = zka_test_rand64();
	rs = seed | 1;
	corrupt_count = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (corrupt_count == MAP_FAILED)
		return 1;
	static const zka_test_case cases[] = {
		{"fault_points_every_step", test_fault_points},
		{"lease_external_producer", test_lease},
		{"stopped_lock_holder_and_repair", test_stopped_holder},
		{"concurrent_recoverers_attempts", test_concurrent_recoverers},
		{"chaos_hundreds_of_sigkills", test_chaos},
		{NULL, NULL}};
	zka_test_suite("shm_crash", cases);
	int rc = zka_test_run();
	if (rc)
		fprintf(stderr, "shm_crash: FAILED with seed %llu\n", (unsigned long long)seed);
	return rc;
}
