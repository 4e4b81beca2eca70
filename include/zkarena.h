/* zkarena.h - libzkarena: an outside synthesizer writes its vectors straight into a slot of a
 * running zkarena arena and gets its Groth16 proof back.
 *
 * ==== Design notes ====
 *
 * Objects (all opaque; every one is owned by the caller from the call that makes it until the
 * call that frees it, and belongs to the zka_lib it was made from):
 *   zka_lib        an attached arena (zka_lib_open .. zka_lib_close). It holds the process's
 *                  owner entry in the arena, the keys' mapped parameters and the scratch that
 *                  the witness-only shape uses to compute a and b.
 *   zka_lib_key    a proving key loaded into the arena's circuit table (.zka or .zkey; found
 *                  when loaded, else loaded now: only the arena's owner or root loads keys).
 *                  Freed by zka_lib_close (no call of its own: keys are few and shared). A
 *                  bellperson key (a .params imported with --r1cs) also holds its densities,
 *                  made by the first ZKA_LIB_BELLPERSON begin (or zka_lib_key_bp_info).
 *   zka_lib_job    one proof: a leased slot, then a job record in the arena, then a result.
 *                  zka_lib_job_free releases the record and removes a directory the library
 *                  made for the result.
 *   zka_lib_group  N jobs on one key, tied by one group id (the jobs' user tag), waited
 *                  together; it owns its N jobs.
 *
 * A job's states, as the caller sees them (the arena's own states in brackets):
 *   begin  -> LEASED   [slot WRITING(me, job), job LEASED(me, slot)]: the slot's regions are
 *                      the caller's to write; no worker or prover can see the job.
 *   commit -> queued   [slot READY, job READY]: the lengths and values were checked; in the
 *                      witness-only shape a = A w and b = B w were computed into the slot;
 *                      in the bellperson shape a and b past n_constraints were zeroed.
 *          -> FAILED   a refused commit: the job fails with the reason, the slot is freed,
 *                      nothing is proved (zka_lib_commit returns -EINVAL).
 *   abort  -> FAILED   ["aborted by its producer" or the caller's reason]; the slot is freed.
 *   (the producer dies before commit) -> FAILED ["its producer (pid N) died ..."]: recovery
 *                      (any zkarena process's: the daemons run it every 2 s) frees the slot.
 *   queued -> DONE | FAILED (the prover: proof.json and public.json, or the reason)
 * After commit the job is the pipeline's: a producer that dies then loses nothing; the
 * proof is made and written into the job's output directory.
 *
 * Regions. A slot holds, for a key of domain size D and witness length N (w[0] = 1 included):
 *   a: D elements, b: D elements, witness: N elements
 * Every element is 32 bytes: the field element's standard (not Montgomery) form as 4 64-bit
 * limbs, least significant first, little-endian, below the curve's group order r. The
 * pointers point into shared memory that the GPU daemon has registered (pinned): writing them
 * is the only copy between synthesis and the device. They are valid from begin until commit or
 * abort returns; the caller must not touch them afterwards.
 *
 * Shapes:
 *   ZKA_LIB_WITNESS     the caller writes the witness; at commit the library computes
 *                       a = A w and b = B w into the slot from the key's matrices (zkarena's
 *                       own row loop, in the calling process, zka_lib_set_threads threads),
 *                       or leaves them to the proving daemon, which makes them on the GPU
 *                       ($ZKA_LIB_AB: worker = here, prover, auto = the default: the prover
 *                       when every running gpud is cuda, unless the key has its r1cs).
 *   ZKA_LIB_WITNESS_AB  the caller writes the witness, a and b (its own synthesis).
 *   ZKA_LIB_BELLPERSON  bellperson's prover input, as supraseal-c2's Assignment holds it, on a
 *                       bellperson key (.params imported with --r1cs: BLS12-381, monomial H;
 *                       begin refuses another key, naming why): the caller writes a and b
 *                       (its first n_constraints elements each), the input assignment into
 *                       witness and the aux assignment after it; zka_lib_commit_bellperson
 *                       hands over c and the A-aux, B-input and B-aux density bitmaps.
 *                       bellperson's variable order (one, inputs, aux) is zkarena's witness
 *                       order (w[0] = 1, public, private), so the slot's [a][b][witness]
 *                       layout holds the assignment as it is and nothing is copied. The
 *                       slot holds no c: every prover computes c = a .* b from the slot, so
 *                       the caller's c is checked against it (c[i] = a[i] b[i]) and not
 *                       stored. The bitmaps must equal the key's densities (its circuit's,
 *                       as the import expanded its points with them): a producer whose
 *                       circuit is not the key's is refused at commit, not by a proof that
 *                       does not verify. aux has no region of its own, and
 *                       struct zka_lib_regions no new field: callers of 0.1 allocate it.
 *   The circom shapes take bellperson keys too (a and b from the key's matrices). Any
 *   BLS12-381 job's proof is also given as bellperson's 192 bytes
 *   (zka_lib_job_proof_bellperson). Both backends prove monomial-H keys (the GPU's monomial
 *   H: docs/bellperson.md).
 *
 * Conventions: every int function returns 0 (or a documented non-negative value) or -errno;
 * on failure zka_lib_error() returns a one-line reason (thread-local, valid until this thread's
 * next libzkarena call). A struct zka_lib_bp_commit's c and bitmaps are the caller's, only read
 * during the call. Timeouts are milliseconds: < 0 waits forever, 0 tries once. A zka_lib
 * and everything made from it is used by one thread at a time; threads that produce in
 * parallel open a zka_lib each. No function keeps a pointer the caller passed in after it
 * returns; every string it returns is owned by the object it came from.
 *
 * Crash isolation: the lease's owner is the calling process, recorded as (pid, start time) in
 * the arena like every zkarena process; a producer that dies (SIGKILL included) between begin
 * and commit loses only its own jobs, which fail, and their slots, which are recovered.
 */
