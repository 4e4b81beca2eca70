/* test_formats.c - the iden3 container, .zkey and .wtns: round trips on random data and
 * every kind of bad input. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "tests/fmt_testlib.h"
#include "tests/testutil.h"
#include "zk/binfile.h"
#include "zk/decimal.h"
#include "zk/wtns.h"
#include "zk/zkey.h"

/* Asserts that err is one line starting with "path: ". */
static void check_err_line(const char *err, const char *path)
{
	size_t n = strlen(path);
	CU_ASSERT(strncmp(err, path, n) == 0 && err[n] == ':' && err[n + 1] == ' ');
	CU_ASSERT(strchr(err, '\n') == NULL);
	CU_ASSERT(strlen(err) > n + 2);
}

/* ---- container ------------------------------------------------------------------------- */

static void test_binfile_roundtrip(void)
{
	const char *path = fmt_path("t.bin");
	uint32_t ids[5] = {7, 1, 42, 3, 9};
	uint8_t payload[5][300];
	size_t sizes[5];
	/* a random permutation of the ids, random sizes (0 allowed) */
	for (int i = 4; i > 0; i--) {
		int j = (int)(zka_test_rand64() % (uint64_t)(i + 1));
		uint32_t t = ids[i];
		ids[i] = ids[j];
		ids[j] = t;
	}
	zka_binw w;
	CU_ASSERT_FATAL(zka_binw_open(&w, path, "test", 3, 5) == 0);
	for (int i = 0; i < 5; i++) {
		sizes[i] = (size_t)(zka_test_rand64() % 300);
		zka_test_random(payload[i], sizes[i]);
		CU_ASSERT_FATAL(zka_binw_begin(&w, ids[i]) == 0);
		CU_ASSERT(zka_binw_write(&w, payload[i], sizes[i]) == 0);
		CU_ASSERT(zka_binw_end(&w) == 0);
	}
	CU_ASSERT_FATAL(zka_binw_commit(&w) == 0);

	char err[256] = "";
	zka_binfile bf;
	CU_ASSERT_FATAL(zka_binfile_open(&bf, path, "test", 1, 3, err, sizeof err) == 0);
	CU_ASSERT(bf.version == 3 && bf.n_sections == 5);
	for (int i = 0; i < 5; i++) {
		const uint8_t *p;
		uint64_t size;
		CU_ASSERT_FATAL(
		    zka_binfile_section(&bf, ids[i], UINT64_MAX, &p, &size, err, sizeof err) == 0);
		CU_ASSERT(size == sizes[i]);
		CU_ASSERT(memcmp(p, payload[i], sizes[i]) == 0);
		/* exact-size lookup */
		CU_ASSERT(zka_binfile_section(&bf, ids[i], sizes[i], &p, &size, err, sizeof err) ==
			  0);
		err[0] = 0;
		CU_ASSERT(zka_binfile_section(&bf, ids[i], sizes[i] + 1, &p, &size, err,
					      sizeof err) == -EINVAL);
		CU_ASSERT(strstr(err, "wrong size") != NULL);
		err[0] = 0;
	}
	const uint8_t *p;
	uint64_t size;
	CU_ASSERT(zka_binfile_section(&bf, 2, UINT64_MAX, &p, &size, err, sizeof err) == -EINVAL);
	CU_ASSERT(strstr(err, "section 2 missing") != NULL);
	zka_binfile_close(&bf);

	/* version outside the accepted range, wrong magic */
	err[0] = 0;
	CU_ASSERT(zka_binfile_open(&bf, path, "test", 1, 2, err, sizeof err) == -EINVAL);
	CU_ASSERT(strstr(err, "unsupported version 3") != NULL);
	check_err_line(err, path);
	err[0] = 0;
	CU_ASSERT(zka_binfile_open(&bf, path, "zkey", 1, 3, err, sizeof err) == -EINVAL);
	CU_ASSERT(strstr(err, "not a zkey file") != NULL);
	err[0] = 0;
	CU_ASSERT(zka_binfile_open(&bf, fmt_path("does-not-exist"), "test", 1, 3, err,
				   sizeof err) == -ENOENT);
	check_err_line(err, fmt_path("does-not-exist"));

	/* duplicated section, trailing bytes, table lying in both directions */
	size_t len;
	uint8_t *buf = fmt_slurp(path, &len);
	uint8_t *big = malloc(len + 16);
	memcpy(big, buf, len);
	memset(big + len, 0xab, 16);
	const char *bad = fmt_path("bad.bin");
	fmt_spit(bad, big, len + 5);
	err[0] = 0;
	CU_ASSERT(zka_binfile_open(&bf, bad, "test", 1, 3, err, sizeof err) == -EINVAL);
	CU_ASSERT(strstr(err, "bytes after the last") != NULL);
	uint32_t n = 6;
	memcpy(big + 8, &n, 4);
	fmt_spit(bad, big, len);
	err[0] = 0;
	CU_ASSERT(zka_binfile_open(&bf, bad, "test", 1, 3, err, sizeof err) == -EINVAL);
	CU_ASSERT(strstr(err, "truncated") != NULL);
	n = 4;
	memcpy(big + 8, &n, 4);
	fmt_spit(bad, big, len);
	err[0] = 0;
	CU_ASSERT(zka_binfile_open(&bf, bad, "test", 1, 3, err, sizeof err) == -EINVAL);
	CU_ASSERT(strstr(err, "bytes after the last") != NULL);
	/* make the second entry's id equal the first's */
	memcpy(big, buf, len);
	uint64_t s0;
	memcpy(&s0, big + 16, 8);
	memcpy(big + 12 + 12 + s0, big + 12, 4);
	fmt_spit(bad, big, len);
	err[0] = 0;
	CU_ASSERT(zka_binfile_open(&bf, bad, "test", 1, 3, err, sizeof err) == -EINVAL);
	CU_ASSERT(strstr(err, "duplicated") != NULL);
	/* a section size larger than the rest of the file */
	memcpy(big, buf, len);
	uint64_t huge = len;
	memcpy(big + 16, &huge, 8);
	fmt_spit(bad, big, len);
	err[0] = 0;
	CU_ASSERT(zka_binfile_open(&bf, bad, "test", 1, 3, err, sizeof err) == -EINVAL);
	CU_ASSERT(strstr(err, "truncated (expected") != NULL);
	free(big);
	free(buf);
}

