/* cmd_run.c - `zkarena run NAME`: supervises one zkarena-gpud per device (--devices 0,1,...:
 * gpud I on device I-th of the list, all on the same ready ring) and W zkarena-synth processes
 * on arena NAME: restarts any that dies (with backoff), logs who died and what recovery put
 * back, and stops them all on SIGTERM/SIGINT. The children die with the supervisor
 * (PR_SET_PDEATHSIG), so a killed supervisor leaves no orphans proving behind its back. */
#include "synth/pipe.h"
#include "tools/cli.h"
#include "tools/util.h"
#include "zk/opt.h"
#include "zk/par.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Finds a sibling executable: $ENV, then next to zkarena, then ../synth or ../gpud (the build
 * tree). Returns 0 with out set, or -ENOENT. */
static int find_exe(const char *env, const char *exe, const char *sub, char *out, size_t n)
{
	const char *e = getenv(env);
	if (e && *e) {
		snprintf(out, n, "%s", e);
		return access(out, X_OK) ? -ENOENT : 0;
	}
	char self[PATH_MAX];
	ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
	if (l <= 0)
		return -ENOENT;
	self[l] = 0;
	char *dir = dirname(self);
	snprintf(out, n, "%s/%s", dir, exe);
	if (!access(out, X_OK))
		return 0;
	snprintf(out, n, "%s/../%s/%s", dir, sub, exe);
	return access(out, X_OK) ? -ENOENT : 0;
}

struct child {
	pid_t pid;
	double started, backoff;
	char *argv[16];
	char id_s[16], dev_s[16];
	const char *what;
	int index;
};

static pid_t spawn(struct child *c)
{
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		signal(SIGINT, SIG_IGN); /* Ctrl-C goes to the supervisor, which stops us cleanly */
		execv(c->argv[0], c->argv);
		fprintf(stderr, "zkarena run: exec %s: %s\n", c->argv[0], strerror(errno));
		_exit(127);
	}
	if (pid > 0) {
		c->pid = pid;
		c->started = now();
	}
	return pid;
}

