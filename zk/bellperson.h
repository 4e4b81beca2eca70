/* bellperson.h - Filecoin/bellperson Groth16 parameter files (.params) and 192-byte proofs,
 * BLS12-381 only.
 *
 * Design note.
 *   Objects. A zka_bp_params is a .params file's content with every point converted to this
 *   project's byte layout (affine, little-endian Montgomery, infinity all zero; groth16.h):
 *   the vk's six points and ic, then h, l, a, b_g1, b_g2 as the file lists them. The file
 *   omits the points of a, b_g1 and b_g2 that are infinity; which variables have one (the
 *   densities) the file does not say: they come from the circuit (zka_bp_density, from the
 *   .r1cs). zka_bp_to_pk expands a zka_bp_params and its circuit into a zka_pk whose H is
 *   monomial (h_kind ZKA_H_MONOMIAL, root ZKA_ROOT_GEN7 for bellperson's files, or
 *   ZKA_ROOT_SNARKJS for one converted from a .zkey), zka_bp_from_pk the other way;
 *   zka_bp_from_zkey_pk converts a snarkjs key (its H by a DFT of the points, bp_convert.c).
 *   States. A zka_bp_params is zeroed (owns nothing) or filled (owns its buffers); the
 *   functions that fill one leave it zeroed on error.
 *   Invariants. Every point of a filled zka_bp_params is on its curve and in the order-r
 *   subgroup (or infinity): zka_bp_read checks each, by several threads, and names the
 *   section (vk.alpha_g1 ... vk.delta_g2, ic, h, l, a, b_g1, b_g2) and index of the first bad
 *   one; zka_bp_read_flags(ZKA_BP_READ_CURVE_ONLY) leaves the sections' subgroup tests to its
 *   caller, who then owns this invariant (keys/params.c: zka_keys_check_sections). A file
 *   whose bytes end before a section's count says, or go on after b_g2, is refused.
 *   File format (bellperson's Parameters::write): vk = alpha_g1, beta_g1, beta_g2, gamma_g2,
 *   delta_g1, delta_g2 (uncompressed), u32 big-endian count and the ic points; then h, l, a,
 *   b_g1, b_g2, each a u32 big-endian count and its points. Points are Zcash's BLS12-381
 *   encoding: coordinates big-endian, the three top bits of the first byte flags (0x80
 *   compressed, 0x40 infinity, 0x20 the larger y); G1 uncompressed 96 bytes (x, y), G2 192
 *   (x.c1, x.c0, y.c1, y.c0); compressed G1 48, G2 96 (x only, y's sign in 0x20).
 *   A proof's 192 bytes are A (G1) || B (G2) || C (G1), compressed. */
#ifndef ZKA_BELLPERSON_H
#define ZKA_BELLPERSON_H
#include <stddef.h>
#include <stdint.h>

#include "zk/groth16.h"
#include "zk/r1cs.h"

#define ZKA_BP_PROOF_BYTES 192

typedef struct zka_bp_params {
	const zka_curve *curve; /* always BLS12-381 */
	uint8_t alpha1[96], beta1[96], beta2[192], gamma2[192], delta1[96], delta2[192];
	uint32_t n_ic, n_h, n_l, n_a, n_b1, n_b2;
	uint8_t *ic, *h, *l, *a, *b1, *b2; /* n_* points each (G1, b2 G2) */
} zka_bp_params;

/* Frees the buffers and zeroes p. Safe on a zeroed p. */
void zka_bp_free(zka_bp_params *p);

/* The names of the sections after the vk, in file order: ic, h, l, a, b_g1, b_g2. */
extern const char *const zka_bp_section_name[6];

/* The byte offsets in p's .params file of the first point of ic, h, l, a, b_g1 and b_g2 (after
 * each section's count) into off[0..5]; returns the file's size. (Tests plant points there.) */
size_t zka_bp_file_layout(const zka_bp_params *p, size_t off[6]);

/* Reads a .params file into p, every point checked (threads threads, 0: one per CPU).
 * Returns 0, or -EINVAL (a malformed file: "path: section NAME index I: problem", or a
 * truncated or overlong file), -ENOMEM or an open/read -errno, with one line in err; p is
 * zeroed on error. */
int zka_bp_read(const char *path, zka_bp_params *p, int threads, char *err, size_t errlen);

/* zka_bp_read with flags: ZKA_BP_READ_CURVE_ONLY leaves the order-r subgroup test of the
 * sections ic, h, l, a, b_g1 and b_g2 to the caller (the vk's six points are still tested):
 * every other check (flags, coordinates below q, on the curve) is made and named as
 * zka_bp_read names it. keys/params.c reads so and tests the sections on the device
 * (zka_keys_check_sections): on the CPU, the subgroup tests are nearly all of the read
 * (298.9 s of 312.6 s at 2^24 on 16 cores, docs/bellperson.md). */
#define ZKA_BP_READ_CURVE_ONLY 1
int zka_bp_read_flags(const char *path, zka_bp_params *p, int threads, int flags, char *err,
		      size_t errlen);

/* 1 when path names a .params file (by its name). */
int zka_bp_is_params(const char *path);

/* The verification key of a .params file: its vk and ic only are read and checked (the
 * rest is not read: any size). vk->n_public = ic's count - 1. 0 or -errno with err. */
int zka_bp_read_vk(const char *path, zka_vk *vk, char *err, size_t errlen);

/* Writes p as a .params file, atomically. 0 or -errno with one line in err. */
int zka_bp_write(const char *path, const zka_bp_params *p, char *err, size_t errlen);