/* ---- zkey ------------------------------------------------------------------------------ */

static void zkey_roundtrip(const zka_curve *c, int order)
{
	zka_pk pk, rd;
	char err[256] = "";
	const char *path = fmt_path("k.zkey");
	fmt_rand_pk(c, &pk);
	CU_ASSERT_FATAL(zka_zkey_write(path, &pk, order, err, sizeof err) == 0);
	CU_ASSERT_FATAL(
	    zka_zkey_read_flags(path, &rd, ZKA_ZKEY_CHECK_ALL_POINTS, err, sizeof err) == 0);
	CU_ASSERT(fmt_pk_equal(&pk, &rd));

	/* the section order in the file */
	size_t len;
	uint8_t *buf = fmt_slurp(path, &len);
	static const uint32_t plain[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	static const uint32_t setup[10] = {1, 2, 4, 3, 9, 8, 5, 6, 7, 10};
	const uint32_t *want = order ? setup : plain;
	size_t pos = 12;
	for (int i = 0; i < 10; i++) {
		uint32_t id;
		uint64_t sz;
		memcpy(&id, buf + pos, 4);
		memcpy(&sz, buf + pos + 4, 8);
		CU_ASSERT(id == want[i]);
		pos += 12 + sz;
	}
	CU_ASSERT(pos == len);
	/* section 10: 64-byte csHash and zero contributions */
	size_t off;
	uint64_t sz;
	CU_ASSERT_FATAL(fmt_find_section(buf, len, 10, &off, &sz, NULL) == 0);
	CU_ASSERT(sz == 68);
	uint32_t ncontrib;
	memcpy(&ncontrib, buf + off + 64, 4);
	CU_ASSERT(ncontrib == 0);
	/* coefficients are stored doubly Montgomery: value(file) = fr_to_mont(value(memory)) */
	CU_ASSERT_FATAL(fmt_find_section(buf, len, 4, &off, &sz, NULL) == 0);
	uint32_t nc;
	memcpy(&nc, buf + off, 4);
	CU_ASSERT(nc == pk.n_coefs);
	for (uint32_t i = 0; i < nc; i++) {
		uint64_t v[4], f[4];
		c->fr_to_mont(v, pk.coefs[i].value);
		memcpy(f, buf + off + 4 + i * 44 + 12, 32);
		CU_ASSERT(memcmp(v, f, 32) == 0);
	}
	/* the extra "one" rows hold R^2 mod r (1 in double Montgomery) */
	zka_coef *last = &pk.coefs[pk.n_coefs - 1];
	uint64_t one[4] = {1, 0, 0, 0}, f[4];
	c->fr_to_mont(one, one);
	c->fr_to_mont(one, one);
	memcpy(f, buf + off + 4 + (pk.n_coefs - 1) * 44 + 12, 32);
	CU_ASSERT(memcmp(one, f, 32) == 0);
	CU_ASSERT(last->row == pk.domain_size - 1 && last->signal == pk.n_public);

	/* writing what was read gives the same bytes */
	const char *path2 = fmt_path("k2.zkey");
	CU_ASSERT(zka_zkey_write(path2, &rd, order, err, sizeof err) == 0);
	size_t len2;
	uint8_t *buf2 = fmt_slurp(path2, &len2);
	CU_ASSERT(len2 == len && memcmp(buf, buf2, len) == 0);
	free(buf2);
	free(buf);
	remove(path2);
	zka_pk_free(&rd);
	zka_pk_free(&pk);
}

static void test_zkey_roundtrip(void)
{
	for (int c = 0; c < 2; c++)
		for (int order = 0; order < 2; order++)
			zkey_roundtrip(fmt_curves[c], order);
}

/* Writes pk, applies edit to the file bytes, and expects the read to fail with an error
 * containing want. */
typedef void (*zkey_edit)(uint8_t *buf, size_t *len, const zka_pk *pk);

static void expect_zkey_error(const zka_pk *pk, zkey_edit edit, unsigned flags, const char *want)
{
	char err[256] = "";
	const char *path = fmt_path("bad.zkey");
	CU_ASSERT_FATAL(zka_zkey_write(path, pk, (int)(zka_test_rand64() & 1), err, sizeof err) ==
			0);
	size_t len;
	uint8_t *buf = fmt_slurp(path, &len);
	edit(buf, &len, pk);
	fmt_spit(path, buf, len);
	free(buf);
	zka_pk rd;
	memset(&rd, 0x5a, sizeof rd);
	int r = zka_zkey_read_flags(path, &rd, flags, err, sizeof err);
	CU_ASSERT(r == -EINVAL);
	if (r == 0)
		zka_pk_free(&rd);
	CU_ASSERT(rd.A == NULL && rd.coefs == NULL); /* zeroed on error */
	check_err_line(err, path);
	if (!strstr(err, want))
		fprintf(stderr, "\n  expected \"%s\", got \"%s\"\n", want, err);
	CU_ASSERT(strstr(err, want) != NULL);
}

static size_t sec_off(const uint8_t *buf, size_t len, uint32_t id)
{
	size_t off;
	uint64_t sz;
	CU_ASSERT_FATAL(fmt_find_section(buf, len, id, &off, &sz, NULL) == 0);
	return off;
}

/* offset of nVars in section 2 */
static size_t hdr_nvars(const uint8_t *buf, size_t len, const zka_pk *pk)
{
	return sec_off(buf, len, 2) + 4 + pk->curve->n8q + 4 + pk->curve->n8r;
}

static void e_magic(uint8_t *b, size_t *l, const zka_pk *pk)
{
	(void)l, (void)pk;
	b[0] = 'Z';
}
static void e_version(uint8_t *b, size_t *l, const zka_pk *pk)
{
	(void)l, (void)pk;
	b[4] = 2;
}
static void e_protocol(uint8_t *b, size_t *l, const zka_pk *pk)
{
	(void)pk;
	b[sec_off(b, *l, 1)] = 2;
}
static void e_nsections_more(uint8_t *b, size_t *l, const zka_pk *pk)
{
	(void)l, (void)pk;
	b[8] = 11;
}
static void e_nsections_less(uint8_t *b, size_t *l, const zka_pk *pk)
{
	(void)l, (void)pk;
	b[8] = 9;
}
static void e_size_lie(uint8_t *b, size_t *l, const zka_pk *pk)
{
	(void)pk;
	size_t off, entry;
	uint64_t sz;
	fmt_find_section(b, *l, 5, &off, &sz, &entry);
	sz += 1 + zka_test_rand64() % 100;
	memcpy(b + entry + 4, &sz, 8);
}
static void e_size_shrink(uint8_t *b, size_t *l, const zka_pk *pk)
{
	(void)pk;
	/* shrink section 5 by one point and remove the bytes: a consistent container, a wrong size
	 */
	size_t off, entry;
	uint64_t sz;
	fmt_find_section(b, *l, 5, &off, &sz, &entry);
	size_t g1 = zka_g1_bytes(pk->curve);
	memmove(b + off + sz - g1, b + off + sz, *l - (off + sz));
	*l -= g1;
	sz -= g1;
	memcpy(b + entry + 4, &sz, 8);
}
static void e_q(uint8_t *b, size_t *l, const zka_pk *pk)
{
	(void)pk;
	b[sec_off(b, *l, 2) + 4] ^= 2;
}
static void e_r(uint8_t *b, size_t *l, const zka_pk *pk)
{
	b[sec_off(b, *l, 2) + 4 + pk->curve->n8q + 4] ^= 2;
}
static void e_domain(uint8_t *b, size_t *l, const zka_pk *pk)
{
	uint32_t d = pk->domain_size + 8;
	memcpy(b + hdr_nvars(b, *l, pk) + 8, &d, 4);
}
static void e_npublic(uint8_t *b, size_t *l, const zka_pk *pk)
{
	memcpy(b + hdr_nvars(b, *l, pk) + 4, &pk->n_vars, 4);
}
static void e_alpha(uint8_t *b, size_t *l, const zka_pk *pk)
{
	/* alpha1.x low limb + 1 : off the curve (x stays < q) */
	b[hdr_nvars(b, *l, pk) + 12] ^= 1;
}
static void e_alpha_q(uint8_t *b, size_t *l, const zka_pk *pk)
{
	memset(b + hdr_nvars(b, *l, pk) + 12 + pk->curve->n8q, 0xff, pk->curve->n8q);
}
static void e_ic(uint8_t *b, size_t *l, const zka_pk *pk)
{
	size_t i = (size_t)(zka_test_rand64() % (pk->n_public + 1));
	uint8_t *p = b + sec_off(b, *l, 3) + i * zka_g1_bytes(pk->curve);
	p[0] ^= 1;
	p[pk->curve->n8q] ^= 1; /* also makes an infinity point non-zero */
}
static void e_A(uint8_t *b, size_t *l, const zka_pk *pk)
{
	uint8_t *p = b + sec_off(b, *l, 5) + (pk->n_vars - 1) * zka_g1_bytes(pk->curve);
	p[0] ^= 1;
	p[pk->curve->n8q] ^= 1;
}
static uint8_t *coef_at(uint8_t *b, size_t l, const zka_pk *pk)
{
	uint32_t i = (uint32_t)(zka_test_rand64() % pk->n_coefs);
	return b + sec_off(b, l, 4) + 4 + i * 44;
}
static void e_coef_matrix(uint8_t *b, size_t *l, const zka_pk *pk)
{
	uint32_t v = 2;
	memcpy(coef_at(b, *l, pk), &v, 4);
}
static void e_coef_row(uint8_t *b, size_t *l, const zka_pk *pk)
{
	memcpy(coef_at(b, *l, pk) + 4, &pk->domain_size, 4);
}
static void e_coef_signal(uint8_t *b, size_t *l, const zka_pk *pk)
{
	memcpy(coef_at(b, *l, pk) + 8, &pk->n_vars, 4);
}
static void e_coef_value(uint8_t *b, size_t *l, const zka_pk *pk)
{
	memcpy(coef_at(b, *l, pk) + 12, pk->curve->r, 32);
}
static void e_coef_count(uint8_t *b, size_t *l, const zka_pk *pk)
{
	uint32_t n = pk->n_coefs + 1;
	memcpy(b + sec_off(b, *l, 4), &n, 4);
}
static void e_drop_sec(uint8_t *b, size_t *l, const zka_pk *pk)
{
	/* rename section 9 to 11: "section 9 missing" */
	(void)pk;
	size_t off, entry;
	uint64_t sz;
	fmt_find_section(b, *l, 9, &off, &sz, &entry);
	b[entry] = 11;
}
static void e_dup_sec(uint8_t *b, size_t *l, const zka_pk *pk)
{
	(void)pk;
	size_t off, entry;
	uint64_t sz;
	fmt_find_section(b, *l, 9, &off, &sz, &entry);
	b[entry] = 8;
}

static void test_zkey_bad(void)
{
	for (int ci = 0; ci < 2; ci++) {
		zka_pk pk;
		fmt_rand_pk(fmt_curves[ci], &pk);
		/* make sure A's last point is not infinity so that the edit moves it off the curve
		 */
		fmt_rand_g1(pk.curve, pk.A + (pk.n_vars - 1) * zka_g1_bytes(pk.curve));
		expect_zkey_error(&pk, e_magic, 0, "not a zkey file");
		expect_zkey_error(&pk, e_version, 0, "unsupported version 2");
		expect_zkey_error(&pk, e_protocol, 0, "unknown protocol 2");
		expect_zkey_error(&pk, e_nsections_more, 0, "truncated");
		expect_zkey_error(&pk, e_nsections_less, 0, "after the last");
		expect_zkey_error(&pk, e_size_lie, 0, "section");
		expect_zkey_error(&pk, e_size_shrink, 0, "section 5: wrong size");
		expect_zkey_error(&pk, e_q, 0, "q does not match any supported curve");
		expect_zkey_error(&pk, e_r, 0, "r does not match");
		expect_zkey_error(&pk, e_domain, 0, "not a power of two");
		expect_zkey_error(&pk, e_npublic, 0, "nPublic");
		expect_zkey_error(&pk, e_alpha, 0, "alpha1: point not on the curve");
		expect_zkey_error(&pk, e_alpha_q, 0, "alpha1: coordinate 1 not below q");
		expect_zkey_error(&pk, e_ic, 0, "IC[");
		expect_zkey_error(&pk, e_A, ZKA_ZKEY_CHECK_ALL_POINTS, "A[");
		expect_zkey_error(&pk, e_coef_matrix, 0, "out of range");
		expect_zkey_error(&pk, e_coef_row, 0, "out of range");
		expect_zkey_error(&pk, e_coef_signal, 0, "out of range");
		expect_zkey_error(&pk, e_coef_value, 0, "value not below r");
		expect_zkey_error(&pk, e_coef_count, 0, "section 4: wrong size");
		expect_zkey_error(&pk, e_drop_sec, 0, "section 9 missing");
		expect_zkey_error(&pk, e_dup_sec, 0, "section 8 duplicated");

		/* A's bad point is only found with the flag */
		char err[256] = "";
		const char *path = fmt_path("bad.zkey");
		zka_pk rd;
		CU_ASSERT(zka_zkey_read(path, &rd, err, sizeof err) ==
			  -EINVAL); /* dup from above */
		expect_zkey_error(&pk, e_A, ZKA_ZKEY_CHECK_ALL_POINTS, "A[");
		err[0] = 0;
		CU_ASSERT(zka_zkey_read(path, &rd, err, sizeof err) == 0);
		zka_pk_free(&rd);

		/* truncated at random offsets */
		CU_ASSERT_FATAL(zka_zkey_write(path, &pk, 0, err, sizeof err) == 0);
		size_t len;
		uint8_t *buf = fmt_slurp(path, &len);
		for (int t = 0; t < 12; t++) {
			size_t cut = t == 0   ? 0
				     : t == 1 ? len - 1
					      : (size_t)(zka_test_rand64() % len);
			fmt_spit(path, buf, cut);
			err[0] = 0;
			CU_ASSERT(zka_zkey_read(path, &rd, err, sizeof err) == -EINVAL);
			check_err_line(err, path);
		}
		free(buf);
		zka_pk_free(&pk);
	}
}

/* A key whose point sections span several of the reader's parallel chunks (65,536 points):
 * read back byte for byte, and a coordinate >= q planted in two chunks of A (or B2) is named
 * at the lower index, as the serial check named it; the same for section 4's coefficients. */
static void test_zkey_parallel(void)
{
	for (int ci = 0; ci < 2; ci++) {
		const zka_curve *c = fmt_curves[ci];
		zka_pk pk, rd;
		char err[256] = "";
		const char *path = fmt_path("big.zkey");
		fmt_rand_pk(c, &pk);
		uint32_t n = 3 * 65536 + 7 + (uint32_t)(zka_test_rand64() % 1000);
		size_t s1 = zka_g1_bytes(c), s2 = zka_g2_bytes(c);
		uint8_t **g1s[] = {&pk.A, &pk.B1, &pk.C};
		uint32_t had[] = {pk.n_vars, pk.n_vars, pk.n_vars - pk.n_public - 1};
		for (int k = 0; k < 3; k++) { /* the key's random points, repeated */
			uint8_t *v = malloc((size_t)n * s1);
			CU_ASSERT_FATAL(v != NULL);
			for (uint32_t i = 0; i < n; i++)
				memcpy(v + (size_t)i * s1, *g1s[k] + (i % had[k]) * s1, s1);
			free(*g1s[k]);
			*g1s[k] = v;
		}
		uint8_t *v2 = malloc((size_t)n * s2);
		CU_ASSERT_FATAL(v2 != NULL);
		for (uint32_t i = 0; i < n; i++)
			memcpy(v2 + (size_t)i * s2, pk.B2 + (i % pk.n_vars) * s2, s2);
		free(pk.B2);
		pk.B2 = v2;
		pk.n_vars = n;
		CU_ASSERT_FATAL(zka_zkey_write(path, &pk, 0, err, sizeof err) == 0);
		CU_ASSERT_FATAL(zka_zkey_read(path, &rd, err, sizeof err) == 0);
		CU_ASSERT(memcmp(rd.A, pk.A, (size_t)n * s1) == 0);
		CU_ASSERT(memcmp(rd.B1, pk.B1, (size_t)n * s1) == 0);
		CU_ASSERT(memcmp(rd.B2, pk.B2, (size_t)n * s2) == 0);
		CU_ASSERT(memcmp(rd.C, pk.C, (size_t)(n - pk.n_public - 1) * s1) == 0);
		zka_pk_free(&rd);
		for (int round = 0; round < 4; round++) {
			int g2 = round & 1;
			uint32_t sec = g2 ? 7 : 5; /* B2, A */
			size_t sz = g2 ? s2 : s1;
			uint32_t i1 = (uint32_t)(zka_test_rand64() % (n - 65536));
			uint32_t i2 = i1 + 65536 + (uint32_t)(zka_test_rand64() % (n - i1 - 65536));
			uint32_t k = (uint32_t)(zka_test_rand64() % (g2 ? 4 : 2));
			size_t len;
			uint8_t *buf = fmt_slurp(path, &len);
			size_t off = sec_off(buf, len, sec);
			memset(buf + off + (size_t)i2 * sz, 0xff, c->n8q); /* coordinate 0 of i2 */
			memset(buf + off + (size_t)i1 * sz + k * c->n8q, 0xff, c->n8q);
			fmt_spit(path, buf, len);
			free(buf);
			char want[64];
			snprintf(want, sizeof want, "%s[%u]: coordinate %u not below q",
				 g2 ? "B2" : "A", i1, k);
			err[0] = 0;
			CU_ASSERT(zka_zkey_read(path, &rd, err, sizeof err) == -EINVAL);
			if (!strstr(err, want))
				fprintf(stderr, "\n  expected \"%s\", got \"%s\"\n", want, err);
			CU_ASSERT(strstr(err, want) != NULL);
			CU_ASSERT_FATAL(zka_zkey_write(path, &pk, 0, err, sizeof err) == 0);
		}
		/* coefficients over several chunks: converted as before; the lowest bad one named
		 */
		uint32_t nc = 2 * 65536 + 3 + (uint32_t)(zka_test_rand64() % 1000);
		zka_coef *cf = malloc((size_t)nc * sizeof *cf);
		CU_ASSERT_FATAL(cf != NULL);
		for (uint32_t i = 0; i < nc; i++)
			cf[i] = pk.coefs[i % pk.n_coefs];
		free(pk.coefs);
		pk.coefs = cf;
		pk.n_coefs = nc;
		CU_ASSERT_FATAL(zka_zkey_write(path, &pk, 0, err, sizeof err) == 0);
		CU_ASSERT_FATAL(zka_zkey_read(path, &rd, err, sizeof err) == 0);
		CU_ASSERT(rd.n_coefs == nc);
		int same = 1;
		for (uint32_t i = 0; i < nc && same; i++) {
			/* in memory as written (the file holds them times R once more) */
			same = rd.coefs[i].matrix == cf[i].matrix && rd.coefs[i].row == cf[i].row &&
			       rd.coefs[i].signal == cf[i].signal &&
			       !memcmp(rd.coefs[i].value, cf[i].value, 32);
		}
		CU_ASSERT(same);
		zka_pk_free(&rd);
		for (int round = 0; round < 2; round++) {
			uint32_t i1 = (uint32_t)(zka_test_rand64() % (nc - 65536));
			uint32_t i2 =
			    i1 + 65536 + (uint32_t)(zka_test_rand64() % (nc - i1 - 65536));
			size_t len, sc = 12 + c->n8r;
			uint8_t *buf = fmt_slurp(path, &len);
			size_t off = sec_off(buf, len, 4) + 4;
			memset(buf + off + (size_t)i2 * sc + 12, 0xff, c->n8r); /* value >= r */
			if (round)
				memset(buf + off + (size_t)i1 * sc + 4, 0xff,
				       4); /* row out of range */
			else
				memset(buf + off + (size_t)i1 * sc + 12, 0xff, c->n8r);
			fmt_spit(path, buf, len);
			free(buf);
			char want[64];
			snprintf(want, sizeof want, "coefficient %u: %s", i1,
				 round ? "matrix" : "value not below r");
			err[0] = 0;
			CU_ASSERT(zka_zkey_read(path, &rd, err, sizeof err) == -EINVAL);
			if (!strstr(err, want))
				fprintf(stderr, "\n  expected \"%s\", got \"%s\"\n", want, err);
			CU_ASSERT(strstr(err, want) != NULL);
			CU_ASSERT_FATAL(zka_zkey_write(path, &pk, 0, err, sizeof err) == 0);
		}
		zka_pk_free(&pk);
	}
}

static void test_zkey_write_fail(void)
{
	zka_pk pk;
	char err[256] = "";
	fmt_rand_pk(fmt_curves[zka_test_rand64() & 1], &pk);
	int before = fmt_dir_entries();
	/* into a directory that does not exist */
	const char *p = fmt_path("no/such/dir/k.zkey");
	CU_ASSERT(zka_zkey_write(p, &pk, 0, err, sizeof err) == -ENOENT);
	check_err_line(err, p);
	CU_ASSERT(!fmt_exists(p));
	/* an inconsistent key: no file, no temporary left behind, old file untouched */
	const char *q = fmt_path("keep.zkey");
	fmt_spit(q, "old", 3);
	pk.n_public = pk.n_vars;
	err[0] = 0;
	CU_ASSERT(zka_zkey_write(q, &pk, 1, err, sizeof err) == -EINVAL);
	check_err_line(err, q);
	size_t len;
	uint8_t *b = fmt_slurp(q, &len);
	CU_ASSERT(len == 3 && memcmp(b, "old", 3) == 0);
	free(b);
	remove(q);
	CU_ASSERT(fmt_dir_entries() == before);
	pk.n_public = 0;
	zka_pk_free(&pk);
}

/* ---- wtns ------------------------------------------------------------------------------ */

static void rand_witness(const zka_curve *c, zka_witness *w, uint32_t n)
{
	w->curve = c;
	w->n = n;
	w->w = malloc(n * sizeof *w->w);
	for (uint32_t i = 0; i < n; i++)
		fmt_rand_scalar(w->w[i]);
	memset(w->w[0], 0, 32);
	w->w[0][0] = 1;
}

static void test_wtns_roundtrip(void)
{
	for (int ci = 0; ci < 2; ci++) {
		const zka_curve *c = fmt_curves[ci];
		zka_witness w, rd;
		char err[256] = "";
		const char *path = fmt_path("w.wtns");
		rand_witness(c, &w, 1 + (uint32_t)(zka_test_rand64() % 100));
		/* r - 1, the largest value, is valid */
		if (w.n > 1) {
			memcpy(w.w[w.n - 1], c->r, 32);
			w.w[w.n - 1][0] -= 1;
		}
		CU_ASSERT_FATAL(zka_wtns_write(path, &w, err, sizeof err) == 0);
		CU_ASSERT_FATAL(zka_wtns_read(path, &rd, err, sizeof err) == 0);
		CU_ASSERT(rd.curve == c && rd.n == w.n);
		CU_ASSERT(memcmp(rd.w, w.w, 32 * (size_t)w.n) == 0);
		/* exact layout: header 12, section 1 at 12 with 40 bytes, section 2 values */
		size_t len;
		uint8_t *b = fmt_slurp(path, &len);
		CU_ASSERT(len == 12 + 12 + 40 + 12 + 32 * (size_t)w.n);
		CU_ASSERT(memcmp(b, "wtns", 4) == 0 && b[4] == 2 && b[8] == 2);
		CU_ASSERT(memcmp(b + 12 + 12 + 4, c->r, 32) == 0);
		zka_witness_free(&rd);

		/* bad inputs */
		const char *bad = fmt_path("bad.wtns");
		struct {
			size_t off;
			uint8_t x;
			const char *want;
		} edits[] = {
		    {0, 'W', "not a wtns file"},
		    {4, 1, "unsupported version 1"},
		    {4, 3, "unsupported version 3"},
		    {24, 48, "n8=48"},
		    {24 + 4 + 5, 0x77, "prime does not match"},
		    {24 + 36, 0xff, "section 2: wrong size"},
		    {12 + 12 + 40 + 12, 2, "witness value 0 is not 1"},
		};
		for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
			uint8_t *e = malloc(len);
			memcpy(e, b, len);
			e[edits[i].off] = edits[i].x;
			fmt_spit(bad, e, len);
			free(e);
			err[0] = 0;
			CU_ASSERT(zka_wtns_read(bad, &rd, err, sizeof err) == -EINVAL);
			CU_ASSERT(rd.w == NULL);
			check_err_line(err, bad);
			CU_ASSERT(strstr(err, edits[i].want) != NULL);
			if (!strstr(err, edits[i].want))
				fprintf(stderr, "\n  expected \"%s\", got \"%s\"\n", edits[i].want,
					err);
		}
		/* a value >= r at a random index: r itself, or r + small */
		if (w.n > 1) {
			uint32_t k = 1 + (uint32_t)(zka_test_rand64() % (w.n - 1));
			uint8_t *e = malloc(len);
			memcpy(e, b, len);
			memcpy(e + 12 + 12 + 40 + 12 + 32 * (size_t)k, c->r, 32);
			e[12 + 12 + 40 + 12 + 32 * (size_t)k] += (uint8_t)(zka_test_rand64() % 3);
			fmt_spit(bad, e, len);
			free(e);
			err[0] = 0;
			CU_ASSERT(zka_wtns_read(bad, &rd, err, sizeof err) == -EINVAL);
			char want[64];
			snprintf(want, sizeof want, "witness value %u is not below the prime", k);
			CU_ASSERT(strstr(err, want) != NULL);
		}
		/* truncations */
		for (int t = 0; t < 8; t++) {
			fmt_spit(bad, b, (size_t)(zka_test_rand64() % len));
			err[0] = 0;
			CU_ASSERT(zka_wtns_read(bad, &rd, err, sizeof err) == -EINVAL);
			check_err_line(err, bad);
		}
		free(b);
		/* failed write: nothing created */
		const char *nodir = fmt_path("nodir/w.wtns");
		err[0] = 0;
		CU_ASSERT(zka_wtns_write(nodir, &w, err, sizeof err) == -ENOENT);
		CU_ASSERT(!fmt_exists(nodir));
		check_err_line(err, nodir);
		zka_witness_free(&w);
	}
}

