/* bench_pipeline.c - `zkarena bench pipeline`: is the prover kept busy? One run measures, on
 * the same key and witness:
 *   1. synthesis in process: the previous worker's path (the .wtns read into a fresh buffer,
 *      zka_compute_abc's one thread over the coefficient list, the witness copied into the
 *      slot) next to the CSR path (zk/abc.h) with 1 and T threads, outputs compared;
 *      optionally (--sweep) W workers x T threads side by side at W T = the cores it may run on;
 *   2. the pipeline: a temporary arena, `zkarena run` with W workers x T threads, J jobs;
 *      proofs/s and busy % over the steady-state window from the daemon's own counters (its
 *      status file), per-stage p50/p99 from the job records, synthesis capacity;
 *   3. the prover-only ceiling: the same backend in process, its lanes proving pre-synthesized
 *      slots back to back (no synthesis, no verification, no output files).
 * Everything it made (arenas, params regions, files) is removed at the end, also on Ctrl-C. */
#include "gpud/backend.h"
#include "shm/zka_gpud_status.h"
#include "synth/client.h"
#include "synth/pipe.h"
#include "synth/slot_layout.h"
#include "tools/cli.h"
#include "tools/util.h"
#include "zk/abc.h"
#include "zk/groth16.h"
#include "zk/opt.h"
#include "zk/par.h"
#include "zk/setup.h"
#include "zk/synthetic.h"
#include "zk/wtns.h"
#include "zk/zkey.h"
#ifdef ZKA_HAVE_CUDA
#include "cuda/zka_gpu.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t interrupted;

static void on_int(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: zkarena bench pipeline [--curve bn128|bls12381] [--constraints N] [--jobs J]\n"
	    "                              [--workers W] [--threads T] [--inflight I]\n"
	    "                              [--backend cpu|cuda] [--reps R] [--sweep]\n"
	    "                              [--synth-only] [--row-loops G:A[:K],...]\n"
	    "       zkarena bench pipeline --zkey circuit.zkey --wtns witness.wtns [...]\n"
	    "\n"
	    "Measures whether synthesis keeps the prover busy, in one run on one key and witness:\n"
	    "  synthesis in process: the previous path (one thread over the coefficient list, the\n"
	    "    witness read and copied) vs the CSR path with 1 and T threads, medians of R (3);\n"
	    "    --sweep adds W workers x T threads at W T = the cores it may run on;\n"
	    "    --row-loops G:A[:K],... runs the sweep for each row loop (G 1: gathered, 0:\n"
	    "    direct; A: rows prefetched ahead, 1-64; K 1: direct, with the witness's\n"
	    "    0/1 values found in its class map, 0 or omitted: without; see zk/abc.h);\n"
	    "    --synth-only stops there (no pipeline, no ceiling);\n"
	    "  the pipeline: a temporary arena, `zkarena run` with W workers x T threads "
	    "(defaults\n"
	    "    as `zkarena run`'s) and the backend (cpu), J jobs (default 40); proofs/s and busy "
	    "%%\n"
	    "    over the steady state (after the first tenth of the proofs, before the last few)\n"
	    "    from the daemon's own counters, per-stage p50/p99, synthesis capacity;\n"
	    "  the prover-only ceiling: the same backend with I lanes (as the daemon: 2 with "
	    "cuda,\n"
	    "    1 with cpu) proving pre-synthesized slots back to back.\n"
	    "Without --zkey/--wtns: a random circuit of N constraints (default 65536) and a "
	    "test-only\n"
	    "key (setup on the GPU with --backend cuda). Cleans up after itself, also on "
	    "Ctrl-C.\n");
}

/* ---- 1. synthesis in process ---- */

/* The previous worker's synthesis (before the CSR path): kept here so that both are timed in
 * one run. */
static int synth_old(const zka_pk *pk, const char *wtns, uint64_t (*abc)[4], uint64_t (*wslot)[4],
		     char *err, size_t errlen)
{
	zka_witness w;
	int r = zka_wtns_read(wtns, &w, err, errlen);
	if (r)
		return r;
	size_t n = pk->domain_size;
	r = zka_compute_abc(pk, &w, abc, abc + n, abc + 2 * n, NULL);
	if (!r)
		memcpy(wslot, w.w, (size_t)w.n * sizeof *w.w);
	zka_witness_free(&w);
	return r;
}

/* The CSR path, as the worker runs it now: a and b in standard form (at ab and ab +
 * domain_size; no c, which the prover makes) and the slot's witness; wm a zka_abc_scratch
 * (with its class map), vs = zka_abc_values_std(m). */
