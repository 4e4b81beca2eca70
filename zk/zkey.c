/* zkey.c - see zkey.h. Section layout: snarkjs 0.7.6 zkey_new.js / zkey_utils.js. */
#include "zk/zkey.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "zk/binfile.h"
#include "zk/fmt_err.h"
#include "zk/par.h"

enum {
	ZK_HEADER = 1,
	ZK_GROTH_HEADER = 2,
	ZK_IC = 3,
	ZK_COEFS = 4,
	ZK_A = 5,
	ZK_B1 = 6,
	ZK_B2 = 7,
	ZK_C = 8,
	ZK_H = 9,
	ZK_CONTRIB = 10,
};

/* Frees every buffer of pk and zeroes it (the file-format layer's own cleanup, so the error
 * paths do not depend on the prover's zka_pk_free). */
static void zka_zkey_clear(zka_pk *pk)
{
	uint8_t **bufs[] = {&pk->alpha1, &pk->beta1,  &pk->beta2, &pk->gamma2,
			    &pk->delta1, &pk->delta2, &pk->IC,	  &pk->A,
			    &pk->B1,	 &pk->B2,     &pk->C,	  &pk->H};
	for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
		free(*bufs[i]);
	free(pk->coefs);
	memset(pk, 0, sizeof *pk);
}

/* Returns a malloc'ed copy of n bytes (at least 1 byte allocated) or NULL. */
static uint8_t *zka_dup(const uint8_t *src, uint64_t n)
{
	uint8_t *d = malloc(n ? (size_t)n : 1);
	if (d && n)
		memcpy(d, src, (size_t)n);
	return d;
}

/* The first of n points (G1 when g2 == 0) at p (8-byte aligned) that fails: a coordinate not
 * below q (*why 0), or when full, off the curve or the subgroup (*why the check's code); n when
 * all pass. */
static uint64_t zka_first_bad_point(const zka_curve *c, const uint8_t *p, uint64_t n, int g2,
				    int full, int *why)
{
	size_t ncoord = g2 ? 4 : 2, sz = ncoord * c->n8q;
	for (uint64_t i = 0; i < n; i++, p += sz) {
		for (size_t k = 0; k < ncoord; k++)
			if (!zka_lt_modulus(p + k * c->n8q, c->q, c->n8q / 8)) {
				*why = -1 - (int)k;
				return i;
			}
		if (full && (*why = g2 ? c->g2_check(p) : c->g1_check(p)) != 0)
			return i;
	}
	return n;
}

/* The message for point i of `what` that failed with why (zka_first_bad_point); -EINVAL. */
static int zka_bad_point(const char *what, int indexed, uint64_t i, int why, const char *path,
			 char *err, size_t errlen)
{
	char idx[32] = "";
	if (indexed)
		snprintf(idx, sizeof idx, "[%" PRIu64 "]", i);
	if (why < 0)
		zka_fmt_err(err, errlen, path, "%s%s: coordinate %d not below q", what, idx,
			    -1 - why);
	else
		zka_fmt_err(err, errlen, path, "%s%s: point %s", what, idx,
			    why == ZKA_ENOTINGROUP ? "not in the subgroup" : "not on the curve");
	return -EINVAL;
}

/* Checks n points (G1 when g2 == 0) stored at p (8-byte aligned): coordinates < q, and when
 * full, on the curve and in the subgroup. Returns 0 or -EINVAL with "what[i]: problem". */
static int zka_check_points(const zka_curve *c, const uint8_t *p, uint64_t n, int g2, int full,
			    const char *what, int indexed, const char *path, char *err,
			    size_t errlen)
{
	int why = 0;
	uint64_t i = zka_first_bad_point(c, p, n, g2, full, &why);
	return i == n ? 0 : zka_bad_point(what, indexed, i, why, path, err, errlen);
}

static const char *zka_protocol_name(uint32_t p)
{
	switch (p) {
	case 2:
		return " (plonk)";
	case 10:
		return " (fflonk)";
	default:
		return "";
	}
}

/* A point section copied and checked by every CPU (the page faults of the file's mapping and
 * of the copy, and the coordinate checks, dominate a key's parse: BN254 2^22, H200 machine,
 * 2026-12-06, parse 2.6 s of a 7.4 s first proof on one thread). */
