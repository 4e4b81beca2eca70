/* outputs.c - see outputs.h. */
#include "gpud/outputs.h"
#include "synth/client.h"
#include "synth/pipe.h"
#include "zk/fmt_atomic.h"
#include "zk/json_io.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* May uid/gid write into a directory with this stat? (mode bits, as the kernel decides for a
 * process with that uid and primary group; root may always) */
static int submitter_may_write(const struct stat *st, uint32_t uid, uint32_t gid)
{
	if (uid == 0)
		return 1;
	if (st->st_uid == uid)
		return (st->st_mode & S_IWUSR) && (st->st_mode & S_IXUSR);
	if (st->st_gid == gid)
		return (st->st_mode & S_IWGRP) && (st->st_mode & S_IXGRP);
	return (st->st_mode & S_IWOTH) && (st->st_mode & S_IXOTH);
}

int zka_outputs_open_dir(const struct zka_job_info *ji, char *err, size_t errlen)
{
	if (!ji->out_ino) {
		snprintf(err, errlen,
			 "%s: the job has no recorded output directory identity (submitted by an "
			 "older client?): nothing written",
			 ji->out_dir);
		return -EINVAL;
	}
	int fd = open(ji->out_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "output directory %s: %s%s: nothing written", ji->out_dir,
			 strerror(e),
			 e == ELOOP || e == ENOTDIR ? " (replaced by a symbolic link or a file?)"
						    : "");
		return -e;
	}
	struct stat st;
	if (fstat(fd, &st)) {
		int e = errno;
		close(fd);
		snprintf(err, errlen, "output directory %s: %s", ji->out_dir, strerror(e));
		return -e;
	}
	if ((uint64_t)st.st_dev != ji->out_dev || (uint64_t)st.st_ino != ji->out_ino) {
		close(fd);
		snprintf(
		    err, errlen,
		    "output directory %s is not the directory submitted (device/inode %llu/%llu, "
		    "submitted %llu/%llu: replaced after submit): nothing written",
		    ji->out_dir, (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
		    (unsigned long long)ji->out_dev, (unsigned long long)ji->out_ino);
		return -EXDEV;
	}
	if (!submitter_may_write(&st, ji->uid, ji->gid)) {
		close(fd);
		snprintf(err, errlen,
			 "output directory %s is no longer writable by the submitter (uid %u): "
			 "nothing written",
			 ji->out_dir, ji->uid);
		return -EACCES;
	}
	return fd;
}

