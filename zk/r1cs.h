/* r1cs.h - circom constraint systems (.r1cs, version 1) and checking a witness against them. */
#ifndef ZKA_R1CS_H
#define ZKA_R1CS_H
#include <stddef.h>
#include <stdint.h>

#include "zk/curve.h"
#include "zk/groth16.h"

/* One matrix (A, B or C) in compressed sparse rows: the terms of constraint i are
 * [start[i], start[i+1]); term t multiplies wire signal[t] by value[t] (Montgomery Fr). */
typedef struct {
	uint64_t *start; /* n_constraints + 1 entries, start[0] = 0 */
	uint32_t *signal;
	uint64_t (*value)[4];
	uint64_t n_terms;
} zka_r1cs_matrix;

/* A constraint system: constraint i is <A_i, w> * <B_i, w> = <C_i, w>. */
typedef struct zka_r1cs {
	const zka_curve *curve; /* by the file's prime (= r) */
	uint32_t n_wires;       /* witness length, wire 0 = 1 included */
	uint32_t n_pub_out, n_pub_in, n_prv_in;
	uint64_t n_labels;
	uint32_t n_constraints;
	zka_r1cs_matrix m[3];   /* 0 = A, 1 = B, 2 = C */
	uint64_t *wire_labels;  /* n_wires label ids from section 3, or NULL when absent */
} zka_r1cs;

/* Reads path: magic "r1cs", version 1; section 1 header {u32 n8 (32), prime (r of a
 * supported curve), nWires, nPubOut, nPubIn, nPrvIn, u64 nLabels, u32 nConstraints} of exact
 * size; section 2 constraints consumed exactly, every wire < nWires and value < r; section 3
 * (optional) exactly nWires u64 labels; other sections (custom gates) ignored.
 * Also requires 1 + nPubOut + nPubIn + nPrvIn <= nWires.
 * Returns 0 or -errno (-EINVAL malformed, -ENOMEM, open errors) with a "path: problem" line;
 * on error r is zeroed and owns nothing. Free with zka_r1cs_free. */
int zka_r1cs_read(const char *path, zka_r1cs *r, char *err, size_t errlen);

/* Frees every buffer of r and zeroes it. Safe on a zeroed r. */
void zka_r1cs_free(zka_r1cs *r);

/* Checks that witness w (standard form) satisfies every constraint. Returns 0 when all hold,
 * 1 when constraint *first_failing (if non-NULL) is the first one violated, -EINVAL when the
 * witness has another curve or a length other than n_wires, -ENOMEM. */
int zka_r1cs_check(const zka_r1cs *r, const zka_witness *w, uint32_t *first_failing);

/* Writes r as a version-1 .r1cs (sections 1, 2 and, when wire_labels is set, 3), atomically.
 * Returns 0 or -errno with a "path: problem" line in err. */
int zka_r1cs_write(const char *path, const zka_r1cs *r, char *err, size_t errlen);

#endif
