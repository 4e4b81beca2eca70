/* fmt_atomic.h - atomic file output: write a temporary file in the destination's directory,
 * fsync it and rename it over the destination, so readers never see a partial file and a
 * failed write leaves nothing behind. */
#ifndef ZKA_FMT_ATOMIC_H
#define ZKA_FMT_ATOMIC_H
#include <stdio.h>
#include <sys/types.h>

typedef struct zka_atomic {
	FILE *f;	  /* buffered stream on the temporary file */
	char *tmp;	  /* temporary name in dfd, ".<base>.tmp.<pid>.<24 random hex>" */
	char *path;	  /* destination */
	const char *base; /* its last component (in path) */
	int dfd;	  /* the destination's directory, opened once */
	int failed;	  /* sticky: a write failed, commit will fail */
} zka_atomic;

/* Creates the temporary file (mode 0666 & ~umask) at an unguessable name, O_EXCL|O_NOFOLLOW,
 * in path's directory opened once (fmt_atomic.c's design note). Returns 0 or -errno; on
 * error a is left empty and nothing exists on disk. */
int zka_atomic_open(zka_atomic *a, const char *path);

/* The same with a creation mode (still masked by the umask): 0600 for private files. */
int zka_atomic_open_mode(zka_atomic *a, const char *path, mode_t mode);

/* Creates ".<base>.tmp.<pid>.<random>" in dfd (O_RDWR, so that it may be mapped;
 * O_CREAT|O_EXCL|O_NOFOLLOW, mode), its name in tmp; returns the descriptor or -errno. For writers
 * that manage their own directory fd. */
int zka_atomic_tmpat(int dfd, const char *base, mode_t mode, char *tmp, size_t tmpsz);

/* Writes n bytes. Returns 0 or -errno (-EIO when the stream failed); errors are sticky. */
int zka_atomic_write(zka_atomic *a, const void *buf, size_t n);

/* Flushes, fsyncs, closes and renames the temporary file to the destination, then fsyncs the
 * directory. Returns 0 or -errno; on any error the temporary file is removed and the
 * destination is untouched. a is empty afterwards either way. */
int zka_atomic_commit(zka_atomic *a);

/* Discards the temporary file. Safe on an empty a. */
void zka_atomic_abort(zka_atomic *a);

#endif