static void describe(char *buf, size_t n, int st)
{
	if (WIFSIGNALED(st))
		snprintf(buf, n, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(buf, n, "exited with status %d", WEXITSTATUS(st));
}

int zka_cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"workers", required_argument, 0, 'w'},  {"threads", required_argument, 0, 't'},
	    {"inflight", required_argument, 0, 'i'}, {"backend", required_argument, 0, 'b'},
	    {"device", required_argument, 0, 'd'},   {"devices", required_argument, 0, 'D'},
	    {"help", no_argument, 0, 'h'},	     {0, 0, 0, 0}};
	int workers = 0, threads = 0, inflight = 0, opt;
	const char *backend = "cpu", *device = "0";
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'w':
			if (zka_opt_int("zkarena run", "--workers", optarg, 1, 256, &workers))
				return 2;
			break;
		case 't':
			if (zka_opt_int("zkarena run", "--threads", optarg, 1, 1024, &threads))
				return 2;
			break;
		case 'i':
			if (zka_opt_int("zkarena run", "--inflight", optarg, 1, 8, &inflight))
				return 2;
			break;
		case 'b':
			if (strcmp(optarg, "cpu") && strcmp(optarg, "cuda")) {
				fprintf(stderr, "zkarena run: --backend: '%s' is not cpu or cuda\n",
					optarg);
				return 2;
			}
			backend = optarg;
			break;
		case 'd':
		case 'D':
			device = optarg;
			break;
		case 'h':
			printf(
			    "usage: zkarena run NAME [--workers W] [--threads T] [--backend "
			    "cpu|cuda]\n"
			    "                        [--devices N,M,...] [--inflight N]\n\n"
			    "Runs the pipeline of arena NAME: one zkarena-gpud per device of "
			    "--devices\n"
			    "(default 0; --device is the same option; a device may repeat: two "
			    "gpuds "
			    "on one GPU),\n"
			    "each with its own copy of the keys, all taking slots from the arena's "
			    "ready ring\n"
			    "(backend cpu by default)\n"
			    "and W zkarena-synth workers of T threads each. Defaults from the "
			    "online\n"
			    "cores C: T = min(%d, C), W = C / T; with only --workers W, T = C / W\n"
			    "(docs/synthesis.md has the measurements behind them). --inflight:\n"
			    "proofs the daemon keeps in flight\n"
			    "(default 2 with cuda, 1 with cpu). Restarts any that dies, with\n"
			    "backoff (100 ms, doubling up to 5 s while it keeps dying young); "
			    "after each\n"
			    "death runs recovery and logs what it put back. SIGTERM/SIGINT stop "
			    "them all\n"
			    "(SIGTERM, then SIGKILL after 5 s). Executables are looked up next "
			    "to zkarena,\n"
			    "or taken from ZKA_SYNTH_BIN and ZKA_GPUD_BIN.\n",
			    ZKA_RUN_THREADS);
			return 0;
		default:
			return 2;
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "zkarena run: expected NAME (see --help)\n");
		return 2;
	}
	char *name = argv[optind];
	int devs[64], ndev = 0;
	{
		const char *p = device;
		while (1) {
			char *end;
			errno = 0;
			long v = strtol(p, &end, 10);
			if (errno || end == p || v < 0 || v > 1023 || (*end && *end != ',') ||
			    ndev == 64) {
				fprintf(
				    stderr,
				    "zkarena run: --devices: '%s' is not a list of 1..64 device "
				    "numbers (0..1023) separated by commas\n",
				    device);
				return 2;
			}
			devs[ndev++] = (int)v;
			if (!*end)
				break;
			p = end + 1;
		}
	}
	int cores = zka_par_threads(0);
	zka_run_shape(cores, &workers, &threads);
	char threads_s[16], inflight_s[16];
	snprintf(threads_s, sizeof threads_s, "%d", threads);
	snprintf(inflight_s, sizeof inflight_s, "%d",
		 inflight		   ? inflight
		 : strcmp(backend, "cuda") ? 1
					   : 2);
	char synth[PATH_MAX], gpud[PATH_MAX];
	if (find_exe("ZKA_SYNTH_BIN", "zkarena-synth", "synth", synth, sizeof synth) ||
	    find_exe("ZKA_GPUD_BIN", "zkarena-gpud", "gpud", gpud, sizeof gpud)) {
		fprintf(stderr,
			"zkarena run: cannot find zkarena-synth/zkarena-gpud next to zkarena "
			"(set ZKA_SYNTH_BIN and ZKA_GPUD_BIN)\n");
		return 2;
	}
	struct zka_arena *a = zka_pipe_attach("zkarena run", name, 0);
	if (!a)
		return 2;
	struct sigaction sa = {.sa_handler = on_stop}; /* no SA_RESTART: waitpid returns EINTR */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	int n = workers + ndev;
	struct child *ch = calloc((size_t)n, sizeof *ch);
	if (!ch) {
		zka_arena_close(a);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		struct child *c = &ch[i];
		c->index = i;
		c->backoff = 0.1;
		if (i < ndev) {
			c->what = "gpud";
			snprintf(c->id_s, sizeof c->id_s, "%d", i);
			snprintf(c->dev_s, sizeof c->dev_s, "%d", devs[i]);
			char **v = c->argv;
			v[0] = gpud, v[1] = "--backend", v[2] = (char *)backend, v[3] = "--device";
			v[4] = c->dev_s, v[5] = "--inflight", v[6] = inflight_s, v[7] = "--id";
			v[8] = c->id_s, v[9] = name, v[10] = NULL;
		} else {
			c->index = i - ndev;
			c->what = "worker";
			c->argv[0] = synth, c->argv[1] = "--threads", c->argv[2] = threads_s;
			c->argv[3] = name, c->argv[4] = NULL;
		}
		if (spawn(c) < 0)
			fprintf(stderr, "zkarena run: fork: %s\n", strerror(errno));
	}
	char gp[256] = "";
	for (int i = 0; i < ndev; i++)
		snprintf(gp + strlen(gp), sizeof gp - strlen(gp), "%s%d", i ? "," : "",
			 (int)ch[i].pid);
	fprintf(
	    stderr,
	    "zkarena run: arena %s: %d gpud%s (%s backend, %s in flight, devices %s) pid %s and "
	    "%d workers x %d threads started (%d cores)\n",
	    name, ndev, ndev > 1 ? "s" : "", backend, inflight_s, device, gp, workers, threads,
	    cores);
	struct zka_arena_geometry geo;
	zka_arena_geometry(a, &geo);
	if (geo.nslots < (uint32_t)(workers + ndev * atoi(inflight_s)))
		fprintf(stderr,
			"zkarena run: warning: arena %s has %u slots, fewer than %d workers + %s "
			"proofs in flight: some will wait for a slot (create the arena with "
			"--slots %d)\n",
			name, geo.nslots, workers, inflight_s,
			workers + ndev * atoi(inflight_s) + 1);
	while (!stopping) {
		int st;
		pid_t pid = waitpid(-1, &st, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < n; i++) {
			struct child *c = &ch[i];
			if (c->pid != pid)
				continue;
			char how[128];
			describe(how, sizeof how, st);
			double lived = now() - c->started;
			c->pid = 0;
			int rec = zka_arena_recover(a);
			fprintf(stderr,
				"zkarena run: %s %d (pid %d) %s after %.1f s; recovery put back %d "
				"record(s)\n",
				c->what, c->index, (int)pid, how, lived, rec < 0 ? 0 : rec);
			if (stopping)
				break;
			if (WIFEXITED(st) && WEXITSTATUS(st) == 2) {
				fprintf(stderr,
					"zkarena run: %s %d refused to start (bad configuration); "
					"stopping\n",
					c->what, c->index);
				stopping = 1;
				break;
			}
			c->backoff = lived < 2.0 ? (c->backoff * 2 > 5 ? 5 : c->backoff * 2) : 0.1;
			struct timespec ts = {
			    (time_t)c->backoff,
			    (long)((c->backoff - (double)(time_t)c->backoff) * 1e9)};
			nanosleep(&ts, NULL);
			if (!stopping && spawn(c) > 0)
				fprintf(stderr, "zkarena run: %s %d restarted as pid %d\n", c->what,
					c->index, (int)c->pid);
		}
	}
	fprintf(stderr, "zkarena run: stopping\n");
	for (int i = 0; i < n; i++)
		if (ch[i].pid > 0)
			kill(ch[i].pid, SIGTERM);
	double deadline = now() + 5;
	int left = 0;
	for (int i = 0; i < n; i++)
		left += ch[i].pid > 0;
	while (left > 0) {
		int st;
		pid_t pid = waitpid(-1, &st, WNOHANG);
		if (pid > 0) {
			for (int i = 0; i < n; i++)
				if (ch[i].pid == pid)
					ch[i].pid = 0, left--;
			continue;
		}
		if (pid < 0 && errno != EINTR)
			break;
		if (now() > deadline) {
			for (int i = 0; i < n; i++)
				if (ch[i].pid > 0)
					kill(ch[i].pid, SIGKILL);
			deadline = now() + 60;
		}
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	int rec = zka_arena_recover(a);
	if (rec > 0)
		fprintf(stderr, "zkarena run: recovery put back %d record(s) at shutdown\n", rec);
	free(ch);
	zka_arena_close(a);
	return 0;
}
