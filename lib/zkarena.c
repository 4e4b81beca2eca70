/* zkarena.c - libzkarena: external producers on top of the arena's lease (shm/zka_arena.h).
 *
 * ==== Design notes ====
 *
 * Objects and ownership: include/zkarena.h's note. Here: a zka_lib wraps one arena handle
 * (struct zka_arena, opened with recovery as every daemon opens it), a params cache (keys'
 * regions mapped read-only), the witness scratch of the witness-only shape (wm and its class
 * map, grown to the largest key, as the worker's) and lists of the keys and the live jobs it
 * made (so that zka_lib_close can abort and free what the caller forgot). A key used in the
 * bellperson shape also holds its densities (zka_bp_density of the region's circuit, one byte
 * per variable), made once by bp_key, which is also where such a key is refused.
 *
 * A zka_lib_job's own state (st), beside the arena's:
 *   NONE -> LEASED (zka_job_lease) -> COMMITTED (zka_job_lease_commit) -> DONE | FAILED
 *   LEASED -> FAILED (a refused commit, or zka_lib_abort: zka_job_lease_abort)
 * Transition table:
 *   zka_lib_begin    NONE -> LEASED          arena: slot FREE -> WRITING(me, j), job LEASED(me)
 *   zka_lib_commit   LEASED -> COMMITTED     arena: slot -> READY, job -> READY
 *   (and zka_lib_commit_bellperson: the same transitions; each refuses the other's shape)
 *                    LEASED -> FAILED        arena: job -> FAILED(reason), slot -> FREE
 *   zka_lib_abort    LEASED -> FAILED        as the refusal
 *   zka_lib_wait     COMMITTED -> DONE | FAILED (zka_client_wait: the record, the retained
 *                    record or the done marker); DONE reads proof.json and public.json and,
 *                    for a BLS12-381 key, encodes the proof's 192 bytes (read back through
 *                    zka_proof_read_json: every point checked) for zka_lib_job_proof_bellperson
 *   zka_lib_job_free any -> (gone): LEASED aborts first; DONE/FAILED records released
 *
 * Invariants:
 *   P1. The regions handed out at begin are the slot's a, b, w for the key (synth/slot_layout.h,
 *       the layout the prover reads), and nothing in this file writes them after commit or
 *       abort: the slot is the pipeline's from then on.
 *   P2. A commit that is refused proves nothing: the job moves LEASED -> FAILED and the slot
 *       goes back to FREE in one arena call, before any READY state exists.
 *   P3. Every check of commit reads the slot's values in place (no copy); in the witness-only
 *       shape a and b are computed from the same witness values that were checked. In the
 *       bellperson shape c is read in place from the caller's memory during the call and not
 *       kept: the prover computes c = a .* b from the slot, the a and b that were checked
 *       against it; the rows past n_constraints are zeroed after the checks passed.
 *   P4. The crash semantics are the arena's: the lease's records are owned by this process
 *       (pid, start time); nothing here needs cleaning after a SIGKILL.
 */
#include "zkarena.h"

#include "keys/zka_cache.h"
#include "shm/zka_arena.h"
#include "synth/client.h"
#include "synth/pipe.h"
#include "synth/slot_layout.h"
#include "zk/abc.h"
#include "zk/bellperson.h"
#include "zk/json_io.h"
#include "zk/par.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { ST_NONE, ST_LEASED, ST_COMMITTED, ST_DONE, ST_FAILED };

struct zka_lib_key {
	zka_lib *lib;
	uint32_t circuit;
	struct zka_lib_key_info info;
	/* the bellperson shape's: the key's densities (zka_bp_density of its circuit, one byte
	 * per variable, 0 or 1), made by the first bellperson begin; n_constraints of a, b, c */
	uint8_t *in_a, *in_b;
	uint64_t bp_constraints;
	char path[PATH_MAX];
	struct zka_lib_key *next;
};

struct zka_lib_job {
	zka_lib *lib;
	zka_lib_key *key;
	int shape, st, own_dir;
	uint32_t slot;
	uint64_t id;
	char dir[PATH_MAX];
	char reason[ZKA_REASON_MAX];
	char *proof, *pub;
	int has_bp; /* bp holds the proof's 192 bytes (a DONE BLS12-381 job) */
	uint8_t bp[ZKA_BP_PROOF_BYTES];
	struct zka_lib_job *prev, *next; /* lib's list of jobs not freed */
};

struct zka_lib_group {
	zka_lib *lib;
	zka_lib_key *key;
	struct zka_lib_group *prev, *next; /* lib's list of groups not freed */
	uint32_t n;
	int shape;
	uint64_t gid;
	char *out_dir; /* NULL: private directories */
	zka_lib_job **jobs;
};

struct zka_lib {
	struct zka_arena *a;
	char name[ZKA_NAME_MAX + 1];
	zka_params_cache *cache;
	int threads;
	uint64_t (*wm)[4];
	size_t wm_cap;
	zka_lib_key *keys;
	zka_lib_job *jobs;
	zka_lib_group *groups;
};

static _Thread_local char lib_err[768];

