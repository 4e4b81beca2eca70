/* fmt_testlib.h - helpers shared by the file-format suites: a scratch directory, random
 * points and keys on both curves, raw file edits. */
#ifndef ZKA_FMT_TESTLIB_H
#define ZKA_FMT_TESTLIB_H
#include <stddef.h>
#include <stdint.h>

#include "zk/groth16.h"

extern const zka_curve *const fmt_curves[2];

/* A fresh scratch directory (created once per process, removed at exit). */
const char *fmt_dir(void);
/* Returns "<fmt_dir>/<name>" in a static rotating buffer. */
const char *fmt_path(const char *name);
/* Number of entries in fmt_dir() (to detect leftover temporary files). */
int fmt_dir_entries(void);

/* Random standard-form scalar < r (nonzero with overwhelming probability). */
void fmt_rand_scalar(uint64_t s[4]);
/* Random points (affine Montgomery bytes), k * generator for random k. */
void fmt_rand_g1(const zka_curve *c, uint8_t *out);
void fmt_rand_g2(const zka_curve *c, uint8_t *out);

/* A random, consistent proving key (points random, coefs random incl. the extra rows). */
void fmt_rand_pk(const zka_curve *c, zka_pk *pk);
/* 1 when both keys hold the same data. */
int fmt_pk_equal(const zka_pk *a, const zka_pk *b);

/* Whole-file helpers. */
uint8_t *fmt_slurp(const char *path, size_t *len);
void fmt_spit(const char *path, const void *buf, size_t len);
int fmt_exists(const char *path);
/* Finds section id's payload offset/size in a container buffer; returns 0 or -1. Also
 * returns the offset of the section's table entry (id field) in *entry when non-NULL. */
int fmt_find_section(const uint8_t *buf, size_t len, uint32_t id, size_t *off, uint64_t *size,
		     size_t *entry);

#endif