#ifndef ZKARENA_H
#define ZKARENA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZKA_LIB_VERSION_MAJOR 0
#define ZKA_LIB_VERSION_MINOR 2

typedef struct zka_lib zka_lib;
typedef struct zka_lib_key zka_lib_key;
typedef struct zka_lib_job zka_lib_job;
typedef struct zka_lib_group zka_lib_group;

/* A key's curve. */
enum { ZKA_LIB_BN254 = 1, ZKA_LIB_BLS12_381 = 2 };
/* Job shapes (see the design note). */
enum { ZKA_LIB_WITNESS = 0, ZKA_LIB_WITNESS_AB = 1, ZKA_LIB_BELLPERSON = 2 };
/* zka_lib_wait's and zka_lib_job_state's answers. */
enum { ZKA_LIB_DONE = 0, ZKA_LIB_FAILED = 1 };

/* A key's geometry: what a job's regions hold. */
struct zka_lib_key_info {
	int curve;	      /* ZKA_LIB_BN254 or ZKA_LIB_BLS12_381 */
	uint32_t n_witness;   /* witness length, w[0] = 1 included */
	uint32_t n_public;    /* public signals: w[1 .. n_public] */
	uint32_t domain_size; /* length of a and of b (a power of two) */
	uint32_t elem_bytes;  /* 32 */
	uint64_t slot_bytes;  /* the bytes a job takes in a slot: 32 (2 domain_size + n_witness) */
	uint64_t arena_slot_bytes; /* what the arena's slots hold (>= slot_bytes) */
};

/* Pointers into a leased slot (see "Regions"); a and b are NULL in the ZKA_LIB_WITNESS shape.
 * In the ZKA_LIB_BELLPERSON shape witness is the input assignment (n_public + 1 elements,
 * input[0] = 1) and the aux assignment right after it, at witness + 32 (n_public + 1).
 * Owned by the arena; valid until the job's commit or abort returns. */
struct zka_lib_regions {
	uint8_t *witness;
	uint64_t n_witness;
	uint8_t *a, *b;
	uint64_t n_ab;
};

/* A bellperson key's job geometry (ZKA_LIB_BELLPERSON, see "Shapes"). */
struct zka_lib_bp_info {
	uint64_t n_constraints; /* length of a, b, c: the circuit's constraints + n_input */
	uint64_t n_input;	/* input assignment: n_public + 1 (the one first) */
	uint64_t n_aux;		/* aux assignment: n_witness - n_input */
};