/* Records the thread's last reason and returns rc. */
static int fail(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(lib_err, sizeof lib_err, fmt, ap);
	va_end(ap);
	return rc;
}

const char *zka_lib_error(void)
{
	return lib_err;
}

const char *zka_lib_version(void)
{
	return "0.2";
}

int zka_lib_open(const char *name, zka_lib **out)
{
	const char *msg = NULL;
	int rc;
	lib_err[0] = 0;
	zka_lib *lib = calloc(1, sizeof *lib);
	if (!lib)
		return fail(-ENOMEM, "out of memory");
	if (!name || (rc = zka_arena_open(name, 0, &lib->a, &msg)) < 0) {
		rc = name ? rc : -EINVAL;
		fail(rc, "arena %s: %s", name ? name : "(null)", msg ? msg : strerror(-rc));
		goto err;
	}
	snprintf(lib->name, sizeof lib->name, "%s", name);
	if (!(lib->cache = zka_params_cache_new(0))) {
		rc = fail(-ENOMEM, "out of memory");
		goto err;
	}
	*out = lib;
	return 0;
err:
	if (lib->a)
		zka_arena_close(lib->a);
	free(lib);
	return rc;
}

void zka_lib_set_threads(zka_lib *lib, int threads)
{
	lib->threads = threads < 0 ? 0 : threads;
}

static int lib_threads(const zka_lib *lib)
{
	return lib->threads ? lib->threads : zka_par_cpus();
}

void zka_lib_close(zka_lib *lib)
{
	if (!lib)
		return;
	while (lib->groups)
		zka_lib_group_free(lib->groups);
	while (lib->jobs)
		zka_lib_job_free(lib->jobs);
	for (zka_lib_key *k = lib->keys, *n; k; k = n) {
		n = k->next;
		free(k->in_a);
		free(k->in_b);
		free(k);
	}
	zka_params_cache_free(lib->cache);
	zka_abc_scratch_free(lib->wm, lib->wm_cap);
	zka_arena_close(lib->a);
	free(lib);
}

/* The key's params (mapped by the cache; valid until the circuit entry is replaced). */
static const zka_params *key_params(zka_lib_key *k)
{
	char err[600];
	const zka_params *p =
	    zka_params_cache_get(k->lib->cache, k->lib->a, k->circuit, err, sizeof err);
	if (!p)
		fail(-EIO, "%s: %s", k->path, err);
	return p;
}

int zka_lib_key_open(zka_lib *lib, const char *path, zka_lib_key **out)
{
	char err[700];
	uint32_t idx, auid;
	int rc;
	lib_err[0] = 0;
	if (!path)
		return fail(-EINVAL, "key path is NULL");
	zka_arena_owner(lib->a, &auid, NULL, NULL);
	if (geteuid() == auid || geteuid() == 0)
		rc = zka_pipe_load_circuit(lib->a, lib->name, path, NULL, &idx, err, sizeof err);
	else
		rc = zka_pipe_find_loaded(lib->a, path, NULL, &idx, err, sizeof err);
	if (rc)
		return fail(rc, "%s", err);
	for (zka_lib_key *k = lib->keys; k; k = k->next)
		if (k->circuit == idx) {
			*out = k;
			return 0;
		}
	zka_lib_key *k = calloc(1, sizeof *k);
	if (!k)
		return fail(-ENOMEM, "out of memory");
	k->lib = lib;
	k->circuit = idx;
	snprintf(k->path, sizeof k->path, "%s", path);
	const zka_params *p = key_params(k);
	if (!p) {
		free(k);
		return -EIO;
	}
	struct zka_arena_geometry g;
	zka_arena_geometry(lib->a, &g);
	struct zka_lib_key_info *in = &k->info;
	in->curve = !strcmp(p->pk.curve->name, "bn128") ? ZKA_LIB_BN254 : ZKA_LIB_BLS12_381;
	in->n_witness = p->pk.n_vars;
	in->n_public = p->pk.n_public;
	in->domain_size = p->pk.domain_size;
	in->elem_bytes = 32;
	in->slot_bytes = zka_params_slot_bytes(&p->pk);
	in->arena_slot_bytes = g.slot_stride;
	if (in->slot_bytes > g.slot_stride) {
		rc = fail(-ENOSPC,
			  "%s: the key needs slots of %llu bytes but arena %s's slots hold %llu "
			  "bytes (create it with --slot-bytes %llu or more)",
			  path, (unsigned long long)in->slot_bytes, lib->name,
			  (unsigned long long)g.slot_stride, (unsigned long long)in->slot_bytes);
		free(k);
		return rc;
	}
	k->next = lib->keys;
	lib->keys = k;
	*out = k;
	return 0;
}

void zka_lib_key_info(const zka_lib_key *key, struct zka_lib_key_info *info)
{
	*info = key->info;
}

/* Removes the files in a directory the library made, then the directory. */
static void remove_own_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(dir);
}

/* The bellperson shape's prerequisites on key (a monomial-H key with its circuit) and its
 * densities, made once per key; *out (when not NULL) the key's params. 0, or -EIO (the params
 * not mapped), -EINVAL or -ENOMEM with the thread's reason. */
