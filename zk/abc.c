/* abc.c - see abc.h: building and checking the CSR matrices, the witness pass, and the block
 * scheduler that runs the per-curve loops of abc_tmpl.h on several threads. */
#include "zk/abc.h"
#include "zk/binfile.h"
#include "zk/fmt_err.h"
#include "zk/par.h"
#include "zk/wtns.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <xxhash.h>

#define ZKA__ABC_DECLARE(C)                                                                        \
	void zka__##C##_abc_rows(const zka_abc *m, const uint64_t(*wm)[4], const uint64_t *cls,    \
				 const uint64_t(*val_std)[4], uint64_t(*a)[4], uint64_t(*b)[4],    \
				 uint64_t(*c)[4], uint32_t r0, uint32_t r1);                       \
	uint32_t zka__##C##_abc_wit(const uint8_t *src, uint64_t(*w_std)[4], uint64_t(*wm)[4],     \
				    uint64_t *cls, int std, uint32_t i0, uint32_t i1);             \
	uint32_t zka__##C##_abc_check_rows(const zka_r1cs *cs, const uint64_t(*a)[4],              \
					   const uint64_t(*b)[4], const uint64_t(*wm)[4], int std, \
					   uint32_t r0, uint32_t r1);                              \
	void zka__##C##_abc_prod(const uint64_t(*a)[4], const uint64_t(*b)[4], uint64_t(*c)[4],    \
				 uint32_t i0, uint32_t i1);                                        \
	void zka__##C##_abc_slot(const uint64_t(*a)[4], const uint64_t(*b)[4], uint64_t(*out)[4],  \
				 size_t n, uint32_t i0, uint32_t i1);                              \
	void zka__##C##_abc_std(const uint64_t(*val)[4], uint64_t(*out)[4], uint32_t i0,           \
				uint32_t i1);
ZKA__ABC_DECLARE(bn254)
ZKA__ABC_DECLARE(bls12_381)

/* 1 and -1 in Montgomery form for curve c. */
static void one_and_minus_one(const zka_curve *c, uint64_t one[4], uint64_t mone[4])
{
	uint64_t o[4] = {1, 0, 0, 0};
	c->fr_to_mont(one, o);
	unsigned __int128 borrow = 0;
	for (int i = 0; i < 4; i++) { /* r - one: one is nonzero and below r */
		unsigned __int128 d = (unsigned __int128)c->r[i] - one[i] - borrow;
		mone[i] = (uint64_t)d;
		borrow = (d >> 64) & 1;
	}
}

static int is_zero4(const uint64_t v[4])
{
	return !(v[0] | v[1] | v[2] | v[3]);
}

void zka_abc_free(zka_abc *m)
{
	if (!m)
		return;
	if (m->owned) {
		for (int k = 0; k < 2; k++) {
			free(m->start[k]);
			free(m->term[k]);
		}
		free(m->val);
	}
	memset(m, 0, sizeof *m);
}

/* Value dedup table: open addressing over indices into val, keyed by the value's bytes. */
struct vtab {
	uint32_t *slot; /* UINT32_MAX: empty */
	uint64_t mask;
};

/* Returns the index of v in m->val, appending it when new; UINT32_MAX when out of memory. */
static uint32_t vtab_index(struct vtab *t, zka_abc *m, uint64_t *cap, const uint64_t v[4])
{
	uint64_t h = XXH3_64bits(v, 32) & t->mask;
	for (;;) {
		uint32_t s = t->slot[h];
		if (s == UINT32_MAX)
			break;
		if (!memcmp(m->val[s], v, 32))
			return s;
		h = (h + 1) & t->mask;
	}
	if (m->n_vals == *cap) {
		uint64_t nc = *cap * 2;
		void *nv = realloc(m->val, nc * 32);
		if (!nv)
			return UINT32_MAX;
		m->val = nv;
		*cap = nc;
	}
	memcpy(m->val[m->n_vals], v, 32);
	t->slot[h] = m->n_vals;
	return m->n_vals++;
}

