/* binfile.c - see binfile.h. */
#include "zk/binfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zk/fmt_err.h"

/* Formats the 4 magic bytes printable, for messages. */
static void zka_magic_str(char out[20], const uint8_t *m)
{
	int printable = 1;
	for (int i = 0; i < 4; i++)
		if (m[i] < 0x20 || m[i] > 0x7e || m[i] == '"' || m[i] == '\\')
			printable = 0;
	if (printable)
		snprintf(out, 20, "\"%c%c%c%c\"", m[0], m[1], m[2], m[3]);
	else
		snprintf(out, 20, "0x%02x%02x%02x%02x", m[0], m[1], m[2], m[3]);
}

/* Maps the file and validates the header and section table. Returns 0 or -errno. */
int zka_binfile_open(zka_binfile *bf, const char *path, const char *magic, uint32_t min_version,
		     uint32_t max_version, char *err, size_t errlen)
{
	int ret;
	memset(bf, 0, sizeof *bf);
	bf->path = path;
	/* O_NONBLOCK: a FIFO (or device) is refused below instead of blocking the open */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		zka_fmt_err(err, errlen, path, "cannot open: %s", strerror(errno));
		goto err;
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		zka_fmt_err(err, errlen, path, "cannot stat: %s", strerror(errno));
		close(fd);
		goto err;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path, "not a regular file");
		close(fd);
		goto err;
	}
	bf->len = (size_t)st.st_size;
	if (bf->len > 0) {
		bf->map = mmap(NULL, bf->len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (bf->map == MAP_FAILED) {
			ret = -errno;
			bf->map = NULL;
			zka_fmt_err(err, errlen, path, "cannot map: %s", strerror(errno));
			close(fd);
			goto err;
		}
		bf->data = bf->map;
	}
	close(fd);

	if (bf->len < 12) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path, "file too short for a header (%zu bytes)", bf->len);
		goto err;
	}
	if (memcmp(bf->data, magic, 4) != 0) {
		char found[20];
		zka_magic_str(found, bf->data);
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path, "not a %.4s file (magic %s)", magic, found);
		goto err;
	}
	bf->version = zka_le32(bf->data + 4);
	if (bf->version < min_version || bf->version > max_version) {
		ret = -EINVAL;
		if (min_version == max_version)
			zka_fmt_err(err, errlen, path, "unsupported version %" PRIu32 " (expected %" PRIu32 ")",
				    bf->version, min_version);
		else
			zka_fmt_err(err, errlen, path,
				    "unsupported version %" PRIu32 " (expected %" PRIu32 "..%" PRIu32 ")",
				    bf->version, min_version, max_version);
		goto err;
	}
	uint32_t n = zka_le32(bf->data + 8);
	/* each entry needs at least its 12-byte header */
	if ((uint64_t)n * 12 > bf->len - 12) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path,
			    "section table truncated (%" PRIu32 " sections declared, file has %zu bytes)", n,
			    bf->len);
		goto err;
	}
	bf->secs = calloc(n ? n : 1, sizeof *bf->secs);
	if (!bf->secs) {
		ret = -ENOMEM;
		zka_fmt_err(err, errlen, path, "out of memory");
		goto err;
	}
	uint64_t pos = 12;
	for (uint32_t i = 0; i < n; i++) {
		if (bf->len - pos < 12) {
			ret = -EINVAL;
			zka_fmt_err(err, errlen, path,
				    "section table truncated at entry %" PRIu32 " of %" PRIu32, i + 1, n);
			goto err;
		}
		zka_binsec *s = &bf->secs[i];
		s->id = zka_le32(bf->data + pos);
		s->size = zka_le64(bf->data + pos + 4);
		s->off = pos + 12;
		uint64_t left = bf->len - s->off;
		if (s->size > left) {
			ret = -EINVAL;
			zka_fmt_err(err, errlen, path,
				    "section %" PRIu32 " truncated (expected %" PRIu64 " bytes, found %" PRIu64 ")",
				    s->id, s->size, left);
			goto err;
		}
		for (uint32_t j = 0; j < i; j++)
			if (bf->secs[j].id == s->id) {
				ret = -EINVAL;
				zka_fmt_err(err, errlen, path, "section %" PRIu32 " duplicated", s->id);
				goto err;
			}
		pos = s->off + s->size;
		bf->n_sections = i + 1;
	}
	if (pos != bf->len) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path,
			    "%" PRIu64 " bytes after the last of %" PRIu32 " sections (section count wrong?)",
			    (uint64_t)bf->len - pos, n);
		goto err;
	}
	bf->n_sections = n;
	return 0;
err:
	zka_binfile_close(bf);
	return ret;
}

/* Releases the mapping and the table. */
void zka_binfile_close(zka_binfile *bf)
{
	if (bf->map)
		munmap(bf->map, bf->len);
	free(bf->secs);
	const char *path = bf->path;
	memset(bf, 0, sizeof *bf);
	bf->path = path;
}

/* Linear search: files have a dozen sections at most. */
const zka_binsec *zka_binfile_find(const zka_binfile *bf, uint32_t id)
{
	for (uint32_t i = 0; i < bf->n_sections; i++)
		if (bf->secs[i].id == id)
			return &bf->secs[i];
	return NULL;
}

