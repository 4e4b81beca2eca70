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
#include "include/zkarena.h"
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
#include <stdatomic.h>
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
	    "                              [--producer workers|lib|both]\n"
	    "       zkarena bench pipeline --zkey circuit.zkey --wtns witness.wtns [...]\n"
	    "       zkarena bench pipeline --zkey circuit.zkey --input input.json [...]\n"
	    "\n"
	    "--input: every job starts at input.json and a worker computes its witness with the\n"
	    "key's graph (circuit.zkey.wcg, `zkarena import --c` / `witness --c`) before a and b;\n"
	    "the in-process rows use that witness as a .wtns.\n"
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
	    "--ab auto|prover|worker: who computes a and b in the pipeline and the ceiling\n"
	    "    (`zkarena run --ab`; auto: the prover with cuda, the workers with cpu).\n"
	    "--producer: who feeds the pipeline: workers (default: `zkarena run`'s W workers\n"
	    "    take submitted jobs), lib (`zkarena run --workers 0` and W threads of this\n"
	    "    process, each a libzkarena producer: it leases a slot, writes the witness\n"
	    "    into it and commits, the library computing a and b with T threads;\n"
	    "    docs/library.md), or both (the two pipelines one after the other on the same\n"
	    "    key, each table printed, then lib / workers). Not with --input.\n"
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
	int w_only; /* slots of form W: the backend makes a and b (the pipeline's --ab) */
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
		l->rc = l->be->prove(l->ctx, l->lane, l->circuit, l->p,
				     l->w_only ? NULL : (const uint64_t(*)[4])l->v.a,
				     l->w_only ? NULL : (const uint64_t(*)[4])l->v.b,
				     (const uint64_t(*)[4])l->v.w, &rs, &proof, &t, &copy_s, l->err,
				     sizeof l->err);
	}
	return NULL;
}

/* Runs `lanes` lanes of the backend over pre-synthesized slots of arena cname (made here),
 * reps proofs each after one warm-up proof (the key's upload); returns proofs/s or -1. */
static double ceiling(const zka_backend *be, const char *cname, const zka_params *p,
		      const char *wtns, int lanes, int reps, int threads, int w_only, char *err,
		      size_t errlen)
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
		l[i] = (struct ceil_lane){
		    .be = be, .ctx = ctx, .lane = i, .reps = 1, .p = p, .w_only = w_only};
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

enum { PROD_WORKERS, PROD_LIB, PROD_BOTH };

/* The benchmark: its settings, what it made (removed by bpp_cleanup), and its figures. */
struct bpipe {
	const zka_curve *curve;
	const char *backend, *zkey_in, *wtns_in, *input; /* input: jobs start at input.json */
	const char *ab;					 /* --ab for the workers (auto) */
	int ab_prover; /* the workers leave a and b to the prover (--ab prover, or auto and cuda) */
	int m, njobs, workers, threads, inflight, reps, sweep, synth_only;
	int producer, lib;   /* --producer: PROD_*; lib: this pipeline is fed by libzkarena */
	_Atomic int lib_err; /* a producer thread failed (its reason in lib_why) */
	char lib_why[1024];
	struct zka__abc_tune tv[ROW_LOOPS_MAX];
	int nv; /* --row-loops given: nv row loops in tv */
	const zka_backend *be;
	int cores;
	char dir[40], name[64], cname[64], zkey[PATH_MAX], wtns[PATH_MAX], log[PATH_MAX], err[1024];
	pid_t runner;
	struct zka_arena *a;
	zka_pk pk;
	zka_abc mx;
	uint64_t (*mvs)[4]; /* mx's values in standard form */
	struct jobbuf b1, b2;
	zka_params prm;
	uint64_t *ids;
	double *st[ZKA_STAGES];
	int k0;			/* warm-up proofs before the steady-state window */
	struct counters c0, c1; /* the window's first and last readings */
	/* the steady state (bpp_window) and the ceiling (bpp_ceiling) */
	double win, rate, busy, copy_ms, hidden, mean_synth, ceil_rate;
	unsigned long long wp;
};

static const char *const P = "zkarena bench pipeline";

/* Parses the options into b, then the defaults of `zkarena run`: -1 to go on, else the exit
 * status (help, bad usage). */
