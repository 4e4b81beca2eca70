/* cmd_run.c - `zkarena run NAME`: supervises one zkarena-gpud per device (--devices 0,1,...:
 * gpud I on device I-th of the list, all on the same ready ring) and W zkarena-synth processes
 * on arena NAME: restarts any that dies (with backoff), logs who died and what recovery put
 * back, and stops them all on SIGTERM/SIGINT. The children die with the supervisor
 * (PR_SET_PDEATHSIG), so a killed supervisor leaves no orphans proving behind its back. */
#include "config/zka_budget.h"
#include "config/zka_config.h"
#include "config/zka_notify.h"
#include "metrics/zka_metrics.h"
#include "serve/zka_serve.h"
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
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef ZKA_HAVE_NUMA
#include <numa.h>
#endif

static volatile sig_atomic_t stopping;
static int refused; /* a child refused to start: the supervisor exits 2 */

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
	printf("usage: zkarena run NAME [--workers W] [--threads T] [--backend cpu|cuda|auto]\n"
	       "                   [--devices N,M,...] [--inflight N] [--numa-node N]\n"
	       "                   [--metrics HOST:PORT] [--table-budget B] [--config FILE]\n"
	       "                   [--ab auto|prover|worker]\n\n"
	       "Runs the pipeline of arena NAME: one zkarena-gpud per device of --devices\n"
	       "(default 0; --device is the same option; a device may repeat: two gpuds on one\n"
	       "GPU), each with its own copy of the keys, all taking slots from the arena's\n"
	       "ready ring (backend cpu by default; auto: cuda when this build has CUDA and an\n"
	       "NVIDIA GPU is visible, else cpu), and W zkarena-synth workers of T threads\n"
	       "each. Defaults from the cores C it may run on (its CPU affinity, after\n"
	       "--numa-node): T = min(%d, C), W = C / T; with only --workers W, T = C / W\n"
	       "(docs/synthesis.md has the measurements behind them).\n"
	       "A job taken while fewer than W jobs are synthesizing or waiting gets the idle\n"
	       "workers' threads too (W T / J for J such jobs; never more than W T in all).\n"
	       "--workers 0: the gpuds only, for arenas whose jobs all come from external\n"
	       "producers (libzkarena, docs/library.md): an idle worker holds a free slot.\n"
	       "--inflight: proofs each gpud keeps in flight (default 2 with cuda, 1 with cpu).\n"
	       "--ab: who computes a = A w and b = B w: the workers (worker), the gpuds\n"
	       "(prover: slots hold only the witness; cuda makes them on the device), or\n"
	       "auto (default: prover when every gpud is cuda; see zkarena-synth --help).\n"
	       "--table-budget B: each cuda gpud's window tables may take B times a key's own\n"
	       "device memory (max, N or Nx; default 1x; see zkarena-gpud --help).\n"
	       "--numa-node N: this process and every child run on node N's CPUs and allocate\n"
	       "from its memory (libnuma; on a one-node machine it says so and goes on).\n"
	       "--metrics HOST:PORT: Prometheus metrics at http://HOST:PORT/metrics.\n"
	       "--config FILE: settings ([run], [arena] numa_node, [metrics], [http]: the job\n"
	       "API of `zkarena serve` in this process; see `zkarena\n"
	       "config --help`), default /etc/zkarena/NAME.conf when it exists ($ZKA_CONFIG_DIR\n"
	       "replaces /etc/zkarena); flags override it.\n"
	       "Restarts any process that dies: at once when it had run 2 s or more, else\n"
	       "after a backoff (100 ms, doubling up to 5 s while it keeps dying young); after\n"
	       "each death runs recovery and logs what it put back. SIGTERM/SIGINT stop them\n"
	       "all (SIGTERM, then SIGKILL after 5 s).\n"
	       "Executables are looked up next to zkarena, or taken from ZKA_SYNTH_BIN and\n"
	       "ZKA_GPUD_BIN.\n"
	       "One run per arena: a second is refused, naming the first's pid (a lock on\n"
	       "/dev/shm/zkarena-NAME.run, dropped when that process dies).\n"
	       "exit status: 0 stopped by SIGTERM/SIGINT; 2 bad flags or settings, an arena\n"
	       "already run, or a gpud/worker that refused to start (e.g. --backend cuda with\n"
	       "no GPU), which stops the others.\n",
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

/* The supervisor's settings (flags, then the settings file) and what it runs. */
struct run {
	int workers, threads, inflight, numa, numa_set, cores;
	int no_workers; /* --workers 0: the gpuds only (external producers, libzkarena) */
	const char *backend, *device, *config, *metrics, *budget;
	char *name;
	int devs[64], ndev;
	char threads_s[16], inflight_s[16], max_s[16];
	const char *ab; /* --ab for the workers (NULL: auto) */
	char synth[PATH_MAX], gpud[PATH_MAX];
	struct zka_arena *a;
	zka_metrics *mx;
	const struct zka_config *cf; /* the settings file read, NULL: none */
	zka_serve *http;
	struct child *ch;
	int n; /* children: ndev gpuds, then the workers */
};

/* Parses the flags into r: -1 to go on, else the exit status (help, bad usage). */
static int run_options(int argc, char **argv, struct run *r)
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
					     {"ab", required_argument, 0, 'A'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	int opt;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'w':
			if (zka_opt_int("zkarena run", "--workers", optarg, 0, 256, &r->workers))
				return 2;
			r->no_workers = r->workers == 0;
			break;
		case 't':
			if (zka_opt_int("zkarena run", "--threads", optarg, 1, 1024, &r->threads))
				return 2;
			break;
		case 'i':
			if (zka_opt_int("zkarena run", "--inflight", optarg, 1, 8, &r->inflight))
				return 2;
			break;
		case 'A':
			enum zka_ab_mode m;
			if (zka_ab_mode_parse(optarg, &m)) {
				fprintf(stderr,
					"zkarena run: --ab: '%s' is not auto, prover or worker\n",
					optarg);
				return 2;
			}
			r->ab = optarg;
			break;
		case 'b':
			if (strcmp(optarg, "cpu") && strcmp(optarg, "cuda") &&
			    strcmp(optarg, "auto")) {
				fprintf(stderr,
					"zkarena run: --backend: '%s' is not cpu, cuda or auto\n",
					optarg);
				return 2;
			}
			r->backend = optarg;
			break;
		case 'd':
		case 'D':
			r->device = optarg;
			break;
		case 'c':
			r->config = optarg;
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
			r->budget = optarg;
			break;
		}
		case 'm':
			r->metrics = optarg;
			break;
		case 'n':
			if (zka_opt_int("zkarena run", "--numa-node", optarg, -1, 1023, &r->numa))
				return 2;
			r->numa_set = 1;
			break;
		case 'h':
			usage();
			return 0;
		default:
			return zka_cli_bad_option(argc, argv);
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr, "zkarena run: expected NAME (see --help)\n");
		return 2;
	}
	r->name = argv[optind];
	return -1;
}

