/* test_wcg.c - the witness graph evaluator's fast paths (witness/wcg.c: small-integer
 * instructions, fused multiply-adds, asserts proved to hold and dropped with the nodes only
 * they read) against its field-only evaluation (ZKA_WCG_PLAIN), on random graphs of both
 * curves: constants small, negative, near 2^62 and full-width; bit extraction, shifts, masks,
 * sums and products of bits and words, comparisons, selects, logic, and circom's bit check
 * x (x - 1) == 0; inputs small and full-width. Every witness must be byte-identical, and an
 * assert must fail on both or on neither, with the same message. Fresh seeds every run. */
#include "tests/testutil.h"
#include "witness/wcg_ifma.h"
#include "witness/wcg_int.h"
#include "witness/zka_wcg.h"
#include "witness/zka_witness.h"
#include "zk/bls12_381.h"
#include "zk/bn254.h"
#include "zk/curve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

static const zka_curve *const curves[2] = {&zka_curve_bn254, &zka_curve_bls12_381};

struct gb {
	uint64_t (*consts)[4];
	struct zka_wcg_node *nodes;
	uint32_t nc, nn, cap, *wit, nw;
	struct zka_wcg_assert *as;
	uint32_t na;
};

static uint32_t rnd(uint32_t n)
{
	return (uint32_t)(zka_test_rand64() % n);
}

/* v = the standard value whose Montgomery form is the integer x (< p) of curve c's Fr. */
static void from_mont_rep(const zka_curve *c, uint64_t v[4], const uint64_t x[4])
{
	if (c->id == ZKA_BN254) {
		bn254_fr_t t;
		memcpy(t.v, x, 32);
		bn254_fr_from_mont(&t, &t);
		memcpy(v, t.v, 32);
	} else {
		bls12_381_fr_t t;
		memcpy(t.v, x, 32);
		bls12_381_fr_from_mont(&t, &t);
		memcpy(v, t.v, 32);
	}
}

/* A constant: small, negative small, about 2^62, just above the small range either side, a
 * value whose Montgomery form is near p or tiny (the LC's sums at their bounds), or a
 * random full-width residue. */
static void rand_const(const zka_curve *c, uint64_t v[4])
{
	memset(v, 0, 32);
	uint64_t one[4] = {0, 0, 0, 0};
	switch (rnd(10)) {
	case 6: /* 2^64 + k: not small */
		v[1] = 1, v[0] = rnd(3);
		return;
	case 7: /* -(2^64 + k) */
		one[1] = 1, one[0] = rnd(3);
		zka_wi_sub(v, c->r, one);
		return;
	case 8: /* Montgomery form p - 1 - k */
		one[0] = 1 + rnd(3);
		zka_wi_sub(one, c->r, one);
		from_mont_rep(c, v, one);
		return;
	case 9: { /* Montgomery form k (0 is the value 0) */
		uint64_t x[4] = {rnd(3), 0, 0, 0};
		from_mont_rep(c, v, x);
		return;
	}
	case 0:
		v[0] = rnd(3);
		break;
	case 1:
		v[0] = 1ull << rnd(63);
		break;
	case 2:
		v[0] = (1ull << 62) - rnd(3) + rnd(3);
		break;
	case 3: /* -k */
		one[0] = 1 + rnd(1000);
		zka_wi_sub(v, c->r, one);
		break;
	case 4: /* -(2^62 +- 1) */
		one[0] = (1ull << 62) - 1 + rnd(3);
		zka_wi_sub(v, c->r, one);
		break;
	default:
		zka_test_random(v, 32);
		v[3] %= c->r[3];
	}
}

static uint32_t add_node(struct gb *b, uint8_t op, uint32_t x, uint32_t y, uint32_t z)
{
	CU_ASSERT_FATAL(b->nn < b->cap);
	b->nodes[b->nn] = (struct zka_wcg_node){.op = op, .a = x, .b = y, .c = z};
	return b->nn++;
}

static uint32_t add_const(struct gb *b, const uint64_t v[4])
{
	memcpy(b->consts[b->nc], v, 32);
	return add_node(b, ZKA_WOP_CONST, b->nc++, 0, 0);
}

