/* cmd_run.c - `zkarena run NAME`: supervises one zkarena-gpud per device (--devices 0,1,...:
 * gpud I on device I-th of the list, all on the same ready ring) and W zkarena-synth processes
 * on arena NAME: restarts any that dies (with backoff), logs who died and what recovery put
 * back, and stops them all on SIGTERM/SIGINT. The children die with the supervisor
 * (PR_SET_PDEATHSIG), so a killed supervisor leaves no orphans proving behind its back. */
#include "config/zka_budget.h"
#include "config/zka_config.h"
#include "config/zka_notify.h"
#include "metrics/zka_metrics.h"
#include "synth/pipe.h"
#include "tools/cli.h"
#include "tools/util.h"
#include "zk/opt.h"
#include "zk/par.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef ZKA_HAVE_NUMA
#include <numa.h>
#endif

static volatile sig_atomic_t stopping;

static void on_tick(int sig) /* SIGALRM each second: waitpid returns, the watchdog is fed */
{
	(void)sig;
}

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
int zka_run_find_exe(const char *env, const char *exe, const char *sub, char *out, size_t n)
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

/* A child's life pipe (issue 18: a gpud's restart within a second): the child holds the
 * only write end, so the read end hangs up when the child dies. A SIGKILLed process closes its
 * files early in its exit, before the kernel has released its memory and its CUDA context,
 * while its parent hears of it (SIGCHLD, waitpid) only when all of that is done: H200,
 * 2026-12-02, a process holding 20 GB of device memory and 4 GB registered, 3 kills: hangup
 * after 0.07-0.10 s, waitpid after 0.43-0.60 s. A child that ran 2 s or more is restarted at
 * the hangup (its old pid is still reaped, and its records recovered, when waitpid reports
 * it); one dying young waits for waitpid and its backoff. Nothing in gpud or synth closes the
 * descriptor: it stays open until exit. */
struct child {
	pid_t pid;
	pid_t dying; /* replaced at its life pipe's hangup, not reaped yet (0: none) */
	int life_rd; /* the life pipe's read end (-1: none) */
	double started, backoff;
	char *argv[16];
	char id_s[16], dev_s[16];
	const char *what;
	int index;
};

/* 1 when pid is exiting (PF_EXITING in /proc/PID/stat's flags, set as its exit begins) or
 * gone, 0 when it runs: a life pipe's hangup from a child that closed the descriptor itself
 * must not start a second one beside it. */
static int exiting(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
	unsigned long flags = 0;
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return 1;
	return (flags & 0x4) != 0; /* PF_EXITING */
}

static sigset_t run_mask; /* the mask before SIGCHLD was blocked: the children's, ppoll's */
static pid_t spawn(struct child *c);

/* c's life pipe hung up: a child that ran 2 s or more and is exiting is replaced at once (its
 * old pid goes to c->dying, reaped later); otherwise its death waits for waitpid. */
static void on_hangup(struct child *c, zka_metrics *mx)
{
	close(c->life_rd);
	c->life_rd = -1;
	double lived = now() - c->started;
	if (lived < 2.0 || c->dying)
		return; /* waitpid, then the backoff */
	if (!exiting(c->pid)) {
		fprintf(stderr,
			"zkarena run: WARNING: %s %d (pid %d) closed its life pipe but runs on; "
			"its death will be seen by waitpid alone\n",
			c->what, c->index, (int)c->pid);
		return;
	}
	c->dying = c->pid;
	zka_metrics_restart(mx, c->what);
	fprintf(stderr, "zkarena run: %s %d (pid %d) died (its life pipe closed) after %.1f s\n",
		c->what, c->index, (int)c->dying, lived);
	if (spawn(c) > 0) {
		fprintf(stderr, "zkarena run: %s %d restarted as pid %d\n", c->what, c->index,
			(int)c->pid);
	} else { /* its reap restarts it, as without the pipe */
		c->dying = 0;
		fprintf(stderr, "zkarena run: fork: %s\n", strerror(errno));
	}
}

