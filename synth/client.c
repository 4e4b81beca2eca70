/* client.c - the job client: what a process that is not a daemon does to have proofs made.
 *
 * ==== Design notes ====
 *
 * Objects. A job record in the arena (shm/zka_arena.h), the output directory the client names,
 * and the done marker ".zkarena-job-EPOCH-ID.done" that the prover leaves in it
 * (gpud/outputs.c) before it marks the job DONE.
 *
 * A job as its client sees it:
 *   (none) -> queued (zka_client_submit: every check the input allows made here, naming the
 *             file; the record SUBMITTED) -> running -> DONE | FAILED (zka_client_wait)
 *   DONE | FAILED -> released (zka_job_release: the client gives the record back)
 *   DONE | FAILED -> retained (freed by retention: the record keeps its final state until
 *             reused) -> marker only (reused: the outcome is read from the done marker)
 * Cancelling (zka_job_cancel) and listing (zka_job_info over the table) are the arena's own
 * calls: the CLI uses them as they are.
 *
 * Transition table:
 *   zka_client_submit       (none) -> queued; nothing queued on any error
 *   zka_client_wait         queued|running -> DONE|FAILED (blocks on the job's futex), or
 *                           reads a retained record, or the done marker
 *   zka_client_marker_read  reads the marker: no transition
 *
 * Invariants:
 *   J1. A job is queued only after its witness (a regular file of the key's curve and length),
 *       its output directory (not a link, a directory the submitter may write) and the slot
 *       size were checked; the directory's device and inode and the submitter's uid/gid go
 *       into the record, so the prover writes only there, files owned by the submitter.
 *   J2. Only the arena's owner (or root) loads keys; a group member submits against the keys
 *       the owner loaded (zka_pipe_find_loaded), never a region of its own.
 *   J3. The marker's name carries the arena's creation time and the job id: a marker of an
 *       earlier arena's job with the same id never answers for a new one. It is read with
 *       O_NOFOLLOW | O_NONBLOCK and only as a regular file.
 */
