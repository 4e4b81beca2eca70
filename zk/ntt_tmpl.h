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
 *   twiddle table and the inverse's 1/n folded into a following shift
 *   CURVE_ntt_coset_tw(a, k, tw_i, tw_f, g, c, thr): the prover's H (inverse, shift by c g^j,
 *   forward) with no bit reversal: the inverse decimates in frequency (natural in, bit-reversed
 *   out), the shift runs in bit-reversed order, the forward decimates in time
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

/* w = the primitive 2^k-th root of unity of the root family kind (ZKA_ROOT_* of groth16.h):
 * 0 is N(root); 1 is 7^t squared down, t = (r - 1) / 2^S (blstrs's ROOT_OF_UNITY, which
 * bellperson's domains use; 7 generates Fr^* for BLS12-381). */
static inline void N(root_kind)(RT *w, int k, int kind)
{
	if (!kind) {
		N(root)(w, k);
		return;
	}
	const int s = ZKA_CAT2(CC, FR_S);
	uint64_t t[4];
	memcpy(t, ZKA_CAT2(CC, FR_P), sizeof t);
	t[0] -= 1; /* r is odd: no borrow */
	for (int i = 0; i < 4; i++)
		t[i] = (t[i] >> s) | (i < 3 ? t[i + 1] << (64 - s) : 0);
	RT g;
	R(from_u64)(&g, 7);
	R(pow)(w, &g, t, 4);
	for (int i = k; i < s; i++)
		R(sqr)(w, w);
}