static int bpp_options(int argc, char **argv, struct bpipe *b)
{
	static const struct option opts[] = {
	    {"curve", required_argument, 0, 'c'},    {"constraints", required_argument, 0, 'm'},
	    {"jobs", required_argument, 0, 'j'},     {"workers", required_argument, 0, 'w'},
	    {"threads", required_argument, 0, 't'},  {"inflight", required_argument, 0, 'i'},
	    {"backend", required_argument, 0, 'b'},  {"reps", required_argument, 0, 'r'},
	    {"zkey", required_argument, 0, 'z'},     {"wtns", required_argument, 0, 'x'},
	    {"input", required_argument, 0, 'I'},    {"sweep", no_argument, 0, 's'},
	    {"synth-only", no_argument, 0, 'S'},     {"row-loops", required_argument, 0, 'L'},
	    {"producer", required_argument, 0, 'P'}, {"ab", required_argument, 0, 'A'},
	    {"help", no_argument, 0, 'h'},	     {0, 0, 0, 0}};
	int opt;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			if (!(b->curve = zka_curve_by_name(optarg))) {
				fprintf(stderr,
					"%s: --curve: unknown curve '%s' (bn128, bls12381)\n", P,
					optarg);
				return 2;
			}
			break;
		case 'm':
			if (zka_opt_int(P, "--constraints", optarg, 1, 1 << 26, &b->m))
				return 2;
			break;
		case 'A':
			enum zka_ab_mode m;
			if (zka_ab_mode_parse(optarg, &m)) {
				fprintf(stderr, "%s: --ab: '%s' is not auto, prover or worker\n", P,
					optarg);
				return 2;
			}
			b->ab = optarg;
			break;
		case 'j':
			if (zka_opt_int(P, "--jobs", optarg, 4, 100000, &b->njobs))
				return 2;
			break;
		case 'w':
			if (zka_opt_int(P, "--workers", optarg, 1, 256, &b->workers))
				return 2;
			break;
		case 't':
			if (zka_opt_int(P, "--threads", optarg, 1, 1024, &b->threads))
				return 2;
			break;
		case 'i':
			if (zka_opt_int(P, "--inflight", optarg, 1, ZKA_LANES_MAX, &b->inflight))
				return 2;
			break;
		case 'r':
			if (zka_opt_int(P, "--reps", optarg, 1, 64, &b->reps))
				return 2;
			break;
		case 'b':
			if (strcmp(optarg, "cpu") && strcmp(optarg, "cuda")) {
				fprintf(stderr, "%s: --backend: '%s' is not cpu or cuda\n", P,
					optarg);
				return 2;
			}
			b->backend = optarg;
			break;
		case 'z':
			b->zkey_in = optarg;
			break;
		case 'x':
			b->wtns_in = optarg;
			break;
		case 'I':
			b->input = optarg;
			break;
		case 's':
			b->sweep = 1;
			break;
		case 'S':
			b->synth_only = 1;
			break;
		case 'P':
			if (!strcmp(optarg, "workers"))
				b->producer = PROD_WORKERS;
			else if (!strcmp(optarg, "lib"))
				b->producer = PROD_LIB;
			else if (!strcmp(optarg, "both"))
				b->producer = PROD_BOTH;
			else {
				fprintf(stderr,
					"%s: --producer: '%s' is not workers, lib or both\n", P,
					optarg);
				return 2;
			}
			break;
		case 'L':
			if ((b->nv = parse_row_loops(optarg, b->tv)) < 0) {
				fprintf(stderr,
					"%s: --row-loops: '%s': want G:A[:K],... (at most %d) with "
					"G and "
					"K 0 or 1 and A 1-64\n",
					P, optarg, ROW_LOOPS_MAX);
				return 2;
			}
			b->sweep = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return zka_cli_bad_option(argc, argv);
		}
	}
	if (optind != argc || (!b->input && !b->zkey_in != !b->wtns_in) ||
	    (b->input && (!b->zkey_in || b->wtns_in)) ||
	    (b->input && b->producer != PROD_WORKERS)) {
		fprintf(stderr, "%s: %s (see --help)\n", P,
			optind != argc ? "unexpected arguments"
			: b->input && b->producer != PROD_WORKERS
			    ? "--producer lib/both takes --wtns, not --input (the library's jobs "
			      "start from a witness)"
			: b->input ? "--input goes with --zkey (and without --wtns)"
				   : "--zkey and --wtns go together");
		return 2;
	}
	b->be = strcmp(b->backend, "cuda") ? &zka_backend_cpu : &zka_backend_cuda;
	/* the workers' choice under --ab auto: the prover when the gpud is cuda */
	b->ab_prover =
	    !strcmp(b->ab, "prover") || (!strcmp(b->ab, "auto") && b->be == &zka_backend_cuda);
	b->cores = zka_par_threads(0);
	/* the defaults of `zkarena run` */
	zka_run_shape(b->cores, &b->workers, &b->threads);
	if (!b->inflight)
		b->inflight = b->be == &zka_backend_cuda ? 2 : 1;
	return -1;
}

