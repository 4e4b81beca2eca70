/* json_io.c - see json_io.h. Parsing with jansson; output through a small serializer that
 * reproduces bfj's {space: 1} layout, which jansson's JSON_INDENT does not (empty arrays, no
 * trailing newline). */
#include "zk/json_io.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zk/decimal.h"
#include "zk/fmt_atomic.h"
#include "zk/fmt_err.h"

/* ---- output ---------------------------------------------------------------------------- */

typedef struct {
	char *p;
	size_t len, cap;
	int oom;
} zka_sb;

static void zka_sb_put(zka_sb *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *q = realloc(b->p, cap);
		if (!q) {
			b->oom = 1;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

static void zka_sb_str(zka_sb *b, const char *s)
{
	zka_sb_put(b, s, strlen(s));
}

static void zka_sb_indent(zka_sb *b, int depth)
{
	zka_sb_put(b, "\n", 1);
	for (int i = 0; i < depth; i++)
		zka_sb_put(b, " ", 1);
}

/* A JSON string literal with the escapes JSON.stringify uses. */
static void zka_sb_quoted(zka_sb *b, const char *s)
{
	zka_sb_put(b, "\"", 1);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		char e[8];
		if (ch == '"' || ch == '\\') {
			e[0] = '\\';
			e[1] = (char)ch;
			zka_sb_put(b, e, 2);
		} else if (ch == '\n') {
			zka_sb_str(b, "\\n");
		} else if (ch < 0x20) {
			snprintf(e, sizeof e, "\\u%04x", ch);
			zka_sb_str(b, e);
		} else {
			zka_sb_put(b, (const char *)&ch, 1);
		}
	}
	zka_sb_put(b, "\"", 1);
}

/* Serializes v like bfj.write(..., {space: 1}). */
static void zka_sb_json(zka_sb *b, const json_t *v, int depth)
{
	char num[32];
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		const char *k;
		json_t *x;
		int first = 1;
		zka_sb_put(b, "{", 1);
		json_object_foreach((json_t *)v, k, x) {
			if (!first)
				zka_sb_put(b, ",", 1);
			first = 0;
			zka_sb_indent(b, depth + 1);
			zka_sb_quoted(b, k);
			zka_sb_put(b, ": ", 2);
			zka_sb_json(b, x, depth + 1);
		}
		zka_sb_indent(b, depth);
		zka_sb_put(b, "}", 1);
		break;
	}
	case JSON_ARRAY: {
		size_t i;
		json_t *x;
		zka_sb_put(b, "[", 1);
		json_array_foreach(v, i, x) {
			if (i)
				zka_sb_put(b, ",", 1);
			zka_sb_indent(b, depth + 1);
			zka_sb_json(b, x, depth + 1);
		}
		zka_sb_indent(b, depth);
		zka_sb_put(b, "]", 1);
		break;
	}
	case JSON_STRING:
		zka_sb_quoted(b, json_string_value(v));
		break;
	case JSON_INTEGER:
		snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		zka_sb_str(b, num);
		break;
	case JSON_TRUE:
		zka_sb_str(b, "true");
		break;
	case JSON_FALSE:
		zka_sb_str(b, "false");
		break;
	default:
		zka_sb_str(b, "null");
		break;
	}
}

/* Serializes root and writes it atomically. Steals root. Returns 0 or -errno. */
static int zka_json_write(const char *path, json_t *root, char *err, size_t errlen)
{
	zka_sb b = {0};
	zka_atomic a;
	int ret;
	if (!root) {
		ret = -ENOMEM;
		zka_fmt_err(err, errlen, path, "out of memory");
		return ret;
	}
	zka_sb_json(&b, root, 0);
	json_decref(root);
	if (b.oom) {
		ret = -ENOMEM;
		zka_fmt_err(err, errlen, path, "out of memory");
		goto err;
	}
	ret = zka_atomic_open(&a, path);
	if (ret < 0) {
		zka_fmt_err(err, errlen, path, "cannot create: %s", strerror(-ret));
		goto err;
	}
	if ((ret = zka_atomic_write(&a, b.p, b.len)) < 0) {
		zka_atomic_abort(&a);
		zka_fmt_err(err, errlen, path, "cannot write: %s", strerror(-ret));
		goto err;
	}
	ret = zka_atomic_commit(&a);
	if (ret < 0)
		zka_fmt_err(err, errlen, path, "cannot write: %s", strerror(-ret));
err:
	free(b.p);
	return ret;
}

