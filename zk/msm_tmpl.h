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

#ifndef ZKA_MSM_CONSTS
#define ZKA_MSM_CONSTS
/* Window sizes from this one up use batch-affine buckets; below, XYZZ buckets (with few
 * buckets a batch fills with conflicts). */
#define ZKA_MSM_AFFINE_MIN_C 8
/* Largest batch of independent affine additions sharing one inversion. */
#ifndef ZKA_MSM_BATCH
#define ZKA_MSM_BATCH 256
#endif

/* The scalar decomposition of an MSM, shareable between MSMs (any group) with the same
 * scalars: indices of the scalars > 1 and their signed digits. */
struct zka_msm_digits {
	uint32_t *idx;       /* indices of the scalars > 1 */
	int16_t *dig;        /* signed digits, dig[w * nidx + j] in [-2^(c-1), 2^(c-1)] */
	size_t nidx;
	int c, nwin;
};
#endif

/* One prepared MSM: its tasks are nwin windows x nsplit point ranges, then nones ranges of the
 * scalar-one pass; every task writes only its own slot of part / ones, so any thread may run
 * any task, in any order (see msm_run_task). */
struct M(msm_ctx) {
	const M(aff) *p;
	const uint64_t (*k)[4];
	const uint32_t *idx;
	const int16_t *dig;
	size_t nidx, n;
	int c, nwin, nsplit;
	int nones;
	int own;             /* idx and dig are this plan's (else borrowed) */
	struct zka_msm_digits d;
	M(jac) *part;        /* per window task: its share of its window's sum */
	M(jac) *ones;        /* per ones task: the sum of its points with scalar 1 */
};

/* Returns the c-bit digit of k starting at bit `bit` (0 past bit 255). */
static inline uint32_t M(digit)(const uint64_t *k, int bit, int c)
{
	if (bit >= 256)
		return 0;
	int limb = bit / 64, off = bit % 64;
	uint64_t v = k[limb] >> off;
	if (off + c > 64 && limb < 3)
		v |= k[limb + 1] << (64 - off);
	return (uint32_t)(v & ((1ull << c) - 1));
}

/* out = sum_b (b+1) bk[b] over nb XYZZ buckets (running sums, 2 nb additions in XYZZ:
 * 12M+2S each instead of the 11M+5S of Jacobian) */
static inline void M(bucket_reduce)(M(jac) *out, const M(xyzz) *bk, size_t nb)
{
	M(xyzz) run, sum;
	M(xyzz_set_inf)(&run);
	M(xyzz_set_inf)(&sum);
	for (size_t b = nb; b-- > 0;) {
		M(xyzz_add)(&run, &run, &bk[b]);
		M(xyzz_add)(&sum, &sum, &run);
	}
	M(xyzz_to_jac)(out, &sum);
}

/* Per-thread workspace of the bucket phase. */
struct M(msm_ws) {
	M(xyzz) *bj;         /* XYZZ buckets (small c), overflow buckets (large c) */
	M(aff) *ba;          /* affine buckets, zero = empty (large c) */
	uint32_t *busy;      /* batch stamp per affine bucket */
	M(aff) **bacc;       /* the batch: bucket pointers */
	M(aff) *bq;          /* the batch: points to add */
	void *scratch;       /* 2 ZKA_MSM_BATCH field elements */
};

/* Adds the points idx[jb..je) with window-w digits into the buckets and returns their
 * weighted sum in *out (XYZZ buckets, mixed additions). */
static void M(msm_task_jac)(struct M(msm_ctx) *x, struct M(msm_ws) *ws, int w, size_t jb,
			    size_t je, M(jac) *out)
{
	size_t nb = (size_t)1 << (x->c - 1);
	for (size_t b = 0; b < nb; b++)
		M(xyzz_set_inf)(&ws->bj[b]);
	const int16_t *dg = x->dig + (size_t)w * x->nidx;
	for (size_t j = jb; j < je; j++) {
		int d = dg[j];
		if (d == 0)
			continue;
		const M(aff) *pt = &x->p[x->idx[j]];
		if (d > 0) {
			M(xyzz_add_aff)(&ws->bj[d - 1], &ws->bj[d - 1], pt);
		} else {
			M(aff) q;
			M(aff_neg)(&q, pt);
			M(xyzz_add_aff)(&ws->bj[-d - 1], &ws->bj[-d - 1], &q);
		}
	}
	M(bucket_reduce)(out, ws->bj, nb);
}