int zka_abc_build(const zka_pk *pk, zka_abc *m, char *err, size_t errlen)
{
	const zka_curve *c = pk->curve;
	uint32_t n = pk->domain_size;
	uint64_t vcap = 64;
	struct vtab t = {0};
	int ret = -ENOMEM;
	memset(m, 0, sizeof *m);
	m->owned = 1;
	m->curve = c;
	m->n_rows = n;
	m->n_cols = pk->n_vars;
	/* the table holds at most n_coefs + 2 values: at least twice that many slots */
	uint64_t tsize = 64;
	while (tsize < 2ull * ((uint64_t)pk->n_coefs + 2))
		tsize *= 2;
	t.mask = tsize - 1;
	t.slot = malloc(tsize * sizeof *t.slot);
	m->val = malloc(vcap * 32);
	for (int k = 0; k < 2; k++)
		m->start[k] = calloc((size_t)n + 1, sizeof *m->start[k]);
	if (!t.slot || !m->val || !m->start[0] || !m->start[1])
		goto oom;
	memset(t.slot, 0xff, tsize * sizeof *t.slot);
	uint64_t one[4], mone[4];
	one_and_minus_one(c, one, mone);
	if (vtab_index(&t, m, &vcap, one) != 0 || vtab_index(&t, m, &vcap, mone) != 1)
		goto oom;
	/* pass 1: check every coefficient and count the nonzero terms of each row */
	for (uint32_t i = 0; i < pk->n_coefs; i++) {
		const zka_coef *e = &pk->coefs[i];
		const char *bad = e->matrix > 1 ? "matrix is neither A nor B"
				  : e->row >= n ? "row is not below the domain size"
				  : e->signal >= pk->n_vars
				      ? "signal is not below the number of signals"
				  : !zka_lt_modulus(e->value, c->r, 4) ? "value is not below r"
								       : NULL;
		if (bad) {
			snprintf(err, errlen, "coefficient %" PRIu32 ": %s", i, bad);
			ret = -EINVAL;
			goto fail;
		}
		if (!is_zero4(e->value))
			m->start[e->matrix][e->row + 1]++;
	}
	for (int k = 0; k < 2; k++) {
		for (uint32_t i = 0; i < n; i++)
			m->start[k][i + 1] += m->start[k][i];
		m->nnz[k] = m->start[k][n];
		m->term[k] = malloc((m->nnz[k] ? m->nnz[k] : 1) * sizeof *m->term[k]);
		if (!m->term[k])
			goto oom;
	}
	/* pass 2: place the terms (stable within a row), values through the dedup table; the
	 * start arrays serve as cursors, then are shifted back */
	for (uint32_t i = 0; i < pk->n_coefs; i++) {
		const zka_coef *e = &pk->coefs[i];
		if (is_zero4(e->value))
			continue;
		uint32_t vi = vtab_index(&t, m, &vcap, e->value);
		if (vi == UINT32_MAX)
			goto oom;
		uint32_t pos = m->start[e->matrix][e->row]++;
		m->term[e->matrix][pos][0] = e->signal;
		m->term[e->matrix][pos][1] = vi;
	}
	for (int k = 0; k < 2; k++) {
		memmove(m->start[k] + 1, m->start[k], (size_t)n * sizeof *m->start[k]);
		m->start[k][0] = 0;
	}
	free(t.slot);
	return 0;
oom:
	snprintf(err, errlen, "out of memory for the CSR form of %" PRIu32 " coefficients",
		 pk->n_coefs);
fail:
	free(t.slot);
	zka_abc_free(m);
	return ret;
}

