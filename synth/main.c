/* main.c - zkarena-synth NAME: a synthesis worker of arena NAME.
 *
 * Reactive dispatch: the worker first takes a FREE slot (blocking on the free-slot ring; each
 * proof the daemon finishes frees one slot and wakes one worker), then a submitted job. It
 * reads the witness file (opened as its submitter, with pread: never mapped) straight into the slot
 * (and their Montgomery form into the worker's scratch), computes a = A w, b = B w, c = a .* b into
 * the slot from the key's CSR matrices with --threads threads over blocks of rows (zk/abc.h),
 * checks c against <C_i, w> when the r1cs was loaded, and marks the slot READY. A bad witness fails
 * its job (with the reason)
 * and the worker goes on. A worker killed at any point loses nothing: recovery gives its job
 * back to the queue and its slot back to the free ring. */
#include "config/zka_config.h"
#include "config/zka_notify.h"
#include "config/zka_version.h"
#include "keys/zka_cache.h"
#include "synth/attest.h"
#include "synth/pipe.h"
#include "synth/slot_layout.h"
#include "witness/zka_witness.h"
#include "zk/abc.h"
#include "zk/groth16.h"
#include "zk/opt.h"
#include "zk/par.h"
#include "zk/r1cs.h"
#include "zk/wtns.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOG(...) zka_pipe_log("zkarena-synth", __VA_ARGS__)

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: zkarena-synth [--threads N] [--max-threads M] [--ab MODE] [--once] NAME\n"
	    "\n"
	    "A synthesis worker of arena NAME: takes a free slot, then a job, writes its a, b\n"
	    "and witness into the slot and hands it to the prover. Runs until SIGTERM/SIGINT.\n"
	    "  --threads N   threads for one job's witness pass, a, b and check (default 1;\n"
	    "                `zkarena run` picks workers x threads from the cores it may run on)\n"
	    "  --max-threads M  a job takes max(N, M / J) threads, J = the jobs being\n"
	    "                synthesized or waiting: a lone job on an idle pipeline runs on\n"
	    "                all M (default: the CPUs this process may run on)\n"
	    "  --ab MODE     who computes a = A w and b = B w: worker (here, into the slot),\n"
	    "                prover (the slot holds only the witness; a cuda gpud makes them\n"
	    "                on the device, a cpu gpud on its lane), or auto (default: prover\n"
	    "                when every running gpud of the arena is cuda). A key loaded with\n"
	    "                its r1cs is always worker: its satisfiability check needs a, b\n"
	    "  --once        exit after one job (tests)\n"
	    "  -V, --version  print the version (and git commit) and exit\n"
	    "Per-user limits: [limits] user_queued and user_priority of the arena's settings\n"
	    "file ($ZKA_CONFIG_DIR/NAME.conf, default /etc/zkarena/NAME.conf), read at start,\n"
	    "bind every submitter but the arena's owner and root (docs/ops.md). In a group\n"
	    "arena a job runs only when its submitter's attestation matches its record.\n"
	    "Test hooks: ZKA_SYNTH_DELAY_MS=N sleeps N ms in the middle of each synthesis;\n"
	    "ZKA_PRIORITY_AGE_MS=N makes a waiting job gain one priority level per N ms (not\n"
	    "per %d s) when this worker picks the next job.\n",
	    ZKA_PRIORITY_AGE_S);
}

/* The witness in Montgomery form: one buffer per worker, grown to the largest key seen and
 * reused by every job (no per-job allocation or copy of the witness). */
static uint64_t (*wm)[4];
static size_t wm_cap;

/* Threads for the job just taken: --threads T is the floor; when fewer jobs are being
 * synthesized or waiting than the CPUs allow at T each, the job also takes the idle CPUs'
 * share, max_t / (synthesizing + waiting), at most max_t (--max-threads, default the CPUs this
 * process may run on). A lone job on an idle pipeline (`prove --arena`) then runs on all of
 * them; under load every worker is busy and each keeps T. Workers deciding at the same moment
 * may briefly oversubscribe the CPUs; results do not depend on the thread count. */
static int job_threads(const struct zka_arena *a, int floor_t, int max_t, uint32_t *busy)
{
	uint32_t n = zka_job_pending(a);
	*busy = n ? n : 1;
	int t = max_t / (int)*busy;
	return t < floor_t ? floor_t : t > max_t ? max_t : t;
}

