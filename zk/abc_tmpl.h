/* abc_tmpl.h - the per-curve inner loops of zk/abc.c (see abc.h): included once per curve by
 * curve_bn254.c and curve_bls12_381.c with CURVE defined; abc.c dispatches to them. Each
 * function handles one range of rows or values; the caller divides the work. */
#include "zk/abc.h"
#include "zk/tmpl.h"

#include <string.h>

#define AR(n) ZKA_CAT2(CURVE, fr_##n)
#define AX(n) ZKA_CAT2(zka_, ZKA_CAT2(CURVE, n))
#define AT AR(t)

/* How many rows ahead the row loop prefetches the witness values it will read: one row's
 * terms hit random lines of wm (the witness is far larger than the caches at 2^20+). */
#define ZKA_ABC_AHEAD 8

/* Rows [r0, r1): a_i = <A_i, wm>, b_i = <B_i, wm>, c_i = a_i b_i. */
void AX(abc_rows)(const zka_abc *m, const uint64_t (*wm)[4], uint64_t (*a)[4], uint64_t (*b)[4],
		  uint64_t (*c)[4], uint32_t r0, uint32_t r1)
{
	const AT *w = (const AT *)wm, *val = (const AT *)m->val;
	AT *A = (AT *)a, *B = (AT *)b, *C = (AT *)c;
	for (uint32_t i = r0; i < r1; i++) {
		if (i + ZKA_ABC_AHEAD < r1)
			for (int k = 0; k < 2; k++) {
				uint32_t t0 = m->start[k][i + ZKA_ABC_AHEAD];
				uint32_t t1 = m->start[k][i + ZKA_ABC_AHEAD + 1];
				for (uint32_t t = t0; t < t1; t++)
					__builtin_prefetch(&w[m->term[k][t][0]]);
			}
		AT s[2];
		for (int k = 0; k < 2; k++) {
			AR(zero)(&s[k]);
			const uint32_t(*tm)[2] = m->term[k];
			for (uint32_t t = m->start[k][i], e = m->start[k][i + 1]; t < e; t++) {
				const AT *x = &w[tm[t][0]];
				uint32_t vi = tm[t][1];
				if (vi == 0) {
					AR(add)(&s[k], &s[k], x);
				} else if (vi == 1) {
					AR(sub)(&s[k], &s[k], x);
				} else {
					AT p;
					AR(mul)(&p, &val[vi], x);
					AR(add)(&s[k], &s[k], &p);
				}
			}
		}
		A[i] = s[0];
		B[i] = s[1];
		AR(mul)(&C[i], &s[0], &s[1]);
	}
}

/* Values [i0, i1) of a witness: src (standard form, possibly unaligned: a .wtns payload) is
 * copied to w_std (when not NULL) and converted into wm. Returns the first index whose value is
 * not below r, or UINT32_MAX when all are. */
uint32_t AX(abc_wit)(const uint8_t *src, uint64_t (*w_std)[4], uint64_t (*wm)[4], uint32_t i0,
		     uint32_t i1)
{
	AT *out = (AT *)wm;
	for (uint32_t i = i0; i < i1; i++) {
		AT v;
		memcpy(v.v, src + (size_t)i * 32, 32);
		if (!AR(is_canonical)(&v))
			return i;
		if (w_std)
			memcpy(w_std[i], v.v, 32);
		AR(to_mont)(&out[i], &v);
	}
	return UINT32_MAX;
}

/* Constraints [r0, r1) of cs: <C_i, wm> == c_i. Returns the first failing one or UINT32_MAX. */
uint32_t AX(abc_check_rows)(const zka_r1cs *cs, const uint64_t (*c)[4], const uint64_t (*wm)[4],
			    uint32_t r0, uint32_t r1)
{
	const AT *w = (const AT *)wm, *C = (const AT *)c;
	const zka_r1cs_matrix *mc = &cs->m[2];
	for (uint32_t i = r0; i < r1; i++) {
		AT s, v, x;
		AR(zero)(&s);
		for (uint64_t t = mc->start[i]; t < mc->start[i + 1]; t++) {
			memcpy(v.v, mc->value[t], 32);
			AR(mul)(&x, &v, &w[mc->signal[t]]);
			AR(add)(&s, &s, &x);
		}
		if (!AR(eq)(&s, &C[i]))
			return i;
	}
	return UINT32_MAX;
}

#undef AR
#undef AX
#undef AT
#undef ZKA_ABC_AHEAD
