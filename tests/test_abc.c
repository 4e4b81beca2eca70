/* test_abc.c - the CSR synthesis path (zk/abc.h) against the reference zka_compute_abc: random
 * coefficient lists of both curves (sizes that are not powers of two, witnesses full of 0 and 1,
 * coefficients 1, -1, 0, a few repeated constants and random ones, repeated (row, signal)
 * terms, shuffled file order), every thread count 1..16 giving the same bytes; the circom
 * fixtures of tests/data/fmt; the witness pass from .wtns files and its errors; the
 * satisfiability check on c. Fresh seeds every run. */
#include "tests/testutil.h"
#include "zk/abc.h"
#include "zk/r1cs.h"
#include "zk/synthetic.h"
#include "zk/wtns.h"
#include "zk/zkey.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef ZKA_FMT_DATA
#error "ZKA_FMT_DATA must name tests/data/fmt"
#endif

static const zka_curve *const curves[2] = {&zka_curve_bn254, &zka_curve_bls12_381};

/* A random canonical scalar (below r: the top limb reduced below r's). */
static void rand_scalar(const zka_curve *c, uint64_t v[4])
{
	zka_test_random(v, 32);
	v[3] %= c->r[3];
}

/* A witness value: 0, 1, small or full width, as circom's (many 0/1). */
static void rand_witness_value(const zka_curve *c, uint64_t v[4])
{
	uint64_t k = zka_test_rand64() % 10;
	memset(v, 0, 32);
	if (k < 4)
		v[0] = k & 1;
	else if (k < 6)
		v[0] = zka_test_rand64() & 0xffff;
	else
		rand_scalar(c, v);
}

/* A key with only what synthesis reads: curve, sizes and a coefficient list of m constraint
 * rows plus the public rows, in random order. */
static void rand_key(const zka_curve *c, uint32_t m, uint32_t npub, uint32_t nvars, zka_pk *pk)
{
	memset(pk, 0, sizeof *pk);
	pk->curve = c;
	pk->n_vars = nvars;
	pk->n_public = npub;
	uint32_t d = 1, k = 0;
	while (d < m + npub + 1)
		d *= 2, k++;
	pk->domain_size = d;
	pk->log_domain = k;
	uint64_t one[4] = {1, 0, 0, 0}, onem[4], mone[4], consts[3][4];
	c->fr_to_mont(onem, one);
	uint64_t br = 0;
	for (int i = 0; i < 4; i++) { /* r - 1 in Montgomery form = -1 */
		unsigned __int128 t = (unsigned __int128)c->r[i] - onem[i] - br;
		mone[i] = (uint64_t)t;
		br = (uint64_t)(t >> 64) & 1;
	}
	for (int i = 0; i < 3; i++)
		rand_scalar(c, consts[i]);
	size_t cap = (size_t)m * 12 + npub + 16 + 8 * 700, n = 0;
	uint32_t longs = 0; /* up to 8 rows longer than the gathered loop's buffer (256 terms) */
	pk->coefs = calloc(cap, sizeof *pk->coefs);
	CU_ASSERT_FATAL(pk->coefs != NULL);
	for (uint32_t row = 0; row < m; row++)
		for (uint32_t mat = 0; mat < 2; mat++) {
			int nt = (int)(zka_test_rand64() % 6);
			if (longs < 8 && zka_test_rand64() % 300 == 0)
				nt = 250 + (int)(zka_test_rand64() % 440), longs++;
			for (int t = 0; t < nt; t++) {
				zka_coef *e = &pk->coefs[n++];
				e->matrix = mat;
				e->row = row;
				e->signal = (uint32_t)(zka_test_rand64() % nvars);
				uint64_t kind = zka_test_rand64() % 10;
				const uint64_t *v = kind < 4   ? onem
						    : kind < 6 ? mone
						    : kind < 8 ? consts[kind % 3]
							       : NULL;
				if (kind == 8)
					memset(e->value, 0, 32);
				else if (v)
					memcpy(e->value, v, 32);
				else
					rand_scalar(c, e->value);
				if (t == 0 &&
				    zka_test_rand64() % 4 == 0) { /* the same (row, signal) again */
					pk->coefs[n] = *e;
					rand_scalar(c, pk->coefs[n].value);
					n++;
				}
			}
		}
	for (uint32_t s = 0; s <= npub; s++)
		pk->coefs[n++] = (zka_coef){.matrix = 0,
					    .row = m + s,
					    .signal = s,
					    .value = {onem[0], onem[1], onem[2], onem[3]}};
	for (size_t i = n; i > 1; i--) { /* shuffle: file order must not matter */
		size_t j = zka_test_rand64() % i;
		zka_coef t = pk->coefs[i - 1];
		pk->coefs[i - 1] = pk->coefs[j];
		pk->coefs[j] = t;
	}
	pk->n_coefs = (uint32_t)n;
}