static int bp_key(zka_lib_key *k, const zka_params **out)
{
	const zka_params *p = key_params(k);
	uint32_t na, nb;
	if (!p)
		return -EIO;
	if (out)
		*out = p;
	if (p->pk.h_kind != ZKA_H_MONOMIAL)
		return fail(-EINVAL,
			    "%s: ZKA_LIB_BELLPERSON needs a bellperson key (a .params imported "
			    "with --r1cs: monomial H); this is a snarkjs key",
			    k->path);
	if (!p->has_r1cs)
		return fail(-EINVAL,
			    "%s: ZKA_LIB_BELLPERSON needs the key's circuit (the densities come "
			    "from it): import the .params with --r1cs",
			    k->path);
	if (k->in_a)
		return 0;
	uint64_t n = (uint64_t)p->cs.n_constraints + p->pk.n_public + 1;
	if (n > p->pk.domain_size || p->cs.n_wires != p->pk.n_vars)
		return fail(-EINVAL, "%s: the key's circuit (%llu rows, %u wires) does not fit it",
			    k->path, (unsigned long long)n, p->cs.n_wires);
	if (zka_bp_density(&p->cs, &k->in_a, &k->in_b, &na, &nb))
		return fail(-ENOMEM, "out of memory for the key's densities");
	k->bp_constraints = n;
	return 0;
}

int zka_lib_key_bp_info(zka_lib_key *key, struct zka_lib_bp_info *info)
{
	lib_err[0] = 0;
	const zka_params *p = NULL;
	int rc;
	if ((rc = bp_key(key, &p)))
		return rc;
	info->n_constraints = key->bp_constraints;
	info->n_input = (uint64_t)p->pk.n_public + 1;
	info->n_aux = p->pk.n_vars - info->n_input;
	return 0;
}

/* A job shape known, and for ZKA_LIB_BELLPERSON the key fit for it (bp_key): 0, or the
 * refusal (-EINVAL, or bp_key's) with the thread's reason, before anything is taken. */
static int shape_check(zka_lib_key *key, int shape)
{
	if (shape != ZKA_LIB_WITNESS && shape != ZKA_LIB_WITNESS_AB && shape != ZKA_LIB_BELLPERSON)
		return fail(
		    -EINVAL,
		    "shape %d: not ZKA_LIB_WITNESS, ZKA_LIB_WITNESS_AB or ZKA_LIB_BELLPERSON",
		    shape);
	return shape == ZKA_LIB_BELLPERSON ? bp_key(key, NULL) : 0;
}

/* Begin with a user tag (the group id, or 0). */
static int begin(zka_lib_key *key, int shape, const char *out_dir, uint64_t tag, int timeout_ms,
		 zka_lib_job **out, struct zka_lib_regions *rg)
{
	zka_lib *lib = key->lib;
	int rc;
	char resolved[PATH_MAX], err[700], label[64];
	struct zka_job_spec spec = {0};
	zka_slot_view v;
	lib_err[0] = 0;
	if ((rc = shape_check(key, shape))) /* refused before a slot or a directory is taken */
		return rc;
	zka_lib_job *j = calloc(1, sizeof *j);
	if (!j)
		return fail(-ENOMEM, "out of memory");
	j->lib = lib;
	j->key = key;
	j->shape = shape;
	if (!out_dir) {
		const char *t = getenv("TMPDIR");
		snprintf(j->dir, sizeof j->dir, "%s/zkarena-job-XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(j->dir)) {
			rc = fail(-errno, "%s: cannot make a directory for the result: %s", j->dir,
				  strerror(errno));
			goto err;
		}
		j->own_dir = 1;
		out_dir = j->dir;
	}
	if ((rc = zka_client_out_dir(out_dir, resolved, &spec, err, sizeof err))) {
		fail(rc, "%s", err);
		goto err;
	}
	if (strlen(resolved) >= ZKA_PATH_MAX) {
		rc = fail(-ENAMETOOLONG, "%s: path too long for the arena", out_dir);
		goto err;
	}
	snprintf(j->dir, sizeof j->dir, "%s", resolved);
	const zka_params *p = key_params(key);
	if (!p) {
		rc = -EIO;
		goto err;
	}
	snprintf(label, sizeof label, "(libzkarena producer, pid %d)", (int)getpid());
	spec.circuit = key->circuit;
	spec.witness_path = label;
	spec.out_dir = j->dir;
	spec.user_tag = tag;
	if ((rc = zka_job_lease(lib->a, &spec, &j->slot, &j->id, timeout_ms))) {
		fail(rc, "arena %s: no slot leased: %s", lib->name,
		     rc == -ETIMEDOUT ? "every slot stayed busy (timeout)"
		     : rc == -EAGAIN  ? "the job table stayed full"
				      : strerror(-rc));
		goto err;
	}
	j->st = ST_LEASED;
	if ((rc = zka_slot_layout_view(lib->a, j->slot, &p->pk, &v))) {
		zka_job_lease_abort(lib->a, j->slot, "the slot does not hold the key's vectors");
		fail(rc, "slot %u: does not hold the key's vectors", j->slot);
		goto err;
	}
	rg->witness = (uint8_t *)v.w;
	rg->n_witness = p->pk.n_vars;
	rg->n_ab = p->pk.domain_size;
	rg->a = shape != ZKA_LIB_WITNESS ? (uint8_t *)v.a : NULL;
	rg->b = shape != ZKA_LIB_WITNESS ? (uint8_t *)v.b : NULL;
	j->next = lib->jobs;
	if (lib->jobs)
		lib->jobs->prev = j;
	lib->jobs = j;
	*out = j;
	return 0;
err:
	if (j->own_dir)
		remove_own_dir(j->dir);
	free(j);
	return rc;
}