/* A random graph of n nodes over ni inputs; written to path. */
static void build(const zka_curve *c, const char *path, uint32_t ni, uint32_t n, int with_asserts)
{
	struct gb b = {0};
	b.consts = calloc(n, 32);
	b.nodes = calloc(n + 8, sizeof *b.nodes);
	b.cap = n + 8;
	b.wit = calloc(2 * (size_t)n + 8, 4);
	b.as = calloc(n, sizeof *b.as);
	CU_ASSERT_FATAL(b.consts && b.nodes && b.wit && b.as);
	for (uint32_t i = 0; i < ni; i++)
		add_node(&b, ZKA_WOP_INPUT, i, 0, 0);
	uint64_t one[4] = {1, 0, 0, 0}, v[4];
	uint32_t c1 = add_const(&b, one);
	while (b.nn + 4 < n) {
		uint32_t x = rnd(b.nn), y = rnd(b.nn), z = rnd(b.nn);
		switch (rnd(22)) {
		case 0:
			rand_const(c, v);
			add_const(&b, v);
			break;
		case 1: { /* a bit: (x >> k) & 1 */
			uint64_t k[4] = {rnd(70), 0, 0, 0};
			uint32_t s = add_node(&b, ZKA_WOP_SHR, x, add_const(&b, k), 0);
			uint32_t bit = add_node(&b, ZKA_WOP_BAND, c1, s, 0);
			if (with_asserts && rnd(2)) { /* circom's x (x - 1) === 0 */
				uint32_t m1 = add_node(&b, ZKA_WOP_SUB, bit, c1, 0);
				uint32_t p = add_node(&b, ZKA_WOP_MUL, bit, m1, 0);
				uint64_t zero[4] = {0, 0, 0, 0};
				uint32_t e = add_node(&b, ZKA_WOP_EQ, add_const(&b, zero), p, 0);
				b.as[b.na++] = (struct zka_wcg_assert){e, ZKA_WCG_NONE, 0, 1};
			}
			break;
		}
		case 2: { /* a mask */
			uint64_t m[4] = {(1ull << rnd(64)) - 1 + rnd(2), 0, 0, 0};
			add_node(&b, ZKA_WOP_BAND, x, add_const(&b, m), 0);
			break;
		}
		case 3:
			add_node(&b, ZKA_WOP_ADD, x, y, 0);
			break;
		case 4:
			add_node(&b, ZKA_WOP_SUB, x, y, 0);
			break;
		case 5:
		case 6:
			add_node(&b, ZKA_WOP_MUL, x, y, 0);
			break;
		case 7: /* a sum of a product: the fused multiply-add */
			add_node(&b, ZKA_WOP_ADD, x, add_node(&b, ZKA_WOP_MUL, y, z, 0), 0);
			break;
		case 8:
			add_node(&b, ZKA_WOP_NEG, x, 0, 0);
			break;
		case 9:
			add_node(&b, ZKA_WOP_SELECT, x, y, z);
			break;
		case 10:
			add_node(&b, ZKA_WOP_EQ + rnd(2), x, y, 0); /* EQ, NEQ */
			break;
		case 11:
			add_node(&b, ZKA_WOP_LT + rnd(4), x, y, 0); /* LT GT LEQ GEQ */
			break;
		case 12:
			add_node(&b, ZKA_WOP_LAND + rnd(3), x, y, 0); /* LAND LOR LNOT */
			break;
		case 13:
			add_node(&b, ZKA_WOP_BOR + rnd(2), x, y, 0); /* BOR BXOR */
			break;
		case 14: {
			uint64_t k[4] = {rnd(66), 0, 0, 0};
			add_node(&b, rnd(2) ? ZKA_WOP_SHL : ZKA_WOP_SHR, x, add_const(&b, k), 0);
			break;
		}
		case 16:
		case 17: { /* Poseidon's lc += c x: a sum of products (of a constant or a value),
			    * with addends (constants or values) anywhere in the chain */
			uint32_t nt = 1 + rnd(12), acc = UINT32_MAX;
			for (uint32_t t = 0; t < nt && b.nn + 8 < n; t++) {
				uint32_t term, u = rnd(b.nn);
				if (rnd(4) == 0) {
					term = rnd(2) ? u : (rand_const(c, v), add_const(&b, v));
				} else {
					uint32_t k = rnd(3) ? (rand_const(c, v), add_const(&b, v))
							    : rnd(b.nn);
					term = add_node(&b, ZKA_WOP_MUL, k, u, 0);
				}
				acc = acc == UINT32_MAX ? term
				      : rnd(2)		? add_node(&b, ZKA_WOP_ADD, acc, term, 0)
							: add_node(&b, ZKA_WOP_ADD, term, acc, 0);
			}
			break;
		}
		case 18: /* a balanced sum (p + q) + (r + s) of products and values */
			if (b.nn + 10 < n) {
				uint32_t p1 = add_node(&b, ZKA_WOP_MUL, x, y, 0);
				uint32_t p2 = add_node(&b, ZKA_WOP_MUL, z, rnd(b.nn), 0);
				uint32_t s1 = add_node(&b, ZKA_WOP_ADD, p1, p2, 0);
				uint32_t s2 = add_node(&b, ZKA_WOP_ADD, rnd(b.nn), rnd(b.nn), 0);
				add_node(&b, ZKA_WOP_ADD, s1, s2, 0);
			}
			break;
		case 19: { /* the S-box x^5 (its x^2 and x^4 read again) */
			uint32_t x2 = add_node(&b, ZKA_WOP_MUL, x, x, 0);
			uint32_t x4 = add_node(&b, ZKA_WOP_MUL, x2, x2, 0);
			add_node(&b, ZKA_WOP_MUL, x4, x, 0);
			break;
		}
		case 20: /* field zeros and ones: x - x, x == y */
			if (rnd(2))
				add_node(&b, ZKA_WOP_SUB, x, x, 0);
			else
				add_node(&b, ZKA_WOP_EQ, x, rnd(2) ? x : y, 0);
			break;
		default:
			if (with_asserts && rnd(8) == 0) /* an assert that can fail */
				b.as[b.na++] =
				    (struct zka_wcg_assert){x, rnd(2) ? ZKA_WCG_NONE : y, 0, 2};
			else
				add_node(&b, ZKA_WOP_ADD, x, c1, 0);
		}
	}
	for (uint32_t i = 0; i < b.nn; i++) {
		if (rnd(3) == 0)
			b.wit[b.nw++] = i;
		if (rnd(16) == 0) /* a value that is several witness entries */
			b.wit[b.nw++] = i;
	}
	if (!b.nw)
		b.wit[b.nw++] = b.nn - 1;
	const char msg[] = "test";
	struct zka_wcg_hdr h = {.version = 1,
				.curve = (uint32_t)c->id,
				.n_inputs = ni,
				.n_map = 0,
				.n_consts = b.nc,
				.n_nodes = b.nn,
				.n_witness = b.nw,
				.n_asserts = b.na,
				.msg_bytes = sizeof msg};
	memcpy(h.magic, ZKA_WCG_MAGIC, 8);
	size_t size = sizeof h + (size_t)b.nc * 32 + (size_t)b.nn * sizeof *b.nodes +
		      (size_t)b.nw * 4 + (size_t)b.na * sizeof *b.as + sizeof msg;
	uint8_t *buf = malloc(size + 8), *p = buf;
	CU_ASSERT_FATAL(buf != NULL);
#define PUT(src, len) (memcpy(p, (src), (len)), p += (len))
	PUT(&h, sizeof h);
	PUT(b.consts, (size_t)b.nc * 32);
	PUT(b.nodes, (size_t)b.nn * sizeof *b.nodes);
	PUT(b.wit, (size_t)b.nw * 4);
	PUT(b.as, (size_t)b.na * sizeof *b.as);
	PUT(msg, sizeof msg);
#undef PUT
	uint64_t sum = XXH64(buf, size, 0);
	memcpy(p, &sum, 8);
	FILE *f = fopen(path, "wb");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_FATAL(fwrite(buf, 1, size + 8, f) == size + 8);
	fclose(f);
	free(buf);
	free(b.consts);
	free(b.nodes);
	free(b.wit);
	free(b.as);
}

