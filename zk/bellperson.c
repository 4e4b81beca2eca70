/* bellperson.c - .params files and 192-byte proofs (see bellperson.h's design note).
 *
 * Points move between the Zcash encoding and this project's layout one at a time (a
 * coordinate is reversed into little-endian, checked below q, put in Montgomery form); a
 * section's points are converted and checked by zka_par_for threads, the lowest failing index
 * kept under a mutex. Decompression takes square roots with q = 3 mod 4: a^((q+1)/4) in Fq,
 * the Adj-Rodriguez-Henriquez method in Fq2; any root found is checked by squaring it. */
#include "zk/bellperson.h"
#include "zk/bls12_381.h"
#include "zk/fmt_atomic.h"
#include "zk/fmt_err.h"
#include "zk/par.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef bls12_381_fq_t fq;
typedef bls12_381_fq2_t fq2;
typedef bls12_381_g1_aff g1a;
typedef bls12_381_g2_aff g2a;

#define FQB 48

/* ---- coordinates ---- */

/* r = the big-endian 48 bytes at be (the top 3 bits dropped when masked), Montgomery; -1 when
 * not below q */
static int fq_from_be(fq *r, const uint8_t *be, int masked)
{
	fq t;
	uint8_t *le = (uint8_t *)t.v;
	for (int i = 0; i < FQB; i++)
		le[i] = be[FQB - 1 - i];
	if (masked)
		le[FQB - 1] &= 0x1f;
	if (!bls12_381_fq_is_canonical(&t))
		return -1;
	bls12_381_fq_to_mont(r, &t);
	return 0;
}

/* be = a (Montgomery) as 48 big-endian bytes */
static void fq_to_be(uint8_t *be, const fq *a)
{
	fq t;
	bls12_381_fq_from_mont(&t, a);
	const uint8_t *le = (const uint8_t *)t.v;
	for (int i = 0; i < FQB; i++)
		be[i] = le[FQB - 1 - i];
}

/* 1 when a (Montgomery) is the larger of a and -a as integers (Zcash's sort flag) */
static int fq_larger(const fq *a)
{
	fq x, nx;
	bls12_381_fq_neg(&nx, a);
	bls12_381_fq_from_mont(&x, a);
	bls12_381_fq_from_mont(&nx, &nx);
	for (int i = 5; i >= 0; i--)
		if (x.v[i] != nx.v[i])
			return x.v[i] > nx.v[i];
	return 0;
}

static int fq2_larger(const fq2 *a)
{
	return bls12_381_fq_is_zero(&a->c1) ? fq_larger(&a->c0) : fq_larger(&a->c1);
}

/* e = (q + add) >> sh, add in {1, -1, -3} */
static void q_exp(uint64_t e[6], int64_t add, int sh)
{
	memcpy(e, BLS12_381_FQ_P, 6 * sizeof *e);
	if (add > 0)
		e[0] += (uint64_t)add; /* q's low limb is far from 2^64 */
	else
		e[0] -= (uint64_t)-add;
	for (int i = 0; i < 6; i++)
		e[i] = (e[i] >> sh) | (i < 5 ? e[i + 1] << (64 - sh) : 0);
}

static void fq2_pow(fq2 *r, const fq2 *a, const uint64_t e[6])
{
	fq2 acc, base = *a;
	bls12_381_fq2_one(&acc);
	for (int i = 5; i >= 0; i--)
		for (int b = 63; b >= 0; b--) {
			bls12_381_fq2_sqr(&acc, &acc);
			if ((e[i] >> b) & 1)
				bls12_381_fq2_mul(&acc, &acc, &base);
		}
	*r = acc;
}

/* r = a square root of a; -1 when a is not a square */
static int fq_sqrt(fq *r, const fq *a)
{
	uint64_t e[6];
	fq s;
	q_exp(e, 1, 2);
	bls12_381_fq_pow(r, a, e, 6);
	bls12_381_fq_sqr(&s, r);
	return bls12_381_fq_eq(&s, a) ? 0 : -1;
}

static int fq2_sqrt(fq2 *r, const fq2 *a)
{
	uint64_t e34[6], e12[6];
	fq2 a1, alpha, x0, t, m1;
	q_exp(e34, -3, 2);
	q_exp(e12, -1, 1);
	fq2_pow(&a1, a, e34);
	bls12_381_fq2_mul(&x0, &a1, a);	     /* a^((q+1)/4) */
	bls12_381_fq2_mul(&alpha, &a1, &x0); /* a^((q-1)/2) */
	bls12_381_fq2_one(&m1);
	bls12_381_fq2_neg(&m1, &m1);
	if (bls12_381_fq2_eq(&alpha, &m1)) { /* x = i x0 */
		fq c0 = x0.c0;
		bls12_381_fq_neg(&r->c0, &x0.c1);
		r->c1 = c0;
	} else {
		fq2 one;
		bls12_381_fq2_one(&one);
		bls12_381_fq2_add(&t, &alpha, &one);
		fq2_pow(&t, &t, e12);
		bls12_381_fq2_mul(r, &t, &x0);
	}
	bls12_381_fq2_sqr(&t, r);
	return bls12_381_fq2_eq(&t, a) ? 0 : -1;
}

