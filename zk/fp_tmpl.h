/* fp_tmpl.h - the one Montgomery prime-field implementation, instantiated per modulus.
 *
 * Include with these macros defined (the file undefines them again):
 *   FP      the name prefix of the instance, e.g. bn254_fr (types become bn254_fr_t, ...)
 *   FP_N    the number of 64-bit limbs (4 or 6)
 *   FP_C    the prefix of the constants in curve_consts.h, e.g. BN254_FR (uses _P, _ONE, _R2,
 *           _INV, _PM2)
 *
 * Representation (shared with the GPU, which reads the same bytes as 32-bit limbs):
 *   1. An element is FP_N little-endian 64-bit limbs holding a*R mod p, R = 2^(64*FP_N).
 *   2. Every function returns a fully reduced value (< p) given fully reduced inputs.
 *   3. Outputs may alias inputs.
 * Both moduli leave at least one spare bit in the top limb, which the additions rely on.
 */
#include <stdint.h>
#include <string.h>

#ifndef ZKA_FP_LIMB_OPS
#define ZKA_FP_LIMB_OPS
#if defined(__x86_64__)
#include <x86intrin.h>
#endif
/* Fully unrolls the limb loops: GCC -O2 does not, and rolled loops keep the limbs in memory
 * (bn254 Fq mul: 632 -> ~300 instructions, callgrind). */
#define ZKA_FP_UNROLL _Pragma("GCC unroll 8")

/* *r = a + b + c (c in {0,1}); returns the carry out. adc on x86-64, portable elsewhere. */
static inline unsigned char zka_fp_adc(unsigned char c, uint64_t a, uint64_t b, uint64_t *r)
{
#if defined(__x86_64__)
	unsigned long long t;
	c = _addcarry_u64(c, a, b, &t);
	*r = t;
	return c;
#else
	unsigned __int128 t = (unsigned __int128)a + b + c;
	*r = (uint64_t)t;
	return (unsigned char)(t >> 64);
#endif
}

/* *r = a - b - c (c in {0,1}); returns the borrow out. sbb on x86-64, portable elsewhere. */
static inline unsigned char zka_fp_sbb(unsigned char c, uint64_t a, uint64_t b, uint64_t *r)
{
#if defined(__x86_64__)
	unsigned long long t;
	c = _subborrow_u64(c, a, b, &t);
	*r = t;
	return c;
#else
	unsigned __int128 t = (unsigned __int128)a - b - c;
	*r = (uint64_t)t;
	return (unsigned char)((t >> 64) & 1);
#endif
}

/* Returns 1 when the CPU has BMI2 and ADX (mulx, adcx, adox): selects F(mul_adx). Reads
 * libgcc's CPU model each call (a load and a test; no state of our own). */
static inline int zka_fp_adx(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	return __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("adx");
#else
	return 0;
#endif
}

/* The rows of F(mul_adx), as asm text. A product step i (one per limb of b): ZKA_X_B loads
 * b_i into rdx and clears both carry flags; a row adds b_i a_j (or m p_j) into the running
 * value, the low half through the adox chain at r[j], the high half through the adcx chain at
 * r[j+1] (ZKA_X_MA), and ends by folding the adox carry into the top (ZKA_X_END); ZKA_X_M sets
 * m = r_i inv for the reduction row. The running value rotates through the registers, so a
 * step names them from its own lowest limb on. */
#define ZKA_X_MA(S, L, H) "mulxq " S ", %[lo], %[hi]\n\t" "adoxq %[lo], %[" #L "]\n\t" "adcxq %[hi], %[" #H "]\n\t"
#define ZKA_X_END(T) "adoxq %[z], %[" #T "]\n\t"
#define ZKA_X_B(S) "movq " S ", %%rdx\n\t" "xorl %k[z], %k[z]\n\t"
#define ZKA_X_M(L) "movq %[" #L "], %%rdx\n\t" "imulq %[inv], %%rdx\n\t" "xorl %k[z], %k[z]\n\t"
#define ZKA_X_ROW4(S0, S1, S2, S3, R0, R1, R2, R3, R4)                                              \
	ZKA_X_MA(S0, R0, R1) ZKA_X_MA(S1, R1, R2) ZKA_X_MA(S2, R2, R3) ZKA_X_MA(S3, R3, R4) ZKA_X_END(R4)
#define ZKA_X_ROW6(S0, S1, S2, S3, S4, S5, R0, R1, R2, R3, R4, R5, R6)                              \
	ZKA_X_MA(S0, R0, R1) ZKA_X_MA(S1, R1, R2) ZKA_X_MA(S2, R2, R3) ZKA_X_MA(S3, R3, R4)          \
	ZKA_X_MA(S4, R4, R5) ZKA_X_MA(S5, R5, R6) ZKA_X_END(R6)
/* a step of the 4-limb product (the modulus through the register operand p) */
#define ZKA_X_STEP4(B, R0, R1, R2, R3, R4)                                                          \
	ZKA_X_B(B "(%[b])")                                                                        \
	ZKA_X_ROW4("0(%[a])", "8(%[a])", "16(%[a])", "24(%[a])", R0, R1, R2, R3, R4)                \
	ZKA_X_M(R0) ZKA_X_ROW4("0(%[p])", "8(%[p])", "16(%[p])", "24(%[p])", R0, R1, R2, R3, R4)