static uint32_t seen[256]; /* the fast programs' instructions by code, over every round */

/* Evaluates graph path on in (fast or field-only): rc, witness and message. */
static int eval(const char *path, int plain, const uint64_t (*in)[4], uint64_t (**w)[4],
		uint32_t *nw, char *err, size_t errlen)
{
	zka_wcg *g = NULL;
	if (plain)
		setenv("ZKA_WCG_PLAIN", "1", 1);
	else
		unsetenv("ZKA_WCG_PLAIN");
	int rc = zka_wcg_load(path, &g, err, errlen);
	unsetenv("ZKA_WCG_PLAIN");
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	*nw = zka_wcg_n_witness(g);
	uint32_t cnt[256];
	zka_wcg_op_counts(g, cnt);
	for (int op = 0; op < 256; op++) {
		if (plain) { /* the reference has none of the compiled forms */
			CU_ASSERT(cnt[op] == 0 || (op > 0 && op < ZKA_WOP_COUNT));
		} else {
			seen[op] += cnt[op];
		}
	}
	*w = calloc(*nw, 32);
	CU_ASSERT_FATAL(*w != NULL);
	err[0] = 0;
	rc = zka_wcg_eval(g, in, *w, NULL, err, errlen);
	zka_wcg_free(g);
	return rc;
}

