/* groth16_tmpl.h - the Groth16 CPU prover and verifier for one curve, plus the byte-level
 * operations of its zka_curve object. Included once per curve by curve_bn254.c and
 * curve_bls12_381.c after the curve's instance header, with CURVE and CC defined.
 *
 * Prover (the snarkjs construction, so that snarkjs keys give proofs snarkjs accepts):
 *   1. a = A w, b = B w (rows of the key's coefficient list), c = a .* b.
 *   2. For x in a, b, c: inverse NTT over the n-domain, scale coefficient j by inc^j (inc a
 *      primitive 2n-th root of unity), forward NTT: x evaluated on the odd points of the
 *      2n-domain, where Z = x^n - 1 is constant; h = a*b - c there. The key's H points are
 *      [L_{2i+1}(tau)/delta]_1, which absorb the constant. No bit reversal pass
 *      (ntt_coset_tw): the inverse decimates in frequency and leaves the coefficients in
 *      bit-reversed order, the shift follows that order, the forward decimates in time (BN254
 *      2^22 on 16 cores, H200 machine 2026-12-03: the step 3.10-3.21 -> 1.75-1.83 s, with h
 *      computed in parallel; two serial reversals per vector had cost the rest).
 *   3. MSMs: pi_a = sum A_i w_i, B1 = sum B1_i w_i, pi_b = sum B2_i w_i, C over the private
 *      signals, H over h; then randomisation by r and s.
 */
#include "zk/groth16.h"
#include "zk/tmpl.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#define MSM_G ZKA_CAT2(CURVE, g1)
#include "zk/msm_tmpl.h"
#define MSM_G ZKA_CAT2(CURVE, g2)
#include "zk/msm_tmpl.h"
#include "zk/ntt_tmpl.h"

#define R(n) ZKA_CAT2(CURVE, fr_##n)
#define Q(n) ZKA_CAT2(CURVE, fq_##n)
#define Q2(n) ZKA_CAT2(CURVE, fq2_##n)
#define G1(n) ZKA_CAT2(CURVE, g1_##n)
#define G2(n) ZKA_CAT2(CURVE, g2_##n)
#define X(n) ZKA_CAT2(CURVE, n)
#define RT R(t)