int zka_abc_check(const zka_abc *m, char *err, size_t errlen)
{
	uint64_t one[4], mone[4];
	if (!m->curve || m->n_vals < 2) {
		snprintf(err, errlen, "CSR matrices: no curve or fewer than 2 values");
		return -EBADMSG;
	}
	one_and_minus_one(m->curve, one, mone);
	if (memcmp(m->val[0], one, 32) || memcmp(m->val[1], mone, 32)) {
		snprintf(err, errlen, "CSR matrices: values 0 and 1 are not 1 and -1");
		return -EBADMSG;
	}
	for (uint32_t v = 0; v < m->n_vals; v++)
		if (!zka_lt_modulus(m->val[v], m->curve->r, 4) || is_zero4(m->val[v])) {
			snprintf(err, errlen,
				 "CSR matrices: value %" PRIu32 " is zero or not below r", v);
			return -EBADMSG;
		}
	for (int k = 0; k < 2; k++) {
		const uint32_t *s = m->start[k];
		if (s[0] != 0 || s[m->n_rows] != m->nnz[k]) {
			snprintf(err, errlen, "CSR matrix %c: row starts do not span the terms",
				 "AB"[k]);
			return -EBADMSG;
		}
		for (uint32_t i = 0; i < m->n_rows; i++)
			if (s[i] > s[i + 1]) {
				snprintf(err, errlen,
					 "CSR matrix %c: row %" PRIu32 " starts after row %" PRIu32,
					 "AB"[k], i, i + 1);
				return -EBADMSG;
			}
		for (uint64_t t = 0; t < m->nnz[k]; t++)
			if (m->term[k][t][0] >= m->n_cols || m->term[k][t][1] >= m->n_vals) {
				snprintf(err, errlen,
					 "CSR matrix %c: term %" PRIu64
					 " has a column or value out of range",
					 "AB"[k], t);
				return -EBADMSG;
			}
	}
	return 0;
}

/* ---- the block scheduler ---- */

enum op { OP_ROWS, OP_WIT, OP_CHECK, OP_PROD, OP_SLOT };

struct sched {
	enum op op;
	int curve; /* ZKA_BN254 / ZKA_BLS12_381 */
	uint32_t total, nblocks;
	_Atomic uint32_t next;
	_Atomic uint32_t first; /* lowest failing index found (UINT32_MAX: none) */
	const zka_abc *m;
	const zka_r1cs *cs;
	const uint8_t *src;
	uint64_t (*w_std)[4];
	const uint64_t (*wm)[4];
	const uint64_t *cls;
	const uint64_t (*val_std)[4];
	int std;
	uint64_t *cls_out;
	uint64_t (*wm_out)[4], (*a)[4], (*b)[4], (*c)[4];
	const uint64_t (*ain)[4], (*bin)[4];
};

static uint32_t run_block(struct sched *s, uint32_t lo, uint32_t hi)
{
	int bn = s->curve == ZKA_BN254;
	switch (s->op) {
	case OP_ROWS:
		(bn ? zka__bn254_abc_rows : zka__bls12_381_abc_rows)(
		    s->m, s->wm, s->cls, s->val_std, s->a, s->b, s->c, lo, hi);
		return UINT32_MAX;
	case OP_WIT:
		return (bn ? zka__bn254_abc_wit : zka__bls12_381_abc_wit)(
		    s->src, s->w_std, s->wm_out, s->cls_out, s->std, lo, hi);
	case OP_CHECK:
		return (bn ? zka__bn254_abc_check_rows : zka__bls12_381_abc_check_rows)(
		    s->cs, s->ain, s->bin, s->wm, s->std, lo, hi);
	case OP_PROD:
		(bn ? zka__bn254_abc_prod : zka__bls12_381_abc_prod)(s->ain, s->bin, s->c, lo, hi);
		return UINT32_MAX;
	case OP_SLOT:
		(bn ? zka__bn254_abc_slot : zka__bls12_381_abc_slot)(s->ain, s->bin, s->c, s->total,
								     lo, hi);
		return UINT32_MAX;
	}
	return UINT32_MAX;
}