#define ZKA_PTS_CHUNK 65536u /* points per task: whole pages, few tasks per thread */
struct pts_job {
	const zka_curve *c;
	const uint8_t *src;
	uint8_t *dst;
	uint64_t n, sz;
	int g2, full;
	uint64_t *bad; /* per chunk: the chunk's first bad point, or n */
	int *why;
};

static void pts_chunk(void *ctx, size_t b, size_t e, int tid)
{
	struct pts_job *j = ctx;
	(void)tid;
	for (size_t k = b; k < e; k++) {
		uint64_t i0 = (uint64_t)k * ZKA_PTS_CHUNK;
		uint64_t m = j->n - i0 < ZKA_PTS_CHUNK ? j->n - i0 : ZKA_PTS_CHUNK;
		memcpy(j->dst + i0 * j->sz, j->src + i0 * j->sz, (size_t)(m * j->sz));
		uint64_t i =
		    zka_first_bad_point(j->c, j->dst + i0 * j->sz, m, j->g2, j->full, &j->why[k]);
		j->bad[k] = i == m ? j->n : i0 + i;
	}
}

/* Section 4's coefficients converted (standard form values) by every CPU in chunks; a bad
 * one (an index out of range, a value not below r) is left as read, unconverted. */
#define ZKA_COEF_CHUNK 65536u
struct coef_job {
	const zka_curve *c;
	const uint8_t *src; /* the first entry: matrix, row, signal (u32 LE), value (n8r bytes) */
	zka_coef *out;
	uint32_t n, d, n_vars;
	uint64_t sz;
	uint32_t *bad; /* per chunk: its first bad coefficient, or n */
};

static void coef_chunk(void *ctx, size_t b, size_t e, int tid)
{
	struct coef_job *j = ctx;
	(void)tid;
	for (size_t ch = b; ch < e; ch++) {
		uint32_t i0 = (uint32_t)ch * ZKA_COEF_CHUNK;
		uint32_t i1 = j->n - i0 < ZKA_COEF_CHUNK ? j->n : i0 + ZKA_COEF_CHUNK;
		j->bad[ch] = j->n;
		for (uint32_t i = i0; i < i1; i++) {
			const uint8_t *q = j->src + i * j->sz;
			zka_coef *k = &j->out[i];
			k->matrix = zka_le32(q);
			k->row = zka_le32(q + 4);
			k->signal = zka_le32(q + 8);
			k->pad = 0;
			memcpy(k->value, q + 12, 32);
			if (k->matrix > 1 || k->row >= j->d || k->signal >= j->n_vars ||
			    !zka_lt_modulus(k->value, j->c->r, 4)) {
				j->bad[ch] = i;
				break;
			}
			j->c->fr_from_mont(k->value, k->value);
		}
	}
}

/* Converts j's n coefficients into *bad_out: the lowest bad index, or n when all are good.
 * Returns 0, or -ENOMEM. */
static int coefs_convert(struct coef_job *j, uint32_t *bad_out)
{
	size_t nch = ((size_t)j->n + ZKA_COEF_CHUNK - 1) / ZKA_COEF_CHUNK;
	int nt = zka_par_threads(0);
	*bad_out = j->n;
	if (!nch)
		return 0;
	if (!(j->bad = malloc(nch * sizeof *j->bad)))
		return -ENOMEM;
	zka_par_for(nt < (int)nch ? nt : (int)nch, nch, coef_chunk, j);
	for (size_t ch = 0; ch < nch && *bad_out == j->n; ch++)
		*bad_out = j->bad[ch];
	free(j->bad);
	j->bad = NULL;
	return 0;
}

/* Copies a point section of exactly n points of size sz into *out and checks it; on failure
 * names the lowest bad point, as a serial check would. */
