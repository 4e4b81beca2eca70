/* main.c - zkarena-gpud NAME: the proving daemon of one device for arena NAME.
 *
 * Lanes: --inflight N threads (default 2 with the cuda backend, 1 with cpu), each a loop:
 * take a READY slot (blocking on the ready ring), prove from the slot's a, b and witness
 * with the backend on the lane's own device context, and hand the proof to the finishers.
 * Finishers (--finishers N threads, default 2; a queue of 2 x lanes proofs, a lane waits
 * when it is full): verify the proof, write proof.json and public.json into the job's output
 * directory atomically (temporary file, fsync, rename), leave a done-marker, mark the job
 * DONE and free the slot (which wakes one synthesis worker); the slot stays PROVING until
 * then, so a daemon killed with proofs queued proves them again from the slots. With two
 * lanes, one proof's host-to-device copy overlaps the other's kernels; the finishers keep a
 * lane's host work after its proof (a pairing check, files: milliseconds, as long as a small
 * circuit's whole proof on the H200) off the device's critical path. A clean stop drains the
 * queue. A proof that does not verify is never written: the job FAILS with the reason. If
 * the daemon dies mid-proof, recovery puts every slot it was proving back to READY with a, b, w
 * intact and the next daemon proves them without re-synthesis; if it dies after writing but
 * before marking DONE, the marker lets the next daemon finish the job without writing it
 * again.
 *
 * Accounting (the main thread, once a second): the device is busy while at least one lane is
 * inside the backend's prove (from the first input copy to the result on the host); busy
 * time, proofs, input-copy time and the part of it that overlapped another lane's proof are
 * cumulative counters, sampled each second so that the last minute's GPU busy %, proofs/s and
 * synthesis jobs/s (slots made READY, from the arena's counters) are differences of two
 * samples. The main thread writes them to /dev/shm/zkarena-NAME.gpud-status (through
 * shm/zka_gpud_status.h: atomically, mode 0600; `zkarena status` shows it) and logs them once
 * a minute. The "counters:" line is for programs (bench pipeline, the metrics):
 * CLOCK_MONOTONIC ns and the cumulative values, and with the cuda backend the device's memory
 * in use and its size at the end (mem_used=, mem_total=: cudaMemGetInfo, every process's
 * allocations; absent with the cpu backend). A backend's warning (a params region it could not
 * register) is appended to the note line.
 *
 * Several gpuds on one arena (`zkarena run --devices 0,1`, or one gpud@ unit per device): each
 * is started with its own --id (0, 1, ...) and device, takes slots from the same ready ring and
 * keeps its own device copy of each key it proves. Each writes its own status file
 * (/dev/shm/zkarena-NAME.gpud-status for id 0, zkarena-NAME.gpudI-status for id I > 0) with a
 * "gpud:" line (id, device, backend) and a "keys:" line (the circuits whose key it holds and
 * their bytes). Key preference: before taking a slot, a lane looks at the READY slots'
 * circuits; when none of them has its key here but another live gpud (read from the others'
 * status files once a second) holds one of them, the lane yields 20 ms and looks again, at most
 * YIELD_MAX times in a row: a free gpud with the key takes the slot meanwhile, and when every
 * gpud that has it is busy, this one takes it after ~100 ms and loads the key (bounded delay,
 * never a stall). A killed gpud's PROVING slots go back to READY by the recovery that every
 * other gpud runs every 2 s (and `zkarena run` at once), and another gpud proves them from
 * the slot's a, b and w without re-synthesis. */
#include "config/zka_budget.h"
#include "config/zka_notify.h"
#include "config/zka_version.h"
#include "gpud/backend.h"
#include "gpud/outputs.h"
#include "keys/zka_cache.h"
#include "shm/zka_gpud_status.h"
#include "synth/attest.h"
#include "synth/pipe.h"
#include "synth/slot_layout.h"
#include "zk/decimal.h"
#include "zk/groth16.h"
#include "zk/json_io.h"
#include "zk/opt.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
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