/* The class map of w's n values as zk/abc.h defines it, one value at a time. */
static uint64_t *ref_classes(const zka_witness *w)
{
	uint64_t *cls = calloc(ZKA_ABC_CLS_WORDS(w->n), 8);
	CU_ASSERT_FATAL(cls != NULL);
	for (uint32_t j = 0; j < w->n; j++) {
		const uint64_t *v = w->w[j];
		uint64_t k = (v[1] | v[2] | v[3]) == 0 && v[0] <= 1 ? v[0] : 2;
		cls[j / 32] |= k << (2 * (j % 32));
	}
	return cls;
}

/* Compares the CSR path at thread counts 1..16 with the reference for pk and w, with and
 * without the class map, with and without c. */
static void compare(const zka_pk *pk, const zka_witness *w, int all_threads)
{
	size_t n = pk->domain_size;
	uint64_t(*ref)[4] = malloc(3 * n * 32), (*got)[4] = malloc(3 * n * 32),
	(*wm)[4] = malloc((size_t)w->n * 32), *cls = malloc(ZKA_ABC_CLS_WORDS(w->n) * 8),
	*rcls = ref_classes(w);
	CU_ASSERT_FATAL(ref && got && wm && cls);
	CU_ASSERT_FATAL(zka_compute_abc(pk, w, ref, ref + n, ref + 2 * n, NULL) == 0);
	zka_abc m;
	char err[256] = "";
	CU_ASSERT_FATAL(zka_abc_build(pk, &m, err, sizeof err) == 0);
	CU_ASSERT(zka_abc_check(&m, err, sizeof err) == 0);
	CU_ASSERT(m.n_vals >= 2 && m.nnz[0] + m.nnz[1] <= pk->n_coefs);
	memset(cls, 0x5a, ZKA_ABC_CLS_WORDS(w->n) * 8); /* every word must be written */
	CU_ASSERT(zka_abc_witness_mem(pk->curve, (const uint64_t(*)[4])w->w, w->n, wm, cls, 0, 3) ==
		  0);
	CU_ASSERT(memcmp(cls, rcls, ZKA_ABC_CLS_WORDS(w->n) * 8) == 0);
	/* the row loops (direct, gathered, with the class map), prefetch distances from 1 to
	 * past a block */
	(void)zka_abc_compute(&m, (const uint64_t(*)[4])wm, cls, NULL, got, got + n, got + 2 * n,
			      1);
	struct zka__abc_tune saved = zka__abc_tune;
	static const struct zka__abc_tune tunes[] = {{8, 0, 1}, {1, 0, 1}, {33, 0, 1},
						     {8, 0, 0}, {1, 0, 0}, {33, 0, 0},
						     {8, 1, 0}, {1, 1, 0}, {64, 1, 0}};
	for (size_t v = 0; v < sizeof tunes / sizeof tunes[0]; v++) {
		zka__abc_tune = tunes[v];
		for (int t = 1; t <= 16; t += all_threads && v == 0 ? 1 : 5) {
			/* the class map given to every loop: only the tune's classes uses it */
			int no_c = t % 2 == 0; /* c left to the prover at every other count */
			memset(got, 0xa5, 3 * n * 32); /* every byte must be written */
			CU_ASSERT_FATAL(zka_abc_compute(&m, (const uint64_t(*)[4])wm, cls, NULL,
							got, got + n, no_c ? NULL : got + 2 * n,
							t) == 0);
			int same = memcmp(ref, got, (no_c ? 2 : 3) * n * 32) == 0;
			if (!same)
				fprintf(stderr,
					"CSR path differs from the reference: %s, domain %zu, %d "
					"threads, ahead %u, gather %d, classes %d, c %d\n",
					pk->curve->pretty, n, t, tunes[v].ahead, tunes[v].gather,
					tunes[v].classes, !no_c);
			CU_ASSERT(same);
			if (no_c) { /* c untouched */
				uint64_t(*cc)[4] = got + 2 * n;
				size_t untouched = 0;
				for (size_t i = 0; i < 4 * n; i++)
					untouched += ((uint64_t *)cc)[i] == 0xa5a5a5a5a5a5a5a5ull;
				CU_ASSERT(untouched == 4 * n);
			}
		}
	}
	zka__abc_tune = saved;
	/* the slot's form: the witness and a, b in standard form (zk/abc.h "Forms"), no c; made
	 * into a, b, c as the CPU backend makes them, they must be the reference's */
	{
		uint64_t(*ws)[4] = malloc((size_t)w->n * 32), (*vs)[4] = zka_abc_values_std(&m),
		(*mt)[4] = malloc(3 * n * 32);
		CU_ASSERT_FATAL(ws && vs && mt);
		memset(cls, 0x5a, ZKA_ABC_CLS_WORDS(w->n) * 8);
		CU_ASSERT(zka_abc_witness_mem(pk->curve, (const uint64_t(*)[4])w->w, w->n, ws, cls,
					      1, 2) == 0);
		CU_ASSERT(memcmp(ws, w->w, (size_t)w->n * 32) == 0);
		CU_ASSERT(memcmp(cls, rcls, ZKA_ABC_CLS_WORDS(w->n) * 8) == 0);
		CU_ASSERT(zka_abc_compute(&m, (const uint64_t(*)[4])ws, cls,
					  (const uint64_t(*)[4])vs, got, got + n, got + 2 * n,
					  2) == -EINVAL); /* no c */
		for (size_t v = 0; v < sizeof tunes / sizeof tunes[0]; v += 2) {
			zka__abc_tune = tunes[v];
			for (int t = 1; t <= 16; t += 5) {
				memset(got, 0xa5, 2 * n * 32);
				CU_ASSERT_FATAL(zka_abc_compute(&m, (const uint64_t(*)[4])ws, cls,
								(const uint64_t(*)[4])vs, got,
								got + n, NULL, t) == 0);
				CU_ASSERT(zka_abc_from_slot(pk->curve, (const uint64_t(*)[4])got,
							    (const uint64_t(*)[4])(got + n), mt,
							    (uint32_t)n, 3) == 0);
				int same = memcmp(ref, mt, 3 * n * 32) == 0;
				if (!same)
					fprintf(
					    stderr,
					    "standard-form CSR path differs: %s, domain %zu, %d "
					    "threads, ahead %u, gather %d, classes %d\n",
					    pk->curve->pretty, n, t, tunes[v].ahead,
					    tunes[v].gather, tunes[v].classes);
				CU_ASSERT(same);
			}
		}
		zka__abc_tune = saved;
		free(ws);
		free(vs);
		free(mt);
	}
	/* c from a and b afterwards, as the CPU backend makes it from a slot */
	for (int t = 1; t <= 16; t += 7) {
		memset(got + 2 * n, 0xa5, n * 32);
		CU_ASSERT(zka_abc_product(pk->curve, (const uint64_t(*)[4])ref,
					  (const uint64_t(*)[4])(ref + n), got + 2 * n, (uint32_t)n,
					  t) == 0);
		CU_ASSERT(memcmp(ref + 2 * n, got + 2 * n, n * 32) == 0);
	}
	/* no class map at all: the plain loop */
	memset(got, 0xa5, 3 * n * 32);
	CU_ASSERT(zka_abc_compute(&m, (const uint64_t(*)[4])wm, NULL, NULL, got, got + n,
				  got + 2 * n, 4) == 0);
	CU_ASSERT(memcmp(ref, got, 3 * n * 32) == 0);
	/* the one-shot wrapper the CPU prover uses */
	zka_prove_opts o = {.threads = 2};
	memset(got, 0, 3 * n * 32);
	CU_ASSERT(zka_abc_compute_pk(pk, w, got, got + n, got + 2 * n, &o) == 0);
	CU_ASSERT(memcmp(ref, got, 3 * n * 32) == 0);
	zka_abc_free(&m);
	free(ref);
	free(got);
	free(wm);
	free(cls);
	free(rcls);
}

