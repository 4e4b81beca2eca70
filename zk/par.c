/* par.c - see par.h. */
#include "zk/par.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

int zka_par_cpus(void)
{
	cpu_set_t set;
	long n = 0;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		n = CPU_COUNT(&set);
	if (n <= 0)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)(n > 256 ? 256 : n) : 1;
}

int zka_par_threads(int requested)
{
	return requested > 0 ? requested : zka_par_cpus();
}

struct job {
	zka_par_fn fn;
	void *ctx;
	size_t begin, end;
	int tid;
};

static void *run(void *arg)
{
	struct job *j = arg;
	j->fn(j->ctx, j->begin, j->end, j->tid);
	return NULL;
}

int zka_par_for(int nthreads, size_t n, zka_par_fn fn, void *ctx)
{
	if (nthreads < 1)
		nthreads = 1;
	if ((size_t)nthreads > n)
		nthreads = n > 0 ? (int)n : 1;
	if (nthreads == 1) {
		fn(ctx, 0, n, 0);
		return 0;
	}
	struct job *jobs = calloc((size_t)nthreads, sizeof *jobs);
	pthread_t *th = calloc((size_t)nthreads, sizeof *th);
	int *started = calloc((size_t)nthreads, sizeof *started);
	int ret = 0;
	if (!jobs || !th || !started) {
		free(jobs);
		free(th);
		free(started);
		fn(ctx, 0, n, 0);
		return 0;
	}
	for (int t = 0; t < nthreads; t++) {
		jobs[t] = (struct job){fn, ctx, n * (size_t)t / (size_t)nthreads,
				       n * (size_t)(t + 1) / (size_t)nthreads, t};
	}
	for (int t = 1; t < nthreads; t++) {
		int e = pthread_create(&th[t], NULL, run, &jobs[t]);
		if (e == 0)
			started[t] = 1;
		else
			ret = e;
	}
	run(&jobs[0]);
	for (int t = 1; t < nthreads; t++) {
		if (started[t])
			pthread_join(th[t], NULL);
		else
			run(&jobs[t]);
	}
	free(jobs);
	free(th);
	free(started);
	return ret;
}