#define ZKA_FINISHERS_MAX 16

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: zkarena-gpud [--backend cpu|cuda] [--device N] [--inflight N] [--id I]\n"
	    "                    [--finishers N] [--table-budget B] NAME\n"
	    "\n"
	    "The proving daemon of arena NAME: proves READY slots, verifies each proof, writes\n"
	    "proof.json and public.json into the job's output directory, marks it DONE.\n"
	    "Runs until SIGTERM/SIGINT. Default backend: cpu.\n"
	    "  --inflight N  proofs in flight, one thread and device context each (1..%d;\n"
	    "                default 2 with cuda: the next proof's copy overlaps the current\n"
	    "                one's kernels; 1 with cpu, whose prover already uses every core)\n"
	    "  --finishers N threads that verify each proof and write its files (1..%d,\n"
	    "                default 2), so that a lane starts its next proof at once\n"
	    "  --id I        this gpud's index among the arena's gpuds (0..63, default 0;\n"
	    "                `zkarena run --devices` numbers them): its status file's name\n"
	    "  --table-budget B  (cuda) device memory each key's window tables may take, in\n"
	    "                multiples of the key's own points: max (a copy per window, the\n"
	    "                fastest; BN254 2^22: 19.5 GiB), N or Nx (1 + floor(N) copies);\n"
	    "                default 1x, or $ZKG_TABLE_BUDGET. Fewer copies when they and\n"
	    "                the lanes' working memory do not fit the free device memory;\n"
	    "                the log's key line says which (docs/gpu.md, \"Window tables\n"
	    "                under a budget\")\n"
	    "  -V, --version  print the version (and git commit) and exit\n"
	    "Status (busy %%, proofs/s, synthesis jobs/s over the last minute) is written to\n"
	    "/dev/shm/zkarena-NAME.gpud-status (id 0; zkarena-NAME.gpudI-status for id I)\n"
	    "every second and logged every minute.\n"
	    "With cuda, a circuit's key is uploaded from its registered params region at its\n"
	    "first job; its window tables build on the device behind the first proofs, which\n"
	    "use the windowed MSM until the log says the tables are ready. Its lanes sleep\n"
	    "while the device works (blocking sync), leaving the cores to synthesis;\n"
	    "ZKA_GPU_WAIT=spin keeps CUDA's default (a core spinning per waiting lane).\n"
	    "Test hooks: ZKA_PROVE_DELAY_MS=N sleeps N ms in the middle of each proof;\n"
	    "ZKA_TEST_ENOSPC=proof.json (or public.json) fails writing that file with ENOSPC;\n"
	    "ZKA_TEST_RS=R,S proves with fixed r and s (decimal; as `zkarena prove --r --s`:\n"
	    "testing only, never in production).\n",
	    ZKA_LANES_MAX, ZKA_FINISHERS_MAX);
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct fin_item;

/* The daemon: shared by the lanes and the main thread. */
#define CIRCUITS_MAX ZKA_PARAMS_CACHE_MAX /* circuit indices of the arena */
#define KEYW (CIRCUITS_MAX / 64)
_Static_assert(CIRCUITS_MAX == ZKA_GPUD_KEYS_MAX, "the status file's keys line names them all");
#define YIELD_MAX 5 /* key preference: at most 5 x 20 ms before taking a slot anyway */

struct daemon {
	struct zka_arena *a;
	const char *name;
	int id, device;
	const zka_backend *be;
	void *ctx;
	int lanes;
	atomic_int fatal; /* a lane hit arena trouble: everyone stops, exit 1 */
	/* the params regions, shared by the lanes: one mapping per region, so the backend's
	 * per-circuit key cache (keyed by the mapping) sees one region, not one per lane */
	zka_params_cache *circ;
	pthread_mutex_t mu; /* guards everything below */
	int active;	    /* lanes inside be->prove */
	int64_t busy_since, busy_ns;
	uint64_t proofs, failed;
	int64_t copy_ns, copy_hidden_ns;
	uint64_t bytes_in;		  /* a, b and w copied into the prover */
	uint64_t here[KEYW];		  /* circuits whose key this gpud holds */
	uint64_t key_bytes[CIRCUITS_MAX]; /* their params regions' sizes */
	uint64_t others[KEYW];		  /* circuits held by another live gpud */
	uint64_t yields;		  /* 20 ms yields to a gpud holding the key */
	struct {
		int64_t cur_start;	      /* 0: not proving */
		int64_t last_start, last_end; /* its previous proof */
	} lane[ZKA_LANES_MAX];
	/* proofs made, waiting for a finisher (verify, files, DONE): a ring of fcap items */
	pthread_mutex_t fmu; /* guards the queue, lanes_done */
	pthread_cond_t fwork, fspace;
	struct fin_item *fq;
	int fcap, fhead, fn, lanes_done;
};

static int64_t overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
	int64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
	return hi > lo ? hi - lo : 0;
}

/* A params region replaced by a reload stays mapped (a lane may still prove from it) until exit
 * or until RETIRED_MAX later replacements (keys/zka_cache.h). */
#define RETIRED_MAX 64

/* A lane enters the backend's prove. */
static void busy_enter(struct daemon *d, int lane, int64_t t)
{
	pthread_mutex_lock(&d->mu);
	if (d->active++ == 0)
		d->busy_since = t;
	d->lane[lane].cur_start = t;
	pthread_mutex_unlock(&d->mu);
}