/* a step of the 6-limb product (the modulus limbs as memory operands p0 .. p5) */
#define ZKA_X_STEP6(B, R0, R1, R2, R3, R4, R5, R6)                                                  \
	ZKA_X_B(B "(%[b])")                                                                        \
	ZKA_X_ROW6("0(%[a])", "8(%[a])", "16(%[a])", "24(%[a])", "32(%[a])", "40(%[a])", R0, R1, R2, \
		   R3, R4, R5, R6)                                                                 \
	ZKA_X_M(R0)                                                                                \
	ZKA_X_ROW6("%[p0]", "%[p1]", "%[p2]", "%[p3]", "%[p4]", "%[p5]", R0, R1, R2, R3, R4, R5, R6)
#endif

#define FP_CAT2(a, b) a##_##b
#define FP_CAT(a, b) FP_CAT2(a, b)
#define F(name) FP_CAT(FP, name)
#define K2(a, b) a##_##b
#define K1(a, b) K2(a, b)
#define K(name) K1(FP_C, name)
#define T F(t)

typedef struct {
	uint64_t v[FP_N];
} T;

typedef unsigned __int128 F(u128);

/* r = 0 */
static inline void F(zero)(T *r)
{
	memset(r, 0, sizeof *r);
}

/* r = 1 (Montgomery form R mod p) */
static inline void F(one)(T *r)
{
	memcpy(r->v, K(ONE), sizeof r->v);
}

/* Returns 1 when a == 0. */
static inline int F(is_zero)(const T *a)
{
	uint64_t acc = 0;
	ZKA_FP_UNROLL for (int i = 0; i < FP_N; i++)
		acc |= a->v[i];
	return acc == 0;
}

/* Returns 1 when a == b. */
static inline int F(eq)(const T *a, const T *b)
{
	uint64_t acc = 0;
	ZKA_FP_UNROLL for (int i = 0; i < FP_N; i++)
		acc |= a->v[i] ^ b->v[i];
	return acc == 0;
}

/* Returns 1 when the limbs of a, read as an integer, are < p (a canonical element). */
static inline int F(is_canonical)(const T *a)
{
	for (int i = FP_N - 1; i >= 0; i--) {
		if (a->v[i] < K(P)[i])
			return 1;
		if (a->v[i] > K(P)[i])
			return 0;
	}
	return 0;
}

/* r = a - p when a >= p; otherwise r = a. Input must be < 2p. Branch-free. */
static inline void F(reduce_once)(T *r, const T *a)
{
	uint64_t t[FP_N];
	unsigned char borrow = 0;
	ZKA_FP_UNROLL for (int i = 0; i < FP_N; i++)
		borrow = zka_fp_sbb(borrow, a->v[i], K(P)[i], &t[i]);
	uint64_t keep = 0 - (uint64_t)borrow; /* all ones when a < p */
	ZKA_FP_UNROLL for (int i = 0; i < FP_N; i++)
		r->v[i] = (a->v[i] & keep) | (t[i] & ~keep);
}

/* r = a + b mod p */
static inline void F(add)(T *r, const T *a, const T *b)
{
	T s;
	unsigned char carry = 0;
	ZKA_FP_UNROLL for (int i = 0; i < FP_N; i++)
		carry = zka_fp_adc(carry, a->v[i], b->v[i], &s.v[i]);
	/* the spare top bit of p means a + b < 2^(64N): carry is always 0 here */
	(void)carry;
	F(reduce_once)(r, &s);
}

/* r = a - b mod p (branch-free: adds p masked by the borrow) */
static inline void F(sub)(T *r, const T *a, const T *b)
{
	uint64_t t[FP_N];
	unsigned char borrow = 0;
	ZKA_FP_UNROLL for (int i = 0; i < FP_N; i++)
		borrow = zka_fp_sbb(borrow, a->v[i], b->v[i], &t[i]);
	uint64_t mask = 0 - (uint64_t)borrow;
	unsigned char carry = 0;
	ZKA_FP_UNROLL for (int i = 0; i < FP_N; i++)
		carry = zka_fp_adc(carry, t[i], K(P)[i] & mask, &r->v[i]);
	(void)carry;
}

/* r = -a mod p */
static inline void F(neg)(T *r, const T *a)
{
	T z;
	F(zero)(&z);
	F(sub)(r, &z, a);
}

/* r = 2a mod p */
static inline void F(dbl)(T *r, const T *a)
{
	F(add)(r, a, a);
}

/* r = a * b * R^-1 mod p: Montgomery product, CIOS with the "no-carry" shortcut, valid
 * because the top limb of every modulus here is below (2^64 - 1)/2 - 1, so the running value
 * never needs a limb beyond FP_N + 1. Each row forms all FP_N double-limb products first and
 * then adds the low and the high halves in two carry chains (adc on x86-64): bn254 Fq mul
 * 632 -> 299 instructions and 174 -> 60 ns (best of 7, loaded 2-core VM) vs the rolled
 * u128 version. */
