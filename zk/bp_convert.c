/* bp_convert.c - a snarkjs key (a .zkey's, coset H) in bellperson's .params layout (see
 * zka_bp_from_zkey_pk and zka_bp_h_from_coset in bellperson.h).
 *
 * The H points. A snarkjs key holds H_i = [L'_{2i+1}(tau)/delta]_1, i < n: the Lagrange basis
 * of the 2n-domain at its odd points x_i = inc w^i (inc the primitive 2n-th root, w = inc^2).
 * bellperson's h holds M_j = [tau^j t(tau)/delta]_1, j < n - 1, t = X^n - 1. For deg p < 2n,
 * p(tau) = sum_y p(y) L'_y(tau) over the 2n points y; p = X^j t has degree j + n < 2n, is zero
 * at the even points (y^n = 1) and is -2 x_i^j at x_i (x_i^n = inc^n = -1). So
 *   M_j = -2 inc^j sum_i w^(ij) H_i,
 * a forward DFT of length n of the point vector H (radix 2, decimation in time, butterflies
 * u + t v, u - t v with t a power of w: one scalar multiplication each, by GLV below), then
 * each output times -2 inc^j. The roots are snarkjs's (the .zkey's); M_j itself does not
 * depend on them, so the result is the h of a bellperson setup with the same tau and delta,
 * byte for byte. */
#include "zk/bellperson.h"
#include "zk/bls12_381.h"
#include "zk/fmt_err.h"
#include "zk/par.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef bls12_381_fr_t fr;
typedef bls12_381_g1_aff g1a;
typedef bls12_381_g1_jac g1j;

/* GLV. phi(x, y) = (beta x, y), beta a cube root of unity in Fq, is the multiplication by
 * lambda = z^2 - 1 on G1 (z the curve's parameter -0xd201000000010000; lambda^2 + lambda + 1 = 0
 * mod r). A scalar k < r is k1 + k2 lambda with k1 = k mod lambda, k2 = k div lambda, both
 * below 2^128 (r < lambda^2 + lambda + 1), so k p = k1 p + k2 phi(p): 128 doublings shared by
 * two 4-bit windows instead of 255. Which of the two cube roots goes with lambda is found at
 * first use (phi(g) = lambda g). */
static const unsigned __int128 glv_lambda =
    ((unsigned __int128)0xac45a4010001a402ull << 64) | 0x00000000ffffffffull;

typedef struct {
	unsigned __int128 k1, k2;
} glv_k;

static bls12_381_fq_t glv_beta;
static pthread_once_t glv_once = PTHREAD_ONCE_INIT;
static int glv_ok; /* the check of beta and lambda passed (else the plain window is used) */

/* beta: 2^((q-1)/3) (or the next small base's, not 1), squared when phi(g) = lambda g fails
 * with it; glv_ok when one of the two passes */
static void glv_init(void)
{
	uint64_t e[6], rem = 0;
	memcpy(e, BLS12_381_FQ_P, sizeof e);
	e[0] -= 1;
	for (int i = 5; i >= 0; i--) { /* e = (q - 1) / 3 */
		unsigned __int128 cur = ((unsigned __int128)rem << 64) | e[i];
		e[i] = (uint64_t)(cur / 3);
		rem = (uint64_t)(cur % 3);
	}
	bls12_381_fq_t one, b;
	bls12_381_fq_one(&one);
	for (uint64_t g = 2; g < 20; g++) {
		bls12_381_fq_from_u64(&b, g);
		bls12_381_fq_pow(&b, &b, e, 6);
		if (!bls12_381_fq_eq(&b, &one))
			break;
	}
	bls12_381_g1_aff ga;
	g1j g, lg;
	bls12_381_g1_gen(&ga);
	bls12_381_g1_from_aff(&g, &ga);
	uint64_t lam[2] = {(uint64_t)glv_lambda, (uint64_t)(glv_lambda >> 64)};
	bls12_381_g1_mul(&lg, &g, lam, 2); /* double and add: the reference */
	for (int t = 0; t < 2; t++) {
		g1j ph = g;
		bls12_381_fq_mul(&ph.X, &ph.X, &b);
		if (bls12_381_g1_eq(&ph, &lg)) {
			glv_beta = b;
			glv_ok = 1;
			return;
		}
		bls12_381_fq_sqr(&b, &b);
	}
}

/* k (standard form, < r) split as k1 + k2 lambda */
static glv_k glv_split(const uint64_t k[4])
{
	unsigned __int128 rem = 0, q = 0;
	glv_k out;
	for (int i = 255; i >= 0; i--) { /* q < 2^128: k < r < 2^255 < lambda 2^128 */
		int top = (int)(rem >> 127);
		rem = (rem << 1) | ((k[i / 64] >> (i % 64)) & 1);
		q <<= 1;
		if (top || rem >= glv_lambda) { /* the true remainder < 2 lambda: one subtraction */
			rem -= glv_lambda;
			q |= 1;
		}
	}
	out.k1 = rem;
	out.k2 = q;
	return out;
}