static void test_random_keys(void)
{
	static const uint32_t sizes[][3] = {{1, 0, 2},	      {5, 1, 7},       {100, 3, 90},
					    {1000, 2, 1500},  {4095, 4, 3000}, {4097, 1, 5000},
					    {30001, 5, 20000}};
	for (int ci = 0; ci < 2; ci++)
		for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
			const zka_curve *c = curves[ci];
			zka_pk pk;
			rand_key(c, sizes[s][0], sizes[s][1], sizes[s][2], &pk);
			zka_witness w = {.curve = c, .n = pk.n_vars};
			w.w = malloc((size_t)w.n * 32);
			CU_ASSERT_FATAL(w.w != NULL);
			for (uint32_t i = 0; i < w.n; i++)
				rand_witness_value(c, w.w[i]);
			memset(w.w[0], 0, 32);
			w.w[0][0] = 1;
			compare(&pk, &w, sizes[s][0] >= 4000);
			zka_witness_free(&w);
			free(pk.coefs);
		}
}

static void test_bad_coefficients(void)
{
	const zka_curve *c = curves[zka_test_rand64() & 1];
	zka_pk pk;
	rand_key(c, 50, 1, 40, &pk);
	zka_abc m;
	char err[256] = "";
	uint32_t i = (uint32_t)(zka_test_rand64() % pk.n_coefs);
	zka_coef keep = pk.coefs[i];
	char want[64];
	snprintf(want, sizeof want, "coefficient %u: ", i);
	pk.coefs[i].row = pk.domain_size;
	CU_ASSERT(zka_abc_build(&pk, &m, err, sizeof err) == -EINVAL);
	CU_ASSERT(strstr(err, want) && strstr(err, "row"));
	CU_ASSERT(m.start[0] == NULL && m.term[0] == NULL && m.val == NULL);
	pk.coefs[i] = keep;
	pk.coefs[i].signal = pk.n_vars;
	CU_ASSERT(zka_abc_build(&pk, &m, err, sizeof err) == -EINVAL && strstr(err, "signal"));
	pk.coefs[i] = keep;
	pk.coefs[i].matrix = 2;
	CU_ASSERT(zka_abc_build(&pk, &m, err, sizeof err) == -EINVAL && strstr(err, "matrix"));
	pk.coefs[i] = keep;
	memcpy(pk.coefs[i].value, c->r, 32);
	CU_ASSERT(zka_abc_build(&pk, &m, err, sizeof err) == -EINVAL && strstr(err, "value"));
	pk.coefs[i] = keep;
	/* a valid build, then damaged as another process might leave it in shared memory */
	CU_ASSERT_FATAL(zka_abc_build(&pk, &m, err, sizeof err) == 0);
	CU_ASSERT(zka_abc_check(&m, err, sizeof err) == 0);
	if (m.nnz[0] > 0) {
		uint32_t t = (uint32_t)(zka_test_rand64() % m.nnz[0]), keep_col = m.term[0][t][0];
		m.term[0][t][0] = m.n_cols;
		CU_ASSERT(zka_abc_check(&m, err, sizeof err) == -EBADMSG);
		m.term[0][t][0] = keep_col;
		m.term[0][t][1] = m.n_vals;
		CU_ASSERT(zka_abc_check(&m, err, sizeof err) == -EBADMSG);
		m.term[0][t][1] = 0;
	}
	m.start[1][m.n_rows] += 1;
	CU_ASSERT(zka_abc_check(&m, err, sizeof err) == -EBADMSG);
	m.start[1][m.n_rows] -= 1;
	CU_ASSERT(zka_abc_check(&m, err, sizeof err) == 0);
	zka_abc_free(&m);
	free(pk.coefs);
}

