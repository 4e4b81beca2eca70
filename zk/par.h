/* par.h - a minimal fork-join parallel for, on pthreads. */
#ifndef ZKA_PAR_H
#define ZKA_PAR_H
#include <stddef.h>

/* Body of a parallel loop: processes items [begin, end) as worker tid of nthreads. */
typedef void (*zka_par_fn)(void *ctx, size_t begin, size_t end, int tid);

/* The CPUs this process may run on: its affinity mask's count (taskset, a cpuset, `zkarena run
 * --numa-node` bind it), else the online CPUs; at most 256. */
int zka_par_cpus(void);
/* Returns the number of threads to use for `requested` (0 means one per CPU of zka_par_cpus). */
int zka_par_threads(int requested);

/* Splits [0, n) into nthreads contiguous chunks and runs fn on each, the first on the calling
 * thread; returns when all are done. Falls back to running every chunk on the calling thread
 * if a thread cannot be created (the work is still done; returns the pthread error, else 0). */
int zka_par_for(int nthreads, size_t n, zka_par_fn fn, void *ctx);

#endif