/* The key and witness (--zkey/--wtns, or a random circuit's made in b->dir), the key read
 * into b->pk, and the run's title line. 0, or -1 with b->err set. */
static int bpp_key(struct bpipe *b)
{
	if (b->input) {
		/* the in-process stages (synthesis, the ceiling) read this .wtns; the jobs start
		 * at input.json, their witnesses computed by the workers */
		zka_witness w;
		snprintf(b->zkey, sizeof b->zkey, "%s", b->zkey_in);
		snprintf(b->wtns, sizeof b->wtns, "%s/witness.wtns", b->dir);
		if (zka_witness_from_input(b->zkey, b->input, &w, NULL, b->err, sizeof b->err))
			return -1;
		int r = zka_wtns_write(b->wtns, &w, b->err, sizeof b->err);
		zka_witness_free(&w);
		if (r)
			return -1;
		printf("%s: jobs start at %s: the workers compute each witness with %s.wcg\n", P,
		       b->input, b->zkey);
	} else if (b->zkey_in) {
		snprintf(b->zkey, sizeof b->zkey, "%s", b->zkey_in);
		snprintf(b->wtns, sizeof b->wtns, "%s", b->wtns_in);
	} else {
		snprintf(b->zkey, sizeof b->zkey, "%s/circuit.zkey", b->dir);
		snprintf(b->wtns, sizeof b->wtns, "%s/witness.wtns", b->dir);
		printf("%s: making a random %s circuit of %d constraints and a test-only key...\n",
		       P, b->curve->pretty, b->m);
		fflush(stdout);
		if (make_key(b->curve, b->m, b->be == &zka_backend_cuda, b->zkey, b->wtns, b->err,
			     sizeof b->err))
			return -1;
	}
	if (zka_zkey_read(b->zkey, &b->pk, b->err, sizeof b->err))
		return -1;
	b->curve = b->pk.curve;
	printf("%s: %s, domain 2^%u (%u signals, %u coefficients), %d cores, %d workers x %d "
	       "threads, backend %s with %d in flight\n",
	       P, b->curve->pretty, b->pk.log_domain, b->pk.n_vars, b->pk.n_coefs, b->cores,
	       b->workers, b->threads, b->backend, b->inflight);
	return 0;
}

/* --sweep: synthesis jobs/s in process for W workers x T threads (W T = the cores), once
 * per row loop of --row-loops (the process's own without it). */
static void bpp_sweep(struct bpipe *b, const uint64_t (*vs)[4])
{
	/* the sweep once per row loop of --row-loops, the process's own one without it */
	struct zka__abc_tune saved = zka__abc_tune;
	if (!b->nv)
		b->tv[b->nv++] = zka__abc_tune;
	printf("\nsynthesis throughput in process, W workers x T threads (W T = %d cores), "
	       "jobs/s by row loop:\n\n| W x T   |",
	       b->cores);
	for (int v = 0; v < b->nv; v++)
		printf(" %s %2u |",
		       b->tv[v].classes	 ? "classes"
		       : b->tv[v].gather ? "gather "
					 : "direct ",
		       b->tv[v].ahead);
	printf("\n|---------|");
	for (int v = 0; v < b->nv; v++)
		printf("------------|");
	printf("\n");
	for (int T = 1; T <= b->cores && !interrupted; T *= 2) {
		int W = b->cores / T;
		int jobs = W * 3 > 6 ? W * 3 : 6;
		printf("| %2d x %-2d |", W, T);
		for (int v = 0; v < b->nv && !interrupted; v++) {
			zka__abc_tune = b->tv[v];
			printf(" %10.2f |", sweep_run(&b->mx, vs, &b->pk, b->wtns, W, T, jobs));
			fflush(stdout);
		}
		printf("\n");
	}
	zka__abc_tune = saved;
}

/* 1. Synthesis of one job in process: the previous path against the CSR one, one thread and
 * T threads, outputs compared byte for byte; then the --sweep table. 0, or -1 with b->err set
 * (also when interrupted). */