static inline void F(mul_portable)(T *r, const T *a, const T *b)
{
	uint64_t t[FP_N + 1];
	ZKA_FP_UNROLL for (int j = 0; j <= FP_N; j++)
		t[j] = 0;
	ZKA_FP_UNROLL for (int i = 0; i < FP_N; i++) {
		uint64_t lo[FP_N], hi[FP_N], bi = b->v[i];
		ZKA_FP_UNROLL for (int j = 0; j < FP_N; j++) {
			F(u128) z = (F(u128))a->v[j] * bi;
			lo[j] = (uint64_t)z;
			hi[j] = (uint64_t)(z >> 64);
		}
		unsigned char c = 0;
		ZKA_FP_UNROLL for (int j = 0; j < FP_N; j++)
			c = zka_fp_adc(c, t[j], lo[j], &t[j]);
		t[FP_N] = c;
		c = 0;
		ZKA_FP_UNROLL for (int j = 1; j <= FP_N; j++)
			c = zka_fp_adc(c, t[j], hi[j - 1], &t[j]);
		uint64_t m = t[0] * K(INV);
		ZKA_FP_UNROLL for (int j = 0; j < FP_N; j++) {
			F(u128) z = (F(u128))m * K(P)[j];
			lo[j] = (uint64_t)z;
			hi[j] = (uint64_t)(z >> 64);
		}
		uint64_t x;
		c = zka_fp_adc(0, t[0], lo[0], &x);
		ZKA_FP_UNROLL for (int j = 1; j < FP_N; j++)
			c = zka_fp_adc(c, t[j], lo[j], &t[j]);
		zka_fp_adc(c, t[FP_N], 0, &t[FP_N]);
		c = 0;
		ZKA_FP_UNROLL for (int j = 1; j < FP_N; j++)
			c = zka_fp_adc(c, t[j], hi[j - 1], &t[j - 1]);
		zka_fp_adc(c, t[FP_N], hi[FP_N - 1], &t[FP_N - 1]);
		t[FP_N] = 0;
	}
	T s;
	ZKA_FP_UNROLL for (int j = 0; j < FP_N; j++)
		s.v[j] = t[j];
	F(reduce_once)(r, &s);
}

#if FP_N == 4 && defined(__x86_64__) && defined(__GNUC__)
#define ZKA_FP_HAVE_ADX_MUL 1
/* r = a * b * R^-1 mod p like F(mul_portable), with mulx and the two carry chains of
 * adcx/adox (inline asm; 4 limbs). Only for CPUs with BMI2 and ADX: callers dispatch with
 * zka_fp_adx(). Same no-carry CIOS; the running value (< 2^320) rotates through 5 registers. */
static inline void F(mul_adx)(T *r, const T *a, const T *b)
{
	uint64_t r0, r1, r2, r3, r4, lo, hi, z;
	const uint64_t inv = K(INV);
	__asm__(
		    "xorl %k[r0], %k[r0]\n\t"
		    "xorl %k[r1], %k[r1]\n\t"
		    "xorl %k[r2], %k[r2]\n\t"
		    "xorl %k[r3], %k[r3]\n\t"
		    "xorl %k[r4], %k[r4]\n\t"
		    ZKA_X_STEP4("0", r0, r1, r2, r3, r4)
		    ZKA_X_STEP4("8", r1, r2, r3, r4, r0)
		    ZKA_X_STEP4("16", r2, r3, r4, r0, r1)
		    ZKA_X_STEP4("24", r3, r4, r0, r1, r2)
	    : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3), [r4] "=&r"(r4),
	      [lo] "=&r"(lo), [hi] "=&r"(hi), [z] "=&r"(z)
	    : [a] "r"(a->v), [b] "r"(b->v), [p] "r"(K(P)), [inv] "m"(inv)
	    : "rdx", "cc", "memory");
	T s = {{r4, r0, r1, r2}};
	(void)lo, (void)hi, (void)z;
	F(reduce_once)(r, &s);
}
#endif

#if FP_N == 6 && defined(__x86_64__) && defined(__GNUC__)
#define ZKA_FP_HAVE_ADX_MUL 1
/* The 6-limb F(mul_adx) (BLS12-381 Fq): the same rows as the 4-limb one, with the running value
 * (< 2^448) rotating through 7 registers; the modulus limbs are memory operands (addressed
 * from the instruction pointer, no register), so that the asm needs 12 registers besides rdx
 * and still builds where rbp is the frame pointer (sanitizer builds). Step i works on
 * r[i % 7] .. r[(i + 6) % 7] (ZKA_X_STEP6); the result is r6, r0 .. r4 and r5 ends at 0. */