/* par_for body: draws blocks until none is left; keeps the lowest failure. Blocks after a
 * failure below them are skipped (the answer is the lowest failing index). */
static void sched_fn(void *ctx, size_t begin, size_t end, int tid)
{
	(void)begin, (void)end, (void)tid;
	struct sched *s = ctx;
	for (;;) {
		uint32_t blk = atomic_fetch_add_explicit(&s->next, 1, memory_order_relaxed);
		if (blk >= s->nblocks)
			break;
		uint32_t lo = blk * ZKA_ABC_BLOCK;
		if (lo > atomic_load_explicit(&s->first, memory_order_relaxed))
			continue;
		uint32_t hi = s->total - lo < ZKA_ABC_BLOCK ? s->total : lo + ZKA_ABC_BLOCK;
		uint32_t f = run_block(s, lo, hi);
		uint32_t cur = atomic_load_explicit(&s->first, memory_order_relaxed);
		while (f < cur && !atomic_compare_exchange_weak_explicit(&s->first, &cur, f,
									 memory_order_relaxed,
									 memory_order_relaxed))
			;
	}
}

/* Runs s over [0, s->total) on threads threads; returns the lowest failing index or
 * UINT32_MAX. zka_par_for joins every thread before returning, which orders all their
 * writes (a, b, c, wm, w_std) before the caller's reads. */
static uint32_t sched_run(struct sched *s, int threads)
{
	s->nblocks = (uint32_t)(((uint64_t)s->total + ZKA_ABC_BLOCK - 1) / ZKA_ABC_BLOCK);
	atomic_store(&s->next, 0);
	atomic_store(&s->first, UINT32_MAX);
	int t = zka_par_threads(threads);
	if ((uint32_t)t > s->nblocks)
		t = s->nblocks > 0 ? (int)s->nblocks : 1;
	zka_par_for(t, (size_t)t, sched_fn, s);
	return atomic_load(&s->first);
}

static int curve_ok(const zka_curve *c)
{
	return c && (c->id == ZKA_BN254 || c->id == ZKA_BLS12_381);
}

struct zka__abc_tune zka__abc_tune = {8, 0, 1};

static void tune_init(void)
{
	const char *e = getenv("ZKA_ABC_AHEAD");
	if (e && atoi(e) >= 1 && atoi(e) <= 64)
		zka__abc_tune.ahead = (uint32_t)atoi(e);
	if ((e = getenv("ZKA_ABC_GATHER")) && (*e == '0' || *e == '1'))
		zka__abc_tune.gather = *e == '1';
	if ((e = getenv("ZKA_ABC_CLASSES")) && (*e == '0' || *e == '1'))
		zka__abc_tune.classes = *e == '1';
}

int zka_abc_compute(const zka_abc *m, const uint64_t (*wm)[4], const uint64_t *cls,
		    const uint64_t (*val_std)[4], uint64_t (*a)[4], uint64_t (*b)[4],
		    uint64_t (*c)[4], int threads)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, tune_init);
	if (!curve_ok(m->curve) || (val_std && c))
		return -EINVAL;
	struct sched s = {.op = OP_ROWS,
			  .curve = m->curve->id,
			  .total = m->n_rows,
			  .m = m,
			  .wm = wm,
			  .cls = cls,
			  .val_std = val_std,
			  .a = a,
			  .b = b,
			  .c = c};
	sched_run(&s, threads);
	return 0;
}

int64_t zka_abc_witness_mem(const zka_curve *c, const uint64_t (*w_std)[4], uint32_t n,
			    uint64_t (*wm)[4], uint64_t *cls, int std, int threads)
{
	if (!curve_ok(c))
		return -EINVAL;
	struct sched s = {.op = OP_WIT,
			  .curve = c->id,
			  .total = n,
			  .src = (const uint8_t *)w_std,
			  .wm_out = wm,
			  .cls_out = cls,
			  .std = std};
	uint32_t f = sched_run(&s, threads);
	return f == UINT32_MAX ? 0 : (int64_t)f + 1;
}

