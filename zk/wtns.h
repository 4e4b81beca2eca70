/* wtns.h - circom/snarkjs witness files (.wtns, version 2) <-> zka_witness. */
#ifndef ZKA_WTNS_H
#define ZKA_WTNS_H
#include <stddef.h>

#include "zk/groth16.h"

/* Reads path into w (caller frees with zka_witness_free). Checks: magic "wtns", version 2,
 * section 1 = {u32 n8 (32), prime = r of a supported curve, u32 nWitness >= 1}, section 2 of
 * exactly nWitness*n8 bytes, every value < r, w[0] = 1. Values stay in standard form.
 * Returns 0 or -errno (-EINVAL malformed, -ENOMEM, open errors) with a "path: problem" line
 * in err; on error w is zeroed and owns nothing. */
int zka_wtns_read(const char *path, zka_witness *w, char *err, size_t errlen);

/* The validation zka_wtns_read starts with, for readers that take the values straight from the
 * mapping (the synthesis worker): maps path (bf, close with zka_binfile_close), checks magic
 * "wtns", version 2, section 1 = {n8 32, r of a supported curve (*c), nWitness >= 1 (*n)} and a
 * section 2 of exactly n * 32 bytes (*values, unaligned). The values themselves are not checked.
 * Returns 0 or -errno with a "path: problem" line in err; on error bf is closed. */
struct zka_binfile;
int zka_wtns_map(const char *path, struct zka_binfile *bf, const zka_curve **c, uint32_t *n,
		 const uint8_t **values, char *err, size_t errlen);

/* The reader for a witness that someone else may change while it is read (the synthesis
 * worker): the container parsed and the n values read with pread from the open descriptor fd
 * straight into out (standard form, unchecked: the caller range-checks them), never mapped,
 * so a file truncated meanwhile gives a short read (-EINVAL, "path: ... changed under us?")
 * instead of SIGBUS. Checks as zka_wtns_map, plus curve == want and nWitness == n. */
int zka_wtns_pread(int fd, const char *path, const zka_curve *want, uint32_t n, uint64_t (*out)[4],
		   char *err, size_t errlen);

/* Writes w (standard form values) as a version-2 .wtns, atomically: on error nothing is left
 * at path. Returns 0 or -errno (-EINVAL when w has no curve or no values). */
int zka_wtns_write(const char *path, const zka_witness *w, char *err, size_t errlen);

#endif