/* A lane leaves the backend's prove: busy time, and how much of its input copy (the first
 * copy_ns of the call) overlapped another lane's proof, current or previous. */
static void busy_leave(struct daemon *d, int lane, int64_t t, int64_t copy_ns, int ok)
{
	pthread_mutex_lock(&d->mu);
	int64_t s = d->lane[lane].cur_start, ce = s + copy_ns, hidden = 0;
	for (int o = 0; o < d->lanes; o++) {
		if (o == lane)
			continue;
		hidden += overlap(s, ce, d->lane[o].last_start, d->lane[o].last_end);
		if (d->lane[o].cur_start)
			hidden += overlap(s, ce, d->lane[o].cur_start, t);
	}
	d->copy_ns += copy_ns;
	d->copy_hidden_ns += hidden < copy_ns ? hidden : copy_ns;
	d->lane[lane].last_start = s;
	d->lane[lane].last_end = t;
	d->lane[lane].cur_start = 0;
	if (--d->active == 0)
		d->busy_ns += t - d->busy_since;
	if (ok)
		d->proofs++;
	else
		d->failed++;
	pthread_mutex_unlock(&d->mu);
}

/* After a proof of circuit idx: its key is on this gpud's device (the backends keep it). */
static void key_resident(struct daemon *d, uint32_t idx, const zka_params *p)
{
	if (idx >= CIRCUITS_MAX)
		return;
	pthread_mutex_lock(&d->mu);
	d->here[idx / 64] |= 1ull << (idx % 64);
	d->key_bytes[idx] = p->size;
	d->bytes_in += (2ull * p->pk.domain_size + p->pk.n_vars) * 32; /* a slot: a, b, w */
	pthread_mutex_unlock(&d->mu);
}

/* Key preference: 1 when every READY slot's circuit has its key on another live gpud and not
 * here (the lane then yields 20 ms); 0 when some READY slot's key is here or on no gpud, or no
 * slot is READY. */
static int prefer_other(struct daemon *d)
{
	uint64_t here[KEYW], others[KEYW];
	pthread_mutex_lock(&d->mu);
	memcpy(here, d->here, sizeof here);
	memcpy(others, d->others, sizeof others);
	pthread_mutex_unlock(&d->mu);
	struct zka_arena_geometry g;
	zka_arena_geometry(d->a, &g);
	int theirs = 0;
	for (uint32_t s = 0; s < g.nslots; s++) {
		struct zka_slot_info si;
		struct zka_job_info ji;
		if (zka_slot_info(d->a, s, &si) || si.state != ZKA_SLOT_READY ||
		    zka_job_info(d->a, si.job, &ji) || ji.circuit >= CIRCUITS_MAX)
			continue;
		uint64_t bit = 1ull << (ji.circuit % 64);
		if ((here[ji.circuit / 64] & bit) || !(others[ji.circuit / 64] & bit))
			return 0;
		theirs = 1;
	}
	return theirs;
}

/* 1 when another gpud holds a key that this one lacks: the lanes then poll the ready ring
 * (every 2 ms) instead of blocking on it, so that they can look at a slot's circuit before
 * taking it. */
static int lacking(struct daemon *d)
{
	int r = 0;
	pthread_mutex_lock(&d->mu);
	for (int i = 0; i < KEYW; i++)
		r |= (d->others[i] & ~d->here[i]) != 0;
	pthread_mutex_unlock(&d->mu);
	return r;
}

/* Reads the other gpuds' status files (shm/zka_gpud_status.h: regular files of the arena's
 * owner only): the keys held by those still alive go to d->others. */
static void read_others(struct daemon *d)
{
	uint64_t others[KEYW] = {0};
	uint32_t owner;
	zka_arena_owner(d->a, &owner, NULL, NULL);
	for (int id = 0; id < ZKA_GPUDS_MAX; id++) {
		struct zka_gpud_status s;
		if (id == d->id || zka_gpud_status_read(d->name, id, owner, &s) || !s.alive)
			continue;
		for (int i = 0; i < KEYW; i++)
			others[i] |= s.keys[i];
	}
	pthread_mutex_lock(&d->mu);
	memcpy(d->others, others, sizeof others);
	pthread_mutex_unlock(&d->mu);
}

/* One sample of the cumulative counters. */
struct sample {
	int64_t t, busy_ns, copy_ns, copy_hidden_ns;
	uint64_t proofs, ready;
};

static void take_sample(struct daemon *d, struct sample *s)
{
	s->t = mono_ns();
	pthread_mutex_lock(&d->mu);
	s->busy_ns = d->busy_ns + (d->active ? s->t - d->busy_since : 0);
	s->proofs = d->proofs;
	s->copy_ns = d->copy_ns;
	s->copy_hidden_ns = d->copy_hidden_ns;
	pthread_mutex_unlock(&d->mu);
	s->ready = zka_arena_state_entries(d->a, 0, ZKA_SLOT_READY);
}

