/* fmt_atomic.c - see fmt_atomic.h. */
#include "zk/fmt_atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_uint zka_atomic_seq;

/* Creates a unique temporary file next to path. Returns 0 or -errno. */
int zka_atomic_open(zka_atomic *a, const char *path)
{
	int ret, fd = -1;
	memset(a, 0, sizeof *a);
	a->path = strdup(path);
	size_t n = strlen(path) + 64;
	a->tmp = malloc(n);
	if (!a->path || !a->tmp) {
		ret = -ENOMEM;
		goto err;
	}
	for (int tries = 0; tries < 100; tries++) {
		snprintf(a->tmp, n, "%s.tmp.%ld.%u", path, (long)getpid(),
			 atomic_fetch_add(&zka_atomic_seq, 1));
		fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		ret = -errno;
		goto err;
	}
	a->f = fdopen(fd, "wb");
	if (!a->f) {
		ret = -errno;
		close(fd);
		unlink(a->tmp);
		goto err;
	}
	setvbuf(a->f, NULL, _IOFBF, 1 << 20);
	return 0;
err:
	free(a->path);
	free(a->tmp);
	memset(a, 0, sizeof *a);
	return ret;
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

/* fsyncs the directory holding path; returns 0 or -errno. */
static int zka_fsync_dir(const char *path)
{
	int ret = 0;
	char *copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto err;
	}
	if (fsync(fd) < 0 && errno != EINVAL)
		ret = -errno;
	close(fd);
err:
	free(copy);
	return ret;
}

/* Publishes the temporary file under the destination name. Returns 0 or -errno. */
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
	if (rename(a->tmp, a->path) < 0) {
		ret = -errno;
		goto err;
	}
	/* the data is in place; a directory fsync failure is reported but nothing is undone */
	ret = zka_fsync_dir(a->path);
	free(a->tmp);
	free(a->path);
	memset(a, 0, sizeof *a);
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
	if (a->tmp)
		unlink(a->tmp);
	free(a->tmp);
	free(a->path);
	memset(a, 0, sizeof *a);
}