/* The densities of a circuit's key: in_a[j] (in_b[j]) is 1 when variable j has a point in a
 * (in b_g1 and b_g2). Every public variable (j <= public count, the constant 1 included) is
 * in a; another is in a (b) when a term of matrix A (B) names it. n_wires bytes each; counts
 * in *na, *nb. 0 or -ENOMEM. */
int zka_bp_density(const zka_r1cs *cs, uint8_t **in_a, uint8_t **in_b, uint32_t *na, uint32_t *nb);

/* The proving key of p for circuit cs: A, B1, B2 expanded by the densities (infinity where
 * absent), C = l, IC = ic, H = h and one point at infinity, the A and B coefficients as a
 * setup makes them (the public rows included); h_kind ZKA_H_MONOMIAL, root = root: the roots
 * of unity that numbered the rows when the key was made, ZKA_ROOT_GEN7 for bellperson's (a
 * bellperson setup's), ZKA_ROOT_SNARKJS for a key converted from a .zkey (zka_bp_from_zkey_pk;
 * the file does not say which). Every count is checked against the circuit (ic: public + 1,
 * l: private, h: domain - 1, a, b_g1, b_g2: the densities). 0 or -EINVAL/-ENOMEM with one
 * line in err naming what. */
int zka_bp_to_pk(const zka_bp_params *p, const zka_r1cs *cs, uint32_t root, zka_pk *pk, char *err,
		 size_t errlen);

/* zka_bp_to_pk, consuming p: its buffers are moved into pk or freed as their points are
 * placed, so that the key is not held twice (keys/params.c's import of a 2^26 .params);
 * p is zeroed afterwards, on success or error. */
int zka_bp_to_pk_take(zka_bp_params *p, const zka_r1cs *cs, uint32_t root, zka_pk *pk, char *err,
		      size_t errlen);

/* bellperson's h from a snarkjs key's H (bp_convert.c): H holds the 2^log_n coset points
 * [L'_{2i+1}(tau)/delta]_1 (affine, this project's layout), out receives the 2^log_n - 1
 * monomials [tau^j t(tau)/delta]_1, t = X^n - 1, by a DFT of the points over snarkjs's roots
 * (threads threads, 0: one per CPU). 0, or -EINVAL (log_n too large), -ENOMEM. */
int zka_bp_h_from_coset(const uint8_t *H, int log_n, uint8_t *out, int threads);

/* The .params content of a snarkjs (coset-H) BLS12-381 key pk, as zka_zkey_read gives it: the
 * vk, ic, l = C, a, b_g1, b_g2 = A, B1, B2 without the variables no coefficient of A (B) names
 * (the public ones are always in a: the densities zka_bp_density takes from the circuit; such
 * a variable's point must be infinity, else the key is refused), h by zka_bp_h_from_coset.
 * The rows stay numbered by snarkjs's roots: the file proves only when imported with root
 * ZKA_ROOT_SNARKJS (bellperson, which always uses 7^t, cannot prove with it). 0, or
 * -EINVAL (another curve: "bellperson .params keys are BLS12-381 only"; not a coset-H key; a
 * malformed key) or -ENOMEM, with one line "what: problem" in err (what: the .zkey's name). */
int zka_bp_from_zkey_pk(const zka_pk *pk, const char *what, zka_bp_params *p, int threads,
			char *err, size_t errlen);

/* Internal (zka_bp_from_pk, zka_bp_from_zkey_pk): allocates p's sections for pk's shape (na,
 * nb: how many variables in_a, in_b mark) and copies the vk, ic, l = C and the a, b_g1, b_g2
 * points of the marked variables; p->h is allocated (domain - 1 points), the caller fills it.
 * 0, or -ENOMEM with err (the caller frees p). */
int zka__bp_pack(zka_bp_params *p, const zka_pk *pk, const uint8_t *in_a, const uint8_t *in_b,
		 uint32_t na, uint32_t nb, const char *what, char *err, size_t errlen);

/* The .params content of a monomial-H BLS12-381 key pk of circuit cs (the inverse of
 * zka_bp_to_pk; no check of pk's points). 0 or -EINVAL/-ENOMEM with err. */
int zka_bp_from_pk(const zka_pk *pk, const zka_r1cs *cs, zka_bp_params *p, char *err,
		   size_t errlen);

/* A BLS12-381 proof to its 192 bytes. */
void zka_bp_proof_encode(const zka_proof *pr, uint8_t out[ZKA_BP_PROOF_BYTES]);
/* 192 bytes to a proof: each point decompressed and checked (on the curve, in the subgroup).
 * 0 or -EINVAL with "A|B|C: problem" in err. */
int zka_bp_proof_decode(const uint8_t in[ZKA_BP_PROOF_BYTES], zka_proof *pr, char *err,
			size_t errlen);

/* Single points in the Zcash encoding (exposed for tests): uncompressed G1 (96 bytes) and
 * G2 (192), compressed G1 (48) and G2 (96). Decoders return 0 or a short static reason. */
void zka_bp_g1_encode(const uint8_t *pt, uint8_t out[96]);
void zka_bp_g2_encode(const uint8_t *pt, uint8_t out[192]);
const char *zka_bp_g1_decode(const uint8_t in[96], uint8_t *pt);
const char *zka_bp_g2_decode(const uint8_t in[192], uint8_t *pt);
void zka_bp_g1_compress(const uint8_t *pt, uint8_t out[48]);
void zka_bp_g2_compress(const uint8_t *pt, uint8_t out[96]);
const char *zka_bp_g1_decompress(const uint8_t in[48], uint8_t *pt);
const char *zka_bp_g2_decompress(const uint8_t in[96], uint8_t *pt);

#endif
