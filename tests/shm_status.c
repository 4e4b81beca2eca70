/* shm_status.c - the gpuds' status files (shm/zka_gpud_status.h): a round trip through write
 * and read, a FIFO and a link planted at status names neither block nor are followed, a
 * foreign or oversized file is refused, and destroying the arena removes every status file;
 * zka_pipe_ab_prover's auto mode follows the gpuds those files describe. */
#include "shm/zka_arena.h"
#include "shm/zka_gpud_status.h"
#include "synth/pipe.h"
#include "tests/testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char name[64];

static void mk(void)
{
	struct zka_arena_params p = {.nslots = 1, .slot_bytes = 4096, .njobs = 4, .numa_node = -1};
	struct zka_arena *a = NULL;
	const char *msg;
	snprintf(name, sizeof name, "t-status-%016llx", (unsigned long long)zka_test_rand64());
	CU_ASSERT_FATAL(zka_arena_create(name, &p, &a, &msg) == 0);
	zka_arena_close(a);
}

static void path(char *out, size_t n, int id)
{
	CU_ASSERT_FATAL(zka_gpud_status_path(out, n, name, id) == 0);
}

/* A status as a gpud writes it: id, a key or two, counters, device memory. */
static void fill(struct zka_gpud_status *s, int id)
{
	memset(s, 0, sizeof *s);
	s->id = id;
	s->device = id + 1;
	s->pid = (int)getpid();
	s->lanes = 2;
	snprintf(s->backend, sizeof s->backend, "cuda");
	snprintf(s->note, sizeof s->note, "gpud %d on a test", id);
	snprintf(s->summary, sizeof s->summary,
		 "last 60 s: GPU busy 42.5%%, 3.25 proofs/s, synthesis 3.00 jobs/s, 0 ready "
		 "slot(s) waiting; input copies 1.00 ms per proof, 50%% hidden behind another "
		 "proof");
	s->keys[0] = 1ull << 3;
	s->keys[3] = 1ull << 63; /* circuit 255 */
	s->nkeys = 2;
	s->key_bytes = 3000;
	s->mono_ns = 123456789;
	s->busy_ns = 1000;
	s->proofs = 77;
	s->failed = 1;
	s->copy_ns = 555;
	s->copy_hidden_ns = 444;
	s->ready_total = 80;
	s->bytes_in = 1ull << 40;
	s->yields = 9;
	s->has_mem = 1;
	s->mem_used = 1ull << 33;
	s->mem_total = 1ull << 37;
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char m[] = "shm_status: a reader blocked on a planted status name\n";
	(void)!write(2, m, sizeof m - 1);
	_exit(1);
}

static void test_round_trip(void)
{
	mk();
	uint64_t kb[ZKA_GPUD_KEYS_MAX] = {0};
	kb[3] = 1000;
	kb[255] = 2000;
	struct zka_gpud_status w, r;
	fill(&w, 0);
	CU_ASSERT(zka_gpud_status_write(name, &w, kb) == 0);
	CU_ASSERT(zka_gpud_status_read(name, 0, getuid(), &r) == 0);
	CU_ASSERT(r.id == 0 && r.pid == w.pid && r.alive && r.device == 1 && r.lanes == 2);
	CU_ASSERT(!strcmp(r.backend, "cuda") && !strcmp(r.note, w.note) &&
		  !strcmp(r.summary, w.summary));
	CU_ASSERT(r.busy > 0.4249 && r.busy < 0.4251 && r.proofs_per_s == 3.25);
	CU_ASSERT(r.nkeys == 2 && r.key_bytes == 3000 && !memcmp(r.keys, w.keys, sizeof r.keys));
	CU_ASSERT(r.has_counters && r.mono_ns == w.mono_ns && r.busy_ns == w.busy_ns &&
		  r.proofs == 77 && r.failed == 1 && r.copy_ns == 555 && r.copy_hidden_ns == 444 &&
		  r.ready_total == 80 && r.bytes_in == w.bytes_in && r.yields == 9);
	CU_ASSERT(r.has_mem && r.mem_used == w.mem_used && r.mem_total == w.mem_total);
	char text[ZKA_GPUD_STATUS_BYTES + 1];
	CU_ASSERT(zka_gpud_status_load(name, 0, getuid(), text, sizeof text) == 0);
	CU_ASSERT(strstr(text, " 3=1000 255=2000\n") != NULL);
	/* a bad name or id has no path */
	char p[256];
	CU_ASSERT(zka_gpud_status_path(p, sizeof p, "../x", 0) == -EINVAL);
	CU_ASSERT(zka_gpud_status_path(p, sizeof p, name, ZKA_GPUDS_MAX) == -EINVAL);
	CU_ASSERT(zka_arena_destroy(name) == 0);
}