int zka_lib_begin(zka_lib_key *key, int shape, const char *out_dir, int timeout_ms,
		  zka_lib_job **job, struct zka_lib_regions *regions)
{
	return begin(key, shape, out_dir, 0, timeout_ms, job, regions);
}

/* Is x (4 little-endian limbs) below r? */
static int below(const uint64_t x[4], const uint64_t r[4])
{
	for (int i = 3; i >= 0; i--)
		if (x[i] != r[i])
			return x[i] < r[i];
	return 0;
}

/* The first element of v (n of them) that is not below r: its index + 1, or 0. */
static uint64_t first_not_below(const uint64_t (*v)[4], uint64_t n, const uint64_t r[4])
{
	for (uint64_t i = 0; i < n; i++)
		if (!below(v[i], r))
			return i + 1;
	return 0;
}

/* Refuses job's commit: the job FAILS with the reason, the slot goes back (P2). */
static int refuse(zka_lib_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(zka_lib_job *j, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(j->reason, sizeof j->reason, fmt, ap);
	va_end(ap);
	int rc = zka_job_lease_abort(j->lib->a, j->slot, j->reason);
	j->st = ST_FAILED;
	fail(-EINVAL, "job %llu: commit refused: %s", (unsigned long long)j->id, j->reason);
	return rc ? rc : -EINVAL;
}

/* Who makes a and b for a witness-only job: $ZKA_LIB_AB (auto, prover or worker: here, in
 * the producer's process; default auto, the prover when every running gpud is cuda;
 * synth/pipe.h). A value that is none of them is said once and taken as auto. */
static int ab_prover(zka_lib *lib)
{
	static _Atomic int said;
	enum zka_ab_mode m = ZKA_AB_AUTO;
	const char *e = getenv("ZKA_LIB_AB");
	if (e && *e && zka_ab_mode_parse(e, &m) && !atomic_exchange(&said, 1))
		fprintf(stderr, "libzkarena: ZKA_LIB_AB='%s' is not auto, prover or worker: auto\n",
			e);
	return zka_pipe_ab_prover(lib->a, m, "libzkarena");
}

/* The checks and, in the witness-only shape, a and b (P3), or form W (the prover makes them).
 * 0, or refuse's -EINVAL. */
static int commit_vectors(zka_lib_job *j, const zka_params *p, const zka_slot_view *v, uint64_t nw,
			  uint64_t na, uint64_t nb)
{
	zka_lib *lib = j->lib;
	const zka_pk *pk = &p->pk;
	const uint64_t *r = pk->curve->r;
	int t = lib_threads(lib);
	if (nw != pk->n_vars)
		return refuse(j, "witness length %llu, the key's is %u", (unsigned long long)nw,
			      pk->n_vars);
	if (j->shape == ZKA_LIB_WITNESS && (na || nb))
		return refuse(j, "a and b given (%llu, %llu values) in the witness-only shape",
			      (unsigned long long)na, (unsigned long long)nb);
	if (j->shape == ZKA_LIB_WITNESS_AB && (na != pk->domain_size || nb != pk->domain_size))
		return refuse(j, "%s length %llu, the key's domain size is %u",
			      na != pk->domain_size ? "a" : "b",
			      (unsigned long long)(na != pk->domain_size ? na : nb),
			      pk->domain_size);
	const uint64_t *w0 = v->w[0];
	if (w0[0] != 1 || w0[1] || w0[2] || w0[3])
		return refuse(j, "witness element 0 is not 1");
	if (j->shape == ZKA_LIB_WITNESS && !p->has_r1cs && ab_prover(lib)) {
		/* form W: the prover makes a and b (synth/slot_layout.c); the witness is checked */
		int64_t bad = zka_abc_witness_mem(pk->curve, (const uint64_t(*)[4])v->w, pk->n_vars,
						  NULL, NULL, 1, t);
		if (bad)
			return refuse(j, "witness element %lld is not below the group order",
				      (long long)bad - 1);
		zka_job_witness_done(lib->a, j->slot);
		return zka_slot_set_form(lib->a, j->slot, ZKA_SLOT_FORM_W) ? refuse(j, "slot form")
									   : 0;
	}
	if (zka_abc_scratch_reserve(&lib->wm, &lib->wm_cap, pk->n_vars))
		return refuse(j, "out of memory for a witness of %u values", pk->n_vars);
	uint64_t *cls = zka_abc_scratch_cls(lib->wm, pk->n_vars);
	int64_t bad = zka_abc_witness_mem(pk->curve, (const uint64_t(*)[4])v->w, pk->n_vars,
					  lib->wm, cls, 1, t);
	if (bad)
		return refuse(j, "witness element %lld is not below the group order",
			      (long long)bad - 1);
	zka_job_witness_done(lib->a, j->slot); /* the witness stage ends (list, metrics) */
	if (j->shape == ZKA_LIB_WITNESS_AB) {
		uint64_t ba = first_not_below((const uint64_t(*)[4])v->a, na, r),
			 bb = first_not_below((const uint64_t(*)[4])v->b, nb, r);
		if (ba || bb)
			return refuse(j, "%s element %llu is not below the group order",
				      ba ? "a" : "b", (unsigned long long)(ba ? ba : bb) - 1);
		return 0;
	}
	const uint64_t(*vs)[4] = zka_params_cache_values_std(lib->cache, j->key->circuit);
	if (!vs)
		return refuse(j, "out of memory for the key's coefficient values");
	int rc =
	    zka_abc_compute(&p->abc, (const uint64_t(*)[4])lib->wm, cls, vs, v->a, v->b, NULL, t);
	if (rc)
		return refuse(j, "computing a, b failed: %s", strerror(-rc));
	if (p->has_r1cs) {
		uint32_t c = 0;
		rc = zka_abc_check_ab(&p->cs, &p->abc, (const uint64_t(*)[4])v->a,
				      (const uint64_t(*)[4])v->b, (const uint64_t(*)[4])lib->wm, 1,
				      t, &c);
		if (rc == 1)
			return refuse(j, "the witness does not satisfy constraint %u", c);
		if (rc)
			return refuse(j, "cannot check the witness: %s", strerror(-rc));
	}
	return 0;
}

/* Bit i of a caller's bitmap (bit i % 8 of byte i / 8). */
static int bit(const uint8_t *m, uint64_t i)
{
	return (m[i / 8] >> (i % 8)) & 1;
}

/* The first bit of m (n bits) that differs from want[0 .. n): its index + 1, or 0. */
static uint64_t first_diff(const uint8_t *m, const uint8_t *want, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (bit(m, i) != want[i])
			return i + 1;
	return 0;
}

/* c = a .* b over a range of chunks, the lowest failing index kept in bad (P3: the slot's a,
 * b and the caller's c read in place). */
#define BP_CHUNK 1024
struct bp_prod {
	const zka_curve *curve;
	const uint64_t (*a)[4], (*b)[4], (*c)[4];
	uint64_t n;
	int mont;	      /* c in Montgomery form (a, b already converted to standard) */
	_Atomic uint64_t bad; /* the lowest failing index, n when none */
};

/* Values of a slot region out of Montgomery form, in place. */
struct bp_conv {
	const zka_curve *curve;
	uint64_t (*v)[4];
	uint64_t n;
};

static void bp_conv_fn(void *ctx, size_t begin, size_t end, int tid)
{
	(void)tid;
	struct bp_conv *x = ctx;
	for (size_t i = begin; i < end; i++)
		x->curve->fr_from_mont(x->v[i], x->v[i]);
}

static void bp_prod_fn(void *ctx, size_t begin, size_t end, int tid)
{
	(void)tid;
	struct bp_prod *x = ctx;
	uint64_t bm[BP_CHUNK][4], ab[BP_CHUNK][4], cs[4];
	for (size_t k = begin; k < end; k++) {
		uint64_t lo = (uint64_t)k * BP_CHUNK,
			 m = x->n - lo < BP_CHUNK ? x->n - lo : BP_CHUNK;
		if (lo >= atomic_load(&x->bad))
			return; /* a lower chunk already failed */
		for (uint64_t i = 0; i < m; i++)
			x->curve->fr_to_mont(bm[i], x->b[lo + i]);
		/* standard a times Montgomery b: the product in standard form */
		zka_abc_product(x->curve, x->a + lo, (const uint64_t(*)[4])bm, ab, (uint32_t)m, 1);
		for (uint64_t i = 0; i < m; i++) {
			const uint64_t *c = x->c[lo + i];
			if (x->mont) {
				x->curve->fr_from_mont(cs, c);
				c = cs;
			}
			if (memcmp(ab[i], c, 32)) {
				uint64_t cur = atomic_load(&x->bad);
				while (lo + i < cur &&
				       !atomic_compare_exchange_weak(&x->bad, &cur, lo + i))
					;
				break;
			}
		}
	}
}

/* The bellperson shape's checks (see zka_lib_commit_bellperson) and the zero rows of a and b
 * past n_constraints. 0, or refuse's -EINVAL. */
static int commit_bp(zka_lib_job *j, const zka_params *p, const zka_slot_view *v,
		     const struct zka_lib_bp_commit *bp)
{
	const zka_pk *pk = &p->pk;
	const zka_lib_key *k = j->key;
	const uint64_t *r = pk->curve->r;
	uint64_t n_in = (uint64_t)pk->n_public + 1, n_aux = pk->n_vars - n_in,
		 n = k->bp_constraints;
	if (!bp)
		return refuse(j, "no commit description (NULL)");
	if (bp->n_constraints != n)
		return refuse(j,
			      "a, b, c length %llu, the key's constraints (input constraints "
			      "included) are %llu",
			      (unsigned long long)bp->n_constraints, (unsigned long long)n);
	if (bp->n_input != n_in)
		return refuse(j, "input assignment length %llu, the key's is %llu",
			      (unsigned long long)bp->n_input, (unsigned long long)n_in);
	if (bp->n_aux != n_aux)
		return refuse(j, "aux assignment length %llu, the key's is %llu",
			      (unsigned long long)bp->n_aux, (unsigned long long)n_aux);
	if (!bp->c || !bp->a_aux_density || !bp->b_input_density || !bp->b_aux_density)
		return refuse(j, "%s is NULL",
			      !bp->c		     ? "c"
			      : !bp->a_aux_density   ? "a_aux_density"
			      : !bp->b_input_density ? "b_input_density"
						     : "b_aux_density");
	struct {
		const char *name;
		const uint8_t *m, *want;
		uint64_t n;
	} d[3] = {{"a_aux_density", bp->a_aux_density, k->in_a + n_in, n_aux},
		  {"b_input_density", bp->b_input_density, k->in_b, n_in},
		  {"b_aux_density", bp->b_aux_density, k->in_b + n_in, n_aux}};
	for (int i = 0; i < 3; i++) {
		uint64_t x = first_diff(d[i].m, d[i].want, d[i].n);
		if (x--)
			return refuse(j, "%s bit %llu is %d, the key's is %d", d[i].name,
				      (unsigned long long)x, bit(d[i].m, x), d[i].want[x]);
	}
	uint64_t bi = first_not_below((const uint64_t(*)[4])v->w, pk->n_vars, r);
	if (bi--)
		return refuse(j, "%s element %llu is not below the group order",
			      bi < n_in ? "input" : "aux",
			      (unsigned long long)(bi < n_in ? bi : bi - n_in));
	const uint64_t(*vec[3])[4] = {(const uint64_t(*)[4])v->a, (const uint64_t(*)[4])v->b,
				      bp->c};
	for (int i = 0; i < 3; i++) {
		uint64_t x = first_not_below(vec[i], n, r);
		if (x--)
			return refuse(j, "%c element %llu is not below the group order", "abc"[i],
				      (unsigned long long)x);
	}
	int t = lib_threads(j->lib);
	if (bp->montgomery) { /* the slot's values to the standard form the provers read */
		struct bp_conv cv[3] = {
		    {pk->curve, v->w, pk->n_vars}, {pk->curve, v->a, n}, {pk->curve, v->b, n}};
		for (int i = 0; i < 3; i++)
			zka_par_for(cv[i].n < 65536 ? 1 : t, cv[i].n, bp_conv_fn, &cv[i]);
	}
	const uint64_t *w0 = v->w[0];
	if (w0[0] != 1 || w0[1] || w0[2] || w0[3])
		return refuse(j, "input element 0 is not 1");
	zka_job_witness_done(j->lib->a, j->slot); /* the witness stage ends (list, metrics) */
	struct bp_prod pr = {.curve = pk->curve,
			     .a = vec[0],
			     .b = vec[1],
			     .c = vec[2],
			     .n = n,
			     .mont = bp->montgomery};
	atomic_init(&pr.bad, n);
	size_t chunks = (size_t)((n + BP_CHUNK - 1) / BP_CHUNK);
	zka_par_for(chunks < 16 ? 1 : t, chunks, bp_prod_fn, &pr);
	uint64_t bad = atomic_load(&pr.bad);
	if (bad < n)
		return refuse(j, "the assignment does not satisfy constraint %llu (c != a b)",
			      (unsigned long long)bad);
	/* rows n .. domain: zero, as bellperson pads a, b, c (the prover reads every row) */
	memset(v->a + n, 0, (size_t)(pk->domain_size - n) * 32);
	memset(v->b + n, 0, (size_t)(pk->domain_size - n) * 32);
	return 0;
}

/* A commit of either kind: bp_call, the bellperson one (bp); else the circom shapes' lengths.
 * Refuses a job of the other kind (its shape decides which call commits it). */
static int commit(zka_lib_job *j, int bp_call, const struct zka_lib_bp_commit *bp,
		  uint64_t n_witness, uint64_t n_a, uint64_t n_b)
{
	zka_slot_view v;
	int rc;
	lib_err[0] = 0;
	if (j->st != ST_LEASED)
		return fail(-EALREADY, "job %llu is not leased (committed, aborted or refused)",
			    (unsigned long long)j->id);
	if (bp_call != (j->shape == ZKA_LIB_BELLPERSON))
		return refuse(j, "%s",
			      bp_call ? "zka_lib_commit_bellperson on a job of another shape"
				      : "a ZKA_LIB_BELLPERSON job commits with "
					"zka_lib_commit_bellperson");
	const zka_params *p = key_params(j->key);
	if (!p)
		return refuse(j, "%s", lib_err);
	if ((rc = zka_slot_layout_view(j->lib->a, j->slot, &p->pk, &v)))
		return refuse(j, "the slot does not hold the key's vectors");
	if ((rc =
		 bp_call ? commit_bp(j, p, &v, bp) : commit_vectors(j, p, &v, n_witness, n_a, n_b)))
		return rc;
	if ((rc = zka_slot_set_used(j->lib->a, j->slot, v.bytes)) ||
	    (rc = zka_job_lease_commit(j->lib->a, j->slot)))
		return fail(rc, "job %llu: commit: %s", (unsigned long long)j->id, strerror(-rc));
	j->st = ST_COMMITTED;
	return 0;
}

int zka_lib_commit(zka_lib_job *j, uint64_t n_witness, uint64_t n_a, uint64_t n_b)
{
	return commit(j, 0, NULL, n_witness, n_a, n_b);
}

int zka_lib_commit_bellperson(zka_lib_job *j, const struct zka_lib_bp_commit *bp)
{
	return commit(j, 1, bp, 0, 0, 0);
}

int zka_lib_abort(zka_lib_job *j, const char *reason)
{
	lib_err[0] = 0;
	if (j->st != ST_LEASED)
		return fail(-EALREADY, "job %llu is not leased", (unsigned long long)j->id);
	snprintf(j->reason, sizeof j->reason, "%s", reason ? reason : "aborted by its producer");
	int rc = zka_job_lease_abort(j->lib->a, j->slot, j->reason);
	j->st = ST_FAILED;
	return rc ? fail(rc, "job %llu: abort: %s", (unsigned long long)j->id, strerror(-rc)) : 0;
}

/* Reads dir/name whole into a new string: NULL with the thread's reason on error. */
static char *read_text(const char *dir, const char *name)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	char *s = NULL;
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > (64 << 20)) {
		fail(-EIO, "%s: %s", path, fd < 0 ? strerror(errno) : "not a regular file");
		goto out;
	}
	if (!(s = malloc((size_t)st.st_size + 1))) {
		fail(-ENOMEM, "out of memory");
		goto out;
	}
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t k = read(fd, s + got, (size_t)st.st_size - got);
		if (k <= 0) {
			fail(-EIO, "%s: short read", path);
			free(s);
			s = NULL;
			goto out;
		}
		got += (size_t)k;
	}
	s[got] = 0;