/* ---- points ---- */

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static const char *check_reason(int c)
{
	return c == ZKA_ENOTONCURVE ? "not on the curve"
	       : c		    ? "not in the prime-order subgroup"
				    : NULL;
}

/* the flags of an encoded point: NULL when they fit (compressed or not); *inf set */
static const char *flags_ok(const uint8_t *in, size_t n, int compressed, int *inf)
{
	uint8_t f = in[0] & 0xe0;
	*inf = 0;
	if (!(f & 0x80) != !compressed)
		return compressed ? "compressed flag missing" : "compressed flag set";
	if (f & 0x40) {
		if ((f & 0x20) || (in[0] & 0x1f) || !all_zero(in + 1, n - 1))
			return "infinity flag with other bits set";
		*inf = 1;
		return NULL;
	}
	if (!compressed && (f & 0x20))
		return "sort flag set in an uncompressed point";
	return NULL;
}

/* See zka_bp_g1_encode in bellperson.h. */
void zka_bp_g1_encode(const uint8_t *pt, uint8_t out[96])
{
	g1a a;
	memcpy(&a, pt, sizeof a);
	if (bls12_381_g1_aff_is_inf(&a)) {
		memset(out, 0, 96);
		out[0] = 0x40;
		return;
	}
	fq_to_be(out, &a.x);
	fq_to_be(out + FQB, &a.y);
}

/* See zka_bp_g2_encode in bellperson.h. */
void zka_bp_g2_encode(const uint8_t *pt, uint8_t out[192])
{
	g2a a;
	memcpy(&a, pt, sizeof a);
	if (bls12_381_g2_aff_is_inf(&a)) {
		memset(out, 0, 192);
		out[0] = 0x40;
		return;
	}
	fq_to_be(out, &a.x.c1);
	fq_to_be(out + FQB, &a.x.c0);
	fq_to_be(out + 2 * FQB, &a.y.c1);
	fq_to_be(out + 3 * FQB, &a.y.c0);
}

/* zka_bp_g1_decode; with curve_only the subgroup is not checked (the caller checks it) */
static const char *g1_decode(const uint8_t in[96], uint8_t *pt, int curve_only)
{
	int inf;
	const char *why = flags_ok(in, 96, 0, &inf);
	g1a a;
	memset(&a, 0, sizeof a);
	if (!why && !inf && (fq_from_be(&a.x, in, 1) || fq_from_be(&a.y, in + FQB, 0)))
		why = "coordinate not below q";
	if (!why && !inf && bls12_381_g1_aff_is_inf(&a))
		why = "not on the curve"; /* (0, 0) without the infinity flag */
	if (!why && curve_only && !bls12_381_g1_aff_on_curve(&a))
		why = "not on the curve";
	if (!why && !curve_only)
		why = check_reason(zka_curve_bls12_381.g1_check(&a));
	if (!why)
		memcpy(pt, &a, sizeof a);
	return why;
}

/* See zka_bp_g1_decode in bellperson.h. */
const char *zka_bp_g1_decode(const uint8_t in[96], uint8_t *pt)
{
	return g1_decode(in, pt, 0);
}

/* zka_bp_g2_decode; with curve_only the subgroup is not checked (the caller checks it) */
static const char *g2_decode(const uint8_t in[192], uint8_t *pt, int curve_only)
{
	int inf;
	const char *why = flags_ok(in, 192, 0, &inf);
	g2a a;
	memset(&a, 0, sizeof a);
	if (!why && !inf &&
	    (fq_from_be(&a.x.c1, in, 1) || fq_from_be(&a.x.c0, in + FQB, 0) ||
	     fq_from_be(&a.y.c1, in + 2 * FQB, 0) || fq_from_be(&a.y.c0, in + 3 * FQB, 0)))
		why = "coordinate not below q";
	if (!why && !inf && bls12_381_g2_aff_is_inf(&a))
		why = "not on the curve";
	if (!why && curve_only && !bls12_381_g2_aff_on_curve(&a))
		why = "not on the curve";
	if (!why && !curve_only)
		why = check_reason(zka_curve_bls12_381.g2_check(&a));
	if (!why)
		memcpy(pt, &a, sizeof a);
	return why;
}

/* See zka_bp_g2_decode in bellperson.h. */
const char *zka_bp_g2_decode(const uint8_t in[192], uint8_t *pt)
{
	return g2_decode(in, pt, 0);
}