static int synth_new(const zka_abc *m, const uint64_t (*vs)[4], const zka_pk *pk, const char *wtns,
		     uint64_t (*ab)[4], uint64_t (*wslot)[4], uint64_t (*wm)[4], int threads,
		     char *err, size_t errlen)
{
	size_t n = pk->domain_size;
	uint64_t *cls = zka_abc_scratch_cls(wm, pk->n_vars);
	int r =
	    zka_abc_witness(wtns, pk->curve, pk->n_vars, wslot, wm, cls, 1, threads, err, errlen);
	return r ? r
		 : zka_abc_compute(m, (const uint64_t(*)[4])wm, cls, vs, ab, ab + n, NULL, threads);
}

/* One job's buffers: a, b, c (the previous path's; a slot's a, b), the slot's witness and the
 * scratch. */
struct jobbuf {
	uint64_t (*abc)[4], (*w)[4], (*wm)[4];
	size_t n_wm;
};

static int jobbuf_alloc(struct jobbuf *b, const zka_pk *pk)
{
	b->abc = malloc(3 * (size_t)pk->domain_size * 32);
	b->w = malloc((size_t)pk->n_vars * 32);
	b->wm = zka_abc_scratch(pk->n_vars); /* as the worker's */
	b->n_wm = pk->n_vars;
	return b->abc && b->w && b->wm ? 0 : -ENOMEM;
}

static void jobbuf_free(struct jobbuf *b)
{
	free(b->abc);
	free(b->w);
	zka_abc_scratch_free(b->wm, b->n_wm);
}

/* --sweep: W threads, each a worker synthesizing jobs of T threads until `jobs` are done. Each
 * worker first allocates its buffers and synthesizes one untimed job (page faults of fresh
 * buffers are not the steady state: a worker reuses its slot and scratch), then all start
 * together at a barrier. The workers stamp their own start and end: the calling thread may
 * not run again until they are done (the 2-core box once timed 6 jobs in 60 us that way). */
#define SWEEP_MAX 256
struct sweep {
	const zka_abc *m;
	const uint64_t (*vs)[4];
	const zka_pk *pk;
	const char *wtns;
	int threads, jobs;
	pthread_barrier_t go;
	_Atomic int next, err;
	double t_start[SWEEP_MAX], t_end[SWEEP_MAX];
};
struct sweep_arg {
	struct sweep *s;
	int i;
};

static void *sweep_worker(void *arg)
{
	struct sweep *s = ((struct sweep_arg *)arg)->s;
	int me = ((struct sweep_arg *)arg)->i;
	struct jobbuf b;
	char err[256] = "";
	int ok = jobbuf_alloc(&b, s->pk) == 0 && synth_new(s->m, s->vs, s->pk, s->wtns, b.abc, b.w,
							   b.wm, s->threads, err, sizeof err) == 0;
	if (!ok)
		s->err = -EIO;
	pthread_barrier_wait(&s->go);
	s->t_start[me] = zka_now();
	while (ok && s->next++ < s->jobs)
		if (synth_new(s->m, s->vs, s->pk, s->wtns, b.abc, b.w, b.wm, s->threads, err,
			      sizeof err))
			s->err = -EIO;
	s->t_end[me] = zka_now();
	jobbuf_free(&b);
	return NULL;
}

static double sweep_run(const zka_abc *m, const uint64_t (*vs)[4], const zka_pk *pk,
			const char *wtns, int W, int T, int jobs)
{
	static struct sweep s; /* t_start/t_end: 4 KiB, off the stack */
	s = (struct sweep){.m = m, .vs = vs, .pk = pk, .wtns = wtns, .threads = T, .jobs = jobs};
	if (W < 1 || W > SWEEP_MAX || pthread_barrier_init(&s.go, NULL, (unsigned)W))
		return -1;
	pthread_t th[SWEEP_MAX];
	struct sweep_arg arg[SWEEP_MAX];
	int n = 0;
	for (; n < W; n++) {
		arg[n] = (struct sweep_arg){&s, n};
		if (pthread_create(&th[n], NULL, sweep_worker, &arg[n]))
			break;
	}
	if (n < W) { /* the barrier counts W and the started workers wait at it */
		fprintf(stderr, "zkarena bench pipeline: --sweep: cannot start %d threads\n", W);
		exit(1);
	}
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&s.go);
	double t0 = s.t_start[0], t1 = s.t_end[0];
	for (int i = 1; i < n; i++) {
		t0 = s.t_start[i] < t0 ? s.t_start[i] : t0;
		t1 = s.t_end[i] > t1 ? s.t_end[i] : t1;
	}
	return s.err || t1 <= t0 ? -1 : jobs / (t1 - t0);
}

