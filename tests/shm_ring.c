/* shm_ring.c - arena basics, ring FIFO/capacity/blocking/timeout, producers x consumers stress,
 * and the job/slot pipeline across processes. Every test forks several processes. */
#include "shm/zka_arena.h"
#include "tests/testutil.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t seed;
static char name[64];

static void fresh_name(void)
{
	snprintf(name, sizeof name, "t-ring-%016llx", (unsigned long long)zka_test_rand64());
}

static struct zka_arena *mk(uint32_t nslots, uint32_t njobs, uint32_t urings, uint32_t ucap)
{
	struct zka_arena_params p = {.nslots = nslots, .slot_bytes = 4096, .njobs = njobs,
				     .numa_node = -1, .nuser_rings = urings, .user_ring_cap = ucap};
	struct zka_arena *a = NULL;
	const char *msg;
	fresh_name();
	int rc = zka_arena_create(name, &p, &a, &msg);
	if (rc)
		fprintf(stderr, "create %s: %s (seed %llu)\n", name, msg, (unsigned long long)seed);
	CU_ASSERT_FATAL(rc == 0);
	return a;
}

static void done(struct zka_arena *a)
{
	char err[256] = "";
	int rc = zka_arena_check(a, err, sizeof err);
	if (rc)
		fprintf(stderr, "check: %s (seed %llu)\n", err, (unsigned long long)seed);
	CU_ASSERT(rc == 0);
	zka_arena_close(a);
	CU_ASSERT(zka_arena_destroy(name) == 0);
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for every child; returns the number that did not exit 0. */
static int reap(pid_t *pids, int n)
{
	int bad = 0;
	for (int i = 0; i < n; i++) {
		int st;
		if (waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "child %d failed (status 0x%x, seed %llu)\n", (int)pids[i], st,
				(unsigned long long)seed);
			bad++;
		}
	}
	return bad;
}

static void test_create_open(void)
{
	struct zka_arena *a = mk(3, 10, 0, 0), *b = NULL;
	const char *msg;
	struct zka_arena_geometry g;
	zka_arena_geometry(a, &g);
	CU_ASSERT(g.nslots == 3 && g.njobs == 10 && g.slot_stride == ZKA_SLOT_ALIGN);
	CU_ASSERT(g.data_off % ZKA_SLOT_ALIGN == 0);
	CU_ASSERT(zka_arena_open(name, 0, &b, &msg) == 0);
	struct zka_arena_params p = {.nslots = 1, .slot_bytes = 1, .numa_node = -1};
	struct zka_arena *c = NULL;
	CU_ASSERT(zka_arena_create(name, &p, &c, &msg) == -EEXIST);
	CU_ASSERT(zka_ring_depth(b, ZKA_RING_FREE_SLOTS) == 3);
	CU_ASSERT(zka_ring_depth(b, ZKA_RING_FREE_JOBS) == 10);
	for (uint32_t s = 0; s < 3; s++) {
		uint64_t sz;
		unsigned char *d = zka_slot_data(b, s, &sz);
		CU_ASSERT(d && sz == ZKA_SLOT_ALIGN && ((uintptr_t)d - (uintptr_t)zka_slot_data(b, 0, NULL)) % ZKA_SLOT_ALIGN == 0);
	}
	CU_ASSERT(zka_slot_data(b, 3, NULL) == NULL);
	zka_arena_close(b);
	done(a);
	CU_ASSERT(zka_arena_open(name, 0, &b, &msg) == -ENOENT);
	/* names */
	char shm[128];
	CU_ASSERT(zka_arena_shm_name("ok-name_1.x", shm, sizeof shm) == 0 && !strcmp(shm, "/zkarena-ok-name_1.x"));
	CU_ASSERT(zka_arena_shm_name("", shm, sizeof shm) == -EINVAL);
	CU_ASSERT(zka_arena_shm_name("a/b", shm, sizeof shm) == -EINVAL);
	CU_ASSERT(zka_arena_shm_name("..", shm, sizeof shm) == -EINVAL);
	CU_ASSERT(zka_arena_shm_name("x y", shm, sizeof shm) == -EINVAL);
	char longn[80];
	memset(longn, 'a', 79);
	longn[79] = 0;
	CU_ASSERT(zka_arena_shm_name(longn, shm, sizeof shm) == -EINVAL);
}