/* See zka_bp_g1_compress in bellperson.h. */
void zka_bp_g1_compress(const uint8_t *pt, uint8_t out[48])
{
	g1a a;
	memcpy(&a, pt, sizeof a);
	if (bls12_381_g1_aff_is_inf(&a)) {
		memset(out, 0, 48);
		out[0] = 0xc0;
		return;
	}
	fq_to_be(out, &a.x);
	out[0] |= 0x80 | (fq_larger(&a.y) ? 0x20 : 0);
}

/* See zka_bp_g2_compress in bellperson.h. */
void zka_bp_g2_compress(const uint8_t *pt, uint8_t out[96])
{
	g2a a;
	memcpy(&a, pt, sizeof a);
	if (bls12_381_g2_aff_is_inf(&a)) {
		memset(out, 0, 96);
		out[0] = 0xc0;
		return;
	}
	fq_to_be(out, &a.x.c1);
	fq_to_be(out + FQB, &a.x.c0);
	out[0] |= 0x80 | (fq2_larger(&a.y) ? 0x20 : 0);
}

/* See zka_bp_g1_decompress in bellperson.h. */
const char *zka_bp_g1_decompress(const uint8_t in[48], uint8_t *pt)
{
	int inf;
	const char *why = flags_ok(in, 48, 1, &inf);
	g1a a;
	memset(&a, 0, sizeof a);
	if (!why && !inf) {
		fq rhs, b;
		memcpy(b.v, BLS12_381_G1_B, sizeof b.v);
		if (fq_from_be(&a.x, in, 1))
			return "coordinate not below q";
		bls12_381_fq_sqr(&rhs, &a.x);
		bls12_381_fq_mul(&rhs, &rhs, &a.x);
		bls12_381_fq_add(&rhs, &rhs, &b);
		if (fq_sqrt(&a.y, &rhs))
			return "not on the curve";
		if (fq_larger(&a.y) != !!(in[0] & 0x20))
			bls12_381_fq_neg(&a.y, &a.y);
	}
	if (!why)
		why = check_reason(zka_curve_bls12_381.g1_check(&a));
	if (!why)
		memcpy(pt, &a, sizeof a);
	return why;
}

/* See zka_bp_g2_decompress in bellperson.h. */
const char *zka_bp_g2_decompress(const uint8_t in[96], uint8_t *pt)
{
	int inf;
	const char *why = flags_ok(in, 96, 1, &inf);
	g2a a;
	memset(&a, 0, sizeof a);
	if (!why && !inf) {
		fq2 rhs, b;
		memcpy(b.c0.v, BLS12_381_G2_B0, sizeof b.c0.v);
		memcpy(b.c1.v, BLS12_381_G2_B1, sizeof b.c1.v);
		if (fq_from_be(&a.x.c1, in, 1) || fq_from_be(&a.x.c0, in + FQB, 0))
			return "coordinate not below q";
		bls12_381_fq2_sqr(&rhs, &a.x);
		bls12_381_fq2_mul(&rhs, &rhs, &a.x);
		bls12_381_fq2_add(&rhs, &rhs, &b);
		if (fq2_sqrt(&a.y, &rhs))
			return "not on the curve";
		if (fq2_larger(&a.y) != !!(in[0] & 0x20))
			bls12_381_fq2_neg(&a.y, &a.y);
	}
	if (!why)
		why = check_reason(zka_curve_bls12_381.g2_check(&a));
	if (!why)
		memcpy(pt, &a, sizeof a);
	return why;
}

/* ---- proofs ---- */

/* See zka_bp_proof_encode in bellperson.h. */
void zka_bp_proof_encode(const zka_proof *pr, uint8_t out[ZKA_BP_PROOF_BYTES])
{
	zka_bp_g1_compress(pr->a, out);
	zka_bp_g2_compress(pr->b, out + 48);
	zka_bp_g1_compress(pr->c, out + 144);
}

/* See zka_bp_proof_decode in bellperson.h. */
int zka_bp_proof_decode(const uint8_t in[ZKA_BP_PROOF_BYTES], zka_proof *pr, char *err,
			size_t errlen)
{
	const char *why;
	memset(pr, 0, sizeof *pr);
	pr->curve = &zka_curve_bls12_381;
	if ((why = zka_bp_g1_decompress(in, pr->a)))
		zka_fmt_err(err, errlen, "proof", "A: %s", why);
	else if ((why = zka_bp_g2_decompress(in + 48, pr->b)))
		zka_fmt_err(err, errlen, "proof", "B: %s", why);
	else if ((why = zka_bp_g1_decompress(in + 144, pr->c)))
		zka_fmt_err(err, errlen, "proof", "C: %s", why);
	return why ? -EINVAL : 0;
}

/* ---- files ---- */

/* See zka_bp_free in bellperson.h. */
void zka_bp_free(zka_bp_params *p)
{
	if (!p)
		return;
	free(p->ic);
	free(p->h);
	free(p->l);
	free(p->a);
	free(p->b1);
	free(p->b2);
	memset(p, 0, sizeof *p);
}