static void test_fast_vs_plain(void)
{
	char path[] = "/tmp/zka-test-wcg-XXXXXX";
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	int failed = 0, passed = 0;
	for (int round = 0; round < 200; round++) {
		const zka_curve *c = curves[round % 2];
		uint32_t ni = 1 + rnd(6);
		build(c, path, ni, 50 + rnd(400), round % 4 != 0);
		uint64_t(*in)[4] = calloc(ni, 32);
		for (uint32_t i = 0; i < ni; i++)
			rand_const(c, in[i]);
		uint64_t(*w1)[4], (*w2)[4];
		uint32_t n1, n2;
		char e1[256], e2[256];
		int r1 = eval(path, 0, (const uint64_t(*)[4])in, &w1, &n1, e1, sizeof e1);
		int r2 = eval(path, 1, (const uint64_t(*)[4])in, &w2, &n2, e2, sizeof e2);
		CU_ASSERT_EQUAL(r1, r2);
		CU_ASSERT_EQUAL(n1, n2);
		if (r1 == 0 && r2 == 0 && n1 == n2) {
			CU_ASSERT_EQUAL(memcmp(w1, w2, (size_t)n1 * 32), 0);
		} else {
			CU_ASSERT_STRING_EQUAL(e1, e2);
		}
		failed += r1 != 0;
		passed += r1 == 0;
		free(w1);
		free(w2);
		free(in);
	}
	/* both outcomes were exercised, and every compiled instruction kind */
	CU_ASSERT(failed > 0);
	CU_ASSERT(passed > 0);
	CU_ASSERT(seen[ZKA_WOP_SMALL | ZKA_WOP_MAC] > 0);
	CU_ASSERT(seen[ZKA_WOP_LC] > 0);
	CU_ASSERT(seen[ZKA_WOP_FMUL] > 0);
	CU_ASSERT(seen[ZKA_WOP_FADD] > 0);
	CU_ASSERT(seen[ZKA_WOP_FSUB] > 0);
	printf("\n  instructions: LC %u, FMUL %u, FADD %u, FSUB %u, MAC %u, MUL %u, ADD %u\n",
	       seen[ZKA_WOP_LC], seen[ZKA_WOP_FMUL], seen[ZKA_WOP_FADD], seen[ZKA_WOP_FSUB],
	       seen[ZKA_WOP_SMALL | ZKA_WOP_MAC], seen[ZKA_WOP_MUL], seen[ZKA_WOP_ADD]);
	unlink(path);
}

/* The LC's arithmetic (zk/fp_tmpl.h): wide_mul and redc, portable and mulx/adx, against
 * each other and against mul and from_mont, on random and edge limbs of both Fr. */
