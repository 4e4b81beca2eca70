/* util.c - see util.h. */
#include "tools/util.h"

#include <stdlib.h>
#include <time.h>

double zka_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double zka_percentile(double *v, int n, double p)
{
	qsort(v, (size_t)n, sizeof *v, cmpd);
	int k = (int)(p / 100.0 * n + 0.999999) - 1;
	return v[k < 0 ? 0 : k >= n ? n - 1 : k];
}

void zka_run_shape(int cores, int *workers, int *threads)
{
	if (cores < 1)
		cores = 1;
	if (!*threads)
		*threads = *workers ? (cores / *workers > 0 ? cores / *workers : 1)
				    : (cores < ZKA_RUN_THREADS ? cores : ZKA_RUN_THREADS);
	if (!*workers)
		*workers = cores / *threads > 0 ? cores / *threads : 1;
}