static inline void F(mul_adx)(T *r, const T *a, const T *b)
{
	uint64_t r0, r1, r2, r3, r4, r5, r6, lo, hi, z;
	const uint64_t inv = K(INV);
	__asm__(
		    "xorl %k[r0], %k[r0]\n\t"
		    "xorl %k[r1], %k[r1]\n\t"
		    "xorl %k[r2], %k[r2]\n\t"
		    "xorl %k[r3], %k[r3]\n\t"
		    "xorl %k[r4], %k[r4]\n\t"
		    "xorl %k[r5], %k[r5]\n\t"
		    "xorl %k[r6], %k[r6]\n\t"
		    ZKA_X_STEP6("0", r0, r1, r2, r3, r4, r5, r6)
		    ZKA_X_STEP6("8", r1, r2, r3, r4, r5, r6, r0)
		    ZKA_X_STEP6("16", r2, r3, r4, r5, r6, r0, r1)
		    ZKA_X_STEP6("24", r3, r4, r5, r6, r0, r1, r2)
		    ZKA_X_STEP6("32", r4, r5, r6, r0, r1, r2, r3)
		    ZKA_X_STEP6("40", r5, r6, r0, r1, r2, r3, r4)
	    : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3), [r4] "=&r"(r4),
	      [r5] "=&r"(r5), [r6] "=&r"(r6), [lo] "=&r"(lo), [hi] "=&r"(hi), [z] "=&r"(z)
	    : [a] "r"(a->v), [b] "r"(b->v), [p0] "m"(K(P)[0]), [p1] "m"(K(P)[1]), [p2] "m"(K(P)[2]),
	      [p3] "m"(K(P)[3]), [p4] "m"(K(P)[4]), [p5] "m"(K(P)[5]), [inv] "m"(inv)
	    : "rdx", "cc", "memory");
	T s = {{r6, r0, r1, r2, r3, r4}};
	(void)r5, (void)lo, (void)hi, (void)z;
	F(reduce_once)(r, &s);
}
#endif

/* t (2 FP_N limbs) = a * b, the plain integer product of the limbs (no reduction): the
 * building block of lazily reduced sums of products (F(redc) reduces such a sum once). */
static inline void F(wide_mul_portable)(uint64_t *t, const T *a, const T *b)
{
	ZKA_FP_UNROLL for (int j = 0; j < 2 * FP_N; j++)
		t[j] = 0;
	ZKA_FP_UNROLL for (int i = 0; i < FP_N; i++) {
		F(u128) c = 0;
		ZKA_FP_UNROLL for (int j = 0; j < FP_N; j++) {
			c += (F(u128))a->v[j] * b->v[i] + t[i + j];
			t[i + j] = (uint64_t)c;
			c >>= 64;
		}
		t[i + FP_N] = (uint64_t)c;
	}
}

/* r = x R^-1 mod p for an FP_N-limb integer x (any x < R): Montgomery's reduction alone, so
 * r <= p, and r < p when x < p (r = p needs x a nonzero multiple of p). F(from_mont) of a
 * canonical x at half the products of F(mul) by 1. */
static inline void F(redc_portable)(T *r, const uint64_t *x)
{
	uint64_t t[FP_N + 1];
	ZKA_FP_UNROLL for (int j = 0; j < FP_N; j++)
		t[j] = x[j];
	t[FP_N] = 0;
	ZKA_FP_UNROLL for (int i = 0; i < FP_N; i++) {
		/* t = (t + m p) / 2^64, m making the low limb 0; t < x / 2^(64 i) + p */
		uint64_t m = t[0] * K(INV);
		F(u128) c = ((F(u128))m * K(P)[0] + t[0]) >> 64;
		ZKA_FP_UNROLL for (int j = 1; j < FP_N; j++) {
			c += (F(u128))m * K(P)[j] + t[j];
			t[j - 1] = (uint64_t)c;
			c >>= 64;
		}
		c += t[FP_N];
		t[FP_N - 1] = (uint64_t)c;
		t[FP_N] = (uint64_t)(c >> 64);
	}
	ZKA_FP_UNROLL for (int j = 0; j < FP_N; j++)
		r->v[j] = t[j];
}

#if FP_N == 4 && defined(__x86_64__) && defined(__GNUC__)
#define ZKA_FP_HAVE_ADX_WIDE 1
/* F(wide_mul_portable) with mulx/adcx/adox (4 limbs; dispatch with zka_fp_adx()): the product
 * rows of F(mul_adx) without its reduction rows; after row i the limb i is final and stored,
 * and its register, cleared, becomes the next row's top. */
static inline void F(wide_mul_adx)(uint64_t *t, const T *a, const T *b)
{
	uint64_t r0, r1, r2, r3, r4, lo, hi, z;
	/* volatile: the results leave through memory only */
	__asm__ __volatile__(
		    "xorl %k[r0], %k[r0]\n\t"
		    "xorl %k[r1], %k[r1]\n\t"
		    "xorl %k[r2], %k[r2]\n\t"
		    "xorl %k[r3], %k[r3]\n\t"
		    "xorl %k[r4], %k[r4]\n\t"
		    ZKA_X_B("0(%[b])")
		    ZKA_X_ROW4("0(%[a])", "8(%[a])", "16(%[a])", "24(%[a])", r0, r1, r2, r3, r4)
		    "movq %[r0], 0(%[t])\n\t"
		    "xorl %k[r0], %k[r0]\n\t"
		    ZKA_X_B("8(%[b])")
		    ZKA_X_ROW4("0(%[a])", "8(%[a])", "16(%[a])", "24(%[a])", r1, r2, r3, r4, r0)
		    "movq %[r1], 8(%[t])\n\t"
		    "xorl %k[r1], %k[r1]\n\t"
		    ZKA_X_B("16(%[b])")
		    ZKA_X_ROW4("0(%[a])", "8(%[a])", "16(%[a])", "24(%[a])", r2, r3, r4, r0, r1)
		    "movq %[r2], 16(%[t])\n\t"
		    "xorl %k[r2], %k[r2]\n\t"
		    ZKA_X_B("24(%[b])")
		    ZKA_X_ROW4("0(%[a])", "8(%[a])", "16(%[a])", "24(%[a])", r3, r4, r0, r1, r2)
		    "movq %[r3], 24(%[t])\n\t"
		    "movq %[r4], 32(%[t])\n\t"
		    "movq %[r0], 40(%[t])\n\t"
		    "movq %[r1], 48(%[t])\n\t"
		    "movq %[r2], 56(%[t])\n\t"
	    : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3), [r4] "=&r"(r4),
	      [lo] "=&r"(lo), [hi] "=&r"(hi), [z] "=&r"(z)
	    : [a] "r"(a->v), [b] "r"(b->v), [t] "r"(t)
	    : "rdx", "cc", "memory");
	(void)lo, (void)hi, (void)z;
}