/* What a ZKA_LIB_BELLPERSON commit hands over, as supraseal-c2's Assignment holds it. a, b
 * and the assignments are in the slot already; c and the bitmaps are the caller's memory, only
 * read during the call. A bitmap's bit i is bit i % 8 of byte i / 8 (LSB first: on a
 * little-endian machine the uint64_t words of a bitvec, as supraseal and bellperson store
 * them); bits past its length are ignored. */
struct zka_lib_bp_commit {
	uint64_t n_constraints; /* elements of a, b, c written */
	uint64_t n_input, n_aux;
	const uint64_t (*c)[4];		/* n_constraints elements, standard form */
	const uint8_t *a_aux_density;	/* n_aux bits: aux variable i appears in A */
	const uint8_t *b_input_density; /* n_input bits: input variable i appears in B */
	const uint8_t *b_aux_density;	/* n_aux bits: aux variable i appears in B */
	/* 0: every value (the slot's and c) in standard form, as in the other shapes; 1: in
	 * Montgomery form (x R mod r, R = 2^256), the form blstrs's Scalar and supraseal's fr_t
	 * hold in memory, so such buffers are copied as they are: commit converts the slot's
	 * values in place (zka_lib_set_threads threads) after checking them below r */
	int montgomery;
};

/* The reason of the calling thread's last failed call (never NULL; "" when none). */
const char *zka_lib_error(void);
/* The library's version, "MAJOR.MINOR" (a static string). */
const char *zka_lib_version(void);

/* Attaches to the running arena NAME (`zkarena arena create NAME`; its daemons started by
 * `zkarena run NAME` or the units). 0 with *out; -ENOENT no such arena, -EPERM another user's,
 * -EPROTO another layout version. */
int zka_lib_open(const char *name, zka_lib **out);
/* Detaches: aborts every job still leased (their slots go back), frees every job, group and
 * key made from lib that the caller did not free, and lib itself. NULL is fine. */
void zka_lib_close(zka_lib *lib);
/* Threads for the witness-only shape's a, b (0, the default: every CPU this process may use). */
void zka_lib_set_threads(zka_lib *lib, int threads);

/* Finds the key at path (.zka or .zkey) in the arena's circuit table, loading it when no
 * process has (only the arena's owner or root may). *out is owned by lib (zka_lib_close frees
 * it). -ENOSPC when the arena's slots are too small for the key (the reason names both). */
int zka_lib_key_open(zka_lib *lib, const char *path, zka_lib_key **out);
/* The key's geometry. */
void zka_lib_key_info(const zka_lib_key *key, struct zka_lib_key_info *info);
/* A bellperson key's job geometry: 0, or -EINVAL (not a monomial-H key imported with its
 * circuit: the reason names which) or -ENOMEM. */
int zka_lib_key_bp_info(zka_lib_key *key, struct zka_lib_bp_info *info);

/* Leases a free slot for one proof on key (blocking up to timeout_ms for a slot: -ETIMEDOUT)
 * and fills *regions. out_dir: where the prover writes proof.json and public.json (a
 * directory this user may write, not a symbolic link), or NULL: a new private directory that
 * zka_lib_job_free removes. *job is owned by the caller (zka_lib_job_free). */
int zka_lib_begin(zka_lib_key *key, int shape, const char *out_dir, int timeout_ms,
		  zka_lib_job **job, struct zka_lib_regions *regions);
/* Hands the slot to the prover. n_witness, n_a, n_b: the elements the caller wrote (n_a and n_b
 * 0 in the witness-only shape). Checked: the lengths against the key, w[0] = 1, every element
 * below r, and (witness-only, a key imported with its .r1cs) that the witness satisfies every
 * constraint. A refusal fails the job with the reason (zka_lib_job_reason, zka_lib_error) and
 * frees the slot: -EINVAL, nothing is proved. -EALREADY when the job is not leased. */
int zka_lib_commit(zka_lib_job *job, uint64_t n_witness, uint64_t n_a, uint64_t n_b);
/* The ZKA_LIB_BELLPERSON commit (zka_lib_commit refuses such a job, and this call another
 * shape's). Checked, in this order, each refusal named: the three lengths against the key;
 * c and the bitmaps not NULL; each bitmap equal to the key's density (from its circuit:
 * "b_aux_density bit 17 is 1, the key's is 0"); every input, aux, a, b and c element below r;
 * input[0] = 1; c[i] = a[i] b[i] for every i < n_constraints ("the assignment does not
 * satisfy constraint i"). a and b past n_constraints are zeroed by the library. A refusal is
 * zka_lib_commit's: the job FAILS with the reason, the slot is freed, -EINVAL. */