static int zka_read_points(const zka_binfile *bf, uint32_t id, uint64_t n, int g2, int full,
			   const char *what, const zka_curve *c, uint8_t **out, char *err,
			   size_t errlen)
{
	const uint8_t *p;
	uint64_t sz = (g2 ? 4 : 2) * (uint64_t)c->n8q;
	int ret = zka_binfile_section(bf, id, n * sz, &p, NULL, err, errlen);
	if (ret < 0)
		return ret;
	uint64_t nch = (n + ZKA_PTS_CHUNK - 1) / ZKA_PTS_CHUNK;
	int nt = zka_par_threads(0);
	if (nch < 2 || nt < 2) {
		*out = zka_dup(p, n * sz);
		if (!*out)
			goto nomem;
		return zka_check_points(c, *out, n, g2, full, what, 1, bf->path, err, errlen);
	}
	struct pts_job j = {.c = c, .src = p, .n = n, .sz = sz, .g2 = g2, .full = full};
	*out = malloc((size_t)(n * sz));
	j.dst = *out;
	j.bad = malloc((size_t)nch * sizeof *j.bad);
	j.why = calloc((size_t)nch, sizeof *j.why);
	if (!*out || !j.bad || !j.why) {
		free(j.bad);
		free(j.why);
		goto nomem;
	}
	zka_par_for(nt < (int)nch ? nt : (int)nch, (size_t)nch, pts_chunk, &j);
	ret = 0;
	for (uint64_t k = 0; k < nch; k++)
		if (j.bad[k] < n) { /* chunks are in order: the first bad chunk has the lowest */
			ret = zka_bad_point(what, 1, j.bad[k], j.why[k], bf->path, err, errlen);
			break;
		}
	free(j.bad);
	free(j.why);
	return ret;
nomem:
	zka_fmt_err(err, errlen, bf->path, "out of memory reading section %" PRIu32, id);
	return -ENOMEM;
}

int zka_zkey_read(const char *path, zka_pk *pk, char *err, size_t errlen)
{
	return zka_zkey_read_flags(path, pk, 0, err, errlen);
}