static double X(now)(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- byte-level operations of the zka_curve object ---- */
static void X(fq_to_mont_b)(void *out, const void *in)
{
	Q(t) t;
	memcpy(&t, in, sizeof t);
	Q(to_mont)(&t, &t);
	memcpy(out, &t, sizeof t);
}
static void X(fq_from_mont_b)(void *out, const void *in)
{
	Q(t) t;
	memcpy(&t, in, sizeof t);
	Q(from_mont)(&t, &t);
	memcpy(out, &t, sizeof t);
}
static void X(fr_to_mont_b)(void *out, const void *in)
{
	RT t;
	memcpy(&t, in, sizeof t);
	R(to_mont)(&t, &t);
	memcpy(out, &t, sizeof t);
}
static void X(fr_from_mont_b)(void *out, const void *in)
{
	RT t;
	memcpy(&t, in, sizeof t);
	R(from_mont)(&t, &t);
	memcpy(out, &t, sizeof t);
}
static int X(g1_check_b)(const void *p)
{
	G1(aff) a;
	memcpy(&a, p, sizeof a);
	if (!Q(is_canonical)(&a.x) || !Q(is_canonical)(&a.y) || !G1(aff_on_curve)(&a))
		return ZKA_ENOTONCURVE;
	return G1(aff_in_group)(&a) ? 0 : ZKA_ENOTINGROUP;
}
static int X(g2_check_b)(const void *p)
{
	G2(aff) a;
	memcpy(&a, p, sizeof a);
	if (!Q(is_canonical)(&a.x.c0) || !Q(is_canonical)(&a.x.c1) || !Q(is_canonical)(&a.y.c0) ||
	    !Q(is_canonical)(&a.y.c1) || !G2(aff_on_curve)(&a))
		return ZKA_ENOTONCURVE;
	return G2(aff_in_group)(&a) ? 0 : ZKA_ENOTINGROUP;
}
/* The same two checks with the r*P reference subgroup tests (CURVE_g1/g2_aff_in_group_ref):
 * the curve object's g1_check_ref/g2_check_ref, for A/B (ZKA_VALIDATE_EXACT=ref). */
static int X(g1_check_ref_b)(const void *p)
{
	G1(aff) a;
	memcpy(&a, p, sizeof a);
	if (!Q(is_canonical)(&a.x) || !Q(is_canonical)(&a.y) || !G1(aff_on_curve)(&a))
		return ZKA_ENOTONCURVE;
	return G1(aff_in_group_ref)(&a) ? 0 : ZKA_ENOTINGROUP;
}
static int X(g2_check_ref_b)(const void *p)
{
	G2(aff) a;
	memcpy(&a, p, sizeof a);
	if (!Q(is_canonical)(&a.x.c0) || !Q(is_canonical)(&a.x.c1) || !Q(is_canonical)(&a.y.c0) ||
	    !Q(is_canonical)(&a.y.c1) || !G2(aff_on_curve)(&a))
		return ZKA_ENOTONCURVE;
	return G2(aff_in_group_ref)(&a) ? 0 : ZKA_ENOTINGROUP;
}

/* ---- prover ---- */

/* See zka_compute_abc in groth16.h. */
int ZKA_CAT2(zka_, ZKA_CAT2(CURVE, compute_abc))(const zka_pk *pk, const zka_witness *w,
						 uint64_t (*a)[4], uint64_t (*b)[4],
						 uint64_t (*c)[4], const zka_prove_opts *o)
{
	(void)o;
	if (w->n != pk->n_vars)
		return -EINVAL;
	size_t n = pk->domain_size;
	RT *wm = malloc((size_t)w->n * sizeof *wm);
	if (!wm)
		return -ENOMEM;
	for (uint32_t i = 0; i < w->n; i++) {
		memcpy(&wm[i], w->w[i], sizeof wm[i]);
		R(to_mont)(&wm[i], &wm[i]);
	}
	RT *A = (RT *)a, *B = (RT *)b, *C = (RT *)c;
	memset(A, 0, n * sizeof *A);
	memset(B, 0, n * sizeof *B);
	for (uint32_t i = 0; i < pk->n_coefs; i++) {
		const zka_coef *e = &pk->coefs[i];
		if (e->row >= n || e->signal >= pk->n_vars || e->matrix > 1) {
			free(wm);
			return -EINVAL;
		}
		RT v, t;
		memcpy(&v, e->value, sizeof v);
		R(mul)(&t, &v, &wm[e->signal]);
		RT *dst = e->matrix == 0 ? &A[e->row] : &B[e->row];
		R(add)(dst, dst, &t);
	}
	for (size_t i = 0; i < n; i++)
		R(mul)(&C[i], &A[i], &B[i]);
	free(wm);
	return 0;
}

struct X(hpass) {
	RT *x[3];
	const RT *tw_i, *tw_f; /* twiddle tables of the inverse and forward transforms */
	RT inc, ninv;	       /* the coset generator (primitive 2n-th root) and 1/n */
	int k, threads;
	_Atomic int err; /* -ENOMEM from a transform's small tables */
};

/* x -> evaluations on the odd points of the 2n-domain (see the header comment, step 2): an
 * inverse transform without its 1/n, the coset shift with the 1/n folded in, a forward one. */
static void X(coset_fn)(void *ctx, size_t begin, size_t end, int tid)
{
	(void)tid;
	struct X(hpass) *h = ctx;
	for (size_t i = begin; i < end; i++)
		if (X(ntt_coset_tw)(h->x[i], h->k, h->tw_i, h->tw_f, &h->inc, &h->ninv, h->threads))
			h->err = -ENOMEM;
}

/* h[i] = a[i] b[i] - c[i] out of Montgomery form, over [begin, end) */
struct X(hdiff) {
	const RT *a, *b, *c;
	uint64_t (*h)[4];
};

static void X(hdiff_fn)(void *ctx, size_t begin, size_t end, int tid)
{
	(void)tid;
	struct X(hdiff) *d = ctx;
	for (size_t i = begin; i < end; i++) {
		RT v;
		R(mul)(&v, &d->a[i], &d->b[i]);
		R(sub)(&v, &v, &d->c[i]);
		R(from_mont)(&v, &v);
		memcpy(d->h[i], v.v, sizeof d->h[i]);
	}
}

/* a[i] = a[i] b[i] - c[i], Montgomery, over [begin, end) (the monomial H's evaluations) */
static void X(hmono_fn)(void *ctx, size_t begin, size_t end, int tid)
{
	(void)tid;
	struct X(hdiff) *d = ctx;
	RT *out = (RT *)d->h;
	for (size_t i = begin; i < end; i++) {
		RT v;
		R(mul)(&v, &d->a[i], &d->b[i]);
		R(sub)(&out[i], &v, &d->c[i]);
	}
}

/* a[i] out of Montgomery form over [begin, end) */
static void X(hstd_fn)(void *ctx, size_t begin, size_t end, int tid)
{
	(void)tid;
	RT *a = ctx;
	for (size_t i = begin; i < end; i++)
		R(from_mont)(&a[i], &a[i]);
}

/* The H scalars of a key: h in standard form over a (n entries; a, b, c Montgomery, used as
 * scratch). Coset keys: a b - c on the odd points of the 2n-domain (the header's step 2).
 * Monomial keys: the coefficients of h(X) = (A(X) B(X) - C(X)) / (X^n - 1), A(X) the
 * interpolation of a over the domain of the key's root family: a, b, c to the same odd coset
 * inc w^j (inc^n = -1, so X^n - 1 = -2 there), h = (a b - c) / -2, an inverse transform, and
 * coefficient j times inc^-j. Any coset off the domain gives these coefficients (bellperson
 * uses 7 w^j). Returns 0, -EINVAL (an unknown kind) or -ENOMEM. */
static int X(h_scalars)(const zka_pk *pk, uint64_t (*a)[4], uint64_t (*b)[4], uint64_t (*c)[4],
			int threads)
{
	size_t n = pk->domain_size;
	int mono = pk->h_kind == ZKA_H_MONOMIAL;
	if (pk->h_kind > ZKA_H_MONOMIAL || pk->root > ZKA_ROOT_GEN7 ||
	    (!mono && pk->root != ZKA_ROOT_SNARKJS))
		return -EINVAL;
	struct X(hpass) hp = {.x = {(RT *)a, (RT *)b, (RT *)c}, .k = (int)pk->log_domain};
	int outer = threads >= 3 ? 3 : 1;
	hp.threads = threads / outer > 0 ? threads / outer : 1;
	RT *tw = NULL;
	if (hp.k > 0) { /* the twiddle tables once for all six transforms */
		tw = malloc(n * sizeof *tw);
		if (!tw)
			return -ENOMEM;
		RT wn;
		X(ntt_root_kind)(&hp.inc, hp.k + 1, (int)pk->root);
		R(sqr)(&wn, &hp.inc);
		X(ntt_twiddles_w)(tw, hp.k, 1, &wn);
		X(ntt_twiddles_w)(tw + n / 2, hp.k, 0, &wn);
		hp.tw_i = tw;
		hp.tw_f = tw + n / 2;
		R(from_u64)(&hp.ninv, (uint64_t)n);
		R(inv)(&hp.ninv, &hp.ninv);
		zka_par_for(outer, 3, X(coset_fn), &hp);
		if (hp.err) {
			free(tw);
			return hp.err;
		}
	} /* else n = 1: the transforms and the shift by inc^0 are the identity */
	struct X(hdiff) hd = {.a = (const RT *)a, .b = (const RT *)b, .c = (const RT *)c, .h = a};
	if (!mono) {
		zka_par_for(n < 4096 ? 1 : threads, n, X(hdiff_fn), &hd);
		free(tw);
		return 0;
	}
	zka_par_for(n < 4096 ? 1 : threads, n, X(hmono_fn), &hd);
	if (hp.k > 0) {
		RT ginv, sc, two;
		R(inv)(&ginv, &hp.inc);
		R(from_u64)(&two, 2);
		R(inv)(&two, &two);
		R(mul)(&sc, &two, &hp.ninv); /* 1/(2n) */
		R(neg)(&sc, &sc); /* the inverse transform's 1/n and the division by -2 */
		X(ntt_ntt_tw)((RT *)a, hp.k, hp.tw_i, threads);
		X(ntt_shift_scaled)((RT *)a, n, &ginv, &sc, threads);
	} else { /* n = 1: h = (a b - c) / (1 - 1) cannot be; the constant 0 */
		memset(a, 0, sizeof *a);
	}
	free(tw);
	zka_par_for(n < 4096 ? 1 : threads, n, X(hstd_fn), a);
	return 0;
}

/* out = p * k for a standard-form scalar */
static void X(g1_mulk)(G1(jac) * out, const G1(jac) * p, const uint64_t *k)
{
	G1(mul)(out, p, k, 4);
}

static void X(g1_load)(G1(jac) * out, const uint8_t *bytes)
{
	G1(aff) a;
	memcpy(&a, bytes, sizeof a);
	G1(from_aff)(out, &a);
}

static void X(g2_load)(G2(jac) * out, const uint8_t *bytes)
{
	G2(aff) a;
	memcpy(&a, bytes, sizeof a);
	G2(from_aff)(out, &a);
}

/* All five MSMs of a proof in one task queue (G2 first: its tasks are the largest), so that
 * no thread idles at the end of each MSM and there is one fork instead of five. */
struct X(msms) {
	struct G1(msm_ctx) g1[4]; /* H, A, B1, C */
	struct G2(msm_ctx) g2;	  /* B2 */
	int cmax1;		  /* largest window of the G1 plans */
	_Atomic int next;
	_Atomic int err;
	double *sec; /* per thread: seconds in G1 tasks, in G2 tasks */
};

/* par_for body: takes tasks of all five MSMs from one counter until none is left. */
static void X(msms_fn)(void *ctx, size_t begin, size_t end, int tid)
{
	(void)begin;
	(void)end;
	struct X(msms) *m = ctx;
	struct G1(msm_ws) w1;
	struct G2(msm_ws) w2;
	int e1 = G1(msm_ws_alloc)(&w1, m->cmax1), e2 = G2(msm_ws_alloc)(&w2, m->g2.c);
	if (e1 || e2)
		m->err = -ENOMEM;
	else
		for (;;) {
			int t = m->next++;
			double ts = X(now)();
			int n2 = G2(msm_ntask)(&m->g2);
			if (t < n2) {
				G2(msm_run_task)(&m->g2, &w2, t);
				m->sec[2 * tid + 1] += X(now)() - ts;
				continue;
			}
			t -= n2;
			int i = 0;
			for (; i < 4; i++) {
				int nt = G1(msm_ntask)(&m->g1[i]);
				if (t < nt)
					break;
				t -= nt;
			}
			if (i == 4)
				break;
			G1(msm_run_task)(&m->g1[i], &w1, t);
			m->sec[2 * tid] += X(now)() - ts;
		}
	G1(msm_ws_free)(&w1);
	G2(msm_ws_free)(&w2);
}

/* Frees the plans of X(msms) (safe on zeroed or partly prepared ones). */
static void X(msms_free)(struct X(msms) * m)
{
	for (int i = 0; i < 4; i++)
		G1(msm_plan_free)(&m->g1[i]);
	G2(msm_plan_free)(&m->g2);
	free(m->sec);
}

/* See zka_prove_abc in groth16.h. */
int ZKA_CAT2(zka_, ZKA_CAT2(CURVE, prove_abc))(const zka_pk *pk, uint64_t (*a)[4], uint64_t (*b)[4],
					       uint64_t (*c)[4], const uint64_t (*w)[4],
					       const zka_rs *rs, zka_proof *proof,
					       const zka_prove_opts *o, zka_prove_times *t)
{
	int threads = zka_par_threads(o ? o->threads : 0);
	size_t n = pk->domain_size;
	double t0 = X(now)(), t1, t2, t3;
	if (n == 0 || (n & (n - 1)) || pk->log_domain + 1 > (uint32_t)ZKA_CAT2(CC, FR_S) ||
	    ((size_t)1 << pk->log_domain) != n || pk->n_vars < pk->n_public + 1)
		return -EINVAL;

	/* H: three independent transforms, run side by side when there are threads to spare */
	int he = X(h_scalars)(pk, a, b, c, threads);
	if (he)
		return he;
	uint64_t(*h)[4] = a; /* h overwrote a, standard form */
	t1 = X(now)();

	G1(jac) pa, pb1, pc, ph, tmp, d1;
	G2(jac) pb, tmp2;
	size_t npriv = pk->n_vars - pk->n_public - 1;
	/* A, B1 and B2 share the witness's digit decomposition; C (a suffix) and H have their own
	 */
	struct X(msms) *m = calloc(1, sizeof *m);
	if (!m)
		return -ENOMEM;
	int e = -ENOMEM;
	m->sec = calloc(2 * (size_t)threads, sizeof *m->sec);
	if (!m->sec ||
	    (e = G1(msm_plan)(&m->g1[1], (const G1(aff) *)pk->A, w, pk->n_vars, threads, NULL)) ||
	    (e = G1(msm_plan)(&m->g1[2], (const G1(aff) *)pk->B1, w, pk->n_vars, threads,
			      &m->g1[1].d)) ||
	    (e = G2(msm_plan)(&m->g2, (const G2(aff) *)pk->B2, w, pk->n_vars, threads,
			      &m->g1[1].d)) ||
	    (e = G1(msm_plan)(&m->g1[3], (const G1(aff) *)pk->C, w + pk->n_public + 1, npriv,
			      threads, NULL)) ||
	    (e = G1(msm_plan)(&m->g1[0], (const G1(aff) *)pk->H, (const uint64_t(*)[4])h, n,
			      threads, NULL))) {
		X(msms_free)(m);
		free(m);
		return e;
	}
	m->cmax1 = 2;
	for (int i = 0; i < 4; i++)
		if (m->g1[i].c > m->cmax1)
			m->cmax1 = m->g1[i].c;
	zka_par_for(threads, (size_t)threads, X(msms_fn), m);
	if ((e = m->err)) {
		X(msms_free)(m);
		free(m);
		return e;
	}
	G1(msm_finish)(&m->g1[0], &ph);
	G1(msm_finish)(&m->g1[1], &pa);
	G1(msm_finish)(&m->g1[2], &pb1);
	G1(msm_finish)(&m->g1[3], &pc);
	G2(msm_finish)(&m->g2, &pb);
	double s1 = 0, s2 = 0;
	for (int i = 0; i < threads; i++)
		s1 += m->sec[2 * i], s2 += m->sec[2 * i + 1];
	X(msms_free)(m);
	free(m);
	/* the G1/G2 split of the one MSM phase: its wall time in proportion to thread time */
	t3 = X(now)();
	t2 = s1 + s2 > 0 ? t1 + (t3 - t1) * s1 / (s1 + s2) : t3;

	/* randomisation: A += alpha1 + r delta1; B += beta2 + s delta2; B1 += beta1 + s delta1;
	 * C += H + s A + r B1 - r s delta1 */
	X(g1_load)(&d1, pk->delta1);
	X(g1_load)(&tmp, pk->alpha1);
	G1(add)(&pa, &pa, &tmp);
	X(g1_mulk)(&tmp, &d1, rs->r);
	G1(add)(&pa, &pa, &tmp);

	X(g2_load)(&tmp2, pk->beta2);
	G2(add)(&pb, &pb, &tmp2);
	X(g2_load)(&tmp2, pk->delta2);
	G2(mul)(&tmp2, &tmp2, rs->s, 4);
	G2(add)(&pb, &pb, &tmp2);

	X(g1_load)(&tmp, pk->beta1);
	G1(add)(&pb1, &pb1, &tmp);
	X(g1_mulk)(&tmp, &d1, rs->s);
	G1(add)(&pb1, &pb1, &tmp);

	G1(add)(&pc, &pc, &ph);
	X(g1_mulk)(&tmp, &pa, rs->s);
	G1(add)(&pc, &pc, &tmp);
	X(g1_mulk)(&tmp, &pb1, rs->r);
	G1(add)(&pc, &pc, &tmp);
	RT rr, ss;
	memcpy(rr.v, rs->r, sizeof rr.v);
	memcpy(ss.v, rs->s, sizeof ss.v);
	R(to_mont)(&rr, &rr);
	R(to_mont)(&ss, &ss);
	R(mul)(&rr, &rr, &ss);
	R(from_mont)(&rr, &rr);
	X(g1_mulk)(&tmp, &d1, rr.v);
	G1(neg)(&tmp, &tmp);
	G1(add)(&pc, &pc, &tmp);

	G1(aff) oa, oc;
	G2(aff) ob;
	G1(to_aff)(&oa, &pa);
	G2(to_aff)(&ob, &pb);
	G1(to_aff)(&oc, &pc);
	memset(proof, 0, sizeof *proof);
	memcpy(proof->a, &oa, sizeof oa);
	memcpy(proof->b, &ob, sizeof ob);
	memcpy(proof->c, &oc, sizeof oc);
	if (t) {
		t->ntt = t1 - t0;
		t->msm_g1 = t2 - t1;
		t->msm_g2 = t3 - t2;
		t->total = X(now)() - t0;
	}
	return 0;
}

/* See zka_domain_root in groth16.h. */
void ZKA_CAT2(zka_, ZKA_CAT2(CURVE, domain_root))(int k, uint32_t root, uint64_t out[4])
{
	RT w;
	X(ntt_root_kind)(&w, k, (int)root);
	memcpy(out, w.v, sizeof w.v);
}

/* See zka_verify in groth16.h. */
int ZKA_CAT2(zka_, ZKA_CAT2(CURVE, verify))(const zka_vk *vk, const uint64_t (*pub)[4],
					    uint32_t n_pub, const zka_proof *proof,
					    const char **why)
{
	static const char *msg_count = "number of public inputs does not match the key's nPublic";
	static const char *msg_pub = "a public input is not less than the scalar field modulus";
	if (n_pub != vk->n_public) {
		*why = msg_count;
		return -EINVAL;
	}
	for (uint32_t i = 0; i < n_pub; i++) {
		RT v;
		memcpy(v.v, pub[i], sizeof v.v);
		if (!R(is_canonical)(&v)) {
			*why = msg_pub;
			return -EINVAL;
		}
	}
	int ca = X(g1_check_b)(proof->a), cb = X(g2_check_b)(proof->b),
	    cc = X(g1_check_b)(proof->c);
	if (ca || cb || cc) {
		*why = (ca == ZKA_ENOTONCURVE || cb == ZKA_ENOTONCURVE || cc == ZKA_ENOTONCURVE)
			   ? "a proof point is not on the curve"
			   : "a proof point is not in the prime-order subgroup";
		return -EINVAL;
	}
	/* vk_x = IC_0 + sum pub_i IC_i */
	G1(jac) vx, t;
	X(g1_load)(&vx, vk->IC);
	size_t g1b = sizeof(G1(aff));
	for (uint32_t i = 0; i < n_pub; i++) {
		X(g1_load)(&t, vk->IC + (i + 1) * g1b);
		G1(mul)(&t, &t, pub[i], 4);
		G1(add)(&vx, &vx, &t);
	}
	G1(aff) p[4];
	G2(aff) q[4];
	memcpy(&p[0], proof->a, sizeof p[0]);
	G1(aff_neg)(&p[0], &p[0]);
	memcpy(&q[0], proof->b, sizeof q[0]);
	memcpy(&p[1], vk->alpha1, sizeof p[1]);
	memcpy(&q[1], vk->beta2, sizeof q[1]);
	G1(to_aff)(&p[2], &vx);
	memcpy(&q[2], vk->gamma2, sizeof q[2]);
	memcpy(&p[3], proof->c, sizeof p[3]);
	memcpy(&q[3], vk->delta2, sizeof q[3]);
	int ok = X(pair_check)(p, q, 4);
	if (ok < 0) {
		*why = "degenerate pairing input";
		return -EINVAL;
	}
	*why = ok ? NULL : "the pairing equation does not hold";
	return ok;
}

/* See zka_vk_alphabeta in groth16.h. */
int ZKA_CAT2(zka_, ZKA_CAT2(CURVE, alphabeta))(zka_vk *vk, const uint64_t k[4])
{
	G1(aff) p;
	G2(aff) q;
	ZKA_CAT2(CURVE, fq12_t) r;
	_Static_assert(sizeof r == 12 * sizeof p.x, "Fq12 is 12 Fq elements, c0.c0.c0 first");
	memcpy(&p, vk->alpha1, sizeof p);
	memcpy(&q, vk->beta2, sizeof q);
	if (X(pair_pairing)(&r, &p, &q))
		return -EINVAL;
	/* r^k, square and multiply from the top bit (k public: no constant time needed) */
	ZKA_CAT2(CURVE, fq12_t) e;
	ZKA_CAT2(CURVE, fq12_one)(&e);
	for (int i = 255; i >= 0; i--) {
		ZKA_CAT2(CURVE, fq12_sqr)(&e, &e);
		if (k[i / 64] >> (i % 64) & 1)
			ZKA_CAT2(CURVE, fq12_mul)(&e, &e, &r);
	}
	r = e;
	uint8_t *ab = malloc(sizeof r);
	if (!ab)
		return -ENOMEM;
	memcpy(ab, &r, sizeof r);
	free(vk->alphabeta12);
	vk->alphabeta12 = ab;
	return 0;
}

#undef RT
#undef R
#undef Q
#undef Q2
#undef G1
#undef G2
#undef X