/* One section's conversion by threads: the lowest bad index and its reason. */
struct conv {
	const uint8_t *src;
	uint8_t *dst;
	int g2;
	int curve_only; /* the subgroup left to the caller (ZKA_BP_READ_CURVE_ONLY) */
	pthread_mutex_t mu;
	uint64_t bad; /* UINT64_MAX: none */
	const char *why;
};

static void conv_fn(void *ctx, size_t begin, size_t end, int tid)
{
	(void)tid;
	struct conv *c = ctx;
	size_t in = c->g2 ? 192 : 96, out = c->g2 ? 192 : 96;
	for (size_t i = begin; i < end; i++) {
		const char *why = c->g2
				      ? g2_decode(c->src + i * in, c->dst + i * out, c->curve_only)
				      : g1_decode(c->src + i * in, c->dst + i * out, c->curve_only);
		if (!why)
			continue;
		pthread_mutex_lock(&c->mu);
		if (i < c->bad)
			c->bad = i, c->why = why;
		pthread_mutex_unlock(&c->mu);
		return; /* later indices of this range cannot be lower */
	}
}

/* n points of section name from src into dst (threads); 0 or -EINVAL naming the index */
static int conv_points(const char *path, const char *name, const uint8_t *src, uint8_t *dst,
		       size_t n, int g2, int curve_only, int threads, char *err, size_t errlen)
{
	struct conv c = {
	    .src = src, .dst = dst, .g2 = g2, .curve_only = curve_only, .bad = UINT64_MAX};
	pthread_mutex_init(&c.mu, NULL);
	zka_par_for(n < 64 ? 1 : threads, n, conv_fn, &c);
	pthread_mutex_destroy(&c.mu);
	if (c.bad == UINT64_MAX)
		return 0;
	zka_fmt_err(err, errlen, path, "section %s index %llu: %s", name, (unsigned long long)c.bad,
		    c.why);
	return -EINVAL;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* See bellperson.h. */
const char *const zka_bp_section_name[6] = {"ic", "h", "l", "a", "b_g1", "b_g2"};

/* See zka_bp_file_layout in bellperson.h. */
size_t zka_bp_file_layout(const zka_bp_params *p, size_t off[6])
{
	const uint32_t cnt[6] = {p->n_ic, p->n_h, p->n_l, p->n_a, p->n_b1, p->n_b2};
	size_t o = 96 * 3 + 192 * 3; /* the vk */
	for (int s = 0; s < 6; s++) {
		off[s] = o + 4;
		o += 4 + (size_t)cnt[s] * (s == 5 ? 192 : 96);
	}
	return o;
}

/* See zka_bp_is_params in bellperson.h. */
int zka_bp_is_params(const char *path)
{
	size_t l = strlen(path);
	return l > 7 && !strcmp(path + l - 7, ".params");
}

/* zka_bp_read_flags, or with vk_only the vk and ic alone (the rest neither read nor checked) */
static int bp_read(const char *path, zka_bp_params *p, int threads, int vk_only, int flags,
		   char *err, size_t errlen);

/* See zka_bp_read in bellperson.h. */
int zka_bp_read(const char *path, zka_bp_params *p, int threads, char *err, size_t errlen)
{
	return bp_read(path, p, threads, 0, 0, err, errlen);
}

/* See zka_bp_read_flags in bellperson.h. */
int zka_bp_read_flags(const char *path, zka_bp_params *p, int threads, int flags, char *err,
		      size_t errlen)
{
	return bp_read(path, p, threads, 0, flags, err, errlen);
}

/* See zka_bp_read_vk in bellperson.h. */
int zka_bp_read_vk(const char *path, zka_vk *vk, char *err, size_t errlen)
{
	zka_bp_params p;
	memset(vk, 0, sizeof *vk);
	int r = bp_read(path, &p, 0, 1, 0, err, errlen);
	if (r)
		return r;
	if (p.n_ic == 0) {
		zka_fmt_err(err, errlen, path, "section ic: no points (at least the constant's)");
		zka_bp_free(&p);
		return -EINVAL;
	}
	vk->curve = p.curve;
	vk->n_public = p.n_ic - 1;
	vk->IC = p.ic;
	p.ic = NULL;
	if (!(vk->alpha1 = malloc(96)) || !(vk->beta2 = malloc(192)) ||
	    !(vk->gamma2 = malloc(192)) || !(vk->delta2 = malloc(192))) {
		zka_vk_free(vk);
		zka_bp_free(&p);
		zka_fmt_err(err, errlen, path, "out of memory");
		return -ENOMEM;
	}
	memcpy(vk->alpha1, p.alpha1, 96);
	memcpy(vk->beta2, p.beta2, 192);
	memcpy(vk->gamma2, p.gamma2, 192);
	memcpy(vk->delta2, p.delta2, 192);
	zka_bp_free(&p);
	return 0;
}

static int bp_read(const char *path, zka_bp_params *p, int threads, int vk_only, int flags,
		   char *err, size_t errlen)
{
	const int curve_only = !!(flags & ZKA_BP_READ_CURVE_ONLY);
	static const char *vk_name[6] = {"vk.alpha_g1", "vk.beta_g1",  "vk.beta_g2",
					 "vk.gamma_g2", "vk.delta_g1", "vk.delta_g2"};
	memset(p, 0, sizeof *p);
	p->curve = &zka_curve_bls12_381;
	threads = zka_par_threads(threads);
	/* O_NONBLOCK: a FIFO planted at the name is refused, never waited on */
	int ret, fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat sb;
	const uint8_t *m = MAP_FAILED;
	size_t size = 0, off = 0;
	if (fd < 0 || fstat(fd, &sb)) {
		ret = -errno;
		zka_fmt_err(err, errlen, path, "%s", strerror(errno));
		goto err;
	}
	if (!S_ISREG(sb.st_mode)) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path, "not a regular file");
		goto err;
	}
	size = (size_t)sb.st_size;
	if (size < 96 * 3 + 192 * 3 + 4) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path, "truncated: %zu bytes, shorter than a vk", size);
		goto err;
	}
	m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		ret = -errno;
		zka_fmt_err(err, errlen, path, "mmap: %s", strerror(errno));
		goto err;
	}
	madvise((void *)m, size, MADV_SEQUENTIAL);
	uint8_t *vk_dst[6] = {p->alpha1, p->beta1, p->beta2, p->gamma2, p->delta1, p->delta2};
	for (int i = 0; i < 6; i++) {
		int g2 = i == 2 || i == 3 || i == 5;
		if ((ret = conv_points(path, vk_name[i], m + off, vk_dst[i], 1, g2, 0, 1, err,
				       errlen)))
			goto err;
		off += g2 ? 192 : 96;
	}
	uint32_t *cnt[6] = {&p->n_ic, &p->n_h, &p->n_l, &p->n_a, &p->n_b1, &p->n_b2};
	uint8_t **dst[6] = {&p->ic, &p->h, &p->l, &p->a, &p->b1, &p->b2};
	for (int s = 0; s < (vk_only ? 1 : 6); s++) {
		size_t ps = s == 5 ? 192 : 96;
		if (size - off < 4) {
			ret = -EINVAL;
			zka_fmt_err(err, errlen, path,
				    "truncated: no count of section %s at byte %zu",
				    zka_bp_section_name[s], off);
			goto err;
		}
		uint32_t n = be32(m + off);
		off += 4;
		if ((size - off) / ps < n) {
			ret = -EINVAL;
			zka_fmt_err(err, errlen, path,
				    "section %s: count %u needs %llu bytes, %zu left (truncated or "
				    "a bad count)",
				    zka_bp_section_name[s], n, (unsigned long long)n * ps,
				    size - off);
			goto err;
		}
		*cnt[s] = n;
		*dst[s] = malloc(n ? (size_t)n * ps : 1);
		if (!*dst[s]) {
			ret = -ENOMEM;
			zka_fmt_err(err, errlen, path, "out of memory");
			goto err;
		}
		if ((ret = conv_points(path, zka_bp_section_name[s], m + off, *dst[s], n, s == 5,
				       curve_only, threads, err, errlen)))
			goto err;
		off += (size_t)n * ps;
	}
	if (off != size && !vk_only) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path, "%zu extra bytes after section b_g2", size - off);
		goto err;
	}
	ret = 0;
