/* shm_bad.c - bad arena contents give a clear error or are quarantined, never a crash:
 * wrong magic, other version, corrupt header, inconsistent geometry, truncated objects,
 * out-of-range indices planted in rings and tables, unterminated text. White-box: it plants
 * the bad values through shm/internal.h. Runs under ASan+UBSan too. */
#include "shm/internal.h"
#include "tests/testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

static uint64_t seed;
static char name[64], shm[96];

static struct zka_arena *mk(uint32_t nslots, uint32_t njobs)
{
	struct zka_arena_params p = {.nslots = nslots, .slot_bytes = 1000, .njobs = njobs,
				     .numa_node = -1};
	struct zka_arena *a = NULL;
	const char *msg;
	snprintf(name, sizeof name, "t-bad-%016llx", (unsigned long long)zka_test_rand64());
	zka_arena_shm_name(name, shm, sizeof shm);
	CU_ASSERT_FATAL(zka_arena_create(name, &p, &a, &msg) == 0);
	return a;
}

/* Maps the object's header privately-writable (shared) to scribble on it. */
static unsigned char *map_raw(size_t len)
{
	int fd = shm_open(shm, O_RDWR, 0);
	CU_ASSERT_FATAL(fd >= 0);
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	CU_ASSERT_FATAL(p != MAP_FAILED);
	return p;
}

static int try_open(const char **msg)
{
	struct zka_arena *b = NULL;
	int rc = zka_arena_open(name, 0, &b, msg);
	if (rc == 0)
		zka_arena_close(b);
	else
		CU_ASSERT(*msg && **msg);
	return rc;
}

static void test_header(void)
{
	struct zka_arena *a = mk(2, 4);
	zka_arena_close(a);
	const char *msg;
	unsigned char *raw = map_raw(ZKA_HDR_BYTES);
	struct zka__geom *g = (struct zka__geom *)raw, save = *g;
	CU_ASSERT(try_open(&msg) == 0);

	g->magic ^= 1;
	CU_ASSERT(try_open(&msg) == -EBADMSG && strstr(msg, "magic"));
	*g = save;
	g->version = 99;
	CU_ASSERT(try_open(&msg) == -EPROTO && strstr(msg, "version"));
	*g = save;
	/* one random byte of the geometry flipped: the checksum catches it */
	size_t off = 12 + (size_t)(zka_test_rand64() % (offsetof(struct zka__geom, checksum) - 12));
	raw[off] ^= (unsigned char)(1 + zka_test_rand64() % 255);
	int rc = try_open(&msg);
	if (rc != -EBADMSG)
		fprintf(stderr, "flipped byte %zu: rc %d (seed %llu)\n", off, rc, (unsigned long long)seed);
	CU_ASSERT(rc == -EBADMSG && strstr(msg, "checksum"));
	*g = save;
	/* a valid checksum over an inconsistent geometry (a planted offset) */
	g->jobs_off += 64;
	g->checksum = XXH64(g, offsetof(struct zka__geom, checksum), ZKA_MAGIC);
	CU_ASSERT(try_open(&msg) == -EBADMSG && strstr(msg, "geometry"));
	*g = save;
	/* a geometry claiming more slots than the object holds */
	g->nslots = 1000;
	g->checksum = XXH64(g, offsetof(struct zka__geom, checksum), ZKA_MAGIC);
	CU_ASSERT(try_open(&msg) != 0);
	*g = save;
	CU_ASSERT(try_open(&msg) == 0);
	munmap(raw, ZKA_HDR_BYTES);

	/* truncated: half the object, then less than a header, then empty */
	struct zka_arena *b;
	CU_ASSERT_FATAL(zka_arena_open(name, ZKA_OPEN_RDONLY, &b, &msg) == 0);
	struct zka_arena_geometry geo;
	zka_arena_geometry(b, &geo);
	zka_arena_close(b);
	int fd = shm_open(shm, O_RDWR, 0);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(ftruncate(fd, (off_t)(geo.total_bytes / 2)) == 0);
	CU_ASSERT(try_open(&msg) == -EINVAL && strstr(msg, "truncated"));
	CU_ASSERT(ftruncate(fd, 100) == 0);
	CU_ASSERT(try_open(&msg) == -EINVAL && strstr(msg, "truncated"));
	CU_ASSERT(ftruncate(fd, 0) == 0);
	CU_ASSERT(try_open(&msg) == -EINVAL);
	close(fd);
	CU_ASSERT(zka_arena_destroy(name) == 0);
	/* bad names, missing arenas, bad geometry */
	CU_ASSERT(zka_arena_open("../etc", 0, &b, &msg) == -EINVAL);
	CU_ASSERT(zka_arena_open(name, 0, &b, &msg) == -ENOENT);
	struct zka_arena_params p = {.nslots = 0, .slot_bytes = 1, .numa_node = -1};
	CU_ASSERT(zka_arena_create(name, &p, &b, &msg) == -EINVAL && msg);
	p.nslots = 1;
	p.max_attempts = 300;
	CU_ASSERT(zka_arena_create(name, &p, &b, &msg) == -EINVAL);
	CU_ASSERT(zka_arena_destroy(name) == -ENOENT);
	/* a /dev/shm too small fails at create, clearly, and leaves nothing behind */
	struct statvfs vfs;
	CU_ASSERT_FATAL(statvfs("/dev/shm", &vfs) == 0);
	p = (struct zka_arena_params){.nslots = 1, .numa_node = -1,
				      .slot_bytes = (uint64_t)vfs.f_bavail * vfs.f_frsize + (1ULL << 30)};
	msg = NULL;
	CU_ASSERT(zka_arena_create(name, &p, &b, &msg) == -ENOSPC && msg && strstr(msg, "/dev/shm"));
	CU_ASSERT(zka_arena_destroy(name) == -ENOENT);
}