/* As msm_task_jac, with affine buckets filled by batch-affine additions. A point whose
 * bucket is already in the current batch goes into that bucket's XYZZ overflow instead
 * (mixed addition), so that a window with few distinct digits (the top one) cannot degrade
 * into tiny batches. */
static void M(msm_task_aff)(struct M(msm_ctx) *x, struct M(msm_ws) *ws, int w, size_t jb,
			    size_t je, M(jac) *out)
{
	size_t nb = (size_t)1 << (x->c - 1);
	memset(ws->ba, 0, nb * sizeof *ws->ba);
	memset(ws->busy, 0, nb * sizeof *ws->busy);
	for (size_t b = 0; b < nb; b++)
		M(xyzz_set_inf)(&ws->bj[b]);
	const int16_t *dg = x->dig + (size_t)w * x->nidx;
	uint32_t stamp = 1;
	size_t m = 0;
	for (size_t j = jb; j < je; j++) {
		int d = dg[j];
		if (d == 0)
			continue;
		size_t b = (size_t)(d > 0 ? d : -d) - 1;
		const M(aff) *pt = &x->p[x->idx[j]];
		if (ws->busy[b] == stamp) { /* conflict: XYZZ overflow */
			if (d > 0) {
				M(xyzz_add_aff)(&ws->bj[b], &ws->bj[b], pt);
			} else {
				M(aff) q;
				M(aff_neg)(&q, pt);
				M(xyzz_add_aff)(&ws->bj[b], &ws->bj[b], &q);
			}
			continue;
		}
		if (M(aff_is_inf)(pt))
			continue;
		if (M(aff_is_inf)(&ws->ba[b])) {
			if (d > 0)
				ws->ba[b] = *pt;
			else
				M(aff_neg)(&ws->ba[b], pt);
			continue;
		}
		ws->busy[b] = stamp;
		ws->bacc[m] = &ws->ba[b];
		if (d > 0)
			ws->bq[m] = *pt;
		else
			M(aff_neg)(&ws->bq[m], pt);
		if (++m == ZKA_MSM_BATCH) {
			M(batch_add_aff)(ws->bacc, ws->bq, m, ws->scratch);
			m = 0;
			stamp++;
		}
	}
	if (m)
		M(batch_add_aff)(ws->bacc, ws->bq, m, ws->scratch);
	/* running sums in XYZZ: run += B_b (affine part and overflow), sum += run */
	M(xyzz) run, sum;
	M(xyzz_set_inf)(&run);
	M(xyzz_set_inf)(&sum);
	for (size_t b = nb; b-- > 0;) {
		M(xyzz_add_aff)(&run, &run, &ws->ba[b]);
		M(xyzz_add)(&run, &run, &ws->bj[b]);
		M(xyzz_add)(&sum, &sum, &run);
	}
	M(xyzz_to_jac)(out, &sum);
}

/* Allocates a workspace for window tasks of up to cmax bits; returns 0 or -ENOMEM (then
 * msm_ws_free is still safe). */
static inline int M(msm_ws_alloc)(struct M(msm_ws) *ws, int cmax)
{
	memset(ws, 0, sizeof *ws);
	size_t nb = (size_t)1 << (cmax - 1);
	if (cmax >= ZKA_MSM_AFFINE_MIN_C) {
		ws->ba = malloc(nb * sizeof *ws->ba);
		ws->busy = malloc(nb * sizeof *ws->busy);
		ws->bacc = malloc(ZKA_MSM_BATCH * sizeof *ws->bacc);
		ws->bq = malloc(ZKA_MSM_BATCH * sizeof *ws->bq);
		ws->scratch = malloc(2 * ZKA_MSM_BATCH * sizeof(ws->bq->x));
		if (!ws->ba || !ws->busy || !ws->bacc || !ws->bq || !ws->scratch)
			return -12;
	}
	ws->bj = malloc(nb * sizeof *ws->bj);
	return ws->bj ? 0 : -12;
}

/* Frees a workspace from msm_ws_alloc. */
static inline void M(msm_ws_free)(struct M(msm_ws) *ws)
{
	free(ws->bj);
	free(ws->ba);
	free(ws->busy);
	free(ws->bacc);
	free(ws->bq);
	free(ws->scratch);
	memset(ws, 0, sizeof *ws);
}

/* Number of tasks of a prepared MSM. */
static inline int M(msm_ntask)(const struct M(msm_ctx) *x)
{
	return x->nwin * x->nsplit + x->nones;
}

