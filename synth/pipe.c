/* pipe.c - see pipe.h. */
#include "synth/pipe.h"
#include "keys/zka_cache.h"
#include "keys/zka_keys.h"
#include "zk/binfile.h"

#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

int zka_pipe_slot_view(struct zka_arena *a, uint32_t slot, const zka_pk *pk, zka_slot_view *v)
{
	uint64_t size = 0;
	uint8_t *base = zka_slot_data(a, slot, &size);
	uint64_t need = zka_params_slot_bytes(pk), n = pk->domain_size;
	if (!base)
		return -EINVAL;
	if (size < need)
		return -ENOSPC;
	v->a = (uint64_t(*)[4])base;
	v->b = (uint64_t(*)[4])(base + 32 * n);
	v->w = (uint64_t(*)[4])(base + 64 * n);
	v->bytes = need;
	return 0;
}

/* hash of the first 4 KiB of the key: distinguishes rewritten files with equal size/mtime */
static int key_identity(const char *path, struct zka_circuit_key *k, char *err, size_t errlen)
{
	struct stat st;
	unsigned char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	ssize_t n = read(fd, buf, sizeof buf);
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -EIO;
	}
	k->key_size = (uint64_t)st.st_size;
	k->key_mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	k->header_hash = XXH64(buf, (size_t)n, 0);
	return 0;
}

/* The identity an arena's circuit entry is keyed by: the key file's absolute path (into abs),
 * size, mtime and header hash, with the circuit's mixed in when r1cs is given (the same key
 * with and without its circuit are different entries). With fit, a path too long for the
 * arena's table is refused before the file is read. 0 or -errno with "path: problem". */
static int circuit_key(const char *zkey, const char *r1cs, int fit, char abs[PATH_MAX],
		       struct zka_circuit_key *k, char *err, size_t errlen)
{
	if (!realpath(zkey, abs)) {
		snprintf(err, errlen, "%s: %s", zkey, strerror(errno));
		return -errno;
	}
	if (fit && strlen(abs) >= ZKA_PATH_MAX) {
		snprintf(err, errlen, "%s: path too long for the arena", zkey);
		return -ENAMETOOLONG;
	}
	*k = (struct zka_circuit_key){.key_path = abs};
	int r = key_identity(abs, k, err, errlen);
	if (r || !r1cs)
		return r;
	struct zka_circuit_key rk;
	char rabs[PATH_MAX];
	if (!realpath(r1cs, rabs)) {
		snprintf(err, errlen, "%s: %s", r1cs, strerror(errno));
		return -errno;
	}
	if ((r = key_identity(rabs, &rk, err, errlen)))
		return r;
	k->header_hash ^= XXH64(rabs, strlen(rabs), rk.header_hash ^ rk.key_size) | 1;
	return 0;
}

int zka_pipe_load_circuit(struct zka_arena *a, const char *arena_name, const char *zkey,
			  const char *r1cs, uint32_t *idx, char *err, size_t errlen)
{
	char abs[PATH_MAX];
	struct zka_circuit_key k;
	int r = circuit_key(zkey, r1cs, 1, abs, &k, err, errlen);
	if (r)
		return r;
	for (int tries = 0; tries < 1200; tries++) {
		r = zka_circuit_claim(a, &k, idx);
		if (r == ZKA_CIRCUIT_LOADED)
			return 0;
		if (r < 0) {
			snprintf(err, errlen, "%s: cannot record the circuit in arena %s: %s", zkey,
				 arena_name, r == -ENOSPC ? "circuit table full" : strerror(-r));
			return r;
		}
		if (r == 0)
			break; /* we claimed it: load it */
		/* another process is loading it; a dead loader is recovered by recover() */
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
		if (tries % 20 == 19)
			zka_arena_recover(a);
	}
	if (r != 0) {
		snprintf(err, errlen, "%s: another process has been loading it for a minute", zkey);
		return -ETIMEDOUT;
	}
	char name[ZKA_SHM_NAME_MAX];
	if (zka_keys_find_resident(abs, r1cs, name) != 0) {
		/* no resident region: load the .zka (or the .zkey through the cache) into the
		 * arena's own region, "/zka-<hash of the arena name>+p<entry>.<key hash>": '+'
		 * never appears in an arena name, so no arena's objects match another's prefix */
		snprintf(name, sizeof name, "/zka-%016llx+p%u.%08x",
			 (unsigned long long)XXH64(arena_name, strlen(arena_name), 0), *idx,
			 (unsigned)(k.header_hash ^ (uint64_t)k.key_mtime_ns));
		shm_unlink(name); /* a stale region of an earlier load of this entry */
		zka_keys_opts ko = {.r1cs = r1cs, .no_resident = 1, .shm = name};
		zka_params p;
		r = zka_keys_open(abs, &ko, &p, NULL, err, errlen);
		zka_params_close(&p);
	} /* else the resident region serves the arena; evicting it is `params evict`'s call */
	if (r) {
		zka_circuit_publish(a, *idx, NULL);
		return r;
	}
	r = zka_circuit_publish(a, *idx, name);
	if (r) {
		shm_unlink(name);
		snprintf(err, errlen, "%s: cannot publish the loaded circuit: %s", zkey, strerror(-r));
	}
	return r;
}

/* ---- submit (issue 19): every check that the input allows is made here, naming the file ---- */