/* A --group arena (issue 38): the slots in their own owner-only object "/zkarena-NAME+slots",
 * mapped after the records at the same offsets; a stale slot object of this user replaced at
 * create; a loosened or missing one refused at open; destroy removes both. */
static void test_group_split(void)
{
	struct zka_arena_params p = {.nslots = 2,
				     .slot_bytes = 4096,
				     .njobs = 8,
				     .numa_node = -1,
				     .share_group = 1,
				     .group = (uint32_t)getegid()};
	struct zka_arena *a = NULL, *b = NULL;
	const char *msg = NULL;
	char obj[160], slots[160];
	struct stat st;
	fresh_name();
	snprintf(obj, sizeof obj, "/dev/shm/zkarena-%s", name);
	snprintf(slots, sizeof slots, "/dev/shm/zkarena-%s+slots", name);
	/* a stale slot object of ours (a create that died) is replaced */
	FILE *f = fopen(slots, "w");
	CU_ASSERT_FATAL(f && fputs("stale", f) >= 0 && fclose(f) == 0);
	int rc = zka_arena_create(name, &p, &a, &msg);
	if (rc)
		fprintf(stderr, "create %s: %s\n", name, msg);
	CU_ASSERT_FATAL(rc == 0);
	struct zka_arena_geometry g;
	zka_arena_geometry(a, &g);
	CU_ASSERT(stat(obj, &st) == 0 && (uint64_t)st.st_size == g.data_off &&
		  (st.st_mode & 07777) == 0660);
	CU_ASSERT(stat(slots, &st) == 0 && (uint64_t)st.st_size == 2 * g.slot_stride &&
		  (st.st_mode & 07777) == 0600);
	unsigned char *d0 = zka_slot_data(a, 0, NULL), *d1 = zka_slot_data(a, 1, NULL);
	CU_ASSERT_FATAL(d0 && d1 && d1 - d0 == (ptrdiff_t)g.slot_stride);
	uint64_t pat = zka_test_rand64();
	memcpy(d0 + 100, &pat, 8);
	memcpy(d1 + g.slot_stride - 8, &pat, 8);
	CU_ASSERT(zka_arena_open(name, 0, &b, &msg) == 0);
	uint64_t got0 = 0, got1 = 0;
	unsigned char *e0 = b ? zka_slot_data(b, 0, NULL) : NULL,
		      *e1 = b ? zka_slot_data(b, 1, NULL) : NULL;
	CU_ASSERT_FATAL(e0 && e1);
	memcpy(&got0, e0 + 100, 8);
	memcpy(&got1, e1 + g.slot_stride - 8, 8);
	CU_ASSERT(got0 == pat && got1 == pat);
	uint32_t s;
	CU_ASSERT(zka_slot_acquire(b, &s, 0) == 0 && zka_slot_release(b, s) == 0);
	zka_arena_close(b);
	b = NULL;
	/* loosened: group-readable slots are refused, naming the slot object */
	CU_ASSERT(chmod(slots, 0640) == 0);
	CU_ASSERT(zka_arena_open(name, 0, &b, &msg) == -EPERM && msg && strstr(msg, "+slots"));
	CU_ASSERT(chmod(slots, 0600) == 0);
	/* missing */
	char keep[200];
	snprintf(keep, sizeof keep, "%s.keep", slots);
	CU_ASSERT(rename(slots, keep) == 0);
	CU_ASSERT(zka_arena_open(name, 0, &b, &msg) == -ENOENT && msg && strstr(msg, "missing"));
	CU_ASSERT(rename(keep, slots) == 0);
	done(a);
	CU_ASSERT(stat(obj, &st) != 0 && errno == ENOENT);
	CU_ASSERT(stat(slots, &st) != 0 && errno == ENOENT);
}

/* Who a job counts against under the per-user limits (issue 38): the submitter, or the user the
 * owner's (or root's) handle names with zka_arena_set_account (a server's socket peer); a
 * record of any other submitter keeps its own uid whatever it claims. */
