/* setup_tmpl.h - the test-only Groth16 setup for one curve (see setup.h). Included by the
 * curve files after groth16_tmpl.h, with CURVE and CC defined.
 *
 * With L_i the Lagrange basis of the n-domain at tau and u_j, v_j, w_j the A, B, C columns
 * of signal j evaluated at tau (u_j(tau) = sum_i A_ij L_i(tau), A extended with the public
 * rows m+s, signal s, coefficient 1):
 *   A_j = [u_j]_1, B1_j = [v_j]_1, B2_j = [v_j]_2,
 *   IC_j = [(beta u_j + alpha v_j + w_j)/gamma]_1 for j <= nPublic, C_j the same over delta
 *   for the others, H_i = [L'_{2i+1}(tau)/delta]_1 with L' the basis of the 2n-domain.
 */
#include "zk/setup.h"
#include "zk/tmpl.h"

#define R(n) ZKA_CAT2(CURVE, fr_##n)
#define G1(n) ZKA_CAT2(CURVE, g1_##n)
#define G2(n) ZKA_CAT2(CURVE, g2_##n)
#define X(n) ZKA_CAT2(CURVE, n)
#define RT R(t)

/* Lagrange basis of the domain of 2^k points, scaled: out[i] = L_{off + i*stride}(tau)*scale
 * for i < cnt, where L_j(x) = (x^N - 1)/N * w^j / (x - w^j). Returns 0 or -ENOMEM. */
static int X(lagrange)(RT *out, size_t cnt, int k, size_t off, size_t stride, const RT *tau,
		       const RT *scale, int root)
{
	size_t N = (size_t)1 << k;
	RT w, z, t, one;
	RT *scr = malloc((cnt ? cnt : 1) * sizeof *scr);
	if (!scr)
		return -12;
	X(ntt_root_kind)(&w, k, root);
	uint64_t e[1] = {N};
	R(pow)(&z, tau, e, 1); /* z = (tau^N - 1)/N * scale */
	R(one)(&one);
	R(sub)(&z, &z, &one);
	R(from_u64)(&t, (uint64_t)N);
	R(inv)(&t, &t);
	R(mul)(&z, &z, &t);
	R(mul)(&z, &z, scale);
	RT wstep, wj;
	e[0] = stride;
	R(pow)(&wstep, &w, e, 1);
	e[0] = off;
	R(pow)(&wj, &w, e, 1);
	RT *wjs = malloc((cnt ? cnt : 1) * sizeof *wjs);
	if (!wjs) {
		free(scr);
		return -12;
	}
	for (size_t i = 0; i < cnt; i++) {
		wjs[i] = wj;
		R(sub)(&out[i], tau, &wj); /* tau - w^j: never 0 for a random tau */
		R(mul)(&wj, &wj, &wstep);
	}
	R(batch_inv)(out, scr, cnt);
	for (size_t i = 0; i < cnt; i++) {
		R(mul)(&out[i], &out[i], &wjs[i]);
		R(mul)(&out[i], &out[i], &z);
	}
	free(wjs);
	free(scr);
	return 0;
}

/* Converts n Montgomery scalars to standard form in place. */
static void X(to_std)(RT *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		R(from_mont)(&v[i], &v[i]);
}

static int X(fb1)(const zka_fixed_base_ops *fb, const G1(aff) * base, RT *k, size_t n,
		  uint8_t **out, int threads)
{
	*out = malloc((n ? n : 1) * sizeof(G1(aff)));
	if (!*out)
		return -12;
	X(to_std)(k, n);
	if (fb && fb->g1)
		return fb->g1(fb->ctx, &ZKA_CAT2(zka_curve, CURVE), base, (const uint64_t(*)[4])k,
			      n, *out);
	return X(g1_fixed_base)((G1(aff) *)*out, base, (const uint64_t(*)[4])k, n, threads);
}

static int X(fb2)(const zka_fixed_base_ops *fb, const G2(aff) * base, RT *k, size_t n,
		  uint8_t **out, int threads)
{
	*out = malloc((n ? n : 1) * sizeof(G2(aff)));
	if (!*out)
		return -12;
	X(to_std)(k, n);
	if (fb && fb->g2)
		return fb->g2(fb->ctx, &ZKA_CAT2(zka_curve, CURVE), base, (const uint64_t(*)[4])k,
			      n, *out);
	return X(g2_fixed_base)((G2(aff) *)*out, base, (const uint64_t(*)[4])k, n, threads);
}