/* F(redc_portable) with mulx/adcx/adox (4 limbs; dispatch with zka_fp_adx()): the reduction
 * rows of F(mul_adx) alone, the running value starting as x and rotating the same way. */
static inline void F(redc_adx)(T *r, const uint64_t *x)
{
	uint64_t r0, r1, r2, r3, r4, lo, hi, z;
	const uint64_t inv = K(INV);
	__asm__(
		    "movq 0(%[x]), %[r0]\n\t"
		    "movq 8(%[x]), %[r1]\n\t"
		    "movq 16(%[x]), %[r2]\n\t"
		    "movq 24(%[x]), %[r3]\n\t"
		    "xorl %k[r4], %k[r4]\n\t"
		    ZKA_X_M(r0) ZKA_X_ROW4("0(%[p])", "8(%[p])", "16(%[p])", "24(%[p])", r0, r1, r2, r3, r4)
		    ZKA_X_M(r1) ZKA_X_ROW4("0(%[p])", "8(%[p])", "16(%[p])", "24(%[p])", r1, r2, r3, r4, r0)
		    ZKA_X_M(r2) ZKA_X_ROW4("0(%[p])", "8(%[p])", "16(%[p])", "24(%[p])", r2, r3, r4, r0, r1)
		    ZKA_X_M(r3) ZKA_X_ROW4("0(%[p])", "8(%[p])", "16(%[p])", "24(%[p])", r3, r4, r0, r1, r2)
	    : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3), [r4] "=&r"(r4),
	      [lo] "=&r"(lo), [hi] "=&r"(hi), [z] "=&r"(z)
	    : [x] "r"(x), [p] "r"(K(P)), [inv] "m"(inv)
	    : "rdx", "cc", "memory");
	r->v[0] = r4, r->v[1] = r0, r->v[2] = r1, r->v[3] = r2;
	(void)r3, (void)lo, (void)hi, (void)z;
}
#endif

/* t (2 FP_N limbs) = a * b as integers: F(wide_mul_adx) where the CPU has it, else portable. */
static inline void F(wide_mul)(uint64_t *t, const T *a, const T *b)
{
#ifdef ZKA_FP_HAVE_ADX_WIDE
	if (zka_fp_adx()) {
		F(wide_mul_adx)(t, a, b);
		return;
	}
#endif
	F(wide_mul_portable)(t, a, b);
}

/* r = x R^-1 mod p, r <= p (see F(redc_portable)): F(redc_adx) where the CPU has it. */
static inline void F(redc)(T *r, const uint64_t *x)
{
#ifdef ZKA_FP_HAVE_ADX_WIDE
	if (zka_fp_adx()) {
		F(redc_adx)(r, x);
		return;
	}
#endif
	F(redc_portable)(r, x);
}

/* Test hooks like F(mul_impl): by one given implementation (0 portable, 1 mulx/adx); 0 when
 * that one is not compiled in or the CPU lacks it. */
static inline int F(wide_mul_impl)(uint64_t *t, const T *a, const T *b, int impl)
{
	if (impl == 0) {
		F(wide_mul_portable)(t, a, b);
		return 1;
	}
#ifdef ZKA_FP_HAVE_ADX_WIDE
	if (impl == 1 && zka_fp_adx()) {
		F(wide_mul_adx)(t, a, b);
		return 1;
	}
#endif
	return 0;
}
static inline int F(redc_impl)(T *r, const uint64_t *x, int impl)
{
	if (impl == 0) {
		F(redc_portable)(r, x);
		return 1;
	}
#ifdef ZKA_FP_HAVE_ADX_WIDE
	if (impl == 1 && zka_fp_adx()) {
		F(redc_adx)(r, x);
		return 1;
	}
#endif
	return 0;
}

/* r = a * b * R^-1 mod p (Montgomery product): the mulx/adcx/adox version where the CPU has
 * BMI2 and ADX (x86-64), else the portable one; both fully reduce. */
static inline void F(mul)(T *r, const T *a, const T *b)
{
#ifdef ZKA_FP_HAVE_ADX_MUL
	if (zka_fp_adx()) {
		F(mul_adx)(r, a, b);
		return;
	}
#endif
	F(mul_portable)(r, a, b);
}

/* Test hook: r = a * b * R^-1 mod p by one given implementation (0 portable, 1 mulx/adx);
 * returns 0 without touching r when that one is not compiled in or the CPU lacks it. */
