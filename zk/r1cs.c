/* r1cs.c - see r1cs.h. Layout: iden3 r1csfile (r1csfile.js). */
#include "zk/r1cs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "zk/binfile.h"
#include "zk/bls12_381.h"
#include "zk/bn254.h"
#include "zk/fmt_err.h"

void zka_r1cs_free(zka_r1cs *r)
{
	if (!r)
		return;
	for (int k = 0; k < 3; k++) {
		free(r->m[k].start);
		free(r->m[k].signal);
		free(r->m[k].value);
	}
	free(r->wire_labels);
	memset(r, 0, sizeof *r);
}

static const char *const zka_mat_name[3] = {"A", "B", "C"};

/* Walks section 2 once. With fill == 0 validates the layout and counts terms per matrix;
 * with fill == 1 stores them (buffers sized by the first pass). Returns 0 or -EINVAL. */
static int zka_r1cs_walk(zka_r1cs *r, const uint8_t *p, uint64_t size, int fill, const char *path,
			 char *err, size_t errlen)
{
	zka_bincur cur = {p, size, 0};
	uint64_t n[3] = {0, 0, 0};
	const uint64_t sterm = 4 + 32;
	for (uint32_t i = 0; i < r->n_constraints; i++) {
		for (int k = 0; k < 3; k++) {
			const uint8_t *f = zka_bincur_take(&cur, 4);
			if (!f)
				goto trunc;
			uint32_t nt = zka_le32(f);
			const uint8_t *t = zka_bincur_take(&cur, nt * sterm);
			if (!t)
				goto trunc;
			if (fill)
				r->m[k].start[i] = n[k];
			for (uint32_t j = 0; j < nt; j++, t += sterm) {
				uint32_t wire = zka_le32(t);
				uint64_t v[4];
				memcpy(v, t + 4, 32);
				if (wire >= r->n_wires) {
					zka_fmt_err(err, errlen, path,
						    "constraint %" PRIu32 " %s term %" PRIu32 ": wire %" PRIu32
						    " out of range (nWires %" PRIu32 ")",
						    i, zka_mat_name[k], j, wire, r->n_wires);
					return -EINVAL;
				}
				if (!zka_lt_modulus(v, r->curve->r, 4)) {
					zka_fmt_err(err, errlen, path,
						    "constraint %" PRIu32 " %s term %" PRIu32
						    ": value not below the prime",
						    i, zka_mat_name[k], j);
					return -EINVAL;
				}
				if (fill) {
					r->m[k].signal[n[k]] = wire;
					r->curve->fr_to_mont(r->m[k].value[n[k]], v);
				}
				n[k]++;
			}
		}
	}
	if (cur.pos != size) {
		zka_fmt_err(err, errlen, path,
			    "section 2: %" PRIu64 " bytes left after %" PRIu32 " constraints", size - cur.pos,
			    r->n_constraints);
		return -EINVAL;
	}
	for (int k = 0; k < 3; k++) {
		if (fill)
			r->m[k].start[r->n_constraints] = n[k];
		r->m[k].n_terms = n[k];
	}
	return 0;
trunc:
	zka_fmt_err(err, errlen, path, "section 2 truncated (%" PRIu64 " bytes for %" PRIu32 " constraints)",
		    size, r->n_constraints);
	return -EINVAL;
}

/* Reads and validates the header, constraints and optional label map. */
int zka_r1cs_read(const char *path, zka_r1cs *r, char *err, size_t errlen)
{
	zka_binfile bf;
	const uint8_t *p;
	uint64_t size;
	memset(r, 0, sizeof *r);
	int ret = zka_binfile_open(&bf, path, "r1cs", 1, 1, err, errlen);
	if (ret < 0)
		return ret;
	ret = zka_binfile_field_header(&bf, path, 16 + 8 + 4, &p, &r->curve, err, errlen);
	if (ret < 0)
		goto err;
	r->n_wires = zka_le32(p);
	r->n_pub_out = zka_le32(p + 4);
	r->n_pub_in = zka_le32(p + 8);
	r->n_prv_in = zka_le32(p + 12);
	r->n_labels = zka_le64(p + 16);
	r->n_constraints = zka_le32(p + 24);
	/* the public signals are wires 1..nPubOut+nPubIn; nPrvIn is not bounded by nWires:
	 * circom (--O1, --O2) removes private inputs no constraint uses from the wires and still
	 * counts them in nPrvIn, and snarkjs accepts such files */
	if (r->n_wires == 0 || 1ull + r->n_pub_out + r->n_pub_in > (uint64_t)r->n_wires) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path,
			    "inconsistent header: nWires %" PRIu32 " < 1 + %" PRIu32 " outputs + %" PRIu32
			    " public inputs",
			    r->n_wires, r->n_pub_out, r->n_pub_in);
		goto err;
	}

	ret = zka_binfile_section(&bf, 2, UINT64_MAX, &p, &size, err, errlen);
	if (ret < 0)
		goto err;
	ret = zka_r1cs_walk(r, p, size, 0, path, err, errlen);
	if (ret < 0)
		goto err;
	for (int k = 0; k < 3; k++) {
		zka_r1cs_matrix *m = &r->m[k];
		m->start = malloc(((size_t)r->n_constraints + 1) * sizeof *m->start);
		m->signal = malloc((m->n_terms ? m->n_terms : 1) * sizeof *m->signal);
		m->value = malloc((m->n_terms ? m->n_terms : 1) * sizeof *m->value);
		if (!m->start || !m->signal || !m->value)
			goto nomem;
	}
	ret = zka_r1cs_walk(r, p, size, 1, path, err, errlen);
	if (ret < 0)
		goto err;

	if (zka_binfile_find(&bf, 3)) {
		ret = zka_binfile_section(&bf, 3, (uint64_t)r->n_wires * 8, &p, NULL, err, errlen);
		if (ret < 0)
			goto err;
		r->wire_labels = malloc((size_t)r->n_wires * 8);
		if (!r->wire_labels)
			goto nomem;
		memcpy(r->wire_labels, p, (size_t)r->n_wires * 8);
	}
	zka_binfile_close(&bf);
	return 0;