/* See zka_setup in setup.h. */
int ZKA_CAT2(zka_, ZKA_CAT2(CURVE, setup))(const zka_r1cs *cs, const zka_toxic *tw, zka_pk *pk,
					   const zka_fixed_base_ops *fb, int threads,
					   uint32_t h_kind, uint32_t root)
{
	uint32_t npub = cs->n_pub_out + cs->n_pub_in, nv = cs->n_wires;
	uint64_t rows = (uint64_t)cs->n_constraints + npub + 1;
	int k = 0;
	while (((uint64_t)1 << k) < rows)
		k++;
	if (k + 1 > ZKA_CAT2(CC, FR_S) || nv < npub + 1)
		return -EINVAL;
	size_t n = (size_t)1 << k;
	int err = -12;
	RT tau, alpha, beta, gamma, delta, one, gi, di;
	memcpy(tau.v, tw->tau, 32);
	memcpy(alpha.v, tw->alpha, 32);
	memcpy(beta.v, tw->beta, 32);
	memcpy(gamma.v, tw->gamma, 32);
	memcpy(delta.v, tw->delta, 32);
	R(to_mont)(&tau, &tau);
	R(to_mont)(&alpha, &alpha);
	R(to_mont)(&beta, &beta);
	R(to_mont)(&gamma, &gamma);
	R(to_mont)(&delta, &delta);
	R(one)(&one);
	R(inv)(&gi, &gamma);
	R(inv)(&di, &delta);

	memset(pk, 0, sizeof *pk);
	pk->curve = &ZKA_CAT2(zka_curve, CURVE);
	pk->n_vars = nv;
	pk->n_public = npub;
	pk->domain_size = (uint32_t)n;
	pk->log_domain = (uint32_t)k;
	pk->h_kind = h_kind;
	pk->root = root;

	RT *L = malloc(n * sizeof *L), *u = calloc(nv, sizeof *u), *v = calloc(nv, sizeof *v),
	   *w = calloc(nv, sizeof *w), *sc = malloc((nv > n ? nv : n) * sizeof *sc);
	uint64_t ncoef = cs->m[0].n_terms + cs->m[1].n_terms + npub + 1;
	pk->coefs = malloc(ncoef * sizeof *pk->coefs);
	if (!L || !u || !v || !w || !sc || !pk->coefs)
		goto err;
	if (zka_setup_progress)
		zka_setup_progress(1, "the Lagrange basis and the A, B, C columns at tau",
				   (uint64_t)n);
	if ((err = X(lagrange)(L, n, k, 0, 1, &tau, &one, (int)root)))
		goto err;
	/* columns at tau, and the coefficient list of A and B */
	RT *col[3] = {u, v, w};
	uint32_t nc = 0;
	for (int m = 0; m < 3; m++)
		for (uint32_t i = 0; i < cs->n_constraints; i++)
			for (uint64_t t = cs->m[m].start[i]; t < cs->m[m].start[i + 1]; t++) {
				uint32_t s = cs->m[m].signal[t];
				RT val, x;
				memcpy(val.v, cs->m[m].value[t], 32);
				R(mul)(&x, &val, &L[i]);
				R(add)(&col[m][s], &col[m][s], &x);
				if (m < 2)
					pk->coefs[nc++] = (zka_coef){
					    .matrix = (uint32_t)m,
					    .row = i,
					    .signal = s,
					    .value = {val.v[0], val.v[1], val.v[2], val.v[3]}};
			}
	for (uint32_t s = 0; s <= npub; s++) {
		R(add)(&u[s], &u[s], &L[cs->n_constraints + s]);
		pk->coefs[nc++] = (zka_coef){.matrix = 0,
					     .row = cs->n_constraints + s,
					     .signal = s,
					     .value = {one.v[0], one.v[1], one.v[2], one.v[3]}};
	}
	pk->n_coefs = nc;

	G1(aff) g1;
	G2(aff) g2;
	G1(gen)(&g1);
	G2(gen)(&g2);
	if (zka_setup_progress)
		zka_setup_progress(2, "A in G1", (uint64_t)nv);
	/* A = [u], B1 = [v], B2 = [v]_2 */
	memcpy(sc, u, nv * sizeof *sc);
	if ((err = X(fb1)(fb, &g1, sc, nv, &pk->A, threads)))
		goto err;
	if (zka_setup_progress)
		zka_setup_progress(3, "B in G1", (uint64_t)nv);
	memcpy(sc, v, nv * sizeof *sc);
	if ((err = X(fb1)(fb, &g1, sc, nv, &pk->B1, threads)))
		goto err;
	if (zka_setup_progress)
		zka_setup_progress(4, "B in G2", (uint64_t)nv);
	memcpy(sc, v, nv * sizeof *sc);
	if ((err = X(fb2)(fb, &g2, sc, nv, &pk->B2, threads)))
		goto err;
	if (zka_setup_progress)
		zka_setup_progress(5, "IC and C in G1", (uint64_t)nv);
	/* IC and C: (beta u + alpha v + w) / gamma or / delta */
	for (uint32_t j = 0; j < nv; j++) {
		RT a, b;
		R(mul)(&a, &beta, &u[j]);
		R(mul)(&b, &alpha, &v[j]);
		R(add)(&a, &a, &b);
		R(add)(&a, &a, &w[j]);
		R(mul)(&sc[j], &a, j <= npub ? &gi : &di);
	}
	if ((err = X(fb1)(fb, &g1, sc, npub + 1, &pk->IC, threads)))
		goto err;
	if ((err = X(fb1)(fb, &g1, sc + npub + 1, nv - npub - 1, &pk->C, threads)))
		goto err;
	if (zka_setup_progress)
		zka_setup_progress(6, "H in G1", (uint64_t)n);
	if (h_kind == ZKA_H_MONOMIAL) { /* H_i = [tau^i (tau^n - 1) / delta], i < n - 1 */
		RT z;
		uint64_t e[1] = {n};
		R(pow)(&z, &tau, e, 1);
		R(sub)(&z, &z, &one);
		R(mul)(&z, &z, &di);
		for (size_t i = 0; i + 1 < n; i++) {
			sc[i] = z;
			R(mul)(&z, &z, &tau);
		}
		memset(&sc[n - 1], 0, sizeof sc[n - 1]); /* the point at infinity */
	} else if ((err = X(lagrange)(sc, n, k + 1, 1, 2, &tau, &di, 0))) {
		goto err; /* H_i = [L'_{2i+1}(tau) / delta] over the 2n-domain */
	}
	if ((err = X(fb1)(fb, &g1, sc, n, &pk->H, threads)))
		goto err;
	if (h_kind == ZKA_H_MONOMIAL) /* infinity whatever an accelerator makes of 0 */
		memset(pk->H + (n - 1) * sizeof(G1(aff)), 0, sizeof(G1(aff)));
	if (zka_setup_progress)
		zka_setup_progress(7, "the single points", (uint64_t)6);
	/* the six single points */
	RT single[3] = {alpha, beta, delta};
	uint8_t *p1 = NULL, *p2 = NULL;
	if ((err = X(fb1)(fb, &g1, single, 3, &p1, threads)))
		goto err;
	RT single2[3] = {beta, gamma, delta};
	if ((err = X(fb2)(fb, &g2, single2, 3, &p2, threads))) {
		free(p1);
		goto err;
	}
	size_t b1 = sizeof(G1(aff)), b2 = sizeof(G2(aff));
	err = -12;
	if ((pk->alpha1 = malloc(b1)) && (pk->beta1 = malloc(b1)) && (pk->delta1 = malloc(b1)) &&
	    (pk->beta2 = malloc(b2)) && (pk->gamma2 = malloc(b2)) && (pk->delta2 = malloc(b2))) {
		memcpy(pk->alpha1, p1, b1);
		memcpy(pk->beta1, p1 + b1, b1);
		memcpy(pk->delta1, p1 + 2 * b1, b1);
		memcpy(pk->beta2, p2, b2);
		memcpy(pk->gamma2, p2 + b2, b2);
		memcpy(pk->delta2, p2 + 2 * b2, b2);
		err = 0;
	}
	free(p1);
	free(p2);
err:
	free(L);
	free(u);
	free(v);
	free(w);
	free(sc);
	if (err)
		zka_pk_free(pk);
	return err;
}

#undef RT
#undef R
#undef G1
#undef G2
#undef X
