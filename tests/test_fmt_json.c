/* test_fmt_json.c - proof.json, public.json, verification_key.json: round trips on random
 * points, snarkjs's layout, and malformed input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fmt_testlib.h"
#include "tests/testutil.h"
#include "zk/decimal.h"
#include "zk/json_io.h"

static void check_err_line(const char *err, const char *path)
{
	size_t n = strlen(path);
	CU_ASSERT(strncmp(err, path, n) == 0 && err[n] == ':' && err[n + 1] == ' ');
	CU_ASSERT(strchr(err, '\n') == NULL);
}

static char *slurp_str(const char *path)
{
	size_t len;
	uint8_t *b = fmt_slurp(path, &len);
	char *s = malloc(len + 1);
	memcpy(s, b, len);
	s[len] = 0;
	free(b);
	return s;
}

static void test_proof_roundtrip(void)
{
	for (int ci = 0; ci < 2; ci++)
		for (int inf = 0; inf < 2; inf++) {
			const zka_curve *c = fmt_curves[ci];
			zka_proof p, q;
			char err[256] = "";
			memset(&p, 0, sizeof p);
			p.curve = c;
			fmt_rand_g1(c, p.a);
			fmt_rand_g2(c, p.b);
			fmt_rand_g1(c, p.c);
			if (inf) /* infinity is written and read back as snarkjs does */
				memset(p.c, 0, sizeof p.c);
			const char *path = fmt_path("proof.json");
			CU_ASSERT_FATAL(zka_proof_write_json(path, &p, err, sizeof err) == 0);
			CU_ASSERT_FATAL(zka_proof_read_json(path, NULL, &q, err, sizeof err) == 0);
			CU_ASSERT(q.curve == c);
			CU_ASSERT(memcmp(p.a, q.a, zka_g1_bytes(c)) == 0);
			CU_ASSERT(memcmp(p.b, q.b, zka_g2_bytes(c)) == 0);
			CU_ASSERT(memcmp(p.c, q.c, zka_g1_bytes(c)) == 0);
			/* with the expected curve given */
			CU_ASSERT(zka_proof_read_json(path, c, &q, err, sizeof err) == 0);
			err[0] = 0;
			CU_ASSERT(zka_proof_read_json(path, fmt_curves[1 - ci], &q, err, sizeof err) == -EINVAL);
			CU_ASSERT(strstr(err, "does not match") != NULL);
			/* bfj layout: one-space indent, key order, no trailing newline */
			char *s = slurp_str(path);
			CU_ASSERT(strncmp(s, "{\n \"pi_a\": [\n  \"", 16) == 0);
			size_t n = strlen(s);
			CU_ASSERT(n > 2 && strcmp(s + n - 2, "\n}") == 0);
			char *ka = strstr(s, "\"pi_a\""), *kb = strstr(s, "\"pi_b\""), *kc = strstr(s, "\"pi_c\""),
			     *kp = strstr(s, "\"protocol\": \"groth16\""), *kv = strstr(s, "\"curve\": \"");
			CU_ASSERT(ka && kb && kc && kp && kv && ka < kb && kb < kc && kc < kp && kp < kv);
			CU_ASSERT(strstr(kv, c->name) == kv + 10);
			CU_ASSERT(strstr(s, "  [\n   \"1\",\n   \"0\"\n  ]\n ],") != NULL); /* pi_b z */
			if (inf)
				CU_ASSERT(strstr(s, "\"pi_c\": [\n  \"0\",\n  \"1\",\n  \"0\"\n ]") != NULL);
			free(s);
		}
}