/* Reads the regular file name (no link followed) in dfd, at most max bytes, into *buf. */
static int read_at(int dfd, const char *dir, const char *name, size_t max, char **buf, size_t *len,
		   char *err, size_t errlen)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	*buf = NULL;
	if (fd < 0 || fstat(fd, &st)) {
		int e = errno;
		snprintf(err, errlen, "%s/%s: %s", dir, name, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
		close(fd);
		snprintf(err, errlen, "%s/%s: %s", dir, name,
			 S_ISREG(st.st_mode) ? "too large" : "not a regular file");
		return -EINVAL;
	}
	char *b = malloc((size_t)st.st_size + 1);
	size_t n = 0;
	while (b && n < (size_t)st.st_size) {
		ssize_t k = read(fd, b + n, (size_t)st.st_size - n);
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	if (!b || n != (size_t)st.st_size) {
		free(b);
		snprintf(err, errlen, "%s/%s: short read", dir, name);
		return -EIO;
	}
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
}

/* A private directory for the JSON writers (they take paths): 0700, this process's own. */
static int private_dir(char *tmpl, size_t n, char *err, size_t errlen)
{
	const char *base = getenv("TMPDIR");
	if (!base || base[0] != '/')
		base = "/tmp";
	snprintf(tmpl, n, "%s/zkarena-gpud-%d-XXXXXX", base, (int)getpid());
	if (!mkdtemp(tmpl)) {
		snprintf(err, errlen, "cannot create a private temporary directory in %s: %s", base,
			 strerror(errno));
		return -errno;
	}
	return 0;
}

static void private_dir_remove(const char *dir)
{
	char p[600];
	snprintf(p, sizeof p, "%s/proof.json", dir);
	unlink(p);
	snprintf(p, sizeof p, "%s/public.json", dir);
	unlink(p);
	rmdir(dir);
}

/* A file staged in the output directory: its temporary name there, its final name. */
struct staged {
	char tmp[200];
	const char *name;
	int made;
};

/* Stages name in dfd from buf: an unguessable temporary name (zka_atomic_tmpat: O_CREAT|O_EXCL|
 * O_NOFOLLOW) with mode, fchown to the submitter when root, fsync. Nothing is visible under
 * name yet; on error the temporary is removed. */
static int stage_at(int dfd, const struct zka_job_info *ji, struct staged *sf, const char *buf,
		    size_t len, mode_t mode, char *err, size_t errlen)
{
	int fd = zka_atomic_tmpat(dfd, sf->name, mode, sf->tmp, sizeof sf->tmp);
	if (fd < 0) {
		snprintf(err, errlen, "%s/%s: cannot create a temporary file: %s", ji->out_dir,
			 sf->name, strerror(-fd));
		return fd;
	}
	sf->made = 1;
	int e = 0;
	size_t off = 0;
	while (!e && off < len) {
		ssize_t k = write(fd, buf + off, len - off);
		if (k < 0)
			e = errno;
		else
			off += (size_t)k;
	}
	if (!e && geteuid() == 0 && fchown(fd, (uid_t)ji->uid, (gid_t)ji->gid))
		e = errno;
	if (!e && fchmod(fd, mode)) /* the documented mode, whatever gpud's umask */
		e = errno;
	if (!e && fsync(fd))
		e = errno;
	if (close(fd) && !e)
		e = errno;
	if (e) {
		unlinkat(dfd, sf->tmp, 0);
		sf->made = 0;
		snprintf(err, errlen, "%s/%s: %s", ji->out_dir, sf->name, strerror(e));
		return -e;
	}
	return 0;
}

/* Whether name in dfd may be replaced: absent, a link (renameat replaces the link itself), or
 * the submitter's or ours; else -EPERM with the reason. */
static int may_replace(int dfd, const struct zka_job_info *ji, const char *name, char *err,
		       size_t errlen)
{
	struct stat st;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISLNK(st.st_mode) &&
	    st.st_uid != ji->uid && st.st_uid != geteuid()) {
		snprintf(err, errlen,
			 "%s/%s belongs to uid %u, not to the submitter (uid %u): not replaced",
			 ji->out_dir, name, (unsigned)st.st_uid, ji->uid);
		return -EPERM;
	}
	return 0;
}

/* Publishes staged files by renameat, in order; on any error the staged files not yet
 * renamed are removed. */
static int publish_at(int dfd, const struct zka_job_info *ji, struct staged *sf, int n, char *err,
		      size_t errlen)
{
	int r = 0;
	for (int i = 0; i < n && !r; i++)
		r = may_replace(dfd, ji, sf[i].name, err, errlen);
	for (int i = 0; i < n && !r; i++) {
		if (renameat(dfd, sf[i].tmp, dfd, sf[i].name)) {
			r = -errno;
			snprintf(err, errlen, "%s/%s: %s", ji->out_dir, sf[i].name,
				 strerror(errno));
		} else {
			sf[i].made = 0;
		}
	}
	for (int i = 0; i < n; i++)
		if (sf[i].made)
			unlinkat(dfd, sf[i].tmp, 0);
	return r;
}

/* The mode of the outputs: the output directory's read and write bits, at most 0644 (a 0700
 * directory gets 0600 files, a 0750 one 0640); gpud's own umask plays no part. */
