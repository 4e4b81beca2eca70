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

/* Writes w (standard form values) as a version-2 .wtns, atomically: on error nothing is left
 * at path. Returns 0 or -errno (-EINVAL when w has no curve or no values). */
int zka_wtns_write(const char *path, const zka_witness *w, char *err, size_t errlen);

#endif
