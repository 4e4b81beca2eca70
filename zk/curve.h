/* curve.h - the two supported curves, as seen by code that is not generic over them
 * (file formats, JSON, the CLI): sizes, moduli and the handful of byte-level operations
 * they need. Field elements here are byte buffers of n8 bytes, little-endian, which on
 * x86-64 are also the uint64_t limbs of the templates. */
#ifndef ZKA_CURVE_H
#define ZKA_CURVE_H
#include <stddef.h>
#include <stdint.h>

typedef enum { ZKA_BN254 = 0, ZKA_BLS12_381 = 1 } zka_curve_id;

typedef struct zka_curve {
	zka_curve_id id;
	const char *name;   /* snarkjs's "curve" string: "bn128" or "bls12381" */
	const char *pretty; /* "BN254" or "BLS12-381" */
	uint32_t n8q;       /* bytes of an Fq element: 32 or 48 */
	uint32_t n8r;       /* bytes of an Fr element: 32 */
	const uint64_t *q;  /* base field modulus, n8q/8 limbs */
	const uint64_t *r;  /* scalar field modulus (group order), 4 limbs */
	uint32_t fr_s;      /* two-adicity of r - 1 */

	/* Montgomery conversions of one element (out may equal in). */
	void (*fq_to_mont)(void *out, const void *in);
	void (*fq_from_mont)(void *out, const void *in);
	void (*fr_to_mont)(void *out, const void *in);
	void (*fr_from_mont)(void *out, const void *in);
	/* Point checks on affine Montgomery bytes (2*n8q for G1, 4*n8q for G2; all zero is
	 * infinity): return 0 when the point is in the order-r subgroup (infinity included),
	 * ZKA_ENOTONCURVE or ZKA_ENOTINGROUP otherwise. */
	int (*g1_check)(const void *p);
	int (*g2_check)(const void *p);
	/* The same answers by the reference tests (on the curve, then r p == 0 by a 255-bit
	 * double-and-add; BN254 G1: the curve check only, cofactor 1): slower, kept for A/B
	 * (keys/keys.c, ZKA_VALIDATE_EXACT=ref). g1_check/g2_check use endomorphism tests
	 * (zk/curve_inst.h, docs/keys.md). */
	int (*g1_check_ref)(const void *p);
	int (*g2_check_ref)(const void *p);
	/* The same for n consecutive G2 points, by a batched test (zk/subgroup_batch_tmpl.h):
	 * 0 when all are in the subgroup, else the lowest failing one's code (as g2_check's) and
	 * its index in *bad. Probabilistic: a batch with a point off the subgroup is accepted with
	 * probability <= 2^-64 (docs/keys.md). NULL where the curve has none (BLS12-381). */
	int (*g2_check_batch)(const void *p, size_t n, size_t *bad);
} zka_curve;

#define ZKA_ENOTONCURVE 1
#define ZKA_ENOTINGROUP 2

extern const zka_curve zka_curve_bn254;
extern const zka_curve zka_curve_bls12_381;

/* Returns the curve whose base field modulus q (n8 bytes, little-endian) matches, or NULL. */
const zka_curve *zka_curve_by_q(const void *q, uint32_t n8);
/* Returns the curve whose scalar field modulus r (n8 bytes, little-endian) matches, or NULL. */
const zka_curve *zka_curve_by_r(const void *r, uint32_t n8);
/* Returns the curve named like snarkjs ("bn128", "bls12381"; also "bn254", "bls12-381"), or NULL. */
const zka_curve *zka_curve_by_name(const char *name);

/* Returns 1 when the n8-byte little-endian integer x is < the modulus m (nlimbs limbs). */
int zka_lt_modulus(const void *x, const uint64_t *m, uint32_t nlimbs);

static inline size_t zka_g1_bytes(const zka_curve *c) { return 2 * (size_t)c->n8q; }
static inline size_t zka_g2_bytes(const zka_curve *c) { return 4 * (size_t)c->n8q; }

#endif