static void test_public_roundtrip(void)
{
	for (int ci = 0; ci < 2; ci++) {
		const zka_curve *c = fmt_curves[ci];
		uint32_t n = (uint32_t)(zka_test_rand64() % 6);
		uint64_t v[6][4], (*rd)[4];
		uint32_t rn;
		char err[256] = "";
		for (uint32_t i = 0; i < n; i++)
			fmt_rand_scalar(v[i]);
		if (n) { /* r - 1 is the largest valid value */
			memcpy(v[0], c->r, 32);
			v[0][0]--;
		}
		const char *path = fmt_path("public.json");
		CU_ASSERT_FATAL(zka_public_write_json(path, c, (const uint64_t(*)[4])v, n, err, sizeof err) == 0);
		CU_ASSERT_FATAL(zka_public_read_json(path, c, &rd, &rn, err, sizeof err) == 0);
		CU_ASSERT(rn == n && rd != NULL);
		CU_ASSERT(n == 0 || memcmp(rd, v, 32 * (size_t)n) == 0);
		free(rd);
		char *s = slurp_str(path);
		if (n == 0) {
			CU_ASSERT(strcmp(s, "[\n]") == 0);
		} else {
			CU_ASSERT(strncmp(s, "[\n \"", 4) == 0 && strcmp(s + strlen(s) - 2, "\n]") == 0);
		}
		free(s);
		/* a value >= r is refused on write, and nothing is written */
		remove(path);
		memcpy(v[0], c->r, 32);
		err[0] = 0;
		CU_ASSERT(zka_public_write_json(path, c, (const uint64_t(*)[4])v, 1, err, sizeof err) == -EINVAL);
		CU_ASSERT(!fmt_exists(path));
		check_err_line(err, path);
	}
}

static void rand_vk(const zka_curve *c, zka_vk *vk, int with_ab)
{
	memset(vk, 0, sizeof *vk);
	vk->curve = c;
	vk->n_public = (uint32_t)(zka_test_rand64() % 4);
	vk->alpha1 = malloc(96);
	vk->beta2 = malloc(192);
	vk->gamma2 = malloc(192);
	vk->delta2 = malloc(192);
	vk->IC = malloc(96 * ((size_t)vk->n_public + 1));
	fmt_rand_g1(c, vk->alpha1);
	fmt_rand_g2(c, vk->beta2);
	fmt_rand_g2(c, vk->gamma2);
	fmt_rand_g2(c, vk->delta2);
	for (uint32_t i = 0; i <= vk->n_public; i++)
		fmt_rand_g1(c, vk->IC + i * zka_g1_bytes(c));
	if (with_ab) {
		vk->alphabeta12 = malloc(12 * (size_t)c->n8q);
		for (int i = 0; i < 12; i++) {
			uint64_t x[6] = {0};
			zka_test_random(x, c->n8q);
			x[c->n8q / 8 - 1] &= 0x0fffffffffffffffull;
			c->fq_to_mont(x, x);
			memcpy(vk->alphabeta12 + i * c->n8q, x, c->n8q);
		}
	}
}

/* zka_vk_free may predate alphabeta12: free it here first. */
static void vk_free(zka_vk *vk)
{
	free(vk->alphabeta12);
	vk->alphabeta12 = NULL;
	zka_vk_free(vk);
}

static void test_vk_roundtrip(void)
{
	for (int ci = 0; ci < 2; ci++)
		for (int ab = 0; ab < 2; ab++) {
			const zka_curve *c = fmt_curves[ci];
			zka_vk vk, rd;
			char err[256] = "";
			rand_vk(c, &vk, ab);
			const char *path = fmt_path("vk.json");
			CU_ASSERT_FATAL(zka_vk_write_json(path, &vk, err, sizeof err) == 0);
			CU_ASSERT_FATAL(zka_vk_read_json(path, &rd, err, sizeof err) == 0);
			CU_ASSERT(rd.curve == c && rd.n_public == vk.n_public);
			CU_ASSERT(memcmp(rd.alpha1, vk.alpha1, zka_g1_bytes(c)) == 0);
			CU_ASSERT(memcmp(rd.beta2, vk.beta2, zka_g2_bytes(c)) == 0);
			CU_ASSERT(memcmp(rd.gamma2, vk.gamma2, zka_g2_bytes(c)) == 0);
			CU_ASSERT(memcmp(rd.delta2, vk.delta2, zka_g2_bytes(c)) == 0);
			CU_ASSERT(memcmp(rd.IC, vk.IC, zka_g1_bytes(c) * (vk.n_public + 1)) == 0);
			CU_ASSERT((rd.alphabeta12 != NULL) == ab);
			if (ab && rd.alphabeta12)
				CU_ASSERT(memcmp(rd.alphabeta12, vk.alphabeta12, 12 * (size_t)c->n8q) == 0);
			char *s = slurp_str(path);
			const char *keys[] = {"\"protocol\": \"groth16\"", "\"curve\": ", "\"nPublic\": ",
					      "\"vk_alpha_1\"", "\"vk_beta_2\"", "\"vk_gamma_2\"",
					      "\"vk_delta_2\"", "\"vk_alphabeta_12\"", "\"IC\""};
			const char *prev = s;
			for (size_t k = 0; k < 9; k++) {
				const char *at = strstr(s, keys[k]);
				if (k == 7 && !ab) {
					CU_ASSERT(at == NULL);
					continue;
				}
				CU_ASSERT(at != NULL && at >= prev);
				if (at)
					prev = at;
			}
			char np[32];
			snprintf(np, sizeof np, "\"nPublic\": %u,", vk.n_public);
			CU_ASSERT(strstr(s, np) != NULL);
			free(s);
			vk_free(&rd);
			vk_free(&vk);
		}
}