static pid_t spawn(struct child *c)
{
	int lp[2] = {-1, -1};
	if (pipe2(lp, O_CLOEXEC))
		lp[0] = lp[1] = -1; /* no life pipe: the death is seen by waitpid alone */
	pid_t pid = fork();
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &run_mask, NULL);
		/* the write end survives exec; the read end (O_CLOEXEC) does not */
		if (lp[1] >= 0)
			fcntl(lp[1], F_SETFD, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		unsetenv("NOTIFY_SOCKET"); /* the unit's readiness is the supervisor's to tell */
		signal(SIGINT, SIG_IGN); /* Ctrl-C goes to the supervisor, which stops us cleanly */
		execv(c->argv[0], c->argv);
		fprintf(stderr, "zkarena run: exec %s: %s\n", c->argv[0], strerror(errno));
		_exit(127);
	}
	if (lp[1] >= 0)
		close(lp[1]);
	if (c->life_rd >= 0)
		close(c->life_rd);
	c->life_rd = -1;
	if (pid > 0) {
		c->pid = pid;
		c->started = now();
		c->life_rd = lp[0];
	} else if (lp[0] >= 0) {
		close(lp[0]);
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

static void usage(void)
{
	printf("usage: zkarena run NAME [--workers W] [--threads T] [--backend cpu|cuda]\n"
	       "                   [--devices N,M,...] [--inflight N] [--numa-node N]\n"
	       "                   [--metrics HOST:PORT] [--table-budget B] [--config FILE]\n\n"
	       "Runs the pipeline of arena NAME: one zkarena-gpud per device of --devices\n"
	       "(default 0; --device is the same option; a device may repeat: two gpuds on one\n"
	       "GPU), each with its own copy of the keys, all taking slots from the arena's\n"
	       "ready ring (backend cpu by default), and W zkarena-synth workers of T threads\n"
	       "each. Defaults from the cores C it may run on (its CPU affinity, after\n"
	       "--numa-node): T = min(%d, C), W = C / T; with only --workers W, T = C / W\n"
	       "(docs/synthesis.md has the measurements behind them).\n"
	       "A job taken while fewer than W jobs are synthesizing or waiting gets the idle\n"
	       "workers' threads too (W T / J for J such jobs; never more than W T in all).\n"
	       "--inflight: proofs each gpud keeps in flight (default 2 with cuda, 1 with cpu).\n"
	       "--table-budget B: each cuda gpud's window tables may take B times a key's own\n"
	       "device memory (max, N or Nx; default 1x; see zkarena-gpud --help).\n"
	       "--numa-node N: this process and every child run on node N's CPUs and allocate\n"
	       "from its memory (libnuma; on a one-node machine it says so and goes on).\n"
	       "--metrics HOST:PORT: Prometheus metrics at http://HOST:PORT/metrics.\n"
	       "--config FILE: settings ([run], [arena] numa_node, [metrics]; see `zkarena\n"
	       "config --help`), default /etc/zkarena/NAME.conf when it exists ($ZKA_CONFIG_DIR\n"
	       "replaces /etc/zkarena); flags override it.\n"
	       "Restarts any process that dies: at once when it had run 2 s or more, else\n"
	       "after a backoff (100 ms, doubling up to 5 s while it keeps dying young); after\n"
	       "each death runs recovery and logs what it put back. SIGTERM/SIGINT stop them\n"
	       "all (SIGTERM, then SIGKILL after 5 s).\n"
	       "Executables are looked up next to zkarena, or taken from ZKA_SYNTH_BIN and\n"
	       "ZKA_GPUD_BIN.\n",
	       ZKA_RUN_THREADS);
}

/* Binds this process (and so every child: affinity and memory policy are inherited) to NUMA
 * node n: its CPUs and its memory. 0, or -1 after printing why. */
int zka_run_bind_node(int n)
{
#ifdef ZKA_HAVE_NUMA
	if (numa_available() < 0) {
		fprintf(stderr, "zkarena: numa node %d: no NUMA support here (not bound)\n", n);
		return 0;
	}
	if (n > numa_max_node()) {
		fprintf(stderr, "zkarena: numa node %d: this machine has nodes 0..%d\n", n,
			numa_max_node());
		return -1;
	}
	if (numa_max_node() == 0)
		fprintf(stderr, "zkarena: one NUMA node: binding to node 0 changes nothing\n");
	struct bitmask *m = numa_allocate_nodemask();
	if (!m)
		return -1;
	numa_bitmask_setbit(m, (unsigned)n);
	int r = numa_run_on_node(n);
	if (r == 0)
		numa_set_membind(m);
	numa_bitmask_free(m);
	if (r) {
		fprintf(stderr, "zkarena: numa node %d: %s\n", n, strerror(errno));
		return -1;
	}
	fprintf(stderr, "zkarena: bound to NUMA node %d (CPUs and memory)\n", n);
	return 0;
#else
	fprintf(stderr, "zkarena: numa node %d: built without libnuma (not bound)\n", n);
	return 0;
#endif
}

int zka_cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {{"workers", required_argument, 0, 'w'},
					     {"threads", required_argument, 0, 't'},
					     {"inflight", required_argument, 0, 'i'},
					     {"backend", required_argument, 0, 'b'},
					     {"device", required_argument, 0, 'd'},
					     {"devices", required_argument, 0, 'D'},
					     {"config", required_argument, 0, 'c'},
					     {"metrics", required_argument, 0, 'm'},
					     {"numa-node", required_argument, 0, 'n'},
					     {"table-budget", required_argument, 0, 'T'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	int workers = 0, threads = 0, inflight = 0, numa = -1, numa_set = 0, opt;
	const char *backend = NULL, *device = NULL, *config = NULL, *metrics = NULL, *budget = NULL;
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
		case 'c':
			config = optarg;
			break;
		case 'T': {
			double t;
			if (zka_budget_parse(optarg, &t)) {
				fprintf(
				    stderr,
				    "zkarena run: --table-budget: '%s' is not max, N or Nx (N >= "
				    "0)\n",
				    optarg);
				return 2;
			}
			budget = optarg;
			break;
		}
		case 'm':
			metrics = optarg;
			break;
		case 'n':
			if (zka_opt_int("zkarena run", "--numa-node", optarg, -1, 1023, &numa))
				return 2;
			numa_set = 1;
			break;
		case 'h':
			usage();
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
	/* the settings file: flags override it */
	struct zka_config cf;
	char cpath[PATH_MAX];
	if (config)
		snprintf(cpath, sizeof cpath, "%s", config);
	else
		zka_config_path(cpath, sizeof cpath, name);
	if (config || access(cpath, F_OK) == 0) {
		int problems = 0;
		if (zka_config_load(cpath, &cf, stderr, &problems)) {
			fprintf(stderr, "zkarena run: %s: not started (%d problem%s)\n", cpath,
				problems, problems == 1 ? "" : "s");
			return 2;
		}
		if (!workers && (cf.set & ZKA_CF_WORKERS))
			workers = cf.workers;
		if (!threads && (cf.set & ZKA_CF_THREADS))
			threads = cf.threads;
		if (!inflight && (cf.set & ZKA_CF_INFLIGHT))
			inflight = cf.inflight;
		if (!backend && (cf.set & ZKA_CF_BACKEND))
			backend = cf.backend;
		if (!budget && (cf.set & ZKA_CF_TABLE_BUDGET))
			budget = cf.table_budget;
		if (!device && (cf.set & ZKA_CF_DEVICES))
			device = cf.devices;
		if (!metrics && (cf.set & ZKA_CF_METRICS) && cf.metrics[0])
			metrics = cf.metrics;
		if (!numa_set && (cf.set & ZKA_CF_NUMA))
			numa = cf.numa_node;
	}
	if (!backend)
		backend = "cpu";
	if (budget && strcmp(backend, "cuda")) /* said once: the setting does nothing here */
		fprintf(stderr,
			"zkarena run: table budget %s ignored: window tables exist only with the "
			"cuda backend (this run: %s)\n",
			budget, backend);
	if (!device)
		device = "0";
	if (numa >= 0 && zka_run_bind_node(numa))
		return 2;
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
	char threads_s[16], inflight_s[16], max_s[16];
	snprintf(threads_s, sizeof threads_s, "%d", threads);
	/* a lone job may use every worker's threads (zkarena-synth --max-threads), never more:
	 * W x T stays the bound the operator chose */
	snprintf(max_s, sizeof max_s, "%d", workers * threads);
	snprintf(inflight_s, sizeof inflight_s, "%d",
		 inflight		   ? inflight
		 : strcmp(backend, "cuda") ? 1
					   : 2);
	char synth[PATH_MAX], gpud[PATH_MAX];
	if (zka_run_find_exe("ZKA_SYNTH_BIN", "zkarena-synth", "synth", synth, sizeof synth) ||
	    zka_run_find_exe("ZKA_GPUD_BIN", "zkarena-gpud", "gpud", gpud, sizeof gpud)) {
		fprintf(stderr,
			"zkarena run: cannot find zkarena-synth/zkarena-gpud next to zkarena "
			"(set ZKA_SYNTH_BIN and ZKA_GPUD_BIN)\n");
		return 2;
	}
	struct zka_arena *a = zka_pipe_attach("zkarena run", name, 0);
	if (!a)
		return 2;
	zka_metrics *mx = NULL;
	if (metrics) {
		char err[256];
		/* the server's and collector's threads never take the supervisor's signals */
		sigset_t block, old;
		sigemptyset(&block);
		sigaddset(&block, SIGALRM);
		sigaddset(&block, SIGTERM);
		sigaddset(&block, SIGINT);
		pthread_sigmask(SIG_BLOCK, &block, &old);
		int mr = zka_metrics_start(&mx, a, name, metrics, err, sizeof err);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (mr) {
			fprintf(stderr, "zkarena run: --metrics: %s\n", err);
			zka_arena_close(a);
			return 2;
		}
		fprintf(stderr, "zkarena run: metrics on http://%s/metrics\n", metrics);
	}
	struct sigaction sa = {.sa_handler = on_stop}; /* no SA_RESTART: waitpid returns EINTR */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	int n = workers + ndev;
	struct child *ch = calloc((size_t)n, sizeof *ch);
	if (!ch) {
		zka_arena_close(a);
		return 1;
	}
	/* SIGCHLD is taken only inside ppoll (below): a death between a reap and the wait cannot
	 * be missed until the next tick */
	struct sigaction chld = {.sa_handler = on_tick};
	sigaction(SIGCHLD, &chld, NULL);
	sigset_t with_chld;
	sigemptyset(&with_chld);
	sigaddset(&with_chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &with_chld, &run_mask);
	for (int i = 0; i < n; i++) {
		struct child *c = &ch[i];
		c->index = i;
		c->backoff = 0;
		c->life_rd = -1;
		if (i < ndev) {
			c->what = "gpud";
			snprintf(c->id_s, sizeof c->id_s, "%d", i);
			snprintf(c->dev_s, sizeof c->dev_s, "%d", devs[i]);
			char **v = c->argv;
			v[0] = gpud, v[1] = "--backend", v[2] = (char *)backend, v[3] = "--device";
			v[4] = c->dev_s, v[5] = "--inflight", v[6] = inflight_s, v[7] = "--id";
			int k = 8;
			v[k++] = c->id_s;
			if (budget && !strcmp(backend, "cuda")) /* the cpu backend has none */
				v[k++] = "--table-budget", v[k++] = (char *)budget;
			v[k++] = name, v[k] = NULL;
		} else {
			c->index =
			    i - ndev + 1; /* workers are numbered from 1, as before several gpuds */
			c->what = "worker";
			c->argv[0] = synth, c->argv[1] = "--threads", c->argv[2] = threads_s;
			c->argv[3] = "--max-threads", c->argv[4] = max_s;
			c->argv[5] = name, c->argv[6] = NULL;
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
	struct sigaction tick = {.sa_handler = on_tick};
	sigaction(SIGALRM, &tick, NULL);
	struct itimerval iv = {{1, 0}, {1, 0}};
	setitimer(ITIMER_REAL, &iv, NULL);
	zka_notify("READY=1\nSTATUS=arena %s: %d gpud(s), %d worker(s)", name, ndev, workers);
	struct pollfd *pf = calloc((size_t)n, sizeof *pf);
	while (!stopping && pf) {
		int st;
		zka_notify("WATCHDOG=1");
		pid_t pid = waitpid(-1, &st, WNOHANG);
		if (pid == 0 || (pid < 0 && errno == ECHILD)) {
			/* nobody to reap: wait for a life pipe's hangup, SIGCHLD or the tick */
			for (int i = 0; i < n; i++)
				pf[i] =
				    (struct pollfd){ch[i].pid > 0 ? ch[i].life_rd : -1, POLLIN, 0};
			if (ppoll(pf, (nfds_t)n, NULL, &run_mask) > 0)
				for (int i = 0; i < n && !stopping; i++)
					if (pf[i].fd >= 0 && pf[i].revents)
						on_hangup(&ch[i], mx);
			continue;
		}
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < n; i++) {
			struct child *c = &ch[i];
			if (c->dying == pid) { /* replaced already: reaped and recovered now */
				char how[128];
				describe(how, sizeof how, st);
				c->dying = 0;
				int rec = zka_arena_recover(a);
				fprintf(stderr,
					"zkarena run: %s %d (pid %d) %s; recovery put back %d "
					"record(s) (pid %d took its place)\n",
					c->what, c->index, (int)pid, how, rec < 0 ? 0 : rec,
					(int)c->pid);
				break;
			}
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
			/* a process that ran 2 s or more comes back at once (a gpud's restart is
			 * what the pipeline waits for: issue 18's <= 1 s); one that keeps dying
			 * young waits 100 ms, doubling up to 5 s */
			c->backoff = lived >= 2.0	  ? 0
				     : c->backoff < 0.1	  ? 0.1
				     : c->backoff * 2 > 5 ? 5
							  : c->backoff * 2;
			struct timespec ts = {
			    (time_t)c->backoff,
			    (long)((c->backoff - (double)(time_t)c->backoff) * 1e9)};
			while (nanosleep(&ts, &ts) && errno == EINTR && !stopping)
				; /* the second's tick must not cut the backoff short */
			if (!stopping)
				zka_metrics_restart(mx, c->what);
			if (!stopping && spawn(c) > 0)
				fprintf(stderr, "zkarena run: %s %d restarted as pid %d\n", c->what,
					c->index, (int)c->pid);
		}
	}
	free(pf);
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	zka_notify("STOPPING=1");
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
	zka_metrics_stop(mx);
	zka_arena_close(a);
	return 0;
}