/* Runs task t of x with a workspace of at least x->c bits (any thread, any order). */
static inline void M(msm_run_task)(struct M(msm_ctx) *x, struct M(msm_ws) *ws, int t)
{
	int nw = x->nwin * x->nsplit;
	if (t >= nw) { /* scalars equal to one: range t - nw of nones */
		int o = t - nw;
		size_t b1 = x->n * (size_t)o / (size_t)x->nones;
		size_t e1 = x->n * (size_t)(o + 1) / (size_t)x->nones;
		M(set_inf)(&x->ones[o]);
		for (size_t i = b1; i < e1; i++) {
			const uint64_t *k = x->k[i];
			if (k[0] == 1 && k[1] == 0 && k[2] == 0 && k[3] == 0)
				M(add_aff)(&x->ones[o], &x->ones[o], &x->p[i]);
		}
		return;
	}
	size_t chunk = (x->nidx + (size_t)x->nsplit - 1) / (size_t)x->nsplit;
	int w = t / x->nsplit, s = t % x->nsplit;
	size_t jb = (size_t)s * chunk, je = jb + chunk;
	if (jb > x->nidx)
		jb = x->nidx;
	if (je > x->nidx)
		je = x->nidx;
	if (x->c >= ZKA_MSM_AFFINE_MIN_C)
		M(msm_task_aff)(x, ws, w, jb, je, &x->part[t]);
	else
		M(msm_task_jac)(x, ws, w, jb, je, &x->part[t]);
}

struct M(msm_runner) {
	struct M(msm_ctx) *x;
	_Atomic int next;
	_Atomic int err;
};

/* par_for body of msm: every thread takes tasks from the shared counter. */
static void M(msm_fn)(void *vctx, size_t begin, size_t end, int tid)
{
	struct M(msm_runner) *r = vctx;
	(void)begin;
	(void)end;
	(void)tid;
	struct M(msm_ws) ws;
	if (M(msm_ws_alloc)(&ws, r->x->c)) {
		r->err = -12;
	} else {
		int ntask = M(msm_ntask)(r->x);
		for (int t; (t = r->next++) < ntask;)
			M(msm_run_task)(r->x, &ws, t);
	}
	M(msm_ws_free)(&ws);
}

/* Window size for n non-trivial scalars: minimises windows x (n bucket additions + 2^(c-1)
 * running-sum steps), in field multiplications: a batch-affine addition ~7.5 (6 + the shared
 * inversion) plus 2.5 more for the share that conflicts and takes the 10-multiplication mixed
 * XYZZ path (about batch / buckets), a running-sum step 24 (mixed + full XYZZ addition).
 * Measured (callgrind, bn254 G1, 1 thread, MSM only): n = 6000, c = 9/10/11/12 ->
 * 696/583/572/663 M instructions (the old unsigned Jacobian Pippenger, c = 9: 759 M);
 * n = 8192, c = 10/11/12 -> 758/720/800 M (batch 512 or 1024: no better). With XYZZ and
 * these weights (was 11 / 3.5 / 27 for Jacobian), the whole 8272-constraint circom Poseidon
 * proof (bn254, 1 thread): 4.109 -> 3.967 G instructions. */
static inline int M(msm_window)(size_t n)
{
	int best = 2;
	double bestc = -1;
	for (int c = 2; c <= 15; c++) {
		double nwin = (double)((257 + c - 1) / c);
		double nb = (double)((size_t)1 << (c - 1));
		double per = 10.0;
		if (c >= ZKA_MSM_AFFINE_MIN_C) {
			double f = ZKA_MSM_BATCH / nb;
			per = 7.5 + 2.5 * (f < 1.0 ? f : 1.0);
		}
		double cost = nwin * ((double)n * per + 24.0 * nb);
		if (bestc < 0 || cost < bestc) {
			bestc = cost;
			best = c;
		}
	}
	return best;
}

/* Frees what msm_plan allocated (safe after a failed msm_plan). */
static inline void M(msm_plan_free)(struct M(msm_ctx) *x)
{
	if (x->own) {
		free(x->d.idx);
		free(x->d.dig);
	}
	free(x->part);
	free(x->ones);
	memset(x, 0, sizeof *x);
}

/* Prepares sum k_i p_i over n points (plain scalars, any 256-bit value) for `threads` workers:
 * scalars 0 are skipped and 1 go to the ones tasks; the rest get signed c-bit digits (2^(c-1)
 * buckets per window). share, when not NULL, is the decomposition of the same k and n from
 * another plan (any group; it must outlive this plan). Returns 0 or -ENOMEM. */
