/* wcg_ifma.h - witness entries' standard forms, 8 at a time, with AVX-512 IFMA.
 *
 * Design note.
 *   What. The evaluator (wcg_eval_tmpl.h) keeps field values in Montgomery form x R mod p,
 *   R = 2^256, and converts a batch of witness entries to standard form together
 *   (F(ws_batch)): one Montgomery reduction each, 16 64-bit products (F(redc)). On CPUs with
 *   AVX-512 IFMA (52-bit multiply-add, 8 lanes) this file makes 8 such conversions at once,
 *   one per lane: a lane's value is split into five 52-bit limbs, multiplied by 16 (so that
 *   the reduction's 2^-260 leaves x 2^-256: the standard form), reduced by five steps of
 *   Montgomery's reduction in radix 2^52, normalised, brought below p, and joined back into
 *   four 64-bit limbs.
 *   Why it is exact. For a canonical x < p < 2^255, y = 16 x < 2^259 fits five limbs; after
 *   five steps t = (y + M p) / 2^260 with M < 2^260, so t <= p, and t = y 2^-260 = x 2^-256
 *   mod p. t = p would mean x = 0, whose steps add nothing; the final subtraction of p when
 *   t >= p is kept anyway (a lane costs a few operations). Limbs stay below 2^64: each
 *   receives at most 12 values below 2^52 between normalisations.
 *   Use. zka_ifma_redc_init(c, p) once per field (it finds -p^-1 mod 2^52);
 *   zka_ifma_available() says
 *   whether the CPU has the instructions (cpuid, once); zka_ifma_to_std(w, x, idx, n, c)
 *   writes the standard form of x[k] (4 limbs each, contiguous) to w[idx[k]], k < n, the
 *   indices distinct. tests/test_wcg.c compares it with F(redc) on random and edge values
 *   and every batch length; docs/witness.md has the measurements. */
#ifndef ZKA_WCG_IFMA_H
#define ZKA_WCG_IFMA_H
#include <stdint.h>

typedef struct zka_ifma_redc {
	uint64_t p[5]; /* p in five 52-bit limbs */
	uint64_t pinv; /* -p^-1 mod 2^52 */
} zka_ifma_redc;

/* c for the odd modulus p (4 64-bit limbs, p < 2^255). */
void zka_ifma_redc_init(zka_ifma_redc *c, const uint64_t p[4]);

/* 1 when this CPU runs AVX-512F and AVX-512 IFMA (and the build could compile them), else 0;
 * asked once. */
int zka_ifma_available(void);

/* w[idx[k]] = x[k] R^-1 mod p (R = 2^256), canonical, for k < n; x[k] canonical (< p).
 * Only where zka_ifma_available(). */
void zka_ifma_to_std(uint64_t (*w)[4], const uint64_t (*x)[4], const uint32_t *idx, uint32_t n,
		     const zka_ifma_redc *c);

#endif