err:
	if (m != MAP_FAILED)
		munmap((void *)m, size);
	if (fd >= 0)
		close(fd);
	if (ret)
		zka_bp_free(p);
	return ret;
}

/* n points of pts written encoded through a buffer */
static int write_points(zka_atomic *a, const uint8_t *pts, size_t n, int g2, int count)
{
	uint8_t buf[192 * 256], c[4];
	size_t ps = g2 ? 192 : 96, k = 0;
	int ret = 0;
	if (count) {
		c[0] = (uint8_t)(n >> 24), c[1] = (uint8_t)(n >> 16), c[2] = (uint8_t)(n >> 8),
		c[3] = (uint8_t)n;
		if ((ret = zka_atomic_write(a, c, 4)))
			return ret;
	}
	for (size_t i = 0; i < n; i++) {
		if (g2)
			zka_bp_g2_encode(pts + i * ps, buf + k * ps);
		else
			zka_bp_g1_encode(pts + i * ps, buf + k * ps);
		if (++k * ps == sizeof buf || i + 1 == n) {
			if ((ret = zka_atomic_write(a, buf, k * ps)))
				return ret;
			k = 0;
		}
	}
	return 0;
}

/* See zka_bp_write in bellperson.h. */
int zka_bp_write(const char *path, const zka_bp_params *p, char *err, size_t errlen)
{
	zka_atomic a;
	int ret = zka_atomic_open(&a, path);
	if (ret) {
		zka_fmt_err(err, errlen, path, "%s", strerror(-ret));
		return ret;
	}
	if ((ret = write_points(&a, p->alpha1, 1, 0, 0)) ||
	    (ret = write_points(&a, p->beta1, 1, 0, 0)) ||
	    (ret = write_points(&a, p->beta2, 1, 1, 0)) ||
	    (ret = write_points(&a, p->gamma2, 1, 1, 0)) ||
	    (ret = write_points(&a, p->delta1, 1, 0, 0)) ||
	    (ret = write_points(&a, p->delta2, 1, 1, 0)) ||
	    (ret = write_points(&a, p->ic, p->n_ic, 0, 1)) ||
	    (ret = write_points(&a, p->h, p->n_h, 0, 1)) ||
	    (ret = write_points(&a, p->l, p->n_l, 0, 1)) ||
	    (ret = write_points(&a, p->a, p->n_a, 0, 1)) ||
	    (ret = write_points(&a, p->b1, p->n_b1, 0, 1)) ||
	    (ret = write_points(&a, p->b2, p->n_b2, 1, 1)))
		goto err;
	if ((ret = zka_atomic_commit(&a)))
		goto err_committed;
	return 0;
err:
	zka_atomic_abort(&a);
err_committed:
	zka_fmt_err(err, errlen, path, "write: %s", strerror(-ret));
	return ret;
}

