/* gpu_test.c - the GPU prover against the host templates and the CPU prover, on fresh random
 * inputs every run. A plain program (no CUnit: the GPU machine has none); exits 0 when every
 * check passed, 1 otherwise, and 0 with "SKIP: no CUDA device" where there is no GPU.
 *   gpu_test [quick]      (quick: smaller sizes) */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "cuda/zka_gpu_test.h"
#include "zk/abc.h"
#include "zk/bls12_381.h"
#include "zk/bn254.h"
#include "zk/r1cs.h"
#include "zk/setup.h"
#include "zk/synthetic.h"

static int failures, checks;
static zka_gpu *G;
static char err[512];
static int quick;
/* the MSM path under test: window tables (1), windowed (0), window tables whose allocation
 * fails (2: ZKG_FAIL_TABLE_ALLOC, the key must fall back to windowed and say why), or tables
 * built after the key load (3: DEFERRED, proofs before, racing and after the build; 4:
 * BACKGROUND, whichever path a proof takes), or streamed keys (5: zka_gpu_set_stream_chunk;
 * 6: chosen by the memory check, see auto_mode) */
static int precomp = 1;
/* the proofs' witness: percent of 0 and of 1 values (the rest full-width random) */
static int wit_zero = 30, wit_one = 30;
static int want_split = -1; /* >= 0: the proofs' witness MSMs must (1) or must not (0) split */
/* with window tables: the copies per point set the key's mode line must name (0: any), from
 * the table budget under test (zka_gpu_set_table_budget) */
static int want_copies;
#define WANT_OOM "windowed MSM: allocating the window tables"
/* streamed keys and MSMs (5): every set from host memory in chunks of STREAM_CHUNK points, an
 * odd size so that chunks end anywhere (and C's zero points fall in the first) */
#define STREAM_CHUNK 333
#define WANT_STREAMED "streamed MSM (forced: chunks of 333 points)"
/* streamed by key_load's memory check (6: ZKG_FREE_BYTES pretends little free memory):
 * auto_mode 1 when the key's mode says so, 0 when it loaded otherwise, 2 when refused */
#define WANT_AUTO "streamed MSM: the key's points"
static int auto_mode;
static char last_mode[400];

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		checks++;                                                                          \
		if (!(cond)) {                                                                     \
			failures++;                                                                \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);                                \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		}                                                                                  \
	} while (0)
