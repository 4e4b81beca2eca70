/* main.c - zkarena-gpud NAME: the proving daemon of one device for arena NAME.
 *
 * Loop: take a READY slot (blocking on the ready ring), prove from the slot's a/b/c and
 * witness with the backend, verify the proof, write proof.json and public.json into the job's
 * output directory atomically (temporary file, fsync, rename), leave a done-marker, mark the
 * job DONE and free the slot (which wakes one synthesis worker). A proof that does not verify
 * is never written: the job FAILS with the reason. If the daemon dies mid-proof, recovery puts
 * the slot back to READY with a/b/c intact and the next daemon proves it without
 * re-synthesis; if it dies after writing but before marking DONE, the marker lets the next
 * daemon finish the job without writing it again. */
#include "gpud/backend.h"
#include "synth/pipe.h"
#include "zk/groth16.h"
#include "zk/json_io.h"
#include "zk/opt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOG(...) zka_pipe_log("zkarena-gpud", __VA_ARGS__)

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: zkarena-gpud [--backend cpu|cuda] [--device N] NAME\n"
		   "\n"
		   "The proving daemon of arena NAME: proves READY slots, verifies each proof, writes\n"
		   "proof.json and public.json into the job's output directory, marks it DONE.\n"
		   "Runs until SIGTERM/SIGINT. Default backend: cpu.\n"
		   "Test hook: ZKA_PROVE_DELAY_MS=N sleeps N ms in the middle of each proof.\n");
}