/* The circom fixtures: keys from snarkjs, witnesses from circom's wasm. */
static void test_circom_fixtures(void)
{
	static const char *names[] = {"bn128.mix", "bn128.nopub", "bls12381.nopub"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char zk[512], wt[512], err[512] = "";
		snprintf(zk, sizeof zk, "%s/%s.setup.zkey", ZKA_FMT_DATA, names[i]);
		snprintf(wt, sizeof wt, "%s/%s.wtns", ZKA_FMT_DATA, names[i]);
		zka_pk pk;
		zka_witness w;
		CU_ASSERT_FATAL(zka_zkey_read(zk, &pk, err, sizeof err) == 0);
		CU_ASSERT_FATAL(zka_wtns_read(wt, &w, err, sizeof err) == 0);
		compare(&pk, &w, 1);
		/* the witness pass from the file: the same values, straight into a buffer */
		uint64_t(*ws)[4] = malloc((size_t)w.n * 32), (*wm)[4] = malloc((size_t)w.n * 32),
		(*wm2)[4] = malloc((size_t)w.n * 32), *cls = malloc(ZKA_ABC_CLS_WORDS(w.n) * 8),
		*rcls = ref_classes(&w);
		CU_ASSERT_FATAL(ws && wm && wm2 && cls);
		CU_ASSERT(zka_abc_witness(wt, pk.curve, w.n, ws, wm, cls, 0, 4, err, sizeof err) ==
			  0);
		CU_ASSERT(memcmp(ws, w.w, (size_t)w.n * 32) == 0);
		CU_ASSERT(memcmp(cls, rcls, ZKA_ABC_CLS_WORDS(w.n) * 8) == 0);
		CU_ASSERT(zka_abc_witness_mem(pk.curve, (const uint64_t(*)[4])w.w, w.n, wm2, NULL,
					      0, 1) == 0);
		CU_ASSERT(memcmp(wm, wm2, (size_t)w.n * 32) == 0);
		free(cls);
		free(rcls);
		free(ws);
		free(wm);
		free(wm2);
		zka_witness_free(&w);
		zka_pk_free(&pk);
	}
}