/* ---- keys ---- */

/* See zka_bp_density in bellperson.h. */
int zka_bp_density(const zka_r1cs *cs, uint8_t **in_a, uint8_t **in_b, uint32_t *na, uint32_t *nb)
{
	uint32_t nv = cs->n_wires, npub = cs->n_pub_out + cs->n_pub_in;
	*in_a = calloc(nv ? nv : 1, 1);
	*in_b = calloc(nv ? nv : 1, 1);
	if (!*in_a || !*in_b) {
		free(*in_a);
		free(*in_b);
		*in_a = *in_b = NULL;
		return -ENOMEM;
	}
	for (uint32_t j = 0; j <= npub && j < nv; j++)
		(*in_a)[j] = 1;
	for (uint64_t t = 0; t < cs->m[0].n_terms; t++)
		(*in_a)[cs->m[0].signal[t]] = 1;
	for (uint64_t t = 0; t < cs->m[1].n_terms; t++)
		(*in_b)[cs->m[1].signal[t]] = 1;
	*na = *nb = 0;
	for (uint32_t j = 0; j < nv; j++)
		*na += (*in_a)[j], *nb += (*in_b)[j];
	return 0;
}

/* the domain of cs: the smallest 2^k >= constraints + public + 1; -1 when too large */
static int domain_log(const zka_r1cs *cs)
{
	uint64_t rows = (uint64_t)cs->n_constraints + cs->n_pub_out + cs->n_pub_in + 1;
	int k = 0;
	while (((uint64_t)1 << k) < rows)
		k++;
	return k + 1 > BLS12_381_FR_S ? -1 : k;
}

/* zka_bp_to_pk; with take, p's buffers are moved into pk (ic, l, h) or freed as soon as their
 * points are placed (a, b_g1, b_g2), and p is zeroed: the key is then never held twice */
static int bp_to_pk(zka_bp_params *p, int take, const zka_r1cs *cs, uint32_t root, zka_pk *pk,
		    char *err, size_t errlen);

/* See zka_bp_to_pk in bellperson.h. */
int zka_bp_to_pk(const zka_bp_params *p, const zka_r1cs *cs, uint32_t root, zka_pk *pk, char *err,
		 size_t errlen)
{
	return bp_to_pk((zka_bp_params *)p, 0, cs, root, pk, err, errlen); /* not written */
}

/* See zka_bp_to_pk_take in bellperson.h. */
int zka_bp_to_pk_take(zka_bp_params *p, const zka_r1cs *cs, uint32_t root, zka_pk *pk, char *err,
		      size_t errlen)
{
	int ret = bp_to_pk(p, 1, cs, root, pk, err, errlen);
	zka_bp_free(p);
	return ret;
}