struct N(pass) {
	RT *a;
	const RT *tw;
	size_t half, step;
	const RT *g;
	int dif; /* the stages' butterflies decimate in frequency (else in time) */
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

/* One stage over butterflies [begin, end): (u, v) -> (u + v w, u - v w) in time, or
 * (u + v, (u - v) w) in frequency, w = w^(j step) for the butterfly's offset j in its block.
 * Twiddle w^0 = 1 takes no product (every butterfly of the first stage, half of the second's,
 * ...: about 2 of the log n stages' products; the branch follows j's regular pattern). */
static void N(stage_fn)(void *ctx, size_t begin, size_t end, int tid)
{
	(void)tid;
	struct N(pass) *p = ctx;
	/* half is a power of two: shifts and masks, not a division per butterfly */
	const int sh = __builtin_ctzll((unsigned long long)p->half);
	const size_t mask = p->half - 1;
	for (size_t k = begin; k < end; k++) {
		size_t j = k & mask;
		size_t i0 = ((k >> sh) << (sh + 1)) + j, i1 = i0 + p->half;
		RT v;
		if (p->dif) {
			R(sub)(&v, &p->a[i0], &p->a[i1]);
			R(add)(&p->a[i0], &p->a[i0], &p->a[i1]);
			if (j == 0)
				p->a[i1] = v;
			else
				R(mul)(&p->a[i1], &v, &p->tw[j * p->step]);
			continue;
		}
		if (j == 0)
			v = p->a[i1];
		else
			R(mul)(&v, &p->a[i1], &p->tw[j * p->step]);
		R(sub)(&p->a[i1], &p->a[i0], &v);
		R(add)(&p->a[i0], &p->a[i0], &v);
	}
}

/* Blocks [begin, end) of p->half entries each (a power of two): every butterfly stage that
 * stays inside one block (spans 1 up to half/2 in time, half/2 down to 1 in frequency), block
 * after block (cache-local, no fork per stage). p->step is the twiddle stride of the block's
 * widest stage (n / block size). */
static void N(local_fn)(void *ctx, size_t begin, size_t end, int tid)
{
	(void)tid;
	struct N(pass) *p = ctx;
	size_t bs = p->half;
	for (size_t b = begin; b < end; b++) {
		struct N(pass) q = {.a = p->a + b * bs, .tw = p->tw, .dif = p->dif};
		for (size_t s = 1; s < bs; s <<= 1) {
			q.half = p->dif ? bs / (2 * s) : s;
			q.step = p->step * (bs / (2 * q.half));
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

/* N(twiddles) for a given primitive 2^k-th root of unity w (another root family). */
static inline void N(twiddles_w)(RT *tw, int k, int inverse, const RT *wk)
{
	size_t n = (size_t)1 << k;
	RT w = *wk;
	if (inverse)
		R(inv)(&w, &w);
	R(one)(&tw[0]);
	for (size_t j = 1; j < n / 2; j++)
		R(mul)(&tw[j], &tw[j - 1], &w);
}

/* tw[j] = w^j for j < 2^(k-1), w the primitive 2^k-th root of unity (its inverse when
 * inverse): the twiddle table of N(ntt_tw), reusable across transforms of one size. */
static inline void N(twiddles)(RT *tw, int k, int inverse)
{
	RT w;
	N(root)(&w, k);
	N(twiddles_w)(tw, k, inverse, &w);
}

/* The blocks of a transform of 2^k entries on threads: nblk >= 2 * threads blocks (1 on one
 * thread or below 4096 entries), whose inner stages run block after block in one fork. */
static inline size_t N(blocks)(size_t n, int *threads)
{
	int thr = n < 4096 ? 1 : *threads;
	size_t nblk = 1;
	if (thr > 1)
		while (nblk < 2 * (size_t)thr && nblk < n / 2)
			nblk <<= 1;
	*threads = thr;
	return nblk;
}

/* Decimation in time on bit-reversed input: a (entry i at position bitrev(i)) -> its
 * transform in natural order, table tw as for N(ntt_tw). The stages inside blocks of n / nblk
 * entries in one fork, then the log2(nblk) wide stages one fork each. */
static inline void N(dit_tw)(RT *a, int k, const RT *tw, int threads)
{
	size_t n = (size_t)1 << k, nblk = N(blocks)(n, &threads);
	struct N(pass) p = {.a = a, .tw = tw, .half = n / nblk, .step = nblk};
	zka_par_for(threads, nblk, N(local_fn), &p);
	for (size_t half = n / nblk; half < n; half <<= 1) {
		p.half = half;
		p.step = n / (2 * half);
		zka_par_for(threads, n / 2, N(stage_fn), &p);
	}
}

/* a[i] <- sum_j a[j] w^(ij) in place (2^k entries, k >= 1) with the table tw of
 * N(twiddles)(tw, k, inverse): with inverse the 1/n factor is NOT applied. */
static inline void N(ntt_tw)(RT *a, int k, const RT *tw, int threads)
{
	size_t n = (size_t)1 << k;
	struct N(pass) p = {.a = a, .step = (size_t)k};
	/* bit reversal: serial (the prover's H avoids it: N(coset_tw)) */
	N(bitrev_fn)(&p, 0, n, 0);
	N(dit_tw)(a, k, tw, threads);
}

/* Decimation in frequency on natural input: a -> its transform with entry i at position
 * bitrev(i) (no bit reversal pass), table tw as for N(ntt_tw): the wide stages one fork
 * each, then the stages inside the blocks in one fork. */
static inline void N(dif_tw)(RT *a, int k, const RT *tw, int threads)
{
	size_t n = (size_t)1 << k, nblk = N(blocks)(n, &threads);
	struct N(pass) p = {.a = a, .tw = tw, .dif = 1};
	for (size_t half = n / 2; half >= n / nblk; half >>= 1) { /* none when nblk is 1 */
		p.half = half;
		p.step = n / (2 * half);
		zka_par_for(threads, n / 2, N(stage_fn), &p);
	}
	p.half = n / nblk;
	p.step = nblk;
	zka_par_for(threads, nblk, N(local_fn), &p);
}

/* The coset shift of coefficients held in bit-reversed order: a[q] <- a[q] c g^bitrev(q) over
 * positions [begin, end). With q = hi 2^lo + lo, bitrev(q) = bitrev_lo(lo) 2^hb +
 * bitrev_hb(hi) (hb = k - lo bits), so the factor is tl[lo] th[hi] (c folded into tl). */
struct N(brshift) {
	RT *a;
	const RT *tl, *th;
	int lo;
};

static void N(brshift_fn)(void *ctx, size_t begin, size_t end, int tid)
{
	(void)tid;
	struct N(brshift) *p = ctx;
	size_t mask = ((size_t)1 << p->lo) - 1;
	for (size_t q = begin; q < end; q++) {
		RT f;
		R(mul)(&f, &p->tl[q & mask], &p->th[q >> p->lo]);
		R(mul)(&p->a[q], &p->a[q], &f);
	}
}

/* t[x] = c base^bitrev_b(x) for x < 2^b (c NULL: 1) */
static void N(brpowers)(RT *t, int b, const RT *base, const RT *c)
{
	size_t m = (size_t)1 << b;
	RT pw;
	if (c)
		pw = *c;
	else
		R(one)(&pw);
	for (size_t x = 0; x < m; x++) {
		size_t r = 0;
		for (int i = 0; i < b; i++)
			r |= ((x >> i) & 1) << (b - 1 - i);
		t[r] = pw;
		R(mul)(&pw, &pw, base);
	}
}

/* The prover's H in place (2^k entries, k >= 1, tables tw_i and tw_f of N(twiddles) for the
 * inverse and the forward transform): an inverse transform without its 1/n, every coefficient
 * j times c g^j (c = 1/n, g the coset generator), a forward transform; the same result as
 * N(ntt_tw)(tw_i), N(shift_scaled), N(ntt_tw)(tw_f), without their two bit reversals (the
 * inverse decimates in frequency, its bit-reversed output is the forward's input). Returns 0
 * or -ENOMEM. */
static inline int N(coset_tw)(RT *a, int k, const RT *tw_i, const RT *tw_f, const RT *g,
			      const RT *c, int threads)
{
	size_t n = (size_t)1 << k;
	int lo = k / 2, hb = k - lo;
	RT *tl = malloc(((size_t)1 << lo) * sizeof *tl),
	   *th = malloc(((size_t)1 << hb) * sizeof *th);
	if (!tl || !th) {
		free(tl);
		free(th);
		return -12; /* -ENOMEM */
	}
	RT gh = *g; /* g^(2^hb) */
	for (int i = 0; i < hb; i++)
		R(sqr)(&gh, &gh);
	N(brpowers)(tl, lo, &gh, c);
	N(brpowers)(th, hb, g, NULL);
	N(dif_tw)(a, k, tw_i, threads);
	struct N(brshift) p = {.a = a, .tl = tl, .th = th, .lo = lo};
	zka_par_for(n < 4096 ? 1 : threads, n, N(brshift_fn), &p);
	N(dit_tw)(a, k, tw_f, threads);
	free(tl);
	free(th);
	return 0;
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