/* .wtns files through zka_abc_witness: values and every refusal, naming the file. */
static void test_witness_file(void)
{
	char dir[] = "/tmp/zka-abc-XXXXXX", path[256], err[512];
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/w.wtns", dir);
	for (int ci = 0; ci < 2; ci++) {
		const zka_curve *c = curves[ci];
		uint32_t n = 1 + (uint32_t)(zka_test_rand64() % 20000);
		zka_witness w = {.curve = c, .n = n};
		w.w = malloc((size_t)n * 32);
		for (uint32_t i = 0; i < n; i++)
			rand_witness_value(c, w.w[i]);
		memset(w.w[0], 0, 32);
		w.w[0][0] = 1;
		CU_ASSERT_FATAL(zka_wtns_write(path, &w, err, sizeof err) == 0);
		uint64_t(*ws)[4] = malloc((size_t)n * 32), (*wm)[4] = malloc((size_t)n * 32),
		(*wm2)[4] = malloc((size_t)n * 32), *cls = malloc(ZKA_ABC_CLS_WORDS(n) * 8),
		*rcls = ref_classes(&w);
		for (int t = 1; t <= 16; t *= 2) {
			memset(ws, 0, (size_t)n * 32);
			memset(cls, 0xff, ZKA_ABC_CLS_WORDS(n) * 8);
			err[0] = 0;
			CU_ASSERT(zka_abc_witness(path, c, n, ws, wm, cls, 0, t, err, sizeof err) ==
				  0);
			CU_ASSERT(memcmp(ws, w.w, (size_t)n * 32) == 0);
			CU_ASSERT(memcmp(cls, rcls, ZKA_ABC_CLS_WORDS(n) * 8) == 0);
		}
		free(cls);
		free(rcls);
		for (uint32_t i = 0; i < n; i++) /* the reference conversion */
			c->fr_to_mont(wm2[i], w.w[i]);
		CU_ASSERT(memcmp(wm, wm2, (size_t)n * 32) == 0);
		/* refusals */
		err[0] = 0;
		CU_ASSERT(zka_abc_witness(path, curves[1 - ci], n, ws, wm, NULL, 0, 2, err,
					  sizeof err) == -EINVAL);
		CU_ASSERT(strstr(err, path) && strstr(err, "witness is for"));
		err[0] = 0;
		CU_ASSERT(zka_abc_witness(path, c, n + 1, ws, wm, NULL, 0, 2, err, sizeof err) ==
			  -EINVAL);
		CU_ASSERT(strstr(err, path) && strstr(err, "values but the key expects"));
		uint32_t bad = (uint32_t)(zka_test_rand64() % n);
		uint64_t keep[4];
		memcpy(keep, w.w[bad], 32);
		memcpy(w.w[bad], c->r, 32);
		CU_ASSERT_FATAL(zka_wtns_write(path, &w, err, sizeof err) == 0);
		err[0] = 0;
		CU_ASSERT(zka_abc_witness(path, c, n, ws, wm, NULL, 0, 3, err, sizeof err) ==
			  -EINVAL);
		char want[64];
		snprintf(want, sizeof want, "witness value %u is not below", bad);
		CU_ASSERT(strstr(err, path) && strstr(err, want));
		CU_ASSERT(zka_abc_witness_mem(c, (const uint64_t(*)[4])w.w, n, wm, NULL, 0, 3) ==
			  (int64_t)bad + 1);
		memcpy(w.w[bad], keep, 32);
		w.w[0][0] = 2;
		CU_ASSERT_FATAL(zka_wtns_write(path, &w, err, sizeof err) == 0);
		err[0] = 0;
		CU_ASSERT(zka_abc_witness(path, c, n, ws, wm, NULL, 0, 3, err, sizeof err) ==
			  -EINVAL);
		CU_ASSERT(strstr(err, "value 0 is not 1") != NULL);
		err[0] = 0;
		CU_ASSERT(zka_abc_witness(dir, c, n, ws, wm, NULL, 0, 3, err, sizeof err) <
			  0); /* a directory */
		free(ws);
		free(wm);
		free(wm2);
		zka_witness_free(&w);
	}
	unlink(path);
	rmdir(dir);
}