/* The reader; see zkey.h for the checks. */
int zka_zkey_read_flags(const char *path, zka_pk *pk, unsigned flags, char *err, size_t errlen)
{
	zka_binfile bf;
	const uint8_t *p;
	uint64_t size;
	int ret;
	int all = (flags & ZKA_ZKEY_CHECK_ALL_POINTS) != 0;
	memset(pk, 0, sizeof *pk);
	ret = zka_binfile_open(&bf, path, "zkey", 1, 1, err, errlen);
	if (ret < 0)
		return ret;

	/* section 1: the protocol */
	ret = zka_binfile_section(&bf, ZK_HEADER, 4, &p, NULL, err, errlen);
	if (ret < 0)
		goto err;
	uint32_t protocol = zka_le32(p);
	if (protocol != 1) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path,
			    "unknown protocol %" PRIu32 "%s (only 1, groth16, is supported)",
			    protocol, zka_protocol_name(protocol));
		goto err;
	}

	/* section 2: curve, sizes and the header points */
	ret = zka_binfile_section(&bf, ZK_GROTH_HEADER, UINT64_MAX, &p, &size, err, errlen);
	if (ret < 0)
		goto err;
	zka_bincur cur = {p, size, 0};
	const uint8_t *f = zka_bincur_take(&cur, 4);
	uint32_t n8q = f ? zka_le32(f) : 0;
	if (!f || n8q == 0 || n8q > 64 || n8q % 8) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path, "section 2: unsupported n8q %" PRIu32, n8q);
		goto err;
	}
	uint64_t qbuf[8] = {0}, rbuf[8] = {0};
	if (!(f = zka_bincur_take(&cur, n8q)))
		goto short2;
	memcpy(qbuf, f, n8q);
	const zka_curve *c = zka_curve_by_q(qbuf, n8q);
	if (!c) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path, "q does not match any supported curve");
		goto err;
	}
	if (!(f = zka_bincur_take(&cur, 4)))
		goto short2;
	uint32_t n8r = zka_le32(f);
	if (n8r != c->n8r) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path,
			    "n8r %" PRIu32 " does not match %s (expected %" PRIu32 ")", n8r,
			    c->pretty, c->n8r);
		goto err;
	}
	if (!(f = zka_bincur_take(&cur, n8r)))
		goto short2;
	memcpy(rbuf, f, n8r);
	if (memcmp(rbuf, c->r, n8r) != 0) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path, "r does not match the group order of %s", c->pretty);
		goto err;
	}
	if (!(f = zka_bincur_take(&cur, 12)))
		goto short2;
	pk->curve = c;
	pk->n_vars = zka_le32(f);
	pk->n_public = zka_le32(f + 4);
	pk->domain_size = zka_le32(f + 8);
	size_t sG1 = zka_g1_bytes(c), sG2 = zka_g2_bytes(c);
	uint64_t want2 = 4 + (uint64_t)n8q + 4 + n8r + 12 + 3 * sG1 + 3 * sG2;
	if (size != want2) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path,
			    "section 2: wrong size (expected %" PRIu64 " bytes, found %" PRIu64 ")",
			    want2, size);
		goto err;
	}
	if (pk->n_vars == 0 || pk->n_public >= pk->n_vars) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path, "nPublic %" PRIu32 " must be below nVars %" PRIu32,
			    pk->n_public, pk->n_vars);
		goto err;
	}
	uint32_t d = pk->domain_size;
	if (d == 0 || (d & (d - 1))) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path, "domainSize %" PRIu32 " is not a power of two", d);
		goto err;
	}
	pk->log_domain = (uint32_t)__builtin_ctz(d);
	if (pk->log_domain + 1 > c->fr_s) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path, "domainSize 2^%" PRIu32 " too large for %s",
			    pk->log_domain, c->pretty);
		goto err;
	}
	struct {
		uint8_t **dst;
		int g2;
		const char *name;
	} hp[] = {{&pk->alpha1, 0, "alpha1"}, {&pk->beta1, 0, "beta1"},
		  {&pk->beta2, 1, "beta2"},   {&pk->gamma2, 1, "gamma2"},
		  {&pk->delta1, 0, "delta1"}, {&pk->delta2, 1, "delta2"}};
	for (size_t i = 0; i < sizeof hp / sizeof hp[0]; i++) {
		size_t sz = hp[i].g2 ? sG2 : sG1;
		f = zka_bincur_take(&cur, sz);
		*hp[i].dst = zka_dup(f, sz);
		if (!*hp[i].dst)
			goto nomem;
		ret = zka_check_points(c, *hp[i].dst, 1, hp[i].g2, 1, hp[i].name, 0, path, err,
				       errlen);
		if (ret < 0)
			goto err;
	}

	/* section 3: IC */
	ret = zka_read_points(&bf, ZK_IC, pk->n_public + 1ull, 0, 1, "IC", c, &pk->IC, err, errlen);
	if (ret < 0)
		goto err;

	/* section 4: the coefficients of A and B */
	ret = zka_binfile_section(&bf, ZK_COEFS, UINT64_MAX, &p, &size, err, errlen);
	if (ret < 0)
		goto err;
	uint64_t scoef = 12 + (uint64_t)n8r;
	if (size < 4 || size != 4 + (uint64_t)zka_le32(p) * scoef) {
		ret = -EINVAL;
		zka_fmt_err(err, errlen, path,
			    "section 4: wrong size (%" PRIu64 " bytes for %" PRIu32
			    " coefficients)",
			    size, size < 4 ? 0 : zka_le32(p));
		goto err;
	}
	pk->n_coefs = zka_le32(p);
	pk->coefs = malloc(pk->n_coefs ? pk->n_coefs * sizeof *pk->coefs : 1);
	if (!pk->coefs)
		goto nomem;
	{
		struct coef_job j = {.c = c,
				     .src = p + 4,
				     .out = pk->coefs,
				     .n = pk->n_coefs,
				     .d = d,
				     .n_vars = pk->n_vars,
				     .sz = scoef};
		uint32_t bad;
		if (coefs_convert(&j, &bad))
			goto nomem;
		if (bad < pk->n_coefs) {
			const zka_coef *k = &pk->coefs[bad];
			ret = -EINVAL;
			if (k->matrix > 1 || k->row >= d || k->signal >= pk->n_vars)
				zka_fmt_err(err, errlen, path,
					    "coefficient %" PRIu32 ": matrix %" PRIu32
					    ", row %" PRIu32 ", signal %" PRIu32
					    " out of range (domainSize %" PRIu32 ", nVars %" PRIu32
					    ")",
					    bad, k->matrix, k->row, k->signal, d, pk->n_vars);
			else
				zka_fmt_err(err, errlen, path,
					    "coefficient %" PRIu32 ": value not below r", bad);
			goto err;
		}
	}

	/* sections 5..9: the proving key's point vectors */
	ret = zka_read_points(&bf, ZK_A, pk->n_vars, 0, all, "A", c, &pk->A, err, errlen);
	if (ret < 0)
		goto err;
	ret = zka_read_points(&bf, ZK_B1, pk->n_vars, 0, all, "B1", c, &pk->B1, err, errlen);
	if (ret < 0)
		goto err;
	ret = zka_read_points(&bf, ZK_B2, pk->n_vars, 1, all, "B2", c, &pk->B2, err, errlen);
	if (ret < 0)
		goto err;
	ret = zka_read_points(&bf, ZK_C, (uint64_t)pk->n_vars - pk->n_public - 1, 0, all, "C", c,
			      &pk->C, err, errlen);
	if (ret < 0)
		goto err;
	ret = zka_read_points(&bf, ZK_H, d, 0, all, "H", c, &pk->H, err, errlen);
	if (ret < 0)
		goto err;
	/* section 10 (MPC contributions) is not needed to prove and is not read */

	zka_binfile_close(&bf);
	return 0;
