/* util.c - see util.h. */
#include "tools/util.h"
#include "shm/zka_arena.h"

#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double zka_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void zka_profile_stamp(const char *what)
{
	if (!getenv("ZKG_PROFILE"))
		return;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(stderr, "zkarena: profile: %s at %lld.%06ld (CLOCK_REALTIME)\n", what,
		(long long)ts.tv_sec, ts.tv_nsec / 1000);
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

pid_t zka_spawn_run(const char *log, const char *const *args)
{
	char self[PATH_MAX];
	ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
	if (l <= 0)
		return -1;
	self[l] = 0;
	const char *argv[32];
	int n = 0;
	argv[n++] = self;
	argv[n++] = "run";
	for (int i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0)
			dup2(fd, 2); /* dup2's copy has no O_CLOEXEC: the log survives exec */
		signal(SIGINT, SIG_IGN);
		execv(self, (char *const *)argv);
		_exit(127);
	}
	return pid;
}

void zka_job_stages(const struct zka_job_info *ji, double out[ZKA_STAGES])
{
	/* [5]: the witness (a .wtns read, or computed from input.json), within synthesis */
	out[5] = ji->t_witness_end ? (double)(ji->t_witness_end - ji->t_synth_start) * 1e-9 : -1;
	out[0] = (double)(ji->t_synth_start - ji->t_submit) * 1e-9;
	out[1] = (double)(ji->t_synth_end - ji->t_synth_start) * 1e-9;
	out[2] = (double)(ji->t_prove_start - ji->t_synth_end) * 1e-9;
	out[3] = (double)(ji->t_prove_end - ji->t_prove_start) * 1e-9;
	out[4] = (double)(ji->t_prove_end - ji->t_submit) * 1e-9;
}

int zka_print_stages(double *const st[ZKA_STAGES], int from, int n, const char *indent)
{
	static const char *names[ZKA_STAGES] = {
	    "queue (submit -> synthesis)", "synthesis",	 "ready -> prove",
	    "prove (+ verify, write)",	   "end to end", "  of which the witness"};
	static const int order[ZKA_STAGES] = {0, 1, 5, 2, 3, 4};
	double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
	int k = 0;
	if (!v)
		return 0;
	printf("%s| stage                          | p50         | p99         |\n"
	       "%s|--------------------------------|-------------|-------------|\n",
	       indent, indent);
	for (int o = 0; o < ZKA_STAGES; o++) {
		int s = order[o];
		k = 0;
		for (int i = from; i < n; i++)
			if (st[4][i] > 0 && st[s][i] >= 0)
				v[k++] = st[s][i];
		if (k > 0)
			printf("%s| %-30s | %8.2f ms | %8.2f ms |\n", indent, names[s],
			       1e3 * zka_percentile(v, k, 50), 1e3 * zka_percentile(v, k, 99));
	}
	free(v);
	return k;
}

double zka_time_cmd(const char *cmd, int runs)
{
	double v[64];
	if (runs > 64)
		runs = 64;
	for (int i = 0; i < runs; i++) {
		double t0 = zka_now();
		if (system(cmd) != 0)
			return -1;
		v[i] = zka_now() - t0;
	}
	return zka_percentile(v, runs, 50);
}

int zka_cli_bad_option(int argc, char **argv)
{
	const char *what = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
	char sh[3] = {'-', (char)optopt, 0};
	if (optopt && what[0] == '-' && what[1] != '-')
		what = sh; /* a short option, maybe inside a cluster such as -xh */
	fprintf(stderr,
		"zkarena %s: unknown option or missing value: '%s' (see zkarena %s --help)\n",
		argv[0], what, argv[0]);
	return 2;
}

int zka_cli_root(const char *cmd, const char *arg, const char *key, int *snarkjs)
{
	if (arg && !strcmp(arg, "snarkjs"))
		*snarkjs = 1;
	else if (arg && !strcmp(arg, "bellperson"))
		*snarkjs = 0;
	else {
		fprintf(stderr, "zkarena %s: --root: '%s': expected snarkjs or bellperson\n", cmd,
			arg ? arg : "");
		return 2;
	}
	size_t l = key ? strlen(key) : 0;
	if (key && !(l > 7 && !strcmp(key + l - 7, ".params"))) {
		fprintf(stderr,
			"zkarena %s: --root: %s is not a bellperson .params key (a .zkey's roots "
			"are snarkjs's, a .zka records its own)\n",
			cmd, key);
		return 2;
	}
	return 0;
}

const char *zka_backend_resolve(const char *prog, const char *backend)
{
	if (!backend || strcmp(backend, "auto"))
		return backend;
	int gpus = 0;
	DIR *d = opendir("/proc/driver/nvidia/gpus");
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			gpus += e->d_name[0] != '.';
		closedir(d);
	}
#ifdef ZKA_HAVE_CUDA
	const int built = 1;
#else
	const int built = 0;
#endif
	const char *b = built && gpus ? "cuda" : "cpu";
	fprintf(stderr, "%s: backend auto: %s (%s)\n", prog, b,
		!built ? "this zkarena was built without CUDA"
		: gpus ? "NVIDIA GPUs visible"
		       : "no NVIDIA GPU visible in /proc/driver/nvidia/gpus");
	return b;
}