/* --row-loops G:A[:K],...: G 1 gathered, 0 direct; A rows prefetched ahead; K 1 the class
 * map (the direct loop with it, whatever G says), 0 or omitted without (zk/abc.h). Returns the
 * number parsed into tv, or -1 for a malformed list or more than ROW_LOOPS_MAX. */
#define ROW_LOOPS_MAX 8
static int parse_row_loops(const char *q, struct zka__abc_tune *tv)
{
	int nv = 0;
	while (*q) {
		unsigned g, ah, k = 0;
		int used = 0, more = 0;
		if (nv == ROW_LOOPS_MAX || sscanf(q, "%u:%u%n", &g, &ah, &used) != 2)
			return -1;
		if (q[used] == ':' && (sscanf(q + used, ":%u%n", &k, &more) != 1 || k > 1))
			return -1;
		used += more;
		if (g > 1 || ah < 1 || ah > 64 || (q[used] && q[used] != ','))
			return -1;
		tv[nv++] = (struct zka__abc_tune){ah, (int)g, (int)k};
		q += used;
		q += *q == ',';
	}
	return nv ? nv : -1;
}

/* ---- 2. the pipeline ---- */

struct counters {
	int ok;
	long long mono_ns, busy_ns, copy_ns, copy_hidden_ns;
	unsigned long long proofs;
};

/* Reads the "counters:" line of gpud 0's status file (shm/zka_gpud_status.h). */
static void read_counters(const char *arena, struct counters *c)
{
	static struct zka_gpud_status s;
	memset(c, 0, sizeof *c);
	if (zka_gpud_status_read(arena, 0, zka_gpud_status_owner(arena), &s) || !s.has_counters)
		return;
	c->ok = 1;
	c->mono_ns = (long long)s.mono_ns;
	c->busy_ns = (long long)s.busy_ns;
	c->proofs = s.proofs;
	c->copy_ns = (long long)s.copy_ns;
	c->copy_hidden_ns = (long long)s.copy_hidden_ns;
}

/* The steady-state window from a new reading c: it opens (c0) at the first reading with at
 * least k0 proofs (after the warm-up) and closes (c1) at the last one with at most last (while
 * synthesis still feeds the prover). */
static void window_step(const struct counters *c, struct counters *c0, struct counters *c1, int k0,
			int last)
{
	if (c->ok && !c0->ok && (int)c->proofs >= k0)
		*c0 = *c;
	if (c->ok && c0->ok && c->proofs > c0->proofs && (int)c->proofs <= last)
		*c1 = *c;
}

/* ---- 3. the prover-only ceiling ---- */

struct ceil_lane {
	const zka_backend *be;
	void *ctx;
	int lane, reps, rc;
	uint32_t circuit;
	const zka_params *p;
	zka_slot_view v;
	char err[256];
};

static void *ceil_main(void *arg)
{
	struct ceil_lane *l = arg;
	for (int i = 0; i < l->reps && !l->rc && !interrupted; i++) {
		zka_rs rs;
		zka_proof proof;
		zka_prove_times t;
		double copy_s;
		zka_rs_random(&rs, l->p->pk.curve);
		l->rc =
		    l->be->prove(l->ctx, l->lane, l->circuit, l->p, (const uint64_t(*)[4])l->v.a,
				 (const uint64_t(*)[4])l->v.b, (const uint64_t(*)[4])l->v.w, &rs,
				 &proof, &t, &copy_s, l->err, sizeof l->err);
	}
	return NULL;
}

/* Runs `lanes` lanes of the backend over pre-synthesized slots of arena cname (made here),
 * reps proofs each after one warm-up proof (the key's upload); returns proofs/s or -1. */
