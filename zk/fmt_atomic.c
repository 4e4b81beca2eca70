/* fmt_atomic.c - see fmt_atomic.h.
 *
 * Design note. A writer must not be steerable by anyone else who can write the destination's
 * directory (a shared /tmp, a group directory): such a user may plant a symbolic link or a
 * file at any name it can guess, swap the directory for a link between two steps, or race a
 * rename. So:
 *   1. The directory is opened once (O_DIRECTORY, following the caller's path as given) and
 *      every later step is relative to that descriptor (openat, renameat, unlinkat, fsync):
 *      a directory renamed or replaced afterwards is not followed.
 *   2. The temporary name carries 96 random bits (getrandom) besides the pid, and is created
 *      O_CREAT|O_EXCL|O_NOFOLLOW: a planted name fails with EEXIST (and another name is
 *      drawn), never opens someone else's file or follows a link.
 *   3. The destination appears only complete, by renameat (which replaces a link itself,
 *      never its target).
 * States: EMPTY -> OPEN (zka_atomic_open[_mode]: dir fd + temp file) -> EMPTY (commit: the
 * rename; abort: the temp unlinked). On any error nothing is left on disk.
 */
#include "zk/fmt_atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* 24 hex digits from getrandom (never a counter: the name must not be guessable). */
static int random_hex(char out[25])
{
	uint8_t r[12];
	size_t got = 0;
	while (got < sizeof r) {
		ssize_t n = getrandom(r + got, sizeof r - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		got += (size_t)n;
	}
	for (int i = 0; i < 12; i++)
		snprintf(out + 2 * i, 3, "%02x", r[i]);
	return 0;
}

int zka_atomic_tmpat(int dfd, const char *base, mode_t mode, char *tmp, size_t tmpsz)
{
	for (int tries = 0; tries < 16; tries++) {
		char hex[25];
		int r = random_hex(hex);
		if (r)
			return r;
		int k = snprintf(tmp, tmpsz, ".%.80s.tmp.%d.%s", base, (int)getpid(), hex);
		if (k < 0 || (size_t)k >= tmpsz)
			return -ENAMETOOLONG;
		int fd = openat(dfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

int zka_atomic_open_mode(zka_atomic *a, const char *path, mode_t mode)
{
	int ret, fd = -1;
	memset(a, 0, sizeof *a);
	a->dfd = -1;
	a->path = strdup(path);
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	a->tmp = malloc(256);
	if (!a->path || !a->tmp || !dir) {
		ret = -ENOMEM;
		goto err;
	}
	a->base = slash ? slash + 1 - path + a->path : a->path;
	if (!*a->base) {
		ret = -EISDIR;
		goto err;
	}
	a->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (a->dfd < 0) {
		ret = -errno;
		goto err;
	}
	fd = zka_atomic_tmpat(a->dfd, a->base, mode, a->tmp, 256);
	if (fd < 0) {
		ret = fd;
		goto err;
	}
	a->f = fdopen(fd, "wb");
	if (!a->f) {
		ret = -errno;
		close(fd);
		unlinkat(a->dfd, a->tmp, 0);
		goto err;
	}
	setvbuf(a->f, NULL, _IOFBF, 1 << 20);
	free(dir);
	return 0;
err:
	if (a->dfd >= 0)
		close(a->dfd);
	free(dir);
	free(a->path);
	free(a->tmp);
	memset(a, 0, sizeof *a);
	a->dfd = -1;
	return ret;
}

/* Creates a unique, unguessable temporary file next to path (mode 0666 & ~umask). */
int zka_atomic_open(zka_atomic *a, const char *path)
{
	return zka_atomic_open_mode(a, path, 0666);
}

/* Appends n bytes; returns 0 or -EIO (sticky). */
int zka_atomic_write(zka_atomic *a, const void *buf, size_t n)
{
	if (!a->f || a->failed)
		return -EIO;
	if (n && fwrite(buf, 1, n, a->f) != n) {
		a->failed = errno ? errno : EIO;
		return -a->failed;
	}
	return 0;
}

/* Publishes the temporary file under the destination name (renameat in the directory opened
 * at open). Returns 0 or -errno. */
int zka_atomic_commit(zka_atomic *a)
{
	int ret = 0;
	if (!a->f)
		return -EINVAL;
	if (a->failed) {
		ret = -a->failed;
		goto err;
	}
	if (fflush(a->f) != 0 || ferror(a->f) || fsync(fileno(a->f)) < 0) {
		ret = errno ? -errno : -EIO;
		goto err;
	}
	FILE *f = a->f;
	a->f = NULL;
	if (fclose(f) != 0) {
		ret = -errno;
		goto err;
	}
	if (renameat(a->dfd, a->tmp, a->dfd, a->base) < 0) {
		ret = -errno;
		goto err;
	}
	/* the data is in place; a directory fsync failure is reported but nothing is undone */
	if (fsync(a->dfd) < 0 && errno != EINVAL)
		ret = -errno;
	close(a->dfd);
	free(a->tmp);
	free(a->path);
	memset(a, 0, sizeof *a);
	a->dfd = -1;
	return ret;
err:
	zka_atomic_abort(a);
	return ret;
}

/* Closes and removes the temporary file. */
void zka_atomic_abort(zka_atomic *a)
{
	if (a->f)
		fclose(a->f);
	if (a->tmp && a->dfd >= 0)
		unlinkat(a->dfd, a->tmp, 0);
	if (a->dfd > 0)
		close(a->dfd);
	free(a->tmp);
	free(a->path);
	memset(a, 0, sizeof *a);
	a->dfd = -1;
}