static inline int F(mul_impl)(T *r, const T *a, const T *b, int impl)
{
	if (impl == 0) {
		F(mul_portable)(r, a, b);
		return 1;
	}
#ifdef ZKA_FP_HAVE_ADX_MUL
	if (impl == 1 && zka_fp_adx()) {
		F(mul_adx)(r, a, b);
		return 1;
	}
#endif
	return 0;
}

/* r = a^2 mod p (Montgomery) */
static inline void F(sqr)(T *r, const T *a)
{
	F(mul)(r, a, a);
}

/* r = a converted into Montgomery form (a * R mod p); a must be < p. */
static inline void F(to_mont)(T *r, const T *a)
{
	T r2;
	memcpy(r2.v, K(R2), sizeof r2.v);
	F(mul)(r, a, &r2);
}

/* r = a converted out of Montgomery form (a * R^-1 mod p). */
static inline void F(from_mont)(T *r, const T *a)
{
	T one;
	memset(&one, 0, sizeof one);
	one.v[0] = 1;
	F(mul)(r, a, &one);
}

/* r = small integer v in Montgomery form */
static inline void F(from_u64)(T *r, uint64_t v)
{
	T a;
	memset(&a, 0, sizeof a);
	a.v[0] = v;
	F(to_mont)(r, &a);
}

/* r = a^e for e given as ne little-endian 64-bit limbs (plain integer). */
static inline void F(pow)(T *r, const T *a, const uint64_t *e, int ne)
{
	T acc, base = *a;
	F(one)(&acc);
	for (int i = ne - 1; i >= 0; i--)
		for (int b = 63; b >= 0; b--) {
			F(sqr)(&acc, &acc);
			if ((e[i] >> b) & 1)
				F(mul)(&acc, &acc, &base);
		}
	*r = acc;
}

/* r = a^-1 mod p (Fermat); the inverse of 0 is 0. Constant time. */
static inline void F(inv)(T *r, const T *a)
{
	F(pow)(r, a, K(PM2), FP_N);
}

/* u = u / 2 (an integer shift) */
static inline void F(shr1)(uint64_t *u)
{
	ZKA_FP_UNROLL for (int i = 0; i < FP_N - 1; i++)
		u[i] = (u[i] >> 1) | (u[i + 1] << 63);
	u[FP_N - 1] >>= 1;
}

/* x = x / 2 mod p for x < p (adds p first when x is odd; x + p < 2p fits the limbs, the
 * modulus leaving a spare top bit) */
static inline void F(half)(uint64_t *x)
{
	uint64_t mask = 0 - (x[0] & 1);
	unsigned char c = 0;
	ZKA_FP_UNROLL for (int i = 0; i < FP_N; i++)
		c = zka_fp_adc(c, x[i], K(P)[i] & mask, &x[i]);
	(void)c;
	F(shr1)(x);
}

/* Returns 1 when the integer u (FP_N limbs) is 1. */
static inline int F(is_one_int)(const uint64_t *u)
{
	uint64_t acc = u[0] ^ 1;
	for (int i = 1; i < FP_N; i++)
		acc |= u[i];
	return acc == 0;
}

/* r = a^-1 mod p like F(inv) (the inverse of 0 is 0), by the binary extended Euclidean
 * algorithm on the Montgomery limbs, then two products by R^2 (the limbs hold a R, so the loop
 * gives (a R)^-1 and (a R)^-1 R^2 = a^-1 R is the Montgomery form of a^-1). VARIABLE TIME: the
 * loop's length and branches depend on a. F(inv_vartime) until the sixteenth session, now
 * the reference for F(inv_bgcd) (tests, `bench field`) and its fallback. Invariants of the
 * loop: u = x1 a R and v = x2 a R (mod p), u and v odd after their halvings, gcd(u, v) = 1,
 * so one of them reaches 1. */
static inline void F(inv_euclid)(T *r, const T *a)
{
	if (F(is_zero)(a)) {
		F(zero)(r);
		return;
	}
	uint64_t u[FP_N], v[FP_N];
	T x1, x2, r2;
	memcpy(u, a->v, sizeof u);
	memcpy(v, K(P), sizeof v);
	F(zero)(&x1);
	x1.v[0] = 1;
	F(zero)(&x2);
	const T *x;
	for (;;) {
		while (!(u[0] & 1)) {
			F(shr1)(u);
			F(half)(x1.v);
		}
		while (!(v[0] & 1)) {
			F(shr1)(v);
			F(half)(x2.v);
		}
		if (F(is_one_int)(u)) {
			x = &x1;
			break;
		}
		if (F(is_one_int)(v)) {
			x = &x2;
			break;
		}
		/* u >= v: u -= v (even now), x1 -= x2; else the other way round */
		uint64_t d[FP_N];
		unsigned char borrow = 0;
		ZKA_FP_UNROLL for (int i = 0; i < FP_N; i++)
			borrow = zka_fp_sbb(borrow, u[i], v[i], &d[i]);
		if (!borrow) {
			memcpy(u, d, sizeof u);
			F(sub)(&x1, &x1, &x2);
		} else {
			borrow = 0;
			ZKA_FP_UNROLL for (int i = 0; i < FP_N; i++)
				borrow = zka_fp_sbb(borrow, v[i], u[i], &v[i]);
			F(sub)(&x2, &x2, &x1);
		}
	}
	memcpy(r2.v, K(R2), sizeof r2.v);
	F(mul)(r, x, &r2);
	F(mul)(r, r, &r2);
}