/* ---- a write that fails part way ------------------------------------------------------ */

/* The writers with the file size limit at 100 bytes, SIGXFSZ ignored: the first write past it
 * fails with EFBIG (a full disk looks the same to the writer). Each must return -EFBIG with one
 * line "<path>: cannot write: ...", leave no file and no temporary, and leave an existing file
 * at the path as it was. */
static int write_wtns(const char *p, void *x, char *err, size_t n)
{
	return zka_wtns_write(p, x, err, n);
}
static int write_zkey(const char *p, void *x, char *err, size_t n)
{
	return zka_zkey_write(p, x, (int)(zka_test_rand64() & 1), err, n);
}
static void test_write_efbig(void)
{
	const zka_curve *c = fmt_curves[zka_test_rand64() & 1];
	zka_witness w;
	zka_pk pk;
	rand_witness(c, &w, 10 + (uint32_t)(zka_test_rand64() % 100));
	fmt_rand_pk(c, &pk);
	struct {
		const char *name;
		int (*fn)(const char *, void *, char *, size_t);
		void *x;
	} ws[] = {{"big.wtns", write_wtns, &w}, {"big.zkey", write_zkey, &pk}};
	for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++) {
		const char *p = fmt_path(ws[i].name);
		fmt_spit(p, "old", 3);
		int before = fmt_dir_entries();
		char err[256] = "";
		struct rlimit old, lim;
		CU_ASSERT_FATAL(getrlimit(RLIMIT_FSIZE, &old) == 0);
		lim = old;
		lim.rlim_cur = 100;
		void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
		CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &lim) == 0);
		int rc = ws[i].fn(p, ws[i].x, err, sizeof err);
		CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &old) == 0);
		signal(SIGXFSZ, prev);
		CU_ASSERT(rc == -EFBIG);
		check_err_line(err, p);
		CU_ASSERT(strstr(err, "cannot write") != NULL);
		if (rc != -EFBIG || !strstr(err, "cannot write"))
			fprintf(stderr, "\n  %s: rc %d, \"%s\"\n", ws[i].name, rc, err);
		CU_ASSERT(fmt_dir_entries() == before);
		size_t len;
		uint8_t *b = fmt_slurp(p, &len);
		CU_ASSERT(len == 3 && memcmp(b, "old", 3) == 0);
		free(b);
		remove(p);
	}
	zka_witness_free(&w);
	zka_pk_free(&pk);
}