/* The key's A and B from a circuit, as the setup lays them out (constraint rows, then the
 * public rows). */
static void key_from_circuit(const zka_r1cs *cs, zka_pk *pk)
{
	memset(pk, 0, sizeof *pk);
	uint32_t npub = cs->n_pub_out + cs->n_pub_in, d = 1;
	while (d < cs->n_constraints + npub + 1)
		d *= 2;
	pk->curve = cs->curve;
	pk->n_vars = cs->n_wires;
	pk->n_public = npub;
	pk->domain_size = d;
	pk->coefs = calloc(cs->m[0].n_terms + cs->m[1].n_terms + npub + 1, sizeof *pk->coefs);
	uint32_t n = 0;
	uint64_t one[4] = {1, 0, 0, 0}, onem[4];
	cs->curve->fr_to_mont(onem, one);
	for (uint32_t k = 0; k < 2; k++)
		for (uint32_t i = 0; i < cs->n_constraints; i++)
			for (uint64_t t = cs->m[k].start[i]; t < cs->m[k].start[i + 1]; t++) {
				zka_coef *e = &pk->coefs[n++];
				e->matrix = k, e->row = i, e->signal = cs->m[k].signal[t];
				memcpy(e->value, cs->m[k].value[t], 32);
			}
	for (uint32_t s = 0; s <= npub; s++)
		pk->coefs[n++] = (zka_coef){.matrix = 0,
					    .row = cs->n_constraints + s,
					    .signal = s,
					    .value = {onem[0], onem[1], onem[2], onem[3]}};
	pk->n_coefs = n;
}

/* The check in the slot's form: a, b and the witness in standard form (zk/abc.h "Forms").
 * Returns zka_abc_check_ab's answer with t threads, the first failing constraint in *bad. */
static int check_std(const zka_r1cs *cs, const zka_abc *mx, const zka_witness *w, int t,
		     uint32_t *bad)
{
	size_t n = mx->n_rows;
	uint64_t(*ab)[4] = malloc(2 * n * 32), (*ws)[4] = malloc((size_t)w->n * 32),
	(*vs)[4] = zka_abc_values_std(mx);
	CU_ASSERT_FATAL(ab && ws && vs);
	CU_ASSERT(zka_abc_witness_mem(w->curve, (const uint64_t(*)[4])w->w, w->n, ws, NULL, 1, 3) ==
		  0);
	CU_ASSERT(zka_abc_compute(mx, (const uint64_t(*)[4])ws, NULL, (const uint64_t(*)[4])vs, ab,
				  ab + n, NULL, 3) == 0);
	*bad = UINT32_MAX;
	int r = zka_abc_check_ab(cs, mx, (const uint64_t(*)[4])ab, (const uint64_t(*)[4])(ab + n),
				 (const uint64_t(*)[4])ws, 1, t, bad);
	free(ab);
	free(ws);
	free(vs);
	return r;
}