/* t (FP_N + 1 limbs, two's complement) = x f + y g for x, y of FP_N limbs (non-negative)
 * and |f|, |g| <= 2^31 */
static inline void F(lincomb)(uint64_t *t, const uint64_t *x, const uint64_t *y, int64_t f,
			      int64_t g)
{
	__int128 c = 0;
	for (int i = 0; i < FP_N; i++) {
		c += (__int128)x[i] * f + (__int128)y[i] * g;
		t[i] = (uint64_t)c;
		c >>= 64; /* arithmetic: the signed carry */
	}
	t[FP_N] = (uint64_t)c;
}

/* x = t >> 31 (arithmetic) for t of FP_N + 1 limbs whose value fits FP_N limbs signed;
 * returns 1 (and x = -x) when it was negative */
static inline int F(shr31_abs)(uint64_t *x, const uint64_t *t)
{
	for (int i = 0; i < FP_N; i++)
		x[i] = (t[i] >> 31) | (t[i + 1] << 33);
	int neg = (int64_t)t[FP_N] < 0;
	if (neg) {
		unsigned char c = 1;
		for (int i = 0; i < FP_N; i++)
			c = zka_fp_adc(c, ~x[i], 0, &x[i]);
	}
	return neg;
}

/* u' = (u f + v g) / 2^31 mod p for u, v < p: the sum plus k p, k < 2^31 chosen to clear its
 * low 31 bits (k = sum (-p^-1) mod 2^31, Montgomery's step), shifted, then brought into
 * [0, p) (it lies in (-2p, 3p)) */
static inline void F(lincomb_mod)(uint64_t *r, const uint64_t *u, const uint64_t *v, int64_t f,
				  int64_t g)
{
	uint64_t t[FP_N + 1];
	F(lincomb)(t, u, v, f, g);
	uint64_t k = (t[0] * K(INV)) & 0x7fffffffu;
	__int128 c = 0;
	for (int i = 0; i < FP_N; i++) {
		c += (__int128)t[i] + (__int128)K(P)[i] * k;
		t[i] = (uint64_t)c;
		c >>= 64;
	}
	t[FP_N] = (uint64_t)((__int128)(int64_t)t[FP_N] + c);
	int64_t top = (int64_t)t[FP_N] >> 31;
	for (int i = 0; i < FP_N; i++)
		r[i] = (t[i] >> 31) | (t[i + 1] << 33);
	/* r with top as its sign: add p while negative, subtract p while >= p */
	while (top < 0) {
		unsigned char cc = 0;
		for (int i = 0; i < FP_N; i++)
			cc = zka_fp_adc(cc, r[i], K(P)[i], &r[i]);
		top += cc;
	}
	for (;;) {
		uint64_t d[FP_N];
		unsigned char b = 0;
		for (int i = 0; i < FP_N; i++)
			b = zka_fp_sbb(b, r[i], K(P)[i], &d[i]);
		if (b && top == 0)
			break;
		memcpy(r, d, sizeof d);
		top -= b;
	}
}

/* bits of the FP_N-limb integer x (0 for 0) */
static inline int F(bitlen)(const uint64_t *x)
{
	for (int i = FP_N - 1; i >= 0; i--)
		if (x[i])
			return 64 * i + 64 - __builtin_clzll(x[i]);
	return 0;
}

/* bits [s, s + 33) of x (s >= 0) */
static inline uint64_t F(bits33)(const uint64_t *x, int s)
{
	int w = s / 64, o = s % 64;
	uint64_t lo = x[w] >> o;
	if (o && w + 1 < FP_N)
		lo |= x[w + 1] << (64 - o);
	return lo & 0x1ffffffffull;
}

/* r = a^-1 mod p like F(inv) (the inverse of 0 is 0), by the binary GCD on approximations
 * (the method of T. Pornin, "Optimized Binary GCD for Modular Inversion", 2020, written
 * from its description): a = the limbs of a (a R), b = p, and u, v with a = u (a R), b =
 * v (a R) mod p. Each round runs 31 steps of the binary GCD on 64-bit stand-ins of a and b
 * (their low 31 bits and their top 33 bits at the larger one's length: every parity test is
 * exact, a comparison may not be) and keeps the steps as a matrix (f0 g0; f1 g1) of
 * integers below 2^31: a, b <- (a f0 + b g0, a f1 + b g1) / 2^31 (exact divisions; a wrong
 * comparison shows as a negative value, negated with its row), and u, v likewise mod p (the
 * division by 2^31 through a Montgomery step). When a reaches 0, b = gcd = 1 and v =
 * (a R)^-1; two products by R^2 give a^-1 R. Two machine words and four small products per
 * step instead of full-width subtractions and halvings: the route to a GPU inversion cheap
 * enough for batch-affine bucket sums (docs/gpu.md). VARIABLE TIME in the number of rounds
 * (stops when a = 0; at most ZKA_BGCD_ROUNDS, 2 len(p) / 31 + 8; each round's steps are
 * branch-free) and in the final reductions: see F(inv_vartime) for where that may be.
 * Returns 0, or 1 when the rounds did not reach a = 0 and F(inv_euclid) gave r (never seen:
 * the tests assert 0 on every input). */