static void test_planted(void)
{
	mk();
	char p0[256], p1[256], p2[256], p3[256], p5[256], tmp[300];
	path(p0, sizeof p0, 0);
	path(p1, sizeof p1, 1);
	path(p2, sizeof p2, 2);
	path(p3, sizeof p3, 3);
	path(p5, sizeof p5, 5);
	struct zka_gpud_status w[2];
	fill(&w[0], 0);
	fill(&w[1], 3);
	CU_ASSERT(zka_gpud_status_write(name, &w[0], NULL) == 0);
	CU_ASSERT(zka_gpud_status_write(name, &w[1], NULL) == 0);
	/* id 1: a FIFO nobody writes (an open without O_NONBLOCK would block forever) */
	CU_ASSERT_FATAL(mkfifo(p1, 0600) == 0);
	/* id 2: a link to gpud 0's valid file (a reader that followed it would count it) */
	CU_ASSERT_FATAL(symlink(p0, p2) == 0);
	/* id 5: an oversized regular file */
	FILE *f = fopen(p5, "w");
	CU_ASSERT_FATAL(f != NULL);
	for (int i = 0; i < ZKA_GPUD_STATUS_BYTES / 8 + 1; i++)
		fputs("pid 1: \n", f);
	fclose(f);
	/* a temporary left by a gpud killed mid-write */
	snprintf(tmp, sizeof tmp, "%s.tmp99999", p0);
	f = fopen(tmp, "w");
	CU_ASSERT_FATAL(f != NULL);
	fclose(f);

	signal(SIGALRM, on_alarm);
	alarm(10);
	char text[ZKA_GPUD_STATUS_BYTES + 1];
	CU_ASSERT(zka_gpud_status_load(name, 1, getuid(), text, sizeof text) == -EINVAL);
	CU_ASSERT(zka_gpud_status_load(name, 2, getuid(), text, sizeof text) == -ELOOP);
	CU_ASSERT(zka_gpud_status_load(name, 5, getuid(), text, sizeof text) == -EFBIG);
	CU_ASSERT(zka_gpud_status_load(name, 4, getuid(), text, sizeof text) == -ENOENT);
	/* another user's file (unless this test runs as root, whose files are accepted) */
	if (getuid() != 0)
		CU_ASSERT(zka_gpud_status_load(name, 0, getuid() + 1, text, sizeof text) == -EPERM);
	struct zka_gpud_status r[ZKA_GPUDS_MAX];
	int n = zka_gpud_status_read_all(name, r, ZKA_GPUDS_MAX);
	CU_ASSERT(n == 2 && r[0].id == 0 && r[1].id == 3 && r[1].device == 4);
	alarm(0);

	/* destroy removes every status file: the gpuds' of id 0 and up, and what was planted */
	CU_ASSERT(zka_arena_destroy(name) == 0);
	const char *gone[] = {p0, p1, p2, p3, p5, tmp};
	struct stat st;
	for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++) {
		int there = lstat(gone[i], &st) == 0;
		if (there)
			fprintf(stderr, "%s outlived its arena\n", gone[i]);
		CU_ASSERT(!there);
	}
}

/* zka_pipe_ab_prover (synth/pipe.h), who makes a and b: auto is the prover only while at least
 * one gpud runs and every running one is cuda, by their status files (read at most once a
 * second: each step waits that long); a dead gpud's file is ignored; prover and worker are
 * what they say. */
static void test_ab_auto(void)
{
	mk();
	struct zka_arena *a = NULL;
	const char *msg;
	CU_ASSERT_FATAL(zka_arena_open(name, 0, &a, &msg) == 0);
	const struct timespec sec = {1, 50000000};
	struct zka_gpud_status w;
	CU_ASSERT(zka_pipe_ab_prover(a, ZKA_AB_AUTO, "shm_status") == 0); /* no gpud */
	fill(&w, 0); /* a running cuda gpud (this process's pid) */
	CU_ASSERT(zka_gpud_status_write(name, &w, NULL) == 0);
	nanosleep(&sec, NULL);
	CU_ASSERT(zka_pipe_ab_prover(a, ZKA_AB_AUTO, "shm_status") == 1);
	fill(&w, 1); /* and a running cpu gpud */
	snprintf(w.backend, sizeof w.backend, "cpu");
	CU_ASSERT(zka_gpud_status_write(name, &w, NULL) == 0);
	CU_ASSERT(zka_pipe_ab_prover(a, ZKA_AB_AUTO, "shm_status") == 1); /* within the second */
	nanosleep(&sec, NULL);
	CU_ASSERT(zka_pipe_ab_prover(a, ZKA_AB_AUTO, "shm_status") == 0);
	pid_t dead = fork(); /* the cpu gpud dies: its file stays, its pid is gone */
	if (dead == 0)
		_exit(0);
	CU_ASSERT_FATAL(dead > 0);
	waitpid(dead, NULL, 0);
	w.pid = (int)dead;
	CU_ASSERT(zka_gpud_status_write(name, &w, NULL) == 0);
	nanosleep(&sec, NULL);
	CU_ASSERT(zka_pipe_ab_prover(a, ZKA_AB_AUTO, "shm_status") == 1);
	CU_ASSERT(zka_pipe_ab_prover(a, ZKA_AB_WORKER, "shm_status") == 0);
	CU_ASSERT(zka_pipe_ab_prover(a, ZKA_AB_PROVER, "shm_status") == 1);
	enum zka_ab_mode m;
	CU_ASSERT(zka_ab_mode_parse("prover", &m) == 0 && m == ZKA_AB_PROVER);
	CU_ASSERT(zka_ab_mode_parse("auto", &m) == 0 && m == ZKA_AB_AUTO);
	CU_ASSERT(zka_ab_mode_parse("Prover", &m) == -EINVAL);
	zka_arena_close(a);
	CU_ASSERT(zka_arena_destroy(name) == 0);
}

int main(void)
{
	static const zka_test_case cases[] = {
	    {"write_read_round_trip", test_round_trip},
	    {"planted_fifo_link_oversized_and_destroy", test_planted},
	    {"ab_auto_follows_the_gpuds", test_ab_auto},
	    {NULL, NULL}};
	zka_test_suite("shm_status", cases);
	return zka_test_run();
}