static int bpp_synthesis(struct bpipe *b)
{
	size_t n = b->pk.domain_size;
	double t0 = zka_now();
	if (zka_abc_build(&b->pk, &b->mx, b->err, sizeof b->err))
		return -1;
	double t_build = zka_now() - t0;
	if (jobbuf_alloc(&b->b1, &b->pk) || jobbuf_alloc(&b->b2, &b->pk) ||
	    !(b->mvs = zka_abc_values_std(&b->mx))) {
		snprintf(b->err, sizeof b->err, "out of memory for two jobs' buffers");
		return -1;
	}
	const uint64_t(*vs)[4] = (const uint64_t(*)[4])b->mvs;
	double v_old[64], v_one[64], v_t[64];
	for (int i = 0; i < b->reps && !interrupted; i++) {
		t0 = zka_now();
		if (synth_old(&b->pk, b->wtns, b->b1.abc, b->b1.w, b->err, sizeof b->err))
			return -1;
		v_old[i] = zka_now() - t0;
		t0 = zka_now();
		if (synth_new(&b->mx, vs, &b->pk, b->wtns, b->b2.abc, b->b2.w, b->b2.wm, 1, b->err,
			      sizeof b->err))
			return -1;
		v_one[i] = zka_now() - t0;
		/* a, b, c as the prover will make them from the slot's a and b (untimed) */
		if (zka_abc_from_slot(b->pk.curve, (const uint64_t(*)[4])b->b2.abc,
				      (const uint64_t(*)[4])(b->b2.abc + n), b->b2.abc, (uint32_t)n,
				      b->threads) ||
		    memcmp(b->b1.abc, b->b2.abc, 3 * n * 32) ||
		    memcmp(b->b1.w, b->b2.w, (size_t)b->pk.n_vars * 32)) {
			snprintf(b->err, sizeof b->err,
				 "the CSR path's slot differs from the previous path's");
			return -1;
		}
		memset(b->b2.abc, 0, 3 * n * 32);
		t0 = zka_now();
		if (synth_new(&b->mx, vs, &b->pk, b->wtns, b->b2.abc, b->b2.w, b->b2.wm, b->threads,
			      b->err, sizeof b->err))
			return -1;
		v_t[i] = zka_now() - t0;
		if (zka_abc_from_slot(b->pk.curve, (const uint64_t(*)[4])b->b2.abc,
				      (const uint64_t(*)[4])(b->b2.abc + n), b->b2.abc, (uint32_t)n,
				      b->threads) ||
		    memcmp(b->b1.abc, b->b2.abc, 3 * n * 32)) {
			snprintf(b->err, sizeof b->err, "the CSR path with %d threads differs",
				 b->threads);
			return -1;
		}
	}
	double s_old = median(v_old, b->reps), s_one = median(v_one, b->reps),
	       s_t = median(v_t, b->reps);
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
	    b->reps, s_old, s_one, s_old / s_one, b->threads, s_t, s_old / s_t, t_build);
	printf("(row loop: %s, prefetch %u rows ahead; ZKA_ABC_CLASSES, ZKA_ABC_GATHER, "
	       "ZKA_ABC_AHEAD)\n",
	       zka__abc_tune.classes  ? "direct with the class map"
	       : zka__abc_tune.gather ? "gathered per chunk"
				      : "direct",
	       zka__abc_tune.ahead);
	if (b->sweep)
		bpp_sweep(b, vs);
	jobbuf_free(&b->b1);
	jobbuf_free(&b->b2);
	memset(&b->b1, 0, sizeof b->b1);
	memset(&b->b2, 0, sizeof b->b2);
	zka_abc_free(&b->mx);
	free(b->mvs);
	b->mvs = NULL;
	if (interrupted) {
		snprintf(b->err, sizeof b->err, "interrupted: cleaning up");
		return -1;
	}
	return 0;
}

/* 2. The pipeline: an arena with a slot per worker and lane plus two, and `zkarena run` on
 * it. 0, or -1 with b->err set. */