static double ceiling(const zka_backend *be, const char *cname, const zka_params *p,
		      const char *wtns, int lanes, int reps, int threads, char *err, size_t errlen)
{
	struct zka_arena_params ap = {.nslots = (uint32_t)lanes,
				      .slot_bytes = zka_params_slot_bytes(&p->pk),
				      .numa_node = -1};
	struct zka_arena *a = NULL;
	const char *msg = NULL;
	void *ctx = NULL;
	double rate = -1;
	struct ceil_lane l[ZKA_LANES_MAX];
	uint64_t(*wm)[4] = zka_abc_scratch(p->pk.n_vars), (*vs)[4] = zka_abc_values_std(&p->abc);
	if (!wm || !vs || zka_arena_create(cname, &ap, &a, &msg)) {
		snprintf(err, errlen, "ceiling: arena %s: %s", cname, msg ? msg : "out of memory");
		goto out;
	}
	char note[512];
	if (be->init(&ctx, a, 0, lanes, note, sizeof note, err, errlen))
		goto out;
	for (int i = 0; i < lanes; i++) {
		l[i] = (struct ceil_lane){.be = be, .ctx = ctx, .lane = i, .reps = 1, .p = p};
		if (zka_slot_layout_view(a, (uint32_t)i, &p->pk, &l[i].v) ||
		    synth_new(&p->abc, (const uint64_t(*)[4])vs, &p->pk, wtns, l[i].v.a, l[i].v.w,
			      wm, threads, err, errlen) ||
		    (ceil_main(&l[i]), l[i].rc)) { /* synthesize, then one warm-up proof */
			if (l[i].rc)
				snprintf(err, errlen, "ceiling: %s", l[i].err);
			goto out;
		}
		l[i].reps = reps;
	}
	pthread_t th[ZKA_LANES_MAX];
	double t0 = zka_now();
	for (int i = 0; i < lanes; i++)
		pthread_create(&th[i], NULL, ceil_main, &l[i]);
	for (int i = 0; i < lanes; i++)
		pthread_join(th[i], NULL);
	double dt = zka_now() - t0;
	rate = lanes * reps / dt;
	for (int i = 0; i < lanes; i++)
		if (l[i].rc) {
			snprintf(err, errlen, "ceiling: %s", l[i].err);
			rate = -1;
		}
out:
	if (ctx)
		be->shutdown(ctx);
	if (a) {
		zka_arena_close(a);
		zka_arena_destroy(cname);
	}
	zka_abc_scratch_free(wm, p->pk.n_vars);
	free(vs);
	return rate;
}

#ifdef ZKA_HAVE_CUDA
static int fb_g1(void *ctx, const zka_curve *c, const void *base, const uint64_t (*k)[4], size_t n,
		 void *out)
{
	char err[256];
	return zka_gpu_fixed_base_g1(ctx, c, base, k, n, out, err, sizeof err);
}
static int fb_g2(void *ctx, const zka_curve *c, const void *base, const uint64_t (*k)[4], size_t n,
		 void *out)
{
	char err[256];
	return zka_gpu_fixed_base_g2(ctx, c, base, k, n, out, err, sizeof err);
}
#endif

/* Makes a random circuit's key and witness in dir (setup on the GPU when asked and built). */
static int make_key(const zka_curve *c, int m, int gpu, const char *zkey, const char *wtns,
		    char *err, size_t errlen)
{
	zka_r1cs cs = {0};
	zka_witness w = {0};
	zka_pk pk = {0};
	zka_toxic tw;
	zka_fixed_base_ops fb = {0}, *fbp = NULL;
	int r = zka_synthetic_circuit(c, (uint32_t)m, 2, (uint64_t)time(NULL), &cs, &w);
#ifdef ZKA_HAVE_CUDA
	zka_gpu *g = NULL;
	if (!r && gpu) {
		if ((r = zka_gpu_open(&g, 0, err, errlen)))
			goto out;
		fb = (zka_fixed_base_ops){.ctx = g, .g1 = fb_g1, .g2 = fb_g2};
		fbp = &fb;
	}
#else
	(void)gpu;
	(void)fb;
#endif
	if (r) {
		snprintf(err, errlen, "making the circuit: %s", strerror(-r));
		goto out;
	}
	zka_toxic_from_seed(&tw, c, (uint64_t)getpid() * 2654435761u);
	if ((r = zka_setup(&cs, &tw, &pk, fbp, 0))) {
		snprintf(err, errlen, "setup: %s", strerror(-r));
		goto out;
	}
	if ((r = zka_zkey_write(zkey, &pk, 0, err, errlen)) ||
	    (r = zka_wtns_write(wtns, &w, err, errlen)))
		goto out;
out:
#ifdef ZKA_HAVE_CUDA
	zka_gpu_close(g);
#endif
	zka_r1cs_free(&cs);
	zka_witness_free(&w);
	zka_pk_free(&pk);
	return r;
}

static double median(double *v, int n)
{
	return zka_percentile(v, n, 50);
}

