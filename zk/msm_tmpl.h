/* msm_tmpl.h - multi-scalar multiplication sum_i k_i P_i by Pippenger's bucket method,
 * multi-threaded across windows. Generic over the group.
 *
 * Include with MSM_G defined as a group prefix from ec_tmpl.h (e.g. bn254_g1); generates
 *   int MSM_G_msm(MSM_G_jac *out, const MSM_G_aff *p, const uint64_t (*k)[4], size_t n, int thr)
 * Scalars are plain (standard-form) 256-bit little-endian integers. Scalars 0 and 1 (most of a
 * circom witness) skip the windows: zeros cost nothing, ones one mixed addition each.
 */
#include "zk/par.h"
#include "zk/tmpl.h"

#include <stdlib.h>

#define M(n) ZKA_CAT2(MSM_G, n)

struct M(msm_ctx) {
	const M(aff) *p;
	const uint64_t (*k)[4];
	const uint32_t *idx; /* indices of the scalars > 1 */
	size_t nidx, n;
	int c, nwin;
	M(jac) *win;  /* nwin window sums */
	M(jac) *ones; /* per-thread sums of points with scalar 1 */
	int nthreads;
	int err;
};

/* Returns the c-bit digit of k starting at bit `bit`. */
static inline uint32_t M(digit)(const uint64_t *k, int bit, int c)
{
	int limb = bit / 64, off = bit % 64;
	uint64_t v = k[limb] >> off;
	if (off + c > 64 && limb < 3)
		v |= k[limb + 1] << (64 - off);
	return (uint32_t)(v & ((1ull << c) - 1));
}

static void M(msm_fn)(void *vctx, size_t begin, size_t end, int tid)
{
	struct M(msm_ctx) *x = vctx;
	(void)begin;
	(void)end;
	/* scalars equal to one: this thread's share */
	size_t b1 = x->n * (size_t)tid / (size_t)x->nthreads;
	size_t e1 = x->n * (size_t)(tid + 1) / (size_t)x->nthreads;
	M(set_inf)(&x->ones[tid]);
	for (size_t i = b1; i < e1; i++) {
		const uint64_t *k = x->k[i];
		if (k[0] == 1 && k[1] == 0 && k[2] == 0 && k[3] == 0)
			M(add_aff)(&x->ones[tid], &x->ones[tid], &x->p[i]);
	}
	size_t nb = ((size_t)1 << x->c) - 1;
	M(jac) *bk = malloc(nb * sizeof *bk);
	if (!bk) {
		x->err = -12;
		return;
	}
	for (int w = tid; w < x->nwin; w += x->nthreads) {
		for (size_t b = 0; b < nb; b++)
			M(set_inf)(&bk[b]);
		for (size_t j = 0; j < x->nidx; j++) {
			uint32_t i = x->idx[j];
			uint32_t d = M(digit)(x->k[i], w * x->c, x->c);
			if (d)
				M(add_aff)(&bk[d - 1], &bk[d - 1], &x->p[i]);
		}
		M(jac) run, sum;
		M(set_inf)(&run);
		M(set_inf)(&sum);
		for (size_t b = nb; b-- > 0;) {
			M(add)(&run, &run, &bk[b]);
			M(add)(&sum, &sum, &run);
		}
		x->win[w] = sum;
	}
	free(bk);
}

