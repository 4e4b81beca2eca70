/* util.h - small helpers shared by the CLI's commands and benchmarks. */
#ifndef ZKA_TOOLS_UTIL_H
#define ZKA_TOOLS_UTIL_H

/* Seconds on CLOCK_MONOTONIC. */
double zka_now(void);

/* The p-th percentile (0..100, nearest rank) of v[0..n), n >= 1; sorts v in place. */
double zka_percentile(double *v, int n, double p);

/* Threads per synthesis worker when neither --workers nor --threads is given. Measured on the
 * H200 machine's 16 cores (2026-12-01, `bench pipeline --sweep`, BN254 2^22, before the
 * non-temporal stores): W x T = 16x1 12.0, 8x2 13.6, 4x4 12.1, 2x8 10.9, 1x16 11.3 jobs/s;
 * docs/synthesis.md. */
#define ZKA_RUN_THREADS 2

/* Fills in the workers x threads of `zkarena run` (and `bench pipeline`) for `cores` online
 * cores where *workers or *threads is 0: T = min(ZKA_RUN_THREADS, C) and W = C / T when neither
 * is given; with only one given, the other divides the cores by it (at least 1). */
void zka_run_shape(int cores, int *workers, int *threads);

#endif