/* The witness graph of the job's circuit (KEY.wcg beside the key the circuit table names),
 * kept while jobs use the same circuit entry and key file; its scratch and input buffers grow
 * to the largest graph seen. NULL with err set when there is none or it is bad. */
static struct {
	zka_wcg *g;
	uint32_t circuit;
	char path[4096];
	void *scratch;
	size_t scratch_cap;
	uint64_t (*in)[4];
	uint32_t in_cap;
} wg = {.circuit = UINT32_MAX};

static zka_wcg *job_graph(struct zka_arena *a, uint32_t circuit, char *err, size_t errlen)
{
	struct zka_circuit_info ci;
	char path[4096];
	if (zka_circuit_info(a, circuit, &ci)) {
		snprintf(err, errlen, "circuit %u: no such entry", circuit);
		return NULL;
	}
	zka_wcg_path(ci.key_path, path, sizeof path);
	if (wg.g && wg.circuit == circuit && !strcmp(wg.path, path))
		return wg.g;
	zka_wcg_free(wg.g);
	wg.g = NULL;
	int rc = zka_wcg_load(path, &wg.g, err, errlen);
	if (rc == -ENOENT)
		snprintf(err, errlen, "%.400s: no witness graph for this key (import it with --c)",
			 path);
	if (rc)
		return NULL;
	wg.circuit = circuit;
	snprintf(wg.path, sizeof wg.path, "%s", path);
	static int said; /* the slower conversions, once per worker */
	if (!said++ && !zka_wcg_ifma())
		fprintf(stderr,
			"zkarena-synth[%d]: WARNING: witness entries' standard forms: %s; witness "
			"generation is slower than with the 8-lane path\n",
			(int)getpid(), zka_wcg_conversions());
	size_t sb = zka_wcg_scratch_bytes(wg.g);
	uint32_t ni = zka_wcg_n_inputs(wg.g) + 1;
	if (sb > wg.scratch_cap) {
		free(wg.scratch);
		wg.scratch = aligned_alloc(64, (sb + 63) / 64 * 64);
		wg.scratch_cap = wg.scratch ? sb : 0;
	}
	if (ni > wg.in_cap) {
		free(wg.in);
		wg.in = calloc(ni, 32);
		wg.in_cap = wg.in ? ni : 0;
	}
	if (!wg.scratch || !wg.in) {
		snprintf(err, errlen, "out of memory for the witness graph of %.400s", path);
		zka_wcg_free(wg.g);
		wg.g = NULL;
		return NULL;
	}
	return wg.g;
}

/* Opens the job's witness (a .wtns or an input.json) as its submitter would: never following
 * a final symbolic link, never blocking on a FIFO, a regular file only. Running as root, the
 * open is made with the submitter's filesystem uid and gid (setfsuid/setfsgid, this thread
 * only), so a job cannot read what its submitter could not; running as another user than the
 * submitter, only a file the submitter owns is read (this worker's own files are not lent to
 * another user's job). The descriptor, or -errno with one line in err. */
static int open_witness(const struct zka_job_info *ji, char *err, size_t errlen)
{
	uid_t me = geteuid();
	int as = me == 0 && ji->uid != 0;
	if (as) {
		/* a second call returns the fsuid now in force: the switch is checked, not assumed
		 */
		setfsgid((gid_t)ji->gid);
		setfsuid((uid_t)ji->uid);
		if ((uid_t)setfsuid((uid_t)ji->uid) != (uid_t)ji->uid ||
		    (gid_t)setfsgid((gid_t)ji->gid) != (gid_t)ji->gid) {
			setfsuid(0);
			setfsgid(0);
			snprintf(err, errlen,
				 "%.300s: cannot take the submitter's uid %u to open it",
				 ji->witness_path, ji->uid);
			return -EPERM;
		}
	}
	int fd = open(ji->witness_path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int e = errno;
	if (as) {
		setfsuid(0);
		setfsgid(0);
	}
	struct stat st;
	if (fd < 0) {
		snprintf(err, errlen, "%.400s: cannot open as the submitter (uid %u): %s%s",
			 ji->witness_path, ji->uid, strerror(e),
			 e == ELOOP ? " (a symbolic link: refused)" : "");
		return -e;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "%.400s: not a regular file", ji->witness_path);
		return -EINVAL;
	}
	if (me != 0 && ji->uid != me && st.st_uid != ji->uid) {
		close(fd);
		snprintf(err, errlen,
			 "%.300s: owned by uid %u, not by the submitter (uid %u): a worker of "
			 "another user reads only the submitter's own witness files",
			 ji->witness_path, (unsigned)st.st_uid, ji->uid);
		return -EPERM;
	}
	return fd;
}