/* ---- decimal --------------------------------------------------------------------------- */

static void test_decimal(void)
{
	for (int ci = 0; ci < 2; ci++) {
		const zka_curve *c = fmt_curves[ci];
		for (int i = 0; i < 50; i++) {
			uint64_t x[6] = {0}, y[6];
			zka_test_random(x, c->n8q);
			x[c->n8q / 8 - 1] &= 0x0fffffffffffffffull; /* < q */
			char *s = zka_dec_format(x, c->n8q);
			CU_ASSERT_FATAL(s != NULL);
			CU_ASSERT(s[0] != '0' || s[1] == 0);
			CU_ASSERT(zka_dec_parse(s, y, c->n8q, c->q, c->n8q / 8) == 0);
			CU_ASSERT(memcmp(x, y, c->n8q) == 0);
			free(s);
		}
		/* q itself is out of range, q - 1 is in; leading zeros allowed */
		char *s = zka_dec_format(c->q, c->n8q);
		uint64_t y[6];
		CU_ASSERT(zka_dec_parse(s, y, c->n8q, c->q, c->n8q / 8) == -ERANGE);
		CU_ASSERT(zka_dec_parse(s, y, c->n8q, NULL, 0) == 0);
		CU_ASSERT(memcmp(y, c->q, c->n8q) == 0);
		size_t n = strlen(s);
		CU_ASSERT(s[n - 1] != '0');
		s[n - 1]--;
		CU_ASSERT(zka_dec_parse(s, y, c->n8q, c->q, c->n8q / 8) == 0);
		free(s);
	}
	uint64_t v[4];
	const char *bad[] = {"", "-1", "+1", " 1", "1 ", "0x10", "1e3", "1.0", "١", "12a"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CU_ASSERT(zka_dec_parse(bad[i], v, 32, NULL, 0) == -EINVAL);
	CU_ASSERT(zka_dec_parse("0007", v, 32, NULL, 0) == 0 && v[0] == 7 && !v[1] && !v[2] &&
		  !v[3]);
	CU_ASSERT(zka_dec_parse("0", v, 32, NULL, 0) == 0 && v[0] == 0);
	/* 2^256 does not fit 32 bytes */
	CU_ASSERT(
	    zka_dec_parse(
		"115792089237316195423570985008687907853269984665640564039457584007913129639936", v,
		32, NULL, 0) == -ERANGE);
	CU_ASSERT(
	    zka_dec_parse(
		"115792089237316195423570985008687907853269984665640564039457584007913129639935", v,
		32, NULL, 0) == 0);
	CU_ASSERT(v[0] == UINT64_MAX && v[3] == UINT64_MAX);
	uint64_t z[4] = {0};
	char *s = zka_dec_format(z, 32);
	CU_ASSERT(strcmp(s, "0") == 0);
	free(s);
}

int main(void)
{
	static const zka_test_case binfile[] = {
	    {"roundtrip and bad tables", test_binfile_roundtrip}, {NULL, NULL}};
	static const zka_test_case zkey[] = {
	    {"roundtrip both curves both orders", test_zkey_roundtrip},
	    {"bad inputs", test_zkey_bad},
	    {"sections past one parallel chunk", test_zkey_parallel},
	    {"failed write leaves nothing", test_zkey_write_fail},
	    {NULL, NULL}};
	static const zka_test_case wtns[] = {{"roundtrip and bad inputs", test_wtns_roundtrip},
					     {NULL, NULL}};
	static const zka_test_case wfail[] = {
	    {"wtns and zkey past the file size limit", test_write_efbig}, {NULL, NULL}};
	static const zka_test_case dec[] = {{"decimal strings", test_decimal}, {NULL, NULL}};
	zka_test_suite("binfile", binfile);
	zka_test_suite("zkey", zkey);
	zka_test_suite("wtns", wtns);
	zka_test_suite("failed writes", wfail);
	zka_test_suite("decimal", dec);
	return zka_test_run();
}