/* r = k p, k = k1 + k2 lambda (glv_split), by two 4-bit windows over 32 shared nibbles */
static void g1_mul(g1j *r, const g1j *p, const glv_k *k)
{
	g1j t1[16], t2[16], acc;
	bls12_381_g1_set_inf(&t1[0]);
	t1[1] = *p;
	for (int i = 2; i < 16; i++)
		if (i & 1)
			bls12_381_g1_add(&t1[i], &t1[i - 1], p);
		else
			bls12_381_g1_dbl(&t1[i], &t1[i / 2]);
	for (int i = 0; i < 16; i++) { /* phi(t1[i]): X times beta (x = X / Z^2) */
		t2[i] = t1[i];
		bls12_381_fq_mul(&t2[i].X, &t2[i].X, &glv_beta);
	}
	bls12_381_g1_set_inf(&acc);
	int started = 0;
	for (int d = 31; d >= 0; d--) {
		unsigned n1 = (unsigned)(k->k1 >> (4 * d)) & 15,
			 n2 = (unsigned)(k->k2 >> (4 * d)) & 15;
		if (started)
			for (int b = 0; b < 4; b++)
				bls12_381_g1_dbl(&acc, &acc);
		if (n1) {
			bls12_381_g1_add(&acc, &acc, &t1[n1]);
			started = 1;
		}
		if (n2) {
			bls12_381_g1_add(&acc, &acc, &t2[n2]);
			started = 1;
		}
	}
	*r = acc;
}

struct fft {
	g1j *a;
	const glv_k *tw; /* w^t, t < n/2, split */
	const glv_k *sc; /* the final scalars -2 inc^j, split */
	const g1a *in;
	g1a *out;
	size_t n, half;
	int log_n;
};

/* bit-reversed copy of the affine input into a (items: output indices) */
static void fft_load(void *ctx, size_t b, size_t e, int tid)
{
	struct fft *f = ctx;
	(void)tid;
	for (size_t i = b; i < e; i++) {
		size_t r = 0;
		for (int s = 0; s < f->log_n; s++)
			r |= ((i >> s) & 1) << (f->log_n - 1 - s);
		bls12_381_g1_from_aff(&f->a[i], &f->in[r]);
	}
}

/* one stage of butterflies (items: the n/2 butterflies of blocks of 2 half) */
static void fft_stage(void *ctx, size_t b, size_t e, int tid)
{
	struct fft *f = ctx;
	size_t stride = f->n / (2 * f->half);
	(void)tid;
	for (size_t x = b; x < e; x++) {
		size_t k = x % f->half, i = (x / f->half) * 2 * f->half + k, j = i + f->half;
		g1j v, neg;
		if (k)
			g1_mul(&v, &f->a[j], &f->tw[k * stride]);
		else
			v = f->a[j];
		bls12_381_g1_neg(&neg, &v);
		bls12_381_g1_add(&f->a[j], &f->a[i], &neg);
		bls12_381_g1_add(&f->a[i], &f->a[i], &v);
	}
}

/* the final scaling and the conversion to affine (items: outputs j < n - 1) */
static void fft_store(void *ctx, size_t b, size_t e, int tid)
{
	struct fft *f = ctx;
	enum { CH = 256 };
	bls12_381_fq_t scratch[2 * CH];
	(void)tid;
	for (size_t c = b; c < e; c += CH) {
		size_t m = e - c < CH ? e - c : CH;
		for (size_t j = c; j < c + m; j++)
			g1_mul(&f->a[j], &f->a[j], &f->sc[j]);
		bls12_381_g1_batch_to_aff(f->out + c, f->a + c, m, scratch);
	}
}