out:
	if (fd >= 0)
		close(fd);
	return s;
}

int zka_lib_wait(zka_lib_job *j, int timeout_ms)
{
	lib_err[0] = 0;
	if (j->st == ST_DONE)
		return ZKA_LIB_DONE;
	if (j->st == ST_FAILED)
		return ZKA_LIB_FAILED;
	if (j->st != ST_COMMITTED)
		return fail(-EINVAL, "job %llu was never committed", (unsigned long long)j->id);
	struct zka_client_outcome o;
	int rc = zka_client_wait(j->lib->a, j->id, timeout_ms, j->dir, &o);
	if (rc == -ETIMEDOUT)
		return fail(rc, "job %llu: still running", (unsigned long long)j->id);
	if (rc < 0)
		return fail(rc, "job %llu: %s", (unsigned long long)j->id, strerror(-rc));
	if (rc == 1) {
		snprintf(j->reason, sizeof j->reason, "%s", o.ji.reason);
		j->st = ST_FAILED;
		return ZKA_LIB_FAILED;
	}
	if (!(j->proof = read_text(j->dir, "proof.json")) ||
	    !(j->pub = read_text(j->dir, "public.json"))) {
		free(j->proof);
		j->proof = NULL;
		return -EIO;
	}
	if (j->key->info.curve == ZKA_LIB_BLS12_381) { /* bellperson's 192 bytes, from the file */
		char path[PATH_MAX + 16], err[600];
		zka_proof pr;
		snprintf(path, sizeof path, "%s/proof.json", j->dir);
		if (zka_proof_read_json(path, &zka_curve_bls12_381, &pr, err, sizeof err)) {
			free(j->proof);
			free(j->pub);
			j->proof = j->pub = NULL;
			return fail(-EIO, "job %llu: %s", (unsigned long long)j->id, err);
		}
		zka_bp_proof_encode(&pr, j->bp);
		j->has_bp = 1;
	}
	j->st = ST_DONE;
	return ZKA_LIB_DONE;
}

