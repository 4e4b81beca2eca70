/* util.h - small helpers shared by the CLI's commands and benchmarks. */
#ifndef ZKA_TOOLS_UTIL_H
#define ZKA_TOOLS_UTIL_H

/* Seconds on CLOCK_MONOTONIC. */
double zka_now(void);

/* With ZKG_PROFILE set: one stderr line "zkarena: profile: WHAT at SECONDS (CLOCK_REALTIME)",
 * for matching a command's own stages against the wall a shell sees; else nothing. */
void zka_profile_stamp(const char *what);

/* The p-th percentile (0..100, nearest rank) of v[0..n), n >= 1; sorts v in place. */
double zka_percentile(double *v, int n, double p);
/* The median wall seconds of `system(cmd)` over runs runs (at most 64), or -1 when it fails
 * once (benchmarks timing a peer's CLI). */
double zka_time_cmd(const char *cmd, int runs);

#include <sys/types.h>

struct zka_job_info;

/* Forks and execs this executable as `zkarena run NAME ARGS...` (args: NULL-terminated, after
 * "run"), stderr into log (created 0644), SIGINT ignored (the caller stops it with SIGTERM).
 * Returns the child's pid or -1 with errno. */
pid_t zka_spawn_run(const char *log, const char *const *args);

/* A finished job's five stage times in seconds: queue (submit -> synthesis), synthesis,
 * ready -> prove, prove (+ verify, write), end to end. */
#define ZKA_STAGES 6 /* queue, synthesis, ready -> prove, prove, end to end, witness */
void zka_job_stages(const struct zka_job_info *ji, double out[ZKA_STAGES]);

/* Prints the p50/p99 table of the stages (rows of zka_job_stages) of jobs [from, n) with
 * st[4][i] > 0 (done), each line prefixed by indent. Returns the jobs counted. */
int zka_print_stages(double *const st[ZKA_STAGES], int from, int n, const char *indent);

/* Threads per synthesis worker when neither --workers nor --threads is given. Measured in the
 * pipeline on the H200 machine's 16 cores (2026-12-01 23:10 UTC, `bench pipeline --backend cuda`,
 * BN254 2^22, binaries of 6491100): 4 workers x 4 threads 22.0 proofs/s, 8 x 2 20.1 (synthesis
 * capacity 22.0 and 20.1 jobs/s); in process without a prover, before the non-temporal stores,
 * 8 x 2 had been best (13.6 jobs/s against 12.1). docs/synthesis.md. */
#define ZKA_RUN_THREADS 4

/* Binds this process (and its future children) to NUMA node n's CPUs and memory; says so on
 * a one-node machine. 0, or -1 after printing why (cmd_run.c). */
int zka_run_bind_node(int n);
/* Finds a sibling executable: $ENV, then next to zkarena, then ../SUB/EXE (the build tree).
 * 0 with out set, or -ENOENT (cmd_run.c). */
int zka_run_find_exe(const char *env, const char *exe, const char *sub, char *out, size_t n);

/* Fills in the workers x threads of `zkarena run` (and `bench pipeline`) for `cores` online
 * cores where *workers or *threads is 0: T = min(ZKA_RUN_THREADS, C) and W = C / T when neither
 * is given; with only one given, the other divides the cores by it (at least 1). */
void zka_run_shape(int cores, int *workers, int *threads);

/* After getopt_long (with opterr = 0) returned '?': prints one line, "zkarena CMD: unknown
 * option or missing value: 'ARG' (see zkarena CMD --help)", CMD being argv[0]; returns 2. */
int zka_cli_bad_option(int argc, char **argv);

/* `--root snarkjs|bellperson` of a command reading a .params key (key: its path, checked to be
 * a .params when not NULL): *snarkjs = 1 for snarkjs's roots (a key converted by `zkey export
 * bellperson`), 0 for bellperson's 7^t. 0, or 2 after one line on stderr. */
int zka_cli_root(const char *cmd, const char *arg, const char *key, int *snarkjs);

/* backend "auto": "cuda" when this zkarena was built with CUDA and an NVIDIA GPU is visible
 * (/proc/driver/nvidia/gpus/ has an entry), else "cpu"; says which and why on stderr (prog
 * names the caller). Any other backend is returned as it is. */
const char *zka_backend_resolve(const char *prog, const char *backend);

#endif
