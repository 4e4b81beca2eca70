/* client.h - the job client: submit a proof, wait for it, read its outcome after its record is
 * gone. See client.c for the design note. Used by the CLI (submit, wait, prove --arena, demo,
 * bench pipeline) and the cluster bridge. */
#ifndef ZKA_CLIENT_H
#define ZKA_CLIENT_H
#include <stddef.h>
#include <stdint.h>

#include "shm/zka_arena.h"

/* Submits one job: loads the circuit if needed (only the arena's owner or root loads keys; a
 * group member uses the keys loaded), checks the params region's owner, that the arena's
 * slots hold the key (naming both sizes), the witness (regular file, the key's curve and
 * length), and the output directory (not a symbolic link, a directory this user may write;
 * its device and inode and the submitter's uid/gid go into the job so that the prover writes
 * only there, files owned by the submitter), then queues the job (the oldest finished
 * records are freed when the table is full). Returns 0 with *id set, or -errno with err set
 * (nothing queued). */
int zka_client_submit(struct zka_arena *a, const char *arena_name, const char *zkey,
		      const char *r1cs, const char *wtns, const char *out_dir, uint64_t *id,
		      char *err, size_t errlen);

/* Checks an output directory as the submitter sees it (not a symbolic link, a directory this
 * user may write), writes its real path to resolved (PATH_MAX bytes) and records its device,
 * inode and the submitter's uid/gid in spec. 0 or -errno with err naming it. */
int zka_client_out_dir(const char *out_dir, char *resolved, struct zka_job_spec *spec, char *err,
		       size_t errlen);

/* Where zka_client_wait read the outcome. */
enum { ZKA_CLIENT_RECORD = 0, ZKA_CLIENT_RETAINED = 1, ZKA_CLIENT_MARKER = 2 };

struct zka_client_outcome {
	int from;		/* ZKA_CLIENT_RECORD, _RETAINED (freed, not reused) or _MARKER */
	struct zka_job_info ji; /* the record (RECORD, RETAINED) */
	char out_dir[ZKA_PATH_MAX]; /* the job's output directory, when known */
	char marker[256];	    /* the done marker's first line (MARKER) */
};

/* Waits (up to timeout_ms; -1 forever) for job id to finish: 0 DONE, 1 FAILED (reason in
 * o->ji.reason); -ETIMEDOUT still running; when the record is gone (released, or freed by
 * retention and reused): the outcome from the retained record, else from the done marker in
 * the record's or out_dir's directory (out_dir may be NULL): -ESTALE when there is no
 * directory to look in, -ENOENT when it has no marker for the job (o->out_dir names it);
 * other -errno from zka_job_wait. */
int zka_client_wait(struct zka_arena *a, uint64_t id, int timeout_ms, const char *out_dir,
		    struct zka_client_outcome *o);

/* The name of a job's done marker inside its output directory (the prover writes it: gpud/
 * outputs.c). It carries the arena's creation time as well as the job id, so a marker left by
 * a job of an earlier arena (ids repeat across arenas) never makes a new job with the same id
 * skip its proof. */
void zka_client_marker(char *out, size_t n, const struct zka_arena *a, const char *out_dir,
		       uint64_t id);
/* Reads job id's done marker in dir: 1 (its first line in line), 0 absent, -1 dir unusable
 * or the marker not a regular file (read with O_NOFOLLOW, never blocking). */
int zka_client_marker_read(const struct zka_arena *a, const char *dir, uint64_t id, char *line,
			   size_t n);

#endif