/* See zka_bp_h_from_coset in bellperson.h. */
int zka_bp_h_from_coset(const uint8_t *H, int log_n, uint8_t *out, int threads)
{
	if (log_n < 0 || log_n + 1 > BLS12_381_FR_S)
		return -EINVAL;
	size_t n = (size_t)1 << log_n;
	if (n < 2)
		return 0; /* no monomial below n - 1 = 0 */
	struct fft f = {.n = n, .log_n = log_n, .in = (const g1a *)H, .out = (g1a *)out};
	g1j *a = malloc(n * sizeof *a);
	glv_k *tw = malloc(n / 2 * sizeof *tw), *sc = malloc(n * sizeof *sc);
	int ret = -ENOMEM;
	if (!a || !tw || !sc)
		goto err;
	pthread_once(&glv_once, glv_init);
	ret = -EINVAL;
	if (!glv_ok) /* beta and lambda do not fit: never seen, the curve's constants are fixed */
		goto err;
	fr w, inc, t, m2;
	zka_domain_root(&zka_curve_bls12_381, log_n, ZKA_ROOT_SNARKJS, w.v);
	zka_domain_root(&zka_curve_bls12_381, log_n + 1, ZKA_ROOT_SNARKJS, inc.v);
	bls12_381_fr_one(&t);
	for (size_t i = 0; i < n / 2; i++) {
		fr s;
		bls12_381_fr_from_mont(&s, &t);
		tw[i] = glv_split(s.v);
		bls12_381_fr_mul(&t, &t, &w);
	}
	bls12_381_fr_from_u64(&m2, 2);
	bls12_381_fr_neg(&t, &m2); /* -2 inc^j */
	for (size_t j = 0; j < n; j++) {
		fr s;
		bls12_381_fr_from_mont(&s, &t);
		sc[j] = glv_split(s.v);
		bls12_381_fr_mul(&t, &t, &inc);
	}
	int nt = zka_par_threads(threads);
	f.a = a, f.tw = tw, f.sc = sc;
	zka_par_for(nt, n, fft_load, &f);
	for (f.half = 1; f.half < n; f.half *= 2)
		zka_par_for(nt, n / 2, fft_stage, &f);
	zka_par_for(nt, n - 1, fft_store, &f);
	ret = 0;
err:
	free(a);
	free(tw);
	free(sc);
	return ret;
}

/* the key's densities from its coefficient list (matrix 0: a, 1: b); n_vars bytes each */
static int coef_density(const zka_pk *pk, uint8_t **in_a, uint8_t **in_b)
{
	*in_a = calloc(pk->n_vars ? pk->n_vars : 1, 1);
	*in_b = calloc(pk->n_vars ? pk->n_vars : 1, 1);
	if (!*in_a || !*in_b)
		return -ENOMEM;
	for (uint32_t i = 0; i < pk->n_coefs; i++)
		(pk->coefs[i].matrix ? *in_b : *in_a)[pk->coefs[i].signal] = 1;
	return 0;
}

/* See zka_bp_from_zkey_pk in bellperson.h. */
int zka_bp_from_zkey_pk(const zka_pk *pk, const char *what, zka_bp_params *p, int threads,
			char *err, size_t errlen)
{
	uint32_t nv = pk->n_vars, npub = pk->n_public, na = 0, nb = 0;
	uint8_t *in_a = NULL, *in_b = NULL, zero[192] = {0};
	int ret = -EINVAL;
	memset(p, 0, sizeof *p);
	if (pk->curve != &zka_curve_bls12_381) {
		zka_fmt_err(err, errlen, what,
			    "a %s key; bellperson .params keys are BLS12-381 only",
			    pk->curve->pretty);
		return -EINVAL;
	}
	if (pk->h_kind != ZKA_H_COSET || pk->root != ZKA_ROOT_SNARKJS || nv < npub + 1 ||
	    pk->domain_size < 2) {
		zka_fmt_err(err, errlen, what, "not a snarkjs (coset-H) key");
		return -EINVAL;
	}
	if ((ret = coef_density(pk, &in_a, &in_b))) {
		zka_fmt_err(err, errlen, what, "out of memory");
		goto err;
	}
	for (uint32_t j = 0; j <= npub; j++)
		in_a[j] = 1; /* as zka_bp_density: the public variables are in a */
	ret = -EINVAL;
	for (uint32_t j = 0; j < nv; j++) {
		/* a variable no term names has u_j = 0 (v_j = 0): its point is infinity */
		int bad_a = !in_a[j] && memcmp(pk->A + (size_t)j * 96, zero, 96);
		if (bad_a || (!in_b[j] && (memcmp(pk->B1 + (size_t)j * 96, zero, 96) ||
					   memcmp(pk->B2 + (size_t)j * 192, zero, 192)))) {
			zka_fmt_err(err, errlen, what,
				    "variable %u: its %s point is not infinity but no coefficient "
				    "names it (a malformed key)",
				    j, bad_a ? "A" : "B");
			goto err;
		}
		na += in_a[j], nb += in_b[j];
	}
	if ((ret = zka__bp_pack(p, pk, in_a, in_b, na, nb, what, err, errlen)))
		goto err;
	if ((ret = zka_bp_h_from_coset(pk->H, (int)pk->log_domain, p->h, threads))) {
		zka_fmt_err(err, errlen, what, "H: %s", strerror(-ret));
		goto err;
	}
err:
	free(in_a);
	free(in_b);
	if (ret)
		zka_bp_free(p);
	return ret;
}