/* out = sum k_i p_i over n points; returns 0 or -ENOMEM. */
static inline int M(msm)(M(jac) *out, const M(aff) *p, const uint64_t (*k)[4], size_t n,
			 int threads)
{
	M(set_inf)(out);
	uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
	if (!idx)
		return -12;
	size_t nidx = 0;
	for (size_t i = 0; i < n; i++) {
		const uint64_t *s = k[i];
		if ((s[0] | s[1] | s[2] | s[3]) == 0 || (s[0] == 1 && (s[1] | s[2] | s[3]) == 0))
			continue;
		idx[nidx++] = (uint32_t)i;
	}
	int lg = 0;
	while (((size_t)1 << lg) < nidx + 1)
		lg++;
	int lglg = 0;
	while ((1 << lglg) < lg)
		lglg++;
	/* c ~ log2(n) - log2(log2(n)): minimises n*256/c + 2^c*256/c additions */
	int c = lg - lglg;
	if (c < 2)
		c = 2;
	if (c > 16)
		c = 16;
	int nwin = (256 + c - 1) / c;
	if (threads < 1)
		threads = 1;
	struct M(msm_ctx) x = {.p = p, .k = k, .idx = idx, .nidx = nidx, .n = n, .c = c,
			       .nwin = nwin, .nthreads = threads};
	x.win = malloc((size_t)nwin * sizeof *x.win);
	x.ones = malloc((size_t)threads * sizeof *x.ones);
	if (!x.win || !x.ones) {
		free(idx);
		free(x.win);
		free(x.ones);
		return -12;
	}
	zka_par_for(threads, (size_t)threads, M(msm_fn), &x);
	if (x.err == 0) {
		M(jac) acc;
		M(set_inf)(&acc);
		for (int w = nwin - 1; w >= 0; w--) {
			for (int d = 0; d < c; d++)
				M(dbl)(&acc, &acc);
			M(add)(&acc, &acc, &x.win[w]);
		}
		for (int t = 0; t < threads; t++)
			M(add)(&acc, &acc, &x.ones[t]);
		*out = acc;
	}
	int err = x.err;
	free(idx);
	free(x.win);
	free(x.ones);
	return err;
}


/* ---- fixed-base batch multiplication: out[i] = k[i] * base (used by setup) ---- */

#define M_FB_C 8 /* window bits: 32 windows of 255 precomputed multiples each */

struct M(fb_ctx) {
	const M(aff) *table; /* 32 x 255: table[w*255 + d-1] = d 2^(8w) base */
	const uint64_t (*k)[4];
	M(aff) *out;
	int err;
};

static void M(fb_fn)(void *vctx, size_t begin, size_t end, int tid)
{
	(void)tid;
	struct M(fb_ctx) *x = vctx;
	size_t chunk = 1024;
	M(jac) *j = malloc(chunk * sizeof *j);
	void *scratch = malloc(chunk * 2 * sizeof(j->X));
	if (!j || !scratch) {
		x->err = -12;
		free(j);
		free(scratch);
		return;
	}
	for (size_t b = begin; b < end; b += chunk) {
		size_t m = end - b < chunk ? end - b : chunk;
		for (size_t i = 0; i < m; i++) {
			M(set_inf)(&j[i]);
			for (int w = 0; w < 256 / M_FB_C; w++) {
				uint32_t d = M(digit)(x->k[b + i], w * M_FB_C, M_FB_C);
				if (d)
					M(add_aff)(&j[i], &j[i], &x->table[(size_t)w * 255 + d - 1]);
			}
		}
		M(batch_to_aff)(&x->out[b], j, m, scratch);
	}
	free(j);
	free(scratch);
}

/* out[i] = k[i] * base for n standard-form scalars; returns 0 or -ENOMEM. */
static inline int M(fixed_base)(M(aff) *out, const M(aff) *base, const uint64_t (*k)[4], size_t n,
				int threads)
{
	size_t nt = (size_t)(256 / M_FB_C) * 255;
	M(jac) *tj = malloc(nt * sizeof *tj);
	M(aff) *ta = malloc(nt * sizeof *ta);
	void *scratch = malloc(nt * 2 * sizeof(tj->X));
	int err = -12;
	if (!tj || !ta || !scratch)
		goto out;
	M(jac) pw;
	M(from_aff)(&pw, base);
	for (int w = 0; w < 256 / M_FB_C; w++) {
		M(jac) acc;
		M(set_inf)(&acc);
		for (int d = 0; d < 255; d++) {
			M(add)(&acc, &acc, &pw);
			tj[(size_t)w * 255 + (size_t)d] = acc;
		}
		for (int d = 0; d < M_FB_C; d++)
			M(dbl)(&pw, &pw);
	}
	M(batch_to_aff)(ta, tj, nt, scratch);
	struct M(fb_ctx) x = {.table = ta, .k = k, .out = out};
	zka_par_for(n < 2048 ? 1 : threads, n, M(fb_fn), &x);
	err = x.err;
out:
	free(tj);
	free(ta);
	free(scratch);
	return err;
}
#undef M_FB_C

#undef M
#undef MSM_G