/* The settings file (--config, or the arena's when it exists) fills what the flags left
 * unset; then the defaults. -1 to go on, else the exit status. */
static int run_settings(struct run *r)
{
	static struct zka_config cf; /* r keeps pointers into it */
	char cpath[PATH_MAX];
	if (r->config)
		snprintf(cpath, sizeof cpath, "%s", r->config);
	else
		zka_config_path(cpath, sizeof cpath, r->name);
	if (r->config || access(cpath, F_OK) == 0) {
		int problems = 0;
		if (zka_config_load(cpath, &cf, stderr, &problems)) {
			fprintf(stderr, "zkarena run: %s: not started (%d problem%s)\n", cpath,
				problems, problems == 1 ? "" : "s");
			return 2;
		}
		if (!r->workers && (cf.set & ZKA_CF_WORKERS))
			r->workers = cf.workers;
		if (!r->threads && (cf.set & ZKA_CF_THREADS))
			r->threads = cf.threads;
		if (!r->inflight && (cf.set & ZKA_CF_INFLIGHT))
			r->inflight = cf.inflight;
		if (!r->backend && (cf.set & ZKA_CF_BACKEND))
			r->backend = cf.backend;
		if (!r->budget && (cf.set & ZKA_CF_TABLE_BUDGET))
			r->budget = cf.table_budget;
		if (!r->device && (cf.set & ZKA_CF_DEVICES))
			r->device = cf.devices;
		if (!r->metrics && (cf.set & ZKA_CF_METRICS) && cf.metrics[0])
			r->metrics = cf.metrics;
		if (!r->numa_set && (cf.set & ZKA_CF_NUMA))
			r->numa = cf.numa_node;
		r->cf = &cf;
	}
	if (!r->backend)
		r->backend = "cpu";
	r->backend = zka_backend_resolve("zkarena run", r->backend);
	if (r->budget && strcmp(r->backend, "cuda")) /* said once: the setting does nothing here */
		fprintf(stderr,
			"zkarena run: table budget %s ignored: window tables exist only with the "
			"cuda backend (this run: %s)\n",
			r->budget, r->backend);
	if (!r->device)
		r->device = "0";
	return -1;
}