/* Writes text to a file and expects reader kind (0 proof, 1 public, 2 vk) to fail with want. */
static void expect_json_error(int kind, const zka_curve *c, const char *text, const char *want)
{
	const char *path = fmt_path("bad.json");
	char err[256] = "";
	fmt_spit(path, text, strlen(text));
	int r;
	if (kind == 0) {
		zka_proof p;
		r = zka_proof_read_json(path, c, &p, err, sizeof err);
	} else if (kind == 1) {
		uint64_t(*v)[4] = (void *)1;
		uint32_t n = 9;
		r = zka_public_read_json(path, c, &v, &n, err, sizeof err);
		CU_ASSERT(v == NULL && n == 0);
	} else {
		zka_vk vk;
		r = zka_vk_read_json(path, &vk, err, sizeof err);
		CU_ASSERT(vk.IC == NULL && vk.alpha1 == NULL);
	}
	CU_ASSERT(r == -EINVAL);
	check_err_line(err, path);
	if (!strstr(err, want))
		fprintf(stderr, "\n  expected \"%s\", got \"%s\"\n", want, err);
	CU_ASSERT(strstr(err, want) != NULL);
}

/* Replaces the first occurrence of from with to in s (returns a new string). */
static char *subst(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	CU_ASSERT_FATAL(at != NULL);
	size_t n = strlen(s) - strlen(from) + strlen(to);
	char *o = malloc(n + 1);
	size_t pre = (size_t)(at - s);
	memcpy(o, s, pre);
	strcpy(o + pre, to);
	strcat(o, at + strlen(from));
	return o;
}