static void test_account(void)
{
	struct zka_arena *a = mk(1, 8, 0, 0);
	uint32_t me = (uint32_t)geteuid(), other = me == 4242 ? 4243 : 4242;
	struct zka_job_spec sp = {
	    .circuit = ZKA_NONE, .witness_path = "/tmp/w.wtns", .out_dir = "/tmp/out", .uid = me};
	struct zka_job_info ji;
	uint64_t id[3];
	CU_ASSERT_FATAL(zka_job_submit(a, &sp, &id[0], 0) == 0);
	zka_arena_set_account(a, 777);
	CU_ASSERT_FATAL(zka_job_submit(a, &sp, &id[1], 0) == 0);
	sp.uid = other; /* a record of another submitter claiming 777 */
	CU_ASSERT_FATAL(zka_job_submit(a, &sp, &id[2], 0) == 0);
	zka_arena_set_account(a, ZKA_ACCT_NONE);
	uint32_t want[3] = {me, 777, other};
	for (int i = 0; i < 3; i++) {
		CU_ASSERT(zka_job_info(a, (uint32_t)(id[i] & 0xffffff), &ji) == 0);
		CU_ASSERT(ji.acct_uid == want[i]);
		if (ji.acct_uid != want[i])
			fprintf(stderr, "job %d: acct_uid %u, wanted %u\n", i, ji.acct_uid,
				want[i]);
	}
	for (int i = 0; i < 3; i++)
		CU_ASSERT(zka_job_cancel(a, id[i]) == 0);
	done(a);
}

/* A producer process pushes 0..N-1 through a small ring (cap 8, so it blocks on full); the
 * consumer (parent) must pop them in order. */
static void test_fifo_capacity(void)
{
	struct zka_arena *a = mk(1, 1, 1, 8);
	int r = ZKA_RING_USER0;
	CU_ASSERT(zka_ring_capacity(a, r) == 8);
	CU_ASSERT(zka_ring_push(a, ZKA_RING_FREE_SLOTS, 0, 0) == -EPERM);
	CU_ASSERT(zka_ring_push(a, r, 0x80000000u, 0) == -ERANGE);
	for (uint32_t i = 0; i < 8; i++)
		CU_ASSERT(zka_ring_push(a, r, 100 + i, 0) == 0);
	CU_ASSERT(zka_ring_depth(a, r) == 8);
	CU_ASSERT(zka_ring_push(a, r, 1, 0) == -ETIMEDOUT);
	int64_t t0 = now_ms();
	CU_ASSERT(zka_ring_push(a, r, 1, 50) == -ETIMEDOUT);
	CU_ASSERT(now_ms() - t0 >= 49);
	for (uint32_t i = 0; i < 8; i++) {
		uint32_t v = 0;
		CU_ASSERT(zka_ring_pop(a, r, &v, 0) == 0 && v == 100 + i);
	}
	uint32_t n = 2000 + (uint32_t)(zka_test_rand64() % 2000);
	pid_t pid = fork();
	if (pid == 0) {
		for (uint32_t i = 0; i < n; i++)
			if (zka_ring_push(a, r, i, 5000) != 0)
				_exit(1);
		_exit(0);
	}
	int ok = 1;
	for (uint32_t i = 0; i < n && ok; i++) {
		uint32_t v;
		if (zka_ring_pop(a, r, &v, 5000) != 0 || v != i) {
			fprintf(stderr, "fifo: expected %u got %u (seed %llu)\n", i, v, (unsigned long long)seed);
			ok = 0;
		}
	}
	CU_ASSERT(ok);
	CU_ASSERT(reap(&pid, 1) == 0);
	CU_ASSERT(zka_ring_depth(a, r) == 0);
	done(a);
}

/* Consumers block on an empty ring until a producer pushes; a pop with a timeout returns
 * -ETIMEDOUT after about that long. */