/* r->device ("0,1,...") into r->devs: 0, or -1 after saying what is wrong. */
static int run_devices(struct run *r)
{
	const char *p = r->device;
	while (1) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (errno || end == p || v < 0 || v > 1023 || (*end && *end != ',') ||
		    r->ndev == 64) {
			fprintf(stderr,
				"zkarena run: --devices: '%s' is not a list of 1..64 device "
				"numbers (0..1023) separated by commas\n",
				r->device);
			return -1;
		}
		r->devs[r->ndev++] = (int)v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

/* The children's shape (workers x threads, proofs in flight) and executables. 0, or -1 after
 * saying which is missing. */
static int run_shape(struct run *r)
{
	r->cores = zka_par_threads(0);
	zka_run_shape(r->cores, &r->workers, &r->threads);
	if (r->no_workers)
		r->workers = 0; /* idle workers would each hold a free slot, waiting for a job */
	snprintf(r->threads_s, sizeof r->threads_s, "%d", r->threads);
	/* a lone job may use every worker's threads (zkarena-synth --max-threads), never more:
	 * W x T stays the bound the operator chose */
	snprintf(r->max_s, sizeof r->max_s, "%d", r->workers * r->threads);
	snprintf(r->inflight_s, sizeof r->inflight_s, "%d",
		 r->inflight		      ? r->inflight
		 : strcmp(r->backend, "cuda") ? 1
					      : 2);
	if (zka_run_find_exe("ZKA_SYNTH_BIN", "zkarena-synth", "synth", r->synth,
			     sizeof r->synth) ||
	    zka_run_find_exe("ZKA_GPUD_BIN", "zkarena-gpud", "gpud", r->gpud, sizeof r->gpud)) {
		fprintf(stderr,
			"zkarena run: cannot find zkarena-synth/zkarena-gpud next to zkarena "
			"(set ZKA_SYNTH_BIN and ZKA_GPUD_BIN)\n");
		return -1;
	}
	return 0;
}

/* --metrics: the exporter's threads, started with the supervisor's signals blocked so that
 * they never take them. 0, or -1 after saying why. */
static int run_metrics(struct run *r)
{
	if (!r->metrics)
		return 0;
	char err[256];
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	int mr = zka_metrics_start(&r->mx, r->a, r->name, r->metrics, err, sizeof err);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (mr) {
		fprintf(stderr, "zkarena run: --metrics: %s\n", err);
		return -1;
	}
	fprintf(stderr, "zkarena run: metrics on http://%s/metrics\n", r->metrics);
	return 0;
}

/* One supervisor per arena: an exclusive flock on /dev/shm/zkarena-NAME.run (the kernel drops
 * it when this process dies, SIGKILL included; the children's inherited descriptor closes at
 * their exec); the file holds the holder's pid, for the refusal. 0 with *out, or -1 after
 * saying who runs the arena. A holder that stops cleanly unlinks the file before closing it:
 * a locker that finds its descriptor no longer names the path retries. */
static int run_lock(const char *name, int *out)
{
	char path[300];
	snprintf(path, sizeof path, "/dev/shm/zkarena-%s.run", name);
	for (int tries = 0; tries < 8; tries++) {
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		struct stat a, b;
		if (fd < 0) {
			fprintf(stderr, "zkarena run: %s: %s\n", path, strerror(errno));
			return -1;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			char buf[32] = "";
			if (errno == EWOULDBLOCK && pread(fd, buf, sizeof buf - 1, 0) >= 0)
				fprintf(stderr,
					"zkarena run: arena %s is already run by pid %d (%s): not "
					"started\n",
					name, atoi(buf), path);
			else
				fprintf(stderr, "zkarena run: %s: %s\n", path, strerror(errno));
			close(fd);
			return -1;
		}
		if (fstat(fd, &a) || stat(path, &b) || a.st_ino != b.st_ino ||
		    a.st_dev != b.st_dev) {
			close(fd); /* its holder unlinked it on the way out */
			continue;
		}
		char buf[32];
		int n = snprintf(buf, sizeof buf, "%d\n", (int)getpid());
		if (ftruncate(fd, 0) || pwrite(fd, buf, (size_t)n, 0) != n) {
			fprintf(stderr, "zkarena run: %s: %s\n", path, strerror(errno));
			close(fd);
			return -1;
		}
		*out = fd;
		return 0;
	}
	fprintf(stderr, "zkarena run: %s: replaced again and again: not started\n", path);
	return -1;
}

/* Gives the arena's lock back (the file unlinked first: see run_lock). */
static void run_unlock(const char *name, int fd)
{
	char path[300];
	if (fd < 0)
		return;
	snprintf(path, sizeof path, "/dev/shm/zkarena-%s.run", name);
	unlink(path);
	close(fd);
}

/* [http] of the settings file: the job API (zkarena serve) in this process, its threads
 * started with the supervisor's signals blocked. 0, or -1 after saying why. */
static int run_http(struct run *r)
{
	const struct zka_config *cf = r->cf;
	if (!cf || (!cf->http_listen[0] && !cf->http_unix[0]))
		return 0;
	static char keys_buf[sizeof cf->http_keys], spool[512];
	const char *keys[64];
	struct zka_serve_opts o = {.arena_name = r->name, .keys = keys};
	o.listen = cf->http_listen[0] ? cf->http_listen : NULL;
	o.unix_path = cf->http_unix[0] ? cf->http_unix : NULL;
	o.unix_group = cf->http_unix_group[0] ? cf->http_unix_group : NULL;
	o.token_file = cf->http_tokens[0] ? cf->http_tokens : NULL;
	o.tls_cert = cf->http_cert[0] ? cf->http_cert : NULL;
	o.tls_key = cf->http_key[0] ? cf->http_key : NULL;
	o.max_body = cf->http_max_body;
	o.max_queue = cf->http_max_queue;
	snprintf(spool, sizeof spool, "/var/lib/zkarena/%s/http", r->name);
	o.spool = cf->http_spool[0] ? cf->http_spool : spool;
	snprintf(keys_buf, sizeof keys_buf, "%s", cf->http_keys);
	for (char *save = NULL, *k = strtok_r(keys_buf, ",", &save); k && o.nkeys < 64;
	     k = strtok_r(NULL, ",", &save))
		keys[o.nkeys++] = k;
	char err[1024];
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	int hr = zka_serve_start(&r->http, r->a, &o, err, sizeof err);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (hr) {
		fprintf(stderr, "zkarena run: [http]: %s\n", err);
		return -1;
	}
	if (o.listen)
		fprintf(stderr, "zkarena run: job API on %s://%.*s:%u/v1/\n",
			o.tls_cert ? "https" : "http", (int)(strrchr(o.listen, ':') - o.listen),
			o.listen, zka_serve_port(r->http));
	if (o.unix_path)
		fprintf(stderr, "zkarena run: job API on unix:%s\n", o.unix_path);
	return 0;
}

/* Child i's command line: gpud i on device devs[i] for i < ndev, else worker i - ndev + 1. */
static void run_child_argv(struct run *r, struct child *c, int i)
{
	c->index = i;
	c->backoff = 0;
	c->life_rd = -1;
	if (i < r->ndev) {
		c->what = "gpud";
		snprintf(c->id_s, sizeof c->id_s, "%d", i);
		snprintf(c->dev_s, sizeof c->dev_s, "%d", r->devs[i]);
		char **v = c->argv;
		v[0] = r->gpud, v[1] = "--backend", v[2] = (char *)r->backend, v[3] = "--device";
		v[4] = c->dev_s, v[5] = "--inflight", v[6] = r->inflight_s, v[7] = "--id";
		int k = 8;
		v[k++] = c->id_s;
		if (r->budget && !strcmp(r->backend, "cuda")) /* the cpu backend has none */
			v[k++] = "--table-budget", v[k++] = (char *)r->budget;
		v[k++] = r->name, v[k] = NULL;
	} else {
		c->index =
		    i - r->ndev + 1; /* workers are numbered from 1, as before several gpuds */
		c->what = "worker";
		c->argv[0] = r->synth, c->argv[1] = "--threads", c->argv[2] = r->threads_s;
		c->argv[3] = "--max-threads", c->argv[4] = r->max_s;
		c->argv[5] = "--ab", c->argv[6] = (char *)(r->ab ? r->ab : "auto");
		c->argv[7] = r->name, c->argv[8] = NULL;
	}
}

/* Says what started, and warns when the arena has fewer slots than the children can hold. */
static void run_started(struct run *r)
{
	char gp[256] = "";
	for (int i = 0; i < r->ndev; i++)
		snprintf(gp + strlen(gp), sizeof gp - strlen(gp), "%s%d", i ? "," : "",
			 (int)r->ch[i].pid);
	fprintf(
	    stderr,
	    "zkarena run: arena %s: %d gpud%s (%s backend, %s in flight, devices %s) pid %s and "
	    "%d workers x %d threads started (%d cores)\n",
	    r->name, r->ndev, r->ndev > 1 ? "s" : "", r->backend, r->inflight_s, r->device, gp,
	    r->workers, r->threads, r->cores);
	struct zka_arena_geometry geo;
	zka_arena_geometry(r->a, &geo);
	int want = r->workers + r->ndev * atoi(r->inflight_s);
	if (geo.nslots < (uint32_t)want)
		fprintf(stderr,
			"zkarena run: warning: arena %s has %u slots, fewer than %d workers + %s "
			"proofs in flight: some will wait for a slot (create the arena with "
			"--slots %d)\n",
			r->name, geo.nslots, r->workers, r->inflight_s, want + 1);
}

/* Child c (pid, wait status st) died: recovery, then its restart after the backoff, unless
 * it refused to start (exit 2: the supervisor stops) or the supervisor is stopping. */
static void run_reaped(struct run *r, struct child *c, pid_t pid, int st)
{
	char how[128];
	describe(how, sizeof how, st);
	double lived = now() - c->started;
	c->pid = 0;
	int rec = zka_arena_recover(r->a);
	fprintf(stderr,
		"zkarena run: %s %d (pid %d) %s after %.1f s; recovery put back %d "
		"record(s)\n",
		c->what, c->index, (int)pid, how, lived, rec < 0 ? 0 : rec);
	if (stopping)
		return;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 2) {
		fprintf(stderr,
			"zkarena run: %s %d refused to start (bad configuration); "
			"stopping\n",
			c->what, c->index);
		stopping = 1;
		refused = 1;
		return;
	}
	/* a process that ran 2 s or more comes back at once (a gpud's restart is
	 * what the pipeline waits for: issue 18's <= 1 s); one that keeps dying
	 * young waits 100 ms, doubling up to 5 s */
	c->backoff = lived >= 2.0	  ? 0
		     : c->backoff < 0.1	  ? 0.1
		     : c->backoff * 2 > 5 ? 5
					  : c->backoff * 2;
	struct timespec ts = {(time_t)c->backoff,
			      (long)((c->backoff - (double)(time_t)c->backoff) * 1e9)};
	while (nanosleep(&ts, &ts) && errno == EINTR && !stopping)
		; /* the second's tick must not cut the backoff short */
	if (!stopping)
		zka_metrics_restart(r->mx, c->what);
	if (!stopping && spawn(c) > 0)
		fprintf(stderr, "zkarena run: %s %d restarted as pid %d\n", c->what, c->index,
			(int)c->pid);
}

