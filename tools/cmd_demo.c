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

int zka_cmd_demo(int argc, char **argv)
{
	static const struct option opts[] = {{"jobs", required_argument, 0, 'j'},
					     {"workers", required_argument, 0, 'w'},
					     {"constraints", required_argument, 0, 'm'},
					     {"curve", required_argument, 0, 'c'},
					     {"backend", required_argument, 0, 'b'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	int njobs = 32, workers = 2, m = 4000, opt;
	const zka_curve *curve = &zka_curve_bn254;
	const char *backend = "cpu";
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			if (zka_opt_int("zkarena demo", "--jobs", optarg, 1, 4096, &njobs))
				return 2;
			break;
		case 'w':
			if (zka_opt_int("zkarena demo", "--workers", optarg, 1, 64, &workers))
				return 2;
			break;
		case 'm':
			if (zka_opt_int("zkarena demo", "--constraints", optarg, 1, 1 << 24, &m))
				return 2;
			break;
		case 'c':
			if (!(curve = zka_curve_by_name(optarg))) {
				fprintf(stderr, "zkarena demo: --curve: unknown curve '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'b':
			backend = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (njobs < 1 || njobs > 4096 || workers < 1 || workers > 64 || m < 1 || m > (1 << 24)) {
		fprintf(stderr, "zkarena demo: --jobs in 1..4096, --workers in 1..64, "
				"--constraints in 1..2^24\n");
		return 2;
	}
	char dir[] = "/tmp/zkarena-demo-XXXXXX", name[64], path[PATH_MAX], zkey[PATH_MAX],
	     wtns[PATH_MAX], log[PATH_MAX], err[1024] = "";
	if (!mkdtemp(dir)) {
		fprintf(stderr, "zkarena demo: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(name, sizeof name, "demo-%d", (int)getpid());
	snprintf(zkey, sizeof zkey, "%s/circuit.zkey", dir);
	snprintf(wtns, sizeof wtns, "%s/witness.wtns", dir);
	snprintf(log, sizeof log, "%s/pipeline.log", dir);
	struct sigaction sa = {.sa_handler = on_int};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	int status = 1, r;
	pid_t runner = -1;
	struct zka_arena *a = NULL;
	uint64_t *ids = calloc((size_t)njobs, sizeof *ids);
	double *st[5];
	for (int i = 0; i < 5; i++)
		st[i] = calloc((size_t)njobs, sizeof(double));
	zka_r1cs cs = {0};
	zka_witness w = {0};
	zka_pk pk = {0};
	zka_vk vk = {0};
	zka_toxic tw;
	if (!ids || !st[0] || !st[1] || !st[2] || !st[3] || !st[4])
		goto out;

	printf("zkarena demo: %s, %d constraints, %d proofs, %d workers, backend %s\n",
	       curve->pretty, m, njobs, workers, backend);
	printf("  making a random circuit and test-only keys (zkarena setup --insecure)...\n");
	fflush(stdout);
	if ((r = zka_synthetic_circuit(curve, (uint32_t)m, 2, (uint64_t)time(NULL), &cs, &w))) {
		snprintf(err, sizeof err, "making the circuit: %s", strerror(-r));
		goto fail;
	}
	zka_toxic_from_seed(&tw, curve, (uint64_t)getpid() * 2654435761u);
	if ((r = zka_setup(&cs, &tw, &pk, NULL, 0))) {
		snprintf(err, sizeof err, "setup: %s", strerror(-r));
		goto fail;
	}
	if (zka_zkey_write(zkey, &pk, 0, err, sizeof err) ||
	    zka_wtns_write(wtns, &w, err, sizeof err))
		goto fail;
	if ((r = zka_vk_from_pk(&vk, &pk))) {
		snprintf(err, sizeof err, "out of memory");
		goto fail;
	}
	/* an arena with a slot per worker plus two, each as large as this key needs */
	struct zka_arena_params ap = {.nslots = (uint32_t)workers + 2,
				      .slot_bytes = zka_params_slot_bytes(&pk),
				      .njobs = (uint32_t)(njobs > 64 ? njobs : 64),
				      .numa_node = -1};
	const char *msg = NULL;
	if ((r = zka_arena_create(name, &ap, &a, &msg))) {
		snprintf(err, sizeof err, "arena %s: %s", name, msg ? msg : strerror(-r));
		goto fail;
	}
	printf("  arena %s: %u slots of %.1f MiB in /dev/shm; pipeline log: %s\n", name, ap.nslots,
	       (double)ap.slot_bytes / (1 << 20), log);
	fflush(stdout);
	char wk[16];
	snprintf(wk, sizeof wk, "%d", workers);
	const char *rargs[] = {name, "--workers", wk, "--backend", backend, NULL};
	runner = zka_spawn_run(log, rargs);
	if (runner < 0) {
		snprintf(err, sizeof err, "fork: %s", strerror(errno));
		goto fail;
	}
	double t0 = zka_now();
	for (int i = 0; i < njobs && !interrupted; i++) {
		snprintf(path, sizeof path, "%s/job%03d", dir, i);
		if (mkdir(path, 0755)) {
			snprintf(err, sizeof err, "%.500s: %s", path, strerror(errno));
			goto fail;
		}
		if (zka_client_submit(a, name, zkey, NULL, wtns, path, &ids[i], err, sizeof err))
			goto fail;
	}
	int done = 0, failed = 0;
	for (int i = 0; i < njobs && !interrupted; i++) {
		struct zka_job_info ji;
		for (;;) {
			r = zka_job_wait(a, ids[i], 250, &ji);
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
		if (r == 0) {
			done++;
		} else {
			failed++;
			fprintf(stderr, "\nzkarena demo: job %llu failed: %s\n",
				(unsigned long long)ids[i], r == 1 ? ji.reason : strerror(-r));
			continue;
		}
		double sv[5];
		zka_job_stages(&ji, sv);
		for (int k = 0; k < 5; k++)
			st[k][i] = sv[k];
		double el = zka_now() - t0;
		printf("\r  proving: %d/%d done, %.2f proofs/s", done, njobs, done / el);
		fflush(stdout);
	}
	double elapsed = zka_now() - t0;
	printf("\n");
	if (interrupted) {
		snprintf(err, sizeof err, "interrupted: cleaning up");
		goto fail;
	}
	/* read every proof back and verify it */
	int verified = 0;
	for (int i = 0; i < njobs; i++) {
		char pp[PATH_MAX + 16], pubp[PATH_MAX + 16];
		zka_proof proof;
		uint64_t(*pub)[4] = NULL;
		uint32_t npub = 0;
		const char *why;
		snprintf(pp, sizeof pp, "%s/job%03d/proof.json", dir, i);
		snprintf(pubp, sizeof pubp, "%s/job%03d/public.json", dir, i);
		if (!zka_proof_read_json(pp, curve, &proof, err, sizeof err) &&
		    !zka_public_read_json(pubp, curve, &pub, &npub, err, sizeof err) &&
		    zka_verify(&vk, (const uint64_t(*)[4])pub, npub, &proof, &why) == 1)
			verified++;
		free(pub);
	}
	printf("  %d proofs done, %d failed, %d verified by reading proof.json/public.json back\n",
	       done, failed, verified);
	if (done > 0) {
		printf("\n");
		zka_print_stages(st, 0, njobs, "  ");
		printf(
		    "\n  throughput: %.2f proofs/s (%d proofs in %.2f s, %d workers, 1 prover)\n",
		    done / elapsed, done, elapsed, workers);
	}
	status = (done == njobs && verified == njobs) ? 0 : 1;
	goto out;
fail:
	fprintf(stderr, "\nzkarena demo: %s\n", err);
	status = interrupted ? 130 : 1;
out:
	if (runner > 0) {
		kill(runner, SIGTERM);
		waitpid(runner, NULL, 0);
	}
	if (a) {
		zka_arena_close(a);
		zka_arena_destroy(name);
		zka_pipe_unlink_params(name);
	}
	char rm[PATH_MAX + 16];
	snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
	if (system(rm) != 0)
		fprintf(stderr, "zkarena demo: could not remove %s\n", dir);
	zka_r1cs_free(&cs);
	zka_witness_free(&w);
	zka_pk_free(&pk);
	zka_vk_free(&vk);
	free(ids);
	for (int i = 0; i < 5; i++)
		free(st[i]);
	return status;
}