/* What a lane hands to the finishers once the device has made its proof: the slot stays
 * PROVING (this gpud's) until a finisher marks the job DONE or FAILED. */
struct fin_item {
	uint32_t slot, job;
	struct zka_job_info ji;
	const zka_params *p;
	zka_slot_view v;
	zka_proof proof;
	char key_path[ZKA_PATH_MAX];
};

/* Ends the job of slot (DONE, or FAILED with fail), then removes its attestation (att_nonce,
 * 0: none); returns 0 or -errno on arena trouble. */
static int end_job(struct daemon *d, uint32_t slot, uint32_t job, const char *fail,
		   uint64_t att_nonce)
{
	if (fail)
		LOG("job %u failed: %s", job, fail);
	int r = zka_job_finish(d->a, slot, fail);
	if (r)
		LOG("cannot finish job %u: %s", job, strerror(-r));
	else if (att_nonce) /* the job ended: its submitter's attestation has served */
		zka_attest_remove(zka_arena_name(d->a), att_nonce);
	return r;
}

/* A finisher's work on one proof: verify it against the key's vk (a proof that does not verify
 * is never written), write proof.json and public.json, end the job. 0 or -errno. */
static int finish_one(struct daemon *d, struct fin_item *it)
{
	char err[1024] = "";
	const char *fail = NULL, *why = NULL;
	const zka_params *p = it->p;
	if (zka_verify(&p->vk, (const uint64_t(*)[4])(it->v.w + 1), p->pk.n_public, &it->proof,
		       &why) != 1) {
		snprintf(
		    err, sizeof err,
		    "witness %.300s does not satisfy the circuit, or key %.300s may be corrupt "
		    "(the proof did not verify: %s); not written",
		    it->ji.witness_path, it->key_path, why ? why : "?");
		fail = err;
	} else if (zka_outputs_write(d->a, &it->ji, &p->pk, &it->proof,
				     (const uint64_t(*)[4])it->v.w, it->ji.prove_count, err,
				     sizeof err)) {
		fail = err;
	}
	/* a job reaches a finisher only attested (prove_one), in a group arena */
	return end_job(d, it->slot, it->job, fail, zka_attest_needed(d->a) ? it->ji.user_tag : 0);
}

/* Queues it for the finishers (blocking while the queue is full): 0, or -ECANCELED when the
 * daemon stops hard (fatal) meanwhile. */
static int fin_push(struct daemon *d, const struct fin_item *it)
{
	pthread_mutex_lock(&d->fmu);
	while (d->fn == d->fcap && !atomic_load(&d->fatal))
		pthread_cond_wait(&d->fspace, &d->fmu);
	if (atomic_load(&d->fatal)) {
		pthread_mutex_unlock(&d->fmu);
		return -ECANCELED;
	}
	d->fq[(d->fhead + d->fn) % d->fcap] = *it;
	d->fn++;
	pthread_cond_signal(&d->fwork);
	pthread_mutex_unlock(&d->fmu);
	return 0;
}

/* A finisher's thread: finishes queued proofs until the lanes have stopped and the queue is
 * empty (a clean stop ends every proof already made), or at once on a fatal arena error. */
static void *fin_main(void *arg)
{
	struct daemon *d = arg;
	struct fin_item *it = malloc(sizeof *it);
	if (!it) {
		LOG("out of memory for a finisher");
		atomic_store(&d->fatal, 1);
		pthread_cond_broadcast(&d->fspace);
		return NULL;
	}
	for (;;) {
		pthread_mutex_lock(&d->fmu);
		while (!d->fn && !d->lanes_done && !atomic_load(&d->fatal))
			pthread_cond_wait(&d->fwork, &d->fmu);
		if (atomic_load(&d->fatal) || !d->fn) {
			pthread_mutex_unlock(&d->fmu);
			break;
		}
		*it = d->fq[d->fhead];
		d->fhead = (d->fhead + 1) % d->fcap;
		d->fn--;
		pthread_cond_signal(&d->fspace);
		pthread_mutex_unlock(&d->fmu);
		if (finish_one(d, it)) {
			atomic_store(&d->fatal, 1);
			pthread_mutex_lock(&d->fmu);
			pthread_cond_broadcast(&d->fspace);
			pthread_cond_broadcast(&d->fwork);
			pthread_mutex_unlock(&d->fmu);
			break;
		}
	}
	free(it);
	return NULL;
}