static int bp_to_pk(zka_bp_params *p, int take, const zka_r1cs *cs, uint32_t root, zka_pk *pk,
		    char *err, size_t errlen)
{
	const char *what = ".params";
	uint32_t nv = cs->n_wires, npub = cs->n_pub_out + cs->n_pub_in, na, nb;
	uint8_t *in_a = NULL, *in_b = NULL;
	int k = domain_log(cs), ret = -EINVAL;
	memset(pk, 0, sizeof *pk);
	if (cs->curve != &zka_curve_bls12_381) {
		zka_fmt_err(err, errlen, what, "the circuit is %s; .params keys are BLS12-381",
			    cs->curve->pretty);
		return -EINVAL;
	}
	if (root > ZKA_ROOT_GEN7) {
		zka_fmt_err(err, errlen, what, "unknown root of unity %u", root);
		return -EINVAL;
	}
	if (k < 0 || nv < npub + 1) {
		zka_fmt_err(err, errlen, what, "the circuit does not fit a BLS12-381 domain");
		return -EINVAL;
	}
	if ((ret = zka_bp_density(cs, &in_a, &in_b, &na, &nb))) {
		zka_fmt_err(err, errlen, what, "out of memory");
		return ret;
	}
	size_t n = (size_t)1 << k;
	ret = -EINVAL;
	if (p->n_ic != npub + 1) {
		zka_fmt_err(err, errlen, what, "ic has %u points, the circuit %u public inputs + 1",
			    p->n_ic, npub);
		goto err;
	}
	if (p->n_l != nv - npub - 1) {
		zka_fmt_err(err, errlen, what, "l has %u points, the circuit %u private variables",
			    p->n_l, nv - npub - 1);
		goto err;
	}
	if (p->n_h != n - 1) {
		zka_fmt_err(err, errlen, what,
			    "h has %u points, the circuit's domain 2^%d needs %zu", p->n_h, k,
			    n - 1);
		goto err;
	}
	if (p->n_a != na || p->n_b1 != nb || p->n_b2 != nb) {
		zka_fmt_err(err, errlen, what,
			    "a, b_g1, b_g2 have %u, %u, %u points, the circuit's densities %u, %u, "
			    "%u",
			    p->n_a, p->n_b1, p->n_b2, na, nb, nb);
		goto err;
	}
	ret = -ENOMEM;
	pk->curve = &zka_curve_bls12_381;
	pk->n_vars = nv;
	pk->n_public = npub;
	pk->domain_size = (uint32_t)n;
	pk->log_domain = (uint32_t)k;
	pk->h_kind = ZKA_H_MONOMIAL;
	pk->root = root;
	uint64_t ncoef = cs->m[0].n_terms + cs->m[1].n_terms + npub + 1;
	if (ncoef > UINT32_MAX) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, what, "too many coefficients");
		goto err;
	}
	if (take) { /* ic, l, h moved (h one point longer: the last, infinity, zeroed) */
		uint8_t *h = realloc(p->h, n * 96);
		if (!h) {
			zka_fmt_err(err, errlen, what, "out of memory");
			goto err;
		}
		memset(h + (size_t)p->n_h * 96, 0, (n - p->n_h) * 96);
		pk->H = h, pk->IC = p->ic, pk->C = p->l;
		p->h = p->ic = p->l = NULL;
	}
	if (!(pk->alpha1 = malloc(96)) || !(pk->beta1 = malloc(96)) || !(pk->delta1 = malloc(96)) ||
	    !(pk->beta2 = malloc(192)) || !(pk->gamma2 = malloc(192)) ||
	    !(pk->delta2 = malloc(192)) || (!pk->IC && !(pk->IC = malloc((size_t)p->n_ic * 96))) ||
	    !(pk->A = calloc(nv, 96)) || !(pk->B1 = calloc(nv, 96)) ||
	    !(pk->B2 = calloc(nv, 192)) ||
	    (!pk->C && !(pk->C = malloc(p->n_l ? (size_t)p->n_l * 96 : 1))) ||
	    (!pk->H && !(pk->H = calloc(n, 96))) ||
	    !(pk->coefs = malloc(ncoef * sizeof *pk->coefs))) {
		zka_fmt_err(err, errlen, what, "out of memory");
		goto err;
	}
	memcpy(pk->alpha1, p->alpha1, 96);
	memcpy(pk->beta1, p->beta1, 96);
	memcpy(pk->delta1, p->delta1, 96);
	memcpy(pk->beta2, p->beta2, 192);
	memcpy(pk->gamma2, p->gamma2, 192);
	memcpy(pk->delta2, p->delta2, 192);
	if (!take) {
		memcpy(pk->IC, p->ic, (size_t)p->n_ic * 96);
		memcpy(pk->C, p->l, (size_t)p->n_l * 96);
		memcpy(pk->H, p->h, (size_t)p->n_h * 96);
	}
	/* one section at a time, each source freed once placed when taken */
	for (uint32_t j = 0, ia = 0; j < nv; j++)
		if (in_a[j])
			memcpy(pk->A + (size_t)j * 96, p->a + (size_t)ia++ * 96, 96);
	if (take)
		free(p->a), p->a = NULL;
	for (uint32_t j = 0, ib = 0; j < nv; j++)
		if (in_b[j])
			memcpy(pk->B1 + (size_t)j * 96, p->b1 + (size_t)ib++ * 96, 96);
	if (take)
		free(p->b1), p->b1 = NULL;
	for (uint32_t j = 0, ib = 0; j < nv; j++)
		if (in_b[j])
			memcpy(pk->B2 + (size_t)j * 192, p->b2 + (size_t)ib++ * 192, 192);
	if (take)
		free(p->b2), p->b2 = NULL;
	uint32_t nc = 0;
	for (int mi = 0; mi < 2; mi++)
		for (uint32_t i = 0; i < cs->n_constraints; i++)
			for (uint64_t t = cs->m[mi].start[i]; t < cs->m[mi].start[i + 1]; t++) {
				zka_coef *e = &pk->coefs[nc++];
				*e = (zka_coef){.matrix = (uint32_t)mi,
						.row = i,
						.signal = cs->m[mi].signal[t]};
				memcpy(e->value, cs->m[mi].value[t], sizeof e->value);
			}
	bls12_381_fr_t one;
	bls12_381_fr_one(&one);
	for (uint32_t s = 0; s <= npub; s++) {
		zka_coef *e = &pk->coefs[nc++];
		*e = (zka_coef){.matrix = 0, .row = cs->n_constraints + s, .signal = s};
		memcpy(e->value, one.v, sizeof e->value);
	}
	pk->n_coefs = nc;
	ret = 0;