/* input.json -> the slot's witness area, through the circuit's graph: 0, or 1 with err set
 * (bad input or a circuit assert: the job fails at once, as a bad .wtns does). */
static int witness_from_input(struct zka_arena *a, const struct zka_job_info *ji,
			      const zka_params *p, uint64_t (*w)[4], char *err, size_t errlen)
{
	zka_wcg *g = job_graph(a, ji->circuit, err, errlen);
	if (!g)
		return 1;
	if (zka_wcg_curve(g) != p->pk.curve || zka_wcg_n_witness(g) != p->pk.n_vars) {
		snprintf(err, errlen,
			 "%.400s: the graph computes %u %s values, the key expects %u %s", wg.path,
			 zka_wcg_n_witness(g), zka_wcg_curve(g)->pretty, p->pk.n_vars,
			 p->pk.curve->pretty);
		return 1;
	}
	char e[700];
	int fd = open_witness(ji, err, errlen);
	if (fd < 0)
		return 1;
	/* the descriptor just checked is the one read (whatever the path names now) */
	int bad = zka_wcg_inputs_json_fd(g, fd, ji->witness_path, wg.in, e, sizeof e);
	close(fd);
	if (bad) { /* e names the file already */
		snprintf(err, errlen, "%.500s", e);
		return 1;
	}
	if (zka_wcg_eval(g, (const uint64_t(*)[4])wg.in, w, wg.scratch, e, sizeof e)) {
		snprintf(err, errlen, "%.500s", e);
		return 1;
	}
	return 0;
}

/* Whether the job's witness is an input.json (a name ending in .json). */
static int is_input_json(const char *path)
{
	size_t l = strlen(path);
	return l > 5 && !strcmp(path + l - 5, ".json");
}

/* The job's witness into the slot's w: computed from its input.json with the key's graph, or
 * read with pread from its .wtns opened as the submitter (a file swapped after submit is
 * refused at the open; one truncated meanwhile is a short read that fails this job, where a
 * mapping would have killed the worker with SIGBUS); then every value checked below r and
 * w[0] = 1, copied into wm with its classes in cls when wm is not NULL (a and b made here).
 * 0, or -1 with the job's reason in err. */
static int witness_into_slot(struct zka_arena *a, const struct zka_job_info *ji,
			     const zka_params *p, uint64_t (*w)[4], uint64_t (*wm)[4],
			     uint64_t *cls, int threads, char *err, size_t errlen)
{
	if (is_input_json(ji->witness_path)) {
		if (witness_from_input(a, ji, p, w, err, errlen))
			return -1;
	} else {
		int fd = open_witness(ji, err, errlen);
		if (fd < 0)
			return -1;
		int r =
		    zka_wtns_pread(fd, ji->witness_path, p->pk.curve, p->pk.n_vars, w, err, errlen);
		close(fd);
		if (r)
			return -1;
	}
	int64_t bad = zka_abc_witness_mem(p->pk.curve, (const uint64_t(*)[4])w, p->pk.n_vars, wm,
					  cls, 1, threads);
	if (bad) {
		snprintf(err, errlen, "%.400s: witness value %lld is not below the prime",
			 ji->witness_path, (long long)bad - 1);
		return -1;
	}
	if (w[0][0] != 1 || w[0][1] || w[0][2] || w[0][3]) {
		snprintf(err, errlen, "%.400s: witness value 0 is not 1", ji->witness_path);
		return -1;
	}
	return 0;
}

/* Who computes a = A w and b = B w (--ab, synth/pipe.h): AUTO is the prover when every running
 * gpud of the arena is a cuda one. A key loaded with its r1cs is always done by the worker: its
 * satisfiability check reads a and b. */
static enum zka_ab_mode ab_mode = ZKA_AB_AUTO;

/* Synthesises job into slot. Returns 0 (slot READY), 1 (job failed with a reason: bad input)
 * or -errno (arena trouble: the caller stops). */