static inline int M(msm_plan)(struct M(msm_ctx) *x, const M(aff) *p, const uint64_t (*k)[4],
			      size_t n, int threads, const struct zka_msm_digits *share)
{
	memset(x, 0, sizeof *x);
	x->p = p;
	x->k = k;
	x->n = n;
	if (threads < 1)
		threads = 1;
	if (share) {
		x->d = *share;
	} else {
		x->own = 1;
		x->d.idx = malloc((n ? n : 1) * sizeof *x->d.idx);
		if (!x->d.idx)
			return -12;
		size_t nidx = 0;
		for (size_t i = 0; i < n; i++) {
			const uint64_t *s = k[i];
			if ((s[0] | s[1] | s[2] | s[3]) == 0 ||
			    (s[0] == 1 && (s[1] | s[2] | s[3]) == 0))
				continue;
			x->d.idx[nidx++] = (uint32_t)i;
		}
		int c = M(msm_window)(nidx);
		int nwin = nidx ? (257 + c - 1) / c : 0; /* nwin c >= 257: the last carry */
		x->d.nidx = nidx;
		x->d.c = c;
		x->d.nwin = nwin;
		x->d.dig = malloc(((size_t)nwin * nidx + 1) * sizeof *x->d.dig);
		if (!x->d.dig) {
			M(msm_plan_free)(x);
			return -12;
		}
		/* signed digits: a digit above 2^(c-1) becomes digit - 2^c and carries 1 */
		int16_t *dig = x->d.dig;
		for (size_t j = 0; j < nidx; j++) {
			uint32_t carry = 0;
			for (int w = 0; w < nwin; w++) {
				uint32_t v = M(digit)(k[x->d.idx[j]], w * c, c) + carry;
				carry = v > (1u << (c - 1));
				dig[(size_t)w * nidx + j] =
				    (int16_t)((int32_t)v - (int32_t)(carry << c));
			}
		}
	}
	x->idx = x->d.idx;
	x->dig = x->d.dig;
	x->nidx = x->d.nidx;
	x->c = x->d.c;
	x->nwin = x->d.nwin;
	/* split the points too when windows alone would leave threads idle */
	x->nsplit = 1;
	while (x->nwin * x->nsplit < 2 * threads && x->nidx / (size_t)(x->nsplit * 2) >= 256)
		x->nsplit *= 2;
	x->nones = n ? threads : 0;
	x->part = malloc(((size_t)x->nwin * (size_t)x->nsplit + 1) * sizeof *x->part);
	x->ones = malloc(((size_t)x->nones + 1) * sizeof *x->ones);
	if (!x->part || !x->ones) {
		M(msm_plan_free)(x);
		return -12;
	}
	return 0;
}

/* out = the MSM of x once all its tasks have run (Horner over the windows, plus the ones). */
static inline void M(msm_finish)(const struct M(msm_ctx) *x, M(jac) *out)
{
	M(jac) acc;
	M(set_inf)(&acc);
	for (int w = x->nwin - 1; w >= 0; w--) {
		for (int d = 0; d < x->c; d++)
			M(dbl)(&acc, &acc);
		for (int s = 0; s < x->nsplit; s++)
			M(add)(&acc, &acc, &x->part[w * x->nsplit + s]);
	}
	for (int t = 0; t < x->nones; t++)
		M(add)(&acc, &acc, &x->ones[t]);
	*out = acc;
}

/* out = sum k_i p_i over n points (plain scalars, any 256-bit value); returns 0 or -ENOMEM.
 * Scalars 0 are skipped and 1 cost one mixed addition; the rest go through Pippenger with
 * signed c-bit digits (2^(c-1) buckets per window), every thread taking (window, point range)
 * tasks from a shared counter. */
static inline int M(msm)(M(jac) *out, const M(aff) *p, const uint64_t (*k)[4], size_t n,
			 int threads)
{
	M(set_inf)(out);
	if (threads < 1)
		threads = 1;
	struct M(msm_ctx) x;
	int err = M(msm_plan)(&x, p, k, n, threads, NULL);
	if (err)
		return err;
	struct M(msm_runner) r = {.x = &x};
	zka_par_for(threads, (size_t)threads, M(msm_fn), &r);
	err = r.err;
	if (err == 0)
		M(msm_finish)(&x, out);
	M(msm_plan_free)(&x);
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