static void check_ok(struct zka_arena *a, const char *when)
{
	char err[256] = "";
	int rc = zka_arena_check(a, err, sizeof err);
	if (rc)
		fprintf(stderr, "%s: %s (seed %llu)\n", when, err, (unsigned long long)seed);
	CU_ASSERT(rc == 0);
}

/* Planted ring contents: out-of-range and duplicated cells, an insane head/tail span. A pop
 * skips (quarantines) them; recovery rebuilds the ring from the table. */
static void test_planted_rings(void)
{
	struct zka_arena *a = mk(4, 8);
	struct zka__ring *R = ring_at(a, ZKA_RING_FREE_SLOTS);
	uint32_t head = atomic_load(&R->head);
	atomic_store(&R->cells[head % 4], 0xFFFFFFu);      /* out of range */
	atomic_store(&R->cells[(head + 1) % 4], 3u);       /* duplicate of the last cell */
	uint64_t q0 = zka_arena_counter(a, ZKA_C_QUARANTINED);
	uint32_t s, got[4];
	int n = 0;
	while (n < 4 && zka_slot_acquire(a, &s, 0) == 0)
		got[n++] = s;
	CU_ASSERT(n == 2 && got[0] == 3 && got[1] == 2); /* 0xFFFFFF skipped; the 2nd 3 is stale */
	CU_ASSERT(zka_arena_counter(a, ZKA_C_QUARANTINED) >= q0 + 2);
	for (int i = 0; i < n; i++)
		CU_ASSERT(zka_slot_release(a, got[i]) == 0);
	/* slots 0 and 1 are FREE but in no ring: recovery's audit puts them back */
	CU_ASSERT(zka_arena_check(a, NULL, 0) == -EUCLEAN);
	zka_arena_recover(a);
	check_ok(a, "after ring audit");
	CU_ASSERT(zka_ring_depth(a, ZKA_RING_FREE_SLOTS) == 4);
	/* insane span */
	atomic_store(&R->tail, atomic_load(&R->head) + 1000000u);
	CU_ASSERT(zka_ring_depth(a, ZKA_RING_FREE_SLOTS) == -EBADMSG);
	CU_ASSERT(zka_slot_acquire(a, &s, 0) == 0 && s < 4); /* the lock-taker repairs first */
	CU_ASSERT(zka_slot_release(a, s) == 0);
	check_ok(a, "after span repair");
	/* plain ring: an insane span empties it, out-of-range-for-API cells are dropped */
	zka_arena_close(a);
	CU_ASSERT(zka_arena_destroy(name) == 0);
	struct zka_arena_params p = {.nslots = 1, .slot_bytes = 1, .numa_node = -1, .nuser_rings = 1,
				     .user_ring_cap = 4};
	const char *msg;
	CU_ASSERT_FATAL(zka_arena_create(name, &p, &a, &msg) == 0);
	R = ring_at(a, ZKA_RING_USER0);
	CU_ASSERT(zka_ring_push(a, ZKA_RING_USER0, 5, 0) == 0);
	CU_ASSERT(zka_ring_push(a, ZKA_RING_USER0, 6, 0) == 0);
	atomic_store(&R->cells[atomic_load(&R->head) % 4], 0x90000000u);
	uint32_t v;
	CU_ASSERT(zka_ring_pop(a, ZKA_RING_USER0, &v, 0) == 0 && v == 6);
	atomic_store(&R->head, 77);
	atomic_store(&R->tail, 3);
	CU_ASSERT(zka_ring_pop(a, ZKA_RING_USER0, &v, 0) == -ETIMEDOUT);
	CU_ASSERT(zka_ring_depth(a, ZKA_RING_USER0) == 0);
	CU_ASSERT(zka_ring_push(a, ZKA_RING_USER0, 9, 0) == 0);
	CU_ASSERT(zka_ring_pop(a, ZKA_RING_USER0, &v, 0) == 0 && v == 9);
	CU_ASSERT(zka_ring_depth(a, 99) == -EINVAL && zka_ring_pop(a, -1, &v, 0) == -EINVAL);
	zka_arena_close(a);
	CU_ASSERT(zka_arena_destroy(name) == 0);
}

