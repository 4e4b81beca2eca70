/* attest.h - a submitter's attestation of its job in a group arena (issue 38). See attest.c's
 * design note. */
#ifndef ZKA_ATTEST_H
#define ZKA_ATTEST_H

#include <stddef.h>
#include <stdint.h>

struct zka_arena;
struct zka_job_info;
struct zka_job_spec;

/* Whether arena a is shared with a group (mode g+rw): its records are then written by
 * members too, and the daemons act on a job only when its attestation matches. */
int zka_attest_needed(const struct zka_arena *a);
/* Client, before zka_job_submit: draws a random nonce into spec->user_tag and creates
 * "/dev/shm/zkarena-NAME.att-<nonce>" (O_EXCL|O_NOFOLLOW, mode 0444, so owned by this
 * process's uid: the kernel's word for who submitted) holding the spec's fields. 0 or -errno
 * with err. */
int zka_attest_create(const char *arena_name, struct zka_job_spec *spec, char *err, size_t errlen);
/* Removes the attestation of the job with this nonce (its submitter, root, or anyone who may:
 * best effort). */
void zka_attest_remove(const char *arena_name, uint64_t nonce);
/* Daemons: 0 when ji is attested (the file named by ji->user_tag is a regular file owned by
 * ji->uid whose fields equal the record's), else -EPERM with a one-line reason in err. */
int zka_attest_check(const char *arena_name, const struct zka_job_info *ji, char *err,
		     size_t errlen);
/* Removes every attestation file of arena name that this process may remove; their count. */
int zka_attest_remove_all(const char *arena_name);

#endif