#define OK(call)                                                                                   \
	do {                                                                                       \
		int rc_ = (call);                                                                  \
		CHECK(rc_ == 0, "%s -> %d: %s", #call, rc_, err);                                  \
	} while (0)

static zka_gpu *G_B; /* a second context on the same device: proves with G's keys */

typedef struct {
	zka_gpu *g;
	zka_gpu_key *key;
	const uint64_t (*a)[4], (*b)[4], (*c)[4], (*w)[4];
	const zka_rs *rs;
	zka_proof pf;
	int rc;
	char err[256];
} par_job;

static void *par_run(void *arg)
{
	par_job *j = arg;
	j->rc = zka_gpu_prove(j->g, j->key, j->a, j->b, j->c, j->w, j->rs, &j->pf, NULL, j->err,
			      sizeof j->err);
	return NULL;
}

/* Proves twice at the same time with one key, on G and on G_B (two threads); returns how many
 * of the two proofs equal want. */
static int prove_pair(zka_gpu_key *key, const void *a, const void *b, const void *c, const void *w,
		      const zka_rs *rs, const zka_proof *want, size_t n8q)
{
	par_job j[2];
	pthread_t th[2];
	int same = 0;
	for (int i = 0; i < 2; i++) {
		memset(&j[i], 0, sizeof j[i]);
		j[i].g = i ? G_B : G;
		j[i].key = key;
		j[i].a = a;
		j[i].b = b;
		j[i].c = c;
		j[i].w = w;
		j[i].rs = rs;
		if (pthread_create(&th[i], NULL, par_run, &j[i]))
			return -1;
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		CHECK(j[i].rc == 0, "concurrent prove on context %d: %s", i, j[i].err);
		same += !j[i].rc && !memcmp(j[i].pf.a, want->a, 2 * n8q) &&
			!memcmp(j[i].pf.b, want->b, 4 * n8q) &&
			!memcmp(j[i].pf.c, want->c, 2 * n8q);
	}
	return same;
}

static void rnd(void *buf, size_t n)
{
	uint8_t *p = buf;
	while (n) {
		ssize_t k = getrandom(p, n > 33554431 ? 33554431 : n, 0);
		if (k <= 0)
			abort();
		p += k;
		n -= (size_t)k;
	}
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* random integer < m (nl limbs), by rejection on the modulus' bit length */
static void rnd_mod(uint64_t *x, const uint64_t *m, int nl)
{
	int top = 63;
	while (!((m[nl - 1] >> top) & 1))
		top--;
	uint64_t mask = top == 63 ? ~0ull : ((1ull << (top + 1)) - 1);
	for (;;) {
		rnd(x, 8 * (size_t)nl);
		x[nl - 1] &= mask;
		int lt = 0;
		for (int i = nl - 1; i >= 0; i--) {
			if (x[i] != m[i]) {
				lt = x[i] < m[i];
				break;
			}
		}
		if (lt)
			return;
	}
}

/* Everything per curve: Q lower-case prefix, CC constants prefix, CV the zka_curve */
#define CURVE_TESTS(Q, CC, CV)                                                                     \
	static void Q##_fr_rand(Q##_fr_t *x)                                                       \
	{                                                                                          \
		rnd_mod(x->v, CC##_FR_P, 4);                                                       \
	}                                                                                          \
	static void Q##_fq_rand(Q##_fq_t *x)                                                       \
	{                                                                                          \
		rnd_mod(x->v, CC##_FQ_P, sizeof(x->v) / 8);                                        \
	}                                                                                          \
                                                                                                   \
	static void Q##_test_fields(void)                                                          \
	{                                                                                          \
		size_t n = 4096;                                                                   \
		for (int field = 0; field < 3; field++) {                                          \
			size_t es = field == 0	 ? sizeof(Q##_fr_t)                                \
				    : field == 1 ? sizeof(Q##_fq_t)                                \
						 : sizeof(Q##_fq2_t);                              \
			uint8_t *a = malloc(n * es), *b = malloc(n * es), *o = malloc(n * es),     \
				*want = malloc(n * es);                                            \
			for (size_t i = 0; i < n; i++) {                                           \
				if (field == 0) {                                                  \
					Q##_fr_rand((Q##_fr_t *)(a + i * es));                     \
					Q##_fr_rand((Q##_fr_t *)(b + i * es));                     \
				} else {                                                           \
					for (size_t h = 0; h < es; h += sizeof(Q##_fq_t)) {        \
						Q##_fq_rand((Q##_fq_t *)(a + i * es + h));         \
						Q##_fq_rand((Q##_fq_t *)(b + i * es + h));         \
					}                                                          \
				}                                                                  \
			}                                                                          \
			/* edge values: 0, 1 (Montgomery), p-1; (p-1, p-1) at 3; for Fr also 1 as  \
			 * b */                                                                    \
			memset(a, 0, es);                                                          \
			if (field == 0) {                                                          \
				Q##_fr_one((Q##_fr_t *)(a + es));                                  \
				Q##_fr_t m1;                                                       \
				Q##_fr_one(&m1);                                                   \
				Q##_fr_neg(&m1, &m1);                                              \
				memcpy(b + 2 * es, &m1, es);                                       \
				memcpy(a + 3 * es, &m1, es);                                       \
				memcpy(b + 3 * es, &m1, es);                                       \
				Q##_fr_one((Q##_fr_t *)(b + 4 * es));                              \
			} else {                                                                   \
				Q##_fq_one((Q##_fq_t *)(a + es));                                  \
				Q##_fq_t m1;                                                       \
				Q##_fq_one(&m1);                                                   \
				Q##_fq_neg(&m1, &m1);                                              \
				memcpy(b + 2 * es, &m1, sizeof m1);                                \
				memcpy(a + 3 * es, &m1, sizeof m1); /* op 8: p-1 + p-1 = 2p-2 */   \
				memcpy(b + 3 * es, &m1, sizeof m1);                                \
			}                                                                          \
			for (int op = 0; op < 9; op++) {                                           \
				if ((op == 5 && field == 2) || (op == 6 && field != 0) ||          \
				    (op == 7 && field == 2) || (op == 8 && field != 1))            \
					continue;                                                  \
				size_t nn = op == 4 ? 512 : n;                                     \
				memset(o, 0xa5, n *es);                                            \
				OK(zka_gpu_field_op(G, &CV, field, op, a, b, o, nn, err,           \
						    sizeof err));                                  \
				for (size_t i = 0; i < nn; i++) {                                  \
					void *x = a + i * es, *y = b + i * es, *r = want + i * es; \
					size_t j =                                                 \
					    i + 1 == nn ? 0 : i + 1; /* op 7's second pair */      \
					void *x2 = a + j * es, *y2 = b + j * es;                   \
					if (field == 0) {                                          \
						switch (op) {                                      \
						case 0:                                            \
							Q##_fr_add(r, x, y);                       \
							break;                                     \
						case 1:                                            \
							Q##_fr_sub(r, x, y);                       \
							break;                                     \
						case 2:                                            \
							Q##_fr_mul(r, x, y);                       \
							break;                                     \
						case 3:                                            \
							Q##_fr_sqr(r, x);                          \
							break;                                     \
						case 4:                                            \
							Q##_fr_inv(r, x);                          \
							break;                                     \
						case 5:                                            \
							Q##_fr_from_mont(r, x);                    \
							break;                                     \
						case 6:                                            \
							Q##_fr_mul(r, x, y);                       \
							break;                                     \
						case 7: {                                          \
							Q##_fr_t t;                                \
							Q##_fr_mul(r, x, y);                       \
							Q##_fr_mul(&t, x2, y2);                    \
							Q##_fr_add(r, r, &t);                      \
							break;                                     \
						}                                                  \
						}                                                  \
					} else if (field == 1) {                                   \
						switch (op) {                                      \
						case 0:                                            \
							Q##_fq_add(r, x, y);                       \
							break;                                     \
						case 1:                                            \
							Q##_fq_sub(r, x, y);                       \
							break;                                     \
						case 2:                                            \
							Q##_fq_mul(r, x, y);                       \
							break;                                     \
						case 3:                                            \
							Q##_fq_sqr(r, x);                          \
							break;                                     \
						case 4:                                            \
							Q##_fq_inv(r, x);                          \
							break;                                     \
						case 5:                                            \
							Q##_fq_from_mont(r, x);                    \
							break;                                     \
						case 7: {                                          \
							Q##_fq_t t;                                \
							Q##_fq_mul(r, x, y);                       \
							Q##_fq_mul(&t, x2, y2);                    \
							Q##_fq_add(r, r, &t);                      \
							break;                                     \
						}                                                  \
						case 8: {                                          \
							Q##_fq_t s;                                \
							Q##_fq_add(&s, x, y);                      \
							Q##_fq_sqr(r, &s);                         \
							break;                                     \
						}                                                  \
						}                                                  \
					} else {                                                   \
						switch (op) {                                      \
						case 0:                                            \
							Q##_fq2_add(r, x, y);                      \
							break;                                     \
						case 1:                                            \
							Q##_fq2_sub(r, x, y);                      \
							break;                                     \
						case 2:                                            \
							Q##_fq2_mul(r, x, y);                      \
							break;                                     \
						case 3:                                            \
							Q##_fq2_sqr(r, x);                         \
							break;                                     \
						case 4:                                            \
							Q##_fq2_inv(r, x);                         \
							break;                                     \
						}                                                  \
					}                                                          \
				}                                                                  \
				size_t bad = 0;                                                    \
				for (size_t i = 0; i < nn; i++)                                    \
					bad += memcmp(o + i * es, want + i * es, es) != 0;         \
				CHECK(bad == 0, "%s field %d op %d: %zu of %zu differ", #Q, field, \
				      op, bad, nn);                                                \
			}                                                                          \
			free(a);                                                                   \
			free(b);                                                                   \
			free(o);                                                                   \
			free(want);                                                                \
		}                                                                                  \
	}                                                                                          \
                                                                                                   \
	/* reference DFT: natural order, O(n^2) for small n, radix-2 otherwise */                  \
	static void Q##_root(Q##_fr_t *w, uint32_t logn)                                           \
	{                                                                                          \
		memcpy(w->v, CC##_FR_ROOT, 32);                                                    \
		for (uint32_t i = 0; i < CC##_FR_S - logn; i++)                                    \
			Q##_fr_sqr(w, w);                                                          \
	}                                                                                          \
	static void Q##_root_k(Q##_fr_t *w, uint32_t logn, uint32_t kind);                         \
	/* the transform over the domain of root family kind (ZKA_ROOT_*) */                       \
	static void Q##_cpu_ntt_k(Q##_fr_t *x, uint32_t logn, int inverse, uint32_t kind)          \
	{                                                                                          \
		size_t n = (size_t)1 << logn;                                                      \
		for (size_t i = 0; i < n; i++) {                                                   \
			size_t j = 0;                                                              \
			for (uint32_t b = 0; b < logn; b++)                                        \
				j |= ((i >> b) & 1) << (logn - 1 - b);                             \
			if (i < j) {                                                               \
				Q##_fr_t t = x[i];                                                 \
				x[i] = x[j];                                                       \
				x[j] = t;                                                          \
			}                                                                          \
		}                                                                                  \
		for (uint32_t s = 1; s <= logn; s++) {                                             \
			size_t m = (size_t)1 << s;                                                 \
			Q##_fr_t wm;                                                               \
			Q##_root_k(&wm, s, kind);                                                  \
			if (inverse)                                                               \
				Q##_fr_inv(&wm, &wm);                                              \
			for (size_t k = 0; k < n; k += m) {                                        \
				Q##_fr_t w;                                                        \
				Q##_fr_one(&w);                                                    \
				for (size_t j = 0; j < m / 2; j++) {                               \
					Q##_fr_t t, u = x[k + j];                                  \
					Q##_fr_mul(&t, &w, &x[k + j + m / 2]);                     \
					Q##_fr_add(&x[k + j], &u, &t);                             \
					Q##_fr_sub(&x[k + j + m / 2], &u, &t);                     \
					Q##_fr_mul(&w, &w, &wm);                                   \
				}                                                                  \
			}                                                                          \
		}                                                                                  \
		if (inverse) {                                                                     \
			Q##_fr_t ni;                                                               \
			Q##_fr_from_u64(&ni, n);                                                   \
			Q##_fr_inv(&ni, &ni);                                                      \
			for (size_t i = 0; i < n; i++)                                             \
				Q##_fr_mul(&x[i], &x[i], &ni);                                     \
		}                                                                                  \
	}                                                                                          \
	static void Q##_cpu_ntt(Q##_fr_t *x, uint32_t logn, int inverse)                           \
	{                                                                                          \
		Q##_cpu_ntt_k(x, logn, inverse, ZKA_ROOT_SNARKJS);                                 \
	}                                                                                          \
	/* the primitive 2^logn-th root of root family kind (ZKA_ROOT_*): Q##_root for snarkjs's,  \
	 * else the CPU prover's zka_domain_root */                                                \
	static void Q##_root_k(Q##_fr_t *w, uint32_t logn, uint32_t kind)                          \
	{                                                                                          \
		if (!kind) {                                                                       \
			Q##_root(w, logn);                                                         \
			return;                                                                    \
		}                                                                                  \
		uint64_t o[4];                                                                     \
		if (zka_domain_root(&CV, (int)logn, kind, o))                                      \
			abort(); /* a family the curve lacks: the caller's bug */                  \
		memcpy(w->v, o, 32);                                                               \
	}                                                                                          \
	/* The monomial H of a, b, c (Montgomery evaluations over the domain of root family        \
	 * kind; overwritten), computed another way than the provers: each to coefficients,        \
	 * times inc^j, forward (the coset inc w^i, inc the family's primitive 2n-th root),        \
	 * e = a b - c there, e to coefficients (with 1/n), coefficient j times -inc^-j / 2        \
	 * (the division by X^n - 1 = -2, the shift undone). h: the n coefficients, standard       \
	 * form. */                                                                                \
	static void Q##_ref_hmono(Q##_fr_t *v[3], Q##_fr_t *h, uint32_t logn, uint32_t kind)       \
	{                                                                                          \
		size_t n = (size_t)1 << logn;                                                      \
		Q##_fr_t inc, ginv, p;                                                             \
		Q##_root_k(&inc, logn + 1, kind);                                                  \
		for (int k = 0; k < 3; k++) {                                                      \
			Q##_cpu_ntt_k(v[k], logn, 1, kind);                                        \
			Q##_fr_one(&p);                                                            \
			for (size_t i = 0; i < n; i++) {                                           \
				Q##_fr_mul(&v[k][i], &v[k][i], &p);                                \
				Q##_fr_mul(&p, &p, &inc);                                          \
			}                                                                          \
			Q##_cpu_ntt_k(v[k], logn, 0, kind);                                        \
		}                                                                                  \
		for (size_t i = 0; i < n; i++) {                                                   \
			Q##_fr_mul(&h[i], &v[0][i], &v[1][i]);                                     \
			Q##_fr_sub(&h[i], &h[i], &v[2][i]);                                        \
		}                                                                                  \
		Q##_cpu_ntt_k(h, logn, 1, kind);                                                   \
		Q##_fr_inv(&ginv, &inc);                                                           \
		Q##_fr_from_u64(&p, 2);                                                            \
		Q##_fr_inv(&p, &p);                                                                \
		Q##_fr_neg(&p, &p);                                                                \
		for (size_t i = 0; i < n; i++) {                                                   \
			Q##_fr_mul(&h[i], &h[i], &p);                                              \
			Q##_fr_mul(&p, &p, &ginv);                                                 \
			Q##_fr_from_mont(&h[i], &h[i]);                                            \
		}                                                                                  \
	}                                                                                          \
	/* p(z) for coefficients x (Montgomery), Horner */                                         \
	static void Q##_horner(Q##_fr_t *out, const Q##_fr_t *x, size_t n, const Q##_fr_t *z)      \
	{                                                                                          \
		Q##_fr_zero(out);                                                                  \
		for (size_t i = n; i-- > 0;) {                                                     \
			Q##_fr_mul(out, out, z);                                                   \
			Q##_fr_add(out, out, &x[i]);                                               \
		}                                                                                  \
	}                                                                                          \
	/* One case of Q##_test_hmono: 2^logn, root family kind, sat: c = a .* b. Prints its line  \
	 * ("PASS" or "FAIL"). */                                                                  \
	static void Q##_hmono_case(uint32_t logn, uint32_t kind, int sat)                          \
	{                                                                                          \
		int f0 = failures;                                                                 \
		size_t n = (size_t)1 << logn;                                                      \
		Q##_fr_t *v[3], *w[3], *h = malloc(n * 32), *r = malloc(n * 32);                   \
		for (int k = 0; k < 3; k++) {                                                      \
			v[k] = malloc(n * 32);                                                     \
			w[k] = malloc(n * 32);                                                     \
			for (size_t i = 0; i < n; i++)                                             \
				Q##_fr_rand(&v[k][i]);                                             \
		}                                                                                  \
		for (size_t i = 0; sat && i < n; i++)                                              \
			Q##_fr_mul(&v[2][i], &v[0][i], &v[1][i]);                                  \
		for (int k = 0; k < 3; k++)                                                        \
			memcpy(w[k], v[k], n * 32);                                                \
		OK(zka_gpu_h_kind(G, &CV, logn, ZKA_H_MONOMIAL, kind, (const uint64_t(*)[4])v[0],  \
				  (const uint64_t(*)[4])v[1], (const uint64_t(*)[4])v[2],          \
				  (uint64_t(*)[4])h, err, sizeof err));                            \
		Q##_ref_hmono(w, r, logn, kind);                                                   \
		size_t bad = 0;                                                                    \
		for (size_t i = 0; i < n; i++)                                                     \
			bad += memcmp(&h[i], &r[i], 32) != 0;                                      \
		CHECK(bad == 0, "%s: monomial H, roots %u, 2^%u: %zu of %zu differ", #Q, kind,     \
		      logn, bad, n);                                                               \
		if (sat) { /* h[n-1] = 0 and h(z) (z^n - 1) = A(z) B(z) - C(z) */                  \
			Q##_fr_t z, zn, t, ab[3], hz;                                              \
			static const uint8_t zero[32];                                             \
			CHECK(!memcmp(&h[n - 1], zero, 32),                                        \
			      "%s: monomial H, roots %u, 2^%u: h[n-1]", #Q, kind, logn);           \
			Q##_fr_rand(&z);                                                           \
			for (int k = 0; k < 3; k++) {                                              \
				memcpy(w[k], v[k], n * 32);                                        \
				Q##_cpu_ntt_k(w[k], logn, 1, kind);                                \
				Q##_horner(&ab[k], w[k], n, &z);                                   \
			}                                                                          \
			for (size_t i = 0; i < n; i++)                                             \
				Q##_fr_to_mont(&r[i], &h[i]);                                      \
			Q##_horner(&hz, r, n, &z);                                                 \
			uint64_t e = n;                                                            \
			Q##_fr_pow(&zn, &z, &e, 1);                                                \
			Q##_fr_one(&t);                                                            \
			Q##_fr_sub(&zn, &zn, &t);                                                  \
			Q##_fr_mul(&hz, &hz, &zn);                                                 \
			Q##_fr_mul(&t, &ab[0], &ab[1]);                                            \
			Q##_fr_sub(&t, &t, &ab[2]);                                                \
			CHECK(!memcmp(&t, &hz, 32),                                                \
			      "%s: monomial H, roots %u, 2^%u: not the quotient", #Q, kind, logn); \
		}                                                                                  \
		printf("  %s monomial H (zka_gpu_h_kind), roots %s, 2^%u, %s: %s\n", #Q,           \
		       kind ? "GEN7" : "snarkjs", logn,                                            \
		       sat ? "c = a b, quotient checked" : "random a, b, c",                       \
		       failures == f0 ? "PASS" : "FAIL");                                          \
		for (int k = 0; k < 3; k++) {                                                      \
			free(v[k]);                                                                \
			free(w[k]);                                                                \
		}                                                                                  \
		free(h);                                                                           \
		free(r);                                                                           \
	}                                                                                          \
	/* Monomial-H keys' H on the device (zka_gpu_h_kind, ZKA_H_MONOMIAL) for each root family  \
	 * of the curve (snarkjs's; BLS12-381 also GEN7) at 2^1, 2^4, 2^11 (one pass a transform)  \
	 * and 2^17 (three; full runs only): random a, b, c against Q##_ref_hmono, field element   \
	 * for field element; then c = a .* b (A B - C vanishes on the domain): the same, and      \
	 * h[n-1] = 0 and h(z) (z^n - 1) = A(z) B(z) - C(z) at a random z. */                      \
	static void Q##_test_hmono(void)                                                           \
	{                                                                                          \
		uint32_t hs[] = {1, 4, 11, 17}, nk = CV.id == ZKA_BLS12_381 ? 2 : 1;               \
		Q##_fr_t a, b; /* the test's snarkjs roots are the CPU prover's family 0 */        \
		Q##_root(&a, 11);                                                                  \
		zka_domain_root(&CV, 11, ZKA_ROOT_SNARKJS, b.v);                                   \
		CHECK(!memcmp(&a, &b, 32), "%s: the test's root != zka_domain_root's", #Q);        \
		for (uint32_t kind = 0; kind < nk; kind++)                                         \
			for (size_t si = 0; si < sizeof hs / sizeof hs[0]; si++)                   \
				for (int sat = 0; sat < 2; sat++)                                  \
					if (!quick || hs[si] <= 11)                                \
						Q##_hmono_case(hs[si], kind, sat);                 \
	}                                                                                          \
	static void Q##_naive_dft(Q##_fr_t *out, const Q##_fr_t *x, uint32_t logn)                 \
	{                                                                                          \
		size_t n = (size_t)1 << logn;                                                      \
		Q##_fr_t w;                                                                        \
		Q##_root(&w, logn);                                                                \
		for (size_t k = 0; k < n; k++) {                                                   \
			Q##_fr_t acc, wk, p;                                                       \
			Q##_fr_zero(&acc);                                                         \
			uint64_t e = k;                                                            \
			Q##_fr_pow(&wk, &w, &e, 1);                                                \
			Q##_fr_one(&p);                                                            \
			for (size_t j = 0; j < n; j++) {                                           \
				Q##_fr_t t;                                                        \
				Q##_fr_mul(&t, &x[j], &p);                                         \
				Q##_fr_add(&acc, &acc, &t);                                        \
				Q##_fr_mul(&p, &p, &wk);                                           \
			}                                                                          \
			out[k] = acc;                                                              \
		}                                                                                  \
	}                                                                                          \
	static void Q##_test_ntt(void)                                                             \
	{                                                                                          \
		/* the CPU reference itself against the O(n^2) definition */                       \
		{                                                                                  \
			Q##_fr_t x[32], y[32], z[32];                                              \
			for (int i = 0; i < 32; i++)                                               \
				Q##_fr_rand(&x[i]);                                                \
			memcpy(y, x, sizeof x);                                                    \
			Q##_cpu_ntt(y, 5, 0);                                                      \
			Q##_naive_dft(z, x, 5);                                                    \
			CHECK(!memcmp(y, z, sizeof y), "%s: reference radix-2 NTT != DFT", #Q);    \
		}                                                                                  \
		/* 17 and 20: three passes over global memory (the largest twiddle strides) */     \
		uint32_t sizes[] = {1, 2, 5, 10, 13, 16, 17, 20};                                  \
		for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {                   \
			uint32_t logn = sizes[si];                                                 \
			if (quick && logn > 17)                                                    \
				continue;                                                          \
			size_t n = (size_t)1 << logn;                                              \
			Q##_fr_t *x = malloc(n * 32), *y = malloc(n * 32), *z = malloc(n * 32);    \
			for (size_t i = 0; i < n; i++)                                             \
				Q##_fr_rand(&x[i]);                                                \
			for (int inv = 0; inv < 2; inv++) {                                        \
				memcpy(y, x, n * 32);                                              \
				memcpy(z, x, n * 32);                                              \
				OK(zka_gpu_ntt(G, &CV, logn, (uint64_t(*)[4])y, inv, NULL, err,    \
					       sizeof err));                                       \
				Q##_cpu_ntt(z, logn, inv);                                         \
				CHECK(!memcmp(y, z, n * 32), "%s: NTT 2^%u inverse=%d differs",    \
				      #Q, logn, inv);                                              \
			}                                                                          \
			free(x);                                                                   \
			free(y);                                                                   \
			free(z);                                                                   \
		}                                                                                  \
		/* H: inverse NTT, coset by inc^j, NTT, a*b-c, out of Montgomery */                \
		uint32_t hs[] = {1, 4, 11, 17}; /* 17: three passes per transform (full only) */   \
		for (size_t si = 0; si < 4; si++) {                                                \
			uint32_t logn = hs[si];                                                    \
			if (quick && logn > 11)                                                    \
				continue;                                                          \
			size_t n = (size_t)1 << logn;                                              \
			Q##_fr_t *v[3], *h = malloc(n * 32), inc, p;                               \
			for (int k = 0; k < 3; k++) {                                              \
				v[k] = malloc(n * 32);                                             \
				for (size_t i = 0; i < n; i++)                                     \
					Q##_fr_rand(&v[k][i]);                                     \
			}                                                                          \
			OK(zka_gpu_h(G, &CV, logn, (const uint64_t(*)[4])v[0],                     \
				     (const uint64_t(*)[4])v[1], (const uint64_t(*)[4])v[2],       \
				     (uint64_t(*)[4])h, err, sizeof err));                         \
			Q##_root(&inc, logn + 1);                                                  \
			for (int k = 0; k < 3; k++) {                                              \
				Q##_cpu_ntt(v[k], logn, 1);                                        \
				Q##_fr_one(&p);                                                    \
				for (size_t i = 0; i < n; i++) {                                   \
					Q##_fr_mul(&v[k][i], &v[k][i], &p);                        \
					Q##_fr_mul(&p, &p, &inc);                                  \
				}                                                                  \
				Q##_cpu_ntt(v[k], logn, 0);                                        \
			}                                                                          \
			size_t bad = 0;                                                            \
			for (size_t i = 0; i < n; i++) {                                           \
				Q##_fr_t t;                                                        \
				Q##_fr_mul(&t, &v[0][i], &v[1][i]);                                \
				Q##_fr_sub(&t, &t, &v[2][i]);                                      \
				Q##_fr_from_mont(&t, &t);                                          \
				bad += memcmp(&t, &h[i], 32) != 0;                                 \
			}                                                                          \
			CHECK(bad == 0, "%s: H at 2^%u: %zu of %zu differ", #Q, logn, bad, n);     \
			for (int k = 0; k < 3; k++)                                                \
				free(v[k]);                                                        \
			free(h);                                                                   \
		}                                                                                  \
	}                                                                                          \
                                                                                                   \
	/* points P_i = k'_i G made by the GPU's fixed-base path (a sample checked on the host),   \
	 * so sum k_i P_i = (sum k_i k'_i) G needs one host scalar multiplication */               \
	static void Q##_std_scalars(uint64_t(*k)[4], size_t n, int zero_pct, int one_pct)          \
	{                                                                                          \
		for (size_t i = 0; i < n; i++) {                                                   \
			uint32_t t;                                                                \
			rnd(&t, 4);                                                                \
			t %= 100;                                                                  \
			memset(k[i], 0, 32);                                                       \
			if ((int)t < zero_pct)                                                     \
				;                                                                  \
			else if ((int)t < zero_pct + one_pct)                                      \
				k[i][0] = 1;                                                       \
			else                                                                       \
				rnd_mod(k[i], CC##_FR_P, 4);                                       \
		}                                                                                  \
	}                                                                                          \
	static int Q##_make_points(int g2, uint64_t(*kp)[4], size_t n, void *pts)                  \
	{                                                                                          \
		int rc;                                                                            \
		if (!g2) {                                                                         \
			Q##_g1_aff g;                                                              \
			Q##_g1_gen(&g);                                                            \
			rc = zka_gpu_fixed_base_g1(G, &CV, &g, (const uint64_t(*)[4])kp, n, pts,   \
						   err, sizeof err);                               \
		} else {                                                                           \
			Q##_g2_aff g;                                                              \
			Q##_g2_gen(&g);                                                            \
			rc = zka_gpu_fixed_base_g2(G, &CV, &g, (const uint64_t(*)[4])kp, n, pts,   \
						   err, sizeof err);                               \
		}                                                                                  \
		CHECK(rc == 0, "fixed base: %s", err);                                             \
		if (rc)                                                                            \
			return rc;                                                                 \
		size_t bad = 0;                                                                    \
		for (size_t s = 0; s < n && s < 8; s++) {                                          \
			size_t i = s == 0 ? 0 : (size_t)rand() % n;                                \
			if (!g2) {                                                                 \
				Q##_g1_aff g, a;                                                   \
				Q##_g1_jac j;                                                      \
				Q##_g1_gen(&g);                                                    \
				Q##_g1_from_aff(&j, &g);                                           \
				Q##_g1_mul(&j, &j, kp[i], 4);                                      \
				Q##_g1_to_aff(&a, &j);                                             \
				bad += memcmp(&a, (char *)pts + i * sizeof a, sizeof a) != 0;      \
			} else {                                                                   \
				Q##_g2_aff g, a;                                                   \
				Q##_g2_jac j;                                                      \
				Q##_g2_gen(&g);                                                    \
				Q##_g2_from_aff(&j, &g);                                           \
				Q##_g2_mul(&j, &j, kp[i], 4);                                      \
				Q##_g2_to_aff(&a, &j);                                             \
				bad += memcmp(&a, (char *)pts + i * sizeof a, sizeof a) != 0;      \
			}                                                                          \
		}                                                                                  \
		CHECK(bad == 0, "%s: fixed-base g%d: %zu sampled points differ", #Q, g2 + 1, bad); \
		return bad ? -1 : 0;                                                               \
	}                                                                                          \
	static void Q##_test_msm(int g2)                                                           \
	{                                                                                          \
		size_t sizes[] = {1, 7, 100, 1000, 4097, 70001, 300000, 6001, 20000};              \
		int pcts[][2] = {{0, 0},   {60, 30}, {0, 0}, {30, 10}, {0, 0},                     \
				 {50, 40}, {10, 10}, {5, 5}, {0, 0}};                              \
		size_t ns = sizeof sizes / sizeof sizes[0];                                        \
		size_t ab = g2 ? sizeof(Q##_g2_aff) : sizeof(Q##_g1_aff);                          \
		for (size_t si = 0; si < ns; si++) {                                               \
			size_t n = sizes[si];                                                      \
			if (quick && n > 50000)                                                    \
				continue;                                                          \
			uint64_t(*kp)[4] = malloc(n * 32), (*k)[4] = malloc(n * 32);               \
			void *pts = malloc(n * ab);                                                \
			uint8_t out[192];                                                          \
			Q##_std_scalars(kp, n, 0, 0);                                              \
			if (si == 4) /* many equal points: buckets hit the doubling case */        \
				for (size_t i = 1; i < n; i++)                                     \
					memcpy(kp[i], kp[i % 3], 32);                              \
			Q##_std_scalars(k, n, pcts[si][0], pcts[si][1]);                           \
			if (si == 7) { /* P, -P, P, ..: one big bucket whose additions cancel and  \
					  double */                                                \
				Q##_fr_t z, a;                                                     \
				Q##_fr_zero(&z);                                                   \
				memcpy(a.v, kp[0], 32);                                            \
				Q##_fr_sub(&a, &z, &a);                                            \
				for (size_t i = 1; i < n; i++) {                                   \
					memcpy(kp[i], (i & 1) ? a.v : kp[0], 32);                  \
					if (k[i][1] | k[i][2] | k[i][3] || k[i][0] > 1) {          \
						uint32_t t;                                        \
						rnd(&t, 4);                                        \
						if (t % 10 < 7) { /* 70%: the scalar 3 */          \
							memset(k[i], 0, 32);                       \
							k[i][0] = 3;                               \
						}                                                  \
					}                                                          \
				}                                                                  \
			}                                                                          \
			if (si == 8) /* every scalar 2: all entries in one bucket (the big-bucket  \
					path) */                                                   \
				for (size_t i = 0; i < n; i++) {                                   \
					memset(k[i], 0, 32);                                       \
					k[i][0] = 2;                                               \
				}                                                                  \
			if (Q##_make_points(g2, kp, n, pts) == 0) {                                \
				if (si == 3) /* points at infinity (zero bytes), as in C's first   \
						entries */                                         \
					for (size_t i = 3; i < n; i += 7) {                        \
						memset((char *)pts + i * ab, 0, ab);               \
						memset(kp[i], 0, 32);                              \
					}                                                          \
				double t0 = now();                                                 \
				int rc = g2 ? zka_gpu_msm_g2(G, &CV, pts, (const uint64_t(*)[4])k, \
							     n, out, NULL, err, sizeof err)        \
					    : zka_gpu_msm_g1(G, &CV, pts, (const uint64_t(*)[4])k, \
							     n, out, NULL, err, sizeof err);       \
				double t1 = now();                                                 \
				CHECK(rc == 0, "msm: %s", err);                                    \
				/* e = sum k_i k'_i mod r */                                       \
				Q##_fr_t e, x, y;                                                  \
				Q##_fr_zero(&e);                                                   \
				for (size_t i = 0; i < n; i++) {                                   \
					memcpy(x.v, k[i], 32);                                     \
					memcpy(y.v, kp[i], 32);                                    \
					Q##_fr_to_mont(&x, &x);                                    \
					Q##_fr_mul(&x, &x, &y); /* (x R)(y) / R = x y, standard */ \
					Q##_fr_add(&e, &e, &x);                                    \
				}                                                                  \
				uint8_t want[192];                                                 \
				memset(want, 0, sizeof want);                                      \
				if (!g2) {                                                         \
					Q##_g1_aff g;                                              \
					Q##_g1_jac j;                                              \
					Q##_g1_gen(&g);                                            \
					Q##_g1_from_aff(&j, &g);                                   \
					Q##_g1_mul(&j, &j, e.v, 4);                                \
					Q##_g1_to_aff((Q##_g1_aff *)want, &j);                     \
				} else {                                                           \
					Q##_g2_aff g;                                              \
					Q##_g2_jac j;                                              \
					Q##_g2_gen(&g);                                            \
					Q##_g2_from_aff(&j, &g);                                   \
					Q##_g2_mul(&j, &j, e.v, 4);                                \
					Q##_g2_to_aff((Q##_g2_aff *)want, &j);                     \
				}                                                                  \
				CHECK(!memcmp(out, want, ab),                                      \
				      "%s: G%d MSM n=%zu (0s %d%%, 1s %d%%) wrong", #Q, g2 + 1, n, \
				      pcts[si][0], pcts[si][1]);                                   \
				printf("  %s G%d MSM n=%-7zu %s (%.1f ms incl. copies)\n", #Q,     \
				       g2 + 1, n, memcmp(out, want, ab) ? "FAIL" : "ok",           \
				       (t1 - t0) * 1e3);                                           \
			}                                                                          \
			free(kp);                                                                  \
			free(k);                                                                   \
			free(pts);                                                                 \
		}                                                                                  \
	}                                                                                          \
                                                                                                   \
	/* want = sum k_i P_i for P_i = kp_i G, as (sum k_i kp_i) G on the CPU */                  \
	static void Q##_msm_want(int g2, uint64_t(*kp)[4], uint64_t(*k)[4], size_t n,              \
				 uint8_t *want)                                                    \
	{                                                                                          \
		Q##_fr_t e, x, y;                                                                  \
		Q##_fr_zero(&e);                                                                   \
		for (size_t i = 0; i < n; i++) {                                                   \
			memcpy(x.v, k[i], 32);                                                     \
			memcpy(y.v, kp[i], 32);                                                    \
			Q##_fr_to_mont(&x, &x);                                                    \
			Q##_fr_mul(&x, &x, &y);                                                    \
			Q##_fr_add(&e, &e, &x);                                                    \
		}                                                                                  \
		memset(want, 0, 192);                                                              \
		if (!g2) {                                                                         \
			Q##_g1_aff g;                                                              \
			Q##_g1_jac j;                                                              \
			Q##_g1_gen(&g);                                                            \
			Q##_g1_from_aff(&j, &g);                                                   \
			Q##_g1_mul(&j, &j, e.v, 4);                                                \
			Q##_g1_to_aff((Q##_g1_aff *)want, &j);                                     \
		} else {                                                                           \
			Q##_g2_aff g;                                                              \
			Q##_g2_jac j;                                                              \
			Q##_g2_gen(&g);                                                            \
			Q##_g2_from_aff(&j, &g);                                                   \
			Q##_g2_mul(&j, &j, e.v, 4);                                                \
			Q##_g2_to_aff((Q##_g2_aff *)want, &j);                                     \
		}                                                                                  \
	}                                                                                          \
                                                                                                   \
	/* The 0/1 split (zka_gpu_set_split01) forced on (0) and off (2) on fresh random inputs,   \
	 * both against the CPU's sum and each other: 90% of the scalars 0/1, all 0, all 1, with   \
	 * sizes that are not powers of two (and one that is) */                                   \
	static void Q##_test_split(int g2)                                                         \
	{                                                                                          \
		size_t sizes[] = {1, 5, 1000, 4096, 6007, 70001, 300001};                          \
		int pcts[][2] = {{45, 45}, {100, 0}, {0, 100}, {80, 10}};                          \
		size_t ab = g2 ? sizeof(Q##_g2_aff) : sizeof(Q##_g1_aff);                          \
		for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {                   \
			size_t n = sizes[si];                                                      \
			if (quick && n > 10000)                                                    \
				continue;                                                          \
			uint64_t(*kp)[4] = malloc(n * 32), (*k)[4] = malloc(n * 32);               \
			void *pts = malloc(n * ab);                                                \
			Q##_std_scalars(kp, n, 0, 0);                                              \
			if (Q##_make_points(g2, kp, n, pts) == 0)                                  \
				for (size_t pi = 0; pi < sizeof pcts / sizeof pcts[0]; pi++) {     \
					Q##_std_scalars(k, n, pcts[pi][0], pcts[pi][1]);           \
					if (n > 100 && pi == 0) /* points at infinity, as in C's   \
								   first entries */                \
						for (size_t i = 2; i < n; i += 97) {               \
							memset((char *)pts + i * ab, 0, ab);       \
							memset(kp[i], 0, 32);                      \
						}                                                  \
					uint8_t want[192], out[2][192];                            \
					Q##_msm_want(g2, kp, k, n, want);                          \
					for (int f = 0; f < 2; f++) {                              \
						zka_gpu_set_split01(G, f ? 2.0 : 0.0);             \
						int rc =                                           \
						    g2 ? zka_gpu_msm_g2(                           \
							     G, &CV, pts, (const uint64_t(*)[4])k, \
							     n, out[f], NULL, err, sizeof err)     \
						       : zka_gpu_msm_g1(                           \
							     G, &CV, pts, (const uint64_t(*)[4])k, \
							     n, out[f], NULL, err, sizeof err);    \
						CHECK(rc == 0, "msm (split %s): %s",               \
						      f ? "off" : "on", err);                      \
						zka_gpu_times gt;                                  \
						zka_gpu_last_times(G, &gt);                        \
						CHECK(gt.msm_split == !f,                          \
						      "%s: G%d MSM n=%zu: msm_split %d with the "  \
						      "split %s",                                  \
						      #Q, g2 + 1, n, gt.msm_split,                 \
						      f ? "off" : "forced");                       \
						CHECK(!memcmp(out[f], want, ab),                   \
						      "%s: G%d MSM n=%zu (0s %d%%, 1s %d%%, "      \
						      "split %s) wrong",                           \
						      #Q, g2 + 1, n, pcts[pi][0], pcts[pi][1],     \
						      f ? "off" : "on");                           \
					}                                                          \
					printf("  %s G%d MSM n=%-7zu 0s %3d%% 1s %3d%%: split "    \
					       "%s, unsplit %s\n",                                 \
					       #Q, g2 + 1, n, pcts[pi][0], pcts[pi][1],            \
					       memcmp(out[0], want, ab) ? "FAIL" : "ok",           \
					       memcmp(out[1], want, ab) ? "FAIL" : "ok");          \
				}                                                                  \
			zka_gpu_set_split01(G, -1);                                                \
			free(kp);                                                                  \
			free(k);                                                                   \
			free(pts);                                                                 \
		}                                                                                  \
	}                                                                                          \
                                                                                                   \
	/* whole proofs: a synthetic key (random points, not a valid circuit key: equality with    \
	 * the CPU prover does not need one) and random a, b, c, w with many 0/1 witness values */ \
	static void Q##_test_prove(uint32_t logn, uint32_t n_vars, uint32_t n_public)              \
	{                                                                                          \
		zka_pk pk;                                                                         \
		memset(&pk, 0, sizeof pk);                                                         \
		pk.curve = &CV;                                                                    \
		pk.n_vars = n_vars;                                                                \
		pk.n_public = n_public;                                                            \
		pk.domain_size = 1u << logn;                                                       \
		pk.log_domain = logn;                                                              \
		size_t g1 = sizeof(Q##_g1_aff), g2 = sizeof(Q##_g2_aff), nd = pk.domain_size;      \
		zka_gpu_pin *kpin = NULL;                                                          \
		size_t nc = n_vars - n_public - 1;                                                 \
		size_t tot1 = 3 + 2 * (size_t)n_vars + nc + nd, tot2 = 3 + n_vars;                 \
		/* page-aligned: a registered key's pages hold nothing else (zka_gpu_pin_ranges)   \
		 */                                                                                \
		uint8_t *p1 = aligned_alloc(4096, (tot1 * g1 + 4095) & ~(size_t)4095),             \
			*p2 = aligned_alloc(4096, (tot2 * g2 + 4095) & ~(size_t)4095);             \
		uint64_t(*k1)[4] = malloc(tot1 * 32), (*k2)[4] = malloc(tot2 * 32);                \
		Q##_std_scalars(k1, tot1, 3, 2);                                                   \
		Q##_std_scalars(k2, tot2, 3, 2);                                                   \
		if (Q##_make_points(0, k1, tot1, p1) || Q##_make_points(1, k2, tot2, p2))          \
			goto out;                                                                  \
		pk.alpha1 = p1;                                                                    \
		pk.beta1 = p1 + g1;                                                                \
		pk.delta1 = p1 + 2 * g1;                                                           \
		pk.A = p1 + 3 * g1;                                                                \
		pk.B1 = pk.A + n_vars * g1;                                                        \
		pk.C = pk.B1 + n_vars * g1;                                                        \
		pk.H = pk.C + nc * g1;                                                             \
		pk.beta2 = p2;                                                                     \
		pk.gamma2 = p2 + g2;                                                               \
		pk.delta2 = p2 + 2 * g2;                                                           \
		pk.B2 = p2 + 3 * g2;                                                               \
		zka_gpu_key *key = NULL;                                                           \
		/* the key's points registered as gpud and prove --gpu register them: in pieces    \
		 * (ZKG_KEY_PIECE 64 KiB here: many of them), the upload's copies cut alike */     \
		if ((precomp == 1 || precomp == 5) && n_vars > 1000)                               \
			OK(zka_gpu_pin_key(G, &pk, &kpin, err, sizeof err));                       \
		int lrc = zka_gpu_key_load(G, &pk, &key, err, sizeof err);                         \
		if (precomp == 6 && lrc == -ENOMEM && strstr(err, "even streamed")) {              \
			auto_mode = 2; /* too little memory even streamed: said, nothing loaded */ \
			goto out;                                                                  \
		}                                                                                  \
		CHECK(lrc == 0, "zka_gpu_key_load -> %d: %s", lrc, err);                           \
		if (!key)                                                                          \
			goto out;                                                                  \
		if (precomp == 6) /* streamed by the memory check, or not */                       \
			auto_mode = !strncmp(zka_gpu_key_mode(key), WANT_AUTO, strlen(WANT_AUTO)); \
		snprintf(last_mode, sizeof last_mode, "%s", zka_gpu_key_mode(key));                \
		if (kpin) {                                                                        \
			zka_gpu_key_times kt;                                                      \
			zka_gpu_key_timing(key, &kt);                                              \
			CHECK(kt.pinned == 1, "%s: key uploaded from its registration: pinned %d", \
			      #Q, kt.pinned);                                                      \
		}                                                                                  \
		const char *want = precomp == 6			  ? zka_gpu_key_mode(key)          \
				   : precomp == 5		  ? WANT_STREAMED                  \
				   : precomp == 1 || precomp >= 3 ? "shared-bucket"                \
				   : precomp == 2		  ? WANT_OOM                       \
								  : "windowed";                                    \
		CHECK(!strncmp(zka_gpu_key_mode(key), want, strlen(want)),                         \
		      "%s: key mode \"%s\", expected \"%s...\"", #Q, zka_gpu_key_mode(key), want); \
		if (want_copies && precomp == 1) {                                                 \
			char cps[48];                                                              \
			snprintf(cps, sizeof cps, ", %d / %d copies of", want_copies,              \
				 want_copies);                                                     \
			CHECK(strstr(zka_gpu_key_mode(key), cps) != NULL,                          \
			      "%s: key mode \"%s\": expected \"%s\"", #Q, zka_gpu_key_mode(key),   \
			      cps);                                                                \
		}                                                                                  \
		/* DEFERRED: rep 0 before the build (windowed), rep 1 racing it (two contexts      \
		 * polling it at once), rep 2 after it (the tables) */                             \
		for (int rep = 0; rep < (precomp == 3 ? 3 : 2); rep++) {                           \
			int tstate = zka_gpu_key_tables(key, NULL, err, sizeof err);               \
			if (precomp == 3 && rep == 0)                                              \
				CHECK(tstate == ZKA_GPU_TABLES_BUILDING,                           \
				      "%s: deferred tables: state %d before the start", #Q,        \
				      tstate);                                                     \
			if (precomp == 3 && rep == 1)                                              \
				OK(zka_gpu_key_tables_start(key, err, sizeof err));                \
			if (precomp == 3 && rep == 2) {                                            \
				tstate = zka_gpu_key_tables_wait(key, err, sizeof err);            \
				double bs = -1;                                                    \
				CHECK(tstate == ZKA_GPU_TABLES_READY &&                            \
					  zka_gpu_key_tables(key, &bs, err, sizeof err) ==         \
					      ZKA_GPU_TABLES_READY &&                              \
					  bs > 0,                                                  \
				      "%s: deferred tables: state %d after the wait (build %g s)", \
				      #Q, tstate, bs);                                             \
			}                                                                          \
			Q##_fr_t *abc = malloc(3 * nd * 32), *cp = malloc(3 * nd * 32);            \
			uint64_t(*w)[4] = malloc(n_vars * 32);                                     \
			for (size_t i = 0; i < 3 * nd; i++)                                        \
				Q##_fr_rand(&abc[i]);                                              \
			Q##_std_scalars(w, n_vars, wit_zero, wit_one);                             \
			w[0][0] = 1;                                                               \
			memset(&w[0][1], 0, 24);                                                   \
			zka_rs rs;                                                                 \
			rnd_mod(rs.r, CC##_FR_P, 4);                                               \
			rnd_mod(rs.s, CC##_FR_P, 4);                                               \
			zka_proof pg, pc;                                                          \
			memset(&pg, 0, sizeof pg);                                                 \
			memset(&pc, 0, sizeof pc);                                                 \
			memcpy(cp, abc, 3 * nd * 32);                                              \
			OK(zka_gpu_prove(                                                          \
			    G, key, (const uint64_t(*)[4])abc, (const uint64_t(*)[4])(abc + nd),   \
			    (const uint64_t(*)[4])(abc + 2 * nd), (const uint64_t(*)[4])w, &rs,    \
			    &pg, NULL, err, sizeof err));                                          \
			CHECK(!memcmp(abc, cp, 3 * nd * 32), "zka_gpu_prove modified a, b or c");  \
			zka_prove_opts po = {0};                                                   \
			int rc = zka_prove_abc(&pk, (uint64_t(*)[4])cp, (uint64_t(*)[4])(cp + nd), \
					       (uint64_t(*)[4])(cp + 2 * nd),                      \
					       (const uint64_t(*)[4])w, &rs, &pc, &po, NULL);      \
			CHECK(rc == 0, "zka_prove_abc -> %d", rc);                                 \
			int same = !memcmp(pg.a, pc.a, 2 * CV.n8q) &&                              \
				   !memcmp(pg.b, pc.b, 4 * CV.n8q) &&                              \
				   !memcmp(pg.c, pc.c, 2 * CV.n8q);                                \
			CHECK(same, "%s: GPU proof != CPU proof (2^%u, n_vars %u)", #Q, logn,      \
			      n_vars);                                                             \
			zka_gpu_times gt;                                                          \
			zka_gpu_last_times(G, &gt);                                                \
			if (precomp == 3 && rep != 1)                                              \
				CHECK(gt.tables == (rep == 2),                                     \
				      "%s: deferred tables, proof %d: tables %d, expected %d", #Q, \
				      rep, gt.tables, rep == 2);                                   \
			else if (precomp <= 1 || precomp >= 5)                                     \
				CHECK(gt.tables == (precomp == 1),                                 \
				      "%s: proof used tables %d, expected %d", #Q, gt.tables,      \
				      precomp);                                                    \
			if (want_split >= 0) {                                                     \
				CHECK(gt.msm_split == want_split,                                  \
				      "%s: proof 2^%u: msm_split %d, expected %d", #Q, logn,       \
				      gt.msm_split, want_split);                                   \
			}                                                                          \
			if (rep == 1 && G_B) {                                                     \
				int two = prove_pair(key, abc, abc + nd, abc + 2 * nd, w, &rs,     \
						     &pc, CV.n8q);                                 \
				CHECK(two == 2,                                                    \
				      "%s: two contexts sharing a key: %d of 2 proofs == CPU "     \
				      "(2^%u)",                                                    \
				      #Q, two, logn);                                              \
				printf("  %s proof 2^%u on two contexts at once, one key: %s\n",   \
				       #Q, logn, two == 2 ? "both identical to CPU" : "FAIL");     \
			}                                                                          \
			printf("  %s proof 2^%u n_vars %u: %s (A %d B %d C %d)\n", #Q, logn,       \
			       n_vars, same ? "identical to CPU" : "FAIL",                         \
			       !memcmp(pg.a, pc.a, 2 * CV.n8q), !memcmp(pg.b, pc.b, 4 * CV.n8q),   \
			       !memcmp(pg.c, pc.c, 2 * CV.n8q));                                   \
			if (rep == 0) { /* c left to the device, as from a slot (synth/pipe.h) */  \
				memcpy(cp, abc, 2 * nd * 32);                                      \
				CHECK(!zka_abc_product(pk.curve, (const uint64_t(*)[4])abc,        \
						       (const uint64_t(*)[4])(abc + nd),           \
						       (uint64_t(*)[4])(cp + 2 * nd),              \
						       (uint32_t)nd, 0),                           \
				      "zka_abc_product");                                          \
				memset(&pg, 0, sizeof pg);                                         \
				memset(&pc, 0, sizeof pc);                                         \
				OK(zka_gpu_prove(G, key, (const uint64_t(*)[4])abc,                \
						 (const uint64_t(*)[4])(abc + nd), NULL,           \
						 (const uint64_t(*)[4])w, &rs, &pg, NULL, err,     \
						 sizeof err));                                     \
				rc = zka_prove_abc(&pk, (uint64_t(*)[4])cp,                        \
						   (uint64_t(*)[4])(cp + nd),                      \
						   (uint64_t(*)[4])(cp + 2 * nd),                  \
						   (const uint64_t(*)[4])w, &rs, &pc, &po, NULL);  \
				int same_c = rc == 0 && !memcmp(pg.a, pc.a, 2 * CV.n8q) &&         \
					     !memcmp(pg.b, pc.b, 4 * CV.n8q) &&                    \
					     !memcmp(pg.c, pc.c, 2 * CV.n8q);                      \
				CHECK(same_c,                                                      \
				      "%s: GPU proof with c made on the device != CPU proof "      \
				      "(2^%u)",                                                    \
				      #Q, logn);                                                   \
				printf("  %s proof 2^%u, c made on the device: %s\n", #Q, logn,    \
				       same_c ? "identical to CPU" : "FAIL");                      \
				/* a slot's form: a, b in standard form, converted on the device   \
				 */                                                                \
				uint64_t(*sd)[4] = malloc(2 * nd * 32);                            \
				for (size_t i = 0; sd && i < 2 * nd; i++)                          \
					pk.curve->fr_from_mont(sd[i], abc[i].v);                   \
				memset(&pg, 0, sizeof pg);                                         \
				OK(zka_gpu_prove_ab(G, key, (const uint64_t(*)[4])sd,              \
						    (const uint64_t(*)[4])(sd + nd), 1,            \
						    (const uint64_t(*)[4])w, &rs, &pg, NULL, err,  \
						    sizeof err));                                  \
				int same_s = sd && !memcmp(pg.a, pc.a, 2 * CV.n8q) &&              \
					     !memcmp(pg.b, pc.b, 4 * CV.n8q) &&                    \
					     !memcmp(pg.c, pc.c, 2 * CV.n8q);                      \
				CHECK(same_s,                                                      \
				      "%s: GPU proof from standard-form a, b != CPU proof (2^%u)", \
				      #Q, logn);                                                   \
				printf("  %s proof 2^%u, a, b in standard form: %s\n", #Q, logn,   \
				       same_s ? "identical to CPU" : "FAIL");                      \
				free(sd);                                                          \
			}                                                                          \
			free(abc);                                                                 \
			free(cp);                                                                  \
			free(w);                                                                   \
		}                                                                                  \
		zka_gpu_key_free(key);                                                             \
	out:                                                                                       \
		zka_gpu_unpin(kpin); /* before the points are freed */                             \
		free(p1);                                                                          \
		free(p2);                                                                          \
		free(k1);                                                                          \
		free(k2);                                                                          \
	}                                                                                          \
	/* The bucket loop's arithmetic alone (zka_gpu_acc_arith): batch-affine sums with J lanes  \
	 * per thread byte-equal to the mixed additions', both equal to the CPU's (e G with e the  \
	 * sum of the points' scalars) on sampled lanes; lanes that double (the same point twice), \
	 * cancel (P then -P), meet the point at infinity and repeat one point throughout; the     \
	 * inversions and products alone against the CPU; bad arguments refused. */                \
	static void Q##_test_arith(void)                                                           \
	{                                                                                          \
		const size_t np = 1000, lanes = 3001;                                              \
		const uint32_t steps = 9;                                                          \
		size_t ab = sizeof(Q##_g1_aff);                                                    \
		uint64_t(*kp)[4] = malloc(np * 32);                                                \
		uint8_t *pts = malloc(np * ab), *ref = malloc(lanes * ab),                         \
			*o = malloc(lanes * ab);                                                   \
		uint32_t *idx = malloc(lanes * steps * 4);                                         \
		for (size_t i = 0; i < np; i++)                                                    \
			Q##_fr_rand((Q##_fr_t *)kp[i]);                                            \
		Q##_fr_neg((Q##_fr_t *)kp[1], (Q##_fr_t *)kp[0]); /* point 1 = -point 0 */         \
		memset(kp[5], 0, 32);				  /* point 5 at infinity */        \
		if (Q##_make_points(0, kp, np, pts))                                               \
			goto out;                                                                  \
		for (size_t l = 0; l < lanes; l++) {                                               \
			uint32_t same = (uint32_t)rand() % np;                                     \
			for (uint32_t s = 0; s < steps; s++) {                                     \
				uint32_t v = (uint32_t)rand() % np;                                \
				switch (l % 6) {                                                   \
				case 0: /* one point throughout: P, 2P (doubling), 3P, ... */      \
					v = same;                                                  \
					break;                                                     \
				case 1: /* doubling at the second step */                          \
					v = s < 2 ? same : v;                                      \
					break;                                                     \
				case 2: /* P, -P: infinity, then a point onto infinity */          \
					v = s == 0 ? 0 : s == 1 ? 1 : s == 3 ? 5 : v;              \
					break;                                                     \
				case 3: /* the point at infinity first, twice */                   \
					v = s < 2 ? 5 : v;                                         \
					break;                                                     \
				case 4: /* P, -P, P, -P, ... */                                    \
					v = s & 1;                                                 \
					break;                                                     \
				}                                                                  \
				idx[(size_t)s * lanes + l] = v;                                    \
			}                                                                          \
		}                                                                                  \
		double dt;                                                                         \
		OK(zka_gpu_acc_arith(G, &CV, 0, 1, pts, np, idx, lanes, steps, ref, &dt, err,      \
				     sizeof err));                                                 \
		const int Js[] = {1, 2, 4, 8, 16, 32, 64};                                         \
		for (int ji = 0; ji < 7; ji++) {                                                   \
			if (quick && (Js[ji] == 2 || Js[ji] == 16 || Js[ji] == 64))                \
				continue;                                                          \
			memset(o, 0xa5, lanes *ab);                                                \
			OK(zka_gpu_acc_arith(G, &CV, 1, Js[ji], pts, np, idx, lanes, steps, o,     \
					     &dt, err, sizeof err));                               \
			size_t bad = 0;                                                            \
			for (size_t l = 0; l < lanes; l++)                                         \
				bad += memcmp(o + l * ab, ref + l * ab, ab) != 0;                  \
			CHECK(bad == 0, "%s: batch affine J = %d: %zu of %zu lanes differ", #Q,    \
			      Js[ji], bad, lanes);                                                 \
		}                                                                                  \
		size_t bad = 0, sampled = 0;                                                       \
		for (size_t l = 0; l < lanes; l += l < 24 ? 1 : 97) {                              \
			Q##_fr_t e, x;                                                             \
			memset(&e, 0, sizeof e);                                                   \
			for (uint32_t s = 0; s < steps; s++) {                                     \
				memcpy(x.v, kp[idx[(size_t)s * lanes + l]], 32);                   \
				Q##_fr_add(&e, &e, &x);                                            \
			}                                                                          \
			Q##_g1_aff g, want;                                                        \
			Q##_g1_jac j;                                                              \
			Q##_g1_gen(&g);                                                            \
			Q##_g1_from_aff(&j, &g);                                                   \
			Q##_g1_mul(&j, &j, e.v, 4);                                                \
			Q##_g1_to_aff(&want, &j);                                                  \
			bad += memcmp(&want, ref + l * ab, ab) != 0;                               \
			sampled++;                                                                 \
		}                                                                                  \
		CHECK(bad == 0, "%s: arith sums: %zu of %zu sampled lanes differ from the CPU",    \
		      #Q, bad, sampled);                                                           \
		/* one inversion, three products: against the CPU */                               \
		OK(zka_gpu_acc_arith(G, &CV, 2, 1, pts, np, NULL, np, 1, o, &dt, err,              \
				     sizeof err));                                                 \
		size_t badi = 0, badm = 0;                                                         \
		for (size_t i = 0; i < np; i++) {                                                  \
			const Q##_g1_aff *p = (const Q##_g1_aff *)(pts + i * ab);                  \
			const Q##_g1_aff *r = (const Q##_g1_aff *)(o + i * ab);                    \
			Q##_fq_t t, one;                                                           \
			Q##_fq_one(&one);                                                          \
			Q##_fq_mul(&t, &r->x, &p->x);                                              \
			badi +=                                                                    \
			    Q##_fq_is_zero(&p->x) ? !Q##_fq_is_zero(&r->x) : !Q##_fq_eq(&t, &one); \
		}                                                                                  \
		OK(zka_gpu_acc_arith(G, &CV, 3, 1, pts, np, NULL, np, 3, o, &dt, err,              \
				     sizeof err));                                                 \
		for (size_t i = 0; i < np; i++) {                                                  \
			const Q##_g1_aff *p = (const Q##_g1_aff *)(pts + i * ab);                  \
			const Q##_g1_aff *r = (const Q##_g1_aff *)(o + i * ab);                    \
			Q##_fq_t t = p->x;                                                         \
			for (int s = 0; s < 3; s++)                                                \
				Q##_fq_mul(&t, &t, &p->y);                                         \
			badm += !Q##_fq_eq(&t, &r->x);                                             \
		}                                                                                  \
		CHECK(badi == 0 && badm == 0, "%s: arith inversions %zu, products %zu differ", #Q, \
		      badi, badm);                                                                 \
		/* the FP64 products (method 4) against the integer products (method 3) and the    \
		 * CPU, on the points and on edge operands (0, 1, 2, the Montgomery one, p - 1,     \
		 * p - 2, p - 2^52, 2^52 - 1, 2^104 - 1, 2^208 - 1, p - 1 - 2^64, 2^251 + 3) in     \
		 * every pairing of x and y, chains of 1 and 7 */                                   \
		{                                                                                  \
			enum { NE = 12 };                                                          \
			Q##_fq_t ed[NE];                                                           \
			memset(ed, 0, sizeof ed);                                                  \
			ed[1].v[0] = 1;                                                            \
			ed[2].v[0] = 2;                                                            \
			Q##_fq_one(&ed[3]);                                                        \
			memcpy(ed[4].v, CC##_FQ_P, sizeof ed[4].v);                                 \
			ed[4].v[0] -= 1;                                                           \
			ed[5] = ed[4];                                                             \
			ed[5].v[0] -= 1;                                                           \
			ed[6] = ed[4];                                                             \
			ed[6].v[0] -= ((uint64_t)1 << 52) - 1; /* p - 2^52 */                      \
			ed[7].v[0] = ((uint64_t)1 << 52) - 1;                                      \
			ed[8].v[0] = ~(uint64_t)0;                                                 \
			ed[8].v[1] = ((uint64_t)1 << 40) - 1;                                      \
			ed[9].v[0] = ed[9].v[1] = ed[9].v[2] = ~(uint64_t)0;                       \
			ed[9].v[3] = ((uint64_t)1 << 16) - 1;                                      \
			ed[10] = ed[4];                                                            \
			ed[10].v[1] -= 1;                                                          \
			ed[11].v[3] = (uint64_t)1 << 59;                                           \
			ed[11].v[0] = 3;                                                           \
			uint8_t *ep = malloc(np * ab), *o3 = malloc(np * ab);                      \
			size_t bad3 = 0, bad4 = 0, badc = 0;                                       \
			if (!ep || !o3) {                                                          \
				free(ep);                                                          \
				free(o3);                                                          \
				CHECK(0, "%s: FP64 products: out of memory", #Q);                  \
				goto out;                                                          \
			}                                                                          \
			memcpy(ep, pts, np * ab);                                                  \
			for (size_t i = 0; i < NE * NE; i++) {                                     \
				Q##_g1_aff *q = (Q##_g1_aff *)(ep + i * ab);                       \
				q->x = ed[i % NE];                                                 \
				q->y = ed[i / NE];                                                 \
			}                                                                          \
			for (uint32_t st = 1; st <= 7; st += 6) {                                  \
				OK(zka_gpu_acc_arith(G, &CV, 3, 1, ep, np, NULL, np, st, o3, &dt,  \
						     err, sizeof err));                            \
				OK(zka_gpu_acc_arith(G, &CV, 4, 1, ep, np, NULL, np, st, o, &dt,   \
						     err, sizeof err));                            \
				for (size_t i = 0; i < np; i++) {                                  \
					const Q##_g1_aff *p = (const Q##_g1_aff *)(ep + i * ab);   \
					const Q##_g1_aff *r = (const Q##_g1_aff *)(o + i * ab);    \
					const Q##_g1_aff *r3 = (const Q##_g1_aff *)(o3 + i * ab);  \
					Q##_fq_t t = p->x;                                         \
					for (uint32_t s = 0; s < st; s++)                          \
						Q##_fq_mul(&t, &t, &p->y);                         \
					badc += !Q##_fq_eq(&t, &r3->x);                            \
					bad4 += memcmp(&t, &r->x, sizeof t) != 0;                  \
					bad3 += memcmp(&r3->x, &r->x, sizeof t) != 0;              \
				}                                                                  \
			}                                                                          \
			free(ep);                                                                  \
			free(o3);                                                                  \
			CHECK(bad4 == 0 && bad3 == 0 && badc == 0,                                 \
			      "%s: FP64 products: %zu differ from the CPU, %zu from the integer "  \
			      "products (which differ from the CPU in %zu)",                       \
			      #Q, bad4, bad3, badc);                                               \
		}                                                                                  \
		/* refused: an index past the points, J = 3 */                                     \
		idx[lanes * steps - 1] = (uint32_t)np;                                             \
		int rc = zka_gpu_acc_arith(G, &CV, 0, 1, pts, np, idx, lanes, steps, o, &dt, err,  \
					   sizeof err);                                            \
		CHECK(rc == -EINVAL && strstr(err, "is not below"), "%s: bad idx: rc %d (%s)", #Q, \
		      rc, err);                                                                    \
		idx[lanes * steps - 1] = 0;                                                        \
		rc = zka_gpu_acc_arith(G, &CV, 1, 3, pts, np, idx, lanes, steps, o, &dt, err,      \
				       sizeof err);                                                \
		CHECK(rc == -EINVAL && strstr(err, "J = 3"), "%s: J = 3: rc %d (%s)", #Q, rc,      \
		      err);                                                                        \
	out:                                                                                       \
		free(kp);                                                                          \
		free(pts);                                                                         \
		free(ref);                                                                         \
		free(o);                                                                           \
		free(idx);                                                                         \
	}                                                                                          \
	static void Q##_all(void)                                                                  \
	{                                                                                          \
		int f0 = failures;                                                                 \
		Q##_test_fields();                                                                 \
		printf("%s fields: %s\n", #Q, failures == f0 ? "ok" : "FAIL");                     \
		f0 = failures;                                                                     \
		Q##_test_ntt();                                                                    \
		printf("%s NTT and H: %s\n", #Q, failures == f0 ? "ok" : "FAIL");                  \
		f0 = failures;                                                                     \
		Q##_test_hmono();                                                                  \
		printf("%s monomial H (bellperson keys): %s\n", #Q,                                \
		       failures == f0 ? "ok" : "FAIL");                                            \
		f0 = failures;                                                                     \
		Q##_test_arith();                                                                  \
		printf("%s bucket-loop arithmetic (mixed vs batch affine): %s\n", #Q,              \
		       failures == f0 ? "ok" : "FAIL");                                            \
		f0 = failures;                                                                     \
		/* window tables under the budgets max (a copy per window: one set of buckets), 2x \
		 * (3 copies: groups of 3 windows, the last one shorter at most sizes) and the     \
		 * default 1x (2 copies), then none (windowed), then streamed keys and MSMs */     \
		const double budgets[] = {INFINITY, 2.0, -1, 0, 0};                                \
		const char *bnames[] = {"window tables, budget max", "window tables, budget 2x",   \
					"window tables, budget 1x (default)", "windowed",          \
					"streamed, chunks of 333"};                                \
		for (int bi = 0; bi < 5; bi++) {                                                   \
			precomp = bi < 3 ? 1 : bi == 3 ? 0 : 5;                                    \
			want_copies = bi == 1 ? 3 : bi == 2 ? 2 : 0;                               \
			const char *mode = bnames[bi];                                             \
			zka_gpu_set_precompute(G, precomp == 1);                                   \
			zka_gpu_set_table_budget(G, budgets[bi]);                                  \
			zka_gpu_set_stream_chunk(G, precomp == 5 ? STREAM_CHUNK : 0);              \
			/* window tables: the high-priority stream at every size; windowed:        \
			 * ordinary */                                                             \
			zka_gpu_set_priority_domain(G, precomp == 1 ? 0 : UINT32_MAX);             \
			if (G_B)                                                                   \
				zka_gpu_set_priority_domain(G_B, precomp == 1 ? 0 : UINT32_MAX);   \
			f0 = failures;                                                             \
			Q##_test_msm(0);                                                           \
			Q##_test_msm(1);                                                           \
			printf("%s MSM (%s): %s\n", #Q, mode, failures == f0 ? "ok" : "FAIL");     \
			f0 = failures;                                                             \
			Q##_test_split(0);                                                         \
			Q##_test_split(1);                                                         \
			printf("%s MSM 0/1 split (%s): %s\n", #Q, mode,                            \
			       failures == f0 ? "ok" : "FAIL");                                    \
			f0 = failures;                                                             \
			Q##_test_prove(3, 9, 2);                                                   \
			Q##_test_prove(10, 700, 5);                                                \
			/* 2^11: NTT passes of 5 and 6 stages, unequal tiles, on two contexts at   \
			 * once */                                                                 \
			Q##_test_prove(11, 1500, 4);                                               \
			if (!quick)                                                                \
				Q##_test_prove(14, 12345, 3);                                      \
			printf("%s proofs (%s): %s\n", #Q, mode, failures == f0 ? "ok" : "FAIL");  \
			/* a 90%-boolean witness (45% 0, 45% 1), the split forced on, then off */  \
			for (int f = 0; f < 2; f++) {                                              \
				f0 = failures;                                                     \
				zka_gpu_set_split01(G, f ? 2.0 : 0.0);                             \
				if (G_B)                                                           \
					zka_gpu_set_split01(G_B, f ? 2.0 : 0.0);                   \
				wit_zero = wit_one = 45;                                           \
				want_split = !f;                                                   \
				Q##_test_prove(3, 9, 2);                                           \
				Q##_test_prove(10, 700, 5);                                        \
				Q##_test_prove(11, 1500, 4);                                       \
				if (!quick)                                                        \
					Q##_test_prove(14, 12345, 3);                              \
				wit_zero = wit_one = 30;                                           \
				want_split = -1;                                                   \
				zka_gpu_set_split01(G, -1);                                        \
				if (G_B)                                                           \
					zka_gpu_set_split01(G_B, -1);                              \
				printf("%s proofs, 90%% 0/1 witness, split %s (%s): %s\n", #Q,     \
				       f ? "off" : "forced", mode,                                 \
				       failures == f0 ? "ok" : "FAIL");                            \
			}                                                                          \
		}                                                                                  \
		zka_gpu_set_precompute(G, 1);                                                      \
		zka_gpu_set_table_budget(G, -1);                                                   \
		zka_gpu_set_stream_chunk(G, 0);                                                    \
		precomp = 1;                                                                       \
		want_copies = 0;                                                                   \
		zka_gpu_set_priority_domain(G, ZKA_GPU_PRIO_DOMAIN);                               \
		if (G_B)                                                                           \
			zka_gpu_set_priority_domain(G_B, ZKA_GPU_PRIO_DOMAIN);                     \
		/* free memory too small for the windowed key: streamed by the memory check (the   \
		 * figure cut by 1.5 from 512 MiB to 16 KiB until some sets stream from the host   \
		 * and the others stay on the device; 2^14: sets large beside the proof's buffers) \
		 */                                                                                \
		precomp = 6;                                                                       \
		zka_gpu_set_precompute(G, 0);                                                      \
		f0 = failures;                                                                     \
		int streamed_seen = 0, hosts_seen = 0;                                             \
		for (double mb = 512; mb >= 1.0 / 64 && !hosts_seen; mb /= 1.5) {                  \
			char fb[32];                                                               \
			snprintf(fb, sizeof fb, "%.0f", (mb * 1048576.0 + 1073741824.0) / 0.95);   \
			setenv("ZKG_FREE_BYTES", fb, 1);                                           \
			auto_mode = -1;                                                            \
			Q##_test_prove(14, 12345, 3);                                              \
			CHECK(auto_mode >= 0, "%s: no key load at %g MiB", #Q, mb);                \
			if (auto_mode == 1 && !streamed_seen)                                      \
				printf("  %s at %.3g MiB free: %s\n", #Q, mb, last_mode);          \
			streamed_seen |= auto_mode == 1;                                           \
			hosts_seen = auto_mode == 1 && strstr(last_mode, " stream from ") &&       \
				     strstr(last_mode, "on the device: ");                         \
			if (hosts_seen)                                                            \
				printf("  %s at %.3g MiB free: %s\n", #Q, mb, last_mode);          \
			if (auto_mode == 2)                                                        \
				break;                                                             \
		}                                                                                  \
		unsetenv("ZKG_FREE_BYTES");                                                        \
		zka_gpu_set_precompute(G, 1);                                                      \
		precomp = 1;                                                                       \
		CHECK(streamed_seen &&hosts_seen,                                                  \
		      "%s: no free-memory figure made the key stream (%d) some sets (%d)", #Q,     \
		      streamed_seen, hosts_seen);                                                  \
		printf("%s proofs (streamed by the memory check): %s\n", #Q,                       \
		       failures == f0 ? "ok" : "FAIL");                                            \
		/* window tables that fit by the estimate but fail to allocate: windowed, and said \
		 */                                                                                \
		setenv("ZKG_FAIL_TABLE_ALLOC", "1", 1);                                            \
		precomp = 2;                                                                       \
		f0 = failures;                                                                     \
		Q##_test_prove(10, 700, 5);                                                        \
		unsetenv("ZKG_FAIL_TABLE_ALLOC");                                                  \
		precomp = 1;                                                                       \
		printf("%s proofs (window tables fail to allocate): %s\n", #Q,                     \
		       failures == f0 ? "ok" : "FAIL");                                            \
		/* tables built after the key load: proofs before, during and after the build */   \
		zka_gpu_set_tables_build(G, ZKA_GPU_TABLES_DEFERRED);                              \
		precomp = 3;                                                                       \
		f0 = failures;                                                                     \
		Q##_test_prove(11, 1500, 4);                                                       \
		if (!quick)                                                                        \
			Q##_test_prove(14, 12345, 3);                                              \
		/* BACKGROUND: the load starts the build; proofs match whichever path they take */ \
		zka_gpu_set_tables_build(G, ZKA_GPU_TABLES_BACKGROUND);                            \
		precomp = 4;                                                                       \
		Q##_test_prove(11, 1500, 4);                                                       \
		zka_gpu_set_tables_build(G, ZKA_GPU_TABLES_SYNC);                                  \
		precomp = 1;                                                                       \
		printf("%s proofs (window tables built after the key load): %s\n", #Q,             \
		       failures == f0 ? "ok" : "FAIL");                                            \
	}

CURVE_TESTS(bn254, BN254, zka_curve_bn254)
CURVE_TESTS(bls12_381, BLS12_381, zka_curve_bls12_381)

/* An upload gate for the tests: mode 0 releases the highest set of todo first (the reverse
 * of the load's own order) and records each todo; 1 fails with -EIO; 2 answers a set not in
 * todo. */
struct test_gate {
	int mode, calls, todo[8];
};

static int test_gate_fn(void *arg, int todo)
{
	struct test_gate *t = arg;
	if (t->calls < 8)
		t->todo[t->calls] = todo;
	t->calls++;
	if (t->mode == 1)
		return -EIO;
	if (t->mode == 2)
		return __builtin_ctz((unsigned)~todo & 31u);
	return 31 - __builtin_clz((unsigned)todo);
}

/* A key loaded through each gate: the reversed order proves as the key loaded in order did
 * (want: that proof, which test_real compares with the CPU's), the failing gates fail the load
 * with their error and leave no key. */
static void test_upload_gate(const zka_pk *pk, const uint64_t (*abc)[4], const uint64_t (*w)[4],
			     const zka_rs *rs, const zka_proof *want)
{
	const zka_curve *cv = pk->curve;
	size_t nd = pk->domain_size;
	struct test_gate tg = {0};
	zka_gpu_key *key = NULL;
	zka_gpu_set_upload_gate(G, test_gate_fn, &tg);
	OK(zka_gpu_key_load(G, pk, &key, err, sizeof err));
	int order = tg.calls == 5;
	for (int i = 0; i < 5 && i < tg.calls; i++)
		order &= tg.todo[i] == (31 >> i); /* 31, 15, 7, 3, 1: H first, A last */
	CHECK(order, "%s upload gate: %d calls, todo 0x%x 0x%x ... (want 5: 0x1f 0xf 0x7 0x3 0x1)",
	      cv->pretty, tg.calls, tg.todo[0], tg.todo[1]);
	zka_proof pg;
	memset(&pg, 0, sizeof pg);
	int same = 0;
	if (key) {
		OK(zka_gpu_prove(G, key, abc, abc + nd, abc + 2 * nd, w, rs, &pg, NULL, err,
				 sizeof err));
		same = !memcmp(pg.a, want->a, 2 * cv->n8q) && !memcmp(pg.b, want->b, 4 * cv->n8q) &&
		       !memcmp(pg.c, want->c, 2 * cv->n8q);
		CHECK(same, "%s key uploaded H first through a gate: proof != the in-order key's",
		      cv->pretty);
		zka_gpu_key_free(key);
		key = NULL;
	}
	struct test_gate fail = {1, 0, {0}}, wrong = {2, 0, {0}};
	zka_gpu_set_upload_gate(G, test_gate_fn, &fail);
	int r1 = zka_gpu_key_load(G, pk, &key, err, sizeof err);
	CHECK(r1 == -EIO && !key && strstr(err, "upload gate") && fail.calls == 1,
	      "%s failing gate: load -> %d, key %p, %d calls, '%s'", cv->pretty, r1, (void *)key,
	      fail.calls, err);
	zka_gpu_key_free(key);
	key = NULL;
	zka_gpu_set_upload_gate(G, test_gate_fn, &wrong);
	int r2 = zka_gpu_key_load(G, pk, &key, err, sizeof err);
	CHECK(r2 == -EINVAL && !key && strstr(err, "not one of them"),
	      "%s gate answering a set not asked: load -> %d, '%s'", cv->pretty, r2, err);
	zka_gpu_key_free(key);
	key = NULL;
	/* the gate was one load's: the next load copies in order without it */
	int calls = wrong.calls;
	OK(zka_gpu_key_load(G, pk, &key, err, sizeof err));
	CHECK(wrong.calls == calls, "%s: the gate outlived its load", cv->pretty);
	zka_gpu_key_free(key);
	printf("  %s upload gate: H first %s in order, failing gate %d, wrong set %d\n", cv->pretty,
	       same ? "==" : "!=", r1, r2);
}

/* Staged uploads (issue 18): a key copied from its pageable memory through pinned buffers by a
 * few threads, in 64 KiB pieces (none of the sets a multiple of it), proves as the key loaded
 * directly; the setting lasts until turned off; bad settings are refused, keeping the old. */
static void test_upload_staging(const zka_pk *pk, const uint64_t (*abc)[4], const uint64_t (*w)[4],
				const zka_rs *rs, const zka_proof *want)
{
	const zka_curve *cv = pk->curve;
	size_t nd = pk->domain_size;
	int same[2] = {0, 0}, threads[2] = {3, 1}, staged[2] = {-1, -1};
	for (int m = 0; m < 2; m++) {
		OK(zka_gpu_set_upload_staging(G, threads[m], 65536, err, sizeof err));
		zka_gpu_key *key = NULL;
		OK(zka_gpu_key_load(G, pk, &key, err, sizeof err));
		if (!key)
			continue;
		zka_gpu_key_times kt;
		zka_gpu_key_timing(key, &kt);
		staged[m] = kt.staged;
		CHECK(kt.staged == threads[m] && !kt.pinned && kt.upload > 0,
		      "%s staged load: staged %d (want %d), pinned %d, upload %.6f", cv->pretty,
		      kt.staged, threads[m], kt.pinned, kt.upload);
		zka_proof pg;
		memset(&pg, 0, sizeof pg);
		OK(zka_gpu_prove(G, key, abc, abc + nd, abc + 2 * nd, w, rs, &pg, NULL, err,
				 sizeof err));
		same[m] = !memcmp(pg.a, want->a, 2 * cv->n8q) &&
			  !memcmp(pg.b, want->b, 4 * cv->n8q) &&
			  !memcmp(pg.c, want->c, 2 * cv->n8q);
		CHECK(same[m], "%s key staged by %d threads: proof != the direct key's", cv->pretty,
		      threads[m]);
		zka_gpu_key_free(key);
	}
	/* refused settings keep the last one (1 thread) */
	int r1 = zka_gpu_set_upload_staging(G, ZKA_GPU_STAGE_MAX + 1, 0, err, sizeof err);
	CHECK(r1 == -EINVAL && strstr(err, "out of range"), "%s staging %d threads -> %d '%s'",
	      cv->pretty, ZKA_GPU_STAGE_MAX + 1, r1, err);
	int r2 = zka_gpu_set_upload_staging(G, 2, 65536 + 4096, err, sizeof err);
	CHECK(r2 == -EINVAL, "%s staging piece 68 KiB (not a power of two) -> %d", cv->pretty, r2);
	int r3 = zka_gpu_set_upload_staging(G, 2, 4096, err, sizeof err);
	CHECK(r3 == -EINVAL, "%s staging piece 4 KiB (under 64 KiB) -> %d", cv->pretty, r3);
	zka_gpu_key *key = NULL;
	zka_gpu_key_times kt = {0};
	OK(zka_gpu_key_load(G, pk, &key, err, sizeof err));
	if (key)
		zka_gpu_key_timing(key, &kt);
	CHECK(kt.staged == 1, "%s: a refused setting changed the stager (staged %d, want 1)",
	      cv->pretty, kt.staged);
	zka_gpu_key_free(key);
	key = NULL;
	/* off: the next load is the driver's pageable copy again */
	OK(zka_gpu_set_upload_staging(G, 0, 0, err, sizeof err));
	memset(&kt, 0, sizeof kt);
	kt.staged = -1;
	OK(zka_gpu_key_load(G, pk, &key, err, sizeof err));
	if (key)
		zka_gpu_key_timing(key, &kt);
	CHECK(kt.staged == 0, "%s: staging off, yet staged %d", cv->pretty, kt.staged);
	zka_gpu_key_free(key);
	printf("  %s staged upload: 3 threads %s (staged %d), 1 thread %s (staged %d), refused "
	       "%d %d %d, off staged %d\n",
	       cv->pretty, same[0] ? "==" : "!=", staged[0], same[1] ? "==" : "!=", staged[1], r1,
	       r2, r3, kt.staged);
}

/* The staged upload's reader (zka_gpu_set_upload_reader), as `prove --gpu` reads a resident
 * region: the key's real bytes in a file, the key's own point sets zero-filled decoys; each piece
 * is located in its decoy set and pread from the file. fail_at > 0: that call fails. */
struct test_reader {
	const void *p[5];
	size_t len[5], off[5];
	int fd, fail_at, calls, outside;
	uint64_t bytes;
	pthread_mutex_t mu;
};

static int test_reader_fn(void *arg, void *dst, const void *src, size_t len, char *e, size_t el)
{
	struct test_reader *r = arg;
	pthread_mutex_lock(&r->mu);
	int call = ++r->calls;
	r->bytes += len;
	pthread_mutex_unlock(&r->mu);
	if (r->fail_at && call == r->fail_at) {
		snprintf(e, el, "test reader: failure injected at call %d", call);
		return -EIO;
	}
	for (int i = 0; i < 5; i++) {
		const char *b = r->p[i];
		if (r->len[i] && (const char *)src >= b &&
		    (const char *)src + len <= b + r->len[i]) {
			off_t at = (off_t)(r->off[i] + (size_t)((const char *)src - b));
			ssize_t got = pread(r->fd, dst, len, at);
			if (got == (ssize_t)len)
				return 0;
			snprintf(e, el, "test reader: pread of %zu bytes at %lld: %zd", len,
				 (long long)at, got);
			return -EIO;
		}
	}
	__atomic_store_n(&r->outside, 1, __ATOMIC_RELAXED);
	snprintf(e, el, "test reader: %zu bytes at %p are in none of the key's sets", len, src);
	return -EINVAL;
}

/* A key staged through a reader proves as the key loaded directly although its own points are
 * zeros (so every byte came through the reader); a failing reader fails the load with its
 * message and the context loads again; the reader cleared, memcpy is used again. */
static void test_upload_reader(const zka_pk *pk, const uint64_t (*abc)[4], const uint64_t (*w)[4],
			       const zka_rs *rs, const zka_proof *want)
{
	const zka_curve *cv = pk->curve;
	size_t nd = pk->domain_size;
	struct test_reader r;
	memset(&r, 0, sizeof r);
	pthread_mutex_init(&r.mu, NULL);
	char path[] = "/tmp/zka-gpu-test-reader-XXXXXX";
	r.fd = mkstemp(path);
	CHECK(r.fd >= 0, "mkstemp %s", path);
	if (r.fd < 0)
		return;
	unlink(path);
	const void *real[5];
	zka_pk_point_sets(pk, real, r.len);
	zka_pk decoy = *pk;
	uint8_t **fields[5] = {&decoy.A, &decoy.B1, &decoy.B2, &decoy.C, &decoy.H};
	uint8_t *const orig[5] = {pk->A, pk->B1, pk->B2, pk->C, pk->H};
	uint64_t total = 0;
	size_t at = 4096; /* offsets unlike the sets' own */
	int ok = 1;
	for (int i = 0; i < 5; i++) {
		r.off[i] = at;
		ok &= pwrite(r.fd, real[i], r.len[i], (off_t)at) == (ssize_t)r.len[i];
		at += r.len[i] + 4096;
		total += r.len[i];
		/* the decoy's set keeps the real one's offset from its field (C starts after the
		 * public signals' points) */
		uint8_t *z = calloc(1, r.len[i] + ((const uint8_t *)real[i] - *fields[i]) + 64);
		ok &= z != NULL;
		if (z)
			*fields[i] = z;
	}
	CHECK(ok, "%s reader test: writing the key file or the decoys failed", cv->pretty);
	zka_pk_point_sets(&decoy, r.p, r.len);
	int same = 0, rf = 0;
	unsigned long long got = 0;
	zka_gpu_key *key = NULL;
	if (ok) {
		OK(zka_gpu_set_upload_staging(G, 3, 65536, err, sizeof err));
		zka_gpu_set_upload_reader(G, test_reader_fn, &r);
		OK(zka_gpu_key_load(G, &decoy, &key, err, sizeof err));
		got = r.bytes;
		CHECK(got == total && !r.outside,
		      "%s reader: %llu bytes read of %llu, outside a set %d", cv->pretty, got,
		      (unsigned long long)total, r.outside);
		if (key) {
			zka_proof pg;
			memset(&pg, 0, sizeof pg);
			OK(zka_gpu_prove(G, key, abc, abc + nd, abc + 2 * nd, w, rs, &pg, NULL, err,
					 sizeof err));
			same = !memcmp(pg.a, want->a, 2 * cv->n8q) &&
			       !memcmp(pg.b, want->b, 4 * cv->n8q) &&
			       !memcmp(pg.c, want->c, 2 * cv->n8q);
			CHECK(same, "%s key staged through the reader: proof != the direct key's",
			      cv->pretty);
		}
		zka_gpu_key_free(key);
		key = NULL;
		/* a failing reader: the load fails naming it, nothing is returned */
		r.calls = 0;
		r.fail_at = 3;
		rf = zka_gpu_key_load(G, &decoy, &key, err, sizeof err);
		CHECK(rf == -EIO && !key && strstr(err, "failure injected"),
		      "%s failing reader: load -> %d, key %p, '%s'", cv->pretty, rf, (void *)key,
		      err);
		zka_gpu_key_free(key);
		key = NULL;
		/* cleared: the real key by memcpy again, the reader not called */
		zka_gpu_set_upload_reader(G, NULL, NULL);
		r.calls = 0;
		OK(zka_gpu_key_load(G, pk, &key, err, sizeof err));
		CHECK(r.calls == 0, "%s: the cleared reader was called %d times", cv->pretty,
		      r.calls);
		zka_gpu_key_free(key);
		OK(zka_gpu_set_upload_staging(G, 0, 0, err, sizeof err));
	}
	for (int i = 0; i < 5; i++)
		if (*fields[i] != orig[i])
			free(*fields[i]);
	close(r.fd);
	pthread_mutex_destroy(&r.mu);
	printf("  %s staged upload through a reader: %s, %llu bytes read; failing reader %d\n",
	       cv->pretty, same ? "==" : "!=", got, rf);
}

/* The chain circuit of m constraints (x_{k+1} = x_k^2, then x * 1 = out, out public) and a
 * satisfying witness with a random x_0, into cs and wt (chain_free frees them). */
static void chain_circuit(const zka_curve *cv, uint32_t m, const uint64_t *one_mont, zka_r1cs *cs,
			  zka_witness *wt)
{
	uint32_t nw = m + 2; /* w0 = 1, w1 = out (public), w2.. = chain */
	memset(cs, 0, sizeof *cs);
	cs->curve = cv;
	cs->n_wires = nw;
	cs->n_pub_out = 1;
	cs->n_constraints = m;
	for (int k = 0; k < 3; k++) {
		cs->m[k].start = calloc(m + 1, 8);
		cs->m[k].signal = calloc(m, 4);
		cs->m[k].value = calloc(m, 32);
		cs->m[k].n_terms = m;
		for (uint32_t i = 0; i < m; i++) {
			cs->m[k].start[i + 1] = i + 1;
			memcpy(cs->m[k].value[i], one_mont, 32);
		}
	}
	for (uint32_t i = 0; i + 1 < m; i++) {
		cs->m[0].signal[i] = 2 + i;
		cs->m[1].signal[i] = 2 + i;
		cs->m[2].signal[i] = 3 + i;
	}
	cs->m[0].signal[m - 1] = m + 1; /* last: x * 1 = out */
	cs->m[1].signal[m - 1] = 0;
	cs->m[2].signal[m - 1] = 1;
	wt->curve = cv;
	wt->n = nw;
	wt->w = malloc((size_t)nw * 32);
	memset(wt->w, 0, (size_t)nw * 32);
	wt->w[0][0] = 1;
	rnd_mod(wt->w[2], cv->r, 4);
	for (uint32_t i = 3; i < nw; i++) { /* w_i = w_{i-1}^2 mod r, in standard form */
		uint64_t t[4];
		cv->fr_to_mont(t, wt->w[i - 1]);
		if (cv->id == ZKA_BN254)
			bn254_fr_mul((bn254_fr_t *)t, (bn254_fr_t *)t, (bn254_fr_t *)wt->w[i - 1]);
		else
			bls12_381_fr_mul((bls12_381_fr_t *)t, (bls12_381_fr_t *)t,
					 (bls12_381_fr_t *)wt->w[i - 1]);
		memcpy(wt->w[i], t, 32);
	}
	memcpy(wt->w[1], wt->w[nw - 1], 32);
}

static void chain_free(zka_r1cs *cs, zka_witness *wt)
{
	for (int k = 0; k < 3; k++) {
		free(cs->m[k].start);
		free(cs->m[k].signal);
		free(cs->m[k].value);
	}
	free(wt->w);
}

/* A real circuit (x_{k+1} = x_k^2 chain, output public) keyed by zka_setup: the GPU proof must
 * equal the CPU proof and verify; a tampered one must not. */
static void test_real(const zka_curve *cv, uint32_t m, const uint64_t *one_mont)
{
	zka_r1cs cs;
	zka_witness wt;
	chain_circuit(cv, m, one_mont, &cs, &wt);
	zka_toxic tx;
	zka_toxic_from_seed(&tx, cv, 12345);
	zka_pk pk;
	memset(&pk, 0, sizeof pk);
	int rc = zka_setup(&cs, &tx, &pk, NULL, 0);
	CHECK(rc == 0, "zka_setup -> %d", rc);
	if (rc)
		goto out;
	{ /* the GPU fixed-base path of setup gives the same key */
		zka_fixed_base_ops fb = {G, zka_gpu_fb_g1, zka_gpu_fb_g2};
		zka_pk pg;
		memset(&pg, 0, sizeof pg);
		rc = zka_setup(&cs, &tx, &pg, &fb, 0);
		CHECK(rc == 0, "zka_setup with GPU fixed base -> %d", rc);
		size_t g1 = zka_g1_bytes(cv), g2 = zka_g2_bytes(cv),
		       nc = pk.n_vars - pk.n_public - 1;
		int same = !rc && !memcmp(pk.A, pg.A, pk.n_vars * g1) &&
			   !memcmp(pk.B1, pg.B1, pk.n_vars * g1) &&
			   !memcmp(pk.B2, pg.B2, pk.n_vars * g2) && !memcmp(pk.C, pg.C, nc * g1) &&
			   !memcmp(pk.H, pg.H, pk.domain_size * g1) &&
			   !memcmp(pk.IC, pg.IC, (pk.n_public + 1) * g1);
		CHECK(same, "%s: setup with GPU fixed base differs from the CPU setup", cv->pretty);
		printf("  %s setup --gpu fixed base: %s\n", cv->pretty,
		       same ? "key identical to CPU setup" : "FAIL");
		if (!rc)
			zka_pk_free(&pg);
	}
	size_t nd = pk.domain_size;
	uint64_t(*abc)[4] = malloc(3 * nd * 32);
	zka_prove_opts po = {0};
	rc = zka_compute_abc(&pk, &wt, abc, abc + nd, abc + 2 * nd, &po);
	CHECK(rc == 0, "zka_compute_abc -> %d", rc);
	zka_gpu_key *key = NULL;
	OK(zka_gpu_key_load(G, &pk, &key, err, sizeof err));
	if (key) { /* the load's figures (issue 18): pk's points are malloc'ed, so pageable */
		zka_gpu_key_times kt;
		zka_gpu_key_timing(key, &kt);
		uint64_t g1 = 2 * cv->n8q, g2 = 4 * cv->n8q, nv = pk.n_vars;
		uint64_t want = nv * (3 * g1 + g2) + (uint64_t)pk.domain_size * g1 -
				(uint64_t)(pk.n_public + 1) * g1;
		CHECK(kt.bytes == want && kt.split == 1 && !kt.pinned && kt.upload > 0 &&
			  kt.total >= kt.upload + kt.tables,
		      "%s key timing: bytes %llu (want %llu), split %d, pinned %d, upload %.6f, "
		      "tables %.6f, total %.6f",
		      cv->pretty, (unsigned long long)kt.bytes, (unsigned long long)want, kt.split,
		      kt.pinned, kt.upload, kt.tables, kt.total);
	}
	zka_rs rs;
	rnd_mod(rs.r, cv->r, 4);
	rnd_mod(rs.s, cv->r, 4);
	zka_proof pg, pc;
	memset(&pg, 0, sizeof pg);
	memset(&pc, 0, sizeof pc);
	if (key)
		OK(zka_gpu_prove(G, key, (const uint64_t(*)[4])abc,
				 (const uint64_t(*)[4])(abc + nd),
				 (const uint64_t(*)[4])(abc + 2 * nd), (const uint64_t(*)[4])wt.w,
				 &rs, &pg, NULL, err, sizeof err));
	/* before the CPU prover, which takes a, b, c as its scratch; pg is checked against the
	 * CPU's proof below */
	if (key)
		test_upload_gate(&pk, (const uint64_t(*)[4])abc, (const uint64_t(*)[4])wt.w, &rs,
				 &pg);
	if (key)
		test_upload_staging(&pk, (const uint64_t(*)[4])abc, (const uint64_t(*)[4])wt.w, &rs,
				    &pg);
	test_upload_reader(&pk, (const uint64_t(*)[4])abc, (const uint64_t(*)[4])wt.w, &rs, &pg);
	rc = zka_prove_abc(&pk, abc, abc + nd, abc + 2 * nd, (const uint64_t(*)[4])wt.w, &rs, &pc,
			   &po, NULL);
	CHECK(rc == 0, "zka_prove_abc -> %d", rc);
	int same = !memcmp(pg.a, pc.a, 2 * cv->n8q) && !memcmp(pg.b, pc.b, 4 * cv->n8q) &&
		   !memcmp(pg.c, pc.c, 2 * cv->n8q);
	CHECK(same, "%s real circuit: GPU proof != CPU proof", cv->pretty);
	zka_vk vk;
	memset(&vk, 0, sizeof vk);
	rc = zka_vk_from_pk(&vk, &pk);
	CHECK(rc == 0, "zka_vk_from_pk -> %d", rc);
	const char *why = "";
	int v = zka_verify(&vk, (const uint64_t(*)[4])(wt.w + 1), 1, &pg, &why);
	CHECK(v == 1, "%s: GPU proof does not verify (%d, %s)", cv->pretty, v, why ? why : "");
	uint64_t bad[4];
	memcpy(bad, wt.w[1], 32);
	bad[0] ^= 1;
	int v2 = zka_verify(&vk, (const uint64_t(*)[4])bad, 1, &pg, &why);
	CHECK(v2 == 0, "%s: GPU proof verifies against a wrong public input (%d)", cv->pretty, v2);
	printf(
	    "  %s real circuit (%u constraints, domain %zu): GPU %s CPU, verify %d, tampered %d\n",
	    cv->pretty, m, nd, same ? "==" : "!=", v, v2);
	zka_vk_free(&vk);
	zka_gpu_key_free(key);
	free(abc);
	zka_pk_free(&pk);
out:
	chain_free(&cs, &wt);
}

static const char *root_name(uint32_t root)
{
	return root == ZKA_ROOT_GEN7 ? "GEN7 (bellperson 7^t)" : "snarkjs";
}

/* A monomial-H key (bellperson's H: zka_setup_kind ZKA_H_MONOMIAL) of the chain circuit of m
 * constraints, domain rows numbered by root family root: the GPU proof (zka_gpu_prove with c,
 * and zka_gpu_prove_ab with c made on the device) must equal the CPU's (zka_prove_abc, same r
 * and s) byte for byte in A, B and C, and verify; a tampered public input must not. The key
 * with an H kind the device lacks must be refused (-ENOTSUP). One line per case: PASS or
 * FAIL. */
static void test_mono(const zka_curve *cv, uint32_t m, const uint64_t *one_mont, uint32_t root)
{
	int f0 = failures;
	zka_r1cs cs;
	zka_witness wt;
	chain_circuit(cv, m, one_mont, &cs, &wt);
	zka_toxic tx;
	zka_toxic_from_seed(&tx, cv, 4242);
	zka_pk pk;
	memset(&pk, 0, sizeof pk);
	size_t nd = 0, g1 = 2 * cv->n8q, g2 = 4 * cv->n8q;
	int same = 0, same_ab = 0, v = -1, v2 = -1;
	int rc = zka_setup_kind(&cs, &tx, &pk, NULL, 0, ZKA_H_MONOMIAL, root);
	CHECK(rc == 0, "%s: zka_setup_kind(MONOMIAL, %s) -> %d", cv->pretty, root_name(root), rc);
	if (rc)
		goto out;
	CHECK(pk.h_kind == ZKA_H_MONOMIAL && pk.root == root, "%s: setup's key kind %u/%u",
	      cv->pretty, pk.h_kind, pk.root);
	nd = pk.domain_size;
	uint64_t(*abc)[4] = malloc(3 * nd * 32);
	zka_prove_opts po = {0};
	rc = zka_compute_abc(&pk, &wt, abc, abc + nd, abc + 2 * nd, &po);
	CHECK(rc == 0, "zka_compute_abc -> %d", rc);
	zka_gpu_key *key = NULL;
	rc = zka_gpu_key_load(G, &pk, &key, err, sizeof err);
	CHECK(rc == 0, "%s: zka_gpu_key_load of a monomial-H key (%s) -> %d: %s", cv->pretty,
	      root_name(root), rc, err);
	zka_rs rs;
	rnd_mod(rs.r, cv->r, 4);
	rnd_mod(rs.s, cv->r, 4);
	zka_proof pg, pab, pc;
	memset(&pg, 0, sizeof pg);
	memset(&pab, 0, sizeof pab);
	memset(&pc, 0, sizeof pc);
	if (key) {
		OK(zka_gpu_prove(G, key, (const uint64_t(*)[4])abc,
				 (const uint64_t(*)[4])(abc + nd),
				 (const uint64_t(*)[4])(abc + 2 * nd), (const uint64_t(*)[4])wt.w,
				 &rs, &pg, NULL, err, sizeof err));
		OK(zka_gpu_prove_ab(G, key, (const uint64_t(*)[4])abc,
				    (const uint64_t(*)[4])(abc + nd), 0, (const uint64_t(*)[4])wt.w,
				    &rs, &pab, NULL, err, sizeof err));
	}
	/* the CPU prover last: it takes a, b, c as its scratch */
	rc = zka_prove_abc(&pk, abc, abc + nd, abc + 2 * nd, (const uint64_t(*)[4])wt.w, &rs, &pc,
			   &po, NULL);
	CHECK(rc == 0, "zka_prove_abc (monomial key) -> %d", rc);
	same = key && !rc && !memcmp(pg.a, pc.a, g1) && !memcmp(pg.b, pc.b, g2) &&
	       !memcmp(pg.c, pc.c, g1);
	same_ab = key && !rc && !memcmp(pab.a, pc.a, g1) && !memcmp(pab.b, pc.b, g2) &&
		  !memcmp(pab.c, pc.c, g1);
	CHECK(same,
	      "%s monomial-H key, roots %s, %u constraints: GPU proof != CPU proof (A %s, B "
	      "%s, C %s)",
	      cv->pretty, root_name(root), m, memcmp(pg.a, pc.a, g1) ? "differs" : "equal",
	      memcmp(pg.b, pc.b, g2) ? "differs" : "equal",
	      memcmp(pg.c, pc.c, g1) ? "differs" : "equal");
	CHECK(same_ab,
	      "%s monomial-H key, roots %s, %u constraints: zka_gpu_prove_ab's proof != "
	      "CPU proof",
	      cv->pretty, root_name(root), m);
	zka_vk vk;
	memset(&vk, 0, sizeof vk);
	rc = zka_vk_from_pk(&vk, &pk);
	CHECK(rc == 0, "zka_vk_from_pk -> %d", rc);
	if (!rc) {
		const char *why = "";
		v = zka_verify(&vk, (const uint64_t(*)[4])(wt.w + 1), 1, &pg, &why);
		CHECK(v == 1, "%s: monomial-H GPU proof does not verify (%d, %s)", cv->pretty, v,
		      why ? why : "");
		uint64_t bad[4];
		memcpy(bad, wt.w[1], 32);
		bad[0] ^= 1;
		v2 = zka_verify(&vk, (const uint64_t(*)[4])bad, 1, &pg, &why);
		CHECK(v2 == 0, "%s: monomial-H GPU proof verifies a wrong public input (%d)",
		      cv->pretty, v2);
		zka_vk_free(&vk);
	}
	zka_gpu_key_free(key);
	{ /* kinds the device lacks: refused, not proved wrong */
		uint32_t hk = pk.h_kind, rt = pk.root;
		pk.h_kind = ZKA_H_MONOMIAL + 1;
		key = NULL;
		rc = zka_gpu_key_load(G, &pk, &key, err, sizeof err);
		CHECK(rc == -ENOTSUP && !key, "%s: a key of H kind %u loaded (%d)", cv->pretty,
		      pk.h_kind, rc);
		zka_gpu_key_free(key);
		pk.h_kind = ZKA_H_COSET;
		pk.root = ZKA_ROOT_GEN7; /* a coset H with bellperson's roots */
		key = NULL;
		rc = zka_gpu_key_load(G, &pk, &key, err, sizeof err);
		CHECK(rc == -ENOTSUP && !key, "%s: a coset-H key with GEN7 roots loaded (%d)",
		      cv->pretty, rc);
		zka_gpu_key_free(key);
		if (cv->id == ZKA_BN254) { /* GEN7 is BLS12-381's only */
			pk.h_kind = ZKA_H_MONOMIAL;
			key = NULL;
			rc = zka_gpu_key_load(G, &pk, &key, err, sizeof err);
			CHECK(rc == -ENOTSUP && !key,
			      "BN254: a monomial-H key with GEN7 roots loaded (%d)", rc);
			zka_gpu_key_free(key);
		}
		pk.h_kind = hk;
		pk.root = rt;
	}
	free(abc);
	zka_pk_free(&pk);
out:
	printf("  %s monomial-H key, roots %s (%u constraints, domain %zu): GPU %s CPU, prove_ab "
	       "%s CPU, verify %d, tampered %d: %s\n",
	       cv->pretty, root_name(root), m, nd, same ? "==" : "!=", same_ab ? "==" : "!=", v, v2,
	       failures == f0 ? "PASS" : "FAIL");
	chain_free(&cs, &wt);
}

/* Read-only registration (issue 18: a params region is a PROT_READ mapping) and the device's
 * memory gauge (issue 20). */
static void test_pin_mem(void)
{
	size_t n = (size_t)64 << 20;
	void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED, "mmap %zu bytes", n);
	if (m == MAP_FAILED)
		return;
	memset(m, 0x5a, n);
	CHECK(mprotect(m, n, PROT_READ) == 0, "mprotect PROT_READ");
	double pageable = 0, pinned = 0;
	OK(zka_gpu_h2d_bw(G, m, n, &pageable, err, sizeof err));
	zka_gpu_pin *pin = NULL;
	int rc = zka_gpu_pin_readonly(G, m, n, &pin, err, sizeof err);
	CHECK(rc == 0 && pin, "zka_gpu_pin_readonly of a PROT_READ mapping: %d %s", rc, err);
	if (pin)
		OK(zka_gpu_h2d_bw(G, m, n, &pinned, err, sizeof err));
	zka_gpu_unpin(pin);
	pin = NULL; /* unregistered: registering it again works */
	rc = zka_gpu_pin_readonly(G, m, n, &pin, err, sizeof err);
	CHECK(rc == 0, "pin after unpin: %d %s", rc, err);
	zka_gpu_unpin(pin);
	munmap(m, n);
	size_t fr = 0, tot = 0;
	OK(zka_gpu_mem_info(G, &fr, &tot, err, sizeof err));
	CHECK(tot > 0 && fr <= tot, "zka_gpu_mem_info: free %zu total %zu", fr, tot);
	printf("read-only pin: 64 MiB host to device %.1f GB/s pageable, %.1f GB/s pinned; device "
	       "memory %.1f of %.1f GiB in use\n",
	       pageable, pinned, (double)(tot - fr) / 1073741824.0, (double)tot / 1073741824.0);
}

/* Slots of form W (synth/slot_layout.c): zka_gpu_prove_ab with a = b = NULL makes a = A w and
 * b = B w on the device (cuda/abc.cuh) from the key's matrices (zka_gpu_key_set_abc). On a
 * random synthetic circuit (a third boolean constraints, the rest products with small linear
 * combinations: coefficients 1, -1 and others; a witness of 0/1 and full-width values), the
 * proof must equal the CPU prover's (zka_compute_abc, zka_prove_abc, same r and s) byte for
 * byte, with the key resident and (stream 1) streamed in chunks of 333 points; before
 * zka_gpu_key_set_abc such a proof is refused (-EINVAL); another key's matrices are refused;
 * a second zka_gpu_key_set_abc is a no-op. */
static void test_ab_dev(const zka_curve *cv, uint32_t m, int stream)
{
	zka_r1cs cs;
	zka_witness wt;
	uint64_t seed = (uint64_t)rand() << 20 ^ (uint64_t)rand();
	int rc = zka_synthetic_circuit(cv, m, 2, seed, &cs, &wt);
	CHECK(rc == 0, "%s: zka_synthetic_circuit(%u) -> %d", cv->pretty, m, rc);
	if (rc)
		return;
	zka_toxic tx;
	zka_toxic_from_seed(&tx, cv, seed + 1);
	zka_pk pk;
	memset(&pk, 0, sizeof pk);
	zka_abc mx, other;
	memset(&mx, 0, sizeof mx);
	memset(&other, 0, sizeof other);
	uint64_t(*abc)[4] = NULL;
	zka_gpu_key *key = NULL;
	size_t g1 = 2 * cv->n8q, g2 = 4 * cv->n8q;
	rc = zka_setup(&cs, &tx, &pk, NULL, 0);
	CHECK(rc == 0, "%s: zka_setup -> %d", cv->pretty, rc);
	if (rc)
		goto out;
	rc = zka_abc_build(&pk, &mx, err, sizeof err);
	CHECK(rc == 0, "%s: zka_abc_build -> %d: %s", cv->pretty, rc, err);
	size_t nd = pk.domain_size;
	abc = malloc(3 * nd * 32);
	zka_prove_opts po = {0};
	rc = abc ? zka_compute_abc(&pk, &wt, abc, abc + nd, abc + 2 * nd, &po) : -ENOMEM;
	CHECK(rc == 0, "zka_compute_abc -> %d", rc);
	if (stream)
		zka_gpu_set_stream_chunk(G, 333);
	rc = zka_gpu_key_load(G, &pk, &key, err, sizeof err);
	if (stream)
		zka_gpu_set_stream_chunk(G, 0);
	CHECK(rc == 0, "%s: zka_gpu_key_load -> %d: %s", cv->pretty, rc, err);
	if (!key || !abc)
		goto out;
	zka_rs rs;
	rnd_mod(rs.r, cv->r, 4);
	rnd_mod(rs.s, cv->r, 4);
	zka_proof pw, pc;
	memset(&pw, 0, sizeof pw);
	memset(&pc, 0, sizeof pc);
	const uint64_t(*w)[4] = (const uint64_t(*)[4])wt.w;
	rc = zka_gpu_prove_ab(G, key, NULL, NULL, 1, w, &rs, &pw, NULL, err, sizeof err);
	CHECK(rc == -EINVAL, "%s: a form-W proof before zka_gpu_key_set_abc -> %d", cv->pretty, rc);
	{ /* another key's matrices (one row more or less): refused, nothing set */
		zka_r1cs cs2;
		zka_witness wt2;
		zka_pk pk2;
		memset(&pk2, 0, sizeof pk2);
		if (!zka_synthetic_circuit(cv, m * 2 + 7, 2, seed + 2, &cs2, &wt2)) {
			if (!zka_setup(&cs2, &tx, &pk2, NULL, 0) &&
			    !zka_abc_build(&pk2, &other, err, sizeof err)) {
				rc = zka_gpu_key_set_abc(G, key, &other, err, sizeof err);
				CHECK(rc == -EINVAL, "%s: another key's matrices accepted (%d)",
				      cv->pretty, rc);
			}
			zka_pk_free(&pk2);
			zka_r1cs_free(&cs2);
			zka_witness_free(&wt2);
		}
	}
	OK(zka_gpu_key_set_abc(G, key, &mx, err, sizeof err));
	OK(zka_gpu_key_set_abc(G_B ? G_B : G, key, &mx, err, sizeof err)); /* again: no-op */
	OK(zka_gpu_prove_ab(G, key, NULL, NULL, 1, w, &rs, &pw, NULL, err, sizeof err));
	rc = zka_prove_abc(&pk, abc, abc + nd, abc + 2 * nd, w, &rs, &pc, &po, NULL);
	CHECK(rc == 0, "zka_prove_abc -> %d", rc);
	CHECK(!rc && !memcmp(pw.a, pc.a, g1) && !memcmp(pw.b, pc.b, g2) && !memcmp(pw.c, pc.c, g1),
	      "%s, %u constraints%s: a form-W GPU proof (a, b made on the device) != the CPU "
	      "proof (A %s, B %s, C %s)",
	      cv->pretty, m, stream ? ", streamed key" : "",
	      memcmp(pw.a, pc.a, g1) ? "differs" : "equal",
	      memcmp(pw.b, pc.b, g2) ? "differs" : "equal",
	      memcmp(pw.c, pc.c, g1) ? "differs" : "equal");
out:
	zka_gpu_key_free(key);
	free(abc);
	zka_abc_free(&mx);
	zka_abc_free(&other);
	zka_pk_free(&pk);
	zka_r1cs_free(&cs);
	zka_witness_free(&wt);
}

int main(int argc, char **argv)
{
	quick = argc > 1 && !strcmp(argv[1], "quick");
	/* registered keys in 64 KiB pieces: the test keys span many (zka_gpu_pin_key) */
	setenv("ZKG_KEY_PIECE", "65536", 1);
	if (zka_gpu_device_count() == 0) {
		printf("SKIP: no CUDA device\n");
		return 0;
	}
	int rc = zka_gpu_open(&G, 0, err, sizeof err);
	if (rc) {
		printf("zka_gpu_open: %s\n", err);
		return rc == -ENODEV ? 0 : 1;
	}
	printf("device: %s\n", zka_gpu_device_name(G));
	if (zka_gpu_open(&G_B, 0, err, sizeof err)) {
		CHECK(0, "second context: %s", err);
		G_B = NULL;
	}
	srand((unsigned)time(NULL));
	bn254_all();
	bls12_381_all();
	test_pin_mem();
	int f0 = failures;
	test_real(&zka_curve_bn254, 1000, BN254_FR_ONE);
	test_real(&zka_curve_bls12_381, 3000, BLS12_381_FR_ONE);
	printf("real circuits (setup, prove, verify): %s\n", failures == f0 ? "ok" : "FAIL");
	f0 = failures;
	/* monomial-H (bellperson) keys: a few hundred and a few thousand constraints, every root
	 * family each curve has */
	static const uint32_t mono_m[] = {300, 3000};
	for (int i = 0; i < 2; i++) {
		test_mono(&zka_curve_bn254, mono_m[i], BN254_FR_ONE, ZKA_ROOT_SNARKJS);
		test_mono(&zka_curve_bls12_381, mono_m[i], BLS12_381_FR_ONE, ZKA_ROOT_SNARKJS);
		test_mono(&zka_curve_bls12_381, mono_m[i], BLS12_381_FR_ONE, ZKA_ROOT_GEN7);
	}
	printf("monomial-H keys (GPU == CPU, verify): %s\n", failures == f0 ? "ok" : "FAIL");
	f0 = failures;
	/* slots of form W: a and b made on the device, both curves, resident and streamed keys,
	 * sizes that leave padding rows and partial blocks */
	static const uint32_t abd_m[] = {300, 5000};
	for (int i = 0; i < 2; i++)
		for (int st = 0; st < 2; st++) {
			test_ab_dev(&zka_curve_bn254, abd_m[i], st);
			test_ab_dev(&zka_curve_bls12_381, abd_m[i], st);
		}
	printf("form-W proofs (a, b on the device == CPU): %s\n", failures == f0 ? "ok" : "FAIL");
	zka_gpu_close(G_B);
	zka_gpu_close(G);
	printf("%d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