uint64_t zka_lib_job_id(const zka_lib_job *j)
{
	return j->id;
}
const char *zka_lib_job_proof(const zka_lib_job *j)
{
	return j->proof;
}
int zka_lib_job_proof_bellperson(const zka_lib_job *j, uint8_t out[192])
{
	lib_err[0] = 0;
	if (j->st != ST_DONE)
		return fail(-EAGAIN, "job %llu: no proof (not DONE)", (unsigned long long)j->id);
	if (!j->has_bp)
		return fail(-EINVAL,
			    "job %llu: a BN254 job has no bellperson proof (BLS12-381 only)",
			    (unsigned long long)j->id);
	memcpy(out, j->bp, ZKA_BP_PROOF_BYTES);
	return 0;
}
const char *zka_lib_job_public(const zka_lib_job *j)
{
	return j->pub;
}
const char *zka_lib_job_reason(const zka_lib_job *j)
{
	return j->reason;
}
const char *zka_lib_job_dir(const zka_lib_job *j)
{
	return j->dir;
}

void zka_lib_job_free(zka_lib_job *j)
{
	if (!j)
		return;
	zka_lib *lib = j->lib;
	if (j->st == ST_LEASED)
		zka_lib_abort(j, "freed before commit");
	if (j->st == ST_DONE || j->st == ST_FAILED)
		zka_job_release(lib->a, j->id); /* -ESTALE when retention took it: fine */
	if (j->own_dir)
		remove_own_dir(j->dir);
	if (j->prev)
		j->prev->next = j->next;
	else if (lib->jobs == j)
		lib->jobs = j->next;
	if (j->next)
		j->next->prev = j->prev;
	free(j->proof);
	free(j->pub);
	free(j);
}