/* The supervision loop, until SIGTERM/SIGINT or a child refusing to start: reaps the dead
 * (a child replaced at its life pipe's hangup is only reaped and recovered), restarts them. */
static void run_supervise(struct run *r)
{
	struct pollfd *pf = calloc((size_t)r->n, sizeof *pf);
	while (!stopping && pf) {
		int st;
		zka_notify("WATCHDOG=1");
		pid_t pid = waitpid(-1, &st, WNOHANG);
		if (pid == 0 || (pid < 0 && errno == ECHILD)) {
			/* nobody to reap: wait for a life pipe's hangup, SIGCHLD or the tick */
			for (int i = 0; i < r->n; i++)
				pf[i] = (struct pollfd){r->ch[i].pid > 0 ? r->ch[i].life_rd : -1,
							POLLIN, 0};
			if (ppoll(pf, (nfds_t)r->n, NULL, &run_mask) > 0)
				for (int i = 0; i < r->n && !stopping; i++)
					if (pf[i].fd >= 0 && pf[i].revents)
						on_hangup(&r->ch[i], r->mx);
			continue;
		}
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < r->n; i++) {
			struct child *c = &r->ch[i];
			if (c->dying == pid) { /* replaced already: reaped and recovered now */
				char how[128];
				describe(how, sizeof how, st);
				c->dying = 0;
				int rec = zka_arena_recover(r->a);
				fprintf(stderr,
					"zkarena run: %s %d (pid %d) %s; recovery put back %d "
					"record(s) (pid %d took its place)\n",
					c->what, c->index, (int)pid, how, rec < 0 ? 0 : rec,
					(int)c->pid);
				break;
			}
			if (c->pid != pid)
				continue;
			run_reaped(r, c, pid, st);
			if (stopping)
				break;
		}
	}
	free(pf);
}