/* Opens the output directory as the submitter sees it: not a symbolic link, a directory the
 * submitter may write; records its identity. */
static int submit_out_dir(const char *out_dir, char *o, struct zka_job_spec *spec, char *err,
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

/* A submitter that does not own the arena (a member of its group) may use only keys the
 * owner loaded: the LOADED entry with this key's identity, never a region of its own. */
static int submit_find_loaded(struct zka_arena *a, const char *zkey, const char *r1cs,
			      uint32_t *idx, char *err, size_t errlen)
{
	char abs[PATH_MAX];
	struct zka_circuit_key k;
	int r = circuit_key(zkey, r1cs, 0, abs, &k, err, errlen);
	if (r)
		return r;
	struct zka_arena_geometry g;
	zka_arena_geometry(a, &g);
	for (uint32_t i = 0; i < g.ncircuits; i++) {
		struct zka_circuit_info ci;
		if (zka_circuit_info(a, i, &ci) == 0 && ci.state == ZKA_CIRCUIT_LOADED &&
		    ci.key_size == k.key_size && ci.key_mtime_ns == k.key_mtime_ns &&
		    ci.header_hash == k.header_hash && !strcmp(ci.key_path, abs)) {
			*idx = i;
			return 0;
		}
	}
	uint32_t auid;
	zka_arena_owner(a, &auid, NULL, NULL);
	snprintf(err, errlen,
		 "%s: not loaded in this arena, and only its owner (uid %u) loads keys: ask the "
		 "operator to submit it once%s",
		 zkey, (unsigned)auid, r1cs ? " with this --r1cs" : "");
	return -EPERM;
}

int zka_pipe_submit(struct zka_arena *a, const char *arena_name, const char *zkey,
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
	if ((r = submit_out_dir(out_dir, o, &spec, err, errlen)))
		return r;
	if (strlen(w) >= ZKA_PATH_MAX || strlen(o) >= ZKA_PATH_MAX) {
		snprintf(err, errlen, "%s: path too long for the arena", strlen(w) >= ZKA_PATH_MAX ? wtns : out_dir);
		return -ENAMETOOLONG;
	}
	uint32_t idx, auid;
	zka_arena_owner(a, &auid, NULL, NULL);
	if (geteuid() == auid || geteuid() == 0)
		r = zka_pipe_load_circuit(a, arena_name, zkey, r1cs, &idx, err, errlen);
	else
		r = submit_find_loaded(a, zkey, r1cs, &idx, err, errlen);
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
		snprintf(err, errlen,
			 "%s: the key needs slots of %llu bytes but arena %s's slots hold %llu bytes "
			 "(create it with --slot-bytes %llu or more)",
			 zkey, (unsigned long long)need, arena_name,
			 (unsigned long long)g.slot_stride, (unsigned long long)need);
		zka_params_close(&prm);
		return -ENOSPC;
	}
	r = submit_witness(wtns, w, &prm.pk, err, errlen);
	zka_params_close(&prm);
	if (r)
		return r;
queue:
	spec.circuit = idx;
	spec.witness_path = w;
	spec.out_dir = o;
	r = zka_job_submit(a, &spec, id, 10000);
	if (r == -EAGAIN) {
		uint32_t used, fin;
		zka_job_counts(a, &used, &fin);
		snprintf(err, errlen,
			 "arena %s: cannot queue the job: job table full: all %u records are live "
			 "(%u queued or in progress; finished ones are freed as needed) after 10 s",
			 arena_name, g.njobs, used - fin);
	} else if (r) {
		snprintf(err, errlen, "arena %s: cannot queue the job: %s", arena_name, strerror(-r));
	}
	return r;
}

int zka_pipe_unlink_params(const char *arena_name)
{
	char prefix[64];
	snprintf(prefix, sizeof prefix, "zka-%016llx+p",
		 (unsigned long long)XXH64(arena_name, strlen(arena_name), 0));
	DIR *d = opendir("/dev/shm");
	int n = 0;
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		char name[300];
		snprintf(name, sizeof name, "/%s", e->d_name);
		if (shm_unlink(name) == 0)
			n++;
	}
	closedir(d);
	return n;
}

void zka_pipe_marker(char *out, size_t n, const struct zka_arena *a, const char *out_dir, uint64_t id)
{
	struct zka_arena_geometry geo;
	zka_arena_geometry(a, &geo);
	snprintf(out, n, "%s/.zkarena-job-%lld-%llu.done", out_dir, (long long)geo.epoch_ns,
		 (unsigned long long)id);
}

struct zka_arena *zka_pipe_attach(const char *prog, const char *name, int flags)
{
	struct zka_arena *a = NULL;
	const char *msg = NULL;
	int r = zka_arena_open(name, flags, &a, &msg);
	if (r) {
		fprintf(stderr, "%s: arena %s: %s\n", prog, name, msg ? msg : strerror(-r));
		return NULL;
	}
	return a;
}

void zka_pipe_log(const char *prog, const char *fmt, ...)
{
	va_list ap;
	char buf[1200];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s[%d]: %s\n", prog, (int)getpid(), buf);
}

void zka_pipe_test_delay(const char *var)
{
	const char *d = getenv(var);
	int ms = d ? atoi(d) : 0;
	if (ms > 0) {
		struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
		nanosleep(&ts, NULL);
	}
}