static int bpp_start(struct bpipe *b)
{
	struct zka_arena_params ap = {.nslots = (uint32_t)(b->workers + b->inflight + 2),
				      .slot_bytes = zka_params_slot_bytes(&b->pk),
				      .njobs = (uint32_t)(b->njobs > 64 ? b->njobs : 64),
				      .numa_node = -1};
	const char *msg = NULL;
	if (zka_arena_create(b->name, &ap, &b->a, &msg)) {
		snprintf(b->err, sizeof b->err, "arena %s: %s", b->name,
			 msg ? msg : "cannot create");
		return -1;
	}
	printf("\npipeline fed by %s: arena %s, %u slots of %.1f MiB, %d jobs; a and b made by "
	       "%s; log %s\n",
	       b->lib ? "libzkarena producers (`zkarena run --workers 0`)" : "the built-in workers",
	       b->name, ap.nslots, (double)ap.slot_bytes / (1 << 20), b->njobs,
	       b->lib ? "the library or the prover (ZKA_LIB_AB, default auto: the library says "
			"which in one line)"
	       : b->ab_prover ? (strcmp(b->ab, "auto")
				     ? "the prover (--ab prover: slots hold the witness)"
				     : "the prover (--ab auto with cuda: slots hold the witness)")
			      : "the workers",
	       b->log);
	fflush(stdout);
	char wk[16], tk[16], ik[16];
	snprintf(wk, sizeof wk, "%d", b->workers);
	snprintf(tk, sizeof tk, "%d", b->threads);
	snprintf(ik, sizeof ik, "%d", b->inflight);
	if (b->lib)
		snprintf(wk, sizeof wk, "0"); /* the gpud only: the producers are this process's */
	const char *rargs[] = {b->name, "--workers", wk,	 "--threads", tk,    "--inflight",
			       ik,	"--backend", b->backend, "--ab",      b->ab, NULL};
	b->runner = zka_spawn_run(b->log, rargs);
	if (b->runner < 0) {
		snprintf(b->err, sizeof b->err, "fork: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Submits the jobs, reading the daemon's counters meanwhile (the steady-state window may
 * open while jobs are still submitted). 0, or -1 with b->err set. */
static int bpp_submit(struct bpipe *b)
{
	char path[PATH_MAX];
	double t0;
	/* the key's load (params region) happens in the first submit: timed apart. The counters
	 * are read while jobs are submitted too: at 25 ms a submit, 400 jobs take 10 s, and the
	 * pipeline runs meanwhile (read only afterwards, 400 jobs at 2^22 left no window) */
	b->k0 = b->njobs / 10 > b->inflight * 2 ? b->njobs / 10 : b->inflight * 2;
	struct counters c;
	t0 = zka_now();
	for (int i = 0; i < b->njobs && !interrupted; i++) {
		snprintf(path, sizeof path, "%s/job%05d", b->dir, i);
		if (mkdir(path, 0755)) {
			snprintf(b->err, sizeof b->err, "%.500s: %s", path, strerror(errno));
			return -1;
		}
		if (zka_client_submit(b->a, b->name, b->zkey, NULL, b->input ? b->input : b->wtns,
				      path, &b->ids[i], b->err, sizeof b->err))
			return -1;
		if (i == 0)
			printf("  key loaded into the arena (first submit) in %.2f s\n",
			       zka_now() - t0);
		read_counters(b->name, &c);
		window_step(&c, &b->c0, &b->c1, b->k0, b->njobs - b->inflight - b->workers);
	}
	return 0;
}

/* Waits for every job in turn, reading the counters, keeping the stage times. 0, or -1 with
 * b->err set (a failed job, the pipeline stopped, or interrupted). */
static int bpp_wait(struct bpipe *b)
{
	struct counters c;
	int done = 0;
	for (int i = 0; i < b->njobs && !interrupted; i++) {
		struct zka_job_info ji;
		int r;
		/* libzkarena producers publish each id after its commit */
		while (b->lib && !atomic_load((_Atomic uint64_t *)&b->ids[i]) &&
		       !atomic_load(&b->lib_err) && !interrupted) {
			struct timespec ts = {0, 1000000};
			nanosleep(&ts, NULL);
		}
		if (b->lib && atomic_load(&b->lib_err)) {
			snprintf(b->err, sizeof b->err, "libzkarena producer: %.900s", b->lib_why);
			return -1;
		}
		for (;;) {
			r = zka_job_wait(b->a, b->ids[i], 100, &ji);
			read_counters(b->name, &c);
			window_step(&c, &b->c0, &b->c1, b->k0, b->njobs - b->inflight - b->workers);
			if (r != -ETIMEDOUT || interrupted)
				break;
			int rs;
			if (waitpid(b->runner, &rs, WNOHANG) == b->runner) {
				b->runner = -1;
				snprintf(b->err, sizeof b->err, "the pipeline stopped (see %.500s)",
					 b->log);
				return -1;
			}
		}
		if (interrupted)
			break;
		if (r != 0) {
			snprintf(b->err, sizeof b->err, "job %llu failed: %.300s",
				 (unsigned long long)b->ids[i], r == 1 ? ji.reason : strerror(-r));
			return -1;
		}
		done++;
		double sv[ZKA_STAGES];
		zka_job_stages(&ji, sv);
		for (int k = 0; k < ZKA_STAGES; k++)
			b->st[k][i] = sv[k];
		printf("\r  %d/%d done", done, b->njobs);
		fflush(stdout);
	}
	printf("\n");
	if (interrupted) {
		snprintf(b->err, sizeof b->err, "interrupted: cleaning up");
		return -1;
	}
	kill(b->runner, SIGTERM);
	waitpid(b->runner, NULL, 0);
	b->runner = -1;
	return 0;
}

/* ---- --producer lib: libzkarena producers in this process ---- */

/* The witness values every producer writes (the .wtns read once: a producer's synthesis is
 * its own; here, a copy from memory into the slot). */
struct lfeed {
	struct bpipe *b;
	const uint8_t *w;
	uint32_t n;
	_Atomic int next;
};

static void lib_fail(struct bpipe *b, const char *what)
{
	int z = 0;
	if (atomic_compare_exchange_strong(&b->lib_err, &z, 1))
		snprintf(b->lib_why, sizeof b->lib_why, "%s: %s", what, zka_lib_error());
}

/* One producer: its own zka_lib; takes job numbers until all are given out; for each, leases
 * a slot, writes the witness, commits (the library computes a and b with T threads) and
 * publishes the job's id for bpp_wait. */
static void *lib_feed(void *arg)
{
	struct lfeed *f = arg;
	struct bpipe *b = f->b;
	zka_lib *lib;
	zka_lib_key *key;
	char path[PATH_MAX];
	if (zka_lib_open(b->name, &lib)) {
		lib_fail(b, "open");
		return NULL;
	}
	zka_lib_set_threads(lib, b->threads);
	if (zka_lib_key_open(lib, b->zkey, &key)) {
		lib_fail(b, "key");
		goto out;
	}
	for (int i; (i = atomic_fetch_add(&f->next, 1)) < b->njobs && !interrupted &&
		    !atomic_load(&b->lib_err);) {
		zka_lib_job *j = NULL;
		struct zka_lib_regions r;
		int rc;
		snprintf(path, sizeof path, "%s/lib%05d", b->dir, i);
		if (mkdir(path, 0755)) {
			int z = 0;
			if (atomic_compare_exchange_strong(&b->lib_err, &z, 1))
				snprintf(b->lib_why, sizeof b->lib_why, "%.500s: %s", path,
					 strerror(errno));
			break;
		}
		while ((rc = zka_lib_begin(key, ZKA_LIB_WITNESS, path, 500, &j, &r)) ==
			   -ETIMEDOUT &&
		       !interrupted && !atomic_load(&b->lib_err))
			;
		if (rc) {
			if (!interrupted && rc != -ETIMEDOUT)
				lib_fail(b, "begin");
			break;
		}
		memcpy(r.witness, f->w, (size_t)f->n * 32);
		if (zka_lib_commit(j, f->n, 0, 0)) {
			lib_fail(b, "commit");
			zka_lib_job_free(j);
			break;
		}
		atomic_store((_Atomic uint64_t *)&b->ids[i], zka_lib_job_id(j));
		zka_lib_job_free(j); /* committed: the record stays until bpp_wait reads it */
	}
out:
	zka_lib_close(lib);
	return NULL;
}

/* Feeds the pipeline from W producer threads (joined after bpp_wait: th, *nth). 0, or -1
 * with b->err set. */
static int bpp_feed_lib(struct bpipe *b, struct lfeed *f, zka_witness *w, pthread_t *th, int *nth)
{
	zka_lib *lib = NULL;
	zka_lib_key *key;
	double t0 = zka_now();
	b->k0 = b->njobs / 10 > b->inflight * 2 ? b->njobs / 10 : b->inflight * 2;
	if (zka_wtns_read(b->wtns, w, b->err, sizeof b->err))
		return -1;
	/* the key's load into the arena, timed apart (the producers then find it loaded) */
	if (zka_lib_open(b->name, &lib) || zka_lib_key_open(lib, b->zkey, &key)) {
		snprintf(b->err, sizeof b->err, "libzkarena: %.900s", zka_lib_error());
		zka_lib_close(lib);
		return -1;
	}
	zka_lib_close(lib);
	printf("  key loaded into the arena (zka_lib_key_open) in %.2f s; %d producers x %d "
	       "threads\n",
	       zka_now() - t0, b->workers, b->threads);
	*f = (struct lfeed){.b = b, .w = (const uint8_t *)w->w, .n = w->n};
	for (*nth = 0; *nth < b->workers && *nth < 256; (*nth)++)
		if (pthread_create(&th[*nth], NULL, lib_feed, f)) {
			snprintf(b->err, sizeof b->err, "cannot start producer threads");
			return -1;
		}
	return 0;
}

/* Between the two pipelines of --producer both: the first one's figures and stage times
 * kept in *saved; its arena and params regions removed. 0, or -1 (out of memory). */
static int bpp_reset(struct bpipe *b, struct bpipe *saved)
{
	*saved = *b;
	zka_arena_close(b->a);
	zka_arena_destroy(b->name);
	zka_pipe_unlink_params(b->name);
	b->a = NULL;
	memset(b->ids, 0, (size_t)b->njobs * sizeof *b->ids);
	b->c0 = b->c1 = (struct counters){0};
	for (int i = 0; i < ZKA_STAGES; i++)
		b->st[i] = calloc((size_t)b->njobs, sizeof(double));
	for (int i = 0; i < ZKA_STAGES; i++)
		if (!b->st[i])
			return -1;
	return 0;
}

/* The steady-state figures from the window's two readings and the jobs' stage times. 0, or
 * -1 with b->err set when the window never opened. */
static int bpp_window(struct bpipe *b)
{
	if (!b->c0.ok || !b->c1.ok || b->c1.proofs <= b->c0.proofs) {
		/* the daemon writes its counters once a second: too few jobs for two readings
		 * between the warm-up and the tail */
		snprintf(b->err, sizeof b->err,
			 "no steady-state window: the daemon's counters were read %s between proof "
			 "%d and proof %d (%d jobs); use more --jobs",
			 b->c0.ok ? "once" : "never", b->k0, b->njobs - b->inflight - b->workers,
			 b->njobs);
		return -1;
	}
	b->win = (double)(b->c1.mono_ns - b->c0.mono_ns) * 1e-9;
	b->rate = b->win > 0 ? (double)(b->c1.proofs - b->c0.proofs) / b->win : 0;
	b->busy = b->win > 0 ? (double)(b->c1.busy_ns - b->c0.busy_ns) * 1e-9 / b->win : 0;
	b->wp = b->c1.proofs - b->c0.proofs;
	b->copy_ms = b->wp ? (double)(b->c1.copy_ns - b->c0.copy_ns) * 1e-6 / (double)b->wp : 0;
	b->hidden = b->c1.copy_ns > b->c0.copy_ns
			? (double)(b->c1.copy_hidden_ns - b->c0.copy_hidden_ns) /
			      (double)(b->c1.copy_ns - b->c0.copy_ns)
			: 0;
	/* the mean synthesis time of the jobs after the warm-up */
	b->mean_synth = 0;
	for (int i = b->k0; i < b->njobs; i++)
		b->mean_synth += b->st[1][i] / (b->njobs - b->k0);
	return 0;
}

/* 3. The prover-only ceiling on the same key, from the params region the pipeline loaded. 0,
 * or -1 with b->err set. */
static int bpp_ceiling(struct bpipe *b)
{
	struct zka_circuit_info ci;
	if (zka_circuit_info(b->a, 0, &ci) ||
	    zka_params_open(ci.params_shm, &b->prm, b->err, sizeof b->err)) {
		if (!b->err[0])
			snprintf(b->err, sizeof b->err, "the pipeline's params region is gone");
		return -1;
	}
	int creps = b->njobs / b->inflight > 3 ? b->njobs / b->inflight : 3;
	printf("  prover-only ceiling: %d lane(s) x %d proofs...\n", b->inflight, creps);
	fflush(stdout);
	b->ceil_rate = ceiling(b->be, b->cname, &b->prm, b->wtns, b->inflight, creps, b->threads,
			       b->ab_prover && !b->lib, b->err, sizeof b->err);
	if (b->ceil_rate < 0)
		return -1;
	return 0;
}

/* The steady-state table and the stage times after the warm-up. */
static void bpp_report(const struct bpipe *b)
{
	const char *who = b->be == &zka_backend_cuda ? "GPU" : "prover";
	printf("\n%s:", b->lib ? "fed by libzkarena" : "fed by the built-in workers");
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
	    b->win, b->wp, b->k0, b->rate, b->ceil_rate,
	    b->ceil_rate > 0 ? 100 * b->rate / b->ceil_rate : 0, who, 100 * b->busy,
	    b->mean_synth > 0 ? b->workers / b->mean_synth : 0, b->copy_ms, 100 * b->hidden);
	printf("\n");
	zka_print_stages(b->st, b->k0, b->njobs, "");
	if (b->win < 2)
		printf("\nnote: the steady-state window is under 2 s; use more --jobs for a "
		       "steadier figure\n");
}

/* Stops the pipeline and removes what the benchmark made: both arenas, the params regions,
 * the temporary directory; frees the rest. */
static void bpp_cleanup(struct bpipe *b)
{
	if (b->runner > 0) {
		kill(b->runner, SIGTERM);
		waitpid(b->runner, NULL, 0);
	}
	zka_params_close(&b->prm);
	if (b->a) {
		zka_arena_close(b->a);
		zka_arena_destroy(b->name);
		zka_pipe_unlink_params(b->name);
	}
	zka_arena_destroy(b->cname);
	char rm[PATH_MAX + 16];
	snprintf(rm, sizeof rm, "rm -rf '%s'", b->dir);
	if (system(rm) != 0)
		fprintf(stderr, "%s: could not remove %s\n", P, b->dir);
	jobbuf_free(&b->b1);
	jobbuf_free(&b->b2);
	zka_abc_free(&b->mx);
	free(b->mvs);
	zka_pk_free(&b->pk);
	free(b->ids);
	for (int i = 0; i < ZKA_STAGES; i++)
		free(b->st[i]);
}

int zka_bench_pipeline(int argc, char **argv)
{
	struct bpipe b0 = {.curve = &zka_curve_bn254,
			   .backend = "cpu",
			   .ab = "auto",
			   .m = 65536,
			   .njobs = 40,
			   .reps = 3,
			   .dir = "/tmp/zkarena-benchpipe-XXXXXX",
			   .runner = -1};
	struct bpipe *b = &b0;
	int status = bpp_options(argc, argv, b);
	if (status >= 0)
		return status;
	if (!mkdtemp(b->dir)) {
		fprintf(stderr, "%s: mkdtemp: %s\n", P, strerror(errno));
		return 1;
	}
	snprintf(b->name, sizeof b->name, "benchpipe-%d", (int)getpid());
	snprintf(b->cname, sizeof b->cname, "benchceil-%d", (int)getpid());
	snprintf(b->log, sizeof b->log, "%s/pipeline.log", b->dir);
	struct sigaction sa = {.sa_handler = on_int};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	status = 1;
	b->ids = calloc((size_t)b->njobs, sizeof *b->ids);
	for (int i = 0; i < ZKA_STAGES; i++)
		b->st[i] = calloc((size_t)b->njobs, sizeof(double));
	if (!b->ids || !b->st[0] || !b->st[1] || !b->st[2] || !b->st[3] || !b->st[4] || !b->st[5])
		goto out;
	if (bpp_key(b) || bpp_synthesis(b))
		goto err;
	if (b->synth_only) {
		status = 0;
		goto out;
	}
	struct bpipe first = {0};
	int runs = b->producer == PROD_BOTH ? 2 : 1;
	for (int k = 0; k < runs; k++) {
		b->lib = b->producer == PROD_LIB || (b->producer == PROD_BOTH && k == 1);
		if (k == 1 && bpp_reset(b, &first)) {
			snprintf(b->err, sizeof b->err, "out of memory");
			goto err;
		}
		struct lfeed feed;
		zka_witness w = {0};
		pthread_t th[256];
		int nth = 0;
		int r = bpp_start(b) ||
			(b->lib ? bpp_feed_lib(b, &feed, &w, th, &nth) : bpp_submit(b)) ||
			bpp_wait(b);
		if (r) /* the producers stop at their next job */
			atomic_store(&b->lib_err, 1);
		for (int i = 0; i < nth; i++)
			pthread_join(th[i], NULL);
		zka_witness_free(&w);
		if (r || bpp_window(b) || (k == 0 && bpp_ceiling(b)))
			goto err;
		if (k == 1)
			b->ceil_rate = first.ceil_rate;
		bpp_report(b);
	}
	if (runs == 2) {
		const char *who = b->be == &zka_backend_cuda ? "GPU   " : "prover";
		printf("\n| producer              | proofs/s | %s busy | vs ceiling |\n"
		       "|-----------------------|----------|-------------|------------|\n"
		       "| built-in workers      | %8.2f | %10.1f%% | %9.1f%% |\n"
		       "| libzkarena producers  | %8.2f | %10.1f%% | %9.1f%% |\n"
		       "\nlibzkarena / built-in workers: %.1f%% of the proofs/s\n",
		       who, first.rate, 100 * first.busy,
		       b->ceil_rate > 0 ? 100 * first.rate / b->ceil_rate : 0, b->rate,
		       100 * b->busy, b->ceil_rate > 0 ? 100 * b->rate / b->ceil_rate : 0,
		       first.rate > 0 ? 100 * b->rate / first.rate : 0);
		for (int i = 0; i < ZKA_STAGES; i++)
			free(first.st[i]);
	}
	status = 0;
	goto out;

err:
	fprintf(stderr, "\n%s: %s\n", P, b->err);
	status = interrupted ? 130 : 1;
out:
	bpp_cleanup(b);
	return status;
}