/* ---- groups ---- */

int zka_lib_group_new(zka_lib_key *key, uint32_t n, int shape, const char *out_dir,
		      zka_lib_group **out)
{
	lib_err[0] = 0;
	if (n < 1 || n > 1024)
		return fail(-EINVAL, "group of %u jobs: 1 .. 1024", n);
	int rc = shape_check(key, shape); /* the key refused now, not at each begin */
	if (rc)
		return rc;
	zka_lib_group *g = calloc(1, sizeof *g);
	if (!g || !(g->jobs = calloc(n, sizeof *g->jobs)) ||
	    (out_dir && !(g->out_dir = strdup(out_dir)))) {
		if (g)
			free(g->jobs);
		free(g);
		return fail(-ENOMEM, "out of memory");
	}
	g->lib = key->lib;
	g->key = key;
	g->n = n;
	g->next = g->lib->groups;
	if (g->lib->groups)
		g->lib->groups->prev = g;
	g->lib->groups = g;
	g->shape = shape;
	while (!g->gid)
		if (getrandom(&g->gid, sizeof g->gid, 0) != sizeof g->gid)
			g->gid = 0;
	*out = g;
	return 0;
}

uint64_t zka_lib_group_id(const zka_lib_group *g)
{
	return g->gid;
}

int zka_lib_group_begin(zka_lib_group *g, uint32_t i, int timeout_ms, struct zka_lib_regions *r)
{
	lib_err[0] = 0;
	if (i >= g->n)
		return fail(-ERANGE, "group job %u: the group has %u", i, g->n);
	if (g->jobs[i])
		return fail(-EALREADY, "group job %u: already begun", i);
	char dir[PATH_MAX];
	if (g->out_dir) {
		if (snprintf(dir, sizeof dir, "%s/%u", g->out_dir, i) >= (int)sizeof dir)
			return fail(-ENAMETOOLONG, "%s: path too long", g->out_dir);
		if ((mkdir(g->out_dir, 0700) && errno != EEXIST) ||
		    (mkdir(dir, 0700) && errno != EEXIST))
			return fail(-errno, "%s: %s", dir, strerror(errno));
	}
	return begin(g->key, g->shape, g->out_dir ? dir : NULL, g->gid, timeout_ms, &g->jobs[i], r);
}