/* Looks up a required section and checks its exact size when asked. */
int zka_binfile_section(const zka_binfile *bf, uint32_t id, uint64_t want_size, const uint8_t **p,
			uint64_t *size, char *err, size_t errlen)
{
	const zka_binsec *s = zka_binfile_find(bf, id);
	if (!s) {
		zka_fmt_err(err, errlen, bf->path, "section %" PRIu32 " missing", id);
		return -EINVAL;
	}
	if (want_size != UINT64_MAX && s->size != want_size) {
		zka_fmt_err(err, errlen, bf->path,
			    "section %" PRIu32 ": wrong size (expected %" PRIu64 " bytes, found %" PRIu64 ")",
			    id, want_size, s->size);
		return -EINVAL;
	}
	*p = bf->data + s->off;
	if (size)
		*size = s->size;
	return 0;
}

/* Writes the 12-byte header into a fresh temporary file. */
int zka_binw_open(zka_binw *w, const char *path, const char *magic, uint32_t version,
		  uint32_t n_sections)
{
	memset(w, 0, sizeof *w);
	w->sec_start = -1;
	w->n_declared = n_sections;
	int ret = zka_atomic_open(&w->a, path);
	if (ret < 0)
		return ret;
	uint8_t h[12];
	memcpy(h, magic, 4);
	memcpy(h + 4, &version, 4);
	memcpy(h + 8, &n_sections, 4);
	ret = zka_atomic_write(&w->a, h, sizeof h);
	if (ret < 0)
		goto err;
	return 0;
err:
	zka_binw_abort(w);
	return ret;
}

/* Writes the section header with a placeholder size. */
int zka_binw_begin(zka_binw *w, uint32_t id)
{
	if (!w->a.f || w->sec_start >= 0)
		return -EINVAL;
	if (fflush(w->a.f) != 0)
		return -EIO;
	long long here = ftello(w->a.f);
	if (here < 0)
		return -errno;
	w->sec_start = here + 4;
	uint8_t h[12] = {0};
	memcpy(h, &id, 4);
	return zka_atomic_write(&w->a, h, sizeof h);
}

int zka_binw_write(zka_binw *w, const void *buf, size_t n)
{
	if (w->sec_start < 0)
		return -EINVAL;
	return zka_atomic_write(&w->a, buf, n);
}

int zka_binw_u32(zka_binw *w, uint32_t v)
{
	return zka_binw_write(w, &v, 4);
}

int zka_binw_u64(zka_binw *w, uint64_t v)
{
	return zka_binw_write(w, &v, 8);
}

/* Seeks back to patch the section size, then returns to the end. */
int zka_binw_end(zka_binw *w)
{
	if (w->sec_start < 0 || w->a.failed)
		return -EIO;
	if (fflush(w->a.f) != 0)
		goto io;
	long long end = ftello(w->a.f);
	if (end < 0)
		goto io;
	uint64_t size = (uint64_t)(end - w->sec_start - 8);
	if (fseeko(w->a.f, w->sec_start, SEEK_SET) != 0 || fwrite(&size, 8, 1, w->a.f) != 1 ||
	    fseeko(w->a.f, end, SEEK_SET) != 0)
		goto io;
	w->sec_start = -1;
	w->n_written++;
	return 0;
io:
	w->a.failed = errno ? errno : EIO;
	return -w->a.failed;
}

/* Commits when the file is complete. */
int zka_binw_commit(zka_binw *w)
{
	int ret;
	if (w->sec_start >= 0 || w->n_written != w->n_declared) {
		ret = -EINVAL;
		goto err;
	}
	ret = zka_atomic_commit(&w->a);
	memset(w, 0, sizeof *w);
	return ret;
err:
	zka_binw_abort(w);
	return ret;
}

void zka_binw_abort(zka_binw *w)
{
	zka_atomic_abort(&w->a);
	memset(w, 0, sizeof *w);
	w->sec_start = -1;
}

int zka_binw_finish(zka_binw *w, int ret, const char *path, char *err, size_t errlen)
{
	if (ret < 0)
		zka_binw_abort(w);
	else
		ret = zka_binw_commit(w);
	if (ret < 0)
		zka_fmt_err(err, errlen, path, "cannot write: %s", strerror(-ret));
	return ret;
}

int zka_binfile_field_header(const zka_binfile *bf, const char *path, uint64_t rest,
			     const uint8_t **rest_p, const zka_curve **curve, char *err,
			     size_t errlen)
{
	const uint8_t *p;
	uint64_t size;
	int ret = zka_binfile_section(bf, 1, UINT64_MAX, &p, &size, err, errlen);
	if (ret < 0)
		return ret;
	uint32_t n8 = size >= 4 ? zka_le32(p) : 0;
	if (n8 != 32) {
		zka_fmt_err(err, errlen, path, "unsupported field element size n8=%" PRIu32, n8);
		return -EINVAL;
	}
	if (size != 4 + (uint64_t)n8 + rest) {
		zka_fmt_err(err, errlen, path,
			    "section 1: wrong size (expected %" PRIu64 " bytes, found %" PRIu64 ")",
			    4 + (uint64_t)n8 + rest, size);
		return -EINVAL;
	}
	uint64_t prime[4];
	memcpy(prime, p + 4, 32);
	*curve = zka_curve_by_r(prime, n8);
	if (!*curve) {
		zka_fmt_err(err, errlen, path, "prime does not match any supported curve");
		return -EINVAL;
	}
	*rest_p = p + 4 + n8;
	return 0;
}