err:
	free(in_a);
	free(in_b);
	if (ret)
		zka_pk_free(pk);
	return ret;
}

/* See zka__bp_pack in bellperson.h. */
int zka__bp_pack(zka_bp_params *p, const zka_pk *pk, const uint8_t *in_a, const uint8_t *in_b,
		 uint32_t na, uint32_t nb, const char *what, char *err, size_t errlen)
{
	uint32_t nv = pk->n_vars, npub = pk->n_public;
	p->curve = pk->curve;
	p->n_ic = npub + 1;
	p->n_h = pk->domain_size - 1;
	p->n_l = nv - npub - 1;
	p->n_a = na;
	p->n_b1 = p->n_b2 = nb;
	if (!(p->ic = malloc((size_t)p->n_ic * 96)) || !(p->h = malloc((size_t)p->n_h * 96)) ||
	    !(p->l = malloc(p->n_l ? (size_t)p->n_l * 96 : 1)) ||
	    !(p->a = malloc(na ? (size_t)na * 96 : 1)) ||
	    !(p->b1 = malloc(nb ? (size_t)nb * 96 : 1)) ||
	    !(p->b2 = malloc(nb ? (size_t)nb * 192 : 1))) {
		zka_fmt_err(err, errlen, what, "out of memory");
		return -ENOMEM;
	}
	memcpy(p->alpha1, pk->alpha1, 96);
	memcpy(p->beta1, pk->beta1, 96);
	memcpy(p->beta2, pk->beta2, 192);
	memcpy(p->gamma2, pk->gamma2, 192);
	memcpy(p->delta1, pk->delta1, 96);
	memcpy(p->delta2, pk->delta2, 192);
	memcpy(p->ic, pk->IC, (size_t)p->n_ic * 96);
	memcpy(p->l, pk->C, (size_t)p->n_l * 96);
	for (uint32_t j = 0, ia = 0, ib = 0; j < nv; j++) {
		if (in_a[j])
			memcpy(p->a + (size_t)ia++ * 96, pk->A + (size_t)j * 96, 96);
		if (in_b[j]) {
			memcpy(p->b1 + (size_t)ib * 96, pk->B1 + (size_t)j * 96, 96);
			memcpy(p->b2 + (size_t)ib++ * 192, pk->B2 + (size_t)j * 192, 192);
		}
	}
	return 0;
}

/* See zka_bp_from_pk in bellperson.h. */
int zka_bp_from_pk(const zka_pk *pk, const zka_r1cs *cs, zka_bp_params *p, char *err, size_t errlen)
{
	const char *what = ".params";
	uint32_t nv = pk->n_vars, npub = pk->n_public, na, nb;
	uint8_t *in_a = NULL, *in_b = NULL;
	int ret;
	memset(p, 0, sizeof *p);
	if (pk->curve != &zka_curve_bls12_381 || cs->curve != pk->curve) {
		zka_fmt_err(err, errlen, what,
			    "bellperson parameters are BLS12-381 only (this key is %s)",
			    pk->curve->pretty);
		return -EINVAL;
	}
	if (pk->h_kind != ZKA_H_MONOMIAL || cs->n_wires != nv ||
	    cs->n_pub_out + cs->n_pub_in != npub || pk->domain_size < 2) {
		zka_fmt_err(err, errlen, what,
			    "the key is not a monomial-H key of this circuit (make it with setup "
			    "--format bellperson)");
		return -EINVAL;
	}
	if ((ret = zka_bp_density(cs, &in_a, &in_b, &na, &nb))) {
		zka_fmt_err(err, errlen, what, "out of memory");
		return ret;
	}
	if (!(ret = zka__bp_pack(p, pk, in_a, in_b, na, nb, what, err, errlen)))
		memcpy(p->h, pk->H, (size_t)p->n_h * 96);
	free(in_a);
	free(in_b);
	if (ret)
		zka_bp_free(p);
	return ret;
}