static void test_blocking_timeout(void)
{
	struct zka_arena *a = mk(1, 1, 1, 4);
	int r = ZKA_RING_USER0;
	uint32_t v;
	int64_t t0 = now_ms();
	CU_ASSERT(zka_ring_pop(a, r, &v, 0) == -ETIMEDOUT);
	CU_ASSERT(zka_ring_pop(a, r, &v, 80) == -ETIMEDOUT);
	int64_t dt = now_ms() - t0;
	CU_ASSERT(dt >= 79 && dt < 2000);
	enum { K = 3 };
	pid_t pids[K];
	uint64_t w0 = zka_arena_counter(a, ZKA_C_WAITS);
	for (int k = 0; k < K; k++) {
		pids[k] = fork();
		if (pids[k] == 0) {
			uint32_t x;
			if (zka_ring_pop(a, r, &x, 10000) != 0 || x != 7)
				_exit(1);
			_exit(0);
		}
	}
	/* all K consumers asleep on the futex (the wait counter says so) before any push */
	for (int64_t t = now_ms(); zka_arena_counter(a, ZKA_C_WAITS) < w0 + K && now_ms() - t < 5000;)
		usleep(1000);
	usleep(50000);
	CU_ASSERT(zka_arena_counter(a, ZKA_C_WAITS) >= w0 + K);
	CU_ASSERT(zka_ring_depth(a, r) == 0);
	for (int k = 0; k < K; k++) {
		int st;
		CU_ASSERT(waitpid(pids[k], &st, WNOHANG) == 0); /* still blocked */
	}
	for (int k = 0; k < K; k++)
		CU_ASSERT(zka_ring_push(a, r, 7, 1000) == 0);
	CU_ASSERT(reap(pids, K) == 0);
	CU_ASSERT(zka_arena_counter(a, ZKA_C_WAKES) >= K);
	done(a);
}