/* A decimal JSON string of an n8-byte LE integer, or NULL. */
static json_t *zka_jdec(const void *x, size_t n8)
{
	char *s = zka_dec_format(x, n8);
	if (!s)
		return NULL;
	json_t *j = json_string(s);
	free(s);
	return j;
}

/* Field element (Montgomery bytes) of Fq as a decimal string. */
static json_t *zka_jfq(const zka_curve *c, const uint8_t *m)
{
	uint64_t v[8];
	memcpy(v, m, c->n8q);
	c->fq_from_mont(v, v);
	return zka_jdec(v, c->n8q);
}

static int zka_all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* [x, y, "1"], or ["0", "1", "0"] for infinity. NULL on OOM. */
static json_t *zka_jg1(const zka_curve *c, const uint8_t *p)
{
	if (zka_all_zero(p, zka_g1_bytes(c)))
		return json_pack("[sss]", "0", "1", "0");
	return json_pack("[ooo]", zka_jfq(c, p), zka_jfq(c, p + c->n8q), json_string("1"));
}

/* [[x.c0,x.c1],[y.c0,y.c1],["1","0"]], infinity [["0","0"],["1","0"],["0","0"]]. */
static json_t *zka_jg2(const zka_curve *c, const uint8_t *p)
{
	size_t n = c->n8q;
	if (zka_all_zero(p, zka_g2_bytes(c)))
		return json_pack("[[ss][ss][ss]]", "0", "0", "1", "0", "0", "0");
	return json_pack("[[oo][oo][ss]]", zka_jfq(c, p), zka_jfq(c, p + n), zka_jfq(c, p + 2 * n),
			 zka_jfq(c, p + 3 * n), "1", "0");
}

int zka_proof_write_json(const char *path, const zka_proof *proof, char *err, size_t errlen)
{
	const zka_curve *c = proof->curve;
	if (!c) {
		zka_fmt_err(err, errlen, path, "cannot write a proof without a curve");
		return -EINVAL;
	}
	json_t *root = json_pack("{s:o,s:o,s:o,s:s,s:s}", "pi_a", zka_jg1(c, proof->a), "pi_b",
				 zka_jg2(c, proof->b), "pi_c", zka_jg1(c, proof->c), "protocol",
				 "groth16", "curve", c->name);
	return zka_json_write(path, root, err, errlen);
}

int zka_public_write_json(const char *path, const zka_curve *c, const uint64_t (*pub)[4],
			  uint32_t n, char *err, size_t errlen)
{
	json_t *root = json_array();
	if (!root)
		return zka_json_write(path, NULL, err, errlen);
	for (uint32_t i = 0; i < n; i++) {
		if (!zka_lt_modulus(pub[i], c->r, 4)) {
			json_decref(root);
			zka_fmt_err(err, errlen, path, "[%" PRIu32 "]: value not below r", i);
			return -EINVAL;
		}
		if (json_array_append_new(root, zka_jdec(pub[i], 32)) < 0) {
			json_decref(root);
			return zka_json_write(path, NULL, err, errlen);
		}
	}
	return zka_json_write(path, root, err, errlen);
}

