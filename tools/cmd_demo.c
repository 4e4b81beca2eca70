/* cmd_demo.c - `zkarena demo`: the whole pipeline on a circuit made in code. A temporary
 * arena and keys from the test-only setup, `zkarena run` with W workers, a few dozen proofs
 * submitted at once with a live progress line, every proof read back and verified, then a
 * table of per-stage times. Everything it made is removed at the end, also after Ctrl-C. */
#include "synth/client.h"
#include "synth/pipe.h"
#include "tools/cli.h"
#include "tools/util.h"
#include "zk/groth16.h"
#include "zk/json_io.h"
#include "zk/opt.h"
#include "zk/r1cs.h"
#include "zk/setup.h"
#include "zk/synthetic.h"
#include "zk/wtns.h"
#include "zk/zkey.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
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
	    "usage: zkarena demo [--jobs N] [--workers W] [--constraints M] [--curve "
	    "bn128|bls12381]\n"
	    "                    [--backend cpu|cuda]\n\n"
	    "Runs the whole pipeline on a random circuit of M constraints (default 4000) keyed by\n"
	    "the test-only setup: a temporary arena, `zkarena run` with W synthesis workers\n"
	    "(default 2) and one prover, N proofs (default 32) with a live progress line, every\n"
	    "proof verified, then per-stage times (p50/p99) and proofs/s. Cleans up after itself,\n"
	    "also on Ctrl-C. The prover log is kept in the temporary directory until the end.\n");
}

/* The demo's settings and everything it made (removed by demo_cleanup). */
struct demo {
	int njobs, workers, m;
	const zka_curve *curve;
	const char *backend;
	char dir[32], name[64], zkey[PATH_MAX], wtns[PATH_MAX], log[PATH_MAX], err[1024];
	pid_t runner;
	struct zka_arena *a;
	uint64_t *ids;
	double *st[ZKA_STAGES];
	zka_r1cs cs;
	zka_witness w;
	zka_pk pk;
	zka_vk vk;
	int done, failed, verified;
	double t0, elapsed;
};

