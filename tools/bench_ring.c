/* bench_ring.c - `zkarena bench ring`: cross-process handoff through the arena's ring, next
 * to a pipe and an eventfd measured in the same run. A benchmark, not a test.
 *
 * latency: ping-pong between two processes (A pushes, B pops and pushes back, A pops); the
 *          one-way handoff time is half of each round trip; p50/p99 over --iters rounds.
 * throughput: one producer process streams --iters handoffs to one consumer (the consumer
 *          blocks when the channel is empty, the producer when it is full). */
#include "shm/zka_arena.h"
#include "tools/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

/* A channel pair: "to" carries A->B, "back" carries B->A. */
struct chan {
	const char *name;
	struct zka_arena *a;
	int p1[2], p2[2]; /* pipes */
	int e1, e2;	  /* eventfds */
};

static int ch_send(struct chan *c, int dir, uint32_t v)
{
	if (c->a)
		return zka_ring_push(c->a, ZKA_RING_USER0 + dir, v, -1);
	if (c->e1 >= 0) {
		uint64_t one = 1;
		return write(dir ? c->e2 : c->e1, &one, 8) == 8 ? 0 : -EIO;
	}
	return write(dir ? c->p2[1] : c->p1[1], &v, 4) == 4 ? 0 : -EIO;
}

static int ch_recv(struct chan *c, int dir, uint32_t *v)
{
	if (c->a)
		return zka_ring_pop(c->a, ZKA_RING_USER0 + dir, v, -1);
	if (c->e1 >= 0) {
		uint64_t x;
		*v = 0;
		return read(dir ? c->e2 : c->e1, &x, 8) == 8 ? 0 : -EIO;
	}
	return read(dir ? c->p2[0] : c->p1[0], v, 4) == 4 ? 0 : -EIO;
}

static int run(struct chan *c, int iters, double *p50, double *p99, double *mops)
{
	int64_t *lat = malloc(sizeof *lat * (size_t)iters);
	if (!lat)
		return -ENOMEM;
	/* latency: ping-pong */
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < iters; i++) {
			uint32_t v;
			if (ch_recv(c, 0, &v) || ch_send(c, 1, v))
				_exit(1);
		}
		_exit(0);
	}
	for (int i = 0; i < iters; i++) {
		uint32_t v;
		int64_t t0 = now_ns();
		if (ch_send(c, 0, (uint32_t)i) || ch_recv(c, 1, &v))
			break;
		lat[i] = (now_ns() - t0) / 2;
	}
	int st;
	waitpid(pid, &st, 0);
	qsort(lat, (size_t)iters, sizeof *lat, cmp64);
	*p50 = (double)lat[iters / 2] / 1000.0;
	*p99 = (double)lat[(size_t)iters * 99 / 100] / 1000.0;
	free(lat);
	/* throughput: streaming */
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < iters; i++)
			if (ch_send(c, 0, (uint32_t)i))
				_exit(1);
		_exit(0);
	}
	int64_t t0 = now_ns();
	for (int i = 0; i < iters; i++) {
		uint32_t v;
		if (ch_recv(c, 0, &v))
			break;
	}
	int64_t dt = now_ns() - t0;
	waitpid(pid, &st, 0);
	*mops = (double)iters / ((double)dt / 1e9) / 1e6;
	return 0;
}

int zka_bench_ring(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"iters", required_argument, 0, 'n'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	int iters = 20000, c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			printf(
			    "usage: zkarena bench ring [--iters N]\n\n"
			    "Cross-process handoff of 32-bit indices through an arena ring "
			    "(robust\n"
			    "mutex + futex), a pipe and an eventfd (semaphore mode), in this run.\n"
			    "latency: ping-pong, one-way = round trip / 2, p50 and p99 over N "
			    "rounds;\n"
			    "throughput: one producer streams N handoffs to one consumer (the "
			    "ring\n"
			    "has 64 cells). Creates and destroys a temporary arena.\n");
			return 0;
		}
		if (c == 'n') {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || v < 100 || v > 100000000) {
				fprintf(stderr,
					"zkarena bench ring: --iters: '%s' is not in 100..1e8\n",
					optarg);
				return 2;
			}
			iters = (int)v;
			continue;
		}
		fprintf(stderr, "zkarena bench ring: unknown option '%s' (try --help)\n",
			argv[optind - 1]);
		return 2;
	}
	char name[64];
	snprintf(name, sizeof name, "bench-ring-%d", (int)getpid());
	struct zka_arena_params p = {.nslots = 1,
				     .slot_bytes = 1,
				     .njobs = 1,
				     .numa_node = -1,
				     .nuser_rings = 2,
				     .user_ring_cap = 64};
	struct zka_arena *a;
	const char *msg;
	int rc = zka_arena_create(name, &p, &a, &msg);
	if (rc < 0) {
		fprintf(stderr, "zkarena bench ring: %s: %s\n", name, msg);
		return 2;
	}
	struct chan chans[3] = {{.name = "arena ring", .a = a, .e1 = -1, .e2 = -1},
				{.name = "pipe", .e1 = -1, .e2 = -1},
				{.name = "eventfd", .e1 = -1, .e2 = -1}};
	if (pipe(chans[1].p1) || pipe(chans[1].p2)) {
		perror("zkarena bench ring: pipe");
		rc = 2;
		goto out;
	}
	chans[2].e1 = eventfd(0, EFD_SEMAPHORE);
	chans[2].e2 = eventfd(0, EFD_SEMAPHORE);
	if (chans[2].e1 < 0 || chans[2].e2 < 0) {
		perror("zkarena bench ring: eventfd");
		rc = 2;
		goto out;
	}
	printf("cross-process handoff, %d iterations, %ld CPUs online\n", iters,
	       sysconf(_SC_NPROCESSORS_ONLN));
	printf("%-12s %14s %14s %18s\n", "channel", "p50 (us)", "p99 (us)", "throughput (M/s)");
	for (int i = 0; i < 3; i++) {
		double p50, p99, mops;
		if (run(&chans[i], iters, &p50, &p99, &mops) < 0) {
			rc = 2;
			goto out;
		}
		printf("%-12s %14.2f %14.2f %18.3f\n", chans[i].name, p50, p99, mops);
	}
	rc = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (chans[1].p1[i] > 0)
			close(chans[1].p1[i]);
		if (chans[1].p2[i] > 0)
			close(chans[1].p2[i]);
	}
	if (chans[2].e1 >= 0)
		close(chans[2].e1);
	if (chans[2].e2 >= 0)
		close(chans[2].e2);
	zka_arena_close(a);
	zka_arena_destroy(name);
	return rc;
}