/* The prover's randomness: uniform (getrandom), or with the test hook ZKA_TEST_RS=R,S (decimal,
 * below the group order) the fixed r and s that `zkarena prove --r R --s S` takes, so that a
 * test can compare the pipeline's proof with the CLI's byte for byte. Testing only: two proofs
 * of different witnesses under one r, s reveal their difference. 0, or -errno with err set. */
static int test_rs(zka_rs *rs, const zka_curve *c, char *err, size_t errlen)
{
	const char *e = getenv("ZKA_TEST_RS");
	if (!e || !*e) {
		int r = zka_rs_random(rs, c);
		if (r)
			snprintf(err, errlen, "getrandom: %s", strerror(-r));
		return r;
	}
	char buf[256];
	snprintf(buf, sizeof buf, "%s", e);
	char *comma = strchr(buf, ',');
	if (comma)
		*comma = 0;
	if (!comma || zka_dec_parse(buf, rs->r, 32, c->r, 4) ||
	    zka_dec_parse(comma + 1, rs->s, 32, c->r, 4)) {
		snprintf(err, errlen,
			 "ZKA_TEST_RS: not R,S (two decimal integers below the group order)");
		return -EINVAL;
	}
	return 0;
}

/* Proves one READY slot taken from the ring and hands the proof to the finishers (or ends the
 * job itself when it fails before a proof exists); returns 0, or -errno on arena trouble. */
static int prove_one(struct daemon *d, int lane, uint32_t slot, uint32_t job, struct fin_item *it)
{
	struct zka_arena *a = d->a;
	struct zka_job_info *ji = &it->ji;
	const zka_params *p = NULL;
	char err[1024] = "";
	const char *fail = NULL;
	struct zka_circuit_info ci = {0};
	int r, att = 0;
	if ((r = zka_job_info(a, job, ji))) {
		snprintf(err, sizeof err, "job record unreadable: %s", strerror(-r));
		fail = err;
		goto finish;
	}
	if (zka_job_cancelled(a, job)) {
		fail = "cancelled";
		goto finish;
	}
	att = zka_attest_needed(a); /* a group arena: only attested records (synth/attest.h) */
	if (att && zka_attest_check(zka_arena_name(a), ji, err, sizeof err)) {
		fail = err;
		att = 0; /* its nonce may name another job's attestation: not removed */
		goto finish;
	}
	(void)zka_circuit_info(a, ji->circuit, &ci); /* its key's path, for the messages */
	/* the cache refuses a params region that is not the arena owner's (issue 19) */
	if (!(p = zka_params_cache_get(d->circ, a, ji->circuit, err, sizeof err)) ||
	    zka_slot_layout_view(a, slot, &p->pk, &it->v)) {
		if (!err[0])
			snprintf(err, sizeof err, "slot %u is too small for the key", slot);
		fail = err;
		goto finish;
	}
	/* the output directory's identity, and a done marker left before a crash (gpud/outputs.h)
	 */
	r = zka_outputs_marker(a, ji, &p->vk, (const uint64_t(*)[4])(it->v.w + 1), p->pk.n_public,
			       err, sizeof err);
	if (r < 0) {
		fail = err;
		goto finish;
	}
	if (r == 1) {
		LOG("job %llu: proof already written before a crash (it verifies); finishing",
		    (unsigned long long)ji->id);
		goto finish;
	}
	zka_rs rs;
	zka_prove_times t = {0};
	if ((r = test_rs(&rs, p->pk.curve, err, sizeof err))) {
		fail = err;
		goto finish;
	}
	double copy_s = 0;
	/* a slot of form W holds only the witness: the backend makes a and b (NULL here) */
	int w_only = zka_slot_form(a, slot) == ZKA_SLOT_FORM_W;
	busy_enter(d, lane, mono_ns());
	r = d->be->prove(
	    d->ctx, lane, ji->circuit, p, w_only ? NULL : (const uint64_t(*)[4])it->v.a,
	    w_only ? NULL : (const uint64_t(*)[4])it->v.b, (const uint64_t(*)[4])it->v.w, &rs,
	    &it->proof, &t, &copy_s, err, sizeof err);
	busy_leave(d, lane, mono_ns(), (int64_t)(copy_s * 1e9), r == 0);
	if (r == 0)
		key_resident(d, ji->circuit, p);
	if (r) {
		fail = err;
		goto finish;
	}
	it->proof.curve = p->pk.curve;
	zka_pipe_test_delay(
	    "ZKA_PROVE_DELAY_MS"); /* test hook: widen the window for a kill mid-proof */
	/* verification and files on a finisher: this lane takes the next slot at once */
	it->slot = slot;
	it->job = job;
	it->p = p;
	snprintf(it->key_path, sizeof it->key_path, "%s", ci.key_path);
	/* -ECANCELED: a fatal stop meanwhile; the slot stays PROVING and the next daemon's
	 * recovery proves it again */
	(void)fin_push(d, it);
	return 0;
finish:
	return end_job(d, slot, job, fail, att ? ji->user_tag : 0);
}

