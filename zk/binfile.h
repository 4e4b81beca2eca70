/* binfile.h - the iden3 binary container used by .zkey, .wtns, .r1cs and .ptau:
 *   4-byte magic, u32 version, u32 nSections, then nSections times {u32 id, u64 size, payload},
 * all little-endian. Sections are found through the table, never by position. */
#ifndef ZKA_BINFILE_H
#define ZKA_BINFILE_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "zk/curve.h"
#include "zk/fmt_atomic.h"

typedef struct {
	uint32_t id;
	uint64_t off;  /* payload offset in the file */
	uint64_t size; /* payload bytes */
} zka_binsec;

/* An open, validated container: the whole file mapped read-only. */
typedef struct zka_binfile {
	const char *path; /* borrowed from the caller, for error messages */
	const uint8_t *data;
	size_t len;
	void *map; /* mmap'ed region (NULL for an empty mapping) */
	uint32_t version;
	uint32_t n_sections;
	zka_binsec *secs;
} zka_binfile;

/* Opens path and validates the container: magic equal to `magic` (4 chars), version within
 * [min_version, max_version], a section table that fits the file (every section's payload
 * inside the file), no duplicated section id and no bytes after the last section.
 * Returns 0, or -errno from open/mmap, -EINVAL for a malformed container, with a
 * "path: problem" line in err. On error bf is left empty (zka_binfile_close is a no-op). */
int zka_binfile_open(zka_binfile *bf, const char *path, const char *magic, uint32_t min_version,
		     uint32_t max_version, char *err, size_t errlen);

/* Unmaps the file and frees the table. Safe on an empty or closed bf. */
void zka_binfile_close(zka_binfile *bf);

/* Returns the section with this id or NULL when the file has none. */
const zka_binsec *zka_binfile_find(const zka_binfile *bf, uint32_t id);

/* Finds the required section id and checks its size: when want_size is not UINT64_MAX the
 * payload must be exactly want_size bytes. Sets *p and *size. Returns 0 or -EINVAL (a missing
 * section, "section N missing", is a malformed file too; or "section N: wrong size (expected X
 * bytes, found Y)"). Use zka_binfile_find for optional sections. */
int zka_binfile_section(const zka_binfile *bf, uint32_t id, uint64_t want_size, const uint8_t **p,
			uint64_t *size, char *err, size_t errlen);

/* Reads section 1 of a circom file (.wtns, .r1cs) that starts {u32 n8, prime} followed by
 * `rest` more bytes: checks n8 = 32, the exact size and that the prime is r of a supported
 * curve. Returns 0 with *rest_p pointing past the prime and *curve set, or -errno with err. */
int zka_binfile_field_header(const zka_binfile *bf, const char *path, uint64_t rest,
			     const uint8_t **rest_p, const zka_curve **curve, char *err,
			     size_t errlen);

/* Little-endian loads from possibly unaligned bytes. */
static inline uint32_t zka_le32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}
static inline uint64_t zka_le64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* A bounds-checked read cursor over one section's payload. */
typedef struct {
	const uint8_t *p;
	uint64_t size, pos;
} zka_bincur;

/* Returns a pointer to the next n bytes and advances, or NULL (cursor unchanged) when fewer
 * than n bytes are left. */
static inline const uint8_t *zka_bincur_take(zka_bincur *c, uint64_t n)
{
	if (n > c->size - c->pos)
		return NULL;
	const uint8_t *r = c->p + c->pos;
	c->pos += n;
	return r;
}

/* A streaming writer of the container, writing atomically through zka_atomic. The section
 * sizes are patched in when each section ends. */
typedef struct zka_binw {
	zka_atomic a;
	uint32_t n_declared, n_written;
	long long sec_start; /* file offset of the open section's size field, -1 when none */
} zka_binw;

/* Starts path's temporary file with the header. Returns 0 or -errno. */
int zka_binw_open(zka_binw *w, const char *path, const char *magic, uint32_t version,
		  uint32_t n_sections);
/* Opens section id (no other may be open). Returns 0 or -errno. */
int zka_binw_begin(zka_binw *w, uint32_t id);
/* Appends payload bytes to the open section. Returns 0 or -errno. */
int zka_binw_write(zka_binw *w, const void *buf, size_t n);
int zka_binw_u32(zka_binw *w, uint32_t v);
int zka_binw_u64(zka_binw *w, uint64_t v);
/* Closes the open section, writing its size. Returns 0 or -errno. */
int zka_binw_end(zka_binw *w);
/* Checks that exactly n_sections were written, then commits atomically. Returns 0 or -errno;
 * on error nothing is left on disk. w is empty afterwards either way. */
int zka_binw_commit(zka_binw *w);
/* Discards everything written. */
void zka_binw_abort(zka_binw *w);
/* Ends a write: aborts when ret (the caller's last step) is negative, else commits. Either
 * failure leaves "<path>: cannot write: <reason>" in err. Returns 0 or -errno; nothing is left
 * on disk on error; w is empty afterwards. */
int zka_binw_finish(zka_binw *w, int ret, const char *path, char *err, size_t errlen);

#endif
