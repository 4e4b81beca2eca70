/* attest.c - who submitted a job, in the kernel's words (issue 38).
 *
 * ==== Design note ====
 *
 * Problem. A group arena (`arena create --group G`, mode 0660) is written by every member:
 * a member can write any job record, including the submitter's uid/gid, the witness path and
 * the output directory that root's daemons act on. The record alone cannot say who submitted.
 *
 * Object. One attestation file per job, "/dev/shm/zkarena-NAME.att-<nonce>": created by the
 * submitting client with O_CREAT|O_EXCL|O_NOFOLLOW, mode 0444, in /dev/shm (sticky: no other
 * user can remove or replace it; mode 0444: nobody but root writes it). The kernel sets its
 * owner to the submitter's uid. It holds the job's fields as text lines:
 *   zkarena-attest 1 / gid G / circuit C / out_id DEV INO / witness PATH / out PATH
 * The nonce (64 random bits, getrandom) is the record's user_tag, so the name cannot be
 * planted in advance.
 *
 * States: ABSENT -> WRITTEN (zka_attest_create, before zka_job_submit publishes the record)
 *   -> REMOVED (zka_attest_remove: gpud after the job's end, the client on release; or
 *   zka_attest_remove_all with the arena). A file left behind (a client killed between create
 *   and submit, a non-root owner that may not remove a member's file) names no live record and
 *   is harmless.
 *
 * Check (zka_attest_check, by the worker before it opens the witness and by gpud before it
 * writes outputs, only in a group arena): the file named by the record's user_tag is opened
 * O_NOFOLLOW|O_NONBLOCK, must be a regular file owned by the record's uid, and its fields must
 * equal the record's. A forged or changed record fails its job with the reason; its witness
 * is never opened and nothing is written for it.
 *
 * Invariants
 *   1. The daemons act on a group arena's job (open its witness as its uid, write its outputs
 *      as its uid) only with the record's fields attested by a file the kernel says that uid
 *      created.
 *   2. An attestation file is created before the record that names it is published (the
 *      nonce is in user_tag from FILLING on), so a worker never sees a job before its file.
 * What it does not do: keep members from reading the slots (witnesses) or scribbling the
 * arena (which fails jobs, never acts as another user): docs/ops.md, the multi-user model. */
#include "synth/attest.h"

#include "shm/zka_arena.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define ATT_MAX 4096

int zka_attest_needed(const struct zka_arena *a)
{
	uint32_t uid, gid, mode;
	zka_arena_owner(a, &uid, &gid, &mode);
	return (mode & 0060) != 0;
}

static void att_path(char *out, size_t n, const char *arena, uint64_t nonce)
{
	snprintf(out, n, "/dev/shm/zkarena-%s.att-%016" PRIx64, arena, nonce);
}

/* The text an attestation holds for these fields (the same for writer and checker). */
static int att_text(char *out, size_t n, uint32_t gid, uint32_t circuit, uint64_t dev, uint64_t ino,
		    const char *witness, const char *outdir)
{
	int k = snprintf(out, n,
			 "zkarena-attest 1\ngid %u\ncircuit %u\nout_id %" PRIu64 " %" PRIu64
			 "\nwitness %s\nout %s\n",
			 gid, circuit, dev, ino, witness, outdir);
	return k > 0 && (size_t)k < n ? k : -ENAMETOOLONG;
}

int zka_attest_create(const char *arena_name, struct zka_job_spec *spec, char *err, size_t errlen)
{
	char path[ZKA_NAME_MAX + 64], text[ATT_MAX];
	uint64_t nonce = 0;
	int k = att_text(text, sizeof text, spec->gid, spec->circuit, spec->out_dev, spec->out_ino,
			 spec->witness_path, spec->out_dir);
	if (k < 0) {
		snprintf(err, errlen, "job attestation: paths too long");
		return k;
	}
	for (int tries = 0; tries < 8; tries++) {
		if (getrandom(&nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce || !nonce)
			continue;
		att_path(path, sizeof path, arena_name, nonce);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0) {
			snprintf(err, errlen, "job attestation %s: %s", path, strerror(errno));
			return -errno;
		}
		int ok = write(fd, text, (size_t)k) == k;
		int e = errno;
		close(fd);
		if (!ok) {
			unlink(path);
			snprintf(err, errlen, "job attestation %s: %s", path, strerror(e));
			return -EIO;
		}
		spec->user_tag = nonce;
		return 0;
	}
	snprintf(err, errlen, "job attestation: no free name in /dev/shm");
	return -EEXIST;
}

void zka_attest_remove(const char *arena_name, uint64_t nonce)
{
	char path[ZKA_NAME_MAX + 64];
	if (!nonce)
		return;
	att_path(path, sizeof path, arena_name, nonce);
	unlink(path);
}

int zka_attest_check(const char *arena_name, const struct zka_job_info *ji, char *err,
		     size_t errlen)
{
	char path[ZKA_NAME_MAX + 64], want[ATT_MAX], got[ATT_MAX + 1];
	att_path(path, sizeof path, arena_name, ji->user_tag);
	int fd = ji->user_tag ? open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
	struct stat st;
	const char *why = NULL;
	ssize_t n = 0;
	if (fd < 0)
		why = "no attestation file (a record not written by zkarena submit, or forged)";
	else if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		why = "its attestation is not a regular file";
	else if (st.st_uid != ji->uid)
		why = "its attestation was made by another user than the record names";
	else if ((n = read(fd, got, ATT_MAX)) <= 0)
		why = "its attestation cannot be read";
	if (fd >= 0)
		close(fd);
	if (!why) {
		got[n] = 0;
		int k = att_text(want, sizeof want, ji->gid, ji->circuit, ji->out_dev, ji->out_ino,
				 ji->witness_path, ji->out_dir);
		if (k < 0 || (size_t)k != (size_t)n || memcmp(want, got, (size_t)n))
			why =
			    "the record's fields differ from what its submitter attested (changed "
			    "after submit?)";
	}
	if (!why)
		return 0;
	snprintf(err, errlen,
		 "job record of uid %u in group arena %s not attested: %s; refusing to act on it",
		 ji->uid, arena_name, why);
	return -EPERM;
}

int zka_attest_remove_all(const char *arena_name)
{
	char prefix[ZKA_NAME_MAX + 32];
	int k = snprintf(prefix, sizeof prefix, "zkarena-%s.att-", arena_name), n = 0;
	DIR *d = opendir("/dev/shm");
	struct dirent *e;
	while (d && k > 0 && (e = readdir(d)))
		if (!strncmp(e->d_name, prefix, (size_t)k) && strlen(e->d_name) == (size_t)k + 16 &&
		    unlinkat(dirfd(d), e->d_name, 0) == 0)
			n++;
	if (d)
		closedir(d);
	return n;
}