/* Parses the options into d: -1 to go on, else the exit status (help, bad usage). */
static int demo_options(int argc, char **argv, struct demo *d)
{
	static const struct option opts[] = {{"jobs", required_argument, 0, 'j'},
					     {"workers", required_argument, 0, 'w'},
					     {"constraints", required_argument, 0, 'm'},
					     {"curve", required_argument, 0, 'c'},
					     {"backend", required_argument, 0, 'b'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	int opt;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			if (zka_opt_int("zkarena demo", "--jobs", optarg, 1, 4096, &d->njobs))
				return 2;
			break;
		case 'w':
			if (zka_opt_int("zkarena demo", "--workers", optarg, 1, 64, &d->workers))
				return 2;
			break;
		case 'm':
			if (zka_opt_int("zkarena demo", "--constraints", optarg, 1, 1 << 24, &d->m))
				return 2;
			break;
		case 'c':
			if (!(d->curve = zka_curve_by_name(optarg))) {
				fprintf(stderr, "zkarena demo: --curve: unknown curve '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'b':
			d->backend = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return zka_cli_bad_option(argc, argv);
		}
	}
	if (d->njobs < 1 || d->njobs > 4096 || d->workers < 1 || d->workers > 64 || d->m < 1 ||
	    d->m > (1 << 24)) {
		fprintf(stderr, "zkarena demo: --jobs in 1..4096, --workers in 1..64, "
				"--constraints in 1..2^24\n");
		return 2;
	}
	return -1;
}

/* A random circuit of m constraints, test-only keys for it, the key and witness files. 0, or
 * -1 with d->err set. */
static int demo_keys(struct demo *d)
{
	int r;
	zka_toxic tw;
	printf("zkarena demo: %s, %d constraints, %d proofs, %d workers, backend %s\n",
	       d->curve->pretty, d->m, d->njobs, d->workers, d->backend);
	printf("  making a random circuit and test-only keys (zkarena setup --insecure)...\n");
	fflush(stdout);
	if ((r = zka_synthetic_circuit(d->curve, (uint32_t)d->m, 2, (uint64_t)time(NULL), &d->cs,
				       &d->w))) {
		snprintf(d->err, sizeof d->err, "making the circuit: %s", strerror(-r));
		return -1;
	}
	zka_toxic_from_seed(&tw, d->curve, (uint64_t)getpid() * 2654435761u);
	if ((r = zka_setup(&d->cs, &tw, &d->pk, NULL, 0))) {
		snprintf(d->err, sizeof d->err, "setup: %s", strerror(-r));
		return -1;
	}
	if (zka_zkey_write(d->zkey, &d->pk, 0, d->err, sizeof d->err) ||
	    zka_wtns_write(d->wtns, &d->w, d->err, sizeof d->err))
		return -1;
	if (zka_vk_from_pk(&d->vk, &d->pk)) {
		snprintf(d->err, sizeof d->err, "out of memory");
		return -1;
	}
	return 0;
}

/* The arena (a slot per worker plus two, each as large as the key needs) and `zkarena run`
 * on it. 0, or -1 with d->err set. */
static int demo_pipeline(struct demo *d)
{
	struct zka_arena_params ap = {.nslots = (uint32_t)d->workers + 2,
				      .slot_bytes = zka_params_slot_bytes(&d->pk),
				      .njobs = (uint32_t)(d->njobs > 64 ? d->njobs : 64),
				      .numa_node = -1};
	const char *msg = NULL;
	int r;
	if ((r = zka_arena_create(d->name, &ap, &d->a, &msg))) {
		snprintf(d->err, sizeof d->err, "arena %s: %s", d->name, msg ? msg : strerror(-r));
		return -1;
	}
	printf("  arena %s: %u slots of %.1f MiB in /dev/shm; pipeline log: %s\n", d->name,
	       ap.nslots, (double)ap.slot_bytes / (1 << 20), d->log);
	fflush(stdout);
	char wk[16];
	snprintf(wk, sizeof wk, "%d", d->workers);
	const char *rargs[] = {d->name, "--workers", wk, "--backend", d->backend, NULL};
	d->runner = zka_spawn_run(d->log, rargs);
	if (d->runner < 0) {
		snprintf(d->err, sizeof d->err, "fork: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Submits the njobs proofs at once, each into its own directory. 0, or -1 with d->err set. */
static int demo_submit(struct demo *d)
{
	char path[PATH_MAX];
	for (int i = 0; i < d->njobs && !interrupted; i++) {
		snprintf(path, sizeof path, "%s/job%03d", d->dir, i);
		if (mkdir(path, 0755)) {
			snprintf(d->err, sizeof d->err, "%.500s: %s", path, strerror(errno));
			return -1;
		}
		if (zka_client_submit(d->a, d->name, d->zkey, NULL, d->wtns, path, &d->ids[i],
				      d->err, sizeof d->err))
			return -1;
	}
	return 0;
}

/* Waits for each job in turn with a live progress line, keeping its stage times. 0, or -1
 * with d->err set when the pipeline stopped or on Ctrl-C. */
static int demo_wait(struct demo *d)
{
	int r;
	for (int i = 0; i < d->njobs && !interrupted; i++) {
		struct zka_job_info ji;
		for (;;) {
			r = zka_job_wait(d->a, d->ids[i], 250, &ji);
			if (r != -ETIMEDOUT || interrupted)
				break;
			int rs;
			if (waitpid(d->runner, &rs, WNOHANG) == d->runner) {
				d->runner = -1;
				snprintf(d->err, sizeof d->err, "the pipeline stopped (see %.500s)",
					 d->log);
				return -1;
			}
		}
		if (interrupted)
			break;
		if (r == 0) {
			d->done++;
		} else {
			d->failed++;
			fprintf(stderr, "\nzkarena demo: job %llu failed: %s\n",
				(unsigned long long)d->ids[i], r == 1 ? ji.reason : strerror(-r));
			continue;
		}
		double sv[ZKA_STAGES];
		zka_job_stages(&ji, sv);
		for (int k = 0; k < ZKA_STAGES; k++)
			d->st[k][i] = sv[k];
		double el = zka_now() - d->t0;
		printf("\r  proving: %d/%d done, %.2f proofs/s", d->done, d->njobs, d->done / el);
		fflush(stdout);
	}
	d->elapsed = zka_now() - d->t0;
	printf("\n");
	if (interrupted) {
		snprintf(d->err, sizeof d->err, "interrupted: cleaning up");
		return -1;
	}
	return 0;
}

/* Reads every proof back and verifies it; prints the counts, the stage times and the rate. */
static void demo_verify(struct demo *d)
{
	for (int i = 0; i < d->njobs; i++) {
		char pp[PATH_MAX + 16], pubp[PATH_MAX + 16];
		zka_proof proof;
		uint64_t(*pub)[4] = NULL;
		uint32_t npub = 0;
		const char *why;
		snprintf(pp, sizeof pp, "%s/job%03d/proof.json", d->dir, i);
		snprintf(pubp, sizeof pubp, "%s/job%03d/public.json", d->dir, i);
		if (!zka_proof_read_json(pp, d->curve, &proof, d->err, sizeof d->err) &&
		    !zka_public_read_json(pubp, d->curve, &pub, &npub, d->err, sizeof d->err) &&
		    zka_verify(&d->vk, (const uint64_t(*)[4])pub, npub, &proof, &why) == 1)
			d->verified++;
		free(pub);
	}
	printf("  %d proofs done, %d failed, %d verified by reading proof.json/public.json back\n",
	       d->done, d->failed, d->verified);
	if (d->done > 0) {
		printf("\n");
		zka_print_stages(d->st, 0, d->njobs, "  ");
		printf(
		    "\n  throughput: %.2f proofs/s (%d proofs in %.2f s, %d workers, 1 prover)\n",
		    d->done / d->elapsed, d->done, d->elapsed, d->workers);
	}
}

/* Stops the pipeline, removes the arena, its params regions and the temporary directory, and
 * frees what the demo held. */
static void demo_cleanup(struct demo *d)
{
	if (d->runner > 0) {
		kill(d->runner, SIGTERM);
		waitpid(d->runner, NULL, 0);
	}
	if (d->a) {
		zka_arena_close(d->a);
		zka_arena_destroy(d->name);
		zka_pipe_unlink_params(d->name);
	}
	char rm[PATH_MAX + 16];
	snprintf(rm, sizeof rm, "rm -rf '%s'", d->dir);
	if (system(rm) != 0)
		fprintf(stderr, "zkarena demo: could not remove %s\n", d->dir);
	zka_r1cs_free(&d->cs);
	zka_witness_free(&d->w);
	zka_pk_free(&d->pk);
	zka_vk_free(&d->vk);
	free(d->ids);
	for (int i = 0; i < ZKA_STAGES; i++)
		free(d->st[i]);
}

int zka_cmd_demo(int argc, char **argv)
{
	struct demo z = {.njobs = 32,
			 .workers = 2,
			 .m = 4000,
			 .curve = &zka_curve_bn254,
			 .backend = "cpu",
			 .dir = "/tmp/zkarena-demo-XXXXXX",
			 .runner = -1};
	struct demo *d = &z;
	int status = demo_options(argc, argv, d);
	if (status >= 0)
		return status;
	if (!mkdtemp(d->dir)) {
		fprintf(stderr, "zkarena demo: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(d->name, sizeof d->name, "demo-%d", (int)getpid());
	snprintf(d->zkey, sizeof d->zkey, "%s/circuit.zkey", d->dir);
	snprintf(d->wtns, sizeof d->wtns, "%s/witness.wtns", d->dir);
	snprintf(d->log, sizeof d->log, "%s/pipeline.log", d->dir);
	struct sigaction sa = {.sa_handler = on_int};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	status = 1;
	d->ids = calloc((size_t)d->njobs, sizeof *d->ids);
	for (int i = 0; i < ZKA_STAGES; i++)
		d->st[i] = calloc((size_t)d->njobs, sizeof(double));
	if (!d->ids || !d->st[0] || !d->st[1] || !d->st[2] || !d->st[3] || !d->st[4] || !d->st[5])
		goto out;
	if (demo_keys(d) || demo_pipeline(d))
		goto err;
	d->t0 = zka_now();
	if (demo_submit(d) || demo_wait(d))
		goto err;
	demo_verify(d);
	status = (d->done == d->njobs && d->verified == d->njobs) ? 0 : 1;
	goto out;
err:
	fprintf(stderr, "\nzkarena demo: %s\n", d->err);
	status = interrupted ? 130 : 1;
out:
	demo_cleanup(d);
	return status;
}