int zka_vk_write_json(const char *path, const zka_vk *vk, char *err, size_t errlen)
{
	const zka_curve *c = vk->curve;
	if (!c || !vk->alpha1 || !vk->beta2 || !vk->gamma2 || !vk->delta2 || !vk->IC) {
		zka_fmt_err(err, errlen, path, "cannot write an incomplete verification key");
		return -EINVAL;
	}
	json_t *root = json_pack("{s:s,s:s,s:I,s:o,s:o,s:o,s:o}", "protocol", "groth16", "curve",
				 c->name, "nPublic", (json_int_t)vk->n_public, "vk_alpha_1",
				 zka_jg1(c, vk->alpha1), "vk_beta_2", zka_jg2(c, vk->beta2),
				 "vk_gamma_2", zka_jg2(c, vk->gamma2), "vk_delta_2",
				 zka_jg2(c, vk->delta2));
	if (!root)
		return zka_json_write(path, NULL, err, errlen);
	if (vk->alphabeta12) {
		/* [[[c0.c0.c0, c0.c0.c1], [c0.c1..], [c0.c2..]], [[c1.c0..], ...]] */
		json_t *gt = json_array();
		for (int i = 0; gt && i < 2; i++) {
			json_t *f6 = json_array();
			for (int j = 0; f6 && j < 3; j++) {
				const uint8_t *e = vk->alphabeta12 + (size_t)(i * 6 + j * 2) * c->n8q;
				json_array_append_new(f6, json_pack("[oo]", zka_jfq(c, e),
								    zka_jfq(c, e + c->n8q)));
			}
			json_array_append_new(gt, f6);
		}
		if (!gt || json_object_set_new(root, "vk_alphabeta_12", gt) < 0) {
			json_decref(root);
			return zka_json_write(path, NULL, err, errlen);
		}
	}
	json_t *ic = json_array();
	for (uint32_t i = 0; ic && i <= vk->n_public; i++)
		if (json_array_append_new(ic, zka_jg1(c, vk->IC + i * zka_g1_bytes(c))) < 0) {
			json_decref(ic);
			ic = NULL;
		}
	if (!ic || json_object_set_new(root, "IC", ic) < 0) {
		json_decref(root);
		return zka_json_write(path, NULL, err, errlen);
	}
	return zka_json_write(path, root, err, errlen);
}

/* ---- input ----------------------------------------------------------------------------- */

typedef struct {
	const char *path;
	char *err;
	size_t errlen;
} zka_jctx;