nomem:
	ret = -ENOMEM;
	zka_fmt_err(err, errlen, path, "out of memory");
err:
	zka_binfile_close(&bf);
	zka_r1cs_free(r);
	return ret;
}

/* Per-curve checker: <A_i,w>*<B_i,w> == <C_i,w> for every i, w converted to Montgomery. */
#define ZKA_R1CS_CHECK(C)                                                                          \
	static int zka_r1cs_check_##C(const zka_r1cs *r, const zka_witness *w, uint32_t *first)   \
	{                                                                                          \
		C##_fr_t *wm = malloc((size_t)r->n_wires * sizeof *wm);                            \
		if (!wm)                                                                           \
			return -ENOMEM;                                                            \
		for (uint32_t i = 0; i < r->n_wires; i++) {                                        \
			memcpy(wm[i].v, w->w[i], 32);                                              \
			C##_fr_to_mont(&wm[i], &wm[i]);                                            \
		}                                                                                  \
		int ret = 0;                                                                       \
		for (uint32_t i = 0; i < r->n_constraints && !ret; i++) {                          \
			C##_fr_t s[3];                                                             \
			for (int k = 0; k < 3; k++) {                                              \
				const zka_r1cs_matrix *m = &r->m[k];                               \
				C##_fr_zero(&s[k]);                                                \
				for (uint64_t t = m->start[i]; t < m->start[i + 1]; t++) {         \
					C##_fr_t v, x;                                             \
					memcpy(v.v, m->value[t], 32);                              \
					C##_fr_mul(&x, &v, &wm[m->signal[t]]);                     \
					C##_fr_add(&s[k], &s[k], &x);                              \
				}                                                                  \
			}                                                                          \
			C##_fr_mul(&s[0], &s[0], &s[1]);                                           \
			if (!C##_fr_eq(&s[0], &s[2])) {                                            \
				if (first)                                                         \
					*first = i;                                                \
				ret = 1;                                                           \
			}                                                                          \
		}                                                                                  \
		free(wm);                                                                          \
		return ret;                                                                        \
	}
ZKA_R1CS_CHECK(bn254)
ZKA_R1CS_CHECK(bls12_381)

int zka_r1cs_check(const zka_r1cs *r, const zka_witness *w, uint32_t *first_failing)
{
	if (!r->curve || w->curve != r->curve || w->n != r->n_wires)
		return -EINVAL;
	switch (r->curve->id) {
	case ZKA_BN254:
		return zka_r1cs_check_bn254(r, w, first_failing);
	case ZKA_BLS12_381:
		return zka_r1cs_check_bls12_381(r, w, first_failing);
	}
	return -EINVAL;
}

/* Writes header, constraints (values back to standard form) and labels. */
int zka_r1cs_write(const char *path, const zka_r1cs *r, char *err, size_t errlen)
{
	zka_binw w;
	const zka_curve *c = r->curve;
	if (!c) {
		zka_fmt_err(err, errlen, path, "cannot write: no curve");
		return -EINVAL;
	}
	int ret = zka_binw_open(&w, path, "r1cs", 1, r->wire_labels ? 3 : 2);
	if (ret < 0) {
		zka_fmt_err(err, errlen, path, "cannot create: %s", strerror(-ret));
		return ret;
	}
	if ((ret = zka_binw_begin(&w, 1)) < 0 || (ret = zka_binw_u32(&w, 32)) < 0 ||
	    (ret = zka_binw_write(&w, c->r, 32)) < 0 || (ret = zka_binw_u32(&w, r->n_wires)) < 0 ||
	    (ret = zka_binw_u32(&w, r->n_pub_out)) < 0 || (ret = zka_binw_u32(&w, r->n_pub_in)) < 0 ||
	    (ret = zka_binw_u32(&w, r->n_prv_in)) < 0 || (ret = zka_binw_u64(&w, r->n_labels)) < 0 ||
	    (ret = zka_binw_u32(&w, r->n_constraints)) < 0 || (ret = zka_binw_end(&w)) < 0 ||
	    (ret = zka_binw_begin(&w, 2)) < 0)
		goto err;
	for (uint32_t i = 0; i < r->n_constraints; i++)
		for (int k = 0; k < 3; k++) {
			const zka_r1cs_matrix *m = &r->m[k];
			uint64_t a = m->start[i], b = m->start[i + 1];
			if ((ret = zka_binw_u32(&w, (uint32_t)(b - a))) < 0)
				goto err;
			for (uint64_t t = a; t < b; t++) {
				uint64_t v[4];
				c->fr_from_mont(v, m->value[t]);
				if ((ret = zka_binw_u32(&w, m->signal[t])) < 0 ||
				    (ret = zka_binw_write(&w, v, 32)) < 0)
					goto err;
			}
		}
	if ((ret = zka_binw_end(&w)) < 0)
		goto err;
	if (r->wire_labels &&
	    ((ret = zka_binw_begin(&w, 3)) < 0 ||
	     (ret = zka_binw_write(&w, r->wire_labels, (size_t)r->n_wires * 8)) < 0 ||
	     (ret = zka_binw_end(&w)) < 0))
		goto err;
err:
	return zka_binw_finish(&w, ret, path, err, errlen);
}