#include "synth/client.h"
#include "keys/zka_cache.h"
#include "synth/attest.h"
#include "synth/pipe.h"
#include "witness/zka_witness.h"
#include "zk/binfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int zka_client_out_dir(const char *out_dir, char *o, struct zka_job_spec *spec, char *err,
		       size_t errlen)
{
	struct stat st;
	if (lstat(out_dir, &st)) {
		snprintf(err, errlen, "--out %s: %s", out_dir, strerror(errno));
		return -errno;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(err, errlen, "--out %s: is a symbolic link (name the directory itself)",
			 out_dir);
		return -ELOOP;
	}
	if (!realpath(out_dir, o)) {
		snprintf(err, errlen, "--out %s: %s", out_dir, strerror(errno));
		return -errno;
	}
	int fd = open(o, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		int e = errno;
		snprintf(err, errlen, "--out %s: %s", out_dir,
			 e == ENOTDIR ? "not a directory" : strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	close(fd);
	if (access(o, W_OK | X_OK)) {
		snprintf(err, errlen, "--out %s: not writable by this user (uid %u): %s", out_dir,
			 (unsigned)getuid(), strerror(errno));
		return -EACCES;
	}
	spec->out_dev = (uint64_t)st.st_dev;
	spec->out_ino = (uint64_t)st.st_ino;
	spec->uid = (uint32_t)getuid();
	spec->gid = (uint32_t)getgid();
	return 0;
}

/* The witness: a readable regular file of the key's curve and length (its header only; the
 * values are checked by the worker). */
static int submit_witness(const char *wtns, const char *w, const zka_pk *pk, char *err,
			  size_t errlen)
{
	zka_binfile bf;
	const uint8_t *p;
	const zka_curve *fc;
	int r = zka_binfile_open(&bf, w, "wtns", 2, 2, err, errlen);
	if (r)
		return r;
	if ((r = zka_binfile_field_header(&bf, w, 4, &p, &fc, err, errlen)) == 0) {
		uint32_t nw = zka_le32(p);
		if (fc != pk->curve) {
			snprintf(err, errlen, "%s: witness is for %s but the key is %s", wtns,
				 fc->pretty, pk->curve->pretty);
			r = -EINVAL;
		} else if (nw != pk->n_vars) {
			snprintf(err, errlen, "%s: witness has %u values but the key expects %u",
				 wtns, nw, pk->n_vars);
			r = -EINVAL;
		} else {
			r = zka_binfile_section(&bf, 2, (uint64_t)nw * 32, &p, NULL, err, errlen);
		}
	}
	zka_binfile_close(&bf);
	return r;
}

int zka_client_submit(struct zka_arena *a, const char *arena_name, const char *zkey,
		      const char *r1cs, const char *wtns, const char *out_dir, uint64_t *id,
		      char *err, size_t errlen)
{
	char w[PATH_MAX], o[PATH_MAX];
	struct zka_job_spec spec = {0};
	int r;
	struct stat wst;
	if (!realpath(wtns, w) || access(w, R_OK) || stat(w, &wst)) {
		snprintf(err, errlen, "%s: %s", wtns, strerror(errno));
		return -errno;
	}
	if (!S_ISREG(wst.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", wtns);
		return -EINVAL;
	}
	if ((r = zka_client_out_dir(out_dir, o, &spec, err, errlen)))
		return r;
	if (strlen(w) >= ZKA_PATH_MAX || strlen(o) >= ZKA_PATH_MAX) {
		snprintf(err, errlen, "%s: path too long for the arena",
			 strlen(w) >= ZKA_PATH_MAX ? wtns : out_dir);
		return -ENAMETOOLONG;
	}
	uint32_t idx, auid;
	zka_arena_owner(a, &auid, NULL, NULL);
	if (geteuid() == auid || geteuid() == 0)
		r = zka_pipe_load_circuit(a, arena_name, zkey, r1cs, &idx, err, errlen);
	else
		r = zka_pipe_find_loaded(a, zkey, r1cs, &idx, err, errlen);
	if (r)
		return r;
	struct zka_circuit_info ci;
	zka_params prm = {0};
	char perr[600];
	struct zka_arena_geometry g;
	uint64_t need;
	zka_arena_geometry(a, &g);
	if ((r = zka_circuit_info(a, idx, &ci)) ||
	    (r = zka_params_owner_check(a, ci.params_shm, perr, sizeof perr))) {
		snprintf(err, errlen, "%s: %s", zkey, r == -ERANGE ? "no circuit entry" : perr);
		return r;
	}
	/* a group member cannot map the owner's region (mode 0600): the daemons check its
	 * witness and slot size then, and name them in the job's reason */
	if ((r = zka_params_open_shape(ci.params_shm, &prm, perr, sizeof perr)) &&
	    geteuid() == auid) {
		snprintf(err, errlen, "%s: %s", zkey, perr);
		return r;
	}
	if (r)
		goto queue;
	need = zka_params_slot_bytes(&prm.pk);
	if (need > g.slot_stride) {
		snprintf(
		    err, errlen,
		    "%s: the key needs slots of %llu bytes but arena %s's slots hold %llu bytes "
		    "(create it with --slot-bytes %llu or more)",
		    zkey, (unsigned long long)need, arena_name, (unsigned long long)g.slot_stride,
		    (unsigned long long)need);
		zka_params_close(&prm);
		return -ENOSPC;
	}
	size_t wl = strlen(w);
	if (wl > 5 && !strcmp(w + wl - 5, ".json")) { /* input.json: the worker computes it */
		char gp[ZKA_PATH_MAX + 8];
		zka_wcg_path(ci.key_path, gp, sizeof gp);
		r = zka_wcg_check_input(gp, w, prm.pk.curve, prm.pk.n_vars, err, errlen);
	} else {
		r = submit_witness(wtns, w, &prm.pk, err, errlen);
	}
	zka_params_close(&prm);
	if (r)
		return r;
queue:
	spec.circuit = idx;
	spec.witness_path = w;
	spec.out_dir = o;
	/* a group arena's daemons act only on records their submitter attested (synth/attest.h) */
	int att = zka_attest_needed(a);
	if (att && (r = zka_attest_create(arena_name, &spec, err, errlen)))
		return r;
	r = zka_job_submit(a, &spec, id, 10000);
	if (r && att)
		zka_attest_remove(arena_name, spec.user_tag);
	if (r == -EAGAIN) {
		uint32_t used, fin;
		zka_job_counts(a, &used, &fin);
		snprintf(err, errlen,
			 "arena %s: cannot queue the job: job table full: all %u records are live "
			 "(%u queued or in progress; finished ones are freed as needed) after 10 s",
			 arena_name, g.njobs, used - fin);
	} else if (r) {
		snprintf(err, errlen, "arena %s: cannot queue the job: %s", arena_name,
			 strerror(-r));
	}
	return r;
}

int zka_client_marker_read(const struct zka_arena *a, const char *dir, uint64_t id, char *line,
			   size_t n)
{
	char mk[ZKA_PATH_MAX + 128];
	zka_client_marker(mk, sizeof mk, a, dir, id);
	int fd = open(mk, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	ssize_t k = read(fd, line, n - 1);
	close(fd);
	line[k > 0 ? k : 0] = 0;
	line[strcspn(line, "\n")] = 0;
	return 1;
}

/* The outcome of a job whose record is gone: from the record kept after retention freed it
 * (not yet reused), else from the done marker in out_dir. */
static int wait_gone(const struct zka_arena *a, uint64_t id, const char *out_dir,
		     struct zka_client_outcome *o)
{
	if (zka_job_expired(a, id, &o->ji) == 0) {
		o->from = ZKA_CLIENT_RETAINED;
		if (o->ji.state == ZKA_JOB_FAILED)
			return 1;
		out_dir = o->ji.out_dir;
	}
	if (!out_dir)
		return -ESTALE;
	snprintf(o->out_dir, sizeof o->out_dir, "%s", out_dir);
	if (zka_client_marker_read(a, o->out_dir, id, o->marker, sizeof o->marker) != 1)
		return -ENOENT;
	o->from = ZKA_CLIENT_MARKER;
	return 0;
}

int zka_client_wait(struct zka_arena *a, uint64_t id, int timeout_ms, const char *out_dir,
		    struct zka_client_outcome *o)
{
	memset(o, 0, sizeof *o);
	int r = zka_job_wait(a, id, timeout_ms, &o->ji);
	if (r == 0 || r == 1)
		snprintf(o->out_dir, sizeof o->out_dir, "%s", o->ji.out_dir);
	if (r == -ESTALE)
		r = wait_gone(a, id, out_dir, o);
	return r;
}

void zka_client_marker(char *out, size_t n, const struct zka_arena *a, const char *out_dir,
		       uint64_t id)
{
	struct zka_arena_geometry geo;
	zka_arena_geometry(a, &geo);
	snprintf(out, n, "%s/.zkarena-job-%lld-%llu.done", out_dir, (long long)geo.epoch_ns,
		 (unsigned long long)id);
}