static void test_check_c(void)
{
	for (int ci = 0; ci < 2; ci++) {
		zka_r1cs cs;
		zka_witness w;
		uint32_t m = 3000 + (uint32_t)(zka_test_rand64() % 3000), bad = 0, bad2 = 0;
		CU_ASSERT_FATAL(
		    zka_synthetic_circuit(curves[ci], m, 2, zka_test_rand64(), &cs, &w) == 0);
		zka_pk pk;
		key_from_circuit(&cs, &pk);
		zka_abc mx;
		char err[256];
		CU_ASSERT_FATAL(zka_abc_build(&pk, &mx, err, sizeof err) == 0);
		size_t n = pk.domain_size;
		uint64_t(*abc)[4] = malloc(3 * n * 32), (*wm)[4] = malloc((size_t)w.n * 32);
		CU_ASSERT(zka_abc_witness_mem(w.curve, (const uint64_t(*)[4])w.w, w.n, wm, NULL, 0,
					      4) == 0);
		CU_ASSERT(zka_abc_compute(&mx, (const uint64_t(*)[4])wm, NULL, NULL, abc, abc + n,
					  abc + 2 * n, 4) == 0);
		CU_ASSERT(zka_abc_check_ab(&cs, &mx, (const uint64_t(*)[4])abc,
					   (const uint64_t(*)[4])(abc + n),
					   (const uint64_t(*)[4])wm, 0, 4, &bad) == 0);
		CU_ASSERT(check_std(&cs, &mx, &w, 5, &bad) == 0);
		/* a changed value: the same first failing constraint as the reference check */
		uint32_t s = 1 + (uint32_t)(zka_test_rand64() % (w.n - 1));
		uint64_t nv = w.w[s][0] == 5 && !(w.w[s][1] | w.w[s][2] | w.w[s][3]) ? 6 : 5;
		memset(w.w[s], 0, 32);
		w.w[s][0] = nv;
		int ref = zka_r1cs_check(&cs, &w, &bad2);
		CU_ASSERT(zka_abc_witness_mem(w.curve, (const uint64_t(*)[4])w.w, w.n, wm, NULL, 0,
					      4) == 0);
		CU_ASSERT(zka_abc_compute(&mx, (const uint64_t(*)[4])wm, NULL, NULL, abc, abc + n,
					  abc + 2 * n, 7) == 0);
		for (int t = 1; t <= 16; t *= 4) {
			bad = UINT32_MAX;
			int got = zka_abc_check_ab(&cs, &mx, (const uint64_t(*)[4])abc,
						   (const uint64_t(*)[4])(abc + n),
						   (const uint64_t(*)[4])wm, 0, t, &bad);
			CU_ASSERT(got == ref);
			if (ref == 1)
				CU_ASSERT(bad == bad2);
			got = check_std(&cs, &mx, &w, t, &bad);
			CU_ASSERT(got == ref);
			if (ref == 1)
				CU_ASSERT(bad == bad2);
		}
		/* a circuit that does not fit the key */
		cs.n_wires++;
		CU_ASSERT(zka_abc_check_ab(&cs, &mx, (const uint64_t(*)[4])abc,
					   (const uint64_t(*)[4])(abc + n),
					   (const uint64_t(*)[4])wm, 0, 1, &bad) == -EINVAL);
		cs.n_wires--;
		free(abc);
		free(wm);
		zka_abc_free(&mx);
		free(pk.coefs);
		zka_r1cs_free(&cs);
		zka_witness_free(&w);
	}
}

int main(void)
{
	static const zka_test_case cases[] = {
	    {"random keys, 1..16 threads", test_random_keys},
	    {"bad coefficients and damaged matrices", test_bad_coefficients},
	    {"circom fixtures", test_circom_fixtures},
	    {"witness files", test_witness_file},
	    {"satisfiability check on c", test_check_c},
	    {NULL, NULL}};
	zka_test_suite("abc", cases);
	return zka_test_run();
}