#define LAZY_CHECK(F, P)                                                                           \
	do {                                                                                       \
		for (int it = 0; it < 20000; it++) {                                               \
			F##_t a, b, r0, r1, ref, q;                                                \
			uint64_t t0[8], t1[8], pm[4];                                              \
			zka_wi_sub(pm, P, (uint64_t[4]){1 + rnd(3), 0, 0, 0});                     \
			for (int k = 0; k < 2; k++) {                                              \
				F##_t *x = k ? &b : &a;                                            \
				int kind = (int)rnd(4);                                            \
				if (kind == 0)                                                     \
					memcpy(x->v, pm, 32); /* near p */                         \
				else if (kind == 1)                                                \
					memset(x->v, 0, 32), x->v[0] = rnd(3);                     \
				else                                                               \
					zka_test_random(x->v, 32), x->v[3] %= P[3];                \
			}                                                                          \
			F##_wide_mul_impl(t0, &a, &b, 0);                                          \
			if (F##_wide_mul_impl(t1, &a, &b, 1)) {                                    \
				CU_ASSERT(memcmp(t0, t1, 64) == 0);                                \
			}                                                                          \
			/* redc(lo) + hi = a b R^-1 (mod p) */                                     \
			F##_redc_impl(&r0, t0, 0);                                                 \
			if (F##_redc_impl(&r1, t0, 1)) {                                           \
				CU_ASSERT(memcmp(&r0, &r1, 32) == 0);                              \
			}                                                                          \
			CU_ASSERT(zka_wi_cmp(r0.v, P) <= 0);                                       \
			F##_reduce_once(&r0, &r0);                                                 \
			memcpy(q.v, t0 + 4, 32);                                                   \
			F##_reduce_once(&q, &q);                                                   \
			F##_add(&r0, &r0, &q);                                                     \
			F##_mul(&ref, &a, &b);                                                     \
			CU_ASSERT(memcmp(&r0, &ref, 32) == 0);                                     \
			/* of a canonical value: from_mont, already below p */                     \
			F##_redc(&r0, a.v);                                                        \
			F##_from_mont(&ref, &a);                                                   \
			CU_ASSERT(memcmp(&r0, &ref, 32) == 0);                                     \
		}                                                                                  \
	} while (0)

static void test_lazy_arith(void)
{
	LAZY_CHECK(bn254_fr, zka_curve_bn254.r);
	LAZY_CHECK(bls12_381_fr, zka_curve_bls12_381.r);
}

/* The 8-lane conversions (witness/wcg_ifma.h) against F(redc) and from_mont, both Fr: batches
 * of every length 1..70 (whole groups of 8 and every tail) of canonical values, random and at
 * the edges (0, 1, the Montgomery one, p - 1 - k, small, top limb only), written to distinct
 * scattered indices; the entries not named stay untouched. Where the CPU lacks AVX-512 IFMA
 * the test says so and checks nothing of it (the evaluator then never calls it). */
#define IFMA_CHECK(F, P)                                                                           \
	do {                                                                                       \
		zka_ifma_redc c;                                                                   \
		zka_ifma_redc_init(&c, P);                                                         \
		for (uint32_t n = 1; n <= 70; n++)                                                 \
			for (int rep = 0; rep < 20; rep++) {                                       \
				F##_t x[70], ref;                                                  \
				uint64_t w[160][4], keep[160][4];                                  \
				uint32_t idx[70], used[160] = {0};                                 \
				zka_test_random(w, sizeof w);                                      \
				memcpy(keep, w, sizeof w);                                         \
				for (uint32_t k = 0; k < n; k++) {                                 \
					int kind = (int)rnd(6);                                    \
					memset(x[k].v, 0, 32);                                     \
					if (kind == 0)                                             \
						x[k].v[0] = rnd(2);                                \
					else if (kind == 1)                                        \
						F##_one(&x[k]);                                    \
					else if (kind == 2)                                        \
						zka_wi_sub(x[k].v, P,                              \
							   (uint64_t[4]){1 + rnd(3), 0, 0, 0});    \
					else if (kind == 3)                                        \
						x[k].v[3] = zka_test_rand64() % P[3];              \
					else                                                       \
						zka_test_random(x[k].v, 32), x[k].v[3] %= P[3];    \
					do                                                         \
						idx[k] = rnd(160);                                 \
					while (used[idx[k]]);                                      \
					used[idx[k]] = 1;                                          \
				}                                                                  \
				zka_ifma_to_std(w, (const uint64_t(*)[4])x, idx, n, &c);           \
				for (uint32_t k = 0; k < n; k++) {                                 \
					F##_from_mont(&ref, &x[k]);                                \
					CU_ASSERT(memcmp(w[idx[k]], ref.v, 32) == 0);              \
					F##_redc(&ref, x[k].v);                                    \
					CU_ASSERT(memcmp(w[idx[k]], ref.v, 32) == 0);              \
				}                                                                  \
				for (uint32_t i = 0; i < 160; i++)                                 \
					if (!used[i])                                              \
						CU_ASSERT(memcmp(w[i], keep[i], 32) == 0);         \
			}                                                                          \
	} while (0)