struct lane_arg {
	struct daemon *d;
	int lane;
};

/* A lane's thread: takes READY slots until stop or a fatal arena error. */
static void *lane_main(void *arg)
{
	struct lane_arg *la = arg;
	struct daemon *d = la->d;
	int yielded = 0;
	struct fin_item *it = malloc(sizeof *it);
	if (!it) {
		LOG("out of memory for lane %d", la->lane);
		atomic_store(&d->fatal, 1);
		return NULL;
	}
	while (!stop && !atomic_load(&d->fatal)) {
		uint32_t slot, job;
		/* a blocked lane looks at lacking() again this often: a key another gpud loaded
		 * meanwhile (read from its status file once a second) then makes it poll and yield
		 * instead of taking the next READY slot blind */
		int timeout = 250;
		if (lacking(d)) {
			if (zka_ring_depth(d->a, ZKA_RING_READY_SLOTS) <= 0) {
				struct timespec ts = {0, 2000000};
				nanosleep(&ts, NULL);
				continue;
			}
			if (yielded < YIELD_MAX && prefer_other(d)) {
				yielded++;
				pthread_mutex_lock(&d->mu);
				d->yields++;
				pthread_mutex_unlock(&d->mu);
				struct timespec ts = {0, 20000000};
				nanosleep(&ts, NULL);
				continue;
			}
			timeout = 0;
		}
		int r = zka_slot_take_ready(d->a, &slot, &job, timeout);
		if (r == -ETIMEDOUT || r == -EINTR)
			continue;
		yielded = 0;
		if (r) {
			LOG("cannot take a ready slot: %s", strerror(-r));
			atomic_store(&d->fatal, 1);
			break;
		}
		if (prove_one(d, la->lane, slot, job, it)) {
			atomic_store(&d->fatal, 1);
			break;
		}
	}
	free(it);
	return NULL;
}

#define HIST 61 /* one sample a second: the last minute is hist[now] - hist[now - 60] */

/* The last minute in words, from two samples: the status file's second line and the log's. */
static void summarize(struct daemon *d, const struct sample *now, const struct sample *old,
		      char *line, size_t linelen)
{
	double dt = (double)(now->t - old->t) * 1e-9;
	uint64_t np = now->proofs - old->proofs;
	double busy = dt > 0 ? (double)(now->busy_ns - old->busy_ns) * 1e-9 / dt : 0;
	double cp = np ? (double)(now->copy_ns - old->copy_ns) * 1e-6 / (double)np : 0;
	int64_t cns = now->copy_ns - old->copy_ns;
	double hid =
	    cns > 0 ? (double)(now->copy_hidden_ns - old->copy_hidden_ns) / (double)cns : 0;
	int ready = zka_ring_depth(d->a, ZKA_RING_READY_SLOTS);
	snprintf(
	    line, linelen,
	    "last %.0f s: %s busy %.1f%%, %.2f proofs/s, synthesis %.2f jobs/s, %d ready slot(s) "
	    "waiting; input copies %.2f ms per proof, %.0f%% hidden behind another proof",
	    dt, strcmp(d->be->name, "cuda") ? "prover" : "GPU", 100 * busy,
	    dt > 0 ? (double)np / dt : 0, dt > 0 ? (double)(now->ready - old->ready) / dt : 0,
	    ready < 0 ? 0 : ready, cp, 100 * hid);
}