static inline int F(inv_bgcd)(T *r, const T *x)
{
	if (F(is_zero)(x)) {
		F(zero)(r);
		return 0;
	}
	uint64_t a[FP_N], b[FP_N], u[FP_N], v[FP_N], t[FP_N + 1];
	memcpy(a, x->v, sizeof a);
	memcpy(b, K(P), sizeof b);
	memset(u, 0, sizeof u);
	memset(v, 0, sizeof v);
	u[0] = 1;
	const int rounds = 2 * F(bitlen)(K(P)) / 31 + 8;
	for (int round = 0; round < rounds; round++) {
		int la = F(bitlen)(a), lb = F(bitlen)(b), n = la > lb ? la : lb;
		n = n < 64 ? 64 : n;
		uint64_t xa = (a[0] & 0x7fffffffu) | (F(bits33)(a, n - 33) << 31);
		uint64_t xb = (b[0] & 0x7fffffffu) | (F(bits33)(b, n - 33) << 31);
		int64_t f0 = 1, g0 = 0, f1 = 0, g1 = 1;
		for (int i = 0; i < 31; i++) {
			/* odd: if a < b swap the rows, then a -= b (row 0 -= row 1); then a /= 2
			 * (row 1 doubled: the division is deferred to the round's end) */
			uint64_t odd = 0 - (xa & 1);
			uint64_t sw = odd & (0 - (uint64_t)(xa < xb));
			uint64_t d = (xa ^ xb) & sw;
			xa ^= d;
			xb ^= d;
			int64_t df = (f0 ^ f1) & (int64_t)sw, dg = (g0 ^ g1) & (int64_t)sw;
			f0 ^= df;
			f1 ^= df;
			g0 ^= dg;
			g1 ^= dg;
			xa -= xb & odd;
			f0 -= f1 & (int64_t)odd;
			g0 -= g1 & (int64_t)odd;
			xa >>= 1;
			f1 *= 2;
			g1 *= 2;
		}
		uint64_t na[FP_N], nb[FP_N];
		F(lincomb)(t, a, b, f0, g0);
		if (F(shr31_abs)(na, t)) {
			f0 = -f0;
			g0 = -g0;
		}
		F(lincomb)(t, a, b, f1, g1);
		if (F(shr31_abs)(nb, t)) {
			f1 = -f1;
			g1 = -g1;
		}
		uint64_t nu[FP_N], nv[FP_N];
		F(lincomb_mod)(nu, u, v, f0, g0);
		F(lincomb_mod)(nv, u, v, f1, g1);
		memcpy(a, na, sizeof a);
		memcpy(b, nb, sizeof b);
		memcpy(u, nu, sizeof u);
		memcpy(v, nv, sizeof v);
		if (F(bitlen)(a) == 0)
			break;
	}
	if (F(bitlen)(a) != 0 || !F(is_one_int)(b)) {
		F(inv_euclid)(r, x);
		return 1;
	}
	T vv, r2;
	memcpy(vv.v, v, sizeof vv.v);
	memcpy(r2.v, K(R2), sizeof r2.v);
	F(mul)(r, &vv, &r2);
	F(mul)(r, r, &r2);
	return 0;
}

/* r = a^-1 mod p like F(inv) (the inverse of 0 is 0), VARIABLE TIME: F(inv_bgcd). Used only
 * where an MSM's memory accesses depend on its scalars anyway or the points are public: the
 * MSM's batched affine bucket additions (bucket indices), the GPU MSM's result (cuda/host.c;
 * its buckets likewise) and batched conversions to affine (the fixed-base tables of `setup
 * --insecure`, a test-only ceremony); F(inv), constant time, everywhere else. Measured with
 * `zkarena bench field` on the 2-core dev box (2026-12-02, in products of the same field):
 * BN254 Fq 423 (Fermat), 315 (binary Euclid, the previous F(inv_vartime)), 79 (this);
 * BLS12-381 Fq 592, 354, 74. */
static inline void F(inv_vartime)(T *r, const T *a)
{
	(void)F(inv_bgcd)(r, a);
}

/* Inverts the n elements of a in place with one inversion (Montgomery's trick); zeros stay
 * zero. scratch must hold n elements. */
static inline void F(batch_inv)(T *a, T *scratch, size_t n)
{
	T acc;
	F(one)(&acc);
	for (size_t i = 0; i < n; i++) {
		scratch[i] = acc;
		if (!F(is_zero)(&a[i]))
			F(mul)(&acc, &acc, &a[i]);
	}
	F(inv)(&acc, &acc);
	for (size_t i = n; i-- > 0;) {
		if (F(is_zero)(&a[i]))
			continue;
		T t;
		F(mul)(&t, &acc, &scratch[i]);
		F(mul)(&acc, &acc, &a[i]);
		a[i] = t;
	}
}

#undef T
#undef K
#undef K1
#undef K2
#undef F
#undef FP_CAT
#undef FP_CAT2
#undef FP
#undef FP_N
#undef FP_C
#undef ZKA_FP_HAVE_ADX_MUL
#undef ZKA_FP_HAVE_ADX_WIDE