short2:
	ret = -EINVAL;
	zka_fmt_err(err, errlen, path, "section 2 truncated (%" PRIu64 " bytes)", size);
	goto err;
nomem:
	ret = -ENOMEM;
	zka_fmt_err(err, errlen, path, "out of memory");
err:
	zka_binfile_close(&bf);
	zka_zkey_clear(pk);
	return ret;
}

/* Returns 0 when pk is complete and self-consistent enough to be written, else -EINVAL. */
static int zka_zkey_check_pk(const zka_pk *pk, const char **why)
{
	*why = NULL;
	if (!pk->curve)
		*why = "no curve";
	else if (pk->n_public >= pk->n_vars)
		*why = "nPublic must be below nVars";
	else if (!pk->domain_size || (pk->domain_size & (pk->domain_size - 1)))
		*why = "domainSize is not a power of two";
	else if (!pk->alpha1 || !pk->beta1 || !pk->beta2 || !pk->gamma2 || !pk->delta1 ||
		 !pk->delta2 || !pk->IC || !pk->A || !pk->B1 || !pk->B2 || !pk->H ||
		 (!pk->C && pk->n_vars - pk->n_public - 1 > 0) || (!pk->coefs && pk->n_coefs))
		*why = "missing point or coefficient buffer";
	return *why ? -EINVAL : 0;
}