static void test_ifma(void)
{
	if (!zka_ifma_available()) {
		printf("\n  note: this CPU has no AVX-512 IFMA: the 8-lane conversions are not "
		       "tested here ");
		return;
	}
	IFMA_CHECK(bn254_fr, zka_curve_bn254.r);
	IFMA_CHECK(bls12_381_fr, zka_curve_bls12_381.r);
	printf("\n  witness conversions: %s ", zka_wcg_conversions());
}

/* One load of graph path through its kept form in dir, evaluated on in and compared with the
 * reference (rc, then the witness or the message); k: what the load did. */
static void kept_check(const char *path, const char *dir, const uint64_t (*in)[4], int ref_rc,
		       const uint64_t (*ref)[4], const char *ref_err, struct zka_wcg_kept *k)
{
	zka_wcg *g = NULL;
	char err[256] = "";
	int rc = zka_wcg_load_kept(path, dir, &g, k, err, sizeof err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	uint32_t nw = zka_wcg_n_witness(g);
	uint64_t(*w)[4] = calloc(nw, 32);
	CU_ASSERT_FATAL(w != NULL);
	rc = zka_wcg_eval(g, in, w, NULL, err, sizeof err);
	CU_ASSERT_EQUAL(rc, ref_rc);
	if (rc == 0 && ref_rc == 0) {
		CU_ASSERT_EQUAL(memcmp(w, ref, (size_t)nw * 32), 0);
	} else {
		CU_ASSERT_STRING_EQUAL(err, ref_err);
	}
	free(w);
	zka_wcg_free(g);
}

/* Replaces the entry at path by its first n bytes with byte at (if >= 0) flipped. */
static void kept_damage(const char *path, long n, long at)
{
	FILE *f = fopen(path, "rb");
	CU_ASSERT_FATAL(f != NULL);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = calloc((size_t)(n > size ? n : size) + 1, 1);
	CU_ASSERT_FATAL(b != NULL);
	CU_ASSERT_FATAL(fread(b, 1, (size_t)size, f) == (size_t)size);
	fclose(f);
	if (at >= 0)
		b[at] ^= (uint8_t)(1u << rnd(8));
	unlink(path);
	f = fopen(path, "wb");
	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_FATAL(fwrite(b, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	chmod(path, 0600);
	free(b);
}

/* Size of the file at path (-1: none). */
static long fsize(const char *path)
{
	struct stat st;
	return stat(path, &st) ? -1 : (long)st.st_size;
}

/* The compiled form kept between processes (zka_wcg_load_kept, wcg.c K1-K4): the first load
 * compiles and writes the entry (mode 0600), the next maps it; every evaluation is the fresh
 * compile's, byte for byte. A flipped byte anywhere, a truncated, extended or empty entry,
 * a group-writable one, another user's (as root), a symbolic link: refused with a reason and
 * rebuilt. The graph rewritten in place (each round) or another ZKA_WCG_PLAIN: compiled again
 * without a refusal. A
 * directory in the entry's place: the graph is still compiled and evaluated, the entry not
 * written (a reason given). */
static void test_kept(void)
{
	char dir[] = "/tmp/zka-test-kept-XXXXXX", path[4200];
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/g.wcg", dir);
	for (int round = 0; round < 8; round++) {
		const zka_curve *c = curves[round % 2];
		uint32_t ni = 1 + rnd(6);
		build(c, path, ni, 100 + rnd(400), round % 4 != 0);
		uint64_t(*in)[4] = calloc(ni, 32);
		CU_ASSERT_FATAL(in != NULL);
		for (uint32_t i = 0; i < ni; i++)
			rand_const(c, in[i]);
		const uint64_t(*cin)[4] = (const uint64_t(*)[4])in;
		uint64_t(*ref)[4];
		uint32_t nref;
		char eref[256];
		int rref = eval(path, 0, cin, &ref, &nref, eref, sizeof eref);
		struct zka_wcg_kept k;
		char entry[4200];
		kept_check(path, dir, cin, rref, (const uint64_t(*)[4])ref, eref, &k);
		/* the graph rewritten in place since the last round: another version's entry */
		CU_ASSERT(!k.hit && k.written && !k.refused && !k.werr[0]);
		CU_ASSERT(round ? k.why[0] != 0 : k.why[0] == 0);
		snprintf(entry, sizeof entry, "%s", k.entry);
		struct stat st;
		CU_ASSERT_FATAL(stat(entry, &st) == 0);
		CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);
		kept_check(path, dir, cin, rref, (const uint64_t(*)[4])ref, eref, &k);
		CU_ASSERT(k.hit && !k.written && !k.refused);
		CU_ASSERT_STRING_EQUAL(k.entry, entry);
		long size = fsize(entry);
		/* damaged: each is refused, rebuilt, and the next load maps the rebuilt one */
		for (int d = 0; d < 12; d++) {
			if (d < 6)
				kept_damage(entry, size, (long)rnd((uint32_t)size)); /* a flip */
			else if (d == 6)
				kept_damage(entry, size - 1 - (long)rnd((uint32_t)size - 1), -1);
			else if (d == 7)
				kept_damage(entry, size + 1, -1);
			else if (d == 8)
				kept_damage(entry, 0, -1);
			else if (d == 9) {
				CU_ASSERT_FATAL(chmod(entry, 0620) == 0);
			} else if (d == 10 && geteuid() == 0) {
				CU_ASSERT_FATAL(chown(entry, 12345, 12345) == 0);
			} else { /* a link to a good copy of the entry */
				char cp[4300];
				snprintf(cp, sizeof cp, "%s.copy", entry);
				CU_ASSERT_FATAL(rename(entry, cp) == 0);
				CU_ASSERT_FATAL(symlink(cp, entry) == 0);
			}
			kept_check(path, dir, cin, rref, (const uint64_t(*)[4])ref, eref, &k);
			/* a flip in the identity fields reads as another graph's entry: not refused
			 * but never used */
			CU_ASSERT(!k.hit && k.written && k.why[0]);
			CU_ASSERT(k.refused || d < 6);
			kept_check(path, dir, cin, rref, (const uint64_t(*)[4])ref, eref, &k);
			CU_ASSERT(k.hit);
		}
		char cp[4300];
		snprintf(cp, sizeof cp, "%s.copy", entry);
		unlink(cp);
		/* another compile mode: compiled again, no refusal, then kept */
		setenv("ZKA_WCG_PLAIN", "1", 1);
		kept_check(path, dir, cin, rref, (const uint64_t(*)[4])ref, eref, &k);
		CU_ASSERT(!k.hit && k.written && !k.refused && k.why[0]);
		kept_check(path, dir, cin, rref, (const uint64_t(*)[4])ref, eref, &k);
		CU_ASSERT(k.hit);
		unsetenv("ZKA_WCG_PLAIN");
		kept_check(path, dir, cin, rref, (const uint64_t(*)[4])ref, eref, &k);
		CU_ASSERT(!k.hit && k.written && !k.refused);
		/* a directory where the entry goes: compiled, not kept, said */
		unlink(entry);
		CU_ASSERT_FATAL(mkdir(entry, 0700) == 0);
		kept_check(path, dir, cin, rref, (const uint64_t(*)[4])ref, eref, &k);
		CU_ASSERT(!k.hit && !k.written && k.refused && k.werr[0]);
		rmdir(entry);
		kept_check(path, dir, cin, rref, (const uint64_t(*)[4])ref, eref, &k);
		CU_ASSERT(!k.hit && k.written && !k.why[0]);
		free(ref);
		free(in);
	}
	CU_ASSERT(fsize(path) > 0);
	unlink(path);
	char cmd[4300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CU_ASSERT(system(cmd) == 0);
}

int main(void)
{
	static const zka_test_case cases[] = {
	    {"wide products and Montgomery reduction", test_lazy_arith},
	    {"8-lane conversions (AVX-512 IFMA) = Montgomery reduction", test_ifma},
	    {"fast paths = field-only evaluation", test_fast_vs_plain},
	    {"compiled form kept between processes", test_kept},
	    {NULL, NULL}};
	zka_test_suite("wcg", cases);
	return zka_test_run();
}