static mode_t out_mode(int dfd)
{
	struct stat st;
	if (fstat(dfd, &st))
		return 0600;
	return (mode_t)(st.st_mode & 0644);
}

/* Copies the regular file name of dfd (no link followed) to path (new, in the private dir). */
static int copy_out(int dfd, const char *dir, const char *name, size_t max, const char *path,
		    char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	int r = read_at(dfd, dir, name, max, &buf, &len, err, errlen);
	if (r)
		return r;
	FILE *f = fopen(path, "wx");
	if (!f || fwrite(buf, 1, len, f) != len) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		r = -EIO;
	}
	if (f && fclose(f) && !r) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		r = -EIO;
	}
	free(buf);
	return r;
}

static const char *marker_base(const char *mk)
{
	const char *s = strrchr(mk, '/');
	return s ? s + 1 : mk;
}

int zka_outputs_marker(const struct zka_arena *a, const struct zka_job_info *ji, const zka_vk *vk,
		       const uint64_t (*pub)[4], uint32_t n_pub, char *err, size_t errlen)
{
	char mk[ZKA_PATH_MAX + 128];
	int dfd = zka_outputs_open_dir(ji, err, errlen);
	if (dfd < 0)
		return dfd;
	zka_client_marker(mk, sizeof mk, a, ji->out_dir, ji->id);
	const char *m = marker_base(mk);
	struct stat st;
	int r = 0;
	if (fstatat(dfd, m, &st, AT_SYMLINK_NOFOLLOW)) {
		r = errno == ENOENT ? 0 : -errno;
		if (r)
			snprintf(err, errlen, "%s: %s", mk, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(
		    err, errlen,
		    "done marker %s is not a regular file (%s): not ours, refusing the directory; "
		    "nothing written",
		    mk, S_ISLNK(st.st_mode) ? "a symbolic link" : "a special file");
		r = -EINVAL;
		goto out;
	}
	/* a marker is written only after both files: the proof beside it must verify for this
	 * job's public values, else the marker was planted */
	char pdir[400], path[600], e2[600] = "";
	if ((r = private_dir(pdir, sizeof pdir, err, errlen)))
		goto out;
	zka_proof proof;
	uint64_t(*fpub)[4] = NULL;
	uint32_t fn = 0;
	const char *why = NULL;
	snprintf(path, sizeof path, "%s/proof.json", pdir);
	r = copy_out(dfd, ji->out_dir, "proof.json", 1 << 20, path, e2, sizeof e2);
	if (!r && (r = zka_proof_read_json(path, vk->curve, &proof, e2, sizeof e2)) == 0 &&
	    zka_verify(vk, pub, n_pub, &proof, &why) != 1) {
		snprintf(e2, sizeof e2, "%s/proof.json does not verify for this job (%s)",
			 ji->out_dir, why ? why : "?");
		r = -EBADMSG;
	}
	snprintf(path, sizeof path, "%s/public.json", pdir);
	if (!r)
		r = copy_out(dfd, ji->out_dir, "public.json", 64u << 20, path, e2, sizeof e2);
	if (!r && (r = zka_public_read_json(path, vk->curve, &fpub, &fn, e2, sizeof e2)) == 0 &&
	    (fn != n_pub || (n_pub && memcmp(fpub, pub, (size_t)n_pub * 32)))) {
		snprintf(e2, sizeof e2, "%s/public.json holds other values than this job's",
			 ji->out_dir);
		r = -EBADMSG;
	}
	free(fpub);
	private_dir_remove(pdir);
	if (r) {
		snprintf(
		    err, errlen,
		    "done marker %s present but the outputs beside it are not this job's (%s): "
		    "planted? refusing; nothing written",
		    mk, e2);
		goto out;
	}
	r = 1;
out:
	close(dfd);
	return r;
}

/* Temporary files of an earlier attempt at this job, killed between create and rename: this
 * daemon owns the job now, so no one else is writing them (unlinkat never follows a link). */
static void remove_leftovers(int dfd, const struct zka_job_info *ji)
{
	int d2 = dup(dfd);
	DIR *d = d2 >= 0 ? fdopendir(d2) : NULL;
	if (!d) {
		if (d2 >= 0)
			close(d2);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, ".proof.json.tmp.", 16) ||
		    !strncmp(e->d_name, ".public.json.tmp.", 17) ||
		    (!strncmp(e->d_name, "..zkarena-job-", 14) && strstr(e->d_name, ".done.tmp.")))
			if (unlinkat(dfd, e->d_name, 0) == 0)
				zka_pipe_log("zkarena-gpud",
					     "job %llu: removed %s/%s left by a killed attempt",
					     (unsigned long long)ji->id, ji->out_dir, e->d_name);
	closedir(d);
}

