/* zkey.h - snarkjs .zkey files (Groth16 only) <-> zka_pk. */
#ifndef ZKA_ZKEY_H
#define ZKA_ZKEY_H
#include <stddef.h>

#include "zk/groth16.h"

/* Flags for zka_zkey_read_flags. */
#define ZKA_ZKEY_CHECK_ALL_POINTS 1u /* also check every point of sections 5..9 (slow) */

/* Reads a Groth16 .zkey into pk (which the caller frees with zka_pk_free). Checks: magic
 * "zkey", version 1, protocol 1, q and r of one supported curve, every section present once
 * with exactly the size that nVars/nPublic/domainSize imply, domainSize a power of two no
 * larger than the curve's 2-adicity allows, coefficients with matrix 0/1, row < domainSize,
 * signal < nVars and value < r, the header points and IC on the curve and in the subgroup
 * with coordinates < q. Points are copied as the file stores them (affine, LE, Montgomery);
 * coefficient values are converted from c*R^2 to Montgomery form c*R.
 * Returns 0, or -errno (-EINVAL for a malformed file, -ENOMEM, or open errors) with one
 * "path: problem" line in err; on error pk is zeroed and owns nothing. */
int zka_zkey_read(const char *path, zka_pk *pk, char *err, size_t errlen);

/* zka_zkey_read with ZKA_ZKEY_* flags. */
int zka_zkey_read_flags(const char *path, zka_pk *pk, unsigned flags, char *err, size_t errlen);

/* Reads only a .zkey's curve and witness length (sections 1-2, no points). 0 or -errno with err. */
int zka_zkey_peek(const char *path, const zka_curve **curve, uint32_t *n_vars, char *err,
		  size_t errlen);

/* Checks a .zkey's shape from its header alone, before anything reads its body: every
 * section's size what section 2 (nVars, nPublic, domainSize, the curve) and section 4's count
 * imply, no unknown section, at most 16 MiB of contributions, and (above 64 MiB) at least
 * half its bytes allocated (a sparse file is refused). 0 or -EINVAL with "path: problem". */
int zka_zkey_shape_check(const char *path, char *err, size_t errlen);

/* Writes pk as a .zkey that snarkjs 0.7.6 accepts: sections 1..10 in that order, or when
 * snarkjs_setup_order is nonzero in the order `snarkjs groth16 setup` writes them
 * (1,2,4,3,9,8,5,6,7,10). Section 10 holds a zero csHash (64 bytes) and no contributions.
 * The file is written atomically: on error nothing is left at path.
 * Returns 0 or -errno (-EINVAL for an inconsistent pk) with a "path: problem" line in err. */
int zka_zkey_write(const char *path, const zka_pk *pk, int snarkjs_setup_order, char *err,
		   size_t errlen);

#endif
