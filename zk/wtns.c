/* wtns.c - see wtns.h. Layout: snarkjs 0.7.6 wtns_utils.js. */
#include "zk/wtns.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zk/binfile.h"
#include "zk/fmt_err.h"

/* Maps path and validates the container and both sections' shape (see wtns.h). */
int zka_wtns_map(const char *path, zka_binfile *bf, const zka_curve **c, uint32_t *n,
		 const uint8_t **values, char *err, size_t errlen)
{
	const uint8_t *p;
	int ret = zka_binfile_open(bf, path, "wtns", 2, 2, err, errlen);
	if (ret < 0)
		return ret;
	ret = zka_binfile_field_header(bf, path, 4, &p, c, err, errlen);
	if (ret < 0)
		goto err;
	*n = zka_le32(p);
	if (*n == 0) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path, "empty witness (nWitness = 0)");
		goto err;
	}
	ret = zka_binfile_section(bf, 2, (uint64_t)*n * 32, values, NULL, err, errlen);
	if (ret < 0)
		goto err;
	return 0;
err:
	zka_binfile_close(bf);
	return ret;
}

/* Reads and validates the two sections. */
int zka_wtns_read(const char *path, zka_witness *w, char *err, size_t errlen)
{
	zka_binfile bf;
	const uint8_t *p;
	const zka_curve *c;
	uint32_t n;
	const uint32_t n8 = 32;
	memset(w, 0, sizeof *w);
	int ret = zka_wtns_map(path, &bf, &c, &n, &p, err, errlen);
	if (ret < 0)
		return ret;
	w->w = malloc((size_t)n * sizeof *w->w);
	if (!w->w) {
		ret = -ENOMEM;
		zka_fmt_err(err, errlen, path, "out of memory for %" PRIu32 " values", n);
		goto err;
	}
	memcpy(w->w, p, (size_t)n * n8);
	for (uint32_t i = 0; i < n; i++)
		if (!zka_lt_modulus(w->w[i], c->r, 4)) {
			ret = -EINVAL;
			zka_fmt_err(err, errlen, path,
				    "witness value %" PRIu32 " is not below the prime", i);
			goto err;
		}
	if (w->w[0][0] != 1 || w->w[0][1] || w->w[0][2] || w->w[0][3]) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path, "witness value 0 is not 1");
		goto err;
	}
	w->curve = c;
	w->n = n;
	zka_binfile_close(&bf);
	return 0;
err:
	zka_binfile_close(&bf);
	free(w->w);
	memset(w, 0, sizeof *w);
	return ret;
}

/* Writes header and values into a temporary file, then renames it into place. */
int zka_wtns_write(const char *path, const zka_witness *w, char *err, size_t errlen)
{
	zka_binw bw;
	int ret;
	if (!w->curve || !w->n || !w->w) {
		zka_fmt_err(err, errlen, path, "cannot write an empty witness");
		return -EINVAL;
	}
	const zka_curve *c = w->curve;
	ret = zka_binw_open(&bw, path, "wtns", 2, 2);
	if (ret < 0) {
		zka_fmt_err(err, errlen, path, "cannot create: %s", strerror(-ret));
		return ret;
	}
	if ((ret = zka_binw_begin(&bw, 1)) < 0 || (ret = zka_binw_u32(&bw, c->n8r)) < 0 ||
	    (ret = zka_binw_write(&bw, c->r, c->n8r)) < 0 || (ret = zka_binw_u32(&bw, w->n)) < 0 ||
	    (ret = zka_binw_end(&bw)) < 0 || (ret = zka_binw_begin(&bw, 2)) < 0 ||
	    (ret = zka_binw_write(&bw, w->w, (size_t)w->n * c->n8r)) < 0 ||
	    (ret = zka_binw_end(&bw)) < 0)
		goto err;
err:
	return zka_binw_finish(&bw, ret, path, err, errlen);
}

/* pread exactly n bytes at off; 0, or -EIO for a short read (the file shrank), -errno. */
static int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = pread(fd, (uint8_t *)buf + got, n - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EIO;
		got += (size_t)k;
	}
	return 0;
}

int zka_wtns_pread(int fd, const char *path, const zka_curve *want, uint32_t n, uint64_t (*out)[4],
		   char *err, size_t errlen)
{
	struct stat st;
	uint8_t h[12];
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		zka_fmt_err(err, errlen, path, "not a regular file");
		return -EINVAL;
	}
	uint64_t len = (uint64_t)st.st_size;
	if (len < 12 || pread_all(fd, h, 12, 0)) {
		zka_fmt_err(err, errlen, path, "file too short for a header");
		return -EINVAL;
	}
	if (memcmp(h, "wtns", 4) || zka_le32(h + 4) != 2) {
		zka_fmt_err(err, errlen, path, "not a version-2 wtns file");
		return -EINVAL;
	}
	uint32_t ns = zka_le32(h + 8);
	uint64_t pos = 12, voff = 0, vsize = 0;
	int have1 = 0;
	for (uint32_t i = 0; i < ns && i < 64; i++) {
		uint8_t e[12];
		if (len - pos < 12 || pread_all(fd, e, 12, pos)) {
			zka_fmt_err(err, errlen, path, "section table truncated at entry %" PRIu32,
				    i + 1);
			return -EINVAL;
		}
		uint32_t id = zka_le32(e);
		uint64_t size = zka_le64(e + 4);
		pos += 12;
		if (size > len - pos) {
			zka_fmt_err(err, errlen, path,
				    "section %" PRIu32 " runs past the end of the file", id);
			return -EINVAL;
		}
		if (id == 1) {
			uint8_t f[40];
			if (size != 40 || pread_all(fd, f, 40, pos)) {
				zka_fmt_err(err, errlen, path,
					    "section 1: not n8 = 32, r, nWitness");
				return -EINVAL;
			}
			const zka_curve *c = zka_le32(f) == 32 ? zka_curve_by_r(f + 4, 32) : NULL;
			if (c != want) {
				zka_fmt_err(err, errlen, path,
					    "witness is not for the key's curve (%s)",
					    want->pretty);
				return -EINVAL;
			}
			if (zka_le32(f + 36) != n) {
				zka_fmt_err(err, errlen, path,
					    "witness has %" PRIu32
					    " values but the key expects %" PRIu32,
					    zka_le32(f + 36), n);
				return -EINVAL;
			}
			have1 = 1;
		} else if (id == 2) {
			voff = pos;
			vsize = size;
		}
		pos += size;
	}
	if (!have1 || vsize != (uint64_t)n * 32) {
		zka_fmt_err(err, errlen, path, "%s",
			    have1 ? "section 2 is not nWitness x 32 bytes" : "no section 1");
		return -EINVAL;
	}
	int r = pread_all(fd, out, (size_t)n * 32, voff);
	if (r) {
		zka_fmt_err(err, errlen, path, "%s while reading the values (changed under us?)",
			    r == -EIO ? "short read" : strerror(-r));
		return r == -EIO ? -EINVAL : r;
	}
	return 0;
}