/* Writes the status file (shm/zka_gpud_status.h: atomically) and the summary to line. */
static void write_status(struct daemon *d, const char *note, const struct sample *now,
			 const struct sample *old, char *line, size_t linelen)
{
	static struct zka_gpud_status s; /* main thread only */
	static uint64_t key_bytes[CIRCUITS_MAX];
	memset(&s, 0, sizeof s);
	summarize(d, now, old, line, linelen);
	pthread_mutex_lock(&d->mu);
	s.failed = d->failed;
	s.bytes_in = d->bytes_in;
	s.yields = d->yields;
	memcpy(s.keys, d->here, sizeof s.keys);
	memcpy(key_bytes, d->key_bytes, sizeof key_bytes);
	pthread_mutex_unlock(&d->mu);
	for (int i = 0; i < CIRCUITS_MAX; i++)
		if (s.keys[i / 64] >> (i % 64) & 1)
			s.nkeys++, s.key_bytes += key_bytes[i];
	zka_backend_status bs = {0};
	if (d->be->status)
		d->be->status(d->ctx, &bs);
	s.id = d->id;
	s.device = d->device;
	s.pid = (int)getpid();
	s.lanes = d->lanes;
	snprintf(s.backend, sizeof s.backend, "%s", d->be->name);
	/* the note, the device and the kernel image it runs (cuda; the device's name only when
	 * the init note does not carry it already), and any warning */
	const char *dev = bs.device, *semi = strstr(dev, "; ");
	if (semi && (size_t)(semi - dev) > 0 &&
	    memmem(note, strlen(note), dev, (size_t)(semi - dev)))
		dev = semi + 2;
	snprintf(s.note, sizeof s.note, "%.400s%s%.200s%s%.180s", note, dev[0] ? "; " : "", dev,
		 bs.warn[0] ? "; " : "", bs.warn);
	snprintf(s.summary, sizeof s.summary, "%s", line);
	s.mono_ns = (unsigned long long)now->t;
	s.busy_ns = (unsigned long long)now->busy_ns;
	s.proofs = now->proofs;
	s.copy_ns = (unsigned long long)now->copy_ns;
	s.copy_hidden_ns = (unsigned long long)now->copy_hidden_ns;
	s.ready_total = now->ready;
	s.has_mem = bs.has_mem; /* device memory: the cuda backend's (the cpu backend has none) */
	s.mem_used = bs.mem_used;
	s.mem_total = bs.mem_total;
	zka_gpud_status_write(d->name, &s, key_bytes);
}

/* The daemon's flags. */
struct gpud_opts {
	const char *budget;
	const zka_backend *be;
	int device, inflight, id, finishers;
};

/* Parses the flags into o (and puts --table-budget where the CUDA library reads it): -1 to go
 * on, else the exit status (help, version, bad usage). */