int zka_abc_witness(const char *path, const zka_curve *c, uint32_t n, uint64_t (*w_std)[4],
		    uint64_t (*wm)[4], uint64_t *cls, int std, int threads, char *err,
		    size_t errlen)
{
	zka_binfile bf;
	const uint8_t *p;
	const zka_curve *fc;
	uint32_t nw;
	int ret = zka_wtns_map(path, &bf, &fc, &nw, &p, err, errlen);
	if (ret < 0)
		return ret;
	ret = -EINVAL;
	if (fc != c) {
		zka_fmt_err(err, errlen, path, "witness is for %s but the key is %s", fc->pretty,
			    c->pretty);
		goto out;
	}
	if (nw != n) {
		zka_fmt_err(err, errlen, path,
			    "witness has %" PRIu32 " values but the key expects %" PRIu32, nw, n);
		goto out;
	}
#ifdef MADV_POPULATE_READ
	{ /* page tables for the values in one call instead of a fault per page (a fault costs
	   * ~1 us in a VM: 2^22 values are 32k pages); advisory, so a failure is ignored */
		uintptr_t lo = (uintptr_t)p & ~(uintptr_t)4095, hi = (uintptr_t)p + (size_t)n * 32;
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_READ);
	}
#endif
	struct sched s = {.op = OP_WIT,
			  .curve = c->id,
			  .total = n,
			  .src = p,
			  .w_std = w_std,
			  .wm_out = wm,
			  .cls_out = cls,
			  .std = std};
	uint32_t f = sched_run(&s, threads);
	ret = -EINVAL;
	if (f != UINT32_MAX)
		zka_fmt_err(err, errlen, path, "witness value %" PRIu32 " is not below the prime",
			    f);
	else if (w_std[0][0] != 1 || w_std[0][1] || w_std[0][2] || w_std[0][3])
		zka_fmt_err(err, errlen, path, "witness value 0 is not 1");
	else
		ret = 0;
out:
	zka_binfile_close(&bf);
	return ret;
}

int zka_abc_check_ab(const zka_r1cs *cs, const zka_abc *m, const uint64_t (*a)[4],
		     const uint64_t (*b)[4], const uint64_t (*wm)[4], int std, int threads,
		     uint32_t *first_failing)
{
	if (!curve_ok(m->curve) || cs->curve != m->curve || cs->n_constraints > m->n_rows ||
	    cs->n_wires != m->n_cols)
		return -EINVAL;
	struct sched s = {.op = OP_CHECK,
			  .curve = m->curve->id,
			  .total = cs->n_constraints,
			  .cs = cs,
			  .ain = a,
			  .bin = b,
			  .wm = wm,
			  .std = std};
	uint32_t f = sched_run(&s, threads);
	if (f == UINT32_MAX)
		return 0;
	if (first_failing)
		*first_failing = f;
	return 1;
}

int zka_abc_product(const zka_curve *c, const uint64_t (*a)[4], const uint64_t (*b)[4],
		    uint64_t (*out)[4], uint32_t n, int threads)
{
	if (!curve_ok(c))
		return -EINVAL;
	struct sched s = {.op = OP_PROD, .curve = c->id, .total = n, .ain = a, .bin = b, .c = out};
	sched_run(&s, threads);
	return 0;
}

int zka_abc_from_slot(const zka_curve *c, const uint64_t (*a)[4], const uint64_t (*b)[4],
		      uint64_t (*out)[4], uint32_t n, int threads)
{
	if (!curve_ok(c))
		return -EINVAL;
	struct sched s = {.op = OP_SLOT, .curve = c->id, .total = n, .ain = a, .bin = b, .c = out};
	sched_run(&s, threads);
	return 0;
}

