/* outputs.h - how zkarena-gpud writes a job's proof.json, public.json and done marker into the
 * job's output directory without letting the submitter redirect it (issue 19).
 *
 * The directory is opened by its path with O_DIRECTORY|O_NOFOLLOW and must have the device and
 * inode recorded at submit (zka_client_submit), and be writable by the submitter (its uid/gid in
 * the job): a directory replaced by a symbolic link or another directory fails the job with a
 * reason and nothing is written. Every file is created through that directory fd only, as a
 * temporary file with O_CREAT|O_EXCL|O_NOFOLLOW, written, fsynced, given to the submitter
 * (fchown, when the daemon runs as root), then renamed over its final name with renameat (a
 * final name that is a symbolic link is replaced, never followed; a final name that belongs to
 * another user is refused). The done marker is written last in the same way; it records the
 * job id, the proof attempt and the daemon's pid (re-proofs can be told apart). */
#ifndef ZKA_GPUD_OUTPUTS_H
#define ZKA_GPUD_OUTPUTS_H
#include <stddef.h>
#include <stdint.h>

#include "shm/zka_arena.h"
#include "keys/params.h"
#include "zk/groth16.h"

/* Opens the job's output directory and checks it against the job's identity (see above).
 * Returns the directory fd, or -errno with a one-line reason in err. */
int zka_outputs_open_dir(const struct zka_job_info *ji, char *err, size_t errlen);

/* The done marker of the job in its directory: 0 none; 1 present and the proof beside it
 * verifies with vk and pub (written before a crash: nothing to do); -errno with err when the
 * directory fails its identity check, or the marker is not a regular file, or the proof
 * beside it is missing or does not verify (a planted marker: the job fails). */
int zka_outputs_marker(const struct zka_arena *a, const struct zka_job_info *ji, const zka_vk *vk,
		       const uint64_t (*pub)[4], uint32_t n_pub, char *err, size_t errlen);

/* Writes public.json (the public values w[1..n_public]), proof.json, then the done marker
 * (attempt number attempt). Returns 0 or -errno with err set; on error no final name was
 * created or changed except those already renamed before the failure (public.json before
 * proof.json; the marker only after both). */
int zka_outputs_write(const struct zka_arena *a, const struct zka_job_info *ji, const zka_pk *pk,
		      const zka_proof *proof, const uint64_t (*w)[4], uint32_t attempt, char *err,
		      size_t errlen);

#endif
