/* seeded.h - the tests' reproducible PRNG (splitmix64, `rnd`, the state printed as the seed)
 * and a monotonic clock (`now_s`), for suites that include tests/curvepts.h (which needs `rnd`).
 * Header-only: each suite has its own state. */
#ifndef ZKA_TESTS_SEEDED_H
#define ZKA_TESTS_SEEDED_H
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t rng_state;

/* the next value of splitmix64 from rng_state */
static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* seconds of CLOCK_MONOTONIC */
static __attribute__((unused)) double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* rng_state from $env (any base strtoull reads) or else the clock, printed as "name: seed N
 * (env=N reproduces)" */
static __attribute__((unused)) void seed_init(const char *name, const char *env)
{
	const char *s = getenv(env);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	rng_state =
	    s ? strtoull(s, NULL, 0) : (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	printf("%s: seed %" PRIu64 " (%s=%" PRIu64 " reproduces)\n", name, rng_state, env,
	       rng_state);
}

#endif
