/* ntt_tmpl.h - number-theoretic transforms over Fr, natural order in and out, multi-threaded.
 *
 * Include after curve_inst.h with CURVE and CC defined. Uses the ffjavascript roots of unity:
 * the root of order 2^k is ROOT^(2^(S-k)) with ROOT = 5^t (see gen-consts.py), because
 * snarkjs's proving keys bake in exactly those roots (another choice gives rejected proofs).
 *
 *   CURVE_ntt_root(w, k)            w = the primitive 2^k-th root of unity
 *   CURVE_ntt(a, k, inverse, thr)   a[i] <- sum_j a[j] w^(ij) (inverse: w^-1 and a 1/n factor)
 *   CURVE_ntt_shift(a, n, g, thr)   a[j] <- a[j] * g^j
 *   CURVE_ntt_twiddles / CURVE_ntt_ntt_tw / CURVE_ntt_shift_scaled: the same with a reusable
 *   twiddle table and the inverse's 1/n folded into a following shift (the prover's H)
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
		/* twiddle w^0 = 1: no product (every butterfly of the first stage, half of the
		 * second's, ...: about 2 of the log n stages' products; the branch follows j's
		 * regular pattern) */
		if (j == 0)
			v = p->a[i1];
		else
			R(mul)(&v, &p->a[i1], &p->tw[j * p->step]);
		R(sub)(&p->a[i1], &p->a[i0], &v);
		R(add)(&p->a[i0], &p->a[i0], &v);
	}
}

/* Blocks [begin, end) of p->half entries each (a power of two): every butterfly stage that
 * stays inside one block, block after block (cache-local, no fork per stage). p->step is the
 * twiddle stride of the block's last stage (n / block size). */
static void N(local_fn)(void *ctx, size_t begin, size_t end, int tid)
{
	(void)tid;
	struct N(pass) *p = ctx;
	size_t bs = p->half;
	for (size_t b = begin; b < end; b++) {
		struct N(pass) q = {.a = p->a + b * bs, .tw = p->tw};
		for (size_t half = 1; half < bs; half <<= 1) {
			q.half = half;
			q.step = p->step * (bs / (2 * half));
			N(stage_fn)(&q, 0, bs / 2, 0);
		}
	}
}

/* a[j] <- a[j] * c g^j over [begin, end) (c g^begin computed by exponentiation; c = 1 when
 * p->tw is NULL) */
static void N(shift_fn)(void *ctx, size_t begin, size_t end, int tid)
{
	(void)tid;
	struct N(pass) *p = ctx;
	uint64_t e[1] = {begin};
	RT acc;
	R(pow)(&acc, p->g, e, 1);
	if (p->tw)
		R(mul)(&acc, &acc, p->tw);
	for (size_t j = begin; j < end; j++) {
		R(mul)(&p->a[j], &p->a[j], &acc);
		R(mul)(&acc, &acc, p->g);
	}
}

/* a[j] <- a[j] * g^j for j < n */
static inline void N(shift)(RT *a, size_t n, const RT *g, int threads)
{
	struct N(pass) p = {.a = a, .g = g};
	zka_par_for(n < 4096 ? 1 : threads, n, N(shift_fn), &p);
}

/* a[j] <- a[j] * c * g^j for j < n (a coset shift fused with a constant scaling) */
static inline void N(shift_scaled)(RT *a, size_t n, const RT *g, const RT *c, int threads)
{
	struct N(pass) p = {.a = a, .g = g, .tw = c};
	zka_par_for(n < 4096 ? 1 : threads, n, N(shift_fn), &p);
}

/* tw[j] = w^j for j < 2^(k-1), w the primitive 2^k-th root of unity (its inverse when
 * inverse): the twiddle table of N(ntt_tw), reusable across transforms of one size. */
static inline void N(twiddles)(RT *tw, int k, int inverse)
{
	size_t n = (size_t)1 << k;
	RT w;
	N(root)(&w, k);
	if (inverse)
		R(inv)(&w, &w);
	R(one)(&tw[0]);
	for (size_t j = 1; j < n / 2; j++)
		R(mul)(&tw[j], &tw[j - 1], &w);
}

/* a[i] <- sum_j a[j] w^(ij) in place (2^k entries, k >= 1) with the table tw of
 * N(twiddles)(tw, k, inverse): with inverse the 1/n factor is NOT applied. */
static inline void N(ntt_tw)(RT *a, int k, const RT *tw, int threads)
{
	size_t n = (size_t)1 << k;
	struct N(pass) p = {.a = a, .tw = tw};
	/* bit reversal: serial (cheap; a fork costs more on a loaded machine) */
	p.step = (size_t)k;
	N(bitrev_fn)(&p, 0, n, 0);
	int thr = n < 4096 ? 1 : threads;
	/* stages inside blocks of n / nblk entries in one fork, nblk >= 2 * threads, then the
	 * log2(nblk) wide stages one fork each (was: one fork per stage) */
	size_t nblk = 1;
	if (thr > 1)
		while (nblk < 2 * (size_t)thr && nblk < n / 2)
			nblk <<= 1;
	p.half = n / nblk;
	p.step = nblk;
	zka_par_for(thr, nblk, N(local_fn), &p);
	for (size_t half = n / nblk; half < n; half <<= 1) {
		p.half = half;
		p.step = n / (2 * half);
		zka_par_for(thr, n / 2, N(stage_fn), &p);
	}
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
	N(twiddles)(tw, k, inverse);
	N(ntt_tw)(a, k, tw, threads);
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