int zka_bench_pipeline(int argc, char **argv)
{
	static const struct option opts[] = {{"curve", required_argument, 0, 'c'},
					     {"constraints", required_argument, 0, 'm'},
					     {"jobs", required_argument, 0, 'j'},
					     {"workers", required_argument, 0, 'w'},
					     {"threads", required_argument, 0, 't'},
					     {"inflight", required_argument, 0, 'i'},
					     {"backend", required_argument, 0, 'b'},
					     {"reps", required_argument, 0, 'r'},
					     {"zkey", required_argument, 0, 'z'},
					     {"wtns", required_argument, 0, 'x'},
					     {"sweep", no_argument, 0, 's'},
					     {"synth-only", no_argument, 0, 'S'},
					     {"row-loops", required_argument, 0, 'L'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const zka_curve *curve = &zka_curve_bn254;
	const char *backend = "cpu", *zkey_in = NULL, *wtns_in = NULL;
	int m = 65536, njobs = 40, workers = 0, threads = 0, inflight = 0, reps = 3, sweep = 0,
	    synth_only = 0, opt;
	struct zka__abc_tune tv[ROW_LOOPS_MAX];
	int nv = 0; /* --row-loops given: nv row loops in tv */
	const char *P = "zkarena bench pipeline";
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			if (!(curve = zka_curve_by_name(optarg))) {
				fprintf(stderr,
					"%s: --curve: unknown curve '%s' (bn128, bls12381)\n", P,
					optarg);
				return 2;
			}
			break;
		case 'm':
			if (zka_opt_int(P, "--constraints", optarg, 1, 1 << 26, &m))
				return 2;
			break;
		case 'j':
			if (zka_opt_int(P, "--jobs", optarg, 4, 100000, &njobs))
				return 2;
			break;
		case 'w':
			if (zka_opt_int(P, "--workers", optarg, 1, 256, &workers))
				return 2;
			break;
		case 't':
			if (zka_opt_int(P, "--threads", optarg, 1, 1024, &threads))
				return 2;
			break;
		case 'i':
			if (zka_opt_int(P, "--inflight", optarg, 1, ZKA_LANES_MAX, &inflight))
				return 2;
			break;
		case 'r':
			if (zka_opt_int(P, "--reps", optarg, 1, 64, &reps))
				return 2;
			break;
		case 'b':
			if (strcmp(optarg, "cpu") && strcmp(optarg, "cuda")) {
				fprintf(stderr, "%s: --backend: '%s' is not cpu or cuda\n", P,
					optarg);
				return 2;
			}
			backend = optarg;
			break;
		case 'z':
			zkey_in = optarg;
			break;
		case 'x':
			wtns_in = optarg;
			break;
		case 's':
			sweep = 1;
			break;
		case 'S':
			synth_only = 1;
			break;
		case 'L':
			if ((nv = parse_row_loops(optarg, tv)) < 0) {
				fprintf(stderr,
					"%s: --row-loops: '%s': want G:A[:K],... (at most %d) with "
					"G and "
					"K 0 or 1 and A 1-64\n",
					P, optarg, ROW_LOOPS_MAX);
				return 2;
			}
			sweep = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !zkey_in != !wtns_in) {
		fprintf(stderr, "%s: %s (see --help)\n", P,
			optind != argc ? "unexpected arguments" : "--zkey and --wtns go together");
		return 2;
	}
	const zka_backend *be = strcmp(backend, "cuda") ? &zka_backend_cpu : &zka_backend_cuda;
	int cores = zka_par_threads(0);
	/* the defaults of `zkarena run` */
	zka_run_shape(cores, &workers, &threads);
	if (!inflight)
		inflight = be == &zka_backend_cuda ? 2 : 1;

	char dir[] = "/tmp/zkarena-benchpipe-XXXXXX", name[64], cname[64], zkey[PATH_MAX],
	     wtns[PATH_MAX], log[PATH_MAX], path[PATH_MAX], err[1024] = "";
	if (!mkdtemp(dir)) {
		fprintf(stderr, "%s: mkdtemp: %s\n", P, strerror(errno));
		return 1;
	}
	snprintf(name, sizeof name, "benchpipe-%d", (int)getpid());
	snprintf(cname, sizeof cname, "benchceil-%d", (int)getpid());
	snprintf(log, sizeof log, "%s/pipeline.log", dir);
	struct sigaction sa = {.sa_handler = on_int};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	int status = 1;
	pid_t runner = -1;
	struct zka_arena *a = NULL;
	zka_pk pk = {0};
	zka_abc mx = {0};
	uint64_t(*mvs)[4] = NULL; /* mx's values in standard form */
	struct jobbuf b1 = {0}, b2 = {0};
	zka_params prm = {0};
	uint64_t *ids = calloc((size_t)njobs, sizeof *ids);
	double *st[5];
	for (int i = 0; i < 5; i++)
		st[i] = calloc((size_t)njobs, sizeof(double));
	if (!ids || !st[0] || !st[1] || !st[2] || !st[3] || !st[4])
		goto out;
	if (zkey_in) {
		snprintf(zkey, sizeof zkey, "%s", zkey_in);
		snprintf(wtns, sizeof wtns, "%s", wtns_in);
	} else {
		snprintf(zkey, sizeof zkey, "%s/circuit.zkey", dir);
		snprintf(wtns, sizeof wtns, "%s/witness.wtns", dir);
		printf("%s: making a random %s circuit of %d constraints and a test-only key...\n",
		       P, curve->pretty, m);
		fflush(stdout);
		if (make_key(curve, m, be == &zka_backend_cuda, zkey, wtns, err, sizeof err))
			goto fail;
	}
	if (zka_zkey_read(zkey, &pk, err, sizeof err))
		goto fail;
	curve = pk.curve;
	printf("%s: %s, domain 2^%u (%u signals, %u coefficients), %d cores, %d workers x %d "
	       "threads, backend %s with %d in flight\n",
	       P, curve->pretty, pk.log_domain, pk.n_vars, pk.n_coefs, cores, workers, threads,
	       backend, inflight);

	/* 1. synthesis in process */
	size_t n = pk.domain_size;
	double t0 = zka_now();
	if (zka_abc_build(&pk, &mx, err, sizeof err))
		goto fail;
	double t_build = zka_now() - t0;
	if (jobbuf_alloc(&b1, &pk) || jobbuf_alloc(&b2, &pk) || !(mvs = zka_abc_values_std(&mx))) {
		snprintf(err, sizeof err, "out of memory for two jobs' buffers");
		goto fail;
	}
	const uint64_t(*vs)[4] = (const uint64_t(*)[4])mvs;
	double v_old[64], v_one[64], v_t[64];
	for (int i = 0; i < reps && !interrupted; i++) {
		t0 = zka_now();
		if (synth_old(&pk, wtns, b1.abc, b1.w, err, sizeof err))
			goto fail;
		v_old[i] = zka_now() - t0;
		t0 = zka_now();
		if (synth_new(&mx, vs, &pk, wtns, b2.abc, b2.w, b2.wm, 1, err, sizeof err))
			goto fail;
		v_one[i] = zka_now() - t0;
		/* a, b, c as the prover will make them from the slot's a and b (untimed) */
		if (zka_abc_from_slot(pk.curve, (const uint64_t(*)[4])b2.abc,
				      (const uint64_t(*)[4])(b2.abc + n), b2.abc, (uint32_t)n,
				      threads) ||
		    memcmp(b1.abc, b2.abc, 3 * n * 32) ||
		    memcmp(b1.w, b2.w, (size_t)pk.n_vars * 32)) {
			snprintf(err, sizeof err,
				 "the CSR path's slot differs from the previous path's");
			goto fail;
		}
		memset(b2.abc, 0, 3 * n * 32);
		t0 = zka_now();
		if (synth_new(&mx, vs, &pk, wtns, b2.abc, b2.w, b2.wm, threads, err, sizeof err))
			goto fail;
		v_t[i] = zka_now() - t0;
		if (zka_abc_from_slot(pk.curve, (const uint64_t(*)[4])b2.abc,
				      (const uint64_t(*)[4])(b2.abc + n), b2.abc, (uint32_t)n,
				      threads) ||
		    memcmp(b1.abc, b2.abc, 3 * n * 32)) {
			snprintf(err, sizeof err, "the CSR path with %d threads differs", threads);
			goto fail;
		}
	}
	double s_old = median(v_old, reps), s_one = median(v_one, reps), s_t = median(v_t, reps);
	printf(
	    "\nsynthesis of one job in process (medians of %d; outputs byte-identical):\n\n"
	    "| path                                                         | seconds   | vs "
	    "previous |\n"
	    "|--------------------------------------------------------------|-----------|----------"
	    "---|\n"
	    "| previous: .wtns copied, coefficient list, a, b, c, 1 thread  | %9.4f |       1.00x "
	    "|\n"
	    "| CSR (zk/abc.h): a, b and the witness (no c), 1 thread        | %9.4f | %10.2fx |\n"
	    "| CSR, %3d threads                                             | %9.4f | %10.2fx |\n"
	    "| (once per key, at load: building the CSR form)               | %9.4f |             "
	    "|\n",
	    reps, s_old, s_one, s_old / s_one, threads, s_t, s_old / s_t, t_build);
	printf("(row loop: %s, prefetch %u rows ahead; ZKA_ABC_CLASSES, ZKA_ABC_GATHER, "
	       "ZKA_ABC_AHEAD)\n",
	       zka__abc_tune.classes  ? "direct with the class map"
	       : zka__abc_tune.gather ? "gathered per chunk"
				      : "direct",
	       zka__abc_tune.ahead);
	if (sweep) {
		/* the sweep once per row loop of --row-loops, the process's own one without it */
		struct zka__abc_tune saved = zka__abc_tune;
		if (!nv)
			tv[nv++] = zka__abc_tune;
		printf("\nsynthesis throughput in process, W workers x T threads (W T = %d cores), "
		       "jobs/s by row loop:\n\n| W x T   |",
		       cores);
		for (int v = 0; v < nv; v++)
			printf(" %s %2u |",
			       tv[v].classes  ? "classes"
			       : tv[v].gather ? "gather "
					      : "direct ",
			       tv[v].ahead);
		printf("\n|---------|");
		for (int v = 0; v < nv; v++)
			printf("------------|");
		printf("\n");
		for (int T = 1; T <= cores && !interrupted; T *= 2) {
			int W = cores / T;
			int jobs = W * 3 > 6 ? W * 3 : 6;
			printf("| %2d x %-2d |", W, T);
			for (int v = 0; v < nv && !interrupted; v++) {
				zka__abc_tune = tv[v];
				printf(" %10.2f |", sweep_run(&mx, vs, &pk, wtns, W, T, jobs));
				fflush(stdout);
			}
			printf("\n");
		}
		zka__abc_tune = saved;
	}
	jobbuf_free(&b1);
	jobbuf_free(&b2);
	memset(&b1, 0, sizeof b1);
	memset(&b2, 0, sizeof b2);
	zka_abc_free(&mx);
	free(mvs);
	mvs = NULL;
	if (interrupted)
		goto intr;
	if (synth_only) {
		status = 0;
		goto out;
	}

	/* 2. the pipeline */
	struct zka_arena_params ap = {.nslots = (uint32_t)(workers + inflight + 2),
				      .slot_bytes = zka_params_slot_bytes(&pk),
				      .njobs = (uint32_t)(njobs > 64 ? njobs : 64),
				      .numa_node = -1};
	const char *msg = NULL;
	if (zka_arena_create(name, &ap, &a, &msg)) {
		snprintf(err, sizeof err, "arena %s: %s", name, msg ? msg : "cannot create");
		goto fail;
	}
	printf("\npipeline: arena %s, %u slots of %.1f MiB, %d jobs; log %s\n", name, ap.nslots,
	       (double)ap.slot_bytes / (1 << 20), njobs, log);
	fflush(stdout);
	char wk[16], tk[16], ik[16];
	snprintf(wk, sizeof wk, "%d", workers);
	snprintf(tk, sizeof tk, "%d", threads);
	snprintf(ik, sizeof ik, "%d", inflight);
	const char *rargs[] = {name,	     "--workers", wk,	       "--threads", tk,
			       "--inflight", ik,	  "--backend", backend,	    NULL};
	runner = zka_spawn_run(log, rargs);
	if (runner < 0) {
		snprintf(err, sizeof err, "fork: %s", strerror(errno));
		goto fail;
	}
	/* the key's load (params region) happens in the first submit: timed apart. The counters
	 * are read while jobs are submitted too: at 25 ms a submit, 400 jobs take 10 s, and the
	 * pipeline runs meanwhile (read only afterwards, 400 jobs at 2^22 left no window) */
	int k0 = njobs / 10 > inflight * 2 ? njobs / 10 : inflight * 2;
	struct counters c, c0 = {0}, c1 = {0};
	t0 = zka_now();
	for (int i = 0; i < njobs && !interrupted; i++) {
		snprintf(path, sizeof path, "%s/job%05d", dir, i);
		if (mkdir(path, 0755)) {
			snprintf(err, sizeof err, "%.500s: %s", path, strerror(errno));
			goto fail;
		}
		if (zka_client_submit(a, name, zkey, NULL, wtns, path, &ids[i], err, sizeof err))
			goto fail;
		if (i == 0)
			printf("  key loaded into the arena (first submit) in %.2f s\n",
			       zka_now() - t0);
		read_counters(name, &c);
		window_step(&c, &c0, &c1, k0, njobs - inflight - workers);
	}
	int done = 0;
	for (int i = 0; i < njobs && !interrupted; i++) {
		struct zka_job_info ji;
		int r;
		for (;;) {
			r = zka_job_wait(a, ids[i], 100, &ji);
			read_counters(name, &c);
			window_step(&c, &c0, &c1, k0, njobs - inflight - workers);
			if (r != -ETIMEDOUT || interrupted)
				break;
			int rs;
			if (waitpid(runner, &rs, WNOHANG) == runner) {
				runner = -1;
				snprintf(err, sizeof err, "the pipeline stopped (see %.500s)", log);
				goto fail;
			}
		}
		if (interrupted)
			break;
		if (r != 0) {
			snprintf(err, sizeof err, "job %llu failed: %.300s",
				 (unsigned long long)ids[i], r == 1 ? ji.reason : strerror(-r));
			goto fail;
		}
		done++;
		double sv[5];
		zka_job_stages(&ji, sv);
		for (int k = 0; k < 5; k++)
			st[k][i] = sv[k];
		printf("\r  %d/%d done", done, njobs);
		fflush(stdout);
	}
	printf("\n");
	if (interrupted)
		goto intr;
	kill(runner, SIGTERM);
	waitpid(runner, NULL, 0);
	runner = -1;
	if (!c0.ok || !c1.ok || c1.proofs <= c0.proofs) {
		/* the daemon writes its counters once a second: too few jobs for two readings
		 * between the warm-up and the tail */
		snprintf(err, sizeof err,
			 "no steady-state window: the daemon's counters were read %s between proof "
			 "%d and proof %d (%d jobs); use more --jobs",
			 c0.ok ? "once" : "never", k0, njobs - inflight - workers, njobs);
		goto fail;
	}
	double win = (double)(c1.mono_ns - c0.mono_ns) * 1e-9;
	double rate = win > 0 ? (double)(c1.proofs - c0.proofs) / win : 0;
	double busy = win > 0 ? (double)(c1.busy_ns - c0.busy_ns) * 1e-9 / win : 0;
	unsigned long long wp = c1.proofs - c0.proofs;
	double copy_ms = wp ? (double)(c1.copy_ns - c0.copy_ns) * 1e-6 / (double)wp : 0;
	double hidden = c1.copy_ns > c0.copy_ns ? (double)(c1.copy_hidden_ns - c0.copy_hidden_ns) /
						      (double)(c1.copy_ns - c0.copy_ns)
						: 0;
	/* the mean synthesis time of the jobs after the warm-up */
	double mean_synth = 0;
	for (int i = k0; i < njobs; i++)
		mean_synth += st[1][i] / (njobs - k0);

	/* 3. the prover-only ceiling on the same key: the params region the pipeline loaded */
	struct zka_circuit_info ci;
	if (zka_circuit_info(a, 0, &ci) || zka_params_open(ci.params_shm, &prm, err, sizeof err)) {
		if (!err[0])
			snprintf(err, sizeof err, "the pipeline's params region is gone");
		goto fail;
	}
	int creps = njobs / inflight > 3 ? njobs / inflight : 3;
	printf("  prover-only ceiling: %d lane(s) x %d proofs...\n", inflight, creps);
	fflush(stdout);
	double ceil_rate =
	    ceiling(be, cname, &prm, wtns, inflight, creps, threads, err, sizeof err);
	if (ceil_rate < 0)
		goto fail;

	const char *who = be == &zka_backend_cuda ? "GPU" : "prover";
	printf(
	    "\npipeline at steady state (window %.2f s, %llu proofs, after %d warm-up proofs):\n\n"
	    "| measure                                          | value          |\n"
	    "|--------------------------------------------------|----------------|\n"
	    "| proofs/s, pipeline                               | %14.2f |\n"
	    "| proofs/s, prover-only ceiling (same run)         | %14.2f |\n"
	    "| pipeline / ceiling                               | %13.1f%% |\n"
	    "| %-6s busy (the daemon's accounting)            | %13.1f%% |\n"
	    "| synthesis capacity (W / mean synthesis time)     | %9.2f jobs/s |\n"
	    "| input copies per proof                           | %11.2f ms |\n"
	    "| input copies hidden behind another proof         | %13.0f%% |\n",
	    win, wp, k0, rate, ceil_rate, ceil_rate > 0 ? 100 * rate / ceil_rate : 0, who,
	    100 * busy, mean_synth > 0 ? workers / mean_synth : 0, copy_ms, 100 * hidden);
	printf("\n");
	zka_print_stages(st, k0, njobs, "");
	if (win < 2)
		printf("\nnote: the steady-state window is under 2 s; use more --jobs for a "
		       "steadier figure\n");
	status = 0;
	goto out;
intr:
	snprintf(err, sizeof err, "interrupted: cleaning up");
fail:
	fprintf(stderr, "\n%s: %s\n", P, err);
	status = interrupted ? 130 : 1;
out:
	if (runner > 0) {
		kill(runner, SIGTERM);
		waitpid(runner, NULL, 0);
	}
	zka_params_close(&prm);
	if (a) {
		zka_arena_close(a);
		zka_arena_destroy(name);
		zka_pipe_unlink_params(name);
	}
	zka_arena_destroy(cname);
	char rm[PATH_MAX + 16];
	snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
	if (system(rm) != 0)
		fprintf(stderr, "%s: could not remove %s\n", P, dir);
	jobbuf_free(&b1);
	jobbuf_free(&b2);
	zka_abc_free(&mx);
	free(mvs);
	zka_pk_free(&pk);
	free(ids);
	for (int i = 0; i < 5; i++)
		free(st[i]);
	return status;
}