int zka_outputs_write(const struct zka_arena *a, const struct zka_job_info *ji, const zka_pk *pk,
		      const zka_proof *proof, const uint64_t (*w)[4], uint32_t attempt, char *err,
		      size_t errlen)
{
	int dfd = zka_outputs_open_dir(ji, err, errlen);
	if (dfd < 0)
		return dfd;
	remove_leftovers(dfd, ji);
	char pdir[400], path[600];
	int r = private_dir(pdir, sizeof pdir, err, errlen);
	if (r) {
		close(dfd);
		return r;
	}
	/* both files staged first, then renamed: a failure (ENOSPC on either) leaves neither */
	static const char *const names[2] = {"public.json", "proof.json"};
	struct staged sf[2] = {{.name = names[0]}, {.name = names[1]}};
	mode_t mode = out_mode(dfd);
	for (int i = 0; i < 2 && !r; i++) {
		snprintf(path, sizeof path, "%s/%s", pdir, names[i]);
		char e2[600] = "";
		r = i == 0
			? zka_public_write_json(path, pk->curve, w + 1, pk->n_public, e2, sizeof e2)
			: zka_proof_write_json(path, proof, e2, sizeof e2);
		if (r) {
			snprintf(err, errlen, "cannot format %s: %s", names[i], e2);
			break;
		}
		char *buf = NULL;
		size_t len = 0;
		int dd = open(pdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		r = dd < 0 ? -errno
			   : read_at(dd, pdir, names[i], 256u << 20, &buf, &len, e2, sizeof e2);
		if (dd >= 0)
			close(dd);
		if (!r)
			r = zka_pipe_test_enospc(names[i])
				? (snprintf(err, errlen, "%s/%s: %s", ji->out_dir, names[i],
					    strerror(ENOSPC)),
				   -ENOSPC)
				: stage_at(dfd, ji, &sf[i], buf, len, mode, err, errlen);
		else
			snprintf(err, errlen, "cannot read back %s: %s", names[i], e2);
		free(buf);
	}
	private_dir_remove(pdir);
	if (!r)
		r = publish_at(dfd, ji, sf, 2, err, errlen);
	else
		for (int i = 0; i < 2; i++)
			if (sf[i].made)
				unlinkat(dfd, sf[i].tmp, 0);
	if (!r) {
		char mk[ZKA_PATH_MAX + 128], line[200];
		zka_client_marker(mk, sizeof mk, a, ji->out_dir, ji->id);
		int n = snprintf(line, sizeof line,
				 "DONE job %llu attempt %u gpud pid %d at %lld ns (REALTIME)\n",
				 (unsigned long long)ji->id, attempt, (int)getpid(),
				 (long long)ji->t_prove_start);
		struct staged m = {.name = marker_base(mk)};
		r = stage_at(dfd, ji, &m, line, (size_t)n, mode, err, errlen);
		if (!r)
			r = publish_at(dfd, ji, &m, 1, err, errlen);
	}
	if (!r && fsync(dfd)) {
		r = -errno;
		snprintf(err, errlen, "%s: fsync: %s", ji->out_dir, strerror(errno));
	}
	close(dfd);
	return r;
}
