/* host.h - host-side helpers of the GPU prover (cuda/host.c), callable from C and CUDA C++. */
#ifndef ZKG_HOST_H
#define ZKG_HOST_H
#include <stddef.h>
#include <stdint.h>

#include "zk/groth16.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Roots of unity for a domain of 2^logn (Montgomery Fr): fw[b] = w^(2^b), iw[b] = w^(-2^b),
 * inc[b] = inc^(2^b), ginv[b] = inc^(-2^b), where inc = ROOT^(2^(s-logn-1)) and w = inc^2;
 * ninv = 2^-logn, hsc = -1/(2 2^logn) (the monomial H's scale: the inverse transform's 1/n and
 * the division by X^n - 1 = -2 on the coset inc w^j). ROOT is the root family's primitive
 * 2^s-th root: FR_ROOT (ZKA_ROOT_SNARKJS) or 7^((r-1)/2^s) (ZKA_ROOT_GEN7, BLS12-381 only),
 * exactly the CPU prover's ntt_root_kind (zk/ntt_tmpl.h). At logn = s (no 2^(s+1)-th root) w
 * is ROOT and inc, ginv, hsc are not a coset's: the coset tables need logn < s. */
typedef struct {
	uint64_t fw[32][4], iw[32][4], inc[32][4], ginv[32][4], ninv[4], hsc[4];
} zkg_roots;

/* out (Jacobian) = extra + sum_w 2^(c w) R_w, where window w's sum R_w = Q + 2^sh sum_b 2^b P_b
 * comes as np points planes[w np ..] = Q, P_0, .., P_(np-2) (Jacobian, device byte layout). */
void zkg_host_combine(int curve, int g2, const void *planes, int W, int c, int np, int sh,
		      const void *extra, void *out);
void zkg_host_to_aff(int curve, int g2, const void *jac, void *aff);
/* out = a + b (Jacobian, device byte layout; out may be a or b) */
void zkg_host_add(int curve, int g2, const void *a, const void *b, void *out);
/* The randomisation of zka_prove_abc, in two parts: pre (ZKG_PRE_BYTES) depends on r, s and the
 * key only and is computed while the GPU works; finish takes the Jacobian MSM results. */
#define ZKG_PRE_BYTES 1024
void zkg_host_pre(const zka_pk *pk, const zka_rs *rs, void *pre);
void zkg_host_finish(const zka_pk *pk, const void *A, const void *B1, const void *B2, const void *C,
		     const void *H, const zka_rs *rs, const void *pre, zka_proof *proof);
/* Fills r for a domain of 2^logn numbered by the roots of family root (ZKA_ROOT_*). Returns 0,
 * or -EINVAL (logn above the field's two-adicity, an unknown family, GEN7 off BLS12-381). */
int zkg_host_roots(int curve, uint32_t logn, uint32_t root, zkg_roots *r);
/* The subgroup tests' constants for the device (cuda/subgroup.cuh), in the host's Montgomery
 * limbs (six 64-bit limbs a field element, the low four used for BN254), 16-byte aligned for
 * the device's 16-byte loads. */
#ifdef __cplusplus
#define ZKG_AL16 alignas(16)
#else
#define ZKG_AL16 _Alignas(16)
#endif
typedef struct zkg_sg_consts {
	ZKG_AL16 uint64_t b1[6];	   /* G1's b */
	ZKG_AL16 uint64_t b2[2][6];	   /* the twist's b (c0, c1) */
	ZKG_AL16 uint64_t beta[6];	   /* BLS12-381: phi's cube root of unity in Fq */
	ZKG_AL16 uint64_t psi[3][2][2][6]; /* psi^k's X and Y factors (Fq2: c0, c1), k = 1..3 */
	uint64_t x_abs;			   /* |x|, the curve's seed */
	int x_neg, bn;			   /* x < 0; 1 for a BN curve */
} zkg_sg_consts;
/* Fills *c (len = sizeof *c) for curve (ZKA_BN254 or ZKA_BLS12_381) from zk/curve_consts.h. */
void zkg_host_sg_consts(int curve, zkg_sg_consts *c, size_t len);
/* table: 32*256 affine points, table[j*256+d] = d 2^(8j) base. */
void zkg_host_fb_table(int curve, int g2, const void *base, void *table);

#ifdef __cplusplus
}
#endif
#endif