int zka_lib_group_commit(zka_lib_group *g, uint32_t i, uint64_t n_witness, uint64_t n_a,
			 uint64_t n_b)
{
	if (i >= g->n || !g->jobs[i])
		return fail(-EINVAL, "group job %u: not begun", i);
	return zka_lib_commit(g->jobs[i], n_witness, n_a, n_b);
}

int zka_lib_group_commit_bellperson(zka_lib_group *g, uint32_t i,
				    const struct zka_lib_bp_commit *bp)
{
	if (i >= g->n || !g->jobs[i])
		return fail(-EINVAL, "group job %u: not begun", i);
	return zka_lib_commit_bellperson(g->jobs[i], bp);
}

int zka_lib_group_wait(zka_lib_group *g, int timeout_ms)
{
	int failed = 0;
	for (uint32_t i = 0; i < g->n; i++)
		if (!g->jobs[i])
			return fail(-EINVAL, "group job %u: not begun", i);
	/* one deadline for the group: each job waits for what is left of it */
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (uint32_t i = 0; i < g->n; i++) {
		int left = timeout_ms;
		if (timeout_ms > 0) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			int64_t ms = (int64_t)(t1.tv_sec - t0.tv_sec) * 1000 +
				     (t1.tv_nsec - t0.tv_nsec) / 1000000;
			left = ms >= timeout_ms ? 0 : timeout_ms - (int)ms;
		}
		int rc = zka_lib_wait(g->jobs[i], left);
		if (rc < 0)
			return rc;
		failed += rc == ZKA_LIB_FAILED;
	}
	return failed;
}

zka_lib_job *zka_lib_group_job(zka_lib_group *g, uint32_t i)
{
	return i < g->n ? g->jobs[i] : NULL;
}

void zka_lib_group_free(zka_lib_group *g)
{
	if (!g)
		return;
	for (uint32_t i = 0; i < g->n; i++)
		zka_lib_job_free(g->jobs[i]);
	if (g->prev)
		g->prev->next = g->next;
	else if (g->lib->groups == g)
		g->lib->groups = g->next;
	if (g->next)
		g->next->prev = g->prev;
	free(g->jobs);
	free(g->out_dir);
	free(g);
}