uint64_t (*zka_abc_values_std(const zka_abc *m))[4]
{
	if (!curve_ok(m->curve))
		return NULL;
	uint64_t(*v)[4] = malloc((m->n_vals ? m->n_vals : 1) * sizeof *v);
	if (v)
		(m->curve->id == ZKA_BN254 ? zka__bn254_abc_std : zka__bls12_381_abc_std)(
		    (const uint64_t(*)[4])m->val, v, 0, m->n_vals);
	return v;
}

int zka_abc_compute_pk(const zka_pk *pk, const zka_witness *w, uint64_t (*a)[4], uint64_t (*b)[4],
		       uint64_t (*c)[4], const zka_prove_opts *o)
{
	if (w->curve != pk->curve || w->n != pk->n_vars)
		return -EINVAL;
	int threads = o ? o->threads : 0;
	zka_abc m;
	char err[160];
	int r = zka_abc_build(pk, &m, err, sizeof err);
	if (r)
		return r;
	uint64_t(*wm)[4] = zka_abc_scratch(w->n);
	if (!wm) {
		zka_abc_free(&m);
		return -ENOMEM;
	}
	int64_t c2 = zka_abc_compute_w(&m, (const uint64_t(*)[4])w->w, wm, a, b, c, threads);
	zka_abc_scratch_free(wm, w->n);
	zka_abc_free(&m);
	return c2 > 0 ? -EINVAL : (int)c2;
}

int64_t zka_abc_compute_w(const zka_abc *m, const uint64_t (*w)[4], uint64_t (*wm)[4],
			  uint64_t (*a)[4], uint64_t (*b)[4], uint64_t (*c)[4], int threads)
{
	uint64_t *cls = zka_abc_scratch_cls(wm, m->n_cols);
	int64_t bad = zka_abc_witness_mem(m->curve, w, m->n_cols, wm, cls, 0, threads);
	if (bad)
		return bad;
	return zka_abc_compute(m, (const uint64_t(*)[4])wm, cls, NULL, a, b, c, threads);
}

int zka_abc_scratch_reserve(uint64_t (**wm)[4], size_t *cap, size_t n)
{
	if (*wm && *cap >= n)
		return 0;
	zka_abc_scratch_free(*wm, *cap);
	*cap = 0;
	if (!(*wm = zka_abc_scratch(n)))
		return -ENOMEM;
	*cap = n;
	return 0;
}

#define ZKA_ABC_HUGE ((size_t)2 << 20)

/* n values, then their class map */
static size_t scratch_bytes(size_t n)
{
	return (n * 32 + ZKA_ABC_CLS_WORDS(n) * 8 + ZKA_ABC_HUGE - 1) / ZKA_ABC_HUGE * ZKA_ABC_HUGE;
}

uint64_t *zka_abc_scratch_cls(uint64_t (*wm)[4], size_t n)
{
	return (uint64_t *)(wm + n);
}

/* An anonymous mapping over-allocated by one huge page and trimmed to a 2 MiB-aligned start,
 * so that every 2 MiB of it can be one huge page. */
uint64_t (*zka_abc_scratch(size_t n))[4]
{
	size_t len = scratch_bytes(n ? n : 1);
	uint8_t *m = mmap(NULL, len + ZKA_ABC_HUGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	uintptr_t u = (uintptr_t)m, al = (u + ZKA_ABC_HUGE - 1) & ~(uintptr_t)(ZKA_ABC_HUGE - 1);
	if (al > u) /* the head before the aligned start */
		munmap(m, al - u);
	/* the tail: al < u + ZKA_ABC_HUGE, so some of the extra huge page is always left over */
	munmap((void *)(al + len), u + ZKA_ABC_HUGE - al);
#ifdef MADV_HUGEPAGE
	(void)madvise((void *)al, len, MADV_HUGEPAGE); /* a hint: refused is still correct */
#endif
	return (uint64_t(*)[4])al;
}

void zka_abc_scratch_free(uint64_t (*p)[4], size_t n)
{
	if (p)
		munmap(p, scratch_bytes(n ? n : 1));
}
