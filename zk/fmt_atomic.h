/* fmt_atomic.h - atomic file output: write a temporary file in the destination's directory,
 * fsync it and rename it over the destination, so readers never see a partial file and a
 * failed write leaves nothing behind. */
#ifndef ZKA_FMT_ATOMIC_H
#define ZKA_FMT_ATOMIC_H
#include <stdio.h>

typedef struct zka_atomic {
	FILE *f;    /* buffered stream on the temporary file */
	char *tmp;  /* temporary path, "<path>.tmp.<pid>.<n>" */
	char *path; /* destination */
	int failed; /* sticky: a write failed, commit will fail */
} zka_atomic;

/* Creates the temporary file (mode 0666 & ~umask). Returns 0 or -errno; on error a is
 * left empty and nothing exists on disk. */
int zka_atomic_open(zka_atomic *a, const char *path);

/* Writes n bytes. Returns 0 or -errno (-EIO when the stream failed); errors are sticky. */
int zka_atomic_write(zka_atomic *a, const void *buf, size_t n);

/* Flushes, fsyncs, closes and renames the temporary file to the destination, then fsyncs the
 * directory. Returns 0 or -errno; on any error the temporary file is removed and the
 * destination is untouched. a is empty afterwards either way. */
int zka_atomic_commit(zka_atomic *a);

/* Discards the temporary file. Safe on an empty a. */
void zka_atomic_abort(zka_atomic *a);

#endif
