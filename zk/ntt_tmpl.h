/* ntt_tmpl.h - number-theoretic transforms over Fr, natural order in and out, multi-threaded.
 *
 * Include after curve_inst.h with CURVE and CC defined. Uses the ffjavascript roots of unity:
 * the root of order 2^k is ROOT^(2^(S-k)) with ROOT = 5^t (see gen-consts.py), because
 * snarkjs's proving keys bake in exactly those roots (another choice gives rejected proofs).
 *
 *   CURVE_ntt_root(w, k)            w = the primitive 2^k-th root of unity
 *   CURVE_ntt(a, k, inverse, thr)   a[i] <- sum_j a[j] w^(ij) (inverse: w^-1 and a 1/n factor)
 *   CURVE_ntt_shift(a, n, g, thr)   a[j] <- a[j] * g^j
 */
#include "zk/par.h"
#include "zk/tmpl.h"

#include <stdlib.h>

#define R(n) ZKA_CAT2(CURVE, fr_##n)
#define N(n) ZKA_CAT2(CURVE, ntt_##n)
#define RT R(t)

/* w = primitive 2^k-th root of unity (k <= S) */
static inline void N(root)(RT *w, int k)
{
	memcpy(w->v, ZKA_CAT2(CC, FR_ROOT), sizeof w->v);
	for (int i = k; i < ZKA_CAT2(CC, FR_S); i++)
		R(sqr)(w, w);
}

struct N(pass) {
	RT *a;
	const RT *tw;
	size_t half, step;
	const RT *g;
};

static void N(bitrev_fn)(void *ctx, size_t begin, size_t end, int tid)
{
	(void)tid;
	struct N(pass) *p = ctx;
	int k = (int)p->step;
	for (size_t i = begin; i < end; i++) {
		size_t j = 0;
		for (int b = 0; b < k; b++)
			j |= ((i >> b) & 1) << (k - 1 - b);
		if (i < j) {
			RT t = p->a[i];
			p->a[i] = p->a[j];
			p->a[j] = t;
		}
	}
}

static void N(stage_fn)(void *ctx, size_t begin, size_t end, int tid)
{
	(void)tid;
	struct N(pass) *p = ctx;
	for (size_t k = begin; k < end; k++) {
		size_t blk = k / p->half, j = k % p->half;
		size_t i0 = blk * 2 * p->half + j, i1 = i0 + p->half;
		RT v;
		R(mul)(&v, &p->a[i1], &p->tw[j * p->step]);
		R(sub)(&p->a[i1], &p->a[i0], &v);
		R(add)(&p->a[i0], &p->a[i0], &v);
	}
}

/* a[j] <- a[j] * g^j over [begin, end) (g^begin computed by exponentiation) */
static void N(shift_fn)(void *ctx, size_t begin, size_t end, int tid)
{
	(void)tid;
	struct N(pass) *p = ctx;
	uint64_t e[1] = {begin};
	RT acc;
	R(pow)(&acc, p->g, e, 1);
	for (size_t j = begin; j < end; j++) {
		R(mul)(&p->a[j], &p->a[j], &acc);
		R(mul)(&acc, &acc, p->g);
	}
}

static inline void N(shift)(RT *a, size_t n, const RT *g, int threads)
{
	struct N(pass) p = {.a = a, .g = g};
	zka_par_for(n < 4096 ? 1 : threads, n, N(shift_fn), &p);
}

/* Transforms a (2^k entries) in place; returns 0 or -ENOMEM. */
static inline int N(ntt)(RT *a, int k, int inverse, int threads)
{
	size_t n = (size_t)1 << k;
	if (k == 0)
		return 0;
	RT *tw = malloc(n / 2 * sizeof *tw);
	if (!tw)
		return -12; /* -ENOMEM */
	RT w;
	N(root)(&w, k);
	if (inverse)
		R(inv)(&w, &w);
	struct N(pass) p = {.a = a, .tw = tw, .g = &w};
	/* twiddles w^j, j < n/2: the shift body applied to a vector of ones */
	for (size_t j = 0; j < n / 2; j++)
		R(one)(&tw[j]);
	p.a = tw;
	zka_par_for(n < 8192 ? 1 : threads, n / 2, N(shift_fn), &p);
	p.a = a;
	p.step = (size_t)k;
	int thr = n < 4096 ? 1 : threads;
	zka_par_for(thr, n, N(bitrev_fn), &p);
	for (size_t half = 1; half < n; half <<= 1) {
		p.half = half;
		p.step = n / (2 * half);
		zka_par_for(thr, n / 2, N(stage_fn), &p);
	}
	if (inverse) {
		RT ninv;
		R(from_u64)(&ninv, (uint64_t)n);
		R(inv)(&ninv, &ninv);
		for (size_t j = 0; j < n; j++)
			R(mul)(&a[j], &a[j], &ninv);
	}
	free(tw);
	return 0;
}

#undef RT
#undef R
#undef N