/* P producers x C consumers over a small ring: every index handed over arrives exactly once. */
static void test_mpmc_stress(void)
{
	enum { P = 3, C = 3 };
	uint32_t per = 3000 + (uint32_t)(zka_test_rand64() % 1000);
	uint32_t cap = 1 + (uint32_t)(zka_test_rand64() % 16);
	struct zka_arena *a = mk(1, 1, 1, cap);
	int r = ZKA_RING_USER0;
	size_t total = (size_t)P * per;
	_Atomic uint32_t *hits = mmap(NULL, total * 4 + 64, PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(hits != MAP_FAILED);
	_Atomic uint32_t *left = hits + total;
	atomic_store(left, (uint32_t)total);
	pid_t pids[P + C];
	for (int p = 0; p < P; p++) {
		if ((pids[p] = fork()) == 0) {
			for (uint32_t i = 0; i < per; i++)
				if (zka_ring_push(a, r, (uint32_t)p * per + i, 10000) != 0)
					_exit(1);
			_exit(0);
		}
	}
	for (int c = 0; c < C; c++) {
		if ((pids[P + c] = fork()) == 0) {
			for (;;) {
				uint32_t v;
				int rc = zka_ring_pop(a, r, &v, 200);
				if (rc == -ETIMEDOUT) {
					if (atomic_load(left) == 0)
						_exit(0);
					continue;
				}
				if (rc != 0 || v >= total)
					_exit(1);
				atomic_fetch_add(&hits[v], 1);
				atomic_fetch_sub(left, 1);
			}
		}
	}
	CU_ASSERT(reap(pids, P + C) == 0);
	size_t bad = 0;
	for (size_t i = 0; i < total; i++)
		bad += atomic_load(&hits[i]) != 1;
	if (bad)
		fprintf(stderr, "mpmc: %zu indices not delivered exactly once (cap %u, seed %llu)\n", bad,
			cap, (unsigned long long)seed);
	CU_ASSERT(bad == 0);
	CU_ASSERT(zka_arena_counter(a, ZKA_C_PUSHES) == total && zka_arena_counter(a, ZKA_C_POPS) == total);
	munmap((void *)hits, total * 4 + 64);
	done(a);
}

/* One job through every transition, each stage in another process; a worker blocked on the
 * free-slot ring is woken by the prover's finish; a client blocked in zka_job_wait is woken. */
static void test_pipeline(void)
{
	struct zka_arena *a = mk(1, 8, 0, 0);
	uint64_t id, id2;
	struct zka_job_spec sp = {.circuit = ZKA_NONE, .witness_path = "/tmp/w.wtns", .out_dir = "/tmp/out",
				  .user_tag = 42};
	CU_ASSERT_FATAL(zka_job_submit(a, &sp, &id, 0) == 0);
	sp.user_tag = 43;
	CU_ASSERT_FATAL(zka_job_submit(a, &sp, &id2, 0) == 0);
	CU_ASSERT(zka_ring_depth(a, ZKA_RING_SUBMITTED_JOBS) == 2);
	pid_t pids[3];
	/* client: waits for job 1 */
	if ((pids[0] = fork()) == 0) {
		struct zka_job_info ji;
		int rc = zka_job_wait(a, id, 10000, &ji);
		_exit(rc == 0 && ji.state == ZKA_JOB_DONE && ji.user_tag == 42 && ji.t_prove_end >= ji.t_submit ? 0 : 1);
	}
	/* worker: two jobs, one slot: the second acquire blocks until the prover frees it */
	if ((pids[1] = fork()) == 0) {
		for (int k = 0; k < 2; k++) {
			uint32_t s, j;
			if (zka_slot_acquire(a, &s, 10000) || zka_job_take(a, s, &j, 1000))
				_exit(1);
			struct zka_job_info ji;
			zka_job_info(a, j, &ji);
			uint64_t *d = zka_slot_data(a, s, NULL);
			d[0] = ji.user_tag;
			if (zka_slot_ready(a, s))
				_exit(2);
		}
		_exit(0);
	}
	/* prover */
	if ((pids[2] = fork()) == 0) {
		for (int k = 0; k < 2; k++) {
			uint32_t s, j;
			if (zka_slot_take_ready(a, &s, &j, 10000))
				_exit(1);
			struct zka_job_info ji;
			zka_job_info(a, j, &ji);
			uint64_t *d = zka_slot_data(a, s, NULL);
			if (d[0] != ji.user_tag || ji.state != ZKA_JOB_PROVING)
				_exit(2);
			usleep(100000);
			if (zka_job_finish(a, s, k == 1 ? "test failure" : NULL))
				_exit(3);
		}
		_exit(0);
	}
	CU_ASSERT(reap(pids, 3) == 0);
	struct zka_job_info ji;
	CU_ASSERT(zka_job_wait(a, id2, 0, &ji) == 1 && !strcmp(ji.reason, "test failure"));
	CU_ASSERT(ji.synth_count == 1 && !strcmp(ji.witness_path, "/tmp/w.wtns") && !strcmp(ji.out_dir, "/tmp/out"));
	CU_ASSERT(zka_job_release(a, id) == 0);
	CU_ASSERT(zka_job_release(a, id) == -ESTALE);
	CU_ASSERT(zka_job_wait(a, id, 0, NULL) == -ESTALE);
	CU_ASSERT(zka_job_release(a, id2) == 0);
	CU_ASSERT(zka_ring_depth(a, ZKA_RING_FREE_JOBS) == 8);
	CU_ASSERT(zka_ring_depth(a, ZKA_RING_FREE_SLOTS) == 1);
	/* misuse is refused */
	uint32_t s;
	CU_ASSERT(zka_slot_ready(a, 0) == -EPERM);
	CU_ASSERT(zka_job_finish(a, 0, NULL) == -EPERM);
	CU_ASSERT(zka_slot_acquire(a, &s, 0) == 0);
	uint32_t j;
	CU_ASSERT(zka_job_take(a, s, &j, 30) == -ETIMEDOUT);
	CU_ASSERT(zka_slot_release(a, s) == 0);
	/* circuits table */
	struct zka_circuit_key k = {.key_path = "/k.zkey", .key_size = 10, .key_mtime_ns = 5, .header_hash = 99};
	uint32_t ci, ci2;
	CU_ASSERT(zka_circuit_claim(a, &k, &ci) == 0);
	CU_ASSERT(zka_circuit_claim(a, &k, &ci2) == ZKA_CIRCUIT_LOADING && ci2 == ci);
	CU_ASSERT(zka_circuit_publish(a, ci, "/zkarena-params-x") == 0);
	CU_ASSERT(zka_circuit_claim(a, &k, &ci2) == ZKA_CIRCUIT_LOADED && ci2 == ci);
	struct zka_circuit_info cinf;
	CU_ASSERT(zka_circuit_info(a, ci, &cinf) == 0 && !strcmp(cinf.params_shm, "/zkarena-params-x"));
	done(a);
}

int main(void)
{
	seed = zka_test_rand64();
	srand((unsigned)seed);
	static const zka_test_case cases[] = {{"create_open_names", test_create_open},
					      {"group_split_slots", test_group_split},
					      {"job_account", test_account},
					      {"fifo_capacity", test_fifo_capacity},
					      {"blocking_timeout", test_blocking_timeout},
					      {"mpmc_stress_exactly_once", test_mpmc_stress},
					      {"pipeline_across_processes", test_pipeline},
					      {NULL, NULL}};
	zka_test_suite("shm_ring", cases);
	int rc = zka_test_run();
	if (rc)
		fprintf(stderr, "shm_ring: FAILED with seed %llu\n", (unsigned long long)seed);
	return rc;
}