/* Loads path; returns the root or NULL with "path: JSON error ..." in err. */
static json_t *zka_jload(zka_jctx *x, int *ret)
{
	json_error_t je;
	/* only a regular file: a FIFO or device would block or never end (O_NONBLOCK: the
	 * open itself does not wait for a FIFO's writer) */
	struct stat st;
	int fd = open(x->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		*ret = fd < 0 ? -errno : -EINVAL;
		zka_fmt_err(x->err, x->errlen, x->path, "%s",
			    fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	json_t *root = json_loadfd(fd, JSON_REJECT_DUPLICATES, &je); /* the file checked */
	close(fd);
	if (!root) {
		*ret = -EINVAL;
		if (je.line > 0)
			zka_fmt_err(x->err, x->errlen, x->path, "invalid JSON at line %d column %d: %s",
				    je.line, je.column, je.text);
		else
			zka_fmt_err(x->err, x->errlen, x->path, "%s", je.text);
	}
	return root;
}

/* Parses a decimal string < the modulus (Fq when fq, else Fr) into n8 bytes (standard form).
 * what names the value in messages. Returns 0 or -EINVAL. */
static int zka_jnum(zka_jctx *x, const zka_curve *c, const json_t *v, int fq, void *out,
		    const char *what)
{
	if (!v) {
		zka_fmt_err(x->err, x->errlen, x->path, "%s: missing", what);
		return -EINVAL;
	}
	if (!json_is_string(v)) {
		zka_fmt_err(x->err, x->errlen, x->path, "%s: not a string", what);
		return -EINVAL;
	}
	const char *s = json_string_value(v);
	int r = fq ? zka_dec_parse(s, out, c->n8q, c->q, c->n8q / 8)
		   : zka_dec_parse(s, out, 32, c->r, 4);
	if (r == -EINVAL)
		zka_fmt_err(x->err, x->errlen, x->path, "%s: not a decimal string", what);
	else if (r == -ERANGE)
		zka_fmt_err(x->err, x->errlen, x->path, "%s: value not below %s", what, fq ? "q" : "r");
	else if (r < 0)
		zka_fmt_err(x->err, x->errlen, x->path, "%s: %s", what, strerror(-r));
	return r < 0 ? -EINVAL : 0;
}

/* Fq element from a decimal string, into Montgomery bytes. */
static int zka_jfq_in(zka_jctx *x, const zka_curve *c, const json_t *v, uint8_t *out,
		      const char *what)
{
	uint64_t t[8] = {0};
	int r = zka_jnum(x, c, v, 1, t, what);
	if (r < 0)
		return r;
	c->fq_to_mont(t, t);
	memcpy(out, t, c->n8q);
	return 0;
}

static int zka_is_small(const uint64_t *t, size_t n8, uint64_t v)
{
	if (t[0] != v)
		return 0;
	for (size_t i = 1; i < n8 / 8; i++)
		if (t[i])
			return 0;
	return 1;
}

/* Checks a point with the curve's subgroup check. */
static int zka_jcheck(zka_jctx *x, const zka_curve *c, const uint8_t *p, int g2, const char *what)
{
	int r = g2 ? c->g2_check(p) : c->g1_check(p);
	if (r) {
		zka_fmt_err(x->err, x->errlen, x->path, "%s: point %s", what,
			    r == ZKA_ENOTINGROUP ? "not in the subgroup" : "not on the curve");
		return -EINVAL;
	}
	return 0;
}

/* G1 from [x, y] or [x, y, z] with z "1" (affine) or "0" (infinity). */
static int zka_jg1_in(zka_jctx *x, const zka_curve *c, const json_t *v, uint8_t *out,
		      const char *what)
{
	char w[96];
	size_t n = json_is_array(v) ? json_array_size(v) : 0;
	if (!v || !json_is_array(v) || n < 2 || n > 3) {
		zka_fmt_err(x->err, x->errlen, x->path, "%s: %s", what,
			    v ? "not an array of 2 or 3 coordinates" : "missing");
		return -EINVAL;
	}
	uint8_t tmp[96] __attribute__((aligned(8)));
	for (size_t i = 0; i < 2; i++) {
		snprintf(w, sizeof w, "%s[%zu]", what, i);
		if (zka_jfq_in(x, c, json_array_get(v, i), tmp + i * c->n8q, w) < 0)
			return -EINVAL;
	}
	if (n == 3) {
		uint64_t z[8] = {0};
		snprintf(w, sizeof w, "%s[2]", what);
		if (zka_jnum(x, c, json_array_get(v, 2), 1, z, w) < 0)
			return -EINVAL;
		if (zka_is_small(z, c->n8q, 0)) {
			memset(tmp, 0, zka_g1_bytes(c));
		} else if (!zka_is_small(z, c->n8q, 1)) {
			zka_fmt_err(x->err, x->errlen, x->path,
				    "%s: projective point (z not 1 or 0) is not supported", what);
			return -EINVAL;
		}
	}
	if (zka_jcheck(x, c, tmp, 0, what) < 0)
		return -EINVAL;
	memcpy(out, tmp, zka_g1_bytes(c));
	return 0;
}

/* An Fq2 pair [c0, c1] into Montgomery bytes; also reports whether it was 0 or 1 (plain). */
static int zka_jfq2_in(zka_jctx *x, const zka_curve *c, const json_t *v, uint8_t *out,
		       const char *what, int *is0, int *is1)
{
	char w[96];
	if (!v || !json_is_array(v) || json_array_size(v) != 2) {
		zka_fmt_err(x->err, x->errlen, x->path, "%s: %s", what,
			    v ? "not an array of 2 numbers" : "missing");
		return -EINVAL;
	}
	uint64_t t[2][8] = {{0}};
	for (size_t i = 0; i < 2; i++) {
		snprintf(w, sizeof w, "%s[%zu]", what, i);
		if (zka_jnum(x, c, json_array_get(v, i), 1, t[i], w) < 0)
			return -EINVAL;
	}
	if (is0)
		*is0 = zka_is_small(t[0], c->n8q, 0) && zka_is_small(t[1], c->n8q, 0);
	if (is1)
		*is1 = zka_is_small(t[0], c->n8q, 1) && zka_is_small(t[1], c->n8q, 0);
	if (out)
		for (size_t i = 0; i < 2; i++) {
			c->fq_to_mont(t[i], t[i]);
			memcpy(out + i * c->n8q, t[i], c->n8q);
		}
	return 0;
}

/* G2 from [[x0,x1],[y0,y1]] or with a third z pair ["1","0"] (affine) / ["0","0"] (inf). */
static int zka_jg2_in(zka_jctx *x, const zka_curve *c, const json_t *v, uint8_t *out,
		      const char *what)
{
	char w[96];
	size_t n = json_is_array(v) ? json_array_size(v) : 0;
	if (!v || !json_is_array(v) || n < 2 || n > 3) {
		zka_fmt_err(x->err, x->errlen, x->path, "%s: %s", what,
			    v ? "not an array of 2 or 3 coordinate pairs" : "missing");
		return -EINVAL;
	}
	uint8_t tmp[192] __attribute__((aligned(8)));
	for (size_t i = 0; i < 2; i++) {
		snprintf(w, sizeof w, "%s[%zu]", what, i);
		if (zka_jfq2_in(x, c, json_array_get(v, i), tmp + 2 * i * c->n8q, w, NULL, NULL) < 0)
			return -EINVAL;
	}
	if (n == 3) {
		int is0, is1;
		snprintf(w, sizeof w, "%s[2]", what);
		if (zka_jfq2_in(x, c, json_array_get(v, 2), NULL, w, &is0, &is1) < 0)
			return -EINVAL;
		if (is0) {
			memset(tmp, 0, zka_g2_bytes(c));
		} else if (!is1) {
			zka_fmt_err(x->err, x->errlen, x->path,
				    "%s: projective point (z not 1 or 0) is not supported", what);
			return -EINVAL;
		}
	}
	if (zka_jcheck(x, c, tmp, 1, what) < 0)
		return -EINVAL;
	memcpy(out, tmp, zka_g2_bytes(c));
	return 0;
}

/* The optional "protocol" (must be "groth16") and the "curve" of root, checked against
 * *curve (when set) and stored there. need_curve: a missing curve is an error when *curve
 * is NULL. Returns 0 or -EINVAL. */
static int zka_jheader(zka_jctx *x, const json_t *root, const zka_curve **curve)
{
	const json_t *p = json_object_get(root, "protocol");
	if (p && (!json_is_string(p) || strcmp(json_string_value(p), "groth16") != 0)) {
		zka_fmt_err(x->err, x->errlen, x->path, "protocol: %s%s%s",
			    json_is_string(p) ? "\"" : "not a string",
			    json_is_string(p) ? json_string_value(p) : "",
			    json_is_string(p) ? "\" is not groth16" : "");
		return -EINVAL;
	}
	const json_t *cj = json_object_get(root, "curve");
	if (!cj) {
		if (*curve)
			return 0;
		zka_fmt_err(x->err, x->errlen, x->path, "curve: missing");
		return -EINVAL;
	}
	if (!json_is_string(cj)) {
		zka_fmt_err(x->err, x->errlen, x->path, "curve: not a string");
		return -EINVAL;
	}
	const zka_curve *c = zka_curve_by_name(json_string_value(cj));
	if (!c) {
		zka_fmt_err(x->err, x->errlen, x->path, "curve: unsupported curve \"%s\"",
			    json_string_value(cj));
		return -EINVAL;
	}
	if (*curve && *curve != c) {
		zka_fmt_err(x->err, x->errlen, x->path,
			    "curve: %s does not match the verification key's %s", c->name,
			    (*curve)->name);
		return -EINVAL;
	}
	*curve = c;
	return 0;
}

int zka_proof_read_json(const char *path, const zka_curve *curve, zka_proof *proof, char *err,
			size_t errlen)
{
	zka_jctx x = {path, err, errlen};
	int ret;
	zka_proof pr;
	memset(&pr, 0, sizeof pr);
	json_t *root = zka_jload(&x, &ret);
	if (!root)
		return ret;
	ret = -EINVAL;
	if (!json_is_object(root)) {
		zka_fmt_err(err, errlen, path, "not a JSON object");
		goto err;
	}
	const zka_curve *c = curve;
	if (zka_jheader(&x, root, &c) < 0)
		goto err;
	pr.curve = c;
	if (zka_jg1_in(&x, c, json_object_get(root, "pi_a"), pr.a, "pi_a") < 0 ||
	    zka_jg2_in(&x, c, json_object_get(root, "pi_b"), pr.b, "pi_b") < 0 ||
	    zka_jg1_in(&x, c, json_object_get(root, "pi_c"), pr.c, "pi_c") < 0)
		goto err;
	*proof = pr;
	ret = 0;
err:
	json_decref(root);
	return ret;
}

int zka_public_read_json(const char *path, const zka_curve *c, uint64_t (**pub)[4], uint32_t *n,
			 char *err, size_t errlen)
{
	zka_jctx x = {path, err, errlen};
	int ret;
	uint64_t(*v)[4] = NULL;
	*pub = NULL;
	*n = 0;
	json_t *root = zka_jload(&x, &ret);
	if (!root)
		return ret;
	ret = -EINVAL;
	if (!json_is_array(root)) {
		zka_fmt_err(err, errlen, path, "not a JSON array of public signals");
		goto err;
	}
	size_t len = json_array_size(root);
	if (len > UINT32_MAX) {
		zka_fmt_err(err, errlen, path, "too many public signals");
		goto err;
	}
	v = malloc(len ? len * sizeof *v : 1);
	if (!v) {
		ret = -ENOMEM;
		zka_fmt_err(err, errlen, path, "out of memory");
		goto err;
	}
	for (size_t i = 0; i < len; i++) {
		char w[32];
		snprintf(w, sizeof w, "[%zu]", i);
		if (zka_jnum(&x, c, json_array_get(root, i), 0, v[i], w) < 0)
			goto err;
	}
	*pub = v;
	*n = (uint32_t)len;
	v = NULL;
	ret = 0;
err:
	free(v);
	json_decref(root);
	return ret;
}

int zka_vk_read_json(const char *path, zka_vk *vk, char *err, size_t errlen)
{
	zka_jctx x = {path, err, errlen};
	int ret;
	memset(vk, 0, sizeof *vk);
	json_t *root = zka_jload(&x, &ret);
	if (!root)
		return ret;
	ret = -EINVAL;
	if (!json_is_object(root)) {
		zka_fmt_err(err, errlen, path, "not a JSON object");
		goto err;
	}
	const zka_curve *c = NULL;
	if (zka_jheader(&x, root, &c) < 0)
		goto err;
	vk->curve = c;
	const json_t *np = json_object_get(root, "nPublic");
	if (!np || !json_is_integer(np) || json_integer_value(np) < 0 ||
	    json_integer_value(np) >= (json_int_t)UINT32_MAX) {
		zka_fmt_err(err, errlen, path, "nPublic: %s",
			    np ? "not a non-negative integer" : "missing");
		goto err;
	}
	vk->n_public = (uint32_t)json_integer_value(np);
	const json_t *ic = json_object_get(root, "IC");
	if (!ic || !json_is_array(ic)) {
		zka_fmt_err(err, errlen, path, "IC: %s", ic ? "not an array" : "missing");
		goto err;
	}
	if (json_array_size(ic) != (size_t)vk->n_public + 1) {
		zka_fmt_err(err, errlen, path, "IC: %zu points for nPublic %" PRIu32 " (expected %" PRIu64 ")",
			    json_array_size(ic), vk->n_public, (uint64_t)vk->n_public + 1);
		goto err;
	}
	size_t sG1 = zka_g1_bytes(c), sG2 = zka_g2_bytes(c);
	vk->alpha1 = malloc(sG1);
	vk->beta2 = malloc(sG2);
	vk->gamma2 = malloc(sG2);
	vk->delta2 = malloc(sG2);
	vk->IC = malloc(sG1 * ((size_t)vk->n_public + 1));
	if (!vk->alpha1 || !vk->beta2 || !vk->gamma2 || !vk->delta2 || !vk->IC) {
		ret = -ENOMEM;
		zka_fmt_err(err, errlen, path, "out of memory");
		goto err;
	}
	if (zka_jg1_in(&x, c, json_object_get(root, "vk_alpha_1"), vk->alpha1, "vk_alpha_1") < 0 ||
	    zka_jg2_in(&x, c, json_object_get(root, "vk_beta_2"), vk->beta2, "vk_beta_2") < 0 ||
	    zka_jg2_in(&x, c, json_object_get(root, "vk_gamma_2"), vk->gamma2, "vk_gamma_2") < 0 ||
	    zka_jg2_in(&x, c, json_object_get(root, "vk_delta_2"), vk->delta2, "vk_delta_2") < 0)
		goto err;
	for (size_t i = 0; i <= vk->n_public; i++) {
		char w[32];
		snprintf(w, sizeof w, "IC[%zu]", i);
		if (zka_jg1_in(&x, c, json_array_get(ic, i), vk->IC + i * sG1, w) < 0)
			goto err;
	}
	const json_t *ab = json_object_get(root, "vk_alphabeta_12");
	if (ab) {
		vk->alphabeta12 = malloc(12 * (size_t)c->n8q);
		if (!vk->alphabeta12) {
			ret = -ENOMEM;
			zka_fmt_err(err, errlen, path, "out of memory");
			goto err;
		}
		if (!json_is_array(ab) || json_array_size(ab) != 2) {
			zka_fmt_err(err, errlen, path, "vk_alphabeta_12: not an array of 2 Fq6 elements");
			goto err;
		}
		for (size_t i = 0; i < 2; i++) {
			const json_t *f6 = json_array_get(ab, i);
			if (!json_is_array(f6) || json_array_size(f6) != 3) {
				zka_fmt_err(err, errlen, path,
					    "vk_alphabeta_12[%zu]: not an array of 3 Fq2 elements", i);
				goto err;
			}
			for (size_t j = 0; j < 3; j++) {
				char w[48];
				snprintf(w, sizeof w, "vk_alphabeta_12[%zu][%zu]", i, j);
				if (zka_jfq2_in(&x, c, json_array_get(f6, j),
						vk->alphabeta12 + (i * 6 + j * 2) * c->n8q, w, NULL,
						NULL) < 0)
					goto err;
			}
		}
	}
	json_decref(root);
	return 0;
err:
	json_decref(root);
	free(vk->alpha1);
	free(vk->beta2);
	free(vk->gamma2);
	free(vk->delta2);
	free(vk->IC);
	free(vk->alphabeta12);
	memset(vk, 0, sizeof *vk);
	return ret;
}