/* Planted table contents: out-of-range links and owners, unknown states, unterminated text,
 * a moved data offset, garbage owner entries. */
static void test_planted_tables(void)
{
	struct zka_arena *a = mk(3, 6);
	const char *msg;
	uint32_t s, j;
	/* slot 0 READY bound to a job index far out of range: taken, found inconsistent,
	 * quarantined back to FREE */
	uint32_t s0;
	CU_ASSERT_FATAL(zka_slot_acquire(a, &s0, 0) == 0);
	atomic_store(&slot_rec(a, s0)->word, w_slot(ZKA_SLOT_READY, ZKA_OWNER_NONE, 0xABCDE, 9));
	zka_arena_recover(a); /* audit: READY slot enters the ready ring */
	uint64_t q0 = zka_arena_counter(a, ZKA_C_QUARANTINED);
	CU_ASSERT(zka_slot_take_ready(a, &s, &j, 0) == -ETIMEDOUT);
	CU_ASSERT(zka_arena_counter(a, ZKA_C_QUARANTINED) > q0);
	struct zka_slot_info si;
	CU_ASSERT(zka_slot_info(a, s0, &si) == 0 && si.state == ZKA_SLOT_FREE);
	check_ok(a, "after quarantined slot");

	/* a job SYNTHESIZING under an owner index beyond the table, and one naming an empty
	 * owner entry: both treated as dead owners and requeued */
	struct zka_job_spec sp = {.circuit = ZKA_NONE, .witness_path = "w", .out_dir = "o"};
	uint64_t id1, id2;
	CU_ASSERT_FATAL(zka_job_submit(a, &sp, &id1, 0) == 0 && zka_job_submit(a, &sp, &id2, 0) == 0);
	uint32_t j1 = zka_job_index(id1), j2 = zka_job_index(id2);
	/* take them off the ring legally, then plant the owners */
	uint32_t sa, sb, ja, jb;
	CU_ASSERT_FATAL(zka_slot_acquire(a, &sa, 0) == 0 && zka_job_take(a, sa, &ja, 0) == 0);
	CU_ASSERT_FATAL(zka_slot_acquire(a, &sb, 0) == 0 && zka_job_take(a, sb, &jb, 0) == 0);
	CU_ASSERT(ja == j1 && jb == j2);
	uint64_t w = atomic_load(&job_rec(a, j1)->word);
	atomic_store(&job_rec(a, j1)->word, w_job(ZKA_JOB_SYNTHESIZING, 0xFFE, w_link(w), 0, 50));
	atomic_store(&slot_rec(a, sa)->word, w_slot(ZKA_SLOT_WRITING, 0xFFE, j1, 50));
	w = atomic_load(&job_rec(a, j2)->word);
	atomic_store(&job_rec(a, j2)->word, w_job(ZKA_JOB_SYNTHESIZING, 1000, w_link(w), 0, 50));
	atomic_store(&slot_rec(a, sb)->word, w_slot(ZKA_SLOT_WRITING, 1000, j2, 50));
	CU_ASSERT(zka_arena_recover(a) == 4);
	struct zka_job_info ji;
	zka_job_info(a, j1, &ji);
	CU_ASSERT(ji.state == ZKA_JOB_SUBMITTED && ji.attempts == 1);
	check_ok(a, "after planted owners");

	/* unterminated text and a corrupt state are reported, never overrun */
	memset(job_rec(a, j2)->witness_path, 'A', ZKA_PATH_MAX);
	memset(job_rec(a, j2)->reason, 'B', ZKA_REASON_MAX);
	CU_ASSERT(zka_job_info(a, j2, &ji) == 0 && strlen(ji.witness_path) == ZKA_PATH_MAX - 1 &&
		  strlen(ji.reason) == ZKA_REASON_MAX - 1);
	uint64_t saved = atomic_load(&slot_rec(a, 2)->word);
	atomic_store(&slot_rec(a, 2)->word, saved | 0xF);
	CU_ASSERT(zka_slot_info(a, 2, &si) == 0 && si.state == 0);
	char err[256] = "";
	CU_ASSERT(zka_arena_check(a, err, sizeof err) == -EUCLEAN && err[0]);
	atomic_store(&slot_rec(a, 2)->word, saved);
	/* a job READY naming a slot out of range */
	saved = atomic_load(&job_rec(a, 5)->word);
	atomic_store(&job_rec(a, 5)->word, w_job(ZKA_JOB_READY, ZKA_OWNER_NONE, 0xFFFFF0, 0, 3));
	CU_ASSERT(zka_job_info(a, 5, &ji) == 0 && ji.state == 0);
	CU_ASSERT(zka_arena_check(a, err, sizeof err) == -EUCLEAN);
	atomic_store(&job_rec(a, 5)->word, saved);
	/* a moved data offset: the slot's memory is refused */
	uint64_t off = atomic_load(&slot_rec(a, 1)->data_off);
	atomic_store(&slot_rec(a, 1)->data_off, 1ULL << 60);
	CU_ASSERT(zka_slot_data(a, 1, NULL) == NULL);
	CU_ASSERT(zka_slot_info(a, 1, &si) == 0 && si.state == 0);
	atomic_store(&slot_rec(a, 1)->data_off, off);
	CU_ASSERT(zka_slot_data(a, 1, NULL) != NULL);
	/* garbage owner entries: judged dead and reaped */
	for (uint32_t o = 100; o < 110; o++)
		atomic_store(&owners(a)[o], zka_test_rand64() | 1);
	uint64_t r0 = zka_arena_counter(a, ZKA_C_OWNERS_REAPED);
	zka_arena_recover(a);
	CU_ASSERT(zka_arena_counter(a, ZKA_C_OWNERS_REAPED) >= r0 + 10);
	/* out-of-range arguments */
	CU_ASSERT(zka_job_info(a, 6, &ji) == -ERANGE && zka_slot_info(a, 3, &si) == -ERANGE);
	CU_ASSERT(zka_job_wait(a, 0xFFFFFFu, 0, NULL) == -ERANGE);
	CU_ASSERT(zka_job_take(a, 77, &j, 0) == -ERANGE);
	sp.circuit = 999;
	CU_ASSERT(zka_job_submit(a, &sp, &id1, 0) == -EINVAL);
	check_ok(a, "at the end");
	/* a read-only handle refuses every change */
	struct zka_arena *ro;
	CU_ASSERT_FATAL(zka_arena_open(name, ZKA_OPEN_RDONLY, &ro, &msg) == 0);
	CU_ASSERT(zka_slot_acquire(ro, &s, 0) == -EROFS && zka_arena_recover(ro) == -EROFS);
	zka_arena_close(ro);
	zka_arena_close(a);
	CU_ASSERT(zka_arena_destroy(name) == 0);
}

int main(void)
{
	seed = zka_test_rand64();
	static const zka_test_case cases[] = {{"header_magic_version_checksum_truncated", test_header},
					      {"planted_ring_contents", test_planted_rings},
					      {"planted_table_contents", test_planted_tables},
					      {NULL, NULL}};
	zka_test_suite("shm_bad", cases);
	int rc = zka_test_run();
	if (rc)
		fprintf(stderr, "shm_bad: FAILED with seed %llu\n", (unsigned long long)seed);
	return rc;
}