static int synthesize(struct zka_arena *a, zka_params_cache *cache, uint32_t slot, uint32_t job,
		      int threads)
{
	struct zka_job_info ji;
	char err[512] = "";
	int r = zka_job_info(a, job, &ji);
	if (r)
		return r;
	const zka_params *p = NULL;
	zka_slot_view v;
	if (zka_job_cancelled(a, job)) {
		snprintf(err, sizeof err, "cancelled");
		goto fail;
	}
	/* a group arena's record acts only as its submitter attested it (synth/attest.h) */
	if (zka_attest_needed(a) && zka_attest_check(zka_arena_name(a), &ji, err, sizeof err))
		goto fail;
	if (!(p = zka_params_cache_get(cache, a, ji.circuit, err, sizeof err)))
		goto fail;
	if ((r = zka_slot_layout_view(a, slot, &p->pk, &v))) {
		snprintf(err, sizeof err,
			 "the key needs %llu bytes per slot, more than the arena's slots hold",
			 (unsigned long long)zka_params_slot_bytes(&p->pk));
		goto fail;
	}
	/* form W: the witness alone into the slot; the prover makes a and b (gpud/backend.h) */
	int w_only = !p->has_r1cs && zka_pipe_ab_prover(a, ab_mode, "zkarena-synth");
	if (!w_only && zka_abc_scratch_reserve(&wm, &wm_cap, p->pk.n_vars)) {
		snprintf(err, sizeof err, "out of memory for a witness of %u values", p->pk.n_vars);
		goto fail;
	}
	const uint64_t(*vs)[4] = w_only ? NULL : zka_params_cache_values_std(cache, ji.circuit);
	if (!w_only && !vs) {
		snprintf(err, sizeof err, "out of memory for the key's %u coefficient values",
			 p->abc.n_vals);
		goto fail;
	}
	/* the witness straight into the slot (and, for a and b here, into wm in standard form
	 * with its classes: no Montgomery conversion, a and b come out in standard form,
	 * zk/abc.h). The two hold the same bytes: the row loop reads wm at random, and wm is on
	 * huge pages, where the slot (POSIX shm) has none when the kernel's shmem THP is off, as
	 * on the H200 box (2^22: 180 -> 149 ms a job from huge pages, docs/synthesis.md) */
	uint64_t *cls = w_only ? NULL : zka_abc_scratch_cls(wm, p->pk.n_vars);
	if (witness_into_slot(a, &ji, p, v.w, w_only ? NULL : wm, cls, threads, err, sizeof err))
		goto fail;
	if ((r = zka_job_witness_done(a, slot))) /* the witness stage ends: list, status, metrics */
		return r;
	if (w_only) {
		zka_pipe_test_delay("ZKA_SYNTH_DELAY_MS");
		if ((r = zka_slot_set_form(a, slot, ZKA_SLOT_FORM_W)) ||
		    (r = zka_slot_set_used(a, slot, v.bytes)) || (r = zka_slot_ready(a, slot)))
			return r;
		return 0;
	}
	/* a and b only: the prover computes c = a .* b (the GPU on the device) */
	if ((r = zka_abc_compute(&p->abc, (const uint64_t(*)[4])wm, cls, vs, v.a, v.b, NULL,
				 threads))) {
		snprintf(err, sizeof err, "computing a, b failed: %s", strerror(-r));
		goto fail;
	}
	if (p->has_r1cs) { /* a and b are in the slot: a_i b_i against <C_i, w> */
		uint32_t bad = 0;
		int c = zka_abc_check_ab(&p->cs, &p->abc, (const uint64_t(*)[4])v.a,
					 (const uint64_t(*)[4])v.b, (const uint64_t(*)[4])wm, 1,
					 threads, &bad);
		if (c == 1) {
			snprintf(err, sizeof err, "%.300s: witness does not satisfy constraint %u",
				 ji.witness_path, bad);
			goto fail;
		}
		if (c) {
			snprintf(err, sizeof err, "%.300s: cannot check the witness (%s)",
				 ji.witness_path, strerror(-c));
			goto fail;
		}
	}
	zka_pipe_test_delay(
	    "ZKA_SYNTH_DELAY_MS"); /* test hook: widen the window for a kill mid-synthesis */
	if ((r = zka_slot_set_used(a, slot, v.bytes)) || (r = zka_slot_ready(a, slot)))
		return r;
	return 0;
fail:
	LOG("job %llu failed: %s", (unsigned long long)ji.id, err);
	r = zka_job_fail_synth(a, slot, err);
	return r ? r : 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"threads", required_argument, 0, 't'},
					     {"max-threads", required_argument, 0, 'm'},
					     {"once", no_argument, 0, 'o'},
					     {"help", no_argument, 0, 'h'},
					     {"ab", required_argument, 0, 'a'},
					     {"version", no_argument, 0, 'V'},
					     {0, 0, 0, 0}};
	int threads = 1, max_threads = 0, once = 0, opt;
	while ((opt = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			if (zka_opt_int("zkarena-synth", "--threads", optarg, 1, 1024, &threads))
				return 2;
			break;
		case 'm':
			if (zka_opt_int("zkarena-synth", "--max-threads", optarg, 1, 1024,
					&max_threads))
				return 2;
			break;
		case 'o':
			once = 1;
			break;
		case 'a':
			if (zka_ab_mode_parse(optarg, &ab_mode)) {
				fprintf(stderr,
					"zkarena-synth: --ab: '%s' is not auto, prover or worker\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			return zka_version_print("zkarena-synth");
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 1) {
		usage(stderr);
		return 2;
	}
	const char *name = argv[optind];
	if (!max_threads)
		max_threads = zka_par_cpus(); /* `zkarena run` may bind it to a node */
	if (max_threads < threads)
		max_threads = threads;
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	struct zka_arena *a = zka_pipe_attach("zkarena-synth", name, 0);
	int r;
	if (!a)
		return 2;
	{ /* per-user limits from [limits] of the arena's settings file (this worker enforces) */
		uint32_t q = 0;
		int pr = 0, set = zka_config_user_limits(name, stderr, &q, &pr);
		if (set < 0) {
			fprintf(stderr,
				"zkarena-synth: the settings file of arena %s has problems: "
				"refusing to start\n",
				name);
			zka_arena_close(a);
			return 2;
		}
		struct zka_user_limits lim = {
		    .set = (set & ZKA_CF_USER_QUEUED ? ZKA_LIM_QUEUED : 0) |
			   (set & ZKA_CF_USER_PRIORITY ? ZKA_LIM_PRIORITY : 0),
		    .max_priority = pr,
		    .max_queued = q};
		zka_arena_set_user_limits(a, &lim);
		if (lim.set)
			LOG("per-user limits: %s%u queued job(s) eligible at a time, priority at "
			    "most %d",
			    lim.set & ZKA_LIM_QUEUED ? "" : "(any) ", q,
			    lim.set & ZKA_LIM_PRIORITY ? pr : ZKA_PRIORITY_MAX);
	}
	zka_params_cache *cache = zka_params_cache_new(0);
	if (!cache) {
		zka_arena_close(a);
		return 1;
	}
	int status = 0;
	zka_notify("READY=1\nSTATUS=worker on arena %s", name);
	while (!stop) {
		uint32_t slot, job;
		/* each turn: a synthesis longer than WatchdogSec is a hang */
		zka_notify("WATCHDOG=1");
		r = zka_slot_acquire(a, &slot, 1000);
		if (r == -ETIMEDOUT || r == -EINTR)
			continue;
		if (r) {
			LOG("cannot take a slot: %s", strerror(-r));
			status = 1;
			break;
		}
		/* holding a slot: wait for a job, waking now and then to notice SIGTERM */
		do {
			zka_notify("WATCHDOG=1");
			r = zka_job_take(a, slot, &job, 1000);
		} while ((r == -ETIMEDOUT || r == -EINTR) && !stop);
		if (r) {
			int e = zka_slot_release(a, slot);
			if (r != -ETIMEDOUT && r != -EINTR) {
				LOG("cannot take a job: %s", strerror(-r));
				status = 1;
			}
			if (e)
				LOG("cannot release slot %u: %s", slot, strerror(-e));
			break;
		}
		uint32_t busy;
		int t = job_threads(a, threads, max_threads, &busy);
		if (t != threads)
			LOG("job record %u: %d threads (%u job%s synthesizing or waiting, "
			    "--max-threads %d)",
			    job, t, busy, busy > 1 ? "s" : "", max_threads);
		r = synthesize(a, cache, slot, job, t);
		if (r < 0) {
			LOG("slot %u job %u: %s", slot, job, strerror(-r));
			status = 1;
			break;
		}
		if (once)
			break;
	}
	zka_params_cache_free(cache);
	zka_arena_close(a);
	zka_abc_scratch_free(wm, wm_cap);
	return status;
}