/* Writes the proof files and the done marker; returns 0 or -errno with err set. */
static int write_outputs(const struct zka_arena *a, const struct zka_job_info *ji, const zka_pk *pk,
			 const zka_proof *proof, const uint64_t (*w)[4], char *err, size_t errlen)
{
	char pp[ZKA_PATH_MAX + 32], pub[ZKA_PATH_MAX + 32], mk[ZKA_PATH_MAX + 64];
	/* temporary files of an earlier attempt at this job, killed between create and rename:
	 * this daemon owns the job now, so no one else is writing them */
	DIR *d = opendir(ji->out_dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (!strncmp(e->d_name, "proof.json.tmp.", 15) ||
			    !strncmp(e->d_name, "public.json.tmp.", 16)) {
				char t[ZKA_PATH_MAX + 300];
				snprintf(t, sizeof t, "%s/%s", ji->out_dir, e->d_name);
				if (unlink(t) == 0)
					LOG("job %llu: removed %s left by a killed attempt",
					      (unsigned long long)ji->id, t);
			}
		closedir(d);
	}
	snprintf(pp, sizeof pp, "%s/proof.json", ji->out_dir);
	snprintf(pub, sizeof pub, "%s/public.json", ji->out_dir);
	if (zka_public_write_json(pub, pk->curve, w + 1, pk->n_public, err, errlen) ||
	    zka_proof_write_json(pp, proof, err, errlen))
		return -EIO;
	zka_pipe_marker(mk, sizeof mk, a, ji->out_dir, ji->id);
	int fd = open(mk, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || fsync(fd)) {
		snprintf(err, errlen, "%s: %s", mk, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"backend", required_argument, 0, 'b'},
					     {"device", required_argument, 0, 'd'},
					     {"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	const zka_backend *be = &zka_backend_cpu;
	int device = 0, opt;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			if (!strcmp(optarg, "cpu"))
				be = &zka_backend_cpu;
			else if (!strcmp(optarg, "cuda"))
				be = &zka_backend_cuda;
			else {
				fprintf(stderr, "zkarena-gpud: --backend: '%s' is not cpu or cuda\n", optarg);
				return 2;
			}
			break;
		case 'd':
			if (zka_opt_int("zkarena-gpud", "--device", optarg, 0, 1023, &device))
				return 2;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (argc - optind != 1) {
		usage(stderr);
		return 2;
	}
	const char *name = argv[optind];
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	struct zka_arena *a = zka_pipe_attach("zkarena-gpud", name, 0);
	int r;
	if (!a)
		return 2;
	char note[512] = "", err[1024] = "";
	void *ctx = NULL;
	if ((r = be->init(&ctx, a, device, note, sizeof note, err, sizeof err))) {
		/* never fall back silently to another backend: say it and stop */
		LOG("backend %s unavailable: %s", be->name, err);
		zka_arena_close(a);
		return 2;
	}
	LOG("%s", note);
	{ /* what `zkarena status` shows about this daemon: its backend and fast paths */
		char path[128], tmp[160];
		snprintf(path, sizeof path, "/dev/shm/zkarena-%s.gpud-status", name);
		snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid());
		FILE *f = fopen(tmp, "w");
		if (!f || fprintf(f, "pid %d: %s\n", (int)getpid(), note) < 0 || fclose(f) ||
		    rename(tmp, path))
			LOG("cannot write %s (status will not show the backend)", path);
	}
	zka_pipe_cache *cache = zka_pipe_cache_new();
	int status = 0;
	struct timespec last = {0, 0};
	while (!stop && cache) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - last.tv_sec >= 2) { /* periodic recovery of dead owners' records */
			int n = zka_arena_recover(a);
			if (n > 0)
				LOG("recovered %d record(s) of dead processes", n);
			last = now;
		}
		uint32_t slot, job;
		r = zka_slot_take_ready(a, &slot, &job, 1000);
		if (r == -ETIMEDOUT || r == -EINTR)
			continue;
		if (r) {
			LOG("cannot take a ready slot: %s", strerror(-r));
			status = 1;
			break;
		}
		struct zka_job_info ji;
		const zka_params *p = NULL;
		zka_slot_view v;
		char mk[ZKA_PATH_MAX + 64];
		const char *fail = NULL;
		err[0] = 0;
		if ((r = zka_job_info(a, job, &ji))) {
			snprintf(err, sizeof err, "job record unreadable: %s", strerror(-r));
			fail = err;
			goto finish;
		}
		zka_pipe_marker(mk, sizeof mk, a, ji.out_dir, ji.id);
		if (access(mk, F_OK) == 0) {
			LOG("job %llu: proof already written before a crash; finishing",
			      (unsigned long long)ji.id);
			goto finish;
		}
		if (zka_job_cancelled(a, job)) {
			fail = "cancelled";
			goto finish;
		}
		if (!(p = zka_pipe_circuit(cache, a, ji.circuit, err, sizeof err)) ||
		    zka_pipe_slot_view(a, slot, &p->pk, &v)) {
			if (!err[0])
				snprintf(err, sizeof err, "slot %u is too small for the key", slot);
			fail = err;
			goto finish;
		}
		zka_rs rs;
		zka_proof proof;
		zka_prove_times t = {0};
		if ((r = zka_rs_random(&rs, p->pk.curve))) {
			snprintf(err, sizeof err, "getrandom: %s", strerror(-r));
			fail = err;
			goto finish;
		}
		if ((r = be->prove(ctx, ji.circuit, p, (const uint64_t(*)[4])v.a,
				   (const uint64_t(*)[4])v.b, (const uint64_t(*)[4])v.c,
				   (const uint64_t(*)[4])v.w, &rs, &proof, &t, err, sizeof err))) {
			fail = err;
			goto finish;
		}
		proof.curve = p->pk.curve;
		zka_pipe_test_delay("ZKA_PROVE_DELAY_MS"); /* test hook: widen the window for a kill mid-proof */
		const char *why = NULL;
		if (zka_verify(&p->vk, (const uint64_t(*)[4])(v.w + 1), p->pk.n_public, &proof, &why) != 1) {
			snprintf(err, sizeof err, "internal error: the proof did not verify (%s); not written",
				 why ? why : "?");
			fail = err;
			goto finish;
		}
		if (write_outputs(a, &ji, &p->pk, &proof, (const uint64_t(*)[4])v.w, err, sizeof err))
			fail = err;
	finish:
		if (fail)
			LOG("job %u failed: %s", job, fail);
		r = zka_job_finish(a, slot, fail);
		if (r) {
			LOG("cannot finish job %u: %s", job, strerror(-r));
			status = 1;
			break;
		}
	}
	zka_pipe_cache_free(cache);
	be->shutdown(ctx);
	zka_arena_close(a);
	return status;
}
