/* util.h - small helpers shared by the CLI's commands and benchmarks. */
#ifndef ZKA_TOOLS_UTIL_H
#define ZKA_TOOLS_UTIL_H

/* Seconds on CLOCK_MONOTONIC. */
double zka_now(void);

/* The p-th percentile (0..100, nearest rank) of v[0..n), n >= 1; sorts v in place. */
double zka_percentile(double *v, int n, double p);

#endif