/* Writes one section of the key; returns 0 or -errno. */
static int zka_zkey_write_section(zka_binw *w, const zka_pk *pk, uint32_t id)
{
	const zka_curve *c = pk->curve;
	size_t sG1 = zka_g1_bytes(c), sG2 = zka_g2_bytes(c);
	int ret = zka_binw_begin(w, id);
	if (ret < 0)
		return ret;
	switch (id) {
	case ZK_HEADER:
		ret = zka_binw_u32(w, 1);
		break;
	case ZK_GROTH_HEADER:
		if ((ret = zka_binw_u32(w, c->n8q)) < 0 ||
		    (ret = zka_binw_write(w, c->q, c->n8q)) < 0 ||
		    (ret = zka_binw_u32(w, c->n8r)) < 0 ||
		    (ret = zka_binw_write(w, c->r, c->n8r)) < 0 ||
		    (ret = zka_binw_u32(w, pk->n_vars)) < 0 ||
		    (ret = zka_binw_u32(w, pk->n_public)) < 0 ||
		    (ret = zka_binw_u32(w, pk->domain_size)) < 0 ||
		    (ret = zka_binw_write(w, pk->alpha1, sG1)) < 0 ||
		    (ret = zka_binw_write(w, pk->beta1, sG1)) < 0 ||
		    (ret = zka_binw_write(w, pk->beta2, sG2)) < 0 ||
		    (ret = zka_binw_write(w, pk->gamma2, sG2)) < 0 ||
		    (ret = zka_binw_write(w, pk->delta1, sG1)) < 0 ||
		    (ret = zka_binw_write(w, pk->delta2, sG2)) < 0)
			return ret;
		break;
	case ZK_IC:
		ret = zka_binw_write(w, pk->IC, (pk->n_public + 1ull) * sG1);
		break;
	case ZK_COEFS:
		ret = zka_binw_u32(w, pk->n_coefs);
		for (uint32_t i = 0; ret == 0 && i < pk->n_coefs; i++) {
			const zka_coef *k = &pk->coefs[i];
			uint8_t e[12 + 32];
			uint64_t v[4];
			memcpy(e, &k->matrix, 4);
			memcpy(e + 4, &k->row, 4);
			memcpy(e + 8, &k->signal, 4);
			c->fr_to_mont(v, k->value); /* Montgomery c*R -> the file's c*R^2 */
			memcpy(e + 12, v, 32);
			ret = zka_binw_write(w, e, 12 + c->n8r);
		}
		break;
	case ZK_A:
		ret = zka_binw_write(w, pk->A, (size_t)pk->n_vars * sG1);
		break;
	case ZK_B1:
		ret = zka_binw_write(w, pk->B1, (size_t)pk->n_vars * sG1);
		break;
	case ZK_B2:
		ret = zka_binw_write(w, pk->B2, (size_t)pk->n_vars * sG2);
		break;
	case ZK_C:
		ret = zka_binw_write(w, pk->C, (size_t)(pk->n_vars - pk->n_public - 1) * sG1);
		break;
	case ZK_H:
		ret = zka_binw_write(w, pk->H, (size_t)pk->domain_size * sG1);
		break;
	case ZK_CONTRIB: {
		uint8_t cs_hash[64] = {0};
		if ((ret = zka_binw_write(w, cs_hash, sizeof cs_hash)) == 0)
			ret = zka_binw_u32(w, 0);
		break;
	}
	default:
		ret = -EINVAL;
	}
	if (ret < 0)
		return ret;
	return zka_binw_end(w);
}

