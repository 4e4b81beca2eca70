/* fmt_testlib.c - see fmt_testlib.h. */
#include "tests/fmt_testlib.h"

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/testutil.h"
#include "zk/bls12_381.h"
#include "zk/bn254.h"

const zka_curve *const fmt_curves[2] = {&zka_curve_bn254, &zka_curve_bls12_381};

static char fmt_dirbuf[64];

static int fmt_rm(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(p);
}

static void fmt_cleanup(void)
{
	if (fmt_dirbuf[0])
		nftw(fmt_dirbuf, fmt_rm, 16, FTW_DEPTH | FTW_PHYS);
}

const char *fmt_dir(void)
{
	if (!fmt_dirbuf[0]) {
		strcpy(fmt_dirbuf, "/tmp/zka_fmt_XXXXXX");
		if (!mkdtemp(fmt_dirbuf))
			abort();
		atexit(fmt_cleanup);
	}
	return fmt_dirbuf;
}

const char *fmt_path(const char *name)
{
	static char bufs[8][256];
	static int k;
	char *b = bufs[k++ & 7];
	snprintf(b, 256, "%s/%s", fmt_dir(), name);
	return b;
}

int fmt_dir_entries(void)
{
	DIR *d = opendir(fmt_dir());
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

void fmt_rand_scalar(uint64_t s[4])
{
	zka_test_random(s, 32);
	s[3] &= 0x0fffffffffffffffull; /* < r on both curves */
	s[0] |= 1;                      /* never zero */
}

#define FMT_RAND_POINTS(C)                                                                         \
	static void fmt_rand_g1_##C(uint8_t *out)                                                  \
	{                                                                                          \
		C##_g1_aff g;                                                                      \
		C##_g1_jac j;                                                                      \
		uint64_t k[4];                                                                     \
		fmt_rand_scalar(k);                                                                \
		C##_g1_gen(&g);                                                                    \
		C##_g1_from_aff(&j, &g);                                                           \
		C##_g1_mul(&j, &j, k, 4);                                                          \
		C##_g1_to_aff(&g, &j);                                                             \
		memcpy(out, &g, sizeof g);                                                         \
	}                                                                                          \
	static void fmt_rand_g2_##C(uint8_t *out)                                                  \
	{                                                                                          \
		C##_g2_aff g;                                                                      \
		C##_g2_jac j;                                                                      \
		uint64_t k[4];                                                                     \
		fmt_rand_scalar(k);                                                                \
		C##_g2_gen(&g);                                                                    \
		C##_g2_from_aff(&j, &g);                                                           \
		C##_g2_mul(&j, &j, k, 4);                                                          \
		C##_g2_to_aff(&g, &j);                                                             \
		memcpy(out, &g, sizeof g);                                                         \
	}
FMT_RAND_POINTS(bn254)
FMT_RAND_POINTS(bls12_381)

void fmt_rand_g1(const zka_curve *c, uint8_t *out)
{
	if (c->id == ZKA_BN254)
		fmt_rand_g1_bn254(out);
	else
		fmt_rand_g1_bls12_381(out);
}

void fmt_rand_g2(const zka_curve *c, uint8_t *out)
{
	if (c->id == ZKA_BN254)
		fmt_rand_g2_bn254(out);
	else
		fmt_rand_g2_bls12_381(out);
}

/* Fills n points; a random sixth of them (at least none required) are infinity. Random
 * points are expensive, so a few are generated and the rest repeat them. */
static uint8_t *fmt_points(const zka_curve *c, size_t n, int g2)
{
	size_t sz = g2 ? zka_g2_bytes(c) : zka_g1_bytes(c);
	uint8_t *p = malloc(n ? n * sz : 1);
	uint8_t base[3][192];
	for (int i = 0; i < 3; i++)
		(g2 ? fmt_rand_g2 : fmt_rand_g1)(c, base[i]);
	for (size_t i = 0; i < n; i++) {
		unsigned r = (unsigned)(zka_test_rand64() % 6);
		if (r == 5)
			memset(p + i * sz, 0, sz);
		else
			memcpy(p + i * sz, base[r % 3], sz);
	}
	return p;
}

static uint8_t *fmt_dup(const void *p, size_t n)
{
	uint8_t *d = malloc(n);
	memcpy(d, p, n);
	return d;
}

void fmt_rand_pk(const zka_curve *c, zka_pk *pk)
{
	memset(pk, 0, sizeof *pk);
	pk->curve = c;
	pk->n_public = (uint32_t)(zka_test_rand64() % 4);
	pk->n_vars = pk->n_public + 1 + 1 + (uint32_t)(zka_test_rand64() % 8);
	pk->log_domain = 4 + (uint32_t)(zka_test_rand64() % 2);
	pk->domain_size = 1u << pk->log_domain;
	uint32_t n_constraints = pk->domain_size - pk->n_public - 1;
	uint8_t g1[96], g2[192];
	fmt_rand_g1(c, g1);
	fmt_rand_g2(c, g2);
	pk->alpha1 = fmt_dup(g1, zka_g1_bytes(c));
	fmt_rand_g1(c, g1);
	pk->beta1 = fmt_dup(g1, zka_g1_bytes(c));
	pk->beta2 = fmt_dup(g2, zka_g2_bytes(c));
	fmt_rand_g2(c, g2);
	pk->gamma2 = fmt_dup(g2, zka_g2_bytes(c));
	fmt_rand_g1(c, g1);
	pk->delta1 = fmt_dup(g1, zka_g1_bytes(c));
	fmt_rand_g2(c, g2);
	pk->delta2 = fmt_dup(g2, zka_g2_bytes(c));
	pk->IC = fmt_points(c, pk->n_public + 1, 0);
	pk->A = fmt_points(c, pk->n_vars, 0);
	pk->B1 = fmt_points(c, pk->n_vars, 0);
	pk->B2 = fmt_points(c, pk->n_vars, 1);
	pk->C = fmt_points(c, pk->n_vars - pk->n_public - 1, 0);
	pk->H = fmt_points(c, pk->domain_size, 0);
	uint32_t nrand = 1 + (uint32_t)(zka_test_rand64() % 40);
	pk->n_coefs = nrand + pk->n_public + 1;
	pk->coefs = calloc(pk->n_coefs, sizeof *pk->coefs);
	for (uint32_t i = 0; i < nrand; i++) {
		zka_coef *k = &pk->coefs[i];
		k->matrix = (uint32_t)(zka_test_rand64() & 1);
		k->row = (uint32_t)(zka_test_rand64() % n_constraints);
		k->signal = (uint32_t)(zka_test_rand64() % pk->n_vars);
		fmt_rand_scalar(k->value);
		c->fr_to_mont(k->value, k->value);
	}
	for (uint32_t s = 0; s <= pk->n_public; s++) {
		zka_coef *k = &pk->coefs[nrand + s];
		k->matrix = 0;
		k->row = n_constraints + s;
		k->signal = s;
		uint64_t one[4] = {1, 0, 0, 0};
		c->fr_to_mont(k->value, one);
	}
}

int fmt_pk_equal(const zka_pk *a, const zka_pk *b)
{
	const zka_curve *c = a->curve;
	if (a->curve != b->curve || a->n_vars != b->n_vars || a->n_public != b->n_public ||
	    a->domain_size != b->domain_size || a->log_domain != b->log_domain ||
	    a->n_coefs != b->n_coefs)
		return 0;
	size_t g1 = zka_g1_bytes(c), g2 = zka_g2_bytes(c);
	if (memcmp(a->alpha1, b->alpha1, g1) || memcmp(a->beta1, b->beta1, g1) ||
	    memcmp(a->beta2, b->beta2, g2) || memcmp(a->gamma2, b->gamma2, g2) ||
	    memcmp(a->delta1, b->delta1, g1) || memcmp(a->delta2, b->delta2, g2) ||
	    memcmp(a->IC, b->IC, g1 * (a->n_public + 1)) || memcmp(a->A, b->A, g1 * a->n_vars) ||
	    memcmp(a->B1, b->B1, g1 * a->n_vars) || memcmp(a->B2, b->B2, g2 * a->n_vars) ||
	    memcmp(a->C, b->C, g1 * (a->n_vars - a->n_public - 1)) ||
	    memcmp(a->H, b->H, g1 * a->domain_size))
		return 0;
	for (uint32_t i = 0; i < a->n_coefs; i++) {
		const zka_coef *x = &a->coefs[i], *y = &b->coefs[i];
		if (x->matrix != y->matrix || x->row != y->row || x->signal != y->signal ||
		    memcmp(x->value, y->value, 32))
			return 0;
	}
	return 1;
}

uint8_t *fmt_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc(n ? (size_t)n : 1);
	if (fread(b, 1, (size_t)n, f) != (size_t)n)
		abort();
	fclose(f);
	*len = (size_t)n;
	return b;
}

void fmt_spit(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len)
		abort();
	fclose(f);
}

int fmt_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

int fmt_find_section(const uint8_t *buf, size_t len, uint32_t id, size_t *off, uint64_t *size,
		     size_t *entry)
{
	uint32_t n;
	memcpy(&n, buf + 8, 4);
	size_t pos = 12;
	for (uint32_t i = 0; i < n && pos + 12 <= len; i++) {
		uint32_t sid;
		uint64_t sz;
		memcpy(&sid, buf + pos, 4);
		memcpy(&sz, buf + pos + 4, 8);
		if (sid == id) {
			*off = pos + 12;
			*size = sz;
			if (entry)
				*entry = pos;
			return 0;
		}
		pos += 12 + sz;
	}
	return -1;
}