static int gpud_options(int argc, char **argv, struct gpud_opts *o)
{
	static const struct option opts[] = {{"backend", required_argument, 0, 'b'},
					     {"device", required_argument, 0, 'd'},
					     {"inflight", required_argument, 0, 'i'},
					     {"finishers", required_argument, 0, 'F'},
					     {"id", required_argument, 0, 'I'},
					     {"table-budget", required_argument, 0, 'T'},
					     {"help", no_argument, 0, 'h'},
					     {"version", no_argument, 0, 'V'},
					     {0, 0, 0, 0}};
	int opt;
	while ((opt = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			if (!strcmp(optarg, "cpu"))
				o->be = &zka_backend_cpu;
			else if (!strcmp(optarg, "cuda"))
				o->be = &zka_backend_cuda;
			else {
				fprintf(stderr,
					"zkarena-gpud: --backend: '%s' is not cpu or cuda\n",
					optarg);
				return 2;
			}
			break;
		case 'd':
			if (zka_opt_int("zkarena-gpud", "--device", optarg, 0, 1023, &o->device))
				return 2;
			break;
		case 'i':
			if (zka_opt_int("zkarena-gpud", "--inflight", optarg, 1, ZKA_LANES_MAX,
					&o->inflight))
				return 2;
			break;
		case 'F':
			if (zka_opt_int("zkarena-gpud", "--finishers", optarg, 1, ZKA_FINISHERS_MAX,
					&o->finishers))
				return 2;
			break;
		case 'I':
			if (zka_opt_int("zkarena-gpud", "--id", optarg, 0, 63, &o->id))
				return 2;
			break;
		case 'T': {
			double t;
			if (zka_budget_parse(optarg, &t)) {
				fprintf(stderr,
					"zkarena-gpud: --table-budget: '%s' is not max, N or Nx (N "
					">= 0)\n",
					optarg);
				return 2;
			}
			o->budget = optarg;
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			return zka_version_print("zkarena-gpud");
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 1) {
		usage(stderr);
		return 2;
	}
	if (o->budget && o->be != &zka_backend_cuda) {
		fprintf(stderr, "zkarena-gpud: --table-budget needs --backend cuda\n");
		return 2;
	}
	/* the CUDA library reads it when each lane's context opens (zka_gpu_set_table_budget) */
	if (o->budget && setenv("ZKG_TABLE_BUDGET", o->budget, 1)) {
		fprintf(stderr, "zkarena-gpud: --table-budget: %s\n", strerror(errno));
		return 2;
	}
	if (!o->inflight)
		o->inflight = o->be == &zka_backend_cuda ? 2 : 1;
	if (!o->finishers)
		o->finishers = 2;
	return -1;
}

int main(int argc, char **argv)
{
	struct gpud_opts o = {.be = &zka_backend_cpu};
	int status = gpud_options(argc, argv, &o);
	if (status >= 0)
		return status;
	const zka_backend *be = o.be;
	int device = o.device, inflight = o.inflight, id = o.id;
	const char *name = argv[optind];
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	struct zka_arena *a = zka_pipe_attach("zkarena-gpud", name, 0);
	int r;
	if (!a)
		return 2;
	char note[512] = "", err[1024] = "";
	struct daemon d = {.a = a,
			   .name = name,
			   .id = id,
			   .device = device,
			   .be = be,
			   .lanes = inflight,
			   .circ = zka_params_cache_new(RETIRED_MAX)};
	if (!d.circ) {
		LOG("out of memory");
		zka_arena_close(a);
		return 1;
	}
	pthread_mutex_init(&d.mu, NULL);
	if ((r = be->init(&d.ctx, a, device, inflight, note, sizeof note, err, sizeof err))) {
		/* never fall back silently to another backend: say it and stop */
		LOG("backend %s unavailable: %s", be->name, err);
		zka_arena_close(a);
		return 2;
	}
	if (be == &zka_backend_cpu)
		snprintf(note + strlen(note), sizeof note - strlen(note), "; %d proof%s in flight",
			 inflight, inflight > 1 ? "s" : "");
	LOG("gpud %d (device %d): %s", id, device, note);
	struct sample hist[HIST];
	int nh = 0;
	char line[512];
	take_sample(&d, &hist[0]);
	nh = 1;
	write_status(&d, note, &hist[0], &hist[0], line, sizeof line);
	zka_notify("READY=1\nSTATUS=gpud %d (device %d, %s): started", id, device, be->name);

	pthread_t th[ZKA_LANES_MAX], fth[ZKA_FINISHERS_MAX];
	struct lane_arg la[ZKA_LANES_MAX];
	int started = 0, fstarted = 0;
	pthread_mutex_init(&d.fmu, NULL);
	pthread_cond_init(&d.fwork, NULL);
	pthread_cond_init(&d.fspace, NULL);
	d.fcap = 2 * inflight;
	if (!(d.fq = calloc((size_t)d.fcap, sizeof *d.fq))) {
		LOG("out of memory");
		atomic_store(&d.fatal, 1);
	}
	for (; d.fq && fstarted < o.finishers; fstarted++) {
		if ((r = pthread_create(&fth[fstarted], NULL, fin_main, &d))) {
			LOG("cannot start finisher %d: %s", fstarted, strerror(r));
			atomic_store(&d.fatal, 1);
			break;
		}
	}
	for (; !atomic_load(&d.fatal) && started < inflight; started++) {
		la[started] = (struct lane_arg){&d, started};
		if ((r = pthread_create(&th[started], NULL, lane_main, &la[started]))) {
			LOG("cannot start lane %d: %s", started, strerror(r));
			atomic_store(&d.fatal, 1);
			break;
		}
	}
	int64_t last_rec = 0, last_log = mono_ns();
	while (!stop && !atomic_load(&d.fatal)) {
		struct timespec ts = {1, 0};
		nanosleep(&ts, NULL);
		int64_t t = mono_ns();
		if (t - last_rec >= 2000000000) { /* periodic recovery of dead owners' records */
			int n = zka_arena_recover(a);
			if (n > 0)
				LOG("recovered %d record(s) of dead processes", n);
			last_rec = t;
		}
		read_others(&d);
		struct sample s;
		take_sample(&d, &s);
		/* the sample 60 s ago (or the first one) is the one this one replaces */
		struct sample old = hist[nh < HIST ? 0 : nh % HIST];
		hist[nh % HIST] = s;
		nh++;
		write_status(&d, note, &s, &old, line, sizeof line);
		zka_notify("WATCHDOG=1\nSTATUS=%s", line);
		if (t - last_log >= 60000000000LL) {
			LOG("%s", line);
			last_log = t;
		}
	}
	/* lanes blocked on a full queue see a fatal stop; finishers then drain what the lanes
	 * proved (a clean stop ends every job whose proof exists) and stop */
	pthread_mutex_lock(&d.fmu);
	pthread_cond_broadcast(&d.fspace);
	pthread_cond_broadcast(&d.fwork);
	pthread_mutex_unlock(&d.fmu);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_lock(&d.fmu);
	d.lanes_done = 1;
	pthread_cond_broadcast(&d.fwork);
	pthread_mutex_unlock(&d.fmu);
	for (int i = 0; i < fstarted; i++)
		pthread_join(fth[i], NULL);
	free(d.fq);
	pthread_cond_destroy(&d.fwork);
	pthread_cond_destroy(&d.fspace);
	pthread_mutex_destroy(&d.fmu);
	be->shutdown(d.ctx);
	zka_params_cache_free(d.circ);
	pthread_mutex_destroy(&d.mu);
	zka_arena_close(a);
	return atomic_load(&d.fatal) ? 1 : 0;
}
