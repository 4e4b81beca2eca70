/* pipe.c - see pipe.h. */
#include "synth/pipe.h"
#include "keys/zka_cache.h"
#include "keys/zka_keys.h"
#include "shm/zka_gpud_status.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

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

/* ---- the loaded keys as a submitter that does not own the arena sees them (synth/client.c) ---- */

/* A submitter that does not own the arena (a member of its group) may use only keys the
 * owner loaded: the LOADED entry with this key's identity, never a region of its own. */
int zka_pipe_find_loaded(struct zka_arena *a, const char *zkey, const char *r1cs, uint32_t *idx,
			 char *err, size_t errlen)
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

int zka_pipe_test_enospc(const char *name)
{
	const char *e = getenv("ZKA_TEST_ENOSPC");
	return e && !strcmp(e, name);
}

int zka_ab_mode_parse(const char *s, enum zka_ab_mode *m)
{
	if (!strcmp(s, "auto"))
		*m = ZKA_AB_AUTO;
	else if (!strcmp(s, "prover"))
		*m = ZKA_AB_PROVER;
	else if (!strcmp(s, "worker"))
		*m = ZKA_AB_WORKER;
	else
		return -EINVAL;
	return 0;
}

int zka_pipe_ab_prover(struct zka_arena *a, enum zka_ab_mode mode, const char *prog)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static double t_last = -1;
	static int on, said = -1;
	if (mode != ZKA_AB_AUTO) {
		int p = mode == ZKA_AB_PROVER;
		pthread_mutex_lock(&mu);
		if (said != p) /* said once */
			zka_pipe_log(prog, "a and b: computed by %s (set: %s)",
				     p ? "the prover (slots hold only the witness)"
				       : "the producer",
				     p ? "prover" : "worker");
		said = p;
		pthread_mutex_unlock(&mu);
		return p;
	}
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double t = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
	pthread_mutex_lock(&mu);
	if (t_last < 0 || t - t_last >= 1.0) {
		t_last = t;
		struct zka_gpud_status st[8];
		int n = zka_gpud_status_read_all(zka_arena_name(a), st, 8), cuda = 0, other = 0;
		for (int i = 0; i < n; i++)
			if (st[i].alive && !st[i].stopped)
				*(!strcmp(st[i].backend, "cuda") ? &cuda : &other) += 1;
		on = cuda > 0 && other == 0;
		if (on != said) /* said once per change */
			zka_pipe_log(
			    prog, "a and b: computed by %s (--ab auto: %d cuda gpud(s), %d other)",
			    on ? "the prover on the device (slots hold only the witness)"
			       : "the producer",
			    cuda, other);
		said = on;
	}
	int r = on;
	pthread_mutex_unlock(&mu);
	return r;
}