int zka_lib_commit_bellperson(zka_lib_job *job, const struct zka_lib_bp_commit *bp);
/* Gives a leased job up: it FAILS with reason (NULL: "aborted by its producer"), the slot goes
 * back. -EALREADY when the job is not leased. */
int zka_lib_abort(zka_lib_job *job, const char *reason);
/* Waits up to timeout_ms for a committed job: ZKA_LIB_DONE (0: the proof is read, see
 * zka_lib_job_proof) or ZKA_LIB_FAILED (1: zka_lib_job_reason); -ETIMEDOUT still running;
 * -EINVAL never committed. Repeated calls answer the same. */
int zka_lib_wait(zka_lib_job *job, int timeout_ms);
/* The job's arena id (as `zkarena list` / `wait` show it), 0 before begin succeeded. */
uint64_t zka_lib_job_id(const zka_lib_job *job);
/* After ZKA_LIB_DONE: proof.json's and public.json's text (snarkjs's format, NUL-terminated),
 * owned by job; NULL before. */
const char *zka_lib_job_proof(const zka_lib_job *job);
const char *zka_lib_job_public(const zka_lib_job *job);
/* After ZKA_LIB_DONE, a BLS12-381 job (any shape): the proof as bellperson's 192 bytes
 * (compressed A, B, C) into out. 0; -EAGAIN not DONE; -EINVAL a BN254 job. */
int zka_lib_job_proof_bellperson(const zka_lib_job *job, uint8_t out[192]);
/* After ZKA_LIB_FAILED (or a refused commit): the reason, owned by job; "" otherwise. */
const char *zka_lib_job_reason(const zka_lib_job *job);
/* The directory the prover writes the job's files into (owned by job). */
const char *zka_lib_job_dir(const zka_lib_job *job);
/* Aborts the job if still leased, releases its arena record when zka_lib_wait saw it finish
 * (a committed job freed before that is still proved; its record is freed by the arena's
 * retention), removes the directory the library made for it (out_dir NULL; the proof of a job
 * freed before its end then fails to be written) and frees it. NULL is fine. */
void zka_lib_job_free(zka_lib_job *job);

/* A job group: n (1 .. 1024) proofs on key of one shape. out_dir: the jobs write into
 * out_dir/0 .. out_dir/(n-1) (made when missing), or NULL: private directories. *out is owned
 * by the caller (zka_lib_group_free). */
int zka_lib_group_new(zka_lib_key *key, uint32_t n, int shape, const char *out_dir,
		      zka_lib_group **out);
/* The group's id: the user tag of each of its jobs in the arena (random, not 0). */
uint64_t zka_lib_group_id(const zka_lib_group *g);
/* Begins job i (< n) of the group, as zka_lib_begin. */
int zka_lib_group_begin(zka_lib_group *g, uint32_t i, int timeout_ms,
			struct zka_lib_regions *regions);
/* Commits job i, as zka_lib_commit. */
int zka_lib_group_commit(zka_lib_group *g, uint32_t i, uint64_t n_witness, uint64_t n_a,
			 uint64_t n_b);
/* Commits job i, as zka_lib_commit_bellperson (a ZKA_LIB_BELLPERSON group). */
int zka_lib_group_commit_bellperson(zka_lib_group *g, uint32_t i,
				    const struct zka_lib_bp_commit *bp);
/* Waits for every job of the group (all must have been begun; a refused or aborted one counts
 * as failed): the number of FAILED jobs (0: all DONE), or -ETIMEDOUT, or -EINVAL (a job not
 * begun). */
int zka_lib_group_wait(zka_lib_group *g, int timeout_ms);
/* Job i of the group (owned by the group), NULL when i >= n. */
zka_lib_job *zka_lib_group_job(zka_lib_group *g, uint32_t i);
/* Frees the group and its jobs (as zka_lib_job_free). NULL is fine. */
void zka_lib_group_free(zka_lib_group *g);

#ifdef __cplusplus
}
#endif
#endif