/* Writes the key section by section into a temporary file, then renames it into place. */
int zka_zkey_write(const char *path, const zka_pk *pk, int snarkjs_setup_order, char *err,
		   size_t errlen)
{
	static const uint32_t plain[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	static const uint32_t setup[10] = {1, 2, 4, 3, 9, 8, 5, 6, 7, 10};
	const uint32_t *order = snarkjs_setup_order ? setup : plain;
	const char *why;
	zka_binw w;
	int ret = zka_zkey_check_pk(pk, &why);
	if (ret < 0) {
		zka_fmt_err(err, errlen, path, "cannot write key: %s", why);
		return ret;
	}
	ret = zka_binw_open(&w, path, "zkey", 1, 10);
	if (ret < 0) {
		zka_fmt_err(err, errlen, path, "cannot create: %s", strerror(-ret));
		return ret;
	}
	for (int i = 0; i < 10; i++) {
		ret = zka_zkey_write_section(&w, pk, order[i]);
		if (ret < 0)
			goto err;
	}
err:
	return zka_binw_finish(&w, ret, path, err, errlen);
}

/* Reads only what a .zkey's sections 1 and 2 say of its shape: the curve (by q) and the
 * witness length. For callers that need no points (import --c picks the graph's field). */
int zka_zkey_peek(const char *path, const zka_curve **curve, uint32_t *n_vars, char *err,
		  size_t errlen)
{
	zka_binfile bf;
	const uint8_t *p;
	uint64_t size;
	int ret = zka_binfile_open(&bf, path, "zkey", 1, 1, err, errlen);
	if (ret < 0)
		return ret;
	ret = zka_binfile_section(&bf, ZK_GROTH_HEADER, UINT64_MAX, &p, &size, err, errlen);
	if (ret < 0)
		goto out;
	ret = -EINVAL;
	uint32_t n8q = size >= 4 ? zka_le32(p) : 0;
	uint64_t qbuf[8] = {0};
	if (n8q == 0 || n8q > 64 || n8q % 8 || size < 4 + (uint64_t)n8q + 4 + 32 + 4) {
		zka_fmt_err(err, errlen, path, "section 2: unsupported or truncated header");
		goto out;
	}
	memcpy(qbuf, p + 4, n8q);
	*curve = zka_curve_by_q(qbuf, n8q);
	if (!*curve) {
		zka_fmt_err(err, errlen, path, "q does not match any supported curve");
		goto out;
	}
	uint32_t n8r = zka_le32(p + 4 + n8q);
	if (n8r != 32 || size < 4 + (uint64_t)n8q + 4 + n8r + 4) {
		zka_fmt_err(err, errlen, path, "section 2: unsupported n8r");
		goto out;
	}
	*n_vars = zka_le32(p + 4 + n8q + 4 + n8r);
	ret = 0;
out:
	zka_binfile_close(&bf);
	return ret;
}

/* See zkey.h: every section's size from the header alone, and the file's allocation. */
int zka_zkey_shape_check(const char *path, char *err, size_t errlen)
{
	zka_binfile bf;
	const uint8_t *p;
	uint64_t size;
	int ret = zka_binfile_open(&bf, path, "zkey", 1, 1, err, errlen);
	if (ret < 0)
		return ret;
	ret = zka_binfile_section(&bf, ZK_GROTH_HEADER, UINT64_MAX, &p, &size, err, errlen);
	if (ret < 0)
		goto out;
	ret = -EINVAL;
	uint32_t n8q = size >= 4 ? zka_le32(p) : 0;
	uint64_t qbuf[8] = {0};
	if (n8q == 0 || n8q > 64 || n8q % 8 || size < 4 + (uint64_t)n8q + 4 + 32 + 12) {
		zka_fmt_err(err, errlen, path, "section 2: unsupported or truncated header");
		goto out;
	}
	memcpy(qbuf, p + 4, n8q);
	const zka_curve *c = zka_curve_by_q(qbuf, n8q);
	uint32_t n8r = zka_le32(p + 4 + n8q);
	if (!c || n8r != 32) {
		zka_fmt_err(err, errlen, path, "section 2: unsupported curve");
		goto out;
	}
	const uint8_t *f = p + 4 + n8q + 4 + n8r;
	uint64_t nv = zka_le32(f), np = zka_le32(f + 4), d = zka_le32(f + 8);
	uint64_t g1 = zka_g1_bytes(c), g2 = zka_g2_bytes(c);
	if (nv == 0 || np >= nv) {
		zka_fmt_err(err, errlen, path, "nPublic %" PRIu64 " must be below nVars %" PRIu64,
			    np, nv);
		goto out;
	}
	const zka_binsec *s4 = zka_binfile_find(&bf, ZK_COEFS);
	uint64_t ncoef = s4 && s4->size >= 4 ? zka_le32(bf.data + s4->off) : 0;
	uint64_t want[11] = {
	    0,	     4,	      size,    (np + 1) * g1,	   4 + ncoef * (12 + (uint64_t)n8r),
	    nv * g1, nv * g1, nv * g2, (nv - np - 1) * g1, d * g1,
	    0};
	for (uint32_t i = 0; i < bf.n_sections; i++) {
		const zka_binsec *s = &bf.secs[i];
		if (s->id == ZK_CONTRIB ? s->size > ((uint64_t)16 << 20)
					: (s->id < 1 || s->id > 9 || s->size != want[s->id])) {
			zka_fmt_err(err, errlen, path,
				    "section %" PRIu32 " holds %" PRIu64
				    " bytes, %s (refused from the "
				    "header, before reading the body)",
				    s->id, s->size,
				    s->id == ZK_CONTRIB	     ? "more than 16 MiB of contributions"
				    : s->id < 1 || s->id > 9 ? "an unknown section"
							     : "not what the header implies");
			goto out;
		}
	}
	struct stat st;
	if (stat(path, &st) == 0 && st.st_size > (64 << 20) &&
	    (uint64_t)st.st_blocks * 512 < (uint64_t)st.st_size / 2) {
		zka_fmt_err(err, errlen, path,
			    "a sparse file (%" PRIu64 " of %" PRIu64 " bytes allocated): refused",
			    (uint64_t)st.st_blocks * 512, (uint64_t)st.st_size);
		goto out;
	}
	ret = 0;
out:
	zka_binfile_close(&bf);
	return ret;
}