/* Stops every child: SIGTERM, SIGKILL after 5 s; then the last recovery. */
static void run_stop(struct run *r)
{
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	zka_notify("STOPPING=1");
	fprintf(stderr, "zkarena run: stopping\n");
	for (int i = 0; i < r->n; i++)
		if (r->ch[i].pid > 0)
			kill(r->ch[i].pid, SIGTERM);
	double deadline = now() + 5;
	int left = 0;
	for (int i = 0; i < r->n; i++)
		left += r->ch[i].pid > 0;
	while (left > 0) {
		int st;
		pid_t pid = waitpid(-1, &st, WNOHANG);
		if (pid > 0) {
			for (int i = 0; i < r->n; i++)
				if (r->ch[i].pid == pid)
					r->ch[i].pid = 0, left--;
			continue;
		}
		if (pid < 0 && errno != EINTR)
			break;
		if (now() > deadline) {
			for (int i = 0; i < r->n; i++)
				if (r->ch[i].pid > 0)
					kill(r->ch[i].pid, SIGKILL);
			deadline = now() + 60;
		}
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	int rec = zka_arena_recover(r->a);
	if (rec > 0)
		fprintf(stderr, "zkarena run: recovery put back %d record(s) at shutdown\n", rec);
}

int zka_cmd_run(int argc, char **argv)
{
	struct run r0 = {.numa = -1}, *r = &r0;
	int status = run_options(argc, argv, r);
	if (status >= 0 || (status = run_settings(r)) >= 0)
		return status;
	if (r->numa >= 0 && zka_run_bind_node(r->numa))
		return 2;
	if (run_devices(r) || run_shape(r))
		return 2;
	if (!(r->a = zka_pipe_attach("zkarena run", r->name, ZKA_OPEN_NORECOVER)))
		return 2;
	int lock = -1;
	status = 2;
	if (run_lock(r->name, &lock))
		goto err;
	{ /* a scribbled mutex word would make every child fail or hang: refuse, named */
		char why[300] = "";
		if (zka_arena_locks_check(r->a, 0, NULL, why, sizeof why)) {
			fprintf(stderr,
				"zkarena run: arena %s: %s; refusing to start (repair it, idle: "
				"zkarena arena check %s --repair)\n",
				r->name, why, r->name);
			goto err;
		}
		zka_arena_recover(r->a);
	}
	if (run_metrics(r) || run_http(r))
		goto err;
	struct sigaction sa = {.sa_handler = on_stop}; /* no SA_RESTART: waitpid returns EINTR */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	r->n = r->workers + r->ndev;
	status = 1;
	if (!(r->ch = calloc((size_t)r->n, sizeof *r->ch)))
		goto err;
	/* SIGCHLD is taken only inside ppoll (run_supervise): a death between a reap and the
	 * wait cannot be missed until the next tick */
	struct sigaction chld = {.sa_handler = on_tick};
	sigaction(SIGCHLD, &chld, NULL);
	sigset_t with_chld;
	sigemptyset(&with_chld);
	sigaddset(&with_chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &with_chld, &run_mask);
	for (int i = 0; i < r->n; i++) {
		run_child_argv(r, &r->ch[i], i);
		if (spawn(&r->ch[i]) < 0)
			fprintf(stderr, "zkarena run: fork: %s\n", strerror(errno));
	}
	run_started(r);
	struct sigaction tick = {.sa_handler = on_tick};
	sigaction(SIGALRM, &tick, NULL);
	struct itimerval iv = {{1, 0}, {1, 0}};
	setitimer(ITIMER_REAL, &iv, NULL);
	zka_notify("READY=1\nSTATUS=arena %s: %d gpud(s), %d worker(s)", r->name, r->ndev,
		   r->workers);
	run_supervise(r);
	run_stop(r);
	free(r->ch);
	zka_serve_stop(r->http);
	zka_metrics_stop(r->mx);
	zka_arena_close(r->a);
	run_unlock(r->name, lock);
	if (refused)
		fprintf(stderr, "zkarena run: not running: a process refused to start (exit 2)\n");
	return refused ? 2 : 0;
err:
	zka_serve_stop(r->http);
	zka_metrics_stop(r->mx);
	zka_arena_close(r->a);
	run_unlock(r->name, lock);
	return status;
}
