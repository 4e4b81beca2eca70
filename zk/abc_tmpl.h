/* abc_tmpl.h - the per-curve inner loops of zk/abc.c (see abc.h): included once per curve by
 * curve_bn254.c and curve_bls12_381.c with CURVE defined; abc.c dispatches to them. Each
 * function handles one range of rows or values; the caller divides the work. */
#include "zk/abc.h"
#include "zk/tmpl.h"

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define AR(n) ZKA_CAT2(CURVE, fr_##n)
#define AX(n) ZKA_CAT2(zka_, ZKA_CAT2(CURVE, n))
#define AT AR(t)

/* 1 when x is 0 or 1 (Montgomery form). Circom witnesses are mostly such values (bits,
 * flags, selectors), and a product with either needs no multiplication: on the 2-core dev box
 * these shortcuts halved the row loop of a 2^18 random circuit (a third boolean rows), 84 ->
 * 43 ns per row, measured with the loop alone. */
static inline int AX(abc_is01)(const AT *x)
{
	const uint64_t *one = ZKA_CAT2(CC, FR_ONE);
	return ((x->v[0] | x->v[1] | x->v[2] | x->v[3]) == 0) ||
	       (x->v[0] == one[0] && x->v[1] == one[1] && x->v[2] == one[2] && x->v[3] == one[3]);
}

/* s += k x */
static inline void AX(abc_madd)(AT *s, const AT *k, const AT *x)
{
	if (AX(abc_is01)(x)) {
		if (x->v[0] | x->v[1] | x->v[2] | x->v[3])
			AR(add)(s, s, k);
	} else if (AX(abc_is01)(k)) {
		if (k->v[0] | k->v[1] | k->v[2] | k->v[3])
			AR(add)(s, s, x);
	} else {
		AT p;
		AR(mul)(&p, k, x);
		AR(add)(s, s, &p);
	}
}

/* r = a b */
static inline void AX(abc_mul)(AT *r, const AT *a, const AT *b)
{
	if (AX(abc_is01)(a)) {
		if (a->v[0] | a->v[1] | a->v[2] | a->v[3])
			*r = *b;
		else
			AR(zero)(r);
	} else if (AX(abc_is01)(b)) {
		if (b->v[0] | b->v[1] | b->v[2] | b->v[3])
			*r = *a;
		else
			AR(zero)(r);
	} else {
		AR(mul)(r, a, b);
	}
}

/* *dst = *v with a non-temporal store where the CPU has one and dst is 16-byte aligned: the
 * rows' outputs and the witness copies are written once and not read again by this job (the
 * prover reads them later, from DRAM or by DMA), so skipping the read-for-ownership of every
 * line saves a third of the job's memory traffic. The stores are ordered by AX(abc_fence). */
static inline void AX(abc_store)(AT *dst, const AT *v)
{
#ifdef __SSE2__
	if (!((uintptr_t)dst & 15)) {
		__m128i lo = _mm_loadu_si128((const __m128i *)v->v),
			hi = _mm_loadu_si128((const __m128i *)(v->v + 2));
		_mm_stream_si128((__m128i *)dst->v, lo);
		_mm_stream_si128((__m128i *)(dst->v + 2), hi);
		return;
	}
#endif
	*dst = *v;
}

/* Barrier: the non-temporal stores of AX(abc_store) are weakly ordered; sfence makes them
 * globally visible before any later store (the block's end, then the thread join that hands
 * the results to the caller). */
static inline void AX(abc_fence)(void)
{
#ifdef __SSE2__
	_mm_sfence();
#endif
}

/* s += value vi times x: value 0 is 1 and value 1 is -1 (zk/abc.h), no product for them. */
static inline void AX(abc_term)(AT *s, const AT *x, uint32_t vi, const AT *val)
{
	if (vi == 0)
		AR(add)(s, s, x);
	else if (vi == 1)
		AR(sub)(s, s, x);
	else
		AX(abc_madd)(s, &val[vi], x);
}

/* Row i's outputs from its sums s = {a_i, b_i}: a_i, b_i and (C not NULL) c_i = a_i b_i,
 * stored once. */
static inline void AX(abc_row_out)(const AT s[2], AT *A, AT *B, AT *C, uint32_t i)
{
	AX(abc_store)(&A[i], &s[0]);
	AX(abc_store)(&B[i], &s[1]);
	if (C) {
		AT p;
		AX(abc_mul)(&p, &s[0], &s[1]);
		AX(abc_store)(&C[i], &p);
	}
}

/* The class of witness value j in the class map (zk/abc.h): 0 zero, 1 one, 2 any other. */
static inline uint32_t AX(abc_cls)(const uint64_t *cls, uint32_t j)
{
	return (uint32_t)(cls[j >> 5] >> ((j & 31) * 2)) & 3;
}

/* Rows [r0, r1): a_i = <A_i, wm>, b_i = <B_i, wm>, c_i = a_i b_i (C not NULL). The loop
 * prefetches the witness values (and value-table entries) of the row zka__abc_tune.ahead rows
 * ahead: one row's terms hit random lines of wm (the witness is far larger than the caches at
 * 2^20+).
 * With the class map cls (not NULL) a term whose witness value is 0 adds nothing and one whose
 * value is 1 adds its coefficient (val[0] = 1, val[1] = -1, so one add serves every
 * coefficient), so only the other values are read from wm, or prefetched. The map (2 bits a
 * value: 1 MiB at 2^22) stays in the core's L2 where wm (128 MiB) cannot; on a witness that is
 * mostly bits most of the row loop's random reads of DRAM are gone. v1 is the table a class-1
 * term adds: val itself, or its standard form when wm holds the witness in standard form (the
 * arithmetic below is then the same on every byte, see zk/abc.h). Always inlined, so that
 * each caller's constant cls (NULL or not) leaves one loop without the other's tests. */
static inline __attribute__((always_inline)) void AX(abc_rows_loop)(const zka_abc *m, const AT *w,
								    const uint64_t *cls,
								    const AT *v1, AT *A, AT *B,
								    AT *C, uint32_t r0, uint32_t r1)
{
	const AT *val = (const AT *)m->val;
	const uint32_t ahead = zka__abc_tune.ahead;
	for (uint32_t i = r0; i < r1; i++) {
		if (i + ahead < r1)
			for (int k = 0; k < 2; k++) {
				uint32_t t0 = m->start[k][i + ahead];
				uint32_t t1 = m->start[k][i + ahead + 1];
				for (uint32_t t = t0; t < t1; t++) {
					uint32_t col = m->term[k][t][0], vi = m->term[k][t][1];
					uint32_t x = cls ? AX(abc_cls)(cls, col) : 2;
					if (x == 2)
						__builtin_prefetch(&w[col]);
					if (x == 2 && vi > 1)
						__builtin_prefetch(&val[vi]);
					else if (x == 1 && vi > 1)
						__builtin_prefetch(&v1[vi]);
				}
			}
		AT s[2];
		for (int k = 0; k < 2; k++) {
			AR(zero)(&s[k]);
			const uint32_t(*tm)[2] = m->term[k];
			for (uint32_t t = m->start[k][i], e = m->start[k][i + 1]; t < e; t++) {
				uint32_t col = tm[t][0], vi = tm[t][1];
				uint32_t x = cls ? AX(abc_cls)(cls, col) : 2;
				if (x == 1)
					AR(add)(&s[k], &s[k], &v1[vi]);
				else if (x == 2)
					AX(abc_term)(&s[k], &w[col], vi, val);
			}
		}
		AX(abc_row_out)(s, A, B, C, i);
	}
}

static void AX(abc_rows_direct)(const zka_abc *m, const AT *w, AT *A, AT *B, AT *C, uint32_t r0,
				uint32_t r1)
{
	AX(abc_rows_loop)(m, w, NULL, NULL, A, B, C, r0, r1);
}

static void AX(abc_rows_cls)(const zka_abc *m, const AT *w, const uint64_t *cls, const AT *v1,
			     AT *A, AT *B, AT *C, uint32_t r0, uint32_t r1)
{
	AX(abc_rows_loop)(m, w, cls, v1, A, B, C, r0, r1);
}

/* Terms per matrix gathered per chunk (2 x 256 x 32 bytes: half of a 32 KiB L1). */
#define ZKA_ABC_GCAP 256u

/* The same rows in two passes per chunk of rows: first a gather of the chunk's witness values
 * into a small buffer (loads and copies only, so the core keeps many misses in flight; the
 * gather runs zka__abc_tune.ahead rows ahead with prefetches), then the arithmetic from that
 * buffer, with no miss left in it. A row with more terms than the buffer holds goes through
 * the direct loop. */
static void AX(abc_rows_gather)(const zka_abc *m, const AT *w, AT *A, AT *B, AT *C, uint32_t r0,
				uint32_t r1)
{
	const AT *val = (const AT *)m->val;
	const uint32_t ahead = zka__abc_tune.ahead;
	AT gb[2][ZKA_ABC_GCAP];
	uint32_t i = r0;
	while (i < r1) {
		uint32_t e = i;
		while (e < r1 && m->start[0][e + 1] - m->start[0][i] <= ZKA_ABC_GCAP &&
		       m->start[1][e + 1] - m->start[1][i] <= ZKA_ABC_GCAP)
			e++;
		if (e == i) { /* one long row */
			AX(abc_rows_direct)(m, w, A, B, C, i, i + 1);
			i++;
			continue;
		}
		for (uint32_t r = i; r < e; r++) {
			if (r + ahead < r1)
				for (int k = 0; k < 2; k++)
					for (uint32_t t = m->start[k][r + ahead],
						      te = m->start[k][r + ahead + 1];
					     t < te; t++)
						__builtin_prefetch(&w[m->term[k][t][0]]);
			for (int k = 0; k < 2; k++) {
				uint32_t b0 = m->start[k][i];
				for (uint32_t t = m->start[k][r], te = m->start[k][r + 1]; t < te;
				     t++)
					gb[k][t - b0] = w[m->term[k][t][0]];
			}
		}
		for (uint32_t r = i; r < e; r++) {
			AT s[2];
			for (int k = 0; k < 2; k++) {
				AR(zero)(&s[k]);
				const uint32_t(*tm)[2] = m->term[k];
				uint32_t b0 = m->start[k][i];
				for (uint32_t t = m->start[k][r], te = m->start[k][r + 1]; t < te;
				     t++)
					AX(abc_term)(&s[k], &gb[k][t - b0], tm[t][1], val);
			}
			AX(abc_row_out)(s, A, B, C, r);
		}
		i = e;
	}
}

void AX(abc_rows)(const zka_abc *m, const uint64_t (*wm)[4], const uint64_t *cls,
		  const uint64_t (*val_std)[4], uint64_t (*a)[4], uint64_t (*b)[4],
		  uint64_t (*c)[4], uint32_t r0, uint32_t r1)
{
	const AT *w = (const AT *)wm, *v1 = (const AT *)(val_std ? val_std : m->val);
	if (cls && zka__abc_tune.classes)
		AX(abc_rows_cls)(m, w, cls, v1, (AT *)a, (AT *)b, (AT *)c, r0, r1);
	else if (zka__abc_tune.gather)
		AX(abc_rows_gather)(m, w, (AT *)a, (AT *)b, (AT *)c, r0, r1);
	else
		AX(abc_rows_direct)(m, w, (AT *)a, (AT *)b, (AT *)c, r0, r1);
	AX(abc_fence)();
}

/* Values [i0, i1) of a witness: src (standard form, possibly unaligned: a .wtns payload) is
 * copied to w_std (when not NULL) and into wm, converted to Montgomery form unless std; with
 * cls, their classes go into the class map (i0 a multiple of 32: each word of the map has one
 * writer). Returns the first index whose value is not below r, or UINT32_MAX when all are. */
uint32_t AX(abc_wit)(const uint8_t *src, uint64_t (*w_std)[4], uint64_t (*wm)[4], uint64_t *cls,
		     int std, uint32_t i0, uint32_t i1)
{
	AT *out = (AT *)wm;
	uint64_t word = 0;
	for (uint32_t i = i0; i < i1; i++) {
		AT v, m;
		uint64_t k = 2;
		memcpy(v.v, src + (size_t)i * 32, 32);
		if (!AR(is_canonical)(&v)) {
			AX(abc_fence)();
			return i;
		}
		if (w_std)
			AX(abc_store)((AT *)w_std[i], &v);
		if (!wm) /* the check alone (zka_abc_witness_mem with wm NULL) */
			continue;
		if ((v.v[1] | v.v[2] | v.v[3]) == 0 && v.v[0] <= 1)
			k = v.v[0]; /* 0 or 1 */
		if (std)
			m = v;
		else if (k == 2)
			AR(to_mont)(&m, &v);
		else if (k) /* 0 and 1: no product */
			AR(one)(&m);
		else
			AR(zero)(&m);
		AX(abc_store)(&out[i], &m);
		word |= k << ((i & 31) * 2);
		if (cls && ((i & 31) == 31 || i + 1 == i1)) {
			cls[i >> 5] = word;
			word = 0;
		}
	}
	AX(abc_fence)();
	return UINT32_MAX;
}

/* Constraints [r0, r1) of cs: <C_i, wm> == a_i b_i. With std (a, b and wm in standard form)
 * the product of two standard-form values comes out times R^-1, so the sum is compared times
 * R^-1 too (a product with the standard form of 1). Returns the first failing one or
 * UINT32_MAX. */
uint32_t AX(abc_check_rows)(const zka_r1cs *cs, const uint64_t (*a)[4], const uint64_t (*b)[4],
			    const uint64_t (*wm)[4], int std, uint32_t r0, uint32_t r1)
{
	const AT *w = (const AT *)wm, *A = (const AT *)a, *B = (const AT *)b;
	const zka_r1cs_matrix *mc = &cs->m[2];
	AT one_std;
	AR(zero)(&one_std);
	one_std.v[0] = 1;
	for (uint32_t i = r0; i < r1; i++) {
		AT s, v, p;
		AR(zero)(&s);
		for (uint64_t t = mc->start[i]; t < mc->start[i + 1]; t++) {
			memcpy(v.v, mc->value[t], 32);
			AX(abc_madd)(&s, &v, &w[mc->signal[t]]);
		}
		AX(abc_mul)(&p, &A[i], &B[i]);
		if (std)
			AR(mul)(&s, &s, &one_std);
		if (!AR(eq)(&s, &p))
			return i;
	}
	return UINT32_MAX;
}

/* A slot's a_i, b_i (standard form) for i in [i0, i1) into out's a, b and c = a .* b, all
 * Montgomery (out: 3 n entries, n = the vectors' length; out may be a itself when b = a + n:
 * each entry is read before it is written). */
void AX(abc_slot)(const uint64_t (*a)[4], const uint64_t (*b)[4], uint64_t (*out)[4], size_t n,
		  uint32_t i0, uint32_t i1)
{
	const AT *X = (const AT *)a, *Y = (const AT *)b;
	for (uint32_t i = i0; i < i1; i++) {
		AT x, y, p;
		AR(to_mont)(&x, &X[i]);
		AR(to_mont)(&y, &Y[i]);
		AX(abc_mul)(&p, &x, &y);
		AX(abc_store)((AT *)out[i], &x);
		AX(abc_store)((AT *)out[n + i], &y);
		AX(abc_store)((AT *)out[2 * n + i], &p);
	}
	AX(abc_fence)();
}

/* out_i = val_i in standard form for i in [i0, i1). */
void AX(abc_std)(const uint64_t (*val)[4], uint64_t (*out)[4], uint32_t i0, uint32_t i1)
{
	const AT *X = (const AT *)val;
	for (uint32_t i = i0; i < i1; i++)
		AR(from_mont)((AT *)out[i], &X[i]);
}

/* c_i = a_i b_i for i in [i0, i1) (c written once, non-temporal). */
void AX(abc_prod)(const uint64_t (*a)[4], const uint64_t (*b)[4], uint64_t (*c)[4], uint32_t i0,
		  uint32_t i1)
{
	const AT *A = (const AT *)a, *B = (const AT *)b;
	for (uint32_t i = i0; i < i1; i++) {
		AT p;
		AX(abc_mul)(&p, &A[i], &B[i]);
		AX(abc_store)((AT *)c[i], &p);
	}
	AX(abc_fence)();
}

#undef AR
#undef AX
#undef AT
#undef ZKA_ABC_GCAP