static void test_json_bad(void)
{
	const zka_curve *c = fmt_curves[zka_test_rand64() & 1];
	char err[256];
	/* a valid proof and vk to corrupt */
	zka_proof p;
	memset(&p, 0, sizeof p);
	p.curve = c;
	fmt_rand_g1(c, p.a);
	fmt_rand_g2(c, p.b);
	fmt_rand_g1(c, p.c);
	const char *pp = fmt_path("good-proof.json");
	CU_ASSERT_FATAL(zka_proof_write_json(pp, &p, err, sizeof err) == 0);
	char *proof = slurp_str(pp);
	zka_vk vk;
	rand_vk(c, &vk, 1);
	const char *vp = fmt_path("good-vk.json");
	CU_ASSERT_FATAL(zka_vk_write_json(vp, &vk, err, sizeof err) == 0);
	char *vks = slurp_str(vp);
	/* the first coordinate string of pi_a: "{\n \"pi_a\": [\n  \"<x>\"" */
	char ax[200];
	const char *q0 = proof + 16, *q1 = strchr(q0, '"');
	memcpy(ax, q0 - 1, (size_t)(q1 - q0) + 2);
	ax[q1 - q0 + 2] = 0;
	char *qs = NULL;
	{

		char *d = zka_dec_format(c->q, c->n8q);
		qs = malloc(strlen(d) + 3);
		sprintf(qs, "\"%s\"", d);
		free(d);
	}
	char *t;

	expect_json_error(0, c, "{\"pi_a\": [", "invalid JSON at line");
	expect_json_error(0, c, "", "invalid JSON");
	expect_json_error(0, c, "[1,2]", "not a JSON object");
	expect_json_error(0, NULL, "{}", "curve: missing");
	expect_json_error(0, c, "{}", "pi_a: missing");
	t = subst(proof, ax, "\"12a\"");
	expect_json_error(0, c, t, "pi_a[0]: not a decimal string");
	free(t);
	t = subst(proof, ax, "\"-5\"");
	expect_json_error(0, c, t, "pi_a[0]: not a decimal string");
	free(t);
	t = subst(proof, ax, "5");
	expect_json_error(0, c, t, "pi_a[0]: not a string");
	free(t);
	t = subst(proof, ax, qs);
	expect_json_error(0, c, t, "pi_a[0]: value not below q");
	free(t);
	t = subst(proof, ax, "\"1\"");
	expect_json_error(0, c, t, "pi_a: point not on the curve");
	free(t);
	t = subst(proof, "\"1\"\n ],\n \"pi_b\"", "\"2\"\n ],\n \"pi_b\"");
	expect_json_error(0, c, t, "pi_a: projective point");
	free(t);
	t = subst(proof, "\"groth16\"", "\"plonk\"");
	expect_json_error(0, c, t, "protocol");
	free(t);
	t = subst(proof, "\"pi_b\"", "\"pi_x\"");
	expect_json_error(0, c, t, "pi_b: missing");
	free(t);
	t = subst(proof, c->name, "secp256k1");
	expect_json_error(0, NULL, t, "unsupported curve");
	free(t);
	t = subst(proof, "\"pi_c\"", "\"pi_a\"");
	expect_json_error(0, c, t, "duplicate");
	free(t);

	expect_json_error(1, c, "{}", "not a JSON array");
	expect_json_error(1, c, "[\"1\", \"2\", 3]", "[2]: not a string");
	expect_json_error(1, c, "[\"1\", \"x\"]", "[1]: not a decimal string");
	expect_json_error(1, c, "[\"1\", \"-1\"]", "[1]: not a decimal string");
	expect_json_error(1, c, "[\"1\", \"1\", \"1\", \"0x01\"]", "[3]: not a decimal string");
	{

		char *r = zka_dec_format(c->r, 32);
		char buf[300];
		snprintf(buf, sizeof buf, "[\"0\", \"%s\"]", r);
		expect_json_error(1, c, buf, "[1]: value not below r");
		free(r);
	}
	expect_json_error(1, c, "[\"1\",]", "invalid JSON");

	t = subst(vks, "\"nPublic\": ", "\"nPublic\": 1");
	expect_json_error(2, c, t, "IC:");
	free(t);
	t = subst(vks, "\"nPublic\": ", "\"nPublic\": -1, \"x\": ");
	expect_json_error(2, c, t, "nPublic: not a non-negative integer");
	free(t);
	t = subst(vks, "\"nPublic\"", "\"nPub\"");
	expect_json_error(2, c, t, "nPublic: missing");
	free(t);
	t = subst(vks, "\"vk_gamma_2\"", "\"vk_gamma_3\"");
	expect_json_error(2, c, t, "vk_gamma_2: missing");
	free(t);
	t = subst(vks, "\"vk_alphabeta_12\": [", "\"vk_alphabeta_12\": [[],");
	expect_json_error(2, c, t, "vk_alphabeta_12");
	free(t);
	t = subst(vks, "\"IC\": [\n  [\n   \"", "\"IC\": [\n  [\n   \"9");
	expect_json_error(2, c, t, "IC[0]");
	free(t);
	t = subst(vks, c->name, "bn999");
	expect_json_error(2, c, t, "unsupported curve");
	free(t);

	/* failed writes leave nothing */
	const char *nodir = fmt_path("missing-dir/proof.json");
	err[0] = 0;
	CU_ASSERT(zka_proof_write_json(nodir, &p, err, sizeof err) == -ENOENT);
	CU_ASSERT(!fmt_exists(nodir));
	err[0] = 0;
	CU_ASSERT(zka_vk_write_json(nodir, &vk, err, sizeof err) == -ENOENT);
	CU_ASSERT(!fmt_exists(nodir));
	check_err_line(err, nodir);
	err[0] = 0;
	CU_ASSERT(zka_proof_read_json(fmt_path("absent.json"), c, &p, err, sizeof err) == -ENOENT);

	free(qs);
	free(proof);
	free(vks);
	vk_free(&vk);
}

int main(void)
{
	static const zka_test_case json[] = {{"proof roundtrip and layout", test_proof_roundtrip},
					     {"public roundtrip and layout", test_public_roundtrip},
					     {"vk roundtrip and layout", test_vk_roundtrip},
					     {"malformed JSON", test_json_bad},
					     {NULL, NULL}};
	zka_test_suite("json", json);
	return zka_test_run();
}
