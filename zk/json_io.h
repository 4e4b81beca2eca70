/* json_io.h - snarkjs's JSON files: proof.json, public.json and verification_key.json.
 * Writers produce the bytes snarkjs 0.7.6's CLI writes (bfj with space 1: one-space
 * indentation, "key": value, no trailing newline, key order as snarkjs builds its objects);
 * readers accept what snarkjs accepts, minus projective points (z other than 0 or 1) and hex
 * strings, which snarkjs never writes. Every write is atomic (temporary file, fsync, rename):
 * on error nothing is left at path. Every error is one "path: problem" line in err. */
#ifndef ZKA_JSON_IO_H
#define ZKA_JSON_IO_H
#include <stddef.h>
#include <stdint.h>

#include "zk/groth16.h"

/* Writes {"pi_a":[x,y,"1"],"pi_b":[[x.c0,x.c1],[y.c0,y.c1],["1","0"]],"pi_c":[x,y,"1"],
 * "protocol":"groth16","curve":name}; infinity is written as snarkjs does (["0","1","0"]).
 * Returns 0 or -errno. */
int zka_proof_write_json(const char *path, const zka_proof *proof, char *err, size_t errlen);

/* Reads a proof. curve: the expected curve (the verification key's), or NULL to take it from
 * the file's "curve". "protocol", when present, must be "groth16"; "curve", when present,
 * must name a supported curve equal to curve. Coordinates must be decimal strings < q; the
 * points are converted to Montgomery form and must be on the curve and in the subgroup
 * (z = "0" gives infinity, which passes). Returns 0 or -EINVAL/-ENOMEM/open errors. */
int zka_proof_read_json(const char *path, const zka_curve *curve, zka_proof *proof, char *err,
			size_t errlen);

/* Writes n standard-form values (each must be < r of c) as an array of decimal strings
 * ("[\n]" when n == 0, as snarkjs writes an empty array). Returns 0 or -errno. */
int zka_public_write_json(const char *path, const zka_curve *c, const uint64_t (*pub)[4],
			  uint32_t n, char *err, size_t errlen);

/* Reads an array of decimal strings, each < r of c, into *pub (malloc'ed, never NULL on
 * success even when *n == 0; the caller frees it). Returns 0 or -errno; on error *pub is
 * NULL and *n 0. */
int zka_public_read_json(const char *path, const zka_curve *c, uint64_t (**pub)[4], uint32_t *n,
			 char *err, size_t errlen);

/* Writes protocol, curve, nPublic, vk_alpha_1, vk_beta_2, vk_gamma_2, vk_delta_2,
 * vk_alphabeta_12 (only when vk->alphabeta12 is set), IC - snarkjs's key order.
 * Returns 0 or -errno. */
int zka_vk_write_json(const char *path, const zka_vk *vk, char *err, size_t errlen);

/* Reads a Groth16 verification key: curve by name, nPublic an integer, IC of nPublic+1
 * points, every point on the curve and in the subgroup, vk_alphabeta_12 (optional) of 12
 * coordinates < q stored in vk->alphabeta12. Free with zka_vk_free (which must free
 * alphabeta12). Returns 0 or -errno; on error vk is zeroed and owns nothing. */
int zka_vk_read_json(const char *path, zka_vk *vk, char *err, size_t errlen);

#endif
